//! The Detail pane's session facts, a turn (prompt, summary, hook firings of
//! the turn) and any other event of the timeline.

use super::*;

pub(super) fn session_lines(b: &mut Build<'_>, entry: &SessionEntry) -> Vec<Line<'static>> {
    let ctx = b.ctx;
    let theme = &ctx.theme;
    let mut out = vec![
        Line::from(Span::styled(entry.title(), theme.tool())),
        Line::default(),
        field("id", entry.sref.id.clone(), theme),
        field("agent", entry.sref.agent.as_str().to_string(), theme),
        field("project", entry.project(), theme),
        field("file", entry.sref.path.display().to_string(), theme),
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
                crate::tui::fmt_time(t, ctx.utc_offset, "%Y-%m-%d %H:%M:%S"),
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
        // As its row in the list: waiting for the index's sync, or loading.
        let waiting = if ctx.indexing.is_some() {
            "indexing…"
        } else {
            "loading…"
        };
        out.push(Line::from(Span::styled(waiting, theme.dim())));
    }
    out.push(Line::default());
    out.push(Line::from(Span::styled(
        "Enter opens the session.",
        theme.dim(),
    )));
    out
}

pub(super) fn latest(turn: &Turn) -> Option<DateTime<Utc>> {
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

pub(super) fn turn_lines(
    b: &mut Build<'_>,
    session: &Session,
    tree: &SpawnTree,
    index: usize,
    turn: &Turn,
) -> Vec<Line<'static>> {
    let ctx = b.ctx;
    let theme = &ctx.theme;
    let mut out = vec![Line::from(Span::styled(
        format!("Turn {}", index + 1),
        theme.tool(),
    ))];
    if let Some(t) = turn.timestamp {
        out.push(field(
            "at",
            crate::tui::fmt_time(t, ctx.utc_offset, "%Y-%m-%d %H:%M:%S"),
            theme,
        ));
        if let Some(end) = latest(turn) {
            out.push(field("duration", fmt_duration(t, end), theme));
        }
    }
    // The core's one definition (spawns.rs, "Counts"): a turn's calls
    // include those of the subagents it spawned, transitively.
    let calls = tree.turn_tool_calls(session, None, index);
    let own = turn.tool_calls().count();
    out.push(field(
        "counts",
        format!(
            "{} ({} in subagents), {}, {}",
            plural(calls, "tool call"),
            calls.saturating_sub(own),
            plural(tree.turn_errors(session, None, index), "error"),
            plural(tree.turn_subagents(session, None, index).len(), "subagent"),
        ),
        theme,
    ));
    out.push(Line::default());
    if turn.rejected {
        // A turn that never started: say so, and why.
        out.push(Line::from(Span::styled(
            "⛔ a hook rejected this prompt: the model never saw it and the turn never started",
            theme.error(),
        )));
        let mut counts = Redactions::new();
        for h in session
            .lines
            .hook_activity
            .iter()
            .filter(|h| h.turn == index && h.action == HookAction::Blocked)
        {
            out.push(Line::from(Span::styled(
                masked(&h.what(2_000), &mut counts),
                theme.error(),
            )));
            if let Some(c) = &h.command {
                out.push(field("handler", masked(c, &mut counts), theme));
            }
            if let Some(code) = h.exit_code {
                out.push(field("exit code", code.to_string(), theme));
            }
        }
        out.push(Line::default());
    }
    // What `hookscope hook` decided on this turn's events that are not
    // calls (its Stop, its prompt), as they were live.
    let decided: Vec<&crate::tui::context::EventDecision> = ctx
        .event_decisions
        .iter()
        .filter(|d| d.in_turn == Some(index))
        .collect();
    if !decided.is_empty() {
        out.push(heading("Rules, live on its events (hookscope hook)", theme));
        for d in decided {
            let agent = d
                .logged
                .agent_id
                .as_deref()
                .filter(|a| !a.is_empty())
                .map(|a| format!(" in subagent {a}"))
                .unwrap_or_default();
            out.push(field(
                "event",
                hookscope_core::printable::printable(&format!(
                    "{}{agent}, after line {}",
                    d.logged.event, d.after_line
                ))
                .into_owned(),
                theme,
            ));
            if let Some(other) = &d.other_file {
                // Joined by session id alone: say whose size placed it.
                out.push(field(
                    "logged for",
                    hookscope_core::printable::printable(&format!(
                        "{other} (not this file: placed by that file's size then)"
                    ))
                    .into_owned(),
                    theme,
                ));
            }
            out.extend(super::call::decision_lines(&d.logged, theme));
        }
        out.push(Line::default());
    }
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

pub(super) fn event_lines(b: &mut Build<'_>, event: &Event) -> Vec<Line<'static>> {
    let ctx = b.ctx;
    let theme = &ctx.theme;
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
