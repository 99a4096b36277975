//! One process indexes at a time (docs/cli.md "Index"): a sync with
//! [`WAIT_MIN_SESSIONS`] or more sessions to (re-)index first takes an exclusive advisory lock on
//! `index.sqlite.build-lock` beside the index ([`BuildLock`]). A second
//! process that finds it taken does not parse the same sessions beside
//! the first (two cold builds at once each took twice as long): it waits,
//! reporting the first one's progress as the sessions it needs show up in
//! the index, then plans again and reuses what the first one wrote.
//!
//! The lock is the operating system's (`flock(LOCK_EX | LOCK_NB)` on
//! Unix; none elsewhere): it goes with the process, so a builder that is
//! killed never leaves a stale lock behind. A waiter that sees the
//! holder write nothing to the index for [`STALLED_AFTER`] (any commit
//! counts: it may be indexing other sessions first) stops waiting and indexes
//! itself (a builder stopped with `SIGSTOP`, or one stuck on a slow disk,
//! does not hold every other process hostage). An in-memory index, or a
//! lock file that cannot be opened or locked (a file system without
//! locks, a symbolic link in its place), takes no lock: the sync runs as
//! before, SQLite's own locking keeping the file whole.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A sync with fewer sessions than this to index takes no lock and
/// waits for nobody: a live view re-reading the session being written
/// indexes it at once, beside a build, as two processes could before.
pub const WAIT_MIN_SESSIONS: usize = 8;

/// How long a waiter waits without seeing the holder write anything to the
/// index before it indexes its sessions itself: longer than the slowest
/// batch (256 MiB of transcript, or one larger session, parsed on two
/// cores).
pub const STALLED_AFTER: Duration = Duration::from_secs(30);

/// How often a waiter tries the lock again and counts what the builder
/// has indexed.
pub const POLL: Duration = Duration::from_millis(250);

/// The lock file beside the index file `index`: its name with
/// `.build-lock` appended.
pub fn lock_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_owned();
    name.push(".build-lock");
    PathBuf::from(name)
}

/// The build lock of one index file, opened (created, mode 0600, never
/// through a symbolic link) but not yet taken.
#[derive(Debug)]
pub struct BuildLock {
    file: File,
    held: bool,
}

/// What [`BuildLock::take`] ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    /// The lock was free at the first try.
    AtOnce,
    /// Another process held it; it was taken after waiting.
    AfterWaiting,
    /// Another process held it and wrote nothing to the index for the stall time:
    /// not taken, the caller indexes anyway.
    Stalled,
    /// The lock cannot be taken on this file system: the caller indexes
    /// without it.
    Unsupported,
}

impl BuildLock {
    /// Opens the lock file for the index file `index`. `None` when it
    /// cannot be opened (then no lock is taken, see the module doc).
    pub fn open(index: &Path) -> Option<BuildLock> {
        let path = lock_path(index);
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
        }
        let file = options.open(&path).ok()?;
        file.metadata().ok().filter(|m| m.is_file())?;
        Some(BuildLock { file, held: false })
    }

    /// Takes the lock, waiting while another process holds it. While it
    /// waits, every [`POLL`] it calls `waiting`, which reports progress
    /// and answers a value that changes whenever the holder writes to the
    /// index (SQLite's `data_version`: the holder may be indexing other
    /// sessions than the caller's first); it stops waiting when that value
    /// has not changed for `stalled_after`.
    pub fn take(&mut self, stalled_after: Duration, waiting: &mut dyn FnMut() -> i64) -> Taken {
        if self.held {
            return Taken::AtOnce;
        }
        let mut waited = false;
        let mut seen = None;
        let mut changed = Instant::now();
        loop {
            match try_lock(&self.file) {
                Some(true) => {
                    self.held = true;
                    return if waited {
                        Taken::AfterWaiting
                    } else {
                        Taken::AtOnce
                    };
                }
                Some(false) => {}
                None => return Taken::Unsupported,
            }
            waited = true;
            let done = waiting();
            if seen != Some(done) {
                seen = Some(done);
                changed = Instant::now();
            } else if changed.elapsed() >= stalled_after {
                return Taken::Stalled;
            }
            std::thread::sleep(POLL);
        }
    }

    /// Whether this process holds the lock.
    pub fn held(&self) -> bool {
        self.held
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        if self.held {
            unlock(&self.file);
        }
    }
}

/// `flock(LOCK_EX | LOCK_NB)`: `Some(true)` taken, `Some(false)` held by
/// another open file (another process), `None` when the file system
/// cannot lock.
#[cfg(unix)]
fn try_lock(file: &File) -> Option<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: `flock` on the descriptor of a file this struct keeps open.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Some(true);
    }
    let e = std::io::Error::last_os_error();
    (e.raw_os_error() == Some(libc::EWOULDBLOCK)).then_some(false)
}

#[cfg(not(unix))]
fn try_lock(_file: &File) -> Option<bool> {
    None
}

/// Whether another process holds the build lock of the index file
/// `index` now (asked without waiting): `false` when no one does, when
/// the lock file cannot be opened, or when locks are not supported here.
pub fn held_elsewhere(index: &Path) -> bool {
    let Some(lock) = BuildLock::open(index) else {
        return false;
    };
    match try_lock(&lock.file) {
        Some(true) => {
            unlock(&lock.file);
            false
        }
        Some(false) => true,
        None => false,
    }
}

/// Lets go of a lock [`try_lock`] took (closing the file would too).
#[cfg(unix)]
fn unlock(file: &File) {
    use std::os::unix::io::AsRawFd;
    // SAFETY: as in `try_lock`.
    unsafe {
        libc::flock(file.as_raw_fd(), libc::LOCK_UN);
    }
}

#[cfg(not(unix))]
fn unlock(_file: &File) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_and_takes_it_once_free() {
        let dir = tempfile::tempdir().expect("tempdir");
        let index = dir.path().join("index.sqlite");
        let mut first = BuildLock::open(&index).expect("lock file");
        assert_eq!(first.take(STALLED_AFTER, &mut || 0), Taken::AtOnce);
        assert!(first.held());
        let waiter = std::thread::spawn({
            let index = index.clone();
            move || {
                let mut second = BuildLock::open(&index).expect("lock file");
                let mut polls = 0;
                // The count grows each poll: never stalled.
                let taken = second.take(STALLED_AFTER, &mut || {
                    polls += 1;
                    polls
                });
                (taken, polls, second.held())
            }
        });
        std::thread::sleep(POLL * 3);
        drop(first);
        let (taken, polls, held) = waiter.join().expect("waiter");
        assert_eq!(taken, Taken::AfterWaiting);
        assert!(polls >= 2, "{polls}");
        assert!(held);
    }

    #[test]
    fn a_builder_that_indexes_nothing_is_not_waited_for_forever() {
        let dir = tempfile::tempdir().expect("tempdir");
        let index = dir.path().join("index.sqlite");
        let mut first = BuildLock::open(&index).expect("lock file");
        assert_eq!(first.take(STALLED_AFTER, &mut || 0), Taken::AtOnce);
        let mut second = BuildLock::open(&index).expect("lock file");
        assert_eq!(second.take(POLL * 2, &mut || 7), Taken::Stalled);
        assert!(!second.held());
        // Dropped, the first frees it for the next.
        drop(first);
        assert_eq!(second.take(POLL * 2, &mut || 7), Taken::AtOnce);
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_in_its_place_is_not_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let index = dir.path().join("index.sqlite");
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, b"keep").expect("write");
        std::os::unix::fs::symlink(&target, lock_path(&index)).expect("symlink");
        assert!(BuildLock::open(&index).is_none());
        assert_eq!(std::fs::read(&target).expect("read"), b"keep");
    }
}
