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

/// `hookscope ARGS… --json` with the index in `cache` (`None`: with
/// `--no-index`), its stdout as JSON; it must exit 0.
fn json_of(cache: Option<&Path>, args: &[&std::ffi::OsStr]) -> Value {
    let mut cmd = match cache {
        Some(c) => indexed(c),
        None => {
            let mut cmd = indexed(Path::new(NOWHERE));
            cmd.arg("--no-index");
            cmd
        }
    };
    let out = cmd.args(args).arg("--json").output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// Each rule's tally of a backtest's JSON without `evaluated`, which
/// counts the events of the sessions read (docs/replay-and-backtest.md):
/// its matches, which must not depend on the index.
fn matches_of(bt: &Value) -> Vec<Value> {
    let rules = bt["rules"].as_array().expect("rules").clone();
    rules
        .into_iter()
        .map(|mut r| {
            r.as_object_mut().expect("rule").remove("evaluated");
            r
        })
        .collect()
}

fn backtest(cache: Option<&Path>, rules: &Path, root: &Path) -> Value {
    json_of(
        cache,
        &[
            "replay".as_ref(),
            "--rules".as_ref(),
            rules.as_os_str(),
            "--all".as_ref(),
            root.as_os_str(),
        ],
    )
}

/// `rules` (TOML text) backtested over `root` without the index and with a
/// warm one (built by a first run, in `cache`), after checking that both
/// count the same sessions, merged decision and left-out agents and give
/// every rule the same matches: (without, with).
fn both_ways(cache: &Path, rules: &str, root: &Path) -> (Value, Value) {
    let file = cache.join("rules.toml");
    std::fs::write(&file, rules).expect("write");
    let plain = backtest(None, &file, root);
    let _ = backtest(Some(cache), &file, root);
    let indexed = backtest(Some(cache), &file, root);
    assert_same_matches(&plain, &indexed, rules);
    (plain, indexed)
}

/// The keys and matches [`both_ways`] checks, `name` in the message.
fn assert_same_matches(plain: &Value, indexed: &Value, name: &str) {
    for key in ["sessions", "unreadable", "combined", "left_out"] {
        assert_eq!(indexed[key], plain[key], "{name}: {key}");
    }
    assert_eq!(matches_of(indexed), matches_of(plain), "{name}");
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

/// Three more sessions: one whose one Bash call runs `ls`, on a line whose
/// text block says "exit", and two whose Bash input is past what the
/// index stores (`input_folded` is NULL), one with "exit" at its end.
fn data_with_inputs() -> TempDir {
    let dir = data();
    let project = dir.path().join("-home-dev-work");
    std::fs::write(
        project.join("00000000-0000-4000-8000-0000000000bb.jsonl"),
        concat!(
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"00000000-0000-4000-8000-0000000000bb","timestamp":"2026-01-01T00:00:00Z","cwd":"/w","message":{"role":"user","content":"list the files"}}"#,
            "\n",
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"00000000-0000-4000-8000-0000000000bb","timestamp":"2026-01-01T00:00:01Z","cwd":"/w","message":{"role":"assistant","id":"m1","content":[{"type":"text","text":"I will not exit yet"},{"type":"tool_use","id":"toolu_b1","name":"Bash","input":{"command":"ls"}}]}}"#,
            "\n"
        ),
    )
    .expect("write");
    long_bash_session(
        &project,
        "cc",
        &format!("echo {} && exit 4", "y".repeat(4000)),
        "",
    );
    // And one whose long input (not stored either) does not hold "exit":
    // its line is read at its stored offset and rules it out, though the
    // line's `gitBranch` (before the input) holds it.
    long_bash_session(
        &project,
        "dd",
        &format!("echo {}", "z".repeat(4000)),
        "exit-early",
    );
    // And one whose long input writes the `e` of "exit" as `\u0065`: its
    // raw bytes hide the needle, so the index cannot rule it out.
    long_bash_session(
        &project,
        "ee",
        &format!("echo {} && EXIT_HERE", "w".repeat(4000)),
        "",
    );
    let ee = project.join("00000000-0000-4000-8000-0000000000ee.jsonl");
    let text = std::fs::read_to_string(&ee).expect("read");
    std::fs::write(&ee, text.replace("EXIT_HERE", "\\u0065xit 5")).expect("write");
    dir
}

/// Session `00000000-0000-4000-8000-0000000000<tail>` in `project`: a
/// prompt, then one Bash call running `command` on a line whose
/// `gitBranch` (before the input) is `branch` when not empty.
fn long_bash_session(project: &Path, tail: &str, command: &str, branch: &str) {
    let id = format!("00000000-0000-4000-8000-0000000000{tail}");
    let mut assistant = serde_json::json!({"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId": id,"timestamp":"2026-01-01T00:00:01Z","cwd":"/w"});
    if !branch.is_empty() {
        assistant["gitBranch"] = serde_json::json!(branch);
    }
    assistant["message"] = serde_json::json!({"role":"assistant","id":"m1","content":[{"type":"tool_use","id":format!("toolu_{tail}"),"name":"Bash","input":{"command": command}}]});
    let user = serde_json::json!({"type":"user","uuid":"u1","parentUuid":null,"sessionId": id,"timestamp":"2026-01-01T00:00:00Z","cwd":"/w","message":{"role":"user","content":"print"}});
    std::fs::write(
        project.join(format!("{id}.jsonl")),
        format!("{user}\n{assistant}\n"),
    )
    .expect("write");
}

/// Two rules on PreToolUse Bash calls with a plain `input_contains`.
const INPUT_RULES: &str = "[[rules]]\nid = \"exit\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"warn\"\nreason = \"r\"\n[rules.only_if]\ninput_contains = \"EXIT\"\n\n[[rules]]\nid = \"exit-lower\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\ninput_contains = [\"exit\", \"never-there\"]\n";

/// The index's skip mask for `rules` over `data`, by short session id.
fn skip_mask(data: &Path, rules: &str) -> Vec<(String, bool)> {
    use hookscope_core::hooks::rules::RuleSet;
    use hookscope_core::index::Index;
    let cache = TempDir::new().expect("temp");
    let sessions = hookscope_core::transcript::discover(&[data.to_path_buf()])
        .expect("discover")
        .sessions;
    let mut index = Index::open(&cache.path().join("hookscope")).expect("index");
    index.sync(&sessions, &mut |_| {});
    let rules = RuleSet::parse(rules, "rules.toml").expect("rules");
    let mut v: Vec<(String, bool)> = sessions
        .iter()
        .map(|s| s.id.chars().take(8).collect::<String>() + &s.id[s.id.len() - 2..])
        .zip(hookscope_core::service::skipped_by_index(
            &index, &sessions, &rules,
        ))
        .collect();
    v.sort();
    v
}

#[test]
fn a_plain_input_contains_on_pretooluse_skips_sessions_by_their_stored_inputs() {
    let data = data_with_inputs();
    // The `ls` session calls Bash but no stored input holds "exit"; the
    // long input is not stored, so the index cannot rule it out; c2 runs
    // `sh -c '… exit 3'`.
    assert_eq!(
        skip_mask(data.path(), INPUT_RULES),
        vec![
            ("00000000aa".to_string(), true),
            ("00000000bb".to_string(), true),
            ("00000000cc".to_string(), false),
            ("00000000dd".to_string(), true),
            ("00000000ee".to_string(), false),
            ("e1be136efb".to_string(), false),
        ]
    );
    // The backtest with the index equals the one without.
    let cache = TempDir::new().expect("temp");
    let rules = cache.path().join("rules.toml");
    std::fs::write(&rules, INPUT_RULES).expect("write");
    let plain = backtest(None, &rules, data.path());
    let _ = backtest(Some(cache.path()), &rules, data.path());
    let indexed = backtest(Some(cache.path()), &rules, data.path());
    assert_eq!(plain["sessions"], 6);
    for key in [
        "sessions",
        "skipped",
        "rules",
        "combined",
        "by_event",
        "left_out",
        "unreadable",
    ] {
        assert_eq!(indexed[key], plain[key], "{key}");
    }
    // Matches: c2's `sh -c '… exit 3'`, the long command, and `ee`'s
    // `\u0065xit` (the byte filters read a file with such an escape whole),
    // for the lowercase rule; no input holds "EXIT".
    assert_eq!(plain["rules"][0]["counts"], serde_json::json!({}));
    assert_eq!(plain["rules"][1]["counts"]["context"], 3);
}

#[test]
fn an_input_contains_beside_posttooluse_or_not_plain_does_not_skip_by_the_stored_input() {
    // After a call ran its payload carries the input that ran (a hook may
    // have rewritten it), which the index does not store; a needle with a
    // quote is escaped in the stored JSON. Either way only the tool name
    // rules a session out.
    let data = data_with_inputs();
    let post = "[[rules]]\nid = \"exit\"\nevents = [\"PreToolUse\", \"PostToolUse\"]\ntool = \"Bash\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\ninput_contains = \"exit\"\n";
    let quoted = "[[rules]]\nid = \"exit\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\ninput_contains = [\"exit\", 'say \"hi\"']\n";
    let by_name = vec![
        ("00000000aa".to_string(), true),
        ("00000000bb".to_string(), false),
        ("00000000cc".to_string(), false),
        ("00000000dd".to_string(), false),
        ("00000000ee".to_string(), false),
        ("e1be136efb".to_string(), false),
    ];
    assert_eq!(skip_mask(data.path(), post), by_name);
    assert_eq!(skip_mask(data.path(), quoted), by_name);
    let cache = TempDir::new().expect("temp");
    let rules = cache.path().join("rules.toml");
    std::fs::write(&rules, post).expect("write");
    let _ = backtest(Some(cache.path()), &rules, data.path());
    let indexed = backtest(Some(cache.path()), &rules, data.path());
    let plain = backtest(None, &rules, data.path());
    assert_eq!(indexed["rules"], plain["rules"]);
    assert_eq!(indexed["combined"], plain["combined"]);
}

#[test]
fn a_posttooluse_rule_sees_the_input_a_hook_rewrote_with_and_without_the_index() {
    // hooks_c8_outcomes (Claude Code 2.1.332): a PreToolUse hook rewrote
    // each `npm test` to `npm test -- --silent`; the PostToolUse payloads
    // carry the input that ran, which no `tool_use` line holds.
    let cache = TempDir::new().expect("temp");
    let rules = cache.path().join("rules.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"post-silent\"\nevents = \"PostToolUse\"\ntool = \"Bash\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\ninput_contains = \"--silent\"\n",
    )
    .expect("write");
    let root = Path::new("tests/corpus/real-cc-2.1.332/hooks_c8_outcomes");
    let plain = backtest(None, &rules, root);
    let _ = backtest(Some(cache.path()), &rules, root);
    let indexed = backtest(Some(cache.path()), &rules, root);
    assert_eq!(
        plain["rules"][0]["counts"],
        serde_json::json!({"context": 3})
    );
    assert_eq!(indexed["rules"], plain["rules"]);
    assert_eq!(indexed["combined"], plain["combined"]);
}

#[test]
fn find_gives_the_same_records_with_and_without_the_index_on_escaped_inputs() {
    // The `ee` session's long input holds "exit" only as `\u0065xit`: the
    // index's row path reads its line, whose bytes hide the needle, and must
    // still parse it, as the path without the index does.
    let data = data_with_inputs();
    let cache = TempDir::new().expect("temp");
    let run = |cache: Option<&Path>| -> Value {
        json_of(
            cache,
            &[
                "find".as_ref(),
                data.path().as_os_str(),
                "--tool-name".as_ref(),
                "Bash".as_ref(),
                "--input-contains".as_ref(),
                "exit".as_ref(),
            ],
        )
    };
    let plain = run(None);
    let _ = run(Some(cache.path()));
    let indexed = run(Some(cache.path()));
    assert_eq!(indexed["records"], plain["records"]);
    let ids: Vec<&str> = plain["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["tool_use_id"].as_str())
        .collect();
    assert!(ids.contains(&"toolu_ee"), "{ids:?}");
    assert!(ids.contains(&"toolu_cc"), "{ids:?}");
}

/// A rule on prompts (no tool) whose pattern is `pattern`: context on
/// UserPromptSubmit and Stop.
fn prompt_rules(pattern: &str) -> String {
    format!(
        "[[rules]]\nid = \"on-prompt\"\nevents = [\"UserPromptSubmit\", \"Stop\"]\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\nprompt = '{pattern}'\n"
    )
}

/// A rule with a `prompt` condition and no tool skips the sessions none of
/// whose stored turn prompts it matches, which the byte filter cannot:
/// c2's bytes hold "exit 3" (a Bash command), its prompts do not.
#[test]
fn a_prompt_rule_skips_sessions_whose_stored_prompts_it_cannot_match() {
    let data = data();
    let ids = |mask: Vec<(String, bool)>| -> Vec<String> {
        mask.into_iter()
            .filter(|(_, skipped)| *skipped)
            .map(|(id, _)| id)
            .collect()
    };
    assert_eq!(
        ids(skip_mask(data.path(), &prompt_rules("exit 3"))),
        ["00000000aa", "e1be136efb"]
    );
    // "please do not use Bash here" is aa's prompt; c2's say nothing of it.
    assert_eq!(
        ids(skip_mask(data.path(), &prompt_rules("(?i)DO NOT use"))),
        ["e1be136efb"]
    );
    // c2's own opening prompt ("Exercise hooks variant hooks_c2_exit2…").
    assert_eq!(
        ids(skip_mask(
            data.path(),
            &prompt_rules("^\\[scenario:hooks\\]")
        )),
        ["00000000aa"]
    );
    // Beside a tool rule: a session may match either rule.
    let both = format!("{RULES}\n{}", prompt_rules("do not use"));
    assert!(ids(skip_mask(data.path(), &both)).is_empty());
    // The backtest's tallies are those without the index; with it, c2 is
    // skipped unread too.
    let cache = TempDir::new().expect("temp");
    for pattern in ["exit 3", "do not use", "^\\[scenario:hooks\\]"] {
        let (plain, indexed) = both_ways(cache.path(), &prompt_rules(pattern), data.path());
        if pattern == "exit 3" {
            assert_eq!(plain["skipped"], 1, "aa has no \"exit\" in its bytes");
            assert_eq!(indexed["skipped"], 2);
        } else {
            // aa's one prompt; c2's prompt and its Stop.
            let want = if pattern == "do not use" { 1 } else { 2 };
            assert_eq!(plain["combined"]["context"], want, "{pattern}");
        }
    }
}

/// A prompt past what the index stores whole may hold any pattern: its
/// session is read; and a prompt added to a session after it was indexed
/// (the file grew) is stored with the grown rows.
#[test]
fn a_long_or_new_prompt_is_never_ruled_out_by_the_index() {
    let data = data();
    let project = data.path().join("-home-dev-work");
    let id = "00000000-0000-4000-8000-0000000000ff";
    let long = format!("{} deploy", "x".repeat(70 << 10));
    let user = serde_json::json!({"type":"user","uuid":"u1","parentUuid":null,"sessionId": id,"timestamp":"2026-01-01T00:00:00Z","cwd":"/w","message":{"role":"user","content": long}});
    let path = project.join(format!("{id}.jsonl"));
    std::fs::write(&path, format!("{user}\n")).expect("write");
    let skipped = |rules: &str| -> Vec<String> {
        skip_mask(data.path(), rules)
            .into_iter()
            .filter(|(_, s)| *s)
            .map(|(id, _)| id)
            .collect()
    };
    // The 70 KiB prompt is stored cut: ff may match "never-there" for all
    // the index knows.
    assert_eq!(
        skipped(&prompt_rules("never-there")),
        ["00000000aa", "e1be136efb"]
    );
    // A grown file: the index built on aa's first line, then a second
    // prompt appended; the sync resumes aa and stores the new prompt.
    let cache = TempDir::new().expect("temp");
    let sessions = || {
        hookscope_core::transcript::discover(&[data.path().to_path_buf()])
            .expect("discover")
            .sessions
    };
    let mut index =
        hookscope_core::index::Index::open(&cache.path().join("hookscope")).expect("index");
    index.sync(&sessions(), &mut |_| {});
    let aa = project.join("00000000-0000-4000-8000-0000000000aa.jsonl");
    let mut text = std::fs::read_to_string(&aa).expect("read");
    text.push_str(concat!(
        r#"{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"00000000-0000-4000-8000-0000000000aa","timestamp":"2026-01-01T00:01:00Z","cwd":"/w","message":{"role":"user","content":"now ship the release"}}"#,
        "\n"
    ));
    std::fs::write(&aa, text).expect("write");
    let now = sessions();
    let synced = index.sync(&now, &mut |_| {});
    assert_eq!(synced.stats.resumed, 1, "{:?}", synced.stats);
    let rules = hookscope_core::hooks::rules::RuleSet::parse(
        &prompt_rules("ship the release"),
        "rules.toml",
    )
    .expect("rules");
    let mask: Vec<bool> = hookscope_core::service::skipped_by_index(&index, &now, &rules);
    let aa_at = now.iter().position(|s| s.id.ends_with("aa")).expect("aa");
    assert_eq!(mask.len(), 3);
    assert!(!mask[aa_at], "the new prompt is stored");
    assert_eq!(mask.iter().filter(|&&m| m).count(), 1, "c2 alone");
    // Which prompts a grown session's Stops test is not known (it was read
    // from where it ended): each of its prompts may be, so a Stop rule on
    // it does not rule aa out, though aa has no Stop at all.
    let stop = hookscope_core::hooks::rules::RuleSet::parse(
        &prompt_rules("ship the release").replace("\"UserPromptSubmit\", ", ""),
        "rules.toml",
    )
    .expect("rules");
    assert_eq!(stop.rules[0].events_joined("|"), "Stop");
    let mask: Vec<bool> = hookscope_core::service::skipped_by_index(&index, &now, &stop);
    assert!(!mask[aa_at], "a grown session's prompts are all marked");
}

/// A Stop rule and an `agent` rule over the whole corpus, index vs
/// `--no-index`: the same matches (6 Stop/SubagentStop blocks on the
/// "quick check" subagents of the c2–c6 sessions, 1 warn on
/// 8bb2dece's Explore subagent), while the index rules sessions out
/// unread by what it stores: the prompts each session's Stop and
/// SubagentStop firings test (fe5e1c67's "Implement state management…"
/// is a subagent task whose SubagentStop carries no `agent_id`, so it
/// tests the main turn's prompt) and its subagents' `agent_type`s.
#[test]
fn a_stop_rule_reads_only_the_prompts_stops_test_and_an_agent_rule_the_subagent_types() {
    const STOP_AND_AGENT: &str = "[[rules]]\nid = \"stop-implement\"\nevents = \"Stop|SubagentStop\"\naction = \"block\"\nreason = \"r\"\n[rules.only_if]\nprompt = 'Implement|quick check'\n\n[[rules]]\nid = \"explore-any\"\nevents = \"PreToolUse\"\naction = \"warn\"\nreason = \"r\"\n[rules.only_if]\nagent = \"Explore\"\n";
    let cache = TempDir::new().expect("temp");
    let corpus = crate::support::corpus_dir();
    let (plain, indexed) = both_ways(cache.path(), STOP_AND_AGENT, &corpus);
    assert_eq!(plain["combined"]["block"], 6);
    assert_eq!(plain["combined"]["warn"], 1);
    assert_eq!(plain["rules"][1]["examples"][0]["session"], "8bb2dece");
    assert_eq!(plain["skipped"], 0);
    // 20 Claude Code sessions and the 9 Droid sessions (no Droid session
    // has a subagent or a prompt either pattern matches).
    assert_eq!(indexed["skipped"], 29);
    // The Stop rule alone on the session the heavy corpus's bulk copies:
    // its "Implement" prompt is stored, but no Stop tests it.
    let stop_only = STOP_AND_AGENT
        .split("\n\n")
        .next()
        .expect("first rule")
        .replace("Implement|quick check", "Implement state management");
    let mask = skip_mask(&corpus.join("claude-code-viewer"), &stop_only);
    assert!(
        mask.iter()
            .any(|(id, skipped)| id == "fe5e1c670b" && *skipped),
        "{mask:?}"
    );
}

/// Droid sessions are ruled out by the index as Claude Code's are: a rule
/// on Bash (Droid's `Execute`) whose plain `input_contains` only one
/// Droid call holds (45cd3bea's `echo pretend-deploy > deploy.log`) reads
/// that session alone with the index, with the same match as without it
/// (where the byte filter reads the other Droid sessions and skips them
/// after).
#[test]
fn a_droid_session_is_ruled_out_by_its_stored_calls() {
    const RULE: &str = "[[rules]]\nid = \"deploy\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"r\"\n[rules.only_if]\ninput_contains = \"pretend-deploy\"\n";
    let cache = TempDir::new().expect("temp");
    let droid = crate::support::corpus_dir().join("real-droid-0.225.2");
    let (plain, indexed) = both_ways(cache.path(), RULE, &droid);
    assert_eq!(plain["combined"], serde_json::json!({"block": 1}));
    assert_eq!(plain["rules"][0]["examples"][0]["session"], "45cd3bea");
    let sessions = plain["sessions"].as_u64().expect("sessions");
    assert!(sessions > 3, "{sessions}");
    // Only the session holding the call is read with the index.
    assert_eq!(indexed["skipped"].as_u64(), Some(sessions - 1));
}

/// The backtest with the index equals the one without it over the whole
/// corpus, for the bundled example set (Bash guards, file rules, an
/// Explore rule, a Stop rule on history, a prompt rule) and for a set of
/// rules each ruled out a different way (a `file_path` rule with no tool,
/// relative to an unknown cwd; a PostToolUse rule; a SubagentStop rule on
/// a subagent's prompt): every rule's matches, the merged decision, the
/// sessions counted (the mixed set: 28 warns, 8 contexts, 1 block). With
/// the index more sessions may be skipped unread (the example set: 22 of
/// 36 rebuilt sessions, Claude Code's and Droid's; without it 11; the
/// mixed set: 11 and 10).
#[test]
fn the_backtest_equals_loading_every_session_for_rules_ruled_out_each_way() {
    const MIXED: &str = "[[rules]]\nid = \"md\"\nevents = [\"PreToolUse\", \"PermissionRequest\"]\naction = \"warn\"\nreason = \"r\"\n[rules.only_if]\nfile_path = \"*.md\"\n\n[[rules]]\nid = \"post-git\"\nevents = \"PostToolUse\"\ntool = \"Bash\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\ncommand = '^git (status|log)'\n\n[[rules]]\nid = \"sub-stop\"\nevents = \"SubagentStop\"\naction = \"block\"\nreason = \"r\"\n[rules.only_if]\nprompt = 'Find all Python'\n";
    let cache = TempDir::new().expect("temp");
    let corpus = crate::support::corpus_dir();
    let mixed = cache.path().join("mixed.toml");
    std::fs::write(&mixed, MIXED).expect("write");
    let example = crate::support::package_path(crate::support::EXAMPLE_RULES);
    let _ = backtest(Some(cache.path()), &example, &corpus);
    for (rules, skipped) in [(&example, (11, 22)), (&mixed, (10, 11))] {
        let plain = backtest(None, rules, &corpus);
        let indexed = backtest(Some(cache.path()), rules, &corpus);
        let name = rules.display();
        assert_same_matches(&plain, &indexed, &name.to_string());
        if rules == &mixed {
            assert_eq!(
                plain["combined"],
                serde_json::json!({"warn": 28, "context": 8, "block": 1})
            );
        }
        assert_eq!(
            (plain["skipped"].as_u64(), indexed["skipped"].as_u64()),
            (Some(skipped.0), Some(skipped.1)),
            "{name}"
        );
    }
}
