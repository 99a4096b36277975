//! The TUI's state and every state transition: [`App::handle`] folds an
//! [`Action`] in, [`App::apply`] folds a worker [`Msg`] in. Nothing here
//! draws; `super::draw` reads an `&App`. Side effects that need a thread
//! (opening a session) are queued as [`Request`]s for the event loop.

use std::cell::{Cell, Ref, RefCell};
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, FixedOffset, Utc};
use hookscope::transcript::{Diagnostic, Event, Session, SessionRef, SessionSummary};
use ratatui::layout::{Constraint, Direction, Layout, Position, Rect};
use ratatui::text::Line;

use super::action::Action;
use super::theme::Theme;
use super::worker::Msg;
use super::{detail, timeline};

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// Fully load session `index` and send [`Msg::Loaded`].
    Open(usize),
}

/// Where each part of the screen is, for drawing and for mouse hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Areas {
    /// The demo banner line (zero-sized when there is none).
    pub banner: Rect,
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
    /// Session list filter (case-insensitive substring).
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
    requests: Vec<Request>,
    detail_cache: RefCell<Option<(DetailKey, Vec<Line<'static>>)>>,
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
            requests: Vec::new(),
            detail_cache: RefCell::new(None),
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

    /// The session list rows: projects newest first, sessions newest first
    /// inside each, filtered by [`App::session_filter`].
    pub fn session_rows(&self) -> Vec<SessionRow> {
        let needle = self.session_filter.to_lowercase();
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        for (i, entry) in self.sessions.iter().enumerate() {
            if !needle.is_empty() {
                let hay = format!("{} {} {}", entry.title(), entry.sref.id, entry.project())
                    .to_lowercase();
                if !hay.contains(&needle) {
                    continue;
                }
            }
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
            self.push_events(session, Thread::Main, t, &turn.events, 0, None, &mut rows);
        }
        rows
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
                && self.expanded.contains(&item)
                && depth < 8
                && let Some(subagent) = session.subagents.get(s)
            {
                for (st, sturn) in subagent.turns.iter().enumerate() {
                    self.push_events(
                        session,
                        Thread::Sub(s),
                        st,
                        &sturn.events,
                        depth + 1,
                        Some(item),
                        rows,
                    );
                }
            }
        }
    }

    /// The visible timeline rows (filter applied).
    pub fn timeline_rows(&self) -> Vec<TimelineRow> {
        let rows = self.all_timeline_rows();
        if self.timeline_filter.is_empty() {
            return rows;
        }
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
        let needle = self.detail_query.to_lowercase();
        let hits: Vec<usize> = {
            let lines = self.detail_lines();
            lines
                .iter()
                .enumerate()
                .filter(|(_, l)| line_text(l).to_lowercase().contains(&needle))
                .map(|(i, _)| i)
                .collect()
        };
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
            Msg::Summary { index, result } => {
                let Some(entry) = self.sessions.get_mut(index) else {
                    return;
                };
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
            }
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
        if self.searching {
            self.handle_search(action);
            return;
        }
        if let Some(overlay) = self.overlay {
            self.handle_overlay(overlay, action);
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
            | Action::ForceQuit
            | Action::Resize { .. } => {}
        }
        if (self.session_sel, self.timeline_sel) != (before.0, before.1)
            || (self.focus == Pane::Sessions) != (before.2 == Pane::Sessions)
        {
            self.detail_scroll = 0;
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
                if self.session_sel.is_none_or(|s| !visible.contains(&s)) {
                    self.session_sel = visible.first().copied();
                }
                self.session_offset.set(0);
            }
            Pane::Timeline => {
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
        self.overlay_scroll = self
            .overlay_scroll
            .saturating_add_signed(delta)
            .min(len.saturating_sub(1));
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
