//! What a discovery read, by identity: the folders it listed and the files
//! it opened, each with its [`Ident`] taken before it was read. While every
//! entry still has the same identity, the discovery would find the same
//! sessions again, so a stored one can be used without walking
//! (docs/cli.md#index, "Answering without a walk"). The index keeps it
//! (`index::discovery`, which also owns its stored form).
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
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(e) if fsread::Stamp::of_error(&e) == fsread::Stamp::Absent => return Ident::Absent,
            Err(_) => return Ident::Unreadable,
        };
        let kind = match (meta.is_file(), meta.is_dir()) {
            (true, _) => b'f',
            (_, true) => b'd',
            _ => return Ident::Special,
        };
        let (ctime_ns, ino) = fsread::change_id(&meta);
        Ident::Entry {
            kind,
            size: meta.len(),
            mtime_ns: fsread::signed_ns(meta.modified()),
            ctime_ns,
            ino,
        }
    }

    /// [`Ident::of`] as a fingerprint keeps it: without the ctime (0) of a
    /// path whose ctime is noise ([`fsread::ctime_is_noise`]).
    pub fn kept(path: &Path) -> Ident {
        let mut ident = Ident::of(path);
        if fsread::ctime_is_noise(path)
            && let Ident::Entry { ctime_ns, .. } = &mut ident
        {
            *ctime_ns = 0;
        }
        ident
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
