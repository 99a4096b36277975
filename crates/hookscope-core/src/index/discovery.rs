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

use super::build::{State, Synced, join_paths};
use super::{Index, path_bytes, path_from_bytes};
use crate::transcript::fingerprint::{Fingerprint, Ident};
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
            .flat_map(|old| super::build::dep_paths(&old.deps))
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
        if !self.current_in(&stored, &found.sessions).iter().all(|c| *c) {
            return;
        }
        let mut whole = fingerprint.clone();
        whole.entries.extend(deps);
        let whole = whole.sorted();
        let _ = self.conn.execute(
            "INSERT OR REPLACE INTO discoveries(roots, fingerprint, found) VALUES (?1, ?2, ?3)",
            params![
                join_paths(&found.roots),
                encode_fingerprint(&whole),
                encode_found(found)
            ],
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
                params![join_paths(roots)],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .ok()??;
        let (holds, found) = rayon::join(
            || decode_fingerprint(&fingerprint).is_some_and(|f| f.holds()),
            || decode_found(&found),
        );
        let mut found = found.filter(|_| holds)?;
        found.roots = roots.to_vec();
        Some(found)
    }
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
        // Tag 1: after the epoch, 2: before it (a file dated 1960), then
        // the distance from it.
        let since = s.modified.map(|t| match t.duration_since(UNIX_EPOCH) {
            Ok(d) => (1u8, d),
            Err(e) => (2u8, e.duration()),
        });
        match since {
            Some((tag, d)) => {
                out.push(tag);
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
            tag @ (1 | 2) => {
                let secs = r.u64()?;
                let d = Duration::new(secs, u32::try_from(r.u64()?).ok()?);
                Some(if tag == 1 {
                    UNIX_EPOCH.checked_add(d)?
                } else {
                    UNIX_EPOCH.checked_sub(d)?
                })
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

/// The compact binary form stored in the index: per entry, the path's
/// length (u32 LE) and bytes, a tag byte and, for an
/// [`Ident::Entry`], its kind, size, mtime, ctime and inode (8 bytes
/// each, LE).
fn encode_fingerprint(fingerprint: &Fingerprint) -> Vec<u8> {
    let mut out = Vec::with_capacity(fingerprint.entries.len() * 96);
    for (path, ident) in &fingerprint.entries {
        put_bytes(&mut out, &path_bytes(path));
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

/// The inverse of [`encode_fingerprint`]; `None` for bytes it did not
/// write (the caller then walks).
fn decode_fingerprint(bytes: &[u8]) -> Option<Fingerprint> {
    let mut r = Reader(bytes);
    let mut entries = Vec::new();
    while !r.0.is_empty() {
        let path = path_from_bytes(r.bytes()?);
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

/// Appends `bytes` with its length (u32 LE) before it.
fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    let n = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&bytes[..n as usize]);
}

/// Reads what [`put_bytes`] and little-endian integers wrote.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// `n` bytes, or `None` when fewer are left.
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    /// One byte.
    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    /// A little-endian u64.
    fn u64(&mut self) -> Option<u64> {
        let b = self.take(8)?;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    }

    /// A little-endian u32.
    fn u32(&mut self) -> Option<u32> {
        let b = self.take(4)?;
        Some(u32::from_le_bytes(b.try_into().ok()?))
    }

    /// Bytes written by [`put_bytes`].
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
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
        let bytes = encode_fingerprint(&fp);
        assert_eq!(decode_fingerprint(&bytes), Some(fp));
        assert_eq!(decode_fingerprint(&bytes[..bytes.len() - 3]), None);
        assert_eq!(decode_fingerprint(&[1, 0, 0, 0, b'x', b'z']), None);
    }

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
        // A file dated before 1970 keeps its time (not "no time").
        let mut old = found.sessions[0].clone();
        old.modified = UNIX_EPOCH.checked_sub(Duration::new(315_532_800, 7));
        let one = Discovery {
            sessions: vec![old],
            ..Discovery::default()
        };
        let back = decode_found(&encode_found(&one)).expect("decodes");
        assert_eq!(back.sessions, one.sessions);
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
            (encode_fingerprint(&Fingerprint::default()), vec![0xff; 9]),
            (
                vec![5, 0, 0, 0, b'/', b't', b'm', b'p', b'/', b'z'],
                Vec::new(),
            ),
        ] {
            index
                .conn
                .execute(
                    "INSERT OR REPLACE INTO discoveries(roots, fingerprint, found) VALUES (?1, ?2, ?3)",
                    params![join_paths(&roots), fingerprint, found],
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
                    join_paths(&roots),
                    encode_fingerprint(&Fingerprint::default()),
                    encode_found(&Discovery::default())
                ],
            )
            .expect("insert");
        assert!(index.stored_discovery(&roots).is_some());
    }
}
