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

use std::collections::{BTreeSet, HashSet};

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
/// already stored stay: a grown session adds its new turns' prompts).
pub(super) fn write(
    tx: &rusqlite::Transaction<'_>,
    key: &(Vec<u8>, String),
    prompts: &[String],
) -> rusqlite::Result<()> {
    let mut insert = tx.prepare_cached(
        "INSERT OR IGNORE INTO prompts(s_path, s_id, whole, text) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for p in prompts {
        let (whole, text) = if p.len() <= PROMPT_MAX {
            (true, p.as_str())
        } else {
            let mut end = PROMPT_MAX;
            while !p.is_char_boundary(end) {
                end -= 1;
            }
            (false, &p[..end])
        };
        insert.execute(params![key.0, key.1, whole, text])?;
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

impl Index {
    /// Whether one of the stored prompts of session `s` may make one of
    /// `needs` hold (each need: a rule's `prompt` patterns, one of which
    /// must find a match). Its rows are taken as they are: the caller
    /// checks that they are current ([`Index::current`]).
    ///
    /// # Errors
    /// SQLite's.
    pub fn session_prompted(&self, s: &SessionRef, needs: &[&[Pattern]]) -> rusqlite::Result<bool> {
        if needs.is_empty() {
            return Ok(false);
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT whole, text FROM prompts WHERE s_path = ?1 AND s_id = ?2")?;
        let mut rows = stmt.query(params![path_bytes(&s.path), s.id])?;
        while let Some(r) = rows.next()? {
            if may_hold(r.get(0)?, &r.get::<_, String>(1)?, needs) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The sessions (path bytes, id) one of whose stored prompts may make
    /// one of `needs` hold ([`Index::session_prompted`]), in one scan of
    /// every stored prompt.
    ///
    /// # Errors
    /// SQLite's.
    pub fn sessions_prompted(
        &self,
        needs: &[&[Pattern]],
    ) -> rusqlite::Result<HashSet<(Vec<u8>, String)>> {
        if needs.is_empty() {
            return Ok(HashSet::new());
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT s_path, s_id, whole, text FROM prompts")?;
        let mut rows = stmt.query([])?;
        let mut out = HashSet::new();
        while let Some(r) = rows.next()? {
            if may_hold(r.get(2)?, &r.get::<_, String>(3)?, needs) {
                out.insert((r.get(0)?, r.get(1)?));
            }
        }
        Ok(out)
    }
}
