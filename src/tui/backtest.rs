//! The backtest list (`B`, docs/replay-and-backtest.md#replay-and-backtest): the loaded rule set run over every
//! session on a worker thread ([`super::worker::backtest`], which calls
//! [`hookscope_core::hooks::replay::backtest_refs`]), progress in the status
//! bar, and the would-be blocks, warns and rewrites listed as they arrive
//! (each marked with its verdict; a block no hook made at the time is marked
//! `new`); `Enter` jumps to the call in its session's timeline (the Calls
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

/// One would-be block, warn or rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Index into [`Ctx::sessions`].
    pub index: usize,
    /// The rule that matched.
    pub rule: String,
    /// The event, call and summary (from the core's backtest).
    pub example: Example,
}

/// The backtest list's state.
#[derive(Debug, Default)]
pub struct BacktestPane {
    /// The blocks, warns and rewrites so far, in session order.
    pub blocks: Vec<Block>,
    /// Sessions done, and in all (`None` before a run).
    pub progress: Option<(usize, usize)>,
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
            area: self.area,
            ..BacktestPane::default()
        };
    }

    /// Folds one session's matches in.
    pub fn add(&mut self, done: usize, total: usize, blocks: Vec<Block>) {
        self.progress = Some((done, total));
        self.blocks.extend(blocks);
    }

    /// Whether the run is still going.
    pub fn running(&self) -> bool {
        self.progress.is_some_and(|(d, t)| d < t)
    }

    /// The status bar's progress text.
    pub fn status(&self) -> String {
        let n = self
            .blocks
            .iter()
            .filter(|b| b.example.verdict == "block")
            .count();
        let mut blocks = if n == 1 {
            "1 would-be block".to_string()
        } else {
            format!("{n} would-be blocks")
        };
        let new = self
            .blocks
            .iter()
            .filter(|b| b.example.verdict == "block" && b.example.blocked_then == Some(false))
            .count();
        if new > 0 {
            // The list's `block new` rows, in words (docs/replay.md, "Blocked
            // then, or new").
            blocks.push_str(&format!(" ({new} new: no hook did this then)"));
        }
        let others = self.blocks.len() - n;
        if others > 0 {
            blocks.push_str(&format!(", {others} warn/rewrite"));
        }
        match self.progress {
            Some((d, t)) if d < t => format!("Backtest › {d}/{t} sessions · {blocks}"),
            Some((_, t)) => {
                format!("Backtest › done, {t} sessions · {blocks} · Enter jump · Esc close")
            }
            None => "Backtest".to_string(),
        }
    }

    /// Lays it out in `main`.
    pub fn set_area(&mut self, main: Rect) {
        self.area = main;
        self.offset = follow(
            self.offset,
            Some(self.sel),
            &vec![1; self.blocks.len()],
            inner_rows(main),
        );
    }
}

impl Component for BacktestPane {
    fn event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        if action == Action::Enter {
            match self.blocks.get(self.sel) {
                Some(Block {
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
                Some(Block { index, example, .. }) => {
                    // Not on a tool call (a Stop, a prompt): its line.
                    match example
                        .at
                        .as_deref()
                        .and_then(|at| Effect::jump_to(*index, at))
                    {
                        Some(jump) => ctx.emit(jump),
                        None => ctx.say("this block is not on a tool call: nothing to jump to"),
                    }
                }
                None => ctx.say("no would-be block to jump to"),
            }
            return EventState::Consumed;
        }
        let Some(delta) = delta_of(action, inner_rows(self.area)) else {
            return EventState::NotConsumed;
        };
        self.sel = step(self.sel, delta, self.blocks.len());
        self.set_area(self.area);
        EventState::Consumed
    }

    fn commands(&self, _ctx: &Ctx, out: &mut Vec<Command>, _force_all: bool) {
        out.push(Command::new(Action::Down, "down", "next would-be block"));
        out.push(Command::new(
            Action::Enter,
            "jump",
            "open the call in its session",
        ));
        out.push(Command::new(Action::Back, "close", "close the list"));
    }

    fn draw(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, _focused: bool) {
        let theme = &ctx.theme;
        let area = self.area;
        let title = match self.progress {
            Some((d, t)) if d < t => format!(" Backtest — {d}/{t} sessions… ",),
            _ => {
                " Backtest — would-be blocks, warns, rewrites — Enter jump, Esc close ".to_string()
            }
        };
        let block = Bordered::bordered()
            .title(Span::styled(
                fit(&title, usize::from(area.width.saturating_sub(2))),
                theme.heading(),
            ))
            .border_style(theme.border(true));
        let width = usize::from(area.width.saturating_sub(2));
        let mut lines: Vec<Line> = self
            .blocks
            .iter()
            .enumerate()
            .skip(self.offset)
            .take(inner_rows(area))
            .map(|(i, b)| {
                let e = &b.example;
                let text = fit(
                    &format!(
                        "{:<9} {:<8} {:<12} {:<16} {}",
                        mark(e),
                        e.session,
                        e.event,
                        b.rule,
                        e.summary
                    ),
                    width,
                );
                if i == self.sel {
                    Line::from(Span::styled(text, theme.selected(true)))
                } else {
                    Line::from(text)
                }
            })
            .collect();
        if self.blocks.is_empty() {
            let note = if self.running() {
                "no would-be block, warn or rewrite so far"
            } else {
                "nothing: the rule set blocks, warns or rewrites nothing in these sessions"
            };
            lines.push(Line::from(Span::styled(note, theme.dim())));
        }
        frame.render_widget(Clear, area);
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }
}

/// The verdict mark of a row: `block new` for a block no hook made at the
/// time ([`Example::blocked_then`] `false`), `block`, `warn`, `rewrite`;
/// with ` raw` after it when the match was on a command not parsed whole
/// ([`Example::not_parsed_whole`]).
pub fn mark(e: &Example) -> String {
    let verdict = match (e.verdict.as_str(), e.blocked_then) {
        ("block", Some(false)) => "block new".to_string(),
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

    fn row(verdict: &str, blocked_then: Option<bool>) -> Block {
        Block {
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

    /// Warns and rewrites are listed beside blocks, each marked; a block no
    /// hook made then is `block new`, and the status counts them apart.
    #[test]
    fn warns_and_rewrites_are_listed_and_marked() {
        let mut pane = BacktestPane::default();
        pane.start(1);
        pane.add(
            1,
            1,
            vec![
                row("block", Some(false)),
                row("block", Some(true)),
                row("warn", None),
                row("rewrite", None),
            ],
        );
        let marks: Vec<String> = pane.blocks.iter().map(|b| mark(&b.example)).collect();
        assert_eq!(marks, ["block new", "block", "warn", "rewrite"]);
        assert_eq!(
            pane.status(),
            "Backtest › done, 1 sessions · 2 would-be blocks (1 new: no hook did this then), 2 warn/rewrite · Enter jump · Esc close"
        );
    }
}
