//! `tool_kind` of the harness spellings (docs/tool-calls.md#tool-kind-and-resolved-name): every name
//! `parse_tool_call` types as a BashCall is `bash` (Codex's `shell_command`
//! with or without arguments), and `TOOL_ALIASES` spellings classify as their
//! canonical tool (`Execute` → bash, `Create` → write, `FetchUrl` → web), as
//! `hookscope call` and `hookscope find` report them.

use std::collections::BTreeMap;

use assert_cmd::Command;
use serde_json::Value;

use crate::support::{corpus, hookscope};

fn json_of(cmd: &mut Command) -> Value {
    let out = cmd.assert().success().get_output().clone();
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn call(name: &str, input: &str) -> (String, String) {
    let v = json_of(hookscope().args(["call", name, input]));
    (
        v["type"].as_str().unwrap_or("").to_string(),
        v["tool_kind"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn call_classifies_bash_calls_and_aliases() {
    // Without arguments it is no typed call, but still bash by name.
    assert_eq!(
        call("shell_command", "{}"),
        ("OtherCall".into(), "bash".into())
    );
    assert_eq!(
        call("shell_command", r#"{"command":"ls"}"#),
        ("BashCall".into(), "bash".into())
    );
    assert_eq!(
        call("Execute", r#"{"command":"ls"}"#),
        ("BashCall".into(), "bash".into())
    );
    assert_eq!(
        call("Create", r#"{"file_path":"a.txt","content":"x"}"#),
        ("WriteCall".into(), "write".into())
    );
    assert_eq!(call("FetchUrl", r#"{"url":"https://x"}"#).1, "web");
    assert_eq!(call("Grep", r#"{"pattern":"x"}"#).1, "other");
}

/// Every call of the real Droid runs with its kind. Recounted with python
/// over `sessions/*/*.jsonl` (`message.content[].type == "tool_use"` by
/// `name`): Execute 9, Read 4, Task 4, Edit 2, Create 1, Glob 1, Grep 1,
/// LS 1, TodoWrite 1, frobnicate 1 (25).
#[test]
fn find_droid_kinds() {
    let corpus = corpus("real-droid-0.225.2/factory");
    let v = json_of(hookscope().args([
        "find",
        "--agent",
        "droid",
        "--tool-name-pattern",
        "",
        "--json",
        corpus.to_str().expect("utf-8"),
    ]));
    let mut kinds: BTreeMap<(String, String), usize> = BTreeMap::new();
    for r in v["records"].as_array().expect("records") {
        let key = (
            r["tool_name"].as_str().unwrap_or("").to_string(),
            r["tool_kind"].as_str().unwrap_or("").to_string(),
        );
        *kinds.entry(key).or_default() += 1;
    }
    let want: BTreeMap<(String, String), usize> = [
        ("Create", "write", 1),
        ("Edit", "edit", 2),
        ("Execute", "bash", 9),
        ("Glob", "other", 1),
        ("Grep", "other", 1),
        ("LS", "other", 1),
        ("Read", "read", 4),
        ("Task", "task", 4),
        ("TodoWrite", "other", 1),
        ("frobnicate", "other", 1),
    ]
    .into_iter()
    .map(|(n, k, c)| ((n.to_string(), k.to_string()), c))
    .collect();
    assert_eq!(kinds, want);
}
