//! A Claude Code Bash result holds its output twice on its line: in the
//! `tool_result` content and in `toolUseResult.stdout` (docs/benchmarks.md#heavy-user-benchmark: the
//! 301 MB session has ten such 10 MB lines). The loader keeps it once, in
//! `ToolResult::text`; these tests pin which copy is kept, that the
//! verbatim `toolUseResult` still comes back (rebuilt PostToolUse
//! `tool_response`), and that `find --output-contains` still sees text that
//! is only in a 10 MB output.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use hookscope_core::hooks::events::{EventName, all_payloads};
use hookscope_core::query::{FindParams, find_tool_calls};
use hookscope_core::transcript::{Session, discover, load};
use serde_json::{Value, json};

use crate::support::write_jsonl;

const SESSION_ID: &str = "5b0e7a52-1f8e-4c36-9d51-0c2f3a9e7b11";

/// 10 MiB of output whose last line is the only place `needle-in-the-output`
/// occurs.
fn big_output() -> String {
    let tail = "\nneedle-in-the-output";
    let mut out = "x".repeat(10 * 1024 * 1024 - tail.len());
    out.push_str(tail);
    out
}

fn envelope(
    kind: &str,
    uuid: &str,
    parent: Option<&str>,
    ts: &str,
) -> serde_json::Map<String, Value> {
    let v = json!({
        "parentUuid": parent,
        "isSidechain": false,
        "userType": "external",
        "cwd": "/tmp/big",
        "sessionId": SESSION_ID,
        "version": "1.0.98",
        "gitBranch": "",
        "type": kind,
        "uuid": uuid,
        "timestamp": ts,
    });
    match v {
        Value::Object(map) => map,
        _ => unreachable!("an object literal"),
    }
}

/// The session's lines: a prompt, then two Bash calls each with its result:
/// `toolu_big` (content = `toolUseResult.stdout` = `output`) and `toolu_err`
/// (content `out\nerr` beside `stdout: "out"`, `stderr: "err"`). Returns the
/// lines and the two `toolUseResult` values as written.
fn lines(output: &str) -> (Vec<Value>, Value, Value) {
    let mut prompt = envelope("user", "u1", None, "2025-09-03T00:00:00.000Z");
    prompt.insert(
        "message".into(),
        json!({"role": "user", "content": "run it"}),
    );
    let call = |id: &str, uuid: &str, parent: &str, command: &str, ts: &str| {
        let mut v = envelope("assistant", uuid, Some(parent), ts);
        v.insert(
            "message".into(),
            json!({
                "id": format!("msg_{id}"), "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-20250514",
                "content": [{"type": "tool_use", "id": id, "name": "Bash",
                             "input": {"command": command, "description": "d"}}],
                "usage": {"input_tokens": 1, "output_tokens": 1}
            }),
        );
        Value::Object(v)
    };
    let result = |id: &str, uuid: &str, parent: &str, text: &str, tur: &Value, ts: &str| {
        let mut v = envelope("user", uuid, Some(parent), ts);
        v.insert(
            "message".into(),
            json!({"role": "user", "content": [
                {"tool_use_id": id, "type": "tool_result", "content": text, "is_error": false}
            ]}),
        );
        v.insert("toolUseResult".into(), tur.clone());
        Value::Object(v)
    };
    let big_tur = json!({"stdout": output, "stderr": "", "interrupted": false, "isImage": false});
    let err_tur = json!({"stdout": "out", "stderr": "err", "interrupted": false, "isImage": false});
    let lines = vec![
        Value::Object(prompt),
        call(
            "toolu_big",
            "a1",
            "u1",
            "yes x | head",
            "2025-09-03T00:00:01.000Z",
        ),
        result(
            "toolu_big",
            "r1",
            "a1",
            output,
            &big_tur,
            "2025-09-03T00:00:02.000Z",
        ),
        call("toolu_err", "a2", "r1", "make", "2025-09-03T00:00:03.000Z"),
        result(
            "toolu_err",
            "r2",
            "a2",
            "out\nerr",
            &err_tur,
            "2025-09-03T00:00:04.000Z",
        ),
    ];
    (lines, big_tur, err_tur)
}

/// Writes the session under `dir/projects/-tmp-big/` and returns that folder.
fn write_session(dir: &Path, lines: &[Value]) -> PathBuf {
    let project = dir.join("projects").join("-tmp-big");
    write_jsonl(project.join(format!("{SESSION_ID}.jsonl")), lines);
    project
}

fn load_one(project: &Path) -> Session {
    let found = discover(&[project.to_path_buf()]).expect("discover");
    assert_eq!(found.sessions.len(), 1);
    load(&found.sessions[0]).expect("load")
}

#[test]
fn a_ten_megabyte_bash_output_is_kept_once_in_the_result_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = big_output();
    let (lines, big_tur, err_tur) = lines(&output);
    let session = load_one(&write_session(dir.path(), &lines));
    assert!(session.diagnostics.is_empty(), "{:?}", session.diagnostics);
    let calls: Vec<_> = session.tool_calls().collect();
    assert_eq!(calls.len(), 2);

    let big = calls[0].result.as_ref().expect("result of toolu_big");
    // The copy kept is the tool_result content, exactly.
    assert_eq!(big.text, output);
    // toolUseResult.stdout was the same bytes: left out (null, key order kept).
    assert!(big.stdout_is_text);
    assert_eq!(
        serde_json::to_string(&big.tool_use_result).expect("serialize"),
        r#"{"stdout":null,"stderr":"","interrupted":false,"isImage":false}"#
    );
    // ...and put back, byte for byte, where the value as written is asked for.
    let verbatim = big.tool_use_result_verbatim().expect("toolUseResult");
    assert_eq!(
        serde_json::to_string(verbatim.as_ref()).expect("serialize"),
        serde_json::to_string(&big_tur).expect("serialize")
    );
    // The result serializes as before: toolUseResult verbatim, no new key.
    let serialized = serde_json::to_value(big).expect("serialize");
    assert_eq!(serialized["tool_use_result"], big_tur);
    assert_eq!(
        serialized
            .as_object()
            .expect("object")
            .keys()
            .collect::<Vec<_>>(),
        [
            "text",
            "is_error",
            "tool_use_result",
            "timestamp",
            "line",
            "agent_id"
        ]
    );

    // stdout differs from the text (stderr is in the text too): verbatim.
    let err = calls[1].result.as_ref().expect("result of toolu_err");
    assert_eq!(err.text, "out\nerr");
    assert!(!err.stdout_is_text);
    assert_eq!(err.tool_use_result.as_ref(), Some(&err_tur));
}

#[test]
fn the_rebuilt_post_tool_use_response_has_the_ten_megabyte_stdout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = big_output();
    let (lines, big_tur, err_tur) = lines(&output);
    let session = load_one(&write_session(dir.path(), &lines));
    let posts = all_payloads(&session, EventName::PostToolUse);
    let responses: Vec<(&Value, String)> = posts
        .iter()
        .map(|p| {
            (
                &p.json["tool_use_id"],
                serde_json::to_string(&p.json["tool_response"]).expect("serialize"),
            )
        })
        .collect();
    assert_eq!(
        responses,
        vec![
            (
                &json!("toolu_big"),
                serde_json::to_string(&big_tur).expect("serialize")
            ),
            (
                &json!("toolu_err"),
                serde_json::to_string(&err_tur).expect("serialize")
            ),
        ]
    );
}

#[test]
fn find_output_contains_sees_text_only_in_a_ten_megabyte_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = big_output();
    let (lines, _, _) = lines(&output);
    let project = write_session(dir.path(), &lines);
    let sessions = discover(&[project]).expect("discover").sessions;
    let now: DateTime<Utc> = DateTime::parse_from_rfc3339("2025-09-04T00:00:00Z")
        .expect("time")
        .with_timezone(&Utc);
    let params = FindParams {
        tool_name: Some("Bash".to_string()),
        output_contains: Some("needle-in-the-output".to_string()),
        ..FindParams::default()
    };
    let found = find_tool_calls(&sessions, &params, now).expect("find");
    let ids: Vec<&str> = found
        .records
        .iter()
        .map(|r| r.tool_use_id.as_str())
        .collect();
    assert_eq!(ids, ["toolu_big"]);
}

#[test]
fn a_written_file_is_kept_once_in_the_call_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = "line\n".repeat(200_000);
    let mut prompt = envelope("user", "u1", None, "2025-09-03T00:00:00.000Z");
    prompt.insert(
        "message".into(),
        json!({"role": "user", "content": "write it"}),
    );
    let mut call = envelope("assistant", "a1", Some("u1"), "2025-09-03T00:00:01.000Z");
    call.insert(
        "message".into(),
        json!({
            "id": "msg_w", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-20250514",
            "content": [{"type": "tool_use", "id": "toolu_w", "name": "Write",
                         "input": {"file_path": "/tmp/big/a.txt", "content": file}}],
            "usage": {"input_tokens": 1, "output_tokens": 1}
        }),
    );
    let tur = json!({"type": "create", "filePath": "/tmp/big/a.txt", "content": file,
                     "structuredPatch": [], "originalFile": null});
    let mut result = envelope("user", "r1", Some("a1"), "2025-09-03T00:00:02.000Z");
    result.insert(
        "message".into(),
        json!({"role": "user", "content": [{"tool_use_id": "toolu_w", "type": "tool_result",
            "content": "File created successfully at: /tmp/big/a.txt"}]}),
    );
    result.insert("toolUseResult".into(), tur.clone());
    let lines = [prompt, call, result].map(Value::Object);
    let session = load_one(&write_session(dir.path(), &lines));
    let record = session.tool_calls().next().expect("the Write");
    let kept = record.result.as_ref().expect("its result");
    // `content` and `filePath` are the input's: kept there only.
    assert_eq!(kept.echoed_input, 0b1_0001);
    assert!(!kept.stdout_is_text);
    assert_eq!(
        serde_json::to_string(&kept.tool_use_result).expect("serialize"),
        r#"{"type":"create","filePath":null,"content":null,"structuredPatch":[],"originalFile":null}"#
    );
    assert_eq!(
        record.call.raw().and_then(|i| i.get("content")),
        Some(&json!(file))
    );
    let verbatim = record.tool_use_result_verbatim().expect("toolUseResult");
    assert_eq!(
        serde_json::to_string(verbatim.as_ref()).expect("serialize"),
        serde_json::to_string(&tur).expect("serialize")
    );
    let posts = all_payloads(&session, EventName::PostToolUse);
    assert_eq!(posts.len(), 1);
    assert_eq!(
        serde_json::to_string(&posts[0].json["tool_response"]).expect("serialize"),
        serde_json::to_string(&tur).expect("serialize")
    );
}
