//! The records `find_tool_calls` returns (docs/tool-calls.md#the-find-query) and the subagent cost
//! attached to spawns.

use chrono::{DateTime, Utc};
use hookscope_hook::event::EventKey;
use serde::Serialize;
use serde_json::Value;

use crate::tools::ToolKind;
use crate::transcript::{Agent, Subagent, ToolCallRecord, Usage};

/// One tool call found by `find_tool_calls`. Serialized field names are the
/// original `find_tool_calls`'.
///
/// `input` and `output` are emitted after redaction (when `redact`) and then
/// truncation: `output` per the output mode at [`super::output::OUTPUT_CAP`]
/// chars; `input` keeps its JSON type, with long string values inside it cut
/// (`…[truncated]`) so that its compact text fits
/// [`super::output::INPUT_CAP`] chars (see `cap_input` in [`super`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FoundCall {
    /// Session id (the main transcript's file stem; for Codex the
    /// `session_meta` id).
    pub session: String,
    /// Which agent wrote it (`"claude-code"`, `"codex"`, `"opencode"`, `"droid"`).
    pub agent: Agent,
    /// The call's timestamp (its assistant line; the result's when absent).
    pub timestamp: Option<DateTime<Utc>>,
    /// `tool_use.id` (Codex: `call_id`), the join key to a spawned child.
    pub tool_use_id: String,
    /// Tool name exactly as invoked.
    pub tool_name: String,
    /// `edit/write/read/bash/task/skill/mcp/web/other` (docs/tool-calls.md#tool-kind-and-resolved-name).
    pub tool_kind: ToolKind,
    /// Real name under a Task/Skill/MCP wrapper, else `null`.
    pub tool_resolved: Option<String>,
    /// The input (see the type's doc for the cap); `null` when the call had none.
    pub input: Value,
    /// The result text, truncated; `null` when no result was recorded.
    pub output: Option<String>,
    /// The result's `is_error`; `null` when no result was recorded.
    pub is_error: Option<bool>,
    /// Whether `is_error` can be trusted (docs/tool-calls.md#the-find-query): true for Claude Code and
    /// OpenCode, false for Codex (no flag in the file; derived from exit
    /// codes) and Droid.
    pub is_error_reliable: bool,
    /// The file the call touches (Read/Write/Edit…), redacted like `input`.
    pub file_path: Option<String>,
    /// Digest of `{input, tool}` (docs/tool-calls.md#the-digest) over the raw input.
    pub digest: Option<String>,
    /// Present only on calls made inside a subagent.
    #[serde(flatten)]
    pub origin: Option<SubagentOrigin>,
    /// Present only on spawns (`tool_kind` `task`) with something to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent: Option<SubagentCost>,
    /// Extension beyond the original `find_tool_calls`: what the transcript records hooks did on
    /// this call (`transcript::hook_activity::activity_value` objects,
    /// masked like `input`); left out of the JSON when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hook_activity: Vec<Value>,
    /// Extension: with `decided_by`, the decisions `hookscope hook` logged
    /// on this call that the filter kept, oldest first, as
    /// `{time, verdict, rules}` (docs/live-hook.md#the-decision-log; masked
    /// when written); left out of the JSON when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub decided: Vec<Value>,
    /// [`FoundCall::summary`]: made from the raw input before the cap,
    /// masked like `input`; not serialized.
    #[serde(skip)]
    pub(crate) summary: String,
}

impl FoundCall {
    /// One line saying what the call did: [`crate::transcript::call_summary`]
    /// of the typed call (the command — Codex's `cmd` too —, file path,
    /// pattern, URL, description…), made from the raw input (before the
    /// input cap cut it) and masked like `input` when redacting; empty when
    /// none applies.
    pub fn summary(&self) -> String {
        self.summary.clone()
    }

    /// The input as text, for a call whose [`FoundCall::summary`] is empty
    /// (no field it reads applies: OpenCode's `invalid`, a tool of unknown
    /// shape): a string input as is, any other as compact JSON (masked as
    /// `input` is); `""` without an input. What `find`'s INPUT column and
    /// the TUI's Calls list then show (each cuts it to its width).
    pub fn input_text(&self) -> String {
        crate::transcript::model::input_text(Some(&self.input))
    }

    /// [`FoundCall::summary`] followed by ` → <rewritten>` when a PreToolUse
    /// hook rewrote the input (the last `hook_activity` entry with
    /// `event: "PreToolUse"` and a `rewrite.to` other than `input`): the
    /// summary of the hook's `updatedInput`
    /// (docs/hooks.md#a-rewrite-ran). It says what the hook wrote, which the call's `↻` mark
    /// names; whether it ran is the call's result. Masked as
    /// `hook_activity` is.
    pub fn summary_with_rewrite(&self) -> String {
        crate::transcript::model::as_ran(self.summary_parts())
    }

    /// The two sides of [`FoundCall::summary_with_rewrite`]: the summary,
    /// and the rewritten input's summary when a PreToolUse hook rewrote it
    /// (`None` otherwise); a view that must cut the row cuts the first
    /// side first.
    pub fn summary_parts(&self) -> (String, Option<String>) {
        let to = self
            .hook_activity
            .iter()
            .filter(|h| h.get("event").and_then(Value::as_str) == Some("PreToolUse"))
            .filter_map(|h| h.get("rewrite")?.get("to"))
            .next_back()
            .filter(|to| **to != self.input);
        let rewritten =
            to.map(|to| crate::transcript::model::rewritten_summary(&self.tool_name, to));
        (self.summary(), rewritten)
    }

    /// Whether a PreToolUse or PermissionRequest hook blocked the call
    /// before it ran (one of its `hook_activity` firings of those events
    /// has the action `blocked`); the transcript records such a call as an
    /// error (docs/hooks.md).
    pub fn blocked_before_it_ran(&self) -> bool {
        self.fired(|event| EventKey::new(event).before_call(), "blocked")
    }

    /// Whether a PostToolUse or PostToolUseFailure hook objected to the
    /// call after it ran (one of its `hook_activity` firings of those
    /// events has the action `flagged`: the call was not stopped, the
    /// model was told; docs/hooks.md). What `find --flagged` lists.
    pub fn objected_after_it_ran(&self) -> bool {
        self.fired(|event| EventKey::new(event).after_call(), "flagged")
    }

    /// Whether one of its `hook_activity` firings has the action `action`
    /// on an event `event_is` accepts.
    fn fired(&self, event_is: impl Fn(&str) -> bool, action: &str) -> bool {
        self.hook_activity.iter().any(|h| {
            h.get("action").and_then(Value::as_str) == Some(action)
                && h.get("event")
                    .and_then(Value::as_str)
                    .is_some_and(&event_is)
        })
    }
}

/// Where a subagent's call came from; flattened into the record as
/// `agent_id` and `parent_tool_use_id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SubagentOrigin {
    /// The subagent's id (`agent-<id>.jsonl`), when known.
    pub agent_id: Option<String>,
    /// `tool_use_id` of the spawn that started the subagent; `null` when the
    /// subagent could not be linked to a spawn.
    pub parent_tool_use_id: Option<String>,
}

/// What a spawned subagent cost (docs/tool-calls.md#the-find-query).
///
/// Without `with_subagent_cost` every fact comes from the spawn result's
/// `toolUseResult` ("the sidecar"): `resolvedModel`, `agentType`, `status`,
/// `totalDurationMs`, `totalToolUseCount`, `usage`. Its `tokens` are the
/// sidecar's `usage` with `source: "recorded"`: what Claude Code recorded on
/// the result, which is the usage of the child's last API call (its
/// `totalTokens` is that block's sum), not what the whole child billed. A
/// background spawn (`status: "async_launched"`) has no usage there, so
/// `tokens` is absent — never a zero. With `with_subagent_cost` and a linked
/// child transcript, `agent_type` comes from the child's `.meta.json`
/// `agentType`, `models` lists the models the child ran on, `tool_uses`
/// counts the child's calls, `tokens` is the child's usage summed once per
/// `message.id` with `source: "exact"` (the billed usage, docs/tool-calls.md#the-find-query),
/// and `child_uuid` is set; facts the child lacks fall back to the sidecar
/// (tokens then stay `"recorded"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SubagentCost {
    /// The model the child resolved to (`resolvedModel`; else the child's
    /// first model).
    pub model: Option<String>,
    /// Persona (`Explore`, `general-purpose`…).
    pub agent_type: Option<String>,
    /// Tokens, `source` saying which figure (see the type's doc); absent
    /// when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// `completed`, `async_launched`, … as the sidecar says.
    pub status: Option<String>,
    /// `totalDurationMs`, in milliseconds.
    pub duration_ms: Option<u64>,
    /// `totalToolUseCount` (joined: the child's tool calls counted).
    pub tool_uses: Option<u64>,
    /// Joined only: the models the child ran on, first-seen order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub models: Option<Vec<String>>,
    /// Joined only: the child's identity, its agent id (the `agent-<id>`
    /// of its transcript file; Claude Code children share the parent's
    /// session id, so the agent id is what names the child).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub child_uuid: Option<String>,
}

/// A token block in Anthropic `usage` terms, in tokens (the "full
/// token-block shape" of docs/tool-calls.md#the-find-query).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Tokens {
    /// `input_tokens`.
    pub input_tokens: u64,
    /// `output_tokens`.
    pub output_tokens: u64,
    /// `cache_creation_input_tokens`.
    pub cache_creation_input_tokens: u64,
    /// `cache_read_input_tokens`.
    pub cache_read_input_tokens: u64,
    /// Sum of the four.
    pub total: u64,
    /// [`Tokens::EXACT`] (billed usage summed over the child transcript) or
    /// [`Tokens::RECORDED`] (the spawn result's `toolUseResult.usage`: the
    /// child's last API call only).
    pub source: &'static str,
}

impl Tokens {
    /// `source` of the billed total summed over the child's messages.
    pub const EXACT: &'static str = "exact";
    /// `source` of the figure recorded on the spawn's result.
    pub const RECORDED: &'static str = "recorded";

    /// The exact token block of a [`Usage`] summed over a child transcript
    /// (once per `message.id`).
    pub fn exact(usage: &Usage) -> Tokens {
        Tokens::with_source(usage, Tokens::EXACT)
    }

    /// The token block of a spawn result's `toolUseResult.usage`.
    pub fn recorded(usage: &Usage) -> Tokens {
        Tokens::with_source(usage, Tokens::RECORDED)
    }

    fn with_source(usage: &Usage, source: &'static str) -> Tokens {
        Tokens {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cache_creation_input_tokens: usage.cache_creation_input_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
            total: usage.total(),
            source,
        }
    }
}

/// The sidecar facts of a spawn, from its result's `toolUseResult` object.
/// `None` when the call is not a spawn, has no result, the `toolUseResult`
/// is not an object, or `shared_line` (the result line carries several tool
/// results, so its `toolUseResult` cannot be billed to this spawn).
pub fn sidecar_cost(record: &ToolCallRecord, shared_line: bool) -> Option<SubagentCost> {
    if record.tool_kind != ToolKind::Task || shared_line {
        return None;
    }
    let tur = record.result.as_ref()?.tool_use_result.as_ref()?;
    if !tur.is_object() {
        return None;
    }
    let text = |k: &str| tur.get(k).and_then(Value::as_str).map(str::to_string);
    let number = |k: &str| tur.get(k).and_then(Value::as_u64);
    let status = text("status");
    let tokens = match tur.get("usage") {
        Some(u) if u.is_object() && status.as_deref() != Some("async_launched") => {
            Some(Tokens::recorded(&Usage::from_json(u)))
        }
        _ => None,
    };
    Some(SubagentCost {
        model: text("resolvedModel"),
        agent_type: text("agentType"),
        tokens,
        status,
        duration_ms: number("totalDurationMs"),
        tool_uses: number("totalToolUseCount"),
        models: None,
        child_uuid: None,
    })
}

/// The `subagent` of a spawn's record: [`joined_cost`] when
/// `with_subagent_cost` and the loader linked a child; also without it for
/// an agent other than Claude Code whose spawn has no sidecar facts
/// (`None`, or every field absent: OpenCode's result `metadata` is an
/// object without Claude's keys) but whose child the loader already linked (an
/// OpenCode `task` part's child session, read with the parent anyway:
/// model, agent type, tokens `source: "exact"` and tool uses come from it,
/// as with the flag). Claude Code keeps the original default
/// (the sidecar only: reading child files is what the flag pays for).
/// Else the sidecar.
pub fn spawn_cost(
    agent: Agent,
    sidecar: Option<SubagentCost>,
    child: Option<&Subagent>,
    with_subagent_cost: bool,
) -> Option<SubagentCost> {
    match child {
        Some(child)
            if with_subagent_cost
                || (agent != Agent::ClaudeCode && sidecar.as_ref().is_none_or(is_empty)) =>
        {
            Some(joined_cost(sidecar, child))
        }
        _ => sidecar,
    }
}

/// Whether a sidecar cost says nothing at all.
fn is_empty(cost: &SubagentCost) -> bool {
    cost.model.is_none()
        && cost.agent_type.is_none()
        && cost.tokens.is_none()
        && cost.status.is_none()
        && cost.duration_ms.is_none()
        && cost.tool_uses.is_none()
        && cost.models.is_none()
        && cost.child_uuid.is_none()
}

/// Joins a spawn's sidecar facts with its child transcript
/// (`with_subagent_cost`). The child wins where it knows; tokens come only
/// from the child's own usage (absent when the child has no usage at all,
/// e.g. not yet written), else stay the sidecar's.
pub fn joined_cost(sidecar: Option<SubagentCost>, child: &Subagent) -> SubagentCost {
    let mut cost = sidecar.unwrap_or(SubagentCost {
        model: None,
        agent_type: None,
        tokens: None,
        status: None,
        duration_ms: None,
        tool_uses: None,
        models: None,
        child_uuid: None,
    });
    let meta_type = child
        .meta
        .as_ref()
        .and_then(|m| m.get("agentType"))
        .and_then(Value::as_str)
        .map(str::to_string);
    if let Some(t) = meta_type.or_else(|| child.agent_type.clone()) {
        cost.agent_type = Some(t);
    }
    if cost.model.is_none() {
        cost.model = child.models.first().cloned();
    }
    if child.usage.total() > 0 {
        cost.tokens = Some(Tokens::exact(&child.usage));
    }
    if !child.turns.is_empty() {
        cost.tool_uses = Some(child.tool_calls().count() as u64);
    }
    cost.models = Some(child.models.clone());
    cost.child_uuid = child.agent_id.clone();
    cost
}
