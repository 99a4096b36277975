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

mod call;
mod hooks;
mod session;
mod subagent;

use call::*;
use hooks::*;
use session::*;
use subagent::*;

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
            Some(event) => {
                // Reached from a backtest match on this line (a Stop, a
                // prompt): what the rules would do here, first.
                let mut out = match thread {
                    Thread::Main => ctx
                        .backtest_lines
                        .get(&event.line())
                        .map(|m| call::backtest_section(m, theme))
                        .unwrap_or_default(),
                    Thread::Sub(_) => Vec::new(),
                };
                match super::timeline::hook_of_item(session, item) {
                    Some(h) => {
                        out.push(heading(&format!("Hook {}", h.event_name()), theme));
                        out.extend(hook_lines(h, session, thread, theme));
                    }
                    None => out.extend(event_lines(b, event)),
                }
                out
            }
            None => Vec::new(),
        },
    }
}

/// Masks secrets in `text` as `[REDACTED_<TYPE>]` (docs/tool-calls.md#redaction), adding
/// to `counts`.
fn masked(text: &str, counts: &mut Redactions) -> String {
    redactor().redact(text, counts).into_owned()
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
