//! The persisted index (docs/cli.md#index): `sessions` and `find` answer the same
//! with and without it, on the corpus and after every kind of change to the
//! files (grow, rewrite, truncate, delete), and the index survives another
//! version, a corrupt file, an unwritable cache folder and two processes at
//! once. Every test has its own `XDG_CACHE_HOME`.
//!
//! Counts of the grown session were read out of the transcript with python3:
//! `0c04bd79….jsonl` (real-cc-2.1.332/hooks) has 77 lines and 12 `tool_use`
//! blocks, on lines 21 27 34 35 40 43 46 50 54 60 64 69; Bash on 21 27 43 46 69.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tempfile::TempDir;

use crate::support::{copy_tree, corpus, corpus_dir, hookscope, hookscope_process, indexed};

/// The real Claude Code session with hooks (main file only).
fn hooks_session() -> PathBuf {
    corpus(
        "real-cc-2.1.332/hooks/projects/-home-dev-work-hooks/0c04bd79-42b3-41bb-b257-006f349f008a.jsonl",
    )
}

/// One run's output.
struct Run {
    stdout: String,
    stderr: String,
    /// The `HOOKSCOPE_INDEX_STATS` line, when the index was used.
    stats: Option<Value>,
}

/// Runs hookscope with the cache folder `cache` and the stats line on.
fn run(cache: &Path, args: &[&str]) -> Run {
    let out = indexed(cache)
        .env("HOOKSCOPE_INDEX_STATS", "1")
        .args(args)
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

/// The same command without the index.
fn reference(cache: &Path, args: &[&str]) -> Run {
    let mut with = vec!["--no-index"];
    with.extend_from_slice(args);
    let r = run(cache, &with);
    assert!(r.stats.is_none(), "--no-index used the index");
    r
}

fn stat(r: &Run, key: &str) -> u64 {
    let stats = r.stats.as_ref().expect("stats line");
    stats["sync"][key]
        .as_u64()
        .or_else(|| stats[key].as_u64())
        .unwrap_or_else(|| panic!("no {key} in {stats}"))
}

/// Asserts that `args` print the same with the index as without, and
/// returns the indexed run.
fn same(cache: &Path, args: &[&str]) -> Run {
    let want = reference(cache, args);
    let got = run(cache, args);
    assert_eq!(got.stdout, want.stdout, "stdout of {args:?}");
    assert_eq!(got.stderr, want.stderr, "stderr of {args:?}");
    got
}

/// Records of a `find --json` output.
fn records(stdout: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(stdout).expect("find JSON");
    v["records"].as_array().cloned().unwrap_or_default()
}

/// The `find` queries compared on a corpus.
const FINDS: &[&[&str]] = &[
    &["--tool-name", "Bash"],
    &["--tool-name", "bash", "--input-contains", "git"],
    &["--tool-name-pattern", "", "--limit", "5000"],
    &["--tool-name-pattern", "", "--limit", "3"],
    &[
        "--tool-name-pattern",
        "",
        "--output-contains",
        "error",
        "--limit",
        "5000",
    ],
    &[
        "--tool-name-pattern",
        "e",
        "--input-contains",
        "py",
        "--limit",
        "2",
    ],
    &["--tool-name", "Bash", "--is-error", "true"],
    &[
        "--tool-name-pattern",
        "",
        "--is-error",
        "false",
        "--limit",
        "7",
    ],
    &[
        "--tool-name-pattern",
        "",
        "--agent",
        "codex",
        "--limit",
        "5000",
    ],
    &["--tool-name-pattern", "", "--agent", "opencode"],
    &["--tool-name-pattern", "", "--agent", "droid"],
    &[
        "--tool-name",
        "Read",
        "--since",
        "2025-01-01",
        "--limit",
        "2",
    ],
    &["--tool-name-pattern", "", "--until", "2026-11-29T18:00:30Z"],
    &["--tool-name-pattern", "", "--input-contains", "é"],
    &["--tool-name-pattern", "", "--hook", "PreToolUse"],
    &["--tool-name", "Agent", "--with-subagent-cost"],
    &[
        "--tool-name-pattern",
        "",
        "--output-excludes",
        "error",
        "--limit",
        "1",
    ],
    &["--tool-name-pattern", "mcp__"],
];

/// Compares `sessions` (table, JSON, diagnostics) and every [`FINDS`]
/// query on `root`.
fn all_same(cache: &Path, root: &Path) {
    let root = root.to_str().expect("utf-8 path");
    for args in [
        vec!["sessions", root],
        vec!["sessions", "--json", root],
        vec!["sessions", "--diagnostics", "--json", root],
    ] {
        same(cache, &args);
    }
    for query in FINDS {
        let mut args = vec!["find", root, "--json", "--no-redact"];
        args.extend_from_slice(query);
        same(cache, &args);
    }
}

#[test]
fn indexed_answers_equal_the_loaders_on_the_corpus() {
    let cache = TempDir::new().expect("temp");
    let corpus = corpus_dir();
    let cold = same(
        cache.path(),
        &["sessions", "--json", corpus.to_str().expect("utf-8")],
    );
    let listed = serde_json::from_str::<Value>(&cold.stdout).expect("JSON");
    let listed = listed.as_array().map_or(0, Vec::len) as u64;
    assert_eq!(stat(&cold, "sessions"), listed);
    let indexed = stat(&cold, "indexed");
    // Every session is indexed, Droid and OpenCode's JSON storage too (their
    // deps are their loaders' read logs); no main file fails to load.
    assert_eq!(indexed, listed);
    assert_eq!(stat(&cold, "not_indexed"), 0);
    assert!(indexed > 40, "{indexed}");
    assert!(cache.path().join("hookscope/index.sqlite").is_file());
    // Warm: nothing read again.
    let warm = run(
        cache.path(),
        &["sessions", "--json", corpus.to_str().expect("utf-8")],
    );
    assert_eq!(warm.stdout, cold.stdout);
    assert_eq!(stat(&warm, "reused"), indexed);
    assert_eq!(stat(&warm, "indexed"), 0);
    assert_eq!(stat(&warm, "bytes_read"), 0);
    all_same(cache.path(), &corpus);
}

/// A tempdir project with the first `lines` lines of the hooks session.
fn project_with(dir: &Path, lines: usize) -> PathBuf {
    let project = dir.join("projects/-home-dev-work-hooks");
    std::fs::create_dir_all(&project).expect("mkdir");
    let file = project.join("0c04bd79-42b3-41bb-b257-006f349f008a.jsonl");
    std::fs::write(&file, head_lines(lines)).expect("write");
    file
}

/// The first `n` lines (with their newlines) of the hooks session.
fn head_lines(n: usize) -> Vec<u8> {
    let bytes = std::fs::read(hooks_session()).expect("read corpus");
    let mut out = Vec::new();
    for line in bytes.split_inclusive(|b| *b == b'\n').take(n) {
        out.extend_from_slice(line);
    }
    out
}

fn every_call(root: &Path) -> Vec<String> {
    vec![
        "find".into(),
        root.to_string_lossy().into_owned(),
        "--json".into(),
        "--no-redact".into(),
        "--tool-name-pattern".into(),
        String::new(),
        "--limit".into(),
        "1000".into(),
    ]
}

fn args_of(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn a_grown_session_gains_its_new_calls() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    let file = project_with(data.path(), 40);
    let find = every_call(data.path());
    let first = same(cache.path(), &args_of(&find));
    assert_eq!(records(&first.stdout).len(), 5);
    assert_eq!(stat(&first, "indexed"), 1);

    // Append lines 41..77 (the file only grows).
    let all = head_lines(77);
    let old = std::fs::metadata(&file).expect("stat").len() as usize;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .expect("open");
    std::io::Write::write_all(&mut f, &all[old..]).expect("append");
    drop(f);
    let grown = same(cache.path(), &args_of(&find));
    assert_eq!(records(&grown.stdout).len(), 12);
    assert_eq!(stat(&grown, "grown"), 1);
    assert_eq!(stat(&grown, "indexed"), 1);
    let bash = same(
        cache.path(),
        &[
            "find",
            data.path().to_str().expect("utf-8"),
            "--json",
            "--tool-name",
            "Bash",
        ],
    );
    assert_eq!(records(&bash.stdout).len(), 5);
    assert_eq!(stat(&bash, "reused"), 1);
}

#[test]
fn a_rewritten_or_truncated_session_is_indexed_again() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    let file = project_with(data.path(), 77);
    let find = every_call(data.path());
    assert_eq!(
        records(&same(cache.path(), &args_of(&find)).stdout).len(),
        12
    );

    // Truncated to 40 lines: 5 calls, not counted as grown.
    std::fs::write(&file, head_lines(40)).expect("truncate");
    let cut = same(cache.path(), &args_of(&find));
    assert_eq!(records(&cut.stdout).len(), 5);
    assert_eq!((stat(&cut, "indexed"), stat(&cut, "grown")), (1, 0));

    // Rewritten longer, other bytes before the old end: lines 41..77 then
    // 1..40 (the same 12 calls, in another order); not a growth.
    let all = head_lines(77);
    let first40 = head_lines(40);
    let mut rewritten = all[first40.len()..].to_vec();
    rewritten.extend_from_slice(&first40);
    assert!(rewritten.len() > first40.len());
    std::fs::write(&file, &rewritten).expect("rewrite");
    let again = same(cache.path(), &args_of(&find));
    assert_eq!(records(&again.stdout).len(), 12);
    assert_eq!((stat(&again, "indexed"), stat(&again, "grown")), (1, 0));
    all_same(cache.path(), data.path());
}

#[test]
fn a_deleted_session_leaves_the_index() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    let file = project_with(data.path(), 77);
    let other = file.with_file_name("11111111-2222-3333-4444-555555555555.jsonl");
    std::fs::write(&other, head_lines(40)).expect("write");
    let root = data.path().to_str().expect("utf-8");
    let both = same(cache.path(), &["sessions", "--json", root]);
    assert_eq!(stat(&both, "indexed"), 2);
    std::fs::remove_file(&other).expect("delete");
    let one = same(cache.path(), &["sessions", "--json", root]);
    assert_eq!(stat(&one, "removed"), 1);
    assert_eq!(stat(&one, "reused"), 1);
    let listed: Value = serde_json::from_str(&one.stdout).expect("JSON");
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    assert_eq!(
        listed[0]["id"].as_str(),
        Some("0c04bd79-42b3-41bb-b257-006f349f008a")
    );
    assert_eq!(listed[0]["tool_calls"].as_u64(), Some(12));
}

#[test]
fn an_index_from_another_version_is_rebuilt() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    project_with(data.path(), 77);
    let root = data.path().to_str().expect("utf-8");
    same(cache.path(), &["sessions", "--json", root]);
    let db = cache.path().join("hookscope/index.sqlite");
    {
        let conn = rusqlite::Connection::open(&db).expect("open index");
        conn.execute(
            "UPDATE meta SET value = '0.0.1-old' WHERE key = 'hookscope'",
            [],
        )
        .expect("update");
    }
    let rebuilt = run(cache.path(), &["sessions", "--json", root]);
    let want = reference(cache.path(), &["sessions", "--json", root]);
    assert_eq!(rebuilt.stdout, want.stdout);
    assert_eq!(
        rebuilt.stderr,
        format!(
            "hookscope: the index at {} was built by hookscope 0.0.1-old (schema {v}); rebuilding it for {} (schema {v})\n",
            db.display(),
            env!("CARGO_PKG_VERSION"),
            v = hookscope_core::index::schema::SCHEMA_VERSION
        )
    );
    assert_eq!(stat(&rebuilt, "indexed"), 1);
    // Rebuilt in place: the next run reuses it and says nothing.
    let next = same(cache.path(), &["sessions", "--json", root]);
    assert_eq!(stat(&next, "reused"), 1);
    assert_eq!(next.stderr, "");
}

#[test]
fn a_corrupt_index_file_is_rebuilt() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    project_with(data.path(), 77);
    let root = data.path().to_str().expect("utf-8");
    let dir = cache.path().join("hookscope");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let garbage: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 13) as u8).collect();
    std::fs::write(dir.join("index.sqlite"), &garbage).expect("garbage");
    let got = run(cache.path(), &["sessions", "--json", root]);
    let want = reference(cache.path(), &["sessions", "--json", root]);
    assert_eq!(got.stdout, want.stdout);
    let notes: Vec<&str> = got.stderr.lines().collect();
    assert_eq!(notes.len(), 1, "{}", got.stderr);
    assert!(
        notes[0].starts_with(&format!(
            "hookscope: the index at {} is unreadable (",
            dir.join("index.sqlite").display()
        )) && notes[0].ends_with("); rebuilding it"),
        "{}",
        notes[0]
    );
    assert_eq!(stats_flag(&got, "in_memory"), Some(false));
    assert_eq!(stat(&got, "indexed"), 1);
    let next = same(cache.path(), &["sessions", "--json", root]);
    assert_eq!(stat(&next, "reused"), 1);
}

#[test]
fn an_unwritable_cache_folder_means_an_index_in_memory() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    project_with(data.path(), 77);
    let root = data.path().to_str().expect("utf-8");
    // `hookscope` is a file, so the folder cannot be made (as root, mode
    // bits would not stop a write).
    std::fs::write(cache.path().join("hookscope"), b"not a folder").expect("write");
    let got = run(cache.path(), &["sessions", "--json", root]);
    let want = reference(cache.path(), &["sessions", "--json", root]);
    assert_eq!(got.stdout, want.stdout);
    let notes: Vec<&str> = got.stderr.lines().collect();
    assert_eq!(notes.len(), 1, "{}", got.stderr);
    assert!(
        notes[0].starts_with("hookscope: cannot use the index at ")
            && notes[0].ends_with("; indexing in memory for this run"),
        "{}",
        notes[0]
    );
    assert_eq!(stats_flag(&got, "in_memory"), Some(true));
    assert_eq!(stat(&got, "indexed"), 1);
    for query in FINDS {
        let mut args = vec!["find", root, "--json", "--no-redact"];
        args.extend_from_slice(query);
        let got = run(cache.path(), &args);
        let want = reference(cache.path(), &args);
        assert_eq!(got.stdout, want.stdout, "{args:?}");
    }
    assert_eq!(
        std::fs::read(cache.path().join("hookscope")).expect("read"),
        b"not a folder"
    );
}

fn stats_flag(r: &Run, key: &str) -> Option<bool> {
    r.stats.as_ref().and_then(|s| s[key].as_bool())
}

#[test]
fn no_index_writes_nothing() {
    let cache = TempDir::new().expect("temp");
    let corpus = corpus_dir();
    let root = corpus.to_str().expect("utf-8");
    let r = reference(cache.path(), &["sessions", "--json", root]);
    assert!(r.stdout.starts_with('['));
    reference(
        cache.path(),
        &["find", root, "--tool-name", "Bash", "--json"],
    );
    let env = hookscope()
        .env("XDG_CACHE_HOME", cache.path())
        .env("HOOKSCOPE_NO_INDEX", "1")
        .env("HOOKSCOPE_INDEX_STATS", "1")
        .args(["sessions", "--json", root])
        .output()
        .expect("run");
    assert!(env.status.success());
    assert!(!String::from_utf8_lossy(&env.stderr).contains("hookscope-index-stats"));
    let entries: Vec<_> = std::fs::read_dir(cache.path()).expect("ls").collect();
    assert_eq!(entries.len(), 0);
}

#[test]
fn two_processes_at_once_share_one_index() {
    let cache = TempDir::new().expect("temp");
    let corpus = corpus_dir();
    let root = corpus.to_str().expect("utf-8");
    let spawn = || {
        hookscope_process()
            .env("XDG_CACHE_HOME", cache.path())
            .env_remove("HOOKSCOPE_NO_INDEX")
            .args(["sessions", "--json", root])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let (a, b) = (spawn(), spawn());
    let a = a.wait_with_output().expect("wait");
    let b = b.wait_with_output().expect("wait");
    let want = reference(cache.path(), &["sessions", "--json", root]);
    assert_eq!(String::from_utf8_lossy(&a.stdout), want.stdout);
    assert_eq!(String::from_utf8_lossy(&b.stdout), want.stdout);
    assert_eq!(String::from_utf8_lossy(&a.stderr), want.stderr);
    assert_eq!(String::from_utf8_lossy(&b.stderr), want.stderr);
    let after = same(cache.path(), &["sessions", "--json", root]);
    assert_eq!(stat(&after, "indexed"), 0);
}

/// Whether process `pid` has `path` open (Linux: a link in
/// `/proc/<pid>/fd`).
#[cfg(target_os = "linux")]
fn has_open(pid: u32, path: &Path) -> bool {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|fds| {
            fds.flatten()
                .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|to| to == path))
        })
        .unwrap_or(false)
}

/// The build lock of the index in `cache` (`cache/hookscope/`), taken by
/// the test as another process would, and the lock file's path.
#[cfg(target_os = "linux")]
fn hold_build_lock(cache: &Path) -> (hookscope_core::index::build_lock::BuildLock, PathBuf) {
    use hookscope_core::index::build_lock::{BuildLock, STALLED_AFTER, Taken};
    let dir = cache.join("hookscope");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut held = BuildLock::open(&dir.join("index.sqlite")).expect("lock file");
    assert_eq!(held.take(STALLED_AFTER, &mut || 0), Taken::AtOnce);
    (held, dir.join("index.sqlite.build-lock"))
}

/// `hookscope ARGS` with the index in `cache` and the stats line on,
/// started with its output piped.
#[cfg(target_os = "linux")]
fn spawn_indexed(cache: &Path, args: &[&str]) -> std::process::Child {
    hookscope_process()
        .env("XDG_CACHE_HOME", cache)
        .env("HOOKSCOPE_INDEX_STATS", "1")
        .env_remove("HOOKSCOPE_NO_INDEX")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn")
}

/// Waits (at most a minute) until every one of `children` has `lock` open,
/// then three of the lock's polls more: a process opens the file just
/// before it first tries the lock, and a waiter leaves no other trace (it
/// polls a non-blocking `flock`), so under load one let go at the open
/// could take the lock without having waited.
#[cfg(target_os = "linux")]
fn wait_until_all_wait(children: &[std::process::Child], lock: &Path) {
    let start = std::time::Instant::now();
    while !children.iter().all(|c| has_open(c.id(), lock)) {
        assert!(
            start.elapsed().as_secs() < 60,
            "not every process waits on the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(3 * hookscope_core::index::build_lock::POLL);
}

/// The `HOOKSCOPE_INDEX_STATS` object in a run's stderr.
fn stats_in(stderr: &str) -> Value {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("hookscope-index-stats: "))
        .expect("stats line");
    serde_json::from_str(line).expect("stats JSON")
}

/// Two first builds at once: one indexes, the other waits for it and
/// reuses its rows (docs/cli.md "Index"), so every session is parsed once,
/// not twice. The test holds the build lock itself until both processes
/// wait on it (each has the lock file open), then lets go.
#[cfg(target_os = "linux")]
#[test]
fn a_second_first_build_waits_for_the_first_and_indexes_nothing() {
    let cache = TempDir::new().expect("temp");
    let corpus = corpus_dir();
    let root = corpus.to_str().expect("utf-8");
    let (held, lock_path) = hold_build_lock(cache.path());
    let args = ["sessions", "--json", root];
    let children = vec![
        spawn_indexed(cache.path(), &args),
        spawn_indexed(cache.path(), &args),
    ];
    wait_until_all_wait(&children, &lock_path);
    drop(held);
    let want = reference(cache.path(), &args);
    let mut indexed = Vec::new();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stdout), want.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stats = stats_in(&stderr);
        assert_eq!(stats["sync"]["waited"], true, "{stats}");
        indexed.push(stats["sync"]["indexed"].as_u64().expect("indexed"));
        // The corpus is small: no waiting line off a terminal.
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    indexed.sort_unstable();
    let sessions = stat(&same(cache.path(), &args), "reused");
    assert_eq!(indexed, vec![0, sessions]);
}

/// A `find` that waits while another process builds the index, and then
/// reuses every row that process wrote, answers from those rows: not from
/// the candidates it read of the index before the build (none), which once
/// made it print `0` and no records. Here the test holds the build lock,
/// starts the `find`s, indexes every session itself (past a short wait
/// limit) and lets go.
#[cfg(target_os = "linux")]
#[test]
fn a_find_that_waits_for_a_build_answers_from_its_rows() {
    let cache = TempDir::new().expect("temp");
    let corpus = corpus_dir();
    let root = corpus.to_str().expect("utf-8");
    let (held, lock_path) = hold_build_lock(cache.path());
    let queries: [&[&str]; 2] = [
        &["find", root, "--tool-name", "Bash", "--count"],
        &[
            "find",
            root,
            "--tool-name",
            "Bash",
            "--limit",
            "5",
            "--json",
        ],
    ];
    let children: Vec<_> = queries
        .iter()
        .map(|args| spawn_indexed(cache.path(), args))
        .collect();
    wait_until_all_wait(&children, &lock_path);
    // The other builder: every session indexed while the finds wait.
    let sessions = hookscope_core::transcript::discover(&[PathBuf::from(root)])
        .expect("discover")
        .sessions;
    let mut builder = hookscope_core::index::Index::open(&cache.path().join("hookscope"))
        .expect("index")
        .with_build_wait(hookscope_core::index::build_lock::POLL * 2);
    let built = builder.sync(&sessions, &mut |_| {});
    assert_eq!(built.stats.indexed, sessions.len());
    drop(held);
    for (child, args) in children.into_iter().zip(queries) {
        let out = child.wait_with_output().expect("wait");
        assert!(out.status.success());
        let want = reference(cache.path(), args);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            want.stdout,
            "{args:?}"
        );
        let stats = stats_in(&String::from_utf8_lossy(&out.stderr));
        assert_eq!(stats["sync"]["waited"], true, "{stats}");
        assert_eq!(stats["sync"]["indexed"], 0, "{stats}");
    }
}

#[cfg(unix)]
#[test]
fn hostile_files_give_the_same_diagnostics_with_the_index() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    let file = project_with(data.path(), 77);
    let project = file.parent().expect("project").to_path_buf();
    // A FIFO where a transcript would be.
    let fifo = project.join("22222222-2222-2222-2222-222222222222.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    // A 10 MB line (a tool_use whose input is one long string) and invalid UTF-8.
    let big = project.join("33333333-3333-3333-3333-333333333333.jsonl");
    let long = "x".repeat(10 << 20);
    let mut text = Vec::new();
    text.extend_from_slice(b"{\"type\":\"user\",\"uuid\":\"u1\",\"timestamp\":\"2026-11-29T10:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"go\"}}\n");
    text.extend_from_slice(
        format!(
            "{{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\",\"timestamp\":\"2026-11-29T10:00:01Z\",\"message\":{{\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"toolu_big\",\"name\":\"Write\",\"input\":{{\"file_path\":\"/tmp/big\",\"content\":\"{long}\"}}}}]}}}}\n"
        )
        .as_bytes(),
    );
    text.extend_from_slice(b"{\"type\":\"user\",\"uuid\":\"u2\",\"parentUuid\":\"a1\",\"timestamp\":\"2026-11-29T10:00:02Z\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_big\",\"content\":\"wrote \xff\xfe bytes\"}]}}\n");
    text.extend_from_slice(b"\xff\xfe not json at all\n");
    std::fs::write(&big, &text).expect("write");
    let root = data.path().to_str().expect("utf-8");
    let diags = same(cache.path(), &["sessions", "--diagnostics", "--json", root]);
    let listed: Value = serde_json::from_str(&diags.stdout).expect("JSON");
    let messages: Vec<&str> = listed
        .as_array()
        .map(|a| a.iter().filter_map(|d| d["message"].as_str()).collect())
        .unwrap_or_default();
    assert!(messages.iter().any(|m| m.contains("FIFO")), "{messages:?}");
    assert!(
        messages.contains(&"invalid UTF-8 replaced with U+FFFD"),
        "{messages:?}"
    );
    same(cache.path(), &["sessions", root]);
    let big_find = same(
        cache.path(),
        &[
            "find",
            root,
            "--json",
            "--tool-name",
            "Write",
            "--input-contains",
            "/tmp/big",
        ],
    );
    let found = records(&big_find.stdout);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["tool_use_id"].as_str(), Some("toolu_big"));
    let out = same(
        cache.path(),
        &[
            "find",
            root,
            "--json",
            "--tool-name",
            "Write",
            "--output-contains",
            "wrote",
        ],
    );
    assert_eq!(records(&out.stdout).len(), 1);
    all_same(cache.path(), data.path());
}

/// Library level: on the corpus, a [`Finder`] with the index's
/// verdicts gives exactly the records of loading every session, for many queries and
/// small limits (so loading stops early on the index's bounds).
#[test]
fn index_verdicts_give_the_same_records_as_loading() {
    use hookscope_core::index::Index;
    use hookscope_core::query::{FindParams, Finder};
    let found = hookscope_core::transcript::discover(&[corpus_dir()]).expect("discover");
    let mut index = Index::in_memory().expect("in-memory index");
    let synced = index.sync(&found.sessions, &mut |_| {});
    assert_eq!(synced.stats.sessions, found.sessions.len());
    let now = chrono::Utc::now();
    let queries = [
        serde_json::json!({"tool_name": "Bash", "input_contains": "git"}),
        serde_json::json!({"tool_name_pattern": "", "input_contains": "ls"}),
        serde_json::json!({"tool_name": "Read", "input_contains": "/home"}),
        serde_json::json!({"tool_name_pattern": "a", "output_contains": "error"}),
        serde_json::json!({"tool_name_pattern": "", "output_contains": "no such file"}),
        serde_json::json!({"tool_name_pattern": "", "output_contains": "exit code"}),
        serde_json::json!({"tool_name": "Bash", "is_error": true}),
        serde_json::json!({"tool_name_pattern": "", "is_error": false}),
        serde_json::json!({"tool_name": "Write", "until": "2026-11-29T18:00:30Z"}),
        serde_json::json!({"tool_name_pattern": "", "since": "2026-11-29T18:00:00Z"}),
        serde_json::json!({"tool_name_pattern": "", "agent": "codex"}),
        serde_json::json!({"tool_name_pattern": "", "agent": "opencode", "input_contains": "a"}),
        serde_json::json!({"tool_name_pattern": "é"}),
        serde_json::json!({"tool_name_pattern": "", "hook": "PreToolUse"}),
        serde_json::json!({"tool_name_pattern": "", "output_excludes": "e"}),
    ];
    for mut args in queries {
        for limit in [1, 2, 5, 1000] {
            args["limit"] = serde_json::json!(limit);
            let query = FindParams::from_json(&args)
                .expect("params")
                .validate(now)
                .expect("valid");
            let want = Finder::new(&found.sessions, &query)
                .run()
                .expect("reference");
            let verdicts = index.verdicts(&found.sessions, &synced.states, &query);
            let got = Finder::new(&found.sessions, &query)
                .verdicts(&verdicts)
                .run()
                .expect("indexed");
            assert_eq!(
                serde_json::to_value(&got).ok(),
                serde_json::to_value(&want).ok(),
                "{args}"
            );
            assert_eq!(got.unreadable, want.unreadable, "{args}");
        }
    }
}

/// `find --limit` has no upper bound any more (it was 10,000): a larger
/// limit is accepted and, on a corpus with fewer calls, gives what 10,000
/// gives; 0 is still refused.
#[test]
fn find_limit_has_no_upper_bound() {
    let cache = TempDir::new().expect("temp");
    let corpus = corpus_dir();
    let root = corpus.to_str().expect("utf-8");
    let big = same(
        cache.path(),
        &[
            "find",
            root,
            "--json",
            "--tool-name-pattern",
            "",
            "--limit",
            "20000",
        ],
    );
    let old_max = same(
        cache.path(),
        &[
            "find",
            root,
            "--json",
            "--tool-name-pattern",
            "",
            "--limit",
            "10000",
        ],
    );
    assert_eq!(big.stdout, old_max.stdout);
    assert!(records(&big.stdout).len() > 400);
    let zero = same(
        cache.path(),
        &[
            "find",
            root,
            "--json",
            "--tool-name-pattern",
            "",
            "--limit",
            "0",
        ],
    );
    assert_eq!(
        serde_json::from_str::<Value>(&zero.stdout).expect("JSON"),
        serde_json::json!({"error": "invalid_argument", "message": "limit must be at least 1, got 0"})
    );
}

/// A change to a subagent file (or its `.meta.json`) alone re-indexes its
/// session: the main file's stamp is not the whole identity.
#[test]
fn a_changed_subagent_file_reindexes_its_session() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    copy_tree(
        &corpus("real-cc-2.1.332/subagent/projects"),
        &data.path().join("projects"),
    );
    let root = data.path().to_str().expect("utf-8");
    let first = same(cache.path(), &["sessions", "--json", root]);
    assert_eq!(stat(&first, "indexed"), 1);
    let before: Value = serde_json::from_str(&first.stdout).expect("JSON");
    assert_eq!(before[0]["subagents"].as_u64(), Some(4));
    let sub = data.path().join(
        "projects/-home-dev-work-subagent/8bb2dece-a24f-43d4-80d6-3ee9a889b550/subagents/agent-a460e426666c15a15.jsonl",
    );
    std::fs::remove_file(&sub).expect("remove subagent file");
    let after = same(cache.path(), &["sessions", "--json", root]);
    assert_eq!((stat(&after, "indexed"), stat(&after, "reused")), (1, 0));
    let listed: Value = serde_json::from_str(&after.stdout).expect("JSON");
    assert_eq!(listed[0]["subagents"].as_u64(), Some(3));
    let meta = data.path().join(
        "projects/-home-dev-work-subagent/8bb2dece-a24f-43d4-80d6-3ee9a889b550/subagents/agent-a9a1865f5e2572fa1.meta.json",
    );
    assert!(meta.is_file());
    std::fs::write(&meta, b"not json").expect("rewrite meta");
    let meta_changed = same(cache.path(), &["sessions", "--diagnostics", "--json", root]);
    assert_eq!(stat(&meta_changed, "indexed"), 1);
    assert!(
        meta_changed
            .stdout
            .contains("subagent meta sidecar is not a JSON object")
    );
    all_same(cache.path(), data.path());
}

/// A project folder whose name is not UTF-8: the index keeps paths as
/// bytes, so the listing and its diagnostics are the loaders'.
#[cfg(unix)]
#[test]
fn a_path_that_is_not_utf8_round_trips_through_the_index() {
    use std::os::unix::ffi::OsStrExt;
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    let project = data
        .path()
        .join("projects")
        .join(std::ffi::OsStr::from_bytes(b"-home-\xff-proj"));
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::write(
        project.join("0c04bd79-42b3-41bb-b257-006f349f008a.jsonl"),
        head_lines(77),
    )
    .expect("write");
    let root = data.path().to_str().expect("utf-8");
    let first = same(cache.path(), &["sessions", "--json", root]);
    assert_eq!(stat(&first, "indexed"), 1);
    assert!(first.stdout.contains("-home-\u{fffd}-proj"));
    let warm = same(cache.path(), &["sessions", "--json", root]);
    assert_eq!(stat(&warm, "reused"), 1);
    let found = same(
        cache.path(),
        &[
            "find",
            root,
            "--json",
            "--tool-name",
            "Bash",
            "--input-contains",
            "echo",
        ],
    );
    assert_eq!(stat(&found, "reused"), 1);
}

/// The TUI syncs in chunks ([`Index::sync_part`]): a chunk that holds only
/// some of an OpenCode database's sessions must not drop the others' rows
/// (it did: the TUI's warm start then lost 512 of the heavy corpus's
/// sessions and indexed them again at every start); rows of sessions gone
/// leave with [`Index::remove_gone`] over the whole discovery.
#[test]
fn a_chunked_sync_keeps_every_session_of_a_database_and_removes_gone_ones_after() {
    use hookscope_core::index::Index;
    let data = TempDir::new().expect("temp");
    let src = std::path::Path::new("tests/corpus/real-opencode-1.18.33/opencode.consolidated.db");
    let db = data.path().join("opencode.db");
    std::fs::copy(src, &db).expect("copy");
    let sessions = hookscope_core::transcript::discover(std::slice::from_ref(&db))
        .expect("discover")
        .sessions;
    assert!(sessions.len() >= 2, "{}", sessions.len());
    let cache = TempDir::new().expect("temp");
    let mut index = Index::open(&cache.path().join("hookscope")).expect("index");
    let (first, rest) = sessions.split_at(1);
    index.sync_part(first, &mut |_| {});
    index.sync_part(rest, &mut |_| {});
    assert!(sessions.iter().all(|s| index.has_session(s)));
    // A whole sync of only the first session removes the others' rows (a
    // discovery that no longer finds them), as `remove_gone` does.
    assert_eq!(index.remove_gone(&sessions), 0);
    assert_eq!(index.remove_gone(first), rest.len());
    assert!(index.has_session(&first[0]));
    assert!(rest.iter().all(|s| !index.has_session(s)));
}

/// `show ID ROOT --json` with the index in `cache`, then without one.
fn show_with_and_without(
    cache: &Path,
    id: &str,
    root: &str,
) -> (std::process::Output, std::process::Output) {
    let args = ["show", id, root, "--json"];
    let with = indexed(cache).args(args).output().expect("run");
    let without = hookscope().args(args).output().expect("run");
    (with, without)
}

/// A full session id the index holds once, with its file unchanged, is
/// answered from the index (`Library::resolve_stored`); a prefix, a grown
/// file or an id stored twice is not (the caller walks), and `show ID`
/// prints the same either way.
#[test]
fn a_full_id_resolves_from_the_index_only_while_its_file_is_unchanged() {
    use hookscope_core::index::Index;
    use hookscope_core::service::Library;

    const ID: &str = "0c04bd79-42b3-41bb-b257-006f349f008a";
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    let file = project_with(data.path(), 60);
    let root = data.path().to_path_buf();
    let library = || {
        Library::new(std::slice::from_ref(&root))
            .with_index(Index::open(&cache.path().join("hookscope")).expect("index"))
    };
    let lib = library();
    let sessions = lib.sessions().expect("discover");
    lib.sync(&sessions, &mut |_| {});
    let stored = lib.resolve_stored(ID).expect("answered from the index");
    assert_eq!(stored.path, file);
    assert_eq!(stored.size, sessions[0].size);
    assert_eq!(lib.resolve_stored("0c04bd79"), None, "a prefix walks");
    assert_eq!(lib.resolve_stored("no-such-id"), None);
    assert_eq!(
        Library::new(std::slice::from_ref(&root)).resolve_stored(ID),
        None
    );

    // `show` by id: the same with the index (answered from it) as without.
    let root_s = root.to_str().expect("utf-8");
    let (with, without) = show_with_and_without(cache.path(), ID, root_s);
    assert!(
        with.status.success(),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    assert_eq!(with.stdout, without.stdout);

    // The file grows: not current, so the caller walks (and sees the growth).
    let mut grown = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .expect("open");
    std::io::Write::write_all(&mut grown, &head_lines(77)[head_lines(60).len()..]).expect("grow");
    drop(grown);
    assert_eq!(library().resolve_stored(ID), None, "a grown file walks");
    let (with, without) = show_with_and_without(cache.path(), ID, root_s);
    assert_eq!(with.stdout, without.stdout);
    let v: Value = serde_json::from_slice(&with.stdout).expect("json");
    assert_eq!(v["tool_calls"], 12, "the grown file was read");

    // The same id in two files, both indexed: ambiguous, so the walk says so.
    let lib = library();
    let copy = data.path().join("projects/-home-dev-work-copy");
    std::fs::create_dir_all(&copy).expect("mkdir");
    std::fs::copy(&file, copy.join(format!("{ID}.jsonl"))).expect("copy");
    let sessions = lib.sessions().expect("discover");
    lib.sync(&sessions, &mut |_| {});
    assert_eq!(lib.resolve_stored(ID), None, "an id stored twice walks");
}

/// Resolving an id never creates, rebuilds or alters an index: a garbage
/// index file is left byte for byte, and with no index file none appears.
#[test]
fn resolving_an_id_changes_no_index_file() {
    const ID: &str = "0c04bd79-42b3-41bb-b257-006f349f008a";
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    project_with(data.path(), 77);
    let root = data.path().to_str().expect("utf-8");
    let out = indexed(cache.path())
        .args(["show", ID, root, "--json"])
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(!cache.path().join("hookscope").exists(), "no index made");
    let dir = cache.path().join("hookscope");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let garbage: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 13) as u8).collect();
    std::fs::write(dir.join("index.sqlite"), &garbage).expect("garbage");
    let out = indexed(cache.path())
        .args(["show", ID, root, "--json"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read(dir.join("index.sqlite")).expect("read"),
        garbage
    );
}

/// A Claude Code session `id` under `dir`: a prompt, then per entry of
/// `calls` (tool name, input, time) its `tool_use` line at that time and
/// its result a second later.
fn session_with_calls(dir: &Path, id: &str, calls: &[(&str, Value, &str)]) {
    let mut lines = vec![serde_json::json!({
        "type": "user", "uuid": "u0", "parentUuid": null, "sessionId": id,
        "timestamp": "2026-11-29T17:59:00Z", "cwd": "/home/dev/long", "isSidechain": false,
        "message": {"role": "user", "content": "go"},
    })];
    for (n, (tool, input, time)) in calls.iter().enumerate() {
        let at = chrono::DateTime::parse_from_rfc3339(time).expect("time");
        let later = (at + chrono::Duration::seconds(1)).to_rfc3339();
        let tool_use_id = format!("toolu_{n}");
        for (kind, when, content) in [
            (
                "assistant",
                time.to_string(),
                serde_json::json!([
                {"type": "tool_use", "id": tool_use_id, "name": tool, "input": input}]),
            ),
            (
                "user",
                later,
                serde_json::json!([
                {"type": "tool_result", "tool_use_id": tool_use_id, "content": "ok"}]),
            ),
        ] {
            let parent = lines
                .last()
                .and_then(|l| l["uuid"].as_str())
                .map(String::from);
            let uuid = format!("u{}", lines.len());
            lines.push(serde_json::json!({
                "type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": id,
                "timestamp": when, "cwd": "/home/dev/long", "isSidechain": false,
                "message": {"role": kind, "content": content},
            }));
        }
    }
    crate::support::write_jsonl(
        dir.join("projects/-home-dev-long")
            .join(format!("{id}.jsonl")),
        &lines,
    );
}

/// The index's verdict per session of `dir` for each `find` query.
fn index_verdicts(
    dir: &Path,
    queries: &[Value],
) -> Vec<Vec<Option<hookscope_core::query::Verdict>>> {
    let found = hookscope_core::transcript::discover(&[dir.to_path_buf()]).expect("discover");
    let mut sessions = found.sessions;
    sessions.sort_by(|a, b| a.id.cmp(&b.id));
    let mut index = hookscope_core::index::Index::in_memory().expect("in-memory index");
    let synced = index.sync(&sessions, &mut |_| {});
    queries
        .iter()
        .map(|args| {
            let query = hookscope_core::query::FindParams::from_json(args)
                .expect("params")
                .validate(chrono::Utc::now())
                .expect("valid");
            index.verdicts(&sessions, &synced.states, &query)
        })
        .collect()
}

fn newest(t: &str) -> Option<hookscope_core::query::Verdict> {
    Some(hookscope_core::query::Verdict::Newest(
        chrono::DateTime::parse_from_rfc3339(t)
            .expect("time")
            .to_utc(),
    ))
}

/// `find ROOT --tool-name-pattern '' --input-contains npx` plus `more`,
/// asserted to print the same with and without the index (see [`same`]).
fn npx_everywhere(cache: &Path, root: &str, more: &[&str]) -> Run {
    let mut args = vec![
        "find",
        root,
        "--tool-name-pattern",
        "",
        "--input-contains",
        "npx",
    ];
    args.extend_from_slice(more);
    same(cache, &args)
}

/// With `input_contains`, a call whose input is too long to store in the
/// index (a `Write` of a big file) does not bound its session as if it
/// matched: the index reads its `tool_use` line, so the session's newest
/// candidate is its `npx` call, not the newer `Write`. (Kept whatever its
/// text, the `Write`'s time made every such session a candidate newer than
/// its real match, and a `find --limit 20` over bulk sessions loaded every
/// one of them instead of the newest few.)
#[test]
fn a_long_input_does_not_bound_its_session_as_a_match() {
    let data = TempDir::new().expect("temp");
    let big = "x".repeat(4 * 1024);
    session_with_calls(
        data.path(),
        "5f0c1d2e-0000-4000-8000-00000000c0de",
        &[
            (
                "Bash",
                serde_json::json!({"command": "npx next dev"}),
                "2026-11-29T18:00:01Z",
            ),
            (
                "Write",
                serde_json::json!({"file_path": "/a.txt", "content": big}),
                "2026-11-29T18:00:03Z",
            ),
        ],
    );
    let got = index_verdicts(
        data.path(),
        &[
            serde_json::json!({"tool_name_pattern": "", "input_contains": "NPX"}),
            // The long input itself still matches, from its line.
            serde_json::json!({"tool_name_pattern": "", "input_contains": "xxxx"}),
            serde_json::json!({"tool_name_pattern": "", "input_contains": "nowhere"}),
        ],
    );
    assert_eq!(
        got,
        [
            vec![newest("2026-11-29T18:00:01Z")],
            vec![newest("2026-11-29T18:00:03Z")],
            vec![Some(hookscope_core::query::Verdict::Skip)],
        ]
    );
}

/// A long input older than `limit` stored matches is not read: with
/// `limit` 1 and a newer `npx` call in another session, the session whose
/// only call is an older long `Write` stays a candidate bounded by the
/// `Write`'s time (an upper bound: `find` stops before it); with a limit
/// the stored matches do not fill, its line is read and it is left out.
/// A long input newer than the stored matches is read either way.
#[test]
fn a_long_input_older_than_limit_matches_is_not_read() {
    let data = TempDir::new().expect("temp");
    let big = |word: &str| format!("{word} {}", "x".repeat(4 * 1024));
    session_with_calls(
        data.path(),
        "aaaaaaaa-0000-4000-8000-000000000001",
        &[(
            "Bash",
            serde_json::json!({"command": "npx next dev"}),
            "2026-11-29T18:00:10Z",
        )],
    );
    session_with_calls(
        data.path(),
        "bbbbbbbb-0000-4000-8000-000000000002",
        &[(
            "Write",
            serde_json::json!({"file_path": "/a.txt", "content": big("old")}),
            "2026-11-29T18:00:05Z",
        )],
    );
    session_with_calls(
        data.path(),
        "cccccccc-0000-4000-8000-000000000003",
        &[(
            "Write",
            serde_json::json!({"file_path": "/b.txt", "content": big("new")}),
            "2026-11-29T18:00:20Z",
        )],
    );
    let query = |limit: usize| serde_json::json!({"tool_name_pattern": "", "input_contains": "npx", "limit": limit});
    let got = index_verdicts(data.path(), &[query(1), query(2)]);
    let skip = Some(hookscope_core::query::Verdict::Skip);
    assert_eq!(
        got,
        [
            vec![
                newest("2026-11-29T18:00:10Z"),
                newest("2026-11-29T18:00:05Z"),
                skip
            ],
            vec![newest("2026-11-29T18:00:10Z"), skip, skip],
        ]
    );
    // Either way `find` answers as without the index.
    let cache = TempDir::new().expect("temp");
    let root = data.path().to_str().expect("utf-8");
    for limit in ["1", "2"] {
        let out = npx_everywhere(cache.path(), root, &["--json", "--limit", limit]);
        assert_eq!(records(&out.stdout).len(), 1, "limit {limit}");
    }
}

/// One index serves every folder a user gives: a query over one folder
/// reads no line of another folder's sessions. Here folder A's long
/// `Write` input (not stored in the index) would need its line read for
/// `--input-contains`; a query over folder B reads none (0 bytes), and
/// one over A reads those lines (more than 4 × 4 KiB). Both answer as
/// without the index.
#[test]
fn a_query_over_one_folder_reads_no_line_of_another() {
    let (a, b) = (TempDir::new().expect("temp"), TempDir::new().expect("temp"));
    let big = format!("content {}", "x".repeat(4 * 1024));
    let write = |t: &str| {
        (
            "Write",
            serde_json::json!({"file_path": "/a.txt", "content": big}),
            t.to_string(),
        )
    };
    // Four calls in A, one in B: B holds at most a quarter of the indexed
    // calls, so its scan is a range of the primary key; A's is not.
    let writes = [
        write("2026-11-29T18:00:05Z"),
        write("2026-11-29T18:00:07Z"),
        write("2026-11-29T18:00:09Z"),
        write("2026-11-29T18:00:11Z"),
    ];
    let writes: Vec<(&str, Value, &str)> = writes
        .iter()
        .map(|(tool, input, t)| (*tool, input.clone(), t.as_str()))
        .collect();
    session_with_calls(a.path(), "aaaaaaaa-0000-4000-8000-00000000000a", &writes);
    session_with_calls(
        b.path(),
        "bbbbbbbb-0000-4000-8000-00000000000b",
        &[(
            "Bash",
            serde_json::json!({"command": "npx next dev"}),
            "2026-11-29T18:00:01Z",
        )],
    );
    let cache = TempDir::new().expect("temp");
    let (a_root, b_root) = (
        a.path().to_str().expect("utf-8"),
        b.path().to_str().expect("utf-8"),
    );
    // Both folders in the one index.
    run(cache.path(), &["sessions", a_root]);
    run(cache.path(), &["sessions", b_root]);
    let query = |root: &str| npx_everywhere(cache.path(), root, &["--json"]);
    let read = |r: &Run| {
        r.stats.as_ref().expect("stats line")["bytes_read"]
            .as_u64()
            .expect("bytes_read")
    };
    let over_b = query(b_root);
    assert_eq!(records(&over_b.stdout).len(), 1);
    assert_eq!(stat(&over_b, "indexed"), 0);
    assert_eq!(read(&over_b), 0);
    let over_a = query(a_root);
    assert_eq!(records(&over_a.stdout).len(), 0);
    assert!(read(&over_a) > 4 * 4 * 1024, "{:?}", over_a.stats);
}

/// The footer does not depend on how far loading went: over the corpus,
/// `--input-contains npx --limit 5` loads every candidate without the
/// index (it then knew the total, 9) but stops early with it; both say
/// `5 records, newest first; more match …` (the footer once gave `5 of 9
/// matching records` without the index only).
#[test]
fn the_footer_is_the_same_with_and_without_the_index() {
    let cache = TempDir::new().expect("temp");
    let corpus = corpus_dir();
    let root = corpus.to_str().expect("utf-8");
    run(cache.path(), &["sessions", root]);
    let got = npx_everywhere(cache.path(), root, &["--limit", "5"]);
    assert!(
        got.stderr.starts_with(
            "5 records, newest first; more match (--limit N for more, --count for how many)\n"
        ),
        "{}",
        got.stderr
    );
    let count = npx_everywhere(cache.path(), root, &["--count"]);
    assert_eq!(count.stdout.trim(), "9");
}
