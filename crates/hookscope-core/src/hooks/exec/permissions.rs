//! The final outcome of a PreToolUse: the merged hooks' answer through the
//! settings `permissions` rules and the permission mode (docs/contract.md#decision-control-per-event,
//! docs/contract.md#hooks-and-permissions).
//!
//! Order (docs/contract.md#hooks-and-permissions): PreToolUse hooks run first in every mode; a hook
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
//!   `mcp__server__*`. `Edit(path)` rules cover Edit/Write/MultiEdit/
//!   NotebookEdit, `Read(path)` rules Read/Glob/Grep/LS/NotebookRead; a bare
//!   `Edit` covers Edit only (a bare `Edit` in `--allowedTools` left a
//!   Write to be asked in the 2.1.332 runs).
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
//! * Modes: in every mode the tools that need no permission run
//!   ([`read_only::NO_PROMPT_TOOLS`]: Agent, Read, Glob, Grep, …; the file
//!   readers inside the working folder only), and so does a Bash command
//!   made only of read-only commands ([`read_only::read_only_bash`]);
//!   beyond those `default` asks, `acceptEdits` runs the edit tools,
//!   `plan` and `dontAsk` deny, `bypassPermissions` runs everything, and
//!   `auto` is decided by a classifier hookscope does not have.
//! * Rules from `--allowed-tools`/`--disallowed-tools` (the session's
//!   `claude` command line, which the transcript does not record) are tried
//!   before the settings' and recorded as `ruleSource: cliArg`.
//! * [`FinalOutcome::record`] is the `permissionDecision` the transcript
//!   would hold; `tests/core/hook_truth.rs` checks it against every call of the
//!   real corpus (docs/hooks-exec.md "The final outcome").

use globset::GlobBuilder;
use serde::Serialize;
use serde_json::Value;

use crate::hooks::contract::Version;
use crate::hooks::result::Effect;

use super::CombinedRuns;

pub mod read_only;

/// Tools `acceptEdits` runs without a prompt (besides the read-only ones).
pub const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// The settings `permissions` rules, merged over the loaded files by
/// [`crate::hooks::settings::load`].
pub use crate::hooks::settings::Permissions;

/// Where a rule is checked: the tool call and its folders, and whether
/// anyone can answer a prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleContext {
    /// A `-p` run (the transcript's entrypoint is `sdk-cli`): a prompt
    /// cannot be answered and is recorded as a rejection.
    pub non_interactive: bool,
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
    let scoped = pattern.is_some_and(|p| !p.is_empty() && p != "*");
    if !tool_covered(rule_tool, tool_name, scoped) {
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

/// Whether a rule naming `rule_tool` covers a call of `tool`. A family
/// (`Edit(…)` for Write/MultiEdit/NotebookEdit, `Read(…)` for the file
/// readers) is covered only by a rule with a path pattern: a bare `Edit`
/// in `--allowedTools` did not allow a Write in the 2.1.332 runs
/// (`hooks` scenario: the Write was denied).
fn tool_covered(rule_tool: &str, tool: &str, scoped: bool) -> bool {
    if rule_tool == tool {
        return true;
    }
    // Claude Code's docs keep `Task(…)` rules working for the Agent tool
    // (docs/hooks-exec.md "Task and Agent"); hook matchers get no alias.
    if rule_tool == "Task" && tool == "Agent" {
        return true;
    }
    if let Some(server) = rule_tool.strip_suffix("__*") {
        return server.starts_with("mcp__") && tool.starts_with(&format!("{server}__"));
    }
    if rule_tool.starts_with("mcp__") && rule_tool.matches("__").count() == 1 {
        return tool.starts_with(&format!("{rule_tool}__"));
    }
    match rule_tool {
        "Edit" => scoped && EDIT_TOOLS.contains(&tool),
        "Read" => scoped && matches!(tool, "Glob" | "Grep" | "LS" | "NotebookRead"),
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

/// What Claude Code writes in the tool result's `permissionDecision` for a
/// final outcome (the shape the 2.1.332 transcripts record: `{decision,
/// source, reasonType | reasonCode, ruleSource}`), so a simulation can be
/// checked against a transcript (docs/hooks-exec.md "The final outcome").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRecord {
    /// `accept` or `reject`.
    pub decision: String,
    /// `hook` (a PreToolUse hook decided) or `config` (rules and mode).
    pub source: String,
    /// `hook`, `rule` or `mode`, when Claude Code writes one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason_type: Option<String>,
    /// `hook:PreToolUse` (a hook's deny, or its ask that `-p` could not
    /// put), `unknown` (a prompt `-p` could not put), when written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason_code: Option<String>,
    /// The rule's source (`cliArg`, `userSettings`, …) for `reasonType:
    /// rule`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_source: Option<String>,
}

impl PermissionRecord {
    fn new(decision: &str, source: &str) -> PermissionRecord {
        PermissionRecord {
            decision: decision.into(),
            source: source.into(),
            reason_type: None,
            reason_code: None,
            rule_source: None,
        }
    }

    fn reason_type(mut self, t: &str) -> PermissionRecord {
        self.reason_type = Some(t.into());
        self
    }

    fn reason_code(mut self, c: &str) -> PermissionRecord {
        self.reason_code = Some(c.into());
        self
    }

    /// `accept (config, rule cliArg)`, `reject (hook)`.
    pub fn describe(&self) -> String {
        describe_record(
            &self.decision,
            &self.source,
            self.reason_type.as_deref(),
            self.reason_code.as_deref(),
            self.rule_source.as_deref(),
        )
    }

    /// Compares with a recorded `permissionDecision` object: the decision
    /// and the source must be equal, and so must `reasonType`,
    /// `reasonCode` and `ruleSource` where both name one. Returns whether
    /// they agree and, when not, what differs.
    pub fn compare(&self, recorded: &Value) -> (bool, Vec<String>) {
        let get = |k: &str| recorded.get(k).and_then(Value::as_str);
        let mut differs = Vec::new();
        for (key, mine) in [
            ("decision", Some(self.decision.as_str())),
            ("source", Some(self.source.as_str())),
            ("reasonType", self.reason_type.as_deref()),
            ("reasonCode", self.reason_code.as_deref()),
            ("ruleSource", self.rule_source.as_deref()),
        ] {
            let theirs = get(key);
            let required = matches!(key, "decision" | "source");
            match (mine, theirs) {
                (Some(a), Some(b)) if a != b => differs.push(format!("{key} {b} then, {a} now")),
                (Some(a), None) if required => differs.push(format!("{key} none then, {a} now")),
                _ => {}
            }
        }
        if get("ruleSource") == Some("cliArg") && self.rule_source.as_deref() != Some("cliArg") {
            differs.push(
                "the session's claude command line allowed it (--allowedTools, which the transcript does not list): give the same rules with --allowed-tools".into(),
            );
        }
        (differs.is_empty(), differs)
    }
}

/// A recorded `permissionDecision` object in words, as
/// [`PermissionRecord::describe`] says a simulated one.
pub fn describe_recorded(recorded: &Value) -> String {
    let get = |k: &str| recorded.get(k).and_then(Value::as_str);
    describe_record(
        get("decision").unwrap_or("?"),
        get("source").unwrap_or("?"),
        get("reasonType"),
        get("reasonCode"),
        get("ruleSource"),
    )
}

fn describe_record(
    decision: &str,
    source: &str,
    reason_type: Option<&str>,
    reason_code: Option<&str>,
    rule_source: Option<&str>,
) -> String {
    let mut parts = vec![source.to_string()];
    if let Some(t) = reason_type.filter(|t| *t != source) {
        parts.push(match rule_source {
            Some(r) => format!("{t} {r}"),
            None => t.to_string(),
        });
    }
    if let Some(c) = reason_code {
        parts.push(c.to_string());
    }
    format!("{decision} ({})", parts.join(", "))
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
    /// What the transcript would record as the call's `permissionDecision`
    /// (PreToolUse); `None` where Claude Code writes no decision of its own
    /// (a stop, a defer, the classifier) or the user answers a prompt.
    pub record: Option<PermissionRecord>,
    /// Each step, with the docs section it rests on.
    pub why: Vec<String>,
}

/// One rule list as the final outcome tries it: the rules and whether they
/// came from the command line (`cliArg`).
type RuleList<'a> = [(&'a [String], bool)];

/// The final outcome of `event` after the hooks answered `hooks`: on
/// PreToolUse through `perms` and the permission mode (see the module
/// docs), with the `permissionDecision` the transcript would record; on
/// other events the hooks' effect itself.
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
            record: None,
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
    let done = |verdict: ToolVerdict,
                by: String,
                record: Option<PermissionRecord>,
                why: Vec<String>| FinalOutcome {
        effect: hooks.effect,
        verdict: Some(verdict),
        decided_by: by,
        permission_mode: Some(mode.clone()),
        record,
        why,
    };
    // The first rule of `lists` that matches, with its ruleSource.
    let find = |lists: &RuleList, why: &mut Vec<String>| -> Option<(String, Option<String>)> {
        lists.iter().find_map(|(list, cli)| {
            list.iter().find_map(|r| {
                let (m, note) = rule_matches(r, tool, &input, ctx);
                why.extend(note);
                m.then(|| (r.clone(), perms.source_of(r, *cli)))
            })
        })
    };
    let shown = |rule: &str, source: &Option<String>| match source.as_deref() {
        Some("cliArg") => format!("`{rule}` (--allowed-tools/--disallowed-tools)"),
        _ => format!("`{rule}`"),
    };
    let rule_record = |decision: &str, source: Option<String>| PermissionRecord {
        rule_source: source,
        ..PermissionRecord::new(decision, "config").reason_type("rule")
    };
    // A prompt nobody can answer in -p is a denial; interactively the user
    // answers (no record to predict).
    let prompt_record = |code: Option<&str>| {
        ctx.non_interactive.then(|| {
            let r = PermissionRecord::new("reject", "config");
            match code {
                Some(c) => r.reason_code(c),
                None => r,
            }
        })
    };
    let in_p = |why: &mut Vec<String>| {
        if ctx.non_interactive {
            why.push(
                "a -p run (entrypoint sdk-cli): nobody can answer the prompt, so the call is denied"
                    .into(),
            );
        }
    };
    match hooks.effect {
        Effect::Stopped => {
            why.push(
                "a hook's continue: false stops Claude (docs/contract.md#json-output-fields)"
                    .into(),
            );
            return done(ToolVerdict::Stopped, "hook".into(), None, why);
        }
        Effect::Blocked => {
            why.push(
                "a hook denied it: a hook deny always wins, even under bypassPermissions (docs/contract.md#decision-control-per-event, docs/contract.md#hooks-and-permissions)"
                    .into(),
            );
            let record = PermissionRecord::new("reject", "hook")
                .reason_type("hook")
                .reason_code("hook:PreToolUse");
            return done(ToolVerdict::Denied, "hook".into(), Some(record), why);
        }
        _ => {}
    }
    let hook_allowed = matches!(hooks.effect, Effect::Allowed | Effect::InputRewritten);
    let deny_lists = [(&perms.cli_deny[..], true), (&perms.deny[..], false)];
    if let Some((rule, source)) = find(&deny_lists, &mut why) {
        if hook_allowed && *version < Version::parse("2.1.77") {
            why.push(format!(
                "permissions.deny `{rule}` matches, but before 2.1.77 a hook allow overrode deny rules (docs/contract.md#decision-control-per-event)"
            ));
        } else {
            why.push(format!(
                "permissions.deny {} matches: denied{} (docs/contract.md#decision-control-per-event, docs/contract.md#hooks-and-permissions)",
                shown(&rule, &source),
                if hook_allowed {
                    "; a hook allow cannot loosen a deny rule"
                } else {
                    ""
                }
            ));
            return done(
                ToolVerdict::Denied,
                format!("permissions.deny rule `{rule}`"),
                Some(rule_record("reject", source)),
                why,
            );
        }
    }
    match hooks.effect {
        Effect::Deferred => {
            why.push("a hook deferred it: only in -p with a single tool call in the turn, else ignored (docs/contract.md#decision-control-per-event)".into());
            return done(ToolVerdict::Deferred, "hook".into(), None, why);
        }
        Effect::Asked => {
            why.push(
                "a hook asked: the user is prompted, whatever the mode (docs/contract.md#decision-control-per-event)".into(),
            );
            in_p(&mut why);
            return done(
                ToolVerdict::Asked,
                "hook".into(),
                prompt_record(Some("hook:PreToolUse")),
                why,
            );
        }
        _ => {}
    }
    let ask_lists = [(&perms.ask[..], false)];
    if let Some((rule, source)) = find(&ask_lists, &mut why) {
        if hook_allowed && *version < Version::parse("2.1.220") {
            why.push(format!(
                "permissions.ask `{rule}` matches, but before ~2.1.220 a hook allow skipped ask rules (docs/contract.md#decision-control-per-event)"
            ));
        } else {
            why.push(format!(
                "permissions.ask {} matches: the user is prompted{} (docs/contract.md#decision-control-per-event)",
                shown(&rule, &source),
                if hook_allowed {
                    "; a hook allow cannot skip an ask rule (anthropics/claude-code#82451)"
                } else {
                    ""
                }
            ));
            in_p(&mut why);
            return done(
                ToolVerdict::Asked,
                format!("permissions.ask rule `{rule}`"),
                prompt_record(None),
                why,
            );
        }
    }
    if hook_allowed {
        let rewritten = hooks.effect == Effect::InputRewritten;
        why.push(format!(
            "a hook allowed it{}: no prompt (docs/contract.md#decision-control-per-event)",
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
        let record = PermissionRecord::new("accept", "hook").reason_type("hook");
        return done(v, "hook".into(), Some(record), why);
    }
    let allow_lists = [(&perms.cli_allow[..], true), (&perms.allow[..], false)];
    if let Some((rule, source)) = find(&allow_lists, &mut why) {
        why.push(format!(
            "permissions.allow {} matches: no prompt",
            shown(&rule, &source)
        ));
        return done(
            ToolVerdict::Runs,
            format!("permissions.allow rule `{rule}`"),
            Some(rule_record("accept", source)),
            why,
        );
    }
    let (verdict, text) = by_mode(&mode, tool, &input, ctx);
    why.push(format!("{tool} in {mode} mode: {text}"));
    if verdict == ToolVerdict::Asked {
        in_p(&mut why);
    }
    let record = match verdict {
        ToolVerdict::Runs => Some(PermissionRecord::new("accept", "config").reason_type("mode")),
        ToolVerdict::Denied => Some(PermissionRecord::new("reject", "config")),
        ToolVerdict::Asked => prompt_record(Some("unknown")),
        _ => None,
    };
    done(verdict, format!("permission mode {mode}"), record, why)
}

/// What the permission mode does with a call no hook and no rule decided
/// (see the module docs and [`read_only`]): the verdict and why.
fn by_mode(mode: &str, tool: &str, input: &Value, ctx: &RuleContext) -> (ToolVerdict, String) {
    let quiet = runs_without_prompt(tool, input, ctx);
    match (mode, &quiet) {
        ("bypassPermissions", _) => (
            ToolVerdict::Runs,
            "bypassPermissions runs every tool".into(),
        ),
        ("auto", _) => (
            ToolVerdict::Classifier,
            "auto mode: a classifier decides; hookscope does not model it".into(),
        ),
        (_, Ok(how)) => (
            ToolVerdict::Runs,
            format!("{how}: no prompt, in every mode"),
        ),
        ("dontAsk", Err(need)) => (
            ToolVerdict::Denied,
            format!("{need}; dontAsk denies what no rule allows"),
        ),
        ("plan", Err(need)) => (
            ToolVerdict::Denied,
            format!("{need}; plan mode runs nothing that needs permission (simplified)"),
        ),
        ("acceptEdits", Err(_)) if EDIT_TOOLS.contains(&tool) => (
            ToolVerdict::Runs,
            "acceptEdits runs the edit tools without a prompt".into(),
        ),
        (_, Err(need)) => (
            ToolVerdict::Asked,
            format!(
                "{need}; no hook decision and no rule: the user is prompted (in -p nobody answers: denied unless a PermissionRequest hook allows)"
            ),
        ),
    }
}

/// Whether Claude Code runs `tool` with `input` without a prompt by itself
/// ([`read_only::NO_PROMPT_TOOLS`], read-only Bash): `Ok(how)` saying why,
/// or `Err(why it needs permission)`.
fn runs_without_prompt(tool: &str, input: &Value, ctx: &RuleContext) -> Result<String, String> {
    let cwd = ctx.cwd.as_deref();
    let project = ctx.project_dir.as_deref();
    if read_only::NO_PROMPT_TOOLS.contains(&tool) {
        if read_only::FILE_READ_TOOLS.contains(&tool) {
            let s = |k: &str| input.get(k).and_then(Value::as_str);
            if let Some(path) = s("file_path")
                .or_else(|| s("notebook_path"))
                .or_else(|| s("path"))
                && !read_only::inside(path, cwd, project)
            {
                return Err(format!(
                    "{tool} needs no permission inside the working folder, but {path} is outside it"
                ));
            }
        }
        return Ok(format!(
            "{tool} needs no permission (Claude Code's tools reference)"
        ));
    }
    if matches!(tool, "Bash" | "PowerShell") {
        let command = input.get("command").and_then(Value::as_str).unwrap_or("");
        let shown = crate::transcript::text::one_line(command, 60);
        return match read_only::read_only_bash(command, cwd, project) {
            Ok(()) if tool == "Bash" => Ok(format!(
                "`{shown}` is made only of read-only commands inside the working folder"
            )),
            Ok(()) => Err(format!("{tool} needs permission")),
            Err(why) => Err(format!("{tool} `{shown}` needs permission: {why}")),
        };
    }
    Err(format!("{tool} needs permission"))
}
