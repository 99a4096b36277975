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
