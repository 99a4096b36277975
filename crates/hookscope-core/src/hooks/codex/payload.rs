//! The stdin a Codex hook gets, rebuilt from a Codex rollout (openai/codex
//! `codex-rs/hooks/src/schema.rs` `*CommandInput`, docs/contract.md#codex-hooks
//! "Input"): `session_id`, `turn_id` (turn-scoped events), `transcript_path`
//! (the rollout), `cwd`, `hook_event_name`, `model`, `permission_mode`, and
//! per event:
//!
//! * PreToolUse: `tool_name`, `tool_input`, `tool_use_id`; shell-like tools
//!   (`exec_command`, `shell`, `shell_command`, `local_shell`, …) are
//!   `tool_name: "Bash"` with `tool_input: {"command": <the command line>}`
//!   (`HookToolName::bash`), `apply_patch` keeps its name with `{"command":
//!   <the patch>}` (openai/codex PR #20527), other tools their recorded name
//!   and arguments;
//! * PostToolUse: the same plus `tool_response` (the recorded output text);
//! * UserPromptSubmit: `prompt`;
//! * Stop: `stop_hook_active` (false) and `last_assistant_message`.
//!
//! `turn_id` and `model` come from the rollout's last `turn_context` before
//! the event's line. `permission_mode` is left out (Codex derives it from
//! its approval policy and sandbox, which hookscope does not map). Fields
//! the rollout cannot tell are listed in [`Payload::left_out`].

use serde_json::{Map, Value, json};

use crate::hooks::events::{At, EventName, LeftOut, Payload, PayloadError};
use crate::tools::ToolCall;
use crate::transcript::{Session, ToolCallRecord, Turn, fsread};

/// The most of a rollout read back for `turn_id`/`model` (256 MiB of its
/// text, decompressed for a `.jsonl.zst`): a line further in gets neither.
pub const ROLLOUT_CAP: u64 = 256 << 20;

/// The events rebuilt for Codex sessions.
pub const REBUILT: [EventName; 4] = [
    EventName::PreToolUse,
    EventName::PostToolUse,
    EventName::UserPromptSubmit,
    EventName::Stop,
];

/// Tool names Codex reports to hooks as `Bash`.
const SHELL_TOOLS: [&str; 7] = [
    "exec_command",
    "shell",
    "shell_command",
    "local_shell",
    "local_shell_call",
    "unified_exec",
    "container.exec",
];

/// `(tool_name, tool_input)` as Codex hands a call to hooks (module docs).
pub fn hook_tool(call: &ToolCall) -> (String, Value) {
    let name = call.name();
    if SHELL_TOOLS.contains(&name) {
        if let ToolCall::Bash(b) = call {
            return ("Bash".into(), json!({"command": b.command}));
        }
        let cmd = call
            .raw()
            .and_then(|r| r.get("cmd").or_else(|| r.get("command")))
            .map(|c| match c {
                Value::String(s) => s.clone(),
                Value::Array(a) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
                other => other.to_string(),
            })
            .unwrap_or_default();
        return ("Bash".into(), json!({"command": cmd}));
    }
    if name == "apply_patch" {
        let patch = match call.raw() {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v
                .get("input")
                .or_else(|| v.get("patch"))
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string()),
            None => String::new(),
        };
        return ("apply_patch".into(), json!({"command": patch}));
    }
    (
        name.to_string(),
        call.raw().cloned().unwrap_or(Value::Object(Map::new())),
    )
}

/// `turn_id` and `model` of the last `turn_context` at or before `line`
/// (1-based) of the rollout, read as the loader reads it
/// ([`fsread::each_line_until`]: a `.jsonl.zst` is decompressed, so its
/// line numbers and `turn_context` lines are those of the plain text), one
/// line at a time up to `line`. `None`s when the file cannot be opened or
/// `line` lies beyond [`ROLLOUT_CAP`] bytes of text; a read error (a
/// damaged `.zst`) keeps what the lines before it said.
fn context_at(session: &Session, line: usize) -> (Option<String>, Option<String>) {
    let mut turn = None;
    let mut model = None;
    let read = fsread::each_line_until(&session.path, line, ROLLOUT_CAP, |_, l| {
        if !l.windows(12).any(|w| w == b"turn_context") {
            return;
        }
        let Ok(v) = serde_json::from_slice::<Value>(l) else {
            return;
        };
        if v.get("type").and_then(Value::as_str) != Some("turn_context") {
            return;
        }
        let p = &v["payload"];
        if let Some(t) = p.get("turn_id").and_then(Value::as_str) {
            turn = Some(t.to_string());
        }
        if let Some(m) = p.get("model").and_then(Value::as_str) {
            model = Some(m.to_string());
        }
    });
    match read {
        // The cap came before the line: what was read may not be its turn.
        Ok(false) => (None, None),
        // A read error keeps what the lines before it said.
        Ok(true) | Err(_) => (turn, model),
    }
}

fn turn_of(session: &Session, at: &At) -> Result<(usize, Option<usize>), PayloadError> {
    let nothing = |hint: &str| PayloadError::NothingAt {
        at: at.to_string(),
        hint: hint.to_string(),
    };
    let calls: Vec<(usize, &ToolCallRecord)> = session
        .turns
        .iter()
        .enumerate()
        .flat_map(|(ti, t)| t.tool_calls().map(move |c| (ti, c)))
        .collect();
    match at {
        At::Last => Ok((
            session.turns.len().saturating_sub(1),
            calls.last().map(|(_, c)| c.line),
        )),
        At::Turn(n) => {
            let i = n.checked_sub(1).filter(|i| *i < session.turns.len());
            let i = i.ok_or_else(|| {
                nothing(&format!("the session has {} turns", session.turns.len()))
            })?;
            let last = session.turns[i].tool_calls().last().map(|c| c.line);
            Ok((i, last))
        }
        At::ToolUseId(id) | At::Uuid(id) => calls
            .iter()
            .find(|(_, c)| &c.tool_use_id == id)
            .map(|(t, c)| (*t, Some(c.line)))
            .ok_or_else(|| nothing("no call has this call_id")),
        At::Line(n) => {
            let t = session
                .turns
                .iter()
                .rposition(|t| t.prompt_line.is_none_or(|l| l <= *n))
                .unwrap_or(0);
            let call = calls
                .iter()
                .rfind(|(_, c)| c.line <= *n)
                .map(|(_, c)| c.line);
            Ok((t, call))
        }
        At::AgentLine(..) => Err(nothing("Codex sessions have no subagent files here")),
    }
}

/// Rebuilds the stdin of `event` at `at` in a Codex `session` (module docs).
///
/// # Errors
/// [`PayloadError::NotRebuilt`] for an event outside [`REBUILT`];
/// [`PayloadError::NothingAt`] when `at` names nothing;
/// [`PayloadError::NoEvent`] when there is no such event there (no call for
/// a tool event, no prompt for UserPromptSubmit).
pub fn payload(session: &Session, event: EventName, at: &At) -> Result<Payload, PayloadError> {
    if !REBUILT.contains(&event) {
        return Err(PayloadError::NotRebuilt(event));
    }
    let (ti, call_line) = turn_of(session, at)?;
    let turn: Option<&Turn> = session.turns.get(ti);
    let mut left_out = Vec::new();
    let mut m = Map::new();
    let no_event = || PayloadError::NoEvent {
        event,
        where_: match at {
            At::Last => "in this session".to_string(),
            other => format!("at {other}"),
        },
        available: "PreToolUse, PostToolUse, UserPromptSubmit, Stop".into(),
        fires: String::new(),
    };
    let (line, call) = match event {
        EventName::PreToolUse | EventName::PostToolUse => {
            let line = call_line.ok_or_else(no_event)?;
            let call = session
                .tool_calls()
                .find(|c| c.line == line)
                .ok_or_else(no_event)?;
            (line, Some(call))
        }
        EventName::UserPromptSubmit => {
            let line = turn.and_then(|t| t.prompt_line).ok_or_else(no_event)?;
            (line, None)
        }
        _ => {
            let t = turn.ok_or_else(no_event)?;
            let last = t
                .events
                .iter()
                .map(|e| e.line())
                .max()
                .or(t.prompt_line)
                .unwrap_or(1);
            (last, None)
        }
    };
    let (turn_id, model) = context_at(session, line);
    m.insert("session_id".into(), json!(session.id));
    if let Some(t) = turn_id {
        m.insert("turn_id".into(), json!(t));
    } else {
        left_out.push(LeftOut {
            field: "turn_id".into(),
            reason: "no turn_context before this line in the rollout".into(),
        });
    }
    // Absolute, as Codex gives it, whatever folder the session was found
    // under (a relative root gave a relative path a hook elsewhere cannot
    // open).
    m.insert(
        "transcript_path".into(),
        json!(crate::hooks::events::real_path(&session.path)),
    );
    match &session.cwd {
        Some(c) => {
            m.insert("cwd".into(), json!(c));
        }
        None => left_out.push(LeftOut {
            field: "cwd".into(),
            reason: "the rollout records no cwd".into(),
        }),
    }
    m.insert("hook_event_name".into(), json!(event.as_str()));
    match model.or_else(|| session.models.first().cloned()) {
        Some(md) => {
            m.insert("model".into(), json!(md));
        }
        None => left_out.push(LeftOut {
            field: "model".into(),
            reason: "the rollout records no model".into(),
        }),
    }
    left_out.push(LeftOut {
        field: "permission_mode".into(),
        reason:
            "Codex derives it from its approval policy and sandbox; hookscope does not map them"
                .into(),
    });
    match event {
        EventName::PreToolUse | EventName::PostToolUse => {
            let Some(call) = call else {
                return Err(no_event());
            };
            let (name, input) = hook_tool(&call.call);
            if call.call.name() != "apply_patch"
                && input
                    .get("command")
                    .and_then(Value::as_str)
                    .is_some_and(|c| c.trim_start().starts_with("apply_patch"))
            {
                left_out.push(LeftOut {
                    field: "tool_name".into(),
                    reason: "an apply_patch heredoc run through a shell tool: Codex intercepts it and may report it as apply_patch (not verified); rebuilt as Bash".into(),
                });
            }
            m.insert("tool_name".into(), json!(name));
            m.insert("tool_input".into(), input);
            if event == EventName::PostToolUse {
                match &call.result {
                    Some(r) => {
                        m.insert("tool_response".into(), json!(r.text));
                    }
                    None => left_out.push(LeftOut {
                        field: "tool_response".into(),
                        reason: "no output recorded for this call".into(),
                    }),
                }
            }
            m.insert("tool_use_id".into(), json!(call.tool_use_id));
        }
        EventName::UserPromptSubmit => {
            m.insert(
                "prompt".into(),
                json!(turn.map(|t| t.prompt.clone()).unwrap_or_default()),
            );
        }
        _ => {
            m.insert("stop_hook_active".into(), json!(false));
            m.insert(
                "last_assistant_message".into(),
                turn.and_then(Turn::last_text)
                    .map_or(Value::Null, |t| json!(t)),
            );
        }
    }
    let call_id = m
        .get("tool_use_id")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(Payload {
        event,
        call_id,
        json: Value::Object(m),
        left_out,
        source_path: session.path.clone(),
        source_line: line,
        claude_version: None,
        file_before: None,
    })
}

/// The Codex hook events that fire at `at` in `session`, each with the `At`
/// that rebuilds it with [`payload`] (as [`crate::hooks::events::firings_at`]
/// gives them for Claude Code): a call's PreToolUse and (with a recorded
/// output) PostToolUse; a turn's UserPromptSubmit, each call's pair, then
/// Stop; the whole session ([`At::Last`]) each of [`REBUILT`] once.
pub fn firings_at(session: &Session, at: &At) -> Vec<(EventName, At)> {
    let call_pair = |c: &ToolCallRecord| {
        let id = At::ToolUseId(c.tool_use_id.clone());
        let mut v = vec![(EventName::PreToolUse, id.clone())];
        if c.result.is_some() {
            v.push((EventName::PostToolUse, id));
        }
        v
    };
    match at {
        At::Last => REBUILT.iter().map(|e| (*e, At::Last)).collect(),
        At::ToolUseId(id) | At::Uuid(id) => session
            .tool_calls()
            .find(|c| &c.tool_use_id == id)
            .map(call_pair)
            .unwrap_or_default(),
        At::Turn(n) => {
            let Some(t) = n.checked_sub(1).and_then(|i| session.turns.get(i)) else {
                return Vec::new();
            };
            let mut v = Vec::new();
            if t.prompt_line.is_some() {
                v.push((EventName::UserPromptSubmit, at.clone()));
            }
            for c in t.tool_calls() {
                v.extend(call_pair(c));
            }
            v.push((EventName::Stop, at.clone()));
            v
        }
        At::Line(n) => session
            .tool_calls()
            .find(|c| c.line == *n)
            .map(call_pair)
            .unwrap_or_default(),
        At::AgentLine(..) => Vec::new(),
    }
}
