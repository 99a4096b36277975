//! Answers from the index: session summaries ([`Index::summaries`]) and,
//! for `find`, which sessions can hold a match ([`Index::verdicts`]).
//!
//! # Verdicts
//! A session's *candidates* are its indexed calls that pass every filter
//! the index can decide exactly: the tool name (on the folded name, as
//! [`NameFilter::matches`](crate::query::params::NameFilter::matches)),
//! `is_error` (no result = neither), `since`/`until` on the call's
//! timestamp as `find` orders it (its own, else its result's), and `agent`.
//! These filters are one aggregating SQL query over the `calls_verdict`
//! index (per session: the newest `ts_ns`, the count of undated calls).
//! Text filters do not narrow calls whose record `find` builds from its
//! lines (`rows_ok`, see [`crate::query::rows`]): those are read once,
//! there; but `input_contains` is decided in SQL on their stored folded
//! input, and one too long to store has its `tool_use` line read like the
//! calls below, unless `limit` sure matches are newer (it then bounds its
//! session unread, `limit_th_newest`). For other Claude Code calls, `input_contains` and
//! `output_contains` read only the candidate's `tool_use` line and its
//! result's line, with the
//! raw-byte rules of [`crate::query::prefilter`] (plain needle pieces
//! searched ASCII case-insensitively; a Unicode marker or, for outputs, an
//! `"image"`/`"tool_reference"` placeholder keeps the call); an input line
//! that passes is then parsed narrowly and its blocks' inputs tested
//! exactly ([`crate::query::prefilter::line_verdict`]). Other filters
//! (`output_excludes`, hooks) and other agents' text filters keep every
//! candidate. No candidate → [`Verdict::Skip`]; all dated →
//! [`Verdict::Newest`] of the newest; else [`Verdict::Load`]. `find` then
//! visits only those sessions, newest bound first, and filters them
//! exactly (from their rows, [`RowSource`], or loaded).

use std::collections::HashMap;
use std::fs::File;

use chrono::{DateTime, Utc};
use hookscope_hook::event::EventKey;
use rayon::prelude::*;
use rusqlite::params;

use serde_json::Value;

use super::build::{State, Synced};
use super::schema::TS_OUT_OF_RANGE;
use super::{Index, path_bytes, path_from_bytes};
use crate::query::params::{NameFilter, Query};
use crate::query::prefilter::{Verdict, input_cannot_match, may_hold, pieces};
use crate::query::rows::CallFact;
use crate::query::{CallAt, HookFact, RowCall, RowKey, RowSource, SessionRows, SubagentOrigin};
use crate::transcript::{
    Agent, Diagnostic, LoadError, Locus, SessionRef, SessionSummary, load_summary,
};

/// A session's key in the index: main-file path bytes and session id.
type Key = (Vec<u8>, String);

/// A session summary and its diagnostics, or why its main file could not be
/// read: what [`crate::transcript::load_summary`] gives.
pub type SummaryResult = Result<(SessionSummary, Vec<Diagnostic>), LoadError>;

fn parse_time(text: Option<String>) -> Option<DateTime<Utc>> {
    text.and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
        .map(|t| t.with_timezone(&Utc))
}

fn count(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// Which indexed sessions a query asks about: the row loop of
/// [`Index::candidates_of`] reads lines only for their calls (the index is
/// shared by every folder a user ever gave, so a query over one folder
/// must not read another's lines). A session outside the scope gets no
/// candidate, so the scope must hold every session whose verdict is then
/// asked for.
#[derive(Debug, Clone, Default)]
pub enum Scope {
    /// Every indexed session.
    #[default]
    Everything,
    /// The sessions whose main file is under one of these folders (path
    /// bytes): what a discovery of those roots can find.
    Under(Vec<Vec<u8>>),
    /// These sessions (main-file path bytes and id).
    Sessions(std::collections::HashSet<Key>),
}

impl Scope {
    /// The sessions a discovery of `roots` can find: [`Scope::Under`] them
    /// when each is a folder, else [`Scope::Everything`] (a file root may
    /// stand for a session beside it).
    pub fn under(roots: &[std::path::PathBuf]) -> Scope {
        if super::listed::roots_are_folders(roots) {
            Scope::Under(roots.iter().map(|r| path_bytes(r)).collect())
        } else {
            Scope::Everything
        }
    }

    /// Exactly `sessions`.
    pub fn of(sessions: &[SessionRef]) -> Scope {
        Scope::Sessions(
            sessions
                .iter()
                .map(|s| (path_bytes(&s.path), s.id.clone()))
                .collect(),
        )
    }

    /// Whether every one of `sessions` is in the scope.
    pub fn holds_every(&self, sessions: &[SessionRef]) -> bool {
        match self {
            Scope::Everything => true,
            _ => sessions
                .iter()
                .all(|s| self.holds(&(path_bytes(&s.path), s.id.clone()))),
        }
    }

    fn holds(&self, key: &Key) -> bool {
        match self {
            Scope::Everything => true,
            Scope::Under(roots) => roots.iter().any(|r| super::listed::under(&key.0, r)),
            Scope::Sessions(keys) => keys.contains(key),
        }
    }
}

/// The sessions of the index that may hold a match of one query
/// ([`Index::candidates_of`]), keyed by main-file path and id, each with its
/// newest candidate's time and whether one is undated.
pub struct Candidates(HashMap<Key, Acc>);

/// Per session: the newest candidate's time, and whether one is undated.
#[derive(Default)]
struct Acc {
    newest: Option<DateTime<Utc>>,
    undated: bool,
    /// The oldest dated candidate and how many are dated, when the
    /// aggregating query counted them (else `None` and 0): what
    /// [`limit_th_newest`] bounds by.
    oldest: Option<DateTime<Utc>>,
    dated: u64,
    /// With `input_contains`: the newest and oldest dated `rows_ok` calls
    /// whose input is not stored, not yet known to match (`None`: none).
    unstored: Option<Unstored>,
}

/// The newest and oldest of a session's dated calls whose input is not
/// stored ([`Acc::unstored`]).
type Unstored = (Option<DateTime<Utc>>, Option<DateTime<Utc>>);

impl Acc {
    /// Whether a candidate counted (not only an unstored input dated).
    fn holds(&self) -> bool {
        self.newest.is_some() || self.undated
    }
}

/// Compiled text needles (lowercase pieces).
struct Needles {
    input: Vec<String>,
    output: Vec<String>,
}

/// The `sessions` columns a [`SessionSummary`] is read from, in the order
/// [`summary_from_row`] takes them.
pub(super) const SUMMARY_COLUMNS: &str = "cwd, title, first_prompt, started, ended, version, turns, tool_calls, errors, subagents, diagnostics";

/// A [`SessionSummary`] from a row whose [`SUMMARY_COLUMNS`] start at
/// column `at`; `path`, `id` and `agent` are the session's.
pub(super) fn summary_from_row(
    r: &rusqlite::Row<'_>,
    at: usize,
    path: &[u8],
    id: String,
    agent: Agent,
) -> rusqlite::Result<SessionSummary> {
    Ok(SessionSummary {
        id,
        agent,
        path: path_from_bytes(path),
        cwd: r.get(at)?,
        title: r.get(at + 1)?,
        first_prompt: r.get(at + 2)?,
        started: parse_time(r.get(at + 3)?),
        ended: parse_time(r.get(at + 4)?),
        version: r.get(at + 5)?,
        turns: count(r.get(at + 6)?),
        tool_calls: count(r.get(at + 7)?),
        errors: count(r.get(at + 8)?),
        subagents: count(r.get(at + 9)?),
        diagnostics: count(r.get(at + 10)?),
    })
}

impl Index {
    /// The summaries of `sessions`, in order, as
    /// [`crate::transcript::load_summaries`] gives them: indexed sessions
    /// from their rows, the others loaded, failed ones their error.
    pub fn summaries(&self, sessions: &[SessionRef], synced: Synced) -> Vec<SummaryResult> {
        let mut rows = self.summary_rows().unwrap_or_default();
        let mut diags = self.diagnostic_rows().unwrap_or_default();
        let mut out: Vec<Option<SummaryResult>> = Vec::with_capacity(sessions.len());
        let mut to_load = Vec::new();
        for (i, (s, state)) in sessions.iter().zip(synced.states).enumerate() {
            let key = (path_bytes(&s.path), s.id.clone());
            match state {
                State::Indexed => match rows.get(&key).cloned() {
                    Some(mut summary) => {
                        summary.path = s.path.clone();
                        let d = diags.get(&key).cloned().unwrap_or_default();
                        out.push(Some(Ok((summary, d))));
                    }
                    None => {
                        out.push(None);
                        to_load.push(i);
                    }
                },
                State::NotIndexed => {
                    out.push(None);
                    to_load.push(i);
                }
                State::Failed(e) => out.push(Some(Err(e))),
            }
        }
        rows.clear();
        diags.clear();
        use rayon::prelude::*;
        let loaded: Vec<(usize, SummaryResult)> = to_load
            .par_iter()
            .map(|&i| (i, load_summary(&sessions[i])))
            .collect();
        for (i, r) in loaded {
            if let Some(slot) = out.get_mut(i) {
                *slot = Some(r);
            }
        }
        out.into_iter()
            .zip(sessions)
            .map(|(r, s)| r.unwrap_or_else(|| load_summary(s)))
            .collect()
    }

    /// Per session of `sessions` (in order), its stored summary and
    /// diagnostics when its rows are current *now*: the session is indexable
    /// and its main file's size and mtime and its other files' stamps equal
    /// the stored ones (what [`Index::sync`] would reuse), else `None`.
    /// Reads no transcript byte and writes nothing, so a caller can show
    /// these at once and sync the rest later (the TUI's start, docs/cli.md#index).
    pub fn fresh_summaries(
        &self,
        sessions: &[SessionRef],
    ) -> Vec<Option<(SessionSummary, Vec<Diagnostic>)>> {
        let none = || sessions.iter().map(|_| None).collect();
        let fresh = self.current(sessions);
        if !fresh.contains(&true) {
            return none();
        }
        let (Ok(rows), Ok(diags)) = (self.summary_rows(), self.diagnostic_rows()) else {
            return none();
        };
        sessions
            .iter()
            .zip(fresh)
            .map(|(s, fresh)| {
                if !fresh {
                    return None;
                }
                let key = (path_bytes(&s.path), s.id.clone());
                // A key given twice (same file and id) gets a copy.
                let mut summary = rows.get(&key).cloned()?;
                summary.path = s.path.clone();
                let d = diags.get(&key).cloned().unwrap_or_default();
                Some((summary, d))
            })
            .collect()
    }

    /// Per session of `sessions` (in order), whether its rows are current
    /// now: it is indexable, its stored main-file size and mtime equal
    /// the [`SessionRef`]'s and its `deps` still hold (the same rule as
    /// [`Index::sync`]'s reuse: named files' stamps equal the stored ones;
    /// for Droid and OpenCode JSON every path the loader touched has the
    /// same stamp now). Reads no transcript byte (only `stat`s). All `false`
    /// when the index cannot be read.
    pub fn current(&self, sessions: &[SessionRef]) -> Vec<bool> {
        let Ok(stored) = self.stored() else {
            return vec![false; sessions.len()];
        };
        self.current_in(&stored, sessions)
    }

    /// [`Index::current`] against identities already read
    /// ([`Index::stored`]).
    pub(super) fn current_in(
        &self,
        stored: &HashMap<Key, super::build::Stored>,
        sessions: &[SessionRef],
    ) -> Vec<bool> {
        // In parallel, each chunk with its own stat cache.
        sessions
            .par_chunks(256)
            .flat_map_iter(|chunk| {
                let mut restat = super::build::Restat::default();
                chunk
                    .iter()
                    .map(|s| {
                        super::build::indexable(s)
                            && stored
                                .get(&(path_bytes(&s.path), s.id.clone()))
                                .is_some_and(|old| restat.unchanged(s, old))
                    })
                    .collect::<Vec<bool>>()
            })
            .collect()
    }

    /// Every distinct tool name of the indexed calls, sorted (the TUI's
    /// Calls-filter completion).
    ///
    /// # Errors
    /// SQLite's.
    pub fn tool_names(&self) -> rusqlite::Result<Vec<String>> {
        // A loose index scan: each step seeks `calls_names` to the next
        // name, so the cost is per distinct name, not per call.
        let mut stmt = self.conn.prepare(
            "WITH RECURSIVE names(name) AS (
               SELECT MIN(name) FROM calls
               UNION ALL
               SELECT (SELECT MIN(name) FROM calls WHERE name > names.name)
               FROM names WHERE names.name IS NOT NULL)
             SELECT name FROM names WHERE name IS NOT NULL",
        )?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect()
    }

    pub(super) fn summary_rows(&self) -> rusqlite::Result<HashMap<Key, SessionSummary>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT path, id, agent, {SUMMARY_COLUMNS} FROM sessions"
        ))?;
        let rows = stmt.query_map([], |r| {
            let path: Vec<u8> = r.get(0)?;
            let id: String = r.get(1)?;
            let agent: String = r.get(2)?;
            let agent = agent.parse().unwrap_or(Agent::ClaudeCode);
            let summary = summary_from_row(r, 3, &path, id.clone(), agent)?;
            Ok(((path, id), summary))
        })?;
        rows.collect()
    }

    pub(super) fn diagnostic_rows(&self) -> rusqlite::Result<HashMap<Key, Vec<Diagnostic>>> {
        let mut stmt = self.conn.prepare(
            "SELECT s_path, s_id, path, line, record, message FROM diagnostics
             ORDER BY s_path, s_id, ord",
        )?;
        let mut out: HashMap<(Vec<u8>, String), Vec<Diagnostic>> = HashMap::new();
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let key = (r.get::<_, Vec<u8>>(0)?, r.get::<_, String>(1)?);
            let line: Option<i64> = r.get(3)?;
            let record: Option<String> = r.get(4)?;
            let locus = match (line, record) {
                (Some(l), _) => Some(Locus::Line(count(l))),
                (None, Some(id)) => Some(Locus::Record(id)),
                (None, None) => None,
            };
            out.entry(key).or_default().push(Diagnostic {
                path: path_from_bytes(&r.get::<_, Vec<u8>>(2)?),
                locus,
                message: r.get(5)?,
            });
        }
        Ok(out)
    }

    /// Per session of `sessions` (in order), what the index says about
    /// `query` (see the module doc): `None` when the session is not
    /// indexed (the caller falls back to the raw prefilter or a load).
    pub fn verdicts(
        &self,
        sessions: &[SessionRef],
        states: &[State],
        query: &Query,
    ) -> Vec<Option<Verdict>> {
        Self::verdicts_from(
            self.candidates_of(query, &Scope::of(sessions)),
            sessions,
            states,
        )
    }

    /// The half of [`Index::verdicts`] that reads only the index: every
    /// indexed session that may hold a match of `query`, with its newest
    /// candidate's time. It may run on another connection to the same file
    /// ([`super::Index::reader`]) while discovery and the sync run, and is
    /// current for the sessions the sync then reuses unchanged
    /// ([`super::Synced::reused`]); `None` when the index cannot be read.
    /// Only the sessions of `scope` get candidates.
    pub fn candidates_of(&self, query: &Query, scope: &Scope) -> Option<Candidates> {
        self.candidates(query, scope).ok().map(Candidates)
    }

    /// [`Index::verdicts`] from candidates read before or after the sync
    /// (`None`: every session `None`): a session's verdict needs its state
    /// (`states`, in the order of `sessions`: a sync's
    /// [`super::Synced::states`], or the states taken as stored) to be
    /// [`State::Indexed`].
    pub fn verdicts_from(
        candidates: Option<Candidates>,
        sessions: &[SessionRef],
        states: &[State],
    ) -> Vec<Option<Verdict>> {
        let Some(Candidates(accs)) = candidates else {
            return sessions.iter().map(|_| None).collect();
        };
        sessions
            .iter()
            .zip(states)
            .map(|(s, state)| {
                if !matches!(state, State::Indexed) {
                    return None;
                }
                let key = (path_bytes(&s.path), s.id.clone());
                Some(match accs.get(&key) {
                    None => Verdict::Skip,
                    Some(acc) if acc.undated => Verdict::Load,
                    Some(acc) => acc.newest.map_or(Verdict::Load, Verdict::Newest),
                })
            })
            .collect()
    }

    /// The candidate calls of `query` grouped by session: by SQL
    /// aggregation ([`Index::aggregated`]) when no text filter reads lines;
    /// with text filters, the `rows_ok` calls by aggregation too (kept
    /// whatever their text: [`crate::query::Finder::rows`] reads their
    /// lines once and filters them exactly) and the others row by row.
    fn candidates(
        &self,
        query: &Query,
        scope: &Scope,
    ) -> rusqlite::Result<HashMap<(Vec<u8>, String), Acc>> {
        let output_pieces = query
            .output_contains
            .as_deref()
            .map(pieces)
            .unwrap_or_default();
        let text = query.input_contains.is_some() || !output_pieces.is_empty();
        // Without text filters every row is aggregated; with them, the rows
        // whose record `find` builds from its lines (`rows_ok`) are too
        // (the rows path reads those lines once and filters exactly), and
        // the others are checked line by line below.
        let which = match (text, query.input_contains.is_some()) {
            (false, _) => Aggregate::Every,
            (true, true) => Aggregate::StoredInput,
            (true, false) => Aggregate::RowsOk,
        };
        let indexed = self.scan_from(query, scope);
        let aggregated = self.aggregated(query, which, &indexed)?.map(|mut accs| {
            accs.retain(|key, _| scope.holds(key));
            accs
        });
        let (mut out, ok_rows) = match aggregated {
            Some(accs) if !text => return Ok(accs),
            Some(mut accs) if query.input_contains.is_some() => {
                // A session whose only rows are unstored inputs has no
                // sure match, so it does not count here.
                let below = limit_th_newest(&accs, query);
                // A call whose input is not stored is read in the row loop
                // only when it is undated or not older than `limit` sure
                // matches (`below`); the older ones stay candidates unread
                // (see [`limit_th_newest`]), bounding their session by the
                // newest of them, or by `below` itself when the session
                // also has some to read (a looser bound, still above them).
                if let Some(below) = below {
                    for acc in accs.values_mut() {
                        let bound = match acc.unstored {
                            Some((Some(n), _)) if n < below => n,
                            Some((Some(_), Some(o))) if o < below => below,
                            _ => continue,
                        };
                        acc.newest = acc.newest.max(Some(bound));
                    }
                }
                // The rest hold no candidate until the row loop finds one.
                accs.retain(|_, acc| acc.holds());
                let rest = match below.and_then(|t| t.timestamp_nanos_opt()) {
                    Some(below) => format!(
                        "AND (rows_ok = 0 OR (input_folded IS NULL
                           AND (ts_ns IS NULL OR ts_ns = {TS_OUT_OF_RANGE} OR ts_ns >= {below})))"
                    ),
                    None => ROW_BY_ROW.to_string(),
                };
                (accs, rest)
            }
            Some(accs) => (accs, "AND rows_ok = 0".to_string()),
            None => (HashMap::new(), String::new()),
        };
        let (name_sql, needle) = name_sql(query);
        let sql = format!(
            "SELECT {} FROM calls {indexed}
               {name_sql} AND (?2 IS NULL OR agent = ?2) AND (?3 IS NULL OR is_error = ?3)
               AND {INPUT_SQL}
               {ok_rows}",
            Scan::SQL,
        );
        let needles = Needles {
            input: query
                .input_contains
                .as_deref()
                .map(pieces)
                .unwrap_or_default(),
            output: query
                .output_contains
                .as_deref()
                .map(pieces)
                .unwrap_or_default(),
        };
        let mut files: HashMap<Vec<u8>, Option<File>> = HashMap::new();
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(params![
            needle,
            query.agent.map(crate::transcript::Agent::as_str),
            query.is_error,
            None::<i64>,
            None::<i64>,
            None::<i64>,
            query.input_contains
        ])?;
        while let Some(r) = rows.next()? {
            // Its input was matched in SQL (`input_folded`).
            let input_known: bool = r.get(Scan::InputKnown)?;
            let is_error: Option<bool> = r.get(Scan::IsError)?;
            match (query.is_error, is_error) {
                (None, _) => {}
                (Some(_), None) => continue,
                (Some(want), Some(got)) if want != got => continue,
                _ => {}
            }
            let ts_ns: Option<i64> = r.get(Scan::TsNs)?;
            let ts = ts_ns.and_then(time_of_ns);
            let timed = ts_ns.is_some();
            if query.since.is_some() || query.until.is_some() {
                let Some(t) = ts else {
                    if timed {
                        // A time outside i64 nanoseconds: keep it.
                        let key = (
                            r.get::<_, Vec<u8>>(Scan::SPath)?,
                            r.get::<_, String>(Scan::SId)?,
                        );
                        out.entry(key).or_default().undated = true;
                    }
                    continue;
                };
                if query.since.is_some_and(|s| t < s) || query.until.is_some_and(|u| t >= u) {
                    continue;
                }
            }
            let key = (
                r.get::<_, Vec<u8>>(Scan::SPath)?,
                r.get::<_, String>(Scan::SId)?,
            );
            if !scope.holds(&key) {
                continue;
            }
            // A dated call no newer than its session's newest candidate so
            // far changes nothing: its lines are not read.
            if let (Some(t), Some(newest)) = (ts, out.get(&key).and_then(|acc| acc.newest))
                && t <= newest
            {
                continue;
            }
            let agent: String = r.get(Scan::Agent)?;
            if agent == Agent::ClaudeCode.as_str()
                && (query.input_contains.is_some() || !needles.output.is_empty())
            {
                let file: Vec<u8> = r.get(Scan::File)?;
                let span = |o: usize, n: usize| -> rusqlite::Result<Option<(u64, u64)>> {
                    let off: Option<i64> = r.get(o)?;
                    let len: Option<i64> = r.get(n)?;
                    Ok(off
                        .zip(len)
                        .map(|(o, n)| (o.max(0) as u64, n.max(0) as u64)))
                };
                if query.input_contains.is_some()
                    && !input_known
                    && let Some(span) = span(Scan::InputOffset, Scan::InputLen)?
                    && let Some(line) = self.read_line(&mut files, &file, span)
                    && input_cannot_match(&line, &needles.input, query)
                {
                    continue;
                }
                if !needles.output.is_empty() {
                    match span(Scan::OutputOffset, Scan::OutputLen)? {
                        // No result: its text is empty, a needle cannot match.
                        None if is_error.is_none() => continue,
                        Some(span)
                            if self
                                .read_line(&mut files, &file, span)
                                .is_some_and(|line| !may_hold(&line, &needles.output, true)) =>
                        {
                            continue;
                        }
                        _ => {}
                    }
                }
            }
            let acc = out.entry(key).or_default();
            match ts {
                Some(t) => acc.newest = Some(acc.newest.map_or(t, |n| n.max(t))),
                None => acc.undated = true,
            }
        }
        Ok(out)
    }

    /// [`Index::candidates`] without text filters, by one aggregating query
    /// over the `calls_verdict` index: per session, the newest candidate's
    /// `ts_ns` and how many are undated. `None` when a time bound does not
    /// fit i64 nanoseconds (the row loop then decides).
    fn aggregated(
        &self,
        query: &Query,
        which: Aggregate,
        indexed: &str,
    ) -> rusqlite::Result<Option<HashMap<Key, Acc>>> {
        let bound = |t: Option<DateTime<Utc>>| match t {
            None => Some(None),
            Some(t) => t.timestamp_nanos_opt().map(Some),
        };
        let (Some(since), Some(until)) = (bound(query.since), bound(query.until)) else {
            return Ok(None);
        };
        if which == Aggregate::Every && until.is_none() && query.input_contains.is_none() {
            return self.grouped(query, since).map(Some);
        }
        let (name_sql, needle) = name_sql(query);
        // Which rows count as candidates; with `StoredInput`, the others
        // (`rows_ok` calls whose input is not stored) are only dated, in
        // the last two columns.
        let (stored, rows) = match which {
            Aggregate::Every => ("1", ""),
            Aggregate::RowsOk => ("1", "AND rows_ok = 1"),
            Aggregate::StoredInput => ("input_folded IS NOT NULL", "AND rows_ok = 1"),
        };
        // ?6 = TS_OUT_OF_RANGE: a time outside i64 ns, kept as undated.
        let sql = format!(
            "SELECT s_path, s_id,
               MAX(CASE WHEN {stored} AND ts_ns != ?6 THEN ts_ns END),
               SUM({stored} AND (ts_ns IS NULL OR ts_ns = ?6)),
               MIN(CASE WHEN {stored} AND ts_ns != ?6 THEN ts_ns END),
               COUNT(CASE WHEN {stored} AND ts_ns != ?6 THEN 1 END),
               MAX(CASE WHEN NOT ({stored}) AND ts_ns != ?6 THEN ts_ns END),
               MIN(CASE WHEN NOT ({stored}) AND ts_ns != ?6 THEN ts_ns END)
             FROM calls {indexed} {name_sql} AND (?2 IS NULL OR agent = ?2) AND (?3 IS NULL OR is_error = ?3)
               AND (?4 IS NULL OR ts_ns = ?6 OR ts_ns >= ?4)
               AND (?5 IS NULL OR ts_ns = ?6 OR ts_ns < ?5)
               AND ((?4 IS NULL AND ?5 IS NULL) OR ts_ns IS NOT NULL)
               AND {INPUT_SQL}
               {rows}
             GROUP BY s_path, s_id",
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(params![
            needle,
            query.agent.map(crate::transcript::Agent::as_str),
            query.is_error,
            since,
            until,
            TS_OUT_OF_RANGE,
            query.input_contains
        ])?;
        accs(&mut rows).map(Some)
    }

    /// [`Index::aggregated`] for a query on names, agent, `is_error` and
    /// at most a `since` bound (ns), from `call_groups` (one row per
    /// session, name, agent and error flag) rather than every call of the
    /// name: the same newest time and undated count per session. With
    /// `since`, a group's calls at or after it are those of its newest
    /// time when that is at or after it, and its undated calls are the
    /// out-of-range ones (a call without a time does not pass a bound).
    fn grouped(&self, query: &Query, since: Option<i64>) -> rusqlite::Result<HashMap<Key, Acc>> {
        let (name_sql, needle) = name_sql(query);
        // ?4 = since, NULL without a bound.
        let sql = format!(
            "SELECT s_path, s_id,
               MAX(CASE WHEN ?4 IS NULL OR newest_ns >= ?4 THEN newest_ns END),
               SUM(CASE WHEN ?4 IS NULL THEN undated ELSE out_of_range END),
               NULL, 0, NULL, NULL
             FROM call_groups WHERE {name_sql} AND (?2 IS NULL OR agent = ?2)
               AND (?3 IS NULL OR is_error = ?3)
               AND (?4 IS NULL OR newest_ns >= ?4 OR out_of_range > 0)
             GROUP BY s_path, s_id"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(params![
            needle,
            query.agent.map(crate::transcript::Agent::as_str),
            query.is_error,
            since,
        ])?;
        accs(&mut rows)
    }

    /// The bytes at `span` of `file` (a call's line), counted in
    /// [`Index::bytes_read`]; `None` when they cannot be read (the call then
    /// stays a candidate and its session is loaded).
    fn read_line(
        &self,
        files: &mut HashMap<Vec<u8>, Option<File>>,
        file: &[u8],
        (offset, len): (u64, u64),
    ) -> Option<Vec<u8>> {
        let handle = files
            .entry(file.to_vec())
            .or_insert_with(|| crate::transcript::fsread::open_regular(&path_from_bytes(file)).ok())
            .as_mut()?;
        let mut buf = vec![0u8; usize::try_from(len).ok()?];
        read_at(handle, &mut buf, offset).ok()?;
        self.count_read(len);
        Some(buf)
    }
}

/// Which calls [`Index::aggregated`] aggregates (each also passes the
/// query's name, agent, error, time and stored-input filters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Aggregate {
    /// Every call: no text filter.
    Every,
    /// `rows_ok` calls (`output_contains` without `input_contains`).
    RowsOk,
    /// `rows_ok` calls whose input is stored (`input_contains` is decided
    /// in SQL); those whose input is not are dated apart
    /// ([`Acc::unstored`]).
    StoredInput,
}

/// With `input_contains`, when the aggregated candidates are sure matches
/// (every other filter of `query` is decided in SQL): a time with at least
/// `limit` of them at or after it, the later of two such bounds (the
/// `limit`-th newest of the sessions' newest matches; the oldest match of
/// the sessions, taken by oldest match, newest first, whose dated matches
/// reach `limit`). A call older than it cannot be among the newest `limit`,
/// so its line need not be read to bound its session (it stays a
/// candidate: a verdict's time is an upper bound, never a promise).
/// `None` (too few matches): every line is read.
fn limit_th_newest(out: &HashMap<Key, Acc>, query: &Query) -> Option<DateTime<Utc>> {
    let sure = query.input_contains.is_some()
        && query.sessions.is_empty()
        && crate::query::tally::from_facts_but_input(query);
    if !sure || query.limit == 0 {
        return None;
    }
    let mut newest: Vec<DateTime<Utc>> = out.values().filter_map(|acc| acc.newest).collect();
    let by_newest = (newest.len() >= query.limit).then(|| {
        let (_, th, _) = newest.select_nth_unstable_by(query.limit - 1, |a, b| b.cmp(a));
        *th
    });
    let mut spans: Vec<(DateTime<Utc>, u64)> = out
        .values()
        .filter_map(|acc| acc.oldest.map(|t| (t, acc.dated)))
        .collect();
    spans.sort_unstable_by_key(|&(t, _)| std::cmp::Reverse(t));
    let mut seen = 0u64;
    let by_oldest = spans.into_iter().find_map(|(t, n)| {
        seen = seen.saturating_add(n);
        (seen >= query.limit as u64).then_some(t)
    });
    by_newest.max(by_oldest)
}

/// With `input_contains` and too few sure matches to bound by (see
/// [`limit_th_newest`]), the calls the row loop of [`Index::candidates`]
/// checks line by line: those whose record is not built from its lines
/// (`rows_ok = 0`), and those whose input is too long to store. Kept
/// whatever its text, a long input's time would bound its session as if
/// it matched, and a session whose only match is older (a subagent's `npx`
/// under a newer long `Write`) could never be left out of the newest
/// `limit`.
const ROW_BY_ROW: &str = "AND (rows_ok = 0 OR input_folded IS NULL)";

/// `input_contains` as SQL on `input_folded` (`?7` = the folded needle,
/// NULL without the filter; `hs_contains` is [`super`]'s substring test): exact where the text is stored (`find`'s
/// substring of the folded compact input), every row kept where it is not
/// (a long input: its line or session is read instead).
const INPUT_SQL: &str = "(?7 IS NULL OR input_folded IS NULL OR hs_contains(input_folded, ?7))";

impl Index {
    /// Whether `calls`' secondary indexes are there: a first build that
    /// makes them after its last row ([`super::schema::drop_calls_indexes`])
    /// leaves them out while it runs, and a reader between its chunks (the
    /// TUI's Calls view) names none (read within the question's read
    /// transaction, [`Index::in_read_transaction`], so it holds for every
    /// statement of the question). `true` when the schema cannot be read:
    /// the statements then fail as they would.
    pub(crate) fn calls_indexed(&self) -> bool {
        !super::schema::calls_indexes_missing(&self.conn).unwrap_or(false)
    }

    /// `INDEXED BY name` when the calls' secondary indexes are there
    /// ([`Index::calls_indexed`]), else nothing (SQLite then picks).
    fn indexed_by(&self, name: &str) -> String {
        if self.calls_indexed() {
            format!("INDEXED BY {name}")
        } else {
            String::new()
        }
    }

    /// Which index a scan of the candidate calls of `query` reads (SQLite,
    /// without statistics, would walk the table for a name pattern): the
    /// partial `calls_errors` for `is_error: true` (the error calls only;
    /// its `WHERE` is repeated so the planner may use it), else
    /// `calls_verdict`, which covers every filter column (none for one
    /// exact name: the planner seeks it there by itself). Named only while
    /// the indexes are there ([`Index::indexed_by`]).
    fn scan_index(&self, query: &Query) -> String {
        match (query.is_error, &query.name) {
            (Some(true), _) => {
                format!("{} WHERE is_error = 1 AND", self.indexed_by("calls_errors"))
            }
            (_, NameFilter::Pattern(_)) => format!("{} WHERE", self.indexed_by("calls_verdict")),
            (_, NameFilter::Exact(_)) => "WHERE".to_string(),
        }
    }

    /// What follows `FROM calls` in a scan of the candidate calls of
    /// `query` (ending in `WHERE` or `AND`): [`Index::scan_index`], or, when the
    /// scope is folders holding at most a quarter of the indexed calls (by
    /// the sessions' counts), a range of the primary key on `s_path` per
    /// folder, so a
    /// query over a small folder does not scan every call of a large
    /// index (a pattern reads all of `calls_verdict`).
    fn scan_from(&self, query: &Query, scope: &Scope) -> String {
        let Scope::Under(roots) = scope else {
            return self.scan_index(query);
        };
        let ranges: Vec<(Vec<u8>, Vec<u8>)> = roots
            .iter()
            .map(|r| {
                let r = r.strip_suffix(b"/").unwrap_or(r);
                ([r, b"/"].concat(), [r, b"0"].concat())
            })
            .collect();
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        // The folders as ranges of a path column (`calls.s_path`,
        // `sessions.path`).
        let ranges_of = |column: &str| {
            ranges
                .iter()
                .map(|(lo, hi)| {
                    format!("({column} >= X'{}' AND {column} < X'{}')", hex(lo), hex(hi))
                })
                .collect::<Vec<_>>()
                .join(" OR ")
        };
        let count = |filter: &str| -> Option<i64> {
            self.conn
                .query_row(
                    &format!("SELECT coalesce(sum(tool_calls), 0) FROM sessions {filter}"),
                    [],
                    |r| r.get(0),
                )
                .ok()
        };
        let all = count("");
        let inside = count(&format!("WHERE {}", ranges_of("path")));
        match (all, inside) {
            (Some(all), Some(inside)) if inside.saturating_mul(4) <= all => {
                format!(
                    "INDEXED BY sqlite_autoindex_calls_1 WHERE ({}) AND",
                    ranges_of("s_path")
                )
            }
            _ => self.scan_index(query),
        }
    }
}

/// Whether SQL applies every filter of `query` (one exact name, `agent`,
/// `is_error`), so a count on `calls_verdict` is its count of matches.
fn sql_decides(query: &Query) -> bool {
    matches!(query.name, NameFilter::Exact(_))
        && crate::query::tally::from_facts_alone(query)
        && query.since.is_none()
        && query.until.is_none()
}

/// The name filter as SQL on `name_folded` (`?1` = the folded needle).
fn name_sql(query: &Query) -> (&'static str, String) {
    match &query.name {
        NameFilter::Exact(n) => ("name_folded = ?1", n.clone()),
        NameFilter::Pattern(p) => ("instr(name_folded, ?1) > 0", p.clone()),
    }
}

/// Per session, its candidates' newest time and whether any is undated,
/// from rows of `s_path, s_id, newest ns, undated count` (the aggregating
/// queries' shape).
fn accs(rows: &mut rusqlite::Rows<'_>) -> rusqlite::Result<HashMap<Key, Acc>> {
    let mut out: HashMap<Key, Acc> = HashMap::new();
    while let Some(r) = rows.next()? {
        let newest: Option<i64> = r.get(2)?;
        let undated: i64 = r.get(3)?;
        let oldest: Option<i64> = r.get(4)?;
        let dated: i64 = r.get(5)?;
        let unstored: Option<(i64, i64)> = r.get::<_, Option<i64>>(6)?.zip(r.get(7)?);
        out.insert(
            (r.get(0)?, r.get(1)?),
            Acc {
                newest: newest.and_then(time_of_ns),
                undated: undated > 0,
                oldest: oldest.and_then(time_of_ns),
                dated: u64::try_from(dated).unwrap_or(0),
                unstored: unstored.map(|(newest, oldest)| (time_of_ns(newest), time_of_ns(oldest))),
            },
        );
    }
    Ok(out)
}

/// The instant of a stored `ts_ns` (`None` for [`TS_OUT_OF_RANGE`]).
fn time_of_ns(ns: i64) -> Option<DateTime<Utc>> {
    (ns != TS_OUT_OF_RANGE).then(|| DateTime::from_timestamp_nanos(ns))
}

impl RowSource for Index {
    /// Per session, its candidate calls (name, `agent`, `is_error` and time
    /// filters applied in SQL) read from `calls` by primary key; `None` for
    /// a session that is neither Claude Code's nor OpenCode's, or has a
    /// candidate whose
    /// `rows_ok` is 0 (see [`super::schema`]), or when the index cannot be
    /// read. Only sessions whose rows are current may be given (those
    /// [`Index::verdicts`] answered for).
    ///
    /// A `cut` applies in SQL when SQL applies every filter of `query`
    /// (one exact name, `agent`, `is_error`: no time bound, hook or text
    /// filter, no `decided_by`): the calls older than its time (or at its
    /// time, in a session whose id sorts after its), or undated, are then
    /// counted on `calls_verdict` alone and their rows not read (a stored
    /// time out of range is always read).
    fn call_rows(
        &self,
        sessions: &[&SessionRef],
        query: &Query,
        cut: Option<&RowKey>,
    ) -> Vec<Option<SessionRows>> {
        let Ok(mut stmt) = self.row_statement(query) else {
            return sessions.iter().map(|_| None).collect();
        };
        let cut_ns = cut
            .filter(|_| sql_decides(query))
            .and_then(|(time, _)| *time)
            .and_then(|t| t.timestamp_nanos_opt());
        if let (Some(ns), Some((_, cut_id))) = (cut_ns, cut)
            && query.agent.is_none()
            && sessions.len() >= SCAN_FROM
            && let Ok(scanned) = self.scanned_rows(sessions, query, ns, cut_id)
        {
            return scanned;
        }
        let mut beyond = cut_ns.and_then(|_| self.beyond_statement(query).ok());
        let cut_ns = beyond.as_ref().and(cut_ns);
        let (_, needle) = name_sql(query);
        sessions
            .iter()
            .map(|s| {
                crate::query::rows::row_session_id(s)?;
                let cut_ns = cut_ns.map(|ns| match cut {
                    Some((_, id)) => own_cut_ns(s, ns, id),
                    None => ns,
                });
                let calls = session_rows(self, &mut stmt, s, query, cut_ns)
                    .ok()
                    .flatten()?;
                let beyond = match (cut_ns, beyond.as_mut()) {
                    (Some(ns), Some(statement)) => {
                        let n: i64 = statement
                            .query_row(
                                params![
                                    needle,
                                    query.agent.map(crate::transcript::Agent::as_str),
                                    query.is_error,
                                    path_bytes(&s.path),
                                    s.id,
                                    None::<i64>,
                                    None::<String>,
                                    ns,
                                    TS_OUT_OF_RANGE
                                ],
                                |r| r.get(0),
                            )
                            .ok()?;
                        count(n)
                    }
                    _ => 0,
                };
                Some(SessionRows { calls, beyond })
            })
            .collect()
    }

    fn newest_cut(&self, sessions: &[&SessionRef], query: &Query) -> Option<RowKey> {
        self.newest_cut_of(sessions, query)
    }

    /// One scan of `calls` (an exact name seeks `calls_verdict`, a pattern
    /// reads every row), keeping the rows of `sessions`; any agent's calls,
    /// as every call has its name, error flag and time stored.
    fn call_facts(
        &self,
        sessions: &[&SessionRef],
        query: &Query,
        each: &mut dyn FnMut(usize, CallFact<'_>),
    ) -> bool {
        self.facts(sessions, query, each).is_ok()
    }
}

impl Index {
    /// [`RowSource::call_facts`]; `Err` when the index cannot be read
    /// (what was given before the error stands: the caller then drops
    /// every count, see [`crate::query::tally`]).
    fn facts(
        &self,
        sessions: &[&SessionRef],
        query: &Query,
        each: &mut dyn FnMut(usize, CallFact<'_>),
    ) -> rusqlite::Result<()> {
        let wanted = by_main_file(sessions);
        let (name_sql, needle) = name_sql(query);
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT s_path, s_id, name, is_error, timestamp FROM calls
             WHERE {name_sql} AND (?2 IS NULL OR agent = ?2) AND (?3 IS NULL OR is_error = ?3)"
        ))?;
        let mut rows = stmt.query(params![
            needle,
            query.agent.map(crate::transcript::Agent::as_str),
            query.is_error
        ])?;
        // The last row's session and its positions (rows come grouped by
        // session, so the lookup runs once per session, not per row; a
        // session listed twice is given each row twice).
        let mut last: Option<(Vec<u8>, String, Vec<usize>)> = None;
        while let Some(r) = rows.next()? {
            let path = r.get_ref(0)?.as_blob()?;
            let id = r.get_ref(1)?.as_str()?;
            let same = last
                .as_ref()
                .is_some_and(|(p, i, _)| p.as_slice() == path && i == id);
            if !same {
                let at = positions_in(&wanted, path, id);
                last = Some((path.to_vec(), id.to_string(), at));
            }
            let Some((_, _, at)) = &last else {
                continue;
            };
            if at.is_empty() {
                continue;
            }
            let time = r.get_ref(4)?.as_str_or_null()?;
            let timestamp = match time {
                None => Ok(None),
                Some(t) => DateTime::parse_from_rfc3339(t)
                    .map(|t| Some(t.with_timezone(&Utc)))
                    .map_err(|_| ()),
            };
            let fact = CallFact {
                name: r.get_ref(2)?.as_str()?,
                is_error: r.get(3)?,
                timestamp,
            };
            for &i in at {
                each(i, fact);
            }
        }
        Ok(())
    }
}

impl Index {
    /// [`RowSource::newest_cut`]: when SQL applies every filter of `query`
    /// ([`sql_decides`]), walks the name's calls newest first on
    /// `calls_newest` and counts those of `sessions` (a session listed
    /// twice counts twice, as its calls are returned twice) that pass
    /// `is_error`; at the `limit`-th, the key one nanosecond older than its
    /// time (every call at that time is kept). Undated calls and times out
    /// of range are not counted (they sort last, or are always read), so
    /// the key is never newer than the true `limit`-th match. Stops after
    /// [`NEWEST_CUT_WALK`] rows: `None` then, as when fewer match.
    fn newest_cut_of(&self, sessions: &[&SessionRef], query: &Query) -> Option<RowKey> {
        if !sql_decides(query) || query.limit == 0 || sessions.is_empty() {
            return None;
        }
        let NameFilter::Exact(name) = &query.name else {
            return None;
        };
        let wanted = by_main_file(sessions);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT ts_ns, is_error, s_path, s_id FROM calls {}
                     WHERE name_folded = ?1 AND ts_ns IS NOT NULL AND ts_ns != ?2
                     ORDER BY ts_ns DESC",
                self.indexed_by("calls_newest")
            ))
            .ok()?;
        let mut rows = stmt.query(params![name, TS_OUT_OF_RANGE]).ok()?;
        let mut held = 0usize;
        let mut walked = 0usize;
        while let Some(r) = rows.next().ok()? {
            walked += 1;
            if walked > NEWEST_CUT_WALK {
                return None;
            }
            let is_error: Option<bool> = r.get(1).ok()?;
            if query.is_error.is_some() && is_error != query.is_error {
                continue;
            }
            let path = r.get_ref(2).ok()?.as_blob().ok()?;
            let id = r.get_ref(3).ok()?.as_str().ok()?;
            held += wanted
                .get(path)
                .map_or(0, |ids| ids.iter().filter(|(i, _)| *i == id).count());
            if held >= query.limit {
                let ns: i64 = r.get(0).ok()?;
                let time = time_of_ns(ns.checked_sub(1)?)?;
                return Some((Some(time), String::new()));
            }
        }
        None
    }
}

/// The cut at `cut_ns` (its session `cut_id`) as `session` applies it in
/// nanoseconds: a session whose id sorts after the cut's is past it at the
/// cut's own time too, so its calls at that nanosecond are left out.
fn own_cut_ns(session: &SessionRef, cut_ns: i64, cut_id: &str) -> i64 {
    if crate::query::rows::row_session_id(session).is_some_and(|id| id.as_str() > cut_id) {
        cut_ns.saturating_add(1)
    } else {
        cut_ns
    }
}

/// From how many sessions [`RowSource::call_rows`] with a cut reads every
/// session's rows in one scan ([`Index::scanned_rows`]) rather than with
/// two statements per session (2,394 sessions for the newest 10,000
/// failed Bash calls of the heavy benchmark: 4,788 statements).
const SCAN_FROM: usize = 64;

impl Index {
    /// [`RowSource::call_rows`] for a query SQL decides alone
    /// ([`sql_decides`], no `agent`) with a cut at `cut_ns` (the cut's time,
    /// its session `cut_id`): the rows of every session at once, from one
    /// range of `calls_newest` (the calls at or after the cut, and those
    /// whose time is out of range), and per session the calls left out
    /// (`beyond`) as its matching calls in all (`call_groups.calls`) less
    /// those kept. Exactly what the per-session statements give: a session
    /// whose id sorts after `cut_id` leaves out its calls at the cut's own
    /// nanosecond too. `None` for a session with a call its lines cannot
    /// describe ([`RowOutcome::Unusable`]) among those kept, for one whose
    /// groups count fewer calls than it kept (an index at odds with itself:
    /// it is loaded), and for one that is not Claude Code's.
    fn scanned_rows(
        &self,
        sessions: &[&SessionRef],
        query: &Query,
        cut_ns: i64,
        cut_id: &str,
    ) -> rusqlite::Result<Vec<Option<SessionRows>>> {
        let wanted = by_main_file(sessions);
        let positions = |path: &[u8], id: &str| positions_in(&wanted, path, id);
        let own_cut: Vec<i64> = sessions
            .iter()
            .map(|s| own_cut_ns(s, cut_ns, cut_id))
            .collect();
        let mut out: Vec<Option<SessionRows>> = sessions
            .iter()
            .map(|s| crate::query::rows::row_session_id(s).map(|_| SessionRows::default()))
            .collect();
        let mut kept = vec![0usize; sessions.len()];
        let mut unusable = vec![false; sessions.len()];
        let (_, needle) = name_sql(query);
        let extra = Rows::InputKnown + 1;
        let mut files: HashMap<Vec<u8>, Option<File>> = HashMap::new();
        for (range, bound) in [(">=", cut_ns), ("=", TS_OUT_OF_RANGE)] {
            let mut stmt = self.conn.prepare_cached(&format!(
                "SELECT {}, s_path, s_id, ts_ns FROM calls {}
                 WHERE name_folded = ?1 AND (?2 IS NULL OR is_error = ?2) AND ts_ns {range} ?3",
                Rows::SQL,
                self.indexed_by("calls_newest")
            ))?;
            let mut rows = stmt.query(params![needle, query.is_error, bound])?;
            while let Some(r) = rows.next()? {
                let at = positions(
                    r.get_ref(extra)?.as_blob()?,
                    r.get_ref(extra + 1)?.as_str()?,
                );
                if at.is_empty() {
                    continue;
                }
                let ts_ns: i64 = r.get(extra + 2)?;
                let mut outcome = None;
                for i in at {
                    let Some(Some(given)) = out.get_mut(i) else {
                        continue;
                    };
                    if ts_ns != TS_OUT_OF_RANGE && ts_ns < own_cut[i] {
                        continue;
                    }
                    kept[i] += 1;
                    if outcome.is_none() {
                        outcome = Some(row_call(self, r, query, &[], &mut files)?);
                    }
                    match &outcome {
                        Some(RowOutcome::Call(call)) => given.calls.push(RowCall::clone(call)),
                        Some(RowOutcome::Unusable) => unusable[i] = true,
                        Some(RowOutcome::RuledOut) | None => {}
                    }
                }
            }
        }
        // Every matching call of each session, from its groups (one row per
        // session, name, agent and error flag).
        let mut total = vec![0usize; sessions.len()];
        let mut stmt = self.conn.prepare_cached(
            "SELECT s_path, s_id, calls FROM call_groups INDEXED BY call_groups_by_name
             WHERE name_folded = ?1 AND (?2 IS NULL OR is_error = ?2)",
        )?;
        let mut rows = stmt.query(params![needle, query.is_error])?;
        while let Some(r) = rows.next()? {
            let n: i64 = r.get(2)?;
            for i in positions(r.get_ref(0)?.as_blob()?, r.get_ref(1)?.as_str()?) {
                total[i] += count(n);
            }
        }
        for (i, given) in out.iter_mut().enumerate() {
            let Some(rows) = given else {
                continue;
            };
            match total[i].checked_sub(kept[i]) {
                Some(beyond) if !unusable[i] => {
                    rows.beyond = beyond;
                    rows.calls.sort_by_key(|c| c.seq);
                }
                _ => *given = None,
            }
        }
        Ok(out)
    }
}

/// Per main-file path (as `calls.s_path` stores it), its sessions' ids and
/// positions in `sessions` (an OpenCode database holds many; a session
/// listed twice is there twice).
fn by_main_file<'a>(sessions: &[&'a SessionRef]) -> HashMap<Vec<u8>, Vec<(&'a str, usize)>> {
    let mut wanted: HashMap<Vec<u8>, Vec<(&str, usize)>> = HashMap::new();
    for (i, s) in sessions.iter().enumerate() {
        wanted
            .entry(path_bytes(&s.path))
            .or_default()
            .push((s.id.as_str(), i));
    }
    wanted
}

/// The positions in `sessions` of the session `(path, id)` among
/// [`by_main_file`]'s (none when it is not asked for; two when it is
/// listed twice).
fn positions_in(
    wanted: &HashMap<Vec<u8>, Vec<(&str, usize)>>,
    path: &[u8],
    id: &str,
) -> Vec<usize> {
    wanted
        .get(path)
        .map(|ids| {
            ids.iter()
                .filter(|(i, _)| *i == id)
                .map(|&(_, at)| at)
                .collect()
        })
        .unwrap_or_default()
}

/// How many `calls_newest` rows [`Index::newest_cut_of`] walks at most
/// (a query whose matches are rare among its name's calls, or a huge
/// `limit`, then goes without).
const NEWEST_CUT_WALK: usize = 1_000_000;

impl RowSource for std::sync::Mutex<Index> {
    /// [`Index`]'s, holding the lock for one batch (all `None` when the
    /// lock is poisoned).
    fn call_rows(
        &self,
        sessions: &[&SessionRef],
        query: &Query,
        cut: Option<&RowKey>,
    ) -> Vec<Option<SessionRows>> {
        match self.lock() {
            Ok(index) => index.call_rows(sessions, query, cut),
            Err(_) => sessions.iter().map(|_| None).collect(),
        }
    }

    fn call_facts(
        &self,
        sessions: &[&SessionRef],
        query: &Query,
        each: &mut dyn FnMut(usize, CallFact<'_>),
    ) -> bool {
        match self.lock() {
            Ok(index) => index.call_facts(sessions, query, each),
            Err(_) => false,
        }
    }

    fn newest_cut(&self, sessions: &[&SessionRef], query: &Query) -> Option<RowKey> {
        self.lock().ok()?.newest_cut_of(sessions, query)
    }
}

impl Index {
    fn row_statement(&self, query: &Query) -> rusqlite::Result<rusqlite::CachedStatement<'_>> {
        let (name_sql, _) = name_sql(query);
        // One name: seek its rows of the session in `calls_verdict` (whose
        // input filter it also covers) rather than walk every call of the
        // session by primary key, which SQLite picks without statistics.
        let indexed = match query.name {
            NameFilter::Exact(_) => self.indexed_by("calls_verdict"),
            NameFilter::Pattern(_) => String::new(),
        };
        self.conn.prepare_cached(&format!(
            "SELECT {} FROM calls {indexed}
             WHERE s_path = ?4 AND s_id = ?5 AND {name_sql} AND (?2 IS NULL OR agent = ?2)
               AND (?3 IS NULL OR is_error = ?3) AND {INPUT_SQL}
               AND (?8 IS NULL OR ts_ns IS ?9 OR ts_ns >= ?8)
             ORDER BY seq",
            Rows::SQL
        ))
    }

    /// How many calls of one session [`Index::row_statement`] leaves out
    /// for a cut at `?8` ns: those older, or undated (`?9`: the stored
    /// time out of range, never left out). It reads `calls_verdict` only.
    fn beyond_statement(&self, query: &Query) -> rusqlite::Result<rusqlite::CachedStatement<'_>> {
        let (name_sql, _) = name_sql(query);
        self.conn.prepare_cached(&format!(
            "SELECT count(*) FROM calls {}
             WHERE s_path = ?4 AND s_id = ?5 AND {name_sql} AND (?2 IS NULL OR agent = ?2)
               AND (?3 IS NULL OR is_error = ?3)
               AND (ts_ns IS NULL OR (ts_ns IS NOT ?9 AND ts_ns < ?8))",
            self.indexed_by("calls_verdict")
        ))
    }
}

super::calls_table::select!(
    /// The columns the candidate scan reads of every call row its filters
    /// keep ([`Index::verdicts`]).
    Scan {
        SPath = "s_path",
        SId = "s_id",
        Agent = "agent",
        IsError = "is_error",
        TsNs = "ts_ns",
        File = "file",
        InputOffset = "input_offset",
        InputLen = "input_len",
        OutputOffset = "output_offset",
        OutputLen = "output_len",
        InputKnown = "input_folded IS NOT NULL",
    }
);

super::calls_table::select!(
    /// The columns `find` reads of a session's call rows to build their
    /// records from their lines ([`session_rows`]).
    Rows {
        Seq = "seq",
        ToolUseId = "tool_use_id",
        Name = "name",
        IsError = "is_error",
        Timestamp = "timestamp",
        File = "file",
        InputOffset = "input_offset",
        InputLen = "input_len",
        OutputOffset = "output_offset",
        OutputLen = "output_len",
        RowsOk = "rows_ok",
        Thread = "thread",
        OriginAgentId = "origin_agent_id",
        OriginParent = "origin_parent",
        Hooks = "hooks",
        HookFacts = "hook_facts",
        Agent = "agent",
        Locator = "locator",
        InputKnown = "input_folded IS NOT NULL",
    }
);

/// One session's rows for [`RowSource::call_rows`]: `Ok(None)` when one
/// cannot be used.
fn session_rows(
    index: &Index,
    stmt: &mut rusqlite::CachedStatement<'_>,
    session: &SessionRef,
    query: &Query,
    cut_ns: Option<i64>,
) -> rusqlite::Result<Option<Vec<RowCall>>> {
    let input_pieces = query
        .input_contains
        .as_deref()
        .map(pieces)
        .unwrap_or_default();
    let mut files: HashMap<Vec<u8>, Option<File>> = HashMap::new();
    let (_, needle) = name_sql(query);
    let mut rows = stmt.query(params![
        needle,
        query.agent.map(crate::transcript::Agent::as_str),
        query.is_error,
        path_bytes(&session.path),
        session.id,
        None::<i64>,
        query.input_contains,
        cut_ns,
        TS_OUT_OF_RANGE
    ])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        match row_call(index, r, query, &input_pieces, &mut files)? {
            RowOutcome::Call(call) => out.push(*call),
            RowOutcome::RuledOut => {}
            RowOutcome::Unusable => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// What one row read by [`Rows`] gives a session's rows.
enum RowOutcome {
    /// A call its lines describe.
    Call(Box<RowCall>),
    /// A call that cannot pass the query, whatever its lines hold.
    RuledOut,
    /// A call its lines cannot describe: the session is loaded instead.
    Unusable,
}

/// One row whose first columns are [`Rows`] as a [`RowCall`] (see
/// [`session_rows`]); `input_pieces` are the query's `input_contains`
/// pieces, `files` the thread files opened so far.
fn row_call(
    index: &Index,
    r: &rusqlite::Row<'_>,
    query: &Query,
    input_pieces: &[String],
    files: &mut HashMap<Vec<u8>, Option<File>>,
) -> rusqlite::Result<RowOutcome> {
    let ok: i64 = r.get(Rows::RowsOk)?;
    let agent: Option<Agent> = r.get_ref(Rows::Agent)?.as_str()?.parse().ok();
    let span = |o: usize, n: usize| -> rusqlite::Result<Option<(u64, u64)>> {
        let off: Option<i64> = r.get(o)?;
        let len: Option<i64> = r.get(n)?;
        Ok(off
            .zip(len)
            .and_then(|(o, n)| Some((u64::try_from(o).ok()?, u64::try_from(n).ok()?))))
    };
    if ok != 1 || !agent.is_some_and(crate::query::rows::built_from_rows) {
        // A call its lines cannot describe (a Task spawn, a repeated
        // id) makes the session load, unless its input cannot hold the
        // needle: an input too long to be stored (`input_folded` NULL)
        // whose line says so, as `candidates` checks it (a 301 MB
        // session with 1,295 spawns loaded whole for every search).
        let input_known: bool = r.get(Rows::InputKnown)?;
        // Or its stored hook facts fail a hook filter (`--blocked`,
        // `--hook`, …; with none they pass): the 301 MB session's
        // spawns loaded it whole for every `--blocked` query.
        let hooks_fail = agent == Some(Agent::ClaudeCode) && {
            let facts: Option<String> = r.get(Rows::HookFacts)?;
            let facts = match facts {
                None => Some(Vec::new()),
                Some(text) => parse_facts(&text),
            };
            facts.is_some_and(|f| !crate::query::passes_hook_facts(&f, query))
        };
        let ruled_out = hooks_fail
            || agent == Some(Agent::ClaudeCode)
                && query.input_contains.is_some()
                && !input_known
                && match span(Rows::InputOffset, Rows::InputLen)? {
                    Some(at) => {
                        let file: Vec<u8> = r.get(Rows::File)?;
                        index
                            .read_line(files, &file, at)
                            .is_some_and(|line| input_cannot_match(&line, input_pieces, query))
                    }
                    None => false,
                };
        return Ok(if ruled_out {
            RowOutcome::RuledOut
        } else {
            RowOutcome::Unusable
        });
    }
    let at = if agent == Some(Agent::ClaudeCode) {
        let Some(input) = span(Rows::InputOffset, Rows::InputLen)? else {
            return Ok(RowOutcome::Unusable);
        };
        CallAt::Lines {
            input,
            output: span(Rows::OutputOffset, Rows::OutputLen)?,
        }
    } else {
        let Some(message) = r.get::<_, Option<String>>(Rows::Locator)? else {
            return Ok(RowOutcome::Unusable);
        };
        CallAt::Message(message)
    };
    let text: Option<String> = r.get(Rows::Timestamp)?;
    let timestamp = parse_time(text.clone());
    if text.is_some() && timestamp.is_none() {
        return Ok(RowOutcome::Unusable);
    }
    let thread: Option<i64> = r.get(Rows::Thread)?;
    let hooks: Option<String> = r.get(Rows::Hooks)?;
    let facts: Option<String> = r.get(Rows::HookFacts)?;
    let (hooks, hook_facts) = match (hooks, facts) {
        (None, None) => (Vec::new(), Vec::new()),
        (Some(h), Some(f)) => {
            let (Ok(Value::Array(h)), Some(f)) =
                (serde_json::from_str::<Value>(&h), parse_facts(&f))
            else {
                return Ok(RowOutcome::Unusable);
            };
            (h, f)
        }
        _ => return Ok(RowOutcome::Unusable),
    };
    Ok(RowOutcome::Call(Box::new(RowCall {
        seq: count(r.get(Rows::Seq)?),
        tool_use_id: r.get(Rows::ToolUseId)?,
        name: r.get(Rows::Name)?,
        timestamp,
        is_error: r.get(Rows::IsError)?,
        file: path_from_bytes(&r.get::<_, Vec<u8>>(Rows::File)?),
        at,
        origin: thread
            .map(|_| -> rusqlite::Result<SubagentOrigin> {
                Ok(SubagentOrigin {
                    agent_id: r.get(Rows::OriginAgentId)?,
                    parent_tool_use_id: r.get(Rows::OriginParent)?,
                })
            })
            .transpose()?,
        hooks,
        hook_facts,
        input_matched: r.get(Rows::InputKnown)?,
    })))
}

/// `hook_facts` JSON (`[[event, hook_name, blocked, rewrote, flagged], …]`,
/// [`HookFact::to_json`]).
fn parse_facts(text: &str) -> Option<Vec<HookFact>> {
    let Ok(Value::Array(items)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    items
        .iter()
        .map(|item| {
            let text = |i: usize| match item.get(i) {
                Some(Value::String(s)) => Some(Some(s.clone())),
                Some(Value::Null) => Some(None),
                _ => None,
            };
            Some(HookFact {
                event: text(0)?.map(EventKey::from),
                hook_name: text(1)?,
                blocked: item.get(2)?.as_bool()?,
                rewrote: item.get(3)?.as_bool()?,
                flagged: item.get(4)?.as_bool()?,
            })
        })
        .collect()
}

/// Reads exactly `buf.len()` bytes at `offset`.
fn read_at(file: &mut File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(buf)
    }
}
