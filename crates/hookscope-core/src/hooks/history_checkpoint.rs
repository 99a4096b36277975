//! The live hook's per-session history checkpoint
//! (docs/live-hook.md#history-rules-and-the-checkpoint): what
//! [`crate::hooks::live::history_of`] keeps of a Claude Code session in
//! the state folder, so that its next call reads only the lines written
//! since, and the 1,000th call of a long session costs about what the first
//! does.
//!
//! Each file of the session (the main transcript, and each subagent file
//! read as one thread) has its own checkpoint. One holds the transcript
//! loader's own resume point ([`Checkpoint`], the one the index uses for a
//! grown session), the history the lines before it add (each finished
//! call's trace, each turn's opening prompt), the calls still waiting for
//! their result with what they will add if they finish, and the thread's
//! Task/Agent calls (their ids, result lines, `agentId` and prompt: what
//! links a subagent to its spawn). The next call resumes the loader there
//! ([`resume_session`]) and joins the two; the subagents are linked to
//! their spawns by the loader's own rule (meta `toolUseId`, `agentId`,
//! prompt text). The result is the history a whole load gives
//! ([`crate::hooks::replay::HistoryIndex::before_only`] of the loaded
//! session; a test checks many cuts of every Claude Code session of the
//! corpus, subagents included, before every call of every thread).
//!
//! A checkpoint is used only when it still describes its file: same device
//! and inode, at least as long, and the same last 4 KiB before the resume
//! point (a rewrite that keeps the size is seen). Anything else — a file
//! that does not suit one (inline sidechains in the main file, a
//! compressed file, a last line without its newline), a state file that
//! does not parse or is over [`MAX_STATE_BYTES`], new lines the loader's
//! resume does not model (a reused `tool_use_id`, a hook rewriting an
//! earlier call) — reads that file whole, and writes a fresh checkpoint
//! when it can. When a file does not suit one at all, or the session's
//! links are past what the checkpoints model (a spawn whose id another
//! call reuses), [`session_history`] says so and the caller loads the
//! session whole.
//!
//! The file is `$XDG_STATE_HOME/hookscope/history/<sha256 of the
//! transcript path>.json` (else under `~/.local/state`), written whole to a
//! temporary file and renamed, so a hook running beside another reads one
//! or the other, never a mix. The finished calls are kept as two packed
//! strings (`done`, `finished`: length-prefixed items) so
//! that a session of a hundred thousand calls reads back in a few
//! milliseconds.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::hooks::replay::{Trace, Wanted, call_trace, trace_of, trace_or};
use crate::hooks::rules::History;
use crate::tools::ToolKind;
use crate::transcript::Session;
use crate::transcript::ToolCallRecord;
use crate::transcript::claude_code::{
    Checkpoint, OldCall, SpawnFacts, SubFacts, file_agent_id, link_pairs,
    load_session_with_checkpoint, load_thread_with_checkpoint, meta_tool_use_id, resume_session,
    spawn_prompt,
};

/// The largest state file read (64 MiB); a larger one is ignored.
pub const MAX_STATE_BYTES: u64 = 64 << 20;

/// The bytes before the resume point that must be unchanged (4 KiB).
const TAIL_BYTES: u64 = 4096;

/// The state file's format; another version is ignored.
const FORMAT: u32 = 2;

/// The history folder: `$XDG_STATE_HOME/hookscope/history` when that
/// variable is an absolute path, else `~/.local/state/hookscope/history`;
/// `None` without a home folder.
pub fn default_dir() -> Option<PathBuf> {
    Some(super::live::state_dir()?.join("history"))
}

/// A call still waiting for its result at the checkpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Pending {
    seq: usize,
    id: String,
    name: String,
    kind: ToolKind,
    resolved: Option<String>,
    line: usize,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    /// What it adds once it finished, as the model asked it.
    as_asked: Option<Trace>,
}

/// A Task/Agent call of a thread: what linking a subagent to it, and the
/// spawn rule of [`crate::hooks::replay::HistoryIndex::before_only`], read.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Spawn {
    seq: usize,
    id: String,
    line: usize,
    /// Its result's line, once it finished.
    end: Option<usize>,
    /// `agentId` on its result.
    agent_id: Option<String>,
    /// Its input's `prompt`, trimmed.
    prompt: Option<String>,
}

impl Spawn {
    fn of(seq: usize, r: &ToolCallRecord) -> Option<Spawn> {
        (r.tool_kind == ToolKind::Task).then(|| Spawn {
            seq,
            id: r.tool_use_id.clone(),
            line: r.line,
            end: r.result.as_ref().map(|res| res.line),
            agent_id: r.result.as_ref().and_then(|res| res.agent_id.clone()),
            prompt: spawn_prompt(r),
        })
    }
}

/// The state file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Saved {
    format: u32,
    path: PathBuf,
    dev: u64,
    ino: u64,
    /// SHA-256 of the [`TAIL_BYTES`] before `checkpoint.offset`.
    tail: String,
    checkpoint: Checkpoint,
    /// The finished calls' traces in call order: items `R|T seq line text`
    /// (after the header line, not in its JSON).
    #[serde(skip)]
    done: Packed,
    /// Every finished call: items `F seq line tool_use_id` (after `done`).
    #[serde(skip)]
    finished: Packed,
    /// The byte lengths of `done` and `finished` as written.
    done_len: usize,
    finished_len: usize,
    /// The largest `seq` in `done` (new traces past it are appended).
    last_done: Option<usize>,
    pending: Vec<Pending>,
    /// The next call's place in call order.
    next_seq: usize,
    /// Each turn's opening prompt with its line.
    prompts: Vec<(usize, String)>,
    /// The thread's Task/Agent calls in call order.
    spawns: Vec<Spawn>,
    /// Whether no two calls of the thread share a `tool_use_id` (then a
    /// spawn is the first record of its id).
    ids_unique: bool,
}

/// Items `<tag><seq>,<line>,<len>:<text>` one after the other in one
/// string: `tag` one ASCII letter, `len` the byte length of `text` (any
/// text, newlines and all). A string that does not decode is read as far
/// as it does.
#[derive(Debug, Clone, Default)]
struct Packed(String);

/// One item of a [`Packed`]: `(tag, seq, line, text)`.
type Item<'a> = (char, usize, usize, &'a str);

impl Packed {
    fn push(&mut self, tag: char, seq: usize, line: usize, text: &str) {
        use std::fmt::Write;
        let _ = write!(self.0, "{tag}{seq},{line},{}:{text}", text.len());
    }

    /// The first item of `rest` and what follows it.
    fn first(rest: &str) -> Option<(Item<'_>, &str)> {
        let tag = rest.chars().next()?;
        let body = rest.get(tag.len_utf8()..)?;
        let (seq, body) = body.split_once(',')?;
        let (line, body) = body.split_once(',')?;
        let (len, body) = body.split_once(':')?;
        let len: usize = len.parse().ok()?;
        let text = body.get(..len)?;
        let after = body.get(len..)?;
        Some(((tag, seq.parse().ok()?, line.parse().ok()?, text), after))
    }

    /// Calls `each` on the items in order until it returns `false`;
    /// `None` when the string does not decode up to there (a state file
    /// edited by hand, or cut short, is not used), else whether every item
    /// was seen.
    fn walk(&self, mut each: impl FnMut(Item<'_>) -> bool) -> Option<bool> {
        let mut rest = self.0.as_str();
        while !rest.is_empty() {
            let (item, after) = Self::first(rest)?;
            if !each(item) {
                return Some(false);
            }
            rest = after;
        }
        Some(true)
    }
}

fn pack_trace(p: &mut Packed, seq: usize, line: usize, t: &Trace) {
    match t {
        Trace::Ran(c) => p.push('R', seq, line, c),
        Trace::Touched(f) => p.push('T', seq, line, f),
    }
}

/// The history before the call `tool_use_id` of the Claude Code session
/// whose main transcript is at `path` (first in call order; every call
/// when `None` or not written yet), in the subagent `agent_id` when the
/// payload is inside one (its file's call; the main thread's otherwise), with
/// only the lists `want` names: what
/// [`crate::hooks::replay::HistoryIndex::before_only`] gives for the whole
/// session. Each of its files is read through its checkpoint in `dir` when
/// that still describes the file, else whole; the checkpoints are then
/// brought up to date (a failure to write one changes nothing). `None`
/// when the session does not suit checkpoints (not a Claude Code main
/// file, inline sidechains, a compressed file, a last line without its
/// newline, a subagent file that does not read, a spawn whose id another
/// call reuses): the caller loads it whole.
///
/// # Errors
/// The main transcript cannot be read; `agent_id` names no subagent file
/// of the session (the payload's thread cannot be told).
pub fn session_history(
    path: &Path,
    tool_use_id: Option<&str>,
    agent_id: Option<&str>,
    want: Wanted,
    dir: Option<&Path>,
) -> Result<Option<History>, String> {
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("cannot read transcript_path {}: {e}", path.display()))?;
    if !meta.is_file() || crate::transcript::fsread::is_zst(path) {
        return Ok(None);
    }
    // Subagent files may appear at any time: the layout is checked on
    // every call, as discovery finds them.
    let found = crate::transcript::discover(&[path.to_path_buf()])
        .map_err(|e| format!("cannot read transcript_path {}: {e}", path.display()))?;
    let Some(r) = found
        .sessions
        .first()
        .filter(|r| r.agent == crate::transcript::Agent::ClaudeCode)
    else {
        return Ok(None);
    };
    for fresh in [false, true] {
        let Some(main) = thread_saved(path, false, dir, fresh)? else {
            return Ok(None);
        };
        let mut subs = Vec::with_capacity(r.subagent_files.len());
        for file in &r.subagent_files {
            // A subagent file that does not read is a diagnostic of the
            // whole load, which also leaves it out of the links.
            match thread_saved(file, true, dir, fresh) {
                Ok(Some(saved)) => subs.push((file.as_path(), saved)),
                Ok(None) | Err(_) => return Ok(None),
            }
        }
        match compose(&main, &subs, tool_use_id, agent_id, want) {
            Composed::History(h) => return Ok(Some(h)),
            Composed::NoSuchSubagent => {
                return Err(crate::hooks::live::no_subagent(
                    agent_id.unwrap_or_default(),
                    path,
                ));
            }
            Composed::Unsupported => return Ok(None),
            // A state that does not decode: every file read whole, anew.
            Composed::Undecodable => {}
        }
    }
    Ok(None)
}

/// What [`compose`] makes of the threads' states.
enum Composed {
    History(History),
    /// A state's packed strings do not decode (read the files anew).
    Undecodable,
    /// Past what the checkpoints model (load the session whole).
    Unsupported,
    /// The payload's `agent_id` names no subagent file of the session.
    NoSuchSubagent,
}

/// The state of one file of the session (`one_thread`: a subagent file,
/// read as one thread), through its checkpoint in `dir` unless `fresh`,
/// written back when it changed; `None` when the file does not suit one.
fn thread_saved(
    path: &Path,
    one_thread: bool,
    dir: Option<&Path>,
    fresh: bool,
) -> Result<Option<Saved>, String> {
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("cannot read transcript_path {}: {e}", path.display()))?;
    if !meta.is_file() || crate::transcript::fsread::is_zst(path) {
        return Ok(None);
    }
    let state = dir.map(|d| {
        d.join(format!(
            "{}.json",
            crate::hooks::live::sha256_hex(path.as_os_str().as_encoded_bytes())
        ))
    });
    let (dev, ino) = identity(&meta);
    let saved = state
        .as_deref()
        .filter(|_| !fresh)
        .and_then(|s| read_state(s, path, one_thread, dev, ino, meta.len()));
    let (saved, changed) = match saved.and_then(|saved| resumed(path, saved, meta.len())) {
        Some(done) => done,
        None => match whole(path, one_thread, dev, ino)? {
            Some(s) => (s, true),
            None => return Ok(None),
        },
    };
    if changed && let Some(state) = state {
        write_state(&state, &saved);
    }
    Ok(Some(saved))
}

/// [`crate::hooks::replay::HistoryIndex::before_only`] from the states of
/// the main thread and of each subagent file (in discovery order, the
/// loader's): the main thread's traces before the payload's place (its
/// call's line, or inside a subagent its spawn's line), every trace of
/// each other subagent whose spawn finished before that place, the own
/// subagent's traces before its call, and the turn prompt (the
/// subagent's own opening prompt, else the main turn's).
fn compose(
    main: &Saved,
    subs: &[(&Path, Saved)],
    id: Option<&str>,
    agent: Option<&str>,
    want: Wanted,
) -> Composed {
    let agent_ids: Vec<Option<String>> = subs
        .iter()
        .map(|(file, s)| {
            s.checkpoint
                .agent_id()
                .map(str::to_string)
                .or_else(|| file_agent_id(file))
        })
        .collect();
    let thread = agent.and_then(|a| agent_ids.iter().position(|x| x.as_deref() == Some(a)));
    if agent.is_some() && thread.is_none() {
        return Composed::NoSuchSubagent;
    }
    // The spawn (line, result line) of each subagent: only the one the
    // payload is in, and those that may have finished, are needed; with
    // no subagents there is nothing to link.
    let spawn_lines = if subs.is_empty() {
        Vec::new()
    } else {
        let metas: Vec<Option<String>> = subs.iter().map(|(f, _)| meta_tool_use_id(f)).collect();
        let facts: Vec<SubFacts<'_>> = subs
            .iter()
            .enumerate()
            .map(|(i, (_, s))| SubFacts {
                meta_tool_use_id: metas[i].as_deref(),
                agent_id: agent_ids[i].as_deref(),
                prompt: s.prompts.first().map_or("", |(_, p)| p.as_str()),
            })
            .collect();
        let owned: Vec<(Option<usize>, &Spawn)> = main
            .spawns
            .iter()
            .map(|sp| (None, sp))
            .chain(
                subs.iter()
                    .enumerate()
                    .flat_map(|(i, (_, s))| s.spawns.iter().map(move |sp| (Some(i), sp))),
            )
            .collect();
        let spawns: Vec<SpawnFacts> = owned
            .iter()
            .enumerate()
            .map(|(ordinal, (owner, sp))| SpawnFacts {
                owner: *owner,
                ordinal,
                tool_use_id: sp.id.clone(),
                agent_id: sp.agent_id.clone(),
                prompt: sp.prompt.clone(),
                subagent_type: None,
                description: None,
            })
            .collect();
        let mut lines = Vec::with_capacity(subs.len());
        for link in link_pairs(&facts, &spawns) {
            let Some((owner, sp)) = link.and_then(|(j, _)| owned.get(j)) else {
                lines.push((None, None));
                continue;
            };
            // The first main-thread record of the spawn's id gives its
            // lines (the whole load's rule): the spawn itself when ids are
            // unique; a main call sharing a nested spawn's id is not
            // modelled.
            match owner {
                None if main.ids_unique => lines.push((Some(sp.line), sp.end)),
                _ => match records_with(main, &sp.id) {
                    None => return Composed::Undecodable,
                    Some(r) if r.is_empty() => lines.push((None, None)),
                    Some(_) => return Composed::Unsupported,
                },
            }
        }
        lines
    };
    let pos = match thread {
        None => match position_of(main, id) {
            Some(line) => line,
            None => return Composed::Undecodable,
        },
        Some(i) => spawn_lines.get(i).and_then(|s| s.0).unwrap_or(0),
    };
    let mut h = History::default();
    if add_traces(main, pos, want, &mut h).is_none() {
        return Composed::Undecodable;
    }
    for (i, (_, sub)) in subs.iter().enumerate() {
        let finished = spawn_lines
            .get(i)
            .and_then(|s| s.1)
            .is_some_and(|end| end < pos);
        if Some(i) != thread && finished && add_traces(sub, usize::MAX, want, &mut h).is_none() {
            return Composed::Undecodable;
        }
    }
    if let Some((_, sub)) = thread.and_then(|i| subs.get(i)) {
        let Some(at) = position_of(sub, id) else {
            return Composed::Undecodable;
        };
        if add_traces(sub, at, want, &mut h).is_none() {
            return Composed::Undecodable;
        }
    }
    h.turn_prompt = match thread.and_then(|i| subs.get(i)) {
        Some((_, sub)) => sub.prompts.first().map(|(_, p)| p.clone()),
        None => None,
    }
    .or_else(|| {
        main.prompts
            .iter()
            .rfind(|(l, _)| *l <= pos)
            .map(|(_, t)| t.clone())
    });
    Composed::History(h)
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn identity(_meta: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// The state file, when it parses, is this format, names `path`, and still
/// describes the file (same identity, long enough, same tail).
fn read_state(
    state: &Path,
    path: &Path,
    one_thread: bool,
    dev: u64,
    ino: u64,
    len: u64,
) -> Option<Saved> {
    use std::io::{BufRead, Read};
    let file = crate::transcript::fsread::open_regular(state).ok()?;
    if file.metadata().ok()?.len() > MAX_STATE_BYTES {
        return None;
    }
    let mut reader = std::io::BufReader::new(file.take(MAX_STATE_BYTES + 1));
    // A header line of JSON, then the packed strings as they are (no
    // escaping to undo: most of the file is theirs), each read straight
    // into its own buffer once the header says it still describes the
    // transcript.
    let mut header = Vec::new();
    reader.read_until(b'\n', &mut header).ok()?;
    if header.pop() != Some(b'\n') {
        return None;
    }
    let mut saved: Saved = serde_json::from_slice(&header).ok()?;
    let offset = saved.checkpoint.offset;
    let describes = saved.format == FORMAT
        && saved.path == path
        && saved.checkpoint.one_thread() == one_thread
        && (saved.dev, saved.ino) == (dev, ino)
        && len >= offset
        && tail_hash(path, offset).as_deref() == Some(saved.tail.as_str());
    // The lengths are the file's word: bounded before any buffer is sized.
    let body = saved.done_len.checked_add(saved.finished_len)?;
    if !describes || body as u64 > MAX_STATE_BYTES {
        return None;
    }
    let mut part = |n: usize| -> Option<String> {
        let mut bytes = Vec::with_capacity(n);
        (&mut reader).take(n as u64).read_to_end(&mut bytes).ok()?;
        (bytes.len() == n).then_some(())?;
        String::from_utf8(bytes).ok()
    };
    saved.done = Packed(part(saved.done_len)?);
    saved.finished = Packed(part(saved.finished_len)?);
    // Nothing after them.
    let mut rest = [0u8; 1];
    (reader.read(&mut rest).ok()? == 0).then_some(saved)
}

/// SHA-256 of the [`TAIL_BYTES`] of `path` before `offset`.
fn tail_hash(path: &Path, offset: u64) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let start = offset.saturating_sub(TAIL_BYTES);
    let mut f = std::fs::File::open(path).ok()?;
    f.seek(SeekFrom::Start(start)).ok()?;
    let mut buf = Vec::new();
    f.take(offset - start).read_to_end(&mut buf).ok()?;
    (buf.len() as u64 == offset - start).then(|| crate::hooks::live::sha256_hex(&buf))
}

/// Loads the file (a Claude Code main file, or with `one_thread` a
/// subagent file as one thread) whole and makes its state (`None` when it
/// holds inline sidechains or ends in a way the loader cannot resume from).
fn whole(path: &Path, one_thread: bool, dev: u64, ino: u64) -> Result<Option<Saved>, String> {
    let loaded = if one_thread {
        load_thread_with_checkpoint(path)
    } else {
        load_session_with_checkpoint(path, &[])
    };
    let (session, checkpoint) =
        loaded.map_err(|e| format!("cannot load transcript_path {}: {e}", path.display()))?;
    let Some(checkpoint) = checkpoint.filter(|_| session.subagents.is_empty()) else {
        return Ok(None);
    };
    let Some(tail) = tail_hash(path, checkpoint.offset) else {
        return Ok(None);
    };
    let mut saved = Saved {
        format: FORMAT,
        path: path.to_path_buf(),
        dev,
        ino,
        tail,
        checkpoint,
        done: Packed::default(),
        finished: Packed::default(),
        done_len: 0,
        finished_len: 0,
        last_done: None,
        pending: Vec::new(),
        next_seq: 0,
        prompts: prompts_of(&session, 0),
        spawns: Vec::new(),
        ids_unique: {
            let mut seen = std::collections::HashSet::new();
            session
                .tool_calls()
                .all(|r| seen.insert(r.tool_use_id.as_str()))
        },
    };
    let mut traces = Vec::new();
    for r in session.tool_calls() {
        add_new(&mut saved, &mut traces, &session, r);
    }
    for (seq, line, t) in &traces {
        pack_trace(&mut saved.done, *seq, *line, t);
    }
    saved.last_done = traces.last().map(|(seq, _, _)| *seq);
    Ok(Some(saved))
}

/// A call read now (whole, or after the resume point) into `saved`; its
/// trace, when it finished and adds one, into `traces`.
fn add_new(
    saved: &mut Saved,
    traces: &mut Vec<(usize, usize, Trace)>,
    session: &Session,
    r: &crate::transcript::ToolCallRecord,
) {
    let seq = saved.next_seq;
    saved.next_seq += 1;
    saved.spawns.extend(Spawn::of(seq, r));
    if r.result.is_some() {
        saved.finished.push('F', seq, r.line, &r.tool_use_id);
        if let Some(t) = trace_of(session, None, r) {
            traces.push((seq, r.line, t));
        }
    } else {
        saved.pending.push(Pending {
            seq,
            id: r.tool_use_id.clone(),
            name: r.name().to_string(),
            kind: r.tool_kind,
            resolved: r.tool_resolved.clone(),
            line: r.line,
            timestamp: r.timestamp,
            as_asked: call_trace(&r.call, r.tool_kind),
        });
    }
}

/// The turns' opening prompts on lines after `after`.
fn prompts_of(session: &Session, after: usize) -> Vec<(usize, String)> {
    session
        .turns
        .iter()
        .filter_map(|t| t.prompt_line.map(|l| (l, t.prompt.clone())))
        .filter(|(l, _)| *l > after)
        .collect()
}

/// `saved` brought up to the end of the file (`len` bytes long now) by resuming the loader, and
/// whether it changed (not when the file did not grow); `None` when the
/// new lines need a whole load.
fn resumed(path: &Path, saved: Saved, len: u64) -> Option<(Saved, bool)> {
    if len == saved.checkpoint.end && saved.checkpoint.end == saved.checkpoint.offset {
        return Some((saved, false));
    }
    let old: Vec<OldCall> = saved
        .pending
        .iter()
        .map(|p| OldCall {
            tool_use_id: p.id.clone(),
            name: p.name.clone(),
            kind: p.kind,
            resolved: p.resolved.clone(),
            line: p.line,
            timestamp: p.timestamp,
            result: None,
        })
        .collect();
    let resumed = resume_session(path, &saved.checkpoint, &old).ok()?.ok()?;
    let session = &resumed.session;
    if !session.subagents.is_empty() {
        return None;
    }
    let checkpoint = resumed.checkpoint?;
    let tail = tail_hash(path, checkpoint.offset)?;
    let base = saved.checkpoint.lines;
    // A whole load pairs a reused id with the first call: a new call with
    // the id of a finished one needs it.
    let new_ids: std::collections::HashSet<&str> = session
        .tool_calls()
        .filter(|r| r.line > base)
        .map(|r| r.tool_use_id.as_str())
        .collect();
    let new_calls = session.tool_calls().filter(|r| r.line > base).count();
    // Most often no new id occurs in the packed string at all (a fast
    // search); only a hit needs the items walked.
    let maybe = new_ids
        .iter()
        .any(|id| memchr::memmem::find(saved.finished.0.as_bytes(), id.as_bytes()).is_some());
    if maybe {
        let mut reused = false;
        saved.finished.walk(|(_, _, _, id)| {
            reused = new_ids.contains(id);
            !reused
        })?;
        if reused {
            return None;
        }
    }
    let Saved {
        format,
        path: own_path,
        dev,
        ino,
        done,
        finished,
        pending,
        next_seq,
        prompts,
        last_done,
        mut spawns,
        ids_unique,
        ..
    } = saved;
    let pending: HashMap<(String, usize), Pending> = pending
        .into_iter()
        .map(|p| ((p.id.clone(), p.line), p))
        .collect();
    let mut next = Saved {
        format,
        path: own_path,
        dev,
        ino,
        tail,
        checkpoint,
        done: Packed::default(),
        finished,
        done_len: 0,
        finished_len: 0,
        last_done,
        pending: Vec::new(),
        next_seq,
        prompts,
        spawns: Vec::new(),
        // Reuse of an earlier id was refused above (or by the resume).
        ids_unique: ids_unique && new_ids.len() == new_calls,
    };
    let mut traces: Vec<(usize, usize, Trace)> = Vec::new();
    for r in session.tool_calls().filter(|r| r.line <= base) {
        let Some(res) = &r.result else { continue };
        if let Some(sp) = spawns
            .iter_mut()
            .find(|sp| sp.id == r.tool_use_id && sp.line == r.line)
        {
            sp.end = Some(res.line);
            sp.agent_id.clone_from(&res.agent_id);
        }
    }
    next.spawns = spawns;
    for r in session.tool_calls() {
        if r.line <= base {
            let p = pending.get(&(r.tool_use_id.clone(), r.line))?;
            if r.result.is_some() {
                next.finished.push('F', p.seq, p.line, &p.id);
                if let Some(t) = trace_or(session, None, r, || p.as_asked.clone()) {
                    traces.push((p.seq, p.line, t));
                }
            } else {
                next.pending.push(p.clone());
            }
        } else {
            add_new(&mut next, &mut traces, session, r);
        }
    }
    // The earlier traces stay in order; the new ones (calls finished now,
    // earlier calls among them) go in by their place in call order: at
    // the end when each is later than every earlier trace (the usual case),
    // else merged.
    traces.sort_by_key(|(seq, _, _)| *seq);
    let first_new = traces.first().map(|(seq, _, _)| *seq);
    if first_new.is_none_or(|f| last_done.is_none_or(|l| f > l)) {
        next.done = done;
        for (seq, line, t) in &traces {
            pack_trace(&mut next.done, *seq, *line, t);
        }
    } else {
        let mut new = traces.iter().peekable();
        done.walk(|(tag, seq, line, text)| {
            while let Some((s, l, t)) = new.next_if(|(s, _, _)| *s < seq) {
                pack_trace(&mut next.done, *s, *l, t);
            }
            next.done.push(tag, seq, line, text);
            true
        })?;
        for (s, l, t) in new {
            pack_trace(&mut next.done, *s, *l, t);
        }
    }
    next.last_done = next.last_done.max(traces.last().map(|(seq, _, _)| *seq));
    next.prompts.extend(prompts_of(session, base));
    Some((next, true))
}

/// Adds the traces of `saved` on lines before `before` to `h` (the lists
/// `want` names); `None` when the packed string does not decode as far as
/// it is read.
fn add_traces(saved: &Saved, before: usize, want: Wanted, h: &mut History) -> Option<()> {
    saved.done.walk(|(tag, _, line, text)| {
        if line >= before {
            return false;
        }
        match tag {
            'R' if want.ran_commands => h.ran_commands.push(text.to_string()),
            'T' if want.touched_files => h.touched_files.push(text.to_string()),
            _ => {}
        }
        true
    })?;
    Some(())
}

/// Every call of the thread with id `id`, as `(seq, line)`; `None` when
/// `finished` does not decode.
fn records_with(saved: &Saved, id: &str) -> Option<Vec<(usize, usize)>> {
    let mut found = Vec::new();
    // Most often the id is not in the packed string at all (a fast search).
    if memchr::memmem::find(saved.finished.0.as_bytes(), id.as_bytes()).is_some() {
        saved.finished.walk(|(_, seq, line, i)| {
            if i == id {
                found.push((seq, line));
            }
            true
        })?;
    }
    found.extend(
        saved
            .pending
            .iter()
            .filter(|p| p.id == id)
            .map(|p| (p.seq, p.line)),
    );
    Some(found)
}

/// The line of the first call (in call order) with id `id`; `usize::MAX`
/// when there is none; `None` when `finished` does not decode.
fn position_of(saved: &Saved, id: Option<&str>) -> Option<usize> {
    let Some(id) = id else {
        return Some(usize::MAX);
    };
    Some(
        records_with(saved, id)?
            .into_iter()
            .min()
            .map_or(usize::MAX, |(_, line)| line),
    )
}

/// Writes `saved` to `state` whole (a temporary file renamed); a failure
/// is dropped: the next call loads the transcript whole.
fn write_state(state: &Path, saved: &Saved) {
    use std::io::Write;
    let Some(dir) = state.parent() else {
        return;
    };
    let write = || -> std::io::Result<()> {
        if !dir.is_dir() {
            std::fs::create_dir_all(dir)?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
            }
        }
        let header = Saved {
            done: Packed::default(),
            finished: Packed::default(),
            done_len: saved.done.0.len(),
            finished_len: saved.finished.0.len(),
            pending: saved.pending.clone(),
            prompts: saved.prompts.clone(),
            path: saved.path.clone(),
            tail: saved.tail.clone(),
            checkpoint: saved.checkpoint.clone(),
            spawns: saved.spawns.clone(),
            ..*saved
        };
        let mut bytes = serde_json::to_vec(&header).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        let total = bytes.len() + saved.done.0.len() + saved.finished.0.len();
        if total as u64 > MAX_STATE_BYTES {
            let _ = std::fs::remove_file(state);
            return Ok(());
        }
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        tmp.write_all(&bytes)?;
        tmp.write_all(saved.done.0.as_bytes())?;
        tmp.write_all(saved.finished.0.as_bytes())?;
        tmp.persist(state).map_err(|e| e.error)?;
        Ok(())
    };
    let _ = write();
}
