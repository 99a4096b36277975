//! The `?` overlay: what each component offers (its
//! [`super::component::Component::commands`], everything), with the keys
//! looked up in [`super::keymap`], then the marks, the keymap's typing
//! tables, the filter words and the mouse. Scrolls, with a position mark on its border,
//! and is drawn above the status bar.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::action::Action;
use super::component::{Command, Component, EventState, centered, delta_of, inner_rows};
use super::context::Ctx;
use super::keymap::{
    self, Binding, CALLS_FILTER_BINDINGS, CALLS_FILTER_HELP, COMPLETION_BINDINGS, MARKS_HELP,
    MOUSE_HELP, SEARCH_BINDINGS,
};
use super::theme::Theme;

fn key_line(keys: String, help: &str, theme: &Theme) -> Line<'static> {
    // Padded by display width: a wide sign (`⛔`) takes two columns.
    let pad = 16usize.saturating_sub(unicode_width::UnicodeWidthStr::width(keys.as_str()));
    Line::from(vec![
        Span::styled(format!("  {keys}{}", " ".repeat(pad)), theme.tool()),
        Span::raw(help.to_string()),
    ])
}

fn binding_line(b: &Binding, theme: &Theme) -> Line<'static> {
    let keys: Vec<String> = b.keys.iter().map(|k| k.label()).collect();
    key_line(keys.join(" "), b.help, theme)
}

/// The overlay's lines: one section per `(title, commands)`, then the
/// marks, the typing tables, filter words and mouse.
pub fn lines(sections: &[(&str, Vec<Command>)], theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for (title, commands) in sections {
        out.push(Line::from(Span::styled(title.to_string(), theme.heading())));
        let mut seen: Vec<(Action, &str)> = Vec::new();
        for c in commands {
            if seen.contains(&(c.action, c.help)) {
                continue;
            }
            seen.push((c.action, c.help));
            if let Some(keys) = keymap::keys_of(c.action) {
                out.push(key_line(keys, c.help, theme));
            }
        }
    }
    // The marks come right after the keys of the panes that show them.
    out.push(Line::from(Span::styled(
        "Marks on a call's row (signs alone when a Timeline row would not fit)",
        theme.heading(),
    )));
    out.extend(
        MARKS_HELP
            .iter()
            .map(|(k, h)| key_line((*k).to_string(), h, theme)),
    );
    let tables: [(&str, &[Binding]); 3] = [
        ("While typing a search", SEARCH_BINDINGS),
        (
            "While typing the Calls filter line (/ in the Calls view)",
            CALLS_FILTER_BINDINGS,
        ),
        ("Tab's candidates (Calls filter line)", COMPLETION_BINDINGS),
    ];
    for (title, table) in tables {
        out.push(Line::from(Span::styled(title, theme.heading())));
        out.extend(table.iter().map(|b| binding_line(b, theme)));
    }
    out.push(Line::from(Span::styled(
        "Calls filter words (find_tool_calls; AND-ed)",
        theme.heading(),
    )));
    out.extend(
        CALLS_FILTER_HELP
            .iter()
            .map(|(k, h)| key_line((*k).to_string(), h, theme)),
    );
    out.push(Line::from(Span::styled("Mouse", theme.heading())));
    out.extend(
        MOUSE_HELP
            .iter()
            .map(|(k, h)| key_line((*k).to_string(), h, theme)),
    );
    out
}

/// The help overlay's state.
#[derive(Debug, Default)]
pub struct HelpOverlay {
    /// First visible line.
    pub scroll: usize,
    /// The lines, built when it opens.
    lines: Vec<Line<'static>>,
    /// Where it is drawn (inside the screen minus the status bar).
    area: Rect,
}

impl HelpOverlay {
    /// Opens it over `sections` (what each component offers).
    pub fn show(&mut self, sections: &[(&str, Vec<Command>)], theme: &Theme) {
        self.lines = lines(sections, theme);
        self.scroll = 0;
    }

    /// Lays it out inside `room` (the screen minus the status bar).
    pub fn set_area(&mut self, room: Rect) {
        self.area = centered(
            room,
            76,
            u16::try_from(self.lines.len() + 2).unwrap_or(u16::MAX),
        );
        self.clamp();
    }

    fn clamp(&mut self) {
        // The last page ends at the last line.
        let visible = usize::from(self.area.height.saturating_sub(2)).max(1);
        self.scroll = self.scroll.min(self.lines.len().saturating_sub(visible));
    }
}

impl Component for HelpOverlay {
    fn event(&mut self, action: Action, _ctx: &mut Ctx) -> EventState {
        match delta_of(action, inner_rows(self.area)) {
            Some(delta) => {
                self.scroll = self.scroll.saturating_add_signed(delta);
                self.clamp();
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
        let block = Block::bordered()
            .title(Span::styled(
                " Help — Esc/q/? to close, j/k to scroll ",
                theme.heading(),
            ))
            .border_style(theme.border(true));
        let height = usize::from(area.height.saturating_sub(2));
        let block =
            super::widgets::text::with_position(block, self.scroll, height, self.lines.len());
        let visible: Vec<Line> = self
            .lines
            .iter()
            .skip(self.scroll)
            .take(height)
            .cloned()
            .collect();
        frame.render_widget(Clear, area);
        frame.render_widget(Paragraph::new(visible).block(block), area);
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;

    /// Every line of the overlay fits an 80-column screen (the overlay is
    /// 76 wide, 74 inside), whatever pane offers it: a longer one is cut
    /// at the border.
    #[test]
    fn every_help_line_fits_80_columns() {
        let mut app = crate::tui::tests::app_for("tests/corpus/real-cc-2.1.332/hooks_c8_outcomes");
        crate::tui::tests::key(&mut app, KeyCode::Char('?'));
        assert!(app.help.lines.len() > 80, "{}", app.help.lines.len());
        let long: Vec<String> = app
            .help
            .lines
            .iter()
            .filter(|l| l.width() > 74)
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert!(long.is_empty(), "{long:#?}");
    }
}
