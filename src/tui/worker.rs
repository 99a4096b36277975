//! Background loading: session summaries for the list (rayon, in parallel)
//! and the full parse of the session being opened. Results come back to the
//! UI thread as [`Msg`]s over an mpsc channel; the UI never waits on disk.

use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::thread;

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
                let _ = tx.send(Msg::Summary {
                    index,
                    result: transcript::load_summary(s).map_err(|e| e.to_string()),
                });
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
