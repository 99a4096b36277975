//! Background loading: session summaries for the list (rayon, in parallel)
//! and the full parse of the session being opened. Results come back to the
//! UI thread as [`Msg`]s over an mpsc channel; the UI never waits on disk.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Sender};
use std::thread;
use std::time::Duration;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use std::sync::Mutex;

use hookscope_core::index::{self, Index, Progress, State};
use hookscope_core::query::prefilter::Verdict;
use hookscope_core::query::{
    FindResult, Query, RowCall, RowSource, find_with_loader, find_with_rows,
};
use hookscope_core::transcript::cache::{DEFAULT_BUDGET, SessionCache};
use hookscope_core::transcript::follow::{Change, FollowOptions, Follower};
use hookscope_core::transcript::{self, Diagnostic, Session, SessionRef, SessionSummary};
use rayon::prelude::*;

/// A result from a worker, folded into the app by [`super::app::App::apply`].
#[derive(Debug)]
pub enum Msg {
    /// The replay pane's hooks ran ([`run_hooks`]).
    HooksRan {
        /// The run counter the request carried.
        generation: u64,
        /// What they did (boxed: a report is large beside the other
        /// messages).
        report: Box<hookscope_core::hooks::exec::ExecReport>,
    },
    /// The counts and title of session `index`, with its diagnostics
    /// (or why it could not be read).
    Summary {
        /// Index into the app's session list.
        index: usize,
        /// The summary and the session's diagnostics, or the error text.
        result: Result<(SessionSummary, Vec<Diagnostic>), String>,
        /// The distinct tool names of its calls and its subagents' (for
        /// Tab completion in the Calls filter line).
        tool_names: Vec<String>,
    },
    /// Summaries of many sessions at once (from the index: its stored rows
    /// at start, then each re-indexed batch), folded in with one list
    /// refresh.
    Summaries {
        /// (index into the app's session list, summary and diagnostics or
        /// the error text), as in [`Msg::Summary`].
        items: Vec<(usize, SummaryItem)>,
        /// Tool names to add to the Calls filter's completion.
        tool_names: Vec<String>,
    },
    /// Where the index's sync of changed and new sessions is: `Some((done,
    /// total))` sessions re-indexed while it runs, `None` when it ended.
    Indexing(Option<(usize, usize)>),
    /// A line for the status bar (an index notice: rebuilt, in memory).
    Notice(String),
    /// Every summary has been sent.
    SummariesDone,
    /// Session `index` was fully loaded (or failed to).
    Loaded {
        /// Index into the app's session list.
        index: usize,
        /// The session or the error text.
        result: Result<Arc<Session>, String>,
    },
    /// A Bash command line parsed off the UI thread
    /// ([`super::context::Request::ParseBash`]).
    Parsed {
        /// The call's parse-cache key, as asked.
        key: super::context::BashKey,
        /// The parsed line (`BashCall::command_line`, docs/tool-calls.md#the-bash-command-parser).
        line: hookscope_core::shell::CommandLine,
    },
    /// One more session of a backtest ([`backtest`]): its would-be
    /// blocks.
    Backtested {
        /// Sessions done so far.
        done: usize,
        /// Sessions in all.
        total: usize,
        /// The blocks found in this session.
        blocks: Vec<super::backtest::Block>,
    },
    /// The open session `index` as loaded again after its files grew (and
    /// once right after it is followed), from [`spawn_follow`].
    Live {
        /// Index into the app's session list.
        index: usize,
        /// The session as it is now.
        session: Arc<Session>,
    },
    /// Discovery's answer at a fast start (the list shown came from the
    /// index; [`super::boot`]), or why it failed.
    Discovered(Result<transcript::Discovery, String>),
    /// A session appeared under the roots while running ([`spawn_follow`]).
    SessionAdded(SessionRef),
    /// The newest [`FIRST_PAGE`] records of a Calls-view query that is still
    /// running over a heavy user's list (see [`spawn_queries_with`]): the
    /// first screen, before [`Msg::Found`] brings the whole answer.
    FoundFirst {
        /// The generation of the filter line it answers.
        generation: u64,
        /// The first records, or the `invalid_argument` message.
        result: Result<FindResult, String>,
    },
    /// The answer to a Calls-view query.
    Found {
        /// The generation of the filter line it answers.
        generation: u64,
        /// The records, or the `invalid_argument` message.
        result: Result<FindResult, String>,
    },
}

/// A session's summary and diagnostics, or why it could not be read.
pub type SummaryItem = Result<(SessionSummary, Vec<Diagnostic>), String>;

/// Loads session `index` for the list: its summary, diagnostics and tool
/// names, as a [`Msg::Summary`].
pub fn summary_msg(index: usize, session: &SessionRef) -> Msg {
    match transcript::load(session) {
        Ok(s) => {
            let names: BTreeSet<String> = s
                .all_tool_calls()
                .map(|(_, c)| c.name().to_string())
                .collect();
            Msg::Summary {
                index,
                tool_names: names.into_iter().collect(),
                result: Ok((s.summary(), s.diagnostics)),
            }
        }
        Err(e) => Msg::Summary {
            index,
            tool_names: Vec::new(),
            result: Err(e.to_string()),
        },
    }
}

/// Fully loads `session` for the timeline.
pub fn open(session: &SessionRef) -> Result<Arc<Session>, String> {
    transcript::load(session)
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

/// Summarizes every session on a background thread (rayon inside), sending
/// one [`Msg::Summary`] each as it finishes and [`Msg::SummariesDone`] last.
pub fn spawn_summaries(sessions: Vec<SessionRef>, tx: Sender<Msg>) {
    thread::spawn(move || {
        sessions
            .par_iter()
            .enumerate()
            .for_each_with(tx.clone(), |tx, (index, s)| {
                let _ = tx.send(summary_msg(index, s));
            });
        let _ = tx.send(Msg::SummariesDone);
    });
}

pub use hookscope_core::service::open_index;

/// The index shared by the start's sync thread and the Calls-view query
/// thread (each holds the lock for one chunk's sync or one query's
/// verdicts).
pub type SharedIndex = Arc<Mutex<Index>>;

pub use hookscope_core::service::current_verdicts;

/// Sessions synced in one [`Index::sync`] call (one [`Msg::Summaries`]
/// each; the Calls view waits for at most one such call).
const SYNC_CHUNK: usize = 64;

/// The index side of the TUI's start, on a background thread: `fresh[i]`
/// says session `i`'s summary was shown from the index already
/// ([`Index::fresh_summaries`]). Sessions that cannot be indexed are
/// loaded as without an index, in parallel, and sent in batches
/// ([`Msg::Summaries`], one list refresh each).
/// The others are synced: first the changed and new ones in chunks of
/// [`SYNC_CHUNK`], with [`Msg::Indexing`] progress and a
/// [`Msg::Summaries`] per chunk, then the fresh ones (nothing is read
/// unless one changed since; only then are their summaries sent again).
/// The rows of sessions gone from disk are removed after that
/// ([`Index::remove_gone`]; when every session is fresh, the one chunk is
/// a whole [`Index::sync`], which removes them in the same pass).
/// The index's tool names follow, then [`Msg::SummariesDone`].
///
/// Returns a flag that is set, before [`Msg::SummariesDone`] is sent, when
/// every session was fresh and the sync reused its stored rows (no file
/// changed since they were stored: what the start's query from the stored
/// list needs to stand, [`super::boot`]); it stays unset otherwise.
pub fn spawn_index_sync(
    sessions: Vec<SessionRef>,
    shared: SharedIndex,
    fresh: Vec<bool>,
    tx: Sender<Msg>,
) -> Arc<AtomicBool> {
    let unchanged = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&unchanged);
    thread::spawn(move || {
        let indexable: Vec<bool> = sessions.iter().map(index::indexable).collect();
        let others: Vec<(usize, SessionRef)> = (0..sessions.len())
            .filter(|&i| !indexable[i])
            .map(|i| (i, sessions[i].clone()))
            .collect();
        let no_others = others.is_empty();
        let loader = {
            let tx = tx.clone();
            thread::spawn(move || {
                // In batches: one list refresh per batch, not per session.
                for batch in others.chunks(SYNC_CHUNK) {
                    let done: Vec<(usize, SummaryItem, Vec<String>)> = batch
                        .par_iter()
                        .filter_map(|(i, s)| match summary_msg(*i, s) {
                            Msg::Summary {
                                index,
                                result,
                                tool_names,
                            } => Some((index, result, tool_names)),
                            _ => None,
                        })
                        .collect();
                    let mut names = Vec::new();
                    let items = done
                        .into_iter()
                        .map(|(i, r, n)| {
                            names.extend(n);
                            (i, r)
                        })
                        .collect();
                    if tx
                        .send(Msg::Summaries {
                            items,
                            tool_names: names,
                        })
                        .is_err()
                    {
                        return;
                    }
                }
            })
        };
        let is_fresh = |i: usize| fresh.get(i).copied().unwrap_or(false);
        let rest: Vec<usize> = (0..sessions.len())
            .filter(|&i| indexable[i] && !is_fresh(i))
            .collect();
        let last: Vec<usize> = (0..sessions.len())
            .filter(|&i| indexable[i] && is_fresh(i))
            .collect();
        let total = rest.len();
        let mut all_reused = no_others && rest.is_empty();
        // Every session is in the one chunk of fresh ones: a whole sync
        // removes the rows of sessions gone in the same pass (one read of
        // the stored table, not two).
        let whole = all_reused && !last.is_empty();
        if total > 0 {
            let _ = tx.send(Msg::Indexing(Some((0, total))));
        }
        let mut known = 0;
        let chunks = rest
            .chunks(SYNC_CHUNK)
            .map(|c| (c, false))
            .chain(std::iter::once((last.as_slice(), true)).filter(|(c, _)| !c.is_empty()));
        let mut done = 0usize;
        for (chunk, fresh_chunk) in chunks {
            let refs: Vec<SessionRef> = chunk.iter().map(|&i| sessions[i].clone()).collect();
            let Ok(mut index) = shared.lock() else {
                all_reused = false;
                break;
            };
            let base = done;
            let mut progress = |p: Progress| {
                if !fresh_chunk {
                    let _ = tx.send(Msg::Indexing(Some((base + p.done, total))));
                }
            };
            let synced = if whole {
                index.sync(&refs, &mut progress)
            } else {
                index.sync_part(&refs, &mut progress)
            };
            all_reused &= synced.reused.iter().all(|&r| r);
            if !fresh_chunk {
                done += chunk.len();
            }
            if !fresh_chunk || synced.stats.indexed > 0 {
                // Fresh sessions are on screen already: only those that
                // changed since (not reused by the sync) are sent again.
                let before: Vec<bool> = if fresh_chunk {
                    synced.reused.clone()
                } else {
                    Vec::new()
                };
                let items = index
                    .summaries(&refs, synced)
                    .into_iter()
                    .zip(chunk)
                    .enumerate()
                    .filter(|(k, _)| !before.get(*k).copied().unwrap_or(false))
                    .map(|(_, (r, &i))| (i, r.map_err(|e| e.to_string())))
                    .collect();
                let _ = tx.send(Msg::Summaries {
                    items,
                    tool_names: Vec::new(),
                });
            }
            for n in index.notices().iter().skip(known) {
                let _ = tx.send(Msg::Notice(n.clone()));
            }
            known = index.notices().len();
        }
        if let Ok(mut index) = shared.lock() {
            // The chunks removed nothing: rows of sessions gone go now.
            if !whole {
                index.remove_gone(&sessions);
            }
            let _ = tx.send(Msg::Summaries {
                items: Vec::new(),
                tool_names: index.tool_names().unwrap_or_default(),
            });
        }
        if total > 0 {
            let _ = tx.send(Msg::Indexing(None));
        }
        let _ = loader.join();
        flag.store(all_reused, Ordering::SeqCst);
        let _ = tx.send(Msg::SummariesDone);
    });
    unchanged
}

/// Summarizes one session (one that appeared while running) on a
/// background thread and sends its [`Msg::Summary`].
pub fn spawn_summary(index: usize, session: SessionRef, tx: Sender<Msg>) {
    thread::spawn(move || {
        let _ = tx.send(summary_msg(index, &session));
    });
}

/// Fully loads one session on a background thread and sends [`Msg::Loaded`].
pub fn spawn_open(index: usize, session: SessionRef, tx: Sender<Msg>) {
    thread::spawn(move || {
        let _ = tx.send(Msg::Loaded {
            index,
            result: open(&session),
        });
    });
}

/// Starts the follower thread: it watches `roots` for new
/// sessions (each sent as [`Msg::SessionAdded`]) and follows the session
/// named on the returned sender (its list index and ref; a new one replaces
/// the previous), sending [`Msg::Live`] once when it starts following and
/// again whenever the session's files gain complete lines. It blocks on
/// file notifications with a timeout (stat polling as the fallback), so it
/// costs next to nothing while idle; it ends when the app's receiver or the
/// sender is dropped.
#[cfg(test)]
pub fn spawn_follow(roots: Vec<PathBuf>, tx: Sender<Msg>) -> Sender<(usize, SessionRef)> {
    spawn_follow_with(roots, FollowOptions::default(), tx)
}

/// [`spawn_follow`] with the follower's options (tests shorten the poll).
#[cfg(test)]
pub fn spawn_follow_with(
    roots: Vec<PathBuf>,
    options: FollowOptions,
    tx: Sender<Msg>,
) -> Sender<(usize, SessionRef)> {
    spawn_follow_known(roots, None, options, tx)
}

/// [`spawn_follow_with`] with the sessions already under the roots given
/// (the start's discovery: [`Follower::with_known`]), `None` to discover
/// them on the follower's thread.
pub fn spawn_follow_known(
    roots: Vec<PathBuf>,
    known: Option<Vec<SessionRef>>,
    options: FollowOptions,
    tx: Sender<Msg>,
) -> Sender<(usize, SessionRef)> {
    let (cmd_tx, cmd_rx) = mpsc::channel::<(usize, SessionRef)>();
    thread::spawn(move || {
        let options = FollowOptions {
            follow_new: false,
            ..options
        };
        let mut follower = Follower::with_known(&roots, options, known.as_deref());
        let mut current: Option<(usize, PathBuf)> = None;
        loop {
            loop {
                match cmd_rx.try_recv() {
                    Ok((index, sref)) => {
                        if let Some((_, path)) = current.take() {
                            follower.unfollow(&path);
                        }
                        // OpenCode (not followed) or unreadable: nothing to send.
                        if let Ok(session) = follower.follow(&sref) {
                            current = Some((index, sref.path.clone()));
                            if tx.send(Msg::Live { index, session }).is_err() {
                                return;
                            }
                        }
                    }
                    Err(mpsc::TryRecvError::Empty) => break,
                    Err(mpsc::TryRecvError::Disconnected) => return,
                }
            }
            for change in follower.wait(Duration::from_millis(250)) {
                let msg = match change {
                    Change::Added(sref) => Msg::SessionAdded(sref),
                    Change::Updated { session, .. } => match &current {
                        Some((index, path)) if session.path == *path => Msg::Live {
                            index: *index,
                            session,
                        },
                        _ => continue,
                    },
                    Change::Reset { .. } | Change::Unreadable { .. } => continue,
                };
                if tx.send(msg).is_err() {
                    return;
                }
            }
        }
    });
    cmd_tx
}

/// Parses a Bash command line on a background thread (tree-sitter-bash can
/// take seconds on a huge line) and sends [`Msg::Parsed`].
pub fn spawn_parse(key: super::context::BashKey, command: String, tx: Sender<Msg>) {
    thread::spawn(move || {
        let line = hookscope_core::shell::parse_command_line(&command);
        let _ = tx.send(Msg::Parsed { key, line });
    });
}

/// The UI's end of the Calls-view query thread ([`spawn_queries`]).
#[derive(Debug, Clone)]
pub struct Queries {
    tx: Sender<(u64, Query)>,
    latest: Arc<AtomicU64>,
    /// Set by [`Queries::retire`]; the thread holds it while it sends.
    retired: Arc<Mutex<bool>>,
}

impl Queries {
    /// Asks for `query` as the Calls view's `generation`; a query still
    /// running for an older generation stops loading sessions at once.
    pub fn send(&self, generation: u64, query: Query) {
        self.latest.store(generation, Ordering::SeqCst);
        let _ = self.tx.send((generation, query));
    }

    /// Stops the thread from sending any answer from now on (a running
    /// query stops loading sessions): once this returns, every answer it
    /// sent is already in the channel, so an answer sent after it by
    /// another thread arrives last. The start retires the thread that
    /// answered from the stored list when discovery or the sync found
    /// that list changed ([`super::boot`]).
    pub fn retire(&self) {
        if let Ok(mut retired) = self.retired.lock() {
            *retired = true;
        }
        self.latest.store(u64::MAX, Ordering::SeqCst);
    }
}

/// How the query thread decides which sessions' index rows to use.
enum Rows {
    /// No index: every session is loaded (through the prefilter).
    None,
    /// [`current_verdicts`]: rows whose files are unchanged now.
    Current(SharedIndex),
    /// Every session's rows as stored (the sessions are the index's own
    /// list, [`Index::listed`]; see [`spawn_queries_stored`]).
    Stored(SharedIndex),
}

/// Starts the Calls-view query thread over `sessions`; it answers each
/// request with [`Msg::Found`]. Requests that queue up while one runs are
/// skipped but the newest (typing sends one per key), and a running query
/// that a newer request supersedes stops loading sessions and sends
/// nothing. Parsed sessions are kept in a core
/// [`SessionCache`] (`transcript::cache`, [`DEFAULT_BUDGET`]) between queries.
/// The thread ends when the [`Queries`] handle is dropped.
pub fn spawn_queries(sessions: Vec<SessionRef>, tx: Sender<Msg>) -> Queries {
    spawn_queries_indexed(sessions, None, tx)
}

/// [`spawn_queries`] that asks `index` which sessions can hold a match
/// ([`current_verdicts`]) so only those are loaded (through the same
/// [`SessionCache`]), and builds the records of indexed Claude Code
/// sessions from their rows ([`find_with_rows`] with the index as the
/// [`RowSource`]); the records are the same as without it.
pub fn spawn_queries_indexed(
    sessions: Vec<SessionRef>,
    index: Option<SharedIndex>,
    tx: Sender<Msg>,
) -> Queries {
    let rows = match index {
        Some(index) => Rows::Current(index),
        None => Rows::None,
    };
    let first = first_page(&sessions);
    spawn_queries_with(sessions, rows, first, tx)
}

/// How many records the first answer of a query with a larger limit has
/// ([`Msg::FoundFirst`]): a screenful and more.
pub const FIRST_PAGE: usize = 100;

/// From how many sessions a query answers its first page first: with
/// fewer, the whole answer comes about as fast.
pub const FIRST_PAGE_FROM: usize = 1000;

/// [`FIRST_PAGE`] when `sessions` are [`FIRST_PAGE_FROM`] or more.
fn first_page(sessions: &[SessionRef]) -> Option<usize> {
    (sessions.len() >= FIRST_PAGE_FROM).then_some(FIRST_PAGE)
}

/// [`spawn_queries_indexed`] for the start before discovery has answered
/// ([`super::boot`]): `sessions` are what [`Index::listed`] gave from
/// `index` (its own connection, so no query waits for the sync's lock),
/// and every one's stored rows are taken as they are, without checking a
/// file ([`Index::verdicts`] with every session indexed). The answer is
/// then what `find` gives over the files as they were when the index last
/// saw them; the caller retires this thread and asks again
/// ([`Queries::retire`]) when discovery or the sync find any of them
/// changed.
pub fn spawn_queries_stored(sessions: Vec<SessionRef>, index: Index, tx: Sender<Msg>) -> Queries {
    let first = first_page(&sessions);
    spawn_queries_with(
        sessions,
        Rows::Stored(Arc::new(Mutex::new(index))),
        first,
        tx,
    )
}

/// A [`RowSource`] that stops giving rows once its query is superseded:
/// each session of the batch then goes to the loader, which refuses at once
/// (a superseded query stops reading lines as it stops loading sessions).
struct Unlessed<'a> {
    source: &'a dyn RowSource,
    superseded: &'a dyn Fn() -> bool,
}

impl RowSource for Unlessed<'_> {
    fn call_rows(&self, sessions: &[&SessionRef], query: &Query) -> Vec<Option<Vec<RowCall>>> {
        if (self.superseded)() {
            return sessions.iter().map(|_| None).collect();
        }
        self.source.call_rows(sessions, query)
    }
}

/// The query thread of [`spawn_queries`] and its kin. With `first_page`
/// `Some(n)`, a query whose limit is over `n` is answered twice: first its
/// newest `n` records ([`Msg::FoundFirst`]: the same records the whole
/// answer starts with, as `find` orders them newest first with fixed
/// tie-breaks), then the whole answer ([`Msg::Found`]), the sessions the
/// first read kept in the cache.
fn spawn_queries_with(
    sessions: Vec<SessionRef>,
    rows: Rows,
    first_page: Option<usize>,
    tx: Sender<Msg>,
) -> Queries {
    let (queries, rx) = mpsc::channel::<(u64, Query)>();
    let latest = Arc::new(AtomicU64::new(0));
    let retired = Arc::new(Mutex::new(false));
    let seen = Arc::clone(&latest);
    let gate = Arc::clone(&retired);
    thread::spawn(move || {
        let cache = SessionCache::new(DEFAULT_BUDGET);
        while let Ok(mut job) = rx.recv() {
            while let Ok(newer) = rx.try_recv() {
                job = newer;
            }
            let (generation, query) = job;
            let superseded = || seen.load(Ordering::SeqCst) != generation;
            let loader = |s: &SessionRef| {
                if superseded() {
                    Err("superseded by a newer query".to_string())
                } else {
                    cache.get(s)
                }
            };
            let (index, verdicts) = match &rows {
                Rows::None => (None, None),
                Rows::Current(shared) => (
                    Some(shared),
                    shared
                        .lock()
                        .ok()
                        .map(|index| current_verdicts(&index, &sessions, &query)),
                ),
                Rows::Stored(shared) => (
                    Some(shared),
                    shared
                        .lock()
                        .ok()
                        .map(|index| stored_verdicts(&index, &sessions, &query)),
                ),
            };
            let rows = index.map(|i| Unlessed {
                source: i.as_ref(),
                superseded: &superseded,
            });
            let run = |query: &Query| {
                match &verdicts {
                    Some(v) => find_with_rows(
                        &sessions,
                        query,
                        v,
                        rows.as_ref().map(|r| r as &dyn RowSource),
                        &loader,
                    ),
                    None => find_with_loader(&sessions, query, &loader),
                }
                .map_err(|e| e.message().to_string())
            };
            // Checked and sent under the gate (see `Queries::retire`):
            // `Some(false)` when a newer query supersedes this one, `None`
            // when the thread is done (retired, or the app is gone).
            let deliver = |msg: Msg| -> Option<bool> {
                let retired = gate.lock().ok()?;
                if *retired {
                    return None;
                }
                if superseded() {
                    return Some(false);
                }
                tx.send(msg).ok().map(|()| true)
            };
            if let Some(n) = first_page
                && query.limit > n
            {
                let mut first = query.clone();
                first.limit = n;
                let result = run(&first);
                match deliver(Msg::FoundFirst { generation, result }) {
                    None => break,
                    Some(false) => continue,
                    Some(true) => {}
                }
            }
            let result = run(&query);
            if deliver(Msg::Found { generation, result }).is_none() {
                break;
            }
        }
    });
    Queries {
        tx: queries,
        latest,
        retired,
    }
}

/// What `index` says about `query` for `sessions` taken as stored (every
/// one [`State::Indexed`]: see [`spawn_queries_stored`]).
fn stored_verdicts(index: &Index, sessions: &[SessionRef], query: &Query) -> Vec<Option<Verdict>> {
    let states: Vec<State> = sessions.iter().map(|_| State::Indexed).collect();
    index.verdicts(sessions, &states, query)
}

/// The backtest of the replay pane (`B`): every session through `rules`
/// ([`hookscope_core::hooks::replay::backtest_refs`], one session at a time, so
/// the prefilters skip or narrow what no rule can match), one
/// [`Msg::Backtested`] per session with every block, warn and rewrite of
/// each rule (allows and added context are left out). Runs on the calling
/// thread; [`spawn_backtest`] runs it on its own. A session that cannot be
/// read counts as done, with nothing listed. With `index`, the sessions it
/// says no rule can match are done unread
/// ([`hookscope_core::service::skipped_by_index`]; the index lock is
/// held only for that one question).
pub fn backtest(
    sessions: &[SessionRef],
    rules: &hookscope_core::hooks::rules::RuleSet,
    index: Option<&SharedIndex>,
    tx: &Sender<Msg>,
) {
    let total = sessions.len();
    let skip: Vec<bool> = match index.map(|i| i.lock()) {
        Some(Ok(index)) => hookscope_core::service::skipped_by_index(&index, sessions, rules),
        _ => Vec::new(),
    };
    for (index, sref) in sessions.iter().enumerate() {
        if skip.get(index).copied().unwrap_or(false) {
            if tx
                .send(Msg::Backtested {
                    done: index + 1,
                    total,
                    blocks: Vec::new(),
                })
                .is_err()
            {
                return;
            }
            continue;
        }
        let bt = hookscope_core::hooks::replay::backtest_refs(
            std::slice::from_ref(sref),
            rules,
            &|_| {},
        );
        let blocks = bt
            .rules
            .into_iter()
            .flat_map(|tally| {
                let id = tally.id;
                tally
                    .examples
                    .into_iter()
                    .filter(|e| matches!(e.verdict.as_str(), "block" | "warn" | "rewrite"))
                    .map(move |example| super::backtest::Block {
                        index,
                        rule: id.clone(),
                        example,
                    })
            })
            .collect();
        if tx
            .send(Msg::Backtested {
                done: index + 1,
                total,
                blocks,
            })
            .is_err()
        {
            return;
        }
    }
}

/// [`backtest`] on its own thread.
pub fn spawn_backtest(
    sessions: Vec<SessionRef>,
    rules: Arc<hookscope_core::hooks::rules::RuleSet>,
    index: Option<SharedIndex>,
    tx: Sender<Msg>,
) {
    thread::spawn(move || backtest(&sessions, &rules, index.as_ref(), &tx));
}

/// Runs a confirmed hook plan with the real process runner (each handler
/// in its own process group, killed whole at its timeout): what
/// [`spawn_hooks`] does off the UI thread, and tests call directly.
pub fn run_hooks(
    plan: &hookscope_core::hooks::exec::ExecPlan,
) -> hookscope_core::hooks::exec::ExecReport {
    plan.run(&hookscope_core::hooks::exec::ProcessRunner)
}

/// Runs `plan` on a thread and sends [`Msg::HooksRan`] tagged `generation`.
pub fn spawn_hooks(
    generation: u64,
    plan: Arc<hookscope_core::hooks::exec::ExecPlan>,
    tx: Sender<Msg>,
) {
    std::thread::spawn(move || {
        let report = Box::new(run_hooks(&plan));
        let _ = tx.send(Msg::HooksRan { generation, report });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_superseded_query_sends_nothing() {
        let corpus = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpus/real-cc-2.1.332"
        ));
        let found = transcript::discover(&[corpus]).expect("corpus");
        let (tx, rx) = mpsc::channel();
        let queries = spawn_queries(found.sessions, tx);
        let query = crate::tui::calls::prepare("tool:Bash", chrono::Utc::now()).expect("valid");
        // Generation 1 arrives after 2 was asked for: it must not answer.
        queries.latest.store(2, Ordering::SeqCst);
        queries.tx.send((1, query.clone())).expect("thread alive");
        queries.send(2, query);
        let first = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("an answer");
        match first {
            Msg::Found { generation, result } => {
                assert_eq!(generation, 2);
                assert_eq!(result.map(|r| r.matched).ok(), Some(52));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    /// Rows stop once the query is superseded: every session of the batch
    /// goes to the loader, which refuses at once.
    #[test]
    fn a_superseded_query_reads_no_rows() {
        struct Every;
        impl RowSource for Every {
            fn call_rows(&self, s: &[&SessionRef], _: &Query) -> Vec<Option<Vec<RowCall>>> {
                s.iter().map(|_| Some(Vec::new())).collect()
            }
        }
        let corpus = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpus/real-cc-2.1.332"
        ));
        let found = transcript::discover(&[corpus]).expect("corpus");
        let refs: Vec<&SessionRef> = found.sessions.iter().collect();
        let query = crate::tui::calls::prepare("tool:Bash", chrono::Utc::now()).expect("valid");
        let current = || false;
        let live = Unlessed {
            source: &Every,
            superseded: &current,
        };
        assert!(live.call_rows(&refs, &query).iter().all(Option::is_some));
        let newer = || true;
        let stale = Unlessed {
            source: &Every,
            superseded: &newer,
        };
        let rows = stale.call_rows(&refs, &query);
        assert_eq!(rows.len(), refs.len());
        assert!(rows.iter().all(Option::is_none));
    }

    /// With a first page (a heavy user's list; here forced to 3 records),
    /// a query answers its newest 3 records first, then the whole answer,
    /// which begins with the same 3.
    #[test]
    fn a_first_page_comes_before_the_whole_answer_and_begins_it() {
        let corpus = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpus/real-cc-2.1.332"
        ));
        let found = transcript::discover(&[corpus]).expect("corpus");
        let (tx, rx) = mpsc::channel();
        let queries = spawn_queries_with(found.sessions, Rows::None, Some(3), tx);
        let query = crate::tui::calls::prepare("tool:Bash", chrono::Utc::now()).expect("valid");
        queries.send(1, query);
        let next = || {
            rx.recv_timeout(std::time::Duration::from_secs(60))
                .expect("an answer")
        };
        let first = match next() {
            Msg::FoundFirst {
                generation: 1,
                result,
            } => result.expect("records"),
            other => panic!("unexpected {other:?}"),
        };
        let whole = match next() {
            Msg::Found {
                generation: 1,
                result,
            } => result.expect("records"),
            other => panic!("unexpected {other:?}"),
        };
        // The corpus's 52 Bash calls (see the test above), newest first.
        assert_eq!(whole.records.len(), 52);
        assert_eq!(first.records.len(), 3);
        let ids = |r: &FindResult| -> Vec<String> {
            r.records.iter().map(|c| c.tool_use_id.clone()).collect()
        };
        assert_eq!(ids(&first)[..], ids(&whole)[..3]);
        // A limit within the page is answered once.
        let query =
            crate::tui::calls::prepare("tool:Bash limit:2", chrono::Utc::now()).expect("valid");
        queries.send(2, query);
        match next() {
            Msg::Found {
                generation: 2,
                result,
            } => {
                assert_eq!(result.map(|r| r.records.len()).ok(), Some(2));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
