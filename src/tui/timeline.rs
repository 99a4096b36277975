//! The Timeline pane: the opened session's turns, each tool call on one line
//! (kind, name, resolved name, a short summary, an error mark), Task/Agent
//! calls expandable in place to their subagent's calls, and other events
//! compact and dimmed. [`TimelinePane`] owns the selection, the scroll
//! offset, the filter and which calls are expanded.
//!
//! Hook activity (`transcript::hook_activity`; docs/tui.md "Hooks in the
//! Timeline") is not a row of its own when it belongs to a call: the call's
//! row carries a mark (`⛔ hook blocked`, `⚠ hook objected` after it ran,
//! `↻ hook rewrote`, `⇄ hook replaced output`, `+ hook context`, `⚠ hook
//! failed`, `⚖ hook: allow`; `HookAction::mark`), its summary reads `asked
//! → ran` when a hook rewrote it, and Detail shows the firing. A firing on
//! an event (Stop, UserPromptSubmit, SessionStart…) is one `⚑` row, at the
//! first of the lines it was merged from, in place of the loose notes those
//! lines used to show. A prompt a hook rejected is a turn row marked `⛔
//! rejected by hook` (the turn never started). `H` keeps only the rows
//! where a hook acted.

use std::collections::{HashMap, HashSet};

use hookscope_core::tools::ToolKind;
use hookscope_core::transcript::hook_activity::{HookAction, HookActivity};
use hookscope_core::transcript::spawns::{CallAt, SpawnTree, Step, ThreadId};
use hookscope_core::transcript::text::{display_prompt, one_line};
use hookscope_core::transcript::{Event, Session, ToolCallRecord};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph};

use super::action::Action;
use super::component::{
    Command, Component, EventState, delta_of, follow, inner_rows, moved, type_into, wrapped,
};
pub use super::context::event_of;
use super::context::{Ctx, Effect, Item, OpenState, Pane, Thread, TimelineRow};

/// Whether an event gets a timeline row (thinking blocks do not).
pub fn shown(event: &Event) -> bool {
    !matches!(event, Event::Thinking { .. })
}

/// One line naming a subagent the main thread does not reach (a root of
/// [`SpawnTree::walk_session`] besides the main thread): type, id,
/// description or prompt. "unlinked" when no call spawns it (e.g. a sibling
/// `agent-*.jsonl` whose Task is not in this file), "detached" when its
/// spawning call is itself out of reach (a spawn cycle in a hand-made file).
pub fn unlinked_label(session: &Session, tree: &SpawnTree, s: usize) -> String {
    let Some(sub) = session.subagents.get(s) else {
        return String::new();
    };
    let what = if tree.spawn_of(s).is_some() {
        "detached"
    } else {
        "unlinked"
    };
    let mut text = format!(
        "{what} subagent {} {}",
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

/// The line index of a thread (`session.lines` for the main thread), which
/// holds its hook firings.
fn thread_lines(session: &Session, thread: Thread) -> &hookscope_core::transcript::LineIndex {
    match thread {
        Thread::Main => &session.lines,
        Thread::Sub(s) => session
            .subagents
            .get(s)
            .map_or(&session.lines, |sub| &sub.lines),
    }
}

/// The hook firing a non-call event is a record of (a note on one of the
/// firing's lines), with its index in [`thread_hooks`].
fn hook_of_event<'a>(
    session: &'a Session,
    thread: Thread,
    event: &Event,
) -> Option<(usize, &'a HookActivity)> {
    match event {
        // A process boundary shares its line with whatever starts there.
        Event::Note { label, .. }
            if label != hookscope_core::transcript::claude_code::PROCESS_NOTE => {}
        _ => return None,
    }
    thread_lines(session, thread).hook_at_line(event.line())
}

/// The hook firing a timeline row stands for: a `⚑` row's (not a call's).
pub fn hook_of_item(session: &Session, item: Item) -> Option<&HookActivity> {
    let Item::Event { thread, .. } = item else {
        return None;
    };
    hook_of_event(session, thread, event_of(session, item)?).map(|(_, h)| h)
}

/// The hook firings recorded on a call row's call.
pub fn hooks_of_item(session: &Session, item: Item) -> Vec<&HookActivity> {
    let Item::Event { thread, .. } = item else {
        return Vec::new();
    };
    match event_of(session, item) {
        Some(Event::ToolCall(r)) => thread_lines(session, thread)
            .hooks_of_call(r.line, &r.tool_use_id)
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether a hook acted on this row: a call with a firing that blocked,
/// rewrote, decided, added context or failed, or such a `⚑` row.
pub fn hook_acted(session: &Session, item: Item) -> bool {
    hook_of_item(session, item).is_some_and(|h| h.action.acted())
        || hooks_of_item(session, item)
            .iter()
            .any(|h| h.action.acted())
}

/// Whether `item` is a call on which `hookscope hook` logged an answer
/// other than `none`, or a turn with such an answer on one of its events
/// that are not calls (the rows marked `§`).
fn ruled(session: &Session, ctx: &Ctx, item: Item) -> bool {
    if let Item::Turn(t) = item {
        // A turn whose Stop or prompt your rules decided (its `§ … on`).
        return ctx
            .event_decisions
            .iter()
            .any(|d| d.in_turn == Some(t) && d.logged.verdict != "none");
    }
    match event_of(session, item) {
        Some(Event::ToolCall(r)) => super::context::decisions_on(&ctx.decisions, r)
            .last()
            .is_some_and(|l| l.verdict != "none"),
        _ => false,
    }
}

/// A verdict or event name from the decision log, as a row shows it: a
/// word of ASCII letters, anything else (a log edited by hand) as `?`.
fn log_word(word: &str) -> &str {
    if word.chars().all(|c| c.is_ascii_alphabetic()) {
        word
    } else {
        "?"
    }
}

/// The short mark a call row gets for a firing on it (empty when the hook
/// ran without effect).
pub fn hook_mark(h: &HookActivity) -> String {
    h.action.mark(h.decision.as_deref())
}

/// The text of a `⚑` row: the hook name (or event), what it did, and the
/// handler with exit code and duration; secrets masked.
pub fn hook_row_text(h: &HookActivity) -> String {
    let name = h.hook_name.as_deref().unwrap_or(h.event_name());
    let mut text = format!("{name}: {}", h.what(200));
    let mut facts = Vec::new();
    if let Some(c) = h.command.as_deref() {
        facts.push(one_line(c, 80));
    }
    if let Some(code) = h.exit_code {
        facts.push(format!("exit {code}"));
    }
    if let Some(ms) = h.duration_ms {
        facts.push(format!("{ms} ms"));
    }
    if !facts.is_empty() {
        text.push_str(&format!(" [{}]", facts.join(", ")));
    }
    let mut counts = hookscope_core::redact::Redactions::new();
    hookscope_core::redact::redactor()
        .redact(&text, &mut counts)
        .into_owned()
}

/// A thread's rows in order (its turn headers for the main thread, then
/// each shown event), as timeline items. The notes of one hook firing give
/// one row (the first); those of a firing on a call give none (the call
/// shows it).
fn thread_items(session: &Session, thread: ThreadId) -> Vec<Item> {
    let (turns, th) = match thread {
        None => (session.turns.as_slice(), Thread::Main),
        Some(s) => (
            session
                .subagents
                .get(s)
                .map_or(&[][..], |sub| sub.turns.as_slice()),
            Thread::Sub(s),
        ),
    };
    let mut items = Vec::new();
    let mut hooks_shown: HashSet<usize> = HashSet::new();
    for (t, turn) in turns.iter().enumerate() {
        if th == Thread::Main {
            items.push(Item::Turn(t));
        }
        for (e, event) in turn.events.iter().enumerate() {
            if let Some((i, h)) = hook_of_event(session, th, event)
                && (h.on_call() || !hooks_shown.insert(i))
            {
                continue;
            }
            if shown(event) {
                items.push(Item::Event {
                    thread: th,
                    turn: t,
                    event: e,
                });
            }
        }
    }
    items
}

/// The timeline item of a call.
fn call_item(at: &CallAt) -> Item {
    Item::Event {
        thread: at.thread.map_or(Thread::Main, Thread::Sub),
        turn: at.turn,
        event: at.event,
    }
}

/// A thread being laid out: its items, the next one to emit, the depth and
/// parent of its rows, and whether they are shown (every spawn above it is
/// expanded).
struct ThreadRows {
    items: Vec<Item>,
    next: usize,
    depth: usize,
    parent: Option<Item>,
    visible: bool,
}

impl ThreadRows {
    /// Emits this thread's rows up to and including `until` (all the rest
    /// when `None`, or when `until` is not among them).
    fn emit(&mut self, until: Option<Item>, rows: &mut Vec<TimelineRow>) {
        let end = until
            .and_then(|u| self.items[self.next..].iter().position(|i| *i == u))
            .map_or(self.items.len(), |p| self.next + p + 1);
        if self.visible {
            rows.extend(self.items[self.next..end].iter().map(|&item| TimelineRow {
                item,
                depth: self.depth,
                parent: self.parent,
                expands: None,
            }));
        }
        self.next = end;
    }
}

/// Every timeline row of a session, laid out along the core's one spawn
/// walk ([`SpawnTree::walk_session`]): the main thread's turns and events,
/// each Task/Agent call followed by its subagent's rows when `expanded`
/// says so, then each subagent the main thread does not reach under its own
/// [`Item::Unlinked`] row. The walk visits each thread once and ends on
/// spawn cycles; this only folds its steps, so it neither recurses nor
/// needs a depth limit of its own.
pub fn layout(
    session: &Session,
    tree: &SpawnTree,
    expanded: &dyn Fn(Item) -> bool,
) -> Vec<TimelineRow> {
    let mut rows = Vec::new();
    let mut frames: Vec<ThreadRows> = Vec::new();
    // The call just emitted that the walk enters next, and whether its
    // rows show.
    let mut spawning: Option<(Item, bool)> = None;
    for step in tree.walk_session(session) {
        match step {
            Step::Enter { thread, depth: 0 } => {
                let (depth, parent, visible) = match thread {
                    None => (0, None, true),
                    Some(s) => {
                        let item = Item::Unlinked(s);
                        rows.push(TimelineRow {
                            item,
                            depth: 0,
                            parent: None,
                            expands: Some(s),
                        });
                        (1, Some(item), expanded(item))
                    }
                };
                frames.push(ThreadRows {
                    items: thread_items(session, thread),
                    next: 0,
                    depth,
                    parent,
                    visible,
                });
            }
            Step::Enter { thread, .. } => {
                let (call, shown) = spawning.take().unwrap_or((Item::Turn(0), false));
                let depth = frames.last().map_or(0, |f| f.depth + 1);
                frames.push(ThreadRows {
                    items: thread_items(session, thread),
                    next: 0,
                    depth,
                    parent: Some(call),
                    visible: shown,
                });
            }
            Step::Call { at, expands, .. } => {
                let Some(frame) = frames.last_mut() else {
                    continue;
                };
                let item = call_item(&at);
                frame.emit(Some(item), &mut rows);
                if frame.visible
                    && let Some(row) = rows.last_mut().filter(|r| r.item == item)
                {
                    row.expands = expands;
                }
                spawning = expands.map(|_| (item, frame.visible && expanded(item)));
            }
            Step::Leave { .. } => {
                if let Some(mut frame) = frames.pop() {
                    frame.emit(None, &mut rows);
                }
            }
        }
    }
    rows
}

/// The rows above row `pos` (its parent, that one's parent, …), innermost
/// first. A parent row precedes its children (the walk is pre-order), so
/// each step looks only before the last and the climb ends.
fn ancestors(rows: &[TimelineRow], mut pos: usize) -> Vec<Item> {
    let mut out = Vec::new();
    while let Some(parent) = rows.get(pos).and_then(|r| r.parent) {
        match rows[..pos].iter().rposition(|r| r.item == parent) {
            Some(p) => {
                out.push(parent);
                pos = p;
            }
            None => break,
        }
    }
    out
}

/// Where the call `tool_use_id` is in the timeline: its item, and the
/// Task/Agent calls (and the unlinked-subagent row) to expand to show it,
/// innermost first: the spawns [`layout`] nests it under, i.e. the path of
/// [`SpawnTree::walk_session`] down to it. The first such call in timeline
/// order when the id repeats; `None` when no thread has it.
pub fn locate(session: &Session, tree: &SpawnTree, tool_use_id: &str) -> Option<(Item, Vec<Item>)> {
    let rows = layout(session, tree, &|_| true);
    let pos = rows.iter().position(|r| {
        event_of(session, r.item)
            .and_then(Event::as_tool_call)
            .is_some_and(|c| c.tool_use_id == tool_use_id)
    })?;
    Some((rows[pos].item, ancestors(&rows, pos)))
}

/// A short summary of a call: the command for Bash, the file path for file
/// tools, the pattern for Glob/Grep, the description for Task/Agent, the URL
/// or query for web tools; for a call a PreToolUse hook rewrote, `asked →
/// ran` ([`Session::summary_as_ran`]). Secrets in the summary are masked.
pub fn summary_of(session: &Session, thread: Thread, record: &ToolCallRecord) -> String {
    hookscope_core::transcript::model::as_ran(summary_parts_of(session, thread, record))
}

/// [`summary_of`] as its two sides ([`Session::summary_parts`]): the
/// summary asked and, for a call a PreToolUse hook rewrote, the summary
/// that ran; each masked.
fn summary_parts_of(
    session: &Session,
    thread: Thread,
    record: &ToolCallRecord,
) -> (String, Option<String>) {
    let thread = match thread {
        Thread::Main => None,
        Thread::Sub(s) => Some(s),
    };
    let (asked, ran) = session.summary_parts(thread, record);
    let mut counts = hookscope_core::redact::Redactions::new();
    let redactor = hookscope_core::redact::redactor();
    let mut mask = |text: &str| redactor.redact(text, &mut counts).into_owned();
    let asked = mask(&asked);
    (asked, ran.map(|ran| mask(&ran)))
}

/// Plain text of a row, for the filter.
pub fn row_text(session: &Session, tree: &SpawnTree, item: Item) -> String {
    match item {
        Item::Turn(t) => session
            .turns
            .get(t)
            .map(|turn| {
                let rejected = if turn.rejected {
                    " rejected by hook"
                } else {
                    ""
                };
                format!("turn {}{rejected} {}", t + 1, display_prompt(&turn.prompt))
            })
            .unwrap_or_default(),
        Item::Unlinked(s) => unlinked_label(session, tree, s),
        Item::Event { thread, .. } => match event_of(session, item) {
            Some(Event::ToolCall(r)) => {
                let mut text = format!(
                    "{} {} {} {}",
                    r.tool_kind.as_str(),
                    r.name(),
                    r.tool_resolved.as_deref().unwrap_or(""),
                    summary_of(session, thread, r)
                );
                for h in hooks_of_item(session, item) {
                    text.push(' ');
                    text.push_str(&hook_mark(h));
                }
                text
            }
            Some(e) => match hook_of_item(session, item) {
                Some(h) => hook_row_text(h),
                None => event_label(e).1,
            },
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
        Event::ApiError { text, .. } => ("!", api_error_line(text)),
        // A process boundary's first line says it; Detail has the rest.
        Event::Note { label, text, .. }
            if label == hookscope_core::transcript::claude_code::PROCESS_NOTE =>
        {
            (
                "◦",
                format!("{label}: {}", text.lines().next().unwrap_or("")),
            )
        }
        Event::Note { label, text, .. } => ("◦", format!("{label}: {}", one_line(text, 300))),
        Event::ToolCall(r) => ("", r.name().to_string()),
    }
}

fn kind_label(kind: ToolKind) -> &'static str {
    kind.as_str()
}

/// The styled line of a row.
///
/// `compact` (the pane draws every row so when a row with a hook mark does
/// not fit whole): a hook mark is its sign alone (`↻`, not `↻ hook
/// rewrote`), so the command after it stays in view; `?` lists the signs.
pub fn row_line(
    session: &Session,
    tree: &SpawnTree,
    row: &TimelineRow,
    expanded: &HashSet<Item>,
    ctx: &Ctx,
    compact: bool,
    room: usize,
) -> Line<'static> {
    let (decided, event_decided, utc_offset, theme) = (
        ctx.decisions.as_ref(),
        ctx.event_decisions.as_slice(),
        ctx.utc_offset,
        &ctx.theme,
    );
    let (item, depth) = (row.item, row.depth);
    let indent = "  ".repeat(depth);
    match item {
        Item::Unlinked(s) => {
            let marker = if expanded.contains(&item) {
                "▾ "
            } else {
                "▸ "
            };
            Line::from(vec![
                Span::raw(marker),
                Span::styled(unlinked_label(session, tree, s), theme.heading()),
            ])
        }
        Item::Turn(t) => {
            let Some(turn) = session.turns.get(t) else {
                return Line::default();
            };
            let mut spans = vec![Span::styled(format!("turn {}", t + 1), theme.heading())];
            if let Some(ts) = turn.timestamp {
                spans.push(Span::styled(
                    format!(" {}", super::fmt_time(ts, utc_offset, "%H:%M:%S")),
                    theme.dim(),
                ));
            }
            let prompt = if turn.prompt_line.is_none() {
                "(resumed: no prompt)".to_string()
            } else {
                one_line(&display_prompt(&turn.prompt), 300)
            };
            if turn.rejected {
                // A prompt a hook rejected: the turn never started.
                spans.push(Span::styled(" ⛔ rejected by hook:", theme.error()));
            }
            // The newest decision `hookscope hook` logged on one of the
            // turn's events that are not calls (a Stop gate), when a rule
            // acted; Detail lists them all.
            if let Some(d) = event_decided
                .iter()
                .rfind(|d| d.in_turn == Some(t) && d.logged.verdict != "none")
            {
                spans.push(Span::styled(
                    format!(
                        " § {} on {}",
                        log_word(&d.logged.verdict),
                        log_word(&d.logged.event)
                    ),
                    theme.verdict(&d.logged.verdict),
                ));
            }
            spans.push(Span::raw(format!(" {prompt}")));
            Line::from(spans)
        }
        Item::Event { thread, .. } => match event_of(session, item) {
            Some(Event::ToolCall(r)) => {
                let marker = match row.expands {
                    Some(_) if expanded.contains(&item) => "▾ ",
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
                // The newest decision `hookscope hook` logged for it, when
                // a rule acted (a matcher wider than the rules logs `none`
                // on most calls). It comes before the recorded hook marks,
                // so a narrow pane still shows the verdict whole.
                if let Some(l) = super::context::decisions_on(decided, r)
                    .last()
                    .filter(|l| l.verdict != "none")
                {
                    spans.push(Span::styled(
                        format!(" § {}", log_word(&l.verdict)),
                        theme.verdict(&l.verdict),
                    ));
                }
                for h in hooks_of_item(session, item) {
                    let mut mark = hook_mark(h);
                    if mark.is_empty() {
                        continue;
                    }
                    if compact && let Some(sign) = mark.split(' ').next() {
                        mark = sign.to_string();
                    }
                    let style = match h.action {
                        HookAction::Blocked | HookAction::Failed | HookAction::Cancelled => {
                            theme.error()
                        }
                        _ => theme.kind(),
                    };
                    spans.push(Span::styled(format!(" {mark}"), style));
                }
                if let Some(res) = &r.tool_resolved {
                    spans.push(Span::styled(format!(" → {res}"), theme.tool()));
                }
                if r.result.is_none() {
                    spans.push(Span::styled(" (no result)", theme.dim()));
                }
                let (asked, ran) = summary_parts_of(session, thread, r);
                crate::tui::widgets::text::push_summary(&mut spans, &asked, ran.as_deref(), room);
                Line::from(spans)
            }
            Some(_) if hook_of_item(session, item).is_some() => {
                let Some(h) = hook_of_item(session, item) else {
                    return Line::default();
                };
                let style = match h.action {
                    HookAction::Blocked | HookAction::Failed | HookAction::Cancelled => {
                        theme.error()
                    }
                    HookAction::Succeeded | HookAction::Other => theme.dim(),
                    _ => theme.kind(),
                };
                Line::from(Span::styled(
                    format!("{indent}  ⚑ {}", hook_row_text(h)),
                    style,
                ))
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

/// The Timeline pane's state.
#[derive(Debug, Default)]
pub struct TimelinePane {
    /// Selected row.
    pub sel: Option<Item>,
    /// First visible row (follows the selection, see [`follow`]).
    pub offset: usize,
    /// Filter (case-insensitive substring of a row's text).
    pub filter: String,
    /// Whether keys go to the filter box.
    pub searching: bool,
    /// `H`: only the rows where a hook acted (a call a hook blocked,
    /// rewrote, added context to, decided or failed on, and `⚑` rows that
    /// did one of these), across every subagent.
    pub hooks_only: bool,
    /// Task/Agent calls (and unlinked-subagent rows) expanded to their
    /// subagent's events.
    pub expanded: HashSet<Item>,
    /// Where the pane was last laid out.
    area: Rect,
    /// The visible rows as of the last transition (what is drawn).
    shown: Vec<TimelineRow>,
    /// The filter's lowercased row texts of the open session.
    texts: std::cell::RefCell<RowTexts>,
}

/// Lowercased [`row_text`]s of one session, built as the filter first
/// needs them and kept until another session (or a reload of it) is shown:
/// a row's text depends on its session only, and rebuilding the texts of a
/// 43k-call session at every keystroke took over a second. The `Weak` keeps
/// the session's allocation (not its data) so its address cannot be reused
/// by a later session while it is compared.
#[derive(Debug, Default)]
struct RowTexts {
    session: std::sync::Weak<Session>,
    texts: HashMap<Item, String>,
}

impl TimelinePane {
    /// Drops the filter and `H` (hook activity only), so a jump to any
    /// call or line of the session lands on a row that is shown.
    pub fn show_every_row(&mut self) {
        self.filter.clear();
        self.hooks_only = false;
    }

    /// Forgets the previous session (a new one is being opened).
    pub fn reset(&mut self) {
        *self = TimelinePane {
            area: self.area,
            ..TimelinePane::default()
        };
    }

    /// A session finished loading: its first row is selected.
    pub fn loaded(&mut self, ctx: &Ctx) {
        self.sel = self.rows(ctx).first().map(|r| r.item);
        self.offset = 0;
        self.follow(ctx);
    }

    /// The open session was loaded again because its files grew
    /// ([`hookscope_core::transcript::follow`]): the selection and the offset
    /// stay where they were (rows only grow at the end of their thread);
    /// a selection that is gone falls back to the first row.
    pub fn refreshed(&mut self, ctx: &Ctx) {
        let rows = self.rows(ctx);
        if self.sel.is_some_and(|s| rows.iter().any(|r| r.item == s)) {
            self.follow(ctx);
        } else {
            self.loaded(ctx);
        }
    }

    /// Lays the pane out in `area` (the offset follows).
    pub fn set_area(&mut self, area: Rect, ctx: &Ctx) {
        self.area = area;
        self.follow(ctx);
    }

    /// Every row of the opened session (expansion applied, filter not
    /// applied).
    pub fn all_rows(&self, ctx: &Ctx) -> Vec<TimelineRow> {
        self.rows_with(ctx, false)
    }

    /// Every row with every Task/Agent call expanded (what the filter
    /// searches, so it finds calls inside collapsed subagents).
    pub fn every_row(&self, ctx: &Ctx) -> Vec<TimelineRow> {
        self.rows_with(ctx, true)
    }

    /// The visible rows: the expanded tree, or with a filter the matching
    /// rows of the fully expanded tree (subagent calls included, collapsed
    /// or not).
    pub fn rows(&self, ctx: &Ctx) -> Vec<TimelineRow> {
        if self.filter.is_empty() && !self.hooks_only {
            return self.all_rows(ctx);
        }
        let rows = self.every_row(ctx);
        let (Some(session), Some(tree)) = (ctx.session(), ctx.spawns()) else {
            return rows;
        };
        let needle = self.filter.to_lowercase();
        let mut cache = self.texts.borrow_mut();
        if !std::ptr::eq(cache.session.as_ptr(), std::sync::Arc::as_ptr(session)) {
            *cache = RowTexts {
                session: std::sync::Arc::downgrade(session),
                texts: HashMap::new(),
            };
        }
        rows.into_iter()
            .filter(|r| {
                !self.hooks_only || hook_acted(session, r.item) || ruled(session, ctx, r.item)
            })
            .filter(|r| {
                needle.is_empty()
                    || cache
                        .texts
                        .entry(r.item)
                        .or_insert_with(|| row_text(session, tree, r.item).to_lowercase())
                        .contains(&needle)
            })
            .collect()
    }

    fn rows_with(&self, ctx: &Ctx, expand_all: bool) -> Vec<TimelineRow> {
        let (Some(session), Some(tree)) = (ctx.session(), ctx.spawns()) else {
            return Vec::new();
        };
        layout(session, tree, &|item| {
            expand_all || self.expanded.contains(&item)
        })
    }

    /// The selected row's tool call, if it is one.
    pub fn selected_call<'a>(&self, ctx: &'a Ctx) -> Option<&'a ToolCallRecord> {
        event_of(ctx.session()?, self.sel?)?.as_tool_call()
    }

    /// The subagent the selected row expands to: an unlinked row's, or a
    /// call's when the spawn walk enters it there (not a second record
    /// naming it, nor a spawn back into a thread above).
    fn selected_subagent(&self, ctx: &Ctx) -> Option<usize> {
        let sel = self.sel?;
        self.every_row(ctx)
            .into_iter()
            .find(|r| r.item == sel)
            .and_then(|r| r.expands)
    }

    /// Selects call `tool_use_id`, expanding the spawns above it; `false`
    /// when the session has no such call.
    pub fn select_call(&mut self, tool_use_id: &str, ctx: &Ctx) -> bool {
        let (Some(session), Some(tree)) = (ctx.session(), ctx.spawns()) else {
            return false;
        };
        let Some((item, spawns)) = locate(session, tree, tool_use_id) else {
            return false;
        };
        self.filter.clear();
        self.expanded.extend(spawns);
        self.sel = Some(item);
        self.follow(ctx);
        true
    }

    /// Selects the main-thread event at 1-based line `line` of the session
    /// file, else the last one before it (a backtest block on a Stop: the
    /// assistant text it follows), else the turn that line is in; `false`
    /// when no session is open or it has no turns. Only events that have a
    /// row count (a hook firing's second note has none: its `⚑` row is at
    /// its first).
    pub fn select_line(&mut self, line: usize, ctx: &Ctx) -> bool {
        let Some(session) = ctx.session() else {
            return false;
        };
        let rows: HashSet<Item> = self.all_rows(ctx).iter().map(|r| r.item).collect();
        // The turn's row stands at its prompt line: an event before the
        // prompt in the same turn (a SessionStart hook's row) does not take
        // a jump to the prompt, and one at the prompt's own line neither.
        let mut best: Option<(usize, Item)> = None;
        for (t, turn) in session.turns.iter().enumerate() {
            match turn.prompt_line {
                Some(p) if p <= line => best = Some((p, Item::Turn(t))),
                _ if best.is_none() => best = Some((0, Item::Turn(t))),
                _ => {}
            }
            for (i, e) in turn.events.iter().enumerate() {
                let l = e.line();
                let item = Item::Event {
                    thread: Thread::Main,
                    turn: t,
                    event: i,
                };
                let later =
                    |(b, at): &(usize, Item)| l > *b || (l == *b && !matches!(at, Item::Turn(_)));
                if l <= line && best.as_ref().is_none_or(later) && rows.contains(&item) {
                    best = Some((l, item));
                }
            }
        }
        let Some((_, item)) = best else {
            return false;
        };
        self.filter.clear();
        self.sel = Some(item);
        self.follow(ctx);
        true
    }

    /// The main-thread turn the selection is in: a subagent's call is in
    /// the turn of the outermost spawn on its [`SpawnTree::path_to`];
    /// `None` for a subagent the main thread does not reach.
    pub fn main_turn(&self, ctx: &Ctx) -> Option<usize> {
        match self.sel? {
            Item::Turn(t)
            | Item::Event {
                thread: Thread::Main,
                turn: t,
                ..
            } => Some(t),
            Item::Event {
                thread: Thread::Sub(s),
                ..
            } => ctx.spawns()?.path_to(Some(s))?.first().map(|at| at.turn),
            Item::Unlinked(_) => None,
        }
    }

    /// Expands the Task/Agent calls above the selected row, so it stays
    /// selected once a filter that found it inside a subagent is cleared.
    fn reveal_selection(&mut self, ctx: &Ctx) {
        let Some(item) = self.sel else {
            return;
        };
        let rows = self.every_row(ctx);
        if let Some(pos) = rows.iter().position(|r| r.item == item) {
            self.expanded.extend(ancestors(&rows, pos));
        }
    }

    fn after_filter_change(&mut self, ctx: &Ctx) {
        if self.filter.is_empty() && !self.hooks_only {
            self.reveal_selection(ctx);
        }
        let visible = self.rows(ctx);
        if self
            .sel
            .is_none_or(|s| !visible.iter().any(|r| r.item == s))
        {
            self.sel = visible.first().map(|r| r.item);
        }
        self.offset = 0;
        self.follow(ctx);
    }

    /// Recomputes the visible rows (kept for drawing) and keeps the
    /// selection in view.
    fn follow(&mut self, ctx: &Ctx) {
        let rows = self.rows(ctx);
        let selected = self.sel.and_then(|s| rows.iter().position(|r| r.item == s));
        self.offset = follow(
            self.offset,
            selected,
            &vec![1; rows.len()],
            usize::from(self.area.height.saturating_sub(2)),
        );
        self.shown = rows;
    }

    fn enter(&mut self, ctx: &mut Ctx) {
        let Some(item) = self.sel else {
            return;
        };
        if self.selected_subagent(ctx).is_some() {
            if self.expanded.insert(item) {
                return;
            }
            // Already expanded: step onto its first child.
            let rows = self.rows(ctx);
            if let Some(child) = rows.iter().find(|r| r.parent == Some(item)) {
                self.sel = Some(child.item);
            }
            return;
        }
        ctx.emit(Effect::Focus(Pane::Detail));
    }

    fn back(&mut self, ctx: &mut Ctx) {
        if !self.filter.is_empty() {
            self.filter.clear();
            self.after_filter_change(ctx);
            return;
        }
        let Some(item) = self.sel else {
            ctx.emit(Effect::Focus(Pane::Sessions));
            return;
        };
        if self.expanded.remove(&item) {
            return;
        }
        let parent = self
            .rows(ctx)
            .iter()
            .find(|r| r.item == item)
            .and_then(|r| r.parent);
        match parent {
            Some(p) => self.sel = Some(p),
            None => ctx.emit(Effect::Focus(Pane::Sessions)),
        }
    }
}

impl Component for TimelinePane {
    fn event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        if self.searching {
            if type_into(&mut self.filter, &mut self.searching, action) {
                self.after_filter_change(ctx);
            }
            return EventState::Consumed;
        }
        if let Some(delta) = delta_of(action, inner_rows(self.area)) {
            let visible: Vec<Item> = self.rows(ctx).iter().map(|r| r.item).collect();
            self.sel = moved(&visible, self.sel, delta);
            self.follow(ctx);
            return EventState::Consumed;
        }
        match action {
            Action::Enter => self.enter(ctx),
            Action::Back => self.back(ctx),
            Action::ToggleExpand => {
                if self.selected_subagent(ctx).is_some()
                    && let Some(item) = self.sel
                    && !self.expanded.remove(&item)
                {
                    self.expanded.insert(item);
                }
            }
            Action::StartSearch => {
                self.searching = true;
                self.filter.clear();
            }
            Action::HookActivity => {
                self.hooks_only = !self.hooks_only;
                ctx.say(if self.hooks_only {
                    "hook activity only (H again: every row)"
                } else {
                    "every row"
                });
                self.after_filter_change(ctx);
            }
            Action::SearchNext | Action::SearchPrev => {
                if self.filter.is_empty() {
                    ctx.say("no search: / filters the timeline");
                } else {
                    // The list is filtered to the matches: n/N walk them.
                    let visible: Vec<Item> = self.rows(ctx).iter().map(|r| r.item).collect();
                    self.sel = wrapped(&visible, self.sel, action == Action::SearchNext);
                }
            }
            _ => return EventState::NotConsumed,
        }
        self.follow(ctx);
        EventState::Consumed
    }

    fn commands(&self, ctx: &Ctx, out: &mut Vec<Command>, force_all: bool) {
        let spawns = self.selected_subagent(ctx).is_some();
        if force_all {
            // The help lists Enter once, with both of its meanings.
            out.push(Command::new(
                Action::Enter,
                "detail",
                "detail; expands Task/Agent calls (again: into them)",
            ));
        } else if spawns {
            out.push(Command::new(
                Action::Enter,
                "expand",
                "expand a Task/Agent call (again: onto its first call)",
            ));
        } else {
            out.push(Command::new(Action::Enter, "detail", "show the detail"));
        }
        if force_all || spawns {
            out.push(Command::new(
                Action::ToggleExpand,
                "fold",
                "expand/collapse a Task/Agent call's subagent",
            ));
        }
        out.push(Command::new(
            Action::Back,
            "back",
            "clear the filter, collapse, parent row, or the list",
        ));
        out.push(Command::new(
            Action::StartSearch,
            "filter",
            "filter rows (finds calls inside collapsed subagents)",
        ));
        out.push(Command::new(
            Action::HookActivity,
            "hooks",
            "only rows where a hook acted: blocked, rewrote, failed…",
        ));
        if force_all || !self.filter.is_empty() {
            out.push(Command::new(Action::SearchNext, "next", "next match"));
            out.push(Command::new(Action::SearchPrev, "prev", "previous match"));
        }
        if force_all || self.selected_call(ctx).is_some() {
            out.push(Command::new(
                Action::SameTool,
                "tool",
                "Calls view: calls of this tool",
            ));
            out.push(Command::new(
                Action::SameFile,
                "file",
                "Calls view: calls mentioning this file",
            ));
            out.push(Command::new(
                Action::ErrorsOnly,
                "errors",
                "Calls view: failed calls of this tool",
            ));
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx, focused: bool) {
        let theme = &ctx.theme;
        let mut title = " Timeline ".to_string();
        let hooks = if self.hooks_only {
            "hook activity "
        } else {
            ""
        };
        if !self.filter.is_empty() || (self.searching && focused) {
            title = format!(" Timeline {hooks}/{} ", self.filter);
        } else if self.hooks_only {
            title = " Timeline · hook activity only ".to_string();
        } else if let Some(entry) = ctx.open.as_ref().and_then(|o| ctx.sessions.get(o.index)) {
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
        let Some(open) = &ctx.open else {
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
            OpenState::Ready(s, tree) => (s, tree),
        };
        let (session, tree) = session;
        let rows = &self.shown;
        if rows.is_empty() {
            let text = if self.hooks_only && self.filter.is_empty() {
                "(no hook acted in this session)"
            } else if self.filter.is_empty() {
                "(no turns)"
            } else {
                "(no match)"
            };
            frame.render_widget(message(text, theme.dim()), area);
            return;
        }
        // Only the rows on screen are built (a session of 43k calls has
        // 43k+ rows): the window ratatui's `List` would show from
        // `self.offset` with the selection kept in view (rows are one line
        // high), passed to it from its first row.
        let selected = self.sel.and_then(|s| rows.iter().position(|r| r.item == s));
        let height = usize::from(area.height.saturating_sub(2));
        let (first, end) = window(rows.len(), self.offset, selected, height);
        // A row's width on screen: inside the borders.
        let room = usize::from(area.width.saturating_sub(2));
        // Hook marks are signs alone on every row when one row that has
        // them would not fit whole: one screen never mixes the two.
        // The compact lines are built only when a line does not fit (a row
        // without hook marks is the same either way).
        let line = |r: &TimelineRow, compact: bool| {
            row_line(session, tree, r, &self.expanded, ctx, compact, room)
        };
        let full: Vec<Line> = rows[first..end].iter().map(|r| line(r, false)).collect();
        let compact: Option<Vec<Line>> = full
            .iter()
            .any(|f| f.width() > room)
            .then(|| rows[first..end].iter().map(|r| line(r, true)).collect())
            .filter(|compact: &Vec<Line>| {
                full.iter()
                    .zip(compact)
                    .any(|(f, c)| f.width() > room && f != c)
            });
        let items: Vec<ListItem> = compact
            .unwrap_or(full)
            .into_iter()
            .map(|l| ListItem::new(crate::tui::widgets::text::cut_line(l, room)))
            .collect();
        let mut state = ListState::default()
            .with_offset(0)
            .with_selected(selected.map(|s| s - first));
        // Where the window is, on the bottom border, as Detail says it.
        let block = crate::tui::widgets::text::with_position(block, first, height, rows.len());
        let list = List::new(items)
            .block(block)
            .highlight_style(theme.selected(focused));
        frame.render_stateful_widget(list, area, &mut state);
    }
}

/// The rows `first..end` of `len` one-line rows that a list `height` rows
/// high shows from `offset` with row `selected` kept in view (as ratatui's
/// `List` scrolls: the least that brings the selection in).
pub fn window(len: usize, offset: usize, selected: Option<usize>, height: usize) -> (usize, usize) {
    if len == 0 {
        return (0, 0);
    }
    let height = height.max(1);
    // The last page ends at the last row: after the pane grows (a resize),
    // rows scrolled off the top come back instead of empty lines below.
    let mut first = offset.min(len.saturating_sub(height));
    if let Some(sel) = selected.map(|s| s.min(len - 1)) {
        if sel < first {
            first = sel;
        } else if sel >= first + height {
            first = sel + 1 - height;
        }
    }
    (first, (first + height).min(len))
}

/// An API error's timeline text: `API error: <text>`, the prefix left out
/// when the recorded text already starts with it (Claude Code's own
/// `API Error: …` messages).
pub fn api_error_line(text: &str) -> String {
    let line = one_line(text, 300);
    let has_prefix = line
        .get(..9)
        .is_some_and(|p| p.eq_ignore_ascii_case("api error"));
    if has_prefix {
        line
    } else {
        format!("API error: {line}")
    }
}
