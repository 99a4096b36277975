//! The OpenAI Codex CLI loader: one rollout file
//! (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`) into a
//! [`Session`] (docs/transcripts.md#codex, docs/transcripts.md#reading-rules).
//!
//! What it reads, line by line ([`read_objects`], lenient):
//! - the envelope `{"timestamp","type","payload"}` (docs/transcripts.md#the-rollout-envelope) with
//!   `type` `session_meta` (identity: the first one wins), `turn_context`
//!   (models), `response_item` (the conversation, docs/transcripts.md#response-items), `event_msg` (UI
//!   events, docs/transcripts.md#event-messages), `compacted` (docs/transcripts.md#codex-compaction); `world_state`,
//!   `inter_agent_communication_metadata` and `token_usage_record` are known
//!   and not shown;
//! - the flat legacy layout (docs/transcripts.md#older-codex-layouts): a bare meta object
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
//! **Forks and subagent threads.** A rollout whose first `session_meta`
//! names a parent ([`Lineage`]: `forked_from_id`, or a `thread_spawn`
//! `parent_thread_id`) is a child thread. A fork (`codex fork`, `/fork`,
//! app-server `thread/fork`, or `spawn_agent` with forked context) copies
//! the parent's rollout items right after its own `session_meta`
//! (codex-rs `InitialHistory::Forked`: persisted as they are, with new
//! timestamps, the parent's `session_meta` first); [`Replay`] says how that
//! copy is found and where it ends. Its lines add nothing to the child's
//! turns or calls, and the child's usage is its running total minus the
//! inherited one. Discovery puts child rollouts in their root session's
//! `subagent_files`; [`load_session_with`] loads them as that session's
//! subagents and ties each to its spawning call.
//!
//! **Errors are unreliable.** Codex outputs have no `is_error` flag
//! (docs/transcripts.md#response-items). `is_error` is true when the output states a non-zero
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
    Agent, Diagnostic, Event, LineIndex, Session, Subagent, SubagentLayout, SubagentLink,
    ToolCallRecord, ToolResult, Turn, Usage,
};
use super::text::one_line;
use crate::tools::{OnError, ToolCall, ToolInputError, parse_tool_call, tool_kind, tool_resolved};

mod lineage;
mod loader;

pub use lineage::*;
use loader::*;

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
///   `message_id` = `None`, `subagent` = `None` (a lone rollout has no
///   [`Session::subagents`]; see [`load_session_with`]);
/// - a forked or spawned rollout (its first `session_meta` names a parent,
///   [`Lineage`]) counts only its own part: the parent's history it
///   replays after its `session_meta` ([`Replay`]) adds no turns or calls,
///   and its usage is the running total minus the total it inherited.
///   Loaded alone, such a rollout says so in a diagnostic on its replayed
///   lines (`parent session <id> is not linked: lines 2–57 replay its
///   history and are not counted here`), or on its `session_meta` line
///   when it copies nothing (`parent session <id> is not linked; shown on
///   its own`).
///
/// # Errors
/// Only when the file cannot be opened or read at all; every bad line is a
/// diagnostic.
pub fn load_session(path: &Path) -> std::io::Result<Session> {
    load_session_with(path, &[])
}

/// Loads a Codex rollout with the rollouts forked or spawned from it
/// (`children`, as discovery groups them: every descendant, each file
/// once) as its [`Session::subagents`] (see the module docs, "Forks and
/// subagent threads").
///
/// The main rollout is read as [`load_session`] reads it. Each child file
/// becomes a [`Subagent`] (layout [`SubagentLayout::ChildSession`]) holding
/// only its own part: its replayed prefix is not counted again. A child is
/// tied to the call that spawned it when its parent's thread has one (see
/// [`SubagentLink::ChildSessionId`], [`SubagentLink::AgentPath`]); a child
/// file that cannot be read, or whose parent is not among the files given,
/// is a diagnostic (the child still shows, unlinked); a child with the id of
/// the main rollout or of an earlier child (a copy of the same thread) is a
/// diagnostic and is not counted again.
///
/// # Errors
/// Only when the main file cannot be opened or read at all.
pub fn load_session_with(path: &Path, children: &[PathBuf]) -> std::io::Result<Session> {
    let mut main = Thread::load(path)?;
    let mut diagnostics = std::mem::take(&mut main.diagnostics);
    let mut threads: Vec<Thread> = Vec::new();
    let mut seen: HashMap<String, PathBuf> = HashMap::from([(main.id.clone(), path.to_path_buf())]);
    for child in children {
        match Thread::load(child) {
            Ok(t) => {
                if let Some(other) = seen.get(&t.id) {
                    // The same thread twice (a copy): counted once.
                    diagnostics.push(Diagnostic::whole_file(
                        child,
                        format!(
                            "child rollout {} has the id of {}; not counted again",
                            t.id,
                            other.display()
                        ),
                    ));
                    continue;
                }
                seen.insert(t.id.clone(), child.clone());
                threads.push(t);
            }
            Err(e) => diagnostics.push(Diagnostic::whole_file(
                child,
                super::claude_code::unreadable_message("child rollout", &e),
            )),
        }
    }
    // A copy whose end is not marked: compared with the parent's rollout.
    for thread in &mut threads {
        let Some(first_line) = thread.loader.unmarked_copy else {
            continue;
        };
        let parent = thread.lineage.parent().and_then(|p| seen.get(p));
        let end = parent.and_then(|pp| copy_end_by_parent(&thread.path, first_line, pp));
        if let Some(end) = end
            && let Ok(t) = Thread::load_cut(&thread.path, Some(end))
        {
            *thread = t;
        }
    }
    for t in &mut threads {
        diagnostics.append(&mut t.diagnostics);
    }
    let subagents = link_children(&mut main, threads, &mut diagnostics);
    main.note_unlinked_parent(&mut diagnostics);
    diagnostics.sort_by(|a, b| {
        a.path
            .as_os_str()
            .cmp(b.path.as_os_str())
            .then(a.locus.cmp(&b.locus))
    });
    let title = main.title();
    Ok(Session {
        id: main.id.clone(),
        agent: Agent::Codex,
        path: path.to_path_buf(),
        cwd: main.loader.cwd,
        title,
        started: main.loader.started,
        ended: main.loader.ended,
        version: main.loader.version,
        git_branch: main.loader.git_branch,
        turns: main.loader.turns,
        subagents,
        usage: main.usage,
        models: main.loader.models,
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
/// events, and the 0.50–0.53 experimental types docs/transcripts.md#older-codex-layouts lists.
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

/// The turn id a line carries: `payload.turn_id` (`turn_context`,
/// `task_started`, `task_complete`, …), else
/// `payload.internal_chat_message_metadata_passthrough.turn_id`, else
/// `payload.metadata.turn_id` (response items).
fn turn_id_of(v: &Value) -> Option<&str> {
    let p = v.get("payload")?;
    str_of(p, "turn_id")
        .or_else(|| {
            p.get("internal_chat_message_metadata_passthrough")
                .and_then(|m| str_of(m, "turn_id"))
        })
        .or_else(|| p.get("metadata").and_then(|m| str_of(m, "turn_id")))
}

/// Parse a Codex `function_call` whose `arguments` is a JSON-encoded string
/// (docs/transcripts.md#response-items: decoded twice): decode it and [`parse_tool_call`] the
/// result; when it is not valid JSON, return [`ToolCall::fallback`] holding
/// the text verbatim (never an error for that case). A lone UTF-16
/// surrogate escape inside the text (`\\ud83d` in the line) is repaired as
/// the loaders repair lines (U+FFFD, see
/// [`crate::json_line::repair_line`]); use
/// [`parse_codex_arguments_with_fixes`] to learn whether it was.
///
/// # Errors
/// As [`parse_tool_call`] for decodable but malformed arguments.
pub fn parse_codex_arguments(
    name: &str,
    arguments: &str,
    on_error: OnError,
) -> Result<ToolCall, ToolInputError> {
    parse_codex_arguments_with_fixes(name, arguments, on_error).map(|(call, _)| call)
}

/// [`parse_codex_arguments`], also saying what was repaired in the
/// `arguments` text before it decoded (only
/// [`LineFixes::lone_surrogate`](crate::json_line::LineFixes) can be
/// set: a `&str` is valid UTF-8). The Codex loader turns a repair into a
/// diagnostic for the line.
///
/// # Errors
/// As [`parse_tool_call`] for decodable but malformed arguments.
pub fn parse_codex_arguments_with_fixes(
    name: &str,
    arguments: &str,
    on_error: OnError,
) -> Result<(ToolCall, crate::json_line::LineFixes), ToolInputError> {
    match crate::json_line::parse_line::<Value>(arguments.as_bytes()) {
        Ok((value, fixes)) => parse_tool_call(name, Some(&value), on_error).map(|c| (c, fixes)),
        Err(_) => Ok((
            ToolCall::fallback(name, arguments),
            crate::json_line::LineFixes::default(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_arguments_with_a_lone_surrogate_are_repaired_not_a_fallback() {
        // The text after the line's outer decode: `\ud83d` with no low half.
        let args = r#"{"cmd": "echo \ud83d!"}"#;
        let (call, fixes) =
            parse_codex_arguments_with_fixes("exec_command", args, OnError::Raise).unwrap();
        let ToolCall::Bash(b) = &call else {
            panic!("not a BashCall: {call:?}")
        };
        assert_eq!(b.command, "echo \u{fffd}!");
        assert!(fixes.lone_surrogate);
        assert!(!fixes.invalid_utf8);
        // A valid pair is not a repair.
        let (call, fixes) = parse_codex_arguments_with_fixes(
            "exec_command",
            r#"{"cmd": "echo \ud83d\ude00"}"#,
            OnError::Raise,
        )
        .unwrap();
        let ToolCall::Bash(b) = &call else { panic!() };
        assert_eq!(b.command, "echo \u{1f600}");
        assert!(!fixes.lone_surrogate);
    }

    #[test]
    fn codex_arguments_and_fallback() {
        let call =
            parse_codex_arguments("exec_command", "{\"cmd\": \"ls -la\"}", OnError::Raise).unwrap();
        let ToolCall::Bash(b) = &call else { panic!() };
        assert_eq!(b.command, "ls -la");
        let bad = parse_codex_arguments("exec_command", "{\"cmd\": \"ls", OnError::Raise).unwrap();
        assert_eq!(bad.type_name(), "FallbackCall");
        assert_eq!(bad.name(), "exec_command");
        assert_eq!(bad.raw(), Some(&json!("{\"cmd\": \"ls")));
        let ToolCall::Fallback(f) = &bad else {
            panic!()
        };
        assert_eq!(f.text(), "{\"cmd\": \"ls");
        assert_eq!(bad.error(), None);
        assert_eq!(
            bad.digest().unwrap(),
            crate::tools::tool_digest("exec_command", Some(&json!("{\"cmd\": \"ls"))).unwrap()
        );
        let direct = ToolCall::fallback("X", "not json");
        assert_eq!(
            direct,
            ToolCall::Fallback(crate::tools::FallbackCall {
                name: "X".into(),
                raw: Some(json!("not json"))
            })
        );
    }

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
