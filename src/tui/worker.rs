//! Background loading: session summaries for the list (rayon, in parallel)
//! and the full parse of the session being opened. Results come back to the
//! UI thread as [`Msg`]s over an mpsc channel; the UI never waits on disk.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Sender};
use std::thread;
use std::time::Duration;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use std::sync::Mutex;

use hookscope_core::index::Interrupter;
use hookscope_core::query::{FindResult, Query, QueryError};
use hookscope_core::service::{Library, ListUpdate, summary_of};
use hookscope_core::transcript::cache::{DEFAULT_BUDGET, SessionCache};
use hookscope_core::transcript::follow::{Change, FollowOptions, Follower};
use hookscope_core::transcript::{self, Diagnostic, Session, SessionRef, SessionSummary};
use rayon::prelude::*;

/// A result from a worker, folded into the app by [`super::app::App::apply`].
#[derive(Debug)]
pub enum Msg {
    /// The rule ids the decision log names, sorted ([`spawn_rule_ids`]).
    RuleIds(Vec<String>),
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
    /// `true` while the index's sync waits for another hookscope process
    /// that is building it (the [`Msg::Indexing`] counts then follow that
    /// process's work), `false` once it goes on.
    WaitingForBuild(bool),
    /// A line for the status bar (an index notice: rebuilt, in memory).
    Notice(String),
    /// The decisions `hookscope hook` logged for session `index` (sent
    /// after its [`Msg::Loaded`], only when there are some), by
    /// `tool_use_id`.
    Decisions {
        /// Index into the app's session list.
        index: usize,
        /// The decisions of its calls.
        decisions: super::context::Decided,
        /// Its decisions on events that are not calls, placed
        /// ([`super::context::EventDecision`]).
        events: Vec<super::context::EventDecision>,
    },
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
    /// One more session of a backtest ([`backtest`]): what its rules
    /// would do there.
    Backtested {
        /// Sessions done so far.
        done: usize,
        /// Sessions in all.
        total: usize,
        /// The matches listed for this session (every verdict).
        matches: Vec<super::backtest::Match>,
        /// Its matches counted, listed or not.
        tally: super::backtest::Tally,
    },
    /// The plan of your hooks over every event ([`exec_all_plan`]).
    ExecAllPlanned(Box<hookscope_core::hooks::replay::exec_all::ExecAll>),
    /// Progress of the run or comparison: sessions done, in all, events
    /// run (0 for a comparison).
    EveryEventProgress {
        /// Sessions done.
        done: usize,
        /// Sessions in all.
        total: usize,
        /// Events run so far.
        runs: usize,
    },
    /// The report of your hooks over every event ([`exec_all_run`]).
    ExecAllDone(Box<hookscope_core::hooks::replay::exec_all::ExecAll>),
    /// Two rule sets compared over every session ([`compare_rules`]).
    Compared(Box<hookscope_core::hooks::replay::against::Against>),
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
    /// How many sessions the Calls-view query `generation` searches
    /// (sent before its answers, while the index sync runs and for the
    /// first query after one that searched part). While a first build
    /// runs, only the sessions the index holds so far: loading the rest
    /// beside the build would double its work and hold gigabytes
    /// ([`INDEXED_ONLY_FROM`]). The view says so, and the start asks the
    /// query again once the build ends.
    Scope {
        /// The generation of the filter line it answers.
        generation: u64,
        /// Sessions searched (indexed so far).
        searched: usize,
        /// Sessions in all.
        total: usize,
    },
    /// How many calls match a Calls-view query whose answer the limit
    /// cut before every match was known (sent after its [`Msg::Found`];
    /// only with an index and no text or hook filter).
    Counted {
        /// The generation of the filter line it counts.
        generation: u64,
        /// Every matching call.
        total: usize,
    },
}

/// A session's summary and diagnostics, or why it could not be read.
pub type SummaryItem = Result<(SessionSummary, Vec<Diagnostic>), String>;

/// Loads session `index` for the list: its summary, diagnostics and tool
/// names, as a [`Msg::Summary`].
pub fn summary_msg(index: usize, session: &SessionRef) -> Msg {
    let (result, tool_names) = summary_of(session);
    Msg::Summary {
        index,
        tool_names,
        result: result.map_err(|e| e.to_string()),
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

/// The index side of the TUI's start, on a background thread:
/// [`Library::sync_list`] (`fresh[i]` says session `i`'s summary was shown
/// from the index already), each of its updates sent as a [`Msg`]
/// ([`Msg::Indexing`], [`Msg::Summaries`], [`Msg::Notice`]), then
/// [`Msg::SummariesDone`].
///
/// Returns a flag that is set, before [`Msg::SummariesDone`] is sent, when
/// every session was fresh and the sync reused its stored rows (no file
/// changed since they were stored: what the start's query from the stored
/// list needs to stand, [`super::boot`]); it stays unset otherwise.
pub fn spawn_index_sync(
    sessions: Vec<SessionRef>,
    library: Library,
    fresh: Vec<bool>,
    tx: Sender<Msg>,
) -> Arc<AtomicBool> {
    let unchanged = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&unchanged);
    thread::spawn(move || {
        let send = |update: ListUpdate| {
            let msg = match update {
                ListUpdate::Indexing(progress) => Msg::Indexing(progress),
                ListUpdate::WaitingForBuild(waiting) => Msg::WaitingForBuild(waiting),
                ListUpdate::Summaries { items, tool_names } => Msg::Summaries {
                    items: items
                        .into_iter()
                        .map(|(i, r)| (i, r.map_err(|e| e.to_string())))
                        .collect(),
                    tool_names,
                },
                ListUpdate::Notice(line) => Msg::Notice(line),
            };
            tx.send(msg).is_ok()
        };
        let all_reused = library.sync_list(&sessions, &fresh, &send);
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
        let (decisions, events) = decided(&session.id, &session.path);
        if !decisions.is_empty() || !events.is_empty() {
            let _ = tx.send(Msg::Decisions {
                index,
                decisions,
                events,
            });
        }
    });
}

/// Reads the live hook's decisions of session `id` on a background thread
/// and sends them as [`Msg::Decisions`] (also when there are none, so
/// decisions gone from the log are unmarked).
pub fn spawn_decisions(index: usize, id: String, path: PathBuf, tx: Sender<Msg>) {
    thread::spawn(move || {
        let (decisions, events) = decided(&id, &path);
        let _ = tx.send(Msg::Decisions {
            index,
            decisions,
            events,
        });
    });
}

/// Reads the rule ids the decision log names on a background thread and
/// sends them as [`Msg::RuleIds`] (none when there is no log).
pub fn spawn_rule_ids(tx: Sender<Msg>) {
    thread::spawn(move || {
        let ids = hookscope_core::hooks::decisions::default_dir()
            .and_then(|dir| hookscope_core::hooks::decisions::rule_ids(&dir).ok())
            .unwrap_or_default();
        let _ = tx.send(Msg::RuleIds(ids.into_iter().collect()));
    });
}

/// The live hook's logged decisions of session `id` (main transcript at
/// `path`): those on calls by `tool_use_id`, and those on events that are
/// not calls placed by the transcript's size when the hook ran (entries
/// without it, from an older hookscope, are left out); none when the log
/// folder is missing or unreadable.
pub fn decided(
    id: &str,
    path: &std::path::Path,
) -> (super::context::Decided, Vec<super::context::EventDecision>) {
    let mut out = super::context::Decided::new();
    let mut events = Vec::new();
    let Some(dir) = hookscope_core::hooks::decisions::default_dir() else {
        return (out, Vec::new());
    };
    for l in hookscope_core::hooks::decisions::for_session(&dir, id).unwrap_or_default() {
        match (l.tool_use_id.clone(), l.transcript_bytes) {
            (Some(call), _) => out.entry(call).or_default().push(l),
            (None, Some(bytes)) => events.push((l, bytes)),
            (None, None) => {}
        }
    }
    let placed = lines_before(path, events.iter().map(|(_, b)| *b).collect());
    let own = std::fs::canonicalize(path).ok();
    let events = events
        .into_iter()
        .zip(placed)
        .filter_map(|((logged, _), line)| {
            let other_file = logged
                .transcript_path
                .as_deref()
                .filter(|p| std::fs::canonicalize(p).ok() != own || own.is_none())
                .map(str::to_string);
            Some(super::context::EventDecision {
                logged,
                after_line: line?,
                in_turn: None,
                other_file,
            })
        })
        .collect();
    (out, events)
}

/// For each byte count of `sizes`, how many whole lines the first that
/// many bytes of the transcript at `path` hold (the lines written before
/// the event), in one read of the file up to the largest; `None` where
/// the file is shorter now (rewritten since) or cannot be read.
fn lines_before(path: &std::path::Path, sizes: Vec<u64>) -> Vec<Option<usize>> {
    use std::io::Read;
    let Some(&most) = sizes.iter().max() else {
        return Vec::new();
    };
    if most == 0 {
        return vec![Some(0); sizes.len()];
    }
    let Ok(file) = hookscope_core::transcript::fsread::open_regular(path) else {
        return vec![None; sizes.len()];
    };
    let mut order: Vec<(u64, usize)> = sizes.iter().copied().zip(0..).collect();
    order.sort_unstable();
    let mut out = vec![None; sizes.len()];
    let (mut seen, mut lines, mut next) = (0u64, 0usize, 0usize);
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file.take(most));
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        while let Some(&(size, i)) = order.get(next) {
            if size > seen + n as u64 {
                break;
            }
            let upto = usize::try_from(size - seen).unwrap_or(n).min(n);
            out[i] = Some(lines + memchr::memchr_iter(b'\n', &chunk[..upto]).count());
            next += 1;
        }
        lines += memchr::memchr_iter(b'\n', chunk).count();
        seen += n as u64;
    }
    out
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
    /// Stops the thread's index connection mid-statement when a query is
    /// superseded (`None` without an index file).
    interrupter: Arc<Option<Interrupter>>,
    /// Set by [`Queries::retire`]; the thread holds it while it sends.
    retired: Arc<Mutex<bool>>,
    /// Set while the index sync re-indexes sessions ([`Queries::indexing`]).
    indexing: Arc<AtomicBool>,
    /// [`INDEXED_ONLY_FROM`], which only tests change.
    #[cfg_attr(not(test), allow(dead_code))]
    indexed_only_from: Arc<AtomicU64>,
}

impl Queries {
    /// Asks for `query` as the Calls view's `generation`; a query still
    /// running for an older generation stops loading sessions at once.
    pub fn send(&self, generation: u64, query: Query) {
        // Generations only grow: one marked newest by `supersede` stays so.
        self.supersede(generation);
        let _ = self.tx.send((generation, query));
    }

    /// Marks `generation` as the newest without asking anything yet: a
    /// query running for an older one stops at once and sends nothing.
    pub fn supersede(&self, generation: u64) {
        if self.latest.fetch_max(generation, Ordering::SeqCst) < generation {
            self.interrupt();
        }
    }

    /// Tells the thread whether the index sync is re-indexing sessions
    /// ([`Msg::Indexing`]): while it is, a query whose unindexed sessions
    /// hold [`INDEXED_ONLY_FROM`] bytes or more searches the indexed ones
    /// only ([`Msg::Scope`]).
    pub fn indexing(&self, on: bool) {
        self.indexing.store(on, Ordering::SeqCst);
    }

    /// Sets the bytes of unindexed sessions from which a query asked while
    /// indexing searches the indexed ones only (tests: the corpus is far
    /// under [`INDEXED_ONLY_FROM`]).
    #[cfg(test)]
    pub fn indexed_only_from(&self, bytes: u64) {
        self.indexed_only_from.store(bytes, Ordering::SeqCst);
    }

    /// Stops the SQL statement the thread's index connection is running,
    /// if any (the running query is older than any generation asked now:
    /// a statement of the newer one only starts once this returns).
    fn interrupt(&self) {
        if let Some(interrupter) = self.interrupter.as_ref() {
            interrupter.interrupt();
        }
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
        self.interrupt();
    }
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

/// [`spawn_queries`] that asks `library`'s index which sessions can hold
/// a match so only those are loaded (through the same [`SessionCache`]),
/// and builds the records of indexed Claude Code sessions from their rows
/// ([`Library::find_and_count_with`]); the records are the same as without it.
pub fn spawn_queries_indexed(
    sessions: Vec<SessionRef>,
    library: Option<Library>,
    tx: Sender<Msg>,
) -> Queries {
    let library = library.unwrap_or_else(|| Library::new(&[]));
    let first = first_page(&sessions);
    spawn_queries_with(sessions, library, false, first, tx)
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
/// ([`super::boot`]): `sessions` are what [`Library::listed`] gave from
/// `library` (on its own connection, [`Library::reader`], so no query
/// waits for the sync's lock), and every one's stored rows are taken as
/// they are, without checking a file. The answer is
/// then what `find` gives over the files as they were when the index last
/// saw them; the caller retires this thread and asks again
/// ([`Queries::retire`]) when discovery or the sync find any of them
/// changed.
pub fn spawn_queries_stored(
    sessions: Vec<SessionRef>,
    library: Library,
    tx: Sender<Msg>,
) -> Queries {
    let first = first_page(&sessions);
    spawn_queries_with(sessions, library, true, first, tx)
}

/// The query thread of [`spawn_queries`] and its kin. With `first_page`
/// `Some(n)`, a query whose limit is over `n` is answered twice: first its
/// newest `n` records ([`Msg::FoundFirst`]: the same records the whole
/// answer starts with, as `find` orders them newest first with fixed
/// tie-breaks), then the whole answer ([`Msg::Found`]), the sessions the
/// first read kept in the cache.
fn spawn_queries_with(
    sessions: Vec<SessionRef>,
    library: Library,
    stored: bool,
    first_page: Option<usize>,
    tx: Sender<Msg>,
) -> Queries {
    let (queries, rx) = mpsc::channel::<(u64, Query)>();
    // The thread's own connection (a file index): stopping its statements
    // stops no sync or other reader. A stored start's library is one
    // already ([`spawn_queries_stored`]); a second one would be opened
    // while the start's sync writes, and wait for it.
    let library = if stored {
        library
    } else {
        library.reader().unwrap_or(library)
    };
    let interrupter = Arc::new(library.interrupter());
    let latest = Arc::new(AtomicU64::new(0));
    let retired = Arc::new(Mutex::new(false));
    let indexing = Arc::new(AtomicBool::new(false));
    let indexed_only_from = Arc::new(AtomicU64::new(INDEXED_ONLY_FROM));
    let seen = Arc::clone(&latest);
    let gate = Arc::clone(&retired);
    let building = Arc::clone(&indexing);
    let part_from = Arc::clone(&indexed_only_from);
    thread::spawn(move || {
        let cache = SessionCache::new(DEFAULT_BUDGET);
        // Whether the last query searched part of the sessions.
        let mut scoped_before = false;
        while let Ok(mut job) = rx.recv() {
            while let Ok(newer) = rx.try_recv() {
                job = newer;
            }
            let (generation, query) = job;
            let superseded = || seen.load(Ordering::SeqCst) != generation;
            let loader = |s: &SessionRef| cache.get(s);
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
            // The decision log (`ruled:`) is read here, off the UI thread.
            let mut query = query;
            if let Err(e) = query.resolve_decided() {
                let result = Err(e.message().to_string());
                if deliver(Msg::Found { generation, result }).is_none() {
                    break;
                }
                continue;
            }
            // Set when the app is gone (a message could not be sent).
            let done = std::cell::Cell::new(false);
            // Sends an answer: whether to go on (no newer query, the app
            // still there).
            let send = |msg: Msg| match deliver(msg) {
                None => {
                    done.set(true);
                    false
                }
                Some(going_on) => going_on,
            };
            let text = |e: QueryError| e.message().to_string();
            let mut on_first = |result: Result<FindResult, QueryError>| {
                send(Msg::FoundFirst {
                    generation,
                    result: result.map_err(text),
                })
            };
            // The whole answer, then, when the limit cut it before every
            // match was known, their count (from the index's stored facts
            // only, on the verdicts the answer used; see
            // `Library::find_and_count_with`), unless a newer query comes.
            let mut on_found = |result: Result<FindResult, QueryError>| {
                send(Msg::Found {
                    generation,
                    result: result.map_err(text),
                })
            };
            // While a first build runs, the sessions it has not reached
            // yet are left to it (see `Msg::Scope`); the first whole
            // answer after a part says it is whole again.
            let building_now = !stored && building.load(Ordering::SeqCst);
            let indexed = building_now
                .then(|| indexed_only(&library, &sessions, part_from.load(Ordering::SeqCst)))
                .flatten();
            if building_now || scoped_before {
                let scope = Msg::Scope {
                    generation,
                    searched: indexed.as_ref().map_or(sessions.len(), Vec::len),
                    total: sessions.len(),
                };
                if deliver(scope).is_none() {
                    break;
                }
            }
            scoped_before = indexed.is_some();
            let counted = library.find_and_count_with(
                indexed.as_deref().unwrap_or(&sessions),
                &query,
                stored,
                &loader,
                &superseded,
                first_page,
                &mut on_first,
                &mut on_found,
            );
            if done.get() {
                break;
            }
            if let Some(Ok(total)) = counted
                && deliver(Msg::Counted { generation, total }).is_none()
            {
                break;
            }
        }
    });
    Queries {
        tx: queries,
        latest,
        interrupter,
        retired,
        indexing,
        indexed_only_from,
    }
}

/// The bytes of unindexed sessions from which a query asked while the
/// index sync runs searches the indexed sessions only (64 MiB, as the
/// CLI's first build that makes its call indexes last): below it, the few
/// sessions the sync has not reached are loaded and the answer is whole.
pub const INDEXED_ONLY_FROM: u64 = 64 << 20;

/// The sessions of `sessions` whose rows the index holds now, when those
/// it does not hold `from` bytes or more ([`INDEXED_ONLY_FROM`]; each file
/// counted once: an OpenCode `opencode.db` holds many sessions); `None`
/// when the answer should be whole (without an index, or few bytes left).
fn indexed_only(library: &Library, sessions: &[SessionRef], from: u64) -> Option<Vec<SessionRef>> {
    let held = library.indexed_now(sessions)?;
    let unindexed: Vec<usize> = (0..sessions.len())
        .filter(|&i| held.get(i) != Some(&true))
        .collect();
    let bytes = hookscope_core::index::bytes_to_index(sessions, &unindexed);
    (!unindexed.is_empty() && bytes >= from).then(|| {
        sessions
            .iter()
            .zip(&held)
            .filter(|&(_, &h)| h)
            .map(|(s, _)| s.clone())
            .collect()
    })
}

/// The backtest of the replay pane (`B`): every session through `rules`
/// ([`hookscope_core::hooks::replay::Prefilters::backtest`] of each session, so
/// the prefilters skip or narrow what no rule can match; a few sessions at
/// a time on rayon's workers), one [`Msg::Backtested`] per session, in
/// session order, with the matches the core lists (every verdict, up to its
/// per-rule cap) and their count by verdict (batches on rayon's workers). Runs from the calling thread;
/// [`spawn_backtest`] runs it on its own. A session that cannot be
/// read counts as done, with nothing listed. With `library`, the sessions
/// its index says no rule can match are done unread
/// ([`hookscope_core::service::Library::backtest_index`]).
pub fn backtest(
    sessions: &[SessionRef],
    rules: &hookscope_core::hooks::rules::RuleSet,
    library: Option<&Library>,
    tx: &Sender<Msg>,
) {
    let total = sessions.len();
    let index = library.and_then(|l| l.backtest_index(sessions, rules));
    // The prefilters are built once for the whole run.
    let filters = hookscope_core::hooks::replay::Prefilters::new(rules);
    // One session's listed matches and count (nothing for a skipped one),
    // and whether it was read.
    type One = (Vec<super::backtest::Match>, super::backtest::Tally, bool);
    let one = |i: usize| -> One {
        let known = index.as_ref().and_then(|x| x.known(i));
        let bt = filters.backtest_knowing(&sessions[i], rules, known.as_ref());
        let read = bt.skipped == 0;
        let tally = super::backtest::Tally::of(&bt);
        let matches = bt
            .rules
            .into_iter()
            .flat_map(|tally| {
                let id = tally.id;
                tally
                    .examples
                    .into_iter()
                    .map(move |example| super::backtest::Match {
                        index: i,
                        rule: id.clone(),
                        example,
                    })
            })
            .collect();
        (matches, tally, read)
    };
    // Batches of sessions on every core, as the index build cuts them
    // (`index::build::batches`: a session over its bytes alone, so two big
    // sessions are never loaded together; memory given back after a big
    // batch), each sent in session order; a closed list stops the run
    // between batches.
    use hookscope_core::index::build::{batches, give_back_after};
    use rayon::prelude::*;
    let indices: Vec<usize> = (0..total).collect();
    for chunk in batches(&indices, |i| sessions[i].total_bytes()) {
        let results: Vec<_> = chunk.par_iter().map(|&i| one(i)).collect();
        give_back_after(
            chunk
                .iter()
                .zip(&results)
                .filter(|(_, (_, _, read))| *read)
                .map(|(&i, _)| sessions[i].total_bytes())
                .sum(),
        );
        for (&index, (matches, tally, _)) in chunk.iter().zip(results) {
            let msg = Msg::Backtested {
                done: index + 1,
                total,
                matches,
                tally,
            };
            if tx.send(msg).is_err() {
                return;
            }
        }
    }
}

/// [`backtest`] on its own thread.
pub fn spawn_backtest(
    sessions: Vec<SessionRef>,
    rules: Arc<hookscope_core::hooks::rules::RuleSet>,
    library: Option<Library>,
    tx: Sender<Msg>,
) {
    thread::spawn(move || backtest(&sessions, &rules, library.as_ref(), &tx));
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

    /// Whole lines in a transcript's first N bytes: a byte count that ends
    /// mid-line counts the lines before it; one past the file's end now (the
    /// file was rewritten shorter) is not placed; nor is any count on a
    /// missing file or a FIFO (never opened for reading).
    #[test]
    fn lines_before_counts_whole_lines_and_refuses_what_it_cannot_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "abcd\nefgh\nij\n").expect("write");
        assert_eq!(
            super::lines_before(&path, vec![12, 0, 5, 6, 13, 100]),
            [Some(2), Some(0), Some(1), Some(1), Some(3), None]
        );
        assert_eq!(
            super::lines_before(&dir.path().join("gone"), vec![3]),
            [None]
        );
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("path");
            // SAFETY: a NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            assert_eq!(super::lines_before(&fifo, vec![3]), [None]);
        }
    }
    use super::*;

    /// The sessions of the vendored Claude Code 2.1.332 corpus.
    fn real_cc() -> transcript::Discovery {
        let corpus = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpus/real-cc-2.1.332"
        ));
        transcript::discover(&[corpus]).expect("corpus")
    }

    #[test]
    fn a_superseded_query_sends_nothing() {
        let found = real_cc();
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

    /// A key typed mid-word supersedes the running query before its own is
    /// asked (`debounce`): the older one sends nothing, and the one asked
    /// after the pause answers.
    #[test]
    fn a_query_superseded_by_a_held_one_sends_nothing() {
        let found = real_cc();
        let (tx, rx) = mpsc::channel();
        let queries = spawn_queries(found.sessions, tx);
        let query = crate::tui::calls::prepare("tool:Bash", chrono::Utc::now()).expect("valid");
        queries.supersede(2);
        queries.send(1, query.clone());
        assert!(
            rx.recv_timeout(std::time::Duration::from_millis(500))
                .is_err(),
            "generation 1 was superseded"
        );
        queries.send(2, query);
        match rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("an answer")
        {
            Msg::Found { generation, result } => {
                assert_eq!(generation, 2);
                assert_eq!(result.map(|r| r.matched).ok(), Some(52));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    /// With a first page (a heavy user's list; here forced to 3 records),
    /// a query answers its newest 3 records first, then the whole answer,
    /// which begins with the same 3.
    #[test]
    fn a_first_page_comes_before_the_whole_answer_and_begins_it() {
        let found = real_cc();
        let (tx, rx) = mpsc::channel();
        let queries = spawn_queries_with(found.sessions, Library::new(&[]), false, Some(3), tx);
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

/// What running your hooks over every event needs from the TUI: the
/// `--settings` files (empty: each session's own), `--cwd-map`,
/// `--against-settings`, and the environment hooks are given (`None`:
/// this process's).
#[derive(Debug, Clone, Default)]
pub struct EveryEventConfig {
    /// `--settings`.
    pub settings: Vec<PathBuf>,
    /// `--cwd-map`.
    pub cwd_map: hookscope_core::hooks::cwd_map::CwdMap,
    /// `--against-settings`.
    pub against: Vec<PathBuf>,
    /// The environment passed on through the allowlist.
    pub env: Option<std::collections::BTreeMap<String, std::ffi::OsString>>,
}

/// The protections the kernel allows here (checked once per pass): no
/// network, and writes confined to each event's temporary folder.
fn protections_here() -> (
    hookscope_core::hooks::replay::exec_all::Network,
    hookscope_core::hooks::replay::exec_all::Writes,
) {
    use hookscope_core::hooks::replay::exec_all::{Network, Writes};
    let network = match hookscope_core::hooks::exec::no_network_available() {
        Ok(()) => Network::Isolated,
        Err(why) => Network::Unavailable(why),
    };
    let writes = match hookscope_core::hooks::exec::write_confinement_available() {
        Ok(()) => Writes::Confined,
        Err(why) => Writes::Unavailable(why),
    };
    (network, writes)
}

/// Runs `replay --all --exec`'s walk over `sessions` with `config`, as a
/// plan (`cancel` `None`) or a run, sending progress; returns the report.
fn every_event(
    sessions: &[SessionRef],
    config: &EveryEventConfig,
    cancel: Option<&std::sync::atomic::AtomicBool>,
    tx: &Sender<Msg>,
) -> hookscope_core::hooks::replay::exec_all::ExecAll {
    use hookscope_core::hooks::exec::{Confinement, SandboxRunner};
    use hookscope_core::hooks::replay::exec_all::{
        ExecAllOptions, Mode, Network, Writes, exec_all,
    };
    let (network, writes) = protections_here();
    let env = config.env.clone();
    let lookup = move |name: &str| match &env {
        Some(map) => map.get(name).cloned(),
        None => std::env::var_os(name),
    };
    let total = sessions.len();
    let progress = |done: usize, runs: usize| {
        if cancel.is_some() {
            let _ = tx.send(Msg::EveryEventProgress { done, total, runs });
        }
    };
    let opts = ExecAllOptions {
        settings: &config.settings,
        cwd_map: &config.cwd_map,
        env_args: &[],
        isolated: true,
        jobs: thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get),
        network: network.clone(),
        writes: writes.clone(),
        against: (!config.against.is_empty()).then_some(config.against.as_slice()),
        lookup: &lookup,
        progress: &progress,
    };
    match cancel {
        None => exec_all(sessions, &opts, &Mode::Plan),
        Some(cancel) => {
            let runner = SandboxRunner {
                how: Confinement {
                    no_network: network == Network::Isolated,
                    confine_writes: writes == Writes::Confined,
                },
            };
            exec_all(
                sessions,
                &opts,
                &Mode::Run {
                    runner: &runner,
                    cancel,
                },
            )
        }
    }
}

/// `sessions` in path order, as `replay --all --exec` walks them, so the
/// examples kept are the CLI's.
fn by_path(sessions: &[SessionRef]) -> Vec<SessionRef> {
    let mut refs = sessions.to_vec();
    refs.sort_by(|a, b| a.path.cmp(&b.path));
    refs
}

/// The plan pass of your hooks over every event: [`Msg::ExecAllPlanned`].
pub fn exec_all_plan(sessions: &[SessionRef], config: &EveryEventConfig, tx: &Sender<Msg>) {
    let plan = every_event(&by_path(sessions), config, None, tx);
    let _ = tx.send(Msg::ExecAllPlanned(Box::new(plan)));
}

/// The run (after the pane's Enter): progress, then [`Msg::ExecAllDone`]
/// (cancelled when `cancel` was set: the events completed).
pub fn exec_all_run(
    sessions: &[SessionRef],
    config: &EveryEventConfig,
    cancel: &std::sync::atomic::AtomicBool,
    tx: &Sender<Msg>,
) {
    let report = every_event(&by_path(sessions), config, Some(cancel), tx);
    let _ = tx.send(Msg::ExecAllDone(Box::new(report)));
}

/// `--rules` against `--against` over `sessions`
/// ([`hookscope_core::hooks::replay::against::against_refs`]): progress,
/// then [`Msg::Compared`].
pub fn compare_rules(
    sessions: &[SessionRef],
    a: &hookscope_core::hooks::rules::RuleSet,
    b: &hookscope_core::hooks::rules::RuleSet,
    tx: &Sender<Msg>,
) {
    let total = sessions.len();
    let progress = |done: usize| {
        let _ = tx.send(Msg::EveryEventProgress {
            done,
            total,
            runs: 0,
        });
    };
    let r =
        hookscope_core::hooks::replay::against::against_refs(&by_path(sessions), a, b, &progress);
    let _ = tx.send(Msg::Compared(Box::new(r)));
}
