//! `find` records built from index rows (`query::rows`): every answer equals
//! the one without the index, byte for byte, on the corpus and on hostile
//! files (a file rewritten behind an unchanged stamp, a truncated last
//! line, a 10 MB line, invalid UTF-8); and the rows path is really taken
//! (the loader is not called for sessions it serves).
//!
//! Counts recounted with python3 over the JSONL (distinct `tool_use` ids
//! by name): `real-cc-2.1.332/hooks` 0c04bd79….jsonl has 5 Bash calls, its
//! subagent `agent-aab8fa18d1ff571f3.jsonl` 1; `real-cc-2.1.332/subagent`
//! 8bb2dece….jsonl has none in its main file and 3 in its subagents
//! (a460e…, a9a18…, a0ddb…: one each).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::Utc;
use hookscope_core::index::Index;
use hookscope_core::query::{
    FindParams, FindResult, Finder, Query, RowKey, RowSource, SessionRows, load_from_disk,
};
use hookscope_core::transcript::{SessionRef, discover};
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::{corpus, corpus_dir, indexed, write_lines};

/// `hookscope <args>` with the cache folder `cache`: (stdout, stderr).
fn run(cache: &Path, args: &[&str]) -> (String, String) {
    let out = indexed(cache).args(args).output().expect("run");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `find --json <args> <root>` with the index and with `--no-index`: both
/// outputs must be byte-identical.
fn same_find(cache: &Path, root: &Path, args: &[&str]) {
    let root = root.to_str().expect("utf-8 path");
    let mut with = vec!["find", "--json", "--now", "2026-12-01T00:00:00Z"];
    with.extend_from_slice(args);
    with.push(root);
    let indexed = run(cache, &with);
    let mut without = vec!["--no-index"];
    without.extend_from_slice(&with);
    let reference = run(cache, &without);
    assert_eq!(indexed.0, reference.0, "stdout of {args:?}");
    assert_eq!(indexed.1, reference.1, "stderr of {args:?}");
    assert!(
        indexed.0.starts_with("{\n  \"records\": ["),
        "{args:?}: {}",
        indexed.0
    );
}

#[test]
fn find_from_rows_equals_find_without_index_on_the_corpus() {
    let cache = TempDir::new().expect("temp");
    let root = corpus_dir();
    // The first run builds the index.
    same_find(cache.path(), &root, &["--tool-name", "Bash"]);
    let queries: &[&[&str]] = &[
        &["--tool-name", "Bash", "--limit", "1"],
        &["--tool-name", "Bash", "--limit", "50"],
        &["--tool-name", "Bash", "--limit", "100000"],
        &["--tool-name", "bash", "--no-redact", "--limit", "100000"],
        &["--tool-name", "Read", "--limit", "100000"],
        &["--tool-name", "Edit", "--no-redact"],
        &["--tool-name", "Write", "--limit", "1"],
        &["--tool-name", "Agent", "--limit", "100000"],
        &["--tool-name", "Task", "--with-subagent-cost"],
        &["--tool-name-pattern", "e", "--limit", "100000"],
        &["--tool-name-pattern", "mcp__", "--limit", "100000"],
        &["--tool-name-pattern", "a", "--limit", "1"],
        &[
            "--tool-name",
            "Bash",
            "--is-error",
            "true",
            "--limit",
            "100000",
        ],
        &[
            "--tool-name",
            "Bash",
            "--is-error",
            "false",
            "--limit",
            "50",
        ],
        &[
            "--tool-name-pattern",
            "",
            "--is-error",
            "true",
            "--limit",
            "100000",
        ],
        &[
            "--tool-name",
            "Bash",
            "--input-contains",
            "git",
            "--limit",
            "100000",
        ],
        &[
            "--tool-name",
            "Bash",
            "--input-contains",
            "ls",
            "--limit",
            "1",
        ],
        &[
            "--tool-name",
            "Bash",
            "--input-contains",
            "command\":",
            "--limit",
            "50",
        ],
        &[
            "--tool-name",
            "Read",
            "--input-contains",
            "/home",
            "--no-redact",
        ],
        &[
            "--tool-name-pattern",
            "",
            "--output-contains",
            "error",
            "--limit",
            "100000",
        ],
        &[
            "--tool-name",
            "Bash",
            "--output-contains",
            "no such file",
            "--no-redact",
        ],
        &[
            "--tool-name",
            "Bash",
            "--output-excludes",
            "error",
            "--limit",
            "100000",
        ],
        &[
            "--tool-name-pattern",
            "",
            "--output-excludes",
            "a",
            "--limit",
            "50",
        ],
        &[
            "--tool-name",
            "Bash",
            "--since",
            "2026-01-01",
            "--limit",
            "100000",
        ],
        &[
            "--tool-name",
            "Bash",
            "--until",
            "2026-01-01",
            "--limit",
            "100000",
        ],
        &[
            "--tool-name-pattern",
            "",
            "--since",
            "2025-06-01",
            "--until",
            "2026-11-29T18:00:30Z",
            "--limit",
            "100000",
        ],
        &[
            "--tool-name",
            "Bash",
            "--hook",
            "PreToolUse",
            "--limit",
            "100000",
        ],
        &["--tool-name-pattern", "", "--blocked", "--limit", "100000"],
        &[
            "--tool-name-pattern",
            "",
            "--rewritten",
            "--limit",
            "100000",
        ],
        &[
            "--tool-name",
            "Bash",
            "--agent",
            "claude-code",
            "--output-mode",
            "tail",
        ],
        &[
            "--tool-name",
            "Bash",
            "--session",
            "0c04bd79",
            "--limit",
            "100000",
        ],
        &[
            "--tool-name",
            "Bash",
            "--session",
            "8bb2dece",
            "--no-redact",
        ],
        &[
            "--tool-name-pattern",
            "",
            "--session",
            "8bb2dece",
            "--limit",
            "100000",
        ],
    ];
    for args in queries {
        same_find(cache.path(), &root, args);
    }
}

/// The records, `matched` and `matched_exact` of a result, as one string.
/// A result as compared: its records, `matched` when it is exact (a run
/// that stopped early knows a lower bound, which depends on how far it
/// read: at least the records), and what could not be read.
fn answer(r: &FindResult) -> String {
    assert!(r.matched >= r.records.len());
    format!(
        "{} matched={} exact={} unreadable={:?}",
        serde_json::to_string(r).expect("json"),
        if r.matched_exact {
            r.matched.to_string()
        } else {
            "at least the records".to_string()
        },
        r.matched_exact,
        r.unreadable
    )
}

/// `args` answered from an index in `cache` over `sessions` (rows on) and
/// without one; asserts they are equal and returns the answer and how many
/// sessions the indexed run loaded whole.
fn compare(cache: &Path, sessions: &[SessionRef], args: &Value) -> (FindResult, usize) {
    let (r, reference, loads, _) = compare_counted(cache, sessions, args);
    assert_eq!(answer(&r), answer(&reference), "{args}");
    (r, loads)
}

/// A row source that passes every call to the index and adds up the calls
/// it left out past a cut ([`SessionRows::beyond`]) and the calls it gave.
struct Counted<'a> {
    index: &'a Index,
    beyond: AtomicUsize,
    given: AtomicUsize,
}

impl RowSource for Counted<'_> {
    fn call_rows(
        &self,
        sessions: &[&SessionRef],
        query: &Query,
        cut: Option<&RowKey>,
    ) -> Vec<Option<SessionRows>> {
        let rows = self.index.call_rows(sessions, query, cut);
        let left_out: usize = rows.iter().flatten().map(|r| r.beyond).sum();
        self.beyond.fetch_add(left_out, Ordering::SeqCst);
        let given: usize = rows.iter().flatten().map(|r| r.calls.len()).sum();
        self.given.fetch_add(given, Ordering::SeqCst);
        rows
    }

    fn newest_cut(&self, sessions: &[&SessionRef], query: &Query) -> Option<RowKey> {
        self.index.newest_cut(sessions, query)
    }
}

/// `args` answered with the index (rows on) and without one, asserting
/// the records are equal; the two results, how many sessions the indexed
/// run loaded whole and how many calls the index left out past a cut.
/// (`matched` may differ when a run stops early: the index knows each
/// session's newest match, the raw prefilter only its newest call.)
fn compare_counted(
    cache: &Path,
    sessions: &[SessionRef],
    args: &Value,
) -> (FindResult, FindResult, usize, usize) {
    let (fast, reference, loads, beyond, _) = compare_given(cache, sessions, args);
    (fast, reference, loads, beyond)
}

/// [`compare_counted`], and how many calls the index gave in all.
fn compare_given(
    cache: &Path,
    sessions: &[SessionRef],
    args: &Value,
) -> (FindResult, FindResult, usize, usize, usize) {
    let now = Utc::now();
    let query = FindParams::from_json(args)
        .expect("params")
        .validate(now)
        .expect("valid");
    let mut index = Index::open(cache).expect("index");
    let synced = index.sync(sessions, &mut |_| {});
    let verdicts = index.verdicts(sessions, &synced.states, &query);
    let loads = AtomicUsize::new(0);
    let loader = |s: &SessionRef| {
        loads.fetch_add(1, Ordering::SeqCst);
        load_from_disk(s)
    };
    let counted = Counted {
        index: &index,
        beyond: AtomicUsize::new(0),
        given: AtomicUsize::new(0),
    };
    let fast = Finder::new(sessions, &query)
        .loader(&loader)
        .verdicts(&verdicts)
        .rows(&counted)
        .run()
        .expect("rows");
    let reference = Finder::new(sessions, &query).run().expect("reference");
    assert_eq!(
        serde_json::to_string(&fast).expect("json"),
        serde_json::to_string(&reference).expect("json"),
        "{args}"
    );
    assert_eq!(fast.unreadable, reference.unreadable);
    (
        fast,
        reference,
        loads.load(Ordering::SeqCst),
        counted.beyond.load(Ordering::SeqCst),
        counted.given.load(Ordering::SeqCst),
    )
}

#[test]
fn rows_serve_the_hooks_and_subagent_sessions_without_loading_them() {
    let cache = TempDir::new().expect("temp");
    let found = discover(&[corpus("real-cc-2.1.332")]).expect("discover");
    let (r, loads) = compare(
        cache.path(),
        &found.sessions,
        &json!({"tool_name": "Bash", "session": "0c04bd79", "limit": 1000}),
    );
    assert_eq!(loads, 0);
    assert_eq!(r.records.len(), 6);
    assert_eq!(r.matched, 6);
    // The subagent's call carries its origin; hook firings come from rows.
    let origins = r
        .records
        .iter()
        .filter(|c| {
            c.origin
                .as_ref()
                .is_some_and(|o| o.agent_id.as_deref() == Some("aab8fa18d1ff571f3"))
        })
        .count();
    assert_eq!(origins, 1);

    // hooks_c2_exit2: one Bash call blocked by a PreToolUse exit 2, its
    // firing recorded in the index.
    let (r, loads) = compare(
        cache.path(),
        &found.sessions,
        &json!({"tool_name": "Bash", "session": "e1be136e", "limit": 1000}),
    );
    assert_eq!(loads, 0);
    let hooked: Vec<&Value> = r.records.iter().flat_map(|c| &c.hook_activity).collect();
    assert_eq!(hooked.len(), 1);
    assert_eq!(hooked[0]["action"], json!("blocked"));

    let (r, loads) = compare(
        cache.path(),
        &found.sessions,
        &json!({"tool_name": "Bash", "session": "8bb2dece", "redact": false}),
    );
    assert_eq!(loads, 0);
    assert_eq!(r.records.len(), 3);
    assert!(r.records.iter().all(|c| c.origin.is_some()));

    // Every query over the real sessions, rows on, equals the reference.
    for args in [
        json!({"tool_name": "Bash", "limit": 1}),
        json!({"tool_name": "Bash", "input_contains": "git", "limit": 50}),
        json!({"tool_name_pattern": "", "is_error": true, "limit": 1000}),
        json!({"tool_name_pattern": "", "output_excludes": "e", "limit": 1000}),
        json!({"tool_name_pattern": "", "hook": "PreToolUse", "limit": 1000}),
        json!({"tool_name_pattern": "", "blocked": true, "limit": 1000}),
        json!({"tool_name": "Agent", "with_subagent_cost": true}),
    ] {
        compare(cache.path(), &found.sessions, &args);
    }
}

/// OpenCode sessions have no lines: `find` builds an indexed call's record
/// from its message's parts (`calls.locator`), without loading the
/// session, in both stores. Counts recounted with python3 over the `part`
/// rows of `real-opencode-1.18.33/data/opencode.db` and the part files of
/// `real-opencode-1.1.65-legacy-json` (parts of `type` `tool` by `tool`):
/// `bash` 9 and 6, `read` 6 and 6 (one of each with the input
/// `{"offset": 3}`), `task` 3 and 3.
#[test]
fn rows_serve_opencode_sessions_from_their_message_parts() {
    // The 1.18.33 store holds one bash part a hard kill left `running`
    // (its README, "Hard kill"): a call without a result.
    for (folder, bash, running) in [
        ("real-opencode-1.18.33", 9, 1),
        ("real-opencode-1.1.65-legacy-json", 6, 0),
    ] {
        let cache = TempDir::new().expect("temp");
        let found = discover(&[corpus(folder)]).expect("discover");
        let (r, loads) = compare(
            cache.path(),
            &found.sessions,
            &json!({"tool_name": "bash", "limit": 1000, "redact": false}),
        );
        assert_eq!((r.records.len(), loads), (bash, 0), "{folder}");
        let unfinished = r.records.iter().filter(|c| c.output.is_none()).count();
        assert_eq!(unfinished, running, "{folder}");
        let (r, loads) = compare(
            cache.path(),
            &found.sessions,
            &json!({"tool_name": "read", "input_contains": "filepath", "limit": 1000}),
        );
        // Five of the six `read` inputs name a `filePath`; one is the
        // model's invalid `{"offset": 3}`.
        assert_eq!((r.records.len(), loads), (5, 0), "{folder}");
        // A `task` spawn's record carries its child's cost, which its part
        // does not hold: its session is loaded.
        let (r, loads) = compare(
            cache.path(),
            &found.sessions,
            &json!({"tool_name": "task", "limit": 1000}),
        );
        assert_eq!(r.records.len(), 3, "{folder}");
        assert!(loads > 0, "{folder}");
        for args in [
            json!({"tool_name_pattern": "", "limit": 1000}),
            json!({"tool_name_pattern": "", "is_error": true, "limit": 1000}),
            json!({"tool_name_pattern": "e", "output_contains": "e", "limit": 2}),
        ] {
            compare(cache.path(), &found.sessions, &args);
        }
        // The newest bash call, from rows: the run stops before the older
        // sessions, so `matched` is a lower bound there (the reference
        // loads every session); the records are the same.
        let (fast, reference, loads, _) = compare_counted(
            cache.path(),
            &found.sessions,
            &json!({"tool_name": "bash", "limit": 1}),
        );
        assert_eq!((fast.records.len(), loads), (1, 0), "{folder}");
        assert_eq!((reference.matched, reference.matched_exact), (bash, true));
    }
}

/// OpenCode's legacy storage changed behind the index: a part file
/// rewritten with its size and mtime put back (its ctime changed), a
/// second tool part with a call's `callID` in its message, a part file
/// replaced by a FIFO. Each answer equals the loader's; none hangs.
#[test]
fn opencode_parts_changed_behind_the_index_never_give_wrong_records() {
    let data = TempDir::new().expect("temp");
    let cache = TempDir::new().expect("temp");
    hookscope_test_support::copy_tree(&corpus("real-opencode-1.1.65-legacy-json"), data.path());
    let message = data
        .path()
        .join("data/storage/part/msg_233664ab7001cb9EHZI8b2EcES");
    let part = message.join("prt_233664afe001OqMwAsRYQ0Ful2.json");
    let queries = [
        json!({"tool_name": "bash", "limit": 1000, "redact": false}),
        json!({"tool_name": "bash", "output_contains": "wqrld", "limit": 1000}),
    ];
    let all = |expect_world: usize| {
        let found = discover(&[data.path().to_path_buf()]).expect("discover");
        let mut loads = 0;
        for args in &queries {
            let (r, n) = compare(cache.path(), &found.sessions, args);
            loads += n;
            if args.get("output_contains").is_some() {
                assert_eq!(r.records.len(), expect_world, "{args}");
            }
        }
        loads
    };
    assert_eq!(all(0), 0);

    // The bash call's output `Hello, world` → `Hello, wqrld`: the same
    // size, its mtime put back. The rows now built (or the load) say wqrld.
    let mtime = std::fs::metadata(&part)
        .expect("meta")
        .modified()
        .expect("mtime");
    let text = std::fs::read_to_string(&part).expect("read");
    assert_eq!(text.matches("Hello, world").count(), 2);
    std::fs::write(&part, text.replace("Hello, world", "Hello, wqrld")).expect("write");
    let file = std::fs::File::options()
        .write(true)
        .open(&part)
        .expect("open");
    file.set_modified(mtime).expect("set mtime");
    drop(file);
    all(1);

    // A second tool part with the same callID in the message: the call is
    // no longer one part, and the session is loaded.
    let twin = message.join("prt_233664afe002OqMwAsRYQ0Ful2.json");
    let text = std::fs::read_to_string(&part).expect("read");
    std::fs::write(
        &twin,
        text.replace(
            "prt_233664afe001OqMwAsRYQ0Ful2",
            "prt_233664afe002OqMwAsRYQ0Ful2",
        ),
    )
    .expect("write twin");
    all(2);
    std::fs::remove_file(&twin).expect("remove twin");

    // The part file a FIFO: read as nothing (a diagnostic), never waited on.
    #[cfg(unix)]
    {
        std::fs::remove_file(&part).expect("remove part");
        let made = std::process::Command::new("mkfifo")
            .arg(&part)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        all(0);
    }
}

/// Copies of the real sessions share their times: three copies of
/// `real-cc-2.1.332`, the first with its session ids, the others renamed
/// (`0c04bd79…` → `1c04bd79…`, `2c04bd79…`), then the first copied again
/// (the same ids at other paths). A limit that cuts through those ties
/// leaves out calls that can no longer make the newest `limit` (their
/// rows are counted, not read); the records, `matched` and
/// `matched_exact` still equal the answer without the index at every
/// limit.
#[test]
fn a_limit_cutting_through_tied_times_answers_as_without_index() {
    let cache = TempDir::new().expect("temp");
    let dir = TempDir::new().expect("temp");
    let source = corpus("real-cc-2.1.332");
    for copy in 0..4 {
        let to = dir.path().join(format!("copy{copy}"));
        hookscope_test_support::copy_tree(&source, &to);
        if copy == 0 || copy == 3 {
            continue;
        }
        // Rename every `<uuid>.jsonl` and `<uuid>/` under `projects/`.
        for project in std::fs::read_dir(&to).expect("copy") {
            let projects = project.expect("entry").path().join("projects");
            let Ok(folders) = std::fs::read_dir(&projects) else {
                continue;
            };
            for folder in folders {
                let folder = folder.expect("entry").path();
                for entry in std::fs::read_dir(&folder).expect("project") {
                    let path = entry.expect("entry").path();
                    let name = path.file_name().and_then(|n| n.to_str()).expect("name");
                    if name.len() >= 36 && name.as_bytes()[8] == b'-' {
                        let renamed = format!("{copy}{}", &name[1..]);
                        std::fs::rename(&path, folder.join(renamed)).expect("rename");
                    }
                }
            }
        }
    }
    let found = discover(&[dir.path().to_path_buf()]).expect("discover");
    let one = discover(&[source]).expect("discover").sessions.len();
    assert_eq!(found.sessions.len(), 4 * one);
    for limit in [1, 2, 3, 5, 8, 13, 21, 34] {
        for args in [
            json!({"tool_name": "Bash", "limit": limit}),
            json!({"tool_name": "bash", "is_error": false, "limit": limit}),
            json!({"tool_name": "Read", "agent": "claude-code", "limit": limit}),
            json!({"tool_name": "Bash", "since": "2020-01-01T00:00:00Z", "limit": limit}),
            json!({"tool_name": "Bash", "hook": "PreToolUse", "limit": limit}),
            json!({"tool_name_pattern": "e", "limit": limit}),
        ] {
            let (r, _) = compare(cache.path(), &found.sessions, &args);
            assert_eq!(r.records.len(), limit.min(r.matched), "{args}");
        }
    }
}

/// Sessions whose calls interleave in time: session `k` of 12 has ten Bash
/// calls at second `k + 12 j` (j = 0..9), every third one failed, and a
/// twin (the same lines under another id, so their times tie, and one
/// more call, the newest of its session). After the
/// first batch, the newest `limit` are known, and the later sessions'
/// older calls (and a twin's calls at the cut's time, when its id sorts
/// after the cut's) are counted in SQL, not read; every answer (records,
/// `matched`, `matched_exact`) equals the one without index.
#[test]
fn interleaved_sessions_are_cut_in_sql_and_answer_as_without_index() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    // The twin sorts after by id but before by its newest call, at second
    // 200 + k: it is read first, and its calls that tie with the first
    // twin's set cuts the first twin must still pass.
    interleaved_twins(data.path(), 12, 10, |k| {
        format!("2026-01-01T00:03:{:02}Z", 20 + k)
    });
    let found = discover(&[data.path().to_path_buf()]).expect("discover");
    assert_eq!(found.sessions.len(), 24);
    let mut left_out = 0;
    for limit in [1, 5, 12, 13, 17, 29, 40, 41, 119, 239, 251, 252, 253] {
        for (args, all) in [
            (json!({"tool_name": "Bash", "limit": limit}), 252),
            (
                json!({"tool_name": "Bash", "is_error": true, "limit": limit}),
                96,
            ),
            (
                json!({"tool_name": "bash", "is_error": false, "limit": limit}),
                156,
            ),
        ] {
            let (r, reference, loads, beyond) =
                compare_counted(cache.path(), &found.sessions, &args);
            assert_eq!(loads, 0);
            assert_eq!(r.records.len(), limit.min(all), "{args}");
            // Counted past the cut, not read: still every match.
            for run in [&r, &reference] {
                if run.matched_exact {
                    assert_eq!(run.matched, all, "{args}");
                } else {
                    assert!(run.matched >= limit && run.matched < all, "{args}");
                }
            }
            left_out += beyond;
        }
    }
    // The newest calls: the twins' late ones (0:03:31 down to 0:03:20),
    // then session 11's last (0:01:59), in the twin whose id sorts first.
    let (r, _, _, _) = compare_counted(
        cache.path(),
        &found.sessions,
        &json!({"tool_name": "Bash", "limit": 14}),
    );
    assert_eq!(r.records[0].tool_use_id, "toolu_11_late");
    assert_eq!(r.records[12].tool_use_id, "toolu_11_9");
    assert_eq!(
        r.records[12].session,
        "00000011-0000-4000-8000-000000000000"
    );
    assert_eq!(
        r.records[13].session,
        "00000011-0000-4000-8000-000000000001"
    );
    assert!(left_out > 100, "{left_out}");
    // Before any session is read, the index knows the 13th newest Bash
    // call: toolu_11_9 at 0:01:59 (after the twelve late ones), in both
    // twins. The cut is a nanosecond before it, so only the calls at or
    // after it are given: 12 late ones and the two at 0:01:59.
    let index = Index::open(cache.path()).expect("index");
    let refs: Vec<&SessionRef> = found.sessions.iter().collect();
    let query = |args: Value| {
        FindParams::from_json(&args)
            .expect("params")
            .validate(Utc::now())
            .expect("valid")
    };
    let cut = index
        .newest_cut(&refs, &query(json!({"tool_name": "Bash", "limit": 13})))
        .expect("a cut");
    assert_eq!(
        cut.0
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true)),
        Some("2026-01-01T00:01:58.999999999Z".to_string())
    );
    // Errors only (j = 0, 3, 6, 9; the late calls are no errors): the
    // newest are toolu_11_9 at 0:01:59 and toolu_10_9 at 0:01:58, each in
    // two twins, so the 3rd is at 0:01:58.
    let cut = index
        .newest_cut(
            &refs,
            &query(json!({"tool_name": "Bash", "is_error": true, "limit": 3})),
        )
        .expect("a cut");
    assert_eq!(
        cut.0
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true)),
        Some("2026-01-01T00:01:57.999999999Z".to_string())
    );
    // A filter SQL does not apply (a text filter) gets none; so does a
    // limit past every match.
    assert_eq!(
        index.newest_cut(
            &refs,
            &query(json!({"tool_name": "Bash", "input_contains": "echo", "limit": 3}))
        ),
        None
    );
    assert_eq!(
        index.newest_cut(&refs, &query(json!({"tool_name": "Bash", "limit": 253}))),
        None
    );
    drop(index);
    let (r, _, loads, _, given) = compare_given(
        cache.path(),
        &found.sessions,
        &json!({"tool_name": "Bash", "limit": 13}),
    );
    assert_eq!((r.records.len(), loads, given), (13, 0, 14));
}

/// Hostile times under a cut: besides 4 calls at ordinary times in each of
/// 10 sessions, the first and the last have an undated call (no
/// `timestamp` on either line: it sorts last) and the first a call in the
/// year 3000 and one in 1600 (out of the index's nanosecond range). Such
/// sessions have no newest bound and are matched first; the cut their
/// calls set then leaves the other sessions' older calls out in SQL. At
/// every limit the records equal those without the index.
#[test]
fn undated_and_out_of_range_times_under_a_cut_answer_as_without_index() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    let undated = |id: &str| -> Vec<Vec<u8>> {
        let call = json!({"type": "assistant", "uuid": format!("a-{id}"),
            "message": {"id": format!("m-{id}"), "role": "assistant", "model": "claude-x",
                        "content": [{"type": "tool_use", "id": id, "name": "Bash",
                                     "input": {"command": "echo undated"}}]}});
        let result = json!({"type": "user", "uuid": format!("r-{id}"),
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
                                                     "content": "ok", "is_error": false}]}});
        vec![
            call.to_string().into_bytes(),
            result.to_string().into_bytes(),
        ]
    };
    for k in 0..10 {
        let mut lines = vec![prompt("2026-01-01T00:00:00Z")];
        for j in 0..4 {
            let second = k + 10 * j;
            let ts = format!("2026-01-01T00:00:{second:02}Z");
            let id = format!("toolu_{k}_{j}");
            lines.push(tool_use(&id, &format!("echo {k} {j}"), &ts));
            lines.push(tool_result(&id, "done", false, &ts));
        }
        if k % 9 == 0 {
            lines.extend(undated(&format!("toolu_{k}_undated")));
        }
        if k == 0 {
            for (tag, ts) in [
                ("future", "3000-01-01T00:00:00Z"),
                ("past", "1600-01-01T00:00:00Z"),
            ] {
                let id = format!("toolu_0_{tag}");
                lines.push(tool_use(&id, "echo far", ts));
                lines.push(tool_result(&id, "done", false, ts));
            }
        }
        session_file(
            data.path(),
            &format!("{k:08}-0000-4000-8000-000000000000"),
            &lines,
        );
    }
    let found = discover(&[data.path().to_path_buf()]).expect("discover");
    assert_eq!(found.sessions.len(), 10);
    let mut left_out = 0;
    for limit in [1, 2, 3, 9, 10, 11, 20, 40, 41, 42, 43, 44, 45] {
        let args = json!({"tool_name": "Bash", "limit": limit});
        let (r, reference, _, beyond) = compare_counted(cache.path(), &found.sessions, &args);
        left_out += beyond;
        assert_eq!(r.records.len(), limit.min(44), "{args}");
        assert_eq!(reference.records.len(), r.records.len());
        // The year-3000 call first; then the 40 of 2026, the 1600 one, and
        // the two undated ones last.
        assert_eq!(r.records[0].tool_use_id, "toolu_0_future");
        if limit >= 44 {
            assert_eq!(r.records[41].tool_use_id, "toolu_0_past");
            assert!(r.records[42..].iter().all(|c| c.timestamp.is_none()));
        }
    }
    assert!(left_out > 0);
}

/// Many sessions under a cut: 35 whose Bash calls interleave in time (as
/// above, each with a twin: 70), one more with a call in the year 3000, one
/// with an undated call and one whose Bash call repeats its id (its lines
/// cannot describe it: the session is loaded). With 64 sessions or more
/// the index reads every session's rows in one scan; what it gives equals,
/// session by session, what it gives asked one session at a time (calls,
/// and those left out past the cut), and every answer's records equal
/// those without the index.
#[test]
fn many_sessions_under_a_cut_are_read_in_one_scan_as_one_at_a_time() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    interleaved_twins(data.path(), 35, 6, |k| {
        format!("2026-01-01T00:04:{:02}Z", k % 60)
    });
    let ts = "2026-01-01T00:02:00Z";
    let odd: [(&str, Vec<Vec<u8>>); 3] = [
        (
            "far",
            vec![
                tool_use("toolu_far", "echo far", "3000-01-01T00:00:00Z"),
                tool_result("toolu_far", "done", false, "3000-01-01T00:00:00Z"),
                tool_use("toolu_near", "echo near", ts),
                tool_result("toolu_near", "done", true, ts),
            ],
        ),
        (
            "undated",
            vec![
                json!({"type": "assistant", "uuid": "a-undated",
                       "message": {"id": "m-undated", "role": "assistant", "model": "claude-x",
                                   "content": [{"type": "tool_use", "id": "toolu_undated",
                                                "name": "Bash", "input": {"command": "echo"}}]}})
                .to_string()
                .into_bytes(),
                tool_use("toolu_dated", "echo dated", ts),
                tool_result("toolu_dated", "done", true, ts),
            ],
        ),
        (
            "repeated",
            ["one", "two"]
                .iter()
                .flat_map(|n| {
                    let call = json!({"type": "assistant", "uuid": format!("a-{n}"), "timestamp": ts,
                        "message": {"id": format!("m-{n}"), "role": "assistant", "model": "claude-x",
                                    "content": [{"type": "tool_use", "id": "toolu_twice",
                                                 "name": "Bash", "input": {"command": n}}]}});
                    let result = json!({"type": "user", "uuid": format!("r-{n}"), "timestamp": ts,
                        "message": {"role": "user", "content": [{"type": "tool_result",
                            "tool_use_id": "toolu_twice", "content": "done", "is_error": true}]}});
                    [call.to_string().into_bytes(), result.to_string().into_bytes()]
                })
                .collect(),
        ),
    ];
    for (n, (_, calls)) in odd.iter().enumerate() {
        let mut lines = vec![prompt("2026-01-01T00:00:00Z")];
        lines.extend(calls.iter().cloned());
        session_file(
            data.path(),
            &format!("ffffff0{n}-0000-4000-8000-000000000000"),
            &lines,
        );
    }
    let found = discover(&[data.path().to_path_buf()]).expect("discover");
    assert_eq!(found.sessions.len(), 73);
    for limit in [1, 2, 36, 37, 71, 100, 150] {
        for args in [
            json!({"tool_name": "Bash", "limit": limit}),
            json!({"tool_name": "Bash", "is_error": true, "limit": limit}),
            json!({"tool_name": "bash", "is_error": false, "limit": limit}),
        ] {
            compare_counted(cache.path(), &found.sessions, &args);
        }
    }
    let index = Index::open(cache.path()).expect("index");
    let refs: Vec<&SessionRef> = found.sessions.iter().collect();
    let at = |t: &str| {
        Some(
            chrono::DateTime::parse_from_rfc3339(t)
                .expect("time")
                .to_utc(),
        )
    };
    let (mut scanned, mut left_out) = (0, 0);
    for args in [
        json!({"tool_name": "Bash", "limit": 40}),
        json!({"tool_name": "Bash", "is_error": true, "limit": 10}),
        json!({"tool_name": "bash", "is_error": false, "limit": 100}),
    ] {
        let query = FindParams::from_json(&args)
            .expect("params")
            .validate(Utc::now())
            .expect("valid");
        let newest = index.newest_cut(&refs, &query).expect("a cut");
        // The index's own cut; a cut at 0:02:00 in a session whose id
        // sorts in the middle (the sessions after it leave that second's
        // calls out, among them the one whose call repeats its id); the
        // same cut in a session sorting last (every session keeps them:
        // the repeated id is then read, and that session loaded).
        let repeated = found
            .sessions
            .iter()
            .position(|s| s.id.starts_with("ffffff02"))
            .expect("repeated");
        for (cut, loaded) in [
            (newest, None),
            (
                (
                    at("2026-01-01T00:02:00Z"),
                    "00000010-0000-4000-8000-000000000000".to_string(),
                ),
                Some(false),
            ),
            (
                (
                    at("2026-01-01T00:02:00Z"),
                    "ffffffff-0000-4000-8000-000000000000".to_string(),
                ),
                Some(true),
            ),
        ] {
            let whole = index.call_rows(&refs, &query, Some(&cut));
            let one_at_a_time: Vec<Option<SessionRows>> = refs
                .iter()
                .flat_map(|s| index.call_rows(&[*s], &query, Some(&cut)))
                .collect();
            assert_eq!(format!("{whole:?}"), format!("{one_at_a_time:?}"), "{args}");
            scanned += whole.iter().flatten().map(|r| r.calls.len()).sum::<usize>();
            left_out += whole.iter().flatten().map(|r| r.beyond).sum::<usize>();
            // (Its calls failed: a query for calls that did not never
            // reads them.)
            if let Some(loaded) = loaded {
                let loaded = loaded && query.is_error != Some(false);
                assert_eq!(whole[repeated].is_none(), loaded, "{args}");
            }
        }
    }
    assert!(scanned > 0 && left_out > 0, "{scanned} {left_out}");
    // An index at odds with itself: a session's groups count no call, but
    // the scan keeps some of its calls. That session gets no rows (not a
    // count that cannot be); the records still equal those without the
    // index.
    drop(index);
    let conn = rusqlite::Connection::open(cache.path().join("index.sqlite")).expect("open");
    let odd_out = conn
        .execute(
            "UPDATE call_groups SET calls = 0 WHERE s_id = '00000034-0000-4000-8000-000000000001'",
            [],
        )
        .expect("update");
    assert!(odd_out > 0);
    drop(conn);
    let index = Index::open(cache.path()).expect("index");
    let query = FindParams::from_json(&json!({"tool_name": "Bash", "limit": 40}))
        .expect("params")
        .validate(Utc::now())
        .expect("valid");
    let cut = index.newest_cut(&refs, &query).expect("a cut");
    let whole = index.call_rows(&refs, &query, Some(&cut));
    let at = found
        .sessions
        .iter()
        .position(|s| s.id == "00000034-0000-4000-8000-000000000001")
        .expect("session 34's twin");
    assert!(whole[at].is_none());
    drop(index);
    // (The run then starts again without the cut, session by session.)
    let (r, _, _, _) = compare_counted(
        cache.path(),
        &found.sessions,
        &json!({"tool_name": "Bash", "limit": 40}),
    );
    assert_eq!(r.records[0].tool_use_id, "toolu_far");
    assert_eq!(r.records[1].tool_use_id, "toolu_34_late");
}

/// `output_contains` is a text the index does not store: the sessions it
/// gives are still scanned raw, and one whose files hold the needle
/// nowhere is ruled out before its rows are read (4 sessions of "done",
/// one with "Permission denied": rows are asked for that one only).
#[test]
fn output_contains_rules_out_sessions_by_their_bytes_before_reading_rows() {
    struct Asked<'a> {
        index: &'a Index,
        sessions: AtomicUsize,
    }
    impl RowSource for Asked<'_> {
        fn call_rows(
            &self,
            sessions: &[&SessionRef],
            query: &Query,
            cut: Option<&RowKey>,
        ) -> Vec<Option<SessionRows>> {
            self.sessions.fetch_add(sessions.len(), Ordering::SeqCst);
            self.index.call_rows(sessions, query, cut)
        }
    }
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    for k in 0..5 {
        let ts = format!("2026-01-01T00:00:0{k}Z");
        let id = format!("toolu_{k}");
        let output = if k == 3 {
            "rm: Permission denied"
        } else {
            "done"
        };
        let lines = vec![
            prompt("2026-01-01T00:00:00Z"),
            tool_use(&id, "rm x", &ts),
            tool_result(&id, output, k == 3, &ts),
        ];
        session_file(
            data.path(),
            &format!("{k:08}-0000-4000-8000-000000000000"),
            &lines,
        );
    }
    let found = discover(&[data.path().to_path_buf()]).expect("discover");
    let query = FindParams::from_json(
        &json!({"tool_name": "Bash", "output_contains": "permission denied", "limit": 10}),
    )
    .expect("params")
    .validate(Utc::now())
    .expect("valid");
    let mut index = Index::open(cache.path()).expect("index");
    let synced = index.sync(&found.sessions, &mut |_| {});
    let verdicts = index.verdicts(&found.sessions, &synced.states, &query);
    let asked = Asked {
        index: &index,
        sessions: AtomicUsize::new(0),
    };
    let r = Finder::new(&found.sessions, &query)
        .verdicts(&verdicts)
        .rows(&asked)
        .run()
        .expect("rows");
    assert_eq!(r.records.len(), 1);
    assert_eq!(r.records[0].tool_use_id, "toolu_3");
    assert_eq!(asked.sessions.load(Ordering::SeqCst), 1);
    let reference = Finder::new(&found.sessions, &query)
        .run()
        .expect("reference");
    assert_eq!(answer(&r), answer(&reference));
}

/// A Claude Code project folder in `dir` with one session file `name`
/// holding `lines`; returns its path.
/// `n` sessions whose Bash calls interleave in time: session `k` has
/// `calls` calls at second `k + n j` (j = 0..calls) of 2026-01-01, every
/// third one failed, in `<k:08>-0000-4000-8000-000000000000`; and a twin,
/// `…001`, with the same lines and one more call at `late(k)` (an RFC 3339
/// time), `toolu_<k>_late`.
fn interleaved_twins(dir: &Path, n: usize, calls: usize, late: impl Fn(usize) -> String) {
    for k in 0..n {
        let mut lines = vec![prompt("2026-01-01T00:00:00Z")];
        for j in 0..calls {
            let second = k + n * j;
            let ts = format!("2026-01-01T00:{:02}:{:02}Z", second / 60, second % 60);
            let id = format!("toolu_{k}_{j}");
            lines.push(tool_use(&id, &format!("echo {k} {j}"), &ts));
            lines.push(tool_result(&id, "done", j % 3 == 0, &ts));
        }
        session_file(dir, &format!("{k:08}-0000-4000-8000-000000000000"), &lines);
        let ts = late(k);
        let id = format!("toolu_{k}_late");
        lines.push(tool_use(&id, "echo late", &ts));
        lines.push(tool_result(&id, "done", false, &ts));
        session_file(dir, &format!("{k:08}-0000-4000-8000-000000000001"), &lines);
    }
}

fn session_file(dir: &Path, name: &str, lines: &[Vec<u8>]) -> PathBuf {
    let project = dir.join("projects").join("-tmp-p");
    write_lines(project.join(format!("{name}.jsonl")), lines)
}

fn prompt(ts: &str) -> Vec<u8> {
    json!({"type": "user", "uuid": "u0", "timestamp": ts,
           "message": {"role": "user", "content": "run the tests"}})
    .to_string()
    .into_bytes()
}

fn tool_use(id: &str, command: &str, ts: &str) -> Vec<u8> {
    json!({"type": "assistant", "uuid": format!("a-{id}"), "timestamp": ts,
           "message": {"id": format!("m-{id}"), "role": "assistant", "model": "claude-x",
                       "content": [{"type": "tool_use", "id": id, "name": "Bash",
                                    "input": {"command": command}}]}})
    .to_string()
    .into_bytes()
}

fn tool_result(id: &str, text: &str, is_error: bool, ts: &str) -> Vec<u8> {
    json!({"type": "user", "uuid": format!("r-{id}"), "timestamp": ts,
           "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
                                                    "content": text, "is_error": is_error}]}})
    .to_string()
    .into_bytes()
}

/// Three Bash calls with results.
fn three_calls() -> Vec<Vec<u8>> {
    vec![
        prompt("2026-11-01T10:00:00Z"),
        tool_use("t1", "git status", "2026-11-01T10:00:01Z"),
        tool_result("t1", "On branch main", false, "2026-11-01T10:00:02Z"),
        tool_use("t2", "ls /nope", "2026-11-01T10:00:03Z"),
        tool_result(
            "t2",
            "ls: cannot access '/nope': No such file",
            true,
            "2026-11-01T10:00:04Z",
        ),
        tool_use("t3", "git log --oneline", "2026-11-01T10:00:05.123456789Z"),
        tool_result("t3", "e676a63 gen_corpus", false, "2026-11-01T10:00:06Z"),
    ]
}

const QUERIES: &[&str] = &[
    r#"{"tool_name": "Bash", "limit": 1000, "redact": false}"#,
    r#"{"tool_name": "Bash", "input_contains": "git", "limit": 1}"#,
    r#"{"tool_name": "Bash", "output_contains": "such", "limit": 1000}"#,
    r#"{"tool_name": "Bash", "is_error": false, "limit": 1000}"#,
];

fn all_queries(cache: &Path, sessions: &[SessionRef]) -> usize {
    let mut loads = 0;
    for q in QUERIES {
        let args: Value = serde_json::from_str(q).expect("query");
        loads += compare(cache, sessions, &args).1;
    }
    loads
}

#[test]
fn a_rewrite_behind_an_unchanged_stamp_never_gives_wrong_records() {
    let data = TempDir::new().expect("temp");
    let cache = TempDir::new().expect("temp");
    let path = session_file(
        data.path(),
        "11111111-0000-4000-8000-000000000001",
        &three_calls(),
    );
    let found = discover(&[data.path().to_path_buf()]).expect("discover");
    assert_eq!(all_queries(cache.path(), &found.sessions), 0);
    let mtime = std::fs::metadata(&path)
        .expect("meta")
        .modified()
        .expect("mtime");

    // Same bytes, lines 2 and 3 swapped (same size), mtime put back. Size
    // and mtime cannot tell; the file's ctime can (docs/security.md "The
    // index"), so the sync indexes it again and the answers, compared with
    // the loader's by `compare`, come from fresh rows (before ctime was in
    // the identity, the stored offsets of t1 pointed at t1's result line
    // and into the middle of a line, and the line checks sent each query
    // to the loader).
    let mut lines = three_calls();
    lines.swap(1, 2);
    let size = std::fs::metadata(&path).expect("meta").len();
    let path2 = session_file(data.path(), "11111111-0000-4000-8000-000000000001", &lines);
    assert_eq!(path2, path);
    assert_eq!(std::fs::metadata(&path).expect("meta").len(), size);
    let file = std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open");
    file.set_modified(mtime).expect("set mtime");
    drop(file);
    let found = discover(&[data.path().to_path_buf()]).expect("discover");
    assert_eq!(all_queries(cache.path(), &found.sessions), 0);

    // A rewrite that changes the stamp is re-indexed by the sync.
    let mut lines = three_calls();
    lines.insert(1, prompt("2026-11-01T09:59:59Z"));
    session_file(data.path(), "11111111-0000-4000-8000-000000000001", &lines);
    let found = discover(&[data.path().to_path_buf()]).expect("discover");
    assert_eq!(all_queries(cache.path(), &found.sessions), 0);
}

#[test]
fn a_truncated_last_line_a_10_mb_line_and_invalid_utf8_come_out_as_without_index() {
    let data = TempDir::new().expect("temp");
    let cache = TempDir::new().expect("temp");
    // Truncated: t3's result is cut mid-line (no newline, invalid JSON).
    let mut lines = three_calls();
    let last = lines.pop().expect("line");
    lines.push(last[..last.len() / 2].to_vec());
    let path = session_file(data.path(), "22222222-0000-4000-8000-000000000002", &lines);
    let mut bytes = std::fs::read(&path).expect("read");
    bytes.pop(); // no final newline
    std::fs::write(&path, bytes).expect("write");
    // A 10 MB result line.
    let mut big = three_calls();
    big[2] = tool_result("t1", &"x".repeat(10 << 20), false, "2026-11-01T10:00:02Z");
    session_file(data.path(), "33333333-0000-4000-8000-000000000003", &big);
    // Invalid UTF-8 in a tool_use line and in a result line.
    let mut bad = three_calls();
    bad[1] = tool_use("t1", "git status \u{1}", "2026-11-01T10:00:01Z");
    let at = bad[1]
        .windows(6)
        .position(|w| w == b"\\u0001")
        .expect("escape");
    bad[1].splice(at..at + 6, [0xff, 0xfe]);
    let at = bad[4].windows(5).position(|w| w == b"/nope").expect("text");
    bad[4][at + 1] = 0xc3;
    session_file(data.path(), "44444444-0000-4000-8000-000000000004", &bad);

    let found = discover(&[data.path().to_path_buf()]).expect("discover");
    assert_eq!(found.sessions.len(), 3);
    assert_eq!(all_queries(cache.path(), &found.sessions), 0);
    let (r, _) = compare(
        cache.path(),
        &found.sessions,
        &json!({"tool_name": "Bash", "session": "22222222", "limit": 10}),
    );
    // t3's result was cut: no output, no is_error.
    let t3 = r
        .records
        .iter()
        .find(|c| c.tool_use_id == "t3")
        .expect("t3");
    assert_eq!(t3.output, None);
    assert_eq!(t3.is_error, None);
    let (r, _) = compare(
        cache.path(),
        &found.sessions,
        &json!({"tool_name": "Bash", "session": "44444444", "input_contains": "status", "limit": 10, "redact": false}),
    );
    assert_eq!(r.records.len(), 1);
    assert_eq!(
        r.records[0].input,
        json!({"command": "git status \u{fffd}\u{fffd}"})
    );
}

/// A `tool_use` line as Claude Code writes it, with its `cwd` and
/// `gitBranch` before the message (both hold "git").
fn tool_use_in_repo(id: &str, command: &str, ts: &str) -> Vec<u8> {
    format!(
        r#"{{"cwd":"/home/u/git/app","gitBranch":"git-main","type":"assistant","uuid":"a-{id}","timestamp":"{ts}","message":{{"id":"m-{id}","role":"assistant","model":"claude-x","content":[{{"type":"tool_use","id":"{id}","name":"Bash","input":{{"command":{}}}}}]}}}}"#,
        serde_json::to_string(command).expect("json")
    )
    .into_bytes()
}

#[test]
fn input_contains_answers_from_the_stored_input_text_as_without_index() {
    let data = TempDir::new().expect("temp");
    let cache = TempDir::new().expect("temp");
    // 600 bytes: over the index's 512-byte `input_folded` cap.
    let long_git = format!("{} && git push", "echo padding ".repeat(46));
    let long_plain = "echo padding ".repeat(46);
    assert!(long_git.len() > 512 && long_plain.len() > 512);
    // t5's `input` key is written with an escape: the raw-byte narrowing
    // must not skip it.
    // It is long too, so its line is read (no stored text).
    let long_fetch = format!("git fetch && {long_plain}");
    let escaped = String::from_utf8(tool_use_in_repo("t5", &long_fetch, "2026-11-01T10:00:09Z"))
        .expect("utf-8")
        .replace("\"input\"", "\"\\u0069nput\"")
        // A second block after it, whose `input` key is plain.
        .replace(
            "}]}}",
            r#"},{"type":"tool_use","id":"t7","name":"Bash","input":{"command":"pwd"}}]}}"#,
        )
        .into_bytes();
    let lines = vec![
        prompt("2026-11-01T10:00:00Z"),
        tool_use_in_repo("t1", "ls -la", "2026-11-01T10:00:01Z"),
        tool_result("t1", "total 0", false, "2026-11-01T10:00:02Z"),
        tool_use_in_repo("t2", "echo GIT", "2026-11-01T10:00:03Z"),
        tool_result("t2", "GIT", false, "2026-11-01T10:00:04Z"),
        tool_use_in_repo("t3", &long_git, "2026-11-01T10:00:05Z"),
        tool_result("t3", "pushed", false, "2026-11-01T10:00:06Z"),
        tool_use_in_repo("t4", &long_plain, "2026-11-01T10:00:07Z"),
        tool_result("t4", "padding", false, "2026-11-01T10:00:08Z"),
        escaped,
        tool_result("t5", "fetched", false, "2026-11-01T10:00:10Z"),
        tool_result("t7", "/home/u/git/app", false, "2026-11-01T10:00:10Z"),
        // U+212A KELVIN SIGN folds to an ASCII k.
        tool_use_in_repo("t6", "\u{212a}ILL -9 1", "2026-11-01T10:00:11Z"),
        tool_result("t6", "", false, "2026-11-01T10:00:12Z"),
    ];
    session_file(data.path(), "55555555-0000-4000-8000-000000000005", &lines);
    let found = discover(&[data.path().to_path_buf()]).expect("discover");
    let ids = |r: &FindResult| {
        let mut ids: Vec<String> = r.records.iter().map(|c| c.tool_use_id.clone()).collect();
        ids.sort();
        ids
    };
    // "git" is in every tool_use line (cwd, gitBranch) but in the input of
    // t2 (upper case), t3 (past the cap) and t5 only.
    let (r, loads) = compare(
        cache.path(),
        &found.sessions,
        &json!({"tool_name": "Bash", "input_contains": "git", "limit": 100}),
    );
    assert_eq!(ids(&r), ["t2", "t3", "t5"]);
    assert_eq!(loads, 0);
    let (r, _) = compare(
        cache.path(),
        &found.sessions,
        &json!({"tool_name": "Bash", "input_contains": "kill -9", "limit": 100}),
    );
    assert_eq!(ids(&r), ["t6"]);
    let (r, _) = compare(
        cache.path(),
        &found.sessions,
        &json!({"tool_name_pattern": "BAS", "input_contains": "padding", "limit": 100}),
    );
    assert_eq!(ids(&r), ["t3", "t4", "t5"]);
    // The CLI says the same with and without the index.
    same_find(
        cache.path(),
        data.path(),
        &["--tool-name", "bash", "--input-contains", "GIT"],
    );
}

/// A Task spawn (its record needs the session: `rows_ok` 0) with a prompt
/// too long to be stored does not make a text search load the session
/// when its line cannot hold the needle; when it can, the session loads.
#[test]
fn a_long_spawn_that_cannot_match_does_not_load_its_session() {
    let data = TempDir::new().expect("temp");
    let cache = TempDir::new().expect("temp");
    let prompt_text = "review the repository layout ".repeat(30);
    assert!(prompt_text.len() > 512);
    let task = format!(
        r#"{{"type":"assistant","uuid":"a-t0","timestamp":"2026-11-01T10:00:01Z","message":{{"id":"m-t0","role":"assistant","model":"claude-x","content":[{{"type":"tool_use","id":"t0","name":"Task","input":{{"description":"Review","prompt":{},"subagent_type":"general-purpose"}}}}]}}}}"#,
        serde_json::to_string(&prompt_text).expect("json")
    )
    .into_bytes();
    let mut lines = vec![prompt("2026-11-01T10:00:00Z"), task];
    lines.push(tool_result("t0", "reviewed", false, "2026-11-01T10:00:02Z"));
    lines.extend(three_calls().into_iter().skip(1));
    session_file(data.path(), "66666666-0000-4000-8000-000000000006", &lines);
    let found = discover(&[data.path().to_path_buf()]).expect("discover");
    let ids = |r: &FindResult| {
        let mut ids: Vec<String> = r.records.iter().map(|c| c.tool_use_id.clone()).collect();
        ids.sort();
        ids
    };
    // "git" is in two Bash inputs, not in the spawn's prompt.
    let (r, loads) = compare(
        cache.path(),
        &found.sessions,
        &json!({"tool_name_pattern": "", "input_contains": "git", "limit": 100}),
    );
    assert_eq!(ids(&r), ["t1", "t3"]);
    assert_eq!(loads, 0);
    // "layout" is only in the spawn's prompt: its record needs the load.
    let (r, loads) = compare(
        cache.path(),
        &found.sessions,
        &json!({"tool_name_pattern": "", "input_contains": "layout", "limit": 100}),
    );
    assert_eq!(ids(&r), ["t0"]);
    assert_eq!(loads, 1);
}

/// A spawn (its record needs the loaded session) whose stored hook facts
/// fail a hook filter does not make the session load: `blocked: true`
/// over a session no hook blocked reads nothing; `blocked: false` keeps
/// the spawn, which then loads.
#[test]
fn a_spawn_a_hook_filter_rules_out_does_not_load_its_session() {
    let data = TempDir::new().expect("temp");
    let cache = TempDir::new().expect("temp");
    let task = br#"{"type":"assistant","uuid":"a-t0","timestamp":"2026-11-01T10:00:01Z","message":{"id":"m-t0","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t0","name":"Task","input":{"description":"Review","prompt":"review","subagent_type":"general-purpose"}}]}}"#.to_vec();
    let mut lines = vec![prompt("2026-11-01T10:00:00Z"), task];
    lines.push(tool_result("t0", "reviewed", false, "2026-11-01T10:00:02Z"));
    lines.extend(three_calls().into_iter().skip(1));
    session_file(data.path(), "77777777-0000-4000-8000-000000000007", &lines);
    let found = discover(&[data.path().to_path_buf()]).expect("discover");
    for (args, records, loaded) in [
        (
            json!({"tool_name_pattern": "", "blocked": true, "limit": 100}),
            0,
            0,
        ),
        (
            json!({"tool_name_pattern": "", "hook": "PreToolUse", "limit": 100}),
            0,
            0,
        ),
        (
            json!({"tool_name_pattern": "", "blocked": false, "limit": 100}),
            4,
            1,
        ),
    ] {
        let (r, loads) = compare(cache.path(), &found.sessions, &args);
        assert_eq!((r.records.len(), loads), (records, loaded), "{args}");
    }
}

/// Every `find` parameter, and every word of the Calls view's filter line
/// (`--filter`, the same parser the TUI uses), gives the same bytes with
/// the index (the kept discovery after the first run: no walk) as
/// without it, on the whole corpus.
#[test]
fn every_find_parameter_and_filter_word_equals_find_without_index() {
    let cache = TempDir::new().expect("temp");
    let root = corpus_dir();
    let all = ["--tool-name-pattern", "", "--limit", "100000"];
    let with_all = |more: &[&'static str]| -> Vec<&'static str> {
        let mut v = all.to_vec();
        v.extend_from_slice(more);
        v
    };
    let queries: Vec<Vec<&str>> = vec![
        with_all(&[]),
        with_all(&["--flagged"]),
        with_all(&["--rewritten"]),
        with_all(&["--blocked"]),
        with_all(&["--hook", "PreToolUse"]),
        with_all(&["--hook", "PostToolUse", "--is-error", "false"]),
        with_all(&["--session", "e71e9aa1"]),
        with_all(&["--session", "e71e9aa1", "--session", "e1be136e"]),
        with_all(&["--output-mode", "tail"]),
        with_all(&["--output-mode", "smart", "--is-error", "true"]),
        with_all(&["--output-mode", "head", "--no-redact"]),
        with_all(&["--agent", "claude-code"]),
        with_all(&["--agent", "codex"]),
        with_all(&["--agent", "opencode"]),
        with_all(&["--agent", "droid"]),
        with_all(&["--since", "2026-01-01", "--until", "2026-12-02"]),
        with_all(&["--since", "30d"]),
        with_all(&["--until", "2025-06-01"]),
        with_all(&["--with-subagent-cost"]),
        with_all(&["--output-contains", "error", "--output-excludes", "warning"]),
        with_all(&["--input-contains", "README"]),
        vec![
            "--tool-name",
            "Read",
            "--agent",
            "claude-code",
            "--limit",
            "3",
        ],
        vec!["--tool-name", "exec_command", "--agent", "codex"],
        vec!["--tool-name", "Execute", "--limit", "100000"],
        vec!["--filter", "tool:Bash is:error"],
        vec!["--filter", "name:edit input:README"],
        vec!["--filter", "tool:Bash output:test -output:passed"],
        vec!["--filter", "is:ok agent:claude-code limit:20"],
        vec!["--filter", "is:blocked"],
        vec!["--filter", "is:flagged"],
        vec!["--filter", "is:rewritten"],
        vec!["--filter", "hook:PreToolUse session:e71e9aa1"],
        vec!["--filter", "since:2026-01-01 until:2026-12-02 mode:tail"],
        vec!["--filter", "redact:off cost:on tool:Agent"],
        vec!["--filter", "\"rm -rf\" git"],
        vec!["--filter", "agent:opencode limit:5"],
        vec!["--filter", "agent:droid is:error"],
    ];
    for q in &queries {
        same_find(cache.path(), &root, q);
    }
}

/// Calls whose time is outside what the index stores as nanoseconds
/// (year 9999, year 1000), or has no time at all, come out with the index
/// (its per-session groups for `since`, its rows for `until`) exactly as
/// without it, for every time bound and error filter.
#[test]
fn times_out_of_range_or_missing_answer_as_without_index() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    let far = vec![
        prompt("2026-11-01T10:00:00Z"),
        tool_use("f1", "echo far future", "9999-01-01T00:00:00Z"),
        tool_result("f1", "ok", false, "9999-01-01T00:00:01Z"),
        tool_use("f2", "echo far past", "1000-01-01T00:00:00Z"),
        tool_result("f2", "failed", true, "1000-01-01T00:00:01Z"),
        tool_use("f3", "echo recent", "2026-11-20T00:00:00Z"),
        tool_result("f3", "ok", false, "2026-11-20T00:00:01Z"),
    ];
    session_file(data.path(), "77777777-0000-4000-8000-000000000007", &far);
    let undated: Vec<Vec<u8>> = vec![
        prompt("2026-11-01T10:00:00Z"),
        json!({"type": "assistant", "uuid": "a-u1",
               "message": {"id": "m-u1", "role": "assistant", "model": "claude-x",
                           "content": [{"type": "tool_use", "id": "u1", "name": "Bash",
                                        "input": {"command": "echo undated"}}]}})
        .to_string()
        .into_bytes(),
        json!({"type": "user", "uuid": "r-u1",
               "message": {"role": "user", "content": [{"type": "tool_result",
                   "tool_use_id": "u1", "content": "no time", "is_error": true}]}})
        .to_string()
        .into_bytes(),
    ];
    session_file(
        data.path(),
        "88888888-0000-4000-8000-000000000008",
        &undated,
    );
    session_file(
        data.path(),
        "99999999-0000-4000-8000-000000000009",
        &three_calls(),
    );
    let root = data.path();
    let queries: &[&[&str]] = &[
        &["--tool-name", "Bash", "--limit", "100"],
        &[
            "--tool-name",
            "Bash",
            "--since",
            "2026-11-10",
            "--limit",
            "100",
        ],
        &[
            "--tool-name",
            "Bash",
            "--since",
            "2026-11-10",
            "--limit",
            "1",
        ],
        &[
            "--tool-name",
            "Bash",
            "--since",
            "1990-01-01",
            "--limit",
            "100",
        ],
        &[
            "--tool-name",
            "Bash",
            "--since",
            "3000-01-01",
            "--limit",
            "100",
        ],
        &[
            "--tool-name",
            "Bash",
            "--until",
            "2026-11-10",
            "--limit",
            "100",
        ],
        &[
            "--tool-name",
            "Bash",
            "--is-error",
            "true",
            "--since",
            "2000-01-01",
        ],
        &[
            "--tool-name",
            "Bash",
            "--is-error",
            "true",
            "--limit",
            "100",
        ],
        &[
            "--tool-name-pattern",
            "as",
            "--since",
            "2026-01-01",
            "--limit",
            "100",
        ],
    ];
    for q in queries {
        same_find(cache.path(), root, q);
    }
    // Asked again: from the kept discovery, the same.
    for q in queries {
        same_find(cache.path(), root, q);
    }
}
