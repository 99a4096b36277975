//! The Calls view (`c`): every tool call across the loaded sessions and
//! their subagents, filtered by a `find_tool_calls` filter line
//! (`hookscope_core::query::filter_line`), newest first, with the selected
//! record on the side. Results come from the same query as `hookscope find`
//! and the MCP tool, run on a worker thread as the line changes; Enter opens
//! the call in its session's timeline. [`CallsView`] owns the filter
//! line, the answer, the selection, the record pane's scroll and Tab's
//! candidates popup.

use chrono::{DateTime, FixedOffset, Utc};
use hookscope_core::query::{FindResult, FoundCall, Query, filter_line};
use hookscope_core::tools::file_path_of;
use hookscope_core::transcript::ToolCallRecord;
use hookscope_core::transcript::hook_activity::HookAction;
use hookscope_core::transcript::short_id::ShortIds;
use hookscope_core::transcript::text::one_line;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, List, ListItem, ListState, Paragraph};

use super::action::Action;
use super::component::{Command, Component, EventState, delta_of, follow, inner_rows};
use super::context::{Ctx, Effect, Request};
use super::keymap;
use super::theme::Theme;
use super::widgets::json;
use super::widgets::text::{field, heading, text_lines, with_position, wrap};
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
    /// Whether [`CallsView::result`] is the first page of an answer still
    /// coming ([`super::worker::Msg::FoundFirst`]).
    pub partial: bool,
    /// Bumped on every change of the line; answers to older lines are
    /// dropped.
    pub generation: u64,
    /// The generation [`CallsView::result`] answers (older than
    /// `generation` while a newer line runs or does not parse).
    pub answered: u64,
    /// Every match of a cut answer and the generation it counts
    /// ([`CallsView::counted`]); shown only with that generation's answer.
    pub total: Option<(u64, usize)>,
    /// The sessions a query searched and the sessions in all, with its
    /// generation ([`super::worker::Msg::Scope`]): fewer while the index
    /// is first built; shown only with that generation's answer.
    pub scope: Option<(u64, usize, usize)>,
    /// Selected record (index into `result.records`).
    pub sel: usize,
    /// First visible list row (follows the selection).
    pub offset: usize,
    /// Candidates offered by the last ambiguous Tab.
    pub completions: Vec<String>,
    /// Where the candidates replace the line (byte offset).
    pub completion_start: usize,
    /// The highlighted candidate while the popup is open (`None`: closed).
    pub completion_sel: Option<usize>,
    /// Whether the record pane (not the list) has the keys.
    pub focus_detail: bool,
    /// First visible line of the record pane.
    pub detail_scroll: usize,
    /// A `tool_use_id` to select when the next answer arrives (quick
    /// filters keep the call you were on).
    pub select_on_answer: Option<String>,
    /// Whether the last query asked waits for typing to pause (the
    /// shell's `debounce`): Enter or Esc on the line asks it at once.
    held: bool,
    /// The line of the last query asked, and of the answer shown: an
    /// answer to the line shown asked again keeps the selected call.
    asked_line: String,
    answered_line: String,
    /// The area between banner and status bar it was last laid out in.
    main: Rect,
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
    // `ruled:` reads the decision log: the query thread does, not the UI.
    params
        .validate_or_all_tools_deferred(now)
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

/// The session cell of a list row: the id's short form among the
/// discovered sessions ([`ShortIds`]: a UUID's shortest unique prefix, a
/// long other id cut to 12 chars when that stays unique), at most 36 chars.
pub fn session_cell<'a>(id: &'a str, short: &'a ShortIds) -> &'a str {
    let cell = short.get(id);
    match cell.char_indices().nth(36) {
        Some((end, _)) => &cell[..end],
        None => cell,
    }
}

/// A row's time: `2026-12-01 20:57` from 100 columns, `12-01 20:57` below,
/// or `undated` padded to the same width (so the columns after it line up).
fn time_cell(
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    width: u16,
    utc_offset: FixedOffset,
) -> String {
    let (format, chars) = if width >= 100 {
        ("%Y-%m-%d %H:%M", 16)
    } else {
        ("%m-%d %H:%M", 11)
    };
    match timestamp {
        Some(t) => super::fmt_time(t, utc_offset, format),
        None => format!("{:<chars$}", "undated"),
    }
}

/// One list row: time, session (its [`session_cell`], padded to
/// `session_width` chars), kind, name, error mark, resolved name, summary;
/// `↳` marks a subagent's call.
fn row(
    record: &FoundCall,
    width: u16,
    (short, session_width): (&ShortIds, usize),
    theme: &Theme,
    utc_offset: FixedOffset,
) -> ListItem<'static> {
    let time = time_cell(record.timestamp, width, utc_offset);
    let session = session_cell(&record.session, short);
    let mut spans = vec![
        Span::styled(format!("{time} {session:<session_width$} "), theme.dim()),
        Span::styled(format!("{:<5} ", record.tool_kind.as_str()), theme.kind()),
    ];
    if record.origin.is_some() {
        spans.push(Span::styled("↳", theme.dim()));
    }
    spans.push(Span::styled(record.tool_name.clone(), theme.tool()));
    match record.is_error {
        Some(true) => spans.push(Span::styled(" ✗", theme.error())),
        // As the Timeline says it of such a call (a killed process left it).
        None => spans.push(Span::styled(" (no result)", theme.dim())),
        Some(false) => {}
    }
    // With `ruled:`/`is:ruled`, the newest decision the filter kept, as the
    // Timeline marks it (a verdict is a word; anything else reads `?`).
    if let Some(verdict) = record
        .decided
        .last()
        .and_then(|d| d.get("verdict"))
        .and_then(serde_json::Value::as_str)
        .filter(|v| *v != "none")
    {
        let style = if matches!(verdict, "block" | "error") {
            theme.error()
        } else {
            theme.kind()
        };
        let shown = if verdict.chars().all(|c| c.is_ascii_alphabetic()) {
            verdict
        } else {
            "?"
        };
        spans.push(Span::styled(format!(" § {shown}"), style));
    }
    for (action, mark) in hook_marks(record) {
        let style = if matches!(action, "blocked" | "failed" | "cancelled") {
            theme.error()
        } else {
            theme.kind()
        };
        spans.push(Span::styled(format!(" {mark}"), style));
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
    // Inside the borders; a row cut there says so.
    let room = usize::from(width.saturating_sub(2));
    let (summary, rewritten) = record.summary_parts();
    // As `find`'s INPUT column: the input itself when no summary applies.
    let summary = if summary.is_empty() && rewritten.is_none() {
        hookscope_core::transcript::text::one_line(&record.input_text(), 200)
    } else {
        summary
    };
    crate::tui::widgets::text::push_summary(&mut spans, &summary, rewritten.as_deref(), room);
    ListItem::new(crate::tui::widgets::text::cut_line(Line::from(spans), room))
}

/// The marks of a record's hook activity (its `hook_activity[].action`
/// and `decision`), as the Timeline draws them on a call
/// ([`HookAction::mark`]); `(action, mark)`.
fn hook_marks(record: &FoundCall) -> Vec<(&str, String)> {
    record
        .hook_activity
        .iter()
        .filter_map(|h| {
            let name = h.get("action").and_then(serde_json::Value::as_str)?;
            let decision = h.get("decision").and_then(serde_json::Value::as_str);
            let mark = HookAction::from_name(name)?.mark(decision);
            (!mark.is_empty()).then_some((name, mark))
        })
        .collect()
}

/// The record pane's lines (not wrapped): the record's fields as
/// `find_tool_calls` emits them (masked, output cut per `output_mode`).
pub fn record_lines(ctx: &Ctx, record: &FoundCall) -> Vec<Line<'static>> {
    let theme = &ctx.theme;
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
            super::fmt_time(t, ctx.utc_offset, "%Y-%m-%d %H:%M:%S"),
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
    if !record.decided.is_empty() {
        out.push(heading("decided", theme));
        out.extend(json::lines(
            &serde_json::Value::Array(record.decided.clone()),
            theme,
        ));
    }
    if !record.hook_activity.is_empty() {
        out.push(heading("hook_activity", theme));
        out.extend(json::lines(
            &serde_json::Value::Array(record.hook_activity.clone()),
            theme,
        ));
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
            out.extend(text_lines(text, style));
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

/// The sessions the shown answer searched and the sessions in all, when
/// it searched only part of them (the index's first build running:
/// [`CallsView::scope`]).
fn searched_part(view: &CallsView) -> Option<(usize, usize)> {
    view.scope
        .filter(|&(generation, searched, total)| generation == view.answered && searched < total)
        .map(|(_, searched, total)| (searched, total))
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
    let mut text = if view.partial && view.running {
        format!("the newest {} so far", plural(result.records.len(), "call"))
    } else if !result.matched_exact {
        match view.total {
            Some((generation, total)) if generation == view.answered => format!(
                "showing the newest {} of {} (limit:N)",
                result.records.len(),
                plural(total, "call")
            ),
            _ => format!(
                "showing the newest {}; more match (limit:N)",
                plural(result.records.len(), "call")
            ),
        }
    } else if result.matched > result.records.len() {
        format!(
            "showing {} of {}",
            result.records.len(),
            plural(result.matched, "call")
        )
    } else {
        plural(result.matched, "call")
    };
    // Which `session:` matched nothing is about the line it answers: once
    // the line changes, it goes (the records stay until the new answer).
    if !result.unmatched_sessions.is_empty() && view.answered == view.generation {
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
    // While the index is first built: the sessions it holds so far.
    if let Some((searched, total)) = searched_part(view) {
        text.push_str(&format!(
            " · in {} of {} sessions, the rest indexing",
            crate::words::thousands(searched),
            crate::words::thousands(total)
        ));
    }
    if view.running {
        text.push_str(" · searching…");
    }
    text
}

/// The filter line of a quick filter from a timeline call: `tool:NAME`,
/// `tool:NAME is:error`, or `input:PATH`.
///
/// # Errors
/// The status-bar message when the call has no file path (`SameFile`).
pub fn quick_line(action: Action, record: &ToolCallRecord) -> Result<String, String> {
    let tool = format!("tool:{}", filter_line::quote(record.name()));
    match action {
        Action::SameTool => Ok(tool),
        Action::ErrorsOnly => Ok(format!("{tool} is:error")),
        _ => match file_path_of(&record.call) {
            Some(path) => Ok(format!("input:{}", filter_line::quote(path))),
            None => Err(format!("this {} call has no file path", record.name())),
        },
    }
}

impl CallsView {
    /// The view's areas in the main area it was last laid out in.
    pub fn areas(&self) -> CallsAreas {
        areas(self.main)
    }

    /// Lays the view out in `main` (the list offset follows).
    pub fn set_area(&mut self, main: Rect) {
        self.main = main;
        self.follow();
    }

    /// Whether Tab's candidates popup is open.
    pub fn completing(&self) -> bool {
        self.completion_sel.is_some() && !self.completions.is_empty()
    }

    /// The record pane's lines wrapped to `width` (empty without a
    /// selection).
    pub fn wrapped_record_lines(&self, ctx: &Ctx, width: u16) -> Vec<Line<'static>> {
        match self.selected() {
            Some(record) => wrap(record_lines(ctx, record), usize::from(width.max(1))),
            None => Vec::new(),
        }
    }

    /// Opens the view: `line` replaces the filter line (a quick filter;
    /// `select` is kept selected in the answer), else the line is kept.
    /// Either way the keys go to the filter line when it is empty or kept,
    /// so typing `tool:Edit` types it.
    pub fn open(&mut self, line: Option<String>, select: Option<String>, ctx: &mut Ctx) {
        self.focus_detail = false;
        // `ruled:` completes the rule ids the log names now.
        ctx.requests.push(Request::RuleIds);
        self.close_completions();
        if select.is_some() {
            self.select_on_answer = select;
        }
        match line {
            Some(line) => {
                self.filter = line;
                self.editing = false;
                self.sel = 0;
                self.offset = 0;
                self.rerun(ctx);
            }
            None => {
                self.editing = true;
                if self.result.is_none() && !self.running {
                    self.rerun(ctx);
                }
            }
        }
    }

    /// Folds in the answer to query `generation` (older ones are dropped).
    pub fn found(&mut self, generation: u64, result: Result<FindResult, String>) {
        if generation != self.generation {
            return; // an answer to a line since edited
        }
        self.running = false;
        self.partial = false;
        self.show(generation, result, true);
    }

    /// Every match of the answer to `generation`, counted after the limit
    /// cut it ([`super::worker::Msg::Counted`]); dropped for another line.
    pub fn counted(&mut self, generation: u64, total: usize) {
        if generation == self.answered {
            self.total = Some((generation, total));
        }
    }

    /// How many sessions the query `generation` searches of how many
    /// ([`super::worker::Msg::Scope`]); dropped for another line.
    pub fn scope(&mut self, generation: u64, searched: usize, total: usize) {
        if generation == self.generation {
            self.scope = Some((generation, searched, total));
        }
    }

    /// The first page of the answer to `generation` while the rest is
    /// still searched: shown as an answer (the selection and scroll stay
    /// when the whole answer replaces it: it begins with these records),
    /// the count says more is coming.
    pub fn found_first(&mut self, generation: u64, result: Result<FindResult, String>) {
        if generation != self.generation || !self.running {
            return;
        }
        self.partial = true;
        self.show(generation, result, false);
    }

    /// Shows an answer (`whole`) or a first page of `generation`.
    fn show(&mut self, generation: u64, result: Result<FindResult, String>, whole: bool) {
        match result {
            Ok(found) => {
                self.error = None;
                // The line asked again (Enter, or the start when indexing
                // ends): the selection stays on its call, wherever it is
                // now.
                let same_line = self.result.is_some() && self.answered_line == self.asked_line;
                let kept = self
                    .selected()
                    .filter(|_| same_line)
                    .map(|r| (r.session.clone(), r.tool_use_id.clone()))
                    .and_then(|(session, id)| {
                        found
                            .records
                            .iter()
                            .position(|r| r.tool_use_id == id && r.session == session)
                    });
                let wanted = self
                    .select_on_answer
                    .as_ref()
                    .and_then(|id| found.records.iter().position(|r| r.tool_use_id == *id))
                    .or(kept);
                // The call to select may be past the first page.
                if wanted.is_some() || whole {
                    self.select_on_answer = None;
                }
                let sel = wanted.unwrap_or(self.sel);
                self.sel = sel.min(found.records.len().saturating_sub(1));
                // The whole answer after its first page: the record pane
                // stays where the user scrolled it.
                if self.answered != generation {
                    self.detail_scroll = 0;
                }
                self.result = Some(found);
                self.answered = generation;
                self.answered_line.clone_from(&self.asked_line);
                self.follow();
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Validates the line and queues its query (or shows why it is not one).
    fn rerun(&mut self, ctx: &mut Ctx) {
        self.ask(ctx, false);
    }

    /// [`CallsView::rerun`]; with `settle`, the query is asked once typing
    /// pauses (the shell's `debounce`).
    fn ask(&mut self, ctx: &mut Ctx, settle: bool) {
        self.held = settle;
        self.generation += 1;
        self.partial = false;
        self.asked_line.clone_from(&self.filter);
        match prepare(&self.filter, Utc::now()) {
            Ok(query) => {
                self.error = None;
                self.running = true;
                ctx.requests.push(Request::Find {
                    generation: self.generation,
                    query,
                    settle,
                });
            }
            Err(e) => {
                self.error = Some(e);
                self.running = false;
            }
        }
    }

    /// Tab in the candidates list when the line's word is one of them in
    /// full (`tool:Bash` among `Bash`, `BashOutput`): takes it, closes the
    /// list and runs the line; false (nothing done) otherwise.
    fn take_exact(&mut self, ctx: &mut Ctx) -> bool {
        let typed = self.filter.get(self.completion_start..).unwrap_or("");
        let Some(exact) = self
            .completions
            .iter()
            .find(|c| c.trim_end().eq_ignore_ascii_case(typed))
            .cloned()
        else {
            return false;
        };
        let head = self.filter.get(..self.completion_start).unwrap_or("");
        self.filter = format!("{head}{exact}");
        self.close_completions();
        self.sel = 0;
        self.offset = 0;
        self.rerun(ctx);
        true
    }

    fn close_completions(&mut self) {
        self.completions.clear();
        self.completion_sel = None;
    }

    fn follow(&mut self) {
        let len = self.records().len();
        self.offset = follow(
            self.offset,
            (len > 0).then(|| self.sel.min(len - 1)),
            &vec![1; len],
            usize::from(self.areas().list.height.saturating_sub(2)),
        );
    }

    /// Keys of Tab's candidates popup: move, take, close; anything else
    /// closes it and goes to the line.
    fn completion_event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        let n = self.completions.len();
        let sel = self.completion_sel.unwrap_or(0);
        match action {
            Action::Complete if self.take_exact(ctx) => {}
            Action::Down | Action::Complete => self.completion_sel = Some((sel + 1) % n.max(1)),
            Action::Up => self.completion_sel = Some((sel + n.max(1) - 1) % n.max(1)),
            Action::Enter => {
                if let Some(c) = self.completions.get(sel) {
                    let head = self.filter.get(..self.completion_start).unwrap_or("");
                    self.filter = format!("{head}{c}");
                    self.close_completions();
                    self.sel = 0;
                    self.offset = 0;
                    self.rerun(ctx);
                }
            }
            Action::Back => self.close_completions(),
            _ => {
                self.completion_sel = None;
                return self.filter_event(action, ctx);
            }
        }
        EventState::Consumed
    }

    /// Keys of the filter line.
    fn filter_event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        let before = self.filter.clone();
        match action {
            Action::SearchInput(c) => self.filter.push(c),
            Action::SearchBackspace => {
                self.filter.pop();
            }
            Action::ClearLine => self.filter.clear(),
            Action::Complete => {
                let sessions: Vec<String> =
                    ctx.sessions.iter().map(|e| e.sref.id.clone()).collect();
                let names: Vec<String> = ctx.tool_names.iter().cloned().collect();
                let completion =
                    filter_line::complete(&self.filter, &names, &sessions, &ctx.rule_ids);
                // A name typed in full is taken even when longer ones fit.
                let typed = self.filter.get(completion.start..).unwrap_or("");
                if let Some(exact) = completion
                    .candidates
                    .iter()
                    .find(|c| c.trim_end().eq_ignore_ascii_case(typed))
                {
                    let head = self.filter.get(..completion.start).unwrap_or("");
                    self.filter = format!("{head}{exact}");
                } else {
                    self.filter = completion.apply(&self.filter);
                }
                // A finished word (it ends in a space) needs no list.
                if completion.candidates.len() > 1 && !self.filter.ends_with(' ') {
                    self.completions = completion.candidates;
                    self.completion_start = completion.start;
                    self.completion_sel = Some(0);
                } else {
                    self.close_completions();
                }
            }
            Action::SearchConfirm | Action::SearchCancel => {
                self.editing = false;
                self.close_completions();
                if self.held {
                    // Leaving the line: its query need not wait any more.
                    self.rerun(ctx);
                }
                return EventState::Consumed;
            }
            Action::ForceQuit => return EventState::NotConsumed,
            _ => return EventState::Consumed,
        }
        if action != Action::Complete {
            self.close_completions();
        }
        if self.filter != before {
            self.sel = 0;
            self.offset = 0;
            // Mid-word keys wait for a pause; a finished word, an empty
            // line or a completion is asked at once.
            let typing = matches!(action, Action::SearchInput(_) | Action::SearchBackspace);
            let settle = typing && !self.filter.is_empty() && !self.filter.ends_with(' ');
            self.ask(ctx, settle);
        }
        EventState::Consumed
    }

    /// Quick filters inside the view: set `tool:` or `input:` from the
    /// selected record, or toggle `is:error`.
    fn quick_filter(&mut self, action: Action, ctx: &mut Ctx) {
        let keep = self.selected().map(|r| r.tool_use_id.clone());
        let line = &self.filter;
        let new = match action {
            Action::ErrorsOnly => {
                let errors_on = filter_line::parse(line).is_ok_and(|p| p.is_error == Some(true));
                filter_line::with_word(line, "is", (!errors_on).then_some("error"))
            }
            _ => {
                let Some(record) = self.selected() else {
                    ctx.say("no call selected");
                    return;
                };
                if action == Action::SameTool {
                    filter_line::with_word(line, "tool", Some(&record.tool_name))
                } else {
                    match &record.file_path {
                        Some(p) => filter_line::with_word(line, "input", Some(p)),
                        None => {
                            ctx.say(format!("this {} call has no file path", record.tool_name));
                            return;
                        }
                    }
                }
            }
        };
        // Keep your place: the call you were on is selected in the answer.
        self.open(Some(new), keep, ctx);
    }

    /// Enter: open the record's session in the timeline and select the call.
    fn jump(&mut self, ctx: &mut Ctx) {
        let Some(record) = self.selected() else {
            return;
        };
        let index = ctx
            .sessions
            .iter()
            .position(|e| e.sref.id == record.session && e.sref.agent == record.agent);
        match index {
            Some(index) => ctx.emit(Effect::JumpToCall {
                index,
                tool_use_id: record.tool_use_id.clone(),
            }),
            None => ctx.say(format!("session {} is not in the list", record.session)),
        }
    }

    /// Moves the list selection, or scrolls the record pane when it has the
    /// keys, by `delta` rows (clamped).
    fn move_by(&mut self, delta: isize, ctx: &Ctx) {
        let len = self.records().len();
        if self.focus_detail {
            self.detail_scroll = self.detail_scroll.saturating_add_signed(delta);
            let a = self.areas();
            let lines = self
                .wrapped_record_lines(ctx, a.detail.width.saturating_sub(2))
                .len();
            let height = usize::from(a.detail.height.saturating_sub(2));
            self.detail_scroll = self.detail_scroll.min(lines.saturating_sub(height));
        } else if len > 0 {
            self.sel = self.sel.saturating_add_signed(delta).min(len - 1);
            self.detail_scroll = 0;
            self.follow();
        }
    }

    /// The hint line's text outside the filter line, from the commands.
    fn hint(&self, ctx: &Ctx) -> String {
        let mut commands = Vec::new();
        self.commands(ctx, &mut commands, false);
        let parts: Vec<String> = commands
            .iter()
            .filter_map(|c| Some(format!("{} {}", keymap::hint_key(c.action)?, c.name)))
            .collect();
        format!(" {}", parts.join(" · "))
    }
}

impl Component for CallsView {
    fn event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        if self.editing {
            if self.completing() {
                return self.completion_event(action, ctx);
            }
            return self.filter_event(action, ctx);
        }
        let page = inner_rows(if self.focus_detail {
            self.areas().detail
        } else {
            self.areas().list
        });
        let delta = match action {
            Action::SearchNext => Some(1),
            Action::SearchPrev => Some(-1),
            Action::ScrollAt { .. } => None,
            other => delta_of(other, page),
        };
        if let Some(d) = delta {
            self.move_by(d, ctx);
            return EventState::Consumed;
        }
        match action {
            Action::Enter => self.jump(ctx),
            Action::Back => {
                if self.focus_detail {
                    self.focus_detail = false;
                } else {
                    ctx.emit(Effect::CloseCalls);
                }
            }
            Action::OpenCalls => ctx.emit(Effect::CloseCalls),
            Action::StartSearch => {
                self.editing = true;
                self.focus_detail = false;
            }
            Action::FocusNext | Action::FocusPrev => self.focus_detail = !self.focus_detail,
            Action::SameTool | Action::SameFile | Action::ErrorsOnly => {
                self.quick_filter(action, ctx)
            }
            Action::ScrollAt { column, row, down } => {
                let a = self.areas();
                let pos = Position::new(column, row);
                let focus = self.focus_detail;
                if a.list.contains(pos) {
                    self.focus_detail = false;
                } else if a.detail.contains(pos) {
                    self.focus_detail = true;
                } else {
                    return EventState::Consumed;
                }
                self.move_by(if down { 3 } else { -3 }, ctx);
                self.focus_detail = focus;
            }
            Action::ClickAt { column, row } => {
                let a = self.areas();
                let pos = Position::new(column, row);
                if a.filter.contains(pos) {
                    self.editing = true;
                } else if a.list.contains(pos) {
                    self.focus_detail = false;
                    // Rows start under the border.
                    let first = usize::from(a.list.y) + 1;
                    let clicked = usize::from(row).checked_sub(first).map(|r| r + self.offset);
                    if let Some(r) = clicked.filter(|r| *r < self.records().len()) {
                        self.sel = r;
                        self.detail_scroll = 0;
                        self.follow();
                    }
                } else if a.detail.contains(pos) {
                    self.focus_detail = true;
                }
            }
            Action::ToggleExpand => {}
            _ => return EventState::NotConsumed,
        }
        EventState::Consumed
    }

    fn commands(&self, _ctx: &Ctx, out: &mut Vec<Command>, _force_all: bool) {
        out.push(Command::new(
            Action::Enter,
            "open",
            "open the call in its session's timeline",
        ));
        out.push(Command::new(
            Action::StartSearch,
            "edit",
            "edit the filter line (the view opens typing in it)",
        ));
        out.push(Command::new(
            Action::SameTool,
            "tool",
            "filter: the selected call's tool",
        ));
        out.push(Command::new(
            Action::SameFile,
            "file",
            "filter: the selected call's file",
        ));
        out.push(Command::new(
            Action::ErrorsOnly,
            "errors",
            "filter: toggle is:error",
        ));
        out.push(Command::new(
            Action::Back,
            "back",
            "record pane → list → the panes",
        ));
    }

    fn draw(&self, frame: &mut Frame, main: Rect, ctx: &Ctx, _focused: bool) {
        draw_view(self, frame, main, ctx);
        if self.completing() {
            draw_completions(self, frame, main, ctx);
        }
    }
}

/// Tab's candidates under the filter line, the highlighted one reversed,
/// scrolled to keep it in view (drawn inside `main`, above the status bar).
fn draw_completions(view: &CallsView, frame: &mut Frame, main: Rect, ctx: &Ctx) {
    let theme = &ctx.theme;
    let a = areas(main);
    let widest = view
        .completions
        .iter()
        .map(|c| unicode_width::UnicodeWidthStr::width(c.as_str()))
        .max()
        .unwrap_or(0);
    let typed = unicode_width::UnicodeWidthStr::width(
        view.filter.get(..view.completion_start).unwrap_or(""),
    );
    // Under the hint line, which keeps listing the candidates in a row.
    let top = a.hint.y + a.hint.height;
    let bottom = main.y + main.height;
    let height = u16::try_from(view.completions.len() + 2)
        .unwrap_or(u16::MAX)
        .min(bottom.saturating_sub(top));
    let title = format!(
        " {} — Tab/↓ ↑ Enter Esc ",
        plural(view.completions.len(), "candidate")
    );
    let width = u16::try_from(widest.max(title.chars().count()) + 2)
        .unwrap_or(u16::MAX)
        .min(main.width);
    let x = (a.filter.x + 3 + u16::try_from(typed).unwrap_or(0))
        .min((main.x + main.width).saturating_sub(width));
    let area = Rect::new(x, top, width, height);
    if area.height < 3 {
        return;
    }
    let sel = view.completion_sel.unwrap_or(0);
    let room = usize::from(area.height - 2);
    let offset = follow(0, Some(sel), &vec![1; view.completions.len()], room);
    let items: Vec<ListItem> = view
        .completions
        .iter()
        .map(|c| ListItem::new(Line::from(c.trim_end().to_string())))
        .collect();
    let mut state = ListState::default()
        .with_offset(offset)
        .with_selected(Some(sel));
    let block = Block::bordered()
        .title(Span::styled(title, theme.heading()))
        .border_style(theme.border(true));
    let block = with_position(block, offset, room, view.completions.len());
    frame.render_widget(Clear, area);
    frame.render_stateful_widget(
        List::new(items)
            .block(block)
            .highlight_style(theme.selected(true)),
        area,
        &mut state,
    );
}

/// Draws the view into `main` (everything between banner and status bar).
fn draw_view(view: &CallsView, frame: &mut Frame, main: Rect, ctx: &Ctx) {
    let theme = &ctx.theme;
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
        Span::styled(view.hint(ctx), theme.dim())
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
    // While the line does not parse, the rows are those of the last line
    // that did: the title says so.
    let list_title = if view.error.is_some() && view.result.is_some() {
        " Calls · of the last valid filter "
    } else if searched_part(view).is_some() {
        " Calls · in the sessions indexed so far (Enter asks again) "
    } else {
        " Calls "
    };
    let list_block = Block::bordered()
        .title(Span::styled(list_title, theme.heading()))
        .border_style(theme.border(list_focused));
    let records = view.records();
    if records.is_empty() {
        let text = if view.result.is_none() && view.running {
            "searching…".to_string()
        } else if view.error.is_some() && view.result.is_none() {
            "fix the filter line".to_string()
        } else if let Some((searched, total)) = searched_part(view) {
            // Not "no calls match": most sessions are not searched yet.
            format!(
                "(none in the {} of {} sessions indexed so far; asked again every few seconds while indexing goes on and when it ends; Enter asks now)",
                crate::words::thousands(searched),
                crate::words::thousands(total)
            )
        } else {
            // `hook:Stop` and the like name firings that are never on a
            // call; `hook:PreToolUze` no event at all.
            use hookscope_core::query::params::{HookMiss, hook_miss};
            let hook = hookscope_core::query::filter_line::parse(&view.filter)
                .ok()
                .and_then(|p| p.hook);
            match hook.as_deref().and_then(|h| Some((h, hook_miss(h)?))) {
                Some((_, HookMiss::NotOnCalls(event))) => format!(
                    "(no calls match: {event} firings are not on tool calls; H in a session's Timeline shows them)"
                ),
                Some((name, HookMiss::NoEvent)) => format!(
                    "(no calls match: {} names no hook event; hook: takes {} or a hookName)",
                    hookscope_core::printable::printable(name),
                    hookscope_core::hooks::matcher::TOOL_EVENTS.join(", ")
                ),
                // `/` pressed out of habit when the view was typing
                // already: it is part of the first word.
                None if view.filter.trim_start().starts_with('/') => {
                    "(no calls match: a word starting with / is searched as text; the view types in the filter already, so leave out the /)".to_string()
                }
                None => "(no calls match)".to_string(),
            }
        };
        frame.render_widget(
            Paragraph::new(Span::styled(text, theme.dim()))
                .wrap(ratatui::widgets::Wrap { trim: false })
                .block(list_block),
            a.list,
        );
    } else {
        // One width for the session column: the longest prefix shown.
        let session_width = records
            .iter()
            .map(|r| session_cell(&r.session, &ctx.short_ids).chars().count())
            .max()
            .unwrap_or(0);
        let short = (&ctx.short_ids, session_width);
        let items: Vec<ListItem> = records
            .iter()
            .map(|r| row(r, a.list.width, short, theme, ctx.utc_offset))
            .collect();
        let mut state = ListState::default()
            .with_offset(view.offset)
            .with_selected(Some(view.sel.min(records.len() - 1)));
        let list = List::new(items)
            .block(list_block)
            .highlight_style(theme.selected(list_focused));
        frame.render_stateful_widget(list, a.list, &mut state);
    }

    let detail_focused = !view.editing && view.focus_detail;
    let lines = view.wrapped_record_lines(ctx, a.detail.width.saturating_sub(2));
    let height = usize::from(a.detail.height.saturating_sub(2));
    let scroll = view.detail_scroll.min(lines.len().saturating_sub(1));
    let block = Block::bordered()
        .title(Span::styled(" Record ", theme.heading()))
        .border_style(theme.border(detail_focused));
    let block = with_position(block, scroll, height, lines.len());
    let visible: Vec<Line> = lines.into_iter().skip(scroll).take(height).collect();
    frame.render_widget(Paragraph::new(visible).block(block), a.detail);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An undated call's time cell is as wide as a dated one's at both
    /// widths, so the session column starts at the same place.
    #[test]
    fn undated_rows_keep_the_columns_of_dated_ones() {
        let utc = FixedOffset::east_opt(0).expect("UTC");
        let t = chrono::DateTime::parse_from_rfc3339("2026-12-01T20:57:00Z")
            .expect("time")
            .with_timezone(&chrono::Utc);
        assert_eq!(time_cell(Some(t), 120, utc), "2026-12-01 20:57");
        assert_eq!(time_cell(None, 120, utc), "undated         ");
        assert_eq!(time_cell(Some(t), 80, utc), "12-01 20:57");
        assert_eq!(time_cell(None, 80, utc), "undated    ");
    }
}
