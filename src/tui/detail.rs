//! The Detail pane: the selected tool call (input, typed view, diff,
//! subagent, output), turn (prompt and summary), other event (its text), or
//! — while the session list has the focus — the selected session's facts.
//!
//! Built as plain `Vec<Line>` by [`lines`], wrapped to the pane width by
//! [`wrap`] and cached by the app, so scrolling is cheap.

use chrono::{DateTime, Utc};
use hookscope::tools::ToolKind;
use hookscope::transcript::claude_code::display_prompt;
use hookscope::transcript::{Event, Session, ToolCallRecord, Turn};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use unicode_width::UnicodeWidthChar;

use super::app::{App, Item, Pane, SessionEntry, Thread};
use super::theme::Theme;
use super::timeline::{event_of, input_str};
use super::widgets::{diff, json};

fn heading(text: &str, theme: &Theme) -> Line<'static> {
    Line::from(Span::styled(format!("── {text} ──"), theme.heading()))
}

fn field(name: &str, value: String, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name}: "), theme.dim()),
        Span::raw(value),
    ])
}

/// Multi-line text as lines, one style.
pub fn text_lines(text: &str, style: Style) -> Vec<Line<'static>> {
    text.lines()
        .map(|l| Line::from(Span::styled(l.to_string(), style)))
        .collect()
}

/// `1h 02m`, `3m 07s`, `4.2s`.
pub fn fmt_duration(start: DateTime<Utc>, end: DateTime<Utc>) -> String {
    let ms = (end - start).num_milliseconds().max(0);
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}h {:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{}.{}s", s, (ms % 1000) / 100)
    }
}

/// The detail lines for the app's current selection (not wrapped).
pub fn lines(app: &App) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let session_view = app.focus == Pane::Sessions || app.session().is_none();
    if session_view {
        return match app.session_sel.and_then(|i| app.sessions.get(i)) {
            Some(entry) => session_lines(app, entry),
            None => vec![Line::from(Span::styled(
                "No session selected.",
                theme.dim(),
            ))],
        };
    }
    let (Some(session), Some(item)) = (app.session(), app.timeline_sel) else {
        return Vec::new();
    };
    match item {
        Item::Turn(t) => match session.turns.get(t) {
            Some(turn) => turn_lines(app, session, t, turn),
            None => Vec::new(),
        },
        Item::Event { thread, .. } => match event_of(session, item) {
            Some(Event::ToolCall(record)) => call_lines(app, session, thread, record),
            Some(event) => event_lines(app, event),
            None => Vec::new(),
        },
    }
}

fn session_lines(app: &App, entry: &SessionEntry) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let mut out = vec![
        Line::from(Span::styled(entry.title(), theme.tool())),
        Line::default(),
        field("id", entry.sref.id.clone(), theme),
        field("project", entry.project(), theme),
        field(
            "file",
            entry
                .sref
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            theme,
        ),
        field(
            "subagent files",
            entry.sref.subagent_files.len().to_string(),
            theme,
        ),
    ];
    if let Some(s) = &entry.summary {
        if let Some(t) = s.started {
            out.push(field(
                "started",
                super::fmt_time(t, app.utc_offset, "%Y-%m-%d %H:%M:%S"),
                theme,
            ));
            if let Some(e) = s.ended {
                out.push(field("duration", fmt_duration(t, e), theme));
            }
        }
        if let Some(v) = &s.version {
            out.push(field("version", v.clone(), theme));
        }
        out.push(field(
            "counts",
            format!(
                "{} turns, {} tool calls, {} errors, {} subagents, {} diagnostics",
                s.turns, s.tool_calls, s.errors, s.subagents, s.diagnostics
            ),
            theme,
        ));
    } else if let Some(e) = &entry.error {
        out.push(Line::from(Span::styled(e.clone(), theme.error())));
    } else {
        out.push(Line::from(Span::styled("loading…", theme.dim())));
    }
    out.push(Line::default());
    out.push(Line::from(Span::styled(
        "Enter opens the session.",
        theme.dim(),
    )));
    out
}

fn latest(turn: &Turn) -> Option<DateTime<Utc>> {
    turn.events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCall(r) => r
                .result
                .as_ref()
                .and_then(|res| res.timestamp)
                .or(r.timestamp),
            Event::Text { timestamp, .. }
            | Event::Compaction { timestamp, .. }
            | Event::Interruption { timestamp, .. }
            | Event::ApiError { timestamp, .. }
            | Event::Note { timestamp, .. } => *timestamp,
            Event::Thinking { .. } => None,
        })
        .max()
}

fn turn_lines(app: &App, session: &Session, index: usize, turn: &Turn) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let mut out = vec![Line::from(Span::styled(
        format!("Turn {}", index + 1),
        theme.tool(),
    ))];
    if let Some(t) = turn.timestamp {
        out.push(field(
            "at",
            super::fmt_time(t, app.utc_offset, "%Y-%m-%d %H:%M:%S"),
            theme,
        ));
        if let Some(end) = latest(turn) {
            out.push(field("duration", fmt_duration(t, end), theme));
        }
    }
    let calls: Vec<&ToolCallRecord> = turn.tool_calls().collect();
    let errors = calls.iter().filter(|c| c.is_error()).count();
    let spawned: Vec<usize> = calls.iter().filter_map(|c| c.subagent).collect();
    let sub_calls: usize = spawned
        .iter()
        .filter_map(|s| session.subagents.get(*s))
        .map(|s| s.tool_calls().count())
        .sum();
    out.push(field(
        "counts",
        format!(
            "{} tool calls, {} errors, {} subagents ({} calls inside)",
            calls.len(),
            errors,
            spawned.len(),
            sub_calls
        ),
        theme,
    ));
    out.push(Line::default());
    out.push(heading("Prompt", theme));
    if turn.prompt_line.is_none() {
        out.push(Line::from(Span::styled(
            "(no prompt: the file starts mid-conversation)",
            theme.dim(),
        )));
    } else {
        out.extend(text_lines(&display_prompt(&turn.prompt), Style::new()));
    }
    if let Some(answer) = turn.last_text() {
        out.push(Line::default());
        out.push(heading("Final answer", theme));
        out.extend(text_lines(answer, Style::new()));
    }
    out
}

fn event_lines(app: &App, event: &Event) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let (title, text, style) = match event {
        Event::Text { text, .. } => ("Assistant text", text.clone(), Style::new()),
        Event::Thinking { text, .. } => ("Thinking", text.clone(), theme.dim()),
        Event::Compaction {
            trigger,
            pre_tokens,
            text,
            ..
        } => {
            let mut head = String::new();
            if let Some(t) = trigger {
                head.push_str(&format!("trigger: {t}\n"));
            }
            if let Some(p) = pre_tokens {
                head.push_str(&format!("tokens before: {p}\n"));
            }
            ("Compaction", format!("{head}{text}"), Style::new())
        }
        Event::Interruption { text, .. } => ("Interruption", text.clone(), theme.dim()),
        Event::ApiError { text, .. } => ("API error", text.clone(), theme.error()),
        Event::Note { label, text, .. } => {
            return std::iter::once(heading(label, theme))
                .chain(text_lines(text, Style::new()))
                .collect();
        }
        Event::ToolCall(r) => (r.name(), String::new(), Style::new()),
    };
    let mut out = vec![heading(title, theme)];
    out.push(field("line", event.line().to_string(), theme));
    out.extend(text_lines(&text, style));
    out
}

fn call_lines(
    app: &App,
    session: &Session,
    thread: Thread,
    record: &ToolCallRecord,
) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let mut title = vec![
        Span::styled(record.name().to_string(), theme.tool()),
        Span::styled(format!("  {}", record.tool_kind.as_str()), theme.kind()),
    ];
    if let Some(res) = &record.tool_resolved {
        title.push(Span::styled(format!("  → {res}"), theme.tool()));
    }
    let status = match &record.result {
        None => Span::styled("  no result", theme.dim()),
        Some(r) if r.is_error => Span::styled("  ✗ error", theme.error()),
        Some(_) => Span::styled("  ✓ ok", theme.added()),
    };
    title.push(status);
    let mut out = vec![Line::from(title)];
    let mut where_ = format!("line {}", record.line);
    if let Thread::Sub(s) = thread
        && let Some(sub) = session.subagents.get(s)
    {
        where_.push_str(&format!(
            " of subagent {}",
            sub.agent_type.as_deref().unwrap_or("?")
        ));
    }
    if let Some(t) = record.timestamp {
        where_.push_str(&format!(
            ", {}",
            super::fmt_time(t, app.utc_offset, "%Y-%m-%d %H:%M:%S")
        ));
        if let Some(end) = record.result.as_ref().and_then(|r| r.timestamp) {
            where_.push_str(&format!(" ({})", fmt_duration(t, end)));
        }
    }
    out.push(field("at", where_, theme));
    out.push(field("id", record.tool_use_id.clone(), theme));
    out.push(Line::default());

    out.push(heading("Input", theme));
    match record.call.raw() {
        Some(raw) => out.extend(json::lines(raw, theme)),
        None => out.push(Line::from(Span::styled("(no input)", theme.dim()))),
    }
    let typed = typed_view(record, theme);
    if !typed.is_empty() {
        out.push(Line::default());
        out.push(heading("Typed", theme));
        out.extend(typed);
    }
    if let Some(hunks) = diff_view(record) {
        out.push(Line::default());
        out.push(heading("Diff", theme));
        if hunks.is_empty() {
            out.push(Line::from(Span::styled("(no change)", theme.dim())));
        }
        out.extend(diff::lines(&hunks, theme));
    }
    if let Some(sub) = record.subagent.and_then(|s| session.subagents.get(s)) {
        out.push(Line::default());
        out.push(heading("Subagent", theme));
        out.push(field(
            "type",
            sub.agent_type.clone().unwrap_or_else(|| "?".into()),
            theme,
        ));
        if let Some(d) = &sub.description {
            out.push(field("description", d.clone(), theme));
        }
        out.push(field(
            "calls",
            format!(
                "{} ({} errors) — Enter/Space in the timeline expands them",
                sub.tool_calls().count(),
                sub.tool_calls().filter(|c| c.is_error()).count()
            ),
            theme,
        ));
    }
    out.push(Line::default());
    out.push(heading("Output", theme));
    out.extend(output_view(record, theme));
    out
}

/// The typed view of a call: what the call means rather than its JSON.
// For now this reads the raw input (the `tools` module is a shim on this
// branch). The lead wires in `hookscope::tools::ToolCall`'s typed variants
// here, and for `ToolCall::Bash` the simple calls from
// `hookscope::shell::parse_command_line(command).calls` (program, args, env,
// redirects, operator) plus its `error`.
pub fn typed_view(record: &ToolCallRecord, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if let Some(path) = hookscope::tools::file_path_of(&record.call) {
        out.push(field("file", path.to_string(), theme));
    }
    match record.tool_kind {
        ToolKind::Bash => {
            if let Some(d) = input_str(record, "description") {
                out.push(field("description", d.to_string(), theme));
            }
            if let Some(cmd) = input_str(record, "command") {
                out.push(Line::from(Span::styled("command:", theme.dim())));
                out.extend(text_lines(cmd, theme.tool()));
            }
        }
        ToolKind::Task => {
            if let Some(t) = input_str(record, "subagent_type") {
                out.push(field("subagent_type", t.to_string(), theme));
            }
            if let Some(p) = input_str(record, "prompt") {
                out.push(Line::from(Span::styled("prompt:", theme.dim())));
                out.extend(text_lines(p, Style::new()));
            }
        }
        _ => {
            for key in ["pattern", "path", "url", "query"] {
                if let Some(v) = input_str(record, key) {
                    out.push(field(key, v.to_string(), theme));
                }
            }
        }
    }
    out
}

/// The change a file-editing call made, as hunks: the result's
/// `structuredPatch` when it has one, else a diff of the input's old/new
/// texts (Edit: `old_string`→`new_string`; MultiEdit: each of `edits[]`;
/// Write: "" → `content`; NotebookEdit: "" → `new_source`). `None` for other
/// tools.
// Once typed calls land, the fallback becomes
// `hookscope::tools::hunks_of(&record.call)` mapped through
// `diff::from_texts(&hunk.old, &hunk.new)`.
pub fn diff_view(record: &ToolCallRecord) -> Option<Vec<diff::DiffHunk>> {
    let name = record.name();
    if !matches!(name, "Edit" | "MultiEdit" | "Write" | "NotebookEdit") {
        return None;
    }
    if let Some(hunks) = record
        .result
        .as_ref()
        .and_then(|r| r.tool_use_result.as_ref())
        .and_then(|t| t.get("structuredPatch"))
        .and_then(diff::from_structured_patch)
    {
        return Some(hunks);
    }
    let raw = record.call.raw()?;
    let s = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let pairs: Vec<(String, String)> = match name {
        "Edit" => vec![(s(raw, "old_string"), s(raw, "new_string"))],
        "MultiEdit" => raw
            .get("edits")
            .and_then(serde_json::Value::as_array)
            .map(|edits| {
                edits
                    .iter()
                    .map(|e| (s(e, "old_string"), s(e, "new_string")))
                    .collect()
            })
            .unwrap_or_default(),
        "Write" => vec![(String::new(), s(raw, "content"))],
        _ => vec![(String::new(), s(raw, "new_source"))],
    };
    Some(
        pairs
            .iter()
            .flat_map(|(old, new)| diff::from_texts(old, new))
            .collect(),
    )
}

/// The call's output text (red when `is_error`).
// Redaction goes here once `hookscope::redact` lands: mask the text before
// it becomes lines (and show the mask count in the heading).
pub fn output_view(record: &ToolCallRecord, theme: &Theme) -> Vec<Line<'static>> {
    match &record.result {
        None => vec![Line::from(Span::styled(
            "(no result recorded: interrupted, still running, or the file was cut)",
            theme.dim(),
        ))],
        Some(r) if r.text.is_empty() => {
            vec![Line::from(Span::styled("(empty)", theme.dim()))]
        }
        Some(r) => {
            let style = if r.is_error {
                theme.error()
            } else {
                Style::new()
            };
            text_lines(&r.text, style)
        }
    }
}

/// Wraps lines to `width` cells, at the last space that fits when there is
/// one, else mid-word (tabs become four spaces, other control characters
/// are dropped), keeping span styles.
pub fn wrap(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let mut cells: Vec<(char, Style, usize)> = Vec::new();
        for span in &line.spans {
            for ch in span.content.chars() {
                match ch {
                    '\t' => cells.extend(std::iter::repeat_n((' ', span.style, 1), 4)),
                    c if c.is_control() => {}
                    c => cells.push((c, span.style, c.width().unwrap_or(0))),
                }
            }
        }
        let mut start = 0;
        loop {
            let mut used = 0;
            let mut end = start;
            while end < cells.len() && (used + cells[end].2 <= width || end == start) {
                used += cells[end].2;
                end += 1;
            }
            if end < cells.len() {
                // Break after the last space of the segment, if any.
                if let Some(space) = (start + 1..end).rev().find(|&k| cells[k].0 == ' ') {
                    end = space + 1;
                }
            }
            out.push(cells_line(&cells[start..end]));
            if end >= cells.len() {
                break;
            }
            start = end;
        }
    }
    out
}

fn cells_line(cells: &[(char, Style, usize)]) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut buf = String::new();
    let mut style = None;
    for &(c, st, _) in cells {
        if style.is_some_and(|s| s != st) {
            spans.push(Span::styled(
                std::mem::take(&mut buf),
                style.unwrap_or_default(),
            ));
        }
        style = Some(st);
        buf.push(c);
    }
    if !buf.is_empty() {
        spans.push(Span::styled(buf, style.unwrap_or_default()));
    }
    Line::from(spans)
}

/// Draws the pane.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let theme = &app.theme;
    let focused = app.focus == Pane::Detail;
    let mut title = " Detail ".to_string();
    if !app.detail_query.is_empty() || (app.searching && focused) {
        title = format!(" Detail /{} ", app.detail_query);
    }
    let lines = app.detail_lines();
    let height = usize::from(area.height.saturating_sub(2));
    let scroll = app.detail_scroll.min(lines.len().saturating_sub(1));
    let mut block = Block::bordered()
        .title(Span::styled(title, theme.heading()))
        .border_style(theme.border(focused));
    if lines.len() > height {
        block = block.title_bottom(
            Line::from(format!(
                " {}-{}/{} ",
                scroll + 1,
                (scroll + height).min(lines.len()),
                lines.len()
            ))
            .right_aligned(),
        );
    }
    let visible: Vec<Line> = lines.iter().skip(scroll).take(height).cloned().collect();
    frame.render_widget(Paragraph::new(visible).block(block), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_by_width() {
        let wrapped = wrap(vec![Line::from("abcdef"), Line::from("a\tb")], 4);
        let text: Vec<String> = wrapped.iter().map(super::super::app::line_text).collect();
        assert_eq!(text, vec!["abcd", "ef", "a   ", " b"]);
        let words = wrap(vec![Line::from("ab cd efghijk")], 5);
        let text: Vec<String> = words.iter().map(super::super::app::line_text).collect();
        assert_eq!(text, vec!["ab ", "cd ", "efghi", "jk"]);
    }
}
