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
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::text::content_text;
pub use super::text::output_text;

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
    /// Blocked the action: a PreToolUse exit 2 or `deny` (the call did not
    /// run), a Stop/SubagentStop block (the model is sent on with the
    /// feedback), a UserPromptSubmit block (the prompt was rejected),
    /// `continue: false`.
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
    /// `⛔ hook blocked` (the call did not run), `⚠ hook objected` (after
    /// it ran), `↻ hook rewrote`, `⇄ hook replaced output`, `⚖ hook:
    /// <decision>` (`decision` as recorded, else `decided`), `+ hook
    /// context`, `⚠ hook failed`, `⚠ hook cancelled`; `""` for a firing
    /// that changed nothing.
    pub fn mark(self, decision: Option<&str>) -> String {
        match self {
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
    pub event: Option<String>,
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
        matches!(
            self.event.as_deref(),
            Some("PostToolUse" | "PostToolUseFailure")
        )
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

/// Splits the handler Claude Code names in front of a hook's text:
/// `[<command>]: <rest>` → `(Some(command), rest)`; any other text →
/// `(None, text)`. Claude Code writes this prefix for a handler that exited
/// 2 (its stderr follows): in a blocked call's `tool_result`, a rejected
/// prompt's `system/informational` line, a blocking error
/// (docs/hooks.md#what-the-transcript-records).
pub fn split_handler_prefix(text: &str) -> (Option<&str>, &str) {
    let t = text.trim_start();
    match t.strip_prefix('[').and_then(|r| r.split_once("]: ")) {
        Some((command, rest)) if !command.trim().is_empty() && !command.contains('\n') => {
            (Some(command), rest)
        }
        _ => (None, text),
    }
}

/// An exit code a hook's text states in Claude Code's words: `… status
/// code N …` or `… exit code N …` (`Failed with non-blocking status code:
/// 1`); `None` when the text states none.
pub fn exit_code_in(text: &str) -> Option<i64> {
    for marker in ["status code", "exit code"] {
        let mut from = 0;
        while let Some(at) = text.get(from..).and_then(|t| t.find(marker)) {
            let rest = &text[from + at + marker.len()..];
            let rest = rest.trim_start_matches([':', ' ']);
            let digits: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            if let Ok(code) = digits.parse::<i64>() {
                return Some(code);
            }
            from += at + marker.len();
        }
    }
    None
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

/// `object`, `array`, `string`, `number`, `boolean` or `null`.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
    }
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The event of a `hookName` (`PreToolUse:Bash` → `PreToolUse`).
fn event_of_name(name: &str) -> &str {
    name.split_once(':').map_or(name, |(e, _)| e)
}

/// A hook error written into a tool result: `(hook_name, command, reason)`
/// for `PreToolUse:Bash hook error: [cmd]: stderr` (command `Some`),
/// `PreToolUse:Bash hook error: reason` (command `None`) and `Hook
/// PreToolUse:Bash denied this tool` (empty reason). `<tool_use_error>`
/// tags around the text are ignored.
pub fn parse_result_hook_error(text: &str) -> Option<(String, Option<String>, String)> {
    let t = text.trim();
    let t = t
        .strip_prefix("<tool_use_error>")
        .map(|t| t.strip_suffix("</tool_use_error>").unwrap_or(t).trim())
        .unwrap_or(t);
    if let Some(rest) = t.strip_prefix("Hook ")
        && let Some((name, _)) = rest.split_once(" denied this tool")
        && name.contains(':')
        && !name.contains(char::is_whitespace)
    {
        return Some((name.to_string(), None, String::new()));
    }
    let (name, reason) = t.split_once(" hook error: ")?;
    if name.is_empty() || name.contains(char::is_whitespace) || !name.contains(':') {
        return None;
    }
    let (command, reason) = match reason.strip_prefix('[').and_then(|r| r.split_once("]: ")) {
        Some((cmd, stderr)) => (Some(cmd.to_string()), stderr),
        None => (None, reason),
    };
    Some((name.to_string(), command, reason.to_string()))
}

/// A prompt blocked by a hook: `(event, reason)` for a text containing
/// `<Event> operation blocked by hook` (the reason follows a `:` or a line
/// break, may be empty). [`parse_rejected_prompt`] reads the rest.
pub fn parse_operation_blocked(text: &str) -> Option<(String, String)> {
    let t = text.trim();
    let at = t.find(" operation blocked by hook")?;
    let event = t[..at].rsplit(char::is_whitespace).next().unwrap_or("");
    if event.is_empty() {
        return None;
    }
    let rest = &t[at + " operation blocked by hook".len()..];
    let reason = rest.trim_start_matches(':').trim();
    Some((event.to_string(), reason.to_string()))
}

/// A prompt a hook rejected, as Claude Code records it (2.1.332: a
/// `system`/`informational` line whose `content` is `UserPromptSubmit
/// operation blocked by hook:\n[<command>]: <stderr>\n\nOriginal prompt:
/// <prompt>` and whose `promptSubmitEnding` is `{ending: {kind:
/// "blocked_by_hook", reason}, promptKept: false}`;
/// docs/hooks.md#what-the-transcript-records).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedPrompt {
    /// The event that rejected it (`UserPromptSubmit`,
    /// `UserPromptExpansion`).
    pub event: String,
    /// The handler named in `[…]` (an exit 2), when the text names one.
    pub command: Option<String>,
    /// Why: `promptSubmitEnding.ending.reason`, else the text after the
    /// header (and after the `[…]: ` prefix); may be empty.
    pub reason: String,
    /// The prompt the user submitted (`Original prompt: …`), when quoted.
    pub prompt: Option<String>,
}

/// Reads a rejected prompt out of `text` (and the line's
/// `promptSubmitEnding.ending.reason`, `ending_reason`, which settles where
/// the reason stops when the reason or the prompt themselves hold
/// `Original prompt:`); `None` when the text is not an `<Event> operation
/// blocked by hook` record.
pub fn parse_rejected_prompt(text: &str, ending_reason: Option<&str>) -> Option<RejectedPrompt> {
    const MARK: &str = " operation blocked by hook";
    const ORIGINAL: &str = "\n\nOriginal prompt: ";
    let at = text.find(MARK)?;
    let event = text[..at]
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or("")
        .to_string();
    if event.is_empty() {
        return None;
    }
    let body = &text[at + MARK.len()..];
    let body = body.strip_prefix(':').unwrap_or(body);
    let body = body.strip_prefix('\n').unwrap_or(body);
    let (command, rest) = split_handler_prefix(body);
    // Where the reason ends: right after the recorded reason when the text
    // carries it there, else at the first `Original prompt:`.
    let split = ending_reason
        .filter(|r| !r.is_empty())
        .and_then(|r| rest.strip_prefix(r).map(|after| (r, after)))
        .and_then(|(r, after)| {
            after
                .strip_prefix(ORIGINAL)
                .map(|p| (r.to_string(), Some(p)))
        });
    let (reason, prompt) = match split {
        Some((reason, prompt)) => (reason, prompt.map(str::to_string)),
        None => match rest.split_once(ORIGINAL) {
            Some((reason, prompt)) => (reason.trim().to_string(), Some(prompt.to_string())),
            None => (rest.trim().to_string(), None),
        },
    };
    let reason = match ending_reason.filter(|r| !r.is_empty()) {
        Some(r) => r.to_string(),
        None => reason,
    };
    Some(RejectedPrompt {
        event,
        command: command.map(str::to_string),
        reason,
        prompt,
    })
}

/// Builds the [`HookActivity`] list of one thread while its lines are read
/// (used by the Claude Code loader, in file order).
#[derive(Debug, Default)]
pub struct HookLog {
    /// The records so far, in first-line order.
    pub records: Vec<HookActivity>,
    /// A Stop/SubagentStop feedback or block seen before its summary
    /// (`toolUseID` may come later): index into `records`.
    open_stop: Option<usize>,
}

/// Where a hook record sits: its line, turn, timestamp, whether the line is
/// in a sidechain, and the call its `toolUseID` names (line and input).
#[derive(Debug, Clone, Copy)]
pub struct At<'a> {
    /// 1-based line.
    pub line: usize,
    /// Turn index in the thread.
    pub turn: usize,
    /// The line's timestamp.
    pub timestamp: Option<DateTime<Utc>>,
    /// `isSidechain: true` (a Stop summary is then a SubagentStop).
    pub sidechain: bool,
    /// The call named by the record's `toolUseID`: its line and input.
    pub call: Option<(usize, Option<&'a Value>)>,
}

fn is_stop(event: Option<&str>) -> bool {
    matches!(event, Some("Stop" | "SubagentStop"))
}

impl HookLog {
    /// A log that continues from `records` (and the open Stop record
    /// `open_stop`, see [`HookLog::open_stop`]), as
    /// [`crate::transcript::claude_code`] resumes a grown main file.
    pub fn resume(records: Vec<HookActivity>, open_stop: Option<usize>) -> HookLog {
        HookLog { records, open_stop }
    }

    /// The Stop/SubagentStop record still waiting for its summary (index
    /// into `records`).
    pub fn open_stop(&self) -> Option<usize> {
        self.open_stop
    }

    /// The records, finished (each settled: a block after its call ran is
    /// [`HookAction::Flagged`]).
    pub fn finish(mut self) -> Vec<HookActivity> {
        for r in &mut self.records {
            r.settle();
        }
        self.records
    }

    /// The latest record of `event` with this `toolUseID` (and on the same
    /// call, when both know theirs: ids may repeat), if it may take a
    /// record with `command` (its own command is unset or the same).
    fn find(
        &self,
        event: Option<&str>,
        id: Option<&str>,
        command: Option<&str>,
        call_line: Option<usize>,
    ) -> Option<usize> {
        let id = id?;
        self.records.iter().rposition(|r| {
            r.event.as_deref() == event
                && r.tool_use_id.as_deref() == Some(id)
                && (r.call_line.is_none() || call_line.is_none() || r.call_line == call_line)
                && (command.is_none() || r.command.is_none() || r.command.as_deref() == command)
        })
    }

    fn start(&mut self, at: &At, kind: &str) -> usize {
        let mut r = HookActivity::new(at.line, kind, at.turn, at.timestamp);
        r.call_line = at.call.map(|(l, _)| l);
        self.records.push(r);
        self.records.len() - 1
    }

    /// An `attachment` line whose `attachment.type` starts with `hook`.
    /// `att` is the `attachment` object. Returns whether it was a hook
    /// record.
    pub fn on_attachment(&mut self, att: &Value, at: &At) -> bool {
        let Some(kind) = att.get("type").and_then(Value::as_str) else {
            return false;
        };
        if !kind.starts_with("hook_") {
            return false;
        }
        let label = format!("attachment/{kind}");
        let hook_name = str_of(att, "hookName");
        let event = str_of(att, "hookEvent")
            .or_else(|| hook_name.as_deref().map(|n| event_of_name(n).to_string()));
        let id = str_of(att, "toolUseID");
        let blocking = att.get("blockingError");
        let command =
            str_of(att, "command").or_else(|| blocking.and_then(|b| str_of(b, "command")));
        let content = att
            .get("content")
            .map(content_text)
            .filter(|c| !c.trim().is_empty());
        // Which record takes it: a Stop's records merge by toolUseID (or
        // into the open feedback); others by (event, toolUseID) when this
        // record has no handler of its own or the same one; a context
        // attachment also merges into the record just before it whose
        // stdout already carried that context.
        let call_line = at.call.map(|(l, _)| l);
        // Outside a Stop, two outcomes (a decision, a cancel, a failure)
        // are two handlers unless they name the same command; a context
        // attachment repeats its handler's and always joins it.
        let joins = is_stop(event.as_deref()) || kind == "hook_additional_context";
        let mut target = if joins {
            self.find(
                event.as_deref(),
                id.as_deref(),
                command.as_deref(),
                call_line,
            )
        } else {
            command.as_deref().and_then(|c| {
                self.find(event.as_deref(), id.as_deref(), Some(c), call_line)
                    .filter(|&i| {
                        self.records
                            .get(i)
                            .is_some_and(|r| r.command.as_deref() == Some(c))
                    })
            })
        };
        if target.is_none() && is_stop(event.as_deref()) {
            target = self.open_stop.filter(|&i| {
                self.records.get(i).is_some_and(|r| {
                    r.event == event && (r.tool_use_id.is_none() || r.tool_use_id == id)
                })
            });
        }
        if target.is_none()
            && kind == "hook_additional_context"
            && let Some(last) = self.records.len().checked_sub(1)
            && let Some(r) = self.records.get(last)
            && r.event == event
            && content
                .as_ref()
                .is_some_and(|c| r.context.contains(&cap(c)))
        {
            target = Some(last);
        }
        let i = match target {
            Some(i) => {
                if let Some(r) = self.records.get_mut(i) {
                    r.absorb(at.line, &label);
                }
                i
            }
            None => self.start(at, &label),
        };
        let Some(r) = self.records.get_mut(i) else {
            return true;
        };
        if r.event.is_none() {
            r.event = event.clone();
        }
        if r.hook_name.is_none() || r.hook_name == r.event {
            r.hook_name = hook_name.or(r.hook_name.take());
        }
        if r.tool_use_id.is_none() {
            r.tool_use_id = id;
        }
        if r.call_line.is_none() {
            r.call_line = at.call.map(|(l, _)| l);
        }
        let duration = att.get("durationMs").and_then(Value::as_u64);
        if let Some(c) = &command
            && r.command.is_none()
        {
            r.command = Some(c.clone());
        }
        r.duration_ms = r.duration_ms.or(duration);
        r.add_handler(command, duration);
        if let Some(code) = att.get("exitCode").and_then(Value::as_i64) {
            r.exit_code = Some(code);
        }
        if let Some(s) = att
            .get("stdout")
            .map(content_text)
            .filter(|s| !s.is_empty())
        {
            r.stdout = Some(cap(&s));
        }
        if let Some(s) = att
            .get("stderr")
            .map(content_text)
            .filter(|s| !s.is_empty())
        {
            r.stderr = Some(cap(&s));
        }
        let call_input = at.call.and_then(|(_, input)| input);
        r.read_stdout_json(call_input);
        match kind {
            "hook_success" => {}
            "hook_blocking_error" => {
                let err = blocking
                    .map(|b| match b.get("blockingError") {
                        Some(inner) => content_text(inner),
                        None => content_text(b),
                    })
                    .filter(|e| !e.trim().is_empty());
                if let Some(err) = err {
                    let reason = r.name_handler_in(&err);
                    r.reason = Some(cap(&reason));
                }
                r.raise(HookAction::Blocked);
            }
            "hook_non_blocking_error" | "hook_error_during_execution" => {
                if r.reason.is_none() {
                    r.reason = r.stderr.clone().or_else(|| content.as_deref().map(cap));
                }
                if r.exit_code.is_none() {
                    r.exit_code = r.reason.as_deref().and_then(exit_code_in);
                }
                r.raise(HookAction::Failed);
            }
            "hook_additional_context" => {
                if let Some(Value::Array(items)) = att.get("content") {
                    for item in items {
                        let t = content_text(item);
                        if !t.trim().is_empty() {
                            r.push_context(t);
                        }
                    }
                } else if let Some(c) = content {
                    r.push_context(c);
                }
            }
            "hook_permission_decision" => {
                let d = str_of(att, "decision")
                    .or_else(|| str_of(att, "permissionDecision"))
                    .or_else(|| str_of(att, "behavior"));
                if let Some(d) = d {
                    r.raise(if d == "deny" {
                        HookAction::Blocked
                    } else {
                        HookAction::PermissionDecision
                    });
                    r.decision = Some(d);
                } else {
                    r.raise(HookAction::PermissionDecision);
                }
                let reason = str_of(att, "reason")
                    .or_else(|| str_of(att, "permissionDecisionReason"))
                    .or_else(|| str_of(att, "message"));
                if r.reason.is_none() {
                    r.reason = reason.map(|x| cap(&x));
                }
            }
            "hook_cancelled" => r.raise(HookAction::Cancelled),
            "hook_stopped_continuation" => {
                if r.reason.is_none() {
                    r.reason = str_of(att, "message").map(|m| cap(&m));
                }
                r.raise(HookAction::Blocked);
            }
            _ => {
                if r.reason.is_none() {
                    r.reason = content.as_deref().map(cap);
                }
                r.raise(HookAction::Other);
            }
        }
        if is_stop(r.event.as_deref()) {
            self.open_stop = Some(i);
        }
        true
    }

    /// A `system` line of subtype `stop_hook_summary`: ends one
    /// Stop/SubagentStop firing.
    pub fn on_stop_summary(&mut self, v: &Value, at: &At) {
        let label = "system/stop_hook_summary";
        let event = if at.sidechain { "SubagentStop" } else { "Stop" };
        let id = str_of(v, "toolUseID");
        let mut target = self.find(Some(event), id.as_deref(), None, None);
        if target.is_none() {
            target = self.open_stop.filter(|&i| {
                self.records.get(i).is_some_and(|r| {
                    r.event.as_deref() == Some(event)
                        && (r.tool_use_id.is_none() || r.tool_use_id == id)
                })
            });
        }
        let i = match target {
            Some(i) => {
                if let Some(r) = self.records.get_mut(i) {
                    r.absorb(at.line, label);
                }
                i
            }
            None => self.start(at, label),
        };
        self.open_stop = None;
        let Some(r) = self.records.get_mut(i) else {
            return;
        };
        if r.event.is_none() {
            r.event = Some(event.to_string());
        }
        if r.tool_use_id.is_none() {
            r.tool_use_id = id;
        }
        for info in v
            .get("hookInfos")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let command = str_of(info, "command");
            let duration = info.get("durationMs").and_then(Value::as_u64);
            r.add_handler(command, duration);
        }
        if r.command.is_none() {
            r.command = r.handlers.first().and_then(|h| h.command.clone());
        }
        let handler_duration = r
            .handlers
            .iter()
            .find(|h| h.command.is_some() && h.command == r.command)
            .and_then(|h| h.duration_ms);
        r.duration_ms = r.duration_ms.or(handler_duration);
        let errors: Vec<String> = v
            .get("hookErrors")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(content_text).collect())
            .unwrap_or_default();
        let failed: Vec<usize> = v
            .get("failedHookErrorIndexes")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_u64)
                    .filter_map(|n| usize::try_from(n).ok())
                    .collect()
            })
            .unwrap_or_default();
        let blocking: Vec<&String> = errors
            .iter()
            .enumerate()
            .filter(|(k, _)| !failed.contains(k))
            .map(|(_, e)| e)
            .collect();
        if !blocking.is_empty() {
            if r.reason.is_none() {
                let joined: Vec<String> = blocking.iter().map(|e| r.name_handler_in(e)).collect();
                r.reason = Some(cap(&joined.join("; ")));
            }
            r.raise(HookAction::Blocked);
        } else if !errors.is_empty() {
            if r.reason.is_none() {
                r.reason = Some(cap(&errors.join("; ")));
            }
            r.raise(HookAction::Failed);
        }
        if v.get("preventedContinuation").and_then(Value::as_bool) == Some(true) {
            if r.reason.is_none() {
                r.reason = str_of(v, "stopReason").map(|s| cap(&s));
            }
            r.raise(HookAction::Blocked);
        }
        for ctx in v
            .get("hookAdditionalContext")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let t = content_text(ctx);
            if !t.trim().is_empty() {
                r.push_context(t);
            }
        }
    }

    /// A prompt a hook rejected ([`parse_rejected_prompt`]): one
    /// [`HookAction::Blocked`] firing of its event, with the `[…]` handler
    /// as its command and exit code 2, the reason without the prefix, and
    /// `kind` (`system/informational`, `user/blocked`) as its record kind.
    pub fn on_prompt_rejected(&mut self, rejected: &RejectedPrompt, kind: &str, at: &At) {
        let i = self.start(at, kind);
        if let Some(r) = self.records.get_mut(i) {
            r.event = Some(rejected.event.clone());
            r.hook_name = Some(rejected.event.clone());
            if let Some(command) = &rejected.command {
                r.command = Some(command.clone());
                r.add_handler(Some(command.clone()), None);
                r.exit_code = Some(2);
                r.stderr = Some(cap(&rejected.reason)).filter(|s| !s.is_empty());
            }
            r.reason = Some(cap(&rejected.reason)).filter(|s| !s.is_empty());
            r.raise(HookAction::Blocked);
        }
    }

    /// A user line's text that is hook output: `hookText: true` lines
    /// (`<Event> hook feedback:\n<reason>`) and `<Event> operation blocked
    /// by hook` texts. Returns whether it was one.
    pub fn on_user_text(&mut self, text: &str, hook_text: bool, at: &At) -> bool {
        let trimmed = text.trim_start();
        if let Some(rejected) = parse_rejected_prompt(trimmed, None) {
            self.on_prompt_rejected(&rejected, "user/blocked", at);
            return true;
        }
        let feedback = trimmed
            .split_once(" hook feedback:")
            .filter(|(e, _)| hook_text || (!e.is_empty() && !e.contains(char::is_whitespace)));
        let Some((event, reason)) = feedback else {
            if !hook_text {
                return false;
            }
            let i = self.start(at, "user/hookText");
            if let Some(r) = self.records.get_mut(i) {
                r.reason = Some(cap(trimmed));
                r.raise(HookAction::AddedContext);
                r.context.push(cap(trimmed));
            }
            return true;
        };
        let event = event.trim().to_string();
        let reason = reason.trim().to_string();
        // Merge into an open firing of the same event that has no feedback
        // yet, else start one.
        let open = self.open_stop.filter(|&i| {
            self.records
                .get(i)
                .is_some_and(|r| r.event.as_deref() == Some(event.as_str()))
        });
        let i = match open {
            Some(i) => {
                if let Some(r) = self.records.get_mut(i) {
                    r.absorb(at.line, "user/hookText");
                }
                i
            }
            None => self.start(at, "user/hookText"),
        };
        if let Some(r) = self.records.get_mut(i) {
            if r.event.is_none() {
                r.event = Some(event);
            }
            if !reason.is_empty() {
                let reason = r.name_handler_in(&reason);
                r.reason = Some(cap(&reason));
            }
            r.raise(HookAction::Blocked);
            if is_stop(r.event.as_deref()) {
                self.open_stop = Some(i);
            }
        }
        true
    }

    /// A Factory Droid hook line (a user `message` with `hookEventName`;
    /// real-droid-0.225.2 README "hook lines"; `m` is the `message`
    /// object): one firing per line. Read as Claude Code's older contract
    /// (docs/contract.md#factory-droid-hooks):
    ///
    /// * `event` = `hookEventName`, `hook_name` = `<event>:<hookMatcher>`
    ///   (`PreToolUse:Execute`, `SessionStart:startup`) or the event alone;
    /// * `tool_use_id` = `hookToolCallId` (tool events; Stop and SessionEnd
    ///   carry `hookParentId`, a message id, which is not kept);
    /// * `handlers` = `hookCommands[].command`; `duration_ms` =
    ///   `hookEndTime − hookStartTime` (ms, the whole firing);
    /// * the result that acted (`hookResults[]`: the first exit 2, else the
    ///   first other non-zero exit, else the first) gives `exit_code`,
    ///   `stdout`, `stderr` and, by index, `command`;
    /// * exit 2 on PreToolUse, PostToolUse, UserPromptSubmit, Stop or
    ///   SubagentStop is [`HookAction::Blocked`] (stderr is fed to the
    ///   model; a blocked tool's result then reads `Error: <stderr>`); any
    ///   other non-zero exit (and exit 2 on the other events) is
    ///   [`HookAction::Failed`]; an exit-0 stdout that is JSON is read as
    ///   Claude Code's (`decision`, `permissionDecision`, `continue`,
    ///   `hookSpecificOutput.updatedInput` / `additionalContext`); plain
    ///   exit-0 stdout of SessionStart or UserPromptSubmit is added context;
    /// * `hookStatus` `cancelled` is [`HookAction::Cancelled`]; `error` or
    ///   `timeout` without a failing result is [`HookAction::Failed`].
    ///
    /// Returns what was malformed (a field of the wrong JSON type), one
    /// message each, for the caller's diagnostics; the usable fields are
    /// kept.
    pub fn on_droid_hook(&mut self, m: &Value, at: &At) -> Vec<String> {
        let mut problems = Vec::new();
        let string_field = |key: &str, problems: &mut Vec<String>| match m.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()).filter(|s| !s.is_empty()),
            Some(other) => {
                problems.push(format!(
                    "{key} is a JSON {} where a string belongs",
                    json_type(other)
                ));
                None
            }
        };
        let event = string_field("hookEventName", &mut problems);
        let matcher = string_field("hookMatcher", &mut problems);
        let tool_call = string_field("hookToolCallId", &mut problems);
        let status = string_field("hookStatus", &mut problems);
        let list = |key: &str, problems: &mut Vec<String>| -> Vec<Value> {
            match m.get(key) {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items.clone(),
                Some(other) => {
                    problems.push(format!(
                        "{key} is a JSON {} where a list belongs",
                        json_type(other)
                    ));
                    Vec::new()
                }
            }
        };
        let commands = list("hookCommands", &mut problems);
        let results = list("hookResults", &mut problems);
        let i = self.start(at, "droid/hook");
        let Some(r) = self.records.get_mut(i) else {
            return problems;
        };
        r.hook_name = match (&event, &matcher) {
            (Some(e), Some(mt)) => Some(format!("{e}:{mt}")),
            (e, _) => e.clone(),
        };
        r.event = event;
        r.tool_use_id = tool_call;
        let mut command_of = Vec::new();
        for (k, c) in commands.iter().enumerate() {
            let command = match c.get("command") {
                Some(Value::String(s)) => Some(s.clone()),
                _ => {
                    problems.push(format!("hookCommands[{k}] has no command string"));
                    None
                }
            };
            command_of.push(command.clone());
            r.add_handler(command, None);
        }
        let ms = |key: &str| m.get(key).and_then(Value::as_u64);
        if let (Some(start), Some(end)) = (ms("hookStartTime"), ms("hookEndTime")) {
            r.duration_ms = end.checked_sub(start);
        }
        // (exit code, stdout, stderr) of each result.
        let mut outcomes: Vec<(Option<i64>, Option<String>, Option<String>)> = Vec::new();
        for (k, res) in results.iter().enumerate() {
            if !res.is_object() {
                problems.push(format!(
                    "hookResults[{k}] is a JSON {} where an object belongs",
                    json_type(res)
                ));
                outcomes.push((None, None, None));
                continue;
            }
            let code = match res.get("exitCode") {
                None | Some(Value::Null) => None,
                Some(v) => {
                    let code = v.as_i64();
                    if code.is_none() {
                        problems.push(format!(
                            "hookResults[{k}].exitCode is a JSON {} where an integer belongs",
                            json_type(v)
                        ));
                    }
                    code
                }
            };
            let text = |key: &str| {
                res.get(key)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(cap)
            };
            outcomes.push((code, text("stdout"), text("stderr")));
        }
        let acting = outcomes
            .iter()
            .position(|o| o.0 == Some(2))
            .or_else(|| outcomes.iter().position(|o| o.0.is_some_and(|c| c != 0)))
            .or_else(|| (!outcomes.is_empty()).then_some(0));
        let call_input = at.call.and_then(|(_, input)| input);
        // Exit-0 JSON stdout decides (each result's, in order).
        for (code, stdout, _) in &outcomes {
            if *code == Some(0) && stdout.is_some() {
                r.stdout = stdout.clone();
                r.read_stdout_json(call_input);
            }
        }
        r.command = acting
            .and_then(|k| command_of.get(k).cloned().flatten())
            .or_else(|| r.handlers.first().and_then(|h| h.command.clone()));
        if let Some((code, stdout, stderr)) = acting.and_then(|k| outcomes.get(k)).cloned() {
            r.exit_code = code;
            r.stdout = stdout;
            r.stderr = stderr;
        }
        let said = r.stderr.clone().or_else(|| r.stdout.clone());
        let blocks_on_2 = matches!(
            r.event.as_deref(),
            Some("PreToolUse" | "PostToolUse" | "UserPromptSubmit" | "Stop" | "SubagentStop")
        );
        match r.exit_code {
            Some(2) if blocks_on_2 => {
                r.reason = said;
                r.raise(HookAction::Blocked);
            }
            Some(c) if c != 0 => {
                r.reason = said;
                r.raise(HookAction::Failed);
            }
            Some(0)
                if matches!(
                    r.event.as_deref(),
                    Some("SessionStart" | "UserPromptSubmit")
                ) && r.action == HookAction::Succeeded =>
            {
                if let Some(out) = r.stdout.clone()
                    && !out.trim_start().starts_with('{')
                    && !out.trim().is_empty()
                {
                    r.push_context(out);
                }
            }
            _ => {}
        }
        match status.as_deref() {
            Some("cancelled" | "canceled") => r.raise(HookAction::Cancelled),
            Some(s @ ("error" | "timeout" | "timed_out" | "failed"))
                if r.action == HookAction::Succeeded =>
            {
                if r.reason.is_none() {
                    r.reason = Some(format!("hookStatus {s}"));
                }
                r.raise(HookAction::Failed);
            }
            _ => {}
        }
        problems
    }

    /// A `tool_result` whose text is a hook error
    /// ([`parse_result_hook_error`]): the call was blocked by its
    /// PreToolUse hook. `id` is the result's `tool_use_id`.
    pub fn on_tool_result(&mut self, id: &str, text: &str, at: &At) -> bool {
        let Some((name, command, reason)) = parse_result_hook_error(text) else {
            return false;
        };
        let event = event_of_name(&name).to_string();
        let call_line = at.call.map(|(l, _)| l);
        let i = match self.find(Some(&event), Some(id), command.as_deref(), call_line) {
            Some(i) => {
                if let Some(r) = self.records.get_mut(i) {
                    r.absorb(at.line, "tool_result");
                }
                i
            }
            None => self.start(at, "tool_result"),
        };
        if let Some(r) = self.records.get_mut(i) {
            r.event = Some(event);
            if r.hook_name.is_none() {
                r.hook_name = Some(name);
            }
            if r.tool_use_id.is_none() {
                r.tool_use_id = Some(id.to_string());
            }
            if r.call_line.is_none() {
                r.call_line = at.call.map(|(l, _)| l);
            }
            if r.command.is_none() && command.is_some() {
                // Claude Code writes `[<command>]: <stderr>` only for an
                // exit 2 (real-cc-2.1.332 README, C2 vs C3).
                r.exit_code = r.exit_code.or(Some(2));
                r.stderr = r.stderr.take().or_else(|| Some(cap(&reason)));
                r.command = command.clone();
                r.add_handler(command, None);
            }
            if r.reason.is_none() && !reason.is_empty() {
                r.reason = Some(cap(&reason));
            }
            if r.decision.is_none() && r.exit_code.is_none() && r.command.is_none() {
                // Without `[command]` the block came from a JSON deny.
                r.decision = Some("deny".to_string());
            }
            r.raise(HookAction::Blocked);
        }
        true
    }
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
