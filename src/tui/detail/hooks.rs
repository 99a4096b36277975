//! The Detail pane's hook firing: what the transcript records of one hook
//! run (event, handler, action, what it said), masked.

use super::*;

/// One hook firing's lines (docs/tui.md#hooks-in-the-timeline): what it did, the event and hook
/// name, the handler(s) with exit code and duration, the decision, the
/// reason, the context it added, the rewrite `from → to`, stdout and
/// stderr, and the lines it was read from. Secrets masked.
pub fn hook_lines(
    h: &HookActivity,
    session: &Session,
    thread: Thread,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut counts = Redactions::new();
    let mut out = Vec::new();
    let style = match h.action {
        HookAction::Blocked | HookAction::Failed | HookAction::Cancelled => theme.error(),
        _ => theme.kind(),
    };
    out.push(Line::from(Span::styled(
        masked(&h.what(2_000), &mut counts),
        style,
    )));
    let name = match (&h.hook_name, &h.event) {
        (Some(n), _) => n.clone(),
        (None, Some(e)) => e.to_string(),
        (None, None) => "(not recorded)".to_string(),
    };
    out.push(field("event", name, theme));
    match &h.command {
        Some(c) => out.push(field("handler", masked(c, &mut counts), theme)),
        None => out.push(field(
            "handler",
            "(not recorded: the transcript names no command for it)".to_string(),
            theme,
        )),
    }
    if h.handlers.len() > 1 {
        for (i, hd) in h.handlers.iter().enumerate() {
            let mut text = hd
                .command
                .as_deref()
                .map_or_else(|| "?".to_string(), |c| masked(c, &mut counts));
            if let Some(ms) = hd.duration_ms {
                text.push_str(&format!(" ({ms} ms)"));
            }
            out.push(field(&format!("handler {}", i + 1), text, theme));
        }
    }
    if let Some(code) = h.exit_code {
        out.push(field("exit code", code.to_string(), theme));
    }
    if let Some(ms) = h.duration_ms {
        out.push(field("duration", format!("{ms} ms"), theme));
    }
    if let Some(d) = &h.decision {
        out.push(field("decision", d.clone(), theme));
    }
    if let Some(id) = &h.tool_use_id {
        // Claude Code writes a `toolUseID` on every hook attachment; only a
        // tool event's names a call. Stop, UserPromptSubmit and the rest get
        // a fresh id per firing (docs/hooks.md#what-the-transcript-records).
        let tool_event = h.event.as_deref().is_some_and(|e| {
            let e = e.split(':').next().unwrap_or(e);
            matches!(
                e,
                "PreToolUse"
                    | "PostToolUse"
                    | "PostToolUseFailure"
                    | "PermissionRequest"
                    | "PermissionDenied"
            )
        });
        let label = if tool_event {
            "tool_use_id"
        } else {
            "firing id"
        };
        out.push(field(label, id.clone(), theme));
    }
    if let Some(r) = &h.reason {
        out.push(field("reason", String::new(), theme));
        out.extend(text_lines(&masked(r, &mut counts), Style::new()));
    }
    for c in &h.context {
        out.push(field("context added", String::new(), theme));
        out.extend(text_lines(&masked(c, &mut counts), Style::new()));
    }
    if let Some(rw) = &h.rewrite {
        out.push(field(
            "input rewritten",
            "the recorded input is the model's; the tool ran this".to_string(),
            theme,
        ));
        let from = rw
            .from
            .as_ref()
            .map(|v| redactor().redact_value(v, &mut counts));
        let to = redactor().redact_value(&rw.to, &mut counts);
        out.push(Line::from(Span::styled("from:", theme.dim())));
        match &from {
            Some(v) => out.extend(json::lines(v, theme)),
            None => out.push(Line::from(Span::styled("(call not found)", theme.dim()))),
        }
        out.push(Line::from(Span::styled("to:", theme.dim())));
        out.extend(json::lines(&to, theme));
    }
    if let Some(o) = &h.updated_output {
        out.push(field(
            "output replaced",
            "the model saw this output instead of the tool's".to_string(),
            theme,
        ));
        let shown = redactor().redact_value(o, &mut counts);
        out.extend(json::lines(&shown, theme));
    }
    if let Some(o) = &h.stdout {
        out.push(field("stdout", String::new(), theme));
        out.extend(text_lines(&masked(o, &mut counts), Style::new()));
    }
    if let Some(e) = &h.stderr {
        out.push(field("stderr", String::new(), theme));
        out.extend(text_lines(&masked(e, &mut counts), Style::new()));
    }
    let file = session
        .thread_path(match thread {
            Thread::Main => None,
            Thread::Sub(s) => Some(s),
        })
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let records: Vec<String> = h
        .lines
        .iter()
        .zip(h.kinds.iter().chain(std::iter::repeat(&String::new())))
        .map(|(l, k)| format!("{l} {k}"))
        .collect();
    out.push(field(
        "recorded",
        format!("{file} line {}", records.join(", ")),
        theme,
    ));
    out.extend(redaction_note(&counts, theme));
    out
}
