//! Rule sets end to end: the shipped example over its own test cases and
//! over every PreToolUse payload real Claude Code 2.1.332 sent
//! (`tests/corpus/real-cc-2.1.332/*/hooks/*/PreToolUse.jsonl`), and
//! hostile rule files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookscope_core::hooks::result::Effect;
use hookscope_core::hooks::rules::{History, RuleSet};
use serde_json::{Value, json};

use crate::support::{EXAMPLE_RULES, REAL_CC, write_file};

fn example() -> RuleSet {
    match RuleSet::load(Path::new(EXAMPLE_RULES)) {
        Ok(s) => s,
        Err(e) => panic!("example refused:\n{e}"),
    }
}

/// Every captured PreToolUse stdin, with its capture file.
fn captured_pretooluse() -> Vec<(PathBuf, Value)> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(REAL_CC)
        .expect("corpus")
        .map(|e| e.expect("entry").path().join("hooks"))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for hooks in dirs {
        let mut captures: Vec<PathBuf> = std::fs::read_dir(&hooks)
            .expect("hooks dir")
            .map(|e| e.expect("entry").path().join("PreToolUse.jsonl"))
            .filter(|p| p.is_file())
            .collect();
        captures.sort();
        for file in captures {
            let text = std::fs::read_to_string(&file).expect("capture");
            for line in text.lines() {
                let v: Value = serde_json::from_str(line).expect("json line");
                // A run with several handlers (hooks_c8_outcomes) captured
                // each firing once per handler; its `capture` handler saw
                // every one.
                if v["handler"].as_str().is_some_and(|h| h != "capture") {
                    continue;
                }
                out.push((file.clone(), v["stdin"].clone()));
            }
        }
    }
    out
}

#[test]
fn every_test_case_of_the_example_passes() {
    let set = example();
    let results = set.run_tests();
    let failed: Vec<String> = results
        .iter()
        .filter(|r| !r.passed)
        .map(|r| {
            format!(
                "line {}: {} expected {} got {}: {}",
                r.line, r.name, r.expected, r.got, r.why
            )
        })
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    // 12 rules; 60 rule cases + 3 whole-set cases (grep -c '^\[\[rules.tests\]\]' / '^\[\[tests\]\]')
    assert_eq!(set.rules.len(), 12);
    assert_eq!(results.iter().filter(|r| r.rule.is_some()).count(), 60);
    assert!(set.warnings().is_empty(), "{:?}", set.warnings());
    assert_eq!(results.iter().filter(|r| r.rule.is_none()).count(), 3);
}

#[test]
fn the_example_over_every_real_pretooluse_payload() {
    let set = example();
    let payloads = captured_pretooluse();
    // python over real-cc-2.1.332/*/hooks/*/PreToolUse.jsonl: 79 lines in 7
    // captures, and hooks_c8_outcomes' 10 firings (its `capture` handler's)
    assert_eq!(payloads.len(), 89);
    let mut verdicts: BTreeMap<&str, usize> = BTreeMap::new();
    for (file, p) in &payloads {
        let e = set.evaluate(p, &History::default());
        let command = p["tool_input"]["command"].as_str().unwrap_or("");
        let verdict = e.verdict();
        *verdicts.entry(verdict).or_default() += 1;
        match verdict {
            "block" => {
                assert_eq!(command, "rm -rf build/", "{}", file.display());
                assert_eq!(e.outcome.effect, Effect::Blocked);
                assert_eq!(
                    e.outcome.model_sees.as_deref(),
                    Some(
                        "rm -rf is blocked in this project. Move the folder aside with `trash <path>` (or `mv <path> /tmp/`) instead.\nIf the folder really must go, ask the user to delete it."
                    )
                );
                let why = e
                    .rules
                    .iter()
                    .find(|r| r.id == "no-rm-rf")
                    .expect("rule")
                    .why();
                assert_eq!(
                    why,
                    r#"event PreToolUse ✓ · tool Bash ✓ · program = "rm" ✓ (rm -rf build/) · command =~ ["(?-u:\b)rm(?:\s+\S+)*?\s+-[0-9A-Za-z_]*(?:[rR][0-9A-Za-z_]*f|f[0-9A-Za-z_]*[rR])", "(?-u:\b)rm(?:\s+\S+)*?\s+(?:-[0-9A-Za-z_]*[rR]|--r[a-z]*)(?:\s+\S+)*?\s+(?:-[0-9A-Za-z_]*f|--f[a-z]*|--interactive=never)", "(?-u:\b)rm(?:\s+\S+)*?\s+(?:-[0-9A-Za-z_]*f|--f[a-z]*|--interactive=never)(?:\s+\S+)*?\s+(?:-[0-9A-Za-z_]*[rR]|--r[a-z]*)"] ✓ on call 1 of 1 (rm -rf build/) · skip_if command =~ "(?-u)^rm\s+-\w+\s+/tmp/[\w-]+/?$" — not matched ✓"#
                );
                let out = e.output.stdout.clone().expect("json");
                assert_eq!(
                    out["hookSpecificOutput"]["permissionDecision"],
                    json!("deny")
                );
                assert_eq!(
                    out["systemMessage"],
                    json!("hookscope example: blocked an rm -rf")
                );
            }
            "allow" => {
                assert!(
                    ["git status --short", "git log --oneline -2"].contains(&command),
                    "{command}"
                );
                assert_eq!(p["permission_mode"], json!("default"));
            }
            "none" => {}
            other => panic!("unexpected verdict {other} for {}", p["tool_input"]),
        }
    }
    // rm -rf build/ once per capture but compact/compact (6); git status --short
    // only in compact/hooks_run1_compacted (1), git log --oneline -2 in
    // hooks_c8_outcomes (1)
    assert_eq!(
        verdicts,
        BTreeMap::from([("allow", 2), ("block", 6), ("none", 81)])
    );
}

#[test]
fn the_subagent_payloads_carry_agent_id_and_are_not_main() {
    // `ls src` ran inside a general-purpose subagent in all 6 hooks runs
    let set = RuleSet::parse(
        "[[rules]]\nid = \"main-only\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\nsubagent = false\n",
        "inline",
    )
    .expect("loads");
    let subagent_ls: Vec<Value> = captured_pretooluse()
        .into_iter()
        .map(|(_, p)| p)
        .filter(|p| p["tool_input"]["command"] == json!("ls src"))
        .collect();
    assert_eq!(subagent_ls.len(), 6);
    for p in &subagent_ls {
        let e = set.evaluate(p, &History::default());
        assert_eq!(e.verdict(), "none");
        assert!(
            e.rules[0].why().starts_with(
                "event PreToolUse ✓ · tool Bash ✓ · subagent = false ✗ (from subagent a"
            ),
            "{}",
            e.rules[0].why()
        );
    }
}

#[test]
fn the_real_stop_payloads_go_through_the_gate() {
    // hooks_c5_stop_block: Stop fired twice (stop_hook_active false, then true)
    let text = std::fs::read_to_string(format!(
        "{REAL_CC}/hooks_c5_stop_block/hooks/hooks_c5_stop_block/Stop.jsonl"
    ))
    .expect("capture");
    let set = example();
    let mut verdicts = Vec::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).expect("json");
        let p = &v["stdin"];
        let cwd = p["cwd"].as_str().expect("cwd");
        let history = History {
            touched_files: vec![format!("{cwd}/src/main.rs")],
            ran_commands: vec!["ls".into()],
            turn_prompt: Some("fix the build".into()),
        };
        let e = set.evaluate(p, &history);
        if e.verdict() == "block" {
            assert_eq!(
                e.output.stdout,
                Some(
                    json!({"decision":"block","reason":"You changed source files but did not run the tests. Run `cargo test` and fix what fails before stopping."})
                )
            );
        }
        let gate = e
            .rules
            .iter()
            .find(|r| r.id == "test-before-stop")
            .expect("gate");
        verdicts.push((p["stop_hook_active"].clone(), e.verdict(), gate.why()));
    }
    // The first Stop is blocked; the second (Claude Code going on after that
    // block) is let through, so the agent cannot loop.
    assert_eq!(
        verdicts,
        [
            (
                json!(false),
                "block",
                r#"event Stop|SubagentStop ✓ · stop_hook_active = false ✓ · prompt =~ "(?-u:\b)(fix|implement|refactor)(?-u:\b)" ✓ (fix) · touched_file ~ "src/**" ✓ (/home/dev/work/hooks_c5_stop_block/src/src/main.rs) · skip_if ran_command ["cargo test", "cargo nextest"] — not matched ✓"#.to_string()
            ),
            (
                json!(true),
                "none",
                "event Stop|SubagentStop ✓ · stop_hook_active = false ✗ (stop_hook_active is true)".to_string()
            ),
        ]
    );
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    write_file(dir.join(name), text)
}

#[test]
fn a_bad_toml_file_is_refused_with_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(
        dir.path(),
        "bad.toml",
        "[[rules]]\nid = \"a\"\nevents = \"PreToolUse\"\naction = \"allow\"\n\n[[rules]]\nid = 'b\nevents = \"Stop\"\n",
    );
    let err = RuleSet::load(&p).expect_err("refused");
    assert_eq!(err.errors.len(), 1);
    assert_eq!(err.errors[0].line, 7);
    assert!(
        err.to_string().starts_with(&format!("{}:7:", p.display())),
        "{err}"
    );
}

#[test]
fn one_bad_regex_refuses_the_whole_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(
        dir.path(),
        "r.toml",
        "[[rules]]\nid = \"fine\"\nevents = \"PreToolUse\"\naction = \"allow\"\n\n[[rules]]\nid = \"broken\"\nevents = \"PreToolUse\"\naction = \"allow\"\n[rules.only_if]\ncommand = '(?<name'\n",
    );
    let err = RuleSet::load(&p).expect_err("refused");
    assert_eq!(err.errors.len(), 1);
    assert_eq!(err.errors[0].line, 11);
    assert!(
        err.errors[0].message.starts_with("bad regex \"(?<name\""),
        "{}",
        err.errors[0].message
    );
}

#[test]
fn a_catastrophic_regex_runs_in_linear_time() {
    // `(x+x+)+y` takes exponential time in backtracking engines on "xxxx…";
    // the regex crate is automaton-based and linear in the input. No timing
    // is asserted: a backtracking engine would simply not finish.
    let set = RuleSet::parse(
        "[[rules]]\nid = \"evil\"\nevents = \"PreToolUse\"\naction = \"warn\"\nreason = \"r\"\n[rules.only_if]\ncommand = '(x+x+)+y'\ncontent = '(a|a)*b'\n",
        "inline",
    )
    .expect("loads");
    let p = json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command": format!("echo {}", "x".repeat(100_000))}});
    assert_eq!(set.evaluate(&p, &History::default()).verdict(), "none");
}

#[test]
fn ten_thousand_rules_load_and_evaluate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&format!(
            "[[rules]]\nid = \"r{i}\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"no tool{i}\"\n[rules.only_if]\nprogram = \"tool{i}\"\n"
        ));
    }
    let p = write(dir.path(), "big.toml", &text);
    let set = RuleSet::load(&p).expect("loads");
    assert_eq!(set.rules.len(), 10_000);
    let payload = json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"tool9999 --x"}});
    let e = set.evaluate(&payload, &History::default());
    assert_eq!(e.verdict(), "block");
    assert_eq!(e.rules.iter().filter(|r| r.matched).count(), 1);
    assert_eq!(e.outcome.model_sees.as_deref(), Some("no tool9999"));
}

#[cfg(unix)]
#[test]
fn a_non_utf8_path_loads_and_is_named_lossily() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let name = std::ffi::OsStr::from_bytes(b"rules-\xff.toml");
    let p = dir.path().join(name);
    std::fs::write(
        &p,
        "[[rules]]\nid = \"a\"\nevents = \"PreToolUse\"\naction = \"allow\"\n",
    )
    .expect("write");
    assert_eq!(RuleSet::load(&p).expect("loads").rules.len(), 1);
    std::fs::write(&p, "[[rules]]\nid = \"a\"\n").expect("write");
    let err = RuleSet::load(&p).expect_err("refused");
    assert!(
        err.errors[0].file.ends_with("rules-\u{fffd}.toml"),
        "{}",
        err.errors[0].file
    );
    assert!(
        err.errors[0].message.contains("missing field `events`"),
        "{}",
        err.errors[0].message
    );
}

#[test]
fn non_utf8_content_a_folder_and_a_missing_payload_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("latin1.toml");
    std::fs::write(&p, b"# ok\n# caf\xe9\n").expect("write");
    let err = RuleSet::load(&p).expect_err("refused");
    assert_eq!(
        (err.errors[0].line, err.errors[0].message.as_str()),
        (2, "not UTF-8 (byte 10)")
    );
    let err = RuleSet::load(dir.path()).expect_err("a folder");
    assert_eq!(
        err.errors[0].message,
        "cannot read: not a regular file (folder)"
    );
    let p = write(
        dir.path(),
        "t.toml",
        "[[tests]]\npayload = \"nope.json\"\nexpect = \"none\"\n",
    );
    let err = RuleSet::load(&p).expect_err("refused");
    assert_eq!(err.errors[0].line, 2);
    assert!(
        err.errors[0].message.starts_with("payload "),
        "{}",
        err.errors[0].message
    );
}

#[test]
fn a_payload_may_be_a_capture_line_or_an_envelope() {
    let dir = tempfile::tempdir().expect("tempdir");
    let stdin = json!({"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build/"}});
    std::fs::write(
        dir.path().join("capture.json"),
        json!({"event":"PreToolUse","stdin":stdin}).to_string(),
    )
    .expect("write");
    std::fs::write(
        dir.path().join("envelope.json"),
        json!({"claude_version":"2.1.332","payload":stdin}).to_string(),
    )
    .expect("write");
    std::fs::write(dir.path().join("list.json"), "[1]").expect("write");
    let rules = "[[rules]]\nid = \"r\"\nevents = \"PreToolUse\"\naction = \"block\"\nreason = \"no\"\n[rules.only_if]\nprogram = \"rm\"\n";
    let p = write(
        dir.path(),
        "ok.toml",
        &format!(
            "{rules}[[rules.tests]]\npayload = \"capture.json\"\nexpect = \"block\"\n[[rules.tests]]\npayload = \"envelope.json\"\nexpect = \"block\"\n"
        ),
    );
    let results = RuleSet::load(&p).expect("loads").run_tests();
    assert_eq!(
        results.iter().map(|r| r.passed).collect::<Vec<_>>(),
        [true, true]
    );
    assert_eq!(results[0].name, "PreToolUse Bash rm -rf build/");
    let p = write(
        dir.path(),
        "bad.toml",
        &format!("{rules}[[rules.tests]]\npayload = \"list.json\"\nexpect = \"block\"\n"),
    );
    let err = RuleSet::load(&p).expect_err("refused");
    assert_eq!(err.errors[0].line, 9);
    assert!(
        err.errors[0]
            .message
            .ends_with("list.json: not a JSON object"),
        "{}",
        err.errors[0].message
    );
}

#[test]
fn a_post_tool_use_block_carries_no_permission_decision() {
    // hookify emits permissionDecision on PostToolUse, where it means nothing
    // (anthropics/claude-code PR #68671); a rule set prints decision/reason
    let set = RuleSet::parse(
        "[[rules]]\nid = \"p\"\nevents = \"PostToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"the output holds a secret\"\n",
        "inline",
    )
    .expect("loads");
    let text = std::fs::read_to_string(format!("{REAL_CC}/hooks/hooks/hooks/PostToolUse.jsonl"))
        .expect("capture");
    let first: Value = serde_json::from_str(text.lines().next().expect("line")).expect("json");
    let e = set.evaluate(&first["stdin"], &History::default());
    assert_eq!(first["stdin"]["tool_name"], "Bash");
    assert_eq!(
        e.output.stdout,
        Some(json!({"decision":"block","reason":"the output holds a secret"}))
    );
    assert_eq!(e.outcome.effect, Effect::Blocked);
    assert!(
        e.outcome.why.iter().any(|w| w.contains("already ran")),
        "{:?}",
        e.outcome.why
    );
}

/// A `command` regex anchored at the program (`^git\s+push\b`) is tested
/// against the call without its leading `VAR=val` words and with wrappers
/// stripped, so `FOO=1 git push` and `sudo -u root git push` match; the ✗
/// why lists every text it tested.
#[test]
fn a_command_regex_sees_through_assignments_and_wrappers() {
    let set = RuleSet::parse(
        "[[rules]]\nid = \"push\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"r\"\n[rules.only_if]\ncommand = '^git\\s+push\\b'\n",
        "inline",
    )
    .expect("loads");
    let eval = |cmd: &str| {
        let p = json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command": cmd}});
        set.evaluate(&p, &History::default()).rules[0].why()
    };
    assert_eq!(
        eval("FOO=1 git push origin"),
        "event PreToolUse ✓ · tool Bash ✓ · command =~ \"^git\\s+push\\b\" ✓ on call 1 of 1 (git push origin, from \"FOO=1 git push origin\")"
    );
    assert_eq!(
        eval("cd x && sudo -u root git push"),
        "event PreToolUse ✓ · tool Bash ✓ · command =~ \"^git\\s+push\\b\" ✓ on call 2 of 2 (git push, from \"sudo -u root git push\")"
    );
    for cmd in [
        "nohup git push",
        "env A=b git push",
        "time git push",
        "nice -n 5 git push",
        "command git push",
        "exec git push",
    ] {
        assert!(
            eval(cmd).contains("✓ on call 1 of 1 (git push, from"),
            "{cmd}"
        );
    }
    assert_eq!(
        eval("git push"),
        "event PreToolUse ✓ · tool Bash ✓ · command =~ \"^git\\s+push\\b\" ✓ on call 1 of 1 (git push)"
    );
    assert_eq!(
        eval("ls -la"),
        "event PreToolUse ✓ · tool Bash ✓ · command =~ \"^git\\s+push\\b\" ✗ (tested: \"ls -la\")"
    );
    assert_eq!(
        eval("X=1 sudo 'echo' git"),
        "event PreToolUse ✓ · tool Bash ✓ · command =~ \"^git\\s+push\\b\" ✗ (tested: \"X=1 sudo 'echo' git\", \"sudo echo git\", \"echo git\")"
    );
}

/// The why of a hook's output quotes the hook's values plainly (as
/// written, no Rust escapes): a `"` inside stays a `"`, `é` stays `é`.
#[test]
fn output_warnings_quote_values_plainly() {
    use hookscope_core::hooks::result::interpret_output;
    let why = |event: &str, stdout: &str| interpret_output(event, 0, stdout, "").why;
    let w = why(
        "PreToolUse",
        r#"{"hookSpecificOutput":{"hookEventName":"Pré\"Tool"}}"#,
    );
    assert!(
        w.contains(&"hookSpecificOutput.hookEventName is \"Pré\"Tool\", not \"PreToolUse\": Claude Code rejects it (docs/contract.md#json-output-fields)".to_string()),
        "{w:?}"
    );
    let w = why(
        "PermissionRequest",
        r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"ask\\me"}}}"#,
    );
    assert!(
        w.contains(&"decision.behavior \"ask\\me\" is not allow or deny: ignored".to_string()),
        "{w:?}"
    );
    let w = why("Stop", r#"{"decision":"apprové"}"#);
    assert!(
        w.contains(
            &"top-level decision \"apprové\" is not \"block\": ignored (docs/contract.md#decision-control-per-event)".to_string()
        ),
        "{w:?}"
    );
}
