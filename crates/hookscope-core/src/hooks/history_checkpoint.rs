//! The live hook's per-session history checkpoint
//! (docs/live-hook.md#history-rules-and-the-checkpoint): what
//! [`crate::hooks::live::history_of`] keeps of a Claude Code transcript in
//! the state folder, so that its next call reads only the lines written
//! since, and the 1,000th call of a long session costs about what the first
//! does.
//!
//! A checkpoint holds the transcript loader's own resume point
//! ([`Checkpoint`], the one the index uses for a grown session), the
//! history the lines before it add (each finished main-thread call's
//! trace, each turn's opening prompt), and the calls still waiting for
//! their result, with what they will add if they finish. The next call
//! resumes the loader there ([`resume_session`]) and joins the two; the
//! result is the history a whole load gives
//! ([`crate::hooks::replay::HistoryIndex::before_only`]
//! of the loaded session; a test checks many cuts of every Claude Code
//! transcript of the corpus).
//!
//! It is used only when it still describes the file: same device and
//! inode, at least as long, and the same last 4 KiB before the resume
//! point (a rewrite that keeps the size is seen). Anything else — a session
//! with subagent files or inline sidechains, a compressed file, a last line
//! without its newline, a state file that does not parse or is over
//! [`MAX_STATE_BYTES`], new lines the loader's resume does not model (a
//! reused `tool_use_id`, a hook rewriting an earlier call) — loads the
//! transcript whole, as without a checkpoint, and writes a fresh one when
//! it can.
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
use crate::transcript::claude_code::{
    Checkpoint, OldCall, load_session_with_checkpoint, resume_session,
};

/// The largest state file read (64 MiB); a larger one is ignored.
pub const MAX_STATE_BYTES: u64 = 64 << 20;

/// The bytes before the resume point that must be unchanged (4 KiB).
const TAIL_BYTES: u64 = 4096;

/// The state file's format; another version is ignored.
const FORMAT: u32 = 1;

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

/// The main-thread history before the call `tool_use_id` (first in call
/// order; every call when `None` or not written yet) of the transcript at
/// `path`, with only the lists `want` names: what
/// [`crate::hooks::replay::HistoryIndex::before_only`] gives for the whole
/// file. It is read through the checkpoint in `dir` when that still
/// describes the file, else whole; the checkpoint is then brought up to
/// date (a failure to write it changes nothing). `None` when the session
/// does not suit a checkpoint (not a Claude Code main file, subagent files,
/// inline sidechains, compressed, a last line without its newline): the
/// caller loads it as before.
///
/// # Errors
/// The transcript cannot be read.
pub fn main_history(
    path: &Path,
    tool_use_id: Option<&str>,
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
    let suits = found.sessions.first().is_some_and(|r| {
        r.agent == crate::transcript::Agent::ClaudeCode && r.subagent_files.is_empty()
    });
    if !suits {
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
        .and_then(|s| read_state(s, path, dev, ino, meta.len()));
    let (saved, changed) = match saved.and_then(|saved| resumed(path, saved, meta.len())) {
        Some(done) => done,
        None => match whole(path, dev, ino)? {
            Some(s) => (s, true),
            None => return Ok(None),
        },
    };
    let history = match history_before(&saved, tool_use_id, want) {
        Some(h) => h,
        // A state that does not decode: the whole load's, anew.
        None => match whole(path, dev, ino)? {
            Some(s) => {
                let h = history_before(&s, tool_use_id, want);
                if let (Some(state), Some(_)) = (state.as_deref(), &h) {
                    write_state(state, &s);
                }
                return Ok(h);
            }
            None => return Ok(None),
        },
    };
    if changed && let Some(state) = state {
        write_state(&state, &saved);
    }
    Ok(Some(history))
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
fn read_state(state: &Path, path: &Path, dev: u64, ino: u64, len: u64) -> Option<Saved> {
    let bytes = {
        use std::io::Read;
        let file = crate::transcript::fsread::open_regular(state).ok()?;
        let len = file.metadata().ok()?.len();
        if len > MAX_STATE_BYTES {
            return None;
        }
        let mut bytes = Vec::with_capacity(usize::try_from(len).ok()?.saturating_add(1));
        file.take(MAX_STATE_BYTES + 1)
            .read_to_end(&mut bytes)
            .ok()?;
        bytes
    };
    if bytes.len() as u64 > MAX_STATE_BYTES {
        return None;
    }
    // A header line of JSON, then the packed strings as they are (no
    // escaping to undo: most of the file is theirs).
    let nl = memchr::memchr(b'\n', &bytes)?;
    let mut saved: Saved = serde_json::from_slice(&bytes[..nl]).ok()?;
    let body = &bytes[nl + 1..];
    if saved.done_len.checked_add(saved.finished_len) != Some(body.len()) {
        return None;
    }
    let body_at = nl + 1;
    let mut bytes = bytes;
    let finished = bytes.split_off(body_at + saved.done_len);
    let done = bytes.split_off(body_at);
    saved.done = Packed(String::from_utf8(done).ok()?);
    saved.finished = Packed(String::from_utf8(finished).ok()?);
    let offset = saved.checkpoint.offset;
    (saved.format == FORMAT
        && saved.path == path
        && (saved.dev, saved.ino) == (dev, ino)
        && len >= offset
        && tail_hash(path, offset).as_deref() == Some(saved.tail.as_str()))
    .then_some(saved)
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

/// Loads the transcript (a Claude Code main file without subagent files)
/// whole and makes its state (`None` when it holds inline sidechains or
/// ends in a way the loader cannot resume from).
fn whole(path: &Path, dev: u64, ino: u64) -> Result<Option<Saved>, String> {
    let (session, checkpoint) = load_session_with_checkpoint(path, &[])
        .map_err(|e| format!("cannot load transcript_path {}: {e}", path.display()))?;
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
    };
    let mut traces: Vec<(usize, usize, Trace)> = Vec::new();
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

/// [`crate::hooks::replay::HistoryIndex::before_only`] for a session
/// without subagents, from the state: the traces before the call's line,
/// and the prompt of the last turn opened at or before it. `None` when
/// the packed strings do not decode as far as they are read.
fn history_before(saved: &Saved, id: Option<&str>, want: Wanted) -> Option<History> {
    let pos = position_of(saved, id)?;
    let mut h = History::default();
    saved.done.walk(|(tag, _, line, text)| {
        if line >= pos {
            return false;
        }
        match tag {
            'R' if want.ran_commands => h.ran_commands.push(text.to_string()),
            'T' if want.touched_files => h.touched_files.push(text.to_string()),
            _ => {}
        }
        true
    })?;
    h.turn_prompt = saved
        .prompts
        .iter()
        .rfind(|(l, _)| *l <= pos)
        .map(|(_, t)| t.clone());
    Some(h)
}

/// The line of the first call (in call order) with id `id`; `usize::MAX`
/// when there is none; `None` when `finished` does not decode.
fn position_of(saved: &Saved, id: Option<&str>) -> Option<usize> {
    let Some(id) = id else {
        return Some(usize::MAX);
    };
    let mut first: Option<(usize, usize)> = None;
    saved.finished.walk(|(_, seq, line, i)| {
        if i == id && first.is_none_or(|f| (seq, line) < f) {
            first = Some((seq, line));
        }
        true
    })?;
    let pending = saved
        .pending
        .iter()
        .filter(|p| p.id == id)
        .map(|p| (p.seq, p.line));
    Some(
        first
            .into_iter()
            .chain(pending)
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
