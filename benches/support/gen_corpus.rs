//! Benchmark corpus generator, shared by `examples/gen_corpus.rs` and
//! `benches/find_vs_rg.rs` (included with `#[path]`, not a library module).
//!
//! It replicates every Claude Code session that [`discover`] finds under a
//! source corpus (by default `../shared/corpus`) into an output folder, copy
//! after copy, until the bytes written reach a target size:
//!
//! ```text
//! OUT/c0000/p000-<folder>/<new-id>.jsonl                      main transcript
//! OUT/c0000/p000-<folder>/agent-<agent>.jsonl                 sibling subagent (2.0.x)
//! OUT/c0000/p000-<folder>/<new-id>/subagents/agent-<agent>.jsonl (+ .meta.json)
//! OUT/c0001/…
//! ```
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

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use hookscope::transcript::{SessionRef, discover};
use sha2::{Digest, Sha256};

/// What [`generate`] wrote.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    /// Copies of the source corpus written (`c0000` … ).
    pub copies: usize,
    /// Sessions per copy (Claude Code sessions discovered in the source).
    pub sessions_per_copy: usize,
    /// Files written (main + subagent transcripts + `.meta.json` sidecars).
    pub files: usize,
    /// Bytes written, all files together.
    pub bytes: u64,
    /// `.jsonl` bytes of one copy of the source sessions (before id rewriting).
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

/// Replicates the Claude Code sessions under `source` into `out` until at
/// least `target_bytes` are written (at least one copy). `out` is created if
/// needed; existing `cNNNN` folders in it are overwritten file by file.
///
/// # Errors
/// A message when `source` cannot be discovered, holds no Claude Code session,
/// `out` is inside `source`, or a file cannot be read or written.
pub fn generate(source: &Path, out: &Path, target_bytes: u64) -> Result<Generated, String> {
    let found = discover(&[source.to_path_buf()]).map_err(|e| e.to_string())?;
    if found.sessions.is_empty() {
        return Err(format!("no Claude Code session under {}", source.display()));
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
    let mut sessions: Vec<&SessionRef> = found.sessions.iter().collect();
    sessions.sort_by(|a, b| a.path.cmp(&b.path));
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
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            if path.extension().and_then(|e| e.to_str()) == Some("jsonl") {
                source_bytes += bytes.len() as u64;
            }
            contents.insert(path.clone(), bytes);
        }
    }
    if source_bytes == 0 {
        return Err("the source sessions are empty".to_string());
    }

    let mut report = Generated {
        sessions_per_copy: plans.len(),
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
    while report.copies == 0 || report.bytes < target_bytes {
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
                        dest.push(part);
                    }
                }
                emit(&f.source, dest)?;
            }
        }
        report.copies += 1;
    }
    Ok(report)
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
