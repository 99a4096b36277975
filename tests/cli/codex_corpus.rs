//! The Codex CLI loader, discovery and `find_tool_calls` over the Codex
//! rollouts of `tests/corpus` (see its SOURCES.md), plus hand-made
//! rollouts in temp dirs.
//!
//! Every expected value below was recounted from the JSONL with a separate
//! python3 script (json.loads per line; prompts = `response_item` user
//! `message`s whose text does not start with an injected-context prefix;
//! calls = `function_call` / `custom_tool_call` / `local_shell_call` /
//! `web_search_call` / `tool_search_call` / `image_generation_call` items and
//! 0.42 `event_msg tool_call`; outputs joined by `call_id`; exit codes from
//! `metadata.exit_code` or an `Exit code:` / `Process exited with code`
//! header line; usage = the last `token_count` `info.total_token_usage`),
//! not copied from the loader's output. Each test's comment says what was
//! counted.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use hookscope_core::query::{FindParams, FindResult, find_tool_calls};
use hookscope_core::tools::ToolCall;
use hookscope_core::transcript::{Agent, Event, Session, SessionRef, Usage, codex, discover, load};
use serde_json::Value;

use crate::support::{corpus, corpus_dir, hookscope, usage, write_jsonl};

const REAL_171: &str = "real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl";
const SESSION_01: &str = "agent-history/tests/fixtures/real_sessions/codex/session-01.jsonl";
const STAGE0: &str = "agent-sessions/Resources/Fixtures/stage0/agents/codex";

fn load_file(rel: &str) -> Session {
    let path = corpus(rel);
    let found = discover(std::slice::from_ref(&path)).expect("discover file");
    assert_eq!(found.sessions.len(), 1, "{rel}");
    assert_eq!(found.sessions[0].agent, Agent::Codex, "{rel}");
    let session = load(&found.sessions[0]).expect("load");
    // Discovery's id (from the first lines) is the loader's id.
    assert_eq!(session.id, found.sessions[0].id, "{rel}");
    session
}

fn call_ids(s: &Session) -> Vec<&str> {
    s.tool_calls().map(|c| c.tool_use_id.as_str()).collect()
}

fn call_names(s: &Session) -> Vec<&str> {
    s.tool_calls().map(|c| c.name()).collect()
}

fn result_lines(s: &Session) -> Vec<Option<usize>> {
    s.tool_calls()
        .map(|c| c.result.as_ref().map(|r| r.line))
        .collect()
}

fn error_ids(s: &Session) -> Vec<&str> {
    s.tool_calls()
        .filter(|c| c.is_error())
        .map(|c| c.tool_use_id.as_str())
        .collect()
}

fn diag_lines(s: &Session) -> Vec<Option<usize>> {
    s.diagnostics.iter().map(|d| d.line()).collect()
}

fn prompt_lines(s: &Session) -> Vec<Option<usize>> {
    s.turns.iter().map(|t| t.prompt_line).collect()
}

fn event_lines(s: &Session, pick: fn(&Event) -> bool) -> Vec<usize> {
    s.turns
        .iter()
        .flat_map(|t| t.events.iter())
        .filter(|e| pick(e))
        .map(Event::line)
        .collect()
}

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|e| panic!("{s}: {e}"))
}

const REAL_171_CALLS: [&str; 6] = [
    "call_mtfuaxdyo8h2rjg7kvpu3863",
    "call_zf48lrtzap7lo14s9e55uc40",
    "call_gp8gi3hwshtxp2nu9ljdbe2t",
    "call_baf0fw1kcj9eoi1tuurc1io4",
    "call_s2titbinmpcfhmbd37vzzlvw",
    "call_u5itvwi2ezioe52njxy0xwxb",
];

/// Real 0.171.0 `codex exec` rollout, 46 lines. session_meta line 1 (id,
/// cli_version 0.171.0, cwd, git.branch main); one real prompt at line 8
/// (line 4 is `<environment_context>`, line 3 a developer message); six
/// `exec_command` function_calls at lines 12/17/22/27/32/37, outputs at
/// 15/20/25/30/35/40; only line 35 states a non-zero exit ("Process exited
/// with code 2"); the last token_count (line 45) total_token_usage is
/// input 75935 / cached 60745 / cache_write 0 / output 619 / total 76554;
/// turn_context model gpt-5-codex; reasoning at line 11, assistant text at 43.
#[test]
fn real_0_171_rollout() {
    let s = load_file(REAL_171);
    assert_eq!(s.agent, Agent::Codex);
    assert_eq!(s.id, "01a2287a-35b1-76e0-b188-fd2c5f457a31");
    assert_eq!(s.version.as_deref(), Some("0.171.0"));
    assert_eq!(s.cwd.as_deref(), Some("/home/dev/work/codex-basic"));
    assert_eq!(s.git_branch.as_deref(), Some("main"));
    assert_eq!(
        s.title.as_deref(),
        Some(
            "[scenario:basic] List files, create hello.py with apply_patch, run it, patch it, run a failing command."
        )
    );
    assert_eq!(s.started, Some(at("2026-11-29T18:03:47.532Z")));
    assert_eq!(s.ended, Some(at("2026-11-29T18:03:47.969Z")));
    assert_eq!(s.models, vec!["gpt-5-codex"]);
    assert_eq!(prompt_lines(&s), vec![Some(8)]);
    assert_eq!(s.prompt_turns(), 1);
    assert_eq!(call_names(&s), vec!["exec_command"; 6]);
    assert_eq!(call_ids(&s), REAL_171_CALLS);
    let call_lines: Vec<usize> = s.tool_calls().map(|c| c.line).collect();
    assert_eq!(call_lines, vec![12, 17, 22, 27, 32, 37]);
    assert_eq!(
        result_lines(&s),
        [15, 20, 25, 30, 35, 40].map(Some).to_vec()
    );
    assert_eq!(error_ids(&s), vec!["call_s2titbinmpcfhmbd37vzzlvw"]);
    assert_eq!(s.usage, usage(75935 - 60745, 619, 0, 60745));
    assert_eq!(s.usage.total(), 76554);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert!(s.subagents.is_empty());
    assert_eq!(
        event_lines(&s, |e| matches!(e, Event::Thinking { .. })),
        vec![11]
    );
    assert_eq!(
        event_lines(&s, |e| matches!(e, Event::Text { .. })),
        vec![43]
    );

    // Typed through parse_tool_call: exec_command's `cmd` is the command.
    let first = s.tool_calls().next().expect("a call");
    let ToolCall::Bash(bash) = &first.call else {
        panic!("exec_command should be a BashCall, got {:?}", first.call)
    };
    assert_eq!(bash.command, "ls -la");
    assert_eq!(first.tool_kind, hookscope_core::tools::ToolKind::Bash);
    // The output text is kept whole (headers included).
    let failed = s.tool_calls().nth(4).and_then(|c| c.result.as_ref());
    assert_eq!(
        failed.map(|r| r.text.as_str()),
        Some(
            "Chunk ID: f37d6e\nWall time: 0.0000 seconds\nProcess exited with code 2\nOriginal token count: 5\nOutput:\nfailing on purpose\n"
        )
    );

    let summary = s.summary();
    assert_eq!(
        (summary.turns, summary.tool_calls, summary.errors),
        (1, 6, 1)
    );
}

/// Real 0.135.0 exec rollout, 11 lines: user messages at lines 4
/// (`<environment_context>`) and 6 (the prompt; line 7 is its
/// `event_msg user_message` duplicate), no tool calls, one assistant
/// message (line 9), one token_count (input 22539 / cached 20864 / output 10
/// / total 22549), turn_context model gpt-5.5.
#[test]
fn real_0_135_exec_session() {
    let s = load_file(SESSION_01);
    assert_eq!(s.id, "019e9625-802f-7e91-840a-cfe88d14117a");
    assert_eq!(s.version.as_deref(), Some("0.135.0"));
    assert_eq!(s.models, vec!["gpt-5.5"]);
    assert_eq!(prompt_lines(&s), vec![Some(6)]);
    assert_eq!(s.turns[0].prompt, "[REDACTED_PROMPT]");
    assert_eq!(s.title.as_deref(), Some("[REDACTED_PROMPT]"));
    assert!(call_ids(&s).is_empty());
    assert_eq!(s.usage, usage(22539 - 20864, 10, 0, 20864));
    assert_eq!(s.turns[0].last_text(), Some("[REDACTED_ASSISTANT_TEXT]"));
    assert!(s.diagnostics.is_empty());
    assert_eq!(s.started, Some(at("2026-06-05T04:58:20.653Z")));
    assert_eq!(s.ended, Some(at("2026-06-05T04:58:26.713Z")));
}

/// stage0 small.jsonl (trimmed 0.146 fixture, 118 lines, many item types).
/// - first session_meta: id 019fc8be-…, cli_version 0.146.0, git.branch main;
///   later session_meta lines (29, 36, 37, 42, 94, 96) are ignored;
/// - one user message item (line 6: "List the files" + an input_image);
///   the `event_msg user_message` lines 4, 71, 85 are not prompts;
/// - calls in order: custom_tool_call shell call-1 (9), function_call shell
///   call-2 (10), tool_search_call call-3 (12), web_search_call ws-1 (14,
///   no call_id: its `id`), tool_search_call (43), image_generation_call
///   (49, its `id`), custom_tool_call (103), function_call (114) — the last
///   four all use the id "[trimmed for fixture]";
/// - outputs: call-2 ← 11, call-3 ← 13, call-1 ← 21; the "[trimmed…]" output
///   at 28 comes before any call with that id (diagnostic); 105 and 115 pair
///   with the latest call of that id (103, 114); no exit codes;
/// - diagnostics: 28 (unknown call_id) and 49, 103, 114 (call_id reused);
/// - compaction boundaries: `compacted` 26, 47, 69, 81, 89, 111 and a
///   `context_compacted` (19) not right after a `compacted`; turn_aborted 20;
///   event_msg error 73; thread_name_updated 55 ("[trimmed for fixture]");
/// - last token_count with total_token_usage: line 87, all zeros;
/// - turn_context models, first-seen: 8 distinct names.
#[test]
fn stage0_small_many_item_types() {
    let s = load_file(&format!("{STAGE0}/small.jsonl"));
    assert_eq!(s.id, "019fc8be-3658-7ca3-9e29-000000000000");
    assert_eq!(s.version.as_deref(), Some("0.146.0"));
    assert_eq!(s.git_branch.as_deref(), Some("main"));
    assert_eq!(s.title.as_deref(), Some("[trimmed for fixture]"));
    assert_eq!(prompt_lines(&s), vec![Some(6)]);
    assert_eq!(s.turns[0].prompt, "List the files\n<input_image>");
    let trimmed = "[trimmed for fixture]";
    assert_eq!(
        call_names(&s),
        vec![
            "shell",
            "shell",
            "tool_search",
            "web_search",
            "tool_search",
            "image_generation",
            trimmed,
            trimmed
        ]
    );
    assert_eq!(
        call_ids(&s),
        vec![
            "call-1", "call-2", "call-3", "ws-1", trimmed, trimmed, trimmed, trimmed
        ]
    );
    assert_eq!(
        result_lines(&s),
        vec![
            Some(21),
            Some(11),
            Some(13),
            None,
            None,
            None,
            Some(105),
            Some(115)
        ]
    );
    assert!(error_ids(&s).is_empty());
    assert_eq!(diag_lines(&s), [28, 49, 103, 114].map(Some).to_vec());
    assert_eq!(s.usage, Usage::default());
    assert_eq!(
        event_lines(&s, |e| matches!(e, Event::Compaction { .. })),
        vec![19, 26, 47, 69, 81, 89, 111]
    );
    assert_eq!(
        event_lines(&s, |e| matches!(e, Event::Interruption { .. })),
        vec![20]
    );
    assert_eq!(
        event_lines(&s, |e| matches!(e, Event::ApiError { .. })),
        vec![73]
    );
    assert_eq!(
        s.models,
        vec![
            "gpt-5.6-luna",
            "gpt-5.5",
            "codex-auto-review",
            "gpt-5.4",
            "gpt-5.2",
            "gpt-5.2-codex",
            "gpt-5.1",
            "gpt-5.6-sol"
        ]
    );
    // A custom_tool_call's `input` is a verbatim string: untyped, kept as is.
    let first = s.tool_calls().next().expect("a call");
    assert_eq!(first.call.type_name(), "OtherCall");
    assert_eq!(
        first.call.raw(),
        Some(&Value::String("{\"command\":[\"ls\"]}".into()))
    );
    // The function_call's `arguments` string is decoded and typed.
    let second = s.tool_calls().nth(1).expect("a second call");
    let ToolCall::Bash(bash) = &second.call else {
        panic!("shell should be a BashCall, got {:?}", second.call)
    };
    assert_eq!(bash.command, "ls");
    assert_eq!(
        second.result.as_ref().map(|r| r.text.as_str()),
        Some("a.txt\n")
    );
}

/// stage0 large.jsonl (0.106 fixture, 20 lines): user message items at 4
/// ("Start"), 10 (`<environment_context>`), 11, 13, 15, 17, 19 ("Step 1-5");
/// the `response_item` types `tool_call` (6) and `tool_result` (7) are not
/// Codex item types (diagnostics); one token_count (input 12091 / cached
/// 10880 / output 182).
#[test]
fn stage0_large_prompts_and_unknown_items() {
    let s = load_file(&format!("{STAGE0}/large.jsonl"));
    assert_eq!(s.id, "019b2ea4-aaaa-bbbb-cccc-58208e1f0000");
    assert_eq!(prompt_lines(&s), [4, 11, 13, 15, 17, 19].map(Some).to_vec());
    let prompts: Vec<&str> = s.turns.iter().map(|t| t.prompt.as_str()).collect();
    assert_eq!(
        prompts,
        vec!["Start", "Step 1", "Step 2", "Step 3", "Step 4", "Step 5"]
    );
    assert!(call_ids(&s).is_empty());
    assert_eq!(diag_lines(&s), vec![Some(6), Some(7)]);
    assert!(s.diagnostics[0].message.contains("\"tool_call\""));
    assert_eq!(s.usage, usage(12091 - 10880, 182, 0, 10880));
    assert_eq!(s.models, vec!["gpt-5.2"]);
}

/// Legacy 0.50 and 0.53 fixtures (docs/transcripts.md#older-codex-layouts): only session_meta,
/// `turn.completed`, token_count (0.50: `info` without total_token_usage, or
/// null) and, in 0.53, `error` (line 4, "Rate limit exceeded") and
/// `account/rateLimits/updated`. No prompts, no calls, no diagnostics.
#[test]
fn legacy_0_5x_fixtures() {
    let s = load_file("agent-sessions/Resources/Fixtures/codex_050_legacy.jsonl");
    assert_eq!(s.id, "test-legacy-session");
    assert_eq!(s.version.as_deref(), Some("0.50.0"));
    assert!(s.turns.is_empty());
    assert_eq!(s.usage, Usage::default());
    assert!(s.diagnostics.is_empty());
    assert_eq!(s.started, Some(at("2025-10-30T10:00:00Z")));
    assert_eq!(s.ended, Some(at("2025-10-30T10:00:11Z")));

    let s = load_file("agent-sessions/Resources/Fixtures/codex_053_rate_limit.jsonl");
    assert_eq!(s.id, "test-ratelimit-session");
    assert_eq!(prompt_lines(&s), vec![None]);
    assert_eq!(s.prompt_turns(), 0);
    assert_eq!(
        event_lines(&s, |e| matches!(e, Event::ApiError { .. })),
        vec![4]
    );
    assert!(matches!(
        &s.turns[0].events[0],
        Event::ApiError { text, .. } if text == "Rate limit exceeded"
    ));
    assert_eq!(s.usage, usage(12091 - 10880, 182, 0, 10880));
    assert!(s.diagnostics.is_empty());
}

/// stage0 schema_drift.jsonl: line 1 has no envelope and no `type`; line 2
/// a bare `function_call` without `name`; line 3 a bare `function_result`;
/// line 4 no `type`; line 5 a `world_state` envelope; line 6 blank. It loads,
/// with four diagnostics carrying line numbers; the id falls back to the
/// file stem (no session_meta, no UUID in the name).
#[test]
fn stage0_schema_drift_loads_with_diagnostics() {
    let path = corpus(format!("{STAGE0}/schema_drift.jsonl"));
    let s = codex::load_session(&path).expect("loads");
    assert_eq!(s.id, "schema_drift");
    assert!(s.turns.is_empty());
    assert_eq!(diag_lines(&s), [1, 2, 3, 4].map(Some).to_vec());
    assert!(s.diagnostics.iter().all(|d| d.path == path));
    assert_eq!(s.started, Some(at("2025-09-10T12:00:03Z")));
}

/// cass 0.42 fixture: the call is an `event_msg tool_call` (line 3,
/// name bash, call_id call_codex_tool_001) with no output.
#[test]
fn event_msg_tool_call_of_0_42() {
    let s = load_file("cass/tests/fixtures/codex_real/sessions/2025/11/26/rollout-tool-call.jsonl");
    assert_eq!(s.id, "tool-call-session-id");
    assert_eq!(call_names(&s), vec!["bash"]);
    assert_eq!(call_ids(&s), vec!["call_codex_tool_001"]);
    assert_eq!(result_lines(&s), vec![None]);
}

/// The Codex rollouts of the corpus (python: files whose first lines hold a
/// `payload` envelope with a Codex type): 18, each with the id of its first
/// session_meta (else the file stem), each loading.
#[test]
fn whole_corpus_codex_sessions() {
    let found = discover(&[corpus_dir()]).expect("discover corpus");
    let codex: Vec<&SessionRef> = found
        .sessions
        .iter()
        .filter(|s| s.agent == Agent::Codex)
        .collect();
    let ids: BTreeSet<&str> = codex.iter().map(|s| s.id.as_str()).collect();
    let expected: BTreeSet<&str> = [
        "01a2287a-35b1-76e0-b188-fd2c5f457a31",
        "019b64e5-57fa-7463-b644-fba7e456f905",
        "session-alpha",
        "tool-call-session-id",
        "test-session-id",
        "abc-123",
        "fc-1",
        "fc-stdin",
        "fc-args-2",
        "fc-args-1",
        "019fc8be-3658-7ca3-9e29-000000000000",
        "schema_drift",
        "019b2ea4-aaaa-bbbb-cccc-58208e1f0000",
        "test-ratelimit-session",
        "test-raw-session",
        "test-usage-session",
        "test-legacy-session",
        "019e9625-802f-7e91-840a-cfe88d14117a",
    ]
    .into_iter()
    .collect();
    assert_eq!(codex.len(), 18);
    assert_eq!(ids, expected);
    let mut calls = 0;
    for s in codex {
        let loaded = load(s).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(loaded.id, s.id);
        calls += loaded.tool_calls().count();
    }
    // 6 (0.171) + 8 (small) + 1 (cass) + 1 + 1 + 1 + 2 (agentsview).
    assert_eq!(calls, 20);
}

// ---- find_tool_calls ----

fn find(path: &Path, params: &FindParams) -> FindResult {
    let sessions = discover(&[path.to_path_buf()]).expect("discover").sessions;
    find_tool_calls(&sessions, params, at("2026-12-01T00:00:00Z"))
        .unwrap_or_else(|e| panic!("find {params:?}: {e}"))
}

/// `agent` + exact `tool_name` (a name filter is required).
fn agent_tool(a: &str, tool: &str) -> FindParams {
    FindParams {
        agent: Some(a.to_string()),
        tool_name: Some(tool.to_string()),
        limit: Some(100),
        ..FindParams::default()
    }
}

fn found_ids(r: &FindResult) -> Vec<&str> {
    r.records.iter().map(|r| r.tool_use_id.as_str()).collect()
}

/// Over the 0.171 folder: the six calls, newest first (their timestamps
/// increase with the line), all `agent: "codex"`, `is_error_reliable:
/// false`, the exit-2 call `is_error: true`. `claude-code` selects none.
#[test]
fn find_codex_calls_in_the_real_rollout() {
    let dir = corpus("real-codex-0.171.0");
    let r = find(&dir, &agent_tool("codex", "exec_command"));
    let mut newest_first = REAL_171_CALLS.to_vec();
    newest_first.reverse();
    assert_eq!(found_ids(&r), newest_first);
    for rec in &r.records {
        assert_eq!(rec.agent, Agent::Codex);
        assert!(!rec.is_error_reliable);
        assert_eq!(rec.session, "01a2287a-35b1-76e0-b188-fd2c5f457a31");
        assert_eq!(
            rec.is_error,
            Some(rec.tool_use_id == "call_s2titbinmpcfhmbd37vzzlvw")
        );
    }
    assert!(
        find(&dir, &agent_tool("claude-code", "exec_command"))
            .records
            .is_empty()
    );

    let errors = find(
        &dir,
        &FindParams {
            is_error: Some(true),
            ..agent_tool("codex", "exec_command")
        },
    );
    assert_eq!(found_ids(&errors), vec!["call_s2titbinmpcfhmbd37vzzlvw"]);
}

/// Over the whole corpus, `agent: "codex"` returns exactly the 20 Codex
/// calls (as a set: several fixtures share timestamps or have none).
#[test]
fn find_codex_over_the_whole_corpus() {
    // One query per tool name the python count listed, unioned.
    let names = [
        "exec_command",
        "shell",
        "tool_search",
        "web_search",
        "image_generation",
        "[trimmed for fixture]",
        "bash",
        "apply_patch",
        "write_stdin",
        "shell_command",
    ];
    let results: Vec<FindResult> = names
        .iter()
        .map(|n| find(&corpus_dir(), &agent_tool("codex", n)))
        .collect();
    let mut got: Vec<(&str, &str)> = results
        .iter()
        .flat_map(|r| r.records.iter())
        .map(|c| (c.session.as_str(), c.tool_use_id.as_str()))
        .collect();
    got.sort_unstable();
    let trimmed = "[trimmed for fixture]";
    let small = "019fc8be-3658-7ca3-9e29-000000000000";
    let real = "01a2287a-35b1-76e0-b188-fd2c5f457a31";
    let mut expected: Vec<(&str, &str)> = vec![
        (small, "call-1"),
        (small, "call-2"),
        (small, "call-3"),
        (small, "ws-1"),
        (small, trimmed),
        (small, trimmed),
        (small, trimmed),
        (small, trimmed),
        ("tool-call-session-id", "call_codex_tool_001"),
        ("fc-args-1", "call_test"),
        ("fc-args-2", "call_test"),
        ("fc-stdin", "call_test"),
        ("fc-1", "call_test"),
        ("fc-1", "call_test"),
    ];
    expected.extend(REAL_171_CALLS.iter().map(|id| (real, *id)));
    expected.sort_unstable();
    assert_eq!(got, expected);
    let all = results.iter().flat_map(|r| r.records.iter());
    assert!(all.clone().all(|c| c.agent == Agent::Codex));
    assert!(all.clone().all(|c| !c.is_error_reliable));
}

fn write_rollout(dir: &Path, lines: &[Value]) -> PathBuf {
    write_jsonl(
        dir.join("rollout-2026-01-01T00-00-00-00000000-0000-4000-8000-000000000001.jsonl"),
        lines,
    )
}

/// A rollout whose `arguments` were written by the model with spaces after
/// `:` and `,`, and a JSON-string output: input is matched on its compact
/// form (`"timeout_ms":5000`), which the raw bytes do not contain, so the
/// raw-byte prefilter must not skip the file for such a needle; plain
/// needles inside a doubly escaped string still match.
#[test]
fn prefilter_never_skips_a_matching_codex_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = r#"{"cmd": "echo \"hi\" && rm -rf build/", "timeout_ms": 5000}"#;
    let output = r#"{"output":"removed build/\n","metadata":{"exit_code":1}}"#;
    let lines = [
        serde_json::json!({"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"pf-1","cwd":"/w","cli_version":"0.99.0"}}),
        serde_json::json!({"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"clean"}]}}),
        serde_json::json!({"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":args,"call_id":"call_pf"}}),
        serde_json::json!({"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_pf","output":output}}),
    ];
    write_rollout(dir.path(), &lines);
    let with = |input: Option<&str>, out: Option<&str>| FindParams {
        input_contains: input.map(str::to_string),
        output_contains: out.map(str::to_string),
        ..agent_tool("codex", "exec_command")
    };
    for needle in [
        ":5000",
        "\"timeout_ms\":5000",
        "rm -rf build/",
        "echo \\\"hi",
    ] {
        let r = find(dir.path(), &with(Some(needle), None));
        assert_eq!(found_ids(&r), vec!["call_pf"], "input_contains {needle:?}");
    }
    let r = find(dir.path(), &with(None, Some("removed build/")));
    assert_eq!(found_ids(&r), vec!["call_pf"]);
    assert_eq!(r.records[0].is_error, Some(true));
    assert!(!r.records[0].is_error_reliable);
    assert!(
        find(dir.path(), &with(Some("not-there"), None))
            .records
            .is_empty()
    );
}

/// Every 6-char window of every Codex call's compact input and of its output
/// text, in the real 0.171 rollout and the stage0 small fixture, finds that
/// call back through `input_contains` / `output_contains` (prefilter on).
#[test]
fn prefilter_is_sound_over_corpus_windows() {
    for rel in [REAL_171, &format!("{STAGE0}/small.jsonl")] {
        let path = corpus(rel);
        let s = load_file(rel);
        for call in s.tool_calls() {
            let input = call.call.raw().map(Value::to_string).unwrap_or_default();
            let output = call.result.as_ref().map(|r| r.text.clone());
            let texts = [(true, Some(input)), (false, output)];
            for (is_input, text) in texts {
                let Some(text) = text else { continue };
                let chars: Vec<char> = text.chars().collect();
                for start in (0..chars.len().saturating_sub(6)).step_by(5) {
                    let window: String = chars[start..start + 6].iter().collect();
                    if window.trim().is_empty() {
                        continue;
                    }
                    let params = FindParams {
                        input_contains: is_input.then(|| window.clone()),
                        output_contains: (!is_input).then(|| window.clone()),
                        ..agent_tool("codex", call.name())
                    };
                    let r = find(&path, &params);
                    assert!(
                        r.records.iter().any(|c| c.tool_use_id == call.tool_use_id),
                        "{rel}: {} not found by {window:?} (input: {is_input})",
                        call.tool_use_id
                    );
                }
            }
        }
    }
}

// ---- the CLI ----

#[test]
fn cli_find_agent_codex_json() {
    let out = hookscope()
        .arg("find")
        .arg(corpus("real-codex-0.171.0"))
        .args(["--agent", "codex", "--tool-name", "exec_command", "--json"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let records = v["records"].as_array().expect("records");
    let got: Vec<&str> = records
        .iter()
        .filter_map(|r| r["tool_use_id"].as_str())
        .collect();
    let mut newest_first = REAL_171_CALLS.to_vec();
    newest_first.reverse();
    assert_eq!(got, newest_first);
    assert!(records.iter().all(|r| r["agent"] == "codex"));
    assert!(records.iter().all(|r| r["is_error_reliable"] == false));
    // The fake secrets of the last call are masked by default.
    assert_eq!(records[0]["tool_name"], "exec_command");
    assert!(v["redactions"].is_object(), "{v}");
}

#[test]
fn cli_sessions_lists_the_codex_session() {
    let dir = corpus("real-codex-0.171.0");
    let out = hookscope()
        .arg("sessions")
        .arg(&dir)
        .arg("--json")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rows = v.as_array().expect("array");
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row["id"], "01a2287a-35b1-76e0-b188-fd2c5f457a31");
    assert_eq!(row["agent"], "codex");
    assert_eq!(row["version"], "0.171.0");
    assert_eq!(row["cwd"], "/home/dev/work/codex-basic");
    assert_eq!(row["turns"], 1);
    assert_eq!(row["tool_calls"], 6);
    assert_eq!(row["errors"], 1);
    assert_eq!(row["subagents"], 0);
    assert_eq!(row["diagnostics"], 0);

    let table = hookscope().arg("sessions").arg(&dir).output().expect("run");
    let text = String::from_utf8_lossy(&table.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("AGENT"), "{text}");
    assert!(
        lines[1].starts_with("01a2287a-35b1-76e0-b188-fd2c5f457a31  codex "),
        "{text}"
    );
}

/// Without PATHs, `$CODEX_HOME/sessions` is searched (docs/transcripts.md#codex-files): a
/// rollout copied into `<tmp>/sessions/2026/11/29/` is listed.
#[test]
fn cli_sessions_finds_codex_home() {
    let home = tempfile::tempdir().expect("tempdir");
    let day = home.path().join("sessions/2026/11/29");
    std::fs::create_dir_all(&day).expect("mkdir");
    let src = corpus(REAL_171);
    let name = src.file_name().expect("file name");
    std::fs::copy(&src, day.join(name)).expect("copy");
    let out = hookscope()
        .env("CODEX_HOME", home.path())
        .args(["sessions", "--json"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let ids: Vec<&str> = v
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids, vec!["01a2287a-35b1-76e0-b188-fd2c5f457a31"]);
}

/// The flat legacy layout (docs/transcripts.md#older-codex-layouts): a bare meta line, bare items,
/// `record_type` state lines; found by its `rollout-` name and loaded.
#[test]
fn legacy_flat_rollout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = [
        serde_json::json!({"id":"legacy-1","timestamp":"2025-08-01T10:00:00Z","instructions":null,"git":{"branch":"dev"}}),
        serde_json::json!({"record_type":"state"}),
        serde_json::json!({"type":"message","role":"user","content":[{"type":"input_text","text":"<user_instructions>\nbe brief\n</user_instructions>"}]}),
        serde_json::json!({"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]}),
        serde_json::json!({"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"c1"}),
        serde_json::json!({"type":"function_call_output","call_id":"c1","output":"{\"output\":\"ls: x: No such file\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.0}}"}),
        serde_json::json!({"type":"local_shell_call","call_id":"c2","status":"completed","action":{"type":"exec","command":["ls","-a"]}}),
        serde_json::json!({"type":"function_call_output","call_id":"c2","output":"Exit code: 0\nWall time: 0.1 seconds\nOutput:\n.\n"}),
    ];
    let path = write_rollout(dir.path(), &lines);
    let found = discover(std::slice::from_ref(&path)).expect("discover");
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].agent, Agent::Codex);
    assert_eq!(found.sessions[0].id, "legacy-1");
    let s = load(&found.sessions[0]).expect("load");
    assert_eq!(s.id, "legacy-1");
    assert_eq!(s.git_branch.as_deref(), Some("dev"));
    assert_eq!(prompt_lines(&s), vec![Some(4)]);
    assert_eq!(call_names(&s), vec!["shell", "local_shell_call"]);
    assert_eq!(call_ids(&s), vec!["c1", "c2"]);
    assert_eq!(error_ids(&s), vec!["c1"]);
    let commands: Vec<String> = s
        .tool_calls()
        .map(|c| match &c.call {
            ToolCall::Bash(b) => b.command.clone(),
            other => panic!("expected BashCall, got {other:?}"),
        })
        .collect();
    assert_eq!(commands, vec!["ls", "ls -a"]);
    assert_eq!(
        s.tool_calls()
            .next()
            .and_then(|c| c.result.as_ref())
            .map(|r| r.text.as_str()),
        Some("ls: x: No such file\n")
    );
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
}

/// Envelope details: a replayed call (same call_id, same input) is kept
/// once; `compacted` + its `context_compacted` make one boundary; an output
/// without an exit code takes `exec_command_end.exit_code`; a bad line and an
/// unknown line type are diagnostics; `thread_name_updated` is the title.
#[test]
fn envelope_details() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env = |t: &str, p: Value| serde_json::json!({"timestamp":"2026-01-01T00:00:00Z","type":t,"payload":p});
    let call = serde_json::json!({"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"make\"}","call_id":"m1"});
    let lines = [
        env(
            "session_meta",
            serde_json::json!({"id":"env-1","cli_version":"0.60.0","cwd":"/w"}),
        ),
        env(
            "response_item",
            serde_json::json!({"type":"message","role":"user","content":[{"type":"input_text","text":"build it"}]}),
        ),
        env("response_item", call.clone()),
        env("response_item", call),
        env(
            "event_msg",
            serde_json::json!({"type":"exec_command_end","call_id":"m1","exit_code":2}),
        ),
        env(
            "response_item",
            serde_json::json!({"type":"function_call_output","call_id":"m1","output":"make: *** [all] Error 2"}),
        ),
        env(
            "compacted",
            serde_json::json!({"message":"summary","replacement_history":[]}),
        ),
        env("event_msg", serde_json::json!({"type":"context_compacted"})),
        env("mystery_type", serde_json::json!({})),
        env(
            "event_msg",
            serde_json::json!({"type":"thread_name_updated","thread_name":"Build"}),
        ),
    ];
    let path = write_rollout(dir.path(), &lines);
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("{not json\n");
    std::fs::write(&path, text).expect("write");
    let s = codex::load_session(&path).expect("load");
    assert_eq!(s.title.as_deref(), Some("Build"));
    assert_eq!(call_ids(&s), vec!["m1"]);
    assert_eq!(error_ids(&s), vec!["m1"]);
    assert_eq!(
        event_lines(&s, |e| matches!(e, Event::Compaction { .. })),
        vec![7]
    );
    assert_eq!(diag_lines(&s), vec![Some(9), Some(11)]);
}

/// Compresses `bytes` as a `.zst` frame (level 3).
fn zstd_bytes(bytes: &[u8]) -> Vec<u8> {
    zstd::stream::encode_all(bytes, 3).expect("zstd encode")
}

#[test]
fn a_compressed_rollout_loads_like_the_plain_one() {
    // The real 0.171 rollout, compressed in the test: same id (from the
    // name without `.jsonl.zst`), same 6 calls in order, same usage.
    let plain = load_file(REAL_171);
    let dir = tempfile::tempdir().expect("tempdir");
    let name = Path::new(REAL_171)
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let zst = dir.path().join(format!("{name}.zst"));
    let bytes = std::fs::read(corpus(REAL_171)).expect("read rollout");
    std::fs::write(&zst, zstd_bytes(&bytes)).expect("write zst");
    let found = discover(std::slice::from_ref(&zst)).expect("discover .zst");
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].agent, Agent::Codex);
    let s = load(&found.sessions[0]).expect("load .zst");
    assert_eq!(s.id, "01a2287a-35b1-76e0-b188-fd2c5f457a31");
    assert_eq!(call_ids(&s), REAL_171_CALLS);
    assert_eq!(s.usage, plain.usage);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    // Found in a folder walk too (the folder had no sessions before .zst support).
    let walked = discover(&[dir.path().to_path_buf()]).expect("discover dir");
    assert_eq!(walked.sessions.len(), 1);
}

#[test]
fn a_truncated_zst_keeps_the_lines_before_the_damage() {
    // Hostile: a compressed rollout whose last bytes are gone (a copy cut
    // short). The rollout is followed by 20,000 repeats of its
    // `turn_context` line so the text spans many zstd blocks; the cut
    // damages only the last one. Every call is kept and reading stops with
    // one diagnostic; nothing panics.
    let dir = tempfile::tempdir().expect("tempdir");
    let zst = dir
        .path()
        .join("rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl.zst");
    let mut bytes = std::fs::read(corpus(REAL_171)).expect("read rollout");
    let text = String::from_utf8(bytes.clone()).expect("utf-8");
    let context = text
        .lines()
        .find(|l| l.contains("\"type\":\"turn_context\""))
        .expect("a turn_context line")
        .to_string();
    for _ in 0..20_000 {
        bytes.extend_from_slice(context.as_bytes());
        bytes.push(b'\n');
    }
    let packed = zstd_bytes(&bytes);
    std::fs::write(&zst, &packed[..packed.len() - 8]).expect("write cut zst");
    let found = discover(std::slice::from_ref(&zst)).expect("discover cut .zst");
    assert_eq!(found.sessions.len(), 1);
    let s = load(&found.sessions[0]).expect("load cut .zst");
    let read_errors: Vec<_> = s
        .diagnostics
        .iter()
        .filter(|d| d.message.starts_with("read error:"))
        .collect();
    assert_eq!(read_errors.len(), 1, "{:#?}", s.diagnostics);
    assert_eq!(call_ids(&s), REAL_171_CALLS);

    // Cut in its first block: nothing decodes; discovery names the file
    // and the decoder's error instead of skipping it silently.
    let small = dir.path().join("small.jsonl.zst");
    let packed = zstd_bytes(&std::fs::read(corpus(REAL_171)).expect("read"));
    std::fs::write(&small, &packed[..packed.len() / 2]).expect("write");
    let found = discover(&[dir.path().to_path_buf()]).expect("discover dir");
    let named: Vec<&str> = found
        .diagnostics
        .iter()
        .filter(|d| d.path == small)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(named.len(), 1, "{:#?}", found.diagnostics);
    assert!(
        named[0].contains("could not be decompressed"),
        "{}",
        named[0]
    );

    // Garbage named .jsonl.zst: reported the same way, no panic.
    let junk = dir.path().join("junk.jsonl.zst");
    std::fs::write(&junk, b"not zstd at all\n").expect("write junk");
    let found = discover(std::slice::from_ref(&junk)).expect("discover junk");
    assert!(found.sessions.is_empty());
    assert!(
        found
            .diagnostics
            .iter()
            .any(|d| d.path == junk && d.message.contains("could not be decompressed")),
        "{:#?}",
        found.diagnostics
    );
}

#[test]
fn archived_sessions_are_a_default_root() {
    // `$CODEX_HOME/archived_sessions` is read with no PATH (docs/transcripts.md#codex-files).
    let home = tempfile::tempdir().expect("tempdir");
    let codex_home = home.path().join("codex");
    let archived = codex_home.join("archived_sessions");
    std::fs::create_dir_all(&archived).expect("mkdir");
    let name = Path::new(REAL_171).file_name().expect("name");
    std::fs::copy(corpus(REAL_171), archived.join(name)).expect("copy");
    let out = hookscope()
        .args(["sessions", "--json"])
        .env("HOME", home.path())
        .env("CODEX_HOME", &codex_home)
        .env("CLAUDE_CONFIG_DIR", home.path().join("none"))
        .env_remove("XDG_DATA_HOME")
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let ids: Vec<&str> = v
        .as_array()
        .or_else(|| v.get("sessions").and_then(Value::as_array))
        .expect("a list")
        .iter()
        .filter_map(|s| s.get("id").and_then(Value::as_str))
        .collect();
    assert_eq!(ids, ["01a2287a-35b1-76e0-b188-fd2c5f457a31"]);
}

/// 0.51/0.52 fixtures: no `token_count` total, only `event_msg
/// turn.completed` `usage` per turn, summed (recounted by hand from the two
/// lines of each file): 0.51 turns (1420 in, 380 cached, 910 out) and
/// (2840, 1420, 1520) → input (1420−380)+(2840−1420) = 2460, cache read
/// 1800, output 2430; 0.52 turns (980, 0, 640) and (1620, 980, 240) →
/// input 980+640 = 1620, cache read 980, output 880.
#[test]
fn turn_completed_usage_is_summed_without_a_total() {
    let s = load_file("agent-sessions/Resources/Fixtures/codex_051_usage.jsonl");
    assert_eq!(s.usage, usage(2460, 2430, 0, 1800));
    assert!(s.diagnostics.is_empty());
    let s = load_file("agent-sessions/Resources/Fixtures/codex_052_raw.jsonl");
    assert_eq!(s.usage, usage(1620, 880, 0, 980));
    // 0.50's turn.completed has no usage and its token_count no total: none.
    let s = load_file("agent-sessions/Resources/Fixtures/codex_050_legacy.jsonl");
    assert_eq!(s.usage, Usage::default());
}
