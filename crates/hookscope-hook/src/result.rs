//! What a hook returns, the JSON it would print, and what Claude Code then
//! does (docs/hook-api.md#results-and-actions; docs/contract.md#exit-codes-and-stdout, docs/contract.md#json-output-fields, docs/contract.md#decision-control-per-event, docs/contract.md#hooks-and-permissions).
//!
//! * [`HookResult`] / [`Action`]: captain_hook's result type,
//!   plus [`HookResult::system_message`] for what only the user sees.
//! * [`hook_output`]: the exit code, stdout JSON and stderr a hook returning
//!   that result prints for a given event (docs/contract.md#json-output-fields, docs/contract.md#decision-control-per-event).
//! * [`interpret_output`]: what Claude Code does with a hook's output
//!   ([`Outcome`]: blocked and the reason the model sees; input rewritten;
//!   context added; nothing) and why, including outputs it ignores (a flat
//!   `permissionDecision`, anthropics/claude-code#4669).
//! * [`combine`]: several results as Claude Code combines several hooks
//!   (deny > defer > ask > allow; `updatedInput` last-wins, flagged).
//!
//! Which event honours which field comes from the hook contract
//! ([`crate::contract`], by version) through [`EventControl::at`],
//! not from match arms spread over the functions. The `*_at` functions take
//! the Claude Code version; the others use the newest.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::contract::{self, Exit2Effect, StderrTo, Version};

/// How a hook result is handled (docs/hook-api.md#results-and-actions): exactly captain_hook's
/// four actions. "context" is not an action: it is [`Action::Warn`] with
/// [`HookResult::approve`] `false` (captain_hook's `context()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Prevents the tool use or stops the agent.
    Block,
    /// Adds advisory context without blocking (on PreToolUse also
    /// pre-approves the tool unless `approve` is false).
    Warn,
    /// Explicitly permits the action.
    Allow,
    /// Replaces a PreToolUse tool's input with `updated_input` and allows it.
    Rewrite,
}

impl Action {
    /// The four names, as written in JSON and rule files.
    pub const NAMES: [&'static str; 4] = ["block", "warn", "allow", "rewrite"];

    /// The lowercase name (`"block"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Block => "block",
            Action::Warn => "warn",
            Action::Allow => "allow",
            Action::Rewrite => "rewrite",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Action {
    type Err = String;
    /// Parses one of [`Action::NAMES`]; the error names the valid ones.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "block" => Ok(Action::Block),
            "warn" => Ok(Action::Warn),
            "allow" => Ok(Action::Allow),
            "rewrite" => Ok(Action::Rewrite),
            _ => Err(format!(
                "unknown action `{s}` (one of: {})",
                Action::NAMES.join(", ")
            )),
        }
    }
}

/// A hook handler's return value (captain_hook's `HookResult(*, action,
/// message=None, updated_input=None, note=None, approve=True)`).
///
/// `message` is what the model is told (a block's reason, a warning's
/// context). `updated_input` and `note` carry a rewrite's replacement tool
/// input and the advisory context surfaced beside it. `approve` gates the
/// `permissionDecision: allow` rider a PreToolUse warn carries.
/// `system_message` is hookscope's addition: the universal `systemMessage`
/// field (docs/contract.md#json-output-fields), shown to the user only, so a rule's `reason` (the
/// model) and `message` (the user) stay apart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookResult {
    /// What Claude Code should do.
    pub action: Action,
    /// What the model is told (reason or context).
    pub message: Option<String>,
    /// A rewrite's whole replacement tool input (Claude Code's `updatedInput`
    /// replaces, never merges: anthropics/claude-code#30770).
    pub updated_input: Option<Value>,
    /// Advisory context beside a rewrite (`additionalContext`).
    pub note: Option<String>,
    /// Whether a PreToolUse warn pre-approves the tool (default true).
    pub approve: bool,
    /// What the user alone sees (`systemMessage`); hookscope's addition.
    pub system_message: Option<String>,
}

impl HookResult {
    /// A result with `action` and `message` dedented and stripped, as
    /// captain_hook's `HookResult.of` does for triple-quoted messages; an
    /// empty message becomes `None`.
    pub fn of(action: Action, message: Option<&str>) -> Self {
        let message = message.map(dedent).filter(|m| !m.is_empty());
        HookResult {
            action,
            message,
            updated_input: None,
            note: None,
            approve: true,
            system_message: None,
        }
    }

    /// `block` with the reason the model sees.
    pub fn block(reason: &str) -> Self {
        Self::of(Action::Block, Some(reason))
    }

    /// `warn` (pre-approving on PreToolUse), the message as context.
    pub fn warn(message: &str) -> Self {
        Self::of(Action::Warn, Some(message))
    }

    /// captain_hook's `context()`: a warn with `approve = false`, so on
    /// PreToolUse the message is pure `additionalContext` and Claude Code's
    /// own permission flow still decides the tool.
    pub fn context(message: &str) -> Self {
        HookResult {
            approve: false,
            ..Self::warn(message)
        }
    }

    /// `allow`, without a message.
    pub fn allow() -> Self {
        Self::of(Action::Allow, None)
    }

    /// `rewrite(updated_input, note=…)`: allow with the whole replacement
    /// input; `note` surfaces as `additionalContext`.
    pub fn rewrite(updated_input: Value, note: Option<&str>) -> Self {
        HookResult {
            updated_input: Some(updated_input),
            note: note.map(str::to_string),
            ..Self::of(Action::Rewrite, None)
        }
    }
}

/// Strips the common leading whitespace of the non-blank lines, then the
/// surrounding whitespace (Python's `textwrap.dedent(s).strip()`).
pub fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| l.get(indent..).unwrap_or_else(|| l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// One part of captain_hook's `warn(*parts)`.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// A plain string, passed through verbatim.
    Text(String),
    /// A `(label, value)` tuple, rendered `"{label}: {json}"`.
    Labeled(String, Value),
    /// Any other object, JSON-encoded.
    Json(Value),
}

/// Renders `warn(*parts)`'s message: each part by its form, joined with
/// `"\n"` (captain_hook's `warn()`). JSON uses `serde_json`'s compact form.
pub fn render_parts(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|p| match p {
            Part::Text(s) => s.clone(),
            Part::Labeled(label, v) => format!("{label}: {v}"),
            Part::Json(v) => v.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What an event's output honours at a Claude Code version, read from the
/// hook contract ([`crate::contract`], `crates/hookscope-hook/contract/`;
/// docs/contract.md#exit-codes-and-stdout, docs/contract.md#decision-control-per-event). Unknown events (or events newer than the version) get the
/// "no control" row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EventControl {
    /// `hookSpecificOutput.permissionDecision` (+ `updatedInput`): PreToolUse.
    pub permission_decision: bool,
    /// `hookSpecificOutput.decision.behavior`: PermissionRequest.
    pub permission_request: bool,
    /// Top-level `decision: "block"` + `reason` (docs/contract.md#decision-control-per-event).
    pub decision_block: bool,
    /// `hookSpecificOutput.additionalContext` reaches the model.
    pub additional_context: bool,
    /// `hookSpecificOutput.updatedInput` (or `decision.updatedInput`).
    pub updated_input: bool,
    /// `hookSpecificOutput.updatedToolOutput` (or the older
    /// `updatedMCPToolOutput`): what the model sees instead of the tool's
    /// output (PostToolUse).
    pub updated_output: bool,
    /// Exit 2 blocks (docs/contract.md#exit-codes-and-stdout).
    pub exit2_blocks: bool,
    /// Who reads a block's reason and exit-2 stderr: `"model"`, `"user"`,
    /// `"debug log"` or `"nobody"` (the contract's `exit2.stderr_to`).
    pub reason_to: &'static str,
    /// `systemMessage` is shown (not discarded, docs/contract.md#json-output-fields).
    pub system_message: bool,
    /// Plain (non-JSON) stdout on exit 0 is added to the model's context.
    pub plain_stdout_context: bool,
    /// No decision, context or block of any kind (docs/contract.md#decision-control-per-event, "No decision control").
    pub no_control: bool,
}

impl EventControl {
    /// The row for `event` (a `hook_event_name`) at the newest version.
    pub fn of(event: &str) -> EventControl {
        Self::at(event, &Version::latest())
    }

    /// The row for `event` as of Claude Code `version`.
    pub fn at(event: &str, version: &Version) -> EventControl {
        let Some(c) = contract::event(event, version) else {
            return EventControl {
                permission_decision: false,
                permission_request: false,
                decision_block: false,
                additional_context: false,
                updated_input: false,
                updated_output: false,
                exit2_blocks: false,
                reason_to: "nobody",
                system_message: false,
                plain_stdout_context: false,
                no_control: true,
            };
        };
        let has = |field: &str| c.honours(field, None, version);
        let permission_decision = has("hookSpecificOutput.permissionDecision");
        let permission_request = has("hookSpecificOutput.decision.behavior");
        let decision_block = c.honours("decision", Some(&json!("block")), version);
        let additional_context = has("hookSpecificOutput.additionalContext");
        let exit2_blocks = c.exit2.effect == Exit2Effect::Block;
        let other_specific = c
            .output_at(version)
            .any(|f| f.field.starts_with("hookSpecificOutput."));
        EventControl {
            permission_decision,
            permission_request,
            decision_block,
            additional_context,
            updated_input: has("hookSpecificOutput.updatedInput")
                || has("hookSpecificOutput.decision.updatedInput"),
            updated_output: has("hookSpecificOutput.updatedToolOutput")
                || has("hookSpecificOutput.updatedMCPToolOutput"),
            exit2_blocks,
            reason_to: match c.exit2.stderr_to {
                StderrTo::Claude => "model",
                StderrTo::User => "user",
                StderrTo::DebugLog => "debug log",
                StderrTo::Discarded => "nobody",
            },
            system_message: has("systemMessage"),
            plain_stdout_context: c.stdout_to_context(version),
            no_control: !(permission_decision
                || permission_request
                || decision_block
                || additional_context
                || exit2_blocks
                || other_specific),
        }
    }

    /// Whether a hook can block this event at all (by JSON or exit 2).
    pub fn can_block(&self) -> bool {
        self.permission_decision
            || self.permission_request
            || self.decision_block
            || self.exit2_blocks
    }

    /// Whether `updatedInput` is honoured (PreToolUse, PermissionRequest).
    pub fn can_rewrite(&self) -> bool {
        self.updated_input
    }
}

/// What a hook prints: exit code, stdout (JSON or nothing) and stderr,
/// plus notes on what the result could not express for this event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookOutput {
    /// Process exit status (0, or 2 where only exit 2 blocks).
    pub exit_code: i32,
    /// The JSON object printed on stdout, if any.
    pub stdout: Option<Value>,
    /// Text written to stderr, if any.
    pub stderr: Option<String>,
    /// Parts of the result this event ignores, in plain words.
    pub notes: Vec<String>,
}

impl HookOutput {
    /// Exit 0, nothing printed.
    pub fn empty() -> Self {
        HookOutput {
            exit_code: 0,
            stdout: None,
            stderr: None,
            notes: Vec::new(),
        }
    }
}

/// The output a hook returning `result` prints for `event`
/// (docs/contract.md#json-output-fields, docs/contract.md#decision-control-per-event):
///
/// * PreToolUse: `hookSpecificOutput` with `hookEventName`,
///   `permissionDecision` (`deny` for block; `allow` for allow, rewrite and
///   an approving warn; none for a context warn), `permissionDecisionReason`,
///   `updatedInput`, `additionalContext`.
/// * PermissionRequest: `hookSpecificOutput.decision.behavior` (`deny` with
///   `message`, or `allow` with `updatedInput`); a warn falls through
///   (docs/hook-api.md#results-and-actions).
/// * Top-level block events: `{"decision":"block","reason":…}`; warnings as
///   `hookSpecificOutput.additionalContext` where honoured.
/// * Events that block by exit 2 only (TaskCompleted, TeammateIdle, …):
///   exit 2 with the reason on stderr.
/// * `system_message` becomes `systemMessage` where shown.
pub fn hook_output(event: &str, result: &HookResult) -> HookOutput {
    hook_output_at(event, &Version::latest(), result)
}

/// [`hook_output`] as of Claude Code `version` (the contract's row then).
pub fn hook_output_at(event: &str, version: &Version, result: &HookResult) -> HookOutput {
    let control = EventControl::at(event, version);
    let mut out = HookOutput::empty();
    let mut top = Map::new();
    let mut specific = Map::new();
    let message = result.message.clone();
    let context_of = |r: &HookResult| match r.action {
        Action::Warn => r.message.clone(),
        Action::Rewrite | Action::Allow | Action::Block => r.note.clone(),
    };
    if control.no_control {
        out.notes.push(format!(
            "{event} ignores hook output: the {} has no effect",
            result.action
        ));
        return out;
    }
    match result.action {
        Action::Block if control.permission_decision => {
            specific.insert("permissionDecision".into(), json!("deny"));
            if let Some(m) = &message {
                specific.insert("permissionDecisionReason".into(), json!(m));
            }
        }
        Action::Block if control.permission_request => {
            let mut d = Map::new();
            d.insert("behavior".into(), json!("deny"));
            if let Some(m) = &message {
                d.insert("message".into(), json!(m));
            }
            specific.insert("decision".into(), Value::Object(d));
        }
        Action::Block if control.decision_block => {
            top.insert("decision".into(), json!("block"));
            if let Some(m) = &message {
                top.insert("reason".into(), json!(m));
            }
        }
        Action::Block if control.exit2_blocks => {
            out.exit_code = 2;
            out.stderr = message.clone().or_else(|| Some(String::new()));
        }
        Action::Block => out.notes.push(format!(
            "{event} cannot be blocked: the block has no effect"
        )),
        Action::Allow | Action::Rewrite | Action::Warn if control.permission_decision => {
            let approve = result.action != Action::Warn || result.approve;
            if approve {
                specific.insert("permissionDecision".into(), json!("allow"));
            }
            if result.action == Action::Allow
                && let Some(m) = &message
            {
                specific.insert("permissionDecisionReason".into(), json!(m));
            }
            if result.action == Action::Rewrite {
                match &result.updated_input {
                    Some(u) => {
                        specific.insert("updatedInput".into(), u.clone());
                    }
                    None => out
                        .notes
                        .push("rewrite without updated_input: only the allow is printed".into()),
                }
            }
        }
        Action::Allow | Action::Rewrite if control.permission_request => {
            let mut d = Map::new();
            d.insert("behavior".into(), json!("allow"));
            if let Some(u) = result
                .updated_input
                .as_ref()
                .filter(|_| result.action == Action::Rewrite)
            {
                d.insert("updatedInput".into(), u.clone());
            }
            specific.insert("decision".into(), Value::Object(d));
        }
        Action::Warn if control.permission_request => out
            .notes
            .push("PermissionRequest: a warn falls through; the dialog shows normally".into()),
        Action::Rewrite => out.notes.push(format!(
            "{event} does not take updatedInput: the rewrite has no effect"
        )),
        Action::Allow | Action::Warn => {}
    }
    if let Some(ctx) = context_of(result) {
        if control.additional_context {
            specific.insert("additionalContext".into(), json!(ctx));
        } else if result.action == Action::Warn {
            out.notes.push(format!(
                "{event} does not take additionalContext: the warning reaches no one"
            ));
        }
    }
    if let Some(sm) = &result.system_message {
        if control.system_message {
            top.insert("systemMessage".into(), json!(sm));
        } else {
            out.notes.push(format!(
                "{event} discards systemMessage: the user sees nothing"
            ));
        }
    }
    if !specific.is_empty() {
        let mut hso = Map::new();
        hso.insert("hookEventName".into(), json!(event));
        hso.extend(specific);
        top.insert("hookSpecificOutput".into(), Value::Object(hso));
    }
    if !top.is_empty() {
        out.stdout = Some(Value::Object(top));
    }
    out
}

/// What Claude Code does after the hooks ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// The tool call, prompt, stop, … is blocked (or, on Stop, Claude is
    /// kept going; on PostToolUse the tool already ran and the reason is
    /// shown beside its result).
    Blocked,
    /// The user is asked (`permissionDecision: ask`).
    Asked,
    /// The tool call is deferred (`defer`, `-p` only).
    Deferred,
    /// Claude stops entirely (`continue: false`).
    Stopped,
    /// The tool runs with a replaced input.
    InputRewritten,
    /// The tool already ran; the model sees the hook's text instead of its
    /// output (PostToolUse `updatedToolOutput`, [`Outcome::updated_output`]).
    OutputReplaced,
    /// The tool is allowed without a prompt (permission rules still apply).
    Allowed,
    /// Context is added for the model; nothing else changes.
    ContextAdded,
    /// Nothing changes.
    Nothing,
}

/// What Claude Code does with one hook's output, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// The effect.
    pub effect: Effect,
    /// What the model is told (a block reason, added context).
    pub model_sees: Option<String>,
    /// What the user alone sees (a block reason on user-facing events,
    /// `systemMessage`, `stopReason`).
    pub user_sees: Option<String>,
    /// The replacement tool input, when rewritten.
    pub updated_input: Option<Value>,
    /// What the model sees instead of the tool's output: the hook's
    /// `hookSpecificOutput.updatedToolOutput` (or `updatedMCPToolOutput`)
    /// verbatim, on PostToolUse (docs/replay-and-backtest.md "Running your real hooks").
    pub updated_output: Option<Value>,
    /// One line per step of the reasoning, with the docs section it rests on.
    pub why: Vec<String>,
}

impl Outcome {
    /// An outcome with `effect` and nothing else: no text for the model
    /// or the user, no replaced input or output, no reasoning yet (each
    /// dialect's reader fills in what its answer says).
    pub fn new(effect: Effect) -> Self {
        Outcome {
            effect,
            model_sees: None,
            user_sees: None,
            updated_input: None,
            updated_output: None,
            why: Vec::new(),
        }
    }

    /// One line: `blocked — the model is told: …` (line breaks inside the
    /// texts, e.g. a block reason followed by its note, become spaces).
    pub fn summary(&self) -> String {
        let flat = |t: &str| {
            t.split('\n')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let what = match self.effect {
            Effect::Blocked => "blocked",
            Effect::Asked => "the user is asked",
            Effect::Deferred => "deferred",
            Effect::Stopped => "Claude stops",
            Effect::InputRewritten => "input rewritten",
            Effect::OutputReplaced => "output replaced",
            Effect::Allowed => "allowed",
            Effect::ContextAdded => "context added",
            Effect::Nothing => "nothing",
        };
        let mut s = what.to_string();
        if let Some(m) = &self.model_sees {
            s.push_str(&format!(" — the model is told: {}", flat(m)));
        }
        if let Some(u) = &self.user_sees {
            s.push_str(&format!(" — the user sees: {}", flat(u)));
        }
        if let Some(out) = &self.updated_output {
            s.push_str(&format!(
                " — the model sees this output instead: {}",
                flat(&crate::text::output_text(out))
            ));
        }
        s
    }
}

/// Claude Code's PreToolUse permission decisions, ordered by precedence
/// when several hooks answer: deny > defer > ask > allow (docs/contract.md#decision-control-per-event).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionDecision {
    /// Lowest precedence.
    Allow,
    /// Forces a prompt.
    Ask,
    /// `-p` only.
    Defer,
    /// Always wins.
    Deny,
}

impl PermissionDecision {
    /// Parses `allow|ask|defer|deny`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "allow" => Some(Self::Allow),
            "ask" => Some(Self::Ask),
            "defer" => Some(Self::Defer),
            "deny" => Some(Self::Deny),
            _ => None,
        }
    }

    /// The decision that wins among several hooks' decisions (the maximum by
    /// precedence), `None` when none decided.
    pub fn combine<I: IntoIterator<Item = PermissionDecision>>(decisions: I) -> Option<Self> {
        decisions.into_iter().max()
    }
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// What Claude Code does with a hook's output for `event` (docs/contract.md#exit-codes-and-stdout:
/// exit codes and stdout parsing; docs/contract.md#decision-control-per-event: fields per event).
///
/// `stdout` is the text printed (JSON when it starts with `{` after leading
/// whitespace and parses; else plain text). Flags outputs Claude Code
/// ignores: a flat `permissionDecision` outside `hookSpecificOutput`
/// (anthropics/claude-code#4669), a missing or mismatched `hookEventName`,
/// fields the event does not honour, exit 2 where it has no effect; maps the
/// deprecated PreToolUse `decision: approve|block` to allow/deny, flagged.
pub fn interpret_output(event: &str, exit_code: i32, stdout: &str, stderr: &str) -> Outcome {
    interpret_output_at(event, &Version::latest(), exit_code, stdout, stderr)
}

/// Deepest nesting of a hook's JSON answer hookscope reads (arrays and
/// objects, 1,000 levels): JavaScript's `JSON.parse` reads deeper than
/// serde_json's default of 128, so a deny beside a deep value must not
/// become "not JSON". Past this the answer is not read, and the reading
/// says so (docs/security.md "Running hooks").
pub const MAX_ANSWER_DEPTH: usize = 1_000;

/// A hook's stdout as JSON, nested up to [`MAX_ANSWER_DEPTH`] levels:
/// within serde_json's default (128) as usual; deeper, without its limit
/// on a thread with a stack sized for it. `None` when not JSON or deeper.
fn parse_deep(stdout: &str) -> Option<Value> {
    let depth = crate::json_line::nesting_depth(stdout.as_bytes(), MAX_ANSWER_DEPTH);
    if depth <= 100 {
        return serde_json::from_str::<Value>(stdout).ok();
    }
    if depth > MAX_ANSWER_DEPTH {
        return None;
    }
    let text = stdout.to_string();
    // A few KiB of stack per level in a debug build, with room to spare.
    let stack = (1 << 20) + depth.saturating_mul(8192);
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            use serde::Deserialize;
            let mut de = serde_json::Deserializer::from_str(&text);
            de.disable_recursion_limit();
            let value = Value::deserialize(&mut de).ok()?;
            de.end().ok()?;
            Some(value)
        })
        .ok()?
        .join()
        .ok()
        .flatten()
}

/// [`interpret_output`] as of Claude Code `version`.
pub fn interpret_output_at(
    event: &str,
    version: &Version,
    exit_code: i32,
    stdout: &str,
    stderr: &str,
) -> Outcome {
    let control = EventControl::at(event, version);
    let parsed: Option<Value> = stdout
        .trim_start()
        .starts_with('{')
        .then(|| parse_deep(stdout))
        .flatten()
        .filter(Value::is_object);
    let stderr_text = (!stderr.trim().is_empty()).then(|| stderr.trim_end().to_string());
    if control.no_control {
        let mut o = Outcome::new(Effect::Nothing);
        o.why.push(format!(
            "{event} has no decision control: its output is ignored (docs/contract.md#decision-control-per-event)"
        ));
        return o;
    }
    if exit_code == 2 {
        if control.exit2_blocks {
            let reason = parsed
                .as_ref()
                .and_then(|j| {
                    j.get("hookSpecificOutput")
                        .and_then(|h| str_field(h, "permissionDecisionReason"))
                        .or_else(|| str_field(j, "reason"))
                })
                .map(str::to_string)
                .or(stderr_text);
            let mut o = Outcome::new(Effect::Blocked);
            o.why.push(format!(
                "exit 2 blocks {event}, even if the JSON says allow (docs/contract.md#exit-codes-and-stdout)"
            ));
            if control.reason_to == "user" {
                o.user_sees = reason;
            } else {
                o.model_sees = reason;
            }
            return o;
        }
        let mut o = Outcome::new(Effect::Nothing);
        if event == "PermissionRequest" {
            o.why.push(
                "PermissionRequest ignores exit 2 and discards stderr: answer with decision.behavior (docs/contract.md#exit-codes-and-stdout, anthropics/claude-code#19298)".into(),
            );
        } else if control.reason_to == "model" {
            o.effect = if stderr_text.is_some() {
                Effect::ContextAdded
            } else {
                Effect::Nothing
            };
            o.model_sees = stderr_text;
            o.why.push(format!(
                "exit 2 does not block {event}; stderr goes to Claude (docs/contract.md#exit-codes-and-stdout)"
            ));
        } else {
            o.why.push(format!(
                "exit 2 does not block {event}; stderr goes to the {} (docs/contract.md#exit-codes-and-stdout)",
                control.reason_to
            ));
            if control.reason_to == "user" {
                o.user_sees = stderr_text;
            }
        }
        if parsed.is_none() {
            return o;
        }
    }
    let Some(json) = parsed else {
        let mut o = Outcome::new(Effect::Nothing);
        let text = stdout.trim();
        if exit_code != 0 {
            o.why.push(format!(
                "exit {exit_code} without JSON: a non-blocking error, the action proceeds (docs/contract.md#exit-codes-and-stdout, eqtylab/cupcake#117)"
            ));
        } else if text.is_empty() {
            o.why.push("exit 0 and no output: no decision".into());
        } else if control.plain_stdout_context {
            o.effect = Effect::ContextAdded;
            o.model_sees = Some(text.to_string());
            o.why.push(format!(
                "plain stdout on {event} is added to Claude's context (docs/contract.md#exit-codes-and-stdout)"
            ));
        } else if text.starts_with('{')
            && crate::json_line::nesting_depth(text.as_bytes(), MAX_ANSWER_DEPTH) > MAX_ANSWER_DEPTH
        {
            o.why.push(format!(
                "stdout is JSON nested deeper than {MAX_ANSWER_DEPTH} levels: hookscope does not read it, so it cannot tell what Claude Code would do (JavaScript's JSON.parse reads it and acts on any decision in it)"
            ));
        } else if text.starts_with('{') {
            o.why.push(
                "stdout starts with `{` but is not a JSON object: treated as plain text, debug log only (docs/contract.md#exit-codes-and-stdout)".into(),
            );
        } else {
            o.why.push(
                "stdout does not start with `{`: plain text, debug log only (docs/contract.md#exit-codes-and-stdout)".into(),
            );
        }
        return o;
    };
    interpret_json(event, &control, &json)
}

fn interpret_json(event: &str, control: &EventControl, json: &Value) -> Outcome {
    let mut o = Outcome::new(Effect::Nothing);
    let hso = json.get("hookSpecificOutput").filter(|h| h.is_object());
    if let Some(h) = hso {
        match str_field(h, "hookEventName") {
            Some(name) if name == event => {}
            Some(name) => o.why.push(format!(
                "hookSpecificOutput.hookEventName is \"{name}\", not \"{event}\": Claude Code rejects it (docs/contract.md#json-output-fields)"
            )),
            None => o.why.push(
                "hookSpecificOutput lacks hookEventName: Claude Code rejects it (docs/contract.md#json-output-fields)".into(),
            ),
        }
    }
    let hso_ok = hso.filter(|h| str_field(h, "hookEventName") == Some(event));
    read_updated_output(event, control, hso_ok, &mut o);
    if let Some(sm) = str_field(json, "systemMessage") {
        if control.system_message {
            o.user_sees = Some(sm.to_string());
        } else {
            o.why.push(format!(
                "{event} discards systemMessage (docs/contract.md#json-output-fields)"
            ));
        }
    }
    if json.get("continue") == Some(&Value::Bool(false)) {
        o.effect = Effect::Stopped;
        o.user_sees = str_field(json, "stopReason")
            .map(str::to_string)
            .or(o.user_sees);
        o.why.push(
            "continue: false stops Claude entirely and beats every decision field (docs/contract.md#json-output-fields)"
                .into(),
        );
        return o;
    }
    if control.permission_decision {
        for key in [
            "permissionDecision",
            "permissionDecisionReason",
            "updatedInput",
        ] {
            if json.get(key).is_some() {
                o.why.push(format!(
                    "`{key}` at the top level is ignored: it belongs inside hookSpecificOutput (anthropics/claude-code#4669)"
                ));
            }
        }
        let mut decision = hso_ok
            .and_then(|h| str_field(h, "permissionDecision"))
            .and_then(PermissionDecision::parse);
        let mut reason = hso_ok
            .and_then(|h| str_field(h, "permissionDecisionReason"))
            .map(str::to_string);
        if decision.is_none() {
            match str_field(json, "decision") {
                Some("approve") => {
                    decision = Some(PermissionDecision::Allow);
                    o.why.push(
                        "deprecated top-level decision \"approve\" maps to allow (docs/contract.md#decision-control-per-event)"
                            .into(),
                    );
                }
                Some("block") => {
                    decision = Some(PermissionDecision::Deny);
                    o.why.push(
                        "deprecated top-level decision \"block\" maps to deny (docs/contract.md#decision-control-per-event)"
                            .into(),
                    );
                }
                _ => {}
            }
            if decision.is_some() {
                reason = str_field(json, "reason").map(str::to_string);
            }
        }
        let context = hso_ok
            .and_then(|h| str_field(h, "additionalContext"))
            .map(str::to_string);
        match decision {
            Some(PermissionDecision::Deny) => {
                o.effect = Effect::Blocked;
                o.model_sees = reason;
                if o.model_sees.is_none() {
                    o.why.push(
                        "deny without permissionDecisionReason: the model sees only that the hook denied the tool (hookify's bug, docs/contract.md#blocks-without-a-reason)".into(),
                    );
                }
                o.why
                    .push("permissionDecision deny blocks the call, even under bypassPermissions (docs/contract.md#decision-control-per-event)".into());
                return o;
            }
            Some(PermissionDecision::Ask) => {
                o.effect = Effect::Asked;
                o.user_sees = reason;
                o.why.push("permissionDecision ask: the user is prompted; the reason goes to the user (docs/contract.md#decision-control-per-event)".into());
            }
            Some(PermissionDecision::Defer) => {
                o.effect = Effect::Deferred;
                o.why.push("permissionDecision defer: only in -p with one tool call in the turn, else ignored (docs/contract.md#decision-control-per-event)".into());
            }
            Some(PermissionDecision::Allow) => {
                o.effect = Effect::Allowed;
                o.why.push(
                    "permissionDecision allow skips the prompt, but settings deny/ask rules still apply (docs/contract.md#decision-control-per-event, docs/contract.md#hooks-and-permissions)".into(),
                );
            }
            None => {}
        }
        if let Some(u) = hso_ok.and_then(|h| h.get("updatedInput")) {
            if decision == Some(PermissionDecision::Allow) {
                o.effect = Effect::InputRewritten;
                o.updated_input = Some(u.clone());
                o.why.push("updatedInput replaces the whole tool input (not a merge; anthropics/claude-code#30770)".into());
            } else {
                o.why.push(
                    "updatedInput without permissionDecision allow is not applied (docs/contract.md#decision-control-per-event)"
                        .into(),
                );
            }
        }
        if let Some(c) = context {
            if o.effect == Effect::Nothing {
                o.effect = Effect::ContextAdded;
            }
            o.model_sees = Some(c);
        }
        return o;
    }
    if control.permission_request {
        let d = hso_ok.and_then(|h| h.get("decision"));
        match d.and_then(|d| str_field(d, "behavior")) {
            Some("deny") => {
                o.effect = Effect::Blocked;
                o.user_sees = d.and_then(|d| str_field(d, "message")).map(str::to_string);
                o.why.push(
                    "decision.behavior deny answers the dialog with a denial (docs/contract.md#decision-control-per-event)"
                        .into(),
                );
            }
            Some("allow") => {
                o.effect = Effect::Allowed;
                o.why.push("decision.behavior allow answers the dialog; updatedInput is re-checked against deny/ask rules (docs/contract.md#decision-control-per-event)".into());
                if let Some(u) = d.and_then(|d| d.get("updatedInput")) {
                    o.effect = Effect::InputRewritten;
                    o.updated_input = Some(u.clone());
                }
            }
            Some(other) => o.why.push(format!(
                "decision.behavior \"{other}\" is not allow or deny: ignored"
            )),
            None => {
                if json.get("decision").is_some()
                    || hso_ok.and_then(|h| h.get("permissionDecision")).is_some()
                {
                    o.why.push("PermissionRequest answers only through hookSpecificOutput.decision.behavior (anthropics/claude-code#19298)".into());
                }
                o.why
                    .push("no decision: the permission dialog shows normally".into());
            }
        }
        return o;
    }
    if let Some(h) = hso_ok
        && h.get("permissionDecision").is_some()
    {
        o.why.push(format!(
            "permissionDecision is meaningless on {event}: ignored (anthropics/claude-code PR #68671)"
        ));
    }
    match str_field(json, "decision") {
        Some("block") if control.decision_block => {
            o.effect = Effect::Blocked;
            let reason = str_field(json, "reason").map(str::to_string);
            if control.reason_to == "user" {
                o.user_sees = reason;
            } else {
                o.model_sees = reason;
            }
            o.why.push(match event {
                "Stop" | "SubagentStop" => "decision block keeps Claude going; the reason is its next instruction (docs/contract.md#decision-control-per-event)".to_string(),
                "PostToolUse" | "PostToolUseFailure" => "decision block on a tool that already ran: the reason is shown to Claude beside the result (docs/contract.md#decision-control-per-event)".to_string(),
                "UserPromptSubmit" => "decision block erases the prompt; the reason is shown to the user only (docs/contract.md#decision-control-per-event)".to_string(),
                _ => format!("decision block is honoured on {event} (docs/contract.md#decision-control-per-event)"),
            });
        }
        Some("block") => o.why.push(format!(
            "top-level decision block is not honoured on {event} (docs/contract.md#decision-control-per-event)"
        )),
        Some(other) => o.why.push(format!(
            "top-level decision \"{other}\" is not \"block\": ignored (docs/contract.md#decision-control-per-event)"
        )),
        None => {}
    }
    if let Some(c) = hso_ok.and_then(|h| str_field(h, "additionalContext")) {
        if control.additional_context {
            if o.effect == Effect::Nothing {
                o.effect = Effect::ContextAdded;
                o.model_sees = Some(c.to_string());
            } else {
                let joined = match o.model_sees.take() {
                    Some(r) => format!("{r}\n{c}"),
                    None => c.to_string(),
                };
                o.model_sees = Some(joined);
            }
        } else {
            o.why.push(format!(
                "{event} does not take additionalContext: ignored (docs/contract.md#decision-control-per-event)"
            ));
        }
    }
    if o.why.is_empty() && o.effect == Effect::Nothing {
        o.why
            .push("the JSON holds no decision for this event".into());
    }
    o
}

/// Reads `hookSpecificOutput.updatedToolOutput` (else the older
/// `updatedMCPToolOutput`) into [`Outcome::updated_output`]: on an event that
/// honours it (PostToolUse) the model sees it instead of the tool's output
/// (the effect becomes [`Effect::OutputReplaced`] unless something stronger,
/// a `decision: "block"`, already holds); elsewhere it is ignored, said in
/// the why. A `null` value is no replacement.
fn read_updated_output(event: &str, control: &EventControl, hso: Option<&Value>, o: &mut Outcome) {
    let Some((key, value)) = ["updatedToolOutput", "updatedMCPToolOutput"]
        .into_iter()
        .find_map(|k| hso?.get(k).filter(|v| !v.is_null()).map(|v| (k, v)))
    else {
        return;
    };
    if !control.updated_output {
        o.why.push(format!("{event} does not take {key}: ignored"));
        return;
    }
    o.updated_output = Some(value.clone());
    if o.effect == Effect::Nothing {
        o.effect = Effect::OutputReplaced;
    }
    o.why.push(if key == "updatedMCPToolOutput" {
        "updatedMCPToolOutput (the older name, for MCP tools) replaces what the model sees of the tool's output; the tool already ran".to_string()
    } else {
        "updatedToolOutput replaces what the model sees of the tool's output; the tool already ran (for a built-in tool it must have the tool's output shape, Bash: {stdout, stderr, interrupted, isImage}, or Claude Code ignores it)".to_string()
    });
}

/// What Claude Code does after a hook returned `result` on `event`:
/// [`interpret_output`] over [`hook_output`], with the output's notes first.
pub fn outcome(event: &str, result: &HookResult) -> Outcome {
    let out = hook_output(event, result);
    let stdout = out
        .stdout
        .as_ref()
        .map(Value::to_string)
        .unwrap_or_default();
    let mut o = interpret_output(
        event,
        out.exit_code,
        &stdout,
        out.stderr.as_deref().unwrap_or(""),
    );
    let mut why = out.notes;
    why.append(&mut o.why);
    o.why = why;
    o
}

/// Several hooks' results merged as Claude Code merges them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Combined {
    /// The merged result, `None` when no result was given.
    pub result: Option<HookResult>,
    /// The PreToolUse decision that wins (deny > defer > ask > allow).
    pub decision: Option<PermissionDecision>,
    /// Warnings about the merge (several `updatedInput`, several reasons).
    pub flags: Vec<String>,
}

/// Merges `results` (each with the id of the rule or hook that gave it, in
/// evaluation order) as Claude Code merges several hooks (docs/contract.md#decision-control-per-event):
///
/// * any block wins (deny > defer > ask > allow); its message is the first
///   block's, later blocks are flagged;
/// * otherwise a rewrite: `updatedInput` is the **last** rewrite's (Claude
///   Code: the last hook to finish wins, non-deterministic), flagged when
///   there were several (anthropics/claude-code#15897);
/// * warn messages and rewrite notes join (newline) as the one
///   `additionalContext`; `approve` holds if any warn approves or an allow
///   or rewrite is present; `system_message`s join.
pub fn combine(results: &[(String, HookResult)]) -> Combined {
    let mut flags = Vec::new();
    if results.is_empty() {
        return Combined {
            result: None,
            decision: None,
            flags,
        };
    }
    let decision =
        PermissionDecision::combine(results.iter().filter_map(|(_, r)| match r.action {
            Action::Block => Some(PermissionDecision::Deny),
            Action::Allow | Action::Rewrite => Some(PermissionDecision::Allow),
            Action::Warn => r.approve.then_some(PermissionDecision::Allow),
        }));
    let join = |items: Vec<String>| (!items.is_empty()).then(|| items.join("\n"));
    let system_message = join(
        results
            .iter()
            .filter_map(|(_, r)| r.system_message.clone())
            .collect(),
    );
    let blocks: Vec<&(String, HookResult)> = results
        .iter()
        .filter(|(_, r)| r.action == Action::Block)
        .collect();
    if let Some((first_id, first)) = blocks.first() {
        if blocks.len() > 1 {
            let others: Vec<&str> = blocks[1..].iter().map(|(id, _)| id.as_str()).collect();
            flags.push(format!(
                "{} rules block; the reason shown is `{first_id}`'s (also: {})",
                blocks.len(),
                others.join(", ")
            ));
        }
        let mut r = first.clone();
        r.system_message = system_message;
        return Combined {
            result: Some(r),
            decision,
            flags,
        };
    }
    let contexts: Vec<String> = results
        .iter()
        .filter_map(|(_, r)| match r.action {
            Action::Warn => r.message.clone(),
            Action::Rewrite => r.note.clone(),
            _ => None,
        })
        .collect();
    let rewrites: Vec<&(String, HookResult)> = results
        .iter()
        .filter(|(_, r)| r.action == Action::Rewrite)
        .collect();
    let approve = results
        .iter()
        .any(|(_, r)| r.action != Action::Warn || r.approve);
    let merged = if let Some((last_id, last)) = rewrites.last() {
        if rewrites.len() > 1 {
            let ids: Vec<&str> = rewrites.iter().map(|(id, _)| id.as_str()).collect();
            flags.push(format!(
                "{} rules rewrite the input ({}): Claude Code keeps the last hook to finish, which is not deterministic; hookscope keeps `{last_id}`'s",
                rewrites.len(),
                ids.join(", ")
            ));
        }
        HookResult {
            note: join(contexts),
            ..(*last).clone()
        }
    } else if results.iter().any(|(_, r)| r.action == Action::Warn) {
        HookResult {
            action: Action::Warn,
            message: join(contexts),
            updated_input: None,
            note: None,
            approve,
            system_message: None,
        }
    } else {
        let first_allow = results
            .iter()
            .find(|(_, r)| r.action == Action::Allow)
            .map(|(_, r)| r.clone());
        first_allow.unwrap_or_else(HookResult::allow)
    };
    Combined {
        result: Some(HookResult {
            system_message,
            ..merged
        }),
        decision,
        flags,
    }
}

#[cfg(test)]
mod tests;
