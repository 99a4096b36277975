//! The Factory Droid loader, discovery and `find` over
//! `tests/corpus/real-droid-0.225.2/factory`, plus hostile transcripts
//! in temp dirs.
//!
//! Every expected value was recounted independently with python3
//! (`json.loads` per line, not the loader): turns = user `message`s with a
//! `text` block, no `visibility` and an id not starting with `context-`;
//! tool calls = assistant `tool_use` blocks; errors = `tool_result` blocks
//! with `is_error: true`; hook runs = user messages with `hookEventName`;
//! tokens = the `<uuid>.settings.json` `tokenUsage` (`inputTokens`,
//! `outputTokens`, `cacheCreationTokens`, `cacheReadTokens`); children =
//! child transcripts named by `state/task-invocations.json` (4 links, all
//! to the `subagent` session, none with a transcript).

use std::path::PathBuf;

use hookscope_core::tools::{ToolCall, ToolKind};
use hookscope_core::transcript::{Agent, Event, Session, discover, load};
use serde_json::Value;

use crate::support::{by_id, corpus, hookscope, usage};

fn factory() -> PathBuf {
    corpus("real-droid-0.225.2/factory")
}

fn load_all() -> Vec<Session> {
    let found = discover(&[factory().join("sessions")]).expect("discover");
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    found
        .sessions
        .iter()
        .map(|s| {
            let session = load(s).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(session.id, s.id);
            session
        })
        .collect()
}

fn hook_notes(s: &Session) -> Vec<Value> {
    s.turns
        .iter()
        .flat_map(|t| t.events.iter())
        .filter_map(|e| match e {
            Event::Note { label, text, .. } if label.starts_with("hook:") => {
                // A summary line, then the run's fields as JSON.
                let (_, fields) = text.split_once('\n').expect("two parts");
                Some(serde_json::from_str(fields).expect("hook fields are JSON"))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn every_droid_run_counts() {
    let sessions = load_all();
    // (id, turns, tool calls, errors, hook runs, settings tokenUsage)
    let expected = [
        (
            "5a8cddfb-fae3-441b-8085-94ed3460ada4",
            1,
            12,
            4,
            23,
            usage(36161, 560, 0, 108466),
        ),
        (
            "f7e1db17-deb2-4d9f-9bab-65cffa8f840a",
            2,
            3,
            0,
            10,
            usage(15797, 199, 0, 47383),
        ),
        (
            "bf23b181-02c9-4443-8222-f4710a76d949",
            1,
            4,
            4,
            7,
            usage(12699, 248, 0, 38089),
        ),
        (
            "1b9da415-c5e6-4a90-b936-c8633676babf",
            1,
            4,
            3,
            8,
            usage(9441, 128, 0, 28317),
        ),
        (
            "45cd3bea-9543-450b-a90f-e58635ed4f0f",
            1,
            1,
            1,
            4,
            usage(2895, 68, 0, 8683),
        ),
        (
            "98fc4707-6b16-40d1-ab57-c4c6ff985096",
            1,
            1,
            1,
            4,
            usage(6249, 87, 0, 18744),
        ),
    ];
    assert_eq!(sessions.len(), expected.len());
    for (id, turns, calls, errors, hooks, tokens) in expected {
        let s = by_id(&sessions, id);
        let sum = s.summary();
        assert_eq!(s.agent, Agent::Droid, "{id}");
        assert_eq!(sum.turns, turns, "{id} turns");
        assert_eq!(sum.tool_calls, calls, "{id} calls");
        assert_eq!(sum.errors, errors, "{id} errors");
        assert_eq!(sum.subagents, 0, "{id} children");
        assert_eq!(hook_notes(s).len(), hooks, "{id} hook runs");
        assert_eq!(s.usage, tokens, "{id} tokens");
        assert_eq!(
            s.models.first().map(String::as_str),
            Some("custom:Mock-Coder-0")
        );
        // Only the subagent run has Task links (without child transcripts).
        let expected_diags = if id.starts_with("bf23b181") { 4 } else { 0 };
        assert_eq!(
            s.diagnostics.len(),
            expected_diags,
            "{id}: {:?}",
            s.diagnostics
        );
    }
}

#[test]
fn droid_names_map_to_typed_calls() {
    let sessions = load_all();
    let tools = by_id(&sessions, "5a8cddfb-fae3-441b-8085-94ed3460ada4");
    let names: Vec<&str> = tools.tool_calls().map(|c| c.name()).collect();
    // python3: the tool_use names in file order.
    assert_eq!(
        names,
        [
            "Execute",
            "Execute",
            "Read",
            "Create",
            "Edit",
            "Glob",
            "Grep",
            "LS",
            "TodoWrite",
            "Execute",
            "Read",
            "Edit"
        ]
    );
    let first = tools.tool_calls().next().expect("call");
    assert!(
        matches!(&first.call, ToolCall::Bash(b) if b.command == "ls -la && git status --short")
    );
    assert_eq!(first.tool_kind, ToolKind::Bash);
    let create = tools
        .tool_calls()
        .find(|c| c.name() == "Create")
        .expect("Create");
    assert!(matches!(&create.call, ToolCall::Write(w) if w.file_path.ends_with("hello.py")));
    // The Execute that exits 1 carries Droid's own is_error.
    let failed = tools
        .tool_calls()
        .find(|c| c.tool_use_id == "call_Y7ZHqmtyfP2vH50eJ4eGp1es")
        .expect("exit 1");
    let r = failed.result.as_ref().expect("result");
    assert!(r.is_error);
    assert!(
        r.text.starts_with("Error: Command failed (exit code: 1)"),
        "{}",
        r.text
    );
}

#[test]
fn hook_runs_keep_their_fields() {
    let sessions = load_all();
    let errors = by_id(&sessions, "1b9da415-c5e6-4a90-b936-c8633676babf");
    let hooks = hook_notes(errors);
    let events: Vec<&str> = hooks
        .iter()
        .map(|h| h["hookEventName"].as_str().unwrap_or(""))
        .collect();
    // python3: hookEventName of the hook lines in file order.
    assert_eq!(
        events,
        [
            "SessionStart",
            "PreToolUse",
            "PostToolUse",
            "PreToolUse",
            "PreToolUse",
            "PreToolUse",
            "Stop",
            "SessionEnd"
        ]
    );
    let blocked = hooks
        .iter()
        .find(|h| h["hookResults"][0]["exitCode"] == 2)
        .expect("the exit-2 hook");
    assert_eq!(blocked["hookToolCallId"], "call_CQRmHwfk8ggbj3l8NR2Iqt2S");
    assert_eq!(blocked["hookMatcher"], "Execute");
    assert_eq!(blocked["hookStatus"], "error");
    assert_eq!(
        blocked["hookResults"][0]["stderr"],
        "Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)"
    );
    let summaries: Vec<&str> = errors
        .turns
        .iter()
        .flat_map(|t| t.events.iter())
        .filter_map(|e| match e {
            Event::Note { label, text, .. } if label == "hook:PreToolUse" => text.lines().next(),
            _ => None,
        })
        .collect();
    assert_eq!(
        summaries.last(),
        Some(&"Execute: exit 2: Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)")
    );
    // The HTTP 400 is an API error, not a prompt.
    assert!(
        errors.turns.iter().flat_map(|t| t.events.iter()).any(
            |e| matches!(e, Event::ApiError { text, .. } if text.starts_with("BYOK Error: 400"))
        )
    );
}

#[test]
fn task_links_without_child_transcripts_are_reported_not_guessed() {
    let sessions = load_all();
    let s = by_id(&sessions, "bf23b181-02c9-4443-8222-f4710a76d949");
    assert!(s.subagents.is_empty());
    assert!(s.tool_calls().all(|c| c.subagent.is_none()));
    let inv = factory().join("state/task-invocations.json");
    for d in &s.diagnostics {
        assert_eq!(d.path, inv);
        assert!(
            d.message.contains("child transcript not found; not linked"),
            "{}",
            d.message
        );
    }
}

#[test]
fn a_child_transcript_named_by_task_invocations_is_linked() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = tmp.path().join("factory");
    let dir = f.join("sessions").join("-w");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::create_dir_all(f.join("state")).expect("mkdir");
    std::fs::write(
        dir.join("p.jsonl"),
        concat!(
            r#"{"type":"session_start","id":"p","title":"t","cwd":"/w"}"#, "\n",
            r#"{"type":"message","id":"u1","timestamp":"2026-12-01T00:00:00Z","message":{"role":"user","content":[{"type":"text","text":"go"}]}}"#, "\n",
            r#"{"type":"message","id":"a1","timestamp":"2026-12-01T00:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"description":"d","prompt":"p","subagent_type":"worker"}}]}}"#, "\n",
            r#"{"type":"message","id":"u2","timestamp":"2026-12-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":false,"content":"done"}]}}"#, "\n",
        ),
    )
    .expect("write");
    std::fs::write(
        dir.join("c.jsonl"),
        concat!(
            r#"{"type":"session_start","id":"c","title":"p","cwd":"/w"}"#, "\n",
            r#"{"type":"message","id":"x1","timestamp":"2026-12-01T00:00:01Z","message":{"role":"user","content":[{"type":"text","text":"p"}]}}"#, "\n",
            r#"{"type":"message","id":"x2","timestamp":"2026-12-01T00:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"k1","name":"Execute","input":{"command":"ls"}}]}}"#, "\n",
        ),
    )
    .expect("write");
    std::fs::write(
        f.join("state/task-invocations.json"),
        r#"{"invocations":[{"taskInvocationId":"i1","parentSessionId":"p","parentToolUseId":"t1","childSessionId":"c","subagentType":"worker"},
                           {"taskInvocationId":"i2","parentSessionId":"p","parentToolUseId":"t1","childSessionId":"p"}]}"#,
    )
    .expect("write");
    let s = hookscope_core::transcript::droid::load_session(&dir.join("p.jsonl")).expect("load");
    assert_eq!(s.subagents.len(), 1);
    assert_eq!(s.subagents[0].spawn_tool_use_id.as_deref(), Some("t1"));
    assert_eq!(s.subagents[0].tool_calls().count(), 1);
    assert_eq!(s.tool_calls().next().and_then(|c| c.subagent), Some(0));
    assert_eq!(s.summary().tool_calls, 2);
    // The second link names the parent itself (a cycle): reported, not followed.
    assert_eq!(s.diagnostics.len(), 1, "{:?}", s.diagnostics);
    assert!(
        s.diagnostics[0].message.contains("already read"),
        "{}",
        s.diagnostics[0].message
    );
}

#[test]
fn bad_lines_and_a_bad_settings_file_are_diagnostics() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("s.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"type":"session_start","id":"s1","title":"t","cwd":"/w"}"#, "\n",
            "not json\n",
            r#"{"type":"message","id":"u1","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}"#, "\n",
            r#"{"type":"weird"}"#, "\n",
            r#"{"type":"message","id":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"nope","content":"x"}]}}"#, "\n",
        ),
    )
    .expect("write");
    std::fs::write(tmp.path().join("s.settings.json"), "{oops").expect("write");
    let found = discover(std::slice::from_ref(&path)).expect("discover");
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].agent, Agent::Droid);
    assert_eq!(found.sessions[0].id, "s1");
    let s = load(&found.sessions[0]).expect("load");
    assert_eq!(s.prompt_turns(), 1);
    let lines: Vec<Option<usize>> = s.diagnostics.iter().map(|d| d.line()).collect();
    assert_eq!(
        lines,
        [Some(2), Some(4), Some(5), None],
        "{:?}",
        s.diagnostics
    );
}

fn find_ids(args: &[&str]) -> Vec<Value> {
    let out = hookscope()
        .arg("find")
        .arg(factory().join("sessions"))
        .args(args)
        .args(["--json", "--limit", "1000"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    v["records"].as_array().cloned().expect("records")
}

fn sorted_ids(records: &[Value]) -> Vec<String> {
    let mut ids: Vec<String> = records
        .iter()
        .filter_map(|r| r["tool_use_id"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids
}

#[test]
fn cli_find_execute_and_errors() {
    let records = find_ids(&["--agent", "droid", "--tool-name", "Execute"]);
    // python3: every Execute tool_use id.
    let mut expected = vec![
        "call_pxSKXffNvRZn4sZdR0da84rQ",
        "call_rhupc2HW3Z9j7D5McuROYrWO",
        "call_n81Ytw2aBRxDKbmI1Bk2Qs6Z",
        "call_CQRmHwfk8ggbj3l8NR2Iqt2S",
        "call_ECDjPW2aISwrjlQR8IVsTWMd",
        "call_Y7ZHqmtyfP2vH50eJ4eGp1es",
        "call_VelLmAcOry4IofyKqrXsRgr9",
        "call_YsokHKWzFiJw9xFFYqWLl5RD",
        "call_qfCXuWByyQuJvEUZ38my48KT",
    ];
    expected.sort();
    assert_eq!(sorted_ids(&records), expected);
    for r in &records {
        assert_eq!(r["agent"], "droid");
        assert_eq!(r["tool_kind"], "bash");
        assert_eq!(r["is_error_reliable"], false);
    }
    // find matches tool names verbatim (docs/tool-calls.md#the-find-query): `bash` is OpenCode's.
    assert!(find_ids(&["--agent", "droid", "--tool-name", "bash"]).is_empty());
    // python3: tool_result blocks with is_error true (13 over 6 sessions).
    let errors = find_ids(&[
        "--agent",
        "droid",
        "--is-error",
        "true",
        "--tool-name-pattern",
        "",
    ]);
    assert_eq!(errors.len(), 1 + 1 + 3 + 4 + 4);
    assert!(errors.iter().all(|r| r["is_error"] == true));
}

#[test]
fn cli_default_locations_find_opencode_and_droid() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let xdg = tmp.path().join("xdg");
    // ~/.factory/sessions/<slug>/ with one real Droid session (+ settings).
    let slug = "-home-dev-work-dr-errors";
    let dst = home.join(".factory/sessions").join(slug);
    std::fs::create_dir_all(&dst).expect("mkdir");
    for name in [
        "1b9da415-c5e6-4a90-b936-c8633676babf.jsonl",
        "1b9da415-c5e6-4a90-b936-c8633676babf.settings.json",
    ] {
        std::fs::copy(
            factory().join("sessions").join(slug).join(name),
            dst.join(name),
        )
        .expect("copy");
    }
    // $XDG_DATA_HOME/opencode/opencode.db (+ -wal).
    let oc = xdg.join("opencode");
    std::fs::create_dir_all(&oc).expect("mkdir");
    let data = corpus("real-opencode-1.18.33/data");
    for name in ["opencode.db", "opencode.db-wal"] {
        std::fs::copy(data.join(name), oc.join(name)).expect("copy");
    }
    let out = hookscope()
        .args(["sessions", "--json"])
        .env("HOME", &home)
        .env("XDG_DATA_HOME", &xdg)
        .env("CLAUDE_CONFIG_DIR", tmp.path().join("none-claude"))
        .env("CODEX_HOME", tmp.path().join("none-codex"))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut agents: Vec<String> = v
        .as_array()
        .expect("array")
        .iter()
        .map(|s| s["agent"].as_str().unwrap_or("").to_string())
        .collect();
    agents.sort();
    // 1 Droid session, the 5 top-level OpenCode sessions.
    assert_eq!(
        agents,
        [
            "droid", "opencode", "opencode", "opencode", "opencode", "opencode"
        ]
    );
}
