//! Hook replay (docs/replay-and-backtest.md#replay-and-backtest): one event of a session rebuilt as the hook's
//! stdin ([`crate::hooks::events::payload`]), the session history before it
//! ([`History`]), a rule set's evaluation with the why
//! ([`RuleSet::evaluate_at`]), and what the transcript itself recorded about
//! the hooks that really ran there ([`Recorded`]). [`replay`] is what the
//! CLI (`hookscope replay`), the TUI replay pane and the MCP server
//! (`replay_hook`) call for a Claude Code or Droid session (a Codex
//! session's events go through [`crate::hooks::codex`] instead: rule sets
//! follow Claude Code's contract); [`backtest`] and [`backtest_refs`] run
//! every event of many sessions through a rule set.
//!
//! # History before the event
//! The history is what the session did *before* the event's position:
//! * on the main thread, the main thread's calls on earlier lines, plus the
//!   calls of every subagent whose spawning call's result came earlier;
//! * inside a subagent (the payload has an `agent_id`), the main thread's
//!   calls before the spawning call, the subagents finished before it, and
//!   the subagent's own earlier calls.
//!
//! Only calls with a result that is not an error count (a denied `rm -rf` did
//! not run; a call cut off without a result did not finish). `touched_files`
//! takes each Edit/Write/MultiEdit/NotebookEdit/apply_patch call's path
//! ([`crate::tools::file_path_of`], write and edit kinds only),
//! `ran_commands` each shell call's command line as written (the rules parse
//! it with [`crate::shell`]), and `turn_prompt` the opening prompt of the
//! main-thread turn the event belongs to (`None` for the prompt-less lead
//! turn of a resumed file). Inside a subagent `turn_prompt` is the
//! subagent's own opening prompt (the first user message of its file, which
//! is the spawning call's `prompt`): the subagent's calls serve that task,
//! and a rule's `prompt` condition asks what the agent making the call was
//! told (docs/contract.md#per-event-input-fields: a subagent's events carry no `prompt`, so this is
//! hookscope's choice); a subagent without a recorded prompt falls back to
//! the main turn's.
//!
//! # What the transcript recorded
//! Claude Code 2.1.332 leaves these traces of hooks (corpus README "How hook
//! outcomes show up"), which the loader keeps as `Event::Note { label:
//! "hook" }` lines:
//! * `attachment` lines `hook_blocking_error`, `hook_non_blocking_error`,
//!   `hook_additional_context`, `hook_success` with output (text
//!   `"<hookName> blocked: …"`, `"… hook error: …"`, `"… added context: …"`,
//!   `"… output: …"`);
//! * `system/stop_hook_summary` lines **with** `hookErrors` (`"Stop hook:
//!   …"`; a clean summary is not kept by the loader, so a Stop whose hooks
//!   said nothing shows no record);
//! * the `Stop hook feedback:` user line.
//!
//! A note belongs to the event when its text starts with the event's name
//! (`hookName` is `PreToolUse:Bash`, `Stop`, `SessionStart:startup`, …) and
//! it lies in the same file from the event's anchor line up to the next
//! anchor of the same event there. For tool events the call's own
//! `tool_result` is added when the hook decided it (its
//! `permissionDecision.source` is `hook`, or its text starts with
//! `<Event>:`, as `PreToolUse:Bash hook error: …`).

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use crate::hooks::contract::Version;
use crate::hooks::cwd_map::CwdMap;
use crate::hooks::events::MAX_FILE_BYTES;
use crate::hooks::events::{At, EventName, Payload, PayloadError, all_payloads, payloads_where};
use crate::hooks::rules::{Condition, Evaluation, History, RuleSet, verdict};
use crate::query::prefilter::is_plain;
use crate::tools::{ToolCall, ToolKind, expand_tool_names, file_path_of};
use crate::transcript::fsread::read_capped;
use crate::transcript::{
    Agent, Event, Session, SessionRef, ToolCallRecord, Turn, short_session_id,
};

/// One trace of a hook that really ran, as the transcript recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recorded {
    /// Where it comes from: `attachment` (a `hook_*` attachment line),
    /// `stop_hook_summary` (a summary with `hookErrors`), `hook_feedback`
    /// (the `Stop hook feedback:` user line), `tool_result` (the call's
    /// result, written by the hook's decision), `prompt_rejected` (the line
    /// recording a prompt a hook rejected), `updated_output` (a hook
    /// whose stdout replaced the output the model saw:
    /// `the model saw this output instead: …`) or `droid_hook` (a Droid
    /// hook line, as [`crate::transcript::hook_activity::HookActivity::what`]
    /// reads it).
    pub source: &'static str,
    /// 1-based line in the event's file ([`Payload::source_path`]).
    pub line: usize,
    /// The text as the loader keeps it (see the module docs).
    pub text: String,
}

/// An event replayed: the payload, the history before it, the rule set's
/// evaluation (when a rule set was given) and the transcript's own record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replay {
    /// The hook dialect the payload is in (the session's agent's).
    pub dialect: crate::hooks::dialect::Dialect,
    /// The rebuilt stdin, with its left-out fields and source line.
    pub payload: Payload,
    /// The session before the event (module docs "History").
    pub history: History,
    /// Each rule's result with the why, the combined decision, the hook
    /// output JSON and the outcome, as of the line's Claude Code version;
    /// `None` without a rule set.
    pub evaluation: Option<Evaluation>,
    /// What the transcript recorded about the hooks that ran at this event,
    /// in line order (empty when nothing was recorded).
    pub recorded: Vec<Recorded>,
}

/// Why an event could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The payload could not be rebuilt (not Claude Code, `at` names
    /// nothing, the event does not occur there; the message says what
    /// exists).
    #[error(transparent)]
    Payload(#[from] PayloadError),
}

/// Replays `event` at `at` (the session's last such event for
/// [`At::Last`]) through `rules`.
///
/// # Errors
/// [`ReplayError::Payload`] as [`crate::hooks::dialect::Dialect::payload`] refuses.
pub fn replay(
    session: &Session,
    event: EventName,
    at: &At,
    rules: Option<&RuleSet>,
) -> Result<Replay, ReplayError> {
    replay_with(session, event, at, rules, &CwdMap::default())
}

/// [`replay`] with the recorded folders of `map` (`--cwd-map OLD=NEW`)
/// mapped to local ones in the payload before the rule set sees it
/// ([`CwdMap::map_value`]).
///
/// # Errors
/// [`ReplayError::Payload`] as [`crate::hooks::dialect::Dialect::payload`] refuses.
pub fn replay_with(
    session: &Session,
    event: EventName,
    at: &At,
    rules: Option<&RuleSet>,
    map: &CwdMap,
) -> Result<Replay, ReplayError> {
    let dialect = crate::hooks::dialect::Dialect::for_agent(session.agent);
    let mut built = dialect.payload(session, event, at)?;
    map.map_value(&mut built.json);
    if !dialect.takes_rule_sets() {
        // Codex: its own payload; rule sets and the recorded hook
        // activity are Claude Code's.
        return Ok(Replay {
            dialect,
            payload: built,
            history: History::default(),
            evaluation: None,
            recorded: Vec::new(),
        });
    }
    let history = history_before(session, &built);
    let evaluation = rules.map(|r| evaluate(r, &built, &history));
    let recorded = recorded_at(session, &built);
    Ok(Replay {
        dialect,
        payload: built,
        history,
        evaluation,
        recorded,
    })
}

fn evaluate(rules: &RuleSet, p: &Payload, history: &History) -> Evaluation {
    let version = p
        .claude_version
        .as_deref()
        .map_or_else(Version::latest, Version::parse);
    rules.evaluate_at(&p.json, history, &version)
}

/// The thread a payload is in: `Some(i)` for the subagent whose `agent_id`
/// the payload carries, else the main thread.
fn thread_of(session: &Session, p: &Payload) -> Option<usize> {
    let id = p.json.get("agent_id").and_then(Value::as_str)?;
    session
        .subagents
        .iter()
        .position(|s| s.agent_id.as_deref() == Some(id))
}

fn done_ok(r: &ToolCallRecord) -> bool {
    r.result.as_ref().is_some_and(|res| !res.is_error)
}

/// What one finished call adds to a [`History`].
#[derive(Debug, Clone)]
enum Trace {
    Ran(String),
    Touched(String),
}

/// What a finished call of `thread` adds to a history: what it ran (the
/// input a PreToolUse hook rewrote it to, [`Session::ran_input`], else the
/// model's).
fn trace_of(session: &Session, thread: Option<usize>, r: &ToolCallRecord) -> Option<Trace> {
    if !done_ok(r) {
        return None;
    }
    let rewritten;
    let call = match session.ran_input(thread, r) {
        Some(input) => {
            rewritten =
                crate::tools::parse_tool_call(r.name(), Some(input), crate::tools::OnError::Other)
                    .ok()?;
            &rewritten
        }
        None => &r.call,
    };
    match call {
        ToolCall::Bash(b) => Some(Trace::Ran(b.command.clone())),
        call if matches!(r.tool_kind, ToolKind::Edit | ToolKind::Write) => {
            file_path_of(call).map(|p| Trace::Touched(p.to_string()))
        }
        _ => None,
    }
}

fn add_trace(h: &mut History, t: &Trace) {
    match t {
        Trace::Ran(c) => h.ran_commands.push(c.clone()),
        Trace::Touched(p) => h.touched_files.push(p.clone()),
    }
}

/// One subagent in a [`HistoryIndex`].
#[derive(Debug, Clone)]
struct SubTraces {
    agent_id: Option<String>,
    /// Line of its spawning call on the main thread.
    spawn_line: Option<usize>,
    /// Line of its spawning call's result (when it finished).
    spawn_end: Option<usize>,
    /// Its calls' traces with their lines, in call order.
    traces: Vec<(usize, Trace)>,
    /// Its opening prompt (the first user message of its file: the spawn's
    /// `prompt`).
    prompt: Option<String>,
}

/// A session's history, indexed once (the calls' traces with their lines,
/// each subagent's spawn and end lines) so that the history before each of
/// many payloads ([`HistoryIndex::before`]) is assembled without walking the
/// session again: a backtest builds one per session instead of rescanning
/// every call (and every spawn) per payload.
#[derive(Debug, Clone)]
pub struct HistoryIndex {
    /// Main-thread traces with their lines, in call order.
    main: Vec<(usize, Trace)>,
    /// Whether `main` is in line order (then a prefix is cut by binary
    /// search).
    main_sorted: bool,
    subs: Vec<SubTraces>,
    /// Main-thread turns with an opening prompt: (prompt line, prompt).
    prompts: Vec<(usize, String)>,
}

impl HistoryIndex {
    /// Indexes `session` (one walk over its calls).
    pub fn new(session: &Session) -> HistoryIndex {
        let main: Vec<(usize, Trace)> = session
            .tool_calls()
            .filter_map(|r| trace_of(session, None, r).map(|t| (r.line, t)))
            .collect();
        let main_sorted = main.windows(2).all(|w| w[0].0 <= w[1].0);
        // The first record of a repeated id wins.
        let mut spawns: std::collections::HashMap<&str, (usize, Option<usize>)> =
            std::collections::HashMap::new();
        for r in session.tool_calls() {
            spawns
                .entry(r.tool_use_id.as_str())
                .or_insert((r.line, r.result.as_ref().map(|res| res.line)));
        }
        let subs = session
            .subagents
            .iter()
            .enumerate()
            .map(|(i, sub)| {
                let spawn = sub
                    .spawn_tool_use_id
                    .as_deref()
                    .and_then(|id| spawns.get(id));
                SubTraces {
                    agent_id: sub.agent_id.clone(),
                    spawn_line: spawn.map(|s| s.0),
                    spawn_end: spawn.and_then(|s| s.1),
                    traces: sub
                        .tool_calls()
                        .filter_map(|r| trace_of(session, Some(i), r).map(|t| (r.line, t)))
                        .collect(),
                    prompt: sub
                        .turns
                        .iter()
                        .find(|t| t.prompt_line.is_some())
                        .map(|t| t.prompt.clone()),
                }
            })
            .collect();
        let prompts = session
            .turns
            .iter()
            .filter_map(|t| t.prompt_line.map(|l| (l, t.prompt.clone())))
            .collect();
        HistoryIndex {
            main,
            main_sorted,
            subs,
            prompts,
        }
    }

    /// The history before `p` (module docs "History"); equal to
    /// [`history_before`] of the session it indexes.
    pub fn before(&self, p: &Payload) -> History {
        let thread = p
            .json
            .get("agent_id")
            .and_then(Value::as_str)
            .and_then(|id| {
                self.subs
                    .iter()
                    .position(|s| s.agent_id.as_deref() == Some(id))
            });
        let pos = match thread {
            None => p.source_line,
            Some(i) => self.subs.get(i).and_then(|s| s.spawn_line).unwrap_or(0),
        };
        let mut h = History::default();
        if self.main_sorted {
            let n = self.main.partition_point(|(l, _)| *l < pos);
            self.main[..n]
                .iter()
                .for_each(|(_, t)| add_trace(&mut h, t));
        } else {
            self.main
                .iter()
                .filter(|(l, _)| *l < pos)
                .for_each(|(_, t)| add_trace(&mut h, t));
        }
        for (i, sub) in self.subs.iter().enumerate() {
            if Some(i) != thread && sub.spawn_end.is_some_and(|end| end < pos) {
                sub.traces.iter().for_each(|(_, t)| add_trace(&mut h, t));
            }
        }
        if let Some(sub) = thread.and_then(|i| self.subs.get(i)) {
            sub.traces
                .iter()
                .filter(|(l, _)| *l < p.source_line)
                .for_each(|(_, t)| add_trace(&mut h, t));
        }
        // Inside a subagent its own opening prompt (the task it works on),
        // else the main-thread turn's.
        h.turn_prompt = thread
            .and_then(|i| self.subs.get(i))
            .and_then(|s| s.prompt.clone())
            .or_else(|| {
                self.prompts
                    .iter()
                    .rfind(|(l, _)| *l <= pos)
                    .map(|(_, t)| t.clone())
            });
        h
    }
}

/// The session history before the payload's event (module docs
/// "History"). For many payloads of one session, build a [`HistoryIndex`]
/// once and ask it instead.
pub fn history_before(session: &Session, p: &Payload) -> History {
    HistoryIndex::new(session).before(p)
}

fn names_event(text: &str, event: EventName) -> bool {
    text.strip_prefix(event.as_str())
        .is_some_and(|rest| rest.starts_with(':') || rest.starts_with(' '))
}

/// Whether a note is a rejected prompt's record (its `system`/`user` line:
/// `UserPromptSubmit operation blocked by hook: …`).
fn is_rejection_note(label: &str, text: &str) -> bool {
    (label.starts_with("system/") || label == "user/blocked")
        && text.contains(" operation blocked by hook")
}

fn note_source(text: &str) -> &'static str {
    if text.starts_with("Stop hook feedback:") || text.starts_with("SubagentStop hook feedback:") {
        "hook_feedback"
    } else if text.starts_with("Stop hook: ") || text.starts_with("SubagentStop hook: ") {
        "stop_hook_summary"
    } else {
        "attachment"
    }
}

/// What the transcript recorded about hooks at the payload's event (module
/// docs "What the transcript recorded").
pub fn recorded_at(session: &Session, p: &Payload) -> Vec<Recorded> {
    let thread = thread_of(session, p);
    let turns: &[Turn] = match thread {
        None => &session.turns,
        Some(i) => session.subagents.get(i).map_or(&[][..], |s| &s.turns[..]),
    };
    let end = all_payloads(session, p.event)
        .iter()
        .filter(|o| o.source_path == p.source_path && o.source_line > p.source_line)
        .map(|o| o.source_line)
        .min()
        .unwrap_or(usize::MAX);
    let mut out: Vec<Recorded> = turns
        .iter()
        .flat_map(|t| &t.events)
        .filter_map(|e| match e {
            Event::Note {
                label, text, line, ..
            } if (label == "hook" || is_rejection_note(label, text))
                && *line >= p.source_line
                && *line < end
                && names_event(text, p.event) =>
            {
                Some(Recorded {
                    source: if label == "hook" {
                        note_source(text)
                    } else {
                        "prompt_rejected"
                    },
                    line: *line,
                    text: text.clone(),
                })
            }
            _ => None,
        })
        .collect();
    if let Some(id) = p.json.get("tool_use_id").and_then(Value::as_str) {
        let lines = match thread {
            None => &session.lines,
            Some(i) => session
                .subagents
                .get(i)
                .map_or(&session.lines, |s| &s.lines),
        };
        let by_hook = lines
            .permission_decisions
            .get(id)
            .and_then(|d| d.get("source"))
            .and_then(Value::as_str)
            == Some("hook");
        let record = turns
            .iter()
            .flat_map(Turn::tool_calls)
            .find(|r| r.tool_use_id == id);
        if let Some(res) = record.and_then(|r| r.result.as_ref())
            && ((by_hook
                && matches!(
                    p.event,
                    EventName::PreToolUse | EventName::PermissionRequest
                ))
                || names_event(&res.text, p.event))
        {
            out.push(Recorded {
                source: "tool_result",
                line: res.line,
                text: res.text.clone(),
            });
        }
    }
    // What a hook made the model see instead of the tool's output is in
    // its stdout JSON, which the notes do not spell out.
    if session.agent != Agent::Droid {
        for h in activity_at(session, p)
            .into_iter()
            .filter(|h| h.updated_output.is_some())
        {
            out.push(Recorded {
                source: "updated_output",
                line: h.line(),
                text: format!(
                    "{}: {}",
                    h.hook_name.as_deref().unwrap_or(h.event_name()),
                    h.what(200)
                ),
            });
        }
    }
    if session.agent == Agent::Droid {
        // Droid writes one hook line per firing: what it says.
        for h in activity_at(session, p) {
            out.push(Recorded {
                source: "droid_hook",
                line: h.line(),
                text: format!(
                    "{}: {}",
                    h.hook_name.as_deref().unwrap_or(h.event_name()),
                    h.what(200)
                ),
            });
        }
    }
    out.sort_by_key(|r| r.line);
    out
}

/// The parsed hook firings ([`crate::transcript::hook_activity::HookActivity`])
/// of the payload's event at its place: for a tool event (a payload with
/// `tool_use_id`) the firings of that call whose event is the payload's;
/// otherwise the firings of the event in the payload's thread from its line
/// up to the next firing of the same event (the window [`recorded_at`]
/// uses), e.g. a Stop's `stop_hook_summary` with the handler that ran
/// cleanly. In line order.
pub fn activity_at<'a>(
    session: &'a Session,
    p: &Payload,
) -> Vec<&'a crate::transcript::hook_activity::HookActivity> {
    let thread = thread_of(session, p);
    let lines = match thread {
        None => &session.lines,
        Some(i) => session
            .subagents
            .get(i)
            .map_or(&session.lines, |s| &s.lines),
    };
    let event = p.event.as_str();
    // Droid's payloads carry no tool_use_id: the call it concerns.
    let id = p
        .json
        .get("tool_use_id")
        .and_then(Value::as_str)
        .or(p.call_id.as_deref());
    if let Some(id) = id {
        let turns: &[Turn] = match thread {
            None => &session.turns,
            Some(i) => session.subagents.get(i).map_or(&[][..], |s| &s.turns[..]),
        };
        // Ids may repeat: the call at or before the payload's line.
        let call = turns
            .iter()
            .flat_map(Turn::tool_calls)
            .filter(|r| r.tool_use_id == id)
            .map(|r| r.line)
            .filter(|l| *l <= p.source_line)
            .max()
            .or_else(|| {
                turns
                    .iter()
                    .flat_map(Turn::tool_calls)
                    .find(|r| r.tool_use_id == id)
                    .map(|r| r.line)
            });
        return match call {
            Some(line) => lines
                .hooks_of_call(line, id)
                .filter(|h| h.event_name() == event)
                .collect(),
            None => Vec::new(),
        };
    }
    let end = all_payloads(session, p.event)
        .iter()
        .filter(|o| o.source_path == p.source_path && o.source_line > p.source_line)
        .map(|o| o.source_line)
        .min()
        .unwrap_or(usize::MAX);
    let mut out: Vec<_> = lines
        .hook_activity
        .iter()
        .filter(|h| {
            h.event_name() == event && !h.on_call() && h.line() >= p.source_line && h.line() < end
        })
        .collect();
    out.sort_by_key(|h| h.line());
    out
}

/// The `permissionDecision` the transcript recorded on the tool result of
/// the payload's call (`{decision, source, reasonType|reasonCode,
/// ruleSource}`, 2.1.332), in the payload's thread; `None` for an event not
/// on a call, or a call without one.
pub fn recorded_permission<'a>(session: &'a Session, p: &Payload) -> Option<&'a Value> {
    let id = p.json.get("tool_use_id").and_then(Value::as_str)?;
    session
        .thread_lines(thread_of(session, p))
        .permission_decisions
        .get(id)
}

/// What a replay without a rule set says in [`replay_json`]'s `rules_note`.
pub const NO_RULES: &str = "no rule set loaded: only the payload and what the transcript recorded";

/// The JSON of a replay, the one object `hookscope replay --json` prints
/// and the MCP tool `replay_hook` returns: `{event, source {transcript,
/// line}, claude_version, payload, left_out, history, rules [{id, matched,
/// verdict, why}], decision, flags, output, outcome, recorded, warnings,
/// rules_note, redactions?}`. The payload's secrets are masked as
/// `[REDACTED_<TYPE>]` (`redactions`: per type how many, only when any;
/// also returned). Without a rule set `rules`, `decision`, `flags`,
/// `output` and `outcome` are null, `warnings` is empty and `rules_note` is
/// [`NO_RULES`] (else null); `warnings` are the rule set's
/// ([`RuleSet::warnings`]).
pub fn replay_json(r: &Replay, rules: Option<&RuleSet>) -> (Value, crate::redact::Redactions) {
    let mut counts = crate::redact::Redactions::new();
    let payload = crate::redact::redactor().redact_value(&r.payload.json, &mut counts);
    let e = r.evaluation.as_ref();
    let mut out = serde_json::json!({
        "agent": r.dialect,
        "event": r.payload.event.as_str(),
        "source": {
            "transcript": r.payload.source_path.to_string_lossy(),
            "line": r.payload.source_line,
        },
        "claude_version": r.payload.claude_version,
        "payload": payload,
        "left_out": r.payload.left_out,
        "history": r.history,
        "rules": e.map(|e| e.rules.iter().map(|x| serde_json::json!({
            "id": x.id,
            "matched": x.matched,
            "verdict": x.result.as_ref().map(verdict),
            "why": x.why(),
        })).collect::<Vec<_>>()),
        "decision": e.map(|e| e.verdict()),
        "flags": e.map(|e| &e.combined.flags),
        "output": e.map(|e| &e.output),
        "outcome": e.map(|e| &e.outcome),
        "recorded": r.recorded,
        "warnings": rules.map_or(&[][..], RuleSet::warnings),
        "rules_note": if e.is_none() { Some(r.dialect.rule_sets_note().unwrap_or(NO_RULES)) } else { None },
    });
    if !counts.is_empty()
        && let Some(o) = out.as_object_mut()
    {
        o.insert("redactions".into(), serde_json::json!(counts));
    }
    (out, counts)
}

/// The JSON of a backtest, the one object `hookscope replay --all --json`
/// prints and `replay_hook` with `all: true` returns: the [`Backtest`]'s
/// fields plus `warnings` (the rule set's, [`RuleSet::warnings`]).
pub fn backtest_json(bt: &Backtest, rules: &RuleSet) -> Value {
    let mut out = serde_json::to_value(bt).unwrap_or(Value::Null);
    if let Some(o) = out.as_object_mut() {
        o.insert("warnings".into(), serde_json::json!(rules.warnings()));
    }
    out
}

// ---- backtest --------------------------------------------------------------

/// Examples per rule and verdict that `hookscope replay --all` prints by
/// default (`--examples N`), and that the MCP `replay_hook` tool returns
/// by default (its `examples` argument).
pub const MAX_EXAMPLES: usize = 3;

/// Most examples a [`Backtest`] keeps per rule and verdict (the first, in
/// session order); the rest are counted in
/// [`RuleTally::examples_left_out`]. A broad rule over tens of thousands
/// of sessions matches hundreds of thousands of events: the counts hold
/// them all, the examples do not.
pub const KEPT_EXAMPLES: usize = 1000;

/// One event a rule matched, as an example in a backtest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Example {
    /// The session's short id ([`short_session_id`]).
    pub session: String,
    /// The event name.
    pub event: String,
    /// The payload's `tool_use_id`, for tool events.
    pub tool_use_id: Option<String>,
    /// The `--at` form that names this firing
    /// ([`crate::hooks::events::At::parse`]): the `tool_use_id` for a tool
    /// event, else `line:N` (the 1-based line of the main transcript file it
    /// is anchored at), or inside a subagent `line:agent-<agent_id>:N` (a
    /// line of the subagent's file); `None` when neither can be told.
    pub at: Option<String>,
    /// One line: the tool and its command or path, or the prompt.
    pub summary: String,
    /// The rule's verdict (`block`, `warn`, `context`, `allow`, `rewrite`).
    pub verdict: String,
    /// The source file and 1-based line of the event.
    pub source: String,
    /// For a `block`: whether the transcript shows a hook taking that
    /// effect at the time (a call blocked before it ran, an objection after
    /// it ran, a Stop blocked, a prompt rejected; docs/replay.md "Blocked
    /// then, or new"); `false` marks a would-be new block (the ones to
    /// review as possible false blocks). `None` for other verdicts and for
    /// a tool event whose call is not recorded.
    pub blocked_then: Option<bool>,
    /// Set when the rule matched on a command not parsed whole (its
    /// [`crate::hooks::rules::RuleEval::unread`]): what was not parsed, e.g.
    /// `command not parsed whole: 70672 bytes, 5136 not parsed`. Such a
    /// match may rest on raw text (docs/rules.md "Rule sets": the long-command
    /// rule). Omitted from JSON when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_parsed_whole: Option<String>,
}

/// A rule's tally over a backtest: per verdict, how many events it matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct RuleTally {
    /// The rule id.
    pub id: String,
    /// Events per verdict (`block`, `warn`, `context`, `allow`, `rewrite`),
    /// only verdicts that occurred.
    pub counts: BTreeMap<String, usize>,
    /// The denominator: firings of the rule's events in the sessions the
    /// backtest loaded (those the line prefilter ruled out included: no rule
    /// matches them); sessions skipped unloaded ([`Backtest::skipped`]) are
    /// not counted.
    pub evaluated: usize,
    /// Of its `block`s, those on calls the transcript shows blocked by a
    /// hook at the time ([`Example::blocked_then`] `Some(true)`).
    pub blocks_then: usize,
    /// Of its `block`s, those on calls no hook blocked at the time: the
    /// would-be new blocks ([`Example::blocked_then`] `Some(false)`).
    pub blocks_new: usize,
    /// Of its matches (every verdict), those on a command not parsed whole
    /// ([`Example::not_parsed_whole`]): a guard matches such a command on
    /// its raw text, so these are the ones to review.
    pub not_parsed_whole: usize,
    /// The events it matched, in session order: the first
    /// [`KEPT_EXAMPLES`] per verdict (fewer after
    /// [`Backtest::cap_examples`]).
    pub examples: Vec<Example>,
    /// Matched events not in `examples` (past the cap), all verdicts;
    /// omitted from JSON when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub examples_left_out: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The result of running every event of many sessions through a rule set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Backtest {
    /// Sessions looked at (skipped ones included): those whose hook
    /// payloads are rebuilt ([`crate::hooks::events::rebuilds`]: Claude
    /// Code and Droid).
    pub sessions: usize,
    /// Sessions skipped by the prefilters without loading ([`could_match`],
    /// or no candidate line of a [`LineFilter`]).
    pub skipped: usize,
    /// Sessions that could not be read or loaded (left out of the counts).
    pub unreadable: usize,
    /// Why, per such session: `"<path>: <error>"` (the file that failed),
    /// in the order the sessions were given.
    pub unreadable_files: Vec<String>,
    /// Sessions of agents whose payloads are not rebuilt (Codex,
    /// OpenCode) passed in and left out, per agent
    /// ([`Agent::as_str`]: `"codex"` → 1); agents with none are absent.
    /// Not counted in `sessions`.
    pub left_out: BTreeMap<String, usize>,
    /// Events evaluated (payloads of the events the rules name that were
    /// rebuilt: a [`LineFilter`] leaves out the calls no rule can match).
    pub events: usize,
    /// Firings per event name in the sessions loaded, those a
    /// [`LineFilter`] left out included (the rules' denominators).
    pub by_event: BTreeMap<String, usize>,
    /// Per rule, in the rule set's evaluation order.
    pub rules: Vec<RuleTally>,
    /// The merged decision over all rules, per verdict.
    pub combined: BTreeMap<String, usize>,
}

impl Backtest {
    /// An empty tally for `rules`.
    pub fn new(rules: &RuleSet) -> Backtest {
        Backtest {
            rules: rules
                .rules
                .iter()
                .map(|r| RuleTally {
                    id: r.id.clone(),
                    ..RuleTally::default()
                })
                .collect(),
            ..Backtest::default()
        }
    }

    /// Adds `other` (a later batch of sessions) to this tally: counts sum,
    /// examples are appended in order.
    pub fn merge(&mut self, other: Backtest) {
        self.sessions += other.sessions;
        self.skipped += other.skipped;
        self.unreadable += other.unreadable;
        self.unreadable_files.extend(other.unreadable_files);
        for (k, n) in other.left_out {
            *self.left_out.entry(k).or_default() += n;
        }
        self.events += other.events;
        for (k, n) in other.combined {
            *self.combined.entry(k).or_default() += n;
        }
        for (k, n) in other.by_event {
            *self.by_event.entry(k).or_default() += n;
        }
        for (mine, theirs) in self.rules.iter_mut().zip(other.rules) {
            for (k, n) in theirs.counts {
                *mine.counts.entry(k).or_default() += n;
            }
            mine.evaluated += theirs.evaluated;
            mine.blocks_then += theirs.blocks_then;
            mine.blocks_new += theirs.blocks_new;
            mine.not_parsed_whole += theirs.not_parsed_whole;
            mine.examples.extend(theirs.examples);
            mine.examples_left_out += theirs.examples_left_out;
        }
    }

    /// Keeps the first `per_verdict` examples of each rule and verdict
    /// (session order), counting the others in
    /// [`RuleTally::examples_left_out`]; the counts are unchanged.
    pub fn cap_examples(&mut self, per_verdict: usize) {
        for t in &mut self.rules {
            let mut seen: BTreeMap<String, usize> = BTreeMap::new();
            let before = t.examples.len();
            t.examples.retain(|e| {
                let n = seen.entry(e.verdict.clone()).or_default();
                *n += 1;
                *n <= per_verdict
            });
            t.examples_left_out += before - t.examples.len();
        }
    }
}

/// The call a tool event's payload concerns: its `tool_use_id`, else the
/// call it was rebuilt for (a Droid payload has no such field,
/// [`Payload::call_id`]).
fn call_id_of(p: &Payload) -> Option<&str> {
    p.json
        .get("tool_use_id")
        .and_then(Value::as_str)
        .or(p.call_id.as_deref())
}

/// Whether the transcript shows a hook taking, at the time, the effect a
/// `block` at `p` takes (docs/replay.md "Blocked then, or new"):
/// * before a call ran (PreToolUse, PermissionRequest): a hook blocked the
///   call (a [`HookAction::Blocked`] PreToolUse/PermissionRequest firing,
///   or a `permissionDecision` rejection a hook caused: a `deny`, or an
///   `ask` that no one could answer);
/// * after it ran (PostToolUse, PostToolUseFailure): a hook objected
///   ([`HookAction::Flagged`]);
/// * any other event: a [`HookAction::Blocked`] firing of that event at
///   `p`'s place ([`activity_at`]: a Stop block, a rejected prompt).
///
/// `None` when `p` is a tool event whose call is not recorded.
fn blocked_then(session: &Session, p: &Payload) -> Option<bool> {
    use crate::transcript::hook_activity::HookAction;
    let Some(id) = call_id_of(p) else {
        return Some(
            activity_at(session, p)
                .iter()
                .any(|h| h.action == HookAction::Blocked),
        );
    };
    let thread = thread_of(session, p);
    let record = match thread.and_then(|i| session.subagents.get(i)) {
        Some(s) => s.tool_calls().find(|r| r.tool_use_id == id),
        None => session.tool_calls().find(|r| r.tool_use_id == id),
    }?;
    let mut firings = session.hooks_of_call(thread, record);
    if matches!(
        p.event,
        EventName::PostToolUse | EventName::PostToolUseFailure
    ) {
        return Some(firings.any(|h| {
            h.after_call() && matches!(h.action, HookAction::Flagged | HookAction::Blocked)
        }));
    }
    let by_hook = session
        .thread_lines(thread)
        .permission_decisions
        .get(id)
        .is_some_and(|d| {
            d.get("decision").and_then(Value::as_str) == Some("reject")
                && (d.get("source").and_then(Value::as_str) == Some("hook")
                    || d.get("reasonCode")
                        .and_then(Value::as_str)
                        .is_some_and(|c| c.starts_with("hook:")))
        });
    Some(
        by_hook
            || firings.any(|h| {
                h.action == HookAction::Blocked
                    && matches!(h.event.as_deref(), Some("PreToolUse" | "PermissionRequest"))
            }),
    )
}

/// Whether any rule needs the session history (a `prompt`, `touched_file`
/// or `ran_command` condition).
fn needs_history(rules: &RuleSet) -> bool {
    rules.rules.iter().any(|r| {
        r.only_if.iter().chain(&r.skip_if).any(|c| {
            matches!(
                c,
                Condition::Prompt(_) | Condition::TouchedFile(..) | Condition::RanCommand(_)
            )
        })
    })
}

/// The prefilter of a backtest: whether any rule of `rules` can match an
/// event of a session whose files' bytes are `files`.
///
/// A rule without a `tool` spec can always match. A rule with one matches
/// only payloads whose `tool_name` passes [`crate::tools::tool_name_matches`]:
/// the name is one of [`expand_tool_names`] of the spec (aliases and
/// `MCP_BEHAVES_LIKE` segments included) or an `mcp__<server>__<name>` that
/// ends in one. Either way that name is a substring of the `tool_use`
/// block's `name`, which Claude Code writes as-is (tool names are ASCII
/// letters, digits, `_` and `-`, which JSON never escapes). So a session in
/// whose files none of the spec's names occurs cannot be matched by that
/// rule.
///
/// A rule whose `only_if` has an `input_contains` whose values are all
/// plain ([`crate::query::prefilter::is_plain`]: printable ASCII without
/// `"`, `\`, `<`, `>`, `&`, which no JSON writer escapes) matches only a
/// payload whose `tool_input` holds a string containing one of them, and
/// `tool_input` is the recorded `tool_use` input, so one of the values occurs
/// in the files' bytes as is. When neither kind of needle occurs for any
/// rule, the session is skipped unloaded.
pub fn could_match(rules: &RuleSet, files: &[&[u8]]) -> bool {
    let occurs = |needle: &str| {
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        files.iter().any(|f| finder.find(f).is_some())
    };
    rules.rules.iter().any(|r| {
        let tool_ok = match &r.tool {
            None => true,
            Some(spec) => expand_tool_names(spec).iter().any(|n| occurs(n)),
        };
        let input_ok = r.only_if.iter().all(|c| match c {
            Condition::InputContains(needles) if needles.iter().all(|n| is_plain(n)) => {
                needles.iter().any(|n| occurs(n))
            }
            _ => true,
        });
        tool_ok && input_ok
    })
}

/// The names [`could_match`] looks for when every rule names a tool: the
/// union of [`expand_tool_names`] of each rule's `tool` spec; `None` when a
/// rule names no tool (it may match any session's events). A session none
/// of whose calls has a name containing one of these cannot be matched by
/// any rule (see [`could_match`]).
pub fn tool_names_needed(rules: &RuleSet) -> Option<std::collections::BTreeSet<String>> {
    let mut out = std::collections::BTreeSet::new();
    for r in &rules.rules {
        out.extend(expand_tool_names(r.tool.as_deref()?));
    }
    Some(out)
}

/// The events a rule set names, in [`EventName::ALL`] order (unknown names
/// cannot occur: the loader refuses them).
pub fn rule_events(rules: &RuleSet) -> Vec<EventName> {
    EventName::ALL
        .iter()
        .copied()
        .filter(|e| {
            rules
                .rules
                .iter()
                .any(|r| r.events.iter().any(|n| n == e.as_str()))
        })
        .collect()
}

fn summary_of(p: &Payload) -> String {
    let j = &p.json;
    let s = |k: &str| j.get(k).and_then(Value::as_str);
    let input = j.get("tool_input");
    let one_line = |t: &str| {
        let t = t.replace('\n', "⏎");
        if t.chars().count() > 80 {
            format!("{}…", t.chars().take(80).collect::<String>())
        } else {
            t
        }
    };
    if let Some(tool) = s("tool_name") {
        let detail = input
            .and_then(|i| {
                ["command", "file_path", "notebook_path", "path", "pattern"]
                    .iter()
                    .find_map(|k| i.get(*k).and_then(Value::as_str))
            })
            .map(one_line)
            .unwrap_or_default();
        return format!("{tool} {detail}").trim_end().to_string();
    }
    if let Some(prompt) = s("prompt") {
        return one_line(prompt);
    }
    if let Some(msg) = s("last_assistant_message") {
        return format!("after: {}", one_line(msg));
    }
    p.event.to_string()
}

/// Runs every event of `session` named by `rules` through them and tallies
/// per rule (a [`Backtest`] of one session, not counting it as skipped).
/// A session whose payloads are not rebuilt (Codex, OpenCode) is only
/// counted in [`Backtest::left_out`].
pub fn backtest_session(session: &Session, rules: &RuleSet) -> Backtest {
    if !crate::hooks::events::rebuilds(session.agent) {
        let mut bt = Backtest::new(rules);
        bt.left_out.insert(session.agent.as_str().to_string(), 1);
        return bt;
    }
    backtest_calls(session, rules, None)
}

/// [`backtest_session`] with the firings of the events a [`LineFilter`]
/// narrows restricted to the calls of its candidate lines (`None`: every
/// firing): no other firing of those events can be matched by a rule, so
/// the tallies and examples are those of the whole session, and
/// [`Backtest::events`] counts the firings evaluated.
fn backtest_calls(
    session: &Session,
    rules: &RuleSet,
    only: Option<(&LineFilter, &HashSet<String>)>,
) -> Backtest {
    let mut bt = Backtest::new(rules);
    // Payloads carry the resolved path of the file they are anchored in.
    let main_path = std::fs::canonicalize(&session.path).unwrap_or_else(|_| session.path.clone());
    bt.sessions = 1;
    let index = needs_history(rules).then(|| HistoryIndex::new(session));
    let seen = std::cell::RefCell::new(BTreeMap::<String, usize>::new());
    let keep = |event: EventName, ids: &[String]| {
        *seen.borrow_mut().entry(event.to_string()).or_default() += 1;
        only.is_none_or(|(filter, only)| {
            !filter.narrows(event) || ids.iter().any(|i| only.contains(i))
        })
    };
    let payloads = payloads_where(session, &rule_events(rules), &keep);
    bt.by_event = seen.into_inner();
    for (tally, rule) in bt.rules.iter_mut().zip(&rules.rules) {
        tally.evaluated = rule.events.iter().filter_map(|e| bt.by_event.get(e)).sum();
    }
    for p in payloads {
        let event = p.event;
        bt.events += 1;
        let history = index
            .as_ref()
            .map_or_else(History::default, |ix| ix.before(&p));
        let eval = evaluate(rules, &p, &history);
        let v = eval.verdict();
        if v != "none" {
            *bt.combined.entry(v.to_string()).or_default() += 1;
        }
        for (tally, re) in bt.rules.iter_mut().zip(&eval.rules) {
            let Some(result) = &re.result else {
                continue;
            };
            let v = verdict(result).to_string();
            *tally.counts.entry(v.clone()).or_default() += 1;
            let tool_use_id = call_id_of(&p).map(str::to_string);
            let then = (v == "block").then(|| blocked_then(session, &p)).flatten();
            match then {
                Some(true) => tally.blocks_then += 1,
                Some(false) => tally.blocks_new += 1,
                None => {}
            }
            if re.unread.is_some() {
                tally.not_parsed_whole += 1;
            }
            tally.examples.push(Example {
                session: short_session_id(&session.id).to_string(),
                event: event.to_string(),
                at: tool_use_id.clone().or_else(|| {
                    if p.source_path == main_path {
                        Some(format!("line:{}", p.source_line))
                    } else {
                        p.json
                            .get("agent_id")
                            .and_then(Value::as_str)
                            .filter(|a| !a.is_empty())
                            .map(|a| format!("line:agent-{a}:{}", p.source_line))
                    }
                }),
                tool_use_id,
                summary: summary_of(&p),
                verdict: v,
                source: format!("{}:{}", p.source_path.display(), p.source_line),
                blocked_then: then,
                not_parsed_whole: re.unread.clone(),
            });
        }
    }
    bt
}

/// Backtests `sessions` (already loaded) in order; see [`backtest_session`].
pub fn backtest(sessions: &[Session], rules: &RuleSet) -> Backtest {
    let mut bt = Backtest::new(rules);
    for s in sessions {
        bt.merge(backtest_session(s, rules));
        bt.cap_examples(KEPT_EXAMPLES);
    }
    bt
}

// ---- backtest line prefilter ---------------------------------------------

/// The events whose payloads carry the call's `tool_name` and `tool_input`
/// as the `tool_use` block recorded them (one call each).
const CALL_EVENTS: &[&str] = &[
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
];

/// Characters a Bash command can hold inside one argv word that
/// [`crate::tools::argv_to_command`] would not quote (`[A-Za-z0-9_@%+=:,./-]`):
/// a regex literal is cut at every other character into pieces.
fn shell_safe(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b)
}

/// The literal pieces a match of one of `res` must hold (an alternative
/// per literal, each a list of pieces that must all occur), from
/// regex-syntax's prefix extraction: when the sequence is finite, every
/// match starts with one of its literals. `None` when a regex cannot be
/// narrowed (infinite or empty sequence, an empty literal, non-UTF-8 bytes,
/// a literal without a piece).
fn regex_alternatives(res: &[regex::Regex]) -> Option<Vec<Vec<String>>> {
    use regex_syntax::hir::literal::Extractor;
    let mut out = Vec::new();
    for r in res {
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(r.as_str())
            .ok()?;
        let seq = Extractor::new().extract(&hir);
        let lits = seq.literals()?;
        if lits.is_empty() {
            return None;
        }
        for lit in lits {
            let text = std::str::from_utf8(lit.as_bytes()).ok()?;
            let pieces: Vec<String> = text
                .split(|c: char| !c.is_ascii() || !shell_safe(c as u8))
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect();
            if pieces.is_empty() {
                return None;
            }
            out.push(pieces);
        }
    }
    Some(out)
}

/// One alternative of a [`LineFilter`] group: pieces that must all occur.
type Alternative = Vec<memchr::memmem::Finder<'static>>;

/// The line-level prefilter of a backtest (`find`'s idea):
/// which `tool_use` lines can hold a call one of the rules acts on.
///
/// A rule is narrowed when it names only call events (PreToolUse,
/// PermissionRequest, PostToolUse, PostToolUseFailure), whose payloads carry
/// the recorded `tool_use` block's `name` and `input`, and has at least one
/// needle; the firings of a call event only narrowed rules name are
/// restricted to the candidate calls, every other rule keeps its events
/// whole ([`LineFilter::rest`]). A rule's needles, each a group of
/// alternatives one of which must occur in the call's block:
/// * its `tool` spec: one of [`expand_tool_names`] (as [`could_match`]
///   explains, one of them is a substring of the block's `name`);
/// * an `only_if` `input_contains` whose values are all plain
///   ([`is_plain`]): one of the values, as is (a substring of a string of
///   the recorded input, which Claude Code's writer escapes only at `"`,
///   `\` and control characters);
/// * an `only_if` `command` whose regexes all narrow: a literal every
///   match starts with (regex-syntax's prefix extraction), cut into pieces
///   at every character outside `[A-Za-z0-9_@%+=:,./-]` (so a piece lies in
///   one word even of a command joined from a Codex argv), all pieces of one
///   of the literals.
///
/// A *candidate* line holds the JSON string `"tool_use"` (the block's
/// `type`) and, for some rule, one alternative of each of its groups
/// (byte-exact, case-sensitive; a case-insensitive regex extracts its case
/// variants, or does not narrow). A candidate line is parsed, and a
/// *candidate call* is one of its `tool_use` blocks whose `name` holds a
/// tool-name alternative and whose `input` (re-serialized) the other groups'
/// (so `"gitBranch"` in the line's envelope does not make every call a
/// candidate for `git`). Only the candidate calls are rebuilt and
/// evaluated; a session without one is skipped unloaded. Other conditions (`program`,
/// `file_path`, history, …) never narrow. Not covered, as for `find`'s
/// prefilter: a writer that `\u`-escapes plain ASCII or writes `/` as
/// `\/` (Claude Code does neither).
#[derive(Debug, Clone)]
pub struct LineFilter {
    /// Per narrowed rule, its groups; each group's alternatives.
    /// (`true`: the group is on the block's `name`, else on its `input`).
    rules: Vec<Vec<(bool, Vec<Alternative>)>>,
    /// The call events only narrowed rules name.
    events: Vec<EventName>,
    /// The rules that cannot be narrowed.
    rest: RuleSet,
    tool_use: memchr::memmem::Finder<'static>,
}

impl LineFilter {
    /// The filter for `rules`: the rules that can be narrowed (see the
    /// type's docs) give the needles; the others are kept whole
    /// ([`LineFilter::rest`]). `None` when no event is named only by
    /// narrowed rules (then the backtest loads every session [`could_match`]
    /// lets through and evaluates all its events).
    pub fn new(rules: &RuleSet) -> Option<LineFilter> {
        let finder = |s: &str| memchr::memmem::Finder::new(s.as_bytes()).into_owned();
        let mut narrowed = Vec::new();
        let mut rest = RuleSet::default();
        for r in &rules.rules {
            let mut groups: Vec<(bool, Vec<Alternative>)> = Vec::new();
            if let Some(spec) = &r.tool {
                groups.push((
                    true,
                    expand_tool_names(spec)
                        .iter()
                        .map(|n| vec![finder(n)])
                        .collect(),
                ));
            }
            for c in &r.only_if {
                match c {
                    Condition::InputContains(values) if values.iter().all(|v| is_plain(v)) => {
                        groups.push((false, values.iter().map(|v| vec![finder(v)]).collect()));
                    }
                    Condition::Command(res) => {
                        if let Some(alts) = regex_alternatives(res) {
                            groups.push((
                                false,
                                alts.iter()
                                    .map(|pieces| pieces.iter().map(|p| finder(p)).collect())
                                    .collect(),
                            ));
                        }
                    }
                    _ => {}
                }
            }
            let calls_only =
                !r.events.is_empty() && r.events.iter().all(|e| CALL_EVENTS.contains(&e.as_str()));
            if calls_only && !groups.is_empty() {
                narrowed.push((r, groups));
            } else {
                rest.rules.push(r.clone());
            }
        }
        let events: Vec<EventName> = EventName::ALL
            .iter()
            .copied()
            .filter(|e| CALL_EVENTS.contains(&e.as_str()))
            .filter(|e| {
                let named =
                    |r: &crate::hooks::rules::Rule| r.events.iter().any(|n| n == e.as_str());
                narrowed.iter().any(|(r, _)| named(r)) && !rest.rules.iter().any(named)
            })
            .collect();
        if events.is_empty() {
            return None;
        }
        Some(LineFilter {
            rules: narrowed.into_iter().map(|(_, g)| g).collect(),
            events,
            rest,
            tool_use: finder("\"tool_use\""),
        })
    }

    /// The rules that cannot be narrowed (their events are evaluated at
    /// every firing, and a session is skipped only when [`could_match`]
    /// rules them out too).
    pub fn rest(&self) -> &RuleSet {
        &self.rest
    }

    /// Whether the firings of `event` are narrowed to the candidate calls
    /// (only narrowed rules name it).
    pub fn narrows(&self, event: EventName) -> bool {
        self.events.contains(&event)
    }

    /// Whether some rule's groups all hold, each in `name` or `input`.
    fn holds(&self, name: &[u8], input: &[u8]) -> bool {
        self.rules.iter().any(|groups| {
            groups.iter().all(|(on_name, alts)| {
                let hay = if *on_name { name } else { input };
                alts.iter()
                    .any(|pieces| pieces.iter().all(|f| f.find(hay).is_some()))
            })
        })
    }

    /// Adds the `tool_use` block ids of `file`'s candidate lines to `ids`.
    /// `false` when a candidate line does not parse as a JSON object (a
    /// truncated line, bad bytes): the caller then evaluates the whole
    /// session, as without the filter.
    pub fn candidate_ids(&self, file: &[u8], ids: &mut HashSet<String>) -> bool {
        let mut ok = true;
        let mut next_start = 0;
        for hit in self.tool_use.find_iter(file) {
            if hit < next_start {
                continue; // same line as the previous hit
            }
            let start = memchr::memrchr(b'\n', &file[..hit]).map_or(0, |i| i + 1);
            let end = memchr::memchr(b'\n', &file[hit..]).map_or(file.len(), |i| hit + i);
            next_start = end;
            let line = &file[start..end];
            // Quick reject: every group somewhere on the line.
            if !self.holds(line, line) {
                continue;
            }
            match serde_json::from_slice::<Value>(line) {
                Ok(v) => {
                    let blocks = v
                        .pointer("/message/content")
                        .and_then(Value::as_array)
                        .map(Vec::as_slice)
                        .unwrap_or_default();
                    for b in blocks {
                        if b.get("type").and_then(Value::as_str) != Some("tool_use") {
                            continue;
                        }
                        let Some(id) = b.get("id").and_then(Value::as_str) else {
                            continue;
                        };
                        // Then on the block itself: the name groups on its
                        // `name`, the others on its `input` re-serialized
                        // (serde_json escapes only `"`, `\` and control
                        // characters, none of which a needle holds), so the
                        // envelope (`cwd`, `gitBranch`, …) cannot make a
                        // call a candidate. A block whose name is not a
                        // string is kept (the loader decides).
                        let Some(name) = b.get("name").and_then(Value::as_str) else {
                            ids.insert(id.to_string());
                            continue;
                        };
                        let input = b.get("input").map(Value::to_string).unwrap_or_default();
                        if self.holds(name.as_bytes(), input.as_bytes()) {
                            ids.insert(id.to_string());
                        }
                    }
                }
                Err(_) => ok = false,
            }
        }
        ok
    }
}

/// How [`backtest_refs_with`] narrows its work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefilter {
    /// [`could_match`] on each session's bytes, then (when the rules allow
    /// it) the [`LineFilter`]: the default.
    On,
    /// Load every session and evaluate all its events (the reference the
    /// prefilter is tested against).
    Off,
}

/// Backtests discovered sessions in parallel (rayon) with the prefilters
/// on; see [`backtest_refs_with`].
pub fn backtest_refs(
    sessions: &[SessionRef],
    rules: &RuleSet,
    progress: &(dyn Fn(usize) + Sync),
) -> Backtest {
    backtest_refs_with(sessions, rules, progress, Prefilter::On)
}

/// Backtests discovered sessions in parallel (rayon), those whose hook
/// payloads are rebuilt only ([`crate::hooks::events::rebuilds`]: Claude
/// Code and Droid; the others are counted in [`Backtest::left_out`]). Each
/// session's files (main transcript and subagent files, each at most
/// [`crate::hooks::events::MAX_FILE_BYTES`]) are first scanned by
/// [`could_match`]; a session no rule can match is counted in
/// [`Backtest::skipped`] without being loaded. A session with a larger or
/// unreadable file is loaded without the scan (the loader streams big
/// files; one it cannot load is counted in [`Backtest::unreadable`] and
/// named in [`Backtest::unreadable_files`]). Results are merged in the
/// order of `sessions`, so the examples do not depend on thread timing.
/// `progress` is called with the number of sessions done after each one
/// (from any thread). With [`Prefilter::On`] the tallies, examples and
/// `sessions`/`unreadable` are those of [`Prefilter::Off`]; `skipped` and
/// `events` say how much work was saved.
pub fn backtest_refs_with(
    sessions: &[SessionRef],
    rules: &RuleSet,
    progress: &(dyn Fn(usize) + Sync),
    prefilter: Prefilter,
) -> Backtest {
    backtest_refs_known(sessions, rules, progress, prefilter, &[])
}

/// [`backtest_refs`], counting session `i` as skipped unread when
/// `skip[i]` (missing entries: not skipped): what the persisted index
/// knows cannot match (`crate::service::skipped_by_index`). Tallies,
/// examples and `sessions` are those of [`backtest_refs`] when the mask
/// is right; `skipped` may be higher.
pub fn backtest_refs_skipping(
    sessions: &[SessionRef],
    rules: &RuleSet,
    progress: &(dyn Fn(usize) + Sync),
    skip: &[bool],
) -> Backtest {
    backtest_refs_known(sessions, rules, progress, Prefilter::On, skip)
}

fn backtest_refs_known(
    sessions: &[SessionRef],
    rules: &RuleSet,
    progress: &(dyn Fn(usize) + Sync),
    prefilter: Prefilter,
    skip: &[bool],
) -> Backtest {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let done = AtomicUsize::new(0);
    let claude: Vec<(&SessionRef, bool)> = sessions
        .iter()
        .enumerate()
        .filter(|(_, s)| crate::hooks::events::rebuilds(s.agent))
        .map(|(i, s)| (s, skip.get(i).copied().unwrap_or(false)))
        .collect();
    let lines = match prefilter {
        Prefilter::On => LineFilter::new(rules),
        Prefilter::Off => None,
    };
    let mut total = Backtest::new(rules);
    for s in sessions
        .iter()
        .filter(|s| !crate::hooks::events::rebuilds(s.agent))
    {
        *total
            .left_out
            .entry(s.agent.as_str().to_string())
            .or_default() += 1;
    }
    // In chunks, merged in order and capped after each, so the examples
    // held at once stay bounded ([`KEPT_EXAMPLES`]) whatever the corpus.
    for chunk in claude.chunks(1024) {
        let parts: Vec<Backtest> = chunk
            .par_iter()
            .map(|&(r, skip)| {
                let mut bt = if skip {
                    let mut bt = Backtest::new(rules);
                    bt.sessions = 1;
                    bt.skipped = 1;
                    bt
                } else {
                    backtest_ref(r, rules, prefilter, lines.as_ref())
                };
                bt.cap_examples(KEPT_EXAMPLES);
                progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                bt
            })
            .collect();
        for part in parts {
            total.merge(part);
        }
        total.cap_examples(KEPT_EXAMPLES);
    }
    total
}

/// One session of [`backtest_refs_with`]: prefilter, load, tally.
fn backtest_ref(
    r: &SessionRef,
    rules: &RuleSet,
    prefilter: Prefilter,
    lines: Option<&LineFilter>,
) -> Backtest {
    let mut bt = Backtest::new(rules);
    bt.sessions = 1;
    let load = |only: Option<(&LineFilter, &HashSet<String>)>| match crate::transcript::load(r) {
        Ok(session) => backtest_calls(&session, rules, only),
        Err(e) => {
            let mut bt = Backtest::new(rules);
            bt.sessions = 1;
            bt.unreadable = 1;
            bt.unreadable_files
                .push(format!("{}: {e}", r.path.display()));
            bt
        }
    };
    if prefilter == Prefilter::Off {
        return load(None);
    }
    let read = |p: &std::path::Path| read_capped(p, MAX_FILE_BYTES);
    let mut files = Vec::with_capacity(1 + r.subagent_files.len());
    for p in std::iter::once(&r.path).chain(&r.subagent_files) {
        match read(p) {
            Ok(bytes) => files.push(bytes),
            // Over the prefilter's cap (a heavy user's 301 MB session), or
            // a file the loader may still cope with (a subagent file gone:
            // a diagnostic): no prefilter, the loader decides.
            Err(_) => return load(None),
        }
    }
    let slices: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
    if !could_match(rules, &slices) {
        bt.skipped = 1;
        return bt;
    }
    let Some(filter) = lines else {
        drop(files);
        return load(None);
    };
    let mut ids = HashSet::new();
    let mut parsed = true;
    for f in &slices {
        parsed &= filter.candidate_ids(f, &mut ids);
    }
    if parsed && ids.is_empty() && !could_match(filter.rest(), &slices) {
        bt.skipped = 1;
        return bt;
    }
    drop(files);
    load(parsed.then_some((filter, &ids)))
}
