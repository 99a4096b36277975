//! Lints on a handler's own fields (docs/your-hooks.md#lints): what its
//! type needs and ignores, relative paths that break once the agent
//! changes folder, `$VAR`s an http handler sends empty, duplicates that run
//! once, and permission-rule syntax written as a matcher. Each reads only
//! the handler as written; none touches the disk.

use super::{Lint, Severity, lint};
use crate::hooks::exec::expand_header;
use crate::hooks::settings::{Handler, HandlerType, Runs};

/// Interpreters whose first non-option argument is the script they run.
const INTERPRETERS: &[&str] = &[
    "python", "python3", "node", "bash", "sh", "zsh", "dash", "ruby", "perl", "php", "deno", "bun",
    "tsx", "ts-node",
];

/// Options after which an interpreter runs inline code or a module, not a
/// script file.
const INLINE: &[&str] = &["-c", "-e", "-m", "--eval", "eval", "run", "-"];

/// Whether `word` names a file relative to the working folder: not
/// absolute, not from `$VAR` or `~`.
fn relative(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('/')
        && !word.starts_with('$')
        && !word.starts_with('~')
        && !word.starts_with('"')
}

/// Every lint of this module on `h` (the handler at index `i`).
pub(super) fn field_lints(i: usize, h: &Handler) -> Vec<Lint> {
    let at = Some((i, h));
    let mut out = Vec::new();
    match h.runs() {
        Runs::Command { command, args, .. } => {
            let command = command.unwrap_or("");
            if command.trim().is_empty() {
                out.push(lint(
                    "command-empty",
                    Severity::Error,
                    "a command handler with an empty or missing `command`: it never runs".into(),
                    "write the command to run, e.g. \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh"
                        .into(),
                    at,
                ));
            } else if args.is_some() && command.trim().contains(char::is_whitespace) {
                out.push(lint(
                    "command-with-args",
                    Severity::Error,
                    format!(
                        "`command: {command:?}` with `args`: in exec form `command` is the program alone, so a program named {command:?} is looked for and not found"
                    ),
                    "move the arguments into `args`, or drop `args` to run `command` through the shell"
                        .into(),
                    at,
                ));
            } else {
                out.extend(relative_lint(command, args, at));
            }
        }
        Runs::Http {
            url,
            headers,
            allowed_env_vars,
        } => {
            if url.is_none_or(|u| u.trim().is_empty()) {
                out.push(lint(
                    "http-url-missing",
                    Severity::Error,
                    "an http handler without `url`: it never runs".into(),
                    "give the URL to POST the payload to".into(),
                    at,
                ));
            }
            let mut empty: Vec<String> = url
                .map(|u| expand_header(u, allowed_env_vars, &|_| None).1)
                .unwrap_or_default();
            for value in headers.into_iter().flat_map(|h| h.values()) {
                empty.extend(expand_header(value, allowed_env_vars, &|_| None).1);
            }
            empty.sort();
            empty.dedup();
            if !empty.is_empty() {
                let names = empty.join(", $");
                out.push(lint(
                    "http-env-not-allowed",
                    Severity::Error,
                    format!(
                        "${names} in the http handler's headers or URL is not in `allowedEnvVars`: Claude Code sends it empty"
                    ),
                    format!(
                        "add it: \"allowedEnvVars\": [{}]",
                        empty
                            .iter()
                            .map(|n| format!("{n:?}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    at,
                ));
            }
        }
        Runs::McpTool { server, tool, .. } => {
            if server.is_none_or(|s| s.trim().is_empty())
                || tool.is_none_or(|t| t.trim().is_empty())
            {
                out.push(lint(
                    "mcp-tool-incomplete",
                    Severity::Error,
                    "an mcp_tool handler without `server` or `tool`: it never runs".into(),
                    "name the MCP server (as in your MCP settings) and its tool".into(),
                    at,
                ));
            }
        }
        Runs::Model { .. } | Runs::Unknown(_) => {}
    }
    if let Some(t) = h.timeout
        && t <= 0.0
    {
        out.push(lint(
            "timeout-not-positive",
            Severity::Warning,
            format!("`timeout: {t}`: not a positive number of seconds, so the default is used"),
            "give the seconds to wait (e.g. 30), or remove `timeout`".into(),
            at,
        ));
    }
    let ignored: Vec<&str> = [
        (
            "async",
            h.is_async.is_some() && h.kind != HandlerType::Command,
        ),
        (
            "model",
            h.model.is_some() && !matches!(h.kind, HandlerType::Prompt | HandlerType::Agent),
        ),
    ]
    .into_iter()
    .filter_map(|(k, on)| on.then_some(k))
    .collect();
    if !ignored.is_empty() && !matches!(h.kind, HandlerType::Unknown(_)) {
        out.push(lint(
            "field-ignored-by-type",
            Severity::Warning,
            format!(
                "`{}` on a {} handler, which ignores it",
                ignored.join("`, `"),
                h.kind.as_str()
            ),
            "remove it (`async` is for command handlers, `model` for prompt and agent handlers)"
                .into(),
            at,
        ));
    }
    out
}

/// `command-relative-path`: the program, or an interpreter's script, named
/// by a path relative to the working folder.
fn relative_lint(
    command: &str,
    args: Option<&[String]>,
    at: Option<(usize, &Handler)>,
) -> Option<Lint> {
    let (program, rest): (String, Vec<String>) = match args {
        Some(a) => (command.trim().to_string(), a.to_vec()),
        None => {
            let line = crate::shell::parse_command_line(command);
            let call = line.calls.first()?;
            (call.program.clone(), call.args.clone())
        }
    };
    let fix = "name it from the project: \"$CLAUDE_PROJECT_DIR\"/<path> (hooks run in the session's current folder, which follows the agent's cd)";
    if program.contains('/') && relative(&program) {
        return Some(lint(
            "command-relative-path",
            Severity::Warning,
            format!(
                "{program:?} is relative to the folder the hook runs in: once the agent cds elsewhere it is not found (exit 127, fails open)"
            ),
            fix.into(),
            at,
        ));
    }
    let name = program.rsplit('/').next().unwrap_or(&program);
    if !INTERPRETERS.contains(&name) {
        return None;
    }
    let mut words = rest.iter();
    let script = loop {
        match words.next() {
            None => break None,
            Some(w) if INLINE.contains(&w.as_str()) => return None,
            Some(w) if w.starts_with('-') => {}
            Some(w) => break Some(w),
        }
    };
    match script {
        None => Some(lint(
            "command-relative-path",
            Severity::Error,
            format!(
                "{name} without a script: it reads its program from stdin, which is the hook's JSON payload"
            ),
            "name the script to run, by \"$CLAUDE_PROJECT_DIR\"/<path> or an absolute path".into(),
            at,
        )),
        Some(s) if relative(s) => Some(lint(
            "command-relative-path",
            Severity::Warning,
            format!(
                "{name}'s script {s:?} is relative to the folder the hook runs in: once the agent cds elsewhere it is not found"
            ),
            fix.into(),
            at,
        )),
        Some(_) => None,
    }
}

/// `matcher-permission-syntax`: a matcher written as a permission rule
/// (`Bash(rm:*)`, `Bash(rm|mv)`): as a regex it matches no tool name.
pub(super) fn permission_syntax(matcher: &str, at: Option<(usize, &Handler)>) -> Option<Lint> {
    let m = matcher.trim();
    let open = m.find('(')?;
    let tool = &m[..open];
    let looks_like_rule = m.ends_with(')')
        && !tool.is_empty()
        && tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && tool.starts_with(|c: char| c.is_ascii_uppercase());
    looks_like_rule.then(|| {
        lint(
            "matcher-permission-syntax",
            Severity::Error,
            format!(
                "matcher {m:?} is permission-rule syntax: matchers match the tool name only, so as a regex it matches no tool and the hook never fires"
            ),
            format!(
                "match the tool (\"matcher\": \"{tool}\") and test the arguments in the hook, or use the handler's `if` rule: \"if\": {m:?}"
            ),
            at,
        )
    })
}
