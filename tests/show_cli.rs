//! `hookscope show` text outline over a real 2.1.332 session.

use assert_cmd::Command;

#[test]
fn the_outline_names_each_calls_tool_use_id() {
    // hooks_c2_exit2: the Bash `rm -rf build/` call the PreToolUse hook
    // blocked (exit 2) is toolu_01GFEgALJm405nI2WctBocud in the transcript;
    // `payload`/`replay --at` take that id, so the outline prints it whole.
    let out = Command::cargo_bin("hookscope")
        .expect("binary")
        .args([
            "show",
            "e1be136e",
            "tests/corpus/real-cc-2.1.332/hooks_c2_exit2",
        ])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l
                == "  bash   Bash ✗ ⛔ blocked by hook  rm -rf build/  [toolu_01GFEgALJm405nI2WctBocud]"),
        "{text}"
    );
    // The session's one hook error (grep: one `PreToolUse:Bash hook error`
    // result) is its one blocked mark.
    assert_eq!(text.matches("⛔").count(), 1, "{text}");
    // Every call line ends with a bracketed id: 13 calls (12 + 1 in the subagent).
    let ids = text
        .lines()
        .filter(|l| l.ends_with(']') && l.contains("[toolu_"))
        .count();
    assert_eq!(ids, 13);
}

/// The outline marks a call a hook blocked the same way for every agent:
/// Droid's errors run (python3 over its JSONL: one non-zero
/// `hookResults[].exitCode`, exit 2 on line 14 for `hookToolCallId`
/// `call_CQRmHwfk8ggbj3l8NR2Iqt2S`, the `rm -rf build/` Execute call).
#[test]
fn the_outline_marks_a_droid_call_a_hook_blocked() {
    let out = Command::cargo_bin("hookscope")
        .expect("binary")
        .args([
            "show",
            "1b9da415",
            "tests/corpus/real-droid-0.225.2/factory/sessions",
        ])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|l| l
            == "  bash   Execute ✗ ⛔ blocked by hook  rm -rf build/  [call_CQRmHwfk8ggbj3l8NR2Iqt2S]"),
        "{text}"
    );
    assert_eq!(text.matches("⛔").count(), 1, "{text}");
}

fn stderr_of(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("hookscope")
        .expect("binary")
        .args(args)
        .output()
        .expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_folder_as_session_opens_its_one_session() {
    // hooks_c2_exit2 holds one session, e1be136e…; as SESSION it opens it.
    let (code, stdout, _) = stderr_of(&[
        "payload",
        "tests/corpus/real-cc-2.1.332/hooks_c2_exit2",
        "--event",
        "Stop",
    ]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.starts_with("{\"session_id\":\"e1be136e-e2ee-4f2f-bdb9-5cd3211001fb\""),
        "{stdout}"
    );
    // A folder of 8 sessions: says how to pick one, exit 2.
    let (code, _, stderr) = stderr_of(&["show", "tests/corpus/real-cc-2.1.332"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with(
            "hookscope: 8 sessions under the folder tests/corpus/real-cc-2.1.332; give one's id"
        ),
        "{stderr}"
    );
}

#[test]
fn a_skipped_path_is_named_when_nothing_matches() {
    // A hook capture file given as PATH is not a transcript: the error says
    // it was skipped instead of only "no session matches".
    let capture = "tests/corpus/real-cc-2.1.332/hooks_c2_exit2/hooks/hooks_c2_exit2/Stop.jsonl";
    let (code, _, stderr) = stderr_of(&["show", "e1be136e", capture]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr.trim_end(),
        format!(
            "hookscope: no session matches \"e1be136e\" (skipped {capture}: not a Claude Code, Codex, OpenCode or Droid session transcript; skipped)"
        )
    );
}

/// The binary run hermetically: HOME, the agents' homes and the index
/// cache point into `home`, so only the PATHs given are read.
fn hermetic(home: &std::path::Path, args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = Command::cargo_bin("hookscope")
        .expect("binary")
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("CLAUDE_CONFIG_DIR", home.join("claude"))
        .env("CODEX_HOME", home.join("codex"))
        .env("HOOKSCOPE_NO_INDEX", "1")
        .args(args)
        .output()
        .expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A legacy flat Codex session (formats of README "Where sessions come
/// from": a bare meta line, `record_type` state lines, bare response items)
/// saved under another name than `rollout-*.jsonl` opens when given as a
/// PATH (it is judged by its content); in a folder walked it is not listed.
/// No legacy-shaped rollout is in `tests/corpus`, so the lines are those of
/// `codex_corpus::legacy_flat_rollout`.
#[test]
fn a_legacy_codex_export_given_as_a_path_opens() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path().join("exports");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let lines = [
        r#"{"id":"legacy-export-1","timestamp":"2025-08-01T10:00:00Z","instructions":"be brief","git":{"branch":"dev"}}"#,
        r#"{"record_type":"state"}"#,
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]}"#,
        r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"c1"}"#,
        r#"{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"a\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"}"#,
        r#"{"record_type":"state"}"#,
    ];
    let export = dir.join("export.jsonl");
    std::fs::write(&export, lines.join("\n") + "\n").expect("write");
    let (code, out, err) = hermetic(home.path(), &["show".as_ref(), export.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out.lines().take(5).collect::<Vec<_>>(),
        vec![
            "legacy-export-1  list files",
            "1 turn, 1 tool call, 0 errors, 0 subagents, 0 diagnostics",
            "",
            "turn 1: list files  [1 tool call]",
            "  bash   shell  ls  [c1]",
        ]
    );
    let (code, out, _) = hermetic(
        home.path(),
        &["sessions".as_ref(), export.as_os_str(), "--json".as_ref()],
    );
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v[0]["id"], "legacy-export-1");
    assert_eq!(v[0]["agent"], "codex");
    // The folder walked: only `rollout-*` names are taken in that layout.
    let (code, out, _) = hermetic(
        home.path(),
        &["sessions".as_ref(), dir.as_os_str(), "--json".as_ref()],
    );
    assert_eq!(code, Some(0));
    assert_eq!(out.trim(), "[]");
}

/// A `.jsonl` PATH that is no agent's session (a hook capture) is refused
/// with the four agents named.
#[test]
fn a_jsonl_that_is_no_session_is_refused_naming_the_four_agents() {
    let home = tempfile::tempdir().expect("tempdir");
    let capture = std::path::Path::new(
        "tests/corpus/real-cc-2.1.332/hooks_c2_exit2/hooks/hooks_c2_exit2/Stop.jsonl",
    );
    let (code, out, err) = hermetic(home.path(), &["show".as_ref(), capture.as_os_str()]);
    assert_eq!(code, Some(2));
    assert_eq!(out, "");
    assert_eq!(
        err,
        format!(
            "hookscope: {} is not a Claude Code, Codex, OpenCode or Droid session transcript\n",
            capture.display()
        )
    );
}
