//! What is truly shared between the TUI's components: the discovered
//! sessions and what the worker learned about them, the opened session,
//! the theme, the time offset, the terminal size, the status-bar notice and
//! the outboxes a component writes to ([`Ctx::requests`] for the worker,
//! [`Ctx::effects`] for the [`super::app::App`] to route to another pane).
//!
//! What it is not: no pane's selection, scroll or filter lives here; each
//! component ([`super::component`]) owns those. The plain data types the
//! panes talk about (sessions, timeline items) are defined here so that no
//! view has to import another view to name them.

use crate::words::plural;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, FixedOffset, Utc};
use hookscope_core::hooks::rules::RuleSet;
use hookscope_core::query::Query;
use hookscope_core::transcript::short_id::ShortIds;
use hookscope_core::transcript::spawns::SpawnTree;
use hookscope_core::transcript::{Diagnostic, Event, Session, SessionRef, SessionSummary, Turn};
use ratatui::layout::Rect;

use super::theme::Theme;

/// The three panes of the Browse view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The session list.
    Sessions,
    /// The opened session's turns and events.
    Timeline,
    /// The selected row in full.
    Detail,
}

/// A discovered session and what the background worker learned about it.
#[derive(Debug, Clone)]
pub struct SessionEntry {
    /// Where it is on disk.
    pub sref: SessionRef,
    /// Counts and title, once summarized.
    pub summary: Option<SessionSummary>,
    /// Why it could not be summarized, if it could not.
    pub error: Option<String>,
}

impl SessionEntry {
    /// The project the session belongs to: its cwd once known, else the
    /// (encoded) name of the folder it is in.
    pub fn project(&self) -> String {
        if let Some(cwd) = self.summary.as_ref().and_then(|s| s.cwd.clone()) {
            return cwd;
        }
        self.sref
            .path
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "?".to_string())
    }

    /// The title, or the id while it is not known.
    pub fn title(&self) -> String {
        self.summary
            .as_ref()
            .and_then(|s| s.title.clone())
            .unwrap_or_else(|| self.sref.id.clone())
    }

    /// Sort key for "newest first": the start time once the summary is in
    /// (`None` for an undated file, which then sorts last, as in
    /// `hookscope sessions`), the file's mtime until then.
    pub fn when(&self) -> Option<DateTime<Utc>> {
        match &self.summary {
            Some(s) => s.started,
            None => self.sref.modified.map(DateTime::<Utc>::from),
        }
    }
}

/// One row of the session list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionRow {
    /// A project heading.
    Header(String),
    /// A session (index into [`Ctx::sessions`]).
    Session(usize),
}

/// Which conversation thread an event is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Thread {
    /// The session's main thread.
    Main,
    /// A subagent (index into [`Session::subagents`]).
    Sub(usize),
}

/// What a timeline row shows; stable across filtering and expansion, so it
/// is also the selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Item {
    /// A main-thread turn.
    Turn(usize),
    /// A subagent transcript the main thread does not reach (index into
    /// [`Session::subagents`]): no call spawns it, or (in a hand-made file)
    /// it is on a spawn cycle; a root of the spawn walk, listed after the
    /// turns, and expands like a Task/Agent call.
    Unlinked(usize),
    /// An event of a thread's turn.
    Event {
        /// The thread.
        thread: Thread,
        /// Turn index in that thread.
        turn: usize,
        /// Event index in that turn.
        event: usize,
    },
}

/// One timeline row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimelineRow {
    /// What it shows.
    pub item: Item,
    /// Nesting depth (0 for main-thread events, 1 inside a subagent, …).
    pub depth: usize,
    /// The Task/Agent call (or unlinked-subagent row) this row is nested
    /// under, if any.
    pub parent: Option<Item>,
    /// The subagent this row expands to: an unlinked row's own, or a
    /// call's when the spawn walk enters it there
    /// ([`hookscope_core::transcript::spawns::Step::Call`]'s `expands`).
    pub expands: Option<usize>,
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

/// The subagents from the outermost spawn down to subagent `s` (indices
/// into [`Session::subagents`]), from [`SpawnTree::path_to`]: the subagent
/// of each spawn on the path, then `s`. Just `[s]` when the main thread does
/// not reach `s` (unlinked, below an unlinked one, or on a spawn cycle).
pub fn spawn_chain(tree: &SpawnTree, s: usize) -> Vec<usize> {
    let mut chain: Vec<usize> = tree
        .path_to(Some(s))
        .unwrap_or_default()
        .into_iter()
        .filter_map(|at| at.thread)
        .collect();
    chain.push(s);
    chain
}

/// Which subagent this is, in a few words: its type, then its description
/// (cut to `room` characters) or, without one, its agent id:
/// `general-purpose “Inspect repository”`, `Explore a1b2c3d4`.
pub fn subagent_label(session: &Session, s: usize, room: usize) -> String {
    let Some(sub) = session.subagents.get(s) else {
        return "?".to_string();
    };
    let kind = sub.agent_type.as_deref().unwrap_or("subagent");
    match (&sub.description, &sub.agent_id) {
        (Some(d), _) => format!(
            "{kind} “{}”",
            hookscope_core::transcript::text::one_line(d, room)
        ),
        (None, Some(id)) => format!("{kind} {id}"),
        (None, None) => kind.to_string(),
    }
}

/// The opened session's loading state.
#[derive(Debug, Clone)]
pub enum OpenState {
    /// The worker is parsing it.
    Loading,
    /// Parsed, with its spawn tree (built once, on arrival; every spawn
    /// walk and count of the panes goes through it).
    Ready(Arc<Session>, Arc<SpawnTree>),
    /// It could not be read.
    Failed(String),
}

/// The session shown in the timeline.
#[derive(Debug, Clone)]
pub struct OpenSession {
    /// Index into [`Ctx::sessions`].
    pub index: usize,
    /// Loading state.
    pub state: OpenState,
}

/// Work for the event loop to start off the UI thread.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Fully load session `index` and send `Msg::Loaded`.
    Open(usize),
    /// Read the decision log again for session `index` (open already) and
    /// send `Msg::Decisions`.
    Decisions(usize),
    /// Read the rule ids the decision log names and send `Msg::RuleIds`.
    RuleIds,
    /// Load session `index` (one that appeared while running) for the list
    /// and send `Msg::Summary`.
    Summarize(usize),
    /// Run a Calls-view query and send `Msg::Found` tagged `generation`.
    Find {
        /// The Calls view's generation the query answers.
        generation: u64,
        /// The validated query.
        query: Query,
        /// The line was typed mid-word: ask once typing pauses
        /// (`debounce`).
        settle: bool,
    },
    /// Run the loaded rule set ([`Ctx::rules`]) over every session (the
    /// backtest) and send `Msg::Backtested` per session.
    Backtest,
    /// Count what running your hooks over every event would do (the plan
    /// pass of `replay --all --exec`) and send `Msg::ExecAllPlanned`.
    ExecAllPlan,
    /// Run your hooks over every event (confirmed), sending
    /// `Msg::ExecAllProgress` and at the end `Msg::ExecAllDone`; the flag
    /// stops it.
    ExecAllRun(CancelHandle),
    /// Compare the `--rules` set with the `--against` set over every
    /// session, sending `Msg::CompareProgress` and `Msg::Compared`.
    Against,
    /// Run the replay pane's confirmed hook plan and send `Msg::HooksRan`
    /// with the same `generation`.
    RunHooks {
        /// The replay pane's run counter when it was asked.
        generation: u64,
        /// What to run.
        plan: PlanHandle,
    },
    /// Parse a Bash command line (tree-sitter, possibly seconds for a huge
    /// line) and send `Msg::Parsed` with the same `key`.
    ParseBash {
        /// The call's `tool_use_id` and a hash of the command (ids may
        /// repeat across sessions).
        key: BashKey,
        /// The command text (`tool_input.command`).
        command: String,
    },
}

/// The stop flag of a run ([`Request::ExecAllRun`]); two handles are equal
/// when they share the flag.
#[derive(Debug, Clone)]
pub struct CancelHandle(pub Arc<std::sync::atomic::AtomicBool>);

impl PartialEq for CancelHandle {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A confirmed hook plan carried by [`Request::RunHooks`]; two handles are
/// equal when they share the plan.
#[derive(Debug, Clone)]
pub struct PlanHandle(pub Arc<hookscope_core::hooks::exec::ExecPlan>);

impl PartialEq for PlanHandle {
    fn eq(&self, other: &PlanHandle) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Identifies a Bash command line for the parse cache: the call's
/// `tool_use_id` and a hash of `tool_input.command`.
pub type BashKey = (String, u64);

/// A cross-pane effect a component asks for; the app routes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Give the keys to this pane.
    Focus(Pane),
    /// Open session `index` in the timeline (and focus it).
    OpenSession(usize),
    /// Open the Calls view; `line` replaces the filter line when given, and
    /// `select` (a `tool_use_id`) is selected in the answer.
    OpenCalls {
        /// The new filter line (a quick filter), or keep the current one.
        line: Option<String>,
        /// The call to keep selected.
        select: Option<String>,
    },
    /// Leave the Calls view for the Browse panes.
    CloseCalls,
    /// Copy `text` to the clipboard and say so (`copied <what> (1.2 KiB)
    /// via OSC 52`).
    Copy {
        /// What is copied.
        text: String,
        /// What it is, for the status bar (`PreToolUse payload`).
        what: String,
    },
    /// Open session `index` and select the main-thread event at 1-based
    /// `line` of its file (or the last before it) in its timeline.
    JumpToLine {
        /// Index into [`Ctx::sessions`].
        index: usize,
        /// The line of the session file.
        line: usize,
    },
    /// Open session `index` and select call `tool_use_id` in its timeline.
    JumpToCall {
        /// Index into [`Ctx::sessions`].
        index: usize,
        /// The call's `tool_use_id`.
        tool_use_id: String,
    },
}

impl Effect {
    /// The jump to the event an `--at` names in session `index`: a
    /// `tool_use_id` (or line uuid) selects the call, `line:N` the line;
    /// `None` for what the timeline cannot select (a subagent's line, a
    /// turn, the last event).
    pub fn jump_to(index: usize, at: &str) -> Option<Effect> {
        use hookscope_core::hooks::events::At;
        match At::parse(at) {
            At::Line(line) => Some(Effect::JumpToLine { index, line }),
            At::ToolUseId(id) | At::Uuid(id) => Some(Effect::JumpToCall {
                index,
                tool_use_id: id,
            }),
            _ => None,
        }
    }
}

/// The rule set given with `--rules FILE` (loaded once, at start).
#[derive(Debug, Clone, Default)]
pub enum Rules {
    /// No `--rules`: the replay pane says how to load one.
    #[default]
    None,
    /// Loaded.
    Loaded(Arc<RuleSet>),
    /// Refused: every problem as `file:line:col: message`.
    Failed {
        /// The file given.
        path: PathBuf,
        /// Its problems, one per line.
        errors: Vec<String>,
    },
}

impl Rules {
    /// Loads `path` ([`RuleSet::load_rules`]: the rules, not their test
    /// cases): the set, or its errors (the TUI still starts).
    pub fn load(path: &Path) -> Rules {
        match RuleSet::load_rules(path) {
            Ok(set) => Rules::Loaded(Arc::new(set)),
            Err(e) => Rules::Failed {
                path: path.to_path_buf(),
                errors: e.errors.iter().map(ToString::to_string).collect(),
            },
        }
    }

    /// What the status bar says at start about the `--rules` file: that it
    /// was refused (the replay pane lists why), or how many warnings it
    /// loaded with (e.g. a Stop block that would loop); `None` when it
    /// loaded cleanly.
    pub fn startup_message(&self) -> Option<String> {
        match self {
            Rules::None => None,
            Rules::Failed { path, errors } => Some(format!(
                "--rules {}: refused ({}); r shows why",
                path.display(),
                plural(errors.len(), "problem")
            )),
            Rules::Loaded(set) if !set.warnings().is_empty() => Some(format!(
                "--rules loaded with {} (e.g. {}); run hookscope test on it",
                plural(set.warnings().len(), "warning"),
                set.warnings()[0]
            )),
            Rules::Loaded(_) => None,
        }
    }
}

/// The shared state every component may read.
#[derive(Debug)]
pub struct Ctx {
    /// Discovered sessions, in discovery order (indices are stable).
    pub sessions: Vec<SessionEntry>,
    /// Discovery diagnostics, then each session's as summaries arrive.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether every summary has arrived.
    pub summaries_done: bool,
    /// While the list is the one the index stored and discovery has not yet
    /// said what is on disk now (the TUI's fast start, [`crate::tui::boot`]).
    pub checking: bool,
    /// While the index syncs changed and new sessions at start: (sessions
    /// re-indexed, sessions to re-index), for the status bar.
    pub indexing: Option<(usize, usize)>,
    /// While that sync waits for another hookscope process building the
    /// index (its counts then follow that process's work).
    pub waiting_for_build: bool,
    /// The session shown in the timeline.
    pub open: Option<OpenSession>,
    /// Each discovered session id's shortest unique prefix (at least 8
    /// chars), for every place a session is named by a short id: built
    /// over all of [`Ctx::sessions`], so a prefix shown is one `--session`
    /// accepts.
    pub short_ids: ShortIds,
    /// Every tool name seen in the summarized sessions (Tab completion).
    pub tool_names: BTreeSet<String>,
    /// The rule ids the decision log names (`ruled:` Tab completion), read
    /// off the UI thread when the Calls view opens.
    pub rule_ids: Vec<String>,
    /// The terminal size.
    pub area: Rect,
    /// Offset used to show times (local time in the app, UTC in tests).
    pub utc_offset: FixedOffset,
    /// Styles.
    pub theme: Theme,
    /// A banner across the top (the demo notice).
    pub banner: Option<String>,
    /// A one-off notice for the status bar (cleared by the next key).
    pub message: Option<String>,
    /// Background work for the event loop to start.
    pub requests: Vec<Request>,
    /// Cross-pane effects for the app to route.
    pub effects: Vec<Effect>,
    /// The `--rules` rule set, for the replay pane.
    pub rules: Rules,
    /// The `--against` rule set: `B` compares `--rules` (A) with it.
    pub against: Rules,
    /// The `--against-settings` files: `B` runs your hooks (A) and these
    /// (B) on every event and lists where they differ.
    pub against_settings: Vec<PathBuf>,
    /// The `--settings FILE` files (in order) whose hooks the replay pane
    /// explains and runs; empty: the configuration that applied to the
    /// session (user settings, the project's `.claude/` under its cwd).
    pub settings: Vec<PathBuf>,
    /// The config dir whose `settings.json` applies when no `--settings`
    /// is given; `None`: `$CLAUDE_CONFIG_DIR`, else `~/.claude` (tests set
    /// a fixed one).
    pub settings_config_dir: Option<PathBuf>,
    /// The managed settings file; `None`: the platform's (tests set a
    /// fixed one).
    pub settings_managed: Option<PathBuf>,
    /// The `--cwd-map OLD=NEW` pairs: recorded folders mapped to local ones
    /// in the replayed payload, `CLAUDE_PROJECT_DIR` and where `x` runs the
    /// hooks (docs/replay-and-backtest.md "Running your real hooks").
    pub cwd_map: hookscope_core::hooks::cwd_map::CwdMap,
    /// The Codex home whose hooks the replay pane explains for a Codex
    /// session; `None`: `$CODEX_HOME`, else `~/.codex` (tests set a fixed
    /// one).
    pub codex_home: Option<PathBuf>,
    /// The environment the replay pane's `x` passes on to hooks (through
    /// the allowlist, [`hookscope_core::hooks::exec::hook_env`]); `None`: this
    /// process's (tests set a fixed one).
    pub hook_env: Option<std::collections::BTreeMap<String, std::ffi::OsString>>,
    /// The decisions `hookscope hook` logged for the open session's calls,
    /// by `tool_use_id` (docs/live-hook.md#the-decision-log): the
    /// timeline's `§` mark and Detail's "Rules, live" section. Empty until
    /// the worker read the log ([`crate::tui::worker::Msg::Decisions`]).
    pub decisions: Arc<Decided>,
    /// The decisions `hookscope hook` logged for the open session's events
    /// that are not calls, oldest first (marked on their turn's row and
    /// listed in its Detail).
    pub event_decisions: Arc<Vec<EventDecision>>,
    /// The backtest's matches on the calls of the session a jump from the
    /// backtest list opened (`B`, then `Enter`): `(rule, match)` by
    /// `tool_use_id`, for Detail's "Backtest" section. Emptied when
    /// another session is opened.
    pub backtest_here: Arc<BacktestOn<String>>,
    /// The same for the matches not on a call (a Stop, a prompt), by the
    /// main-thread line their `at` names (`line:N`).
    pub backtest_lines: Arc<BacktestOn<usize>>,
}

/// The backtest list's matches by where they are (a `tool_use_id`, a
/// line): `(rule, match)` each.
pub type BacktestOn<K> =
    std::collections::HashMap<K, Vec<(String, hookscope_core::hooks::replay::Example)>>;

/// A logged decision on an event that is not a call (Stop, SubagentStop,
/// UserPromptSubmit, …), placed in the open session by the transcript's
/// size when the hook ran (docs/live-hook.md#the-decision-log).
#[derive(Debug, Clone, PartialEq)]
pub struct EventDecision {
    /// The entry.
    pub logged: hookscope_core::hooks::decisions::Logged,
    /// How many whole lines the main transcript held then: the event came
    /// after line `after_line` (1-based; 0 before the first).
    pub after_line: usize,
    /// Its main-thread turn ([`EventDecision::place_all`]), set when the
    /// decisions reach the open session.
    pub in_turn: Option<usize>,
    /// The logged `transcript_path` when it is another file than the
    /// session's (both resolved; a copy of the session, say): the placement
    /// then follows that file's size, which Detail says.
    pub other_file: Option<String>,
}

impl EventDecision {
    /// The main-thread turn of each of `decisions` in `session`: for each,
    /// UserPromptSubmit and SessionStart fire before their turn's first
    /// line is written (the first turn starting after `after_line`); any
    /// other event fires after what it follows (the last turn starting at
    /// or before it). `None` when the session has no such turn (it was cut
    /// or rewritten since), or when the decision was logged outside
    /// [`hookscope_core::hooks::decisions::live_window`] of that turn's
    /// time (a payload replayed into the hook). One pass over the turns, then a binary search
    /// each (the Decisions message is applied on the UI thread).
    pub fn place_all(
        decisions: &mut [EventDecision],
        session: &hookscope_core::transcript::Session,
    ) {
        // Turn starts, kept only where they grow (a turn without any line
        // cannot hold an event).
        let mut starts: Vec<(usize, usize)> = Vec::with_capacity(session.turns.len());
        for (i, t) in session.turns.iter().enumerate() {
            let start = t
                .prompt_line
                .or_else(|| {
                    t.events
                        .first()
                        .map(hookscope_core::transcript::Event::line)
                })
                .unwrap_or(0);
            if start > 0 && starts.last().is_none_or(|&(s, _)| start > s) {
                starts.push((start, i));
            }
        }
        for d in decisions {
            let before = matches!(d.logged.event.as_str(), "UserPromptSubmit" | "SessionStart");
            // The first start past `after_line`.
            let next = starts.partition_point(|&(s, _)| s <= d.after_line);
            d.in_turn = if before {
                starts.get(next).map(|&(_, i)| i)
            } else {
                next.checked_sub(1)
                    .and_then(|k| starts.get(k))
                    .map(|&(_, i)| i)
            }
            // Logged far from its turn's time: a payload replayed by hand
            // into the hook, not the live hook then.
            .filter(|&t| {
                d.logged
                    .logged_near(session.turns.get(t).and_then(|turn| turn.timestamp))
            });
        }
    }
}

/// Logged decisions by `tool_use_id`, oldest first.
pub type Decided = std::collections::HashMap<String, Vec<hookscope_core::hooks::decisions::Logged>>;

/// The decisions of `decided` on `record`: those logged under its
/// `tool_use_id` whose digest is the call's
/// ([`hookscope_core::hooks::decisions::Logged::is_on`]), oldest first.
pub fn decisions_on<'a>(
    decided: &'a Decided,
    record: &hookscope_core::transcript::ToolCallRecord,
) -> Vec<&'a hookscope_core::hooks::decisions::Logged> {
    let Some(logged) = decided.get(&record.tool_use_id) else {
        return Vec::new();
    };
    let digest = hookscope_core::tools::tool_digest(record.call.name(), record.call.raw()).ok();
    // As `find` dates a call: its line's time, else its result's.
    let called = record
        .timestamp
        .or_else(|| record.result.as_ref().and_then(|r| r.timestamp));
    logged
        .iter()
        .filter(|l| l.is_on(digest.as_deref(), called))
        .collect()
}

impl Ctx {
    /// The loaded session shown in the timeline, if ready.
    pub fn session(&self) -> Option<&Arc<Session>> {
        match &self.open {
            Some(OpenSession {
                state: OpenState::Ready(s, _),
                ..
            }) => Some(s),
            _ => None,
        }
    }

    /// The loaded session's spawn tree, if ready.
    pub fn spawns(&self) -> Option<&SpawnTree> {
        match &self.open {
            Some(OpenSession {
                state: OpenState::Ready(_, tree),
                ..
            }) => Some(tree),
            _ => None,
        }
    }

    /// Asks the app for a cross-pane effect.
    pub fn emit(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// Sets the status-bar notice.
    pub fn say(&mut self, message: impl Into<String>) {
        self.message = Some(message.into());
    }
}
