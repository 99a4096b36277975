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
//! index's read log ([`super::fsread::record`]) holds all of them, but for
//! the parent links kept across loads (`Parents`): those are read
//! unrecorded, and a load logs the stamps of the `session/` folders they
//! were listed from instead.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::fsread::Stamp;

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

/// The session files of one legacy storage by the parent session they name
/// (`parentID`): what a load reads to find a session's children, read once
/// per process for every session of the storage, and reused while the
/// folders it was listed from keep their stamps. Reading every session file
/// again for each load made loading (and indexing) all of a storage's
/// sessions quadratic in their number, and made each session's index `deps`
/// name every session file.
///
/// Kept per storage folder in [`PARENTS`]. A session file rewritten in
/// place (its folder's mtime unchanged) to name another parent is seen when
/// a file is next added to or removed from its folder; OpenCode writes a
/// session's `parentID` once, when it creates the session.
struct Parents {
    /// `session/` and each project folder in it, with its stamp taken
    /// before it was listed.
    folders: Vec<(PathBuf, Stamp)>,
    /// Session files that could not be read as an object when listed (one
    /// being written), with their stamp then: a change to one rereads all.
    unsettled: Vec<(PathBuf, Stamp)>,
    /// Parent id → the session files naming it, in folder then name order.
    children: HashMap<String, Vec<PathBuf>>,
}

/// The storages' [`Parents`], most recently used last, at most
/// [`PARENTS_KEPT`].
static PARENTS: Mutex<Vec<(PathBuf, Arc<Parents>)>> = Mutex::new(Vec::new());

/// The most storages [`PARENTS`] keeps (a user has one or two).
const PARENTS_KEPT: usize = 64;

/// `session/` of `storage` and each folder in it, sorted, each with its
/// stamp as of now; while recording, the stamps are logged (a load's
/// children depend on them), not the listing.
fn session_folders(storage: &Path) -> Vec<(PathBuf, Stamp)> {
    let root = storage.join("session");
    let root_stamp = super::fsread::noted_stamp(&root);
    let mut folders = vec![(root.clone(), root_stamp)];
    let Ok(entries) = super::fsread::unrecorded(|| super::fsread::read_dir(&root)) else {
        return folders;
    };
    // One `stat` per entry: its stamp says whether it is a folder.
    let mut dirs: Vec<(PathBuf, Stamp)> = entries
        .into_iter()
        .map(|p| {
            let stamp = super::fsread::stamp(&p, false);
            (p, stamp)
        })
        .filter(|(_, stamp)| matches!(stamp, Stamp::Folder { .. }))
        .collect();
    dirs.sort_by(|a, b| a.0.cmp(&b.0));
    for (dir, stamp) in &dirs {
        super::fsread::note_stamp(dir, stamp.clone());
    }
    folders.extend(dirs);
    folders
}

/// The [`Parents`] of `storage`: the kept one when its folders and
/// unsettled files have the same stamps now, else read anew (unrecorded)
/// and kept.
fn parents_of(storage: &Path) -> Arc<Parents> {
    let folders = session_folders(storage);
    let kept = PARENTS.lock().ok().and_then(|list| {
        list.iter()
            .find(|(s, _)| s == storage)
            .map(|(_, p)| Arc::clone(p))
    });
    if let Some(kept) = kept {
        let settled = kept
            .unsettled
            .iter()
            .all(|(path, then)| super::fsread::noted_stamp(path) == *then);
        if kept.folders == folders && settled {
            return kept;
        }
    }
    let read = Arc::new(read_parents(folders));
    for (path, stamp) in &read.unsettled {
        // Logged as they were when found unreadable: the index sees them
        // change.
        super::fsread::note_stamp(path, stamp.clone());
    }
    if let Ok(mut list) = PARENTS.lock() {
        list.retain(|(s, _)| s != storage);
        list.push((storage.to_path_buf(), Arc::clone(&read)));
        let over = list.len().saturating_sub(PARENTS_KEPT);
        list.drain(..over);
    }
    read
}

/// Reads every session file of the project folders in `folders` (all but
/// the first, `session/` itself), unrecorded.
fn read_parents(folders: Vec<(PathBuf, Stamp)>) -> Parents {
    let mut children: HashMap<String, Vec<PathBuf>> = HashMap::new();
    let mut unsettled = Vec::new();
    super::fsread::unrecorded(|| {
        for (dir, _) in folders.iter().skip(1) {
            for file in json_files(dir, &mut Vec::new()) {
                let stamp = super::fsread::stamp(&file, false);
                match read_object(&file, &mut Vec::new()) {
                    Some(v) => {
                        if let Some(parent) = session_row(&file, &v).parent_id {
                            children.entry(parent).or_default().push(file);
                        }
                    }
                    None => unsettled.push((file, stamp)),
                }
            }
        }
    });
    Parents {
        folders,
        unsettled,
        children,
    }
}

/// A legacy storage folder as a [`Store`], for the load of one session file.
struct JsonStore {
    storage: PathBuf,
    /// The loaded session file's own record (`None` when it is not an
    /// object).
    main: Option<SessionRow>,
    /// The storage's parent links, read on first need.
    parents: Option<Arc<Parents>>,
}

impl Store for JsonStore {
    fn session(&mut self, id: &str, _diagnostics: &mut Vec<Diagnostic>) -> Option<SessionRow> {
        self.main.as_ref().filter(|row| row.id == id).cloned()
    }

    /// Bad session files are reported by discovery (`transcript::discover`),
    /// once, not by every session that looks for its children. Each child's
    /// file is read again (so its record is current, and still names `id`).
    fn children(&mut self, id: &str, _diagnostics: &mut Vec<Diagnostic>) -> Vec<SessionRow> {
        let parents = self
            .parents
            .get_or_insert_with(|| parents_of(&self.storage));
        let mut out: Vec<SessionRow> = parents
            .children
            .get(id)
            .into_iter()
            .flatten()
            .filter_map(|file| {
                let v = read_object(file, &mut Vec::new())?;
                Some(session_row(file, &v))
            })
            .filter(|s| s.parent_id.as_deref() == Some(id))
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
    let main = match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if v.is_object() => Some(session_row(path, &v)),
        _ => {
            diagnostics.push(Diagnostic::whole_file(
                path,
                "OpenCode session record is not a JSON object",
            ));
            None
        }
    };
    let id = main
        .as_ref()
        .map_or_else(|| super::model::id_from_path(path), |row| row.id.clone());
    let storage = storage_of(path).unwrap_or_else(|| path.to_path_buf());
    let mut store = JsonStore {
        storage,
        main,
        parents: None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_files::copy_tree;
    use crate::transcript::fsread;

    /// The main session of the real legacy storage with three subagent
    /// sessions (corpus `real-opencode-1.1.65-legacy-json/README.md`).
    const PARENT: &str = "ses_dcc99b764ffejo4IzDVf1tRC9K";
    const PROJECT: &str = "b1b723701d29a26aff31b3aa001b8ee39b69a447";

    /// A copy of the real legacy storage in a temporary folder, and the
    /// project folder of its session files.
    fn storage_copy() -> (tempfile::TempDir, PathBuf) {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/corpus/real-opencode-1.1.65-legacy-json/data/storage");
        let temp = tempfile::tempdir().expect("tempdir");
        let storage = temp.path().join("storage");
        copy_tree(&corpus, &storage);
        let project = storage.join("session").join(PROJECT);
        (temp, project)
    }

    /// A session file in `project` with `id` and `parent`.
    fn write_session(project: &Path, id: &str, parent: Option<&str>) -> PathBuf {
        let mut v = serde_json::json!({
            "id": id, "title": format!("session {id}"),
            "time": {"created": 1_796_158_672_000_i64, "updated": 1_796_158_672_000_i64}
        });
        if let Some(parent) = parent {
            v["parentID"] = Value::from(parent);
        }
        let path = project.join(format!("{id}.json"));
        std::fs::write(&path, v.to_string()).expect("write");
        path
    }

    fn subagent_ids(session: &Session) -> Vec<String> {
        session
            .subagents
            .iter()
            .filter_map(|s| s.agent_id.clone())
            .collect()
    }

    /// A load reads its own session file and its children's, not every
    /// session file of the storage: with 200 unrelated sessions beside it
    /// (one naming itself as its parent), the read log of the parent's load
    /// names 4 session files and the 2 session folders.
    #[test]
    fn a_load_reads_only_its_own_children_among_the_session_files() {
        let (_temp, project) = storage_copy();
        for i in 0..200 {
            write_session(&project, &format!("ses_other{i:03}"), None);
        }
        write_session(&project, "ses_selfparent", Some("ses_selfparent"));
        let main = project.join(format!("{PARENT}.json"));
        let (loaded, touched) = fsread::record(|| load_session(&main));
        let session = loaded.expect("loads");
        assert_eq!(
            subagent_ids(&session),
            [
                "ses_dcc99b669ffeL7m1RjoKHAJiZj",
                "ses_dcc99b55cffeNpV9p7Jf0zZLvu",
                "ses_dcc99b55bffe45L6pCkhA6RqX2"
            ]
        );
        let session_root = project.parent().expect("session/");
        let mut files: Vec<String> = touched
            .iter()
            .filter(|t| t.path.parent() == Some(project.as_path()))
            .filter_map(|t| t.path.file_stem()?.to_str().map(str::to_string))
            .collect();
        files.sort();
        files.dedup();
        assert_eq!(
            files,
            [
                "ses_dcc99b55bffe45L6pCkhA6RqX2",
                "ses_dcc99b55cffeNpV9p7Jf0zZLvu",
                "ses_dcc99b669ffeL7m1RjoKHAJiZj",
                PARENT
            ]
        );
        let folders: Vec<&PathBuf> = touched
            .iter()
            .filter(|t| matches!(t.stamp, Stamp::Folder { .. }))
            .map(|t| &t.path)
            .filter(|p| p.starts_with(session_root))
            .collect();
        assert_eq!(folders, [&session_root.to_path_buf(), &project]);
        // The session naming itself loads with no subagent.
        let own = load_session(&project.join("ses_selfparent.json")).expect("loads");
        assert!(subagent_ids(&own).is_empty());
    }

    /// The parent links kept between loads follow the folder: a child
    /// added, a child file first unreadable (being written) then complete
    /// in place, and a child removed are each seen by the next load in the
    /// same process.
    #[test]
    fn children_added_finished_or_removed_are_seen_by_the_next_load() {
        let (_temp, project) = storage_copy();
        let main = project.join(format!("{PARENT}.json"));
        let count = || subagent_ids(&load_session(&main).expect("loads")).len();
        assert_eq!(count(), 3);
        let added = write_session(&project, "ses_zadded", Some(PARENT));
        assert_eq!(count(), 4);
        let partial = project.join("ses_zpartial.json");
        std::fs::write(&partial, b"{\"id\": \"ses_zpartial\", \"parentID\"").expect("write");
        assert_eq!(count(), 4);
        // Completed in place: the folder's mtime does not move, the file's does.
        write_session(&project, "ses_zpartial", Some(PARENT));
        assert_eq!(count(), 5);
        std::fs::remove_file(&added).expect("remove");
        assert_eq!(count(), 4);
    }
}
