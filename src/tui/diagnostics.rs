//! The `D` overlay: every diagnostic (discovery, and each session's as the
//! worker reads it) as `path:line: message`, scrollable.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::app::App;
use super::help::centered;

/// Draws the overlay.
pub fn draw(frame: &mut Frame, app: &App) {
    let theme = &app.theme;
    let area = frame.area();
    let area = centered(
        area,
        area.width.saturating_sub(4),
        area.height.saturating_sub(2),
    );
    let title = format!(
        " Diagnostics ({}) — Esc/q/D to close, j/k to scroll ",
        app.diagnostics.len()
    );
    let block = Block::bordered()
        .title(Span::styled(title, theme.heading()))
        .border_style(theme.border(true));
    let lines: Vec<Line> = if app.diagnostics.is_empty() {
        let note = if app.summaries_done {
            "No diagnostics: every line was used."
        } else {
            "No diagnostics so far (sessions are still being read)."
        };
        vec![Line::from(Span::styled(note, theme.dim()))]
    } else {
        app.diagnostics
            .iter()
            .skip(app.overlay_scroll)
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
