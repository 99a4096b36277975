//! `hookscope replay --all --rules A --against B`
//! (docs/replay-and-backtest.md#what-changes-between-two-rule-sets): the
//! events two rule sets decide differently, checked against the slow way
//! (each set's own backtest, every example, diffed); `--fail-on-change`
//! gates on it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{CORPUS, EXAMPLE_RULES, hookscope};

/// B: the printed example with `no-rm-rf` turned from a block into a warn,
/// `deploys-use-make` telling the model something else, and a new rule
/// blocking `git push`.
fn version_b(dir: &Path) -> PathBuf {
    let out = hookscope()
        .args(["test", "--example"])
        .output()
        .expect("runs");
    let mut text = String::from_utf8(out.stdout).expect("utf-8");
    let rm = "id = \"no-rm-rf\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\npriority = 10\naction = \"block\"";
    assert!(text.contains(rm));
    text = text.replace(rm, &rm.replace("action = \"block\"", "action = \"warn\""));
    let deploy =
        "reason = \"Deploys go through `make deploy ENV=<env>`; never push images by hand.\"";
    assert!(text.contains(deploy));
    text = text.replace(
        deploy,
        "reason = \"Deploys go through the release pipeline.\"",
    );
    text.push_str(
        "\n[[rules]]\nid = \"no-push\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"no pushing from an agent\"\n[rules.only_if]\ncommand = '\\bgit\\s+push\\b'\n",
    );
    let path = dir.join("b.toml");
    std::fs::write(&path, text).expect("write");
    path
}

fn json_of(args: &[&str]) -> Value {
    let out = hookscope().args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// The events a rule set blocks, from its backtest: an event is blocked
/// when any rule's verdict on it is `block` (a block wins the merge).
fn blocked(rules: &str) -> BTreeSet<(String, String, String)> {
    let v = json_of(&[
        "replay",
        "--all",
        "--rules",
        rules,
        "--examples",
        "all",
        "--json",
        CORPUS,
    ]);
    let mut out = BTreeSet::new();
    for rule in v["rules"].as_array().expect("rules") {
        let total: u64 = rule["counts"]["block"].as_u64().unwrap_or(0);
        let examples: Vec<&Value> = rule["examples"]
            .as_array()
            .expect("examples")
            .iter()
            .filter(|e| e["verdict"] == "block")
            .collect();
        assert_eq!(examples.len() as u64, total, "every block is listed");
        for e in examples {
            out.insert(key(e));
        }
    }
    out
}

fn key(e: &Value) -> (String, String, String) {
    let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
    (s("session"), s("event"), s("at"))
}

fn listed(v: &Value, group: &str) -> BTreeSet<(String, String, String)> {
    let g = &v[group];
    let examples = g["examples"].as_array().expect("examples");
    assert_eq!(g["count"].as_u64(), Some(examples.len() as u64));
    examples.iter().map(key).collect()
}

#[test]
fn the_changes_are_exactly_the_blocks_that_differ_the_slow_way() {
    let dir = tempfile::tempdir().expect("tempdir");
    let b = version_b(dir.path());
    let b = b.to_str().expect("utf-8 path");
    let v = json_of(&[
        "replay",
        "--all",
        "--rules",
        EXAMPLE_RULES,
        "--against",
        b,
        "--json",
        CORPUS,
    ]);
    let (in_a, in_b) = (blocked(EXAMPLE_RULES), blocked(b));
    let newly: BTreeSet<_> = in_b.difference(&in_a).cloned().collect();
    let no_longer: BTreeSet<_> = in_a.difference(&in_b).cloned().collect();
    assert!(!newly.is_empty() && !no_longer.is_empty());
    assert_eq!(listed(&v, "newly_blocked"), newly);
    assert_eq!(listed(&v, "no_longer_blocked"), no_longer);
    // Each change names both decisions.
    let first = &v["newly_blocked"]["examples"][0];
    assert_eq!(first["a"], "none");
    assert_eq!(first["b"], "block (no-push)");
    assert_eq!(
        v["no_longer_blocked"]["examples"][0]["a"],
        "block (no-rm-rf)"
    );
    assert_eq!(
        v["no_longer_blocked"]["examples"][0]["b"],
        "warn (no-rm-rf)"
    );
    assert_eq!(v["rewrite_changed"]["count"], 0);
    // deploys-use-make's context events (2 in the corpus) tell another text.
    let a = json_of(&[
        "replay",
        "--all",
        "--rules",
        EXAMPLE_RULES,
        "--json",
        CORPUS,
    ]);
    let deploys = a["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["id"] == "deploys-use-make")
        .and_then(|r| r["counts"]["context"].as_u64())
        .expect("context count");
    assert_eq!(deploys, 2);
    assert_eq!(v["context_changed"]["count"], deploys);
    assert_eq!(
        v["context_changed"]["examples"][0]["a"],
        "context (deploys-use-make)"
    );
    assert_eq!(v["other_changed"]["count"], 0);
    let events = v["events"].as_u64().expect("events");
    assert_eq!(
        v["same"].as_u64().expect("same") + (newly.len() + no_longer.len()) as u64 + deploys,
        events
    );
}

#[test]
fn fail_on_change_exits_1_only_when_something_changed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let b = version_b(dir.path());
    let out = hookscope()
        .args(["replay", "--all", "--rules", EXAMPLE_RULES, "--against"])
        .arg(&b)
        .args(["--fail-on-change", CORPUS])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("newly blocked (B blocks, A did not): 3"),
        "{text}"
    );
    // The same set against itself: nothing changes, exit 0.
    let out = hookscope()
        .args([
            "replay",
            "--all",
            "--rules",
            EXAMPLE_RULES,
            "--against",
            EXAMPLE_RULES,
            "--fail-on-change",
            CORPUS,
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no event is decided differently"));
}

#[test]
fn against_needs_all() {
    let out = hookscope()
        .args([
            "replay",
            "x",
            "--event",
            "Stop",
            "--rules",
            EXAMPLE_RULES,
            "--against",
            EXAMPLE_RULES,
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("give --all --rules A.toml --against B.toml")
    );
}
