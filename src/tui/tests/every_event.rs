//! `B` without a rule set: your hooks over every event, after a plan and a
//! confirmation; Enter on an example jumps to its call. With `--against`:
//! two rule sets compared.

use super::*;
use crate::tui::every_event::Phase;

const C2: &str = "tests/corpus/real-cc-2.1.332/hooks_c2_exit2";

/// A settings file whose one PreToolUse handler (Bash) blocks the calls
/// that run `echo` (exit 2), and the marker file it would write when run
/// with writes not confined (its event's HOME otherwise: nothing outside).
fn blocking_settings(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let marker = dir.join("ran");
    let script = dir.join("guard.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ninput=$(cat)\ntouch {} 2>/dev/null\ncase \"$input\" in *'\"command\":\"echo'*) echo 'no echo' >&2; exit 2;; esac\nexit 0\n",
            marker.display()
        ),
    )
    .expect("script");
    let settings = dir.join("settings.json");
    std::fs::write(
        &settings,
        serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": format!("sh {}", script.display())}]}]}})
        .to_string(),
    )
    .expect("settings");
    (settings, marker)
}

#[test]
fn your_hooks_over_every_event_ask_first_then_report_and_jump() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (settings, marker) = blocking_settings(dir.path());
    let mut app = app_for(C2);
    app.ctx.settings = vec![settings.clone()];
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    assert_eq!(app.overlay, Some(Overlay::EveryEvent));
    assert_eq!(app.every_event.phase, Phase::Confirm { handler_runs: 6 });
    assert!(!marker.exists(), "a hook ran before Enter");
    let text: Vec<&str> = app
        .every_event
        .lines
        .iter()
        .map(|l| l.text.as_str())
        .collect();
    assert!(
        text[0].starts_with("Nothing runs until you press Enter"),
        "{text:?}"
    );
    assert_eq!(
        text[2],
        "plan: 1 handler × 6 events ≈ 6 handler runs (0 answered from identical events) in 1 session"
    );
    assert!(
        text.last()
            .is_some_and(|l| l.starts_with("Nothing runs until you press Enter")),
        "{text:?}"
    );
    // What the kernel allows differs between machines: checked here, then
    // left out of the snapshot.
    let kernel = |l: &str| {
        l.starts_with("  protection: no network")
            || l.starts_with("  protection: writes confined")
            || l.starts_with("  not in force: ")
    };
    assert_eq!(
        text.iter().filter(|l| kernel(l)).count(),
        2,
        "network and writes, in force or not: {text:?}"
    );
    let plan = app.every_event.lines.clone();
    app.every_event.lines.retain(|l| !kernel(&l.text));
    // The temporary folder's name is random, its length is not.
    let tmp = dir.path().display().to_string();
    let screen = render(&mut app, 100, 30).replace(&tmp, &format!("{:<w$}", "/TMP", w = tmp.len()));
    insta::assert_snapshot!("every_event_plan_100x30", screen);
    app.every_event.lines = plan;
    // Enter runs; the report replaces the plan. With writes confined the
    // hook could not leave its marker.
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        marker.exists(),
        hookscope_core::hooks::exec::write_confinement_available().is_err()
    );
    assert_eq!(app.every_event.phase, Phase::Done);
    let text: Vec<String> = app
        .every_event
        .lines
        .iter()
        .map(|l| l.text.clone())
        .collect();
    assert_eq!(
        text[0],
        "ran your hooks on 6 events in 1 session: 6 handler runs (0 answered from identical events)"
    );
    // The echo calls were not blocked then: new blocks, each with its --at.
    let first = app
        .every_event
        .lines
        .iter()
        .position(|l| l.target.is_some())
        .expect("an example");
    let target = app.every_event.lines[first].target.clone().expect("target");
    let id = target.at.clone().expect("at");
    assert!(id.starts_with("toolu_"), "{id}");
    assert!(
        text.iter().any(|l| l.starts_with(
            "  new blocks (blocked now, not then: review them; false blocks hide here): "
        )),
        "{text:?}"
    );
    let screen = render(&mut app, 100, 30).replace(&tmp, &format!("{:<w$}", "/TMP", w = tmp.len()));
    insta::assert_snapshot!("every_event_report_100x30", screen);
    // The report opens on its first example.
    assert_eq!(app.every_event.sel, first);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.overlay, None, "{:?}", app.ctx.message);
    assert_eq!(app.view, View::Browse);
    let selected = app
        .timeline
        .selected_call(&app.ctx)
        .map(|c| c.tool_use_id.clone());
    assert_eq!(selected.as_deref(), Some(id.as_str()));
}

#[test]
fn esc_at_the_plan_runs_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (settings, marker) = blocking_settings(dir.path());
    let mut app = app_for(C2);
    app.ctx.settings = vec![settings];
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    assert!(app.every_event.confirming());
    assert_eq!(app.key_mode(), crate::tui::keymap::KeyMode::Search);
    // j scrolls the plan; it runs nothing.
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.every_event.sel, 1);
    assert!(app.every_event.confirming());
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, None);
    assert_eq!(app.ctx.message.as_deref(), Some("cancelled: nothing ran"));
    assert!(!marker.exists());
    // `n` cancels too.
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.overlay, None);
    assert!(!marker.exists());
}

/// Settings that reach nothing: the plan says so and offers nothing to run.
#[test]
fn a_plan_that_reaches_nothing_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        r#"{"hooks": {"PreToolUse": [{"matcher": "WebFetch", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
    )
    .expect("settings");
    let mut app = app_for(C2);
    app.ctx.settings = vec![settings];
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    assert_eq!(app.every_event.phase, Phase::NothingToRun);
    assert_eq!(
        app.every_event.lines.last().map(|l| l.text.as_str()),
        Some("nothing to run: no recorded event reaches a handler of your hooks")
    );
    assert_eq!(app.status().left, "Your hooks › nothing to run · Esc close");
}

/// `--rules A --against B`: `B` lists the events the two sets decide
/// differently. The example set blocks `rm -rf build/` (six calls in the
/// corpus); an empty set blocks nothing, so all six are no longer blocked.
#[test]
fn against_lists_what_two_rule_sets_decide_differently() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty.toml");
    std::fs::write(&empty, "").expect("write");
    let mut app = app_for(CORPUS);
    app.ctx.rules = crate::tui::context::Rules::load(std::path::Path::new(EXAMPLE_RULES));
    app.ctx.against = crate::tui::context::Rules::load(&empty);
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    assert_eq!(app.overlay, Some(Overlay::EveryEvent));
    assert_eq!(app.every_event.phase, Phase::Done);
    let text: Vec<&str> = app
        .every_event
        .lines
        .iter()
        .map(|l| l.text.as_str())
        .collect();
    assert!(
        text.contains(&"no longer blocked (A blocked, B does not): 6"),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|l| l.starts_with("    A: block (no-rm-rf) · B: ")),
        "{text:?}"
    );
}
