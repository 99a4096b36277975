//! `replay --exec` with a hostile transcript (docs/security.md "Running
//! hooks"): values the transcript supplies (`entrypoint`, `effort`, the
//! session id from its `sessionId` and its file name, the recorded `cwd`)
//! never reach a handler as shell code. The real hooks_c2_exit2 session is
//! rewritten so that each holds `$(echo PWNED >&2)`; a handler in exec
//! form passes every `${NAME}` to `bash -c`. Before the fix the hook's
//! stderr held `PWNED` (the transcript ran code).

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{C2, RM_RF, bash_hooks_settings, hookscope, hookscope_process};

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
    bash_hooks_settings(
        &settings,
        json!([
            {"type": "command", "command": "bash", "args": ["-c", script]}
        ]),
    );
    let out = hookscope()
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
    bash_hooks_settings(
        &settings,
        json!([
            {"type": "command", "command": "bash", "args": ["-c", "echo \"${CLAUDE_CODE_ENTRYPOINT} ${CLAUDE_EFFORT} ${CLAUDE_CODE_SESSION_ID}\" >&2"]}
        ]),
    );
    let out = hookscope()
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
        let mut cmd = hookscope();
        cmd.args([
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
    bash_hooks_settings(
        &settings,
        json!([
            {"type": "command", "timeout": 1, "command": command}
        ]),
    );
    let out = hookscope()
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
        bash_hooks_settings(
            &settings,
            json!([
                {"type": "command", "command": format!("cat '{}'", file.display())}
            ]),
        );
        let out = hookscope()
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

/// Pids of the processes whose command line holds `arg` as one argument
/// (`/proc/<pid>/cmdline`), zombies left out: what a run left behind.
fn running_with_arg(arg: &str) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit_once(')')
            .map(|(_, r)| r.trim_start())
            .unwrap_or("");
        if state.starts_with('Z') || state.starts_with('X') || state.is_empty() {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if cmdline.split(|b| *b == 0).any(|a| a == arg.as_bytes()) {
            out.push(pid);
        }
    }
    out
}

/// `running_with_arg`, waiting up to 3 s for the list to empty (a killed
/// process is gone once its parent reaps it).
fn left_behind(arg: &str) -> Vec<i32> {
    for _ in 0..150 {
        let now = running_with_arg(arg);
        if now.is_empty() {
            return now;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    running_with_arg(arg)
}

/// SIGKILL to what a failed run left (so a failing test leaves nothing
/// behind either); the assertion that follows says it failed.
fn kill_left(left: &[i32]) {
    for pid in left {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
}

fn pre_tool_use_settings(dir: &Path, command: &str) -> std::path::PathBuf {
    bash_hooks_settings(
        dir.join("settings.json"),
        json!([{"type": "command", "command": command}]),
    )
}

/// A hook that starts a process outside its process group (a new session
/// with `setsid`; a job of its own with bash's `set -m`; a daemon that
/// double-forks) and exits at once: after `replay --exec` no such process
/// is left in the process table, and the handler's notes name it (before:
/// the `sleep` outlived hookscope, re-parented to init, with no note).
#[test]
fn processes_a_hook_starts_outside_its_group_are_killed_and_named() {
    for (n, (shape, sleeper)) in [
        ("setsid sleep 301.11 </dev/null >/dev/null 2>&1 &", "301.11"),
        (
            "bash -c 'set -m; sleep 301.22 </dev/null >/dev/null 2>&1 & exit 0'",
            "301.22",
        ),
        (
            "setsid sh -c 'sleep 301.33 </dev/null >/dev/null 2>&1 & exit 0' </dev/null >/dev/null 2>&1 &",
            "301.33",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = tempfile::tempdir().expect("tmp");
        let settings = pre_tool_use_settings(dir.path(), &format!("{shape} sleep 0.2; echo '{{}}'"));
        let out = hookscope()
            .args(["replay", C2, "--event", "PreToolUse", "--at", RM_RF])
            .args(["--exec", "--json", "--settings"])
            .arg(&settings)
            .output()
            .expect("runs");
        let left = left_behind(sleeper);
        kill_left(&left);
        assert_eq!(left, Vec::<i32>::new(), "case {n}: {shape} left a process");
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        let notes = v["exec"]["handlers"][0]["notes"].to_string();
        // Named as it was when killed: `sleep`, or still the `bash` it
        // forked from when the reaper ran before its exec (a loaded
        // machine).
        assert!(
            notes.contains("left its process group")
                && (notes.contains("(sleep)") || notes.contains("(bash)")),
            "case {n}: {notes}"
        );
    }
}

/// Ctrl-C, SIGTERM and SIGHUP while `replay --exec` runs a hook (which
/// sleeps, with a `setsid` process beside it): the hook, its group and the
/// escaped process are killed, the temporary folder it ran in is removed,
/// and hookscope ends by the signal (before: both sleeps ran on and the
/// `hookscope-exec-*` folder stayed).
#[test]
fn an_interrupted_exec_kills_the_hooks_and_removes_its_temporaries() {
    use std::os::unix::process::ExitStatusExt;
    for (signal, name, a, b) in [
        (libc::SIGINT, "INT", "304.11", "305.11"),
        (libc::SIGTERM, "TERM", "304.22", "305.22"),
        (libc::SIGHUP, "HUP", "304.33", "305.33"),
    ] {
        let dir = tempfile::tempdir().expect("tmp");
        let marker = dir.path().join("started");
        let settings = pre_tool_use_settings(
            dir.path(),
            &format!(
                "setsid sleep {a} </dev/null >/dev/null 2>&1 & pwd > '{}'; sleep {b}",
                marker.display()
            ),
        );
        let mut child = hookscope_process()
            .args(["replay", C2, "--event", "PreToolUse", "--at", RM_RF])
            .args(["--exec", "--settings"])
            .arg(&settings)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawns");
        let mut scratch = String::new();
        for _ in 0..500 {
            scratch = std::fs::read_to_string(&marker).unwrap_or_default();
            if !scratch.is_empty() && !running_with_arg(a).is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let scratch = scratch.trim().to_string();
        assert!(
            scratch.contains("hookscope-exec-"),
            "{name}: ran in {scratch:?}"
        );
        let _ = std::process::Command::new("kill")
            .args([format!("-{name}"), child.id().to_string()])
            .status();
        let mut status = None;
        for _ in 0..500 {
            if let Ok(Some(s)) = child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let status = status.unwrap_or_else(|| {
            let _ = child.kill();
            panic!("{name}: hookscope did not end");
        });
        let left: Vec<i32> = [left_behind(a), left_behind(b)].concat();
        kill_left(&left);
        let mut stderr = String::new();
        if let Some(mut e) = child.stderr.take() {
            use std::io::Read;
            let _ = e.read_to_string(&mut stderr);
        }
        assert_eq!(status.signal(), Some(signal), "{name}: {status:?}");
        let said = match name {
            "INT" => "Ctrl-C",
            "TERM" => "SIGTERM",
            _ => "SIGHUP",
        };
        assert!(
            stderr.ends_with(&format!("hookscope: {said}: killed 1 running hook and what it started, removed 1 temporary folder; nothing was reported\n")),
            "{name}: {stderr}"
        );
        assert_eq!(left, Vec::<i32>::new(), "{name}: processes left");
        assert!(
            !Path::new(&scratch).exists(),
            "{name}: {scratch} was left on disk"
        );
    }
}

/// What the TUI does when it is left (quit, SIGTERM, SIGHUP, a panic)
/// while its exec dialog runs a hook: `abort_runs` kills the running hook
/// and the process it started outside its group, and removes the run's
/// temporary folder; the run itself ends killed (before: the hook ran on
/// and the `hookscope-exec-*` folder stayed).
#[test]
fn abort_runs_ends_a_running_hook_and_removes_its_scratch_folder() {
    use hookscope_core::hooks::exec::{
        EnvSource, EnvVar, HandlerCommand, ProcessRunner, RunSpec, RunStatus, Runner, Scratch,
        Shell, reaper,
    };
    let scratch = Scratch::new().expect("scratch");
    let folder = scratch.path().to_path_buf();
    let spec = RunSpec {
        label: "abort".into(),
        command: HandlerCommand::Shell {
            command: "setsid sleep 306.11 </dev/null >/dev/null 2>&1 & sleep 306.22".into(),
            shell: Shell::Sh,
        },
        cwd: folder.clone(),
        cwd_note: None,
        env: vec![EnvVar {
            name: "PATH".into(),
            value: std::env::var_os("PATH").unwrap_or_default(),
            source: EnvSource::Basic,
        }],
        timeout_secs: 600.0,
        write_root: None,
        on_failure_block: false,
        is_async: false,
    };
    let run = std::thread::spawn(move || ProcessRunner.run(&spec, b"{}"));
    for _ in 0..500 {
        if !running_with_arg("306.11").is_empty() && !running_with_arg("306.22").is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(reaper::live_runs(), 1);
    reaper::abort_runs();
    let out = run.join().expect("run thread");
    let left: Vec<i32> = [left_behind("306.11"), left_behind("306.22")].concat();
    kill_left(&left);
    assert_eq!(out.status, RunStatus::Signaled { signal: 9 });
    assert_eq!(left, Vec::<i32>::new(), "processes left");
    assert!(!folder.exists(), "{} was left on disk", folder.display());
    assert_eq!(reaper::live_runs(), 0);
    drop(scratch);
}

/// At the timeout, a process the hook started outside its group is
/// killed with the group and named in the notes, as when the hook exits
/// (before: killed, but only "timed out … its process group was killed"
/// was said).
#[test]
fn a_process_killed_at_the_timeout_outside_the_group_is_named() {
    let dir = tempfile::tempdir().expect("tmp");
    let settings = dir.path().join("settings.json");
    bash_hooks_settings(
        &settings,
        json!([
            {"type": "command", "timeout": 1,
             "command": "setsid sleep 301.44 </dev/null >/dev/null 2>&1 & sleep 301.55"}
        ]),
    );
    let out = hookscope()
        .args(["replay", C2, "--event", "PreToolUse", "--at", RM_RF])
        .args(["--exec", "--json", "--settings"])
        .arg(&settings)
        .output()
        .expect("runs");
    let left: Vec<i32> = [left_behind("301.44"), left_behind("301.55")].concat();
    kill_left(&left);
    assert_eq!(left, Vec::<i32>::new(), "processes left");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let h = &v["exec"]["handlers"][0];
    assert_eq!(h["status"]["kind"], "timed-out", "{h}");
    let notes = h["notes"].to_string();
    assert!(
        notes.contains("1 process it started left its process group") && notes.contains("(sleep)"),
        "{notes}"
    );
}
