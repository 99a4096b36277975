//! The backtest (`replay --all --rules`) with the persisted index
//! (docs/cli.md#index): sessions whose indexed calls cannot match any rule's tool are
//! skipped without reading their files; tallies and examples equal a run
//! without the index.

use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;

use crate::support::{C2, NOWHERE, indexed};

/// A rule on Bash calls whose input holds "exit".
const RULES: &str = "[[rules]]\nid = \"bash-exit\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"warn\"\nreason = \"r\"\n";

/// A project folder with the real c2 session (Bash calls) and a session
/// that only *mentions* Bash in a prompt (no tool call at all).
fn data() -> TempDir {
    let dir = TempDir::new().expect("temp");
    let project = dir.path().join("-home-dev-work");
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::copy(
        C2,
        project.join("e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl"),
    )
    .expect("copy");
    std::fs::write(
        project.join("00000000-0000-4000-8000-0000000000aa.jsonl"),
        concat!(
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"00000000-0000-4000-8000-0000000000aa","timestamp":"2026-01-01T00:00:00Z","cwd":"/w","message":{"role":"user","content":"please do not use Bash here"}}"#,
            "\n"
        ),
    )
    .expect("write");
    dir
}

fn backtest(
    cache: Option<&std::path::Path>,
    rules: &std::path::Path,
    root: &std::path::Path,
) -> Value {
    let mut cmd = match cache {
        Some(c) => indexed(c),
        None => {
            let mut cmd = indexed(Path::new(NOWHERE));
            cmd.arg("--no-index");
            cmd
        }
    };
    let out = cmd
        .args(["replay", "--rules"])
        .arg(rules)
        .arg("--all")
        .arg(root)
        .arg("--json")
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn sessions_without_a_matching_call_are_skipped_unread_and_tallies_do_not_change() {
    let data = data();
    let cache = TempDir::new().expect("temp");
    let rules = cache.path().join("rules.toml");
    std::fs::write(&rules, RULES).expect("write");
    let plain = backtest(None, &rules, data.path());
    // Twice: the first run builds the index, the second answers from it.
    let _ = backtest(Some(cache.path()), &rules, data.path());
    let indexed = backtest(Some(cache.path()), &rules, data.path());
    // The prompt-only session is skipped either way (by its indexed calls,
    // or by its bytes' tool_use lines); everything else is equal.
    assert_eq!(plain["sessions"], 2);
    assert_eq!(plain["skipped"], 1);
    assert_eq!(indexed["skipped"], 1);
    for key in [
        "sessions",
        "skipped",
        "unreadable",
        "rules",
        "combined",
        "by_event",
        "left_out",
    ] {
        assert_eq!(indexed[key], plain[key], "{key}");
    }
    // c2 holds Bash calls: the rule warns on each PreToolUse of one.
    assert!(
        plain["rules"][0]["counts"]["warn"]
            .as_u64()
            .is_some_and(|n| n > 0)
    );
}

#[test]
fn the_index_says_which_sessions_call_a_tool_and_which_it_cannot_vouch_for() {
    use hookscope_core::index::Index;
    use std::collections::BTreeSet;
    let data = data();
    let cache = TempDir::new().expect("temp");
    let sessions = hookscope_core::transcript::discover(&[data.path().to_path_buf()])
        .expect("discover")
        .sessions;
    let mut index = Index::open(&cache.path().join("hookscope")).expect("index");
    index.sync(&sessions, &mut |_| {});
    let names: BTreeSet<String> = ["Bash".to_string()].into();
    let by_id = |answers: Vec<Option<bool>>| -> Vec<(String, Option<bool>)> {
        let mut v: Vec<_> = sessions
            .iter()
            .map(|s| s.id.chars().take(8).collect::<String>())
            .zip(answers)
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        by_id(index.calls_named(&sessions, &names)),
        vec![
            ("00000000".to_string(), Some(false)),
            ("e1be136e".to_string(), Some(true)),
        ]
    );
    // A name that is only a part of a call's name still counts (as the
    // byte prefilter's substring rule).
    let part: BTreeSet<String> = ["Bas".to_string()].into();
    assert_eq!(
        by_id(index.calls_named(&sessions, &part)),
        vec![
            ("00000000".to_string(), Some(false)),
            ("e1be136e".to_string(), Some(true)),
        ]
    );
    // A file that grew since: the index does not vouch for it.
    let path = data
        .path()
        .join("-home-dev-work/00000000-0000-4000-8000-0000000000aa.jsonl");
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push('\n');
    std::fs::write(&path, text).expect("write");
    let now = hookscope_core::transcript::discover(&[data.path().to_path_buf()])
        .expect("discover")
        .sessions;
    let answers = index.calls_named(&now, &names);
    let grown = now
        .iter()
        .position(|s| s.id.starts_with("00000000"))
        .expect("listed");
    assert_eq!(answers[grown], None);
}

#[test]
fn a_rule_without_a_tool_reads_every_session() {
    let data = data();
    let cache = TempDir::new().expect("temp");
    let rules = cache.path().join("rules.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"stop\"\nevents = \"UserPromptSubmit\"\naction = \"warn\"\nreason = \"r\"\n",
    )
    .expect("write");
    let plain = backtest(None, &rules, data.path());
    let _ = backtest(Some(cache.path()), &rules, data.path());
    let indexed = backtest(Some(cache.path()), &rules, data.path());
    assert_eq!(indexed, plain);
    assert_eq!(indexed["skipped"], 0);
}

#[test]
fn a_session_changed_since_it_was_indexed_is_read_again() {
    // Hostile: the prompt-only session gains a real Bash call after the
    // index was built; the stale rows must not skip it.
    let data = data();
    let cache = TempDir::new().expect("temp");
    let rules = cache.path().join("rules.toml");
    std::fs::write(&rules, RULES).expect("write");
    let _ = backtest(Some(cache.path()), &rules, data.path());
    let path = data
        .path()
        .join("-home-dev-work/00000000-0000-4000-8000-0000000000aa.jsonl");
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str(concat!(
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"00000000-0000-4000-8000-0000000000aa","timestamp":"2026-01-01T00:00:01Z","cwd":"/w","message":{"role":"assistant","id":"m1","content":[{"type":"tool_use","id":"toolu_x1","name":"Bash","input":{"command":"ls"}}]}}"#,
        "\n"
    ));
    std::fs::write(&path, text).expect("write");
    let plain = backtest(None, &rules, data.path());
    let indexed = backtest(Some(cache.path()), &rules, data.path());
    assert_eq!(indexed["skipped"], 0);
    assert_eq!(indexed["rules"], plain["rules"]);
    assert_eq!(
        indexed["rules"][0]["evaluated"].as_u64(),
        plain["rules"][0]["evaluated"].as_u64()
    );
}
