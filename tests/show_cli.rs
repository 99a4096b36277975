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
            "../shared/corpus/real-cc-2.1.332/hooks_c2_exit2",
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
            .any(|l| l == "  bash   Bash ✗  rm -rf build/  [toolu_01GFEgALJm405nI2WctBocud]"),
        "{text}"
    );
    // Every call line ends with a bracketed id: 13 calls (12 + 1 in the subagent).
    let ids = text
        .lines()
        .filter(|l| l.ends_with(']') && l.contains("[toolu_"))
        .count();
    assert_eq!(ids, 13);
}
