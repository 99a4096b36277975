//! The OpenAI Codex CLI loader: one rollout file
//! (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`) into a
//! [`Session`] (formats.md §2, checklist §6 item 5).
//!
//! What it reads, line by line ([`read_objects`], lenient):
//! - the envelope `{"timestamp","type","payload"}` (formats.md §2.2) with
//!   `type` `session_meta` (identity: the first one wins), `turn_context`
//!   (models), `response_item` (the conversation, §2.3), `event_msg` (UI
//!   events, §2.4), `compacted` (§2.5); `world_state`,
//!   `inter_agent_communication_metadata` and `token_usage_record` are known
//!   and not shown;
//! - the flat legacy layout (formats.md §2.6): a bare meta object
//!   `{"id","timestamp",…}` as the first line, bare response items, and
//!   `{"record_type":"state"}` lines.
//!
//! Every other line shape, unknown `type`, unknown `response_item` or
//! `event_msg` payload type, and malformed item becomes a [`Diagnostic`] with
//! the file and 1-based line; the rest of the file still loads. A lone
//! UTF-16 surrogate escape inside a `function_call`'s `arguments` text (a
//! JSON text inside a JSON string, `\\ud83d` in the line) is repaired like
//! one in the line itself (U+FFFD, the call kept as its typed parse) and
//! noted as `function_call arguments: lone UTF-16 surrogate escape replaced
//! with U+FFFD`.
//!
//! **One source for the conversation.** `event_msg` payloads partly duplicate
//! `response_item`s (`user_message` ≈ a user `message`, `agent_message` ≈ an
//! assistant `message`, `agent_reasoning` ≈ `reasoning`, `exec_command_end` ≈
//! `function_call_output`). Prompts, text, reasoning, tool calls and their
//! outputs are taken from `response_item`s only: they are the model-visible
//! history Codex itself resumes from, present in every envelope version in
//! the corpus (0.42 → 0.171), while `event_msg user_message` is missing from
//! 0.171 rollouts (which log `item_completed` instead). `event_msg` is used
//! only for what has no `response_item`: `token_count` (usage),
//! `turn_aborted`, `error`, `context_compacted`, `thread_name_updated`, the
//! 0.42-era `tool_call`, and the exit status of `exec_command_end` /
//! `patch_apply_end` / `mcp_tool_call_end` as a fallback for `is_error`.
//!
//! **Errors are unreliable.** Codex outputs have no `is_error` flag
//! (formats.md §2.3). `is_error` is true when the output states a non-zero
//! exit code — `metadata.exit_code` of a JSON-string output
//! `{"output","metadata":{"exit_code"}}`, or an `Exit code: N` /
//! `Process exited with code N` header line before `Output:` in plain-text
//! outputs — else when a `*_end` event with the same `call_id` reports a
//! failure. A failed MCP call, a sandbox denial or a tool error written as
//! plain text without an exit code reads as success.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::claude_code::timestamp_of;
use super::jsonl::read_objects;
use super::model::{
    Agent, Diagnostic, Event, LineIndex, Locus, Session, ToolCallRecord, ToolResult, Turn, Usage,
};
use super::text::one_line;
use crate::tools::{
    OnError, parse_codex_arguments_with_fixes, parse_tool_call, tool_kind, tool_resolved,
};

/// Loads a Codex rollout file into a [`Session`] with
/// `agent: Agent::Codex`.
///
/// - `id`: `session_meta.payload.id` of the first `session_meta` (legacy:
///   the first line's `id`), else the UUID at the end of the file name
///   (`rollout-2026-11-29T18-03-47-<uuid>.jsonl`), else the file stem;
/// - `cwd`, `version` (`cli_version`), `git_branch` (`git.branch`): first
///   `session_meta`; `cwd` falls back to the first `turn_context.cwd`;
/// - `started` / `ended`: earliest / latest envelope `timestamp` (any line);
/// - `title`: the last `event_msg thread_name_updated.thread_name`, else the
///   first prompt on one line (≤ 200 chars);
/// - `models`: `turn_context.model`, first-seen order;
/// - `turns`: cut at real user prompts (see the module docs and
///   [`is_injected_context`]);
/// - `usage`: the last `event_msg token_count` `info.total_token_usage`
///   (Codex's running total for the thread; summing `last_token_usage`
///   over-counts because Codex re-emits unchanged totals), mapped as
///   `input_tokens` = `input_tokens − cached_input_tokens −
///   cache_write_input_tokens`, `cache_read_input_tokens` =
///   `cached_input_tokens`, `cache_creation_input_tokens` =
///   `cache_write_input_tokens`, `output_tokens` = `output_tokens`
///   (reasoning included), so [`Usage::total`] equals Codex's
///   `total_tokens`. Without any such total (0.51/0.52), the sum of the
///   `event_msg turn.completed` `usage` objects (one per turn), mapped
///   the same way;
/// - tool calls: see [`ToolCallRecord`] fields as filled here:
///   `tool_use_id` = `call_id` (else the item's `id`, else `line:<n>`),
///   `message_id` = `None`, `subagent` = `None`; Codex sessions have no
///   [`Session::subagents`].
///
/// # Errors
/// Only when the file cannot be opened or read at all; every bad line is a
/// diagnostic.
pub fn load_session(path: &Path) -> std::io::Result<Session> {
    let mut loader = Loader::new(path);
    let mut diagnostics = Vec::new();
    read_objects(path, &mut diagnostics, |line_no, value| {
        loader.push(line_no, &value);
    })?;
    loader.apply_end_events();
    diagnostics.append(&mut loader.diagnostics);
    diagnostics.sort_by(|a, b| a.locus.cmp(&b.locus));

    let id = loader
        .id
        .clone()
        .filter(|id| !id.is_empty())
        .or_else(|| uuid_of_file_name(path))
        .unwrap_or_else(|| super::model::id_from_path(path));
    let title = loader.thread_name.clone().or_else(|| {
        loader
            .turns
            .iter()
            .find(|t| t.prompt_line.is_some())
            .map(|t| one_line(&t.prompt, 200))
            .filter(|t| !t.is_empty())
    });
    Ok(Session {
        id,
        agent: Agent::Codex,
        path: path.to_path_buf(),
        cwd: loader.cwd,
        title,
        started: loader.started,
        ended: loader.ended,
        version: loader.version,
        git_branch: loader.git_branch,
        turns: loader.turns,
        subagents: Vec::new(),
        usage: loader.usage.or(loader.turn_usage).unwrap_or_default(),
        models: loader.models,
        diagnostics,
        lines: LineIndex::default(),
    })
}

/// Prefixes (after leading whitespace) of user-role `message` items that
/// Codex injects as context rather than typing them for the user: the
/// environment block, AGENTS.md / user instructions (old and new forms),
/// a `!cmd` user shell command record, the aborted-turn marker (the
/// `event_msg turn_aborted` is shown instead), skill bodies and subagent
/// notifications.
const INJECTED_PREFIXES: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions for ",
    "<INSTRUCTIONS>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<skill>",
    "<subagent_notification>",
];

/// Whether a user-role message text is context Codex injected rather than a
/// prompt: after leading whitespace it starts with `<environment_context>`,
/// `<user_instructions>`, `# AGENTS.md instructions for `, `<INSTRUCTIONS>`,
/// `<user_shell_command>`, `<turn_aborted>`, `<skill>` or
/// `<subagent_notification>`.
pub fn is_injected_context(text: &str) -> bool {
    let t = text.trim_start();
    INJECTED_PREFIXES.iter().any(|p| t.starts_with(p))
}

/// Envelope `type`s known to carry nothing the session model shows.
const QUIET_LINE_TYPES: &[&str] = &[
    "world_state",
    "inter_agent_communication_metadata",
    "token_usage_record",
];

/// `event_msg` payload types that are known and deliberately not read:
/// duplicates of `response_item`s (see the module docs), lifecycle and UI
/// events, and the 0.50–0.53 experimental types formats.md §2.6 lists.
const QUIET_EVENT_TYPES: &[&str] = &[
    "user_message",
    "agent_message",
    "agent_message_delta",
    "agent_reasoning",
    "agent_reasoning_delta",
    "agent_reasoning_raw_content",
    "agent_reasoning_section_break",
    "task_started",
    "task_complete",
    "turn_started",
    "turn_complete",
    "exec_command_begin",
    "exec_command_output_delta",
    "exec_approval_request",
    "apply_patch_approval_request",
    "patch_apply_begin",
    "mcp_tool_call_begin",
    "web_search_begin",
    "web_search_end",
    "entered_review_mode",
    "exited_review_mode",
    "thread_settings_applied",
    "item_started",
    "item_completed",
    "sub_agent_activity",
    "image_generation_begin",
    "image_generation_end",
    "thread_goal_updated",
    "collab_agent_spawn_begin",
    "collab_agent_spawn_end",
    "collab_waiting_begin",
    "collab_waiting_end",
    "collab_close_begin",
    "collab_close_end",
    "collab_agent_interaction_begin",
    "collab_agent_interaction_end",
    "guardian_assessment",
    "view_image_tool_call",
    "dynamic_tool_call_request",
    "dynamic_tool_call_response",
    "undo_started",
    "undo_completed",
    "plan_update",
    "turn_diff",
    "session_configured",
    "background_event",
    "shutdown_complete",
    "mcp_startup_update",
    "mcp_startup_complete",
    "deprecation_notice",
    "raw_response_item",
    "turn.completed",
    "codex/event/raw_item",
    "account/rateLimits/updated",
];

/// `response_item` payload types known and not shown.
const QUIET_ITEM_TYPES: &[&str] = &["ghost_snapshot", "compaction"];

/// The trailing UUID of a rollout file name
/// (`rollout-YYYY-MM-DDThh-mm-ss-<8-4-4-4-12 hex>.jsonl`), if any.
pub(crate) fn uuid_of_file_name(path: &Path) -> Option<String> {
    let stem = super::fsread::transcript_stem(path)?.to_str()?;
    let start = stem.len().checked_sub(36)?;
    let tail = stem.get(start..)?;
    let shape_ok = tail.char_indices().all(|(i, c)| match i {
        8 | 13 | 18 | 23 => c == '-',
        _ => c.is_ascii_hexdigit(),
    });
    shape_ok.then(|| tail.to_string())
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Maps a Codex `total_token_usage` object to [`Usage`] (see
/// [`load_session`]); missing counters count as 0.
pub fn usage_from_codex(u: &Value) -> Usage {
    let get = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cached = get("cached_input_tokens");
    let written = get("cache_write_input_tokens");
    Usage {
        input_tokens: get("input_tokens")
            .saturating_sub(cached)
            .saturating_sub(written),
        output_tokens: get("output_tokens"),
        cache_creation_input_tokens: written,
        cache_read_input_tokens: cached,
    }
}

/// Text of a `message` / output content list: `input_text`, `output_text`
/// and `text` parts joined by newlines; `input_image` parts as
/// `<input_image>`; a plain string as is.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let mut out: Vec<String> = Vec::new();
            for part in parts {
                match part {
                    Value::String(s) => out.push(s.clone()),
                    Value::Object(_) => {
                        if str_of(part, "type") == Some("input_image") {
                            out.push("<input_image>".to_string());
                        } else if let Some(t) = str_of(part, "text") {
                            out.push(t.to_string());
                        }
                    }
                    _ => {}
                }
            }
            out.join("\n")
        }
        _ => String::new(),
    }
}

/// The text of a `*_output` item's `output` and the exit code it states.
///
/// - a string holding a JSON object with a string `output`
///   (`{"output":"…","metadata":{"exit_code":N,…}}`): that `output`, and
///   `metadata.exit_code`;
/// - any other string: the string, and the first `Exit code: N` or
///   `Process exited with code N` line before the first `Output:` line;
/// - a content-item list, or one content item: its `text` parts joined by
///   newlines (`input_image` parts as `<input_image>`);
/// - anything else: its compact JSON (`null` → "").
pub fn output_text(output: &Value) -> (String, Option<i64>) {
    match output {
        Value::String(s) => {
            if s.trim_start().starts_with('{')
                && let Ok(inner) = serde_json::from_str::<Value>(s)
                && let Some(text) = str_of(&inner, "output")
            {
                let code = inner
                    .get("metadata")
                    .and_then(|m| m.get("exit_code"))
                    .and_then(Value::as_i64);
                return (text.to_string(), code);
            }
            (s.clone(), header_exit_code(s))
        }
        Value::Array(_) => (content_text(output), None),
        Value::Object(_) => match (str_of(output, "text"), output.get("content")) {
            (Some(t), _) => (t.to_string(), None),
            (None, Some(c @ Value::Array(_))) => (content_text(c), None),
            _ => (output.to_string(), None),
        },
        Value::Null => (String::new(), None),
        other => (other.to_string(), None),
    }
}

/// The exit code stated in the header lines of a plain-text output (before
/// the first `Output:` line).
fn header_exit_code(text: &str) -> Option<i64> {
    for line in text.lines() {
        let line = line.trim();
        if line == "Output:" {
            return None;
        }
        let rest = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "));
        if let Some(code) = rest.and_then(|r| r.trim().parse::<i64>().ok()) {
            return Some(code);
        }
    }
    None
}

/// The session being assembled.
#[derive(Default)]
struct Loader {
    path: PathBuf,
    turns: Vec<Turn>,
    /// call_id → (turn, event) of the latest call with that id.
    calls: HashMap<String, (usize, usize)>,
    /// call_ids whose output stated an exit code.
    exit_known: HashSet<String>,
    /// call_id → failed?, from `exec_command_end` / `patch_apply_end` /
    /// `mcp_tool_call_end`.
    end_failed: HashMap<String, bool>,
    diagnostics: Vec<Diagnostic>,
    id: Option<String>,
    cwd: Option<String>,
    version: Option<String>,
    git_branch: Option<String>,
    seen_meta: bool,
    thread_name: Option<String>,
    models: Vec<String>,
    usage: Option<Usage>,
    /// The sum of 0.51/0.52 `event_msg turn.completed` `usage` objects
    /// (each one turn's), used when no `token_count` total exists.
    turn_usage: Option<Usage>,
    started: Option<DateTime<Utc>>,
    ended: Option<DateTime<Utc>>,
    /// The previous line was a `compacted` line (its `context_compacted`
    /// event is then not a second boundary).
    after_compacted: bool,
    lines_seen: usize,
}

impl Loader {
    fn new(path: &Path) -> Loader {
        Loader {
            path: path.to_path_buf(),
            ..Loader::default()
        }
    }

    fn diag(&mut self, line: usize, message: String) {
        self.diagnostics.push(Diagnostic {
            path: self.path.clone(),
            locus: Some(Locus::Line(line)),
            message,
        });
    }

    fn push_event(&mut self, event: Event) -> (usize, usize) {
        if self.turns.is_empty() {
            self.turns.push(Turn::default());
        }
        let t = self.turns.len() - 1;
        self.turns[t].events.push(event);
        (t, self.turns[t].events.len() - 1)
    }

    fn push(&mut self, line_no: usize, v: &Value) {
        self.lines_seen += 1;
        let first = self.lines_seen == 1;
        let ts = timestamp_of(v);
        if let Some(t) = ts {
            self.started = Some(self.started.map_or(t, |s| s.min(t)));
            self.ended = Some(self.ended.map_or(t, |e| e.max(t)));
        }
        let after_compacted = std::mem::take(&mut self.after_compacted);
        match (str_of(v, "type"), v.get("payload")) {
            (Some(kind), Some(payload)) => {
                self.push_envelope(line_no, kind, payload, ts, after_compacted)
            }
            _ => self.push_bare(line_no, v, first),
        }
    }

    fn push_envelope(
        &mut self,
        line_no: usize,
        kind: &str,
        payload: &Value,
        ts: Option<DateTime<Utc>>,
        after_compacted: bool,
    ) {
        match kind {
            "session_meta" => self.observe_meta(line_no, payload),
            "turn_context" => {
                if let Some(model) = str_of(payload, "model").filter(|m| !m.is_empty())
                    && !self.models.iter().any(|m| m == model)
                {
                    self.models.push(model.to_string());
                }
                if self.cwd.is_none() {
                    self.cwd = str_of(payload, "cwd")
                        .filter(|c| !c.is_empty())
                        .map(str::to_string);
                }
            }
            "response_item" => self.push_item(line_no, payload, ts),
            "event_msg" => self.push_event_msg(line_no, payload, ts, after_compacted),
            "compacted" => {
                self.after_compacted = true;
                self.push_event(Event::Compaction {
                    trigger: None,
                    pre_tokens: None,
                    text: str_of(payload, "message").unwrap_or_default().to_string(),
                    timestamp: ts,
                    line: line_no,
                });
            }
            k if QUIET_LINE_TYPES.contains(&k) => {}
            other => self.diag(line_no, format!("unknown line type {other:?}; ignored")),
        }
    }

    /// A line without the envelope: the legacy layout (formats.md §2.6) or
    /// something unusable.
    fn push_bare(&mut self, line_no: usize, v: &Value, first: bool) {
        if v.get("record_type").is_some() {
            return; // legacy `{"record_type":"state"}`
        }
        let kind = str_of(v, "type");
        if first
            && kind.is_none()
            && v.get("role").is_none()
            && v.get("id").is_some()
            && v.get("timestamp").is_some()
        {
            self.observe_meta(line_no, v);
            return;
        }
        if kind.is_some() && v.get("payload").is_none() {
            self.push_item(line_no, v, timestamp_of(v));
            return;
        }
        self.diag(
            line_no,
            "neither a {timestamp, type, payload} envelope nor a legacy response item; ignored"
                .to_string(),
        );
    }

    fn observe_meta(&mut self, line_no: usize, meta: &Value) {
        if !meta.is_object() {
            self.diag(line_no, "session_meta payload is not an object".to_string());
            return;
        }
        if self.seen_meta {
            return; // resume/fork repeats it; the first one wins (formats.md §2.2)
        }
        self.seen_meta = true;
        let s = |k: &str| {
            str_of(meta, k)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        self.id = s("id");
        if s("cwd").is_some() {
            self.cwd = s("cwd");
        }
        self.version = s("cli_version");
        self.git_branch = meta
            .get("git")
            .and_then(|g| str_of(g, "branch"))
            .filter(|b| !b.is_empty())
            .map(str::to_string);
    }

    fn push_item(&mut self, line_no: usize, item: &Value, ts: Option<DateTime<Utc>>) {
        if !item.is_object() {
            self.diag(
                line_no,
                "response_item payload is not an object".to_string(),
            );
            return;
        }
        // agentsview-style messages omit `type`.
        let kind = match (str_of(item, "type"), item.get("role")) {
            (Some(k), _) => k,
            (None, Some(_)) => "message",
            (None, None) => {
                self.diag(line_no, "response_item without a type".to_string());
                return;
            }
        };
        match kind {
            "message" => self.push_message(line_no, item, ts),
            "reasoning" => {
                let summary = item.get("summary").map(content_text).unwrap_or_default();
                let text = if summary.trim().is_empty() {
                    item.get("content").map(content_text).unwrap_or_default()
                } else {
                    summary
                };
                if !text.trim().is_empty() {
                    self.push_event(Event::Thinking {
                        text,
                        line: line_no,
                    });
                }
            }
            "function_call" => {
                let Some(name) = str_of(item, "name") else {
                    self.diag(line_no, "function_call without a name".to_string());
                    return;
                };
                let parsed = match item.get("arguments") {
                    Some(Value::String(args)) => parse_codex_arguments_with_fixes(
                        name,
                        args,
                        OnError::Other,
                    )
                    .map(|(call, fixes)| {
                        for message in fixes.messages() {
                            self.diag(line_no, format!("function_call arguments: {message}"));
                        }
                        call
                    }),
                    None | Some(Value::Null) => parse_tool_call(name, None, OnError::Other),
                    Some(other) => parse_tool_call(name, Some(other), OnError::Other),
                };
                self.push_call(line_no, item, name, parsed.ok(), ts);
            }
            "custom_tool_call" => {
                let Some(name) = str_of(item, "name") else {
                    self.diag(line_no, "custom_tool_call without a name".to_string());
                    return;
                };
                let input = item.get("input").filter(|v| !v.is_null());
                let call = parse_tool_call(name, input, OnError::Other).ok();
                self.push_call(line_no, item, name, call, ts);
            }
            "local_shell_call" => {
                let input = item.get("action").filter(|v| !v.is_null());
                let call = parse_tool_call("local_shell_call", input, OnError::Other).ok();
                self.push_call(line_no, item, "local_shell_call", call, ts);
            }
            "web_search_call" => {
                let input = item.get("action").filter(|v| !v.is_null());
                let call = parse_tool_call("web_search", input, OnError::Other).ok();
                self.push_call(line_no, item, "web_search", call, ts);
            }
            "tool_search_call" => {
                let input = item.get("arguments").filter(|v| !v.is_null());
                let call = parse_tool_call("tool_search", input, OnError::Other).ok();
                self.push_call(line_no, item, "tool_search", call, ts);
            }
            "image_generation_call" => {
                let input = str_of(item, "revised_prompt").map(|p| json!({"revised_prompt": p}));
                let call = parse_tool_call("image_generation", input.as_ref(), OnError::Other).ok();
                self.push_call(line_no, item, "image_generation", call, ts);
            }
            "function_call_output" | "custom_tool_call_output" | "tool_search_output" => {
                self.pair_output(line_no, kind, item, ts)
            }
            "agent_message" => {
                let text = item.get("content").map(content_text).unwrap_or_default();
                self.push_event(Event::Note {
                    label: "agent_message".to_string(),
                    text,
                    timestamp: ts,
                    line: line_no,
                });
            }
            k if QUIET_ITEM_TYPES.contains(&k) => {}
            other => self.diag(
                line_no,
                format!("unknown response_item type {other:?}; ignored"),
            ),
        }
    }

    fn push_message(&mut self, line_no: usize, item: &Value, ts: Option<DateTime<Utc>>) {
        let text = item.get("content").map(content_text).unwrap_or_default();
        match str_of(item, "role") {
            Some("user") => {
                if text.trim().is_empty() || is_injected_context(&text) {
                    return;
                }
                self.turns.push(Turn {
                    prompt: text,
                    prompt_line: Some(line_no),
                    timestamp: ts,
                    events: Vec::new(),
                });
            }
            Some("assistant") if !text.trim().is_empty() => {
                self.push_event(Event::Text {
                    text,
                    timestamp: ts,
                    line: line_no,
                });
            }
            // developer / system instructions are not part of the conversation.
            _ => {}
        }
    }

    /// Adds a tool call. `call` is `None` only if lenient parsing failed,
    /// which `OnError::Other` never does.
    fn push_call(
        &mut self,
        line_no: usize,
        item: &Value,
        name: &str,
        call: Option<crate::tools::ToolCall>,
        ts: Option<DateTime<Utc>>,
    ) {
        let Some(call) = call else {
            self.diag(line_no, format!("{name}: input could not be parsed"));
            return;
        };
        let call_id = str_of(item, "call_id")
            .or_else(|| str_of(item, "id"))
            .map_or_else(|| format!("line:{line_no}"), str::to_string);
        if let Some(&(t, e)) = self.calls.get(&call_id) {
            let same = self.turns[t].events[e]
                .as_tool_call()
                .is_some_and(|r| r.call.name() == call.name() && r.call.raw() == call.raw());
            if same {
                return; // the same call replayed (resume/fork history)
            }
            self.diag(
                line_no,
                format!("call_id {call_id} reused by another call; outputs pair with the latest"),
            );
        }
        let input = call.raw().cloned();
        let record = ToolCallRecord {
            tool_use_id: call_id.clone(),
            tool_kind: tool_kind(name, input.as_ref()),
            tool_resolved: tool_resolved(name, input.as_ref()),
            call,
            result: None,
            timestamp: ts,
            line: line_no,
            message_id: None,
            subagent: None,
        };
        let at = self.push_event(Event::ToolCall(Box::new(record)));
        self.calls.insert(call_id, at);
    }

    fn pair_output(&mut self, line_no: usize, kind: &str, item: &Value, ts: Option<DateTime<Utc>>) {
        let Some(call_id) = str_of(item, "call_id") else {
            self.diag(line_no, format!("{kind} without call_id"));
            return;
        };
        // `tool_search_output` lists the tools found in `tools` instead.
        let (text, exit_code) = match (item.get("output"), item.get("tools")) {
            (Some(output), _) => output_text(output),
            (None, Some(tools)) => (tools.to_string(), None),
            (None, None) => (String::new(), None),
        };
        let Some(&(t, e)) = self.calls.get(call_id) else {
            self.diag(
                line_no,
                format!("{kind} for unknown call_id {call_id}; kept out of the timeline"),
            );
            return;
        };
        let duplicate = match self.turns[t].events.get_mut(e) {
            Some(Event::ToolCall(record)) if record.result.is_none() => {
                record.result = Some(ToolResult {
                    text,
                    is_error: exit_code.is_some_and(|c| c != 0),
                    tool_use_result: None,
                    timestamp: ts,
                    line: line_no,
                    agent_id: None,
                });
                false
            }
            _ => true,
        };
        if duplicate {
            self.diag(
                line_no,
                format!("second output for call_id {call_id}; the first one is kept"),
            );
        } else if exit_code.is_some() {
            self.exit_known.insert(call_id.to_string());
        }
    }

    fn push_event_msg(
        &mut self,
        line_no: usize,
        payload: &Value,
        ts: Option<DateTime<Utc>>,
        after_compacted: bool,
    ) {
        let Some(kind) = str_of(payload, "type") else {
            self.diag(line_no, "event_msg without a payload type".to_string());
            return;
        };
        match kind {
            "turn.completed" => {
                if let Some(u) = payload.get("usage").filter(|u| u.is_object()) {
                    self.turn_usage
                        .get_or_insert_with(Usage::default)
                        .add(&usage_from_codex(u));
                }
            }
            "token_count" => {
                if let Some(total) = payload
                    .get("info")
                    .and_then(|i| i.get("total_token_usage"))
                    .filter(|t| t.is_object())
                {
                    self.usage = Some(usage_from_codex(total));
                }
            }
            "turn_aborted" => {
                let reason = str_of(payload, "reason").unwrap_or("unknown");
                self.push_event(Event::Interruption {
                    text: format!("[turn aborted: {reason}]"),
                    timestamp: ts,
                    line: line_no,
                });
            }
            "error" | "stream_error" | "warning" => {
                let text = str_of(payload, "message")
                    .or_else(|| payload.get("error").and_then(|e| str_of(e, "message")))
                    .map_or_else(|| payload.to_string(), str::to_string);
                let event = if kind == "warning" {
                    Event::Note {
                        label: "warning".to_string(),
                        text,
                        timestamp: ts,
                        line: line_no,
                    }
                } else {
                    Event::ApiError {
                        text,
                        timestamp: ts,
                        line: line_no,
                    }
                };
                self.push_event(event);
            }
            "context_compacted" => {
                if !after_compacted {
                    self.push_event(Event::Compaction {
                        trigger: None,
                        pre_tokens: None,
                        text: String::new(),
                        timestamp: ts,
                        line: line_no,
                    });
                }
            }
            "thread_name_updated" => {
                if let Some(name) = str_of(payload, "thread_name").filter(|n| !n.trim().is_empty())
                {
                    self.thread_name = Some(one_line(name, 200));
                }
            }
            "exec_command_end" | "patch_apply_end" | "mcp_tool_call_end" => {
                let failed = match kind {
                    "exec_command_end" => payload
                        .get("exit_code")
                        .and_then(Value::as_i64)
                        .map(|c| c != 0),
                    "patch_apply_end" => payload
                        .get("success")
                        .and_then(Value::as_bool)
                        .map(|ok| !ok),
                    _ => payload.get("result").map(|r| {
                        r.get("Err").is_some()
                            || r.get("Ok")
                                .and_then(|ok| ok.get("isError"))
                                .and_then(Value::as_bool)
                                == Some(true)
                    }),
                };
                if let (Some(call_id), Some(failed)) = (str_of(payload, "call_id"), failed) {
                    self.end_failed.insert(call_id.to_string(), failed);
                }
            }
            "tool_call" => {
                // 0.42-era fixtures (formats.md §2.6): {name, call_id, input}.
                let Some(name) = str_of(payload, "name") else {
                    self.diag(line_no, "event_msg tool_call without a name".to_string());
                    return;
                };
                let input = payload.get("input").filter(|v| !v.is_null());
                let call = parse_tool_call(name, input, OnError::Other).ok();
                self.push_call(line_no, payload, name, call, ts);
            }
            k if QUIET_EVENT_TYPES.contains(&k) => {}
            other => self.diag(
                line_no,
                format!("unknown event_msg type {other:?}; ignored"),
            ),
        }
    }

    /// Sets `is_error` from `*_end` events for outputs that stated no exit code.
    fn apply_end_events(&mut self) {
        for (call_id, failed) in &self.end_failed {
            if self.exit_known.contains(call_id) {
                continue;
            }
            let Some(&(t, e)) = self.calls.get(call_id) else {
                continue;
            };
            if let Some(Event::ToolCall(record)) = self.turns[t].events.get_mut(e)
                && let Some(result) = record.result.as_mut()
            {
                result.is_error = *failed;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_and_exit_codes() {
        let json_string = Value::String(
            r#"{"output":"boom\n","metadata":{"exit_code":1,"duration_seconds":0.1}}"#.into(),
        );
        assert_eq!(output_text(&json_string), ("boom\n".to_string(), Some(1)));
        let plain = Value::String(
            "Chunk ID: 1\nProcess exited with code 2\nOutput:\nExit code: 0\n".into(),
        );
        assert_eq!(output_text(&plain).1, Some(2));
        let nested = Value::String("Wall time: 0 seconds\nOutput:\nExit code: 3\n".into());
        assert_eq!(output_text(&nested).1, None);
        let list = json!([{"type": "input_text", "text": "a"}, {"type": "input_image"}]);
        assert_eq!(output_text(&list), ("a\n<input_image>".to_string(), None));
        assert_eq!(output_text(&Value::Null), (String::new(), None));
    }

    #[test]
    fn file_name_uuid() {
        let p =
            Path::new("/x/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl");
        assert_eq!(
            uuid_of_file_name(p).as_deref(),
            Some("01a2287a-35b1-76e0-b188-fd2c5f457a31")
        );
        assert_eq!(uuid_of_file_name(Path::new("/x/small.jsonl")), None);
    }

    #[test]
    fn injected_context_is_not_a_prompt() {
        assert!(is_injected_context("  <environment_context>\n<cwd>/</cwd>"));
        assert!(is_injected_context("# AGENTS.md instructions for /repo\n"));
        assert!(!is_injected_context("fix the <environment_context> parser"));
    }
}
