//! The TUI's state and every state transition: [`App::handle`] folds an
//! [`Action`] in, [`App::apply`] folds a worker [`Msg`] in. Nothing here
//! draws; `super::draw` reads an `&App`. Side effects that need a thread
//! (opening a session) are queued as [`Request`]s for the event loop.

use std::cell::{Cell, Ref, RefCell};
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use std::collections::BTreeSet;

use chrono::{DateTime, FixedOffset, Utc};
use hookscope::query::{Query, filter_line};
use hookscope::tools::file_path_of;
use hookscope::transcript::{Diagnostic, Event, Session, SessionRef, SessionSummary};
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use ratatui::layout::{Constraint, Direction, Layout, Position, Rect};
use ratatui::text::Line;

use super::action::Action;
use super::calls::CallsView;
use super::keymap::KeyMode;
use super::theme::Theme;
use super::worker::Msg;
use super::{calls, detail, timeline};

/// The three panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The session list.
    Sessions,
    /// The opened session's turns and events.
    Timeline,
    /// The selected row in full.
    Detail,
}

/// A modal overlay drawn over the panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    /// The key help.
    Help,
    /// The diagnostics list.
    Diagnostics,
}

/// What fills the screen between banner and status bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Sessions, Timeline and Detail panes.
    Browse,
    /// Every tool call across sessions, filtered ([`super::calls`]).
    Calls,
}

/// A discovered session and what the background worker learned about it.
#[derive(Debug, Clone)]
pub struct SessionEntry {
    /// Where it is on disk.
    pub sref: SessionRef,
    /// Counts and title, once summarized.
    pub summary: Option<SessionSummary>,
    /// Why it could not be summarized, if it could not.
    pub error: Option<String>,
}

impl SessionEntry {
    /// The project the session belongs to: its cwd once known, else the
    /// (encoded) name of the folder it is in.
    pub fn project(&self) -> String {
        if let Some(cwd) = self.summary.as_ref().and_then(|s| s.cwd.clone()) {
            return cwd;
        }
        self.sref
            .path
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "?".to_string())
    }

    /// The title, or the id while it is not known.
    pub fn title(&self) -> String {
        self.summary
            .as_ref()
            .and_then(|s| s.title.clone())
            .unwrap_or_else(|| self.sref.id.clone())
    }

    /// Sort key for "newest first": the start time once the summary is in
    /// (`None` for an undated file, which then sorts last, as in
    /// `hookscope sessions`), the file's mtime until then.
    pub fn when(&self) -> Option<DateTime<Utc>> {
        match &self.summary {
            Some(s) => s.started,
            None => self.sref.modified.map(DateTime::<Utc>::from),
        }
    }
}

/// One row of the session list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionRow {
    /// A project heading.
    Header(String),
    /// A session (index into [`App::sessions`]).
    Session(usize),
}

/// Which conversation thread an event is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Thread {
    /// The session's main thread.
    Main,
    /// A subagent (index into [`Session::subagents`]).
    Sub(usize),
}

/// What a timeline row shows; stable across filtering and expansion, so it
/// is also the selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Item {
    /// A main-thread turn.
    Turn(usize),
    /// A subagent transcript no call in the session spawns (index into
    /// [`Session::subagents`]); expands like a Task/Agent call.
    Unlinked(usize),
    /// An event of a thread's turn.
    Event {
        /// The thread.
        thread: Thread,
        /// Turn index in that thread.
        turn: usize,
        /// Event index in that turn.
        event: usize,
    },
}

/// One timeline row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimelineRow {
    /// What it shows.
    pub item: Item,
    /// Nesting depth (0 for main-thread events, 1 inside a subagent, …).
    pub depth: usize,
    /// The Task/Agent call this row is nested under, if any.
    pub parent: Option<Item>,
}

/// The opened session's loading state.
#[derive(Debug, Clone)]
pub enum OpenState {
    /// The worker is parsing it.
    Loading,
    /// Parsed.
    Ready(Arc<Session>),
    /// It could not be read.
    Failed(String),
}

/// The session shown in the timeline.
#[derive(Debug, Clone)]
pub struct OpenSession {
    /// Index into [`App::sessions`].
    pub index: usize,
    /// Loading state.
    pub state: OpenState,
}

/// Work for the event loop to start off the UI thread.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Fully load session `index` and send [`Msg::Loaded`].
    Open(usize),
    /// Run a Calls-view query and send [`Msg::Found`] tagged `generation`.
    Find {
        /// The Calls view's generation the query answers.
        generation: u64,
        /// The validated query.
        query: Query,
    },
}

/// Where each part of the screen is, for drawing and for mouse hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Areas {
    /// The demo banner line (zero-sized when there is none).
    pub banner: Rect,
    /// Everything between banner and status bar (the panes, or the Calls
    /// view).
    pub main: Rect,
    /// The session list, when shown.
    pub sessions: Option<Rect>,
    /// The timeline, when shown.
    pub timeline: Option<Rect>,
    /// The detail pane, when shown.
    pub detail: Option<Rect>,
    /// The status bar.
    pub status: Rect,
}

/// Below this width the layout shows two panes (the focused one and its
/// neighbour) instead of three.
pub const WIDE: u16 = 120;

/// Splits the screen: banner, panes, status bar. Wide terminals get three
/// columns; narrow ones show Sessions|Timeline or Timeline|Detail depending
/// on focus.
pub fn areas(area: Rect, focus: Pane, banner: bool) -> Areas {
    let [banner_area, main, status] = Layout::vertical([
        Constraint::Length(u16::from(banner)),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    let mut out = Areas {
        banner: banner_area,
        main,
        status,
        ..Areas::default()
    };
    if area.width >= WIDE {
        let [s, t, d] = Layout::horizontal([
            Constraint::Percentage(26),
            Constraint::Percentage(34),
            Constraint::Percentage(40),
        ])
        .areas(main);
        out.sessions = Some(s);
        out.timeline = Some(t);
        out.detail = Some(d);
    } else {
        let split = Layout::default()
            .direction(Direction::Horizontal)
            .constraints([Constraint::Percentage(45), Constraint::Percentage(55)])
            .split(main);
        if focus == Pane::Sessions {
            out.sessions = Some(split[0]);
            out.timeline = Some(split[1]);
        } else {
            out.timeline = Some(split[0]);
            out.detail = Some(split[1]);
        }
    }
    out
}

/// Cache key of the rendered detail lines.
#[derive(Debug, Clone, PartialEq, Eq)]
struct DetailKey {
    sessions_focused: bool,
    session: Option<usize>,
    open: Option<(usize, bool)>,
    item: Option<Item>,
    width: u16,
}

/// The whole TUI state.
#[derive(Debug)]
pub struct App {
    /// Discovered sessions, in discovery order (indices are stable).
    pub sessions: Vec<SessionEntry>,
    /// Discovery diagnostics, then each session's as summaries arrive.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether every summary has arrived.
    pub summaries_done: bool,
    /// The focused pane.
    pub focus: Pane,
    /// Selected session (index into `sessions`).
    pub session_sel: Option<usize>,
    /// First visible row of the session list (kept by the renderer).
    pub session_offset: Cell<usize>,
    /// Session list filter (fuzzy, see [`App::session_rows`]).
    pub session_filter: String,
    /// The session shown in the timeline.
    pub open: Option<OpenSession>,
    /// Task/Agent calls expanded to their subagent's events.
    pub expanded: HashSet<Item>,
    /// Selected timeline row.
    pub timeline_sel: Option<Item>,
    /// First visible timeline row (kept by the renderer).
    pub timeline_offset: Cell<usize>,
    /// Timeline filter (case-insensitive substring).
    pub timeline_filter: String,
    /// First visible detail line.
    pub detail_scroll: usize,
    /// Text searched for in the detail pane (n/N jump between lines).
    pub detail_query: String,
    /// Whether keys go to the search box of the focused pane.
    pub searching: bool,
    /// The open overlay.
    pub overlay: Option<Overlay>,
    /// Scroll of the open overlay.
    pub overlay_scroll: usize,
    /// The terminal size.
    pub area: Rect,
    /// Offset used to show times (local time in the app, UTC in tests).
    pub utc_offset: FixedOffset,
    /// Styles.
    pub theme: Theme,
    /// A banner across the top (the demo notice).
    pub banner: Option<String>,
    /// Set when the app should exit.
    pub quit: bool,
    /// Whether the user has pressed anything yet (until then the session
    /// list keeps its first row selected while summaries reorder it).
    pub touched: bool,
    /// Browse panes or the Calls view.
    pub view: View,
    /// The Calls view's state.
    pub calls: CallsView,
    /// Every tool name seen in the summarized sessions (Tab completion).
    pub tool_names: BTreeSet<String>,
    /// A one-off notice for the status bar (cleared by the next key).
    pub message: Option<String>,
    /// A call to select once its session has loaded: (session index,
    /// `tool_use_id`).
    pending_jump: Option<(usize, String)>,
    requests: Vec<Request>,
    detail_cache: RefCell<Option<(DetailKey, Vec<Line<'static>>)>>,
    /// The last fuzzy ranking: (filter, summaries known, session indices).
    fuzzy_cache: RefCell<Option<(String, usize, Vec<usize>)>>,
}

impl App {
    /// A new app over discovered sessions (summaries arrive later through
    /// [`App::apply`]).
    pub fn new(
        sessions: Vec<SessionRef>,
        diagnostics: Vec<Diagnostic>,
        utc_offset: FixedOffset,
        theme: Theme,
    ) -> App {
        let sessions: Vec<SessionEntry> = sessions
            .into_iter()
            .map(|sref| SessionEntry {
                sref,
                summary: None,
                error: None,
            })
            .collect();
        let mut app = App {
            sessions,
            diagnostics,
            summaries_done: false,
            focus: Pane::Sessions,
            session_sel: None,
            session_offset: Cell::new(0),
            session_filter: String::new(),
            open: None,
            expanded: HashSet::new(),
            timeline_sel: None,
            timeline_offset: Cell::new(0),
            timeline_filter: String::new(),
            detail_scroll: 0,
            detail_query: String::new(),
            searching: false,
            overlay: None,
            overlay_scroll: 0,
            area: Rect::new(0, 0, 80, 24),
            utc_offset,
            theme,
            banner: None,
            quit: false,
            touched: false,
            view: View::Browse,
            calls: CallsView::default(),
            tool_names: BTreeSet::new(),
            message: None,
            pending_jump: None,
            requests: Vec::new(),
            detail_cache: RefCell::new(None),
            fuzzy_cache: RefCell::new(None),
        };
        app.session_sel = app.selectable_sessions().first().copied();
        app
    }

    /// Takes the queued background work.
    pub fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.requests)
    }

    /// The screen areas for the current size and focus.
    pub fn areas(&self) -> Areas {
        areas(self.area, self.focus, self.banner.is_some())
    }

    /// The loaded session shown in the timeline, if ready.
    pub fn session(&self) -> Option<&Arc<Session>> {
        match &self.open {
            Some(OpenSession {
                state: OpenState::Ready(s),
                ..
            }) => Some(s),
            _ => None,
        }
    }

    // ----- session list -------------------------------------------------

    /// The session list rows. Without a filter: projects newest first,
    /// sessions newest first inside each, under a header per project. With
    /// [`App::session_filter`]: the sessions that fuzzy-match it
    /// (nucleo-matcher, fzf syntax: `'exact`, `^prefix`, `suffix$`,
    /// `!not`; case-insensitive) against each of title, first prompt,
    /// project and id (the best field counts), best match first, without
    /// headers.
    pub fn session_rows(&self) -> Vec<SessionRow> {
        if !self.session_filter.trim().is_empty() {
            return self
                .fuzzy_sessions()
                .into_iter()
                .map(SessionRow::Session)
                .collect();
        }
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        for (i, entry) in self.sessions.iter().enumerate() {
            let project = entry.project();
            match groups.iter_mut().find(|(p, _)| *p == project) {
                Some((_, members)) => members.push(i),
                None => groups.push((project, vec![i])),
            }
        }
        let newest = |i: &usize| self.sessions.get(*i).and_then(SessionEntry::when);
        for (_, members) in &mut groups {
            members.sort_by(|a, b| newest(b).cmp(&newest(a)).then(a.cmp(b)));
        }
        groups.sort_by(|a, b| {
            let na = a.1.first().and_then(newest);
            let nb = b.1.first().and_then(newest);
            nb.cmp(&na).then_with(|| a.0.cmp(&b.0))
        });
        let mut rows = Vec::new();
        for (project, members) in groups {
            rows.push(SessionRow::Header(project));
            rows.extend(members.into_iter().map(SessionRow::Session));
        }
        rows
    }

    /// Session indices that match the filter, best score first (ties:
    /// newest first, then discovery order).
    fn fuzzy_sessions(&self) -> Vec<usize> {
        // Rows are asked for on every key and frame; the ranking only
        // changes with the filter or as summaries (titles, prompts) arrive.
        let known = self.sessions.iter().filter(|e| e.summary.is_some()).count();
        if let Some((filter, seen, ranked)) = self.fuzzy_cache.borrow().as_ref()
            && *filter == self.session_filter
            && *seen == known
        {
            return ranked.clone();
        }
        let ranked = self.rank_sessions();
        *self.fuzzy_cache.borrow_mut() = Some((self.session_filter.clone(), known, ranked.clone()));
        ranked
    }

    fn rank_sessions(&self) -> Vec<usize> {
        let pattern = Pattern::parse(
            &self.session_filter,
            CaseMatching::Ignore,
            Normalization::Smart,
        );
        let mut matcher = Matcher::new(Config::DEFAULT);
        let mut buf = Vec::new();
        let mut scored: Vec<(u32, usize)> = self
            .sessions
            .iter()
            .enumerate()
            .filter_map(|(i, entry)| {
                let prompt = entry
                    .summary
                    .as_ref()
                    .and_then(|s| s.first_prompt.as_deref())
                    .unwrap_or("");
                // Each field on its own, best one counts: `^` anchors at
                // the start of a title, prompt, project or id, and letters
                // scattered over several fields do not match.
                [
                    entry.title(),
                    prompt.to_string(),
                    entry.project(),
                    entry.sref.id.clone(),
                ]
                .iter()
                .filter_map(|hay| pattern.score(Utf32Str::new(hay, &mut buf), &mut matcher))
                .max()
                .map(|score| (score, i))
            })
            .collect();
        let when = |i: usize| self.sessions.get(i).and_then(SessionEntry::when);
        scored.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| when(b.1).cmp(&when(a.1)))
                .then(a.1.cmp(&b.1))
        });
        scored.into_iter().map(|(_, i)| i).collect()
    }

    fn selectable_sessions(&self) -> Vec<usize> {
        self.session_rows()
            .into_iter()
            .filter_map(|r| match r {
                SessionRow::Session(i) => Some(i),
                SessionRow::Header(_) => None,
            })
            .collect()
    }

    // ----- timeline -----------------------------------------------------

    /// Every timeline row of the opened session (expansion applied, filter
    /// not applied).
    pub fn all_timeline_rows(&self) -> Vec<TimelineRow> {
        self.rows_with(false)
    }

    /// Every timeline row with every Task/Agent call expanded (what the
    /// filter searches, so it finds calls inside collapsed subagents).
    pub fn every_timeline_row(&self) -> Vec<TimelineRow> {
        self.rows_with(true)
    }

    fn rows_with(&self, expand_all: bool) -> Vec<TimelineRow> {
        let Some(session) = self.session() else {
            return Vec::new();
        };
        let mut rows = Vec::new();
        for (t, turn) in session.turns.iter().enumerate() {
            rows.push(TimelineRow {
                item: Item::Turn(t),
                depth: 0,
                parent: None,
            });
            self.push_events(
                session,
                Thread::Main,
                t,
                &turn.events,
                0,
                None,
                expand_all,
                &mut rows,
            );
        }
        for s in timeline::unlinked_subagents(session) {
            let item = Item::Unlinked(s);
            rows.push(TimelineRow {
                item,
                depth: 0,
                parent: None,
            });
            if expand_all || self.expanded.contains(&item) {
                self.push_subagent(session, s, 1, item, expand_all, &mut rows);
            }
        }
        rows
    }

    /// The rows of subagent `s`'s turns, nested under `parent` at `depth`.
    fn push_subagent(
        &self,
        session: &Session,
        s: usize,
        depth: usize,
        parent: Item,
        expand_all: bool,
        rows: &mut Vec<TimelineRow>,
    ) {
        let Some(subagent) = session.subagents.get(s) else {
            return;
        };
        for (st, sturn) in subagent.turns.iter().enumerate() {
            self.push_events(
                session,
                Thread::Sub(s),
                st,
                &sturn.events,
                depth,
                Some(parent),
                expand_all,
                rows,
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push_events(
        &self,
        session: &Session,
        thread: Thread,
        turn: usize,
        events: &[Event],
        depth: usize,
        parent: Option<Item>,
        expand_all: bool,
        rows: &mut Vec<TimelineRow>,
    ) {
        for (e, event) in events.iter().enumerate() {
            if !timeline::shown(event) {
                continue;
            }
            let item = Item::Event {
                thread,
                turn,
                event: e,
            };
            rows.push(TimelineRow {
                item,
                depth,
                parent,
            });
            let sub = event.as_tool_call().and_then(|c| c.subagent);
            // Depth guard: a malformed file could link subagents in a cycle.
            if let Some(s) = sub
                && (expand_all || self.expanded.contains(&item))
                && depth < 8
            {
                self.push_subagent(session, s, depth + 1, item, expand_all, rows);
            }
        }
    }

    /// The visible timeline rows: the expanded tree, or with a filter the
    /// matching rows of the fully expanded tree (subagent calls included,
    /// collapsed or not).
    pub fn timeline_rows(&self) -> Vec<TimelineRow> {
        if self.timeline_filter.is_empty() {
            return self.all_timeline_rows();
        }
        let rows = self.every_timeline_row();
        let Some(session) = self.session() else {
            return rows;
        };
        let needle = self.timeline_filter.to_lowercase();
        rows.into_iter()
            .filter(|r| {
                timeline::row_text(session, r.item)
                    .to_lowercase()
                    .contains(&needle)
            })
            .collect()
    }

    /// Expands the Task/Agent calls above the selected row, so it stays
    /// selected once a filter that found it inside a subagent is cleared.
    fn reveal_selection(&mut self) {
        let Some(item) = self.timeline_sel else {
            return;
        };
        let rows = self.every_timeline_row();
        let mut cur = item;
        for _ in 0..8 {
            match rows.iter().find(|r| r.item == cur).and_then(|r| r.parent) {
                Some(p) => {
                    self.expanded.insert(p);
                    cur = p;
                }
                None => break,
            }
        }
    }

    /// The event a timeline item points at.
    pub fn event(&self, item: Item) -> Option<&Event> {
        let session = self.session()?;
        timeline::event_of(session, item)
    }

    // ----- detail -------------------------------------------------------

    fn detail_width(&self) -> u16 {
        let areas = areas(self.area, Pane::Detail, self.banner.is_some());
        areas
            .detail
            .map_or(self.area.width, |d| d.width.saturating_sub(2))
            .max(1)
    }

    fn detail_height(&self) -> usize {
        let areas = areas(self.area, Pane::Detail, self.banner.is_some());
        areas
            .detail
            .map_or(1, |d| usize::from(d.height.saturating_sub(2)))
            .max(1)
    }

    /// The detail pane's lines, wrapped to its width (cached).
    pub fn detail_lines(&self) -> Ref<'_, Vec<Line<'static>>> {
        let key = DetailKey {
            sessions_focused: self.focus == Pane::Sessions,
            session: self.session_sel,
            open: self
                .open
                .as_ref()
                .map(|o| (o.index, matches!(o.state, OpenState::Ready(_)))),
            item: self.timeline_sel,
            width: self.detail_width(),
        };
        let stale = self
            .detail_cache
            .borrow()
            .as_ref()
            .is_none_or(|(k, _)| *k != key);
        if stale {
            let lines = detail::wrap(detail::lines(self), usize::from(key.width));
            *self.detail_cache.borrow_mut() = Some((key, lines));
        }
        Ref::map(self.detail_cache.borrow(), |c| match c {
            Some((_, lines)) => lines,
            None => unreachable_empty(),
        })
    }

    fn max_detail_scroll(&self) -> usize {
        let len = self.detail_lines().len();
        len.saturating_sub(self.detail_height())
    }

    fn scroll_detail(&mut self, delta: isize) {
        let max = self.max_detail_scroll();
        self.detail_scroll = self.detail_scroll.saturating_add_signed(delta).min(max);
    }

    fn detail_find(&mut self, forward: bool, include_current: bool) {
        if self.detail_query.is_empty() {
            return;
        }
        let hits = detail::matching_lines(&self.detail_lines(), &self.detail_query);
        let cur = self.detail_scroll;
        let found = if forward {
            hits.iter()
                .find(|&&i| if include_current { i >= cur } else { i > cur })
                .or(hits.first())
        } else {
            hits.iter().rev().find(|&&i| i < cur).or(hits.last())
        };
        if let Some(&i) = found {
            self.detail_scroll = i;
        }
    }

    // ----- transitions --------------------------------------------------

    /// Folds a worker result in.
    pub fn apply(&mut self, msg: Msg) {
        match msg {
            Msg::Summary {
                index,
                result,
                tool_names,
            } => {
                let Some(entry) = self.sessions.get_mut(index) else {
                    return;
                };
                self.tool_names.extend(tool_names);
                match result {
                    Ok((summary, diags)) => {
                        entry.summary = Some(summary);
                        self.diagnostics.extend(diags);
                    }
                    Err(e) => {
                        self.diagnostics.push(Diagnostic {
                            path: entry.sref.path.clone(),
                            line: None,
                            message: e.clone(),
                        });
                        entry.error = Some(e);
                    }
                }
                if !self.touched {
                    self.session_sel = self.selectable_sessions().first().copied();
                }
                // The preview of a session shows its summary: drop the cached
                // lines so the new facts replace "loading…".
                *self.detail_cache.borrow_mut() = None;
            }
            Msg::SummariesDone => self.summaries_done = true,
            Msg::Loaded { index, result } => {
                let Some(open) = self.open.as_mut().filter(|o| o.index == index) else {
                    return; // a session opened earlier, since replaced
                };
                open.state = match result {
                    Ok(session) => OpenState::Ready(session),
                    Err(e) => OpenState::Failed(e),
                };
                self.timeline_sel = self.timeline_rows().first().map(|r| r.item);
                self.timeline_offset.set(0);
                self.detail_scroll = 0;
                self.finish_jump();
            }
            Msg::Found { generation, result } => {
                if generation != self.calls.generation {
                    return; // an answer to a line since edited
                }
                self.calls.running = false;
                match result {
                    Ok(found) => {
                        self.calls.error = None;
                        let wanted =
                            self.calls.select_on_answer.take().and_then(|id| {
                                found.records.iter().position(|r| r.tool_use_id == id)
                            });
                        let sel = wanted.unwrap_or(self.calls.sel);
                        self.calls.sel = sel.min(found.records.len().saturating_sub(1));
                        self.calls.result = Some(found);
                        self.calls.detail_scroll = 0;
                    }
                    Err(e) => self.calls.error = Some(e),
                }
            }
        }
    }

    /// Which key table applies now.
    pub fn key_mode(&self) -> KeyMode {
        if self.view == View::Calls && self.calls.editing && self.overlay.is_none() {
            KeyMode::CallsFilter
        } else if self.searching {
            KeyMode::Search
        } else {
            KeyMode::Normal
        }
    }

    /// Folds an action in.
    pub fn handle(&mut self, action: Action) {
        match action {
            Action::ForceQuit => {
                self.quit = true;
                return;
            }
            Action::Resize { width, height } => {
                self.area = Rect::new(0, 0, width, height);
                self.detail_scroll = self.detail_scroll.min(self.max_detail_scroll());
                return;
            }
            _ => {}
        }
        self.touched = true;
        self.message = None;
        if self.key_mode() == KeyMode::CallsFilter {
            self.handle_calls_filter(action);
            return;
        }
        if self.searching {
            self.handle_search(action);
            return;
        }
        if let Some(overlay) = self.overlay {
            self.handle_overlay(overlay, action);
            return;
        }
        if self.view == View::Calls && self.handle_calls(action) {
            return;
        }
        let before = (self.session_sel, self.timeline_sel, self.focus);
        match action {
            Action::Up => self.step(-1),
            Action::Down => self.step(1),
            Action::Top => self.step(isize::MIN / 2),
            Action::Bottom => self.step(isize::MAX / 2),
            Action::PageUp => self.step(-self.page()),
            Action::PageDown => self.step(self.page()),
            Action::HalfPageUp => self.step(-(self.page() / 2).max(1)),
            Action::HalfPageDown => self.step((self.page() / 2).max(1)),
            Action::Enter => self.enter(),
            Action::Back => self.back(),
            Action::ToggleExpand => self.toggle_expand(),
            Action::FocusNext => {
                self.focus = match self.focus {
                    Pane::Sessions => Pane::Timeline,
                    Pane::Timeline => Pane::Detail,
                    Pane::Detail => Pane::Sessions,
                }
            }
            Action::FocusPrev => {
                self.focus = match self.focus {
                    Pane::Sessions => Pane::Detail,
                    Pane::Timeline => Pane::Sessions,
                    Pane::Detail => Pane::Timeline,
                }
            }
            Action::StartSearch => {
                self.searching = true;
                match self.focus {
                    Pane::Sessions => self.session_filter.clear(),
                    Pane::Timeline => self.timeline_filter.clear(),
                    Pane::Detail => self.detail_query.clear(),
                }
            }
            Action::SearchNext | Action::SearchPrev => {
                let forward = action == Action::SearchNext;
                match self.focus {
                    Pane::Detail => self.detail_find(forward, false),
                    // Lists are filtered to the matches: n/N walk them, wrapping.
                    Pane::Sessions | Pane::Timeline => self.step_wrapping(forward),
                }
            }
            Action::ToggleHelp => {
                self.overlay = Some(Overlay::Help);
                self.overlay_scroll = 0;
            }
            Action::ToggleDiagnostics => {
                self.overlay = Some(Overlay::Diagnostics);
                self.overlay_scroll = 0;
            }
            Action::Quit => self.quit = true,
            Action::OpenCalls => self.open_calls(None),
            Action::SameTool | Action::SameFile | Action::ErrorsOnly => {
                self.quick_filter_from_timeline(action)
            }
            Action::ScrollAt { column, row, down } => self.scroll_at(column, row, down),
            Action::ClickAt { column, row } => {
                if let Some(pane) = self.pane_at(column, row) {
                    self.focus = pane;
                }
            }
            Action::SearchInput(_)
            | Action::SearchBackspace
            | Action::SearchConfirm
            | Action::SearchCancel
            | Action::Complete
            | Action::ClearLine
            | Action::ForceQuit
            | Action::Resize { .. } => {}
        }
        if (self.session_sel, self.timeline_sel) != (before.0, before.1)
            || (self.focus == Pane::Sessions) != (before.2 == Pane::Sessions)
        {
            self.detail_scroll = 0;
        }
    }

    // ----- calls view ---------------------------------------------------

    /// Switches to the Calls view; `filter` replaces the line when given
    /// (a quick filter), else the line is kept and, when empty, typed into.
    fn open_calls(&mut self, filter: Option<String>) {
        self.view = View::Calls;
        self.calls.focus_detail = false;
        self.calls.completions.clear();
        match filter {
            Some(line) => {
                self.calls.filter = line;
                self.calls.editing = false;
                self.calls.sel = 0;
                self.calls.offset.set(0);
                self.rerun_calls();
            }
            None => {
                self.calls.editing = self.calls.filter.is_empty();
                if self.calls.result.is_none() && !self.calls.running {
                    self.rerun_calls();
                }
            }
        }
    }

    /// Validates the line and queues its query (or shows why it is not one).
    fn rerun_calls(&mut self) {
        self.calls.generation += 1;
        match calls::prepare(&self.calls.filter, Utc::now()) {
            Ok(query) => {
                self.calls.error = None;
                self.calls.running = true;
                self.requests.push(Request::Find {
                    generation: self.calls.generation,
                    query,
                });
            }
            Err(e) => {
                self.calls.error = Some(e);
                self.calls.running = false;
            }
        }
    }

    fn handle_calls_filter(&mut self, action: Action) {
        let before = self.calls.filter.clone();
        match action {
            Action::SearchInput(c) => self.calls.filter.push(c),
            Action::SearchBackspace => {
                self.calls.filter.pop();
            }
            Action::ClearLine => self.calls.filter.clear(),
            Action::Complete => {
                let sessions: Vec<String> =
                    self.sessions.iter().map(|e| e.sref.id.clone()).collect();
                let names: Vec<String> = self.tool_names.iter().cloned().collect();
                let completion = filter_line::complete(&self.calls.filter, &names, &sessions);
                self.calls.filter = completion.apply(&self.calls.filter);
                // A finished word (it ends in a space) needs no list.
                self.calls.completions =
                    if completion.candidates.len() > 1 && !self.calls.filter.ends_with(' ') {
                        completion.candidates
                    } else {
                        Vec::new()
                    };
            }
            Action::SearchConfirm | Action::SearchCancel => {
                self.calls.editing = false;
                self.calls.completions.clear();
                return;
            }
            _ => return,
        }
        if action != Action::Complete {
            self.calls.completions.clear();
        }
        if self.calls.filter != before {
            self.calls.sel = 0;
            self.calls.offset.set(0);
            self.rerun_calls();
        }
    }

    /// Keys of the Calls view outside the filter line; `false` for the
    /// shared ones (help, diagnostics, quit).
    fn handle_calls(&mut self, action: Action) -> bool {
        let len = self.calls.records().len();
        let page = isize::try_from(self.calls_page()).unwrap_or(1);
        let delta = match action {
            Action::Up => Some(-1),
            Action::Down => Some(1),
            Action::Top => Some(isize::MIN / 2),
            Action::Bottom => Some(isize::MAX / 2),
            Action::PageUp => Some(-page),
            Action::PageDown => Some(page),
            Action::HalfPageUp => Some(-(page / 2).max(1)),
            Action::HalfPageDown => Some((page / 2).max(1)),
            Action::SearchNext => Some(1),
            Action::SearchPrev => Some(-1),
            _ => None,
        };
        if let Some(d) = delta {
            self.move_in_calls(d);
            return true;
        }
        match action {
            Action::Enter => self.jump_to_selected_call(),
            Action::Back => {
                if self.calls.focus_detail {
                    self.calls.focus_detail = false;
                } else {
                    self.view = View::Browse;
                }
            }
            Action::OpenCalls => self.view = View::Browse,
            Action::StartSearch => {
                self.calls.editing = true;
                self.calls.focus_detail = false;
            }
            Action::FocusNext | Action::FocusPrev => {
                self.calls.focus_detail = !self.calls.focus_detail;
            }
            Action::SameTool | Action::SameFile | Action::ErrorsOnly => {
                self.quick_filter_in_calls(action)
            }
            Action::ScrollAt { column, row, down } => {
                let a = self.calls_areas();
                let pos = Position::new(column, row);
                let focus = self.calls.focus_detail;
                if a.list.contains(pos) {
                    self.calls.focus_detail = false;
                } else if a.detail.contains(pos) {
                    self.calls.focus_detail = true;
                } else {
                    return true;
                }
                self.move_in_calls(if down { 3 } else { -3 });
                self.calls.focus_detail = focus;
            }
            Action::ClickAt { column, row } => {
                let a = self.calls_areas();
                let pos = Position::new(column, row);
                if a.filter.contains(pos) {
                    self.calls.editing = true;
                } else if a.list.contains(pos) {
                    self.calls.focus_detail = false;
                    // Rows start under the border.
                    let first = usize::from(a.list.y) + 1;
                    let clicked = usize::from(row)
                        .checked_sub(first)
                        .map(|r| r + self.calls.offset.get());
                    if let Some(r) = clicked.filter(|r| *r < len) {
                        self.calls.sel = r;
                        self.calls.detail_scroll = 0;
                    }
                } else if a.detail.contains(pos) {
                    self.calls.focus_detail = true;
                }
            }
            Action::ToggleExpand => {}
            _ => return false,
        }
        true
    }

    /// Moves the list selection, or scrolls the record pane when it has the
    /// keys, by `delta` rows (clamped).
    fn move_in_calls(&mut self, delta: isize) {
        let len = self.calls.records().len();
        if self.calls.focus_detail {
            self.calls.detail_scroll = self.calls.detail_scroll.saturating_add_signed(delta);
            self.clamp_calls_detail();
        } else if len > 0 {
            self.calls.sel = self.calls.sel.saturating_add_signed(delta).min(len - 1);
            self.calls.detail_scroll = 0;
        }
    }

    /// The Calls view's areas for the current size.
    pub fn calls_areas(&self) -> calls::CallsAreas {
        calls::areas(self.areas().main)
    }

    fn calls_page(&self) -> usize {
        let a = self.calls_areas();
        let rect = if self.calls.focus_detail {
            a.detail
        } else {
            a.list
        };
        usize::from(rect.height.saturating_sub(2)).max(1)
    }

    fn clamp_calls_detail(&mut self) {
        let a = self.calls_areas();
        let len = calls::wrapped_record_lines(self, a.detail.width.saturating_sub(2)).len();
        let height = usize::from(a.detail.height.saturating_sub(2));
        self.calls.detail_scroll = self.calls.detail_scroll.min(len.saturating_sub(height));
    }

    /// Quick filters from the selected timeline call: `tool:NAME`,
    /// `input:PATH`, or `tool:NAME is:error`, then the Calls view.
    fn quick_filter_from_timeline(&mut self, action: Action) {
        let record = match (self.focus, self.timeline_sel) {
            (Pane::Timeline | Pane::Detail, Some(item)) => {
                self.event(item).and_then(Event::as_tool_call).cloned()
            }
            _ => None,
        };
        let Some(record) = record else {
            self.message = Some("select a tool call in the timeline first".to_string());
            return;
        };
        let tool = format!("tool:{}", filter_line::quote(record.name()));
        // Keep your place: the call you were on is selected in the answer.
        self.calls.select_on_answer = Some(record.tool_use_id.clone());
        let line = match action {
            Action::SameTool => tool,
            Action::ErrorsOnly => format!("{tool} is:error"),
            _ => match file_path_of(&record.call) {
                Some(path) => format!("input:{}", filter_line::quote(path)),
                None => {
                    self.message = Some(format!("this {} call has no file path", record.name()));
                    return;
                }
            },
        };
        self.open_calls(Some(line));
    }

    /// Quick filters inside the Calls view: set `tool:` or `input:` from the
    /// selected record, or toggle `is:error`.
    fn quick_filter_in_calls(&mut self, action: Action) {
        let keep = self.calls.selected().map(|r| r.tool_use_id.clone());
        let line = &self.calls.filter;
        let new = match action {
            Action::ErrorsOnly => {
                let errors_on = filter_line::parse(line).is_ok_and(|p| p.is_error == Some(true));
                filter_line::with_word(line, "is", (!errors_on).then_some("error"))
            }
            _ => {
                let Some(record) = self.calls.selected() else {
                    self.message = Some("no call selected".to_string());
                    return;
                };
                if action == Action::SameTool {
                    filter_line::with_word(line, "tool", Some(&record.tool_name))
                } else {
                    match &record.file_path {
                        Some(p) => filter_line::with_word(line, "input", Some(p)),
                        None => {
                            self.message =
                                Some(format!("this {} call has no file path", record.tool_name));
                            return;
                        }
                    }
                }
            }
        };
        // Keep your place: the call you were on is selected in the answer.
        self.calls.select_on_answer = keep;
        self.open_calls(Some(new));
    }

    /// Enter in the Calls view: open the record's session in the timeline
    /// and select the call (expanding the spawns above a subagent's call).
    fn jump_to_selected_call(&mut self) {
        let Some(record) = self.calls.selected() else {
            return;
        };
        let index = self
            .sessions
            .iter()
            .position(|e| e.sref.id == record.session && e.sref.agent == record.agent);
        let Some(index) = index else {
            self.message = Some(format!("session {} is not in the list", record.session));
            return;
        };
        let id = record.tool_use_id.clone();
        self.view = View::Browse;
        self.session_filter.clear();
        self.session_sel = Some(index);
        self.open_selected();
        self.timeline_filter.clear();
        self.pending_jump = Some((index, id));
        self.finish_jump();
    }

    /// Selects the pending jump's call once its session is ready.
    fn finish_jump(&mut self) {
        let Some((index, id)) = self.pending_jump.clone() else {
            return;
        };
        let located = match &self.open {
            Some(OpenSession {
                index: open,
                state: OpenState::Ready(session),
            }) if *open == index => timeline::locate(session, &id),
            Some(OpenSession {
                index: open,
                state: OpenState::Loading,
            }) if *open == index => return, // still loading
            _ => {
                self.pending_jump = None;
                return;
            }
        };
        self.pending_jump = None;
        match located {
            Some((item, spawns)) => {
                self.expanded.extend(spawns);
                self.timeline_sel = Some(item);
                self.focus = Pane::Timeline;
                self.detail_scroll = 0;
            }
            None => self.message = Some(format!("call {id} is not in this session's timeline")),
        }
    }

    fn handle_search(&mut self, action: Action) {
        let focus = self.focus;
        let edit = |app: &mut App, f: &dyn Fn(&mut String)| {
            match focus {
                Pane::Sessions => f(&mut app.session_filter),
                Pane::Timeline => f(&mut app.timeline_filter),
                Pane::Detail => f(&mut app.detail_query),
            }
            app.after_filter_change();
        };
        match action {
            Action::SearchInput(c) => edit(self, &|s| s.push(c)),
            Action::SearchBackspace => edit(self, &|s| {
                s.pop();
            }),
            Action::ClearLine => edit(self, &|s| s.clear()),
            Action::SearchConfirm => self.searching = false,
            Action::SearchCancel => {
                self.searching = false;
                edit(self, &|s| s.clear());
            }
            _ => {}
        }
    }

    fn after_filter_change(&mut self) {
        match self.focus {
            Pane::Sessions => {
                let visible = self.selectable_sessions();
                // A fuzzy filter ranks: its best match is selected.
                if !self.session_filter.trim().is_empty()
                    || self.session_sel.is_none_or(|s| !visible.contains(&s))
                {
                    self.session_sel = visible.first().copied();
                }
                self.session_offset.set(0);
            }
            Pane::Timeline => {
                if self.timeline_filter.is_empty() {
                    self.reveal_selection();
                }
                let visible = self.timeline_rows();
                if self
                    .timeline_sel
                    .is_none_or(|s| !visible.iter().any(|r| r.item == s))
                {
                    self.timeline_sel = visible.first().map(|r| r.item);
                }
                self.timeline_offset.set(0);
            }
            Pane::Detail => {
                if self.detail_query.is_empty() {
                    return;
                }
                self.detail_scroll = 0;
                self.detail_find(true, true);
            }
        }
    }

    fn handle_overlay(&mut self, overlay: Overlay, action: Action) {
        let page = isize::try_from(self.area.height.saturating_sub(4)).unwrap_or(1);
        let delta = match action {
            Action::Up => -1,
            Action::Down => 1,
            Action::PageUp | Action::HalfPageUp => -page,
            Action::PageDown | Action::HalfPageDown => page,
            Action::Top => isize::MIN / 2,
            Action::Bottom => isize::MAX / 2,
            Action::ScrollAt { down, .. } => {
                if down {
                    3
                } else {
                    -3
                }
            }
            Action::Back | Action::Quit => {
                self.overlay = None;
                return;
            }
            Action::ToggleHelp => {
                self.overlay = (overlay != Overlay::Help).then_some(Overlay::Help);
                self.overlay_scroll = 0;
                return;
            }
            Action::ToggleDiagnostics => {
                self.overlay = (overlay != Overlay::Diagnostics).then_some(Overlay::Diagnostics);
                self.overlay_scroll = 0;
                return;
            }
            _ => return,
        };
        let len = match overlay {
            Overlay::Help => super::help::line_count(),
            Overlay::Diagnostics => self.diagnostics.len(),
        };
        // The last page ends at the last line (borders take two rows).
        let visible = usize::from(self.area.height.saturating_sub(2)).max(1);
        self.overlay_scroll = self
            .overlay_scroll
            .saturating_add_signed(delta)
            .min(len.saturating_sub(visible));
    }

    fn page(&self) -> isize {
        let areas = self.areas();
        let rect = match self.focus {
            Pane::Sessions => areas.sessions,
            Pane::Timeline => areas.timeline,
            Pane::Detail => areas.detail,
        };
        let h = rect.map_or(1, |r| r.height.saturating_sub(2)).max(1);
        // Session rows are two lines tall.
        let h = if self.focus == Pane::Sessions {
            (h / 2).max(1)
        } else {
            h
        };
        isize::from(i16::try_from(h).unwrap_or(i16::MAX))
    }

    fn step(&mut self, delta: isize) {
        match self.focus {
            Pane::Sessions => {
                let visible = self.selectable_sessions();
                self.session_sel = moved(&visible, self.session_sel, delta);
            }
            Pane::Timeline => {
                let visible: Vec<Item> = self.timeline_rows().iter().map(|r| r.item).collect();
                self.timeline_sel = moved(&visible, self.timeline_sel, delta);
            }
            Pane::Detail => self.scroll_detail(delta),
        }
    }

    fn step_wrapping(&mut self, forward: bool) {
        fn wrap<T: Copy + PartialEq>(items: &[T], cur: Option<T>, forward: bool) -> Option<T> {
            let pos = cur.and_then(|c| items.iter().position(|x| *x == c));
            let n = items.len();
            if n == 0 {
                return None;
            }
            let next = match (pos, forward) {
                (None, _) => 0,
                (Some(p), true) => (p + 1) % n,
                (Some(p), false) => (p + n - 1) % n,
            };
            items.get(next).copied()
        }
        match self.focus {
            Pane::Sessions => {
                let visible = self.selectable_sessions();
                self.session_sel = wrap(&visible, self.session_sel, forward);
            }
            Pane::Timeline => {
                let visible: Vec<Item> = self.timeline_rows().iter().map(|r| r.item).collect();
                self.timeline_sel = wrap(&visible, self.timeline_sel, forward);
            }
            Pane::Detail => {}
        }
    }

    fn open_selected(&mut self) {
        let Some(index) = self.session_sel else {
            return;
        };
        let already = self
            .open
            .as_ref()
            .is_some_and(|o| o.index == index && !matches!(o.state, OpenState::Failed(_)));
        if !already {
            self.open = Some(OpenSession {
                index,
                state: OpenState::Loading,
            });
            self.expanded.clear();
            self.timeline_sel = None;
            self.timeline_filter.clear();
            self.timeline_offset.set(0);
            self.requests.push(Request::Open(index));
        }
        self.focus = Pane::Timeline;
    }

    fn selected_subagent(&self) -> Option<usize> {
        let item = self.timeline_sel?;
        if let Item::Unlinked(s) = item {
            return Some(s);
        }
        self.event(item)?.as_tool_call()?.subagent
    }

    fn enter(&mut self) {
        match self.focus {
            Pane::Sessions => self.open_selected(),
            Pane::Timeline => {
                let Some(item) = self.timeline_sel else {
                    return;
                };
                if self.selected_subagent().is_some() {
                    if self.expanded.insert(item) {
                        return;
                    }
                    // Already expanded: step onto its first child.
                    let rows = self.timeline_rows();
                    if let Some(child) = rows.iter().find(|r| r.parent == Some(item)) {
                        self.timeline_sel = Some(child.item);
                    }
                    return;
                }
                self.focus = Pane::Detail;
            }
            Pane::Detail => {}
        }
    }

    fn back(&mut self) {
        match self.focus {
            Pane::Sessions => {
                if !self.session_filter.is_empty() {
                    self.session_filter.clear();
                    self.after_filter_change();
                }
            }
            Pane::Timeline => {
                if !self.timeline_filter.is_empty() {
                    self.timeline_filter.clear();
                    self.after_filter_change();
                    return;
                }
                let Some(item) = self.timeline_sel else {
                    self.focus = Pane::Sessions;
                    return;
                };
                if self.expanded.remove(&item) {
                    return;
                }
                let parent = self
                    .timeline_rows()
                    .iter()
                    .find(|r| r.item == item)
                    .and_then(|r| r.parent);
                match parent {
                    Some(p) => self.timeline_sel = Some(p),
                    None => self.focus = Pane::Sessions,
                }
            }
            Pane::Detail => {
                if !self.detail_query.is_empty() {
                    self.detail_query.clear();
                } else {
                    self.focus = Pane::Timeline;
                }
            }
        }
    }

    fn toggle_expand(&mut self) {
        if self.focus != Pane::Timeline || self.selected_subagent().is_none() {
            return;
        }
        if let Some(item) = self.timeline_sel
            && !self.expanded.remove(&item)
        {
            self.expanded.insert(item);
        }
    }

    /// The pane under a screen cell.
    pub fn pane_at(&self, column: u16, row: u16) -> Option<Pane> {
        let areas = self.areas();
        let pos = Position::new(column, row);
        [
            (areas.sessions, Pane::Sessions),
            (areas.timeline, Pane::Timeline),
            (areas.detail, Pane::Detail),
        ]
        .into_iter()
        .find_map(|(rect, pane)| rect.filter(|r| r.contains(pos)).map(|_| pane))
    }

    fn scroll_at(&mut self, column: u16, row: u16, down: bool) {
        let Some(pane) = self.pane_at(column, row) else {
            return;
        };
        let focus = self.focus;
        self.focus = pane;
        self.step(if down { 3 } else { -3 });
        self.focus = focus;
    }
}

/// Moves `delta` steps from `current` within `items`, clamping at the ends.
fn moved<T: Copy + PartialEq>(items: &[T], current: Option<T>, delta: isize) -> Option<T> {
    if items.is_empty() {
        return None;
    }
    let pos = current
        .and_then(|c| items.iter().position(|x| *x == c))
        .unwrap_or(0);
    let last = items.len() - 1;
    let next = pos.saturating_add_signed(delta).min(last);
    items.get(next).copied()
}

/// The plain text of a line (for searching).
pub fn line_text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

fn unreachable_empty() -> &'static Vec<Line<'static>> {
    static EMPTY: Vec<Line<'static>> = Vec::new();
    &EMPTY
}
