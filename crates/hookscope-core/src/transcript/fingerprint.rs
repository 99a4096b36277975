//! What a discovery read, by identity: the folders it listed and the files
//! it opened, each with its [`Ident`] taken before it was read. While every
//! entry still has the same identity, the discovery would find the same
//! sessions again, so a stored one can be used without walking
//! (docs/cli.md#index, "Answering without a walk").
//!
//! A folder's ctime and mtime change when an entry is added, removed or
//! renamed in it (and its ctime when its permissions change); a file's
//! size, mtime, ctime and inode when it is written, rewritten with its size
//! and mtime put back, or replaced. Checking is one `stat` per entry, in
//! parallel.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::fsread;

/// One path's identity by `stat` (following symlinks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ident {
    /// A regular file or a folder: kind (`b'f'`, `b'd'`), size in bytes,
    /// mtime and ctime in ns since the epoch, inode.
    Entry {
        /// `b'f'` for a regular file, `b'd'` for a folder.
        kind: u8,
        /// Length in bytes.
        size: u64,
        /// mtime, ns since the epoch.
        mtime_ns: i64,
        /// ctime, ns since the epoch (0 where the platform has none).
        ctime_ns: i64,
        /// Inode number (0 where the platform has none).
        ino: u64,
    },
    /// A FIFO, device or socket.
    Special,
    /// Nothing there.
    Absent,
    /// `stat` failed otherwise (permissions, I/O).
    Unreadable,
}

impl Ident {
    /// The identity of `path` now, by one `stat`.
    pub fn of(path: &Path) -> Ident {
        match std::fs::metadata(path) {
            Ok(meta) => {
                let kind = if meta.is_file() {
                    b'f'
                } else if meta.is_dir() {
                    b'd'
                } else {
                    return Ident::Special;
                };
                let mtime_ns = match fsread::Stamp::of(&meta) {
                    fsread::Stamp::File { mtime_ns, .. } | fsread::Stamp::Folder { mtime_ns } => {
                        mtime_ns
                    }
                    _ => 0,
                };
                let (ctime_ns, ino) = fsread::change_id(&meta);
                Ident::Entry {
                    kind,
                    size: meta.len(),
                    mtime_ns,
                    ctime_ns,
                    ino,
                }
            }
            Err(e) => match fsread::Stamp::of_error(&e) {
                fsread::Stamp::Absent => Ident::Absent,
                _ => Ident::Unreadable,
            },
        }
    }
}

impl Ident {
    /// [`Ident::of`] as a fingerprint keeps it: for a SQLite `-wal` file
    /// (an OpenCode database's) the ctime is left out (0), because opening
    /// the database, even read-only, may change it (SQLite gives the file
    /// back to its owner when run as root); its writes move the mtime.
    pub fn kept(path: &Path) -> Ident {
        let ident = Ident::of(path);
        let wal = path
            .file_name()
            .is_some_and(|n| n.as_encoded_bytes().ends_with(b"-wal"));
        match ident {
            Ident::Entry {
                kind,
                size,
                mtime_ns,
                ino,
                ..
            } if wal => Ident::Entry {
                kind,
                size,
                mtime_ns,
                ctime_ns: 0,
                ino,
            },
            other => other,
        }
    }
}

/// The paths a discovery read, each with its identity when read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fingerprint {
    /// `(path, identity)`, in no particular order.
    pub entries: Vec<(PathBuf, Ident)>,
}

impl Fingerprint {
    /// Whether every entry still has its identity: one `stat` each, in
    /// parallel, stopping at the first change.
    pub fn holds(&self) -> bool {
        self.entries
            .par_iter()
            .with_min_len(256)
            .all(|(path, ident)| Ident::kept(path) == *ident)
    }

    /// The same entries sorted by path bytes, each path once.
    pub fn sorted(mut self) -> Fingerprint {
        self.entries
            .sort_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
        self.entries.dedup_by(|a, b| a.0 == b.0);
        self
    }

    /// The compact binary form stored in the index: per entry, the path's
    /// length (u32 LE) and bytes, a tag byte and, for an
    /// [`Ident::Entry`], its kind, size, mtime, ctime and inode (8 bytes
    /// each, LE).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.entries.len() * 96);
        for (path, ident) in &self.entries {
            put_bytes(&mut out, &crate::index::path_bytes(path));
            match ident {
                Ident::Entry {
                    kind,
                    size,
                    mtime_ns,
                    ctime_ns,
                    ino,
                } => {
                    out.push(*kind);
                    out.extend_from_slice(&size.to_le_bytes());
                    out.extend_from_slice(&mtime_ns.to_le_bytes());
                    out.extend_from_slice(&ctime_ns.to_le_bytes());
                    out.extend_from_slice(&ino.to_le_bytes());
                }
                Ident::Special => out.push(b's'),
                Ident::Absent => out.push(b'-'),
                Ident::Unreadable => out.push(b'?'),
            }
        }
        out
    }

    /// The inverse of [`Fingerprint::encode`]; `None` for bytes it did not
    /// write (the caller then walks).
    pub fn decode(bytes: &[u8]) -> Option<Fingerprint> {
        let mut r = Reader(bytes);
        let mut entries = Vec::new();
        while !r.0.is_empty() {
            let path = crate::index::path_from_bytes(r.bytes()?);
            let ident = match r.byte()? {
                kind @ (b'f' | b'd') => Ident::Entry {
                    kind,
                    size: r.u64()?,
                    mtime_ns: r.u64()? as i64,
                    ctime_ns: r.u64()? as i64,
                    ino: r.u64()?,
                },
                b's' => Ident::Special,
                b'-' => Ident::Absent,
                b'?' => Ident::Unreadable,
                _ => return None,
            };
            entries.push((path, ident));
        }
        Some(Fingerprint { entries })
    }
}

/// Appends `bytes` with its length (u32 LE) before it.
pub(crate) fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    let n = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&bytes[..n as usize]);
}

/// Reads what [`put_bytes`] and little-endian integers wrote.
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl<'a> Reader<'a> {
    /// `n` bytes, or `None` when fewer are left.
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    /// One byte.
    pub(crate) fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    /// A little-endian u64.
    pub(crate) fn u64(&mut self) -> Option<u64> {
        let b = self.take(8)?;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    }

    /// A little-endian u32.
    pub(crate) fn u32(&mut self) -> Option<u32> {
        let b = self.take(4)?;
        Some(u32::from_le_bytes(b.try_into().ok()?))
    }

    /// Bytes written by [`put_bytes`].
    pub(crate) fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

/// The key a stored discovery is filed under: its roots' path bytes, each
/// ended by a NUL byte (no path holds one).
pub fn roots_key(roots: &[PathBuf]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in roots {
        out.extend_from_slice(&crate::index::path_bytes(r));
        out.push(0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Encoding round-trips every kind of identity, and a truncated or
    /// unknown encoding is refused rather than misread.
    #[test]
    fn the_stored_form_round_trips_and_refuses_garbage() {
        let fp = Fingerprint {
            entries: vec![
                (
                    PathBuf::from("/a/b.jsonl"),
                    Ident::Entry {
                        kind: b'f',
                        size: 12,
                        mtime_ns: -5,
                        ctime_ns: 7,
                        ino: 9,
                    },
                ),
                (PathBuf::from("/a"), Ident::Absent),
                (PathBuf::from("/p"), Ident::Special),
                (PathBuf::from("/q"), Ident::Unreadable),
            ],
        };
        let bytes = fp.encode();
        assert_eq!(Fingerprint::decode(&bytes), Some(fp));
        assert_eq!(Fingerprint::decode(&bytes[..bytes.len() - 3]), None);
        assert_eq!(Fingerprint::decode(&[1, 0, 0, 0, b'x', b'z']), None);
    }

    /// A file rewritten with its size and mtime put back no longer holds
    /// (its ctime moved); an untouched one does.
    #[test]
    fn a_rewrite_with_size_and_mtime_restored_is_seen() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, b"{\"a\":1}\n").expect("write");
        let before = std::fs::metadata(&path).expect("meta");
        let fp = Fingerprint {
            entries: vec![(path.clone(), Ident::of(&path))],
        };
        assert!(fp.holds());
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&path, b"{\"a\":2}\n").expect("rewrite");
        let f = std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("open");
        f.set_modified(before.modified().expect("mtime"))
            .expect("restore mtime");
        let after = std::fs::metadata(&path).expect("meta");
        assert_eq!(after.len(), before.len());
        assert_eq!(after.modified().ok(), before.modified().ok());
        assert!(!fp.holds());
    }

    /// A real discovery's fingerprint holds while nothing changes, and one
    /// changed entry anywhere makes it fail.
    #[test]
    fn a_discovery_fingerprint_holds_until_one_entry_differs() {
        let corpus = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/real-cc-2.1.332"
        ));
        let (_, fp) = crate::transcript::discover_fingerprinted(&[corpus]).expect("corpus");
        let fp = fp.expect("a folder root").sorted();
        assert!(fp.entries.len() > 100);
        assert!(fp.holds());
        for at in [0, fp.entries.len() / 2, fp.entries.len() - 1] {
            let mut bad = fp.clone();
            match &mut bad.entries[at].1 {
                Ident::Entry { ctime_ns, .. } => *ctime_ns += 1,
                other => *other = Ident::Absent,
            }
            assert!(!bad.holds(), "entry {at} changed");
        }
        let mut gone = fp.clone();
        gone.entries
            .push((PathBuf::from("/nonexistent-hookscope/x"), Ident::Absent));
        assert!(gone.holds(), "an absent path that stays absent holds");
    }
}
