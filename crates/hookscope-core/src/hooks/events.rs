//! Hook events: typed views over a hook's stdin JSON
//! (docs/hook-api.md#typed-event-views), and the rebuild of that JSON from a transcript
//! ([`payload`], docs/contract.md#common-input-fields, docs/contract.md#per-event-input-fields).
//!
//! [`HookEvent`] wraps the payload `serde_json::Value` exactly as Claude Code
//! sent it (or as [`payload`] rebuilt it) and answers captain_hook's questions:
//! `agent_id`, `is_subagent`, `background_tasks`, `session_crons`, `tasks`,
//! `cmd`, `as_input`, and for tool events `edit`, `replaced`, `pre_image`,
//! `post_image`. Views never fail: a missing or mistyped field reads as
//! absent.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::shell::CommandLine;
use crate::tools::{OnError, ToolCall, parse_tool_call};

mod build;

pub(crate) use build::real_path;
pub use build::{
    At, EventKey, EventName, LeftOut, Payload, PayloadError, REBUILT, REBUILT_FOR, UnknownEvent,
    all_payloads, closest_name, events_at, firings_at, for_each_payload_where, payload,
    payloads_where, place_of_call, rebuilds, turn_of_last,
};

/// Largest file read from disk for a live [`HookEvent::pre_image`] or from a
/// task store, in bytes (64 MiB).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Where the file's content before a tool call comes from
/// ([`HookEvent::pre_image`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FileBefore {
    /// Read from disk (a live hook at PreToolUse, as captain_hook does):
    /// `""` for a missing file, lossily decoded, `None` for a folder or an
    /// unreadable path.
    #[default]
    Disk,
    /// As a transcript recorded it (replay): an Edit's
    /// `toolUseResult.originalFile`, `""` for a Write that created its file;
    /// `None` when the transcript does not tell.
    Recorded(Option<String>),
}

/// A typed view over one hook payload (captain_hook's `BaseHookEvent` and
/// `ToolHookEvent`; docs/hook-api.md#typed-event-views).
#[derive(Debug, Clone, PartialEq)]
pub struct HookEvent {
    raw: Value,
    before: FileBefore,
}

/// One background task keeping a session alive (docs/hook-api.md#typed-event-views;
/// docs/contract.md#per-event-input-fields Stop `background_tasks[]`, Claude Code ≥ 2.1.145).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BackgroundTask {
    /// `id` ("" when absent).
    pub id: String,
    /// `type`: shell, subagent, monitor, workflow, teammate, cloud session,
    /// MCP task ("" when absent).
    #[serde(rename = "type")]
    pub kind: String,
    /// `status` ("" when absent).
    pub status: String,
    /// `description` ("" when absent).
    pub description: String,
    /// The whole entry, type-specific fields included.
    pub raw: Value,
}

/// A scheduled prompt registered on the session (docs/hook-api.md#typed-event-views).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionCron {
    /// `id` ("" when absent).
    pub id: String,
    /// `schedule`, a cron expression ("" when absent).
    pub schedule: String,
    /// `recurring` (false when absent).
    pub recurring: bool,
    /// `prompt` ("" when absent).
    pub prompt: String,
}

/// One task of Claude Code's native task store
/// (`<config dir>/tasks/<session_id>/<id>.json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredTask {
    /// `id` (else the file stem).
    pub id: String,
    /// `subject`.
    pub subject: String,
    /// `description`.
    pub description: String,
    /// `status` (`pending`, `in_progress`, `completed`).
    pub status: String,
    /// The whole file (`activeForm`, `blocks`, `blockedBy`, …).
    pub raw: Value,
}

/// A structured before/after view of a pending edit (docs/hook-api.md#typed-event-views): the
/// pre side is [`HookEvent::replaced`], the post side the new content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EditView {
    /// The edited file.
    pub file_path: String,
    /// What the call overwrites.
    pub pre: String,
    /// What it writes instead: an Edit's `new_string`, a MultiEdit's
    /// newline-joined `new_string`s, a Write's `content`.
    pub post: String,
}

impl HookEvent {
    /// A view over a live payload: [`HookEvent::pre_image`] reads disk.
    pub fn new(raw: Value) -> HookEvent {
        HookEvent {
            raw,
            before: FileBefore::Disk,
        }
    }

    /// A view whose file-before comes from `before` (a replay passes
    /// [`FileBefore::Recorded`]).
    pub fn with_file_before(raw: Value, before: FileBefore) -> HookEvent {
        HookEvent { raw, before }
    }

    /// The payload.
    pub fn raw(&self) -> &Value {
        &self.raw
    }

    fn str_field(&self, key: &str) -> Option<&str> {
        self.raw.get(key).and_then(Value::as_str)
    }

    /// `hook_event_name`.
    pub fn hook_event_name(&self) -> Option<&str> {
        self.str_field("hook_event_name")
    }

    /// `session_id`.
    pub fn session_id(&self) -> Option<&str> {
        self.str_field("session_id")
    }

    /// `tool_name`, for tool events.
    pub fn tool_name(&self) -> Option<&str> {
        self.str_field("tool_name")
    }

    /// `tool_input`, for tool events.
    pub fn tool_input(&self) -> Option<&Value> {
        self.raw.get("tool_input")
    }

    /// The subagent id, `None` for the main agent: a missing, null or empty
    /// `agent_id` all mean the main agent (docs/hook-api.md#typed-event-views).
    pub fn agent_id(&self) -> Option<&str> {
        self.str_field("agent_id").filter(|s| !s.is_empty())
    }

    /// `agent_type` (SubagentStart/Stop; inside a subagent); an empty string
    /// is kept (the `/compact` summariser's SubagentStop has `""`).
    pub fn agent_type(&self) -> Option<&str> {
        self.str_field("agent_type")
    }

    /// Whether this event came from a subagent payload (an
    /// [`HookEvent::agent_id`] is set).
    pub fn is_subagent(&self) -> bool {
        self.agent_id().is_some()
    }

    /// `background_tasks[]`; empty when the payload omits them (they are
    /// sent on Stop and SubagentStop from 2.1.145). Entries that are not
    /// objects are skipped.
    pub fn background_tasks(&self) -> Vec<BackgroundTask> {
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        self.array("background_tasks")
            .filter(|v| v.is_object())
            .map(|v| BackgroundTask {
                id: text(v, "id"),
                kind: text(v, "type"),
                status: text(v, "status"),
                description: text(v, "description"),
                raw: v.clone(),
            })
            .collect()
    }

    /// `session_crons[]`; empty when the payload omits them.
    pub fn session_crons(&self) -> Vec<SessionCron> {
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        self.array("session_crons")
            .filter(|v| v.is_object())
            .map(|v| SessionCron {
                id: text(v, "id"),
                schedule: text(v, "schedule"),
                recurring: v.get("recurring").and_then(Value::as_bool).unwrap_or(false),
                prompt: text(v, "prompt"),
            })
            .collect()
    }

    fn array(&self, key: &str) -> impl Iterator<Item = &Value> {
        self.raw
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    }

    /// The session's live task list from Claude Code's task store
    /// `<tasks_root>/<session_id>/*.json` (`tasks_root` is
    /// `<config dir>/tasks`; the corpus keeps it as `claude-home-tasks/`),
    /// sorted by id (numerically when both are numbers). Empty when the
    /// payload has no `session_id` or the session has no store: never
    /// another session's tasks. Files that are not regular, larger than
    /// [`MAX_FILE_BYTES`], or not JSON objects are skipped.
    pub fn tasks(&self, tasks_root: &Path) -> Vec<StoredTask> {
        let Some(session) = self.session_id().filter(|s| valid_dir_name(s)) else {
            return Vec::new();
        };
        read_task_store(&tasks_root.join(session))
    }

    /// The event's Bash command, parsed (docs/tool-calls.md#the-bash-command-parser): always a
    /// [`CommandLine`]; empty (no calls, `raw` "") for a non-Bash or absent
    /// command.
    pub fn cmd(&self) -> CommandLine {
        match self.call() {
            Some(ToolCall::Bash(bash)) => crate::shell::parse_command_line(&bash.command),
            _ => crate::shell::parse_command_line(""),
        }
    }

    /// Alias of [`HookEvent::cmd`] (captain_hook's `command`).
    pub fn command(&self) -> CommandLine {
        self.cmd()
    }

    /// The tool call typed by `parse_tool_call` (lenient, docs/tool-calls.md#strict-and-lenient-parsing), `None`
    /// for events without `tool_name`.
    pub fn call(&self) -> Option<ToolCall> {
        let name = self.tool_name()?;
        parse_tool_call(name, self.tool_input(), OnError::Other).ok()
    }

    /// The input narrowed to `call_type` (a [`ToolCall::type_name`], e.g.
    /// `"EditCall"`, `"BashCall"`), `None` when it is a different tool call
    /// (or its input is malformed, which parses as an `OtherCall`).
    pub fn as_input(&self, call_type: &str) -> Option<ToolCall> {
        self.call().filter(|c| c.type_name() == call_type)
    }

    fn at_pre_tool_use(&self) -> bool {
        self.hook_event_name() == Some("PreToolUse")
    }

    /// The file before the call, wherever [`FileBefore`] says.
    fn file_before(&self, path: &str) -> Option<String> {
        match &self.before {
            FileBefore::Recorded(text) => text.clone(),
            FileBefore::Disk => read_disk_lossy(Path::new(path)),
        }
    }

    /// The pre-image of the text this call overwrites, when knowable
    /// (docs/hook-api.md#typed-event-views): an Edit's `old_string` and a MultiEdit's
    /// newline-joined `old_string`s at any event; a Write's whole file
    /// before it, only at PreToolUse (afterwards the file already holds the
    /// new text); `None` for other tools.
    pub fn replaced(&self) -> Option<String> {
        match self.call()? {
            ToolCall::Edit(edit) => Some(edit.old),
            ToolCall::MultiEdit(multi) => Some(
                multi
                    .edits
                    .iter()
                    .map(|s| s.old.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            ToolCall::Write(write) if self.at_pre_tool_use() => self.file_before(&write.file_path),
            _ => None,
        }
    }

    /// The whole file before an Edit/MultiEdit/Write, at PreToolUse only
    /// (docs/hook-api.md#typed-event-views); `None` off PreToolUse, for other tools, and
    /// when the file before is unknown.
    pub fn pre_image(&self) -> Option<String> {
        if !self.at_pre_tool_use() {
            return None;
        }
        match self.call()? {
            ToolCall::Edit(e) => self.file_before(&e.file_path),
            ToolCall::MultiEdit(m) => self.file_before(&m.file_path),
            ToolCall::Write(w) => self.file_before(&w.file_path),
            _ => None,
        }
    }

    /// The whole file an Edit/MultiEdit/Write would produce, at PreToolUse
    /// (docs/hook-api.md#typed-event-views): a Write's content; an Edit applies old→new
    /// to [`HookEvent::pre_image`] once (every occurrence with
    /// `replace_all`); a MultiEdit folds its spans in order. `None` when a
    /// span's old text is absent from the running image (the call would
    /// fail), when the pre-image is unknown, off PreToolUse, or for other
    /// tools.
    pub fn post_image(&self) -> Option<String> {
        if !self.at_pre_tool_use() {
            return None;
        }
        match self.call()? {
            ToolCall::Write(w) => Some(w.content),
            ToolCall::Edit(e) => {
                let pre = self.file_before(&e.file_path)?;
                apply_span(&pre, &e.old, &e.new, e.replace_all)
            }
            ToolCall::MultiEdit(m) => {
                let mut image = self.file_before(&m.file_path)?;
                for span in &m.edits {
                    image = apply_span(&image, &span.old, &span.new, span.replace_all)?;
                }
                Some(image)
            }
            _ => None,
        }
    }

    /// The pending edit as before/after (docs/hook-api.md#typed-event-views): `pre` is
    /// [`HookEvent::replaced`], `post` the new text. `None` for non-edit
    /// tools and for a Write off PreToolUse (its pre side is unknowable once
    /// it landed). hookscope has no per-language grammar, so captain_hook's "no
    /// supported grammar" case does not apply.
    pub fn edit(&self) -> Option<EditView> {
        let (file_path, post) = match self.call()? {
            ToolCall::Edit(e) => (e.file_path, e.new),
            ToolCall::MultiEdit(m) => (
                m.file_path,
                m.edits
                    .iter()
                    .map(|s| s.new.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            ToolCall::Write(w) => (w.file_path, w.content),
            _ => return None,
        };
        Some(EditView {
            file_path,
            pre: self.replaced()?,
            post,
        })
    }
}

/// Replaces `old` by `new` in `image`: the first occurrence, or all of them
/// with `replace_all`; `None` when `old` does not occur. An empty `old` on an
/// empty image writes `new` (a file created by an Edit).
fn apply_span(image: &str, old: &str, new: &str, replace_all: bool) -> Option<String> {
    if old.is_empty() {
        return image.is_empty().then(|| new.to_string());
    }
    if !image.contains(old) {
        return None;
    }
    Some(if replace_all {
        image.replace(old, new)
    } else {
        image.replacen(old, new, 1)
    })
}

/// A file's text as a live hook would read it: `""` when it does not exist,
/// lossily decoded, `None` for a folder, a special file, an unreadable path
/// or one larger than [`MAX_FILE_BYTES`].
fn read_disk_lossy(path: &Path) -> Option<String> {
    match crate::transcript::fsread::read_capped(path, MAX_FILE_BYTES) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(String::new()),
        Err(_) => None,
    }
}

/// A session id usable as one path component (no separators, not `.`/`..`).
fn valid_dir_name(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\\', '\0'])
}

/// Reads `<dir>/*.json` as tasks, sorted by id.
fn read_task_store(dir: &Path) -> Vec<StoredTask> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut tasks: Vec<StoredTask> = paths
        .iter()
        .filter_map(|p| {
            let bytes = crate::transcript::fsread::read_capped(p, MAX_FILE_BYTES).ok()?;
            let raw: Value = serde_json::from_slice(&bytes).ok()?;
            let obj: &Map<String, Value> = raw.as_object()?;
            let text = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let id = obj
                .get("id")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| crate::transcript::id_from_path(p));
            Some(StoredTask {
                id,
                subject: text("subject"),
                description: text("description"),
                status: text("status"),
                raw: raw.clone(),
            })
        })
        .collect();
    tasks.sort_by(|a, b| match (a.id.parse::<u64>(), b.id.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ => a.id.cmp(&b.id),
    });
    tasks
}

#[cfg(test)]
mod tests;
