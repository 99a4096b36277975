//! The Sessions pane: sessions grouped by project, newest first; each shows
//! its local start time and title, then its counts (filled in as the
//! background worker summarizes). [`SessionsPane`] owns the selection,
//! the scroll offset and the fuzzy filter.

use crate::words::plural;
use chrono::FixedOffset;
use hookscope::transcript::text::one_line;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph};

use super::action::Action;
use super::component::{
    Command, Component, EventState, delta_of, follow, inner_rows, moved, type_into, wrapped,
};
use super::context::{Ctx, Effect, SessionEntry, SessionRow};
use super::theme::Theme;

/// The two lines of a session row.
pub fn session_item(
    entry: &SessionEntry,
    width: u16,
    theme: &Theme,
    utc_offset: FixedOffset,
    filtered: bool,
) -> ListItem<'static> {
    let time_format = if width >= 50 {
        "%Y-%m-%d %H:%M"
    } else {
        "%m-%d %H:%M"
    };
    // "…" while the summary is loading; "undated" when the file has no
    // timestamps at all (it then sorts by the file's mtime).
    let time = match &entry.summary {
        None => "…".to_string(),
        Some(s) => s
            .started
            .map(|t| super::fmt_time(t, utc_offset, time_format))
            .unwrap_or_else(|| "undated".to_string()),
    };
    let title = one_line(&entry.title(), 200);
    let mut first = vec![Span::styled(format!("  {time} "), theme.dim())];
    // Claude Code is the default; every other agent is named.
    if entry.sref.agent != hookscope::transcript::Agent::ClaudeCode {
        first.push(Span::styled(
            format!("{} ", entry.sref.agent.as_str()),
            theme.kind(),
        ));
    }
    first.push(Span::raw(title));
    let first = Line::from(first);
    let second = match (&entry.summary, &entry.error) {
        (Some(s), _) => {
            // Narrow panes get the short form so the counts fit.
            let (calls, errs, subs, sep) = if width >= 50 {
                ("call", "error", "subagent", " · ")
            } else {
                ("call", "err", "sub", ", ")
            };
            let mut spans = vec![Span::styled(
                format!(
                    "  {}{sep}{}",
                    plural(s.turns, "turn"),
                    plural(s.tool_calls, calls)
                ),
                theme.dim(),
            )];
            let errors = format!(
                "{sep}{}",
                if width >= 50 {
                    plural(s.errors, errs)
                } else {
                    format!("{} {errs}", s.errors)
                }
            );
            spans.push(if s.errors > 0 {
                Span::styled(errors, theme.error())
            } else {
                Span::styled(errors, theme.dim())
            });
            let subagents = if width >= 50 {
                plural(s.subagents, subs)
            } else {
                format!("{} {subs}", s.subagents)
            };
            spans.push(Span::styled(format!("{sep}{subagents}"), theme.dim()));
            if filtered {
                // No project headers while searching: name it here.
                let project = entry.project();
                let base = project
                    .rsplit('/')
                    .find(|p| !p.is_empty())
                    .unwrap_or(&project);
                spans.push(Span::styled(format!("{sep}{base}"), theme.kind()));
            }
            Line::from(spans)
        }
        (None, Some(e)) => Line::from(Span::styled(
            format!("  {}", one_line(e, 200)),
            theme.error(),
        )),
        (None, None) => Line::from(Span::styled("  loading…", theme.dim())),
    };
    ListItem::new(vec![first, second])
}

/// The Sessions pane's state.
#[derive(Debug, Default)]
pub struct SessionsPane {
    /// Selected session (index into [`Ctx::sessions`]).
    pub sel: Option<usize>,
    /// First visible row (follows the selection, see [`follow`]).
    pub offset: usize,
    /// Session list filter (fuzzy, see [`SessionsPane::rows`]).
    pub filter: String,
    /// Whether keys go to the filter box.
    pub searching: bool,
    /// Where the pane was last laid out.
    area: Rect,
    /// The rows for the filter and the summaries known: (filter, summaries
    /// known, sessions) and the rows.
    rows: Vec<SessionRow>,
    rows_key: Option<(String, usize, usize)>,
}

impl SessionsPane {
    /// The pane over `ctx`'s sessions, its first session selected.
    pub fn new(ctx: &Ctx) -> SessionsPane {
        let mut pane = SessionsPane::default();
        pane.refresh(ctx);
        pane.sel = pane.selectable().first().copied();
        pane
    }

    /// The list rows. Without a filter: projects newest first, sessions
    /// newest first inside each, under a header per project. With
    /// [`SessionsPane::filter`]: the sessions that fuzzy-match it
    /// (nucleo-matcher, fzf syntax: `'exact`, `^prefix`, `suffix$`, `!not`;
    /// case-insensitive) against each of title, first prompt, project and id
    /// (the best field counts), best match first, without headers.
    pub fn rows(&self) -> &[SessionRow] {
        &self.rows
    }

    /// Session indices in list order.
    pub fn selectable(&self) -> Vec<usize> {
        self.rows
            .iter()
            .filter_map(|r| match r {
                SessionRow::Session(i) => Some(*i),
                SessionRow::Header(_) => None,
            })
            .collect()
    }

    /// Rebuilds the rows when the filter or the known summaries changed
    /// (rows are asked for on every key; the ranking only changes with the
    /// filter or as titles and prompts arrive), and keeps the selection in
    /// view.
    pub fn refresh(&mut self, ctx: &Ctx) {
        let known = ctx.sessions.iter().filter(|e| e.summary.is_some()).count();
        let key = (self.filter.clone(), known, ctx.sessions.len());
        if self.rows_key.as_ref() != Some(&key) {
            self.rows = if self.filter.trim().is_empty() {
                grouped(&ctx.sessions)
            } else {
                rank(&ctx.sessions, &self.filter)
                    .into_iter()
                    .map(SessionRow::Session)
                    .collect()
            };
            self.rows_key = Some(key);
        }
        self.follow();
    }

    /// Selects the first session of the list (while the user has not
    /// touched anything, summaries reorder it).
    pub fn select_first(&mut self) {
        self.sel = self.selectable().first().copied();
        // The top of the list, its first project header included.
        self.offset = 0;
        self.follow();
    }

    /// Clears the filter and selects session `index`.
    pub fn select(&mut self, index: usize, ctx: &Ctx) {
        self.filter.clear();
        self.refresh(ctx);
        self.sel = Some(index);
        self.follow();
    }

    /// Lays the pane out in `area` (the offset follows).
    pub fn set_area(&mut self, area: Rect) {
        self.area = area;
        self.follow();
    }

    fn follow(&mut self) {
        let heights: Vec<usize> = self
            .rows
            .iter()
            .map(|r| match r {
                SessionRow::Header(_) => 1,
                SessionRow::Session(_) => 2,
            })
            .collect();
        let selected = self
            .sel
            .and_then(|s| self.rows.iter().position(|r| *r == SessionRow::Session(s)));
        self.offset = follow(
            self.offset,
            selected,
            &heights,
            usize::from(self.area.height.saturating_sub(2)),
        );
    }

    fn after_filter_change(&mut self, ctx: &Ctx) {
        self.refresh(ctx);
        let visible = self.selectable();
        // A fuzzy filter ranks: its best match is selected.
        if !self.filter.trim().is_empty() || self.sel.is_none_or(|s| !visible.contains(&s)) {
            self.sel = visible.first().copied();
        }
        self.offset = 0;
        self.follow();
    }
}

/// Projects newest first, sessions newest first inside each, a header per
/// project.
fn grouped(sessions: &[SessionEntry]) -> Vec<SessionRow> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, entry) in sessions.iter().enumerate() {
        let project = entry.project();
        match groups.iter_mut().find(|(p, _)| *p == project) {
            Some((_, members)) => members.push(i),
            None => groups.push((project, vec![i])),
        }
    }
    let newest = |i: &usize| sessions.get(*i).and_then(SessionEntry::when);
    for (_, members) in &mut groups {
        members.sort_by(|a, b| newest(b).cmp(&newest(a)).then(a.cmp(b)));
    }
    groups.sort_by(|a, b| {
        let na = a.1.first().and_then(newest);
        let nb = b.1.first().and_then(newest);
        nb.cmp(&na).then_with(|| a.0.cmp(&b.0))
    });
    let mut rows = Vec::new();
    for (project, members) in groups {
        rows.push(SessionRow::Header(project));
        rows.extend(members.into_iter().map(SessionRow::Session));
    }
    rows
}

/// Session indices that match `filter`, best score first (ties: newest
/// first, then discovery order).
fn rank(sessions: &[SessionEntry], filter: &str) -> Vec<usize> {
    let pattern = Pattern::parse(filter, CaseMatching::Ignore, Normalization::Smart);
    let mut matcher = Matcher::new(Config::DEFAULT);
    let mut buf = Vec::new();
    let mut scored: Vec<(u32, usize)> = sessions
        .iter()
        .enumerate()
        .filter_map(|(i, entry)| {
            let prompt = entry
                .summary
                .as_ref()
                .and_then(|s| s.first_prompt.as_deref())
                .unwrap_or("");
            // Each field on its own, best one counts: `^` anchors at the
            // start of a title, prompt, project or id, and letters
            // scattered over several fields do not match.
            [
                entry.title(),
                prompt.to_string(),
                entry.project(),
                entry.sref.id.clone(),
            ]
            .iter()
            .filter_map(|hay| pattern.score(Utf32Str::new(hay, &mut buf), &mut matcher))
            .max()
            .map(|score| (score, i))
        })
        .collect();
    let when = |i: usize| sessions.get(i).and_then(SessionEntry::when);
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| when(b.1).cmp(&when(a.1)))
            .then(a.1.cmp(&b.1))
    });
    scored.into_iter().map(|(_, i)| i).collect()
}

impl Component for SessionsPane {
    fn event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        if self.searching {
            if type_into(&mut self.filter, &mut self.searching, action) {
                self.after_filter_change(ctx);
            }
            return EventState::Consumed;
        }
        // Session rows are two lines tall.
        let page = (inner_rows(self.area) / 2).max(1);
        if let Some(delta) = delta_of(action, page) {
            let visible = self.selectable();
            self.sel = moved(&visible, self.sel, delta);
            self.follow();
            return EventState::Consumed;
        }
        match action {
            Action::Enter => {
                if let Some(index) = self.sel {
                    ctx.emit(Effect::OpenSession(index));
                }
            }
            Action::Back => {
                if !self.filter.is_empty() {
                    self.filter.clear();
                    self.after_filter_change(ctx);
                }
            }
            Action::StartSearch => {
                self.searching = true;
                self.filter.clear();
                self.refresh(ctx);
            }
            Action::SearchNext | Action::SearchPrev => {
                if self.filter.trim().is_empty() {
                    ctx.say("no search: / filters the list");
                } else {
                    // The list is filtered to the matches: n/N walk them.
                    let visible = self.selectable();
                    self.sel = wrapped(&visible, self.sel, action == Action::SearchNext);
                    self.follow();
                }
            }
            _ => return EventState::NotConsumed,
        }
        EventState::Consumed
    }

    fn commands(&self, _ctx: &Ctx, out: &mut Vec<Command>, force_all: bool) {
        out.push(Command::new(Action::Enter, "open", "open the session"));
        out.push(Command::new(
            Action::StartSearch,
            "filter",
            "fuzzy filter on title, prompt, project, id (fzf syntax)",
        ));
        if force_all || !self.filter.is_empty() {
            out.push(Command::new(Action::SearchNext, "next", "next match"));
            out.push(Command::new(Action::SearchPrev, "prev", "previous match"));
            out.push(Command::new(Action::Back, "clear", "clear the filter"));
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx, focused: bool) {
        let theme = &ctx.theme;
        let mut title = format!(" Sessions ({}) ", ctx.sessions.len());
        if !self.filter.is_empty() || (self.searching && focused) {
            title = format!(" Sessions /{} ", self.filter);
        }
        let block = Block::bordered()
            .title(Span::styled(title, theme.heading()))
            .border_style(theme.border(focused));
        let rows = self.rows();
        if rows.is_empty() {
            let text = if ctx.sessions.is_empty() {
                "No sessions found."
            } else {
                "(no match)"
            };
            frame.render_widget(
                Paragraph::new(Span::styled(text, theme.dim())).block(block),
                area,
            );
            return;
        }
        let filtered = !self.filter.trim().is_empty();
        let items: Vec<ListItem> = rows
            .iter()
            .map(|row| match row {
                SessionRow::Header(project) => {
                    ListItem::new(Line::from(Span::styled(project.clone(), theme.heading())))
                }
                SessionRow::Session(i) => match ctx.sessions.get(*i) {
                    Some(entry) => session_item(entry, area.width, theme, ctx.utc_offset, filtered),
                    None => ListItem::new(""),
                },
            })
            .collect();
        let selected = self
            .sel
            .and_then(|s| rows.iter().position(|r| *r == SessionRow::Session(s)));
        let mut state = ListState::default()
            .with_offset(self.offset)
            .with_selected(selected);
        let list = List::new(items)
            .block(block)
            .highlight_style(theme.selected(focused));
        frame.render_stateful_widget(list, area, &mut state);
    }
}
