//! The final outcome of a PreToolUse: the merged hooks' answer through the
//! settings `permissions` rules and the permission mode (hooks.md §1.8,
//! §1.12).
//!
//! Order (hooks.md §1.12): PreToolUse hooks run first in every mode; a hook
//! `deny` always wins (even under `bypassPermissions`); a hook `allow`
//! skips the prompt but cannot loosen a matching `deny` rule (since 2.1.77)
//! nor a matching `ask` rule (since 2.1.220); a hook `ask` forces a prompt;
//! `defer` defers (`-p` only). Without a hook decision the rules decide
//! (deny, then ask, then allow) and then the mode.
//!
//! Rules are not checked with [`crate::hooks::matcher::check_if`]: that is
//! the handler `if` field's check, which fails open (matches) on a command
//! it cannot parse completely, and knows no tool families (`Edit(…)`
//! covering Write) nor `mcp__server` rules; for an allow rule, failing open
//! would wrongly skip a prompt.
//!
//! **Simplified here** (said in each verdict's why where it matters):
//! * Rules are `Tool`, `Tool(pattern)`, `mcp__server`, `mcp__server__tool`,
//!   `mcp__server__*`. `Edit(…)` rules cover Edit/Write/MultiEdit/
//!   NotebookEdit, `Read(…)` rules Read/Glob/Grep/LS/NotebookRead.
//! * `Bash(pattern)`: `*` is any text; `prefix:*` is a prefix match; a
//!   trailing ` *` also matches the bare command. Tried on the whole
//!   command and on each simple command of it (leading `VAR=val` words
//!   stripped); Claude Code's finer compound-command rules are not modelled.
//! * Path rules (gitignore-like): `//abs` absolute, `~/x` under `$HOME`,
//!   `/x` under the project folder (Claude Code: relative to the settings
//!   file), else relative to `cwd`; a pattern without `/` matches at any
//!   depth.
//! * `WebFetch(domain:host)`: the URL's host is `host` or a subdomain.
//! * Other tools' patterns are not matched (a rule with a pattern on them
//!   never matches; said in the why).
//! * Modes: `default` runs the read-only tools ([`READ_ONLY_TOOLS`]) and
//!   asks for the rest; `acceptEdits` also runs the edit tools;
//!   `plan` runs only the read-only tools; `dontAsk` denies what no rule
//!   allows; `bypassPermissions` runs everything; `auto` is decided by a
//!   classifier hookscope does not have.

use globset::GlobBuilder;
use serde::Serialize;
use serde_json::Value;

use crate::hooks::contract::Version;
use crate::hooks::result::Effect;

use super::CombinedRuns;

/// Tools that run without a prompt in `default` and `plan` mode
/// (simplified; see the module docs).
pub const READ_ONLY_TOOLS: &[&str] = &[
    "Read",
    "Glob",
    "Grep",
    "LS",
    "NotebookRead",
    "TodoWrite",
    "TaskCreate",
    "TaskUpdate",
    "TaskList",
    "TaskGet",
    "ToolSearch",
];

/// Tools `acceptEdits` runs without a prompt (besides the read-only ones).
pub const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// The settings `permissions` rules, merged over the loaded files by
/// [`crate::hooks::settings::load`].
pub use crate::hooks::settings::Permissions;

/// Where a rule is checked: the tool call and its folders.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleContext {
    /// The payload's `cwd`.
    pub cwd: Option<String>,
    /// The project folder (`CLAUDE_PROJECT_DIR`), for `/x` path rules.
    pub project_dir: Option<String>,
    /// `$HOME`, for `~/x` path rules.
    pub home: Option<String>,
}

/// Whether permission `rule` matches a call of `tool_name` with
/// `tool_input` (simplified; see the module docs). The second value says
/// why when the rule names the tool but its pattern cannot be checked.
pub fn rule_matches(
    rule: &str,
    tool_name: &str,
    tool_input: &Value,
    ctx: &RuleContext,
) -> (bool, Option<String>) {
    let rule = rule.trim();
    let (rule_tool, pattern) = match rule.find('(') {
        Some(i) if rule.ends_with(')') => (&rule[..i], Some(&rule[i + 1..rule.len() - 1])),
        _ => (rule, None),
    };
    if !tool_covered(rule_tool, tool_name) {
        return (false, None);
    }
    let Some(pattern) = pattern.filter(|p| !p.is_empty() && *p != "*") else {
        return (true, None);
    };
    let s = |k: &str| tool_input.get(k).and_then(Value::as_str);
    match tool_name {
        "Bash" | "PowerShell" => (
            s("command").is_some_and(|c| command_matches(pattern, c)),
            None,
        ),
        "Read" | "Edit" | "Write" | "MultiEdit" | "NotebookEdit" | "NotebookRead" | "Glob"
        | "Grep" | "LS" => {
            let path = s("file_path")
                .or_else(|| s("notebook_path"))
                .or_else(|| s("path"))
                .or(ctx.cwd.as_deref());
            (path.is_some_and(|p| path_matches(pattern, p, ctx)), None)
        }
        "WebFetch" => match pattern.strip_prefix("domain:") {
            Some(domain) => (
                s("url")
                    .and_then(url_host)
                    .is_some_and(|h| h == domain || h.ends_with(&format!(".{domain}"))),
                None,
            ),
            None => (
                false,
                Some(format!(
                    "rule `{rule}`: only `domain:` WebFetch patterns are checked by hookscope"
                )),
            ),
        },
        _ => (
            false,
            Some(format!(
                "rule `{rule}`: hookscope does not check patterns on {tool_name}; treated as not matching"
            )),
        ),
    }
}

fn tool_covered(rule_tool: &str, tool: &str) -> bool {
    if rule_tool == tool {
        return true;
    }
    if let Some(server) = rule_tool.strip_suffix("__*") {
        return server.starts_with("mcp__") && tool.starts_with(&format!("{server}__"));
    }
    if rule_tool.starts_with("mcp__") && rule_tool.matches("__").count() == 1 {
        return tool.starts_with(&format!("{rule_tool}__"));
    }
    match rule_tool {
        "Edit" => EDIT_TOOLS.contains(&tool),
        "Read" => matches!(tool, "Glob" | "Grep" | "LS" | "NotebookRead"),
        _ => false,
    }
}

/// `*` = any text; `prefix:*` = starts with prefix; trailing ` *` also
/// matches the bare command. Tried on the whole command and each simple
/// command (leading assignments stripped).
fn command_matches(pattern: &str, command: &str) -> bool {
    let line = crate::shell::parse_command_line(command);
    let mut candidates = vec![command.trim().to_string()];
    for call in &line.calls {
        if let Some(text) = command.get(call.span.0..call.span.1) {
            candidates.push(text.trim().to_string());
        }
        let argv = call.argv();
        if !argv.is_empty() {
            candidates.push(argv.join(" "));
        }
    }
    if let Some(prefix) = pattern.strip_suffix(":*") {
        return candidates.iter().any(|c| c.starts_with(prefix));
    }
    let Some(re) = crate::hooks::matcher::wildcard_regex(pattern) else {
        return false;
    };
    let bare = pattern.strip_suffix(" *");
    candidates
        .iter()
        .any(|c| re.is_match(c) || bare.is_some_and(|b| c == b))
}

fn path_matches(pattern: &str, path: &str, ctx: &RuleContext) -> bool {
    let join = |base: &str, rest: &str| format!("{}/{}", base.trim_end_matches('/'), rest);
    let full = if let Some(abs) = pattern.strip_prefix("//") {
        format!("/{abs}")
    } else if let Some(rest) = pattern.strip_prefix("~/") {
        match &ctx.home {
            Some(h) => join(h, rest),
            None => return false,
        }
    } else if let Some(rest) = pattern.strip_prefix('/') {
        match ctx.project_dir.as_ref().or(ctx.cwd.as_ref()) {
            Some(p) => join(p, rest),
            None => return false,
        }
    } else {
        let rest = pattern.strip_prefix("./").unwrap_or(pattern);
        let rest = if rest.contains('/') {
            rest.to_string()
        } else {
            format!("**/{rest}")
        };
        match &ctx.cwd {
            Some(c) => join(c, &rest),
            None => rest,
        }
    };
    let absolute = if path.starts_with('/') {
        path.to_string()
    } else {
        match &ctx.cwd {
            Some(c) => join(c, path),
            None => path.to_string(),
        }
    };
    GlobBuilder::new(&full)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher().is_match(&absolute))
        .unwrap_or(false)
}

fn url_host(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = host.split(':').next()?;
    (!host.is_empty()).then_some(host)
}

/// What happens to the tool call in the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolVerdict {
    /// It runs without a prompt.
    Runs,
    /// It runs, with the hooks' `updatedInput`.
    RunsRewritten,
    /// The user is prompted (in a `-p` run nobody answers: denied unless a
    /// PermissionRequest hook allows).
    Asked,
    /// It does not run.
    Denied,
    /// `defer`: `-p` with a single tool call only.
    Deferred,
    /// Claude stops (`continue: false`).
    Stopped,
    /// `auto` mode: a classifier decides; not modelled.
    Classifier,
}

/// The final outcome of an event after the hooks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalOutcome {
    /// The merged hooks' effect.
    pub effect: Effect,
    /// For PreToolUse: what happens to the tool call (`None` on other
    /// events, where the hooks' effect is the outcome).
    pub verdict: Option<ToolVerdict>,
    /// What decided: `hook`, `permissions.deny rule \`Bash(rm *)\``,
    /// `permission mode default`, …
    pub decided_by: String,
    /// The permission mode used (the payload's, else `defaultMode`, else
    /// `default`), for PreToolUse.
    pub permission_mode: Option<String>,
    /// Each step, with the spec section.
    pub why: Vec<String>,
}

/// The final outcome of `event` after the hooks answered `hooks`: on
/// PreToolUse through `perms` and the permission mode (see the module
/// docs); on other events the hooks' effect itself.
pub fn final_outcome(
    event: &str,
    version: &Version,
    payload: &Value,
    hooks: &CombinedRuns,
    perms: &Permissions,
    ctx: &RuleContext,
) -> FinalOutcome {
    let mut why = Vec::new();
    if event != "PreToolUse" {
        return FinalOutcome {
            effect: hooks.effect,
            verdict: None,
            decided_by: if hooks.decided_by.is_empty() {
                "nothing".into()
            } else {
                "hook".into()
            },
            permission_mode: None,
            why: vec![format!(
                "{event}: the hooks' answer is the outcome (permission rules apply to PreToolUse)"
            )],
        };
    }
    let mode = payload
        .get("permission_mode")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| perms.default_mode.clone())
        .unwrap_or_else(|| "default".into());
    let tool = payload
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let input = hooks
        .updated_input
        .clone()
        .or_else(|| payload.get("tool_input").cloned())
        .unwrap_or(Value::Null);
    let done = |verdict: ToolVerdict, by: String, why: Vec<String>| FinalOutcome {
        effect: hooks.effect,
        verdict: Some(verdict),
        decided_by: by,
        permission_mode: Some(mode.clone()),
        why,
    };
    let find = |list: &[String], why: &mut Vec<String>| -> Option<String> {
        list.iter().find_map(|r| {
            let (m, note) = rule_matches(r, tool, &input, ctx);
            why.extend(note);
            m.then(|| r.clone())
        })
    };
    match hooks.effect {
        Effect::Stopped => {
            why.push("a hook's continue: false stops Claude (hooks.md §1.7)".into());
            return done(ToolVerdict::Stopped, "hook".into(), why);
        }
        Effect::Blocked => {
            why.push(
                "a hook denied it: a hook deny always wins, even under bypassPermissions (hooks.md §1.8, §1.12)"
                    .into(),
            );
            return done(ToolVerdict::Denied, "hook".into(), why);
        }
        _ => {}
    }
    let hook_allowed = matches!(hooks.effect, Effect::Allowed | Effect::InputRewritten);
    if let Some(rule) = find(&perms.deny, &mut why) {
        if hook_allowed && *version < Version::parse("2.1.77") {
            why.push(format!(
                "permissions.deny `{rule}` matches, but before 2.1.77 a hook allow overrode deny rules (hooks.md §1.8)"
            ));
        } else {
            why.push(format!(
                "permissions.deny `{rule}` matches: denied{} (hooks.md §1.8, §1.12)",
                if hook_allowed {
                    "; a hook allow cannot loosen a deny rule"
                } else {
                    ""
                }
            ));
            return done(
                ToolVerdict::Denied,
                format!("permissions.deny rule `{rule}`"),
                why,
            );
        }
    }
    match hooks.effect {
        Effect::Deferred => {
            why.push("a hook deferred it: only in -p with a single tool call in the turn, else ignored (hooks.md §1.8)".into());
            return done(ToolVerdict::Deferred, "hook".into(), why);
        }
        Effect::Asked => {
            why.push(
                "a hook asked: the user is prompted, whatever the mode (hooks.md §1.8)".into(),
            );
            return done(ToolVerdict::Asked, "hook".into(), why);
        }
        _ => {}
    }
    if let Some(rule) = find(&perms.ask, &mut why) {
        if hook_allowed && *version < Version::parse("2.1.220") {
            why.push(format!(
                "permissions.ask `{rule}` matches, but before ~2.1.220 a hook allow skipped ask rules (hooks.md §1.8)"
            ));
        } else {
            why.push(format!(
                "permissions.ask `{rule}` matches: the user is prompted{} (hooks.md §1.8)",
                if hook_allowed {
                    "; a hook allow cannot skip an ask rule (anthropics/claude-code#82451)"
                } else {
                    ""
                }
            ));
            return done(
                ToolVerdict::Asked,
                format!("permissions.ask rule `{rule}`"),
                why,
            );
        }
    }
    if hook_allowed {
        let rewritten = hooks.effect == Effect::InputRewritten;
        why.push(format!(
            "a hook allowed it{}: no prompt (hooks.md §1.8)",
            if rewritten {
                " with a replaced input"
            } else {
                ""
            }
        ));
        let v = if rewritten {
            ToolVerdict::RunsRewritten
        } else {
            ToolVerdict::Runs
        };
        return done(v, "hook".into(), why);
    }
    if let Some(rule) = find(&perms.allow, &mut why) {
        why.push(format!("permissions.allow `{rule}` matches: no prompt"));
        return done(
            ToolVerdict::Runs,
            format!("permissions.allow rule `{rule}`"),
            why,
        );
    }
    let by = format!("permission mode {mode}");
    let read_only = READ_ONLY_TOOLS.contains(&tool);
    let (verdict, text) = match mode.as_str() {
        "bypassPermissions" => (ToolVerdict::Runs, "bypassPermissions runs every tool"),
        "dontAsk" => (
            ToolVerdict::Denied,
            "dontAsk denies what no rule allows (simplified)",
        ),
        "auto" => (
            ToolVerdict::Classifier,
            "auto mode: a classifier decides; hookscope does not model it",
        ),
        "plan" if read_only => (
            ToolVerdict::Runs,
            "plan mode runs read-only tools (simplified list)",
        ),
        "plan" => (
            ToolVerdict::Denied,
            "plan mode runs read-only tools only (simplified list)",
        ),
        "acceptEdits" if read_only || EDIT_TOOLS.contains(&tool) => (
            ToolVerdict::Runs,
            "acceptEdits runs read-only and edit tools (simplified list)",
        ),
        _ if read_only => (
            ToolVerdict::Runs,
            "read-only tools run without a prompt (simplified list)",
        ),
        _ => (
            ToolVerdict::Asked,
            "no hook decision and no rule: the user is prompted (in -p nobody answers: denied unless a PermissionRequest hook allows)",
        ),
    };
    why.push(format!("{tool} in {mode} mode: {text} (hooks.md §1.12)"));
    done(verdict, by, why)
}
