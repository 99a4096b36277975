//! The MCP face of `find_tool_calls`, without any transport.
//!
//! This module holds everything an MCP server needs to expose the query as
//! one tool (name, description, JSON input schema) and the adapter that turns
//! a `tools/call` `arguments` object into the JSON the client gets back. The
//! stdio server itself (rmcp + tokio) lives in the binary (`src/cli/mcp.rs`)
//! so that the library stays free of an async runtime.
//!
//! This is the only place that talks to [`crate::query`] on behalf of MCP:
//! the server calls [`find_tool_calls`] here and never the query directly.
//!
//! The server answers from a [`Library`] (the service layer): sessions are
//! discovered again on every call ([`Library::sessions`]): discovery is a
//! directory walk (no file is read), so new sessions show up without a
//! restart at a cost far below the query's own. Parsed sessions are kept
//! between calls in the library's cache ([`Library::with_cache`]),
//! re-parsed when their files change. With the persisted index (the
//! server's default unless `--no-index`), each `find_tool_calls` syncs it
//! and loads only the sessions it says can hold a match, as `hookscope
//! find` does.

pub mod hooks;
pub mod lines;

#[cfg(test)]
use std::path::PathBuf;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use crate::query::{
    self, DEFAULT_LIMIT, FindParams, GroupBy, KNOWN_AGENTS, LoadedSession, MAX_LIMIT, QueryError,
};
pub use crate::service::Library;
use crate::transcript::SessionRef;

/// The tool's name, as listed by `tools/list` and called by `tools/call`.
pub const TOOL_NAME: &str = "find_tool_calls";

/// Every tool the server offers: `find_tool_calls` (docs/tool-calls.md#the-find-query) and
/// hookscope's extensions [`COUNT_TOOL`], [`hooks::HOOK_PAYLOAD`] and
/// [`hooks::REPLAY_HOOK`].
pub const TOOL_NAMES: [&str; 4] = [
    TOOL_NAME,
    COUNT_TOOL,
    hooks::HOOK_PAYLOAD,
    hooks::REPLAY_HOOK,
];

/// hookscope's counting tool: how many calls `find_tool_calls` would
/// return with no limit, in all or per group ([`count`];
/// docs/cli.md#counts-and-facets).
pub const COUNT_TOOL: &str = "count_tool_calls";

/// [`COUNT_TOOL`]'s title.
pub const COUNT_TITLE: &str = "Count tool calls";

/// [`COUNT_TOOL`]'s description.
pub const COUNT_DESCRIPTION: &str = "hookscope extension. Count the tool calls find_tool_calls \
would return with no limit, in all or per group, without listing them. Takes find_tool_calls' \
filters (not limit, redact, output_mode, with_subagent_cost) and group_by: tool, session, day \
(UTC date; undated last), agent or error (error, ok, no result). Returns {\"total\": N} or \
{\"total\": N, \"group_by\": KEY, \"groups\": [{\"key\": ..., \"count\": N}]}, most calls first \
(days newest first).";

/// The parameters of `find_tool_calls` that shape records and so do not
/// apply to [`COUNT_TOOL`].
const NOT_COUNTED: [&str; 4] = ["limit", "redact", "output_mode", "with_subagent_cost"];

/// [`COUNT_TOOL`]'s input schema: [`input_schema`] without
/// `limit`, `redact`, `output_mode` and `with_subagent_cost`, with `group_by`.
pub fn count_schema() -> Map<String, Value> {
    let mut schema = input_schema();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for name in NOT_COUNTED {
            properties.remove(name);
        }
        let keys: Vec<&str> = GroupBy::ALL.iter().map(|g| g.as_str()).collect();
        properties.insert(
            "group_by".into(),
            json!({
                "type": "string",
                "enum": keys,
                "description": "Count per tool (name as invoked), session, day (UTC date), \
                                agent or error (error, ok, no result). Omitted: the total only."
            }),
        );
    }
    schema
}

/// Runs [`COUNT_TOOL`] on the sessions of `library` ([`Library::tally`]):
/// `arguments` are `find_tool_calls`' filters and `group_by`. A parameter
/// that shapes records (`limit`, `redact`, `output_mode`,
/// `with_subagent_cost`), an unknown `group_by` or any argument
/// `find_tool_calls` refuses is answered as the `invalid_argument` object.
pub fn count(library: &Library, arguments: &Value, now: DateTime<Utc>) -> ToolOutput {
    let invalid = |message: String| {
        ToolOutput::InvalidArgument(QueryError::InvalidArgument(message).to_json())
    };
    let mut filters = arguments.clone();
    let group_by = match filters.as_object_mut().and_then(|m| m.remove("group_by")) {
        None | Some(Value::Null) => None,
        Some(Value::String(key)) => match GroupBy::from_name(&key) {
            Some(g) => Some(g),
            None => {
                let names: Vec<&str> = GroupBy::ALL.iter().map(|g| g.as_str()).collect();
                return invalid(format!(
                    "group_by: {key:?} is not one of {}",
                    names.join(", ")
                ));
            }
        },
        Some(other) => return invalid(format!("group_by: expected a string, got {other}")),
    };
    if let Some(name) = NOT_COUNTED.iter().find(|n| filters.get(**n).is_some()) {
        return invalid(format!("{name} does not apply to {COUNT_TOOL}"));
    }
    let query = match FindParams::from_json(&filters).and_then(|params| params.validate(now)) {
        Ok(query) => query,
        Err(e) => return ToolOutput::InvalidArgument(e.to_json()),
    };
    answered(library.tally(&query, group_by, &mut |_| {}), |t| {
        t.unreadable
    })
}

/// A short human-readable title for the tool.
pub const TOOL_TITLE: &str = "Find tool calls";

/// The tool's description (the original `find_tool_calls`', adapted to hookscope).
pub const TOOL_DESCRIPTION: &str = "\
Search tool call history across agent sessions and subagents: filter by tool name, \
input/output content, errors, session or time, and retrieve subagent cost details.

Finds every tool call across sessions, cross-agent by default, newest first.

Exactly one of tool_name (exact, case-insensitive) or tool_name_pattern (substring, \
case-insensitive; \"\" matches every tool) must be set. Optional filters combine with AND: input_contains / \
output_contains (case-insensitive substring of the full, pre-cap input JSON / output \
text), output_excludes (drop records whose output contains it) and is_error (tri-state: \
null all, true failures only, false successes only).

Filters always match the RAW, pre-redaction text. redact=true (default) masks secrets in \
emitted record fields as [REDACTED_<TYPE>] and adds a redactions type->count object when \
any replacement happened; redact=false returns raw content.

session scopes the scan to one session id (or a list of ids; a unique id prefix works \
too). Omitted = every session: a wide since/until with NO session therefore surfaces \
calls from unrelated sessions, so pin it when auditing one conversation. since/until take \
RFC 3339, a UTC time (2026-11-29 18:00:05), a date (2026-11-29) or a span before now \
(90s, 30m, 36h, 2d, 1w); since is \
inclusive, until exclusive.

output_mode selects output truncation: \"head\" / \"tail\" / \"smart\"; omitted is adaptive \
(\"smart\" on errors, \"head\" otherwise).

Each record carries is_error_reliable (true only for Claude Code/OpenCode) plus the \
wrapper-aware classification: tool_kind (edit/write/read/bash/task/skill/mcp/web/other) \
and tool_resolved, the real name under a Skill/Task/MCP wrapper (subagent type, skill \
name, or \"<server>:<tool>\"); null when there is no wrapper or the input carries no name.

A record whose call has a correlated result also carries tool_use_id, the join key back \
to a spawned subagent's own session (the child stores it as extra.spawn_tool_use_id). On \
a spawn (tool_kind=\"task\") it also carries subagent: what the child COST, i.e. model \
(the model it actually resolved to, which may be a cheaper tier than the parent's), \
agent_type (persona), tokens (full token block; source=\"recorded\": the usage recorded on \
the spawn's result, which is the child's last API call only, not its billed total), status, \
duration_ms, tool_uses. Honest gaps: a background spawn (status=\"async_launched\") reports its model \
with no tokens key, never a fabricated zero. A record carrying several tool results drops \
the sidecar rather than billing it to the wrong subagent.

with_subagent_cost=true (opt-in) joins each spawn to the child's own files, adding the \
persona (agent_type), the models it ran on, its EXACT billed tokens (summed over the \
child's messages, source=\"exact\") and child_uuid, so a \
background spawn becomes a named, priced row. The sidecar stays the fallback for a child \
that cannot be joined (its tokens are then absent, never zeroed). Default false reads no \
per-spawn child file.

Extensions (hookscope's own, beyond the 14 parameters): hook (a hook event such as \
PreToolUse, or a hookName such as PreToolUse:Bash, recorded on the call), blocked=true \
(calls a hook blocked: they did not run), flagged=true (calls a hook objected to after they \
ran: PostToolUse decision block or exit 2, nothing was blocked), rewritten=true (calls whose input a PreToolUse hook rewrote with \
updatedInput; the record's input is the original, hook_activity[].rewrite.to is what ran), \
decided_by (a rule id: calls on which `hookscope hook`, the live rule-set hook, logged a \
decision in which that rule matched; \"*\": any logged decision). \
A record whose call has recorded hook activity gains hook_activity: one object per hook \
firing (event, hook_name, action, command, exit_code, stdout, stderr, duration_ms, reason, \
context, rewrite {from, to}, decision, lines, path, what), masked like input.

A bad argument returns {\"error\": \"invalid_argument\", \"message\": \"...\"} instead of \
records.";

/// The 14 parameter names of the tool, exactly as the original `find_tool_calls` spells them.
pub const PARAMETER_NAMES: [&str; 14] = [
    "tool_name",
    "tool_name_pattern",
    "input_contains",
    "output_contains",
    "output_excludes",
    "is_error",
    "session",
    "since",
    "until",
    "agent",
    "limit",
    "redact",
    "output_mode",
    "with_subagent_cost",
];

/// hookscope's extensions of the tool beyond the original 14 parameters:
/// they only narrow the result.
pub const EXTENSION_PARAMETER_NAMES: [&str; 5] =
    ["hook", "blocked", "flagged", "rewritten", "decided_by"];

/// The tool's JSON Schema for `inputSchema`: an object with the 14
/// parameters and the [`EXTENSION_PARAMETER_NAMES`], none required, no
/// other keys allowed.
pub fn input_schema() -> Map<String, Value> {
    let string = |description: &str| json!({"type": "string", "description": description});
    let properties = json!({
        "tool_name": string(
            "Exact tool name as invoked, case-insensitive (Bash, Edit, mcp__server__tool). \
             Set exactly one of tool_name and tool_name_pattern."
        ),
        "tool_name_pattern": string(
            "Substring of the tool name, case-insensitive (\"mcp__\", \"web\"; \"\" \
             matches every tool). Set exactly one of tool_name and tool_name_pattern."
        ),
        "input_contains": string(
            "Keep calls whose full raw input JSON text contains this, case-insensitive."
        ),
        "output_contains": string(
            "Keep calls whose full raw output text contains this, case-insensitive."
        ),
        "output_excludes": string(
            "Drop calls whose full raw output text contains this, case-insensitive."
        ),
        "is_error": {
            "type": ["boolean", "null"],
            "description": "null or omitted: all calls; true: failures only; false: successes only."
        },
        "session": {
            "anyOf": [
                {"type": "string"},
                {"type": "array", "items": {"type": "string"}}
            ],
            "description": "A session id or a list of them (a unique id prefix works too). \
                            Omitted: every session."
        },
        "since": string(
            "Lower time bound, inclusive: RFC 3339 (2026-11-29T18:00:00Z), a date \
             (2026-11-29, midnight UTC) or a span before now (90s, 30m, 36h, 2d, 1w)."
        ),
        "until": string(
            "Upper time bound, exclusive; same forms as since."
        ),
        "agent": {
            "type": "string",
            "enum": KNOWN_AGENTS,
            "description": "Only sessions of this agent. Omitted: every agent."
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_LIMIT,
            "default": DEFAULT_LIMIT,
            "description": "Maximum number of records, newest first."
        },
        "redact": {
            "type": "boolean",
            "default": true,
            "description": "Mask secrets in the emitted fields as [REDACTED_<TYPE>] \
                            (filters still match the raw text)."
        },
        "output_mode": {
            "type": "string",
            "enum": ["head", "tail", "smart"],
            "description": "How a long output is cut: head, tail, or smart (error lines \
                            then the tail). Omitted: smart on errors, head otherwise."
        },
        "with_subagent_cost": {
            "type": "boolean",
            "default": false,
            "description": "Join each subagent spawn to the child's own files for its \
                            persona, models and exact billed tokens."
        },
        "hook": string(
            "hookscope extension: only calls on which the transcript records a \
             firing of this hook event (PreToolUse, PostToolUse, ...) or hookName \
             (PreToolUse:Bash), case-insensitive."
        ),
        "blocked": {
            "type": ["boolean", "null"],
            "description": "hookscope extension: true only calls a hook blocked \
                            (PreToolUse exit 2 or deny, or an ask then denied: the call did not run); false only \
                            calls no hook blocked; null or omitted: all."
        },
        "flagged": {
            "type": ["boolean", "null"],
            "description": "hookscope extension: true only calls a hook objected to \
                            after they ran (PostToolUse decision block or exit 2: the call \
                            had run, the reason went to the model); false only calls no \
                            hook objected to; null or omitted: all."
        },
        "rewritten": {
            "type": ["boolean", "null"],
            "description": "hookscope extension: true only calls whose input a \
                            PreToolUse hook rewrote (updatedInput); false only calls not \
                            rewritten; null or omitted: all."
        },
        "decided_by": {
            "type": ["string", "null"],
            "description": "hookscope extension: only calls on which hookscope hook (a rule \
                            set run as the live hook) logged a decision in which this rule \
                            id matched; \"*\": any logged decision; null or omitted: all."
        }
    });
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), properties);
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

/// What a `tools/call` of [`TOOL_NAME`] produced.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutput {
    /// `{"records": [...], "redactions": {...}}` (`redactions` only when
    /// something was masked), and problems worth a line on stderr (sessions
    /// that could not be read).
    Found {
        /// The result object for the client.
        value: Value,
        /// One line each, for stderr.
        warnings: Vec<String>,
    },
    /// `{"error": "invalid_argument", "message": "..."}`: the tool's answer
    /// to a bad argument (docs/tool-calls.md#the-find-query), not a failure of the call.
    InvalidArgument(Value),
    /// The call could not be carried out (the reason, for the client).
    Failed(String),
}

impl ToolOutput {
    /// The JSON object to send: the result, the `invalid_argument` object,
    /// or `{"error": "failed", "message": ...}`.
    pub fn value(&self) -> Value {
        match self {
            ToolOutput::Found { value, .. } | ToolOutput::InvalidArgument(value) => value.clone(),
            ToolOutput::Failed(message) => json!({"error": "failed", "message": message}),
        }
    }
}

/// Runs the query on `sessions` with the MCP `arguments` (a JSON object, or
/// `null` for none); `now` anchors relative `since`/`until`.
///
/// A bad argument (unknown key, wrong type, both or neither tool name
/// filters, bad time, ...) is not an error here: it is answered as the
/// `{"error": "invalid_argument", "message": ...}` object, as the original `find_tool_calls`'
/// wrapper does.
pub fn find_tool_calls(
    sessions: &[SessionRef],
    arguments: &Value,
    now: DateTime<Utc>,
) -> ToolOutput {
    let from_disk = |s: &SessionRef| {
        crate::transcript::load(s)
            .map(Arc::new)
            .map_err(|e| e.to_string())
    };
    find_tool_calls_with(sessions, arguments, now, &from_disk)
}

/// [`find_tool_calls`], loading sessions through `loader`
/// ([`query::Finder::loader`]), e.g. a [`crate::transcript::cache::SessionCache`].
pub fn find_tool_calls_with(
    sessions: &[SessionRef],
    arguments: &Value,
    now: DateTime<Utc>,
    loader: &(dyn Fn(&SessionRef) -> LoadedSession + Sync),
) -> ToolOutput {
    let found = FindParams::from_json(arguments)
        .and_then(|params| params.validate(now))
        .and_then(|query| query::Finder::new(sessions, &query).loader(loader).run());
    output(found, |r| r.unreadable)
}

/// The tool's answer to a query's outcome: the result's JSON, with
/// `unreadable` (its sessions that could not be read) as warnings.
fn output<T: serde::Serialize>(
    found: Result<T, QueryError>,
    unreadable: fn(T) -> Vec<String>,
) -> ToolOutput {
    match found {
        Ok(result) => match serde_json::to_value(&result) {
            Ok(value) => ToolOutput::Found {
                value,
                warnings: unreadable(result),
            },
            Err(e) => ToolOutput::Failed(format!("cannot serialize the result: {e}")),
        },
        Err(e @ QueryError::InvalidArgument(_)) => ToolOutput::InvalidArgument(e.to_json()),
    }
}

/// [`output`] of a [`Library`] question; a discovery that failed is the
/// call's failure.
fn answered<T: serde::Serialize>(
    found: Result<crate::service::Found<T>, crate::service::FindError>,
    unreadable: fn(T) -> Vec<String>,
) -> ToolOutput {
    match found {
        Ok(found) => output(Ok(found.result), unreadable),
        Err(crate::service::FindError::Query(e)) => output(Err(e), unreadable),
        Err(crate::service::FindError::Discover(e)) => {
            ToolOutput::Failed(format!("cannot list sessions: {e}"))
        }
    }
}

/// Runs [`find_tool_calls`] on the sessions of `library`
/// ([`Library::find`]: through its cache, with its index when it has one,
/// answering from the discovery kept there when nothing changed on disk;
/// blocking: discovery may walk directories, the query reads files it has
/// not parsed yet).
pub fn call(library: &Library, arguments: &Value, now: DateTime<Utc>) -> ToolOutput {
    let query = match FindParams::from_json(arguments).and_then(|params| params.validate(now)) {
        Ok(query) => query,
        Err(e) => return output(Err(e), |r: query::FindResult| r.unreadable),
    };
    answered(library.find(&query, &mut |_| {}), |r| r.unreadable)
}

/// Runs the tool `name` (one of [`TOOL_NAMES`]) on the sessions of
/// `source`; `None` for an unknown tool.
pub fn call_tool(
    source: &Library,
    name: &str,
    arguments: &Value,
    now: DateTime<Utc>,
) -> Option<ToolOutput> {
    if name == TOOL_NAME {
        return Some(call(source, arguments, now));
    }
    if name == COUNT_TOOL {
        return Some(count(source, arguments, now));
    }
    let sessions = match source.sessions() {
        Ok(s) => s,
        Err(e) => return Some(ToolOutput::Failed(format!("cannot list sessions: {e}"))),
    };
    match name {
        hooks::HOOK_PAYLOAD => Some(hooks::hook_payload(&sessions, arguments)),
        hooks::REPLAY_HOOK => Some(hooks::replay_hook(&sessions, arguments, source)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_lists_every_parameter_with_a_description() {
        let schema = input_schema();
        let properties = schema["properties"].as_object().expect("properties");
        let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
        names.sort_unstable();
        let mut expected = PARAMETER_NAMES.to_vec();
        expected.extend(EXTENSION_PARAMETER_NAMES);
        expected.sort_unstable();
        assert_eq!(names, expected);
        for (name, property) in properties {
            let description = property["description"].as_str().unwrap_or("");
            assert!(!description.is_empty(), "{name} has no description");
        }
        assert_eq!(schema["type"], "object");
    }

    /// The extensions `hook` / `blocked` / `rewritten` are accepted and
    /// narrow: over real-cc-2.1.332 the two calls a PreToolUse hook
    /// blocked (c2 and c3, recounted in tests/core/hook_activity.rs).
    #[test]
    fn extension_parameters_find_blocked_calls() {
        let found = crate::transcript::discover(&[std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/real-cc-2.1.332"
        ))])
        .expect("corpus");
        let out = find_tool_calls(
            &found.sessions,
            &json!({"tool_name_pattern": "", "hook": "PreToolUse", "blocked": true,
                    "rewritten": null}),
            Utc::now(),
        );
        let ToolOutput::Found { value, .. } = out else {
            panic!("not records: {out:?}")
        };
        let records = value["records"].as_array().expect("records");
        // The c2 and c3 `rm -rf`, and c8's `git push` whose ask was denied.
        assert_eq!(records.len(), 3);
        for r in records {
            assert_eq!(r["hook_activity"][0]["action"], "blocked");
        }
        assert_eq!(records[0]["tool_use_id"], "toolu_01RQ1iz1XkupduEYRX4OQTB2");
        assert_eq!(records[0]["hook_activity"][0]["decision"], "ask");
    }

    #[test]
    fn both_name_filters_are_an_invalid_argument() {
        let out = find_tool_calls(
            &[],
            &json!({"tool_name": "Bash", "tool_name_pattern": "x"}),
            Utc::now(),
        );
        let ToolOutput::InvalidArgument(value) = out else {
            panic!("not an invalid argument: {out:?}")
        };
        assert_eq!(
            value,
            json!({"error": "invalid_argument",
                "message": "set exactly one of tool_name or tool_name_pattern, not both"})
        );
    }

    #[test]
    fn no_sessions_no_records() {
        let out = find_tool_calls(&[], &json!({"tool_name": "Bash"}), Utc::now());
        assert!(matches!(out, ToolOutput::Found { .. }), "{out:?}");
        assert_eq!(out.value(), json!({"records": []}));
    }

    #[test]
    fn calls_read_through_the_source_cache() {
        let path = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/real-cc-2.1.332/tools/projects/-home-dev-work-tools/e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl"
        ));
        let source = Library::checked(std::slice::from_ref(&path))
            .expect("a transcript")
            .with_cache();
        let cache = source.cache().expect("a cache");
        assert_eq!(cache.paths(), Vec::<PathBuf>::new());
        let out = call(
            &source,
            &json!({"tool_name": "Bash", "limit": 1}),
            Utc::now(),
        );
        assert!(matches!(out, ToolOutput::Found { .. }), "{out:?}");
        // The session's Bash calls were loaded once and kept.
        assert_eq!(cache.paths(), [path]);
        let again = call(
            &source,
            &json!({"tool_name": "Bash", "limit": 1}),
            Utc::now(),
        );
        assert_eq!(again.value(), out.value());
    }
}
