//! `hookscope sessions` / `hookscope show` on the shared corpus, run as a
//! process. Expected ids and counts were counted from the JSONL files (see
//! tests/core/claude_code_corpus.rs for how).

use assert_cmd::Command;
use serde_json::Value;

use crate::support::{corpus, hookscope};

fn stdout_json(cmd: &mut Command) -> Value {
    let out = cmd.assert().success().get_output().clone();
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn ids(calls: &Value) -> Vec<&str> {
    calls
        .as_array()
        .expect("array")
        .iter()
        .map(|c| c["tool_use_id"].as_str().expect("tool_use_id"))
        .collect()
}

#[test]
fn sessions_json_for_the_subagent_scenario() {
    let dir = corpus("real-cc-2.1.332/subagent/projects");
    let v = stdout_json(hookscope().arg("sessions").arg(&dir).arg("--json"));
    let rows = v.as_array().expect("array");
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row["id"], "8bb2dece-a24f-43d4-80d6-3ee9a889b550");
    assert_eq!(row["agent"], "claude-code");
    assert_eq!(row["version"], "2.1.332");
    assert_eq!(row["cwd"], "/home/dev/work/subagent");
    assert_eq!(
        row["title"],
        "[scenario:subagent] Inspect this repository using subagents."
    );
    assert_eq!(row["turns"], 1);
    // Every thread's calls: 4 in the main file, 1 + 2 + 1 + 1 in the four
    // subagent files (recounted with python: unique tool_use ids per file).
    assert_eq!(row["tool_calls"], 9);
    assert_eq!(row["errors"], 0);
    assert_eq!(row["subagents"], 4);
    assert_eq!(row["diagnostics"], 0);
}

#[test]
fn sessions_json_for_the_viewer_project() {
    let dir = corpus("claude-code-viewer/mock-global-claude-dir/projects");
    let v = stdout_json(hookscope().arg("sessions").arg(&dir).arg("--json"));
    let mut rows: Vec<(String, u64, u64, u64, u64)> = v
        .as_array()
        .expect("array")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().expect("id").to_string(),
                r["turns"].as_u64().expect("turns"),
                r["tool_calls"].as_u64().expect("tool_calls"),
                r["errors"].as_u64().expect("errors"),
                r["subagents"].as_u64().expect("subagents"),
            )
        })
        .collect();
    rows.sort();
    // The sibling agent-test-hash-*.jsonl are not sessions of their own.
    // tool_calls/errors count every thread (python recount: 5c0375b4 has 13
    // main + 8 inline sidechain calls, 2 + 1 errors; fe5e1c67 11 main + 156
    // inline, 0 + 23 errors).
    assert_eq!(
        rows,
        vec![
            (
                "1af7fc5e-8455-4414-9ccd-011d40f70b2a".to_string(),
                1,
                12,
                1,
                0
            ),
            (
                "5c0375b4-57a5-4f26-b12d-d022ee4e51b7".to_string(),
                1,
                21,
                3,
                4
            ),
            (
                "fe5e1c67-53e7-4862-81ae-d0e013e3270b".to_string(),
                2,
                167,
                23,
                5
            ),
        ]
    );
}

#[test]
fn show_json_lists_calls_in_order_with_nested_subagent_calls() {
    let dir = corpus("real-cc-2.1.332/subagent/projects");
    let v = stdout_json(hookscope().args(["show", "8bb2"]).arg(&dir).arg("--json"));
    assert_eq!(v["id"], "8bb2dece-a24f-43d4-80d6-3ee9a889b550");
    let turns = v["turns"].as_array().expect("turns");
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0]["line"], 3);
    let calls = &turns[0]["tool_calls"];
    assert_eq!(
        ids(calls),
        vec![
            "toolu_01EoVg2LEYBcgsNqrLdx6tDq",
            "toolu_01RNYJFbxX2Ngbhqr7ThQaWg",
            "toolu_01aWUpYqUJUYg412bh1nwfKI",
            "toolu_01QsDwoBvXrX9cAOXPn1lNLy",
        ]
    );
    let nested: Vec<(&str, &str, Vec<&str>)> = calls
        .as_array()
        .expect("calls")
        .iter()
        .map(|c| {
            let sub = &c["subagent"];
            (
                sub["agent_id"].as_str().expect("agent_id"),
                sub["link"].as_str().expect("link"),
                ids(&sub["tool_calls"]),
            )
        })
        .collect();
    assert_eq!(
        nested,
        vec![
            (
                "a9a1865f5e2572fa1",
                "meta_tool_use_id",
                vec![
                    "toolu_01dWuUXlkTZoL5K7RXhzXTZs",
                    "toolu_01DIgoxeg8ZxqYQ6XNQPwD7s"
                ]
            ),
            (
                "a460e426666c15a15",
                "meta_tool_use_id",
                vec!["toolu_01jnpTxdhXKCZgdSENXyt8je"]
            ),
            (
                "a254c4c26332d0a9d",
                "meta_tool_use_id",
                vec!["toolu_01ODoKPi4xQIP1UU1UbS5ZcO"]
            ),
            (
                "a0ddb8d7d9a82d5fb",
                "meta_tool_use_id",
                vec!["toolu_01dM1oJYP60BEcdfrRP89wcZ"]
            ),
        ]
    );
    assert_eq!(calls[0]["subagent"]["tool_calls"][1]["name"], "Read");
    assert_eq!(v["unlinked_subagents"], Value::Array(vec![]));
    assert_eq!(v["diagnostic_messages"], Value::Array(vec![]));
}

#[test]
fn show_json_keeps_unlinked_sibling_subagents() {
    let dir = corpus("claude-code-viewer/mock-global-claude-dir/projects");
    let v = stdout_json(hookscope().args(["show", "5c03"]).arg(&dir).arg("--json"));
    let unlinked: Vec<(&str, &str)> = v["unlinked_subagents"]
        .as_array()
        .expect("unlinked")
        .iter()
        .map(|s| {
            (
                s["agent_id"].as_str().expect("agent_id"),
                s["layout"].as_str().expect("layout"),
            )
        })
        .collect();
    assert_eq!(
        unlinked,
        vec![("test-hash-123", "sibling"), ("test-hash-456", "sibling")]
    );
    // The inline subagents hang under their Task calls (indices 5 and 7).
    let calls = &v["turns"][0]["tool_calls"];
    assert_eq!(calls[5]["tool_use_id"], "toolu_014YF9TXhDRR7BnpasNJ7gjC");
    assert_eq!(calls[5]["subagent"]["link"], "prompt_text");
    assert_eq!(calls[5]["subagent"]["layout"], "inline");
    assert_eq!(
        ids(&calls[5]["subagent"]["tool_calls"]),
        vec![
            "toolu_01Jcrb8BoK8qgGGsycHsPYNo",
            "toolu_017Uj8NydfpTP1sKZ8hxWeko"
        ]
    );
    // The failed first Task spawned nothing.
    assert_eq!(calls[4]["tool_use_id"], "toolu_018t5jce2ZNoGr2ADsHGQife");
    assert_eq!(calls[4]["is_error"], true);
    // ...and carries no subagent key: its keys are exactly these.
    let keys: Vec<&str> = calls[4]
        .as_object()
        .expect("a call")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "tool_use_id",
            "name",
            "tool_kind",
            "tool_resolved",
            "is_error",
            "input",
            "file_path",
            "digest",
            "timestamp",
            "line"
        ]
    );
}

fn stderr_of_failure(cmd: &mut Command) -> String {
    let out = cmd.assert().code(2).get_output().clone();
    assert!(out.stdout.is_empty(), "stdout should be empty");
    let err = String::from_utf8(out.stderr).expect("utf-8 stderr");
    assert_eq!(err.lines().count(), 1, "one stderr line, got {err:?}");
    assert!(err.ends_with('\n'));
    err
}

/// A refusal with `--json`: exit 2, stderr empty, stdout the JSON error
/// object; its message as the text line (`hookscope: <why>\n`) would say it.
fn json_failure(cmd: &mut Command) -> String {
    let out = cmd.assert().code(2).get_output().clone();
    assert!(out.stderr.is_empty(), "stderr should be empty");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(v["error"], "invalid_argument");
    format!("hookscope: {}\n", v["message"].as_str().expect("message"))
}

#[test]
fn ambiguous_session_prefix_exits_2() {
    // "e" starts e71e9aa1…, e1be136e… and edge_cases.
    let err = json_failure(
        hookscope()
            .args(["show", "e"])
            .arg(corpus(""))
            .arg("--json"),
    );
    assert!(
        err.starts_with("hookscope: \"e\" matches 3 sessions ("),
        "{err}"
    );
    assert!(err.ends_with("); give more of the id\n"), "{err}");
    for id in [
        "e71e9aa1-2571-47ab-8bf7-9e6efaaedfff",
        "e1be136e-e2ee-4f2f-bdb9-5cd3211001fb",
        "edge_cases",
    ] {
        assert!(err.contains(id), "{err}");
    }
}

#[test]
fn unknown_session_exits_2() {
    let err = stderr_of_failure(
        hookscope()
            .args(["show", "zzz"])
            .arg(corpus("real-cc-2.1.332/subagent/projects")),
    );
    assert_eq!(err, "hookscope: no session matches \"zzz\"\n");
}

#[test]
fn bad_path_exits_2() {
    let missing = corpus("no-such-folder");
    let err = json_failure(hookscope().arg("sessions").arg(&missing).arg("--json"));
    assert_eq!(
        err,
        format!(
            "hookscope: no such file or directory: {}\n",
            missing.display()
        )
    );
    let err = stderr_of_failure(hookscope().args(["show", "8bb2"]).arg(&missing));
    assert_eq!(
        err,
        format!(
            "hookscope: no such file or directory: {}\n",
            missing.display()
        )
    );
}

#[test]
fn show_refuses_an_id_shared_by_two_files() {
    // agent-sessions has a Claude and a Codex fixture both named
    // schema_drift.jsonl.
    let out = hookscope()
        .args(["show", "schema_drift"])
        .arg(corpus("agent-sessions"))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"schema_drift\" is the id of 2 sessions")
            && stderr.contains("[codex]")
            && stderr.contains("[claude-code]")
            && stderr.contains("pass the file path instead"),
        "{stderr}"
    );
}

#[test]
fn find_says_when_a_session_names_nothing_and_summarizes_codex_commands() {
    let out = hookscope()
        .args(["find", "--tool-name", "exec_command", "--session", "zzz"])
        .arg(corpus("real-codex-0.171.0"))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    // A `--session` that names no session is a bad argument (exit 2), as
    // for `show`: not "0 records"; with --json the error object.
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        "hookscope: invalid argument: no session matches \"zzz\" (an id or a unique id prefix; `hookscope sessions` lists them)\n"
    );
    assert!(out.stdout.is_empty());
    let out = hookscope()
        .args(["find", "--tool-name", "exec_command", "--json", "--count"])
        .args(["--session", "zzz"])
        .arg(corpus("real-codex-0.171.0"))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["error"], "invalid_argument");
    // The table shows a Codex exec_command by its `cmd`, not as JSON.
    let out = hookscope()
        .args([
            "find",
            "--tool-name",
            "exec_command",
            "--input-contains",
            "ls -la",
        ])
        .arg(corpus("real-codex-0.171.0"))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let row = stdout.lines().nth(1).unwrap_or_default();
    assert!(row.trim_end().ends_with("  ls -la"), "{stdout}");
}

/// A command line with a non-UTF-8 argument (`0xff`): clap refuses it or the
/// subcommand reports it, always exit 2 with a message, never a panic.
#[test]
fn non_utf8_arguments_exit_2_without_panicking() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let bad = OsStr::from_bytes(b"\xff");
    let bad_flag = OsStr::from_bytes(b"--\xff");
    let subagent = corpus("real-cc-2.1.332/subagent/projects");
    let cases: Vec<(Vec<&OsStr>, &str)> = vec![
        (
            vec![OsStr::new("find"), OsStr::new("--tool-name"), bad],
            "error: invalid UTF-8 was detected in one or more arguments",
        ),
        (
            vec![OsStr::new("call"), bad],
            "error: invalid UTF-8 was detected in one or more arguments",
        ),
        (
            vec![OsStr::new("sessions"), bad_flag],
            "error: unexpected argument '--\u{fffd}' found",
        ),
        (
            vec![OsStr::new("mcp"), bad_flag],
            "error: unexpected argument '--\u{fffd}' found",
        ),
        // SESSION is an OsString: no clap error, just no such session.
        (
            vec![OsStr::new("show"), bad, subagent.as_os_str()],
            "hookscope: no session matches \"\u{fffd}\"",
        ),
        // PATHs are paths: any bytes, then "no such file".
        (
            vec![OsStr::new("sessions"), bad],
            "hookscope: no such file or directory: \u{fffd}",
        ),
    ];
    for (args, first_line) in cases {
        let out = hookscope()
            .args(&args)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().next(), Some(first_line), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // `find --json` keeps its contract: the invalid_argument object on stdout.
    let out = hookscope()
        .args([
            OsStr::new("find"),
            OsStr::new("--json"),
            OsStr::new("--tool-name"),
            bad,
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stderr.is_empty());
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(
        v,
        serde_json::json!({
            "error": "invalid_argument",
            "message": "invalid UTF-8 was detected in one or more arguments"
        })
    );
}

/// `--tool-name-pattern ''` is set and matches every tool: the subagent
/// session's 9 calls (4 Agent in the main file; Bash+Read, Bash, Read, Bash in
/// its four subagents — counted with python over the five JSONL files).
#[test]
fn empty_tool_name_pattern_lists_every_call() {
    let dir = corpus("real-cc-2.1.332/subagent/projects");
    let v = stdout_json(
        hookscope()
            .args(["find", "--tool-name-pattern", "", "--json"])
            .arg(&dir),
    );
    let records = v["records"].as_array().expect("records");
    let mut names: Vec<&str> = records
        .iter()
        .map(|r| r["tool_name"].as_str().expect("tool_name"))
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "Agent", "Agent", "Agent", "Agent", "Bash", "Bash", "Bash", "Read", "Read"
        ]
    );
}

/// A minimal Codex rollout: `session_meta` with `id`, one user message and
/// one `exec_command` call with its output.
fn codex_rollout(id: &str, time: &str, cmd: &str) -> String {
    let lines = [
        serde_json::json!({"timestamp": time, "type": "session_meta",
            "payload": {"id": id, "timestamp": time, "cwd": "/w", "cli_version": "0.171.0"}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "list files"}]}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "function_call", "name": "exec_command",
                "arguments": serde_json::json!({"cmd": cmd}).to_string(), "call_id": format!("call_{cmd}")}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": format!("call_{cmd}"),
                "output": "Process exited with code 0\nOutput:\n"}}),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Two Codex sessions whose UUIDv7 ids share their first 12 hex chars (and
/// the "-7" after them): the find table shows each by its shortest unique
/// prefix (16 chars), and that prefix selects it with `--session`; a third,
/// unrelated id keeps 8 chars.
#[test]
fn find_table_shows_unique_prefixes_of_time_based_ids() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = dir.path().join("sessions/2026/11/29");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    let a = "019ad8e1-4b2c-7a10-8f00-0123456789ab";
    let b = "019ad8e1-4b2c-7d55-9e11-fedcba987654";
    let c = "7f3e0000-0000-4000-8000-000000000001";
    for (id, time, cmd) in [
        (a, "2026-11-29T18:00:01Z", "pwd"),
        (b, "2026-11-29T18:00:02Z", "ls"),
        (c, "2026-11-29T18:00:03Z", "id"),
    ] {
        std::fs::write(
            sessions.join(format!("rollout-2026-11-29T18-00-00-{id}.jsonl")),
            codex_rollout(id, time, cmd),
        )
        .expect("write rollout");
    }
    let out = hookscope()
        .args(["find", "--tool-name", "exec_command"])
        .arg(dir.path())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let cells: Vec<(&str, &str)> = stdout
        .lines()
        .skip(1)
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            (words[2], words[words.len() - 1])
        })
        .collect();
    assert_eq!(
        cells,
        [
            ("7f3e0000", "id"),
            ("019ad8e1-4b2c-7d", "ls"),
            ("019ad8e1-4b2c-7a", "pwd")
        ],
        "{stdout}"
    );
    // The shown prefix is accepted by --session.
    let v = stdout_json(
        hookscope()
            .args(["find", "--tool-name", "exec_command", "--json"])
            .args(["--session", "019ad8e1-4b2c-7d"])
            .arg(dir.path()),
    );
    assert_eq!(v["records"][0]["session"], b);
    assert_eq!(v["records"].as_array().map(Vec::len), Some(1));
}

/// A subagent file given as PATH stands for its parent session, loaded
/// whole: the same 9 calls (4 main + 1 + 2 + 1 + 1 in the four subagent
/// files) and 4 subagents as when the session is found by its folder, in
/// `sessions`, `show` (every Agent call has its child's calls) and `find`.
#[test]
fn a_subagent_file_as_path_loads_its_parent_session_whole() {
    let file = corpus(
        "real-cc-2.1.332/subagent/projects/-home-dev-work-subagent/\
         8bb2dece-a24f-43d4-80d6-3ee9a889b550/subagents/agent-a460e426666c15a15.jsonl",
    );
    let v = stdout_json(hookscope().arg("sessions").arg(&file).arg("--json"));
    let rows = v.as_array().expect("array");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["id"], "8bb2dece-a24f-43d4-80d6-3ee9a889b550");
    assert_eq!(rows[0]["tool_calls"], 9);
    assert_eq!(rows[0]["subagents"], 4);
    assert_eq!(rows[0]["diagnostics"], 0);

    let v = stdout_json(hookscope().arg("show").arg(&file).arg("--json"));
    assert_eq!(v["id"], "8bb2dece-a24f-43d4-80d6-3ee9a889b550");
    let calls = v["turns"][0]["tool_calls"].as_array().expect("calls");
    let nested: Vec<usize> = calls
        .iter()
        .map(|c| c["subagent"]["tool_calls"].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(nested, vec![2, 1, 1, 1]);

    let v = stdout_json(
        hookscope()
            .args(["find", "--tool-name-pattern", ""])
            .arg(&file)
            .arg("--json"),
    );
    assert_eq!(v["records"].as_array().expect("records").len(), 9);
}

/// `show`'s outline labels a resumed file's leading prompt-less turn
/// and numbers every turn as `--at N` takes it: the lead is `turn 1`, and
/// the header counts the turns the same way, naming the lead, so its `6
/// turns` end at `turn 6` (small.jsonl: the prompt-less lead holds one
/// call; five prompts follow); a Codex file without a prompt has only its
/// lead.
#[test]
fn show_text_labels_the_prompt_less_turn_and_numbers_turns_as_at_takes_them() {
    let headers = |sub: &str| -> Vec<String> {
        let out = hookscope()
            .arg("show")
            .arg(corpus(sub))
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out)
            .expect("UTF-8")
            .lines()
            .filter(|l| {
                l.starts_with("turn ")
                    || l.starts_with("before the first prompt")
                    || l.contains(" tool calls, ")
            })
            .map(|l| l.chars().take(40).collect())
            .collect()
    };
    assert_eq!(
        headers("agent-sessions/Resources/Fixtures/stage0/agents/claude/small.jsonl"),
        vec![
            "6 turns (turn 1: before the first prompt",
            "turn 1: (before the first prompt: resume",
            "turn 2: [image: [trimmed for fixture], 2",
            "turn 3: [trimmed for fixture]",
            "turn 4: [trimmed for fixture]",
            "turn 5: [trimmed for fixture]",
            "turn 6: [trimmed for fixture]",
        ]
    );
    assert_eq!(
        headers("agent-sessions/Resources/Fixtures/codex_053_rate_limit.jsonl"),
        vec![
            "1 turn (turn 1: before the first prompt)",
            "turn 1: (before the first prompt: resume",
        ]
    );
}

/// Long ids that are not UUID-shaped (Codex `session_meta.id` as a test
/// harness writes it) take at most 12 columns in the find table: the
/// unique 11-char prefix and `…` (accepted by `--session`), else head `…`
/// tail when the prefix is shared.
#[test]
fn find_table_caps_long_non_uuid_session_ids() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = dir.path().join("sessions/2026/11/29");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    let a = "tool-call-session-id";
    let b = "aaaaaaaa-0000-4000-8000-000000000001-x";
    let c = "aaaaaaaa-0000-4000-8000-000000000002-x";
    for (id, time, cmd) in [
        (a, "2026-11-29T18:00:01Z", "pwd"),
        (b, "2026-11-29T18:00:02Z", "ls"),
        (c, "2026-11-29T18:00:03Z", "id"),
    ] {
        std::fs::write(
            sessions.join(format!("rollout-2026-11-29T18-00-00-{cmd}.jsonl")),
            codex_rollout(id, time, cmd),
        )
        .expect("write rollout");
    }
    let out = hookscope()
        .args(["find", "--tool-name", "exec_command"])
        .arg(dir.path())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let cells: Vec<(&str, &str)> = stdout
        .lines()
        .skip(1)
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            (words[2], words[words.len() - 1])
        })
        .collect();
    assert_eq!(
        cells,
        [
            ("aaaaa…0002-x", "id"),
            ("aaaaa…0001-x", "ls"),
            ("tool-call-s…", "pwd")
        ],
        "{stdout}"
    );
    let v = stdout_json(
        hookscope()
            .args(["find", "--tool-name", "exec_command", "--json"])
            .args(["--session", "tool-call-s"])
            .arg(dir.path()),
    );
    assert_eq!(v["records"][0]["session"], a);
}

/// `hookscope session DIR` (a typo for `sessions`) says which subcommand
/// was meant instead of only "no such file or directory: session".
#[test]
fn a_subcommand_typo_is_suggested() {
    let out = hookscope().args(["session", "."]).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "hookscope: no such file or directory: session (did you mean `hookscope sessions`?)"
    );
}

/// `sessions` on a folder without sessions says so on stderr (the table
/// has only its header).
#[test]
fn sessions_on_an_empty_folder_says_zero() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = hookscope()
        .arg("sessions")
        .arg(dir.path())
        .output()
        .expect("run");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "0 sessions found under the given paths"
    );
}

/// `find` on a folder without sessions says so on stderr, not only
/// "0 records" (which reads as "no call matched"); `--count` still prints
/// its `0` alone on stdout.
#[test]
fn find_on_an_empty_folder_says_no_session_was_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = hookscope()
        .args(["find", "--tool-name", "Bash"])
        .arg(dir.path())
        .env("HOOKSCOPE_NO_INDEX", "1")
        .output()
        .expect("run");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hookscope: 0 sessions found under the given paths\n0 records\n"
    );
    let out = hookscope()
        .args(["find", "--tool-name", "Bash", "--count"])
        .arg(dir.path())
        .env("HOOKSCOPE_NO_INDEX", "1")
        .output()
        .expect("run");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hookscope: 0 sessions found under the given paths\n"
    );
}

/// A folder laid out as OpenCode's older JSON storage (`session/`,
/// `message/`, `part/`) but not named `storage` (a test fixture of another
/// tool, vendored in the corpus) gives no session; `sessions` and `find`
/// say why after their `0 sessions found`. A folder named `storage`, or one
/// missing `part/`, gets no such line.
#[test]
fn a_storage_layout_under_another_name_says_where_it_is_read() {
    let fixture = "tests/corpus/cass/tests/fixtures/opencode_json";
    let hint = format!(
        "hookscope: {fixture} holds session/, message/ and part/ as OpenCode's older JSON storage does; hookscope reads that layout in a folder named `storage` (as OpenCode keeps it): link or copy it under that name\n"
    );
    let out = hookscope()
        .args(["sessions", fixture])
        .output()
        .expect("run");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("0 sessions found under the given paths\n{hint}")
    );
    let out = hookscope()
        .args(["find", "--tool-name", "bash", fixture])
        .env("HOOKSCOPE_NO_INDEX", "1")
        .output()
        .expect("run");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("hookscope: 0 sessions found under the given paths\n{hint}0 records\n")
    );
    let dir = tempfile::tempdir().expect("tempdir");
    for sub in ["session", "message"] {
        std::fs::create_dir(dir.path().join(sub)).expect("mkdir");
    }
    let out = hookscope()
        .arg("sessions")
        .arg(dir.path())
        .output()
        .expect("run");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "0 sessions found under the given paths\n"
    );
}

/// On the command line the name-filter errors name the flags (MCP keeps
/// its parameter names, `tests/cli/mcp.rs`).
#[test]
fn find_name_errors_name_the_flags() {
    let err = stderr_of_failure(hookscope().arg("find").arg(corpus("real-cc-2.1.332")));
    assert_eq!(
        err,
        "hookscope: invalid argument: set exactly one of --tool-name (exact, case-insensitive) or --tool-name-pattern (substring, case-insensitive); --tool-name-pattern '' matches every tool\n"
    );
    let err = stderr_of_failure(
        hookscope()
            .args(["find", "--tool-name", "Bash", "--tool-name-pattern", "B"])
            .arg(corpus("real-cc-2.1.332")),
    );
    assert_eq!(
        err,
        "hookscope: invalid argument: set exactly one of --tool-name or --tool-name-pattern, not both\n"
    );
}

/// `hooks --agent codex --codex-home DIR` with a DIR that is not there says
/// so (a typo), exit 2; a file there is not a folder.
#[test]
fn a_missing_codex_home_is_said_to_not_exist() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let missing = tmp.path().join("nope");
    let err = stderr_of_failure(
        hookscope()
            .args(["hooks", "--agent", "codex", "--codex-home"])
            .arg(&missing)
            .arg("--cwd")
            .arg(tmp.path()),
    );
    assert_eq!(
        err,
        format!(
            "hookscope: --codex-home {}: does not exist\n",
            missing.display()
        )
    );
    let file = tmp.path().join("file");
    std::fs::write(&file, "x").expect("write");
    let err = stderr_of_failure(
        hookscope()
            .args(["hooks", "--agent", "codex", "--codex-home"])
            .arg(&file)
            .arg("--cwd")
            .arg(tmp.path()),
    );
    assert_eq!(
        err,
        format!("hookscope: --codex-home {}: not a folder\n", file.display())
    );
}

/// `sessions --agent` keeps one agent's sessions (any of its names); an
/// unknown name exits 2 naming the known ones.
#[test]
fn sessions_agent_keeps_one_agents_sessions() {
    let root = corpus("real-droid-0.225.2");
    let mut want: Vec<String> = hookscope_core::transcript::discover(std::slice::from_ref(&root))
        .expect("corpus")
        .sessions
        .into_iter()
        .filter(|s| s.agent == hookscope_core::transcript::Agent::Droid)
        .map(|s| s.id)
        .collect();
    want.sort();
    // The corpus README: six Droid runs.
    assert_eq!(want.len(), 6);
    assert!(!want.is_empty());
    for name in ["droid", "dr", "Factory"] {
        let listed = stdout_json(
            hookscope()
                .args(["sessions", "--json", "--agent", name])
                .arg(&root),
        );
        let mut got: Vec<&str> = listed
            .as_array()
            .expect("array")
            .iter()
            .map(|s| s["id"].as_str().expect("id"))
            .collect();
        got.sort_unstable();
        assert_eq!(got, want, "{name}");
    }
    // None of the Claude Code sessions of a Droid folder.
    let none = stdout_json(
        hookscope()
            .args(["sessions", "--json", "--agent", "cc"])
            .arg(&root),
    );
    assert_eq!(none, Value::Array(Vec::new()));
    let out = hookscope()
        .args(["sessions", "--agent", "zz"])
        .arg(&root)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown agent \"zz\"; known agents: claude-code (claude, cc), codex (cx), opencode (oc), droid (factory, dr)"),
        "{err}"
    );
}

/// With `--agent` and no session of that agent, the line names the agent;
/// without a PATH it names the default locations, not "the given paths".
#[test]
fn sessions_agent_with_none_names_the_agent_and_where_it_looked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = hookscope()
        .args(["sessions", "--agent", "dr"])
        .arg(dir.path())
        .output()
        .expect("run");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "0 droid sessions found under the given paths"
    );
    // No PATH: the default roots (none exist for this test's HOME).
    let home = tempfile::tempdir().expect("tempdir");
    let out = hookscope()
        .args(["sessions", "--agent", "cx"])
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path())
        .output()
        .expect("run");
    assert!(out.status.success());
    let h = home.path().display();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        format!(
            "0 codex sessions found under the default locations ({h}/.claude/projects, {h}/.codex/sessions, {h}/.codex/archived_sessions, {h}/opencode/storage/session, {h}/.factory/sessions, {h}/opencode/opencode.db; see `hookscope sessions --help`)"
        )
    );
}

/// `hookscope completions SHELL` prints clap's completion script for the
/// whole command (subcommands included); `hookscope man` prints the roff
/// man page; an unknown shell is a usage error (exit 2) naming the shells.
#[test]
fn completions_and_the_man_page_are_printed() {
    let run = |args: &[&str]| {
        let out = hookscope().args(args).output().expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, bash, _) = run(&["completions", "bash"]);
    assert_eq!(code, Some(0));
    assert!(bash.starts_with("_hookscope() {\n"), "{bash}");
    assert!(bash.contains("hookscope,replay)"), "{bash}");
    let (code, zsh, _) = run(&["completions", "zsh"]);
    assert_eq!(code, Some(0));
    assert!(zsh.starts_with("#compdef hookscope\n"), "{zsh}");
    let (code, fish, _) = run(&["completions", "fish"]);
    assert_eq!(code, Some(0));
    assert!(fish.contains("complete -c hookscope"), "{fish}");
    let (code, man, _) = run(&["man"]);
    assert_eq!(code, Some(0));
    assert!(man.contains(".TH hookscope 1"), "{man}");
    assert!(man.contains("hookscope\\-replay(1)"), "{man}");
    let (code, _, err) = run(&["completions", "nope"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("[possible values: bash, elvish, fish, powershell, zsh]"),
        "{err}"
    );
}

/// c8: the header counts the rejected prompt as the outline numbers it
/// (`turn 2`), so `3 turns` ends at `turn 3`.
#[test]
fn show_header_counts_the_turns_it_numbers() {
    let out = hookscope()
        .args(["show", "07535b09"])
        .arg(corpus("real-cc-2.1.332/hooks_c8_outcomes"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).expect("UTF-8");
    assert_eq!(
        text.lines().nth(1),
        Some(
            "3 turns (turn 2: a prompt a hook rejected), 10 tool calls, 1 error, 1 subagent, 0 diagnostics"
        )
    );
    let numbered: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("turn "))
        .map(|l| l.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(numbered, ["turn 1", "turn 2", "turn 3"]);
    // The firings that are not on a call, where they happened: the Stop
    // block before the lint it asked for, the prompt's context before
    // turn 3's calls.
    let lines: Vec<&str> = text.lines().collect();
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("{prefix}: {text}"))
    };
    let stop = at("  ⚑ Stop: blocked by hook: run the linter first");
    assert!(at("    bash   Bash ↻ hook rewrote") < stop);
    assert_eq!(stop + 1, at("  bash   Bash  npm run lint"));
    assert_eq!(
        at(
            "  ⚑ UserPromptSubmit: context added: c8 prompt_gate: deploys go to the staging remote only"
        ),
        at("turn 3:") + 1
    );
    // Where one claude process ended and the next resumed the file, in
    // line order among the turns, as the Timeline's `◦ process:` rows.
    let processes: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("  ◦ "))
        .collect();
    assert_eq!(
        processes,
        [
            "  ◦ process: ended · SessionEnd (line 73)",
            "  ◦ process: resumed · SessionStart (line 76)",
            "  ◦ process: ended · SessionEnd (line 79)",
            "  ◦ process: resumed · SessionStart (line 82)",
            "  ◦ process: ended · SessionEnd (line 100)",
        ]
    );
    assert_eq!(
        at("  ◦ process: ended · SessionEnd (line 73)"),
        at("  bash   Bash  npm run lint") + 1
    );
    assert!(at("  ◦ process: ended · SessionEnd (line 79)") > at("turn 2:"));
    assert!(at("  ◦ process: resumed · SessionStart (line 82)") < at("turn 3:"));
}
