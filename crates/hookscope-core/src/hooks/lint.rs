//! Lints over a hook configuration and over a handler's output
//! (docs/contract.md#known-pitfalls, docs/your-hooks.md#your-hooks;
//! docs/contract.md#settings-claude-code-skips,
//! docs/contract.md#tools-missing-from-native-builds). Each lint has a
//! stable id (hookassert's where it has one), a
//! message, the fix, and the file and line of the handler it is about.
//!
//! * [`lint_config`]: what the settings alone show (matchers, `if`,
//!   timeouts, handler types per event, commands on disk, and the
//!   load-time problems of each file). Nothing is run: a command is only
//!   looked up on `PATH` or on disk.
//! * [`lint_output`]: what one handler's exit code, stdout and stderr show
//!   for an event and its payload (flat `permissionDecision`,
//!   `hookEventName`, `decision: "approve"`, exit 2 without effect,
//!   `updatedInput` missing a required field, a Stop hook that blocks while
//!   `stop_hook_active`). For the exec helper and replay.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::hooks::contract::{self, Exit2Effect, Version};
use crate::hooks::matcher::{self, MatcherKind};
use crate::hooks::settings::{Handler, HandlerType, HookConfig, Layer};

/// How bad a lint is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Probably intended but worth a look.
    Warning,
    /// The hook does not do what it says (never fires, is ignored, or
    /// makes Claude Code skip a file).
    Error,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lint {
    /// Stable id, e.g. `matcher-dead-exact` (see [`LINTS`]).
    pub id: &'static str,
    /// How bad.
    pub severity: Severity,
    /// What is wrong, naming the value.
    pub message: String,
    /// The fix.
    pub fix: String,
    /// The settings file, when the lint is about one.
    pub path: Option<PathBuf>,
    /// 1-based line in it.
    pub line: Option<usize>,
    /// Index of the handler in [`HookConfig::handlers`], when about one.
    pub handler: Option<usize>,
}

/// Every lint id with a one-line description (the table in docs/your-hooks.md#your-hooks).
pub const LINTS: &[(&str, &str)] = &[
    (
        "settings-unreadable",
        "a settings file that exists cannot be read (not a regular file, too large, no permission)",
    ),
    (
        "settings-invalid-json",
        "a settings file is not valid JSON: Claude Code skips it",
    ),
    (
        "schema-invalid",
        "a hooks entry has the wrong shape or type: Claude Code skips the whole file",
    ),
    (
        "matcher-schema-invalid",
        "a matcher that is not a string (or not a valid pattern): Claude Code skips every hook of the file",
    ),
    (
        "unknown-event",
        "an event key Claude Code does not know (before 2.1.101 the whole file is skipped)",
    ),
    (
        "managed-only-ignored",
        "allowManagedHooksOnly outside managed settings does nothing",
    ),
    (
        "frontmatter-invalid",
        "a skill's or subagent's frontmatter is not valid YAML",
    ),
    (
        "matcher-dead-exact",
        "an exact matcher no tool is called, such as a bare MCP server `mcp__memory`",
    ),
    (
        "matcher-case",
        "an exact matcher that differs from a tool name only in case (matching is case-sensitive)",
    ),
    (
        "matcher-unanchored",
        "a regex matcher without ^…$ that also matches other tools (`Edit.*` hits NotebookEdit)",
    ),
    (
        "matcher-comma-version",
        "a comma or space list that is an exact list only from 2.1.191 (a regex before)",
    ),
    (
        "matcher-hyphen-version",
        "a name with `-` that is an exact name only from 2.1.195 (an unanchored regex before)",
    ),
    (
        "matcher-ignored",
        "a matcher on an event without matcher support: it is ignored and the hook always fires",
    ),
    (
        "matcher-renamed-tool",
        "a matcher naming a tool by its old name only (`Task`, renamed `Agent` in 2.1.63): it never fires from then on",
    ),
    (
        "matcher-plugin-server",
        "a plugin's matcher naming `mcp__<server>__` without `plugin_<plugin>_`",
    ),
    (
        "matcher-tool-absent",
        "a matcher naming Glob or Grep, which native builds lack since 2.1.117",
    ),
    (
        "matcher-catastrophic-regex",
        "a regex JavaScript's backtracking engine could hang on",
    ),
    (
        "matcher-budget",
        "the lints ran out of time for regular expressions (thousands of slow patterns): some pattern probes were not run",
    ),
    (
        "if-non-tool-event",
        "`if` on an event that is not a tool event: the handler never runs",
    ),
    (
        "timeout-ms",
        "a `timeout` of 1000 or more: seconds, not milliseconds",
    ),
    (
        "handler-type-not-allowed",
        "a handler type the event does not take (prompt/agent only on some events; SessionStart/Setup: command and mcp_tool)",
    ),
    (
        "once-outside-skill",
        "`once: true` outside a skill's frontmatter, where Claude Code ignores it",
    ),
    (
        "on-failure-version",
        "`onFailure` before 2.1.295 (ignored, the hook fails open) or on a handler type other than command/http",
    ),
    (
        "command-not-found",
        "the command's program is not on PATH or not on disk (the hook exits 127 and fails open; with `onFailure: \"block\"` it blocks every action)",
    ),
    (
        "not-executable",
        "the command's program is a file without execute permission (exit 126, fails open)",
    ),
    (
        "rule-set-unusable",
        "a `hookscope hook --rules FILE` handler whose rule file is missing, refused or empty (the hook answers its --on-error: by default every call goes through), or loads with a warning",
    ),
    (
        "output-flat-permission-decision",
        "output has `permissionDecision` at the top level, where Claude Code ignores it",
    ),
    (
        "output-hook-event-name",
        "output's `hookSpecificOutput` lacks `hookEventName` or names another event",
    ),
    (
        "output-decision-approve",
        "output uses the deprecated `decision: \"approve\"`",
    ),
    (
        "exit2-no-effect",
        "exit 2 on an event where it does not block",
    ),
    (
        "exit-1-policy",
        "exit 1 without JSON: a non-blocking error, the action proceeds",
    ),
    (
        "exit-2-overrides-allow",
        "exit 2 blocks even though stdout's JSON says allow",
    ),
    (
        "stdout-not-json",
        "stdout has JSON after other text (a shell profile line?): Claude Code reads it as plain text",
    ),
    (
        "updated-input-missing-field",
        "`updatedInput` replaces the whole input and lacks a required field of the tool",
    ),
    (
        "command-empty",
        "a command handler with an empty or missing `command`: it never runs",
    ),
    (
        "command-with-args",
        "`args` (exec form) with a `command` that holds arguments too: the program is not found",
    ),
    (
        "command-relative-path",
        "a relative script path (`./hooks/x.sh`, `python3 hooks/x.py`) that breaks once the agent cds, or an interpreter without a script (it reads the payload as its program)",
    ),
    (
        "http-url-missing",
        "an http handler without `url`: it never runs",
    ),
    (
        "http-env-not-allowed",
        "a `$VAR` in an http handler's headers or URL that `allowedEnvVars` does not name: sent empty",
    ),
    (
        "mcp-tool-incomplete",
        "an mcp_tool handler without `server` or `tool`: it never runs",
    ),
    (
        "timeout-not-positive",
        "a `timeout` of 0 or less: the default is used",
    ),
    (
        "field-ignored-by-type",
        "`async` on a handler that is not a command, `model` on one that is not a prompt or agent: ignored",
    ),
    (
        "duplicate-handler",
        "the same handler twice where one event reaches both (same event, overlapping matchers): Claude Code runs it once",
    ),
    (
        "matcher-permission-syntax",
        "a matcher written as a permission rule (`Bash(rm:*)`): it matches no tool name; use `if`",
    ),
    (
        "matcher-unknown-value",
        "a matcher on an event with a fixed set of values (Notification types, SessionStart sources, …) naming none of them",
    ),
    (
        "matcher-no-tool",
        "a regex matcher on a tool event that matches no tool of the version nor any tool your indexed sessions called",
    ),
    (
        "allow-unknown-lint",
        "`# hookscope: allow ID` or `--allow ID` naming no lint id: nothing is silenced",
    ),
    (
        "stop-hook-active-block",
        "a Stop hook that blocks while `stop_hook_active` is true (loops to the block cap)",
    ),
];

pub mod explain;
mod fields;
pub mod formats;
pub mod silence;
pub mod values;

/// Tool events: the `if` field is honoured only on these (docs/contract.md#the-if-field).
pub use crate::hooks::matcher::TOOL_EVENTS;

/// Events that take `prompt` and `agent` handlers (docs/contract.md#handler-types-and-fields).
pub const PROMPT_EVENTS: &[&str] = &[
    "PermissionDenied",
    "PermissionRequest",
    "PostToolBatch",
    "PostToolUse",
    "PostToolUseFailure",
    "PreToolUse",
    "Stop",
    "SubagentStop",
    "TaskCompleted",
    "TaskCreated",
    "TeammateIdle",
    "UserPromptExpansion",
    "UserPromptSubmit",
];

/// Claude Code's built-in tool names (docs/contract.md#matchers, docs/contract.md#per-event-input-fields; the 2.1.332
/// captures), for the case and unanchored-regex lints.
pub const KNOWN_TOOLS: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "Bash",
    "Edit",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "MultiEdit",
    "NotebookEdit",
    "PowerShell",
    "Read",
    "Skill",
    "Task",
    "TaskCreate",
    "TaskList",
    "TaskUpdate",
    "TodoWrite",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// The version from which native builds have no Glob/Grep tools
/// (docs/contract.md#tools-missing-from-native-builds; CHANGELOG 2.1.117).
pub const NO_GLOB_GREP_SINCE: &str = "2.1.117";

/// The version from which `onFailure: "block"` is honoured
/// (docs/contract.md#failing-closed-onfailure).
pub const ON_FAILURE_SINCE: &str = "2.1.295";

/// What the config lints need besides the configuration.
#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    /// `PATH` to resolve commands on (`None`: the process's).
    pub path: Option<OsString>,
    /// Tool names seen in the user's sessions (MCP tools included), which
    /// `matcher-no-tool` counts as tools beside Claude Code's own; empty:
    /// only Claude Code's.
    pub seen_tools: Vec<String>,
}

fn lint(
    id: &'static str,
    severity: Severity,
    message: String,
    fix: String,
    h: Option<(usize, &Handler)>,
) -> Lint {
    Lint {
        id,
        severity,
        message,
        fix,
        path: h.map(|(_, h)| h.origin.path.clone()),
        line: h.map(|(_, h)| h.origin.line),
        handler: h.map(|(i, _)| i),
    }
}

/// Lints the configuration (see the module doc), in file order: each
/// file's load-time problems, then per handler. Never runs anything.
/// Silences (`--allow`, `# hookscope: allow`) are applied after, by
/// [`silence::apply_allows`].
pub fn lint_config(config: &HookConfig, options: &LintOptions) -> Vec<Lint> {
    let mut out = Vec::new();
    for file in &config.files {
        for p in &file.problems {
            let severity = if p.drops_file || p.id == "settings-unreadable" {
                Severity::Error
            } else {
                Severity::Warning
            };
            let fix = match p.id {
                "settings-invalid-json" => "fix the JSON at the line and column shown".to_string(),
                "unknown-event" => {
                    "use an event name from docs/contract.md#events (case-sensitive), or remove the key"
                        .to_string()
                }
                "matcher-schema-invalid" => {
                    "write the matcher as one string, e.g. \"Edit|Write\"".to_string()
                }
                "managed-only-ignored" => {
                    "move allowManagedHooksOnly to managed settings, or remove it".to_string()
                }
                "settings-unreadable" => "make it a readable regular file".to_string(),
                _ => "give the entry the shape of docs/contract.md#where-hooks-are-configured (event → [{matcher, hooks: [{type, …}]}])"
                    .to_string(),
            };
            out.push(Lint {
                id: p.id,
                severity,
                message: p.message.clone(),
                fix,
                path: Some(file.path.clone()),
                line: p.line,
                handler: None,
            });
        }
    }
    let version = &config.version;
    let mut seen_groups = std::collections::HashSet::new();
    // One budget for every regex matcher the lints run.
    let mut budget = matcher::Budget::new();
    for (i, h) in config.handlers.iter().enumerate() {
        let at = Some((i, h));
        // Group-level lints once per group.
        let group_key = (h.origin.path.clone(), h.event_as_written.clone(), h.group);
        if seen_groups.insert(group_key) {
            out.extend(matcher_lints(h, at, version, &mut budget));
            let mut values = values::value_lints(h, at, version, &mut budget, &options.seen_tools);
            for l in &mut values {
                l.line = h.matcher_line.or(l.line);
            }
            out.extend(values);
            if let Some(m) = &h.matcher {
                out.extend(fields::permission_syntax(m, at).map(|mut l| {
                    // At the matcher, as the other matcher lints.
                    l.line = h.matcher_line.or(l.line);
                    l
                }));
            }
        }
        out.extend(fields::field_lints(i, h));
        if let Some(first) = h
            .duplicate_of
            .and_then(|f| config.handlers.get(f).map(|x| (f, x)))
            && values::matchers_overlap(first.1, h, version, &mut budget)
        {
            out.push(lint(
                "duplicate-handler",
                Severity::Warning,
                format!(
                    "the same handler as #{} of {}: Claude Code runs identical handlers once",
                    first.0 + 1,
                    h.event
                ),
                "keep one of the two".into(),
                at,
            ));
        }
        if let Some(rule) = &h.if_rule
            && !TOOL_EVENTS.contains(&h.event.as_str())
        {
            out.push(lint(
                "if-non-tool-event",
                Severity::Error,
                format!(
                    "`if: {rule:?}` on {}: `if` is honoured only on tool events, and a handler with `if` on any other event never runs",
                    h.event
                ),
                "remove `if`, or move the handler to a tool event (PreToolUse, PostToolUse, …)"
                    .to_string(),
                at,
            ));
        }
        if let Some(t) = h.timeout
            && t >= 1000.0
        {
            out.push(lint(
                "timeout-ms",
                Severity::Warning,
                format!(
                    "timeout {t} is in seconds ({:.1} minutes); it looks like milliseconds",
                    t / 60.0
                ),
                format!("write {} for {} ms", t / 1000.0, t),
                at,
            ));
        }
        out.extend(type_lint(h, at));
        if h.once == Some(true) && !matches!(h.origin.layer, Layer::Skill(_)) {
            out.push(lint(
                "once-outside-skill",
                Severity::Warning,
                format!(
                    "`once: true` in {} settings: `once` is honoured only in a skill's frontmatter, so this handler runs every time",
                    h.origin.layer
                ),
                "remove `once`, or move the hook into the skill's SKILL.md frontmatter".to_string(),
                at,
            ));
        }
        if let Some(value) = &h.on_failure {
            let since = Version::parse(ON_FAILURE_SINCE);
            let why = if !matches!(h.kind, HandlerType::Command | HandlerType::Http) {
                Some(format!(
                    "`onFailure` applies to command and http handlers only, not {}",
                    h.kind.as_str()
                ))
            } else if version < &since {
                Some(format!(
                    "`onFailure: {value:?}` needs Claude Code {ON_FAILURE_SINCE}; at {version} the key is ignored and a failing hook lets the action through"
                ))
            } else if value != "block" {
                Some(format!(
                    "`onFailure: {value:?}`: the only value is \"block\""
                ))
            } else {
                None
            };
            if let Some(message) = why {
                out.push(lint(
                    "on-failure-version",
                    Severity::Warning,
                    message,
                    "fail closed inside the hook (exit 2 on any error) when the version may be older".to_string(),
                    at,
                ));
            }
        }
        if h.kind == HandlerType::Command && h.shell.as_deref() != Some("powershell") {
            out.extend(command_lint(h, at, config.project_dir.as_deref(), options));
            out.extend(rule_set_lint(h, at, config.project_dir.as_deref()));
        }
    }
    if budget.refused() > 0 {
        out.push(Lint {
            id: "matcher-budget",
            severity: Severity::Warning,
            message: format!(
                "{} regex probes were not run: the lints spent {} ms on regular expressions (past {} ms a pattern that could hang is not run, past {} ms none is), so lints that try a pattern on tool names (matcher-unanchored) may be missing",
                budget.refused(),
                budget.spent().as_millis(),
                matcher::REGEX_BUDGET.as_millis(),
                matcher::REGEX_HARD_BUDGET.as_millis()
            ),
            fix: "rewrite the slow patterns (nested or repeated quantifiers; see matcher-catastrophic-regex), then lint again".to_string(),
            path: None,
            line: None,
            handler: None,
        });
    }
    out
}

fn type_lint(h: &Handler, at: Option<(usize, &Handler)>) -> Option<Lint> {
    let event = h.event.as_str();
    let allowed: &[&str] = if event == "SessionStart" || event == "Setup" {
        &["command", "mcp_tool"]
    } else if PROMPT_EVENTS.contains(&event) {
        &["command", "http", "mcp_tool", "prompt", "agent"]
    } else {
        &["command", "http", "mcp_tool"]
    };
    let kind = h.kind.as_str();
    if matches!(h.kind, HandlerType::Unknown(_)) || allowed.contains(&kind) {
        return None;
    }
    Some(lint(
        "handler-type-not-allowed",
        Severity::Error,
        format!(
            "a {kind} handler on {event}: {event} takes only {}",
            allowed.join(", ")
        ),
        if matches!(h.kind, HandlerType::Prompt | HandlerType::Agent) {
            "use a command handler that calls the model itself, or move it to an event that takes prompt/agent handlers".to_string()
        } else {
            format!("use a {} handler", allowed.join(" or "))
        },
        at,
    ))
}

/// Exact names of a matcher when it is an exact list at `version`.
fn exact_names(kind: &MatcherKind) -> Option<&[String]> {
    match kind {
        MatcherKind::Exact { names } => Some(names),
        _ => None,
    }
}

fn matcher_lints(
    h: &Handler,
    at: Option<(usize, &Handler)>,
    version: &Version,
    budget: &mut matcher::Budget,
) -> Vec<Lint> {
    let mut out = matcher_lints_at_handler(h, at, version, budget);
    for l in &mut out {
        l.line = h.matcher_line.or(l.line);
    }
    out
}

fn matcher_lints_at_handler(
    h: &Handler,
    at: Option<(usize, &Handler)>,
    version: &Version,
    budget: &mut matcher::Budget,
) -> Vec<Lint> {
    let mut out = Vec::new();
    let Some(text) = h.matcher.as_deref() else {
        return out;
    };
    if h.inactive.is_some()
        && !matches!(
            h.inactive,
            Some(
                crate::hooks::settings::Inactive::DisabledAll(_)
                    | crate::hooks::settings::Inactive::ManagedOnly(_)
            )
        )
    {
        // A dropped file or unknown event is reported already.
        return out;
    }
    let event = h.event.as_str();
    let has_matcher = contract::event(event, version).is_some_and(|e| e.matcher.is_some());
    if !has_matcher && !text.is_empty() && text != "*" {
        out.push(lint(
            "matcher-ignored",
            Severity::Warning,
            format!(
                "matcher {text:?} on {event}: {event} has no matcher support, so the matcher is ignored and the hook fires every time"
            ),
            "remove the matcher, and filter inside the hook if needed".to_string(),
            at,
        ));
        return out;
    }
    let kind = matcher::classify(event, Some(text), version);
    let latest = matcher::classify(event, Some(text), &Version::latest());
    let tool_event = TOOL_EVENTS.contains(&event);
    if let (MatcherKind::Regex { .. }, MatcherKind::Exact { .. }) = (&kind, &latest) {
        let (id, since) = if text.contains(',') || text.contains(' ') {
            ("matcher-comma-version", "2.1.191")
        } else {
            ("matcher-hyphen-version", "2.1.195")
        };
        out.push(lint(
            id,
            Severity::Warning,
            format!(
                "matcher {text:?} is an exact list only from Claude Code {since}; at {version} it is an unanchored regex"
            ),
            if id == "matcher-comma-version" {
                format!("separate names with `|`: {:?}", text.split(',').map(str::trim).collect::<Vec<_>>().join("|"))
            } else {
                format!("anchor it: \"^{text}$\"")
            },
            at,
        ));
    }
    if let Some(names) = exact_names(&kind) {
        for name in names {
            if tool_event && name.starts_with("mcp__") {
                let rest = &name["mcp__".len()..];
                if !rest.contains("__") {
                    out.push(lint(
                        "matcher-dead-exact",
                        Severity::Error,
                        format!(
                            "matcher {name:?} is an exact name (letters, digits, _): no tool is called exactly that; MCP tools are named mcp__<server>__<tool>"
                        ),
                        format!("did you mean \"{name}__.*\"?"),
                        at,
                    ));
                    continue;
                }
            }
            if tool_event
                && !KNOWN_TOOLS.contains(&name.as_str())
                && let Some(real) = KNOWN_TOOLS.iter().find(|t| t.eq_ignore_ascii_case(name))
            {
                out.push(lint(
                    "matcher-case",
                    Severity::Error,
                    format!("matcher name {name:?} never matches: tool names are case-sensitive"),
                    format!("write {real:?}"),
                    at,
                ));
            }
        }
    }
    if tool_event && let Some((old, new, since)) = matcher::missed_rename(&kind, version) {
        out.push(lint(
            "matcher-renamed-tool",
            Severity::Error,
            format!(
                "matcher {text:?} names {old}, renamed {new} in Claude Code {since}: hook payloads carry tool_name {new:?} from then on, so at {} it never fires on that tool",
                matcher::shown(version)
            ),
            matcher::rename_fix(old, new, since),
            at,
        ));
    }
    if let MatcherKind::Regex { pattern } = &kind {
        let risk = matcher::redos_risk(pattern);
        if let Some(why) = &risk {
            out.push(lint(
                "matcher-catastrophic-regex",
                Severity::Error,
                format!(
                    "matcher {pattern:?} could hang Claude Code's JavaScript regex engine: {why}"
                ),
                "remove the nested or overlapping quantifier; list names with `|`".to_string(),
                at,
            ));
        }
        // A catastrophic pattern is an error already; probing it on names
        // would only spend the budget.
        if tool_event && risk.is_none() && !(pattern.starts_with('^') && pattern.ends_with('$')) {
            let extra = unanchored_examples(event, pattern, version, budget);
            let star = if pattern.contains("__*") {
                " (`__*` is `_` followed by any number of `_`, not a glob)"
            } else {
                ""
            };
            if !extra.is_empty() {
                out.push(lint(
                    "matcher-unanchored",
                    Severity::Warning,
                    format!(
                        "matcher {pattern:?} is an unanchored regex{star}: it also matches {}",
                        extra.join(", ")
                    ),
                    format!("anchor it: \"^({pattern})$\""),
                    at,
                ));
            }
        }
    }
    if tool_event {
        out.extend(plugin_server_lint(h, text, at));
        let since = Version::parse(NO_GLOB_GREP_SINCE);
        if version >= &since {
            let named: Vec<&str> = ["Glob", "Grep"]
                .into_iter()
                .filter(|t| match &kind {
                    MatcherKind::Exact { names } => names.iter().any(|n| n == t),
                    MatcherKind::Regex { pattern } => pattern.contains(t),
                    _ => false,
                })
                .collect();
            if !named.is_empty() {
                out.push(lint(
                    "matcher-tool-absent",
                    Severity::Warning,
                    format!(
                        "matcher {text:?} names {}: native builds of Claude Code {NO_GLOB_GREP_SINCE} and later have no such tool (they search with bfs/ugrep through Bash), so this never fires there",
                        named.join(" and ")
                    ),
                    "also match Bash (and check its command), or run Claude Code with --tools listing Glob/Grep".to_string(),
                    at,
                ));
            }
        }
    }
    out
}

/// Names a regex matches besides its evident target: other built-in tools
/// it hits when it names one, and a `not`-prefixed MCP name.
fn unanchored_examples(
    event: &str,
    pattern: &str,
    version: &Version,
    budget: &mut matcher::Budget,
) -> Vec<String> {
    let anchored = format!("^(?:{pattern})$");
    let mut hits = |name: &str, p: &str| {
        matcher::check_within(event, Some(p), Some(name), version, budget).matches
    };
    let mut out = Vec::new();
    // Built-in tools it matches only as part of a longer name.
    for tool in KNOWN_TOOLS {
        if hits(tool, pattern) && !hits(tool, &anchored) {
            out.push((*tool).to_string());
        }
    }
    // A prefix or suffix anywhere: `notmcp__x`, `x_Bash`.
    for probe in ["notmcp__server__tool", "mcp__x__Bash_helper", "MyEditor"] {
        if hits(probe, pattern) && !hits(probe, &anchored) {
            out.push(probe.to_string());
            break;
        }
    }
    out
}

fn plugin_server_lint(h: &Handler, text: &str, at: Option<(usize, &Handler)>) -> Option<Lint> {
    let Layer::Plugin(key) = &h.origin.layer else {
        return None;
    };
    let plugin = key.split('@').next().unwrap_or(key);
    let pos = text.find("mcp__")?;
    let rest = &text[pos + "mcp__".len()..];
    if rest.starts_with("plugin_") || rest.starts_with('.') || rest.is_empty() {
        return None;
    }
    let server: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect::<String>();
    let server = server.split("__").next().unwrap_or("").to_string();
    if server.is_empty() {
        return None;
    }
    Some(lint(
        "matcher-plugin-server",
        Severity::Warning,
        format!(
            "matcher {text:?} in plugin {key}: tools of a plugin's own MCP servers are named mcp__plugin_{plugin}_<server>__<tool>, so \"mcp__{server}__\" never matches them"
        ),
        format!(
            "write {:?}",
            text.replacen(
                &format!("mcp__{server}"),
                &format!("mcp__plugin_{plugin}_{server}"),
                1
            )
        ),
        at,
    ))
}

/// Replaces `$CLAUDE_PROJECT_DIR`, `${CLAUDE_PROJECT_DIR}` and the plugin
/// root variables in a command word.
fn substitute(word: &str, project: Option<&Path>, plugin_root: Option<&Path>) -> Option<String> {
    let mut out = word.to_string();
    for (name, value) in [
        ("CLAUDE_PROJECT_DIR", project),
        ("CLAUDE_PLUGIN_ROOT", plugin_root),
    ] {
        for form in [format!("${{{name}}}"), format!("${name}")] {
            if out.contains(&form) {
                let v = value?;
                out = out.replace(&form, &v.to_string_lossy());
            }
        }
    }
    (!out.contains('$') && !out.contains('`')).then_some(out)
}

/// `rule-set-unusable`: a handler that runs `hookscope hook --rules FILE`
/// (docs/live-hook.md) whose rule file would not decide anything: missing,
/// refused by the loader (the first error), or without rules; the hook then
/// answers its `--on-error` (allow by default), so the rules protect
/// nothing and only stderr, hidden on exit 0, says so. A file that loads
/// with warnings (a Stop block that would loop) gets a warning.
fn rule_set_lint(h: &Handler, at: Option<(usize, &Handler)>, project: Option<&Path>) -> Vec<Lint> {
    let Some(command) = h.command.as_deref() else {
        return Vec::new();
    };
    let line = crate::shell::parse_command_line(command);
    let mut out = Vec::new();
    for call in &line.calls {
        // `hookscope hook …`, also behind a wrapper (`env`, `nice`).
        let argv: Vec<&str> = std::iter::once(call.program.as_str())
            .chain(call.args.iter().map(String::as_str))
            .collect();
        let Some(k) = argv.windows(2).position(|w| {
            Path::new(w[0])
                .file_name()
                .is_some_and(|n| n == "hookscope")
                && w[1] == "hook"
        }) else {
            continue;
        };
        let args = &argv[k + 2..];
        let Some(i) = args.iter().position(|a| *a == "--rules") else {
            continue;
        };
        let Some(file) = args.get(i + 1) else {
            continue;
        };
        let Some(word) = substitute(file, project, h.origin.plugin_root.as_deref()) else {
            continue;
        };
        let path = match (Path::new(&word).is_absolute(), project) {
            (true, _) => PathBuf::from(&word),
            (false, Some(p)) => p.join(&word),
            (false, None) => continue,
        };
        let fails_open = if args.windows(2).any(|w| w == ["--on-error", "block"]) {
            "it blocks every call it is reached on (--on-error block)"
        } else {
            "every call goes through (it fails open)"
        };
        let fix = "fix the rule file (`hookscope test FILE` lists its problems), or point --rules at the right one".to_string();
        // Loaded as the hook loads it.
        let problem = match crate::hooks::live::load_rules(&path).1 {
            Err(why) => Some(why),
            Ok(set) => {
                for w in set.warnings() {
                    out.push(lint(
                        "rule-set-unusable",
                        Severity::Warning,
                        format!(
                            "rule file {}: line {}: {}",
                            path.display(),
                            w.line,
                            w.message
                        ),
                        "see `hookscope test FILE`".to_string(),
                        at,
                    ));
                }
                None
            }
        };
        if let Some(problem) = problem {
            out.push(lint(
                "rule-set-unusable",
                Severity::Error,
                format!("`hookscope hook` cannot use its rules ({problem}): {fails_open}"),
                fix,
                at,
            ));
        }
    }
    out
}

fn command_lint(
    h: &Handler,
    at: Option<(usize, &Handler)>,
    project: Option<&Path>,
    options: &LintOptions,
) -> Option<Lint> {
    let command = h.command.as_deref()?;
    let program = if h.args.is_some() {
        command.to_string()
    } else {
        let line = crate::shell::parse_command_line(command);
        line.calls.first()?.program.clone()
    };
    if program.is_empty() {
        return None;
    }
    let word = substitute(&program, project, h.origin.plugin_root.as_deref())?;
    if word.starts_with('~') {
        return None;
    }
    let builtins = [
        "cd", "echo", "exit", "true", "false", "test", "[", "printf", "read", "set", "export",
        "source", ".", "eval", "exec", "command", "type", ":", "if", "for", "while",
    ];
    if builtins.contains(&word.as_str()) {
        return None;
    }
    let path = if word.contains('/') {
        let p = PathBuf::from(&word);
        if p.is_absolute() {
            Some(p)
        } else {
            // Hooks run in the project dir.
            Some(project?.join(p))
        }
    } else {
        let path_var = options
            .path
            .clone()
            .or_else(|| std::env::var_os("PATH"))
            .unwrap_or_default();
        std::env::split_paths(&path_var)
            .map(|d| d.join(&word))
            .find(|p| p.is_file())
    };
    // With `onFailure: "block"` a hook that cannot start blocks instead.
    let outcome = if h.on_failure.as_deref() == Some("block") {
        "with `onFailure: \"block\"` that blocks every action it is reached on"
    } else {
        "a non-blocking error, so it never acts (fails open)"
    };
    let Some(path) = path else {
        return Some(lint(
            "command-not-found",
            Severity::Error,
            format!("{word:?} is not on PATH: the hook would exit 127, {outcome}"),
            "install it, or give its absolute path or \"$CLAUDE_PROJECT_DIR\"/…".to_string(),
            at,
        ));
    };
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(_) => {
            return Some(lint(
                "command-not-found",
                Severity::Error,
                format!(
                    "{} does not exist: the hook would exit 127, {outcome}",
                    path.display()
                ),
                "fix the path (commands run in the project dir; use \"$CLAUDE_PROJECT_DIR\"/… to be safe)".to_string(),
                at,
            ));
        }
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.is_file() && meta.permissions().mode() & 0o111 == 0 {
            return Some(lint(
                "not-executable",
                Severity::Error,
                format!(
                    "{} is not executable: the hook would exit 126, a non-blocking error (fails open)",
                    path.display()
                ),
                format!(
                    "chmod +x {}",
                    crate::shell::shell_quote(&path.to_string_lossy())
                ),
                at,
            ));
        }
    }
    if meta.is_dir() {
        return Some(lint(
            "not-executable",
            Severity::Error,
            format!("{} is a folder", path.display()),
            "point the command at the script".to_string(),
            at,
        ));
    }
    None
}

/// The lints that say a handler's matcher can never fire (a dead exact
/// name, a case slip, a renamed tool's old name, a plugin server named
/// without its prefix, a tool native builds lack): what the reach
/// explanations (`hooks::settings::explain`, so `replay`, its `--json` and
/// the TUI) quote as the fix when the matcher misses.
pub const NEVER_FIRES: &[&str] = &[
    "matcher-dead-exact",
    "matcher-case",
    "matcher-renamed-tool",
    "matcher-plugin-server",
    "matcher-tool-absent",
];

/// The first lint of [`NEVER_FIRES`] on `h`'s matcher at `version`, the
/// one `--lint` reports, or `None`.
pub fn never_fires(h: &Handler, version: &Version) -> Option<Lint> {
    never_fires_within(h, version, &mut matcher::Budget::new())
}

/// [`never_fires`] within the question's regex `budget`
/// ([`matcher::Budget`]).
pub fn never_fires_within(
    h: &Handler,
    version: &Version,
    budget: &mut matcher::Budget,
) -> Option<Lint> {
    matcher_lints_at_handler(h, None, version, budget)
        .into_iter()
        .find(|l| NEVER_FIRES.contains(&l.id))
}

/// Required `tool_input` fields per tool (docs/contract.md#per-event-input-fields): an `updatedInput`
/// replaces the whole input, so it must carry these.
pub fn required_fields(tool: &str) -> &'static [&'static str] {
    match tool {
        "Bash" | "PowerShell" => &["command"],
        "Write" => &["file_path", "content"],
        "Edit" => &["file_path", "old_string", "new_string"],
        "Read" => &["file_path"],
        "Glob" | "Grep" => &["pattern"],
        "WebFetch" => &["url", "prompt"],
        "WebSearch" => &["query"],
        "Agent" | "Task" => &["prompt", "description"],
        "ExitPlanMode" => &["plan"],
        _ => &[],
    }
}

/// Lints one handler's result for `event`: its exit code (`None`: killed
/// or not run), stdout, stderr, and the payload it was given (for
/// `tool_name`, `stop_hook_active`). Pure: no lookups, no I/O.
pub fn lint_output(
    event: &str,
    exit_code: Option<i32>,
    stdout: &str,
    stderr: &str,
    payload: &Value,
    version: &Version,
) -> Vec<Lint> {
    let mut out = Vec::new();
    let mk = |id, severity, message: String, fix: String| Lint {
        id,
        severity,
        message,
        fix,
        path: None,
        line: None,
        handler: None,
    };
    let trimmed = stdout.trim_start();
    let json: Option<serde_json::Map<String, Value>> = if trimmed.starts_with('{') {
        serde_json::from_str::<Value>(trimmed)
            .ok()
            .and_then(|v| v.as_object().cloned())
    } else {
        None
    };
    if json.is_none()
        && !trimmed.starts_with('{')
        && let Some(pos) = stdout.find('{')
        && serde_json::from_str::<Value>(stdout[pos..].trim()).is_ok_and(|v| v.is_object())
    {
        out.push(mk(
            "stdout-not-json",
            Severity::Error,
            format!(
                "stdout starts with {:?} before its JSON: Claude Code reads JSON only when stdout starts with `{{`, so the whole output is plain text",
                stdout[..pos].lines().next().unwrap_or("").chars().take(60).collect::<String>()
            ),
            "print nothing before the JSON (check shell profile echos; redirect them to stderr)".to_string(),
        ));
    }
    let contract = contract::event(event, version);
    if let Some(obj) = &json {
        if event == "PreToolUse"
            && let Some(d) = obj.get("permissionDecision")
        {
            out.push(mk(
                "output-flat-permission-decision",
                Severity::Error,
                format!(
                    "`permissionDecision: {d}` is at the top level of the output, where Claude Code ignores it"
                ),
                format!(
                    "nest it: {{\"hookSpecificOutput\": {{\"hookEventName\": \"PreToolUse\", \"permissionDecision\": {d}, \"permissionDecisionReason\": \"…\"}}}}"
                ),
            ));
        }
        if let Some(hso) = obj.get("hookSpecificOutput").and_then(Value::as_object) {
            match hso.get("hookEventName").and_then(Value::as_str) {
                None => out.push(mk(
                    "output-hook-event-name",
                    Severity::Error,
                    "`hookSpecificOutput` has no `hookEventName`".to_string(),
                    format!("add \"hookEventName\": \"{event}\""),
                )),
                Some(name) if name != event => out.push(mk(
                    "output-hook-event-name",
                    Severity::Error,
                    format!("`hookSpecificOutput.hookEventName` is {name:?} on a {event} hook"),
                    format!("write \"hookEventName\": \"{event}\""),
                )),
                Some(_) => {}
            }
        }
        if obj.get("decision").and_then(Value::as_str) == Some("approve") {
            out.push(mk(
                "output-decision-approve",
                Severity::Warning,
                "`decision: \"approve\"` is deprecated".to_string(),
                if event == "PreToolUse" {
                    "use {\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\"}}".to_string()
                } else {
                    "omit `decision` to let the action proceed (only \"block\" is a value)".to_string()
                },
            ));
        }
        if let Some(updated) = obj
            .get("hookSpecificOutput")
            .and_then(|h| {
                h.get("updatedInput")
                    .or_else(|| h.get("decision")?.get("updatedInput"))
            })
            .and_then(Value::as_object)
            && let Some(tool) = payload.get("tool_name").and_then(Value::as_str)
        {
            let missing: Vec<&str> = required_fields(tool)
                .iter()
                .copied()
                .filter(|f| !updated.contains_key(*f))
                .collect();
            if !missing.is_empty() {
                out.push(mk(
                    "updated-input-missing-field",
                    Severity::Error,
                    format!(
                        "`updatedInput` for {tool} lacks {}: it replaces the whole input (not a merge), so the tool gets no {}",
                        missing.join(", "),
                        missing.join(", ")
                    ),
                    "copy tool_input and change only what you mean to: {...tool_input, field: new}".to_string(),
                ));
            }
        }
    }
    if exit_code == Some(2)
        && let Some(c) = contract
        && c.exit2.effect != Exit2Effect::Block
    {
        out.push(mk(
            "exit2-no-effect",
            Severity::Error,
            format!(
                "exit 2 on {event} does not block ({})",
                match c.exit2.effect {
                    Exit2Effect::Ignored => "it is ignored",
                    _ => "stderr is shown, the action goes on",
                }
            ),
            if event == "PermissionRequest" {
                "answer with {\"hookSpecificOutput\": {\"hookEventName\": \"PermissionRequest\", \"decision\": {\"behavior\": \"deny\", \"message\": \"…\"}}}".to_string()
            } else {
                format!("{event} cannot block; act on another event (e.g. PreToolUse) to stop the action")
            },
        ));
    }
    if exit_code == Some(2)
        && let Some(obj) = &json
    {
        let allow = obj
            .get("hookSpecificOutput")
            .and_then(|h| h.get("permissionDecision"))
            .and_then(Value::as_str)
            == Some("allow");
        if allow {
            out.push(mk(
                "exit-2-overrides-allow",
                Severity::Warning,
                "exit 2 blocks even though the JSON says `permissionDecision: \"allow\"`"
                    .to_string(),
                "exit 0 to let the JSON decide".to_string(),
            ));
        }
    }
    if exit_code == Some(1) && json.is_none() {
        let blocks = contract.is_some_and(|c| c.exit2.effect == Exit2Effect::Block);
        if blocks {
            out.push(mk(
                "exit-1-policy",
                Severity::Warning,
                format!(
                    "exit 1 without JSON on {event} is a non-blocking error: the action proceeds{}",
                    if stderr.trim().is_empty() {
                        ""
                    } else {
                        " and stderr only shows as a hook error notice"
                    }
                ),
                "exit 2 (reason on stderr) or print a deny/block JSON to block".to_string(),
            ));
        }
    }
    if (event == "Stop" || event == "SubagentStop")
        && payload.get("stop_hook_active").and_then(Value::as_bool) == Some(true)
    {
        let blocks_json = json
            .as_ref()
            .is_some_and(|o| o.get("decision").and_then(Value::as_str) == Some("block"));
        if blocks_json || exit_code == Some(2) {
            out.push(mk(
                "stop-hook-active-block",
                Severity::Error,
                format!(
                    "the {event} hook blocks although stop_hook_active is true: Claude Code keeps going until its block cap (8 in a row)"
                ),
                "exit 0 with no output when stop_hook_active is true".to_string(),
            ));
        }
    }
    out
}
