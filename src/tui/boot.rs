//! The TUI's start (docs/cli.md#index, docs/benchmarks.md#heavy-user-benchmark): the first frame from the persisted
//! index, discovery and the index sync behind it.
//!
//! [`Boot::begin`] opens the index and, when every root is a folder and the
//! index holds sessions under them ([`Library::listed`]), builds the app from
//! those stored rows (sessions, summaries, diagnostics) without walking the
//! disk, and starts discovery on a thread ([`Msg::Discovered`]). The list is
//! then provisional (the status bar says "checking the disk…"); when
//! discovery answers, [`Boot::discovered`] replaces it with what is on disk
//! ([`App::rediscovered`]: kept summaries, selection and open session follow
//! their session) and starts the index sync and the Calls-view query thread
//! as a start without a stored list does.
//!
//! Calls queries asked before discovery answers do not wait for it: a
//! query thread of their own answers them from the stored list at once
//! ([`worker::spawn_queries_stored`], on a second connection to the index
//! file, so it never waits for the sync's lock). That answer stands while
//! nothing changed: when discovery's list differs from the stored one
//! (sessions added, gone, grown, other subagent files), or the sync finds
//! a session whose files changed since it was stored (it re-indexes it),
//! that thread is retired ([`worker::Queries::retire`]: it sends nothing
//! more) and the newest query it was asked is asked again of the thread
//! over the discovered list, whose answer then replaces it on screen
//! ([`Boot::summaries_done`]). Without a second connection (an index in
//! memory), queries wait for discovery (the newest one is sent then).
//!
//! Otherwise (no index, `--no-index`, a file PATH, nothing stored under the
//! roots, the bundled demo) discovery runs first, as before, and
//! [`super::start_with`] starts the rest.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::thread;

use chrono::FixedOffset;
use hookscope_core::index::Index;
use hookscope_core::query::Query;
use hookscope_core::service::{Library, open_index};
use hookscope_core::transcript::discover::default_roots;
use hookscope_core::transcript::{Discovery, SessionRef, discover};

use super::app::App;
use super::theme::Theme;
use super::worker::{self, Msg, Queries, SummaryItem};

/// How the banner of a start that found no session begins (`… under
/// <roots>. Pass a PATH …`); the first session that appears takes it away.
pub const NO_SESSIONS: &str = " No sessions found under";

/// How long a Calls answer over part of the sessions (the index's first
/// build running) stands before the start asks its query again, while
/// indexing goes on (5 s: the list grows as the build goes, and the
/// selection stays on its call).
pub const REFRESH_WHILE_INDEXING: std::time::Duration = std::time::Duration::from_secs(5);

/// What the start still has to do, held by the event loop.
pub struct Boot {
    /// The library with the index, until discovery answers and the
    /// workers take it.
    unsynced: Option<Library>,
    /// The Calls-view query thread, once started.
    queries: Option<Queries>,
    /// The newest Calls query asked before that (generation, query), when
    /// no thread answers from the stored list.
    pending: Option<(u64, Query)>,
    /// The query thread over the stored list (see the module doc), until
    /// its answers are known to stand or it is retired.
    early: Option<Queries>,
    /// The newest Calls query asked (generation, query), and whether it
    /// went to [`Boot::early`].
    last: Option<(u64, Query, bool)>,
    /// The sync's flag ([`worker::spawn_index_sync`]): every stored row was
    /// reused, so the early answers stand.
    unchanged: Option<Arc<AtomicBool>>,
    /// Queries asked again because the stored list changed.
    asked_again: usize,
    /// Whether a query searched only the sessions indexed so far (a
    /// [`Msg::Scope`] of part of them) since the sync last ended.
    searched_part: bool,
    /// Queries asked again because a sync that they searched part of went
    /// on or ended ([`Boot::indexing`]).
    asked_after_indexing: usize,
    /// When the newest query was last asked, and how long a query that
    /// searched part of the sessions stands while indexing goes on
    /// ([`REFRESH_WHILE_INDEXING`]; tests shorten it).
    asked_at: Option<std::time::Instant>,
    refresh_every: std::time::Duration,
    /// The sessions as discovered (the provisional list until then).
    pub refs: Vec<SessionRef>,
    /// The roots searched (followed for new sessions).
    pub roots: Vec<PathBuf>,
    /// The sessions' library with its index as the workers share it, once
    /// the sync has started (the backtest asks it which sessions no rule
    /// can match); `None` without an index.
    pub library: Option<Library>,
}

impl Boot {
    /// Builds the app for `paths` (or the default roots; the bundled demo
    /// when those hold no session) and starts the workers that fill it (see
    /// the module doc). Index notices go to the status bar.
    ///
    /// # Errors
    /// A PATH that does not exist or is not a transcript (from discovery,
    /// when it runs first).
    pub fn begin(
        paths: &[PathBuf],
        no_index: bool,
        offset: FixedOffset,
        theme: Theme,
        tx: &Sender<Msg>,
    ) -> anyhow::Result<(App, Boot)> {
        let (index, notices) = open_index(no_index);
        Self::begin_with(paths, index, notices, offset, theme, tx)
    }

    /// [`Boot::begin`] with the index given (`None`: without one) and its
    /// notices; tests pass one opened in a temporary folder.
    ///
    /// # Errors
    /// As [`Boot::begin`].
    pub fn begin_with(
        paths: &[PathBuf],
        index: Option<Index>,
        notices: Vec<String>,
        offset: FixedOffset,
        theme: Theme,
        tx: &Sender<Msg>,
    ) -> anyhow::Result<(App, Boot)> {
        let roots = if paths.is_empty() {
            default_roots()
        } else {
            paths.to_vec()
        };
        let library = index.map(|i| Library::new(&roots).with_index(i));
        // Empty unless every root is a folder holding stored sessions.
        let listed = library
            .as_ref()
            .map(|l| l.listed(&roots))
            .unwrap_or_default();
        if listed.is_empty() {
            return Self::begin_discovered(paths, library, notices, offset, theme, tx);
        }
        let refs: Vec<SessionRef> = listed.iter().map(|l| l.sref.clone()).collect();
        let mut app = App::new(refs.clone(), Vec::new(), offset, theme);
        for line in notices {
            app.ctx.say(line);
        }
        let items: Vec<(usize, SummaryItem)> = listed
            .into_iter()
            .enumerate()
            .map(|(i, l)| (i, Ok((l.summary, l.diagnostics))))
            .collect();
        app.apply(Msg::Summaries {
            items,
            tool_names: Vec::new(),
        });
        app.ctx.checking = true;
        // A second connection for the queries asked before discovery
        // answers (an index in memory has none: they wait).
        let early = library
            .as_ref()
            .and_then(Library::reader)
            .map(|reader| worker::spawn_queries_stored(refs.clone(), reader, tx.clone()));
        let (paths, found_tx) = (paths.to_vec(), tx.clone());
        thread::spawn(move || {
            let found = discover(&paths).map_err(|e| e.to_string());
            let _ = found_tx.send(Msg::Discovered(found));
        });
        Ok((
            app,
            Boot {
                unsynced: library,
                early,
                ..Boot::new(None, refs, roots, None)
            },
        ))
    }

    /// The start without a stored list: discovery now, then
    /// [`super::start_with`].
    fn begin_discovered(
        paths: &[PathBuf],
        library: Option<Library>,
        notices: Vec<String>,
        offset: FixedOffset,
        theme: Theme,
        tx: &Sender<Msg>,
    ) -> anyhow::Result<(App, Boot)> {
        let mut found = discover(paths)?;
        let mut banner = None;
        if paths.is_empty()
            && found.sessions.is_empty()
            && let Some(demo) = super::demo_dir()
        {
            found = discover(std::slice::from_ref(&demo))?;
            banner = Some(
                " DEMO: no sessions found, showing bundled ones. Pass a PATH to open yours."
                    .to_string(),
            );
        }
        if found.sessions.is_empty() && banner.is_none() {
            // An empty list alone does not say where it looked.
            let looked: Vec<String> = found
                .roots
                .iter()
                .map(|r| hookscope_core::printable::printable(&r.to_string_lossy()).into_owned())
                .collect();
            banner = Some(format!(
                "{NO_SESSIONS} {}.{}",
                if looked.is_empty() {
                    "the default folders".to_string()
                } else {
                    looked.join(", ")
                },
                if paths.is_empty() {
                    " Pass a PATH to a folder of sessions."
                } else {
                    ""
                }
            ));
        }
        let mut app = App::new(found.sessions.clone(), found.diagnostics, offset, theme);
        app.set_banner(banner);
        for line in notices {
            app.ctx.say(line);
        }
        let queries = super::start_shared(&mut app, &found.sessions, library.clone(), tx);
        Ok((
            app,
            Boot::new(Some(queries), found.sessions, found.roots, library),
        ))
    }

    /// A start over `refs` (under `roots`) whose query thread is `queries`
    /// (once started) and whose workers share `library`; nothing asked yet.
    fn new(
        queries: Option<Queries>,
        refs: Vec<SessionRef>,
        roots: Vec<PathBuf>,
        library: Option<Library>,
    ) -> Boot {
        Boot {
            unsynced: None,
            queries,
            pending: None,
            early: None,
            last: None,
            unchanged: None,
            asked_again: 0,
            searched_part: false,
            asked_after_indexing: 0,
            asked_at: None,
            refresh_every: REFRESH_WHILE_INDEXING,
            refs,
            roots,
            library,
        }
    }

    /// Takes discovery's answer at a fast start: the app's list becomes
    /// what is on disk, and the index sync (stored summaries of unchanged
    /// sessions are not sent again) and the Calls-view query thread start.
    /// A discovery that failed keeps the stored list (and says why).
    /// When discovery's list differs from the stored one, the answers from
    /// the stored list are retired and the newest query asked of them is
    /// asked again (see the module doc).
    pub fn discovered(
        &mut self,
        app: &mut App,
        found: Result<Discovery, String>,
        tx: &Sender<Msg>,
    ) {
        let same = match &found {
            Ok(found) => found.sessions == self.refs,
            Err(_) => true,
        };
        let mask = match found {
            Ok(found) => {
                self.refs = found.sessions.clone();
                app.rediscovered(found.sessions, found.diagnostics)
            }
            Err(e) => {
                app.ctx.checking = false;
                app.ctx
                    .say(format!("cannot list the sessions on disk: {e}"));
                vec![true; self.refs.len()]
            }
        };
        let queries = match self.unsynced.take() {
            Some(library) => {
                let (queries, unchanged) =
                    super::spawn_synced(&self.refs, library.clone(), mask, tx);
                self.unchanged = Some(unchanged);
                self.library = Some(library);
                queries
            }
            None => {
                worker::spawn_summaries(self.refs.clone(), tx.clone());
                worker::spawn_queries(self.refs.clone(), tx.clone())
            }
        };
        if let Some((generation, query)) = self.pending.take() {
            queries.send(generation, query);
        }
        self.queries = Some(queries);
        if !same {
            self.retire_early();
        }
    }

    /// Takes the end of the index sync ([`Msg::SummariesDone`], which the
    /// event loop also applies): unless the sync reused every stored row,
    /// the answers from the stored list are retired and the newest query
    /// asked of them is asked again of the thread over the discovered list.
    pub fn summaries_done(&mut self) {
        let stands = self
            .unchanged
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::SeqCst));
        if stands {
            // Its answers stand; the thread ends when the handle drops.
            self.early = None;
        } else if self.queries.is_some() {
            self.retire_early();
        }
    }

    /// Retires the thread over the stored list and asks its newest query
    /// again (of the thread over the discovered list).
    fn retire_early(&mut self) {
        let Some(early) = self.early.take() else {
            return;
        };
        early.retire();
        let asked = match &self.last {
            Some((generation, query, true)) => Some((*generation, query.clone())),
            _ => None,
        };
        if let (Some((generation, query)), Some(queries)) = (asked, &self.queries) {
            queries.send(generation, query.clone());
            self.last = Some((generation, query, false));
            self.asked_again += 1;
        }
    }

    /// Takes the index sync's progress ([`Msg::Indexing`], which the
    /// event loop also applies): the query thread learns whether a sync
    /// runs (while a first build does, a query searches the sessions
    /// indexed so far: [`Msg::Scope`]). The newest query, when it searched
    /// part of them, is asked again every [`REFRESH_WHILE_INDEXING`] while
    /// indexing goes on, and once more, over every session, when it ends.
    fn indexing(&mut self, progress: Option<(usize, usize)>) {
        let indexing = progress.is_some();
        if let Some(queries) = &self.queries {
            queries.indexing(indexing);
        }
        let due = if indexing {
            self.searched_part
                && self
                    .asked_at
                    .is_none_or(|at| at.elapsed() >= self.refresh_every)
        } else {
            std::mem::take(&mut self.searched_part)
        };
        if !due {
            return;
        }
        if let (Some((generation, query, false)), Some(queries)) = (&self.last, &self.queries) {
            queries.send(*generation, query.clone());
            self.asked_at = Some(std::time::Instant::now());
            self.asked_after_indexing += 1;
        }
    }

    /// A start whose query thread is `queries` (already started), for the
    /// tests of [`Boot::indexing`].
    #[cfg(test)]
    pub fn with_queries(queries: Queries) -> Boot {
        Boot::new(Some(queries), Vec::new(), Vec::new(), None)
    }

    /// How many Calls queries were asked again because a sync that they
    /// searched part of went on or ended ([`Boot::indexing`]).
    #[cfg(test)]
    pub fn asked_after_indexing(&self) -> usize {
        self.asked_after_indexing
    }

    /// Sets how long an answer over part of the sessions stands while
    /// indexing goes on ([`REFRESH_WHILE_INDEXING`]).
    #[cfg(test)]
    pub fn refresh_every(&mut self, every: std::time::Duration) {
        self.refresh_every = every;
    }

    /// The query thread, once started.
    #[cfg(test)]
    pub fn queries(&self) -> Option<&Queries> {
        self.queries.as_ref()
    }

    /// What the event loop hands the start before applying `msg` to the
    /// app: [`Msg::Indexing`] ([`Boot::indexing`]) and a [`Msg::Scope`] of
    /// part of the sessions (its query is asked again as indexing goes on);
    /// other messages are not the start's.
    pub fn observe(&mut self, msg: &Msg) {
        match msg {
            Msg::Indexing(progress) => self.indexing(*progress),
            Msg::Scope {
                searched, total, ..
            } if searched < total => self.searched_part = true,
            _ => {}
        }
    }

    /// How many Calls queries were asked again because discovery or the
    /// sync found the stored list changed (0 when every answer from the
    /// stored list stood).
    #[cfg(test)]
    pub fn asked_again(&self) -> usize {
        self.asked_again
    }

    /// Whether the list is discovery's (it ran first, or has answered):
    /// [`Boot::refs`] is then what is on disk.
    pub fn is_discovered(&self) -> bool {
        self.queries.is_some()
    }

    /// Tells the query threads that `generation` is the newest Calls query
    /// although it is not asked yet (it waits for typing to pause): a
    /// running query of an older generation stops reading at once.
    pub fn supersede(&self, generation: u64) {
        for queries in [&self.queries, &self.early].into_iter().flatten() {
            queries.supersede(generation);
        }
    }

    /// Asks the Calls-view query thread for `query`: the one over the
    /// discovered list once discovery has answered, else the one over the
    /// stored list, else keeps it (the newest only) until discovery has
    /// answered.
    pub fn find(&mut self, generation: u64, query: Query) {
        let early = self.queries.is_none() && self.early.is_some();
        self.last = Some((generation, query.clone(), early));
        self.asked_at = Some(std::time::Instant::now());
        match (&self.queries, &self.early) {
            (Some(queries), _) => queries.send(generation, query),
            (None, Some(early)) => early.send(generation, query),
            (None, None) => self.pending = Some((generation, query)),
        }
    }
}
