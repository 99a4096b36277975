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
                // Far enough that the last diagnostics fill the pane, each
                // wrapped to its rows.
                let last = last_page_start(
                    &ctx.diagnostics,
                    usize::from(self.area.width.saturating_sub(2)),
                    usize::from(self.area.height.saturating_sub(2)),
                );
                self.scroll = self.scroll.saturating_add_signed(delta).min(last);
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
        let mut block = Block::bordered()
            .title(Span::styled(title, theme.heading()))
            .border_style(theme.border(true));
        if let Some(shown) = shown_of(
            &ctx.diagnostics,
            self.scroll,
            usize::from(area.width.saturating_sub(2)),
            usize::from(area.height.saturating_sub(2)),
        ) {
            block =
                block.title_bottom(Line::from(Span::styled(shown, theme.dim())).right_aligned());
        }
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

/// The rows a diagnostic takes wrapped to `width` cells as [`Paragraph`]
/// wraps it when drawn (at word boundaries; at least one).
fn rows_of<T: std::fmt::Display>(d: &T, width: usize) -> usize {
    let width = u16::try_from(width.max(1)).unwrap_or(u16::MAX);
    Paragraph::new(d.to_string())
        .wrap(Wrap { trim: false })
        .line_count(width)
        .max(1)
}

/// The first diagnostic of the last screenful: the smallest scroll from
/// which the rest fit in `height` rows of `width` cells (the last one alone
/// when even it does not fit).
fn last_page_start<T: std::fmt::Display>(diagnostics: &[T], width: usize, height: usize) -> usize {
    let mut rows = 0;
    let mut start = diagnostics.len();
    for (i, d) in diagnostics.iter().enumerate().rev() {
        rows += rows_of(d, width);
        if rows > height {
            break;
        }
        start = i;
    }
    start.min(diagnostics.len().saturating_sub(1))
}

/// Where the overlay is in the list, for its bottom border, as the other
/// panes say it: ` 10-18/34 ` (diagnostics `first..=last`, 1-based, whole on screen
/// when each is wrapped to `width` cells in `height` rows); `None` when
/// every diagnostic fits.
fn shown_of<T: std::fmt::Display>(
    diagnostics: &[T],
    scroll: usize,
    width: usize,
    height: usize,
) -> Option<String> {
    let total = diagnostics.len();
    if total == 0 || width == 0 || height == 0 {
        return None;
    }
    let mut rows = 0;
    let mut last = scroll;
    for d in diagnostics.iter().skip(scroll) {
        rows += rows_of(d, width);
        if rows > height {
            break;
        }
        last += 1;
    }
    if scroll == 0 && last >= total {
        return None;
    }
    let first = (scroll + 1).min(total);
    Some(format!(" {first}-{}/{total} ", last.max(first)))
}

#[cfg(test)]
mod tests {
    use super::shown_of;

    /// The bottom border counts the diagnostics wholly on screen: each
    /// wraps to its own rows.
    #[test]
    fn the_border_says_which_diagnostics_are_shown() {
        let d: Vec<String> = ["a".repeat(10), "b".repeat(25), "c".repeat(5), "d".repeat(5)]
            .into_iter()
            .collect();
        // 10 columns, 4 rows: 1 + 3 rows, then no room for the third.
        assert_eq!(shown_of(&d, 0, 10, 4).as_deref(), Some(" 1-2/4 "));
        assert_eq!(shown_of(&d, 2, 10, 4).as_deref(), Some(" 3-4/4 "));
        // All on screen: nothing to say.
        assert_eq!(shown_of(&d, 0, 100, 4), None);
        assert_eq!(shown_of(&Vec::<String>::new(), 0, 10, 4), None);
    }

    /// Scrolling stops where the last diagnostics fill the pane, counted in
    /// wrapped rows (it stopped at `len - rows`, so long entries at 80
    /// columns left the last ones out of reach).
    #[test]
    fn the_last_diagnostics_can_be_reached() {
        use super::last_page_start;
        let d: Vec<String> = [
            "a".repeat(10),
            "b".repeat(25),
            "c".repeat(5),
            "d".repeat(15),
        ]
        .into_iter()
        .collect();
        // 10 columns, 4 rows: d (2 rows) + c (1) fit, b (3) does not.
        assert_eq!(last_page_start(&d, 10, 4), 2);
        assert_eq!(shown_of(&d, 2, 10, 4).as_deref(), Some(" 3-4/4 "));
        // One row: the last alone, cut.
        assert_eq!(last_page_start(&d, 10, 1), 3);
        assert_eq!(last_page_start(&d, 100, 10), 0);
        assert_eq!(last_page_start(&Vec::<String>::new(), 10, 4), 0);
    }
}
