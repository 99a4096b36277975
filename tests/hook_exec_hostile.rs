//! `replay --exec` with a hostile transcript (docs/security.md "Running
//! hooks"): values the transcript supplies (`entrypoint`, `effort`, the
//! session id from its `sessionId` and its file name, the recorded `cwd`)
//! never reach a handler as shell code. The real hooks_c2_exit2 session is
//! rewritten so that each holds `$(echo PWNED >&2)`; a handler in exec
//! form passes every `${NAME}` to `bash -c`. Before the fix the hook's
//! stderr held `PWNED` (the transcript ran code).

use std::path::Path;

use assert_cmd::Command;
use serde_json::{Value, json};

const C2: &str = "tests/corpus/real-cc-2.1.332/hooks_c2_exit2/projects/-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl";
const RM_RF: &str = "toolu_01GFEgALJm405nI2WctBocud";
const CODE: &str = "$(echo PWNED >&2)";

/// The c2 session with `entrypoint`, `effort`, `sessionId` and `cwd` of
/// every line holding [`CODE`], under a file name that holds it too.
fn hostile_session(dir: &Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(C2).expect("c2");
    let mut out = String::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).expect("json");
        if let Some(o) = v.as_object_mut() {
            for (key, value) in [
                ("entrypoint", format!("cli{CODE}")),
                ("effort", format!("high{CODE}")),
                ("sessionId", format!("s{CODE}")),
                ("cwd", format!("/nonexistent/p{CODE}")),
            ] {
                if o.contains_key(key) {
                    o.insert(key.into(), json!(value));
                }
            }
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    let file = dir.join(format!("x{CODE}.jsonl"));
    std::fs::write(&file, out).expect("write");
    file
}

#[test]
fn transcript_values_never_run_as_code_in_a_handler() {
    let dir = tempfile::tempdir().expect("tmp");
    let session = hostile_session(dir.path());
    let settings = dir.path().join("settings.json");
    let script = "echo \"ep=${CLAUDE_CODE_ENTRYPOINT} ef=${CLAUDE_EFFORT} id=${CLAUDE_CODE_SESSION_ID} pd=${CLAUDE_PROJECT_DIR} env=${CLAUDE_ENV_FILE}\" >&2; echo \"sh=$CLAUDE_CODE_ENTRYPOINT|$CLAUDE_EFFORT|$CLAUDE_CODE_SESSION_ID\" >&2";
    std::fs::write(
        &settings,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "bash", "args": ["-c", script]}
        ]}]}})
        .to_string(),
    )
    .expect("settings");
    let out = Command::cargo_bin("hookscope")
        .expect("binary")
        .env("HOOKSCOPE_NO_INDEX", "1")
        .args(["replay"])
        .arg(&session)
        .args([
            "--event",
            "PreToolUse",
            "--at",
            RM_RF,
            "--exec",
            "--json",
            "--settings",
        ])
        .arg(&settings)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let h = &v["exec"]["handlers"][0];
    let hook_err = h["stderr"].as_str().expect("stderr");
    assert!(
        !hook_err.contains("PWNED"),
        "the transcript ran code: {hook_err}"
    );
    // The refused values are left out, and said.
    let first = hook_err.lines().next().expect("a line");
    assert!(first.starts_with("ep= ef= id= pd=/"), "{first}");
    assert!(hook_err.contains("sh=||\n"), "{hook_err}");
    let warnings: Vec<&str> = v["exec"]["env_warnings"]
        .as_array()
        .expect("env_warnings")
        .iter()
        .filter_map(|w| w["arg"].as_str())
        .collect();
    assert_eq!(
        warnings,
        [
            "CLAUDE_CODE_SESSION_ID",
            "CLAUDE_CODE_ENTRYPOINT",
            "CLAUDE_EFFORT"
        ]
    );
    // The project folder that does not exist here and holds `$(` is not
    // named: CLAUDE_PROJECT_DIR is a temporary folder, and the note says so.
    let pd = first.split(" pd=").nth(1).expect("pd");
    assert!(!pd.contains("nonexistent"), "{pd}");
    let note = v["exec"]["project_note"].as_str().expect("project_note");
    assert!(
        note.contains("holds characters a shell would read"),
        "{note}"
    );
}

/// Values of the known form still pass: the real transcript's `sdk-cli`,
/// `medium` and UUID session id reach the handler unchanged.
#[test]
fn known_forms_pass_unchanged() {
    let dir = tempfile::tempdir().expect("tmp");
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "bash", "args": ["-c", "echo \"${CLAUDE_CODE_ENTRYPOINT} ${CLAUDE_EFFORT} ${CLAUDE_CODE_SESSION_ID}\" >&2"]}
        ]}]}})
        .to_string(),
    )
    .expect("settings");
    let out = Command::cargo_bin("hookscope")
        .expect("binary")
        .env("HOOKSCOPE_NO_INDEX", "1")
        .args([
            "replay",
            C2,
            "--event",
            "PreToolUse",
            "--at",
            RM_RF,
            "--exec",
            "--json",
            "--settings",
        ])
        .arg(&settings)
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        v["exec"]["handlers"][0]["stderr"],
        "sdk-cli medium e1be136e-e2ee-4f2f-bdb9-5cd3211001fb\n"
    );
    assert_eq!(v["exec"]["env_warnings"], json!([]));
}

/// A hook that writes more than 64 KiB to `CLAUDE_ENV_FILE` is shown with
/// its first 64 KiB and the size of the rest (before: reported as having
/// written nothing, `null`).
#[test]
fn a_large_env_file_is_shown_cut_with_its_size() {
    let dir = tempfile::tempdir().expect("tmp");
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        json!({"hooks": {"SessionStart": [{"hooks": [
            {"type": "command", "command": "head -c 70000 /dev/zero | tr '\\0' x > \"$CLAUDE_ENV_FILE\""}
        ]}]}})
        .to_string(),
    )
    .expect("settings");
    let run = |json: bool| {
        let mut cmd = Command::cargo_bin("hookscope").expect("binary");
        cmd.env("HOOKSCOPE_NO_INDEX", "1")
            .args([
                "replay",
                C2,
                "--event",
                "SessionStart",
                "--exec",
                "--settings",
            ])
            .arg(&settings);
        if json {
            cmd.arg("--json");
        }
        cmd.output().expect("runs")
    };
    let out = run(true);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let h = &v["exec"]["handlers"][0];
    assert_eq!(h["env_file_written"].as_str().map(str::len), Some(65536));
    assert_eq!(h["env_file_dropped"], 70000 - 65536);
    let out = run(false);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("[cut at 64 KiB, 4464 bytes more not read]"),
        "{text}"
    );
}

/// A hook that prints a deny and exits while a process it started in a
/// new session (`setsid`) keeps its stdout open: the bytes it printed are
/// kept and the verdict follows them (before: stdout empty after the
/// timeout, verdict "nothing" — the deny was lost).
#[test]
fn a_deny_printed_before_a_setsid_child_holds_stdout_is_kept() {
    let dir = tempfile::tempdir().expect("tmp");
    let pid_file = dir.path().join("pid");
    let settings = dir.path().join("settings.json");
    let command = format!(
        "setsid sleep 9 & echo $! > '{}'; echo '{}'",
        pid_file.display(),
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}"#
    );
    std::fs::write(
        &settings,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "timeout": 1, "command": command}
        ]}]}})
        .to_string(),
    )
    .expect("settings");
    let out = Command::cargo_bin("hookscope")
        .expect("binary")
        .env("HOOKSCOPE_NO_INDEX", "1")
        .args([
            "replay",
            C2,
            "--event",
            "PreToolUse",
            "--at",
            RM_RF,
            "--exec",
            "--json",
            "--settings",
        ])
        .arg(&settings)
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let h = &v["exec"]["handlers"][0];
    assert_eq!(h["exit_code"], 0, "{h}");
    assert!(
        h["stdout"].as_str().is_some_and(|s| s.contains("\"deny\"")),
        "{h}"
    );
    assert_eq!(
        v["exec"]["combined"]["decision"], "deny",
        "{}",
        v["exec"]["combined"]
    );
    assert_eq!(v["exec"]["combined"]["effect"], "blocked");
    // The sleeper is not this test's to leave behind.
    if let Ok(pid) = std::fs::read_to_string(&pid_file) {
        let _ = std::process::Command::new("kill").arg(pid.trim()).status();
    }
}

/// A hook's JSON answer nested deeper than serde_json's default 128 levels
/// (500 here, beside the decision) is read, as JavaScript's JSON.parse
/// reads it: the deny decides (before: "not a JSON object", nothing).
/// Past 1,000 levels the reading says it cannot tell.
#[test]
fn a_deeply_nested_answer_still_decides() {
    let dir = tempfile::tempdir().expect("tmp");
    let answer = |depth: usize| {
        format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"deep no"}},"x":{}{}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    let run = |depth: usize| {
        let file = dir.path().join(format!("a{depth}.json"));
        std::fs::write(&file, answer(depth)).expect("answer");
        let settings = dir.path().join(format!("s{depth}.json"));
        std::fs::write(
            &settings,
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": format!("cat '{}'", file.display())}
            ]}]}})
            .to_string(),
        )
        .expect("settings");
        let out = Command::cargo_bin("hookscope")
            .expect("binary")
            .env("HOOKSCOPE_NO_INDEX", "1")
            .args([
                "replay",
                C2,
                "--event",
                "PreToolUse",
                "--at",
                RM_RF,
                "--exec",
                "--json",
                "--settings",
            ])
            .arg(&settings)
            .output()
            .expect("runs");
        serde_json::from_slice::<Value>(&out.stdout).expect("json")
    };
    let v = run(500);
    assert_eq!(
        v["exec"]["combined"]["decision"], "deny",
        "{}",
        v["exec"]["combined"]
    );
    assert_eq!(v["exec"]["combined"]["model_sees"], "deep no");
    let v = run(1_500);
    assert_eq!(v["exec"]["combined"]["effect"], "nothing");
    let why = v["exec"]["handlers"][0]["reading"]["outcome"]["why"].to_string();
    assert!(why.contains("nested deeper than 1000 levels"), "{why}");
}
