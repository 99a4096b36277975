//! The index never alters a database it did not create (docs/security.md
//! "The index"): another program's SQLite file at the index's path, or a
//! symbolic link there to one, is refused with one line on stderr and the
//! run works in memory; the file is left byte for byte. Before the fix a
//! database with a `meta(key, value)` table was taken for an old index and
//! its `meta`, `sessions` and `calls` tables were dropped.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::support::{corpus, indexed};

fn session_dir() -> PathBuf {
    corpus("real-cc-2.1.332/hooks_c2_exit2/projects")
}

fn sessions(cache: &Path) -> (String, String) {
    let out = indexed(cache)
        .args(["sessions", "--json"])
        .arg(session_dir())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Another program's database: generic table names, a `meta(key, value)`.
fn other_db(path: &Path, application_id: i32) {
    let conn = rusqlite::Connection::open(path).expect("open");
    conn.execute_batch(&format!(
        "PRAGMA application_id = {application_id};
         CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
         INSERT INTO meta VALUES ('schema', '3'), ('owner', 'accounts');
         CREATE TABLE sessions(id INTEGER PRIMARY KEY, user TEXT);
         INSERT INTO sessions(user) VALUES ('alice'), ('bob');
         CREATE TABLE calls(id INTEGER PRIMARY KEY, who TEXT);"
    ))
    .expect("fill");
}

fn dump(path: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).expect("open");
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .expect("prepare");
    let mut out: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    let users: Vec<String> = conn
        .prepare("SELECT user FROM sessions ORDER BY id")
        .expect("prepare")
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    out.extend(users);
    out
}

const KEPT: [&str; 5] = ["calls", "meta", "sessions", "alice", "bob"];

#[test]
fn another_programs_database_at_the_index_path_is_left_alone() {
    for application_id in [0, 0x1234] {
        let cache = TempDir::new().expect("temp");
        let dir = cache.path().join("hookscope");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let db = dir.join("index.sqlite");
        other_db(&db, application_id);
        let (out, err) = sessions(cache.path());
        assert!(out.contains("e1be136e"), "{out}");
        assert!(err.contains("not hookscope's index"), "{err}");
        assert!(err.contains("indexing in memory for this run"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert_eq!(dump(&db), KEPT);
    }
}

#[cfg(unix)]
#[test]
fn a_symlinked_index_file_is_not_followed() {
    let cache = TempDir::new().expect("temp");
    let elsewhere = TempDir::new().expect("temp");
    let target = elsewhere.path().join("accounts.db");
    other_db(&target, 0);
    let before = std::fs::read(&target).expect("read");
    let dir = cache.path().join("hookscope");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::os::unix::fs::symlink(&target, dir.join("index.sqlite")).expect("symlink");
    let (out, err) = sessions(cache.path());
    assert!(out.contains("e1be136e"), "{out}");
    assert!(err.contains("is a symbolic link"), "{err}");
    assert_eq!(std::fs::read(&target).expect("read"), before);
    // Even an empty file behind the link (which would be "a new index").
    let empty = elsewhere.path().join("empty.db");
    std::fs::write(&empty, b"").expect("write");
    std::fs::remove_file(dir.join("index.sqlite")).expect("rm");
    std::os::unix::fs::symlink(&empty, dir.join("index.sqlite")).expect("symlink");
    let (_, err) = sessions(cache.path());
    assert!(err.contains("is a symbolic link"), "{err}");
    assert_eq!(std::fs::read(&empty).expect("read"), b"");
}

#[test]
fn hookscopes_own_index_is_marked_and_reused() {
    let cache = TempDir::new().expect("temp");
    let (first, err) = sessions(cache.path());
    assert_eq!(err, "");
    let db = cache.path().join("hookscope/index.sqlite");
    let conn = rusqlite::Connection::open(&db).expect("open");
    let id: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .expect("id");
    assert_eq!(id, hookscope_core::index::schema::APPLICATION_ID);
    let marker: i64 = conn
        .query_row("SELECT count(*) FROM hookscope_index", [], |r| r.get(0))
        .expect("marker");
    assert_eq!(marker, 1);
    drop(conn);
    let (second, err) = sessions(cache.path());
    assert_eq!(err, "");
    assert_eq!(first, second);
}

/// An index written before the application id (schema 7 and older: id 0,
/// only hookscope's tables, a `meta` row `hookscope`) is still rebuilt.
#[test]
fn an_index_from_before_the_application_id_is_rebuilt() {
    let cache = TempDir::new().expect("temp");
    let dir = cache.path().join("hookscope");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let db = dir.join("index.sqlite");
    let conn = rusqlite::Connection::open(&db).expect("open");
    conn.execute_batch(
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
         INSERT INTO meta VALUES ('schema', '7'), ('hookscope', '0.1.0');
         CREATE TABLE sessions(x);
         CREATE TABLE calls(x);",
    )
    .expect("fill");
    drop(conn);
    let (out, err) = sessions(cache.path());
    assert!(out.contains("e1be136e"), "{out}");
    assert!(err.contains("(schema 7); rebuilding it"), "{err}");
    let (_, err) = sessions(cache.path());
    assert_eq!(err, "");
}

/// `find --input-contains` through the index, as JSON records.
fn find_contains(cache: &Path, root: &Path, word: &str, index: bool) -> usize {
    let mut cmd = indexed(cache);
    if !index {
        cmd.arg("--no-index");
    }
    let out = cmd
        .args([
            "find",
            "--json",
            "--tool-name",
            "Bash",
            "--input-contains",
            word,
        ])
        .arg(root)
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    v["records"].as_array().map_or(0, Vec::len)
}

/// A transcript rewritten with its size and mtime put back (`sed -i` +
/// `touch -r`, `cp -p`, `rsync -t`) is read again: its ctime and inode
/// changed. Before the fix the index answered from the old rows
/// (`NEWWORD` found 0 calls where `--no-index` found 1).
#[test]
fn a_rewrite_with_size_and_mtime_restored_is_not_served_stale() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    let src = session_dir()
        .join("-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl");
    let file = data
        .path()
        .join("p/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    std::fs::copy(&src, &file).expect("copy");
    let root = data.path();
    assert_eq!(find_contains(cache.path(), root, "echo original", true), 1);
    assert_eq!(find_contains(cache.path(), root, "NEWWORDX", true), 0);
    let before = std::fs::metadata(&file).expect("stat");
    // Same length: "echo original" → "NEWWORDxx bu" in the command only.
    let text = std::fs::read_to_string(&file).expect("read");
    let changed = text.replace(
        "\"command\":\"echo original command\"",
        "\"command\":\"echo NEWWORDX command\"",
    );
    assert_ne!(changed, text);
    assert_eq!(changed.len(), text.len());
    // Written in place and through a rename, each with the mtime put back.
    for rename in [false, true] {
        let target = if rename {
            data.path().join("tmp")
        } else {
            file.clone()
        };
        std::fs::write(&target, &changed).expect("write");
        let f = std::fs::File::options()
            .write(true)
            .open(&target)
            .expect("open");
        f.set_modified(before.modified().expect("mtime"))
            .expect("touch -r");
        drop(f);
        if rename {
            std::fs::rename(&target, &file).expect("rename");
        }
        let after = std::fs::metadata(&file).expect("stat");
        assert_eq!(after.len(), before.len());
        assert_eq!(after.modified().ok(), before.modified().ok());
        assert_eq!(find_contains(cache.path(), root, "NEWWORDX", false), 1);
        assert_eq!(find_contains(cache.path(), root, "NEWWORDX", true), 1);
        assert_eq!(find_contains(cache.path(), root, "echo original", true), 0);
        // Back to the old text for the second round.
        std::fs::write(&file, &text).expect("write");
        assert_eq!(find_contains(cache.path(), root, "echo original", true), 1);
    }
}

/// `find` with `HOOKSCOPE_INDEX_STATS=1`: the record count and whether the
/// sessions came from the discovery kept in the index (no walk).
fn find_stats(cache: &Path, root: &Path) -> (usize, bool) {
    let out = indexed(cache)
        .env("HOOKSCOPE_INDEX_STATS", "1")
        .args(["find", "--json", "--tool-name", "Bash", "--limit", "1000"])
        .arg(root)
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stats = stderr
        .lines()
        .find_map(|l| l.strip_prefix("hookscope-index-stats: "))
        .expect("stats line");
    let stats: serde_json::Value = serde_json::from_str(stats).expect("stats json");
    (
        v["records"].as_array().map_or(0, Vec::len),
        stats["sync"]["stored_discovery"] == true,
    )
}

/// The second `find` over the same roots answers from the discovery kept
/// in the index (no walk); a session file added, one appended to, a
/// subagent folder created, or a file removed, and the next one walks
/// again and counts what a walk counts.
#[test]
fn find_answers_without_a_walk_until_a_folder_or_file_changes() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    let src = session_dir()
        .join("-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl");
    let project = data.path().join("p");
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::copy(&src, project.join("a.jsonl")).expect("copy");
    let root = data.path();
    let (one, stored) = find_stats(cache.path(), root);
    assert!(one > 0);
    assert!(!stored, "the first find walks");
    assert_eq!(find_stats(cache.path(), root), (one, true));
    // A second session in the folder.
    std::fs::copy(&src, project.join("b.jsonl")).expect("copy");
    assert_eq!(find_stats(cache.path(), root), (2 * one, false));
    assert_eq!(find_stats(cache.path(), root), (2 * one, true));
    // One session's file grows by a copy of its own lines (same calls
    // again: their ids repeat, so the count is what a walk gives).
    let text = std::fs::read(&src).expect("read");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(project.join("b.jsonl"))
        .expect("open");
    std::io::Write::write_all(&mut f, &text).expect("append");
    drop(f);
    let (grown, stored) = find_stats(cache.path(), root);
    assert!(!stored);
    let mut walk = indexed(cache.path());
    let plain = walk
        .args([
            "--no-index",
            "find",
            "--json",
            "--tool-name",
            "Bash",
            "--limit",
            "1000",
        ])
        .arg(root)
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&plain.stdout).expect("json");
    assert_eq!(grown, v["records"].as_array().map_or(0, Vec::len));
    assert_eq!(find_stats(cache.path(), root), (grown, true));
    // A new folder deeper down, then a file removed.
    std::fs::create_dir_all(project.join("a/subagents")).expect("mkdir");
    assert!(!find_stats(cache.path(), root).1);
    std::fs::remove_file(project.join("b.jsonl")).expect("rm");
    assert_eq!(find_stats(cache.path(), root), (one, false));
    assert_eq!(find_stats(cache.path(), root), (one, true));
}
