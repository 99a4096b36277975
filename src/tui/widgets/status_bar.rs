//! The bottom line: where you are (session › turn › call), counts, the
//! diagnostics count with its key, and the search box while typing.

use hookscope::transcript::Event;
use hookscope::transcript::text::one_line;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::{App, Item, Pane, Thread, View};
use crate::tui::timeline::event_of;

/// The breadcrumb: `session › turn N › [subagent ›] call`.
pub fn breadcrumb(app: &App) -> String {
    let mut parts = Vec::new();
    let index = match (app.focus, &app.open) {
        (Pane::Sessions, _) | (_, None) => app.session_sel,
        (_, Some(open)) => Some(open.index),
    };
    if let Some(entry) = index.and_then(|i| app.sessions.get(i)) {
        parts.push(one_line(
            &entry.title(),
            if app.area.width >= 120 { 60 } else { 24 },
        ));
    }
    if app.focus != Pane::Sessions
        && let (Some(session), Some(item)) = (app.session(), app.timeline_sel)
    {
        match item {
            Item::Turn(t) => parts.push(format!("turn {}", t + 1)),
            Item::Unlinked(_) => parts.push("unlinked subagent".to_string()),
            Item::Event { thread, .. } => {
                // The main-thread turn: walk up to the outermost spawning call.
                let rows = app.every_timeline_row();
                let mut top = item;
                let mut guard = 0;
                while let Some(p) = rows.iter().find(|r| r.item == top).and_then(|r| r.parent) {
                    top = p;
                    guard += 1;
                    if guard > 16 {
                        break;
                    }
                }
                let main_turn = match top {
                    Item::Event {
                        thread: Thread::Main,
                        turn,
                        ..
                    } => Some(turn),
                    _ => None,
                };
                if let Some(t) = main_turn {
                    parts.push(format!("turn {}", t + 1));
                }
                if let Thread::Sub(s) = thread
                    && let Some(sub) = session.subagents.get(s)
                {
                    parts.push(format!(
                        "subagent {}",
                        sub.agent_type.as_deref().unwrap_or("?")
                    ));
                }
                match event_of(session, item) {
                    Some(Event::ToolCall(r)) => parts.push(r.name().to_string()),
                    Some(Event::Text { .. }) => parts.push("text".into()),
                    Some(_) => parts.push("event".into()),
                    None => {}
                }
            }
        }
    }
    parts.join(" › ")
}

/// Draws the bar.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let theme = &app.theme;
    let line = if let Some(message) = &app.message {
        Line::from(Span::styled(format!(" {message}"), theme.error()))
    } else if app.searching {
        let what = match app.focus {
            Pane::Sessions => &app.session_filter,
            Pane::Timeline => &app.timeline_filter,
            Pane::Detail => &app.detail_query,
        };
        Line::from(vec![
            Span::raw(format!("/{what}")),
            Span::styled("▏", theme.tool()),
            Span::raw("   Enter keep · Esc clear"),
        ])
    } else {
        let loaded = app.sessions.iter().filter(|s| s.summary.is_some()).count();
        let mut right = if app.summaries_done {
            match app.sessions.len() {
                1 => "1 session".to_string(),
                n => format!("{n} sessions"),
            }
        } else {
            format!("{loaded}/{} read", app.sessions.len())
        };
        right.push_str(&format!(" · D {} diag · ? help ", app.diagnostics.len()));
        let left = match app.view {
            View::Calls if app.calls.editing => {
                " Calls › typing the filter: Tab complete · Enter/Esc done · Ctrl-U clear"
                    .to_string()
            }
            View::Calls => " Calls › Enter open in session · c back".to_string(),
            View::Browse => format!(" {}", breadcrumb(app)),
        };
        let width = usize::from(area.width);
        let right_w = right.chars().count();
        let left: String = left
            .chars()
            .take(width.saturating_sub(right_w + 1))
            .collect();
        let pad = width.saturating_sub(left.chars().count() + right_w);
        Line::from(vec![
            Span::raw(left),
            Span::raw(" ".repeat(pad)),
            Span::raw(right),
        ])
    };
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}
