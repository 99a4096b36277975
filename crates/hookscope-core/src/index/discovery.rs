//! A discovery kept in the index, to answer without walking
//! (docs/cli.md#index, "Answering without a walk").
//!
//! After a question walked its roots and synced every session it found,
//! the discovery is stored with what it read
//! ([`crate::transcript::fingerprint::Fingerprint`]). The next question
//! over the same roots `stat`s those folders and files (in parallel) instead
//! of listing folders and sniffing files; when none changed, the stored
//! sessions are what a walk would find, and their rows are current (the
//! `discoveries` table is emptied whenever a session's rows are written or
//! removed, [`super::schema`]). Any change, or any session that was not
//! indexed, and the question walks as before.

use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use rayon::prelude::*;
use rusqlite::{OptionalExtension, params};

use super::build::{State, Synced};
use super::{Index, path_bytes, path_from_bytes};
use crate::transcript::fingerprint::{Fingerprint, Ident, Reader, put_bytes, roots_key};
use crate::transcript::{Agent, Diagnostic, Discovery, Locus, SessionRef};

impl Index {
    /// Keeps `found` (a whole discovery of its roots, with the
    /// `fingerprint` [`crate::transcript::discover_fingerprinted`] gave)
    /// for [`Index::stored_discovery`], when `synced` (the sync of exactly
    /// `found.sessions`) left every session [`State::Indexed`]. Nothing is
    /// kept otherwise, or when the index cannot be written (the next
    /// question walks).
    pub fn store_discovery(&self, found: &Discovery, fingerprint: &Fingerprint, synced: &Synced) {
        if synced.states.len() != found.sessions.len()
            || !synced.states.iter().all(|s| matches!(s, State::Indexed))
        {
            return;
        }
        // The rows also depend on what each session's loader read beyond
        // discovery (subagents' `.meta.json`, a Droid settings file, an
        // OpenCode message or part file): its stored `deps`. Their
        // identities are taken first, then every session is checked against
        // its rows; a change after that is seen by the next check.
        let Ok(stored) = self.stored() else {
            return;
        };
        let mut paths: Vec<PathBuf> = found
            .sessions
            .iter()
            .filter_map(|s| stored.get(&(path_bytes(&s.path), s.id.clone())))
            .flat_map(|old| dep_paths(&old.deps))
            .collect();
        paths.sort();
        paths.dedup();
        let deps: Vec<(PathBuf, Ident)> = paths
            .into_par_iter()
            .map(|p| {
                let ident = Ident::kept(&p);
                (p, ident)
            })
            .collect();
        if !self.current(&found.sessions).iter().all(|c| *c) {
            return;
        }
        let mut whole = fingerprint.clone();
        whole.entries.extend(deps);
        let whole = whole.sorted();
        let _ = self.conn.execute(
            "INSERT OR REPLACE INTO discoveries(roots, fingerprint, found) VALUES (?1, ?2, ?3)",
            params![roots_key(&found.roots), whole.encode(), encode_found(found)],
        );
    }

    /// The discovery of `roots` kept by [`Index::store_discovery`], when
    /// every folder and file it read is unchanged (one `stat` each): the
    /// sessions a walk would find, in its order, all indexed and current.
    /// `None` when none is kept, it cannot be read, or anything changed.
    pub fn stored_discovery(&self, roots: &[PathBuf]) -> Option<Discovery> {
        let (fingerprint, found): (Vec<u8>, Vec<u8>) = self
            .conn
            .query_row(
                "SELECT fingerprint, found FROM discoveries WHERE roots = ?1",
                params![roots_key(roots)],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .ok()??;
        let (holds, found) = rayon::join(
            || Fingerprint::decode(&fingerprint).is_some_and(|f| f.holds()),
            || decode_found(&found),
        );
        let mut found = found.filter(|_| holds)?;
        found.roots = roots.to_vec();
        Some(found)
    }
}

/// The paths named by a stored `deps` text (`index::build`: one
/// `path<TAB>stamp` line per file, folder or probe; the `=main` line is the
/// main file, which discovery's fingerprint holds).
fn dep_paths(deps: &str) -> Vec<PathBuf> {
    deps.lines()
        .filter(|l| !l.starts_with("=main\t"))
        .filter_map(|l| l.split_once('\t'))
        .filter_map(|(path, _)| super::build::unescape_path(path))
        .collect()
}

/// A [`Synced`] for sessions taken from [`Index::stored_discovery`]: every
/// one indexed and reused.
pub fn synced_stored(n: usize) -> Synced {
    Synced {
        states: (0..n).map(|_| State::Indexed).collect(),
        reused: vec![true; n],
        stats: super::build::SyncStats {
            sessions: n,
            reused: n,
            stored_discovery: true,
            ..Default::default()
        },
    }
}

/// Sessions then diagnostics, counted, each field as [`put_bytes`] or a
/// little-endian integer.
fn encode_found(found: &Discovery) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(found.sessions.len() as u64).to_le_bytes());
    for s in &found.sessions {
        put_bytes(&mut out, s.id.as_bytes());
        put_bytes(&mut out, s.agent.as_str().as_bytes());
        put_bytes(&mut out, &path_bytes(&s.path));
        out.extend_from_slice(&s.size.to_le_bytes());
        match s.modified.and_then(|t| t.duration_since(UNIX_EPOCH).ok()) {
            Some(d) => {
                out.push(1);
                out.extend_from_slice(&d.as_secs().to_le_bytes());
                out.extend_from_slice(&u64::from(d.subsec_nanos()).to_le_bytes());
            }
            None => out.push(0),
        }
        out.extend_from_slice(&(s.subagent_files.len() as u64).to_le_bytes());
        for f in &s.subagent_files {
            put_bytes(&mut out, &path_bytes(f));
        }
    }
    out.extend_from_slice(&(found.diagnostics.len() as u64).to_le_bytes());
    for d in &found.diagnostics {
        put_bytes(&mut out, &path_bytes(&d.path));
        match &d.locus {
            None => out.push(0),
            Some(Locus::Line(n)) => {
                out.push(1);
                out.extend_from_slice(&(*n as u64).to_le_bytes());
            }
            Some(Locus::Record(id)) => {
                out.push(2);
                put_bytes(&mut out, id.as_bytes());
            }
        }
        put_bytes(&mut out, d.message.as_bytes());
    }
    out
}

/// The inverse of [`encode_found`] (roots left empty); `None` for bytes it
/// did not write.
fn decode_found(bytes: &[u8]) -> Option<Discovery> {
    let mut r = Reader(bytes);
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).ok();
    let n = usize::try_from(r.u64()?).ok()?;
    let mut sessions = Vec::with_capacity(n.min(1 << 20));
    for _ in 0..n {
        let id = text(r.bytes()?)?;
        let agent: Agent = text(r.bytes()?)?.parse().ok()?;
        let path = path_from_bytes(r.bytes()?);
        let size = r.u64()?;
        let modified = match r.byte()? {
            0 => None,
            1 => {
                let secs = r.u64()?;
                let nanos = u32::try_from(r.u64()?).ok()?;
                UNIX_EPOCH.checked_add(Duration::new(secs, nanos))
            }
            _ => return None,
        };
        let k = usize::try_from(r.u64()?).ok()?;
        let mut subagent_files = Vec::with_capacity(k.min(1 << 16));
        for _ in 0..k {
            subagent_files.push(path_from_bytes(r.bytes()?));
        }
        sessions.push(SessionRef {
            id,
            agent,
            path,
            size,
            modified,
            subagent_files,
        });
    }
    let n = usize::try_from(r.u64()?).ok()?;
    let mut diagnostics = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        let path = path_from_bytes(r.bytes()?);
        let locus = match r.byte()? {
            0 => None,
            1 => Some(Locus::Line(usize::try_from(r.u64()?).ok()?)),
            2 => Some(Locus::Record(text(r.bytes()?)?)),
            _ => return None,
        };
        let message = text(r.bytes()?)?;
        diagnostics.push(Diagnostic {
            path,
            locus,
            message,
        });
    }
    r.0.is_empty().then_some(Discovery {
        sessions,
        diagnostics,
        roots: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus"))
    }

    /// The stored form gives back the same sessions and diagnostics, in
    /// order, for the whole corpus (every agent, subagents, ids that
    /// repeat); garbage is refused.
    #[test]
    fn a_discovery_round_trips() {
        let (found, _) = crate::transcript::discover_fingerprinted(&[corpus()]).expect("corpus");
        assert!(found.sessions.len() > 50);
        let back = decode_found(&encode_found(&found)).expect("decodes");
        assert_eq!(back.sessions, found.sessions);
        assert_eq!(back.diagnostics, found.diagnostics);
        let bytes = encode_found(&found);
        assert!(decode_found(&bytes[..bytes.len() - 1]).is_none());
        assert!(decode_found(&[9, 9, 9]).is_none());
    }

    /// Stored after a sync, the discovery is served while nothing changes;
    /// a new file in a listed folder, or a session re-indexed, and it is not.
    #[test]
    fn a_stored_discovery_is_served_until_something_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("projects");
        let project = root.join("-p");
        std::fs::create_dir_all(&project).expect("mkdir");
        let file = corpus().join(
            "real-cc-2.1.332/tools/projects/-home-dev-work-tools/e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl",
        );
        std::fs::copy(&file, project.join("a.jsonl")).expect("copy");
        let roots = vec![root.clone()];
        let mut index = Index::in_memory().expect("index");
        let (found, fp) = crate::transcript::discover_fingerprinted(&roots).expect("found");
        let fp = fp.expect("a folder root is fingerprinted");
        let synced = index.sync(&found.sessions, &mut |_| {});
        index.store_discovery(&found, &fp, &synced);
        let stored = index.stored_discovery(&roots).expect("served");
        assert_eq!(stored.sessions, found.sessions);
        // Another root set has none.
        assert!(
            index
                .stored_discovery(std::slice::from_ref(&project))
                .is_none()
        );
        // A new session file: the folder changed.
        std::fs::copy(&file, project.join("b.jsonl")).expect("copy");
        assert!(index.stored_discovery(&roots).is_none());
        // Stored again, then a session re-indexed: the row is gone.
        let (found, fp) = crate::transcript::discover_fingerprinted(&roots).expect("found");
        let synced = index.sync(&found.sessions, &mut |_| {});
        index.store_discovery(&found, &fp.expect("fp"), &synced);
        assert!(index.stored_discovery(&roots).is_some());
        let (again, _) = crate::transcript::discover_fingerprinted(&roots).expect("found");
        let mut changed = again.sessions.clone();
        changed[0].size += 1;
        index.sync(&changed, &mut |_| {});
        assert!(index.stored_discovery(&roots).is_none());
    }

    /// A kept row that is not what this build wrote (a truncated blob, an
    /// unknown tag, another program's bytes) is not served: the question
    /// walks.
    #[test]
    fn a_garbled_row_is_not_served() {
        let dir = tempfile::tempdir().expect("tempdir");
        let roots = vec![dir.path().to_path_buf()];
        let index = Index::in_memory().expect("index");
        for (fingerprint, found) in [
            (vec![1u8, 2, 3], encode_found(&Discovery::default())),
            (Fingerprint::default().encode(), vec![0xff; 9]),
            (
                vec![5, 0, 0, 0, b'/', b't', b'm', b'p', b'/', b'z'],
                Vec::new(),
            ),
        ] {
            index
                .conn
                .execute(
                    "INSERT OR REPLACE INTO discoveries(roots, fingerprint, found) VALUES (?1, ?2, ?3)",
                    params![roots_key(&roots), fingerprint, found],
                )
                .expect("insert");
            assert!(index.stored_discovery(&roots).is_none());
        }
        // The empty discovery of an empty folder, kept whole, is served.
        index
            .conn
            .execute(
                "INSERT OR REPLACE INTO discoveries(roots, fingerprint, found) VALUES (?1, ?2, ?3)",
                params![
                    roots_key(&roots),
                    Fingerprint::default().encode(),
                    encode_found(&Discovery::default())
                ],
            )
            .expect("insert");
        assert!(index.stored_discovery(&roots).is_some());
    }
}
