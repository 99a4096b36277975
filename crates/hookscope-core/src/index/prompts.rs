//! The opening prompts of each session's turns, stored (the `prompts`
//! table, [`super::schema`]), so a backtest whose prompt rules cannot match
//! any of a session's prompts skips the session unread
//! (docs/replay-and-backtest.md#replay-and-backtest, docs/cli.md#index).
//!
//! A rule's `prompt` condition tests a UserPromptSubmit's `prompt`, or the
//! opening prompt of the turn (inside a subagent, of the subagent's task)
//! an event belongs to ([`crate::hooks::rules::History::turn_prompt`]).
//! Each of those is the [`crate::transcript::Turn::prompt`] of a turn with
//! a `prompt_line`, main thread or subagent: [`prompts_of`] keeps exactly
//! those, so when none of them matches a rule's patterns, no event of the
//! session can.

use std::collections::BTreeSet;

use rusqlite::params;

use super::{Index, path_bytes};
use crate::hooks::rules::Pattern;
use crate::transcript::{Session, SessionRef};

/// The longest prompt stored whole (64 KiB); a longer one is stored as its
/// start with `whole = 0`, and any prompt condition may hold on it.
pub const PROMPT_MAX: usize = 64 << 10;

/// The distinct opening prompts of `session`'s turns, main thread and
/// subagents (each [`crate::transcript::Turn::prompt`] of a turn with a
/// `prompt_line`), sorted.
pub fn prompts_of(session: &Session) -> Vec<String> {
    let turns = session
        .turns
        .iter()
        .chain(session.subagents.iter().flat_map(|s| s.turns.iter()));
    let set: BTreeSet<&str> = turns
        .filter(|t| t.prompt_line.is_some())
        .map(|t| t.prompt.as_str())
        .collect();
    set.into_iter().map(str::to_string).collect()
}

/// Adds `prompts` to the stored prompts of the session `key` (those
/// already stored stay: a grown session adds its new turns' prompts), each
/// with its `stop` mark: whether it is one of `stop` (the prompts its Stop
/// and SubagentStop firings test, [`crate::hooks::replay::stop_prompts`]).
/// `stop` is `None` when not known (a grown session, read from where it
/// ended): every prompt of the session, those stored before included, is
/// then marked.
pub(super) fn write(
    tx: &rusqlite::Transaction<'_>,
    key: &(Vec<u8>, String),
    prompts: &[String],
    stop: Option<&BTreeSet<String>>,
) -> rusqlite::Result<()> {
    let mut insert = tx.prepare_cached(
        "INSERT INTO prompts(s_path, s_id, whole, text, stop) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT DO UPDATE SET stop = max(stop, excluded.stop)",
    )?;
    for p in prompts {
        let by_stop = stop.is_none_or(|s| s.contains(p));
        let (whole, text) = if p.len() <= PROMPT_MAX {
            (true, p.as_str())
        } else {
            let mut end = PROMPT_MAX;
            while !p.is_char_boundary(end) {
                end -= 1;
            }
            (false, &p[..end])
        };
        insert.execute(params![key.0, key.1, whole, text, by_stop])?;
    }
    if stop.is_none() {
        tx.prepare_cached("UPDATE prompts SET stop = 1 WHERE s_path = ?1 AND s_id = ?2")?
            .execute(params![key.0, key.1])?;
    }
    Ok(())
}

/// Whether a stored prompt (`whole`: stored whole) may make one of `needs`
/// hold: one of a need's patterns finds a match in it, or it was too long
/// to store whole.
fn may_hold(whole: bool, text: &str, needs: &[&[Pattern]]) -> bool {
    !whole
        || needs
            .iter()
            .any(|n| n.iter().any(|p| p.find(text).is_some()))
}

/// One stored prompt of a session ([`Index::session_prompts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPrompt {
    /// Stored whole (else `text` is its first [`PROMPT_MAX`] bytes).
    pub whole: bool,
    /// The prompt, or its start.
    pub text: String,
    /// A Stop or SubagentStop firing of the session tests it (or may).
    pub stop: bool,
}

/// Whether a rule's `prompt` condition (`patterns`, one of which must
/// find a match) may hold on an event of a session whose stored prompts
/// are `stored`: on one of them (of those marked `stop` when `stops_only`:
/// the rule names Stop or SubagentStop alone), or on one too long to
/// store whole.
pub fn prompt_may_hold(stored: &[StoredPrompt], patterns: &[Pattern], stops_only: bool) -> bool {
    stored
        .iter()
        .filter(|p| p.stop || !stops_only)
        .any(|p| may_hold(p.whole, &p.text, &[patterns]))
}

impl Index {
    /// The stored prompts of session `s` ([`super::schema`]'s `prompts`).
    /// Its rows are taken as they are: the caller checks that they are
    /// current ([`Index::current`]).
    ///
    /// # Errors
    /// SQLite's.
    pub fn session_prompts(&self, s: &SessionRef) -> rusqlite::Result<Vec<StoredPrompt>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT whole, text, stop FROM prompts WHERE s_path = ?1 AND s_id = ?2",
        )?;
        stmt.query_map(params![path_bytes(&s.path), s.id], |r| {
            Ok(StoredPrompt {
                whole: r.get(0)?,
                text: r.get(1)?,
                stop: r.get(2)?,
            })
        })?
        .collect()
    }
}
