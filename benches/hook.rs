//! Live hook benchmark (not a test): `hookscope hook --rules
//! assets/rules/example.toml` run as the agent runs it, one process per
//! payload, and the wall time of each from spawn to exit; prints p50, p99
//! and the worst (docs/benchmarks.md#the-live-hook).
//!
//! Run: `cargo bench --bench hook [-- RUNS]` (default 300 runs a case).
//!
//! Cases:
//! - a PreToolUse payload no rule reads the history of (`ls -la`), with and
//!   without the decision log, the rule file in the hook's rule cache
//!   (docs/live-hook.md#the-rule-cache), and once more before it is;
//! - the captured `rm -rf` payload (a block), logged;
//! - a Stop payload (the example's `test-before-stop` reads the history)
//!   on a generated 100 MB session (Edit and Bash calls, each with an
//!   800-byte result), logged: its first call (a whole load, which leaves
//!   the per-session checkpoint), then calls with one more call appended
//!   before each (read through the checkpoint), then without a state folder
//!   (a whole load each time);
//! - a SubagentStop payload of a running subagent, on a generated 100 MB
//!   session of which half is ten subagent files (`<session>/subagents/`,
//!   each spawned by a Task call on the main thread): its first call, then
//!   calls with one more call appended to the running subagent's file
//!   before each (each file read through its own checkpoint).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let runs: usize = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .find_map(|a| a.parse().ok())
        .unwrap_or(300);
    let bin = env!("CARGO_BIN_EXE_hookscope");
    let root = env!("CARGO_MANIFEST_DIR");
    let rules = format!("{root}/assets/rules/example.toml");
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("hook bench: {e}");
            std::process::exit(2);
        }
    };
    let log = dir.path().join("log");
    let log = log.to_string_lossy().into_owned();
    let _ = STATE.set(dir.path().join("state"));
    let ls = br#"{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la"},"tool_use_id":"toolu_1","cwd":"/repo","permission_mode":"default"}"#.to_vec();
    let rm = std::fs::read(format!("{root}/tests/fixtures/rules/pretooluse_rm_rf.json"))
        .unwrap_or_default();
    println!("hookscope hook, {runs} runs a case (wall time per process, spawn to exit):");
    report(
        "PreToolUse ls, no history rule, --no-log",
        &time(bin, &[&rules, "--no-log"], &ls, runs, &mut || {}),
    );
    report(
        "PreToolUse ls, no history rule, logged",
        &time(bin, &[&rules, "--log-dir", &log], &ls, runs, &mut || {}),
    );
    report(
        "PreToolUse rm -rf (block), logged",
        &time(bin, &[&rules, "--log-dir", &log], &rm, runs, &mut || {}),
    );
    // A rule file the hook has not loaded before (just edited): every
    // regex compiles once to check it, and the rule cache learns its hash.
    let cache = dir.path().join("state").join("hookscope").join("rules");
    report(
        &format!(
            "PreToolUse ls, rule file not yet cached, --no-log ({} runs)",
            (runs / 10).max(5)
        ),
        &time(
            bin,
            &[&rules, "--no-log"],
            &ls,
            (runs / 10).max(5),
            &mut || {
                let _ = std::fs::remove_dir_all(&cache);
            },
        ),
    );
    let session = dir
        .path()
        .join("5e551011-0000-4000-8000-00000000b100.jsonl");
    let (bytes, calls) = match write_session(&session, 100_000_000) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("hook bench: {e}");
            std::process::exit(2);
        }
    };
    let stop = serde_json::json!({
        "session_id": "5e551011-0000-4000-8000-00000000b100",
        "transcript_path": session.to_string_lossy(),
        "cwd": "/repo", "permission_mode": "default",
        "hook_event_name": "Stop", "stop_hook_active": false,
    })
    .to_string()
    .into_bytes();
    let mb = bytes as f64 / 1e6;
    let history_runs = (runs / 10).max(5);
    // The first call loads the session whole and leaves its checkpoint;
    // before each later one the agent wrote one more call and its result.
    report(
        &format!("Stop with history rules, {mb:.0} MB session, first call, logged"),
        &time(bin, &[&rules, "--log-dir", &log], &stop, 1, &mut || {}),
    );
    let mut next = calls;
    report(
        &format!(
            "Stop with history rules, {mb:.0} MB session, after one more call each, logged ({history_runs} runs)"
        ),
        &time(
            bin,
            &[&rules, "--log-dir", &log],
            &stop,
            history_runs,
            &mut || {
                next += 1;
                append_call(&session, next);
            },
        ),
    );
    // Without a checkpoint folder (no state): the whole load each time.
    report(
        &format!("Stop with history rules, {mb:.0} MB session, no checkpoint (5 runs)"),
        &time_in(bin, &[&rules, "--no-log"], &stop, 5, &mut || {}, None),
    );
    // Half of it in ten subagent files; the last one still running.
    let sub_session = dir
        .path()
        .join("5e551011-0000-4000-8000-00000000b200.jsonl");
    let (sub_bytes, running, sub_calls) = match write_subagent_session(&sub_session, 100_000_000) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("hook bench: {e}");
            std::process::exit(2);
        }
    };
    let subagent_stop = serde_json::json!({
        "session_id": "5e551011-0000-4000-8000-00000000b200",
        "transcript_path": sub_session.to_string_lossy(),
        "cwd": "/repo", "permission_mode": "default",
        "hook_event_name": "SubagentStop", "stop_hook_active": false,
        "agent_id": "a9", "agent_type": "general-purpose",
        "agent_transcript_path": running.to_string_lossy(),
    })
    .to_string()
    .into_bytes();
    let mb = sub_bytes as f64 / 1e6;
    report(
        &format!(
            "SubagentStop with history rules, {mb:.0} MB session with 10 subagent files, first call, logged"
        ),
        &time(
            bin,
            &[&rules, "--log-dir", &log],
            &subagent_stop,
            1,
            &mut || {},
        ),
    );
    let mut next = sub_calls;
    report(
        &format!(
            "SubagentStop with history rules, {mb:.0} MB session with 10 subagent files, after one more call each in the running subagent, logged ({history_runs} runs)"
        ),
        &time(
            bin,
            &[&rules, "--log-dir", &log],
            &subagent_stop,
            history_runs,
            &mut || {
                next += 1;
                append_sidechain_call(&running, next);
            },
        ),
    );
}

/// Writes a Claude Code session of about `target` bytes at `path`, half
/// in its main file (a prompt, calls as [`write_session`]'s, then ten Task
/// calls) and half in ten subagent files `<session>/subagents/agent-a<k>.jsonl`
/// (a prompt and calls, marked `isSidechain`), the spawns of the first
/// nine finished. Returns the total size, the running subagent's file and
/// the number of calls in it.
fn write_subagent_session(
    path: &Path,
    target: u64,
) -> std::io::Result<(u64, std::path::PathBuf, u64)> {
    let sid = "5e551011-0000-4000-8000-00000000b200";
    let (mut total, _) = write_session(path, target / 2)?;
    let folder = path.with_extension("").join("subagents");
    std::fs::create_dir_all(&folder)?;
    let mut main = std::fs::OpenOptions::new().append(true).open(path)?;
    let mut running = folder.clone();
    let mut calls = 0;
    for k in 0..10u64 {
        let agent = format!("a{k}");
        let spawn = format!("toolu_task{k}");
        let call = serde_json::json!({"type": "assistant", "uuid": format!("t{k}"),
            "sessionId": sid, "timestamp": "2026-01-01T00:00:03Z", "cwd": "/repo",
            "message": {"role": "assistant", "id": format!("mt{k}"),
                "content": [{"type": "tool_use", "id": spawn, "name": "Task",
                    "input": {"description": format!("part {k}"), "prompt": format!("Fix part {k}"),
                        "subagent_type": "general-purpose"}}]}});
        let line = call.to_string();
        writeln!(main, "{line}")?;
        total += line.len() as u64 + 1;
        if k < 9 {
            let result = serde_json::json!({"type": "user", "uuid": format!("tr{k}"),
                "sessionId": sid, "timestamp": "2026-01-01T00:00:04Z", "cwd": "/repo",
                "toolUseResult": {"agentId": agent, "status": "completed"},
                "message": {"role": "user", "content": [{"type": "tool_result",
                    "tool_use_id": spawn, "content": "done"}]}});
            let line = result.to_string();
            writeln!(main, "{line}")?;
            total += line.len() as u64 + 1;
        }
        let file = folder.join(format!("agent-{agent}.jsonl"));
        let mut w = std::io::BufWriter::new(std::fs::File::create(&file)?);
        let head = serde_json::json!({"type": "user", "uuid": format!("s{k}"), "parentUuid": null,
            "isSidechain": true, "agentId": agent, "sessionId": sid,
            "timestamp": "2026-01-01T00:00:03Z", "cwd": "/repo",
            "message": {"role": "user", "content": format!("Fix part {k}")}});
        writeln!(w, "{head}")?;
        let mut written = head.to_string().len() as u64 + 1;
        let mut i = 0;
        while written < target / 20 {
            i += 1;
            for line in sidechain_lines(&agent, i) {
                writeln!(w, "{line}")?;
                written += line.len() as u64 + 1;
            }
        }
        w.flush()?;
        total += written;
        running = file;
        calls = i;
    }
    Ok((total, running, calls))
}

/// Call `i` of the subagent `agent` ([`call_lines`], as a sidechain).
fn sidechain_lines(agent: &str, i: u64) -> [String; 2] {
    call_lines(i).map(|line| {
        let mut v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        v["isSidechain"] = serde_json::json!(true);
        v["agentId"] = serde_json::json!(agent);
        for key in ["uuid", "parentUuid"] {
            if let Some(u) = v[key].as_str() {
                v[key] = serde_json::json!(format!("{agent}{u}"));
            }
        }
        if let Some(blocks) = v["message"]["content"].as_array_mut() {
            for b in blocks {
                for key in ["id", "tool_use_id"] {
                    if let Some(id) = b[key].as_str() {
                        b[key] = serde_json::json!(format!("{agent}{id}"));
                    }
                }
            }
        }
        v.to_string()
    })
}

/// Appends call `i` ([`sidechain_lines`]) to the running subagent's file.
fn append_sidechain_call(path: &Path, i: u64) {
    let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(path) else {
        eprintln!("hook bench: cannot append to {}", path.display());
        std::process::exit(2);
    };
    let agent = path
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.strip_prefix("agent-"))
        .unwrap_or("a9");
    let [call, result] = sidechain_lines(agent, i);
    let _ = writeln!(f, "{call}\n{result}");
}

/// Wall times of `runs` runs of `hookscope hook --rules ARGS` with `stdin`,
/// `before` run ahead of each (not timed), with the state folder in the
/// bench's temporary folder.
fn time(
    bin: &str,
    args: &[&str],
    stdin: &[u8],
    runs: usize,
    before: &mut dyn FnMut(),
) -> Vec<Duration> {
    let state = STATE.get().cloned();
    time_in(bin, args, stdin, runs, before, state.as_deref())
}

/// The bench's state folder (`XDG_STATE_HOME` of the runs).
static STATE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// [`time`] with `XDG_STATE_HOME` = `state`, or pointing at an empty file
/// (no checkpoint can be written) for `None`.
fn time_in(
    bin: &str,
    args: &[&str],
    stdin: &[u8],
    runs: usize,
    before: &mut dyn FnMut(),
    state: Option<&Path>,
) -> Vec<Duration> {
    let mut out = Vec::with_capacity(runs);
    let no_state = STATE.get().map(|s| s.with_extension("file"));
    if let Some(f) = &no_state {
        let _ = std::fs::write(f, "");
    }
    for _ in 0..runs {
        before();
        let started = Instant::now();
        let child = Command::new(bin)
            .env(
                "XDG_STATE_HOME",
                state.map_or_else(|| no_state.clone().unwrap_or_default(), Path::to_path_buf),
            )
            .arg("hook")
            .arg("--rules")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(mut child) = child else {
            eprintln!("hook bench: cannot run {bin}");
            std::process::exit(2);
        };
        if let Some(mut input) = child.stdin.take() {
            let _ = input.write_all(stdin);
        }
        let _ = child.wait();
        out.push(started.elapsed());
    }
    out
}

/// Prints p50, p99 and the worst of `times`.
fn report(label: &str, times: &[Duration]) {
    let mut ms: Vec<f64> = times.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let i = ((ms.len() as f64 - 1.0) * q).round() as usize;
        ms.get(i).copied().unwrap_or(f64::NAN)
    };
    println!(
        "  {label}: p50 {:.2} ms, p99 {:.2} ms, worst {:.2} ms",
        at(0.5),
        at(0.99),
        ms.last().copied().unwrap_or(f64::NAN)
    );
}

/// Writes a Claude Code session of about `target` bytes at `path`: a
/// prompt, then Edit and Bash calls with their results (none of them
/// `cargo test`). Returns its size and the number of calls.
fn write_session(path: &Path, target: u64) -> std::io::Result<(u64, u64)> {
    let file = std::fs::File::create(path)?;
    let mut w = std::io::BufWriter::new(file);
    let head = serde_json::json!({"type": "user", "uuid": "u0", "parentUuid": null,
        "sessionId": "5e551011-0000-4000-8000-00000000b100", "timestamp": "2026-01-01T00:00:00Z",
        "cwd": "/repo", "message": {"role": "user", "content": "Fix the parser bug"}});
    writeln!(w, "{head}")?;
    let mut written = head.to_string().len() as u64 + 1;
    let mut i = 0u64;
    while written < target {
        i += 1;
        for line in call_lines(i) {
            writeln!(w, "{line}")?;
            written += line.len() as u64 + 1;
        }
    }
    w.flush()?;
    Ok((written, i))
}

/// Call `i` of [`write_session`]: its `tool_use` line and its result line
/// (an 800-byte output).
fn call_lines(i: u64) -> [String; 2] {
    let (name, input) = if i.is_multiple_of(2) {
        (
            "Edit",
            serde_json::json!({"file_path": format!("/repo/src/f{}.rs", i % 500),
            "old_string": "a", "new_string": "b"}),
        )
    } else {
        (
            "Bash",
            serde_json::json!({"command": format!("grep -n item{i} src/lib.rs")}),
        )
    };
    let id = format!("toolu_b{i}");
    let call = serde_json::json!({"type": "assistant", "uuid": format!("a{i}"),
        "parentUuid": format!("r{}", i - 1), "sessionId": "5e551011-0000-4000-8000-00000000b100",
        "timestamp": "2026-01-01T00:00:01Z", "cwd": "/repo",
        "message": {"role": "assistant", "id": format!("m{i}"),
            "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}});
    let result = serde_json::json!({"type": "user", "uuid": format!("r{i}"),
        "parentUuid": format!("a{i}"), "sessionId": "5e551011-0000-4000-8000-00000000b100",
        "timestamp": "2026-01-01T00:00:02Z", "cwd": "/repo",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
            "content": "x".repeat(800)}]}});
    [call.to_string(), result.to_string()]
}

/// Appends call `i` ([`call_lines`]) to the session at `path`.
fn append_call(path: &Path, i: u64) {
    let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(path) else {
        eprintln!("hook bench: cannot append to {}", path.display());
        std::process::exit(2);
    };
    let [call, result] = call_lines(i);
    let _ = writeln!(f, "{call}\n{result}");
}
