//! The Sessions pane: sessions grouped by project, newest first; each shows
//! its local start time and title, then its counts (filled in as the
//! background worker summarizes). [`SessionsPane`] owns the selection,
//! the scroll offset and the fuzzy filter.

use crate::words::plural;
use chrono::FixedOffset;
use hookscope_core::transcript::Agent;
use hookscope_core::transcript::text::one_line;
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

/// The two lines of a session row: start time, agent column (see
/// [`agent_column`]) and title; then the counts (`indexing…` until they
/// come while the index sync runs, `loading…` otherwise).
pub fn session_item(
    entry: &SessionEntry,
    width: u16,
    theme: &Theme,
    utc_offset: FixedOffset,
    filtered: bool,
    indexing: bool,
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
    let first = vec![
        Span::styled(format!("  {time} "), theme.dim()),
        Span::styled(
            format!("{} ", agent_column(entry.sref.agent, width)),
            theme.kind(),
        ),
        Span::raw(title),
    ];
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
        // Waiting for the index's sync to reach it reads as such, not as
        // a load that hangs.
        (None, None) if indexing => Line::from(Span::styled("  indexing…", theme.dim())),
        (None, None) => Line::from(Span::styled("  loading…", theme.dim())),
    };
    // Inside the borders; a row cut there says so.
    let room = usize::from(width.saturating_sub(2));
    let cut = crate::tui::widgets::text::cut_line;
    ListItem::new(vec![cut(first, room), cut(second, room)])
}

/// The agent column of a session row, fixed width so titles line up: the
/// short name padded to 8 columns when the pane is at least 60 wide
/// (`claude  `, `codex   `, `opencode`, `droid   `), else two letters
/// (`cc`, `cx`, `oc`, `dr`; docs/keys.md lists them). Every
/// session is named, Claude Code's too.
pub fn agent_column(agent: Agent, width: u16) -> &'static str {
    match (agent, width >= 60) {
        (Agent::ClaudeCode, true) => "claude  ",
        (Agent::Codex, true) => "codex   ",
        (Agent::OpenCode, true) => "opencode",
        (Agent::Droid, true) => "droid   ",
        (Agent::ClaudeCode, false) => "cc",
        (Agent::Codex, false) => "cx",
        (Agent::OpenCode, false) => "oc",
        (Agent::Droid, false) => "dr",
    }
}

/// The words of the session filter that name agents: `agent:NAME` (any
/// case), where NAME is a prefix of an agent's serialized name or of its
/// long column name, its two-letter column name or one of its names
/// ([`Agent::from_name`]: `agent:claude`, `agent:cc`, `agent:open`,
/// `agent:factory`; see [`Agent::NAMES`]); several
/// such words select the union. Returns the agents asked for (`None`: no
/// `agent:` word, every agent; `Some(empty)`: the words name no agent, no
/// session) and the rest of the filter, which is fuzzy-matched.
pub fn split_agent_words(filter: &str) -> (Option<Vec<Agent>>, String) {
    let mut agents: Option<Vec<Agent>> = None;
    let mut rest = Vec::new();
    for word in filter.split_whitespace() {
        let lower = word.to_ascii_lowercase();
        match lower.strip_prefix("agent:") {
            Some(name) if !name.is_empty() => {
                let chosen = agents.get_or_insert_with(Vec::new);
                for agent in Agent::ALL {
                    let long = agent_column(agent, 60).trim_end();
                    let hit = agent.as_str().starts_with(name)
                        || long.starts_with(name)
                        || agent_column(agent, 0) == name
                        || Agent::from_name(name) == Some(agent);
                    if hit && !chosen.contains(&agent) {
                        chosen.push(agent);
                    }
                }
            }
            _ => rest.push(word),
        }
    }
    (agents, rest.join(" "))
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
    /// (the best field counts), best match first, without headers. Its
    /// `agent:NAME` words (see [`split_agent_words`]) keep only those
    /// agents' sessions; a filter of only such words keeps the grouped
    /// list.
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
            let (agents, fuzzy) = split_agent_words(&self.filter);
            let keep = |i: usize| match (&agents, ctx.sessions.get(i)) {
                (None, _) => true,
                (Some(agents), Some(entry)) => agents.contains(&entry.sref.agent),
                (Some(_), None) => false,
            };
            self.rows = if fuzzy.trim().is_empty() {
                // Only `agent:` words: the grouped list, of those agents.
                grouped(&ctx.sessions, keep)
            } else {
                rank(&ctx.sessions, &fuzzy)
                    .into_iter()
                    .filter(|i| keep(*i))
                    .map(SessionRow::Session)
                    .collect()
            };
            self.rows_key = Some(key);
        }
        self.follow();
    }

    /// Forgets the rows so the next [`SessionsPane::refresh`] rebuilds them
    /// (the session list was replaced with one of the same length).
    pub fn reset_rows(&mut self) {
        self.rows_key = None;
    }

    /// Selects the first session of the list (while the user has not
    /// touched anything, summaries reorder it).
    pub fn select_first(&mut self) {
        self.sel = self.selectable().first().copied();
        // The top of the list, its first project header included.
        self.offset = 0;
        self.follow();
    }

    /// Selects session `index` (a jump from the Calls view or the
    /// backtest list), keeping the filter when it lists that session and
    /// clearing it otherwise, so the session is shown.
    pub fn select(&mut self, index: usize, ctx: &Ctx) {
        self.refresh(ctx);
        if !self.selectable().contains(&index) {
            self.filter.clear();
            self.refresh(ctx);
        }
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
/// project; only the sessions `keep` accepts (by index).
fn grouped(sessions: &[SessionEntry], keep: impl Fn(usize) -> bool) -> Vec<SessionRow> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, entry) in sessions.iter().enumerate().filter(|(i, _)| keep(*i)) {
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
            "fuzzy filter (title, prompt, project, id); agent:NAME",
        ));
        if force_all || !self.filter.is_empty() {
            out.push(Command::new(Action::SearchNext, "next", "next match"));
            out.push(Command::new(Action::SearchPrev, "prev", "previous match"));
            out.push(Command::new(Action::Back, "clear", "clear the filter"));
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx, focused: bool) {
        let theme = &ctx.theme;
        let mut title = format!(
            " Sessions ({}) ",
            crate::words::thousands(ctx.sessions.len())
        );
        if !self.filter.is_empty() || (self.searching && focused) {
            // How many of all the filter keeps.
            let kept = self
                .rows()
                .iter()
                .filter(|r| matches!(r, SessionRow::Session(_)))
                .count();
            title = format!(
                " Sessions {}/{} /{} ",
                crate::words::thousands(kept),
                crate::words::thousands(ctx.sessions.len()),
                self.filter
            );
        }
        let block = Block::bordered()
            .title(Span::styled(title, theme.heading()))
            .border_style(theme.border(focused));
        let rows = self.rows();
        if rows.is_empty() {
            let text = if ctx.sessions.is_empty() {
                "No sessions found.".to_string()
            } else if split_agent_words(&self.filter)
                .0
                .is_some_and(|a| a.is_empty())
            {
                // An `agent:` word naming no agent: say which names work.
                let known: Vec<&str> = Agent::ALL.iter().map(|a| a.as_str()).collect();
                format!("(no agent by that name; agent: takes {})", known.join(", "))
            } else {
                "(no match)".to_string()
            };
            frame.render_widget(
                Paragraph::new(Span::styled(text, theme.dim()))
                    .wrap(ratatui::widgets::Wrap { trim: true })
                    .block(block),
                area,
            );
            return;
        }
        // Headers are missing only while fuzzy-matching.
        let filtered = !split_agent_words(&self.filter).1.trim().is_empty();
        // Only the rows on screen are built (a heavy user lists thousands
        // of sessions): the window starts at the pane's offset.
        let height = usize::from(area.height.saturating_sub(2)).max(1);
        let first = self.offset.min(rows.len().saturating_sub(1));
        let window = &rows[first..(first + height).min(rows.len())];
        let items: Vec<ListItem> = window
            .iter()
            .map(|row| match row {
                SessionRow::Header(project) => ListItem::new(crate::tui::widgets::text::cut_line(
                    Line::from(Span::styled(project.clone(), theme.heading())),
                    usize::from(area.width.saturating_sub(2)),
                )),
                SessionRow::Session(i) => match ctx.sessions.get(*i) {
                    Some(entry) => session_item(
                        entry,
                        area.width,
                        theme,
                        ctx.utc_offset,
                        filtered,
                        ctx.indexing.is_some(),
                    ),
                    None => ListItem::new(""),
                },
            })
            .collect();
        let selected = self
            .sel
            .and_then(|s| window.iter().position(|r| *r == SessionRow::Session(s)));
        let mut state = ListState::default().with_offset(0).with_selected(selected);
        let list = List::new(items)
            .block(block)
            .highlight_style(theme.selected(focused));
        frame.render_stateful_widget(list, area, &mut state);
    }
}

#[cfg(test)]
mod tests {
    //! The agent column and the `agent:` words of the session filter, over
    //! one real run of each agent from the shared corpus.
    use super::{agent_column, split_agent_words};
    use crate::tui::app::App;
    use crate::tui::context::SessionRow;
    use crate::tui::tests::{key, keys, render};
    use crate::tui::theme::Theme;
    use crate::tui::worker::{self, Msg};
    use chrono::FixedOffset;
    use crossterm::event::KeyCode;
    use hookscope_core::transcript::{Agent, discover};
    use std::path::PathBuf;

    /// The real runs of all four agents: Claude Code's `tools` and
    /// `subagent`, Codex's `basic`, OpenCode's SQLite store and its legacy
    /// JSON storage, Droid's sessions.
    const MIXED: [&str; 6] = [
        "tests/corpus/real-cc-2.1.332/tools/projects",
        "tests/corpus/real-cc-2.1.332/subagent/projects",
        "tests/corpus/real-codex-0.171.0/basic",
        "tests/corpus/real-opencode-1.18.33/data",
        "tests/corpus/real-opencode-1.1.65-legacy-json/data",
        "tests/corpus/real-droid-0.225.2/factory",
    ];

    /// One small run of each agent, so that all four fit at 80x24.
    const SMALL: [&str; 4] = [
        "tests/corpus/real-cc-2.1.332/tools/projects",
        "tests/corpus/real-codex-0.171.0/basic",
        "tests/corpus/real-opencode-1.1.65-legacy-json/data",
        "tests/corpus/real-droid-0.225.2/factory/sessions/-home-dev-work-dr-tools",
    ];

    fn mixed_app(folders: &[&str]) -> App {
        let paths: Vec<PathBuf> = folders.iter().map(PathBuf::from).collect();
        let found = discover(&paths).expect("corpus is present");
        let utc = FixedOffset::east_opt(0).expect("UTC");
        let mut app = App::new(
            found.sessions.clone(),
            found.diagnostics,
            utc,
            Theme { color: false },
        );
        for (index, sref) in found.sessions.iter().enumerate() {
            app.apply(worker::summary_msg(index, sref));
        }
        app.apply(Msg::SummariesDone);
        app
    }

    /// The agents of the listed sessions, in list order.
    fn listed(app: &App) -> Vec<Agent> {
        app.list
            .rows()
            .iter()
            .filter_map(|r| match r {
                SessionRow::Session(i) => app.ctx.sessions.get(*i).map(|e| e.sref.agent),
                SessionRow::Header(_) => None,
            })
            .collect()
    }

    fn count(agents: &[Agent], agent: Agent) -> usize {
        agents.iter().filter(|a| **a == agent).count()
    }

    #[test]
    fn agent_words_split_from_the_fuzzy_text() {
        assert_eq!(split_agent_words("tools"), (None, "tools".to_string()));
        assert_eq!(
            split_agent_words("agent:codex  'shell"),
            (Some(vec![Agent::Codex]), "'shell".to_string())
        );
        // Prefixes of either spelling, the two-letter column, any case.
        assert_eq!(
            split_agent_words("Agent:CLAUDE agent:dr").0,
            Some(vec![Agent::ClaudeCode, Agent::Droid])
        );
        assert_eq!(split_agent_words("agent:oc").0, Some(vec![Agent::OpenCode]));
        assert_eq!(
            split_agent_words("agent:c").0,
            Some(vec![Agent::ClaudeCode, Agent::Codex])
        );
        // Names no agent: selects nothing rather than everything.
        assert_eq!(split_agent_words("agent:cursor").0, Some(vec![]));
        // A bare `agent:` is an ordinary fuzzy word.
        assert_eq!(split_agent_words("agent:"), (None, "agent:".to_string()));
        assert_eq!(agent_column(Agent::OpenCode, 80), "opencode");
        assert_eq!(agent_column(Agent::Droid, 40), "dr");
    }

    /// Session counts per agent, recounted from the corpus: Claude Code 2
    /// (one `.jsonl` in each of `tools/` and `subagent/` projects), Codex
    /// (`find basic -name 'rollout-*.jsonl'`: 1), OpenCode 8 top-level
    /// sessions (children are listed under their spawning call, not here):
    /// opencode.db's `select count(*), sum(parent_id is not null) from
    /// session` is 8, 3, and 3 of the 6 legacy `storage/session/*/*.json`
    /// files have a `parentID`, so 5 + 3; Droid 6 (`sessions/*/*.jsonl`).
    #[test]
    fn agent_filter_keeps_one_agent_grouped() {
        let mut app = mixed_app(&MIXED);
        let all = listed(&app);
        let per_agent: Vec<usize> = Agent::ALL.iter().map(|a| count(&all, *a)).collect();
        assert_eq!(per_agent, vec![CC, CODEX, OPENCODE, DROID]);
        for (agent, word, n) in [
            (Agent::Codex, "agent:codex", CODEX),
            (Agent::OpenCode, "agent:opencode", OPENCODE),
            (Agent::Droid, "agent:droid", DROID),
            (Agent::ClaudeCode, "agent:claude", CC),
        ] {
            key(&mut app, KeyCode::Char('/'));
            keys(&mut app, word);
            key(&mut app, KeyCode::Enter);
            let shown = listed(&app);
            assert_eq!(shown.len(), n, "{word}");
            assert_eq!(count(&shown, agent), n, "{word}");
            // Only agent words: still grouped under project headers.
            assert!(matches!(
                app.list.rows().first(),
                Some(SessionRow::Header(_))
            ));
            key(&mut app, KeyCode::Esc);
        }
        key(&mut app, KeyCode::Char('/'));
        keys(&mut app, "agent:droid agent:codex");
        key(&mut app, KeyCode::Enter);
        assert_eq!(listed(&app).len(), CODEX + DROID);
    }

    const CC: usize = 2;
    const CODEX: usize = 1;
    const OPENCODE: usize = 8;
    const DROID: usize = 6;

    #[test]
    fn snapshot_mixed_agents() {
        let mut app = mixed_app(&SMALL);
        insta::assert_snapshot!("sessions_mixed_80x24", render(&mut app, 80, 24));
        insta::assert_snapshot!("sessions_mixed_160x48", render(&mut app, 160, 48));
        key(&mut app, KeyCode::Char('/'));
        keys(&mut app, "agent:droid");
        key(&mut app, KeyCode::Enter);
        insta::assert_snapshot!("sessions_agent_droid_80x24", render(&mut app, 80, 24));
    }

    #[test]
    fn an_agent_word_naming_no_agent_says_which_names_work() {
        let mut app = mixed_app(&SMALL);
        key(&mut app, KeyCode::Char('/'));
        keys(&mut app, "agent:bogus");
        key(&mut app, KeyCode::Enter);
        let screen = render(&mut app, 120, 24);
        // The Sessions pane's text, its wrapped lines joined.
        let pane: Vec<&str> = screen
            .lines()
            .filter_map(|l| l.split('┃').nth(1).map(str::trim))
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(
            pane.join(" "),
            "(no agent by that name; agent: takes claude-code, codex, opencode, droid)",
            "{screen}"
        );
        // A real agent whose fuzzy words match nothing is a plain no-match.
        key(&mut app, KeyCode::Char('/'));
        for _ in 0.."agent:bogus".len() {
            key(&mut app, KeyCode::Backspace);
        }
        keys(&mut app, "agent:droid zzzzqqq");
        key(&mut app, KeyCode::Enter);
        let screen = render(&mut app, 120, 24);
        assert!(screen.contains("(no match)"), "{screen}");
    }
}
