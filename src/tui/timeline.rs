//! The Timeline pane: the opened session's turns, each tool call on one line
//! (kind, name, resolved name, a short summary, an error mark), Task/Agent
//! calls expandable in place to their subagent's calls, and other events
//! compact and dimmed.

use hookscope::tools::ToolKind;
use hookscope::transcript::text::{display_prompt, one_line};
use hookscope::transcript::{Event, Session, ToolCallRecord, Turn};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph};

use super::app::{App, Item, OpenState, Pane, Thread};
use super::theme::Theme;

/// Whether an event gets a timeline row (thinking blocks do not).
pub fn shown(event: &Event) -> bool {
    !matches!(event, Event::Thinking { .. })
}

/// The turn a timeline item is in (or is).
pub fn turn_of(session: &Session, item: Item) -> Option<&Turn> {
    match item {
        Item::Turn(t) => session.turns.get(t),
        Item::Unlinked(_) => None,
        Item::Event {
            thread: Thread::Main,
            turn,
            ..
        } => session.turns.get(turn),
        Item::Event {
            thread: Thread::Sub(s),
            turn,
            ..
        } => session.subagents.get(s)?.turns.get(turn),
    }
}

/// The event a timeline item points at (`None` for a turn row).
pub fn event_of(session: &Session, item: Item) -> Option<&Event> {
    match item {
        Item::Turn(_) | Item::Unlinked(_) => None,
        Item::Event { event, .. } => turn_of(session, item)?.events.get(event),
    }
}

/// Subagents no call of the session spawns (e.g. a sibling
/// `agent-*.jsonl` whose Task is not in this file), in file order; the
/// timeline lists them after the turns.
pub fn unlinked_subagents(session: &Session) -> Vec<usize> {
    let spawned: std::collections::HashSet<usize> = session
        .all_tool_calls()
        .filter_map(|(_, c)| c.subagent)
        .collect();
    (0..session.subagents.len())
        .filter(|s| !spawned.contains(s))
        .collect()
}

/// One line naming an unlinked subagent: type, id, description or prompt.
pub fn unlinked_label(session: &Session, s: usize) -> String {
    let Some(sub) = session.subagents.get(s) else {
        return String::new();
    };
    let mut text = format!(
        "unlinked subagent {} {}",
        sub.agent_type.as_deref().unwrap_or("?"),
        sub.agent_id.as_deref().unwrap_or("")
    );
    let about = sub
        .description
        .clone()
        .unwrap_or_else(|| sub.prompt().to_string());
    if !about.is_empty() {
        text.push_str(&format!(" — {}", one_line(&display_prompt(&about), 200)));
    }
    text
}

/// The first timeline item in `thread` whose call passes `pred`.
fn find_call(
    session: &Session,
    thread: Thread,
    pred: &dyn Fn(&ToolCallRecord) -> bool,
) -> Option<Item> {
    let turns = match thread {
        Thread::Main => &session.turns,
        Thread::Sub(s) => &session.subagents.get(s)?.turns,
    };
    turns.iter().enumerate().find_map(|(t, turn)| {
        turn.events.iter().enumerate().find_map(|(e, event)| {
            event
                .as_tool_call()
                .filter(|r| pred(r))
                .map(|_| Item::Event {
                    thread,
                    turn: t,
                    event: e,
                })
        })
    })
}

/// Where the call `tool_use_id` is in the timeline: its item, and the
/// Task/Agent calls (or the unlinked-subagent row) to expand to show it,
/// innermost first. `None` when no thread has it.
pub fn locate(session: &Session, tool_use_id: &str) -> Option<(Item, Vec<Item>)> {
    let threads =
        || std::iter::once(Thread::Main).chain((0..session.subagents.len()).map(Thread::Sub));
    let (mut thread, item) = threads().find_map(|th| {
        find_call(session, th, &|r| r.tool_use_id == tool_use_id).map(|i| (th, i))
    })?;
    let mut spawns = Vec::new();
    // Depth guard: a malformed file could link subagents in a cycle.
    while let Thread::Sub(s) = thread {
        if spawns.len() > 8 {
            return None;
        }
        match threads()
            .find_map(|th| find_call(session, th, &|r| r.subagent == Some(s)).map(|i| (th, i)))
        {
            Some((parent, spawn)) => {
                spawns.push(spawn);
                thread = parent;
            }
            None => {
                // Listed after the turns under its own row.
                spawns.push(Item::Unlinked(s));
                break;
            }
        }
    }
    Some((item, spawns))
}

/// A short summary of a call: the command for Bash, the file path for file
/// tools, the pattern for Glob/Grep, the description for Task/Agent, the URL
/// or query for web tools.
/// Secrets in the summary are masked (hooks.md §2.5).
pub fn summary_of(record: &ToolCallRecord) -> String {
    let text = record.summary();
    let mut counts = hookscope::redact::Redactions::new();
    hookscope::redact::redactor()
        .redact(&text, &mut counts)
        .into_owned()
}

/// Plain text of a row, for the filter.
pub fn row_text(session: &Session, item: Item) -> String {
    match item {
        Item::Turn(t) => session
            .turns
            .get(t)
            .map(|turn| format!("turn {} {}", t + 1, display_prompt(&turn.prompt)))
            .unwrap_or_default(),
        Item::Unlinked(s) => unlinked_label(session, s),
        Item::Event { .. } => match event_of(session, item) {
            Some(Event::ToolCall(r)) => format!(
                "{} {} {} {}",
                r.tool_kind.as_str(),
                r.name(),
                r.tool_resolved.as_deref().unwrap_or(""),
                summary_of(r)
            ),
            Some(e) => event_label(e).1,
            None => String::new(),
        },
    }
}

/// Icon + one-line text of a non-tool event.
fn event_label(event: &Event) -> (&'static str, String) {
    match event {
        Event::Text { text, .. } => ("·", one_line(text, 300)),
        Event::Thinking { text, .. } => ("…", one_line(text, 300)),
        Event::Compaction {
            trigger,
            pre_tokens,
            ..
        } => {
            let mut s = "compaction".to_string();
            if let Some(t) = trigger {
                s.push_str(&format!(" ({t})"));
            }
            if let Some(p) = pre_tokens {
                s.push_str(&format!(", {p} tokens before"));
            }
            ("⇊", s)
        }
        Event::Interruption { text, .. } => ("⊘", one_line(text, 300)),
        Event::ApiError { text, .. } => ("!", format!("API error: {}", one_line(text, 300))),
        Event::Note { label, text, .. } => ("◦", format!("{label}: {}", one_line(text, 300))),
        Event::ToolCall(r) => ("", r.name().to_string()),
    }
}

fn kind_label(kind: ToolKind) -> &'static str {
    kind.as_str()
}

/// The styled line of a row.
pub fn row_line(
    app: &App,
    session: &Session,
    item: Item,
    depth: usize,
    theme: &Theme,
) -> Line<'static> {
    let indent = "  ".repeat(depth);
    match item {
        Item::Unlinked(s) => {
            let marker = if app.expanded.contains(&item) {
                "▾ "
            } else {
                "▸ "
            };
            Line::from(vec![
                Span::raw(marker),
                Span::styled(unlinked_label(session, s), theme.heading()),
            ])
        }
        Item::Turn(t) => {
            let Some(turn) = session.turns.get(t) else {
                return Line::default();
            };
            let mut spans = vec![Span::styled(format!("turn {}", t + 1), theme.heading())];
            if let Some(ts) = turn.timestamp {
                spans.push(Span::styled(
                    format!(" {}", super::fmt_time(ts, app.utc_offset, "%H:%M:%S")),
                    theme.dim(),
                ));
            }
            let prompt = if turn.prompt_line.is_none() {
                "(resumed: no prompt)".to_string()
            } else {
                one_line(&display_prompt(&turn.prompt), 300)
            };
            spans.push(Span::raw(format!(" {prompt}")));
            Line::from(spans)
        }
        Item::Event { .. } => match event_of(session, item) {
            Some(Event::ToolCall(r)) => {
                let marker = match r.subagent {
                    Some(_) if app.expanded.contains(&item) => "▾ ",
                    Some(_) => "▸ ",
                    None => "  ",
                };
                let mut spans = vec![
                    Span::raw(format!("{indent}{marker}")),
                    Span::styled(format!("{:<5} ", kind_label(r.tool_kind)), theme.kind()),
                    Span::styled(r.name().to_string(), theme.tool()),
                ];
                // The error mark sits right after the name, so a narrow pane
                // that cuts the resolved name still shows it.
                if r.is_error() {
                    spans.push(Span::styled(" ✗", theme.error()));
                }
                if let Some(res) = &r.tool_resolved {
                    spans.push(Span::styled(format!(" → {res}"), theme.tool()));
                }
                if r.result.is_none() {
                    spans.push(Span::styled(" (no result)", theme.dim()));
                }
                let summary = summary_of(r);
                if !summary.is_empty() {
                    spans.push(Span::raw(format!(" {summary}")));
                }
                Line::from(spans)
            }
            Some(event) => {
                let (icon, text) = event_label(event);
                let style = if matches!(event, Event::ApiError { .. }) {
                    theme.error()
                } else {
                    theme.dim()
                };
                Line::from(Span::styled(format!("{indent}  {icon} {text}"), style))
            }
            None => Line::default(),
        },
    }
}

/// Draws the pane.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let theme = &app.theme;
    let focused = app.focus == Pane::Timeline;
    let mut title = " Timeline ".to_string();
    if !app.timeline_filter.is_empty() || (app.searching && focused) {
        title = format!(" Timeline /{} ", app.timeline_filter);
    } else if let Some(entry) = app.open.as_ref().and_then(|o| app.sessions.get(o.index)) {
        // Which session this is, so a list previewing another is not
        // mistaken for it.
        let room = usize::from(area.width.saturating_sub(16)).max(8);
        title = format!(" Timeline · {} ", one_line(&entry.title(), room));
    }
    let block = Block::bordered()
        .title(Span::styled(title, theme.heading()))
        .border_style(theme.border(focused));
    let message = |text: &str, style: Style| {
        Paragraph::new(Line::from(Span::styled(text.to_string(), style))).block(block.clone())
    };
    let Some(open) = &app.open else {
        frame.render_widget(
            message("Select a session and press Enter.", theme.dim()),
            area,
        );
        return;
    };
    let session = match &open.state {
        OpenState::Loading => {
            frame.render_widget(message("loading…", theme.dim()), area);
            return;
        }
        OpenState::Failed(e) => {
            frame.render_widget(message(&format!("cannot open: {e}"), theme.error()), area);
            return;
        }
        OpenState::Ready(s) => s,
    };
    let rows = app.timeline_rows();
    if rows.is_empty() {
        let text = if app.timeline_filter.is_empty() {
            "(no turns)"
        } else {
            "(no match)"
        };
        frame.render_widget(message(text, theme.dim()), area);
        return;
    }
    let items: Vec<ListItem> = rows
        .iter()
        .map(|r| ListItem::new(row_line(app, session, r.item, r.depth, theme)))
        .collect();
    let selected = app
        .timeline_sel
        .and_then(|s| rows.iter().position(|r| r.item == s));
    let mut state = ListState::default()
        .with_offset(app.timeline_offset.get())
        .with_selected(selected);
    let list = List::new(items)
        .block(block)
        .highlight_style(theme.selected(focused));
    frame.render_stateful_widget(list, area, &mut state);
    app.timeline_offset.set(state.offset());
}
