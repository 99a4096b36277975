//! Factory Droid's hook payloads rebuilt from its transcript
//! (real-droid-0.225.2 README "Hooks"; docs/contract.md#factory-droid-hooks). Droid sends
//! Claude Code's older shape with its own fields; every captured payload of
//! the corpus (`runs/*/hooks/<Event>.jsonl`, field `stdin`) is compared
//! with these in `tests/cli/droid_hooks.rs`.
//!
//! Every payload: `session_id`, `transcript_path`, `cwd` (the
//! `session_start.cwd`), `permission_mode` (the `<uuid>.settings.json`
//! `autonomyMode`, e.g. `auto-high`; `off` at SessionStart, as every
//! capture shows), `hook_event_name`; then per event:
//!
//! * PreToolUse (every call, errors included): `tool_name` as Droid spells
//!   it (`Execute`, `Create`), `tool_input` as recorded. No `tool_use_id`
//!   (Droid sends none; its hook line has `hookToolCallId`).
//! * PostToolUse (only for a result without `is_error`: Droid fires it for
//!   successful tools only): + `tool_response`, the result text.
//! * UserPromptSubmit (each prompt): `prompt`. Not captured in the corpus
//!   (it never fired in `exec` runs); the field is Claude Code's.
//! * Stop (the end of each prompt turn): `message_id` (the `id` of the last
//!   message before it that is neither a hook line nor injected context),
//!   `stop_hook_active` (`true` only after a Stop firing of the same turn
//!   that blocked). `tool_execution_count` and `elapsed_time` are left out.
//! * SessionStart (line 1): `source: "startup"`. `CLAUDE_ENV_FILE` (a
//!   temporary file of the live process) is left out.
//! * SessionEnd (the last line): `message_id` as for Stop, `message_count`
//!   (the `message` lines before the SessionEnd hook line, else all of
//!   them). `reason` and `session_duration_ms` are left out.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::{EventName, LeftOut, Payload, Point, thread_path};
use crate::transcript::hook_activity::HookAction;
use crate::transcript::{Event, Session};

/// The events rebuilt for a Droid session; the others Droid has
/// (Notification, SubagentStop, PreCompact) are not recorded enough.
pub(super) const REBUILT: &[EventName] = &[
    EventName::PreToolUse,
    EventName::PostToolUse,
    EventName::UserPromptSubmit,
    EventName::Stop,
    EventName::SessionStart,
    EventName::SessionEnd,
];

const STOP_COUNT: &str = "Droid's tool_execution_count does not follow from the transcript (0 in five corpus runs that ran tools, 1 in the denied run)";
const STOP_ELAPSED: &str = "the live process's timing (ms); not written to the transcript";
const END_REASON: &str =
    "why the session ended (other, prompt_input_exit, …) is not written to the transcript";
const END_DURATION: &str = "the live process's run time (ms); not written to the transcript";
const ENV_FILE: &str = "a temporary file the live process creates (--exec makes a fresh one)";

/// The last message line before `bound` that is neither a hook line nor
/// injected context: `(line, id)`.
fn last_message<'a>(
    messages: &'a [(usize, &'a str)],
    hooks: &HashSet<usize>,
    bound: usize,
) -> Option<(usize, &'a str)> {
    messages
        .iter()
        .rev()
        .find(|(l, id)| *l < bound && !hooks.contains(l) && !id.starts_with("context-"))
        .copied()
}

/// Walks a Droid session's main thread into its points.
pub(super) fn points(session: &Session) -> Vec<Point<'_>> {
    let lines = &session.lines;
    let hooks: HashSet<usize> = lines.hooks_by_line.keys().copied().collect();
    let mut messages: Vec<(usize, &str)> = lines
        .uuids
        .iter()
        .map(|(id, l)| (*l, id.as_str()))
        .collect();
    messages.sort_unstable();
    let end = messages.last().map_or(1, |(l, _)| *l);
    let mut out = Vec::new();
    let mut start = Point::new(EventName::SessionStart, None, 1, 1, 0)
        .field("source", json!("startup"))
        .field("permission_mode", json!("off"))
        .unknown("CLAUDE_ENV_FILE", ENV_FILE);
    start.no_prompt_id = true;
    out.push(start);
    let prompts: Vec<usize> = session.turns.iter().filter_map(|t| t.prompt_line).collect();
    for (t, turn) in session.turns.iter().enumerate() {
        if let Some(line) = turn.prompt_line {
            out.push(
                Point::new(EventName::UserPromptSubmit, None, line, line, t)
                    .field("prompt", json!(turn.prompt)),
            );
        }
        for event in &turn.events {
            let Event::ToolCall(r) = event else {
                continue;
            };
            let input = r.call.raw().cloned().unwrap_or_else(|| json!({}));
            let mut pre = Point::new(EventName::PreToolUse, None, r.line, r.line, t)
                .field("tool_name", json!(r.name()))
                .field("tool_input", input.clone());
            pre.tool_use_ids.push(r.tool_use_id.clone());
            out.push(pre);
            if let Some(result) = r.result.as_ref().filter(|x| !x.is_error) {
                let mut post =
                    Point::new(EventName::PostToolUse, None, result.line, result.line, t)
                        .field("tool_name", json!(r.name()))
                        .field("tool_input", input)
                        .field("tool_response", json!(result.text));
                post.tool_use_ids.push(r.tool_use_id.clone());
                out.push(post);
            }
        }
        let Some(prompt) = turn.prompt_line else {
            continue;
        };
        let bound = prompts
            .iter()
            .find(|&&p| p > prompt)
            .copied()
            .unwrap_or(end + 1);
        let Some((line, id)) = last_message(&messages, &hooks, bound) else {
            continue;
        };
        let active = lines.hook_activity.iter().any(|h| {
            h.turn == t
                && h.event.as_ref().is_some_and(|e| e.is(EventName::Stop))
                && h.action == HookAction::Blocked
        });
        out.push(
            Point::new(EventName::Stop, None, line, line, t)
                .field("message_id", json!(id))
                .field("stop_hook_active", json!(active))
                .unknown("tool_execution_count", STOP_COUNT)
                .unknown("elapsed_time", STOP_ELAPSED),
        );
    }
    let end_hook = lines
        .hook_activity
        .iter()
        .find(|h| {
            h.event
                .as_ref()
                .is_some_and(|e| e.is(EventName::SessionEnd))
        })
        .map(|h| h.line());
    let count_bound = end_hook.unwrap_or(end + 1);
    let count = messages.iter().filter(|(l, _)| *l < count_bound).count();
    let last_turn = session.turns.len().saturating_sub(1);
    let mut end_point = Point::new(EventName::SessionEnd, None, end, end, last_turn);
    if let Some((_, id)) = last_message(&messages, &hooks, count_bound) {
        end_point = end_point.field("message_id", json!(id));
    }
    out.push(
        end_point
            .field("message_count", json!(count))
            .unknown("reason", END_REASON)
            .unknown("session_duration_ms", END_DURATION),
    );
    out.sort_by_key(|p| p.main_line);
    out
}

/// Lays a point out as Droid's JSON: the five common fields in Droid's
/// order, then the event's.
pub(super) fn render(session: &Session, p: &Point, transcript_path: &str) -> Payload {
    let ctx = session
        .lines
        .context_at(p.ctx_line)
        .cloned()
        .unwrap_or_default();
    let mut json = Map::new();
    let mut left_out: Vec<LeftOut> = Vec::new();
    let own = |k: &str| {
        p.fields
            .iter()
            .find(|(f, _)| *f == k)
            .map(|(_, v)| v.clone().into_owned())
    };
    json.insert("session_id".into(), json!(session.id));
    json.insert("transcript_path".into(), json!(transcript_path));
    match &ctx.cwd {
        Some(c) => {
            json.insert("cwd".into(), json!(c));
        }
        None => left_out.push(LeftOut {
            field: "cwd".into(),
            reason: "session_start records no cwd".into(),
        }),
    }
    match own("permission_mode").or_else(|| ctx.permission_mode.as_ref().map(|m| json!(m))) {
        Some(m) => {
            json.insert("permission_mode".into(), m);
        }
        None => left_out.push(LeftOut {
            field: "permission_mode".into(),
            reason: "the session's settings file records no autonomyMode".into(),
        }),
    }
    json.insert("hook_event_name".into(), json!(p.event.as_str()));
    for (k, v) in &p.fields {
        if *k != "permission_mode" {
            json.insert((*k).to_string(), v.clone().into_owned());
        }
    }
    for (k, reason) in &p.left_out {
        left_out.push(LeftOut {
            field: (*k).to_string(),
            reason: reason.clone(),
        });
    }
    Payload {
        event: p.event,
        json: Value::Object(json),
        left_out,
        source_path: thread_path(session, p.thread),
        source_line: p.line,
        claude_version: None,
        file_before: None,
        call_id: super::one_call(p),
    }
}
