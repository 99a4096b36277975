//! The `?` overlay: every key, rendered from [`super::keymap`]'s tables.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::app::App;
use super::keymap::{
    BINDINGS, Binding, CALLS_FILTER_BINDINGS, CALLS_FILTER_HELP, MOUSE_HELP, SEARCH_BINDINGS,
};
use super::theme::Theme;

fn binding_line(b: &Binding, theme: &Theme) -> Line<'static> {
    let keys: Vec<String> = b.keys.iter().map(|k| k.label()).collect();
    Line::from(vec![
        Span::styled(format!("  {:<16}", keys.join(" ")), theme.tool()),
        Span::raw(b.help),
    ])
}

/// The overlay's lines.
pub fn lines(theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled("Keys", theme.heading()))];
    out.extend(BINDINGS.iter().map(|b| binding_line(b, theme)));
    out.push(Line::from(Span::styled(
        "While typing a search",
        theme.heading(),
    )));
    out.extend(SEARCH_BINDINGS.iter().map(|b| binding_line(b, theme)));
    out.push(Line::from(Span::styled(
        "While typing the Calls filter line (/ in the Calls view)",
        theme.heading(),
    )));
    out.extend(CALLS_FILTER_BINDINGS.iter().map(|b| binding_line(b, theme)));
    out.push(Line::from(Span::styled(
        "Calls filter words (find_tool_calls; AND-ed)",
        theme.heading(),
    )));
    out.extend(CALLS_FILTER_HELP.iter().map(|(k, h)| {
        Line::from(vec![
            Span::styled(format!("  {k:<16}"), theme.tool()),
            Span::raw(*h),
        ])
    }));
    out.push(Line::from(Span::styled("Mouse", theme.heading())));
    out.extend(MOUSE_HELP.iter().map(|(k, h)| {
        Line::from(vec![
            Span::styled(format!("  {k:<16}"), theme.tool()),
            Span::raw(*h),
        ])
    }));
    out
}

/// How many lines the overlay has (for scrolling).
pub fn line_count() -> usize {
    lines(&Theme { color: false }).len()
}

/// A rectangle of at most `width`×`height` centred in `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// Draws the overlay.
pub fn draw(frame: &mut Frame, app: &App) {
    let theme = &app.theme;
    let lines = lines(theme);
    let area = centered(
        frame.area(),
        76,
        u16::try_from(lines.len() + 2).unwrap_or(u16::MAX),
    );
    let block = Block::bordered()
        .title(Span::styled(
            " Help — Esc/q/? to close, j/k to scroll ",
            theme.heading(),
        ))
        .border_style(theme.border(true));
    frame.render_widget(Clear, area);
    let scroll = u16::try_from(app.overlay_scroll).unwrap_or(u16::MAX);
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}
