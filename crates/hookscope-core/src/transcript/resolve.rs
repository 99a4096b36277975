//! One resolver for a SESSION argument, shared by every command that opens
//! one session (`show`, `payload`, `replay`, `hooks --activity`, `tail`, and
//! the MCP tools `hook_payload` / `replay_hook`; docs/cli.md "CLI").
//!
//! A SESSION is an id, a unique id prefix, or the path of the session's
//! file. One id may name several files: a `.jsonl` and its `.jsonl.zst`
//! copy, a backup in another folder. Asking for "more of the id" cannot
//! help then, so [`resolve_session`] compares the files: identical copies
//! (the same bytes, or the same text once a `.zst` is decompressed) resolve
//! to one of them, with the others named in [`Resolved::copies`]; files that
//! differ are listed ([`ResolveError::SameId`]) so the caller can pass one
//! path instead.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::discover::{SessionRef, sessions_named};
use super::model::Agent;

/// The session a SESSION argument names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved<'a> {
    /// The session to open: of identical copies, a plain (not `.zst`)
    /// file before a compressed one, then the first by path (so the choice
    /// does not depend on modification times).
    pub session: &'a SessionRef,
    /// The other files holding an identical copy of it (same id, same
    /// content), in that same order; empty when there is one file.
    pub copies: Vec<&'a SessionRef>,
}

impl Resolved<'_> {
    /// One line naming the identical copies not opened (`None` when there
    /// are none): `session <id> is also in <path>, <path> (identical
    /// copies); showing <path>`.
    pub fn note(&self) -> Option<String> {
        if self.copies.is_empty() {
            return None;
        }
        let others: Vec<String> = self
            .copies
            .iter()
            .map(|s| s.path.display().to_string())
            .collect();
        Some(format!(
            "session {} is also in {} (identical cop{}); showing {}",
            self.session.id,
            others.join(", "),
            if others.len() == 1 { "y" } else { "ies" },
            self.session.path.display()
        ))
    }
}

/// Why a SESSION argument names no single session.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// No session has that id, starts with it, or is in that file.
    #[error("no session matches {0:?}")]
    NoMatch(String),
    /// A prefix of several different ids (the first four are
    /// carried, sorted; `more` when there were others).
    #[error(
        "{wanted:?} matches {count} sessions ({}{}); give more of the id",
        ids.join(", "),
        if *more { ", …" } else { "" }
    )]
    Prefix {
        /// What was asked.
        wanted: String,
        /// How many different ids start with it.
        count: usize,
        /// The first four of them, sorted.
        ids: Vec<String>,
        /// Whether there are more than `ids`.
        more: bool,
    },
    /// One id in several files whose contents differ (or cannot be
    /// compared: a legacy OpenCode session's records are spread over many
    /// files): each file with its agent, plain files first, then by path.
    #[error(
        "{id:?} is the id of {} sessions in different files ({}); pass the file path instead",
        files.len(),
        files.iter().map(|(p, a)| format!("{} [{}]", p.display(), a.as_str())).collect::<Vec<_>>().join(", ")
    )]
    SameId {
        /// The id.
        id: String,
        /// The files, with their agents.
        files: Vec<(PathBuf, Agent)>,
    },
}

/// Resolves `wanted` among `sessions`: the one session whose main file is
/// the path `wanted` (compared as given, then by canonical path), else the
/// sessions [`sessions_named`] gives (exact id, else id prefix). Several
/// files of one id resolve to one when they are identical copies
/// ([`same_content`]); the files are read only then, each at most once
/// against the chosen one, so the cost is bounded by their sizes.
///
/// # Errors
/// [`ResolveError::NoMatch`], [`ResolveError::Prefix`] (a prefix of
/// several ids), [`ResolveError::SameId`] (one id, files that differ).
pub fn resolve_session<'a>(
    sessions: &'a [SessionRef],
    wanted: &str,
) -> Result<Resolved<'a>, ResolveError> {
    if let Some(by_path) = named_by_path(sessions, Path::new(wanted)) {
        return Ok(Resolved {
            session: by_path,
            copies: Vec::new(),
        });
    }
    let hits = sessions_named(sessions, wanted);
    let mut ids: Vec<&str> = hits.iter().map(|s| s.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    match ids.len() {
        0 => return Err(ResolveError::NoMatch(wanted.to_string())),
        1 => {}
        count => {
            return Err(ResolveError::Prefix {
                wanted: wanted.to_string(),
                count,
                ids: ids.iter().take(4).map(|s| s.to_string()).collect(),
                more: count > 4,
            });
        }
    }
    let mut hits = hits;
    hits.sort_by(|a, b| {
        super::fsread::is_zst(&a.path)
            .cmp(&super::fsread::is_zst(&b.path))
            .then_with(|| a.path.as_os_str().cmp(b.path.as_os_str()))
    });
    let chosen = hits[0];
    let copies: Vec<&SessionRef> = hits[1..].to_vec();
    if copies.iter().all(|c| same_content(chosen, c)) {
        Ok(Resolved {
            session: chosen,
            copies,
        })
    } else {
        Err(ResolveError::SameId {
            id: chosen.id.clone(),
            files: hits.iter().map(|s| (s.path.clone(), s.agent)).collect(),
        })
    }
}

/// The one session whose main file is `path`, if exactly one is (an
/// OpenCode database holds several: then none, and the id decides).
fn named_by_path<'a>(sessions: &'a [SessionRef], path: &Path) -> Option<&'a SessionRef> {
    let one = |found: Vec<&'a SessionRef>| (found.len() == 1).then(|| found[0]);
    if let Some(s) = one(sessions.iter().filter(|s| s.path == path).collect()) {
        return Some(s);
    }
    let name = path.file_name()?;
    let canonical = std::fs::canonicalize(path).ok()?;
    one(sessions
        .iter()
        .filter(|s| s.path.file_name() == Some(name))
        .filter(|s| std::fs::canonicalize(&s.path).is_ok_and(|c| c == canonical))
        .collect())
}

/// Whether two sessions are identical copies: the same agent and id, and
/// their main files and subagent files (paired in order) hold the same
/// text, a `.zst` compared decompressed ([`super::fsread::open_decoded`]).
/// A legacy OpenCode session file (`.json`) is never a copy: its messages
/// and parts lie in other files. A file that cannot be read differs.
pub fn same_content(a: &SessionRef, b: &SessionRef) -> bool {
    if a.agent != b.agent || a.id != b.id || a.subagent_files.len() != b.subagent_files.len() {
        return false;
    }
    if a.agent == Agent::OpenCode && a.path.extension().is_some_and(|e| e == "json") {
        return false;
    }
    std::iter::once((&a.path, &b.path))
        .chain(a.subagent_files.iter().zip(&b.subagent_files))
        .all(|(x, y)| same_text(x, y).unwrap_or(false))
}

/// Whether two files hold the same text (decompressed when `.zst`), read
/// side by side in 64 KiB pieces up to the first difference.
fn same_text(a: &Path, b: &Path) -> std::io::Result<bool> {
    if a == b {
        return Ok(true);
    }
    let plain = |p: &Path| !super::fsread::is_zst(p);
    if plain(a) && plain(b) && std::fs::metadata(a)?.len() != std::fs::metadata(b)?.len() {
        return Ok(false);
    }
    let mut x = super::fsread::open_decoded(a)?;
    let mut y = super::fsread::open_decoded(b)?;
    let mut bx = vec![0u8; 64 * 1024];
    let mut by = vec![0u8; 64 * 1024];
    loop {
        let n = fill(&mut x, &mut bx)?;
        let m = fill(&mut y, &mut by)?;
        if n != m || bx[..n] != by[..m] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

/// Reads until `buf` is full or the stream ends; the bytes read.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &[u8]) -> PathBuf {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, text).expect("write");
        path
    }

    fn codex(path: PathBuf, id: &str) -> SessionRef {
        SessionRef::codex(path, id.to_string())
    }

    #[test]
    fn identical_copies_resolve_to_the_plain_file_with_a_note() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = b"{\"a\":1}\n{\"b\":2}\n";
        let zst = write(
            dir.path(),
            "s.jsonl.zst",
            &zstd::encode_all(&text[..], 3).expect("zstd"),
        );
        let plain = write(dir.path(), "s.jsonl", text);
        let backup = write(dir.path(), "x/s.jsonl", text);
        let sessions = vec![
            codex(zst.clone(), "abc-1"),
            codex(plain.clone(), "abc-1"),
            codex(backup.clone(), "abc-1"),
        ];
        let r = resolve_session(&sessions, "abc").expect("resolved");
        assert_eq!(r.session.path, plain);
        assert_eq!(
            r.copies.iter().map(|s| s.path.clone()).collect::<Vec<_>>(),
            vec![backup.clone(), zst.clone()]
        );
        assert_eq!(
            r.note().expect("note"),
            format!(
                "session abc-1 is also in {}, {} (identical copies); showing {}",
                backup.display(),
                zst.display(),
                plain.display()
            )
        );
        // A path picks its own file, no note.
        let r = resolve_session(&sessions, &backup.to_string_lossy()).expect("by path");
        assert_eq!(r.session.path, backup);
        assert_eq!(r.note(), None);
    }

    #[test]
    fn differing_files_of_one_id_are_listed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = write(dir.path(), "a/s.jsonl", b"{\"a\":1}\n");
        let b = write(dir.path(), "b/s.jsonl", b"{\"a\":2}\n");
        let sessions = vec![codex(a.clone(), "abc-1"), codex(b.clone(), "abc-1")];
        let err = resolve_session(&sessions, "abc-1").expect_err("two files");
        assert_eq!(
            err.to_string(),
            format!(
                "\"abc-1\" is the id of 2 sessions in different files ({} [codex], {} [codex]); pass the file path instead",
                a.display(),
                b.display()
            )
        );
    }

    #[test]
    fn a_prefix_of_several_ids_asks_for_more_and_nothing_is_no_match() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sessions: Vec<SessionRef> = ["abc-1", "abc-2", "abd-3"]
            .iter()
            .map(|id| codex(write(dir.path(), &format!("{id}.jsonl"), b"{}\n"), id))
            .collect();
        assert_eq!(
            resolve_session(&sessions, "ab")
                .expect_err("prefix")
                .to_string(),
            "\"ab\" matches 3 sessions (abc-1, abc-2, abd-3); give more of the id"
        );
        assert_eq!(
            resolve_session(&sessions, "zz"),
            Err(ResolveError::NoMatch("zz".into()))
        );
        assert_eq!(
            resolve_session(&sessions, "abd")
                .expect("unique prefix")
                .session
                .id,
            "abd-3"
        );
    }

    #[test]
    fn same_text_compares_decompressed_and_stops_at_a_difference() {
        let dir = tempfile::tempdir().expect("tempdir");
        let big: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let mut other = big.clone();
        other[150_000] ^= 1;
        let a = write(dir.path(), "a.jsonl", &big);
        let b = write(
            dir.path(),
            "b.jsonl.zst",
            &zstd::encode_all(&big[..], 3).expect("zstd"),
        );
        let c = write(dir.path(), "c.jsonl", &other);
        let d = write(dir.path(), "d.jsonl.zst", b"not zstd");
        assert!(same_text(&a, &b).expect("read"));
        assert!(!same_text(&a, &c).expect("read"));
        assert!(!same_text(&a, &d).unwrap_or(false));
    }
}
