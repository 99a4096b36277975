//! `hookscope replay` run as a process on the real 2.1.332 corpus: one
//! event with its why and the transcript's record, the refusals (exit 2
//! with what exists), and the backtest of `assets/rules/example.toml` over
//! `tests/corpus`.

use serde_json::Value;

use crate::support::{C2, EXAMPLE_RULES, hookscope};

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = hookscope().args(args).output().expect("runs");
    (
        out.status.code(),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

#[test]
fn replay_of_the_blocked_rm_rf_prints_the_why_the_decision_and_the_record() {
    let (code, out, _) = run(&[
        "replay",
        C2,
        "--event",
        "PreToolUse",
        "--at",
        "toolu_01GFEgALJm405nI2WctBocud",
        "--rules",
        EXAMPLE_RULES,
    ]);
    assert_eq!(code, Some(0), "{out}");
    for fragment in [
        ".jsonl:44\npayload:\n",
        r#""tool_input":{"command":"rm -rf build/","description":"Remove the build directory"},"tool_use_id":"toolu_01GFEgALJm405nI2WctBocud"}"#,
        "rules (assets/rules/example.toml):\n  ✓ no-rm-rf → block: event PreToolUse ✓ · tool Bash ✓ · ",
        "  ✗ force-with-lease: event PreToolUse ✓ · tool Bash ✓ · program = \"git\" ✗ (programs are \"rm\")\n",
        "  ✗ test-before-stop: event Stop|SubagentStop ✗ (got PreToolUse)\n",
        "decision: block\n",
        "hook output: exit 0, stdout {\"systemMessage\":\"hookscope example: blocked an rm -rf\",\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",",
        "outcome: blocked\n",
        "recorded in the transcript:\n  line 45 tool_result: PreToolUse:Bash hook error: [python3 /home/dev/.hooks/hook.py hooks_c2_exit2 PreToolUse]: Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)\n",
    ] {
        assert!(out.contains(fragment), "missing {fragment:?} in\n{out}");
    }
}

#[test]
fn replay_without_rules_says_how_to_load_them_and_json_has_no_decision() {
    let (code, out, _) = run(&["replay", C2, "--event", "Stop"]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("rules: none loaded (--rules FILE evaluates a rule set here)\n"),
        "{out}"
    );
    let (code, out, _) = run(&["replay", C2, "--event", "Stop", "--json"]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["event"], "Stop");
    assert_eq!(v["decision"], Value::Null);
    assert_eq!(v["payload"]["hook_event_name"], "Stop");
    assert_eq!(v["history"]["ran_commands"][0], "echo original command");
}

#[test]
fn replay_json_has_each_rule_with_its_verdict_and_the_recorded_facts() {
    let (code, out, _) = run(&[
        "replay",
        C2,
        "--event",
        "PreToolUse",
        "--at",
        "toolu_01GFEgALJm405nI2WctBocud",
        "--rules",
        EXAMPLE_RULES,
        "--json",
    ]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["decision"], "block");
    assert_eq!(v["rules"][0]["id"], "no-rm-rf");
    assert_eq!(v["rules"][0]["verdict"], "block");
    assert_eq!(v["rules"][1]["verdict"], Value::Null);
    assert_eq!(v["outcome"]["effect"], "blocked");
    assert_eq!(v["recorded"][0]["source"], "tool_result");
    assert_eq!(v["recorded"][0]["line"], 45);
}

#[test]
fn bad_arguments_exit_2_with_what_exists() {
    let (code, _, err) = run(&["replay", C2, "--event", "Nope"]);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with("hookscope: unknown event \"Nope\"; known events: PreToolUse, "),
        "{err}"
    );
    // With --json the refusal is the JSON error object on stdout, as
    // `find --json` gives it; stderr stays empty.
    for (args, message) in [
        (
            &["replay", C2, "--event", "Nope", "--json"][..],
            "unknown event \"Nope\"; known events: PreToolUse, ",
        ),
        (
            &[
                "replay",
                "no-such-session",
                "tests/corpus",
                "--event",
                "Stop",
                "--json",
            ][..],
            "no session matches \"no-such-session\"",
        ),
        (
            &["replay", C2, "--event", "Stop", "--json", "--bogus"][..],
            "unexpected argument '--bogus' found",
        ),
        // What clap says is missing is on the lines after its first.
        (
            &["show", "--json"][..],
            "the following required arguments were not provided: <SESSION>",
        ),
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(err, "", "{args:?}");
        let v: Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"));
        assert_eq!(v["error"], "invalid_argument", "{args:?}");
        let m = v["message"].as_str().unwrap_or_default();
        assert!(m.starts_with(message), "{args:?}: {m}");
    }
    let (code, _, err) = run(&["replay", C2, "--event", "Stop", "--at", "toolu_x"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("toolu_x names nothing in this session (no tool_use_id or line uuid \"toolu_x\"; tool calls: 13 (e.g. toolu_01iZZmNIegRYHeEO8XWQDf7M,"), "{err}");
    let (code, _, err) = run(&["replay", "--all", "tests/corpus"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "hookscope: --all needs --rules FILE (the rule set to backtest) or --exec (your hooks)\n"
    );
    // --examples belongs to a backtest: without --all it is refused, not
    // ignored.
    let (code, out, err) = run(&[
        "replay",
        C2,
        "--event",
        "Stop",
        "--rules",
        EXAMPLE_RULES,
        "--examples",
        "all",
    ]);
    assert_eq!(code, Some(2));
    assert_eq!(out, "");
    assert!(
        err.starts_with("hookscope: --examples sets how many examples a backtest lists per rule and verdict: give it with --all"),
        "{err}"
    );
}

#[test]
fn a_bad_rules_file_is_refused_with_file_line_col() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("bad.toml");
    std::fs::write(
        &p,
        "[[rules]]\nid = \"x\"\nevents = \"PreToolUse\"\naction = \"block\"\n",
    )
    .expect("write");
    let out = hookscope()
        .args(["replay", C2, "--event", "PreToolUse", "--rules"])
        .arg(&p)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).expect("utf-8");
    let first = err.lines().next().expect("a line");
    assert!(
        first.starts_with(&format!(
            "hookscope: {}:4:10: rule `x` blocks without a `reason`",
            p.display()
        )),
        "{err}"
    );
    assert!(
        err.ends_with("hookscope: rule file refused; nothing was loaded\n"),
        "{err}"
    );
    // --json: the errors once, in the JSON, nothing on stderr.
    let (code, out, err) = run(&[
        "replay",
        C2,
        "--event",
        "PreToolUse",
        "--json",
        "--rules",
        p.to_str().expect("utf-8"),
    ]);
    assert_eq!((code, err.as_str()), (Some(2), ""));
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["error"], "invalid_rules");
    assert_eq!(v["errors"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["errors"][0]["line"], 4);
    // payload --envelope --rules: stdout stays empty, each error once on stderr.
    let (code, out, err) = run(&[
        "payload",
        C2,
        "--event",
        "PreToolUse",
        "--envelope",
        "--rules",
        p.to_str().expect("utf-8"),
    ]);
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert_eq!(err.matches("blocks without a `reason`").count(), 1, "{err}");
    // --rules without --envelope names the fix, not a usage line.
    let (code, out, err) = run(&[
        "payload",
        C2,
        "--event",
        "PreToolUse",
        "--rules",
        EXAMPLE_RULES,
    ]);
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert_eq!(
        err,
        "hookscope: --rules needs --envelope (the expected outcome is part of the fixture envelope)\n"
    );
}

/// A replay through a rule set with a warning: the warning on stderr, or in
/// `warnings` with --json.
#[test]
fn replay_shows_the_rule_sets_warnings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("stop.toml");
    std::fs::write(
        &p,
        "[[rules]]\nid = \"gate\"\nevents = \"Stop\"\naction = \"block\"\nreason = \"r\"\n",
    )
    .expect("write");
    let path = p.to_str().expect("utf-8");
    let (code, _, err) = run(&["replay", C2, "--event", "PreToolUse", "--rules", path]);
    assert_eq!(code, Some(0));
    assert!(
        err.starts_with(&format!(
            "hookscope: {path}:1:1: warning: rule `gate` blocks Stop without checking stop_hook_active"
        )),
        "{err}"
    );
    let (code, out, err) = run(&[
        "replay",
        C2,
        "--event",
        "PreToolUse",
        "--rules",
        path,
        "--json",
    ]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["warnings"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["warnings"][0]["line"], 1);
    let (code, out, _) = run(&["replay", "--rules", path, "--all", C2, "--json"]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["warnings"][0]["line"], 1);
    assert_eq!(v["warnings"][0]["column"], 1);
}

/// A warning's column is where its rule's `[[rules]]` header is (toml
/// span), not 0.
#[test]
fn a_rule_warning_has_the_real_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("stop.toml");
    std::fs::write(
        &p,
        "# gate\n  [[rules]]\nid = \"gate\"\nevents = \"Stop\"\naction = \"block\"\nreason = \"r\"\n",
    )
    .expect("write");
    let path = p.to_str().expect("utf-8");
    let (code, out, _) = run(&["replay", "--rules", path, "--all", C2, "--json"]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["warnings"][0]["line"], 2);
    assert_eq!(v["warnings"][0]["column"], 3);
    let (_, _, err) = run(&["replay", "--rules", path, "--all", C2]);
    assert!(
        err.starts_with(&format!(
            "hookscope: {path}:2:3: warning: rule `gate` blocks Stop"
        )),
        "{err}"
    );
}

/// The example over every Claude Code session of the corpus. Recounted with
/// python over the transcripts' `tool_use` blocks: 6 Bash calls match the
/// rm -rf pattern (`rm -rf build/` in the compact, hooks, c2, c3, c5 and c6
/// sessions; none under /tmp), and 2 `git status|diff|log` are run by the
/// main agent in `default` mode (`git status --short` in compact session
/// a2105fb9, `git log --oneline -2` in hooks_c8_outcomes 07535b09; the
/// `tools` session's runs under bypassPermissions, sniffly's mock line has
/// no permissionMode). hooks_c8_outcomes adds 10 PreToolUse events (its
/// 9 main-thread calls and its subagent's one) and a second prompt with
/// deploy (`[scenario:c8c] Time to deploy: …`).
/// The Droid sessions are evaluated too (python3 over their `tool_use`
/// blocks: 25 calls in real-droid-0.225.2, 2 in agent-sessions' fixtures, so
/// 375 + 27 = 402 PreToolUse events): the errors run's `rm -rf build/`
/// (blocked by its hook then) is a 7th block, and its denied run's prompt
/// `[scenario:denied] Deploy the app.` the one prompt with deploy.
/// No other rule's conditions hold anywhere (no `git push`, no lock file, no
/// `dbg!`, no Markdown tab, no MCP `query`, no Explore edit, no prompt with
/// fix/implement/refactor).
#[test]
fn backtest_of_the_example_over_the_corpus() {
    let (code, out, _) = run(&[
        "replay",
        "--rules",
        EXAMPLE_RULES,
        "--all",
        "tests/corpus",
        "--json",
    ]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    let counts = |id: &str| {
        v["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .find(|r| r["id"] == id)
            .expect("rule")["counts"]
            .clone()
    };
    assert_eq!(counts("no-rm-rf"), serde_json::json!({"block": 7}));
    assert_eq!(
        counts("deploys-use-make"),
        serde_json::json!({"context": 2})
    );
    assert_eq!(
        counts("allow-read-only-git"),
        serde_json::json!({"allow": 2})
    );
    for id in [
        "force-with-lease",
        "lockfiles-are-generated",
        "no-dbg",
        "markdown-tabs",
        "no-prod-db",
        "explore-reads-only",
        "test-before-stop",
    ] {
        assert_eq!(counts(id), serde_json::json!({}), "{id}");
    }
    assert_eq!(
        v["combined"],
        serde_json::json!({"allow": 2, "block": 7, "context": 2})
    );
    let rm = &v["rules"][0]["examples"];
    assert_eq!(rm.as_array().map(Vec::len), Some(7));
    assert_eq!(rm[0]["session"], "a2105fb9");
    assert_eq!(rm[0]["summary"], "Bash rm -rf build/");
    let (code, text, _) = run(&["replay", "--rules", EXAMPLE_RULES, "--all", "tests/corpus"]);
    assert_eq!(code, Some(0));
    assert!(text.contains("no-rm-rf: 394 PreToolUse events: block 7 (1.8%)\n  blocks: 4 new (no hook did this then: review these), 3 that a hook did then\n  block a2105fb9 PreToolUse toolu_017ewsxv2HgMNxq34i6Vs79k: Bash rm -rf build/ [new]\n"), "{text}");
    assert!(
        text.contains("\ncombined: allow 2, block 7, context 2\n"),
        "{text}"
    );
}

/// `--examples N` caps the JSON's examples too (the first N per rule and
/// verdict, the rest in `examples_left_out`); the counts do not change.
#[test]
fn backtest_json_keeps_the_examples_asked_for() {
    let (code, out, _) = run(&[
        "replay",
        "--rules",
        EXAMPLE_RULES,
        "--all",
        "tests/corpus",
        "--json",
        "--examples",
        "1",
    ]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    let rm = &v["rules"][0];
    assert_eq!(rm["id"], "no-rm-rf");
    assert_eq!(rm["counts"], serde_json::json!({"block": 7}));
    assert_eq!(rm["examples"].as_array().map(Vec::len), Some(1));
    assert_eq!(rm["examples"][0]["summary"], "Bash rm -rf build/");
    assert_eq!(rm["examples_left_out"], 6);
    // Present when 0 too: its blocks are all before the call ran.
    assert_eq!(rm["objections"], 0);
    assert_eq!(
        v["combined"],
        serde_json::json!({"allow": 2, "block": 7, "context": 2})
    );
}

#[test]
fn payload_envelope_with_rules_has_the_expected_outcome_and_without_none() {
    let (code, out, _) = run(&[
        "payload",
        C2,
        "--event",
        "PreToolUse",
        "--at",
        "toolu_01GFEgALJm405nI2WctBocud",
        "--envelope",
        "--rules",
        EXAMPLE_RULES,
    ]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["occurred"], true);
    assert_eq!(v["expected"]["rules"], EXAMPLE_RULES);
    assert_eq!(v["expected"]["decision"], "block");
    assert_eq!(v["expected"]["matched"][0]["id"], "no-rm-rf");
    assert_eq!(v["expected"]["matched"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["expected"]["outcome"]["effect"], "blocked");
    assert_eq!(
        v["expected"]["output"]["stdout"]["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    // A call no rule matches: the decision is `none`, nothing matched.
    let (_, out, _) = run(&[
        "payload",
        C2,
        "--event",
        "PreToolUse",
        "--at",
        "toolu_01iZZmNIegRYHeEO8XWQDf7M",
        "--envelope",
        "--rules",
        EXAMPLE_RULES,
    ]);
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["expected"]["decision"], "none");
    assert_eq!(v["expected"]["matched"], serde_json::json!([]));
    // Without --rules: only that the event occurred.
    let (_, out, _) = run(&["payload", C2, "--event", "PreToolUse", "--envelope"]);
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["occurred"], true);
    assert!(v.get("expected").is_none(), "{v}");
    // --rules needs --envelope.
    let (code, _, err) = run(&[
        "payload",
        C2,
        "--event",
        "PreToolUse",
        "--rules",
        EXAMPLE_RULES,
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--envelope"), "{err}");
}

/// A hand-made folder: one session with a Bash `rm -rf` call (no result: the
/// run was cut) followed by a truncated line, one session without any Bash
/// call (skipped by the prefilter without loading), and a file that is not
/// JSON at all. The backtest runs, counts the one block and says what it
/// skipped.
#[test]
fn backtest_over_hostile_files_counts_what_it_can_and_skips_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("-tmp-p");
    std::fs::create_dir(&project).expect("mkdir");
    let user = |uuid: &str, text: &str| {
        format!(
            r#"{{"type":"user","uuid":"{uuid}","sessionId":"s","cwd":"/tmp/p","permissionMode":"default","version":"2.1.332","timestamp":"2026-11-29T18:00:00Z","message":{{"role":"user","content":"{text}"}}}}"#
        )
    };
    let call = r#"{"type":"assistant","uuid":"a1","sessionId":"s","cwd":"/tmp/p","version":"2.1.332","timestamp":"2026-11-29T18:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_h1","name":"Bash","input":{"command":"rm -rf build"}}]}}"#;
    std::fs::write(
        project.join("11111111-1111-4111-8111-111111111111.jsonl"),
        format!(
            "{}\n{call}\n{{\"type\":\"assistant\",\"mess",
            user("u1", "clean up")
        ),
    )
    .expect("write");
    std::fs::write(
        project.join("22222222-2222-4222-8222-222222222222.jsonl"),
        format!("{}\n", user("u2", "hello")),
    )
    .expect("write");
    std::fs::write(
        project.join("33333333-3333-4333-8333-333333333333.jsonl"),
        b"\xff\xfe not json\n",
    )
    .expect("write");
    let rules = dir.path().join("r.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"rm\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"no\"\n[rules.only_if]\nprogram = \"rm\"\n",
    )
    .expect("write");
    let out = hookscope()
        .args(["replay", "--json", "--all", "--rules"])
        .arg(&rules)
        .arg(&project)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        v["rules"][0]["counts"],
        serde_json::json!({"block": 1}),
        "{v}"
    );
    assert_eq!(v["rules"][0]["examples"][0]["tool_use_id"], "toolu_h1");
    assert_eq!(v["rules"][0]["examples"][0]["session"], "11111111");
    // The session without Bash is skipped unloaded.
    assert_eq!(
        v["skipped"].as_u64(),
        Some(v["sessions"].as_u64().expect("sessions") - 1),
        "{v}"
    );
    // The one read lost its truncated last line, and says so.
    assert_eq!(v["with_diagnostics"], 1, "{v}");
    let first = v["diagnostics"][0].as_str().expect("a diagnostic");
    assert!(
        first.ends_with("11111111-1111-4111-8111-111111111111.jsonl:3: truncated last line (the session may still be being written)"),
        "{first}"
    );
    let text = hookscope()
        .args(["replay", "--all", "--rules"])
        .arg(&rules)
        .arg(&project)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("1 session read had lines or files the loader could not use (a match on one is not counted; `hookscope show SESSION` lists them), the first of each:\n  "),
        "{text}"
    );
}

/// c8435c6b (`hooks_c5_stop_block`) has two Stops in one turn (lines 75
/// and 82). A rule blocking every Stop backtests to two examples, each
/// named by the `--at` form that reaches it (`line:N`), in the table and
/// as `at` in `--json`.
#[test]
fn backtest_names_a_non_tool_event_by_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("r.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"stop\"\nevents = \"Stop\"\naction = \"block\"\nreason = \"no\"\n",
    )
    .expect("write");
    let rules = rules.to_str().expect("utf-8");
    let c5 = "tests/corpus/real-cc-2.1.332/hooks_c5_stop_block";
    let (code, text, _) = run(&["replay", "--rules", rules, "--all", c5]);
    assert_eq!(code, Some(0));
    assert!(
        // The transcript shows a hook blocking the first Stop, not the
        // one after it (stop_hook_active true).
        text.contains("stop: 2 Stop events: block 2 (100.0%)\n  blocks: 1 new (no hook did this then: review these), 1 that a hook did then\n  block c8435c6b Stop line:75: after: Hook scenario complete. [a hook did then]\n  block c8435c6b Stop line:82: after: Tests were run (pretend). Now I am really done. [new]\n"),
        "{text}"
    );
    let (code, out, _) = run(&["replay", "--rules", rules, "--all", c5, "--json"]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    let ex = &v["rules"][0]["examples"];
    assert_eq!(ex[0]["at"], "line:75");
    assert_eq!(ex[0]["tool_use_id"], Value::Null);
    assert_eq!(ex[1]["at"], "line:82");
}

/// `--at line:agent-<id>:N` addresses a line of a subagent's file
/// (assets/demo: the subagent a0ddb8d7d9a82d5fb has its tool_use on line 14
/// and its result on line 15, where its PostToolBatch is anchored: stderr
/// says so).
#[test]
fn at_a_subagent_line_replays_its_event_and_a_bad_agent_says_which_exist() {
    let (code, out, err) = run(&[
        "replay",
        "8bb2dece",
        "assets/demo",
        "--event",
        "PostToolBatch",
        "--at",
        "line:agent-a0ddb8d7d9a82d5fb:14",
        "--json",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(
        err,
        "hookscope: --at line:agent-a0ddb8d7d9a82d5fb:14 resolved to the PostToolBatch at line:agent-a0ddb8d7d9a82d5fb:15\n"
    );
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["payload"]["agent_id"], "a0ddb8d7d9a82d5fb");
    assert_eq!(v["source"]["line"], 15);
    assert!(
        v["source"]["transcript"]
            .as_str()
            .expect("path")
            .ends_with("agent-a0ddb8d7d9a82d5fb.jsonl")
    );
    assert_eq!(
        v["payload"]["tool_calls"][0]["tool_use_id"],
        "toolu_01dM1oJYP60BEcdfrRP89wcZ"
    );
    let (code, _, err) = run(&[
        "replay",
        "8bb2dece",
        "assets/demo",
        "--event",
        "PostToolBatch",
        "--at",
        "line:agent-nope:3",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("subagents: agent-a0ddb8d7d9a82d5fb"), "{err}");
}

/// A backtest over a Codex-only folder says why it counts 0 sessions
/// (`real-codex-0.171.0` holds 1 rollout file).
#[test]
fn backtest_of_a_codex_folder_says_its_sessions_were_left_out() {
    let dir = "tests/corpus/real-codex-0.171.0";
    let (code, out, _) = run(&["replay", "--rules", EXAMPLE_RULES, "--all", dir]);
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with("backtest of assets/rules/example.toml: 0 of 1 sessions (1 left out, below): 0 read, 0 skipped unread"),
        "{out}"
    );
    assert!(
        out.contains("1 Codex session left out: the backtest does not cover them yet"),
        "{out}"
    );
    let (_, out, _) = run(&["replay", "--rules", EXAMPLE_RULES, "--all", dir, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["sessions"], 0);
    assert_eq!(v["left_out"], serde_json::json!({"codex": 1}));
}

/// Droid sessions are evaluated (their payloads are rebuilt): over
/// `real-droid-0.225.2` (6 sessions, python3: one `rm -rf` call, the errors
/// run's `rm -rf build/` on line 13, which a hook blocked by exit 2 on
/// line 14), a rule blocking `rm -rf` blocks exactly that call, and the
/// split says it was blocked then; nothing is left out.
#[test]
fn backtest_evaluates_droid_sessions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("rules.toml");
    std::fs::write(
        &rules,
        r#"[[rules]]
id = "no-rm-rf"
events = "PreToolUse"
tool = "Bash"
action = "block"
reason = "no rm -rf"
[rules.only_if]
command = 'rm\s+-rf'
"#,
    )
    .expect("write");
    let rules = rules.to_str().expect("utf-8 path");
    let corpus = "tests/corpus/real-droid-0.225.2";
    let (code, out, err) = run(&["replay", "--rules", rules, "--all", corpus, "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["sessions"], 6, "{v}");
    assert_eq!(v["left_out"], serde_json::json!({}));
    let rule = &v["rules"][0];
    assert_eq!(rule["counts"], serde_json::json!({"block": 1}), "{rule}");
    assert_eq!(rule["blocks_then"], 1);
    assert_eq!(rule["blocks_new"], 0);
    let ex = &rule["examples"][0];
    assert_eq!(ex["tool_use_id"], "call_CQRmHwfk8ggbj3l8NR2Iqt2S");
    assert_eq!(ex["at"], "call_CQRmHwfk8ggbj3l8NR2Iqt2S");
    assert_eq!(ex["blocked_then"], true);
    let (code, out, _) = run(&["replay", "--rules", rules, "--all", corpus]);
    assert_eq!(code, Some(0));
    assert!(out.contains(": 6 sessions"), "{out}");
    assert!(!out.contains("left out"), "{out}");
}

/// Turn numbers in `--at` (and in the TUI's timeline and replay pane, which
/// open `--at`'s turn) count a resumed file's prompt-less lead as turn 1
/// (`show --json`'s `index` + 1): in small.jsonl, whose lead holds one call,
/// the first prompt (line 49, `show`'s outline `turn 1`) is `--at 2`, and
/// turn 1 has no UserPromptSubmit.
#[test]
fn turn_numbers_count_the_prompt_less_lead_of_a_resumed_file() {
    let f = "tests/corpus/agent-sessions/Resources/Fixtures/stage0/agents/claude/small.jsonl";
    let (code, out, _) = run(&[
        "replay",
        f,
        "--event",
        "UserPromptSubmit",
        "--at",
        "2",
        "--json",
    ]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["source"]["line"], 49);
    assert!(
        v["payload"]["prompt"]
            .as_str()
            .is_some_and(|p| p.starts_with("[image: [trimmed for fixture]")),
        "{v}"
    );
    let (code, _, err) = run(&["replay", f, "--event", "UserPromptSubmit", "--at", "1"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no UserPromptSubmit at turn 1"), "{err}");
}

/// The rule set of the backtest-share test: a block the session's hook
/// also made (`rm -rf`), a block no hook made (`echo`, twice) and a warn.
const SHARE_RULES: &str = r#"
[[rules]]
id = "no-rm-rf"
events = ["PreToolUse"]
tool = "Bash"
action = "block"
reason = "no"
only_if = { command = 'rm\s+-rf' }

[[rules]]
id = "no-echo"
events = ["PreToolUse"]
tool = "Bash"
action = "block"
reason = "no"
only_if = { command = '^echo\b' }

[[rules]]
id = "cd-warn"
events = ["PreToolUse"]
tool = "Bash"
action = "context"
reason = "cd"
only_if = { command = '^cd\b' }
"#;

/// The hooks_c2_exit2 session (12 `tool_use` blocks in its main file, 1 in
/// its subagent's: 13 PreToolUse events, recounted with python) whose own
/// hook blocked `rm -rf build/` (the tool_result of
/// toolu_01GFEgALJm405nI2WctBocud is the hook's exit-2 error). The backtest
/// shows each rule's denominator and share, splits blocks into the ones a
/// hook made then and the new ones, and lists examples up to --examples.
/// `^echo\b` blocks three calls: `echo original command`, the `echo` inside
/// `sh -c 'echo about to fail; exit 3'` (docs/rules.md "Rule sets": nested shells)
/// and `echo secret output here`.
#[test]
fn backtest_shows_share_and_new_blocks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = std::path::Path::new(C2);
    let name = src.file_name().expect("name");
    std::fs::copy(src, dir.path().join(name)).expect("copy");
    let sub = dir
        .path()
        .join("e1be136e-e2ee-4f2f-bdb9-5cd3211001fb/subagents");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let from = src.with_extension("").join("subagents");
    for f in [
        "agent-ac22ff0de8800e7ee.jsonl",
        "agent-ac22ff0de8800e7ee.meta.json",
    ] {
        std::fs::copy(from.join(f), sub.join(f)).expect("copy sub");
    }
    let rules = dir.path().join("r.toml");
    std::fs::write(&rules, SHARE_RULES).expect("rules");
    let root = dir.path().to_str().expect("utf-8");
    let rules = rules.to_str().expect("utf-8");
    let (code, text, _) = run(&["replay", "--rules", rules, "--all", root, "--examples", "1"]);
    assert_eq!(code, Some(0));
    // After the three header lines (sessions, events, what a rule counts).
    let body: Vec<&str> = text.lines().skip(3).collect();
    assert_eq!(
        body,
        [
            "no-rm-rf: 13 PreToolUse events: block 1 (7.7%)",
            "  blocks: 0 new (no hook did this then: review these), 1 that a hook did then",
            "  block e1be136e PreToolUse toolu_01GFEgALJm405nI2WctBocud: Bash rm -rf build/ [a hook did then]",
            "no-echo: 13 PreToolUse events: block 3 (23.1%)",
            "  blocks: 3 new (no hook did this then: review these), 0 that a hook did then",
            "  block e1be136e PreToolUse toolu_01iZZmNIegRYHeEO8XWQDf7M: Bash echo original command [new]",
            "  … 2 more block (--examples all)",
            "cd-warn: 13 PreToolUse events: context 1 (7.7%)",
            "  context e1be136e PreToolUse toolu_01uWGFAEQo4pz3NIN9GZRBvX: Bash cd src && pwd",
            "combined: block 4, context 1",
        ]
    );
    let (_, all, _) = run(&[
        "replay",
        "--rules",
        rules,
        "--all",
        root,
        "--examples",
        "all",
    ]);
    assert!(
        all.contains("Bash echo secret output here [new]\n"),
        "{all}"
    );
    let (code, out, _) = run(&["replay", "--rules", rules, "--all", root, "--json"]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["by_event"], serde_json::json!({"PreToolUse": 13}));
    let echo = &v["rules"][1];
    assert_eq!(echo["evaluated"], 13);
    assert_eq!(echo["blocks_new"], 3);
    assert_eq!(echo["blocks_then"], 0);
    assert_eq!(echo["examples"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        echo["examples"][1]["summary"],
        "Bash sh -c 'echo about to fail; exit 3'"
    );
    assert_eq!(echo["examples"][1]["blocked_then"], false);
    assert_eq!(v["rules"][0]["blocks_then"], 1);
    assert_eq!(v["rules"][0]["examples"][0]["blocked_then"], true);
    assert_eq!(v["rules"][2]["examples"][0]["blocked_then"], Value::Null);
}

/// A backtest over a folder without sessions says so on stderr, still
/// prints its (empty) summary, and exits 1: nothing was backtested.
#[test]
fn backtest_of_an_empty_folder_says_no_sessions_were_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("notes.txt"), "not a session\n").expect("write");
    let root = dir.path().to_str().expect("utf-8");
    let (code, out, err) = run(&["replay", "--rules", EXAMPLE_RULES, "--all", root]);
    assert_eq!(code, Some(1));
    assert_eq!(err, format!("hookscope: no sessions found under {root}\n"));
    assert!(
        out.starts_with("backtest of assets/rules/example.toml: 0 sessions"),
        "{out}"
    );
    // Without a PATH: every default location looked in is named (the
    // hermetic HOME has none of them).
    let home = tempfile::tempdir().expect("tempdir");
    let out = hookscope()
        .args(["replay", "--rules", EXAMPLE_RULES, "--all"])
        .env("HOME", home.path())
        .output()
        .expect("run");
    let h = home.path().display();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "hookscope: no sessions found under the default locations ({h}/.claude/projects, {h}/.codex/sessions, {h}/.codex/archived_sessions, {h}/.local/share/opencode/storage/session, {h}/.factory/sessions, {h}/.local/share/opencode/opencode.db; see `hookscope sessions --help`)\n"
        )
    );
    // A PATH with a control character is printed with it made visible.
    let odd = dir.path().join("a\u{1b}]0;x\u{7}b");
    std::fs::create_dir(&odd).expect("mkdir");
    let (_, _, err) = run(&[
        "replay",
        "--rules",
        EXAMPLE_RULES,
        "--all",
        odd.to_str().expect("utf-8"),
    ]);
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(err.contains("a\\x1b]0;x\\x07b"), "{err:?}");
}

/// A backtest over an OpenCode store (5 sessions) leaves them out and
/// suggests nothing OpenCode would refuse (no `replay SESSION --event E`).
#[test]
fn backtest_of_an_opencode_store_suggests_no_replay() {
    let db = "tests/corpus/real-opencode-1.18.33/data/opencode.db";
    let (code, out, _) = run(&["replay", "--rules", EXAMPLE_RULES, "--all", db]);
    assert_eq!(code, Some(0));
    let line = out
        .lines()
        .find(|l| l.contains("left out:"))
        .expect("a left-out line");
    assert_eq!(
        line,
        "5 OpenCode sessions left out: OpenCode has no hook payloads to rebuild (its hooks are JavaScript plugins called in-process, not commands fed JSON on stdin)"
    );
    assert!(!out.contains("--event"), "{out}");
}

/// The backtest's header says its event count is of the events evaluated
/// after the prefilters, so it is not read against the per-rule counts
/// below it (which count every event of the rule's kind): on the bundled
/// demo, 13 evaluated and 32 PreToolUse events per PreToolUse rule.
#[test]
fn the_backtest_header_says_what_its_event_count_counts() {
    let (code, out, _) = run(&["replay", "--rules", EXAMPLE_RULES, "--all", "assets/demo"]);
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with("backtest of assets/rules/example.toml: 2 sessions: 2 read, 0 skipped unread (no rule of the set can match there), 0 unreadable\n13 events rebuilt and run through the rules in the sessions read (the line prefilter skipped the others: no rule could match them)\neach rule counts every event of its kind in the 2 sessions read, those the line prefilter skipped included; its % is of that count\n"),
        "{out}"
    );
    assert!(
        out.contains("\nno-rm-rf: 32 PreToolUse events: never matched\n"),
        "{out}"
    );
}

/// The `tools` session ran `echo 'aws_access_key_id=AKIA…'`: a backtest's
/// example summary and a replay's history (and the why quoting the
/// command) show it masked, as the payload is.
#[test]
fn backtest_summaries_and_replay_history_mask_secrets() {
    const TOOLS: &str = "tests/corpus/real-cc-2.1.332/tools/projects/-home-dev-work-tools/e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl";
    const KEY: &str = "AKIAIOSFODNN7EXAMPLE";
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("r.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"aws\"\nevents = \"PreToolUse|Stop\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\nran_command = [\"echo\"]\n\n[[rules]]\nid = \"line\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\nline = 'aws_access'\n",
    )
    .expect("write");
    let rules = rules.to_string_lossy().to_string();
    let raw = std::fs::read_to_string(TOOLS).expect("corpus");
    assert!(raw.contains(KEY), "the fixture holds the key");
    for json in [false, true] {
        let mut args = vec![
            "replay",
            "--rules",
            &rules,
            "--all",
            TOOLS,
            "--examples",
            "all",
        ];
        if json {
            args.push("--json");
        }
        let (code, out, _) = run(&args);
        assert_eq!(code, Some(0), "{out}");
        assert!(
            out.contains("Bash echo 'aws_access_key_id=[REDACTED_"),
            "{out}"
        );
        assert!(!out.contains(KEY), "{out}");
    }
    let (code, out, _) = run(&[
        "replay", TOOLS, "--event", "Stop", "--rules", &rules, "--json",
    ]);
    assert_eq!(code, Some(0), "{out}");
    let v: Value = serde_json::from_str(&out).expect("json");
    let ran = v["history"]["ran_commands"].to_string();
    assert!(ran.contains("aws_access_key_id=[REDACTED_"), "{ran}");
    assert!(!out.contains(KEY), "{out}");
    assert!(
        v["redactions"].as_object().is_some_and(|m| !m.is_empty()),
        "{out}"
    );
}

/// A block whose outcome the transcript does not record (claude-code-viewer's
/// mock session has no hook traces) is marked "not checked", neither new
/// nor one a hook made then; on PostToolUse it is marked as an objection
/// after the call ran.
#[test]
fn a_block_the_transcript_cannot_check_is_marked_so() {
    let dir = tempfile::TempDir::new().expect("temp");
    let rules = dir.path().join("rules.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"post-echo\"\nevents = \"PostToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"r\"\n[rules.only_if]\nprogram = \"echo\"\n",
    )
    .expect("write");
    let rules = rules.to_string_lossy().into_owned();
    let (code, out, err) = run(&[
        "replay",
        "--all",
        "--rules",
        &rules,
        "tests/corpus/claude-code-viewer",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("post-echo: 173 PostToolUse events: block 5 (2.9%)\n  5 of the blocks after the call ran (PostToolUse: an objection the model reads, the call was not stopped)\n"),
        "{out}"
    );
    let marked: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("  block fe5e1c67 PostToolUse"))
        .collect();
    assert_eq!(marked.len(), 3, "{out}");
    assert!(
        marked.iter().all(|l| l.ends_with(
            " [not checked: the transcript does not tell] [after it ran: an objection]"
        )),
        "{out}"
    );
    let (code, out, err) = run(&[
        "replay",
        "--all",
        "--rules",
        &rules,
        "tests/corpus/claude-code-viewer",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["rules"][0]["objections"], 5);
}

/// The merged decision counts the events that would still happen under
/// the set: alone, a PostToolUse rule's five blocks on `echo` are
/// objections; beside a PreToolUse rule that blocks the same five calls
/// before they run, those PostToolUse events are left out of `combined`.
#[test]
fn combined_leaves_out_what_the_set_stops_before_it_runs() {
    let dir = tempfile::TempDir::new().expect("temp");
    let rule = |id: &str, event: &str| {
        format!(
            "[[rules]]\nid = \"{id}\"\nevents = \"{event}\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"r\"\n[rules.only_if]\nprogram = \"echo\"\n"
        )
    };
    let post = dir.path().join("post.toml");
    std::fs::write(&post, rule("post-echo", "PostToolUse")).expect("write");
    let both = dir.path().join("both.toml");
    std::fs::write(
        &both,
        format!(
            "{}\n{}",
            rule("pre-echo", "PreToolUse"),
            rule("post-echo", "PostToolUse")
        ),
    )
    .expect("write");
    let backtest = |rules: &std::path::Path, json: bool| {
        let rules = rules.to_string_lossy().into_owned();
        let mut args = vec![
            "replay",
            "--all",
            "--rules",
            &rules,
            "tests/corpus/claude-code-viewer",
        ];
        if json {
            args.push("--json");
        }
        let (code, out, err) = run(&args);
        assert_eq!(code, Some(0), "{err}");
        out
    };
    let out = backtest(&post, false);
    assert!(
        out.ends_with(
            "combined: block 5 (5 of the blocks after the call ran: objections, the call was not stopped)\n"
        ),
        "{out}"
    );
    let out = backtest(&both, false);
    assert!(
        out.contains("pre-echo: 200 PreToolUse events: block 5 (2.5%)\n"),
        "{out}"
    );
    assert!(
        out.ends_with(
            "combined: block 5 (5 PostToolUse/PostToolUseFailure events left out: the set blocks their call before it runs)\n"
        ),
        "{out}"
    );
    let v: Value = serde_json::from_str(&backtest(&both, true)).expect("json");
    assert_eq!(
        (
            &v["combined"],
            &v["combined_objections"],
            &v["combined_unreachable"]
        ),
        (
            &serde_json::json!({"block": 5}),
            &Value::from(0),
            &Value::from(5)
        )
    );
    // Each rule alone still counts its own blocks.
    assert_eq!(v["rules"][1]["counts"]["block"], 5);
}

/// A rule file whose test case names a payload file that is not there
/// (the example set copied elsewhere): `hookscope test` refuses it, with
/// the case's place; the commands that evaluate the rules (a backtest,
/// `hooks --install`) use its rules as the live hook does.
#[test]
fn a_missing_test_payload_stops_only_the_tests() {
    let dir = tempfile::TempDir::new().expect("temp");
    let rules = dir.path().join("rules.toml");
    std::fs::copy(crate::support::EXAMPLE_RULES, &rules).expect("copy");
    let rules = rules.to_string_lossy().into_owned();
    let (code, _, err) = run(&["test", &rules]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("{rules}:149:11: payload ")) && err.contains("cannot read"),
        "{err}"
    );
    let (code, out, err) = run(&[
        "replay",
        "--all",
        "--rules",
        &rules,
        "tests/corpus/real-cc-2.1.332",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("no-rm-rf: "), "{out}");
    let (code, out, err) = run(&["hooks", "--install", "--rules", &rules]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("hookscope hook --rules"), "{out}");
}

/// A backtest where every session is skipped unread says why its rules
/// count no event, and that its % is no rate over every session: the c2
/// session's Bash calls run no `zzqq`, so its one session is not read.
#[test]
fn a_backtest_that_reads_no_session_says_why_its_rules_count_no_event() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("r.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"zz\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"r\"\n[rules.only_if]\nprogram = \"zzqq\"\n",
    )
    .expect("write");
    let (code, out, _) = run(&[
        "replay",
        "--rules",
        rules.to_str().expect("utf-8"),
        "--all",
        C2,
        "--no-index",
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("1 session: 0 read, 1 skipped unread"), "{out}");
    assert!(
        out.contains("its % is of that count, not a rate over every session: the 1 skipped unread hold no event any rule can match"),
        "{out}"
    );
    assert!(
        out.contains("\nzz: 0 PreToolUse events: never matched (none of its events is in the sessions read; the sessions skipped unread hold none it can match)\n"),
        "{out}"
    );
}
