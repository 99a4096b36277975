//! Transcripts: the agent-neutral model, discovery on disk, and one loader
//! per agent (docs/architecture.md#architecture).

pub mod cache;
pub mod claude_code;
pub mod codex;
pub mod diff;
pub mod discover;
pub mod droid;
pub mod export;
pub mod fingerprint;
pub mod follow;
pub mod fsread;
pub mod hook_activity;
pub mod jsonl;
pub mod literal;
pub mod live_line;
pub mod model;
pub mod opencode;
pub mod opencode_json;
pub mod opencode_sqlite;
pub mod resolve;
pub mod short_id;
pub mod sniff;
pub mod spawns;

pub use hookscope_hook::text;

pub use discover::{
    DiscoverError, Discovery, SessionRef, discover, discover_fingerprinted, roots_of,
    sessions_named,
};
pub use literal::call_digest;
pub use model::*;
pub use resolve::{ResolveError, Resolved, resolve_session};

use rayon::prelude::*;

/// A session whose main transcript could not be read (missing, permission,
/// I/O error). Displays as `<path>: <cause>`.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct LoadError {
    /// The main transcript.
    pub path: std::path::PathBuf,
    /// Why it could not be read.
    pub source: std::io::Error,
}

/// Fully loads a discovered session with the loader for its agent.
///
/// # Errors
/// [`LoadError`] when the main file cannot be read (see
/// [`claude_code::load_session`], [`codex::load_session`]); bad lines are
/// diagnostics, not errors.
pub fn load(session: &SessionRef) -> Result<Session, LoadError> {
    let loaded = match session.agent {
        Agent::ClaudeCode => claude_code::load_session(&session.path, &session.subagent_files),
        Agent::Codex => codex::load_session_with(&session.path, &session.subagent_files),
        Agent::OpenCode => {
            if session.path.extension().is_some_and(|e| e == "json") {
                opencode_json::load_session(&session.path)
            } else {
                opencode_sqlite::load_session(&session.path, &session.id)
            }
        }
        Agent::Droid => droid::load_session(&session.path),
    };
    loaded.map_err(|source| LoadError {
        path: session.path.clone(),
        source,
    })
}

/// Loads a session and keeps what a session list needs: its summary and its
/// diagnostics (the bodies are dropped).
///
/// # Errors
/// As [`load`].
pub fn load_summary(session: &SessionRef) -> Result<(SessionSummary, Vec<Diagnostic>), LoadError> {
    load(session).map(|s| (s.summary(), s.diagnostics))
}

/// [`load_summary`] for every session in parallel (rayon), in the order given.
pub fn load_summaries(
    sessions: &[SessionRef],
) -> Vec<Result<(SessionSummary, Vec<Diagnostic>), LoadError>> {
    sessions.par_iter().map(load_summary).collect()
}
