//! The Factory Droid loader: `~/.factory/sessions/<cwd-slug>/<uuid>.jsonl`
//! with its `<uuid>.settings.json` (docs/transcripts.md#factory-droid; corpus
//! `real-droid-0.225.2/README.md` "Transcript").
//!
//! Lines (lenient, [`read_objects`]; every unusable line a diagnostic with
//! file and line):
//! - `session_start` (first line): `id` (the session id), `title`, `cwd`.
//!   Its `version` (2) is the file format's, not the CLI's: not shown.
//! - `message` `{id, parentId, timestamp, message{role, content[…]}}`:
//!   - a user message with `text` blocks and no `visibility` is a prompt:
//!     it opens a turn;
//!   - the injected context message (`id` `context-<user msg id>`, several
//!     `<system-reminder>` blocks) is skipped;
//!   - a user message with `visibility` and text the CLI wrote (the
//!     `BYOK Error: …` of an API error) is an [`Event::ApiError`] when it
//!     reads as an error, else an [`Event::Note`] labelled `droid`;
//!   - `tool_result` blocks pair with their `tool_use` by `tool_use_id`,
//!     with Droid's own `is_error` flag;
//!   - **hook runs** (`content: []` with `hookEventName`): an
//!     [`Event::Note`] labelled `hook:<hookEventName>` whose text is one
//!     line from [`hook_summary`] (`Execute: exit 2: <stderr>`), a newline,
//!     and the compact JSON of the run's fields as recorded (`hookEventName`,
//!     `hookMatcher`, `hookToolCallId` or `hookParentId`, `hookStatus`,
//!     `hookResults[{exitCode, stdout, stderr}]`, `hookCommands`,
//!     `hookOrder`, `hookStartTime`, `hookEndTime`), in file order (a
//!     tool's PreToolUse run comes right after the assistant message that
//!     asked for the tool). Each is also one typed
//!     [`super::hook_activity::HookActivity`] in the thread's
//!     [`LineIndex::hook_activity`]
//!     ([`super::hook_activity::HookLog::on_droid_hook`]: exit 2 on
//!     PreToolUse is blocked, another non-zero exit failed), tied to its
//!     call by `hookToolCallId`, so `find --hook/--blocked`, the TUI's
//!     hook marks and `hooks --activity` see Droid's hooks; a hook field
//!     of the wrong JSON type is a diagnostic on its line (the rest is
//!     kept). Notes before the first prompt (the SessionStart run) belong
//!     to the first turn;
//!   - assistant blocks: `text` → [`Event::Text`], `thinking` →
//!     [`Event::Thinking`], `tool_use` → [`Event::ToolCall`] typed by
//!     [`parse_tool_call`] (`Execute` → a Bash call, `Create` → a Write
//!     call, as [`crate::tools::TOOL_ALIASES`] pairs them) and classified
//!     under the name they alias (`tool_kind` of `Execute` is `bash`,
//!     of `FetchUrl` `web`), `message_id` =
//!     the message's `id`, `models` from `modelId`.
//! - `agent_turn_outcome`: a [`Event::Note`] labelled `turn outcome` when
//!   `reason` is not `completed` (e.g. `model_request_rejected`).
//! - `compaction_state` → [`Event::Compaction`] (`summary.body`);
//!   `todo_state` is known and not shown; any other type is a diagnostic.
//!
//! Each `message` line's `id` → line is [`LineIndex::uuids`] (so `--at
//! <message id>` and `line:N` resolve); the file's one [`LineContext`]
//! holds `session_start.cwd` and the settings' `autonomyMode` as
//! `permission_mode` (what Droid's hook payloads carry).
//!
//! `<uuid>.settings.json` (read through [`super::fsread`], capped): `model`
//! heads [`Session::models`]; `tokenUsage` is the session's usage
//! (`inputTokens` → `input_tokens`, `outputTokens` → `output_tokens`,
//! `cacheCreationTokens`, `cacheReadTokens`; `thinkingTokens` is not added:
//! 0 in every corpus file, so whether Droid counts it inside
//! `outputTokens` is unknown). The transcript has no per-message usage.
//!
//! Child sessions: `<factory>/state/task-invocations.json` links a `Task`
//! call (`parentToolUseId`) to a `childSessionId`. A child transcript found
//! under `<factory>/sessions/*/<childSessionId>.jsonl` is loaded as a
//! [`Subagent`] spawned by that call; a link whose child has no transcript
//! (every link in the corpus: the runs had no Factory login) is a
//! diagnostic on `task-invocations.json`, never a guess.
//!
//! `is_error` is Droid's flag, as recorded; `find_tool_calls` still marks
//! Droid's calls `is_error_reliable: false` (docs/tool-calls.md#the-find-query: true only for
//! Claude Code and OpenCode).
//!
//! Every filesystem touch (transcripts, sidecars, the sessions folder, the
//! child look-ups) goes through [`super::fsread`] on the calling thread, so
//! the index's read log ([`super::fsread::record`]) holds all of them.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::claude_code::timestamp_of;
use super::hook_activity::{At, HookLog};
use super::jsonl::read_objects;
use super::model::{
    Agent, Diagnostic, Event, LineContext, LineIndex, Locus, Session, Subagent, SubagentLayout,
    SubagentLink, ToolCallRecord, ToolResult, Turn, Usage,
};
use super::text::one_line;
use crate::tools::{OnError, canonical_of, parse_tool_call, tool_kind, tool_resolved};

/// The most bytes read from a `.settings.json` or `task-invocations.json`
/// (4 MiB; real ones are about 1 KB per entry).
pub const SIDECAR_CAP: u64 = 4 << 20;

/// Child transcripts are followed at most this deep.
pub const MAX_CHILD_DEPTH: usize = 8;

/// The hook-run fields kept on a `hook:<event>` note, in this order.
pub const HOOK_FIELDS: &[&str] = &[
    "hookEventName",
    "hookMatcher",
    "hookToolCallId",
    "hookParentId",
    "hookStatus",
    "hookResults",
    "hookCommands",
    "hookOrder",
    "hookStartTime",
    "hookEndTime",
];

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// `<uuid>.settings.json` beside `<uuid>.jsonl`.
pub fn settings_path(transcript: &Path) -> PathBuf {
    transcript.with_extension("settings.json")
}

/// `<factory>/state/task-invocations.json` for a transcript at
/// `<factory>/sessions/<slug>/<uuid>.jsonl`.
pub fn task_invocations_path(transcript: &Path) -> Option<PathBuf> {
    let sessions = transcript.parent()?.parent()?;
    Some(
        sessions
            .parent()?
            .join("state")
            .join("task-invocations.json"),
    )
}

/// Maps a settings `tokenUsage` object to [`Usage`] (see the module docs).
pub fn usage_from_settings(u: &Value) -> Usage {
    let get = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: get("inputTokens"),
        output_tokens: get("outputTokens"),
        cache_creation_input_tokens: get("cacheCreationTokens"),
        cache_read_input_tokens: get("cacheReadTokens"),
    }
}

/// Reads a capped JSON object sidecar; a diagnostic when present but bad.
fn read_sidecar(path: &Path, diagnostics: &mut Vec<Diagnostic>) -> Option<Value> {
    let bytes = match super::fsread::read_capped(path, SIDECAR_CAP) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            diagnostics.push(Diagnostic::whole_file(
                path,
                super::claude_code::unreadable_message("Droid sidecar", &e),
            ));
            return None;
        }
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if v.is_object() => Some(v),
        Ok(_) => {
            diagnostics.push(Diagnostic::whole_file(path, "not a JSON object; ignored"));
            None
        }
        Err(e) => {
            diagnostics.push(Diagnostic::whole_file(
                path,
                format!("not valid JSON ({e}); ignored"),
            ));
            None
        }
    }
}

/// The first line of a hook-run note: the matcher (when any), then each
/// result's `exit <code>` and the first line of its stderr (else stdout),
/// e.g. `Execute: exit 2: Blocked by … (exit 2)`.
pub fn hook_summary(m: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(matcher) = str_of(m, "hookMatcher").filter(|s| !s.is_empty()) {
        parts.push(matcher.to_string());
    }
    let results: &[Value] = m
        .get("hookResults")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    for r in results {
        let code = r
            .get("exitCode")
            .map_or_else(|| "?".to_string(), |c| c.to_string());
        let said = [str_of(r, "stderr"), str_of(r, "stdout")]
            .into_iter()
            .flatten()
            .find_map(|t| t.lines().find(|l| !l.trim().is_empty()))
            .map(|l| format!(": {}", one_line(l, 120)))
            .unwrap_or_default();
        parts.push(format!("exit {code}{said}"));
    }
    if results.is_empty() {
        parts.push(str_of(m, "hookStatus").unwrap_or("no result").to_string());
    }
    parts.join(": ")
}

/// One transcript file read into turns.
#[derive(Default)]
struct Thread {
    path: PathBuf,
    id: Option<String>,
    title: Option<String>,
    cwd: Option<String>,
    turns: Vec<Turn>,
    /// tool_use id → (turn, event).
    calls: HashMap<String, (usize, usize)>,
    models: Vec<String>,
    started: Option<DateTime<Utc>>,
    ended: Option<DateTime<Utc>>,
    diagnostics: Vec<Diagnostic>,
    /// Hook firings so far (`LineIndex::hook_activity` once done).
    hooks: HookLog,
    /// Each `message` line's `id` → its first line (`LineIndex::uuids`).
    ids: HashMap<String, usize>,
    /// The last line read (`LineIndex::last_line`).
    last_line: usize,
}

impl Thread {
    fn read(path: &Path) -> std::io::Result<Thread> {
        let mut thread = Thread {
            path: path.to_path_buf(),
            ..Thread::default()
        };
        let mut diagnostics = Vec::new();
        read_objects(path, &mut diagnostics, |line, v| thread.push(line, &v))?;
        thread.diagnostics.append(&mut diagnostics);
        thread.diagnostics.sort_by(|a, b| a.locus.cmp(&b.locus));
        Ok(thread)
    }

    fn diag(&mut self, line: usize, message: String) {
        self.diagnostics
            .push(Diagnostic::at_line(self.path.clone(), line, message));
    }

    fn push_event(&mut self, event: Event) -> (usize, usize) {
        super::model::push_event(&mut self.turns, event)
    }

    fn push(&mut self, line: usize, v: &Value) {
        self.last_line = self.last_line.max(line);
        let ts = timestamp_of(v);
        if let Some(t) = ts {
            self.started = Some(self.started.map_or(t, |s| s.min(t)));
            self.ended = Some(self.ended.map_or(t, |e| e.max(t)));
        }
        match str_of(v, "type") {
            Some("session_start") => {
                if self.id.is_none() {
                    self.id = str_of(v, "id")
                        .filter(|s| !s.is_empty())
                        .map(str::to_string);
                    self.title = str_of(v, "sessionTitle")
                        .or_else(|| str_of(v, "title"))
                        .map(|t| one_line(t, 200))
                        .filter(|t| !t.is_empty());
                    self.cwd = str_of(v, "cwd")
                        .filter(|s| !s.is_empty())
                        .map(str::to_string);
                }
            }
            Some("message") => self.message(line, v, ts),
            Some("agent_turn_outcome") => {
                let reason = str_of(v, "reason").unwrap_or("unknown");
                if reason != "completed" {
                    self.push_event(Event::Note {
                        label: "turn outcome".to_string(),
                        text: reason.to_string(),
                        timestamp: ts,
                        line,
                    });
                }
            }
            Some("compaction_state") => {
                let summary = v.get("summary");
                let text = summary
                    .and_then(|s| str_of(s, "body"))
                    .or_else(|| summary.and_then(Value::as_str))
                    .unwrap_or_default()
                    .to_string();
                self.push_event(Event::Compaction {
                    trigger: None,
                    pre_tokens: None,
                    text,
                    timestamp: ts,
                    line,
                });
            }
            Some("todo_state") => {}
            Some(other) => self.diag(line, format!("unknown line type {other:?}; ignored")),
            None => self.diag(line, "line without a type; ignored".to_string()),
        }
    }

    fn message(&mut self, line: usize, v: &Value, ts: Option<DateTime<Utc>>) {
        let Some(m) = v.get("message").filter(|m| m.is_object()) else {
            self.diag(line, "message line without a message object".to_string());
            return;
        };
        let id = str_of(v, "id").unwrap_or_default();
        if !id.is_empty() {
            self.ids.entry(id.to_string()).or_insert(line);
        }
        let blocks: &[Value] = m
            .get("content")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        match str_of(m, "role") {
            Some("user") => {
                if m.get("hookEventName").is_some() {
                    self.hook(line, m, ts);
                    return;
                }
                if id.starts_with("context-") {
                    return; // injected <system-reminder> context
                }
                let mut texts = Vec::new();
                for block in blocks {
                    match str_of(block, "type") {
                        Some("text") => {
                            texts.push(str_of(block, "text").unwrap_or_default().to_string())
                        }
                        Some("tool_result") => self.result(line, block, ts),
                        Some("image") => texts.push("[image]".to_string()),
                        other => self.diag(
                            line,
                            format!("unknown user content block {other:?}; ignored"),
                        ),
                    }
                }
                if texts.is_empty() {
                    return;
                }
                let text = texts.join("\n");
                if m.get("visibility").is_some() {
                    let first = text.lines().next().unwrap_or_default();
                    let event = if first.contains("Error") {
                        Event::ApiError {
                            text,
                            timestamp: ts,
                            line,
                        }
                    } else {
                        Event::Note {
                            label: "droid".to_string(),
                            text,
                            timestamp: ts,
                            line,
                        }
                    };
                    self.push_event(event);
                    return;
                }
                // Notes before the first prompt (the SessionStart hook line)
                // belong to the first turn, not to a prompt-less one.
                if let [first] = self.turns.as_mut_slice()
                    && first.prompt_line.is_none()
                    && first.events.iter().all(|e| matches!(e, Event::Note { .. }))
                {
                    first.prompt = text;
                    first.prompt_line = Some(line);
                    first.timestamp = ts;
                    return;
                }
                self.turns.push(Turn {
                    prompt: text,
                    prompt_line: Some(line),
                    timestamp: ts,
                    events: Vec::new(),
                    rejected: false,
                });
            }
            Some("assistant") => {
                if let Some(model) = str_of(m, "modelId").filter(|s| !s.is_empty())
                    && !self.models.iter().any(|x| x == model)
                {
                    self.models.push(model.to_string());
                }
                for block in blocks {
                    match str_of(block, "type") {
                        Some("text") => {
                            let text = str_of(block, "text").unwrap_or_default();
                            if !text.trim().is_empty() {
                                self.push_event(Event::Text {
                                    text: text.to_string(),
                                    timestamp: ts,
                                    line,
                                });
                            }
                        }
                        Some("thinking") => {
                            let text = str_of(block, "thinking").unwrap_or_default();
                            self.push_event(Event::Thinking {
                                text: text.to_string(),
                                line,
                            });
                        }
                        Some("tool_use") => self.tool_use(line, id, block, ts),
                        other => self.diag(
                            line,
                            format!("unknown assistant content block {other:?}; ignored"),
                        ),
                    }
                }
            }
            other => self.diag(
                line,
                format!("message with unknown role {other:?}; ignored"),
            ),
        }
    }

    fn hook(&mut self, line: usize, m: &Value, ts: Option<DateTime<Utc>>) {
        let call = str_of(m, "hookToolCallId")
            .and_then(|id| self.calls.get(id))
            .and_then(|&(t, e)| match self.turns.get(t)?.events.get(e)? {
                Event::ToolCall(r) => Some((r.line, r.call.raw())),
                _ => None,
            });
        let at = At {
            line,
            turn: self.turns.len().saturating_sub(1),
            timestamp: ts,
            sidechain: false,
            call,
        };
        let problems = self.hooks.on_droid_hook(m, &at);
        for p in problems {
            self.diag(line, format!("hook line: {p}; the rest of it is kept"));
        }
        let event = str_of(m, "hookEventName").unwrap_or("unknown");
        let mut fields = Map::new();
        for key in HOOK_FIELDS {
            if let Some(value) = m.get(*key) {
                fields.insert((*key).to_string(), value.clone());
            }
        }
        self.push_event(Event::Note {
            label: format!("hook:{event}"),
            text: format!("{}\n{}", hook_summary(m), Value::Object(fields)),
            timestamp: ts,
            line,
        });
    }

    fn tool_use(
        &mut self,
        line: usize,
        message_id: &str,
        block: &Value,
        ts: Option<DateTime<Utc>>,
    ) {
        let Some(name) = str_of(block, "name") else {
            self.diag(line, "tool_use without a name; ignored".to_string());
            return;
        };
        let input = block.get("input").filter(|v| !v.is_null());
        let call = parse_tool_call(name, input, OnError::Other)
            .unwrap_or_else(|_| crate::tools::ToolCall::fallback(name, ""));
        let tool_use_id = str_of(block, "id")
            .filter(|s| !s.is_empty())
            .map_or_else(|| format!("line:{line}"), str::to_string);
        if self.calls.contains_key(&tool_use_id) {
            self.diag(
                line,
                format!("tool_use id {tool_use_id} reused; results pair with the latest"),
            );
        }
        let raw = call.raw().cloned();
        // Droid's own spellings classify as what they alias (`Execute` → bash).
        let kind_name = canonical_of(name).unwrap_or(name);
        let record = ToolCallRecord {
            tool_use_id: tool_use_id.clone(),
            tool_kind: tool_kind(kind_name, raw.as_ref()),
            tool_resolved: tool_resolved(name, raw.as_ref()),
            call,
            result: None,
            timestamp: ts,
            line,
            message_id: (!message_id.is_empty()).then(|| message_id.to_string()),
            subagent: None,
        };
        let at = self.push_event(Event::ToolCall(Box::new(record)));
        self.calls.insert(tool_use_id, at);
    }

    fn result(&mut self, line: usize, block: &Value, ts: Option<DateTime<Utc>>) {
        let Some(id) = str_of(block, "tool_use_id") else {
            self.diag(line, "tool_result without tool_use_id; ignored".to_string());
            return;
        };
        let text = match block.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| str_of(p, "text"))
                .collect::<Vec<_>>()
                .join("\n"),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        let is_error = block.get("is_error").and_then(Value::as_bool) == Some(true);
        let Some(&(t, e)) = self.calls.get(id) else {
            self.diag(
                line,
                format!("tool_result for unknown tool_use_id {id}; kept out of the timeline"),
            );
            return;
        };
        let mut duplicate = false;
        if let Some(Event::ToolCall(record)) = self.turns[t].events.get_mut(e) {
            if record.result.is_some() {
                duplicate = true;
            } else {
                record.result = Some(ToolResult {
                    text,
                    is_error,
                    tool_use_result: None,
                    stdout_is_text: false,
                    echoed_input: 0,
                    timestamp: ts,
                    line,
                    agent_id: None,
                });
            }
        }
        if duplicate {
            self.diag(
                line,
                format!("second tool_result for {id}; the first one is kept"),
            );
        }
    }
}

/// Loads a Droid transcript into a [`Session`] with `agent: Agent::Droid`:
/// `id` = `session_start.id` (else the file stem), `title`, `cwd` from
/// `session_start`, `started`/`ended` from the line timestamps, `models`
/// = settings `model` then each `modelId`, `usage` = settings `tokenUsage`.
///
/// # Errors
/// Only when the transcript cannot be opened or read at all.
pub fn load_session(path: &Path) -> std::io::Result<Session> {
    let mut visited = HashSet::new();
    load_tree(path, &mut visited, 0)
}

fn load_tree(
    path: &Path,
    visited: &mut HashSet<PathBuf>,
    depth: usize,
) -> std::io::Result<Session> {
    visited.insert(super::fsread::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()));
    let mut thread = Thread::read(path)?;
    let mut diagnostics = std::mem::take(&mut thread.diagnostics);
    let mut lines = LineIndex::default();
    lines.set_hook_activity(std::mem::take(&mut thread.hooks).finish());
    lines.uuids = std::mem::take(&mut thread.ids);
    lines.last_line = thread.last_line;
    let mut models = Vec::new();
    let mut usage = Usage::default();
    let mut autonomy = None;
    if let Some(settings) = read_sidecar(&settings_path(path), &mut diagnostics) {
        autonomy = str_of(&settings, "autonomyMode")
            .filter(|m| !m.is_empty())
            .map(str::to_string);
        if let Some(model) = str_of(&settings, "model").filter(|m| !m.is_empty()) {
            models.push(model.to_string());
        }
        if let Some(tokens) = settings.get("tokenUsage").filter(|t| t.is_object()) {
            usage = usage_from_settings(tokens);
        }
    }
    for m in std::mem::take(&mut thread.models) {
        if !models.contains(&m) {
            models.push(m);
        }
    }
    // One context for the whole file: `session_start.cwd` and the
    // settings' `autonomyMode` (`auto-high`, what Droid's hook payloads
    // carry as `permission_mode`; a change mid-session is not recorded).
    if thread.cwd.is_some() || autonomy.is_some() {
        lines.contexts.push(LineContext {
            line: 1,
            cwd: thread.cwd.clone(),
            permission_mode: autonomy,
            ..LineContext::default()
        });
    }
    let id = thread
        .id
        .clone()
        .unwrap_or_else(|| super::model::id_from_path(path));
    let mut subagents = Vec::new();
    link_children(
        path,
        &id,
        &mut thread,
        &mut subagents,
        &mut diagnostics,
        visited,
        depth,
    );
    Ok(Session {
        id,
        agent: Agent::Droid,
        path: path.to_path_buf(),
        cwd: thread.cwd,
        title: thread.title,
        started: thread.started,
        ended: thread.ended,
        version: None,
        git_branch: None,
        turns: thread.turns,
        subagents,
        usage,
        models,
        diagnostics,
        lines,
    })
}

/// Reads `task-invocations.json` for this session's links (see the module
/// docs): loads each child transcript found, else reports the link.
fn link_children(
    path: &Path,
    session_id: &str,
    thread: &mut Thread,
    subagents: &mut Vec<Subagent>,
    diagnostics: &mut Vec<Diagnostic>,
    visited: &mut HashSet<PathBuf>,
    depth: usize,
) {
    let Some(inv_path) = task_invocations_path(path) else {
        return;
    };
    let mut inv_diags = Vec::new();
    let Some(doc) = read_sidecar(&inv_path, &mut inv_diags) else {
        // A bad shared file concerns a session only when it has Task calls.
        if thread.calls.is_empty() {
            return;
        }
        diagnostics.append(&mut inv_diags);
        return;
    };
    let entries: &[Value] = doc
        .get("invocations")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let sessions_root = path.parent().and_then(Path::parent);
    for entry in entries {
        if str_of(entry, "parentSessionId") != Some(session_id) {
            continue;
        }
        let record = str_of(entry, "taskInvocationId").unwrap_or("?").to_string();
        let (Some(tool_use_id), Some(child)) = (
            str_of(entry, "parentToolUseId"),
            str_of(entry, "childSessionId").filter(|c| !c.contains(['/', '\\']) && !c.is_empty()),
        ) else {
            diagnostics.push(Diagnostic {
                path: inv_path.clone(),
                locus: Some(Locus::Record(record)),
                message: "task invocation without parentToolUseId or childSessionId; ignored"
                    .to_string(),
            });
            continue;
        };
        let child_file = sessions_root.and_then(|root| find_child(root, child));
        let Some(child_file) = child_file else {
            diagnostics.push(Diagnostic {
                path: inv_path.clone(),
                locus: Some(Locus::Record(record)),
                message: format!(
                    "Task call {tool_use_id}: child session {child}: child transcript not found; not linked"
                ),
            });
            continue;
        };
        let canonical =
            super::fsread::canonicalize(&child_file).unwrap_or_else(|_| child_file.clone());
        if visited.contains(&canonical) || depth >= MAX_CHILD_DEPTH {
            diagnostics.push(Diagnostic {
                path: inv_path.clone(),
                locus: Some(Locus::Record(record)),
                message: format!(
                    "Task call {tool_use_id}: child session {child} already read or too deep; not linked again"
                ),
            });
            continue;
        }
        let child_session = match load_tree(&child_file, visited, depth + 1) {
            Ok(s) => s,
            Err(e) => {
                diagnostics.push(Diagnostic::whole_file(
                    &child_file,
                    super::claude_code::unreadable_message("child transcript", &e),
                ));
                continue;
            }
        };
        let index = subagents.len();
        // The child's own spawns index its own subagents, which follow it here.
        let mut turns = child_session.turns;
        shift_spawns(&mut turns, index + 1);
        let mut grandchildren = child_session.subagents;
        for g in &mut grandchildren {
            shift_spawns(&mut g.turns, index + 1);
        }
        if let Some(&(t, e)) = thread.calls.get(tool_use_id)
            && let Some(Event::ToolCall(call)) = thread.turns[t].events.get_mut(e)
        {
            call.subagent = Some(index);
        }
        diagnostics.extend(child_session.diagnostics);
        subagents.push(Subagent {
            agent_id: Some(child_session.id),
            agent_type: str_of(entry, "subagentType").map(str::to_string),
            description: str_of(entry, "description").map(str::to_string),
            path: child_file,
            layout: Some(SubagentLayout::ChildSession),
            spawn_tool_use_id: Some(tool_use_id.to_string()),
            link: Some(SubagentLink::ChildSessionId),
            meta: Some(entry.clone()),
            turns,
            usage: child_session.usage,
            models: child_session.models,
            started: child_session.started,
            ended: child_session.ended,
            lines: child_session.lines,
        });
        // A grandchild stays reachable: it is a flat subagent of this session.
        subagents.extend(grandchildren);
    }
}

/// Adds `by` to every call's `subagent` index in `turns`.
fn shift_spawns(turns: &mut [Turn], by: usize) {
    for turn in turns {
        for event in &mut turn.events {
            if let Event::ToolCall(record) = event
                && let Some(i) = record.subagent.as_mut()
            {
                *i += by;
            }
        }
    }
}

/// `<sessions>/<any slug>/<child>.jsonl`, when it exists (the first slug
/// in name order that has it). Through [`super::fsread`], so the index's
/// read log holds the folder and every place looked at.
fn find_child(sessions_root: &Path, child: &str) -> Option<PathBuf> {
    let mut slugs = super::fsread::read_dir(sessions_root).ok()?;
    slugs.sort();
    slugs
        .into_iter()
        .map(|slug| slug.join(format!("{child}.jsonl")))
        .find(|p| super::fsread::probe(p).is_some_and(|m| m.is_file()))
}
