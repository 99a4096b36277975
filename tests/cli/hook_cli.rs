//! `hookscope hook`, the live hook, run as a process: the same decisions as
//! `hookscope test` on every case of the example rule set and as `replay`
//! on every captured PreToolUse payload of the real corpus; its failure
//! modes; the decision log (docs/live-hook.md).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use hookscope_core::hooks::rules::{History, RuleSet, TestCase};
use serde_json::{Value, json};

use crate::support::{EXAMPLE_RULES, hookscope, hookscope_process};

/// What one run of `hookscope hook` gave.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `hookscope hook --rules RULES --log-dir LOG ARGS` with `stdin`.
fn hook(rules: &str, log: &Path, args: &[&str], stdin: &[u8]) -> Ran {
    let out = hookscope()
        .args(["hook", "--rules", rules, "--log-dir"])
        .arg(log)
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .expect("runs");
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).expect("utf-8"),
        stderr: String::from_utf8(out.stderr).expect("utf-8"),
    }
}

/// `hookscope hook --rules EXAMPLE_RULES ARGS --log-dir LOG` started with
/// stdin piped (not yet written), stdout and stderr as given.
fn spawn_hook(log: &Path, args: &[&str], stdout: Stdio, stderr: Stdio) -> std::process::Child {
    hookscope_process()
        .args(["hook", "--rules", EXAMPLE_RULES])
        .args(args)
        .arg("--log-dir")
        .arg(log)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .expect("spawn")
}

/// `hookscope hook --rules EXAMPLE_RULES` on `payload` with the state
/// folder `state` (the log in its default place there); exits 0.
fn hook_in_state(state: &Path, payload: Vec<u8>) {
    let out = hookscope()
        .env("XDG_STATE_HOME", state)
        .args(["hook", "--rules", EXAMPLE_RULES])
        .write_stdin(payload)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
}

/// Dates every entry of the decision log under `state` at `time`, as if
/// the hook had run live then (a decision logged far from its call's time
/// is not that call's: docs/live-hook.md#the-decision-log).
fn stamp_log(state: &Path, time: &str) {
    let log = state.join("hookscope/decisions");
    for file in std::fs::read_dir(&log).expect("log folder").flatten() {
        let text = std::fs::read_to_string(file.path()).expect("log file");
        let lines: Vec<String> = text
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).expect("entry");
                v["time"] = json!(time);
                v.to_string()
            })
            .collect();
        std::fs::write(file.path(), lines.join("\n") + "\n").expect("write");
    }
}

/// Every entry of the log folder, oldest first.
fn entries(log: &Path) -> Vec<Value> {
    hookscope_core::hooks::decisions::read_all(log).expect("log")
}

/// A Claude Code transcript whose history is `h`: the prompt, then one Edit
/// per touched file and one Bash call per command, each with its result.
fn transcript_of(dir: &Path, h: &History) -> PathBuf {
    let path = dir.join("5e551011-0000-4000-8000-000000000001.jsonl");
    let mut lines = Vec::new();
    let mut n = 0;
    let mut line = |v: Value| {
        n += 1;
        let mut v = v;
        v["uuid"] = json!(format!("u{n}"));
        v["parentUuid"] = if n == 1 {
            Value::Null
        } else {
            json!(format!("u{}", n - 1))
        };
        v["sessionId"] = json!("5e551011-0000-4000-8000-000000000001");
        v["timestamp"] = json!(format!("2026-01-01T00:00:{n:02}Z"));
        v["cwd"] = json!("/repo");
        lines.push(v.to_string());
    };
    line(json!({"type": "user", "message": {"role": "user",
        "content": h.turn_prompt.clone().unwrap_or_else(|| "hello".into())}}));
    let calls = h
        .touched_files
        .iter()
        .map(|f| {
            (
                "Edit",
                json!({"file_path": f, "old_string": "a", "new_string": "b"}),
            )
        })
        .chain(
            h.ran_commands
                .iter()
                .map(|c| ("Bash", json!({"command": c}))),
        );
    for (i, (name, input)) in calls.enumerate() {
        let id = format!("toolu_hist{i}");
        line(
            json!({"type": "assistant", "message": {"role": "assistant", "id": format!("msg{i}"),
            "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}}),
        );
        line(json!({"type": "user", "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}}));
    }
    std::fs::write(&path, lines.join("\n") + "\n").expect("transcript");
    path
}

/// The payload a case's hook would get: the case's payload, and when the
/// case gives a history, a transcript holding it as `transcript_path`.
fn live_payload(case: &TestCase, dir: &Path) -> Value {
    let mut payload = case.payload.clone();
    let h = &case.history;
    if h.turn_prompt.is_some() || !h.touched_files.is_empty() || !h.ran_commands.is_empty() {
        let at = tempfile::tempdir_in(dir).expect("tempdir").keep();
        payload["transcript_path"] = json!(transcript_of(&at, h).to_string_lossy());
    }
    payload
}

/// Every case of the example rule set, through `hookscope test` and through
/// `hookscope hook`: a rule's case gets the same verdict from that rule in
/// the hook's log, a set's case the same combined verdict; the hook's
/// stdout and exit code are what the evaluator's output says.
#[test]
fn every_example_case_decides_the_same_in_hook_and_test() {
    let set = RuleSet::load(Path::new(EXAMPLE_RULES)).expect("example loads");
    let out = hookscope()
        .args(["test", EXAMPLE_RULES, "--json"])
        .output()
        .expect("runs");
    let tested: Value = serde_json::from_slice(&out.stdout).expect("json");
    let got_at = |line: usize| -> String {
        tested["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .find(|c| c["line"] == line)
            .and_then(|c| c["got"].as_str())
            .expect("case by line")
            .to_string()
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log");
    let cases: Vec<&TestCase> = set
        .rules
        .iter()
        .flat_map(|r| &r.tests)
        .chain(&set.tests)
        .collect();
    assert_eq!(cases.len(), 63, "the example's cases");
    for (i, case) in cases.iter().enumerate() {
        let payload = live_payload(case, dir.path());
        let ran = hook(EXAMPLE_RULES, &log, &[], payload.to_string().as_bytes());
        let logged = entries(&log);
        assert_eq!(logged.len(), i + 1, "one entry per run");
        let entry = &logged[i];
        let hook_verdict = match &case.rule {
            Some(id) => entry["matched"]
                .as_array()
                .expect("matched")
                .iter()
                .find(|m| m["id"] == id.as_str())
                .and_then(|m| m["verdict"].as_str())
                .unwrap_or("none")
                .to_string(),
            None => entry["verdict"].as_str().expect("verdict").to_string(),
        };
        assert_eq!(
            hook_verdict,
            got_at(case.line),
            "case {:?} (line {})",
            case.name,
            case.line
        );
        let eval = set.evaluate(&case.payload, &case.history);
        assert_eq!(
            ran.code,
            Some(eval.output.exit_code),
            "case {:?}",
            case.name
        );
        let printed: Option<Value> = (!ran.stdout.is_empty())
            .then(|| serde_json::from_str(&ran.stdout).expect("stdout json"));
        assert_eq!(printed, eval.output.stdout, "case {:?}", case.name);
        assert_eq!(
            ran.stdout.matches('\n').count(),
            usize::from(printed.is_some())
        );
    }
}

/// The captured PreToolUse payloads of Claude Code 2.1.332, each through
/// `hookscope hook` and through `replay` of the same event in its session:
/// the same decision and the same stdout.
#[test]
fn captured_pretooluse_payloads_decide_as_replay() {
    let root = Path::new("tests/corpus/real-cc-2.1.332");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log");
    let mut compared = 0;
    let mut verdicts = std::collections::BTreeMap::<String, usize>::new();
    for capture in files_named(root, "PreToolUse.jsonl") {
        let text = std::fs::read_to_string(&capture).expect("capture");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let record: Value = serde_json::from_str(line).expect("capture line");
            let payload = &record["stdin"];
            let id = payload["tool_use_id"].as_str().expect("tool_use_id");
            let session = payload["session_id"].as_str().expect("session_id");
            let transcript = files_named(root, &format!("{session}.jsonl"))
                .into_iter()
                .next()
                .expect("every capture's session is in the corpus");
            let ran = hook(EXAMPLE_RULES, &log, &[], payload.to_string().as_bytes());
            let entry = entries(&log).pop().expect("entry");
            let out = hookscope()
                .arg("replay")
                .arg(&transcript)
                .args([
                    "--event",
                    "PreToolUse",
                    "--at",
                    id,
                    "--rules",
                    EXAMPLE_RULES,
                    "--json",
                ])
                .output()
                .expect("runs");
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let replay: Value = serde_json::from_slice(&out.stdout).expect("json");
            assert_eq!(
                entry["verdict"],
                replay["decision"],
                "{id} in {}",
                capture.display()
            );
            let printed: Value = if ran.stdout.is_empty() {
                Value::Null
            } else {
                serde_json::from_str(&ran.stdout).expect("stdout")
            };
            assert_eq!(printed, replay["output"]["stdout"], "{id}");
            assert_eq!(
                ran.code,
                replay["output"]["exit_code"].as_i64().map(|c| c as i32)
            );
            *verdicts
                .entry(replay["decision"].as_str().unwrap_or("?").to_string())
                .or_default() += 1;
            compared += 1;
        }
    }
    // The 103 captured lines: the example rules block the 6 rm -rf calls,
    // pre-approve 4 read-only git commands (allow-read-only-git) and leave
    // the rest.
    assert_eq!(compared, 103, "{verdicts:?}");
    assert_eq!(verdicts.get("block"), Some(&6), "{verdicts:?}");
    assert_eq!(verdicts.get("allow"), Some(&4), "{verdicts:?}");
}

/// Files named `name` under `root`, sorted.
fn files_named(root: &Path, name: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("dir").flatten() {
            let p = e.path();
            if e.file_type().expect("type").is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == name) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

const RM_RF: &str = r#"{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build/"},"tool_use_id":"toolu_1"}"#;

/// A rule file that is missing, not TOML, or holds a regex past the
/// budget: `--on-error allow` exits 0 with nothing on stdout, `block`
/// exits 2; one line on stderr says why; the log says `error`.
#[test]
fn a_rule_file_that_does_not_load_answers_the_failure_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let broken = dir.path().join("broken.toml");
    std::fs::write(&broken, "[[rules]\nid = ").expect("write");
    let huge = dir.path().join("huge.toml");
    std::fs::write(
        &huge,
        "[[rules]]\nid = \"x\"\nevents = \"PreToolUse\"\naction = \"block\"\nreason = \"r\"\n[rules.only_if]\ncommand = '(\\w{1,100}){1,100}(\\w{1,100}){1,100}'\n",
    )
    .expect("write");
    let missing = dir.path().join("missing.toml");
    for (file, says) in [
        (&missing, "cannot read rule file"),
        (&broken, "rule file refused: "),
        (&huge, "rule file refused: "),
    ] {
        let log = dir.path().join("log");
        let rules = file.to_str().expect("utf-8 path");
        let ran = hook(rules, &log, &[], RM_RF.as_bytes());
        assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""), "{rules}");
        assert!(ran.stderr.starts_with("hookscope hook: "), "{}", ran.stderr);
        assert!(ran.stderr.contains(says), "{}", ran.stderr);
        assert!(
            ran.stderr.ends_with("; allowed (--on-error allow)\n"),
            "{}",
            ran.stderr
        );
        assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
        let ran = hook(rules, &log, &["--on-error", "block"], RM_RF.as_bytes());
        assert_eq!((ran.code, ran.stdout.as_str()), (Some(2), ""), "{rules}");
        assert!(
            ran.stderr.ends_with("; blocked (--on-error block)\n"),
            "{}",
            ran.stderr
        );
        let last = entries(&log).pop().expect("logged");
        assert_eq!(last["verdict"], "error");
        assert_eq!(last["output"]["exit_code"], 2);
        assert_eq!(last["tool_use_id"], "toolu_1");
    }
}

/// A payload that is not JSON, not an object, without an event, over the
/// 64 MiB cap, with a tool input that is not an object, or not UTF-8: the
/// failure mode, never a crash.
#[test]
fn a_payload_that_does_not_parse_answers_the_failure_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log");
    let big = vec![b' '; (64 << 20) + 1];
    for (stdin, says) in [
        (&b"not json"[..], "the payload is not JSON"),
        (b"[1,2]", "the payload is not a JSON object"),
        (
            b"{\"tool_name\":\"Bash\"}",
            "the payload has no hook_event_name",
        ),
        (b"", "the payload is not JSON"),
        (&big[..], "the payload is over 64 MiB"),
        // A tool event whose input is not an object would meet no rule
        // and pass as `none`: it gets the failure mode instead.
        (
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":null}"#,
            "the payload's tool_input is null, not an object",
        ),
        (
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":["rm -rf /"]}"#,
            "the payload's tool_input is an array, not an object",
        ),
        (
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"rm -rf /"}"#,
            "the payload's tool_input is a string, not an object",
        ),
        (
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash"}"#,
            "the payload names a tool but has no tool_input",
        ),
        (
            br#"{"hook_event_name":"PreToolUse","tool_name":7,"tool_input":{}}"#,
            "the payload's tool_name is a number, not a string",
        ),
    ] {
        let ran = hook(EXAMPLE_RULES, &log, &["--on-error", "block"], stdin);
        assert_eq!((ran.code, ran.stdout.as_str()), (Some(2), ""));
        assert!(ran.stderr.contains(says), "{}", ran.stderr);
    }
    // Invalid UTF-8 inside a string is repaired, as in a transcript: the
    // rule still sees `rm -rf`.
    let mut bytes = RM_RF.as_bytes().to_vec();
    let at = RM_RF.find("build").expect("build");
    bytes.splice(at..at, [0xff, 0xfe]);
    let ran = hook(EXAMPLE_RULES, &log, &[], &bytes);
    assert_eq!(ran.code, Some(0));
    assert!(
        ran.stdout.contains("\"permissionDecision\":\"deny\""),
        "{}",
        ran.stdout
    );
}

/// A payload read only after a repair (a lone surrogate escape, invalid
/// UTF-8) gets no approving answer: the rewrite would replace the model's
/// text with U+FFFD. A block still goes out.
#[test]
fn a_repaired_payload_gets_no_approval() {
    let dir = tempfile::tempdir().expect("tempdir");
    // markdown-tabs rewrites the tab of a Markdown file under docs/.
    let write = r#"{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/repo/docs/a.md","content":"-\titem ok"},"tool_use_id":"toolu_2","cwd":"/repo"}"#;
    let ran = hook(EXAMPLE_RULES, dir.path(), &[], write.as_bytes());
    assert!(ran.stdout.contains("updatedInput"), "{}", ran.stdout);
    let surrogate = write.replace("item ok", "item \\ud800ok");
    assert!(surrogate.contains(r"\ud800"));
    let ran = hook(EXAMPLE_RULES, dir.path(), &[], surrogate.as_bytes());
    assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""));
    assert_eq!(
        ran.stderr,
        "hookscope hook: the payload was read with lone UTF-16 surrogate escape replaced with U+FFFD, so the rewrite answer is withheld: the rules did not see the call's exact text\n"
    );
    let mut bytes = write.as_bytes().to_vec();
    let at = write.find("item ok").expect("item") + 5;
    bytes.splice(at..at, [0xff]);
    let ran = hook(EXAMPLE_RULES, dir.path(), &[], &bytes);
    assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""));
    assert!(
        ran.stderr.contains("invalid UTF-8 replaced with U+FFFD"),
        "{}",
        ran.stderr
    );
}

/// A 50 MB Write payload is read and decided (the example's no-secrets
/// rule looks at its content); the log entry stays one short line.
#[test]
fn a_fifty_megabyte_payload_is_decided_and_logged_short() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log");
    let content = "x".repeat(50 << 20) + "\nAKIAIOSFODNN7EXAMPLE\n";
    let payload = json!({"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Write",
        "tool_input": {"file_path": "/repo/big.txt", "content": content}, "tool_use_id": "toolu_big"});
    let ran = hook(EXAMPLE_RULES, &log, &[], payload.to_string().as_bytes());
    let eval = RuleSet::load(Path::new(EXAMPLE_RULES))
        .expect("example")
        .evaluate(&payload, &History::default());
    assert_eq!(ran.code, Some(eval.output.exit_code));
    assert_eq!(
        (!ran.stdout.is_empty()).then(|| serde_json::from_str::<Value>(&ran.stdout).expect("json")),
        eval.output.stdout
    );
    let text = std::fs::read_to_string(
        std::fs::read_dir(&log)
            .expect("log")
            .flatten()
            .next()
            .expect("day file")
            .path(),
    )
    .expect("log");
    assert_eq!(text.lines().count(), 1);
    assert!(text.len() <= hookscope_core::hooks::decisions::MAX_ENTRY_BYTES + 1);
    assert!(!text.contains("AKIAIOSFODNN7EXAMPLE"));
}

/// A reader that closed stdout (SIGPIPE on a write would kill a C hook)
/// changes nothing: the exit status still carries the decision, and the
/// decision is logged.
#[test]
fn a_closed_stdout_still_exits_with_the_decision() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log");
    let mut child = spawn_hook(
        &log,
        &["--on-error", "block"],
        Stdio::piped(),
        Stdio::null(),
    );
    drop(child.stdout.take());
    let stop = r#"{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push origin main --force"},"tool_use_id":"toolu_2"}"#;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stop.as_bytes())
        .expect("write");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(0));
    let entry = entries(&log).pop().expect("logged");
    assert_eq!(entry["verdict"], "rewrite");
}

/// A log folder that cannot be written (here: a file in its place, which
/// even root cannot make a folder of): the decision still goes out, the
/// line is dropped with a note on stderr.
#[test]
fn an_unwritable_log_folder_drops_the_line_with_a_note() {
    let dir = tempfile::tempdir().expect("tempdir");
    let not_a_folder = dir.path().join("state");
    std::fs::write(&not_a_folder, "").expect("file");
    let ran = hook(
        EXAMPLE_RULES,
        &not_a_folder.join("decisions"),
        &[],
        RM_RF.as_bytes(),
    );
    assert_eq!(ran.code, Some(0));
    assert!(
        ran.stdout.contains("\"permissionDecision\":\"deny\""),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stderr
            .starts_with("hookscope hook: decision not logged: "),
        "{}",
        ran.stderr
    );
}

/// Sixteen hooks at once append sixteen whole lines.
#[test]
fn sixteen_parallel_hooks_never_tear_a_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log");
    let children: Vec<_> = (0..16)
        .map(|i| {
            let mut child = spawn_hook(&log, &[], Stdio::null(), Stdio::null());
            let payload = RM_RF.replace("toolu_1", &format!("toolu_p{i:02}"));
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(payload.as_bytes())
                .expect("write");
            child
        })
        .collect();
    for mut c in children {
        assert_eq!(c.wait().expect("wait").code(), Some(0));
    }
    let day = std::fs::read_dir(&log)
        .expect("log")
        .flatten()
        .next()
        .expect("day")
        .path();
    let text = std::fs::read_to_string(day).expect("read");
    let mut ids: Vec<String> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a whole JSON line");
            v["tool_use_id"].as_str().expect("id").to_string()
        })
        .collect();
    ids.sort();
    let want: Vec<String> = (0..16).map(|i| format!("toolu_p{i:02}")).collect();
    assert_eq!(ids, want);
}

/// An argument error exits 1 (Claude Code reports it without blocking),
/// never 2 (which would block the call).
#[test]
fn argument_errors_exit_one() {
    let out = hookscope()
        .args(["hook", "--rulez", "x"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let out = hookscope().args(["hook"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
}

/// `--agent codex`: the example rules on payloads shaped as Codex 0.171
/// sends them (shell tools as `Bash` with `{"command"}`, a `turn_id`), each
/// answer written for Codex's reader: a deny with its reason, an allow
/// only with `updatedInput`, context as `additionalContext`, and no plain
/// allow (Codex refuses one without `updatedInput`).
#[test]
fn codex_payloads_are_answered_in_codex_contract() {
    let dir = tempfile::tempdir().expect("tempdir");
    let codex = |event: &str, extra: &str| {
        format!(
            r#"{{"session_id":"019a0000-0000-7000-8000-000000000001","turn_id":"1","transcript_path":null,"cwd":"/repo","hook_event_name":"{event}","model":"gpt-5.1-codex","permission_mode":"default"{extra}}}"#
        )
    };
    let bash = |cmd: &str| {
        codex(
            "PreToolUse",
            &format!(
                r#","tool_name":"Bash","tool_input":{{"command":"{cmd}"}},"tool_use_id":"call_1""#
            ),
        )
    };
    let run = |payload: String| {
        hook(
            EXAMPLE_RULES,
            dir.path(),
            &["--agent", "codex"],
            payload.as_bytes(),
        )
    };
    let stdout =
        |ran: &Ran| -> Value { serde_json::from_str(&ran.stdout).expect("one JSON object") };
    // A block: permissionDecision deny with a non-empty reason.
    let ran = run(bash("rm -rf build/"));
    assert_eq!(ran.code, Some(0));
    let v = stdout(&ran);
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(
        v["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .is_some_and(|r| r.starts_with("rm -rf is blocked in this project.")),
        "{v}"
    );
    // A rewrite: allow with the whole new input.
    let v = stdout(&run(bash("git push origin main --force")));
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "allow");
    assert_eq!(
        v["hookSpecificOutput"]["updatedInput"],
        serde_json::json!({"command": "git push origin main --force-with-lease"})
    );
    // An allow (allow-read-only-git): Codex has no allow without
    // updatedInput, so nothing is printed.
    let ran = run(bash("git status"));
    assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""));
    // A context rule: additionalContext.
    let v = stdout(&run(bash("curl -s https://x.dev/v1?token=abcdefgh12345")));
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .is_some_and(|c| c.contains("seems to carry a secret")),
        "{v}"
    );
    // UserPromptSubmit context, and the decision log names the agent.
    let v = stdout(&run(codex(
        "UserPromptSubmit",
        r#","prompt":"please deploy the api""#,
    )));
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .is_some_and(|c| c.starts_with("Deploys go through")),
        "{v}"
    );
    let log = std::fs::read_dir(dir.path())
        .expect("log folder")
        .filter_map(Result::ok)
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect::<String>();
    assert_eq!(log.lines().count(), 5, "{log}");
    assert!(
        log.lines().all(|l| l.contains(r#""agent":"codex""#)),
        "{log}"
    );
    // A Stop on the real Codex 0.171 rollout: its hello.py was written by
    // a shell call feeding a patch to apply_patch, which counts as touched.
    let rollout = std::fs::canonicalize(
        "tests/corpus/real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl",
    )
    .expect("rollout");
    let rules = dir.path().join("touched.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"py\"\nevents = \"Stop\"\naction = \"block\"\nreason = \"run the tests\"\n[rules.only_if]\ntouched_file = \"*.py\"\n",
    )
    .expect("rules");
    let stop = serde_json::json!({"session_id": "01a2287a", "turn_id": "1", "cwd": "/repo",
        "hook_event_name": "Stop", "stop_hook_active": false, "model": "gpt-5-codex",
        "transcript_path": rollout.to_string_lossy()});
    let ran = hook(
        rules.to_str().expect("utf-8"),
        dir.path(),
        &["--agent", "codex"],
        stop.to_string().as_bytes(),
    );
    assert_eq!(
        stdout(&ran),
        serde_json::json!({"decision": "block", "reason": "run the tests"})
    );
}

/// A `none` answer is logged with why: each rule that got past its event
/// and tool, and where it stopped (here the /tmp skip of no-rm-rf); a rule
/// on another tool is not listed. `hooks --decisions --all` prints them.
#[test]
fn a_none_decision_logs_why_each_rule_stopped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let payload = RM_RF.replace("rm -rf build/", "rm -rf /tmp/scratch");
    let ran = hook(EXAMPLE_RULES, dir.path(), &[], payload.as_bytes());
    assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""));
    let entry = entries(dir.path()).pop().expect("logged");
    assert_eq!(entry["verdict"], "none");
    let ids: Vec<&str> = entry["considered"]
        .as_array()
        .expect("considered")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "no-rm-rf",
            "force-with-lease",
            "allow-read-only-git",
            "no-curl-pipe-sh",
            "secret-on-the-line"
        ]
    );
    assert!(
        entry["considered"][0]["why"].as_str().is_some_and(
            |w| w == "skip_if command ✗ on call 1 of 1 (rm -rf /tmp/scratch) → rule skipped"
        ),
        "{entry}"
    );
    let out = hookscope()
        .args(["hooks", "--decisions", "--all", "--log-dir"])
        .arg(dir.path())
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\n    not force-with-lease: program ✗ (programs are \"rm\")\n"),
        "{text}"
    );
}

/// A secret in the command is masked in the log's whys, as everywhere.
#[test]
fn the_log_masks_secrets() {
    let dir = tempfile::tempdir().expect("tempdir");
    let payload = RM_RF.replace(
        "rm -rf build/",
        "rm -rf build/ ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    );
    let ran = hook(EXAMPLE_RULES, dir.path(), &[], payload.as_bytes());
    assert_eq!(ran.code, Some(0));
    let day = std::fs::read_dir(dir.path())
        .expect("log")
        .flatten()
        .next()
        .expect("day")
        .path();
    let text = std::fs::read_to_string(day).expect("read");
    assert!(
        !text.contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        "{text}"
    );
    assert!(text.contains("[REDACTED_GITHUB_TOKEN]"), "{text}");
}

/// `hooks --decisions` reads the log back: a row per decision with its
/// matched rules and their whys, and whether the rule file changed since;
/// the `none` answers only with `--all` or `--verdict none`; `--json` the
/// same typed; a SESSION prefix keeps that session's;
/// `HOOKSCOPE_DECISIONS_DIR` moves the log for the hook and the reader.
#[test]
fn hooks_decisions_lists_the_log_and_sees_a_changed_rule_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("rules.toml");
    std::fs::copy(EXAMPLE_RULES, &rules).expect("copy");
    let state = dir.path().join("state");
    let run = |stdin: &str| {
        let out = hookscope()
            .env("XDG_STATE_HOME", &state)
            .args(["hook", "--rules"])
            .arg(&rules)
            .write_stdin(stdin.to_string())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0));
    };
    run(RM_RF);
    run(&RM_RF
        .replace("\"s1\"", "\"other\"")
        .replace("toolu_1", "toolu_9"));
    run(&RM_RF
        .replace("rm -rf build/", "ls")
        .replace("toolu_1", "toolu_2"));
    let list = |args: &[&str]| {
        let out = hookscope()
            .env("XDG_STATE_HOME", &state)
            .args(["hooks", "--decisions"])
            .args(args)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let text = list(&[]);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 5, "{text}");
    assert!(
        rows[0].ends_with(&format!(
            "  s1  PreToolUse  toolu_1  Bash  block  no-rm-rf(block)  rules: {} (unchanged since)",
            rules.display()
        )),
        "{text}"
    );
    assert!(
        rows[1].starts_with(
            "    no-rm-rf: event PreToolUse ✓ · tool Bash ✓ · program = \"rm\" ✓ (rm -rf build/) · command =~ "
        ),
        "{text}"
    );
    assert_eq!(
        rows[4],
        "1 decision with verdict none not shown (--all shows them)"
    );
    // With --all: the none row, under it why each Bash rule did not act
    // (five rules get past event and tool), and no footer.
    let all = list(&["--all"]);
    assert_eq!(all.lines().count(), 10, "{all}");
    assert_eq!(
        all.lines().filter(|l| l.starts_with("    not ")).count(),
        5,
        "{all}"
    );
    let v: Value = serde_json::from_str(&list(&["--verdict", "none", "--json"])).expect("json");
    assert_eq!(v.as_array().map(Vec::len), Some(1));
    assert_eq!(v[0]["tool_use_id"], "toolu_2");
    assert_eq!(v[0]["verdict"], "none");
    std::fs::write(&rules, "# emptied\n").expect("edit");
    let v: Value = serde_json::from_str(&list(&["oth", "--json"])).expect("json");
    let items = v.as_array().expect("array");
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["session_id"], "other");
    assert_eq!(items[0]["tool_use_id"], "toolu_9");
    assert_eq!(items[0]["rules_now"], "changed");
    assert_eq!(items[0]["matched"][0]["id"], "no-rm-rf");
    let none = hookscope()
        .env("XDG_STATE_HOME", dir.path().join("empty"))
        .args(["hooks", "--decisions"])
        .output()
        .expect("runs");
    assert!(
        String::from_utf8_lossy(&none.stdout).starts_with("no decisions logged in "),
        "{}",
        String::from_utf8_lossy(&none.stdout)
    );
    // One variable moves the log for the hook and every reader.
    let moved = dir.path().join("moved");
    let out = hookscope()
        .env("HOOKSCOPE_DECISIONS_DIR", &moved)
        .args(["hook", "--rules"])
        .arg(rules_for_moved(dir.path()))
        .write_stdin(RM_RF.to_string())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let out = hookscope()
        .env("HOOKSCOPE_DECISIONS_DIR", &moved)
        .args(["hooks", "--decisions", "--json"])
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v[0]["verdict"], "block", "{v}");
    let out = hookscope()
        .env("HOOKSCOPE_DECISIONS_DIR", &moved)
        .args([
            "find",
            "--tool-name-pattern",
            "",
            "--decided-by",
            "no-such-rule",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("decided_by: no logged decision names rule \"no-such-rule\"; the rules it names: no-rm-rf (log: "),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A tool input nested deeper than a transcript line may be (128 levels)
/// does not turn the rules off: up to 10,000 levels the payload is read
/// and the example's `no-prod-db` blocks it; past that the failure mode
/// answers, and says why.
#[test]
fn a_deeply_nested_tool_input_is_still_decided() {
    let dir = tempfile::tempdir().expect("tempdir");
    let payload = |n: usize| {
        format!(
            r#"{{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__postgres__query","tool_input":{{"sql":"select 1","host":"prod-db.internal","extra":{}1{}}},"tool_use_id":"t1","cwd":"/tmp","permission_mode":"default"}}"#,
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    for n in [200, 9_990] {
        let ran = hook(
            EXAMPLE_RULES,
            &dir.path().join("log"),
            &[],
            payload(n).as_bytes(),
        );
        assert_eq!(ran.code, Some(0));
        assert!(
            ran.stdout.contains("\"permissionDecision\":\"deny\""),
            "{n} levels: {}{}",
            ran.stdout,
            ran.stderr
        );
    }
    let ran = hook(
        EXAMPLE_RULES,
        &dir.path().join("log"),
        &["--on-error", "block"],
        payload(20_000).as_bytes(),
    );
    assert_eq!((ran.code, ran.stdout.as_str()), (Some(2), ""));
    assert!(
        ran.stderr
            .starts_with("hookscope hook: the payload nests more than 10000 levels deep; blocked"),
        "{}",
        ran.stderr
    );
}

/// A bidirectional control in a logged why (a right-to-left override that
/// would reorder the terminal's line) is printed as a visible escape.
#[test]
fn hooks_decisions_escapes_bidi_controls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state");
    hook_in_state(
        &state,
        RM_RF
            .replace("rm -rf build/", "rm -rf build/\\u202etxt.exe")
            .into_bytes(),
    );
    let out = hookscope()
        .env("XDG_STATE_HOME", &state)
        .args(["hooks", "--decisions"])
        .output()
        .expect("runs");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(!text.contains('\u{202e}'), "{text}");
    assert!(text.contains("build/\\u{202e}txt.exe"), "{text}");
}

/// A fresh copy of the example rules (the test's own is emptied).
fn rules_for_moved(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("rules-moved.toml");
    std::fs::copy(EXAMPLE_RULES, &path).expect("copy");
    path
}

/// `hooks --install`: prints the entry and diff without touching the file;
/// `--write` applies it with a backup of the bytes as they were; a second
/// run changes nothing; the installed handler fires (by hookscope's own
/// matcher) for the tools the rules name and no other, and lints clean; a
/// settings file that does not parse is refused untouched.
#[test]
fn hooks_install_writes_an_entry_that_fires_for_the_rules_tools() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("proj");
    std::fs::create_dir_all(project.join(".claude")).expect("mkdir");
    let settings = project.join(".claude/settings.json");
    let original = "{\n    \"model\": \"opus\"\n}\n";
    std::fs::write(&settings, original).expect("settings");
    let rules = std::fs::canonicalize(EXAMPLE_RULES).expect("rules");
    let state = dir.path().join("state");
    let install = |extra: &[&str]| {
        let out = hookscope()
            .current_dir(&project)
            .env("XDG_STATE_HOME", &state)
            .args(["hooks", "--install", "--rules"])
            .arg(&rules)
            .args(extra)
            .output()
            .expect("runs");
        (
            out.status.code(),
            String::from_utf8(out.stdout).expect("utf-8"),
            String::from_utf8(out.stderr).expect("utf-8"),
        )
    };
    let (code, out, _) = install(&[]);
    assert_eq!(code, Some(0));
    let settings_abs = std::fs::canonicalize(&settings).expect("abs");
    assert!(
        out.starts_with(&format!(
            "would install PreToolUse, PermissionRequest, Stop, SubagentStop, UserPromptSubmit in {}:\n",
            settings_abs.display()
        )),
        "{out}"
    );
    assert!(out.contains("+        \"matcher\": \"^(?:Bash|"), "{out}");
    assert!(out.ends_with("run again with --write to apply (a backup of the file is kept)\n"));
    assert_eq!(std::fs::read_to_string(&settings).expect("read"), original);

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    }
    let (code, out, _) = install(&["--write"]);
    assert_eq!(code, Some(0), "{out}");
    // The file keeps its mode.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&settings)
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640);
    }
    // The backup is kept in the state folder, out of the project.
    let backups: Vec<_> = std::fs::read_dir(state.join("hookscope/backups"))
        .expect("ls")
        .flatten()
        .collect();
    assert_eq!(backups.len(), 1);
    assert!(
        backups[0]
            .file_name()
            .to_string_lossy()
            .starts_with("settings.json-")
    );
    assert_eq!(
        std::fs::read_dir(project.join(".claude"))
            .expect("ls")
            .count(),
        1
    );
    assert_eq!(
        std::fs::read_to_string(backups[0].path()).expect("backup"),
        original
    );
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).expect("read")).expect("json");
    assert_eq!(written["model"], "opus");
    let command = written["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .expect("command");
    assert!(
        command.ends_with(&format!(" hook --rules {}", rules.display())),
        "{command}"
    );
    let (code, out, _) = install(&["--write"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out,
        format!(
            "already installed in {}: nothing to change\n",
            settings_abs.display()
        )
    );
    // The same rules in the local file too: said before anything is written.
    let (code, _, err) = install(&["--scope", "local"]);
    assert_eq!(code, Some(0));
    assert!(
        err.contains(&format!(
            "hookscope: warning: {} already runs these rules: this entry would be redundant (Claude Code runs identical handlers once)",
            settings_abs.display()
        )),
        "{err}"
    );
    // With --on-error-block the entry's command is updated in place, not
    // added beside it.
    let (code, _, _) = install(&["--on-error-block", "--write"]);
    assert_eq!(code, Some(0));
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).expect("read")).expect("json");
    assert_eq!(written["hooks"]["Stop"].as_array().map(Vec::len), Some(1));
    assert!(
        written["hooks"]["Stop"][0]["hooks"][0]["command"]
            .as_str()
            .expect("command")
            .ends_with(" --on-error block")
    );

    // hookscope's own reading of the file: the handler fires for the
    // rules' tools (aliases and MCP suffixes too) and not for Read.
    for (tool, fires) in [
        ("Bash", true),
        ("Edit", true),
        ("mcp__pg__query", true),
        ("Read", false),
    ] {
        let out = hookscope()
            .current_dir(&project)
            .args([
                "hooks",
                "--settings",
                ".claude/settings.json",
                "--match",
                "PreToolUse",
                tool,
                "--json",
            ])
            .output()
            .expect("runs");
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(v["verdicts"][0]["fires"], fires, "{tool}");
    }
    let lint = hookscope()
        .current_dir(&project)
        .args(["hooks", "--settings", ".claude/settings.json", "--lint"])
        .output()
        .expect("runs");
    assert_eq!(
        lint.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&lint.stdout)
    );

    std::fs::write(project.join(".claude/settings.local.json"), "{ not json").expect("write");
    let (code, _, err) = install(&["--scope", "local", "--write"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("settings.local.json: not JSON"), "{err}");
    assert_eq!(
        std::fs::read_to_string(project.join(".claude/settings.local.json")).expect("read"),
        "{ not json"
    );
    // A file it creates is 0644, as an editor would make it.
    std::fs::remove_file(project.join(".claude/settings.local.json")).expect("rm");
    let (code, out, err) = install(&["--scope", "local", "--write"]);
    assert_eq!(code, Some(0), "{out}{err}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(project.join(".claude/settings.local.json"))
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o644);
    }
}

/// Droid's 25 captured PreToolUse payloads through `hook --agent droid`:
/// each answer is the evaluator's, and the one `rm -rf build/` (an
/// `Execute` call, Droid's shell tool) is the one block.
#[test]
fn droid_payloads_are_answered_in_claude_codes_shape() {
    let set = RuleSet::load(Path::new(EXAMPLE_RULES)).expect("example");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log");
    let mut blocked = Vec::new();
    let mut n = 0;
    for capture in files_named(
        Path::new("tests/corpus/real-droid-0.225.2"),
        "PreToolUse.jsonl",
    ) {
        for line in std::fs::read_to_string(&capture).expect("capture").lines() {
            let record: Value = serde_json::from_str(line).expect("line");
            let payload = &record["stdin"];
            let ran = hook(
                EXAMPLE_RULES,
                &log,
                &["--agent", "droid"],
                payload.to_string().as_bytes(),
            );
            let eval = set.evaluate(payload, &History::default());
            let printed = (!ran.stdout.is_empty())
                .then(|| serde_json::from_str::<Value>(&ran.stdout).expect("json"));
            assert_eq!(printed, eval.output.stdout, "{payload}");
            assert_eq!(ran.code, Some(eval.output.exit_code));
            if eval.verdict() == "block" {
                blocked.push(
                    payload["tool_input"]["command"]
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                );
            }
            n += 1;
        }
    }
    assert_eq!(n, 25);
    assert_eq!(blocked, ["rm -rf build/"]);
    let entry = entries(&log)
        .into_iter()
        .find(|e| e["verdict"] == "block")
        .expect("logged");
    assert_eq!(entry["agent"], "droid");
    assert_eq!(entry["tool_name"], "Execute");
}

/// `hooks --install --agent droid` writes the project's `.factory/hooks.json`
/// with `--agent droid` in the command, leaves out the events Droid has
/// not (PermissionRequest, said on stderr), and hookscope's Droid reading
/// of the file fires it for `Execute`.
#[test]
fn hooks_install_for_droid_writes_factory_hooks_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = std::fs::canonicalize(EXAMPLE_RULES).expect("rules");
    let out = hookscope()
        .current_dir(dir.path())
        .env("FACTORY_HOME_OVERRIDE", dir.path().join("home"))
        .args([
            "hooks",
            "--install",
            "--agent",
            "droid",
            "--write",
            "--rules",
        ])
        .arg(&rules)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The project's file names this machine's paths: said first.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("hookscope: note: the entry names "),
        "{err}"
    );
    // Droid has no local file: the way out is the user's folder.
    assert!(
        err.contains("; --scope user keeps it in your own folder\n"),
        "{err}"
    );
    assert!(
        err.ends_with(
            "hookscope: Droid has no PermissionRequest event; the rules on it are not installed\n"
        ),
        "{err}"
    );
    let written: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".factory/hooks.json")).expect("written"),
    )
    .expect("json");
    assert!(written["hooks"].get("PermissionRequest").is_none());
    assert!(
        written["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
            .as_str()
            .expect("command")
            .ends_with(" --agent droid")
    );
    let out = hookscope()
        .current_dir(dir.path())
        .env("FACTORY_HOME_OVERRIDE", dir.path().join("home"))
        .args([
            "hooks",
            "--agent",
            "droid",
            "--match",
            "PreToolUse",
            "Execute",
            "--json",
        ])
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["verdicts"][0]["fires"], true, "{v}");
}

/// `find --decided-by RULE` (and the filter line's `ruled:` / `is:ruled`)
/// keeps the calls the decision log names: the captured rm -rf payload's
/// call in the c3 session, decided by no-rm-rf, with and without the
/// index; a rule that matched nothing keeps none.
#[test]
fn find_decided_by_keeps_the_calls_the_log_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state");
    hook_in_state(
        &state,
        std::fs::read("tests/fixtures/rules/pretooluse_rm_rf.json").expect("payload"),
    );
    let find = |args: &[&str], index: bool| -> Vec<String> {
        let mut cmd = if index {
            crate::support::indexed(&dir.path().join("cache"))
        } else {
            hookscope()
        };
        let out = cmd
            .env("XDG_STATE_HOME", &state)
            .args(["find", "tests/corpus/real-cc-2.1.332", "--json"])
            .args(args)
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        v["records"]
            .as_array()
            .expect("records")
            .iter()
            .map(|r| {
                // Each record carries the decisions the filter kept.
                let decided: Vec<String> = r["decided"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|d| format!("{}:{}", d["verdict"].as_str().unwrap_or(""), d["rules"]))
                    .collect();
                format!(
                    "{} {} {}",
                    r["session"].as_str().unwrap_or(""),
                    r["tool_use_id"].as_str().unwrap_or(""),
                    decided.join(",")
                )
            })
            .collect()
    };
    let want = [
        "f887d501-79d2-484e-916a-82bc1a5c1146 toolu_0138h77ojpT1t3A4y1yWKgjr block:[\"no-rm-rf\"]"
            .to_string(),
    ];
    // Logged now, days after the call (a payload replayed by hand into
    // the hook): not the call's live decision, with the index or without.
    for index in [false, true] {
        assert!(
            find(&["--tool-name", "Bash", "--decided-by", "no-rm-rf"], index).is_empty(),
            "index {index}"
        );
    }
    // The table says where the logged call may be.
    let out = hookscope()
        .env("XDG_STATE_HOME", &state)
        .args(["find", "tests/corpus/real-cc-2.1.332"])
        .args(["--tool-name", "Bash", "--decided-by", "no-rm-rf"])
        .output()
        .expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "0 records\nthe decision log names 1 call for rule no-rm-rf; none is among these (other filters or sessions, or a decision logged far from its call's time: a payload replayed into the hook; `hookscope hooks --decisions` lists them)\n"
    );
    // Logged when the call was made (2026-11-29T18:00:06.896Z): it is.
    stamp_log(&state, "2026-11-29T18:00:06.950Z");
    for index in [false, true] {
        assert_eq!(
            find(&["--tool-name", "Bash", "--decided-by", "no-rm-rf"], index),
            want
        );
        assert_eq!(
            find(&["--tool-name-pattern", "", "--decided-by", "*"], index),
            want
        );
        assert_eq!(find(&["--filter", "is:ruled"], index), want);
        assert_eq!(find(&["--filter", "ruled:no-rm-rf tool:Bash"], index), want);
    }
    // A rule no logged decision names is an error that lists those named,
    // so a typo does not read as "never fired".
    let out = hookscope()
        .env("XDG_STATE_HOME", &state)
        .args(["find", "tests/corpus/real-cc-2.1.332", "--json"])
        .args(["--tool-name", "Bash", "--decided-by", "force-with-lease"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["error"], "invalid_argument");
    assert!(
        v["message"]
            .as_str()
            .is_some_and(|m| m
                .contains("names rule \"force-with-lease\"; the rules it names: no-rm-rf (log: ")),
        "{v}"
    );
    let count = hookscope()
        .env("XDG_STATE_HOME", &state)
        .args([
            "find",
            "tests/corpus/real-cc-2.1.332",
            "--tool-name",
            "Bash",
            "--decided-by",
            "no-rm-rf",
            "--count",
        ])
        .output()
        .expect("runs");
    assert_eq!(String::from_utf8_lossy(&count.stdout), "1\n");
    // The same ids on another input (a payload edited and replayed by
    // hand through `hook`, logged): the digest differs, so the log's
    // decision is not this call's, with the index and without.
    let replayed = std::fs::read_to_string("tests/fixtures/rules/pretooluse_rm_rf.json")
        .expect("payload")
        .replace("rm -rf build/", "rm -rf dist/");
    assert!(replayed.contains("rm -rf dist/"));
    let state2 = dir.path().join("state2");
    hook_in_state(&state2, replayed.into_bytes());
    stamp_log(&state2, "2026-11-29T18:00:06.950Z");
    for index in [false, true] {
        let mut cmd = if index {
            crate::support::indexed(&dir.path().join("cache"))
        } else {
            hookscope()
        };
        let out = cmd
            .env("XDG_STATE_HOME", &state2)
            .args(["find", "tests/corpus/real-cc-2.1.332", "--count"])
            .args(["--tool-name", "Bash", "--decided-by", "no-rm-rf"])
            .output()
            .expect("runs");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "0\n", "index {index}");
    }
    // Without a log, nothing was decided.
    let none = hookscope()
        .env("XDG_STATE_HOME", dir.path().join("empty"))
        .args([
            "find",
            "tests/corpus/real-cc-2.1.332",
            "--tool-name",
            "Bash",
            "--decided-by",
            "*",
            "--count",
        ])
        .output()
        .expect("runs");
    assert_eq!(String::from_utf8_lossy(&none.stdout), "0\n");
}

/// The contract: for every event Claude Code 2.1.332 sent a hook in the
/// corpus (17 kinds) and every action (block, warn, context, allow,
/// rewrite) the loader accepts on it, a one-rule set run by `hookscope
/// hook` on the captured payload answers with stdout and an exit code that
/// Claude Code's reader (`interpret_output_at`, the tables `replay` uses)
/// takes as the evaluator's outcome: a block is read as blocked, a rewrite
/// as the input rewritten, context as context added.
#[test]
fn every_event_and_action_is_read_back_as_its_outcome() {
    use hookscope_core::hooks::contract::Version;
    use hookscope_core::hooks::result::{Effect, interpret_output_at};
    let dir = tempfile::tempdir().expect("tempdir");
    let mut checked = std::collections::BTreeMap::<String, Vec<&str>>::new();
    let root = Path::new("tests/corpus/real-cc-2.1.332/hooks/hooks/hooks");
    let mut events: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("captures")
        .flatten()
        .map(|e| e.path())
        .collect();
    events.sort();
    for capture in events {
        let event = capture
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("event")
            .to_string();
        let text = std::fs::read_to_string(&capture).expect("capture");
        let payloads: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|r| r["stdin"].clone())
            .collect();
        // A Bash payload where there is one (a rewrite needs a command).
        let payload = payloads
            .iter()
            .find(|p| p["tool_name"] == "Bash")
            .or(payloads.first())
            .expect("a payload")
            .clone();
        for action in ["block", "warn", "context", "allow", "rewrite"] {
            let mut rule = format!(
                "[[rules]]\nid = \"r\"\nevents = \"{event}\"\naction = \"{action}\"\nreason = \"because\"\n"
            );
            if action == "rewrite" {
                rule.push_str(
                    "rewrite_command = { pattern = '^(.*)$', replace = '$1 # rewritten' }\n",
                );
            }
            if action == "block" && event.ends_with("Stop") {
                rule.push_str("[rules.only_if]\nstop_hook_active = false\n");
            }
            let Ok(set) = RuleSet::parse(&rule, "r.toml") else {
                continue; // the loader refuses this action on this event
            };
            let file = dir.path().join(format!("{event}-{action}.toml"));
            std::fs::write(&file, &rule).expect("rules");
            let ran = hook(
                file.to_str().expect("utf-8"),
                &dir.path().join("log"),
                &[],
                payload.to_string().as_bytes(),
            );
            let read = interpret_output_at(
                &event,
                &Version::latest(),
                ran.code.expect("exit code"),
                &ran.stdout,
                &ran.stderr,
            );
            let eval = set.evaluate(&payload, &History::default());
            assert_eq!(
                read.effect, eval.outcome.effect,
                "{event} {action}: {}",
                ran.stdout
            );
            let expected = match action {
                "block" => Some(Effect::Blocked),
                "rewrite" if payload["tool_name"] == "Bash" => Some(Effect::InputRewritten),
                _ => None,
            };
            if let Some(e) = expected {
                assert_eq!(read.effect, e, "{event} {action}: {}", ran.stdout);
            }
            if action == "context" && read.effect != Effect::Nothing {
                assert_eq!(read.effect, Effect::ContextAdded, "{event} {action}");
            }
            checked.entry(event.clone()).or_default().push(action);
        }
    }
    assert_eq!(checked.len(), 17, "{checked:?}");
    assert_eq!(
        checked["PreToolUse"],
        ["block", "warn", "context", "allow", "rewrite"]
    );
    assert_eq!(checked["Stop"].first(), Some(&"block"));
}

/// A stdin left open past `--timeout-ms` answers the failure mode (the
/// budget covers reading too); an empty rule file is a failure, not a
/// silent "no rule"; a relative `--log-dir` is refused as an argument
/// error (exit 1); a non-string `hook_event_name` is named as such.
#[test]
fn the_budget_covers_stdin_and_empty_rules_fail() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log");
    let mut child = spawn_hook(
        &log,
        &["--on-error", "block", "--timeout-ms", "200"],
        Stdio::piped(),
        Stdio::piped(),
    );
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(RM_RF.as_bytes()).expect("write");
    // stdin stays open until the hook has answered.
    let out = child.wait_with_output().expect("wait");
    drop(stdin);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hookscope hook: no decision within the time budget of 200 ms; blocked (--on-error block)\n"
    );
    let empty = dir.path().join("empty.toml");
    std::fs::write(&empty, "# nothing yet\n").expect("write");
    let ran = hook(empty.to_str().expect("utf-8"), &log, &[], RM_RF.as_bytes());
    assert_eq!(ran.code, Some(0));
    assert!(
        ran.stderr
            .contains(" has no rules; allowed (--on-error allow)"),
        "{}",
        ran.stderr
    );
    let out = hookscope()
        .args([
            "hook",
            "--rules",
            EXAMPLE_RULES,
            "--log-dir",
            "relative/log",
        ])
        .write_stdin(RM_RF)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let ran = hook(EXAMPLE_RULES, &log, &[], br#"{"hook_event_name":42}"#);
    assert!(
        ran.stderr.contains("hook_event_name is not a string"),
        "{}",
        ran.stderr
    );
}

/// `--on-error block` never blocks a Stop that carries
/// `stop_hook_active: true`: the agent goes on because a Stop hook blocked
/// already, and an error that persists would block it for ever.
#[test]
fn on_error_block_lets_a_stop_that_is_already_going_on_stop() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("missing.toml");
    let stop = |active: bool| {
        json!({"session_id": "s1", "hook_event_name": "Stop", "stop_hook_active": active})
            .to_string()
    };
    let rules = missing.to_str().expect("utf-8");
    let ran = hook(
        rules,
        &dir.path().join("log"),
        &["--on-error", "block"],
        stop(false).as_bytes(),
    );
    assert_eq!(ran.code, Some(2));
    let ran = hook(
        rules,
        &dir.path().join("log"),
        &["--on-error", "block"],
        stop(true).as_bytes(),
    );
    assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""));
    assert!(
        ran.stderr.ends_with(
            "; allowed: stop_hook_active is true, and blocking again would never let the agent stop\n"
        ),
        "{}",
        ran.stderr
    );
}

/// The transcript is read only when a rule that reads the history can
/// still match: the example's Stop gate (`stop_hook_active = false`, then
/// `touched_file`) on a Stop with `stop_hook_active: true` answers `none`
/// without it, so an unreadable transcript is no failure; with `false` it
/// is.
#[test]
fn the_history_is_read_only_for_a_rule_that_can_still_match() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log");
    let stop = |active: bool| {
        json!({"session_id": "s1", "hook_event_name": "Stop", "stop_hook_active": active,
               "transcript_path": dir.path().join("gone.jsonl")})
        .to_string()
    };
    let ran = hook(EXAMPLE_RULES, &log, &[], stop(true).as_bytes());
    assert_eq!(
        (ran.code, ran.stdout.as_str(), ran.stderr.as_str()),
        (Some(0), "", "")
    );
    let ran = hook(EXAMPLE_RULES, &log, &[], stop(false).as_bytes());
    assert_eq!(ran.code, Some(0));
    assert!(
        ran.stderr.contains("cannot read transcript_path"),
        "{}",
        ran.stderr
    );
    let verdicts: Vec<Value> = entries(&log).iter().map(|e| e["verdict"].clone()).collect();
    assert_eq!(verdicts, [json!("none"), json!("error")]);
    // An event the contract does not know: `none`, and stderr says why.
    let ran = hook(
        EXAMPLE_RULES,
        &log,
        &[],
        br#"{"session_id":"s1","hook_event_name":"pretooluse"}"#,
    );
    assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""));
    assert!(
        ran.stderr.contains(
            "hook_event_name \"pretooluse\" is not an event of the hook contract this hookscope knows"
        ),
        "{}",
        ran.stderr
    );
    // A transcript_path that is not a usable string says which.
    for (path, says) in [
        (json!(5), "the payload's transcript_path is not a string"),
        (json!(""), "the payload's transcript_path is empty"),
        (json!(null), "the payload has no transcript_path"),
    ] {
        let stop = json!({"session_id": "s1", "hook_event_name": "Stop",
                          "stop_hook_active": false, "transcript_path": path})
        .to_string();
        let ran = hook(EXAMPLE_RULES, &log, &[], stop.as_bytes());
        assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""));
        assert!(ran.stderr.contains(says), "{}", ran.stderr);
    }
}

/// `hooks --lint` checks the rule file behind an installed `hookscope hook`
/// entry: clean while it loads, an error (`rule-set-unusable`) once it is
/// broken or gone, since the hook would then let every call through.
#[test]
fn lint_sees_a_broken_rule_file_behind_an_installed_hook() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("rules.toml");
    std::fs::copy(EXAMPLE_RULES, &rules).expect("copy");
    let settings = dir.path().join("settings.json");
    let entry = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("/usr/bin/env hookscope hook --rules {}", rules.display())}]}]}});
    std::fs::write(&settings, entry.to_string()).expect("settings");
    let lint = || {
        let out = hookscope()
            .args(["hooks", "--settings"])
            .arg(&settings)
            .args(["--lint", "--json"])
            .output()
            .expect("runs");
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        let ids: Vec<String> = v["lints"]
            .as_array()
            .expect("lints")
            .iter()
            .map(|l| {
                format!(
                    "{} {}",
                    l["id"].as_str().unwrap_or(""),
                    l["severity"].as_str().unwrap_or("")
                )
            })
            .collect();
        (out.status.code(), ids, v)
    };
    let (code, ids, _) = lint();
    assert!(
        !ids.iter().any(|i| i.starts_with("rule-set-unusable")),
        "{ids:?}"
    );
    let _ = code;
    std::fs::write(&rules, "[[rules]\n").expect("break");
    let (code, ids, v) = lint();
    assert_eq!(code, Some(1));
    assert!(
        ids.contains(&"rule-set-unusable error".to_string()),
        "{ids:?}"
    );
    assert!(
        v.to_string()
            .contains("every call goes through (it fails open)"),
        "{v}"
    );
    std::fs::remove_file(&rules).expect("rm");
    let (_, ids, _) = lint();
    assert!(
        ids.contains(&"rule-set-unusable error".to_string()),
        "{ids:?}"
    );
}

/// A SubagentStop of the real `hooks` session, with a rule on what the
/// subagent itself ran (`ls src`, its last call): the live hook and
/// `replay` both block (the event sits after the subagent's last call);
/// with the subagent's file gone, the hook cannot tell that thread's
/// history and answers the failure mode instead of the main thread's.
#[test]
fn a_subagent_stop_sees_the_subagents_own_calls_and_its_missing_file_is_a_failure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = Path::new("tests/corpus/real-cc-2.1.332/hooks/projects/-home-dev-work-hooks");
    let sid = "0c04bd79-42b3-41bb-b257-006f349f008a";
    let copy = dir.path().join("p");
    std::fs::create_dir_all(copy.join(sid).join("subagents")).expect("mkdir");
    std::fs::copy(
        src.join(format!("{sid}.jsonl")),
        copy.join(format!("{sid}.jsonl")),
    )
    .expect("copy");
    for e in std::fs::read_dir(src.join(sid).join("subagents")).expect("subagents") {
        let e = e.expect("entry");
        std::fs::copy(
            e.path(),
            copy.join(sid).join("subagents").join(e.file_name()),
        )
        .expect("copy");
    }
    let rules = dir.path().join("sub.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"ls-gate\"\nevents = \"SubagentStop\"\naction = \"block\"\nreason = \"you ran ls\"\n[rules.only_if]\nstop_hook_active = false\nran_command = \"ls src\"\n",
    )
    .expect("rules");
    let rules = rules.to_string_lossy().into_owned();
    let payload = json!({"session_id": sid, "hook_event_name": "SubagentStop",
        "transcript_path": copy.join(format!("{sid}.jsonl")),
        "cwd": "/home/dev/work/hooks", "permission_mode": "default",
        "agent_id": "aab8fa18d1ff571f3", "agent_type": "general-purpose",
        "stop_hook_active": false})
    .to_string();
    let log = dir.path().join("log");
    let ran = hook(&rules, &log, &[], payload.as_bytes());
    assert_eq!(
        (ran.code, ran.stdout.trim()),
        (Some(0), r#"{"decision":"block","reason":"you ran ls"}"#),
        "{}",
        ran.stderr
    );
    let replayed = hookscope()
        .args(["replay", sid])
        .arg(&copy)
        .args(["--event", "SubagentStop", "--rules", &rules, "--json"])
        .output()
        .expect("runs");
    let replayed: Value = serde_json::from_slice(&replayed.stdout).expect("json");
    assert_eq!(replayed["decision"], json!("block"), "{replayed}");
    // The log names the subagent; `find --decided-by` says the rule
    // decided no call, only a SubagentStop, and where to see it.
    assert_eq!(entries(&log)[0]["agent_id"], json!("aab8fa18d1ff571f3"));
    // Where the event happened: the main transcript's size then.
    let size = std::fs::metadata(copy.join(format!("{sid}.jsonl")))
        .expect("meta")
        .len();
    assert_eq!(entries(&log)[0]["transcript_bytes"], json!(size));
    let listed = hookscope()
        .env("HOOKSCOPE_DECISIONS_DIR", &log)
        .args(["hooks", "--decisions", "--all"])
        .output()
        .expect("runs");
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(
        listed.contains("  SubagentStop (subagent aab8fa18d1ff571f3)  -  -  block  ls-gate(block)"),
        "{listed}"
    );
    let found = hookscope()
        .env("HOOKSCOPE_DECISIONS_DIR", &log)
        .args([
            "find",
            "--tool-name-pattern",
            "",
            "--decided-by",
            "ls-gate",
            "--no-index",
        ])
        .arg(&copy)
        .output()
        .expect("runs");
    assert_eq!(found.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&found.stderr).contains(
            "decided_by: \"ls-gate\" decided only events that are not calls (SubagentStop ×1): `hookscope hooks --decisions` lists them"
        ),
        "{}",
        String::from_utf8_lossy(&found.stderr)
    );
    // An agent_id that is not a string names no thread.
    let mut odd: Value = serde_json::from_str(&payload).expect("json");
    odd["agent_id"] = json!(12345);
    let ran = hook(&rules, &log, &[], odd.to_string().as_bytes());
    assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""));
    assert!(
        ran.stderr
            .contains("the payload's agent_id is not a string"),
        "{}",
        ran.stderr
    );
    // The subagent's file gone: no main-thread stand-in.
    std::fs::remove_dir_all(copy.join(sid)).expect("rm");
    let ran = hook(&rules, &log, &[], payload.as_bytes());
    assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""));
    assert!(
        ran.stderr
            .contains("agent_id \"aab8fa18d1ff571f3\" names no subagent transcript"),
        "{}",
        ran.stderr
    );
    let ran = hook(&rules, &log, &["--on-error", "block"], payload.as_bytes());
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
}

/// Lines of the decision log that are not entries (a write cut short, an
/// edit by hand) are skipped, and `hooks --decisions` says how many on
/// stderr; the entries around them are listed.
#[test]
fn hooks_decisions_counts_the_lines_it_skips() {
    let dir = tempfile::tempdir().expect("tempdir");
    let entry = json!({"time": "2026-12-05T10:00:00.000Z", "agent": "claude-code",
        "session_id": "s1", "event": "Stop", "verdict": "block",
        "rules": {"path": "/nowhere/rules.toml", "sha256": "00"},
        "matched": [{"id": "gate", "verdict": "block", "why": "event Stop ✓"}],
        "output": {"exit_code": 0, "stdout": null, "stderr": ""}});
    std::fs::write(
        dir.path().join("2026-12-05.jsonl"),
        format!("{entry}\nnot json\n[1,2]\n\n{{\"cut\": \n{entry}\n"),
    )
    .expect("log");
    let out = hookscope()
        .env("HOOKSCOPE_DECISIONS_DIR", dir.path())
        .args(["hooks", "--decisions"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("  gate(block)").count(), 2, "{stdout}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "has 3 lines that are not an entry and 0 day files that could not be read; skipped"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A relative `HOOKSCOPE_DECISIONS_DIR` is ignored, and `hooks --decisions`
/// says so and where it reads instead; an absolute one is used without a
/// word.
#[test]
fn a_relative_decisions_dir_is_ignored_and_said() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state");
    let list = |value: &std::ffi::OsStr| {
        let out = hookscope()
            .env("XDG_STATE_HOME", &state)
            .env("HOOKSCOPE_DECISIONS_DIR", value)
            .args(["hooks", "--decisions"])
            .output()
            .expect("runs");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let stderr = list(std::ffi::OsStr::new("logs"));
    assert!(
        stderr.starts_with(&format!(
            "hookscope: HOOKSCOPE_DECISIONS_DIR=logs is not an absolute path; ignored, the log is read from {}\n",
            state.join("hookscope/decisions").display()
        )),
        "{stderr}"
    );
    let absolute = dir.path().join("elsewhere");
    let stderr = list(absolute.as_os_str());
    assert!(!stderr.contains("HOOKSCOPE_DECISIONS_DIR"), "{stderr}");
}
