//! `find_tool_calls`: every tool call across sessions and their subagents,
//! filtered by name, input/output text, errors, session, time and agent
//! (docs/tool-calls.md#the-find-query; output modes and caps per docs/tool-calls.md#output-modes).
//!
//! Flow: validate [`FindParams`] → pick sessions (agent, session ids) →
//! per session in parallel (rayon): raw-byte [`prefilter`] (skip the session,
//! or bound how new its newest match can be, parsing only the lines that can
//! hold a matching `tool_use`) → load the remaining sessions newest bound
//! first, in parallel batches, until `limit` matches are known to beat every
//! session left: full load ([`crate::transcript::load`]), filter every call of
//! the main thread and of every subagent on the RAW text, keep each session's
//! newest `limit` matches → merge newest first → take `limit` → build
//! records: redact (emission time only), then truncate.
//!
//! Order: newest first by the call's timestamp (calls without one last),
//! then by session id, then by position in the session (main thread in file
//! order, then each subagent's calls in file order).

pub mod filter_line;
mod finder;
pub mod output;
pub mod params;
pub mod prefilter;
pub mod records;
pub mod rows;
pub mod tally;

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Value, json};

use crate::tools::file_path_of;
use crate::transcript::{Agent, Session, SessionRef, ToolCallRecord, load, sessions_named};
pub use finder::{CANCELLED, Finder};
pub use prefilter::Verdict;

pub use output::{INPUT_CAP, OUTPUT_CAP, truncate};
pub use params::{DEFAULT_LIMIT, FindParams, KNOWN_AGENTS, MAX_LIMIT, OutputMode, Query};
pub use records::{FoundCall, SubagentCost, SubagentOrigin, Tokens};
pub use rows::{CallAt, HookFact, RowCall, RowKey, RowSource, SessionRows};
pub use tally::{Group, GroupBy, Tally};

pub use crate::redact::Redactions;

/// The contract error of `find_tool_calls` (docs/tool-calls.md#the-find-query: the MCP wrapper turns
/// it into `{"error": "invalid_argument", "message": …}`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// A parameter is missing, contradictory or malformed; the message says
    /// which and what is accepted.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

impl QueryError {
    /// `{"error": "invalid_argument", "message": "<why>"}`.
    pub fn to_json(&self) -> Value {
        match self {
            QueryError::InvalidArgument(m) => json!({"error": "invalid_argument", "message": m}),
        }
    }

    /// The message alone.
    pub fn message(&self) -> &str {
        match self {
            QueryError::InvalidArgument(m) => m,
        }
    }
}

/// What `find_tool_calls` returns: `{"records": [...], "redactions": {...}}`,
/// `redactions` omitted when nothing was replaced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FindResult {
    /// Matching calls, newest first, at most `limit`.
    pub records: Vec<FoundCall>,
    /// Secret type → count over the emitted records (empty with `redact=false`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub redactions: Redactions,
    /// How many calls matched in the sessions that were loaded. When
    /// [`FindResult::matched_exact`] it is every match (`records.len()` is
    /// `min(matched, limit)`); else loading stopped early once `limit`
    /// newer matches were certain, and it is a lower bound. Not serialized
    /// (`find_tool_calls`' result has no such key): for the TUI's live count and the
    /// CLI table's footer.
    #[serde(skip)]
    pub matched: usize,
    /// Whether every session that could match was loaded, so
    /// [`FindResult::matched`] is exact.
    #[serde(skip)]
    pub matched_exact: bool,
    /// `session` entries that name no session (of the `agent`, when given):
    /// they scope the scan to nothing, as `find_tool_calls` says; not serialized,
    /// for the CLI and the TUI to point out a likely typo.
    #[serde(skip)]
    pub unmatched_sessions: Vec<String>,
    /// Sessions whose main file could not be read (`"<path>: <error>"`); not
    /// serialized, for the CLI to print on stderr.
    #[serde(skip)]
    pub unreadable: Vec<String>,
}

/// Masks secrets in `text` as `[REDACTED_<TYPE>]`, counting replacements
/// by type (docs/tool-calls.md#redaction; `crate::redact`).
fn mask(text: &str, redactions: &mut Redactions) -> String {
    crate::redact::redactor()
        .redact(text, redactions)
        .into_owned()
}

/// Masks secrets in every string of `value` (see [`mask`]).
fn mask_value(value: &Value, redactions: &mut Redactions) -> Value {
    crate::redact::redactor().redact_value(value, redactions)
}

/// Finds tool calls in `sessions` (docs/tool-calls.md#the-find-query).
///
/// ```no_run
/// use hookscope_core::query::{FindParams, find_tool_calls};
/// use hookscope_core::transcript::discover;
///
/// let found = discover(&[]).expect("default roots");
/// // As an MCP server would: straight from the tool call's arguments.
/// let args = serde_json::json!({"tool_name": "Bash", "input_contains": "rm -rf", "since": "1w"});
/// let params = FindParams::from_json(&args).expect("valid arguments");
/// match find_tool_calls(&found.sessions, &params, chrono::Utc::now()) {
///     Ok(result) => println!("{}", serde_json::to_string(&result).unwrap_or_default()),
///     Err(e) => println!("{}", e.to_json()), // {"error":"invalid_argument",...}
/// }
/// ```
///
/// `now` anchors relative `since`/`until` spans (`2d` = `now` − 48 h).
/// Sessions of another agent than `agent` are skipped; sessions whose main
/// file cannot be read are listed in [`FindResult::unreadable`].
///
/// # Errors
/// [`QueryError::InvalidArgument`] as [`FindParams::validate`] describes, and
/// when a `session` entry is a prefix of several session ids.
pub fn find_tool_calls(
    sessions: &[SessionRef],
    params: &FindParams,
    now: DateTime<Utc>,
) -> Result<FindResult, QueryError> {
    let query = params.validate(now)?;
    Finder::new(sessions, &query).run()
}

/// A session as a [`Finder`]'s loader gives it: shared, or why its main file
/// could not be read (`"<path>: <error>"`).
pub type LoadedSession = Result<std::sync::Arc<Session>, String>;

/// Loads a session from disk ([`crate::transcript::load`]), shared: a
/// [`Finder`]'s loader unless it is given another.
pub fn load_from_disk(session: &SessionRef) -> LoadedSession {
    load(session)
        .map(std::sync::Arc::new)
        .map_err(|e| e.to_string())
}

/// The query over `sessions` (see [`Finder`]): `given` holds the caller's
/// verdict per session position (`None` for every session: the raw-byte
/// prefilter decides).
fn run_picked(
    sessions: &[SessionRef],
    query: &Query,
    given: Option<&[Option<Verdict>]>,
    rows: Option<&dyn RowSource>,
    loader: &(dyn Fn(&SessionRef) -> LoadedSession + Sync),
) -> Result<FindResult, QueryError> {
    let (positions, unmatched_sessions) = select_sessions(sessions, query)?;
    let selected: Vec<&SessionRef> = positions.iter().map(|&i| &sessions[i]).collect();
    let (verdicts, given) = verdicts_at(sessions, &positions, query, given);
    let rows = rows.map(|source| (source, given.as_slice()));
    let (loaded, matched_exact) = load_newest_first(&selected, &verdicts, query, rows, loader);

    let mut drafts = Vec::new();
    let mut unreadable = Vec::new();
    let mut matched = 0;
    for result in loaded.into_iter().flatten() {
        match result {
            Ok((count, mut d)) => {
                matched += count;
                drafts.append(&mut d);
            }
            Err(e) => unreadable.push(e),
        }
    }
    drafts.sort_by(draft_order);
    drafts.truncate(query.limit);

    // Finished in parallel (digest, summary, masks), in order.
    let finished: Vec<(FoundCall, Redactions)> = drafts
        .into_par_iter()
        .map(|d| {
            let mut masked = Redactions::new();
            (d.finish(query, &mut masked), masked)
        })
        .collect();
    let mut redactions = Redactions::new();
    let mut records = Vec::with_capacity(finished.len());
    for (record, masked) in finished {
        for (kind, n) in masked {
            *redactions.entry(kind).or_default() += n;
        }
        records.push(record);
    }
    Ok(FindResult {
        records,
        redactions,
        matched,
        matched_exact,
        unmatched_sessions,
        unreadable,
    })
}

/// Per position of `positions` (indexes into `sessions`): its verdict,
/// the caller's when `given` holds one for it, else the raw prefilter's
/// (in parallel); and whether the caller gave it (then its rows may be
/// asked for, [`Finder::rows`]).
fn verdicts_at(
    sessions: &[SessionRef],
    positions: &[usize],
    query: &Query,
    given: Option<&[Option<Verdict>]>,
) -> (Vec<Verdict>, Vec<bool>) {
    let needles = prefilter::needles(query);
    let prefilter = prefilter::Prefilter::new(&needles);
    // The index stores no output text: with `output_contains`, a session
    // it gives is still ruled out when its files hold a piece of the
    // needle nowhere (the raw scan, as without the index), instead of
    // reading every candidate call's result line.
    let output_scan = !needles.file.is_empty();
    positions
        .par_iter()
        .map(|&i| match given.and_then(|v| v.get(i).copied().flatten()) {
            Some(Verdict::Skip) => (Verdict::Skip, true),
            Some(_) if output_scan && prefilter.verdict(&sessions[i], query) == Verdict::Skip => {
                (Verdict::Skip, true)
            }
            Some(v) => (v, true),
            None => (prefilter.verdict(&sessions[i], query), false),
        })
        .unzip()
}

/// The sessions to scan, as positions in `sessions`: agent filter, then
/// ids (exact, else unique prefix); and the `session` entries that named
/// none.
fn select_sessions(
    sessions: &[SessionRef],
    query: &Query,
) -> Result<(Vec<usize>, Vec<String>), QueryError> {
    let by_agent: Vec<usize> = (0..sessions.len())
        .filter(|&i| query.agent.is_none_or(|a| sessions[i].agent == a))
        .collect();
    if query.sessions.is_empty() {
        return Ok((by_agent, Vec::new()));
    }
    let mut chosen: Vec<usize> = Vec::new();
    let mut unmatched = Vec::new();
    for wanted in &query.sessions {
        let hits = sessions_named(by_agent.iter().map(|&i| &sessions[i]), wanted);
        if hits.is_empty() {
            unmatched.push(wanted.clone());
        }
        let mut ids: Vec<&str> = hits.iter().map(|s| s.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() > 1 {
            let more = if ids.len() > 4 { ", …" } else { "" };
            return Err(QueryError::InvalidArgument(format!(
                "session {wanted:?} is a prefix of {} sessions ({}{more}); give more of the id",
                ids.len(),
                ids.iter().take(4).copied().collect::<Vec<_>>().join(", ")
            )));
        }
        // Each hit is one of `sessions` (by identity: ids may repeat).
        for hit in hits {
            let at = by_agent
                .iter()
                .copied()
                .find(|&i| std::ptr::eq(&sessions[i], hit));
            if let Some(i) = at
                && !chosen.contains(&i)
            {
                chosen.push(i);
            }
        }
    }
    Ok((chosen, unmatched))
}

/// A matching call before redaction and truncation.
struct Draft {
    session: String,
    agent: Agent,
    /// Position in the session, for a stable order.
    seq: usize,
    timestamp: Option<DateTime<Utc>>,
    tool_use_id: String,
    tool_name: String,
    tool_kind: crate::tools::ToolKind,
    tool_resolved: Option<String>,
    input: Value,
    output: Option<String>,
    is_error: Option<bool>,
    file_path: Option<String>,
    origin: Option<SubagentOrigin>,
    subagent: Option<SubagentCost>,
    /// The call's hook firings (unredacted `activity_value` objects).
    hook_activity: Vec<Value>,
    /// The digest read from the call's line, for an input the value cannot
    /// digest (a float `>= 2^64`: `1e21` or an integer literal?, see
    /// [`crate::tools::digest::has_ambiguous_number`]); `None`: computed
    /// from `input` in [`Draft::finish`].
    literal_digest: Option<Option<String>>,
}

impl Draft {
    fn finish(self, query: &Query, redactions: &mut Redactions) -> FoundCall {
        let mode = output::adaptive(query.output_mode, self.is_error == Some(true));
        // Computed here, after the limit cut, from the raw input (an absent
        // input is `null` either way in the canonical form), unless it was
        // read from the line.
        let digest = match self.literal_digest {
            Some(digest) => digest,
            None => crate::tools::tool_digest(&self.tool_name, Some(&self.input)).ok(),
        };
        // The summary comes from the raw input, before the cap cuts it.
        let summary = crate::tools::parse_tool_call(
            &self.tool_name,
            Some(&self.input),
            crate::tools::OnError::Other,
        )
        .map(|call| crate::transcript::call_summary(&call))
        .unwrap_or_default();
        let summary = if query.redact {
            // Not an emitted field: its masks are not counted.
            mask(&summary, &mut Redactions::new())
        } else {
            summary
        };
        let (input, output, file_path) = if query.redact {
            (
                mask_value(&self.input, redactions),
                self.output.map(|o| mask(&o, redactions)),
                self.file_path.map(|p| mask(&p, redactions)),
            )
        } else {
            (self.input, self.output, self.file_path)
        };
        let decided = query
            .decided
            .as_ref()
            .map(|d| {
                crate::hooks::decisions::decisions_on(
                    &d.calls,
                    &self.session,
                    &self.tool_use_id,
                    self.timestamp,
                    || digest.clone(),
                )
            })
            .unwrap_or_default();
        FoundCall {
            decided,
            session: self.session,
            agent: self.agent,
            timestamp: self.timestamp,
            tool_use_id: self.tool_use_id,
            tool_name: self.tool_name,
            tool_kind: self.tool_kind,
            tool_resolved: self.tool_resolved,
            input: cap_input(input),
            output: output.map(|o| truncate(&o, mode, OUTPUT_CAP)),
            is_error: self.is_error,
            // docs/tool-calls.md#the-find-query: reliable only for Claude Code and OpenCode (a real
            // error status on every tool part). Codex outputs carry no
            // is_error (derived from exit codes, transcript::codex); Droid's
            // flag is not vouched for.
            is_error_reliable: matches!(self.agent, Agent::ClaudeCode | Agent::OpenCode),
            file_path,
            digest,
            origin: self.origin,
            subagent: self.subagent,
            hook_activity: if query.redact {
                self.hook_activity
                    .iter()
                    .map(|v| mask_value(v, redactions))
                    .collect()
            } else {
                self.hook_activity
            },
            summary,
        }
    }
}

/// A string inside an input over the cap is never cut shorter than this
/// (chars), so a call with many strings keeps something of each.
pub const MIN_STRING_CAP: usize = 100;

/// The input as emitted (docs/tool-calls.md#output-modes: the 4,000-char input cap, keeping the
/// input's JSON type): unchanged when its compact JSON text is at most
/// [`INPUT_CAP`] chars; else every string value inside it (at any depth;
/// or the input itself when it is a string) longer than a length `L` is cut
/// to its first `L` chars + `…[truncated]`, with `L` the largest that brings
/// the compact text within [`INPUT_CAP`], but at least [`MIN_STRING_CAP`].
/// Keys, numbers, booleans and the structure are kept, so an input whose
/// non-string parts alone exceed the cap stays over it.
fn cap_input(input: Value) -> Value {
    let size = |v: &Value| v.to_string().chars().count();
    if size(&input) <= INPUT_CAP {
        return input;
    }
    let longest = longest_string(&input);
    if longest <= MIN_STRING_CAP {
        return input;
    }
    // The largest L in [MIN_STRING_CAP, longest) whose cut fits; the size
    // grows with L, so a binary search finds it.
    let (mut lo, mut hi) = (MIN_STRING_CAP, longest - 1);
    if size(&cut_strings(&input, lo)) > INPUT_CAP {
        return cut_strings(&input, lo);
    }
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if size(&cut_strings(&input, mid)) <= INPUT_CAP {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    cut_strings(&input, lo)
}

/// The length in chars of the longest string value in `value`.
fn longest_string(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        Value::Array(items) => items.iter().map(longest_string).max().unwrap_or(0),
        Value::Object(map) => map.values().map(longest_string).max().unwrap_or(0),
        _ => 0,
    }
}

/// `value` with every string value longer than `max` chars cut with `head`.
fn cut_strings(value: &Value, max: usize) -> Value {
    match value {
        Value::String(s) => Value::String(truncate(s, OutputMode::Head, max)),
        Value::Array(items) => Value::Array(items.iter().map(|v| cut_strings(v, max)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), cut_strings(v, max)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn draft_order(a: &Draft, b: &Draft) -> std::cmp::Ordering {
    key_order(
        (a.timestamp, a.session.as_str()),
        (b.timestamp, b.session.as_str()),
    )
    .then_with(|| a.seq.cmp(&b.seq))
}

/// The first two criteria of [`draft_order`]: newest first (no timestamp
/// sorts last), then session id.
fn key_order(
    (a_time, a_session): (Option<DateTime<Utc>>, &str),
    (b_time, b_session): (Option<DateTime<Utc>>, &str),
) -> std::cmp::Ordering {
    match (a_time, b_time) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
    .then_with(|| a_session.cmp(b_session))
}

/// One session's outcome: how many of its calls match and the newest
/// `limit` of them, or why its main file could not be read
/// (`"<path>: <error>"`).
type SessionResult = Result<(usize, Vec<Draft>), String>;

/// Loads the sessions the prefilter did not rule out and matches their calls,
/// in parallel batches: first every [`Verdict::Load`] session, then the
/// [`Verdict::Newest`] ones by bound (newest first, then id), in batches that
/// double in size. It stops once `limit` drafts are known that sort strictly
/// before the next session's bound: every match of that session, and of the
/// ones after it, sorts after them, so it could not make the cut.
///
/// With rows, and no filter that reads lines, the source's
/// [`RowSource::newest_cut`] over the sessions it answered for bounds every
/// batch from the start (it stops at the next session whose bound is older
/// too): the newest `limit` are built, not every call of the sessions read
/// before that many were known. When a session's rows do not check out
/// (it is loaded instead), the run starts again without it.
///
/// Returns each session's result at its index in `selected` (`None` = not
/// loaded), and whether every session not ruled out was loaded. Merging the
/// results in that order, then sorting stably and cutting at `limit`, gives
/// exactly what loading every session gives.
fn load_newest_first(
    selected: &[&SessionRef],
    verdicts: &[Verdict],
    query: &Query,
    rows: Option<(&dyn RowSource, &[bool])>,
    loader: &(dyn Fn(&SessionRef) -> LoadedSession + Sync),
) -> (Vec<Option<SessionResult>>, bool) {
    let verdict = |i: usize| verdicts.get(i).copied().unwrap_or(Verdict::Load);
    let upfront = rows
        .filter(|_| !query.reads_lines())
        .and_then(|(source, given)| {
            let scope: Vec<&SessionRef> = (0..selected.len())
                .filter(|&i| verdict(i) != Verdict::Skip && given.get(i).copied().unwrap_or(false))
                .map(|i| selected[i])
                .collect();
            source.newest_cut(&scope, query)
        });
    if upfront.is_some()
        && let Some(done) =
            load_newest_from(selected, verdicts, query, rows, loader, upfront.as_ref())
    {
        return done;
    }
    load_newest_from(selected, verdicts, query, rows, loader, None)
        .unwrap_or_else(|| (selected.iter().map(|_| None).collect(), false))
}

/// The newer of two cuts (the one that keeps fewer rows), both sound.
fn tighter(a: Option<RowKey>, b: Option<&RowKey>) -> Option<RowKey> {
    match (a, b) {
        (Some(a), Some(b)) => Some(
            if key_order((a.0, &a.1), (b.0, &b.1)) == std::cmp::Ordering::Greater {
                b.clone()
            } else {
                a
            },
        ),
        (a, b) => a.or_else(|| b.cloned()),
    }
}

/// [`load_newest_first`] bounded from the start by `upfront`: `None` when
/// a session's rows did not check out under it (the caller runs again
/// without); with `upfront` `None` it always answers.
fn load_newest_from(
    selected: &[&SessionRef],
    verdicts: &[Verdict],
    query: &Query,
    rows: Option<(&dyn RowSource, &[bool])>,
    loader: &(dyn Fn(&SessionRef) -> LoadedSession + Sync),
    upfront: Option<&RowKey>,
) -> Option<(Vec<Option<SessionResult>>, bool)> {
    let verdict = |i: usize| verdicts.get(i).copied().unwrap_or(Verdict::Load);
    let mut order: Vec<usize> = (0..selected.len())
        .filter(|&i| verdict(i) != Verdict::Skip)
        .collect();
    order.sort_by(|&a, &b| {
        let rank = |i: usize| match verdict(i) {
            Verdict::Load => (0, None),
            Verdict::Newest(t) => (1, Some(t)),
            Verdict::Skip => (2, None),
        };
        let ((ra, ta), (rb, tb)) = (rank(a), rank(b));
        ra.cmp(&rb)
            .then_with(|| match (ta, tb) {
                (Some(_), Some(_)) => key_order((ta, &selected[a].id), (tb, &selected[b].id)),
                _ => std::cmp::Ordering::Equal,
            })
            .then(a.cmp(&b))
    });

    let mut results: Vec<Option<SessionResult>> = (0..selected.len()).map(|_| None).collect();
    // (timestamp, session) of every draft so far, cut to the best `limit`.
    let mut best: Vec<RowKey> = Vec::new();
    // With an upfront cut, how far the run can reach in `order`: up to the
    // first session whose every call is older than the cut (the run stops
    // there). The rows of all of them are asked at once, below: a source
    // then reads them in one scan, not per batch.
    let reach = upfront.and_then(|(cut, _)| {
        let cut = (*cut)?;
        Some(
            order
                .iter()
                .position(|&i| matches!(verdict(i), Verdict::Newest(b) if cut > b))
                .unwrap_or(order.len()),
        )
    });
    let threads = rayon::current_num_threads().max(1);
    let mut batch = 2 * threads;
    // Where the batch starting at `next` ends: every `Load` session at
    // once, else `batch` sessions, doubling up to 64 per thread.
    let mut end_of = |next: usize| -> usize {
        if verdict(order[next]) == Verdict::Load {
            next + order[next..]
                .iter()
                .take_while(|&&i| verdict(i) == Verdict::Load)
                .count()
        } else {
            let mut end = (next + batch).min(order.len());
            // A batch ends at the reach: the run stops there.
            if let Some(reach) = reach
                && next < reach
            {
                end = end.min(reach);
            }
            batch = (batch * 2).min(64 * threads);
            end
        }
    };
    // The newest `limit` matches known so far bound what the source needs
    // to give of a batch.
    let known_of = |best: &mut Vec<RowKey>| -> Option<RowKey> {
        if query.reads_lines() {
            return None;
        }
        tighter(limit_th(best, query.limit).cloned(), upfront)
    };
    let mut reached: Vec<Option<SessionRows>> = match reach {
        Some(reach) if rows.is_some() && !query.reads_lines() => {
            batch_rows(selected, &order[..reach], query, rows, upfront)
        }
        _ => Vec::new(),
    };
    // A batch's rows: those `reached` holds taken from it, the rest asked.
    let mut rows_of = |from: usize, to: usize, cut: Option<&RowKey>| -> Vec<Option<SessionRows>> {
        let split = to.min(reached.len()).max(from);
        let mut got: Vec<Option<SessionRows>> = reached
            .get_mut(from..split)
            .map(|r| r.iter_mut().map(Option::take).collect())
            .unwrap_or_default();
        if split < to {
            got.extend(batch_rows(selected, &order[split..to], query, rows, cut));
        }
        got
    };
    let mut next = 0;
    let mut end = if order.is_empty() { 0 } else { end_of(0) };
    let mut fetched = Some(rows_of(0, end, known_of(&mut best).as_ref()));
    while next < order.len() {
        let given = fetched.take().unwrap_or_default();
        // Rows that cannot make the newest `limit` are counted, not built
        // (only when no filter reads lines). A session whose rows do not
        // check out is loaded instead, and its rows' keys may have set the
        // cut: the batch is then built again without one.
        let cut = if query.reads_lines() {
            None
        } else {
            let batch: Vec<(&SessionRef, Option<&SessionRows>)> = order[next..end]
                .iter()
                .zip(&given)
                .map(|(&i, calls)| (selected[i], calls.as_ref()))
                .collect();
            tighter(rows::rows_cut(&best, &batch, query), upfront)
        };
        let this = &order[next..end];
        let build = move || -> Option<Vec<(usize, SessionResult)>> {
            let build_cut = |cut: Option<&RowKey>| -> Vec<(usize, SessionResult, bool)> {
                this.par_iter()
                    .zip(&given)
                    .map(|(&i, calls)| {
                        let from_rows = calls.as_ref().and_then(|calls| {
                            rows::session_from_rows(selected[i], calls, query, cut)
                        });
                        let fell_back = calls.is_some() && from_rows.is_none();
                        let result = match from_rows {
                            Some(found) => Ok(found),
                            None => loader(selected[i]).map(|s| session_matches(&s, query)),
                        };
                        (i, result, fell_back)
                    })
                    .collect()
            };
            let mut done = build_cut(cut.as_ref());
            let fell_back = done.iter().any(|(_, _, fell_back)| *fell_back);
            if fell_back && upfront.is_some() {
                return None;
            }
            if cut.is_some() && fell_back {
                done = build_cut(None);
            }
            Some(done.into_iter().map(|(i, r, _)| (i, r)).collect())
        };
        // This batch is built on the pool while the next one's rows are
        // read here (the source stays on this thread), bounded by the
        // matches known before this batch.
        let following = (end < order.len()).then(|| (end, end_of(end)));
        let known = known_of(&mut best);
        let (done, prefetched) = std::thread::scope(|scope| {
            let building = scope.spawn(build);
            let prefetched = following.map(|(from, to)| rows_of(from, to, known.as_ref()));
            let done = building
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (done, prefetched)
        });
        let done = done?;
        for (i, result) in done {
            if let Ok((_, drafts)) = &result {
                best.extend(drafts.iter().map(|d| (d.timestamp, d.session.clone())));
            }
            if let Some(slot) = results.get_mut(i) {
                *slot = Some(result);
            }
        }
        let Some((from, to)) = following else {
            break;
        };
        next = from;
        end = to;
        fetched = prefetched;
        let upcoming = order[next];
        let Verdict::Newest(bound) = verdict(upcoming) else {
            continue;
        };
        let upcoming_id = selected[upcoming].id.as_str();
        if let Some((Some(t), session)) = limit_th(&mut best, query.limit)
            && (*t > bound || (*t == bound && session.as_str() < upcoming_id))
        {
            return Some((results, false));
        }
        // Every call of this session and the ones after it is older than
        // the upfront cut: none can be among the newest `limit`.
        if let Some((Some(t), _)) = upfront
            && *t > bound
        {
            return Some((results, false));
        }
    }
    Some((results, true))
}

/// The `limit`-th newest of `best` once it holds `limit` keys (`best` is
/// then sorted and cut to them), else `None`.
fn limit_th(best: &mut Vec<RowKey>, limit: usize) -> Option<&RowKey> {
    if limit == 0 || best.len() < limit {
        return None;
    }
    best.sort_by(|a, b| key_order((a.0, &a.1), (b.0, &b.1)));
    best.truncate(limit);
    best.last()
}

/// Per session of `batch` (indexes into `selected`), its rows from the
/// source when its verdict was given (see [`Finder::rows`]), else `None`.
fn batch_rows(
    selected: &[&SessionRef],
    batch: &[usize],
    query: &Query,
    rows: Option<(&dyn RowSource, &[bool])>,
    cut: Option<&RowKey>,
) -> Vec<Option<SessionRows>> {
    let mut out: Vec<Option<SessionRows>> = batch.iter().map(|_| None).collect();
    let Some((source, given)) = rows else {
        return out;
    };
    let asked: Vec<usize> = (0..batch.len())
        .filter(|&k| given.get(batch[k]).copied().unwrap_or(false))
        .collect();
    if asked.is_empty() {
        return out;
    }
    let refs: Vec<&SessionRef> = asked.iter().map(|&k| selected[batch[k]]).collect();
    for (k, calls) in asked.into_iter().zip(source.call_rows(&refs, query, cut)) {
        out[k] = calls;
    }
    out
}

/// How many of the session's calls pass every filter, and the newest
/// `limit` of them.
fn session_matches(session: &Session, query: &Query) -> (usize, Vec<Draft>) {
    // Result lines shared by several results of one thread (their
    // toolUseResult is ambiguous, docs/tool-calls.md#the-find-query: drop the sidecar).
    let mut results_per_line: HashMap<(Option<usize>, usize), usize> = HashMap::new();
    for (owner, call) in session.all_tool_calls() {
        if let Some(r) = &call.result {
            *results_per_line.entry((owner, r.line)).or_default() += 1;
        }
    }
    let mut drafts = Vec::new();
    for (index, (owner, call)) in session.all_tool_calls().enumerate() {
        if !passes(call, query) {
            continue;
        }
        let hooks: Vec<&crate::transcript::hook_activity::HookActivity> =
            session.hooks_of_call(owner, call).collect();
        if !passes_hooks(&hooks, query)
            || !passes_decided(
                &session.id,
                &call.tool_use_id,
                timestamp_of(call),
                query,
                || crate::tools::tool_digest(call.call.name(), call.call.raw()).ok(),
            )
        {
            continue;
        }
        let agent_id = owner
            .and_then(|i| session.subagents.get(i))
            .and_then(|s| s.agent_id.as_deref());
        let hook_activity = hooks
            .iter()
            .map(|a| {
                crate::transcript::hook_activity::activity_value(
                    a,
                    session.thread_path(owner),
                    agent_id,
                )
            })
            .collect();
        let origin = owner
            .and_then(|i| session.subagents.get(i))
            .map(|sub| SubagentOrigin {
                agent_id: sub.agent_id.clone(),
                parent_tool_use_id: sub.spawn_tool_use_id.clone(),
            });
        let shared = call
            .result
            .as_ref()
            .is_some_and(|r| results_per_line.get(&(owner, r.line)).copied().unwrap_or(0) > 1);
        let sidecar = records::sidecar_cost(call, shared);
        let child = call.subagent.and_then(|i| session.subagents.get(i));
        let subagent = records::spawn_cost(session.agent, sidecar, child, query.with_subagent_cost);
        drafts.push(Draft {
            session: session.id.clone(),
            agent: session.agent,
            seq: index + 1,
            timestamp: timestamp_of(call),
            tool_use_id: call.tool_use_id.clone(),
            tool_name: call.name().to_string(),
            tool_kind: call.tool_kind,
            tool_resolved: call.tool_resolved.clone(),
            input: call.call.raw().cloned().unwrap_or(Value::Null),
            output: call.result.as_ref().map(|r| r.text.clone()),
            is_error: call.result.as_ref().map(|r| r.is_error),
            file_path: file_path_of(&call.call).map(str::to_string),
            origin,
            subagent,
            hook_activity,
            literal_digest: call
                .call
                .raw()
                .is_some_and(crate::tools::digest::has_ambiguous_number)
                .then(|| crate::transcript::call_digest(session, owner, call).ok()),
        });
    }
    let matched = drafts.len();
    drafts.sort_by(draft_order);
    drafts.truncate(query.limit);
    (matched, drafts)
}

fn timestamp_of(call: &ToolCallRecord) -> Option<DateTime<Utc>> {
    call.timestamp
        .or_else(|| call.result.as_ref().and_then(|r| r.timestamp))
}

/// Whether the call `tool_use_id` of session `session_id`, whose tool
/// digest `digest` gives, passes the `decided_by` filter: the decision log
/// names it, with its digest ([`crate::hooks::decisions::Logged::is_on`]).
fn passes_decided(
    session_id: &str,
    tool_use_id: &str,
    called: Option<DateTime<Utc>>,
    query: &Query,
    digest: impl FnOnce() -> Option<String>,
) -> bool {
    query.decided.as_ref().is_none_or(|d| {
        !crate::hooks::decisions::decisions_on(&d.calls, session_id, tool_use_id, called, digest)
            .is_empty()
    })
}

/// Whether a call's hook firings pass the extension filters (`hook`,
/// `blocked`, `flagged`, `rewritten`; see [`FindParams`]).
fn passes_hooks(hooks: &[&crate::transcript::hook_activity::HookActivity], query: &Query) -> bool {
    let facts: Vec<rows::HookFact> = hooks.iter().map(|a| rows::HookFact::of(a)).collect();
    passes_hook_facts(&facts, query)
}

/// [`passes_hooks`] on the facts of each firing (the index reads them
/// from a call's stored `hook_facts`).
pub(crate) fn passes_hook_facts(hooks: &[rows::HookFact], query: &Query) -> bool {
    if let Some(event) = &query.hook {
        let named = hooks.iter().any(|f| {
            f.event
                .as_deref()
                .is_some_and(|e| params::fold(e) == *event)
                || f.hook_name
                    .as_deref()
                    .is_some_and(|n| params::fold(n) == *event)
        });
        if !named {
            return false;
        }
    }
    let wants = [
        (query.blocked, hooks.iter().any(|f| f.blocked)),
        (query.flagged, hooks.iter().any(|f| f.flagged)),
        (query.rewritten, hooks.iter().any(|f| f.rewrote)),
    ];
    wants
        .iter()
        .all(|(want, has)| want.is_none_or(|want| want == *has))
}

/// Whether one call passes every filter, on the raw (pre-redaction, pre-cap)
/// input JSON text and output text.
fn passes(call: &ToolCallRecord, query: &Query) -> bool {
    passes_meta(
        call.name(),
        call.result.as_ref().map(|r| r.is_error),
        timestamp_of(call),
        query,
    ) && passes_text(
        call.call.raw(),
        call.result.as_ref().map(|r| r.text.as_str()),
        query,
    )
}

/// The name, `is_error` (`None` = no result) and time filters of
/// [`passes`].
fn passes_meta(
    name: &str,
    is_error: Option<bool>,
    time: Option<DateTime<Utc>>,
    query: &Query,
) -> bool {
    if !query.name.matches(name) {
        return false;
    }
    match (query.is_error, is_error) {
        (None, _) => {}
        (Some(_), None) => return false,
        (Some(want), Some(got)) if got != want => return false,
        _ => {}
    }
    if query.since.is_some() || query.until.is_some() {
        let Some(t) = time else {
            return false;
        };
        if query.since.is_some_and(|s| t < s) || query.until.is_some_and(|u| t >= u) {
            return false;
        }
    }
    true
}

/// The text `input_contains` searches in a call's raw input (docs/tool-calls.md#the-find-query): its
/// compact JSON (`""` without one), case-folded. The index stores it
/// (`calls.input_folded`, [`crate::index::schema`]) so a filter can answer
/// without reading the call's line.
pub fn fold_input(input: Option<&Value>) -> String {
    params::fold(&input.map(Value::to_string).unwrap_or_default())
}

/// The text filters of [`passes`] on the raw input (`None` when the call
/// has none) and the result text (`None` without a result).
fn passes_text(input: Option<&Value>, output: Option<&str>, query: &Query) -> bool {
    if let Some(needle) = &query.input_contains
        && !fold_input(input).contains(needle.as_str())
    {
        return false;
    }
    if query.output_contains.is_some() || query.output_excludes.is_some() {
        let text = params::fold(output.unwrap_or(""));
        if let Some(needle) = &query.output_contains
            && !text.contains(needle.as_str())
        {
            return false;
        }
        if let Some(needle) = &query.output_excludes
            && text.contains(needle.as_str())
        {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_files::copy_tree;

    #[test]
    fn error_json_shape() {
        let e = QueryError::InvalidArgument("bad since".into());
        assert_eq!(
            e.to_json(),
            json!({"error": "invalid_argument", "message": "bad since"})
        );
    }

    #[test]
    fn input_cap_cuts_strings_inside_and_keeps_the_type() {
        let small = json!({"command": "ls"});
        assert_eq!(cap_input(small.clone()), small);
        // {"content":"<s>"} is 14 chars around the string: 3,986 fit.
        let big = json!({"content": "a".repeat(INPUT_CAP), "n": 1});
        let cut = cap_input(big);
        let expected = format!("{}…[truncated]", "a".repeat(INPUT_CAP - 20 - 12));
        assert_eq!(cut, json!({"content": expected, "n": 1}));
        assert!(cut.to_string().chars().count() <= INPUT_CAP);
        // A string input (Codex's verbatim apply_patch) stays a string.
        let text = Value::String("é".repeat(INPUT_CAP + 1));
        assert_eq!(
            cap_input(text),
            Value::String(format!("{}…[truncated]", "é".repeat(INPUT_CAP - 2 - 12)))
        );
        // Many strings: each keeps at least MIN_STRING_CAP chars.
        let many: Vec<String> = (0..100).map(|_| "b".repeat(300)).collect();
        let cut = cap_input(json!({"edits": many}));
        let want = format!("{}…[truncated]", "b".repeat(MIN_STRING_CAP));
        assert_eq!(cut["edits"][99], json!(want));
        assert_eq!(cut["edits"].as_array().map(Vec::len), Some(100));
    }

    /// The prefilter and the newest-first early stop give exactly what
    /// loading every session gives, for many queries and small limits (so
    /// the stop triggers), on the corpus plus three copies of its real
    /// sessions (same ids and times in several folders: ties on time and id).
    #[test]
    fn prefiltered_results_equal_loading_everything() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        let temp = tempfile::TempDir::new().expect("temp dir");
        for copy in ["a", "b"] {
            copy_tree(&corpus.join("real-cc-2.1.332"), &temp.path().join(copy));
        }
        let found = crate::transcript::discover(&[corpus.clone(), temp.path().to_path_buf()])
            .expect("discover");
        assert!(found.sessions.len() > 30);
        let now = Utc::now();
        let queries = [
            json!({"tool_name": "Bash", "input_contains": "git"}),
            json!({"tool_name": "bash"}),
            json!({"tool_name": "Bash", "input_contains": "ls"}),
            json!({"tool_name": "Read", "input_contains": "/home"}),
            json!({"tool_name_pattern": "e", "input_contains": "py"}),
            json!({"tool_name_pattern": "mcp__"}),
            json!({"tool_name": "Agent", "with_subagent_cost": true}),
            json!({"tool_name_pattern": "a", "output_contains": "error"}),
            json!({"tool_name": "Bash", "is_error": true}),
            json!({"tool_name": "Bash", "input_contains": "command:"}),
            json!({"tool_name": "Write", "until": "2026-11-29T18:00:30Z"}),
            json!({"tool_name": "Read", "since": "2025-01-01"}),
            // No line needle at all: every call line is a candidate.
            json!({}),
            json!({"is_error": true}),
            json!({"tool_name_pattern": "é"}),
            json!({"output_contains": "error"}),
        ];
        for mut args in queries {
            let params = FindParams::from_json(&args).expect("params");
            // The reference loads every session (a given verdict of Load
            // for each: no prefilter).
            let every = vec![Some(Verdict::Load); found.sessions.len()];
            let query = params.validate_or_all_tools(now).expect("valid");
            let all = Finder::new(&found.sessions, &query)
                .verdicts(&every)
                .run()
                .expect("reference");
            let fast = Finder::new(&found.sessions, &query).run().expect("fast");
            assert_eq!(
                serde_json::to_value(&fast).ok(),
                serde_json::to_value(&all).ok(),
                "{args}"
            );
            assert_eq!(fast.unreadable, all.unreadable, "{args}");
            // A smaller limit keeps the first records of the default one.
            for limit in [1, 2, 5] {
                args["limit"] = json!(limit);
                let params = FindParams::from_json(&args).expect("params");
                let query = params.validate_or_all_tools(now).expect("valid");
                let fast = Finder::new(&found.sessions, &query).run().expect("fast");
                let want: Vec<&str> = all
                    .records
                    .iter()
                    .take(limit)
                    .map(|r| r.tool_use_id.as_str())
                    .collect();
                let got: Vec<&str> = fast
                    .records
                    .iter()
                    .map(|r| r.tool_use_id.as_str())
                    .collect();
                assert_eq!(got, want, "{args}");
                let sessions = |r: &FindResult| {
                    r.records
                        .iter()
                        .map(|r| r.session.clone())
                        .collect::<Vec<_>>()
                };
                assert_eq!(
                    sessions(&fast),
                    sessions(&all)[..got.len()].to_vec(),
                    "{args}"
                );
            }
        }
    }

    #[test]
    fn no_redactions_key_when_empty() {
        let r = FindResult {
            records: Vec::new(),
            redactions: Redactions::new(),
            matched: 3,
            matched_exact: true,
            unmatched_sessions: vec!["zzz".into()],
            unreadable: vec!["x".into()],
        };
        assert_eq!(serde_json::to_value(&r).ok(), Some(json!({"records": []})));
    }
}
