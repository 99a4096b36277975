//! `find_tool_calls`: every tool call across sessions and their subagents,
//! filtered by name, input/output text, errors, session, time and agent
//! (seed 004; output modes and caps per hooks.md §2.5).
//!
//! Flow: validate [`FindParams`] → pick sessions (agent, session ids) →
//! per session in parallel (rayon): raw-byte [`prefilter`], full load
//! ([`crate::transcript::load`]), filter every call of the main thread and of
//! every subagent on the RAW text → keep each session's newest `limit`
//! matches → merge newest first → take `limit` → build records: redact
//! (emission time only), then truncate.
//!
//! Order: newest first by the call's timestamp (calls without one last),
//! then by session id, then by position in the session (main thread in file
//! order, then each subagent's calls in file order).

pub mod filter_line;
pub mod output;
pub mod params;
pub mod prefilter;
pub mod records;

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Value, json};

use crate::tools::file_path_of;
use crate::transcript::{Agent, Session, SessionRef, ToolCallRecord, load, sessions_named};

pub use output::{INPUT_CAP, OUTPUT_CAP, truncate};
pub use params::{DEFAULT_LIMIT, FindParams, KNOWN_AGENTS, MAX_LIMIT, OutputMode, Query};
pub use records::{FoundCall, SubagentCost, SubagentOrigin, Tokens};

pub use crate::redact::Redactions;

/// The contract error of `find_tool_calls` (seed 004: the MCP wrapper turns
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
    /// How many calls matched before the `limit` cut (`records.len()` is
    /// `min(matched, limit)`); not serialized (the seed's result has no such
    /// key), for the TUI's live count and the CLI table's footer.
    #[serde(skip)]
    pub matched: usize,
    /// `session` entries that name no session (of the `agent`, when given):
    /// they scope the scan to nothing, as the seed says; not serialized,
    /// for the CLI and the TUI to point out a likely typo.
    #[serde(skip)]
    pub unmatched_sessions: Vec<String>,
    /// Sessions whose main file could not be read (`"<path>: <error>"`); not
    /// serialized, for the CLI to print on stderr.
    #[serde(skip)]
    pub unreadable: Vec<String>,
}

/// Masks secrets in `text` as `[REDACTED_<TYPE>]`, counting replacements
/// by type (hooks.md §2.5; `crate::redact`).
fn mask(text: &str, redactions: &mut Redactions) -> String {
    crate::redact::redactor()
        .redact(text, redactions)
        .into_owned()
}

/// Masks secrets in every string of `value` (see [`mask`]).
fn mask_value(value: &Value, redactions: &mut Redactions) -> Value {
    crate::redact::redactor().redact_value(value, redactions)
}

/// Finds tool calls in `sessions` (seed 004).
///
/// ```no_run
/// use hookscope::query::{FindParams, find_tool_calls};
/// use hookscope::transcript::discover;
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
    find_with(sessions, &query)
}

/// [`find_tool_calls`] with parameters already validated (e.g. by
/// [`FindParams::validate_or_all_tools`] for the TUI filter line).
///
/// # Errors
/// [`QueryError::InvalidArgument`] when a `session` entry is a prefix of
/// several session ids.
pub fn find_with(sessions: &[SessionRef], query: &Query) -> Result<FindResult, QueryError> {
    let selected = select_sessions(sessions, query)?;
    let unmatched_sessions: Vec<String> = query
        .sessions
        .iter()
        .filter(|wanted| {
            let of_agent = sessions
                .iter()
                .filter(|s| query.agent.is_none_or(|a| s.agent.as_str() == a));
            sessions_named(of_agent, wanted).is_empty()
        })
        .cloned()
        .collect();
    let claude_prefilter = prefilter::Prefilter::new(&prefilter::needles(query));
    let codex_prefilter = prefilter::Prefilter::new(&codex_needles(query));

    let per_session: Vec<Result<(usize, Vec<Draft>), String>> = selected
        .par_iter()
        .map(|s| {
            let prefilter = match s.agent {
                Agent::ClaudeCode => &claude_prefilter,
                Agent::Codex => &codex_prefilter,
            };
            let mut files = std::iter::once(&s.path).chain(s.subagent_files.iter());
            if !prefilter.is_empty() && !files.any(|f| prefilter.file_may_match(f)) {
                return Ok((0, Vec::new()));
            }
            let session = load(s).map_err(|e| e.to_string())?;
            Ok(session_matches(&session, query))
        })
        .collect();

    let mut drafts = Vec::new();
    let mut unreadable = Vec::new();
    let mut matched = 0;
    for result in per_session {
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

    let mut redactions = Redactions::new();
    let records = drafts
        .into_iter()
        .map(|d| d.finish(query, &mut redactions))
        .collect();
    Ok(FindResult {
        records,
        redactions,
        matched,
        unmatched_sessions,
        unreadable,
    })
}

/// The raw-byte prefilter needles for a Codex rollout (formats.md §2.3):
/// [`prefilter::needles`] without an `input_contains` that holds JSON
/// punctuation (`:`, `,`, `[`, `]`, `{`, `}`).
///
/// Why: a Codex `function_call.arguments` is a JSON string written by the
/// model inside the line's JSON, and input is matched on its compact
/// re-serialization. A plain needle (no `"`, `\`, control chars) inside one
/// string value reads the same in the doubly escaped bytes, but one that
/// spans JSON punctuation may not: the model writes `{"cmd": "ls", "n": 5}`
/// with spaces where the compact form has `"n":5`. Such a needle is left
/// out (the file is parsed instead). Outputs are the text of a string (or
/// of a JSON-string `output`), so `output_contains` keeps the plain rule; the
/// rare non-text output (`tool_search_output.tools`) is re-serialized, which
/// matches the bytes because Codex writes those objects compactly.
/// Not covered: a model that escapes plain ASCII in its arguments (`\/`,
/// `\u0041`) or writes numbers that re-serialize differently (`1e2`).
fn codex_needles(query: &Query) -> Vec<String> {
    let structural = |n: &String| n.contains([':', ',', '[', ']', '{', '}']);
    if query.input_contains.as_ref().is_some_and(structural) {
        let mut without_input = query.clone();
        without_input.input_contains = None;
        return prefilter::needles(&without_input);
    }
    prefilter::needles(query)
}

/// The sessions to scan: agent filter, then ids (exact, else unique prefix).
fn select_sessions<'a>(
    sessions: &'a [SessionRef],
    query: &Query,
) -> Result<Vec<&'a SessionRef>, QueryError> {
    let by_agent: Vec<&SessionRef> = sessions
        .iter()
        .filter(|s| query.agent.is_none_or(|a| s.agent.as_str() == a))
        .collect();
    if query.sessions.is_empty() {
        return Ok(by_agent);
    }
    let mut chosen: Vec<&SessionRef> = Vec::new();
    for wanted in &query.sessions {
        let hits = sessions_named(by_agent.iter().copied(), wanted);
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
        for s in hits {
            if !chosen.iter().any(|c| std::ptr::eq(*c, s)) {
                chosen.push(s);
            }
        }
    }
    Ok(chosen)
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
}

impl Draft {
    fn finish(self, query: &Query, redactions: &mut Redactions) -> FoundCall {
        let mode = output::adaptive(query.output_mode, self.is_error == Some(true));
        // Computed here, after the limit cut, from the raw input (an absent
        // input is `null` either way in the canonical form).
        let digest = crate::tools::tool_digest(&self.tool_name, Some(&self.input)).ok();
        let (input, output, file_path) = if query.redact {
            (
                mask_value(&self.input, redactions),
                self.output.map(|o| mask(&o, redactions)),
                self.file_path.map(|p| mask(&p, redactions)),
            )
        } else {
            (self.input, self.output, self.file_path)
        };
        FoundCall {
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
            // Codex outputs carry no is_error; the loader derives it from
            // exit codes (transcript::codex), so it is not reliable.
            is_error_reliable: self.agent == Agent::ClaudeCode,
            file_path,
            digest,
            origin: self.origin,
            subagent: self.subagent,
        }
    }
}

/// The input as emitted: unchanged when its compact JSON text is at most
/// [`INPUT_CAP`] chars, else that text cut with `head`.
fn cap_input(input: Value) -> Value {
    let text = input.to_string();
    if text.chars().count() <= INPUT_CAP {
        input
    } else {
        Value::String(truncate(&text, OutputMode::Head, INPUT_CAP))
    }
}

fn draft_order(a: &Draft, b: &Draft) -> std::cmp::Ordering {
    // Newest first; no timestamp sorts last.
    match (a.timestamp, b.timestamp) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
    .then_with(|| a.session.cmp(&b.session))
    .then_with(|| a.seq.cmp(&b.seq))
}

/// How many of the session's calls pass every filter, and the newest `limit`
/// of them.
fn session_matches(session: &Session, query: &Query) -> (usize, Vec<Draft>) {
    // Result lines shared by several results of one thread (their
    // toolUseResult is ambiguous, seed 004: drop the sidecar).
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
        let subagent = match child {
            Some(child) if query.with_subagent_cost => Some(records::joined_cost(sidecar, child)),
            _ => sidecar,
        };
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

/// Whether one call passes every filter, on the raw (pre-redaction, pre-cap)
/// input JSON text and output text.
fn passes(call: &ToolCallRecord, query: &Query) -> bool {
    if !query.name.matches(call.name()) {
        return false;
    }
    match (query.is_error, &call.result) {
        (None, _) => {}
        (Some(_), None) => return false,
        (Some(want), Some(r)) if r.is_error != want => return false,
        _ => {}
    }
    if query.since.is_some() || query.until.is_some() {
        let Some(t) = timestamp_of(call) else {
            return false;
        };
        if query.since.is_some_and(|s| t < s) || query.until.is_some_and(|u| t >= u) {
            return false;
        }
    }
    if let Some(needle) = &query.input_contains {
        let text = call.call.raw().map(Value::to_string).unwrap_or_default();
        if !params::fold(&text).contains(needle.as_str()) {
            return false;
        }
    }
    if query.output_contains.is_some() || query.output_excludes.is_some() {
        let text = params::fold(call.result.as_ref().map_or("", |r| r.text.as_str()));
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

    #[test]
    fn error_json_shape() {
        let e = QueryError::InvalidArgument("bad since".into());
        assert_eq!(
            e.to_json(),
            json!({"error": "invalid_argument", "message": "bad since"})
        );
    }

    #[test]
    fn input_cap() {
        let small = json!({"command": "ls"});
        assert_eq!(cap_input(small.clone()), small);
        let big = json!({"content": "a".repeat(INPUT_CAP)});
        let Value::String(cut) = cap_input(big) else {
            panic!("expected a string")
        };
        assert!(cut.starts_with("{\"content\":\"aaa"));
        assert!(cut.ends_with("a…[truncated]"));
        assert_eq!(
            cut.chars().count(),
            INPUT_CAP + "…[truncated]".chars().count()
        );
    }

    #[test]
    fn no_redactions_key_when_empty() {
        let r = FindResult {
            records: Vec::new(),
            redactions: Redactions::new(),
            matched: 3,
            unmatched_sessions: vec!["zzz".into()],
            unreadable: vec!["x".into()],
        };
        assert_eq!(serde_json::to_value(&r).ok(), Some(json!({"records": []})));
    }
}
