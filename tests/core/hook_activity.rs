//! The hook activity of every session in `tests/corpus/real-cc-2.1.332`
//! (docs/hooks.md#what-the-transcript-records), and hostile hand-made transcripts.
//!
//! Counts were recounted with python3 over the raw JSONL of each capture
//! (main file and subagent files): `system/stop_hook_summary` lines (one per
//! Stop firing; `hookErrors` non-empty = a block), `attachment` lines whose
//! type starts with `hook_`, and `tool_result` texts containing
//! ` hook error: `:
//!
//! | capture | summaries (blocking) | hook_ attachments | result hook errors |
//! |---|---|---|---|
//! | compact | 2 (0) | 0 | 0 |
//! | hooks | 1 (0) | 0 | 0 |
//! | hooks_c2_exit2 | 1 (0) | 0 | 1 (line 45, toolu_01GFEgALJm405nI2WctBocud) |
//! | hooks_c3_deny_json | 1 (0) | 0 | 1 (line 45, toolu_0138h77ojpT1t3A4y1yWKgjr) |
//! | hooks_c5_stop_block | 2 (1) | 1 hook_blocking_error Stop | 0 |
//! | hooks_c6_prompt_context | 1 (0) | hook_success SessionStart, hook_additional_context SessionStart + UserPromptSubmit | 0 |
//! | subagent, tools | 0 | 0 | 0 |
//!
//! The reasons and contexts are compared with what the variant hooks
//! printed, read from each capture's `hooks/<capture>/_responses.jsonl`.

use std::path::{Path, PathBuf};

use hookscope_core::transcript::hook_activity::{HookAction, HookActivity};
use hookscope_core::transcript::{Session, claude_code::load_session, discover, load};
use serde_json::Value;

use crate::support::{corpus, write_jsonl};

fn capture(name: &str) -> PathBuf {
    corpus("real-cc-2.1.332").join(name)
}

/// The one session of a capture, with its subagents.
fn load_capture(name: &str) -> Session {
    let found = discover(&[capture(name).join("projects")]).expect("discover capture");
    assert_eq!(found.sessions.len(), 1, "{name}: one session");
    load(&found.sessions[0]).expect("load")
}

/// The `_responses.jsonl` rows of a capture (what its variant hooks
/// printed and exited with).
fn responses(name: &str) -> Vec<Value> {
    let path = capture(name)
        .join("hooks")
        .join(name)
        .join("_responses.jsonl");
    std::fs::read_to_string(&path)
        .expect("read _responses.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("response JSON"))
        .collect()
}

fn response_for<'a>(rows: &'a [Value], event: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["event"] == event)
        .unwrap_or_else(|| panic!("no response for {event}"))
}

/// The hook's stdout JSON of a response row.
fn stdout_json(row: &Value) -> Value {
    serde_json::from_str(row["stdout"].as_str().expect("stdout")).expect("stdout JSON")
}

fn all(session: &Session) -> Vec<&HookActivity> {
    session.all_hook_activity().map(|(_, a)| a).collect()
}

fn summary(session: &Session) -> Vec<(String, HookAction, Vec<usize>)> {
    all(session)
        .iter()
        .map(|a| (a.event_name().to_string(), a.action, a.lines.clone()))
        .collect()
}

fn stop_command(name: &str) -> String {
    format!("python3 /home/dev/.hooks/hook.py {name} Stop")
}

#[test]
fn sessions_without_hook_output_have_only_their_stop_summaries() {
    let s = load_capture("hooks");
    assert_eq!(
        summary(&s),
        vec![("Stop".to_string(), HookAction::Succeeded, vec![75])]
    );
    let stop = all(&s)[0];
    assert_eq!(
        stop.command.as_deref(),
        Some(stop_command("hooks").as_str())
    );
    assert_eq!(stop.duration_ms, Some(15));
    assert_eq!(
        stop.tool_use_id.as_deref(),
        Some("ba0a6eec-7b27-4bb3-bb9f-2d80470d4266")
    );
    assert!(!stop.on_call());

    let s = load_capture("compact");
    assert_eq!(
        summary(&s),
        vec![
            ("Stop".to_string(), HookAction::Succeeded, vec![75]),
            ("Stop".to_string(), HookAction::Succeeded, vec![126]),
        ]
    );
    for name in ["tools", "subagent"] {
        assert_eq!(summary(&load_capture(name)), vec![], "{name}");
    }
}

#[test]
fn c2_exit2_blocks_the_rm_rf_bash_call_with_its_handler() {
    let name = "hooks_c2_exit2";
    let s = load_capture(name);
    assert_eq!(
        summary(&s),
        vec![
            ("PreToolUse".to_string(), HookAction::Blocked, vec![45]),
            ("Stop".to_string(), HookAction::Succeeded, vec![76]),
        ]
    );
    let rows = responses(name);
    assert_eq!(rows.len(), 1);
    let row = response_for(&rows, "PreToolUse");
    assert_eq!(row["exit"], 2);
    let block = all(&s)[0];
    assert_eq!(block.reason.as_deref(), row["stderr"].as_str());
    assert_eq!(block.stderr.as_deref(), row["stderr"].as_str());
    assert_eq!(block.exit_code, Some(2));
    assert_eq!(block.hook_name.as_deref(), Some("PreToolUse:Bash"));
    assert_eq!(
        block.command.as_deref(),
        Some("python3 /home/dev/.hooks/hook.py hooks_c2_exit2 PreToolUse")
    );
    assert_eq!(
        block.tool_use_id.as_deref(),
        Some("toolu_01GFEgALJm405nI2WctBocud")
    );
    // Attached to the Bash call that ran `rm -rf`.
    let call = s
        .tool_calls()
        .find(|c| c.tool_use_id == "toolu_01GFEgALJm405nI2WctBocud")
        .expect("the blocked call");
    assert_eq!(call.name(), "Bash");
    assert!(call.summary().contains("rm -rf"), "{}", call.summary());
    assert_eq!(block.call_line, Some(call.line));
    let on_call: Vec<_> = s.hooks_of_call(None, call).collect();
    assert_eq!(on_call.len(), 1);
    // No other call has hook activity.
    let with_hooks = s
        .tool_calls()
        .filter(|c| s.hooks_of_call(None, c).next().is_some())
        .count();
    assert_eq!(with_hooks, 1);
}

#[test]
fn c3_json_deny_is_one_deny_without_a_command() {
    let name = "hooks_c3_deny_json";
    let s = load_capture(name);
    assert_eq!(
        summary(&s),
        vec![
            ("PreToolUse".to_string(), HookAction::Blocked, vec![45]),
            ("Stop".to_string(), HookAction::Succeeded, vec![76]),
        ]
    );
    let rows = responses(name);
    let out = stdout_json(response_for(&rows, "PreToolUse"));
    assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
    let deny = all(&s)[0];
    assert_eq!(deny.decision.as_deref(), Some("deny"));
    assert_eq!(
        deny.reason.as_deref(),
        out["hookSpecificOutput"]["permissionDecisionReason"].as_str()
    );
    assert_eq!(deny.command, None);
    assert_eq!(deny.exit_code, None);
    assert_eq!(
        deny.tool_use_id.as_deref(),
        Some("toolu_0138h77ojpT1t3A4y1yWKgjr")
    );
    assert!(deny.on_call());
}

#[test]
fn c5_stop_block_is_one_record_then_a_clean_stop() {
    let name = "hooks_c5_stop_block";
    let s = load_capture(name);
    // Feedback line 76, hook_blocking_error 77, stop_hook_summary 78: one
    // firing; the second Stop (line 83) is clean.
    assert_eq!(
        summary(&s),
        vec![
            ("Stop".to_string(), HookAction::Blocked, vec![76, 77, 78]),
            ("Stop".to_string(), HookAction::Succeeded, vec![83]),
        ]
    );
    let rows = responses(name);
    let out = stdout_json(response_for(&rows, "Stop"));
    assert_eq!(out["decision"], "block");
    let block = all(&s)[0];
    assert_eq!(block.reason.as_deref(), out["reason"].as_str());
    assert_eq!(block.command.as_deref(), Some(stop_command(name).as_str()));
    assert_eq!(
        block.tool_use_id.as_deref(),
        Some("42986ecc-f472-4139-b511-77b69b0497c5")
    );
    assert_eq!(
        block.kinds,
        vec![
            "user/hookText",
            "attachment/hook_blocking_error",
            "system/stop_hook_summary"
        ]
    );
    let clean = all(&s)[1];
    assert_eq!(clean.duration_ms, Some(15));
    // Both Stops are in the one prompt's turn.
    assert_eq!((block.turn, clean.turn), (0, 0));
}

#[test]
fn c6_session_start_and_prompt_context() {
    let name = "hooks_c6_prompt_context";
    let s = load_capture(name);
    assert_eq!(
        summary(&s),
        vec![
            (
                "SessionStart".to_string(),
                HookAction::AddedContext,
                vec![3, 4]
            ),
            (
                "UserPromptSubmit".to_string(),
                HookAction::AddedContext,
                vec![12]
            ),
            ("Stop".to_string(), HookAction::Succeeded, vec![79]),
        ]
    );
    let rows = responses(name);
    assert_eq!(rows.len(), 2);
    let acts = all(&s);
    for (a, event) in [(acts[0], "SessionStart"), (acts[1], "UserPromptSubmit")] {
        let out = stdout_json(response_for(&rows, event));
        let want = out["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .expect("additionalContext");
        assert_eq!(a.context, vec![want.to_string()], "{event}");
    }
    let start = acts[0];
    assert_eq!(start.hook_name.as_deref(), Some("SessionStart:startup"));
    assert_eq!(start.exit_code, Some(0));
    assert_eq!(start.duration_ms, Some(28));
    assert_eq!(
        start.stdout.as_deref(),
        response_for(&rows, "SessionStart")["stdout"].as_str()
    );
    assert_eq!(
        acts[1].tool_use_id.as_deref(),
        Some("hook-48893169-b69a-4756-973d-708a2bb59e38")
    );
    assert!(acts.iter().all(|a| !a.on_call()));
}

// ---- hostile and hand-made transcripts ----

fn write_session(dir: &Path, lines: &[Value]) -> PathBuf {
    write_jsonl(
        dir.join("11111111-2222-3333-4444-555555555555.jsonl"),
        lines,
    )
}

fn user(uuid: &str, text: &str) -> Value {
    serde_json::json!({"type":"user","uuid":uuid,"message":{"role":"user","content":text}})
}

fn tool_use(uuid: &str, id: &str, command: &str) -> Value {
    serde_json::json!({"type":"assistant","uuid":uuid,"message":{"id":format!("msg_{uuid}"),"role":"assistant",
        "content":[{"type":"tool_use","id":id,"name":"Bash","input":{"command":command}}]}})
}

fn tool_result(uuid: &str, id: &str, text: &str, is_error: bool) -> Value {
    serde_json::json!({"type":"user","uuid":uuid,"message":{"role":"user",
        "content":[{"type":"tool_result","tool_use_id":id,"content":text,"is_error":is_error}]}})
}

fn attachment(uuid: &str, att: Value) -> Value {
    serde_json::json!({"type":"attachment","uuid":uuid,"attachment":att})
}

/// C4-style rewrite: the recorded input is the original (`echo A`), the
/// hook's `updatedInput` is what ran (`echo B`); hook_success and
/// hook_additional_context merge into one record on the call.
#[test]
fn a_pretooluse_rewrite_is_linked_to_its_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let stdout = serde_json::json!({"hookSpecificOutput":{"hookEventName":"PreToolUse",
        "permissionDecision":"allow","updatedInput":{"command":"echo B"},
        "additionalContext":"rewritten by hook"}})
    .to_string();
    let path = write_session(
        dir.path(),
        &[
            user("u1", "say A"),
            tool_use("a1", "toolu_rw", "echo A"),
            attachment(
                "t1",
                serde_json::json!({"type":"hook_success","hookName":"PreToolUse:Bash",
                "hookEvent":"PreToolUse","toolUseID":"toolu_rw","stdout":stdout,"stderr":"",
                "exitCode":0,"command":"./rewrite.sh","durationMs":7}),
            ),
            attachment(
                "t2",
                serde_json::json!({"type":"hook_additional_context","hookName":"PreToolUse:Bash",
                "hookEvent":"PreToolUse","toolUseID":"toolu_rw","content":["rewritten by hook"]}),
            ),
            tool_result("r1", "toolu_rw", "B", false),
        ],
    );
    let s = load_session(&path, &[]).expect("load");
    let acts = all(&s);
    assert_eq!(acts.len(), 1);
    let rw = acts[0];
    assert_eq!(rw.action, HookAction::Rewrote);
    assert_eq!(rw.lines, vec![3, 4]);
    assert_eq!(rw.call_line, Some(2));
    assert_eq!(rw.decision.as_deref(), Some("allow"));
    assert_eq!(rw.context, vec!["rewritten by hook".to_string()]);
    assert_eq!(
        rw.what(80),
        "input rewritten by hook: echo A → echo B".to_string()
    );
    assert_eq!((rw.exit_code, rw.duration_ms), (Some(0), Some(7)));
}

/// x4-style: a Stop hook exiting 1 with plain stdout gives a
/// hook_non_blocking_error ("Failed with non-blocking status code: No
/// stderr output") whose stdout and exitCode are kept, merged with its
/// stop_hook_summary into one failed firing.
#[test]
fn a_failed_stop_hook_keeps_stdout_and_exit_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_session(
        dir.path(),
        &[
            user("u1", "hi"),
            attachment(
                "t1",
                serde_json::json!({"type":"hook_non_blocking_error","hookName":"Stop",
                "hookEvent":"Stop","toolUseID":"stop-1",
                "stderr":"Failed with non-blocking status code: No stderr output",
                "stdout":"tests not run\n","exitCode":1,"command":"./stop.sh","durationMs":12}),
            ),
            serde_json::json!({"type":"system","subtype":"stop_hook_summary","uuid":"s1","toolUseID":"stop-1",
                "hookCount":1,"hookInfos":[{"command":"./stop.sh","durationMs":12}],
                "hookErrors":["Failed with non-blocking status code: No stderr output"],
                "failedHookErrorIndexes":[0],"preventedContinuation":false}),
        ],
    );
    let s = load_session(&path, &[]).expect("load");
    let acts = all(&s);
    assert_eq!(acts.len(), 1);
    let a = acts[0];
    assert_eq!(a.action, HookAction::Failed);
    assert_eq!(a.lines, vec![2, 3]);
    assert_eq!(a.stdout.as_deref(), Some("tests not run\n"));
    assert_eq!(a.exit_code, Some(1));
    assert_eq!(a.command.as_deref(), Some("./stop.sh"));
    assert_eq!(a.handlers.len(), 1);
}

/// Bad shapes: fields of the wrong type, an attachment without a type, an
/// unknown hook_ type, a prompt blocked by a hook, repeated ids. Nothing
/// panics and each record keeps what it can.
#[test]
fn hostile_hook_records_load() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_session(
        dir.path(),
        &[
            user("u1", "go"),
            attachment(
                "t0",
                serde_json::json!({"type":"hook_success","hookName":7,"exitCode":"x",
                "stdout":{"a":1},"durationMs":-3}),
            ),
            attachment("t1", serde_json::json!({"hookName":"PreToolUse:Bash"})),
            attachment(
                "t2",
                serde_json::json!({"type":"hook_teleported","hookEvent":"Setup"}),
            ),
            tool_use("a1", "toolu_dup", "echo 1"),
            tool_result(
                "r1",
                "toolu_dup",
                "PreToolUse:Bash hook error: [x]: no",
                true,
            ),
            tool_use("a2", "toolu_dup", "echo 2"),
            tool_result(
                "r2",
                "toolu_dup",
                "PreToolUse:Bash hook error: no again",
                true,
            ),
            serde_json::json!({"type":"system","subtype":"informational","uuid":"s9",
                "content":"UserPromptSubmit operation blocked by hook: secrets in prompt"}),
            serde_json::json!({"type":"system","subtype":"stop_hook_summary","uuid":"s1",
                "hookInfos":"nope","hookErrors":[1, {"x":2}],"preventedContinuation":"yes"}),
        ],
    );
    let s = load_session(&path, &[]).expect("load");
    let got: Vec<(String, HookAction, Option<usize>)> = all(&s)
        .iter()
        .map(|a| (a.event_name().to_string(), a.action, a.call_line))
        .collect();
    assert_eq!(
        got,
        vec![
            ("hook".to_string(), HookAction::Succeeded, None),
            ("Setup".to_string(), HookAction::Other, None),
            ("PreToolUse".to_string(), HookAction::Blocked, Some(5)),
            ("PreToolUse".to_string(), HookAction::Blocked, Some(7)),
            ("UserPromptSubmit".to_string(), HookAction::Blocked, None),
            ("Stop".to_string(), HookAction::Blocked, None),
        ]
    );
    let acts = all(&s);
    assert_eq!(acts[0].exit_code, None);
    assert_eq!(acts[0].duration_ms, None);
    assert_eq!(acts[4].reason.as_deref(), Some("secrets in prompt"));
    // The two calls sharing an id each get their own block.
    assert_eq!(acts[2].command.as_deref(), Some("x"));
    assert_eq!(acts[3].command, None);
}

// ---- search: the find_tool_calls extensions (hook, blocked, rewritten) ----

fn find(dir: &Path, args: Value) -> hookscope_core::query::FindResult {
    let found = discover(&[dir.to_path_buf()]).expect("discover");
    let params = hookscope_core::query::FindParams::from_json(&args).expect("params");
    hookscope_core::query::find_tool_calls(&found.sessions, &params, chrono::Utc::now())
        .expect("find")
}

/// Over the whole real-cc-2.1.332 corpus exactly three calls were blocked
/// by a hook, all on PreToolUse: the c2 and c3 `rm -rf` Bash calls
/// (recounted above) and c8's `git push`, whose `ask` was denied; three
/// were rewritten (c8's `npm test`: twice on the main thread, once in its
/// subagent); one was objected to after it ran (c8's `git commit`, a
/// PostToolUse block: not a block). PreToolUse:Bash firings are on those
/// six calls.
#[test]
fn find_extensions_over_the_corpus() {
    let root = capture("");
    let ids = |r: &hookscope_core::query::FindResult| -> Vec<String> {
        let mut v: Vec<String> = r.records.iter().map(|c| c.tool_use_id.clone()).collect();
        v.sort();
        v
    };
    let blocked = find(
        &root,
        serde_json::json!({"tool_name_pattern": "", "blocked": true, "limit": 1000}),
    );
    assert_eq!(
        ids(&blocked),
        vec![
            "toolu_0138h77ojpT1t3A4y1yWKgjr".to_string(),
            "toolu_01GFEgALJm405nI2WctBocud".to_string(),
            // c8's git push: the hook asked, `-p` could not, so it was denied.
            "toolu_01RQ1iz1XkupduEYRX4OQTB2".to_string()
        ]
    );
    let push = blocked
        .records
        .iter()
        .find(|r| r.tool_use_id == "toolu_01RQ1iz1XkupduEYRX4OQTB2")
        .expect("git push");
    assert_eq!(push.hook_activity[0]["decision"], "ask");
    for r in &blocked.records {
        assert_eq!(r.hook_activity.len(), 1);
        assert_eq!(r.hook_activity[0]["action"], "blocked");
        assert_eq!(r.hook_activity[0]["event"], "PreToolUse");
    }
    let by_event = find(
        &root,
        serde_json::json!({"tool_name": "bash", "hook": "pretooluse:BASH", "limit": 1000}),
    );
    assert_eq!(
        ids(&by_event),
        [
            "toolu_0138h77ojpT1t3A4y1yWKgjr",
            "toolu_01GFEgALJm405nI2WctBocud",
            "toolu_01RQ1iz1XkupduEYRX4OQTB2",
            "toolu_01hUUq7UMddXRLpTg3Awlk0I",
            "toolu_01nvm3CN5NFLf9sPJMPbmfC7",
            "toolu_01vq6XYqKC726Lel5pjPIG4c"
        ]
    );
    let flagged = find(
        &root,
        serde_json::json!({"tool_name_pattern": "", "flagged": true, "limit": 1000}),
    );
    assert_eq!(ids(&flagged), ["toolu_01JYsjuviVGcRZXGMMJG1GMh"]);
    assert_eq!(flagged.records[0].hook_activity[0]["action"], "flagged");
    assert_eq!(flagged.records[0].hook_activity[0]["event"], "PostToolUse");
    let not_flagged = find(
        &root,
        serde_json::json!({"tool_name": "Bash", "hook": "PostToolUse", "flagged": false, "limit": 1000}),
    );
    assert!(
        !ids(&not_flagged).contains(&"toolu_01JYsjuviVGcRZXGMMJG1GMh".to_string()),
        "flagged=false leaves the objected-to call out"
    );
    let stop = find(
        &root,
        serde_json::json!({"tool_name_pattern": "", "hook": "Stop", "limit": 1000}),
    );
    assert_eq!(stop.records.len(), 0, "Stop firings are not on calls");
    let rewritten = find(
        &root,
        serde_json::json!({"tool_name_pattern": "", "rewritten": true, "limit": 1000}),
    );
    for r in &rewritten.records {
        assert_eq!(r.summary_with_rewrite(), "npm test → npm test -- --silent");
    }
    assert_eq!(
        ids(&rewritten),
        [
            "toolu_01hUUq7UMddXRLpTg3Awlk0I",
            "toolu_01nvm3CN5NFLf9sPJMPbmfC7",
            "toolu_01vq6XYqKC726Lel5pjPIG4c"
        ]
    );
    // A record without hook activity has no hook_activity key (seed shape).
    let plain = find(
        &capture("tools"),
        serde_json::json!({"tool_name": "Bash", "limit": 1}),
    );
    let json = serde_json::to_value(&plain.records[0]).expect("json");
    assert!(json.get("hook_activity").is_none(), "{json}");
}

#[test]
fn find_rewritten_returns_the_rewrite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let stdout = serde_json::json!({"hookSpecificOutput":{"hookEventName":"PreToolUse",
        "updatedInput":{"command":"echo B"}}})
    .to_string();
    write_session(
        dir.path(),
        &[
            user("u1", "say A"),
            tool_use("a1", "toolu_rw", "echo A"),
            attachment(
                "t1",
                serde_json::json!({"type":"hook_success","hookName":"PreToolUse:Bash",
                "hookEvent":"PreToolUse","toolUseID":"toolu_rw","stdout":stdout,"exitCode":0,
                "command":"./rewrite.sh"}),
            ),
            tool_result("r1", "toolu_rw", "B", false),
            tool_use("a2", "toolu_plain", "echo C"),
            tool_result("r2", "toolu_plain", "C", false),
        ],
    );
    let r = find(
        dir.path(),
        serde_json::json!({"tool_name": "Bash", "rewritten": true}),
    );
    assert_eq!(r.records.len(), 1);
    let rec = &r.records[0];
    assert_eq!(rec.tool_use_id, "toolu_rw");
    assert_eq!(rec.input["command"], "echo A");
    assert_eq!(rec.hook_activity[0]["rewrite"]["from"]["command"], "echo A");
    assert_eq!(rec.hook_activity[0]["rewrite"]["to"]["command"], "echo B");
    // The one-line summary (find's table, the Calls view) says both sides.
    assert_eq!(rec.summary(), "echo A");
    assert_eq!(rec.summary_with_rewrite(), "echo A → echo B");
    let not = find(
        dir.path(),
        serde_json::json!({"tool_name": "Bash", "rewritten": false}),
    );
    assert_eq!(not.records.len(), 1);
    assert_eq!(not.records[0].tool_use_id, "toolu_plain");
}

/// C7-style (hand-made, the corpus has no C7 transcript): a PostToolUse
/// `decision: block` gives hook_blocking_error + hook_additional_context
/// on the call, one blocked firing; the tool result itself is unchanged.
/// A `hook_permission_decision` and a `hook_cancelled` are kept with their
/// kinds.
#[test]
fn posttooluse_block_and_other_hook_kinds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_session(
        dir.path(),
        &[
            user("u1", "ls"),
            tool_use("a1", "toolu_p", "ls"),
            tool_result("r1", "toolu_p", "a b", false),
            attachment(
                "t1",
                serde_json::json!({"type":"hook_blocking_error","hookName":"PostToolUse:Bash",
                "hookEvent":"PostToolUse","toolUseID":"toolu_p",
                "blockingError":{"blockingError":"listing is not allowed","command":"./post.sh"}}),
            ),
            attachment(
                "t2",
                serde_json::json!({"type":"hook_additional_context","hookName":"PostToolUse:Bash",
                "hookEvent":"PostToolUse","toolUseID":"toolu_p","content":["see policy"]}),
            ),
            tool_use("a2", "toolu_q", "pwd"),
            attachment(
                "t3",
                serde_json::json!({"type":"hook_permission_decision","hookName":"PreToolUse:Bash",
                "hookEvent":"PreToolUse","toolUseID":"toolu_q","decision":"ask","reason":"confirm"}),
            ),
            attachment(
                "t4",
                serde_json::json!({"type":"hook_cancelled","hookName":"PreToolUse:Bash",
                "hookEvent":"PreToolUse","toolUseID":"toolu_q","command":"./slow.sh"}),
            ),
        ],
    );
    let s = load_session(&path, &[]).expect("load");
    let acts = all(&s);
    let got: Vec<(String, HookAction, Vec<usize>, Option<usize>)> = acts
        .iter()
        .map(|a| {
            (
                a.event_name().to_string(),
                a.action,
                a.lines.clone(),
                a.call_line,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                // The call had run: the block only objected.
                "PostToolUse".to_string(),
                HookAction::Flagged,
                vec![4, 5],
                Some(2)
            ),
            (
                "PreToolUse".to_string(),
                HookAction::PermissionDecision,
                vec![7],
                Some(6)
            ),
            (
                "PreToolUse".to_string(),
                HookAction::Cancelled,
                vec![8],
                Some(6)
            ),
        ]
    );
    assert_eq!(acts[0].reason.as_deref(), Some("listing is not allowed"));
    assert_eq!(acts[0].command.as_deref(), Some("./post.sh"));
    assert_eq!(acts[0].context, vec!["see policy".to_string()]);
    assert_eq!(acts[1].decision.as_deref(), Some("ask"));
    assert_eq!(acts[1].what(80), "permission ask by hook: confirm");
    // The call's result is what the tool returned.
    let call = s.tool_calls().next().expect("call");
    assert_eq!(call.result.as_ref().map(|r| r.text.as_str()), Some("a b"));
}

/// A tool result line with `permissionDecision` `decision`.
fn decided_result(uuid: &str, id: &str, text: &str, decision: Value) -> Value {
    let mut line = tool_result(uuid, id, text, true);
    line["permissionDecision"] = decision;
    line
}

/// The tool result's `permissionDecision` turns a hook's `ask` into a
/// block only when it names a hook (`reasonCode: hook:<Event>` or `source:
/// hook`): an `ask` a person or a rule rejected stays an ask; a hook
/// rejection with no firing recorded gets one; a second result for the
/// same id and odd decisions (not an object, `hook:` with no event, a
/// number) add nothing.
#[test]
fn an_ask_rejected_for_its_hook_is_a_block() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ask = |uuid: &str, id: &str| {
        attachment(
            uuid,
            serde_json::json!({"type":"hook_permission_decision","hookName":"PreToolUse:Bash",
            "hookEvent":"PreToolUse","toolUseID":id,"decision":"ask","reason":"confirm"}),
        )
    };
    let by_hook =
        serde_json::json!({"decision":"reject","source":"config","reasonCode":"hook:PreToolUse"});
    let path = write_session(
        dir.path(),
        &[
            user("u1", "go"),
            // 2-4: asked, then rejected for the hook.
            tool_use("a1", "toolu_a", "git push"),
            ask("t1", "toolu_a"),
            decided_result("r1", "toolu_a", "confirm", by_hook.clone()),
            // 5-7: asked, then rejected by a rule: stays an ask.
            tool_use("a2", "toolu_b", "git push -f"),
            ask("t2", "toolu_b"),
            decided_result(
                "r2",
                "toolu_b",
                "denied",
                serde_json::json!({"decision":"reject","source":"config","reasonType":"rule"}),
            ),
            // 8-9: rejected for a hook nothing else records.
            tool_use("a3", "toolu_c", "rm -rf /"),
            decided_result(
                "r3",
                "toolu_c",
                "not here",
                serde_json::json!({"decision":"reject","source":"hook"}),
            ),
            // 10: a second result for toolu_c: nothing more.
            decided_result("r4", "toolu_c", "again", by_hook.clone()),
            // 11-12: odd decisions.
            tool_use("a4", "toolu_d", "ls"),
            decided_result("r5", "toolu_d", "x", serde_json::json!("reject")),
            // 13-14.
            tool_use("a5", "toolu_e", "ls"),
            decided_result(
                "r6",
                "toolu_e",
                "x",
                serde_json::json!({"decision":"reject","reasonCode":"hook:"}),
            ),
            // 15-16.
            tool_use("a6", "toolu_f", "ls"),
            decided_result(
                "r7",
                "toolu_f",
                "x",
                serde_json::json!({"decision":7,"reasonCode":"hook:PreToolUse"}),
            ),
        ],
    );
    let s = load_session(&path, &[]).expect("load");
    let acts = all(&s);
    /// tool_use_id, action, lines, decision.
    type Row<'a> = (Option<&'a str>, HookAction, Vec<usize>, Option<&'a str>);
    let got: Vec<Row> = acts
        .iter()
        .map(|a| {
            (
                a.tool_use_id.as_deref(),
                a.action,
                a.lines.clone(),
                a.decision.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                Some("toolu_a"),
                HookAction::Blocked,
                vec![3, 4],
                Some("ask")
            ),
            (
                Some("toolu_b"),
                HookAction::PermissionDecision,
                vec![6],
                Some("ask")
            ),
            (Some("toolu_c"), HookAction::Blocked, vec![9], None),
        ]
    );
    assert_eq!(acts[0].what(80), "asked by hook, then denied: confirm");
    assert_eq!(acts[2].what(80), "blocked by hook: not here");
    assert_eq!(acts[2].event_name(), "PreToolUse");
}

// ---- hooks_c8_outcomes: every firing as the hook answered ----------------

/// hooks_c8_outcomes (one file, three processes; its README says what
/// happened where), every firing read against `_responses.jsonl`: the
/// rewrite (main thread twice, subagent once), the PostToolUse context, the
/// PostToolUse block that only objected (the commit ran), the Stop block
/// and the Stop after it, the rejected prompt (handler and exit code read
/// from the `[…]` prefix, the reason without it), the prompt's context and
/// the `ask`.
#[test]
fn c8_every_firing_reads_as_the_hook_answered() {
    let name = "hooks_c8_outcomes";
    let s = load_capture(name);
    let rows = responses(name);
    let handler = |h: &str, e: &str| format!("python3 /home/dev/.hooks/hook8.py {name} {e} {h}");
    assert_eq!(
        summary(&s),
        vec![
            ("PreToolUse".to_string(), HookAction::Rewrote, vec![24, 25]),
            (
                "PostToolUse".to_string(),
                HookAction::AddedContext,
                vec![35, 36]
            ),
            ("PostToolUse".to_string(), HookAction::Flagged, vec![45]),
            ("Stop".to_string(), HookAction::Blocked, vec![58, 59, 60]),
            ("Stop".to_string(), HookAction::Succeeded, vec![71]),
            (
                "UserPromptSubmit".to_string(),
                HookAction::Blocked,
                vec![76]
            ),
            (
                "UserPromptSubmit".to_string(),
                HookAction::AddedContext,
                vec![83]
            ),
            ("PreToolUse".to_string(), HookAction::Rewrote, vec![88, 89]),
            // The ask, then denied: the result line's permissionDecision
            // (`reasonCode: hook:PreToolUse`) makes it a block.
            ("PreToolUse".to_string(), HookAction::Blocked, vec![94, 95]),
            ("Stop".to_string(), HookAction::Succeeded, vec![98]),
            // The subagent's file.
            ("PreToolUse".to_string(), HookAction::Rewrote, vec![16, 17]),
        ]
    );
    let acts = all(&s);
    let rewrite = stdout_json(response_for(&rows, "PreToolUse"));
    for i in [0, 7, 10] {
        let rw = acts[i].rewrite.as_ref().expect("rewrite");
        assert_eq!(rw.to, rewrite["hookSpecificOutput"]["updatedInput"]);
        assert_eq!(
            rw.from.as_ref().map(|f| f["command"].clone()),
            Some("npm test".into())
        );
        assert_eq!(
            acts[i].command.as_deref(),
            Some(handler("bash_rewrite", "PreToolUse").as_str())
        );
    }
    let commit = rows
        .iter()
        .find(|r| r["handler"] == "commit_block")
        .expect("commit_block");
    assert_eq!(
        acts[2].reason.as_deref(),
        stdout_json(commit)["reason"].as_str()
    );
    assert_eq!(
        acts[2].what(200),
        format!(
            "objected after it ran: {}",
            stdout_json(commit)["reason"].as_str().unwrap_or("")
        )
    );
    let gate = rows
        .iter()
        .find(|r| r["handler"] == "prompt_gate" && r["exit"] == 2)
        .expect("prompt_gate exit 2");
    assert_eq!(acts[5].reason.as_deref(), gate["stderr"].as_str());
    assert_eq!(acts[5].exit_code, Some(2));
    assert_eq!(
        acts[5].command.as_deref(),
        Some(handler("prompt_gate", "UserPromptSubmit").as_str())
    );
    assert_eq!(acts[5].turn, 1, "the rejected prompt's own turn");
    let ask = rows
        .iter()
        .find(|r| r["handler"] == "push_ask")
        .expect("push_ask");
    assert_eq!(acts[8].decision.as_deref(), Some("ask"));
    let asked_why = stdout_json(ask)["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .map(str::to_string);
    assert_eq!(acts[8].reason, asked_why);
    assert_eq!(
        acts[8].what(200),
        format!(
            "asked by hook, then denied: {}",
            asked_why.unwrap_or_default()
        )
    );
    assert_eq!(
        acts[8].kinds,
        ["attachment/hook_success", "tool_result/permissionDecision"]
    );
    // The turns: the rejected prompt is a turn that never started.
    let turns: Vec<(bool, usize, Option<usize>)> = s
        .turns
        .iter()
        .map(|t| (t.rejected, t.tool_calls().count(), t.prompt_line))
        .collect();
    // Turn 1: npm test, Read, Edit, git commit, git log, Agent, npm run lint.
    assert_eq!(
        turns,
        [
            (false, 7, Some(3)),
            (true, 0, Some(76)),
            (false, 2, Some(82))
        ]
    );
    assert_eq!(
        s.turns[1].prompt,
        "[scenario:c8b] Clean up the database: DROP TABLE users; then recreate it empty."
    );
    assert_eq!(s.prompt_turns(), 2);
    // What ran: the rewrite's input on the three calls, nothing else.
    let ran: Vec<(&str, Option<&str>)> = s
        .all_tool_calls()
        .filter_map(|(t, r)| {
            s.ran_input(t, r)
                .map(|v| (r.tool_use_id.as_str(), v["command"].as_str()))
        })
        .collect();
    assert_eq!(
        ran,
        [
            (
                "toolu_01hUUq7UMddXRLpTg3Awlk0I",
                Some("npm test -- --silent")
            ),
            (
                "toolu_01nvm3CN5NFLf9sPJMPbmfC7",
                Some("npm test -- --silent")
            ),
            (
                "toolu_01vq6XYqKC726Lel5pjPIG4c",
                Some("npm test -- --silent")
            ),
        ]
    );
    // Three processes wrote the file: a run ends at each cost-state line.
    assert_eq!(s.lines.run_ends, [73, 79, 100]);
    assert_eq!(s.lines.run_starts, [76, 82]);
}

// ---- hostile: rejected prompts, handler prefixes, rewrites, processes -----

fn system(uuid: &str, content: &str, extra: Value) -> Value {
    let mut v = serde_json::json!({"type":"system","subtype":"informational","uuid":uuid,"content":content});
    if let (Value::Object(m), Value::Object(x)) = (&mut v, extra) {
        m.extend(x);
    }
    v
}

fn load_lines(lines: &[Value]) -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_session(dir.path(), lines);
    let s = load_session(&path, &[]).expect("load");
    (dir, s)
}

/// Rejection records of odd shapes: no handler, an unclosed bracket, a
/// reason that itself says `Original prompt:`, a reason that is not a
/// string, a 1 MB prompt, another event's `operation blocked` (not a
/// prompt). Each loads; only the prompt events make turns.
#[test]
fn rejected_prompt_records_of_odd_shapes() {
    let big = "x".repeat(1 << 20);
    let (_d, s) = load_lines(&[
        user("u1", "first"),
        system(
            "s1",
            "UserPromptSubmit operation blocked by hook:",
            serde_json::json!({}),
        ),
        system(
            "s2",
            "UserPromptSubmit operation blocked by hook:\n[unclosed: no\n\nOriginal prompt: p2",
            serde_json::json!({}),
        ),
        system(
            "s3",
            "UserPromptSubmit operation blocked by hook:\n[gate.sh]: say Original prompt: here\n\nOriginal prompt: p3\n\nOriginal prompt: q",
            serde_json::json!({"promptSubmitEnding":{"ending":{"kind":"blocked_by_hook","reason":"say Original prompt: here"}}}),
        ),
        system(
            "s4",
            &format!("UserPromptSubmit operation blocked by hook:\nno\n\nOriginal prompt: {big}"),
            serde_json::json!({"promptSubmitEnding":{"ending":{"kind":"blocked_by_hook","reason":7}}}),
        ),
        system(
            "s5",
            "PreCompact operation blocked by hook: not now",
            serde_json::json!({}),
        ),
    ]);
    let rejected: Vec<(String, usize)> = s
        .turns
        .iter()
        .filter(|t| t.rejected)
        .map(|t| (t.prompt.chars().take(8).collect(), t.prompt.len()))
        .collect();
    assert_eq!(
        rejected,
        [
            (String::new(), 0),
            ("p2".to_string(), 2),
            ("p3\n\nOrig".to_string(), 22),
            ("xxxxxxxx".to_string(), 1 << 20),
        ]
    );
    type Read = (String, Option<String>, Option<i64>, Option<String>);
    let acts: Vec<Read> = all(&s)
        .iter()
        .map(|a| {
            (
                a.event_name().to_string(),
                a.command.clone(),
                a.exit_code,
                a.reason.as_ref().map(|r| r.chars().take(30).collect()),
            )
        })
        .collect();
    assert_eq!(
        acts,
        [
            ("UserPromptSubmit".to_string(), None, None, None),
            (
                "UserPromptSubmit".to_string(),
                None,
                None,
                Some("[unclosed: no".to_string())
            ),
            (
                "UserPromptSubmit".to_string(),
                Some("gate.sh".to_string()),
                Some(2),
                Some("say Original prompt: here".to_string())
            ),
            (
                "UserPromptSubmit".to_string(),
                None,
                None,
                Some("no".to_string())
            ),
            (
                "PreCompact".to_string(),
                None,
                None,
                Some("not now".to_string())
            ),
        ]
    );
    assert_eq!(s.prompt_turns(), 1);
}

/// A rewrite that did not run (the call was denied, or has no result), an
/// `updatedInput` that is not an object, and a rewrite naming no call: no
/// input ran rewritten.
#[test]
fn rewrites_that_did_not_run_are_not_what_ran() {
    let rw = |to: Value| {
        serde_json::json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":to}})
            .to_string()
    };
    let att = |uuid: &str, id: &str, stdout: String| {
        attachment(
            uuid,
            serde_json::json!({"type":"hook_success","hookName":"PreToolUse:Bash","hookEvent":"PreToolUse",
                "toolUseID":id,"stdout":stdout,"exitCode":0,"command":"h.sh"}),
        )
    };
    let mut denied = tool_result("r1", "t1", "no", true);
    denied["permissionDecision"] = serde_json::json!({"decision":"reject","source":"hook"});
    let (_d, s) = load_lines(&[
        user("u1", "go"),
        tool_use("a1", "t1", "rm -rf x"),
        att("h1", "t1", rw(serde_json::json!({"command":"echo denied"}))),
        denied,
        tool_use("a2", "t2", "ls"),
        att("h2", "t2", rw(serde_json::json!({"command":"echo cut"}))),
        tool_use("a3", "t3", "pwd"),
        att("h3", "t3", rw(serde_json::json!("not an object"))),
        tool_result("r3", "t3", "/", false),
        att(
            "h4",
            "t-none",
            rw(serde_json::json!({"command":"echo orphan"})),
        ),
    ]);
    let ran: Vec<&str> = s
        .all_tool_calls()
        .filter(|(t, r)| s.ran_input(*t, r).is_some())
        .map(|(_, r)| r.tool_use_id.as_str())
        .collect();
    assert!(ran.is_empty(), "{ran:?}");
    assert_eq!(
        s.all_tool_calls()
            .map(|(t, r)| s.summary_as_ran(t, r))
            .collect::<Vec<_>>(),
        ["rm -rf x", "ls", "pwd"]
    );
}

/// Handler prefixes that are not one: `[]: x`, a line break inside the
/// brackets; nested brackets keep the first pair.
#[test]
fn handler_prefixes_are_read_only_when_whole() {
    use hookscope_core::transcript::hook_activity::split_handler_prefix;
    assert_eq!(split_handler_prefix("[a.sh]: no"), (Some("a.sh"), "no"));
    assert_eq!(split_handler_prefix("[a]: [b]: c"), (Some("a"), "[b]: c"));
    assert_eq!(split_handler_prefix("[]: x"), (None, "[]: x"));
    assert_eq!(split_handler_prefix("[a\nb]: x"), (None, "[a\nb]: x"));
    assert_eq!(
        split_handler_prefix("[a.sh] no colon"),
        (None, "[a.sh] no colon")
    );
    assert_eq!(split_handler_prefix(""), (None, ""));
}

/// 3,000 processes in one file (a `cost-state` after each one-prompt run)
/// and SessionStart records of odd sources: one SessionStart per process,
/// `resume` after the first, a named source taken only when Claude Code
/// names it (a made-up `SessionStart:evil$(x)` is ignored).
#[test]
fn many_processes_each_start_once() {
    let mut lines = Vec::new();
    for k in 0..3000 {
        lines.push(user(&format!("u{k}"), &format!("prompt {k}")));
        lines.push(serde_json::json!({"type":"assistant","uuid":format!("a{k}"),
            "message":{"id":format!("m{k}"),"role":"assistant","content":[{"type":"text","text":"ok"}]}}));
        lines.push(serde_json::json!({"type":"cost-state"}));
    }
    lines.insert(
        0,
        attachment(
            "ss",
            serde_json::json!({"type":"hook_success","hookName":"SessionStart:evil$(x)","hookEvent":"SessionStart","stdout":"hi"}),
        ),
    );
    let (_d, s) = load_lines(&lines);
    let starts = hookscope_core::hooks::events::all_payloads(
        &s,
        hookscope_core::hooks::events::EventName::SessionStart,
    );
    assert_eq!(starts.len(), 3000);
    assert_eq!(starts[0].json["source"], "startup");
    assert!(starts[1..].iter().all(|p| p.json["source"] == "resume"));
    let ends = hookscope_core::hooks::events::all_payloads(
        &s,
        hookscope_core::hooks::events::EventName::SessionEnd,
    );
    assert_eq!(ends.len(), 3000);
}
