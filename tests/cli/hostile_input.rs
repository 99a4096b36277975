//! Hostile inputs, each built in a tempdir: every one must load (or be
//! skipped with a diagnostic) without a crash or a hang. Commands run with a
//! timeout so a regression that hangs fails instead of blocking the suite.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::{Value, json};

use crate::support::{corpus, hookscope, write_jsonl};

/// [`hookscope`], killed after 20 s.
fn bounded() -> Command {
    let mut cmd = hookscope();
    cmd.timeout(Duration::from_secs(20));
    cmd
}

fn stdout_json(cmd: &mut Command) -> Value {
    let out = cmd.assert().success().get_output().clone();
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn stdout_text(cmd: &mut Command) -> String {
    let out = cmd.assert().success().get_output().clone();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn user(uuid: &str, parent: Option<&str>, text: &str, extra: Value) -> Value {
    let mut v = json!({
        "type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
        "timestamp": "2025-01-01T00:00:00Z",
        "message": {"role": "user", "content": text},
    });
    merge(&mut v, extra);
    v
}

fn tool_use(uuid: &str, parent: &str, id: &str, name: &str, input: Value, extra: Value) -> Value {
    let mut v = json!({
        "type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
        "timestamp": "2025-01-01T00:00:01Z",
        "message": {"id": format!("msg_{uuid}"), "role": "assistant", "model": "claude-test",
            "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]},
    });
    merge(&mut v, extra);
    v
}

fn tool_result(uuid: &str, parent: &str, id: &str, extra: Value) -> Value {
    let mut v = json!({
        "type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
        "timestamp": "2025-01-01T00:00:02Z",
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "ok"}]},
    });
    merge(&mut v, extra);
    v
}

fn merge(v: &mut Value, extra: Value) {
    if let (Value::Object(map), Value::Object(more)) = (v, extra) {
        map.extend(more);
    }
}

fn task(prompt: &str) -> Value {
    json!({"description": "look", "prompt": prompt, "subagent_type": "general-purpose"})
}

fn call_ids(calls: &Value) -> Vec<String> {
    calls
        .as_array()
        .expect("array")
        .iter()
        .map(|c| c["tool_use_id"].as_str().expect("id").to_string())
        .collect()
}

/// 2.1.x layout: the subagent's own Task call reuses its spawn's
/// `tool_use_id`; the meta sidecar's `toolUseId` names it.
fn self_link_2_1(dir: &Path) -> PathBuf {
    let main = dir.join("s1.jsonl");
    write_jsonl(
        &main,
        &[
            user("u1", None, "go", json!({})),
            tool_use("a1", "u1", "toolu_X", "Task", task("sub prompt"), json!({})),
            tool_result("r1", "a1", "toolu_X", json!({})),
        ],
    );
    let side = json!({"isSidechain": true, "agentId": "a1"});
    write_jsonl(
        dir.join("s1/subagents/agent-a1.jsonl"),
        &[
            user("su1", None, "sub prompt", side.clone()),
            tool_use("sa1", "su1", "toolu_X", "Task", task("again"), side.clone()),
            tool_result("sr1", "sa1", "toolu_X", side),
        ],
    );
    std::fs::write(
        dir.join("s1/subagents/agent-a1.meta.json"),
        r#"{"agentType":"general-purpose","toolUseId":"toolu_X"}"#,
    )
    .expect("meta");
    main
}

#[test]
fn a_subagent_reusing_its_spawn_id_is_not_linked_to_itself_2_1_layout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let main = self_link_2_1(dir.path());
    let v = stdout_json(bounded().arg("show").arg(&main).arg("--json"));
    let calls = &v["turns"][0]["tool_calls"];
    assert_eq!(call_ids(calls), vec!["toolu_X"]);
    let sub = &calls[0]["subagent"];
    assert_eq!(sub["agent_id"], "a1");
    assert_eq!(sub["link"], "meta_tool_use_id");
    assert_eq!(call_ids(&sub["tool_calls"]), vec!["toolu_X"]);
    assert_eq!(sub["tool_calls"][0].get("subagent"), None);
    assert_eq!(v["unlinked_subagents"], json!([]));
    let text = stdout_text(bounded().arg("show").arg(&main));
    let calls: Vec<&str> = text.lines().filter(|l| l.contains("Task")).collect();
    assert_eq!(
        calls,
        vec![
            "  task   Task (general-purpose)  look  [toolu_X]",
            "    task   Task (general-purpose)  look  [toolu_X]"
        ]
    );
}

#[test]
fn an_inline_sidechain_reusing_its_spawn_id_is_not_linked_to_itself_1_0_layout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let main = dir.path().join("s1.jsonl");
    let side = json!({"isSidechain": true});
    write_jsonl(
        &main,
        &[
            user("u1", None, "go", json!({})),
            tool_use("a1", "u1", "toolu_Y", "Task", task("sub prompt"), json!({})),
            user("su1", None, "sub prompt", side.clone()),
            tool_use(
                "sa1",
                "su1",
                "toolu_Y",
                "Bash",
                json!({"command": "ls"}),
                side.clone(),
            ),
            tool_result("sr1", "sa1", "toolu_Y", side),
            tool_result("r1", "a1", "toolu_Y", json!({})),
        ],
    );
    let v = stdout_json(bounded().arg("show").arg(&main).arg("--json"));
    let calls = &v["turns"][0]["tool_calls"];
    assert_eq!(call_ids(calls), vec!["toolu_Y"]);
    let sub = &calls[0]["subagent"];
    assert_eq!(sub["layout"], "inline");
    assert_eq!(sub["link"], "prompt_text");
    assert_eq!(call_ids(&sub["tool_calls"]), vec!["toolu_Y"]);
    assert_eq!(sub["tool_calls"][0]["name"], "Bash");
    assert_eq!(sub["tool_calls"][0].get("subagent"), None);
    let text = stdout_text(bounded().arg("show").arg(&main));
    assert!(
        text.contains("\n    bash   Bash  ls  [toolu_Y]\n"),
        "{text}"
    );
}

#[test]
fn a_hand_made_spawn_cycle_ends() {
    // agent-a's meta names a Task call in agent-b, agent-b's names one in
    // agent-a: A spawns B spawns A, neither reached from the main thread.
    let dir = tempfile::tempdir().expect("tempdir");
    let main = dir.path().join("s1.jsonl");
    write_jsonl(&main, &[user("u1", None, "go", json!({}))]);
    let subs = dir.path().join("s1/subagents");
    for (me, my_call, other_call) in [("a", "toolu_A1", "toolu_B1"), ("b", "toolu_B1", "toolu_A1")]
    {
        let side = json!({"isSidechain": true, "agentId": me});
        write_jsonl(
            subs.join(format!("agent-{me}.jsonl")),
            &[
                user(
                    &format!("{me}u"),
                    None,
                    &format!("prompt {me}"),
                    side.clone(),
                ),
                tool_use(
                    &format!("{me}a"),
                    &format!("{me}u"),
                    my_call,
                    "Task",
                    task("x"),
                    side,
                ),
            ],
        );
        std::fs::write(
            subs.join(format!("agent-{me}.meta.json")),
            json!({"toolUseId": other_call}).to_string(),
        )
        .expect("meta");
    }
    let v = stdout_json(bounded().arg("show").arg(&main).arg("--json"));
    assert_eq!(v["subagents"], 2);
    let unlinked = v["unlinked_subagents"].as_array().expect("array");
    assert_eq!(unlinked.len(), 1);
    assert_eq!(unlinked[0]["agent_id"], "a");
    assert_eq!(call_ids(&unlinked[0]["tool_calls"]), vec!["toolu_A1"]);
    let b = &unlinked[0]["tool_calls"][0]["subagent"];
    assert_eq!(b["agent_id"], "b");
    assert_eq!(call_ids(&b["tool_calls"]), vec!["toolu_B1"]);
    assert_eq!(b["tool_calls"][0].get("subagent"), None);
    let text = stdout_text(bounded().arg("show").arg(&main));
    assert_eq!(text.matches("Task").count(), 2, "{text}");
}

/// A two-line session with one Bash call, as `s1.jsonl` lines.
fn one_call_session(id: &str) -> Vec<Value> {
    vec![
        user("u1", None, "go", json!({"sessionId": id})),
        tool_use(
            "a1",
            "u1",
            "toolu_1",
            "Bash",
            json!({"command": "ls"}),
            json!({"sessionId": id}),
        ),
        tool_result("r1", "a1", "toolu_1", json!({"sessionId": id})),
    ]
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

#[cfg(unix)]
#[test]
fn fifos_and_dev_zero_are_skipped_with_a_diagnostic_not_opened() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("proj");
    let main = project.join("s1.jsonl");
    write_jsonl(&main, &one_call_session("s1"));
    // The subagent's meta sidecar is a FIFO; a second subagent's is a
    // symlink to /dev/zero; a FIFO and a /dev/zero link pose as sessions.
    let subs = project.join("s1/subagents");
    for id in ["f", "z"] {
        let side = json!({"isSidechain": true, "agentId": id, "sessionId": "s1"});
        write_jsonl(
            subs.join(format!("agent-{id}.jsonl")),
            &[user(&format!("{id}u"), None, &format!("prompt {id}"), side)],
        );
    }
    mkfifo(&subs.join("agent-f.meta.json"));
    std::os::unix::fs::symlink("/dev/zero", subs.join("agent-z.meta.json")).expect("symlink");
    mkfifo(&project.join("fifo.jsonl"));
    mkfifo(&subs.join("agent-p.jsonl"));
    std::os::unix::fs::symlink("/dev/zero", project.join("zero.jsonl")).expect("symlink");

    let v = stdout_json(bounded().arg("sessions").arg(&project).arg("--json"));
    let rows = v.as_array().expect("array");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["id"], "s1");
    assert_eq!(rows[0]["subagents"], 2);

    let v = stdout_json(bounded().arg("show").arg("s1").arg(&project).arg("--json"));
    assert_eq!(
        v["diagnostic_messages"],
        json!([
            format!(
                "{}: not a regular file (FIFO); skipped",
                subs.join("agent-f.meta.json").display()
            ),
            format!(
                "{}: not a regular file (character device); skipped",
                subs.join("agent-z.meta.json").display()
            ),
        ])
    );

    // Discovery reports the *.jsonl ones without opening them.
    let at = |p: PathBuf| p.display().to_string();
    assert_eq!(
        diagnostics_json(&project),
        vec![
            (
                at(project.join("fifo.jsonl")),
                None,
                "not a regular file (FIFO); skipped".to_string()
            ),
            (
                at(subs.join("agent-p.jsonl")),
                None,
                "not a regular file (FIFO); skipped".to_string()
            ),
            (
                at(project.join("zero.jsonl")),
                None,
                "not a regular file (character device); skipped".to_string()
            ),
            // Then the session's own (its sidecars).
            (
                at(subs.join("agent-f.meta.json")),
                None,
                "not a regular file (FIFO); skipped".to_string()
            ),
            (
                at(subs.join("agent-z.meta.json")),
                None,
                "not a regular file (character device); skipped".to_string()
            ),
        ]
    );

    // Given as PATHs, they are reported, not opened.
    let out = bounded()
        .arg("sessions")
        .arg(project.join("fifo.jsonl"))
        .arg(project.join("zero.jsonl"))
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .clone();
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).expect("json"),
        json!([])
    );
    // `find` on them says so on stderr instead of a bare "0 records", and
    // says nothing of the sessions' own diagnostics it was not given.
    let out = bounded()
        .arg("find")
        .arg("--tool-name")
        .arg("Bash")
        .arg(project.join("fifo.jsonl"))
        .arg(project.join("zero.jsonl"))
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("not a regular file"))
        .collect();
    assert_eq!(
        said,
        vec![
            format!(
                "hookscope: {}: not a regular file (FIFO); skipped",
                project.join("fifo.jsonl").display()
            ),
            format!(
                "hookscope: {}: not a regular file (character device); skipped",
                project.join("zero.jsonl").display()
            ),
        ]
    );
}

/// Runs `f` on a thread and fails the test if it has not finished within 20
/// seconds (a regression that blocks fails instead of hanging the suite).
fn within_timeout<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("finished without blocking")
}

#[cfg(unix)]
#[test]
fn the_loaders_refuse_a_fifo_transcript_without_blocking() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("s.jsonl");
    mkfifo(&fifo);
    let (claude, codex, sniffed) = within_timeout(move || {
        (
            hookscope_core::transcript::claude_code::load_session(&fifo, &[]).map(|_| ()),
            hookscope_core::transcript::codex::load_session(&fifo).map(|_| ()),
            hookscope_core::transcript::sniff::sniff_lines(&fifo, 8).len(),
        )
    });
    assert_eq!(
        claude.expect_err("a FIFO").to_string(),
        "not a regular file (FIFO)"
    );
    assert_eq!(
        codex.expect_err("a FIFO").to_string(),
        "not a regular file (FIFO)"
    );
    assert_eq!(sniffed, 0);
}

#[test]
fn a_lone_surrogate_escape_keeps_the_line_and_its_tool_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let main = dir.path().join("s1.jsonl");
    let mut lines: Vec<String> = one_call_session("s1")
        .iter()
        .map(Value::to_string)
        .collect();
    // Claude Code cut a string inside an emoji: `\ud83d` without its pair.
    lines[1] = lines[1].replace(r#""command":"ls""#, r#""command":"echo \ud83d""#);
    assert!(lines[1].contains(r"\ud83d"));
    std::fs::write(&main, lines.join("\n") + "\n").expect("write");

    let v = stdout_json(bounded().arg("show").arg(&main).arg("--json"));
    let call = &v["turns"][0]["tool_calls"][0];
    assert_eq!(call["tool_use_id"], "toolu_1");
    assert_eq!(call["input"]["command"], "echo \u{fffd}");
    assert_eq!(
        v["diagnostic_messages"],
        json!([format!(
            "{}:2: lone UTF-16 surrogate escape replaced with U+FFFD",
            main.display()
        )])
    );
    // find's prefilter reads the line with the same rules.
    let v = stdout_json(bounded().arg("find").arg(dir.path()).args([
        "--tool-name",
        "Bash",
        "--input-contains",
        "echo",
        "--json",
    ]));
    let ids: Vec<&str> = v["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["tool_use_id"].as_str())
        .collect();
    assert_eq!(ids, vec!["toolu_1"]);
}

#[test]
fn a_lone_surrogate_in_a_codex_line_keeps_the_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir
        .path()
        .join("rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl");
    let meta = json!({"timestamp": "2026-11-29T18:03:47.000Z", "type": "session_meta",
        "payload": {"id": "01a2287a-35b1-76e0-b188-fd2c5f457a31", "cwd": "/w", "cli_version": "0.171.0"}});
    let call = r#"{"timestamp":"2026-11-29T18:03:48.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"echo \ud83d\"}","call_id":"call_1"}}"#;
    std::fs::write(&path, format!("{meta}\n{call}\n")).expect("write");
    let s = hookscope_core::transcript::codex::load_session(&path).expect("load");
    let calls: Vec<_> = s.tool_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].tool_use_id, "call_1");
    assert_eq!(
        s.diagnostics
            .iter()
            .map(|d| (d.line(), d.message.as_str()))
            .collect::<Vec<_>>(),
        vec![(Some(2), "lone UTF-16 surrogate escape replaced with U+FFFD")]
    );
}

#[test]
fn a_lone_surrogate_inside_codex_arguments_is_repaired_and_the_call_kept() {
    // The envelope of tests/corpus/real-codex-0.171.0 (session_meta,
    // then a function_call whose `arguments` is JSON text inside a JSON
    // string): `\\ud83d` in the line is `\ud83d` in the arguments text, a
    // high surrogate with no low half.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir
        .path()
        .join("rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl");
    let meta = json!({"timestamp": "2026-11-29T18:03:47.532Z", "type": "session_meta",
        "payload": {"id": "01a2287a-35b1-76e0-b188-fd2c5f457a31", "cwd": "/w", "cli_version": "0.171.0"}});
    let call = r#"{"timestamp":"2026-11-29T18:03:47.568Z","type":"response_item","payload":{"type":"function_call","id":"fc_1","name":"exec_command","arguments":"{\"cmd\": \"echo \\ud83d done\"}","call_id":"call_1"}}"#;
    let output = json!({"timestamp": "2026-11-29T18:03:47.636Z", "type": "response_item",
        "payload": {"type": "function_call_output", "call_id": "call_1",
            "output": "Process exited with code 0\nOutput:\n\u{fffd} done\n"}});
    std::fs::write(&path, format!("{meta}\n{call}\n{output}\n")).expect("write");

    let s = hookscope_core::transcript::codex::load_session(&path).expect("load");
    let calls: Vec<_> = s.tool_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].tool_use_id, "call_1");
    assert_eq!(calls[0].call.type_name(), "BashCall");
    let hookscope_core::tools::ToolCall::Bash(bash) = &calls[0].call else {
        panic!("not a BashCall: {:?}", calls[0].call)
    };
    assert_eq!(bash.command, "echo \u{fffd} done");
    assert!(calls[0].result.is_some());
    let diags: Vec<String> = s.diagnostics.iter().map(ToString::to_string).collect();
    assert_eq!(
        diags,
        vec![format!(
            "{}:2: function_call arguments: lone UTF-16 surrogate escape replaced with U+FFFD",
            path.display()
        )]
    );
}

#[cfg(unix)]
#[test]
fn non_utf8_folder_and_file_names_are_listed_lossily_not_null() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join(OsStr::from_bytes(b"proj-\xff"));
    let main = project.join(OsStr::from_bytes(b"sess-\xfe.jsonl"));
    write_jsonl(&main, &one_call_session("s1"));

    let v = stdout_json(bounded().arg("sessions").arg(dir.path()).arg("--json"));
    let rows = v.as_array().expect("an array, not null");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["id"], "sess-\u{fffd}");
    assert_eq!(
        rows[0]["path"],
        format!("{}/proj-\u{fffd}/sess-\u{fffd}.jsonl", dir.path().display())
    );
    assert_eq!(rows[0]["tool_calls"], 1);

    // show takes the non-UTF-8 path itself.
    let v = stdout_json(bounded().arg("show").arg(&main).arg("--json"));
    assert_eq!(v["id"], "sess-\u{fffd}");
    assert_eq!(call_ids(&v["turns"][0]["tool_calls"]), vec!["toolu_1"]);
}

#[test]
fn a_session_whose_first_line_is_over_16_mib_is_still_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let main = dir.path().join("big.jsonl");
    // A pasted image in the first prompt: the keys come before the data.
    let data = "A".repeat(17 * 1024 * 1024);
    let first = json!({
        "parentUuid": null, "isSidechain": false, "cwd": "/w", "sessionId": "big",
        "type": "user",
        "message": {"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
            {"type": "text", "text": "what is this"}]},
        "uuid": "u1", "timestamp": "2025-01-01T00:00:00Z",
    });
    let mut text = format!("{first}\n");
    assert!(text.len() > 17 * 1024 * 1024);
    for line in &one_call_session("big")[1..] {
        text.push_str(&format!("{line}\n"));
    }
    std::fs::write(&main, text).expect("write");

    let v = stdout_json(bounded().arg("sessions").arg(dir.path()).arg("--json"));
    let rows = v.as_array().expect("array");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["id"], "big");
    assert_eq!(rows[0]["turns"], 1);
    assert_eq!(rows[0]["tool_calls"], 1);
    assert_eq!(rows[0]["diagnostics"], 0);
}

#[test]
fn counts_follow_one_definition_nested_and_unlinked_subagents() {
    // Main turn 1 spawns A, A spawns B (nested), C is attached but unlinked.
    let dir = tempfile::tempdir().expect("tempdir");
    let main = dir.path().join("s1.jsonl");
    write_jsonl(
        &main,
        &[
            user("u1", None, "go", json!({})),
            tool_use("m1", "u1", "toolu_A", "Task", task("do a"), json!({})),
            tool_result("r1", "m1", "toolu_A", json!({})),
        ],
    );
    let subs = dir.path().join("s1/subagents");
    let sub = |me: &str, spawn: Option<&str>, call: (&str, &str, Value)| {
        let side = json!({"isSidechain": true, "agentId": me});
        write_jsonl(
            subs.join(format!("agent-{me}.jsonl")),
            &[
                user(
                    &format!("{me}u"),
                    None,
                    &format!("prompt {me}"),
                    side.clone(),
                ),
                tool_use(
                    &format!("{me}a"),
                    &format!("{me}u"),
                    call.0,
                    call.1,
                    call.2,
                    side,
                ),
            ],
        );
        if let Some(spawn) = spawn {
            std::fs::write(
                subs.join(format!("agent-{me}.meta.json")),
                json!({"toolUseId": spawn}).to_string(),
            )
            .expect("meta");
        }
    };
    sub("a", Some("toolu_A"), ("toolu_B", "Task", task("do b")));
    sub(
        "b",
        Some("toolu_B"),
        ("toolu_b1", "Bash", json!({"command": "ls"})),
    );
    sub("c", None, ("toolu_c1", "Bash", json!({"command": "pwd"})));

    let v = stdout_json(bounded().arg("show").arg(&main).arg("--json"));
    assert_eq!(v["subagents"], 3);
    assert_eq!(v["tool_calls"], 4);
    assert_eq!(v["turns"][0]["subagent_count"], 2);
    assert_eq!(v["turns"][0]["tool_call_count"], 3);
    let unlinked: Vec<&str> = v["unlinked_subagents"]
        .as_array()
        .expect("array")
        .iter()
        .map(|s| s["agent_id"].as_str().expect("id"))
        .collect();
    assert_eq!(unlinked, vec!["c"]);
    let text = stdout_text(bounded().arg("show").arg(&main));
    assert!(
        text.starts_with("s1  go\n1 turn, 4 tool calls, 0 errors, 3 subagents, 0 diagnostics\n"),
        "{text}"
    );
    assert!(
        text.contains("turn 1: go  [3 tool calls, 2 subagents]\n"),
        "{text}"
    );
    let v = stdout_json(bounded().arg("sessions").arg(dir.path()).arg("--json"));
    assert_eq!(
        (v[0]["tool_calls"].clone(), v[0]["subagents"].clone()),
        (json!(4), json!(3))
    );
}

#[test]
fn a_reused_tool_use_id_keeps_both_calls_and_a_numeric_id_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let main = dir.path().join("s1.jsonl");
    let repeat = {
        // The same block again in a later chunk of the same message: one call.
        let mut v = tool_use(
            "a1",
            "r1",
            "toolu_1",
            "Bash",
            json!({"command": "ls"}),
            json!({}),
        );
        v["uuid"] = json!("a1b");
        v
    };
    let mut numeric = tool_use("a3", "r2", "x", "Bash", json!({"command": "id"}), json!({}));
    numeric["message"]["content"][0]["id"] = json!(12345);
    let mut lines = [
        user("u1", None, "go", json!({})),
        tool_use(
            "a1",
            "u1",
            "toolu_1",
            "Bash",
            json!({"command": "ls"}),
            json!({}),
        ),
        repeat,
        tool_result("r1", "a1", "toolu_1", json!({})),
        // A different call (another message) reusing the id.
        tool_use(
            "a2",
            "r1",
            "toolu_1",
            "Bash",
            json!({"command": "pwd"}),
            json!({}),
        ),
        tool_result("r2", "a2", "toolu_1", json!({"x": 1})),
        numeric,
    ];
    lines[5]["message"]["content"][0]["content"] = json!("second");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    // A byte order mark before line 1 costs nothing.
    std::fs::write(&main, format!("\u{feff}{text}")).expect("write");
    let s = hookscope_core::transcript::claude_code::load_session(&main, &[]).expect("load");
    let calls: Vec<(&str, usize, Option<&str>)> = s
        .tool_calls()
        .map(|c| {
            (
                c.tool_use_id.as_str(),
                c.line,
                c.result.as_ref().map(|r| r.text.as_str()),
            )
        })
        .collect();
    assert_eq!(
        calls,
        vec![("toolu_1", 2, Some("ok")), ("toolu_1", 5, Some("second"))]
    );
    assert_eq!(s.turns[0].prompt_line, Some(1));
    assert_eq!(
        s.diagnostics
            .iter()
            .map(|d| (d.line(), d.message.as_str()))
            .collect::<Vec<_>>(),
        vec![
            (
                Some(5),
                "tool_use id toolu_1 reused by a second call (first on line 2); both kept"
            ),
            (Some(7), "tool_use id is not a string (number)"),
        ]
    );
}

/// agentsview's fc_stdin.jsonl (a synthetic Codex write_stdin call,
/// `{"chars":"yes\n","session_id":"sess-42"}`) and a real-shaped numeric
/// session id with empty chars (a poll).
#[test]
fn codex_write_stdin_calls_have_a_summary() {
    let path = corpus("agentsview/internal/parser/testdata/codex/fc_stdin.jsonl");
    let s = hookscope_core::transcript::codex::load_session(&path).expect("load");
    let summaries: Vec<String> = s.tool_calls().map(|c| c.summary()).collect();
    assert_eq!(summaries, vec!["session sess-42: yes\\n"]);
    let call = hookscope_core::tools::parse_tool_call(
        "write_stdin",
        Some(&json!({"session_id": 3, "chars": ""})),
        hookscope_core::tools::OnError::Other,
    )
    .expect("call");
    assert_eq!(
        hookscope_core::transcript::call_summary(&call),
        "session 3: (wait for output)"
    );
}

fn diagnostics_json(root: &Path) -> Vec<(String, Option<u64>, String)> {
    let v = stdout_json(
        bounded()
            .arg("sessions")
            .arg(root)
            .args(["--diagnostics", "--json"]),
    );
    v.as_array()
        .expect("array")
        .iter()
        .map(|d| {
            (
                d["path"].as_str().expect("path").to_string(),
                d["line"].as_u64(),
                d["message"].as_str().expect("message").to_string(),
            )
        })
        .collect()
}

#[test]
fn a_bad_line_still_reads_path_colon_line_and_keeps_the_json_shape() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("proj/s1.jsonl");
    write_jsonl(&path, &one_call_session("s1"));
    // Line 2 of the file becomes text that is not JSON.
    let text = std::fs::read_to_string(&path).expect("read");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(1, "not json");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");

    let text = stdout_text(
        bounded()
            .arg("sessions")
            .arg(dir.path())
            .arg("--diagnostics"),
    );
    assert_eq!(
        text,
        format!(
            "{}:2: invalid JSON: expected ident at line 1 column 2\n",
            path.display()
        )
    );
    let out = bounded()
        .arg("sessions")
        .arg(dir.path())
        .args(["--diagnostics", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let keys: Vec<&str> = v[0]
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["path", "line", "message"]);
    assert_eq!(v[0]["line"], 2);
    assert_eq!(v[0]["path"], path.display().to_string());
}

#[cfg(unix)]
#[test]
fn discovery_follows_linked_folders_stops_loops_and_lists_its_diagnostics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    write_jsonl(root.join("proj/s1.jsonl"), &one_call_session("s1"));
    write_jsonl(root.join("elsewhere/p2/s2.jsonl"), &one_call_session("s2"));
    write_jsonl(outside.join("p4/s4.jsonl"), &one_call_session("s4"));
    // A link to a folder also walked directly, a link out of the root, and
    // a link back to the root (a loop).
    std::os::unix::fs::symlink(root.join("elsewhere/p2"), root.join("proj/linked")).expect("ln");
    std::os::unix::fs::symlink(outside.join("p4"), root.join("p4-link")).expect("ln");
    std::os::unix::fs::symlink(&root, root.join("proj/loop")).expect("ln");
    // An orphaned subagent file and a session 13 folders deep.
    let side = json!({"isSidechain": true, "sessionId": "nope"});
    write_jsonl(
        root.join("proj/x/subagents/agent-o.jsonl"),
        &[user("ou", None, "p", side)],
    );
    let mut deep = root.clone();
    for i in 1..=13 {
        deep = deep.join(format!("d{i}"));
    }
    write_jsonl(deep.join("s3.jsonl"), &one_call_session("s3"));

    let v = stdout_json(bounded().arg("sessions").arg(&root).arg("--json"));
    let mut found: Vec<(String, String)> = v
        .as_array()
        .expect("array")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().expect("id").to_string(),
                r["path"].as_str().expect("path").to_string(),
            )
        })
        .collect();
    found.sort();
    let at = |p: PathBuf| p.display().to_string();
    assert_eq!(
        found,
        vec![
            ("s1".to_string(), at(root.join("proj/s1.jsonl"))),
            ("s2".to_string(), at(root.join("elsewhere/p2/s2.jsonl"))),
            ("s4".to_string(), at(root.join("p4-link/s4.jsonl"))),
        ]
    );
    assert_eq!(
        diagnostics_json(&root),
        vec![
            (
                at(deep.clone()),
                None,
                "folder more than 12 levels below the search root; not searched".to_string()
            ),
            (
                at(root.join("proj/loop")),
                None,
                "symlink to a folder that contains it (a loop); not followed".to_string()
            ),
            (
                at(root.join("proj/x/subagents/agent-o.jsonl")),
                None,
                "subagent transcript whose parent session file was not found; not shown"
                    .to_string()
            ),
        ]
    );
    let text = stdout_text(bounded().arg("sessions").arg(&root).arg("--diagnostics"));
    assert_eq!(
        text.lines().nth(1),
        Some(
            format!(
                "{}: symlink to a folder that contains it (a loop); not followed",
                root.join("proj/loop").display()
            )
            .as_str()
        )
    );
}

#[test]
fn an_unreadable_transcript_says_the_io_error() {
    let err = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
    assert_eq!(
        hookscope_core::transcript::claude_code::unreadable_message("transcript", &err),
        "cannot read transcript: permission denied"
    );
}

#[test]
fn an_integer_beyond_64_bits_in_a_tool_input_has_no_digest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let main = dir.path().join("s1.jsonl");
    let lines: Vec<String> = one_call_session("s1")
        .iter()
        .map(Value::to_string)
        .map(|l| {
            l.replace(
                r#""command":"ls""#,
                r#""command":"ls","timeout":18446744073709551616"#,
            )
        })
        .collect();
    assert!(lines[1].contains("18446744073709551616"));
    std::fs::write(&main, lines.join("\n") + "\n").expect("write");
    let v = stdout_json(bounded().arg("show").arg(&main).arg("--json"));
    let call = &v["turns"][0]["tool_calls"][0];
    assert_eq!(call["tool_use_id"], "toolu_1");
    assert_eq!(call["digest"], Value::Null);
    let v =
        stdout_json(
            bounded()
                .arg("find")
                .arg(dir.path())
                .args(["--tool-name", "Bash", "--json"]),
        );
    assert_eq!(v["records"][0]["digest"], Value::Null);
}

/// Two folders linked to each other (`loopA/toB → ../loopB`, `loopB/toA →
/// ../loopA`) with a link to a FIFO inside loopB: each real folder is read
/// once, so the FIFO is reported once, under its own path (not again as
/// `loopA/toB/…`), and the links into folders already read are not
/// followed. Given `loopA` alone, loopB is reached only through the link:
/// the FIFO and the loop back to loopA are each reported once.
#[cfg(unix)]
#[test]
fn a_symlink_loop_between_two_folders_is_walked_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let x = dir.path().join("x");
    write_jsonl(x.join("loopA/s1.jsonl"), &one_call_session("s1"));
    std::fs::create_dir_all(x.join("loopB")).expect("mkdir");
    std::os::unix::fs::symlink("../loopB", x.join("loopA/toB")).expect("ln");
    std::os::unix::fs::symlink("../loopA", x.join("loopB/toA")).expect("ln");
    mkfifo(&dir.path().join("pipe"));
    std::os::unix::fs::symlink(dir.path().join("pipe"), x.join("loopB/p.jsonl")).expect("ln");
    let at = |p: PathBuf| p.display().to_string();
    let fifo = "not a regular file (FIFO); skipped".to_string();
    assert_eq!(
        diagnostics_json(&x),
        vec![(at(x.join("loopB/p.jsonl")), None, fifo.clone())]
    );
    assert_eq!(
        diagnostics_json(&x.join("loopA")),
        vec![
            (at(x.join("loopA/toB/p.jsonl")), None, fifo),
            (
                at(x.join("loopA/toB/toA")),
                None,
                "symlink to a folder that contains it (a loop); not followed".to_string()
            ),
        ]
    );
    let v = stdout_json(bounded().arg("sessions").arg(&x).arg("--json"));
    let paths: Vec<&str> = v
        .as_array()
        .expect("array")
        .iter()
        .map(|r| r["path"].as_str().expect("path"))
        .collect();
    assert_eq!(paths, vec![at(x.join("loopA/s1.jsonl"))]);
}

/// `show` on a FIFO named `*.jsonl` says what it is (not "no session
/// matches") and exits 2 without opening it.
#[cfg(unix)]
#[test]
fn show_on_a_fifo_says_not_a_regular_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("something.jsonl");
    mkfifo(&fifo);
    let out = bounded().arg("show").arg(&fifo).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "hookscope: {}: not a regular file (FIFO); not opened\n",
            fifo.display()
        )
    );
}

/// One session with one diagnostic (a bad line): the `sessions` footer
/// says `1 session, 1 diagnostic`.
#[test]
fn sessions_footer_counts_in_the_singular() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("proj/s1.jsonl");
    let mut lines: Vec<String> = one_call_session("s1")
        .iter()
        .map(|l| l.to_string())
        .collect();
    lines.insert(1, "not json".to_string());
    std::fs::create_dir_all(dir.path().join("proj")).expect("mkdir");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let out = bounded()
        .arg("sessions")
        .arg(dir.path())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "1 session, 1 diagnostic (see `hookscope sessions --diagnostics`)\n"
    );
}

/// `1e21` in a tool input is a float literal: `show --json` and `find
/// --json` (without and with the index) give the RFC 8785 digest, read
/// back from the line (the loaded value cannot tell it from an integer
/// literal). Expected: python's hashlib.sha256 of the hand-written
/// `{"input":{"command":"ls","timeout":1e+21},"tool":"Bash"}`.
#[test]
fn a_float_literal_beyond_64_bits_in_a_tool_input_is_digested() {
    const DIGEST: &str = "e218317ba0b581ac7539c95cc2bdfe3c1121a7083e2598171fc2efd2540ae08f";
    let dir = tempfile::tempdir().expect("tempdir");
    let main = dir.path().join("s1.jsonl");
    let lines: Vec<String> = one_call_session("s1")
        .iter()
        .map(Value::to_string)
        .map(|l| l.replace(r#""command":"ls""#, r#""command":"ls","timeout":1e21"#))
        .collect();
    assert!(lines[1].contains("1e21"));
    std::fs::write(&main, lines.join("\n") + "\n").expect("write");
    let v = stdout_json(bounded().arg("show").arg(&main).arg("--json"));
    assert_eq!(v["turns"][0]["tool_calls"][0]["digest"], DIGEST);
    let find = ["--tool-name", "Bash", "--json"];
    let v = stdout_json(bounded().arg("find").arg(dir.path()).args(find));
    assert_eq!(v["records"][0]["digest"], DIGEST);
    let cache = tempfile::tempdir().expect("cache");
    let indexed = |dir: &Path| {
        stdout_json(
            bounded()
                .env_remove("HOOKSCOPE_NO_INDEX")
                .env("XDG_CACHE_HOME", cache.path())
                .arg("find")
                .arg(dir)
                .args(find),
        )
    };
    // Twice: the run that builds the index, then one served from it.
    for _ in 0..2 {
        assert_eq!(indexed(dir.path())["records"][0]["digest"], DIGEST);
    }
    // The integer literal of the same size stays refused on every path.
    let int_dir = tempfile::tempdir().expect("tempdir");
    let int_lines: Vec<String> = lines
        .iter()
        .map(|l| l.replace("1e21", "1000000000000000000000"))
        .collect();
    std::fs::write(int_dir.path().join("s1.jsonl"), int_lines.join("\n") + "\n").expect("write");
    for _ in 0..2 {
        assert_eq!(indexed(int_dir.path())["records"][0]["digest"], Value::Null);
    }
    let v = stdout_json(bounded().arg("find").arg(int_dir.path()).args(find));
    assert_eq!(v["records"][0]["digest"], Value::Null);
}

/// A Codex `function_call` whose `arguments` text holds `1e21`: digested
/// from that text, in the plain rollout and in its `.jsonl.zst` copy.
/// Expected: python's hashlib.sha256 of
/// `{"input":{"cmd":"ls","n":1e+21},"tool":"exec_command"}`.
#[test]
fn a_codex_argument_literal_is_digested_from_the_rollout_text() {
    const DIGEST: &str = "90c4c3aae81f2e13d69c65515abc6e63057a398752ad58f5da309f686ac4fe1f";
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = [
        json!({"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"cx-1","cwd":"/w","cli_version":"0.171.0"}}).to_string(),
        json!({"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}).to_string(),
        json!({"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\",\"n\":1e21}","call_id":"c1"}}).to_string(),
    ];
    let text = lines.join("\n") + "\n";
    let plain = dir.path().join("rollout-2026-01-01T00-00-00-cx.jsonl");
    std::fs::write(&plain, &text).expect("write");
    let zst_dir = tempfile::tempdir().expect("tempdir");
    let zst = zst_dir
        .path()
        .join("rollout-2026-01-01T00-00-00-cx.jsonl.zst");
    std::fs::write(&zst, zstd::encode_all(text.as_bytes(), 3).expect("zstd")).expect("write");
    for file in [&plain, &zst] {
        let v = stdout_json(bounded().arg("show").arg(file).arg("--json"));
        let call = &v["turns"][0]["tool_calls"][0];
        assert_eq!(call["tool_use_id"], "c1", "{}", file.display());
        assert_eq!(call["digest"], DIGEST, "{}", file.display());
    }
    let v = stdout_json(bounded().arg("find").arg(&zst).args([
        "--tool-name",
        "exec_command",
        "--json",
    ]));
    assert_eq!(v["records"][0]["digest"], DIGEST);
}

/// `hookscope call` digests its INPUT text: the issue's example
/// (`{"input":{"n":1e+21,"x":1,"é":"ü"},"tool":"X"}`, python's sha256),
/// and an integer literal beyond 2^53−1 has none, with the reason.
#[test]
fn call_digests_its_input_text_with_number_literals() {
    let v = stdout_json(bounded().args(["call", "X", r#"{"x":1.0,"\u00e9":"\u00fc","n":1e21}"#]));
    assert_eq!(
        v["digest"],
        "63ce656ba5d0f6d7d603e8809f8cec1019dbdb8e2bb02c53ee783f7ae7a44fb8"
    );
    let v = stdout_json(bounded().args(["call", "X", r#"{"n":9007199254740993}"#]));
    assert_eq!(v["digest"], Value::Null);
    assert_eq!(
        v["digest_error"],
        "integer 9007199254740993 is outside the IEEE-754 safe range (|n| > 2^53-1) and cannot be canonicalized"
    );
}
