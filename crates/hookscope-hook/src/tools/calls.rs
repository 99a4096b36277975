//! The typed tool-call structs and the [`ToolCall`] enum
//! (docs/tool-calls.md#typed-tool-calls; input schemas from docs/tool-calls.md#input-schemas, docs/transcripts.md#response-items).
//!
//! Every struct carries `name` (the tool name exactly as invoked — aliases
//! are not normalized, so the digest matches what the hook saw) and `raw`
//! (the verbatim input value, the only digest substrate), plus typed fields
//! decoded from `raw`.
//!
//! Decoding rules (see [`crate::tools::parse_tool_call`] for the strict /
//! lenient switch):
//! * a **required** field that is missing, `null` or of the wrong JSON type
//!   is a [`ToolInputError`];
//! * an **optional** field of the wrong type is ignored (decoded as `None`)
//!   rather than failing the whole call — the raw input still has it;
//! * integer fields (`timeout`, `offset`, …) accept non-negative JSON
//!   integers and integral floats (`5000.0`); anything else is `None`.

use serde::Serialize;
use serde_json::{Map, Value};

use super::ToolInputError;
use super::digest::{DigestError, tool_digest};
use super::kind::{ToolKind, tool_kind};

/// A Bash/Execute shell invocation, also Codex's shell-style tools
/// (`shell`, `shell_command`, `exec_command`, `local_shell_call`).
/// docs/tool-calls.md#input-schemas (Bash: `command` required) and docs/transcripts.md#response-items (Codex shapes).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BashCall {
    /// Tool name exactly as invoked (`Bash`, `Execute`, `shell`, …).
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// The command text. Claude `command` / Codex `shell_command.command` /
    /// `exec_command.cmd` verbatim; for an argv array (`shell`,
    /// `local_shell_call`) the script of `[sh|bash|zsh, -c|-lc, X]` (`X`),
    /// else the argv joined with spaces, each word POSIX-shell-quoted when
    /// needed.
    pub command: String,
    /// Claude's human description of the command.
    pub description: Option<String>,
    /// Timeout in milliseconds (Claude `timeout`, Codex `timeout_ms`).
    pub timeout: Option<u64>,
    /// Claude `run_in_background`.
    pub run_in_background: Option<bool>,
}

/// A Read of a file, optionally windowed (docs/tool-calls.md#input-schemas).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// `file_path` (required).
    pub file_path: String,
    /// First line to read (`offset`).
    pub offset: Option<u64>,
    /// Number of lines to read (`limit`).
    pub limit: Option<u64>,
    /// PDF page range (`pages`, 2.1.x).
    pub pages: Option<String>,
}

/// A Write/Create of a whole file (docs/tool-calls.md#input-schemas, docs/transcripts.md#factory-droid for Droid `Create`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WriteCall {
    /// Tool name exactly as invoked (`Write` or `Create`).
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// `file_path` (required).
    pub file_path: String,
    /// `content` (required): the whole new file.
    pub content: String,
}

/// An Edit replacing `old` with `new` in one file (docs/tool-calls.md#input-schemas).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EditCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// `file_path` (required).
    pub file_path: String,
    /// `old_string` (required).
    pub old: String,
    /// `new_string` (required).
    pub new: String,
    /// `replace_all`; `false` when absent or not a boolean.
    pub replace_all: bool,
}

/// One replacement within a MultiEdit call, in application order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EditSpan {
    /// `old_string` (required).
    pub old: String,
    /// `new_string` (required).
    pub new: String,
    /// `replace_all`; `false` when absent or not a boolean.
    pub replace_all: bool,
}

/// A MultiEdit applying `edits` to one file, in order (docs/tool-calls.md#input-schemas).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MultiEditCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// `file_path` (required).
    pub file_path: String,
    /// `edits` (required array of objects), in application order. An empty
    /// array is accepted (the schema says ≥1; nothing is lost by tolerating it).
    pub edits: Vec<EditSpan>,
}

/// A NotebookEdit replacing a cell's source (docs/tool-calls.md#input-schemas).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotebookEditCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// `notebook_path` (required).
    pub notebook_path: String,
    /// `new_source` (required).
    pub new_source: String,
    /// `cell_id`.
    pub cell_id: Option<String>,
    /// `cell_type` (`code|markdown`).
    pub cell_type: Option<String>,
    /// `edit_mode` (`replace|insert|delete`).
    pub edit_mode: Option<String>,
    /// `cell_number` (Claude Code 1.0.17 addressed cells by index).
    pub cell_number: Option<u64>,
}

/// A Glob file-pattern search (docs/tool-calls.md#input-schemas).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GlobCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// `pattern` (required).
    pub pattern: String,
    /// `path` to search in.
    pub path: Option<String>,
}

/// A Grep content search (docs/tool-calls.md#input-schemas).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GrepCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// `pattern` (required, a regex).
    pub pattern: String,
    /// `path` to search in.
    pub path: Option<String>,
    /// `glob` file filter.
    pub glob: Option<String>,
    /// `type` file-type filter (ripgrep `--type`).
    pub file_type: Option<String>,
    /// `output_mode` (`content|files_with_matches|count`).
    pub output_mode: Option<String>,
    /// `-i`.
    pub case_insensitive: Option<bool>,
    /// `-n`.
    pub line_numbers: Option<bool>,
    /// `-A` lines after.
    pub after: Option<u64>,
    /// `-B` lines before.
    pub before: Option<u64>,
    /// `-C` lines of context.
    pub context: Option<u64>,
    /// `multiline`.
    pub multiline: Option<bool>,
    /// `head_limit`.
    pub head_limit: Option<u64>,
    /// `offset`.
    pub offset: Option<u64>,
}

/// An ExitPlanMode/ExitSpecMode plan submission (docs/tool-calls.md#input-schemas, docs/transcripts.md#factory-droid).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExitPlanModeCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// `plan` (required).
    pub plan: String,
}

/// A Skill invocation (docs/tool-calls.md#input-schemas).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// `skill` (required; 2.0.x spelled it `command`, accepted as fallback).
    pub skill: String,
    /// `args` (a string in the schema).
    pub args: Option<String>,
}

/// An Agent/Task subagent dispatch (docs/tool-calls.md#input-schemas).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskCall {
    /// Tool name exactly as invoked (`Agent` or `Task`).
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// `description` (required).
    pub description: String,
    /// `prompt` (required).
    pub prompt: String,
    /// `subagent_type` (required ≤2.0.x, optional later — optional here).
    pub subagent_type: Option<String>,
    /// `model` override (`sonnet|opus|haiku|…`).
    pub model: Option<String>,
    /// `run_in_background`.
    pub run_in_background: Option<bool>,
}

/// A TaskCreate tracker entry (docs/tool-calls.md#input-schemas, 2.1.x).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskCreateCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// `subject` (required).
    pub subject: String,
    /// `description` (required).
    pub description: String,
    /// `activeForm`.
    pub active_form: Option<String>,
}

/// A TaskUpdate tracker change (docs/tool-calls.md#input-schemas, 2.1.x).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskUpdateCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// `taskId` (required, a string such as `"1"`).
    pub task_id: String,
    /// `status` (`pending|in_progress|completed|…`).
    pub status: Option<String>,
    /// `subject`.
    pub subject: Option<String>,
    /// `description`.
    pub description: Option<String>,
}

/// A Workflow dynamic-orchestration dispatch (docs/tool-calls.md#typed-tool-calls; Claude Code 2.1.x
/// schema: `script`, `name`, `args`, `scriptPath`, `resumeFromRunId`, all
/// optional). The snake_case spellings `script_path` / `resume_from_run_id`
/// are accepted as fallbacks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkflowCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// The inline workflow script (`script`).
    pub script: Option<String>,
    /// Path to a script file on disk (`scriptPath`).
    pub script_path: Option<String>,
    /// A predefined workflow's name (`raw["name"]` — not the tool name).
    pub workflow_name: Option<String>,
    /// The value exposed to the script as `args`, verbatim (any JSON).
    pub args: Option<Value>,
    /// A prior run to resume from (`resumeFromRunId`).
    pub resume_from_run_id: Option<String>,
}

/// A tool the platform does not type: unknown names, MCP tools, Codex
/// verbatim-string tools and — under `OnError::Other` — known tools whose
/// input failed to decode.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OtherCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// Verbatim input.
    pub raw: Option<Value>,
    /// The strict-parse failure this call degraded from (the
    /// [`ToolInputError`] message); `None` when the payload was well-formed
    /// but the tool has no typed model.
    pub error: Option<String>,
}

/// A call whose input was not decodable JSON (e.g. a Codex `arguments`
/// string that fails to parse). `raw` is always `Some(Value::String(text))`
/// holding the text verbatim, so the digest is taken over it as a JSON
/// string.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FallbackCall {
    /// Tool name exactly as invoked.
    pub name: String,
    /// `Some(Value::String(raw text))`.
    pub raw: Option<Value>,
}

impl FallbackCall {
    /// The undecodable input text, verbatim.
    pub fn text(&self) -> &str {
        self.raw.as_ref().and_then(Value::as_str).unwrap_or("")
    }
}

/// A typed tool call: one variant per modelled tool (docs/tool-calls.md#typed-tool-calls).
/// Serializes internally tagged: `{"type": "EditCall", "name": …, …}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum ToolCall {
    /// `Bash`, `Execute`, Codex `shell`, `shell_command`, `exec_command`, `local_shell_call`.
    #[serde(rename = "BashCall")]
    Bash(BashCall),
    /// `Read`.
    #[serde(rename = "ReadCall")]
    Read(ReadCall),
    /// `Write`, `Create`.
    #[serde(rename = "WriteCall")]
    Write(WriteCall),
    /// `Edit`.
    #[serde(rename = "EditCall")]
    Edit(EditCall),
    /// `MultiEdit`.
    #[serde(rename = "MultiEditCall")]
    MultiEdit(MultiEditCall),
    /// `NotebookEdit`.
    #[serde(rename = "NotebookEditCall")]
    NotebookEdit(NotebookEditCall),
    /// `Glob`.
    #[serde(rename = "GlobCall")]
    Glob(GlobCall),
    /// `Grep`.
    #[serde(rename = "GrepCall")]
    Grep(GrepCall),
    /// `ExitPlanMode`, `ExitSpecMode`.
    #[serde(rename = "ExitPlanModeCall")]
    ExitPlanMode(ExitPlanModeCall),
    /// `Skill`.
    #[serde(rename = "SkillCall")]
    Skill(SkillCall),
    /// `Agent`, `Task`.
    #[serde(rename = "TaskCall")]
    Task(TaskCall),
    /// `TaskCreate`.
    #[serde(rename = "TaskCreateCall")]
    TaskCreate(TaskCreateCall),
    /// `TaskUpdate`.
    #[serde(rename = "TaskUpdateCall")]
    TaskUpdate(TaskUpdateCall),
    /// `Workflow`.
    #[serde(rename = "WorkflowCall")]
    Workflow(WorkflowCall),
    /// Untyped or degraded.
    #[serde(rename = "OtherCall")]
    Other(OtherCall),
    /// Undecodable input text.
    #[serde(rename = "FallbackCall")]
    Fallback(FallbackCall),
}

/// Apply `$body` to the inner struct of whichever variant `$call` holds.
macro_rules! with_inner {
    ($call:expr, $c:ident => $body:expr) => {
        match $call {
            ToolCall::Bash($c) => $body,
            ToolCall::Read($c) => $body,
            ToolCall::Write($c) => $body,
            ToolCall::Edit($c) => $body,
            ToolCall::MultiEdit($c) => $body,
            ToolCall::NotebookEdit($c) => $body,
            ToolCall::Glob($c) => $body,
            ToolCall::Grep($c) => $body,
            ToolCall::ExitPlanMode($c) => $body,
            ToolCall::Skill($c) => $body,
            ToolCall::Task($c) => $body,
            ToolCall::TaskCreate($c) => $body,
            ToolCall::TaskUpdate($c) => $body,
            ToolCall::Workflow($c) => $body,
            ToolCall::Other($c) => $body,
            ToolCall::Fallback($c) => $body,
        }
    };
}

impl ToolCall {
    /// A [`FallbackCall`] for input that is not decodable JSON: `raw_text`
    /// is kept verbatim as a JSON string (the digest substrate).
    pub fn fallback(name: &str, raw_text: &str) -> ToolCall {
        ToolCall::Fallback(FallbackCall {
            name: name.to_string(),
            raw: Some(Value::String(raw_text.to_string())),
        })
    }

    /// The tool name exactly as invoked (aliases not normalized).
    pub fn name(&self) -> &str {
        with_inner!(self, c => &c.name)
    }

    /// The verbatim input: an object for structured calls, a string for
    /// Codex verbatim / fallback calls, `None` when absent.
    pub fn raw(&self) -> Option<&Value> {
        with_inner!(self, c => c.raw.as_ref())
    }

    /// The struct name of the variant: `"BashCall"`, `"EditCall"`, …,
    /// `"OtherCall"`, `"FallbackCall"` (cc_transcript's class names).
    pub fn type_name(&self) -> &'static str {
        match self {
            ToolCall::Bash(_) => "BashCall",
            ToolCall::Read(_) => "ReadCall",
            ToolCall::Write(_) => "WriteCall",
            ToolCall::Edit(_) => "EditCall",
            ToolCall::MultiEdit(_) => "MultiEditCall",
            ToolCall::NotebookEdit(_) => "NotebookEditCall",
            ToolCall::Glob(_) => "GlobCall",
            ToolCall::Grep(_) => "GrepCall",
            ToolCall::ExitPlanMode(_) => "ExitPlanModeCall",
            ToolCall::Skill(_) => "SkillCall",
            ToolCall::Task(_) => "TaskCall",
            ToolCall::TaskCreate(_) => "TaskCreateCall",
            ToolCall::TaskUpdate(_) => "TaskUpdateCall",
            ToolCall::Workflow(_) => "WorkflowCall",
            ToolCall::Other(_) => "OtherCall",
            ToolCall::Fallback(_) => "FallbackCall",
        }
    }

    /// The cross-language content digest: [`tool_digest`]`(name, raw)`
    /// (docs/tool-calls.md#the-digest), 64 lowercase hex chars.
    ///
    /// # Errors
    /// [`DigestError`] when `raw` holds an integer with `|n| > 2^53 - 1`.
    pub fn digest(&self) -> Result<String, DigestError> {
        tool_digest(self.name(), self.raw())
    }

    /// The strict-parse failure an [`OtherCall`] degraded from; `None` for
    /// every other variant and for well-formed untyped calls.
    pub fn error(&self) -> Option<&str> {
        match self {
            ToolCall::Other(c) => c.error.as_deref(),
            _ => None,
        }
    }

    /// The coarse class of this call, [`tool_kind`]`(name, raw)` (docs/tool-calls.md#tool-kind-and-resolved-name).
    pub fn kind(&self) -> ToolKind {
        tool_kind(self.name(), self.raw())
    }
}

// ---------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------

/// The typed shape a tool name decodes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Claude `Bash` / Droid `Execute`: `command` string.
    ClaudeBash,
    /// Codex `shell`: `command` argv array (a string is accepted too).
    CodexShell,
    /// Codex `shell_command`: `command` string.
    CodexShellCommand,
    /// Codex `exec_command`: `cmd` string.
    CodexExec,
    /// Codex `local_shell_call`: `{action: {command: [...], timeout_ms}}` or the action itself.
    CodexLocalShell,
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
}

impl Shape {
    /// The typed shape for a tool name (exact, case-sensitive), if any.
    fn of(name: &str) -> Option<Shape> {
        Some(match name {
            "Bash" | "Execute" => Shape::ClaudeBash,
            "shell" => Shape::CodexShell,
            "shell_command" => Shape::CodexShellCommand,
            "exec_command" => Shape::CodexExec,
            "local_shell_call" => Shape::CodexLocalShell,
            "Read" => Shape::Read,
            "Write" | "Create" => Shape::Write,
            "Edit" => Shape::Edit,
            "MultiEdit" => Shape::MultiEdit,
            "NotebookEdit" => Shape::NotebookEdit,
            "Glob" => Shape::Glob,
            "Grep" => Shape::Grep,
            "ExitPlanMode" | "ExitSpecMode" => Shape::ExitPlanMode,
            "Skill" => Shape::Skill,
            "Agent" | "Task" => Shape::Task,
            "TaskCreate" => Shape::TaskCreate,
            "TaskUpdate" => Shape::TaskUpdate,
            "Workflow" => Shape::Workflow,
            _ => return None,
        })
    }

    /// Codex tools, whose verbatim-string inputs are tolerated untyped.
    fn is_codex(self) -> bool {
        matches!(
            self,
            Shape::CodexShell
                | Shape::CodexShellCommand
                | Shape::CodexExec
                | Shape::CodexLocalShell
        )
    }
}

/// The JSON type name of a value (`"array"`, `"string"`, …), used in
/// error messages and diagnostics.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Field access over one input object with strict required / lenient
/// optional accessors.
struct Fields<'a> {
    tool: &'a str,
    obj: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    fn err(&self, field: &str, problem: String) -> ToolInputError {
        ToolInputError {
            tool: self.tool.to_string(),
            field: Some(field.to_string()),
            problem,
        }
    }

    /// The present, non-null value of `key`, or a missing/null error.
    fn present(&self, key: &str) -> Result<&'a Value, ToolInputError> {
        match self.obj.get(key) {
            None => Err(self.err(key, "is missing".into())),
            Some(Value::Null) => Err(self.err(key, "is null".into())),
            Some(v) => Ok(v),
        }
    }

    fn req_str(&self, key: &str) -> Result<String, ToolInputError> {
        let v = self.present(key)?;
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| self.err(key, format!("must be a string, got {}", json_type(v))))
    }

    fn opt_str(&self, key: &str) -> Option<String> {
        self.obj
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    fn opt_bool(&self, key: &str) -> Option<bool> {
        self.obj.get(key).and_then(Value::as_bool)
    }

    fn opt_u64(&self, key: &str) -> Option<u64> {
        let n = self.obj.get(key)?.as_number()?;
        if let Some(u) = n.as_u64() {
            return Some(u);
        }
        let f = n.as_f64()?;
        // Integral, non-negative floats within the exactly-representable range.
        (f >= 0.0 && f.fract() == 0.0 && f <= 9_007_199_254_740_991.0).then_some(f as u64)
    }
}

/// Decode `input` for tool `name` strictly: `Ok` with a typed call, an
/// untyped [`OtherCall`] (error `None`) for names without a typed model or
/// Codex verbatim strings, or `Err` for a malformed known-tool input.
/// Absent input (`None`) to a typed tool is validated as an empty object.
pub(crate) fn decode_strict(name: &str, input: Option<&Value>) -> Result<ToolCall, ToolInputError> {
    let untyped = || {
        ToolCall::Other(OtherCall {
            name: name.to_string(),
            raw: input.cloned(),
            error: None,
        })
    };
    let Some(shape) = Shape::of(name) else {
        return Ok(untyped());
    };
    let empty = Map::new();
    let obj = match input {
        None => &empty,
        Some(Value::Object(obj)) => obj,
        Some(Value::String(_)) if shape.is_codex() => return Ok(untyped()),
        Some(other) => {
            return Err(ToolInputError {
                tool: name.to_string(),
                field: None,
                problem: format!("input must be a JSON object, got {}", json_type(other)),
            });
        }
    };
    let f = Fields { tool: name, obj };
    let name_s = name.to_string();
    let raw = input.cloned();
    let call = match shape {
        Shape::ClaudeBash | Shape::CodexShellCommand => ToolCall::Bash(BashCall {
            name: name_s,
            raw,
            command: f.req_str("command")?,
            description: f.opt_str("description"),
            timeout: f.opt_u64("timeout").or_else(|| f.opt_u64("timeout_ms")),
            run_in_background: f.opt_bool("run_in_background"),
        }),
        Shape::CodexExec => ToolCall::Bash(BashCall {
            name: name_s,
            raw,
            command: f.req_str("cmd")?,
            description: None,
            timeout: None,
            run_in_background: None,
        }),
        Shape::CodexShell => ToolCall::Bash(BashCall {
            name: name_s,
            raw,
            command: argv_command(&f, "command")?,
            description: None,
            timeout: f.opt_u64("timeout_ms").or_else(|| f.opt_u64("timeout")),
            run_in_background: None,
        }),
        Shape::CodexLocalShell => {
            let action = match obj.get("action") {
                Some(Value::Object(action)) => Fields {
                    tool: name,
                    obj: action,
                },
                _ => Fields { tool: name, obj },
            };
            ToolCall::Bash(BashCall {
                name: name_s,
                raw,
                command: argv_command(&action, "command")?,
                description: None,
                timeout: action.opt_u64("timeout_ms"),
                run_in_background: None,
            })
        }
        Shape::Read => ToolCall::Read(ReadCall {
            name: name_s,
            raw,
            file_path: f.req_str("file_path")?,
            offset: f.opt_u64("offset"),
            limit: f.opt_u64("limit"),
            pages: f.opt_str("pages"),
        }),
        Shape::Write => ToolCall::Write(WriteCall {
            name: name_s,
            raw,
            file_path: f.req_str("file_path")?,
            content: f.req_str("content")?,
        }),
        Shape::Edit => ToolCall::Edit(EditCall {
            name: name_s,
            raw,
            file_path: f.req_str("file_path")?,
            old: f.req_str("old_string")?,
            new: f.req_str("new_string")?,
            replace_all: f.opt_bool("replace_all").unwrap_or(false),
        }),
        Shape::MultiEdit => {
            let file_path = f.req_str("file_path")?;
            let edits = edit_spans(&f)?;
            ToolCall::MultiEdit(MultiEditCall {
                name: name_s,
                raw,
                file_path,
                edits,
            })
        }
        Shape::NotebookEdit => ToolCall::NotebookEdit(NotebookEditCall {
            name: name_s,
            raw,
            notebook_path: f.req_str("notebook_path")?,
            new_source: f.req_str("new_source")?,
            cell_id: f.opt_str("cell_id"),
            cell_type: f.opt_str("cell_type"),
            edit_mode: f.opt_str("edit_mode"),
            cell_number: f.opt_u64("cell_number"),
        }),
        Shape::Glob => ToolCall::Glob(GlobCall {
            name: name_s,
            raw,
            pattern: f.req_str("pattern")?,
            path: f.opt_str("path"),
        }),
        Shape::Grep => ToolCall::Grep(GrepCall {
            name: name_s,
            raw,
            pattern: f.req_str("pattern")?,
            path: f.opt_str("path"),
            glob: f.opt_str("glob"),
            file_type: f.opt_str("type"),
            output_mode: f.opt_str("output_mode"),
            case_insensitive: f.opt_bool("-i"),
            line_numbers: f.opt_bool("-n"),
            after: f.opt_u64("-A"),
            before: f.opt_u64("-B"),
            context: f.opt_u64("-C").or_else(|| f.opt_u64("context")),
            multiline: f.opt_bool("multiline"),
            head_limit: f.opt_u64("head_limit"),
            offset: f.opt_u64("offset"),
        }),
        Shape::ExitPlanMode => ToolCall::ExitPlanMode(ExitPlanModeCall {
            name: name_s,
            raw,
            plan: f.req_str("plan")?,
        }),
        Shape::Skill => {
            // 2.x `skill`; 2.0.x `command`. Report against `skill` unless
            // only `command` was supplied.
            let skill = match (obj.get("skill"), obj.get("command")) {
                (Some(Value::String(s)), _) => s.clone(),
                (None | Some(Value::Null), Some(Value::String(c))) => c.clone(),
                (None, Some(_)) => f.req_str("command")?,
                _ => f.req_str("skill")?,
            };
            ToolCall::Skill(SkillCall {
                name: name_s,
                raw,
                skill,
                args: f.opt_str("args"),
            })
        }
        Shape::Task => ToolCall::Task(TaskCall {
            name: name_s,
            raw,
            description: f.req_str("description")?,
            prompt: f.req_str("prompt")?,
            subagent_type: f.opt_str("subagent_type"),
            model: f.opt_str("model"),
            run_in_background: f.opt_bool("run_in_background"),
        }),
        Shape::TaskCreate => ToolCall::TaskCreate(TaskCreateCall {
            name: name_s,
            raw,
            subject: f.req_str("subject")?,
            description: f.req_str("description")?,
            active_form: f.opt_str("activeForm"),
        }),
        Shape::TaskUpdate => ToolCall::TaskUpdate(TaskUpdateCall {
            name: name_s,
            raw,
            task_id: f.req_str("taskId")?,
            status: f.opt_str("status"),
            subject: f.opt_str("subject"),
            description: f.opt_str("description"),
        }),
        Shape::Workflow => ToolCall::Workflow(WorkflowCall {
            name: name_s,
            raw,
            script: f.opt_str("script"),
            script_path: f.opt_str("scriptPath").or_else(|| f.opt_str("script_path")),
            workflow_name: f.opt_str("name"),
            args: obj.get("args").cloned(),
            resume_from_run_id: f
                .opt_str("resumeFromRunId")
                .or_else(|| f.opt_str("resume_from_run_id")),
        }),
    };
    Ok(call)
}

/// Decode MultiEdit `edits`: a required array of objects each with required
/// `old_string` / `new_string` (errors name the field `edits[i].old_string`).
fn edit_spans(f: &Fields<'_>) -> Result<Vec<EditSpan>, ToolInputError> {
    let v = f.present("edits")?;
    let Value::Array(items) = v else {
        return Err(f.err("edits", format!("must be an array, got {}", json_type(v))));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let Value::Object(obj) = item else {
                return Err(f.err(
                    &format!("edits[{i}]"),
                    format!("must be an object, got {}", json_type(item)),
                ));
            };
            let span = Fields { tool: f.tool, obj };
            let prefixed = |e: ToolInputError| ToolInputError {
                field: e.field.map(|name| format!("edits[{i}].{name}")),
                ..e
            };
            Ok(EditSpan {
                old: span.req_str("old_string").map_err(prefixed)?,
                new: span.req_str("new_string").map_err(prefixed)?,
                replace_all: span.opt_bool("replace_all").unwrap_or(false),
            })
        })
        .collect()
}

/// Decode a Codex argv `command`: an array of strings (or, tolerated, a
/// plain string used verbatim) into command text via [`argv_to_command`].
fn argv_command(f: &Fields<'_>, key: &str) -> Result<String, ToolInputError> {
    let v = f.present(key)?;
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Array(items) => {
            let argv = items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    item.as_str().map(str::to_string).ok_or_else(|| {
                        f.err(
                            &format!("{key}[{i}]"),
                            format!("must be a string, got {}", json_type(item)),
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(argv_to_command(&argv))
        }
        other => Err(f.err(
            key,
            format!("must be an array of strings, got {}", json_type(other)),
        )),
    }
}

/// Command text of a Codex argv (docs/transcripts.md#response-items): the script `X` of
/// `[sh|bash|zsh, -lc|-c, X]` (the shell may be given by path, e.g.
/// `/bin/bash`), otherwise the words joined by single spaces, each quoted
/// like Python's `shlex.quote` when it contains anything outside
/// `[A-Za-z0-9_@%+=:,./-]` (empty words become `''`).
pub fn argv_to_command(argv: &[String]) -> String {
    if let [shell, flag, script] = argv {
        let base = shell.rsplit('/').next().unwrap_or(shell);
        if matches!(base, "sh" | "bash" | "zsh") && matches!(flag.as_str(), "-lc" | "-c") {
            return script.clone();
        }
    }
    argv.iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// POSIX single-quote `word` when needed (Python `shlex.quote` rules).
fn shell_quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if word.is_empty() {
        "''".to_string()
    } else if word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\"'\"'"))
    }
}

impl BashCall {
    /// The command parsed into the simple calls it runs (docs/tool-calls.md#the-bash-command-parser),
    /// computed on demand with tree-sitter-bash. A command that does not
    /// parse still yields a [`crate::shell::CommandLine`] whose `error` says so.
    pub fn command_line(&self) -> crate::shell::CommandLine {
        crate::shell::parse_command_line(&self.command)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn argv_unwraps_shell_dash_c() {
        assert_eq!(argv_to_command(&argv(&["bash", "-lc", "ls -la"])), "ls -la");
        assert_eq!(argv_to_command(&argv(&["sh", "-c", "echo hi"])), "echo hi");
        assert_eq!(argv_to_command(&argv(&["zsh", "-lc", "x"])), "x");
        assert_eq!(argv_to_command(&argv(&["/bin/bash", "-c", "pwd"])), "pwd");
    }

    #[test]
    fn argv_joins_and_quotes_otherwise() {
        assert_eq!(argv_to_command(&argv(&["ls"])), "ls");
        assert_eq!(
            argv_to_command(&argv(&["ls", "-la", "src/"])),
            "ls -la src/"
        );
        assert_eq!(
            argv_to_command(&argv(&["echo", "hello world", "", "it's"])),
            "echo 'hello world' '' 'it'\"'\"'s'"
        );
        assert_eq!(argv_to_command(&argv(&["bash", "-x", "y"])), "bash -x y");
        assert_eq!(
            argv_to_command(&argv(&["bash", "-lc", "a", "b"])),
            "bash -lc a b"
        );
        assert_eq!(argv_to_command(&argv(&["fish", "-c", "ls"])), "fish -c ls");
        assert_eq!(argv_to_command(&[]), "");
    }
}
