//! Opening files from disk safely: only regular files, never blocking, with
//! size caps. Every reader of transcripts and sidecars goes through here
//! (`jsonl::read_objects`, the meta sidecar reader, sniffing, the query
//! prefilter), so a FIFO named `x.jsonl` or `agent-x.meta.json` does not block
//! a command in `open()`, and a symlink to `/dev/zero` is not read forever.
//!
//! How: `stat` the path (following symlinks) and refuse anything but a
//! regular file; then open it read-only, on unix with `O_NONBLOCK` (the
//! `libc` crate's value for the target, so a FIFO swapped in after the
//! `stat` does not block the `open`), and check the opened file's own
//! metadata again. `O_NONBLOCK` has no effect on reads of regular files.
//! Other targets open without the flag (the `stat` check still applies).
//!
//! # The read log
//! [`record`] runs a closure and returns, with its value, every path this
//! module touched *on the calling thread* meanwhile ([`Touched`]): each file
//! [`open_regular`] opened or failed to open (so [`read_capped`],
//! [`open_decoded`] and `jsonl::read_objects` too), each folder listed with
//! [`read_dir`], each path checked with [`probe`] or resolved with
//! [`canonicalize`]; each with its [`Stamp`] (size and mtime, a folder's
//! mtime, or absent/unreadable/special) taken *before* its bytes or entries
//! are read. The index stores it as the session's dependencies and reuses
//! the session while every path still has the same [`stamp`]
//! (`crate::index::build`). Loaders that record (Droid, OpenCode's JSON
//! storage) must touch the filesystem only through these functions and only
//! on the recording thread. Outside [`record`] nothing is logged and no
//! extra `stat` is made.

use std::cell::RefCell;
use std::fs::{File, FileType, Metadata, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The most bytes read from a `.meta.json` sidecar (1 MiB; real ones are
/// about 100 bytes).
pub const META_CAP: u64 = 1 << 20;

/// The error for a path that is not a regular file. Displays as
/// `not a regular file (<kind>)`, e.g. `not a regular file (FIFO)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a regular file ({kind})")]
pub struct NotRegular {
    /// What it is instead: `FIFO`, `character device`, `block device`,
    /// `socket`, `folder`, or `special file`.
    pub kind: &'static str,
}

/// What a non-regular file type is, in words ([`NotRegular::kind`]).
pub fn kind_of(file_type: &FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "FIFO";
        }
        if file_type.is_char_device() {
            return "character device";
        }
        if file_type.is_block_device() {
            return "block device";
        }
        if file_type.is_socket() {
            return "socket";
        }
    }
    if file_type.is_dir() {
        "folder"
    } else if file_type.is_file() {
        "regular file"
    } else {
        "special file"
    }
}

/// Whether an [`io::Error`] from this module says "not a regular file".
pub fn is_not_regular(err: &io::Error) -> bool {
    err.get_ref().is_some_and(|e| e.is::<NotRegular>())
}

fn not_regular(file_type: &FileType) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        NotRegular {
            kind: kind_of(file_type),
        },
    )
}

/// Opens `path` for reading when it is a regular file (a symlink is
/// followed).
///
/// # Errors
/// The `stat`/`open` error (`NotFound`, `PermissionDenied`, …), or an
/// `InvalidInput` error wrapping [`NotRegular`] for a FIFO, device, socket or
/// folder (checked before opening and again on the opened file).
pub fn open_regular(path: &Path) -> io::Result<File> {
    let opened = open_regular_unlogged(path);
    if recording() {
        let stamp = match &opened {
            Ok(file) => file.metadata().map_or(Stamp::Unreadable, |m| Stamp::of(&m)),
            Err(e) => stamp_after_error(path, e),
        };
        note(path, stamp);
    }
    opened
}

fn open_regular_unlogged(path: &Path) -> io::Result<File> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular(&meta.file_type()));
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(&meta.file_type()));
    }
    Ok(file)
}

/// Whether `path` names a zstd-compressed transcript (`*.zst`, e.g. a
/// Codex `rollout-….jsonl.zst`, docs/transcripts.md#codex-files).
pub fn is_zst(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "zst")
}

/// Whether `path`'s name is a JSON Lines transcript's: `*.jsonl`, or
/// `*.jsonl.zst` (compressed Codex rollouts).
pub fn is_jsonl_name(path: &Path) -> bool {
    if path.extension().is_some_and(|e| e == "jsonl") {
        return true;
    }
    is_zst(path)
        && path
            .file_stem()
            .is_some_and(|stem| Path::new(stem).extension().is_some_and(|e| e == "jsonl"))
}

/// The name of `path` without `.jsonl` / `.jsonl.zst` (the session id
/// part of a rollout's name); the file stem for other names.
pub fn transcript_stem(path: &Path) -> Option<&std::ffi::OsStr> {
    let stem = path.file_stem()?;
    if is_zst(path) {
        let inner = Path::new(stem);
        if inner.extension().is_some_and(|e| e == "jsonl") {
            return inner.file_stem();
        }
    }
    Some(stem)
}

/// Opens a regular file for streaming its text: as is, or decompressed
/// on the fly when it is `*.zst` ([`is_zst`]); never read whole into
/// memory. A truncated or corrupt `.zst` gives a read error where the
/// damage starts (the lines before it are read).
///
/// # Errors
/// As [`open_regular`]; for `.zst`, the decoder's set-up error.
pub fn open_decoded(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    let file = open_regular(path)?;
    if is_zst(path) {
        return Ok(Box::new(zstd::stream::read::Decoder::new(file)?));
    }
    Ok(Box::new(file))
}

/// Whether the first bytes of a `.zst` file decompress: `Ok` when its
/// first block decodes (or the file is empty), else the decoder's error.
///
/// # Errors
/// As [`open_decoded`], or the first read's error (`Unknown frame
/// descriptor`, an incomplete frame, …).
pub fn check_decodes(path: &Path) -> io::Result<()> {
    let mut reader = open_decoded(path)?;
    let mut byte = [0u8; 1];
    reader.read(&mut byte).map(|_| ())
}

/// Calls `on_line(line_no, bytes)` for each line of the text of `path` as
/// the loaders read it ([`open_decoded`]: a `.zst` decompressed; lines
/// numbered from 1, each with its newline if it has one), up to line
/// `last`, reading at most `cap` bytes of text: one line in memory at a
/// time. `Ok(true)` when line `last` or the end of the text was reached,
/// `Ok(false)` when `cap` stopped it first.
///
/// # Errors
/// As [`open_decoded`]; a read error (a damaged `.zst`) after the lines
/// before it were handed over.
pub fn each_line_until(
    path: &Path,
    last: usize,
    cap: u64,
    mut on_line: impl FnMut(usize, &[u8]),
) -> io::Result<bool> {
    use std::io::{BufRead, BufReader};
    let mut reader = BufReader::new(open_decoded(path)?.take(cap));
    let mut buf: Vec<u8> = Vec::new();
    for line_no in 1..=last {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(reader.get_ref().limit() > 0);
        }
        if !buf.ends_with(b"\n") && reader.get_ref().limit() == 0 {
            return Ok(false); // cut by the cap inside the line
        }
        on_line(line_no, &buf);
    }
    Ok(true)
}

/// Reads a regular file whole, refusing one longer than `cap` bytes.
///
/// # Errors
/// As [`open_regular`]; a read error; or `InvalidData` `larger than <cap>
/// bytes` when the file holds more than `cap` bytes (at most `cap + 1` are
/// read).
pub fn read_capped(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {cap} bytes"),
        ));
    }
    Ok(bytes)
}

/// Calls `each` on the bytes of the regular file `path` in pieces of at
/// most `piece` bytes, each ending at a line end (the last at the end of
/// the file as long as it was when opened, so a file still being written
/// ends). `Ok(false)` when a line is longer than `piece` (the rest is not
/// read); the error of [`open_regular`] or of a read. The backtest's
/// prefilters read a big transcript this way (docs/replay-and-backtest.md#replay-and-backtest).
pub fn scan_in_pieces(path: &Path, piece: usize, each: &mut dyn FnMut(&[u8])) -> io::Result<bool> {
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    let mut file = file.take(len);
    let mut buf: Vec<u8> = Vec::new();
    loop {
        let want = piece.saturating_sub(buf.len());
        let n = (&mut file).take(want as u64).read_to_end(&mut buf)?;
        if n < want {
            if !buf.is_empty() {
                each(&buf);
            }
            return Ok(true);
        }
        match memchr::memrchr(b'\n', &buf) {
            Some(nl) => {
                each(&buf[..=nl]);
                buf.drain(..=nl);
            }
            None => return Ok(false),
        }
    }
}

/// What a path was when it was touched, and what [`stamp`] finds now: two
/// equal stamps mean the loader would see the same thing there (a file's
/// size and mtime are the same test the index makes for main files).
///
/// Text form (one field of an index `deps` line, see [`Stamp::parse`]):
/// `<size>\t<mtime_ns>\t<ctime_ns>\t<inode>` for a file, `dir\t<mtime_ns>` for a folder,
/// `!<kind>` for a FIFO, device or socket ([`kind_of`]), `-` when absent,
/// `?` when unreadable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Stamp {
    /// A regular file: its length in bytes and its mtime in nanoseconds
    /// since the epoch (negative before 1970).
    File {
        /// Length in bytes.
        size: u64,
        /// mtime, ns since the epoch.
        mtime_ns: i64,
        /// ctime (inode change time), ns since the epoch: a file rewritten
        /// with its size and mtime restored (`cp -p`, `rsync -t`, `touch
        /// -r`) still has a new ctime (0 where the platform has none).
        ctime_ns: i64,
        /// The inode number (a file replaced by a rename has another; 0
        /// where the platform has none).
        ino: u64,
    },
    /// A folder: its mtime (ns since the epoch), which on Unix changes when
    /// an entry is added, removed or renamed.
    Folder {
        /// mtime, ns since the epoch.
        mtime_ns: i64,
    },
    /// A FIFO, device or socket ([`kind_of`]'s word): never read.
    Special(&'static str),
    /// Nothing there (`NotFound`, or a path through a non-folder).
    Absent,
    /// There, but `stat` or opening it failed (permissions, I/O error).
    Unreadable,
}

/// The special kinds [`kind_of`] names (for [`Stamp::parse`]).
const SPECIAL_KINDS: &[&str] = &[
    "FIFO",
    "character device",
    "block device",
    "socket",
    "special file",
];

/// Signed nanoseconds since the epoch (`i64::MIN`/`MAX` when out of range).
/// A file's ctime (ns since the epoch) and inode number: what changes when
/// its content is rewritten even if its size and mtime are put back
/// (docs/security.md "The index"). `(0, 0)` off Unix.
pub fn change_id(meta: &Metadata) -> (i64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let ns = meta
            .ctime()
            .saturating_mul(1_000_000_000)
            .saturating_add(meta.ctime_nsec());
        (ns, meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0, 0)
    }
}

/// Whether `path`'s ctime says nothing of its content: a SQLite `-wal`
/// file (an OpenCode database's), whose ctime opening the database may
/// change, even read-only (SQLite gives the file back to its owner when run
/// as root); its writes always move its mtime. Identities leave such a
/// ctime out (the index's `deps`, a kept discovery's fingerprint).
pub fn ctime_is_noise(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.as_encoded_bytes().ends_with(b"-wal"))
}

/// Signed nanoseconds since the epoch of a file time (`i64::MIN`/`MAX`
/// when out of range, 0 when the platform has none).
pub(crate) fn signed_ns(t: io::Result<SystemTime>) -> i64 {
    match t {
        Ok(t) => match t.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
            Err(e) => i64::try_from(e.duration().as_nanos()).map_or(i64::MIN, |n| -n),
        },
        Err(_) => 0,
    }
}

impl Stamp {
    /// The stamp of `stat`'s answer (following symlinks).
    pub fn of(meta: &Metadata) -> Stamp {
        let mtime_ns = signed_ns(meta.modified());
        if meta.is_file() {
            let (ctime_ns, ino) = change_id(meta);
            Stamp::File {
                size: meta.len(),
                mtime_ns,
                ctime_ns,
                ino,
            }
        } else if meta.is_dir() {
            Stamp::Folder { mtime_ns }
        } else {
            Stamp::Special(kind_of(&meta.file_type()))
        }
    }

    /// The stamp of a failed `stat`/open: [`Stamp::Absent`] for `NotFound`
    /// and `NotADirectory`, else [`Stamp::Unreadable`].
    pub fn of_error(err: &io::Error) -> Stamp {
        match err.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => Stamp::Absent,
            _ => Stamp::Unreadable,
        }
    }

    /// Parses the text form ([`Stamp`]'s `Display`); `None` for anything
    /// else.
    pub fn parse(text: &str) -> Option<Stamp> {
        match text {
            "-" => return Some(Stamp::Absent),
            "?" => return Some(Stamp::Unreadable),
            _ => {}
        }
        if let Some(kind) = text.strip_prefix('!') {
            return SPECIAL_KINDS
                .iter()
                .find(|k| **k == kind)
                .map(|k| Stamp::Special(k));
        }
        let mut fields = text.split('\t');
        let a = fields.next()?;
        let mtime_ns: i64 = fields.next()?.parse().ok()?;
        if a == "dir" {
            return fields
                .next()
                .is_none()
                .then_some(Stamp::Folder { mtime_ns });
        }
        let ctime_ns: i64 = fields.next()?.parse().ok()?;
        let ino: u64 = fields.next()?.parse().ok()?;
        if fields.next().is_some() {
            return None;
        }
        Some(Stamp::File {
            size: a.parse().ok()?,
            mtime_ns,
            ctime_ns,
            ino,
        })
    }
}

impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stamp::File {
                size,
                mtime_ns,
                ctime_ns,
                ino,
            } => write!(f, "{size}\t{mtime_ns}\t{ctime_ns}\t{ino}"),
            Stamp::Folder { mtime_ns } => write!(f, "dir\t{mtime_ns}"),
            Stamp::Special(kind) => write!(f, "!{kind}"),
            Stamp::Absent => f.write_str("-"),
            Stamp::Unreadable => f.write_str("?"),
        }
    }
}

/// What `path` is now, by one `stat` (following symlinks), as the read log
/// would stamp it. With `open`, a regular file or folder is also opened (a
/// file) or listed (a folder), and one that cannot be is
/// [`Stamp::Unreadable`]: the check for a path logged as unreadable (its
/// `stat` may succeed while opening fails).
pub fn stamp(path: &Path, open: bool) -> Stamp {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => return Stamp::of_error(&e),
    };
    let stamp = Stamp::of(&meta);
    if open {
        let readable = match stamp {
            Stamp::File { .. } => open_regular_unlogged(path).is_ok(),
            Stamp::Folder { .. } => std::fs::read_dir(path).is_ok(),
            _ => true,
        };
        if !readable {
            return Stamp::Unreadable;
        }
    }
    stamp
}

/// The stamp of a path [`open_regular`] failed on.
fn stamp_after_error(path: &Path, err: &io::Error) -> Stamp {
    if is_not_regular(err) {
        // A folder or special file: what it is (never read, whatever it holds).
        return match std::fs::metadata(path) {
            Ok(m) if !m.is_file() => Stamp::of(&m),
            _ => Stamp::Unreadable,
        };
    }
    match err.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => Stamp::Absent,
        _ => Stamp::Unreadable,
    }
}

/// One path the read log holds: what [`record`] returns.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Touched {
    /// The path as the loader named it.
    pub path: PathBuf,
    /// What it was when touched (before any byte or entry was read).
    pub stamp: Stamp,
}

thread_local! {
    /// The current thread's read log while [`record`] runs.
    static LOG: RefCell<Option<Vec<Touched>>> = const { RefCell::new(None) };
}

fn recording() -> bool {
    LOG.with(|log| log.borrow().is_some())
}

fn note(path: &Path, stamp: Stamp) {
    LOG.with(|log| {
        if let Some(list) = log.borrow_mut().as_mut() {
            list.push(Touched {
                path: path.to_path_buf(),
                stamp,
            });
        }
    });
}

/// Puts the outer log back, also when the closure panics.
struct Restore {
    outer: Option<Option<Vec<Touched>>>,
}

impl Restore {
    /// Takes this recording's log and restores the outer one, adding this
    /// one's entries to it (a nested recording's touches are the outer
    /// one's too).
    fn finish(mut self) -> Vec<Touched> {
        let mut outer = self.outer.take().flatten();
        let inner = LOG.with(|log| log.borrow_mut().take()).unwrap_or_default();
        if let Some(outer) = outer.as_mut() {
            outer.extend(inner.iter().cloned());
        }
        LOG.with(|log| *log.borrow_mut() = outer);
        inner
    }
}

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(outer) = self.outer.take() {
            LOG.with(|log| *log.borrow_mut() = outer);
        }
    }
}

/// Runs `f` with the read log on and returns its value and every path this
/// module touched on this thread meanwhile, in order (duplicates kept).
/// Touches made on other threads are not seen: a recorded loader must not
/// hand reads to rayon or other threads. Recordings nest (the inner one's
/// touches are also the outer one's).
pub fn record<T>(f: impl FnOnce() -> T) -> (T, Vec<Touched>) {
    let outer = LOG.with(|log| log.borrow_mut().replace(Vec::new()));
    let restore = Restore { outer: Some(outer) };
    let value = f();
    (value, restore.finish())
}

/// Runs `f` with this thread's read log off and returns its value: what
/// `f` touches is not the current recording's. For a cache kept across
/// loads (the OpenCode storage's parent links), whose validity the caller
/// records itself with [`noted_stamp`]. The log is back after `f`, also
/// when it panics.
pub fn unrecorded<T>(f: impl FnOnce() -> T) -> T {
    let outer = LOG.with(|log| log.borrow_mut().take());
    let _restore = Restore { outer: Some(outer) };
    f()
}

/// [`stamp`]`(path, false)`, also logged while recording: a path whose
/// current state a load depends on without reading it.
pub fn noted_stamp(path: &Path) -> Stamp {
    let now = stamp(path, false);
    note_stamp(path, now.clone());
    now
}

/// Logs `stamp` as `path`'s while recording: what a load read of it was
/// taken when the path had that stamp (earlier than now).
pub fn note_stamp(path: &Path, stamp: Stamp) {
    if recording() {
        note(path, stamp);
    }
}

/// The entries of folder `path` (their full paths, in the order the system
/// gives them; entries that fail to read are skipped), as
/// `std::fs::read_dir`. While recording, logs the folder's [`Stamp`]
/// (taken before listing; [`Stamp::Unreadable`] when it cannot be listed).
///
/// # Errors
/// `std::fs::read_dir`'s (`NotFound`, `NotADirectory`, `PermissionDenied`).
pub fn read_dir(path: &Path) -> io::Result<Vec<PathBuf>> {
    let before = recording().then(|| stamp(path, false));
    let listed = std::fs::read_dir(path)
        .map(|entries| entries.flatten().map(|e| e.path()).collect::<Vec<_>>());
    if let Some(before) = before {
        note(
            path,
            match (&listed, before) {
                // A folder that cannot be listed.
                (Err(_), Stamp::Folder { .. }) => Stamp::Unreadable,
                // Listed; or not a folder (absent, a file): what it is.
                (_, before) => before,
            },
        );
    }
    listed
}

/// `stat` of `path` (following symlinks), for existence and type checks
/// (`is_file`, `is_dir`): `None` when it fails. While recording, logs the
/// path's [`Stamp`].
pub fn probe(path: &Path) -> Option<Metadata> {
    let meta = std::fs::metadata(path);
    if recording() {
        note(
            path,
            match &meta {
                Ok(m) => Stamp::of(m),
                Err(e) => Stamp::of_error(e),
            },
        );
    }
    meta.ok()
}

/// `std::fs::canonicalize`. While recording, logs the path's [`Stamp`]
/// (the file it resolves to; a symlink retargeted to another file changes
/// it unless both have the same size and mtime).
///
/// # Errors
/// `std::fs::canonicalize`'s.
pub fn canonicalize(path: &Path) -> io::Result<PathBuf> {
    if recording() {
        note(path, stamp(path, false));
    }
    std::fs::canonicalize(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_and_dev_null_are_not_regular() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = open_regular(dir.path()).expect_err("a folder");
        assert!(is_not_regular(&err));
        assert_eq!(err.to_string(), "not a regular file (folder)");
        #[cfg(unix)]
        {
            let err = open_regular(Path::new("/dev/null")).expect_err("a device");
            assert_eq!(err.to_string(), "not a regular file (character device)");
        }
    }

    #[test]
    fn record_logs_files_folders_probes_and_absences_with_their_stamps() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("f.json");
        std::fs::write(&file, b"12345").expect("write");
        let missing = dir.path().join("missing.json");
        let ((), touched) = record(|| {
            assert_eq!(read_capped(&file, 10).expect("read"), b"12345");
            assert!(read_capped(&missing, 10).is_err());
            assert_eq!(read_dir(dir.path()).expect("list").len(), 1);
            assert!(probe(&missing).is_none());
            assert!(open_regular(dir.path()).is_err());
        });
        let meta = std::fs::metadata(&file).expect("stat");
        let dir_stamp = stamp(dir.path(), false);
        assert!(matches!(dir_stamp, Stamp::Folder { .. }));
        let want = vec![
            Touched {
                path: file.clone(),
                stamp: Stamp::File {
                    size: 5,
                    mtime_ns: signed_ns(meta.modified()),
                    ctime_ns: change_id(&meta).0,
                    ino: change_id(&meta).1,
                },
            },
            Touched {
                path: missing.clone(),
                stamp: Stamp::Absent,
            },
            Touched {
                path: dir.path().to_path_buf(),
                stamp: dir_stamp.clone(),
            },
            Touched {
                path: missing.clone(),
                stamp: Stamp::Absent,
            },
            Touched {
                path: dir.path().to_path_buf(),
                stamp: dir_stamp,
            },
        ];
        assert_eq!(touched, want);
        // Each stamp is what a later `stamp` finds while nothing changes.
        for t in &touched {
            assert_eq!(stamp(&t.path, false), t.stamp, "{}", t.path.display());
        }
        // Outside a recording nothing is logged.
        let (_, empty) = record(|| ());
        assert!(empty.is_empty());
    }

    #[test]
    fn recordings_nest_and_survive_a_panic() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        let (inner, outer) = record(|| {
            probe(&a);
            let ((), inner) = record(|| {
                probe(&b);
            });
            inner
        });
        let paths = |t: &[Touched]| t.iter().map(|t| t.path.clone()).collect::<Vec<_>>();
        assert_eq!(paths(&inner), vec![b.clone()]);
        assert_eq!(paths(&outer), vec![a.clone(), b.clone()]);
        let panicked = std::panic::catch_unwind(|| record(|| panic!("boom")));
        assert!(panicked.is_err());
        // The log is off again: a probe outside a recording is not kept.
        probe(&a);
        let ((), after) = record(|| {
            probe(&b);
        });
        assert_eq!(paths(&after), vec![b]);
    }

    #[test]
    fn unrecorded_touches_stay_out_of_the_log_and_noted_stamps_go_in() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&b, b"xy").expect("write");
        let (stamped, log) = record(|| {
            unrecorded(|| {
                probe(&a);
            });
            let panicked = std::panic::catch_unwind(|| unrecorded(|| panic!("boom")));
            assert!(panicked.is_err());
            noted_stamp(&b)
        });
        assert!(matches!(stamped, Stamp::File { size: 2, .. }));
        assert_eq!(
            log,
            vec![Touched {
                path: b.clone(),
                stamp: stamped
            }]
        );
        // Outside a recording, a noted stamp is only returned.
        assert_eq!(noted_stamp(&a), Stamp::Absent);
    }

    #[test]
    fn stamps_round_trip_through_their_text() {
        for stamp in [
            Stamp::File {
                size: 12,
                mtime_ns: -5,
                ctime_ns: 7,
                ino: 99,
            },
            Stamp::Folder {
                mtime_ns: 1_796_191_394_093_450_000,
            },
            Stamp::Special("FIFO"),
            Stamp::Special("character device"),
            Stamp::Absent,
            Stamp::Unreadable,
        ] {
            assert_eq!(Stamp::parse(&stamp.to_string()), Some(stamp.clone()));
        }
        assert_eq!(Stamp::parse("!door"), None);
        assert_eq!(Stamp::parse("x\t1"), None);
        // The two-field form of schema 7 and older is not a file stamp now.
        assert_eq!(Stamp::parse("3\t9"), None);
        assert_eq!(
            Stamp::File {
                size: 3,
                mtime_ns: 9,
                ctime_ns: 10,
                ino: 4
            }
            .to_string(),
            "3\t9\t10\t4"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_stamped_special_and_not_opened() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("s.settings.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        let (read, touched) = record(|| read_capped(&fifo, 10));
        assert!(read.is_err());
        assert_eq!(touched[0].stamp, Stamp::Special("FIFO"));
        assert_eq!(stamp(&fifo, true), Stamp::Special("FIFO"));
    }

    #[test]
    fn read_capped_refuses_a_longer_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("x");
        std::fs::write(&path, b"12345").expect("write");
        assert_eq!(read_capped(&path, 5).expect("fits"), b"12345");
        let err = read_capped(&path, 4).expect_err("too long");
        assert_eq!(err.to_string(), "larger than 4 bytes");
    }

    fn pieces(text: &[u8], piece: usize) -> (Option<bool>, Vec<Vec<u8>>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, text).expect("write");
        let mut got = Vec::new();
        let ok = scan_in_pieces(&path, piece, &mut |b| got.push(b.to_vec())).ok();
        (ok, got)
    }

    /// Pieces end at line ends, a last line without one comes whole, and
    /// together they are the file.
    #[test]
    fn a_file_is_scanned_in_pieces_cut_at_line_ends() {
        let (ok, got) = pieces(b"aa\nbbb\ncc\ndddd", 8);
        assert_eq!(ok, Some(true));
        assert_eq!(got, [b"aa\nbbb\n".to_vec(), b"cc\ndddd".to_vec()]);
        let (ok, got) = pieces(b"a\nb\n", 2);
        assert_eq!(ok, Some(true));
        assert_eq!(got, [b"a\n".to_vec(), b"b\n".to_vec()]);
    }

    /// A line longer than a piece stops the scan (the caller loads the
    /// session without the prefilter); a FIFO is refused, not read.
    #[test]
    fn a_line_longer_than_a_piece_or_a_fifo_is_not_scanned() {
        let (ok, got) = pieces(b"a\nbbbbbbbbbb\nc\n", 4);
        assert_eq!(ok, Some(false));
        assert_eq!(got, [b"a\n".to_vec()]);
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("f.jsonl");
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("path");
        // SAFETY: a valid C string; mkfifo only creates the node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(scan_in_pieces(&fifo, 8, &mut |_| {}).is_err());
    }
}
