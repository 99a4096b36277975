//! The core's session-derived models on hostile and real input: the shell
//! parser's limits, the diff model of a tool call (transcript::diff), and
//! the session cache (transcript::cache).

use hookscope::tools::{OnError, describe, parse_tool_call};
use serde_json::json;

/// `hookscope call`'s JSON for a 150,000-stage pipeline (900 KB) says what
/// the parser left out: 834,462 bytes after the first 65,535, and that only
/// 4096 of the 10,923 parsed stages are listed.
#[test]
fn describe_reports_parser_limits() {
    let command = "cat | ".repeat(149_999) + "cat";
    assert_eq!(command.len(), 899_997);
    let call = parse_tool_call("Bash", Some(&json!({ "command": command })), OnError::Raise)
        .expect("a BashCall");
    let out = describe(&call);
    let items = out["command_line"].as_array().expect("an array");
    assert_eq!(items.len(), 4096 + 1);
    assert_eq!(
        items[4096],
        json!({
            "truncated": 834_462,
            "calls_capped": true,
            "note": "only the first 65535 bytes were parsed (834462 bytes not parsed); only the first 4096 simple calls are listed"
        })
    );
    assert_eq!(items[4095]["program"], "cat");
    assert_eq!(items[4095]["operator"], "|");
}
