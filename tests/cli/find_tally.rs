//! `find --count` and `find --group-by`: the counts are those of the
//! records `find` returns with no limit (grouped here from the records
//! themselves), the same with the index and with `--no-index`, on the whole
//! corpus and every grouping; bad flag combinations and hostile keys.
//!
//! `real-cc-2.1.332/hooks` has 13 calls (recounted with python3 over the
//! JSONL: distinct `tool_use` ids of the main files and subagents): 6 Bash
//! (5 in 0c04bd79….jsonl, 1 in its subagent), 11 with an `is_error: false`
//! result and 2 with `is_error: true`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::{corpus_dir, hookscope, indexed, write_lines};

/// `hookscope <args>` with the cache folder `cache` (`None`:
/// `--no-index`): (stdout, stderr, exit code).
fn run(cache: Option<&Path>, args: &[&str]) -> (String, String, i32) {
    let out = match cache {
        Some(c) => indexed(c).args(args).output(),
        None => hookscope().arg("--no-index").args(args).output(),
    }
    .expect("run");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The key a record falls in for `by`, from its JSON.
fn key_of(record: &Value, by: &str) -> String {
    match by {
        "tool" => record["tool_name"].as_str().expect("name").to_string(),
        "session" => record["session"].as_str().expect("session").to_string(),
        "agent" => record["agent"].as_str().expect("agent").to_string(),
        "day" => match record["timestamp"].as_str() {
            Some(t) => t[..10].to_string(),
            None => "undated".to_string(),
        },
        "error" => match record["is_error"].as_bool() {
            Some(true) => "error".to_string(),
            Some(false) => "ok".to_string(),
            None => "no result".to_string(),
        },
        other => panic!("no key {other}"),
    }
}

#[test]
fn counts_equal_the_records_find_returns_with_and_without_the_index() {
    let cache = TempDir::new().expect("temp");
    let root = corpus_dir();
    let root = root.to_str().expect("utf-8 path");
    let queries: &[&[&str]] = &[
        &["--tool-name-pattern", ""],
        &["--tool-name", "Bash"],
        &["--tool-name", "bash", "--is-error", "true"],
        &["--tool-name-pattern", "", "--is-error", "false"],
        &["--tool-name-pattern", "", "--agent", "codex"],
        &["--tool-name-pattern", "", "--agent", "opencode"],
        &["--tool-name-pattern", "", "--agent", "droid"],
        &[
            "--tool-name-pattern",
            "",
            "--since",
            "2026-01-01",
            "--until",
            "2026-12-02",
        ],
        &["--tool-name-pattern", "", "--input-contains", "README"],
        &[
            "--tool-name-pattern",
            "",
            "--output-contains",
            "error",
            "--output-excludes",
            "warning",
        ],
        &["--tool-name-pattern", "", "--hook", "PreToolUse"],
        &["--tool-name-pattern", "", "--blocked"],
        &["--tool-name-pattern", "", "--flagged"],
        &["--tool-name-pattern", "", "--rewritten"],
        &["--tool-name-pattern", "", "--session", "e71e9aa1"],
        &["--filter", "tool:Bash is:error"],
        &["--filter", "\"rm -rf\" git"],
    ];
    let now = ["--now", "2026-12-01T00:00:00Z"];
    for q in queries {
        let mut find = vec!["find", "--json", "--limit", "100000"];
        find.extend_from_slice(&now);
        find.extend_from_slice(q);
        find.push(root);
        let (out, _, code) = run(None, &find);
        assert_eq!(code, 0, "{q:?}");
        let records = json_of(&out)["records"]
            .as_array()
            .expect("records")
            .clone();

        let mut count = vec!["find", "--json", "--count"];
        count.extend_from_slice(&now);
        count.extend_from_slice(q);
        count.push(root);
        let with = run(Some(cache.path()), &count);
        let without = run(None, &count);
        assert_eq!(with, without, "--count {q:?}");
        assert_eq!(json_of(&with.0), json!({"total": records.len()}), "{q:?}");

        for by in ["tool", "session", "day", "agent", "error"] {
            let mut grouped = vec!["find", "--json", "--group-by", by];
            grouped.extend_from_slice(&now);
            grouped.extend_from_slice(q);
            grouped.push(root);
            let with = run(Some(cache.path()), &grouped);
            let without = run(None, &grouped);
            assert_eq!(with, without, "--group-by {by} {q:?}");
            let got = json_of(&with.0);
            assert_eq!(got["total"], json!(records.len()), "{by} {q:?}");
            assert_eq!(got["group_by"], json!(by));
            let mut expected: BTreeMap<String, usize> = BTreeMap::new();
            for r in &records {
                *expected.entry(key_of(r, by)).or_default() += 1;
            }
            let groups: BTreeMap<String, usize> = got["groups"]
                .as_array()
                .expect("groups")
                .iter()
                .map(|g| {
                    let n = g["count"].as_u64().expect("count");
                    (g["key"].as_str().expect("key").to_string(), n as usize)
                })
                .collect();
            assert_eq!(groups, expected, "{by} {q:?}");
        }
    }
}

#[test]
fn count_and_group_by_on_a_real_session() {
    let root = corpus_dir().join("real-cc-2.1.332/hooks");
    let root = root.to_str().expect("utf-8 path");
    let (out, _, code) = run(None, &["find", "--tool-name", "Bash", "--count", root]);
    assert_eq!((out.as_str(), code), ("6\n", 0));
    let (out, _, code) = run(
        None,
        &[
            "find",
            "--tool-name-pattern",
            "",
            "--group-by",
            "error",
            root,
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "COUNT  ERROR\n   11  ok\n    2  error\n   13  (total)\n"
    );
}

#[test]
fn days_are_newest_first_with_undated_last() {
    let data = TempDir::new().expect("temp");
    let call = |id: &str, ts: Option<&str>| {
        let mut v = json!({"type": "assistant", "uuid": format!("a-{id}"),
            "message": {"id": format!("m-{id}"), "role": "assistant", "model": "claude-x",
                        "content": [{"type": "tool_use", "id": id, "name": "Bash",
                                     "input": {"command": "ls"}}]}});
        if let Some(ts) = ts {
            v["timestamp"] = json!(ts);
        }
        v.to_string()
    };
    write_lines(
        data.path().join("proj/s1.jsonl"),
        &[
            call("t1", Some("2026-11-01T10:00:00Z")),
            call("t2", None),
            call("t3", Some("2026-11-03T23:59:59Z")),
            call("t4", Some("2026-11-03T00:00:00Z")),
        ],
    );
    let root = data.path().to_str().expect("utf-8 path");
    let (out, _, code) = run(
        None,
        &["find", "--tool-name", "Bash", "--group-by", "day", root],
    );
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "COUNT  DAY\n    2  2026-11-03\n    1  2026-11-01\n    1  undated\n    4  (total)\n"
    );
}

#[test]
fn a_limit_with_a_count_is_refused_and_keys_are_printed_safely() {
    // Refused by the argument parser: a limit beside a count, a key it
    // does not know, --count beside --group-by (--count was dropped).
    for (args, refusal) in [
        (
            &["--count", "--limit", "3"][..],
            "'--count' cannot be used with '--limit <N>'",
        ),
        (&["--group-by", "week"][..], "invalid value 'week'"),
        (
            &["--count", "--group-by", "agent"][..],
            "'--count' cannot be used with '--group-by <KEY>'",
        ),
    ] {
        let mut line = vec!["find", "--tool-name", "Bash"];
        line.extend_from_slice(args);
        line.push(".");
        let (_, err, code) = run(None, &line);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(refusal), "{err}");
    }
    // A limit given in the filter line is refused the same way (it was
    // ignored).
    let (out, err, code) = run(
        None,
        &["find", "--filter", "tool:Bash limit:2", "--count", "."],
    );
    assert_eq!((out.as_str(), code), ("", 2));
    assert_eq!(
        err,
        "hookscope: invalid argument: --filter: limit:N does not apply to --count or --group-by (they count every match)\n"
    );
    let (out, _, code) = run(
        None,
        &[
            "find",
            "--json",
            "--filter",
            "limit:2",
            "--group-by",
            "agent",
            ".",
        ],
    );
    assert_eq!(code, 2);
    assert_eq!(json_of(&out)["error"], json!("invalid_argument"));

    // A tool name that would clear the screen and set the title.
    let data = TempDir::new().expect("temp");
    let evil = "\u{1b}[2J\u{1b}]0;pwned\u{7}evil";
    let line = json!({"type": "assistant", "uuid": "a1", "timestamp": "2026-11-01T10:00:00Z",
        "message": {"id": "m1", "role": "assistant", "model": "claude-x",
                    "content": [{"type": "tool_use", "id": "t1", "name": evil, "input": {}}]}});
    write_lines(data.path().join("proj/s1.jsonl"), &[line.to_string()]);
    let root = data.path().to_str().expect("utf-8 path");
    let (out, _, code) = run(
        None,
        &[
            "find",
            "--tool-name-pattern",
            "evil",
            "--group-by",
            "tool",
            root,
        ],
    );
    assert_eq!(code, 0);
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(out.contains("evil"), "{out}");
    let (out, _, _) = run(
        None,
        &[
            "find",
            "--json",
            "--tool-name-pattern",
            "evil",
            "--group-by",
            "tool",
            root,
        ],
    );
    assert_eq!(json_of(&out)["groups"][0]["key"], json!(evil));
}

/// A transcript rewritten behind the index's back, with its size and
/// mtime put back (every `Bash` renamed `Grep`, the same length), is
/// counted as it now reads: the stored facts are not served stale.
#[test]
fn a_rewrite_with_size_and_mtime_restored_is_counted_fresh() {
    let cache = TempDir::new().expect("temp");
    let data = TempDir::new().expect("temp");
    let call = |id: &str| {
        json!({"type": "assistant", "uuid": format!("a-{id}"), "timestamp": "2026-11-01T10:00:00Z",
            "message": {"id": format!("m-{id}"), "role": "assistant", "model": "claude-x",
                        "content": [{"type": "tool_use", "id": id, "name": "Bash",
                                     "input": {"command": "ls"}}]}})
        .to_string()
    };
    let path = write_lines(
        data.path().join("proj/s1.jsonl"),
        &[call("t1"), call("t2"), call("t3")],
    );
    let root = data.path().to_str().expect("utf-8 path");
    let args = [
        "find",
        "--tool-name-pattern",
        "",
        "--group-by",
        "tool",
        root,
    ];
    let (out, _, _) = run(Some(cache.path()), &args);
    assert_eq!(out, "COUNT  TOOL\n    3  Bash\n    3  (total)\n");

    let meta = std::fs::metadata(&path).expect("meta");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.replace("\"Bash\"", "\"Grep\"")).expect("write");
    let file = std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open");
    file.set_modified(meta.modified().expect("mtime"))
        .expect("set mtime");
    drop(file);
    assert_eq!(std::fs::metadata(&path).expect("meta").len(), meta.len());
    let (out, _, _) = run(Some(cache.path()), &args);
    assert_eq!(out, "COUNT  TOOL\n    3  Grep\n    3  (total)\n");
}
