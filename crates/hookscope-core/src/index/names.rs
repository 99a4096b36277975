//! Which sessions call a tool whose name contains one of some names
//! ([`Index::calls_named`]): the backtest's prefilter answered from the
//! index (docs/cli.md#index) instead of scanning every transcript's bytes
//! ([`crate::hooks::replay::could_match`]).

use std::collections::{BTreeSet, HashSet};

use super::{Index, path_bytes};
use crate::transcript::SessionRef;

/// Up to this many sessions [`Index::calls_named`] asks per session;
/// beyond, one scan of every call.
const PER_SESSION: usize = 2000;

impl Index {
    /// Per session of `sessions` (in order): `Some(true)` when one of its
    /// indexed calls (main thread and subagents) has a name containing one
    /// of `names` (bytes, case-sensitive, as a `tool_use` block's `name`
    /// holds them), `Some(false)` when none does, `None` when its rows are
    /// not current now ([`Index::current`]) or the index cannot be read
    /// (the caller then reads the files).
    pub fn calls_named(
        &self,
        sessions: &[SessionRef],
        names: &BTreeSet<String>,
    ) -> Vec<Option<bool>> {
        let current = self.current(sessions);
        if sessions.len() <= PER_SESSION {
            // Few sessions in a big index: ask per session (its rows are
            // found by the primary key) rather than scan every call.
            return sessions
                .iter()
                .zip(current)
                .map(|(s, current)| {
                    if !current {
                        return None;
                    }
                    self.session_calls(s, names).ok()
                })
                .collect();
        }
        let Ok(hits) = self.sessions_calling(names) else {
            return vec![None; sessions.len()];
        };
        sessions
            .iter()
            .zip(current)
            .map(|(s, current)| {
                current.then(|| hits.contains(&(path_bytes(&s.path), s.id.clone())))
            })
            .collect()
    }

    /// Whether session `s` has a call whose name contains one of `names`.
    fn session_calls(&self, s: &SessionRef, names: &BTreeSet<String>) -> rusqlite::Result<bool> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT 1 FROM calls WHERE s_path = ?1 AND s_id = ?2 AND instr(name, ?3) > 0 LIMIT 1",
        )?;
        let path = path_bytes(&s.path);
        for name in names.iter().filter(|n| !n.is_empty()) {
            if stmt.exists(rusqlite::params![path, s.id, name])? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The sessions (path bytes, id) with a call whose name contains one of
    /// `names`.
    fn sessions_calling(
        &self,
        names: &BTreeSet<String>,
    ) -> rusqlite::Result<HashSet<(Vec<u8>, String)>> {
        let mut out = HashSet::new();
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT s_path, s_id FROM calls WHERE instr(name, ?1) > 0")?;
        for name in names.iter().filter(|n| !n.is_empty()) {
            let rows = stmt.query_map([name], |r| Ok((r.get(0)?, r.get(1)?)))?;
            for row in rows {
                out.insert(row?);
            }
        }
        Ok(out)
    }
}
