//! Snapshot tests of each pane (80x24 and 160x48, through `TestBackend`) and
//! state-transition tests, on real Claude Code 2.1.332 transcripts from the
//! shared corpus. Times render at UTC, so nothing depends on where or when
//! the tests run.

use std::path::PathBuf;

use chrono::FixedOffset;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use hookscope::transcript::discover;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use unicode_width::UnicodeWidthStr;

use super::action::Action;
use super::app::{App, Item, OpenState, Overlay, Pane, Request, SessionRow, Thread, View};
use super::theme::Theme;
use super::worker::{self, Msg};
use super::{draw, keymap};

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/corpus/real-cc-2.1.332"
);
const SUBAGENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/corpus/real-cc-2.1.332/subagent/projects/-home-dev-work-subagent/8bb2dece-a24f-43d4-80d6-3ee9a889b550.jsonl"
);
const TOOLS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/corpus/real-cc-2.1.332/tools/projects/-home-dev-work-tools/e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl"
);

/// An app over `path` with every summary applied synchronously. For a
/// `.jsonl` file, its folder is discovered and only that session kept:
/// discovery given the file alone does not attach its `<id>/subagents/`
/// (a core limitation reported to the lead).
fn app_for(path: &str) -> App {
    let path = PathBuf::from(path);
    let found = if path.is_file() {
        let folder = path.parent().expect("a parent folder").to_path_buf();
        let mut found = discover(&[folder]).expect("corpus is present");
        found.sessions.retain(|s| s.path == path);
        found
    } else {
        discover(&[path]).expect("corpus is present")
    };
    let utc = FixedOffset::east_opt(0).expect("UTC");
    let mut app = App::new(
        found.sessions.clone(),
        found.diagnostics,
        utc,
        Theme { color: false },
    );
    for (index, sref) in found.sessions.iter().enumerate() {
        app.apply(worker::summary_msg(index, sref));
    }
    app.apply(Msg::SummariesDone);
    app
}

/// Runs the queued requests synchronously (what the event loop's workers do).
fn run_requests(app: &mut App) {
    for request in app.take_requests() {
        match request {
            Request::Open(index) => {
                let sref = app.sessions[index].sref.clone();
                app.apply(Msg::Loaded {
                    index,
                    result: worker::open(&sref),
                });
            }
            Request::Find { generation, query } => {
                let refs: Vec<_> = app.sessions.iter().map(|e| e.sref.clone()).collect();
                app.apply(Msg::Found {
                    generation,
                    result: hookscope::query::find_with(&refs, &query)
                        .map_err(|e| e.message().to_string()),
                });
            }
        }
    }
}

fn key(app: &mut App, code: KeyCode) {
    key_mod(app, code, KeyModifiers::NONE);
}

fn key_mod(app: &mut App, code: KeyCode, mods: KeyModifiers) {
    if let Some(action) = keymap::action_for(KeyEvent::new(code, mods), app.key_mode()) {
        app.handle(action);
    }
    run_requests(app);
}

fn keys(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn buffer_text(buffer: &Buffer) -> String {
    let area = buffer.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        let mut skip = 0;
        for x in 0..area.width {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let symbol = buffer[(x, y)].symbol();
            skip = symbol.width().saturating_sub(1);
            line.push_str(symbol);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn render(app: &mut App, width: u16, height: u16) -> String {
    app.handle(Action::Resize { width, height });
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal.draw(|f| draw(f, app)).expect("draw");
    buffer_text(terminal.backend().buffer())
}

/// Opens the only session of `path` and returns the app focused on its timeline.
fn opened(path: &str) -> App {
    let mut app = app_for(path);
    key(&mut app, KeyCode::Enter);
    app
}

fn select_call(app: &mut App, name: &str) {
    let session = app.session().cloned().expect("loaded");
    let item = app
        .timeline_rows()
        .into_iter()
        .find(|r| {
            super::timeline::event_of(&session, r.item)
                .and_then(|e| e.as_tool_call())
                .is_some_and(|c| c.name() == name)
        })
        .map(|r| r.item);
    app.timeline_sel = item;
}

#[test]
fn snapshot_sessions() {
    let mut app = app_for(CORPUS);
    insta::assert_snapshot!("sessions_80x24", render(&mut app, 80, 24));
    insta::assert_snapshot!("sessions_160x48", render(&mut app, 160, 48));
}

#[test]
fn snapshot_timeline_with_subagent_expanded() {
    let mut app = opened(SUBAGENT);
    select_call(&mut app, "Agent");
    key(&mut app, KeyCode::Enter); // expand
    key(&mut app, KeyCode::Enter); // onto its first child
    key(&mut app, KeyCode::Char('j'));
    insta::assert_snapshot!("timeline_expanded_80x24", render(&mut app, 80, 24));
    insta::assert_snapshot!("timeline_expanded_160x48", render(&mut app, 160, 48));
}

#[test]
fn snapshot_detail_of_edit() {
    let mut app = opened(TOOLS);
    select_call(&mut app, "Edit");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    insta::assert_snapshot!("detail_edit_160x48", render(&mut app, 160, 48));
    render(&mut app, 80, 24);
    // Jump to the diff with the detail search.
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "── diff");
    key(&mut app, KeyCode::Enter);
    insta::assert_snapshot!("detail_edit_80x24", render(&mut app, 80, 24));
}

#[test]
fn snapshot_help() {
    let mut app = app_for(SUBAGENT);
    key(&mut app, KeyCode::Char('?'));
    assert_eq!(app.overlay, Some(Overlay::Help));
    insta::assert_snapshot!("help_80x24", render(&mut app, 80, 24));
    insta::assert_snapshot!("help_160x48", render(&mut app, 160, 48));
}

#[test]
fn enter_opens_and_tab_cycles_focus() {
    let mut app = app_for(SUBAGENT);
    assert_eq!(app.session_sel, Some(0));
    assert_eq!(app.focus, Pane::Sessions);
    app.handle(Action::Enter);
    assert!(matches!(
        app.open.as_ref().map(|o| &o.state),
        Some(OpenState::Loading)
    ));
    assert_eq!(app.take_requests(), vec![Request::Open(0)]);
    assert_eq!(app.focus, Pane::Timeline);
    let sref = app.sessions[0].sref.clone();
    app.apply(Msg::Loaded {
        index: 0,
        result: worker::open(&sref),
    });
    assert_eq!(app.timeline_sel, Some(Item::Turn(0)));
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Detail);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Sessions);
    key_mod(&mut app, KeyCode::BackTab, KeyModifiers::SHIFT);
    assert_eq!(app.focus, Pane::Detail);
    key(&mut app, KeyCode::Char('h'));
    assert_eq!(app.focus, Pane::Timeline);
    // Enter again on the same session does not reload it.
    key(&mut app, KeyCode::Char('h'));
    assert_eq!(app.focus, Pane::Sessions);
    app.handle(Action::Enter);
    assert_eq!(app.take_requests(), vec![]);
}

#[test]
fn expand_walk_and_collapse_a_subagent() {
    let mut app = opened(SUBAGENT);
    let before = app.timeline_rows().len();
    assert_eq!(before, 11);
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('j'));
    let agent = Item::Event {
        thread: Thread::Main,
        turn: 0,
        event: 1,
    };
    assert_eq!(app.timeline_sel, Some(agent));
    key(&mut app, KeyCode::Enter);
    assert!(app.expanded.contains(&agent));
    assert_eq!(app.timeline_rows().len(), 15);
    key(&mut app, KeyCode::Char('l'));
    let first_child = Item::Event {
        thread: Thread::Sub(
            app.event(agent)
                .and_then(|e| e.as_tool_call())
                .and_then(|c| c.subagent)
                .expect("linked"),
        ),
        turn: 0,
        event: 0,
    };
    assert_eq!(app.timeline_sel, Some(first_child));
    assert_eq!(app.focus, Pane::Timeline);
    key(&mut app, KeyCode::Char('h'));
    assert_eq!(app.timeline_sel, Some(agent));
    key(&mut app, KeyCode::Char('h'));
    assert!(app.expanded.is_empty());
    assert_eq!(app.timeline_rows().len(), 11);
    key(&mut app, KeyCode::Char(' '));
    assert!(app.expanded.contains(&agent));
    key(&mut app, KeyCode::Char(' '));
    assert!(app.expanded.is_empty());
    key(&mut app, KeyCode::Char('G'));
    assert_eq!(app.timeline_rows().last().map(|r| r.item), app.timeline_sel);
    key(&mut app, KeyCode::Char('g'));
    assert_eq!(app.timeline_sel, Some(Item::Turn(0)));
}

#[test]
fn search_filters_and_esc_clears() {
    let mut app = opened(TOOLS);
    let all = app.timeline_rows().len();
    key(&mut app, KeyCode::Char('/'));
    assert!(app.searching);
    keys(&mut app, "grep");
    assert_eq!(app.timeline_filter, "grep");
    assert_eq!(app.timeline_rows().len(), 3);
    key(&mut app, KeyCode::Enter);
    assert!(!app.searching);
    assert_eq!(app.timeline_filter, "grep");
    let first = app.timeline_sel;
    key(&mut app, KeyCode::Char('n'));
    assert_ne!(app.timeline_sel, first);
    key(&mut app, KeyCode::Char('n'));
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.timeline_sel, first);
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "x");
    key(&mut app, KeyCode::Esc);
    assert!(!app.searching);
    assert_eq!(app.timeline_filter, "");
    assert_eq!(app.timeline_rows().len(), all);
}

#[test]
fn overlays_and_quit() {
    let mut app = app_for(SUBAGENT);
    key(&mut app, KeyCode::Char('D'));
    assert_eq!(app.overlay, Some(Overlay::Diagnostics));
    key(&mut app, KeyCode::Char('?'));
    assert_eq!(app.overlay, Some(Overlay::Help));
    key(&mut app, KeyCode::Char('q'));
    assert_eq!(app.overlay, None);
    assert!(!app.quit);
    key(&mut app, KeyCode::Char('?'));
    key_mod(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(app.quit);
    let mut app = app_for(SUBAGENT);
    key(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}

#[test]
fn mouse_focuses_and_scrolls_the_pane_under_it() {
    let mut app = opened(SUBAGENT);
    app.handle(Action::Resize {
        width: 160,
        height: 48,
    });
    // Wide layout: sessions | timeline | detail.
    app.handle(Action::ClickAt { column: 2, row: 5 });
    assert_eq!(app.focus, Pane::Sessions);
    app.handle(Action::ScrollAt {
        column: 60,
        row: 5,
        down: true,
    });
    assert_eq!(app.focus, Pane::Sessions);
    assert_eq!(
        app.timeline_sel,
        Some(Item::Event {
            thread: Thread::Main,
            turn: 0,
            event: 2
        })
    );
}

#[test]
fn tiny_and_odd_sizes_do_not_panic() {
    let mut app = opened(TOOLS);
    select_call(&mut app, "Edit");
    for (w, h) in [
        (20, 5),
        (1, 1),
        (0, 0),
        (5, 30),
        (300, 3),
        (119, 24),
        (120, 10),
    ] {
        for overlay in [None, Some(Overlay::Help), Some(Overlay::Diagnostics)] {
            for focus in [Pane::Sessions, Pane::Timeline, Pane::Detail] {
                app.overlay = overlay;
                app.focus = focus;
                render(&mut app, w, h);
                app.handle(Action::PageDown);
                app.handle(Action::Bottom);
                render(&mut app, w, h);
            }
        }
    }
}

#[test]
fn no_color_uses_no_colours() {
    let mut app = opened(TOOLS);
    select_call(&mut app, "Edit");
    app.focus = Pane::Detail;
    app.handle(Action::Resize {
        width: 160,
        height: 48,
    });
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("test terminal");
    terminal.draw(|f| draw(f, &app)).expect("draw");
    let buffer = terminal.backend().buffer();
    assert!(
        buffer
            .content()
            .iter()
            .all(|c| c.fg == Color::Reset && c.bg == Color::Reset)
    );
}

/// Ids of the records the Calls view shows, in order.
fn call_ids(app: &App) -> Vec<String> {
    app.calls
        .records()
        .iter()
        .map(|r| r.tool_use_id.clone())
        .collect()
}

#[test]
fn snapshot_calls_view() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.view, View::Calls);
    assert!(app.calls.editing, "an empty line is typed into at once");
    keys(&mut app, r#"tool:Bash input:"rm -rf""#);
    key(&mut app, KeyCode::Enter);
    assert!(!app.calls.editing);
    // The six `rm -rf build/` Bash calls of the hooks runs, newest first
    // (recounted with python over real-cc-2.1.332/*/projects).
    assert_eq!(
        call_ids(&app),
        vec![
            "toolu_01dITZXnpQCb3Ps2Oi3ymZlZ",
            "toolu_01lPnLRRd9uBMLDeG9k70nzJ",
            "toolu_01LvJaZxCcYuYq7WyGj8bfHh",
            "toolu_0138h77ojpT1t3A4y1yWKgjr",
            "toolu_01GFEgALJm405nI2WctBocud",
            "toolu_017ewsxv2HgMNxq34i6Vs79k",
        ]
    );
    insta::assert_snapshot!("calls_rm_rf_80x24", render(&mut app, 80, 24));
    insta::assert_snapshot!("calls_rm_rf_160x48", render(&mut app, 160, 48));
}

#[test]
fn calls_filter_counts_completes_and_reports_errors() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    // Every call of the 2.1.332 projects: 111 tool_use blocks.
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(111));
    keys(&mut app, "tool:Ba");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.filter, "tool:Bash ");
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(45));
    keys(&mut app, "is:e");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.filter, "tool:Bash is:error ");
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(9));
    // A line that is not a query (yet): the message, and the last good
    // answer stays listed.
    keys(&mut app, "\"");
    assert!(
        app.calls
            .error
            .as_deref()
            .is_some_and(|e| e.contains("unclosed quote")),
        "{:?}",
        app.calls.error
    );
    assert_eq!(app.calls.records().len(), 9);
    key(&mut app, KeyCode::Backspace);
    assert_eq!(app.calls.error, None);
    // Ambiguous: the candidates are listed and the line kept.
    keys(&mut app, "agent:c");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.filter, "tool:Bash is:error agent:c");
    assert_eq!(
        app.calls.completions,
        vec!["agent:claude-code ", "agent:codex "]
    );
    assert!(
        app.calls
            .error
            .as_deref()
            .is_some_and(|e| e.contains("unknown agent")),
        "{:?}",
        app.calls.error
    );
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, "tol:Bash");
    assert!(
        app.calls
            .error
            .as_deref()
            .is_some_and(|e| e.contains("unknown key tol:"))
    );
    let text = render(&mut app, 80, 24);
    assert!(text.contains("unknown key tol:"), "{text}");
    // `tool:` + Tab lists the 13 tool names of these sessions, shown over
    // the line's "needs a value" error.
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, "tool:");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.completions.len(), 13);
    let text = render(&mut app, 160, 48);
    assert!(text.contains(" Tab: tool:Agent   tool:Bash "), "{text}");
    // Taking one clears the list.
    keys(&mut app, "Wr");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.filter, "tool:Write ");
    assert!(app.calls.completions.is_empty());
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Browse);
}

#[test]
fn enter_on_a_subagent_call_opens_it_in_the_timeline() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:Bash input:\"ls -la\"");
    key(&mut app, KeyCode::Enter);
    // One in the tools session, one inside the subagent session's Agent.
    assert_eq!(
        call_ids(&app),
        vec![
            "toolu_01dxohHpq0K1OceRQg5RT4vA",
            "toolu_01dWuUXlkTZoL5K7RXhzXTZs"
        ]
    );
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Browse);
    assert_eq!(app.focus, Pane::Timeline);
    let session = app.session().cloned().expect("opened");
    assert_eq!(session.id, "8bb2dece-a24f-43d4-80d6-3ee9a889b550");
    let item = app.timeline_sel.expect("a selection");
    let call = super::timeline::event_of(&session, item)
        .and_then(|e| e.as_tool_call())
        .expect("a call");
    assert_eq!(call.tool_use_id, "toolu_01dWuUXlkTZoL5K7RXhzXTZs");
    assert!(matches!(
        item,
        Item::Event {
            thread: Thread::Sub(_),
            ..
        }
    ));
    // Its Agent spawn is expanded, so the row is visible.
    assert!(app.timeline_rows().iter().any(|r| r.item == item));
    assert_eq!(app.expanded.len(), 1);
}

#[test]
fn quick_filters_from_the_timeline_and_in_the_calls_view() {
    let mut app = opened(TOOLS);
    select_call(&mut app, "Edit");
    key(&mut app, KeyCode::Char('f'));
    assert_eq!(app.view, View::Calls);
    assert_eq!(
        app.calls.filter,
        "input:/home/dev/work/tools/src/new_module.py"
    );
    // The Write that created it and the Edit (recounted: both inputs name it).
    let mut ids = call_ids(&app);
    ids.sort();
    assert_eq!(
        ids,
        vec![
            "toolu_013HpL8FygzRwJbROaHPuzI9",
            "toolu_01FCunre3Vlg1cQJNqbvZlnu"
        ]
    );
    // Same tool from the selected record (the newest, the Edit).
    key(&mut app, KeyCode::Char('t'));
    assert_eq!(
        app.calls.filter,
        "input:/home/dev/work/tools/src/new_module.py tool:Edit"
    );
    assert_eq!(call_ids(&app), vec!["toolu_01FCunre3Vlg1cQJNqbvZlnu"]);
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(
        app.calls.filter,
        "input:/home/dev/work/tools/src/new_module.py tool:Edit is:error"
    );
    assert!(call_ids(&app).is_empty());
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(
        app.calls.filter,
        "input:/home/dev/work/tools/src/new_module.py tool:Edit"
    );
    // Back to the timeline; errors of the selected tool from there.
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.view, View::Browse);
    select_call(&mut app, "Bash");
    // `t` keeps your place: the session's first Bash call, not the newest
    // of the five, is selected in the answer.
    key(&mut app, KeyCode::Char('t'));
    assert_eq!(app.calls.records().len(), 5);
    assert_eq!(
        app.calls.selected().map(|r| r.tool_use_id.as_str()),
        Some("toolu_01tL383BVJdaI34KPxGfiRLZ")
    );
    key(&mut app, KeyCode::Char('c'));
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(app.calls.filter, "tool:Bash is:error");
    assert_eq!(call_ids(&app), vec!["toolu_01WS4HYZrMsYywO1CkB0np7Q"]);
    // Without a selected call there is nothing to filter by.
    key(&mut app, KeyCode::Char('c'));
    app.focus = Pane::Sessions;
    key(&mut app, KeyCode::Char('t'));
    assert_eq!(app.view, View::Browse);
    assert!(app.message.is_some());
}

#[test]
fn session_search_is_fuzzy_and_ranked() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('/'));
    // Letters in order across "tools" (project and prompt): a fuzzy hit.
    keys(&mut app, "tls");
    let rows = app.session_rows();
    assert!(!rows.is_empty());
    let first = match rows.first() {
        Some(SessionRow::Session(i)) => app.sessions[*i].sref.id.clone(),
        other => panic!("expected a session row, got {other:?}"),
    };
    assert_eq!(first, "e71e9aa1-2571-47ab-8bf7-9e6efaaedfff");
    // No headers while filtering; an id prefix finds its session, and `^`
    // anchors at the start of the id (fields are matched one by one).
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    assert_eq!(app.session_filter, "");
    keys(&mut app, "^8bb2dece");
    let rows = app.session_rows();
    assert_eq!(rows.len(), 1);
    assert!(matches!(rows[0], SessionRow::Session(_)));
    assert_eq!(
        app.session_sel.map(|i| app.sessions[i].sref.id.as_str()),
        Some("8bb2dece-a24f-43d4-80d6-3ee9a889b550")
    );
}

#[test]
fn calls_view_mouse_and_record_pane() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:Bash");
    key(&mut app, KeyCode::Enter);
    // 80x24: the record (16 lines) is taller than its pane, so it scrolls.
    render(&mut app, 80, 24);
    let a = app.calls_areas();
    // Wheel over the list moves the selection three rows.
    app.handle(Action::ScrollAt {
        column: a.list.x + 2,
        row: a.list.y + 2,
        down: true,
    });
    assert_eq!(app.calls.sel, 3);
    // A click on the fifth row selects it.
    app.handle(Action::ClickAt {
        column: a.list.x + 2,
        row: a.list.y + 1 + 4,
    });
    assert_eq!(app.calls.sel, 4);
    // Tab gives the keys to the record pane; j scrolls it, not the list.
    key(&mut app, KeyCode::Tab);
    assert!(app.calls.focus_detail);
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.calls.sel, 4);
    assert_eq!(app.calls.detail_scroll, 1);
    key(&mut app, KeyCode::Esc);
    assert!(!app.calls.focus_detail);
    assert_eq!(app.view, View::Calls);
    // A click on the filter line goes back to typing.
    app.handle(Action::ClickAt {
        column: a.filter.x + 3,
        row: a.filter.y + 1,
    });
    assert!(app.calls.editing);
}

#[test]
fn timeline_filter_finds_calls_inside_collapsed_subagents() {
    let mut app = opened(SUBAGENT);
    assert!(app.expanded.is_empty());
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "grep -rn");
    key(&mut app, KeyCode::Enter);
    // The explore subagent's Bash call (its Agent row is collapsed).
    let session = app.session().cloned().expect("loaded");
    let ids: Vec<String> = app
        .timeline_rows()
        .iter()
        .filter_map(|r| super::timeline::event_of(&session, r.item))
        .filter_map(|e| e.as_tool_call())
        .map(|c| c.tool_use_id.clone())
        .collect();
    assert_eq!(ids, vec!["toolu_01jnpTxdhXKCZgdSENXyt8je"]);
    let found = app.timeline_sel.expect("selected");
    assert!(matches!(
        found,
        Item::Event {
            thread: Thread::Sub(_),
            ..
        }
    ));
    // Clearing the filter keeps it selected and expands its Agent call.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.timeline_filter, "");
    assert_eq!(app.timeline_sel, Some(found));
    assert_eq!(app.expanded.len(), 1);
    assert!(app.timeline_rows().iter().any(|r| r.item == found));
}

#[test]
fn unlinked_subagents_are_listed_after_the_turns() {
    // claude-code-viewer's sample project: two sibling agent-test-hash-*
    // files whose Task calls are not in any session of the folder.
    let folder = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/claude-code-viewer/mock-global-claude-dir/projects/sample-project"
    );
    let mut app = app_for(folder);
    let index = app
        .sessions
        .iter()
        .position(|e| !e.sref.subagent_files.is_empty())
        .expect("a session with the sibling files");
    app.session_sel = Some(index);
    key(&mut app, KeyCode::Enter);
    let session = app.session().cloned().expect("loaded");
    let unlinked = super::timeline::unlinked_subagents(&session);
    assert_eq!(unlinked.len(), 2);
    let rows = app.timeline_rows();
    let headers: Vec<Item> = rows
        .iter()
        .filter(|r| matches!(r.item, Item::Unlinked(_)))
        .map(|r| r.item)
        .collect();
    assert_eq!(
        headers,
        unlinked
            .iter()
            .map(|s| Item::Unlinked(*s))
            .collect::<Vec<_>>()
    );
    // Enter on the first expands it to its own events.
    app.timeline_sel = headers.first().copied();
    let before = app.timeline_rows().len();
    key(&mut app, KeyCode::Enter);
    assert!(app.expanded.contains(&headers[0]));
    assert!(app.timeline_rows().len() > before);
    let text = render(&mut app, 160, 48);
    assert!(text.contains("▾ unlinked subagent"), "{text}");
}

#[test]
fn codex_apply_patch_through_exec_command_shows_its_diff() {
    let rollout = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl"
    );
    let mut app = opened(rollout);
    let session = app.session().cloned().expect("loaded");
    // The second patch: it updates hello.py (recounted from the rollout).
    let item = app
        .timeline_rows()
        .into_iter()
        .map(|r| r.item)
        .filter(|i| {
            super::timeline::event_of(&session, *i)
                .and_then(|e| e.as_tool_call())
                .is_some_and(|c| c.summary().starts_with("apply_patch"))
        })
        .nth(1)
        .expect("two apply_patch calls");
    app.timeline_sel = Some(item);
    key(&mut app, KeyCode::Enter);
    let text: Vec<String> = app
        .detail_lines()
        .iter()
        .map(super::app::line_text)
        .collect();
    let at = text
        .iter()
        .position(|l| l == "── Diff (apply_patch) ──")
        .expect("a diff section");
    // Drawn from the core's diff model: the file, then its `@@` section.
    assert_eq!(text[at + 1], "update hello.py");
    assert_eq!(text[at + 2], "@@");
    assert!(
        text.iter().any(|l| l.starts_with("-    return ")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|l| l.starts_with("+    return ")),
        "{text:?}"
    );
}
