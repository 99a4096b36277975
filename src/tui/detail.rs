//! The Detail pane: the selected tool call (input, typed view, diff,
//! subagent, output), turn (prompt and summary), other event (its text), or
//! — while the session list has the focus — the selected session's facts.
//!
//! Built as plain `Vec<Line>` by [`lines`], wrapped to the pane width by
//! [`wrap`] and cached by the app, so scrolling is cheap.

use crate::words::plural;
use chrono::{DateTime, Utc};
use hookscope::redact::{Redactions, redactor};
use hookscope::tools::{ToolCall, hunks_of};
use hookscope::transcript::text::display_prompt;
use hookscope::transcript::{Event, Session, Subagent, ToolCallRecord, Turn};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use unicode_width::UnicodeWidthChar;

use super::app::{App, Item, Pane, SessionEntry, Thread};
use super::theme::Theme;
use super::timeline::event_of;
use super::widgets::{diff, json};

/// A section heading: `── text ──`.
pub fn heading(text: &str, theme: &Theme) -> Line<'static> {
    Line::from(Span::styled(format!("── {text} ──"), theme.heading()))
}

/// A `name: value` line, the name dimmed.
pub fn field(name: &str, value: String, theme: &Theme) -> Line<'static> {
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
        Item::Unlinked(s) => unlinked_lines(app, session, s),
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
        field("agent", entry.sref.agent.as_str().to_string(), theme),
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
            [
                plural(s.turns, "turn"),
                plural(s.tool_calls, "tool call"),
                plural(s.errors, "error"),
                plural(s.subagents, "subagent"),
                plural(s.diagnostics, "diagnostic"),
            ]
            .join(", "),
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
            "{}, {}, {} ({} inside)",
            plural(calls.len(), "tool call"),
            plural(errors, "error"),
            plural(spawned.len(), "subagent"),
            plural(sub_calls, "call")
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
        Some(raw) => {
            let mut counts = Redactions::new();
            let raw = redactor().redact_value(raw, &mut counts);
            out.extend(redaction_note(&counts, theme));
            out.extend(json::lines(&raw, theme));
        }
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
    } else if let Some(patch) = codex_patch_of(record) {
        out.push(Line::default());
        out.push(heading("Diff (apply_patch)", theme));
        let mut counts = Redactions::new();
        out.extend(diff::patch_lines(&masked(patch, &mut counts), theme));
    }
    if let Some(sub) = record.subagent.and_then(|s| session.subagents.get(s)) {
        out.push(Line::default());
        out.push(heading("Subagent", theme));
        out.extend(subagent_fields(
            sub,
            "Enter/Space in the timeline expands them",
            theme,
        ));
    }
    out.push(Line::default());
    out.push(heading("Output", theme));
    out.extend(output_view(record, theme));
    out
}

/// A subagent's type, description and call counts (`hint` says how to see
/// the calls).
fn subagent_fields(sub: &Subagent, hint: &str, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![field(
        "type",
        sub.agent_type.clone().unwrap_or_else(|| "?".into()),
        theme,
    )];
    if let Some(d) = &sub.description {
        out.push(field("description", d.clone(), theme));
    }
    out.push(field(
        "calls",
        format!(
            "{} ({} errors) — {hint}",
            sub.tool_calls().count(),
            sub.tool_calls().filter(|c| c.is_error()).count()
        ),
        theme,
    ));
    out
}

/// A subagent transcript that no call spawns: where it is and what it did.
fn unlinked_lines(app: &App, session: &Session, s: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let Some(sub) = session.subagents.get(s) else {
        return Vec::new();
    };
    let mut out = vec![heading("Unlinked subagent", theme)];
    out.push(Line::from(Span::styled(
        "No call in this session spawns it (its Task/Agent call is not in the file).",
        theme.dim(),
    )));
    out.push(field("file", sub.path.display().to_string(), theme));
    if let Some(id) = &sub.agent_id {
        out.push(field("agent_id", id.clone(), theme));
    }
    out.extend(subagent_fields(sub, "Enter/Space expands them", theme));
    if !sub.models.is_empty() {
        out.push(field("models", sub.models.join(", "), theme));
    }
    out.push(field(
        "tokens",
        format!(
            "{} in, {} out, {} cache write, {} cache read",
            sub.usage.input_tokens,
            sub.usage.output_tokens,
            sub.usage.cache_creation_input_tokens,
            sub.usage.cache_read_input_tokens
        ),
        theme,
    ));
    let prompt = sub.prompt();
    if !prompt.is_empty() {
        out.push(Line::default());
        out.push(heading("Prompt", theme));
        let mut counts = Redactions::new();
        out.extend(text_lines(
            &masked(&display_prompt(prompt), &mut counts),
            Style::default(),
        ));
    }
    out
}

/// Masks secrets in `text` as `[REDACTED_<TYPE>]` (hooks.md §2.5), adding
/// to `counts`.
fn masked(text: &str, counts: &mut Redactions) -> String {
    redactor().redact(text, counts).into_owned()
}

/// The typed view of a call (`parse_tool_call`'s variant): what the call
/// means rather than its JSON. For Bash, the simple calls the command runs
/// (`BashCall::command_line`, tree-sitter-bash): program, args, leading
/// `VAR=val`, redirects and the operator to the next call.
pub fn typed_view(record: &ToolCallRecord, theme: &Theme) -> Vec<Line<'static>> {
    let mut counts = Redactions::new();
    let mut out = vec![field("type", record.call.type_name().to_string(), theme)];
    if let Some(path) = hookscope::tools::file_path_of(&record.call) {
        out.push(field("file", path.to_string(), theme));
    }
    match &record.call {
        ToolCall::Bash(bash) => {
            if let Some(d) = &bash.description {
                out.push(field("description", d.clone(), theme));
            }
            if let Some(t) = bash.timeout {
                out.push(field("timeout", format!("{t} ms"), theme));
            }
            if bash.run_in_background == Some(true) {
                out.push(field("background", "yes".to_string(), theme));
            }
            let line = bash.command_line();
            out.push(Line::from(Span::styled(
                format!("runs {} simple call(s):", line.calls.len()),
                theme.dim(),
            )));
            for (i, call) in line.calls.iter().enumerate() {
                let mut spans = vec![Span::styled(format!("{:>2}. ", i + 1), theme.dim())];
                for env in &call.env {
                    spans.push(Span::styled(
                        masked(&format!("{}={} ", env.name, env.value), &mut counts),
                        theme.dim(),
                    ));
                }
                spans.push(Span::styled(call.program.clone(), theme.tool()));
                for arg in &call.args {
                    spans.push(Span::raw(format!(" {}", masked(arg, &mut counts))));
                }
                for r in &call.redirects {
                    let fd = r.fd.map(|f| f.to_string()).unwrap_or_default();
                    spans.push(Span::styled(
                        format!(" {fd}{} {}", r.op, r.target),
                        theme.kind(),
                    ));
                }
                if let Some(op) = &call.operator {
                    spans.push(Span::styled(format!("  {op}"), theme.heading()));
                }
                out.push(Line::from(spans));
            }
            if let Some(err) = &line.error {
                out.push(Line::from(Span::styled(
                    format!("does not parse: {err}"),
                    theme.error(),
                )));
            }
        }
        ToolCall::Task(task) => {
            if let Some(t) = &task.subagent_type {
                out.push(field("subagent_type", t.clone(), theme));
            }
            if let Some(m) = &task.model {
                out.push(field("model", m.clone(), theme));
            }
            if task.run_in_background == Some(true) {
                out.push(field("background", "yes".to_string(), theme));
            }
            out.push(field("description", task.description.clone(), theme));
        }
        ToolCall::Read(read) => {
            if let Some(o) = read.offset {
                out.push(field("offset", o.to_string(), theme));
            }
            if let Some(l) = read.limit {
                out.push(field("limit", l.to_string(), theme));
            }
        }
        ToolCall::Glob(glob) => {
            out.push(field("pattern", glob.pattern.clone(), theme));
            if let Some(p) = &glob.path {
                out.push(field("path", p.clone(), theme));
            }
        }
        ToolCall::Grep(grep) => {
            out.push(field("pattern", grep.pattern.clone(), theme));
            for (k, v) in [
                ("path", &grep.path),
                ("glob", &grep.glob),
                ("output_mode", &grep.output_mode),
            ] {
                if let Some(v) = v {
                    out.push(field(k, v.clone(), theme));
                }
            }
        }
        ToolCall::Skill(skill) => out.push(field("skill", skill.skill.clone(), theme)),
        ToolCall::Edit(edit) if edit.replace_all => {
            out.push(field("replace_all", "true".to_string(), theme));
        }
        ToolCall::MultiEdit(multi) => {
            out.push(field("edits", multi.edits.len().to_string(), theme));
        }
        ToolCall::Other(other) => {
            if let Some((server, tool)) = hookscope::tools::mcp_parts(record.name()) {
                out.push(field(
                    "mcp",
                    format!(
                        "server {server}, tool {tool} ({})",
                        hookscope::tools::mcp_access(tool)
                    ),
                    theme,
                ));
            }
            if let Some(err) = &other.error {
                out.push(Line::from(Span::styled(
                    format!("malformed input: {err}"),
                    theme.error(),
                )));
            }
        }
        _ => {}
    }
    if let Some(d) = record.digest() {
        out.push(field("digest", d, theme));
    }
    out
}

/// The change a file-editing call made, as hunks: the result's
/// `structuredPatch` (formats.md §1.6) when it has one, else the call's
/// [`hunks_of`] (Edit: one; MultiEdit: one per span in order; Write and
/// NotebookEdit: "" → new) diffed line by line. `None` for other tools.
/// The Codex patch a call applies: an `apply_patch` call's text (a string
/// input or its `input` key), or an `apply_patch` heredoc inside a shell
/// command (`exec_command`, `shell`, Bash).
pub fn codex_patch_of(record: &ToolCallRecord) -> Option<&str> {
    let text = match &record.call {
        ToolCall::Bash(bash) => bash.command.as_str(),
        call if call.name() == "apply_patch" => match call.raw()? {
            serde_json::Value::String(s) => s.as_str(),
            raw => raw.get("input")?.as_str()?,
        },
        _ => return None,
    };
    diff::codex_patch(text)
}

/// The edit of an Edit/MultiEdit/Write/NotebookEdit call as diff hunks:
/// `toolUseResult.structuredPatch` when recorded, else the call's hunks.
pub fn diff_view(record: &ToolCallRecord) -> Option<Vec<diff::DiffHunk>> {
    if !matches!(
        record.call,
        ToolCall::Edit(_) | ToolCall::MultiEdit(_) | ToolCall::Write(_) | ToolCall::NotebookEdit(_)
    ) {
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
    Some(
        hunks_of(&record.call)
            .iter()
            .flat_map(|h| diff::from_texts(&h.old, &h.new))
            .collect(),
    )
}

/// The call's output text (red when `is_error`), with secrets masked as
/// `[REDACTED_<TYPE>]`; the first line says how many were masked.
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
            let mut counts = Redactions::new();
            let text = masked(&r.text, &mut counts);
            let mut out = redaction_note(&counts, theme);
            out.extend(text_lines(&text, style));
            out
        }
    }
}

/// `masked: 2 × AWS_KEY, 1 × GITHUB_TOKEN` when anything was masked.
fn redaction_note(counts: &Redactions, theme: &Theme) -> Vec<Line<'static>> {
    if counts.is_empty() {
        return Vec::new();
    }
    let parts: Vec<String> = counts.iter().map(|(t, n)| format!("{n} × {t}")).collect();
    vec![Line::from(Span::styled(
        format!("masked: {}", parts.join(", ")),
        theme.dim(),
    ))]
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

/// Indices of the lines whose text contains `needle`, case-insensitively
/// (none for an empty needle): what Detail search jumps between and counts.
pub fn matching_lines(lines: &[Line<'_>], needle: &str) -> Vec<usize> {
    let needle = needle.to_lowercase();
    if needle.is_empty() {
        return Vec::new();
    }
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| super::app::line_text(l).to_lowercase().contains(&needle))
        .map(|(i, _)| i)
        .collect()
}

/// A pane block with ` first-last/total ` on its bottom border when `len`
/// lines do not fit in `height` rows from line `scroll` on.
pub fn with_position(
    block: Block<'static>,
    scroll: usize,
    height: usize,
    len: usize,
) -> Block<'static> {
    if len <= height {
        return block;
    }
    block.title_bottom(
        Line::from(format!(
            " {}-{}/{} ",
            scroll + 1,
            (scroll + height).min(len),
            len
        ))
        .right_aligned(),
    )
}

/// Whether `hay` (chars) has `needle` (lowercase chars) at `at`,
/// case-insensitively.
fn matches_at(hay: &[char], needle: &[char], at: usize) -> bool {
    needle.iter().enumerate().all(|(k, n)| {
        hay.get(at + k)
            .is_some_and(|h| h.to_lowercase().eq(n.to_lowercase()))
    })
}

/// The line with every case-insensitive occurrence of `needle` restyled
/// with `hit` (other spans keep their style).
pub fn highlight(line: &Line<'static>, needle: &str, hit: Style) -> Line<'static> {
    let needle: Vec<char> = needle.chars().collect();
    if needle.is_empty() {
        return line.clone();
    }
    let mut cells: Vec<(char, Style)> = Vec::new();
    for span in &line.spans {
        cells.extend(span.content.chars().map(|c| (c, span.style)));
    }
    let hay: Vec<char> = cells.iter().map(|(c, _)| *c).collect();
    let mut at = 0;
    let mut found = false;
    while at + needle.len() <= hay.len() {
        if matches_at(&hay, &needle, at) {
            for cell in cells.iter_mut().skip(at).take(needle.len()) {
                cell.1 = cell.1.patch(hit);
            }
            found = true;
            at += needle.len();
        } else {
            at += 1;
        }
    }
    if !found {
        return line.clone();
    }
    let cells: Vec<(char, Style, usize)> = cells
        .into_iter()
        .map(|(c, st)| (c, st, c.width().unwrap_or(0)))
        .collect();
    cells_line(&cells)
}

/// Draws the pane.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let theme = &app.theme;
    let focused = app.focus == Pane::Detail;
    let lines = app.detail_lines();
    let mut title = " Detail ".to_string();
    if !app.detail_query.is_empty() || (app.searching && focused) {
        // Which matching line is at the top, of how many.
        let hits = matching_lines(&lines, &app.detail_query);
        let count = match hits.iter().position(|&i| i >= app.detail_scroll) {
            _ if hits.is_empty() && !app.detail_query.is_empty() => " (no match)".to_string(),
            _ if hits.is_empty() => String::new(),
            Some(p) => format!(" ({}/{})", p + 1, hits.len()),
            None => format!(" (–/{})", hits.len()),
        };
        title = format!(" Detail /{}{count} ", app.detail_query);
    }
    let height = usize::from(area.height.saturating_sub(2));
    let scroll = app.detail_scroll.min(lines.len().saturating_sub(1));
    let block = Block::bordered()
        .title(Span::styled(title, theme.heading()))
        .border_style(theme.border(focused));
    let block = with_position(block, scroll, height, lines.len());
    let hit = theme.search_hit();
    let visible: Vec<Line> = lines
        .iter()
        .skip(scroll)
        .take(height)
        .map(|l| highlight(l, &app.detail_query, hit))
        .collect();
    frame.render_widget(Paragraph::new(visible).block(block), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlights_every_match_case_insensitively() {
        let hit = Style::new().add_modifier(ratatui::style::Modifier::REVERSED);
        let line = Line::from(vec![Span::raw("rm -RF build/ "), Span::raw("and rm -rf x")]);
        let out = highlight(&line, "rm -rf", hit);
        let marked: Vec<&str> = out
            .spans
            .iter()
            .filter(|s| s.style == hit)
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(marked, vec!["rm -RF", "rm -rf"]);
        assert_eq!(
            super::super::app::line_text(&out),
            "rm -RF build/ and rm -rf x"
        );
        assert_eq!(highlight(&line, "absent", hit), line);
    }

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
