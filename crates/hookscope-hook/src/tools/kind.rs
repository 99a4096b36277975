//! Coarse tool classification for search and display: `tool_kind` and
//! `tool_resolved`, following ai_r's `find_tool_calls` rules literally
//! (docs/tool-calls.md#tool-kind-and-resolved-name, `src/ai_r/events/_common.py`).

use super::names::canonical_of;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The coarse class of a tool call (docs/tool-calls.md#tool-kind-and-resolved-name vocabulary:
/// `edit, write, read, bash, task, skill, mcp, web, other`).
/// Serializes as the lowercase string of [`ToolKind::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolKind {
    /// In-place file edits (`Edit`, `MultiEdit`, `NotebookEdit`, `apply_patch`, …).
    Edit,
    /// Whole-file writes (`Write`, `write_file`, `create_file`, `file`).
    Write,
    /// File reads (`Read`, `read_file`, `view`, `cat`, `open`).
    Read,
    /// Shell commands (`Bash`, Codex `shell`, `exec_command`, …).
    Bash,
    /// Subagent dispatch (`Task`, `Agent`, `spawn_agent`).
    Task,
    /// Skill / slash-command invocation (`Skill`, `SlashCommand`).
    Skill,
    /// Any `mcp__<server>__<tool>` tool.
    Mcp,
    /// Web fetch / search tools.
    Web,
    /// Everything else.
    Other,
}

impl ToolKind {
    /// The lowercase vocabulary word: `"edit"`, `"write"`, `"read"`, `"bash"`,
    /// `"task"`, `"skill"`, `"mcp"`, `"web"` or `"other"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Edit => "edit",
            ToolKind::Write => "write",
            ToolKind::Read => "read",
            ToolKind::Bash => "bash",
            ToolKind::Task => "task",
            ToolKind::Skill => "skill",
            ToolKind::Mcp => "mcp",
            ToolKind::Web => "web",
            ToolKind::Other => "other",
        }
    }
}

impl std::fmt::Display for ToolKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

const TASK_NAMES: &[&str] = &["task", "agent", "spawn_agent"];
const SKILL_NAMES: &[&str] = &["skill", "slashcommand"];
const WEB_NAMES: &[&str] = &[
    "webfetch",
    "web_fetch",
    "websearch",
    "web_search",
    "google_web_search",
];
const EDIT_NAMES: &[&str] = &[
    "edit",
    "multiedit",
    "multi_edit",
    "notebookedit",
    "str_replace",
    "patch",
    "apply_patch",
    "edit_file",
    "update_file",
    "file_edit",
];
const WRITE_NAMES: &[&str] = &["write", "write_file", "create_file", "file"];
const READ_NAMES: &[&str] = &["read", "read_file", "view", "cat", "open"];
const BASH_NAMES: &[&str] = &[
    "bash",
    "shell",
    "shell_command",
    "exec_command",
    "local_shell_call",
    "run_command",
    "run_terminal_cmd",
    "terminal",
];

/// Input keys that name a subagent, in priority order (docs/tool-calls.md#tool-kind-and-resolved-name).
const TASK_KEYS: &[&str] = &["subagent_type", "agent_type", "subagent"];
/// Input keys that name a skill, in priority order (docs/tool-calls.md#tool-kind-and-resolved-name).
const SKILL_KEYS: &[&str] = &["skill", "name", "command"];

/// Match `^mcp__(.+?)__(.+)$` (regex-crate semantics: `.` excludes `\n`,
/// `$` is end of text) and return `(server, tool)` with the non-greedy
/// (shortest) server.
fn mcp_regex_parts(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp__")?;
    if rest.contains('\n') {
        return None;
    }
    // The server must be at least one char; take the first "__" after it
    // that still leaves a non-empty tool.
    let first_len = rest.chars().next()?.len_utf8();
    let mut from = first_len;
    while let Some(pos) = rest.get(from..).and_then(|s| s.find("__")) {
        let split = from + pos;
        let tool = &rest[split + 2..];
        if !tool.is_empty() {
            return Some((&rest[..split], tool));
        }
        // Extending the server by one char cannot help when the tool is
        // empty at the first candidate, except by moving past this "__".
        from = split + 1;
    }
    None
}

/// Classify a tool by name (docs/tool-calls.md#tool-kind-and-resolved-name), in this order:
/// 1. name matches `^mcp__(.+?)__(.+)$` → [`ToolKind::Mcp`];
/// 2. lowercase name in {task, agent, spawn_agent} → [`ToolKind::Task`];
/// 3. {skill, slashcommand} → [`ToolKind::Skill`];
/// 4. {webfetch, web_fetch, websearch, web_search, google_web_search} → [`ToolKind::Web`];
/// 5. the edit, write, read, bash name sets (lowercase) in that order;
/// 6. else [`ToolKind::Other`].
///
/// Beyond the literal name sets (hookscope's own rule): a
/// harness spelling in [`TOOL_ALIASES`](super::TOOL_ALIASES) classifies as
/// its canonical tool ([`canonical_of`]: Droid's `Execute` → bash, `Create`
/// → write, `FetchUrl` → web), and every name that
/// [`parse_tool_call`](super::parse_tool_call) types as a
/// [`BashCall`](super::BashCall) is bash, Codex's `shell_command` included
/// (with or without arguments). Tools with no canonical kind stay `Other`
/// (`Grep`, `Glob`, `TodoWrite`). `input` is accepted for signature
/// symmetry with [`tool_resolved`]; the kind depends on the name only.
pub fn tool_kind(name: &str, input: Option<&Value>) -> ToolKind {
    let _ = input;
    if mcp_regex_parts(name).is_some() {
        return ToolKind::Mcp;
    }
    let name = canonical_of(name).unwrap_or(name);
    let lower = name.to_lowercase();
    let l = lower.as_str();
    let table: [(&[&str], ToolKind); 7] = [
        (TASK_NAMES, ToolKind::Task),
        (SKILL_NAMES, ToolKind::Skill),
        (WEB_NAMES, ToolKind::Web),
        (EDIT_NAMES, ToolKind::Edit),
        (WRITE_NAMES, ToolKind::Write),
        (READ_NAMES, ToolKind::Read),
        (BASH_NAMES, ToolKind::Bash),
    ];
    table
        .iter()
        .find(|(set, _)| set.contains(&l))
        .map_or(ToolKind::Other, |(_, kind)| *kind)
}

/// What a call resolves to, for the kinds that have a target (docs/tool-calls.md#tool-kind-and-resolved-name):
/// * `Mcp` → `"<server>:<tool>"` (non-greedy server: `mcp__a__b__c` → `a:b__c`);
/// * `Task` → the first non-empty string among `subagent_type`,
///   `agent_type`, `subagent` in the input object;
/// * `Skill` → the first non-empty string among `skill`, `name`, `command`,
///   cut to its first whitespace-separated token with leading `/` stripped
///   (`"/review-pr 123"` → `review-pr`);
/// * every other kind, or no usable field → `None`.
pub fn tool_resolved(name: &str, input: Option<&Value>) -> Option<String> {
    if let Some((server, tool)) = mcp_regex_parts(name) {
        return Some(format!("{server}:{tool}"));
    }
    let obj = input.and_then(Value::as_object);
    let first_str = |keys: &[&str]| -> Option<String> {
        let obj = obj?;
        keys.iter()
            .filter_map(|k| obj.get(*k).and_then(Value::as_str))
            .find(|s| !s.is_empty())
            .map(str::to_string)
    };
    match tool_kind(name, input) {
        ToolKind::Task => first_str(TASK_KEYS),
        ToolKind::Skill => {
            let text = first_str(SKILL_KEYS)?;
            let token = text.split_whitespace().next()?;
            let stripped = token.trim_start_matches('/');
            (!stripped.is_empty()).then(|| stripped.to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mcp_kind_and_resolution() {
        assert_eq!(tool_kind("mcp__github__get_issue", None), ToolKind::Mcp);
        assert_eq!(
            tool_resolved("mcp__github__get_issue", None).as_deref(),
            Some("github:get_issue")
        );
        assert_eq!(
            tool_resolved("mcp__a__b__c", None).as_deref(),
            Some("a:b__c")
        );
        assert_eq!(tool_resolved("mcp___a__b", None).as_deref(), Some("_a:b"));
        assert_eq!(tool_resolved("mcp__a____", None).as_deref(), Some("a:__"));
        assert_eq!(tool_kind("mcp__memory", None), ToolKind::Other);
        assert_eq!(tool_kind("mcp__a__", None), ToolKind::Other);
        assert_eq!(tool_kind("mcp__a\n__b", None), ToolKind::Other);
        assert_eq!(tool_kind("MCP__a__b", None), ToolKind::Other);
    }

    #[test]
    fn mcp_parts_agree_with_regex_crate() {
        let re = regex::Regex::new(r"^mcp__(.+?)__(.+)$").unwrap();
        for name in [
            "mcp__a__b",
            "mcp__a__b__c",
            "mcp___a__b",
            "mcp____b",
            "mcp_____b",
            "mcp__a____",
            "mcp__a___",
            "mcp__é__ü",
            "mcp__a\n__b",
            "mcp__a__b\n",
            "mcp__x",
            "mcp__",
            "mcp__srv__tool_with__x",
        ] {
            let want = re.captures(name).map(|c| {
                (
                    c.get(1).map_or("", |m| m.as_str()),
                    c.get(2).map_or("", |m| m.as_str()),
                )
            });
            assert_eq!(mcp_regex_parts(name), want, "name {name:?}");
        }
    }

    #[test]
    fn task_kind_and_resolution() {
        let input = json!({"description": "d", "prompt": "p", "subagent_type": "Explore"});
        assert_eq!(tool_kind("Task", Some(&input)), ToolKind::Task);
        assert_eq!(tool_kind("Agent", None), ToolKind::Task);
        assert_eq!(tool_kind("spawn_agent", None), ToolKind::Task);
        assert_eq!(
            tool_resolved("Agent", Some(&input)).as_deref(),
            Some("Explore")
        );
        let codex = json!({"agent_type": "worker", "subagent": "x"});
        assert_eq!(
            tool_resolved("spawn_agent", Some(&codex)).as_deref(),
            Some("worker")
        );
        assert_eq!(tool_resolved("Task", Some(&json!({"prompt": "p"}))), None);
        assert_eq!(tool_resolved("Task", Some(&json!("text"))), None);
        assert_eq!(tool_resolved("Task", None), None);
    }

    #[test]
    fn skill_kind_and_resolution() {
        assert_eq!(tool_kind("Skill", None), ToolKind::Skill);
        assert_eq!(tool_kind("SlashCommand", None), ToolKind::Skill);
        assert_eq!(
            tool_resolved("Skill", Some(&json!({"skill": "pdf"}))).as_deref(),
            Some("pdf")
        );
        assert_eq!(
            tool_resolved("SlashCommand", Some(&json!({"command": "/review-pr 123"}))).as_deref(),
            Some("review-pr")
        );
        assert_eq!(
            tool_resolved("Skill", Some(&json!({"name": "x", "command": "/y"}))).as_deref(),
            Some("x")
        );
        assert_eq!(tool_resolved("Skill", Some(&json!({"skill": "/"}))), None);
        assert_eq!(tool_resolved("Skill", Some(&json!({"skill": "   "}))), None);
    }

    #[test]
    fn web_and_base_classes() {
        for n in [
            "WebFetch",
            "web_fetch",
            "WebSearch",
            "web_search",
            "google_web_search",
        ] {
            assert_eq!(tool_kind(n, None), ToolKind::Web, "{n}");
        }
        for n in [
            "Edit",
            "MultiEdit",
            "NotebookEdit",
            "apply_patch",
            "str_replace",
        ] {
            assert_eq!(tool_kind(n, None), ToolKind::Edit, "{n}");
        }
        for n in ["Write", "write_file", "create_file", "file"] {
            assert_eq!(tool_kind(n, None), ToolKind::Write, "{n}");
        }
        for n in ["Read", "read_file", "view", "cat", "open"] {
            assert_eq!(tool_kind(n, None), ToolKind::Read, "{n}");
        }
        for n in [
            "Bash",
            "shell",
            "exec_command",
            "local_shell_call",
            "run_terminal_cmd",
        ] {
            assert_eq!(tool_kind(n, None), ToolKind::Bash, "{n}");
        }
        // Beyond the literal name sets: TOOL_ALIASES spellings
        // classify as their canonical tool, and every BashCall name is bash.
        assert_eq!(tool_kind("Execute", None), ToolKind::Bash);
        assert_eq!(tool_kind("shell_command", None), ToolKind::Bash);
        assert_eq!(
            tool_kind("shell_command", Some(&json!({"command": "ls"}))),
            ToolKind::Bash
        );
        assert_eq!(tool_kind("Create", None), ToolKind::Write);
        assert_eq!(tool_kind("FetchUrl", None), ToolKind::Web);
        assert_eq!(tool_kind("Task", None), ToolKind::Task);
        assert_eq!(tool_kind("ExitSpecMode", None), ToolKind::Other);
        // No canonical kind: still Other.
        for n in ["Grep", "Glob", "TodoWrite", "update_plan"] {
            assert_eq!(tool_kind(n, None), ToolKind::Other, "{n}");
        }
        assert_eq!(tool_resolved("Bash", Some(&json!({"command": "ls"}))), None);
    }

    /// Every name `parse_tool_call` types as a BashCall classifies as bash,
    /// with or without an input (`shell_command` without args is
    /// still `bash`).
    #[test]
    fn every_bash_call_is_bash() {
        use crate::tools::{OnError, ToolCall, parse_tool_call};
        for name in [
            "Bash",
            "Execute",
            "shell",
            "shell_command",
            "exec_command",
            "local_shell_call",
        ] {
            let input = match name {
                "shell" | "local_shell_call" => json!({"command": ["ls"]}),
                "exec_command" => json!({"cmd": "ls"}),
                _ => json!({"command": "ls"}),
            };
            let call = parse_tool_call(name, Some(&input), OnError::Raise)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(matches!(call, ToolCall::Bash(_)), "{name}: {call:?}");
            assert_eq!(call.kind(), ToolKind::Bash, "{name}");
            assert_eq!(tool_kind(name, None), ToolKind::Bash, "{name}");
            assert_eq!(tool_kind(name, Some(&json!({}))), ToolKind::Bash, "{name}");
        }
    }

    #[test]
    fn kind_strings_and_serialization() {
        assert_eq!(ToolKind::Mcp.as_str(), "mcp");
        assert_eq!(ToolKind::Other.to_string(), "other");
        assert_eq!(serde_json::to_string(&ToolKind::Edit).unwrap(), "\"edit\"");
        assert_eq!(serde_json::to_string(&ToolKind::Web).unwrap(), "\"web\"");
    }
}
