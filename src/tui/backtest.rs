//! The backtest list (`B`, docs/replay-and-backtest.md#replay-and-backtest): the loaded rule set run over every
//! session on a worker thread ([`super::worker::backtest`], which calls
//! [`hookscope_core::hooks::replay::backtest_refs`]), progress in the status
//! bar, and what the rules would do listed as they arrive: blocks, rewrites,
//! warns, context and allows, each marked with its verdict (a block no hook
//! made at the time is marked `new`), and counted in the status bar by
//! verdict, listed or not; `Enter` jumps to the call in its session's timeline (the Calls
//! view's jump effect), or for one not on a call (a Stop, a prompt) to its
//! line there.

use hookscope_core::hooks::replay::Example;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block as Bordered, Clear, Paragraph};

use super::action::Action;
use super::component::{Command, Component, EventState, delta_of, follow, inner_rows, step};
use super::context::{Ctx, Effect};
use super::widgets::text::fit;

/// One match of a rule: a would-be block, rewrite, warn, context or allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// Index into [`Ctx::sessions`].
    pub index: usize,
    /// The rule that matched.
    pub rule: String,
    /// The event, call and summary (from the core's backtest).
    pub example: Example,
}

/// Matches counted by verdict over some sessions, listed or not (the core's
/// [`hookscope_core::hooks::replay::RuleTally`] of every rule, summed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Events per verdict (`block`, `rewrite`, `warn`, `context`, `allow`).
    pub counts: std::collections::BTreeMap<String, usize>,
    /// Of the blocks, those on calls no hook blocked at the time.
    pub blocks_new: usize,
    /// Of the blocks, those after the call ran (PostToolUse,
    /// PostToolUseFailure): objections, not calls stopped.
    pub objections: usize,
    /// Sessions whose payloads the backtest rebuilds (Claude Code, Droid).
    pub sessions: usize,
    /// Sessions of other agents, left out (Codex, OpenCode).
    pub left_out: usize,
    /// Sessions read with lines that could not be read (a match there is
    /// not counted; the diagnostics overlay, `D`, lists them).
    pub with_diagnostics: usize,
}

impl Tally {
    /// The sum of a backtest's rule tallies, with its sessions.
    pub fn of(bt: &hookscope_core::hooks::replay::Backtest) -> Tally {
        let mut t = Tally {
            sessions: bt.sessions,
            left_out: bt.left_out.values().sum(),
            with_diagnostics: bt.with_diagnostics,
            ..Tally::default()
        };
        for r in &bt.rules {
            t.add(&Tally {
                counts: r.counts.clone(),
                blocks_new: r.blocks_new,
                objections: r.objections,
                ..Tally::default()
            });
        }
        t
    }

    fn add(&mut self, other: &Tally) {
        for (verdict, n) in &other.counts {
            *self.counts.entry(verdict.clone()).or_default() += n;
        }
        self.blocks_new += other.blocks_new;
        self.objections += other.objections;
        self.sessions += other.sessions;
        self.left_out += other.left_out;
        self.with_diagnostics += other.with_diagnostics;
    }

    /// `6 blocks (4 new) · 2 warn · 1 context`: the blocks first
    /// (always), then each other verdict that occurred, in the order
    /// block, rewrite, warn, context, allow.
    pub fn text(&self) -> String {
        let n = self.counts.get("block").copied().unwrap_or(0);
        let mut out = if n == 1 {
            "1 block".to_string()
        } else {
            format!("{n} blocks")
        };
        // The list's `block new`/`object new` rows, and its `object` rows
        // (docs/replay.md, "Blocked then, or new").
        let mut of_them = Vec::new();
        if self.blocks_new > 0 {
            of_them.push(format!("{} new", self.blocks_new));
        }
        if self.objections > 0 {
            of_them.push(format!("{} after the call ran", self.objections));
        }
        if !of_them.is_empty() {
            out.push_str(&format!(" ({})", of_them.join(", ")));
        }
        let order = ["rewrite", "warn", "context", "allow"];
        let rest = self.counts.iter().filter(|(v, _)| v.as_str() != "block");
        let mut rest: Vec<(&String, &usize)> = rest.collect();
        rest.sort_by_key(|(v, _)| order.iter().position(|o| o == v).unwrap_or(order.len()));
        for (verdict, n) in rest {
            out.push_str(&format!(" · {n} {verdict}"));
        }
        out
    }
}

/// The most matches the list holds (10,000): a broad rule (context on every
/// prompt) over thousands of sessions matches hundreds of thousands of
/// events; the status line still counts them all.
pub const LISTED_MAX: usize = 10_000;

/// The backtest list's state.
#[derive(Debug, Default)]
pub struct BacktestPane {
    /// The matches listed so far (every verdict), in session order.
    pub matches: Vec<Match>,
    /// Every match so far, counted by verdict (listed or past the cap).
    pub tally: Tally,
    /// Matches the core listed but the list did not keep ([`LISTED_MAX`]).
    pub unlisted: usize,
    /// Sessions done, and in all (`None` before a run).
    pub progress: Option<(usize, usize)>,
    /// Runs started in this process (`B` in the list runs it anew): the
    /// status says `run 2` from the second on, so a rerun that ends at
    /// once on a small corpus still shows it happened.
    pub runs: usize,
    /// The selected row.
    pub sel: usize,
    /// First visible row.
    offset: usize,
    /// Where it is drawn.
    area: Rect,
}

impl BacktestPane {
    /// Starts a new run: clears the list.
    pub fn start(&mut self, total: usize) {
        *self = BacktestPane {
            progress: Some((0, total)),
            runs: self.runs + 1,
            area: self.area,
            ..BacktestPane::default()
        };
    }

    /// Folds one session's matches in: those listed, and its count.
    pub fn add(&mut self, done: usize, total: usize, matches: Vec<Match>, tally: &Tally) {
        self.progress = Some((done, total));
        let room = LISTED_MAX.saturating_sub(self.matches.len());
        self.unlisted += matches.len().saturating_sub(room);
        self.matches.extend(matches.into_iter().take(room));
        self.tally.add(tally);
    }

    /// Whether the run is still going.
    pub fn running(&self) -> bool {
        self.progress.is_some_and(|(d, t)| d < t)
    }

    /// The status bar's progress text: sessions, then every match counted
    /// by verdict ([`Tally::text`]).
    pub fn status(&self) -> String {
        let mut counts = self.tally.text();
        if self.unlisted > 0 {
            counts.push_str(&format!(" · first {LISTED_MAX} listed"));
        }
        let run = if self.runs > 1 {
            format!("run {} · ", self.runs)
        } else {
            String::new()
        };
        match self.progress {
            Some((d, t)) if d < t => format!("Backtest › {run}{d}/{t} sessions · {counts}"),
            // Short enough for 100 columns beside the status bar's right
            // side; the sessions read and the keys are in the list's title.
            Some(_) => format!("Backtest › {run}{counts}"),
            None => "Backtest".to_string(),
        }
    }

    /// The bottom border: what the marks of the listed rows mean
    /// (docs/replay.md, "Blocked then, or new"), those that occur.
    fn legend(&self) -> String {
        let marks: std::collections::BTreeSet<String> =
            self.matches.iter().map(|m| mark(&m.example)).collect();
        let has = |word: &str| marks.iter().any(|m| m.split(' ').any(|w| w == word));
        let mut parts = Vec::new();
        if has("block") {
            parts.push("block: the rule blocks, as a hook did then");
        }
        if has("object") {
            parts.push("object: a block after the call ran");
        }
        if has("new") {
            parts.push("new: no hook did then");
        }
        if has("?") {
            parts.push("?: the transcript does not tell what a hook did then");
        }
        if has("raw") {
            parts.push("raw: not parsed whole");
        }
        if parts.is_empty() {
            return String::new();
        }
        format!(" {} ", parts.join(" · "))
    }

    /// Lays it out in `main`.
    pub fn set_area(&mut self, main: Rect) {
        self.area = main;
        self.offset = follow(
            self.offset,
            Some(self.sel),
            &vec![1; self.matches.len()],
            inner_rows(main),
        );
    }
}

impl Component for BacktestPane {
    fn event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        if action == Action::Enter {
            match self.matches.get(self.sel) {
                Some(Match {
                    index,
                    example:
                        Example {
                            tool_use_id: Some(id),
                            ..
                        },
                    ..
                }) => ctx.emit(Effect::JumpToCall {
                    index: *index,
                    tool_use_id: id.clone(),
                }),
                Some(Match { index, example, .. }) => {
                    // Not on a tool call (a Stop, a prompt): its line.
                    match example
                        .at
                        .as_deref()
                        .and_then(|at| Effect::jump_to(*index, at))
                    {
                        Some(jump) => ctx.emit(jump),
                        None => ctx.say("this match is not on a tool call: nothing to jump to"),
                    }
                }
                None => ctx.say("no match to jump to"),
            }
            return EventState::Consumed;
        }
        let Some(delta) = delta_of(action, inner_rows(self.area)) else {
            return EventState::NotConsumed;
        };
        self.sel = step(self.sel, delta, self.matches.len());
        self.set_area(self.area);
        EventState::Consumed
    }

    fn commands(&self, _ctx: &Ctx, out: &mut Vec<Command>, _force_all: bool) {
        out.push(Command::new(Action::Down, "down", "next match"));
        out.push(Command::new(
            Action::Enter,
            "jump",
            "open the call in its session",
        ));
        out.push(Command::new(Action::Back, "close", "close the list"));
        out.push(Command::new(
            Action::Backtest,
            "again",
            "run the backtest anew",
        ));
    }

    fn draw(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, _focused: bool) {
        let theme = &ctx.theme;
        let area = self.area;
        // Sessions read with lines or files the loader could not use: a
        // match there is not counted.
        let (unread, unread_short) = match self.tally.with_diagnostics {
            0 => (String::new(), String::new()),
            n => (
                format!(", {n} with lines or files it could not use (D)"),
                format!(", {n} partly read (D)"),
            ),
        };
        let room = usize::from(area.width.saturating_sub(2));
        // The whole title, else shorter ones (80 columns keep the keys and
        // the counts whole), else the last one cut.
        let titles: Vec<String> = match self.progress {
            Some((d, t)) if d < t => vec![
                format!(" Backtest — {d}/{t} sessions{unread}… "),
                format!(" Backtest — {d}/{t} sessions{unread_short}… "),
            ],
            Some((_, t)) if self.tally.left_out > 0 => {
                let (s, l) = (self.tally.sessions, self.tally.left_out);
                vec![
                    format!(
                        " Backtest — Enter jump, Esc close — {s} of {t} sessions ({l} Codex/OpenCode left out: not backtested){unread} "
                    ),
                    format!(
                        " Backtest — Enter, Esc — {s} of {t} sessions, {l} Codex/OpenCode not backtested{unread_short} "
                    ),
                    format!(
                        " Backtest — Enter jump, Esc close — {s} of {t} sessions ({l} left out){unread_short} "
                    ),
                    format!(
                        " Backtest — Enter, Esc — {s} of {t} sessions, {l} left out{unread_short} "
                    ),
                ]
            }
            Some((_, t)) => {
                let plural = if t == 1 { "" } else { "s" };
                vec![
                    format!(" Backtest — Enter jump, Esc close — {t} session{plural}{unread} "),
                    format!(
                        " Backtest — Enter jump, Esc close — {t} session{plural}{unread_short} "
                    ),
                ]
            }
            None => vec![" Backtest ".to_string()],
        };
        let title = titles
            .iter()
            .find(|t| unicode_width::UnicodeWidthStr::width(t.as_str()) <= room)
            .or(titles.last())
            .map_or(String::new(), |t| fit(t, room));
        let mut block = Bordered::bordered()
            .title(Span::styled(title, theme.heading()))
            .border_style(theme.border(true));
        if !self.matches.is_empty() {
            block = block.title_bottom(Span::styled(
                fit(&self.legend(), usize::from(area.width.saturating_sub(2))),
                theme.dim(),
            ));
        }
        let width = usize::from(area.width.saturating_sub(2));
        // Each column as wide as its widest entry in the list (so
        // `UserPromptSubmit` and a long rule id fit), within bounds.
        let widest = |f: &dyn Fn(&Match) -> usize, min: usize, max: usize| {
            self.matches
                .iter()
                .map(f)
                .max()
                .unwrap_or(0)
                .clamp(min, max)
        };
        let mark_w = widest(&|m| mark(&m.example).chars().count(), 5, 14);
        let event_w = widest(&|m| m.example.event.as_str().chars().count(), 8, 18);
        let rule_w = widest(&|m| m.rule.chars().count(), 4, 24);
        let mut lines: Vec<Line> = self
            .matches
            .iter()
            .enumerate()
            .skip(self.offset)
            .take(inner_rows(area))
            .map(|(i, b)| {
                let e = &b.example;
                let text = fit(
                    &format!(
                        "{:<mark_w$} {:<8} {:<event_w$} {:<rule_w$} {}",
                        mark(e),
                        e.session,
                        e.event.as_str(),
                        fit(&b.rule, rule_w),
                        e.summary
                    ),
                    width,
                );
                if i == self.sel {
                    // The selection fills the row, also when the text
                    // was cut short of it.
                    Line::from(Span::styled(
                        format!("{text:<width$}"),
                        theme.selected(true),
                    ))
                } else {
                    Line::from(text)
                }
            })
            .collect();
        if self.matches.is_empty() {
            let note = if self.running() {
                "no rule has matched so far"
            } else {
                "nothing: no rule matches an event of these sessions"
            };
            lines.push(Line::from(Span::styled(note, theme.dim())));
        }
        frame.render_widget(Clear, area);
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }
}

/// The verdict mark of a row: `block new` for a block no hook made at the
/// time ([`Example::blocked_then`] `false`), `block`, `rewrite`, `warn`,
/// `context`, `allow`; `block ?` when the transcript does not tell what a
/// hook did then ([`Example::blocked_then`] `None`); a block on PostToolUse
/// or PostToolUseFailure, where the call had already run and a hook can
/// only object, is `object` (`object new`, `object ?`; docs/replay.md,
/// "Blocked then, or new");
/// with ` raw` after it when the match was on a command not parsed whole
/// ([`Example::not_parsed_whole`]).
pub fn mark(e: &Example) -> String {
    let verdict = match (e.verdict.as_str(), e.blocked_then) {
        ("block", then) => {
            let word = if e.is_objection() { "object" } else { "block" };
            match then {
                Some(true) => word.to_string(),
                Some(false) => format!("{word} new"),
                // The transcript does not tell what a hook did then.
                None => format!("{word} ?"),
            }
        }
        (v, _) => v.to_string(),
    };
    if e.not_parsed_whole.is_some() {
        format!("{verdict} raw")
    } else {
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(verdict: &str, blocked_then: Option<bool>) -> Match {
        Match {
            index: 0,
            rule: "r".into(),
            example: Example {
                session: "s".into(),
                event: "PreToolUse".into(),
                tool_use_id: None,
                at: None,
                summary: "Bash ls".into(),
                verdict: verdict.into(),
                source: "f:1".into(),
                blocked_then,
                not_parsed_whole: None,
            },
        }
    }

    /// Every verdict is listed beside blocks, each marked; a block no hook
    /// made then is `block new`; the status counts every match by verdict
    /// (those past the list's cap too), blocks first.
    #[test]
    fn every_verdict_is_listed_marked_and_counted() {
        let mut pane = BacktestPane::default();
        pane.start(2);
        let tally = |pairs: &[(&str, usize)], blocks_new| Tally {
            counts: pairs.iter().map(|(v, n)| (v.to_string(), *n)).collect(),
            blocks_new,
            ..Tally::default()
        };
        pane.add(
            1,
            2,
            vec![
                row("block", Some(false)),
                row("block", Some(true)),
                row("warn", None),
                row("rewrite", None),
            ],
            &tally(&[("block", 2), ("warn", 1), ("rewrite", 1)], 1),
        );
        assert_eq!(
            pane.status(),
            "Backtest › 1/2 sessions · 2 blocks (1 new) · 1 rewrite · 1 warn"
        );
        pane.add(
            2,
            2,
            vec![row("context", None), row("allow", None)],
            &tally(&[("context", 7), ("allow", 1)], 0),
        );
        let marks: Vec<String> = pane.matches.iter().map(|b| mark(&b.example)).collect();
        assert_eq!(
            marks,
            ["block new", "block", "warn", "rewrite", "context", "allow"]
        );
        assert_eq!(
            pane.status(),
            "Backtest › 2 blocks (1 new) · 1 rewrite · 1 warn · 7 context · 1 allow"
        );
    }

    /// A block on PostToolUse came after the call ran: it is an objection,
    /// marked `object` (`object new` when no hook objected then), and the
    /// legend names only the marks the list holds.
    #[test]
    fn a_block_after_the_call_ran_is_marked_as_an_objection() {
        let after = |blocked_then| {
            let mut m = row("block", blocked_then);
            m.example.event = hookscope_core::hooks::events::EventKey::new("PostToolUse");
            m
        };
        assert_eq!(mark(&after(Some(false)).example), "object new");
        assert_eq!(mark(&after(Some(true)).example), "object");
        // Not told by the transcript: neither "a hook did" nor "new".
        assert_eq!(mark(&after(None).example), "object ?");
        assert_eq!(mark(&row("block", None).example), "block ?");
        let mut failure = after(Some(true));
        failure.example.event = hookscope_core::hooks::events::EventKey::new("PostToolUseFailure");
        assert_eq!(mark(&failure.example), "object");
        let mut pane = BacktestPane::default();
        pane.start(1);
        pane.add(1, 1, vec![after(Some(true))], &Tally::default());
        assert_eq!(pane.legend(), " object: a block after the call ran ");
        pane.add(1, 1, vec![row("block", Some(false))], &Tally::default());
        assert_eq!(
            pane.legend(),
            " block: the rule blocks, as a hook did then · object: a block after the call ran · new: no hook did then "
        );
        // The status says how many blocks were objections.
        let objected = Tally {
            counts: [("block".to_string(), 2)].into_iter().collect(),
            blocks_new: 1,
            objections: 1,
            ..Tally::default()
        };
        assert_eq!(objected.text(), "2 blocks (1 new, 1 after the call ran)");
        pane.add(1, 1, vec![after(None)], &Tally::default());
        assert!(
            pane.legend()
                .ends_with(" · ?: the transcript does not tell what a hook did then "),
            "{}",
            pane.legend()
        );
    }

    /// The list keeps the first [`LISTED_MAX`] matches and says so; the
    /// count holds them all.
    #[test]
    fn the_list_is_capped_and_says_so() {
        let mut pane = BacktestPane::default();
        pane.start(2);
        let rows = |n: usize| (0..n).map(|_| row("context", None)).collect::<Vec<_>>();
        let tally = |n: usize| Tally {
            counts: [("context".to_string(), n)].into_iter().collect(),
            ..Tally::default()
        };
        pane.add(1, 2, rows(LISTED_MAX - 1), &tally(LISTED_MAX - 1));
        assert_eq!(pane.unlisted, 0);
        pane.add(2, 2, rows(3), &tally(5));
        assert_eq!(pane.matches.len(), LISTED_MAX);
        assert_eq!(pane.unlisted, 2);
        assert_eq!(
            pane.status(),
            "Backtest › 0 blocks · 10004 context · first 10000 listed"
        );
    }

    /// A second run (`B` in the list) says so, while it runs and after,
    /// with its own counts only.
    #[test]
    fn a_rerun_is_numbered() {
        let mut pane = BacktestPane::default();
        let tally = Tally {
            counts: [("block".to_string(), 1)].into_iter().collect(),
            ..Tally::default()
        };
        pane.start(2);
        pane.add(2, 2, vec![row("block", Some(true))], &tally);
        assert_eq!(pane.status(), "Backtest › 1 block");
        pane.start(2);
        assert_eq!(pane.status(), "Backtest › run 2 · 0/2 sessions · 0 blocks");
        pane.add(2, 2, vec![row("block", Some(true))], &tally);
        assert_eq!(pane.status(), "Backtest › run 2 · 1 block");
        assert_eq!(pane.matches.len(), 1);
    }
}
