//! The TUI's start (issue 11 §1–2): the first frame from the persisted
//! index, discovery and the index sync behind it.
//!
//! [`Boot::begin`] opens the index and, when every root is a folder and the
//! index holds sessions under them ([`Index::listed`]), builds the app from
//! those stored rows (sessions, summaries, diagnostics) without walking the
//! disk, and starts discovery on a thread ([`Msg::Discovered`]). The list is
//! then provisional (the status bar says "checking the disk…"); when
//! discovery answers, [`Boot::discovered`] replaces it with what is on disk
//! ([`App::rediscovered`]: kept summaries, selection and open session follow
//! their session) and starts the index sync and the Calls-view query thread
//! as a start without a stored list does. Calls queries asked before that
//! wait (the newest one is sent then).
//!
//! Otherwise (no index, `--no-index`, a file PATH, nothing stored under the
//! roots, the bundled demo) discovery runs first, as before, and
//! [`super::start_with`] starts the rest.

use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::thread;

use chrono::FixedOffset;
use hookscope::index::Index;
use hookscope::query::Query;
use hookscope::transcript::discover::default_roots;
use hookscope::transcript::{Discovery, SessionRef, discover};

use super::app::App;
use super::theme::Theme;
use super::worker::{self, Msg, Queries, SummaryItem};

/// What the start still has to do, held by the event loop.
pub struct Boot {
    /// The index, until discovery answers and the workers take it.
    index: Option<Index>,
    /// The Calls-view query thread, once started.
    queries: Option<Queries>,
    /// The newest Calls query asked before that (generation, query).
    pending: Option<(u64, Query)>,
    /// The sessions as discovered (the provisional list until then).
    pub refs: Vec<SessionRef>,
    /// The roots searched (followed for new sessions).
    pub roots: Vec<PathBuf>,
    /// The index as the workers share it, once they have it (the backtest
    /// asks it which sessions no rule can match).
    pub shared: Option<worker::SharedIndex>,
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
        let (index, notices) = worker::open_index(no_index);
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
        // Empty unless every root is a folder holding stored sessions.
        let listed = index.as_ref().map(|i| i.listed(&roots)).unwrap_or_default();
        if listed.is_empty() {
            return Self::begin_discovered(paths, index, notices, offset, theme, tx);
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
        let (paths, found_tx) = (paths.to_vec(), tx.clone());
        thread::spawn(move || {
            let found = discover(&paths).map_err(|e| e.to_string());
            let _ = found_tx.send(Msg::Discovered(found));
        });
        Ok((
            app,
            Boot {
                index,
                queries: None,
                pending: None,
                refs,
                roots,
                shared: None,
            },
        ))
    }

    /// The start without a stored list: discovery now, then
    /// [`super::start_with`].
    fn begin_discovered(
        paths: &[PathBuf],
        index: Option<Index>,
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
        let mut app = App::new(found.sessions.clone(), found.diagnostics, offset, theme);
        app.set_banner(banner);
        for line in notices {
            app.ctx.say(line);
        }
        let (queries, shared) = super::start_shared(&mut app, &found.sessions, index, tx);
        Ok((
            app,
            Boot {
                index: None,
                queries: Some(queries),
                pending: None,
                refs: found.sessions,
                roots: found.roots,
                shared,
            },
        ))
    }

    /// Takes discovery's answer at a fast start: the app's list becomes
    /// what is on disk, and the index sync (stored summaries of unchanged
    /// sessions are not sent again) and the Calls-view query thread start.
    /// A discovery that failed keeps the stored list (and says why).
    pub fn discovered(
        &mut self,
        app: &mut App,
        found: Result<Discovery, String>,
        tx: &Sender<Msg>,
    ) {
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
        let queries = match self.index.take() {
            Some(index) => {
                let shared = std::sync::Arc::new(std::sync::Mutex::new(index));
                worker::spawn_index_sync(self.refs.clone(), shared.clone(), mask, tx.clone());
                self.shared = Some(shared.clone());
                worker::spawn_queries_indexed(self.refs.clone(), Some(shared), tx.clone())
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
    }

    /// Whether the list is discovery's (it ran first, or has answered):
    /// [`Boot::refs`] is then what is on disk.
    pub fn is_discovered(&self) -> bool {
        self.queries.is_some()
    }

    /// Asks the Calls-view query thread for `query`, or keeps it (the
    /// newest only) until discovery has answered.
    pub fn find(&mut self, generation: u64, query: Query) {
        match &self.queries {
            Some(queries) => queries.send(generation, query),
            None => self.pending = Some((generation, query)),
        }
    }
}
