//! The Claude Code loader: one main `<session>.jsonl` plus its subagent files
//! into a [`Session`] (docs/transcripts.md#claude-code, docs/transcripts.md#reading-rules).
//!
//! What it does, in order:
//! 1. reads the main file leniently ([`read_objects`]); lines with
//!    `isSidechain: true` go to inline subagent threads grouped by their
//!    `parentUuid` chain, the rest to the main thread;
//! 2. each thread merges assistant chunks by `message.id` (usage counted once
//!    per message, the last chunk's usage wins), pairs `tool_use` with its
//!    `tool_result` by id, and cuts turns at real user prompts;
//! 3. reads each subagent file (sibling `agent-<id>.jsonl` or
//!    `<session>/subagents/agent-<id>.jsonl` + `.meta.json`) as a thread;
//! 4. links every subagent to its spawning Task/Agent call: `toolUseId` from
//!    the meta sidecar, else `agentId` on the spawn's result, else the spawn's
//!    `input.prompt` equal to the subagent's first prompt.
//!
//! Steps 1 and 3 are this module; step 2 is `thread` (one thread assembled
//! line by line), step 4 is `link`; `resume` reads only what a grown main
//! file gained since a [`Checkpoint`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::hook_activity::{At, HookLog, RejectedPrompt, parse_rejected_prompt};
use super::jsonl::{Place, read_objects, read_objects_from};
use super::model::{
    Agent, Diagnostic, Event, INPUT_ECHOES, LineIndex, Locus, Session, Subagent, SubagentLayout,
    SubagentLink, ToolCallRecord, ToolResult, Turn, Usage,
};
use crate::tools::{OnError, parse_tool_call, tool_kind, tool_resolved};

mod link;
mod resume;
mod thread;

use link::*;
pub(crate) use link::{SpawnFacts, SubFacts, link_pairs, spawn_prompt};
pub use resume::*;
pub use thread::PROCESS_NOTE;
use thread::*;
pub(crate) use thread::{time_of, timestamp_of};

/// Moved to [`super::text`]; re-exported here for existing callers.
pub use super::text::{content_text, display_prompt, one_line};

/// Loads a Claude Code session from its main transcript and the subagent
/// files that belong to it (as found by discovery).
///
/// Never fails on content: every unusable line becomes a diagnostic. A
/// subagent file that cannot be read becomes a diagnostic too.
///
/// # Errors
/// Only when the main file cannot be opened or read.
pub fn load_session(main: &Path, subagent_files: &[PathBuf]) -> std::io::Result<Session> {
    load_with(main, subagent_files, false, false, None).map(|(session, _)| session)
}

/// [`load_session`], plus the [`Checkpoint`] of its main file's end that
/// [`resume_session`] continues from when the file grows: `None` when the
/// main file is compressed, holds sidechain lines (inline subagent
/// threads), stopped on a read error, or ends in a line without its newline
/// that still parsed as an object.
///
/// # Errors
/// As [`load_session`].
pub fn load_session_with_checkpoint(
    main: &Path,
    subagent_files: &[PathBuf],
) -> std::io::Result<(Session, Option<Checkpoint>)> {
    load_with(main, subagent_files, true, false, None)
}

/// Where each line of a file starts, as [`load_session_with_line_starts`]
/// records them while reading: `(file, starts)`, `starts[i]` the byte
/// offset of 1-based line `i + 1`, the last entry the end of what was read.
pub type LineStarts = Vec<(PathBuf, Vec<u64>)>;

/// [`load_session_with_checkpoint`], plus the line starts of every plain
/// (not `.zst`) file it read, main file first, recorded while reading (the
/// index's call rows store each call's line spans from them, without
/// reading the files a second time).
///
/// # Errors
/// As [`load_session`].
pub fn load_session_with_line_starts(
    main: &Path,
    subagent_files: &[PathBuf],
) -> std::io::Result<(Session, Option<Checkpoint>, LineStarts)> {
    let mut starts = Vec::new();
    let (session, checkpoint) = load_with(main, subagent_files, true, false, Some(&mut starts))?;
    Ok((session, checkpoint, starts))
}

/// One subagent file read as a session of one thread, with the
/// [`Checkpoint`] of its end that [`resume_session`] continues from: every
/// line goes to the session's main thread (its `isSidechain` flags are
/// the file's own), so the session's calls, turns and hook activity are
/// those [`load_session`] gives that subagent's thread. The live hook's
/// history checkpoint reads a growing subagent file this way
/// (docs/live-hook.md#history-rules-and-the-checkpoint). The checkpoint is
/// `None` as for [`load_session_with_checkpoint`].
///
/// # Errors
/// As [`load_session`].
pub fn load_thread_with_checkpoint(file: &Path) -> std::io::Result<(Session, Option<Checkpoint>)> {
    load_with(file, &[], true, true, None)
}

fn load_with(
    main: &Path,
    subagent_files: &[PathBuf],
    want_checkpoint: bool,
    one_thread: bool,
    mut line_starts: Option<&mut LineStarts>,
) -> std::io::Result<(Session, Option<Checkpoint>)> {
    let mut diagnostics = Vec::new();
    let mut read = MainRead::new(main, Thread::new(main), SessionMeta::default());
    read.one_thread = one_thread;
    let plain = !super::fsread::is_zst(main);
    let mut place = Place::default();
    read_file(
        main,
        want_checkpoint.then_some(&mut place),
        &mut diagnostics,
        |line_no, value| read.line(line_no, &value),
        line_starts.as_deref_mut(),
    )?;
    let checkpoint = (want_checkpoint && plain && read.inline.is_empty())
        .then(|| read.checkpoint(&place))
        .flatten();

    let mut subagents: Vec<Subagent> = Vec::new();
    for mut thread in std::mem::take(&mut read.inline) {
        diagnostics.append(&mut thread.diagnostics);
        let agent_id = thread.agent_id.clone();
        subagents.push(thread.into_subagent(main, SubagentLayout::Inline, agent_id, None));
    }
    for file in subagent_files {
        let mut thread = Thread::new(file);
        let mut file_diags = Vec::new();
        let read = read_file(
            file,
            None,
            &mut file_diags,
            |line_no, value| thread.push(line_no, &value),
            line_starts.as_deref_mut(),
        );
        thread.diagnostics.append(&mut file_diags);
        if let Err(err) = read {
            diagnostics.push(Diagnostic {
                path: file.clone(),
                locus: None,
                message: unreadable_message("subagent transcript", &err),
            });
            continue;
        }
        let layout = if file.components().any(|c| c.as_os_str() == "subagents") {
            SubagentLayout::SubagentsDir
        } else {
            SubagentLayout::Sibling
        };
        let agent_id = thread.agent_id.clone().or_else(|| file_agent_id(file));
        let meta_value = read_meta(file, &mut diagnostics);
        diagnostics.append(&mut thread.diagnostics);
        subagents.push(thread.into_subagent(file, layout, agent_id, meta_value));
    }
    Ok((read.finish(subagents, diagnostics), checkpoint))
}

/// Reads the objects of `path` into `on_line`: from `place` (advanced,
/// for a checkpoint) and with its line starts pushed to `line_starts` when
/// either is asked for and the file is plain (not `.zst`), else whole with
/// [`read_objects`].
fn read_file(
    path: &Path,
    place: Option<&mut Place>,
    diagnostics: &mut Vec<Diagnostic>,
    on_line: impl FnMut(usize, Value),
    line_starts: Option<&mut LineStarts>,
) -> std::io::Result<()> {
    if super::fsread::is_zst(path) || (place.is_none() && line_starts.is_none()) {
        return read_objects(path, diagnostics, on_line);
    }
    let mut starts = Vec::new();
    read_objects_from(
        path,
        place.unwrap_or(&mut Place::default()),
        diagnostics,
        on_line,
        line_starts.is_some().then_some(&mut starts),
    )?;
    if let Some(all) = line_starts {
        all.push((path.to_path_buf(), starts));
    }
    Ok(())
}

/// The main file being read: its main thread, inline subagent threads and
/// session facts (what [`load_session`] and [`resume_session`] share).
struct MainRead {
    main: PathBuf,
    main_thread: Thread,
    inline: Vec<Thread>,
    inline_of_uuid: ThreadOfUuid,
    meta: SessionMeta,
    unknown_types: Vec<Diagnostic>,
    /// Resuming: lines before this one are the checkpoint's (0: a whole
    /// read).
    resume_base: usize,
    /// A subagent file read as one thread: every line is the main
    /// thread's ([`load_thread_with_checkpoint`]).
    one_thread: bool,
}

impl MainRead {
    fn new(main: &Path, main_thread: Thread, meta: SessionMeta) -> MainRead {
        MainRead {
            main: main.to_path_buf(),
            main_thread,
            inline: Vec::new(),
            inline_of_uuid: ThreadOfUuid::default(),
            meta,
            unknown_types: Vec::new(),
            resume_base: 0,
            one_thread: false,
        }
    }

    /// One object line of the main file.
    fn line(&mut self, line_no: usize, value: &Value) {
        if self.resume_base > 0 && !self.one_thread {
            // Not modelled by a resume: a new summary may name any earlier
            // line's uuid (the title); sidechain lines make inline threads.
            if value.get("type").and_then(Value::as_str) == Some("summary") {
                self.main_thread
                    .conflict("a summary line (its leafUuid may name any earlier line)");
            }
            if value.get("isSidechain").and_then(Value::as_bool) == Some(true) {
                self.main_thread
                    .conflict("a sidechain line (inline subagent)");
            }
        }
        self.meta.observe(value);
        if let Some(kind) = value.get("type").and_then(Value::as_str)
            && !KNOWN_LINE_TYPES.contains(&kind)
        {
            self.unknown_types.push(Diagnostic {
                path: self.main.clone(),
                locus: Some(Locus::Line(line_no)),
                message: format!("unknown line type {kind:?}; kept as metadata"),
            });
        }
        let sidechain =
            !self.one_thread && value.get("isSidechain").and_then(Value::as_bool) == Some(true);
        if sidechain {
            let parent = value.get("parentUuid").and_then(Value::as_str);
            let group = match parent.and_then(|p| self.inline_of_uuid.get(p)) {
                Some(g) => g,
                None => {
                    self.inline.push(Thread::new(&self.main));
                    self.inline.len() - 1
                }
            };
            if let Some(uuid) = value.get("uuid").and_then(Value::as_str) {
                self.inline_of_uuid.insert(uuid, group);
            }
            self.inline[group].push(line_no, value);
        } else {
            self.main_thread.push(line_no, value);
        }
    }

    /// The checkpoint after the lines read up to `place` (module
    /// [`super::jsonl`]'s [`Place`]): a partial last line that did not
    /// parse is left out (read again on resume); `None` after a read error
    /// or when that line parsed, or with inline threads.
    fn checkpoint(&self, place: &Place) -> Option<Checkpoint> {
        if place.failed || place.partial_delivered || !self.inline.is_empty() {
            return None;
        }
        let t = &self.main_thread;
        let (offset, lines) = if place.partial {
            (place.last_start, place.lines.saturating_sub(1))
        } else {
            (place.offset, place.lines)
        };
        let first_prompt = t
            .turns
            .iter()
            .enumerate()
            .filter(|(_, turn)| !turn.rejected)
            .find_map(|(i, turn)| turn.prompt_line.map(|line| (i, line, turn.prompt.clone())));
        let leaves = self
            .meta
            .summaries
            .iter()
            .filter_map(|(_, leaf)| leaf.as_ref())
            .filter_map(|leaf| t.lines.uuids.get(leaf).map(|&n| (leaf.clone(), n)))
            .collect();
        Some(Checkpoint {
            offset,
            lines,
            end: place.offset,
            meta: self.meta.clone(),
            leaves,
            turns: t.turns.len(),
            prompt_turns: t
                .turns
                .iter()
                .filter(|x| x.prompt_line.is_some() && !x.rejected)
                .count(),
            first_prompt,
            turn0_notes_only: t
                .turns
                .first()
                .is_none_or(|x| x.events.iter().all(|e| matches!(e, Event::Note { .. }))),
            started: t.started,
            ended: t.ended,
            agent_id: t.agent_id.clone(),
            hooks: t.hooks.records.clone(),
            open_stop: t.hooks.open_stop(),
            one_thread: self.one_thread,
        })
    }

    /// The session from what was read plus the subagents, with every
    /// diagnostic (`diagnostics` holds the line reader's and the
    /// subagents' so far).
    fn finish(mut self, subagents: Vec<Subagent>, mut diagnostics: Vec<Diagnostic>) -> Session {
        let main = self.main;
        let mut main_thread = self.main_thread;
        main_thread.note_last_end();
        diagnostics.append(&mut main_thread.diagnostics);
        diagnostics.append(&mut self.unknown_types);
        diagnostics.sort_by(|a, b| a.path.cmp(&b.path).then(a.locus.cmp(&b.locus)));

        let id = super::model::id_from_path(&main);
        let first_prompt = main_thread
            .turns
            .iter()
            .find(|t| t.prompt_line.is_some() && !t.rejected)
            .map(|t| t.prompt.clone());
        let meta = self.meta;
        let title = meta.title(&main_thread.lines.uuids, first_prompt);
        let main_lines = main_thread.take_lines();
        let mut session = Session {
            id,
            agent: Agent::ClaudeCode,
            path: main,
            cwd: meta.cwd,
            title,
            started: main_thread.started,
            ended: main_thread.ended,
            version: meta.version,
            git_branch: meta.git_branch,
            usage: main_thread.usage(),
            models: main_thread.models.clone(),
            turns: main_thread.turns,
            subagents,
            diagnostics,
            lines: main_lines,
        };
        // The main thread's times define the session; subagents only extend its
        // end (a hand-made or copied subagent file can carry older timestamps).
        for sub in &session.subagents {
            if session.started.is_none() {
                session.started = sub.started;
            }
            session.ended = max_time(session.ended, sub.ended);
        }
        link_subagents(&mut session);
        session
    }
}

/// Sidechain line `uuid` → index of its inline thread, while the main file
/// is read. A canonical lowercase UUID (8-4-4-4-12 hex digits, as Claude
/// Code writes them) is keyed by its 128 bits, so the 100k sidechain lines
/// of a big session cost no string each; any other id is keyed by its text.
#[derive(Default)]
struct ThreadOfUuid {
    bits: HashMap<u128, usize>,
    text: HashMap<String, usize>,
}

impl ThreadOfUuid {
    fn get(&self, uuid: &str) -> Option<usize> {
        match uuid_bits(uuid) {
            Some(bits) => self.bits.get(&bits).copied(),
            None => self.text.get(uuid).copied(),
        }
    }

    fn insert(&mut self, uuid: &str, thread: usize) {
        match uuid_bits(uuid) {
            Some(bits) => self.bits.insert(bits, thread),
            None => self.text.insert(uuid.to_string(), thread),
        };
    }
}

/// The 128 bits of a canonical lowercase UUID (`8-4-4-4-12` hex digits
/// `0-9a-f`); `None` for any other text (uppercase digits included, so two
/// different strings never share a key).
fn uuid_bits(uuid: &str) -> Option<u128> {
    let bytes = uuid.as_bytes();
    if bytes.len() != 36 {
        return None;
    }
    let mut bits: u128 = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let digit = match b {
            b'-' if matches!(i, 8 | 13 | 18 | 23) => continue,
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => return None,
        };
        if matches!(i, 8 | 13 | 18 | 23) {
            return None;
        }
        bits = (bits << 4) | u128::from(digit);
    }
    Some(bits)
}

/// Line types seen in Claude Code transcripts up to 2.1.332 (docs/transcripts.md#line-types
/// and the real-cc-2.1.332 README). Any other `type` is kept as opaque
/// metadata and reported once per line as a diagnostic, so format drift shows.
const KNOWN_LINE_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "attachment",
    "progress",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "custom-title",
    "ai-title",
    "agent-name",
    "last-prompt",
    "permission-mode",
    "mode",
    "pr-link",
    "frame-link",
    "worktree-state",
    "relocated",
    "bridge-session",
    "atis-latch",
    "started",
    "result",
    "api-request",
    "api-request-blob",
    "api-request-shape",
    "cost-state",
    "tools-used",
];

/// Reads the `.meta.json` sidecar of a subagent file (2.1.x): a regular
/// file of at most [`super::fsread::META_CAP`] bytes holding a JSON object.
/// A missing sidecar is silently `None`; any other failure is a diagnostic
/// (`not a regular file (FIFO); skipped`, `cannot read subagent meta
/// sidecar: <io error>` (also when over the cap), `subagent meta sidecar is
/// not a JSON object; ignored`).
/// The agent id a subagent file's name gives (`agent-<id>.jsonl`), used
/// when no line of it carries `agentId`.
pub(crate) fn file_agent_id(file: &Path) -> Option<String> {
    file.file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.strip_prefix("agent-"))
        .map(str::to_string)
}

/// The meta sidecar's `toolUseId` of the subagent file `file` (what
/// linking reads first); `None` when there is no sidecar, it does not read
/// or holds no such text.
pub(crate) fn meta_tool_use_id(file: &Path) -> Option<String> {
    read_meta(file, &mut Vec::new())?
        .get("toolUseId")
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn read_meta(file: &Path, diagnostics: &mut Vec<Diagnostic>) -> Option<Value> {
    let meta_path = file.with_extension("meta.json");
    let text = match super::fsread::read_capped(&meta_path, super::fsread::META_CAP) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return None,
        Err(err) => {
            diagnostics.push(Diagnostic {
                message: unreadable_message("subagent meta sidecar", &err),
                path: meta_path,
                locus: None,
            });
            return None;
        }
    };
    match serde_json::from_slice::<Value>(&text) {
        Ok(v @ Value::Object(_)) => Some(v),
        Ok(_) | Err(_) => {
            diagnostics.push(Diagnostic {
                path: meta_path,
                locus: None,
                message: "subagent meta sidecar is not a JSON object; ignored".to_string(),
            });
            None
        }
    }
}

/// The diagnostic for a file that could not be read at all:
/// `not a regular file (<kind>); skipped`, else `cannot read <what>: <io
/// error>` (e.g. `cannot read subagent transcript: Permission denied (os
/// error 13)`).
pub fn unreadable_message(what: &str, err: &std::io::Error) -> String {
    if super::fsread::is_not_regular(err) {
        format!("{err}; skipped")
    } else {
        format!("cannot read {what}: {err}")
    }
}

/// Session-level facts gathered from every main-file line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct SessionMeta {
    cwd: Option<String>,
    version: Option<String>,
    git_branch: Option<String>,
    custom_title: Option<String>,
    ai_title: Option<String>,
    summaries: Vec<(String, Option<String>)>,
}

impl SessionMeta {
    fn observe(&mut self, v: &Value) {
        let s = |k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
        if self.cwd.is_none() {
            self.cwd = s("cwd").map(str::to_string);
        }
        if let Some(version) = s("version") {
            self.version = Some(version.to_string());
        }
        if self.git_branch.is_none() {
            self.git_branch = s("gitBranch").map(str::to_string);
        }
        match s("type") {
            Some("custom-title") => {
                if let Some(t) = s("customTitle") {
                    self.custom_title = Some(t.to_string());
                }
            }
            Some("ai-title") => {
                if let Some(t) = s("aiTitle") {
                    self.ai_title = Some(t.to_string());
                }
            }
            Some("summary") => {
                if let Some(t) = s("summary") {
                    self.summaries
                        .push((t.to_string(), s("leafUuid").map(str::to_string)));
                }
            }
            _ => {}
        }
    }

    fn title(
        &self,
        uuids: &HashMap<String, usize>,
        first_prompt: Option<String>,
    ) -> Option<String> {
        if let Some(t) = self.custom_title.clone().or_else(|| self.ai_title.clone()) {
            return Some(t);
        }
        let own = self
            .summaries
            .iter()
            .rev()
            .find(|(_, leaf)| leaf.as_ref().is_some_and(|l| uuids.contains_key(l)));
        if let Some((t, _)) = own {
            return Some(t.clone());
        }
        first_prompt
            .map(|p| one_line(&display_prompt(&p), 200))
            .filter(|p| !p.is_empty())
            .or_else(|| self.summaries.last().map(|(t, _)| t.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_lowercase_uuids_are_keyed_by_bits_and_anything_else_by_text() {
        let uuid = "f0ed3cc4-ff37-4c30-80ec-d29caafd5e20";
        assert_eq!(
            uuid_bits(uuid),
            Some(0xf0ed3cc4_ff37_4c30_80ec_d29caafd5e20_u128)
        );
        for other in [
            "F0ED3CC4-FF37-4C30-80EC-D29CAAFD5E20",
            "f0ed3cc4ff37-4c30-80ec-d29caafd5e20-",
            "f0ed3cc4-ff37-4c30-80ec-d29caafd5e2g",
            "f0ed3cc4-ff37-4c30-80ec-d29caafd5e2",
            "u1",
            "",
        ] {
            assert_eq!(uuid_bits(other), None, "{other}");
        }
        let mut threads = ThreadOfUuid::default();
        threads.insert(uuid, 0);
        threads.insert("F0ED3CC4-FF37-4C30-80EC-D29CAAFD5E20", 1);
        threads.insert("u1", 2);
        threads.insert(uuid, 3);
        assert_eq!(threads.get(uuid), Some(3));
        assert_eq!(threads.get("F0ED3CC4-FF37-4C30-80EC-D29CAAFD5E20"), Some(1));
        assert_eq!(threads.get("u1"), Some(2));
        assert_eq!(threads.get("u2"), None);
        assert_eq!(threads.get("00000000-0000-0000-0000-000000000000"), None);
    }

    /// c8 was written by three processes (`cost-state` on lines 73, 79
    /// and 100, its README): each one's end is noted at that line, the last
    /// included, and each later one's start at its first envelope line; a
    /// file whose last process wrote no `cost-state` gets no last end.
    #[test]
    fn every_process_of_a_resumed_file_has_its_end_noted() {
        let path = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/real-cc-2.1.332/hooks_c8_outcomes/projects/-home-dev-work-hooks-c8-outcomes/07535b09-1bbd-4e99-9cf4-3c8d232c7d4f.jsonl"
        ));
        let notes = |session: &crate::transcript::Session| -> Vec<(String, usize)> {
            session
                .turns
                .iter()
                .flat_map(|t| &t.events)
                .filter_map(|e| match e {
                    Event::Note {
                        label, text, line, ..
                    } if label == PROCESS_NOTE => {
                        Some((text.lines().next().unwrap_or("").to_string(), *line))
                    }
                    _ => None,
                })
                .collect()
        };
        let whole = load_session(path, &[]).expect("c8");
        let ends: Vec<usize> = notes(&whole)
            .iter()
            .filter(|(t, _)| t == "ended · SessionEnd")
            .map(|(_, l)| *l)
            .collect();
        assert_eq!(ends, [73, 79, 100]);
        assert_eq!(notes(&whole).len(), 5, "{:?}", notes(&whole));
        // The same file cut before its last cost-state line: the third
        // process is still running, so no end of its own.
        let dir = tempfile::tempdir().expect("tempdir");
        let cut = dir
            .path()
            .join("07535b09-1bbd-4e99-9cf4-3c8d232c7d4f.jsonl");
        let text = std::fs::read_to_string(path).expect("read");
        let first99: String = text.split_inclusive('\n').take(99).collect();
        std::fs::write(&cut, first99).expect("write");
        let running = load_session(&cut, &[]).expect("cut c8");
        let ends: Vec<usize> = notes(&running)
            .iter()
            .filter(|(t, _)| t == "ended · SessionEnd")
            .map(|(_, l)| *l)
            .collect();
        assert_eq!(ends, [73, 79]);
    }
}
