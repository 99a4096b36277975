//! The session list as the index last saw it ([`Index::listed`]), so the
//! TUI can draw its first frame before discovery has walked the roots
//! (first frame ≤ 200 ms on a heavy user's corpus: docs/benchmarks.md#heavy-user-benchmark).
//!
//! The list is provisional: it is what the last sync stored for the files
//! under the roots, not what is on disk now. The caller runs discovery
//! afterwards and takes its answer as the truth (sessions added, gone or
//! changed since; [`Index::sync`] then re-reads what changed).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::build::split_paths;
use super::query::{SUMMARY_COLUMNS, summary_from_row};
use super::{Index, path_bytes, path_from_bytes};
use crate::transcript::{Agent, Diagnostic, SessionRef, SessionSummary};

/// One stored session: the [`SessionRef`] discovery gave when it was indexed,
/// its summary and its diagnostics (the loader's, in order).
#[derive(Debug, Clone)]
pub struct Listed {
    /// Id, agent, main file, its size and mtime, subagent files, as stored.
    pub sref: SessionRef,
    /// The summary the loader made (its `path` is the main file).
    pub summary: SessionSummary,
    /// The session's diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Whether `path` is `root` or inside it (whole path components).
pub(super) fn under(path: &[u8], root: &[u8]) -> bool {
    let root = root.strip_suffix(b"/").unwrap_or(root);
    path == root
        || (path.len() > root.len()
            && path.starts_with(root)
            && (root.is_empty() || path[root.len()] == b'/'))
}

/// A stored `mtime_ns` as a time (`None` when absent or negative).
fn mtime(ns: Option<i64>) -> Option<SystemTime> {
    let ns = u64::try_from(ns?).ok()?;
    UNIX_EPOCH.checked_add(Duration::from_nanos(ns))
}

impl Index {
    /// The stored sessions whose main file is under one of `roots` (each a
    /// folder, compared as path bytes, whole components), in discovery's
    /// order (newest mtime first, then path, then id): what the TUI shows
    /// before discovery answers. Empty when a root is not a folder (a file
    /// PATH is discovered at once instead), when nothing is stored under
    /// the roots, or when the index cannot be read.
    pub fn listed(&self, roots: &[PathBuf]) -> Vec<Listed> {
        if !roots_are_folders(roots) {
            return Vec::new();
        }
        self.try_listed(roots).unwrap_or_default()
    }

    fn try_listed(&self, roots: &[PathBuf]) -> rusqlite::Result<Vec<Listed>> {
        let roots: Vec<Vec<u8>> = roots.iter().map(|r| path_bytes(r)).collect();
        let mut diagnostics = self.diagnostic_rows()?;
        let mut stmt = self.conn.prepare(&format!(
            "SELECT path, id, agent, size, mtime_ns, subagent_files, {SUMMARY_COLUMNS} FROM sessions"
        ))?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let path: Vec<u8> = r.get(0)?;
            if !roots.iter().any(|root| under(&path, root)) {
                continue;
            }
            let id: String = r.get(1)?;
            let Ok(agent) = r.get::<_, String>(2)?.parse::<Agent>() else {
                continue;
            };
            let sref = SessionRef {
                id: id.clone(),
                agent,
                path: path_from_bytes(&path),
                size: u64::try_from(r.get::<_, i64>(3)?).unwrap_or(0),
                modified: mtime(r.get(4)?),
                subagent_files: split_paths(&r.get::<_, Vec<u8>>(5)?),
            };
            let summary = summary_from_row(r, 6, &path, id.clone(), agent)?;
            let diagnostics = diagnostics.remove(&(path, id)).unwrap_or_default();
            out.push(Listed {
                sref,
                summary,
                diagnostics,
            });
        }
        out.sort_by(|a, b| {
            b.sref
                .modified
                .cmp(&a.sref.modified)
                .then_with(|| a.sref.path.cmp(&b.sref.path))
                .then_with(|| a.sref.id.cmp(&b.sref.id))
        });
        Ok(out)
    }
}

impl Index {
    /// The stored sessions whose id is exactly `id` and whose main file is
    /// under one of `roots` (folders, as [`Index::listed`]), as stored
    /// (size and mtime as indexed): what resolving a full session id needs
    /// without walking the roots. Empty when a root is not a folder or the
    /// index cannot be read.
    pub fn stored_with_id(&self, id: &str, roots: &[PathBuf]) -> Vec<SessionRef> {
        if !roots_are_folders(roots) {
            return Vec::new();
        }
        self.try_stored_with_id(id, roots).unwrap_or_default()
    }

    fn try_stored_with_id(&self, id: &str, roots: &[PathBuf]) -> rusqlite::Result<Vec<SessionRef>> {
        let roots: Vec<Vec<u8>> = roots.iter().map(|r| path_bytes(r)).collect();
        let mut stmt = self.conn.prepare(
            "SELECT path, agent, size, mtime_ns, subagent_files FROM sessions WHERE id = ?1",
        )?;
        let mut rows = stmt.query([id])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let path: Vec<u8> = r.get(0)?;
            if !roots.iter().any(|root| under(&path, root)) {
                continue;
            }
            let Ok(agent) = r.get::<_, String>(1)?.parse::<Agent>() else {
                continue;
            };
            out.push(SessionRef {
                id: id.to_string(),
                agent,
                path: path_from_bytes(&path),
                size: u64::try_from(r.get::<_, i64>(2)?).unwrap_or(0),
                modified: mtime(r.get(3)?),
                subagent_files: split_paths(&r.get::<_, Vec<u8>>(4)?),
            });
        }
        Ok(out)
    }
}

/// Whether every root is a folder (what [`Index::listed`] needs).
pub(super) fn roots_are_folders(roots: &[PathBuf]) -> bool {
    !roots.is_empty() && roots.iter().all(|r| Path::is_dir(r))
}

#[cfg(test)]
mod tests {
    use super::under;

    #[test]
    fn under_takes_whole_components() {
        assert!(under(b"/a/b/c.jsonl", b"/a/b"));
        assert!(under(b"/a/b/c.jsonl", b"/a/b/"));
        assert!(under(b"/a/b", b"/a/b"));
        assert!(!under(b"/a/bc/d.jsonl", b"/a/b"));
        assert!(!under(b"/x/b/c.jsonl", b"/a/b"));
    }
}
