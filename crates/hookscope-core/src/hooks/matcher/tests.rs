//! Every case of docs/contract.md#matchers, by version, and the docs/contract.md#known-pitfalls cases a matcher can
//! show.

use serde_json::json;

use super::*;

fn v(s: &str) -> Version {
    Version::parse(s)
}

fn matches(event: &str, matcher: &str, value: &str, version: &str) -> bool {
    check(event, Some(matcher), Some(value), &v(version)).matches
}

#[test]
fn star_empty_and_absent_match_everything() {
    let v = v("2.1.332");
    for m in [None, Some(""), Some("*")] {
        let verdict = check("PreToolUse", m, Some("Bash"), &v);
        assert!(verdict.matches);
        assert_eq!(verdict.kind, MatcherKind::All);
    }
    assert_eq!(
        check("PreToolUse", None, Some("Bash"), &v).reason,
        "no matcher: every tool_name matches"
    );
}

#[test]
fn exact_lists_are_exact_and_case_sensitive() {
    assert!(matches("PreToolUse", "Edit|Write", "Write", "2.1.332"));
    assert!(!matches(
        "PreToolUse",
        "Edit|Write",
        "NotebookEdit",
        "2.1.332"
    ));
    assert!(!matches("PreToolUse", "bash", "Bash", "2.1.332"));
    let verdict = check("PreToolUse", Some("bash"), Some("Bash"), &v("2.1.332"));
    assert_eq!(
        verdict.hint.as_deref(),
        Some("exact names are case-sensitive: \"bash\" and \"Bash\" differ only in case")
    );
    assert_eq!(
        classify("PreToolUse", Some("Edit|Write"), &v("2.1.332")),
        MatcherKind::Exact {
            names: vec!["Edit".into(), "Write".into()]
        }
    );
}

#[test]
fn comma_and_spaces_are_exact_from_2_1_191() {
    assert!(matches("PreToolUse", "Edit, Write", "Write", "2.1.191"));
    assert_eq!(
        classify("PreToolUse", Some("Edit, Write"), &v("2.1.191")),
        MatcherKind::Exact {
            names: vec!["Edit".into(), "Write".into()]
        }
    );
    // Before: a regex that only matches the literal text "Edit, Write".
    assert!(!matches("PreToolUse", "Edit, Write", "Write", "2.1.190"));
    let verdict = check(
        "PreToolUse",
        Some("Edit, Write"),
        Some("Write"),
        &v("2.1.190"),
    );
    assert_eq!(
        verdict.reason,
        "matcher \"Edit, Write\" is a regular expression, unanchored: no match in \"Write\" (before 2.1.191 ',' and spaces make a matcher a regular expression; Claude Code 2.1.190 here)"
    );
}

#[test]
fn hyphen_is_exact_from_2_1_195() {
    // 2.1.195+: exact, so `code-reviewer` does not hit `senior-code-reviewer`.
    assert!(!matches(
        "SubagentStart",
        "code-reviewer",
        "senior-code-reviewer",
        "2.1.195"
    ));
    assert!(matches(
        "SubagentStart",
        "code-reviewer",
        "code-reviewer",
        "2.1.195"
    ));
    // Before: an unanchored regex.
    assert!(matches(
        "SubagentStart",
        "code-reviewer",
        "senior-code-reviewer",
        "2.1.194"
    ));
    // A bare `mcp__brave-search` matched every tool of that server before 2.1.195 …
    assert!(matches(
        "PreToolUse",
        "mcp__brave-search",
        "mcp__brave-search__web",
        "2.1.194"
    ));
    // … and none after.
    let after = check(
        "PreToolUse",
        Some("mcp__brave-search"),
        Some("mcp__brave-search__web"),
        &v("2.1.195"),
    );
    assert!(!after.matches);
    assert_eq!(
        after.hint.as_deref(),
        Some("did you mean \"mcp__brave-search__.*\"?")
    );
}

#[test]
fn everything_else_is_an_unanchored_regex() {
    assert!(matches("PreToolUse", "Edit.*", "NotebookEdit", "2.1.332"));
    let verdict = check(
        "PreToolUse",
        Some("Edit.*"),
        Some("NotebookEdit"),
        &v("2.1.332"),
    );
    assert_eq!(
        verdict.reason,
        "matcher \"Edit.*\" is a regular expression, unanchored: it matches \"NotebookEdit\" at \"Edit\""
    );
    assert_eq!(
        verdict.hint.as_deref(),
        Some("it matches inside longer names; anchor it as \"^(Edit.*)$\" to match whole names")
    );
    // ECC PR #2838: `mcp__.*` also matches `notmcp__x`.
    assert!(matches("PreToolUse", "mcp__.*", "notmcp__x", "2.1.332"));
    assert!(!matches("PreToolUse", "^mcp__.*", "notmcp__x", "2.1.332"));
    assert!(matches("PreToolUse", "^(Edit|Write)$", "Write", "2.1.332"));
    // A pattern with its own ^…$ is not called unanchored.
    let verdict = check(
        "PreToolUse",
        Some("^(Edit|Write)$"),
        Some("Write"),
        &v("2.1.332"),
    );
    assert_eq!(
        verdict.reason,
        "matcher \"^(Edit|Write)$\" is a regular expression, anchored by its ^…$: it matches \"Write\""
    );
    // Lookahead, as JavaScript has.
    assert!(matches("PreToolUse", "^(?!Read).*", "Bash", "2.1.332"));
    assert!(!matches("PreToolUse", "^(?!Read).*", "Read", "2.1.332"));
}

#[test]
fn a_missed_exact_name_says_which_value_missed() {
    // User test: `--match PreToolUse Read` against matcher "Bash" said "no
    // tool is called exactly that", though a Bash tool exists.
    let verdict = check("PreToolUse", Some("Bash"), Some("Read"), &v("2.1.332"));
    assert_eq!(
        verdict.reason,
        "matcher \"Bash\" is an exact name (letters, digits, _, -, spaces, ',' and '|'): tool_name \"Read\" is not \"Bash\""
    );
    assert_eq!(verdict.hint, None);
    let list = check(
        "PreToolUse",
        Some("Edit|Write"),
        Some("Read"),
        &v("2.1.332"),
    );
    assert!(
        list.reason
            .ends_with(": tool_name \"Read\" is not one of them"),
        "{}",
        list.reason
    );
}

#[test]
fn a_bare_mcp_server_matches_no_tool() {
    let verdict = check(
        "PreToolUse",
        Some("mcp__memory"),
        Some("mcp__memory__create"),
        &v("2.1.332"),
    );
    assert!(!verdict.matches);
    assert_eq!(
        verdict.reason,
        "matcher \"mcp__memory\" is an exact name (letters, digits, _, -, spaces, ',' and '|'): no tool is called exactly that"
    );
    assert_eq!(
        verdict.hint.as_deref(),
        Some("did you mean \"mcp__memory__.*\"?")
    );
    assert!(matches(
        "PreToolUse",
        "mcp__memory__.*",
        "mcp__memory__create",
        "2.1.332"
    ));
}

#[test]
fn a_plugin_server_needs_its_plugin_prefix() {
    let verdict = check(
        "PreToolUse",
        Some("mcp__memory"),
        Some("mcp__plugin_tools_memory__create"),
        &v("2.1.332"),
    );
    assert!(!verdict.matches);
    assert_eq!(
        verdict.hint.as_deref(),
        Some(
            "plugin servers are named mcp__plugin_<plugin>_<server>: did you mean \"mcp__plugin_tools_memory__.*\"?"
        )
    );
}

#[test]
fn filechanged_and_stopfailure_keep_the_narrow_alphabet() {
    // Only `|` separates; `-` and `.` make a regex.
    assert_eq!(
        classify("StopFailure", Some("rate_limit|overloaded"), &v("2.1.332")),
        MatcherKind::Exact {
            names: vec!["rate_limit".into(), "overloaded".into()]
        }
    );
    assert_eq!(
        classify("StopFailure", Some("rate_limit, overloaded"), &v("2.1.332")),
        MatcherKind::Regex {
            pattern: "rate_limit, overloaded".into()
        }
    );
    // `.envrc|.env` is a regex: `.env` also matches `x.envy`.
    assert!(matches("FileChanged", ".envrc|.env", ".env", "2.1.332"));
    assert!(matches("FileChanged", ".envrc|.env", "x.envy", "2.1.332"));
}

#[test]
fn filechanged_matches_the_file_name() {
    let p = json!({"hook_event_name": "FileChanged", "file_path": "/home/dev/work/notes.txt"});
    let value = matcher_value("FileChanged", &p, &v("2.1.332"));
    assert_eq!(value.as_deref(), Some("notes.txt"));
    assert!(
        check(
            "FileChanged",
            Some("notes.txt|README.md"),
            value.as_deref(),
            &v("2.1.332")
        )
        .matches
    );
}

#[test]
fn events_without_matchers_ignore_them() {
    for event in [
        "UserPromptSubmit",
        "PostToolBatch",
        "Stop",
        "TaskCreated",
        "CwdChanged",
    ] {
        let verdict = check(event, Some("Bash"), None, &v("2.1.332"));
        assert!(verdict.matches, "{event}");
        assert_eq!(verdict.kind, MatcherKind::Ignored);
    }
    assert_eq!(
        check("Stop", Some("Bash"), None, &v("2.1.332")).reason,
        "Stop has no matcher support: the matcher \"Bash\" is ignored and the handler always fires"
    );
}

#[test]
fn the_matched_field_follows_the_event() {
    let v = v("2.1.332");
    assert_eq!(matcher_field("PreToolUse", &v), Some("tool_name"));
    assert_eq!(matcher_field("SessionStart", &v), Some("source"));
    assert_eq!(matcher_field("SubagentStop", &v), Some("agent_type"));
    assert_eq!(matcher_field("PreCompact", &v), Some("trigger"));
    assert_eq!(matcher_field("Stop", &v), None);
    // PreModelSwitch is newer than 2.1.250.
    assert_eq!(
        matcher_field("PreModelSwitch", &Version::parse("2.1.250")),
        None
    );
    assert!(matches(
        "SessionStart",
        "startup|resume",
        "resume",
        "2.1.332"
    ));
    assert!(!matches("SessionStart", "startup", "compact", "2.1.332"));
}

#[test]
fn plugin_agents_need_an_anchored_regex() {
    // The colon forces the regex path: `my-plugin:reviewer` also matches
    // `my-plugin:reviewer-2`.
    assert!(matches(
        "SubagentStart",
        "my-plugin:reviewer",
        "my-plugin:reviewer-2",
        "2.1.332"
    ));
    assert!(!matches(
        "SubagentStart",
        "^my-plugin:reviewer$",
        "my-plugin:reviewer-2",
        "2.1.332"
    ));
}

#[test]
fn an_invalid_regex_is_said() {
    let verdict = check("PreToolUse", Some("Bash("), Some("Bash"), &v("2.1.332"));
    assert!(!verdict.matches);
    assert!(matches!(verdict.kind, MatcherKind::Invalid { .. }));
    assert!(
        verdict
            .reason
            .starts_with("matcher \"Bash(\" is not a valid regular expression (")
    );
    assert!(
        verdict
            .reason
            .ends_with("Claude Code's schema check drops every hook of this file")
    );
}

#[test]
fn a_missing_value_cannot_match_a_pattern() {
    let verdict = check("SessionStart", Some("startup"), None, &v("2.1.332"));
    assert!(!verdict.matches);
    assert_eq!(
        verdict.reason,
        "the payload has no source: the exact matcher \"startup\" cannot match"
    );
}

fn bash(command: &str) -> serde_json::Value {
    json!({"tool_name": "Bash", "cwd": "/w", "tool_input": {"command": command}})
}

#[test]
fn if_checks_every_simple_command() {
    let v = v("2.1.332");
    assert!(
        check_if(
            "PreToolUse",
            "Bash(git *)",
            &bash("npm test && git push"),
            &v
        )
        .runs
    );
    assert!(check_if("PreToolUse", "Bash(git *)", &bash("FOO=bar git push"), &v).runs);
    assert!(check_if("PreToolUse", "Bash(rm *)", &bash("echo $(rm -rf /)"), &v).runs);
    assert!(check_if("PreToolUse", "Bash(rm *)", &bash("echo `rm -rf /`"), &v).runs);
    let miss = check_if("PreToolUse", "Bash(git *)", &bash("npm test && ls"), &v);
    assert!(!miss.runs);
    assert_eq!(
        miss.reason,
        "\"if\": \"Bash(git *)\" matches none of the 2 simple command(s) (npm test; ls)"
    );
    let hit = check_if(
        "PreToolUse",
        "Bash(git *)",
        &bash("npm test && git push"),
        &v,
    );
    assert_eq!(
        hit.reason,
        "\"if\": \"Bash(git *)\" matches simple command 2 of 2 (git push)"
    );
    // The legacy prefix form.
    assert!(
        check_if(
            "PreToolUse",
            "Bash(npm run test:*)",
            &bash("npm run test -- -x"),
            &v
        )
        .runs
    );
    assert!(
        !check_if(
            "PreToolUse",
            "Bash(npm run test:*)",
            &bash("npm run testing"),
            &v
        )
        .runs
    );
}

#[test]
fn if_runs_anyway_on_dynamic_or_unparsable_commands() {
    let v = v("2.1.332");
    // More specific than a command name + $VAR: runs anyway.
    let dynamic = check_if(
        "PreToolUse",
        "Bash(git push *)",
        &bash("git $CMD origin"),
        &v,
    );
    assert!(dynamic.runs);
    assert!(dynamic.reason.contains("runs anyway"));
    // A command name only: $VAR does not force it.
    assert!(!check_if("PreToolUse", "Bash(rm *)", &bash("ls $HOME"), &v).runs);
    // Fails open when the command can't be parsed.
    let broken = check_if("PreToolUse", "Bash(rm *)", &bash("echo \"unterminated"), &v);
    assert!(broken.runs);
    assert!(broken.reason.ends_with("runs (fails open)"));
}

#[test]
fn if_never_runs_on_other_events_or_tools() {
    let v = v("2.1.332");
    let stop = check_if("Stop", "Bash(rm *)", &bash("rm -rf x"), &v);
    assert!(!stop.runs);
    assert_eq!(
        stop.reason,
        "\"if\" applies only to tool events; on Stop a handler with \"if\" never runs"
    );
    let other = json!({"tool_name": "Edit", "tool_input": {"file_path": "/w/a"}});
    assert!(!check_if("PreToolUse", "Bash(rm *)", &other, &v).runs);
    assert!(check_if("PreToolUse", "Edit", &other, &v).runs);
}

#[test]
fn if_path_rules_by_version() {
    let deep =
        json!({"tool_name": "Edit", "cwd": "/w", "tool_input": {"file_path": "/w/pkg/src/a.rs"}});
    let direct =
        json!({"tool_name": "Edit", "cwd": "/w", "tool_input": {"file_path": "/w/src/a.rs"}});
    // From 2.1.214: `src` directly under the cwd only.
    assert!(check_if("PreToolUse", "Edit(src/**)", &direct, &v("2.1.214")).runs);
    assert!(!check_if("PreToolUse", "Edit(src/**)", &deep, &v("2.1.214")).runs);
    // Before: at any depth.
    assert!(check_if("PreToolUse", "Edit(src/**)", &deep, &v("2.1.213")).runs);
    assert!(check_if("PreToolUse", "Edit(src/**)", &direct, &v("2.1.213")).runs);
    // `//` is absolute.
    let etc = json!({"tool_name": "Read", "cwd": "/w", "tool_input": {"file_path": "/etc/passwd"}});
    assert!(check_if("PreToolUse", "Read(//etc/*)", &etc, &v("2.1.332")).runs);
}

#[test]
fn if_webfetch_domains() {
    let p = json!({"tool_name": "WebFetch", "tool_input": {"url": "https://docs.example.com/a?b"}});
    assert!(
        check_if(
            "PreToolUse",
            "WebFetch(domain:docs.example.com)",
            &p,
            &v("2.1.332")
        )
        .runs
    );
    assert!(
        !check_if(
            "PreToolUse",
            "WebFetch(domain:example.com)",
            &p,
            &v("2.1.332")
        )
        .runs
    );
}

#[test]
fn redos_shapes_are_flagged() {
    assert!(redos_risk("(a+)+$").is_some());
    assert!(redos_risk("^(.*)*x").is_some());
    assert!(redos_risk("(a|ab)*c").is_some());
    assert!(redos_risk("(\\w+\\s?)+$").is_some());
    assert!(redos_risk("(x{2,})+").is_some());
    assert!(redos_risk("mcp__.*").is_none());
    assert!(redos_risk("^(Edit|Write)$").is_none());
    assert!(redos_risk("(foo|bar)*").is_none());
    assert!(redos_risk("[(a+)+]").is_none());
    assert!(redos_risk("\\(a+\\)+").is_none());
    assert_eq!(
        redos_risk("(a+)+").as_deref(),
        Some(
            "nested quantifiers: (a+)+ repeats a group that itself repeats; JavaScript's backtracking can take exponential time on a near-miss"
        )
    );
}

#[test]
fn hostile_matchers_never_hang_or_panic() {
    let v = v("2.1.332");
    let long = "a".repeat(50_000);
    let verdict = check("PreToolUse", Some("(a+)+$"), Some(&format!("{long}!")), &v);
    assert!(!verdict.matches);
    for m in [
        "(",
        ")",
        "[",
        "\\",
        "(?<",
        "((((((((((",
        "\u{0}",
        "é|ü",
        "a{99999999999}",
    ] {
        let _ = check("PreToolUse", Some(m), Some("Bash"), &v);
        let _ = redos_risk(m);
        let _ = check_if("PreToolUse", m, &bash("ls"), &v);
    }
}

#[test]
fn task_matchers_follow_the_rename_to_agent() {
    // 2.1.332 payloads carry tool_name "Agent" (the captures): a matcher
    // naming only Task misses it, says why, and gets the lint's fix.
    let at = v("2.1.332");
    let m = check("PreToolUse", Some("Task"), Some("Agent"), &at);
    assert!(!m.matches);
    assert_eq!(
        m.reason,
        "matcher \"Task\" is an exact name (letters, digits, _, -, spaces, ',' and '|'): tool_name \"Agent\" is not \"Task\"; the Task tool was renamed Agent in Claude Code 2.1.63, and from then on hook payloads carry tool_name \"Agent\", so a matcher naming only Task no longer fires on it (Claude Code 2.1.332 here)"
    );
    assert_eq!(
        m.hint.as_deref(),
        Some("write \"Agent\" (\"Agent|Task\" also covers sessions before 2.1.63)")
    );
    assert!(matches("PreToolUse", "Agent|Task", "Agent", "2.1.332"));
    // A regex naming the word Task, likewise; TaskCreate is another word.
    let r = check("PreToolUse", Some("^(Task|Bash)$"), Some("Agent"), &at);
    assert!(!r.matches);
    assert_eq!(r.hint, m.hint);
    assert_eq!(
        missed_rename(&classify("PreToolUse", Some("^TaskCreate$"), &at), &at),
        None
    );
    // Before 2.1.63 the payload says Task: the old matcher matches, a
    // matcher naming only Agent misses.
    assert!(matches("PreToolUse", "Task", "Task", "2.1.50"));
    let a = check("PreToolUse", Some("Agent"), Some("Task"), &v("2.1.50"));
    assert!(!a.matches);
    assert!(a.reason.ends_with(
        "; before Claude Code 2.1.63 this tool was called Task (Claude Code 2.1.50 here)"
    ));
    assert_eq!(
        a.hint.as_deref(),
        Some("write \"Agent|Task\" to cover sessions before and after 2.1.63")
    );
    assert_eq!(
        missed_rename(
            &classify("PreToolUse", Some("Task"), &v("2.1.50")),
            &v("2.1.50")
        ),
        None
    );
}
