use serde_json::json;

use super::permissions::{
    PermissionRecord, Permissions, RuleContext, ToolVerdict, final_outcome, rule_matches,
};
use super::*;

fn v(s: &str) -> Version {
    Version::parse(s)
}

fn reading(label: &str, o: Outcome, finish_order: usize) -> Reading {
    Reading {
        label: label.into(),
        outcome: o,
        failed: false,
        finish_order,
    }
}

fn spec(command: HandlerCommand) -> RunSpec {
    RunSpec {
        label: "h".into(),
        command,
        cwd: PathBuf::from("/"),
        cwd_note: None,
        env: vec![EnvVar {
            name: "CLAUDE_PROJECT_DIR".into(),
            value: "/p".into(),
            source: EnvSource::Claude,
        }],
        timeout_secs: 5.0,
        write_root: None,
        on_failure_block: false,
        is_async: false,
    }
}

fn exited(code: i32, stdout: &str, stderr: &str) -> Finished {
    Finished {
        output: RunOutput {
            status: RunStatus::Exited { code },
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            stdout_dropped: 0,
            stderr_dropped: 0,
            duration_ms: 3,
            notes: Vec::new(),
        },
        finish_order: 0,
    }
}

#[test]
fn argv_shell_and_exec_forms() {
    let s = spec(HandlerCommand::Shell {
        command: "./guard.sh --x".into(),
        shell: Shell::Sh,
    });
    assert_eq!(s.argv(), ["sh", "-c", "./guard.sh --x"]);
    let s = spec(HandlerCommand::Shell {
        command: "echo $0".into(),
        shell: Shell::Bash,
    });
    assert_eq!(s.argv(), ["bash", "-c", "echo $0"]);
    let s = spec(HandlerCommand::Exec {
        program: "node".into(),
        args: vec!["${CLAUDE_PROJECT_DIR}/hooks/rm.js".into(), "${NOPE}".into()],
    });
    assert_eq!(s.argv(), ["node", "/p/hooks/rm.js", "${NOPE}"]);
    assert_eq!(
        s.display(),
        "node ${CLAUDE_PROJECT_DIR}/hooks/rm.js ${NOPE}"
    );
}

#[test]
fn substitute_leaves_unclosed_and_unknown_names() {
    let env = vec![("A".to_string(), std::ffi::OsString::from("1"))];
    assert_eq!(substitute("x${A}y${A", &env), "x1y${A");
    assert_eq!(substitute("$A ${B}", &env), "$A ${B}");
}

#[test]
fn timeout_durations_are_clamped() {
    assert_eq!(timeout_duration(f64::NAN).as_secs(), 0);
    assert_eq!(timeout_duration(-1.0).as_secs(), 0);
    assert_eq!(timeout_duration(1.5).as_millis(), 1500);
    assert_eq!(timeout_duration(1e12).as_secs(), 86_400);
}

#[test]
fn profile_line_detection() {
    assert_eq!(
        profile_line_before_json("Shell ready\n{\"a\":1}\n"),
        Some(("Shell ready".to_string(), 2))
    );
    assert_eq!(profile_line_before_json("  {\"a\":1}"), None);
    assert_eq!(profile_line_before_json("text\nmore text\n"), None);
    assert_eq!(profile_line_before_json("a\n{not json\n"), None);
    assert_eq!(profile_line_before_json("a\n[1]\n"), None);
}

#[test]
fn combine_continue_false_beats_a_deny() {
    let mut stop = Outcome::new(Effect::Stopped);
    stop.user_sees = Some("Build failed".into());
    let mut deny = Outcome::new(Effect::Blocked);
    deny.model_sees = Some("no".into());
    let c = combine_runs(&[reading("a", deny, 0), reading("b", stop, 1)]);
    assert_eq!(c.effect, Effect::Stopped);
    assert_eq!(c.decided_by, ["b"]);
    assert_eq!(c.user_sees.as_deref(), Some("Build failed"));
    assert_eq!(c.model_sees, None);
}

#[test]
fn combine_precedence_deny_defer_ask_allow() {
    let mut ask = Outcome::new(Effect::Asked);
    ask.user_sees = Some("sure?".into());
    let c = combine_runs(&[
        reading("allow", Outcome::new(Effect::Allowed), 0),
        reading("ask", ask.clone(), 1),
        reading("defer", Outcome::new(Effect::Deferred), 2),
    ]);
    assert_eq!(c.effect, Effect::Deferred);
    assert_eq!(c.decision, Some(PermissionDecision::Defer));
    assert_eq!(c.decided_by, ["defer"]);
    assert_eq!(c.user_sees.as_deref(), Some("sure?"));
    let c = combine_runs(&[
        reading("ask", ask, 0),
        reading("allow", Outcome::new(Effect::Allowed), 1),
    ]);
    assert_eq!(c.effect, Effect::Asked);
}

#[test]
fn combine_rewrites_last_finisher_wins_by_finish_order_not_position() {
    let mut a = Outcome::new(Effect::InputRewritten);
    a.updated_input = Some(json!({"command": "a"}));
    let mut b = Outcome::new(Effect::InputRewritten);
    b.updated_input = Some(json!({"command": "b"}));
    // Handler "a" is listed first but finished last.
    let c = combine_runs(&[reading("a", a.clone(), 1), reading("b", b.clone(), 0)]);
    assert_eq!(c.updated_input, Some(json!({"command": "a"})));
    assert_eq!(
        c.flags,
        [
            "2 handlers set updatedInput (a, b): Claude Code keeps the last to finish, which is not deterministic; this run kept a's"
        ]
    );
    // A deny drops the rewrites, flagged.
    let c = combine_runs(&[
        reading("a", a, 0),
        reading("d", Outcome::new(Effect::Blocked), 1),
    ]);
    assert_eq!(c.effect, Effect::Blocked);
    assert_eq!(c.updated_input, None);
    assert_eq!(
        c.flags,
        ["updatedInput of a not applied: the decision is deny"]
    );
}

#[test]
fn combine_two_stop_blocks_show_both_reasons() {
    let mut a = Outcome::new(Effect::Blocked);
    a.model_sees = Some("run tests".into());
    let mut b = Outcome::new(Effect::Blocked);
    b.model_sees = Some("run lint".into());
    let mut ctx = Outcome::new(Effect::ContextAdded);
    ctx.model_sees = Some("fyi".into());
    let c = combine_runs(&[reading("a", a, 0), reading("c", ctx, 1), reading("b", b, 2)]);
    assert_eq!(c.effect, Effect::Blocked);
    assert_eq!(c.model_sees.as_deref(), Some("run tests\nrun lint\nfyi"));
    assert_eq!(
        c.flags,
        ["2 handlers block: every reason is shown, in handler order"]
    );
    assert_eq!(c.decided_by, ["a", "b"]);
}

#[test]
fn combine_nothing_and_context() {
    let c = combine_runs(&[]);
    assert_eq!(c.effect, Effect::Nothing);
    let mut ctx = Outcome::new(Effect::ContextAdded);
    ctx.model_sees = Some("hello".into());
    let c = combine_runs(&[
        reading("n", Outcome::new(Effect::Nothing), 0),
        reading("c", ctx, 1),
    ]);
    assert_eq!(c.effect, Effect::ContextAdded);
    assert_eq!(c.decided_by, ["c"]);
}

#[test]
fn read_run_caps_texts_at_10000_chars() {
    let long = "é".repeat(10_005);
    let stdout = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": long}})
    .to_string();
    let s = spec(HandlerCommand::Shell {
        command: "x".into(),
        shell: Shell::Sh,
    });
    let r = read_run("PreToolUse", &v("2.1.332"), &s, &exited(0, &stdout, ""));
    assert_eq!(r.outcome.effect, Effect::Blocked);
    assert_eq!(
        r.outcome.model_sees.as_ref().map(|m| m.chars().count()),
        Some(10_000)
    );
    assert_eq!(
        r.outcome.why.last().map(String::as_str),
        Some(
            "what the model sees is cut at 10000 characters (of 10005; docs/contract.md#exit-codes-and-stdout)"
        )
    );
}

#[test]
fn read_run_signal_is_a_non_blocking_failure() {
    let s = spec(HandlerCommand::Shell {
        command: "x".into(),
        shell: Shell::Sh,
    });
    let mut run = exited(0, "", "");
    run.output.status = RunStatus::Signaled { signal: 9 };
    let r = read_run("Stop", &v("2.1.332"), &s, &run);
    assert_eq!(r.outcome.effect, Effect::Nothing);
    assert!(r.failed);
    assert_eq!(
        r.outcome.why,
        [
            "the hook was killed by signal 9: a non-blocking error, the action proceeds (docs/contract.md#exit-codes-and-stdout; onFailure: \"block\" would block)"
        ]
    );
}

#[test]
fn shell_exit_127_is_launch_failed_with_its_code() {
    let s = spec(HandlerCommand::Shell {
        command: "nope".into(),
        shell: Shell::Sh,
    });
    let mut out = exited(127, "", "sh: 1: nope: not found\n").output;
    classify_shell_launch(&s, &mut out);
    assert_eq!(
        out.status,
        RunStatus::LaunchFailed {
            reason: "not found: sh: 1: nope: not found".into(),
            exit_code: Some(127),
        }
    );
    // A script's own exit 127 with other stderr stays an exit.
    let mut out = exited(127, "", "custom\n").output;
    classify_shell_launch(&s, &mut out);
    assert_eq!(out.status, RunStatus::Exited { code: 127 });
}

struct Fake;

impl Runner for Fake {
    fn run(&self, spec: &RunSpec, stdin: &[u8]) -> RunOutput {
        let mut o = exited(0, "", "").output;
        o.stdout = format!("{}:{}", spec.label, stdin.len()).into_bytes();
        o
    }
}

#[test]
fn run_all_keeps_spec_order_and_numbers_finishers() {
    let mut a = spec(HandlerCommand::Shell {
        command: "a".into(),
        shell: Shell::Sh,
    });
    a.label = "a".into();
    let mut b = a.clone();
    b.label = "b".into();
    let runs = run_all(&Fake, &[a, b], b"{}");
    assert_eq!(runs[0].output.stdout, b"a:2");
    assert_eq!(runs[1].output.stdout, b"b:2");
    let mut orders: Vec<usize> = runs.iter().map(|r| r.finish_order).collect();
    orders.sort_unstable();
    assert_eq!(orders, [0, 1]);
}

#[test]
fn env_file_only_on_its_events() {
    let mut ctx = EnvContext::from_payload(&json!({
        "session_id": "s1", "hook_event_name": "SessionStart"}));
    ctx.env_file = Some(PathBuf::from("/tmp/x/sessionstart-hook-0.sh"));
    let (vars, _) = hook_env(&ctx, &[], &|_| None);
    let names: Vec<&str> = vars.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        ["CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_ENV_FILE"]
    );
    ctx.event = "Stop".into();
    let (vars, _) = hook_env(&ctx, &[], &|_| None);
    let names: Vec<&str> = vars.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["CLAUDECODE", "CLAUDE_CODE_SESSION_ID"]);
    let (_, warnings) = hook_env(&ctx, &["1BAD".into(), "".into()], &|_| None);
    assert_eq!(warnings.len(), 2);
}

fn bash(cmd: &str) -> Value {
    json!({"command": cmd})
}

#[test]
fn permission_rules_simple_matching() {
    let ctx = RuleContext {
        non_interactive: false,
        cwd: Some("/proj".into()),
        project_dir: Some("/proj".into()),
        home: Some("/home/u".into()),
    };
    let m = |rule: &str, tool: &str, input: Value| rule_matches(rule, tool, &input, &ctx).0;
    assert!(m("Bash", "Bash", bash("anything")));
    // The old name of Agent still names it in a permission rule; a bare
    // Edit covers Edit only, Edit(path) the family.
    assert!(m("Task", "Agent", json!({"prompt": "x"})));
    assert!(!m("Edit", "Write", json!({"file_path": "/proj/a"})));
    assert!(m("Edit(a)", "Write", json!({"file_path": "/proj/a"})));
    assert!(m("Bash(rm *)", "Bash", bash("rm -rf build")));
    assert!(m("Bash(rm *)", "Bash", bash("cd x && rm -rf build")));
    assert!(m("Bash(rm *)", "Bash", bash("FOO=1 rm x")));
    assert!(m("Bash(ls *)", "Bash", bash("ls")));
    assert!(!m("Bash(ls *)", "Bash", bash("lsof")));
    assert!(m(
        "Bash(npm run test:*)",
        "Bash",
        bash("npm run test -- --watch")
    ));
    assert!(!m("Bash(git push *)", "Bash", bash("git status")));
    assert!(m(
        "Edit(src/**)",
        "Write",
        json!({"file_path": "/proj/src/a/b.rs"})
    ));
    assert!(!m(
        "Edit(src/**)",
        "Edit",
        json!({"file_path": "/other/src/b.rs"})
    ));
    assert!(m(
        "Read(*.env)",
        "Read",
        json!({"file_path": "/proj/deep/.x/prod.env"})
    ));
    assert!(m(
        "Read(//etc/**)",
        "Read",
        json!({"file_path": "/etc/passwd"})
    ));
    assert!(m(
        "Read(~/.ssh/**)",
        "Read",
        json!({"file_path": "/home/u/.ssh/id"})
    ));
    assert!(m(
        "WebFetch(domain:example.com)",
        "WebFetch",
        json!({"url": "https://api.example.com/x"})
    ));
    assert!(!m(
        "WebFetch(domain:example.com)",
        "WebFetch",
        json!({"url": "https://badexample.com/"})
    ));
    assert!(m("mcp__memory", "mcp__memory__create", json!({})));
    assert!(m("mcp__memory__*", "mcp__memory__create", json!({})));
    assert!(!m("mcp__memory", "mcp__memoryx__create", json!({})));
    let (hit, note) = rule_matches("Agent(Explore)", "Agent", &json!({}), &ctx);
    assert!(!hit);
    assert_eq!(
        note.as_deref(),
        Some(
            "rule `Agent(Explore)`: hookscope does not check patterns on Agent; treated as not matching"
        )
    );
}

fn combined(effect: Effect) -> CombinedRuns {
    CombinedRuns {
        effect,
        decision: None,
        model_sees: None,
        user_sees: None,
        updated_input: None,
        updated_output: None,
        decided_by: vec!["h".into()],
        flags: Vec::new(),
    }
}

#[test]
fn final_outcome_follows_hooks_md_1_12() {
    let payload = json!({"hook_event_name": "PreToolUse", "permission_mode": "bypassPermissions",
        "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "cwd": "/proj"});
    let ctx = RuleContext::default();
    let none = Permissions::default();
    let at = v("2.1.332");
    // A hook deny wins even under bypassPermissions.
    let f = final_outcome(
        "PreToolUse",
        &at,
        &payload,
        &combined(Effect::Blocked),
        &none,
        &ctx,
    );
    assert_eq!(f.verdict, Some(ToolVerdict::Denied));
    assert_eq!(f.decided_by, "hook");
    // No hook decision, bypass: runs.
    let f = final_outcome(
        "PreToolUse",
        &at,
        &payload,
        &combined(Effect::Nothing),
        &none,
        &ctx,
    );
    assert_eq!(f.verdict, Some(ToolVerdict::Runs));
    assert_eq!(f.decided_by, "permission mode bypassPermissions");
    // A hook allow cannot loosen a deny rule (since 2.1.77) …
    let perms = Permissions {
        allow: vec!["Bash(ls *)".into()],
        ask: vec!["Bash(git push *)".into()],
        deny: vec!["Bash(rm *)".into()],
        ..Permissions::default()
    };
    let f = final_outcome(
        "PreToolUse",
        &at,
        &payload,
        &combined(Effect::Allowed),
        &perms,
        &ctx,
    );
    assert_eq!(f.verdict, Some(ToolVerdict::Denied));
    assert_eq!(f.decided_by, "permissions.deny rule `Bash(rm *)`");
    // … but did before.
    let f = final_outcome(
        "PreToolUse",
        &v("2.1.76"),
        &payload,
        &combined(Effect::Allowed),
        &perms,
        &ctx,
    );
    assert_eq!(f.verdict, Some(ToolVerdict::Runs));
    // An ask rule beats a hook allow from 2.1.220.
    let push = json!({"hook_event_name": "PreToolUse", "permission_mode": "default",
        "tool_name": "Bash", "tool_input": {"command": "git push origin"}});
    let f = final_outcome(
        "PreToolUse",
        &at,
        &push,
        &combined(Effect::Allowed),
        &perms,
        &ctx,
    );
    assert_eq!(f.verdict, Some(ToolVerdict::Asked));
    let f = final_outcome(
        "PreToolUse",
        &v("2.1.219"),
        &push,
        &combined(Effect::Allowed),
        &perms,
        &ctx,
    );
    assert_eq!(f.verdict, Some(ToolVerdict::Runs));
    // The rewritten input is what the rules see.
    let mut rw = combined(Effect::InputRewritten);
    rw.updated_input = Some(json!({"command": "ls -la"}));
    let f = final_outcome("PreToolUse", &at, &push, &rw, &perms, &ctx);
    assert_eq!(f.verdict, Some(ToolVerdict::RunsRewritten));
    // No hook, no rule, default mode: Bash is asked, Read runs.
    let f = final_outcome(
        "PreToolUse",
        &at,
        &push,
        &combined(Effect::Nothing),
        &none,
        &ctx,
    );
    assert_eq!(f.verdict, Some(ToolVerdict::Asked));
    // Read runs inside the working folder and prompts outside it.
    let read = json!({"permission_mode": "default", "tool_name": "Read", "tool_input": {"file_path": "/proj/a"}});
    let read_in = |cwd: &str| {
        let ctx = RuleContext {
            cwd: Some(cwd.into()),
            ..RuleContext::default()
        };
        final_outcome(
            "PreToolUse",
            &at,
            &read,
            &combined(Effect::Nothing),
            &none,
            &ctx,
        )
        .verdict
    };
    assert_eq!(read_in("/proj"), Some(ToolVerdict::Runs));
    assert_eq!(read_in("/elsewhere"), Some(ToolVerdict::Asked));
    // Other events: the hooks' effect.
    let f = final_outcome(
        "Stop",
        &at,
        &json!({}),
        &combined(Effect::Blocked),
        &perms,
        &ctx,
    );
    assert_eq!(f.verdict, None);
    assert_eq!(f.effect, Effect::Blocked);
}

#[test]
fn async_handlers_decide_nothing() {
    let mut s = spec(HandlerCommand::Shell {
        command: "x".into(),
        shell: Shell::Sh,
    });
    s.is_async = true;
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#;
    let r = read_run("PreToolUse", &v("2.1.332"), &s, &exited(0, deny, ""));
    assert_eq!(r.outcome.effect, Effect::Nothing);
    assert_eq!(r.outcome.model_sees, None);
    assert_eq!(
        r.outcome.why.last().map(String::as_str),
        Some(
            "async: true — its decision has no effect (it would have been blocked); context and systemMessage arrive on the next turn (docs/contract.md#async-hooks)"
        )
    );
    let ctx =
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"later"}}"#;
    let r = read_run("PostToolUse", &v("2.1.332"), &s, &exited(0, ctx, ""));
    assert_eq!(r.outcome.effect, Effect::ContextAdded);
    assert_eq!(r.outcome.model_sees.as_deref(), Some("later"));
}

#[test]
fn on_failure_exit_1_with_deny_json_keeps_the_json_reason() {
    let mut s = spec(HandlerCommand::Shell {
        command: "x".into(),
        shell: Shell::Sh,
    });
    s.on_failure_block = true;
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json reason"}}"#;
    let r = read_run("PreToolUse", &v("2.1.332"), &s, &exited(1, deny, "err"));
    assert_eq!(r.outcome.effect, Effect::Blocked);
    assert_eq!(r.outcome.model_sees.as_deref(), Some("json reason"));
}

#[test]
fn an_updated_tool_output_is_read_and_merged_last_finisher_first() {
    let s = spec(HandlerCommand::Shell {
        command: "x".into(),
        shell: Shell::Sh,
    });
    let replace = |text: &str| {
        format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PostToolUse","updatedToolOutput":{{"stdout":"{text}","stderr":"","interrupted":false,"isImage":false}},"additionalContext":"masked"}}}}"#
        )
    };
    let mut first = exited(0, &replace("[masked 1]"), "");
    first.finish_order = 1;
    let mut second = exited(0, &replace("[masked 2]"), "");
    second.finish_order = 0;
    let a = read_run("PostToolUse", &v("2.1.332"), &s, &first);
    assert_eq!(a.outcome.effect, Effect::OutputReplaced);
    assert_eq!(a.outcome.model_sees.as_deref(), Some("masked"));
    assert_eq!(
        a.outcome.summary(),
        "output replaced — the model is told: masked — the model sees this output instead: [masked 1]"
    );
    let b = read_run("PostToolUse", &v("2.1.332"), &s, &second);
    let c = combine_runs(&[a, b]);
    assert_eq!(c.effect, Effect::OutputReplaced);
    // The first handler finished last: its replacement wins.
    assert_eq!(
        c.updated_output.as_ref().map(|o| o["stdout"].clone()),
        Some(json!("[masked 1]"))
    );
    assert_eq!(c.flags.len(), 1, "{:?}", c.flags);
    // A block after the call ran stays the effect; the replacement is kept.
    let both = r#"{"decision":"block","reason":"leak","hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":"[gone]"}}"#;
    let r = read_run("PostToolUse", &v("2.1.332"), &s, &exited(0, both, ""));
    assert_eq!(r.outcome.effect, Effect::Blocked);
    assert_eq!(r.outcome.updated_output, Some(json!("[gone]")));
    // PreToolUse does not take it.
    let pre = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedToolOutput":"x"}}"#;
    let r = read_run("PreToolUse", &v("2.1.332"), &s, &exited(0, pre, ""));
    assert_eq!(r.outcome.effect, Effect::Nothing);
    assert_eq!(r.outcome.updated_output, None);
    assert!(
        r.outcome
            .why
            .contains(&"PreToolUse does not take updatedToolOutput: ignored".to_string()),
        "{:?}",
        r.outcome.why
    );
    // An async handler's replacement has no effect.
    let mut s = s;
    s.is_async = true;
    let r = read_run(
        "PostToolUse",
        &v("2.1.332"),
        &s,
        &exited(0, &replace("x"), ""),
    );
    assert_eq!(r.outcome.updated_output, None);
}

#[test]
fn default_mode_runs_agent_and_read_only_bash_without_a_prompt() {
    let at = v("2.1.332");
    let none = Permissions::default();
    let ctx = RuleContext {
        non_interactive: true,
        cwd: Some("/p".into()),
        project_dir: Some("/p".into()),
        home: None,
    };
    let call = |tool: &str, input: Value| {
        json!({"hook_event_name": "PreToolUse", "permission_mode": "default",
               "tool_name": tool, "tool_input": input, "cwd": "/p"})
    };
    let run = |p: &Value, perms: &Permissions| {
        final_outcome(
            "PreToolUse",
            &at,
            p,
            &combined(Effect::Nothing),
            perms,
            &ctx,
        )
    };
    // The Agent tool needs no permission.
    let f = run(
        &call("Agent", json!({"prompt": "x", "description": "y"})),
        &none,
    );
    assert_eq!(f.verdict, Some(ToolVerdict::Runs));
    assert_eq!(f.decided_by, "permission mode default");
    assert_eq!(
        serde_json::to_value(&f.record).expect("json"),
        json!({"decision": "accept", "source": "config", "reasonType": "mode"})
    );
    // `ls src` is read-only; `npm test` prompts, which -p records as a rejection.
    let f = run(&call("Bash", json!({"command": "ls src"})), &none);
    assert_eq!(f.verdict, Some(ToolVerdict::Runs));
    let f = run(&call("Bash", json!({"command": "npm test"})), &none);
    assert_eq!(f.verdict, Some(ToolVerdict::Asked));
    assert_eq!(
        serde_json::to_value(&f.record).expect("json"),
        json!({"decision": "reject", "source": "config", "reasonCode": "unknown"})
    );
    assert_eq!(
        f.why,
        [
            "Bash in default mode: Bash `npm test` needs permission: npm is not a read-only command; no hook decision and no rule: the user is prompted (in -p nobody answers: denied unless a PermissionRequest hook allows)",
            "a -p run (entrypoint sdk-cli): nobody can answer the prompt, so the call is denied"
        ]
    );
    // A --allowed-tools rule is recorded as cliArg, before the mode.
    let cli = Permissions {
        cli_allow: vec!["Bash".into()],
        ..Permissions::default()
    };
    let f = run(&call("Bash", json!({"command": "ls src"})), &cli);
    assert_eq!(
        serde_json::to_value(&f.record).expect("json"),
        json!({"decision": "accept", "source": "config", "reasonType": "rule", "ruleSource": "cliArg"})
    );
    // Compared with what a transcript recorded.
    let rec = f.record.expect("record");
    assert_eq!(
        rec.compare(&json!({"decision": "accept", "source": "config", "reasonType": "rule", "ruleSource": "cliArg"})),
        (true, vec![])
    );
    let mode = PermissionRecord {
        decision: "accept".into(),
        source: "config".into(),
        reason_type: Some("mode".into()),
        reason_code: None,
        rule_source: None,
    };
    let (agrees, why) = mode.compare(
        &json!({"decision": "accept", "source": "config", "reasonType": "rule", "ruleSource": "cliArg"}),
    );
    assert!(!agrees);
    assert_eq!(why[0], "reasonType rule then, mode now");
    assert_eq!(mode.describe(), "accept (config, mode)");
    assert_eq!(rec.describe(), "accept (config, rule cliArg)");
}
