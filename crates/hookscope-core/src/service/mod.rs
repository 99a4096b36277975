//! The service layer: what every shell (CLI, MCP server, TUI) needs to
//! answer from a user's sessions, written once. A [`Library`] owns the
//! roots, the optional persisted index and its sync, the index's notices,
//! and an optional cache of parsed sessions, and offers discovery
//! ([`Library::sessions`]), `find_tool_calls` with the index as the first
//! prefilter and the raw prefilter as the fallback ([`Library::find`],
//! [`Library::find_in`]) and the rule-set backtest with the same fallback
//! ([`Library::backtest`]); for a long-running view (the TUI), the
//! stored list, the sync in chunks and its own queries ([`view`]); the
//! user's hooks on one recorded event ([`HookRun`]: explain, preview,
//! plan, compare with the transcript). The
//! answers are those without an index
//! (docs/benchmarks.md#heavy-user-benchmark measures the difference in
//! time only).
//!
//! Opening the index ([`open_index`]) never fails: no cache folder,
//! `HOOKSCOPE_NO_INDEX=1`, `--no-index` or an unusable SQLite file all mean
//! "work without one", each said as a notice (docs/cli.md#index).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

pub mod hook_run;
pub mod view;

pub use hook_run::{HookRun, Preview, WouldRun};
pub use view::{ListUpdate, SYNC_CHUNK, summary_of};

use crate::hooks::replay::{Backtest, Known, backtest_refs, backtest_refs_knowing, index_needs};
use crate::hooks::rules::RuleSet;
use crate::index::query::Scope;
use crate::index::{self, Index, Progress, State, SyncStats, Synced};
use crate::query::{
    FindResult, Finder, GroupBy, LoadedSession, Query, QueryError, Tally, Verdict, load_from_disk,
};
use crate::transcript::cache::{DEFAULT_BUDGET, SessionCache};
use crate::transcript::{DiscoverError, SessionRef, discover};

/// Every distinct tool name the existing index holds (MCP tools
/// included), for `matcher-no-tool`: read from an index that is already
/// there ([`Index::open_existing`]: nothing created, nothing walked);
/// empty with `no_index`, `HOOKSCOPE_NO_INDEX=1` or no usable index.
pub fn seen_tool_names(no_index: bool) -> Vec<String> {
    if no_index || index::disabled_by_env() {
        return Vec::new();
    }
    index::default_dir()
        .and_then(|dir| Index::open_existing(&dir))
        .and_then(|index| index.tool_names().ok())
        .unwrap_or_default()
}

/// The persisted index in its default folder, or `None` to work without
/// one: `no_index` (`--no-index`), `HOOKSCOPE_NO_INDEX`, no cache folder, or
/// SQLite unusable. The second value is the notices to show (rebuilt, in
/// memory, why there is none), one sentence each.
pub fn open_index(no_index: bool) -> (Option<Index>, Vec<String>) {
    if no_index || index::disabled_by_env() {
        return (None, Vec::new());
    }
    let Some(dir) = index::default_dir() else {
        return (
            None,
            vec!["no cache folder (neither XDG_CACHE_HOME nor a home folder); working without an index".to_string()],
        );
    };
    match Index::open(&dir) {
        Ok(index) => {
            let notices = index.notices().to_vec();
            (Some(index), notices)
        }
        Err(e) => (
            None,
            vec![format!("cannot open an index ({e}); working without one")],
        ),
    }
}

/// Why [`Library::find`] gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    /// A root is gone or is neither a transcript nor a folder.
    #[error(transparent)]
    Discover(#[from] DiscoverError),
    /// The query's own refusal (an argument it cannot use).
    #[error(transparent)]
    Query(#[from] QueryError),
}

/// What [`Library::find`] found (`T` = [`FindResult`]) or
/// [`Library::tally`] counted (`T` = [`Tally`]), and what the index did on
/// the way.
#[derive(Debug)]
pub struct Found<T = FindResult> {
    /// The sessions discovered, in discovery order.
    pub sessions: Vec<SessionRef>,
    /// The records, as `find_tool_calls` answers, or their counts.
    pub result: T,
    /// The index's sync (`None` without an index).
    pub sync: Option<SyncStats>,
    /// Discovery's diagnostics (a PATH that is a FIFO, an orphaned
    /// subagent file, an unreadable folder), sorted by path.
    pub diagnostics: Vec<crate::transcript::Diagnostic>,
}

/// A user's sessions and what answers questions over them (module docs).
/// Clones share the index and the cache.
#[derive(Clone)]
pub struct Library {
    paths: Vec<PathBuf>,
    cache: Option<Arc<SessionCache>>,
    index: Option<Arc<Mutex<Index>>>,
    notices: Arc<Mutex<Vec<String>>>,
}

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library")
            .field("paths", &self.paths)
            .field("cache", &self.cache.is_some())
            .field("index", &self.index.is_some())
            .finish()
    }
}

impl Library {
    /// The sessions under `paths` (the default roots when empty), without
    /// an index or a cache. Nothing is read yet.
    pub fn new(paths: &[PathBuf]) -> Library {
        Library {
            paths: paths.to_vec(),
            cache: None,
            index: None,
            notices: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// [`Library::new`], checking `paths` once by discovering them, so a
    /// bad PATH fails at start rather than on the first question.
    ///
    /// # Errors
    /// The [`DiscoverError`] of a PATH that does not exist or is not a
    /// transcript or folder.
    pub fn checked(paths: &[PathBuf]) -> Result<Library, DiscoverError> {
        discover(paths)?;
        Ok(Library::new(paths))
    }

    /// Keeps parsed sessions between questions (a [`SessionCache`] of
    /// [`DEFAULT_BUDGET`] bytes, estimated): for a server that answers many.
    #[must_use]
    pub fn with_cache(self) -> Library {
        Library {
            cache: Some(Arc::new(SessionCache::new(DEFAULT_BUDGET))),
            ..self
        }
    }

    /// Uses `index` as the first prefilter; it is synced with the sessions
    /// discovered before each question.
    #[must_use]
    pub fn with_index(self, index: Index) -> Library {
        Library {
            index: Some(Arc::new(Mutex::new(index))),
            ..self
        }
    }

    /// [`open_index`] and, when there is one, [`Library::with_index`]; its
    /// notices are kept for [`Library::take_notices`].
    #[must_use]
    pub fn with_default_index(self, no_index: bool) -> Library {
        let (index, notices) = open_index(no_index);
        self.notice(notices);
        match index {
            Some(index) => self.with_index(index),
            None => self,
        }
    }

    /// The parsed sessions kept between questions, when there is a cache.
    pub fn cache(&self) -> Option<&SessionCache> {
        self.cache.as_deref()
    }

    /// The notices gathered since the last call (the index rebuilt, kept in
    /// memory, or not used, and why), oldest first.
    pub fn take_notices(&self) -> Vec<String> {
        self.notices
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }

    fn notice(&self, more: impl IntoIterator<Item = String>) {
        if let Ok(mut n) = self.notices.lock() {
            n.extend(more);
        }
    }

    /// Discovers the sessions now (a directory walk; files are not read).
    ///
    /// # Errors
    /// A [`DiscoverError`] when a root has gone.
    pub fn sessions(&self) -> Result<Vec<SessionRef>, DiscoverError> {
        Ok(discover(&self.paths)?.sessions)
    }

    /// A full session id answered from the index, without walking the
    /// roots: `Some` when the index holds exactly one session with exactly
    /// this id under the roots and its files are unchanged since it was
    /// indexed ([`current_states`]); `None` otherwise (no index, a prefix,
    /// an id stored twice or not at all, a file changed or gone), and the
    /// caller discovers as usual. A session added since the last sync with
    /// the same id is not seen (docs/cli.md#index).
    pub fn resolve_stored(&self, id: &str) -> Option<SessionRef> {
        let index = self.index.as_ref()?.lock().ok()?;
        let roots = if self.paths.is_empty() {
            crate::transcript::discover::default_roots()
        } else {
            self.paths.clone()
        };
        let mut found = index.stored_with_id(id, &roots);
        if found.len() != 1 {
            return None;
        }
        let states = current_states(&index, &found);
        matches!(states.first(), Some(State::Indexed)).then(|| found.remove(0))
    }

    /// The existing index, if it is current, for lookups that must change
    /// nothing ([`Index::open_existing`]); nothing when `no_index` or
    /// `HOOKSCOPE_NO_INDEX=1`. No notice: without it the caller just walks.
    #[must_use]
    pub fn with_existing_index(self, no_index: bool) -> Library {
        if no_index || index::disabled_by_env() {
            return self;
        }
        match index::default_dir().and_then(|dir| Index::open_existing(&dir)) {
            Some(index) => self.with_index(index),
            None => self,
        }
    }

    /// Whether answers go through an index.
    pub fn has_index(&self) -> bool {
        self.index.is_some()
    }

    /// Loads one session, through the cache when there is one.
    pub fn load(&self, session: &SessionRef) -> LoadedSession {
        match &self.cache {
            Some(cache) => cache.get(session),
            None => load_from_disk(session),
        }
    }

    /// Brings the index up to date with `sessions` (`progress` as
    /// [`Index::sync`] calls it); `None` without an index. New notices are
    /// kept for [`Library::take_notices`].
    pub fn sync(
        &self,
        sessions: &[SessionRef],
        progress: &mut dyn FnMut(Progress),
    ) -> Option<Synced> {
        let mut index = self.index.as_ref()?.lock().ok()?;
        let known = index.notices().len();
        let synced = index.sync(sessions, progress);
        self.notice(index.notices().iter().skip(known).cloned());
        Some(synced)
    }

    /// The discovery of the roots and the index's state for each of its
    /// sessions: the discovery kept in the index when none of the folders
    /// and files it read changed ([`Index::stored_discovery`]: no walk, no
    /// sync), else a walk, a sync of what it found (`progress` as
    /// [`Index::sync`] calls it), and that discovery kept for next time.
    /// `None` for the state without an index.
    ///
    /// # Errors
    /// A root has gone, or is neither a transcript nor a folder.
    pub fn discover_synced(
        &self,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(crate::transcript::Discovery, Option<Synced>), DiscoverError> {
        let roots = crate::transcript::roots_of(&self.paths);
        let stored = self
            .index
            .as_ref()
            .and_then(|i| i.lock().ok())
            .and_then(|i| i.stored_discovery(&roots));
        if let Some(stored) = stored {
            let n = stored.sessions.len();
            return Ok((stored, Some(crate::index::discovery::synced_stored(n))));
        }
        if self.index.is_none() {
            return Ok((discover(&self.paths)?, None));
        }
        let (found, fingerprint) = crate::transcript::discover_fingerprinted(&self.paths)?;
        let synced = self.sync(&found.sessions, progress);
        self.keep_discovery(&found, fingerprint.as_ref(), synced.as_ref());
        Ok((found, synced))
    }

    /// Keeps a whole discovery and its sync in the index
    /// ([`Index::store_discovery`]) when both are there.
    fn keep_discovery(
        &self,
        found: &crate::transcript::Discovery,
        fingerprint: Option<&crate::transcript::fingerprint::Fingerprint>,
        synced: Option<&Synced>,
    ) {
        if let (Some(fp), Some(synced), Some(Ok(index))) =
            (fingerprint, synced, self.index.as_ref().map(|i| i.lock()))
        {
            index.store_discovery(found, fp, synced);
        }
    }

    /// Summaries of the sessions under the roots that `keep` keeps
    /// ([`Library::discover_synced`], then the index's summaries; without
    /// an index, each kept session loaded): the discovery (its sessions
    /// cut to the kept ones), each kept session's summary in its order, and
    /// what the index did.
    ///
    /// # Errors
    /// As [`Library::discover_synced`].
    #[allow(clippy::type_complexity)]
    pub fn discover_summaries(
        &self,
        keep: &dyn Fn(&SessionRef) -> bool,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<
        (
            crate::transcript::Discovery,
            Vec<index::SummaryResult>,
            Option<SyncStats>,
        ),
        DiscoverError,
    > {
        let (mut found, synced) = self.discover_synced(progress)?;
        let kept: Vec<bool> = found.sessions.iter().map(keep).collect();
        let (mut results, stats) = match (synced, self.index.as_ref().map(|i| i.lock())) {
            (Some(synced), Some(Ok(index))) => {
                let stats = synced.stats.clone();
                (index.summaries(&found.sessions, synced), Some(stats))
            }
            (synced, _) => {
                // Without rows: only the kept sessions are loaded.
                retain_kept(&mut found.sessions, &kept);
                let results = crate::transcript::load_summaries(&found.sessions);
                return Ok((found, results, synced.map(|s| s.stats)));
            }
        };
        retain_kept(&mut found.sessions, &kept);
        retain_kept(&mut results, &kept);
        Ok((found, results, stats))
    }

    /// Each session's summary and diagnostics, in the order of
    /// `sessions`: from the index (synced first; only changed sessions are
    /// read) or by loading every session. The same either way.
    pub fn summaries(
        &self,
        sessions: &[SessionRef],
        progress: &mut dyn FnMut(Progress),
    ) -> (Vec<index::SummaryResult>, Option<SyncStats>) {
        let Some(synced) = self.sync(sessions, progress) else {
            return (crate::transcript::load_summaries(sessions), None);
        };
        let stats = synced.stats.clone();
        match self.index.as_ref().map(|i| i.lock()) {
            Some(Ok(index)) => (index.summaries(sessions, synced), Some(stats)),
            _ => (crate::transcript::load_summaries(sessions), Some(stats)),
        }
    }

    /// `find_tool_calls` over the sessions discovered now. With an index,
    /// its candidates are read on a second connection while discovery and
    /// the sync run (they stand when the sync reused every session), and
    /// only the sessions it says can hold a match are loaded, or built
    /// from their rows; without one, every session goes through the raw
    /// prefilter. The records are the same either way.
    ///
    /// # Errors
    /// A root has gone, or the query refuses an argument.
    pub fn find(
        &self,
        query: &Query,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Found, FindError> {
        self.answer(query, progress, &|finder| finder.run())
    }

    /// How many calls `find` would return with no limit, split by
    /// `group_by` when given ([`Finder::tally`], docs/cli.md#counts-and-facets):
    /// discovered, synced and narrowed as [`Library::find`] does; sessions
    /// the index describes are counted from their rows. The counts are the
    /// same without an index.
    ///
    /// # Errors
    /// As [`Library::find`].
    pub fn tally(
        &self,
        query: &Query,
        group_by: Option<GroupBy>,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Found<Tally>, FindError> {
        self.answer(query, progress, &|finder| finder.tally(group_by))
    }

    /// [`Library::find`]'s discovery, sync and verdicts, then `run` on the
    /// [`Finder`] they give.
    fn answer<T>(
        &self,
        query: &Query,
        progress: &mut dyn FnMut(Progress),
        run: &dyn Fn(Finder<'_>) -> Result<T, QueryError>,
    ) -> Result<Found<T>, FindError> {
        let reader = self
            .index
            .as_ref()
            .and_then(|i| i.lock().ok().and_then(|i| i.reader()));
        // The discovery kept in the index, or a walk and a sync, while the
        // candidates are read on the second connection, for the sessions
        // under the roots only (the index holds every folder ever given).
        // They stand only if nothing was written to the index between
        // their reading and the end of the sync (`data_version` on the
        // reader's connection): another process may have indexed these
        // sessions meanwhile (this sync then waited for it and reuses
        // every row, which the early candidates do not hold).
        let under = Scope::under(&crate::transcript::roots_of(&self.paths));
        let (discovered, early) = std::thread::scope(|scope| {
            let early = reader.map(|r| {
                let under = &under;
                scope.spawn(move || {
                    let before = r.data_version();
                    let candidates = r.candidates_of(query, under);
                    (before, candidates, r)
                })
            });
            let discovered = self.discover_synced(progress);
            let early = early
                .and_then(|h| h.join().ok())
                .map(|(before, candidates, r)| {
                    let unchanged = before.is_some() && before == r.data_version();
                    (candidates.filter(|_| unchanged), r.bytes_read())
                });
            (discovered, early)
        });
        let (early, early_read) = early.unwrap_or((None, 0));
        let (found, synced) = discovered?;
        let diagnostics = found.diagnostics;
        let sessions = found.sessions;
        let loader = |s: &SessionRef| self.load(s);
        let Some(synced) = synced else {
            let result = run(Finder::new(&sessions, query).loader(&loader))?;
            return Ok(Found {
                sessions,
                result,
                sync: None,
                diagnostics,
            });
        };
        let result = match self.index.as_ref().map(|i| i.lock()) {
            Some(Ok(index)) => {
                // The lines the early read took count in the index's stats.
                index.count_read(early_read);
                // The early candidates cover every session found only if
                // each is under a root as spelt (a scope that missed one
                // would leave it without candidates).
                let every = under.holds_every(&sessions);
                let candidates = match early {
                    Some(c) if every && synced.reused.iter().all(|r| *r) => Some(c),
                    _ if every => index.candidates_of(query, &under),
                    _ => index.candidates_of(query, &Scope::of(&sessions)),
                };
                let verdicts = Index::verdicts_from(candidates, &sessions, &synced.states);
                index.in_read_transaction(|| {
                    run(Finder::new(&sessions, query)
                        .loader(&loader)
                        .verdicts(&verdicts)
                        .rows(&*index))
                })?
            }
            _ => run(Finder::new(&sessions, query).loader(&loader))?,
        };
        Ok(Found {
            sessions,
            result,
            sync: Some(synced.stats),
            diagnostics,
        })
    }

    /// `find_tool_calls` over `sessions` (already discovered), with the
    /// index synced with them first when there is one; the records are
    /// those without it.
    ///
    /// # Errors
    /// The query refuses an argument.
    pub fn find_in(
        &self,
        sessions: &[SessionRef],
        query: &Query,
    ) -> Result<FindResult, QueryError> {
        let Some(synced) = self.sync(sessions, &mut |_| {}) else {
            return self.find_unindexed(sessions, query);
        };
        match self.index.as_ref().map(|i| i.lock()) {
            Some(Ok(index)) => {
                let verdicts = index.verdicts(sessions, &synced.states, query);
                let loader = |s: &SessionRef| self.load(s);
                Finder::new(sessions, query)
                    .loader(&loader)
                    .verdicts(&verdicts)
                    .rows(&*index)
                    .run()
            }
            _ => self.find_unindexed(sessions, query),
        }
    }

    fn find_unindexed(
        &self,
        sessions: &[SessionRef],
        query: &Query,
    ) -> Result<FindResult, QueryError> {
        let loader = |s: &SessionRef| self.load(s);
        Finder::new(sessions, query).loader(&loader).run()
    }

    /// Backtests `rules` over `sessions` ([`backtest_refs`]); with an
    /// index (synced first), a session whose indexed call names cannot
    /// match any rule is counted skipped unread (per rule: [`backtest_index`]).
    /// `progress` gets the number of sessions done, from any thread.
    pub fn backtest(
        &self,
        sessions: &[SessionRef],
        rules: &RuleSet,
        progress: &(dyn Fn(usize) + Sync),
        sync_progress: &mut dyn FnMut(Progress),
    ) -> (Backtest, Option<SyncStats>) {
        let synced = self.sync(sessions, sync_progress);
        self.backtest_synced(sessions, rules, progress, synced)
    }

    /// [`Library::backtest`] of sessions already synced: `synced` as
    /// [`Library::discover_synced`] gives it with its discovery (the kept
    /// one: no walk, no sync), `None` without an index.
    pub fn backtest_synced(
        &self,
        sessions: &[SessionRef],
        rules: &RuleSet,
        progress: &(dyn Fn(usize) + Sync),
        synced: Option<Synced>,
    ) -> (Backtest, Option<SyncStats>) {
        let Some(synced) = synced else {
            return (backtest_refs(sessions, rules, progress), None);
        };
        let index = self.backtest_index(sessions, rules);
        let known = |i: usize| index.as_ref().and_then(|x| x.known(i));
        (
            backtest_refs_knowing(sessions, rules, progress, &known),
            Some(synced.stats),
        )
    }

    /// The `HOOKSCOPE_INDEX_STATS` object after a question (`{"sync":
    /// {…}, "bytes_read": N, "in_memory": bool}`; `bytes_read` counts every
    /// transcript byte read through the index), `None` without an index.
    pub fn index_stats(&self, sync: &SyncStats) -> Option<serde_json::Value> {
        let index = self.index.as_ref()?.lock().ok()?;
        Some(serde_json::json!({
            "sync": sync,
            "bytes_read": index.bytes_read(),
            "in_memory": index.file().is_none(),
        }))
    }
}

/// What the index tells a backtest of `rules` about each of `sessions`
/// ([`Known`]: per rule whether it may match there, and where its calls'
/// lines are), asked one session at a time ([`BacktestIndex::known`]);
/// `None` when no rule asks the index anything or it cannot be read.
pub fn backtest_index<'a>(
    index: &'a Mutex<Index>,
    sessions: &'a [SessionRef],
    rules: &'a RuleSet,
) -> Option<BacktestIndex<'a>> {
    let mask = index
        .lock()
        .ok()
        .and_then(|i| IndexMask::new(&i, sessions, rules))?;
    Some(BacktestIndex {
        index,
        sessions,
        mask,
    })
}

/// [`backtest_index`]'s answer for a run: the index, the sessions, and
/// what the rules need of them, read once.
pub struct BacktestIndex<'a> {
    index: &'a Mutex<Index>,
    sessions: &'a [SessionRef],
    mask: IndexMask<'a>,
}

impl BacktestIndex<'_> {
    /// What the index says of session `i` ([`Known`]); `None` for a
    /// session it cannot say anything of (neither Claude Code's nor Droid's, rows not
    /// current, a main file changed since discovery). A session whose
    /// every rule is ruled out is skipped unread by the backtest. Takes the
    /// index's lock for the session's few lookups.
    pub fn known(&self, i: usize) -> Option<Known> {
        self.mask.possible(self.index, self.sessions, i)
    }
}

/// Per session of `sessions`, whether the backtest of `rules` counts it
/// skipped unread by the index: [`backtest_index`] rules out every rule
/// there.
pub fn skipped_by_index(index: &Index, sessions: &[SessionRef], rules: &RuleSet) -> Vec<bool> {
    let Some(known) = IndexMask::new(index, sessions, rules) else {
        return vec![false; sessions.len()];
    };
    (0..sessions.len())
        .map(|i| {
            known
                .possible_locked(index, sessions, i)
                .is_some_and(|m| !m.contains(&true))
        })
        .collect()
}

/// Whether a session may be skipped by what the index says of its calls:
/// it is Claude Code's or Droid's (the agents whose payloads are rebuilt,
/// [`crate::hooks::events::rebuilds`]: a PreToolUse payload carries the
/// recorded call's name and input, which the index stores, and Droid's
/// stored prompts and Stop marks come from its own rebuilt payloads), and
/// its main file still has the size and mtime `s` gives (a discovery kept
/// in the index is not a fresh walk).
fn skippable(s: &SessionRef) -> bool {
    crate::hooks::events::rebuilds(s.agent) && main_file_unchanged(s)
}

/// Whether `s`'s main file still has the size and mtime its discovery saw.
fn main_file_unchanged(s: &SessionRef) -> bool {
    std::fs::metadata(&s.path).is_ok_and(|m| m.len() == s.size && m.modified().ok() == s.modified)
}

/// What the index says of each rule of a set in one session
/// ([`index_needs`]), asked one session at a time, by the backtest's
/// workers ([`backtest_refs_knowing`]): which sessions' rows are current
/// and what the rules need of a call are read once, up front; each
/// session's own question then takes the index's lock only for its few
/// lookups, while the other worker reads a session.
struct IndexMask<'r> {
    current: Vec<bool>,
    needs: Vec<crate::hooks::replay::IndexNeed<'r>>,
    /// When the set has a line filter: the names of the calls whose lines
    /// it may take for candidates (`Some(None)`: every call;
    /// [`crate::hooks::replay::LineFilter::call_names`]).
    line_names: Option<Option<crate::index::names::FoldedPairs>>,
    /// The distinct call needs' pairs ([`Index::folded_pairs`]), and per
    /// rule the place of its own among them.
    pairs: Vec<crate::index::names::FoldedPairs>,
    pair_of: Vec<Option<usize>>,
}

impl<'r> IndexMask<'r> {
    /// `None` when no rule asks the index anything, or the index cannot
    /// be read.
    fn new(index: &Index, sessions: &[SessionRef], rules: &'r RuleSet) -> Option<IndexMask<'r>> {
        let needs = index_needs(rules);
        if !needs.iter().any(|n| n.asks()) {
            return None;
        }
        let mut pairs: Vec<crate::index::names::FoldedPairs> = Vec::new();
        let mut pair_of = Vec::with_capacity(needs.len());
        for n in &needs {
            pair_of.push(match &n.call {
                None => None,
                Some(call) => {
                    let p = index.folded_pairs(std::slice::from_ref(call)).ok()?;
                    Some(pairs.iter().position(|q| *q == p).unwrap_or_else(|| {
                        pairs.push(p);
                        pairs.len() - 1
                    }))
                }
            });
        }
        let line_names = match crate::hooks::replay::LineFilter::new(rules) {
            None => None,
            Some(filter) => Some(match filter.call_names() {
                None => None,
                Some(names) => Some(
                    index
                        .folded_pairs(&[crate::index::names::CallNeed {
                            names,
                            inputs: None,
                        }])
                        .ok()?,
                ),
            }),
        };
        Some(IndexMask {
            current: index.current(sessions),
            needs,
            line_names,
            pairs,
            pair_of,
        })
    }

    /// Per rule, whether it may match in session `i` of `sessions`, and
    /// where its calls' lines are ([`BacktestIndex::known`]).
    fn possible(&self, index: &Mutex<Index>, sessions: &[SessionRef], i: usize) -> Option<Known> {
        // The lines of long inputs are read after the lock is let go.
        let asked = {
            let index = index.lock().ok()?;
            self.ask(&index, sessions, i)?
        };
        let possible = self.answer(asked);
        // The calls' lines only for a session some rule may match in.
        let call_lines = match (&self.line_names, sessions.get(i)) {
            (Some(names), Some(s)) if possible.contains(&true) => index
                .lock()
                .ok()?
                .session_call_lines(s, names.as_ref())
                .ok()
                .flatten(),
            _ => None,
        };
        Some(Known {
            possible,
            call_lines,
        })
    }

    /// Per rule, [`IndexMask::possible`]'s answer with the index in hand.
    fn possible_locked(
        &self,
        index: &Index,
        sessions: &[SessionRef],
        i: usize,
    ) -> Option<Vec<bool>> {
        Some(self.answer(self.ask(index, sessions, i)?))
    }

    /// What the index holds of session `i` for the rules' needs; `None`
    /// when it cannot say.
    fn ask(&self, index: &Index, sessions: &[SessionRef], i: usize) -> Option<Asked> {
        let s = sessions.get(i)?;
        if !self.current.get(i).copied().unwrap_or(false) || !skippable(s) {
            return None;
        }
        let prompts = if self.needs.iter().any(|n| n.prompt.is_some()) {
            index.session_prompts(s).ok()?
        } else {
            Vec::new()
        };
        let agent_types = if self.needs.iter().any(|n| n.agents.is_some()) {
            index.session_agent_types(s).ok()?
        } else {
            None
        };
        let calls = self
            .pairs
            .iter()
            .map(|p| index.session_answer(s, p).ok())
            .collect::<Option<Vec<_>>>()?;
        Some(Asked {
            prompts,
            agent_types,
            calls,
        })
    }

    /// Per rule, whether its need holds in what was asked.
    fn answer(&self, asked: Asked) -> Vec<bool> {
        let calls: Vec<bool> = asked.calls.into_iter().map(|a| a.holds()).collect();
        self.needs
            .iter()
            .zip(&self.pair_of)
            .map(|(n, pair)| {
                pair.is_none_or(|p| calls.get(p).copied().unwrap_or(true))
                    && n.prompt.is_none_or(|(patterns, stops)| {
                        crate::index::prompts::prompt_may_hold(&asked.prompts, patterns, stops)
                    })
                    && n.agents.is_none_or(|names| {
                        asked
                            .agent_types
                            .as_ref()
                            .is_none_or(|types| types.iter().any(|t| names.contains(t)))
                    })
            })
            .collect()
    }
}

/// What [`IndexMask::ask`] read of one session.
struct Asked {
    prompts: Vec<crate::index::prompts::StoredPrompt>,
    /// `None`: not asked, or not known.
    agent_types: Option<Vec<String>>,
    /// Per distinct call need, the index's answer.
    calls: Vec<crate::index::names::SessionAnswer>,
}

/// Keeps the items of `items` whose place in `kept` is `true`.
fn retain_kept<T>(items: &mut Vec<T>, kept: &[bool]) {
    let mut k = kept.iter();
    items.retain(|_| k.next().copied().unwrap_or(false));
}

/// Per session, its state for [`Index::verdicts`] when it is taken as
/// stored: [`State::Indexed`] when its rows are current now
/// ([`Index::current`]: the stored stamps equal the files', and the main
/// file still has the size and mtime discovery saw), else
/// [`State::NotIndexed`] (a live session grown since: it goes through the
/// raw prefilter).
pub fn current_states(index: &Index, sessions: &[SessionRef]) -> Vec<State> {
    index
        .current(sessions)
        .into_par_iter()
        .zip(sessions)
        .map(|(current, s)| {
            if current && main_file_unchanged(s) {
                State::Indexed
            } else {
                State::NotIndexed
            }
        })
        .collect()
}

/// [`Index::verdicts`] for sessions taken as they are stored now
/// ([`current_states`]), without a sync: what the TUI asks while its own
/// sync runs.
pub fn current_verdicts(
    index: &Index,
    sessions: &[SessionRef],
    query: &Query,
) -> Vec<Option<Verdict>> {
    index.verdicts(sessions, &current_states(index, sessions), query)
}
