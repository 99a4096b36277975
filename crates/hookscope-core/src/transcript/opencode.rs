//! OpenCode (sst/opencode) sessions into the agent-neutral model
//! (docs/transcripts.md#opencode; the corpus READMEs of `real-opencode-1.18.33/` and
//! `real-opencode-1.1.65-legacy-json/`).
//!
//! OpenCode keeps a session as rows, not lines: one `session` record, one
//! `message` record per user message and per model call, and `part` records
//! under each message (text, reasoning, tool, step-start/finish, patch,
//! compaction, …). Two stores hold them, read by
//! [`super::opencode_sqlite`] (1.2+: `opencode.db`, tables `session`,
//! `message`, `part`) and [`super::opencode_json`] (≤ 1.1:
//! `storage/session|message|part/…/*.json`); both hand this module the same
//! [`SessionRow`] / [`MessageRow`] / [`PartRow`] values and it builds the
//! [`Session`].
//!
//! Mapping:
//! - **turns**: each user message opens a turn; its `text` parts joined by
//!   newlines are the prompt (as stored: `opencode run "a b"` stores the
//!   prompt wrapped in literal double quotes). A user message with a
//!   `compaction` part is an [`Event::Compaction`] of the running turn
//!   (`trigger` `auto`/`manual` from its `auto` flag), not a prompt.
//! - **assistant messages**: `text` parts → [`Event::Text`] (the answer of a
//!   `summary: true` compaction message → [`Event::Note`] labelled
//!   `compaction summary`), `reasoning` → [`Event::Thinking`], `tool` →
//!   [`Event::ToolCall`]; `error` → [`Event::ApiError`] (`name: message`),
//!   except `MessageAbortedError` → [`Event::Interruption`]. `step-start`,
//!   `step-finish`, `patch`, `snapshot`, `agent`, `file`, `subtask` and
//!   `retry` parts are known and not shown; any other part type is a
//!   diagnostic.
//! - **tool calls**: `tool` (the name as invoked, lower case), `callID` →
//!   `tool_use_id` (else the part id), `state.input` typed through
//!   [`typed_call`]; `state.status` `completed` → a result with `output`,
//!   `error` → a result with `is_error: true` and the `error` text, `running`
//!   / `pending` (left by a killed process) → no result. A `bash` that exits
//!   non-zero is `completed` with `metadata.exit` ≠ 0: it is **not** an error
//!   (OpenCode's own flag is kept, so `is_error` stays reliable); an
//!   [`Event::Note`] labelled `exit status` after the call says so.
//!   `state.metadata` is kept as [`ToolResult::tool_use_result`].
//! - **tokens**: each assistant message's `tokens` summed per thread:
//!   `input` → `input_tokens`, `output + reasoning` → `output_tokens`,
//!   `cache.read` → `cache_read_input_tokens`, `cache.write` →
//!   `cache_creation_input_tokens` (so [`Usage::total`] is OpenCode's
//!   `tokens.total`).
//! - **child sessions** (`parent_id` / `parentID`;
//!   docs/transcripts.md#opencode) are the session's
//!   [`Subagent`]s, descendants included (a cycle of parent links is cut);
//!   a `task` call whose `state.metadata.sessionId` names one is its spawn
//!   ([`SubagentLink::ChildSessionId`]).
//! - **lines**: a record has no line. `line` fields hold the 1-based ordinal
//!   of the record in load order (messages and their parts, thread by
//!   thread), which keeps the model's ordering; [`LineIndex::records`] maps
//!   each ordinal back to its record id. Diagnostics name the record
//!   ([`Locus::Record`]) or, for a JSON file, the file.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::model::{
    Agent, Diagnostic, Event, LineIndex, Locus, Session, Subagent, SubagentLayout, SubagentLink,
    ToolCallRecord, ToolResult, Turn, Usage,
};
use super::text::one_line;
use crate::tools::{OnError, ToolCall, parse_tool_call, tool_kind, tool_resolved};

/// A `session` record (SQLite row, or a `storage/session/<project>/<id>.json`
/// file).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionRow {
    /// `id` (`ses_…`).
    pub id: String,
    /// `parent_id` (SQLite) / `parentID` (JSON): set on child sessions of
    /// the `task` tool.
    pub parent_id: Option<String>,
    /// `title`.
    pub title: Option<String>,
    /// `directory` (the session's working directory).
    pub directory: Option<String>,
    /// `version` (the OpenCode version that created it).
    pub version: Option<String>,
    /// `agent` (`build`, `explore`, `general`; SQLite only).
    pub agent: Option<String>,
    /// `time_created` / `time.created`, epoch ms.
    pub created_ms: Option<i64>,
    /// `time_updated` / `time.updated`, epoch ms.
    pub updated_ms: Option<i64>,
    /// The file the record is in (the database, or the session JSON file).
    pub path: PathBuf,
}

/// A `message` record with its parts, in part-id order.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageRow {
    /// `id` (`msg_…`).
    pub id: String,
    /// The message object (`role`, `time`, `tokens`, `error`, …).
    pub data: Value,
    /// The file the record is in (the database, or the message JSON file).
    pub path: PathBuf,
    /// Its parts, ordered by id.
    pub parts: Vec<PartRow>,
}

/// A `part` record.
#[derive(Debug, Clone, PartialEq)]
pub struct PartRow {
    /// `id` (`prt_…`).
    pub id: String,
    /// The part object (`type`, …).
    pub data: Value,
    /// The file the record is in (the database, or the part JSON file).
    pub path: PathBuf,
}

/// What a store gives the builder: a session and its messages.
pub trait Store {
    /// The session record `id`, when there is one.
    fn session(&mut self, id: &str, diagnostics: &mut Vec<Diagnostic>) -> Option<SessionRow>;
    /// The sessions whose parent is `id`.
    fn children(&mut self, id: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<SessionRow>;
    /// The messages of session `id` in creation order, each with its parts.
    fn messages(&mut self, id: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<MessageRow>;
}

/// Children are followed at most this deep (a parent-link chain longer
/// than this is cut, with a diagnostic).
pub const MAX_CHILD_DEPTH: usize = 16;

/// Builds the [`Session`] `id` (with `agent: Agent::OpenCode`) from a store:
/// its own messages as the main thread, every descendant session as a
/// [`Subagent`]. `path` is the session's file (the database, or its JSON
/// file). Never fails: a missing session record gives an empty session
/// with a diagnostic.
pub fn build_session(store: &mut dyn Store, id: &str, path: &Path) -> Session {
    let mut diagnostics = Vec::new();
    let row = store.session(id, &mut diagnostics).unwrap_or_else(|| {
        diagnostics.push(Diagnostic {
            path: path.to_path_buf(),
            locus: Some(Locus::Record(id.to_string())),
            message: "session record not found".to_string(),
        });
        SessionRow {
            id: id.to_string(),
            path: path.to_path_buf(),
            ..SessionRow::default()
        }
    });
    let messages = store.messages(id, &mut diagnostics);
    let mut main = Thread::new();
    main.read(&messages, &mut diagnostics);

    // Descendants, breadth first; a session is visited once (cycles cut).
    let mut subagents: Vec<Subagent> = Vec::new();
    let mut spawns: HashMap<String, usize> = HashMap::new();
    let mut seen: HashSet<String> = HashSet::from([row.id.clone()]);
    let mut level: Vec<SessionRow> = store.children(&row.id, &mut diagnostics);
    let mut depth = 0;
    let mut child_threads: Vec<Thread> = Vec::new();
    while !level.is_empty() {
        depth += 1;
        let mut next = Vec::new();
        for child in level {
            if !seen.insert(child.id.clone()) {
                diagnostics.push(Diagnostic {
                    path: child.path.clone(),
                    locus: Some(Locus::Record(child.id.clone())),
                    message: "child session reached twice (a cycle of parent links); shown once"
                        .to_string(),
                });
                continue;
            }
            if depth > MAX_CHILD_DEPTH {
                diagnostics.push(Diagnostic {
                    path: child.path.clone(),
                    locus: Some(Locus::Record(child.id.clone())),
                    message: format!(
                        "child session more than {MAX_CHILD_DEPTH} levels below its session; not read"
                    ),
                });
                continue;
            }
            let messages = store.messages(&child.id, &mut diagnostics);
            let mut thread = Thread::new();
            thread.read(&messages, &mut diagnostics);
            next.extend(store.children(&child.id, &mut diagnostics));
            spawns.insert(child.id.clone(), subagents.len());
            subagents.push(Subagent {
                agent_id: Some(child.id.clone()),
                agent_type: child.agent.clone(),
                description: child.title.clone(),
                path: child.path.clone(),
                layout: Some(SubagentLayout::ChildSession),
                spawn_tool_use_id: None,
                link: None,
                meta: None,
                turns: Vec::new(),
                usage: thread.usage,
                models: thread.models.clone(),
                started: thread.started.or_else(|| ms_time(child.created_ms)),
                ended: thread.ended.or_else(|| ms_time(child.updated_ms)),
                lines: LineIndex::default(),
            });
            child_threads.push(thread);
        }
        level = next;
    }
    // Link each `task` call to the child session its metadata names.
    let mut linked: HashSet<usize> = HashSet::new();
    for thread in std::iter::once(&mut main).chain(child_threads.iter_mut()) {
        thread.link(&spawns, &mut subagents, &mut linked);
    }
    for (sub, thread) in subagents.iter_mut().zip(child_threads) {
        sub.turns = thread.turns;
        sub.lines = thread.lines;
    }
    diagnostics.sort_by(|a, b| {
        a.path
            .as_os_str()
            .cmp(b.path.as_os_str())
            .then(a.locus.cmp(&b.locus))
    });
    Session {
        id: row.id.clone(),
        agent: Agent::OpenCode,
        path: path.to_path_buf(),
        cwd: row.directory.clone(),
        title: row
            .title
            .as_deref()
            .map(|t| one_line(t, 200))
            .filter(|t| !t.is_empty()),
        started: main.started.or_else(|| ms_time(row.created_ms)),
        ended: main.ended.or_else(|| ms_time(row.updated_ms)),
        version: row.version.clone(),
        git_branch: None,
        turns: main.turns,
        subagents,
        usage: main.usage,
        models: main.models,
        diagnostics,
        lines: main.lines,
    }
}

/// Epoch milliseconds as a time.
pub fn ms_time(ms: Option<i64>) -> Option<DateTime<Utc>> {
    ms.and_then(DateTime::from_timestamp_millis)
}

fn ms_of(v: Option<&Value>) -> Option<DateTime<Utc>> {
    ms_time(v.and_then(Value::as_i64))
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// An assistant message's `tokens` as [`Usage`] (see the module docs);
/// missing counters count as 0.
pub fn usage_of(tokens: &Value) -> Usage {
    let get = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cache = tokens.get("cache").cloned().unwrap_or(Value::Null);
    Usage {
        input_tokens: get(tokens, "input"),
        output_tokens: get(tokens, "output").saturating_add(get(tokens, "reasoning")),
        cache_creation_input_tokens: get(&cache, "write"),
        cache_read_input_tokens: get(&cache, "read"),
    }
}

/// OpenCode's lower-case tool names → the Claude Code spelling whose typed
/// call they match (docs/transcripts.md#opencode, docs/tool-calls.md#input-schemas).
pub const TYPED_NAMES: &[(&str, &str)] = &[
    ("bash", "Bash"),
    ("read", "Read"),
    ("write", "Write"),
    ("edit", "Edit"),
    ("multiedit", "MultiEdit"),
    ("glob", "Glob"),
    ("grep", "Grep"),
    ("task", "Task"),
    ("todowrite", "TodoWrite"),
    ("webfetch", "WebFetch"),
    ("skill", "Skill"),
];

/// OpenCode's camelCase input keys → the Claude Code keys of the typed
/// calls (`filePath` → `file_path`, …; `grep`'s `include` → `glob`).
pub const INPUT_KEYS: &[(&str, &str)] = &[
    ("filePath", "file_path"),
    ("oldString", "old_string"),
    ("newString", "new_string"),
    ("replaceAll", "replace_all"),
];

/// The typed call of an OpenCode `tool` part: `tool` mapped through
/// [`TYPED_NAMES`] (`bash` → the `Bash` shape, `read` → `Read`, …) and the
/// input's camelCase keys through [`INPUT_KEYS`], parsed with
/// [`parse_tool_call`] (`on_error = other`); the result keeps the name and
/// the input exactly as OpenCode recorded them (`name()` is `bash`, `raw()`
/// the original `state.input`). Unknown names (`invalid`, MCP tools, …) are
/// untyped [`ToolCall::Other`] calls.
pub fn typed_call(tool: &str, input: Option<&Value>) -> ToolCall {
    let canonical = TYPED_NAMES
        .iter()
        .find(|(oc, _)| *oc == tool)
        .map(|(_, cc)| *cc);
    let Some(canonical) = canonical else {
        return renamed(
            parse_tool_call(tool, input, OnError::Other)
                .unwrap_or_else(|_| ToolCall::fallback(tool, "")),
            tool,
            input.cloned(),
        );
    };
    let normalized = input.map(|v| match v {
        Value::Object(obj) => {
            let mut out = Map::new();
            for (k, val) in obj {
                let key = INPUT_KEYS
                    .iter()
                    .find(|(oc, _)| oc == k)
                    .map(|(_, cc)| *cc)
                    .or((tool == "grep" && k == "include").then_some("glob"))
                    .unwrap_or(k.as_str());
                out.insert(key.to_string(), val.clone());
            }
            Value::Object(out)
        }
        other => other.clone(),
    });
    let call = parse_tool_call(canonical, normalized.as_ref(), OnError::Other)
        .unwrap_or_else(|_| ToolCall::fallback(tool, ""));
    renamed(call, tool, input.cloned())
}

/// `call` with its name and raw input replaced.
fn renamed(mut call: ToolCall, name: &str, raw: Option<Value>) -> ToolCall {
    macro_rules! set {
        ($($v:ident),*) => {
            match &mut call {
                $(ToolCall::$v(c) => {
                    c.name = name.to_string();
                    c.raw = raw;
                })*
            }
        };
    }
    set!(
        Bash,
        Read,
        Write,
        Edit,
        MultiEdit,
        NotebookEdit,
        Glob,
        Grep,
        ExitPlanMode,
        Skill,
        Task,
        TaskCreate,
        TaskUpdate,
        Workflow,
        Other,
        Fallback
    );
    call
}

/// Part types known and not shown.
const QUIET_PARTS: &[&str] = &[
    "step-start",
    "step-finish",
    "patch",
    "snapshot",
    "agent",
    "file",
    "subtask",
    "retry",
];

/// One thread (a session's own messages) being assembled.
struct Thread {
    turns: Vec<Turn>,
    usage: Usage,
    models: Vec<String>,
    started: Option<DateTime<Utc>>,
    ended: Option<DateTime<Utc>>,
    lines: LineIndex,
    /// (turn, event, child session id) of each `task` call naming one.
    task_children: Vec<(usize, usize, String)>,
}

impl Thread {
    fn new() -> Thread {
        Thread {
            turns: Vec::new(),
            usage: Usage::default(),
            models: Vec::new(),
            started: None,
            ended: None,
            lines: LineIndex::default(),
            task_children: Vec::new(),
        }
    }

    /// The next ordinal, recorded as `id`'s line.
    fn ordinal(&mut self, id: &str) -> usize {
        self.lines.records.push(id.to_string());
        self.lines.records.len()
    }

    fn seen(&mut self, t: Option<DateTime<Utc>>) {
        if let Some(t) = t {
            self.started = Some(self.started.map_or(t, |s| s.min(t)));
            self.ended = Some(self.ended.map_or(t, |e| e.max(t)));
        }
    }

    fn push_event(&mut self, event: Event) -> (usize, usize) {
        super::model::push_event(&mut self.turns, event)
    }

    fn read(&mut self, messages: &[MessageRow], diagnostics: &mut Vec<Diagnostic>) {
        for message in messages {
            let line = self.ordinal(&message.id);
            let data = &message.data;
            let time = data.get("time");
            let created = ms_of(time.and_then(|t| t.get("created")));
            self.seen(created);
            self.seen(ms_of(time.and_then(|t| t.get("completed"))));
            match str_of(data, "role") {
                Some("user") => self.user(message, line, created, diagnostics),
                Some("assistant") => self.assistant(message, line, created, diagnostics),
                other => diagnostics.push(Diagnostic {
                    path: message.path.clone(),
                    locus: Some(Locus::Record(message.id.clone())),
                    message: match other {
                        Some(role) => format!("message with unknown role {role:?}; ignored"),
                        None => "message without a role; ignored".to_string(),
                    },
                }),
            }
        }
    }

    fn part_type<'a>(part: &'a PartRow, diagnostics: &mut Vec<Diagnostic>) -> Option<&'a str> {
        let kind = str_of(&part.data, "type");
        if kind.is_none() {
            diagnostics.push(Diagnostic {
                path: part.path.clone(),
                locus: Some(Locus::Record(part.id.clone())),
                message: "part without a type; ignored".to_string(),
            });
        }
        kind
    }

    fn user(
        &mut self,
        message: &MessageRow,
        line: usize,
        created: Option<DateTime<Utc>>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let mut texts = Vec::new();
        let mut compaction = None;
        for part in &message.parts {
            let part_line = self.ordinal(&part.id);
            match Self::part_type(part, diagnostics) {
                Some("text") => {
                    if let Some(t) = str_of(&part.data, "text") {
                        texts.push(t.to_string());
                    }
                }
                Some("compaction") => {
                    let auto = part.data.get("auto").and_then(Value::as_bool);
                    compaction = Some((auto, part_line));
                }
                Some(k) if QUIET_PARTS.contains(&k) => {}
                Some(other) => diagnostics.push(Diagnostic {
                    path: part.path.clone(),
                    locus: Some(Locus::Record(part.id.clone())),
                    message: format!("unknown part type {other:?} on a user message; ignored"),
                }),
                None => {}
            }
        }
        if let Some((auto, part_line)) = compaction {
            self.push_event(Event::Compaction {
                trigger: auto.map(|a| if a { "auto" } else { "manual" }.to_string()),
                pre_tokens: None,
                text: texts.join("\n"),
                timestamp: created,
                line: part_line,
            });
            return;
        }
        self.turns.push(Turn {
            prompt: texts.join("\n"),
            prompt_line: Some(line),
            timestamp: created,
            events: Vec::new(),
            rejected: false,
        });
    }

    fn assistant(
        &mut self,
        message: &MessageRow,
        line: usize,
        created: Option<DateTime<Utc>>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let data = &message.data;
        if let Some(tokens) = data.get("tokens") {
            self.usage.add(&usage_of(tokens));
        }
        if let Some(model) = str_of(data, "modelID").filter(|m| !m.is_empty())
            && !self.models.iter().any(|m| m == model)
        {
            self.models.push(model.to_string());
        }
        let summary = data.get("summary").and_then(Value::as_bool) == Some(true);
        for part in &message.parts {
            let part_line = self.ordinal(&part.id);
            match Self::part_type(part, diagnostics) {
                Some("text") => {
                    let text = str_of(&part.data, "text").unwrap_or_default().to_string();
                    let timestamp =
                        ms_of(part.data.get("time").and_then(|t| t.get("start"))).or(created);
                    if summary {
                        self.push_event(Event::Note {
                            label: "compaction summary".to_string(),
                            text,
                            timestamp,
                            line: part_line,
                        });
                    } else if !text.trim().is_empty() {
                        self.push_event(Event::Text {
                            text,
                            timestamp,
                            line: part_line,
                        });
                    }
                }
                Some("reasoning") => {
                    let text = str_of(&part.data, "text").unwrap_or_default().to_string();
                    self.push_event(Event::Thinking {
                        text,
                        line: part_line,
                    });
                }
                Some("tool") => self.tool(message, part, part_line, diagnostics),
                Some("compaction") => {
                    self.push_event(Event::Compaction {
                        trigger: None,
                        pre_tokens: None,
                        text: String::new(),
                        timestamp: created,
                        line: part_line,
                    });
                }
                Some(k) if QUIET_PARTS.contains(&k) => {}
                Some(other) => diagnostics.push(Diagnostic {
                    path: part.path.clone(),
                    locus: Some(Locus::Record(part.id.clone())),
                    message: format!("unknown part type {other:?}; ignored"),
                }),
                None => {}
            }
        }
        if let Some(error) = data.get("error").filter(|e| !e.is_null()) {
            let name = str_of(error, "name").unwrap_or("error");
            let text = error
                .get("data")
                .and_then(|d| str_of(d, "message"))
                .map_or_else(|| name.to_string(), |m| format!("{name}: {m}"));
            let timestamp = ms_of(data.get("time").and_then(|t| t.get("completed"))).or(created);
            let event = if name == "MessageAbortedError" {
                Event::Interruption {
                    text: format!("[{text}]"),
                    timestamp,
                    line,
                }
            } else {
                Event::ApiError {
                    text,
                    timestamp,
                    line,
                }
            };
            self.push_event(event);
        }
    }

    fn tool(
        &mut self,
        message: &MessageRow,
        part: &PartRow,
        line: usize,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(tool) = tool_part(&message.id, part, line, diagnostics) else {
            return;
        };
        self.seen(tool.record.timestamp);
        self.seen(tool.ended);
        let (t, e) = self.push_event(Event::ToolCall(Box::new(tool.record)));
        if let Some(child) = tool.child {
            self.task_children.push((t, e, child));
        }
        if let Some((name, code)) = tool.exit {
            self.push_event(Event::Note {
                label: "exit status".to_string(),
                text: format!(
                    "{name} exited with code {code} (metadata.exit); OpenCode records it as completed, not as an error"
                ),
                timestamp: tool.ended,
                line,
            });
        }
    }

    /// Sets `subagent` on each `task` call whose child session was read,
    /// and the child's spawn fields (the first call naming a child wins).
    fn link(
        &mut self,
        spawns: &HashMap<String, usize>,
        subagents: &mut [Subagent],
        linked: &mut HashSet<usize>,
    ) {
        for (t, e, child) in std::mem::take(&mut self.task_children) {
            let Some(&i) = spawns.get(&child) else {
                continue;
            };
            if !linked.insert(i) {
                continue;
            }
            if let Some(Event::ToolCall(record)) = self
                .turns
                .get_mut(t)
                .and_then(|turn| turn.events.get_mut(e))
            {
                record.subagent = Some(i);
                if let Some(sub) = subagents.get_mut(i) {
                    sub.spawn_tool_use_id = Some(record.tool_use_id.clone());
                    sub.link = Some(SubagentLink::ChildSessionId);
                    if sub.agent_type.is_none()
                        && let ToolCall::Task(task) = &record.call
                    {
                        sub.agent_type = task.subagent_type.clone();
                    }
                }
            }
        }
    }
}

/// What one `tool` part gives its thread (see the module doc, "tool
/// calls").
pub(crate) struct ToolPart {
    /// The call, `line` its record ordinal, `message_id` its message.
    pub record: ToolCallRecord,
    /// `state.time.end`.
    pub ended: Option<DateTime<Utc>>,
    /// The child session `state.metadata.sessionId` names (a `task` spawn).
    pub child: Option<String>,
    /// A completed `bash`'s non-zero `metadata.exit`, with the tool name.
    pub exit: Option<(String, i64)>,
}

/// The call of the `tool` part `part` of message `message_id` (its
/// record ordinal `line`); `None`, with a diagnostic, for a part without a
/// tool name. A state that is not an object or an unknown `state.status`
/// is a diagnostic too, and the call is kept.
pub(crate) fn tool_part(
    message_id: &str,
    part: &PartRow,
    line: usize,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<ToolPart> {
    let diag = |diagnostics: &mut Vec<Diagnostic>, text: String| {
        diagnostics.push(Diagnostic {
            path: part.path.clone(),
            locus: Some(Locus::Record(part.id.clone())),
            message: text,
        })
    };
    let Some(name) = str_of(&part.data, "tool") else {
        diag(diagnostics, "tool part without a tool name; ignored".into());
        return None;
    };
    let state = part.data.get("state").cloned().unwrap_or(Value::Null);
    if !state.is_object() {
        diag(
            diagnostics,
            format!("{name} tool part without a state object; input unknown"),
        );
    }
    let input = state.get("input").filter(|v| !v.is_null());
    let call = typed_call(name, input);
    let time = state.get("time");
    let started = ms_of(time.and_then(|t| t.get("start")));
    let ended = ms_of(time.and_then(|t| t.get("end")));
    let status = str_of(&state, "status");
    let metadata = state.get("metadata").filter(|m| !m.is_null()).cloned();
    let result_of = |text: String, is_error: bool| ToolResult {
        text,
        is_error,
        tool_use_result: metadata.clone(),
        stdout_is_text: false,
        echoed_input: 0,
        timestamp: ended,
        line,
        agent_id: None,
    };
    let result = match status {
        Some("completed") => Some(result_of(
            state
                .get("output")
                .map(|o| match o {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                })
                .unwrap_or_default(),
            false,
        )),
        Some("error") => Some(result_of(
            str_of(&state, "error").unwrap_or_default().to_string(),
            true,
        )),
        Some("running" | "pending") => None,
        other => {
            diag(
                diagnostics,
                format!(
                    "{name} tool part with unknown state.status {}; kept without a result",
                    other.map_or_else(|| "(none)".to_string(), |s| format!("{s:?}"))
                ),
            );
            None
        }
    };
    let child = metadata
        .as_ref()
        .and_then(|m| str_of(m, "sessionId"))
        .map(str::to_string);
    let exit = (name == "bash" && status == Some("completed"))
        .then(|| {
            metadata
                .as_ref()
                .and_then(|m| m.get("exit"))
                .and_then(Value::as_i64)
        })
        .flatten()
        .filter(|code| *code != 0)
        .map(|code| (name.to_string(), code));
    let raw = call.raw().cloned();
    let record = ToolCallRecord {
        tool_use_id: tool_use_id_of(part),
        tool_kind: tool_kind(name, raw.as_ref()),
        tool_resolved: tool_resolved(name, raw.as_ref()),
        call,
        result,
        timestamp: started,
        line,
        message_id: Some(message_id.to_string()),
        subagent: None,
    };
    Some(ToolPart {
        record,
        ended,
        child,
        exit,
    })
}

/// A tool part's `tool_use_id`: its `callID`, else (missing or empty) the
/// part id.
fn tool_use_id_of(part: &PartRow) -> String {
    str_of(&part.data, "callID")
        .filter(|c| !c.is_empty())
        .unwrap_or(&part.id)
        .to_string()
}

/// The call `tool_use_id` among `parts` (the parts of message
/// `message_id`), built as the loader builds it, with `line` as its
/// ordinal: the one part of type
/// `tool` whose `tool_use_id` it is; `None` when no part or several are
/// (the caller then loads the session). Diagnostics are dropped: a part
/// that gave one at index time is not read this way.
pub fn call_in_parts(
    message_id: &str,
    parts: &[PartRow],
    tool_use_id: &str,
    line: usize,
) -> Option<ToolCallRecord> {
    let mut found = parts
        .iter()
        .filter(|p| str_of(&p.data, "type") == Some("tool") && tool_use_id_of(p) == tool_use_id);
    let part = found.next()?;
    if found.next().is_some() {
        return None;
    }
    tool_part(message_id, part, line, &mut Vec::new()).map(|t| t.record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_is_found_among_its_messages_parts_only_when_one_part_is_it() {
        let part = |id: &str, kind: &str, call: Option<&str>| PartRow {
            id: id.to_string(),
            data: json!({"type": kind, "callID": call, "tool": "bash", "state": {
                "status": "error", "error": "boom", "input": {"command": "ls"},
                "time": {"start": 1_000, "end": 2_000}}}),
            path: PathBuf::from("/o/opencode.db"),
        };
        let parts = [
            part("prt_1", "text", Some("c1")),
            part("prt_2", "tool", Some("c1")),
            part("prt_3", "tool", None),
        ];
        let call = call_in_parts("msg_1", &parts, "c1", 7).expect("one tool part c1");
        assert_eq!(call.name(), "bash");
        assert_eq!(call.message_id.as_deref(), Some("msg_1"));
        assert_eq!(call.line, 7);
        let result = call.result.expect("an error result");
        assert_eq!((result.text.as_str(), result.is_error), ("boom", true));
        assert_eq!(call.timestamp, DateTime::from_timestamp_millis(1_000));
        // No callID: the part id is the call's id.
        assert!(call_in_parts("msg_1", &parts, "prt_3", 8).is_some());
        // Two tool parts carry c1: neither is taken.
        let twice = [
            part("prt_2", "tool", Some("c1")),
            part("prt_4", "tool", Some("c1")),
        ];
        assert!(call_in_parts("msg_1", &twice, "c1", 7).is_none());
        assert!(call_in_parts("msg_1", &parts, "c9", 7).is_none());
    }

    #[test]
    fn opencode_names_and_keys_give_typed_calls_with_the_recorded_name_and_input() {
        let input = json!({"filePath": "/r/a.py", "oldString": "a", "newString": "b"});
        let call = typed_call("edit", Some(&input));
        assert_eq!(call.name(), "edit");
        assert_eq!(call.raw(), Some(&input));
        match call {
            ToolCall::Edit(edit) => {
                assert_eq!(edit.file_path, "/r/a.py");
                assert_eq!((edit.old.as_str(), edit.new.as_str()), ("a", "b"));
            }
            other => panic!("not an edit: {other:?}"),
        }
        let bash = typed_call("bash", Some(&json!({"command": "ls", "workdir": "/r"})));
        assert!(matches!(&bash, ToolCall::Bash(b) if b.command == "ls" && b.name == "bash"));
        let grep = typed_call("grep", Some(&json!({"pattern": "x", "include": "*.py"})));
        assert!(matches!(&grep, ToolCall::Grep(g) if g.glob.as_deref() == Some("*.py")));
        let invalid = typed_call("invalid", Some(&json!({"tool": "frobnicate"})));
        assert!(matches!(&invalid, ToolCall::Other(o) if o.name == "invalid"));
        // A read without filePath stays a call, untyped, with its error.
        let bad = typed_call("read", Some(&json!({"offset": 3})));
        assert!(matches!(&bad, ToolCall::Other(o) if o.name == "read" && o.error.is_some()));
    }

    #[test]
    fn tokens_map_so_the_total_is_opencodes_total() {
        let tokens = json!({"total": 7751, "input": 1927, "output": 30, "reasoning": 16,
                            "cache": {"write": 0, "read": 5778}});
        let usage = usage_of(&tokens);
        assert_eq!(usage.total(), 7751);
        assert_eq!(usage.output_tokens, 46);
        assert_eq!(usage.cache_read_input_tokens, 5778);
    }
}
