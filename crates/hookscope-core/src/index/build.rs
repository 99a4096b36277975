//! Bringing the index up to date with a discovery ([`Index::sync`]).
//!
//! Each session is compared with its row: same main-file size, mtime,
//! ctime and inode (`fsread::change_id`) and same `deps` (see [`super::schema`]) → reused without reading a byte.
//! `deps` are the other files the loader reads: named up front for Claude
//! Code, Codex and OpenCode's database (`deps_stamp`, compared as text);
//! for Droid and OpenCode's JSON storage, whose loaders find their files as
//! they go, the loader's read log ([`crate::transcript::fsread::record`]):
//! every file opened, folder listed and path probed, with its size and
//! mtime (a folder's mtime; absent; unreadable). Such a session is reused
//! while every logged path still has the same stamp (each path `stat`ed
//! once per check, however many sessions name it).
//! Else it is loaded with [`crate::transcript::load`] (in parallel with
//! rayon, batches of [`BATCH`] sessions), its call lines are located by a
//! newline scan of each thread file, and the batch is written in one
//! transaction. A main file that grew and whose old last
//! [`super::schema::TAIL_HASH_BYTES`] bytes are unchanged counts as grown
//! ([`SyncStats::grown`]): a Claude Code one is indexed from where its main
//! file ended when [`super::grow`] can ([`SyncStats::resumed`]; which cases
//! resume and which fall back: its module doc), else loaded whole, as is
//! any other change (rewrite, truncation).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use chrono::{DateTime, SecondsFormat, Utc};
use rayon::prelude::*;
use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::schema::TAIL_HASH_BYTES;
use super::{Index, path_bytes};
use crate::transcript::fsread::{self, Stamp, Touched};
use crate::transcript::{Agent, Diagnostic, LoadError, Locus, Session, SessionRef, load};

/// How often the progress says how many bytes are parsed while a batch
/// is parsed (200 ms).
const PARSE_PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_millis(200);

/// Adds the bytes of each session parsed (sent on `parsed_rx`) to
/// `parsed` until the parse ends (its sender dropped), calling `report`
/// with the total at most every [`PARSE_PROGRESS_EVERY`].
fn follow_parsing(
    parsed_rx: &std::sync::mpsc::Receiver<u64>,
    parsed: &mut u64,
    mut report: impl FnMut(u64),
) {
    use std::sync::mpsc::RecvTimeoutError;
    let mut said = std::time::Instant::now();
    loop {
        match parsed_rx.recv_timeout(PARSE_PROGRESS_EVERY) {
            Ok(bytes) => *parsed += bytes,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        if said.elapsed() >= PARSE_PROGRESS_EVERY {
            said = std::time::Instant::now();
            report(*parsed);
        }
    }
}

/// Sessions loaded in parallel and written in one transaction.
pub const BATCH: usize = 32;

/// The most transcript bytes one batch of a sync loads at once
/// (256 MiB): a session larger than that is loaded alone, so two of a
/// heavy user's 300 MB sessions are never in memory together.
pub const BATCH_BYTES: u64 = 256 << 20;

/// `todo` (indexes of sessions) cut, in order, into batches of at most
/// [`BATCH`] sessions and at most [`BATCH_BYTES`] of `bytes` (a session's
/// files), a larger session alone: the sessions of one batch are loaded at
/// once on the pool's threads (the build, the TUI's backtest), so two
/// 300 MB sessions are never in memory together.
pub fn batches(todo: &[usize], bytes: impl Fn(usize) -> u64) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    let mut sum = 0u64;
    for &i in todo {
        let b = bytes(i);
        if !current.is_empty() && (current.len() >= BATCH || sum.saturating_add(b) > BATCH_BYTES) {
            out.push(std::mem::take(&mut current));
            sum = 0;
        }
        current.push(i);
        sum = sum.saturating_add(b);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// A batch of at least this many transcript bytes (64 MiB) is followed by
/// [`give_back_free_memory`].
const TRIM_AFTER: u64 = 64 << 20;

/// Gives the allocator's free memory back to the system (glibc's
/// `malloc_trim`) after a batch of `bytes` transcript bytes, when they are
/// at least 64 MiB: each pool thread's arena otherwise keeps its largest
/// session's worth of freed pages.
pub fn give_back_after(bytes: u64) {
    if bytes >= TRIM_AFTER {
        give_back_free_memory();
    }
}

/// Returns the allocator's free memory to the system (glibc's
/// `malloc_trim`; nothing elsewhere). A loaded session's values are freed
/// on the pool thread that parsed it, into that thread's arena, and the
/// next batch may allocate from another one: without this, each arena
/// kept its largest session's worth of freed pages and the peak RSS of a
/// build over heavy sessions varied from 380 to 690 MB between runs.
fn give_back_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer and only releases free pages.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// One session of a batch after parsing: its position in the sync's
/// sessions and its rows, or why it could not be loaded.
type Parsed = (usize, Result<Built, LoadError>);

/// What one [`Index::sync`] did, in sessions and bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SyncStats {
    /// Sessions given.
    pub sessions: usize,
    /// Unchanged sessions answered from the index (nothing read).
    pub reused: usize,
    /// Sessions (re-)indexed: new, changed, grown.
    pub indexed: usize,
    /// Of those, sessions whose main file only grew.
    pub grown: usize,
    /// Of the grown, sessions indexed from where their main file ended
    /// (reading only the new bytes, [`super::grow`]); the others were
    /// loaded whole.
    pub resumed: usize,
    /// Sessions not indexed: their main file could not be read (or the
    /// index could not be written even in memory).
    pub not_indexed: usize,
    /// Index rows dropped because their session left the disk.
    pub removed: usize,
    /// Transcript bytes read by this sync.
    pub bytes_read: u64,
    /// This sync waited for another process that held the build lock
    /// ([`super::build_lock`]), then planned again: what that process
    /// indexed meanwhile is counted in `reused`.
    pub waited: bool,
    /// The sessions came from a discovery kept in the index whose folders
    /// and files were all unchanged: nothing was walked or re-read
    /// ([`crate::index::Index::stored_discovery`]).
    pub stored_discovery: bool,
    /// A first build: the call indexes were dropped before the first row
    /// and made again after the last ([`crate::index::Index::with_deferred_indexes_from`]).
    pub deferred_indexes: bool,
}

/// Where a first build is: sessions and main-file bytes done of the total
/// to index (for a progress bar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Sessions indexed so far.
    pub done: usize,
    /// Sessions to index.
    pub total: usize,
    /// Main-file bytes of the sessions indexed so far; a file several
    /// sessions share (an OpenCode `opencode.db`) is split evenly between
    /// them, so each file counts once ([`bytes_to_index`]).
    pub bytes_done: u64,
    /// Main-file bytes of all sessions to index, each file counted once.
    pub bytes_total: u64,
    /// `true` while another process holds the build lock and this one
    /// waits for it ([`super::build_lock`]): `done` and `bytes_done` then
    /// count the sessions the other process has indexed so far.
    pub waiting: bool,
    /// `true` once a first build has written every row and makes the
    /// call indexes (a few seconds on a heavy user's corpus; see
    /// [`crate::index::Index::with_deferred_indexes_from`]).
    pub making_indexes: bool,
}

/// Each of `todo`'s sessions' part of the bytes to index: its main file's
/// size, split evenly between the sessions of `todo` that share that file
/// (an OpenCode `opencode.db` holds every session of its folder; the
/// first of them takes the remainder), so the parts add up to each file
/// once. Keyed by index in `sessions`.
fn file_shares(sessions: &[SessionRef], todo: &[usize]) -> HashMap<usize, u64> {
    let mut sharing: HashMap<&Path, Vec<usize>> = HashMap::new();
    for &i in todo {
        if let Some(s) = sessions.get(i) {
            sharing.entry(s.path.as_path()).or_default().push(i);
        }
    }
    let mut shares = HashMap::with_capacity(todo.len());
    for (_, group) in sharing {
        let Some(&first) = group.first() else {
            continue;
        };
        let size = sessions.get(first).map_or(0, |s| s.size);
        let n = group.len() as u64;
        for &i in &group {
            shares.insert(i, size / n);
        }
        *shares.entry(first).or_insert(0) += size % n;
    }
    shares
}

/// The bytes to index for the sessions of `sessions` at `which` (places
/// in it): their main files' sizes, a file several of them share (an
/// OpenCode `opencode.db`) counted once ([`Progress::bytes_total`]'s sum).
pub fn bytes_to_index(sessions: &[SessionRef], which: &[usize]) -> u64 {
    file_shares(sessions, which).values().sum()
}

impl Progress {
    /// This process indexing: `done` of `total` sessions written,
    /// `bytes_done` of `bytes_total` parsed.
    fn indexing(done: usize, total: usize, bytes_done: u64, bytes_total: u64) -> Progress {
        Progress {
            done,
            total,
            bytes_done,
            bytes_total,
            waiting: false,
            making_indexes: false,
        }
    }
}

/// One session's state after a sync.
#[derive(Debug)]
pub enum State {
    /// Its rows are current.
    Indexed,
    /// Not indexed: load it as without an index.
    NotIndexed,
    /// Its main file could not be read (the loader's error).
    Failed(LoadError),
}

/// The outcome of [`Index::sync`]: a [`State`] per session given, in order.
#[derive(Debug)]
pub struct Synced {
    /// Per session, in the order given to [`Index::sync`].
    pub states: Vec<State>,
    /// Per session, whether its rows were reused without reading a byte
    /// (its files unchanged since it was indexed), in the same order.
    pub reused: Vec<bool>,
    /// What the sync did.
    pub stats: SyncStats,
}

/// The identity stored for a session.
pub(super) struct Stored {
    /// Main-file size when indexed.
    pub(super) size: u64,
    pub(super) mtime_ns: Option<i64>,
    tail_hash: Option<Vec<u8>>,
    pub(super) deps: String,
}

/// What to do with one session.
enum Plan {
    Reuse,
    Skip,
    /// (Re-)index; `true` when the main file only grew.
    Index(bool),
}

/// [`Index::plan`]'s answer for a discovery.
struct Planned {
    /// Per session, in order.
    plans: Vec<Plan>,
    /// Each (main-file path, id) once.
    seen: HashSet<(Vec<u8>, String)>,
    /// Each main-file path once.
    main_paths: HashSet<Vec<u8>>,
    /// The places of the sessions to (re-)index.
    todo: Vec<usize>,
}

/// Nanoseconds since the epoch of a modification time (`None` before 1970 or
/// unknown).
pub(super) fn mtime_ns(t: Option<std::time::SystemTime>) -> Option<i64> {
    t.and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_nanos()).ok())
}

/// Whether this session can be indexed: an unchanged main-file stamp and
/// unchanged `deps` prove unchanged content (see the module doc of
/// [`super`]). True for every agent: Claude Code, Codex and OpenCode's
/// database name their other files up front (`deps_stamp`); Droid and
/// OpenCode's JSON storage record what their loader touched
/// ([`records_deps`]).
pub fn indexable(session: &SessionRef) -> bool {
    match session.agent {
        Agent::ClaudeCode | Agent::Codex | Agent::OpenCode | Agent::Droid => true,
    }
}

/// Whether this session's other files are found while loading (Droid's
/// sidecars and child transcripts; OpenCode JSON's message and part files
/// and sibling sessions), so its `deps` are the loader's read log
/// ([`crate::transcript::fsread::record`]) rather than `deps_stamp`.
pub fn records_deps(session: &SessionRef) -> bool {
    match session.agent {
        Agent::Droid => true,
        Agent::OpenCode => session.path.extension().is_some_and(|e| e == "json"),
        Agent::ClaudeCode | Agent::Codex => false,
    }
}

/// A path as one field of a `deps` line: its bytes as UTF-8 with `\` → `\\`,
/// tab → `\t`, newline → `\n`, carriage return → `\r` and every byte that
/// is not part of valid UTF-8 → `\xHH`, so any path (non-UTF-8, with tabs)
/// comes back exactly from [`unescape_path`].
pub(super) fn escape_path(path: &Path) -> String {
    let bytes = path_bytes(path);
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The inverse of [`escape_path`]; `None` for a malformed escape.
pub(super) fn unescape_path(text: &str) -> Option<PathBuf> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let (&e, tail) = rest.split_first()?;
        rest = tail;
        match e {
            b'\\' => out.push(b'\\'),
            b't' => out.push(b'\t'),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b'x' => {
                let hex = std::str::from_utf8(rest.get(..2)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                rest = &rest[2..];
            }
            _ => return None,
        }
    }
    Some(super::path_from_bytes(&out))
}

/// The `deps` text of a recorded load: one `path<TAB>stamp` line per
/// touched path other than the main file (stamps as
/// [`crate::transcript::fsread::Stamp`] writes them: `size<TAB>mtime_ns`,
/// `dir<TAB>mtime_ns`, `-` absent, `?` unreadable, `!FIFO` …), sorted and
/// deduplicated.
fn recorded_deps(main: &Path, touched: &[Touched]) -> String {
    let mut lines: Vec<String> = touched
        .iter()
        .filter(|t| t.path != main)
        .map(|t| format!("{}\t{}\n", escape_path(&t.path), t.stamp))
        .collect();
    lines.sort();
    lines.dedup();
    lines.concat()
}

/// Stamps of paths as they are now, shared by the sessions of one check
/// (many sessions depend on the same `task-invocations.json` or session
/// files): `(path, open)` → [`fsread::stamp`].
#[derive(Default)]
pub(super) struct Restat(HashMap<(PathBuf, bool), Stamp>);

impl Restat {
    /// Whether the stored `deps` of `session` still hold, its main file's
    /// ctime and inode ([`main_ident`]) included when `main`: a main file
    /// that only grew has a new ctime, and is checked by its tail hash.
    fn deps_hold(&mut self, session: &SessionRef, stored: &str, main: bool) -> bool {
        let not_main = |text: &str| -> String {
            text.lines()
                .filter(|l| !l.starts_with("=main\t"))
                .flat_map(|l| [l, "\n"])
                .collect()
        };
        if !records_deps(session) {
            return if main {
                stored == deps_stamp(session)
            } else {
                not_main(stored) == not_main(&deps_stamp(session))
            };
        }
        stored.lines().all(|line| {
            if line.starts_with("=main\t") {
                return !main || main_ident(&session.path).trim_end() == line;
            }
            let Some((path, stamp)) = line.split_once('\t') else {
                return false;
            };
            let (Some(path), Some(stamp)) = (unescape_path(path), Stamp::parse(stamp)) else {
                return false;
            };
            // A path that could not be opened is opened again: its `stat`
            // may succeed while opening fails.
            let open = stamp == Stamp::Unreadable;
            let now = self
                .0
                .entry((path, open))
                .or_insert_with_key(|(path, open)| fsread::stamp(path, *open));
            *now == stamp
        })
    }

    /// Whether `session`'s stored rows are current: same main-file size
    /// and mtime, and its `deps` still hold (for Claude Code, Codex and
    /// OpenCode's database the named files' stamps equal the stored text;
    /// for recorded sessions every stored path has the same
    /// [`Stamp`] now).
    pub(super) fn unchanged(&mut self, session: &SessionRef, old: &Stored) -> bool {
        old.size == session.size
            && old.mtime_ns == mtime_ns(session.modified)
            && self.deps_hold(session, &old.deps, true)
    }
}

/// The files other than the main one that the loader reads, by agent
/// (Droid and OpenCode JSON: none named up front, see [`records_deps`]).
fn dep_files(session: &SessionRef) -> Vec<PathBuf> {
    match session.agent {
        Agent::ClaudeCode => session
            .subagent_files
            .iter()
            .flat_map(|f| [f.clone(), f.with_extension("meta.json")])
            .collect(),
        Agent::OpenCode => vec![crate::transcript::opencode_sqlite::wal_of(&session.path)],
        Agent::Codex | Agent::Droid => Vec::new(),
    }
}

/// The main file's line of `deps`: `=main<TAB>ctime_ns<TAB>inode`
/// ([`fsread::change_id`]; `=main<TAB>-` when it cannot be read). Size and
/// mtime have their own columns; this catches a file rewritten with both
/// put back (`cp -p`, `rsync -t`, `sed -i` + `touch -r`).
pub(super) fn main_ident(path: &Path) -> String {
    match std::fs::metadata(path) {
        Ok(m) => {
            let (ctime, ino) = fsread::change_id(&m);
            format!("=main\t{ctime}\t{ino}\n")
        }
        Err(_) => "=main\t-\n".into(),
    }
}

/// [`main_ident`]'s line, then `path<TAB>size<TAB>mtime_ns<TAB>ctime_ns<TAB>inode`
/// per dependency (`-` when absent), one a line.
pub(super) fn deps_stamp(session: &SessionRef) -> String {
    let mut out = main_ident(&session.path);
    for f in dep_files(session) {
        out.push_str(&escape_path(&f));
        match std::fs::metadata(&f) {
            Ok(m) => {
                let ns = mtime_ns(m.modified().ok()).unwrap_or(-1);
                let (ctime, ino) = fsread::change_id(&m);
                let ctime = if fsread::ctime_is_noise(&f) { 0 } else { ctime };
                out.push_str(&format!("\t{}\t{ns}\t{ctime}\t{ino}\n", m.len()));
            }
            Err(_) => out.push_str("\t-\n"),
        }
    }
    out
}

/// The paths named by a stored `deps` text (one
/// `path<TAB>stamp` line per file, folder or probe; the `=main` line is the
/// main file, which discovery's fingerprint holds).
pub(super) fn dep_paths(deps: &str) -> Vec<PathBuf> {
    deps.lines()
        .filter(|l| !l.starts_with("=main\t"))
        .filter_map(|l| l.split_once('\t'))
        .filter_map(|(path, _)| unescape_path(path))
        .collect()
}

/// Path bytes each followed by a NUL (no path holds one): the
/// `subagent_files` column.
pub(super) fn join_paths(paths: &[PathBuf]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in paths {
        out.extend_from_slice(&path_bytes(p));
        out.push(0);
    }
    out
}

/// The inverse of [`join_paths`].
pub(super) fn split_paths(bytes: &[u8]) -> Vec<PathBuf> {
    bytes
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(super::path_from_bytes)
        .collect()
}

/// SHA-256 of `path`'s bytes `[end - TAIL_HASH_BYTES, end)` (`None` when they
/// cannot be read), and how many bytes were read.
pub(super) fn tail_hash(path: &Path, end: u64) -> (Option<Vec<u8>>, u64) {
    let start = end.saturating_sub(TAIL_HASH_BYTES);
    let read = || -> std::io::Result<Vec<u8>> {
        let mut f = crate::transcript::fsread::open_regular(path)?;
        f.seek(SeekFrom::Start(start))?;
        let mut buf = Vec::new();
        f.take(end - start).read_to_end(&mut buf)?;
        Ok(buf)
    };
    match read() {
        Ok(buf) if buf.len() as u64 == end - start => {
            let n = buf.len() as u64;
            (Some(Sha256::digest(&buf).to_vec()), n)
        }
        Ok(buf) => (None, buf.len() as u64),
        Err(_) => (None, 0),
    }
}

/// Line starts of a JSON Lines file, from `from` (a line start) on: the
/// byte offset of line `first + i` is `starts[i]`; the last entry is the end
/// of the file. Counts the bytes read.
fn line_starts(path: &Path, from: u64, read: &mut u64) -> std::io::Result<Vec<u64>> {
    let mut f = crate::transcript::fsread::open_regular(path)?;
    f.seek(SeekFrom::Start(from))?;
    let mut starts = vec![from];
    let mut buf = vec![0u8; 1 << 20];
    let mut pos = from;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        *read += n as u64;
        for i in memchr::memchr_iter(b'\n', &buf[..n]) {
            starts.push(pos + i as u64 + 1);
        }
        pos += n as u64;
    }
    if starts.last() != Some(&pos) {
        starts.push(pos);
    }
    Ok(starts)
}

/// The line starts of one thread file.
pub(super) struct Lines {
    /// 1-based line whose offset is `starts[0]` (1 for a whole file; the
    /// first new line when a grown file is resumed).
    pub(super) first: usize,
    /// `starts[k - first]` = offset of 1-based line `k`; last = end of file.
    pub(super) starts: Vec<u64>,
    /// Spans of lines before `first` that are known (a resumed file's
    /// stored call and result lines): line → (offset, length).
    pub(super) known: HashMap<usize, (u64, u64)>,
}

impl Lines {
    /// The line starts of a whole file.
    fn whole(starts: Vec<u64>) -> Lines {
        Lines {
            first: 1,
            starts,
            known: HashMap::new(),
        }
    }

    /// Offset and length (with its newline, if any) of 1-based `line`.
    fn span(&self, line: usize) -> Option<(u64, u64)> {
        if line < self.first {
            return self.known.get(&line).copied();
        }
        let start = *self.starts.get(line - self.first)?;
        let end = *self.starts.get(line - self.first + 1)?;
        Some((start, end.saturating_sub(start)))
    }
}

/// A call row before it is written.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct CallRow {
    pub(super) thread: Option<usize>,
    pub(super) tool_use_id: String,
    pub(super) name: String,
    pub(super) kind: &'static str,
    pub(super) resolved: Option<String>,
    pub(super) is_error: Option<bool>,
    pub(super) timestamp: Option<String>,
    pub(super) file_path: Option<String>,
    pub(super) file: Vec<u8>,
    pub(super) input: Option<(usize, u64, u64)>,
    pub(super) output: Option<(usize, u64, u64)>,
    pub(super) locator: Option<String>,
    /// `timestamp` in ns since the epoch (see [`super::schema`]).
    pub(super) ts_ns: Option<i64>,
    /// Whether its two lines give its `find` record exactly.
    pub(super) rows_ok: bool,
    /// The subagent thread's `agentId` and spawning `tool_use_id`.
    pub(super) origin: (Option<String>, Option<String>),
    /// Its hook firings as `activity_value` JSON, and their filter facts.
    pub(super) hooks: Option<(String, String)>,
    /// What `input_contains` searches, when short enough (see
    /// [`super::schema`]'s `input_folded`).
    pub(super) input_folded: Option<String>,
}

/// Everything written for one session.
pub(super) struct Built {
    pub(super) key: (Vec<u8>, String),
    pub(super) agent: Agent,
    pub(super) size: u64,
    pub(super) mtime_ns: Option<i64>,
    pub(super) tail_hash: Option<Vec<u8>>,
    pub(super) deps: String,
    /// [`SessionRef::subagent_files`] as stored (see [`super::schema`]).
    pub(super) subagent_files: Vec<u8>,
    pub(super) summary: crate::transcript::SessionSummary,
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) calls: Vec<CallRow>,
    /// The opening prompts of its turns ([`super::prompts::prompts_of`]).
    pub(super) prompts: Vec<String>,
    /// Those its Stop and SubagentStop firings test
    /// ([`crate::hooks::replay::stop_prompts`]); `None` when not known (a
    /// grown session).
    pub(super) stop_prompts: Option<BTreeSet<String>>,
    /// The distinct `agent_type`s of its subagents; `None` when not known.
    pub(super) agent_types: Option<BTreeSet<String>>,
    pub(super) read: u64,
    /// `seq` of the first of `calls` (1; after the stored calls when a
    /// grown file is resumed).
    pub(super) first_seq: usize,
    /// The main file's [`crate::transcript::claude_code::Checkpoint`] as
    /// JSON, for a later resume ([`super::grow`]).
    pub(super) checkpoint: Option<String>,
    /// Set when the session was resumed: the stored rows it changes.
    pub(super) resume: Option<super::grow::Resume>,
}

/// RFC 3339 with as many fraction digits as the time needs (parses back
/// to the same instant).
pub(crate) fn time_text(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// Loads one session and turns it into rows.
pub(super) fn build_one(session: &SessionRef) -> Result<Built, LoadError> {
    let mut checkpoint = None;
    // Line starts recorded while loading (Claude Code): the call rows'
    // spans come from them, without a second read of each file.
    let mut lines: HashMap<PathBuf, Option<Lines>> = HashMap::new();
    let (loaded, deps, mut read): (Session, String, u64) = if records_deps(session) {
        // The loaders read on this thread only (fsread's module doc).
        let (loaded, touched) = fsread::record(|| load(session));
        let read = touched
            .iter()
            .filter(|t| t.path != session.path)
            .map(|t| match t.stamp {
                Stamp::File { size, .. } => size,
                _ => 0,
            })
            .sum();
        let deps = main_ident(&session.path) + &recorded_deps(&session.path, &touched);
        (loaded?, deps, read)
    } else {
        let loaded = if session.agent == Agent::ClaudeCode {
            let (loaded, cp, starts) =
                crate::transcript::claude_code::load_session_with_line_starts(
                    &session.path,
                    &session.subagent_files,
                )
                .map_err(|source| LoadError {
                    path: session.path.clone(),
                    source,
                })?;
            checkpoint = cp.as_ref().and_then(super::grow::checkpoint_text);
            lines.extend(
                starts
                    .into_iter()
                    .map(|(file, starts)| (file, Some(Lines::whole(starts)))),
            );
            loaded
        } else {
            load(session)?
        };
        let read = session
            .subagent_files
            .iter()
            .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
            .sum();
        (loaded, deps_stamp(session), read)
    };
    read += session.size;
    let summary = loaded.summary();
    let calls = call_rows(session, &loaded, &mut lines, &mut read, &|_| true)
        .into_iter()
        .map(|(_, row)| row)
        .collect();
    let (hash, hashed) = tail_hash(&session.path, session.size);
    read += hashed;
    Ok(Built {
        key: (path_bytes(&session.path), session.id.clone()),
        agent: session.agent,
        size: session.size,
        mtime_ns: mtime_ns(session.modified),
        tail_hash: hash,
        deps,
        subagent_files: join_paths(&session.subagent_files),
        summary,
        prompts: super::prompts::prompts_of(&loaded),
        stop_prompts: Some(crate::hooks::replay::stop_prompts(&loaded)),
        agent_types: Some(
            loaded
                .subagents
                .iter()
                .filter_map(|s| s.agent_type.clone())
                .collect(),
        ),
        diagnostics: loaded.diagnostics,
        calls,
        read,
        first_seq: 1,
        checkpoint,
        resume: None,
    })
}

/// `calls.input_folded` of a call whose raw input is `input`: exactly the
/// text `find`'s `input_contains` folds and searches (`query::passes_text`),
/// `None` when over [`super::schema::INPUT_FOLDED_MAX`] bytes.
fn input_folded(input: Option<&serde_json::Value>) -> Option<String> {
    // Lowercasing shrinks a character at most from 3 bytes to 1 (the
    // Kelvin sign to `k`): a compact JSON past 3 × the cap folds past it,
    // and is not written out whole (a Write's content may be megabytes).
    let Some(input) = input else {
        return Some(crate::query::fold_input(None));
    };
    let mut json = Capped {
        bytes: Vec::new(),
        cap: 3 * super::schema::INPUT_FOLDED_MAX,
    };
    serde_json::to_writer(&mut json, input).ok()?;
    let text = crate::query::params::fold(std::str::from_utf8(&json.bytes).ok()?);
    (text.len() <= super::schema::INPUT_FOLDED_MAX).then_some(text)
}

/// A writer that refuses to grow past `cap` bytes.
struct Capped {
    bytes: Vec<u8>,
    cap: usize,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > self.cap {
            return Err(std::io::Error::other("past the cap"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The rows of `loaded`'s calls whose position in
/// [`Session::all_tool_calls`] order `want` accepts, with that position, in
/// that order; each thread file's line starts are scanned once into `lines`
/// (counted in `read`) unless already there.
pub(super) fn call_rows(
    session: &SessionRef,
    loaded: &Session,
    lines: &mut HashMap<PathBuf, Option<Lines>>,
    read: &mut u64,
    want: &dyn Fn(usize) -> bool,
) -> Vec<(usize, CallRow)> {
    let line_files = session.agent == Agent::ClaudeCode
        || (session.agent == Agent::Codex && !crate::transcript::fsread::is_zst(&session.path));
    let mut calls = Vec::new();
    // Calls per (thread, tool_use_id): an id carried twice in a thread makes
    // result pairing depend on order, which one line cannot show.
    let mut ids: HashMap<(Option<usize>, &str), usize> = HashMap::new();
    for (owner, call) in loaded.all_tool_calls() {
        *ids.entry((owner, call.tool_use_id.as_str())).or_default() += 1;
    }
    for (ordinal, (owner, call)) in loaded.all_tool_calls().enumerate() {
        if !want(ordinal) {
            continue;
        }
        let file = loaded.thread_path(owner).to_path_buf();
        if line_files && !lines.contains_key(&file) {
            let scanned = line_starts(&file, 0, read).ok().map(Lines::whole);
            lines.insert(file.clone(), scanned);
        }
        let spans = lines.get(&file).and_then(Option::as_ref);
        let at = |line: usize| spans.and_then(|l| l.span(line)).map(|(o, n)| (line, o, n));
        let timestamp = call
            .timestamp
            .or_else(|| call.result.as_ref().and_then(|r| r.timestamp));
        let input = if line_files { at(call.line) } else { None };
        let output = if line_files {
            call.result.as_ref().and_then(|r| at(r.line))
        } else {
            None
        };
        let sub = owner.and_then(|i| loaded.subagents.get(i));
        let hooks = hook_rows(loaded, owner, call);
        // Where `find` reads the record from without a load: a Claude Code
        // call's two lines, an OpenCode call's message parts.
        let located = match session.agent {
            Agent::ClaudeCode => input.is_some() && (call.result.is_none() || output.is_some()),
            Agent::OpenCode => call.message_id.is_some(),
            Agent::Codex | Agent::Droid => false,
        };
        let rows_ok = located
            && call.tool_kind != crate::tools::ToolKind::Task
            && call.subagent.is_none()
            && ids.get(&(owner, call.tool_use_id.as_str())) == Some(&1)
            && hooks.is_ok();
        calls.push((
            ordinal,
            CallRow {
                thread: owner,
                tool_use_id: call.tool_use_id.clone(),
                name: call.name().to_string(),
                kind: call.tool_kind.as_str(),
                resolved: call.tool_resolved.clone(),
                is_error: call.result.as_ref().map(|r| r.is_error),
                timestamp: timestamp.map(time_text),
                file_path: crate::tools::file_path_of(&call.call).map(str::to_string),
                file: path_bytes(&file),
                input,
                output,
                locator: match call.locus() {
                    Locus::Record(id) => Some(id),
                    Locus::Line(_) if !line_files => call.message_id.clone(),
                    Locus::Line(_) => None,
                },
                ts_ns: timestamp.map(|t| {
                    t.timestamp_nanos_opt()
                        .unwrap_or(super::schema::TS_OUT_OF_RANGE)
                }),
                rows_ok,
                origin: (
                    sub.and_then(|s| s.agent_id.clone()),
                    sub.and_then(|s| s.spawn_tool_use_id.clone()),
                ),
                hooks: hooks.unwrap_or(None),
                input_folded: input_folded(call.call.raw()),
            },
        ));
    }
    calls
}

/// A call's hook firings for its row: `activity_value` objects as a JSON
/// array and [`crate::query::rows::HookFact::to_json`] per firing (`None`
/// when it has none). `Err` when the JSON would not read back equal (a
/// float in a rewritten input): the call's record then needs a load.
fn hook_rows(
    session: &Session,
    owner: Option<usize>,
    call: &crate::transcript::ToolCallRecord,
) -> Result<Option<(String, String)>, ()> {
    use crate::transcript::hook_activity::activity_value;
    let agent_id = owner
        .and_then(|i| session.subagents.get(i))
        .and_then(|s| s.agent_id.as_deref());
    let mut values = Vec::new();
    let mut facts = Vec::new();
    for a in session.hooks_of_call(owner, call) {
        values.push(activity_value(a, session.thread_path(owner), agent_id));
        facts.push(crate::query::rows::HookFact::of(a).to_json());
    }
    if values.is_empty() {
        return Ok(None);
    }
    let values = serde_json::Value::Array(values);
    let text = values.to_string();
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(back) if back == values => Ok(Some((text, serde_json::Value::Array(facts).to_string()))),
        _ => Err(()),
    }
}

impl Index {
    /// Brings the index up to date with `sessions` (a discovery's) and
    /// says, per session, whether its rows can be used ([`Synced`]).
    /// `progress` is called after each batch of re-indexed sessions.
    ///
    /// A write that fails (read-only folder, full disk) moves the index to
    /// memory (one line in [`Index::notices`]) and indexes there; only when
    /// even that fails are the sessions left [`State::NotIndexed`].
    pub fn sync(&mut self, sessions: &[SessionRef], progress: &mut dyn FnMut(Progress)) -> Synced {
        self.sync_with(sessions, progress, true)
    }

    /// [`Index::sync`] for a part of a discovery (the TUI syncs in chunks):
    /// the same, except that no row is removed (a chunk may hold some of an
    /// OpenCode database's sessions and not the others; and checking every
    /// stored file once per chunk would cost a `stat` per row per chunk).
    /// Call [`Index::remove_gone`] with the whole discovery afterwards.
    pub fn sync_part(
        &mut self,
        sessions: &[SessionRef],
        progress: &mut dyn FnMut(Progress),
    ) -> Synced {
        self.sync_with(sessions, progress, false)
    }

    /// Removes the rows of sessions that left the disk, given a whole
    /// discovery's `sessions`: a stored session not among them whose main
    /// file is one of theirs (a session gone from its OpenCode database) or
    /// no longer exists. Returns how many were removed (0 when the index
    /// cannot be read or written).
    pub fn remove_gone(&mut self, sessions: &[SessionRef]) -> usize {
        let Ok(stored) = self.stored() else {
            return 0;
        };
        let seen: HashSet<(Vec<u8>, String)> = sessions
            .iter()
            .map(|s| (path_bytes(&s.path), s.id.clone()))
            .collect();
        let main_paths: HashSet<Vec<u8>> = seen.iter().map(|k| k.0.clone()).collect();
        let gone = gone_rows(&stored, &seen, &main_paths);
        let n = gone.len();
        let removed = (|| -> rusqlite::Result<()> {
            let tx = self.conn.transaction()?;
            for (path, id) in &gone {
                delete_rows(&tx, path, id)?;
            }
            tx.commit()
        })();
        if removed.is_ok() { n } else { 0 }
    }

    fn sync_with(
        &mut self,
        sessions: &[SessionRef],
        progress: &mut dyn FnMut(Progress),
        whole: bool,
    ) -> Synced {
        match self.try_sync(sessions, progress, whole) {
            Ok(done) => done,
            Err(e) => {
                if self.fall_back_to_memory(&e.to_string()).is_ok()
                    && let Ok(done) = self.try_sync(sessions, progress, whole)
                {
                    return done;
                }
                Synced {
                    states: sessions.iter().map(|_| State::NotIndexed).collect(),
                    reused: vec![false; sessions.len()],
                    stats: SyncStats {
                        sessions: sessions.len(),
                        not_indexed: sessions.len(),
                        ..SyncStats::default()
                    },
                }
            }
        }
    }

    fn try_sync(
        &mut self,
        sessions: &[SessionRef],
        progress: &mut dyn FnMut(Progress),
        whole: bool,
    ) -> rusqlite::Result<Synced> {
        let before = self.bytes_read();
        let mut stats = SyncStats {
            sessions: sessions.len(),
            ..SyncStats::default()
        };
        // The build lock is taken (waiting for another process's build, then
        // planning again) once there are WAIT_MIN_SESSIONS or more to
        // index; released when this returns.
        let mut lock: Option<super::build_lock::BuildLock> = None;
        let (
            stored,
            Planned {
                plans,
                seen,
                main_paths,
                todo,
            },
        ) = loop {
            let stored = self.stored()?;
            let planned = self.plan(sessions, &stored);
            if planned.todo.len() < super::build_lock::WAIT_MIN_SESSIONS
                || lock
                    .as_ref()
                    .is_some_and(super::build_lock::BuildLock::held)
            {
                break (stored, planned);
            }
            if lock.is_none() {
                lock = self
                    .file
                    .as_deref()
                    .and_then(super::build_lock::BuildLock::open);
            }
            let Some(held) = lock.as_mut() else {
                break (stored, planned);
            };
            let todo = &planned.todo;
            let shares = file_shares(sessions, todo);
            let bytes_total: u64 = shares.values().sum();
            // The builder's progress is any commit of it (it may index
            // other sessions first), its count of ours what is shown.
            let mut waiting = || {
                let done = self.indexed_of(sessions, todo);
                progress(Progress {
                    done: done.len(),
                    total: todo.len(),
                    bytes_done: done.iter().filter_map(|i| shares.get(i)).sum(),
                    bytes_total,
                    waiting: true,
                    making_indexes: false,
                });
                self.data_version().unwrap_or(0)
            };
            match held.take(self.build_wait, &mut waiting) {
                super::build_lock::Taken::AfterWaiting => stats.waited = true,
                super::build_lock::Taken::Stalled => {
                    self.notices.push(format!(
                        "another hookscope process holds the index's build lock but wrote nothing to it for {} s; indexing here too",
                        self.build_wait.as_secs_f64()
                    ));
                    break (stored, planned);
                }
                super::build_lock::Taken::AtOnce | super::build_lock::Taken::Unsupported => {
                    break (stored, planned);
                }
            }
        };

        // Rows of sessions that left the disk (or their database).
        let gone = if whole {
            gone_rows(&stored, &seen, &main_paths)
        } else {
            Vec::new()
        };
        if !gone.is_empty() {
            let tx = self.conn.transaction()?;
            for (path, id) in &gone {
                delete_rows(&tx, path, id)?;
            }
            tx.commit()?;
            stats.removed = gone.len();
        }

        let mut states: Vec<State> = plans
            .iter()
            .map(|p| match p {
                Plan::Skip => State::NotIndexed,
                _ => State::Indexed,
            })
            .collect();
        let shares = file_shares(sessions, &todo);
        let bytes_total: u64 = shares.values().sum();
        if !todo.is_empty() {
            progress(Progress::indexing(0, todo.len(), 0, bytes_total));
        }
        // A first build of many sessions (the calls table empty, this
        // process holding the build lock, a whole discovery) makes the call
        // indexes after the last row rather than updating them per row.
        let defer_indexes = whole
            && lock
                .as_ref()
                .is_some_and(super::build_lock::BuildLock::held)
            && bytes_total >= self.defer_indexes_from
            && self.calls_empty()?;
        if defer_indexes {
            let tx = self.conn.transaction()?;
            super::schema::drop_calls_indexes(&tx)?;
            tx.commit()?;
            stats.deferred_indexes = true;
        }
        let mut write_all = || -> rusqlite::Result<()> {
            let mut done_sessions = 0;
            // Bytes parsed so far, and the most shown (never going back).
            let (mut parsed_bytes, mut shown) = (0u64, 0u64);
            // Each batch is parsed on the pool while the one before it is
            // written here (the connection stays on this thread): the writes,
            // serial, overlap the parsing instead of leaving a core idle.
            let chunks = batches(&todo, |i| sessions[i].total_bytes());
            let mut parsed: Option<(usize, Vec<Parsed>)> = None;
            for next in chunks.iter().map(Some).chain(std::iter::once(None)) {
                // A grown Claude Code session resumes from its stored rows
                // (read here, before the batch before it is written: they are
                // other sessions' rows).
                let inputs: Vec<Option<super::grow::Inputs>> = next
                    .map(|chunk| {
                        chunk
                            .iter()
                            .map(|&i| match (&plans[i], stored.get(&key_of(&sessions[i]))) {
                                (Plan::Index(true), Some(old)) => {
                                    super::grow::inputs(&self.conn, &sessions[i], old)
                                }
                                _ => None,
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                // Each session parsed sends its bytes: the progress moves
                // while a batch is parsed, not only when it is written.
                let (parsed_tx, parsed_rx) = std::sync::mpsc::channel::<u64>();
                let shares = &shares;
                let (written, built) = std::thread::scope(|scope| {
                    let parsing = next.map(|chunk| {
                        scope.spawn(move || {
                            let mut inputs = inputs;
                            chunk
                                .par_iter()
                                .zip(inputs.par_iter_mut())
                                .map(|(&i, input)| {
                                    let resumed = input.take().and_then(|input| {
                                        super::grow::build_grown(&sessions[i], input)
                                    });
                                    let built = resumed.map_or_else(|| build_one(&sessions[i]), Ok);
                                    let share = shares.get(&i).copied().unwrap_or(0);
                                    let _ = parsed_tx.send(share);
                                    (i, built)
                                })
                                .collect::<Vec<_>>()
                        })
                    });
                    let written = match parsed.take() {
                        Some((count, built)) => self
                            .write_batch(sessions, &plans, built, &mut states, &mut stats)
                            .map(|bytes| Some((count, bytes))),
                        None => Ok(None),
                    };
                    // Every written session was parsed (and counted) first.
                    if let Ok(Some((count, _))) = &written {
                        done_sessions += count;
                        shown = shown.max(parsed_bytes.min(bytes_total));
                        progress(Progress::indexing(
                            done_sessions,
                            todo.len(),
                            shown,
                            bytes_total,
                        ));
                    }
                    follow_parsing(&parsed_rx, &mut parsed_bytes, |parsed| {
                        let now = parsed.min(bytes_total);
                        if now > shown {
                            shown = now;
                            progress(Progress::indexing(
                                done_sessions,
                                todo.len(),
                                shown,
                                bytes_total,
                            ));
                        }
                    });
                    let built = parsing.map(|h| {
                        h.join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    });
                    (written, built)
                });
                if let Some((_, bytes)) = written? {
                    give_back_after(bytes);
                }
                parsed = next.zip(built).map(|(chunk, built)| (chunk.len(), built));
            }
            Ok(())
        };
        let written = write_all();
        if defer_indexes {
            progress(Progress {
                done: todo.len(),
                total: todo.len(),
                bytes_done: bytes_total,
                bytes_total,
                waiting: false,
                making_indexes: true,
            });
            // Made again even when a write failed: the queries name them.
            super::busy_retried(|| super::schema::create_calls_indexes(&self.conn))?;
        }
        written?;
        // Dropped by another process's first build, still under way (or by
        // one that was killed): made here when no one builds; else this
        // question reads its sessions without the index.
        let ours = lock
            .as_ref()
            .is_some_and(super::build_lock::BuildLock::held);
        // A first build in chunks makes them after its last chunk
        // (`Index::end_deferred`).
        if !defer_indexes
            && !self.deferring
            && !super::restore_calls_indexes(&self.conn, self.file.as_deref(), ours)?
        {
            for state in &mut states {
                if matches!(state, State::Indexed) {
                    *state = State::NotIndexed;
                }
            }
            self.notices.push(
                "another hookscope process is building this index for the first time; this question reads the sessions without it".to_string(),
            );
        }
        let reused: Vec<bool> = plans.iter().map(|p| matches!(p, Plan::Reuse)).collect();
        stats.reused = reused.iter().filter(|&&r| r).count();
        stats.not_indexed = states
            .iter()
            .filter(|s| !matches!(s, State::Indexed))
            .count();
        stats.bytes_read = self.bytes_read() - before;
        Ok(Synced {
            states,
            reused,
            stats,
        })
    }

    /// Writes one parsed batch in one transaction: each session's rows
    /// replace its old ones (or a grown session's are updated in place);
    /// a session that failed to load gets its error as state. Returns the
    /// batch's bytes (its sessions' main-file sizes).
    fn write_batch(
        &mut self,
        sessions: &[SessionRef],
        plans: &[Plan],
        built: Vec<Parsed>,
        states: &mut [State],
        stats: &mut SyncStats,
    ) -> rusqlite::Result<u64> {
        let mut bytes_done = 0;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for (i, result) in built {
            let s = &sessions[i];
            bytes_done += s.size;
            let key = (path_bytes(&s.path), s.id.clone());
            match &result {
                Ok(Built {
                    resume: Some(resume),
                    ..
                }) => {
                    if !super::grow::apply(&tx, &key, resume)? {
                        // Re-indexed by another process meanwhile.
                        states[i] = State::NotIndexed;
                        continue;
                    }
                    stats.resumed += 1;
                }
                _ => delete_rows(&tx, &key.0, &key.1)?,
            }
            match result {
                Ok(b) => {
                    self.bytes_read
                        .fetch_add(b.read, std::sync::atomic::Ordering::Relaxed);
                    write(&tx, &b)?;
                    refresh_groups(&tx, &key.0, &key.1)?;
                    super::grow::store_checkpoint(&tx, &b)?;
                    stats.indexed += 1;
                    if matches!(plans[i], Plan::Index(true)) {
                        stats.grown += 1;
                    }
                }
                Err(e) => states[i] = State::Failed(e),
            }
        }
        tx.commit()?;
        Ok(bytes_done)
    }

    /// What to do with each of `sessions` given the `stored` identities:
    /// reuse an unchanged session's rows, index a new or changed one (a
    /// grown one's tail hash read and counted), skip one the index cannot
    /// hold.
    fn plan(
        &self,
        sessions: &[SessionRef],
        stored: &HashMap<(Vec<u8>, String), Stored>,
    ) -> Planned {
        let mut restat = Restat::default();
        let mut plans = Vec::with_capacity(sessions.len());
        let mut seen: HashSet<(Vec<u8>, String)> = HashSet::new();
        let mut main_paths: HashSet<Vec<u8>> = HashSet::new();
        for s in sessions {
            let key = (path_bytes(&s.path), s.id.clone());
            main_paths.insert(key.0.clone());
            let duplicate = !seen.insert(key.clone());
            let plan = if !indexable(s) {
                Plan::Skip
            } else if duplicate {
                // Same file and id twice in one discovery: rows are shared.
                Plan::Reuse
            } else {
                match stored.get(&key) {
                    Some(old) if restat.unchanged(s, old) => Plan::Reuse,
                    Some(old) if s.size > old.size && restat.deps_hold(s, &old.deps, false) => {
                        let (hash, n) = tail_hash(&s.path, old.size);
                        self.count_read(n);
                        Plan::Index(hash.is_some() && hash == old.tail_hash)
                    }
                    _ => Plan::Index(false),
                }
            };
            plans.push(plan);
        }
        let todo = plans
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p, Plan::Index(_)))
            .map(|(i, _)| i)
            .collect();
        Planned {
            plans,
            seen,
            main_paths,
            todo,
        }
    }

    /// Which of `todo` (places in `sessions`) the index holds current rows
    /// of now: what a waiting process reports of another one's build
    /// (empty when the index cannot be read).
    fn indexed_of(&self, sessions: &[SessionRef], todo: &[usize]) -> Vec<usize> {
        let Ok(stored) = self.stored() else {
            return Vec::new();
        };
        let mut restat = Restat::default();
        todo.iter()
            .copied()
            .filter(|&i| {
                stored
                    .get(&key_of(&sessions[i]))
                    .is_some_and(|old| restat.unchanged(&sessions[i], old))
            })
            .collect()
    }

    /// Every stored session identity.
    pub(super) fn stored(&self) -> rusqlite::Result<HashMap<(Vec<u8>, String), Stored>> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, id, size, mtime_ns, tail_hash, deps FROM sessions")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                (r.get::<_, Vec<u8>>(0)?, r.get::<_, String>(1)?),
                Stored {
                    size: r.get::<_, i64>(2)?.max(0) as u64,
                    mtime_ns: r.get(3)?,
                    tail_hash: r.get(4)?,
                    deps: r.get(5)?,
                },
            ))
        })?;
        rows.collect()
    }

    /// Whether a session's rows exist (for tests and callers that check one).
    pub fn has_session(&self, session: &SessionRef) -> bool {
        self.conn
            .query_row(
                "SELECT 1 FROM sessions WHERE path = ?1 AND id = ?2",
                params![path_bytes(&session.path), session.id],
                |_| Ok(()),
            )
            .optional()
            .ok()
            .flatten()
            .is_some()
    }
}

/// The stored sessions not in `seen` (a whole discovery's keys) whose main
/// file is one of `main_paths` or no longer exists.
fn gone_rows(
    stored: &HashMap<(Vec<u8>, String), Stored>,
    seen: &HashSet<(Vec<u8>, String)>,
    main_paths: &HashSet<Vec<u8>>,
) -> Vec<(Vec<u8>, String)> {
    stored
        .keys()
        .filter(|k| !seen.contains(*k))
        .filter(|(path, _)| {
            main_paths.contains(path)
                || matches!(
                    std::fs::symlink_metadata(super::path_from_bytes(path)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound
                )
        })
        .cloned()
        .collect()
}

/// The key of a session's rows.
fn key_of(s: &SessionRef) -> (Vec<u8>, String) {
    (path_bytes(&s.path), s.id.clone())
}

fn delete_rows(tx: &rusqlite::Transaction<'_>, path: &[u8], id: &str) -> rusqlite::Result<()> {
    for table in [
        "DELETE FROM sessions WHERE path = ?1 AND id = ?2",
        "DELETE FROM diagnostics WHERE s_path = ?1 AND s_id = ?2",
        "DELETE FROM calls WHERE s_path = ?1 AND s_id = ?2",
        "DELETE FROM checkpoints WHERE s_path = ?1 AND s_id = ?2",
        "DELETE FROM call_groups WHERE s_path = ?1 AND s_id = ?2",
        "DELETE FROM prompts WHERE s_path = ?1 AND s_id = ?2",
    ] {
        tx.execute(table, params![path, id])?;
    }
    Ok(())
}

/// Rewrites the session's `call_groups` rows from its `calls` rows
/// ([`super::schema`]), after they were written.
fn refresh_groups(tx: &rusqlite::Transaction<'_>, path: &[u8], id: &str) -> rusqlite::Result<()> {
    tx.prepare_cached("DELETE FROM call_groups WHERE s_path = ?1 AND s_id = ?2")?
        .execute(params![path, id])?;
    tx.prepare_cached(
        "INSERT INTO call_groups(name_folded, s_path, s_id, agent, is_error, newest_ns, undated,
           out_of_range, calls)
         SELECT name_folded, s_path, s_id, agent, is_error,
           MAX(CASE WHEN ts_ns = ?3 THEN NULL ELSE ts_ns END),
           SUM(ts_ns IS NULL OR ts_ns = ?3), SUM(ts_ns IS ?3), COUNT(*)
         FROM calls WHERE s_path = ?1 AND s_id = ?2
         GROUP BY name_folded, agent, is_error",
    )?
    .execute(params![path, id, super::schema::TS_OUT_OF_RANGE])?;
    Ok(())
}

fn int(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn uint(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn write(tx: &rusqlite::Transaction<'_>, b: &Built) -> rusqlite::Result<()> {
    let s = &b.summary;
    tx.execute(
        "INSERT INTO sessions(path, id, agent, size, mtime_ns, tail_hash, deps, cwd, title,
           first_prompt, started, ended, version, turns, tool_calls, errors, subagents, diagnostics,
           subagent_files, agent_types)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
           ?19, ?20)",
        params![
            b.key.0,
            b.key.1,
            b.agent.as_str(),
            uint(b.size),
            b.mtime_ns,
            b.tail_hash,
            b.deps,
            s.cwd,
            s.title,
            s.first_prompt,
            s.started.map(time_text),
            s.ended.map(time_text),
            s.version,
            int(s.turns),
            int(s.tool_calls),
            int(s.errors),
            int(s.subagents),
            int(s.diagnostics),
            b.subagent_files,
            b.agent_types
                .as_ref()
                .map(|t| serde_json::json!(t).to_string()),
        ],
    )?;
    let mut diag = tx.prepare_cached(
        "INSERT INTO diagnostics(s_path, s_id, ord, path, line, record, message)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (ord, d) in b.diagnostics.iter().enumerate() {
        diag.execute(params![
            b.key.0,
            b.key.1,
            int(ord),
            path_bytes(&d.path),
            d.line().map(int),
            d.locus.as_ref().and_then(Locus::record),
            d.message,
        ])?;
    }
    super::prompts::write(tx, &b.key, &b.prompts, b.stop_prompts.as_ref())?;
    let mut call = tx.prepare_cached(&super::calls_table::insert_sql())?;
    for (seq, c) in b.calls.iter().enumerate() {
        let seq = int(seq + b.first_seq);
        let name_folded = c.name.to_lowercase();
        let line = |at: Option<(usize, u64, u64)>| at.map(|(l, _, _)| int(l));
        let offset = |at: Option<(usize, u64, u64)>| at.map(|(_, o, _)| uint(o));
        let len = |at: Option<(usize, u64, u64)>| at.map(|(_, _, n)| uint(n));
        let (input_line, input_offset, input_len) = (line(c.input), offset(c.input), len(c.input));
        let (output_line, output_offset, output_len) =
            (line(c.output), offset(c.output), len(c.output));
        let thread = c.thread.map(int);
        let hooks = c.hooks.as_ref().map(|h| h.0.as_str());
        let hook_facts = c.hooks.as_ref().map(|h| h.1.as_str());
        super::calls_table::insert(
            &mut call,
            &[
                (":s_path", &b.key.0),
                (":s_id", &b.key.1),
                (":seq", &seq),
                (":agent", &b.agent.as_str()),
                (":thread", &thread),
                (":tool_use_id", &c.tool_use_id),
                (":name", &c.name),
                (":name_folded", &name_folded),
                (":kind", &c.kind),
                (":resolved", &c.resolved),
                (":is_error", &c.is_error),
                (":timestamp", &c.timestamp),
                (":file_path", &c.file_path),
                (":file", &c.file),
                (":input_line", &input_line),
                (":input_offset", &input_offset),
                (":input_len", &input_len),
                (":output_line", &output_line),
                (":output_offset", &output_offset),
                (":output_len", &output_len),
                (":locator", &c.locator),
                (":ts_ns", &c.ts_ns),
                (":rows_ok", &c.rows_ok),
                (":origin_agent_id", &c.origin.0),
                (":origin_parent", &c.origin.1),
                (":hooks", &hooks),
                (":hook_facts", &hook_facts),
                (":input_folded", &c.input_folded),
            ],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line starts a Claude Code load records are those a second read
    /// of each file finds ([`line_starts`]), for every Claude Code session
    /// of the test corpus (main files and subagent files), plus files with
    /// no final newline, a blank line and no lines at all.
    #[test]
    fn line_starts_recorded_while_loading_are_the_files_own() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        let found = crate::transcript::discover(&[root]).expect("discover");
        let dir = tempfile::TempDir::new().expect("temp");
        let mut sessions: Vec<(PathBuf, Vec<PathBuf>)> = found
            .sessions
            .iter()
            .filter(|s| s.agent == Agent::ClaudeCode && !fsread::is_zst(&s.path))
            .map(|s| (s.path.clone(), s.subagent_files.clone()))
            .collect();
        assert!(sessions.len() > 20, "{}", sessions.len());
        let line = r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}"#;
        for (name, bytes) in [
            ("unterminated.jsonl", format!("{line}\n{line}")),
            ("blank.jsonl", format!("{line}\n\n{line}\n")),
            ("empty.jsonl", String::new()),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).expect("write");
            sessions.push((path, Vec::new()));
        }
        let mut files = 0;
        for (main, subagents) in &sessions {
            let (_, _, recorded) =
                crate::transcript::claude_code::load_session_with_line_starts(main, subagents)
                    .expect("load");
            assert_eq!(recorded.first().map(|(f, _)| f), Some(main));
            for (file, starts) in recorded {
                let mut read = 0;
                assert_eq!(
                    Some(starts),
                    line_starts(&file, 0, &mut read).ok(),
                    "{}",
                    file.display()
                );
                files += 1;
            }
        }
        assert!(files > sessions.len(), "subagent files too: {files}");
    }

    #[cfg(unix)]
    #[test]
    fn any_path_comes_back_from_its_deps_field() {
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(std::ffi::OsStr::from_bytes(
            b"/a\tb\\c\nd\re\xff\xfe-\xc3\xa9-\\x41",
        ));
        let text = escape_path(path);
        assert_eq!(text, "/a\\tb\\\\c\\nd\\re\\xff\\xfe-é-\\\\x41");
        assert!(!text.contains(['\t', '\n']));
        assert_eq!(unescape_path(&text).as_deref(), Some(path));
        assert_eq!(unescape_path("bad\\q"), None);
        assert_eq!(unescape_path("bad\\x4"), None);
    }

    #[test]
    fn recorded_deps_drop_the_main_file_and_repeats_and_sort() {
        let main = Path::new("/s/main.jsonl");
        let t = |p: &str, stamp: Stamp| Touched {
            path: PathBuf::from(p),
            stamp,
        };
        let touched = [
            t(
                "/s/main.jsonl",
                Stamp::File {
                    size: 1,
                    mtime_ns: 2,
                    ctime_ns: 3,
                    ino: 4,
                },
            ),
            t("/s/z.json", Stamp::Absent),
            t("/s", Stamp::Folder { mtime_ns: 7 }),
            t("/s/z.json", Stamp::Absent),
        ];
        assert_eq!(recorded_deps(main, &touched), "/s\tdir\t7\n/s/z.json\t-\n");
    }

    /// The stored input text is the one `find` folds, or `None` past 512
    /// bytes folded, whatever the raw input's length: 300 Kelvin signs
    /// (900 bytes of JSON) fold to 300 `k`s and are kept; 520 (1,568
    /// bytes) fold past the cap; a 1 MB Write content is never written out.
    #[test]
    fn input_folded_is_the_folded_input_up_to_the_cap() {
        let kelvin = |n: usize| serde_json::json!({"c": "\u{212A}".repeat(n)});
        let old = |v: &serde_json::Value| {
            let t = crate::query::fold_input(Some(v));
            (t.len() <= super::super::schema::INPUT_FOLDED_MAX).then_some(t)
        };
        for v in [
            serde_json::json!({"command": "Git Status"}),
            kelvin(300),
            kelvin(501),
            kelvin(502),
            kelvin(520),
            serde_json::json!({"content": "x".repeat(1 << 20)}),
            serde_json::json!("É".repeat(300)),
        ] {
            assert_eq!(
                input_folded(Some(&v)),
                old(&v),
                "{}",
                &v.to_string()[..40.min(v.to_string().len())]
            );
        }
        assert_eq!(
            input_folded(Some(&kelvin(300))).map(|t| t.len()),
            Some(300 + 8)
        );
        assert_eq!(input_folded(Some(&kelvin(520))), None);
        assert_eq!(input_folded(None), Some(String::new()));
    }

    /// A file several sessions share counts once in the bytes to index:
    /// split evenly, the remainder to the first of them.
    #[test]
    fn a_shared_file_counts_once_in_the_bytes_to_index() {
        let session = |path: &str, id: &str, size: u64| SessionRef {
            id: id.to_string(),
            agent: Agent::OpenCode,
            path: PathBuf::from(path),
            size,
            modified: None,
            subagent_files: Vec::new(),
        };
        let sessions = [
            session("/o/opencode.db", "ses_a", 1000),
            session("/c/a.jsonl", "a", 70),
            session("/o/opencode.db", "ses_b", 1000),
            session("/o/opencode.db", "ses_c", 1000),
        ];
        let shares = file_shares(&sessions, &[0, 1, 2, 3]);
        assert_eq!(shares.values().sum::<u64>(), 1070);
        assert_eq!(
            (shares[&0], shares[&1], shares[&2], shares[&3]),
            (334, 70, 333, 333)
        );
        // Only the sessions to index share it.
        let shares = file_shares(&sessions, &[2, 3]);
        assert_eq!((shares[&2], shares[&3]), (500, 500));
        assert!(file_shares(&sessions, &[]).is_empty());
    }

    /// Batches keep the order, hold at most 32 sessions and 256 MiB, and a
    /// larger session goes alone.
    #[test]
    fn big_sessions_are_loaded_alone() {
        let sizes = [10u64, 300 << 20, 20, 200 << 20, 100 << 20, 5];
        let todo: Vec<usize> = (0..sizes.len()).collect();
        let got = batches(&todo, |i| sizes[i]);
        assert_eq!(got, vec![vec![0], vec![1], vec![2, 3], vec![4, 5]]);
        let many: Vec<usize> = (0..70).collect();
        let got = batches(&many, |_| 1);
        assert_eq!(
            got.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![32, 32, 6]
        );
        assert!(batches(&[], |_| 1).is_empty());
    }
}
