//! How Codex reads one handler's answer and merges several (docs/your-hooks.md#codex-hooks;
//! openai/codex `codex-rs/hooks/src/engine/output_parser.rs`,
//! `events/pre_tool_use.rs` `parse_completed` and `run`,
//! `events/user_prompt_submit.rs`, `schema.rs` for the accepted JSON). Never
//! Claude Code's reducer ([`crate::hooks::exec::read_run`]).
//!
//! One answer ([`read_answer`]):
//! * exit 0: stdout trimmed empty → nothing; stdout that parses as the
//!   event's JSON (every object `deny_unknown_fields`, `hookSpecificOutput`
//!   needs `hookEventName`) → read below; stdout starting `{` or `[` that
//!   does not → a **failed** run, the action proceeds; other text → context
//!   on SessionStart and UserPromptSubmit, ignored elsewhere;
//! * exit 2: blocks **only** with a non-empty stderr (trimmed, the reason);
//!   with an empty stderr it is a failure that does not block; stdout JSON
//!   is not read;
//! * any other exit, a signal, a launch failure or a timeout: a failure,
//!   the action proceeds (fail open; stdout not read).
//!
//! JSON: a block needs a non-empty reason (`permissionDecision: "deny"`
//! without `permissionDecisionReason`, or `decision: "block"` without
//! `reason`, is invalid = failed). PreToolUse: `allow` is valid only with
//! `updatedInput` (which it then applies); `ask`, `decision: "approve"`,
//! `continue: false`, `stopReason`, `suppressOutput` are unsupported
//! (failed). PermissionRequest: `decision.behavior` allow or deny only;
//! `updatedInput`, `updatedPermissions`, `interrupt: true` unsupported.
//! `additionalContext` adds context; `systemMessage` is a warning shown to
//! the user.
//!
//! Several ([`combine_runs`]): any block wins, with the first block reason
//! in configured order; `updatedInput` from the last handler to finish
//! (none when blocked); every `additionalContext` kept, joined in configured
//! order.

use serde_json::{Map, Value};

use crate::hooks::exec::permissions::{FinalOutcome, ToolVerdict};
use crate::hooks::exec::{
    CombinedRuns, ExecReport, Finished, HandlerReport, NotRun, Reading, RunSpec, RunStatus, Runner,
    run_all,
};
use crate::hooks::result::{Effect, Outcome, PermissionDecision};

const SRC: &str = "openai/codex hooks/src/engine/output_parser.rs";

/// Whether Codex treats stdout as JSON (`looks_like_json`: starts with `{`
/// or `[` after leading whitespace).
pub fn looks_like_json(stdout: &str) -> bool {
    let t = stdout.trim_start();
    t.starts_with('{') || t.starts_with('[')
}

/// The event names `hookSpecificOutput.hookEventName` may carry
/// (`schema.rs` `HookEventNameWire`).
const WIRE_EVENTS: [&str; 6] = [
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
];

/// The parsed JSON answer.
#[derive(Debug, Default)]
struct Parsed {
    cont: bool,
    stop_reason: Option<String>,
    suppress_output: bool,
    system_message: Option<String>,
    decision: Option<String>,
    reason: Option<String>,
    hso: Map<String, Value>,
}

/// Parses stdout as the event's output JSON (`schema.rs` `*CommandOutputWire`,
/// all `deny_unknown_fields`); `Err` says why Codex's parser refuses it.
fn parse(event: &str, stdout: &str) -> Result<Parsed, String> {
    let value: Value =
        serde_json::from_str(stdout.trim()).map_err(|e| format!("not valid JSON ({e})"))?;
    let Value::Object(top) = value else {
        return Err("not a JSON object".into());
    };
    let (decisions, hso_keys): (&[&str], &[&str]) = match event {
        "PreToolUse" => (
            &["approve", "block"],
            &[
                "permissionDecision",
                "permissionDecisionReason",
                "updatedInput",
                "additionalContext",
            ],
        ),
        "PostToolUse" => (&["block"], &["additionalContext", "updatedMCPToolOutput"]),
        "UserPromptSubmit" => (&["block"], &["additionalContext"]),
        "Stop" => (&["block"], &[]),
        "SessionStart" => (&[], &["additionalContext"]),
        "PermissionRequest" => (&[], &["decision"]),
        _ => (&[], &[]),
    };
    let has_hso = !hso_keys.is_empty();
    let mut p = Parsed {
        cont: true,
        ..Parsed::default()
    };
    let opt_str = |k: &str, v: &Value| -> Result<Option<String>, String> {
        match v {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s.clone())),
            _ => Err(format!("{k} is not a string")),
        }
    };
    for (k, v) in &top {
        match k.as_str() {
            "continue" => p.cont = v.as_bool().ok_or("continue is not true/false")?,
            "stopReason" => p.stop_reason = opt_str(k, v)?,
            "suppressOutput" => {
                p.suppress_output = v.as_bool().ok_or("suppressOutput is not true/false")?
            }
            "systemMessage" => p.system_message = opt_str(k, v)?,
            "decision" if !decisions.is_empty() => {
                p.decision = opt_str(k, v)?;
                if let Some(d) = &p.decision
                    && !decisions.contains(&d.as_str())
                {
                    return Err(format!(
                        "decision {d:?} is not one of {}",
                        decisions.join(", ")
                    ));
                }
            }
            "reason" if !decisions.is_empty() => p.reason = opt_str(k, v)?,
            "hookSpecificOutput" if has_hso => match v {
                Value::Null => {}
                Value::Object(h) => {
                    match h.get("hookEventName").and_then(Value::as_str) {
                        Some(n) if WIRE_EVENTS.contains(&n) => {}
                        Some(n) => {
                            return Err(format!(
                                "hookEventName {n:?} is not an event Codex answers"
                            ));
                        }
                        None => return Err("hookSpecificOutput has no hookEventName".into()),
                    }
                    for key in h.keys() {
                        if key != "hookEventName" && !hso_keys.contains(&key.as_str()) {
                            return Err(format!(
                                "hookSpecificOutput.{key} is not a field {event} accepts"
                            ));
                        }
                    }
                    p.hso = h.clone();
                }
                _ => return Err("hookSpecificOutput is not an object".into()),
            },
            other => return Err(format!("{other} is not a field {event} accepts")),
        }
    }
    Ok(p)
}

fn trimmed(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

/// Reads one answer for `event`: `exit` is the exit code (`None`: no
/// status, e.g. killed). Returns the outcome and whether the run failed
/// (see the module docs).
pub fn read_answer(event: &str, exit: Option<i32>, stdout: &str, stderr: &str) -> (Outcome, bool) {
    let blockable = matches!(
        event,
        "PreToolUse" | "PermissionRequest" | "PostToolUse" | "UserPromptSubmit" | "Stop"
    );
    match exit {
        None => {
            let mut o = Outcome::new(Effect::Nothing);
            o.why.push("hook exited without a status code: a failure, the action proceeds (events/pre_tool_use.rs)".into());
            (o, true)
        }
        Some(2) => match trimmed(Some(stderr)) {
            Some(reason) if blockable => {
                let mut o = Outcome::new(Effect::Blocked);
                o.model_sees = Some(reason);
                o.why.push(format!(
                    "exit 2 with stderr: blocked, stderr (trimmed) is the reason; stdout is not read ({event} in events/*.rs)"
                ));
                (o, false)
            }
            Some(_) => {
                let mut o = Outcome::new(Effect::Nothing);
                o.why.push(format!(
                    "exit 2: {event} cannot block in Codex; nothing happens"
                ));
                (o, false)
            }
            None => {
                let mut o = Outcome::new(Effect::Nothing);
                o.why.push(format!(
                    "{event} hook exited with code 2 but did not write a blocking reason to stderr: a failure that does not block (Codex needs a non-empty stderr)"
                ));
                (o, true)
            }
        },
        Some(0) => read_stdout(event, stdout),
        Some(code) => {
            let mut o = Outcome::new(Effect::Nothing);
            o.why.push(format!(
                "hook exited with code {code}: a failure, the action proceeds (Codex fails open; stdout is read only on exit 0)"
            ));
            (o, true)
        }
    }
}

fn read_stdout(event: &str, stdout: &str) -> (Outcome, bool) {
    let text = stdout.trim();
    if text.is_empty() {
        let mut o = Outcome::new(Effect::Nothing);
        o.why.push("exit 0, no output: nothing happens".into());
        return (o, false);
    }
    let p = match parse(event, stdout) {
        Ok(p) => p,
        Err(why) if looks_like_json(stdout) => {
            let mut o = Outcome::new(Effect::Nothing);
            o.why.push(format!(
                "hook returned invalid {event} JSON output ({why}): stdout starts with {{ or [ so Codex parses it, and it fails; a failed run, the action proceeds ({SRC} looks_like_json)"
            ));
            return (o, true);
        }
        Err(_) => {
            let mut o = Outcome::new(Effect::Nothing);
            if matches!(event, "SessionStart" | "UserPromptSubmit") {
                o.effect = Effect::ContextAdded;
                o.model_sees = Some(text.to_string());
                o.why.push(format!(
                    "exit 0 with plain text: on {event} Codex adds it as context"
                ));
            } else {
                o.why
                    .push(format!("exit 0 with plain text: {event} ignores it"));
            }
            return (o, false);
        }
    };
    let invalid = |why: String| {
        let mut o = Outcome::new(Effect::Nothing);
        o.why.push(format!(
            "{why}: invalid, a failed run, the action proceeds ({SRC})"
        ));
        (o, true)
    };
    let hso_str = |k: &str| p.hso.get(k).and_then(Value::as_str);
    // `updatedInput: null` is no updatedInput (an `Option` in Codex's wire).
    let has_updated = p.hso.get("updatedInput").is_some_and(|v| !v.is_null());
    match event {
        "PreToolUse" | "PermissionRequest" => {
            if !p.cont {
                return invalid(format!("{event} hook returned unsupported continue:false"));
            }
            if p.stop_reason.is_some() {
                return invalid(format!("{event} hook returned unsupported stopReason"));
            }
            if p.suppress_output {
                return invalid(format!("{event} hook returned unsupported suppressOutput"));
            }
        }
        "PostToolUse" if p.suppress_output => {
            return invalid("PostToolUse hook returned unsupported suppressOutput".into());
        }
        _ => {}
    }
    let mut o = Outcome::new(Effect::Nothing);
    if let Some(m) = &p.system_message {
        o.user_sees = Some(m.clone());
        o.why
            .push("systemMessage: shown to the user as a warning".into());
    }
    let context = hso_str("additionalContext").map(str::to_string);
    match event {
        "PreToolUse" => {
            let decision = hso_str("permissionDecision");
            let specific =
                decision.is_some() || p.hso.contains_key("permissionDecisionReason") || has_updated;
            if specific {
                if has_updated && decision != Some("allow") {
                    return invalid(
                        "PreToolUse hook returned updatedInput without permissionDecision:allow"
                            .into(),
                    );
                }
                match decision {
                    Some("allow") if !has_updated => {
                        return invalid("PreToolUse hook returned unsupported permissionDecision:allow (allow is valid only with updatedInput)".into());
                    }
                    Some("allow") => {
                        o.effect = Effect::InputRewritten;
                        o.updated_input = p.hso.get("updatedInput").cloned();
                        o.why.push("permissionDecision allow with updatedInput: the tool runs with the new input".into());
                    }
                    Some("ask") => {
                        return invalid(
                            "PreToolUse hook returned unsupported permissionDecision:ask".into(),
                        );
                    }
                    Some("deny") => match trimmed(hso_str("permissionDecisionReason")) {
                        Some(r) => {
                            o.effect = Effect::Blocked;
                            o.model_sees = Some(r);
                            o.why
                                .push("permissionDecision deny with a reason: blocked".into());
                        }
                        None => {
                            return invalid("PreToolUse hook returned permissionDecision:deny without a non-empty permissionDecisionReason".into());
                        }
                    },
                    Some(other) => {
                        return invalid(format!(
                            "permissionDecision {other:?} is not allow, deny or ask"
                        ));
                    }
                    None => {
                        return invalid("PreToolUse hook returned permissionDecisionReason without permissionDecision".into());
                    }
                }
            } else {
                match p.decision.as_deref() {
                    Some("approve") => {
                        return invalid(
                            "PreToolUse hook returned unsupported decision:approve".into(),
                        );
                    }
                    Some(_) => match trimmed(p.reason.as_deref()) {
                        Some(r) => {
                            o.effect = Effect::Blocked;
                            o.model_sees = Some(r);
                            o.why.push("decision block with a reason: blocked".into());
                        }
                        None => {
                            return invalid("PreToolUse hook returned decision:block without a non-empty reason".into());
                        }
                    },
                    None if p.reason.is_some() => {
                        return invalid("PreToolUse hook returned reason without decision".into());
                    }
                    None => {}
                }
            }
        }
        "PermissionRequest" => {
            if let Some(d) = p.hso.get("decision").filter(|d| !d.is_null()) {
                let Some(d) = d.as_object() else {
                    return invalid("hookSpecificOutput.decision is not an object".into());
                };
                for k in d.keys() {
                    if ![
                        "behavior",
                        "updatedInput",
                        "updatedPermissions",
                        "message",
                        "interrupt",
                    ]
                    .contains(&k.as_str())
                    {
                        return invalid(format!(
                            "decision.{k} is not a field PermissionRequest accepts"
                        ));
                    }
                }
                if d.get("updatedInput").is_some_and(|v| !v.is_null()) {
                    return invalid(
                        "PermissionRequest hook returned unsupported updatedInput".into(),
                    );
                }
                if d.get("updatedPermissions").is_some_and(|v| !v.is_null()) {
                    return invalid(
                        "PermissionRequest hook returned unsupported updatedPermissions".into(),
                    );
                }
                if d.get("interrupt").and_then(Value::as_bool) == Some(true) {
                    return invalid(
                        "PermissionRequest hook returned unsupported interrupt:true".into(),
                    );
                }
                match d.get("behavior").and_then(Value::as_str) {
                    Some("allow") => {
                        o.effect = Effect::Allowed;
                        o.why
                            .push("decision.behavior allow: approved without asking".into());
                    }
                    Some("deny") => {
                        o.effect = Effect::Blocked;
                        o.model_sees = Some(
                            trimmed(d.get("message").and_then(Value::as_str))
                                .unwrap_or_else(|| "PermissionRequest hook denied approval".into()),
                        );
                        o.why
                            .push("decision.behavior deny: the request is denied".into());
                    }
                    _ => return invalid("decision.behavior is not allow or deny".into()),
                }
            }
        }
        "PostToolUse" | "UserPromptSubmit" | "Stop" => {
            let block = p.decision.as_deref() == Some("block");
            if block {
                match trimmed(p.reason.as_deref()) {
                    Some(r) => {
                        o.effect = Effect::Blocked;
                        o.model_sees = Some(r);
                        o.why.push(match event {
                            "Stop" => "decision block with a reason: Codex keeps going, the reason is its next prompt".into(),
                            "UserPromptSubmit" => "decision block with a reason: the prompt is blocked".into(),
                            _ => "decision block with a reason: the reason is fed back to the model beside the result".into(),
                        });
                    }
                    None => {
                        return invalid(format!(
                            "{event} hook returned decision:block without a non-empty reason"
                        ));
                    }
                }
            } else if event == "PostToolUse" && p.cont && p.reason.is_some() {
                return invalid("PostToolUse hook returned reason without decision".into());
            }
            if !p.cont {
                o.effect = Effect::Stopped;
                o.user_sees = p.stop_reason.clone().or(o.user_sees.take());
                o.why.push("continue: false: Codex stops the turn".into());
            }
        }
        _ => {
            if !p.cont {
                o.effect = Effect::Stopped;
                o.user_sees = p.stop_reason.clone().or(o.user_sees.take());
                o.why.push("continue: false: Codex stops".into());
            }
        }
    }
    if let Some(c) = context {
        if o.effect == Effect::Nothing {
            o.effect = Effect::ContextAdded;
        }
        o.model_sees = Some(match o.model_sees.take() {
            Some(m) => format!("{m}\n\n{c}"),
            None => c,
        });
        o.why.push("additionalContext: added for the model".into());
    }
    if o.why.is_empty() {
        o.why.push("exit 0 with JSON that asks for nothing".into());
    }
    (o, false)
}

/// One finished run read as Codex reads it ([`read_answer`]), with a
/// timeout, a launch failure or a signal as failures.
pub fn read_run(event: &str, spec: &RunSpec, run: &Finished) -> Reading {
    let out = &run.output;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let (mut o, failed) = match &out.status {
        RunStatus::Exited { code } => read_answer(event, Some(*code), &stdout, &stderr),
        RunStatus::Signaled { signal } => {
            let (mut o, f) = read_answer(event, None, &stdout, &stderr);
            o.why.insert(0, format!("killed by signal {signal}"));
            (o, f)
        }
        RunStatus::TimedOut => {
            let mut o = Outcome::new(Effect::Nothing);
            o.why.push(format!(
                "timed out after {}s: killed, a failure, the action proceeds (Codex fails open)",
                spec.timeout_secs
            ));
            (o, true)
        }
        RunStatus::LaunchFailed { reason, .. } => {
            let mut o = Outcome::new(Effect::Nothing);
            o.why.push(format!(
                "could not start ({reason}): a failure, the action proceeds"
            ));
            (o, true)
        }
        RunStatus::Http { .. } | RunStatus::HttpFailed { .. } => {
            let mut o = Outcome::new(Effect::Nothing);
            o.why.push("Codex has no http handlers".into());
            (o, true)
        }
    };
    if spec.is_async && !matches!(o.effect, Effect::Nothing | Effect::ContextAdded) {
        o.why
            .push("async: true — Codex does not wait for it; its decision has no effect".into());
        o.effect = if o.model_sees.is_some() && o.effect != Effect::Blocked {
            Effect::ContextAdded
        } else {
            Effect::Nothing
        };
        o.updated_input = None;
    }
    Reading {
        label: spec.label.clone(),
        outcome: o,
        failed,
        finish_order: run.finish_order,
    }
}

/// Merges `readings` (configured order) as Codex does (module docs).
pub fn combine_runs(event: &str, readings: &[Reading]) -> CombinedRuns {
    let join = |items: Vec<String>| (!items.is_empty()).then(|| items.join("\n\n"));
    let mut flags = Vec::new();
    let user: Vec<String> = readings
        .iter()
        .filter_map(|r| r.outcome.user_sees.clone())
        .collect();
    let stoppers: Vec<&Reading> = readings
        .iter()
        .filter(|r| r.outcome.effect == Effect::Stopped)
        .collect();
    let blocks: Vec<&Reading> = readings
        .iter()
        .filter(|r| r.outcome.effect == Effect::Blocked)
        .collect();
    let contexts: Vec<String> = readings
        .iter()
        .filter(|r| r.outcome.effect != Effect::Blocked)
        .filter_map(|r| r.outcome.model_sees.clone())
        .collect();
    if let Some(first) = blocks.first() {
        if blocks.len() > 1 {
            flags.push(format!(
                "{} handlers block: Codex uses the first reason in configured order ({})",
                blocks.len(),
                first.label
            ));
        }
        let rewrites = readings
            .iter()
            .filter(|r| r.outcome.effect == Effect::InputRewritten)
            .count();
        if rewrites > 0 {
            flags.push("updatedInput not applied: a handler blocks".into());
        }
        let reason = first
            .outcome
            .model_sees
            .as_deref()
            .map(|m| m.split("\n\n").next().unwrap_or(m).to_string());
        let mut model: Vec<String> = reason.into_iter().collect();
        model.extend(contexts);
        return CombinedRuns {
            effect: Effect::Blocked,
            decision: (event == "PreToolUse" || event == "PermissionRequest")
                .then_some(PermissionDecision::Deny),
            model_sees: join(model),
            user_sees: join(user),
            updated_input: None,
            updated_output: None,
            decided_by: vec![first.label.clone()],
            flags,
        };
    }
    if !stoppers.is_empty() {
        return CombinedRuns {
            effect: Effect::Stopped,
            decision: None,
            model_sees: join(contexts),
            user_sees: join(user),
            updated_input: None,
            updated_output: None,
            decided_by: stoppers.iter().map(|r| r.label.clone()).collect(),
            flags,
        };
    }
    let rewrites: Vec<&Reading> = readings
        .iter()
        .filter(|r| r.outcome.effect == Effect::InputRewritten)
        .collect();
    let allows: Vec<&Reading> = readings
        .iter()
        .filter(|r| r.outcome.effect == Effect::Allowed)
        .collect();
    let (effect, updated_input, decided_by) =
        if let Some(last) = rewrites.iter().max_by_key(|r| r.finish_order) {
            if rewrites.len() > 1 {
                flags.push(format!(
                    "{} handlers set updatedInput: Codex keeps the last to finish ({} here)",
                    rewrites.len(),
                    last.label
                ));
            }
            (
                Effect::InputRewritten,
                last.outcome.updated_input.clone(),
                vec![last.label.clone()],
            )
        } else if !allows.is_empty() {
            (
                Effect::Allowed,
                None,
                allows.iter().map(|r| r.label.clone()).collect(),
            )
        } else if !contexts.is_empty() {
            (
                Effect::ContextAdded,
                None,
                readings
                    .iter()
                    .filter(|r| r.outcome.effect == Effect::ContextAdded)
                    .map(|r| r.label.clone())
                    .collect(),
            )
        } else {
            (Effect::Nothing, None, Vec::new())
        };
    // The context of a rewriting handler is its own model_sees too.
    let model = join(
        readings
            .iter()
            .filter_map(|r| r.outcome.model_sees.clone())
            .collect(),
    );
    CombinedRuns {
        effect,
        decision: match effect {
            Effect::InputRewritten | Effect::Allowed => Some(PermissionDecision::Allow),
            _ => None,
        },
        model_sees: model,
        user_sees: join(user),
        updated_input,
        updated_output: None,
        decided_by,
        flags,
    }
}

/// Runs `specs` (Codex handlers) in parallel on `payload` with `runner`,
/// reads each answer ([`read_run`]) and merges them ([`combine_runs`]). The
/// final outcome is the merged effect; on PreToolUse what happens to the
/// call (Codex's own approval policy and sandbox then apply, not modelled).
/// `ExecReport::claude_version` reads `codex`.
pub fn execute<R: Runner + ?Sized>(
    runner: &R,
    event: &str,
    payload: &Value,
    specs: &[RunSpec],
    not_run: Vec<NotRun>,
) -> ExecReport {
    let stdin = serde_json::to_vec(payload).unwrap_or_default();
    let runs = run_all(runner, specs, &stdin);
    let mut handlers = Vec::with_capacity(specs.len());
    for (spec, run) in specs.iter().zip(&runs) {
        let reading = read_run(event, spec, run);
        let out = &run.output;
        let exit_code = match &out.status {
            RunStatus::Exited { code } => Some(*code),
            RunStatus::LaunchFailed { exit_code, .. } => *exit_code,
            _ => None,
        };
        handlers.push(HandlerReport {
            label: spec.label.clone(),
            command: spec.display(),
            argv: spec.argv(),
            cwd: spec.cwd.clone(),
            cwd_note: spec.cwd_note.clone(),
            env_names: spec.env.iter().map(|v| v.name.clone()).collect(),
            timeout_secs: spec.timeout_secs,
            on_failure_block: false,
            status: out.status.clone(),
            exit_code,
            duration_ms: out.duration_ms,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            stdout_dropped: out.stdout_dropped,
            stderr_dropped: out.stderr_dropped,
            notes: out.notes.clone(),
            env_file_written: None,
            env_file_dropped: 0,
            reading,
        });
    }
    let readings: Vec<Reading> = handlers.iter().map(|h| h.reading.clone()).collect();
    let combined = combine_runs(event, &readings);
    let verdict = (event == "PreToolUse").then_some(match combined.effect {
        Effect::Blocked => ToolVerdict::Denied,
        Effect::InputRewritten => ToolVerdict::RunsRewritten,
        Effect::Stopped => ToolVerdict::Stopped,
        _ => ToolVerdict::Runs,
    });
    let mut why = vec![format!(
        "Codex's hook answer for {event} (Codex dialect: docs/contract.md#codex-hooks)"
    )];
    if event == "PreToolUse" && !matches!(combined.effect, Effect::Blocked | Effect::Stopped) {
        why.push(
            "not blocked by a hook: Codex's approval policy and sandbox then decide (not modelled)"
                .into(),
        );
    }
    let final_outcome = FinalOutcome {
        effect: combined.effect,
        verdict,
        decided_by: if combined.decided_by.is_empty() {
            "nothing".into()
        } else {
            "hook".into()
        },
        permission_mode: None,
        record: None,
        why,
    };
    ExecReport {
        event: event.into(),
        claude_version: "codex".into(),
        handlers,
        not_run,
        combined,
        final_outcome,
    }
}
