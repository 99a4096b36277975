//! The index's SQLite schema and its version check.
//!
//! The file is recognised as hookscope's own by `PRAGMA application_id` =
//! [`APPLICATION_ID`] and the marker table `hookscope_index`; a database
//! without both is never altered ([`Stamp::Foreign`]; docs/security.md
//! "The index").
//!
//! Tables (one row per …):
//! - `hookscope_index(note)`: the marker, one row saying what the file is.
//! - `meta(key, value)`: `schema` = [`SCHEMA_VERSION`], `hookscope` = the
//!   crate version that wrote it. Either differing from this build's makes
//!   the index rebuilt from scratch.
//! - `sessions`: one discovered session ([`crate::transcript::SessionRef`]),
//!   keyed by its main file's path (bytes) and its id (an OpenCode database
//!   holds many sessions). Identity: `size`, `mtime_ns`, `tail_hash` (SHA-256
//!   of the last [`TAIL_HASH_BYTES`] bytes of the main file, to tell a file
//!   that only grew from a rewritten one), `deps` (the main file's ctime and
//!   inode as a first `=main` line, then size, mtime, ctime and inode of every
//!   other file the loader reads: subagent transcripts and their
//!   `.meta.json`, an OpenCode database's `-wal`), `subagent_files` (the
//!   [`crate::transcript::SessionRef::subagent_files`] discovery gave, path
//!   bytes each ended by a NUL byte, so the TUI can list the session before
//!   discovery runs: [`crate::index::Index::listed`]). `agent_types`: the
//!   distinct `agent_type`s of its subagents as a JSON array of strings
//!   (every `agent_type` a rebuilt payload of the session can carry:
//!   [`crate::transcript::Subagent::agent_type`]; a grown session, which
//!   has none, `[]`), NULL when not known. Summary: the [`crate::transcript::SessionSummary`]
//!   fields.
//! - `diagnostics`: the session's diagnostics in the loader's order.
//! - `calls` (its columns are listed once, in the private `calls_table`
//!   module, which creates, writes and names them for every reader): one tool call of a session (main thread and subagents, in
//!   [`crate::transcript::Session::all_tool_calls`] order = `seq` 1, 2, …):
//!   what `find`'s filters read without parsing (name, folded name, kind,
//!   resolved name, `is_error`, the call's timestamp as `find` orders it,
//!   `file_path`) and where its `tool_use` line (`input_*`) and its result's
//!   line (`output_*`) are in `file` (byte offset and length, its newline
//!   included; NULL for a `.zst` rollout or a database). `locator` is the
//!   record (the OpenCode message whose parts hold it) when the call is
//!   not on a line. `ts_ns`
//!   is `timestamp` in nanoseconds since the epoch (NULL when there is
//!   none, [`TS_OUT_OF_RANGE`] when it is outside i64's range: 1677–2262). What `find` needs to build the call's
//!   record from its two lines alone ([`crate::query::rows`]): `rows_ok`
//!   (1 when those lines give the record exactly: a Claude Code call with
//!   both spans, or an OpenCode call with its message (its record is then
//!   built from that message's parts), not a Task spawn, whose
//!   `tool_use_id` no other call of its thread carries), the subagent origin (`origin_agent_id`,
//!   `origin_parent`: the thread's `agentId` and spawning `tool_use_id`,
//!   meaningful when `thread` is not NULL), and its hook firings (`hooks`:
//!   a JSON array of [`crate::transcript::hook_activity::activity_value`]
//!   objects; `hook_facts`: a JSON array of `[event, hook_name, blocked,
//!   rewrote]`, both NULL when none). `input_folded` is the text
//!   `find`'s `input_contains` searches (docs/tool-calls.md#the-find-query): the call's raw input as
//!   compact JSON, case-folded (`Value::to_string`, then `to_lowercase`;
//!   `""` without an input), when at most [`INPUT_FOLDED_MAX`] bytes, else
//!   NULL (the filter then reads the call's line or loads its session).
//!
//! - `call_groups`: `calls` summed up per session, folded name, agent and
//!   `is_error`: the newest `ts_ns` (a time out of range left out), how
//!   many are undated (no time, or out of range), how many of those are
//!   out of range, and how many calls in all (`calls`: what `find` counts
//!   of a session's matches past its cut without reading them). Rewritten with the
//!   session's calls (`index::build`'s `refresh_groups`); what
//!   [`crate::index::Index::verdicts`] reads for a query on names, agent,
//!   `is_error` and a `since` bound alone, instead of every call of the name.
//! - `prompts`: the opening prompts of a session's turns, main thread and
//!   subagents (each [`crate::transcript::Turn::prompt`] of a turn with a
//!   `prompt_line`), each distinct text once: every text a rule's `prompt`
//!   condition can test there (a UserPromptSubmit's `prompt`, a turn's or a
//!   subagent task's opening prompt; docs/replay-and-backtest.md). `whole`
//!   is 1 when `text` is the prompt, 0 when the prompt was longer than
//!   [`crate::index::prompts::PROMPT_MAX`] bytes and `text` is its start
//!   (a condition is then taken as possibly holding). `stop` is 1 when a
//!   Stop or SubagentStop firing of the session tests this prompt
//!   ([`crate::hooks::replay::stop_prompts`]), or may (every prompt of a
//!   grown session). A grown session's new
//!   prompts are added to the stored ones ([`crate::index::grow`]), which a
//!   file that only grew keeps.
//! - `discoveries`: a discovery that can be used without walking
//!   ([`crate::index::Index::stored_discovery`]): its roots (path bytes,
//!   each ended by a NUL byte, as `subagent_files`), what it read (a
//!   [`crate::transcript::fingerprint::Fingerprint`]) and what it found
//!   (sessions and diagnostics), both in `index::discovery`'s binary form.
//!   Triggers empty it whenever a `sessions` row is written or removed, so
//!   a row there always describes sessions whose rows were current when it
//!   was stored.
//! - `checkpoints`: a Claude Code session's
//!   [`crate::transcript::claude_code::Checkpoint`] as JSON (`state`), where
//!   reading its main file ended: what [`crate::index::grow`] resumes from
//!   when the file only grew.
//!
//! Indexes: `calls_verdict` covers [`crate::index::Index::verdicts`]'s
//! aggregation (one name's rows in session order, with every column its
//! filters read, `input_folded` included); `calls_errors` is the same for
//! the failed calls only (`is_error = 1`, a partial index: `is:error`
//! reads a few percent of the rows); `calls_names` lets [`crate::index::Index::tool_names`]
//! seek from one distinct name to the next; `calls_newest` holds one name's
//! calls newest first (`ts_ns`, then `is_error` and the session), which
//! [`crate::query::RowSource::newest_cut`] walks to find the `limit`-th
//! newest match of a query before any session is read.

use rusqlite::Connection;

/// Bumped whenever a table changes shape or meaning.
pub const SCHEMA_VERSION: i64 = 18;

/// `PRAGMA application_id` of hookscope's index: the bytes `hksc`.
pub const APPLICATION_ID: i32 = 0x686b_7363;

/// The tables an index written before [`APPLICATION_ID`] existed (schema
/// 7 and older) may hold: such a file (application id 0, a `meta` row
/// `hookscope`, no other table) is taken for an old index and rebuilt.
const LEGACY_TABLES: &[&str] = &["meta", "sessions", "diagnostics", "calls", "checkpoints"];

/// `calls.ts_ns` of a call whose time does not fit i64 nanoseconds (it is
/// then treated as undated: its session is loaded).
pub const TS_OUT_OF_RANGE: i64 = i64::MIN;

/// The crate version, written into `meta` next to [`SCHEMA_VERSION`].
pub const CRATE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The longest `calls.input_folded` stored, in bytes (UTF-8): a longer
/// input (a `Write` of a whole file) is NULL there.
pub const INPUT_FOLDED_MAX: usize = 512;

/// How many bytes before a main file's indexed end are hashed (`tail_hash`).
pub const TAIL_HASH_BYTES: u64 = 4096;

/// The tables before `calls` (created from
/// [`super::calls_table::COLUMNS`]).
const CREATE_FIRST: &str = "
CREATE TABLE IF NOT EXISTS hookscope_index(note TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions(
  path BLOB NOT NULL, id TEXT NOT NULL, agent TEXT NOT NULL,
  size INTEGER NOT NULL, mtime_ns INTEGER, tail_hash BLOB, deps TEXT NOT NULL,
  subagent_files BLOB NOT NULL, agent_types TEXT,
  cwd TEXT, title TEXT, first_prompt TEXT, started TEXT, ended TEXT, version TEXT,
  turns INTEGER NOT NULL, tool_calls INTEGER NOT NULL, errors INTEGER NOT NULL,
  subagents INTEGER NOT NULL, diagnostics INTEGER NOT NULL,
  PRIMARY KEY(path, id));
CREATE TABLE IF NOT EXISTS diagnostics(
  s_path BLOB NOT NULL, s_id TEXT NOT NULL, ord INTEGER NOT NULL,
  path BLOB NOT NULL, line INTEGER, record TEXT, message TEXT NOT NULL,
  PRIMARY KEY(s_path, s_id, ord));
";

/// `calls`' secondary indexes (the queries name them with `INDEXED BY`).
/// A first build of many sessions drops them and makes them again once
/// every row is in ([`drop_calls_indexes`], [`create_calls_indexes`]).
const CALLS_INDEXES: &str = "
CREATE INDEX IF NOT EXISTS calls_verdict
  ON calls(name_folded, s_path, s_id, agent, is_error, ts_ns, rows_ok, input_folded);
CREATE INDEX IF NOT EXISTS calls_errors
  ON calls(name_folded, s_path, s_id, agent, ts_ns, rows_ok, input_folded) WHERE is_error = 1;
CREATE INDEX IF NOT EXISTS calls_names ON calls(name);
CREATE INDEX IF NOT EXISTS calls_newest ON calls(name_folded, ts_ns, is_error, s_path, s_id);
";

/// The names of [`CALLS_INDEXES`].
const CALLS_INDEX_NAMES: [&str; 4] = [
    "calls_verdict",
    "calls_errors",
    "calls_names",
    "calls_newest",
];

/// Whether one of `calls`' secondary indexes is missing: a first build
/// that dropped them was killed before it made them again (or is under
/// way in another process).
///
/// # Errors
/// SQLite's, reading `sqlite_master`.
pub fn calls_indexes_missing(conn: &Connection) -> rusqlite::Result<bool> {
    let present: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN (?1, ?2, ?3, ?4)",
        CALLS_INDEX_NAMES,
        |r| r.get(0),
    )?;
    Ok(usize::try_from(present).unwrap_or(0) < CALLS_INDEX_NAMES.len())
}

/// Drops `calls`' secondary indexes, for a first build: inserting rows
/// into a table with five B-trees, four of them ordered by tool name
/// rather than by session, costs more than sorting every row once at the
/// end (docs/benchmarks.md "A first build makes the call indexes last").
///
/// # Errors
/// SQLite's.
pub fn drop_calls_indexes(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    for name in CALLS_INDEX_NAMES {
        tx.execute_batch(&format!("DROP INDEX IF EXISTS {name}"))?;
    }
    Ok(())
}

/// Makes the missing ones of `calls`' secondary indexes, sorting with
/// SQLite's worker threads (`PRAGMA threads`, up to 2).
///
/// # Errors
/// SQLite's (busy, a full disk).
pub fn create_calls_indexes(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch("PRAGMA threads = 2")?;
    let made = conn.execute_batch(&format!("BEGIN IMMEDIATE; {CALLS_INDEXES} COMMIT;"));
    if made.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    let _ = conn.execute_batch("PRAGMA threads = 0");
    made
}

/// The tables after `calls`.
const CREATE: &str = "
CREATE TABLE IF NOT EXISTS checkpoints(
  s_path BLOB NOT NULL, s_id TEXT NOT NULL, state TEXT NOT NULL,
  PRIMARY KEY(s_path, s_id));
CREATE TABLE IF NOT EXISTS call_groups(
  name_folded TEXT NOT NULL, s_path BLOB NOT NULL, s_id TEXT NOT NULL, agent TEXT NOT NULL,
  is_error INTEGER, newest_ns INTEGER, undated INTEGER NOT NULL,
  out_of_range INTEGER NOT NULL, calls INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS call_groups_by_name ON call_groups(name_folded, is_error, agent);
CREATE INDEX IF NOT EXISTS call_groups_by_session ON call_groups(s_path, s_id);
CREATE TABLE IF NOT EXISTS prompts(
  s_path BLOB NOT NULL, s_id TEXT NOT NULL, whole INTEGER NOT NULL, text TEXT NOT NULL,
  stop INTEGER NOT NULL,
  PRIMARY KEY(s_path, s_id, whole, text));
CREATE TABLE IF NOT EXISTS discoveries(
  roots BLOB PRIMARY KEY, fingerprint BLOB NOT NULL, found BLOB NOT NULL);
CREATE TRIGGER IF NOT EXISTS discoveries_on_insert AFTER INSERT ON sessions
  BEGIN DELETE FROM discoveries; END;
CREATE TRIGGER IF NOT EXISTS discoveries_on_update AFTER UPDATE ON sessions
  BEGIN DELETE FROM discoveries; END;
CREATE TRIGGER IF NOT EXISTS discoveries_on_delete AFTER DELETE ON sessions
  BEGIN DELETE FROM discoveries; END;
";

const DROP: &str = "
DROP TABLE IF EXISTS hookscope_index;
DROP TABLE IF EXISTS meta;
DROP TABLE IF EXISTS sessions;
DROP TABLE IF EXISTS diagnostics;
DROP TABLE IF EXISTS calls;
DROP TABLE IF EXISTS checkpoints;
DROP TABLE IF EXISTS discoveries;
DROP TABLE IF EXISTS call_groups;
DROP TABLE IF EXISTS prompts;
";

/// What the `meta` table says about an existing index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stamp {
    /// No `meta` table or no rows: a new file.
    Empty,
    /// Written by this schema and crate version.
    Current,
    /// Written by another: `(schema, hookscope version)` as stored.
    Other(String, String),
    /// Not hookscope's: another program's database (its application id or
    /// its tables say so). Never altered; the reason.
    Foreign(String),
}

/// Reads the `meta` stamp, in one read transaction: another process's
/// [`create`] committing between the reads (its application id not yet
/// seen, its tables seen) made a first build beside another one take
/// hookscope's own new index for another program's and build in memory.
///
/// # Errors
/// SQLite's (a file that is not a database: `file is not a database`).
pub fn stamp(conn: &Connection) -> rusqlite::Result<Stamp> {
    stamp_with(conn, &|| {})
}

/// [`stamp`], calling `between` after the application id is read and
/// before the tables are (a test's way to commit from another connection
/// there).
fn stamp_with(conn: &Connection, between: &dyn Fn()) -> rusqlite::Result<Stamp> {
    // A deferred transaction: the snapshot is taken at the first read and
    // kept for every read after it (rolled back when dropped).
    let tx = if conn.is_autocommit() {
        Some(conn.unchecked_transaction()?)
    } else {
        None
    };
    let stamp = stamp_in(conn, between);
    drop(tx);
    stamp
}

fn stamp_in(conn: &Connection, between: &dyn Fn()) -> rusqlite::Result<Stamp> {
    let app_id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    between();
    let tables: Vec<String> = {
        let mut stmt = conn.prepare(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'",
        )?;
        stmt.query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?
    };
    if app_id != 0 && app_id != APPLICATION_ID {
        return Ok(Stamp::Foreign(format!(
            "its application id is {app_id:#x}, not hookscope's"
        )));
    }
    if tables.is_empty() {
        return Ok(Stamp::Empty);
    }
    let has = |name: &str| tables.iter().any(|t| t == name);
    if app_id == APPLICATION_ID && !has("hookscope_index") {
        return Ok(Stamp::Foreign(
            "it has hookscope's application id but not its marker table".into(),
        ));
    }
    let legacy = app_id == 0;
    if legacy && tables.iter().any(|t| !LEGACY_TABLES.contains(&t.as_str())) {
        return Ok(Stamp::Foreign(format!(
            "it holds tables hookscope never writes ({})",
            tables
                .iter()
                .filter(|t| !LEGACY_TABLES.contains(&t.as_str()))
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if !has("meta") {
        return Ok(Stamp::Foreign("it has no meta table".into()));
    }
    let get = |key: &str| -> rusqlite::Result<Option<String>> {
        let mut stmt = conn.prepare("SELECT value FROM meta WHERE key = ?1")?;
        let mut rows = stmt.query([key])?;
        Ok(match rows.next()? {
            Some(row) => Some(row.get(0)?),
            None => None,
        })
    };
    let schema = get("schema")?;
    let version = get("hookscope")?;
    if legacy && version.is_none() {
        return Ok(Stamp::Foreign(
            "its meta table was not written by hookscope".into(),
        ));
    }
    Ok(match (schema, version) {
        (None, None) => Stamp::Empty,
        (Some(s), Some(v)) if s == SCHEMA_VERSION.to_string() && v == CRATE_VERSION => {
            Stamp::Current
        }
        (s, v) => Stamp::Other(s.unwrap_or_default(), v.unwrap_or_default()),
    })
}

/// Creates the tables (dropping old ones first when `fresh`) and writes the
/// stamp, in one transaction.
///
/// # Errors
/// SQLite's (read-only file or folder, full disk, locked).
pub fn create(conn: &mut Connection, fresh: bool) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    if fresh {
        tx.execute_batch(DROP)?;
    }
    tx.execute_batch(CREATE_FIRST)?;
    tx.execute_batch(&super::calls_table::create_sql())?;
    tx.execute_batch(CALLS_INDEXES)?;
    tx.execute_batch(CREATE)?;
    tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}"))?;
    tx.execute("DELETE FROM hookscope_index", [])?;
    tx.execute(
        "INSERT INTO hookscope_index(note) VALUES ('the session index of hookscope; safe to delete')",
        [],
    )?;
    tx.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?1), ('hookscope', ?2)",
        rusqlite::params![SCHEMA_VERSION.to_string(), CRATE_VERSION],
    )?;
    tx.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Another process's first build committing between the stamp's reads
    /// is not half seen: the stamp reads one snapshot (the file still
    /// empty), not the new tables without their application id (which
    /// made the index look like another program's).
    #[test]
    fn a_create_committed_between_the_stamps_reads_is_not_half_seen() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(super::super::FILE_NAME);
        let reader = super::super::connect(&path).expect("reader");
        let got = stamp_with(&reader, &|| {
            let mut writer = super::super::connect(&path).expect("writer");
            create(&mut writer, false).expect("create");
        })
        .expect("stamp");
        assert_eq!(got, Stamp::Empty);
        // Read again, the whole new index is seen.
        assert_eq!(stamp(&reader).expect("stamp"), Stamp::Current);
    }
}
