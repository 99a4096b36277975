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
use super::app::{App, Item, OpenState, Overlay, Pane, Request, Thread, View};
use super::context::SessionRow;
use super::theme::Theme;
use super::worker::{self, Msg};
use super::{draw, keymap};

const CORPUS: &str = "tests/corpus/real-cc-2.1.332";
const SUBAGENT: &str = "tests/corpus/real-cc-2.1.332/subagent/projects/-home-dev-work-subagent/8bb2dece-a24f-43d4-80d6-3ee9a889b550.jsonl";
const TOOLS: &str = "tests/corpus/real-cc-2.1.332/tools/projects/-home-dev-work-tools/e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl";

/// An app over `path` with every summary applied synchronously. For a
/// `.jsonl` file, its folder is discovered and only that session kept:
/// discovery given the file alone does not attach its `<id>/subagents/`
/// (a core limitation reported to the lead).
pub(super) fn app_for(path: &str) -> App {
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
    // The replay pane's "Your hooks" must not read this machine's settings.
    app.ctx.settings_config_dir = Some(PathBuf::from("/nonexistent/claude-config"));
    app.ctx.settings_managed = Some(PathBuf::from("/nonexistent/managed-settings.json"));
    app.ctx.codex_home = Some(PathBuf::from("/nonexistent/codex-home"));
    // …nor pass this machine's environment to hooks run with `x`.
    app.ctx.hook_env = Some(
        [
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("HOME", "/nonexistent/home"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.into()))
        .collect(),
    );
    for (index, sref) in found.sessions.iter().enumerate() {
        app.apply(worker::summary_msg(index, sref));
    }
    app.apply(Msg::SummariesDone);
    app
}

/// Runs the queued requests synchronously (what the event loop's workers do).
fn run_requests(app: &mut App) {
    // Answers may ask for more (a loaded session's first row is a Bash
    // call whose breakdown is asked for).
    while let requests = app.take_requests()
        && !requests.is_empty()
    {
        for request in requests {
            run_request(app, request);
        }
    }
}

fn run_request(app: &mut App, request: Request) {
    {
        match request {
            Request::RunHooks { generation, plan } => {
                app.apply(Msg::HooksRan {
                    generation,
                    report: Box::new(worker::run_hooks(&plan.0)),
                });
            }
            Request::ParseBash { key, command } => {
                app.apply(Msg::Parsed {
                    key,
                    line: hookscope::shell::parse_command_line(&command),
                });
            }
            Request::Summarize(index) => {
                let sref = app.ctx.sessions[index].sref.clone();
                app.apply(worker::summary_msg(index, &sref));
            }
            Request::Open(index) => {
                let sref = app.ctx.sessions[index].sref.clone();
                app.apply(Msg::Loaded {
                    index,
                    result: worker::open(&sref),
                });
            }
            Request::Backtest => {
                let super::context::Rules::Loaded(rules) = app.ctx.rules.clone() else {
                    panic!("a backtest without rules")
                };
                let refs: Vec<_> = app.ctx.sessions.iter().map(|e| e.sref.clone()).collect();
                let (tx, rx) = std::sync::mpsc::channel();
                worker::backtest(&refs, &rules, None, &tx);
                drop(tx);
                for msg in rx {
                    app.apply(msg);
                }
            }
            Request::Find { generation, query } => {
                let refs: Vec<_> = app.ctx.sessions.iter().map(|e| e.sref.clone()).collect();
                app.apply(Msg::Found {
                    generation,
                    result: hookscope::query::find_with(&refs, &query)
                        .map_err(|e| e.message().to_string()),
                });
            }
        }
    }
}

pub(super) fn key(app: &mut App, code: KeyCode) {
    key_mod(app, code, KeyModifiers::NONE);
}

fn key_mod(app: &mut App, code: KeyCode, mods: KeyModifiers) {
    if let Some(action) = keymap::action_for(KeyEvent::new(code, mods), app.key_mode()) {
        app.handle(action);
    }
    run_requests(app);
}

pub(super) fn keys(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// The buffer as text, with what colour would show made visible (as
/// codex-rs's snapshots do): the focused pane's border (bold, in the
/// colourless theme) is drawn heavy (`┏━┓┃`), and a selected list row has
/// its left border replaced by `▶` when its pane has the keys (reversed
/// row) or `▷` when not (underlined row).
fn buffer_text(buffer: &Buffer) -> String {
    buffer_text_with(buffer, true)
}

/// The buffer as text; `marks` adds [`buffer_text`]'s focus and selection
/// marks (without them: what a terminal capture shows).
fn buffer_text_with(buffer: &Buffer, marks: bool) -> String {
    use ratatui::style::Modifier;
    let area = buffer.area;
    let heavy = |symbol: &str| match symbol {
        "─" => Some("━"),
        "│" => Some("┃"),
        "┌" => Some("┏"),
        "┐" => Some("┓"),
        "└" => Some("┗"),
        "┘" => Some("┛"),
        _ => None,
    };
    // The focused block: a bold `┌` with its bold `┐` and `└`; only the
    // box characters on its perimeter turn heavy (bold headings inside do
    // not).
    let bold = |x: u16, y: u16, symbol: &str| {
        let c = &buffer[(x, y)];
        c.symbol() == symbol && c.modifier.contains(Modifier::BOLD)
    };
    let mut perimeter = std::collections::HashSet::new();
    for y0 in (0..area.height).filter(|_| marks) {
        for x0 in 0..area.width {
            if !bold(x0, y0, "┌") {
                continue;
            }
            let x1 = (x0 + 1..area.width).find(|&x| bold(x, y0, "┐"));
            let y1 = (y0 + 1..area.height).find(|&y| bold(x0, y, "└"));
            if let (Some(x1), Some(y1)) = (x1, y1) {
                for x in x0..=x1 {
                    perimeter.insert((x, y0));
                    perimeter.insert((x, y1));
                }
                for y in y0..=y1 {
                    perimeter.insert((x0, y));
                    perimeter.insert((x1, y));
                }
            }
        }
    }
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        let mut skip = 0;
        for x in 0..area.width {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let cell = &buffer[(x, y)];
            let symbol = cell.symbol();
            skip = symbol.width().saturating_sub(1);
            let mut shown = match heavy(symbol) {
                Some(h) if perimeter.contains(&(x, y)) => h,
                _ => symbol,
            };
            if !marks || (shown != "│" && shown != "┃") {
                line.push_str(shown);
                continue;
            }
            if x + 1 < area.width {
                // A selected row fills the pane's inner width up to the
                // next border.
                let run: Vec<_> = (x + 1..area.width)
                    .map(|rx| &buffer[(rx, y)])
                    .take_while(|c| c.symbol() != "│")
                    .collect();
                let all =
                    |m: Modifier| !run.is_empty() && run.iter().all(|c| c.modifier.contains(m));
                if all(Modifier::REVERSED) {
                    shown = "▶";
                } else if all(Modifier::UNDERLINED) {
                    shown = "▷";
                }
            }
            line.push_str(shown);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

pub(super) fn render(app: &mut App, width: u16, height: u16) -> String {
    app.handle(Action::Resize { width, height });
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal.draw(|f| draw(f, app)).expect("draw");
    buffer_text(terminal.backend().buffer())
}

/// Opens the only session of `path` and returns the app focused on its timeline.
pub(super) fn opened(path: &str) -> App {
    let mut app = app_for(path);
    key(&mut app, KeyCode::Enter);
    app
}

fn select_call(app: &mut App, name: &str) {
    let session = app.ctx.session().cloned().expect("loaded");
    let item = app
        .timeline
        .rows(&app.ctx)
        .into_iter()
        .find(|r| {
            super::timeline::event_of(&session, r.item)
                .and_then(|e| e.as_tool_call())
                .is_some_and(|c| c.name() == name)
        })
        .map(|r| r.item);
    app.timeline.sel = item;
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
    assert_eq!(app.list.sel, Some(0));
    assert_eq!(app.focus, Pane::Sessions);
    app.handle(Action::Enter);
    assert!(matches!(
        app.ctx.open.as_ref().map(|o| &o.state),
        Some(OpenState::Loading)
    ));
    assert_eq!(app.take_requests(), vec![Request::Open(0)]);
    assert_eq!(app.focus, Pane::Timeline);
    let sref = app.ctx.sessions[0].sref.clone();
    app.apply(Msg::Loaded {
        index: 0,
        result: worker::open(&sref),
    });
    assert_eq!(app.timeline.sel, Some(Item::Turn(0)));
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
    let before = app.timeline.rows(&app.ctx).len();
    assert_eq!(before, 11);
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('j'));
    let agent = Item::Event {
        thread: Thread::Main,
        turn: 0,
        event: 1,
    };
    assert_eq!(app.timeline.sel, Some(agent));
    key(&mut app, KeyCode::Enter);
    assert!(app.timeline.expanded.contains(&agent));
    assert_eq!(app.timeline.rows(&app.ctx).len(), 15);
    key(&mut app, KeyCode::Char('l'));
    let first_child = Item::Event {
        thread: Thread::Sub(
            app.ctx
                .session()
                .and_then(|s| super::timeline::event_of(s, agent))
                .and_then(|e| e.as_tool_call())
                .and_then(|c| c.subagent)
                .expect("linked"),
        ),
        turn: 0,
        event: 0,
    };
    assert_eq!(app.timeline.sel, Some(first_child));
    assert_eq!(app.focus, Pane::Timeline);
    key(&mut app, KeyCode::Char('h'));
    assert_eq!(app.timeline.sel, Some(agent));
    key(&mut app, KeyCode::Char('h'));
    assert!(app.timeline.expanded.is_empty());
    assert_eq!(app.timeline.rows(&app.ctx).len(), 11);
    key(&mut app, KeyCode::Char(' '));
    assert!(app.timeline.expanded.contains(&agent));
    key(&mut app, KeyCode::Char(' '));
    assert!(app.timeline.expanded.is_empty());
    key(&mut app, KeyCode::Char('G'));
    assert_eq!(
        app.timeline.rows(&app.ctx).last().map(|r| r.item),
        app.timeline.sel
    );
    key(&mut app, KeyCode::Char('g'));
    assert_eq!(app.timeline.sel, Some(Item::Turn(0)));
}

#[test]
fn search_filters_and_esc_clears() {
    let mut app = opened(TOOLS);
    let all = app.timeline.rows(&app.ctx).len();
    key(&mut app, KeyCode::Char('/'));
    assert!(app.timeline.searching);
    keys(&mut app, "grep");
    assert_eq!(app.timeline.filter, "grep");
    assert_eq!(app.timeline.rows(&app.ctx).len(), 3);
    key(&mut app, KeyCode::Enter);
    assert!(!app.timeline.searching);
    assert_eq!(app.timeline.filter, "grep");
    let first = app.timeline.sel;
    key(&mut app, KeyCode::Char('n'));
    assert_ne!(app.timeline.sel, first);
    key(&mut app, KeyCode::Char('n'));
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.timeline.sel, first);
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "x");
    key(&mut app, KeyCode::Esc);
    assert!(!app.timeline.searching);
    assert_eq!(app.timeline.filter, "");
    assert_eq!(app.timeline.rows(&app.ctx).len(), all);
}

/// The diagnostics overlay (`D`) over a session with a malformed line, a
/// line of an unknown type and a truncated last line: each is listed with
/// its file and line (the folder written as `<dir>`, padded to its length
/// so the frame stays aligned).
#[test]
fn snapshot_diagnostics_overlay() {
    let dir = tempfile::Builder::new()
        .prefix("hsdiag")
        .rand_bytes(6)
        .tempdir_in("/tmp")
        .expect("tempdir");
    let mut text = std::fs::read_to_string(TOOLS).expect("tools session");
    text.push_str("{not json\n");
    text.push_str("{\"type\":\"from-the-future\",\"uuid\":\"u-1\"}\n");
    text.push_str("{\"type\":\"assistant\",\"message\":{\"content\":[");
    let file = dir
        .path()
        .join("e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl");
    std::fs::write(&file, text).expect("write");
    let mut app = opened(&file.display().to_string());
    key(&mut app, KeyCode::Char('D'));
    assert_eq!(app.overlay, Some(Overlay::Diagnostics));
    let shown = dir.path().display().to_string();
    for (w, h, name) in [
        (80, 24, "diagnostics_80x24"),
        (160, 48, "diagnostics_160x48"),
    ] {
        let screen = render(&mut app, w, h)
            .replace(&shown, &format!("{:<1$}", "<dir>", shown.chars().count()));
        insta::assert_snapshot!(name, screen);
    }
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
        app.timeline.sel,
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

/// On a heavy user's list the query thread sends the newest records first
/// (`Msg::FoundFirst`): they are shown at once, the count says more is
/// coming, and the whole answer replaces them with the selection kept.
#[test]
fn calls_view_shows_a_first_page_then_the_whole_answer() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:Bas");
    // The last key's query (one per key) is answered here, not served.
    let action = keymap::action_for(
        KeyEvent::new(KeyCode::Char('h'), KeyModifiers::NONE),
        app.key_mode(),
    )
    .expect("typing is bound");
    app.handle(action);
    let Some(Request::Find { generation, query }) = app
        .take_requests()
        .into_iter()
        .find(|r| matches!(r, Request::Find { .. }))
    else {
        panic!("no query asked");
    };
    let refs: Vec<_> = app.ctx.sessions.iter().map(|e| e.sref.clone()).collect();
    let mut first = query.clone();
    first.limit = 3;
    let page = hookscope::query::find_with(&refs, &first).map_err(|e| e.message().to_string());
    app.apply(Msg::FoundFirst {
        generation,
        result: page,
    });
    assert_eq!(app.calls.records().len(), 3);
    assert!(app.calls.running);
    assert_eq!(
        super::calls::count_text(&app.calls),
        "the newest 3 calls so far · searching…"
    );
    app.calls.sel = 1;
    let picked = call_ids(&app)[1].clone();
    let whole = hookscope::query::find_with(&refs, &query).map_err(|e| e.message().to_string());
    app.apply(Msg::Found {
        generation,
        result: whole,
    });
    // The 52 Bash calls of real-cc-2.1.332/*/projects; the same call stays
    // selected.
    assert_eq!(app.calls.records().len(), 52);
    assert_eq!(call_ids(&app)[app.calls.sel], picked);
    assert_eq!(super::calls::count_text(&app.calls), "52 calls");
}

#[test]
fn calls_filter_counts_completes_and_reports_errors() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    // Every call of the 2.1.332 projects: 121 tool_use blocks.
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(121));
    keys(&mut app, "tool:Ba");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.filter, "tool:Bash ");
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(52));
    keys(&mut app, "is:e");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.filter, "tool:Bash is:error ");
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(10));
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
    assert_eq!(app.calls.records().len(), 10);
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
    let session = app.ctx.session().cloned().expect("opened");
    assert_eq!(session.id, "8bb2dece-a24f-43d4-80d6-3ee9a889b550");
    let item = app.timeline.sel.expect("a selection");
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
    assert!(app.timeline.rows(&app.ctx).iter().any(|r| r.item == item));
    assert_eq!(app.timeline.expanded.len(), 1);
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
    assert!(app.ctx.message.is_some());
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
fn calls_view_mouse_and_record_pane() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:Bash");
    key(&mut app, KeyCode::Enter);
    // 80x24: the record (16 lines) is taller than its pane, so it scrolls.
    render(&mut app, 80, 24);
    let a = app.calls.areas();
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
    assert!(app.timeline.expanded.is_empty());
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "grep -rn");
    key(&mut app, KeyCode::Enter);
    // The explore subagent's Bash call (its Agent row is collapsed).
    let session = app.ctx.session().cloned().expect("loaded");
    let ids: Vec<String> = app
        .timeline
        .rows(&app.ctx)
        .iter()
        .filter_map(|r| super::timeline::event_of(&session, r.item))
        .filter_map(|e| e.as_tool_call())
        .map(|c| c.tool_use_id.clone())
        .collect();
    assert_eq!(ids, vec!["toolu_01jnpTxdhXKCZgdSENXyt8je"]);
    let found = app.timeline.sel.expect("selected");
    assert!(matches!(
        found,
        Item::Event {
            thread: Thread::Sub(_),
            ..
        }
    ));
    // Clearing the filter keeps it selected and expands its Agent call.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.timeline.filter, "");
    assert_eq!(app.timeline.sel, Some(found));
    assert_eq!(app.timeline.expanded.len(), 1);
    assert!(app.timeline.rows(&app.ctx).iter().any(|r| r.item == found));
}

#[test]
fn unlinked_subagents_are_listed_after_the_turns() {
    // claude-code-viewer's sample project: two sibling agent-test-hash-*
    // files whose Task calls are not in any session of the folder.
    let folder = "tests/corpus/claude-code-viewer/mock-global-claude-dir/projects/sample-project";
    let mut app = app_for(folder);
    let index = app
        .ctx
        .sessions
        .iter()
        .position(|e| !e.sref.subagent_files.is_empty())
        .expect("a session with the sibling files");
    app.list.sel = Some(index);
    key(&mut app, KeyCode::Enter);
    let session = app.ctx.session().cloned().expect("loaded");
    let tree = app.ctx.spawns().cloned().expect("loaded");
    let rows = app.timeline.rows(&app.ctx);
    // The last two rows are the two agent-test-hash-* files, in file order
    // (their first prompts: "Run the test suite", "Build the project").
    let labels: Vec<String> = rows
        .iter()
        .filter(|r| matches!(r.item, Item::Unlinked(_)))
        .map(|r| super::timeline::row_text(&session, &tree, r.item))
        .collect();
    assert_eq!(
        labels,
        vec![
            "unlinked subagent ? test-hash-123 — Run the test suite",
            "unlinked subagent ? test-hash-456 — Build the project",
        ]
    );
    assert!(matches!(rows[rows.len() - 1].item, Item::Unlinked(_)));
    assert!(matches!(rows[rows.len() - 2].item, Item::Unlinked(_)));
    let headers: Vec<Item> = rows[rows.len() - 2..].iter().map(|r| r.item).collect();
    // Enter on the first expands it to its own events.
    app.timeline.sel = headers.first().copied();
    let before = app.timeline.rows(&app.ctx).len();
    key(&mut app, KeyCode::Enter);
    assert!(app.timeline.expanded.contains(&headers[0]));
    let after: Vec<String> = app
        .timeline
        .rows(&app.ctx)
        .iter()
        .filter(|r| r.parent == Some(headers[0]))
        .map(|r| super::timeline::row_text(&session, &tree, r.item))
        .collect();
    // Its one assistant text (the file's second line), one row more.
    assert_eq!(after, vec!["I'll run the test suite for you."]);
    assert_eq!(app.timeline.rows(&app.ctx).len(), before + 1);
    let text = render(&mut app, 160, 48);
    assert!(text.contains("▾ unlinked subagent"), "{text}");
}

#[test]
fn codex_apply_patch_through_exec_command_shows_its_diff() {
    let rollout = "tests/corpus/real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl";
    let mut app = opened(rollout);
    let session = app.ctx.session().cloned().expect("loaded");
    // The second patch: it updates hello.py (recounted from the rollout).
    let item = app
        .timeline
        .rows(&app.ctx)
        .into_iter()
        .map(|r| r.item)
        .filter(|i| {
            super::timeline::event_of(&session, *i)
                .and_then(|e| e.as_tool_call())
                .is_some_and(|c| c.summary().starts_with("apply_patch"))
        })
        .nth(1)
        .expect("two apply_patch calls");
    app.timeline.sel = Some(item);
    key(&mut app, KeyCode::Enter);
    let text: Vec<String> = app
        .detail
        .lines()
        .iter()
        .map(super::widgets::text::line_text)
        .collect();
    let at = text
        .iter()
        .position(|l| l == "── Diff (apply_patch) ──")
        .expect("a diff section");
    // A Codex call's status says where it comes from.
    assert_eq!(
        format!("{}{}", text[0], text[1]),
        "exec_command  bash  ✓ ok (from the exit code; not reliable)"
    );
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

/// A one-call Claude Code session in `dir`: a prompt, a Bash `tool_use`
/// running `command`, and its `tool_result` with `output`. Returns the
/// file's path.
fn one_bash_call(dir: &std::path::Path, command: &str, output: &str) -> String {
    let id = "11111111-2222-4333-8444-555555555555";
    let lines = [
        serde_json::json!({
            "type": "user", "uuid": "u1", "parentUuid": null, "sessionId": id,
            "isSidechain": false, "cwd": "/tmp/hostile", "timestamp": "2026-11-29T18:00:00.000Z",
            "message": {"role": "user", "content": "run it"}
        }),
        serde_json::json!({
            "type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": id,
            "isSidechain": false, "cwd": "/tmp/hostile", "timestamp": "2026-11-29T18:00:01.000Z",
            "message": {"role": "assistant", "model": "claude-test", "content": [
                {"type": "tool_use", "id": "toolu_hostile", "name": "Bash",
                 "input": {"command": command}}
            ]}
        }),
        serde_json::json!({
            "type": "user", "uuid": "r1", "parentUuid": "a1", "sessionId": id,
            "isSidechain": false, "cwd": "/tmp/hostile", "timestamp": "2026-11-29T18:00:02.000Z",
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_hostile", "content": output}
            ]}
        }),
    ];
    let path = dir.join(format!("{id}.jsonl"));
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&path, text.join("\n") + "\n").expect("write the session");
    path.to_string_lossy().into_owned()
}

/// Opens `path`, selects its Bash call and focuses Detail.
fn detail_of_bash(path: &str) -> App {
    let mut app = opened(path);
    select_call(&mut app, "Bash");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    app
}

#[test]
fn a_10_mb_output_builds_a_bounded_number_of_lines() {
    let dir = tempfile::tempdir().expect("a temp dir");
    // 10 MB as 200,000 lines of 49 characters and a newline.
    let line = "x".repeat(49);
    let output = format!("{line}\n").repeat(200_000);
    assert_eq!(output.len(), 10_000_000);
    let path = one_bash_call(dir.path(), "yes | head", &output);
    let mut app = detail_of_bash(&path);
    for width in [160u16, 80, 1] {
        render(&mut app, width, 48);
        let lines = app.detail.lines().len();
        let text: Vec<String> = app
            .detail
            .lines()
            .iter()
            .map(super::widgets::text::line_text)
            .collect();
        if width == 160 {
            // 2,000 output lines (one row each at this width) and the
            // fields above them: well under 2,100 rows.
            assert!(lines < 2_100, "{lines} rows at width {width}");
            assert!(
                text.iter()
                    .any(|l| l == "… 198000 more lines (9.4 MiB) — press o to show more"),
                "{:?}",
                &text[text.len() - 3..]
            );
        } else if width == 80 {
            // Two panes: Detail's 42 columns wrap each 49-character line
            // to two rows.
            assert!((4_000..4_100).contains(&lines), "{lines} rows at width 80");
        } else {
            // Width 1: the wrapped rows stop at 256 Ki, with a line that
            // says so (10 MB would be ten million rows).
            assert!(lines <= 262_145, "{lines} rows at width 1");
        }
    }
    // o shows four times more lines, still bounded.
    render(&mut app, 160, 48);
    key(&mut app, KeyCode::Char('o'));
    let lines = app.detail.lines().len();
    assert!((8_000..8_100).contains(&lines), "{lines} rows after o");
}

#[test]
fn a_single_10_mb_output_line_at_width_1_stays_bounded() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let output = "y".repeat(10_000_000);
    let path = one_bash_call(dir.path(), "cat big", &output);
    let mut app = detail_of_bash(&path);
    render(&mut app, 1, 24);
    // The output is cut at 256 KiB, and the rows at 256 Ki in all.
    assert!(app.detail.lines().len() <= 262_145);
    render(&mut app, 160, 48);
    let text: Vec<String> = app
        .detail
        .lines()
        .iter()
        .map(super::widgets::text::line_text)
        .collect();
    assert!(
        text.iter()
            .any(|l| l == "… 1 more line (9.3 MiB) — press o to show more"),
        "{:?}",
        &text[text.len() - 3..]
    );
}

#[test]
fn a_huge_bash_line_is_parsed_off_the_ui_thread_once() {
    let dir = tempfile::tempdir().expect("a temp dir");
    // 150,000 pipeline stages, 900 KB: seconds of tree-sitter.
    let command = vec!["cat a"; 150_000].join(" | ");
    assert_eq!(command.len(), 150_000 * 5 + 149_999 * 3);
    let path = one_bash_call(dir.path(), &command, "ok");
    let mut app = app_for(&path);
    app.handle(Action::Enter);
    run_requests(&mut app); // the session loads (its first row is the turn)
    app.handle(Action::Down); // onto the Bash call
    let requests = app.take_requests();
    let [
        Request::ParseBash {
            key,
            command: asked,
        },
    ] = requests.as_slice()
    else {
        panic!("one parse request, got {requests:?}");
    };
    assert_eq!(key.0, "toolu_hostile");
    assert_eq!(asked.len(), command.len());
    let text = |app: &App| -> Vec<String> {
        app.detail
            .lines()
            .iter()
            .map(super::widgets::text::line_text)
            .collect()
    };
    assert!(text(&app).iter().any(|l| l == "parsing…"));
    // Moving away and back asks nothing new while the answer is pending.
    app.handle(Action::Up);
    app.handle(Action::Down);
    assert_eq!(app.take_requests(), vec![]);
    // The worker's answer is folded in and kept per call.
    app.apply(Msg::Parsed {
        key: key.clone(),
        line: hookscope::shell::parse_command_line("cat a | cat a"),
    });
    assert!(text(&app).iter().any(|l| l == "runs 2 simple call(s):"));
    app.handle(Action::Up);
    app.handle(Action::Down);
    assert_eq!(app.take_requests(), vec![]);
    assert!(text(&app).iter().any(|l| l == "runs 2 simple call(s):"));
}

#[test]
fn reopening_the_calls_view_types_into_the_filter_line() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:Bash");
    key(&mut app, KeyCode::Enter);
    assert!(!app.calls.editing);
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.view, View::Browse);
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.view, View::Calls);
    assert!(app.calls.editing, "the line has the keys again");
    // So `t`, `e`, `l` are typed, not quick filters.
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, "tool:Edit");
    assert_eq!(app.calls.filter, "tool:Edit");
    // The 2.1.332 projects' Edit calls (recounted with python: 9 tool_use
    // blocks named Edit in real-cc-2.1.332/*/projects/**/*.jsonl, the
    // subagent files included).
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(9));
}

#[test]
fn tab_candidates_popup_moves_takes_and_closes() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:");
    key(&mut app, KeyCode::Tab);
    assert!(app.calls.completing());
    assert_eq!(app.key_mode(), keymap::KeyMode::Completion);
    assert_eq!(app.calls.completions.len(), 13);
    assert_eq!(app.calls.completion_sel, Some(0));
    insta::assert_snapshot!("calls_completion_popup_80x24", render(&mut app, 80, 24));
    // Tab and ↓ move on, Shift-Tab and ↑ back; the list wraps.
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Down);
    assert_eq!(app.calls.completion_sel, Some(2));
    key_mod(&mut app, KeyCode::BackTab, KeyModifiers::SHIFT);
    assert_eq!(app.calls.completion_sel, Some(1));
    key(&mut app, KeyCode::Up);
    key(&mut app, KeyCode::Up);
    assert_eq!(app.calls.completion_sel, Some(12));
    // The last of the 13, scrolled into view, at the wide size.
    insta::assert_snapshot!(
        "calls_completion_popup_last_160x48",
        render(&mut app, 160, 48)
    );
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    assert_eq!(app.calls.completion_sel, Some(1));
    // Enter takes the highlighted name (sorted: Agent, Bash, …).
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.calls.filter, "tool:Bash ");
    assert!(!app.calls.completing());
    assert!(app.calls.editing);
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(52));
    // Esc closes the list and keeps the line.
    keys(&mut app, "is:");
    key(&mut app, KeyCode::Tab);
    assert!(app.calls.completing());
    key(&mut app, KeyCode::Esc);
    assert!(!app.calls.completing());
    assert_eq!(app.calls.filter, "tool:Bash is:");
    assert!(app.calls.editing);
}

#[test]
fn n_without_a_search_says_so_and_moves_nothing() {
    let mut app = opened(TOOLS);
    key(&mut app, KeyCode::Char('j'));
    let sel = app.timeline.sel;
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.timeline.sel, sel);
    assert_eq!(
        app.ctx.message.as_deref(),
        Some("no search: / filters the timeline")
    );
    key(&mut app, KeyCode::Char('N'));
    assert_eq!(app.timeline.sel, sel);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.detail.scroll, 0);
    assert_eq!(
        app.ctx.message.as_deref(),
        Some("no search: / finds text in the detail")
    );
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Sessions);
    let sel = app.list.sel;
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.list.sel, sel);
    assert_eq!(
        app.ctx.message.as_deref(),
        Some("no search: / filters the list")
    );
}

#[test]
fn help_stays_above_the_status_bar_and_scrolls_to_its_end() {
    let mut app = app_for(SUBAGENT);
    key(&mut app, KeyCode::Char('?'));
    key(&mut app, KeyCode::Char('G'));
    // The last page: the mouse lines, and the status bar still there.
    insta::assert_snapshot!("help_end_80x24", render(&mut app, 80, 24));
    let text = render(&mut app, 80, 24);
    let last = text.lines().last().unwrap_or_default();
    assert!(last.contains("? help"), "{last}");
}

#[test]
fn no_session_note_goes_with_its_line() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "session:zzz");
    assert!(
        super::calls::count_text(&app.calls).contains("no session zzz"),
        "{}",
        super::calls::count_text(&app.calls)
    );
    // A line that is not a query yet keeps the last records but not the
    // note about a line no longer there.
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, "tool:");
    assert!(app.calls.error.is_some());
    assert!(!super::calls::count_text(&app.calls).contains("no session"));
}

/// Sets `subagent` on the call `tool_use_id` wherever it is.
fn relink(session: &mut hookscope::transcript::Session, tool_use_id: &str, to: Option<usize>) {
    let turns = session.turns.iter_mut().chain(
        session
            .subagents
            .iter_mut()
            .flat_map(|s| s.turns.iter_mut()),
    );
    for turn in turns {
        for event in &mut turn.events {
            if let hookscope::transcript::Event::ToolCall(r) = event
                && r.tool_use_id == tool_use_id
            {
                r.subagent = to;
            }
        }
    }
}

#[test]
fn a_depth_2_call_names_every_spawn_and_the_subagent_its_model() {
    // The subagent session's Explore subagent (index 2, "Find functions"),
    // re-linked in memory as if the general-purpose one (3, "Inspect
    // repository") had spawned it from its Read call: a depth-2 call (no
    // corpus file nests subagents). Types, descriptions, agent ids and the
    // model are the files' own.
    let mut app = opened(SUBAGENT);
    let mut session = (**app.ctx.session().expect("loaded")).clone();
    relink(&mut session, "toolu_01RNYJFbxX2Ngbhqr7ThQaWg", None);
    relink(&mut session, "toolu_01DIgoxeg8ZxqYQ6XNQPwD7s", Some(2));
    let tree = hookscope::transcript::spawns::SpawnTree::new(&session);
    assert_eq!(super::context::spawn_chain(&tree, 2), vec![3, 2]);
    app.apply(Msg::Loaded {
        index: 0,
        result: Ok(std::sync::Arc::new(session)),
    });
    assert!(
        app.timeline
            .select_call("toolu_01jnpTxdhXKCZgdSENXyt8je", &app.ctx)
    );
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    let text = render(&mut app, 160, 48);
    assert!(
        text.contains(
            "turn 1 › general-purpose “Inspect repository” › Explore “Find functions” › Bash"
        ),
        "{text}"
    );
    let detail: Vec<String> = app
        .detail
        .lines()
        .iter()
        .map(super::widgets::text::line_text)
        .collect::<Vec<_>>();
    let joined = detail.concat();
    assert!(
        joined.contains(
            "of subagent general-purpose “Inspect repository” › Explore “Find functions”"
        ),
        "{joined}"
    );
    // The spawning Read call: the Subagent section names the model, the
    // agent id and the path of spawns.
    assert!(
        app.timeline
            .select_call("toolu_01DIgoxeg8ZxqYQ6XNQPwD7s", &app.ctx)
    );
    render(&mut app, 160, 48);
    let detail: Vec<String> = app
        .detail
        .lines()
        .iter()
        .map(super::widgets::text::line_text)
        .collect();
    let at = detail
        .iter()
        .position(|l| l == "── Subagent ──")
        .expect("a Subagent section");
    assert_eq!(
        detail[at + 1..at + 5],
        [
            "type: Explore",
            "description: Find functions",
            "agent_id: a460e426666c15a15",
            "model: claude-opus-5-5",
        ]
    );
    assert!(
        detail.concat().contains(
            "spawned via: general-purpose “Inspect repository” › Explore “Find functions”"
        ),
        "{detail:?}"
    );
    insta::assert_snapshot!("detail_depth_2_spawn_160x48", render(&mut app, 160, 48));
    insta::assert_snapshot!("detail_depth_2_spawn_80x24", render(&mut app, 80, 24));
}

/// The README's screenshot is this test's render: `hookscope
/// tests/corpus` at 150x32, the `tools` session found with the session
/// search, the timeline filtered to `new_module`, its Edit in Detail. The
/// README's ```text block after "at 150x32" must equal it; run with
/// `HOOKSCOPE_UPDATE_README=1` to rewrite the block.
#[test]
fn readme_screenshot_is_the_render() {
    let corpus = "tests/corpus";
    let mut app = app_for(corpus);
    key(&mut app, KeyCode::Char('/'));
    // fzf's exact matches: Claude Code's tools session (Droid's has no "shell").
    keys(&mut app, "'scenario:tools 'shell");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter); // open it
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "new_module");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('j')); // the Write, then the Edit
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    app.handle(Action::Resize {
        width: 150,
        height: 32,
    });
    let mut terminal = Terminal::new(TestBackend::new(150, 32)).expect("test terminal");
    terminal.draw(|f| draw(f, &app)).expect("draw");
    let screen = buffer_text_with(terminal.backend().buffer(), false);
    assert!(screen.contains("Edit  edit  ✓ ok"), "{screen}");

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).expect("README.md");
    let anchor = "`hookscope tests/corpus` at 150x32";
    let at = readme.find(anchor).expect("the screenshot's caption");
    let open = at + readme[at..].find("```text\n").expect("its text block") + "```text\n".len();
    let close = open + readme[open..].find("```").expect("the block's end");
    if std::env::var_os("HOOKSCOPE_UPDATE_README").is_some() {
        let updated = format!("{}{screen}{}", &readme[..open], &readme[close..]);
        std::fs::write(path, updated).expect("write README.md");
    } else {
        assert_eq!(
            readme[open..close],
            screen,
            "README screenshot is stale: HOOKSCOPE_UPDATE_README=1 cargo test --bin hookscope readme"
        );
    }
}

#[test]
fn the_session_list_takes_a_larger_share_from_180_columns() {
    let rect = |w| ratatui::layout::Rect::new(0, 0, w, 50);
    let width = |w| {
        super::app::areas(rect(w), Pane::Sessions, false)
            .sessions
            .map(|r| r.width)
    };
    assert_eq!(width(160), Some(42)); // 26 %
    assert_eq!(width(200), Some(60)); // 30 %
    assert_eq!(width(100), Some(45)); // two panes, 45 %
}

/// The session's call ids along the fully expanded timeline, with depths.
fn expanded_calls(app: &App) -> Vec<(String, usize)> {
    let session = app.ctx.session().cloned().expect("loaded");
    app.timeline
        .every_row(&app.ctx)
        .iter()
        .filter_map(|r| {
            super::timeline::event_of(&session, r.item)
                .and_then(|e| e.as_tool_call())
                .map(|c| (c.tool_use_id.clone(), r.depth))
        })
        .collect()
}

#[test]
fn a_hand_made_spawn_cycle_renders_expands_and_jumps() {
    // The subagent session re-linked in memory into two cycles: main's
    // Agent call spawns A (3, "Inspect repository"), A's Read spawns B (2,
    // "Find functions"), B's Bash spawns A again; and 0 ("Background
    // check") and 1 ("Read notes") spawn each other, neither reached from
    // the main thread (their main-thread Agent calls unlinked).
    let mut app = opened(SUBAGENT);
    let mut session = (**app.ctx.session().expect("loaded")).clone();
    relink(&mut session, "toolu_01RNYJFbxX2Ngbhqr7ThQaWg", None);
    relink(&mut session, "toolu_01DIgoxeg8ZxqYQ6XNQPwD7s", Some(2));
    relink(&mut session, "toolu_01jnpTxdhXKCZgdSENXyt8je", Some(3));
    relink(&mut session, "toolu_01aWUpYqUJUYg412bh1nwfKI", None);
    relink(&mut session, "toolu_01QsDwoBvXrX9cAOXPn1lNLy", None);
    relink(&mut session, "toolu_01ODoKPi4xQIP1UU1UbS5ZcO", Some(0));
    relink(&mut session, "toolu_01dM1oJYP60BEcdfrRP89wcZ", Some(1));
    app.apply(Msg::Loaded {
        index: 0,
        result: Ok(std::sync::Arc::new(session)),
    });
    // Fully expanded (what the filter searches): each thread once; B's Bash
    // and 1's Read do not expand back into a thread above them.
    let want = [
        ("toolu_01EoVg2LEYBcgsNqrLdx6tDq", 0),
        ("toolu_01dWuUXlkTZoL5K7RXhzXTZs", 1),
        ("toolu_01DIgoxeg8ZxqYQ6XNQPwD7s", 1),
        ("toolu_01jnpTxdhXKCZgdSENXyt8je", 2),
        ("toolu_01RNYJFbxX2Ngbhqr7ThQaWg", 0),
        ("toolu_01aWUpYqUJUYg412bh1nwfKI", 0),
        ("toolu_01QsDwoBvXrX9cAOXPn1lNLy", 0),
        ("toolu_01dM1oJYP60BEcdfrRP89wcZ", 1),
        ("toolu_01ODoKPi4xQIP1UU1UbS5ZcO", 2),
    ];
    let want: Vec<(String, usize)> = want.iter().map(|(id, d)| (id.to_string(), *d)).collect();
    assert_eq!(expanded_calls(&app), want);
    let rows = app.timeline.every_row(&app.ctx);
    assert_eq!(
        rows.iter()
            .filter(|r| matches!(r.item, Item::Unlinked(_)))
            .map(|r| r.item)
            .collect::<Vec<_>>(),
        vec![Item::Unlinked(0)]
    );
    // The jump into B (through A): both spawns above it are expanded.
    assert!(
        app.timeline
            .select_call("toolu_01jnpTxdhXKCZgdSENXyt8je", &app.ctx)
    );
    assert_eq!(app.timeline.expanded.len(), 2);
    // Enter on B's Bash (its spawn back into A does not expand) opens its
    // detail, which names the path of spawns from the main thread.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    let text = render(&mut app, 160, 48);
    assert!(
        text.contains(
            "turn 1 › general-purpose “Inspect repository” › Explore “Find functions” › Bash"
        ),
        "{text}"
    );
    // The jump into the detached cycle: its root row and 0's Bash expand.
    key(&mut app, KeyCode::Esc);
    assert!(
        app.timeline
            .select_call("toolu_01ODoKPi4xQIP1UU1UbS5ZcO", &app.ctx)
    );
    assert!(app.timeline.expanded.contains(&Item::Unlinked(0)));
    assert_eq!(app.timeline.expanded.len(), 4);
    let text = render(&mut app, 160, 48);
    assert!(
        text.contains("▾ detached subagent general-purpose a0ddb8d7d9a82d5f"),
        "{text}"
    );
    let session = app.ctx.session().cloned().expect("loaded");
    let tree = app.ctx.spawns().cloned().expect("loaded");
    assert_eq!(
        super::timeline::row_text(&session, &tree, Item::Unlinked(0)),
        "detached subagent general-purpose a0ddb8d7d9a82d5fb — Background check"
    );
    // Detail names it detached, not unlinked.
    app.timeline.sel = Some(Item::Unlinked(0));
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('k'));
    let detail: Vec<String> = app
        .detail
        .lines()
        .iter()
        .map(super::widgets::text::line_text)
        .collect();
    assert_eq!(
        detail.first().map(String::as_str),
        Some("── Detached subagent ──"),
        "{detail:?}"
    );
    // Every row expanded by hand, then drawn at both sizes: it ends.
    for row in app.timeline.every_row(&app.ctx) {
        app.timeline.expanded.insert(row.item);
    }
    assert_eq!(
        app.timeline.all_rows(&app.ctx).len(),
        app.timeline.every_row(&app.ctx).len()
    );
    render(&mut app, 80, 24);
    render(&mut app, 160, 48);
}

#[test]
fn the_turn_detail_and_the_session_row_count_alike() {
    // The real subagent session (recounted with python): 4 Agent calls in
    // turn 1 of the main file, 5 calls in its 4 subagent files, no
    // `is_error: true` result. The turn's counts include its subagents'
    // calls, so they equal the session's (the core's one definition).
    let mut app = opened(SUBAGENT);
    let text = render(&mut app, 160, 48);
    assert!(text.contains("1 turn, 9 calls, 0 err, 4 sub"), "{text}");
    app.timeline.sel = Some(Item::Turn(0));
    key(&mut app, KeyCode::Enter);
    render(&mut app, 160, 48);
    let detail: Vec<String> = app
        .detail
        .lines()
        .iter()
        .map(super::widgets::text::line_text)
        .collect();
    assert!(
        detail
            .contains(&"counts: 9 tool calls (5 in subagents), 0 errors, 4 subagents".to_string()),
        "{detail:?}"
    );
    let summary = app.ctx.sessions[0].summary.clone().expect("summarized");
    assert_eq!(
        (summary.tool_calls, summary.errors, summary.subagents),
        (9, 0, 4)
    );
}

/// A Codex rollout with one `exec_command` call (as tests/cli.rs builds).
fn codex_rollout(id: &str, time: &str, cmd: &str) -> String {
    let lines = [
        serde_json::json!({"timestamp": time, "type": "session_meta",
            "payload": {"id": id, "timestamp": time, "cwd": "/w", "cli_version": "0.171.0"}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "list files"}]}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "function_call", "name": "exec_command",
                "arguments": serde_json::json!({"cmd": cmd}).to_string(), "call_id": format!("call_{cmd}")}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": format!("call_{cmd}"),
                "output": "Process exited with code 0\nOutput:\n"}}),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn the_calls_list_names_time_based_ids_by_unique_prefixes() {
    // Two Codex sessions whose UUIDv7 ids share 12 hex chars: an 8-char
    // cut names both; the list shows each by its shortest unique prefix.
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = dir.path().join("sessions/2026/11/29");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    let a = "019ad8e1-4b2c-7a10-8f00-0123456789ab";
    let b = "019ad8e1-4b2c-7d55-9e11-fedcba987654";
    for (id, time, cmd) in [
        (a, "2026-11-29T18:00:01Z", "pwd"),
        (b, "2026-11-29T18:00:02Z", "ls"),
    ] {
        std::fs::write(
            sessions.join(format!("rollout-2026-11-29T18-00-00-{id}.jsonl")),
            codex_rollout(id, time, cmd),
        )
        .expect("write rollout");
    }
    let mut app = app_for(dir.path().to_str().expect("utf-8 temp path"));
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:exec_command");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.calls.records().len(), 2);
    let text = render(&mut app, 160, 48);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("exec_command") && l.contains("11-29 18:00"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows[0].contains("11-29 18:00 019ad8e1-4b2c-7d bash  exec_command [codex] ls"),
        "{text}"
    );
    assert!(
        rows[1].contains("11-29 18:00 019ad8e1-4b2c-7a bash  exec_command [codex] pwd"),
        "{text}"
    );
}

/// Selects the call whose one-line summary starts with `prefix`.
fn select_call_summary(app: &mut App, prefix: &str) {
    let session = app.ctx.session().cloned().expect("loaded");
    let item = app
        .timeline
        .rows(&app.ctx)
        .into_iter()
        .find(|r| {
            super::timeline::event_of(&session, r.item)
                .and_then(|e| e.as_tool_call())
                .is_some_and(|c| c.summary().starts_with(prefix))
        })
        .map(|r| r.item);
    assert!(item.is_some(), "no call {prefix}");
    app.timeline.sel = item;
}

/// The Detail title's `(k/n)` as drawn.
fn detail_count(screen: &str) -> String {
    let at = screen.find("Detail /echo (").expect("the search title");
    let rest = &screen[at + "Detail /echo (".len()..];
    rest[..rest.find(')').expect("closing paren")].to_string()
}

/// The line (row of the screen) and text of the cells drawn in the
/// current-match style (bold, underlined, reversed in the colourless theme).
fn current_match_cells(app: &mut App, width: u16, height: u16) -> Vec<(u16, String)> {
    use ratatui::style::Modifier;
    app.handle(Action::Resize { width, height });
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal.draw(|f| draw(f, app)).expect("draw");
    let buffer = terminal.backend().buffer();
    let want = Modifier::REVERSED | Modifier::BOLD | Modifier::UNDERLINED;
    let mut out: Vec<(u16, String)> = Vec::new();
    for y in 0..height {
        let mut run = String::new();
        for x in 0..width {
            let cell = &buffer[(x, y)];
            if cell.modifier.contains(want) {
                run.push_str(cell.symbol());
            } else if !run.is_empty() {
                out.push((y, std::mem::take(&mut run)));
            }
        }
        if !run.is_empty() {
            out.push((y, run));
        }
    }
    out
}

/// `n`/`N` step a current match over every occurrence of `/echo` in the
/// Detail of `Bash sh -c 'echo partial…'` (tools session), wrapping; the
/// title counts occurrences (recounted over the drawn lines); each step
/// shows exactly one current match, on screen, at 200x50 (no scrolling)
/// and at 80x24 (scrolling as needed).
#[test]
fn detail_search_steps_through_every_occurrence() {
    for (width, height) in [(200u16, 50u16), (80, 24)] {
        let mut app = opened(TOOLS);
        render(&mut app, width, height);
        select_call_summary(&mut app, "sh -c 'echo partial");
        key(&mut app, KeyCode::Char('l'));
        assert_eq!(app.focus, Pane::Detail);
        render(&mut app, width, height);
        key(&mut app, KeyCode::Char('/'));
        keys(&mut app, "echo");
        key(&mut app, KeyCode::Enter);
        let screen = render(&mut app, width, height);
        let (hits, current) = app.detail.matches();
        let total = hits.len();
        // Recount: every occurrence in the drawn lines.
        let recount: usize = app
            .detail
            .lines()
            .iter()
            .map(|l| {
                super::widgets::text::line_text(l)
                    .to_lowercase()
                    .matches("echo")
                    .count()
            })
            .sum();
        assert_eq!(total, recount);
        // The command (line 31 of the transcript) has `echo` twice; it is
        // shown three times: the input's `command`, the breakdown's whole
        // line and its two parts (one each).
        assert_eq!(total, 6, "{width}x{height}");
        if width == 200 {
            assert_eq!(
                hits,
                vec![(6, 21), (6, 42), (15, 11), (15, 32), (16, 10), (17, 10)]
            );
        }
        assert_eq!(current, Some(0));
        assert_eq!(detail_count(&screen), format!("1/{total}"));
        let mut seen = Vec::new();
        for k in 1..=total {
            let cur = current_match_cells(&mut app, width, height);
            assert_eq!(cur.len(), 1, "{width}x{height} step {k}: {cur:?}");
            assert_eq!(cur[0].1.to_lowercase(), "echo");
            seen.push(hits[k - 1]);
            key(&mut app, KeyCode::Char('n'));
            let screen = render(&mut app, width, height);
            let next = k % total + 1;
            assert_eq!(detail_count(&screen), format!("{next}/{total}"));
        }
        assert_eq!(seen, hits);
        // Back one from the first wraps to the last.
        key(&mut app, KeyCode::Char('N'));
        let screen = render(&mut app, width, height);
        assert_eq!(detail_count(&screen), format!("{total}/{total}"));
        assert_eq!(current_match_cells(&mut app, width, height).len(), 1);
        if width == 200 {
            // Everything fits: stepping never scrolls.
            assert_eq!(app.detail.scroll, 0);
        }
    }
}

/// At 80 columns over the whole corpus, a call inside the "Inspect
/// repository" subagent keeps the breadcrumb's end (`turn 1 › spawn ›
/// Bash`); the session title is what is cut.
#[test]
fn breadcrumb_at_80_columns_keeps_turn_spawn_and_tool() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "'scenario:subagent");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter); // open it
    assert!(
        app.timeline
            .select_call("toolu_01dWuUXlkTZoL5K7RXhzXTZs", &app.ctx)
    );
    let screen = render(&mut app, 80, 24);
    let last = screen.lines().last().expect("a status line").to_string();
    // The counts take 30 cells: the spawn is named by its type, the title
    // cut to what is left.
    assert_eq!(
        last,
        " [scenario:su… › turn 1 › general-purpose › Bash 9 sessions · D 0 diag · ? help"
    );
}

/// The Calls view's session column over long non-UUID ids: 12 columns
/// (`tool-call-s…`), not the whole id; the record pane names it whole.
#[test]
fn calls_view_caps_long_non_uuid_session_ids() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = dir.path().join("sessions/2026/11/29");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    let id = "tool-call-session-id";
    let time = "2026-11-29T18:00:01Z";
    let lines = [
        serde_json::json!({"timestamp": time, "type": "session_meta",
            "payload": {"id": id, "timestamp": time, "cwd": "/w", "cli_version": "0.171.0"}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "list files"}]}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "function_call", "name": "exec_command",
                "arguments": serde_json::json!({"cmd": "pwd"}).to_string(), "call_id": "call_1"}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(sessions.join("rollout-2026-11-29T18-00-00-x.jsonl"), text).expect("write");
    let mut app = app_for(dir.path().to_str().expect("UTF-8 temp path"));
    key(&mut app, KeyCode::Char('c'));
    let screen = render(&mut app, 80, 24);
    let row = screen
        .lines()
        .find(|l| l.contains("exec_command") && l.contains("pwd"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(row.contains(" tool-call-s… "), "{row}");
    assert!(!row.contains(id), "{row}");
    assert!(
        screen.contains(&format!("session: {id} (codex)")),
        "{screen}"
    );
}

#[test]
fn api_error_rows_say_api_error_once() {
    use super::timeline::api_error_line;
    assert_eq!(
        api_error_line("status 529: Overloaded"),
        "API error: status 529: Overloaded"
    );
    // Claude Code's own isApiErrorMessage text keeps its prefix, not ours too.
    assert_eq!(api_error_line("API Error: 500 boom"), "API Error: 500 boom");
}

/// `tool:Ba` + Tab lists the names that fit and extends the line to their
/// common prefix; a second Tab on `tool:Bash` (a full name) takes it and
/// closes the list, as does Tab on `tool:Bash` typed in full.
#[test]
fn tab_on_a_full_name_takes_it() {
    let mut app = app_for("tests/corpus");
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:Ba");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.filter, "tool:Bash");
    assert_eq!(
        app.calls.completions,
        vec!["tool:Bash ", "tool:BashOutput "]
    );
    key(&mut app, KeyCode::Tab);
    assert!(!app.calls.completing());
    assert_eq!(app.calls.filter, "tool:Bash ");

    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, "tool:bash");
    key(&mut app, KeyCode::Tab);
    assert!(!app.calls.completing());
    assert_eq!(app.calls.filter, "tool:Bash ");
}

// ---- the replay pane (issue 8 §4–5) ----------------------------------------

const DENY: &str = "tests/corpus/real-cc-2.1.332/hooks_c3_deny_json/projects/-home-dev-work-hooks-c3-deny-json/f887d501-79d2-484e-916a-82bc1a5c1146.jsonl";
/// The `rm -rf build/` call a test hook denied (line 44 of [`DENY`]).
const RM_RF: &str = "toolu_0138h77ojpT1t3A4y1yWKgjr";
const EXAMPLE_RULES: &str = "assets/rules/example.toml";

/// The deny session opened, with `rules` loaded (as `--rules` does), a
/// captured clipboard, and the replay pane open on the `rm -rf` call.
fn replay_on_rm_rf(rules: Option<&str>) -> (App, super::clipboard::Captured) {
    let mut app = opened(DENY);
    if let Some(path) = rules {
        app.ctx.rules = super::context::Rules::load(std::path::Path::new(path));
    }
    let captured = super::clipboard::Captured::default();
    app.clipboard = Box::new(captured.clone());
    assert!(
        app.timeline.select_call(RM_RF, &app.ctx),
        "the call is in the timeline"
    );
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(app.overlay, Some(Overlay::Replay));
    (app, captured)
}

fn rm_rf_payload(app: &App) -> hookscope::hooks::events::Payload {
    let session = app.ctx.session().expect("loaded");
    hookscope::hooks::events::payload(
        session,
        hookscope::hooks::events::EventName::PreToolUse,
        &hookscope::hooks::events::At::ToolUseId(RM_RF.into()),
    )
    .expect("a PreToolUse payload")
}

#[test]
fn replay_pane_picks_events_and_shows_the_rules_why() {
    use hookscope::hooks::events::{At, EventName, events_at};
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
    let mut counts = hookscope::redact::Redactions::default();
    let masked = hookscope::redact::redactor().redact_value(&built.json, &mut counts);
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
                super::replay::size_text(want.len())
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
    let set = hookscope::hooks::rules::RuleSet::load(copy.path()).expect("the case parses");
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

/// [`render`] with the payload's `transcript_path` (the file's real,
/// absolute path) set to `<path>` before drawing, so the snapshot (and how
/// its lines wrap) does not depend on where the checkout is.
fn render_replay(app: &mut App, width: u16, height: u16) -> String {
    if let Some((masked, _)) = app.replay.masked.as_mut()
        && let Some(path) = masked.get_mut("transcript_path")
    {
        *path = serde_json::Value::String("<path>".into());
    }
    render(app, width, height)
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
    assert_eq!(app.replay.at, Some(hookscope::hooks::events::At::Last));
    let session = app.ctx.session().cloned().expect("loaded");
    assert_eq!(
        app.replay.events,
        hookscope::hooks::events::events_at(&session, &hookscope::hooks::events::At::Last)
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

#[test]
fn bad_rules_file_lists_its_errors_in_the_pane() {
    let (app, _) = replay_on_rm_rf(Some("tests/fixtures/tui_bad_rules.toml"));
    let super::context::Rules::Failed { errors, .. } = &app.ctx.rules else {
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
fn backtest_lists_would_be_blocks_and_enter_jumps() {
    let mut app = app_for(CORPUS);
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    assert_eq!(
        app.ctx.message.as_deref(),
        Some("no rule set loaded: start hookscope with --rules FILE to backtest it")
    );
    app.ctx.rules = super::context::Rules::load(std::path::Path::new(EXAMPLE_RULES));
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    assert_eq!(app.overlay, Some(Overlay::Backtest));
    let total = app.ctx.sessions.len();
    assert_eq!(app.backtest.progress, Some((total, total)));
    let rows: Vec<(String, String)> = app
        .backtest
        .blocks
        .iter()
        .map(|b| (b.rule.clone(), b.example.summary.clone()))
        .collect();
    // example.toml blocks exactly the six `rm -rf build/` Bash calls of the
    // hooks runs (one per hooks session; see the Calls view test), all by
    // no-rm-rf.
    assert_eq!(rows.len(), 6, "{rows:?}");
    assert!(
        rows.iter()
            .all(|(r, s)| r == "no-rm-rf" && s == "Bash rm -rf build/"),
        "{rows:?}"
    );
    insta::assert_snapshot!("backtest_80x24", render(&mut app, 80, 24));
    insta::assert_snapshot!("backtest_160x48", render(&mut app, 160, 48));
    // Enter on the first jumps to its call in the timeline.
    let first = app.backtest.blocks[0].clone();
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.overlay, None);
    assert_eq!(app.view, View::Browse);
    assert_eq!(app.ctx.open.as_ref().map(|o| o.index), Some(first.index));
    let selected = app
        .timeline
        .selected_call(&app.ctx)
        .map(|c| c.tool_use_id.clone());
    assert_eq!(selected, first.example.tool_use_id);
}

#[test]
fn test_case_of_a_hostile_payload_parses_back() {
    use hookscope::hooks::rules::{History, RuleSet};
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
    let case = super::replay::test_case(&payload, &history, Some(&rules), "x.jsonl line 1");
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
    use hookscope::hooks::events::{At, EventName};
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

/// A would-be block on a Stop (not on a tool call): Enter jumps to its line
/// in the timeline. c8435c6b's Stops are anchored at the assistant texts of
/// lines 75 and 82.
#[test]
fn backtest_enter_on_a_stop_block_jumps_to_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("r.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"stop\"\nevents = \"Stop\"\naction = \"block\"\nreason = \"no\"\n",
    )
    .expect("write");
    let mut app = app_for("tests/corpus/real-cc-2.1.332/hooks_c5_stop_block");
    app.ctx.rules = super::context::Rules::load(&rules);
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    assert_eq!(app.overlay, Some(Overlay::Backtest));
    let ats: Vec<Option<String>> = app
        .backtest
        .blocks
        .iter()
        .map(|b| b.example.at.clone())
        .collect();
    assert_eq!(ats, [Some("line:75".into()), Some("line:82".into())]);
    let selected_line = |app: &App| match app.timeline.sel {
        Some(Item::Event {
            thread: Thread::Main,
            turn,
            event,
        }) => app.ctx.session().expect("open").turns[turn].events[event].line(),
        other => panic!("selected {other:?}"),
    };
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.overlay, None);
    assert_eq!(app.focus, Pane::Timeline);
    assert_eq!(selected_line(&app), 75);
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    assert_eq!(selected_line(&app), 82);
}

/// What the status bar says at start about `--rules`: nothing for the
/// example (it loads without warnings), the refusal with its count for a
/// bad file, and the first warning for a Stop block that would loop.
#[test]
fn rules_startup_message_names_a_refusal_or_the_warnings() {
    use super::context::Rules;
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

/// The replay pane lists the loaded rule set's warnings (issue 8 §4), as
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
    let super::context::Rules::Loaded(set) = &app.ctx.rules else {
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

/// An OpenCode session (1.1.65 JSON storage) whose `task` call's child
/// session is expanded in place under it.
#[test]
fn snapshot_opencode_session_with_a_child_session_expanded() {
    let mut app = opened(
        "tests/corpus/real-opencode-1.1.65-legacy-json/data/storage/session/b1b723701d29a26aff31b3aa001b8ee39b69a447/ses_dcc99b764ffejo4IzDVf1tRC9K.json",
    );
    select_call(&mut app, "task");
    key(&mut app, KeyCode::Enter); // expand
    key(&mut app, KeyCode::Enter); // onto its first child
    insta::assert_snapshot!("opencode_child_expanded_160x48", render(&mut app, 160, 48));
}

/// A Droid session with its hook runs in the timeline as typed firings: the
/// `rm -rf` call marked `⛔ hook blocked` (its PreToolUse exit 2), `⚑`
/// rows for SessionStart (in the first turn), Stop and SessionEnd.
#[test]
fn snapshot_droid_session_with_its_hook_runs() {
    let mut app = opened(
        "tests/corpus/real-droid-0.225.2/factory/sessions/-home-dev-work-dr-errors/1b9da415-c5e6-4a90-b936-c8633676babf.jsonl",
    );
    insta::assert_snapshot!("droid_hook_runs_160x48", render(&mut app, 160, 48));
}

// ---- the replay pane's "Your hooks" and `x` (issue 9) ----------------------

const EXIT2: &str = "tests/corpus/real-cc-2.1.332/hooks_c2_exit2/projects/-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl";
/// The `rm -rf` call the session's PreToolUse hook blocked with exit 2.
const EXIT2_RM_RF: &str = "toolu_01GFEgALJm405nI2WctBocud";
const EXIT2_SETTINGS: &str = "assets/examples/hooks_c2_exit2/.claude/settings.json";

/// The exit-2 session opened with `settings` given (as `--settings`), the
/// replay pane open on its `rm -rf` call.
fn replay_exit2(settings: &[&str]) -> App {
    let mut app = app_for(EXIT2);
    app.ctx.settings = settings.iter().map(PathBuf::from).collect();
    key(&mut app, KeyCode::Enter);
    assert!(
        app.timeline.select_call(EXIT2_RM_RF, &app.ctx),
        "the call is in the timeline"
    );
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(app.overlay, Some(Overlay::Replay));
    app
}

#[test]
fn snapshot_replay_your_hooks() {
    let mut app = replay_exit2(&[EXIT2_SETTINGS]);
    // The one handler: a Bash PreToolUse command that fires on this call.
    assert_eq!(app.replay.verdicts.len(), 1);
    assert!(app.replay.verdicts[0].fires);
    insta::assert_snapshot!("replay_your_hooks_160x48", render_replay(&mut app, 160, 48));
    insta::assert_snapshot!("replay_your_hooks_80x24", render_replay(&mut app, 80, 24));
}

#[test]
fn replay_without_settings_says_where_it_looked() {
    let app = replay_exit2(&[]);
    let (main, _) = app.replay.lines(&app.ctx);
    let text: Vec<String> = main.iter().map(ToString::to_string).collect();
    let i = text
        .iter()
        .position(|l| l == "Your hooks")
        .expect("a Your hooks heading");
    assert!(
        text[i + 1].starts_with(
            "  no settings file found (looked for /nonexistent/managed-settings.json, /nonexistent/claude-config/settings.json"
        ),
        "{}",
        text[i + 1]
    );
    assert!(text[i + 1].ends_with("pass `hookscope --settings FILE` to use one"));
}

#[test]
fn replay_survives_a_fifo_and_invalid_json_settings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("fifo.json");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"hooks\": {\"PreToolUse\": [").expect("write");
    let (f, b) = (fifo.display().to_string(), bad.display().to_string());
    let mut app = replay_exit2(&[&f, &b]);
    assert!(app.replay.verdicts.is_empty());
    let (_, config) = app.replay.hooks.clone().expect("loaded");
    assert_eq!(config.files.len(), 2);
    assert!(config.files.iter().all(|f| !f.problems.is_empty()));
    // It still draws.
    let screen = render_replay(&mut app, 160, 48);
    assert!(screen.contains("Your hooks"));
}

#[test]
fn transcript_recorded_uses_the_parsed_hook_activity() {
    let app = replay_exit2(&[]);
    let (_, rec) = app.replay.lines(&app.ctx);
    let text: Vec<String> = rec.iter().map(ToString::to_string).collect();
    assert!(
        text.iter()
            .any(|l| l == "  handler: python3 /home/dev/.hooks/hook.py hooks_c2_exit2 PreToolUse"),
        "{text:?}"
    );
    assert!(text.iter().any(|l| l == "  exit 2"), "{text:?}");
}

/// The screen with the `x` plan's temporary folder written as `<tmp>` and
/// `example` (a copy of the scenario's project, see [`example_copy`])
/// as `<example>`, each padded to its length so the frame stays aligned.
/// Both are fixed-length `/tmp/…` names, so the wrapping does not depend
/// on where the repository is checked out.
fn render_plan(app: &mut App, width: u16, height: u16, example: &std::path::Path) -> String {
    let tmp = app
        .replay
        .confirm
        .as_ref()
        .map(|p| p.scratch.path().display().to_string());
    let mut screen = render_replay(app, width, height);
    for (path, name) in [
        (tmp, "<tmp>"),
        (Some(example.display().to_string()), "<example>"),
    ] {
        if let Some(p) = path {
            screen = screen.replace(&p, &format!("{:<1$}", name, p.chars().count()));
        }
    }
    screen
}

/// A copy of assets/examples/hooks_c2_exit2 (settings and hook script,
/// executable) in a fixed-length `/tmp/hsXXXXXX` folder; returns the
/// folder and the copied settings file.
fn example_copy() -> (tempfile::TempDir, String) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("hs")
        .rand_bytes(6)
        .tempdir_in("/tmp")
        .expect("tempdir");
    let hooks = dir.path().join(".claude/hooks");
    std::fs::create_dir_all(&hooks).expect("mkdir");
    let from = std::path::Path::new("assets/examples/hooks_c2_exit2/.claude");
    std::fs::copy(
        from.join("settings.json"),
        dir.path().join(".claude/settings.json"),
    )
    .expect("copy settings");
    let script = hooks.join("block_rm_rf.sh");
    std::fs::copy(from.join("hooks/block_rm_rf.sh"), &script).expect("copy script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let settings = dir
        .path()
        .join(".claude/settings.json")
        .display()
        .to_string();
    (dir, settings)
}

#[test]
fn snapshot_run_hooks_confirmation() {
    let (example, settings) = example_copy();
    let mut app = replay_exit2(&[&settings]);
    key(&mut app, KeyCode::Char('x'));
    let plan = app.replay.confirm.clone().expect("the dialog is open");
    assert_eq!(plan.specs.len(), 1);
    assert_eq!(
        plan.specs[0].argv(),
        [
            "sh",
            "-c",
            "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block_rm_rf.sh"
        ]
    );
    // The session's cwd does not exist here: the project folder holding
    // the given settings, where Claude Code runs hooks when the cwd is gone.
    assert_eq!(plan.specs[0].cwd, example.path());
    let ex = example.path();
    insta::assert_snapshot!(
        "replay_run_confirm_160x48",
        render_plan(&mut app, 160, 48, ex)
    );
    insta::assert_snapshot!(
        "replay_run_confirm_80x24",
        render_plan(&mut app, 80, 24, ex)
    );
}

/// The run dialog is tall enough for its text once wrapped at word
/// boundaries: the last line of the project note is on screen at every
/// width (before: the height came from the text's width, a row short when
/// words wrapped early, and the note was cut at 200x50).
#[test]
fn the_run_dialog_shows_its_last_line() {
    // Settings outside a `.claude/` folder: the hook runs in a temporary
    // folder, whose long name wraps the cwd note early.
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = marker_settings(dir.path(), &dir.path().join("never-run"));
    let s = settings.display().to_string();
    let mut app = replay_exit2(&[&s]);
    key(&mut app, KeyCode::Char('x'));
    for w in (90..=200).step_by(5) {
        let screen = render_plan(&mut app, w, 50, dir.path());
        assert!(
            screen.contains("folder)"),
            "{w}x50: the note's end is cut:\n{screen}"
        );
    }
}

/// The dialog says what was left out of a hook's environment before
/// anything runs (a transcript value not of its known form), as `replay
/// --exec` says it on stderr (before: the dialog did not show it).
#[test]
fn the_run_dialog_names_what_was_left_out_of_the_environment() {
    let (_example, settings) = example_copy();
    let mut app = replay_exit2(&[&settings]);
    key(&mut app, KeyCode::Char('x'));
    let plan = app.replay.confirm.take().expect("the dialog is open");
    let mut plan = std::sync::Arc::try_unwrap(plan).expect("one owner");
    plan.env_warnings.push(hookscope::hooks::exec::EnvWarning {
        arg: "CLAUDE_CODE_ENTRYPOINT".into(),
        message:
            "the transcript's value \"cli$(touch X)\" is not of the form Claude Code sets; left out"
                .into(),
        transcript: true,
    });
    let lines: Vec<String> = super::replay::ReplayPane::confirm_lines(&plan, &app.ctx)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines.last().map(String::as_str),
        Some(
            "left out of the environment: CLAUDE_CODE_ENTRYPOINT: the transcript's value \"cli$(touch X)\" is not of the form Claude Code sets; left out"
        )
    );
}

/// A settings file in `dir` whose one PreToolUse Bash handler creates
/// `marker`.
fn marker_settings(dir: &std::path::Path, marker: &std::path::Path) -> PathBuf {
    let settings = dir.join("settings.json");
    let hook = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("touch '{}'", marker.display())}
    ]}]}});
    std::fs::write(&settings, hook.to_string()).expect("write settings");
    settings
}

#[test]
fn run_hooks_needs_the_dialogs_enter() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("ran");
    let settings = marker_settings(dir.path(), &marker);
    let s = settings.display().to_string();
    let mut app = replay_exit2(&[&s]);
    // Esc cancels: nothing ran.
    key(&mut app, KeyCode::Char('x'));
    assert!(app.replay.confirm.is_some());
    key(&mut app, KeyCode::Esc);
    assert!(app.replay.confirm.is_none());
    assert_eq!(
        app.overlay,
        Some(Overlay::Replay),
        "Esc closes only the dialog"
    );
    assert_eq!(app.ctx.message.as_deref(), Some("cancelled: nothing ran"));
    // `n` cancels too.
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Char('n'));
    assert!(app.replay.confirm.is_none());
    assert!(app.replay.run.is_none());
    assert!(!marker.exists(), "nothing runs without Enter");
    // Enter runs it (the worker's run, synchronously here).
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Enter);
    assert!(marker.exists(), "Enter runs the handler");
    let Some((_, _, Some(report))) = &app.replay.run else {
        panic!("a report")
    };
    assert_eq!(report.handlers.len(), 1);
    assert_eq!(report.handlers[0].exit_code, Some(0));
    // The transcript recorded a block (exit 2); the marker hook allows.
    let (main, _) = app.replay.lines(&app.ctx);
    let text: Vec<String> = main.iter().map(ToString::to_string).collect();
    assert!(
        text.contains(
            &"  vs the transcript: then: PreToolUse hook blocked the call (exit 2); now: did nothing — differs: your hooks no longer block here"
                .to_string()
        ),
        "{text:?}"
    );
}

#[test]
fn a_clean_stop_hook_run_is_recorded_not_no_hook_ran() {
    use hookscope::hooks::events::EventName;
    let mut app = opened(EXIT2);
    key(&mut app, KeyCode::BackTab);
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(app.overlay, Some(Overlay::Replay));
    let stop = app
        .replay
        .events
        .iter()
        .position(|e| *e == EventName::Stop)
        .expect("a Stop entry");
    for _ in 0..stop {
        key(&mut app, KeyCode::Char('j'));
    }
    assert_eq!(app.replay.picked(), Some(EventName::Stop));
    let (_, rec) = app.replay.lines(&app.ctx);
    let text: Vec<String> = rec.iter().map(ToString::to_string).collect();
    // Line 76: a stop_hook_summary with one handler, no errors.
    assert_eq!(
        text[..5],
        [
            "Transcript recorded",
            "Stop hook, line 76",
            "  ran, no effect",
            "  handler: python3 /home/dev/.hooks/hook.py hooks_c2_exit2 Stop",
            "  18 ms",
        ],
        "{text:?}"
    );
    assert!(!text.iter().any(|l| l.contains("no hook ran here")));
}

#[test]
fn run_hooks_with_the_scenarios_settings_agrees_with_the_transcript() {
    let mut app = replay_exit2(&[EXIT2_SETTINGS]);
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Enter);
    let Some((_, _, Some(report))) = &app.replay.run else {
        panic!("a report")
    };
    // block_rm_rf.sh exits 2 on `rm -rf`, as the recorded hook did.
    assert_eq!(report.handlers[0].exit_code, Some(2));
    let (main, _) = app.replay.lines(&app.ctx);
    let text: Vec<String> = main.iter().map(ToString::to_string).collect();
    assert!(
        text.contains(
            &"    stderr: Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)"
                .to_string()
        ),
        "{text:?}"
    );
    assert!(
        text.contains(
            &"  vs the transcript: then: PreToolUse hook blocked the call (exit 2); now: blocked the call — agrees"
                .to_string()
        ),
        "{text:?}"
    );
    assert!(
        text.contains(
            &"  final vs the transcript: recorded reject (hook, hook:PreToolUse); simulated reject (hook, hook:PreToolUse) — agrees"
                .to_string()
        ),
        "{text:?}"
    );
    // The status bar says the run ended (it said "running hooks…").
    assert_eq!(
        app.ctx.message.as_deref(),
        Some("ran 1 hook handler for PreToolUse (results in the pane)")
    );
    // Picking another event drops the run.
    key(&mut app, KeyCode::Char('j'));
    assert!(app.replay.run.is_none());
}

/// The write prompt (`w`) expands `~` and `~/…` to the home folder, as a
/// shell does; `~user` and other paths stay as typed.
#[test]
fn write_prompt_expands_the_home_folder() {
    use super::replay::expand_home;
    let home = std::path::Path::new("/home/u");
    assert_eq!(expand_home("~/p.json", Some(home)), "/home/u/p.json");
    assert_eq!(expand_home("~", Some(home)), "/home/u");
    assert_eq!(expand_home("~bob/p.json", Some(home)), "~bob/p.json");
    assert_eq!(expand_home("./p.json", Some(home)), "./p.json");
    assert_eq!(expand_home("~/p.json", None), "~/p.json");
}

// ---- the replay pane on a Codex session (issue 10 §1) ----------------------

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
        .map(|(_, c)| c.clone())
        .expect("loaded");
    assert_eq!(config.agent, hookscope::transcript::Agent::Codex);
    assert_eq!(app.replay.verdicts.len(), 1);
    let v = &app.replay.verdicts[0];
    assert!(!v.fires);
    assert!(
        v.reason.starts_with("never runs: not trusted"),
        "{}",
        v.reason
    );
    let (main, _) = app.replay.lines(&app.ctx);
    let text: Vec<String> = main.iter().map(ToString::to_string).collect();
    assert!(
        text.iter()
            .any(|l| l.starts_with("Your hooks (") && l.contains("hooks.json")),
        "{text:?}"
    );
    // No rule set is offered for a Codex session: they do not apply.
    assert!(
        text.iter()
            .any(|l| l.starts_with("rule sets are evaluated on Claude Code and Droid events only")),
        "{text:?}"
    );
    assert!(
        !text.iter().any(|l| l.contains("hookscope --rules")),
        "{text:?}"
    );
}

/// A Claude Code session in `dir` with one prompt and `calls` Bash calls
/// `echo call-<i>` (i from 0), each answered `out <i>`. Returns its path.
fn many_bash_calls(dir: &std::path::Path, calls: usize) -> String {
    let id = "22222222-3333-4444-8555-666666666666";
    let head = serde_json::json!({
        "type": "user", "uuid": "u0", "parentUuid": null, "sessionId": id,
        "isSidechain": false, "cwd": "/tmp/long", "timestamp": "2026-11-29T18:00:00.000Z",
        "message": {"role": "user", "content": "go"}
    });
    let mut text = head.to_string() + "\n";
    let mut parent = "u0".to_string();
    for i in 0..calls {
        let (a, r) = (format!("a{i}"), format!("r{i}"));
        let call = serde_json::json!({
            "type": "assistant", "uuid": a, "parentUuid": parent, "sessionId": id,
            "isSidechain": false, "cwd": "/tmp/long", "timestamp": "2026-11-29T18:00:01.000Z",
            "message": {"id": format!("msg_{i}"), "role": "assistant", "model": "claude-test",
                "content": [{"type": "tool_use", "id": format!("toolu_{i:05}"), "name": "Bash",
                    "input": {"command": format!("echo call-{i}")}}]}
        });
        let result = serde_json::json!({
            "type": "user", "uuid": r, "parentUuid": a, "sessionId": id,
            "isSidechain": false, "cwd": "/tmp/long", "timestamp": "2026-11-29T18:00:02.000Z",
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("toolu_{i:05}"),
                 "content": format!("out {i}")}
            ]}
        });
        text.push_str(&format!("{call}\n{result}\n"));
        parent = r;
    }
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, text).expect("write the session");
    path.to_string_lossy().into_owned()
}

/// A Timeline of 5,001 rows (a turn and 5,000 calls): End selects the last
/// call, which is drawn selected on the pane's last row, the rows above it
/// the calls before it; only the rows on screen are built
/// (`timeline::window`).
#[test]
fn a_long_timeline_shows_its_last_call_selected() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = many_bash_calls(dir.path(), 5_000);
    let mut app = opened(&path);
    assert_eq!(app.timeline.rows(&app.ctx).len(), 5_001);
    render(&mut app, 160, 48);
    key(&mut app, KeyCode::End);
    let screen = render(&mut app, 160, 48);
    let call = app
        .timeline
        .selected_call(&app.ctx)
        .expect("a call selected");
    assert_eq!(call.tool_use_id, "toolu_04999");
    // The Timeline's rows: between its top and bottom borders.
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("Bash echo call-"))
        .collect();
    let last = rows.last().expect("call rows drawn");
    assert!(last.contains("▶  bash  Bash echo call-4999"), "{last}");
    assert!(last.contains("Bash echo call-4999"), "{last}");
    let before = rows[rows.len() - 2];
    assert!(before.contains("Bash echo call-4998"), "{before}");
    // The window the list is built from: the selection on the last row.
    assert_eq!(
        super::timeline::window(20_001, 0, Some(20_000), 44),
        (19_957, 20_001)
    );
}

#[test]
fn timeline_window_scrolls_the_least_that_shows_the_selection() {
    use super::timeline::window;
    assert_eq!(window(0, 5, None, 10), (0, 0));
    assert_eq!(window(100, 0, Some(3), 10), (0, 10));
    assert_eq!(window(100, 0, Some(10), 10), (1, 11));
    assert_eq!(window(100, 50, Some(20), 10), (20, 30));
    assert_eq!(window(100, 95, None, 10), (95, 100));
    assert_eq!(window(100, 500, Some(99), 10), (99, 100));
    assert_eq!(window(5, 0, Some(4), 0), (4, 5));
}

/// A 10 MB output in Detail: the built lines stay bounded, End scrolls to
/// the last built row, and the pane's last visible line is the one that
/// says how much more there is (the rest is never wrapped or drawn).
#[test]
fn a_10_mb_output_scrolls_to_its_end() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let line = "z".repeat(49);
    let output = format!("{line}\n").repeat(200_000);
    let path = one_bash_call(dir.path(), "yes | head", &output);
    let mut app = detail_of_bash(&path);
    render(&mut app, 160, 48);
    key(&mut app, KeyCode::End);
    let screen = render(&mut app, 160, 48);
    // The pane's last row (above its bottom border) is the note.
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("press o to show more"))
        .expect("the note is on screen");
    assert!(
        lines[at].contains("… 198000 more lines (9.4 MiB) — press o to show more"),
        "{}",
        lines[at]
    );
    assert!(
        lines[at + 1].contains("┗") || lines[at + 1].contains("└"),
        "{}",
        lines[at + 1]
    );
    assert!(lines[at - 1].contains(&line), "{}", lines[at - 1]);
    let built = app.detail.lines();
    assert_eq!(
        super::widgets::text::line_text(&built[built.len() - 1]),
        "… 198000 more lines (9.4 MiB) — press o to show more"
    );
    assert_eq!(
        super::widgets::text::line_text(&built[built.len() - 2]),
        line
    );
    assert!(built.len() < 2_100, "{} rows built", built.len());
}

#[test]
fn a_matcher_that_never_fires_shows_the_lints_fix_in_the_pane() {
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = dir.path().join("settings.json");
    let hook = serde_json::json!({"hooks": {"PreToolUse": [
        {"matcher": "mcp__memory", "hooks": [{"type": "command", "command": "true"}]},
        {"matcher": "Task", "hooks": [{"type": "command", "command": "true"}]}
    ]}});
    std::fs::write(&settings, hook.to_string()).expect("write settings");
    let s = settings.display().to_string();
    let app = replay_exit2(&[&s]);
    let (main, _) = app.replay.lines(&app.ctx);
    let text: Vec<String> = main.iter().map(ToString::to_string).collect();
    for line in [
        "      hint: did you mean \"mcp__memory__.*\"?",
        "      hint: write \"Agent\" (\"Agent|Task\" also covers sessions before 2.1.63)",
    ] {
        assert!(
            text.contains(&line.to_string()),
            "missing {line:?} in {text:?}"
        );
    }
}
