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
    load_with(main, subagent_files, false).map(|(session, _)| session)
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
    load_with(main, subagent_files, true)
}

fn load_with(
    main: &Path,
    subagent_files: &[PathBuf],
    want_checkpoint: bool,
) -> std::io::Result<(Session, Option<Checkpoint>)> {
    let mut diagnostics = Vec::new();
    let mut read = MainRead::new(main, Thread::new(main), SessionMeta::default());
    let plain = !super::fsread::is_zst(main);
    let mut place = Place::default();
    if want_checkpoint && plain {
        read_objects_from(
            main,
            &mut place,
            &mut diagnostics,
            |line_no, value| read.line(line_no, &value),
            None,
        )?;
    } else {
        read_objects(main, &mut diagnostics, |line_no, value| {
            read.line(line_no, &value)
        })?;
    }
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
        let read = read_objects(file, &mut file_diags, |line_no, value| {
            thread.push(line_no, &value)
        });
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
        let file_id = file
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.strip_prefix("agent-"))
            .map(str::to_string);
        let agent_id = thread.agent_id.clone().or(file_id);
        let meta_value = read_meta(file, &mut diagnostics);
        diagnostics.append(&mut thread.diagnostics);
        subagents.push(thread.into_subagent(file, layout, agent_id, meta_value));
    }
    Ok((read.finish(subagents, diagnostics), checkpoint))
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
        }
    }

    /// One object line of the main file.
    fn line(&mut self, line_no: usize, value: &Value) {
        if self.resume_base > 0 {
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
        let sidechain = value.get("isSidechain").and_then(Value::as_bool) == Some(true);
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
        })
    }

    /// The session from what was read plus the subagents, with every
    /// diagnostic (`diagnostics` holds the line reader's and the
    /// subagents' so far).
    fn finish(mut self, subagents: Vec<Subagent>, mut diagnostics: Vec<Diagnostic>) -> Session {
        let main = self.main;
        let mut main_thread = self.main_thread;
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

/// Where reading a Claude Code main file stopped, and the main thread's
/// state there: what [`resume_session`] needs to read only the lines after
/// it and give what [`load_session`] gives for the whole file. Made by
/// [`load_session_with_checkpoint`] (and by a resume); kept by the index as
/// JSON. The bodies of earlier events are not kept: their calls come back
/// from the index's rows ([`OldCall`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Byte offset of the first line not taken in (the end of the last
    /// complete line; a partial last line is read again).
    pub offset: u64,
    /// Lines before `offset`.
    pub lines: usize,
    /// Bytes the read covered (the file's size when it was read whole).
    pub end: u64,
    meta: SessionMeta,
    /// The summary `leafUuid`s found among the lines' `uuid`s, with their
    /// line (what the title needs of the uuid set).
    leaves: Vec<(String, usize)>,
    /// The main thread's turns, prompt turns, and its first prompt turn
    /// `(turn, line, prompt)`.
    turns: usize,
    prompt_turns: usize,
    first_prompt: Option<(usize, usize, String)>,
    /// Whether turn 0 (if any) holds only notes (a first prompt then opens
    /// it rather than a new turn).
    turn0_notes_only: bool,
    started: Option<DateTime<Utc>>,
    ended: Option<DateTime<Utc>>,
    agent_id: Option<String>,
    /// The main thread's hook firings so far and its open Stop record.
    hooks: Vec<super::hook_activity::HookActivity>,
    open_stop: Option<usize>,
}

impl Checkpoint {
    /// Whether it holds JSON values kept verbatim (a hook firing's
    /// rewritten input), the only fields whose JSON may not read back
    /// equal (a float); everything else is text, integers and times.
    pub fn holds_json_values(&self) -> bool {
        self.hooks
            .iter()
            .any(|h| h.rewrite.is_some() || h.updated_output.is_some())
    }
}

/// A main-thread call as the index stored it (its row), for
/// [`resume_session`]: enough to pair a later result with it and to find
/// it by id.
#[derive(Debug, Clone)]
pub struct OldCall {
    /// `tool_use_id`.
    pub tool_use_id: String,
    /// Tool name.
    pub name: String,
    /// [`crate::tools::tool_kind`] as stored.
    pub kind: crate::tools::ToolKind,
    /// [`crate::tools::tool_resolved`] as stored.
    pub resolved: Option<String>,
    /// 1-based line of its `tool_use`.
    pub line: usize,
    /// The stored timestamp (the call's own; for a call with a result,
    /// the result's when the call has none).
    pub timestamp: Option<DateTime<Utc>>,
    /// Its result: `(is_error, line)`.
    pub result: Option<(bool, usize)>,
}

/// What [`resume_session`] gives.
#[derive(Debug)]
pub struct Resumed {
    /// The session as [`load_session`] would give it for the whole file,
    /// except: the earlier calls are the [`OldCall`]s given (no input, no
    /// result body; a result paired now is complete), the earlier events
    /// other than calls are absent, `diagnostics` holds only those of the
    /// new lines, and `usage`, `models` and `lines` (but its hook
    /// activity, which is whole) cover only the new lines.
    pub session: Session,
    /// The checkpoint at the new end (`None` as for
    /// [`load_session_with_checkpoint`]).
    pub checkpoint: Option<Checkpoint>,
    /// Offsets of the lines read, from line `from.lines + 1` on, then the
    /// end offset.
    pub starts: Vec<u64>,
    /// Bytes read.
    pub read: u64,
}

/// Reads the lines of a grown main file after `from` (made for the same
/// file when it was shorter) on top of the stored main-thread calls `old`
/// (in order), for a session without subagent files.
///
/// `Ok(Err(why))` when the new lines do something the checkpoint does not
/// model (the caller then loads the file whole): a `tool_use` reusing the id
/// of an earlier call, a `summary` line, a sidechain line, a hook record
/// that rewrote an earlier call's input (its input is not kept); and a
/// compressed file.
///
/// # Errors
/// As [`load_session`].
pub fn resume_session(
    main: &Path,
    from: &Checkpoint,
    old: &[OldCall],
) -> std::io::Result<Result<Resumed, String>> {
    if super::fsread::is_zst(main) {
        return Ok(Err("a compressed file".to_string()));
    }
    let mut thread = Thread::new(main);
    thread.resume_base = from.lines;
    // Turns: the first prompt where it was, the other prompt turns after
    // it (only their number counts), turn 0 as it was for a first prompt.
    thread.turns = (0..from.turns).map(|_| Turn::default()).collect();
    let mut prompts_left = from.prompt_turns;
    if let Some((i, line, prompt)) = &from.first_prompt
        && let Some(turn) = thread.turns.get_mut(*i)
    {
        turn.prompt_line = Some(*line);
        turn.prompt = prompt.clone();
        prompts_left = prompts_left.saturating_sub(1);
        let after = i + 1;
        for turn in thread.turns.iter_mut().skip(after).take(prompts_left) {
            turn.prompt_line = Some(0);
        }
    }
    if !from.turn0_notes_only
        && let Some(turn) = thread.turns.first_mut()
    {
        turn.events.push(Event::Thinking {
            text: String::new(),
            line: 0,
        });
    }
    if !old.is_empty() && thread.turns.is_empty() {
        return Ok(Err("calls without a turn".to_string()));
    }
    let last = thread.turns.len().saturating_sub(1);
    for call in old {
        let record = ToolCallRecord {
            tool_use_id: call.tool_use_id.clone(),
            tool_kind: call.kind,
            tool_resolved: call.resolved.clone(),
            call: crate::tools::ToolCall::Other(crate::tools::calls::OtherCall {
                name: call.name.clone(),
                raw: None,
                error: None,
            }),
            result: call.result.map(|(is_error, line)| ToolResult {
                text: String::new(),
                is_error,
                tool_use_result: None,
                stdout_is_text: false,
                echoed_input: 0,
                timestamp: None,
                line,
                agent_id: None,
            }),
            timestamp: call.timestamp,
            line: call.line,
            message_id: None,
            subagent: None,
        };
        if let Some(turn) = thread.turns.get_mut(last) {
            turn.events.push(Event::ToolCall(Box::new(record)));
            let at = (last, turn.events.len() - 1);
            thread
                .calls
                .entry(call.tool_use_id.clone())
                .or_default()
                .push(at);
        }
    }
    for (leaf, line) in &from.leaves {
        thread.lines.uuids.insert(leaf.clone(), *line);
    }
    thread.started = from.started;
    thread.ended = from.ended;
    thread.agent_id = from.agent_id.clone();
    thread.hooks = HookLog::resume(from.hooks.clone(), from.open_stop);

    let mut read = MainRead::new(main, thread, from.meta.clone());
    read.resume_base = from.lines;
    let mut diagnostics = Vec::new();
    let mut place = Place {
        offset: from.offset,
        lines: from.lines,
        ..Place::default()
    };
    let mut starts = Vec::new();
    read_objects_from(
        main,
        &mut place,
        &mut diagnostics,
        |line_no, value| read.line(line_no, &value),
        Some(&mut starts),
    )?;
    let bytes = place.offset.saturating_sub(from.offset);
    if let Some(why) = read.main_thread.conflict.take() {
        return Ok(Err(why));
    }
    // A rewrite's `from` is the call's input, which an earlier call lacks.
    let rewrote_old = read.main_thread.hooks.records.iter().any(|r| {
        r.rewrite.is_some()
            && r.lines.iter().any(|&l| l > from.lines)
            && r.call_line.is_some_and(|l| l <= from.lines)
    });
    if rewrote_old {
        return Ok(Err("a hook rewrote an earlier call's input".to_string()));
    }
    let checkpoint = read.checkpoint(&place);
    let session = read.finish(Vec::new(), diagnostics);
    Ok(Ok(Resumed {
        session,
        checkpoint,
        starts,
        read: bytes,
    }))
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

/// One conversation thread (the main thread or one subagent) being assembled.
#[derive(Default)]
struct Thread {
    turns: Vec<Turn>,
    /// tool_use_id → (turn, event) of each record with that id, in order
    /// (ids may repeat: a second call reusing one is kept).
    calls: HashMap<String, Vec<(usize, usize)>>,
    /// message.id → usage of its last chunk, and first-seen order.
    usage_by_message: HashMap<String, Usage>,
    models: Vec<String>,
    lines: LineIndex,
    started: Option<DateTime<Utc>>,
    ended: Option<DateTime<Utc>>,
    agent_id: Option<String>,
    diagnostics: Vec<Diagnostic>,
    path: PathBuf,
    /// Hook firings so far (`LineIndex::hook_activity` once done).
    hooks: HookLog,
    /// Resuming ([`resume_session`]): lines up to this one are the
    /// checkpoint's (0: a whole read).
    resume_base: usize,
    /// Resuming: why the new lines need a whole read after all.
    conflict: Option<String>,
    /// The last `cost-state` line and its time, until a later process
    /// starts (its note is written then: a file one process wrote gets
    /// none).
    pending_end: Option<(usize, Option<DateTime<Utc>>)>,
}

/// The call a hook record's `toolUseID` names: the line and input of the
/// latest call of the thread with that id (ids may repeat).
fn call_at<'a>(
    turns: &'a [Turn],
    calls: &HashMap<String, Vec<(usize, usize)>>,
    id: Option<&str>,
) -> Option<(usize, Option<&'a Value>)> {
    let &(t, e) = calls.get(id?)?.last()?;
    match turns.get(t).and_then(|turn| turn.events.get(e)) {
        Some(Event::ToolCall(r)) => Some((r.line, r.call.raw())),
        _ => None,
    }
}

/// A result line's `toolUseResult` as [`ToolResult::tool_use_result`] keeps
/// it, with what was left out.
struct KeptToolUseResult {
    value: Option<Value>,
    stdout_is_text: bool,
    echoed_input: u8,
}

/// Keeps `tur` once: a copy, except that in an object (key order kept) a
/// `stdout` that is a non-empty string byte-identical to `text` (the
/// result's flattened content; Claude Code writes a Bash output in both),
/// and each key of [`INPUT_ECHOES`] whose value equals its call's `input`
/// key (a Write's `content`, a TodoWrite's `newTodos`), become `null`; so a
/// 10 MB output or a written file is held once.
fn kept_tool_use_result(
    tur: Option<&Value>,
    text: &str,
    input: Option<&Value>,
) -> KeptToolUseResult {
    let verbatim = || KeptToolUseResult {
        value: tur.cloned(),
        stdout_is_text: false,
        echoed_input: 0,
    };
    let Some(Value::Object(map)) = tur else {
        return verbatim();
    };
    let stdout_is_text =
        !text.is_empty() && map.get("stdout").and_then(Value::as_str) == Some(text);
    let mut echoed_input = 0u8;
    for (bit, (key, input_key)) in INPUT_ECHOES.iter().enumerate() {
        let echoed = map.get(*key).filter(|v| !v.is_null());
        if echoed.is_some() && echoed == input.and_then(|i| i.get(*input_key)) {
            echoed_input |= 1 << bit;
        }
    }
    if !stdout_is_text && echoed_input == 0 {
        return verbatim();
    }
    let left_out = |k: &str| {
        (stdout_is_text && k == "stdout")
            || INPUT_ECHOES
                .iter()
                .enumerate()
                .any(|(bit, (key, _))| echoed_input & (1 << bit) != 0 && k == *key)
    };
    let kept = map
        .iter()
        .map(|(k, v)| {
            let v = if left_out(k) { Value::Null } else { v.clone() };
            (k.clone(), v)
        })
        .collect();
    KeptToolUseResult {
        value: Some(Value::Object(kept)),
        stdout_is_text,
        echoed_input,
    }
}

/// A line's RFC 3339 `timestamp` (both agents' envelopes carry one), in UTC.
pub(crate) fn timestamp_of(v: &Value) -> Option<DateTime<Utc>> {
    v.get("timestamp")
        .and_then(Value::as_str)
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc))
}

fn min_time(a: Option<DateTime<Utc>>, b: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn max_time(a: Option<DateTime<Utc>>, b: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// The label of the notes that mark where a process that wrote the file
/// ended or began ([`Event::Note`];
/// docs/formats.md#one-file-several-processes).
pub const PROCESS_NOTE: &str = "process";

/// Whether a rejected `<Event> operation blocked by hook` record is a
/// prompt's (`UserPromptSubmit`, `UserPromptExpansion`): those make a turn
/// that never started.
fn is_prompt_event(event: &str) -> bool {
    matches!(event, "UserPromptSubmit" | "UserPromptExpansion")
}

/// What a user line with text is, for turn cutting.
enum UserText {
    Prompt,
    Interruption,
    Note(&'static str),
    Skip,
}

fn classify_user_text(v: &Value, text: &str) -> UserText {
    let flag = |k: &str| v.get(k).and_then(Value::as_bool) == Some(true);
    let trimmed = text.trim_start();
    if trimmed.starts_with("[Request interrupted") {
        return UserText::Interruption;
    }
    if flag("hookText") || trimmed.starts_with("Stop hook feedback:") {
        return UserText::Note("hook");
    }
    let origin_kind = v
        .get("origin")
        .and_then(|o| o.get("kind"))
        .and_then(Value::as_str);
    if origin_kind == Some("task-notification") || trimmed.starts_with("<task-notification>") {
        return UserText::Note("task-notification");
    }
    if flag("isMeta") {
        return UserText::Skip;
    }
    if trimmed.starts_with("<local-command-stdout>")
        || trimmed.starts_with("<local-command-stderr>")
    {
        return UserText::Note("command-output");
    }
    if trimmed.starts_with("Caveat: The messages below were generated by the user") {
        return UserText::Skip;
    }
    if v.get("promptSource").and_then(Value::as_str) == Some("system") {
        return UserText::Note("system");
    }
    UserText::Prompt
}

impl Thread {
    fn new(path: &Path) -> Thread {
        Thread {
            path: path.to_path_buf(),
            ..Thread::default()
        }
    }

    /// The line index with the hook activity filled in.
    fn take_lines(&mut self) -> LineIndex {
        let mut lines = std::mem::take(&mut self.lines);
        lines.set_hook_activity(std::mem::take(&mut self.hooks).finish());
        lines
    }

    /// Where a hook record on `line` sits (module `hook_activity`'s [`At`]).
    fn hook_at(
        &self,
        line: usize,
        v: &Value,
        timestamp: Option<DateTime<Utc>>,
        id: Option<&str>,
    ) -> At<'_> {
        At {
            line,
            turn: self.turns.len().saturating_sub(1),
            timestamp,
            sidechain: v.get("isSidechain").and_then(Value::as_bool) == Some(true),
            call: call_at(&self.turns, &self.calls, id),
        }
    }

    fn push_event(&mut self, event: Event) -> (usize, usize) {
        super::model::push_event(&mut self.turns, event)
    }

    fn usage(&self) -> Usage {
        let mut total = Usage::default();
        for u in self.usage_by_message.values() {
            total.add(u);
        }
        total
    }

    /// Notes that a resumed read met something it does not model (the
    /// first reason is kept).
    fn conflict(&mut self, why: &str) {
        if self.conflict.is_none() {
            self.conflict = Some(why.to_string());
        }
    }

    fn diag(&mut self, line: usize, message: String) {
        self.diagnostics
            .push(Diagnostic::at_line(self.path.clone(), line, message));
    }

    fn push(&mut self, line_no: usize, v: &Value) {
        let timestamp = timestamp_of(v);
        // `observe` records every `uuid` (the set the title's summary
        // lookup uses; kept once, not in a second set).
        self.lines.observe(line_no, v);
        if self.agent_id.is_none() {
            self.agent_id = v.get("agentId").and_then(Value::as_str).map(str::to_string);
        }
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        if matches!(kind, "user" | "assistant" | "system" | "attachment") {
            self.started = min_time(self.started, timestamp);
            self.ended = max_time(self.ended, timestamp);
        }
        // Where one process that wrote the file ends and the next begins
        // (docs/formats.md#one-file-several-processes), as notes.
        // A file one process wrote gets none: the end is noted when a
        // later process starts.
        if kind == "cost-state" {
            self.pending_end = Some((line_no, timestamp));
        } else if self.lines.run_starts.last() == Some(&line_no) {
            if let Some((end, at)) = self.pending_end.take() {
                self.push_event(Event::Note {
                    label: PROCESS_NOTE.to_string(),
                    text: "ended · SessionEnd\nThe claude process that wrote the lines above ended here (its cost-state line); SessionEnd fired."
                        .to_string(),
                    timestamp: at,
                    line: end,
                });
            }
            self.push_event(Event::Note {
                label: PROCESS_NOTE.to_string(),
                text: "resumed · SessionStart\nA new claude process (claude --resume) continues the session from this line; SessionStart fired."
                    .to_string(),
                timestamp,
                line: line_no,
            });
        }
        match kind {
            "user" => self.push_user(line_no, v, timestamp),
            "assistant" => self.push_assistant(line_no, v, timestamp),
            "system" => self.push_system(line_no, v, timestamp),
            "attachment" => self.push_attachment(line_no, v, timestamp),
            _ => {}
        }
    }

    fn push_user(&mut self, line_no: usize, v: &Value, timestamp: Option<DateTime<Utc>>) {
        let Some(content) = v.get("message").and_then(|m| m.get("content")) else {
            self.diag(line_no, "user line without message.content".to_string());
            return;
        };
        if v.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
            self.push_event(Event::Compaction {
                trigger: None,
                pre_tokens: None,
                text: content_text(content),
                timestamp,
                line: line_no,
            });
            return;
        }
        let mut has_result = false;
        if let Value::Array(blocks) = content {
            for block in blocks {
                if block.get("type").and_then(Value::as_str) == Some("tool_result") {
                    has_result = true;
                    self.pair_result(line_no, v, block, timestamp);
                }
            }
        }
        if has_result {
            return;
        }
        let text = content_text(content);
        if text.trim().is_empty() {
            return;
        }
        let hook_text = v.get("hookText").and_then(Value::as_bool) == Some(true);
        if !hook_text
            && let Some(rejected) = parse_rejected_prompt(text.trim_start(), None)
                .filter(|r| is_prompt_event(&r.event) && text.trim_start().starts_with(&r.event))
        {
            self.push_rejected_prompt(line_no, v, timestamp, &rejected, "user/blocked", text);
            return;
        }
        if hook_text
            || text.contains(" operation blocked by hook")
            || text.trim_start().starts_with("Stop hook feedback:")
            || text.trim_start().starts_with("SubagentStop hook feedback:")
        {
            let mut hooks = std::mem::take(&mut self.hooks);
            hooks.on_user_text(&text, hook_text, &self.hook_at(line_no, v, timestamp, None));
            self.hooks = hooks;
        }
        match classify_user_text(v, &text) {
            UserText::Prompt => {
                // Notes logged before the first prompt (SessionStart hook
                // output) belong to the first turn, not to a prompt-less one.
                if let [first] = self.turns.as_mut_slice()
                    && first.prompt_line.is_none()
                    && first.events.iter().all(|e| matches!(e, Event::Note { .. }))
                {
                    first.prompt = text;
                    first.prompt_line = Some(line_no);
                    first.timestamp = timestamp;
                    return;
                }
                self.turns.push(Turn {
                    prompt: text,
                    prompt_line: Some(line_no),
                    timestamp,
                    events: Vec::new(),
                    rejected: false,
                });
            }
            UserText::Interruption => {
                self.push_event(Event::Interruption {
                    text,
                    timestamp,
                    line: line_no,
                });
            }
            UserText::Note(label) => {
                self.push_event(Event::Note {
                    label: label.to_string(),
                    text,
                    timestamp,
                    line: line_no,
                });
            }
            UserText::Skip => {}
        }
    }

    /// A prompt a hook rejected (`record` is the rejection line's text,
    /// kept as the turn's note labelled `label`): a turn that never started
    /// ([`Turn::rejected`]) and the hook's firing in it.
    fn push_rejected_prompt(
        &mut self,
        line_no: usize,
        v: &Value,
        timestamp: Option<DateTime<Utc>>,
        rejected: &RejectedPrompt,
        label: &str,
        record: String,
    ) {
        self.turns.push(Turn {
            prompt: rejected.prompt.clone().unwrap_or_default(),
            prompt_line: Some(line_no),
            timestamp,
            events: vec![Event::Note {
                label: label.to_string(),
                text: record,
                timestamp,
                line: line_no,
            }],
            rejected: true,
        });
        let mut hooks = std::mem::take(&mut self.hooks);
        hooks.on_prompt_rejected(rejected, label, &self.hook_at(line_no, v, timestamp, None));
        self.hooks = hooks;
    }

    fn pair_result(
        &mut self,
        line_no: usize,
        v: &Value,
        block: &Value,
        timestamp: Option<DateTime<Utc>>,
    ) {
        let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
            self.diag(line_no, "tool_result without tool_use_id".to_string());
            return;
        };
        if let Some(decision) = v.get("permissionDecision").filter(|d| d.is_object()) {
            self.lines
                .permission_decisions
                .insert(id.to_string(), decision.clone());
        }
        if let Some(blocks) = block.get("content").filter(|c| c.is_array()) {
            self.lines
                .result_blocks
                .insert(id.to_string(), blocks.clone());
        }
        let text = block.get("content").map(content_text).unwrap_or_default();
        let tool_use_result = v.get("toolUseResult");
        let agent_id = v
            .get("agentId")
            .and_then(Value::as_str)
            .or_else(|| {
                tool_use_result
                    .and_then(|r| r.get("agentId"))
                    .and_then(Value::as_str)
            })
            .map(str::to_string);
        {
            let mut hooks = std::mem::take(&mut self.hooks);
            hooks.on_tool_result(id, &text, &self.hook_at(line_no, v, timestamp, Some(id)));
            self.hooks = hooks;
        }
        let is_error = block.get("is_error").and_then(Value::as_bool) == Some(true);
        let Some(records) = self.calls.get(id) else {
            self.diag(
                line_no,
                format!("tool_result for unknown tool_use_id {id}; kept out of the timeline"),
            );
            return;
        };
        // The first record with this id still awaiting a result, else the
        // last one (which then reports a second result).
        let awaiting = records.iter().copied().find(|&(t, e)| {
            matches!(
                self.turns.get(t).and_then(|turn| turn.events.get(e)),
                Some(Event::ToolCall(r)) if r.result.is_none()
            )
        });
        let Some((t, e)) = awaiting.or_else(|| records.last().copied()) else {
            return;
        };
        if let Some(Event::ToolCall(record)) = self
            .turns
            .get_mut(t)
            .and_then(|turn| turn.events.get_mut(e))
        {
            if record.result.is_some() {
                self.diagnostics.push(Diagnostic {
                    path: self.path.clone(),
                    locus: Some(Locus::Line(line_no)),
                    message: format!("second tool_result for {id}; the first one is kept"),
                });
                return;
            }
            let kept = kept_tool_use_result(tool_use_result, &text, record.call.raw());
            record.result = Some(ToolResult {
                text,
                is_error,
                tool_use_result: kept.value,
                stdout_is_text: kept.stdout_is_text,
                echoed_input: kept.echoed_input,
                timestamp,
                line: line_no,
                agent_id,
            });
        }
    }

    fn push_assistant(&mut self, line_no: usize, v: &Value, timestamp: Option<DateTime<Utc>>) {
        let Some(message) = v.get("message").filter(|m| m.is_object()) else {
            self.diag(
                line_no,
                "assistant line without a message object".to_string(),
            );
            return;
        };
        let message_id = message
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(model) = message.get("model").and_then(Value::as_str)
            && model != "<synthetic>"
            && !self.models.iter().any(|m| m == model)
        {
            self.models.push(model.to_string());
        }
        if let Some(usage) = message.get("usage").filter(|u| u.is_object()) {
            let key = message_id
                .clone()
                .unwrap_or_else(|| format!("line:{line_no}"));
            self.usage_by_message.insert(key, Usage::from_json(usage));
        }
        let content = message.get("content");
        if v.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true) {
            self.push_event(Event::ApiError {
                text: content.map(content_text).unwrap_or_default(),
                timestamp,
                line: line_no,
            });
            return;
        }
        let blocks: &[Value] = match content {
            Some(Value::Array(blocks)) => blocks,
            Some(Value::String(s)) => {
                if !s.trim().is_empty() {
                    self.push_event(Event::Text {
                        text: s.clone(),
                        timestamp,
                        line: line_no,
                    });
                }
                return;
            }
            _ => return,
        };
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                    if !text.trim().is_empty() {
                        self.push_event(Event::Text {
                            text: text.to_string(),
                            timestamp,
                            line: line_no,
                        });
                    }
                }
                Some("thinking") => {
                    let text = block.get("thinking").and_then(Value::as_str).unwrap_or("");
                    self.push_event(Event::Thinking {
                        text: text.to_string(),
                        line: line_no,
                    });
                }
                Some("tool_use") => self.push_tool_use(line_no, block, &message_id, timestamp),
                _ => {}
            }
        }
    }

    fn push_tool_use(
        &mut self,
        line_no: usize,
        block: &Value,
        message_id: &Option<String>,
        timestamp: Option<DateTime<Utc>>,
    ) {
        let id = match block.get("id") {
            Some(Value::String(id)) => id.as_str(),
            None | Some(Value::Null) => {
                self.diag(line_no, "tool_use block without id".to_string());
                return;
            }
            Some(other) => {
                self.diag(
                    line_no,
                    format!(
                        "tool_use id is not a string ({})",
                        crate::tools::calls::json_type(other)
                    ),
                );
                return;
            }
        };
        if let Some(previous) = self.calls.get(id) {
            let base = self.resume_base;
            if base > 0
                && previous.iter().any(|&(t, e)| {
                    self.turns
                        .get(t)
                        .and_then(|turn| turn.events.get(e))
                        .is_some_and(|ev| ev.line() <= base)
                })
            {
                // Whether it repeats the earlier block needs that block.
                if self.conflict.is_none() {
                    self.conflict = Some("a tool_use reusing an earlier call's id".to_string());
                }
            }
            // The same block repeated in another chunk of the same message
            // (same message.id, or no message.id and the same name and
            // input) is one call; any other block reusing the id is a
            // second call, kept.
            let repeated = previous.iter().any(|&(t, e)| {
                match self.turns.get(t).and_then(|turn| turn.events.get(e)) {
                    Some(Event::ToolCall(r)) => match (&r.message_id, message_id) {
                        (Some(a), Some(b)) => a == b,
                        _ => {
                            r.call.name() == block.get("name").and_then(Value::as_str).unwrap_or("")
                                && r.call.raw() == block.get("input")
                        }
                    },
                    _ => false,
                }
            });
            if repeated {
                return;
            }
            let first_line = previous
                .first()
                .and_then(|&(t, e)| self.turns.get(t).and_then(|turn| turn.events.get(e)))
                .map_or(0, Event::line);
            self.diag(
                line_no,
                format!(
                    "tool_use id {id} reused by a second call (first on line {first_line}); both kept"
                ),
            );
        }
        let Some(name) = block.get("name").and_then(Value::as_str) else {
            self.diag(line_no, format!("tool_use {id} without a name"));
            return;
        };
        let input = block.get("input");
        let call = match parse_tool_call(name, input, OnError::Other) {
            Ok(call) => call,
            Err(err) => {
                // Lenient mode does not fail; keep the line usable anyway.
                self.diag(line_no, format!("tool_use {id}: {err}"));
                return;
            }
        };
        let record = ToolCallRecord {
            tool_use_id: id.to_string(),
            tool_kind: tool_kind(name, input),
            tool_resolved: tool_resolved(name, input),
            call,
            result: None,
            timestamp,
            line: line_no,
            message_id: message_id.clone(),
            subagent: None,
        };
        let at = self.push_event(Event::ToolCall(Box::new(record)));
        self.calls.entry(id.to_string()).or_default().push(at);
    }

    fn push_system(&mut self, line_no: usize, v: &Value, timestamp: Option<DateTime<Utc>>) {
        let subtype = v.get("subtype").and_then(Value::as_str).unwrap_or("");
        let content = v.get("content").map(content_text).unwrap_or_default();
        match subtype {
            "compact_boundary" | "microcompact_boundary" => {
                let meta = v.get("compactMetadata");
                self.push_event(Event::Compaction {
                    trigger: meta
                        .and_then(|m| m.get("trigger"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    pre_tokens: meta
                        .and_then(|m| m.get("preTokens"))
                        .and_then(Value::as_u64),
                    text: content,
                    timestamp,
                    line: line_no,
                });
            }
            "api_error" => {
                let error = v.get("error");
                let text = if !content.is_empty() {
                    content
                } else {
                    let status = error.and_then(|e| e.get("status")).map(Value::to_string);
                    let message = error
                        .and_then(|e| e.get("message").or_else(|| e.get("error")))
                        .map(content_text)
                        .unwrap_or_default();
                    // The views say "API error"; the text is what follows.
                    let status = status.map(|s| format!("status {s}"));
                    match (status, message.is_empty()) {
                        (Some(s), false) => format!("{s}: {message}"),
                        (Some(s), true) => s,
                        (None, false) => message,
                        (None, true) => "(no details recorded)".to_string(),
                    }
                };
                self.push_event(Event::ApiError {
                    text,
                    timestamp,
                    line: line_no,
                });
            }
            "stop_hook_summary" => {
                let mut hooks = std::mem::take(&mut self.hooks);
                hooks.on_stop_summary(v, &self.hook_at(line_no, v, timestamp, None));
                self.hooks = hooks;
                let errors: Vec<String> = v
                    .get("hookErrors")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().map(content_text).collect())
                    .unwrap_or_default();
                if !errors.is_empty() {
                    self.push_event(Event::Note {
                        label: "hook".to_string(),
                        text: format!("Stop hook: {}", errors.join("; ")),
                        timestamp,
                        line: line_no,
                    });
                }
            }
            _ => {
                if content.contains(" operation blocked by hook") {
                    let ending = v
                        .pointer("/promptSubmitEnding/ending/reason")
                        .and_then(Value::as_str);
                    if let Some(rejected) = parse_rejected_prompt(&content, ending)
                        .filter(|r| is_prompt_event(&r.event))
                    {
                        self.push_rejected_prompt(
                            line_no,
                            v,
                            timestamp,
                            &rejected,
                            &format!("system/{subtype}"),
                            content,
                        );
                        return;
                    }
                    let mut hooks = std::mem::take(&mut self.hooks);
                    hooks.on_user_text(&content, false, &self.hook_at(line_no, v, timestamp, None));
                    self.hooks = hooks;
                }
                if !content.trim().is_empty() && subtype != "turn_duration" {
                    self.push_event(Event::Note {
                        label: format!("system/{subtype}"),
                        text: content,
                        timestamp,
                        line: line_no,
                    });
                }
            }
        }
    }

    fn push_attachment(&mut self, line_no: usize, v: &Value, timestamp: Option<DateTime<Utc>>) {
        let Some(att) = v.get("attachment") else {
            return;
        };
        let mut hooks = std::mem::take(&mut self.hooks);
        let id = att.get("toolUseID").and_then(Value::as_str);
        hooks.on_attachment(att, &self.hook_at(line_no, v, timestamp, id));
        self.hooks = hooks;
        let kind = att.get("type").and_then(Value::as_str).unwrap_or("");
        let hook_name = att
            .get("hookName")
            .and_then(Value::as_str)
            .unwrap_or("hook");
        let text = match kind {
            "hook_blocking_error" => {
                let err = att
                    .get("blockingError")
                    .map(|b| match b.get("blockingError") {
                        Some(inner) => content_text(inner),
                        None => content_text(b),
                    })
                    .unwrap_or_default();
                let (_, err) = super::hook_activity::split_handler_prefix(&err);
                let event = hook_name.split_once(':').map_or(hook_name, |(e, _)| e);
                if matches!(event, "PostToolUse" | "PostToolUseFailure") {
                    // The call had run: the hook's block only objected.
                    format!("{hook_name} objected after the call ran: {err}")
                } else {
                    format!("{hook_name} blocked: {err}")
                }
            }
            "hook_non_blocking_error" => {
                let stderr = att.get("stderr").map(content_text).unwrap_or_default();
                format!("{hook_name} hook error: {stderr}")
            }
            "hook_additional_context" => {
                let ctx = att.get("content").map(content_text).unwrap_or_default();
                format!("{hook_name} added context: {ctx}")
            }
            "hook_success" => {
                let stdout = att.get("stdout").map(content_text).unwrap_or_default();
                if stdout.trim().is_empty() {
                    return;
                }
                format!("{hook_name} output: {stdout}")
            }
            _ => return,
        };
        self.push_event(Event::Note {
            label: "hook".to_string(),
            text,
            timestamp,
            line: line_no,
        });
    }

    fn into_subagent(
        mut self,
        path: &Path,
        layout: SubagentLayout,
        agent_id: Option<String>,
        meta: Option<Value>,
    ) -> Subagent {
        let lines = self.take_lines();
        let meta_str = |k: &str| {
            meta.as_ref()
                .and_then(|m| m.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        Subagent {
            agent_id,
            agent_type: meta_str("agentType"),
            description: meta_str("description"),
            path: path.to_path_buf(),
            layout: Some(layout),
            spawn_tool_use_id: None,
            link: None,
            usage: self.usage(),
            models: self.models,
            started: self.started,
            ended: self.ended,
            turns: self.turns,
            meta,
            lines,
        }
    }
}

/// Every tool call record of the session, main thread and subagents, mutably.
fn tool_calls_mut(session: &mut Session) -> impl Iterator<Item = &mut ToolCallRecord> {
    session
        .turns
        .iter_mut()
        .chain(
            session
                .subagents
                .iter_mut()
                .flat_map(|s| s.turns.iter_mut()),
        )
        .flat_map(|turn| turn.events.iter_mut())
        .filter_map(|event| match event {
            Event::ToolCall(record) => Some(&mut **record),
            _ => None,
        })
}

/// What linking needs of one Task/Agent call.
struct SpawnFacts {
    /// The thread the call is in (`None` = main, `Some(i)` = subagent i).
    owner: Option<usize>,
    /// Position of the call in [`Session::all_tool_calls`] order (the order
    /// [`tool_calls_mut`] visits too): the one record a link is set on, even
    /// when another call (e.g. the subagent's own) reuses its `tool_use_id`.
    ordinal: usize,
    tool_use_id: String,
    agent_id: Option<String>,
    prompt: Option<String>,
    subagent_type: Option<String>,
    description: Option<String>,
}

/// Whether a subagent and a spawn match under one linking rule.
type LinkRule = dyn Fn(&Subagent, &SpawnFacts) -> bool;

fn link_subagents(session: &mut Session) {
    let spawns: Vec<SpawnFacts> = session
        .all_tool_calls()
        .enumerate()
        .filter(|(_, (_, r))| r.tool_kind == crate::tools::ToolKind::Task)
        .map(|(ordinal, (owner, r))| {
            let get = |k: &str| {
                r.call
                    .raw()
                    .and_then(|raw| raw.get(k))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            };
            SpawnFacts {
                owner,
                ordinal,
                tool_use_id: r.tool_use_id.clone(),
                agent_id: r.result.as_ref().and_then(|res| res.agent_id.clone()),
                prompt: get("prompt").map(|p| p.trim().to_string()),
                subagent_type: get("subagent_type"),
                description: get("description"),
            }
        })
        .collect();
    // links[i] = (index into spawns, how) for subagent i. Passes in order of
    // trust: meta toolUseId, then agentId, then prompt text; a spawn is taken
    // once, and never by a subagent's own calls.
    let mut links: Vec<Option<(usize, SubagentLink)>> = vec![None; session.subagents.len()];
    let mut taken = vec![false; spawns.len()];
    let passes: [(SubagentLink, &LinkRule); 3] = [
        (SubagentLink::MetaToolUseId, &|sub, spawn| {
            sub.meta
                .as_ref()
                .and_then(|m| m.get("toolUseId"))
                .and_then(Value::as_str)
                == Some(spawn.tool_use_id.as_str())
        }),
        (SubagentLink::AgentId, &|sub, spawn| {
            sub.agent_id.is_some() && spawn.agent_id == sub.agent_id
        }),
        (SubagentLink::PromptText, &|sub, spawn| {
            let prompt = sub.prompt().trim();
            !prompt.is_empty() && spawn.prompt.as_deref() == Some(prompt)
        }),
    ];
    for (how, matches) in passes {
        for (i, sub) in session.subagents.iter().enumerate() {
            if links[i].is_some() {
                continue;
            }
            let found = spawns
                .iter()
                .enumerate()
                .find(|(j, spawn)| !taken[*j] && spawn.owner != Some(i) && matches(sub, spawn));
            if let Some((j, _)) = found {
                taken[j] = true;
                links[i] = Some((j, how));
            }
        }
    }
    // Only the matched spawn record is linked (by its position, not its id):
    // a subagent's own call reusing the spawn's `tool_use_id` must not point
    // at the subagent itself.
    let spawn_of: HashMap<usize, usize> = links
        .iter()
        .enumerate()
        .filter_map(|(i, link)| link.map(|(j, _)| (spawns[j].ordinal, i)))
        .collect();
    for (ordinal, record) in tool_calls_mut(session).enumerate() {
        if let Some(&i) = spawn_of.get(&ordinal) {
            record.subagent = Some(i);
        }
    }
    for (sub, link) in session.subagents.iter_mut().zip(links) {
        let Some((j, how)) = link else {
            continue;
        };
        let spawn = &spawns[j];
        sub.spawn_tool_use_id = Some(spawn.tool_use_id.clone());
        sub.link = Some(how);
        if sub.agent_type.is_none() {
            sub.agent_type = spawn.subagent_type.clone();
        }
        if sub.description.is_none() {
            sub.description = spawn.description.clone();
        }
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
}
