//! OpenCode's SQLite store (1.2+): `$XDG_DATA_HOME/opencode/opencode.db`
//! (else `~/.local/share/opencode/opencode.db`), tables `session`,
//! `message`, `part` (corpus `real-opencode-1.18.33/README.md` "SQLite
//! store"). Rows become [`super::opencode`] records; the `data` column is
//! the record's JSON (ids live in their own columns).
//!
//! **Read-only, WAL included, nothing written.** A live OpenCode keeps the
//! database in WAL mode with most rows still in `opencode.db-wal`. The
//! database is opened with `SQLITE_OPEN_READ_ONLY` and the URI parameters
//! `mode=ro&readonly_shm=1` (never `immutable=1` while a `-wal` file exists:
//! an immutable reader ignores the WAL and would miss those rows).
//! `readonly_shm=1` makes SQLite open an existing `-shm` read-only (it then
//! reads the WAL index into private memory), so a reader writes neither the
//! database, its `-wal` nor its `-shm`, not even as root where the mode bits
//! would not stop it (SQLite's unix VFS, `os_unix.c`; sqlite.org/wal.html
//! "Read-Only Databases"). When that open fails because there is no `-shm`
//! to read (SQLite would have to create one), the database and its `-wal`
//! are copied into a private temporary folder
//! (`$TMPDIR/hookscope-opencode-<pid>-<n>/`), read there (SQLite makes its
//! `-shm` in that folder) and the copy removed when the load ends: the way to
//! read a WAL database whose folder must not be written, such as the corpus
//! mounted read-only in CI. A WAL-mode database with no `-wal` file at all
//! is opened with `immutable=1` (there is no WAL to miss, and a `mode=ro`
//! open would create an empty `-wal` beside it); so is any database whose
//! `mode=ro` open fails while it has no WAL frames.
//!
//! A connection is kept open between loads of one database's sessions
//! (at most [`idle_max`] across databases), and reused only while neither
//! the database nor its `-wal` changed (size, mtime, ctime, inode); a private
//! copy is never kept.
//!
//! A busy or locked database waits at most [`BUSY_TIMEOUT`] and then gives
//! a clear error (`database is locked (another process holds it): …`),
//! never a hang. A file that is not SQLite, is corrupt, or lacks the
//! `session`/`message`/`part` tables is an error for discovery
//! ([`list_sessions`]) and a diagnostic for a load, never a panic.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde_json::Value;

use super::fingerprint::Ident;
use super::model::{Diagnostic, Locus, Session};
use super::opencode::{MessageRow, PartRow, SessionRow, Store, build_session};

/// How long a read waits for a lock held by another process before giving
/// up with "database is locked".
pub const BUSY_TIMEOUT: Duration = Duration::from_millis(250);

/// The tables an OpenCode database must have.
pub const TABLES: [&str; 3] = ["session", "message", "part"];

/// Why an OpenCode database could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite refused the file or a query (corrupt, not a database, I/O).
    #[error("{0}")]
    Sqlite(String),
    /// Another process holds a lock past [`BUSY_TIMEOUT`].
    #[error("database is locked (another process holds it): {0}")]
    Busy(String),
    /// A required table is missing.
    #[error("not an OpenCode database: no table `{0}`")]
    MissingTable(&'static str),
    /// The private copy for a read-only folder could not be made.
    #[error("cannot copy the database to a private folder: {0}")]
    Copy(std::io::Error),
}

impl From<rusqlite::Error> for DbError {
    fn from(err: rusqlite::Error) -> DbError {
        let busy = matches!(
            err.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        );
        if busy {
            DbError::Busy(err.to_string())
        } else {
            DbError::Sqlite(err.to_string())
        }
    }
}

/// An open database, and the private copy it may live in.
pub struct Db {
    conn: Connection,
    /// The database file as given (diagnostics name it).
    path: PathBuf,
    /// A private copy's folder, removed on drop.
    copy_dir: Option<PathBuf>,
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Some(dir) = self.copy_dir.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The `-wal` file beside SQLite database `path`.
pub(crate) fn wal_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// Whether the database header says WAL mode (file format read and write
/// versions, bytes 18 and 19, are 2; sqlite.org/fileformat2.html); `false`
/// when the header cannot be read.
fn header_says_wal(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 20];
    super::fsread::open_regular(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && head[18] == 2
        && head[19] == 2
}

/// `path` as a `file:` URI with `query` (RFC 3986: every byte outside the
/// unreserved set and `/` percent-encoded, so `?`, `#` and `%` in a name
/// survive).
fn file_uri(path: &Path, query: &str) -> String {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().into_owned().into_bytes();
    let mut out = String::from("file:");
    for b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.push('?');
    out.push_str(query);
    out
}

fn connect(uri: &str) -> Result<Connection, DbError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri, flags)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Kept connections (idle_max) each keep their page cache: bounded.
    conn.pragma_update(None, "cache_size", -CACHE_KIB)?;
    // Reading the schema is the first real read: WAL and lock errors show here.
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })?;
    Ok(conn)
}

/// Each connection's page cache, in KiB (`PRAGMA cache_size`; SQLite's
/// default is 2,000): with [`IDLE_CAP`] connections kept, at most 128 MiB.
/// A session's load reads its rows once; the file's pages stay in the
/// system's cache.
pub const CACHE_KIB: i64 = 512;

static COPIES: AtomicUsize = AtomicUsize::new(0);

/// Copies `path` and its `-wal` into a fresh private folder under the
/// temporary directory; returns the folder and the copy's path.
fn private_copy(path: &Path) -> Result<(PathBuf, PathBuf), DbError> {
    let base = std::env::temp_dir();
    let dir = loop {
        let n = COPIES.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("hookscope-opencode-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => break dir,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(DbError::Copy(e)),
        }
    };
    let copy = dir.join("opencode.db");
    let copied = std::fs::copy(path, &copy).and_then(|_| {
        let wal = wal_of(path);
        if wal.is_file() {
            std::fs::copy(&wal, wal_of(&copy)).map(|_| ())
        } else {
            Ok(())
        }
    });
    if let Err(e) = copied {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(DbError::Copy(e));
    }
    Ok((dir, copy))
}

impl Db {
    /// Opens an OpenCode database read-only (see the module docs for the WAL
    /// and read-only-folder cases) and checks its tables.
    ///
    /// # Errors
    /// [`DbError`]: not SQLite or corrupt, locked past [`BUSY_TIMEOUT`],
    /// a missing `session`/`message`/`part` table, or a failed private copy.
    pub fn open(path: &Path) -> Result<Db, DbError> {
        if let Err(e) = super::fsread::open_regular(path) {
            return Err(DbError::Sqlite(e.to_string()));
        }
        let wal = std::fs::metadata(wal_of(path)).ok();
        let has_wal = wal.as_ref().is_some_and(|m| m.len() > 0);
        // A WAL-mode database without a -wal file has nothing in a WAL to
        // miss; opening it in place with mode=ro would create an empty -wal.
        let first = if wal.is_none() && header_says_wal(path) {
            connect(&file_uri(path, "mode=ro&immutable=1"))
        } else {
            connect(&file_uri(path, "mode=ro&readonly_shm=1"))
        };
        let db = match first {
            Ok(conn) => Db {
                conn,
                path: path.to_path_buf(),
                copy_dir: None,
            },
            Err(busy @ DbError::Busy(_)) => return Err(busy),
            Err(first) => {
                if has_wal {
                    let (dir, copy) = private_copy(path)?;
                    // The copy's folder is ours: SQLite may make its -shm there.
                    match connect(&file_uri(&copy, "mode=ro")) {
                        Ok(conn) => Db {
                            conn,
                            path: path.to_path_buf(),
                            copy_dir: Some(dir),
                        },
                        Err(e) => {
                            let _ = std::fs::remove_dir_all(&dir);
                            return Err(e);
                        }
                    }
                } else {
                    match connect(&file_uri(path, "mode=ro&immutable=1")) {
                        Ok(conn) => Db {
                            conn,
                            path: path.to_path_buf(),
                            copy_dir: None,
                        },
                        Err(_) => return Err(first),
                    }
                }
            }
        };
        for table in TABLES {
            let found: Option<String> = db
                .conn
                .query_row(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?1",
                    [table],
                    |r| r.get(0),
                )
                .optional()?;
            if found.is_none() {
                return Err(DbError::MissingTable(table));
            }
        }
        Ok(db)
    }

    /// Whether the open went through a private copy (a read-only folder
    /// without a `-shm`).
    pub fn is_private_copy(&self) -> bool {
        self.copy_dir.is_some()
    }

    /// Every session record, in `time_created` order.
    ///
    /// # Errors
    /// A failed query ([`DbError`]).
    pub fn sessions(&self) -> Result<Vec<SessionRow>, DbError> {
        self.session_rows("1 = 1", &[])
    }

    fn session_rows(
        &self,
        filter: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<SessionRow>, DbError> {
        let columns = self.columns("session")?;
        let col = |name: &str| {
            if columns.iter().any(|c| c == name) {
                name.to_string()
            } else {
                "NULL".to_string()
            }
        };
        let sql = format!(
            "SELECT id, {}, {}, {}, {}, {}, {}, {} FROM session WHERE {filter} ORDER BY {}, id",
            col("parent_id"),
            col("title"),
            col("directory"),
            col("version"),
            col("agent"),
            col("time_created"),
            col("time_updated"),
            col("time_created"),
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(params, |r| {
            Ok(SessionRow {
                id: text(r, 0)?.unwrap_or_default(),
                parent_id: text(r, 1)?,
                title: text(r, 2)?,
                directory: text(r, 3)?,
                version: text(r, 4)?,
                agent: text(r, 5)?,
                created_ms: r.get::<_, Option<i64>>(6).ok().flatten(),
                updated_ms: r.get::<_, Option<i64>>(7).ok().flatten(),
                path: self.path.clone(),
            })
        })?;
        let mut out = Vec::new();
        for row in rows {
            out.push(row?);
        }
        Ok(out)
    }

    fn columns(&self, table: &str) -> Result<Vec<String>, DbError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT name FROM pragma_table_info('{table}')"))?;
        let names = stmt.query_map([], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for n in names {
            out.push(n?);
        }
        Ok(out)
    }

    fn diag(&self, diagnostics: &mut Vec<Diagnostic>, id: Option<&str>, message: String) {
        diagnostics.push(Diagnostic {
            path: self.path.clone(),
            locus: id.map(|id| Locus::Record(id.to_string())),
            message,
        });
    }

    /// The parts of message `message_id`, ordered by id (part ids sort by
    /// creation: docs/transcripts.md#opencode).
    fn parts(&self, message_id: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<PartRow> {
        let mut parts: Vec<PartRow> = self
            .data_rows("part", "message_id", message_id, diagnostics)
            .into_iter()
            .map(|(pid, _, data)| PartRow {
                id: pid,
                data,
                path: self.path.clone(),
            })
            .collect();
        parts.sort_by(|a, b| a.id.cmp(&b.id));
        parts
    }

    /// `(id, data)` rows of `table` for `key = value`, ordered by
    /// `time_created, id`; a row whose `data` is not a JSON object is a
    /// diagnostic.
    fn data_rows(
        &self,
        table: &str,
        key: &str,
        value: &str,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Vec<(String, String, Value)> {
        let link = if table == "part" {
            "message_id"
        } else {
            "session_id"
        };
        let sql = format!(
            "SELECT id, {link}, data FROM {table} WHERE {key} = ?1 ORDER BY time_created, id"
        );
        let result: Result<Vec<(String, String, Value)>, DbError> = (|| {
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let rows = stmt.query_map([value], |r| {
                let id = text(r, 0)?.unwrap_or_default();
                let link = text(r, 1)?.unwrap_or_default();
                let data = match r.get_ref(2)? {
                    rusqlite::types::ValueRef::Text(b) | rusqlite::types::ValueRef::Blob(b) => {
                        serde_json::from_slice::<Value>(b).map_err(|e| e.to_string())
                    }
                    rusqlite::types::ValueRef::Null => Err("data is NULL".to_string()),
                    _ => Err("data is not text".to_string()),
                };
                Ok((id, link, data))
            })?;
            let mut out = Vec::new();
            for row in rows {
                let (id, link, data) = row?;
                match data {
                    Ok(v) if v.is_object() => out.push((id, link, v)),
                    Ok(_) => self.diag(
                        diagnostics,
                        Some(&id),
                        format!("{table} row: data is not a JSON object; ignored"),
                    ),
                    Err(e) => self.diag(
                        diagnostics,
                        Some(&id),
                        format!("{table} row: data is not JSON ({e}); ignored"),
                    ),
                }
            }
            Ok(out)
        })();
        result.unwrap_or_else(|e| {
            self.diag(
                diagnostics,
                Some(value),
                format!("cannot read {table} rows: {e}"),
            );
            Vec::new()
        })
    }
}

/// A column as text: TEXT as is, BLOB decoded lossily, NULL as `None`,
/// numbers in decimal.
fn text(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<String>> {
    use rusqlite::types::ValueRef;
    Ok(match r.get_ref(i)? {
        ValueRef::Null => None,
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
        ValueRef::Integer(n) => Some(n.to_string()),
        ValueRef::Real(x) => Some(x.to_string()),
    })
}

impl Store for Db {
    fn session(&mut self, id: &str, diagnostics: &mut Vec<Diagnostic>) -> Option<SessionRow> {
        match self.session_rows("id = ?1", &[&id]) {
            Ok(rows) => rows.into_iter().next(),
            Err(e) => {
                self.diag(
                    diagnostics,
                    Some(id),
                    format!("cannot read the session: {e}"),
                );
                None
            }
        }
    }

    fn children(&mut self, id: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<SessionRow> {
        if !self
            .columns("session")
            .is_ok_and(|c| c.iter().any(|n| n == "parent_id"))
        {
            return Vec::new();
        }
        self.session_rows("parent_id = ?1", &[&id])
            .unwrap_or_else(|e| {
                self.diag(
                    diagnostics,
                    Some(id),
                    format!("cannot read child sessions: {e}"),
                );
                Vec::new()
            })
    }

    fn messages(&mut self, id: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<MessageRow> {
        let messages = self.data_rows("message", "session_id", id, diagnostics);
        let mut out = Vec::with_capacity(messages.len());
        for (mid, _, data) in messages {
            let parts = self.parts(&mid, diagnostics);
            out.push(MessageRow {
                id: mid,
                data,
                path: self.path.clone(),
                parts,
            });
        }
        out
    }
}

/// The sessions of an OpenCode database for a session list: every session
/// without a parent, plus each child whose parent is not in the database
/// (shown on its own rather than lost).
///
/// # Errors
/// [`DbError`] when the database cannot be opened or read.
pub fn list_sessions(path: &Path) -> Result<Vec<SessionRow>, DbError> {
    let db = Db::open(path)?;
    let all = db.sessions()?;
    let ids: std::collections::HashSet<&str> = all.iter().map(|s| s.id.as_str()).collect();
    let keep: Vec<bool> = all
        .iter()
        .map(|s| s.parent_id.as_deref().is_none_or(|p| !ids.contains(p)))
        .collect();
    Ok(all
        .into_iter()
        .zip(keep)
        .filter_map(|(s, k)| k.then_some(s))
        .collect())
}

/// Loads session `id` of the database at `path` (with its child sessions
/// as subagents, see [`super::opencode`]), on a connection kept from an
/// earlier load of the same file when neither the file nor its `-wal`
/// changed since ([`idle_max`]), else on a new one.
///
/// # Errors
/// Never for bad rows (diagnostics); an unreadable, locked, corrupt or
/// non-OpenCode database is an `io::Error` whose text says which.
pub fn load_session(path: &Path, id: &str) -> std::io::Result<Session> {
    with_db(path, |db| build_session(db, id, path))
}

/// The parts of message `message_id` of the database at `path`, ordered
/// by id as a load orders them (rows whose `data` is not a JSON object
/// left out), on a kept connection as [`load_session`]: what `find`
/// builds an indexed call's record from without loading its session
/// (`crate::query::rows`).
///
/// # Errors
/// As [`load_session`].
pub fn message_parts(path: &Path, message_id: &str) -> std::io::Result<Vec<PartRow>> {
    with_db(path, |db| db.parts(message_id, &mut Vec::new()))
}

/// Runs `read` on a connection to `path`: one kept from an earlier read of
/// the same file when neither the file nor its `-wal` changed since
/// ([`idle_max`]), else a new one, kept afterwards.
fn with_db<T>(path: &Path, read: impl FnOnce(&mut Db) -> T) -> std::io::Result<T> {
    let mut idle = match take_idle(path) {
        Some(idle) => idle,
        None => {
            // The identities are taken before the open: a change during it
            // shows at the next reuse, which then opens anew.
            let ident = idents_of(path);
            let db = Db::open(path).map_err(|e| {
                let kind = match e {
                    DbError::Busy(_) => std::io::ErrorKind::WouldBlock,
                    _ => std::io::ErrorKind::InvalidData,
                };
                std::io::Error::new(kind, e.to_string())
            })?;
            Idle { db, ident }
        }
    };
    let out = read(&mut idle.db);
    keep_idle(idle);
    Ok(out)
}

/// Most connections kept open between loads, across databases: an
/// eighth of the process's open-file limit (the soft `RLIMIT_NOFILE`;
/// each connection holds at most 3 file descriptors: the database, its
/// `-wal` and `-shm`), at least [`IDLE_MIN`] and at most [`IDLE_CAP`];
/// [`IDLE_MIN`] where the limit cannot be read. Opening one reads the
/// file's schema and checks its tables (about half a millisecond): a
/// question that loads many sessions of one database (`find` over a
/// user's OpenCode sessions, the index build) pays it once, and one that
/// goes through the sessions of many databases newest first, a session of
/// each in turn, pays it once per database while they all fit (128
/// databases in the heavy benchmark: see docs/benchmarks.md). A kept
/// connection holds no lock and no transaction between loads.
pub fn idle_max() -> usize {
    static MAX: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| idle_max_for(open_file_limit()))
}

/// [`idle_max`] under an open-file limit of `limit` (`None`: unknown).
fn idle_max_for(limit: Option<usize>) -> usize {
    limit.map_or(IDLE_MIN, |limit| (limit / 8).clamp(IDLE_MIN, IDLE_CAP))
}

/// The fewest connections [`idle_max`] keeps (32).
pub const IDLE_MIN: usize = 32;

/// The most connections [`idle_max`] keeps (256: a 2,048-file limit).
pub const IDLE_CAP: usize = 256;

/// The soft limit on open files (`getrlimit(RLIMIT_NOFILE)`), `None` when
/// it cannot be read or is unlimited.
fn open_file_limit() -> Option<usize> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one `rlimit` through a valid pointer.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
        if !ok || limit.rlim_cur == libc::RLIM_INFINITY {
            return None;
        }
        usize::try_from(limit.rlim_cur).ok()
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A connection between loads, with the identities (`stat`: size, mtime,
/// ctime, inode) of its database and `-wal` when it was opened.
struct Idle {
    db: Db,
    ident: (Ident, Ident),
}

static IDLE: std::sync::Mutex<Vec<Idle>> = std::sync::Mutex::new(Vec::new());

fn idents_of(path: &Path) -> (Ident, Ident) {
    (Ident::of(path), Ident::of(&wal_of(path)))
}

/// A kept connection to `path`, when neither the database nor its `-wal`
/// changed since it was opened (then it reads what a new one would: an
/// `immutable=1` one too, which would miss a change). A changed file's
/// connection is closed.
fn take_idle(path: &Path) -> Option<Idle> {
    let idle = {
        let mut kept = IDLE.lock().ok()?;
        let at = kept.iter().position(|i| i.db.path == path)?;
        kept.remove(at)
    };
    (idents_of(path) == idle.ident).then_some(idle)
}

/// Keeps `idle` for the next load of its file, the oldest kept one closed
/// past [`idle_max`]. A private copy is never kept: it is removed now.
fn keep_idle(idle: Idle) {
    if idle.db.is_private_copy() || !matches!(idle.ident.0, Ident::Entry { .. }) {
        return;
    }
    let Ok(mut kept) = IDLE.lock() else {
        return;
    };
    kept.push(idle);
    let over = kept.len().saturating_sub(idle_max());
    // Closed after the lock is let go: closing frees its page cache.
    let closed: Vec<Idle> = kept.drain(..over).collect();
    drop(kept);
    drop(closed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_kept_are_an_eighth_of_the_open_file_limit_within_bounds() {
        // macOS's default soft limit, Linux's, and this machine's.
        assert_eq!(idle_max_for(Some(256)), 32);
        assert_eq!(idle_max_for(Some(1024)), 128);
        assert_eq!(idle_max_for(Some(20_000)), 256);
        assert_eq!(idle_max_for(Some(0)), 32);
        assert_eq!(idle_max_for(None), 32);
    }

    #[test]
    fn uris_escape_what_sqlite_would_read_as_query_or_fragment() {
        let uri = file_uri(Path::new("/a b/x?y#z%.db"), "mode=ro");
        assert_eq!(uri, "file:/a%20b/x%3Fy%23z%25.db?mode=ro");
    }
}
