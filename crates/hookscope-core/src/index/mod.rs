//! A persisted index of sessions and tool calls, so that `hookscope
//! sessions`, `find`, the backtest and the TUI answer without parsing
//! every transcript again (docs/cli.md "Index", docs/security.md "The
//! index").
//!
//! It lives in `$XDG_CACHE_HOME/hookscope/index.sqlite`, else
//! `~/.cache/hookscope/index.sqlite` ([`default_dir`]), as SQLite (WAL
//! journal, a 20 s busy timeout, one writer transaction per batch of
//! sessions, so two processes at once never corrupt it).
//!
//! One module per concern:
//! - [`schema`]: the tables, the version check, and how the file is known
//!   as hookscope's own (`PRAGMA application_id` and a marker table; a
//!   database without both, a symlink or a non-regular file is never
//!   altered and the index lives in memory for the run);
//! - [`build`]: [`Index::sync`], bringing the index up to date with a
//!   discovery: a session whose files are unchanged (main file size, mtime,
//!   ctime and inode; every other file its loader reads, see `deps`) is not
//!   read; a changed one is loaded again with the existing loaders
//!   ([`crate::transcript::load`]); one that left the disk leaves the index;
//! - [`build_lock`]: one process indexes at a time; another one waits,
//!   shows the first one's progress, then reuses its rows;
//! - [`grow`]: a Claude Code session that only grew is indexed from where
//!   its main file ended (the loader's checkpoint);
//! - [`query`]: session summaries, `find`'s per-session verdicts
//!   ([`Index::verdicts`]), and the calls' rows ([`crate::query::RowSource`]
//!   for `Index`), from which `find` builds the records of an indexed Claude
//!   Code session by reading only each call's `tool_use` and result lines
//!   ([`crate::query::Finder::rows`]);
//! - [`names`]: which sessions call a tool by name, the backtest's
//!   prefilter ([`Index::calls_wanted`], [`Index::session_answer`]), and
//!   where those calls' lines are ([`Index::session_call_lines`]);
//! - [`prompts`], [`agent_types`]: what a backtest's `prompt` and `agent`
//!   rules are tested against (each session's turn prompts, marked when a
//!   Stop tests them; its subagents' types);
//! - [`listed`]: the session list as the last sync stored it, for the TUI's
//!   first frame before discovery.
//!
//! The index is a cache, never the truth: an index from another schema or
//! hookscope version, or a file that is not a database, is rebuilt; a
//! folder that cannot be written makes it live in memory for the run (each
//! such case adds one line to [`Index::notices`]); and every answer equals
//! the answer without an index (tests compare both).

pub mod agent_types;
pub mod build;
pub mod build_lock;
mod calls_table;
pub mod discovery;
pub mod grow;
pub mod listed;
pub mod names;
pub mod prompts;
pub mod query;
pub mod schema;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::Connection;

pub use build::{Progress, State, SyncStats, Synced, bytes_to_index, indexable};
pub use listed::Listed;
pub use query::SummaryResult;

/// The index file's name inside its folder.
pub const FILE_NAME: &str = "index.sqlite";

/// How long a process waits for another one's write transaction.
pub const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// The index folder: `$XDG_CACHE_HOME/hookscope` when that variable is an
/// absolute path (XDG Base Directory spec), else `~/.cache/hookscope`;
/// `None` without a home folder.
pub fn default_dir() -> Option<PathBuf> {
    match std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => Some(dir.join("hookscope")),
        _ => dirs::home_dir().map(|h| h.join(".cache").join("hookscope")),
    }
}

/// Whether `HOOKSCOPE_NO_INDEX` asks to run without the index (any value but
/// empty and `0`), as `--no-index` does.
pub fn disabled_by_env() -> bool {
    std::env::var_os("HOOKSCOPE_NO_INDEX").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Stops what one index connection is running, from any thread
/// ([`Index::interrupter`]).
pub struct Interrupter(rusqlite::InterruptHandle);

impl Interrupter {
    /// Stops the statements running on the connection now
    /// (`sqlite3_interrupt`): each ends with SQLite's `SQLITE_INTERRUPT`
    /// error, which every reader of the index treats as "no answer" (the
    /// sessions are then loaded, or the caller, superseded, drops the
    /// answer). A no-op when none runs, or once the connection is closed.
    pub fn interrupt(&self) {
        self.0.interrupt();
    }
}

impl std::fmt::Debug for Interrupter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Interrupter")
    }
}

/// An open index: a file in the cache folder, or an in-memory database when
/// the file cannot be used (see the module doc).
pub struct Index {
    conn: Connection,
    /// The file, `None` in memory.
    file: Option<PathBuf>,
    /// One line per fallback or rebuild, for the caller to print.
    notices: Vec<String>,
    /// Transcript bytes read since the index was opened (loader reads of
    /// changed sessions, their line scans, and text-filter reads).
    bytes_read: AtomicU64,
    /// How long a sync waits on another process's build that indexes
    /// nothing ([`build_lock::STALLED_AFTER`]; tests shorten it).
    build_wait: std::time::Duration,
    /// The transcript bytes from which a first build makes the call
    /// indexes last ([`DEFER_INDEXES_FROM`]; tests lower it).
    defer_indexes_from: u64,
    /// A first build in chunks is under way with the call indexes left out
    /// ([`Index::defer_indexes_for`]): a chunk's sync does not make them.
    deferring: bool,
}

/// A first build of at least this many transcript bytes (64 MiB) drops
/// the call indexes before its first row and makes them after its last
/// (docs/benchmarks.md "A first build makes the call indexes last").
pub const DEFER_INDEXES_FROM: u64 = 64 << 20;

impl Index {
    /// This index with `wait` as the time a sync waits on another
    /// process's build that indexes nothing ([`build_lock::STALLED_AFTER`]
    /// by default).
    pub fn with_build_wait(mut self, wait: std::time::Duration) -> Index {
        self.build_wait = wait;
        self
    }

    /// This index with `bytes` as the size of a first build (transcript
    /// bytes to index, the calls table empty) from which the call indexes
    /// are made after the last row ([`DEFER_INDEXES_FROM`] by default).
    pub fn with_deferred_indexes_from(mut self, bytes: u64) -> Index {
        self.defer_indexes_from = bytes;
        self
    }

    /// For a first build in chunks ([`Index::sync_part`]; the TUI's list
    /// sync): when the calls table is empty and the chunks will index
    /// `bytes` transcript bytes or more (the first build's threshold,
    /// [`DEFER_INDEXES_FROM`]), drops the calls' secondary indexes now and
    /// keeps them out across the chunks until [`Index::end_deferred`]
    /// makes them, as a whole first build does (docs/benchmarks.md "A
    /// first build makes the call indexes last"). Readers between chunks
    /// name no index then ([`Index::in_read_transaction`]). Returns whether
    /// it did; `false` (nothing changed) for a calls table with rows, fewer
    /// bytes, or an index that cannot be written.
    pub fn defer_indexes_for(&mut self, bytes: u64) -> bool {
        if self.deferring || bytes < self.defer_indexes_from || !self.calls_empty().unwrap_or(false)
        {
            return false;
        }
        let dropped = (|| -> rusqlite::Result<()> {
            let tx = self.conn.transaction()?;
            schema::drop_calls_indexes(&tx)?;
            tx.commit()
        })();
        self.deferring = dropped.is_ok();
        self.deferring
    }

    /// Ends what [`Index::defer_indexes_for`] began: makes the calls'
    /// secondary indexes (SQLite sorts every row once, on up to 2 threads).
    /// Nothing when it did not begin. A failure (a full disk, a lock held
    /// too long) leaves them missing; the next sync makes them
    /// (`restore_calls_indexes`), and readers meanwhile name none.
    ///
    /// # Errors
    /// SQLite's.
    pub fn end_deferred(&mut self) -> rusqlite::Result<()> {
        if !std::mem::take(&mut self.deferring) {
            return Ok(());
        }
        busy_retried(|| schema::create_calls_indexes(&self.conn))
    }

    /// Runs `f` (which only reads this index) inside one read transaction:
    /// its statements then share one snapshot and one WAL read lock (a
    /// `find` of 10,000 records ran ~5,000 statements, each taking and
    /// releasing the lock with two `fcntl`s). Without the transaction
    /// (`BEGIN` refused, or one already open) `f` runs as before.
    pub fn in_read_transaction<T>(&self, f: impl FnOnce() -> T) -> T {
        let began = self.conn.is_autocommit() && self.conn.execute_batch("BEGIN").is_ok();
        let out = f();
        // Never left open (a stale snapshot for every later question on
        // this connection): a COMMIT refused (interrupted) is rolled back.
        if began && self.conn.execute_batch("COMMIT").is_err() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        out
    }

    /// Whether the calls table has no row.
    ///
    /// # Errors
    /// SQLite's.
    pub(crate) fn calls_empty(&self) -> rusqlite::Result<bool> {
        let any: Option<i64> = self
            .conn
            .query_row("SELECT 1 FROM calls LIMIT 1", [], |r| r.get(0))
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })?;
        Ok(any.is_none())
    }

    /// Opens (or creates) the index in `dir` (`dir/`[`FILE_NAME`]). Never
    /// fails on the file: a folder that cannot be created or written gives
    /// an in-memory index, an index of another version or a corrupt file is
    /// rebuilt; each adds a line to [`Index::notices`].
    ///
    /// # Errors
    /// Only when not even an in-memory SQLite database can be opened (the
    /// message says why); callers then work without an index.
    pub fn open(dir: &Path) -> Result<Index, String> {
        let path = dir.join(FILE_NAME);
        let mut notices = Vec::new();
        match open_file(dir, &path, &mut notices) {
            Ok(conn) => Ok(Index {
                conn,
                file: Some(path),
                notices,
                bytes_read: AtomicU64::new(0),
                build_wait: build_lock::STALLED_AFTER,
                defer_indexes_from: DEFER_INDEXES_FROM,
                deferring: false,
            }),
            Err(why) => {
                notices.push(format!(
                    "cannot use the index at {} ({why}); indexing in memory for this run",
                    path.display()
                ));
                let mut index = Index::in_memory()?;
                index.notices = notices;
                Ok(index)
            }
        }
    }

    /// The index in `dir` when it is there and current, for a lookup that
    /// must change nothing: no folder or file is created, nothing is
    /// rebuilt or migrated; `None` when the file is missing, not hookscope's,
    /// of another version, unreadable or without its call indexes (a first
    /// build under way; the caller then works without it).
    pub fn open_existing(dir: &Path) -> Option<Index> {
        let path = dir.join(FILE_NAME);
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            return None;
        }
        own_files(&path).ok()?;
        let conn = connect(&path).ok()?;
        // Without the call indexes (a first build under way elsewhere, or
        // one killed) the queries that name them cannot run.
        let usable = matches!(schema::stamp(&conn), Ok(Stamp::Current))
            && matches!(schema::calls_indexes_missing(&conn), Ok(false));
        usable.then(|| Index {
            conn,
            file: Some(path),
            notices: Vec::new(),
            bytes_read: AtomicU64::new(0),
            build_wait: build_lock::STALLED_AFTER,
            defer_indexes_from: DEFER_INDEXES_FROM,
            deferring: false,
        })
    }

    /// A second connection to the same index file, for reading on another
    /// thread while this one syncs (WAL: it reads the last committed state
    /// and never blocks the writer); `None` in memory or when the file
    /// cannot be opened. It neither creates nor migrates anything.
    pub fn reader(&self) -> Option<Index> {
        let conn = connect(self.file.as_deref()?).ok()?;
        Some(Index {
            conn,
            file: self.file.clone(),
            notices: Vec::new(),
            bytes_read: AtomicU64::new(0),
            build_wait: build_lock::STALLED_AFTER,
            defer_indexes_from: DEFER_INDEXES_FROM,
            deferring: false,
        })
    }

    /// SQLite's `PRAGMA data_version` on this connection: a number that
    /// changes whenever another connection (another process, or this
    /// process's other connection) has committed a change to the file
    /// since it was last read here; `None` when it cannot be read. Two
    /// equal answers mean nothing was written in between.
    pub fn data_version(&self) -> Option<i64> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .ok()
    }

    /// A handle that stops the SQL statement running on this connection
    /// from another thread ([`Interrupter::interrupt`]): a superseded
    /// query stops inside SQLite rather than after its step.
    pub fn interrupter(&self) -> Interrupter {
        Interrupter(self.conn.get_interrupt_handle())
    }

    /// A new, empty index in memory (nothing is written to disk).
    ///
    /// # Errors
    /// SQLite's, as a message.
    pub fn in_memory() -> Result<Index, String> {
        let mut conn = Connection::open_in_memory().map_err(|e| e.to_string())?;
        add_functions(&conn).map_err(|e| e.to_string())?;
        schema::create(&mut conn, false).map_err(|e| e.to_string())?;
        Ok(Index {
            conn,
            file: None,
            notices: Vec::new(),
            bytes_read: AtomicU64::new(0),
            build_wait: build_lock::STALLED_AFTER,
            defer_indexes_from: DEFER_INDEXES_FROM,
            deferring: false,
        })
    }

    /// The index file, `None` when the index is in memory.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Lines saying why the index was rebuilt or kept in memory (each one
    /// sentence, without a `hookscope:` prefix), in order.
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// Transcript bytes read through the index since it was opened.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }

    /// Adds `n` to [`Index::bytes_read`] (lines read on another
    /// connection for this index's answer).
    pub fn count_read(&self, n: u64) {
        self.bytes_read.fetch_add(n, Ordering::Relaxed);
    }

    /// Replaces a file index that failed to write with an empty in-memory
    /// one, noting why.
    fn fall_back_to_memory(&mut self, why: &str) -> Result<(), String> {
        let what = self
            .file
            .as_ref()
            .map_or_else(|| "the index".to_string(), |p| p.display().to_string());
        let fresh = Index::in_memory()?;
        self.conn = fresh.conn;
        self.file = None;
        self.notices.push(format!(
            "cannot write the index at {what} ({why}); indexing in memory for this run"
        ));
        Ok(())
    }
}

/// Opens the file, checks its stamp, rebuilds it when needed and proves it
/// writable.
fn open_file(dir: &Path, path: &Path, notices: &mut Vec<String>) -> Result<Connection, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    own_files(path)?;
    let opened = busy_retried(|| connect(path).and_then(|c| schema::stamp(&c).map(|s| (c, s))));
    let (mut conn, stamp) = match opened {
        Ok(opened) => opened,
        Err(e) if is_corrupt(&e) => {
            // Not a database (garbage bytes, a truncated header): start over.
            notices.push(format!(
                "the index at {} is unreadable ({e}); rebuilding it",
                path.display()
            ));
            for suffix in ["", "-wal", "-shm"] {
                let mut name = path.as_os_str().to_owned();
                name.push(suffix);
                match std::fs::remove_file(PathBuf::from(name)) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(format!("cannot remove it: {e}")),
                }
            }
            let conn = connect(path).map_err(|e| e.to_string())?;
            let stamp = schema::stamp(&conn).map_err(|e| e.to_string())?;
            (conn, stamp)
        }
        Err(e) => return Err(e.to_string()),
    };
    match stamp {
        Stamp::Current => {
            // Prove the file writable now rather than mid-build.
            conn.execute("UPDATE meta SET value = value WHERE key = 'schema'", [])
                .map_err(|e| e.to_string())?;
            // A first build that dropped the call indexes and was killed
            // left them missing (the queries name them): made again here,
            // unless another process is building (it makes them at its end).
            restore_calls_indexes(&conn, Some(path), false).map_err(|e| e.to_string())?;
        }
        Stamp::Empty => {
            busy_retried(|| schema::create(&mut conn, false)).map_err(|e| e.to_string())?;
        }
        Stamp::Foreign(why) => {
            return Err(format!(
                "it is not hookscope's index: {why}; it was left as it is"
            ));
        }
        Stamp::Other(schema_version, crate_version) => {
            notices.push(format!(
                "the index at {} was built by hookscope {crate_version} (schema {schema_version}); rebuilding it for {} (schema {})",
                path.display(),
                schema::CRATE_VERSION,
                schema::SCHEMA_VERSION
            ));
            schema::create(&mut conn, true).map_err(|e| e.to_string())?;
        }
    }
    Ok(conn)
}

use schema::Stamp;

/// Makes `calls`' secondary indexes again when they are missing (a first
/// build that dropped them was killed, [`schema::drop_calls_indexes`]),
/// unless another process holds the build lock of `file` and `ours` is
/// false (that build makes them at its end). Returns whether they are
/// there afterwards.
///
/// # Errors
/// SQLite's (reading `sqlite_master`, or making them).
fn restore_calls_indexes(
    conn: &Connection,
    file: Option<&Path>,
    ours: bool,
) -> rusqlite::Result<bool> {
    if !schema::calls_indexes_missing(conn)? {
        return Ok(true);
    }
    if !ours && file.is_some_and(build_lock::held_elsewhere) {
        return Ok(false);
    }
    busy_retried(|| schema::create_calls_indexes(conn))?;
    Ok(true)
}

/// Refuses an index file (or its `-wal`, `-shm`, `-journal`) that is a
/// symbolic link or not a regular file: SQLite would write through the
/// link into whatever it names (docs/security.md "The index"). Absent
/// files are fine (they are created).
fn own_files(path: &Path) -> Result<(), String> {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let name = PathBuf::from(name);
        match std::fs::symlink_metadata(&name) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(format!(
                    "{} is a symbolic link; hookscope does not follow it",
                    name.display()
                ));
            }
            Ok(m) if !m.is_file() => {
                return Err(format!("{} is not a regular file", name.display()));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot look at {}: {e}", name.display())),
        }
    }
    Ok(())
}

/// `step` again while SQLite says the database is busy or locked, for at
/// most [`BUSY_TIMEOUT`] in all. Two first builds at once race to turn a
/// new file to WAL and create its tables; SQLite answers some of those
/// lock upgrades with "database is locked" at once instead of calling the
/// busy handler (it would deadlock), so the step is tried again after a
/// pause of 25 ms.
fn busy_retried<T>(mut step: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let start = std::time::Instant::now();
    loop {
        match step() {
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                ) && start.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(std::time::Duration::from_millis(25));
            }
            done => return done,
        }
    }
}

/// Whether SQLite says the file is not a database or is damaged.
fn is_corrupt(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
    )
}

/// A connection with WAL journaling and the busy timeout.
fn connect(path: &Path) -> rusqlite::Result<Connection> {
    use rusqlite::OpenFlags;
    // NOFOLLOW: a symbolic link put in the index's place after the check
    // in `own_files` is refused by SQLite itself.
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NOFOLLOW,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // A new file gets 16 KiB pages (SQLite's default is 4 KiB): a query
    // reads a session's call rows, which sit together, in a quarter of the
    // `pread`s (docs/benchmarks.md "16 KiB pages"). It must come before
    // WAL mode, which writes the header; on an existing file it does
    // nothing.
    conn.execute_batch("PRAGMA page_size = 16384")?;
    // `journal_mode` answers with a row; WAL lets readers run beside a writer.
    let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    conn.execute_batch("PRAGMA synchronous = NORMAL")?;
    add_functions(&conn)?;
    Ok(conn)
}

/// Adds the SQL functions the queries use: `hs_contains(text, needle)`, 1
/// when the text holds the needle (bytes, by `memchr::memmem`), else 0 (also
/// when either is not text). SQLite's `instr` does the same by a naive
/// scan that counts characters, several times slower on `input_folded`.
///
/// # Errors
/// SQLite's.
fn add_functions(conn: &Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    use rusqlite::types::ValueRef;
    conn.create_scalar_function(
        "hs_contains",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            Ok(match (ctx.get_raw(0), ctx.get_raw(1)) {
                (ValueRef::Text(text), ValueRef::Text(needle)) => {
                    memchr::memmem::find(text, needle).is_some()
                }
                _ => false,
            })
        },
    )
}

/// A path as the bytes stored in the index (the OS string's bytes on Unix,
/// lossy UTF-8 elsewhere).
pub fn path_bytes(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().as_bytes().to_vec()
    }
}

/// The inverse of [`path_bytes`].
pub fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The build lock of the index in `dir`, taken as another process
    /// would take it.
    fn hold_build_lock(dir: &std::path::Path) -> build_lock::BuildLock {
        let mut other = build_lock::BuildLock::open(&dir.join(FILE_NAME)).expect("lock file");
        assert_eq!(
            other.take(build_lock::STALLED_AFTER, &mut || 0),
            build_lock::Taken::AtOnce
        );
        other
    }

    /// The corpus's real Claude Code 2.1.332 sessions: 9, enough to
    /// wait for ([`build_lock::WAIT_MIN_SESSIONS`]).
    fn some_sessions() -> Vec<crate::transcript::SessionRef> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/corpus/real-cc-2.1.332");
        let found = crate::transcript::discover(&[root]).expect("discover");
        assert_eq!(found.sessions.len(), 9);
        found.sessions
    }

    /// Every row of `calls`, in key order, as text (to compare two builds).
    fn calls_dump(index: &Index) -> Vec<String> {
        let mut stmt = index
            .conn
            .prepare("SELECT * FROM calls ORDER BY s_path, s_id, seq")
            .expect("prepare");
        let n = stmt.column_count();
        stmt.query_map([], |r| {
            (0..n)
                .map(|i| r.get_ref(i).map(|v| format!("{v:?}")))
                .collect::<rusqlite::Result<Vec<String>>>()
                .map(|v| v.join("|"))
        })
        .expect("query")
        .collect::<rusqlite::Result<Vec<String>>>()
        .expect("rows")
    }

    /// A first build of enough bytes (here any: the threshold is lowered)
    /// drops the call indexes and makes them after the last row: the rows
    /// are those of a build that kept them, the four indexes are there
    /// after, and a query that names one runs. A second sync (rows there)
    /// keeps them; a build under the threshold never drops them.
    #[test]
    fn a_first_build_makes_the_call_indexes_last_with_the_same_rows() {
        let sessions = some_sessions();
        let deferred_dir = tempfile::TempDir::new().expect("temp");
        let mut deferred = Index::open(deferred_dir.path())
            .expect("index")
            .with_deferred_indexes_from(0);
        let mut seen = Vec::new();
        let synced = deferred.sync(&sessions, &mut |p| seen.push(p));
        assert!(synced.stats.deferred_indexes);
        // The last word of its progress: every session done, the indexes
        // being made.
        let last = seen.last().expect("progress");
        assert!(last.making_indexes && last.done == 9 && last.total == 9);
        assert_eq!(seen.iter().filter(|p| p.making_indexes).count(), 1);
        assert_eq!(synced.stats.indexed, 9);
        assert!(!schema::calls_indexes_missing(&deferred.conn).expect("master"));
        let kept_dir = tempfile::TempDir::new().expect("temp");
        let mut kept = Index::open(kept_dir.path()).expect("index");
        let synced = kept.sync(&sessions, &mut |_| {});
        assert!(!synced.stats.deferred_indexes);
        let rows = calls_dump(&deferred);
        assert_eq!(rows.len(), 121);
        assert_eq!(rows, calls_dump(&kept));
        let bash: i64 = deferred
            .conn
            .query_row(
                "SELECT count(*) FROM calls INDEXED BY calls_newest WHERE name_folded = 'bash'",
                [],
                |r| r.get(0),
            )
            .expect("indexed by");
        assert_eq!(bash, 52);
        let again = deferred.sync(&sessions, &mut |_| {});
        assert!(!again.stats.deferred_indexes);
        assert_eq!(again.stats.reused, 9);
    }

    /// An index whose call indexes are missing (a first build killed after
    /// it dropped them) is not used by a lookup that changes nothing, and
    /// gets them back the next time it is opened while no process builds.
    #[test]
    fn an_index_left_without_its_call_indexes_gets_them_back_on_open() {
        let dir = tempfile::TempDir::new().expect("temp");
        let mut index = Index::open(dir.path()).expect("index");
        index.sync(&some_sessions(), &mut |_| {});
        let tx = index.conn.transaction().expect("tx");
        schema::drop_calls_indexes(&tx).expect("drop");
        tx.commit().expect("commit");
        drop(index);
        assert!(Index::open_existing(dir.path()).is_none());
        // While another process holds the build lock (its first build
        // makes them at its end), they are not made here, and a sync of a
        // few sessions answers them as not indexed.
        let other = hold_build_lock(dir.path());
        let mut index = Index::open(dir.path()).expect("index");
        assert!(schema::calls_indexes_missing(&index.conn).expect("master"));
        let few = &some_sessions()[..2];
        let synced = index.sync(few, &mut |_| {});
        assert_eq!(synced.stats.not_indexed, 2);
        assert!(synced.states.iter().all(|s| matches!(s, State::NotIndexed)));
        assert_eq!(
            index.notices(),
            [
                "another hookscope process is building this index for the first time; this question reads the sessions without it"
            ]
        );
        drop(index);
        drop(other);
        let index = Index::open(dir.path()).expect("index");
        assert!(index.notices().is_empty(), "{:?}", index.notices());
        assert!(!schema::calls_indexes_missing(&index.conn).expect("master"));
        drop(index);
        assert!(Index::open_existing(dir.path()).is_some());
    }

    /// `in_read_transaction` runs its closure inside one transaction
    /// (not autocommit there, autocommit after), nests without a second
    /// `BEGIN`, and gives the closure's value back.
    #[test]
    fn a_read_transaction_wraps_the_closure_once() {
        let dir = tempfile::TempDir::new().expect("temp");
        let index = Index::open(dir.path()).expect("index");
        assert!(index.conn.is_autocommit());
        let (outer, inner) = index.in_read_transaction(|| {
            let outer = index.conn.is_autocommit();
            let inner = index.in_read_transaction(|| index.conn.is_autocommit());
            (outer, inner)
        });
        assert!(!outer && !inner);
        assert!(index.conn.is_autocommit());
        assert_eq!(index.in_read_transaction(|| 42), 42);
    }

    /// A new index file has 16 KiB pages; an existing file keeps the page
    /// size it was made with (SQLite cannot change it in WAL mode), and
    /// opening it again still works.
    #[test]
    fn a_new_index_has_16_kib_pages_and_an_old_one_keeps_its_own() {
        let page_size = |index: &Index| -> i64 {
            index
                .conn
                .query_row("PRAGMA page_size", [], |r| r.get(0))
                .expect("page_size")
        };
        let dir = tempfile::TempDir::new().expect("temp");
        let index = Index::open(dir.path()).expect("index");
        assert_eq!(page_size(&index), 16384);
        drop(index);
        // A file made with SQLite's default 4 KiB pages, as hookscope made
        // them before.
        let old = tempfile::TempDir::new().expect("temp");
        {
            let mut conn = Connection::open(old.path().join(FILE_NAME)).expect("open");
            let _mode: String = conn
                .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
                .expect("wal");
            schema::create(&mut conn, false).expect("create");
        }
        let index = Index::open(old.path()).expect("index");
        assert_eq!(page_size(&index), 4096);
        assert!(index.file.is_some(), "{:?}", index.notices);
    }

    /// A sync of fewer sessions than [`build_lock::WAIT_MIN_SESSIONS`]
    /// (the live view's re-read of a growing session) does not wait for a
    /// build that holds the lock.
    #[test]
    fn a_small_sync_does_not_wait() {
        let dir = tempfile::TempDir::new().expect("temp");
        let mut index = Index::open(dir.path()).expect("index");
        let sessions = some_sessions();
        let other = hold_build_lock(dir.path());
        let few = &sessions[..build_lock::WAIT_MIN_SESSIONS - 1];
        let mut waited = false;
        let synced = index.sync(few, &mut |p| waited |= p.waiting);
        assert!(!waited && !synced.stats.waited);
        assert_eq!(synced.stats.indexed, few.len());
        assert!(index.notices().is_empty());
        drop(other);
    }

    /// Held by another process (here another handle on the lock file), the
    /// build lock makes a sync wait, reporting `waiting` progress with
    /// nothing indexed yet; once it is free the sync indexes every session
    /// and says it waited.
    #[test]
    fn a_sync_waits_while_another_process_builds() {
        let dir = tempfile::TempDir::new().expect("temp");
        let mut index = Index::open(dir.path()).expect("index");
        let sessions = some_sessions();
        let other = hold_build_lock(dir.path());
        let syncing = std::thread::spawn(move || {
            let mut seen = Vec::new();
            let synced = index.sync(&sessions, &mut |p| seen.push(p));
            (synced.stats, seen, sessions.len())
        });
        std::thread::sleep(build_lock::POLL * 4);
        drop(other);
        let (stats, seen, n) = syncing.join().expect("sync");
        assert!(stats.waited);
        assert_eq!(stats.indexed, n);
        let first = seen.first().expect("progress");
        assert!(first.waiting);
        assert_eq!((first.done, first.total), (0, n));
        let last = seen.last().expect("progress");
        assert!(!last.waiting);
        assert_eq!((last.done, last.total), (n, n));
    }

    /// A holder that writes to the index is waited for, even past the wait
    /// limit, though none of the waiting sync's sessions is indexed yet:
    /// it may be indexing other sessions first (a TUI's first chunk is
    /// not the order a CLI build takes).
    #[test]
    fn a_builder_that_writes_other_rows_is_still_waited_for() {
        let dir = tempfile::TempDir::new().expect("temp");
        let wait = build_lock::POLL * 3;
        let mut index = Index::open(dir.path())
            .expect("index")
            .with_build_wait(wait);
        let sessions = some_sessions();
        let writer = Index::open(dir.path()).expect("second connection");
        let other = hold_build_lock(dir.path());
        let stop = std::sync::atomic::AtomicBool::new(false);
        let stopped = &stop;
        let synced = std::thread::scope(|scope| {
            let syncing = scope.spawn(|| index.sync(&sessions, &mut |_| {}));
            // Other rows, written every poll for three wait limits.
            scope.spawn(move || {
                let start = std::time::Instant::now();
                writer
                    .conn
                    .execute_batch("CREATE TABLE elsewhere(x)")
                    .expect("table");
                while start.elapsed() < wait * 3 {
                    writer
                        .conn
                        .execute("INSERT INTO elsewhere VALUES (1)", [])
                        .expect("insert");
                    std::thread::sleep(build_lock::POLL);
                }
                stopped.store(true, std::sync::atomic::Ordering::SeqCst);
                drop(other);
            });
            syncing.join().expect("sync")
        });
        assert!(stop.load(std::sync::atomic::Ordering::SeqCst));
        assert!(synced.stats.waited);
        assert_eq!(synced.stats.indexed, sessions.len());
        assert!(index.notices().is_empty(), "{:?}", index.notices());
    }

    /// A holder that indexes nothing for the wait limit is not waited for:
    /// the sync indexes itself and says why.
    #[test]
    fn a_stalled_builder_is_not_waited_for_forever() {
        let dir = tempfile::TempDir::new().expect("temp");
        let mut index = Index::open(dir.path())
            .expect("index")
            .with_build_wait(build_lock::POLL * 2);
        let sessions = some_sessions();
        let other = hold_build_lock(dir.path());
        let synced = index.sync(&sessions, &mut |_| {});
        assert!(!synced.stats.waited);
        assert_eq!(synced.stats.indexed, sessions.len());
        assert_eq!(
            index.notices(),
            [
                "another hookscope process holds the index's build lock but wrote nothing to it for 0.5 s; indexing here too"
            ]
        );
        drop(other);
    }

    /// A statement running on a connection stops with `SQLITE_INTERRUPT`
    /// when its interrupter is used from another thread. The statement
    /// counts to 3·10⁸ (tens of seconds): it only ends early when stopped.
    #[test]
    fn an_interrupter_stops_a_running_statement() {
        let dir = tempfile::TempDir::new().expect("temp");
        let index = Index::open(dir.path()).expect("index");
        assert!(index.file.is_some(), "a file index");
        let interrupter = index.interrupter();
        let running = std::thread::spawn(move || {
            index.conn.query_row(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000000)
                 SELECT count(*) FROM c",
                [],
                |r| r.get::<_, i64>(0),
            )
        });
        // An interrupt before the statement starts is a no-op: repeat it
        // until the statement has ended.
        while !running.is_finished() {
            interrupter.interrupt();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let got = running.join().expect("thread");
        assert_eq!(
            got.map_err(|e| e.sqlite_error_code()),
            Err(Some(rusqlite::ErrorCode::OperationInterrupted))
        );
    }
}
