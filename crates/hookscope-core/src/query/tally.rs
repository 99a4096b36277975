//! Counts and facets of a `find_tool_calls` query: how many calls match,
//! and how many per tool, session, day, agent or error state
//! (docs/cli.md#counts-and-facets). The calls counted are exactly those
//! the query would return with no limit; only their number is kept.
//!
//! Per session, in parallel: a session the index describes is counted
//! from its rows (no line is read unless a text filter needs the call's
//! lines, [`super::rows`]); any other is loaded and its calls matched as
//! `find` matches them. Sessions the prefilter or the index rule out are
//! not read at all.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rayon::prelude::*;
use serde::Serialize;

use super::{
    Draft, LoadedSession, Query, QueryError, RowSource, SessionRows, Verdict, batch_rows, rows,
    select_sessions, session_matches, verdicts_at,
};
use crate::transcript::{Agent, SessionRef};

/// What [`Tally`] splits the matching calls by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// The tool name as invoked (`tool_use.name`), e.g. `Bash`.
    Tool,
    /// The session id (a subagent's calls count for their parent session).
    Session,
    /// The UTC date of the call's time (`YYYY-MM-DD`, as `find` orders
    /// calls: the `tool_use` line's `timestamp`, else its result's), or
    /// `undated`.
    Day,
    /// The agent whose session it is (`claude-code`, `codex`, `opencode`,
    /// `droid`).
    Agent,
    /// The result's state: `error`, `ok`, or `no result` (the call has no
    /// recorded result).
    Error,
}

impl GroupBy {
    /// Every value, in the order `--help` lists them.
    pub const ALL: [GroupBy; 5] = [
        GroupBy::Tool,
        GroupBy::Session,
        GroupBy::Day,
        GroupBy::Agent,
        GroupBy::Error,
    ];

    /// The one of [`GroupBy::ALL`] whose [`GroupBy::as_str`] is `name`.
    pub fn from_name(name: &str) -> Option<GroupBy> {
        GroupBy::ALL.into_iter().find(|g| g.as_str() == name)
    }

    /// The name `--group-by` takes and JSON prints (`tool`, `session`,
    /// `day`, `agent`, `error`).
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Tool => "tool",
            GroupBy::Session => "session",
            GroupBy::Day => "day",
            GroupBy::Agent => "agent",
            GroupBy::Error => "error",
        }
    }

    /// The group of one matching call.
    fn key(
        self,
        session: &str,
        agent: Agent,
        name: &str,
        time: Option<DateTime<Utc>>,
        is_error: Option<bool>,
    ) -> String {
        match self {
            GroupBy::Tool => name.to_string(),
            GroupBy::Session => session.to_string(),
            GroupBy::Day => match time {
                Some(t) => t.format("%Y-%m-%d").to_string(),
                None => UNDATED.to_string(),
            },
            GroupBy::Agent => agent.as_str().to_string(),
            GroupBy::Error => match is_error {
                Some(true) => "error",
                Some(false) => "ok",
                None => "no result",
            }
            .to_string(),
        }
    }
}

/// The day key of a call with no time ([`GroupBy::Day`]).
pub const UNDATED: &str = "undated";

/// One group of a [`Tally`]: its key and how many matching calls it has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// The group's key ([`GroupBy`] says which).
    pub key: String,
    /// Matching calls in it (≥ 1).
    pub count: usize,
}

/// The counts of a query: `{"total": N, "group_by": "tool", "groups":
/// [{"key": "Bash", "count": 3}, …]}` (`group_by` and `groups` only when
/// grouped).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Every call that matches (the query's `limit` does not apply).
    pub total: usize,
    /// What the groups split by; `None` for a bare count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_by: Option<GroupBy>,
    /// The groups, most calls first (ties by key); days newest first, with
    /// [`UNDATED`] last. Empty for a bare count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<Group>>,
    /// `session` entries that name no session (as
    /// [`super::FindResult::unmatched_sessions`]); not serialized.
    #[serde(skip)]
    pub unmatched_sessions: Vec<String>,
    /// Sessions whose main file could not be read (`"<path>: <error>"`);
    /// not serialized.
    #[serde(skip)]
    pub unreadable: Vec<String>,
}

/// Matching calls per key (the empty key for a bare count).
type Counts = HashMap<String, usize>;

/// Adds `more` into `counts`.
fn add(counts: &mut Counts, more: Counts) {
    for (key, n) in more {
        *counts.entry(key).or_default() += n;
    }
}

/// Counts the calls of `sessions` that pass `query` (its `limit` ignored),
/// split by `group_by` ([`super::Finder::tally`]).
pub(super) fn tally(
    sessions: &[SessionRef],
    query: &Query,
    group_by: Option<GroupBy>,
    given: Option<&[Option<Verdict>]>,
    rows: Option<&dyn RowSource>,
    loader: &(dyn Fn(&SessionRef) -> LoadedSession + Sync),
) -> Result<Tally, QueryError> {
    let mut query = query.clone();
    query.limit = usize::MAX;
    let query = &query;
    let (positions, unmatched_sessions) = select_sessions(sessions, query)?;
    let selected: Vec<&SessionRef> = positions.iter().map(|&i| &sessions[i]).collect();
    let (verdicts, given) = verdicts_at(sessions, &positions, query, given);
    // Indexes into `selected` of the sessions that can hold a match.
    let picked: Vec<usize> = (0..selected.len())
        .filter(|&k| verdicts[k] != Verdict::Skip)
        .collect();

    let mut counts = Counts::new();
    let mut unreadable = Vec::new();
    // With neither a text nor a hook filter, the sessions the source
    // describes are counted from one pass over its stored facts; the rest
    // as below.
    let picked = match rows {
        Some(source) if from_facts_alone(query) => {
            let (counted, rest) =
                counted_from_facts(source, &selected, &picked, &given, query, group_by);
            add(&mut counts, counted);
            rest
        }
        _ => picked,
    };
    let rows = rows.map(|source| (source, given.as_slice()));
    let batch = 16 * rayon::current_num_threads().max(1);
    for chunk in picked.chunks(batch) {
        let described = batch_rows(&selected, chunk, query, rows, None);
        let done: Vec<Result<Counts, String>> = chunk
            .par_iter()
            .zip(described)
            .map(|(&k, calls)| session_counts(selected[k], calls, query, group_by, loader))
            .collect();
        for result in done {
            match result {
                Ok(per_key) => add(&mut counts, per_key),
                Err(e) => unreadable.push(e),
            }
        }
    }
    let total = counts.values().sum();
    let groups = group_by.map(|by| ordered(by, counts));
    Ok(Tally {
        total,
        group_by,
        groups,
        unmatched_sessions,
        unreadable,
    })
}

/// One session's counts: from its rows when given (only the names,
/// errors, times and hook facts stored, unless a text filter needs the
/// lines), else by loading it; `Err` is why its main file could not be
/// read.
fn session_counts(
    session: &SessionRef,
    calls: Option<SessionRows>,
    query: &Query,
    group_by: Option<GroupBy>,
    loader: &(dyn Fn(&SessionRef) -> LoadedSession + Sync),
) -> Result<Counts, String> {
    let key = |name: &str, time, is_error| match group_by {
        Some(by) => by.key(&session.id, session.agent, name, time, is_error),
        None => String::new(),
    };
    let mut counts = Counts::new();
    // A text or decided_by filter reads each call's line (its input,
    // output or digest), which the rows do not hold: it counts through the
    // drafts.
    if let Some(calls) = &calls
        && !query.reads_lines()
    {
        for row in &calls.calls {
            if rows::row_passes(row, query) {
                *counts
                    .entry(key(&row.name, row.timestamp, row.is_error))
                    .or_default() += 1;
            }
        }
        return Ok(counts);
    }
    let drafts: Vec<Draft> =
        match calls.and_then(|c| rows::session_from_rows(session, &c, query, None)) {
            Some((_, drafts)) => drafts,
            None => session_matches(&*loader(session)?, query).1,
        };
    for d in drafts {
        *counts
            .entry(key(&d.tool_name, d.timestamp, d.is_error))
            .or_default() += 1;
    }
    Ok(counts)
}

/// Whether a call's stored facts (name, error flag, time) decide the
/// query: no text filter (they read the call's lines) and no hook filter.
/// Such a query is counted from the index in one pass
/// ([`RowSource::call_facts`]) without reading a transcript line.
pub fn from_facts_alone(query: &Query) -> bool {
    query.input_contains.is_none() && from_facts_but_input(query)
}

/// [`from_facts_alone`] but for `input_contains`: every other filter is
/// decided by a call's stored facts (the index decides `input_contains`
/// too where it stores the folded input, [`crate::index::query`]).
pub fn from_facts_but_input(query: &Query) -> bool {
    query.output_contains.is_none()
        && query.output_excludes.is_none()
        && query.decided.is_none()
        && query.hook.is_none()
        && query.blocked.is_none()
        && query.flagged.is_none()
        && query.rewritten.is_none()
}

/// Counts the `picked` sessions (indexes into `selected`) whose verdict
/// was `given` from `source`'s facts ([`RowSource::call_facts`]): their
/// counts per key, and the picked sessions left to count otherwise (not
/// given, or a stored time that does not read back; all of them when the
/// source cannot answer).
fn counted_from_facts(
    source: &dyn RowSource,
    selected: &[&SessionRef],
    picked: &[usize],
    given: &[bool],
    query: &Query,
    group_by: Option<GroupBy>,
) -> (Counts, Vec<usize>) {
    let asked: Vec<usize> = picked.iter().copied().filter(|&k| given[k]).collect();
    let refs: Vec<&SessionRef> = asked.iter().map(|&k| selected[k]).collect();
    // Per asked session: its counts, `None` once a stored time does not
    // read back.
    let mut per_session: Vec<Option<Counts>> = asked.iter().map(|_| Some(Counts::new())).collect();
    let answered = source.call_facts(&refs, query, &mut |at, fact| {
        let Some(Some(counts)) = per_session.get_mut(at) else {
            return;
        };
        let Ok(time) = fact.timestamp else {
            per_session[at] = None;
            return;
        };
        if !super::passes_meta(fact.name, fact.is_error, time, query) {
            return;
        }
        let session = refs[at];
        let key = match group_by {
            Some(by) => by.key(&session.id, session.agent, fact.name, time, fact.is_error),
            None => String::new(),
        };
        *counts.entry(key).or_default() += 1;
    });
    if !answered {
        return (Counts::new(), picked.to_vec());
    }
    let mut counts = Counts::new();
    // `asked` is `picked`'s given sessions, in order.
    let mut answers = per_session.into_iter();
    let mut left = Vec::new();
    for &k in picked {
        let answer = if given[k] {
            answers.next().flatten()
        } else {
            None
        };
        match answer {
            Some(per_key) => add(&mut counts, per_key),
            // Not given, or a stored time that does not read back: it is
            // counted from its rows or loaded, as `find` would.
            None => left.push(k),
        }
    }
    (counts, left)
}

/// The groups in print order (see [`Tally::groups`]).
fn ordered(by: GroupBy, counts: HashMap<String, usize>) -> Vec<Group> {
    let mut groups: Vec<Group> = counts
        .into_iter()
        .map(|(key, count)| Group { key, count })
        .collect();
    match by {
        GroupBy::Day => groups.sort_by(|a, b| {
            (a.key == UNDATED)
                .cmp(&(b.key == UNDATED))
                .then_with(|| b.key.cmp(&a.key))
        }),
        _ => groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key))),
    }
    groups
}
