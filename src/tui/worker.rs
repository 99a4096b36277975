//! Background loading: session summaries for the list (rayon, in parallel)
//! and the full parse of the session being opened. Results come back to the
//! UI thread as [`Msg`]s over an mpsc channel; the UI never waits on disk.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::mpsc::{self, Sender};
use std::thread;

use hookscope::query::{FindResult, Query, find_with};
use hookscope::transcript::{self, Diagnostic, Session, SessionRef, SessionSummary};
use rayon::prelude::*;

/// A result from a worker, folded into the app by [`super::app::App::apply`].
#[derive(Debug)]
pub enum Msg {
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

/// Fully loads one session on a background thread and sends [`Msg::Loaded`].
pub fn spawn_open(index: usize, session: SessionRef, tx: Sender<Msg>) {
    thread::spawn(move || {
        let _ = tx.send(Msg::Loaded {
            index,
            result: open(&session),
        });
    });
}

/// Starts the Calls-view query thread over `sessions`: send it
/// `(generation, query)`; it answers each with [`Msg::Found`]. Requests that
/// queue up while one runs are skipped but the newest (typing sends one per
/// key). The thread ends when the sender is dropped.
pub fn spawn_queries(sessions: Vec<SessionRef>, tx: Sender<Msg>) -> Sender<(u64, Query)> {
    let (queries, rx) = mpsc::channel::<(u64, Query)>();
    thread::spawn(move || {
        while let Ok(mut job) = rx.recv() {
            while let Ok(newer) = rx.try_recv() {
                job = newer;
            }
            let (generation, query) = job;
            let result = find_with(&sessions, &query).map_err(|e| e.message().to_string());
            if tx.send(Msg::Found { generation, result }).is_err() {
                break;
            }
        }
    });
    queries
}
