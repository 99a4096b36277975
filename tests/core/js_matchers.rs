//! Claude Code's matchers are JavaScript regular expressions: every case of
//! tests/fixtures/js_matchers/cases.json, with JavaScript's own answer
//! (answers.json, made by answers.js with node: `new RegExp(p).test(s)`,
//! or "error" when it throws), gives the same answer in hookscope
//! (docs/contract.md#matchers).

use hookscope_core::hooks::matcher::js_test;
use serde_json::Value;

use crate::support::package_path;

#[test]
fn every_case_answers_as_javascript_does() {
    let text = std::fs::read_to_string(package_path("tests/fixtures/js_matchers/answers.json"))
        .expect("answers.json");
    let cases: Vec<(String, String, Value)> = serde_json::from_str(&text).expect("json");
    assert_eq!(cases.len(), 70);
    let mut wrong = Vec::new();
    for (pattern, input, js) in &cases {
        let ours = js_test(pattern, input);
        let same = match (js, &ours) {
            (Value::Bool(b), Ok(m)) => b == m,
            (Value::String(s), Err(_)) => s == "error",
            _ => false,
        };
        if !same {
            wrong.push(format!(
                "{pattern:?} on {input:?}: JavaScript {js}, hookscope {ours:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

/// Hostile patterns end with an answer: a trailing backslash, an open
/// class, a lone `(?` give JavaScript's error; 100,000 `\b` and 10,000
/// nested groups are over the size hookscope evaluates and say so.
#[test]
fn hostile_patterns_answer() {
    assert!(js_test("abc\\", "abc").is_err());
    assert!(js_test("[abc", "a").is_err());
    assert!(js_test("(?", "a").is_err());
    assert!(js_test("é\\", "é").is_err());
    let long = "\\b".repeat(100_000);
    assert_eq!(
        js_test(&long, "Bash"),
        Err("the pattern is 200000 bytes, longer than the 8 KiB hookscope evaluates".into())
    );
    let nested = "(".repeat(10_000) + &")".repeat(10_000);
    assert!(js_test(&nested, "x").is_err_and(|e| e.contains("longer than the 8 KiB")));
    // Under the cap: 1,000 `\b` is evaluated.
    assert_eq!(js_test(&"\\b".repeat(1_000), "Bash"), Ok(true));
}
