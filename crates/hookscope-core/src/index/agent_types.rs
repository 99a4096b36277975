//! The `agent_type`s of each session's subagents, stored (the `sessions`
//! table's `agent_types`, [`super::schema`]), so a backtest whose `agent`
//! rules name none of a session's types skips the session unread
//! (docs/replay-and-backtest.md#replay-and-backtest): a rebuilt payload's
//! `agent_type` is always one of its subagents'
//! ([`crate::transcript::Subagent::agent_type`]).

use rusqlite::params;

use super::{Index, path_bytes};
use crate::transcript::SessionRef;

impl Index {
    /// The stored `agent_type`s of session `s`'s subagents; `None` when
    /// not known (a grown session, or no row).
    ///
    /// # Errors
    /// SQLite's.
    pub fn session_agent_types(&self, s: &SessionRef) -> rusqlite::Result<Option<Vec<String>>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT agent_types FROM sessions WHERE path = ?1 AND id = ?2")?;
        let mut rows = stmt.query(params![path_bytes(&s.path), s.id])?;
        let Some(row) = rows.next()? else {
            return Ok(None);
        };
        let text: Option<String> = row.get(0)?;
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    }
}
