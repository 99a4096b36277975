use super::*;
use serde_json::json;

fn stdout(event: &str, r: &HookResult) -> Value {
    hook_output(event, r).stdout.expect("prints JSON")
}

#[test]
fn of_dedents_and_strips_like_the_seed() {
    let r = HookResult::of(
        Action::Block,
        Some("\n    first line\n      indented\n    last\n  "),
    );
    assert_eq!(r.message.as_deref(), Some("first line\n  indented\nlast"));
    assert!(r.approve);
    assert_eq!(HookResult::of(Action::Warn, Some("   ")).message, None);
}

#[test]
fn warn_parts_render_as_the_seed_says() {
    let m = render_parts(&[
        Part::Text("Drop the print before finishing.".into()),
        Part::Labeled("file".into(), json!("a.py")),
        Part::Json(json!({"line": 3})),
    ]);
    assert_eq!(
        m,
        "Drop the print before finishing.\nfile: \"a.py\"\n{\"line\":3}"
    );
}

#[test]
fn action_names_are_the_seeds_four() {
    assert_eq!(Action::NAMES, ["block", "warn", "allow", "rewrite"]);
    assert_eq!("rewrite".parse::<Action>(), Ok(Action::Rewrite));
    let err = "context"
        .parse::<Action>()
        .expect_err("context is not an action");
    assert!(err.contains("block, warn, allow, rewrite"), "{err}");
    assert_eq!(
        serde_json::to_value(Action::Block).expect("json"),
        json!("block")
    );
}

#[test]
fn pretooluse_block_is_a_deny_with_the_reason() {
    let v = stdout(
        "PreToolUse",
        &HookResult::block("Destructive command blocked by hook"),
    );
    assert_eq!(
        v,
        json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",
            "permissionDecisionReason":"Destructive command blocked by hook"}})
    );
    let o = outcome("PreToolUse", &HookResult::block("use trash"));
    assert_eq!(o.effect, Effect::Blocked);
    assert_eq!(o.model_sees.as_deref(), Some("use trash"));
}

#[test]
fn pretooluse_warn_approves_and_context_does_not() {
    let v = stdout("PreToolUse", &HookResult::warn("careful"));
    assert_eq!(
        v,
        json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","additionalContext":"careful"}})
    );
    let v = stdout("PreToolUse", &HookResult::context("careful"));
    assert_eq!(
        v,
        json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"careful"}})
    );
    assert_eq!(
        outcome("PreToolUse", &HookResult::warn("careful")).effect,
        Effect::Allowed
    );
    let o = outcome("PreToolUse", &HookResult::context("careful"));
    assert_eq!(o.effect, Effect::ContextAdded);
    assert_eq!(o.model_sees.as_deref(), Some("careful"));
}

#[test]
fn pretooluse_rewrite_is_allow_updated_input_and_note() {
    let r = HookResult::rewrite(
        json!({"command":"trash /tmp/build","description":"Clean build dir"}),
        Some("rm was rewritten to trash"),
    );
    let v = stdout("PreToolUse", &r);
    assert_eq!(
        v,
        json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow",
          "updatedInput":{"command":"trash /tmp/build","description":"Clean build dir"},
          "additionalContext":"rm was rewritten to trash"}})
    );
    let o = outcome("PreToolUse", &r);
    assert_eq!(o.effect, Effect::InputRewritten);
    assert_eq!(
        o.updated_input,
        Some(json!({"command":"trash /tmp/build","description":"Clean build dir"}))
    );
    assert_eq!(o.model_sees.as_deref(), Some("rm was rewritten to trash"));
}

#[test]
fn permission_request_uses_decision_behavior_and_warn_falls_through() {
    let v = stdout(
        "PermissionRequest",
        &HookResult::block("Use the staging DB"),
    );
    assert_eq!(
        v,
        json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest",
          "decision":{"behavior":"deny","message":"Use the staging DB"}}})
    );
    let r = HookResult::rewrite(json!({"command":"npm run lint"}), None);
    assert_eq!(
        stdout("PermissionRequest", &r),
        json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest",
          "decision":{"behavior":"allow","updatedInput":{"command":"npm run lint"}}}})
    );
    let out = hook_output("PermissionRequest", &HookResult::warn("hm"));
    assert_eq!(out.stdout, None);
    assert_eq!(
        outcome("PermissionRequest", &HookResult::warn("hm")).effect,
        Effect::Nothing
    );
    let o = outcome("PermissionRequest", &HookResult::block("no"));
    assert_eq!(
        (o.effect, o.user_sees.as_deref()),
        (Effect::Blocked, Some("no"))
    );
}

#[test]
fn stop_block_is_top_level_decision_and_keeps_claude_going() {
    let v = stdout("Stop", &HookResult::block("Run the tests first"));
    assert_eq!(
        v,
        json!({"decision":"block","reason":"Run the tests first"})
    );
    let o = outcome("Stop", &HookResult::block("Run the tests first"));
    assert_eq!(o.effect, Effect::Blocked);
    assert_eq!(o.model_sees.as_deref(), Some("Run the tests first"));
    assert!(
        o.why.iter().any(|w| w.contains("keeps Claude going")),
        "{:?}",
        o.why
    );
}

#[test]
fn user_prompt_submit_block_reason_goes_to_the_user_only() {
    let o = outcome(
        "UserPromptSubmit",
        &HookResult::block("no secrets in prompts"),
    );
    assert_eq!(o.effect, Effect::Blocked);
    assert_eq!(o.model_sees, None);
    assert_eq!(o.user_sees.as_deref(), Some("no secrets in prompts"));
}

#[test]
fn task_completed_blocks_by_exit_2_with_stderr() {
    let out = hook_output("TaskCompleted", &HookResult::block("tests are red"));
    assert_eq!(
        (out.exit_code, out.stdout.clone(), out.stderr.as_deref()),
        (2, None, Some("tests are red"))
    );
    let o = outcome("TaskCompleted", &HookResult::block("tests are red"));
    assert_eq!(
        (o.effect, o.model_sees.as_deref()),
        (Effect::Blocked, Some("tests are red"))
    );
}

#[test]
fn session_start_warn_is_context_and_block_is_refused() {
    let v = stdout("SessionStart", &HookResult::warn("repo uses pnpm"));
    assert_eq!(
        v,
        json!({"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"repo uses pnpm"}})
    );
    let out = hook_output("SessionStart", &HookResult::block("x"));
    assert_eq!(out.stdout, None);
    assert_eq!(
        out.notes,
        ["SessionStart cannot be blocked: the block has no effect"]
    );
}

#[test]
fn session_end_ignores_everything() {
    let out = hook_output("SessionEnd", &HookResult::block("x"));
    assert_eq!(out.stdout, None);
    assert_eq!(
        outcome("SessionEnd", &HookResult::block("x")).effect,
        Effect::Nothing
    );
}

#[test]
fn system_message_is_user_only_and_kept_apart() {
    let mut r = HookResult::block("use trash instead");
    r.system_message = Some("hookscope blocked rm -rf".into());
    let v = stdout("PreToolUse", &r);
    assert_eq!(v["systemMessage"], json!("hookscope blocked rm -rf"));
    let o = outcome("PreToolUse", &r);
    assert_eq!(o.model_sees.as_deref(), Some("use trash instead"));
    assert_eq!(o.user_sees.as_deref(), Some("hookscope blocked rm -rf"));
}

#[test]
fn a_flat_permission_decision_is_ignored_and_said_so() {
    let o = interpret_output(
        "PreToolUse",
        0,
        r#"{"permissionDecision":"deny","permissionDecisionReason":"x"}"#,
        "",
    );
    assert_eq!(o.effect, Effect::Nothing);
    assert!(o.why[0].contains("#4669"), "{:?}", o.why);
}

#[test]
fn exit_codes_follow_the_matrix() {
    // exit 2 blocks PreToolUse even when the JSON says allow; stderr is the reason
    let o = interpret_output(
        "PreToolUse",
        2,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
        "no rm\n",
    );
    assert_eq!(
        (o.effect, o.model_sees.as_deref()),
        (Effect::Blocked, Some("no rm"))
    );
    // exit 1 + deny JSON blocks (cupcake#117); exit 1 + nothing fails open
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r"}}"#;
    assert_eq!(
        interpret_output("PreToolUse", 1, deny, "").effect,
        Effect::Blocked
    );
    assert_eq!(
        interpret_output("PreToolUse", 1, "", "boom").effect,
        Effect::Nothing
    );
    // PermissionRequest ignores exit 2
    assert_eq!(
        interpret_output("PermissionRequest", 2, "", "no").effect,
        Effect::Nothing
    );
    // a shell profile echo before the JSON turns it into text
    let o = interpret_output("PreToolUse", 0, &format!("Shell ready\n{deny}"), "");
    assert_eq!(o.effect, Effect::Nothing);
    // plain stdout is context on UserPromptSubmit
    let o = interpret_output("UserPromptSubmit", 0, "today is Tuesday\n", "");
    assert_eq!(
        (o.effect, o.model_sees.as_deref()),
        (Effect::ContextAdded, Some("today is Tuesday"))
    );
}

#[test]
fn continue_false_beats_every_decision() {
    let o = interpret_output(
        "PreToolUse",
        0,
        r#"{"continue":false,"stopReason":"Build failed","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
        "",
    );
    assert_eq!(
        (o.effect, o.user_sees.as_deref()),
        (Effect::Stopped, Some("Build failed"))
    );
}

#[test]
fn deprecated_and_mismatched_outputs_are_flagged() {
    let o = interpret_output("PreToolUse", 0, r#"{"decision":"approve"}"#, "");
    assert_eq!(o.effect, Effect::Allowed);
    assert!(o.why[0].contains("deprecated"));
    let o = interpret_output(
        "PreToolUse",
        0,
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}"#,
        "",
    );
    assert_eq!(o.effect, Effect::Nothing);
    assert!(o.why[0].contains("not \"PreToolUse\""), "{:?}", o.why);
    let o = interpret_output(
        "PostToolUse",
        0,
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}"#,
        "",
    );
    assert!(
        o.why
            .iter()
            .any(|w| w.contains("meaningless on PostToolUse")),
        "{:?}",
        o.why
    );
}

#[test]
fn the_corpus_c3_deny_response_blocks_with_its_reason() {
    // tests/corpus/real-cc-2.1.332/hooks_c3_deny_json: what the hook printed
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/real-cc-2.1.332/hooks_c3_deny_json/hooks/hooks_c3_deny_json/_responses.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("corpus");
    let line: Value = serde_json::from_str(text.lines().next().expect("a line")).expect("json");
    let stdout = line["stdout"].as_str().expect("stdout");
    let o = interpret_output("PreToolUse", 0, stdout, "");
    assert_eq!(o.effect, Effect::Blocked);
    let printed: Value = serde_json::from_str(stdout).expect("json");
    assert_eq!(
        o.model_sees.as_deref(),
        printed["hookSpecificOutput"]["permissionDecisionReason"].as_str()
    );
}

#[test]
fn precedence_is_deny_defer_ask_allow() {
    use PermissionDecision::*;
    assert_eq!(
        PermissionDecision::combine([Allow, Ask, Defer]),
        Some(Defer)
    );
    assert_eq!(PermissionDecision::combine([Allow, Deny, Ask]), Some(Deny));
    assert_eq!(PermissionDecision::combine([Allow, Ask]), Some(Ask));
    assert_eq!(PermissionDecision::combine([]), None);
}

#[test]
fn combine_block_wins_and_flags_other_blocks() {
    let c = combine(&[
        ("a".into(), HookResult::warn("w")),
        ("b".into(), HookResult::block("first")),
        ("c".into(), HookResult::block("second")),
    ]);
    let r = c.result.expect("a result");
    assert_eq!(
        (r.action, r.message.as_deref()),
        (Action::Block, Some("first"))
    );
    assert_eq!(c.decision, Some(PermissionDecision::Deny));
    assert_eq!(
        c.flags,
        ["2 rules block; the reason shown is `b`'s (also: c)"]
    );
}

#[test]
fn combine_rewrites_last_wins_flagged_and_contexts_join() {
    let c = combine(&[
        (
            "r1".into(),
            HookResult::rewrite(json!({"command":"one"}), Some("n1")),
        ),
        ("w".into(), HookResult::context("ctx")),
        (
            "r2".into(),
            HookResult::rewrite(json!({"command":"two"}), None),
        ),
    ]);
    let r = c.result.expect("a result");
    assert_eq!(r.action, Action::Rewrite);
    assert_eq!(r.updated_input, Some(json!({"command":"two"})));
    assert_eq!(r.note.as_deref(), Some("n1\nctx"));
    assert_eq!(c.flags.len(), 1);
    assert!(
        c.flags[0].starts_with("2 rules rewrite the input (r1, r2)"),
        "{}",
        c.flags[0]
    );
}

#[test]
fn combine_warns_join_and_approve_only_if_one_approves() {
    let c = combine(&[
        ("a".into(), HookResult::context("one")),
        ("b".into(), HookResult::context("two")),
    ]);
    let r = c.result.expect("a result");
    assert_eq!(
        (r.action, r.message.as_deref(), r.approve),
        (Action::Warn, Some("one\ntwo"), false)
    );
    assert_eq!(c.decision, None);
    let c = combine(&[
        ("a".into(), HookResult::context("one")),
        ("b".into(), HookResult::allow()),
    ]);
    let r = c.result.expect("a result");
    assert!(r.approve);
    assert_eq!(c.decision, Some(PermissionDecision::Allow));
    assert_eq!(combine(&[]).result, None);
}

#[test]
fn the_control_comes_from_the_contract_by_version() {
    use crate::contract::Version;
    // PreModelSwitch exists from 2.1.251 (docs/contract.md#model-switch-events)
    let before = EventControl::at("PreModelSwitch", &Version::parse("2.1.250"));
    assert!(before.no_control && !before.can_block());
    let after = EventControl::at("PreModelSwitch", &Version::parse("2.1.251"));
    assert!(after.permission_decision && after.can_block());
    let out = hook_output_at(
        "PreModelSwitch",
        &Version::parse("2.1.250"),
        &HookResult::block("no"),
    );
    assert_eq!(out.stdout, None);
    let pr = EventControl::of("PermissionRequest");
    assert!(pr.permission_request && pr.can_rewrite() && !pr.exit2_blocks);
    assert_eq!(pr.reason_to, "nobody");
    assert!(EventControl::of("NoSuchEvent").no_control);
}

#[test]
fn outcome_summary_is_one_line_when_the_reason_has_a_note() {
    let mut o = Outcome::new(Effect::Blocked);
    o.model_sees = Some("rm -rf is blocked here.\nAsk the user first.".into());
    o.user_sees = Some("blocked\n an rm -rf".into());
    assert_eq!(
        o.summary(),
        "blocked — the model is told: rm -rf is blocked here. Ask the user first. — the user sees: blocked an rm -rf"
    );
}
