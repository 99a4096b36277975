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
            "hookscope: no session matches \"e1be136e\" (skipped {capture}: not a Claude Code, Codex or Droid transcript; skipped)"
        )
    );
}
