//! `hookscope hooks --activity SESSION [--json] [PATH...]` (docs/cli.md#hookscope-hooks---activity-what-the-transcript-says-hooks-did) on
//! the real-cc-2.1.332 captures. Expected values were read from the JSONL
//! with python3 (see tests/core/hook_activity.rs for the recount) and from the
//! captures' `_responses.jsonl`.

use std::path::PathBuf;

use serde_json::Value;

use crate::support::{corpus, hookscope};

fn capture(name: &str) -> PathBuf {
    corpus("real-cc-2.1.332").join(name)
}

/// `hookscope ARGS`: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = hookscope().args(args).output().expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn activity_table_names_the_blocking_handler() {
    let projects = capture("hooks_c2_exit2").join("projects");
    let dir = projects.to_string_lossy();
    let (code, out, err) = run(&["hooks", "--activity", "e1be136e", &dir]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("line 45"), "{out}");
    assert!(lines[0].contains("PreToolUse:Bash"), "{out}");
    assert!(lines[0].contains("toolu_01GFEgALJm405nI2WctBocud"), "{out}");
    assert!(
        lines[0].contains(
            "blocked by hook: Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)"
        ),
        "{out}"
    );
    assert!(
        lines[0].contains("[python3 /home/dev/.hooks/hook.py hooks_c2_exit2 PreToolUse (exit 2)]"),
        "{out}"
    );
    assert!(lines[1].starts_with("line 76"), "{out}");
    assert!(lines[1].contains("ran, no effect"), "{out}");
    assert!(lines[1].contains("(18 ms)"), "{out}");
}

#[test]
fn activity_json_has_one_object_per_firing() {
    let projects = capture("hooks_c5_stop_block").join("projects");
    let dir = projects.to_string_lossy();
    let (code, out, err) = run(&["hooks", "--activity", "c8435c6b", "--json", &dir]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    let items = v.as_array().expect("array");
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["event"], "Stop");
    assert_eq!(items[0]["action"], "blocked");
    assert_eq!(items[0]["lines"], serde_json::json!([76, 77, 78]));
    assert_eq!(
        items[0]["reason"],
        "Stop hook says: please also run the tests before stopping."
    );
    assert_eq!(
        items[0]["command"],
        "python3 /home/dev/.hooks/hook.py hooks_c5_stop_block Stop"
    );
    assert_eq!(items[0]["agent_id"], Value::Null);
    assert!(
        items[0]["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("c8435c6b-9aae-401c-ba5f-97def3faba72.jsonl"))
    );
    assert_eq!(items[1]["action"], "succeeded");
    assert_eq!(items[1]["duration_ms"], 15);
}

#[test]
fn a_session_without_hook_records_says_so() {
    let projects = capture("tools").join("projects");
    let dir = projects.to_string_lossy();
    let (code, out, _) = run(&["hooks", "--activity", "e71e9aa1", &dir]);
    assert_eq!(code, 0);
    assert_eq!(
        out.trim(),
        "no hook activity recorded in e71e9aa1-2571-47ab-8bf7-9e6efaaedfff"
    );
    let (code, out, _) = run(&["hooks", "--activity", "e71e9aa1", "--json", &dir]);
    assert_eq!(code, 0);
    assert_eq!(out.trim(), "[]");
}

#[test]
fn an_unknown_session_exits_2() {
    let projects = capture("tools").join("projects");
    let dir = projects.to_string_lossy();
    let (code, _, err) = run(&["hooks", "--activity", "zzzz", &dir]);
    assert_eq!(code, 2);
    assert_eq!(err.trim(), "hookscope: no session matches \"zzzz\"");
}

#[test]
fn find_blocked_flag_lists_the_three_blocked_calls() {
    let root = capture("");
    let dir = root.to_string_lossy();
    let (code, out, err) = run(&[
        "find",
        &dir,
        "--tool-name-pattern",
        "",
        "--blocked",
        "--hook",
        "PreToolUse",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    let mut ids: Vec<&str> = v["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| r["tool_use_id"].as_str().unwrap_or(""))
        .collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "toolu_0138h77ojpT1t3A4y1yWKgjr",
            "toolu_01GFEgALJm405nI2WctBocud",
            // c8's git push: its PreToolUse hook asked, -p denied it.
            "toolu_01RQ1iz1XkupduEYRX4OQTB2"
        ]
    );
    // c8's `npm test`, rewritten twice on the main thread and once in its
    // subagent: the table's header and three rows; the count on stderr.
    let (code, out, err) = run(&["find", &dir, "--tool-name-pattern", "", "--rewritten"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(err.starts_with("3 records"), "{err}");
    // Each row says what the model asked and what the hook rewrote it to.
    for row in out.lines().skip(1) {
        assert!(row.ends_with("npm test → npm test -- --silent"), "{row}");
    }
    // c8's `git commit`, objected to after it ran.
    let (code, out, err) = run(&["find", &dir, "--filter", "is:flagged"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("git commit -am"), "{out}");
    assert!(err.starts_with("1 record"), "{err}");
}

/// Over the whole corpus, `--blocked` lists the calls a hook stopped before
/// they ran (PreToolUse, PermissionRequest), with or without the index: the
/// three Claude Code calls above and Droid's `rm -rf`. The agent-sessions
/// fixture whose record names were trimmed (`[trimmed for fixture]`, also
/// its hook's event) keeps a blocking record on a call, but on an event
/// hookscope cannot place before the call: it is not listed, and
/// `--blocked false` keeps it.
#[test]
fn blocked_means_stopped_before_it_ran_across_the_corpus() {
    let dir = corpus("");
    let dir = dir.to_string_lossy();
    let ids = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["find", &dir, "--tool-name-pattern", ""];
        args.extend_from_slice(extra);
        found_ids(&args)
    };
    let want = [
        "call_CQRmHwfk8ggbj3l8NR2Iqt2S",
        "toolu_0138h77ojpT1t3A4y1yWKgjr",
        "toolu_01GFEgALJm405nI2WctBocud",
        "toolu_01RQ1iz1XkupduEYRX4OQTB2",
    ];
    assert_eq!(ids(&["--blocked"]), want);
    assert_eq!(ids(&["--blocked", "--no-index"]), want);
    // The trimmed record, by its name and its hook's.
    let trimmed = |last: &[&str]| {
        let mut args = vec![
            "find",
            &dir,
            "--tool-name",
            "[trimmed for fixture]",
            "--hook",
            "[trimmed for fixture]",
        ];
        args.extend_from_slice(last);
        run(&args)
    };
    let (code, out, err) = trimmed(&["--filter", "is:blocked"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "", "no table over no records");
    assert!(err.starts_with("0 records"), "{err}");
    let (code, out, err) = trimmed(&["--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["records"][0]["hook_activity"][0]["action"], "blocked");
}

/// `-is:blocked` is `blocked = false`: with `is:error`, the Bash calls
/// that ran and failed (the corpus's 23 failed Bash calls less the 3 a
/// hook blocked), the same with and without the index, as ids and as a
/// count.
#[test]
fn minus_is_blocked_lists_the_calls_that_ran_and_failed() {
    let dir = corpus("");
    let dir = dir.to_string_lossy();
    let ids = |filter: &str, extra: &[&str]| -> Vec<String> {
        let mut args = vec!["find", &dir, "--filter", filter];
        args.extend_from_slice(extra);
        found_ids(&args)
    };
    let failed = ids("tool:Bash is:error", &[]);
    let blocked = ids("tool:Bash is:error is:blocked", &[]);
    let ran = ids("tool:Bash is:error -is:blocked", &[]);
    assert_eq!((failed.len(), blocked.len(), ran.len()), (23, 3, 20));
    let rest: Vec<String> = failed
        .iter()
        .filter(|id| !blocked.contains(id))
        .cloned()
        .collect();
    assert_eq!(ran, rest);
    assert_eq!(ids("tool:Bash is:error -is:blocked", &["--no-index"]), ran);
    let (code, out, _) = run(&[
        "find",
        &dir,
        "--filter",
        "tool:Bash is:error -is:blocked",
        "--count",
    ]);
    assert_eq!((code, out.as_str()), (0, "20\n"));
}

/// The sorted `tool_use_id`s of `find ARGS --json` (which must succeed).
fn found_ids(args: &[&str]) -> Vec<String> {
    let mut args = args.to_vec();
    args.push("--json");
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    let mut ids: Vec<String> = v["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| r["tool_use_id"].as_str().unwrap_or("").to_string())
        .collect();
    ids.sort_unstable();
    ids
}
