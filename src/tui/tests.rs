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
use super::app::{App, Item, OpenState, Overlay, Pane, Request, Thread};
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
        app.apply(Msg::Summary {
            index,
            result: hookscope::transcript::load_summary(sref).map_err(|e| e.to_string()),
        });
    }
    app.apply(Msg::SummariesDone);
    app
}

/// Runs the queued requests synchronously (what the event loop's workers do).
fn run_requests(app: &mut App) {
    for request in app.take_requests() {
        let Request::Open(index) = request;
        let sref = app.sessions[index].sref.clone();
        app.apply(Msg::Loaded {
            index,
            result: worker::open(&sref),
        });
    }
}

fn key(app: &mut App, code: KeyCode) {
    key_mod(app, code, KeyModifiers::NONE);
}

fn key_mod(app: &mut App, code: KeyCode, mods: KeyModifiers) {
    if let Some(action) = keymap::action_for(KeyEvent::new(code, mods), app.searching) {
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
