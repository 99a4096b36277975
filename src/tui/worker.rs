//! Background loading: session summaries for the list (rayon, in parallel)
//! and the full parse of the session being opened. Results come back to the
//! UI thread as [`Msg`]s over an mpsc channel; the UI never waits on disk.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Sender};
use std::thread;
use std::time::Duration;

use std::sync::atomic::{AtomicU64, Ordering};

use hookscope::query::{FindResult, Query, find_with_loader};
use hookscope::transcript::cache::{DEFAULT_BUDGET, SessionCache};
use hookscope::transcript::follow::{Change, FollowOptions, Follower};
use hookscope::transcript::{self, Diagnostic, Session, SessionRef, SessionSummary};
use rayon::prelude::*;

/// A result from a worker, folded into the app by [`super::app::App::apply`].
#[derive(Debug)]
pub enum Msg {
    /// The replay pane's hooks ran ([`run_hooks`]).
    HooksRan {
        /// The run counter the request carried.
        generation: u64,
        /// What they did.
        report: hookscope::hooks::exec::ExecReport,
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
        /// The parsed line (`BashCall::command_line`, hooks.md §2.3).
        line: hookscope::shell::CommandLine,
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
    /// A session appeared under the roots while running ([`spawn_follow`]).
    SessionAdded(SessionRef),
    /// The answer to a Calls-view query.
    Found {
        /// The generation of the filter line it answers.
        generation: u64,
        /// The records, or the `invalid_argument` message.
        result: Result<FindResult, String>,
    },
}

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

/// Starts the follower thread (issue 11 §3): it watches `roots` for new
/// sessions (each sent as [`Msg::SessionAdded`]) and follows the session
/// named on the returned sender (its list index and ref; a new one replaces
/// the previous), sending [`Msg::Live`] once when it starts following and
/// again whenever the session's files gain complete lines. It blocks on
/// file notifications with a timeout (stat polling as the fallback), so it
/// costs next to nothing while idle; it ends when the app's receiver or the
/// sender is dropped.
pub fn spawn_follow(roots: Vec<PathBuf>, tx: Sender<Msg>) -> Sender<(usize, SessionRef)> {
    spawn_follow_with(roots, FollowOptions::default(), tx)
}

/// [`spawn_follow`] with the follower's options (tests shorten the poll).
pub fn spawn_follow_with(
    roots: Vec<PathBuf>,
    options: FollowOptions,
    tx: Sender<Msg>,
) -> Sender<(usize, SessionRef)> {
    let (cmd_tx, cmd_rx) = mpsc::channel::<(usize, SessionRef)>();
    thread::spawn(move || {
        let options = FollowOptions {
            follow_new: false,
            ..options
        };
        let mut follower = Follower::new(&roots, options);
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
        let line = hookscope::shell::parse_command_line(&command);
        let _ = tx.send(Msg::Parsed { key, line });
    });
}

/// The UI's end of the Calls-view query thread ([`spawn_queries`]).
#[derive(Debug, Clone)]
pub struct Queries {
    tx: Sender<(u64, Query)>,
    latest: Arc<AtomicU64>,
}

impl Queries {
    /// Asks for `query` as the Calls view's `generation`; a query still
    /// running for an older generation stops loading sessions at once.
    pub fn send(&self, generation: u64, query: Query) {
        self.latest.store(generation, Ordering::SeqCst);
        let _ = self.tx.send((generation, query));
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
    let (queries, rx) = mpsc::channel::<(u64, Query)>();
    let latest = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&latest);
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
            let result =
                find_with_loader(&sessions, &query, &loader).map_err(|e| e.message().to_string());
            if superseded() {
                continue;
            }
            if tx.send(Msg::Found { generation, result }).is_err() {
                break;
            }
        }
    });
    Queries {
        tx: queries,
        latest,
    }
}

/// The backtest of the replay pane (`B`): every session through `rules`
/// ([`hookscope::hooks::replay::backtest_refs`], one session at a time, so
/// the prefilters skip or narrow what no rule can match), one
/// [`Msg::Backtested`] per session with every block, warn and rewrite of
/// each rule (allows and added context are left out). Runs on the calling
/// thread; [`spawn_backtest`] runs it on its own. A session that cannot be
/// read counts as done, with nothing listed.
pub fn backtest(
    sessions: &[SessionRef],
    rules: &hookscope::hooks::rules::RuleSet,
    tx: &Sender<Msg>,
) {
    let total = sessions.len();
    for (index, sref) in sessions.iter().enumerate() {
        let bt =
            hookscope::hooks::replay::backtest_refs(std::slice::from_ref(sref), rules, &|_| {});
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
    rules: Arc<hookscope::hooks::rules::RuleSet>,
    tx: Sender<Msg>,
) {
    thread::spawn(move || backtest(&sessions, &rules, &tx));
}

/// Runs a confirmed hook plan with the real process runner (each handler
/// in its own process group, killed whole at its timeout): what
/// [`spawn_hooks`] does off the UI thread, and tests call directly.
pub fn run_hooks(plan: &hookscope::hooks::exec::ExecPlan) -> hookscope::hooks::exec::ExecReport {
    plan.run(&hookscope::hooks::exec::ProcessRunner)
}

/// Runs `plan` on a thread and sends [`Msg::HooksRan`] tagged `generation`.
pub fn spawn_hooks(generation: u64, plan: Arc<hookscope::hooks::exec::ExecPlan>, tx: Sender<Msg>) {
    std::thread::spawn(move || {
        let report = run_hooks(&plan);
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
            "/../shared/corpus/real-cc-2.1.332"
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
                assert_eq!(result.map(|r| r.matched).ok(), Some(45));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
