//! A grown Claude Code main file is indexed from where it ended
//! (`src/index/grow.rs`): every stored row (sessions, calls, diagnostics,
//! and the checkpoint itself) equals a fresh full index of the whole file
//! in another cache folder, for every real Claude Code main file of the
//! corpus cut at several line boundaries and inside a line; and the cases
//! it does not model are loaded whole (`resumed` 0) with the same rows.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use hookscope_core::index::{Index, SyncStats};
use hookscope_core::transcript::{SessionRef, discover};
use tempfile::TempDir;

use crate::support::{corpus, indexed};

/// The Claude Code main files (not subagent transcripts) under `dir`.
fn main_files(dir: &Path) -> Vec<PathBuf> {
    let found = discover(&[dir.to_path_buf()]).expect("discover");
    let mut out: Vec<PathBuf> = found
        .sessions
        .iter()
        .filter(|s| s.agent == hookscope_core::transcript::Agent::ClaudeCode)
        .map(|s| s.path.clone())
        .collect();
    out.sort();
    out
}

fn sessions(dir: &Path) -> Vec<SessionRef> {
    discover(&[dir.to_path_buf()]).expect("discover").sessions
}

fn sync(cache: &Path, dir: &Path) -> SyncStats {
    let mut index = Index::open(cache).expect("index");
    index.sync(&sessions(dir), &mut |_| {}).stats
}

/// Every row of the index's tables, as text, in key order.
fn dump(cache: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(cache.join("index.sqlite")).expect("open");
    let mut out = Vec::new();
    for query in [
        "SELECT * FROM sessions ORDER BY path, id",
        "SELECT * FROM calls ORDER BY s_path, s_id, seq",
        "SELECT * FROM diagnostics ORDER BY s_path, s_id, ord",
        "SELECT * FROM checkpoints ORDER BY s_path, s_id",
    ] {
        let mut stmt = conn.prepare(query).expect("prepare");
        let n = stmt.column_count();
        let mut rows = stmt.query([]).expect("query");
        while let Some(row) = rows.next().expect("row") {
            let cells: Vec<String> = (0..n)
                .map(|i| format!("{:?}", row.get_ref(i).expect("cell")))
                .collect();
            out.push(format!("{query}: {}", cells.join(" | ")));
        }
    }
    out
}

/// Writes `prefix` as the session file, indexes it in `grown`, appends
/// `rest`, syncs again; then indexes the whole file fresh and compares
/// every row. Returns the second sync's stats.
fn grow_and_compare(file: &Path, prefix: &[u8], rest: &[u8]) -> SyncStats {
    let dir = file.parent().and_then(Path::parent).expect("projects dir");
    let grown = TempDir::new().expect("temp");
    let fresh = TempDir::new().expect("temp");
    std::fs::write(file, prefix).expect("write");
    sync(grown.path(), dir);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .expect("open");
    f.write_all(rest).expect("append");
    drop(f);
    let stats = sync(grown.path(), dir);
    assert_eq!(stats.indexed, 1, "{}", file.display());
    let full = sync(fresh.path(), dir);
    assert_eq!((full.indexed, full.resumed), (1, 0));
    let (a, b) = (dump(grown.path()), dump(fresh.path()));
    assert_eq!(a.len(), b.len(), "{}: row count", file.display());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "{} cut at {}", file.display(), prefix.len());
    }
    stats
}

/// A temp project holding a copy of `source` (main file only).
fn project(tmp: &Path, source: &Path) -> PathBuf {
    let project = tmp.join("projects/-p");
    std::fs::create_dir_all(&project).expect("mkdir");
    project.join(source.file_name().expect("name"))
}

/// Cut points of `bytes`: after 1 line, at 1/4, 1/2, 3/4 of the lines,
/// before the last line, and inside the middle line and inside the last
/// line (a partial last line at the old end).
fn cuts(bytes: &[u8]) -> Vec<usize> {
    let ends = crate::support::line_ends(bytes);
    let n = ends.len();
    let mut out = Vec::new();
    for k in [1, n / 4, n / 2, 3 * n / 4, n.saturating_sub(1)] {
        if k >= 1 && k < n {
            out.push(ends[k - 1]);
        }
    }
    if n >= 3 {
        let mid = ends[n / 2 - 1];
        out.push(mid + (ends[n / 2] - mid) / 2);
        let last = ends[n - 2];
        out.push(last + (ends[n - 1] - last) / 2);
    }
    out.sort_unstable();
    out.dedup();
    out.retain(|&c| c > 0 && c < bytes.len());
    out
}

#[test]
fn every_real_main_file_grown_at_any_cut_equals_a_full_index() {
    let mut files = main_files(&corpus("real-cc-2.1.332"));
    // A few of the other Claude Code fixtures.
    files.extend(main_files(&corpus(
        "claude-code-viewer/mock-global-claude-dir",
    )));
    assert!(files.len() >= 8, "{files:?}");
    let mut resumed = 0;
    let mut tried = 0;
    for source in &files {
        let bytes = std::fs::read(source).expect("read");
        for cut in cuts(&bytes) {
            let tmp = TempDir::new().expect("temp");
            let file = project(tmp.path(), source);
            let stats = grow_and_compare(&file, &bytes[..cut], &bytes[cut..]);
            assert_eq!(stats.grown, 1);
            resumed += stats.resumed;
            tried += 1;
        }
    }
    // Most cuts resume (the others hold a summary line or reuse an id).
    assert!(resumed * 2 > tried, "{resumed} of {tried}");
}

/// One JSON line.
fn line(v: serde_json::Value) -> Vec<u8> {
    let mut out = serde_json::to_vec(&v).expect("json");
    out.push(b'\n');
    out
}

fn prompt(text: &str, ts: &str) -> Vec<u8> {
    line(serde_json::json!({
        "type": "user", "timestamp": ts, "cwd": "/w", "version": "2.1.0",
        "message": {"role": "user", "content": text}
    }))
}

fn tool_use(id: &str, command: &str, ts: &str) -> Vec<u8> {
    line(serde_json::json!({
        "type": "assistant", "timestamp": ts,
        "message": {"id": format!("m-{id}"), "role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}
        ]}
    }))
}

fn tool_result(id: &str, text: &str, is_error: bool, ts: &str) -> Vec<u8> {
    line(serde_json::json!({
        "type": "user", "timestamp": ts,
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": text, "is_error": is_error}
        ]}
    }))
}

fn post_hook(id: &str, ts: &str) -> Vec<u8> {
    line(serde_json::json!({
        "type": "attachment", "timestamp": ts,
        "attachment": {"type": "hook_success", "hookName": "PostToolUse:Bash",
          "hookEvent": "PostToolUse", "toolUseID": id, "stdout": "ok", "exitCode": 0,
          "command": "check.sh"}
    }))
}

const SID: &str = "11111111-2222-3333-4444-555555555555";

fn hand_file(tmp: &Path) -> PathBuf {
    let project = tmp.join("projects/-p");
    std::fs::create_dir_all(&project).expect("mkdir");
    project.join(format!("{SID}.jsonl"))
}

/// The old part: a prompt, a call with its result, a call still running.
fn old_part() -> Vec<u8> {
    [
        prompt("first", "2026-01-01T00:00:00Z"),
        tool_use("t1", "ls", "2026-01-01T00:00:01Z"),
        tool_result("t1", "a b", false, "2026-01-01T00:00:02Z"),
        tool_use("t2", "false", "2026-01-01T00:00:03Z"),
    ]
    .concat()
}

#[test]
fn a_result_for_an_earlier_call_updates_its_row_and_only_new_bytes_are_read() {
    let tmp = TempDir::new().expect("temp");
    let file = hand_file(tmp.path());
    let old = old_part();
    let new = [
        tool_result("t2", "boom", true, "2026-01-01T00:00:04Z"),
        post_hook("t2", "2026-01-01T00:00:05Z"),
        post_hook("t1", "2026-01-01T00:00:06Z"),
        prompt("second", "2026-01-01T00:01:00Z"),
        tool_use("t3", "pwd", "2026-01-01T00:01:01Z"),
    ]
    .concat();
    let stats = grow_and_compare(&file, &old, &new);
    assert_eq!((stats.grown, stats.resumed), (1, 1));
    // The old tail hash (4096 bytes or the whole old file), the new bytes,
    // and the new tail hash.
    let size = (old.len() + new.len()) as u64;
    let expected = (old.len() as u64).min(4096) + new.len() as u64 + size.min(4096);
    assert_eq!(stats.bytes_read, expected);
}

/// Syncs `old` then `old + new` and says whether the second sync resumed;
/// the rows always equal a full index.
fn resumes(old: &[u8], new: &[u8]) -> bool {
    let tmp = TempDir::new().expect("temp");
    let file = hand_file(tmp.path());
    let stats = grow_and_compare(&file, old, new);
    assert_eq!(stats.grown, 1);
    stats.resumed == 1
}

#[test]
fn hostile_appends_come_out_as_a_full_index() {
    let old = old_part();
    // Invalid UTF-8 inside a string of a new line.
    let mut bad_utf8 = tool_result("t2", "x", false, "2026-01-01T00:00:04Z");
    let at = bad_utf8.len() - 60;
    bad_utf8.splice(at..at, [0xff, 0xfe]);
    assert!(resumes(&old, &bad_utf8));
    // A 10 MB line.
    let big = "y".repeat(10 << 20);
    assert!(resumes(
        &old,
        &tool_result("t2", &big, false, "2026-01-01T00:00:04Z")
    ));
    // A malformed line, then a good one.
    let malformed = [
        b"{\"type\": \"user\", oops\n".to_vec(),
        prompt("again", "2026-01-01T00:02:00Z"),
    ]
    .concat();
    assert!(resumes(&old, &malformed));
    // A truncated last line in the new part.
    let mut truncated = tool_result("t2", "x", false, "2026-01-01T00:00:04Z");
    truncated.truncate(truncated.len() / 2);
    assert!(resumes(&old, &truncated));
    // A compact boundary is an event like any other.
    let compact = line(serde_json::json!({
        "type": "system", "subtype": "compact_boundary", "timestamp": "2026-01-01T00:03:00Z",
        "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 5}
    }));
    assert!(resumes(&old, &compact));
    // Not modelled: a tool_use reusing an earlier id, a summary line, a
    // sidechain line.
    assert!(!resumes(
        &old,
        &tool_use("t1", "again", "2026-01-01T00:04:00Z")
    ));
    let summary = line(serde_json::json!({"type": "summary", "summary": "S", "leafUuid": "u1"}));
    assert!(!resumes(&old, &summary));
    let sidechain = line(serde_json::json!({
        "type": "user", "isSidechain": true, "uuid": "s1", "timestamp": "2026-01-01T00:05:00Z",
        "message": {"role": "user", "content": "sub"}
    }));
    assert!(!resumes(&old, &sidechain));
}

#[test]
fn a_line_completed_after_the_old_end_is_read_again() {
    let old = old_part();
    let next = tool_result("t2", "done", false, "2026-01-01T00:00:04Z");
    // The old file ends inside that line (a live session mid-write).
    let cut = next.len() / 3;
    let prefix = [old.clone(), next[..cut].to_vec()].concat();
    assert!(resumes(&prefix, &next[cut..]));
    // The old file ends with a line that parses but lacks its newline: no
    // checkpoint, loaded whole.
    let prefix = [old.clone(), next[..next.len() - 1].to_vec()].concat();
    assert!(!resumes(&prefix, b"\n"));
}

#[test]
fn a_session_with_subagent_files_is_loaded_whole_with_the_same_rows() {
    let source = corpus("real-cc-2.1.332/subagent/projects/-home-dev-work-subagent");
    let tmp = TempDir::new().expect("temp");
    let project = tmp.path().join("projects/-home-dev-work-subagent");
    let id = "8bb2dece-a24f-43d4-80d6-3ee9a889b550";
    let subagents = project.join(id).join("subagents");
    std::fs::create_dir_all(&subagents).expect("mkdir");
    for entry in std::fs::read_dir(source.join(id).join("subagents")).expect("list") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), subagents.join(entry.file_name())).expect("copy");
    }
    let bytes = std::fs::read(source.join(format!("{id}.jsonl"))).expect("read");
    let file = project.join(format!("{id}.jsonl"));
    for cut in cuts(&bytes) {
        let stats = grow_and_compare(&file, &bytes[..cut], &bytes[cut..]);
        assert_eq!((stats.grown, stats.resumed), (1, 0));
    }
}

#[test]
fn a_file_rewritten_with_the_same_growth_is_indexed_whole() {
    let tmp = TempDir::new().expect("temp");
    let file = hand_file(tmp.path());
    let dir = tmp.path().join("projects");
    let cache = TempDir::new().expect("temp");
    let old = old_part();
    std::fs::write(&file, &old).expect("write");
    sync(cache.path(), &dir);
    // Same size as a growth would give, but the old bytes changed.
    let mut rewritten = old.clone();
    let at = rewritten.len() - 10;
    rewritten[at] = b'X';
    rewritten.extend_from_slice(&prompt("more", "2026-01-01T00:09:00Z"));
    std::fs::write(&file, &rewritten).expect("rewrite");
    let stats = sync(cache.path(), &dir);
    assert_eq!((stats.indexed, stats.grown, stats.resumed), (1, 0, 0));
    let fresh = TempDir::new().expect("temp");
    sync(fresh.path(), &dir);
    assert_eq!(dump(cache.path()), dump(fresh.path()));
}

/// `hookscope <args>` with the cache folder `cache`: stdout.
fn run(cache: &Path, args: &[&str]) -> String {
    let out = indexed(cache).args(args).output().expect("run");
    assert!(out.status.success(), "{args:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn find_and_sessions_after_a_resume_equal_no_index() {
    let cache = TempDir::new().expect("temp");
    let source = corpus(
        "real-cc-2.1.332/tools/projects/-home-dev-work-tools/e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl",
    );
    let bytes = std::fs::read(&source).expect("read");
    let tmp = TempDir::new().expect("temp");
    let file = project(tmp.path(), &source);
    let cut = cuts(&bytes)[2];
    std::fs::write(&file, &bytes[..cut]).expect("write");
    let root = tmp.path().to_str().expect("utf-8");
    run(cache.path(), &["sessions", "--json", root]);
    std::fs::write(&file, &bytes).expect("grow");
    let find = [
        "find",
        "--json",
        "--no-redact",
        "--now",
        "2026-12-01T00:00:00Z",
        "--tool-name-pattern",
        "",
        "--limit",
        "1000",
        root,
    ];
    let indexed = run(cache.path(), &find);
    let mut without = vec!["--no-index"];
    without.extend_from_slice(&find);
    assert_eq!(indexed, run(cache.path(), &without));
    let listed = run(cache.path(), &["sessions", "--json", root]);
    assert_eq!(
        listed,
        run(cache.path(), &["--no-index", "sessions", "--json", root])
    );
}

#[test]
fn reading_from_a_line_start_gives_the_lines_and_diagnostics_of_the_whole_file() {
    use hookscope_core::transcript::jsonl::{Place, read_objects, read_objects_from};
    let tmp = TempDir::new().expect("temp");
    let path = tmp.path().join("t.jsonl");
    let mut bytes = b"{\"a\":1}\n\n{bad\n{\"b\":\"\xff\"}\n[1]\n{\"c\":".to_vec();
    std::fs::write(&path, &bytes).expect("write");
    let mut whole_diags = Vec::new();
    let mut whole = Vec::new();
    read_objects(&path, &mut whole_diags, |n, v| whole.push((n, v))).expect("read");
    // From line 3 (offset 9: after "{\"a\":1}\n\n").
    let mut place = Place {
        offset: 9,
        lines: 2,
        ..Place::default()
    };
    let mut diags = Vec::new();
    let mut got = Vec::new();
    let mut starts = Vec::new();
    read_objects_from(
        &path,
        &mut place,
        &mut diags,
        |n, v| got.push((n, v)),
        Some(&mut starts),
    )
    .expect("read");
    assert_eq!(got, whole[1..].to_vec());
    assert_eq!(diags, whole_diags);
    // Lines 3..=6 start at 9, 14, 24, 28; the file ends at 33.
    assert_eq!(starts, vec![9, 14, 24, 28, 33]);
    assert_eq!(
        (place.offset, place.lines, place.last_start, place.partial),
        (33, 6, 28, true)
    );
    assert!(!place.partial_delivered);
    // Once the last line is complete it is delivered.
    bytes.extend_from_slice(b"2}\n");
    std::fs::write(&path, &bytes).expect("write");
    let mut place = Place {
        offset: 28,
        lines: 5,
        ..Place::default()
    };
    let mut got = Vec::new();
    read_objects_from(
        &path,
        &mut place,
        &mut Vec::new(),
        |n, v| got.push((n, v)),
        None,
    )
    .expect("read");
    assert_eq!(got, vec![(6, serde_json::json!({"c": 2}))]);
    assert!(!place.partial);
}
