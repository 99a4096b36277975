//! What each lint means, with an example where it fires and its fix
//! (`hookscope hooks --explain ID`; docs/your-hooks.md#lints). Silencing a
//! lint is [`super::silence`]'s.
//!
//! Every settings example here is linted by a test: its lint fires on
//! `example` and no lint at all fires on `fixed`; every output example
//! goes through [`super::lint_output`] the same way.

use serde::Serialize;

use super::LINTS;

/// One lint's explanation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Explanation {
    /// The lint id ([`LINTS`]).
    pub id: &'static str,
    /// Why it matters: what Claude Code does with what was written.
    pub why: &'static str,
    /// Where it fires.
    pub example: Example,
    /// The same, fixed: no lint fires.
    pub fixed: Example,
}

/// An example for [`Explanation`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Example {
    /// A settings file (JSON), linted at Claude Code `version`.
    Settings {
        /// The version it is linted at.
        version: &'static str,
        /// The file's text.
        json: &'static str,
    },
    /// A hook's answer on `event`, read by [`super::lint_output`].
    Output {
        /// The event.
        event: &'static str,
        /// Its exit code.
        exit_code: i32,
        /// Its stdout.
        stdout: &'static str,
        /// The payload it was given (JSON).
        payload: &'static str,
    },
    /// No file shows it (the disk's state, a skill's frontmatter): in words.
    Described(&'static str),
}

const V: &str = "2.1.332";

const fn s(json: &'static str) -> Example {
    Example::Settings { version: V, json }
}

const fn at(version: &'static str, json: &'static str) -> Example {
    Example::Settings { version, json }
}

const fn out(event: &'static str, exit_code: i32, stdout: &'static str) -> Example {
    Example::Output {
        event,
        exit_code,
        stdout,
        payload: r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}"#,
    }
}

/// Every lint's explanation, in [`LINTS`] order.
pub const EXPLANATIONS: &[Explanation] = &[
    Explanation {
        id: "settings-unreadable",
        why: "hookscope reads only regular files up to its size cap, and Claude Code cannot use a file it cannot read: none of its hooks run.",
        example: Example::Described(
            "~/.claude/settings.json is a folder, a FIFO, larger than the cap, or not readable by you",
        ),
        fixed: Example::Described("a readable regular file"),
    },
    Explanation {
        id: "settings-invalid-json",
        why: "Claude Code skips a settings file that is not valid JSON: every hook in it is gone, silently.",
        example: s(r#"{"hooks": {"PreToolUse": [}"#),
        fixed: s(r#"{"hooks": {}}"#),
    },
    Explanation {
        id: "schema-invalid",
        why: "A hooks entry of the wrong shape fails Claude Code's schema check, and the whole file is skipped, its other hooks too.",
        example: s(r#"{"hooks": {"PreToolUse": {"matcher": "Bash"}}}"#),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-schema-invalid",
        why: "A matcher must be one string; anything else fails the schema check and Claude Code skips every hook of the file.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": ["Edit", "Write"], "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "unknown-event",
        why: "Event names are case-sensitive. An unknown key never fires; before 2.1.101 it made Claude Code skip the whole file.",
        example: s(
            r#"{"hooks": {"PreToolUser": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "managed-only-ignored",
        why: "allowManagedHooksOnly is read from managed (policy) settings only; anywhere else it restricts nothing.",
        example: Example::Described("\"allowManagedHooksOnly\": true in ~/.claude/settings.json"),
        fixed: Example::Described(
            "the key in the managed settings file (/etc/claude-code/managed-settings.json on Linux), or removed",
        ),
    },
    Explanation {
        id: "frontmatter-invalid",
        why: "A skill's or subagent's hooks live in its Markdown frontmatter; YAML that does not parse drops them.",
        example: Example::Described(
            "a SKILL.md whose frontmatter has a tab-indented `hooks:` block",
        ),
        fixed: Example::Described("frontmatter indented with spaces, valid YAML"),
    },
    Explanation {
        id: "matcher-dead-exact",
        why: "A matcher of letters, digits and _ is an exact tool name. An MCP tool is called mcp__<server>__<tool>, so the bare server name matches none.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "mcp__memory", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "mcp__memory__.*", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-case",
        why: "Matching is case-sensitive: `bash` is not the Bash tool, and the handler never fires.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-unanchored",
        why: "A regex matcher is tested unanchored, as JavaScript's RegExp.test: `Edit.*` matches NotebookEdit and MultiEdit too.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Edit.*", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-comma-version",
        why: "Before 2.1.191 a comma or space made the matcher a regex, so `Edit, Write` matched only a tool named with a comma in it.",
        example: at(
            "2.1.190",
            r#"{"hooks": {"PreToolUse": [{"matcher": "Edit,Write", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: at(
            "2.1.190",
            r#"{"hooks": {"PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-hyphen-version",
        why: "Before 2.1.195 a `-` made the matcher an unanchored regex, which also matches longer names that contain it.",
        example: at(
            "2.1.190",
            r#"{"hooks": {"PreToolUse": [{"matcher": "mcp__my-db__query", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: at(
            "2.1.190",
            r#"{"hooks": {"PreToolUse": [{"matcher": "^mcp__my-db__query$", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-ignored",
        why: "Some events have no matcher (UserPromptSubmit, Stop, …): a matcher there is ignored and the handler fires on every event.",
        example: s(
            r#"{"hooks": {"UserPromptSubmit": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-renamed-tool",
        why: "Task was renamed Agent in 2.1.63; a matcher naming only the old name never fires on later versions.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Task", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Agent", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-plugin-server",
        why: "A plugin's MCP servers are named mcp__plugin_<plugin>_<server>__<tool>; a matcher written with the bare server key never fires.",
        example: Example::Described(
            "a plugin `acme` whose hooks.json matches `mcp__db__.*` for its own server `db`",
        ),
        fixed: Example::Described("`mcp__plugin_acme_db__.*`"),
    },
    Explanation {
        id: "matcher-tool-absent",
        why: "Native builds have no Glob and Grep tools since 2.1.117 (search runs through Bash), so a matcher naming only them never fires there.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Grep", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-catastrophic-regex",
        why: "Claude Code tests matchers with JavaScript's backtracking engine; nested quantifiers can take exponential time on a long tool name and stall every tool call.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "^(Bash.*)+$", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-budget",
        why: "The lints try each regex on tool names within a time budget; past it, slow patterns are not tried and some lints may be missing.",
        example: Example::Described("thousands of matchers with nested quantifiers"),
        fixed: Example::Described("the slow patterns rewritten (see matcher-catastrophic-regex)"),
    },
    Explanation {
        id: "if-non-tool-event",
        why: "`if` is honoured on tool events only; on any other event a handler with `if` never runs.",
        example: s(
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "if": "Bash(git *)"}]}]}}"#,
        ),
        fixed: s(r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#),
    },
    Explanation {
        id: "timeout-ms",
        why: "`timeout` is in seconds: 5000 is 83 minutes, and a hung hook holds the agent that long.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout": 5000}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout": 5}]}]}}"#,
        ),
    },
    Explanation {
        id: "handler-type-not-allowed",
        why: "prompt and agent handlers run only on some events, and SessionStart and Setup take command and mcp_tool only; elsewhere the handler is rejected.",
        example: s(
            r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "prompt", "prompt": "Summarize the repo"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "once-outside-skill",
        why: "`once: true` is honoured in a skill's frontmatter only; in settings the handler runs every time.",
        example: s(
            r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true", "once": true}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "on-failure-version",
        why: "`onFailure: \"block\"` is honoured from 2.1.295, on command and http handlers; before, a failing hook lets the action through.",
        example: at(
            "2.1.290",
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "onFailure": "block"}]}]}}"#,
        ),
        fixed: at(
            "2.1.290",
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "command-not-found",
        why: "A program that is not there exits 127: a non-blocking error, so the action goes through as if there were no hook; with `onFailure: \"block\"` it blocks every action instead.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/nonexistent/guard.sh"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "not-executable",
        why: "A script without execute permission exits 126: a non-blocking error, the action goes through.",
        example: Example::Described(
            "\"command\": \"/home/me/hooks/guard.sh\" where guard.sh is mode 644",
        ),
        fixed: Example::Described(
            "chmod +x /home/me/hooks/guard.sh, or \"command\": \"sh /home/me/hooks/guard.sh\"",
        ),
    },
    Explanation {
        id: "rule-set-unusable",
        why: "`hookscope hook` answers its --on-error when its rule file does not load: by default the call goes through, and only stderr (hidden on exit 0) says why; the rules protect nothing.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "hookscope hook --rules /nonexistent/rules.toml"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "output-flat-permission-decision",
        why: "A PreToolUse decision belongs in hookSpecificOutput; at the top level Claude Code ignores it and the call proceeds.",
        example: out("PreToolUse", 0, r#"{"permissionDecision": "deny"}"#),
        fixed: out(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm"}}"#,
        ),
    },
    Explanation {
        id: "output-hook-event-name",
        why: "hookSpecificOutput must name the event it answers; without it (or with another) Claude Code rejects the output.",
        example: out(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no rm"}}"#,
        ),
        fixed: out(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm"}}"#,
        ),
    },
    Explanation {
        id: "output-decision-approve",
        why: "`decision: \"approve\"` is deprecated; PreToolUse answers with hookSpecificOutput.permissionDecision.",
        example: out("PreToolUse", 0, r#"{"decision": "approve"}"#),
        fixed: out(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}"#,
        ),
    },
    Explanation {
        id: "exit2-no-effect",
        why: "Exit 2 blocks only on some events; on the others (SessionStart, Notification, PostToolUse after the fact…) it is shown or ignored, and nothing is stopped.",
        example: Example::Output {
            event: "SessionStart",
            exit_code: 2,
            stdout: "",
            payload: r#"{"hook_event_name":"SessionStart","source":"startup"}"#,
        },
        fixed: Example::Output {
            event: "SessionStart",
            exit_code: 0,
            stdout: "",
            payload: r#"{"hook_event_name":"SessionStart","source":"startup"}"#,
        },
    },
    Explanation {
        id: "exit-1-policy",
        why: "Only exit 2 (or a JSON decision) blocks; exit 1 is a non-blocking error, so a guard that exits 1 lets the action through.",
        example: out("PreToolUse", 1, ""),
        fixed: out("PreToolUse", 0, ""),
    },
    Explanation {
        id: "exit-2-overrides-allow",
        why: "On exit 2 stdout's JSON is not read: the action is blocked whatever the JSON says.",
        example: out(
            "PreToolUse",
            2,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}"#,
        ),
        fixed: out(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}"#,
        ),
    },
    Explanation {
        id: "stdout-not-json",
        why: "Claude Code reads stdout as JSON only when it is JSON from its first character; a line before it (a shell profile's echo) turns it into plain text.",
        example: out(
            "PreToolUse",
            0,
            "profile loaded\n{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\"}}",
        ),
        fixed: out(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}"#,
        ),
    },
    Explanation {
        id: "updated-input-missing-field",
        why: "updatedInput replaces the whole tool_input: a field it leaves out is gone, and the tool fails or does something else.",
        example: out(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"timeout": 5000}}}"#,
        ),
        fixed: out(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "rm -rf build", "timeout": 5000}}}"#,
        ),
    },
    Explanation {
        id: "command-empty",
        why: "A command handler with nothing to run never runs.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ""}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "command-with-args",
        why: "With `args` (exec form) `command` is the program alone, run without a shell: `python3 /opt/x.py` is looked up as one file name and not found.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 /opt/hooks/check.py", "args": ["--strict"]}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3", "args": ["/opt/hooks/check.py", "--strict"]}]}]}}"#,
        ),
    },
    Explanation {
        id: "command-relative-path",
        why: "Hooks run in the session's current folder, which follows the agent's `cd`: a relative script path works until then and fails with 127 after. An interpreter without a script reads the payload as its program.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./hooks/check.sh"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/hooks/check.sh"}]}]}}"#,
        ),
    },
    Explanation {
        id: "http-url-missing",
        why: "An http handler without `url` has nowhere to POST and never runs.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.1:8080/hook"}]}]}}"#,
        ),
    },
    Explanation {
        id: "http-env-not-allowed",
        why: "Claude Code expands $VAR in an http handler's headers and URL only for names listed in allowedEnvVars; any other is sent empty (`Bearer `).",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.1:8080/hook", "headers": {"Authorization": "Bearer $TOKEN"}}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.1:8080/hook", "headers": {"Authorization": "Bearer $TOKEN"}, "allowedEnvVars": ["TOKEN"]}]}]}}"#,
        ),
    },
    Explanation {
        id: "mcp-tool-incomplete",
        why: "An mcp_tool handler needs both the server and the tool to call; without either it never runs.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "mcp_tool", "tool": "check"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "mcp_tool", "server": "guard", "tool": "check"}]}]}}"#,
        ),
    },
    Explanation {
        id: "timeout-not-positive",
        why: "A timeout of 0 or less is not a timeout: Claude Code uses the event's default instead.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout": 0}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout": 30}]}]}}"#,
        ),
    },
    Explanation {
        id: "field-ignored-by-type",
        why: "`async` applies to command handlers and `model` to prompt and agent handlers; on another type the field is ignored.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.1:8080/hook", "async": true}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.1:8080/hook"}]}]}}"#,
        ),
    },
    Explanation {
        id: "duplicate-handler",
        why: "Identical handlers (same command, same event and matcher) run once, so the second one is not the extra check it looks like.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}, {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-permission-syntax",
        why: "A matcher tests the tool name only; `Bash(rm:*)` is permission-rule syntax and matches no tool. The handler's `if` takes a permission rule.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash(rm:*)", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "if": "Bash(rm:*)"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-unknown-value",
        why: "On Notification, SessionStart, SessionEnd, PreCompact and the like the matcher tests a field with a fixed set of values; a name outside the set never matches.",
        example: s(
            r#"{"hooks": {"Notification": [{"matcher": "permission-prompt", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"Notification": [{"matcher": "permission_prompt", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "matcher-no-tool",
        why: "A regex that matches no tool the version has (and names no MCP server) never fires; often a typo or a tool of another agent.",
        example: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "^(Shell|Exec)$", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
        fixed: s(
            r#"{"hooks": {"PreToolUse": [{"matcher": "^(Bash|PowerShell)$", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        ),
    },
    Explanation {
        id: "allow-unknown-lint",
        why: "A silence that names no lint id (a typo) silences nothing, and the lint it meant still fires.",
        example: s(
            r##"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true # hookscope: allow comand-relative-path"}]}]}}"##,
        ),
        fixed: s(
            r##"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true # hookscope: allow command-relative-path"}]}]}}"##,
        ),
    },
    Explanation {
        id: "stop-hook-active-block",
        why: "A Stop hook that blocks again while stop_hook_active is true keeps the agent looping until Claude Code's block cap (8 in a row).",
        example: Example::Output {
            event: "Stop",
            exit_code: 0,
            stdout: r#"{"decision": "block", "reason": "run the tests"}"#,
            payload: r#"{"hook_event_name":"Stop","stop_hook_active":true}"#,
        },
        fixed: Example::Output {
            event: "Stop",
            exit_code: 0,
            stdout: "",
            payload: r#"{"hook_event_name":"Stop","stop_hook_active":true}"#,
        },
    },
];

/// The explanation of lint `id`, or `None` when no lint has that id.
pub fn explain(id: &str) -> Option<&'static Explanation> {
    EXPLANATIONS.iter().find(|e| e.id == id)
}

/// The one-line description of lint `id` ([`LINTS`]).
pub fn describe(id: &str) -> Option<&'static str> {
    LINTS.iter().find(|(l, _)| *l == id).map(|(_, d)| *d)
}

/// The lint id closest to `id` (for "did you mean"), when one is close.
pub fn closest_id(id: &str) -> Option<&'static str> {
    LINTS
        .iter()
        .map(|(l, _)| (strsim::levenshtein(id, l), *l))
        .filter(|(d, l)| *d <= (l.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, l)| l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lint_is_explained_once_in_order() {
        let ids: Vec<&str> = EXPLANATIONS.iter().map(|e| e.id).collect();
        let mut lints: Vec<&str> = LINTS.iter().map(|(l, _)| *l).collect();
        let mut sorted_ids = ids.clone();
        sorted_ids.sort_unstable();
        lints.sort_unstable();
        assert_eq!(sorted_ids, lints);
    }

    #[test]
    fn a_typo_gets_the_closest_id() {
        assert_eq!(
            closest_id("comand-relative-path"),
            Some("command-relative-path")
        );
        assert_eq!(closest_id("zzzz"), None);
    }
}
