//! The user's hook configuration (docs/contract.md#where-hooks-are-configured, docs/contract.md#handler-types-and-fields,
//! docs/contract.md#settings-claude-code-skips): which settings files applied to a session, every
//! handler in them with its fields, effective timeout and origin
//! (`file:line`, layer), and per file the problems found, first of all the
//! ones that make Claude Code itself drop hooks while loading.
//!
//! Files read ([`load`]): `settings.json` under the config dir
//! (`$CLAUDE_CONFIG_DIR`, else `~/.claude`), `.claude/settings.json` and
//! `.claude/settings.local.json` under the session's cwd, managed settings
//! (`/etc/claude-code/managed-settings.json` on Linux, plus
//! `managed-settings.d/*.json` beside it), `hooks/hooks.json` of each plugin
//! enabled in `enabledPlugins`, and `hooks:` in the frontmatter of skills
//! (`skills/*/SKILL.md`) and subagents (`agents/*.md`) under the config dir
//! and the project's `.claude/`; or only the files given with `--settings`.
//! Every file is opened with [`crate::transcript::fsread`] (regular files
//! only, [`SETTINGS_CAP`] bytes at most). A file with a problem never stops
//! the others from loading.
//!
//! No process is started and nothing is written here.

mod claude;
pub mod codex;
pub mod droid;
pub mod fire;
mod frontmatter;
pub mod jsonpos;
mod load;
mod walk;

pub use fire::{HandlerVerdict, explain, synthetic_payload};
pub use load::*;

use hookscope_hook::event::{EventKey, EventName};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::hooks::contract::{self, Version};
use crate::hooks::matcher::{self, MatcherKind};
use crate::transcript::{Agent, fsread};

/// The most bytes read from one settings, plugin `hooks.json` or
/// frontmatter file (4 MiB; real ones are a few KiB).
pub const SETTINGS_CAP: u64 = 4 << 20;

/// The most entries read from one `skills/`, `agents/` or
/// `managed-settings.d/` folder.
pub const DIR_CAP: usize = 1000;

/// The first version that ignores an unknown event key instead of
/// rejecting the whole file (docs/contract.md#settings-claude-code-skips; CHANGELOG 2.1.101).
pub const UNKNOWN_EVENT_IGNORED_SINCE: &str = "2.1.101";

/// Where to look and as of which Claude Code version to read.
///
/// Every root is injectable so tests never read the real home or `/etc`.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Files given with `--settings FILE` (repeatable). When not empty,
    /// only these are read (layer [`Layer::Given`]): no user, project,
    /// managed, plugin, skill or agent files.
    pub settings: Vec<PathBuf>,
    /// The session's cwd (the project; `$CLAUDE_PROJECT_DIR`). `None`: no
    /// project, local, project skill or project agent files.
    pub cwd: Option<PathBuf>,
    /// The config dir. `None`: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub config_dir: Option<PathBuf>,
    /// The managed settings file. `None`: the platform's
    /// ([`default_managed_path`]).
    pub managed: Option<PathBuf>,
    /// The Claude Code version whose loading rules apply (default timeouts,
    /// unknown event keys); [`Version::latest`] when unknown.
    pub version: Version,
}

impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions {
            settings: Vec::new(),
            cwd: None,
            config_dir: None,
            managed: None,
            version: Version::latest(),
        }
    }
}

/// The platform's managed settings file: `/etc/claude-code/managed-settings.json`
/// on Linux, `/Library/Application Support/ClaudeCode/managed-settings.json`
/// on macOS, `C:\Program Files\ClaudeCode\managed-settings.json` on Windows.
pub fn default_managed_path() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json")
    } else if cfg!(windows) {
        PathBuf::from(r"C:\Program Files\ClaudeCode\managed-settings.json")
    } else {
        PathBuf::from("/etc/claude-code/managed-settings.json")
    }
}

/// The config dir when none is given: `$CLAUDE_CONFIG_DIR`, else
/// `~/.claude`; `None` when neither is known.
pub fn default_config_dir() -> Option<PathBuf> {
    match std::env::var_os("CLAUDE_CONFIG_DIR") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::home_dir().map(|h| h.join(".claude")),
    }
}

/// Where a handler or file comes from (the `/hooks` menu's labels,
/// docs/contract.md#where-hooks-are-configured). Serialized as `{"kind": "user"}` or
/// `{"kind": "plugin", "name": "fmt@market"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum Layer {
    /// `<config dir>/settings.json`.
    User,
    /// `<cwd>/.claude/settings.json` (committed).
    Project,
    /// `<cwd>/.claude/settings.local.json` (not committed).
    Local,
    /// Managed policy settings.
    Managed,
    /// A plugin's `hooks/hooks.json`; the `enabledPlugins` key (`name@marketplace`).
    Plugin(String),
    /// A skill's `SKILL.md` frontmatter; the skill's folder name.
    Skill(String),
    /// A subagent's frontmatter; the file's stem.
    Agent(String),
    /// A file given with `--settings`.
    Given,
}

impl Layer {
    /// Whether the layer is a settings file (its handlers dedupe with
    /// identical ones of other settings files; plugin, skill and agent
    /// copies stay separate, docs/contract.md#where-hooks-are-configured).
    pub fn is_settings(&self) -> bool {
        matches!(
            self,
            Layer::User | Layer::Project | Layer::Local | Layer::Managed | Layer::Given
        )
    }
}

impl std::fmt::Display for Layer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Layer::User => f.write_str("user"),
            Layer::Project => f.write_str("project"),
            Layer::Local => f.write_str("local"),
            Layer::Managed => f.write_str("managed"),
            Layer::Plugin(n) => write!(f, "plugin {n}"),
            Layer::Skill(n) => write!(f, "skill {n}"),
            Layer::Agent(n) => write!(f, "agent {n}"),
            Layer::Given => f.write_str("given"),
        }
    }
}

/// One problem of one file, with its position when known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// A stable id (the lint id `hookscope hooks --lint` reports it under):
    /// `settings-unreadable`, `settings-invalid-json`, `schema-invalid`,
    /// `matcher-schema-invalid`, `unknown-event`, `managed-only-ignored`,
    /// `frontmatter-invalid`.
    pub id: &'static str,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known (JSON syntax errors).
    pub column: Option<usize>,
    /// What is wrong and, where obvious, the fix.
    pub message: String,
    /// Whether Claude Code itself skips the whole file because of it
    /// (docs/contract.md#settings-claude-code-skips): no hook of the file runs.
    pub drops_file: bool,
}

/// One file that was looked for, and what came of it.
#[derive(Debug, Clone, Serialize)]
pub struct SettingsFile {
    /// The path as looked for.
    pub path: PathBuf,
    /// Its layer.
    pub layer: Layer,
    /// Whether a file was there (a missing user/project/local/managed file
    /// is listed with `found: false` and no problem: it answers "did it
    /// read the file I edited?").
    pub found: bool,
    /// Why Claude Code skips the whole file, when it does (the first
    /// problem with `drops_file`); no handler of it runs.
    pub dropped: Option<String>,
    /// Every problem, in file order, load-time drops first.
    pub problems: Vec<Problem>,
    /// `disableAllHooks` as written in this file.
    pub disable_all_hooks: Option<bool>,
    /// `allowManagedHooksOnly` as written in this file.
    pub allow_managed_hooks_only: Option<bool>,
    /// How many handlers the file declares (whether they run or not).
    pub handlers: usize,
}

/// A handler's `type` (docs/contract.md#handler-types-and-fields).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HandlerType {
    /// A shell or exec-form command.
    Command,
    /// An HTTP POST.
    Http,
    /// A tool of an MCP server.
    McpTool,
    /// A model prompt.
    Prompt,
    /// A subagent.
    Agent,
    /// Anything else, as written (Claude Code's schema rejects it).
    Unknown(String),
}

impl HandlerType {
    /// Reads the `type` string.
    pub fn parse(text: &str) -> HandlerType {
        match text {
            "command" => HandlerType::Command,
            "http" => HandlerType::Http,
            "mcp_tool" => HandlerType::McpTool,
            "prompt" => HandlerType::Prompt,
            "agent" => HandlerType::Agent,
            other => HandlerType::Unknown(other.to_string()),
        }
    }

    /// The name as written in settings.
    pub fn as_str(&self) -> &str {
        match self {
            HandlerType::Command => "command",
            HandlerType::Http => "http",
            HandlerType::McpTool => "mcp_tool",
            HandlerType::Prompt => "prompt",
            HandlerType::Agent => "agent",
            HandlerType::Unknown(s) => s,
        }
    }
}

/// Where one handler was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Origin {
    /// The file.
    pub path: PathBuf,
    /// 1-based line of the handler object in the file (for frontmatter, of
    /// the handler's entry in the Markdown file).
    pub line: usize,
    /// The file's layer.
    pub layer: Layer,
    /// For plugin handlers, the plugin's root (`$CLAUDE_PLUGIN_ROOT`).
    pub plugin_root: Option<PathBuf>,
}

/// Why a handler never runs, whatever the event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum Inactive {
    /// Claude Code skipped its whole file while loading; the reason.
    FileDropped(String),
    /// `disableAllHooks` is in force; which file set it.
    DisabledAll(String),
    /// Managed `allowManagedHooksOnly` blocks non-managed hooks; which file
    /// set it.
    ManagedOnly(String),
    /// The event key is unknown to this version and ignored (≥ 2.1.101).
    UnknownEvent,
    /// The handler's `type` or fields are not ones Claude Code accepts.
    Invalid(String),
    /// Another agent's loader skips it (Codex: hooks turned off in
    /// `[features]`, an untrusted project layer, a hook not trusted or
    /// disabled in `[hooks.state]`); the whole reason.
    Skipped(String),
}

impl std::fmt::Display for Inactive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Inactive::FileDropped(why) => write!(f, "its file is skipped by Claude Code: {why}"),
            Inactive::DisabledAll(file) => write!(f, "disableAllHooks is true (set in {file})"),
            Inactive::ManagedOnly(file) => write!(
                f,
                "allowManagedHooksOnly is true in managed settings ({file}): only managed hooks run"
            ),
            Inactive::UnknownEvent => {
                f.write_str("the event key is not an event of this Claude Code version")
            }
            Inactive::Invalid(why) | Inactive::Skipped(why) => f.write_str(why),
        }
    }
}

/// One hook handler with every field as written (docs/contract.md#handler-types-and-fields), its
/// effective timeout and where it comes from.
///
/// Fields with a wrong JSON type are `None` here and reported as problems
/// of the file; [`Handler::raw`] keeps the object as written.
#[derive(Debug, Clone, Serialize)]
pub struct Handler {
    /// The event Claude Code fires it on. In a subagent's frontmatter,
    /// `Stop` becomes `SubagentStop` (docs/contract.md#where-hooks-are-configured).
    pub event: EventKey,
    /// The event key as written.
    pub event_as_written: String,
    /// The matcher of its group (`None` = absent).
    pub matcher: Option<String>,
    /// 1-based line of the group's `matcher` in the file (of the group
    /// when it has none), for lints about the matcher.
    pub matcher_line: Option<usize>,
    /// Index of its group under the event (0-based, as in the file).
    pub group: usize,
    /// Index of the handler in its group's `hooks` (0-based).
    pub position: usize,
    /// `type`.
    #[serde(rename = "type")]
    pub kind: HandlerType,
    /// `command` (command handlers).
    pub command: Option<String>,
    /// `args` (exec form, no shell).
    pub args: Option<Vec<String>>,
    /// `shell` (`bash` / `powershell`).
    pub shell: Option<String>,
    /// `async`.
    #[serde(rename = "async")]
    pub is_async: Option<bool>,
    /// `asyncRewake`.
    pub async_rewake: Option<bool>,
    /// `url` (http handlers).
    pub url: Option<String>,
    /// `headers` (http handlers).
    pub headers: Option<BTreeMap<String, String>>,
    /// `allowedEnvVars` (http handlers: which env vars headers may use).
    pub allowed_env_vars: Option<Vec<String>>,
    /// `server` (mcp_tool handlers).
    pub server: Option<String>,
    /// `tool` (mcp_tool handlers).
    pub tool: Option<String>,
    /// `input` (mcp_tool handlers), as written.
    pub input: Option<Value>,
    /// `prompt` (prompt and agent handlers).
    pub prompt: Option<String>,
    /// `model` (prompt and agent handlers).
    pub model: Option<String>,
    /// `if`: one permission rule (tool events only).
    #[serde(rename = "if")]
    pub if_rule: Option<String>,
    /// `timeout` as written, in seconds.
    pub timeout: Option<f64>,
    /// `statusMessage`.
    pub status_message: Option<String>,
    /// `once` (honoured in skill frontmatter only).
    pub once: Option<bool>,
    /// `onFailure` (`"block"`, ≥ 2.1.295; docs/contract.md#failing-closed-onfailure).
    pub on_failure: Option<String>,
    /// `continueOnBlock` (prompt handlers).
    pub continue_on_block: Option<bool>,
    /// The handler object as written.
    pub raw: Value,
    /// Seconds Claude Code waits before cancelling it ([`effective_timeout`]).
    pub effective_timeout: f64,
    /// Where [`Handler::effective_timeout`] comes from, e.g. `written` or
    /// `default for command handlers on PreToolUse (2.1.3 and later)`.
    pub timeout_source: String,
    /// Where it was written.
    pub origin: Origin,
    /// Why it never runs, when it never does.
    pub inactive: Option<Inactive>,
    /// Index (in [`HookConfig::handlers`]) of an earlier identical handler
    /// of the same event from a settings file: when both are reached, the
    /// handler runs once (docs/contract.md#where-hooks-are-configured).
    pub duplicate_of: Option<usize>,
}

impl Handler {
    /// `file:line (layer)`, for display.
    pub fn location(&self) -> String {
        format!(
            "{}:{} ({})",
            self.origin.path.display(),
            self.origin.line,
            self.origin.layer
        )
    }

    /// What it runs, typed by its `type`: the fields that type reads
    /// (docs/contract.md#handler-types-and-fields). The record stays flat
    /// because a settings file may write any field on any type (a lint
    /// reports those the type ignores); this view is what runs.
    pub fn runs(&self) -> Runs<'_> {
        match &self.kind {
            HandlerType::Command => Runs::Command {
                command: self.command.as_deref(),
                args: self.args.as_deref(),
                shell: self.shell.as_deref(),
                is_async: self.is_async == Some(true),
            },
            HandlerType::Http => Runs::Http {
                url: self.url.as_deref(),
                headers: self.headers.as_ref(),
                allowed_env_vars: self.allowed_env_vars.as_deref().unwrap_or_default(),
            },
            HandlerType::McpTool => Runs::McpTool {
                server: self.server.as_deref(),
                tool: self.tool.as_deref(),
                input: self.input.as_ref(),
            },
            HandlerType::Prompt | HandlerType::Agent => Runs::Model {
                agent: self.kind == HandlerType::Agent,
                prompt: self.prompt.as_deref(),
                model: self.model.as_deref(),
            },
            HandlerType::Unknown(t) => Runs::Unknown(t),
        }
    }

    /// One short line saying what the handler runs: the command (with
    /// `args`), the URL, `server/tool`, or the prompt's first line.
    pub fn summary(&self) -> String {
        match self.runs() {
            Runs::Command { command, args, .. } => {
                let mut s = command.unwrap_or_default().to_string();
                for a in args.unwrap_or_default() {
                    s.push(' ');
                    s.push_str(&crate::shell::shell_quote(a));
                }
                s
            }
            Runs::Http { url, .. } => url.unwrap_or_default().to_string(),
            Runs::McpTool { server, tool, .. } => {
                format!("{}/{}", server.unwrap_or("?"), tool.unwrap_or("?"))
            }
            Runs::Model { prompt, .. } => prompt
                .unwrap_or("")
                .lines()
                .next()
                .unwrap_or("")
                .to_string(),
            Runs::Unknown(t) => format!("(unknown type {t:?})"),
        }
    }
}

/// What a [`Handler`] runs, by its `type` ([`Handler::runs`]): only the
/// fields that type reads, borrowed from the handler. A field missing or
/// of the wrong JSON type is `None` (the file's problems say which).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Runs<'a> {
    /// `type: "command"`: `command`, exec-form `args` (no shell), `shell`
    /// (`bash` / `powershell`; `None` = `sh`), `async`.
    Command {
        /// `command`.
        command: Option<&'a str>,
        /// `args`.
        args: Option<&'a [String]>,
        /// `shell`.
        shell: Option<&'a str>,
        /// `async: true`.
        is_async: bool,
    },
    /// `type: "http"`: a POST of the payload to `url` with `headers`,
    /// whose `$VAR`s may only name `allowedEnvVars`.
    Http {
        /// `url`.
        url: Option<&'a str>,
        /// `headers`.
        headers: Option<&'a BTreeMap<String, String>>,
        /// `allowedEnvVars` (empty when absent).
        allowed_env_vars: &'a [String],
    },
    /// `type: "mcp_tool"`: `tool` of MCP `server` with `input`.
    McpTool {
        /// `server`.
        server: Option<&'a str>,
        /// `tool`.
        tool: Option<&'a str>,
        /// `input`, as written.
        input: Option<&'a Value>,
    },
    /// `type: "prompt"` or `"agent"`: `prompt` asked of `model`.
    Model {
        /// `type: "agent"` (a subagent) rather than `"prompt"`.
        agent: bool,
        /// `prompt`.
        prompt: Option<&'a str>,
        /// `model`.
        model: Option<&'a str>,
    },
    /// Any other `type`, as written.
    Unknown(&'a str),
}

/// Where `disableAllHooks` comes from and what it does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DisableAll {
    /// The value after settings precedence.
    pub value: bool,
    /// The file whose value won.
    pub file: PathBuf,
    /// Whether it was set in managed settings (only then does it turn
    /// managed hooks off too).
    pub managed: bool,
}

/// The whole configuration: files looked at, handlers, and the switches.
#[derive(Debug, Clone, Serialize)]
pub struct HookConfig {
    /// Every file looked for, in load order (managed, user, project, local,
    /// plugins, skills, agents; or the given files in order).
    pub files: Vec<SettingsFile>,
    /// Every handler of every file (also those that never run; see
    /// [`Handler::inactive`]), in file order.
    pub handlers: Vec<Handler>,
    /// `disableAllHooks` after precedence, when any file sets it.
    pub disable_all_hooks: Option<DisableAll>,
    /// The managed file that set `allowManagedHooksOnly: true`, if any.
    pub managed_only: Option<PathBuf>,
    /// The version whose rules were applied.
    pub version: Version,
    /// The project dir (`$CLAUDE_PROJECT_DIR`): the cwd given, else for
    /// given files the folder holding their `.claude/`.
    pub project_dir: Option<PathBuf>,
    /// `permissions` (`allow`, `ask`, `deny` rule lists) merged over the
    /// loaded files in precedence order (the settings rules the final
    /// outcome depends on, docs/contract.md#hooks-and-permissions).
    pub permissions: Permissions,
    /// Whose configuration this is, and so which matcher and answer
    /// dialect applies: [`Agent::ClaudeCode`] for [`load`],
    /// [`Agent::Codex`] for [`codex::load`], [`Agent::Droid`] for [`droid::load`] (never apply Claude Code's
    /// matcher or reducer to another agent's handlers).
    pub agent: Agent,
}

/// The `permissions` rules of the loaded settings files, concatenated.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Permissions {
    /// `permissions.allow`.
    pub allow: Vec<String>,
    /// `permissions.ask`.
    pub ask: Vec<String>,
    /// `permissions.deny`.
    pub deny: Vec<String>,
    /// `permissions.defaultMode`, from the file of highest precedence
    /// that sets it.
    pub default_mode: Option<String>,
    /// Allow rules of the session's `claude --allowedTools` (given to
    /// hookscope with `replay --allowed-tools`; a transcript does not record
    /// them): the transcript names their source `cliArg`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cli_allow: Vec<String>,
    /// Deny rules of `claude --disallowedTools` (`replay
    /// --disallowed-tools`), likewise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cli_deny: Vec<String>,
    /// Where each settings rule was written, as Claude Code names the
    /// source in a tool result's `permissionDecision.ruleSource`
    /// (`userSettings`, `projectSettings`, `localSettings`,
    /// `policySettings`), by rule text (the first file that has it); rules
    /// of a file given with `--settings` have none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rule_sources: BTreeMap<String, String>,
}

impl Permissions {
    /// The `ruleSource` Claude Code records for a decision by `rule`:
    /// `cliArg` for an `--allowed-tools`/`--disallowed-tools` rule, else
    /// the settings layer's name when known.
    pub fn source_of(&self, rule: &str, from_cli: bool) -> Option<String> {
        if from_cli {
            return Some("cliArg".to_string());
        }
        self.rule_sources.get(rule).cloned()
    }
}

/// The paths of `files` as shown to a user, each once (run from the home
/// folder, the user and project layers name the same file), in load order.
pub fn looked_for(files: &[SettingsFile]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    files
        .iter()
        .map(|f| f.path.display().to_string())
        .filter(|p| seen.insert(p.clone()))
        .collect()
}

impl HookConfig {
    /// `#N file:line (layer)` of the handler at `index` (0-based; `#N`
    /// alone when there is none): how plans, reports and previews name a
    /// handler.
    pub fn label(&self, index: usize) -> String {
        match self.handlers.get(index) {
            Some(h) => format!("#{} {}", index + 1, h.location()),
            None => format!("#{}", index + 1),
        }
    }

    /// The handlers that can run (no [`Handler::inactive`]) on `event`.
    pub fn active_on<'a>(&'a self, event: &'a str) -> impl Iterator<Item = (usize, &'a Handler)> {
        self.handlers
            .iter()
            .enumerate()
            .filter(move |(_, h)| h.event == event && h.inactive.is_none())
    }

    /// Whether any file is skipped whole by Claude Code.
    pub fn any_dropped(&self) -> bool {
        self.files.iter().any(|f| f.dropped.is_some())
    }
}

/// The effective timeout of a `kind` handler on `event` at `version`, in
/// seconds, and where it comes from (docs/contract.md#handler-types-and-fields; the contract table's
/// per-event default, `contract::EventContract::timeout_at`):
///
/// * a positive `timeout` as written wins, except on SessionEnd where it
///   is capped at 60 s (the shared budget is raised to the largest
///   per-hook timeout, at most 60);
/// * else `prompt` 30 s and `agent` 60 s, never more than the event's
///   reduced default (UserPromptSubmit 30, MessageDisplay 10, SessionEnd
///   1.5, Pre/PostModelSwitch 30);
/// * else the event's default for command/http/mcp_tool: 600 s (60 s
///   before 2.1.3) or the reduced value; 600 (60) for an unknown event.
pub fn effective_timeout(
    event: &str,
    kind: &HandlerType,
    written: Option<f64>,
    version: &Version,
) -> (f64, String) {
    let base = if version >= &Version::parse("2.1.3") {
        600.0
    } else {
        60.0
    };
    let event_default = contract::event(event, version)
        .and_then(|e| e.timeout_at(version))
        .unwrap_or(base);
    if let Some(t) = written.filter(|t| *t > 0.0 && t.is_finite()) {
        if event == "SessionEnd" && t > 60.0 {
            return (60.0, "written, capped at 60 s on SessionEnd".to_string());
        }
        return (t, "written".to_string());
    }
    let reduced = event_default < base;
    match kind {
        HandlerType::Prompt | HandlerType::Agent => {
            let own = if *kind == HandlerType::Prompt {
                30.0
            } else {
                60.0
            };
            if reduced && event_default < own {
                (event_default, format!("default on {event}"))
            } else {
                (own, format!("default for {} handlers", kind.as_str()))
            }
        }
        _ => {
            let note = if reduced {
                format!("default on {event}")
            } else if base >= 600.0 {
                "default since 2.1.3".to_string()
            } else {
                "default before 2.1.3".to_string()
            };
            (event_default, note)
        }
    }
}
