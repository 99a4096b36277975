//! `hooks::reach`: which handlers an event reaches, as the typed
//! `MatchReport` behind `hookscope hooks --match` (its JSON and its text
//! from the same value), on a settings file with an `if` rule, a handler
//! for another tool and an identical twin.

use hookscope_core::hooks::contract::Version;
use hookscope_core::hooks::dialect::{Dialect, Sources};
use hookscope_core::hooks::reach::{MatchReport, Reach};
use hookscope_core::hooks::settings::HandlerVerdict;
use serde_json::json;

use crate::support::write_file;

#[test]
fn the_match_report_renders_its_json_and_its_text_from_one_value() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Written pretty in this order, so each handler's line is known (the
    // line of its object's `{`).
    let settings = json!({"hooks": {"PreToolUse": [
        {"hooks": [{"command": "guard.sh", "if": "Bash(rm *)", "type": "command"}],
         "matcher": "Bash"},
        {"hooks": [{"command": "exit 0", "type": "command"}], "matcher": "Write"}
    ]}});
    let path = write_file(
        dir.path().join("settings.json"),
        serde_json::to_string_pretty(&settings).expect("json"),
    );
    let version = Version::parse("2.1.332");
    let hooks = Dialect::ClaudeCode.load(&Sources {
        settings: vec![path.clone()],
        version: version.clone(),
        ..Sources::default()
    });
    let payload = Dialect::ClaudeCode.synthetic_payload(
        "PreToolUse",
        "Bash",
        Some(json!({"command": "rm -rf build"})),
        &version,
    );
    let report = MatchReport::new(&hooks, "PreToolUse", "Bash", payload, &version, "2.1.332");
    let shown = path.display();

    let v = serde_json::to_value(&report).expect("json");
    assert_eq!(v["agent"], "claude-code");
    assert_eq!(v["event"], "PreToolUse");
    assert_eq!(v["verdicts"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["verdicts"][0]["handler"], 1);
    assert_eq!(v["verdicts"][0]["fires"], true);
    assert_eq!(v["verdicts"][0]["if"], "Bash(rm *)");
    assert_eq!(v["verdicts"][0]["type"], "command");
    assert_eq!(v["verdicts"][0]["location"]["line"], 6);
    assert_eq!(v["verdicts"][0]["effective_timeout"], 600.0);
    assert_eq!(v["verdicts"][1]["fires"], false);
    assert_eq!(v["verdicts"][1]["matcher"], "Write");
    assert!(v.get("heading").is_none(), "the heading is text only");

    let lines = report.lines();
    assert_eq!(
        lines[0],
        "PreToolUse with tool_name = \"Bash\" (Claude Code 2.1.332 rules):"
    );
    assert_eq!(
        lines[1],
        format!("  ✓ #1 {shown}:6 (given)  matcher \"Bash\"  if \"Bash(rm *)\"  command  guard.sh")
    );
    assert_eq!(lines[2], format!("      {}", report.verdicts[0].why()));
    assert_eq!(
        lines[3],
        format!("  ✗ #2 {shown}:16 (given)  matcher \"Write\"  command  exit 0")
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some("1 of 2 handlers would run.")
    );
}

#[test]
fn a_verdict_naming_no_handler_is_left_out() {
    let hooks = Dialect::ClaudeCode.load(&Sources::default());
    let ghost = HandlerVerdict {
        index: 99,
        fires: true,
        reason: "made up".into(),
        hint: None,
        matcher: None,
        if_rule: None,
    };
    assert!(Reach::of(&hooks, &[ghost]).is_empty());
}
