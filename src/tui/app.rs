//! The TUI's router: [`App`] holds the shared [`Ctx`] and one component per
//! pane and overlay ([`super::component`]), offers each [`Action`] to the
//! component that has the keys, handles what is left (focus, overlays,
//! quit), routes the [`Effect`]s components ask for (open a session, jump to
//! a call, focus a pane); worker [`Msg`]s are folded in by
//! [`super::messages`], the screen split is [`super::layout`]. Nothing here draws
//! a pane; [`App::draw`] asks each component to. Side effects that need a
//! thread are queued as [`Request`]s for the event loop.
//!
//! What is not here: any pane's selection, scroll, filter or key handling
//! (each lives in its component's module).

use chrono::FixedOffset;

use hookscope_core::hooks::events::At;
use hookscope_core::transcript::short_id::ShortIds;
use hookscope_core::transcript::text::one_line;
use hookscope_core::transcript::{Diagnostic, Event, SessionRef};
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::Span;
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::action::Action;
use super::backtest::BacktestPane;
use super::calls::{self, CallsView};
use super::clipboard::{Clipboard, SystemClipboard};
use super::component::{Command, Component, EventState};
use super::detail::{DetailPane, Subject};
use super::diagnostics::DiagnosticsOverlay;
use super::every_event::EveryEventPane;
use super::help::HelpOverlay;
use super::keymap::KeyMode;
use super::replay::{ReplayPane, size_text};
use super::sessions::SessionsPane;
use super::theme::Theme;
use super::timeline::TimelinePane;
use super::widgets::status_bar::{self, Status};
use super::widgets::text::fit;

pub use super::context::{
    Ctx, Effect, Item, OpenSession, OpenState, Pane, Request, Rules, SessionEntry, Thread,
    event_of, spawn_chain, subagent_label,
};
pub use super::layout::{Areas, WIDE, areas};

/// A modal overlay drawn over the panes (above the status bar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    /// The key help.
    Help,
    /// The diagnostics list.
    Diagnostics,
    /// The replay pane (`r`): a component over the main area.
    Replay,
    /// The backtest's matches (`B`).
    Backtest,
    /// Your hooks over every event, or two versions compared (`B` without
    /// a rule set, or with `--against`).
    EveryEvent,
}

/// Where an `Enter` jump to a session came from ([`App::back_to`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackTo {
    /// A Calls-view row.
    Calls,
    /// A backtest match (`B`'s list).
    Backtest,
}

/// What fills the screen between banner and status bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Sessions, Timeline and Detail panes.
    Browse,
    /// Every tool call across sessions, filtered ([`super::calls`]).
    Calls,
}

/// The router and what is shared.
#[derive(Debug)]
pub struct App {
    /// What every component may read.
    pub ctx: Ctx,
    /// The focused pane (Browse view).
    pub focus: Pane,
    /// Browse panes or the Calls view.
    pub view: View,
    /// The open overlay.
    pub overlay: Option<Overlay>,
    /// The Sessions pane.
    pub list: SessionsPane,
    /// The Timeline pane.
    pub timeline: TimelinePane,
    /// The Detail pane.
    pub detail: DetailPane,
    /// The Calls view.
    pub calls: CallsView,
    /// The help overlay.
    pub help: HelpOverlay,
    /// The diagnostics overlay.
    pub diagnostics: DiagnosticsOverlay,
    /// The replay pane.
    pub replay: ReplayPane,
    /// The backtest list.
    pub backtest: BacktestPane,
    /// Your hooks over every event, or two versions compared.
    pub every_event: EveryEventPane,
    /// The one clipboard of the run (arboard created on the first copy,
    /// OSC 52 as the fallback); tests put a [`super::clipboard::Captured`].
    pub clipboard: Box<dyn Clipboard>,
    /// Set when the app should exit.
    pub quit: bool,
    /// Whether the user has pressed anything yet (until then the session
    /// list keeps its first row selected while summaries reorder it).
    pub touched: bool,
    /// A call to select once its session has loaded: (session index,
    /// `tool_use_id`, or `line:N` for a line of the main file).
    pub(super) pending_jump: Option<(usize, String)>,
    /// Where the Browse view was reached from by Enter: a Calls-view row
    /// or a backtest match. `Esc` in the Timeline or Detail (no filter or
    /// search to clear) goes back there, on the same row. Cleared when
    /// another session is opened or the Calls view is shown.
    pub(super) back_to: Option<BackTo>,
    /// The overlay the help was opened over (the backtest list, the replay
    /// pane…): closing the help shows it again.
    pub(super) help_over: Option<Overlay>,
    /// A call to open the replay pane on once a jump to it lands (`r` in
    /// the Calls view): its `tool_use_id`.
    pub(super) pending_replay: Option<String>,
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
        let short_ids = ShortIds::new(sessions.iter().map(|s| s.id.as_str()));
        let ctx = Ctx {
            short_ids,
            sessions: sessions
                .into_iter()
                .map(|sref| SessionEntry {
                    sref,
                    summary: None,
                    error: None,
                })
                .collect(),
            diagnostics,
            summaries_done: false,
            checking: false,
            indexing: None,
            waiting_for_build: false,
            open: None,
            tool_names: Default::default(),
            rule_ids: Vec::new(),
            area: Rect::new(0, 0, 80, 24),
            utc_offset,
            theme,
            banner: None,
            message: None,
            requests: Vec::new(),
            effects: Vec::new(),
            settings: Vec::new(),
            settings_config_dir: None,
            settings_managed: None,
            cwd_map: Default::default(),
            codex_home: None,
            hook_env: None,
            decisions: std::sync::Arc::default(),
            event_decisions: std::sync::Arc::default(),
            backtest_here: std::sync::Arc::default(),
            backtest_lines: std::sync::Arc::default(),
            rules: Default::default(),
            against: Default::default(),
            against_settings: Vec::new(),
        };
        let mut app = App {
            list: SessionsPane::new(&ctx),
            ctx,
            focus: Pane::Sessions,
            view: View::Browse,
            overlay: None,
            timeline: TimelinePane::default(),
            detail: DetailPane::default(),
            calls: CallsView::default(),
            help: HelpOverlay::default(),
            diagnostics: DiagnosticsOverlay::default(),
            replay: ReplayPane::default(),
            backtest: BacktestPane::default(),
            every_event: EveryEventPane::default(),
            clipboard: Box::new(SystemClipboard::default()),
            quit: false,
            touched: false,
            pending_jump: None,
            back_to: None,
            help_over: None,
            pending_replay: None,
        };
        app.sync();
        app
    }

    /// Sets the banner across the top (the demo notice).
    pub fn set_banner(&mut self, banner: Option<String>) {
        self.ctx.banner = banner;
        self.sync();
    }

    /// Takes the queued background work.
    pub fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.ctx.requests)
    }

    /// The screen areas for the current size and focus.
    pub fn areas(&self) -> Areas {
        areas(self.ctx.area, self.focus, self.ctx.banner.is_some())
    }

    /// Which key table applies now.
    pub fn key_mode(&self) -> KeyMode {
        if self.overlay == Some(Overlay::EveryEvent) {
            if self.every_event.confirming() {
                KeyMode::Search
            } else {
                KeyMode::Normal
            }
        } else if self.overlay == Some(Overlay::Replay) {
            if self.replay.prompt.is_some() || self.replay.confirm.is_some() {
                KeyMode::Search
            } else {
                KeyMode::Normal
            }
        } else if self.view == View::Calls && self.calls.editing && self.overlay.is_none() {
            if self.calls.completing() {
                KeyMode::Completion
            } else {
                KeyMode::CallsFilter
            }
        } else if self.view == View::Browse && self.typing().is_some() {
            KeyMode::Search
        } else {
            KeyMode::Normal
        }
    }

    /// The focused pane's search text while it is typed into.
    fn typing(&self) -> Option<&str> {
        match self.focus {
            Pane::Sessions if self.list.searching => Some(&self.list.filter),
            Pane::Timeline if self.timeline.searching => Some(&self.timeline.filter),
            Pane::Detail if self.detail.searching => Some(&self.detail.query),
            _ => None,
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

    /// Folds an action in: the component with the keys first, then what
    /// is left here.
    pub fn handle(&mut self, action: Action) {
        match action {
            Action::ForceQuit => {
                self.quit = true;
                return;
            }
            Action::Resize { width, height } => {
                self.ctx.area = Rect::new(0, 0, width, height);
                self.sync();
                return;
            }
            _ => {}
        }
        self.touched = true;
        self.ctx.message = None;
        let state = match (self.overlay, self.view) {
            (Some(Overlay::Replay), _) => {
                if !self.replay.event(action, &mut self.ctx).is_consumed() {
                    self.overlay_event(Overlay::Replay, action);
                }
                EventState::Consumed
            }
            (Some(Overlay::Backtest), _) => {
                if !self.backtest.event(action, &mut self.ctx).is_consumed() {
                    self.overlay_event(Overlay::Backtest, action);
                }
                EventState::Consumed
            }
            (Some(Overlay::EveryEvent), _) => {
                if !self.every_event.event(action, &mut self.ctx).is_consumed() {
                    match action {
                        // The dialog's cancel (its pane said what).
                        Action::SearchCancel | Action::SearchInput('n') => self.overlay = None,
                        Action::ForceQuit => {}
                        _ => self.overlay_event(Overlay::EveryEvent, action),
                    }
                }
                EventState::Consumed
            }
            _ if self.key_mode() != KeyMode::Normal => match self.view {
                View::Calls => self.calls.event(action, &mut self.ctx),
                View::Browse => self.pane_event(self.focus, action),
            },
            (Some(overlay), _) => {
                self.overlay_event(overlay, action);
                EventState::Consumed
            }
            (None, View::Calls) => self.calls.event(action, &mut self.ctx),
            (None, View::Browse) => self.browse_event(action),
        };
        if !state.is_consumed() {
            self.global(action);
        }
        self.route_effects();
        self.sync();
    }

    /// A Browse-view action: the mouse goes to the pane under it, keys to
    /// the focused pane.
    fn browse_event(&mut self, action: Action) -> EventState {
        let pane = match action {
            Action::ScrollAt { column, row, .. } => match self.pane_at(column, row) {
                Some(p) => p,
                None => return EventState::Consumed,
            },
            Action::ClickAt { .. } => return EventState::NotConsumed,
            _ => self.focus,
        };
        if action == Action::Back
            && matches!(pane, Pane::Timeline | Pane::Detail)
            && self.timeline.filter.is_empty()
            && self.detail.query.is_empty()
            && let Some(back) = self.back_to.take()
        {
            // Back where Enter came from, its row kept.
            match back {
                BackTo::Calls => self.view = View::Calls,
                BackTo::Backtest => self.overlay = Some(Overlay::Backtest),
            }
            return EventState::Consumed;
        }
        self.pane_event(pane, action)
    }

    /// Offers `action` to `pane`.
    fn pane_event(&mut self, pane: Pane, action: Action) -> EventState {
        let ctx = &mut self.ctx;
        match pane {
            Pane::Sessions => self.list.event(action, ctx),
            Pane::Timeline => self.timeline.event(action, ctx),
            Pane::Detail => self.detail.event(action, ctx),
        }
    }

    fn overlay_event(&mut self, overlay: Overlay, action: Action) {
        match action {
            Action::Back | Action::Quit => {
                if overlay == Overlay::EveryEvent
                    && let Some(m) = self.every_event.close()
                {
                    self.ctx.say(m);
                }
                self.overlay = None;
                if overlay == Overlay::Help {
                    // Back to the overlay the help was opened over.
                    self.overlay = self.help_over.take();
                }
            }
            Action::ToggleHelp if overlay == Overlay::Help => {
                self.overlay = self.help_over.take();
            }
            Action::Backtest => self.start_backtest(),
            Action::ToggleHelp => self.open_help(),
            Action::ToggleDiagnostics if overlay == Overlay::Diagnostics => self.overlay = None,
            Action::ToggleDiagnostics => {
                self.overlay = Some(Overlay::Diagnostics);
                self.diagnostics.scroll = 0;
            }
            _ => {
                let _ = match overlay {
                    Overlay::Help => self.help.event(action, &mut self.ctx),
                    Overlay::Diagnostics => self.diagnostics.event(action, &mut self.ctx),
                    Overlay::Replay | Overlay::Backtest | Overlay::EveryEvent => {
                        EventState::NotConsumed
                    }
                };
            }
        }
    }

    /// What every view offers (the help's first section).
    fn global_commands() -> Vec<Command> {
        vec![
            Command::new(Action::Down, "down", "down one row (detail: scroll)"),
            Command::new(Action::Up, "up", "up one row"),
            Command::new(Action::Top, "top", "first row"),
            Command::new(Action::Bottom, "bottom", "last row"),
            Command::new(Action::PageDown, "page", "down one page"),
            Command::new(Action::PageUp, "page", "up one page"),
            Command::new(Action::HalfPageDown, "half", "down half a page"),
            Command::new(Action::HalfPageUp, "half", "up half a page"),
            Command::new(Action::FocusNext, "next", "next pane"),
            Command::new(Action::FocusPrev, "prev", "previous pane"),
            Command::new(
                Action::OpenCalls,
                "calls",
                "Calls view: every tool call, filtered (c again: back)",
            ),
            Command::new(
                Action::Replay,
                "replay",
                "replay pane: hook events here (call, turn or session)",
            ),
            Command::new(
                Action::Backtest,
                "backtest",
                "backtest: --rules, or your hooks, over every session",
            ),
            Command::new(
                Action::ToggleDiagnostics,
                "diag",
                "list diagnostics (path:line: message)",
            ),
            Command::new(Action::ToggleHelp, "help", "this help"),
            Command::new(Action::Quit, "quit", "quit (closes an overlay first)"),
            Command::new(Action::ForceQuit, "quit", "quit, always"),
        ]
    }

    fn open_help(&mut self) {
        let panes: [(&str, &dyn Component); 7] = [
            ("Sessions", &self.list),
            ("Timeline", &self.timeline),
            ("Detail", &self.detail),
            ("Calls view (c)", &self.calls),
            ("Replay pane (r)", &self.replay),
            ("Backtest list (B, with --rules)", &self.backtest),
            ("Your hooks over every event (B)", &self.every_event),
        ];
        // Where the keys go now comes first, then what works everywhere,
        // then the rest in the panes' order.
        let here: &dyn Component = match (self.overlay, self.view, self.focus) {
            (Some(Overlay::Replay), _, _) => &self.replay,
            (Some(Overlay::Backtest), _, _) => &self.backtest,
            (Some(Overlay::EveryEvent), _, _) => &self.every_event,
            (_, View::Calls, _) => &self.calls,
            (_, View::Browse, Pane::Sessions) => &self.list,
            (_, View::Browse, Pane::Timeline) => &self.timeline,
            (_, View::Browse, Pane::Detail) => &self.detail,
        };
        let is_here = |c: &dyn Component| std::ptr::addr_eq(c, here);
        let section = |(title, component): (&'static str, &dyn Component)| {
            let mut out = Vec::new();
            component.commands(&self.ctx, &mut out, true);
            (title, out)
        };
        let (first, rest): (Vec<_>, Vec<_>) = panes.into_iter().partition(|(_, c)| is_here(*c));
        let mut sections: Vec<(&str, Vec<Command>)> = first.into_iter().map(section).collect();
        sections.push(("Everywhere", Self::global_commands()));
        sections.extend(rest.into_iter().map(section));
        self.help.show(&sections, &self.ctx.theme);
        self.help_over = self.overlay.filter(|o| *o != Overlay::Help);
        self.overlay = Some(Overlay::Help);
    }

    /// What no component used.
    fn global(&mut self, action: Action) {
        match action {
            Action::FocusNext if self.view == View::Browse => {
                self.focus = match self.focus {
                    Pane::Sessions => Pane::Timeline,
                    Pane::Timeline => Pane::Detail,
                    Pane::Detail => Pane::Sessions,
                }
            }
            Action::FocusPrev if self.view == View::Browse => {
                self.focus = match self.focus {
                    Pane::Sessions => Pane::Detail,
                    Pane::Timeline => Pane::Sessions,
                    Pane::Detail => Pane::Timeline,
                }
            }
            Action::ToggleHelp => self.open_help(),
            Action::ToggleDiagnostics => {
                self.overlay = Some(Overlay::Diagnostics);
                self.diagnostics.scroll = 0;
            }
            Action::Quit => self.quit = true,
            Action::Replay => self.open_replay(),
            Action::Backtest => self.start_backtest(),
            Action::OpenCalls => self.ctx.emit(Effect::OpenCalls {
                line: None,
                select: None,
            }),
            Action::HookActivity if self.view == View::Browse => {
                // From any pane: the Timeline is where the filter lives.
                // With no session open yet, the selected one opens first
                // (else the filter would show an empty Timeline).
                if self.ctx.open.is_none() {
                    match self.list.sel {
                        Some(index) => self.open_session(index),
                        None => {
                            self.ctx.say("no session to show hook activity of");
                            return;
                        }
                    }
                }
                self.focus = Pane::Timeline;
                self.timeline.event(action, &mut self.ctx);
            }
            Action::SameTool | Action::SameFile | Action::ErrorsOnly
                if self.view == View::Browse =>
            {
                self.quick_filter(action)
            }
            Action::ClickAt { column, row } if self.view == View::Browse => {
                if let Some(pane) = self.pane_at(column, row) {
                    self.focus = pane;
                }
            }
            _ => {}
        }
    }

    /// Quick filters from the selected timeline call: `tool:NAME`,
    /// `input:PATH`, or `tool:NAME is:error`, then the Calls view.
    fn quick_filter(&mut self, action: Action) {
        let record = match self.focus {
            Pane::Timeline | Pane::Detail => self.timeline.selected_call(&self.ctx),
            Pane::Sessions => None,
        };
        let Some(record) = record else {
            self.ctx.say("select a tool call in the timeline first");
            return;
        };
        match calls::quick_line(action, record) {
            Ok(line) => {
                let select = Some(record.tool_use_id.clone());
                self.ctx.emit(Effect::OpenCalls {
                    line: Some(line),
                    select,
                });
            }
            Err(message) => self.ctx.say(message),
        }
    }

    /// `r`: opens the replay pane on the Calls view's selected call (after
    /// jumping to it), the timeline's selected call or turn, or the open
    /// session as a whole (the last of each event).
    fn open_replay(&mut self) {
        if self.view == View::Calls {
            let Some(record) = self.calls.selected() else {
                self.ctx.say("select a call first");
                return;
            };
            self.pending_replay = Some(record.tool_use_id.clone());
            self.calls.event(Action::Enter, &mut self.ctx);
            return;
        }
        let Some(session) = self.ctx.session().cloned() else {
            self.ctx
                .say("open a session first (Enter), then r on a call, turn or the session");
            return;
        };
        let open_index = self.ctx.open.as_ref().map(|o| o.index);
        let (at, label) = match (self.focus, self.timeline.sel) {
            (Pane::Sessions, _) if self.list.sel != open_index => {
                self.ctx
                    .say("open this session first (Enter), then r replays it");
                return;
            }
            (Pane::Sessions, _) | (_, None) | (_, Some(Item::Unlinked(_))) => (
                At::Last,
                "the whole session (last of each event)".to_string(),
            ),
            (_, Some(Item::Turn(t))) => (At::Turn(t + 1), format!("turn {}", t + 1)),
            (_, Some(item)) => match event_of(&session, item) {
                Some(Event::ToolCall(r)) => (
                    At::ToolUseId(r.tool_use_id.clone()),
                    format!("{} {}", r.name(), r.tool_use_id),
                ),
                _ => match self.timeline.main_turn(&self.ctx) {
                    Some(t) => (At::Turn(t + 1), format!("turn {}", t + 1)),
                    None => (
                        At::Last,
                        "the whole session (last of each event)".to_string(),
                    ),
                },
            },
        };
        self.replay.open(at, label, &self.ctx);
        // On a `⚑` row: that firing's event, where it fired.
        if let Some(item @ Item::Event { thread, .. }) = self.timeline.sel
            && let Some(hook) = crate::tui::timeline::hook_of_item(&session, item)
            && let Some(event) = hook.event.as_ref().and_then(|e| e.known())
            && let Some(&line) = hook.lines.first()
        {
            let sub = matches!(thread, crate::tui::context::Thread::Sub(_));
            self.replay.pick_firing(event, sub, line, &self.ctx);
        }
        self.overlay = Some(Overlay::Replay);
    }

    /// `B`: runs the loaded rule set over every session on a worker and
    /// opens the list of its matches; with `--against`, compares the
    /// two rule sets; without a rule set, plans your hooks over every event
    /// (they run after Enter in the pane).
    fn start_backtest(&mut self) {
        // A run only starts with a rule set and no `--against`, which do
        // not change while the TUI runs.
        if self.backtest.running()
            || (self.backtest.progress.is_some() && self.overlay != Some(Overlay::Backtest))
        {
            // One run at a time: show the one going on, or the last one's
            // list where it was left (B again from there runs it anew).
            self.overlay = Some(Overlay::Backtest);
            return;
        }
        if self.every_event.busy()
            || (self.every_event.phase == super::every_event::Phase::Done
                && self.overlay != Some(Overlay::EveryEvent)
                && matches!(self.ctx.rules, Rules::None))
        {
            // One at a time: show the one going on, or the last report (B
            // again from there starts over).
            self.overlay = Some(Overlay::EveryEvent);
            return;
        }
        match (&self.ctx.rules, &self.ctx.against) {
            (Rules::Loaded(a), Rules::Loaded(b)) => {
                let name = |r: &hookscope_core::hooks::rules::RuleSet| {
                    r.path
                        .as_ref()
                        .map_or_else(|| "(rules)".to_string(), |p| p.display().to_string())
                };
                let (a, b) = (name(a), name(b));
                self.every_event
                    .start_against(self.ctx.sessions.len(), &a, &b);
                self.ctx.requests.push(Request::Against);
                self.overlay = Some(Overlay::EveryEvent);
                return;
            }
            (_, Rules::Failed { path, .. }) => {
                self.ctx.say(format!(
                    "{} (--against) was refused: nothing to compare",
                    path.display()
                ));
                return;
            }
            _ => {}
        }
        match &self.ctx.rules {
            Rules::None => {
                self.every_event
                    .start_hooks(!self.ctx.against_settings.is_empty());
                self.ctx.requests.push(Request::ExecAllPlan);
                self.overlay = Some(Overlay::EveryEvent);
            }
            Rules::Loaded(_) => {
                self.backtest.start(self.ctx.sessions.len());
                self.ctx.requests.push(Request::Backtest);
                self.overlay = Some(Overlay::Backtest);
            }
            Rules::Failed { path, .. } => self.ctx.say(format!(
                "{} was refused (r shows its errors): nothing to backtest",
                path.display()
            )),
        }
    }

    /// Carries out the effects components asked for.
    fn route_effects(&mut self) {
        // An effect may cause others (a jump opens a session); a few rounds
        // at most.
        for _ in 0..4 {
            let effects = std::mem::take(&mut self.ctx.effects);
            if effects.is_empty() {
                return;
            }
            for effect in effects {
                match effect {
                    Effect::Focus(pane) => self.focus = pane,
                    Effect::OpenSession(index) => {
                        self.back_to = None;
                        self.open_session(index);
                    }
                    Effect::OpenCalls { line, select } => {
                        self.back_to = None;
                        self.view = View::Calls;
                        self.calls.open(line, select, &mut self.ctx);
                    }
                    Effect::CloseCalls => self.view = View::Browse,
                    Effect::Copy { text, what } => {
                        let size = size_text(text.len());
                        match self.clipboard.copy(&text) {
                            Ok(how) => self.ctx.say(format!("copied {what} ({size}) via {how}")),
                            Err(e) => self.ctx.say(format!("could not copy {what}: {e}")),
                        }
                    }
                    Effect::JumpToCall { index, tool_use_id } => {
                        self.back_to = self.jumped_from();
                        self.view = View::Browse;
                        self.overlay = None;
                        self.list.select(index, &self.ctx);
                        self.open_session(index);
                        self.keep_backtest_matches(index);
                        self.timeline.show_every_row();
                        self.pending_jump = Some((index, tool_use_id));
                        self.finish_jump();
                    }
                    Effect::JumpToLine { index, line } => {
                        self.back_to = self.jumped_from();
                        self.view = View::Browse;
                        self.overlay = None;
                        self.list.select(index, &self.ctx);
                        self.open_session(index);
                        self.keep_backtest_matches(index);
                        self.timeline.show_every_row();
                        // `line:N`, as `--at` spells it (no tool_use_id does).
                        self.pending_jump = Some((index, At::Line(line).to_string()));
                        self.finish_jump();
                    }
                }
            }
        }
    }

    /// After a jump from the backtest list to session `index`: its matches
    /// on calls and on main-thread lines, for Detail
    /// ([`Ctx::backtest_here`], [`Ctx::backtest_lines`]); any other jump
    /// or open: none.
    fn keep_backtest_matches(&mut self, index: usize) {
        let mut here = super::context::BacktestOn::<String>::new();
        let mut lines = super::context::BacktestOn::<usize>::new();
        if self.back_to == Some(BackTo::Backtest) {
            for m in self.backtest.matches.iter().filter(|m| m.index == index) {
                let entry = (m.rule.clone(), m.example.clone());
                if let Some(id) = &m.example.tool_use_id {
                    here.entry(id.clone()).or_default().push(entry);
                } else if let Some(line) = m
                    .example
                    .at
                    .as_deref()
                    .and_then(|at| at.strip_prefix("line:"))
                    .and_then(|n| n.parse::<usize>().ok())
                {
                    // Main-thread lines only (`line:agent-<id>:N` does not parse).
                    lines.entry(line).or_default().push(entry);
                }
            }
        }
        self.ctx.backtest_here = std::sync::Arc::new(here);
        self.ctx.backtest_lines = std::sync::Arc::new(lines);
    }

    /// Where a jump made now comes from, for `Esc` to go back to: the Calls
    /// view, or the backtest list.
    fn jumped_from(&self) -> Option<BackTo> {
        match (self.overlay, self.view) {
            (Some(Overlay::Backtest), _) => Some(BackTo::Backtest),
            (None, View::Calls) => Some(BackTo::Calls),
            _ => None,
        }
    }

    /// Opens session `index` in the timeline (unless it is already open)
    /// and focuses it.
    fn open_session(&mut self, index: usize) {
        let already = self
            .ctx
            .open
            .as_ref()
            .is_some_and(|o| o.index == index && !matches!(o.state, OpenState::Failed(_)));
        if !already {
            self.ctx.open = Some(OpenSession {
                index,
                state: OpenState::Loading,
            });
            self.ctx.decisions = std::sync::Arc::default();
            self.ctx.event_decisions = std::sync::Arc::default();
            self.ctx.backtest_here = std::sync::Arc::default();
            self.ctx.backtest_lines = std::sync::Arc::default();
            self.timeline.reset();
            self.ctx.requests.push(Request::Open(index));
        } else {
            // Opened again: the log may hold decisions made since.
            self.ctx.requests.push(Request::Decisions(index));
        }
        self.focus = Pane::Timeline;
    }

    /// Selects the pending jump's call once its session is ready.
    pub(super) fn finish_jump(&mut self) {
        let Some((index, id)) = self.pending_jump.clone() else {
            return;
        };
        match &self.ctx.open {
            Some(OpenSession {
                index: open,
                state: OpenState::Loading,
            }) if *open == index => return, // still loading
            Some(OpenSession {
                index: open,
                state: OpenState::Ready(..),
            }) if *open == index => {}
            _ => {
                self.pending_jump = None;
                return;
            }
        }
        self.pending_jump = None;
        if let At::Line(line) = At::parse(&id) {
            if self.timeline.select_line(line, &self.ctx) {
                self.focus = Pane::Timeline;
            } else {
                self.ctx
                    .say(format!("line {line} is not in this session's timeline"));
            }
            return;
        }
        if self.timeline.select_call(&id, &self.ctx) {
            self.focus = Pane::Timeline;
            if self.pending_replay.take().is_some_and(|r| r == id) {
                self.open_replay();
            }
        } else {
            self.pending_replay = None;
            self.ctx
                .say(format!("call {id} is not in this session's timeline"));
        }
    }

    /// Lays every component out for the current size and focus, and hands
    /// Detail its subject (so offsets and lines are ready before a draw).
    pub(super) fn sync(&mut self) {
        let a = self.areas();
        self.list.refresh(&self.ctx);
        if let Some(r) = a.sessions {
            self.list.set_area(r);
        }
        if let Some(r) = a.timeline {
            self.timeline.set_area(r, &self.ctx);
        }
        // Detail wraps to its width in the layout that shows it.
        let detail = areas(self.ctx.area, Pane::Detail, self.ctx.banner.is_some())
            .detail
            .unwrap_or(a.main);
        let subject = if self.focus == Pane::Sessions || self.ctx.session().is_none() {
            Subject::Session(self.list.sel)
        } else {
            Subject::Item(self.timeline.sel)
        };
        self.detail.sync(subject, detail, &mut self.ctx);
        self.calls.set_area(a.main);
        self.replay.set_area(a.main);
        self.backtest.set_area(a.main);
        self.every_event.set_area(a.main);
        let room = Rect {
            height: self.ctx.area.height.saturating_sub(1),
            ..self.ctx.area
        };
        self.help.set_area(room);
        self.diagnostics.set_area(room);
    }

    /// The breadcrumb: `session › turn N › [subagent › …] call`, within
    /// `room` display cells, its end kept ([`status_bar::fit_crumbs`]).
    pub fn breadcrumb(&self, room: usize) -> String {
        let ctx = &self.ctx;
        let index = match (self.focus, &ctx.open) {
            (Pane::Sessions, _) | (_, None) => self.list.sel,
            (_, Some(open)) => Some(open.index),
        };
        let mut crumbs = status_bar::Crumbs {
            title: index
                .and_then(|i| ctx.sessions.get(i))
                .map(|entry| one_line(&entry.title(), 400)),
            ..Default::default()
        };
        if self.focus != Pane::Sessions
            && let (Some(session), Some(tree), Some(item)) =
                (ctx.session(), ctx.spawns(), self.timeline.sel)
        {
            match item {
                Item::Turn(t) => crumbs.lead = Some(format!("turn {}", t + 1)),
                Item::Unlinked(_) => crumbs.lead = Some("unlinked subagent".to_string()),
                Item::Event { thread, .. } => {
                    crumbs.lead = self
                        .timeline
                        .main_turn(ctx)
                        .map(|t| format!("turn {}", t + 1));
                    if let Thread::Sub(s) = thread {
                        // Each spawn down to this call's subagent.
                        for s in spawn_chain(tree, s) {
                            let short = session
                                .subagents
                                .get(s)
                                .and_then(|sub| sub.agent_type.clone())
                                .unwrap_or_else(|| "subagent".to_string());
                            crumbs.spawns.push((subagent_label(session, s, 24), short));
                        }
                    }
                    crumbs.last = match event_of(session, item) {
                        Some(Event::ToolCall(r)) => Some(r.name().to_string()),
                        Some(Event::Text { .. }) => Some("text".into()),
                        Some(_) => Some("event".into()),
                        None => None,
                    };
                }
            }
        }
        status_bar::fit_crumbs(&crumbs, room)
    }

    /// What the status bar says besides the counts.
    pub fn status(&self) -> Status {
        let left = match self.view {
            _ if self.overlay == Some(Overlay::Backtest) => self.backtest.status(),
            _ if self.overlay == Some(Overlay::EveryEvent) => self.every_event.status(),
            // The list closed while the run goes on: its progress, and how
            // to see it.
            _ if self.overlay.is_none() && self.backtest.running() => {
                format!("{} · B shows the list", self.backtest.status())
            }
            _ if self.overlay == Some(Overlay::Replay) => {
                if self.replay.prompt.is_some() {
                    "Replay › type the path: Enter write · Esc cancel · Ctrl-U clear".to_string()
                } else if self.ctx.area.width >= WIDE {
                    "Replay › j/k event · x run hooks · y copy · Y test case · w write · Esc close"
                        .to_string()
                } else {
                    // Every key whole beside the counts at 80 columns.
                    "Replay › j/k · x run · y copy · Y case · w write · Esc".to_string()
                }
            }
            View::Calls if self.calls.completing() => {
                "Calls › Tab/↓ ↑ move · Enter take · Esc close".to_string()
            }
            View::Calls if self.calls.editing => {
                "Calls › typing the filter: Tab complete · Enter/Esc done · Ctrl-U clear"
                    .to_string()
            }
            View::Calls => "Calls › Enter open in session · c back".to_string(),
            View::Browse => {
                // What the counts on the right leave (one space each side).
                let right = status_bar::counts_text(&self.ctx).width();
                let room = usize::from(self.ctx.area.width).saturating_sub(right + 2);
                // Wide terminals keep titles to 60 cells, as before.
                let room = if self.ctx.area.width >= WIDE {
                    room.min(60 + 40)
                } else {
                    room
                };
                self.breadcrumb(room)
            }
        };
        Status {
            left,
            typing: (self.view == View::Browse)
                .then(|| self.typing().map(str::to_string))
                .flatten(),
        }
    }

    /// Draws the whole screen: banner, the view's components, the status
    /// bar, then the open overlay above everything but the status bar.
    pub fn draw(&self, frame: &mut Frame) {
        let ctx = &self.ctx;
        let areas = areas(frame.area(), self.focus, ctx.banner.is_some());
        if let Some(banner) = &ctx.banner {
            frame.render_widget(
                Paragraph::new(Span::raw(fit(banner, usize::from(areas.banner.width))))
                    .style(ctx.theme.banner()),
                areas.banner,
            );
        }
        match self.view {
            View::Calls => self.calls.draw(frame, areas.main, ctx, true),
            View::Browse => {
                if let Some(r) = areas.sessions {
                    self.list.draw(frame, r, ctx, self.focus == Pane::Sessions);
                }
                if let Some(r) = areas.timeline {
                    self.timeline
                        .draw(frame, r, ctx, self.focus == Pane::Timeline);
                }
                if let Some(r) = areas.detail {
                    self.detail.draw(frame, r, ctx, self.focus == Pane::Detail);
                }
            }
        }
        status_bar::draw(frame, areas.status, ctx, &self.status());
        if self.overlay == Some(Overlay::Help)
            && let Some(under) = self.help_over
        {
            // The list or pane the help was opened over stays in sight
            // around it.
            self.draw_overlay(frame, under, areas.main, false);
        }
        if let Some(o) = self.overlay {
            self.draw_overlay(frame, o, areas.main, true);
        }
    }

    /// Draws overlay `o` in `main`.
    fn draw_overlay(&self, frame: &mut Frame, o: Overlay, main: Rect, focused: bool) {
        let ctx = &self.ctx;
        match o {
            Overlay::Help => self.help.draw(frame, main, ctx, focused),
            Overlay::Diagnostics => self.diagnostics.draw(frame, main, ctx, focused),
            Overlay::Replay => self.replay.draw(frame, main, ctx, focused),
            Overlay::Backtest => self.backtest.draw(frame, main, ctx, focused),
            Overlay::EveryEvent => self.every_event.draw(frame, main, ctx, focused),
        }
    }
}
