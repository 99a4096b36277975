//! Styles, with a colourless variant for `NO_COLOR` (modifiers only).

use ratatui::style::{Color, Modifier, Style};

/// Every style the views use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Whether colours are used at all.
    pub color: bool,
}

impl Theme {
    /// A theme with colours, unless `NO_COLOR` is set to a non-empty value.
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme { color: !no_color }
    }

    fn fg(&self, color: Color, fallback: Style) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            fallback
        }
    }

    /// Pane title / section heading.
    pub fn heading(&self) -> Style {
        self.fg(Color::Cyan, Style::new())
            .add_modifier(Modifier::BOLD)
    }
    /// Less important text (events other than tool calls, counts).
    pub fn dim(&self) -> Style {
        self.fg(Color::DarkGray, Style::new().add_modifier(Modifier::DIM))
    }
    /// A verdict `hookscope hook` logged: blocks and failures as errors,
    /// the others as a kind.
    pub fn verdict(&self, verdict: &str) -> Style {
        match verdict {
            "block" | "error" => self.error(),
            _ => self.kind(),
        }
    }
    /// Errors.
    pub fn error(&self) -> Style {
        self.fg(Color::Red, Style::new().add_modifier(Modifier::BOLD))
    }
    /// The selected row.
    pub fn selected(&self, focused: bool) -> Style {
        if focused {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new().add_modifier(Modifier::UNDERLINED)
        }
    }
    /// The focused pane's border.
    pub fn border(&self, focused: bool) -> Style {
        match (focused, self.color) {
            (true, true) => Style::new().fg(Color::Cyan),
            (true, false) => Style::new().add_modifier(Modifier::BOLD),
            (false, _) => self.dim(),
        }
    }
    /// Tool kind column.
    pub fn kind(&self) -> Style {
        self.fg(Color::Blue, Style::new())
    }
    /// Tool name.
    pub fn tool(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }
    /// A detail-search match (reverse video, so it shows without colour).
    pub fn search_hit(&self) -> Style {
        self.fg(Color::Yellow, Style::new().add_modifier(Modifier::REVERSED))
    }
    /// The detail-search match `n`/`N` stepped to: distinct from the other
    /// matches (bold and underlined too, so it shows without colour).
    pub fn search_current(&self) -> Style {
        let style =
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD | Modifier::UNDERLINED);
        if self.color {
            style.fg(Color::LightRed)
        } else {
            style
        }
    }
    /// Diff: added line.
    pub fn added(&self) -> Style {
        self.fg(Color::Green, Style::new().add_modifier(Modifier::BOLD))
    }
    /// Diff: removed line.
    pub fn removed(&self) -> Style {
        self.fg(Color::Red, Style::new().add_modifier(Modifier::DIM))
    }
    /// Diff: hunk header.
    pub fn hunk(&self) -> Style {
        self.fg(Color::Magenta, Style::new().add_modifier(Modifier::ITALIC))
    }
    /// JSON object key.
    pub fn json_key(&self) -> Style {
        self.fg(Color::Cyan, Style::new())
    }
    /// JSON string.
    pub fn json_string(&self) -> Style {
        self.fg(Color::Green, Style::new())
    }
    /// JSON number / bool / null.
    pub fn json_literal(&self) -> Style {
        self.fg(Color::Yellow, Style::new())
    }
    /// Status bar background.
    pub fn status(&self) -> Style {
        if self.color {
            Style::new().bg(Color::DarkGray).fg(Color::White)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }
    /// The demo banner.
    pub fn banner(&self) -> Style {
        if self.color {
            Style::new().bg(Color::Yellow).fg(Color::Black)
        } else {
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        }
    }
}
