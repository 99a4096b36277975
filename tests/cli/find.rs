//! `find_tool_calls` and `hookscope find` over `tests/corpus`.
//!
//! Every expected id list was read out of the transcripts with python3 (tool_use
//! blocks, their tool_result, timestamps), independently of the loader.
//! Lists are newest first, as the query returns them.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use hookscope_core::query::{FindParams, FindResult, OutputMode, QueryError, find_tool_calls};
use hookscope_core::transcript::{SessionRef, discover};
use serde_json::{Value, json};

use crate::support::{corpus, hookscope};

fn real() -> PathBuf {
    corpus("real-cc-2.1.332")
}

/// `hookscope find <real()> <args>`, run to its end.
fn find_real(args: &[&str]) -> std::process::Output {
    hookscope()
        .arg("find")
        .arg(real())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn sessions_under(path: &Path) -> Vec<SessionRef> {
    match discover(&[path.to_path_buf()]) {
        Ok(found) => found.sessions,
        Err(e) => panic!("discover {}: {e}", path.display()),
    }
}

fn at(s: &str) -> DateTime<Utc> {
    match DateTime::parse_from_rfc3339(s) {
        Ok(t) => t.with_timezone(&Utc),
        Err(e) => panic!("{s}: {e}"),
    }
}

/// A fixed "now" two days after the 2.1.332 runs.
fn now() -> DateTime<Utc> {
    at("2026-12-01T00:00:00Z")
}

fn run_at(path: &Path, params: &FindParams, now: DateTime<Utc>) -> FindResult {
    match find_tool_calls(&sessions_under(path), params, now) {
        Ok(r) => r,
        Err(e) => panic!("find {params:?}: {e}"),
    }
}

fn run(params: &FindParams) -> FindResult {
    run_at(&real(), params, now())
}

fn ids(result: &FindResult) -> Vec<&str> {
    result
        .records
        .iter()
        .map(|r| r.tool_use_id.as_str())
        .collect()
}

fn name(n: &str) -> FindParams {
    FindParams {
        tool_name: Some(n.to_string()),
        ..FindParams::default()
    }
}

fn pattern(p: &str) -> FindParams {
    FindParams {
        tool_name_pattern: Some(p.to_string()),
        ..FindParams::default()
    }
}

fn invalid(params: &FindParams) -> String {
    match find_tool_calls(&sessions_under(&real()), params, now()) {
        Err(QueryError::InvalidArgument(m)) => m,
        Ok(r) => panic!("expected invalid_argument, got {} records", r.records.len()),
    }
}

const TOOLS: &str = "e71e9aa1-2571-47ab-8bf7-9e6efaaedfff";
const SUBAGENT: &str = "8bb2dece-a24f-43d4-80d6-3ee9a889b550";
const HOOKS: &str = "0c04bd79-42b3-41bb-b257-006f349f008a";

const WEBFETCH: [&str; 2] = [
    "toolu_017ZbsblccMMC9TJ0bERxPuh",
    "toolu_016TlHdLVFJAQN6MfKhX2vre",
];

#[test]
fn tool_name_exact_is_case_insensitive() {
    for n in ["WebFetch", "webfetch", "WEBFETCH"] {
        let r = run(&name(n));
        assert_eq!(ids(&r), WEBFETCH, "{n}");
        assert!(r.records.iter().all(|c| c.is_error == Some(true)));
        assert!(r.records.iter().all(|c| c.session == TOOLS));
    }
    // exact: a prefix of the name is not a match
    assert!(run(&name("WebFetc")).records.is_empty());
}

#[test]
fn tool_name_pattern_is_a_substring() {
    let r = run(&pattern("MCP__"));
    assert_eq!(
        ids(&r),
        [
            "toolu_01gjV6MKnsT2EKGg8SDoC1mi",
            "toolu_0111kCUetXShsJyg6TjiCWaD"
        ]
    );
    assert_eq!(r.records[0].tool_name, "mcp__mockmcp__fail");
    assert_eq!(r.records[0].is_error, Some(true));
    assert_eq!(r.records[1].tool_name, "mcp__mockmcp__lookup");
    assert_eq!(r.records[1].is_error, Some(false));
    assert!(r.records.iter().all(|c| c.is_error_reliable));
}

#[test]
fn input_contains_rm_rf() {
    let r = run(&FindParams {
        input_contains: Some("RM -RF".into()),
        ..name("bash")
    });
    assert_eq!(
        ids(&r),
        [
            "toolu_01dITZXnpQCb3Ps2Oi3ymZlZ",
            "toolu_01lPnLRRd9uBMLDeG9k70nzJ",
            "toolu_01LvJaZxCcYuYq7WyGj8bfHh",
            "toolu_0138h77ojpT1t3A4y1yWKgjr",
            "toolu_01GFEgALJm405nI2WctBocud",
            "toolu_017ewsxv2HgMNxq34i6Vs79k",
        ]
    );
    // the input is the object as written
    assert_eq!(
        r.records[0].input.get("command"),
        Some(&json!("rm -rf build/"))
    );
    // a needle with a quote is not prefiltered but still matches the JSON text
    let quoted = run(&FindParams {
        input_contains: Some("\"command\":\"rm -rf".into()),
        ..name("bash")
    });
    assert_eq!(ids(&quoted), ids(&r));
    // nothing edits a .env file in this corpus
    assert!(
        run(&FindParams {
            input_contains: Some(".env".into()),
            ..pattern("edit")
        })
        .records
        .is_empty()
    );
}

#[test]
fn output_contains_and_excludes() {
    let r = run(&FindParams {
        output_contains: Some("file does not exist".into()),
        ..name("Read")
    });
    assert_eq!(ids(&r), ["toolu_01gcAkWxBhH1maruUyRaIAxj"]);

    let r = run(&FindParams {
        output_excludes: Some("EXIT CODE".into()),
        session: vec![TOOLS.into()],
        ..name("Bash")
    });
    assert_eq!(
        ids(&r),
        [
            "toolu_015yswaSNPXIXO5GvmjyPcJl",
            "toolu_01P4Hgl5wzxwZ0mZhViiKAAe",
            "toolu_01dxohHpq0K1OceRQg5RT4vA",
            "toolu_01tL383BVJdaI34KPxGfiRLZ",
        ]
    );
}

#[test]
fn is_error_tri_state() {
    let failures = run(&FindParams {
        is_error: Some(true),
        ..name("Bash")
    });
    assert_eq!(
        ids(&failures),
        [
            // c8's `git push`, refused (a PreToolUse ask in -p), 2026-12-03.
            "toolu_01RQ1iz1XkupduEYRX4OQTB2",
            "toolu_01B1tojP9WW9HELHA5PcfFvF",
            "toolu_01WS4HYZrMsYywO1CkB0np7Q",
            "toolu_01ZEuGRSxcGg05HBKQrxKNef",
            "toolu_01DyCH1dtuL9osvMyrGk1pDI",
            "toolu_0138h77ojpT1t3A4y1yWKgjr",
            "toolu_01ghsSPkJ7dZJzmyYuaAFQIq",
            "toolu_01GFEgALJm405nI2WctBocud",
            "toolu_016BaLUFq51heNJsWvoje8Pu",
            "toolu_01Ta96qZCwshbRGPUnAGvB3v",
        ]
    );
    let successes = run(&FindParams {
        is_error: Some(false),
        session: vec![TOOLS.into()],
        ..name("Bash")
    });
    assert_eq!(
        ids(&successes),
        [
            "toolu_015yswaSNPXIXO5GvmjyPcJl",
            "toolu_01P4Hgl5wzxwZ0mZhViiKAAe",
            "toolu_01dxohHpq0K1OceRQg5RT4vA",
            "toolu_01tL383BVJdaI34KPxGfiRLZ",
        ]
    );
    let all = run(&FindParams {
        session: vec![TOOLS.into()],
        ..name("Bash")
    });
    assert_eq!(all.records.len(), 5);
}

#[test]
fn session_single_list_and_prefix() {
    let r = run(&FindParams {
        session: vec![SUBAGENT.into(), HOOKS.into()],
        ..name("Agent")
    });
    assert_eq!(
        ids(&r),
        [
            "toolu_01nVfs42hvM6RhEoaSKThcqL",
            "toolu_01QsDwoBvXrX9cAOXPn1lNLy",
            "toolu_01aWUpYqUJUYg412bh1nwfKI",
            "toolu_01RNYJFbxX2Ngbhqr7ThQaWg",
            "toolu_01EoVg2LEYBcgsNqrLdx6tDq",
        ]
    );
    let single = run(&FindParams {
        session: vec![SUBAGENT.into()],
        ..name("agent")
    });
    assert_eq!(ids(&single), ids(&r)[1..]);
    // a unique prefix works; FindParams also deserializes a bare string
    let prefixed = match FindParams::from_json(&json!({"tool_name": "Agent", "session": "8bb2"})) {
        Ok(p) => run(&p),
        Err(e) => panic!("{e}"),
    };
    assert_eq!(ids(&prefixed), ids(&single));
    // an ambiguous prefix is an error (e71e9aa1…, e1be136e…)
    let m = invalid(&FindParams {
        session: vec!["e".into()],
        ..name("Bash")
    });
    assert_eq!(
        m,
        "session \"e\" is a prefix of 2 sessions (e1be136e-e2ee-4f2f-bdb9-5cd3211001fb, e71e9aa1-2571-47ab-8bf7-9e6efaaedfff); give more of the id"
    );
    // an unknown id selects nothing
    assert!(
        run(&FindParams {
            session: vec!["nope".into()],
            ..name("Bash")
        })
        .records
        .is_empty()
    );
}

const WINDOW: [&str; 4] = [
    "toolu_01Os3Mr6Wa40dkQc5RrxTWfn",
    "toolu_01dITZXnpQCb3Ps2Oi3ymZlZ",
    "toolu_01B1tojP9WW9HELHA5PcfFvF",
    "toolu_01xUZyQohFxCooZLf5fKPgnr",
];

#[test]
fn since_until_absolute() {
    let r = run(&FindParams {
        since: Some("2026-11-29T18:00:59Z".into()),
        until: Some("2026-11-29T19:01:00+01:00".into()),
        ..name("Bash")
    });
    assert_eq!(ids(&r), WINDOW);
    // a date is 00:00 UTC: everything ran on 2026-11-29
    let day = run(&FindParams {
        since: Some("2026-11-29".into()),
        until: Some("2026-11-30".into()),
        limit: Some(1000),
        ..name("Bash")
    });
    assert_eq!(day.records.len(), 45);
    assert!(
        run(&FindParams {
            until: Some("2026-11-29".into()),
            ..name("Bash")
        })
        .records
        .is_empty()
    );
}

#[test]
fn since_until_relative() {
    let r = run_at(
        &real(),
        &FindParams {
            since: Some("31s".into()),
            until: Some("30s".into()),
            ..name("Bash")
        },
        at("2026-11-29T18:01:30Z"),
    );
    assert_eq!(ids(&r), WINDOW);
    // 2d before 2026-12-01T00:00Z is 2026-11-29T00:00Z: all 52 Bash calls
    // (45 on 2026-11-29, hooks_c8_outcomes' 7 on 2026-12-03)
    let r = run(&FindParams {
        since: Some("2d".into()),
        limit: Some(100),
        ..name("Bash")
    });
    assert_eq!(r.records.len(), 52);
    // 1d before is 2026-11-30T00:00Z: only hooks_c8_outcomes' 7, recorded
    // after "now" (a clock set back is not refused).
    let r = run(&FindParams {
        since: Some("1d".into()),
        ..name("Bash")
    });
    assert_eq!(r.records.len(), 7);
    assert!(r.records.iter().all(|c| c.session.starts_with("07535b09")));
}

#[test]
fn agent_filter() {
    let all = run(&name("Agent"));
    let cc = run(&FindParams {
        agent: Some("claude-code".into()),
        ..name("Agent")
    });
    assert_eq!(ids(&cc), ids(&all));
    // 10 on 2026-11-29, one in hooks_c8_outcomes.
    assert_eq!(all.records.len(), 11);
    assert!(
        run(&FindParams {
            agent: Some("codex".into()),
            ..name("Agent")
        })
        .records
        .is_empty()
    );
}

#[test]
fn limit_keeps_the_newest() {
    let r = run(&FindParams {
        limit: Some(3),
        ..name("Bash")
    });
    assert_eq!(
        ids(&r),
        [
            // hooks_c8_outcomes (2026-12-03): git push, npm test, npm run lint
            "toolu_01RQ1iz1XkupduEYRX4OQTB2",
            "toolu_01nvm3CN5NFLf9sPJMPbmfC7",
            "toolu_01Q8bErESgyacrUH7WzJO373",
        ]
    );
    // default limit is 50 (52 Bash calls here: the newest 50 returned)
    assert_eq!(run(&name("Bash")).records.len(), 50);
    assert_eq!(run(&pattern("a")).records.len(), 50);
}

#[test]
fn subagent_calls_carry_their_parent() {
    let r = run(&FindParams {
        session: vec![SUBAGENT.into()],
        ..name("Read")
    });
    assert_eq!(
        ids(&r),
        [
            "toolu_01ODoKPi4xQIP1UU1UbS5ZcO",
            "toolu_01DIgoxeg8ZxqYQ6XNQPwD7s"
        ]
    );
    let v = serde_json::to_value(&r.records).expect("serializes");
    assert_eq!(v[0]["agent_id"], json!("a254c4c26332d0a9d"));
    assert_eq!(
        v[0]["parent_tool_use_id"],
        json!("toolu_01aWUpYqUJUYg412bh1nwfKI")
    );
    assert_eq!(v[1]["agent_id"], json!("a9a1865f5e2572fa1"));
    assert_eq!(
        v[1]["parent_tool_use_id"],
        json!("toolu_01EoVg2LEYBcgsNqrLdx6tDq")
    );
    assert_eq!(
        v[1]["file_path"],
        json!("/home/dev/work/subagent/README.md")
    );
    // main-thread calls have neither key: the record's keys are exactly these
    let main = serde_json::to_value(&run(&name("WebFetch")).records).expect("serializes");
    let keys: Vec<&str> = main[0]
        .as_object()
        .expect("a record")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "session",
            "agent",
            "timestamp",
            "tool_use_id",
            "tool_name",
            "tool_kind",
            "tool_resolved",
            "input",
            "output",
            "is_error",
            "is_error_reliable",
            "file_path",
            "digest"
        ]
    );
}

fn record_json(params: &FindParams, id: &str) -> Value {
    let r = run(params);
    let found = r.records.iter().find(|c| c.tool_use_id == id);
    match found {
        Some(c) => serde_json::to_value(c).expect("serializes"),
        None => panic!("{id} not found"),
    }
}

#[test]
fn spawn_cost_from_the_spawn_result() {
    let params = FindParams {
        session: vec![SUBAGENT.into()],
        ..name("Agent")
    };
    // The spawn result's toolUseResult.usage, which is the usage of the
    // child's last message (msg_01zyzdqiESPkJ7Alwd6HB7Vd in
    // agent-a9a1865f5e2572fa1.jsonl: 268 + 34 + 798 + 4260; its totalTokens
    // is 5360 too), not the child's billed total (15191, below): "recorded".
    let spawn = record_json(&params, "toolu_01EoVg2LEYBcgsNqrLdx6tDq");
    assert_eq!(spawn["tool_kind"], json!("task"));
    assert_eq!(
        spawn["subagent"],
        json!({
            "model": "claude-opus-5-5",
            "agent_type": "general-purpose",
            "tokens": {
                "input_tokens": 268,
                "output_tokens": 34,
                "cache_creation_input_tokens": 798,
                "cache_read_input_tokens": 4260,
                "total": 5360,
                "source": "recorded"
            },
            "status": "completed",
            "duration_ms": 171,
            "tool_uses": 2
        })
    );
    let explore = record_json(&params, "toolu_01RNYJFbxX2Ngbhqr7ThQaWg");
    assert_eq!(explore["subagent"]["agent_type"], json!("Explore"));
    assert_eq!(
        explore["subagent"]["tokens"]["total"],
        json!(4158),
        "{explore}"
    );
    assert_eq!(explore["subagent"]["tokens"]["source"], json!("recorded"));
}

#[test]
fn background_spawn_has_no_tokens_key() {
    let params = FindParams {
        session: vec![SUBAGENT.into()],
        ..name("Agent")
    };
    let bg = record_json(&params, "toolu_01QsDwoBvXrX9cAOXPn1lNLy");
    assert_eq!(
        bg["subagent"],
        json!({
            "model": "claude-opus-5-5",
            "agent_type": null,
            "status": "async_launched",
            "duration_ms": null,
            "tool_uses": null
        })
    );
}

#[test]
fn with_subagent_cost_joins_the_child() {
    let params = FindParams {
        session: vec![SUBAGENT.into()],
        with_subagent_cost: true,
        ..name("Agent")
    };
    // Summed with python over agent-a9a1865f5e2572fa1.jsonl, once per
    // message.id (3 messages): 225+263+268, 58+41+34, 674+785+798,
    // 3596+4189+4260; the only figure that may say "exact".
    let fg = record_json(&params, "toolu_01EoVg2LEYBcgsNqrLdx6tDq");
    assert_eq!(
        fg["subagent"],
        json!({
            "model": "claude-opus-5-5",
            "agent_type": "general-purpose",
            "tokens": {
                "input_tokens": 756,
                "output_tokens": 133,
                "cache_creation_input_tokens": 2257,
                "cache_read_input_tokens": 12045,
                "total": 15191,
                "source": "exact"
            },
            "status": "completed",
            "duration_ms": 171,
            "tool_uses": 2,
            "models": ["claude-opus-5-5"],
            "child_uuid": "a9a1865f5e2572fa1"
        })
    );
    // the background spawn becomes a named, priced row (python over
    // agent-a0ddb8d7d9a82d5fb.jsonl, 2 messages)
    let bg = record_json(&params, "toolu_01QsDwoBvXrX9cAOXPn1lNLy");
    assert_eq!(
        bg["subagent"],
        json!({
            "model": "claude-opus-5-5",
            "agent_type": "general-purpose",
            "tokens": {
                "input_tokens": 454,
                "output_tokens": 72,
                "cache_creation_input_tokens": 1352,
                "cache_read_input_tokens": 7219,
                "total": 9097,
                "source": "exact"
            },
            "status": "async_launched",
            "duration_ms": null,
            "tool_uses": 1,
            "models": ["claude-opus-5-5"],
            "child_uuid": "a0ddb8d7d9a82d5fb"
        })
    );
}

#[test]
fn with_subagent_cost_child_missing_keeps_the_sidecar() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let src = real().join("subagent/projects/-home-dev-work-subagent");
    let dst = dir.path().join("proj");
    let subs = dst.join(SUBAGENT).join("subagents");
    std::fs::create_dir_all(&subs).unwrap_or_else(|e| panic!("{e}"));
    let main = format!("{SUBAGENT}.jsonl");
    std::fs::copy(src.join(&main), dst.join(&main)).unwrap_or_else(|e| panic!("{e}"));
    // keep every child except the background one
    for id in [
        "a9a1865f5e2572fa1",
        "a254c4c26332d0a9d",
        "a460e426666c15a15",
    ] {
        for ext in ["jsonl", "meta.json"] {
            let f = format!("agent-{id}.{ext}");
            std::fs::copy(src.join(SUBAGENT).join("subagents").join(&f), subs.join(&f))
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    let r = run_at(
        dir.path(),
        &FindParams {
            with_subagent_cost: true,
            ..name("Agent")
        },
        now(),
    );
    assert_eq!(r.records.len(), 4);
    let bg = r
        .records
        .iter()
        .find(|c| c.tool_use_id == "toolu_01QsDwoBvXrX9cAOXPn1lNLy")
        .map(|c| serde_json::to_value(c).expect("serializes"))
        .expect("the background spawn");
    assert_eq!(
        bg["subagent"],
        json!({
            "model": "claude-opus-5-5",
            "agent_type": null,
            "status": "async_launched",
            "duration_ms": null,
            "tool_uses": null
        })
    );
}

/// The 10,041-char failed `lsd` output of claude-code-viewer's sample session.
fn long_error(mode: Option<OutputMode>) -> (String, String) {
    let dir = corpus("claude-code-viewer/mock-global-claude-dir");
    let r = run_at(
        &dir,
        &FindParams {
            session: vec!["5c0375b4".into()],
            output_mode: mode,
            ..name("Bash")
        },
        now(),
    );
    let id = "toolu_01KDiLyJT1VsszVhG4d3p6jV";
    let got = r
        .records
        .iter()
        .find(|c| c.tool_use_id == id)
        .and_then(|c| c.output.clone())
        .expect("the lsd call's output");
    // the raw text, read without the loader
    let file = dir.join("projects/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl");
    let text = std::fs::read_to_string(file).expect("fixture");
    let raw = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v.pointer("/message/content").cloned())
        .filter_map(|c| c.as_array().cloned())
        .flatten()
        .find(|b| b["tool_use_id"] == json!(id))
        .and_then(|b| b["content"].as_str().map(str::to_string))
        .unwrap_or_default();
    assert_eq!(raw.chars().count(), 10_041);
    (got, raw)
}

#[test]
fn output_mode_head_tail_smart() {
    let (head, raw) = long_error(Some(OutputMode::Head));
    let chars: Vec<char> = raw.chars().collect();
    let first: String = chars[..2000].iter().collect();
    let last: String = chars[chars.len() - 2000..].iter().collect();
    let last_half: String = chars[chars.len() - 1000..].iter().collect();
    assert_eq!(head, format!("{first}…[truncated]"));
    let (tail, _) = long_error(Some(OutputMode::Tail));
    assert_eq!(tail, format!("…[truncated]{last}"));
    let smart_expected = format!(
        "lsd: 3: No such file or directory (os error 2).\n\
         │   │       │   ├── lib.es2022.error.d.ts\n\
         │   │       │   ├── lib.esnext.error.d.ts\n\
         …[truncated]…\n{last_half}"
    );
    let (smart, _) = long_error(Some(OutputMode::Smart));
    assert_eq!(smart, smart_expected);
    // default on a failed call is smart
    let (adaptive, _) = long_error(None);
    assert_eq!(adaptive, smart_expected);
    // short output is never cut
    let short = run(&FindParams {
        output_mode: Some(OutputMode::Head),
        ..name("mcp__mockmcp__fail")
    });
    assert_eq!(ids(&short), ["toolu_01gjV6MKnsT2EKGg8SDoC1mi"]);
    assert_eq!(short.records[0].output.as_deref(), Some("mock failure"));
}

#[test]
fn error_contract() {
    let both = invalid(&FindParams {
        tool_name: Some("Bash".into()),
        tool_name_pattern: Some("ba".into()),
        ..FindParams::default()
    });
    assert_eq!(
        both,
        "set exactly one of tool_name or tool_name_pattern, not both"
    );
    let neither = invalid(&FindParams::default());
    assert_eq!(
        neither,
        "set exactly one of tool_name (exact, case-insensitive) or tool_name_pattern (substring, case-insensitive)"
    );
    let since = invalid(&FindParams {
        since: Some("last tuesday".into()),
        ..name("Bash")
    });
    assert!(since.starts_with("since: cannot parse"), "{since}");
    let agent = invalid(&FindParams {
        agent: Some("gemini".into()),
        ..name("Bash")
    });
    assert_eq!(
        agent,
        "unknown agent \"gemini\"; known agents: claude-code (claude, cc), codex (cx), opencode (oc), droid (factory, dr)"
    );
    assert_eq!(
        QueryError::InvalidArgument(agent.clone()).to_json(),
        json!({"error": "invalid_argument", "message": agent})
    );
}

#[test]
fn redaction_record_shape() {
    let secrets = "toolu_01P4Hgl5wzxwZ0mZhViiKAAe";
    // redact=false: the raw output, and no redactions key
    // redact=false: the tool_result's content exactly as in e71e9aa1….jsonl
    // (read with python)
    let raw = run(&FindParams {
        redact: false,
        output_contains: Some("AKIAIOSFODNN7EXAMPLE".into()),
        ..name("Bash")
    });
    assert_eq!(ids(&raw), [secrets]);
    assert!(raw.redactions.is_empty());
    assert_eq!(
        raw.records[0].output.as_deref(),
        Some(
            "aws_access_key_id=AKIAIOSFODNN7EXAMPLE\ntoken: ghp_0123456789abcdefghijABCDEFGHIJ012345\nANTHROPIC_API_KEY=sk-ant-api03-FAKEFAKEFAKE0123456789abcdefghijklmnopqrstuvwxyzFAKE-AA"
        )
    );
    // the result object has only its records
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|o| o.keys().cloned().collect())
            .expect("an object")
    };
    let v = serde_json::to_value(&raw).expect("serializes");
    assert_eq!(keys(&v), ["records"]);
    // filters match the raw text even when redacting
    let redacted = run(&FindParams {
        output_contains: Some("AKIAIOSFODNN7EXAMPLE".into()),
        ..name("Bash")
    });
    assert_eq!(ids(&redacted), [secrets]);
    // nothing secret in the WebFetch errors: no redactions key
    let clean = serde_json::to_value(run(&name("WebFetch"))).expect("serializes");
    assert_eq!(keys(&clean), ["records"]);
    assert_eq!(clean["records"].as_array().map(Vec::len), Some(2));
}

// ---- the CLI ----

#[test]
fn cli_find_json() {
    let out = find_real(&["--tool-name", "webfetch", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let got: Vec<&str> = v["records"]
        .as_array()
        .map(|a| a.iter().filter_map(|r| r["tool_use_id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(got, WEBFETCH);
    assert_eq!(v["records"][0]["session"], json!(TOOLS));
    assert_eq!(v["records"][0]["agent"], json!("claude-code"));
    let keys: Vec<&str> = v
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["records"]);
}

#[test]
fn cli_find_table_and_relative_time() {
    let out = hookscope()
        .arg("find")
        .arg(real())
        .args([
            "--tool-name",
            "Bash",
            "--since",
            "31s",
            "--until",
            "30s",
            "--now",
            "2026-11-29T18:01:30Z",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert!(lines[0].starts_with("TIME (UTC)"));
    assert!(lines[2].contains("rm -rf build/"), "{stdout}");
    assert!(lines[3].contains("✗"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("4 records"));
}

/// A time copied from the table's `TIME (UTC)` column is a `--since`: the
/// table's rows from that time on are those `--since` in RFC 3339 gives.
#[test]
fn cli_find_since_takes_the_tables_time() {
    let table = |since: &str| -> String {
        let out = find_real(&["--tool-name", "Bash", "--since", since]);
        assert_eq!(out.status.code(), Some(0), "{since}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let all = table("2000-01-01");
    // The third row's time, as printed (its first 19 characters).
    let third: String = all
        .lines()
        .nth(3)
        .expect("three rows")
        .chars()
        .take(19)
        .collect();
    let copied = table(&third);
    let rfc3339 = table(&format!("{}Z", third.replacen(' ', "T", 1)));
    assert_eq!(copied, rfc3339);
    // 04:35:04: the header and the four calls from then on (c8's rows of
    // 04:35:06, :05 and the two of :04).
    assert_eq!(third, "2026-12-03 04:35:04");
    assert_eq!(copied.lines().count(), 5, "{copied}");
}

#[test]
fn cli_find_bad_argument_exits_2() {
    let out = find_real(&["--tool-name", "Bash", "--tool-name-pattern", "ba", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v,
        json!({"error": "invalid_argument",
            "message": "set exactly one of --tool-name or --tool-name-pattern, not both"})
    );

    let out = find_real(&["--tool-name", "Bash", "--since", "soon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("hookscope: invalid argument: since:"),
        "{stderr}"
    );

    // Arguments clap itself refuses keep the JSON contract under --json.
    let out = find_real(&["--tool-name", "Bash", "--limit", "ten", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    // Printed as every other --json error is: pretty.
    assert!(
        out.stdout
            .starts_with(b"{\n  \"error\": \"invalid_argument\",\n")
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v,
        json!({
            "error": "invalid_argument",
            "message": "invalid value 'ten' for '--limit <N>': invalid digit found in string"
        })
    );
    let out = hookscope()
        .args(["find", "--json", "--is-error", "maybe"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v,
        json!({"error": "invalid_argument",
            "message": "invalid value 'maybe' for '--is-error <BOOL>' [possible values: true, false]"})
    );
}

#[test]
fn cli_find_help_documents_every_flag() {
    let out = hookscope()
        .args(["find", "--help"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--tool-name",
        "--tool-name-pattern",
        "--input-contains",
        "--output-contains",
        "--output-excludes",
        "--is-error",
        "--session",
        "--since",
        "--until",
        "--agent",
        "--limit",
        "--no-redact",
        "--output-mode",
        "--with-subagent-cost",
        "--json",
        "Examples:",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
}

#[test]
fn cli_find_missing_path_is_invalid_argument_under_json() {
    let out = hookscope()
        .args([
            "find",
            "/nonexistent/hookscope-path",
            "--tool-name",
            "Bash",
            "--json",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v,
        json!({"error": "invalid_argument",
            "message": "no such file or directory: /nonexistent/hookscope-path"})
    );
}

/// Default redaction masks the fake secrets the `tools` scenario prints
/// (`toolu_01P4Hgl5wzxwZ0mZhViiKAAe`: an echo of AWS's example key, a
/// `ghp_…` token and an `sk-ant-api03-…` key) in both input and output,
/// and counts each type once per field.
#[test]
fn redaction_masks_the_fake_secrets() {
    let result = run(&FindParams {
        output_contains: Some("AKIAIOSFODNN7EXAMPLE".to_string()),
        ..name("Bash")
    });
    assert_eq!(ids(&result), ["toolu_01P4Hgl5wzxwZ0mZhViiKAAe"]);
    let v = serde_json::to_value(&result).expect("serializes");
    let record = &v["records"][0];
    assert_eq!(
        record["output"],
        "aws_access_key_id=[REDACTED_AWS_KEY]\ntoken: [REDACTED_GITHUB_TOKEN]\nANTHROPIC_API_KEY=[REDACTED_ANTHROPIC_KEY]"
    );
    assert_eq!(
        record["input"]["command"],
        "echo 'aws_access_key_id=[REDACTED_AWS_KEY]'; echo 'token: [REDACTED_GITHUB_TOKEN]'; echo 'ANTHROPIC_API_KEY=[REDACTED_ANTHROPIC_KEY]'"
    );
    assert_eq!(
        v["redactions"],
        json!({"ANTHROPIC_KEY": 2, "AWS_KEY": 2, "GITHUB_TOKEN": 2})
    );
    let text = v.to_string();
    for secret in ["AKIAIOSFODNN7EXAMPLE", "ghp_", "sk-ant-api03"] {
        assert!(!text.contains(secret), "{secret} leaked");
    }
}

/// A real input over the 4,000-char cap (the viewer fixture's Edit at line
/// 377 of fe5e1c67…: file_path 44 chars, old_string 7,649, new_string 1,676;
/// 9,808 chars of compact JSON) stays an object with its three keys: the
/// strings longer than 2,072 chars are cut there (`…[truncated]`), 2,072 being
/// the largest cut that fits 4,000 chars (computed with python, json.dumps
/// with separators=(",", ":"), ensure_ascii=False: exactly 4,000). The table
/// still summarizes it by its file path.
#[test]
fn cli_find_json_keeps_a_long_input_an_object() {
    let viewer = corpus("claude-code-viewer/mock-global-claude-dir/projects");
    let out = hookscope()
        .arg("find")
        .arg(&viewer)
        .args(["--tool-name", "Edit", "--session", "fe5e1c67", "--json"])
        .args(["--input-contains", "filteredTodos,\\n    todoCounts"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let record = v["records"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|r| r["tool_use_id"] == "toolu_016LtTvdDhRJhJ5Mvm6V7QA5")
        })
        .unwrap_or_else(|| panic!("record missing: {v}"));
    let input = record["input"].as_object().expect("input is an object");
    let keys: Vec<&str> = input.keys().map(String::as_str).collect();
    assert_eq!(keys, ["file_path", "old_string", "new_string"]);
    assert_eq!(
        input["file_path"],
        "/path/to/Demo/todo-app/src/hooks/useTodos.ts"
    );
    let old = input["old_string"].as_str().expect("old_string");
    assert_eq!(old.chars().count(), 2_072 + "…[truncated]".chars().count());
    assert!(old.starts_with("import { useReducer, useEffect, useMemo, useCallback } from "));
    assert!(
        old.ends_with("        error: null\n        …[truncated]"),
        "{old:?}"
    );
    let new = input["new_string"].as_str().expect("new_string");
    assert_eq!(new.chars().count(), 1_676);
    assert!(new.ends_with("   filteredTodos,\n    todoCounts,\n  };\n}"));
    assert_eq!(record["input"].to_string().chars().count(), 4_000);
    assert_eq!(record["file_path"], input["file_path"]);

    // The table's summary (from the raw input) is the file path.
    let out = hookscope()
        .arg("find")
        .arg(&viewer)
        .args(["--tool-name", "Edit", "--session", "fe5e1c67"])
        .args(["--input-contains", "filteredTodos,\\n    todoCounts"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{stdout}");
    assert!(
        rows[0].ends_with("✗    /path/to/Demo/todo-app/src/hooks/useTodos.ts"),
        "{stdout}"
    );
}

/// `find --with-subagent-cost` without `--json` shows each spawn's tokens
/// and their source in a TOKENS column (the child sums above, checked with
/// python over the four agent-*.jsonl files); without the flag there is no
/// such column.
#[test]
fn cli_find_table_shows_the_subagent_cost() {
    let dir = real().join("subagent");
    let out = hookscope()
        .arg("find")
        .arg(&dir)
        .args(["--tool-name", "Agent", "--with-subagent-cost"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    let at = lines[0].find("TOKENS").expect("TOKENS column");
    let cells: Vec<&str> = lines[1..]
        .iter()
        .map(|l| {
            let from = l.char_indices().nth(at).map_or(l.len(), |(i, _)| i);
            l[from..].split("  ").next().unwrap_or_default()
        })
        .collect();
    assert_eq!(
        cells,
        ["9097 exact", "9676 exact", "8232 exact", "15191 exact"],
        "{stdout}"
    );
    let out = hookscope()
        .arg("find")
        .arg(&dir)
        .args(["--tool-name", "Agent"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(
            "TIME (UTC)           SESSION   CALL          TOOL   RESOLVED         ERR  INPUT\n"
        ),
        "{stdout}"
    );
}

/// The table's CALL column is each call's `tool_use_id` shortened as the
/// SESSION column shortens ids (12 chars with `…` for a `toolu_` id), the
/// full id being in `--json`; at the default widths a Bash row's INPUT
/// starts before column 80.
#[test]
fn cli_find_table_has_a_short_tool_use_id_column() {
    let dir = real().join("hooks_c2_exit2");
    let table = hookscope()
        .arg("find")
        .arg(&dir)
        .args(["--tool-name", "Bash", "--input-contains", "rm -rf build"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let table = String::from_utf8_lossy(&table.stdout).into_owned();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].contains("  CALL  "), "{table}");
    let col = lines[0].find("CALL").expect("CALL");
    let input_col = lines[0].chars().count() - "INPUT".len();
    assert!(input_col < 80, "{}", lines[0]);
    let cell: String = lines[1].chars().skip(col).take(12).collect();
    assert_eq!(cell, "toolu_01GFE…", "{table}");
    let json = hookscope()
        .arg("find")
        .arg(&dir)
        .args([
            "--tool-name",
            "Bash",
            "--input-contains",
            "rm -rf build",
            "--json",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    let id = v["records"][0]["tool_use_id"].as_str().expect("id");
    assert_eq!(id, "toolu_01GFEgALJm405nI2WctBocud");
    assert!(id.starts_with(cell.trim_end_matches('…')));
}

/// `hookscope find --no-index --json <args> <real>`: (exit code, stdout, stderr).
fn find_cli(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = hookscope()
        .args([
            "--no-index",
            "find",
            "--json",
            "--now",
            "2026-12-01T00:00:00Z",
        ])
        .args(args)
        .arg(real())
        .output()
        .expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn os(args: &[&'static str]) -> Vec<&'static std::ffi::OsStr> {
    args.iter().map(|a| std::ffi::OsStr::new(*a)).collect()
}

#[test]
fn find_filter_takes_the_calls_view_line() {
    // The same records as the flags it stands for.
    let line = find_cli(&os(&["--filter", "tool:Bash is:error since:7d"]));
    let flags = find_cli(&os(&[
        "--tool-name",
        "Bash",
        "--is-error",
        "true",
        "--since",
        "7d",
    ]));
    assert_eq!(line.0, Some(0), "{}", line.2);
    assert_eq!(line.1, flags.1);
    // python3 over real-cc-2.1.332/*/projects/**.jsonl: Bash tool_use ids
    // whose tool_result has is_error true (9 on 2026-11-29, c8's refused
    // `git push` on 2026-12-03).
    let v: Value = serde_json::from_str(&line.1).expect("json");
    assert_eq!(v["records"].as_array().map(Vec::len), Some(10));
    // Bare words search inputs, across every tool.
    let bare = find_cli(&os(&["--filter", "rm -rf", "--limit", "100"]));
    let flags = find_cli(&os(&[
        "--tool-name-pattern",
        "",
        "--input-contains",
        "rm -rf",
        "--limit",
        "100",
    ]));
    assert_eq!(bare.0, Some(0), "{}", bare.2);
    assert_eq!(bare.1, flags.1);
    // Flags and the line combine.
    let both = find_cli(&os(&[
        "--filter",
        "is:error",
        "--tool-name",
        "Bash",
        "--since",
        "7d",
    ]));
    assert_eq!(both.1, line.1);
}

#[test]
fn find_filter_errors_exit_2_with_the_reason() {
    let twice = find_cli(&os(&["--filter", "tool:Bash", "--tool-name", "Read"]));
    assert_eq!(twice.0, Some(2));
    assert!(
        twice
            .2
            .contains("--filter: tool_name is given both as a flag and in the line")
            || twice
                .1
                .contains("--filter: tool_name is given both as a flag and in the line"),
        "{twice:?}"
    );
    let unknown = find_cli(&os(&["--filter", "tol:Bash"]));
    assert_eq!(unknown.0, Some(2));
    assert!(
        format!("{}{}", unknown.1, unknown.2).contains("unknown key tol:"),
        "{unknown:?}"
    );
    let unclosed = find_cli(&os(&["--filter", "input:\"rm -rf"]));
    assert_eq!(unclosed.0, Some(2), "{unclosed:?}");
    // A line that is not UTF-8: refused, no panic.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bad = std::ffi::OsStr::from_bytes(b"tool:Ba\xffsh");
        let out = find_cli(&[std::ffi::OsStr::new("--filter"), bad]);
        assert_eq!(out.0, Some(2), "{out:?}");
    }
}

/// The footer explains the marks the table shows, and only those: c8's
/// newest Bash calls hold a call a hook's `ask` got denied (`git push`,
/// blocked before it ran), a subagent's call and commands a PreToolUse
/// hook rewrote (`npm test → npm test -- --silent`); its three
/// Reads from 18:00:50 on hold none of them, and its five newest Reads one
/// failed call.
#[test]
fn cli_find_footer_explains_the_marks_shown() {
    let footer = |tool: &str, since: &str| -> (String, String) {
        let out = find_real(&["--tool-name", tool, "--since", since, "--limit", "5"]);
        assert_eq!(out.status.code(), Some(0), "{tool}");
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (table, stderr) = footer("Bash", "2026-12-03T04:35:03Z");
    assert!(table.contains("npm test → npm test -- --silent"), "{table}");
    assert!(
        stderr.contains(
            "ERR: ⊘ blocked by a hook before it ran (⛔ in the TUI; --blocked lists those); TOOL: ↳ a subagent's call; INPUT: a → b: a PreToolUse hook rewrote the input a to b\n"
        ),
        "{stderr}"
    );
    let (table, stderr) = footer("Read", "2026-11-29T18:00:50Z");
    assert_eq!(table.lines().count(), 4, "{table}");
    assert!(!table.contains('→') && !table.contains('↳'), "{table}");
    assert!(stderr.ends_with("3 records\n"), "{stderr}");
    // Then only the failed Read's mark needs a word.
    let (table, stderr) = footer("Read", "2000-01-01");
    assert!(table.contains('✗'), "{table}");
    assert!(
        stderr.ends_with("more match (--limit N for more, --count for how many)\nERR: ✗ failed\n"),
        "{stderr}"
    );
    // The two `rm -rf` a PreToolUse hook blocked, and the `git push` its
    // hook's `ask` got denied, are recorded as errors: their mark is `⊘`,
    // not the `✗` of a call that ran and failed.
    let out = find_real(&["--tool-name", "Bash", "--blocked"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let marks: Vec<&str> = stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(5))
        .collect();
    assert_eq!(marks, ["⊘", "⊘", "⊘"], "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.ends_with(
            "3 records\nERR: ⊘ blocked by a hook before it ran (⛔ in the TUI; --blocked lists those)\n"
        ),
        "{stderr}"
    );
    // The `git commit` a PostToolUse hook objected to after it ran (it
    // succeeded): `⚠`, and the footer says what it is.
    let out = find_real(&["--tool-name", "Bash", "--flagged"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{stdout}");
    assert!(
        rows[0].ends_with("Bash            ⚠    git commit -am \"Mark notes as checked\""),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.ends_with("1 record\nERR: ⚠ a hook objected after it ran (--flagged lists those)\n"),
        "{stderr}"
    );
}

/// `--hook` naming an event that never fires on a call finds nothing, and
/// says where those firings are; a tool event finding nothing says nothing
/// more. stdout is empty: no table header over no records.
#[test]
fn find_hook_on_an_event_not_on_calls_says_where_it_is() {
    let stderr = |hook: &str| {
        let out = find_real(&["--tool-name-pattern", "", "--hook", hook]);
        assert_eq!(out.status.code(), Some(0));
        // No records: no table, not even its header.
        assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{hook}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert_eq!(
        stderr("stop"),
        "0 records\nStop firings are not on tool calls: hookscope hooks --activity SESSION lists them\n"
    );
    assert_eq!(
        stderr("UserPromptSubmit"),
        "0 records\nUserPromptSubmit firings are not on tool calls: hookscope hooks --activity SESSION lists them\n"
    );
    assert_eq!(stderr("PreToolUse:NoSuchTool"), "0 records\n");
    // A name that is no event (a typo) says what the filter matches.
    assert_eq!(
        stderr("PreToolUze"),
        "0 records\n--hook \"PreToolUze\" names no hook event; the events on tool calls: PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, PermissionDenied (a firing's hookName matches too, as PreToolUse:Bash)\n"
    );
    // `--json`, `--count` and `--group-by` keep stdout the answer alone and
    // say the same on stderr.
    for (mode, stdout) in [
        (&["--json"][..], "{\n  \"records\": []\n}\n"),
        (&["--count"][..], "0\n"),
        (&["--count", "--json"][..], ""),
        (&["--group-by", "tool"][..], "COUNT  TOOL\n    0  (total)\n"),
    ] {
        let out = hookscope()
            .arg("find")
            .arg(real())
            .args(["--tool-name-pattern", "", "--hook", "Stop"])
            .args(mode)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.status.code(), Some(0), "{mode:?}");
        if !stdout.is_empty() {
            assert_eq!(String::from_utf8_lossy(&out.stdout), stdout, "{mode:?}");
        } else {
            let v: serde_json::Value =
                serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{mode:?}: {e}"));
            assert_eq!(v["total"], 0, "{mode:?}");
        }
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "Stop firings are not on tool calls: hookscope hooks --activity SESSION lists them\n",
            "{mode:?}"
        );
    }
}

/// `--blocked`, `--flagged` and `--rewritten` take `=false` for the calls
/// they do not describe: with the flag's own count they add up to every
/// Bash call of `real-cc-2.1.332` (52: 3 blocked, 1 objected to, 3
/// rewritten). A value after a space is a PATH, and the error says where
/// the value goes; the flag and its opposite `is:` word are refused.
#[test]
fn hook_flags_take_false_after_an_equals_sign() {
    let count = |flag: &str| -> String {
        let mut cmd = hookscope();
        cmd.arg("find")
            .arg(real())
            .args(["--tool-name", "Bash", "--count"]);
        if !flag.is_empty() {
            cmd.arg(flag);
        }
        let out = cmd.output().unwrap_or_else(|e| panic!("{e}"));
        assert!(out.status.success(), "{flag}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let counts: Vec<String> = [
        "",
        "--blocked",
        "--blocked=false",
        "--flagged",
        "--flagged=false",
        "--rewritten",
        "--rewritten=false",
    ]
    .into_iter()
    .map(count)
    .collect();
    assert_eq!(counts, ["52", "3", "49", "1", "51", "3", "49"]);

    // A filter line that starts with `-` is the line, not a flag: the same
    // 49 as --blocked=false.
    let out = find_real(&["--filter", "-is:blocked tool:Bash", "--count"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "49\n", "{out:?}");

    let out = find_real(&["--tool-name", "Bash", "--blocked", "false"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hookscope: invalid argument: no such file or directory: false (--blocked, --flagged and --rewritten take a value only after `=`: --blocked=false)\n"
    );
    let out = hookscope()
        .arg("find")
        .arg(real())
        .args([
            "--tool-name",
            "Bash",
            "--blocked=false",
            "--filter",
            "is:blocked",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("blocked is given both as a flag and in the line, with opposite values"),
        "{out:?}"
    );
}
