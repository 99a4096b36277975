//! The persisted index over Droid sessions and OpenCode's legacy JSON
//! storage: their deps are the loader's read log (`fsread::record`), so a
//! second sync reuses every session, answers equal those without the index
//! byte for byte, and each change the loader would see (a settings file, a
//! child transcript appearing where `task-invocations.json` points, a
//! message file, a part file added or removed, a file turned into a FIFO or
//! a folder, paths that are not UTF-8) re-indexes exactly the sessions that
//! read it. Every test works on its own copy of the corpus with its own
//! `XDG_CACHE_HOME`.
//!
//! Counts read out of the corpus files (python3 over the JSON):
//! - real-droid-0.225.2: 6 transcripts (`factory/sessions/*/*.jsonl`);
//!   `bf23b181….jsonl` has 4 `Task` calls whose 4 links in
//!   `state/task-invocations.json` name children with no transcript (4
//!   diagnostics); the first names `3cf97870-00d1-4f97-a3b3-801d70b243cb`.
//! - real-opencode-1.1.65-legacy-json: 6 session files, 3 with a `parentID`
//!   (children of `ses_dcc99b764…`), so 3 sessions are listed.
//!   `ses_dcc99ad7…` has 6 messages and 4 `tool` parts (bash, invalid, read,
//!   read); message `msg_2336653d6001…` holds the `invalid` and first `read`
//!   ones (`prt_2336653f6001…`, `prt_2336653f8001…`).

use std::path::{Path, PathBuf};

use hookscope_core::index::Index;
use hookscope_core::transcript::discover;
use serde_json::Value;
use tempfile::TempDir;

use crate::support::{copy_tree, corpus, indexed};

const PARENT: &str = "bf23b181-02c9-4443-8222-f4710a76d949";
const CHILD: &str = "3cf97870-00d1-4f97-a3b3-801d70b243cb";
const ERRORS_SESSION: &str = "ses_dcc99ad7affeKUPQJdBSv0mTjD";
const ERRORS_MSG: &str = "msg_2336653d6001llbsbeNuLHShPv";
const READ_PART: &str = "prt_2336653f8001ZrJ2mQLkdNLWnE.json";

/// A copy of the Droid corpus's `factory` folder under `dir`; returns it.
fn droid_copy(dir: &Path) -> PathBuf {
    let factory = dir.join("factory");
    copy_tree(&corpus("real-droid-0.225.2/factory"), &factory);
    factory
}

/// A copy of the legacy OpenCode corpus's `data` folder under `dir`;
/// returns its `storage` folder.
fn opencode_copy(dir: &Path) -> PathBuf {
    let data = dir.join("data");
    copy_tree(&corpus("real-opencode-1.1.65-legacy-json/data"), &data);
    data.join("storage")
}

/// One run's output.
struct Run {
    stdout: String,
    stderr: String,
    /// The `HOOKSCOPE_INDEX_STATS` line, when the index was used.
    stats: Option<Value>,
}

/// Runs hookscope with the cache folder `cache` and the stats line on.
fn run(cache: &Path, args: &[&std::ffi::OsStr]) -> Run {
    let out = indexed(cache)
        .env("HOOKSCOPE_INDEX_STATS", "1")
        .args(args)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let mut stats = None;
    let mut rest = String::new();
    for line in stderr.lines() {
        match line.strip_prefix("hookscope-index-stats: ") {
            Some(json) => stats = Some(serde_json::from_str(json).expect("stats JSON")),
            None => {
                rest.push_str(line);
                rest.push('\n');
            }
        }
    }
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: rest,
        stats,
    }
}

fn sync_stat(r: &Run, key: &str) -> u64 {
    let stats = r.stats.as_ref().expect("stats line");
    stats["sync"][key]
        .as_u64()
        .unwrap_or_else(|| panic!("no {key} in {stats}"))
}

/// `args` with the root (an `OsStr`, maybe not UTF-8) where `{}` stands.
fn with_root<'a>(args: &[&'a str], root: &'a Path) -> Vec<&'a std::ffi::OsStr> {
    args.iter()
        .map(|a| {
            if *a == "{}" {
                root.as_os_str()
            } else {
                std::ffi::OsStr::new(*a)
            }
        })
        .collect()
}

/// Asserts that `args` print the same with the index as without
/// (`--no-index`), and returns the indexed run.
fn same(cache: &Path, root: &Path, args: &[&str]) -> Run {
    let mut plain = vec!["--no-index"];
    plain.extend_from_slice(args);
    let want = run(cache, &with_root(&plain, root));
    assert!(want.stats.is_none(), "--no-index used the index");
    let got = run(cache, &with_root(args, root));
    assert_eq!(got.stdout, want.stdout, "stdout of {args:?}");
    assert_eq!(got.stderr, want.stderr, "stderr of {args:?}");
    assert!(got.stats.is_some(), "no stats line for {args:?}");
    got
}

/// The `find` queries compared (`{}` = the root).
const FINDS: &[&[&str]] = &[
    &[
        "find",
        "{}",
        "--json",
        "--no-redact",
        "--tool-name-pattern",
        "",
        "--limit",
        "5000",
    ],
    &["find", "{}", "--json", "--no-redact", "--tool-name", "Bash"],
    &[
        "find",
        "{}",
        "--json",
        "--no-redact",
        "--tool-name-pattern",
        "",
        "--input-contains",
        "py",
    ],
    &[
        "find",
        "{}",
        "--json",
        "--no-redact",
        "--tool-name-pattern",
        "",
        "--output-contains",
        "error",
    ],
    &[
        "find",
        "{}",
        "--json",
        "--no-redact",
        "--tool-name-pattern",
        "",
        "--is-error",
        "true",
    ],
    &[
        "find",
        "{}",
        "--json",
        "--no-redact",
        "--tool-name-pattern",
        "",
        "--agent",
        "droid",
        "--limit",
        "3",
    ],
    &[
        "find",
        "{}",
        "--json",
        "--no-redact",
        "--tool-name-pattern",
        "",
        "--hook",
        "PreToolUse",
    ],
    &[
        "find",
        "{}",
        "--json",
        "--no-redact",
        "--tool-name-pattern",
        "",
        "--since",
        "2026-12-01T20:58:20Z",
    ],
];

/// `sessions --json` (the first, syncing run: returned), `sessions
/// --diagnostics --json` and every [`FINDS`] query, each compared with
/// `--no-index`.
fn all_same(cache: &Path, root: &Path) -> Run {
    let first = same(cache, root, &["sessions", "--json", "{}"]);
    same(cache, root, &["sessions", "--diagnostics", "--json", "{}"]);
    for query in FINDS {
        same(cache, root, query);
    }
    first
}

/// The `sessions --json` entry with this `id`.
fn session<'a>(listed: &'a [Value], id: &str) -> &'a Value {
    listed
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no session {id}"))
}

fn listed(r: &Run) -> Vec<Value> {
    serde_json::from_str::<Value>(&r.stdout)
        .expect("sessions JSON")
        .as_array()
        .cloned()
        .expect("an array")
}

/// A first run (index cold: all `sessions` indexed) and a second one
/// (warm: all reused, nothing read) on `root`.
fn warm(cache: &Path, root: &Path, sessions: u64) {
    let cold = same(cache, root, &["sessions", "--json", "{}"]);
    assert_eq!(sync_stat(&cold, "sessions"), sessions);
    assert_eq!(sync_stat(&cold, "indexed"), sessions);
    assert_eq!(sync_stat(&cold, "not_indexed"), 0);
    let warm = same(cache, root, &["sessions", "--json", "{}"]);
    assert_eq!(sync_stat(&warm, "reused"), sessions);
    assert_eq!(sync_stat(&warm, "indexed"), 0);
    assert_eq!(sync_stat(&warm, "bytes_read"), 0);
}

/// After a change: every answer equals `--no-index`, exactly `indexed`
/// sessions were indexed again (the rest reused), and a further run reuses
/// them all. Returns the listing.
fn after_change(cache: &Path, root: &Path, sessions: u64, indexed: u64) -> Vec<Value> {
    let first = all_same(cache, root);
    assert_eq!(sync_stat(&first, "sessions"), sessions);
    assert_eq!(sync_stat(&first, "indexed"), indexed, "{:?}", first.stats);
    assert_eq!(sync_stat(&first, "reused"), sessions - indexed);
    assert_eq!(sync_stat(&first, "not_indexed"), 0);
    let again = same(cache, root, &["sessions", "--json", "{}"]);
    assert_eq!(sync_stat(&again, "reused"), sessions);
    listed(&first)
}

#[test]
fn a_second_sync_reuses_every_droid_and_opencode_json_session() {
    let tmp = TempDir::new().expect("temp");
    let factory = droid_copy(tmp.path());
    let storage = opencode_copy(tmp.path());
    let roots = vec![
        factory.join("sessions"),
        storage.parent().expect("data").to_path_buf(),
    ];
    let found = discover(&roots).expect("discover");
    // 6 Droid transcripts and 3 top-level legacy OpenCode sessions.
    assert_eq!(found.sessions.len(), 9);
    let cache = TempDir::new().expect("cache");
    let mut index = Index::open(cache.path()).expect("index");
    let first = index.sync(&found.sessions, &mut |_| {});
    assert_eq!(first.stats.indexed, 9);
    assert_eq!(first.stats.not_indexed, 0);
    let second = index.sync(&found.sessions, &mut |_| {});
    assert_eq!(second.stats.sessions, 9);
    assert_eq!(second.stats.reused, 9);
    assert_eq!(second.stats.indexed, 0);
    assert_eq!(second.stats.not_indexed, 0);
    assert_eq!(second.stats.bytes_read, 0);
    assert_eq!(index.current(&found.sessions), vec![true; 9]);
}

#[test]
fn droid_and_opencode_json_answers_equal_the_loaders() {
    let tmp = TempDir::new().expect("temp");
    droid_copy(tmp.path());
    opencode_copy(tmp.path());
    let cache = TempDir::new().expect("cache");
    warm(cache.path(), tmp.path(), 9);
    let first = all_same(cache.path(), tmp.path());
    assert_eq!(sync_stat(&first, "reused"), 9);
    let listed = listed(&first);
    assert_eq!(session(&listed, PARENT)["diagnostics"], 4);
    assert_eq!(session(&listed, ERRORS_SESSION)["tool_calls"], 4);
}

#[test]
fn a_droid_settings_file_edited_is_seen() {
    let tmp = TempDir::new().expect("temp");
    let factory = droid_copy(tmp.path());
    let cache = TempDir::new().expect("cache");
    warm(cache.path(), &factory, 6);
    let settings = factory.join(format!(
        "sessions/-home-dev-work-dr-subagent/{PARENT}.settings.json"
    ));
    std::fs::write(&settings, "{not json").expect("write");
    let listed = after_change(cache.path(), &factory, 6, 1);
    // The 4 missing children and now the settings file.
    assert_eq!(session(&listed, PARENT)["diagnostics"], 5);
}

/// A Droid transcript of one prompt and one `Execute` call.
fn child_transcript(id: &str) -> String {
    [
        format!(r#"{{"type":"session_start","id":"{id}","title":"child","cwd":"/w"}}"#),
        r#"{"type":"message","id":"x1","timestamp":"2026-12-01T20:58:29Z","message":{"role":"user","content":[{"type":"text","text":"explore"}]}}"#.to_string(),
        r#"{"type":"message","id":"x2","timestamp":"2026-12-01T20:58:30Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"k1","name":"Execute","input":{"command":"ls"}}]}}"#.to_string(),
        String::new(),
    ]
    .join("\n")
}

#[test]
fn a_droid_child_transcript_appearing_is_linked() {
    let tmp = TempDir::new().expect("temp");
    let factory = droid_copy(tmp.path());
    let cache = TempDir::new().expect("cache");
    warm(cache.path(), &factory, 6);
    // Where task-invocations.json points: any slug folder of `sessions`.
    std::fs::write(
        factory.join(format!("sessions/-home-dev-work-dr-abort/{CHILD}.jsonl")),
        child_transcript(CHILD),
    )
    .expect("write");
    // The parent (its look-up found the file) and the new session itself.
    let listed = after_change(cache.path(), &factory, 7, 2);
    let parent = session(&listed, PARENT);
    assert_eq!(parent["subagents"], 1);
    assert_eq!(parent["diagnostics"], 3);
    assert_eq!(parent["tool_calls"], 5);
    assert_eq!(session(&listed, CHILD)["tool_calls"], 1);
}

#[test]
fn an_opencode_json_message_file_changed_is_seen() {
    let tmp = TempDir::new().expect("temp");
    let storage = opencode_copy(tmp.path());
    let cache = TempDir::new().expect("cache");
    warm(cache.path(), tmp.path(), 3);
    let message = storage.join(format!("message/{ERRORS_SESSION}/{ERRORS_MSG}.json"));
    std::fs::write(&message, "[]").expect("write");
    let listed = after_change(cache.path(), tmp.path(), 3, 1);
    let s = session(&listed, ERRORS_SESSION);
    assert_eq!(s["diagnostics"], 1);
    // Its two tool parts are gone with it.
    assert_eq!(s["tool_calls"], 2);
}

#[test]
fn an_opencode_json_part_file_added_is_seen() {
    let tmp = TempDir::new().expect("temp");
    let storage = opencode_copy(tmp.path());
    let cache = TempDir::new().expect("cache");
    warm(cache.path(), tmp.path(), 3);
    let parts = storage.join(format!("part/{ERRORS_MSG}"));
    let mut part: Value =
        serde_json::from_slice(&std::fs::read(parts.join(READ_PART)).expect("read part"))
            .expect("part JSON");
    part["id"] = "prt_2336653f9001zzzzzzzzzzzzzz".into();
    part["callID"] = "call_added".into();
    std::fs::write(
        parts.join("prt_2336653f9001zzzzzzzzzzzzzz.json"),
        serde_json::to_vec(&part).expect("JSON"),
    )
    .expect("write");
    let listed = after_change(cache.path(), tmp.path(), 3, 1);
    assert_eq!(session(&listed, ERRORS_SESSION)["tool_calls"], 5);
}

#[test]
fn an_opencode_json_part_file_removed_is_seen() {
    let tmp = TempDir::new().expect("temp");
    let storage = opencode_copy(tmp.path());
    let cache = TempDir::new().expect("cache");
    warm(cache.path(), tmp.path(), 3);
    std::fs::remove_file(storage.join(format!("part/{ERRORS_MSG}/{READ_PART}"))).expect("rm");
    let listed = after_change(cache.path(), tmp.path(), 3, 1);
    assert_eq!(session(&listed, ERRORS_SESSION)["tool_calls"], 3);
}

#[cfg(unix)]
#[test]
fn a_dep_that_becomes_a_fifo_is_seen_and_not_opened() {
    let tmp = TempDir::new().expect("temp");
    let factory = droid_copy(tmp.path());
    let cache = TempDir::new().expect("cache");
    warm(cache.path(), &factory, 6);
    let settings = factory.join(format!(
        "sessions/-home-dev-work-dr-subagent/{PARENT}.settings.json"
    ));
    std::fs::remove_file(&settings).expect("rm");
    let made = std::process::Command::new("mkfifo")
        .arg(&settings)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    // The run would hang in open() if the FIFO were opened (run's timeout).
    let listed = after_change(cache.path(), &factory, 6, 1);
    assert_eq!(session(&listed, PARENT)["diagnostics"], 5);
}

#[test]
fn a_dep_that_becomes_a_folder_is_seen() {
    let tmp = TempDir::new().expect("temp");
    let storage = opencode_copy(tmp.path());
    let factory = droid_copy(tmp.path());
    let cache = TempDir::new().expect("cache");
    warm(cache.path(), tmp.path(), 9);
    let settings = factory.join(format!(
        "sessions/-home-dev-work-dr-subagent/{PARENT}.settings.json"
    ));
    std::fs::remove_file(&settings).expect("rm");
    std::fs::create_dir(&settings).expect("mkdir");
    let part = storage.join(format!("part/{ERRORS_MSG}/{READ_PART}"));
    std::fs::remove_file(&part).expect("rm");
    std::fs::create_dir(&part).expect("mkdir");
    let listed = after_change(cache.path(), tmp.path(), 9, 2);
    assert_eq!(session(&listed, PARENT)["diagnostics"], 5);
    let s = session(&listed, ERRORS_SESSION);
    assert_eq!(s["diagnostics"], 1);
    assert_eq!(s["tool_calls"], 3);
}

#[cfg(unix)]
#[test]
fn deps_under_a_folder_that_is_not_utf8_are_reused_and_invalidated() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = TempDir::new().expect("temp");
    // Every path below holds the byte 0xff, a tab and a backslash.
    let odd = tmp
        .path()
        .join(std::ffi::OsStr::from_bytes(b"odd-\xff\t\\-name"));
    let factory = droid_copy(&odd);
    let storage = opencode_copy(&odd);
    let cache = TempDir::new().expect("cache");
    warm(cache.path(), &odd, 9);
    std::fs::remove_file(storage.join(format!("part/{ERRORS_MSG}/{READ_PART}"))).expect("rm");
    std::fs::write(
        factory.join(format!("sessions/-home-dev-work-dr-abort/{CHILD}.jsonl")),
        child_transcript(CHILD),
    )
    .expect("write");
    let listed = after_change(cache.path(), &odd, 10, 3);
    assert_eq!(session(&listed, ERRORS_SESSION)["tool_calls"], 3);
    assert_eq!(session(&listed, PARENT)["subagents"], 1);
}

#[test]
fn a_droid_transcript_that_only_grew_is_indexed_again_as_grown() {
    let tmp = TempDir::new().expect("temp");
    let factory = droid_copy(tmp.path());
    let cache = TempDir::new().expect("cache");
    warm(cache.path(), &factory, 6);
    // dr-tools' first session (12 calls); its settings file is left alone.
    let id = "5a8cddfb-fae3-441b-8085-94ed3460ada4";
    let path = factory.join(format!("sessions/-home-dev-work-dr-tools/{id}.jsonl"));
    let mut bytes = std::fs::read(&path).expect("read");
    assert_eq!(bytes.last(), Some(&b'\n'));
    bytes.extend_from_slice(
        br#"{"type":"message","id":"grown-1","timestamp":"2026-12-01T20:58:16Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"grown-call","name":"Execute","input":{"command":"git status"}}]}}"#,
    );
    bytes.push(b'\n');
    std::fs::write(&path, bytes).expect("write");
    let first = same(cache.path(), &factory, &["sessions", "--json", "{}"]);
    assert_eq!(sync_stat(&first, "indexed"), 1);
    assert_eq!(sync_stat(&first, "grown"), 1);
    let listed = after_change(cache.path(), &factory, 6, 0);
    assert_eq!(session(&listed, id)["tool_calls"], 13);
    same(
        cache.path(),
        &factory,
        &[
            "find",
            "{}",
            "--json",
            "--tool-name",
            "Bash",
            "--input-contains",
            "git status",
        ],
    );
}
