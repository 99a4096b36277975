//! `hooks::exec`: real hook scripts (tests/hooks/*.sh) run by the
//! ProcessRunner on real Claude Code 2.1.332 payloads (the captures'
//! `stdin`), read and combined as Claude Code does (docs/contract.md#exit-codes-and-stdout, docs/contract.md#json-output-fields, docs/contract.md#decision-control-per-event,
//! docs/contract.md#failing-closed-onfailure). No timing assertions: the hanging hook is only
//! checked to be reported as timed out and its child to be gone.

use std::path::{Path, PathBuf};

use hookscope_core::hooks::contract::Version;
use hookscope_core::hooks::exec::{
    EnvContext, Finished, HandlerCommand, ProcessRunner, Reading, RunSpec, RunStatus, Runner,
    Shell, combine_runs, hook_env, read_run, run_all,
};
use hookscope_core::hooks::result::{Effect, PermissionDecision};
use serde_json::{Value, json};

use crate::support::{REAL_CC, package_path};

fn hooks_dir() -> PathBuf {
    package_path("tests/hooks")
}

fn script(name: &str) -> String {
    hooks_dir().join(name).display().to_string()
}

/// The `stdin` of line `index` (0-based) of a capture file.
fn captured(rel: &str, index: usize) -> Value {
    let text = std::fs::read_to_string(Path::new(REAL_CC).join(rel)).expect("capture");
    let line = text.lines().nth(index).expect("line");
    let v: Value = serde_json::from_str(line).expect("json");
    v["stdin"].clone()
}

/// The Bash `echo original command` PreToolUse of the `hooks` scenario.
fn pre_tool_use() -> Value {
    let p = captured("hooks/hooks/hooks/PreToolUse.jsonl", 0);
    assert_eq!(p["tool_input"]["command"], "echo original command");
    p
}

fn v332() -> Version {
    Version::parse("2.1.332")
}

fn spec(label: &str, command: HandlerCommand, cwd: &Path, payload: &Value) -> RunSpec {
    let ctx = EnvContext::from_payload(payload);
    let (env, warnings) = hook_env(&ctx, &[], &|n| std::env::var_os(n));
    assert!(warnings.is_empty());
    RunSpec {
        label: label.into(),
        command,
        cwd: cwd.to_path_buf(),
        cwd_note: None,
        env,
        timeout_secs: 30.0,
        write_root: None,
        on_failure_block: false,
        is_async: false,
    }
}

fn shell(cmd: &str) -> HandlerCommand {
    HandlerCommand::Shell {
        command: cmd.into(),
        shell: Shell::Sh,
    }
}

fn run_one(event: &str, spec: &RunSpec, payload: &Value, version: &Version) -> (Finished, Reading) {
    let stdin = serde_json::to_vec(payload).expect("payload");
    let mut runs = run_all(&ProcessRunner, std::slice::from_ref(spec), &stdin);
    let run = runs.remove(0);
    let reading = read_run(event, version, spec, &run);
    (run, reading)
}

#[test]
fn exit_0_silent_changes_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    let s = spec("silent", shell(&script("silent.sh")), dir.path(), &p);
    let (run, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(run.output.status, RunStatus::Exited { code: 0 });
    assert_eq!(run.output.stdout, b"");
    assert_eq!(run.output.stderr, b"");
    assert_eq!(r.outcome.effect, Effect::Nothing);
    assert_eq!(r.outcome.why, ["exit 0 and no output: no decision"]);
    assert!(!r.failed);
}

#[test]
fn exit_2_blocks_with_stderr_to_the_model() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    let s = spec("exit2", shell(&script("exit2.sh")), dir.path(), &p);
    let (run, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(run.output.status, RunStatus::Exited { code: 2 });
    assert_eq!(r.outcome.effect, Effect::Blocked);
    assert_eq!(
        r.outcome.model_sees.as_deref(),
        Some("Blocked by test hook: rm -rf is not allowed")
    );
    assert_eq!(r.outcome.user_sees, None);
}

#[test]
fn exit_1_with_deny_json_blocks() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    let s = spec("deny1", shell(&script("deny_exit1.sh")), dir.path(), &p);
    let (run, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(run.output.status, RunStatus::Exited { code: 1 });
    assert_eq!(r.outcome.effect, Effect::Blocked);
    assert_eq!(
        r.outcome.model_sees.as_deref(),
        Some("denied by JSON on exit 1")
    );
    assert!(r.failed, "exit 1 is a failure for onFailure purposes");
}

#[test]
fn exit_1_with_plain_stdout_is_non_blocking() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    let s = spec("plain1", shell(&script("plain_exit1.sh")), dir.path(), &p);
    let (run, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(run.output.status, RunStatus::Exited { code: 1 });
    assert_eq!(run.output.stdout, b"lint failed\n");
    assert_eq!(run.output.stderr, b"first stderr line\n");
    assert_eq!(r.outcome.effect, Effect::Nothing);
    assert_eq!(r.outcome.model_sees, None);
    assert_eq!(
        r.outcome.why,
        [
            "exit 1 without JSON: a non-blocking error, the action proceeds (docs/contract.md#exit-codes-and-stdout, eqtylab/cupcake#117)"
        ]
    );
}

#[test]
fn json_after_a_shell_profile_line_has_no_effect_and_says_why() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    let s = spec("profile", shell(&script("profile_json.sh")), dir.path(), &p);
    let (_, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(r.outcome.effect, Effect::Nothing);
    assert_eq!(r.outcome.why.len(), 2);
    assert_eq!(
        r.outcome.why[0],
        "stdout does not start with `{`: plain text, debug log only (docs/contract.md#exit-codes-and-stdout)"
    );
    assert!(
        r.outcome.why[1].starts_with(
            "stdout starts with \"Shell ready\", and the JSON object only comes on line 2"
        ),
        "{}",
        r.outcome.why[1]
    );
}

/// Whether process `pid` is gone (no /proc entry, or a zombie waiting for
/// a parent that is not this test to reap it).
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

#[test]
fn a_hanging_hook_is_killed_at_its_timeout_with_its_children() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    let mut s = spec("hang", shell(&script("hang.sh")), dir.path(), &p);
    s.timeout_secs = 1.0;
    let (run, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(run.output.status, RunStatus::TimedOut);
    assert_eq!(r.outcome.effect, Effect::Nothing);
    assert_eq!(
        r.outcome.why,
        [
            "timed out after 1s: killed with its process group, output discarded: no decision, the action proceeds (a stalled gate fails open; docs/contract.md#exit-codes-and-stdout)"
        ]
    );
    let pid: i32 = std::fs::read_to_string(dir.path().join("child.pid"))
        .expect("the hook wrote its child's pid")
        .trim()
        .parse()
        .expect("pid");
    // SIGKILL is delivered asynchronously; give the kernel a moment
    // (bounded: this checks "killed", not how fast).
    let mut tries = 0;
    while !gone(pid) && tries < 500 {
        std::thread::sleep(std::time::Duration::from_millis(10));
        tries += 1;
    }
    assert!(gone(pid), "the hook's child {pid} is still running");
}

#[test]
fn pre_model_switch_fails_closed_on_timeout() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = json!({"session_id": "s", "hook_event_name": "PreModelSwitch"});
    let mut s = spec("hang", shell("sleep 300"), dir.path(), &p);
    s.timeout_secs = 1.0;
    let (run, r) = run_one("PreModelSwitch", &s, &p, &v332());
    assert_eq!(run.output.status, RunStatus::TimedOut);
    assert_eq!(r.outcome.effect, Effect::Blocked);
    assert_eq!(
        r.outcome.user_sees.as_deref(),
        Some("hook timed out after 1s")
    );
}

#[test]
fn a_rewrite_sets_updated_input_and_context() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    let cmd = HandlerCommand::Exec {
        program: script("rewrite.sh"),
        args: vec!["rewritten-by-hook".into()],
    };
    let s = spec("rewrite", cmd, dir.path(), &p);
    let (_, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(r.outcome.effect, Effect::InputRewritten);
    assert_eq!(
        r.outcome.updated_input,
        Some(json!({"command": "echo rewritten-by-hook", "description": "rewritten"}))
    );
    assert_eq!(
        r.outcome.model_sees.as_deref(),
        Some("rewritten to echo rewritten-by-hook")
    );
    let c = combine_runs(&[r]);
    assert_eq!(c.effect, Effect::InputRewritten);
    assert_eq!(c.decision, Some(PermissionDecision::Allow));
    assert!(c.flags.is_empty());
}

#[test]
fn two_rewrites_keep_the_last_to_finish_and_warn() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    let specs: Vec<RunSpec> = ["first", "second"]
        .iter()
        .map(|word| {
            let cmd = HandlerCommand::Exec {
                program: script("rewrite.sh"),
                args: vec![(*word).into()],
            };
            spec(word, cmd, dir.path(), &p)
        })
        .collect();
    let stdin = serde_json::to_vec(&p).expect("payload");
    let runs = run_all(&ProcessRunner, &specs, &stdin);
    let mut orders: Vec<usize> = runs.iter().map(|r| r.finish_order).collect();
    orders.sort_unstable();
    assert_eq!(orders, [0, 1]);
    let readings: Vec<Reading> = specs
        .iter()
        .zip(&runs)
        .map(|(s, r)| read_run("PreToolUse", &v332(), s, r))
        .collect();
    let c = combine_runs(&readings);
    let last = if runs[0].finish_order == 1 {
        "first"
    } else {
        "second"
    };
    assert_eq!(c.effect, Effect::InputRewritten);
    assert_eq!(
        c.updated_input,
        Some(json!({"command": format!("echo {last}"), "description": "rewritten"}))
    );
    assert_eq!(
        c.flags,
        [format!(
            "2 handlers set updatedInput (first, second): Claude Code keeps the last to finish, which is not deterministic; this run kept {last}'s"
        )]
    );
    assert_eq!(
        c.model_sees.as_deref(),
        Some("rewritten to echo first\nrewritten to echo second")
    );
}

#[test]
fn a_stop_hook_blocks_once_then_lets_claude_stop() {
    let dir = tempfile::tempdir().expect("tmp");
    let first = captured(
        "hooks_c5_stop_block/hooks/hooks_c5_stop_block/Stop.jsonl",
        0,
    );
    let second = captured(
        "hooks_c5_stop_block/hooks/hooks_c5_stop_block/Stop.jsonl",
        1,
    );
    assert_eq!(first["stop_hook_active"], false);
    assert_eq!(second["stop_hook_active"], true);
    let s = spec("stop", shell(&script("stop.sh")), dir.path(), &first);
    let (_, r1) = run_one("Stop", &s, &first, &v332());
    assert_eq!(r1.outcome.effect, Effect::Blocked);
    assert_eq!(
        r1.outcome.model_sees.as_deref(),
        Some("run the tests before stopping")
    );
    let (run2, r2) = run_one("Stop", &s, &second, &v332());
    assert_eq!(run2.output.stdout, b"");
    assert_eq!(r2.outcome.effect, Effect::Nothing);
}

#[test]
fn a_script_that_is_not_executable_is_launch_failed() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("noexec.sh");
    std::fs::copy(hooks_dir().join("silent.sh"), &path).expect("copy");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    }
    let p = pre_tool_use();
    // Exec form: the spawn itself fails.
    let exec = HandlerCommand::Exec {
        program: path.display().to_string(),
        args: vec![],
    };
    let s = spec("exec", exec, dir.path(), &p);
    let (run, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(
        run.output.status,
        RunStatus::LaunchFailed {
            reason: format!("not executable: {} (permission denied)", path.display()),
            exit_code: None,
        }
    );
    assert_eq!(r.outcome.effect, Effect::Nothing);
    assert!(r.failed);
    // Shell form: sh starts, the command does not (exit 126).
    let s = spec("shell", shell(&path.display().to_string()), dir.path(), &p);
    let (run, r) = run_one("PreToolUse", &s, &p, &v332());
    match &run.output.status {
        RunStatus::LaunchFailed { reason, exit_code } => {
            assert_eq!(*exit_code, Some(126));
            assert!(
                reason.starts_with("not executable (permission denied): "),
                "{reason}"
            );
        }
        other => panic!("expected launch-failed, got {other:?}"),
    }
    assert_eq!(r.outcome.effect, Effect::Nothing);
    // A missing program and a bad interpreter.
    let missing = HandlerCommand::Exec {
        program: dir.path().join("nope").display().to_string(),
        args: vec![],
    };
    let (run, _) = run_one(
        "PreToolUse",
        &spec("missing", missing, dir.path(), &p),
        &p,
        &v332(),
    );
    assert_eq!(
        run.output.status,
        RunStatus::LaunchFailed {
            reason: format!("not found: {}", dir.path().join("nope").display()),
            exit_code: None,
        }
    );
    let bad = dir.path().join("bad.sh");
    std::fs::write(&bad, "#!/nonexistent/interpreter\necho hi\n").expect("write");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&bad, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let cmd = HandlerCommand::Exec {
        program: bad.display().to_string(),
        args: vec![],
    };
    let (run, _) = run_one("PreToolUse", &spec("bad", cmd, dir.path(), &p), &p, &v332());
    assert_eq!(
        run.output.status,
        RunStatus::LaunchFailed {
            reason: format!(
                "bad interpreter: {} exists but the program on its `#!` line was not found",
                bad.display()
            ),
            exit_code: None,
        }
    );
}

#[test]
fn on_failure_block_turns_a_failure_into_a_block_from_2_1_295() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    let mut s = spec("plain1", shell(&script("plain_exit1.sh")), dir.path(), &p);
    s.on_failure_block = true;
    let (_, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(r.outcome.effect, Effect::Blocked);
    assert_eq!(r.outcome.model_sees.as_deref(), Some("first stderr line"));
    assert_eq!(
        r.outcome.why[0],
        "exit 1: onFailure: \"block\" turns a failed hook into a block, as exit 2 (docs/contract.md#failing-closed-onfailure)"
    );
    // Before 2.1.295 the key is ignored: exit 1 stays non-blocking.
    let (_, r) = run_one("PreToolUse", &s, &p, &Version::parse("2.1.294"));
    assert_eq!(r.outcome.effect, Effect::Nothing);
    assert_eq!(
        r.outcome.why[0],
        "onFailure: \"block\" is honoured from Claude Code 2.1.295; at 2.1.294 it is ignored (docs/contract.md#failing-closed-onfailure)"
    );
    // A launch failure blocks too, the failure standing in for stderr.
    let missing = HandlerCommand::Exec {
        program: dir.path().join("nope").display().to_string(),
        args: vec![],
    };
    let mut s = spec("missing", missing, dir.path(), &p);
    s.on_failure_block = true;
    let (_, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(r.outcome.effect, Effect::Blocked);
    assert_eq!(
        r.outcome.model_sees,
        Some(format!(
            "the hook could not start: not found: {}",
            dir.path().join("nope").display()
        ))
    );
}

#[test]
fn the_environment_is_the_allowlist_and_nothing_else() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    let mut ctx = EnvContext::from_payload(&p);
    ctx.project_dir = Some("/home/dev/work/hooks".into());
    ctx.entrypoint = Some("sdk-cli".into());
    // Only PATH from "hookscope's environment", plus one --env NAME=VALUE.
    let (env, warnings) = hook_env(&ctx, &["EXTRA=1".into(), "UNSET_X".into()], &|n| {
        (n == "PATH").then(|| std::env::var_os("PATH")).flatten()
    });
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        warnings[0].message,
        "UNSET_X is not set in hookscope's environment; not passed"
    );
    let s = RunSpec {
        label: "env".into(),
        command: HandlerCommand::Exec {
            program: "env".into(),
            args: vec![],
        },
        cwd: dir.path().to_path_buf(),
        cwd_note: None,
        env,
        timeout_secs: 30.0,
        write_root: None,
        on_failure_block: false,
        is_async: false,
    };
    let out = ProcessRunner.run(&s, b"{}");
    let text = String::from_utf8(out.stdout).expect("utf8");
    let mut lines: Vec<&str> = text.lines().filter(|l| !l.starts_with("PATH=")).collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "CLAUDECODE=1",
            "CLAUDE_CODE_ENTRYPOINT=sdk-cli",
            "CLAUDE_CODE_SESSION_ID=0c04bd79-42b3-41bb-b257-006f349f008a",
            "CLAUDE_EFFORT=medium",
            "CLAUDE_PROJECT_DIR=/home/dev/work/hooks",
            "EXTRA=1",
        ]
    );
    assert_eq!(text.lines().filter(|l| l.starts_with("PATH=")).count(), 1);
}

#[test]
fn output_over_the_cap_is_cut_and_counted() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    // 1 MiB + 10 bytes of 'x' on stdout.
    let cmd = shell("cat >/dev/null; head -c 1048586 /dev/zero | tr '\\0' x");
    let s = spec("big", cmd, dir.path(), &p);
    let (run, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(run.output.stdout.len(), 1024 * 1024);
    assert_eq!(run.output.stdout_dropped, 10);
    assert_eq!(
        r.outcome.why.last().map(String::as_str),
        Some("stdout was cut at 1048576 bytes by hookscope (10 more bytes dropped)")
    );
}

#[test]
fn a_background_child_left_behind_is_killed_and_reported() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    // The child's output goes elsewhere, so the hook's pipes close when it exits.
    let cmd = shell("cat >/dev/null; sleep 300 >/dev/null 2>&1 & echo $! > child.pid; exit 0");
    let s = spec("bg", cmd, dir.path(), &p);
    let (run, _) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(run.output.status, RunStatus::Exited { code: 0 });
    assert_eq!(
        run.output.notes,
        [
            "processes it started were still running after it finished; hookscope killed its process group (Claude Code would leave them running)"
        ]
    );
    let pid: i32 = std::fs::read_to_string(dir.path().join("child.pid"))
        .expect("pid file")
        .trim()
        .parse()
        .expect("pid");
    let mut tries = 0;
    while !gone(pid) && tries < 500 {
        std::thread::sleep(std::time::Duration::from_millis(10));
        tries += 1;
    }
    assert!(gone(pid));
}

#[test]
fn execute_reports_each_handler_the_merge_and_the_final_outcome() {
    use hookscope_core::hooks::exec::permissions::{Permissions, RuleContext, ToolVerdict};
    use hookscope_core::hooks::exec::{
        NotRun, Scratch, execute, not_runnable, project_dir, working_dir,
    };
    let scratch = Scratch::new().expect("scratch");
    // The captured payload's cwd (/home/dev/work/hooks) does not exist
    // here, nor does its project: the temporary folder.
    let p = pre_tool_use();
    let project = project_dir(None, None, scratch.path());
    let (cwd, note) = working_dir(&p, &project, &scratch);
    assert_eq!(cwd, scratch.path());
    assert_eq!(
        note,
        Some(format!(
            "the session's cwd /home/dev/work/hooks does not exist here: running in a temporary folder, {}",
            scratch.path().display()
        ))
    );
    let specs = vec![
        spec("silent", shell(&script("silent.sh")), &cwd, &p),
        spec("exit2", shell(&script("exit2.sh")), &cwd, &p),
    ];
    let not_run = vec![NotRun {
        label: "prompt".into(),
        handler_type: "prompt".into(),
        reason: not_runnable("prompt").expect("prompt is not run"),
    }];
    let r = execute(
        &ProcessRunner,
        "PreToolUse",
        &v332(),
        &p,
        &specs,
        not_run,
        &Permissions::default(),
        &RuleContext::default(),
    );
    assert_eq!(r.handlers.len(), 2);
    assert_eq!(r.handlers[1].exit_code, Some(2));
    assert_eq!(
        r.handlers[1].stderr,
        "Blocked by test hook: rm -rf is not allowed\n"
    );
    assert_eq!(r.combined.effect, Effect::Blocked);
    assert_eq!(r.combined.decided_by, ["exit2"]);
    assert_eq!(r.final_outcome.verdict, Some(ToolVerdict::Denied));
    assert_eq!(
        r.not_run[0].reason,
        "not runnable offline: the prompt hook asks a model (docs/contract.md#prompt-and-agent-hooks)"
    );
    let mut counts = Default::default();
    let j = r.to_json(false, &mut counts);
    assert_eq!(j["ran"], true);
    assert_eq!(j["final_outcome"]["verdict"], "denied");
    assert_eq!(j["handlers"][1]["status"]["kind"], "exited");
}

#[test]
fn a_session_start_hook_writes_its_env_file() {
    use hookscope_core::hooks::exec::permissions::{Permissions, RuleContext};
    use hookscope_core::hooks::exec::{Scratch, execute};
    let scratch = Scratch::new().expect("scratch");
    let p = captured("hooks/hooks/hooks/SessionStart.jsonl", 0);
    assert_eq!(p["hook_event_name"], "SessionStart");
    let mut ctx = EnvContext::from_payload(&p);
    ctx.env_file = Some(
        scratch
            .env_file("SessionStart", p["session_id"].as_str().expect("id"), 0)
            .expect("env file"),
    );
    let (env, _) = hook_env(&ctx, &[], &|n| std::env::var_os(n));
    let s = RunSpec {
        label: "ss".into(),
        command: shell("cat >/dev/null; echo 'export FOO=1' >> \"$CLAUDE_ENV_FILE\""),
        cwd: scratch.path().to_path_buf(),
        cwd_note: None,
        env,
        timeout_secs: 30.0,
        write_root: None,
        on_failure_block: false,
        is_async: false,
    };
    let r = execute(
        &ProcessRunner,
        "SessionStart",
        &v332(),
        &p,
        &[s],
        vec![],
        &Permissions::default(),
        &RuleContext::default(),
    );
    assert_eq!(r.handlers[0].exit_code, Some(0));
    assert_eq!(
        r.handlers[0].env_file_written.as_deref(),
        Some("export FOO=1\n")
    );
    assert!(
        ctx.env_file
            .as_ref()
            .is_some_and(|f| f.ends_with("sessionstart-hook-0.sh"))
    );
}

#[test]
fn a_hook_that_never_reads_a_large_payload_still_finishes() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = pre_tool_use();
    // 4 MiB of input: far more than a pipe holds, so writing it blocks
    // until the hook exits and the write fails with EPIPE.
    p["tool_input"]["command"] = json!("x".repeat(4 * 1024 * 1024));
    let s = spec("noread", shell("exit 0"), dir.path(), &p);
    let (run, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(run.output.status, RunStatus::Exited { code: 0 });
    assert_eq!(r.outcome.effect, Effect::Nothing);
}

#[test]
fn non_utf8_output_is_read_lossily() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = pre_tool_use();
    let s = spec(
        "bytes",
        shell("cat >/dev/null; printf '\\377\\376 not json'; printf '\\377' >&2; exit 2"),
        dir.path(),
        &p,
    );
    let (run, r) = run_one("PreToolUse", &s, &p, &v332());
    assert_eq!(run.output.stdout, b"\xff\xfe not json");
    assert_eq!(r.outcome.effect, Effect::Blocked);
    assert_eq!(r.outcome.model_sees.as_deref(), Some("\u{fffd}"));
}

#[test]
fn hooks_run_where_claude_code_would_and_the_project_dir_is_never_empty() {
    use hookscope_core::hooks::exec::{Scratch, project_dir, working_dir};
    let scratch = Scratch::new().expect("scratch");
    let local = tempfile::tempdir().expect("tmp");
    std::fs::create_dir(local.path().join("src")).expect("mkdir");
    // After `cd src` the payload's cwd is …/hooks/src (the captures).
    let p = json!({"cwd": "/home/dev/work/hooks/src"});
    let recorded = Path::new("/home/dev/work/hooks");
    // The recorded project is not here; the given settings' project is.
    let project = project_dir(Some(recorded), Some(local.path()), scratch.path());
    assert_eq!(project.path, local.path());
    assert_eq!(
        project.note.as_deref(),
        Some(
            format!(
                "the session's project /home/dev/work/hooks does not exist here: CLAUDE_PROJECT_DIR is {} (the folder holding the settings' .claude/; --cwd-map OLD=NEW names another)",
                local.path().display()
            )
            .as_str()
        )
    );
    // The cwd's place under the local project.
    let (cwd, note) = working_dir(&p, &project, &scratch);
    assert_eq!(cwd, local.path().join("src"));
    assert!(note.is_some_and(|n| n.contains("running in its place under CLAUDE_PROJECT_DIR")));
    // No such place: the project folder itself.
    let gone = json!({"cwd": "/home/dev/work/hooks/gone"});
    let (cwd, _) = working_dir(&gone, &project, &scratch);
    assert_eq!(cwd, local.path());
    // Nothing known at all: CLAUDE_PROJECT_DIR is still a folder.
    let none = project_dir(None, None, scratch.path());
    assert_eq!(none.path, scratch.path());
    assert!(!none.path.as_os_str().is_empty());
    // An empty recorded project is no project.
    let empty = project_dir(Some(Path::new("")), None, scratch.path());
    assert_eq!(empty.path, scratch.path());
}

/// Write confinement (docs/security.md#running-hooks): a hook run by a
/// [`SandboxRunner`] that confines writes writes in its `write_root`
/// (HOME, `mktemp` through TMPDIR), on `/dev/null` and on its own stdout
/// and stderr, and is refused everywhere else, a child it starts too.
/// Without Landlock the check must say why, and the runner must refuse to
/// start the hook rather than run it unconfined.
#[test]
fn confined_hooks_write_only_in_their_folder() {
    use hookscope_core::hooks::exec::{Confinement, SandboxRunner, write_confinement_available};
    let root = tempfile::tempdir().expect("root");
    let outside = tempfile::tempdir().expect("outside");
    let home = root.path().join("home");
    let tmp = root.path().join("tmp");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let payload = pre_tool_use();
    let mut s = spec(
        "confined",
        shell(&format!(
            "cat >/dev/null; echo in > \"$HOME/in\" && echo home-ok >&2; \
             t=$(mktemp) && echo mktemp-ok >&2; \
             (echo out > {out}/direct) 2>/dev/null || echo direct-refused >&2; \
             sh -c 'echo out > {out}/child' 2>/dev/null || echo child-refused >&2; \
             echo to-null > /dev/null && echo stdout-ok",
            out = outside.path().display()
        )),
        root.path(),
        &payload,
    );
    s.env.retain(|v| v.name != "HOME" && v.name != "TMPDIR");
    for (name, value) in [("HOME", &home), ("TMPDIR", &tmp)] {
        s.env.push(hookscope_core::hooks::exec::EnvVar {
            name: name.into(),
            value: value.clone().into_os_string(),
            source: hookscope_core::hooks::exec::EnvSource::Basic,
        });
    }
    s.write_root = Some(root.path().to_path_buf());
    let runner = SandboxRunner {
        how: Confinement {
            no_network: false,
            confine_writes: true,
        },
    };
    let stdin = serde_json::to_vec(&payload).expect("payload");
    let run = runner.run(&s, &stdin);
    match write_confinement_available() {
        Ok(()) => {
            assert_eq!(run.status, RunStatus::Exited { code: 0 }, "{run:?}");
            assert_eq!(String::from_utf8_lossy(&run.stdout), "stdout-ok\n");
            assert_eq!(
                String::from_utf8_lossy(&run.stderr),
                "home-ok\nmktemp-ok\ndirect-refused\nchild-refused\n"
            );
            assert!(home.join("in").is_file());
            assert_eq!(std::fs::read_dir(outside.path()).expect("ls").count(), 0);
        }
        Err(why) => {
            assert!(!why.is_empty());
            assert!(
                matches!(run.status, RunStatus::LaunchFailed { .. }),
                "{run:?}"
            );
            assert!(!home.join("in").exists());
        }
    }
}
