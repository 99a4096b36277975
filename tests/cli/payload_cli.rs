//! `hookscope payload` run as a process on the real 2.1.332 corpus and on
//! hostile copies of it (non-UTF-8 file name, truncated file).

use std::path::Path;

use assert_cmd::Command;
use serde_json::{Value, json};

use crate::support::{EXAMPLE_RULES, corpus, hookscope};

const HOOKS: &str = "real-cc-2.1.332/hooks/projects/-home-dev-work-hooks/0c04bd79-42b3-41bb-b257-006f349f008a.jsonl";
const TOOLS: &str = "real-cc-2.1.332/tools/projects/-home-dev-work-tools/e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl";
const LEFT_OUT_DURATION: &str = "hookscope: left out duration_ms: the tool's run time is measured by the live process and not written to the transcript\n";

fn real(path: &Path) -> String {
    std::fs::canonicalize(path)
        .expect("canonical")
        .to_string_lossy()
        .into_owned()
}

/// `hookscope payload`.
fn payload_cmd() -> Command {
    let mut cmd = hookscope();
    cmd.arg("payload");
    cmd
}

/// (status, stdout, stderr)
fn run(args: &[&str]) -> (i32, String, String) {
    let out = payload_cmd().args(args).output().expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The stdin Claude Code 2.1.332 really sent for `event` on `tool_use_id`,
/// with `transcript_path` where the corpus keeps the file.
fn captured(event: &str, tool_use_id: &str) -> Value {
    let file = corpus(format!("real-cc-2.1.332/hooks/hooks/hooks/{event}.jsonl"));
    let text = std::fs::read_to_string(file).expect("capture");
    let mut stdin = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json")["stdin"].clone())
        .find(|s| s["tool_use_id"] == tool_use_id)
        .expect("captured");
    stdin["transcript_path"] = json!(real(&corpus(HOOKS)));
    stdin
}

#[test]
fn payload_prints_the_stdin_claude_code_sent_on_one_line() {
    let path = corpus(HOOKS);
    let id = "toolu_01xUZyQohFxCooZLf5fKPgnr";
    let (code, out, err) = run(&[
        path.to_str().expect("utf-8"),
        "--event",
        "PreToolUse",
        "--at",
        id,
    ]);
    assert_eq!((code, err.as_str()), (0, ""));
    let expected = serde_json::to_string(&captured("PreToolUse", id)).expect("json") + "\n";
    // Byte for byte, field order included.
    assert_eq!(out, expected);
}

#[test]
fn envelope_wraps_the_payload_with_its_source_and_left_out_fields() {
    let path = corpus(HOOKS);
    let id = "toolu_01xUZyQohFxCooZLf5fKPgnr";
    let (code, out, err) = run(&[
        path.to_str().expect("utf-8"),
        "--event",
        "PostToolUse",
        "--at",
        id,
        "--envelope",
    ]);
    assert_eq!((code, err.as_str()), (0, LEFT_OUT_DURATION));
    let mut payload = captured("PostToolUse", id);
    payload
        .as_object_mut()
        .expect("object")
        .remove("duration_ms");
    let got: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        got,
        json!({
            "claude_version": "2.1.332",
            "event": "PostToolUse",
            "source": {"transcript": real(&path), "line": 24},
            "occurred": true,
            "left_out": [{
                "field": "duration_ms",
                "reason": "the tool's run time is measured by the live process and not written to the transcript"
            }],
            "payload": payload
        })
    );
}

#[test]
fn secrets_are_masked_unless_raw_and_stderr_says_so() {
    let path = corpus(TOOLS);
    let args = |raw: bool| {
        let mut a = vec![
            path.to_str().expect("utf-8").to_string(),
            "--event".into(),
            "PreToolUse".into(),
            "--at".into(),
            "toolu_01P4Hgl5wzxwZ0mZhViiKAAe".into(),
        ];
        if raw {
            a.push("--raw".into());
        }
        a
    };
    let masked = payload_cmd().args(args(false)).output().expect("run");
    let out = String::from_utf8_lossy(&masked.stdout);
    let payload: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        payload["tool_input"]["command"],
        "echo 'aws_access_key_id=[REDACTED_AWS_KEY]'; echo 'token: [REDACTED_GITHUB_TOKEN]'; echo 'ANTHROPIC_API_KEY=[REDACTED_ANTHROPIC_KEY]'"
    );
    assert!(!out.contains("AKIAIOSFODNN7EXAMPLE"));
    assert_eq!(
        String::from_utf8_lossy(&masked.stderr),
        "hookscope: masked secrets as [REDACTED_<TYPE>] (ANTHROPIC_KEY 1, AWS_KEY 1, GITHUB_TOKEN 1); --raw prints them\n"
    );
    let raw = payload_cmd().args(args(true)).output().expect("run");
    assert!(raw.status.success());
    assert!(
        String::from_utf8_lossy(&raw.stdout).contains("aws_access_key_id=AKIAIOSFODNN7EXAMPLE")
    );
    assert_eq!(String::from_utf8_lossy(&raw.stderr), "");
}

#[test]
fn bad_arguments_exit_2_and_say_what_exists() {
    let path = corpus(HOOKS);
    let p = path.to_str().expect("utf-8");
    // Another case is the same event (as `find --hook` takes it); a
    // misspelling is refused with the closest name.
    let (code, out, _) = run(&[p, "--event", "pretooluse"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["hook_event_name"], "PreToolUse");
    let (code, out, err) = run(&[p, "--event", "PreToolUs"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with(
            "hookscope: unknown event \"PreToolUs\" (did you mean PreToolUse?); payload rebuilds: PreToolUse, PermissionRequest, "
        ),
        "{err}"
    );
    // Only the rebuilt events are offered; the others are named as not
    // rebuilt (PermissionDenied and Setup are hook events `payload` refuses).
    let (rebuilt, rest) = err
        .split_once("; the other hook events (")
        .expect("two lists");
    assert!(
        !rebuilt.contains("PermissionDenied") && !rebuilt.contains("Setup"),
        "{err}"
    );
    assert!(
        rebuilt.ends_with(", CwdChanged, InstructionsLoaded"),
        "{err}"
    );
    assert!(rest.starts_with("PermissionDenied, "), "{err}");
    assert!(rest.contains(", Setup, "), "{err}");
    assert!(
        rest.ends_with(") exist but are not rebuilt from transcripts\n"),
        "{err}"
    );
    // Nothing close: no guess.
    let (code, _, err) = run(&[p, "--event", "Frobnicate"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("hookscope: unknown event \"Frobnicate\"; payload rebuilds: PreToolUse, "),
        "{err}"
    );
    // An event this session never had.
    let (code, out, err) = run(&[p, "--event", "PreCompact"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "hookscope: no PreCompact in this session; events here: PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, PostToolBatch, UserPromptSubmit, SubagentStart, SubagentStop, Stop, TaskCreated, TaskCompleted, SessionStart, SessionEnd, InstructionsLoaded, CwdChanged\n"
    );
    // An event Claude Code fired here (the captures have FileChanged) but
    // that hookscope does not rebuild: say so, not "no FileChanged".
    let (code, out, err) = run(&[p, "--event", "FileChanged"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "hookscope: FileChanged payloads are not rebuilt from transcripts (a transcript does not record enough; see docs/payloads.md)\n"
    );
    // --at naming nothing.
    let (code, _, err) = run(&[p, "--event", "Stop", "--at", "toolu_nothing"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "hookscope: toolu_nothing names nothing in this session (no tool_use_id or line uuid \"toolu_nothing\"; tool calls: 13 (e.g. toolu_01xUZyQohFxCooZLf5fKPgnr, toolu_01B1tojP9WW9HELHA5PcfFvF, toolu_01Vvr7ZVjCWVFjjrzZnz0Oim); turns: 1 to 1; lines: line:1 to line:77; or `last`; Stop fires at line:74)\n"
    );
    let (code, _, err) = run(&[p, "--event", "Stop", "--at", "7"]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "hookscope: turn 7 names nothing in this session (turns are 1 to 1; Stop fires at line:74)\n"
        )
    );
    // A call without the event asked for.
    let (code, _, err) = run(&[
        p,
        "--event",
        "Stop",
        "--at",
        "toolu_01xUZyQohFxCooZLf5fKPgnr",
    ]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "hookscope: no Stop at toolu_01xUZyQohFxCooZLf5fKPgnr; events here: PreToolUse, PostToolUse, PostToolBatch; Stop fires at line:74\n"
        )
    );
}

#[cfg(unix)]
#[test]
fn a_non_utf8_session_path_gives_a_lossy_session_id_and_transcript_path() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let name = std::ffi::OsStr::from_bytes(b"s\xff.jsonl");
    let path = dir.path().join(name);
    std::fs::copy(corpus(HOOKS), &path).expect("copy");
    let out = payload_cmd()
        .arg(&path)
        .args(["--event", "UserPromptSubmit"])
        .output()
        .expect("run");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(out.status.success());
    let payload: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(payload["session_id"], "s\u{fffd}");
    assert_eq!(payload["transcript_path"], json!(real(&path)));
    assert_eq!(
        payload["prompt"],
        "[scenario:hooks] [cwd:/home/dev/work/hooks] Exercise hooks: run commands, read and edit files, use a subagent."
    );
}

#[test]
fn a_truncated_transcript_has_no_result_and_no_stop_after_the_cut() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cut.jsonl");
    let text = std::fs::read_to_string(corpus(HOOKS)).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    // Lines 1-40 whole (up to the Edit's tool_use), then half of line 41 (its result).
    let mut cut = lines[..40].join("\n");
    cut.push('\n');
    cut.push_str(&lines[40][..lines[40].len() / 2]);
    std::fs::write(&path, cut).expect("write");
    let p = path.to_str().expect("utf-8");
    let edit = "toolu_016ykJe7330FrnpjyKTOrOmf";
    let (code, out, err) = run(&[p, "--event", "PreToolUse", "--at", edit]);
    assert_eq!((code, err.as_str()), (0, ""));
    let payload: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(payload["tool_name"], "Edit");
    let (code, _, err) = run(&[p, "--event", "PostToolUse", "--at", edit]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "hookscope: no PostToolUse at toolu_016ykJe7330FrnpjyKTOrOmf; events here: PreToolUse; PostToolUse fires at toolu_01xUZyQohFxCooZLf5fKPgnr, toolu_01Vvr7ZVjCWVFjjrzZnz0Oim, toolu_0128CLpkHVrUzUq9DssmmTdK\n"
        )
    );
    // The turn never ended: no Stop is made up.
    let (code, _, err) = run(&[p, "--event", "Stop"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("hookscope: no Stop in this session; events here: PreToolUse, "),
        "{err}"
    );
}

const C5: &str = "real-cc-2.1.332/hooks_c5_stop_block/projects/-home-dev-work-hooks-c5-stop-block/c8435c6b-9aae-401c-ba5f-97def3faba72.jsonl";

/// `(stop_hook_active, last_assistant_message)` of `payload --event Stop` with `args`.
fn stop_on_c5(args: &[&str]) -> (Value, Value) {
    let path = corpus(C5);
    let mut all = vec![path.to_str().expect("utf-8"), "--event", "Stop"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("json");
    (
        v["stop_hook_active"].clone(),
        v["last_assistant_message"].clone(),
    )
}

/// c8435c6b (`hooks_c5_stop_block`): Stop fires twice in its one turn, at
/// line 75 (the assistant's "Hook scenario complete."; the real hook blocked
/// it, stop_hook_active false) and at line 82 (after the feedback,
/// stop_hook_active true). `--at line:N` reaches each; a line between them
/// gives the last Stop at or before it.
#[test]
fn at_line_n_reaches_each_of_two_stops_in_one_turn() {
    let first = (json!(false), json!("Hook scenario complete."));
    let second = (
        json!(true),
        json!("Tests were run (pretend). Now I am really done."),
    );
    assert_eq!(stop_on_c5(&["--at", "line:75"]), first);
    assert_eq!(stop_on_c5(&["--at", "line:80"]), first);
    assert_eq!(stop_on_c5(&["--at", "line:82"]), second);
    assert_eq!(stop_on_c5(&["--at", "1"]), second);
    assert_eq!(stop_on_c5(&[]), second);
    // A turn, or the default `last` (whose turn is turn 1), names both:
    // stderr says which was printed and how to reach the other; a Stop's
    // own line names it and says nothing.
    let path = corpus(C5);
    let p = path.to_str().expect("utf-8");
    let err_of = |at: &[&str]| {
        let mut all = vec![p];
        if !at.contains(&"--event") {
            all.extend(["--event", "Stop"]);
        }
        all.extend_from_slice(at);
        let (code, _, err) = run(&all);
        assert_eq!(code, 0, "{err}");
        err
    };
    assert_eq!(
        err_of(&["--at", "1"]),
        "hookscope: turn 1 has 2 Stop firings (line:75, line:82); printed the last, line:82; --at line:75 for the other\n"
    );
    assert_eq!(err_of(&["--at", "line:82"]), "");
    // A line after a Stop's own (76 is its hook's record, as `hooks
    // --activity` lists it): the note names the line printed.
    assert_eq!(
        err_of(&["--at", "line:76"]),
        "hookscope: --at line:76 resolved to the Stop at line:75\n"
    );
    assert_eq!(
        err_of(&["--at", "line:80"]),
        "hookscope: --at line:80 resolved to the Stop at line:75\n"
    );
    assert_eq!(err_of(&[]), err_of(&["--at", "1"]));
    assert_eq!(err_of(&["--at", "last"]), err_of(&["--at", "1"]));
    // One firing in the turn: no note.
    assert_eq!(err_of(&["--event", "UserPromptSubmit", "--at", "1"]), "");
}

/// The errors say where the asked event fires, as `--at` forms.
#[test]
fn errors_on_the_c5_session_list_where_stop_fires() {
    let path = corpus(C5);
    let p = path.to_str().expect("utf-8");
    let err_of = |at: &str| {
        let (code, out, err) = run(&[p, "--event", "Stop", "--at", at]);
        assert_eq!((code, out.as_str()), (2, ""), "{at}");
        err
    };
    assert_eq!(
        err_of("bogus"),
        "hookscope: bogus names nothing in this session (no tool_use_id or line uuid \"bogus\"; tool calls: 13 (e.g. toolu_01032bRSkqY5yqH4ZPXeQNl0, toolu_01DyCH1dtuL9osvMyrGk1pDI, toolu_01N99IspR712GfROrJ03dnUl); turns: 1 to 1; lines: line:1 to line:85; or `last`; Stop fires at line:75, line:82)\n"
    );
    // Before any Stop.
    assert_eq!(
        err_of("line:1"),
        "hookscope: no Stop at line:1; events here: none; Stop fires at line:75, line:82\n"
    );
    // Out of the file (85 lines), and line 0.
    for at in ["line:86", "line:0"] {
        assert_eq!(
            err_of(at),
            format!(
                "hookscope: {at} names nothing in this session (lines are line:1 to line:85; Stop fires at line:75, line:82)\n"
            )
        );
    }
    // Not a number after `line:`: an id, naming nothing.
    assert!(err_of("line:x").starts_with(
        "hookscope: line:x names nothing in this session (no tool_use_id or line uuid \"line:x\";"
    ),);
    // An event that never fires here.
    let (code, _, err) = run(&[p, "--event", "PreCompact", "--at", "1"]);
    assert_eq!(code, 2);
    assert!(
        err.ends_with("; PreCompact fires nowhere in this session\n"),
        "{err}"
    );
}

/// `payload --help` is for users: no developer notes about where a check
/// lives or which module does the work.
#[test]
fn help_has_no_developer_notes() {
    let out = hookscope()
        .args(["payload", "--help"])
        .output()
        .expect("runs");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--rules <RULES>"), "{help}");
    for note in ["Checked in", "not by clap", "hooks::"] {
        assert!(!help.contains(note), "{note} in:\n{help}");
    }
}

/// A Codex session gets the payload Codex would send
/// (`hooks::codex::payload`), the same JSON `replay --json` shows, not a
/// refusal. python3 over the real rollout: line 12 is the `exec_command`
/// function_call `call_mtfuaxdyo8h2rjg7kvpu3863` with `{"cmd": "ls -la"}`.
#[test]
fn payload_of_a_codex_session_is_codexs_own() {
    let rollout = corpus(
        "real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl",
    );
    let rollout = rollout.to_str().expect("utf-8 path");
    let at = "call_mtfuaxdyo8h2rjg7kvpu3863";
    let (code, out, err) = run(&[rollout, "--event", "PreToolUse", "--at", at]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["hook_event_name"], "PreToolUse");
    assert_eq!(v["tool_name"], "Bash");
    assert_eq!(v["tool_input"], json!({"command": "ls -la"}));
    assert_eq!(v["tool_use_id"], at);
    assert_eq!(v["session_id"], "01a2287a-35b1-76e0-b188-fd2c5f457a31");
    let replayed = hookscope()
        .args(["replay", rollout, "--event", "PreToolUse", "--at", at])
        .arg("--json")
        .output()
        .expect("run");
    let r: Value = serde_json::from_slice(&replayed.stdout).expect("replay json");
    assert_eq!(r["payload"], v);
    // A rule set is evaluated on the Codex payload too, its answer read
    // as Codex reads it: `ls -la` meets no rule of the example.
    let (code, out, err) = run(&[
        rollout,
        "--event",
        "PreToolUse",
        "--at",
        at,
        "--envelope",
        "--rules",
        EXAMPLE_RULES,
    ]);
    assert_eq!(code, 0, "{err}");
    let env: Value = serde_json::from_str(&out).expect("envelope");
    assert_eq!(env["payload"], v);
    assert_eq!(env["expected"]["decision"], "none");
    assert_eq!(env["expected"]["outcome"]["effect"], "nothing");
}

/// A Codex rollout found under a relative folder still gets its absolute
/// path as `transcript_path`, as Codex sends it (and as Claude Code and
/// Droid payloads get theirs): a hook run in another folder opens it.
#[test]
fn a_codex_payload_found_under_a_relative_folder_has_the_absolute_transcript_path() {
    let folder = corpus("real-codex-0.171.0/basic");
    let rollout = folder.join(
        "sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl",
    );
    let out = payload_cmd()
        .current_dir(&folder)
        .args(["01a2287a", ".", "--event", "PreToolUse", "--at"])
        .arg("call_mtfuaxdyo8h2rjg7kvpu3863")
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["transcript_path"], json!(real(&rollout)));
}

/// An OpenCode session has no hook payloads: refused (exit 2) with a
/// message naming the three agents whose payloads are rebuilt and why
/// OpenCode has none.
#[test]
fn payload_of_an_opencode_session_is_refused_and_says_why() {
    let db = corpus("real-opencode-1.18.33/data/opencode.db");
    let db = db.to_str().expect("utf-8 path");
    let (code, out, err) = run(&[
        "ses_dcc9a5b0affe4rNHPlT2UpUj8q",
        db,
        "--event",
        "PreToolUse",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(out, "");
    assert!(
        err.contains(
            "hook payloads are rebuilt for Claude Code, Codex and Droid sessions only (OpenCode's hooks are JavaScript plugins called in-process, fed no JSON payload); this one is opencode"
        ),
        "{err}"
    );
}

/// `--at` takes a `tool_use_id` as the `find` table and the TUI shorten it
/// (`toolu_015ys…`, or head and tail `toolu…jyPcJl` when ids share their
/// start) or any prefix naming one call: the payload is the full
/// id's. A prefix several calls share is refused with how many and the
/// first few (exit 2).
#[test]
fn a_shortened_tool_use_id_names_its_call() {
    let full = run(&[
        "e71e9aa1",
        "assets/demo",
        "--event",
        "PreToolUse",
        "--at",
        "toolu_015yswaSNPXIXO5GvmjyPcJl",
    ]);
    assert_eq!(full.0, 0, "{}", full.2);
    assert!(
        full.1
            .contains("\"tool_use_id\":\"toolu_015yswaSNPXIXO5GvmjyPcJl\""),
        "{}",
        full.1
    );
    for short in ["toolu_015ys…", "toolu_015ysw", "toolu…jyPcJl"] {
        let got = run(&[
            "e71e9aa1",
            "assets/demo",
            "--event",
            "PreToolUse",
            "--at",
            short,
        ]);
        assert_eq!(got.0, 0, "{short}: {}", got.2);
        assert_eq!(got.1, full.1, "{short}");
    }
    let shared = run(&[
        "e71e9aa1",
        "assets/demo",
        "--event",
        "PreToolUse",
        "--at",
        "toolu_01",
    ]);
    assert_eq!(shared.0, 2);
    assert_eq!(
        shared.2,
        "hookscope: toolu_01 starts the tool_use_id of 23 calls (toolu_01tL383BVJdaI34KPxGfiRLZ, toolu_01dxohHpq0K1OceRQg5RT4vA, toolu_01WS4HYZrMsYywO1CkB0np7Q); give more of the id\n"
    );
}

/// A subagent's call whose subagent type is recorded but not its id (an
/// inline sidechain, claude-code-viewer's fixture): the payload carries
/// `agent_type`, and the left-out line names the id alone.
#[test]
fn a_subagent_call_without_its_id_says_the_id_is_what_is_missing() {
    let (code, out, err) = run(&[
        "5c0375b4",
        corpus("claude-code-viewer").to_str().expect("utf-8"),
        "--event",
        "PreToolUse",
        "--at",
        "toolu_01Fqq8ovHgopDjoLkxB1JAsT",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["agent_type"], "general-purpose");
    assert_eq!(v.get("agent_id"), None);
    assert!(
        err.contains("hookscope: left out agent_id: the subagent's id is not recorded\n"),
        "{err}"
    );
    assert!(!err.contains("left out agent_type"), "{err}");
}

/// A transcript whose two Bash calls share `tool_use_id` `toolu_dup`
/// (lines 2 and 4, results on 3 and 5): what a resumed or hand-edited file
/// can hold. Returns its folder and path.
fn repeated_id_session(dir: &Path) -> std::path::PathBuf {
    let sid = "11111111-2222-3333-4444-555555555555";
    let base =
        json!({"sessionId": sid, "cwd": "/tmp/x", "version": "2.1.332", "isSidechain": false});
    let line = |extra: Value| {
        let mut v = base.clone();
        for (k, x) in extra.as_object().expect("object") {
            v[k] = x.clone();
        }
        v.to_string()
    };
    let call = |uuid: &str, parent: &str, t: &str, command: &str| {
        line(
            json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "timestamp": t,
            "message": {"id": uuid, "role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_dup", "name": "Bash", "input": {"command": command}}]}}),
        )
    };
    let result = |uuid: &str, parent: &str, t: &str, out: &str| {
        line(
            json!({"type": "user", "uuid": uuid, "parentUuid": parent, "timestamp": t,
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_dup", "content": out}]}}),
        )
    };
    let lines = [
        line(json!({"type": "user", "uuid": "u1", "parentUuid": null,
            "timestamp": "2026-12-01T10:00:00Z", "message": {"role": "user", "content": "hi"}})),
        call("a1", "u1", "2026-12-01T10:00:01Z", "echo one"),
        result("r1", "a1", "2026-12-01T10:00:02Z", "one"),
        call("a2", "r1", "2026-12-01T10:00:03Z", "echo two"),
        result("r2", "a2", "2026-12-01T10:00:04Z", "two"),
    ];
    let project = dir.join("proj");
    std::fs::create_dir_all(&project).expect("mkdir");
    let path = project.join(format!("{sid}.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    path
}

#[test]
fn calls_sharing_a_tool_use_id_are_each_reached_by_their_line_and_the_id_says_which() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = repeated_id_session(dir.path());
    let path = path.to_str().expect("utf-8");
    let command = |event: &str, at: &str| -> (String, String) {
        let (code, out, err) = run(&[path, "--event", event, "--at", at]);
        assert_eq!(code, 0, "{event} {at}: {err}");
        let v: Value = serde_json::from_str(&out).expect("json");
        let cmd = v["tool_input"]["command"]
            .as_str()
            .expect("command")
            .to_string();
        (cmd, err)
    };
    // Each call's own line (its tool_use or its result) gives its payload.
    assert_eq!(command("PreToolUse", "line:2").0, "echo one");
    assert_eq!(command("PostToolUse", "line:3").0, "echo one");
    assert_eq!(command("PreToolUse", "line:4").0, "echo two");
    assert_eq!(command("PostToolUse", "line:5").0, "echo two");
    let (cmd, err) = command("PostToolUse", "line:2");
    assert_eq!(cmd, "echo one");
    assert!(
        err.contains("hookscope: --at line:2 resolved to the PostToolUse at line:3\n"),
        "{err}"
    );
    // The id names both: the later one is printed, and stderr says so.
    let (cmd, err) = command("PreToolUse", "toolu_dup");
    assert_eq!(cmd, "echo two");
    assert!(
        err.contains(
            "hookscope: 2 calls have tool_use_id toolu_dup (line:2, line:4); printed the one at line:4; --at line:2 for the other\n"
        ),
        "{err}"
    );
}

#[test]
fn post_tool_use_at_a_call_a_hook_blocked_says_it_never_ran() {
    // hooks_c2_exit2: a PreToolUse hook exited 2 on `rm -rf build/` (its
    // tool_use on line 44), so the call never ran and no PostToolUse fired.
    let path = corpus(
        "real-cc-2.1.332/hooks_c2_exit2/projects/-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl",
    );
    let p = path.to_str().expect("utf-8");
    let (code, out, err) = run(&[
        p,
        "--event",
        "PostToolUse",
        "--at",
        "toolu_01GFEgALJm405nI2WctBocud",
    ]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.starts_with("hookscope: no PostToolUse at toolu_01GFEgALJm405nI2WctBocud; events here: PreToolUse, PostToolBatch; PostToolUse fires at "), "{err}");
    assert!(
        err.ends_with(
            "; the call at line:44 was blocked by a hook before it ran, so no PostToolUse fired\n"
        ),
        "{err}"
    );
}
