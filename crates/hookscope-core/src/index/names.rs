//! Which sessions hold a call a backtest's rules may match
//! ([`Index::calls_wanted`]: a name containing one of some names, and
//! maybe an input holding one of some needles): the backtest's prefilter
//! answered from the index (docs/cli.md#index) instead of scanning every
//! transcript's bytes ([`crate::hooks::replay::could_match`]).

use std::collections::{BTreeSet, HashSet};

use super::{Index, path_bytes};
use crate::transcript::SessionRef;

/// (folded call name, folded input needle or `None`) pairs: what
/// [`Index::folded_pairs`] makes of some [`CallNeed`]s for this index.
pub type FoldedPairs = BTreeSet<(String, Option<String>)>;

/// What one rule needs of a call for one of its tool events to match:
/// a name containing one of `names` (bytes, case-sensitive, as a
/// `tool_use` block's `name` holds them) and, when `inputs` is `Some`, a
/// stored folded input (`calls.input_folded`, [`super::schema`]) that
/// holds one of `inputs` (already folded) or was too long to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallNeed {
    /// Name parts, one of which the call's name must contain.
    pub names: BTreeSet<String>,
    /// Folded needles, one of which the call's folded input must hold;
    /// `None`: any input.
    pub inputs: Option<Vec<String>>,
}

impl Index {
    /// [`Index::calls_wanted`] with one need: any call whose name contains
    /// one of `names`.
    pub fn calls_named(
        &self,
        sessions: &[SessionRef],
        names: &BTreeSet<String>,
    ) -> Vec<Option<bool>> {
        self.calls_wanted(
            sessions,
            &[CallNeed {
                names: names.clone(),
                inputs: None,
            }],
        )
    }

    /// Per session of `sessions` (in order): `Some(true)` when one of its
    /// indexed calls (main thread and subagents) meets one of `needs`,
    /// `Some(false)` when none does, `None` when its rows are not current
    /// now ([`Index::current`]) or the index cannot be read (the caller
    /// then reads the files).
    pub fn calls_wanted(&self, sessions: &[SessionRef], needs: &[CallNeed]) -> Vec<Option<bool>> {
        let Ok(pairs) = self.folded_pairs(needs) else {
            return vec![None; sessions.len()];
        };
        // Each session's rows are found by the primary key.
        sessions
            .iter()
            .zip(self.current(sessions))
            .map(|(s, current)| {
                current
                    .then(|| {
                        self.session_answer(s, &pairs)
                            .ok()
                            .map(SessionAnswer::holds)
                    })
                    .flatten()
            })
            .collect()
    }

    /// Whether session `s` has a call that meets one of the needs `pairs`
    /// stands for ([`Index::folded_pairs`]), up to the lines it would read: the answer
    /// when the rows give it, else the `tool_use` lines of the calls whose
    /// inputs were too long to store, to be read by [`SessionAnswer::holds`]
    /// (without the index: a caller sharing the index between threads
    /// reads them after letting it go).
    pub fn session_answer(
        &self,
        s: &SessionRef,
        pairs: &FoldedPairs,
    ) -> rusqlite::Result<SessionAnswer> {
        let path = path_bytes(&s.path);
        // One lookup per pair: any call of the name, or (with a needle)
        // whether a stored input holds it and whether an input was too
        // long to store, in one pass over the session's calls of the name
        // (`calls_verdict` covers both).
        let mut any = self.conn.prepare_cached(
            "SELECT 1 FROM calls WHERE name_folded = ?1 AND s_path = ?2 AND s_id = ?3 LIMIT 1",
        )?;
        let mut held = self.conn.prepare_cached(
            "SELECT max(hs_contains(input_folded, ?4)), max(input_folded IS NULL) FROM calls \
             WHERE name_folded = ?1 AND s_path = ?2 AND s_id = ?3",
        )?;
        let mut long_inputs: BTreeSet<&str> = BTreeSet::new();
        for (name, input) in pairs {
            match input {
                None => {
                    if any.exists(rusqlite::params![name, path, s.id])? {
                        return Ok(SessionAnswer::Known(true));
                    }
                }
                Some(needle) => {
                    let (hit, long): (Option<i64>, Option<i64>) = held
                        .query_row(rusqlite::params![name, path, s.id, needle], |r| {
                            Ok((r.get(0)?, r.get(1)?))
                        })?;
                    if hit == Some(1) {
                        return Ok(SessionAnswer::Known(true));
                    }
                    if long == Some(1) {
                        long_inputs.insert(name.as_str());
                    }
                }
            }
        }
        let mut unstored = self.conn.prepare_cached(
            "SELECT s_path, s_id, file, input_offset, input_len FROM calls \
             WHERE name_folded = ?1 AND s_path = ?2 AND s_id = ?3 AND input_folded IS NULL",
        )?;
        let mut lines = Vec::new();
        for (name, inputs) in unstored_needles(pairs)
            .into_iter()
            .filter(|(name, _)| long_inputs.contains(name))
        {
            let rows = unstored
                .query_map(rusqlite::params![name, path, s.id], Unstored::of)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            if !rows.is_empty() {
                lines.push((rows, inputs.iter().map(|i| i.to_string()).collect()));
            }
        }
        Ok(if lines.is_empty() {
            SessionAnswer::Known(false)
        } else {
            SessionAnswer::Lines(lines)
        })
    }

    /// Where the `tool_use` lines of session `s`'s calls are (thread file,
    /// byte offset, length, in call order): of the calls whose folded name
    /// is one of `pairs`' names (each pair's input needle is not asked), or
    /// of every call when `pairs` is `None`. `None` when one of those calls
    /// has no stored line (a `.zst` rollout, a database). Its rows are
    /// taken as they are: the caller checks that they are current
    /// ([`Index::current`]).
    ///
    /// # Errors
    /// SQLite's.
    pub fn session_call_lines(
        &self,
        s: &SessionRef,
        pairs: Option<&FoldedPairs>,
    ) -> rusqlite::Result<Option<Vec<(std::path::PathBuf, u64, u64)>>> {
        let path = path_bytes(&s.path);
        let mut stmt = self.conn.prepare_cached(
            "SELECT file, input_offset, input_len FROM calls \
             WHERE s_path = ?1 AND s_id = ?2 AND (?3 IS NULL OR name_folded = ?3) ORDER BY seq",
        )?;
        let names: Vec<Option<&str>> = match pairs {
            None => vec![None],
            Some(p) => p
                .iter()
                .map(|(n, _)| Some(n.as_str()))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect(),
        };
        let mut out = Vec::new();
        for name in names {
            let mut rows = stmt.query(rusqlite::params![path, s.id, name])?;
            while let Some(r) = rows.next()? {
                let file: Vec<u8> = r.get(0)?;
                let (Some(offset), Some(len)) =
                    (r.get::<_, Option<i64>>(1)?, r.get::<_, Option<i64>>(2)?)
                else {
                    return Ok(None);
                };
                let (Ok(offset), Ok(len)) = (u64::try_from(offset), u64::try_from(len)) else {
                    return Ok(None);
                };
                out.push((super::path_from_bytes(&file), offset, len));
            }
        }
        Ok(Some(out))
    }

    /// Every (folded name, input needle) pair `needs` asks about, each
    /// once (`None`: a need with no input needles): per name part, the
    /// `name_folded` of every stored call name that contains it
    /// (case-sensitive, as a `tool_use` block's `name` holds it). Two names
    /// may fold alike (`Bash` and OpenCode's `bash`): the pairs then ask
    /// about both, a superset. Empty name parts are left out (no call name
    /// is empty on purpose, and every name contains one).
    pub fn folded_pairs(&self, needs: &[CallNeed]) -> rusqlite::Result<FoldedPairs> {
        if needs.is_empty() {
            return Ok(FoldedPairs::new());
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT DISTINCT name FROM calls")?;
        let names = stmt
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        let mut out = BTreeSet::new();
        for need in needs {
            for part in need.names.iter().filter(|n| !n.is_empty()) {
                for name in names.iter().filter(|n| n.contains(part.as_str())) {
                    let folded = name.to_lowercase();
                    match &need.inputs {
                        None => {
                            out.insert((folded, None));
                        }
                        Some(inputs) => {
                            for i in inputs {
                                out.insert((folded.clone(), Some(i.clone())));
                            }
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

/// What [`Index::session_answer`] knows of one session.
pub enum SessionAnswer {
    /// The rows answer: whether a call meets a need.
    Known(bool),
    /// Calls whose inputs were not stored, each group with the needles one
    /// of which its `tool_use` line must hold.
    Lines(Vec<(Vec<Unstored>, Vec<String>)>),
}

impl SessionAnswer {
    /// The answer, reading the lines when the rows did not give it.
    pub fn holds(self) -> bool {
        match self {
            SessionAnswer::Known(b) => b,
            SessionAnswer::Lines(groups) => groups.into_iter().any(|(rows, inputs)| {
                let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
                !holding(rows, &inputs).is_empty()
            }),
        }
    }
}

/// A call whose input the index did not store (`input_folded` NULL: past
/// [`super::schema::INPUT_FOLDED_MAX`]): where its `tool_use` line is.
pub struct Unstored {
    /// (path bytes, id) of its session.
    session: (Vec<u8>, String),
    /// The thread file holding the line.
    file: std::path::PathBuf,
    /// Byte offset and length of its `tool_use` line; `None` when not
    /// stored (the call then always counts as holding the needle).
    line: Option<(u64, u64)>,
}

impl Unstored {
    fn of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Unstored> {
        let file: Vec<u8> = r.get(2)?;
        let offset: Option<i64> = r.get(3)?;
        let len: Option<i64> = r.get(4)?;
        Ok(Unstored {
            session: (r.get(0)?, r.get(1)?),
            file: super::path_from_bytes(&file),
            line: offset
                .zip(len)
                .and_then(|(o, l)| Some((u64::try_from(o).ok()?, u64::try_from(l).ok()?))),
        })
    }
}

/// The sessions of `rows` with a call whose `tool_use` line, read at its
/// stored offset, holds one of `inputs` (already
/// lowercased, plain ASCII) in the part that holds the inputs
/// ([`crate::query::prefilter::input_region`], ASCII-lowercased), or whose
/// line cannot be read whole (a session that cannot be ruled out counts).
/// That part holds more than the input: a superset, as the byte
/// prefilter's.
fn holding(mut rows: Vec<Unstored>, inputs: &[&str]) -> HashSet<(Vec<u8>, String)> {
    use crate::query::rows::{Opened, read_line};
    rows.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    let mut out = HashSet::new();
    let mut files: std::collections::HashMap<std::path::PathBuf, Option<Opened>> =
        std::collections::HashMap::new();
    for u in rows {
        if out.contains(&u.session) {
            continue;
        }
        // One file open at a time (rows are sorted by file).
        if !files.contains_key(&u.file) {
            files.clear();
        }
        let holds = match u.line.and_then(|l| read_line(&mut files, &u.file, l)) {
            Some(line) => {
                // From its first `"input"` token on: the line's other
                // members (`cwd`, `gitBranch`) come first and often hold
                // the needle. A line whose bytes may hide text (a `\u`
                // escape of ASCII) holds it, as for `may_hold`; the region
                // is lowercased once for every needle.
                use crate::query::prefilter::{has_unicode_marker, input_region};
                let region = input_region(&line);
                has_unicode_marker(region) || {
                    let lower = region.to_ascii_lowercase();
                    inputs
                        .iter()
                        .any(|i| memchr::memmem::find(&lower, i.as_bytes()).is_some())
                }
            }
            None => true,
        };
        if holds {
            out.insert(u.session);
        }
    }
    out
}

/// Per folded name, the input needles of the pairs that have one.
fn unstored_needles(pairs: &FoldedPairs) -> std::collections::BTreeMap<&str, Vec<&str>> {
    let mut out: std::collections::BTreeMap<&str, Vec<&str>> = std::collections::BTreeMap::new();
    for (name, input) in pairs {
        if let Some(input) = input {
            out.entry(name.as_str()).or_default().push(input.as_str());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-session lookup, on every session of the corpus, for needs
    /// with and without input needles, long unstored inputs included: some
    /// sessions call Bash and Write, none holds a Write input with
    /// `zzz-nowhere`, and no need holds everywhere.
    #[test]
    fn the_per_session_lookup_answers_every_need() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        let sessions = crate::transcript::discover(&[corpus])
            .expect("discover")
            .sessions;
        let dir = tempfile::TempDir::new().expect("temp");
        let mut index = Index::open(dir.path()).expect("index");
        index.sync(&sessions, &mut |_| {});
        let need = |names: &[&str], inputs: Option<&[&str]>| CallNeed {
            names: names.iter().map(|n| n.to_string()).collect(),
            inputs: inputs.map(|i| i.iter().map(|n| n.to_string()).collect()),
        };
        let unstored: i64 = index
            .conn
            .query_row(
                "SELECT count(*) FROM calls WHERE input_folded IS NULL",
                [],
                |r| r.get(0),
            )
            .expect("count");
        assert!(unstored > 0, "the corpus has inputs too long to store");
        let mut answered = Vec::new();
        for needs in [
            vec![need(&["Bash"], None)],
            vec![need(&["Bash"], Some(&["git", "never-there"]))],
            vec![need(&["Write", "Edit"], Some(&["the"]))],
            vec![need(&["Write"], Some(&["zzz-nowhere"]))],
            vec![need(&["Bash"], Some(&["exit"])), need(&["Read"], None)],
        ] {
            let mut yes = 0;
            for s in &sessions {
                let pairs = index.folded_pairs(&needs).expect("pairs");
                let one = index.session_answer(s, &pairs).expect("lookup").holds();
                yes += usize::from(one);
            }
            assert!(yes < sessions.len(), "{needs:?}");
            answered.push(yes);
        }
        // Bash and Write calls are in the corpus; no Write input holds
        // the needle, the long ones read at their offsets included.
        assert!(answered[0] > 0 && answered[2] > 0, "{answered:?}");
        assert_eq!(answered[3], 0);
    }
}
