//! Answers from the index: session summaries ([`Index::summaries`]) and,
//! for `find`, which sessions can hold a match ([`Index::verdicts`]).
//!
//! # Verdicts
//! A session's *candidates* are its indexed calls that pass every filter
//! the index can decide exactly: the tool name (on the folded name, as
//! [`NameFilter::matches`](crate::query::params::NameFilter::matches)),
//! `is_error` (no result = neither), `since`/`until` on the call's
//! timestamp as `find` orders it (its own, else its result's), and `agent`.
//! For Claude Code calls, `input_contains` and `output_contains` then read
//! only the candidate's `tool_use` line and its result's line, with the
//! raw-byte rules of [`crate::query::prefilter`] (plain needle pieces
//! searched ASCII case-insensitively; a Unicode marker or, for outputs, an
//! `"image"`/`"tool_reference"` placeholder keeps the call); an input line
//! that passes is then parsed narrowly and its blocks' inputs tested
//! exactly ([`crate::query::prefilter::line_verdict`]). Other filters
//! (`output_excludes`, hooks) and other agents' text filters keep every
//! candidate. No candidate → [`Verdict::Skip`]; all dated →
//! [`Verdict::Newest`] of the newest; else [`Verdict::Load`]. `find` then
//! loads only those sessions, newest bound first, and filters them exactly.

use std::collections::HashMap;
use std::fs::File;

use chrono::{DateTime, Utc};
use rusqlite::params;

use super::build::{State, Synced};
use super::{Index, path_bytes, path_from_bytes};
use crate::query::params::{NameFilter, Query};
use crate::query::prefilter::{Verdict, has_unicode_marker, line_verdict, pieces};
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

/// Per session: the newest candidate's time, and whether one is undated.
#[derive(Default)]
struct Acc {
    newest: Option<DateTime<Utc>>,
    undated: bool,
}

/// Compiled text needles (lowercase pieces).
struct Needles {
    input: Vec<String>,
    output: Vec<String>,
}

/// Placeholders the loader writes into output text (see the prefilter).
const PLACEHOLDERS: &[&[u8]] = &[b"\"image\"", b"\"tool_reference\""];

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
    /// these at once and sync the rest later (the TUI's start, issue 11 §1).
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
        let mut restat = super::build::Restat::default();
        sessions
            .iter()
            .map(|s| {
                super::build::indexable(s)
                    && stored
                        .get(&(path_bytes(&s.path), s.id.clone()))
                        .is_some_and(|old| restat.unchanged(s, old))
            })
            .collect()
    }

    /// Every distinct tool name of the indexed calls, sorted (the TUI's
    /// Calls-filter completion).
    ///
    /// # Errors
    /// SQLite's.
    pub fn tool_names(&self) -> rusqlite::Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT name FROM calls ORDER BY name")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect()
    }

    fn summary_rows(&self) -> rusqlite::Result<HashMap<Key, SessionSummary>> {
        let mut stmt = self.conn.prepare(
            "SELECT path, id, agent, cwd, title, first_prompt, started, ended, version,
               turns, tool_calls, errors, subagents, diagnostics FROM sessions",
        )?;
        let rows = stmt.query_map([], |r| {
            let path: Vec<u8> = r.get(0)?;
            let id: String = r.get(1)?;
            let agent: String = r.get(2)?;
            Ok((
                (path.clone(), id.clone()),
                SessionSummary {
                    id,
                    agent: agent.parse().unwrap_or(Agent::ClaudeCode),
                    path: path_from_bytes(&path),
                    cwd: r.get(3)?,
                    title: r.get(4)?,
                    first_prompt: r.get(5)?,
                    started: parse_time(r.get(6)?),
                    ended: parse_time(r.get(7)?),
                    version: r.get(8)?,
                    turns: count(r.get(9)?),
                    tool_calls: count(r.get(10)?),
                    errors: count(r.get(11)?),
                    subagents: count(r.get(12)?),
                    diagnostics: count(r.get(13)?),
                },
            ))
        })?;
        rows.collect()
    }

    fn diagnostic_rows(&self) -> rusqlite::Result<HashMap<Key, Vec<Diagnostic>>> {
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
        synced: &Synced,
        query: &Query,
    ) -> Vec<Option<Verdict>> {
        let accs = match self.candidates(query) {
            Ok(accs) => accs,
            Err(_) => return sessions.iter().map(|_| None).collect(),
        };
        sessions
            .iter()
            .zip(&synced.states)
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

    /// The candidate calls of `query` grouped by session.
    fn candidates(&self, query: &Query) -> rusqlite::Result<HashMap<(Vec<u8>, String), Acc>> {
        let (name_sql, needle) = match &query.name {
            NameFilter::Exact(n) => ("name_folded = ?1", n.clone()),
            NameFilter::Pattern(p) => ("instr(name_folded, ?1) > 0", p.clone()),
        };
        let sql = format!(
            "SELECT s_path, s_id, agent, is_error, timestamp, file, input_offset, input_len,
               output_offset, output_len FROM calls
             WHERE {name_sql} AND (?2 IS NULL OR agent = ?2)"
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
        let mut rows = stmt.query(params![needle, query.agent])?;
        let mut out: HashMap<(Vec<u8>, String), Acc> = HashMap::new();
        while let Some(r) = rows.next()? {
            let is_error: Option<bool> = r.get(3)?;
            match (query.is_error, is_error) {
                (None, _) => {}
                (Some(_), None) => continue,
                (Some(want), Some(got)) if want != got => continue,
                _ => {}
            }
            let ts = parse_time(r.get(4)?);
            let timed = r.get::<_, Option<String>>(4)?.is_some();
            if query.since.is_some() || query.until.is_some() {
                let Some(t) = ts else {
                    if timed {
                        // A stored time that does not parse back: keep it.
                        let key = (r.get::<_, Vec<u8>>(0)?, r.get::<_, String>(1)?);
                        out.entry(key).or_default().undated = true;
                    }
                    continue;
                };
                if query.since.is_some_and(|s| t < s) || query.until.is_some_and(|u| t >= u) {
                    continue;
                }
            }
            let agent: String = r.get(2)?;
            if agent == Agent::ClaudeCode.as_str()
                && (query.input_contains.is_some() || !needles.output.is_empty())
            {
                let file: Vec<u8> = r.get(5)?;
                let span = |o: usize, n: usize| -> rusqlite::Result<Option<(u64, u64)>> {
                    let off: Option<i64> = r.get(o)?;
                    let len: Option<i64> = r.get(n)?;
                    Ok(off
                        .zip(len)
                        .map(|(o, n)| (o.max(0) as u64, n.max(0) as u64)))
                };
                if query.input_contains.is_some()
                    && let Some(span) = span(6, 7)?
                    && let Some(line) = self.read_line(&mut files, &file, span)
                    && (!holds(&line, &needles.input, false)
                        || line_verdict(&line, query) == Verdict::Skip)
                {
                    continue;
                }
                if !needles.output.is_empty() {
                    match span(8, 9)? {
                        // No result: its text is empty, a needle cannot match.
                        None if is_error.is_none() => continue,
                        Some(span)
                            if self
                                .read_line(&mut files, &file, span)
                                .is_some_and(|line| !holds(&line, &needles.output, true)) =>
                        {
                            continue;
                        }
                        _ => {}
                    }
                }
            }
            let key = (r.get::<_, Vec<u8>>(0)?, r.get::<_, String>(1)?);
            let acc = out.entry(key).or_default();
            match ts {
                Some(t) => acc.newest = Some(acc.newest.map_or(t, |n| n.max(t))),
                None => acc.undated = true,
            }
        }
        Ok(out)
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

/// Whether a line's raw bytes may hold every piece (ASCII
/// case-insensitively): also when it holds a Unicode marker or, with
/// `placeholders`, an `"image"`/`"tool_reference"` string (see
/// [`crate::query::prefilter`]). No pieces: it may.
fn holds(line: &[u8], pieces: &[String], placeholders: bool) -> bool {
    if pieces.is_empty() || has_unicode_marker(line) {
        return true;
    }
    let lower = line.to_ascii_lowercase();
    if placeholders
        && PLACEHOLDERS
            .iter()
            .any(|p| memchr::memmem::find(&lower, p).is_some())
    {
        return true;
    }
    pieces
        .iter()
        .all(|p| memchr::memmem::find(&lower, p.as_bytes()).is_some())
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
