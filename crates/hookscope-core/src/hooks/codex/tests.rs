use serde_json::json;

use super::matcher::{check, classify, matcher_inputs};
use super::reduce::{combine_runs, read_answer};
use crate::hooks::exec::Reading;
use crate::hooks::matcher::MatcherKind;
use crate::hooks::result::Effect;

fn inputs(event: &str, tool: &str) -> Vec<String> {
    matcher_inputs(event, &json!({"hook_event_name": event, "tool_name": tool}))
}

#[test]
fn hyphen_makes_a_regex_in_codex() {
    // docs/contract.md#codex-hooks: `mcp__brave-search` is a regex in Codex.
    assert_eq!(
        classify("PreToolUse", Some("mcp__brave-search")),
        MatcherKind::Regex {
            pattern: "mcp__brave-search".into()
        }
    );
    // Unanchored: it matches a longer tool name too.
    let v = check(
        "PreToolUse",
        Some("mcp__brave-search"),
        &inputs("PreToolUse", "mcp__brave-search__web_search"),
    );
    assert!(v.matches, "{}", v.reason);
    assert!(v.reason.contains("Rust regex"), "{}", v.reason);
}

#[test]
fn pipe_list_is_exact() {
    assert_eq!(
        classify("PreToolUse", Some("Bash|shell_command")),
        MatcherKind::Exact {
            names: vec!["Bash".into(), "shell_command".into()]
        }
    );
    assert!(
        check(
            "PreToolUse",
            Some("Bash|shell_command"),
            &inputs("PreToolUse", "Bash")
        )
        .matches
    );
    let v = check(
        "PreToolUse",
        Some("Bash|shell_command"),
        &inputs("PreToolUse", "BashOutput"),
    );
    assert!(!v.matches);
    assert!(
        v.reason.contains("does not name \"BashOutput\""),
        "{}",
        v.reason
    );
}

#[test]
fn apply_patch_matches_a_write_matcher_by_alias() {
    assert_eq!(
        inputs("PreToolUse", "apply_patch"),
        vec!["apply_patch", "Write", "Edit"]
    );
    let v = check(
        "PreToolUse",
        Some("Write"),
        &inputs("PreToolUse", "apply_patch"),
    );
    assert!(v.matches, "{}", v.reason);
    assert!(v.reason.contains("alias"), "{}", v.reason);
    // A regex naming two aliases still selects the handler once (one verdict).
    let v = check(
        "PreToolUse",
        Some("^(Write|Edit)$"),
        &inputs("PreToolUse", "apply_patch"),
    );
    assert!(v.matches);
}

#[test]
fn look_around_is_invalid_and_never_matches() {
    let kind = classify("PreToolUse", Some("^(?!Read).*"));
    assert!(matches!(kind, MatcherKind::Invalid { .. }), "{kind:?}");
    let v = check(
        "PreToolUse",
        Some("^(?!Read).*"),
        &inputs("PreToolUse", "Bash"),
    );
    assert!(!v.matches);
    assert!(v.hint.as_deref().is_some_and(|h| h.contains("look-around")));
}

#[test]
fn prompt_and_stop_ignore_matchers() {
    assert_eq!(
        classify("UserPromptSubmit", Some("[")),
        MatcherKind::Ignored
    );
    assert_eq!(classify("Stop", Some("^done$")), MatcherKind::Ignored);
    assert!(check("Stop", Some("^done$"), &[]).matches);
    assert_eq!(classify("PreToolUse", Some("*")), MatcherKind::All);
    assert_eq!(classify("PreToolUse", Some("")), MatcherKind::All);
}

fn answer(event: &str, code: Option<i32>, stdout: &str, stderr: &str) -> (Effect, bool) {
    let (o, failed) = read_answer(event, code, stdout, stderr);
    (o.effect, failed)
}

#[test]
fn exit_2_needs_stderr_to_block() {
    assert_eq!(
        answer("PreToolUse", Some(2), "", ""),
        (Effect::Nothing, true)
    );
    assert_eq!(
        answer("PreToolUse", Some(2), "", "  \n"),
        (Effect::Nothing, true)
    );
    let (o, failed) = read_answer("PreToolUse", Some(2), "", "no rm please\n");
    assert_eq!((o.effect, failed), (Effect::Blocked, false));
    assert_eq!(o.model_sees.as_deref(), Some("no rm please"));
    // stdout is not read on exit 2.
    assert_eq!(
        answer(
            "PreToolUse",
            Some(2),
            r#"{"decision":"block","reason":"x"}"#,
            ""
        ),
        (Effect::Nothing, true)
    );
}

#[test]
fn other_exits_fail_open_and_json_is_not_read() {
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#;
    assert_eq!(
        answer("PreToolUse", Some(1), deny, ""),
        (Effect::Nothing, true)
    );
    assert_eq!(
        answer("PreToolUse", Some(0), deny, ""),
        (Effect::Blocked, false)
    );
    assert_eq!(
        answer("PreToolUse", None, deny, ""),
        (Effect::Nothing, true)
    );
}

#[test]
fn block_needs_a_reason() {
    let deny =
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#;
    assert_eq!(
        answer("PreToolUse", Some(0), deny, ""),
        (Effect::Nothing, true)
    );
    let blank = r#"{"decision":"block","reason":"  "}"#;
    assert_eq!(
        answer("PreToolUse", Some(0), blank, ""),
        (Effect::Nothing, true)
    );
    assert_eq!(
        answer("Stop", Some(0), r#"{"decision":"block"}"#, ""),
        (Effect::Nothing, true)
    );
    assert_eq!(
        answer(
            "Stop",
            Some(0),
            r#"{"decision":"block","reason":"tests fail"}"#,
            ""
        ),
        (Effect::Blocked, false)
    );
}

#[test]
fn allow_needs_updated_input_and_ask_is_unsupported() {
    let allow =
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#;
    assert_eq!(
        answer("PreToolUse", Some(0), allow, ""),
        (Effect::Nothing, true)
    );
    let rewrite = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}"#;
    let (o, failed) = read_answer("PreToolUse", Some(0), rewrite, "");
    assert_eq!((o.effect, failed), (Effect::InputRewritten, false));
    assert_eq!(o.updated_input, Some(json!({"command": "ls"})));
    let ask = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"?"}}"#;
    assert_eq!(
        answer("PreToolUse", Some(0), ask, ""),
        (Effect::Nothing, true)
    );
    for bad in [
        r#"{"continue":false}"#,
        r#"{"stopReason":"x"}"#,
        r#"{"suppressOutput":true}"#,
        r#"{"decision":"approve"}"#,
    ] {
        assert_eq!(
            answer("PreToolUse", Some(0), bad, ""),
            (Effect::Nothing, true),
            "{bad}"
        );
    }
}

#[test]
fn json_looking_junk_is_a_failed_run() {
    assert_eq!(
        answer("PreToolUse", Some(0), "[not json", ""),
        (Effect::Nothing, true)
    );
    assert_eq!(
        answer("PreToolUse", Some(0), "{\"x\":", ""),
        (Effect::Nothing, true)
    );
    // Unknown fields are refused (deny_unknown_fields).
    assert_eq!(
        answer("PreToolUse", Some(0), r#"{"foo":1}"#, ""),
        (Effect::Nothing, true)
    );
    // Plain text: context on UserPromptSubmit, ignored on PreToolUse.
    assert_eq!(
        answer("UserPromptSubmit", Some(0), "remember X", ""),
        (Effect::ContextAdded, false)
    );
    assert_eq!(
        answer("PreToolUse", Some(0), "hello", ""),
        (Effect::Nothing, false)
    );
}

#[test]
fn permission_request_allow_deny_only() {
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny"}}}"#;
    let (o, failed) = read_answer("PermissionRequest", Some(0), deny, "");
    assert_eq!((o.effect, failed), (Effect::Blocked, false));
    assert_eq!(
        o.model_sees.as_deref(),
        Some("PermissionRequest hook denied approval")
    );
    let rewrite = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{}}}}"#;
    assert_eq!(
        answer("PermissionRequest", Some(0), rewrite, ""),
        (Effect::Nothing, true)
    );
}

fn reading(label: &str, code: i32, stdout: &str, stderr: &str, order: usize) -> Reading {
    let (outcome, failed) = read_answer("PreToolUse", Some(code), stdout, stderr);
    Reading {
        label: label.into(),
        outcome,
        failed,
        finish_order: order,
    }
}

#[test]
fn any_block_wins_with_the_first_reason_and_contexts_join() {
    let ctx =
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"note A"}}"#;
    let rs = vec![
        reading("#1", 0, ctx, "", 2),
        reading("#2", 2, "", "first reason", 0),
        reading("#3", 2, "", "second reason", 1),
    ];
    let c = combine_runs("PreToolUse", &rs);
    assert_eq!(c.effect, Effect::Blocked);
    assert_eq!(c.model_sees.as_deref(), Some("first reason\n\nnote A"));
    assert_eq!(c.decided_by, vec!["#2".to_string()]);
}

#[test]
fn updated_input_from_the_last_to_finish() {
    let a = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"a"}}}"#;
    let b = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"b"}}}"#;
    let rs = vec![reading("#1", 0, a, "", 1), reading("#2", 0, b, "", 0)];
    let c = combine_runs("PreToolUse", &rs);
    assert_eq!(c.effect, Effect::InputRewritten);
    assert_eq!(c.updated_input, Some(json!({"command": "a"})));
}
