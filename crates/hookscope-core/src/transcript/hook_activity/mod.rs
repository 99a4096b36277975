//! What the transcript says hooks did: one typed [`HookActivity`] per hook
//! firing, built from the records Claude Code writes (docs/transcripts.md#line-types,
//! real-cc-2.1.332 README "How hook outcomes show up (2.1.332)"):
//!
//! * `attachment` lines whose `attachment.type` starts with `hook_`
//!   (`hook_success`, `hook_non_blocking_error`, `hook_blocking_error`,
//!   `hook_additional_context`, `hook_permission_decision`,
//!   `hook_cancelled`, … — an unknown `hook_*` type is kept as
//!   [`HookAction::Other`]) with `hookName`, `hookEvent`, `toolUseID`,
//!   `stdout`, `stderr`, `exitCode`, `command`, `durationMs`, `content`,
//!   `blockingError{blockingError, command}`;
//! * `system` lines of subtype `stop_hook_summary` (`hookCount`,
//!   `hookInfos[{command, durationMs}]`, `hookErrors`,
//!   `failedHookErrorIndexes`, `hookAdditionalContext`,
//!   `preventedContinuation`, `stopReason`, `toolUseID`);
//! * a `tool_result` whose text starts `PreToolUse:<Tool> hook error: `
//!   (exit 2: `[<command>]: <stderr>` follows; a JSON deny: the reason
//!   alone) or reads `Hook PreToolUse:<Tool> denied this tool`;
//! * user lines with `hookText: true` (`Stop hook feedback:\n<reason>`) and
//!   texts saying `<Event> operation blocked by hook`.
//!
//! * Factory Droid's hook lines (user messages with `hookEventName`,
//!   `hookResults[{exitCode, stdout, stderr}]`, …; real-droid-0.225.2
//!   README), one firing per line ([`HookLog::on_droid_hook`]).
//!
//! One firing is one record: the `hookText` feedback, the
//! `hook_blocking_error` / `hook_non_blocking_error` attachments and the
//! `stop_hook_summary` of one Stop (same `toolUseID`) merge; so do a
//! `hook_success` and the `hook_additional_context` that repeats its
//! `additionalContext`. Every field is optional; nothing here fails.

use chrono::{DateTime, Utc};
use hookscope_hook::event::EventKey;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::text::content_text;
pub use super::text::output_text;

mod log;
mod parse;

pub use log::*;
pub use parse::*;

/// Characters kept of a hook's `stdout`, `stderr` and other texts; longer
/// ones end in `…[truncated, N chars]`.
pub const TEXT_CAP: usize = 16 * 1024;

/// What a hook firing did, as the transcript records it. When a firing did
/// several things the first of this order wins: blocked, flagged, rewrote,
/// replaced output, permission decision, added context, failed, cancelled,
/// other, succeeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookAction {
    /// Blocked the action: a PreToolUse exit 2 or `deny`, or an `ask` the
    /// tool result records as rejected for that hook (`permissionDecision:
    /// {decision: "reject", reasonCode: "hook:PreToolUse"}`; `decision`
    /// stays `ask`) — the call did not run; a Stop/SubagentStop block (the
    /// model is sent on with the feedback), a UserPromptSubmit block (the
    /// prompt was rejected), `continue: false`.
    Blocked,
    /// Objected after the call ran: a PostToolUse or PostToolUseFailure
    /// `decision: "block"` or exit 2. Nothing was blocked — the call had
    /// already run; the reason went to the model next to the result
    /// (docs/hooks.md#what-the-transcript-records).
    Flagged,
    /// Rewrote the tool input (`hookSpecificOutput.updatedInput`).
    Rewrote,
    /// Replaced what the model saw of the tool's output (PostToolUse
    /// `hookSpecificOutput.updatedToolOutput`, or the older
    /// `updatedMCPToolOutput`).
    ReplacedOutput,
    /// A `permissionDecision` other than `deny` (`allow`, `ask`, `defer`).
    PermissionDecision,
    /// Added context for the model (`additionalContext`).
    AddedContext,
    /// The hook failed without blocking (a non-zero exit other than 2,
    /// `hook_non_blocking_error`, a summary's `failedHookErrorIndexes`).
    Failed,
    /// The hook was cancelled (`hook_cancelled`).
    Cancelled,
    /// An attachment type this version does not know (`kinds` names it).
    Other,
    /// Ran and said nothing that changed anything (exit 0, no decision).
    Succeeded,
}

impl HookAction {
    /// The snake_case name (`blocked`, `flagged`, `rewrote`,
    /// `replaced_output`, `permission_decision`, `added_context`, `failed`,
    /// `cancelled`, `other`, `succeeded`).
    pub fn as_str(self) -> &'static str {
        match self {
            HookAction::Blocked => "blocked",
            HookAction::Flagged => "flagged",
            HookAction::Rewrote => "rewrote",
            HookAction::ReplacedOutput => "replaced_output",
            HookAction::PermissionDecision => "permission_decision",
            HookAction::AddedContext => "added_context",
            HookAction::Failed => "failed",
            HookAction::Cancelled => "cancelled",
            HookAction::Other => "other",
            HookAction::Succeeded => "succeeded",
        }
    }

    /// Parses the snake_case name ([`HookAction::as_str`]); `None` for any
    /// other text.
    pub fn from_name(name: &str) -> Option<HookAction> {
        [
            HookAction::Blocked,
            HookAction::Flagged,
            HookAction::Rewrote,
            HookAction::ReplacedOutput,
            HookAction::PermissionDecision,
            HookAction::AddedContext,
            HookAction::Failed,
            HookAction::Cancelled,
            HookAction::Other,
            HookAction::Succeeded,
        ]
        .into_iter()
        .find(|a| a.as_str() == name)
    }

    /// The short mark a call carries for a firing that did this, the same
    /// in every view (the TUI's Timeline and Calls view, `show`):
    /// `⛔ hook blocked` (the call did not run; `⛔ hook asked, denied` for
    /// an `ask` then denied), `⚠ hook objected` (after
    /// it ran), `↻ hook rewrote`, `⇄ hook replaced output`, `⚖ hook:
    /// <decision>` (`decision` as recorded, else `decided`), `+ hook
    /// context`, `⚠ hook failed`, `⚠ hook cancelled`; `""` for a firing
    /// that changed nothing.
    pub fn mark(self, decision: Option<&str>) -> String {
        match self {
            HookAction::Blocked if decision == Some("ask") => "⛔ hook asked, denied".to_string(),
            HookAction::Blocked => "⛔ hook blocked".to_string(),
            HookAction::Flagged => "⚠ hook objected".to_string(),
            HookAction::Rewrote => "↻ hook rewrote".to_string(),
            HookAction::ReplacedOutput => "⇄ hook replaced output".to_string(),
            HookAction::PermissionDecision => {
                format!("⚖ hook: {}", decision.unwrap_or("decided"))
            }
            HookAction::AddedContext => "+ hook context".to_string(),
            HookAction::Failed => "⚠ hook failed".to_string(),
            HookAction::Cancelled => "⚠ hook cancelled".to_string(),
            HookAction::Other | HookAction::Succeeded => String::new(),
        }
    }

    /// Whether the hook acted (blocked, flagged, rewrote, replaced output,
    /// decided, added context, failed): what the "hook activity only" views
    /// list.
    pub fn acted(self) -> bool {
        !matches!(self, HookAction::Succeeded | HookAction::Other)
    }
}

/// One handler of a firing, from `hookInfos[]` or an attachment's
/// `command` / `durationMs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookHandler {
    /// The handler's command line as configured.
    pub command: Option<String>,
    /// `durationMs`, when recorded.
    pub duration_ms: Option<u64>,
}

/// A PreToolUse rewrite: the input the model wrote (the recorded
/// `tool_use.input`) and the `updatedInput` the tool ran with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputRewrite {
    /// The recorded `tool_use.input`; `None` when the call is not in the
    /// thread.
    pub from: Option<Value>,
    /// `hookSpecificOutput.updatedInput` (it replaces the whole input,
    /// docs/contract.md#decision-control-per-event).
    pub to: Value,
}

impl InputRewrite {
    /// `from → to` on one line: the `command` strings for a Bash-like input
    /// (`echo A → echo B`), else the compact JSON of each; at most `max`
    /// chars per side.
    pub fn summary(&self, max: usize) -> String {
        let side = |v: Option<&Value>| match v {
            None => "?".to_string(),
            Some(v) => match v.get("command").and_then(Value::as_str) {
                Some(c) => super::text::one_line(c, max),
                None => super::text::one_line(&v.to_string(), max),
            },
        };
        format!("{} → {}", side(self.from.as_ref()), side(Some(&self.to)))
    }
}

/// One hook firing as the transcript records it (module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookActivity {
    /// The event (`hookEvent`, else `hookName` before its `:`, else the
    /// record's kind: `Stop` for a `stop_hook_summary` of the main thread,
    /// `SubagentStop` in a sidechain).
    pub event: Option<EventKey>,
    /// `hookName` as recorded (`PreToolUse:Bash`, `SessionStart:startup`).
    pub hook_name: Option<String>,
    /// What it did (see [`HookAction`] for the order).
    pub action: HookAction,
    /// The command of the handler that acted (the blocking one when known),
    /// else of the first handler recorded.
    pub command: Option<String>,
    /// Every handler recorded for the firing (`hookInfos`, attachments), in
    /// order, deduplicated by command.
    pub handlers: Vec<HookHandler>,
    /// `exitCode`; for a tool result's `[<command>]: <stderr>` hook error
    /// (written only for an exit 2) `2`.
    pub exit_code: Option<i64>,
    /// `stdout` (at most [`TEXT_CAP`] chars).
    pub stdout: Option<String>,
    /// `stderr` (at most [`TEXT_CAP`] chars); for a tool result's
    /// `[<command>]: <stderr>` hook error, that stderr.
    pub stderr: Option<String>,
    /// `durationMs` of the record, else of the handler that acted, else the
    /// first handler's.
    pub duration_ms: Option<u64>,
    /// Why it blocked or failed: the block reason, the Stop feedback, the
    /// error text (at most [`TEXT_CAP`] chars).
    pub reason: Option<String>,
    /// Context added for the model (`additionalContext`,
    /// `hookAdditionalContext`), each entry at most [`TEXT_CAP`] chars.
    pub context: Vec<String>,
    /// The rewrite, for [`HookAction::Rewrote`].
    pub rewrite: Option<InputRewrite>,
    /// What the model saw instead of the tool's output, for
    /// [`HookAction::ReplacedOutput`]: `hookSpecificOutput.updatedToolOutput`
    /// (or `updatedMCPToolOutput`) of the hook's stdout, verbatim.
    #[serde(default)]
    pub updated_output: Option<Value>,
    /// `permissionDecision` (`allow`/`deny`/`ask`/`defer`) when one was
    /// recorded.
    pub decision: Option<String>,
    /// The recorded `toolUseID` (`toolu_…` for a tool event; Claude Code's
    /// own ids for Stop, `SessionStart`, `hook-<uuid>` for
    /// UserPromptSubmit), or the `tool_use_id` of the result that carried
    /// the hook error.
    pub tool_use_id: Option<String>,
    /// 1-based line of the `tool_use` this firing belongs to, when
    /// `tool_use_id` names a call of the same thread (the latest one with
    /// that id at or before the first record: ids may repeat).
    pub call_line: Option<usize>,
    /// Index of the turn (in its thread's `turns`) the firing happened in.
    pub turn: usize,
    /// 1-based lines of every record merged into this one, ascending. The
    /// file is the thread's (`Session::thread_path`).
    pub lines: Vec<usize>,
    /// What each merged record was: `attachment/<type>`,
    /// `system/stop_hook_summary`, `tool_result`, `user/hookText`,
    /// `user/blocked`, `droid/hook` (a Droid hook line), in merge order.
    pub kinds: Vec<String>,
    /// The first record's timestamp.
    pub timestamp: Option<DateTime<Utc>>,
}

impl HookActivity {
    /// Whether this firing blocked its call before it ran: the action is
    /// [`HookAction::Blocked`] on an event before the call (PreToolUse,
    /// PermissionRequest), so the call never ran (docs/hooks.md).
    pub fn blocked_before_call(&self) -> bool {
        self.action == HookAction::Blocked && self.event.as_ref().is_some_and(|e| e.before_call())
    }

    fn new(line: usize, kind: &str, turn: usize, timestamp: Option<DateTime<Utc>>) -> Self {
        HookActivity {
            event: None,
            hook_name: None,
            action: HookAction::Succeeded,
            command: None,
            handlers: Vec::new(),
            exit_code: None,
            stdout: None,
            stderr: None,
            duration_ms: None,
            reason: None,
            context: Vec::new(),
            rewrite: None,
            updated_output: None,
            decision: None,
            tool_use_id: None,
            call_line: None,
            turn,
            lines: vec![line],
            kinds: vec![kind.to_string()],
            timestamp,
        }
    }

    /// The first source line (where the firing is shown).
    pub fn line(&self) -> usize {
        self.lines.first().copied().unwrap_or(0)
    }

    /// The event name, or `hook` when none was recorded.
    pub fn event_name(&self) -> &str {
        self.event.as_deref().unwrap_or("hook")
    }

    /// Whether this firing belongs to a tool call of its thread.
    pub fn on_call(&self) -> bool {
        self.call_line.is_some()
    }

    /// One line saying what the hook did, e.g. `blocked by hook: 'rm -rf'
    /// is not allowed`, `objected after it ran: …`, `input rewritten by
    /// hook: echo A → echo B`, `the model saw this output instead: …`,
    /// `context added: …`, `hook failed (exit 1): …`, `ran, no effect`; at
    /// most `max` chars for the variable part.
    pub fn what(&self, max: usize) -> String {
        use super::text::one_line;
        let reason = self.reason.as_deref().map(|r| one_line(r, max));
        match self.action {
            HookAction::Blocked if self.decision.as_deref() == Some("ask") => match reason {
                Some(r) if !r.is_empty() => format!("asked by hook, then denied: {r}"),
                _ => "asked by hook, then denied".to_string(),
            },
            HookAction::Blocked => match reason {
                Some(r) if !r.is_empty() => format!("blocked by hook: {r}"),
                _ => "blocked by hook".to_string(),
            },
            HookAction::Flagged => match reason {
                Some(r) if !r.is_empty() => format!("objected after it ran: {r}"),
                _ => "objected after it ran".to_string(),
            },
            HookAction::Rewrote => match &self.rewrite {
                Some(rw) => format!("input rewritten by hook: {}", rw.summary(max)),
                None => "input rewritten by hook".to_string(),
            },
            HookAction::ReplacedOutput => match &self.updated_output {
                Some(out) => format!(
                    "the model saw this output instead: {}",
                    one_line(&output_text(out), max)
                ),
                None => "output replaced by hook".to_string(),
            },
            HookAction::PermissionDecision => {
                let d = self.decision.as_deref().unwrap_or("?");
                match reason {
                    Some(r) if !r.is_empty() => format!("permission {d} by hook: {r}"),
                    _ => format!("permission {d} by hook"),
                }
            }
            HookAction::AddedContext => {
                format!("context added: {}", one_line(&self.context.join(" "), max))
            }
            HookAction::Failed => {
                let code = self
                    .exit_code
                    .map(|c| format!(" (exit {c})"))
                    .unwrap_or_default();
                match reason {
                    Some(r) if !r.is_empty() => format!("hook failed{code}: {r}"),
                    _ => format!("hook failed{code}"),
                }
            }
            HookAction::Cancelled => "hook cancelled".to_string(),
            HookAction::Other => {
                let kind = self.kinds.first().map(String::as_str).unwrap_or("?");
                format!("hook record {kind}")
            }
            HookAction::Succeeded => "ran, no effect".to_string(),
        }
    }

    /// Reads a `[<command>]: <stderr>` prefix off a hook text
    /// ([`split_handler_prefix`]): the command becomes the acting handler
    /// (when none is recorded), the exit code 2 (Claude Code writes the
    /// prefix only then) and the stderr the rest; returns the text without
    /// the prefix.
    fn name_handler_in(&mut self, text: &str) -> String {
        let (command, rest) = split_handler_prefix(text);
        let Some(command) = command else {
            return text.to_string();
        };
        if self.command.is_none() {
            self.command = Some(command.to_string());
        }
        self.add_handler(Some(command.to_string()), None);
        if self.exit_code.is_none() {
            self.exit_code = Some(2);
        }
        if self.stderr.is_none() {
            self.stderr = Some(cap(rest));
        }
        rest.to_string()
    }

    fn add_handler(&mut self, command: Option<String>, duration_ms: Option<u64>) {
        if command.is_none() && duration_ms.is_none() {
            return;
        }
        if let Some(h) = self
            .handlers
            .iter_mut()
            .find(|h| h.command.is_some() && h.command == command)
        {
            h.duration_ms = h.duration_ms.or(duration_ms);
            return;
        }
        self.handlers.push(HookHandler {
            command,
            duration_ms,
        });
    }

    fn absorb(&mut self, line: usize, kind: &str) {
        if let Err(i) = self.lines.binary_search(&line) {
            self.lines.insert(i, line);
        }
        self.kinds.push(kind.to_string());
    }

    /// Raises the action to `action` when it comes first in
    /// [`HookAction`]'s order. A block on an event that fires after the
    /// call ran (PostToolUse, PostToolUseFailure) is
    /// [`HookAction::Flagged`]: the call was not blocked.
    fn raise(&mut self, action: HookAction) {
        let action = if action == HookAction::Blocked && self.after_call() {
            HookAction::Flagged
        } else {
            action
        };
        self.action = self.action.min(action);
    }

    /// Whether the firing's event comes after its call ran, so that a
    /// block there blocks nothing (PostToolUse, PostToolUseFailure).
    pub fn after_call(&self) -> bool {
        self.event.as_ref().is_some_and(EventKey::after_call)
    }

    /// Settles what the event decides once every record is merged: a
    /// block after the call ran is [`HookAction::Flagged`] (the event may
    /// have been learnt after the block was read).
    fn settle(&mut self) {
        if self.action == HookAction::Blocked && self.after_call() {
            self.action = HookAction::Flagged;
        }
    }

    /// Reads a hook's stdout JSON (docs/contract.md#json-output-fields, docs/contract.md#decision-control-per-event) for the decision,
    /// the rewrite, added context and a block reason.
    fn read_stdout_json(&mut self, call_input: Option<&Value>) {
        let Some(stdout) = self.stdout.as_deref() else {
            return;
        };
        let trimmed = stdout.trim_start();
        if !trimmed.starts_with('{') {
            return;
        }
        let Ok(json) = serde_json::from_str::<Value>(trimmed) else {
            return;
        };
        let specific = json.get("hookSpecificOutput");
        let field = |k: &str| specific.and_then(|s| s.get(k));
        if let Some(d) = field("permissionDecision")
            .or_else(|| json.get("permissionDecision"))
            .and_then(Value::as_str)
        {
            self.decision = Some(d.to_string());
            let reason = field("permissionDecisionReason")
                .or_else(|| json.get("permissionDecisionReason"))
                .map(content_text);
            if self.reason.is_none() {
                self.reason = reason.map(|r| cap(&r));
            }
            self.raise(if d == "deny" {
                HookAction::Blocked
            } else {
                HookAction::PermissionDecision
            });
        }
        if json.get("decision").and_then(Value::as_str) == Some("block") {
            if self.reason.is_none() {
                self.reason = json.get("reason").map(|r| cap(&content_text(r)));
            }
            self.raise(HookAction::Blocked);
        }
        if json.get("continue").and_then(Value::as_bool) == Some(false) {
            if self.reason.is_none() {
                self.reason = json.get("stopReason").map(|r| cap(&content_text(r)));
            }
            self.raise(HookAction::Blocked);
        }
        if let Some(to) = field("updatedInput").filter(|v| v.is_object()) {
            self.rewrite = Some(InputRewrite {
                from: call_input.cloned(),
                to: to.clone(),
            });
            self.raise(HookAction::Rewrote);
        }
        if let Some(out) = field("updatedToolOutput").or_else(|| field("updatedMCPToolOutput"))
            && !out.is_null()
        {
            self.updated_output = Some(out.clone());
            self.raise(HookAction::ReplacedOutput);
        }
        if let Some(ctx) = field("additionalContext").map(content_text)
            && !ctx.trim().is_empty()
        {
            self.push_context(ctx);
        }
    }

    fn push_context(&mut self, text: String) {
        let text = cap(&text);
        if !self.context.contains(&text) {
            self.context.push(text);
        }
        self.raise(HookAction::AddedContext);
    }
}

/// The JSON object of one firing, as `hookscope hooks --activity --json`,
/// `find --json`'s `hook_activity` and the MCP tools print it: the
/// [`HookActivity`] fields (snake_case; `turn` 1-based, as `--at N` takes
/// it) plus `path` (the thread's file), `agent_id` (the subagent's, `null`
/// on the main thread) and `what` ([`HookActivity::what`]). With `redact`, secrets in `stdout`, `stderr`,
/// `reason`, `context`, `command` and the rewrite are masked as
/// `[REDACTED_<TYPE>]`.
pub fn activity_json(
    activity: &HookActivity,
    path: &std::path::Path,
    agent_id: Option<&str>,
    redact: bool,
) -> Value {
    let value = activity_value(activity, path, agent_id);
    if redact {
        let mut counts = crate::redact::Redactions::default();
        return crate::redact::redactor().redact_value(&value, &mut counts);
    }
    value
}

/// [`activity_json`] without masking (callers that count their masks do
/// it themselves, as `find_tool_calls` does for `hook_activity`).
pub fn activity_value(
    activity: &HookActivity,
    path: &std::path::Path,
    agent_id: Option<&str>,
) -> Value {
    let mut value = serde_json::to_value(activity).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.insert(
            "path".to_string(),
            Value::String(path.to_string_lossy().into_owned()),
        );
        map.insert(
            "agent_id".to_string(),
            agent_id.map_or(Value::Null, |a| Value::String(a.to_string())),
        );
        map.insert("what".to_string(), Value::String(activity.what(200)));
        // 1-based, as `--at N`, `show` and the TUI number turns.
        map.insert("turn".to_string(), Value::from(activity.turn + 1));
    }
    value
}

/// `text` cut to [`TEXT_CAP`] chars, ending in `…[truncated, N chars]`.
fn cap(text: &str) -> String {
    let total = text.chars().count();
    if total <= TEXT_CAP {
        return text.to_string();
    }
    let head: String = text.chars().take(TEXT_CAP).collect();
    format!("{head}…[truncated, {total} chars]")
}

use crate::tools::calls::json_type;

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(line: usize) -> At<'static> {
        At {
            line,
            turn: 0,
            timestamp: None,
            sidechain: false,
            call: None,
        }
    }

    #[test]
    fn result_hook_errors_parse_with_and_without_command() {
        assert_eq!(
            parse_result_hook_error("PreToolUse:Bash hook error: [python3 h.py]: no rm"),
            Some((
                "PreToolUse:Bash".to_string(),
                Some("python3 h.py".to_string()),
                "no rm".to_string()
            ))
        );
        assert_eq!(
            parse_result_hook_error("PreToolUse:Bash hook error: Denied: destructive"),
            Some((
                "PreToolUse:Bash".to_string(),
                None,
                "Denied: destructive".to_string()
            ))
        );
        assert_eq!(
            parse_result_hook_error("Hook PreToolUse:Edit denied this tool"),
            Some(("PreToolUse:Edit".to_string(), None, String::new()))
        );
        assert_eq!(parse_result_hook_error("git hook error: x"), None);
        assert_eq!(parse_result_hook_error("plain output"), None);
    }

    #[test]
    fn operation_blocked_names_event_and_reason() {
        assert_eq!(
            parse_operation_blocked("UserPromptSubmit operation blocked by hook:\nno secrets"),
            Some(("UserPromptSubmit".to_string(), "no secrets".to_string()))
        );
        assert_eq!(parse_operation_blocked("nothing here"), None);
    }

    #[test]
    fn huge_stdout_is_capped() {
        let mut log = HookLog::default();
        let big = "x".repeat(TEXT_CAP + 10);
        log.on_attachment(
            &json!({"type":"hook_success","hookName":"PostToolUse:Bash","stdout": big}),
            &at(3),
        );
        let r = &log.records[0];
        let stdout = r.stdout.as_deref().unwrap_or("");
        assert!(stdout.ends_with(&format!("…[truncated, {} chars]", TEXT_CAP + 10)));
        assert_eq!(r.action, HookAction::Succeeded);
    }

    #[test]
    fn unknown_hook_attachment_is_kept_as_other() {
        let mut log = HookLog::default();
        assert!(log.on_attachment(
            &json!({"type":"hook_future_thing","hookEvent":"Setup","content":"hi"}),
            &at(1)
        ));
        assert!(!log.on_attachment(&json!({"type":"file"}), &at(2)));
        assert!(!log.on_attachment(&json!({"hookName": 3}), &at(2)));
        let records = log.finish();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].action, HookAction::Other);
        assert_eq!(records[0].event.as_deref(), Some("Setup"));
        assert_eq!(records[0].kinds, vec!["attachment/hook_future_thing"]);
    }
}
