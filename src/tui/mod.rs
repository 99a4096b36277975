//! The terminal UI: `hookscope [PATH...]` opens Sessions, Timeline and
//! Detail panes over the sessions found (docs/keys.md "Keys", docs/tui.md).
//!
//! Layout: [`component`] says what a component is; one module per pane or
//! overlay holds its state, keys and drawing: [`sessions`], [`timeline`],
//! [`detail`], [`calls`] (the Calls view), [`replay`] (the replay pane and
//! its run-hooks dialog), [`backtest`] (the backtest list), [`help`],
//! [`diagnostics`]. [`app`] routes ([`app::App::handle`] for
//! [`action::Action`]s, [`app::App::apply`] for [`worker::Msg`]s);
//! [`context`] is what the components truly share ([`context::Ctx`]);
//! [`keymap`] turns keys into actions and is where the help overlay and
//! hint lines look keys up; [`boot`] is the start (the first frame from the
//! index, discovery and the sync behind it); [`worker`] loads, parses,
//! queries and runs hooks off the UI thread; [`terminal`] sets the terminal
//! up and restores it on quit, panic, SIGTERM and SIGHUP (ending any hook
//! the run dialog started); [`clipboard`], [`theme`] and [`widgets`] are
//! shared pieces.
//!
//! The event loop polls crossterm with a short timeout and drains the worker
//! channel between polls (no async runtime).

pub mod action;
pub mod app;
pub mod backtest;
pub mod boot;
pub mod calls;
pub mod clipboard;
pub mod component;
pub mod context;
pub mod debounce;
pub mod detail;
pub mod diagnostics;
pub mod every_event;
pub mod help;
pub mod keymap;
pub mod layout;
pub mod messages;
pub mod replay;
pub mod sessions;
pub mod terminal;
pub mod theme;
pub mod timeline;
pub mod widgets;
pub mod worker;

#[cfg(test)]
mod boot_tests;
#[cfg(test)]
mod hook_tests;
#[cfg(test)]
mod index_tests;
#[cfg(test)]
mod live_tests;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Context;
use chrono::{DateTime, FixedOffset, Local, Offset, Utc};
use crossterm::event::{self, Event as TermEvent, MouseButton, MouseEventKind};
use hookscope_core::service::Library;
use ratatui::Frame;

use action::Action;
use app::{App, Request};
use keymap::KeyMode;
use theme::Theme;

/// Formats a time at a fixed offset (the local one in the app, UTC in tests,
/// so snapshots do not depend on where they run).
pub fn fmt_time(t: DateTime<Utc>, offset: FixedOffset, format: &str) -> String {
    t.with_timezone(&offset).format(format).to_string()
}

/// Where the bundled demo sessions are: `$CARGO_MANIFEST_DIR/assets/demo`
/// (the source tree the binary was built from), else `assets/demo` next to
/// the executable. An installed binary whose source tree is gone and that has
/// no `assets/demo` beside it has no demo.
pub fn demo_dir() -> Option<PathBuf> {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo");
    if built.is_dir() {
        return Some(built);
    }
    let exe = std::env::current_exe().ok()?;
    let beside = exe.parent()?.join("assets/demo");
    beside.is_dir().then_some(beside)
}

/// Draws the whole screen from the state.
pub fn draw(frame: &mut Frame, app: &App) {
    app.draw(frame);
}

/// Turns a terminal event into an action.
fn action_of(ev: TermEvent, mode: KeyMode) -> Option<Action> {
    match ev {
        TermEvent::Key(key) => keymap::action_for(key, mode),
        TermEvent::Mouse(m) => match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => Some(Action::ScrollAt {
                column: m.column,
                row: m.row,
                down: m.kind == MouseEventKind::ScrollDown,
            }),
            MouseEventKind::Down(MouseButton::Left) => Some(Action::ClickAt {
                column: m.column,
                row: m.row,
            }),
            _ => None,
        },
        TermEvent::Resize(width, height) => Some(Action::Resize { width, height }),
        _ => None,
    }
}

/// The rule sets and settings `B` compares: `--rules` (with `--against`, a
/// second set) and `--against-settings` (a second version of your hooks).
#[derive(Debug, Clone, Copy)]
pub struct Versions<'a> {
    /// `--rules`.
    pub rules: Option<&'a Path>,
    /// `--against`.
    pub against: Option<&'a Path>,
    /// `--against-settings`.
    pub against_settings: &'a [PathBuf],
}

/// Runs the TUI on `paths` (or the default roots, or the bundled demo),
/// with the rule set `rules` (`--rules FILE`) for the replay pane: loaded
/// here, before the first frame; a refused file is shown in the pane with
/// its `file:line:col` errors and the TUI still starts.
///
/// # Errors
/// A bad PATH, or a terminal that cannot be set up or drawn to.
/// The list and the Calls view answer from the persisted index
/// ([`boot::Boot::begin`]) unless `no_index` (`--no-index`) or `HOOKSCOPE_NO_INDEX`.
pub fn run(
    paths: &[PathBuf],
    versions: Versions,
    settings: &[PathBuf],
    cwd_map: hookscope_core::hooks::cwd_map::CwdMap,
    no_index: bool,
) -> anyhow::Result<()> {
    // Watched from the start: a SIGTERM while the start walks or reads
    // the index ends hookscope with 0 too, as once the screen is drawn.
    let term_flag = terminal::termination_flag().context("cannot watch for SIGTERM")?;
    let offset = Local::now().offset().fix();
    let (tx, rx) = mpsc::channel();
    let (mut app, mut boot) = boot::Boot::begin(paths, no_index, offset, Theme::from_env(), &tx)?;
    if let Some(path) = versions.rules {
        app.ctx.rules = context::Rules::load(path);
        if let Some(message) = app.ctx.rules.startup_message() {
            app.ctx.say(message);
        }
    }
    if let Some(path) = versions.against {
        app.ctx.against = context::Rules::load(path);
        if let context::Rules::Failed { path, errors } = &app.ctx.against {
            app.ctx.say(format!(
                "{} (--against) was refused: {}",
                path.display(),
                errors.first().map_or("", String::as_str)
            ));
        }
    }
    app.ctx.against_settings = versions.against_settings.to_vec();
    app.ctx.settings = settings.to_vec();
    app.ctx.cwd_map = cwd_map;

    // The follower starts once discovery has answered, with its sessions
    // (the roots are not walked twice at start).
    let mut follow: Option<mpsc::Sender<(usize, hookscope_core::transcript::SessionRef)>> = None;
    let mut pending_follow = None;

    let (mut term, _guard) = terminal::init().context("cannot set up the terminal")?;
    let size = term.size()?;
    app.handle(Action::Resize {
        width: size.width,
        height: size.height,
    });
    let mut dirty = true;
    let mut typing = debounce::Debounce::default();
    while !app.quit && term_flag.load(Ordering::SeqCst) == 0 {
        while let Ok(msg) = rx.try_recv() {
            match msg {
                worker::Msg::Discovered(found) => boot.discovered(&mut app, found, &tx),
                worker::Msg::SummariesDone => {
                    boot.summaries_done();
                    app.apply(worker::Msg::SummariesDone);
                }
                msg @ (worker::Msg::Indexing(_) | worker::Msg::Scope { .. }) => {
                    boot.observe(&msg);
                    app.apply(msg);
                }
                worker::Msg::Live { index, session } => {
                    // The agent wrote more: a hook may have logged more.
                    worker::spawn_decisions(
                        index,
                        session.id.clone(),
                        session.path.clone(),
                        tx.clone(),
                    );
                    app.apply(worker::Msg::Live { index, session });
                }
                msg => app.apply(msg),
            }
            dirty = true;
        }
        if follow.is_none() && boot.is_discovered() {
            let sender = worker::spawn_follow_known(
                boot.roots.clone(),
                Some(boot.refs.clone()),
                hookscope_core::transcript::follow::FollowOptions::default(),
                tx.clone(),
            );
            if let Some(open) = pending_follow.take() {
                let _ = sender.send(open);
            }
            follow = Some(sender);
        }
        for request in app.take_requests() {
            match request {
                Request::Open(index) => {
                    if let Some(entry) = app.ctx.sessions.get(index) {
                        worker::spawn_open(index, entry.sref.clone(), tx.clone());
                        // Live updates of the open session.
                        match &follow {
                            Some(follow) => {
                                let _ = follow.send((index, entry.sref.clone()));
                            }
                            None => pending_follow = Some((index, entry.sref.clone())),
                        }
                    }
                }
                Request::Decisions(index) => {
                    if let Some(entry) = app.ctx.sessions.get(index) {
                        worker::spawn_decisions(
                            index,
                            entry.sref.id.clone(),
                            entry.sref.path.clone(),
                            tx.clone(),
                        );
                    }
                }
                Request::RuleIds => worker::spawn_rule_ids(tx.clone()),
                Request::Summarize(index) => {
                    if let Some(entry) = app.ctx.sessions.get(index) {
                        worker::spawn_summary(index, entry.sref.clone(), tx.clone());
                    }
                }
                Request::Find {
                    generation,
                    query,
                    settle,
                } => match typing.ask(generation, query, settle, std::time::Instant::now()) {
                    debounce::Ask::Now(generation, query) => boot.find(generation, query),
                    debounce::Ask::Later(generation) => boot.supersede(generation),
                },
                Request::RunHooks { generation, plan } => {
                    worker::spawn_hooks(generation, plan.0, tx.clone());
                }
                Request::ParseBash { key, command } => {
                    worker::spawn_parse(key, command, tx.clone());
                }
                Request::ExecAllPlan => {
                    let (refs, config, tx) =
                        (boot.refs.clone(), every_event_config(&app), tx.clone());
                    std::thread::spawn(move || worker::exec_all_plan(&refs, &config, &tx));
                }
                Request::ExecAllRun(cancel) => {
                    let (refs, config, tx) =
                        (boot.refs.clone(), every_event_config(&app), tx.clone());
                    std::thread::spawn(move || {
                        worker::exec_all_run(&refs, &config, &cancel.0, &tx)
                    });
                }
                Request::Against => {
                    if let (context::Rules::Loaded(a), context::Rules::Loaded(b)) =
                        (&app.ctx.rules, &app.ctx.against)
                    {
                        let (refs, a, b, tx) =
                            (boot.refs.clone(), a.clone(), b.clone(), tx.clone());
                        std::thread::spawn(move || worker::compare_rules(&refs, &a, &b, &tx));
                    }
                }
                Request::Backtest => {
                    if let context::Rules::Loaded(rules) = &app.ctx.rules {
                        worker::spawn_backtest(
                            boot.refs.clone(),
                            rules.clone(),
                            boot.library.clone(),
                            tx.clone(),
                        );
                    }
                }
            }
        }
        if dirty {
            term.draw(|f| draw(f, &app))?;
            dirty = false;
        }
        if let Some((generation, query)) = typing.due(std::time::Instant::now()) {
            boot.find(generation, query);
        }
        let wait = typing.wait(std::time::Instant::now(), Duration::from_millis(50));
        if event::poll(wait)? {
            let ev = event::read()?;
            if matches!(ev, TermEvent::Resize(..)) {
                // Some terminals leave stale cells after a resize (a long
                // output was on screen): start from a blank screen.
                term.clear()?;
            }
            if let Some(action) = action_of(ev, app.key_mode()) {
                app.handle(action);
            }
            dirty = true;
        }
    }
    let signal = term_flag.load(Ordering::SeqCst);
    if signal != 0 {
        // Restore the terminal, then report the signal as the watcher would.
        drop(term);
        drop(_guard);
        std::process::exit(terminal::exit_status(signal));
    }
    Ok(())
}

/// The start after discovery (see [`boot`]): with the persisted index
/// (docs/cli.md#index), the summaries of every session whose files are unchanged
/// since it was indexed go into `app` at once
/// ([`Library::fresh_summaries`]), and a worker syncs the
/// rest with progress in the status bar ([`worker::spawn_index_sync`]);
/// without one (`None`), every session is summarized in the background
/// ([`worker::spawn_summaries`]). Returns the Calls-view query thread,
/// which asks the index which sessions to load when there is one. Tests
/// pass an index opened in a temporary folder.
#[cfg(test)]
pub fn start_with(
    app: &mut App,
    refs: &[hookscope_core::transcript::SessionRef],
    index: Option<hookscope_core::index::Index>,
    tx: &mpsc::Sender<worker::Msg>,
) -> worker::Queries {
    let library = index.map(|i| Library::new(&[]).with_index(i));
    start_shared(app, refs, library, tx)
}

/// [`start_with`] over `library` (with its index; `None` without one).
pub fn start_shared(
    app: &mut App,
    refs: &[hookscope_core::transcript::SessionRef],
    library: Option<Library>,
    tx: &mpsc::Sender<worker::Msg>,
) -> worker::Queries {
    let Some(library) = library else {
        worker::spawn_summaries(refs.to_vec(), tx.clone());
        return worker::spawn_queries(refs.to_vec(), tx.clone());
    };
    let fresh = library.fresh_summaries(refs);
    let mask: Vec<bool> = fresh.iter().map(Option::is_some).collect();
    let items: Vec<(usize, worker::SummaryItem)> = fresh
        .into_iter()
        .enumerate()
        .filter_map(|(i, f)| f.map(|f| (i, Ok(f))))
        .collect();
    if !items.is_empty() {
        app.apply(worker::Msg::Summaries {
            items,
            tool_names: Vec::new(),
        });
    }
    if mask.iter().all(|&f| f) {
        app.apply(worker::Msg::SummariesDone);
    }
    spawn_synced(refs, library, mask, tx).0
}

/// Starts the Calls-view query thread over `refs` with `library`'s index,
/// then the index sync of the sessions `fresh` does not mark fresh
/// ([`worker::spawn_index_sync`]); returns the thread's handle and the
/// sync's "every stored row reused" flag. The queries' own connection is
/// opened first: opening it takes the shared index's lock for a moment,
/// which the sync holds for a whole chunk (on a first build, seconds of
/// parsing: the first frame waited). The thread knows a sync will index
/// before the sync's first progress message: a query asked before it is
/// asked while it runs.
pub fn spawn_synced(
    refs: &[hookscope_core::transcript::SessionRef],
    library: Library,
    fresh: Vec<bool>,
    tx: &mpsc::Sender<worker::Msg>,
) -> (
    worker::Queries,
    std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    let queries = worker::spawn_queries_indexed(refs.to_vec(), Some(library.clone()), tx.clone());
    queries.indexing(!fresh.iter().all(|&f| f));
    let unchanged = worker::spawn_index_sync(refs.to_vec(), library, fresh, tx.clone());
    (queries, unchanged)
}

/// Timings of the TUI's start on `paths`, for the heavy-user benchmark
/// (`benches/heavy.rs`, docs/benchmarks.md#heavy-user-benchmark), in milliseconds from the start:
/// `first_frame` (the list from the index, or discovery first when there is
/// none; app; one 200x50 frame headless), `list` (discovery answered and
/// every session's summary is checked against the disk: the complete list
/// with counts), `calls` (the Calls view's first answer to `filter`,
/// asked right after the first frame, as typing it at once would: its
/// first page on a heavy user's list, [`worker::Msg::FoundFirst`], else
/// the whole answer) and `calls_whole` (the whole answer,
/// [`worker::Msg::Found`]). Starts as [`run`] does ([`boot::Boot::begin`],
/// with the index unless `no_index`).
///
/// # Errors
/// A bad PATH, a filter line that does not parse, or a render failure.
pub fn bench_probe(paths: &[PathBuf], filter: &str, no_index: bool) -> anyhow::Result<[f64; 4]> {
    let began = std::time::Instant::now();
    let ms = || began.elapsed().as_secs_f64() * 1000.0;
    let (mut app, rx, tx, mut boot, mut term) = headless_start(paths, no_index)?;
    let first_frame = ms();
    // Complete at the first frame when every summary came from the index
    // and discovery ran first (else when the sync has checked them all).
    let mut list = app.ctx.summaries_done.then_some(first_frame);
    let query = calls::prepare(filter, Utc::now()).map_err(|e| anyhow::anyhow!(e))?;
    boot.find(1, query);
    let (mut first, mut calls) = (None, None);
    while list.is_none() || calls.is_none() {
        let Ok(msg) = rx.recv() else { break };
        match msg {
            worker::Msg::Discovered(found) => {
                boot.discovered(&mut app, found, &tx);
                continue;
            }
            worker::Msg::SummariesDone => {
                boot.summaries_done();
                list = list.or_else(|| Some(ms()));
            }
            worker::Msg::Indexing(_) | worker::Msg::Scope { .. } => boot.observe(&msg),
            worker::Msg::FoundFirst { .. } => first = first.or_else(|| Some(ms())),
            worker::Msg::Found { .. } => calls = Some(ms()),
            _ => {}
        }
        app.apply(msg);
    }
    term.draw(|f| draw(f, &app))?;
    Ok([
        first_frame,
        list.unwrap_or(f64::NAN),
        first.or(calls).unwrap_or(f64::NAN),
        calls.unwrap_or(f64::NAN),
    ])
}

/// Time to first frame, for the load benchmark: the milliseconds
/// [`headless_start`] takes (discovery, the start [`run`] makes, one 200x50
/// frame). Summaries still syncing are not awaited, as in the real UI.
///
/// # Errors
/// A bad PATH, or a render failure.
pub fn first_frame_ms(paths: &[PathBuf], no_index: bool) -> anyhow::Result<f64> {
    let began = std::time::Instant::now();
    let _started = headless_start(paths, no_index)?;
    Ok(began.elapsed().as_secs_f64() * 1000.0)
}

/// What [`headless_start`] gives: the app, the workers' channel (both
/// ends), the start's state and the test terminal.
type Headless = (
    App,
    mpsc::Receiver<worker::Msg>,
    mpsc::Sender<worker::Msg>,
    boot::Boot,
    ratatui::Terminal<ratatui::backend::TestBackend>,
);

/// The TUI's start on `paths` without a terminal, for the benchmarks:
/// [`boot::Boot::begin`] (with the index unless `no_index`), the app at
/// 200x50 and one frame drawn on a ratatui `TestBackend`. Returns the app,
/// the workers' channel (both ends), the start's state and the test
/// terminal.
///
/// # Errors
/// A bad PATH, or a render failure.
fn headless_start(paths: &[PathBuf], no_index: bool) -> anyhow::Result<Headless> {
    let (tx, rx) = mpsc::channel();
    let (mut app, boot) = boot::Boot::begin(paths, no_index, Utc.fix(), Theme::from_env(), &tx)?;
    app.handle(Action::Resize {
        width: 200,
        height: 50,
    });
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(200, 50))?;
    term.draw(|f| draw(f, &app))?;
    Ok((app, rx, tx, boot, term))
}

/// What the workers of `B` (your hooks over every event) need from the app.
fn every_event_config(app: &App) -> worker::EveryEventConfig {
    worker::EveryEventConfig {
        settings: app.ctx.settings.clone(),
        cwd_map: app.ctx.cwd_map.clone(),
        against: app.ctx.against_settings.clone(),
        env: app.ctx.hook_env.clone(),
    }
}
