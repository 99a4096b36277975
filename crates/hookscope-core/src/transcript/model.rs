//! The agent-neutral session model every loader produces and every view reads.
//!
//! Shape (docs/architecture.md#architecture): a [`Session`] holds [`Turn`]s, each turn
//! holds [`Event`]s in file order, and a tool call is an [`Event::ToolCall`]
//! carrying a [`ToolCallRecord`] (typed call + paired result + optional link to
//! the [`Subagent`] it spawned). Subagents live flat in [`Session::subagents`]
//! and are referenced by index, so a subagent's own spawns can point at further
//! subagents of the same session.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::tools::{ToolCall, ToolKind};

/// Which coding agent wrote a transcript. Serialized in kebab case
/// (`"claude-code"`, `"codex"`, `"opencode"`, `"droid"`), the spelling
/// `find_tool_calls`'s `agent` parameter uses. [`Agent::ALL`] is the one
/// list of agents (the query's `KNOWN_AGENTS` is derived from it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    /// Anthropic's Claude Code (`~/.claude/projects/**.jsonl`, docs/transcripts.md#claude-code).
    ClaudeCode,
    /// OpenAI's Codex CLI (`$CODEX_HOME/sessions/**/rollout-*.jsonl`,
    /// docs/transcripts.md#codex). Its tool results carry no `is_error` flag; the loader
    /// derives one from exit codes, so it is not reliable (see
    /// [`crate::transcript::codex`]).
    Codex,
    /// OpenCode (sst/opencode): the SQLite store `opencode.db` (1.2+) or
    /// the older `storage/` JSON files (docs/transcripts.md#opencode; see
    /// [`crate::transcript::opencode`]). Its tool parts carry a real error
    /// status, so `is_error` is reliable.
    #[serde(rename = "opencode")]
    OpenCode,
    /// Factory Droid: `~/.factory/sessions/<cwd-slug>/<uuid>.jsonl`
    /// (docs/transcripts.md#factory-droid; see [`crate::transcript::droid`]).
    Droid,
}

impl Agent {
    /// Every agent, in the order lists show them.
    pub const ALL: [Agent; 4] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::OpenCode,
        Agent::Droid,
    ];

    /// The serialized spelling of each of [`Agent::ALL`], in that order.
    pub const NAMES: [&'static str; 4] = [
        Agent::ALL[0].as_str(),
        Agent::ALL[1].as_str(),
        Agent::ALL[2].as_str(),
        Agent::ALL[3].as_str(),
    ];

    /// The serialized spelling, e.g. `"claude-code"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::OpenCode => "opencode",
            Agent::Droid => "droid",
        }
    }

    /// Whether a tool result's error flag is derived, not recorded: Codex
    /// records no error flag, so hookscope reads it from the exit code,
    /// which is not reliable (a failing `grep` exits 1); docs/formats.md.
    pub const fn error_flag_derived(self) -> bool {
        matches!(self, Agent::Codex)
    }

    /// The other names this agent answers to wherever an agent is named
    /// (`find --agent`, `hooks --agent`, the TUI's `agent:`, MCP's
    /// `agent`): `claude`/`cc` for Claude Code, `cx` for Codex, `oc` for
    /// OpenCode, `factory`/`dr` for Droid (`cc`, `cx`, `oc`, `dr` are the
    /// TUI's narrow agent column).
    pub const fn aliases(self) -> &'static [&'static str] {
        match self {
            Agent::ClaudeCode => &["claude", "cc"],
            Agent::Codex => &["cx"],
            Agent::OpenCode => &["oc"],
            Agent::Droid => &["factory", "dr"],
        }
    }

    /// The agent `name` names: its serialized spelling ([`Agent::as_str`])
    /// or one of its [`Agent::aliases`], ASCII case-insensitive; `None`
    /// for anything else. The one parser of agent names
    /// ([`std::str::FromStr`] for [`Agent`] is it with an error).
    pub fn from_name(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| {
            a.as_str().eq_ignore_ascii_case(name)
                || a.aliases().iter().any(|x| x.eq_ignore_ascii_case(name))
        })
    }

    /// Every accepted name for messages:
    /// `claude-code (claude, cc), codex (cx), opencode (oc), droid (factory, dr)`.
    pub fn known_names() -> String {
        Agent::ALL
            .iter()
            .map(|a| format!("{} ({})", a.as_str(), a.aliases().join(", ")))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether hookscope can load this agent's transcripts (all four can).
    pub const fn has_loader(self) -> bool {
        matches!(
            self,
            Agent::ClaudeCode | Agent::Codex | Agent::OpenCode | Agent::Droid
        )
    }
}

/// An agent name that is neither one of [`Agent::NAMES`] nor an alias
/// ([`Agent::aliases`]). Displays as `unknown agent "x"; known agents:
/// claude-code (claude, cc), codex (cx), opencode (oc), droid (factory, dr)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent {0:?}; known agents: {names}", names = Agent::known_names())]
pub struct UnknownAgent(pub String);

impl std::str::FromStr for Agent {
    type Err = UnknownAgent;

    /// Parses the serialized spelling or an alias ([`Agent::from_name`];
    /// ASCII case-insensitive: `Claude-Code` and `CC` are
    /// [`Agent::ClaudeCode`]).
    fn from_str(s: &str) -> Result<Agent, UnknownAgent> {
        Agent::from_name(s).ok_or_else(|| UnknownAgent(s.to_string()))
    }
}

/// Serializes a path as a string, lossily: bytes that are not UTF-8 become
/// U+FFFD (serde's own `PathBuf` impl fails on them, which made whole
/// outputs `null`). For `#[serde(serialize_with = "lossy_path")]`.
///
/// # Errors
/// Only the serializer's own.
pub fn lossy_path<S: serde::Serializer>(
    path: &std::path::Path,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.to_string_lossy())
}

/// A file stem as a session id: the stem decoded lossily (U+FFFD for bytes
/// that are not UTF-8), else the whole file name, else `"unnamed"`; never
/// empty.
pub fn id_from_path(path: &std::path::Path) -> String {
    super::fsread::transcript_stem(path)
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .or_else(|| {
            path.file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| "unnamed".to_string())
}

/// Where in its file something was recorded: a 1-based line of a JSON Lines
/// transcript (Claude Code, Codex; docs/transcripts.md#claude-code, docs/transcripts.md#codex), or the id of a record
/// in a store that has no lines (an OpenCode SQLite row, a Droid JSON
/// record; docs/transcripts.md#opencode, docs/transcripts.md#factory-droid).
///
/// Displays as the suffix after a path: `:12` for a line, `#<id>` for a
/// record (see [`Source`]). Serialized externally tagged: `{"line": 12}` or
/// `{"record": "<id>"}`. Ordered lines first (by number), then records (by
/// id).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Locus {
    /// A 1-based line number.
    Line(usize),
    /// A record id (a row's primary key, a JSON record's `id`), as stored.
    Record(String),
}

impl Locus {
    /// The line number, when this is a line.
    pub fn line(&self) -> Option<usize> {
        match self {
            Locus::Line(n) => Some(*n),
            Locus::Record(_) => None,
        }
    }

    /// The record id, when this is a record.
    pub fn record(&self) -> Option<&str> {
        match self {
            Locus::Line(_) => None,
            Locus::Record(id) => Some(id),
        }
    }
}

impl std::fmt::Display for Locus {
    /// `:<line>` or `#<record id>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Locus::Line(n) => write!(f, ":{n}"),
            Locus::Record(id) => write!(f, "#{id}"),
        }
    }
}

/// A place in a transcript: the file plus the [`Locus`] inside it.
///
/// Displays as `path:line` or `path#record` (the path as
/// [`Path::display`](std::path::Path::display) shows it). Serialized as
/// `{"path": "...", "line": 12}` or `{"path": "...", "record": "<id>"}`,
/// `path` a lossy string ([`lossy_path`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Source {
    /// The transcript file (or database file) it is in.
    #[serde(serialize_with = "lossy_path")]
    pub path: PathBuf,
    /// Where in that file.
    #[serde(flatten)]
    pub locus: Locus,
}

impl Source {
    /// A source from a path and a locus.
    pub fn new(path: impl Into<PathBuf>, locus: Locus) -> Source {
        Source {
            path: path.into(),
            locus,
        }
    }

    /// The 1-based `line` of `path`.
    pub fn line(path: impl Into<PathBuf>, line: usize) -> Source {
        Source::new(path, Locus::Line(line))
    }

    /// The record `id` of `path`.
    pub fn record(path: impl Into<PathBuf>, id: impl Into<String>) -> Source {
        Source::new(path, Locus::Record(id.into()))
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.path.display(), self.locus)
    }
}

/// A line, record or file that could not be used, with where and why.
///
/// `locus` is `None` when the problem concerns the whole file (unreadable,
/// missing, orphaned subagent file). Displays as `path:line: message`,
/// `path#record: message` or `path: message`.
///
/// Serialized as `{path, line, message}` (the shape of
/// `sessions --diagnostics --json`): `path` a lossy string ([`lossy_path`]),
/// `line` the 1-based line or `null` (whole file, or a record); a record's
/// diagnostic adds `"record": "<id>"` after `line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file the problem is in.
    pub path: PathBuf,
    /// Where in the file, when the problem is one line or record.
    pub locus: Option<Locus>,
    /// What was wrong, in one sentence.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic about 1-based `line` of `path`.
    pub fn at_line(
        path: impl Into<PathBuf>,
        line: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            path: path.into(),
            locus: Some(Locus::Line(line)),
            message: message.into(),
        }
    }

    /// A diagnostic about the whole file `path`.
    pub fn whole_file(path: impl Into<PathBuf>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            path: path.into(),
            locus: None,
            message: message.into(),
        }
    }

    /// The 1-based line, when the problem is one line.
    pub fn line(&self) -> Option<usize> {
        self.locus.as_ref().and_then(Locus::line)
    }

    /// The file and place, when the problem is one line or record.
    pub fn source(&self) -> Option<Source> {
        self.locus
            .clone()
            .map(|locus| Source::new(self.path.clone(), locus))
    }
}

impl Serialize for Diagnostic {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shape<'a> {
            #[serde(serialize_with = "lossy_path")]
            path: &'a std::path::Path,
            line: Option<usize>,
            #[serde(skip_serializing_if = "Option::is_none")]
            record: Option<&'a str>,
            message: &'a str,
        }
        Shape {
            path: &self.path,
            line: self.line(),
            record: self.locus.as_ref().and_then(Locus::record),
            message: &self.message,
        }
        .serialize(serializer)
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.locus {
            Some(locus) => write!(f, "{}{}: {}", self.path.display(), locus, self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

/// Token usage in Anthropic's `message.usage` terms (docs/transcripts.md#assistant-lines), in tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// `input_tokens`.
    pub input_tokens: u64,
    /// `output_tokens`.
    pub output_tokens: u64,
    /// `cache_creation_input_tokens`.
    pub cache_creation_input_tokens: u64,
    /// `cache_read_input_tokens`.
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// Reads the four counters from a `message.usage` object; missing or
    /// non-integer fields count as 0.
    pub fn from_json(usage: &Value) -> Usage {
        let get = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
        Usage {
            input_tokens: get("input_tokens"),
            output_tokens: get("output_tokens"),
            cache_creation_input_tokens: get("cache_creation_input_tokens"),
            cache_read_input_tokens: get("cache_read_input_tokens"),
        }
    }

    /// Adds another usage into this one (saturating).
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_creation_input_tokens = self
            .cache_creation_input_tokens
            .saturating_add(other.cache_creation_input_tokens);
        self.cache_read_input_tokens = self
            .cache_read_input_tokens
            .saturating_add(other.cache_read_input_tokens);
    }

    /// Sum of all four counters.
    pub fn total(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.output_tokens)
            .saturating_add(self.cache_creation_input_tokens)
            .saturating_add(self.cache_read_input_tokens)
    }
}

/// The `tool_result` paired with a `tool_use` by id (docs/transcripts.md#user-lines-and-tool-results); for
/// Codex the `*_output` item paired with its call by `call_id` (docs/transcripts.md#response-items).
///
/// Serialized as `{text, is_error, tool_use_result, timestamp, line,
/// agent_id}`, `tool_use_result` as [`ToolResult::tool_use_result_verbatim`]
/// gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The result's `content` flattened to text: a string as is, text blocks
    /// joined by newlines, images as `[image: <media_type>, <n> bytes base64]`.
    /// Codex: the `output` (the inner `output` of a JSON-string output, text
    /// parts joined by newlines, `<input_image>` for images).
    pub text: String,
    /// `is_error` (absent or null count as false). Codex has no such flag:
    /// true when the output states a non-zero exit code or a `*_end` event
    /// reports a failure (unreliable; see `transcript::codex`).
    pub is_error: bool,
    /// The line's top-level `toolUseResult` (object, string or array);
    /// always `None` for Codex. Verbatim but for one copy not kept twice:
    /// when it is an object whose `stdout` is a non-empty string
    /// byte-identical to [`ToolResult::text`] (Claude Code writes a Bash
    /// output both in the `tool_result` content and in
    /// `toolUseResult.stdout`), that `stdout` is `null` here and
    /// [`ToolResult::stdout_is_text`] is true; and each key of
    /// [`INPUT_ECHOES`] whose value equals its call's input key (a Write's
    /// `content`, a TodoWrite's `newTodos`) is `null` here, its bit set in
    /// [`ToolResult::echoed_input`]. Use
    /// [`ToolCallRecord::tool_use_result_verbatim`] where the value as
    /// written is needed (a rebuilt `tool_response`).
    pub tool_use_result: Option<Value>,
    /// Whether `tool_use_result.stdout` was [`ToolResult::text`] and is kept
    /// only there (see [`ToolResult::tool_use_result`]); false when nothing
    /// was left out (every agent but Claude Code).
    pub stdout_is_text: bool,
    /// Which keys of `tool_use_result` repeated the call's input and are
    /// kept only there: bit `i` set = `INPUT_ECHOES[i].0` is `null` in
    /// [`ToolResult::tool_use_result`] and was equal to the input's
    /// `INPUT_ECHOES[i].1`; 0 when nothing was left out (every agent but
    /// Claude Code).
    pub echoed_input: u8,
    /// The result line's `timestamp`.
    pub timestamp: Option<DateTime<Utc>>,
    /// 1-based line of the result in its file.
    pub line: usize,
    /// The spawned subagent's id, from the line's `agentId` (2.0.x) or
    /// `toolUseResult.agentId` (2.0.x+), when present.
    pub agent_id: Option<String>,
}

/// The `toolUseResult` keys a Claude Code result repeats from its call's
/// input, as (`toolUseResult` key, input key): a Write's `content` and
/// `filePath`, an Edit's `oldString`/`newString`, a TodoWrite's `newTodos`.
/// A key whose value equals the input's is kept once, in the input (see
/// [`ToolResult::echoed_input`]).
pub const INPUT_ECHOES: [(&str, &str); 5] = [
    ("content", "content"),
    ("newTodos", "todos"),
    ("oldString", "old_string"),
    ("newString", "new_string"),
    ("filePath", "file_path"),
];

impl ToolResult {
    /// The line's `toolUseResult` with its `stdout` put back from
    /// [`ToolResult::text`] when [`ToolResult::stdout_is_text`] (a copy
    /// then, borrowed otherwise); `None` when the line has none. Exactly as
    /// written unless [`ToolResult::echoed_input`] is not 0 (those keys are
    /// `null`): [`ToolCallRecord::tool_use_result_verbatim`] puts them back
    /// too.
    pub fn tool_use_result_verbatim(&self) -> Option<std::borrow::Cow<'_, Value>> {
        let value = self.tool_use_result.as_ref()?;
        if !self.stdout_is_text {
            return Some(std::borrow::Cow::Borrowed(value));
        }
        let mut value = value.clone();
        if let Some(stdout) = value.get_mut("stdout") {
            *stdout = Value::String(self.text.clone());
        }
        Some(std::borrow::Cow::Owned(value))
    }

    /// Where the result is in its file: today always [`Locus::Line`] of
    /// [`ToolResult::line`] (the loaders read JSON Lines). Use this rather
    /// than `line` where a record id would also do (docs/transcripts.md#opencode, docs/transcripts.md#factory-droid).
    pub fn locus(&self) -> Locus {
        Locus::Line(self.line)
    }
}

impl Serialize for ToolResult {
    /// The shape a derived impl gave before [`ToolResult::stdout_is_text`]
    /// existed: `{text, is_error, tool_use_result, timestamp, line,
    /// agent_id}`, `tool_use_result` as [`ToolResult::tool_use_result_verbatim`]
    /// gives it (keys echoing the call's input `null`).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shape<'a> {
            text: &'a str,
            is_error: bool,
            tool_use_result: Option<std::borrow::Cow<'a, Value>>,
            timestamp: Option<DateTime<Utc>>,
            line: usize,
            agent_id: Option<&'a str>,
        }
        Shape {
            text: &self.text,
            is_error: self.is_error,
            tool_use_result: self.tool_use_result_verbatim(),
            timestamp: self.timestamp,
            line: self.line,
            agent_id: self.agent_id.as_deref(),
        }
        .serialize(serializer)
    }
}

/// One tool call: the `tool_use` block, its typed parse, and its result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRecord {
    /// The `tool_use.id` (`toolu_…`); for Codex the `call_id` (else the
    /// item's `id`, else `line:<n>`).
    pub tool_use_id: String,
    /// The typed call (`parse_tool_call` with `on_error = other`); its
    /// `name()` is the tool name exactly as invoked and `raw()` the input.
    pub call: ToolCall,
    /// Classification (docs/tool-calls.md#tool-kind-and-resolved-name).
    pub tool_kind: ToolKind,
    /// The real name under a Task/Skill/MCP wrapper (docs/tool-calls.md#tool-kind-and-resolved-name).
    pub tool_resolved: Option<String>,
    /// The paired result; `None` when none was recorded (interrupted, still
    /// running, or the file was cut).
    pub result: Option<ToolResult>,
    /// The assistant line's `timestamp`.
    pub timestamp: Option<DateTime<Utc>>,
    /// 1-based line of the `tool_use` block in its file.
    pub line: usize,
    /// `message.id` of the assistant message that carried the call.
    pub message_id: Option<String>,
    /// Index into [`Session::subagents`] of the subagent this call spawned.
    pub subagent: Option<usize>,
}

/// The summary of an input a PreToolUse hook rewrote a `name` call to
/// (`updatedInput`): its [`call_summary`], else the input's JSON on one
/// line (at most 200 chars) when that is empty or it does not parse.
pub fn rewritten_summary(name: &str, to: &serde_json::Value) -> String {
    crate::tools::parse_tool_call(name, Some(to), crate::tools::OnError::Other)
        .ok()
        .as_ref()
        .map(call_summary)
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| super::text::one_line(&to.to_string(), 200))
}

/// A summary and, for a rewritten call, the summary of what ran, joined as
/// `<asked> → <ran>` ([`Session::summary_as_ran`], `find`'s
/// `summary_with_rewrite`).
pub fn as_ran((asked, ran): (String, Option<String>)) -> String {
    match ran {
        Some(ran) => format!("{asked} → {ran}"),
        None => asked,
    }
}

/// A one-line summary of what a call did, unredacted (views mask it):
/// the command for Bash, the description for Task/Agent, the pattern for
/// Glob/Grep, the file for file tools, else the first of the input's
/// `command`, `file_path`, `pattern`, `description`, `url`, `query`,
/// `skill`, `path`, `prompt`, `subject`, `taskId`; Codex `write_stdin` as
/// `session <session_id>: <chars>` (escaped, e.g. `yes\n`; `(wait for
/// output)` when `chars` is empty); at most 200 chars; empty when none
/// applies.
pub fn call_summary(call: &ToolCall) -> String {
    use super::text::one_line;
    match call {
        ToolCall::Bash(bash) => return one_line(&bash.command, 200),
        ToolCall::Task(task) => return one_line(&task.description, 200),
        ToolCall::Glob(glob) => return one_line(&glob.pattern, 200),
        ToolCall::Grep(grep) => return one_line(&grep.pattern, 200),
        call => {
            if let Some(path) = crate::tools::file_path_of(call) {
                return one_line(path, 200);
            }
        }
    }
    let raw = call.raw();
    if call.name() == "write_stdin" {
        // Codex unified exec (docs/transcripts.md#response-items): `{session_id, chars}`;
        // `session_id` is a number in 0.1xx rollouts, a string in older ones.
        let get = |k: &str| raw.and_then(|r| r.get(k));
        let session = match get("session_id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => "?".to_string(),
        };
        let chars = get("chars").and_then(Value::as_str).unwrap_or("");
        let what = if chars.is_empty() {
            "(wait for output)".to_string()
        } else {
            chars.escape_debug().to_string()
        };
        return one_line(&format!("session {session}: {what}"), 200);
    }
    const KEYS: &[&str] = &[
        "command",
        "file_path",
        // OpenCode's edit/write/read (docs/transcripts.md#opencode).
        "filePath",
        "notebook_path",
        "pattern",
        "description",
        "url",
        "query",
        "skill",
        "path",
        "prompt",
        "subject",
        "taskId",
    ];
    KEYS.iter()
        .find_map(|k| raw.and_then(|r| r.get(*k)).and_then(Value::as_str))
        .map(|s| one_line(s, 200))
        .unwrap_or_default()
}

/// A call's input as text, for a view that has no summary field to show
/// (OpenCode's `invalid`, a tool of unknown shape): a string input as is,
/// any other as compact JSON, `""` without one (`None` or `null`).
pub fn input_text(input: Option<&Value>) -> String {
    match input {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    }
}

impl ToolCallRecord {
    /// The tool name exactly as invoked.
    pub fn name(&self) -> &str {
        self.call.name()
    }

    /// Where the call is in its file (the session's or subagent's `path`):
    /// today always [`Locus::Line`] of [`ToolCallRecord::line`] (the loaders
    /// read JSON Lines). Use this rather than `line` where a record id would
    /// also do (docs/transcripts.md#opencode, docs/transcripts.md#factory-droid).
    pub fn locus(&self) -> Locus {
        Locus::Line(self.line)
    }

    /// A one-line summary of what the call did, unredacted (views mask it);
    /// see [`call_summary`].
    pub fn summary(&self) -> String {
        call_summary(&self.call)
    }

    /// The input as text (`tool_input`, unredacted; [`input_text`]).
    pub fn input_text(&self) -> String {
        input_text(self.call.raw())
    }

    /// Lowercase hex digest of `{input, tool}` (docs/tool-calls.md#the-digest), computed on
    /// demand (loading a session does not pay for it) from the loaded value;
    /// `None` when the input cannot be canonicalized (integers beyond
    /// 2^53−1, and a float `>= 2^64` the value cannot tell from such an
    /// integer: [`super::call_digest`] reads those from the line).
    pub fn digest(&self) -> Option<String> {
        self.call.digest().ok()
    }

    /// The result line's `toolUseResult` exactly as written: the paired
    /// result's [`ToolResult::tool_use_result_verbatim`] with the keys of
    /// [`ToolResult::echoed_input`] put back from this call's input (a copy
    /// then, borrowed otherwise); `None` without a result or a
    /// `toolUseResult`.
    pub fn tool_use_result_verbatim(&self) -> Option<std::borrow::Cow<'_, Value>> {
        let result = self.result.as_ref()?;
        let mut value = result.tool_use_result_verbatim()?;
        if result.echoed_input == 0 {
            return Some(value);
        }
        let input = self.call.raw();
        let object = value.to_mut();
        for (bit, (key, input_key)) in INPUT_ECHOES.iter().enumerate() {
            if result.echoed_input & (1 << bit) == 0 {
                continue;
            }
            if let (Some(slot), Some(echoed)) =
                (object.get_mut(*key), input.and_then(|i| i.get(*input_key)))
            {
                *slot = echoed.clone();
            }
        }
        Some(value)
    }

    /// Whether the paired result says `is_error: true`.
    pub fn is_error(&self) -> bool {
        self.result.as_ref().is_some_and(|r| r.is_error)
    }
}

/// Something that happened inside a turn, in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A tool call with its result.
    ToolCall(Box<ToolCallRecord>),
    /// Assistant text (one `text` block).
    Text {
        /// The text.
        text: String,
        /// Line timestamp.
        timestamp: Option<DateTime<Utc>>,
        /// 1-based line.
        line: usize,
    },
    /// Assistant thinking (one `thinking` block; `redacted_thinking` gives "").
    Thinking {
        /// The thinking text.
        text: String,
        /// 1-based line.
        line: usize,
    },
    /// A compaction boundary (`system/compact_boundary`, docs/transcripts.md#compaction) or
    /// the compaction summary that follows it (`isCompactSummary`).
    Compaction {
        /// `compactMetadata.trigger` (`auto`/`manual`), when present.
        trigger: Option<String>,
        /// `compactMetadata.preTokens`, when present.
        pre_tokens: Option<u64>,
        /// The summary text for an `isCompactSummary` line, else the
        /// boundary's `content`.
        text: String,
        /// Line timestamp.
        timestamp: Option<DateTime<Utc>>,
        /// 1-based line.
        line: usize,
    },
    /// `[Request interrupted by user…]` (docs/transcripts.md#user-lines-and-tool-results).
    Interruption {
        /// The marker text.
        text: String,
        /// Line timestamp.
        timestamp: Option<DateTime<Utc>>,
        /// 1-based line.
        line: usize,
    },
    /// An API error: an assistant line with `isApiErrorMessage` or a
    /// `system/api_error` line (docs/transcripts.md#line-types, docs/transcripts.md#assistant-lines).
    ApiError {
        /// The error text, without an "API error" prefix of ours (the
        /// views add it): the message's own text, or for `system/api_error`
        /// `status N: message`. An `isApiErrorMessage` text is as recorded
        /// (Claude Code writes `API Error: …` itself).
        text: String,
        /// Line timestamp.
        timestamp: Option<DateTime<Utc>>,
        /// 1-based line.
        line: usize,
    },
    /// Anything else worth showing: hook feedback, task notifications,
    /// slash-command output, system lines with content.
    Note {
        /// Short label, e.g. `hook`, `task-notification`, `system/stop_hook_summary`.
        label: String,
        /// The text.
        text: String,
        /// Line timestamp.
        timestamp: Option<DateTime<Utc>>,
        /// 1-based line.
        line: usize,
    },
}

impl Event {
    /// The tool call, when this event is one.
    pub fn as_tool_call(&self) -> Option<&ToolCallRecord> {
        match self {
            Event::ToolCall(record) => Some(record),
            _ => None,
        }
    }

    /// 1-based line the event came from.
    pub fn line(&self) -> usize {
        match self {
            Event::ToolCall(r) => r.line,
            Event::Text { line, .. }
            | Event::Thinking { line, .. }
            | Event::Compaction { line, .. }
            | Event::Interruption { line, .. }
            | Event::ApiError { line, .. }
            | Event::Note { line, .. } => *line,
        }
    }

    /// Where the event is in its file: today always [`Locus::Line`] of
    /// [`Event::line`] (the loaders read JSON Lines).
    pub fn locus(&self) -> Locus {
        Locus::Line(self.line())
    }
}

/// A turn: a real user prompt and everything until the next one.
///
/// A turn opens at a `user` line that is a real prompt: not a tool result, not
/// `isMeta`, not a compaction summary, not an interruption marker, not hook
/// feedback or a task notification (those are events of the running turn).
/// Events before the first prompt (a resumed or compacted file) go into a turn
/// with an empty prompt and `prompt_line == None`.
///
/// A prompt a hook rejected (UserPromptSubmit exit 2 or `decision:
/// "block"`) is a turn that never started: [`Turn::rejected`] is set,
/// `prompt` is the prompt the rejection record quotes, `prompt_line` that
/// record's line, and `events` holds the record's note; the model never saw
/// the prompt (docs/hooks.md#what-the-transcript-records).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Turn {
    /// The prompt text (text blocks joined; images as placeholders).
    pub prompt: String,
    /// 1-based line of the prompt; `None` for the leading prompt-less turn.
    pub prompt_line: Option<usize>,
    /// The prompt line's timestamp.
    pub timestamp: Option<DateTime<Utc>>,
    /// Events in file order.
    pub events: Vec<Event>,
    /// A hook rejected the prompt: the turn never started (see above).
    pub rejected: bool,
}

/// Appends `event` to the last of `turns`, opening a turn when there is
/// none yet (an event before any prompt); returns its `(turn, event)`
/// position. The loaders' one way to add an event.
pub(crate) fn push_event(turns: &mut Vec<Turn>, event: Event) -> (usize, usize) {
    if turns.is_empty() {
        turns.push(Turn::default());
    }
    let t = turns.len() - 1;
    turns[t].events.push(event);
    (t, turns[t].events.len() - 1)
}

impl Turn {
    /// The turn's tool calls in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCallRecord> {
        self.events.iter().filter_map(Event::as_tool_call)
    }

    /// Where the prompt is in its file ([`Locus::Line`] of
    /// [`Turn::prompt_line`]); `None` for the leading prompt-less turn.
    pub fn prompt_locus(&self) -> Option<Locus> {
        self.prompt_line.map(Locus::Line)
    }

    /// The last assistant text of the turn, if any (its answer).
    pub fn last_text(&self) -> Option<&str> {
        self.events.iter().rev().find_map(|e| match e {
            Event::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
    }
}

/// Claude Code's per-line context (docs/transcripts.md#the-line-envelope envelope): the values in
/// force from `line` on, until the next [`LineContext`] of the same thread.
/// Each value is the latest one written on any envelope line (`user`,
/// `assistant`, `system`, `attachment`) at or before `line`, so
/// `permission_mode` (written only on prompt lines) and `prompt_id` carry
/// over. Used to rebuild hook payloads "as of that line" (docs/contract.md#common-input-fields).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct LineContext {
    /// 1-based first line these values hold for.
    pub line: usize,
    /// `cwd` (follows `cd`).
    pub cwd: Option<String>,
    /// `permissionMode` (`default`, `plan`, `acceptEdits`, …).
    pub permission_mode: Option<String>,
    /// `promptId` (2.1.x).
    pub prompt_id: Option<String>,
    /// `version` (the CLI version that wrote the line).
    pub version: Option<String>,
    /// An assistant line's `effort` (`low`/`medium`/`high`, 2.1.x).
    pub effort: Option<String>,
    /// `entrypoint` (`cli` for an interactive session, `sdk-cli` for `-p`).
    pub entrypoint: Option<String>,
    /// The line of a prompt a hook rejected ([`Turn::rejected`]) when that
    /// is the latest prompt: Claude Code gave it a `promptId` it did not
    /// write down, so `prompt_id` is `None` from there until the next
    /// prompt line.
    pub rejected_prompt: Option<usize>,
}

/// What a thread's lines say beyond the turns: the [`LineContext`] runs, each
/// line `uuid`'s line number, and the `permissionDecision` of tool results.
/// Filled by the Claude Code loader; empty for Codex.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LineIndex {
    /// Context runs in line order; a new entry only when a value changes.
    pub contexts: Vec<LineContext>,
    /// `uuid` → 1-based line (the first line carrying it).
    pub uuids: std::collections::HashMap<String, usize>,
    /// `tool_use_id` → the result line's `permissionDecision` object
    /// (`{decision, source, reasonType, …}`, 2.1.x).
    pub permission_decisions: std::collections::HashMap<String, Value>,
    /// `tool_use_id` → the `tool_result` block's `content` when it is an
    /// array of blocks (a string content is [`ToolResult::text`] verbatim).
    pub result_blocks: std::collections::HashMap<String, Value>,
    /// 1-based lines of `cost-state` lines (2.1.x writes one when a
    /// process ends its run).
    pub run_ends: Vec<usize>,
    /// 1-based lines where a later process (`claude --resume`) starts: the
    /// first envelope line (`user`, `assistant`, `system`, `attachment`)
    /// after each of [`LineIndex::run_ends`]
    /// (docs/formats.md#one-file-several-processes).
    pub run_starts: Vec<usize>,
    /// The last envelope line seen (0 before any).
    pub last_envelope: usize,
    /// `instructions` attachments (CLAUDE.md files loaded): the line and its
    /// `files[]` (`{path, type, content}`).
    pub instructions: Vec<(usize, Value)>,
    /// What the thread's lines say hooks did: one record per hook firing,
    /// in first-line order ([`super::hook_activity`]; empty for Codex). Set
    /// it with [`LineIndex::set_hook_activity`] so the lookups below agree.
    pub hook_activity: Vec<super::hook_activity::HookActivity>,
    /// `call_line` → indices into `hook_activity` (built by
    /// [`LineIndex::set_hook_activity`]).
    pub hooks_by_call_line: std::collections::HashMap<usize, Vec<usize>>,
    /// Every source line of a firing → its index in `hook_activity`.
    pub hooks_by_line: std::collections::HashMap<usize, usize>,
    /// For stores without lines (OpenCode): the record id (`msg_…`,
    /// `prt_…`) of each ordinal used as a `line`, ordinal `n` at index
    /// `n - 1` ([`LineIndex::record_at`]); empty for JSON Lines transcripts.
    pub records: Vec<String>,
    /// The last 1-based line [`LineIndex::observe`] saw (0 before any):
    /// the range `--at line:N` accepts, whatever the lines carry.
    pub last_line: usize,
}

impl LineIndex {
    /// The hook firings that belong to the call whose `tool_use` is on
    /// `call_line` of this thread (`ToolCallRecord::line`) and whose id is
    /// `tool_use_id`, in order. One line may hold several calls (a Droid or
    /// Claude Code parallel batch in one assistant message), so a firing
    /// that records a `tool_use_id` (`hookToolCallId`, `toolUseID`) only
    /// belongs to the call with that id; one without an id goes by line.
    pub fn hooks_of_call<'a>(
        &'a self,
        call_line: usize,
        tool_use_id: &str,
    ) -> impl Iterator<Item = &'a super::hook_activity::HookActivity> + use<'a> {
        let tool_use_id = tool_use_id.to_string();
        self.hooks_by_call_line
            .get(&call_line)
            .into_iter()
            .flatten()
            .filter_map(|&i| self.hook_activity.get(i))
            .filter(move |h| h.tool_use_id.as_deref().is_none_or(|id| id == tool_use_id))
    }

    /// The hook firing a source line was merged into, with its index in
    /// `hook_activity`.
    pub fn hook_at_line(
        &self,
        line: usize,
    ) -> Option<(usize, &super::hook_activity::HookActivity)> {
        let i = *self.hooks_by_line.get(&line)?;
        self.hook_activity.get(i).map(|h| (i, h))
    }

    /// Stores the thread's hook firings and indexes them by call line and
    /// by source line (a line in two firings maps to the first).
    pub fn set_hook_activity(&mut self, records: Vec<super::hook_activity::HookActivity>) {
        self.hooks_by_call_line.clear();
        self.hooks_by_line.clear();
        for (i, h) in records.iter().enumerate() {
            if let Some(l) = h.call_line {
                self.hooks_by_call_line.entry(l).or_default().push(i);
            }
            for &l in &h.lines {
                self.hooks_by_line.entry(l).or_insert(i);
            }
        }
        self.hook_activity = records;
    }

    /// The record id behind ordinal `line` of a store without lines
    /// ([`LineIndex::records`]); `None` for JSON Lines transcripts.
    pub fn record_at(&self, line: usize) -> Option<&str> {
        line.checked_sub(1)
            .and_then(|i| self.records.get(i))
            .map(String::as_str)
    }

    /// Where `line` is: [`Locus::Record`] when this thread's store has
    /// records ([`LineIndex::records`]), else [`Locus::Line`].
    pub fn locus_of(&self, line: usize) -> Locus {
        self.record_at(line)
            .map_or(Locus::Line(line), |id| Locus::Record(id.to_string()))
    }

    /// The context in force at `line` (the last run starting at or before
    /// it); `None` before the first envelope line.
    pub fn context_at(&self, line: usize) -> Option<&LineContext> {
        let i = self.contexts.partition_point(|c| c.line <= line);
        i.checked_sub(1).and_then(|i| self.contexts.get(i))
    }

    /// Records the envelope fields of `v` (line `line`).
    pub fn observe(&mut self, line: usize, v: &Value) {
        self.last_line = self.last_line.max(line);
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        if let Some(uuid) = v.get("uuid").and_then(Value::as_str) {
            self.uuids.entry(uuid.to_string()).or_insert(line);
        }
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "cost-state" {
            self.run_ends.push(line);
        }
        if let Some(att) = v.get("attachment")
            && att.get("type").and_then(Value::as_str) == Some("instructions")
            && let Some(files) = att.get("files").filter(|f| f.is_array())
        {
            self.instructions.push((line, files.clone()));
        }
        if !matches!(kind, "user" | "assistant" | "system" | "attachment") {
            return;
        }
        if self
            .run_ends
            .last()
            .is_some_and(|&end| end > self.last_envelope)
        {
            self.run_starts.push(line);
        }
        self.last_envelope = line;
        let prev = self.contexts.last().cloned().unwrap_or_default();
        let rejected = is_rejected_prompt(v);
        let (prompt_id, rejected_prompt) = match s("promptId") {
            Some(id) => (Some(id), None),
            None if rejected => (None, Some(line)),
            None => (prev.prompt_id.clone(), prev.rejected_prompt),
        };
        let next = LineContext {
            line,
            cwd: s("cwd").or(prev.cwd.clone()),
            permission_mode: s("permissionMode").or(prev.permission_mode.clone()),
            prompt_id,
            version: s("version").or(prev.version.clone()),
            effort: s("effort").or(prev.effort.clone()),
            entrypoint: s("entrypoint").or(prev.entrypoint.clone()),
            rejected_prompt,
        };
        let same = LineContext { line, ..prev };
        if self.contexts.is_empty() || next != same {
            self.contexts.push(next);
        }
    }
}

/// Whether a Claude Code line records a prompt a hook rejected: a
/// `system` line whose `promptSubmitEnding.ending.kind` is
/// `blocked_by_hook`, or whose `content` (a `user` line's text) says
/// `UserPromptSubmit operation blocked by hook` / `UserPromptExpansion
/// operation blocked by hook`
/// (docs/hooks.md#what-the-transcript-records).
pub fn is_rejected_prompt(v: &Value) -> bool {
    let kind = v.get("type").and_then(Value::as_str);
    if !matches!(kind, Some("system" | "user")) {
        return false;
    }
    if v.pointer("/promptSubmitEnding/ending/kind")
        .and_then(Value::as_str)
        == Some("blocked_by_hook")
    {
        return true;
    }
    let text = match kind {
        Some("system") => v.get("content").and_then(Value::as_str),
        _ => v.pointer("/message/content").and_then(Value::as_str),
    };
    text.is_some_and(|t| {
        let t = t.trim_start();
        t.starts_with("UserPromptSubmit operation blocked by hook")
            || t.starts_with("UserPromptExpansion operation blocked by hook")
    })
}

/// How a subagent transcript was stored (docs/transcripts.md#claude-code-files, docs/transcripts.md#subagents).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SubagentLayout {
    /// `isSidechain: true` lines inside the main file (≤ 1.0.x).
    Inline,
    /// A sibling `agent-<id>.jsonl` next to the main file (2.0.x).
    Sibling,
    /// `<session>/subagents/agent-<id>.jsonl` with a `.meta.json` (2.1.x).
    SubagentsDir,
    /// A session of its own that names its parent (OpenCode `parent_id` /
    /// `parentID`, docs/transcripts.md#opencode; a Droid child session; a Codex rollout
    /// whose `session_meta` has `forked_from_id` or a `thread_spawn`
    /// parent, docs/transcripts.md#codex).
    ChildSession,
}

/// How a subagent was tied to the call that spawned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SubagentLink {
    /// `toolUseId` in the `.meta.json` sidecar.
    MetaToolUseId,
    /// `agentId` on the spawn's tool_result line or in its `toolUseResult`.
    AgentId,
    /// The spawn's `input.prompt` equals the subagent's first user text.
    PromptText,
    /// The spawn's result names the child session: OpenCode's task
    /// `state.metadata.sessionId`, Droid's `task-invocations.json`
    /// `parentToolUseId` → `childSessionId`, Codex's `spawn_agent` output
    /// `agent_id` or `collab_agent_spawn_end.new_thread_id`.
    ChildSessionId,
    /// The spawn's result names the child's task: Codex multi-agent v2
    /// `spawn_agent` output `task_name` equals the child's
    /// `thread_spawn.agent_path`.
    AgentPath,
}

/// A subagent (sidechain) transcript attached to its session.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Subagent {
    /// `agentId` (from the lines or the file name `agent-<id>.jsonl`).
    pub agent_id: Option<String>,
    /// `agentType` from the meta sidecar, else the spawn's `subagent_type`.
    pub agent_type: Option<String>,
    /// `description` from the meta sidecar, else the spawn's `description`.
    pub description: Option<String>,
    /// The file it came from (the main file for inline sidechains).
    pub path: PathBuf,
    /// Storage layout; `None` only for a default-constructed value.
    pub layout: Option<SubagentLayout>,
    /// `tool_use_id` of the spawning Task/Agent call, once linked.
    pub spawn_tool_use_id: Option<String>,
    /// How the link was made.
    pub link: Option<SubagentLink>,
    /// The meta sidecar verbatim (2.1.x), when present and valid JSON; for
    /// a Droid child its `task-invocations.json` entry; for a Codex child
    /// rollout `{id, forked_from_id, parent_thread_id, subagent, agent_path,
    /// agent_nickname, agent_role, replayed_lines}` from its `session_meta`,
    /// `replayed_lines` being `{first_line, last_line, lines}` of the
    /// parent history it copies (not counted in it) or `null`.
    pub meta: Option<Value>,
    /// The subagent's turns (its first prompt is the spawn's prompt).
    pub turns: Vec<Turn>,
    /// Usage summed once per `message.id` (a Codex child rollout: its own
    /// part only, the total it inherited from its parent taken off).
    pub usage: Usage,
    /// Models it ran on, in first-seen order (`<synthetic>` excluded).
    pub models: Vec<String>,
    /// First and last line timestamps.
    pub started: Option<DateTime<Utc>>,
    /// Last line timestamp.
    pub ended: Option<DateTime<Utc>>,
    /// Per-line context of its file (hook payload rebuild).
    pub lines: LineIndex,
}

impl Subagent {
    /// All tool calls of the subagent in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCallRecord> {
        self.turns.iter().flat_map(Turn::tool_calls)
    }

    /// The first prompt (the spawn's prompt), or "". A leading prompt-less
    /// turn (events logged before the prompt, e.g. a `session_start` system
    /// line or a hook attachment) is skipped.
    pub fn prompt(&self) -> &str {
        self.turns
            .iter()
            .find(|t| t.prompt_line.is_some())
            .map_or("", |t| t.prompt.as_str())
    }
}

/// A fully loaded session.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// Session id, never empty: the main file's stem (`<uuid>.jsonl`,
    /// decoded lossily, [`id_from_path`]); for Codex the first
    /// `session_meta.payload.id` (else the file name's UUID, else the stem).
    pub id: String,
    /// Which agent wrote it.
    pub agent: Agent,
    /// The main transcript file.
    pub path: PathBuf,
    /// `cwd` of the first line carrying one.
    pub cwd: Option<String>,
    /// `custom-title` > `ai-title` > a `summary` whose `leafUuid` is in this
    /// file > the first prompt > any `summary`.
    pub title: Option<String>,
    /// Earliest line timestamp.
    pub started: Option<DateTime<Utc>>,
    /// Latest line timestamp.
    pub ended: Option<DateTime<Utc>>,
    /// CLI `version` of the last line carrying one (Codex: `cli_version` of
    /// the first `session_meta`).
    pub version: Option<String>,
    /// `gitBranch` of the first line carrying a non-empty one.
    pub git_branch: Option<String>,
    /// Main-thread turns.
    pub turns: Vec<Turn>,
    /// All subagents (inline, sibling, subagents dir), linked or not.
    pub subagents: Vec<Subagent>,
    /// Main-thread usage, once per `message.id` (Codex: the last
    /// `token_count` `total_token_usage`, less what a fork inherited, see
    /// `transcript::codex`).
    pub usage: Usage,
    /// Models the main thread ran on, first-seen order (Codex:
    /// `turn_context.model`).
    pub models: Vec<String>,
    /// Lines and files that could not be used.
    pub diagnostics: Vec<Diagnostic>,
    /// Per-line context of the main file (hook payload rebuild; empty for
    /// Codex).
    pub lines: LineIndex,
}

impl Session {
    /// Main-thread tool calls in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCallRecord> {
        self.turns.iter().flat_map(Turn::tool_calls)
    }

    /// Every tool call with the thread it is in: `None` for the main thread,
    /// `Some(i)` for `subagents[i]`; main thread first, then each subagent in
    /// order.
    pub fn all_tool_calls(&self) -> impl Iterator<Item = (Option<usize>, &ToolCallRecord)> {
        self.tool_calls().map(|r| (None, r)).chain(
            self.subagents
                .iter()
                .enumerate()
                .flat_map(|(i, s)| s.tool_calls().map(move |r| (Some(i), r))),
        )
    }

    /// Every hook firing the transcript records, with its thread (`None`
    /// main, `Some(i)` = `subagents[i]`): main thread first, then each
    /// subagent, each in line order ([`super::hook_activity`]).
    pub fn all_hook_activity(
        &self,
    ) -> impl Iterator<Item = (Option<usize>, &super::hook_activity::HookActivity)> {
        self.lines.hook_activity.iter().map(|h| (None, h)).chain(
            self.subagents
                .iter()
                .enumerate()
                .flat_map(|(i, s)| s.lines.hook_activity.iter().map(move |h| (Some(i), h))),
        )
    }

    /// The hook firings of the call `record` of `thread` (by its
    /// `tool_use` line, as ids may repeat, and by its `tool_use_id`, as a
    /// line may hold several calls), in order.
    pub fn hooks_of_call<'a>(
        &'a self,
        thread: Option<usize>,
        record: &ToolCallRecord,
    ) -> impl Iterator<Item = &'a super::hook_activity::HookActivity> {
        let lines = match thread.and_then(|i| self.subagents.get(i)) {
            Some(s) => &s.lines,
            None => &self.lines,
        };
        lines.hooks_of_call(record.line, &record.tool_use_id)
    }

    /// The line index of a thread: the main thread's (`None`) or
    /// `subagents[i]`'s (the main thread's when `i` is out of range).
    pub fn thread_lines(&self, thread: Option<usize>) -> &LineIndex {
        thread
            .and_then(|i| self.subagents.get(i))
            .map_or(&self.lines, |s| &s.lines)
    }

    /// The input a call of `thread` ran with when a PreToolUse hook rewrote
    /// it (`hookSpecificOutput.updatedInput`, which replaces the whole
    /// input; of several, the last recorded: Claude Code keeps the hook that
    /// finished last); `None` when no hook rewrote it, the rewrite left it
    /// as written, or the call did not run (no result, or a result whose
    /// `permissionDecision` is a `reject`). The recorded `tool_use.input`
    /// stays what the model asked
    /// (docs/hooks.md#a-rewrite-ran).
    pub fn ran_input<'a>(
        &'a self,
        thread: Option<usize>,
        record: &'a ToolCallRecord,
    ) -> Option<&'a Value> {
        record.result.as_ref()?;
        let lines = self.thread_lines(thread);
        let rejected = lines
            .permission_decisions
            .get(&record.tool_use_id)
            .and_then(|d| d.get("decision"))
            .and_then(Value::as_str)
            == Some("reject");
        if rejected {
            return None;
        }
        lines
            .hooks_of_call(record.line, &record.tool_use_id)
            .filter(|h| {
                h.event
                    .as_ref()
                    .is_some_and(|e| e.is(hookscope_hook::event::EventName::PreToolUse))
            })
            .filter_map(|h| h.rewrite.as_ref())
            .last()
            .map(|rw| &rw.to)
            .filter(|to| Some(*to) != record.call.raw())
    }

    /// A call's one-line summary ([`call_summary`]) as it ran: `<asked> →
    /// <ran>` (each side at most 200 chars) when a PreToolUse hook rewrote
    /// it ([`Session::ran_input`]), else the summary of its input;
    /// unredacted (views mask it). [`Session::summary_parts`] joined.
    pub fn summary_as_ran(&self, thread: Option<usize>, record: &ToolCallRecord) -> String {
        as_ran(self.summary_parts(thread, record))
    }

    /// The two sides of [`Session::summary_as_ran`]: the summary of the
    /// input asked, and of the input that ran when a PreToolUse hook
    /// rewrote it (`None` otherwise); a view that must cut the row cuts
    /// the asked side first. A call whose summary is empty (no field
    /// [`call_summary`] reads applies: OpenCode's `invalid`, a read without
    /// its path) shows its input instead ([`ToolCallRecord::input_text`],
    /// at most 200 chars), as `find`'s INPUT column does.
    pub fn summary_parts(
        &self,
        thread: Option<usize>,
        record: &ToolCallRecord,
    ) -> (String, Option<String>) {
        let ran = self
            .ran_input(thread, record)
            .map(|ran| rewritten_summary(record.name(), ran));
        let asked = record.summary();
        let asked = if asked.is_empty() {
            super::text::one_line(&record.input_text(), 200)
        } else {
            asked
        };
        (asked, ran)
    }

    /// The file a thread was read from: [`Session::path`] for the main
    /// thread (`None`), `subagents[i].path` for `Some(i)` (the main file for
    /// inline sidechains); the main path when `i` is out of range.
    pub fn thread_path(&self, thread: Option<usize>) -> &std::path::Path {
        thread
            .and_then(|i| self.subagents.get(i))
            .map_or(self.path.as_path(), |s| s.path.as_path())
    }

    /// Where something of a thread is: [`Session::thread_path`] plus the
    /// locus, e.g. `session.source_of(thread, record.locus())` for a call
    /// from [`Session::all_tool_calls`].
    pub fn source_of(&self, thread: Option<usize>, locus: Locus) -> Source {
        Source::new(self.thread_path(thread), locus)
    }

    /// Where `line` of a thread is: [`Locus::Record`] with the record id for
    /// stores without lines (OpenCode, see [`LineIndex::records`]), else
    /// [`Locus::Line`]; `thread` as in [`Session::thread_path`].
    pub fn locus_of(&self, thread: Option<usize>, line: usize) -> Locus {
        thread
            .and_then(|i| self.subagents.get(i))
            .map_or(&self.lines, |s| &s.lines)
            .locus_of(line)
    }

    /// Turns that open with a real prompt the model saw (the leading
    /// prompt-less turn of a resumed file and prompts a hook rejected,
    /// [`Turn::rejected`], are not counted).
    pub fn prompt_turns(&self) -> usize {
        self.turns
            .iter()
            .filter(|t| t.prompt_line.is_some() && !t.rejected)
            .count()
    }

    /// The first real prompt as the user saw it (command tags unwrapped,
    /// whitespace collapsed to single spaces), at most
    /// [`FIRST_PROMPT_CHARS`] chars (the last one `…` when cut); `None` when
    /// no turn opens with a prompt. A prompt a hook rejected does not count.
    pub fn first_prompt(&self) -> Option<String> {
        let turn = self
            .turns
            .iter()
            .find(|t| t.prompt_line.is_some() && !t.rejected)?;
        let text = crate::transcript::text::display_prompt(&turn.prompt);
        Some(crate::transcript::text::one_line(&text, FIRST_PROMPT_CHARS)).filter(|p| !p.is_empty())
    }

    /// The counts shown in the session list and `sessions --json`.
    pub fn summary(&self) -> SessionSummary {
        self.summary_with(&super::spawns::SpawnTree::new(self))
    }

    /// [`Session::summary`] with the session's spawn tree already built.
    /// Counts follow the one definition in [`super::spawns`] ("Counts"):
    /// `tool_calls` and `errors` over every thread (main and every
    /// subagent, each call once), `subagents` every attached transcript.
    pub fn summary_with(&self, tree: &super::spawns::SpawnTree) -> SessionSummary {
        SessionSummary {
            id: self.id.clone(),
            agent: self.agent,
            path: self.path.clone(),
            cwd: self.cwd.clone(),
            title: self.title.clone(),
            first_prompt: self.first_prompt(),
            started: self.started,
            ended: self.ended,
            version: self.version.clone(),
            turns: self.prompt_turns(),
            tool_calls: tree.session_tool_calls(self),
            errors: tree.session_errors(self),
            subagents: self.subagents.len(),
            diagnostics: self.diagnostics.len(),
        }
    }
}

/// The cap of [`SessionSummary::first_prompt`], in chars.
pub const FIRST_PROMPT_CHARS: usize = 300;

/// A session id as lists show it: a UUID's first 8 characters (unique
/// enough to pass back as a prefix), any other id whole (`fc-args-1`).
pub fn short_session_id(id: &str) -> &str {
    let uuid_like = id.len() == 36 && id.bytes().filter(|b| *b == b'-').count() == 4;
    match id.get(..8) {
        Some(head) if uuid_like => head,
        _ => id,
    }
}

/// One row of the session list / one object of `hookscope sessions --json`.
///
/// Counts are main-thread only: `tool_calls` and `errors` exclude the
/// subagents' own calls (those are reached through their spawn), and
/// `subagents` counts every subagent transcript attached to the session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionSummary {
    /// Session id.
    pub id: String,
    /// `"claude-code"` or `"codex"`.
    pub agent: Agent,
    /// Main transcript path (serialized lossily, [`lossy_path`]).
    #[serde(serialize_with = "lossy_path")]
    pub path: PathBuf,
    /// Working directory.
    pub cwd: Option<String>,
    /// Title.
    pub title: Option<String>,
    /// The first prompt, one line, capped ([`Session::first_prompt`]).
    pub first_prompt: Option<String>,
    /// RFC 3339 start.
    pub started: Option<DateTime<Utc>>,
    /// RFC 3339 end.
    pub ended: Option<DateTime<Utc>>,
    /// CLI version.
    pub version: Option<String>,
    /// Turns opened by a real prompt.
    pub turns: usize,
    /// Tool calls of every thread (main and all subagents).
    pub tool_calls: usize,
    /// Of those, the calls whose result has `is_error: true`.
    pub errors: usize,
    /// Subagent transcripts attached (linked, nested or not linked).
    pub subagents: usize,
    /// Diagnostics count.
    pub diagnostics: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_source_displays_and_serializes_a_line_or_a_record() {
        let line = Source::line("/t/s.jsonl", 12);
        assert_eq!(line.to_string(), "/t/s.jsonl:12");
        assert_eq!(
            serde_json::to_value(&line).expect("serialize"),
            json!({"path": "/t/s.jsonl", "line": 12})
        );
        let record = Source::record("/t/opencode.db", "msg_01");
        assert_eq!(record.to_string(), "/t/opencode.db#msg_01");
        assert_eq!(
            serde_json::to_value(&record).expect("serialize"),
            json!({"path": "/t/opencode.db", "record": "msg_01"})
        );
        assert_eq!(
            serde_json::to_value(Locus::Line(3)).expect("serialize"),
            json!({"line": 3})
        );
        assert_eq!(line.locus.line(), Some(12));
        assert_eq!(line.locus.record(), None);
        assert_eq!(record.locus.record(), Some("msg_01"));
        assert!(Locus::Line(usize::MAX) < Locus::Record(String::new()));
    }

    #[cfg(unix)]
    #[test]
    fn a_source_path_that_is_not_utf8_serializes_lossily() {
        use std::os::unix::ffi::OsStrExt;
        let path = std::path::Path::new(std::ffi::OsStr::from_bytes(b"/t/s-\xff.jsonl"));
        assert_eq!(
            serde_json::to_value(Source::line(path, 1)).expect("serialize"),
            json!({"path": "/t/s-\u{fffd}.jsonl", "line": 1})
        );
    }

    #[test]
    fn diagnostics_keep_the_line_shape_and_add_record_for_records() {
        let line = Diagnostic::at_line("/t/s.jsonl", 2, "invalid JSON");
        assert_eq!(line.to_string(), "/t/s.jsonl:2: invalid JSON");
        assert_eq!(line.line(), Some(2));
        assert_eq!(line.source(), Some(Source::line("/t/s.jsonl", 2)));
        let text = serde_json::to_string(&line).expect("serialize");
        assert_eq!(
            text,
            r#"{"path":"/t/s.jsonl","line":2,"message":"invalid JSON"}"#
        );

        let file = Diagnostic::whole_file("/t/s.jsonl", "unreadable");
        assert_eq!(file.to_string(), "/t/s.jsonl: unreadable");
        assert_eq!(file.source(), None);
        assert_eq!(
            serde_json::to_value(&file).expect("serialize"),
            json!({"path": "/t/s.jsonl", "line": null, "message": "unreadable"})
        );

        let record = Diagnostic {
            path: "/t/opencode.db".into(),
            locus: Some(Locus::Record("msg_01".into())),
            message: "part without a type".into(),
        };
        assert_eq!(
            record.to_string(),
            "/t/opencode.db#msg_01: part without a type"
        );
        assert_eq!(record.line(), None);
        assert_eq!(
            serde_json::to_string(&record).expect("serialize"),
            r#"{"path":"/t/opencode.db","line":null,"record":"msg_01","message":"part without a type"}"#
        );
    }

    #[test]
    fn records_events_and_prompts_give_their_line_as_a_locus() {
        let call = ToolCallRecord {
            tool_use_id: "toolu_1".into(),
            call: crate::tools::ToolCall::fallback("X", "x"),
            tool_kind: ToolKind::Other,
            tool_resolved: None,
            result: Some(ToolResult {
                text: String::new(),
                is_error: false,
                tool_use_result: None,
                stdout_is_text: false,
                echoed_input: 0,
                timestamp: None,
                line: 8,
                agent_id: None,
            }),
            timestamp: None,
            line: 7,
            message_id: None,
            subagent: None,
        };
        assert_eq!(call.locus(), Locus::Line(7));
        assert_eq!(
            call.result.as_ref().map(ToolResult::locus),
            Some(Locus::Line(8))
        );
        let event = Event::ToolCall(Box::new(call));
        assert_eq!(event.locus(), Locus::Line(7));
        let note = Event::Thinking {
            text: "t".into(),
            line: 9,
        };
        assert_eq!(note.locus(), Locus::Line(9));
        let turn = Turn {
            prompt_line: Some(3),
            ..Turn::default()
        };
        assert_eq!(turn.prompt_locus(), Some(Locus::Line(3)));
        assert_eq!(Turn::default().prompt_locus(), None);
    }

    #[test]
    fn one_list_of_agents_names_parse_and_serialize_alike() {
        assert_eq!(Agent::NAMES, ["claude-code", "codex", "opencode", "droid"]);
        assert_eq!(crate::query::KNOWN_AGENTS, &Agent::NAMES[..]);
        for agent in Agent::ALL {
            assert_eq!(agent.as_str().parse::<Agent>(), Ok(agent));
            assert_eq!(
                serde_json::to_value(agent).expect("serialize"),
                serde_json::json!(agent.as_str())
            );
        }
        assert_eq!("CODEX".parse::<Agent>(), Ok(Agent::Codex));
        for (name, agent) in [
            ("claude", Agent::ClaudeCode),
            ("CC", Agent::ClaudeCode),
            ("cx", Agent::Codex),
            ("oc", Agent::OpenCode),
            ("factory", Agent::Droid),
            ("dr", Agent::Droid),
        ] {
            assert_eq!(name.parse::<Agent>(), Ok(agent), "{name}");
        }
        // Prefixes are not names.
        assert_eq!(Agent::from_name("open"), None);
        assert_eq!(
            "gemini".parse::<Agent>().map_err(|e| e.to_string()),
            Err("unknown agent \"gemini\"; known agents: claude-code (claude, cc), codex (cx), opencode (oc), droid (factory, dr)".into())
        );
    }
}
