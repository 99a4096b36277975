//! The sessions list: its render, the fuzzy session search, its share of a
//! wide screen.

use super::*;

#[test]
fn snapshot_sessions() {
    let mut app = app_for(CORPUS);
    insta::assert_snapshot!("sessions_80x24", render(&mut app, 80, 24));
    insta::assert_snapshot!("sessions_160x48", render(&mut app, 160, 48));
}

#[test]
fn session_search_is_fuzzy_and_ranked() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('/'));
    // Letters in order across "tools" (project and prompt): a fuzzy hit.
    keys(&mut app, "tls");
    let rows = app.list.rows().to_vec();
    assert!(!rows.is_empty());
    let first = match rows.first() {
        Some(SessionRow::Session(i)) => app.ctx.sessions[*i].sref.id.clone(),
        other => panic!("expected a session row, got {other:?}"),
    };
    assert_eq!(first, "e71e9aa1-2571-47ab-8bf7-9e6efaaedfff");
    // No headers while filtering; an id prefix finds its session, and `^`
    // anchors at the start of the id (fields are matched one by one).
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    assert_eq!(app.list.filter, "");
    keys(&mut app, "^8bb2dece");
    let rows = app.list.rows().to_vec();
    assert_eq!(rows.len(), 1);
    assert!(matches!(rows[0], SessionRow::Session(_)));
    assert_eq!(
        app.list.sel.map(|i| app.ctx.sessions[i].sref.id.as_str()),
        Some("8bb2dece-a24f-43d4-80d6-3ee9a889b550")
    );
}

#[test]
fn the_session_list_takes_a_larger_share_from_180_columns() {
    let rect = |w| ratatui::layout::Rect::new(0, 0, w, 50);
    let width = |w| {
        crate::tui::app::areas(rect(w), Pane::Sessions, false)
            .sessions
            .map(|r| r.width)
    };
    assert_eq!(width(160), Some(42)); // 26 %
    assert_eq!(width(200), Some(60)); // 30 %
    assert_eq!(width(100), Some(45)); // two panes, 45 %
}

/// A jump from the Calls view to a call keeps the Sessions pane's filter
/// when it lists the call's session (`agent:oc` and an OpenCode call), and
/// clears it when it does not (`agent:codex`), so the session is shown.
#[test]
fn a_jump_keeps_the_session_filter_that_lists_its_session() {
    let mut app = app_for("tests/corpus");
    let jump = |app: &mut App, filter: &str| {
        app.focus = Pane::Sessions;
        key(app, KeyCode::Char('/'));
        key_mod(app, KeyCode::Char('u'), KeyModifiers::CONTROL);
        keys(app, filter);
        key(app, KeyCode::Enter);
        key(app, KeyCode::Char('c'));
        key_mod(app, KeyCode::Char('u'), KeyModifiers::CONTROL);
        keys(app, "tool:bash agent:opencode");
        key(app, KeyCode::Enter);
        assert!(!app.calls.records().is_empty());
        key(app, KeyCode::Enter);
        assert_eq!(app.view, View::Browse);
        let open = app.ctx.session().expect("opened");
        assert_eq!(open.agent, hookscope_core::transcript::Agent::OpenCode);
        app.list.filter.clone()
    };
    assert_eq!(jump(&mut app, "agent:oc"), "agent:oc");
    assert_eq!(jump(&mut app, "agent:codex"), "");
}
