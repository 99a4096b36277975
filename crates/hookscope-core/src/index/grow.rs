//! Indexing a grown Claude Code session from where its main file ended
//! (docs/cli.md#index).
//!
//! A full index of a Claude Code session stores, next to its rows, the
//! loader's [`Checkpoint`] of the main file (table `checkpoints`, see
//! [`super::schema`]): the offset and line number of the end of its last
//! complete line, and the main thread's state there that later lines can
//! touch (turn counts and the first prompt, the session facts behind the
//! title, cwd and version, the main thread's times, its hook firings). When
//! [`super::Index::sync`] finds the main file grown (same bytes before the
//! old end: `tail_hash`) and its other files unchanged, it reads only the
//! bytes after that offset with
//! [`crate::transcript::claude_code::resume_session`], on top of the stored
//! calls of the main thread ([`OldCall`]s from the `calls` rows), so the
//! loader stays the one place that decides what lines mean. Then:
//! - the calls of the new lines become rows with the same function as a
//!   full index (`build::call_rows`), numbered after the stored
//!   ones;
//! - a stored call whose result (or a hook firing) arrives in the new
//!   lines gets its result and hook columns rewritten (`is_error`,
//!   `timestamp`, `ts_ns`, `output_*`, `rows_ok`, `hooks`, `hook_facts`):
//!   every stored call's columns are computed again from the resumed state
//!   and written where they differ;
//! - the diagnostics of the new lines join the stored ones in the loader's
//!   order (the stored ones of a partial last line, read again, are
//!   dropped); the `sessions` row is the resumed session's summary.
//!
//! A partial last line at the old end (a live session mid-write) is not
//! part of the checkpoint: it is read again as the first new line.
//!
//! Falls back to loading the file whole (always correct): a session with
//! subagent files or inline sidechain threads, a compressed main file, no
//! stored checkpoint (an index from before it, or a main file that ended in
//! a line which parsed without its newline, or stopped on a read error), a
//! checkpoint not made at the stored size, a stored call without its line,
//! and new lines that hold a `summary` line, a sidechain line, a `tool_use`
//! reusing an earlier call's id, or a hook firing that rewrote an earlier
//! call's input (see [`crate::transcript::claude_code::resume_session`]).

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use super::build::{Built, CallRow, Lines, Stored, call_rows, deps_stamp, join_paths, mtime_ns};
use super::{path_bytes, path_from_bytes};
use crate::tools::ToolKind;
use crate::transcript::claude_code::{Checkpoint, OldCall, resume_session};
use crate::transcript::{Agent, Diagnostic, Locus, SessionRef};

/// A stored call row, as far as a resume reads it.
struct OldRow {
    seq: i64,
    tool_use_id: String,
    name: String,
    kind: String,
    resolved: Option<String>,
    is_error: Option<bool>,
    timestamp: Option<String>,
    input: Option<(usize, u64, u64)>,
    output: Option<(usize, u64, u64)>,
    ts_ns: Option<i64>,
    rows_ok: bool,
    hooks: Option<String>,
    hook_facts: Option<String>,
}

super::calls_table::select!(
    /// The columns a resume reads of a session's stored calls ([`OldRow`]).
    Old {
        Seq = "seq",
        Thread = "thread",
        ToolUseId = "tool_use_id",
        Name = "name",
        Kind = "kind",
        Resolved = "resolved",
        IsError = "is_error",
        Timestamp = "timestamp",
        InputLine = "input_line",
        InputOffset = "input_offset",
        InputLen = "input_len",
        OutputLine = "output_line",
        OutputOffset = "output_offset",
        OutputLen = "output_len",
        TsNs = "ts_ns",
        RowsOk = "rows_ok",
        Hooks = "hooks",
        HookFacts = "hook_facts",
    }
);

/// A stored diagnostic row: path bytes, line, record, message.
type DiagRow = (Vec<u8>, Option<i64>, Option<String>, String);

/// What a resume reads from the index for one session (read on the
/// connection's thread, used on a worker).
pub(super) struct Inputs {
    /// The stored `size` and `mtime_ns` the rows were read at.
    stamp: (u64, Option<i64>),
    checkpoint: Checkpoint,
    old: Vec<OldRow>,
    /// Stored diagnostics in order: path bytes, line, record, message.
    diagnostics: Vec<DiagRow>,
}

/// The stored rows a resumed session changes: `(seq, row)` of each stored
/// call whose result or hook columns differ now.
pub(super) struct Resume {
    updates: Vec<(i64, CallRow)>,
    /// The stored `size`, `mtime_ns` and call count it was built on (the
    /// rows are checked again inside the write transaction: another
    /// process may have re-indexed the session in between).
    on: (u64, Option<i64>, usize),
}

/// The checkpoint as stored: its JSON, when it reads back equal (a float
/// that would not is left out, and the session then loads whole when it
/// grows). Only JSON values held verbatim (a hook's rewritten input) can
/// fail to; the read-back check runs only when it holds one.
pub(super) fn checkpoint_text(cp: &Checkpoint) -> Option<String> {
    let text = serde_json::to_string(cp).ok()?;
    if !cp.holds_json_values() {
        return Some(text);
    }
    let back: Checkpoint = serde_json::from_str(&text).ok()?;
    (back == *cp).then_some(text)
}

fn span(line: Option<i64>, offset: Option<i64>, len: Option<i64>) -> Option<(usize, u64, u64)> {
    Some((
        usize::try_from(line?).ok()?,
        u64::try_from(offset?).ok()?,
        u64::try_from(len?).ok()?,
    ))
}

/// What a resume of `session` needs from the index, `None` when it cannot
/// resume (see the module doc): not Claude Code, subagent files, no usable
/// checkpoint, a subagent call row, or the index cannot be read.
pub(super) fn inputs(conn: &Connection, session: &SessionRef, old: &Stored) -> Option<Inputs> {
    if session.agent != Agent::ClaudeCode || !session.subagent_files.is_empty() {
        return None;
    }
    let key = (path_bytes(&session.path), session.id.clone());
    let text: String = conn
        .query_row(
            "SELECT state FROM checkpoints WHERE s_path = ?1 AND s_id = ?2",
            params![key.0, key.1],
            |r| r.get(0),
        )
        .optional()
        .ok()??;
    let checkpoint: Checkpoint = serde_json::from_str(&text).ok()?;
    if checkpoint.end != old.size || checkpoint.offset > old.size || session.size <= old.size {
        return None;
    }
    let read_calls = || -> rusqlite::Result<Vec<(Option<i64>, OldRow)>> {
        let mut stmt = conn.prepare(&format!(
            "SELECT {} FROM calls WHERE s_path = ?1 AND s_id = ?2 ORDER BY seq",
            Old::SQL
        ))?;
        let rows = stmt.query_map(params![key.0, key.1], |r| {
            Ok((
                r.get::<_, Option<i64>>(Old::Thread)?,
                OldRow {
                    seq: r.get(Old::Seq)?,
                    tool_use_id: r.get(Old::ToolUseId)?,
                    name: r.get(Old::Name)?,
                    kind: r.get(Old::Kind)?,
                    resolved: r.get(Old::Resolved)?,
                    is_error: r.get(Old::IsError)?,
                    timestamp: r.get(Old::Timestamp)?,
                    input: span(
                        r.get(Old::InputLine)?,
                        r.get(Old::InputOffset)?,
                        r.get(Old::InputLen)?,
                    ),
                    output: span(
                        r.get(Old::OutputLine)?,
                        r.get(Old::OutputOffset)?,
                        r.get(Old::OutputLen)?,
                    ),
                    ts_ns: r.get(Old::TsNs)?,
                    rows_ok: r.get(Old::RowsOk)?,
                    hooks: r.get(Old::Hooks)?,
                    hook_facts: r.get(Old::HookFacts)?,
                },
            ))
        })?;
        rows.collect()
    };
    let calls = read_calls().ok()?;
    if calls.iter().any(|(thread, _)| thread.is_some()) {
        return None;
    }
    let old_rows: Vec<OldRow> = calls.into_iter().map(|(_, row)| row).collect();
    if old_rows
        .iter()
        .enumerate()
        .any(|(i, row)| i64::try_from(i + 1) != Ok(row.seq))
    {
        return None;
    }
    let read_diags = || -> rusqlite::Result<Vec<DiagRow>> {
        let mut stmt = conn.prepare(
            "SELECT path, line, record, message FROM diagnostics
             WHERE s_path = ?1 AND s_id = ?2 ORDER BY ord",
        )?;
        let rows = stmt.query_map(params![key.0, key.1], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
        rows.collect()
    };
    let diagnostics = read_diags().ok()?;
    Some(Inputs {
        stamp: (old.size, old.mtime_ns),
        checkpoint,
        old: old_rows,
        diagnostics,
    })
}

/// The stored kind word back as a [`ToolKind`].
fn kind_of(word: &str) -> Option<ToolKind> {
    [
        ToolKind::Edit,
        ToolKind::Write,
        ToolKind::Read,
        ToolKind::Bash,
        ToolKind::Task,
        ToolKind::Skill,
        ToolKind::Mcp,
        ToolKind::Web,
        ToolKind::Other,
    ]
    .into_iter()
    .find(|k| k.as_str() == word)
}

fn time_of(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The stored call as the loader's [`OldCall`]; `None` when its line or a
/// stored value does not read back.
fn old_call(row: &OldRow) -> Option<OldCall> {
    let (line, _, _) = row.input?;
    let timestamp = match &row.timestamp {
        Some(t) => Some(time_of(t)?),
        None => None,
    };
    let result = row
        .is_error
        .map(|is_error| (is_error, row.output.map_or(0, |(l, _, _)| l)));
    Some(OldCall {
        tool_use_id: row.tool_use_id.clone(),
        name: row.name.clone(),
        kind: kind_of(&row.kind)?,
        resolved: row.resolved.clone(),
        line,
        timestamp,
        result,
    })
}

/// A stored diagnostic row back as a [`Diagnostic`].
fn diagnostic_of(row: &DiagRow) -> Option<Diagnostic> {
    let locus = match (row.1, &row.2) {
        (Some(line), _) => Some(Locus::Line(usize::try_from(line).ok()?)),
        (None, Some(record)) => Some(Locus::Record(record.clone())),
        (None, None) => None,
    };
    Some(Diagnostic {
        path: path_from_bytes(&row.0),
        locus,
        message: row.3.clone(),
    })
}

/// Whether a recomputed row of a stored call differs from it in a column
/// a resume may change.
fn changed(row: &CallRow, old: &OldRow) -> bool {
    row.is_error != old.is_error
        || row.timestamp != old.timestamp
        || row.ts_ns != old.ts_ns
        || row.output != old.output
        || row.rows_ok != old.rows_ok
        || row.hooks.as_ref().map(|h| &h.0) != old.hooks.as_ref()
        || row.hooks.as_ref().map(|h| &h.1) != old.hook_facts.as_ref()
}

/// Indexes a grown session from its checkpoint and stored rows; `None`
/// when it must be loaded whole (module doc), including when the main file
/// cannot be read now (the full load then reports it).
pub(super) fn build_grown(session: &SessionRef, input: Inputs) -> Option<Built> {
    let Inputs {
        stamp,
        checkpoint,
        old,
        diagnostics: stored_diags,
    } = input;
    let old_calls: Vec<OldCall> = old.iter().map(old_call).collect::<Option<_>>()?;
    let resumed = resume_session(&session.path, &checkpoint, &old_calls)
        .ok()?
        .ok()?;
    let mut loaded = resumed.session;
    let mut known = HashMap::new();
    for row in &old {
        for (line, offset, len) in [row.input, row.output].into_iter().flatten() {
            known.insert(line, (offset, len));
        }
    }
    let mut lines: HashMap<PathBuf, Option<Lines>> = HashMap::new();
    lines.insert(
        session.path.clone(),
        Some(Lines {
            first: checkpoint.lines + 1,
            starts: resumed.starts,
            known,
        }),
    );
    let mut read = resumed.read;
    // The stored calls the new lines can change: one still awaiting its
    // result, or one a hook firing of the new lines names.
    let touched: std::collections::HashSet<usize> = loaded
        .lines
        .hook_activity
        .iter()
        .filter(|h| h.lines.iter().any(|&l| l > checkpoint.lines))
        .filter_map(|h| h.call_line)
        .collect();
    let want = |i: usize| {
        old.get(i).is_none_or(|row| {
            row.is_error.is_none() || row.input.is_some_and(|(l, _, _)| touched.contains(&l))
        })
    };
    let rows = call_rows(session, &loaded, &mut lines, &mut read, &want);
    let (mut updates, mut new_rows) = (Vec::new(), Vec::new());
    for (i, row) in rows {
        if row.thread.is_some() {
            return None;
        }
        match old.get(i) {
            Some(stored) if stored.tool_use_id != row.tool_use_id => return None,
            Some(stored) => {
                if changed(&row, stored) {
                    updates.push((stored.seq, row));
                }
            }
            None => new_rows.push(row),
        }
    }
    if loaded.all_tool_calls().count() != old.len() + new_rows.len() {
        return None;
    }

    // The stored diagnostics, without those of a partial last line (read
    // again), then the new lines' ones where the loader's sort puts them:
    // after every diagnostic of a path up to the main file's.
    let mut diagnostics: Vec<Diagnostic> = stored_diags
        .iter()
        .map(diagnostic_of)
        .collect::<Option<_>>()?;
    diagnostics
        .retain(|d| d.path != session.path || d.line().is_none_or(|l| l <= checkpoint.lines));
    let at = diagnostics
        .iter()
        .position(|d| d.path > session.path)
        .unwrap_or(diagnostics.len());
    let new_diags = std::mem::take(&mut loaded.diagnostics);
    diagnostics.splice(at..at, new_diags);
    loaded.diagnostics = diagnostics;
    let summary = loaded.summary();

    let (hash, hashed) = super::build::tail_hash(&session.path, session.size);
    read += hashed;
    Some(Built {
        key: (path_bytes(&session.path), session.id.clone()),
        agent: session.agent,
        size: session.size,
        mtime_ns: mtime_ns(session.modified),
        tail_hash: hash,
        deps: deps_stamp(session),
        subagent_files: join_paths(&session.subagent_files),
        summary,
        prompts: super::prompts::prompts_of(&loaded),
        // Read from where the file ended: which prompts its Stops test is
        // not known whole (a Stop may close a turn begun before). A resumed
        // session has no subagent (one with subagent files or sidechain
        // lines is loaded whole: module doc).
        stop_prompts: None,
        agent_types: Some(BTreeSet::new()),
        diagnostics: loaded.diagnostics,
        calls: new_rows,
        read,
        first_seq: old.len() + 1,
        checkpoint: resumed.checkpoint.as_ref().and_then(checkpoint_text),
        resume: Some(Resume {
            updates,
            on: (stamp.0, stamp.1, old.len()),
        }),
    })
}

fn int(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn uint(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Before a resumed session's rows are written: drops its `sessions` row
/// and diagnostics (written again whole) and rewrites the changed columns
/// of its stored calls (the others stay; the new calls are inserted after
/// them). `Ok(false)`, changing nothing, when the stored rows are no longer
/// those the resume was built on (another process wrote them since): the
/// session is then left as that process indexed it.
pub(super) fn apply(
    tx: &rusqlite::Transaction<'_>,
    key: &(Vec<u8>, String),
    resume: &Resume,
) -> rusqlite::Result<bool> {
    let now: Option<(i64, Option<i64>)> = tx
        .query_row(
            "SELECT size, mtime_ns FROM sessions WHERE path = ?1 AND id = ?2",
            params![key.0, key.1],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let calls: i64 = tx.query_row(
        "SELECT count(*) FROM calls WHERE s_path = ?1 AND s_id = ?2",
        params![key.0, key.1],
        |r| r.get(0),
    )?;
    let (size, mtime_ns, count) = resume.on;
    if now != Some((uint(size), mtime_ns)) || calls != int(count) {
        return Ok(false);
    }
    tx.execute(
        "DELETE FROM sessions WHERE path = ?1 AND id = ?2",
        params![key.0, key.1],
    )?;
    tx.execute(
        "DELETE FROM diagnostics WHERE s_path = ?1 AND s_id = ?2",
        params![key.0, key.1],
    )?;
    let mut update = tx.prepare_cached(
        "UPDATE calls SET is_error = ?4, timestamp = ?5, ts_ns = ?6, output_line = ?7,
           output_offset = ?8, output_len = ?9, rows_ok = ?10, hooks = ?11, hook_facts = ?12
         WHERE s_path = ?1 AND s_id = ?2 AND seq = ?3",
    )?;
    for (seq, c) in &resume.updates {
        update.execute(params![
            key.0,
            key.1,
            seq,
            c.is_error,
            c.timestamp,
            c.ts_ns,
            c.output.map(|(l, _, _)| int(l)),
            c.output.map(|(_, o, _)| uint(o)),
            c.output.map(|(_, _, n)| uint(n)),
            c.rows_ok,
            c.hooks.as_ref().map(|h| h.0.as_str()),
            c.hooks.as_ref().map(|h| h.1.as_str()),
        ])?;
    }
    Ok(true)
}

/// Stores (or drops) the session's checkpoint after its rows are written.
pub(super) fn store_checkpoint(tx: &rusqlite::Transaction<'_>, b: &Built) -> rusqlite::Result<()> {
    tx.execute(
        "DELETE FROM checkpoints WHERE s_path = ?1 AND s_id = ?2",
        params![b.key.0, b.key.1],
    )?;
    if let Some(state) = &b.checkpoint {
        tx.execute(
            "INSERT INTO checkpoints(s_path, s_id, state) VALUES (?1, ?2, ?3)",
            params![b.key.0, b.key.1, state],
        )?;
    }
    Ok(())
}
