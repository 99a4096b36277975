//! Your hooks over every event, and two versions compared (`B` without a
//! rule set, or with `--against`; docs/tui.md#your-hooks-over-every-event):
//! the same report `replay --all --exec` and `replay --all --against`
//! print ([`hookscope_core::hooks::replay::report_lines`]), listed.
//!
//! Running your hooks asks first: the plan is computed on a worker
//! ([`super::worker::exec_all_plan`]) and shown with its protections;
//! nothing runs before Enter (Esc or `n` cancels). The run goes on a
//! worker with progress in the status bar; Esc while it runs stops it (no
//! new event starts, running hooks are killed) and the report covers what
//! completed. On an example's lines Enter jumps to its event: the call in
//! its session's timeline, or the line of an event not on a call.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hookscope_core::hooks::replay::against::Against;
use hookscope_core::hooks::replay::exec_all::ExecAll;
use hookscope_core::hooks::replay::report_lines::{
    ReportLine, Target, changes_lines, exec_report_lines, plan_lines, plural,
};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block as Bordered, Clear, Paragraph};

use super::action::Action;
use super::component::{Command, Component, EventState, delta_of, follow, inner_rows, step};
use super::context::{Ctx, Effect, Request};
use super::widgets::text::{fit, line_text, wrap};

/// Where the pane is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Phase {
    /// Nothing asked yet.
    #[default]
    Idle,
    /// Counting what would run (the plan pass).
    Planning,
    /// The plan is shown; Enter runs it, Esc or `n` cancels.
    Confirm {
        /// Handler runs it would make.
        handler_runs: usize,
    },
    /// The plan reaches nothing: nothing to run.
    NothingToRun,
    /// Your hooks are running: sessions done, in all, events run.
    Running {
        /// Sessions done.
        done: usize,
        /// Sessions in all.
        total: usize,
        /// Events run so far.
        runs: usize,
    },
    /// Two rule sets are being compared: sessions done, in all.
    Comparing {
        /// Sessions done.
        done: usize,
        /// Sessions in all.
        total: usize,
    },
    /// The report is shown.
    Done,
}

/// The pane's state.
#[derive(Debug, Default)]
pub struct EveryEventPane {
    /// Where it is.
    pub phase: Phase,
    /// What it shows: the plan, or the report.
    pub lines: Vec<ReportLine>,
    /// The selected line.
    pub sel: usize,
    /// Set to stop a run ([`Phase::Running`]).
    pub cancel: Option<Arc<AtomicBool>>,
    /// The title's words.
    title: String,
    offset: usize,
    area: Rect,
}

impl EveryEventPane {
    /// Opens it for your hooks: the plan is being computed.
    pub fn start_hooks(&mut self, against: bool) {
        *self = EveryEventPane {
            phase: Phase::Planning,
            title: if against {
                "Your hooks (A) against --against-settings (B), every event".into()
            } else {
                "Your hooks, every event".into()
            },
            area: self.area,
            ..EveryEventPane::default()
        };
    }

    /// Opens it for two rule sets: the comparison is running.
    pub fn start_against(&mut self, total: usize, a: &str, b: &str) {
        *self = EveryEventPane {
            phase: Phase::Comparing { done: 0, total },
            title: format!("A: {a} against B: {b}"),
            area: self.area,
            ..EveryEventPane::default()
        };
    }

    /// Whether work is going on (planning, running, comparing).
    pub fn busy(&self) -> bool {
        matches!(
            self.phase,
            Phase::Planning | Phase::Running { .. } | Phase::Comparing { .. }
        )
    }

    /// Whether it waits for Enter (the key table is the dialog's then).
    pub fn confirming(&self) -> bool {
        matches!(self.phase, Phase::Confirm { .. })
    }

    /// The plan arrived: shown, with the question.
    pub fn planned(&mut self, plan: &ExecAll) {
        if self.phase != Phase::Planning {
            return;
        }
        let mut lines: Vec<ReportLine> = plan_lines(plan).into_iter().map(plain).collect();
        lines.push(plain(if plan.settings_files.is_empty() {
            "  no hook settings file found (start hookscope with --settings FILE)".to_string()
        } else {
            format!("  settings read: {}", plan.settings_files.join(", "))
        }));
        lines.push(plain(""));
        if plan.runs == 0 {
            lines.push(plain(
                "nothing to run: no recorded event reaches a handler of your hooks",
            ));
            self.phase = Phase::NothingToRun;
        } else {
            let question = format!(
                "Nothing runs until you press Enter: it runs your hooks ({}). Esc or n cancels; j/k scroll.",
                plural(plan.handler_runs, "handler run", "handler runs")
            );
            // First, so it is on screen however long the plan is; and last.
            lines.insert(0, plain(question.clone()));
            lines.insert(1, plain(""));
            lines.push(plain(question));
            self.phase = Phase::Confirm {
                handler_runs: plan.handler_runs,
            };
        }
        self.lines = lines;
        self.sel = 0;
        self.offset = 0;
    }

    /// Progress of the run.
    pub fn progress(&mut self, done: usize, total: usize, runs: usize) {
        match &mut self.phase {
            Phase::Running { .. } => self.phase = Phase::Running { done, total, runs },
            Phase::Comparing { .. } => self.phase = Phase::Comparing { done, total },
            _ => {}
        }
    }

    /// The run's report arrived.
    pub fn ran(&mut self, report: &ExecAll) {
        self.lines = exec_report_lines(report, None);
        self.finish();
    }

    /// The comparison arrived.
    pub fn compared(&mut self, r: &Against) {
        let mut lines = vec![plain(format!(
            "over {}, {}",
            plural(r.sessions, "session", "sessions"),
            plural(r.events, "event", "events")
        ))];
        if r.unreadable > 0 {
            lines.push(plain(format!("  {} unreadable", r.unreadable)));
        }
        lines.extend(changes_lines(&r.changes, None, "A", "B"));
        self.lines = lines;
        self.finish();
    }

    fn finish(&mut self) {
        self.phase = Phase::Done;
        self.cancel = None;
        // On the first example, so Enter opens something at once.
        self.sel = self
            .lines
            .iter()
            .position(|l| l.target.is_some())
            .unwrap_or(0);
        self.offset = 0;
        self.set_area(self.area);
    }

    /// Leaves the pane: a running run is stopped, a plan is dropped.
    /// Returns what to say, if anything.
    pub fn close(&mut self) -> Option<&'static str> {
        match self.phase {
            Phase::Running { .. } => {
                if let Some(c) = &self.cancel {
                    c.store(true, Ordering::SeqCst);
                }
                Some("stopping your hooks: no new event starts; B shows what completed")
            }
            Phase::Confirm { .. } => {
                self.phase = Phase::Idle;
                self.lines.clear();
                Some("cancelled: nothing ran")
            }
            _ => None,
        }
    }

    /// The status bar's text.
    pub fn status(&self) -> String {
        match self.phase {
            Phase::Idle => "Every event".into(),
            Phase::Planning => "Your hooks › planning: which events reach which handler…".into(),
            Phase::Confirm { handler_runs } => format!(
                "Your hooks › Enter run ({}) · Esc/n cancel",
                plural(handler_runs, "handler run", "handler runs")
            ),
            Phase::NothingToRun => "Your hooks › nothing to run · Esc close".into(),
            Phase::Running { done, total, runs } => format!(
                "Your hooks › {done}/{total} sessions, {} run · Esc stop",
                plural(runs, "event", "events")
            ),
            Phase::Comparing { done, total } => {
                format!("Against › {done}/{total} sessions")
            }
            Phase::Done => {
                "Report › j/k move · Enter jump to the example · B run again · Esc close".into()
            }
        }
    }

    /// Lays it out in `main`.
    pub fn set_area(&mut self, main: Rect) {
        self.area = main;
        let width = usize::from(main.width.saturating_sub(2));
        let heights: Vec<usize> = self
            .lines
            .iter()
            .map(|l| rows(&l.text, width).len().max(1))
            .collect();
        self.offset = follow(self.offset, Some(self.sel), &heights, inner_rows(main));
    }

    /// The dialog's keys: Enter runs, Esc or `n` cancels.
    pub fn confirm_event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        match action {
            Action::SearchConfirm => {
                let cancel = Arc::new(AtomicBool::new(false));
                self.cancel = Some(cancel.clone());
                self.phase = Phase::Running {
                    done: 0,
                    total: 0,
                    runs: 0,
                };
                ctx.requests
                    .push(Request::ExecAllRun(super::context::CancelHandle(cancel)));
                // The question is answered: say what happens now instead.
                if let Some(first) = self.lines.first_mut() {
                    first.text =
                        "Running your hooks… Esc stops (the report then covers what completed)."
                            .to_string();
                }
                if self.lines.len() > 1 {
                    self.lines.pop();
                }
                self.sel = 0;
                self.set_area(self.area);
                ctx.say("running your hooks over every event… (Esc stops)");
                EventState::Consumed
            }
            Action::SearchCancel | Action::SearchInput('n') => {
                if let Some(m) = self.close() {
                    ctx.say(m);
                }
                // Not consumed: the app closes the pane.
                EventState::NotConsumed
            }
            Action::ForceQuit => EventState::NotConsumed,
            // The dialog takes the keys of a text box; j/k (and space) scroll.
            Action::SearchInput(c @ ('j' | 'k' | ' ')) => {
                let delta: isize = match c {
                    'j' => 1,
                    'k' => -1,
                    _ => isize::try_from(inner_rows(self.area)).unwrap_or(1),
                };
                // No row is selected in a plan: the view itself moves (the
                // top line follows, and the layout keeps it on top).
                self.sel = step(self.offset, delta, self.lines.len());
                self.offset = self.sel;
                self.set_area(self.area);
                EventState::Consumed
            }
            _ => EventState::Consumed,
        }
    }
}

/// `text` wrapped to `width` cells (control characters dropped), the
/// rows after the first indented two more than its own indent.
fn rows(text: &str, width: usize) -> Vec<String> {
    let indent = text.len() - text.trim_start_matches(' ').len();
    let body = &text[indent..];
    let room = width.saturating_sub(indent + 2).max(8);
    wrap(vec![Line::from(body.to_string())], room)
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let pad = if i == 0 { indent } else { indent + 2 };
            format!("{}{}", " ".repeat(pad), line_text(row))
        })
        .collect()
}

fn plain(text: impl Into<String>) -> ReportLine {
    ReportLine {
        text: text.into(),
        target: None,
    }
}

/// The session (index into [`Ctx::sessions`]) an example's source file
/// belongs to: the session's own file, or a file in its folder (a
/// subagent's transcript).
/// Paths are compared as given, then made absolute (the report names
/// files as found, the list as discovered).
pub fn session_of(ctx: &Ctx, target: &Target) -> Option<usize> {
    let path = Path::new(target.path());
    let within =
        |main: &Path, path: &Path| main == path || path.starts_with(main.with_extension(""));
    ctx.sessions
        .iter()
        .position(|e| within(&e.sref.path, path))
        .or_else(|| {
            let path = std::fs::canonicalize(path).ok()?;
            ctx.sessions.iter().position(|e| {
                std::fs::canonicalize(&e.sref.path).is_ok_and(|main| within(&main, &path))
            })
        })
}

impl Component for EveryEventPane {
    fn event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        if self.confirming() {
            return self.confirm_event(action, ctx);
        }
        if action == Action::Enter {
            let Some(target) = self.lines.get(self.sel).and_then(|l| l.target.clone()) else {
                ctx.say("not an example: move to one (its two lines) and press Enter");
                return EventState::Consumed;
            };
            let Some(index) = session_of(ctx, &target) else {
                ctx.say(format!("{}: not among the sessions listed", target.path()));
                return EventState::Consumed;
            };
            match target
                .at
                .as_deref()
                .and_then(|at| Effect::jump_to(index, at))
            {
                Some(jump) => ctx.emit(jump),
                None => ctx.say(format!(
                    "{} is in a subagent's transcript: open the session and its subagent",
                    target.source
                )),
            }
            return EventState::Consumed;
        }
        let Some(delta) = delta_of(action, inner_rows(self.area)) else {
            return EventState::NotConsumed;
        };
        self.sel = step(self.sel, delta, self.lines.len());
        self.set_area(self.area);
        EventState::Consumed
    }

    fn commands(&self, _ctx: &Ctx, out: &mut Vec<Command>, _force_all: bool) {
        out.push(Command::new(
            Action::Down,
            "down",
            "next line of the report",
        ));
        out.push(Command::new(
            Action::Enter,
            "jump",
            "plan: run your hooks (Esc/n cancel); report: jump there",
        ));
        out.push(Command::new(
            Action::Backtest,
            "again",
            "in the report: run again (elsewhere: show the report)",
        ));
        out.push(Command::new(
            Action::Back,
            "close",
            "close (stops a run; the report keeps what completed)",
        ));
    }

    fn draw(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, _focused: bool) {
        let theme = &ctx.theme;
        let area = self.area;
        let state = match self.phase {
            Phase::Planning => " — planning…".to_string(),
            Phase::Running { done, total, .. } => format!(" — {done}/{total} sessions…"),
            Phase::Comparing { done, total } => format!(" — {done}/{total} sessions…"),
            Phase::Confirm { .. } => " — Enter runs, Esc cancels".to_string(),
            _ => " — Enter jump, Esc close".to_string(),
        };
        let title = format!(" {}{state} ", self.title);
        let block = Bordered::bordered()
            .title(Span::styled(
                fit(&title, usize::from(area.width.saturating_sub(2))),
                theme.heading(),
            ))
            .border_style(theme.border(true));
        let width = usize::from(area.width.saturating_sub(2));
        let mut lines: Vec<Line> = Vec::new();
        for (i, l) in self.lines.iter().enumerate().skip(self.offset) {
            if lines.len() >= inner_rows(area) {
                break;
            }
            let style = if i == self.sel && self.phase == Phase::Done {
                theme.selected(true)
            } else if l.target.is_none() && !l.text.starts_with(' ') {
                theme.heading()
            } else {
                ratatui::style::Style::default()
            };
            for row in rows(&l.text, width) {
                lines.push(Line::from(Span::styled(row, style)));
            }
        }
        if self.lines.is_empty() {
            let note = match self.phase {
                Phase::Planning => "counting which recorded events reach which of your handlers…",
                Phase::Running { .. } => "running your hooks… the report comes when they are done",
                Phase::Comparing { .. } => "replaying every event with both rule sets…",
                _ => "nothing to show",
            };
            lines.push(Line::from(Span::styled(note, theme.dim())));
        }
        frame.render_widget(Clear, area);
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }
}
