//! `hookscope tail` on a copy of a real Claude Code 2.1.332 session that
//! the test appends to while the child runs. Every wait has
//! a 20 s safety net; nothing asserts on time.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{hookscope, hookscope_process};

/// hooks_c5_stop_block: line 70 is a Bash `tool_use`
/// (toolu_010vLE7lG2fUGk9vel3s1Alv), 71 its `tool_result`, 77 the Stop
/// hook's `hook_blocking_error` attachment.
const SESSION: &str = "tests/corpus/real-cc-2.1.332/hooks_c5_stop_block/projects/-home-dev-work-hooks-c5-stop-block/c8435c6b-9aae-401c-ba5f-97def3faba72.jsonl";
const ID: &str = "c8435c6b-9aae-401c-ba5f-97def3faba72";
const SAFETY: Duration = Duration::from_secs(20);

fn lines() -> Vec<Vec<u8>> {
    std::fs::read(SESSION)
        .expect("corpus session")
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open for append");
    f.write_all(bytes).expect("append");
}

/// A tempdir holding lines 1..=n of the session under its own name.
fn prefix(n: usize) -> (tempfile::TempDir, PathBuf, Vec<Vec<u8>>) {
    let all = lines();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(format!("{ID}.jsonl"));
    std::fs::write(&path, all[..n].concat()).expect("write");
    (dir, path, all)
}

struct Tail {
    child: Child,
    lines: Receiver<String>,
}

/// Starts `hookscope tail ARGS` and returns once it says it is following
/// (its stderr line), so what is appended next is new to it.
fn start(args: &[&str]) -> Tail {
    let mut child = hookscope_process()
        .arg("tail")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn hookscope tail");
    let stderr = child.stderr.take().expect("stderr");
    let (ready_tx, ready_rx) = channel();
    std::thread::spawn(move || {
        let mut ready = Some(ready_tx);
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("following")
                && let Some(tx) = ready.take()
            {
                let _ = tx.send(());
            }
            eprintln!("child stderr: {line}");
        }
    });
    ready_rx
        .recv_timeout(SAFETY)
        .expect("tail says it is following");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = channel();
    let tail = Tail { child, lines: rx };
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    tail
}

impl Tail {
    fn next_json(&self) -> Value {
        let line = self.lines.recv_timeout(SAFETY).expect("a line from tail");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn exit_code(mut self) -> Option<i32> {
        let until = Instant::now() + SAFETY;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                panic!("tail did not exit");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn call_json(path: &Path, line: usize) -> Value {
    json!({
        "type": "call",
        "session_id": ID,
        "agent": "claude-code",
        "agent_id": null,
        "tool_use_id": "toolu_010vLE7lG2fUGk9vel3s1Alv",
        "name": "Bash",
        "tool_kind": "bash",
        "tool_resolved": null,
        "summary": "cd src && pwd",
        "timestamp": "2026-11-29T18:00:12.173Z",
        "path": path.to_string_lossy(),
        "line": line,
    })
}

fn result_json(path: &Path, line: usize) -> Value {
    json!({
        "type": "result",
        "session_id": ID,
        "agent": "claude-code",
        "agent_id": null,
        "tool_use_id": "toolu_010vLE7lG2fUGk9vel3s1Alv",
        "name": "Bash",
        "tool_kind": "bash",
        "is_error": false,
        "output": "/home/dev/work/hooks_c5_stop_block/src",
        "timestamp": "2026-11-29T18:00:12.225Z",
        "path": path.to_string_lossy(),
        "line": line,
    })
}

#[test]
fn tail_prints_call_result_and_hook_as_they_are_appended() {
    let (_dir, path, all) = prefix(69);
    let p = path.to_str().expect("utf-8 temp path");
    let tail = start(&[
        p,
        "--json",
        "--last",
        "0",
        "--count",
        "3",
        "--timeout",
        "20",
    ]);
    append(&path, &all[69]);
    assert_eq!(tail.next_json(), call_json(&path, 70));
    append(&path, &all[70]);
    assert_eq!(tail.next_json(), result_json(&path, 71));
    append(&path, &all[76]);
    assert_eq!(
        tail.next_json(),
        json!({
            "type": "hook",
            "session_id": ID,
            "agent": "claude-code",
            "agent_id": null,
            "event": "Stop",
            "hook_name": "Stop",
            "action": "blocked",
            "tool_use_id": "42986ecc-f472-4139-b511-77b69b0497c5",
            "what": "blocked by hook: Stop hook says: please also run the tests before stopping.",
            "command": "python3 /home/dev/.hooks/hook.py hooks_c5_stop_block Stop",
            "exit_code": null,
            "timestamp": "2026-11-29T18:00:12.297Z",
            "path": path.to_string_lossy(),
            "line": 72,
        })
    );
    assert_eq!(tail.exit_code(), Some(0), "--count 3 reached");
}

#[test]
fn tail_of_a_folder_follows_its_newest_session() {
    let (dir, path, all) = prefix(69);
    let d = dir.path().to_str().expect("utf-8 temp path");
    let tail = start(&[
        d,
        "--json",
        "--last",
        "0",
        "--count",
        "1",
        "--timeout",
        "20",
    ]);
    append(&path, &all[69]);
    assert_eq!(tail.next_json(), call_json(&path, 70));
    assert_eq!(tail.exit_code(), Some(0));
}

#[test]
fn last_n_prints_the_last_calls_first() {
    // Lines 1..=71: the last call (line 70) and its result (line 71).
    let (_dir, path, _all) = prefix(71);
    let p = path.to_str().expect("utf-8 temp path");
    let tail = start(&[
        p,
        "--json",
        "--last",
        "1",
        "--count",
        "2",
        "--timeout",
        "20",
    ]);
    assert_eq!(tail.next_json(), call_json(&path, 70));
    assert_eq!(tail.next_json(), result_json(&path, 71));
    assert_eq!(tail.exit_code(), Some(0));
}

#[test]
fn truncation_is_reported_and_the_file_read_again() {
    let (_dir, path, all) = prefix(72);
    let p = path.to_str().expect("utf-8 temp path");
    let tail = start(&[
        p,
        "--json",
        "--last",
        "0",
        "--count",
        "3",
        "--timeout",
        "20",
    ]);
    // Cut back to 60 lines and append the Bash call and its result at once.
    let mut cut = all[..60].concat();
    cut.extend_from_slice(&all[69]);
    cut.extend_from_slice(&all[70]);
    std::fs::write(&path, cut).expect("rewrite");
    assert_eq!(
        tail.next_json(),
        json!({"type": "reset", "path": path.to_string_lossy()})
    );
    assert_eq!(tail.next_json(), call_json(&path, 61));
    assert_eq!(tail.next_json(), result_json(&path, 62));
    assert_eq!(tail.exit_code(), Some(0));
}

#[test]
fn a_cut_last_line_is_printed_once_completed() {
    let (_dir, path, all) = prefix(69);
    let p = path.to_str().expect("utf-8 temp path");
    let tail = start(&[
        p,
        "--json",
        "--last",
        "0",
        "--count",
        "1",
        "--timeout",
        "20",
    ]);
    let line = &all[69];
    append(&path, &line[..line.len() / 2]);
    // Give the follower a poll (500 ms) to see the cut line; the result
    // does not depend on it: the first line printed must be the call, not
    // a diagnostic.
    std::thread::sleep(Duration::from_millis(700));
    append(&path, &line[line.len() / 2..]);
    assert_eq!(tail.next_json(), call_json(&path, 70));
    assert_eq!(tail.exit_code(), Some(0));
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_hanging() {
    let dir = tempfile::tempdir().expect("tempdir");
    for name in ["s.jsonl", "fifo"] {
        let fifo = dir.path().join(name);
        let status = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
        assert!(status.success());
        hookscope()
            .arg("tail")
            .arg(&fifo)
            .timeout(SAFETY)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(
                "not a regular file (FIFO); not followed",
            ));
    }
}

#[test]
fn a_missing_path_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("gone.jsonl");
    hookscope()
        .arg("tail")
        .arg(&missing)
        .timeout(SAFETY)
        .assert()
        .code(2)
        .stderr(format!(
            "hookscope: no such file or directory: {}\n",
            missing.display()
        ));
}

#[test]
fn a_closed_reader_ends_tail_quietly() {
    let (_dir, path, all) = prefix(69);
    let p = path.to_str().expect("utf-8 temp path");
    let mut child = hookscope_process()
        .args(["tail", p, "--json", "--last", "0", "--timeout", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut first = String::new();
    stderr.read_line(&mut first).expect("stderr line");
    assert!(first.contains("following"), "{first}");
    // `| head -1`: read one line, then close the pipe.
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    append(&path, &all[69]);
    let mut line = String::new();
    stdout.read_line(&mut line).expect("one line");
    assert!(line.contains("toolu_010vLE7lG2fUGk9vel3s1Alv"), "{line}");
    drop(stdout);
    // The next write meets the closed pipe.
    append(&path, &all[70]);
    let until = Instant::now() + SAFETY;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("tail did not exit after its reader closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("stderr");
    assert!(!rest.contains("panicked"), "{rest}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert!(
            status.code() == Some(0) || status.signal() == Some(13),
            "{status:?}"
        );
    }
    #[cfg(not(unix))]
    assert_eq!(status.code(), Some(0));
}

#[cfg(unix)]
#[test]
fn sigint_ends_tail_with_status_0() {
    let (_dir, path, _all) = prefix(69);
    let p = path.to_str().expect("utf-8 temp path");
    let tail = start(&[p, "--json", "--last", "0", "--timeout", "20"]);
    let pid = i32::try_from(tail.child.id()).expect("a pid");
    // SAFETY: kill(2) on the child we spawned; no memory is involved.
    let sent = unsafe { libc::kill(pid, libc::SIGINT) };
    assert_eq!(sent, 0);
    assert_eq!(tail.exit_code(), Some(0));
}

/// A call with no field to summarize (an MCP tool's own input) shows its
/// compact input, as `find`'s table does, instead of nothing.
#[test]
fn an_mcp_call_shows_its_input() {
    let source = std::fs::read_dir("tests/corpus/real-cc-2.1.332/tools/projects")
        .expect("corpus")
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("the tools session");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(source.file_name().expect("name"));
    std::fs::copy(&source, &path).expect("copy");
    let out = hookscope()
        .env("NO_COLOR", "1")
        .args(["tail", "--last", "100", "--timeout", "1"])
        .arg(&path)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    // The session's two MCP calls (python3: their tool_use inputs).
    assert!(
        text.lines()
            .any(|l| l.ends_with("→ mcp__mockmcp__lookup  {\"key\":\"alpha\"}")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.ends_with("→ mcp__mockmcp__fail  {}")),
        "{text}"
    );
    assert!(!text.lines().any(|l| l.ends_with(' ')), "{text}");
}
