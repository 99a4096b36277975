//! The replay pane (`r` on a call, turn or session; docs/replay-and-backtest.md#replay-and-backtest): which
//! hook events apply at that point (a picker), and for the picked one what
//! [`hookscope_core::hooks::replay::replay`] says: each rule with ✓/✗ and the
//! why, the combined decision, the hook output and the outcome, the rebuilt
//! payload (secrets masked as `[REDACTED_<TYPE>]`, as Detail shows them),
//! the fields left out with their reason, and the transcript's own record
//! of the hooks that ran there. No replay logic lives here: the pane calls
//! the core and draws its answer.
//!
//! From here `y` copies the payload, `Y` copies it as a rule-file test case
//! ([`fixture::test_case`]), `w` writes it to a file under a path typed in a prompt
//! line (pre-filled, editable; an existing file needs a second Enter).
//! Copies go through the app's one clipboard ([`super::context::Effect::Copy`]).
//!
//! "Your hooks" (docs/keys.md) lists the handlers of the picked event from the
//! settings that apply ([`Ctx::settings`], else the session's user and
//! project settings) with [`settings::explain`]'s verdicts; the transcript's
//! record starts with the parsed hook firings
//! ([`hookscope_core::hooks::replay::activity_at`]). `x` opens a confirmation
//! dialog with the [`ExecPlan`] (nothing runs before its Enter); Enter runs
//! it on a worker ([`super::worker::spawn_hooks`]) and the pane shows the
//! [`ExecReport`] beside what the transcript recorded.

use std::path::Path;
use std::sync::Arc;

use hookscope_core::hooks::contract::Version;
use hookscope_core::hooks::dialect::{Dialect, Hooks, RunContext, Sources};
use hookscope_core::hooks::events::{At, EventName, REBUILT_FOR};
use hookscope_core::hooks::exec::{ExecPlan, ExecReport, effect_name};
use hookscope_core::hooks::reach::Reach;
use hookscope_core::hooks::replay::{Replay, replay_with};
use hookscope_core::hooks::rules::RuleSet;
use hookscope_core::hooks::settings::{self, HandlerVerdict};
use hookscope_core::redact::{Redactions, redactor};
use hookscope_core::service::HookRun;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Padding, Paragraph, Wrap};
use serde_json::{Map, Value};

use super::action::Action;
use super::component::{Command, Component, EventState, delta_of};
use super::context::{Ctx, Effect, Rules};
use super::widgets::text::fit;

mod fixture;
mod your_hooks;

pub use fixture::{WritePrompt, size_text};
#[cfg(test)]
pub use fixture::{expand_home, test_case};

/// Below this width the transcript's record is listed under the replay
/// instead of beside it.
const SIDE_BY_SIDE: u16 = 120;

/// The replay pane's state.
#[derive(Debug, Default)]
pub struct ReplayPane {
    /// Where in the session (`None` until opened).
    pub at: Option<At>,
    /// What it was opened on, in words (`call toolu_… Bash`, `turn 3`).
    pub label: String,
    /// The events that apply there, one entry per firing the picker tells
    /// apart ([`firings`]): an event fired twice in a turn (a Stop a hook
    /// blocked, then the Stop after it) is listed twice.
    pub events: Vec<EventName>,
    /// For each entry of `events`, the `At` that rebuilds that firing.
    pub ats: Vec<At>,
    /// For each entry, the line it is anchored at as the picker shows it
    /// (`line 44`, or `sub line 14` in a subagent's file), when known.
    pub places: Vec<Option<String>>,
    /// Index into `events` of the picked one.
    pub sel: usize,
    /// The picked event's replay, or why there is none.
    pub result: Option<Result<Replay, String>>,
    /// The picked event's payload, masked, and what was masked.
    pub masked: Option<(Value, Redactions)>,
    /// First visible line of the text.
    pub scroll: usize,
    /// The `w` prompt, while open.
    pub prompt: Option<WritePrompt>,
    /// The hook configuration that applies ([`Ctx::settings`], else the
    /// session's), loaded once per session file (its path is the key).
    pub hooks: Option<(std::path::PathBuf, Arc<Hooks>)>,
    /// The picked event's handlers with their verdicts
    /// ([`settings::explain`]).
    pub verdicts: Vec<HandlerVerdict>,
    /// The `x` confirmation dialog, while open: what would run. Nothing
    /// runs before its Enter.
    pub confirm: Option<Arc<ExecPlan>>,
    /// The last confirmed run of the picked event: its counter, what ran,
    /// and the report (`None` while the hooks run).
    pub run: Option<(u64, Arc<ExecPlan>, Option<ExecReport>)>,
    /// That report compared with what the transcript recorded for this
    /// firing ([`HookRun::compare`]: `then: PreToolUse hook blocked the
    /// call (exit 2); now: blocked the call — agrees`, or a loud `FAILED
    /// OPEN`); `None` before a report, or for a dialect whose transcripts
    /// record no hook activity (Codex).
    pub agreement: Option<hookscope_core::hooks::exec::Agreement>,
    /// Counts confirmed runs; a report whose counter is not the current
    /// one (the pick changed meanwhile) is dropped.
    pub generation: u64,
    /// The session's agent has no hook dialect, so no payloads
    /// (`Dialect::of`: OpenCode, whose hooks are in-process plugins); the
    /// pane and `y`/`Y`/`w`/`x` say so.
    pub no_payloads: bool,
    /// Where it was last laid out.
    area: Rect,
}

impl ReplayPane {
    /// Opens the pane at `at` of the loaded session, on `label`, with the
    /// first applicable event picked (PreToolUse for a call: the contract's
    /// order).
    pub fn open(&mut self, at: At, label: String, ctx: &Ctx) {
        self.no_payloads = ctx
            .session()
            .is_some_and(|s| hookscope_core::hooks::dialect::Dialect::of(s.agent).is_err());
        let list = ctx
            .session()
            .filter(|_| !self.no_payloads)
            .map(|s| firings(s, &at))
            .unwrap_or_default();
        (self.events, self.ats) = list.into_iter().unzip();
        self.places = match ctx.session() {
            Some(s) => self.ats.iter().map(|a| place(s, a)).collect(),
            None => vec![None; self.ats.len()],
        };
        self.at = Some(at);
        self.label = label;
        self.sel = 0;
        self.prompt = None;
        self.recompute(ctx);
    }

    /// Picks the entry of `event` that fired last at or before `line` of
    /// the thread `sub` (`None`: the main file) — a `⚑` row's firing —
    /// else the first entry of `event`; nothing changes when the pane lists
    /// no such event.
    pub fn pick_firing(&mut self, event: EventName, sub: bool, line: usize, ctx: &Ctx) {
        let line_of = |a: &At| match a {
            At::Line(n) if !sub => Some(*n),
            At::AgentLine(_, n) if sub => Some(*n),
            _ => None,
        };
        let of_event: Vec<usize> = (0..self.events.len())
            .filter(|&i| self.events[i] == event)
            .collect();
        let at_or_before = of_event
            .iter()
            .copied()
            .filter_map(|i| Some((line_of(self.ats.get(i)?)?, i)))
            .filter(|(l, _)| *l <= line)
            .max()
            .map(|(_, i)| i);
        if let Some(i) = at_or_before.or_else(|| of_event.first().copied())
            && i != self.sel
        {
            self.sel = i;
            self.recompute(ctx);
        }
    }

    /// Why `verb` (copy, write, run) has nothing to act on, short enough
    /// for an 80-column status line: the session's agent has no payloads
    /// (the pane says it whole, [`REBUILT_FOR`]), or none is picked here.
    fn nothing_to(&self, verb: &str) -> String {
        if self.no_payloads {
            format!("nothing to {verb}: OpenCode's hooks are plugins fed no JSON payload")
        } else {
            format!("nothing to {verb}: no payload here")
        }
    }

    /// The picked event.
    pub fn picked(&self) -> Option<EventName> {
        self.events.get(self.sel).copied()
    }

    /// The picker's label of entry `i`: the event's name, with the line of
    /// the firing when the event is listed more than once (`Stop (line 75)`,
    /// `PreToolUse (line 44)` for a call's event: the call's line, `sub line
    /// 14` in a subagent's file).
    pub fn entry_label(&self, i: usize) -> String {
        let Some(e) = self.events.get(i) else {
            return String::new();
        };
        let twice = self.events.iter().filter(|x| *x == e).count() > 1;
        match self.places.get(i) {
            Some(Some(place)) if twice => format!("{e} ({place})"),
            _ => e.as_str().to_string(),
        }
    }

    /// The picker's width inside the pane's border at `inner` columns: its
    /// widest entry plus a blank column before the replay text, at least
    /// 20 columns and at most two fifths of the pane (31 at 80 columns:
    /// `PostToolBatch (sub line 150)` fits; a longer entry is cut with `…`).
    fn picker_width(&self, inner: u16) -> u16 {
        let widest = (0..self.events.len())
            .map(|i| self.entry_label(i).chars().count() + 2)
            .max()
            .unwrap_or(0);
        let want = u16::try_from(widest + 1).unwrap_or(u16::MAX);
        want.clamp(20, (inner * 2 / 5).max(20))
    }

    /// Replays the picked event. On the UI thread on purpose: it works on
    /// the session already in memory (one walk of its lines, no file read
    /// besides resolving `transcript_path`'s symlinks) and the rule set
    /// loaded at start; evaluating one event takes well under a frame.
    fn recompute(&mut self, ctx: &Ctx) {
        self.scroll = 0;
        // A run belongs to the event it ran on.
        self.run = None;
        self.agreement = None;
        self.confirm = None;
        self.generation += 1;
        self.result = None;
        self.masked = None;
        let (Some(session), Some(at), Some(event)) = (ctx.session(), &self.at, self.picked())
        else {
            return;
        };
        let at = self.ats.get(self.sel).unwrap_or(at);
        let rules = match &ctx.rules {
            Rules::Loaded(r) => Some(r.as_ref()),
            _ => None,
        };
        let result =
            replay_with(session, event, at, rules, &ctx.cwd_map).map_err(|e| e.to_string());
        self.verdicts.clear();
        if let Ok(r) = &result {
            let context = RunContext::for_replay(session, &r.payload, &ctx.cwd_map, &[]);
            let hooks = self.hook_config(session, &context.version, ctx);
            self.verdicts = HookRun::new(session, &r.payload, &hooks, context).verdicts;
            let mut counts = Redactions::default();
            let v = redactor().redact_value(&r.payload.json, &mut counts);
            self.masked = Some((v, counts));
        }
        self.result = Some(result);
    }

    /// Lays it out in `main` (the screen between banner and status bar).
    pub fn set_area(&mut self, main: Rect) {
        self.area = main;
    }

    fn text_area(&self) -> Rect {
        let inner = Block::bordered().inner(self.area);
        let picker = self.picker_width(inner.width);
        let [_, rest] =
            Layout::horizontal([Constraint::Length(picker), Constraint::Min(0)]).areas(inner);
        rest
    }

    /// The replay's lines (rules, decision, outcome, output, payload, left
    /// out), and the transcript's record separately.
    pub fn lines(&self, ctx: &Ctx) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
        let theme = &ctx.theme;
        let mut out: Vec<Line<'static>> = Vec::new();
        let mut rec: Vec<Line<'static>> = Vec::new();
        let head = |t: &str| Line::from(Span::styled(t.to_string(), theme.heading()));
        let dim = |t: String| Line::from(Span::styled(t, theme.dim()));
        match &ctx.rules {
            Rules::None => {
                out.push(head("Rules"));
                out.push(dim("no rule set loaded: start with `hookscope --rules FILE [PATH...]` (write one with `hookscope test --example > rules.toml`)".into()));
            }
            Rules::Failed { path, errors } => {
                out.push(head(&format!("Rules: {} was refused", path.display())));
                out.extend(errors.iter().map(|e| Line::from(format!("  {e}"))));
            }
            Rules::Loaded(set) => {
                // The set's warnings (as `hookscope replay` prints them on
                // stderr), above the replay.
                if !set.warnings().is_empty() {
                    out.push(Line::from(Span::styled(
                        format!("Rule set warnings ({})", set.warnings().len()),
                        theme.heading(),
                    )));
                    out.extend(
                        set.warnings()
                            .iter()
                            .map(|w| Line::from(Span::styled(format!("  ⚠ {w}"), theme.error()))),
                    );
                }
            }
        }
        let Some(result) = &self.result else {
            if self.events.is_empty() {
                out.push(dim(if self.no_payloads {
                    format!("{REBUILT_FOR}: none at {}", self.label)
                } else {
                    format!("no hook event applies at {}", self.label)
                }));
            }
            return (out, rec);
        };
        let r = match result {
            Ok(r) => r,
            Err(e) => {
                out.push(Line::from(format!("cannot replay: {e}")));
                return (out, rec);
            }
        };
        if let (Some(e), Rules::Loaded(set)) = (&r.evaluation, &ctx.rules) {
            let file = set
                .path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            out.push(head(&format!("Rules ({file})")));
            for rule in &e.rules {
                let mark = if rule.matched { "✓" } else { "✗" };
                let verdict = rule
                    .result
                    .as_ref()
                    .map_or("", hookscope_core::hooks::rules::verdict);
                out.push(Line::from(vec![
                    Span::styled(format!("  {mark} {} ", rule.id), theme.tool()),
                    Span::raw(format!("{verdict} ")),
                    Span::styled(rule.why(), theme.dim()),
                ]));
            }
            out.push(Line::from(vec![
                Span::styled("Decision: ", theme.heading()),
                Span::raw(e.verdict().to_string()),
            ]));
            out.push(Line::from(vec![
                Span::styled("Outcome: ", theme.heading()),
                Span::raw(e.outcome.summary()),
            ]));
            if let Some(stdout) = &e.output.stdout {
                out.push(Line::from(vec![
                    Span::styled(
                        format!("Hook output (exit {}): ", e.output.exit_code),
                        theme.heading(),
                    ),
                    Span::raw(stdout.to_string()),
                ]));
            }
        }
        out.extend(self.hooks_lines(ctx));
        out.extend(self.run_lines(ctx));
        let masked = self
            .masked
            .as_ref()
            .filter(|(_, c)| !c.is_empty())
            .map(|(_, c)| {
                let parts: Vec<String> = c.iter().map(|(t, n)| format!("{n} × {t}")).collect();
                format!(" (masked: {})", parts.join(", "))
            })
            .unwrap_or_default();
        out.push(head(&format!(
            "Payload — {}{masked}",
            fit(&self.source(), 60)
        )));
        if let Some(text) = self.payload_text() {
            out.extend(text.lines().map(|l| Line::from(l.to_string())));
        }
        for left in &r.payload.left_out {
            out.push(Line::from(vec![
                Span::styled(format!("  ⚠ left out {}: ", left.field), theme.tool()),
                Span::styled(left.reason.clone(), theme.dim()),
            ]));
        }
        rec.push(head("Transcript recorded"));
        let activity = ctx
            .session()
            .map(|s| hookscope_core::hooks::replay::activity_at(s, &r.payload))
            .unwrap_or_default();
        let mask = |t: &str| {
            let mut counts = Redactions::default();
            redactor().redact(t, &mut counts).into_owned()
        };
        for h in &activity {
            rec.push(Line::from(Span::styled(
                format!(
                    "{} hook, line {}",
                    h.hook_name.as_deref().unwrap_or(h.event_name()),
                    h.line()
                ),
                theme.tool(),
            )));
            rec.push(Line::from(format!("  {}", mask(&h.what(200)))));
            let commands: Vec<&str> = h
                .handlers
                .iter()
                .filter_map(|x| x.command.as_deref())
                .collect();
            let commands = if commands.is_empty() {
                h.command.as_deref().into_iter().collect()
            } else {
                commands
            };
            for c in commands {
                rec.push(Line::from(format!("  handler: {}", mask(c))));
            }
            let mut facts = Vec::new();
            if let Some(c) = h.exit_code {
                facts.push(format!("exit {c}"));
            }
            if let Some(ms) = h.duration_ms {
                facts.push(format!("{ms} ms"));
            }
            if !facts.is_empty() {
                rec.push(Line::from(Span::styled(
                    format!("  {}", facts.join(" · ")),
                    theme.dim(),
                )));
            }
        }
        if !r.dialect.compares_with_transcript() {
            rec.push(dim(format!(
                "not read: {} records no hook activity",
                r.dialect.label()
            )));
        } else if r.recorded.is_empty() && activity.is_empty() {
            rec.push(dim(
                "no hook ran here, as far as the transcript shows".into()
            ));
        }
        for x in &r.recorded {
            rec.push(Line::from(Span::styled(
                format!("{} line {}", x.source, x.line),
                theme.tool(),
            )));
            let mut counts = Redactions::default();
            let text = redactor().redact(&x.text, &mut counts).into_owned();
            rec.extend(text.lines().map(|l| Line::from(format!("  {l}"))));
        }
        (out, rec)
    }

    /// The largest scroll (in logical lines) that still fills the pane:
    /// lines wrap, so this counts their wrapped rows at the column's width
    /// (side by side, the larger of the replay's and the record's).
    fn max_scroll(&self, ctx: &Ctx) -> usize {
        let (main, rec) = self.lines(ctx);
        let text = self.text_area();
        let rows = usize::from(text.height).max(1);
        if self.area.width >= SIDE_BY_SIDE {
            let [left, right] = columns(text);
            fit_skip(&heights(&main, left.width), rows).max(fit_skip(
                &heights(&rec, right.width.saturating_sub(2)),
                rows,
            ))
        } else {
            fit_skip(&self.scrolled_heights(&main, &rec), rows)
        }
    }

    /// The wrapped height of each line that scrolls with the view: the
    /// replay's column side by side, else the replay and the record below
    /// it (`main` and `rec` from [`Self::lines`]).
    fn scrolled_heights(&self, main: &[Line<'static>], rec: &[Line<'static>]) -> Vec<usize> {
        let text = self.text_area();
        if self.area.width >= SIDE_BY_SIDE {
            heights(main, columns(text)[0].width)
        } else {
            let mut h = heights(main, text.width);
            h.extend(heights(rec, text.width));
            h
        }
    }

    /// How many logical lines a page (or half page) key moves: as many as
    /// fill the pane's rows (or half of them) once wrapped, at least one,
    /// so a page never skips a line that was not on screen.
    fn page_delta(&self, ctx: &Ctx, action: Action) -> Option<isize> {
        let rows = usize::from(self.text_area().height).max(1);
        let (budget, down) = match action {
            Action::PageDown => (rows, true),
            Action::PageUp => (rows, false),
            Action::HalfPageDown => ((rows / 2).max(1), true),
            Action::HalfPageUp => ((rows / 2).max(1), false),
            other => return delta_of(other, rows),
        };
        let (main, rec) = self.lines(ctx);
        let heights = self.scrolled_heights(&main, &rec);
        let (mut used, mut n) = (0usize, 0usize);
        let passed: Box<dyn Iterator<Item = &usize>> = if down {
            Box::new(heights.iter().skip(self.scroll))
        } else {
            Box::new(heights.iter().take(self.scroll).rev())
        };
        for &h in passed {
            if n > 0 && used + h > budget {
                break;
            }
            used += h;
            n += 1;
        }
        let n = isize::try_from(n.max(1)).unwrap_or(1);
        Some(if down { n } else { -n })
    }

    /// Scrolls to the first line reading `heading` (a section's title),
    /// as far as [`Self::max_scroll`] allows.
    pub(super) fn scroll_to(&mut self, heading: &str, ctx: &Ctx) {
        let (main, _) = self.lines(ctx);
        let at = main.iter().position(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
                == heading
        });
        if let Some(at) = at {
            self.scroll = at.min(self.max_scroll(ctx));
        }
    }
}

/// The fewest logical lines to skip so that the rest, of wrapped
/// `heights` (rows per line), fits in `rows` rows; a last line taller than
/// the pane is still reachable (its top at the top).
fn fit_skip(heights: &[usize], rows: usize) -> usize {
    let mut total = 0usize;
    for (i, h) in heights.iter().enumerate().rev() {
        total += h;
        if total > rows {
            // Line `i` does not fit below the rest: start after it (the
            // last line is shown from its top even when taller).
            return (i + 1).min(heights.len().saturating_sub(1));
        }
    }
    0
}

/// The rows each of `lines` takes wrapped at word boundaries to `width`
/// cells (at least one each).
fn heights(lines: &[Line], width: u16) -> Vec<usize> {
    lines
        .iter()
        .map(|l| {
            Paragraph::new(l.clone())
                .wrap(Wrap { trim: false })
                .line_count(width.max(1))
                .max(1)
        })
        .collect()
}

/// Side by side: the replay's column and the record's.
fn columns(text: Rect) -> [Rect; 2] {
    Layout::horizontal([Constraint::Percentage(62), Constraint::Percentage(38)]).areas(text)
}

/// Where a view scrolled `scroll` lines down shows, of lines `heights`
/// rows tall in a pane of `rows`: `rows A–B of N` when they do not all
/// fit, else `None`.
fn position(heights: &[usize], scroll: usize, rows: usize) -> Option<String> {
    let total: usize = heights.iter().sum();
    let top: usize = heights.iter().take(scroll).sum();
    let last = (top + rows).min(total);
    (top > 0 || last < total).then(|| format!("rows {}–{last} of {total}", top + 1))
}

/// The picker's entries at `at`, each with the `At` that rebuilds it (from
/// [`hookscope_core::hooks::events::firings_at`]): every firing is its own entry
/// (each call's PreToolUse, PermissionRequest, PostToolUse, … on a turn; two
/// Stops in one turn are two entries); for the whole session
/// ([`At::Last`]) every event folds into one entry, its last.
fn firings(session: &hookscope_core::transcript::model::Session, at: &At) -> Vec<(EventName, At)> {
    let mut out: Vec<(EventName, At)> = Vec::new();
    for (e, a) in Dialect::for_agent(session.agent).firings_at(session, at) {
        if *at == At::Last {
            if !out.iter().any(|(x, _)| *x == e) {
                out.push((e, At::Last));
            }
        } else {
            out.push((e, a));
        }
    }
    out
}

/// Where a firing is anchored, for its picker label: `line N` (main file;
/// for a call its `tool_use` line), `sub line N` (a subagent's file).
fn place(session: &hookscope_core::transcript::model::Session, at: &At) -> Option<String> {
    match at {
        At::Line(n) => Some(format!("line {n}")),
        At::AgentLine(_, n) => Some(format!("sub line {n}")),
        At::ToolUseId(id) => session
            .all_tool_calls()
            .find(|(_, r)| r.tool_use_id == *id)
            .map(|(thread, r)| match thread {
                None => format!("line {}", r.line),
                Some(_) => format!("sub line {}", r.line),
            }),
        _ => None,
    }
}

impl Component for ReplayPane {
    fn event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        if self.confirm.is_some() {
            return self.confirm_event(action, ctx);
        }
        if self.prompt.is_some() {
            return self.prompt_event(action, ctx);
        }
        match action {
            Action::Up | Action::Down => {
                let n = self.events.len();
                if n > 0 {
                    self.sel = match action {
                        Action::Up => self.sel.saturating_sub(1),
                        _ => (self.sel + 1).min(n - 1),
                    };
                    self.recompute(ctx);
                }
            }
            Action::CopyPayload => self.copy(ctx, false),
            Action::RunHooks => self.ask_to_run(ctx),
            Action::CopyTestCase => self.copy(ctx, true),
            Action::WritePayload => {
                if self.masked.is_some() {
                    self.prompt = Some(WritePrompt {
                        path: self.default_path(),
                        confirm: false,
                        error: None,
                    });
                } else {
                    ctx.say(self.nothing_to("write"));
                }
            }
            other => {
                let Some(delta) = self.page_delta(ctx, other) else {
                    return EventState::NotConsumed;
                };
                self.scroll = self
                    .scroll
                    .saturating_add_signed(delta)
                    .min(self.max_scroll(ctx));
            }
        }
        EventState::Consumed
    }

    fn commands(&self, _ctx: &Ctx, out: &mut Vec<Command>, _force_all: bool) {
        out.push(Command::new(Action::Down, "event", "next applicable event"));
        out.push(Command::new(
            Action::Up,
            "event",
            "previous applicable event",
        ));
        out.push(Command::new(
            Action::PageDown,
            "scroll",
            "scroll the replay down a page",
        ));
        out.push(Command::new(
            Action::PageUp,
            "scroll",
            "scroll the replay up a page",
        ));
        out.push(Command::new(
            Action::CopyPayload,
            "copy",
            "copy the payload JSON (masked)",
        ));
        out.push(Command::new(
            Action::CopyTestCase,
            "test case",
            "copy it as a rule-file [[tests]] case",
        ));
        out.push(Command::new(
            Action::WritePayload,
            "write",
            "write the payload to a file (path prompt)",
        ));
        out.push(Command::new(
            Action::RunHooks,
            "run hooks",
            "run your hooks on this payload (asks first)",
        ));
        out.push(Command::new(
            Action::Backtest,
            "backtest",
            "run the rule set over every session: the would-be blocks",
        ));
        out.push(Command::new(Action::Back, "close", "close the replay pane"));
    }

    fn draw(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, _focused: bool) {
        let theme = &ctx.theme;
        let area = self.area;
        let title = format!(" Replay — {} — Esc/q close ", self.label);
        let mut block = Block::bordered()
            .title(Span::styled(
                fit(&title, usize::from(area.width.saturating_sub(2))),
                theme.heading(),
            ))
            .border_style(theme.border(true));
        // The replay, and the record beside it on a wide screen; where the
        // view is in them, when they do not fit.
        let (mut main, rec) = self.lines(ctx);
        let at = position(
            &self.scrolled_heights(&main, &rec),
            self.scroll,
            usize::from(self.text_area().height).max(1),
        );
        if let Some(at) = at {
            block = block.title_bottom(
                Line::from(Span::styled(format!(" {at} · PgUp/PgDn "), theme.dim()))
                    .right_aligned(),
            );
        }
        let inner = block.inner(area);
        frame.render_widget(Clear, area);
        frame.render_widget(block, area);
        let [body, prompt_area] = Layout::vertical([
            Constraint::Min(0),
            Constraint::Length(u16::from(self.prompt.is_some()) * 2),
        ])
        .areas(inner);
        let [picker, text] = Layout::horizontal([
            Constraint::Length(self.picker_width(inner.width)),
            Constraint::Min(0),
        ])
        .areas(body);
        // The picker.
        let mut items = vec![Line::from(Span::styled("Events here", theme.heading()))];
        // A turn of many calls lists more firings than fit: keep the picked
        // one in view (the heading stays).
        let rows = usize::from(picker.height).saturating_sub(1).max(1);
        let first = (self.sel + 1).saturating_sub(rows);
        for i in first..self.events.len() {
            let width = usize::from(picker.width.saturating_sub(1));
            let line = fit(&format!(" {} ", self.entry_label(i)), width);
            items.push(if i == self.sel {
                Line::from(Span::styled(line, theme.selected(true)))
            } else {
                Line::from(line)
            });
        }
        if self.events.is_empty() {
            items.push(Line::from(Span::styled(" none", theme.dim())));
        }
        frame.render_widget(Paragraph::new(items), picker);
        let text = if area.width >= SIDE_BY_SIDE {
            let [left, right] = columns(text);
            // The record wraps (its lines are long messages), one cell off
            // the replay's column.
            let rec: Vec<Line> = rec.into_iter().skip(self.scroll).collect();
            frame.render_widget(
                Paragraph::new(rec)
                    .block(Block::new().padding(Padding::left(2)))
                    .wrap(Wrap { trim: false }),
                right,
            );
            left
        } else {
            main.extend(rec);
            text
        };
        // Wrapped, so a rule's whole why can be read (scrolling moves by
        // logical lines).
        let main: Vec<Line> = main.into_iter().skip(self.scroll).collect();
        frame.render_widget(Paragraph::new(main).wrap(Wrap { trim: false }), text);
        if let Some(p) = &self.prompt {
            let lines = vec![
                Line::from(vec![
                    Span::styled("write to: ", theme.heading()),
                    Span::raw(format!("{}█", p.path)),
                ]),
                Line::from(Span::styled(
                    p.error
                        .clone()
                        .unwrap_or_else(|| "Enter write · Esc cancel · Ctrl-U clear".into()),
                    theme.dim(),
                )),
            ];
            frame.render_widget(Paragraph::new(lines), prompt_area);
        }
        if let Some(plan) = &self.confirm {
            let lines = Self::confirm_lines(plan, ctx);
            let w = area.width.saturating_sub(8).min(110);
            // Rows once wrapped (at word boundaries) inside the border.
            let rows = Paragraph::new(lines.clone())
                .wrap(Wrap { trim: false })
                .line_count(w.saturating_sub(2).max(1));
            let h = u16::try_from(rows + 2)
                .unwrap_or(u16::MAX)
                .min(area.height.saturating_sub(2));
            let x = area.x + (area.width.saturating_sub(w)) / 2;
            let y = area.y + (area.height.saturating_sub(h)) / 2;
            let dialog = Rect::new(x, y, w, h);
            frame.render_widget(Clear, dialog);
            frame.render_widget(
                Paragraph::new(lines).wrap(Wrap { trim: false }).block(
                    Block::bordered()
                        .title(Span::styled(" Run your hooks? ", theme.heading()))
                        .title_bottom(Span::styled(" Enter run · Esc/n cancel ", theme.heading()))
                        .border_style(theme.border(true)),
                ),
                dialog,
            );
        }
    }
}
