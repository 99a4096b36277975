//! The Detail pane: the selected tool call (input, typed view, diff,
//! subagent, output), turn (prompt and summary), other event (its text), or
//! — while the session list has the focus — the selected session's facts.
//!
//! Built as plain `Vec<Line>` by [`lines`] for the [`Subject`] the app hands
//! it, wrapped to the pane width and kept by [`DetailPane`] until the
//! subject, the width or what is known changes, so scrolling is cheap.
//! Nothing slow runs here on the UI thread: a Bash call's breakdown
//! (tree-sitter) is asked of a worker ([`Request::ParseBash`]) and shows
//! "parsing…" until the answer is folded in; a long output is built only up
//! to [`Limit`] (`o` shows more).

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::words::plural;
use chrono::{DateTime, Utc};
use hookscope_core::redact::{Redactions, redactor};
use hookscope_core::shell::CommandLine;
use hookscope_core::tools::{BashCall, ToolCall};
use hookscope_core::transcript::hook_activity::{HookAction, HookActivity};
use hookscope_core::transcript::spawns::SpawnTree;
use hookscope_core::transcript::text::display_prompt;
use hookscope_core::transcript::{Event, Session, Subagent, ToolCallRecord, Turn};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::action::Action;
use super::component::{Command, Component, EventState, delta_of, inner_rows};
use super::context::{
    BashKey, Ctx, Effect, Item, OpenState, Pane, Request, SessionEntry, Thread, event_of,
    spawn_chain, subagent_label,
};
use super::theme::Theme;
use super::widgets::text::{
    field, fmt_duration, heading, highlight_current, search_matches, text_lines, with_position,
    wrap_capped,
};
use super::widgets::{diff, json};

/// What the Detail pane shows; the app hands it over from the Sessions or
/// the Timeline pane's selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// A session's facts (index into [`Ctx::sessions`]).
    Session(Option<usize>),
    /// A timeline row of the opened session.
    Item(Option<Item>),
}

impl Default for Subject {
    fn default() -> Subject {
        Subject::Session(None)
    }
}

/// How much of a long text is built: an output's first `lines` lines and
/// `bytes` bytes, and `bytes` wrapped rows in all. Each `o` multiplies both
/// by four.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// Output lines built.
    pub lines: usize,
    /// Output bytes built, and wrapped rows in all.
    pub bytes: usize,
}

impl Limit {
    /// 2,000 lines / 256 KiB, times 4 per `o` pressed (`level`).
    pub fn at(level: u32) -> Limit {
        let factor = 4usize.saturating_pow(level);
        Limit {
            lines: 2_000usize.saturating_mul(factor),
            bytes: (256usize << 10).saturating_mul(factor),
        }
    }
}

/// The parse-cache key of a Bash call: its `tool_use_id` and a hash of the
/// command (ids may repeat across sessions).
pub fn bash_key(tool_use_id: &str, bash: &BashCall) -> BashKey {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bash.command.hash(&mut h);
    (tool_use_id.to_string(), h.finish())
}

/// What building the lines needs besides the subject.
struct Build<'a> {
    ctx: &'a Ctx,
    parses: &'a HashMap<BashKey, Arc<CommandLine>>,
    limit: Limit,
    /// A Bash line the lines wait for: its key and command.
    missing: Option<(BashKey, String)>,
    /// Whether an output was cut at the limit (`o` shows more).
    more: bool,
}

/// The detail lines for `subject` (not wrapped), and the Bash line they
/// wait for, if any.
fn lines(b: &mut Build<'_>, subject: Subject) -> Vec<Line<'static>> {
    let ctx = b.ctx;
    let theme = &ctx.theme;
    let item = match subject {
        Subject::Session(sel) => {
            return match sel.and_then(|i| ctx.sessions.get(i)) {
                Some(entry) => session_lines(b, entry),
                None => vec![Line::from(Span::styled(
                    "No session selected.",
                    theme.dim(),
                ))],
            };
        }
        Subject::Item(item) => item,
    };
    let (Some(session), Some(tree), Some(item)) = (ctx.session(), ctx.spawns(), item) else {
        return Vec::new();
    };
    match item {
        Item::Unlinked(s) => unlinked_lines(b, session, tree, s),
        Item::Turn(t) => match session.turns.get(t) {
            Some(turn) => turn_lines(b, session, tree, t, turn),
            None => Vec::new(),
        },
        Item::Event { thread, .. } => match event_of(session, item) {
            Some(Event::ToolCall(record)) => {
                let hooks = super::timeline::hooks_of_item(session, item);
                call_lines(b, session, tree, thread, record, &hooks)
            }
            Some(event) => match super::timeline::hook_of_item(session, item) {
                Some(h) => {
                    let mut out = vec![heading(&format!("Hook {}", h.event_name()), theme)];
                    out.extend(hook_lines(h, session, thread, theme));
                    out
                }
                None => event_lines(b, event),
            },
            None => Vec::new(),
        },
    }
}

fn session_lines(b: &mut Build<'_>, entry: &SessionEntry) -> Vec<Line<'static>> {
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
                super::fmt_time(t, ctx.utc_offset, "%Y-%m-%d %H:%M:%S"),
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

fn turn_lines(
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
            super::fmt_time(t, ctx.utc_offset, "%Y-%m-%d %H:%M:%S"),
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

fn event_lines(b: &mut Build<'_>, event: &Event) -> Vec<Line<'static>> {
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
        (None, Some(e)) => e.clone(),
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

fn call_lines(
    b: &mut Build<'_>,
    session: &Session,
    tree: &SpawnTree,
    thread: Thread,
    record: &ToolCallRecord,
    hooks: &[&HookActivity],
) -> Vec<Line<'static>> {
    let ctx = b.ctx;
    let theme = &ctx.theme;
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
    if record.result.is_some() && session.agent.error_flag_derived() {
        // Codex records no error flag: it is derived from the exit code.
        title.push(Span::styled(
            " (from the exit code; not reliable)",
            theme.dim(),
        ));
    }
    let mut out = vec![Line::from(title)];
    // OpenCode stores records, not lines: name the part.
    let sub = match thread {
        Thread::Sub(s) => Some(s),
        Thread::Main => None,
    };
    let mut where_ = match session.locus_of(sub, record.line) {
        hookscope_core::transcript::Locus::Record(id) => format!("record {id}"),
        hookscope_core::transcript::Locus::Line(n) => format!("line {n}"),
    };
    if let Thread::Sub(s) = thread {
        // Every spawn from the main thread down, so a depth-2 call says
        // both, and three general-purpose agents are told apart.
        let path: Vec<String> = spawn_chain(tree, s)
            .into_iter()
            .map(|s| subagent_label(session, s, 40))
            .collect();
        where_.push_str(&format!(" of subagent {}", path.join(" › ")));
    }
    if let Some(t) = record.timestamp {
        where_.push_str(&format!(
            ", {}",
            super::fmt_time(t, ctx.utc_offset, "%Y-%m-%d %H:%M:%S")
        ));
        if let Some(end) = record.result.as_ref().and_then(|r| r.timestamp) {
            where_.push_str(&format!(" ({})", fmt_duration(t, end)));
        }
    }
    out.push(field("at", where_, theme));
    out.push(field("id", record.tool_use_id.clone(), theme));
    for h in hooks.iter().filter(|h| h.action.acted()) {
        // What a hook did to this call, up front: a rewrite means the
        // input below is not what ran.
        let mut counts = Redactions::new();
        out.push(Line::from(Span::styled(
            masked(&h.what(200), &mut counts),
            match h.action {
                HookAction::Blocked | HookAction::Failed | HookAction::Cancelled => theme.error(),
                _ => theme.kind(),
            },
        )));
    }
    out.push(Line::default());
    for h in hooks {
        out.push(heading(&format!("Hook {}", h.event_name()), theme));
        out.extend(hook_lines(h, session, thread, theme));
        out.push(Line::default());
    }

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
    if let Some(ran) = session.ran_input(sub, record) {
        // The tool ran a PreToolUse hook's rewrite, not the model's input.
        out.push(Line::default());
        out.push(heading(
            "Ran with (a PreToolUse hook rewrote the input)",
            theme,
        ));
        let mut counts = Redactions::new();
        let ran = redactor().redact_value(ran, &mut counts);
        out.extend(redaction_note(&counts, theme));
        out.extend(json::lines(&ran, theme));
    }
    let parse = match &record.call {
        ToolCall::Bash(bash) => {
            let key = bash_key(&record.tool_use_id, bash);
            let parse = b.parses.get(&key).cloned();
            if parse.is_none() {
                b.missing = Some((key, bash.command.clone()));
            }
            parse
        }
        _ => None,
    };
    let digest = hookscope_core::transcript::call_digest(session, sub, record).ok();
    let typed = typed_view(record, theme, parse.as_deref(), digest);
    if !typed.is_empty() {
        out.push(Line::default());
        out.push(heading("Typed", theme));
        out.extend(typed);
    }
    if let Some(change) = hookscope_core::transcript::diff::call_diff(record) {
        out.push(Line::default());
        let patch = change
            .files
            .iter()
            .any(|f| f.source == hookscope_core::transcript::diff::DiffSource::ApplyPatch);
        out.push(heading(
            if patch { "Diff (apply_patch)" } else { "Diff" },
            theme,
        ));
        let mut counts = Redactions::new();
        out.extend(diff::call_lines(&change, theme, &mut |t| {
            masked(t, &mut counts)
        }));
    }
    if let Some(sub) = record.subagent.and_then(|s| session.subagents.get(s)) {
        out.push(Line::default());
        out.push(heading("Subagent", theme));
        out.extend(subagent_fields(
            sub,
            "Enter/Space in the timeline expands them",
            theme,
        ));
        if let Some(s) = record.subagent
            && spawn_chain(tree, s).len() > 1
        {
            let path: Vec<String> = spawn_chain(tree, s)
                .into_iter()
                .map(|s| subagent_label(session, s, 40))
                .collect();
            out.push(field("spawned via", path.join(" › "), theme));
        }
    }
    out.push(Line::default());
    out.push(heading("Output", theme));
    out.extend(output_view(record, theme, b.limit));
    for h in hooks.iter().filter(|h| h.updated_output.is_some()) {
        // A PostToolUse hook replaced what the model saw of the output.
        if let Some(o) = &h.updated_output {
            out.push(Line::default());
            out.push(heading(
                &format!(
                    "What the model saw instead ({} replaced the output)",
                    h.hook_name.as_deref().unwrap_or(h.event_name())
                ),
                theme,
            ));
            let mut counts = Redactions::new();
            out.extend(text_lines(
                &masked(
                    &hookscope_core::transcript::hook_activity::output_text(o),
                    &mut counts,
                ),
                Style::new(),
            ));
        }
    }
    b.more |= record
        .result
        .as_ref()
        .is_some_and(|r| !cut_text(&r.text, b.limit).1.is_empty());
    out
}

/// A subagent's type, description, agent id, models (the subagent's own
/// `message.model`s, which the meta sidecar does not record) and call
/// counts (`hint` says how to see the calls).
fn subagent_fields(sub: &Subagent, hint: &str, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![field(
        "type",
        sub.agent_type.clone().unwrap_or_else(|| "?".into()),
        theme,
    )];
    if let Some(d) = &sub.description {
        out.push(field("description", d.clone(), theme));
    }
    if let Some(id) = &sub.agent_id {
        out.push(field("agent_id", id.clone(), theme));
    }
    if !sub.models.is_empty() {
        out.push(field("model", sub.models.join(", "), theme));
    }
    // The hint only when there are calls to see.
    let calls = sub.tool_calls().count();
    let errors = sub.tool_calls().filter(|c| c.is_error()).count();
    let hint = if calls == 0 {
        String::new()
    } else {
        format!(" — {hint}")
    };
    out.push(field(
        "calls",
        format!("{calls} ({}){hint}", plural(errors, "error")),
        theme,
    ));
    out
}

/// A subagent transcript that no call spawns: where it is and what it did.
fn unlinked_lines(
    b: &mut Build<'_>,
    session: &Session,
    tree: &SpawnTree,
    s: usize,
) -> Vec<Line<'static>> {
    let ctx = b.ctx;
    let theme = &ctx.theme;
    let Some(sub) = session.subagents.get(s) else {
        return Vec::new();
    };
    let (title, why) = if tree.spawn_of(s).is_some() {
        (
            "Detached subagent",
            "Its spawning call is not reached from the main thread (the spawns form a cycle).",
        )
    } else {
        (
            "Unlinked subagent",
            "No call in this session spawns it (its Task/Agent call is not in the file).",
        )
    };
    let mut out = vec![heading(title, theme)];
    out.push(Line::from(Span::styled(why, theme.dim())));
    out.push(field("file", sub.path.display().to_string(), theme));
    out.extend(subagent_fields(sub, "Enter/Space expands them", theme));
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

/// Masks secrets in `text` as `[REDACTED_<TYPE>]` (docs/tool-calls.md#redaction), adding
/// to `counts`.
fn masked(text: &str, counts: &mut Redactions) -> String {
    redactor().redact(text, counts).into_owned()
}

/// The typed view of a call (`parse_tool_call`'s variant): what the call
/// means rather than its JSON. For Bash, the simple calls the command runs
/// (`BashCall::command_line`, tree-sitter-bash): program, args, leading
/// `VAR=val`, redirects and the operator to the next call.
/// `parse` is the Bash line's breakdown once the worker has it ("parsing…"
/// until then); `digest` the call's (`transcript::call_digest`), shown last.
pub fn typed_view(
    record: &ToolCallRecord,
    theme: &Theme,
    parse: Option<&CommandLine>,
    digest: Option<String>,
) -> Vec<Line<'static>> {
    let mut out = vec![field("type", record.call.type_name().to_string(), theme)];
    if let Some(path) = hookscope_core::tools::file_path_of(&record.call) {
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
            match parse {
                None => out.push(Line::from(Span::styled("parsing…", theme.dim()))),
                Some(line) => out.extend(bash_lines(line, theme)),
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
            if let Some((server, tool)) = hookscope_core::tools::mcp_parts(record.name()) {
                out.push(field(
                    "mcp",
                    format!(
                        "server {server}, tool {tool} ({})",
                        hookscope_core::tools::mcp_access(tool)
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
    if let Some(d) = digest {
        out.push(field("digest", d, theme));
    }
    out
}

/// A parsed Bash line as lines, from the core's `CommandLine::shown_calls`:
/// each simple call with its words shell-quoted and its operator (secrets
/// masked), a `sh -c` script's calls under it as `1.1 ↳`, `1.2 ↳`, then the
/// parse problem and the parser-limit note if any.
fn bash_lines(line: &CommandLine, theme: &Theme) -> Vec<Line<'static>> {
    let mut counts = Redactions::new();
    let mut out = Vec::new();
    out.push(Line::from(Span::styled(
        format!("runs {} simple call(s):", line.calls.len()),
        theme.dim(),
    )));
    let mut labels: Vec<String> = Vec::new();
    let mut children: Vec<usize> = Vec::new();
    let mut top = 0;
    for shown in line.shown_calls() {
        let label = match shown.unwrapped_from {
            Some(from) => {
                let k = children.get_mut(from).map_or(1, |c| {
                    *c += 1;
                    *c
                });
                format!("{}.{k}", labels.get(from).map_or("?", String::as_str))
            }
            None => {
                top += 1;
                top.to_string()
            }
        };
        let lead = if shown.depth == 0 {
            format!("{label:>2}. ")
        } else {
            format!("{}{label} ↳ ", "  ".repeat(shown.depth + 1))
        };
        labels.push(label);
        children.push(0);
        let mut spans = vec![
            Span::styled(lead, theme.dim()),
            Span::raw(masked(&shown.text, &mut counts)),
        ];
        if let Some(op) = &shown.operator {
            spans.push(Span::styled(format!("  {op}"), theme.heading()));
        }
        out.push(Line::from(spans));
        if let Some(err) = &shown.script_error {
            out.push(Line::from(Span::styled(
                format!("    its script does not parse: {err}"),
                theme.error(),
            )));
        }
    }
    if let Some(err) = &line.error {
        out.push(Line::from(Span::styled(
            format!("does not parse: {err}"),
            theme.error(),
        )));
    }
    if let Some(note) = line.limits_note() {
        out.push(Line::from(Span::styled(note, theme.error())));
    }
    out
}

/// The call's output text (red when `is_error`), with secrets masked as
/// `[REDACTED_<TYPE>]`; the first line says how many were masked. Only the
/// first [`Limit`] lines and bytes are built (cut at a line end when one is
/// in reach), then a line saying how much more there is and that `o` shows
/// more.
pub fn output_view(record: &ToolCallRecord, theme: &Theme, limit: Limit) -> Vec<Line<'static>> {
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
            let (head, rest) = cut_text(&r.text, limit);
            let mut counts = Redactions::new();
            let text = masked(head, &mut counts);
            let mut out = redaction_note(&counts, theme);
            out.extend(text_lines(&text, style));
            if !rest.is_empty() {
                let more = rest.lines().count();
                out.push(Line::from(Span::styled(
                    format!(
                        "… {more} more {} ({}) — press o to show more",
                        if more == 1 { "line" } else { "lines" },
                        size_text(rest.len())
                    ),
                    theme.heading(),
                )));
            }
            out
        }
    }
}

/// `text` cut after `limit.lines` lines or `limit.bytes` bytes (at a char
/// boundary), whichever comes first: the head and the rest.
pub fn cut_text(text: &str, limit: Limit) -> (&str, &str) {
    let mut end = text.len().min(limit.bytes);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some((i, _)) = text[..end]
        .match_indices('\n')
        .nth(limit.lines.saturating_sub(1))
    {
        end = i;
    }
    let rest = text[end..].strip_prefix('\n').unwrap_or(&text[end..]);
    (&text[..end], rest)
}

/// `812 B`, `42.0 KiB`, `9.5 MiB`.
fn size_text(bytes: usize) -> String {
    // Display only: f64 is exact far past any transcript size.
    #[allow(clippy::cast_precision_loss)]
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1 << 20 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{:.1} MiB", b / f64::from(1u32 << 20))
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

/// What the kept lines were built from.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BuiltKey {
    subject: Subject,
    open: Option<(usize, bool)>,
    width: u16,
    level: u32,
}

/// The Detail pane's state.
#[derive(Debug, Default)]
pub struct DetailPane {
    /// First visible line.
    pub scroll: usize,
    /// Text searched for (n/N step through its occurrences).
    pub query: String,
    /// Which occurrence of `query` is the current one (an index into
    /// [`search_matches`] of the lines; `n`/`N` move it, wrapping).
    pub current: usize,
    /// Whether keys go to the search box.
    pub searching: bool,
    /// What it shows.
    subject: Subject,
    /// Where it was last laid out.
    area: Rect,
    /// How many times `o` was pressed for this subject.
    level: u32,
    /// The lines for `built`, wrapped to the width.
    lines: Vec<Line<'static>>,
    built: Option<BuiltKey>,
    /// Bash breakdowns the worker sent, by call.
    parses: HashMap<BashKey, Arc<CommandLine>>,
    /// Bash lines asked for and not answered yet.
    pending: HashSet<BashKey>,
    /// Whether the lines were cut at the [`Limit`] (`o` shows more).
    more: bool,
}

impl DetailPane {
    /// The lines as shown (wrapped to the pane's width).
    pub fn lines(&self) -> &[Line<'static>] {
        &self.lines
    }

    /// Shows `subject` in `area` (scrolled to the top when the subject
    /// changes), rebuilding the lines when needed and asking the worker for
    /// a Bash breakdown they wait for.
    pub fn sync(&mut self, subject: Subject, area: Rect, ctx: &mut Ctx) {
        if subject != self.subject {
            self.subject = subject;
            self.scroll = 0;
            self.level = 0;
            self.current = 0;
        }
        self.area = area;
        let width = area.width.saturating_sub(2).max(1);
        let key = BuiltKey {
            subject,
            open: ctx
                .open
                .as_ref()
                .map(|o| (o.index, matches!(o.state, OpenState::Ready(..)))),
            width,
            level: self.level,
        };
        if self.built.as_ref() != Some(&key) {
            let limit = Limit::at(self.level);
            let mut b = Build {
                ctx,
                parses: &self.parses,
                limit,
                missing: None,
                more: false,
            };
            let raw = lines(&mut b, subject);
            let missing = b.missing.take();
            let more = b.more;
            let (mut wrapped, cut) = wrap_capped(raw, usize::from(width), limit.bytes);
            if cut > 0 {
                wrapped.push(Line::from(Span::styled(
                    format!("… {} more cut — press o to show more", plural(cut, "line")),
                    ctx.theme.heading(),
                )));
            }
            self.lines = wrapped;
            self.more = more || cut > 0;
            self.built = Some(key);
            if let Some((key, command)) = missing
                && self.pending.insert(key.clone())
            {
                ctx.requests.push(Request::ParseBash { key, command });
            }
        }
        self.scroll = self.scroll.min(self.max_scroll());
    }

    /// Forgets the built lines (a summary arrived: a session's facts
    /// changed).
    pub fn invalidate(&mut self) {
        self.built = None;
    }

    /// Folds in a Bash breakdown from the worker.
    pub fn parsed(&mut self, key: BashKey, line: CommandLine) {
        self.pending.remove(&key);
        self.parses.insert(key, Arc::new(line));
        self.built = None;
    }

    fn max_scroll(&self) -> usize {
        self.lines.len().saturating_sub(inner_rows(self.area))
    }

    /// The occurrences of the query in the lines, and the current one's
    /// index among them (clamped: the lines may have been re-wrapped).
    pub fn matches(&self) -> (Vec<(usize, usize)>, Option<usize>) {
        let hits = search_matches(&self.lines, &self.query);
        let current = (!hits.is_empty()).then(|| self.current.min(hits.len() - 1));
        (hits, current)
    }

    /// Moves the current match one step (`forward` or back, wrapping) and
    /// scrolls only as far as needed to show its line.
    fn step(&mut self, forward: bool) {
        let (hits, current) = self.matches();
        let Some(current) = current else { return };
        let n = hits.len();
        self.current = if forward {
            (current + 1) % n
        } else {
            (current + n - 1) % n
        };
        self.reveal(hits[self.current].0);
    }

    /// Scrolls the least that shows line `line` (never past the end).
    fn reveal(&mut self, line: usize) {
        let height = inner_rows(self.area).max(1);
        if line < self.scroll {
            self.scroll = line;
        } else if line >= self.scroll + height {
            self.scroll = line + 1 - height;
        }
        self.scroll = self.scroll.min(self.max_scroll());
    }
}

impl Component for DetailPane {
    fn event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        if self.searching {
            if super::component::type_into(&mut self.query, &mut self.searching, action)
                && !self.query.is_empty()
            {
                // The first match, brought to the top (as far as the
                // pane scrolls).
                self.current = 0;
                if let Some(&(line, _)) = self.matches().0.first() {
                    self.scroll = line.min(self.max_scroll());
                }
            }
            return EventState::Consumed;
        }
        if let Some(delta) = delta_of(action, inner_rows(self.area)) {
            self.scroll = self
                .scroll
                .saturating_add_signed(delta)
                .min(self.max_scroll());
            return EventState::Consumed;
        }
        match action {
            Action::Back => {
                if self.query.is_empty() {
                    ctx.emit(Effect::Focus(Pane::Timeline));
                } else {
                    self.query.clear();
                }
            }
            Action::StartSearch => {
                self.searching = true;
                self.query.clear();
            }
            Action::SearchNext | Action::SearchPrev => {
                if self.query.is_empty() {
                    ctx.say("no search: / finds text in the detail");
                } else {
                    self.step(action == Action::SearchNext);
                }
            }
            Action::ShowMore => {
                if self.more {
                    self.level = self.level.saturating_add(1);
                    self.built = None;
                } else {
                    ctx.say("nothing more to show");
                }
            }
            Action::Enter => {}
            _ => return EventState::NotConsumed,
        }
        EventState::Consumed
    }

    fn commands(&self, _ctx: &Ctx, out: &mut Vec<Command>, force_all: bool) {
        out.push(Command::new(
            Action::StartSearch,
            "find",
            "find text (the border counts matches)",
        ));
        if force_all || !self.query.is_empty() {
            out.push(Command::new(Action::SearchNext, "next", "next match"));
            out.push(Command::new(Action::SearchPrev, "prev", "previous match"));
        }
        out.push(Command::new(
            Action::ShowMore,
            "more",
            "show more of a long output (4× per press)",
        ));
        out.push(Command::new(
            Action::Back,
            "back",
            "clear the search, or back to the timeline",
        ));
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx, focused: bool) {
        let theme = &ctx.theme;
        let lines = self.lines();
        let mut title = " Detail ".to_string();
        if !self.query.is_empty() || (self.searching && focused) {
            // Which occurrence is the current one, of how many.
            let (hits, current) = self.matches();
            let count = match current {
                Some(k) => format!(" ({}/{})", k + 1, hits.len()),
                None if !self.query.is_empty() => " (no match)".to_string(),
                None => String::new(),
            };
            title = format!(" Detail /{}{count} ", self.query);
        }
        let height = usize::from(area.height.saturating_sub(2));
        let scroll = self.scroll.min(lines.len().saturating_sub(1));
        let block = Block::bordered()
            .title(Span::styled(title, theme.heading()))
            .border_style(theme.border(focused));
        let block = with_position(block, scroll, height, lines.len());
        let hit = theme.search_hit();
        let (hits, current) = self.matches();
        let current = current.and_then(|k| hits.get(k).copied());
        let visible: Vec<Line> = lines
            .iter()
            .enumerate()
            .skip(scroll)
            .take(height)
            .map(|(i, l)| {
                let at = current.filter(|c| c.0 == i).map(|c| c.1);
                highlight_current(l, &self.query, hit, at, theme.search_current())
            })
            .collect();
        frame.render_widget(Paragraph::new(visible).block(block), area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subagent with no calls has nothing to expand: no hint.
    #[test]
    fn the_expand_hint_needs_calls() {
        let theme = Theme { color: false };
        let sub = Subagent {
            agent_type: Some("Explore".to_string()),
            ..Default::default()
        };
        let text: Vec<String> = subagent_fields(&sub, "Enter/Space expands them", &theme)
            .iter()
            .map(super::super::widgets::text::line_text)
            .collect();
        assert_eq!(text, vec!["type: Explore", "calls: 0 (0 errors)"]);
    }
}
