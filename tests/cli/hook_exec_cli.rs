//! `hookscope replay … --exec` run as a process: the real hooks_c2_exit2
//! session (2.1.332) replayed with the example settings of that scenario
//! (assets/examples/hooks_c2_exit2), whose hook blocks `rm -rf` with exit 2;
//! nothing runs without --exec; the environment is the allowlist plus
//! --env; handler types that cannot run are listed.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{C2, EXAMPLE_RULES, RM_RF, bash_hooks_settings, hookscope};

const SETTINGS: &str = "assets/examples/hooks_c2_exit2/.claude/settings.json";

fn replay(extra: &[&str], envs: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut cmd = hookscope();
    cmd.args(["replay", C2, "--event", "PreToolUse", "--at", RM_RF])
        .args(extra);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("runs");
    (
        out.status.code(),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

/// A settings file with one PreToolUse handler per `(type, fields)`.
fn settings(dir: &Path, handlers: Value) -> String {
    bash_hooks_settings(dir.join("settings.json"), handlers)
        .display()
        .to_string()
}

/// Asserts that `out` holds every one of `fragments`.
fn has_all(out: &str, fragments: &[&str]) {
    for fragment in fragments {
        assert!(out.contains(fragment), "missing {fragment:?} in:\n{out}");
    }
}

#[test]
fn exec_runs_the_scenario_hook_and_blocks_as_the_transcript_recorded() {
    let (code, out, _) = replay(&["--exec", "--settings", SETTINGS], &[]);
    assert_eq!(code, Some(0), "{out}");
    for fragment in [
        "hooks run (--exec; assets/examples/hooks_c2_exit2/.claude/settings.json):\n",
        "  #1 assets/examples/hooks_c2_exit2/.claude/settings.json:7 (given): \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block_rm_rf.sh\n",
        "    ran: sh -c \"\\\"$CLAUDE_PROJECT_DIR\\\"/.claude/hooks/block_rm_rf.sh\"\n",
        "    stderr: Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)\n",
        "    reading: blocked — the model is told: Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)\n",
        "combined: blocked — the model is told: Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)\n",
        "final: denied (decided by hook; mode bypassPermissions)\n",
        // Compared with the transcript's hook record of the same firing.
        "vs the transcript: then: PreToolUse hook blocked the call (exit 2); now: blocked the call — agrees\n",
        // The simulated permissionDecision is the one the transcript holds.
        "  would be recorded as: reject (hook, hook:PreToolUse)\n",
        "final vs the transcript: recorded reject (hook, hook:PreToolUse); simulated reject (hook, hook:PreToolUse) — agrees\n",
        // What the transcript recorded: the same reason.
        "Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)\n",
    ] {
        assert!(out.contains(fragment), "missing {fragment:?} in:\n{out}");
    }
    let (code, out, _) = replay(&["--exec", "--json", "--settings", SETTINGS], &[]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    let e = &v["exec"];
    assert_eq!(e["ran"], true);
    assert_eq!(e["handlers"].as_array().map(Vec::len), Some(1));
    assert_eq!(e["handlers"][0]["exit_code"], 2);
    assert_eq!(e["handlers"][0]["timeout_secs"], 600.0);
    assert_eq!(e["combined"]["decision"], "deny");
    assert_eq!(e["final_outcome"]["verdict"], "denied");
    assert_eq!(e["claude_version"], "2.1.332");
    assert_eq!(e["vs_transcript"]["agrees"], true);
    assert_eq!(e["vs_transcript"]["verdict"], "agrees");
    assert_eq!(e["vs_transcript"]["then"], "blocked");
    assert_eq!(e["vs_transcript"]["final_outcome"]["agrees"], true);
    assert_eq!(
        e["final_outcome"]["record"],
        json!({"decision": "reject", "source": "hook", "reasonType": "hook", "reasonCode": "hook:PreToolUse"})
    );
}

#[test]
fn nothing_runs_without_exec() {
    let dir = tempfile::tempdir().expect("tmp");
    let marker = dir.path().join("ran");
    let file = settings(
        dir.path(),
        json!([{"type": "command", "command": format!("touch '{}'", marker.display())}]),
    );
    let (code, out, _) = replay(&[], &[]);
    assert_eq!(code, Some(0));
    assert!(out.ends_with(
        "hooks: none run now (--exec runs the command handlers of your hook settings on this payload)\n"
    ));
    let (code, out, _) = replay(&["--settings", &file], &[]);
    assert_eq!(code, Some(0));
    assert!(out.contains("none run now"), "{out}");
    assert!(
        out.contains(&format!("  would run: #1 {file}:7 (given): touch '")),
        "{out}"
    );
    assert!(!marker.exists(), "a hook ran without --exec");
    let (_, out, _) = replay(&["--settings", &file, "--json"], &[]);
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["exec"]["ran"], false);
    assert!(!marker.exists(), "a hook ran without --exec");
    let (code, _, _) = replay(&["--settings", &file, "--exec"], &[]);
    assert_eq!(code, Some(0));
    assert!(marker.exists(), "--exec did not run the hook");
}

#[test]
fn hooks_get_the_allowlist_plus_env() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = settings(
        dir.path(),
        json!([{"type": "command", "command": "env | sed -n 's/^\\([A-Za-z_][A-Za-z0-9_]*\\)=.*/\\1/p' | grep -v '^PWD$' | sort | tr '\\n' ' ' >&2; exit 2"}]),
    );
    let envs = [("HOOKSCOPE_SECRET_X", "1"), ("PASSED_Y", "2")];
    let (code, out, _) = replay(
        &[
            "--exec",
            "--json",
            "--settings",
            &file,
            "--env",
            "PASSED_Y",
            "--env",
            "SET_Z=3",
        ],
        &envs,
    );
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    let h = &v["exec"]["handlers"][0];
    let seen: Vec<&str> = h["stderr"]
        .as_str()
        .expect("stderr")
        .split_whitespace()
        .collect();
    assert!(!seen.contains(&"HOOKSCOPE_SECRET_X"), "{seen:?}");
    for name in [
        "CLAUDECODE",
        "CLAUDE_PROJECT_DIR",
        "CLAUDE_CODE_SESSION_ID",
        "CLAUDE_CODE_ENTRYPOINT",
        "CLAUDE_EFFORT",
        "PASSED_Y",
        "SET_Z",
    ] {
        assert!(seen.contains(&name), "{name} missing from {seen:?}");
    }
    // Everything the hook saw is an allowlisted name, --env or the shell's own PWD.
    let allowed = hookscope_core::hooks::exec::BASIC_ENV;
    for name in &seen {
        assert!(
            name.starts_with("CLAUDE")
                || allowed.contains(name)
                || ["PASSED_Y", "SET_Z"].contains(name),
            "{name} should not reach a hook"
        );
    }
}

#[test]
fn https_prompt_and_agent_handlers_are_listed_not_run() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = settings(
        dir.path(),
        json!([
            {"type": "http", "url": "https://127.0.0.1:9/hook"},
            {"type": "prompt", "prompt": "Is this safe? $ARGUMENTS"},
            {"type": "agent", "prompt": "Check it"}
        ]),
    );
    let (code, out, _) = replay(&["--exec", "--settings", &file], &[]);
    assert_eq!(code, Some(0), "{out}");
    for fragment in [
        "  no command handler reached this event: nothing ran\n",
        "(http): not run: https not built in (hookscope POSTs plain http:// only; see docs/replay-and-backtest.md, --exec)\n",
        "(prompt): not runnable offline: the prompt hook asks a model (docs/contract.md#prompt-and-agent-hooks)\n",
        "(agent): not runnable offline: the agent hook asks a model (docs/contract.md#prompt-and-agent-hooks)\n",
        "combined: nothing\n",
        "final: runs (decided by permission mode bypassPermissions; mode bypassPermissions)\n",
    ] {
        assert!(out.contains(fragment), "missing {fragment:?} in:\n{out}");
    }
}

#[test]
fn an_http_handler_is_listed_without_exec_and_posted_with_it() {
    let dir = tempfile::tempdir().expect("tmp");
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let file = settings(
        dir.path(),
        json!([{"type": "http", "url": format!("http://127.0.0.1:{port}/hook"),
                "headers": {"Authorization": "Bearer $NOPE"}}]),
    );
    let (code, out, _) = replay(&["--settings", &file], &[]);
    assert_eq!(code, Some(0), "{out}");
    let would = format!(
        "  would POST to http://127.0.0.1:{port}/hook (headers: Authorization): #1 {file}:7 (given) (only with --exec); left empty, not in allowedEnvVars: $NOPE\n"
    );
    assert!(out.contains(&would), "missing {would:?} in:\n{out}");
    // The plan's JSON names them too (before, only the TUI dialog did).
    let (_, out, _) = replay(&["--settings", &file, "--json"], &[]);
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        v["exec"]["would_run"][0]["sent_empty"],
        json!(["NOPE"]),
        "{out}"
    );
    let (code, out, _) = replay(&["--exec", "--settings", &file], &[]);
    assert_eq!(code, Some(0), "{out}");
    for fragment in [
        format!("    ran: POST http://127.0.0.1:{port}/hook\n"),
        "    note: left empty in its headers, not in allowedEnvVars: $NOPE\n".to_string(),
        "    http error: connection refused in ".to_string(),
        "      why: http error: connection refused: a non-blocking error, the action proceeds (docs/contract.md#exit-codes-and-stdout; onFailure: \"block\" would block)\n".to_string(),
    ] {
        assert!(out.contains(&fragment), "missing {fragment:?} in:\n{out}");
    }
}

#[test]
fn exec_and_rules_do_not_go_together_with_all() {
    let out = hookscope()
        .args([
            "replay",
            "--all",
            "--exec",
            "--rules",
            EXAMPLE_RULES,
            "tests/corpus",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hookscope: --exec runs your hooks and --rules a rule set: give one of them with --all\n"
    );
}

#[test]
fn a_hook_that_cannot_start_fails_open_loudly() {
    // The example project copied with its script made non-executable: the
    // handler cannot start (126, launch-failed, non-blocking), so the call
    // the transcript shows blocked would now run. That never agrees: the
    // output says it failed open, and --json marks it.
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let hooks = dir.path().join(".claude/hooks");
    std::fs::create_dir_all(&hooks).expect("mkdir");
    let from = Path::new("assets/examples/hooks_c2_exit2/.claude");
    let settings = dir.path().join(".claude/settings.json");
    std::fs::copy(from.join("settings.json"), &settings).expect("copy");
    let script = hooks.join("block_rm_rf.sh");
    std::fs::copy(from.join("hooks/block_rm_rf.sh"), &script).expect("copy");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let s = settings.display().to_string();
    let (code, out, _) = replay(&["--exec", "--settings", &s], &[]);
    assert_eq!(code, Some(0));
    let line = format!(
        "vs the transcript: then: PreToolUse hook blocked the call (exit 2); now: did nothing — FAILED OPEN: #1 {s}:7 (given) could not start (exit 126): not executable (permission denied): sh: 1: {}: Permission denied; Claude Code treats that as a non-blocking error and lets the action through, so this run does not show what your hook decides (fix it and run again)\n",
        script.display()
    );
    assert!(out.contains(&line), "missing {line:?} in:\n{out}");
    let (_, out, _) = replay(&["--exec", "--json", "--settings", &s], &[]);
    let v: Value = serde_json::from_str(&out).expect("json");
    let vs = &v["exec"]["vs_transcript"];
    assert_eq!(vs["agrees"], false);
    assert_eq!(vs["verdict"], "failed_open");
    assert_eq!(vs["failures"][0]["kind"], "launch_failed");
    assert_eq!(vs["failures"][0]["blocked"], false);
    // The call would now run: not what the transcript recorded either.
    assert_eq!(vs["final_outcome"]["agrees"], false);
}

/// A handler named by a relative path (`./my-hook.sh`) is not found where
/// it runs (the session's folder, here a temporary one): the why says so
/// and how to fix it. An absolute command that is missing gets no such hint.
#[test]
fn a_relative_command_that_is_not_found_says_where_it_ran() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rel = settings(
        dir.path(),
        json!([{"type": "command", "command": "./my-hook.sh"}]),
    );
    let (code, out, _) = replay(&["--exec", "--settings", &rel], &[]);
    assert_eq!(code, Some(0));
    let why = out
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with("why: the shell could not start the command")
        })
        .unwrap_or_else(|| panic!("no launch-failed why in:\n{out}"));
    assert!(
        why.contains("./my-hook.sh: not found); a relative command runs in the hook's folder, /")
            && why.ends_with(": name it by its absolute path"),
        "{why}"
    );
    let missing = dir.path().join("missing-hook.sh").display().to_string();
    let abs = settings(dir.path(), json!([{"type": "command", "command": missing}]));
    let (_, out, _) = replay(&["--exec", "--settings", &abs], &[]);
    assert!(
        out.contains("why: the shell could not start the command"),
        "{out}"
    );
    assert!(!out.contains("a relative command"), "{out}");
}

#[test]
fn a_crash_under_on_failure_block_says_the_block_is_the_failures() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = settings(
        dir.path(),
        json!([{"type": "command", "command": "cat >/dev/null; echo 'Traceback: boom' >&2; exit 1", "onFailure": "block"}]),
    );
    let (code, out, _) = replay(&["--exec", "--json", "--settings", &file], &[]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    let vs = &v["exec"]["vs_transcript"];
    assert_eq!(vs["verdict"], "failed_blocked", "{vs}");
    assert_eq!(vs["failures"][0]["kind"], "crashed");
    assert_eq!(
        vs["failures"][0]["how"],
        "crashed (exit 1): Traceback: boom"
    );
    assert_eq!(vs["failures"][0]["blocked"], true);
    assert_eq!(vs["agrees"], false);
    // A JSON answer with exit 1 is honoured: no failure, and it agrees.
    let file = settings(
        dir.path(),
        json!([{"type": "command", "command": "cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}}'; exit 1"}]),
    );
    let (_, out, _) = replay(&["--exec", "--json", "--settings", &file], &[]);
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["exec"]["vs_transcript"]["verdict"], "agrees");
    assert_eq!(v["exec"]["vs_transcript"]["failures"], json!([]));
}

#[test]
fn a_post_tool_use_hook_that_replaces_the_output_is_shown_and_differs() {
    // The c8 session's `git commit`: its PostToolUse hook objected then
    // (commit_block); a hook that replaces the output now differs, and the
    // model's new view is shown.
    const C8: &str = "tests/corpus/real-cc-2.1.332/hooks_c8_outcomes/projects/-home-dev-work-hooks-c8-outcomes/07535b09-1bbd-4e99-9cf4-3c8d232c7d4f.jsonl";
    const COMMIT: &str = "toolu_01JYsjuviVGcRZXGMMJG1GMh";
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("settings.json");
    let out_json = r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"stdout":"[commit output hidden]","stderr":"","interrupted":false,"isImage":false}}}"#;
    let v = json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("cat >/dev/null; echo '{out_json}'")}]}]}});
    std::fs::write(&path, v.to_string()).expect("write");
    let file = path.display().to_string();
    let run = |json: bool| {
        let mut cmd = hookscope();
        cmd.args([
            "replay",
            C8,
            "--event",
            "PostToolUse",
            "--at",
            COMMIT,
            "--exec",
        ])
        .args(["--settings", &file]);
        if json {
            cmd.arg("--json");
        }
        String::from_utf8(cmd.output().expect("runs").stdout).expect("utf-8")
    };
    let out = run(false);
    has_all(
        &out,
        &[
            "    reading: output replaced — the model sees this output instead: [commit output hidden]\n",
            "combined: output replaced — the model sees this output instead: [commit output hidden]\n",
            "vs the transcript: then: PostToolUse hook objected after the call ran; now: replaced the output the model saw — differs: your hooks now replaced the output the model saw (then they objected after the call ran)\n",
        ],
    );
    let v: Value = serde_json::from_str(&run(true)).expect("json");
    let e = &v["exec"];
    assert_eq!(e["combined"]["effect"], "output_replaced");
    assert_eq!(
        e["combined"]["updated_output"]["stdout"],
        "[commit output hidden]"
    );
    assert_eq!(
        e["handlers"][0]["reading"]["outcome"]["updated_output"]["stdout"],
        "[commit output hidden]"
    );
    assert_eq!(e["vs_transcript"]["then"], "flagged");
    assert_eq!(e["vs_transcript"]["now"], "replaced_output");
}

#[test]
fn a_broken_or_missing_settings_file_is_in_the_report_once() {
    // User test: a settings file with a JSON error showed only on stderr,
    // twice; a mistyped --settings path said nothing.
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("syntax.json");
    std::fs::write(&bad, "{\"hooks\": {\"PreToolUse\": [],}}").expect("write");
    let missing = dir.path().join("nope.json");
    let (b, m) = (bad.display().to_string(), missing.display().to_string());
    let out = hookscope()
        .args([
            "replay",
            C2,
            "--event",
            "PreToolUse",
            "--at",
            RM_RF,
            "--exec",
        ])
        .args(["--settings", &b, "--settings", &m])
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let skip = format!("{b}: Claude Code skips this file: not valid JSON");
    assert_eq!(stderr.matches(&skip).count(), 1, "{stderr}");
    assert!(stdout.contains(&format!("  settings: {skip}")), "{stdout}");
    assert!(
        stdout.contains(&format!("  settings: {m}: not found (check the path)\n")),
        "{stdout}"
    );
}

/// The example project's folder, absolute.
fn example_dir() -> std::path::PathBuf {
    std::path::absolute("assets/examples/hooks_c2_exit2").expect("absolute")
}

#[test]
fn relative_paths_resolve_against_the_invocation_folder() {
    // `hooks --help` shows `hooks --settings .claude/settings.json --lint`:
    // run from the project, the hook's "$CLAUDE_PROJECT_DIR"/… is found.
    let out = hookscope()
        .current_dir(example_dir())
        .args(["hooks", "--settings", ".claude/settings.json", "--lint"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout, "No lints (1 handler in 1 file).\n");
    assert_eq!(out.status.code(), Some(0));
    // --exec from the same folder: CLAUDE_PROJECT_DIR is the project, not
    // empty, so the script runs (no 127) and blocks as recorded.
    let session = std::path::absolute(C2).expect("absolute");
    let out = hookscope()
        .current_dir(example_dir())
        .args(["replay"])
        .arg(&session)
        .args(["--event", "PreToolUse", "--at", RM_RF, "--exec", "--json"])
        .args(["--settings", ".claude/settings.json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let e = &v["exec"];
    assert_eq!(e["handlers"][0]["exit_code"], 2, "{e}");
    assert_eq!(
        e["project_note"],
        format!(
            "the session's project /home/dev/work/hooks_c2_exit2 does not exist here: CLAUDE_PROJECT_DIR is {} (the folder holding the settings' .claude/; --cwd-map OLD=NEW names another)",
            example_dir().display()
        )
    );
    // The session's cwd is gone: the hook runs in the project folder.
    assert_eq!(e["handlers"][0]["cwd"], example_dir().display().to_string());
}

#[test]
fn a_plugins_hooks_json_gets_its_plugin_root() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path().join("guard-plugin");
    std::fs::create_dir_all(root.join(".claude-plugin")).expect("mkdir");
    std::fs::create_dir_all(root.join("hooks")).expect("mkdir");
    std::fs::write(
        root.join(".claude-plugin/plugin.json"),
        r#"{"name": "guard"}"#,
    )
    .expect("write");
    let script = root.join("hooks/block.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ncat >/dev/null\necho \"blocked by the plugin in $CLAUDE_PLUGIN_ROOT\" >&2\nexit 2\n",
    )
    .expect("write");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let hooks = root.join("hooks/hooks.json");
    std::fs::write(
        &hooks,
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}\"/hooks/block.sh"}]}]}}"#,
    )
    .expect("write");
    // Given relative to the invocation folder.
    let session = std::path::absolute(C2).expect("absolute");
    for given in [
        "guard-plugin/hooks/hooks.json",
        "guard-plugin/.claude-plugin/plugin.json",
    ] {
        let out = hookscope()
            .current_dir(dir.path())
            .arg("replay")
            .arg(&session)
            .args(["--event", "PreToolUse", "--at", RM_RF, "--exec", "--json"])
            .args(["--settings", given])
            .output()
            .expect("runs");
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        let h = &v["exec"]["handlers"][0];
        assert_eq!(
            h["stderr"],
            format!("blocked by the plugin in {}\n", root.display()),
            "{given}: {v}"
        );
        assert!(
            h["label"]
                .as_str()
                .is_some_and(|l| l.ends_with("(plugin guard)")),
            "{h}"
        );
        assert!(
            h["env_names"]
                .as_array()
                .is_some_and(|a| a.contains(&json!("CLAUDE_PLUGIN_ROOT")))
        );
        assert_eq!(v["exec"]["combined"]["effect"], "blocked");
    }
}

#[test]
fn cwd_map_moves_the_payload_the_project_dir_and_the_working_folder() {
    // Someone else's transcript: the project was /home/dev/work/hooks_c2_exit2
    // and its last Stop came after `cd src`. Here the project is a temp dir.
    let dir = tempfile::tempdir().expect("tmp");
    let local = std::fs::canonicalize(dir.path()).expect("canonical");
    std::fs::create_dir_all(local.join("src")).expect("mkdir");
    std::fs::create_dir_all(local.join(".claude")).expect("mkdir");
    let settings = local.join(".claude/settings.json");
    std::fs::write(
        &settings,
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "cat >/dev/null; echo \"$PWD|$CLAUDE_PROJECT_DIR\" >&2"}]}]}}"#,
    )
    .expect("write");
    let map = format!("/home/dev/work/hooks_c2_exit2={}", local.display());
    let out = hookscope()
        .args(["replay", C2, "--event", "Stop", "--exec", "--json"])
        .args(["--settings", &settings.display().to_string()])
        .args(["--cwd-map", &map])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["payload"]["cwd"], format!("{}/src", local.display()));
    assert_eq!(v["cwd_map"][0]["old"], "/home/dev/work/hooks_c2_exit2");
    let h = &v["exec"]["handlers"][0];
    assert_eq!(h["cwd"], format!("{}/src", local.display()));
    assert_eq!(h["cwd_note"], Value::Null);
    assert_eq!(
        h["stderr"],
        format!("{}/src|{}\n", local.display(), local.display())
    );
    assert_eq!(v["exec"]["project_note"], Value::Null);
    // `payload` maps the same way; a bad pair is refused with exit 2.
    let out = hookscope()
        .args(["payload", C2, "--event", "Stop", "--cwd-map", &map])
        .output()
        .expect("runs");
    let p: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(p["cwd"], format!("{}/src", local.display()));
    let out = hookscope()
        .args(["payload", C2, "--event", "Stop", "--cwd-map", "src=/tmp"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hookscope: --cwd-map \"src=/tmp\": OLD is the folder as the transcript records it, an absolute path\n"
    );
}

#[test]
fn the_final_outcome_is_checked_against_the_recorded_permission_decision() {
    // The `hooks` scenario ran `claude -p --permission-mode default
    // --allowedTools Read,Edit,Bash,TaskCreate,TaskUpdate,Agent`: its Agent
    // call was accepted by that cliArg rule, its Write rejected (nobody
    // could answer the prompt in -p).
    const HOOKS: &str = "tests/corpus/real-cc-2.1.332/hooks/projects/-home-dev-work-hooks/0c04bd79-42b3-41bb-b257-006f349f008a.jsonl";
    const AGENT: &str = "toolu_01nVfs42hvM6RhEoaSKThcqL";
    const WRITE: &str = "toolu_015796i98YXirh2QSMEW5t0s";
    let dir = tempfile::tempdir().expect("tmp");
    let file = settings(
        dir.path(),
        json!([{"type": "command", "command": "cat >/dev/null"}]),
    );
    let run = |at: &str, extra: &[&str]| {
        let out = hookscope()
            .args([
                "replay",
                HOOKS,
                "--event",
                "PreToolUse",
                "--at",
                at,
                "--exec",
            ])
            .args(["--settings", &file])
            .args(extra)
            .output()
            .expect("runs");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    // Without the command line's rules: the Agent tool needs no permission
    // in default mode (it runs, by the mode), which the transcript
    // attributes to the --allowedTools rule instead.
    let out = run(AGENT, &[]);
    has_all(
        &out,
        &[
            "final: runs (decided by permission mode default; mode default)\n",
            "  why: Agent in default mode: Agent needs no permission (Claude Code's tools reference): no prompt, in every mode\n",
            "final vs the transcript: recorded accept (config, rule cliArg); simulated accept (config, mode) — differs: reasonType rule then, mode now; the session's claude command line allowed it (--allowedTools, which the transcript does not list): give the same rules with --allowed-tools\n",
        ],
    );
    let rules = [
        "--allowed-tools",
        "Read,Edit,Bash",
        "--allowedTools",
        "TaskCreate TaskUpdate,Agent",
    ];
    let out = run(AGENT, &rules);
    assert!(
        out.contains("final vs the transcript: recorded accept (config, rule cliArg); simulated accept (config, rule cliArg) — agrees\n"),
        "{out}"
    );
    // A bare Edit rule does not allow a Write: prompted, which -p records
    // as a rejection.
    let out = run(WRITE, &rules);
    has_all(
        &out,
        &[
            "final: asked (decided by permission mode default; mode default)\n",
            "final vs the transcript: recorded reject (config, unknown); simulated reject (config, unknown) — agrees\n",
        ],
    );
}

#[test]
fn a_matcher_that_never_fires_carries_the_lints_fix_where_its_reach_is_explained() {
    // The rm -rf call is Bash: a bare `mcp__memory` and an old `Task` miss
    // it, as they miss every call; the reach says what --lint says.
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("settings.json");
    let v = json!({"hooks": {"PreToolUse": [
        {"matcher": "mcp__memory", "hooks": [{"type": "command", "command": "true"}]},
        {"matcher": "Task", "hooks": [{"type": "command", "command": "true"}]}
    ]}});
    std::fs::write(&path, serde_json::to_string_pretty(&v).expect("json")).expect("write");
    let file = path.display().to_string();
    let (code, out, _) = replay(&["--exec", "--json", "--settings", &file], &[]);
    assert_eq!(code, Some(0));
    let j: Value = serde_json::from_str(&out).expect("json");
    let hints: Vec<&str> = j["exec"]["not_reached"]
        .as_array()
        .expect("not reached")
        .iter()
        .map(|n| n["hint"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        hints,
        [
            "did you mean \"mcp__memory__.*\"?",
            "write \"Agent\" (\"Agent|Task\" also covers sessions before 2.1.63)"
        ]
    );
    let (_, out, _) = replay(&["--settings", &file], &[]);
    assert!(
        out.contains("(given): matcher \"mcp__memory\" is an exact name (letters, digits, _, -, spaces, ',' and '|'): tool_name \"Bash\" is not \"mcp__memory\"; this matcher never fires on any value (matcher-dead-exact); did you mean \"mcp__memory__.*\"?\n"),
        "{out}"
    );
    // The same fixes as --lint.
    let lint = hookscope()
        .args([
            "hooks",
            "--settings",
            &file,
            "--lint",
            "--version",
            "2.1.332",
        ])
        .output()
        .expect("runs");
    let lint = String::from_utf8_lossy(&lint.stdout);
    for hint in hints {
        assert!(lint.contains(&format!("    fix: {hint}\n")), "{lint}");
    }
    assert!(lint.contains("error[matcher-renamed-tool]: matcher \"Task\" names Task, renamed Agent in Claude Code 2.1.63: hook payloads carry tool_name \"Agent\" from then on, so at 2.1.332 it never fires on that tool\n"), "{lint}");
}

/// What a hook prints is masked in the text report as in the JSON one
/// (rendered from the typed report, `hooks::exec::text`): an AWS key in
/// its stdout and its stderr shows as `[REDACTED_AWS_KEY]`, the
/// stderr line counts both (the command itself holds no key), and the JSON carries the same masked text.
#[test]
fn a_secret_a_hook_prints_is_masked_in_text_and_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = settings(
        dir.path(),
        json!([{"type": "command",
                "command": "cat >/dev/null; printf 'id AKIA%s\\n' ABCDEFGHIJKLMNOP; printf 'key AKIA%s\\n' ABCDEFGHIJKLMNOP >&2"}]),
    );
    let (code, out, err) = replay(&["--exec", "--settings", &file], &[]);
    assert_eq!(code, Some(0), "{err}");
    has_all(
        &out,
        &[
            "    stdout: id [REDACTED_AWS_KEY]\n",
            "    stderr: key [REDACTED_AWS_KEY]\n",
        ],
    );
    assert!(!out.contains("AKIAABCDEFGHIJKLMNOP"), "{out}");
    assert!(
        err.contains(
            "hookscope: masked secrets in the hooks' output as [REDACTED_<TYPE>] (AWS_KEY 2)"
        ),
        "{err}"
    );
    let (code, out, err) = replay(&["--exec", "--settings", &file, "--json"], &[]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        v["exec"]["handlers"][0]["stdout"],
        "id [REDACTED_AWS_KEY]\n"
    );
    assert!(err.contains("(AWS_KEY 2)"), "{err}");
}
