//! Snapshot tests of each pane (80x24 and 160x48, through `TestBackend`) and
//! state-transition tests, on real Claude Code 2.1.332 transcripts from the
//! shared corpus. Times render at UTC, so nothing depends on where or when
//! the tests run.
//!
//! One file per component (its snapshots are in `snapshots/`, named after
//! it); this one holds what they share: an app over a corpus path, keys,
//! the requests run synchronously, the render as text. The other TUI test
//! modules (`hook_tests`, `index_tests`, `live_tests`, `boot_tests`,
//! `sessions::tests`) use these helpers too.

mod app;
mod backtest;
mod calls;
mod decisions;
mod detail;
mod every_event;
mod replay;
mod sessions;
mod timeline;
mod your_hooks;

use std::path::PathBuf;

use chrono::FixedOffset;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use hookscope_core::transcript::discover;
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
                    line: hookscope_core::shell::parse_command_line(&command),
                });
            }
            Request::Summarize(index) => {
                let sref = app.ctx.sessions[index].sref.clone();
                app.apply(worker::summary_msg(index, &sref));
            }
            // The hermetic tests have no decision log.
            Request::RuleIds => app.apply(Msg::RuleIds(Vec::new())),
            Request::Decisions(index) => app.apply(Msg::Decisions {
                index,
                decisions: Default::default(),
                events: Vec::new(),
            }),
            Request::Open(index) => {
                let sref = app.ctx.sessions[index].sref.clone();
                app.apply(Msg::Loaded {
                    index,
                    result: worker::open(&sref),
                });
            }
            Request::ExecAllPlan | Request::ExecAllRun(_) => {
                let refs: Vec<_> = app.ctx.sessions.iter().map(|e| e.sref.clone()).collect();
                let config = crate::tui::worker::EveryEventConfig {
                    settings: app.ctx.settings.clone(),
                    cwd_map: app.ctx.cwd_map.clone(),
                    against: app.ctx.against_settings.clone(),
                    env: app.ctx.hook_env.clone(),
                };
                let (tx, rx) = std::sync::mpsc::channel();
                match &request {
                    Request::ExecAllRun(cancel) => {
                        worker::exec_all_run(&refs, &config, &cancel.0, &tx);
                    }
                    _ => worker::exec_all_plan(&refs, &config, &tx),
                }
                drop(tx);
                for msg in rx {
                    app.apply(msg);
                }
            }
            Request::Against => {
                let (super::context::Rules::Loaded(a), super::context::Rules::Loaded(b)) =
                    (app.ctx.rules.clone(), app.ctx.against.clone())
                else {
                    panic!("a comparison without two rule sets")
                };
                let refs: Vec<_> = app.ctx.sessions.iter().map(|e| e.sref.clone()).collect();
                let (tx, rx) = std::sync::mpsc::channel();
                worker::compare_rules(&refs, &a, &b, &tx);
                drop(tx);
                for msg in rx {
                    app.apply(msg);
                }
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
            Request::Find {
                generation, query, ..
            } => {
                let refs: Vec<_> = app.ctx.sessions.iter().map(|e| e.sref.clone()).collect();
                let mut query = query;
                let result = query
                    .resolve_decided()
                    .and_then(|()| hookscope_core::query::Finder::new(&refs, &query).run());
                app.apply(Msg::Found {
                    generation,
                    result: result.map_err(|e| e.message().to_string()),
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

/// Sets `subagent` on the call `tool_use_id` wherever it is.
fn relink(session: &mut hookscope_core::transcript::Session, tool_use_id: &str, to: Option<usize>) {
    let turns = session.turns.iter_mut().chain(
        session
            .subagents
            .iter_mut()
            .flat_map(|s| s.turns.iter_mut()),
    );
    for turn in turns {
        for event in &mut turn.events {
            if let hookscope_core::transcript::Event::ToolCall(r) = event
                && r.tool_use_id == tool_use_id
            {
                r.subagent = to;
            }
        }
    }
}

/// The shipped example rule set.
const EXAMPLE_RULES: &str = "assets/rules/example.toml";

/// [`render`] with the payload's `transcript_path` (the file's real,
/// absolute path) set to `<path>` before drawing, so the snapshot (and how
/// its lines wrap) does not depend on where the checkout is.
/// The Detail pane's lines as plain text.
fn detail_text(app: &App) -> Vec<String> {
    app.detail
        .lines()
        .iter()
        .map(crate::tui::widgets::text::line_text)
        .collect()
}

fn render_replay(app: &mut App, width: u16, height: u16) -> String {
    if let Some((masked, _)) = app.replay.masked.as_mut()
        && let Some(path) = masked.get_mut("transcript_path")
    {
        *path = serde_json::Value::String("<path>".into());
    }
    render(app, width, height)
}
