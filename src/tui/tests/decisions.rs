//! The live hook's logged decisions beside their calls: the timeline's `§`
//! mark and Detail's "Rules, live" section (docs/live-hook.md).

use super::*;

const C2: &str = "tests/corpus/real-cc-2.1.332/hooks_c2_exit2/projects/-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl";
const RM_RF: &str = "toolu_01GFEgALJm405nI2WctBocud";

/// A decision as `hookscope hook` logs it on the rm -rf call, its rule file
/// changed since.
fn logged() -> hookscope_core::hooks::decisions::Logged {
    let entry = serde_json::json!({
        "time": "2026-11-29T18:00:04.950Z", "agent": "claude-code",
        "session_id": "e1be136e-e2ee-4f2f-bdb9-5cd3211001fb", "event": "PreToolUse",
        "tool_use_id": RM_RF, "tool_name": "Bash", "transcript_path": null,
        "rules": {"path": "/home/dev/rules.toml", "sha256": "40b9fcd8"},
        "verdict": "block",
        "matched": [{"id": "no-rm-rf", "verdict": "block",
            "why": "event PreToolUse ✓ · tool Bash ✓ · program = \"rm\" ✓ (rm -rf build/)"}],
        "output": {"exit_code": 0, "stdout": null, "stderr": "\u{1b}]0;x\u{7}"},
        "failure": null, "duration_ms": 5.9
    });
    let mut l = hookscope_core::hooks::decisions::Logged::of(&entry).expect("an entry");
    l.rules_now = hookscope_core::hooks::decisions::RulesNow::Changed;
    l
}

/// C2 opened, with `decisions` logged for its rm -rf call, as session
/// `index` of the app.
fn opened_with(decisions: Vec<hookscope_core::hooks::decisions::Logged>, index: usize) -> App {
    let mut app = opened(C2);
    let mut decided = crate::tui::context::Decided::new();
    decided.insert(RM_RF.to_string(), decisions);
    app.apply(Msg::Decisions {
        index,
        decisions: decided,
        events: Vec::new(),
    });
    assert!(app.timeline.select_call(RM_RF, &app.ctx));
    app
}

#[test]
fn a_logged_decision_marks_its_call_and_shows_its_whys_in_detail() {
    let mut app = opened_with(vec![logged()], 0);
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("Bash ✗ § block ⛔ hook blocked"),
        "{screen}"
    );
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    let detail = detail_text(&app);
    let at = detail
        .iter()
        .position(|l| l == "── Rules, live (hookscope hook) ──")
        .expect("a Rules, live section");
    // Wrapped to the pane: the section's rows joined.
    let section = detail[at + 1..].concat();
    assert!(
        section.starts_with(concat!(
            "2026-11-29T18:00:04.950Z PreToolUse block",
            "rules: /home/dev/rules.toml (changed since: a replay today may differ)",
            "answer: exit 0",
            // The OSC the log carried is shown as its escape, inert.
            "stderr: \\x1b]0;x\\x07",
            "  ✓ no-rm-rf → block: event PreToolUse ✓ · tool Bash ✓ · program = \"rm\" ✓ (rm -rf build/)",
        )),
        "{section}"
    );
    insta::assert_snapshot!("detail_logged_decision_160x48", render(&mut app, 160, 48));
}

/// A decision for another session's call, or none at all: no mark.
#[test]
fn decisions_of_another_session_are_not_shown() {
    let mut app = opened_with(vec![logged()], 7);
    let screen = render(&mut app, 160, 48);
    assert!(!screen.contains("§"), "{screen}");
}

/// A decision logged with the call's digest marks it; one with the same
/// ids but another input's digest (a payload edited and replayed by hand
/// through `hook`) does not, and Detail has no "Rules, live" section.
#[test]
fn a_decision_on_another_input_with_the_same_ids_is_not_this_calls() {
    let input = serde_json::json!({"command": "rm -rf build/",
        "description": "Remove the build directory"});
    let same = hookscope_core::tools::tool_digest("Bash", Some(&input)).expect("digest");
    let mut matching = logged();
    matching.digest = Some(same);
    let mut app = opened_with(vec![matching], 0);
    assert!(
        render(&mut app, 160, 48).contains("Bash ✗ § block ⛔ hook blocked"),
        "the call's own digest"
    );
    let mut other = logged();
    other.digest = Some(
        hookscope_core::tools::tool_digest(
            "Bash",
            Some(&serde_json::json!({"command": "rm -rf dist/"})),
        )
        .expect("digest"),
    );
    let mut app = opened_with(vec![other], 0);
    let screen = render(&mut app, 160, 48);
    assert!(!screen.contains("§"), "{screen}");
    key(&mut app, KeyCode::Enter);
    let detail = detail_text(&app);
    assert!(
        !detail.iter().any(|l| l.contains("Rules, live")),
        "{detail:?}"
    );
}

/// A decision logged days after its call (its payload replayed by hand
/// into `hookscope hook`: same ids, same input) is not the live hook's on
/// that call: no `§`, no "Rules, live"; five minutes before it neither.
#[test]
fn a_decision_logged_far_from_its_call_is_not_the_calls() {
    for time in ["2026-12-02T18:00:04.950Z", "2026-11-29T17:50:00.000Z"] {
        let mut late = logged();
        late.time = time.into();
        let mut app = opened_with(vec![late], 0);
        let screen = render(&mut app, 160, 48);
        assert!(!screen.contains("§"), "{time}: {screen}");
        key(&mut app, KeyCode::Enter);
        let detail = detail_text(&app);
        assert!(
            !detail.iter().any(|l| l.contains("Rules, live")),
            "{time}: {detail:?}"
        );
    }
    // A day later is still within the window (a long subagent call).
    let mut later = logged();
    later.time = "2026-11-30T17:00:00.000Z".into();
    let mut app = opened_with(vec![later], 0);
    assert!(render(&mut app, 160, 48).contains("§"));
}

/// A decision in which no rule acted (`none`: the installed matcher is
/// wider than the rules) leaves its call unmarked.
#[test]
fn a_none_decision_is_not_marked() {
    let mut none = logged();
    none.verdict = "none".into();
    none.matched.clear();
    let mut app = opened_with(vec![none], 0);
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("Bash ✗ ⛔ hook blocked rm -rf build/"),
        "{screen}"
    );
}

/// `H` (hook activity only) keeps a call no recorded hook acted on but
/// your rules decided live.
#[test]
fn hook_activity_only_keeps_the_calls_your_rules_decided() {
    const ECHO: &str = "toolu_01iZZmNIegRYHeEO8XWQDf7M";
    let mut app = opened(C2);
    let mut warn = logged();
    warn.verdict = "warn".into();
    warn.tool_use_id = Some(ECHO.to_string());
    let mut decided = crate::tui::context::Decided::new();
    decided.insert(ECHO.to_string(), vec![warn]);
    app.apply(Msg::Decisions {
        index: 0,
        decisions: decided,
        events: Vec::new(),
    });
    app.focus = Pane::Timeline;
    key(&mut app, KeyCode::Char('H'));
    assert!(app.timeline.hooks_only);
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("Bash § warn echo original command"),
        "{screen}"
    );
}

const C8: &str = "tests/corpus/real-cc-2.1.332/hooks_c8_outcomes/projects/-home-dev-work-hooks-c8-outcomes/07535b09-1bbd-4e99-9cf4-3c8d232c7d4f.jsonl";

/// A logged decision on an event that is not a call, as `hookscope hook`
/// writes it: `transcript_bytes` is where the transcript ended then.
fn event_decision(
    event: &str,
    verdict: &str,
    rule: &str,
    after_line: usize,
) -> crate::tui::context::EventDecision {
    let entry = serde_json::json!({
        "time": "2026-12-03T04:35:20.000Z", "agent": "claude-code",
        "session_id": "07535b09-1bbd-4e99-9cf4-3c8d232c7d4f", "event": event,
        "tool_use_id": null, "tool_name": null, "transcript_bytes": 1,
        "rules": {"path": "/home/dev/rules.toml", "sha256": "40b9fcd8"},
        "verdict": verdict,
        "matched": [{"id": rule, "verdict": verdict, "why": format!("event {event} ✓")}],
        "output": {"exit_code": 0, "stdout": null, "stderr": ""},
        "failure": null, "duration_ms": 3.1
    });
    crate::tui::context::EventDecision {
        logged: hookscope_core::hooks::decisions::Logged::of(&entry).expect("an entry"),
        after_line,
        in_turn: None,
        other_file: None,
    }
}

/// A Stop decision logged days after its turn (turn 3's Stop payload
/// piped into `hookscope hook` by hand: the whole file was written then,
/// so it lands after the last line) is not the live hook's: no turn gets
/// it, no `§`.
#[test]
fn an_event_decision_logged_days_later_marks_no_turn() {
    let mut app = opened(C8);
    let mut late = event_decision("Stop", "block", "late-stop", 100);
    late.logged.time = "2026-12-06T16:00:00.000Z".into();
    app.apply(Msg::Decisions {
        index: 0,
        decisions: Default::default(),
        events: vec![
            late,
            event_decision("Stop", "block", "tests-before-stop", 100),
        ],
    });
    let turns: Vec<Option<usize>> = app.ctx.event_decisions.iter().map(|d| d.in_turn).collect();
    assert_eq!(turns, [None, Some(2)]);
    let screen = render(&mut app, 160, 48);
    assert_eq!(screen.matches("§ block on Stop").count(), 1, "{screen}");
}

/// c8's first turn ends with a Stop (anchored at line 57) and its third
/// opens with a prompt on line 82: a Stop decision logged when the file
/// held 57 lines belongs to turn 1, a UserPromptSubmit decision logged
/// when it held 81 to turn 3 (the prompt is written after that hook runs).
/// Each turn row carries `§ <verdict> on <event>` and its Detail lists the
/// decision with its whys.
#[test]
fn decisions_on_events_that_are_not_calls_mark_their_turn() {
    let mut app = opened(C8);
    app.apply(Msg::Decisions {
        index: 0,
        decisions: Default::default(),
        events: vec![
            event_decision("Stop", "block", "tests-before-stop", 57),
            event_decision("UserPromptSubmit", "context", "deploys-use-make", 81),
            crate::tui::context::EventDecision {
                other_file: Some("/elsewhere/copy.jsonl".to_string()),
                ..event_decision("Stop", "none", "tests-before-stop", 57)
            },
        ],
    });
    let turns: Vec<Option<usize>> = app.ctx.event_decisions.iter().map(|d| d.in_turn).collect();
    assert_eq!(turns, [Some(0), Some(2), Some(0)]);
    let screen = render(&mut app, 160, 48);
    let row = |n: usize| {
        screen
            .lines()
            .find(|l| l.contains(&format!("turn {n} ")))
            .unwrap_or_default()
            .to_string()
    };
    assert!(row(1).contains("§ block on Stop"), "{screen}");
    assert!(!row(2).contains('§'), "{screen}");
    assert!(row(3).contains("§ context on UserPromptSubmit"), "{screen}");
    app.focus = Pane::Timeline;
    key(&mut app, KeyCode::Char('g'));
    let detail = detail_text(&app);
    assert!(
        detail
            .iter()
            .any(|l| l == "── Rules, live on its events (hookscope hook) ──"),
        "{detail:#?}"
    );
    assert!(
        detail.iter().any(|l| l.contains("Stop, after line 57")),
        "{detail:#?}"
    );
    assert!(
        detail
            .iter()
            .any(|l| l.contains("✓ tests-before-stop → block: event Stop ✓")),
        "{detail:#?}"
    );
    // One logged for a copy of the session (same id) says so.
    assert!(
        detail
            .iter()
            .any(|l| l.starts_with("logged for: /elsewhere/copy.jsonl (not this file: placed by")),
        "{detail:#?}"
    );
    // `H` (where a hook acted) keeps the turns your rules decided.
    key(&mut app, KeyCode::Char('H'));
    let screen = render(&mut app, 160, 48);
    assert!(
        screen
            .lines()
            .any(|l| l.contains("turn 1 ") && l.contains("§ block on Stop")),
        "{screen}"
    );
    assert!(
        screen
            .lines()
            .any(|l| l.contains("turn 3 ") && l.contains("§ context on UserPromptSubmit")),
        "{screen}"
    );
    assert!(!screen.lines().any(|l| l.contains("turn 2 ")), "{screen}");
}
