//! The bottom line: where you are (session › turn › call), counts, the
//! diagnostics count with its key, and the search box while typing.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use unicode_width::UnicodeWidthStr;

use crate::tui::context::Ctx;
use crate::tui::widgets::text::fit;

/// What the app puts in the bar besides the shared counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    /// Where you are (the breadcrumb) or what the keys do now.
    pub left: String,
    /// The search box's text while a pane's search is typed into.
    pub typing: Option<String>,
}

/// The right side: sessions (or how many are read so far), the
/// diagnostics count and the help key.
pub fn counts_text(ctx: &Ctx) -> String {
    let loaded = ctx.sessions.iter().filter(|s| s.summary.is_some()).count();
    let mut right = if ctx.summaries_done {
        match ctx.sessions.len() {
            1 => "1 session".to_string(),
            n => format!("{n} sessions"),
        }
    } else {
        format!("{loaded}/{} read", ctx.sessions.len())
    };
    right.push_str(&format!(" · D {} diag · ? help ", ctx.diagnostics.len()));
    right
}

/// Draws the bar.
pub fn draw(frame: &mut Frame, area: Rect, ctx: &Ctx, status: &Status) {
    let theme = &ctx.theme;
    let line = if let Some(message) = &ctx.message {
        Line::from(Span::styled(format!(" {message}"), theme.error()))
    } else if let Some(what) = &status.typing {
        Line::from(vec![
            Span::raw(format!("/{what}")),
            Span::styled("▏", theme.tool()),
            Span::raw("   Enter keep · Esc clear"),
        ])
    } else {
        let right = counts_text(ctx);
        let left = format!(" {}", status.left);
        let width = usize::from(area.width);
        let right_w = right.width();
        // Cut at a word by display width, so `›` parts are not split.
        let left = fit(&left, width.saturating_sub(right_w + 1));
        let pad = width.saturating_sub(left.width() + right_w);
        Line::from(vec![
            Span::raw(left),
            Span::raw(" ".repeat(pad)),
            Span::raw(right),
        ])
    };
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}
