//! hookscope's own MCP tools beside `find_tool_calls` (these are
//! hookscope extensions, not part of the original `find_tool_calls`):
//!
//! * [`HOOK_PAYLOAD`] (`hook_payload`): `{session, event, at?}` → the hook
//!   stdin Claude Code sent (or would send) at that point, rebuilt from the
//!   transcript ([`crate::hooks::events::payload`]), secrets masked, with the
//!   fields the transcript cannot tell (`left_out`);
//! * [`REPLAY_HOOK`] (`replay_hook`): `{session, event, at?, rules_path |
//!   rules}?` → the rule set's decision with the why for every rule, the hook
//!   output JSON, the outcome and what the transcript recorded
//!   ([`crate::hooks::replay::replay`], as
//!   [`crate::hooks::replay::replay_json`]: the same object as `hookscope
//!   replay --json`; without rules the payload and the record, `rules_note`
//!   saying so); or `{all: true, rules_path | rules, examples?}`
//!   → a backtest summary over every session, the counts whole and the
//!   examples capped (`examples` per rule and verdict, default
//!   [`crate::hooks::replay::MAX_EXAMPLES`]; `unreadable_files` the first
//!   [`MAX_UNREADABLE_LISTED`])
//!   ([`crate::service::Library::backtest`], with the server's index when
//!   it has one).
//!
//! A bad argument (unknown key, missing session or event, unknown event,
//! `at` naming nothing, a refused rule set) is answered as
//! `{"error": "invalid_argument", "message": ...}`, as `find_tool_calls`
//! does.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::ToolOutput;
use crate::hooks::events::{At, EventName};
use crate::hooks::replay::{backtest_json, replay, replay_json};
use crate::hooks::rules::RuleSet;
use crate::redact::{Redactions, redactor};
use crate::transcript::{SessionRef, resolve_session};

/// Name of the payload tool.
pub const HOOK_PAYLOAD: &str = "hook_payload";
/// Name of the replay tool.
pub const REPLAY_HOOK: &str = "replay_hook";

/// Description of [`HOOK_PAYLOAD`].
pub const HOOK_PAYLOAD_DESCRIPTION: &str = "\
hookscope extension. Rebuild, from a Claude Code transcript, the exact stdin JSON Claude Code \
sent (or would send) to a hook for one event: PreToolUse, PostToolUse, Stop, UserPromptSubmit, … \
at a tool_use_id, a line uuid, a line (line:N, or line:agent-<agent_id>:N in a subagent's file), \
a turn number, or the session's last such event. Returns \
{event, source {transcript, line}, claude_version, payload, left_out [{field, reason}], redactions?}: \
fields the transcript cannot tell are left out and listed, never invented; secrets are masked \
as [REDACTED_<TYPE>]. Use it to get a real payload as a test fixture for a hook.";

/// Description of [`REPLAY_HOOK`].
pub const REPLAY_HOOK_DESCRIPTION: &str = "\
hookscope extension. Replay one hook event of a Claude Code session through a hookscope rule \
set (TOML, see assets/rules/example.toml) and return what it decides and why: {event, source, \
claude_version, payload, left_out, history, rules [{id, matched, verdict, why}], decision, flags, \
output (the JSON a hook would print), outcome (what Claude Code then does), recorded (what the \
transcript itself shows of the hooks that really ran), warnings (the rule set's), rules_note, \
redactions?} — the object `hookscope replay --json` prints. Give the rules as rules_path (a file) \
or rules (the TOML text); without either, the payload and the record are returned and rules_note \
says no rule set is loaded. With all=true (rules needed), backtest the rule set over every session \
instead: {sessions, skipped, unreadable, unreadable_files (the first 100), left_out {agent: n}, events, \
rules [{id, counts {block, warn, context, allow, rewrite}, examples (the first `examples` per verdict, \
default 3), examples_left_out, objections}], combined (the merged verdicts of the events that \
would still happen under the set), combined_objections (its blocks after the call ran), \
combined_unreachable (PostToolUse events of calls the set blocks before they run), warnings, \
examples_per_verdict}: the counts are totals, the examples a sample.";

/// Most `unreadable_files` a backtest answer lists (the count is whole).
pub const MAX_UNREADABLE_LISTED: usize = 100;

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn common_properties() -> Map<String, Value> {
    let mut p = Map::new();
    p.insert(
        "session".into(),
        string("A session id or a unique id prefix (as `hookscope sessions` lists them)."),
    );
    p.insert(
        "event".into(),
        string("The hook event, spelled as in settings files: PreToolUse, PostToolUse, Stop, UserPromptSubmit, …"),
    );
    p.insert(
        "at".into(),
        string("Where: a tool_use_id, a line uuid, a line of the main file (\"line:42\"), a line of a subagent's file (\"line:agent-<agent_id>:14\"), a turn number (\"3\"), or \"last\" (default: the session's last such event)."),
    );
    p
}

fn schema(properties: Map<String, Value>) -> Map<String, Value> {
    let mut s = Map::new();
    s.insert("type".into(), json!("object"));
    s.insert("properties".into(), Value::Object(properties));
    s.insert("additionalProperties".into(), json!(false));
    s
}

/// `inputSchema` of [`HOOK_PAYLOAD`]: `session` and `event` required, `at`.
pub fn hook_payload_schema() -> Map<String, Value> {
    let mut s = schema(common_properties());
    s.insert("required".into(), json!(["session", "event"]));
    s
}

/// `inputSchema` of [`REPLAY_HOOK`]: `session`, `event`, `at` (not with
/// `all`), `rules_path` or `rules`, `all`.
pub fn replay_hook_schema() -> Map<String, Value> {
    let mut p = common_properties();
    p.insert(
        "rules_path".into(),
        string("Path of a rule file (TOML). Give this, rules, or neither (then no decision: the payload and the record)."),
    );
    p.insert(
        "rules".into(),
        string(
            "A rule set as TOML text (the rule file format). Give this, rules_path, or neither.",
        ),
    );
    p.insert(
        "all".into(),
        json!({"type": "boolean", "default": false,
               "description": "Backtest: every event of every Claude Code session through the rules; session, event and at are then not used."}),
    );
    p.insert(
        "against_path".into(),
        string("With all=true: a second rule file (TOML), B; the answer lists the events where B decides differently from the rules (A): newly_blocked, no_longer_blocked, rewrite_changed, context_changed, other_changed."),
    );
    p.insert(
        "against".into(),
        string("With all=true: the second rule set, B, as TOML text. Give this, against_path, or neither."),
    );
    p.insert(
        "examples".into(),
        json!({"type": "integer", "minimum": 0, "maximum": crate::hooks::replay::KEPT_EXAMPLES, "default": crate::hooks::replay::MAX_EXAMPLES,
               "description": "With all=true: examples returned per rule and verdict (the counts are always whole)."}),
    );
    schema(p)
}

fn invalid(message: impl std::fmt::Display) -> ToolOutput {
    ToolOutput::InvalidArgument(
        json!({"error": "invalid_argument", "message": message.to_string()}),
    )
}

/// The arguments as an object with only `allowed` keys.
fn object(arguments: &Value, allowed: &[&str]) -> Result<Map<String, Value>, ToolOutput> {
    let obj = match arguments {
        Value::Null => Map::new(),
        Value::Object(m) => m.clone(),
        other => return Err(invalid(format!("arguments must be an object, got {other}"))),
    };
    if let Some(k) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(invalid(format!(
            "unknown argument {k:?} (known: {})",
            allowed.join(", ")
        )));
    }
    Ok(obj)
}

fn str_arg<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, ToolOutput> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(invalid(format!("{key} must be a string, got {other}"))),
    }
}

/// The session, event and point of a call, and the note naming identical
/// copies of the session that were not opened (the `session` argument is
/// resolved as the CLI resolves SESSION: [`resolve_session`]).
fn target(
    sessions: &[SessionRef],
    obj: &Map<String, Value>,
) -> Result<(crate::transcript::Session, EventName, At, Vec<String>), ToolOutput> {
    let Some(wanted) = str_arg(obj, "session")? else {
        return Err(invalid("session is required"));
    };
    let Some(event) = str_arg(obj, "event")? else {
        return Err(invalid("event is required"));
    };
    let event: EventName = event.parse().map_err(invalid)?;
    let at = str_arg(obj, "at")?.map_or(At::Last, At::parse);
    let resolved = resolve_session(sessions, wanted).map_err(invalid)?;
    let notes: Vec<String> = resolved.note().into_iter().collect();
    let session = crate::transcript::load(resolved.session)
        .map_err(|e| ToolOutput::Failed(format!("cannot load: {e}")))?;
    Ok((session, event, at, notes))
}

fn masked(v: &Value) -> (Value, Redactions) {
    let mut counts = Redactions::new();
    let m = redactor().redact_value(v, &mut counts);
    (m, counts)
}

fn with_redactions(mut value: Value, counts: &Redactions) -> Value {
    if !counts.is_empty()
        && let Some(o) = value.as_object_mut()
    {
        let map: Map<String, Value> = counts
            .iter()
            .map(|(t, n)| (t.to_string(), json!(n)))
            .collect();
        o.insert("redactions".into(), Value::Object(map));
    }
    value
}

/// Runs [`HOOK_PAYLOAD`] on `sessions`.
pub fn hook_payload(sessions: &[SessionRef], arguments: &Value) -> ToolOutput {
    let run = || -> Result<(Value, Vec<String>), ToolOutput> {
        let obj = object(arguments, &["session", "event", "at"])?;
        let (session, event, at, notes) = target(sessions, &obj)?;
        // The session's agent decides the dialect: Codex's own builder for
        // a Codex session (the payload `replay_hook` shows).
        let p = crate::hooks::dialect::payload(&session, event, &at).map_err(invalid)?;
        let (json, counts) = masked(&p.json);
        let value = with_redactions(
            json!({
                "event": p.event.as_str(),
                "source": {"transcript": p.source_path.to_string_lossy(), "line": p.source_line},
                "claude_version": p.claude_version,
                "payload": json,
                "left_out": p.left_out,
            }),
            &counts,
        );
        Ok((value, notes))
    };
    found_with_notes(run())
}

/// A tool's answer, or its error. The note of its session (identical
/// copies not opened, [`crate::transcript::Resolved::note`]) is added to
/// the answer as `"note"` (only then) and logged as a warning.
fn found_with_notes(run: Result<(Value, Vec<String>), ToolOutput>) -> ToolOutput {
    match run {
        Ok((mut value, warnings)) => {
            if let (Some(note), Some(o)) = (warnings.first(), value.as_object_mut()) {
                o.insert("note".into(), json!(note));
            }
            ToolOutput::Found { value, warnings }
        }
        Err(out) => out,
    }
}

/// The rule set of a call: `rules_path` or `rules`, or none (a replay then
/// shows the payload and the record only).
fn rules_of(obj: &Map<String, Value>) -> Result<Option<RuleSet>, ToolOutput> {
    set_of(obj, "rules_path", "rules")
}

/// A rule set given as a file (`path_key`) or as TOML text (`text_key`),
/// or none.
fn set_of(
    obj: &Map<String, Value>,
    path_key: &str,
    text_key: &str,
) -> Result<Option<RuleSet>, ToolOutput> {
    let refused = |e: crate::hooks::rules::RuleSetError| {
        let which = if text_key == "rules" { "" } else { "against: " };
        invalid(format!("{which}rule set refused; nothing was loaded:\n{e}"))
    };
    match (str_arg(obj, path_key)?, str_arg(obj, text_key)?) {
        (Some(p), None) => RuleSet::load_rules(Path::new(p)).map(Some).map_err(refused),
        (None, Some(text)) => RuleSet::parse_rules(text, "<rules>")
            .map(Some)
            .map_err(refused),
        (None, None) => Ok(None),
        _ => Err(invalid(format!(
            "give at most one of {path_key} or {text_key}"
        ))),
    }
}

/// Runs [`REPLAY_HOOK`] on `sessions`. A backtest (`all: true`) is
/// [`crate::service::Library::backtest`] (with the library's index when it
/// has one); the tallies are those without it.
pub fn replay_hook(
    sessions: &[SessionRef],
    arguments: &Value,
    library: &crate::service::Library,
) -> ToolOutput {
    let run = || -> Result<(Value, Vec<String>), ToolOutput> {
        let obj = object(
            arguments,
            &[
                "session",
                "event",
                "at",
                "rules_path",
                "rules",
                "all",
                "examples",
                "against_path",
                "against",
            ],
        )?;
        let all = match obj.get("all") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(invalid(format!("all must be a boolean, got {other}"))),
        };
        let kept = crate::hooks::replay::KEPT_EXAMPLES;
        let examples = match obj.get("examples") {
            None | Some(Value::Null) => crate::hooks::replay::MAX_EXAMPLES,
            Some(_) if !all => return Err(invalid("examples goes with all: true")),
            Some(v) => match v.as_u64().and_then(|n| usize::try_from(n).ok()) {
                Some(n) if n <= kept => n,
                _ => {
                    return Err(invalid(format!(
                        "examples must be an integer from 0 to {kept}, got {v}"
                    )));
                }
            },
        };
        let rules = rules_of(&obj)?;
        let against = set_of(&obj, "against_path", "against")?;
        if against.is_some() && !all {
            return Err(invalid("against goes with all: true"));
        }
        if let (true, Some(b)) = (all, &against) {
            let Some(a) = rules else {
                return Err(invalid(
                    "against needs the rules to compare with (rules_path or rules)",
                ));
            };
            let mut refs = sessions.to_vec();
            refs.sort_by(|x, y| x.path.cmp(&y.path));
            let mut r = crate::hooks::replay::against::against_refs(&refs, &a, b, &|_| {});
            for g in [
                &mut r.changes.newly_blocked,
                &mut r.changes.no_longer_blocked,
                &mut r.changes.rewrite_changed,
                &mut r.changes.context_changed,
                &mut r.changes.other_changed,
            ] {
                g.examples.truncate(examples);
            }
            r.unreadable_files.truncate(MAX_UNREADABLE_LISTED);
            let mut out = serde_json::to_value(&r).unwrap_or(Value::Null);
            if let Some(o) = out.as_object_mut() {
                o.insert("changed".into(), json!(r.changed()));
                o.insert("examples_per_group".into(), json!(examples));
            }
            return Ok((out, Vec::new()));
        }
        if all {
            let Some(rules) = rules else {
                return Err(invalid(
                    "all: true needs the rules to backtest (rules_path or rules)",
                ));
            };
            let mut refs = sessions.to_vec();
            refs.sort_by(|a, b| a.path.cmp(&b.path));
            let (mut bt, _) = library.backtest(&refs, &rules, &|_| {}, &mut |_| {});
            bt.cap_examples(examples);
            let listed = bt.unreadable_files.len();
            bt.unreadable_files.truncate(MAX_UNREADABLE_LISTED);
            let diagnosed = bt.diagnostics.len();
            bt.diagnostics.truncate(MAX_UNREADABLE_LISTED);
            let mut out = backtest_json(&bt, &rules);
            if let Some(o) = out.as_object_mut() {
                o.insert("examples_per_verdict".into(), json!(examples));
                if listed > MAX_UNREADABLE_LISTED {
                    o.insert(
                        "unreadable_files_left_out".into(),
                        json!(listed - MAX_UNREADABLE_LISTED),
                    );
                }
                if diagnosed > MAX_UNREADABLE_LISTED {
                    o.insert(
                        "diagnostics_left_out".into(),
                        json!(diagnosed - MAX_UNREADABLE_LISTED),
                    );
                }
            }
            return Ok((out, Vec::new()));
        }
        let (session, event, at, notes) = target(sessions, &obj)?;
        let r = replay(&session, event, &at, rules.as_ref()).map_err(invalid)?;
        Ok((replay_json(&r, rules.as_ref()).0, notes))
    };
    found_with_notes(run())
}
