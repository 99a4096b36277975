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

/// What a rollout's own (first) `session_meta` says about where it came
/// from (docs/transcripts.md#the-rollout-envelope: `forked_from_id`, `parent_thread_id`,
/// `source.subagent`). Every field is `None` for a rollout started by the
/// user (and for every rollout before these fields existed).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lineage {
    /// `payload.id`: the rollout's own thread id.
    pub id: Option<String>,
    /// `payload.forked_from_id`: the thread whose history was copied in.
    pub forked_from_id: Option<String>,
    /// `source.subagent.thread_spawn.parent_thread_id`, else
    /// `payload.parent_thread_id` (newer rollouts write both): the thread
    /// that spawned this one.
    pub parent_thread_id: Option<String>,
    /// The kind of subagent thread from `source.subagent`: `thread_spawn`,
    /// `review`, `compact`, or the value of `{"other": …}`; `None` when
    /// `source` is not a subagent (`cli`, `vscode`, `exec`, …).
    pub subagent: Option<String>,
    /// `thread_spawn.agent_path` (else `payload.agent_path`): the
    /// subagent's task name (multi-agent v2 `spawn_agent` answers with it).
    pub agent_path: Option<String>,
    /// `thread_spawn.agent_nickname` (else `payload.agent_nickname`).
    pub agent_nickname: Option<String>,
    /// `thread_spawn.agent_role` (else `payload.agent_role`).
    pub agent_role: Option<String>,
}

impl Lineage {
    /// Reads a `session_meta` payload; strings that are empty count as
    /// absent.
    pub fn from_meta(meta: &Value) -> Lineage {
        let s = |v: &Value, k: &str| str_of(v, k).filter(|s| !s.is_empty()).map(str::to_string);
        let sub = meta.get("source").and_then(|src| src.get("subagent"));
        let spawn = sub.and_then(|s| s.get("thread_spawn"));
        let kind = match sub {
            Some(Value::String(k)) if !k.is_empty() => Some(k.clone()),
            Some(Value::Object(o)) => match (o.get("thread_spawn"), o.get("other")) {
                (Some(_), _) => Some("thread_spawn".to_string()),
                (None, Some(Value::String(other))) if !other.is_empty() => Some(other.clone()),
                _ => o.keys().next().cloned(),
            },
            _ => None,
        };
        let from_spawn = |k: &str| spawn.and_then(|sp| s(sp, k)).or_else(|| s(meta, k));
        Lineage {
            id: s(meta, "id"),
            forked_from_id: s(meta, "forked_from_id"),
            parent_thread_id: from_spawn("parent_thread_id"),
            subagent: kind,
            agent_path: from_spawn("agent_path"),
            agent_nickname: from_spawn("agent_nickname"),
            agent_role: from_spawn("agent_role"),
        }
    }

    /// The thread this one belongs under: `parent_thread_id`, else
    /// `forked_from_id`; `None` when neither is set or it names the rollout
    /// itself.
    pub fn parent(&self) -> Option<&str> {
        self.parent_thread_id
            .as_deref()
            .or(self.forked_from_id.as_deref())
            .filter(|p| Some(*p) != self.id.as_deref())
    }

    /// Whether the rollout names itself as its parent (ignored).
    pub fn names_itself(&self) -> bool {
        let own = self.id.as_deref();
        own.is_some()
            && (self.parent_thread_id.as_deref() == own || self.forked_from_id.as_deref() == own)
    }

    /// How the child is shown as a subagent: the agent role, else the
    /// subagent kind, else `fork` for a fork made by the user.
    pub fn kind(&self) -> String {
        self.agent_role
            .clone()
            .or_else(|| self.subagent.clone())
            .unwrap_or_else(|| "fork".to_string())
    }
}

/// The lineage of the rollout at `path`, from its first line when that is
/// a `session_meta` (read through [`super::fsread::open_decoded`], at most
/// [`LINEAGE_LINE_CAP`] bytes of it); `None` when it is not, or the line is
/// longer or not JSON (discovery then treats the rollout as a root).
pub fn read_lineage(path: &Path) -> Option<Lineage> {
    use std::io::{BufRead, BufReader, Read};
    let file = super::fsread::open_decoded(path).ok()?;
    let mut reader = BufReader::new(file.take(LINEAGE_LINE_CAP));
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).ok()? == 0 {
            return None;
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            break;
        }
    }
    let v: Value = serde_json::from_slice(super::jsonl::line_bytes(&line)).ok()?;
    if str_of(&v, "type") != Some("session_meta") {
        return None;
    }
    v.get("payload")
        .filter(|p| p.is_object())
        .map(Lineage::from_meta)
}

/// The most bytes [`read_lineage`] reads (4 MiB; a real first
/// `session_meta` line, with its base instructions, is 20–60 KB).
pub const LINEAGE_LINE_CAP: u64 = 4 << 20;

/// The millisecond Unix time of a version-7 UUID
/// (`019fc8be-3658-7ca3-…`: its first 48 bits), else `None`. Codex thread
/// and turn ids are UUIDv7 from about 0.4x on.
pub fn uuid_v7_millis(id: &str) -> Option<u64> {
    let b = id.as_bytes();
    let shape = b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        });
    if !shape || b[14] != b'7' {
        return None;
    }
    let hex = format!("{}{}", id.get(0..8)?, id.get(9..13)?);
    u64::from_str_radix(&hex, 16).ok()
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

/// Where a forked rollout's copy of its parent's history is.
///
/// Codex writes a fork (`codex fork`, `/fork`, app-server `thread/fork`)
/// and a `spawn_agent` child with forked context as: its own
/// `session_meta`, then the parent's rollout items re-written with new
/// timestamps (the parent's `session_meta` first; a spawn keeps only
/// messages, final answers, events and turn contexts), then its own turns
/// (codex-rs `InitialHistory::Forked`, `RolloutRecorder`). The copy is
/// recognised when the line after the own `session_meta` is a
/// `session_meta` with another id; it ends before the first line that
/// repeats the own `session_meta`, or carries a turn id (see
/// `turn_id_of`) that is a UUIDv7 no older than the own id (a copied
/// turn started before the fork, so its id is older). When the file ends
/// first: the whole rest is the copy if it holds UUIDv7 turn ids (nothing
/// of its own yet), else its end is not marked: with the parent's rollout
/// loaded alongside ([`load_session_with`]), the copy is found by
/// comparing the two (the longest run of lines whose `type` and `payload`
/// follow the parent's lines in order); without it, a diagnostic says so and the lines
/// count as the rollout's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replay {
    /// 1-based first line of the copy (the parent's `session_meta`).
    pub first_line: usize,
    /// 1-based last line of the copy.
    pub last_line: usize,
    /// Lines of the copy that parsed (blank and bad lines excluded).
    pub lines: usize,
}

/// The replay detector's state while reading.
#[derive(Default)]
enum ReplayState {
    /// Before the own `session_meta` and the line after it.
    #[default]
    Start,
    /// No copied prefix (or it has ended).
    Off,
    /// Inside a candidate copy: its lines are held until its end is known.
    Buffering {
        first_line: usize,
        held: Vec<(usize, Value)>,
        saw_turn_id: bool,
    },
}

/// One rollout read with its lineage: the main thread of a [`Session`], or
/// one of its child rollouts.
struct Thread {
    path: PathBuf,
    id: String,
    lineage: Lineage,
    replay: Option<Replay>,
    /// The own part's usage (the inherited total taken off).
    usage: Usage,
    loader: Loader,
    diagnostics: Vec<Diagnostic>,
}

impl Thread {
    fn load(path: &Path) -> std::io::Result<Thread> {
        Thread::load_cut(path, None)
    }

    /// [`Thread::load`] with the copy's last line given (`forced_end`).
    fn load_cut(path: &Path, forced_end: Option<usize>) -> std::io::Result<Thread> {
        let mut loader = Loader::new(path);
        loader.forced_end = forced_end;
        let mut diagnostics = Vec::new();
        read_objects(path, &mut diagnostics, |line_no, value| {
            loader.push(line_no, value);
        })?;
        loader.finish();
        loader.apply_end_events();
        diagnostics.append(&mut loader.diagnostics);
        let id = loader
            .id
            .clone()
            .filter(|id| !id.is_empty())
            .or_else(|| uuid_of_file_name(path))
            .unwrap_or_else(|| super::model::id_from_path(path));
        let lineage = loader.lineage.clone().unwrap_or_default();
        if lineage.names_itself() {
            diagnostics.push(Diagnostic::at_line(
                path,
                loader.meta_line.unwrap_or(1),
                "session_meta names the rollout itself as its parent; ignored".to_string(),
            ));
        }
        let usage = loader.own_usage();
        Ok(Thread {
            path: path.to_path_buf(),
            id,
            lineage,
            replay: loader.replay,
            usage,
            loader,
            diagnostics,
        })
    }

    fn title(&self) -> Option<String> {
        self.loader.thread_name.clone().or_else(|| {
            self.loader
                .turns
                .iter()
                .find(|t| t.prompt_line.is_some())
                .map(|t| one_line(&t.prompt, 200))
                .filter(|t| !t.is_empty())
        })
    }

    /// A rollout shown on its own that names a parent: one diagnostic
    /// (on the copied lines when there are some, else on the meta line).
    fn note_unlinked_parent(&self, diagnostics: &mut Vec<Diagnostic>) {
        let Some(parent) = self.lineage.parent() else {
            return;
        };
        let (line, message) = match self.replay {
            Some(r) => (
                r.first_line,
                format!(
                    "parent session {parent} is not linked: lines {}–{} replay its history \
                     and are not counted here",
                    r.first_line, r.last_line
                ),
            ),
            None => (
                self.loader.meta_line.unwrap_or(1),
                format!("parent session {parent} is not linked; shown on its own"),
            ),
        };
        diagnostics.push(Diagnostic::at_line(&self.path, line, message));
    }

    /// The `tool_use_id` of the call in this thread that spawned `child`:
    /// a `collab_agent_spawn_end` event naming its id, else a
    /// `spawn_agent` output naming it (`agent_id`, multi-agent v1) or its
    /// task name (`task_name`, v2), with how it was found.
    fn spawn_call_of(&self, child: &Thread) -> Option<(String, SubagentLink)> {
        if let Some(call) = self.loader.spawn_ends.get(&child.id) {
            return Some((call.clone(), SubagentLink::ChildSessionId));
        }
        for record in self.loader.turns.iter().flat_map(Turn::tool_calls) {
            if record.name() != "spawn_agent" {
                continue;
            }
            let Some(out) = record
                .result
                .as_ref()
                .and_then(|r| serde_json::from_str::<Value>(r.text.trim()).ok())
            else {
                continue;
            };
            if str_of(&out, "agent_id") == Some(child.id.as_str()) {
                return Some((record.tool_use_id.clone(), SubagentLink::ChildSessionId));
            }
            if let Some(path) = child.lineage.agent_path.as_deref()
                && str_of(&out, "task_name") == Some(path)
            {
                return Some((record.tool_use_id.clone(), SubagentLink::AgentPath));
            }
        }
        None
    }

    /// Sets `subagent` on the call `tool_use_id` (the latest call with that
    /// id) unless it already spawned another; whether it was set.
    fn mark_spawn(&mut self, tool_use_id: &str, index: usize) -> bool {
        let Some(&(t, e)) = self.loader.calls.get(tool_use_id) else {
            return false;
        };
        match self
            .loader
            .turns
            .get_mut(t)
            .and_then(|t| t.events.get_mut(e))
        {
            Some(Event::ToolCall(record)) if record.subagent.is_none() => {
                record.subagent = Some(index);
                true
            }
            _ => false,
        }
    }
}

/// The last line of `child`'s copy of its parent's history, found by
/// comparing it with the parent's rollout `parent` (used when the copy's
/// end is not marked by turn ids, [`Replay`]): from `first_line` on, each
/// child line whose `type` and `payload` equal those of a parent line after
/// the previous match is part of the copy (a subsequence: a `spawn_agent`
/// fork copies only some of the parent's items); the copy ends before the
/// first line that matches none. `None` when no line matches or a file
/// cannot be read.
fn copy_end_by_parent(child: &Path, first_line: usize, parent: &Path) -> Option<usize> {
    let key = |v: &Value| -> Option<String> {
        let kind = str_of(v, "type")?;
        Some(format!("{kind}\u{0}{}", v.get("payload")?))
    };
    let mut ignored = Vec::new();
    let mut positions: HashMap<String, Vec<usize>> = HashMap::new();
    let mut n = 0usize;
    read_objects(parent, &mut ignored, |_, v| {
        if let Some(k) = key(&v) {
            positions.entry(k).or_default().push(n);
        }
        n += 1;
    })
    .ok()?;
    let mut cursor: Option<usize> = None;
    let mut end = None;
    let mut open = true;
    read_objects(child, &mut ignored, |line_no, v| {
        if !open || line_no < first_line {
            return;
        }
        let next = key(&v).and_then(|k| positions.get(&k)).and_then(|found| {
            let from = cursor.map_or(0, |c| c + 1);
            found.get(found.partition_point(|&p| p < from)).copied()
        });
        match next {
            Some(p) => {
                cursor = Some(p);
                end = Some(line_no);
            }
            None => open = false,
        }
    })
    .ok()?;
    end
}

/// Turns child threads (ids unique, none the main one's) into the main
/// thread's subagents (index `i` is `threads[i]`), each tied to its parent
/// thread's spawn call when there is one. A child's parent is the main
/// thread or another child with the parent's id; every call spawns at most
/// one child and every child is spawned by at most one call, so a cycle of
/// parent links cannot loop.
fn link_children(
    main: &mut Thread,
    mut threads: Vec<Thread>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Subagent> {
    let first_of: HashMap<String, usize> = threads
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.clone(), i))
        .collect();
    // (child, parent thread: None = main, call) for every link found.
    let mut links: Vec<(usize, Option<usize>, String, SubagentLink)> = Vec::new();
    for (i, child) in threads.iter().enumerate() {
        let Some(parent) = child.lineage.parent() else {
            continue;
        };
        let parent_thread = if parent == main.id {
            None
        } else if let Some(&j) = first_of.get(parent).filter(|&&j| j != i) {
            Some(j)
        } else {
            diagnostics.push(Diagnostic::at_line(
                &child.path,
                child.loader.meta_line.unwrap_or(1),
                format!("parent session {parent} is not among the rollouts read with it"),
            ));
            continue;
        };
        let found = match parent_thread {
            None => main.spawn_call_of(child),
            Some(j) => threads[j].spawn_call_of(child),
        };
        if let Some((call, how)) = found {
            links.push((i, parent_thread, call, how));
        }
    }
    let mut spawned: Vec<Option<(String, SubagentLink)>> = vec![None; threads.len()];
    for (i, parent_thread, call, how) in links {
        let marked = match parent_thread {
            None => main.mark_spawn(&call, i),
            Some(j) => threads[j].mark_spawn(&call, i),
        };
        if marked {
            spawned[i] = Some((call, how));
        }
    }
    threads
        .iter_mut()
        .zip(spawned)
        .map(|(t, spawn)| {
            let replay = t.replay.map(
                |r| json!({"first_line": r.first_line, "last_line": r.last_line, "lines": r.lines}),
            );
            let meta = json!({
                "id": t.id,
                "forked_from_id": t.lineage.forked_from_id,
                "parent_thread_id": t.lineage.parent_thread_id,
                "subagent": t.lineage.subagent,
                "agent_path": t.lineage.agent_path,
                "agent_nickname": t.lineage.agent_nickname,
                "agent_role": t.lineage.agent_role,
                "replayed_lines": replay,
            });
            let (spawn_tool_use_id, link) = match spawn {
                Some((call, how)) => (Some(call), Some(how)),
                None => (None, None),
            };
            Subagent {
                agent_id: Some(t.id.clone()),
                agent_type: Some(t.lineage.kind()),
                description: t
                    .lineage
                    .agent_nickname
                    .clone()
                    .or_else(|| t.lineage.agent_path.clone())
                    .or_else(|| t.title()),
                path: t.path.clone(),
                layout: Some(SubagentLayout::ChildSession),
                spawn_tool_use_id,
                link,
                meta: Some(meta),
                turns: std::mem::take(&mut t.loader.turns),
                usage: t.usage,
                models: std::mem::take(&mut t.loader.models),
                started: t.loader.started,
                ended: t.loader.ended,
                lines: LineIndex::default(),
            }
        })
        .collect()
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
    /// The first `session_meta`'s lineage, and its line.
    lineage: Option<Lineage>,
    meta_line: Option<usize>,
    replay_state: ReplayState,
    /// The copied prefix, once its end is known.
    replay: Option<Replay>,
    /// The last `total_token_usage` inside the copied prefix: the running
    /// total the fork started from.
    inherited: Option<Usage>,
    /// `collab_agent_spawn_end`: `new_thread_id` → `call_id`.
    spawn_ends: HashMap<String, String>,
    /// The last line of the copy, when known from outside (a comparison
    /// with the parent's rollout, [`copy_end_by_parent`]).
    forced_end: Option<usize>,
    /// The first line of a copy whose end was not marked (read as own).
    unmarked_copy: Option<usize>,
}

impl Loader {
    fn new(path: &Path) -> Loader {
        Loader {
            path: path.to_path_buf(),
            ..Loader::default()
        }
    }

    fn diag(&mut self, line: usize, message: String) {
        self.diagnostics
            .push(Diagnostic::at_line(self.path.clone(), line, message));
    }

    fn push_event(&mut self, event: Event) -> (usize, usize) {
        super::model::push_event(&mut self.turns, event)
    }

    /// Reads one line, holding back a copied parent prefix (see [`Replay`]).
    fn push(&mut self, line_no: usize, v: Value) {
        match std::mem::take(&mut self.replay_state) {
            ReplayState::Start => {
                let is_meta = str_of(&v, "type") == Some("session_meta");
                let meta_id = v.get("payload").and_then(|p| str_of(p, "id"));
                if !self.seen_meta {
                    // Until the own session_meta has been read.
                    self.process(line_no, &v);
                    return;
                }
                if is_meta && meta_id.is_some() && meta_id != self.id.as_deref() {
                    self.replay_state = ReplayState::Buffering {
                        first_line: line_no,
                        held: vec![(line_no, v)],
                        saw_turn_id: false,
                    };
                    return;
                }
                self.replay_state = ReplayState::Off;
                self.process(line_no, &v);
            }
            ReplayState::Off => {
                self.replay_state = ReplayState::Off;
                self.process(line_no, &v);
            }
            ReplayState::Buffering {
                first_line,
                mut held,
                mut saw_turn_id,
            } => {
                if let Some(end) = self.forced_end {
                    if line_no > end {
                        self.end_replay(first_line, held, true);
                        self.process(line_no, &v);
                    } else {
                        held.push((line_no, v));
                        self.replay_state = ReplayState::Buffering {
                            first_line,
                            held,
                            saw_turn_id,
                        };
                    }
                    return;
                }
                let own_ms = self.id.as_deref().and_then(uuid_v7_millis);
                let repeats_own_meta = str_of(&v, "type") == Some("session_meta")
                    && v.get("payload").and_then(|p| str_of(p, "id")) == self.id.as_deref();
                let turn = turn_id_of(&v);
                let own_turn = matches!(
                    (own_ms, turn.and_then(uuid_v7_millis)),
                    (Some(own), Some(t)) if t >= own
                );
                if repeats_own_meta || own_turn {
                    self.end_replay(first_line, held, true);
                    self.process(line_no, &v);
                    return;
                }
                saw_turn_id |= turn.and_then(uuid_v7_millis).is_some();
                held.push((line_no, v));
                self.replay_state = ReplayState::Buffering {
                    first_line,
                    held,
                    saw_turn_id,
                };
            }
        }
    }

    /// At the end of the file: a copy still open is the whole rest when it
    /// holds UUIDv7 turn ids (the fork has no turn of its own yet) and the
    /// own id is a UUIDv7; else its end is not marked and its lines count as
    /// own.
    fn finish(&mut self) {
        if let ReplayState::Buffering {
            first_line,
            held,
            saw_turn_id,
        } = std::mem::take(&mut self.replay_state)
        {
            let marked = self.forced_end.is_some()
                || (saw_turn_id && self.id.as_deref().and_then(uuid_v7_millis).is_some());
            if !marked {
                self.unmarked_copy = Some(first_line);
                let last = held.last().map_or(first_line, |(l, _)| *l);
                self.diag(
                    first_line,
                    format!(
                        "lines {first_line}–{last} look like a copy of another session's history \
                         (a second session_meta), but where it ends is not marked (no UUIDv7 turn \
                         ids); counted as this session's own"
                    ),
                );
            }
            self.end_replay(first_line, held, marked);
        }
        self.replay_state = ReplayState::Off;
    }

    /// Closes the copied prefix: its lines are read for the inherited
    /// running total only (`is_copy`), or read as the rollout's own.
    fn end_replay(&mut self, first_line: usize, held: Vec<(usize, Value)>, is_copy: bool) {
        self.replay_state = ReplayState::Off;
        if !is_copy {
            for (line_no, v) in held {
                self.process(line_no, &v);
            }
            return;
        }
        let last_line = held.last().map_or(first_line, |(l, _)| *l);
        for (_, v) in &held {
            self.observe_time(v);
            if str_of(v, "type") == Some("event_msg")
                && let Some(p) = v.get("payload")
                && str_of(p, "type") == Some("token_count")
                && let Some(total) = p
                    .get("info")
                    .and_then(|i| i.get("total_token_usage"))
                    .filter(|t| t.is_object())
            {
                self.inherited = Some(usage_from_codex(total));
            }
        }
        self.replay = Some(Replay {
            first_line,
            last_line,
            lines: held.len(),
        });
    }

    /// The own part's usage: the last running total read outside the copied
    /// prefix minus the inherited total (Codex seeds a fork's running total
    /// with its parent's; a total below the inherited one in some counter
    /// was not seeded and is taken whole); no own total after a copy is 0;
    /// without any total, the `turn.completed` sum.
    fn own_usage(&self) -> Usage {
        match (self.usage, self.inherited) {
            (Some(total), Some(base)) => {
                let seeded = total.input_tokens >= base.input_tokens
                    && total.output_tokens >= base.output_tokens
                    && total.cache_creation_input_tokens >= base.cache_creation_input_tokens
                    && total.cache_read_input_tokens >= base.cache_read_input_tokens;
                if seeded {
                    Usage {
                        input_tokens: total.input_tokens - base.input_tokens,
                        output_tokens: total.output_tokens - base.output_tokens,
                        cache_creation_input_tokens: total.cache_creation_input_tokens
                            - base.cache_creation_input_tokens,
                        cache_read_input_tokens: total.cache_read_input_tokens
                            - base.cache_read_input_tokens,
                    }
                } else {
                    total
                }
            }
            (Some(total), None) => total,
            (None, _) if self.replay.is_some() => Usage::default(),
            (None, _) => self.turn_usage.unwrap_or_default(),
        }
    }

    fn observe_time(&mut self, v: &Value) -> Option<DateTime<Utc>> {
        let ts = timestamp_of(v);
        if let Some(t) = ts {
            self.started = Some(self.started.map_or(t, |s| s.min(t)));
            self.ended = Some(self.ended.map_or(t, |e| e.max(t)));
        }
        ts
    }

    fn process(&mut self, line_no: usize, v: &Value) {
        self.lines_seen += 1;
        let first = self.lines_seen == 1;
        let ts = self.observe_time(v);
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

    /// A line without the envelope: the legacy layout (docs/transcripts.md#older-codex-layouts) or
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
            return; // resume/fork repeats it; the first one wins (docs/transcripts.md#the-rollout-envelope)
        }
        self.seen_meta = true;
        self.meta_line = Some(line_no);
        self.lineage = Some(Lineage::from_meta(meta));
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
                    rejected: false,
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
                    stdout_is_text: false,
                    echoed_input: 0,
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
            "collab_agent_spawn_end" => {
                if let (Some(call_id), Some(child)) =
                    (str_of(payload, "call_id"), str_of(payload, "new_thread_id"))
                {
                    self.spawn_ends
                        .entry(child.to_string())
                        .or_insert_with(|| call_id.to_string());
                }
            }
            "tool_call" => {
                // 0.42-era fixtures (docs/transcripts.md#older-codex-layouts): {name, call_id, input}.
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
