//! `find`'s records built from index rows, without loading their
//! sessions. For a Claude Code session whose candidate calls all have
//! their `tool_use` line and their result's line located
//! (`calls.input_*`/`output_*`, see [`crate::index::schema`]), each
//! candidate's two lines are read at their stored offsets (`pread`), parsed
//! alone with the loader's line parser
//! ([`crate::transcript::jsonl::parse_line`]), and turned into exactly the
//! draft `session_matches` makes from the loaded session. For an OpenCode
//! session (a database or legacy JSON storage: no lines), each candidate's
//! message parts are read (`calls.locator`, one SQLite query or one
//! folder of part files per message) and its part built into the call by
//! the loader's own code ([`crate::transcript::opencode::call_in_parts`]).
//!
//! What a line cannot tell comes from the row: the call's position (`seq`),
//! its subagent origin, its hook firings (computed by the loader at index
//! time). Calls whose record needs more (a Task spawn's subagent cost, a
//! `tool_use_id` repeated in its thread) are marked at index time and make
//! the session load as before ([`RowSource::call_rows`] gives `None`).
//! Every line read is checked before use: it must start right after a
//! newline (or at offset 0) and end with one (or at the end of the file),
//! parse as a JSON object of the right `type`, hold exactly one block with
//! the call's `tool_use_id`, with the stored name, `is_error` and time; an
//! OpenCode message must hold exactly one tool part with the call's
//! `tool_use_id`, of the stored name, time and `is_error`. Anything else
//! makes `session_from_rows` give `None` and the session is loaded
//! instead. So a stale row never becomes a wrong record.

use hookscope_hook::event::EventKey;
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::params::Query;
use super::prefilter::{input_cannot_match, pieces};
use super::{Draft, SubagentOrigin, draft_order};
use crate::transcript::opencode::PartRow;
use crate::transcript::{Agent, SessionRef};

/// One candidate call of a session as the index stores it (the columns of
/// `calls` that `session_from_rows` reads).
#[derive(Debug, Clone, PartialEq)]
pub struct RowCall {
    /// Position in [`crate::transcript::Session::all_tool_calls`], from 1.
    pub seq: usize,
    /// `tool_use.id`.
    pub tool_use_id: String,
    /// The tool name as invoked.
    pub name: String,
    /// The call's time as `find` orders it (its `tool_use` line's
    /// `timestamp`, else its result line's).
    pub timestamp: Option<DateTime<Utc>>,
    /// The result's `is_error`; `None` when it has no result.
    pub is_error: Option<bool>,
    /// The thread file the call is in (an OpenCode database: the
    /// database).
    pub file: PathBuf,
    /// Where its record is read from.
    pub at: CallAt,
    /// `Some` for a call made inside a subagent: its `agentId` and the
    /// spawning call's `tool_use_id`.
    pub origin: Option<SubagentOrigin>,
    /// Its hook firings (`activity_value` objects, unredacted).
    pub hooks: Vec<Value>,
    /// Per firing, what the hook filters read.
    pub hook_facts: Vec<HookFact>,
    /// Whether the source already matched the query's `input_contains`
    /// on the call's stored input text (`calls.input_folded`): its line
    /// then needs no raw-byte check before it is parsed.
    pub input_matched: bool,
}

/// Where `session_from_rows` reads an indexed call from
/// ([`crate::index::schema`]'s `calls.input_*`, `output_*` and `locator`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallAt {
    /// A Claude Code call: byte offset and length (newline included) of
    /// its `tool_use` line in [`RowCall::file`], and of its result's line
    /// (`None` when it has no result).
    Lines {
        /// The `tool_use` line.
        input: (u64, u64),
        /// The result's line.
        output: Option<(u64, u64)>,
    },
    /// An OpenCode call: the id of the message whose parts hold it
    /// (`calls.locator`), read from the session's database or legacy
    /// storage folder.
    Message(String),
}

/// What `find`'s hook filters (`hook`, `blocked`, `flagged`, `rewritten`)
/// read of one hook firing
/// ([`crate::transcript::hook_activity::HookActivity`]). Stored by the
/// index as `[event, hook_name, blocked, rewrote, flagged]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookFact {
    /// `event`.
    pub event: Option<EventKey>,
    /// `hook_name`.
    pub hook_name: Option<String>,
    /// `action` is `Blocked` on an event before the call ran (PreToolUse,
    /// PermissionRequest: the call did not run). A block recorded on any
    /// other event of a call (a name this version does not know) is not
    /// read as one: hookscope cannot tell that it stopped the call.
    pub blocked: bool,
    /// `action` is `Rewrote`.
    pub rewrote: bool,
    /// `action` is `Flagged` (objected after the call ran).
    pub flagged: bool,
}

impl HookFact {
    /// The facts of one firing.
    pub fn of(a: &crate::transcript::hook_activity::HookActivity) -> HookFact {
        use crate::transcript::hook_activity::HookAction;
        HookFact {
            event: a.event.clone(),
            hook_name: a.hook_name.clone(),
            blocked: a.blocked_before_call(),
            rewrote: a.action == HookAction::Rewrote,
            flagged: a.action == HookAction::Flagged,
        }
    }

    /// The stored form: `[event, hook_name, blocked, rewrote, flagged]`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!([
            self.event,
            self.hook_name,
            self.blocked,
            self.rewrote,
            self.flagged
        ])
    }
}

/// Where [`super::Finder::rows`] gets the rows of indexed sessions (e.g.
/// [`crate::index::Index`]). Called on the querying thread, once per batch
/// of sessions to match.
pub trait RowSource {
    /// Per session of `sessions` (in order): its calls that can pass
    /// `query`'s name, `agent`, `is_error` filters (a superset is fine, the
    /// filters are applied again), in `seq` order, when every one of them
    /// can be built from its lines or parts ([`CallAt`]); `None` when the
    /// session must be loaded (neither a Claude Code nor an OpenCode
    /// session, not indexed, a call that needs more than
    /// its lines, the index cannot be read).
    ///
    /// With `cut` (the key of the `limit`-th newest match known so far),
    /// a source may leave out the calls whose time sorts strictly after
    /// the cut's (older or undated: none of them can be returned) and count
    /// them in [`SessionRows::beyond`] instead, when it applies every
    /// filter of `query` itself; the default keeps every call.
    fn call_rows(
        &self,
        sessions: &[&SessionRef],
        query: &Query,
        cut: Option<&RowKey>,
    ) -> Vec<Option<SessionRows>>;

    /// For counting ([`super::Finder::tally`]): every call of `sessions`
    /// that can pass `query`'s name, `agent` and `is_error` filters (a
    /// superset is fine), given to `each` as (position in `sessions`,
    /// [`CallFact`]), in one pass. `false` when the source cannot answer
    /// (the default): then nothing was given and each session is counted
    /// from [`RowSource::call_rows`] or loaded.
    fn call_facts(
        &self,
        sessions: &[&SessionRef],
        query: &Query,
        each: &mut dyn FnMut(usize, CallFact<'_>),
    ) -> bool {
        let _ = (sessions, query, each);
        false
    }

    /// Before any session is read: a key no newer than the `limit`-th
    /// newest call of `sessions` that passes `query`, when the source
    /// knows `limit` such calls (`None`, the default: nothing known). It
    /// is used as the cut a batch's matches would give
    /// ([`RowSource::call_rows`]), so it must be sound: every call it
    /// counts a real match of `query` there. A caller that finds a
    /// session's rows not checking out drops it and runs again without.
    fn newest_cut(&self, sessions: &[&SessionRef], query: &Query) -> Option<RowKey> {
        let _ = (sessions, query);
        None
    }
}

/// One session's calls from [`RowSource::call_rows`].
#[derive(Debug, Default, Clone)]
pub struct SessionRows {
    /// The calls given, in `seq` order.
    pub calls: Vec<RowCall>,
    /// How many more calls pass every filter of the query but were left
    /// out, their time sorting after the cut's.
    pub beyond: usize,
}

/// What counting reads of one call ([`RowSource::call_facts`]): as
/// [`RowCall`] has them.
#[derive(Debug, Clone, Copy)]
pub struct CallFact<'a> {
    /// The tool name as invoked.
    pub name: &'a str,
    /// The result's `is_error`; `None` when it has no result.
    pub is_error: Option<bool>,
    /// The call's time as `find` orders it; `Err` when the stored time
    /// does not read back (the session is then loaded instead).
    pub timestamp: Result<Option<DateTime<Utc>>, ()>,
}

/// The longest line read (the loader's [`crate::transcript::jsonl::MAX_LINE`]).
const MAX_LINE: u64 = crate::transcript::jsonl::MAX_LINE as u64;

/// An open thread file and its length.
pub(crate) struct Opened {
    file: File,
    len: u64,
}

/// The line at `(offset, len)` of `path`, checked to be one whole line (see
/// the module doc); `None` otherwise or when it cannot be read. `files`
/// keeps each file opened once (`None`: it could not be).
pub(crate) fn read_line(
    files: &mut HashMap<PathBuf, Option<Opened>>,
    path: &Path,
    (offset, len): (u64, u64),
) -> Option<Vec<u8>> {
    if len == 0 || len > MAX_LINE + 1 {
        return None;
    }
    let opened = files
        .entry(path.to_path_buf())
        .or_insert_with(|| {
            let file = crate::transcript::fsread::open_regular(path).ok()?;
            let len = file.metadata().ok()?.len();
            Some(Opened { file, len })
        })
        .as_mut()?;
    let end = offset.checked_add(len)?;
    if end > opened.len {
        return None;
    }
    let start = offset.saturating_sub(1);
    let mut buf = vec![0u8; usize::try_from(end - start).ok()?];
    read_at(&opened.file, &mut buf, start).ok()?;
    if offset > 0 && buf.first() != Some(&b'\n') {
        return None;
    }
    if offset > 0 {
        buf.remove(0);
    }
    if buf.last() != Some(&b'\n') && end != opened.len {
        return None;
    }
    Some(buf)
}

/// Reads exactly `buf.len()` bytes at `offset`.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = file;
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(buf)
    }
}

/// A line parsed as the loader parses it ([`crate::transcript::jsonl`]:
/// BOM and whitespace trimmed, invalid UTF-8 and lone surrogates repaired),
/// when it is a JSON object: only the fields a record is built from; the
/// others (`toolUseResult`, which repeats a result and may hold a whole
/// file; `cwd`, `uuid`, …) are skipped without being built. A line naming
/// one of those fields twice is refused (`None`: the caller loads the
/// session, which takes the last one).
fn parse_object(line: &[u8]) -> Option<LineView> {
    let bytes = crate::transcript::jsonl::line_bytes(line);
    crate::transcript::jsonl::parse_line::<LineView>(bytes)
        .ok()
        .map(|(view, _)| view)
}

/// The fields of a Claude Code line that [`session_from_rows`] reads; every
/// other field is skipped (serde's `IgnoredAny`). Only a JSON object
/// deserializes into it; a field that is `null` reads as absent.
#[derive(serde::Deserialize)]
struct LineView {
    #[serde(rename = "type")]
    kind: Option<Value>,
    message: Option<MessageView>,
    timestamp: Option<Value>,
    #[serde(rename = "isApiErrorMessage")]
    is_api_error_message: Option<Value>,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: Option<Value>,
}

/// The one field of a line's `message` that [`session_from_rows`] reads:
/// `content` (`model`, `usage`, … are skipped unbuilt). A `message` that
/// is not an object makes the line refused, as it holds no block.
#[derive(serde::Deserialize)]
struct MessageView {
    content: Option<Value>,
}

impl LineView {
    /// The one block of this line (a `line_type` line) whose `type` is
    /// `block_type` and whose `id_key` is `id`: `None` when the line is
    /// not such a line or holds zero or several such blocks.
    fn only_block(
        &self,
        line_type: &str,
        block_type: &str,
        id_key: &str,
        id: &str,
    ) -> Option<&Value> {
        if self.kind.as_ref().and_then(Value::as_str) != Some(line_type) {
            return None;
        }
        let blocks = self.message.as_ref()?.content.as_ref()?.as_array()?;
        let mut found = blocks.iter().filter(|b| {
            b.get("type").and_then(Value::as_str) == Some(block_type)
                && b.get(id_key).and_then(Value::as_str) == Some(id)
        });
        let block = found.next()?;
        found.next().is_none().then_some(block)
    }

    /// The line's time, as the loader reads `timestamp` (RFC 3339).
    fn time(&self) -> Option<DateTime<Utc>> {
        self.timestamp
            .as_ref()
            .and_then(crate::transcript::claude_code::time_of)
    }
}

/// Whether a flag field is `true`.
fn is_true(flag: &Option<Value>) -> bool {
    flag.as_ref().and_then(Value::as_bool) == Some(true)
}

/// How many of `rows` pass `query` and the newest `limit` of them as
/// drafts, exactly as `session_matches` gives them for the loaded
/// `session`; `None` when a line does not check out (the caller loads the
/// session).
///
/// With `cut` (a query whose filters all read rows, [`Query::reads_lines`]
/// false), a passing row whose key (time, session) sorts after it is
/// counted but not built: its lines are neither read nor checked (the
/// file's identity was, [`crate::index`]).
pub(super) fn session_from_rows(
    session: &SessionRef,
    given: &SessionRows,
    query: &Query,
    cut: Option<&RowKey>,
) -> Option<(usize, Vec<Draft>)> {
    let rows = &given.calls;
    let id = row_session_id(session)?;
    let input_pieces = query
        .input_contains
        .as_deref()
        .map(pieces)
        .unwrap_or_default();
    let mut files: HashMap<PathBuf, Option<Opened>> = HashMap::new();
    let mut messages: HashMap<String, Vec<PartRow>> = HashMap::new();
    let mut drafts = Vec::new();
    let mut beyond = 0;
    for row in rows {
        if !row_passes(row, query) {
            continue;
        }
        if let Some((time, at)) = cut
            && super::key_order((row.timestamp, id.as_str()), (*time, at.as_str()))
                == std::cmp::Ordering::Greater
        {
            beyond += 1;
            continue;
        }
        let draft = match (&row.at, session.agent) {
            (&CallAt::Lines { input, output }, Agent::ClaudeCode) => {
                line_draft(&id, row, (input, output), &input_pieces, query, &mut files)?
            }
            (CallAt::Message(message), Agent::OpenCode) => {
                let parts = messages
                    .entry(message.clone())
                    .or_insert_with(|| message_parts(session, message));
                part_draft(&id, row, message, parts, query)?
            }
            _ => return None,
        };
        drafts.extend(draft);
    }
    let matched = drafts.len() + beyond + given.beyond;
    drafts.sort_by(draft_order);
    drafts.truncate(query.limit);
    Some((matched, drafts))
}

/// The id `find` gives a session whose records rows can build (its
/// [`crate::transcript::Session::id`] once loaded): a Claude Code
/// session's file stem, an OpenCode session's record id; `None` for
/// another agent's (its sessions are loaded).
pub(crate) fn row_session_id(session: &SessionRef) -> Option<String> {
    match session.agent {
        Agent::ClaudeCode => Some(crate::transcript::model::id_from_path(&session.path)),
        Agent::OpenCode => Some(session.id.clone()),
        Agent::Codex | Agent::Droid => None,
    }
}

/// Whether `find` builds `agent`'s indexed calls from their rows
/// ([`CallAt`]: Claude Code's lines, OpenCode's message parts) rather than
/// loading their sessions: the agents [`row_session_id`] gives an id.
pub(crate) fn built_from_rows(agent: Agent) -> bool {
    matches!(agent, Agent::ClaudeCode | Agent::OpenCode)
}

/// The parts of OpenCode message `message` of `session`'s store (its
/// database, or the legacy storage its session file is in); none when
/// they cannot be read (the call then does not check out).
fn message_parts(session: &SessionRef, message: &str) -> Vec<PartRow> {
    if session.path.extension().is_some_and(|e| e == "json") {
        crate::transcript::opencode_json::message_parts(&session.path, message)
    } else {
        crate::transcript::opencode_sqlite::message_parts(&session.path, message)
            .unwrap_or_default()
    }
}

/// A Claude Code row's draft from its two lines (`(input, output)`, as
/// [`CallAt::Lines`] holds them; `pieces` the query's `input_contains`
/// pieces): `Some(None)` when the call cannot pass `query`, `None` when a
/// line does not check out.
fn line_draft(
    id: &str,
    row: &RowCall,
    (input_at, output_at): ((u64, u64), Option<(u64, u64)>),
    pieces: &[String],
    query: &Query,
    files: &mut HashMap<PathBuf, Option<Opened>>,
) -> Option<Option<Draft>> {
    let line = read_line(files, &row.file, input_at)?;
    if query.input_contains.is_some()
        && !row.input_matched
        && input_cannot_match(&line, pieces, query)
    {
        // No needle piece in the raw line, or no block input of the
        // line holds the needle (a narrow parse): its input cannot.
        return Some(None);
    }
    let view = parse_object(&line)?;
    let block = view.only_block("assistant", "tool_use", "id", &row.tool_use_id)?;
    if is_true(&view.is_api_error_message)
        || block.get("name").and_then(Value::as_str) != Some(row.name.as_str())
    {
        return None;
    }
    let input = block.get("input");
    if !super::passes_decided(id, &row.tool_use_id, row.timestamp, query, || {
        crate::tools::tool_digest(&row.name, input).ok()
    }) {
        return Some(None);
    }
    let call =
        crate::tools::parse_tool_call(&row.name, input, crate::tools::OnError::Other).ok()?;
    let mut time = view.time();
    let (output, is_error) = match output_at {
        Some(span) => {
            let line = read_line(files, &row.file, span)?;
            let view = parse_object(&line)?;
            if is_true(&view.is_compact_summary) {
                return None;
            }
            let block = view.only_block("user", "tool_result", "tool_use_id", &row.tool_use_id)?;
            time = time.or_else(|| view.time());
            let text = block
                .get("content")
                .map(crate::transcript::claude_code::content_text)
                .unwrap_or_default();
            let is_error = block.get("is_error").and_then(Value::as_bool) == Some(true);
            (Some(text), Some(is_error))
        }
        None => (None, None),
    };
    if time != row.timestamp || is_error != row.is_error {
        return None;
    }
    if !super::passes_text(call.raw(), output.as_deref(), query) {
        return Some(None);
    }
    Some(Some(Draft {
        session: id.to_string(),
        agent: Agent::ClaudeCode,
        seq: row.seq,
        timestamp: row.timestamp,
        tool_use_id: row.tool_use_id.clone(),
        tool_name: row.name.clone(),
        tool_kind: crate::tools::tool_kind(&row.name, input),
        tool_resolved: crate::tools::tool_resolved(&row.name, input),
        input: call.raw().cloned().unwrap_or(Value::Null),
        output,
        is_error,
        file_path: crate::tools::file_path_of(&call).map(str::to_string),
        origin: row.origin.clone(),
        subagent: None,
        hook_activity: row.hooks.clone(),
        // The line is at hand: an input the value cannot digest is
        // digested from its literal text.
        literal_digest: input
            .is_some_and(crate::tools::digest::has_ambiguous_number)
            .then(|| {
                crate::transcript::literal::digest_from_line(
                    Agent::ClaudeCode,
                    &line,
                    &row.tool_use_id,
                    &row.name,
                )
                .and_then(Result::ok)
            }),
    }))
}

/// An OpenCode row's draft from its part among `parts` (the parts of its
/// message `message`), built as the loader builds it
/// ([`crate::transcript::opencode::call_in_parts`]): `Some(None)` when
/// the call cannot pass `query`, `None` when no single part gives a call
/// of the row's name, time and error flag.
fn part_draft(
    id: &str,
    row: &RowCall,
    message: &str,
    parts: &[PartRow],
    query: &Query,
) -> Option<Option<Draft>> {
    let record =
        crate::transcript::opencode::call_in_parts(message, parts, &row.tool_use_id, row.seq)?;
    let result = record.result.as_ref();
    let time = record
        .timestamp
        .or_else(|| result.and_then(|r| r.timestamp));
    if record.name() != row.name
        || time != row.timestamp
        || result.map(|r| r.is_error) != row.is_error
    {
        return None;
    }
    let raw = record.call.raw();
    if !super::passes_decided(id, &row.tool_use_id, row.timestamp, query, || {
        crate::tools::tool_digest(&row.name, raw).ok()
    }) || !super::passes_text(raw, result.map(|r| r.text.as_str()), query)
    {
        return Some(None);
    }
    Some(Some(Draft {
        session: id.to_string(),
        agent: Agent::OpenCode,
        seq: row.seq,
        timestamp: row.timestamp,
        tool_use_id: row.tool_use_id.clone(),
        tool_name: row.name.clone(),
        tool_kind: record.tool_kind,
        tool_resolved: record.tool_resolved.clone(),
        input: raw.cloned().unwrap_or(Value::Null),
        output: result.map(|r| r.text.clone()),
        is_error: row.is_error,
        file_path: crate::tools::file_path_of(&record.call).map(str::to_string),
        origin: row.origin.clone(),
        subagent: None,
        hook_activity: row.hooks.clone(),
        // OpenCode has no line: the value's digest, as a load gives it
        // ([`crate::transcript::call_digest`]).
        literal_digest: raw
            .is_some_and(crate::tools::digest::has_ambiguous_number)
            .then(|| record.call.digest().ok()),
    }))
}

/// A match's place in `find`'s order before its `seq`: its time (newest
/// first, undated last) and its session id (ascending).
pub type RowKey = (Option<DateTime<Utc>>, String);

/// Whether `row` passes the filters a row answers alone: name, error flag,
/// time bounds and the hook filters (not the text filters or
/// `decided_by`, which read its lines).
pub(super) fn row_passes(row: &RowCall, query: &Query) -> bool {
    super::passes_meta(&row.name, row.is_error, row.timestamp, query)
        && super::passes_hook_facts(&row.hook_facts, query)
}

/// The `limit`-th best key among `best` (keys of drafts already built) and
/// the keys of every passing row in `batch` (per session, its rows when it
/// has them): a row whose key sorts after it cannot be among the newest
/// `limit` matches. `None` when fewer than `limit` keys are known.
pub(super) fn rows_cut(
    best: &[RowKey],
    batch: &[(&SessionRef, Option<&SessionRows>)],
    query: &Query,
) -> Option<RowKey> {
    let mut keys: Vec<(Option<DateTime<Utc>>, &str)> =
        best.iter().map(|(t, s)| (*t, s.as_str())).collect();
    let ids: Vec<Option<String>> = batch.iter().map(|(s, _)| row_session_id(s)).collect();
    for ((_, rows), id) in batch.iter().zip(&ids) {
        let (Some(rows), Some(id)) = (rows, id) else {
            continue;
        };
        keys.extend(
            rows.calls
                .iter()
                .filter(|r| row_passes(r, query))
                .map(|r| (r.timestamp, id.as_str())),
        );
    }
    if query.limit == 0 || keys.len() < query.limit {
        return None;
    }
    let (_, kth, _) = keys.select_nth_unstable_by(query.limit - 1, |a, b| super::key_order(*a, *b));
    Some((kth.0, kth.1.to_string()))
}
