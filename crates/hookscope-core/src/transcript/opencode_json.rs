//! OpenCode's older JSON-file storage (≤ 1.1.x; corpus
//! `real-opencode-1.1.65-legacy-json/README.md` "Layout"):
//!
//! ```text
//! <data>/opencode/storage/session/<projectID>/<sessionID>.json
//! <data>/opencode/storage/message/<sessionID>/<messageID>.json
//! <data>/opencode/storage/part/<messageID>/<partID>.json
//! ```
//!
//! Each file carries its own ids (`id`, `sessionID`, `messageID`).
//! Messages and parts are ordered by id (ids sort by creation). Every file
//! is read through [`super::fsread`] (regular files only, capped at
//! [`FILE_CAP`]); a file that is not JSON, not an object, too big or
//! unreadable is a diagnostic naming the file, and the rest still loads.
//! The records become [`super::opencode`] rows.
//!
//! Every filesystem touch (files, folder listings, the project-folder
//! checks) goes through [`super::fsread`] on the calling thread, so the
//! index's read log ([`super::fsread::record`]) holds all of them.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::model::{Diagnostic, Session};
use super::opencode::{MessageRow, PartRow, SessionRow, Store, build_session};

/// The most bytes read from one session, message or part file (64 MiB; a
/// part holds one tool output, which OpenCode itself truncates far below).
pub const FILE_CAP: u64 = 64 << 20;

/// The `storage` folder of a session file
/// (`<storage>/session/<project>/<id>.json`), when the path has that shape.
pub fn storage_of(session_file: &Path) -> Option<PathBuf> {
    let project = session_file.parent()?;
    let session_dir = project.parent()?;
    if session_dir.file_name()? != "session" {
        return None;
    }
    session_dir.parent().map(Path::to_path_buf)
}

/// Whether `path` sits where a legacy session file does
/// (`…/storage/session/<project>/<name>.json`).
pub fn is_session_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
        && storage_of(path).is_some_and(|s| s.file_name().is_some_and(|n| n == "storage"))
}

/// Whether `dir` has the layout of OpenCode's older JSON storage (`session/`,
/// `message/` and `part/` folders) under a name other than `storage`:
/// discovery reads that layout only in a folder named `storage` (where
/// OpenCode keeps it, `~/.local/share/opencode/storage`), so such a copy
/// (a test fixture, a renamed backup) gives no session, and the commands
/// that then find none say why.
pub fn misnamed_storage(dir: &Path) -> bool {
    let is_dir = |p: PathBuf| super::fsread::probe(&p).is_some_and(|m| m.is_dir());
    dir.file_name().is_some_and(|n| n != "storage")
        && ["session", "message", "part"]
            .iter()
            .all(|sub| is_dir(dir.join(sub)))
}

/// Reads one JSON object file; a diagnostic (naming the file) when it
/// cannot be read, is not JSON or is not an object.
pub fn read_object(path: &Path, diagnostics: &mut Vec<Diagnostic>) -> Option<Value> {
    let bytes = match super::fsread::read_capped(path, FILE_CAP) {
        Ok(b) => b,
        Err(e) => {
            diagnostics.push(Diagnostic::whole_file(
                path,
                super::claude_code::unreadable_message("OpenCode record", &e),
            ));
            return None;
        }
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if v.is_object() => Some(v),
        Ok(_) => {
            diagnostics.push(Diagnostic::whole_file(
                path,
                "OpenCode record is not a JSON object; ignored",
            ));
            None
        }
        Err(e) => {
            diagnostics.push(Diagnostic::whole_file(
                path,
                format!("OpenCode record is not valid JSON ({e}); ignored"),
            ));
            None
        }
    }
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// A session file's record as a [`SessionRow`] (`id` falls back to the
/// file stem).
pub fn session_row(path: &Path, v: &Value) -> SessionRow {
    let time = v.get("time");
    let ms = |k: &str| time.and_then(|t| t.get(k)).and_then(Value::as_i64);
    SessionRow {
        id: str_of(v, "id")
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| super::model::id_from_path(path)),
        parent_id: str_of(v, "parentID").filter(|s| !s.is_empty()),
        title: str_of(v, "title"),
        directory: str_of(v, "directory"),
        version: str_of(v, "version"),
        agent: None,
        created_ms: ms("created"),
        updated_ms: ms("updated"),
        path: path.to_path_buf(),
    }
}

/// The `.json` files of a folder, sorted by name (ids sort by creation);
/// a folder that is missing gives none, one that cannot be read a
/// diagnostic.
fn json_files(dir: &Path, diagnostics: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let entries = match super::fsread::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            diagnostics.push(Diagnostic::whole_file(
                dir,
                format!("cannot read folder: {e}"),
            ));
            return Vec::new();
        }
    };
    let mut files: Vec<PathBuf> = entries
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// Every session file of a storage folder (all projects), parsed.
pub fn all_sessions(storage: &Path, diagnostics: &mut Vec<Diagnostic>) -> Vec<SessionRow> {
    let mut out = Vec::new();
    let session_root = storage.join("session");
    let Ok(projects) = super::fsread::read_dir(&session_root) else {
        return out;
    };
    let mut dirs: Vec<PathBuf> = projects
        .into_iter()
        .filter(|p| super::fsread::probe(p).is_some_and(|m| m.is_dir()))
        .collect();
    dirs.sort();
    for dir in dirs {
        for file in json_files(&dir, diagnostics) {
            if let Some(v) = read_object(&file, diagnostics) {
                out.push(session_row(&file, &v));
            }
        }
    }
    out
}

/// A legacy storage folder as a [`Store`].
struct JsonStore {
    storage: PathBuf,
    /// Every session of the storage, read once on first need.
    sessions: Option<Vec<SessionRow>>,
}

impl JsonStore {
    /// Bad session files are reported by discovery ([`list_sessions`]),
    /// once, not by every session that looks for its children.
    fn sessions(&mut self, _diagnostics: &mut Vec<Diagnostic>) -> &[SessionRow] {
        if self.sessions.is_none() {
            self.sessions = Some(all_sessions(&self.storage, &mut Vec::new()));
        }
        self.sessions.as_deref().unwrap_or_default()
    }
}

impl Store for JsonStore {
    fn session(&mut self, id: &str, diagnostics: &mut Vec<Diagnostic>) -> Option<SessionRow> {
        self.sessions(diagnostics)
            .iter()
            .find(|s| s.id == id)
            .cloned()
    }

    fn children(&mut self, id: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<SessionRow> {
        let mut out: Vec<SessionRow> = self
            .sessions(diagnostics)
            .iter()
            .filter(|s| s.parent_id.as_deref() == Some(id))
            .cloned()
            .collect();
        out.sort_by(|a, b| a.created_ms.cmp(&b.created_ms).then(a.id.cmp(&b.id)));
        out
    }

    fn messages(&mut self, id: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<MessageRow> {
        if id.contains(['/', '\\']) || id == ".." {
            return Vec::new();
        }
        let mut out = Vec::new();
        for file in json_files(&self.storage.join("message").join(id), diagnostics) {
            let Some(data) = read_object(&file, diagnostics) else {
                continue;
            };
            let mid = str_of(&data, "id")
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| super::model::id_from_path(&file));
            let parts = parts_of(&self.storage, &mid, diagnostics);
            out.push(MessageRow {
                id: mid,
                data,
                path: file,
                parts,
            });
        }
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }
}

/// The parts of message `message_id` in `storage`
/// (`part/<message_id>/*.json`), ordered by id; none for an id that is
/// not one folder name. A file that cannot be read or is not an object is
/// a diagnostic and left out.
fn parts_of(storage: &Path, message_id: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<PartRow> {
    let mut parts = Vec::new();
    if message_id.contains(['/', '\\']) || message_id == ".." || message_id.is_empty() {
        return parts;
    }
    for pfile in json_files(&storage.join("part").join(message_id), diagnostics) {
        if let Some(pdata) = read_object(&pfile, diagnostics) {
            let pid = str_of(&pdata, "id")
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| super::model::id_from_path(&pfile));
            parts.push(PartRow {
                id: pid,
                data: pdata,
                path: pfile,
            });
        }
    }
    parts.sort_by(|a, b| a.id.cmp(&b.id));
    parts
}

/// The parts of message `message_id` of the legacy storage that holds
/// session file `session_file` (`<storage>/session/<project>/<id>.json`),
/// as a load reads them: what `find` builds an indexed call's record from
/// without loading its session (`crate::query::rows`). None when the path
/// has not that shape.
pub fn message_parts(session_file: &Path, message_id: &str) -> Vec<PartRow> {
    storage_of(session_file)
        .map(|storage| parts_of(&storage, message_id, &mut Vec::new()))
        .unwrap_or_default()
}

/// Loads the session of a legacy session file
/// (`storage/session/<project>/<id>.json`) with its child sessions as
/// subagents (see [`super::opencode`]).
///
/// # Errors
/// Only when the session file itself cannot be read; every other bad file
/// is a diagnostic.
pub fn load_session(path: &Path) -> std::io::Result<Session> {
    let bytes = super::fsread::read_capped(path, FILE_CAP)?;
    let mut diagnostics = Vec::new();
    let id = match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if v.is_object() => session_row(path, &v).id,
        _ => {
            diagnostics.push(Diagnostic::whole_file(
                path,
                "OpenCode session record is not a JSON object",
            ));
            super::model::id_from_path(path)
        }
    };
    let storage = storage_of(path).unwrap_or_else(|| path.to_path_buf());
    let mut store = JsonStore {
        storage,
        sessions: None,
    };
    let mut session = build_session(&mut store, &id, path);
    diagnostics.append(&mut session.diagnostics);
    diagnostics.sort_by(|a, b| {
        a.path
            .as_os_str()
            .cmp(b.path.as_os_str())
            .then(a.locus.cmp(&b.locus))
    });
    diagnostics.dedup();
    session.diagnostics = diagnostics;
    Ok(session)
}
