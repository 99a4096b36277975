//! Finding sessions on disk (docs/transcripts.md#claude-code-files, docs/transcripts.md#codex-files): main transcripts, and
//! the subagent files that belong to each.
//!
//! Roots: the PATHs given, else the default roots ([`default_roots`]):
//! `$CLAUDE_CONFIG_DIR/projects` (else `~/.claude/projects`) and
//! `$CODEX_HOME/sessions` (else `~/.codex/sessions`), each when it exists. A
//! PATH may be a projects folder, one project folder, any folder above them
//! (walked recursively), or one `.jsonl` file. A subagent file given as a
//! PATH stands for its parent session, loaded whole (all its subagent
//! files), as if the parent had been given.
//!
//! Each `.jsonl` found is classified without a full parse:
//! - `agent-*.jsonl`, or any file under a `subagents/` folder, is a subagent
//!   transcript: attached to `<dir>/<sessionId>.jsonl` (sibling layout, read
//!   from its first lines) or to the nearest ancestor folder `D` with a `D.jsonl`
//!   beside it (`<session>/subagents/…` layout). It is never a session itself;
//!   when no parent is found it becomes a diagnostic.
//! - any other file is a Claude Code session when its first lines look like a
//!   Claude Code transcript ([`sniff_claude_code`]), else a Codex session when
//!   they look like a Codex rollout ([`sniff_codex`]); other JSONL (hook
//!   captures, stream-json or `codex exec --json` output) is skipped.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rayon::prelude::*;

use super::fingerprint::{Fingerprint, Ident};

use super::model::{Agent, Diagnostic};
use super::sniff::{LineSniff, Sniffed, sniff_lines};

/// A session found on disk, before it is loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRef {
    /// The session id, never empty: the main file's stem (lossy,
    /// [`super::model::id_from_path`]) for Claude Code; for Codex the
    /// first `session_meta.payload.id`, else the rollout file name's trailing
    /// UUID, else the stem (as [`crate::transcript::codex::load_session`]).
    pub id: String,
    /// Which agent wrote it.
    pub agent: Agent,
    /// The main transcript.
    pub path: PathBuf,
    /// Size of the main file in bytes.
    pub size: u64,
    /// Modification time of the main file.
    pub modified: Option<SystemTime>,
    /// Subagent transcripts that belong to it, sorted by path.
    pub subagent_files: Vec<PathBuf>,
}

impl SessionRef {
    /// A Claude Code session at `path` (id = the file stem; size and mtime
    /// from a `stat`, 0 / `None` when it fails).
    pub fn claude_code(path: PathBuf, subagent_files: Vec<PathBuf>) -> SessionRef {
        let meta = std::fs::metadata(&path).ok();
        SessionRef {
            id: super::model::id_from_path(&path),
            agent: Agent::ClaudeCode,
            size: meta.as_ref().map_or(0, |m| m.len()),
            modified: meta.and_then(|m| m.modified().ok()),
            path,
            subagent_files,
        }
    }

    /// A Codex rollout at `path` with session id `id` (size and mtime from a
    /// `stat`, 0 / `None` when it fails; no subagent files yet: discovery
    /// adds the rollouts forked or spawned from it).
    pub fn codex(path: PathBuf, id: String) -> SessionRef {
        let meta = std::fs::metadata(&path).ok();
        SessionRef {
            id,
            agent: Agent::Codex,
            size: meta.as_ref().map_or(0, |m| m.len()),
            modified: meta.and_then(|m| m.modified().ok()),
            path,
            subagent_files: Vec::new(),
        }
    }

    /// A Factory Droid transcript at `path` with session id `id`
    /// (`session_start.id`, else the stem; no subagent files).
    pub fn droid(path: PathBuf, id: String) -> SessionRef {
        SessionRef {
            agent: Agent::Droid,
            ..SessionRef::codex(path, id)
        }
    }

    /// An OpenCode session: `path` is the database (`opencode.db`) or the
    /// legacy session file (`storage/session/<project>/<id>.json`); `size`
    /// is the file's (a database's plus its `-wal`), `modified` the
    /// session's `time_updated` (else the file's mtime).
    pub fn opencode(path: PathBuf, row: &super::opencode::SessionRow) -> SessionRef {
        let meta = std::fs::metadata(&path).ok();
        let wal_len =
            std::fs::metadata(super::opencode_sqlite::wal_of(&path)).map_or(0, |m| m.len());
        let updated = row
            .updated_ms
            .or(row.created_ms)
            .and_then(|ms| u64::try_from(ms).ok())
            .map(|ms| SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(ms));
        SessionRef {
            id: row.id.clone(),
            agent: Agent::OpenCode,
            size: meta.as_ref().map_or(0, |m| m.len()) + wal_len,
            modified: updated.or_else(|| meta.and_then(|m| m.modified().ok())),
            path,
            subagent_files: Vec::new(),
        }
    }

    /// Total bytes of the main file and its subagent files.
    pub fn total_bytes(&self) -> u64 {
        self.size
            + self
                .subagent_files
                .iter()
                .filter_map(|p| std::fs::metadata(p).ok())
                .map(|m| m.len())
                .sum::<u64>()
    }
}

/// What discovery found.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// Sessions, sorted by modification time, newest first.
    pub sessions: Vec<SessionRef>,
    /// Files that could not be used (orphaned subagent files, unreadable
    /// folders or files, FIFOs given as PATHs, folders beyond [`MAX_DEPTH`],
    /// symlink loops), sorted by path.
    pub diagnostics: Vec<Diagnostic>,
    /// The roots that were searched.
    pub roots: Vec<PathBuf>,
}

/// Errors that stop discovery.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    /// A PATH given by the user does not exist.
    #[error("no such file or directory: {0}")]
    Missing(PathBuf),
    /// A PATH given by the user is a file that is not a `.jsonl` transcript,
    /// an OpenCode database (`*.db`) or an OpenCode session file.
    #[error("not a .jsonl transcript, an OpenCode database or a folder: {0}")]
    NotTranscript(PathBuf),
}

/// The default roots: `$CLAUDE_CONFIG_DIR/projects` (else
/// `~/.claude/projects`), then `$CODEX_HOME/sessions` and
/// `$CODEX_HOME/archived_sessions` (else under `~/.codex`). Roots that do not exist are left out, so the result
/// may be empty. An empty variable counts as unset.
///
/// Then OpenCode's `$XDG_DATA_HOME/opencode` (else
/// `~/.local/share/opencode`): its `opencode.db` (1.2+) and its legacy
/// `storage/session` folder (≤ 1.1), and Factory Droid's
/// `~/.factory/sessions`, each when it exists.
pub fn default_roots() -> Vec<PathBuf> {
    default_root_candidates()
        .into_iter()
        .filter(|p| {
            if p.file_name().is_some_and(|n| n == "opencode.db") {
                p.is_file()
            } else {
                p.is_dir()
            }
        })
        .collect()
}

/// Every place [`default_roots`] looks, whether it exists or not, in its
/// order (the folders, then OpenCode's `opencode.db`): what a "no session
/// found" message names. Empty parts when there is no home folder.
pub fn default_root_candidates() -> Vec<PathBuf> {
    let base = |var: &str, dot_dir: &str| match std::env::var_os(var) {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::home_dir().map(|h| h.join(dot_dir)),
    };
    let opencode = base("XDG_DATA_HOME", ".local/share").map(|d| d.join("opencode"));
    [
        base("CLAUDE_CONFIG_DIR", ".claude").map(|b| b.join("projects")),
        base("CODEX_HOME", ".codex").map(|b| b.join("sessions")),
        base("CODEX_HOME", ".codex").map(|b| b.join("archived_sessions")),
        opencode.as_ref().map(|o| o.join("storage").join("session")),
        dirs::home_dir().map(|h| h.join(".factory").join("sessions")),
        opencode.map(|o| o.join("opencode.db")),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Discovers sessions under `paths` (or the default roots when empty).
///
/// # Errors
/// [`DiscoverError`] when a given PATH does not exist or is a non-`.jsonl` file.
pub fn discover(paths: &[PathBuf]) -> Result<Discovery, DiscoverError> {
    discover_with(paths, false).map(|(found, _)| found)
}

/// The roots [`discover`] searches for `paths`: `paths`, or
/// [`default_roots`] when empty.
pub fn roots_of(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() {
        default_roots()
    } else {
        paths.to_vec()
    }
}

/// [`discover`], and what it read ([`Fingerprint`]) when the result
/// depends on nothing else: every root a folder, every subagent's parent
/// found in a folder the walk listed. `None` otherwise (a PATH naming a
/// file, an orphaned subagent, a parent found above the roots): such a
/// discovery is walked every time.
///
/// # Errors
/// [`discover`]'s.
pub fn discover_fingerprinted(
    paths: &[PathBuf],
) -> Result<(Discovery, Option<Fingerprint>), DiscoverError> {
    discover_with(paths, true)
}

/// [`discover`]; with `fingerprint`, also each folder's and file's
/// identity before it is read (one more `stat` each), for
/// [`discover_fingerprinted`].
fn discover_with(
    paths: &[PathBuf],
    fingerprint: bool,
) -> Result<(Discovery, Option<Fingerprint>), DiscoverError> {
    let roots = roots_of(paths);
    let mut files = Vec::new();
    let mut diagnostics = Vec::new();
    let mut walked: Vec<(PathBuf, Ident)> = Vec::new();
    let mut closed = true;
    for root in &roots {
        let meta = std::fs::metadata(root).map_err(|_| DiscoverError::Missing(root.clone()))?;
        if !meta.is_file() && !meta.is_dir() {
            // A FIFO or device given as a PATH: never opened.
            closed = false;
            diagnostics.push(not_regular(root.clone(), &meta.file_type()));
            continue;
        }
        if meta.is_file() {
            closed = false;
            let ext = root.extension().and_then(|e| e.to_str());
            let opencode_file = ext == Some("db")
                || (ext == Some("json") && super::opencode_json::is_session_file(root));
            if opencode_file {
                let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
                files.push((root.clone(), true, canonical));
                continue;
            }
            if !super::fsread::is_jsonl_name(root) {
                return Err(DiscoverError::NotTranscript(root.clone()));
            }
            let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
            files.push((root.clone(), true, canonical));
            // A subagent file given alone stands for its parent session,
            // loaded whole (as if the parent had been given): the counts of
            // a session never depend on which of its files was named.
            let main = if is_subagent_file(root) {
                parent_of_subagent(root)
            } else {
                Some(root.clone())
            };
            if let Some(main) = main.as_ref().filter(|m| *m != root) {
                let canonical = std::fs::canonicalize(main).unwrap_or_else(|_| main.clone());
                files.push((main.clone(), true, canonical));
            }
            let root = main.as_ref().unwrap_or(root);
            // A main transcript given alone still brings its subagents: the
            // `<stem>/` folder beside it (2.1.x) and sibling `agent-*.jsonl`
            // files (2.0.x, attached below only when their sessionId matches).
            if !is_subagent_file(root)
                && let (Some(dir), Some(stem)) = (root.parent(), root.file_stem())
            {
                let session_dir = dir.join(stem);
                if session_dir.is_dir() {
                    walk_root(
                        &session_dir,
                        &mut files,
                        &mut diagnostics,
                        &mut walked,
                        fingerprint,
                    );
                }
                if let Ok(entries) = std::fs::read_dir(dir) {
                    for entry in entries.flatten() {
                        let path = entry.path();
                        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                        if name.starts_with("agent-")
                            && name.ends_with(".jsonl")
                            && parent_of_subagent(&path).as_deref() == Some(root.as_path())
                        {
                            let canonical =
                                std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                            files.push((path, false, canonical));
                        }
                    }
                }
            }
        } else {
            walk_root(root, &mut files, &mut diagnostics, &mut walked, fingerprint);
        }
    }
    // Byte order is enough to bring duplicates together (and much cheaper
    // than `Path`'s component-wise order); an explicit PATH sorts before
    // the same file found by walking, so `dedup` keeps the explicit one.
    //
    // The same file reached twice (through a symlinked folder and directly)
    // has one canonical path: the explicit one, else the one found without a
    // link (path == canonical), else the smallest path is kept.
    files.sort_by(|a, b| {
        a.2.as_os_str()
            .cmp(b.2.as_os_str())
            .then_with(|| b.1.cmp(&a.1))
            .then_with(|| (a.0 != a.2).cmp(&(b.0 != b.2)))
            .then_with(|| a.0.as_os_str().cmp(b.0.as_os_str()))
    });
    files.dedup_by(|a, b| a.2 == b.2);
    let mut files: Vec<(PathBuf, bool)> = files.into_iter().map(|(p, e, _)| (p, e)).collect();
    files.sort_by(|a, b| {
        a.0.as_os_str()
            .cmp(b.0.as_os_str())
            .then_with(|| b.1.cmp(&a.1))
    });
    files.dedup_by(|a, b| a.0 == b.0);

    // Sniffing reads and parses each file's first lines: in parallel.
    // The stat of each main file happens here too.
    enum Kind {
        Subagent,
        Main(SessionRef),
        /// A Codex rollout, with the parent its first `session_meta` names.
        Codex(SessionRef, Option<String>),
        /// An OpenCode database's sessions, or a note on it.
        Records(Vec<SessionRef>, Vec<Diagnostic>),
        Neither,
        Unreadable(std::io::Error),
        Undecodable(std::io::Error),
    }
    // Each file's identity before it is read (an OpenCode database's
    // `-wal` with it): a change after this is seen by the next check.
    let file_idents: Vec<(PathBuf, Ident)> = if fingerprint {
        files
            .par_iter()
            .flat_map_iter(|(path, _)| {
                let mut out = vec![(path.clone(), Ident::kept(path))];
                if path.extension().is_some_and(|e| e == "db") {
                    let wal = super::opencode_sqlite::wal_of(path);
                    out.push((wal.clone(), Ident::kept(&wal)));
                }
                out
            })
            .collect()
    } else {
        Vec::new()
    };
    let kinds: Vec<Kind> = files
        .par_iter()
        .map(|(path, explicit)| {
            let ext = path.extension().and_then(|e| e.to_str());
            if ext == Some("db") {
                return opencode_db(path, *explicit);
            }
            if ext == Some("json") {
                return opencode_json_session(path, *explicit);
            }
            if is_subagent_file(path) {
                return Kind::Subagent;
            }
            let lines = match super::sniff::sniff_file(path, 8) {
                Ok(lines) => lines,
                Err(err) => return Kind::Unreadable(err),
            };
            if lines.is_empty()
                && super::fsread::is_zst(path)
                && let Err(err) = super::fsread::check_decodes(path)
            {
                return Kind::Undecodable(err);
            }
            if looks_like_droid(&lines) {
                Kind::Main(SessionRef::droid(
                    path.clone(),
                    droid_session_id(&lines, path),
                ))
            } else if looks_like_claude_code(&lines) {
                Kind::Main(SessionRef::claude_code(path.clone(), Vec::new()))
            } else if looks_like_codex(&lines, path)
                || (*explicit && looks_like_legacy_codex_export(&lines))
            {
                let parent =
                    super::codex::read_lineage(path).and_then(|l| l.parent().map(str::to_string));
                Kind::Codex(
                    SessionRef::codex(path.clone(), codex_session_id(&lines, path)),
                    parent,
                )
            } else {
                Kind::Neither
            }
        })
        .collect();
    /// An OpenCode database: its listed sessions, or why it has none.
    fn opencode_db(path: &Path, explicit: bool) -> Kind {
        match super::opencode_sqlite::list_sessions(path) {
            Ok(rows) => Kind::Records(
                rows.iter()
                    .map(|r| SessionRef::opencode(path.to_path_buf(), r))
                    .collect(),
                Vec::new(),
            ),
            Err(e) if explicit || path.file_name().is_some_and(|n| n == "opencode.db") => {
                Kind::Records(
                    Vec::new(),
                    vec![Diagnostic::whole_file(
                        path,
                        format!("OpenCode database not read: {e}"),
                    )],
                )
            }
            Err(_) => Kind::Neither,
        }
    }
    /// A legacy OpenCode session file: a session unless it is a child
    /// whose parent file is beside it (the parent loads it). A child given
    /// as a PATH itself stands for its topmost ancestor beside it (as a
    /// Claude Code subagent file given alone opens its parent session):
    /// parents followed at most [`ANCESTORS_MAX`] times, a cycle stopping
    /// at the file it comes back to.
    fn opencode_json_session(path: &Path, explicit: bool) -> Kind {
        let mut diags = Vec::new();
        let Some(v) = super::opencode_json::read_object(path, &mut diags) else {
            return Kind::Records(Vec::new(), diags);
        };
        let row = super::opencode_json::session_row(path, &v);
        let parent_beside = |path: &Path, row: &super::opencode::SessionRow| {
            row.parent_id.as_ref().and_then(|p| {
                let file = path.parent()?.join(format!("{p}.json"));
                (!p.contains(['/', '\\']) && p != ".." && file.is_file()).then_some(file)
            })
        };
        let Some(mut parent) = parent_beside(path, &row) else {
            return Kind::Main(SessionRef::opencode(path.to_path_buf(), &row));
        };
        if !explicit {
            return Kind::Neither;
        }
        let mut seen = HashSet::from([path.to_path_buf()]);
        for _ in 0..ANCESTORS_MAX {
            if !seen.insert(parent.clone()) {
                break;
            }
            let Some(v) = super::opencode_json::read_object(&parent, &mut Vec::new()) else {
                break;
            };
            let up = super::opencode_json::session_row(&parent, &v);
            match parent_beside(&parent, &up) {
                Some(next) => parent = next,
                None => return Kind::Main(SessionRef::opencode(parent, &up)),
            }
        }
        Kind::Main(SessionRef::opencode(path.to_path_buf(), &row))
    }
    let mut mains: HashMap<PathBuf, SessionRef> = HashMap::new();
    let mut codex_parents: HashMap<PathBuf, String> = HashMap::new();
    let mut records: Vec<SessionRef> = Vec::new();
    let mut subagent_files = Vec::new();
    for ((path, explicit), kind) in files.into_iter().zip(kinds) {
        match kind {
            Kind::Subagent => subagent_files.push(path),
            Kind::Main(session) => {
                mains.insert(path, session);
            }
            Kind::Codex(session, parent) => {
                if let Some(parent) = parent {
                    codex_parents.insert(path.clone(), parent);
                }
                mains.insert(path, session);
            }
            Kind::Records(mut sessions, mut diags) => {
                records.append(&mut sessions);
                diagnostics.append(&mut diags);
            }
            Kind::Neither if explicit && path.extension().is_some_and(|e| e == "json") => {}
            Kind::Neither if explicit => diagnostics.push(Diagnostic {
                path: path.clone(),
                locus: None,
                message: format!("{NOT_A_SESSION}; skipped"),
            }),
            Kind::Neither => {}
            Kind::Unreadable(err) => diagnostics.push(Diagnostic {
                message: super::claude_code::unreadable_message("transcript", &err),
                path,
                locus: None,
            }),
            Kind::Undecodable(err) => diagnostics.push(Diagnostic {
                message: format!(
                    "compressed transcript could not be decompressed ({err}); skipped"
                ),
                path,
                locus: None,
            }),
        }
    }
    // Finding a subagent's parent stats (and for sibling files reads): in
    // parallel too.
    let parents: Vec<Option<PathBuf>> = subagent_files
        .par_iter()
        .map(|f| parent_of_subagent(f))
        .collect();
    let listed: HashSet<&Path> = walked.iter().map(|(p, _)| p.as_path()).collect();
    for parent in &parents {
        // The parent is looked for from the file's folder up: found in a
        // listed folder, every folder probed on the way was listed too.
        if !parent
            .as_deref()
            .and_then(Path::parent)
            .is_some_and(|d| listed.contains(d))
        {
            closed = false;
        }
    }
    drop(listed);
    for (file, parent) in subagent_files.into_iter().zip(parents) {
        match parent {
            Some(parent) if mains.contains_key(&parent) => {
                if let Some(session) = mains.get_mut(&parent) {
                    session.subagent_files.push(file);
                }
            }
            Some(parent) if parent.is_file() => {
                // The parent exists but was outside the PATHs given: load it too.
                mains.insert(parent.clone(), SessionRef::claude_code(parent, vec![file]));
            }
            _ => diagnostics.push(Diagnostic {
                path: file,
                locus: None,
                message: "subagent transcript whose parent session file was not found; not shown"
                    .to_string(),
            }),
        }
    }
    attach_codex_children(&mut mains, &codex_parents, &mut diagnostics);
    diagnostics.sort_by(|a, b| {
        a.path
            .as_os_str()
            .cmp(b.path.as_os_str())
            .then(a.locus.cmp(&b.locus))
    });
    let mut sessions: Vec<SessionRef> = mains.into_values().collect();
    sessions.append(&mut records);
    for s in &mut sessions {
        s.subagent_files.sort();
    }
    sessions.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.id.cmp(&b.id))
    });
    let fingerprint = (fingerprint && closed).then(|| {
        walked.extend(file_idents);
        Fingerprint { entries: walked }
    });
    Ok((
        Discovery {
            sessions,
            diagnostics,
            roots,
        },
        fingerprint,
    ))
}

/// Moves each forked or spawned Codex rollout (one whose first
/// `session_meta` names a parent, [`super::codex::Lineage::parent`]) into
/// the `subagent_files` of the root of its parent chain among the Codex
/// rollouts found, so it loads as that session's subagent
/// ([`super::codex::load_session_with`]) and is not listed on its own.
///
/// The chain is followed by id up to a rollout whose parent is not found
/// (that one is the root). A rollout stays a session of its own, with a
/// diagnostic, when its parent is not found, its parent id names several
/// rollouts (ids may repeat: no guess is made) or its chain comes back to a
/// rollout already on it (a cycle).
fn attach_codex_children(
    mains: &mut HashMap<PathBuf, SessionRef>,
    parents: &HashMap<PathBuf, String>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if parents.is_empty() {
        return;
    }
    let mut by_id: HashMap<&str, Vec<&PathBuf>> = HashMap::new();
    for (path, s) in mains.iter() {
        if s.agent == Agent::Codex {
            by_id.entry(s.id.as_str()).or_default().push(path);
        }
    }
    for paths in by_id.values_mut() {
        paths.sort();
    }
    enum Up<'a> {
        Root,
        Parent(&'a PathBuf),
        Ambiguous(usize),
    }
    let up = |path: &PathBuf| -> Up {
        match parents.get(path).and_then(|p| by_id.get(p.as_str())) {
            None => Up::Root,
            Some(found) if found.len() == 1 => Up::Parent(found[0]),
            Some(found) => Up::Ambiguous(found.len()),
        }
    };
    let mut children: Vec<&PathBuf> = parents.keys().collect();
    children.sort();
    let mut moves: Vec<(PathBuf, PathBuf)> = Vec::new();
    for child in children {
        let mut on_chain: HashSet<&PathBuf> = HashSet::from([child]);
        let mut cur = child;
        let root = loop {
            match up(cur) {
                Up::Root if cur == child => {
                    diagnostics.push(Diagnostic::whole_file(
                        child.clone(),
                        format!(
                            "parent session {} was not found among the sessions read; not linked",
                            parents.get(child).map_or("", String::as_str)
                        ),
                    ));
                    break None;
                }
                Up::Root => break Some(cur),
                Up::Ambiguous(n) => {
                    if cur == child {
                        diagnostics.push(Diagnostic::whole_file(
                            child.clone(),
                            format!(
                                "parent session id {} names {n} rollouts; not linked",
                                parents.get(child).map_or("", String::as_str)
                            ),
                        ));
                        break None;
                    }
                    break Some(cur);
                }
                Up::Parent(next) => {
                    if !on_chain.insert(next) {
                        diagnostics.push(Diagnostic::whole_file(
                            child.clone(),
                            "parent sessions form a cycle; not linked".to_string(),
                        ));
                        break None;
                    }
                    cur = next;
                }
            }
        };
        if let Some(root) = root {
            moves.push((child.clone(), root.clone()));
        }
    }
    for (child, root) in moves {
        mains.remove(&child);
        if let Some(session) = mains.get_mut(&root) {
            session.subagent_files.push(child);
        }
    }
}

/// The sessions a user's SESSION argument names: those whose id equals
/// `wanted`, else those whose id starts with it (none for `""`). Several
/// results mean an ambiguous prefix, or one id found in several folders;
/// the caller decides what that means for it.
pub fn sessions_named<'a, I>(sessions: I, wanted: &str) -> Vec<&'a SessionRef>
where
    I: IntoIterator<Item = &'a SessionRef>,
    I::IntoIter: Clone,
{
    let sessions = sessions.into_iter();
    let exact: Vec<&SessionRef> = sessions.clone().filter(|s| s.id == wanted).collect();
    if !exact.is_empty() || wanted.is_empty() {
        return exact;
    }
    sessions.filter(|s| s.id.starts_with(wanted)).collect()
}

/// How many folder levels below a root are searched; deeper folders are
/// reported as a diagnostic and not searched.
pub const MAX_DEPTH: usize = 12;

/// A folder to walk: its path as found, and its canonical path (symlinks
/// resolved), built from the parent's without a syscall for a real folder.
struct WalkDir {
    path: PathBuf,
    canonical: PathBuf,
    /// The canonical paths of the folders walked through to get here, this
    /// one last (a loop through several links shows as a target that is one
    /// of them or above one of them).
    chain: Vec<PathBuf>,
    /// Levels below the root.
    depth: usize,
    /// Whether it was reached through a symlinked folder.
    linked: bool,
}

/// Reads one folder: the `.jsonl` files in it (regular files, or symlinks
/// to them) pushed as `(path, explicit = false, canonical path)`, its
/// diagnostics, and its subfolders (real, or symlinked ones to follow).
/// A symlinked folder whose target is a folder on the way here or above
/// one (a loop) is not returned (a diagnostic).
fn read_folder(
    dir: &WalkDir,
    files: &mut Vec<(PathBuf, bool, PathBuf)>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<WalkDir> {
    let mut subdirs = Vec::new();
    if dir.depth > MAX_DEPTH {
        diagnostics.push(Diagnostic {
            path: dir.path.clone(),
            locus: None,
            message: format!(
                "folder more than {MAX_DEPTH} levels below the search root; not searched"
            ),
        });
        return subdirs;
    }
    let entries = match std::fs::read_dir(&dir.path) {
        Ok(entries) => entries,
        Err(err) => {
            diagnostics.push(Diagnostic {
                path: dir.path.clone(),
                locus: None,
                message: format!("cannot read folder: {err}"),
            });
            return subdirs;
        }
    };
    let sub = |path: PathBuf, canonical: PathBuf, linked: bool| {
        let mut chain = dir.chain.clone();
        chain.push(canonical.clone());
        WalkDir {
            path,
            canonical,
            chain,
            depth: dir.depth + 1,
            linked: linked || dir.linked,
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name();
        // OpenCode: `opencode.db` (1.2+) and legacy session files; other
        // `.db`/`.json` files are only read when given as a PATH.
        let jsonl = super::fsread::is_jsonl_name(&path)
            || name == "opencode.db"
            || super::opencode_json::is_session_file(&path);
        if file_type.is_dir() && skipped_opencode_folder(&dir.path, &name) {
            continue;
        }
        if file_type.is_dir() {
            let canonical = dir.canonical.join(&name);
            subdirs.push(sub(path, canonical, false));
        } else if file_type.is_symlink() {
            // Followed: a linked project folder, or a linked transcript.
            let Ok(meta) = std::fs::metadata(&path) else {
                continue; // a dangling link
            };
            if meta.is_dir() {
                let Ok(target) = std::fs::canonicalize(&path) else {
                    continue;
                };
                if dir.chain.iter().any(|c| c.starts_with(&target)) {
                    diagnostics.push(Diagnostic {
                        path: path.clone(),
                        locus: None,
                        message: "symlink to a folder that contains it (a loop); not followed"
                            .to_string(),
                    });
                    continue;
                }
                subdirs.push(sub(path, target, true));
            } else if meta.is_file() && jsonl {
                files.push((path, false, dir.canonical.join(&name)));
            } else if jsonl {
                diagnostics.push(not_regular(path, &meta.file_type()));
            }
        } else if file_type.is_file() && jsonl {
            files.push((path, false, dir.canonical.join(&name)));
        } else if jsonl {
            // A FIFO or device named *.jsonl: reported, never opened.
            diagnostics.push(not_regular(path, &file_type));
        }
    }
    subdirs
}

/// Walks the folder `root` for `.jsonl` files, following symlinked folders,
/// each real folder (by canonical path) read once: level by level, the
/// folders of a level read in parallel (a projects root has one per
/// project), every real folder before any reached through a symlink (so a
/// file is found under its own path when it can be), in path order, so
/// which path a folder is read under does not depend on timing. A symlink
/// to a folder already read is not followed again (silently: its files
/// are found); one into a folder on its own way (a loop) is a diagnostic.
/// The caller sorts the files.
fn walk(
    root: WalkDir,
    files: &mut Vec<(PathBuf, bool, PathBuf)>,
    diagnostics: &mut Vec<Diagnostic>,
    walked: &mut Vec<(PathBuf, Ident)>,
    fingerprint: bool,
) {
    let mut seen: HashSet<PathBuf> = HashSet::from([root.canonical.clone()]);
    let mut level = vec![root];
    let mut deferred: Vec<WalkDir> = Vec::new();
    loop {
        if level.is_empty() {
            // Every real folder so far is read: now the linked ones.
            deferred.sort_by(|a, b| a.path.as_os_str().cmp(b.path.as_os_str()));
            level = std::mem::take(&mut deferred)
                .into_iter()
                .filter(|d| seen.insert(d.canonical.clone()))
                .collect();
            if level.is_empty() {
                return;
            }
        }
        type Found = (
            Vec<(PathBuf, bool, PathBuf)>,
            Vec<Diagnostic>,
            Vec<WalkDir>,
            Option<Ident>,
        );
        let found: Vec<Found> = level
            .par_iter()
            .map(|d| {
                let mut f = Vec::new();
                let mut g = Vec::new();
                // Taken before listing: a change after it is seen next time.
                let ident = fingerprint.then(|| Ident::kept(&d.path));
                let subs = read_folder(d, &mut f, &mut g);
                (f, g, subs, ident)
            })
            .collect();
        let mut next = Vec::new();
        for ((mut f, mut g, subs, ident), d) in found.into_iter().zip(&level) {
            walked.extend(ident.map(|ident| (d.path.clone(), ident)));
            files.append(&mut f);
            diagnostics.append(&mut g);
            for d in subs {
                if d.linked {
                    deferred.push(d);
                } else {
                    next.push(d);
                }
            }
        }
        next.sort_by(|a, b| a.path.as_os_str().cmp(b.path.as_os_str()));
        level = next
            .into_iter()
            .filter(|d| seen.insert(d.canonical.clone()))
            .collect();
    }
}

/// Folders of OpenCode's data folder that hold no session file: in the
/// legacy `storage/`, `message/`, `part/`, `session_diff/`, `todo/`,
/// `project/` (read by the loader, never walked: a heavy user has one folder
/// per message), and `opencode/snapshot/` (bare git object stores).
fn skipped_opencode_folder(parent: &Path, name: &std::ffi::OsStr) -> bool {
    let parent_is = |n: &str| parent.file_name().is_some_and(|p| p == n);
    (parent_is("storage")
        && ["message", "part", "session_diff", "todo", "project"]
            .iter()
            .any(|n| name == *n))
        || (parent_is("opencode") && name == "snapshot")
}

/// Whether a file's first line is a Factory Droid `session_start`
/// (docs/transcripts.md#factory-droid: `{"type":"session_start","id",…}`).
fn looks_like_droid(lines: &[LineSniff]) -> bool {
    lines
        .first()
        .is_some_and(|v| v.kind.as_str() == Some("session_start") && !v.uuid.present())
}

/// A Droid session id: `session_start.id`, else the file stem.
fn droid_session_id(lines: &[LineSniff], path: &Path) -> String {
    lines
        .first()
        .and_then(|v| v.id.as_str())
        .filter(|id| !id.is_empty())
        .map_or_else(|| super::model::id_from_path(path), str::to_string)
}

/// The diagnostic for a `.jsonl` that is not a regular file.
fn not_regular(path: PathBuf, file_type: &std::fs::FileType) -> Diagnostic {
    Diagnostic {
        path,
        locus: None,
        message: format!(
            "not a regular file ({}); skipped",
            super::fsread::kind_of(file_type)
        ),
    }
}

/// Starts a walk at `root` (its canonical path resolved once).
fn walk_root(
    root: &Path,
    files: &mut Vec<(PathBuf, bool, PathBuf)>,
    diagnostics: &mut Vec<Diagnostic>,
    walked: &mut Vec<(PathBuf, Ident)>,
    fingerprint: bool,
) {
    let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    walk(
        WalkDir {
            path: root.to_path_buf(),
            chain: vec![canonical.clone()],
            canonical,
            depth: 0,
            linked: false,
        },
        files,
        diagnostics,
        walked,
        fingerprint,
    );
}

/// Whether a `.jsonl` path is a subagent transcript by its name or place:
/// `agent-*.jsonl`, or anywhere under a `subagents` folder.
pub fn is_subagent_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.starts_with("agent-")
        || path
            .parent()
            .is_some_and(|p| p.components().any(|c| c.as_os_str() == "subagents"))
}

/// The main transcript a subagent file belongs to, if it can be found:
/// the nearest ancestor folder `D` with a file `D.jsonl` beside it, else
/// `<dir>/<sessionId>.jsonl` with `sessionId` read from the file's first lines.
pub fn parent_of_subagent(file: &Path) -> Option<PathBuf> {
    let mut dir = file.parent();
    while let Some(d) = dir {
        if let (Some(parent), Some(name)) = (d.parent(), d.file_name()) {
            let candidate = parent.join(format!("{}.jsonl", name.to_string_lossy()));
            if candidate.is_file() {
                return Some(candidate);
            }
        }
        dir = d.parent();
    }
    let session_id = sniff_lines(file, 5)
        .into_iter()
        .find_map(|l| l.session_id_camel.as_str().map(str::to_string))?;
    if session_id.contains('/') || session_id.contains('\\') {
        return None;
    }
    let candidate = file.parent()?.join(format!("{session_id}.jsonl"));
    (candidate.is_file() && candidate != file).then_some(candidate)
}

/// Line types a Claude Code transcript holds (docs/transcripts.md#line-types).
const CLAUDE_TYPES: &[&str] = &[
    "user",
    "assistant",
    "summary",
    "system",
    "attachment",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "custom-title",
    "ai-title",
    "last-prompt",
    "permission-mode",
    "mode",
    "agent-name",
];

/// Line types of other agents' formats (Codex, Factory Droid, stream-json).
const FOREIGN_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "session_start",
    "message",
    "tool_call",
    "tool_result",
    "completion",
    "thread.started",
];

/// Whether a file's first lines look like a Claude Code transcript: some line
/// has a Claude Code `type` (docs/transcripts.md#line-types) and `sessionId`, `leafUuid` or a
/// `message` object, no line carries `payload` (Codex) or `session_id`
/// (stream-json, hook payloads), and no line has another format's type (Codex,
/// Droid) without the `uuid` every Claude Code conversation line has. A line
/// of an unknown type inside the Claude envelope (`uuid` + `sessionId`, e.g.
/// `{"type":"tool_result","uuid":…}` in a drifted file) is opaque metadata
/// (docs/transcripts.md#line-types), not evidence of another agent.
pub fn sniff_claude_code(path: &Path) -> bool {
    looks_like_claude_code(&sniff_lines(path, 8))
}

/// [`sniff_claude_code`] over already-read first lines.
fn looks_like_claude_code(lines: &[LineSniff]) -> bool {
    let foreign = lines.iter().any(|v| {
        v.payload.present()
            || v.session_id.present()
            || (!v.uuid.present() && v.kind.as_str().is_some_and(|t| FOREIGN_TYPES.contains(&t)))
    });
    !foreign
        && lines.iter().any(|v| {
            v.kind.as_str().is_some_and(|t| CLAUDE_TYPES.contains(&t))
                && (v.session_id_camel.present() || v.leaf_uuid.present() || v.message.is_object())
        })
}

/// Envelope `type`s of a Codex rollout (docs/transcripts.md#the-rollout-envelope).
const CODEX_LINE_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "world_state",
    "inter_agent_communication_metadata",
    "token_usage_record",
];

/// Whether a file's first lines look like a Codex rollout (docs/transcripts.md#the-rollout-envelope,
/// docs/transcripts.md#older-codex-layouts): some line is an envelope with an object `payload` and a Codex
/// `type`, or the file is named `rollout-*.jsonl` and its first line is a
/// bare legacy meta object (`id` and `timestamp`, no `type`). The
/// `codex exec --json` stream (`thread.started`, no `payload`) is not one.
pub fn sniff_codex(path: &Path) -> bool {
    looks_like_codex(&sniff_lines(path, 8), path)
}

fn looks_like_codex(lines: &[LineSniff], path: &Path) -> bool {
    let envelope = lines.iter().any(|v| {
        v.payload.is_object()
            && v.kind
                .as_str()
                .is_some_and(|t| CODEX_LINE_TYPES.contains(&t))
    });
    let rollout_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("rollout-"));
    envelope || (rollout_name && lines.first().is_some_and(is_legacy_codex_meta))
}

/// The most parents followed from a legacy OpenCode child session file
/// given as a PATH to the session that holds it (64).
pub const ANCESTORS_MAX: usize = 64;

/// What a file given as a PATH or SESSION is when its content is no
/// agent's session (a hook capture, a stream log), naming the four agents
/// whose sessions are read. Discovery's diagnostic adds `; skipped`.
pub const NOT_A_SESSION: &str = "not a Claude Code, Codex, OpenCode or Droid session transcript";

/// Legacy response-item `type`s (docs/transcripts.md#older-codex-layouts) a flat Codex session
/// file holds after its meta line.
const LEGACY_CODEX_ITEM_TYPES: &[&str] = &[
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "local_shell_call",
    "custom_tool_call",
    "custom_tool_call_output",
    "web_search_call",
];

/// Whether a file given as a PATH is a legacy Codex session by its content
/// alone, whatever its name (an export such as `export.jsonl`, docs/sessions.md
/// "Where sessions come from"): the first line is the bare legacy meta
/// object (`id` and `timestamp`, no `type`/`role`) and a later line is a
/// `{"record_type": …}` state line or a bare legacy response item (a
/// [`LEGACY_CODEX_ITEM_TYPES`] `type`, no envelope `payload`, no Claude
/// Code `uuid`). Folders walked still take only `rollout-*` names
/// ([`looks_like_codex`]), so a stray JSONL is not listed as a session.
fn looks_like_legacy_codex_export(lines: &[LineSniff]) -> bool {
    let Some((first, rest)) = lines.split_first() else {
        return false;
    };
    is_legacy_codex_meta(first)
        && rest.iter().any(|v| {
            v.record_type.present()
                || (!v.payload.present()
                    && !v.uuid.present()
                    && v.kind
                        .as_str()
                        .is_some_and(|t| LEGACY_CODEX_ITEM_TYPES.contains(&t)))
        })
}

fn is_legacy_codex_meta(v: &LineSniff) -> bool {
    !v.kind.present() && !v.role.present() && v.id.present() && v.timestamp.present()
}

/// A Codex session id from the first lines, as the loader computes it: the
/// first `session_meta.payload.id`, the legacy first line's `id`, the file
/// name's trailing UUID, else the file stem.
fn codex_session_id(lines: &[LineSniff], path: &Path) -> String {
    let meta_id = lines
        .iter()
        .find(|v| v.kind.as_str() == Some("session_meta"))
        .and_then(|v| match &v.payload {
            Sniffed::Absent => None,
            Sniffed::Object { id } => Some(id.clone()),
            _ => Some(None),
        });
    let from_meta = match meta_id {
        Some(id) => id,
        None => lines
            .first()
            .filter(|v| is_legacy_codex_meta(v))
            .and_then(|v| v.id.as_str().map(str::to_string)),
    }
    .filter(|id| !id.is_empty());
    from_meta
        .or_else(|| super::codex::uuid_of_file_name(path))
        .unwrap_or_else(|| super::model::id_from_path(path))
}
