//! The `D` overlay: every diagnostic (discovery, and each session's as the
//! worker reads it) as `path:line: message`, scrollable, drawn above the
//! status bar.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::action::Action;
use super::component::{Command, Component, EventState, centered, delta_of, inner_rows};
use super::context::Ctx;

/// The diagnostics overlay's state.
#[derive(Debug, Default)]
pub struct DiagnosticsOverlay {
    /// First visible diagnostic.
    pub scroll: usize,
    /// Where it is drawn.
    area: Rect,
}

impl DiagnosticsOverlay {
    /// Lays it out inside `room` (the screen minus the status bar).
    pub fn set_area(&mut self, room: Rect) {
        self.area = centered(
            room,
            room.width.saturating_sub(4),
            room.height.saturating_sub(1),
        );
    }
}

impl Component for DiagnosticsOverlay {
    fn event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        match delta_of(action, inner_rows(self.area)) {
            Some(delta) => {
                let visible = usize::from(self.area.height.saturating_sub(2)).max(1);
                self.scroll = self
                    .scroll
                    .saturating_add_signed(delta)
                    .min(ctx.diagnostics.len().saturating_sub(visible));
                EventState::Consumed
            }
            None => EventState::NotConsumed,
        }
    }

    fn commands(&self, _ctx: &Ctx, out: &mut Vec<Command>, _force_all: bool) {
        out.push(Command::new(Action::Down, "scroll", "scroll"));
        out.push(Command::new(Action::Back, "close", "close"));
    }

    fn draw(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, _focused: bool) {
        let theme = &ctx.theme;
        let area = self.area;
        let title = format!(
            " Diagnostics ({}) — Esc/q/D to close, j/k to scroll ",
            ctx.diagnostics.len()
        );
        let block = Block::bordered()
            .title(Span::styled(title, theme.heading()))
            .border_style(theme.border(true));
        let lines: Vec<Line> = if ctx.diagnostics.is_empty() {
            let note = if ctx.summaries_done {
                "No diagnostics: every line was used."
            } else {
                "No diagnostics so far (sessions are still being read)."
            };
            vec![Line::from(Span::styled(note, theme.dim()))]
        } else {
            ctx.diagnostics
                .iter()
                .skip(self.scroll)
                .map(|d| Line::from(d.to_string()))
                .collect()
        };
        frame.render_widget(Clear, area);
        frame.render_widget(
            Paragraph::new(lines)
                .block(block)
                .wrap(Wrap { trim: false }),
            area,
        );
    }
}
