//! The Calls view (`c`): every tool call across the loaded sessions and
//! their subagents, filtered by a `find_tool_calls` filter line
//! (`hookscope::query::filter_line`), newest first, with the selected
//! record on the side. Results come from the same query as `hookscope find`
//! and the MCP tool, run on a worker thread as the line changes; Enter opens
//! the call in its session's timeline.

use std::cell::Cell;

use chrono::{DateTime, Utc};
use hookscope::query::{FindResult, FoundCall, Query, filter_line};
use hookscope::transcript::short_session_id;
use hookscope::transcript::text::one_line;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph};

use super::app::App;
use super::detail::{self, field, heading};
use super::theme::Theme;
use super::widgets::json;
use crate::words::plural;

/// The limit the view asks for when the line has no `limit:` (the count
/// still says how many matched in all).
pub const VIEW_LIMIT: usize = 1000;

/// The Calls view's state.
#[derive(Debug, Default)]
pub struct CallsView {
    /// The filter line as typed.
    pub filter: String,
    /// Whether keys go to the filter line.
    pub editing: bool,
    /// The last answer for [`CallsView::generation`] (kept while a newer
    /// query runs, so the list does not flicker).
    pub result: Option<FindResult>,
    /// Why the current line is not a valid query (or the query failed).
    pub error: Option<String>,
    /// Whether a query for the current line is running.
    pub running: bool,
    /// Bumped on every change of the line; answers to older lines are
    /// dropped.
    pub generation: u64,
    /// Selected record (index into `result.records`).
    pub sel: usize,
    /// First visible list row (kept by the renderer).
    pub offset: Cell<usize>,
    /// Candidates offered by the last ambiguous Tab.
    pub completions: Vec<String>,
    /// Whether the record pane (not the list) has the keys.
    pub focus_detail: bool,
    /// First visible line of the record pane.
    pub detail_scroll: usize,
    /// A `tool_use_id` to select when the next answer arrives (quick
    /// filters keep the call you were on).
    pub select_on_answer: Option<String>,
}

impl CallsView {
    /// The records of the last answer (empty before the first).
    pub fn records(&self) -> &[FoundCall] {
        self.result.as_ref().map_or(&[], |r| r.records.as_slice())
    }

    /// The selected record.
    pub fn selected(&self) -> Option<&FoundCall> {
        self.records().get(self.sel)
    }
}

/// Turns a filter line into a validated query: every tool when the line
/// names none, [`VIEW_LIMIT`] unless it sets `limit:`; `now` anchors
/// relative `since:`/`until:` spans.
///
/// # Errors
/// The `invalid_argument` message of the line or of its parameters.
pub fn prepare(line: &str, now: DateTime<Utc>) -> Result<Query, String> {
    let mut params = filter_line::parse(line).map_err(|e| e.message().to_string())?;
    params.limit.get_or_insert(VIEW_LIMIT);
    params
        .validate_or_all_tools(now)
        .map_err(|e| e.message().to_string())
}

/// Where the view's parts are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CallsAreas {
    /// The bordered filter line.
    pub filter: Rect,
    /// The hint line under it (error, completions or count).
    pub hint: Rect,
    /// The record list.
    pub list: Rect,
    /// The selected record.
    pub detail: Rect,
}

/// Splits the main area: filter (3 rows), hint (1), then list and record
/// side by side from [`super::app::WIDE`] columns, stacked below that.
pub fn areas(main: Rect) -> CallsAreas {
    let [filter, hint, body] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(main);
    let [list, detail] = if main.width >= super::app::WIDE {
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(body)
    } else {
        Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(body)
    };
    CallsAreas {
        filter,
        hint,
        list,
        detail,
    }
}

/// One list row: time, session, kind, name, error mark, resolved name,
/// summary; `↳` marks a subagent's call.
fn row(app: &App, record: &FoundCall, width: u16, theme: &Theme) -> ListItem<'static> {
    let format = if width >= 100 {
        "%Y-%m-%d %H:%M"
    } else {
        "%m-%d %H:%M"
    };
    let time = record
        .timestamp
        .map(|t| super::fmt_time(t, app.utc_offset, format))
        .unwrap_or_else(|| "undated".to_string());
    let session: String = short_session_id(&record.session).chars().take(16).collect();
    let mut spans = vec![
        Span::styled(format!("{time} {session} "), theme.dim()),
        Span::styled(format!("{:<5} ", record.tool_kind.as_str()), theme.kind()),
    ];
    if record.origin.is_some() {
        spans.push(Span::styled("↳", theme.dim()));
    }
    spans.push(Span::styled(record.tool_name.clone(), theme.tool()));
    if record.is_error == Some(true) {
        spans.push(Span::styled(" ✗", theme.error()));
    }
    if let Some(res) = &record.tool_resolved {
        spans.push(Span::styled(format!(" → {res}"), theme.tool()));
    }
    if record.agent.as_str() != "claude-code" {
        spans.push(Span::styled(
            format!(" [{}]", record.agent.as_str()),
            theme.dim(),
        ));
    }
    let summary = record.summary();
    if !summary.is_empty() {
        spans.push(Span::raw(format!(" {summary}")));
    }
    ListItem::new(Line::from(spans))
}

/// The record pane's lines (not wrapped): the record's fields as
/// `find_tool_calls` emits them (masked, output cut per `output_mode`).
pub fn record_lines(app: &App, record: &FoundCall) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let mut out = Vec::new();
    let mut name = record.tool_name.clone();
    if let Some(res) = &record.tool_resolved {
        name.push_str(&format!(" → {res}"));
    }
    out.push(field("tool", name, theme));
    out.push(field("kind", record.tool_kind.as_str().to_string(), theme));
    out.push(field(
        "session",
        format!("{} ({})", record.session, record.agent.as_str()),
        theme,
    ));
    if let Some(t) = record.timestamp {
        out.push(field(
            "time",
            super::fmt_time(t, app.utc_offset, "%Y-%m-%d %H:%M:%S"),
            theme,
        ));
    }
    out.push(field("tool_use_id", record.tool_use_id.clone(), theme));
    let error = match record.is_error {
        Some(true) => "true",
        Some(false) => "false",
        None => "no result recorded",
    };
    let reliable = if record.is_error_reliable {
        ""
    } else {
        " (not reliable for this agent)"
    };
    let style = if record.is_error == Some(true) {
        theme.error()
    } else {
        ratatui::style::Style::default()
    };
    out.push(Line::from(vec![
        Span::styled("is_error: ", theme.dim()),
        Span::styled(format!("{error}{reliable}"), style),
    ]));
    if let Some(p) = &record.file_path {
        out.push(field("file_path", p.clone(), theme));
    }
    if let Some(origin) = &record.origin {
        let who = origin
            .agent_id
            .as_deref()
            .map_or("a subagent".to_string(), |id| format!("subagent {id}"));
        let by = origin
            .parent_tool_use_id
            .as_deref()
            .map_or(" (no spawning call found)".to_string(), |p| {
                format!(" spawned by {p}")
            });
        out.push(field("in", format!("{who}{by}"), theme));
    }
    if let Some(d) = &record.digest {
        out.push(field("digest", d.clone(), theme));
    }
    if let Some(cost) = &record.subagent {
        out.push(heading("subagent", theme));
        if let Ok(value) = serde_json::to_value(cost) {
            out.extend(json::lines(&value, theme));
        }
    }
    out.push(heading("input", theme));
    out.extend(json::lines(&record.input, theme));
    out.push(heading("output", theme));
    match &record.output {
        Some(text) if !text.is_empty() => {
            let style = if record.is_error == Some(true) {
                theme.error()
            } else {
                ratatui::style::Style::default()
            };
            out.extend(detail::text_lines(text, style));
        }
        Some(_) => out.push(Line::from(Span::styled("(empty)", theme.dim()))),
        None => out.push(Line::from(Span::styled("(no result)", theme.dim()))),
    }
    out.push(Line::default());
    out.push(Line::from(Span::styled(
        "Enter: open this call in its session",
        theme.dim(),
    )));
    out
}

/// The record pane's lines wrapped to `width` (empty without a selection).
pub fn wrapped_record_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    match app.calls.selected() {
        Some(record) => detail::wrap(record_lines(app, record), usize::from(width.max(1))),
        None => Vec::new(),
    }
}

/// `12 calls`, `showing 1000 of 4321 calls`, plus unreadable sessions.
pub fn count_text(view: &CallsView) -> String {
    let Some(result) = &view.result else {
        return if view.running {
            "searching…".to_string()
        } else {
            String::new()
        };
    };
    let mut text = if !result.matched_exact {
        format!(
            "showing the newest {}; more match (limit:N)",
            plural(result.records.len(), "call")
        )
    } else if result.matched > result.records.len() {
        format!(
            "showing {} of {}",
            result.records.len(),
            plural(result.matched, "call")
        )
    } else {
        plural(result.matched, "call")
    };
    if !result.unmatched_sessions.is_empty() {
        text.push_str(&format!(
            " · no session {}",
            result.unmatched_sessions.join(", ")
        ));
    }
    if !result.unreadable.is_empty() {
        text.push_str(&format!(
            " · {} unreadable",
            plural(result.unreadable.len(), "session")
        ));
    }
    if view.running {
        text.push_str(" · searching…");
    }
    text
}

/// Draws the view into `main` (everything between banner and status bar).
pub fn draw(frame: &mut Frame, main: Rect, app: &App) {
    let theme = &app.theme;
    let view = &app.calls;
    let a = areas(main);

    let filter_block = Block::bordered()
        .title(Span::styled(
            " Filter — find_tool_calls words (Esc, then ? lists them) ",
            theme.heading(),
        ))
        .border_style(theme.border(view.editing));
    let mut filter_spans = vec![
        Span::styled("› ", theme.dim()),
        Span::raw(view.filter.clone()),
    ];
    if view.editing {
        filter_spans.push(Span::styled("▏", theme.tool()));
    } else if view.filter.is_empty() {
        filter_spans.push(Span::styled(
            "(every call — press / to filter)",
            theme.dim(),
        ));
    }
    frame.render_widget(
        Paragraph::new(Line::from(filter_spans)).block(filter_block),
        a.filter,
    );

    let count = count_text(view);
    // Tab's candidates first (the line is often not a query yet while you
    // complete it), then why the line is not a query, then the key hints.
    let left = if !view.completions.is_empty() {
        Span::styled(
            format!(" Tab: {}", view.completions.join("  ")),
            theme.dim(),
        )
    } else if let Some(e) = &view.error {
        Span::styled(format!(" {}", one_line(e, 400)), theme.error())
    } else if view.editing {
        Span::styled(
            " typing: Tab complete · Enter/Esc done · Ctrl-U clear",
            theme.dim(),
        )
    } else {
        Span::styled(
            " Enter open · / edit · t tool · f file · e errors · Esc back",
            theme.dim(),
        )
    };
    let width = usize::from(a.hint.width);
    // An error is what matters most: it takes the line, the count yields.
    let count = if (view.error.is_some() || !view.completions.is_empty())
        && left.content.chars().count() + count.chars().count() + 2 > width
    {
        String::new()
    } else {
        count
    };
    let count_w = count.chars().count() + 1;
    let room = width.saturating_sub(count_w + 1);
    let left_text: String = if left.content.chars().count() > room {
        // Cut with a mark, never mid-word silently.
        let mut cut: String = left.content.chars().take(room.saturating_sub(1)).collect();
        cut.push('…');
        cut
    } else {
        left.content.to_string()
    };
    let pad = width.saturating_sub(left_text.chars().count() + count_w);
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(left_text, left.style),
            Span::raw(" ".repeat(pad)),
            Span::styled(format!("{count} "), theme.heading()),
        ])),
        a.hint,
    );

    let list_focused = !view.editing && !view.focus_detail;
    let list_block = Block::bordered()
        .title(Span::styled(" Calls ", theme.heading()))
        .border_style(theme.border(list_focused));
    let records = view.records();
    if records.is_empty() {
        let text = if view.result.is_none() && view.running {
            "searching…"
        } else if view.error.is_some() && view.result.is_none() {
            "fix the filter line"
        } else {
            "(no calls match)"
        };
        frame.render_widget(
            Paragraph::new(Span::styled(text, theme.dim())).block(list_block),
            a.list,
        );
    } else {
        let items: Vec<ListItem> = records
            .iter()
            .map(|r| row(app, r, a.list.width, theme))
            .collect();
        let mut state = ListState::default()
            .with_offset(view.offset.get())
            .with_selected(Some(view.sel.min(records.len() - 1)));
        let list = List::new(items)
            .block(list_block)
            .highlight_style(theme.selected(list_focused));
        frame.render_stateful_widget(list, a.list, &mut state);
        view.offset.set(state.offset());
    }

    let detail_focused = !view.editing && view.focus_detail;
    let lines = wrapped_record_lines(app, a.detail.width.saturating_sub(2));
    let height = usize::from(a.detail.height.saturating_sub(2));
    let scroll = view.detail_scroll.min(lines.len().saturating_sub(1));
    let block = Block::bordered()
        .title(Span::styled(" Record ", theme.heading()))
        .border_style(theme.border(detail_focused));
    let block = detail::with_position(block, scroll, height, lines.len());
    let visible: Vec<Line> = lines.into_iter().skip(scroll).take(height).collect();
    frame.render_widget(Paragraph::new(visible).block(block), a.detail);
}
