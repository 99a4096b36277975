//! The replay pane (`r`): events and the rules' why,
//! `y`/`Y`/`w`, test cases, rule-set errors and warnings, a turn's Stops;
//! on a Codex session.

use super::*;

const DENY: &str = "tests/corpus/real-cc-2.1.332/hooks_c3_deny_json/projects/-home-dev-work-hooks-c3-deny-json/f887d501-79d2-484e-916a-82bc1a5c1146.jsonl";

/// The `rm -rf build/` call a test hook denied (line 44 of [`DENY`]).
const RM_RF: &str = "toolu_0138h77ojpT1t3A4y1yWKgjr";

/// The deny session opened, with `rules` loaded (as `--rules` does), a
/// captured clipboard, and the replay pane open on the `rm -rf` call.
fn replay_on_rm_rf(rules: Option<&str>) -> (App, crate::tui::clipboard::Captured) {
    let mut app = opened(DENY);
    if let Some(path) = rules {
        app.ctx.rules = crate::tui::context::Rules::load(std::path::Path::new(path));
    }
    let captured = crate::tui::clipboard::Captured::default();
    app.clipboard = Box::new(captured.clone());
    assert!(
        app.timeline.select_call(RM_RF, &app.ctx),
        "the call is in the timeline"
    );
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(app.overlay, Some(Overlay::Replay));
    (app, captured)
}

fn rm_rf_payload(app: &App) -> hookscope_core::hooks::events::Payload {
    let session = app.ctx.session().expect("loaded");
    hookscope_core::hooks::events::payload(
        session,
        hookscope_core::hooks::events::EventName::PreToolUse,
        &hookscope_core::hooks::events::At::ToolUseId(RM_RF.into()),
    )
    .expect("a PreToolUse payload")
}

#[test]
fn replay_pane_picks_events_and_shows_the_rules_why() {
    use hookscope_core::hooks::events::{At, EventName, events_at};
    let (mut app, _) = replay_on_rm_rf(Some(EXAMPLE_RULES));
    let session = app.ctx.session().cloned().expect("loaded");
    // The picker lists what events_at gives for the call, PreToolUse first.
    let want = events_at(&session, &At::ToolUseId(RM_RF.into()));
    assert_eq!(app.replay.events, want);
    assert_eq!(app.replay.picked(), Some(EventName::PreToolUse));
    assert_eq!(app.replay.label, format!("Bash {RM_RF}"));
    let Some(Ok(r)) = &app.replay.result else {
        panic!("replayed: {:?}", app.replay.result)
    };
    let e = r.evaluation.as_ref().expect("rules loaded");
    // example.toml's no-rm-rf blocks `rm -rf build/`; the set's decision is block.
    let rule = e.rules.iter().find(|x| x.id == "no-rm-rf").expect("rule");
    assert!(rule.matched, "{}", rule.why());
    assert_eq!(e.verdict(), "block");
    // j moves to the next event and replays it; k comes back.
    if want.len() > 1 {
        key(&mut app, KeyCode::Char('j'));
        assert_eq!(app.replay.picked(), Some(want[1]));
        key(&mut app, KeyCode::Char('k'));
    }
    assert_eq!(app.replay.picked(), Some(EventName::PreToolUse));
    // Esc closes.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, None);
}

#[test]
fn replay_y_copies_the_masked_payload() {
    let (mut app, captured) = replay_on_rm_rf(Some(EXAMPLE_RULES));
    key(&mut app, KeyCode::Char('y'));
    let built = rm_rf_payload(&app);
    let mut counts = hookscope_core::redact::Redactions::default();
    let masked = hookscope_core::redact::redactor().redact_value(&built.json, &mut counts);
    // One line, as Claude Code sends it and `hookscope payload` prints it.
    let want = serde_json::to_string(&masked).expect("json") + "\n";
    let copied = captured.copied.lock().expect("lock").clone();
    assert_eq!(copied, vec![want.clone()]);
    assert_eq!(want.lines().count(), 1);
    assert!(want.contains("\"command\":\"rm -rf build/\""), "{want}");
    assert!(want.contains(&format!("\"tool_use_id\":\"{RM_RF}\"")));
    assert_eq!(
        app.ctx.message.as_deref(),
        Some(
            format!(
                "copied PreToolUse payload ({}) via test clipboard",
                crate::tui::replay::size_text(want.len())
            )
            .as_str()
        )
    );
}

#[test]
fn replay_shift_y_copies_a_test_case_that_hookscope_test_passes() {
    let (mut app, captured) = replay_on_rm_rf(Some(EXAMPLE_RULES));
    key_mod(&mut app, KeyCode::Char('Y'), KeyModifiers::SHIFT);
    let copied = captured.copied.lock().expect("lock").clone();
    let case = copied.first().expect("copied").clone();
    assert!(case.contains("[[tests]]\n"), "{case}");
    assert!(
        case.contains("event = \"PreToolUse\"\ntool = \"Bash\"\n"),
        "{case}"
    );
    assert!(case.contains("command = \"rm -rf build/\""), "{case}");
    assert!(case.ends_with("expect = \"block\"\n"), "{case}");
    // Appended to the rule file it came from (a copy beside it, so its
    // payload paths resolve), `hookscope test` passes it.
    let rules = std::fs::read_to_string(EXAMPLE_RULES).expect("example rules");
    let copy = tempfile::Builder::new()
        .suffix(".toml")
        .tempfile_in("assets/rules")
        .expect("temp file");
    std::fs::write(copy.path(), format!("{rules}\n{case}")).expect("write");
    let set = hookscope_core::hooks::rules::RuleSet::load(copy.path()).expect("the case parses");
    let results = set.run_tests();
    let last = results.last().expect("cases");
    assert_eq!(last.name, case_name(&case));
    assert_eq!(
        (last.expected.as_str(), last.got.as_str()),
        ("block", "block")
    );
    assert!(results.iter().all(|r| r.passed), "{results:?}");
}

fn case_name(case: &str) -> String {
    let line = case
        .lines()
        .find_map(|l| l.strip_prefix("name = "))
        .expect("a name line");
    line.trim_matches('"').to_string()
}

#[test]
fn replay_test_case_without_rules_has_no_expect() {
    let (mut app, captured) = replay_on_rm_rf(None);
    key_mod(&mut app, KeyCode::Char('Y'), KeyModifiers::SHIFT);
    let case = captured.copied.lock().expect("lock")[0].clone();
    assert!(!case.contains("expect ="), "{case}");
    assert!(
        case.contains("# no expect: no rule set is loaded (run `hookscope --rules FILE`)"),
        "{case}"
    );
    assert!(
        app.ctx
            .message
            .as_deref()
            .is_some_and(|m| m.contains("no expect: no rules loaded"))
    );
}

#[test]
fn replay_w_writes_the_payload_and_asks_before_overwriting() {
    let (mut app, _) = replay_on_rm_rf(None);
    key(&mut app, KeyCode::Char('w'));
    let prompt = app.replay.prompt.clone().expect("prompt open");
    assert_eq!(prompt.path, format!("./PreToolUse-{RM_RF}.json"));
    // The prompt takes characters (q does not quit while typing).
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("p.json");
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, &path.display().to_string());
    key(&mut app, KeyCode::Enter);
    assert!(app.replay.prompt.is_none());
    let want = app.replay.payload_line().expect("payload");
    assert_eq!(std::fs::read_to_string(&path).expect("written"), want);
    assert!(
        app.ctx
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("wrote PreToolUse payload ("))
    );
    // Again to the same path: the first Enter asks, the second overwrites.
    std::fs::write(&path, "old").expect("write");
    key(&mut app, KeyCode::Char('w'));
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, &path.display().to_string());
    key(&mut app, KeyCode::Enter);
    let p = app.replay.prompt.clone().expect("still open");
    assert_eq!(
        p.error.as_deref(),
        Some("exists: Enter again to overwrite, Esc to cancel")
    );
    assert_eq!(std::fs::read_to_string(&path).expect("kept"), "old");
    key(&mut app, KeyCode::Enter);
    assert_eq!(std::fs::read_to_string(&path).expect("overwritten"), want);
    // A folder gets the default file name inside it, and the status bar
    // says which file was written.
    key(&mut app, KeyCode::Char('w'));
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, &dir.path().display().to_string());
    key(&mut app, KeyCode::Enter);
    assert!(app.replay.prompt.is_none());
    let inside = dir.path().join(format!("PreToolUse-{RM_RF}.json"));
    assert_eq!(std::fs::read_to_string(&inside).expect("written"), want);
    let said = app.ctx.message.clone().unwrap_or_default();
    assert!(
        said.ends_with(&format!("to {}", inside.display())),
        "{said}"
    );
    // Again: that file now exists, so it asks first; a special file is
    // refused; Esc cancels.
    key(&mut app, KeyCode::Char('w'));
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, &dir.path().display().to_string());
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.replay.prompt.as_ref().and_then(|p| p.error.as_deref()),
        Some("exists: Enter again to overwrite, Esc to cancel")
    );
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, "/dev/null");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.replay.prompt.as_ref().and_then(|p| p.error.as_deref()),
        Some("not a regular file; type another path")
    );
    key(&mut app, KeyCode::Esc);
    assert!(app.replay.prompt.is_none());
    assert_eq!(app.overlay, Some(Overlay::Replay));
}

#[test]
fn replay_from_the_calls_view_jumps_then_opens() {
    let mut app = app_for(DENY);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, r#"input:"rm -rf""#);
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.calls.selected().map(|c| c.tool_use_id.as_str()),
        Some(RM_RF)
    );
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(app.view, View::Browse);
    assert_eq!(app.overlay, Some(Overlay::Replay));
    assert_eq!(app.replay.label, format!("Bash {RM_RF}"));
}

#[test]
fn replay_needs_an_open_session() {
    let mut app = app_for(DENY);
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(app.overlay, None);
    assert_eq!(
        app.ctx.message.as_deref(),
        Some("open a session first (Enter), then r on a call, turn or the session")
    );
    // Opened, then back on the Sessions pane: the whole session.
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Sessions);
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(app.overlay, Some(Overlay::Replay));
    assert_eq!(app.replay.at, Some(hookscope_core::hooks::events::At::Last));
    let session = app.ctx.session().cloned().expect("loaded");
    assert_eq!(
        app.replay.events,
        hookscope_core::hooks::events::events_at(
            &session,
            &hookscope_core::hooks::events::At::Last
        )
    );
}

#[test]
fn snapshot_replay_pane() {
    let (mut app, _) = replay_on_rm_rf(Some(EXAMPLE_RULES));
    insta::assert_snapshot!("replay_rules_80x24", render_replay(&mut app, 80, 24));
    insta::assert_snapshot!("replay_rules_160x48", render_replay(&mut app, 160, 48));
    let (mut app, _) = replay_on_rm_rf(None);
    insta::assert_snapshot!("replay_no_rules_80x24", render_replay(&mut app, 80, 24));
    insta::assert_snapshot!("replay_no_rules_160x48", render_replay(&mut app, 160, 48));
    let (mut app, _) = replay_on_rm_rf(Some("tests/fixtures/tui_bad_rules.toml"));
    insta::assert_snapshot!("replay_bad_rules_80x24", render_replay(&mut app, 80, 24));
    key(&mut app, KeyCode::Char('w'));
    insta::assert_snapshot!("replay_write_prompt_80x24", render_replay(&mut app, 80, 24));
}

/// Paging at 80x24, where the example rules' whys wrap over many rows:
/// each PgDn moves by what was on screen, so every section heading is
/// seen on some page; the corner says where the view is; PgUp comes back
/// to the top.
#[test]
fn paging_the_replay_at_80x24_skips_no_section() {
    let (mut app, _) = replay_on_rm_rf(Some(EXAMPLE_RULES));
    let mut screens = vec![render_replay(&mut app, 80, 24)];
    for _ in 0..40 {
        key(&mut app, KeyCode::PageDown);
        let screen = render_replay(&mut app, 80, 24);
        if screens.last() == Some(&screen) {
            break;
        }
        screens.push(screen);
    }
    assert!(screens.len() >= 3, "{}", screens.len());
    for heading in ["Rules", "Decision", "Outcome", "Payload"] {
        assert!(
            screens
                .iter()
                .any(|s| s.lines().any(|l| l.contains(&format!(" {heading}")))),
            "{heading} never on screen"
        );
    }
    assert!(screens[0].contains("rows 1–21 of 83"), "{}", screens[0]);
    assert!(!screens.last().expect("screens").contains("rows 1–"));
    for _ in 0..40 {
        key(&mut app, KeyCode::PageUp);
    }
    assert_eq!(render_replay(&mut app, 80, 24), screens[0]);
}

#[test]
fn bad_rules_file_lists_its_errors_in_the_pane() {
    let (app, _) = replay_on_rm_rf(Some("tests/fixtures/tui_bad_rules.toml"));
    let crate::tui::context::Rules::Failed { errors, .. } = &app.ctx.rules else {
        panic!("refused")
    };
    assert_eq!(errors.len(), 2);
    assert!(errors[0].starts_with(
        "tests/fixtures/tui_bad_rules.toml:5:10: rule `no-reason` blocks without a `reason`"
    ));
    assert_eq!(
        errors[1],
        "tests/fixtures/tui_bad_rules.toml:13:11: bad regex \"rm ((\": unclosed group"
    );
    // The pane still replays the payload.
    assert!(matches!(&app.replay.result, Some(Ok(r)) if r.evaluation.is_none()));
}

#[test]
fn test_case_of_a_hostile_payload_parses_back() {
    use hookscope_core::hooks::rules::{History, RuleSet};
    // A null (no TOML form), quotes, a newline, a non-ASCII key, a nested
    // list: the case still parses, and its decision is the rules'.
    let payload = serde_json::json!({
        "session_id": "s",
        "cwd": "/p",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf \"a b\"\necho 'x'", "timeout": null, "ключ": [1, null, {"z": true}]},
    });
    let history = History {
        ran_commands: vec!["cargo test".into()],
        ..History::default()
    };
    let rules = RuleSet::load(std::path::Path::new(EXAMPLE_RULES)).expect("rules");
    let case = crate::tui::replay::test_case(&payload, &history, Some(&rules), "x.jsonl line 1");
    assert!(
        case.contains("# left out (null has no TOML form): tool_input.timeout, tool_input.ключ[1]"),
        "{case}"
    );
    let parsed = RuleSet::parse(&case, "case.toml").expect("parses");
    let t = &parsed.tests[0];
    assert_eq!(
        t.payload["tool_input"]["command"],
        "rm -rf \"a b\"\necho 'x'"
    );
    assert_eq!(t.history, history);
    let want = rules.evaluate(&t.payload, &t.history).verdict();
    assert_eq!(t.expect, want);
    assert_eq!(want, "block");
}

/// c8435c6b (`hooks_c5_stop_block`): Stop fires twice in its one turn, at
/// line 75 (the real hook blocked it: stop_hook_active false) and at line 82
/// (stop_hook_active true). The replay pane on the turn lists both, and
/// replays the one picked.
#[test]
fn replay_pane_on_a_turn_lists_both_stops_and_replays_the_picked_one() {
    use hookscope_core::hooks::events::{At, EventName};
    const C5: &str = "tests/corpus/real-cc-2.1.332/hooks_c5_stop_block/projects/-home-dev-work-hooks-c5-stop-block/c8435c6b-9aae-401c-ba5f-97def3faba72.jsonl";
    let mut app = opened(C5);
    app.replay.open(At::Turn(1), "turn 1".into(), &app.ctx);
    app.overlay = Some(Overlay::Replay);
    let stops: Vec<(usize, String, At)> = (0..app.replay.events.len())
        .filter(|&i| app.replay.events[i] == EventName::Stop)
        .map(|i| (i, app.replay.entry_label(i), app.replay.ats[i].clone()))
        .collect();
    assert_eq!(
        stops
            .iter()
            .map(|(_, l, a)| (l.as_str(), a.clone()))
            .collect::<Vec<_>>(),
        [
            ("Stop (line 75)", At::Line(75)),
            ("Stop (line 82)", At::Line(82))
        ]
    );
    // Each call's firing is its own entry: the turn's 13 tool_use blocks
    // (12 in the main file, 1 in agent-ab7c2c7a0f676372d.jsonl) give 13
    // PreToolUse entries, each with its call's line.
    let labels: Vec<String> = (0..app.replay.events.len())
        .map(|i| app.replay.entry_label(i))
        .collect();
    let pre: Vec<&String> = labels
        .iter()
        .filter(|l| l.starts_with("PreToolUse"))
        .collect();
    assert_eq!(pre.len(), 13);
    assert_eq!(pre[0], "PreToolUse (line 22)");
    assert_eq!(pre[10], "PreToolUse (sub line 15)");
    // An event listed once keeps its bare name.
    assert!(labels.iter().any(|l| l == "UserPromptSubmit"), "{labels:?}");
    let stop_hook_active = |app: &App| match &app.replay.result {
        Some(Ok(r)) => (
            r.payload.json["stop_hook_active"].clone(),
            r.payload.source_line,
        ),
        other => panic!("replayed: {other:?}"),
    };
    // Walk down to the first Stop, then the second.
    while app.replay.sel < stops[0].0 {
        key(&mut app, KeyCode::Char('j'));
    }
    assert_eq!(stop_hook_active(&app), (serde_json::json!(false), 75));
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.replay.sel, stops[1].0);
    assert_eq!(stop_hook_active(&app), (serde_json::json!(true), 82));
    // The picker shows both (scrolled to keep the picked one in view).
    let screen = render_replay(&mut app, 80, 40);
    assert!(screen.contains(" Stop (line 75) "), "{screen}");
    assert!(screen.contains(" Stop (line 82) "), "{screen}");
    // At 80x24 the widest entries (`PostToolBatch (sub line 15)`) fit the
    // picker, a blank column before the replay text.
    while app.replay.sel > 0 {
        key(&mut app, KeyCode::Char('k'));
    }
    while app.replay.entry_label(app.replay.sel) != "PostToolBatch (sub line 15)" {
        key(&mut app, KeyCode::Char('j'));
    }
    let screen = render_replay(&mut app, 80, 24);
    assert!(
        screen.contains(" PostToolBatch (sub line 15)  "),
        "{screen}"
    );
    insta::assert_snapshot!("replay_turn_picker_80x24", screen);
}

/// What the status bar says at start about `--rules`: nothing for the
/// example (it loads without warnings), the refusal with its count for a
/// bad file, and the first warning for a Stop block that would loop.
#[test]
fn rules_startup_message_names_a_refusal_or_the_warnings() {
    use crate::tui::context::Rules;
    use std::path::Path;
    assert_eq!(Rules::None.startup_message(), None);
    assert_eq!(
        Rules::load(Path::new(EXAMPLE_RULES)).startup_message(),
        None
    );
    assert_eq!(
        Rules::load(Path::new("tests/fixtures/tui_bad_rules.toml")).startup_message(),
        Some("--rules tests/fixtures/tui_bad_rules.toml: refused (2 problems); r shows why".into())
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("loop.toml");
    std::fs::write(
        &file,
        "[[rules]]\nid = \"gate\"\nevents = \"Stop\"\naction = \"block\"\nreason = \"run the tests first\"\n",
    )
    .expect("write");
    let message = Rules::load(&file).startup_message().expect("a warning");
    assert!(
        message.starts_with("--rules loaded with 1 warning (e.g. "),
        "{message}"
    );
    assert!(message.contains("stop_hook_active"), "{message}");
}

/// The replay pane lists the loaded rule set's warnings, as
/// `hookscope replay` prints them: here a Stop block that does not check
/// `stop_hook_active`.
#[test]
fn replay_pane_lists_the_rule_set_warnings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("r.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"stop\"\nevents = \"Stop\"\naction = \"block\"\nreason = \"go on\"\n",
    )
    .expect("write");
    let (mut app, _) = replay_on_rm_rf(Some(&rules.to_string_lossy()));
    let crate::tui::context::Rules::Loaded(set) = &app.ctx.rules else {
        panic!("loaded")
    };
    assert_eq!(set.warnings().len(), 1);
    let want = format!("⚠ {}", set.warnings()[0]);
    let (lines, _) = app.replay.lines(&app.ctx);
    let text: Vec<String> = lines.iter().map(ToString::to_string).collect();
    assert_eq!(text[0], "Rule set warnings (1)");
    assert_eq!(text[1], format!("  {want}"));
    assert!(want.contains("stop_hook_active"), "{want}");
    let screen = render_replay(&mut app, 160, 48);
    assert!(screen.contains("Rule set warnings (1)"), "{screen}");
}

// ---- the replay pane on a Codex session ------------------------------------

const CODEX_ROLLOUT: &str = "tests/corpus/real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl";

/// A Codex session's "Your hooks" come from the Codex home, judged by
/// Codex's matcher: `mcp__brave-search` is a regex there (no match on
/// Bash), `Bash|shell_command` exact; both untrusted in a home without
/// `[hooks.state]`, so neither runs and the reason says why.
#[test]
fn replay_pane_on_a_codex_session_uses_codex_hooks() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("hooks.json"),
        r#"{"hooks":{"PreToolUse":[
{"matcher":"Bash|shell_command","hooks":[{"type":"command","command":"echo guard"}]}]}}"#,
    )
    .expect("write");
    let mut app = app_for(CODEX_ROLLOUT);
    app.ctx.codex_home = Some(dir.path().to_path_buf());
    key(&mut app, KeyCode::Enter);
    select_call(&mut app, "exec_command");
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(app.overlay, Some(Overlay::Replay));
    let config = app
        .replay
        .hooks
        .as_ref()
        .map(|(_, c)| c.config().clone())
        .expect("loaded");
    assert_eq!(config.agent, hookscope_core::transcript::Agent::Codex);
    assert_eq!(app.replay.verdicts.len(), 1);
    let v = &app.replay.verdicts[0];
    assert!(!v.fires);
    assert!(
        v.reason.starts_with("never runs: not trusted"),
        "{}",
        v.reason
    );
    let (main, recorded) = app.replay.lines(&app.ctx);
    // A rollout records no hook activity: the column says so rather than
    // "no hook ran here".
    let recorded: Vec<String> = recorded.iter().map(ToString::to_string).collect();
    assert_eq!(
        recorded,
        [
            "Transcript recorded",
            "not read: Codex records no hook activity"
        ]
    );
    let text: Vec<String> = main.iter().map(ToString::to_string).collect();
    assert!(
        text.iter()
            .any(|l| l.starts_with("Your hooks (") && l.contains("hooks.json")),
        "{text:?}"
    );
    // A rule set applies to a Codex session too (answered as Codex reads
    // it): without one, the pane says how to load it.
    assert!(
        text.iter()
            .any(|l| l.starts_with("no rule set loaded: start with `hookscope --rules FILE")),
        "{text:?}"
    );
}

/// PageDown reaches the end of the replay however its lines wrap: at
/// 80x24 and at 80x70 (where its logical lines are fewer than the rows but
/// their wrapped rows are more) the last line of the record is on screen.
#[test]
fn replay_pane_scrolls_to_its_last_wrapped_line() {
    for height in [24u16, 70] {
        let (mut app, _) = replay_on_rm_rf(Some(EXAMPLE_RULES));
        render_replay(&mut app, 80, height);
        let (mut main, rec) = app.replay.lines(&app.ctx);
        main.extend(rec);
        let last = main
            .iter()
            .rev()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
            })
            .find(|t| !t.trim().is_empty())
            .expect("a last line");
        let tail: String = last.split_whitespace().last().expect("a word").to_string();
        for _ in 0..100 {
            key(&mut app, KeyCode::PageDown);
            render_replay(&mut app, 80, height);
        }
        let screen = render_replay(&mut app, 80, height);
        assert!(
            screen.contains(&tail),
            "at 80x{height}, {tail:?} (end of {last:?}) not on screen:\n{screen}"
        );
    }
}

/// OpenCode's hooks are in-process plugins fed no JSON: on an OpenCode call
/// the replay pane and `y` say that (not "no hook event applies", which
/// reads as a call no hook concerns). The bash call a hard kill left
/// `running` (real-opencode-1.18.33's README, "Hard kill") is marked
/// `(no result)` in the Calls list, as in the Timeline.
#[test]
fn an_opencode_call_says_why_it_has_no_payload_and_a_killed_one_has_no_result() {
    const KILLED: &str = "call_hlq9QR5kDsObgXfiNfSLRAVF";
    let mut app = app_for("tests/corpus/real-opencode-1.18.33");
    let captured = crate::tui::clipboard::Captured::default();
    app.clipboard = Box::new(captured.clone());
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:bash sleep");
    key(&mut app, KeyCode::Enter);
    let screen = render(&mut app, 160, 48);
    let marked: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("(no result)"))
        .collect();
    assert_eq!(marked.len(), 1, "{screen}");
    assert!(marked[0].contains("echo working; sleep 60"), "{screen}");
    // Enter on it opens it in its session's Timeline; `r` its replay. (A
    // newer call ran the same command and was aborted with a result.)
    let at = app
        .calls
        .records()
        .iter()
        .position(|r| r.tool_use_id == KILLED)
        .expect("listed");
    for _ in 0..at {
        key(&mut app, KeyCode::Char('j'));
    }
    key(&mut app, KeyCode::Enter);
    let session = app.ctx.session().cloned().expect("opened");
    let item = app.timeline.sel.expect("a selection");
    let call = crate::tui::timeline::event_of(&session, item)
        .and_then(|e| e.as_tool_call())
        .expect("a call");
    assert_eq!(call.tool_use_id, KILLED);
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(app.overlay, Some(Overlay::Replay));
    let text = render_replay(&mut app, 160, 48);
    assert!(
        text.contains("hook payloads are rebuilt for Claude Code, Codex and Droid sessions only"),
        "{text}"
    );
    assert!(!text.contains("no hook event applies"), "{text}");
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(
        app.ctx.message.as_deref(),
        Some("nothing to copy: OpenCode's hooks are plugins fed no JSON payload")
    );
    assert!(captured.copied.lock().expect("lock").is_empty());
}
