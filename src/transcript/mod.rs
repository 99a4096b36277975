//! Transcripts: the agent-neutral model, discovery on disk, and one loader
//! per agent (architecture.md "Modules").

pub mod claude_code;
pub mod discover;
pub mod export;
pub mod jsonl;
pub mod model;

pub use discover::{DiscoverError, Discovery, SessionRef, discover};
pub use model::*;

use rayon::prelude::*;

/// Fully loads a discovered session with the loader for its agent.
///
/// # Errors
/// When the main file cannot be read (see [`claude_code::load_session`]).
pub fn load(session: &SessionRef) -> std::io::Result<Session> {
    match session.agent {
        Agent::ClaudeCode => claude_code::load_session(&session.path, &session.subagent_files),
    }
}

/// Loads every session in parallel (rayon) and keeps only its summary, in
/// the order given. A session whose main file cannot be read yields `Err`
/// with the path in the message.
pub fn load_summaries(sessions: &[SessionRef]) -> Vec<Result<SessionSummary, String>> {
    sessions
        .par_iter()
        .map(|s| {
            load(s)
                .map(|loaded| loaded.summary())
                .map_err(|e| format!("{}: {e}", s.path.display()))
        })
        .collect()
}
