//! Benchmark corpus generator, shared by `examples/gen_corpus.rs`,
//! `benches/find_vs_rg.rs`, `benches/heavy.rs` and the tests.
//!
//! It replicates every session of every agent that [`discover()`] finds under
//! a source corpus (by default `tests/corpus`: Claude Code, Codex,
//! OpenCode, Factory Droid) into an output folder, copy after copy, until the
//! bytes written reach a target size:
//!
//! ```text
//! OUT/c0000/p000-<folder>/<new-id>.jsonl                      main transcript
//! OUT/c0000/p000-<folder>/agent-<agent>.jsonl                 sibling subagent (2.0.x)
//! OUT/c0000/p000-<folder>/<new-id>/subagents/agent-<agent>.jsonl (+ .meta.json)
//! OUT/c0000/p001-<folder>/<new-id>.jsonl                      a Codex rollout (a
//!                                                              `.jsonl.zst` decompressed)
//! OUT/c0000/p002-<folder>/<new-id>.jsonl (+ <new-id>.settings.json)   a Droid session
//! OUT/c0000/opencode-db-00/opencode.db                          an OpenCode SQLite store
//! OUT/c0000/opencode-json-00/storage/{session,message,part,…}/  a legacy OpenCode store
//! OUT/c0001/…
//! ```
//!
//! Codex and Droid files are found by their content, so they go into
//! project folders like Claude Code's (ids rewritten the same way; Droid's
//! `<id>.settings.json` follows its session). An OpenCode database is copied
//! with its `-wal` rows folded in (`VACUUM INTO` on a staged copy in
//! `OUT/.opencode-work/`, removed at the end: the source folder is never
//! written), then each copy has every session id (`ses_…`, children
//! included) replaced by a fresh one of the same length in every text
//! column. A legacy `storage/` folder is copied whole with its session ids
//! replaced in file contents and path components. Message and part ids stay
//! as they are: each copy is its own store.
//!
//! - one `cNNNN` folder per copy; inside it one project folder per source
//!   folder that holds a main transcript (`pNNN-<last path component>`), so
//!   each copy looks like a `~/.claude/projects` folder;
//! - every session of every copy gets a fresh id: UUID-shaped, derived from
//!   SHA-256 of `"hookscope-bench/<copy>/<source path>"`, so a run is
//!   deterministic and ids do not collide;
//! - the main file is renamed to `<new-id>.jsonl`, a `<old-id>/` folder
//!   component of a subagent file becomes `<new-id>/`, and inside the main
//!   and subagent files (and `.meta.json` sidecars) the old id is replaced by
//!   the new one: every occurrence when the old id is UUID-shaped, else only
//!   where it is a whole JSON string (`"<old-id>"`, i.e. `sessionId` values),
//!   so fixture ids like `small` do not rewrite prose;
//! - every other byte is copied as is, so the copies discover and link like
//!   the originals (inline sidechains, sibling `agent-*.jsonl`,
//!   `<session>/subagents/` + `.meta.json`).
//!
//! Nothing is ever written outside the output folder.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use hookscope_core::transcript::{Agent, SessionRef, discover, opencode_json};
use sha2::{Digest, Sha256};

/// What [`generate`] wrote.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    /// Copies of the source corpus written (`c0000` … ).
    pub copies: usize,
    /// Top-level sessions per copy, all agents (as discovery lists them).
    pub sessions_per_copy: usize,
    /// Files written (main + subagent transcripts + `.meta.json` sidecars).
    pub files: usize,
    /// Bytes written, all files together.
    pub bytes: u64,
    /// Bytes of one copy of the source sessions before id rewriting (`.jsonl`
    /// decompressed, OpenCode databases and legacy storage files).
    pub source_bytes: u64,
}

/// Parses a size such as `1GiB`, `512MiB`, `300MB`, `2G`, `1048576` (bytes).
/// Binary (`KiB`/`MiB`/`GiB`, and the bare `K`/`M`/`G`) and decimal (`KB`,
/// `MB`, `GB`) units; `None` when it does not parse or overflows.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let factor: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        _ => return None,
    };
    let bytes = number * factor;
    (bytes.is_finite() && bytes >= 0.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// A UUID-shaped id (`8-4-4-4-12` lowercase hex, version nibble 4) derived
/// from `seed`.
pub fn fresh_id(seed: &str) -> String {
    let d = Sha256::digest(seed.as_bytes());
    let hex: String = d.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-4{}-8{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

/// Whether `id` looks like a UUID (`8-4-4-4-12` hex digits).
fn uuid_shaped(id: &str) -> bool {
    let parts: Vec<&str> = id.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, n)| p.len() == n && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `bytes` with `from` replaced by `to` (every occurrence).
fn replace_all(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 64);
    let mut rest = 0;
    for at in memchr::memmem::find_iter(bytes, from) {
        out.extend_from_slice(&bytes[rest..at]);
        out.extend_from_slice(to);
        rest = at + from.len();
    }
    out.extend_from_slice(&bytes[rest..]);
    out
}

/// The id rewrite of one session: whole occurrences for UUID-shaped ids,
/// quoted JSON strings only for other ids.
fn rewrite(bytes: &[u8], old: &str, new: &str) -> Vec<u8> {
    if old.is_empty() {
        bytes.to_vec()
    } else if uuid_shaped(old) {
        replace_all(bytes, old.as_bytes(), new.as_bytes())
    } else {
        replace_all(
            bytes,
            format!("\"{old}\"").as_bytes(),
            format!("\"{new}\"").as_bytes(),
        )
    }
}

/// One file of a source session and where it goes inside a project folder.
struct Planned {
    source: PathBuf,
    /// Path relative to the project folder, with `{ID}` as the first
    /// component when it was the old session id.
    relative: Vec<String>,
    /// Whether the first component of `relative` is the session-id folder.
    in_id_folder: bool,
}

/// Plans the files of one session; `None` (with a warning on stderr) when a
/// subagent file is not under the main file's folder.
fn plan(session: &SessionRef) -> Option<(PathBuf, Vec<Planned>)> {
    let dir = session.path.parent()?.to_path_buf();
    let mut files = Vec::new();
    // Droid: `<uuid>.settings.json` beside `<uuid>.jsonl` (model, tokens).
    if session.agent == Agent::Droid {
        let settings = dir.join(format!("{}.settings.json", session.id));
        if settings.is_file() {
            files.push(Planned {
                source: settings,
                relative: vec!["{ID}.settings.json".to_string()],
                in_id_folder: false,
            });
        }
    }
    for sub in &session.subagent_files {
        let Ok(rel) = sub.strip_prefix(&dir) else {
            eprintln!(
                "gen_corpus: {} is not under {}; left out",
                sub.display(),
                dir.display()
            );
            continue;
        };
        let relative: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let in_id_folder = relative.len() > 1 && relative[0] == session.id;
        let meta = sub.with_extension("meta.json");
        if meta.is_file() {
            let mut meta_rel = relative.clone();
            if let (Some(last), Some(name)) = (meta_rel.last_mut(), meta.file_name()) {
                *last = name.to_string_lossy().into_owned();
            }
            files.push(Planned {
                source: meta,
                relative: meta_rel,
                in_id_folder,
            });
        }
        files.push(Planned {
            source: sub.clone(),
            relative,
            in_id_folder,
        });
    }
    Some((dir, files))
}

/// A folder name made of safe characters only.
fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    if s.is_empty() { "_".to_string() } else { s }
}

/// Replicates the sessions of every agent under `source` into `out` until at
/// least `target_bytes` are written (at least one copy). `out` is created if
/// needed; existing `cNNNN` folders in it are overwritten file by file.
///
/// # Errors
/// A message when `source` cannot be discovered, holds no session,
/// `out` is inside `source`, or a file cannot be read or written.
#[allow(dead_code)] // the heavy bench and the example use generate_copies
pub fn generate(source: &Path, out: &Path, target_bytes: u64) -> Result<Generated, String> {
    generate_copies(source, out, target_bytes, None)
}

/// [`generate`], stopping after `max_copies` copies when given (even below
/// `target_bytes`: the heavy mode's `--copies`, which fills the rest with
/// [`generate_big_sessions`]'s bulk sessions).
///
/// # Errors
/// As [`generate`].
pub fn generate_copies(
    source: &Path,
    out: &Path,
    target_bytes: u64,
    max_copies: Option<usize>,
) -> Result<Generated, String> {
    let found = discover(&[source.to_path_buf()]).map_err(|e| e.to_string())?;
    if found.sessions.is_empty() {
        return Err(format!("no session under {}", source.display()));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    if let (Ok(src), Ok(dst)) = (source.canonicalize(), out.canonicalize())
        && dst.starts_with(&src)
    {
        return Err(format!(
            "refusing to write into the source corpus ({})",
            out.display()
        ));
    }

    // Sessions in a stable order (discovery sorts by mtime), with their plans
    // and one project folder name per source folder.
    let mut sessions: Vec<&SessionRef> = found
        .sessions
        .iter()
        .filter(|s| s.agent != Agent::OpenCode)
        .collect();
    sessions.sort_by(|a, b| a.path.cmp(&b.path));
    // OpenCode stores: databases, and legacy `storage/` roots.
    let mut databases: BTreeSet<PathBuf> = BTreeSet::new();
    let mut storages: BTreeSet<PathBuf> = BTreeSet::new();
    for s in found.sessions.iter().filter(|s| s.agent == Agent::OpenCode) {
        if s.path.extension().is_some_and(|e| e == "db") {
            databases.insert(s.path.clone());
        } else if let Some(storage) = opencode_json::storage_of(&s.path) {
            storages.insert(storage);
        }
    }
    let databases: Vec<OpenCodeDb> = databases
        .iter()
        .map(|p| OpenCodeDb::prepare(p, out))
        .collect::<Result<_, _>>()?;
    let storages: Vec<LegacyStorage> = storages
        .iter()
        .map(|p| LegacyStorage::read(p))
        .collect::<Result<_, _>>()?;
    let mut projects: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut plans = Vec::new();
    for s in sessions {
        let Some((dir, files)) = plan(s) else {
            continue;
        };
        let n = projects.len();
        let name = projects.entry(dir.clone()).or_insert_with(|| {
            let last = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("p{n:03}-{}", sanitize(&last))
        });
        plans.push((s, name.clone(), files));
    }

    // Read every source file once.
    let mut contents: BTreeMap<PathBuf, Vec<u8>> = BTreeMap::new();
    let mut source_bytes = 0u64;
    for (s, _, files) in &plans {
        for path in std::iter::once(&s.path).chain(files.iter().map(|f| &f.source)) {
            let mut bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            if path.extension().and_then(|e| e.to_str()) == Some("zst") {
                // A Codex `.jsonl.zst`: copied decompressed (ids are rewritten
                // in the text), as `<new-id>.jsonl`.
                bytes = zstd::decode_all(bytes.as_slice())
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                source_bytes += bytes.len() as u64;
            } else if path.extension().and_then(|e| e.to_str()) == Some("jsonl") {
                source_bytes += bytes.len() as u64;
            }
            contents.insert(path.clone(), bytes);
        }
    }
    if source_bytes == 0 {
        return Err("the source sessions are empty".to_string());
    }

    source_bytes += databases.iter().map(|d| d.bytes).sum::<u64>();
    source_bytes += storages.iter().map(|s| s.bytes).sum::<u64>();
    let mut report = Generated {
        sessions_per_copy: plans.len()
            + databases.iter().map(|d| d.top_level).sum::<usize>()
            + storages.iter().map(|s| s.top_level).sum::<usize>(),
        source_bytes,
        ..Generated::default()
    };
    let write = |path: &Path, bytes: &[u8]| -> Result<(), String> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        let mut f = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        f.write_all(bytes)
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    while report.copies == 0
        || (report.bytes < target_bytes && max_copies.is_none_or(|m| report.copies < m))
    {
        let copy_dir = out.join(format!("c{:04}", report.copies));
        for (s, project, files) in &plans {
            let new_id = fresh_id(&format!(
                "hookscope-bench/{}/{}",
                report.copies,
                s.path.display()
            ));
            let project_dir = copy_dir.join(project);
            let mut emit = |source: &Path, dest: PathBuf| -> Result<(), String> {
                let bytes = contents.get(source).map(Vec::as_slice).unwrap_or_default();
                let bytes = rewrite(bytes, &s.id, &new_id);
                write(&dest, &bytes)?;
                report.files += 1;
                report.bytes += bytes.len() as u64;
                Ok(())
            };
            emit(&s.path, project_dir.join(format!("{new_id}.jsonl")))?;
            for f in files {
                let mut dest = project_dir.clone();
                for (i, part) in f.relative.iter().enumerate() {
                    if i == 0 && f.in_id_folder {
                        dest.push(&new_id);
                    } else {
                        dest.push(part.replace("{ID}", &new_id));
                    }
                }
                emit(&f.source, dest)?;
            }
        }
        for (k, db) in databases.iter().enumerate() {
            let dest = copy_dir
                .join(format!("opencode-db-{k:02}"))
                .join("opencode.db");
            report.bytes += db.copy_to(&dest, report.copies)?;
            report.files += 1;
        }
        for (k, storage) in storages.iter().enumerate() {
            let dest = copy_dir
                .join(format!("opencode-json-{k:02}"))
                .join("storage");
            let (files, bytes) = storage.copy_to(&dest, report.copies, &write)?;
            report.files += files;
            report.bytes += bytes;
        }
        report.copies += 1;
    }
    for db in &databases {
        let _ = std::fs::remove_file(&db.pristine);
    }
    let _ = std::fs::remove_dir(out.join(".opencode-work"));
    Ok(report)
}

/// An OpenCode id (`ses_` + 26 characters) made fresh for copy `copy`: the
/// same length and alphabet (base62), derived from SHA-256.
fn fresh_opencode_id(old: &str, copy: usize) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let (prefix, rest) = old.split_at(old.find('_').map_or(0, |i| i + 1));
    let d = Sha256::digest(format!("hookscope-bench/{copy}/{old}").as_bytes());
    let tail: String = (0..rest.chars().count())
        .map(|i| ALPHABET[usize::from(d[i % d.len()]) % ALPHABET.len()] as char)
        .collect();
    format!("{prefix}{tail}")
}

/// One OpenCode SQLite store: a standalone copy of it (its `-wal` rows
/// folded in by `VACUUM INTO`), replicated per copy with every session id
/// replaced (by SQL `replace()` over every text column of every table).
struct OpenCodeDb {
    /// The standalone copy, under the output folder (removed at the end).
    pristine: PathBuf,
    /// Every session id in it (children included).
    ids: Vec<String>,
    /// Top-level sessions (no `parent_id`), as discovery lists them.
    top_level: usize,
    /// Size of the standalone copy.
    bytes: u64,
    /// `(table, column)` of every column declared TEXT or untyped.
    columns: Vec<(String, String)>,
}

impl OpenCodeDb {
    fn prepare(source: &Path, out: &Path) -> Result<OpenCodeDb, String> {
        let err = |e: rusqlite::Error| format!("{}: {e}", source.display());
        // Read-only, never writing beside the source (the corpus folder may
        // not be writable): copy the database and its -wal to the output
        // folder first, then fold them into one standalone file.
        let work = out.join(".opencode-work");
        std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
        let stem = sanitize(&source.display().to_string());
        let staged = work.join(format!("{stem}.db"));
        std::fs::copy(source, &staged).map_err(|e| format!("{}: {e}", source.display()))?;
        let wal = PathBuf::from(format!("{}-wal", source.display()));
        if wal.is_file() {
            std::fs::copy(&wal, work.join(format!("{stem}.db-wal")))
                .map_err(|e| format!("{}: {e}", wal.display()))?;
        }
        let pristine = work.join(format!("{stem}.pristine.db"));
        let _ = std::fs::remove_file(&pristine);
        {
            let conn = rusqlite::Connection::open(&staged).map_err(err)?;
            conn.execute("VACUUM INTO ?1", [pristine.display().to_string()])
                .map_err(err)?;
        }
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", staged.display()));
        }
        let conn = rusqlite::Connection::open(&pristine).map_err(err)?;
        let ids: Vec<String> = conn
            .prepare("SELECT id FROM session")
            .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
            .map_err(err)?;
        let top_level: usize = conn
            .query_row(
                "SELECT count(*) FROM session WHERE parent_id IS NULL",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_err(err)?
            .try_into()
            .unwrap_or(0);
        let tables: Vec<String> = conn
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
            )
            .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
            .map_err(err)?;
        let mut columns = Vec::new();
        for table in tables {
            let cols: Vec<(String, String)> = conn
                .prepare(&format!("PRAGMA table_info(\"{table}\")"))
                .and_then(|mut st| {
                    st.query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?
                        .collect()
                })
                .map_err(err)?;
            for (name, ty) in cols {
                let ty = ty.to_ascii_uppercase();
                if ty.is_empty() || ty.contains("TEXT") || ty.contains("CHAR") {
                    columns.push((table.clone(), name));
                }
            }
        }
        let bytes = std::fs::metadata(&pristine).map(|m| m.len()).unwrap_or(0);
        Ok(OpenCodeDb {
            pristine,
            ids,
            top_level,
            bytes,
            columns,
        })
    }

    /// Writes copy `copy` to `dest`; returns its size.
    fn copy_to(&self, dest: &Path, copy: usize) -> Result<u64, String> {
        let err = |e: rusqlite::Error| format!("{}: {e}", dest.display());
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::copy(&self.pristine, dest).map_err(|e| format!("{}: {e}", dest.display()))?;
        let mut conn = rusqlite::Connection::open(dest).map_err(err)?;
        // The id changes in the parent and child rows in one go: keys
        // would fail half-way (the bundled SQLite enforces them).
        conn.execute_batch("PRAGMA foreign_keys = OFF")
            .map_err(err)?;
        let tx = conn.transaction().map_err(err)?;
        for old in &self.ids {
            let new = fresh_opencode_id(old, copy);
            for (table, column) in &self.columns {
                tx.execute(
                    &format!(
                        "UPDATE \"{table}\" SET \"{column}\" = replace(\"{column}\", ?1, ?2) \
                         WHERE typeof(\"{column}\") = 'text' AND instr(\"{column}\", ?1) > 0"
                    ),
                    [old, &new],
                )
                .map_err(err)?;
            }
        }
        tx.commit().map_err(err)?;
        drop(conn);
        Ok(std::fs::metadata(dest).map(|m| m.len()).unwrap_or(0))
    }
}

/// One legacy OpenCode `storage/` folder (1.1.x JSON files), replicated per
/// copy with every session id (the `storage/session/*/<id>.json` stems)
/// replaced in file contents (as quoted JSON strings and inside strings
/// such as paths) and in path components.
struct LegacyStorage {
    /// Every file under the folder: path relative to it, and its bytes.
    files: Vec<(PathBuf, Vec<u8>)>,
    /// Every session id (children included).
    ids: Vec<String>,
    /// Session files without a `parentID`.
    top_level: usize,
    /// Bytes of all its files.
    bytes: u64,
}

impl LegacyStorage {
    fn read(root: &Path) -> Result<LegacyStorage, String> {
        let mut files = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for entry in entries.flatten() {
                let path = entry.path();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    stack.push(path);
                } else if kind.is_file()
                    && let Ok(rel) = path.strip_prefix(root)
                {
                    let bytes =
                        std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                    files.push((rel.to_path_buf(), bytes));
                }
            }
        }
        files.sort();
        let mut ids = Vec::new();
        let mut top_level = 0;
        for (rel, bytes) in &files {
            let parts: Vec<_> = rel.components().collect();
            if parts.len() == 3
                && parts[0].as_os_str() == "session"
                && rel.extension().is_some_and(|e| e == "json")
                && let Some(stem) = rel.file_stem()
            {
                ids.push(stem.to_string_lossy().into_owned());
                let parent = serde_json::from_slice::<serde_json::Value>(bytes)
                    .ok()
                    .and_then(|v| v.get("parentID").cloned());
                if parent.is_none_or(|p| p.is_null()) {
                    top_level += 1;
                }
            }
        }
        let bytes = files.iter().map(|(_, b)| b.len() as u64).sum();
        Ok(LegacyStorage {
            files,
            ids,
            top_level,
            bytes,
        })
    }

    /// Writes copy `copy` under `dest` (the new `storage/` folder) through
    /// `write`; returns (files, bytes) written.
    fn copy_to(
        &self,
        dest: &Path,
        copy: usize,
        write: &impl Fn(&Path, &[u8]) -> Result<(), String>,
    ) -> Result<(usize, u64), String> {
        let map: Vec<(String, String)> = self
            .ids
            .iter()
            .map(|old| (old.clone(), fresh_opencode_id(old, copy)))
            .collect();
        let (mut files, mut bytes) = (0, 0u64);
        for (rel, content) in &self.files {
            let mut path = dest.to_path_buf();
            for part in rel.components() {
                let mut name = part.as_os_str().to_string_lossy().into_owned();
                for (old, new) in &map {
                    name = name.replace(old.as_str(), new);
                }
                path.push(name);
            }
            let mut content = content.clone();
            for (old, new) in &map {
                content = replace_all(&content, old.as_bytes(), new.as_bytes());
            }
            write(&path, &content)?;
            files += 1;
            bytes += content.len() as u64;
        }
        Ok((files, bytes))
    }
}

/// Checks that copy `c0000` under `out` discovers like the source: as many
/// sessions, with the same multiset of subagent-file counts.
///
/// # Errors
/// A message saying what differs.
pub fn verify_first_copy(source: &Path, out: &Path) -> Result<(), String> {
    let counts = |root: &Path| -> Result<Vec<usize>, String> {
        let found = discover(&[root.to_path_buf()]).map_err(|e| e.to_string())?;
        let mut c: Vec<usize> = found
            .sessions
            .iter()
            .map(|s| s.subagent_files.len())
            .collect();
        c.sort_unstable();
        Ok(c)
    };
    let want = counts(source)?;
    let got = counts(&out.join("c0000"))?;
    if want == got {
        Ok(())
    } else {
        Err(format!(
            "copy c0000 discovers {} sessions / {} subagent files, the source {} / {}",
            got.len(),
            got.iter().sum::<usize>(),
            want.len(),
            want.iter().sum::<usize>()
        ))
    }
}

/// The heavy-user mode's big sessions (docs/benchmarks.md#heavy-user-benchmark): how many, how big, and
/// how many 10 MB lines each holds.
#[derive(Debug, Clone)]
pub struct Heavy {
    /// Big Claude Code sessions written into `OUT/big/p-big/`.
    pub sessions: usize,
    /// Target size of each, in bytes (the last repetition may pass it).
    pub bytes: u64,
    /// Lines of about [`Heavy::line_bytes`] each big session holds (a Bash
    /// call whose `tool_result` is that big), spread evenly.
    pub big_lines: usize,
    /// Size of one big line, in bytes (half in the `tool_result` content,
    /// half in `toolUseResult.stdout`, as Claude Code writes both).
    pub line_bytes: usize,
}

impl Default for Heavy {
    /// Three 301 MB sessions with ten 10 MB lines each: the shape of a
    /// heavy user's corpus (a Codex user's 415 MB file, openai/codex#18839).
    fn default() -> Heavy {
        Heavy {
            sessions: 3,
            bytes: 301_000_000,
            big_lines: 10,
            line_bytes: 10_000_000,
        }
    }
}

/// The template of a big session: the source's Claude Code session (main
/// file under 1 MB, no subagents) with the most `tool_use` blocks, and in
/// it the first Bash `tool_use` line and the line of its `tool_result`.
struct BigTemplate {
    id: String,
    lines: Vec<Vec<u8>>,
    call: serde_json::Value,
    result: serde_json::Value,
}

fn big_template(source: &Path) -> Result<BigTemplate, String> {
    let found = discover(&[source.to_path_buf()]).map_err(|e| e.to_string())?;
    let mut best: Option<(usize, &SessionRef)> = None;
    for s in found.sessions.iter().filter(|s| {
        s.agent == Agent::ClaudeCode
            && s.subagent_files.is_empty()
            && uuid_shaped(&s.id)
            && s.total_bytes() < 1 << 20
    }) {
        let Ok(bytes) = std::fs::read(&s.path) else {
            continue;
        };
        let n = memchr::memmem::find_iter(&bytes, b"\"tool_use\"").count();
        let has_bash = memchr::memmem::find(&bytes, b"\"name\":\"Bash\"").is_some();
        if has_bash && best.is_none_or(|(m, _)| n > m) {
            best = Some((n, s));
        }
    }
    let (_, s) = best.ok_or("no Claude Code session with a Bash call in the source")?;
    let bytes = std::fs::read(&s.path).map_err(|e| format!("{}: {e}", s.path.display()))?;
    let lines: Vec<Vec<u8>> = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    let values: Vec<serde_json::Value> = lines
        .iter()
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect();
    let blocks = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v.pointer("/message/content")
            .and_then(serde_json::Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let call = values
        .iter()
        .find(|v| {
            let b = blocks(v);
            b.len() == 1 && b[0]["type"] == "tool_use" && b[0]["name"] == "Bash"
        })
        .cloned()
        .ok_or("no single-block Bash tool_use line")?;
    let id = blocks(&call)[0]["id"].clone();
    let result = values
        .iter()
        .find(|v| {
            let b = blocks(v);
            b.len() == 1 && b[0]["type"] == "tool_result" && b[0]["tool_use_id"] == id
        })
        .cloned()
        .ok_or("no tool_result for the Bash call")?;
    Ok(BigTemplate {
        id: s.id.clone(),
        lines,
        call,
        result,
    })
}

/// `uuid` made unique for repetition `k`: its last 12 hex digits mixed with
/// `k` (still UUID-shaped).
fn uuid_for(uuid: &[u8], k: usize) -> Vec<u8> {
    let mut out = uuid[..24].to_vec();
    let tail =
        u64::from_str_radix(std::str::from_utf8(&uuid[24..36]).unwrap_or("0"), 16).unwrap_or(0);
    out.extend_from_slice(
        format!("{:012x}", (tail ^ ((k as u64) << 20)) & 0xffff_ffff_ffff).as_bytes(),
    );
    out
}

/// One line of repetition `k`: every UUID other than the session id and
/// every `toolu_…` id made unique for `k`.
fn repeat_line(line: &[u8], session_id: &str, new_id: &str, k: usize) -> Vec<u8> {
    static IDS: std::sync::LazyLock<regex::bytes::Regex> = std::sync::LazyLock::new(|| {
        regex::bytes::Regex::new(
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|toolu_[A-Za-z0-9]+",
        )
        .expect("a fixed regex")
    });
    let line = IDS.replace_all(line, |c: &regex::bytes::Captures| {
        let m = &c[0];
        if m == session_id.as_bytes() {
            new_id.as_bytes().to_vec()
        } else if m.starts_with(b"toolu_") {
            let mut v = m.to_vec();
            v.extend_from_slice(format!("r{k}").as_bytes());
            v
        } else {
            uuid_for(m, k)
        }
    });
    line.into_owned()
}

/// Writes `heavy.sessions` big Claude Code sessions into `OUT/big/p-big/`,
/// each the template session repeated (ids made unique per repetition)
/// until `heavy.bytes`, with `heavy.big_lines` Bash calls whose result line
/// is `heavy.line_bytes` long spread among the repetitions. Returns (files,
/// bytes) written.
///
/// # Errors
/// A message when the source has no usable template or a write fails.
pub fn generate_big_sessions(
    source: &Path,
    out: &Path,
    heavy: &Heavy,
) -> Result<(usize, u64), String> {
    write_repeated_sessions(source, &out.join("big").join("p-big"), "big", heavy)
}

/// Writes `count` bulk Claude Code sessions of `bytes` each into
/// `OUT/bulk/p-bulk/` (the template session repeated, no big lines): the
/// heavy mode's `--bulk N`, which with `--copies` gives the heavy-user shape of
/// fewer, bigger sessions (8,794 sessions in 5.1 GB). Returns (files, bytes).
///
/// # Errors
/// As [`generate_big_sessions`].
pub fn generate_bulk_sessions(
    source: &Path,
    out: &Path,
    count: usize,
    bytes: u64,
) -> Result<(usize, u64), String> {
    let heavy = Heavy {
        sessions: count,
        bytes,
        big_lines: 0,
        line_bytes: 0,
    };
    write_repeated_sessions(source, &out.join("bulk").join("p-bulk"), "bulk", &heavy)
}

fn write_repeated_sessions(
    source: &Path,
    dir: &Path,
    tag: &str,
    heavy: &Heavy,
) -> Result<(usize, u64), String> {
    let t = big_template(source)?;
    let dir = dir.to_path_buf();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let body: u64 = t.lines.iter().map(|l| l.len() as u64 + 1).sum();
    let big_total = (heavy.big_lines * heavy.line_bytes) as u64;
    let reps = (heavy.bytes.saturating_sub(big_total) / body.max(1)).max(1) as usize;
    let every = reps
        .checked_div(heavy.big_lines)
        .map_or(usize::MAX, |n| n.max(1));
    let filler = "x".repeat(heavy.line_bytes / 2);
    let (mut files, mut bytes) = (0usize, 0u64);
    for n in 0..heavy.sessions {
        let new_id = fresh_id(&format!("hookscope-bench/{tag}/{n}"));
        let path = dir.join(format!("{new_id}.jsonl"));
        let file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut w = std::io::BufWriter::new(file);
        let mut written = 0u64;
        let mut big_written = 0usize;
        for k in 0..reps {
            for line in &t.lines {
                let l = repeat_line(line, &t.id, &new_id, k);
                w.write_all(&l)
                    .and_then(|()| w.write_all(b"\n"))
                    .map_err(|e| e.to_string())?;
                written += l.len() as u64 + 1;
            }
            if big_written < heavy.big_lines && k % every == every - 1 {
                big_written += 1;
                let mut call = t.call.clone();
                let mut result = t.result.clone();
                result["message"]["content"][0]["content"] = filler.clone().into();
                result["toolUseResult"]["stdout"] = filler.clone().into();
                for v in [&mut call, &mut result] {
                    let text = serde_json::to_vec(v).map_err(|e| e.to_string())?;
                    let l = repeat_line(&text, &t.id, &new_id, reps + big_written);
                    w.write_all(&l)
                        .and_then(|()| w.write_all(b"\n"))
                        .map_err(|e| e.to_string())?;
                    written += l.len() as u64 + 1;
                }
            }
        }
        w.flush().map_err(|e| e.to_string())?;
        files += 1;
        bytes += written;
    }
    Ok((files, bytes))
}
