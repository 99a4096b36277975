//! The Sessions pane: sessions grouped by project, newest first; each shows
//! its local start time and title, then its counts (filled in as the
//! background worker summarizes).

use crate::words::plural;
use hookscope::transcript::text::one_line;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph};

use super::app::{App, Pane, SessionEntry, SessionRow};
use super::theme::Theme;

/// The two lines of a session row.
pub fn session_item(
    app: &App,
    entry: &SessionEntry,
    width: u16,
    theme: &Theme,
) -> ListItem<'static> {
    let time_format = if width >= 50 {
        "%Y-%m-%d %H:%M"
    } else {
        "%m-%d %H:%M"
    };
    // "…" while the summary is loading; "undated" when the file has no
    // timestamps at all (it then sorts by the file's mtime).
    let time = match &entry.summary {
        None => "…".to_string(),
        Some(s) => s
            .started
            .map(|t| super::fmt_time(t, app.utc_offset, time_format))
            .unwrap_or_else(|| "undated".to_string()),
    };
    let title = one_line(&entry.title(), 200);
    let first = Line::from(vec![
        Span::styled(format!("  {time} "), theme.dim()),
        Span::raw(title),
    ]);
    let second = match (&entry.summary, &entry.error) {
        (Some(s), _) => {
            // Narrow panes get the short form so the counts fit.
            let (calls, errs, subs, sep) = if width >= 50 {
                ("call", "error", "subagent", " · ")
            } else {
                ("call", "err", "sub", ", ")
            };
            let mut spans = vec![Span::styled(
                format!(
                    "  {}{sep}{}",
                    plural(s.turns, "turn"),
                    plural(s.tool_calls, calls)
                ),
                theme.dim(),
            )];
            let errors = format!(
                "{sep}{}",
                if width >= 50 {
                    plural(s.errors, errs)
                } else {
                    format!("{} {errs}", s.errors)
                }
            );
            spans.push(if s.errors > 0 {
                Span::styled(errors, theme.error())
            } else {
                Span::styled(errors, theme.dim())
            });
            let subagents = if width >= 50 {
                plural(s.subagents, subs)
            } else {
                format!("{} {subs}", s.subagents)
            };
            spans.push(Span::styled(format!("{sep}{subagents}"), theme.dim()));
            if !app.session_filter.trim().is_empty() {
                // No project headers while searching: name it here.
                let project = entry.project();
                let base = project
                    .rsplit('/')
                    .find(|p| !p.is_empty())
                    .unwrap_or(&project);
                spans.push(Span::styled(format!("{sep}{base}"), theme.kind()));
            }
            Line::from(spans)
        }
        (None, Some(e)) => Line::from(Span::styled(
            format!("  {}", one_line(e, 200)),
            theme.error(),
        )),
        (None, None) => Line::from(Span::styled("  loading…", theme.dim())),
    };
    ListItem::new(vec![first, second])
}

/// Draws the pane.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let theme = &app.theme;
    let focused = app.focus == Pane::Sessions;
    let mut title = format!(" Sessions ({}) ", app.sessions.len());
    if !app.session_filter.is_empty() || (app.searching && focused) {
        title = format!(" Sessions /{} ", app.session_filter);
    }
    let block = Block::bordered()
        .title(Span::styled(title, theme.heading()))
        .border_style(theme.border(focused));
    let rows = app.session_rows();
    if rows.is_empty() {
        let text = if app.sessions.is_empty() {
            "No sessions found."
        } else {
            "(no match)"
        };
        frame.render_widget(
            Paragraph::new(Span::styled(text, theme.dim())).block(block),
            area,
        );
        return;
    }
    let items: Vec<ListItem> = rows
        .iter()
        .map(|row| match row {
            SessionRow::Header(project) => {
                ListItem::new(Line::from(Span::styled(project.clone(), theme.heading())))
            }
            SessionRow::Session(i) => match app.sessions.get(*i) {
                Some(entry) => session_item(app, entry, area.width, theme),
                None => ListItem::new(""),
            },
        })
        .collect();
    let selected = app
        .session_sel
        .and_then(|s| rows.iter().position(|r| *r == SessionRow::Session(s)));
    let mut state = ListState::default()
        .with_offset(app.session_offset.get())
        .with_selected(selected);
    let list = List::new(items)
        .block(block)
        .highlight_style(theme.selected(focused));
    frame.render_stateful_widget(list, area, &mut state);
    app.session_offset.set(state.offset());
}
