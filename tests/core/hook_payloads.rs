//! Fidelity of rebuilt hook payloads: every stdin real Claude Code 2.1.332
//! sent to a hook (`tests/corpus/real-cc-2.1.332/*/hooks/<capture>/<Event>.jsonl`)
//! is rebuilt from the transcript it came from and compared field by field.
//! The per-event counts below are the README's "Hook payloads" table; a
//! change in either fails this test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookscope_core::hooks::events::{EventName, Payload, all_payloads};
use hookscope_core::transcript::{Session, discover, load};
use serde_json::Value;

use crate::support::{CORPUS, REAL_CC, corpus, write_jsonl};

/// One captured invocation.
struct Capture {
    ts: String,
    stdin: Value,
    /// The `event` and the `handler` that captured it (`""` when the
    /// capture names none).
    event: String,
    handler: String,
}

fn captures(scenario: &Path) -> Vec<Capture> {
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(scenario.join("hooks")) else {
        return out;
    };
    for dir in dirs.filter_map(Result::ok) {
        for file in std::fs::read_dir(dir.path())
            .expect("capture dir")
            .filter_map(Result::ok)
        {
            let name = file.file_name().to_string_lossy().into_owned();
            if name.starts_with('_') || !name.ends_with(".jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(file.path()).expect("capture");
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let v: Value = serde_json::from_str(line).expect("capture line");
                out.push(Capture {
                    ts: v["ts"].to_string(),
                    stdin: v["stdin"].clone(),
                    event: v["event"].as_str().unwrap_or("").to_string(),
                    handler: v["handler"].as_str().unwrap_or("").to_string(),
                });
            }
        }
    }
    // A run with several handlers on an event captured each firing once
    // per handler that ran (`handler` names it; older captures have one
    // handler and no name). Per event, keep the handler that saw the most
    // firings: `capture`, registered for every event with matcher `*`.
    let mut count: BTreeMap<(String, String), usize> = BTreeMap::new();
    for c in &out {
        *count
            .entry((c.event.clone(), c.handler.clone()))
            .or_default() += 1;
    }
    out.retain(|c| {
        let mine = count[&(c.event.clone(), c.handler.clone())];
        count
            .iter()
            .filter(|((e, _), _)| *e == c.event)
            .all(|((_, h), n)| *n < mine || (*n == mine && *h >= c.handler))
    });
    out.sort_by(|a, b| a.ts.cmp(&b.ts));
    out
}

fn session(scenario: &Path) -> Session {
    let found = discover(&[scenario.join("projects")]).expect("discover");
    assert_eq!(found.sessions.len(), 1, "{}", scenario.display());
    load(&found.sessions[0]).expect("load")
}

/// A path compared from its `projects/` component on (the corpus moved the
/// files out of `/home/dev/.claude`).
fn relocated(v: &Value) -> Value {
    match v
        .as_str()
        .and_then(|s| s.find("/projects/").map(|i| s[i..].to_string()))
    {
        Some(tail) => Value::String(tail),
        None => v.clone(),
    }
}

/// The key a capture and a rebuilt payload are paired by, `None` = by order.
fn pair_key(event: EventName, p: &Value) -> Option<String> {
    let s = |k: &str| p.get(k).map(Value::to_string).unwrap_or_default();
    match event {
        EventName::PreToolUse | EventName::PostToolUse | EventName::PostToolUseFailure => {
            Some(s("tool_use_id"))
        }
        EventName::PostToolBatch => Some(p["tool_calls"][0]["tool_use_id"].to_string()),
        EventName::PermissionRequest => Some(format!("{}{}", s("tool_name"), s("tool_input"))),
        EventName::SubagentStart | EventName::SubagentStop => Some(s("agent_id")),
        EventName::TaskCreated | EventName::TaskCompleted => Some(s("task_id")),
        _ => None,
    }
}

#[derive(Default, Debug)]
struct Tally {
    captured: usize,
    rebuilt: usize,
    /// Captures whose every field matched.
    exact: usize,
    /// field → number of captures where it differed (or was left out).
    differ: BTreeMap<String, usize>,
    /// Of those, the fields rebuilt with another value than captured (not
    /// left out): known limits, each explained in the README.
    wrong: BTreeMap<String, usize>,
    /// Fields missing from a rebuilt payload without a [`Payload::left_out`]
    /// entry saying why: must stay empty.
    unexplained: BTreeMap<String, usize>,
}

fn compare(event: EventName, captured: &Value, rebuilt: &Payload, tally: &mut Tally) {
    let empty = serde_json::Map::new();
    let cap = captured.as_object().unwrap_or(&empty);
    let got = rebuilt.json.as_object().unwrap_or(&empty);
    let mut same = true;
    for (k, v) in cap {
        let (a, b) = match k.as_str() {
            "transcript_path" | "agent_transcript_path" => (
                relocated(v),
                got.get(k).map(relocated).unwrap_or(Value::Null),
            ),
            _ => (v.clone(), got.get(k).cloned().unwrap_or(Value::Null)),
        };
        if a != b {
            same = false;
            *tally.differ.entry(k.clone()).or_default() += 1;
            if got.contains_key(k) {
                *tally.wrong.entry(k.clone()).or_default() += 1;
            } else if !rebuilt
                .left_out
                .iter()
                .any(|l| l.field == *k && !l.reason.is_empty())
            {
                *tally.unexplained.entry(k.clone()).or_default() += 1;
            }
            if std::env::var_os("HOOKSCOPE_PAYLOAD_DIFF").is_some() {
                eprintln!("{event} {k}: captured {a} rebuilt {b}");
            }
        }
    }
    for k in got.keys().filter(|k| !cap.contains_key(*k)) {
        same = false;
        *tally.differ.entry(format!("{k} (extra)")).or_default() += 1;
    }
    // Field order as Claude Code writes it.
    let cap_keys: Vec<&String> = cap.keys().filter(|k| got.contains_key(*k)).collect();
    let got_keys: Vec<&String> = got.keys().filter(|k| cap.contains_key(*k)).collect();
    if cap_keys != got_keys {
        same = false;
        *tally.differ.entry("(field order)".into()).or_default() += 1;
    }
    if same {
        tally.exact += 1;
    }
}

fn tallies() -> BTreeMap<EventName, Tally> {
    let mut out: BTreeMap<EventName, Tally> = BTreeMap::new();
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(REAL_CC)
        .expect("corpus")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("hooks").is_dir())
        .collect();
    scenarios.sort();
    for scenario in scenarios {
        let session = session(&scenario);
        let caps = captures(&scenario);
        let mut by_event: BTreeMap<EventName, Vec<&Capture>> = BTreeMap::new();
        for c in &caps {
            let name: EventName = c.stdin["hook_event_name"]
                .as_str()
                .and_then(|n| n.parse().ok())
                .expect("a known event");
            by_event.entry(name).or_default().push(c);
        }
        for (event, caps) in by_event {
            let rebuilt = all_payloads(&session, event);
            let tally = out.entry(event).or_default();
            tally.captured += caps.len();
            tally.rebuilt += rebuilt.len();
            let mut used = vec![false; rebuilt.len()];
            for (i, c) in caps.iter().enumerate() {
                let key = pair_key(event, &c.stdin);
                let found = match &key {
                    Some(key) => (0..rebuilt.len()).find(|&j| {
                        !used[j] && pair_key(event, &rebuilt[j].json).as_ref() == Some(key)
                    }),
                    None => (i < rebuilt.len() && !used[i]).then_some(i),
                };
                match found {
                    Some(j) => {
                        used[j] = true;
                        compare(event, &c.stdin, &rebuilt[j], tally);
                    }
                    None => {
                        *tally.differ.entry("(not rebuilt)".into()).or_default() += 1;
                        if std::env::var_os("HOOKSCOPE_PAYLOAD_DIFF").is_some() {
                            eprintln!("{event} not rebuilt: {}", c.stdin);
                        }
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_captured_payload_is_rebuilt_or_its_difference_is_listed() {
    let tallies = tallies();
    let mut table = String::new();
    for (event, t) in &tallies {
        let differ: Vec<String> = t.differ.iter().map(|(k, n)| format!("{k} {n}")).collect();
        table.push_str(&format!(
            "{event}: {}/{} exact, {} rebuilt; {}\n",
            t.exact,
            t.captured,
            t.rebuilt,
            differ.join(", ")
        ));
    }
    eprintln!("{table}");
    assert_eq!(table, EXPECTED);
    // Every field a rebuilt payload lacks is left out with a reason; the
    // one field rebuilt with another value is PostCompact's summary
    // (Claude Code rewrites it before storing it: docs/payloads.md "Hook payloads").
    let unexplained: Vec<String> = tallies
        .iter()
        .flat_map(|(e, t)| t.unexplained.keys().map(move |k| format!("{e}.{k}")))
        .collect();
    assert!(unexplained.is_empty(), "{unexplained:?}");
    let wrong: Vec<String> = tallies
        .iter()
        .flat_map(|(e, t)| t.wrong.iter().map(move |(k, n)| format!("{e}.{k} {n}")))
        .collect();
    assert_eq!(wrong, ["PostCompact.compact_summary 1"]);
}

/// Per event (in [`EventName`] order): captures matched in every field /
/// captures, payloads rebuilt from the transcripts, then per field the
/// captures where it differed or was left out (docs/payloads.md "Hook payloads" says
/// why for each).
const EXPECTED: &str = concat!(
    "PreToolUse: 89/89 exact, 89 rebuilt; \n",
    "PermissionRequest: 0/2 exact, 2 rebuilt; permission_suggestions 2\n",
    "PostToolUse: 0/78 exact, 78 rebuilt; duration_ms 78, tool_response 7\n",
    "PostToolUseFailure: 0/6 exact, 6 rebuilt; duration_ms 6\n",
    "PostToolBatch: 83/83 exact, 83 rebuilt; \n",
    "UserPromptSubmit: 9/10 exact, 10 rebuilt; prompt_id 1\n",
    "SubagentStart: 7/7 exact, 7 rebuilt; \n",
    "SubagentStop: 7/8 exact, 7 rebuilt; (not rebuilt) 1\n",
    "Stop: 11/11 exact, 11 rebuilt; \n",
    "TaskCreated: 6/6 exact, 6 rebuilt; \n",
    "TaskCompleted: 6/6 exact, 6 rebuilt; \n",
    "PreCompact: 1/1 exact, 1 rebuilt; \n",
    "PostCompact: 0/1 exact, 1 rebuilt; compact_summary 1\n",
    "SessionStart: 8/12 exact, 12 rebuilt; context_tokens 4, estimated_cache_write_usd 4, prompt_cache_likely_expired 4, seconds_since_last_response 4\n",
    "SessionEnd: 0/11 exact, 11 rebuilt; prompt_id 1, reason 11\n",
    "InstructionsLoaded: 11/11 exact, 11 rebuilt; \n",
    "MessageDisplay: 0/30 exact, 0 rebuilt; (not rebuilt) 30\n",
    "CwdChanged: 6/6 exact, 6 rebuilt; \n",
    "FileChanged: 0/7 exact, 0 rebuilt; (not rebuilt) 7\n",
);

// ---- hand-made transcripts (hostile and edge cases) ----

use hookscope_core::hooks::events::{At, PayloadError, events_at, payload};
use serde_json::json;

/// Writes `lines` as a session file in a tempdir and loads it.
fn load_lines(lines: &[Value]) -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_jsonl(
        dir.path()
            .join("11111111-2222-3333-4444-555555555555.jsonl"),
        lines,
    );
    let found = discover(&[path]).expect("discover");
    let session = load(&found.sessions[0]).expect("load");
    (dir, session)
}

fn envelope(kind: &str, uuid: &str, extra: Value) -> Value {
    let mut v = json!({
        "type": kind, "uuid": uuid, "sessionId": "11111111-2222-3333-4444-555555555555",
        "timestamp": "2026-11-29T18:00:00.000Z", "version": "2.1.332", "entrypoint": "cli",
        "cwd": "/w"
    });
    for (k, x) in extra.as_object().expect("object") {
        v[k] = x.clone();
    }
    v
}

fn prompt(uuid: &str, text: &str) -> Value {
    envelope(
        "user",
        uuid,
        json!({"promptId": "p1", "permissionMode": "default", "message": {"role": "user", "content": text}}),
    )
}

fn tool_use(uuid: &str, id: &str, name: &str, input: Value) -> Value {
    envelope(
        "assistant",
        uuid,
        json!({"effort": "high", "message": {"id": format!("msg_{id}"), "role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": name, "input": input}
        ]}}),
    )
}

fn text(uuid: &str, t: &str) -> Value {
    envelope(
        "assistant",
        uuid,
        json!({"message": {"id": format!("msg_{uuid}"), "role": "assistant", "content": [{"type": "text", "text": t}]}}),
    )
}

fn result(uuid: &str, id: &str, content: &str, is_error: bool, extra: Value) -> Value {
    let mut v = envelope(
        "user",
        uuid,
        json!({"promptId": "p1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error}
        ]}}),
    );
    for (k, x) in extra.as_object().expect("object") {
        v[k] = x.clone();
    }
    v
}

#[test]
fn an_interactive_permission_prompt_gives_permissionrequest_and_notification() {
    let (_dir, session) = load_lines(&[
        prompt("u1", "write the doc"),
        tool_use(
            "a1",
            "toolu_w",
            "Write",
            json!({"file_path": "/w/d.md", "content": "x"}),
        ),
        result(
            "r1",
            "toolu_w",
            "File created successfully at: /w/d.md",
            false,
            json!({"permissionDecision": {"decision": "accept", "source": "user"},
                   "toolUseResult": {"type": "create", "filePath": "/w/d.md", "content": "x"}}),
        ),
        text("a2", "Done."),
    ]);
    let at = At::parse("toolu_w");
    let here: Vec<&str> = events_at(&session, &at)
        .iter()
        .map(|e| e.as_str())
        .collect();
    assert_eq!(
        here,
        [
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "PostToolBatch",
            "Notification"
        ]
    );
    let n = payload(&session, EventName::Notification, &at).expect("Notification");
    let keys: Vec<&String> = n.json.as_object().expect("object").keys().collect();
    assert_eq!(
        keys,
        [
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "hook_event_name",
            "message",
            "notification_type"
        ]
    );
    assert_eq!(
        n.json["message"],
        "Claude needs your permission to use Write"
    );
    assert_eq!(n.json["notification_type"], "permission_prompt");
    let pr = payload(&session, EventName::PermissionRequest, &at).expect("PermissionRequest");
    assert_eq!(pr.json["effort"], json!({"level": "high"}));
    assert_eq!(pr.json.get("tool_use_id"), None);
    assert_eq!(pr.left_out[0].field, "permission_suggestions");
    let stop = payload(&session, EventName::Stop, &At::Last).expect("Stop");
    assert_eq!(stop.json["last_assistant_message"], "Done.");
    assert_eq!(stop.json["stop_hook_active"], false);
    assert_eq!(stop.json["background_tasks"], json!([]));
}

#[test]
fn an_interrupted_turn_has_no_stop_and_a_rejected_call_no_post_event() {
    let (_dir, session) = load_lines(&[
        prompt("u1", "clean up"),
        tool_use("a1", "toolu_rm", "Bash", json!({"command": "rm -rf build"})),
        result(
            "r1",
            "toolu_rm",
            "The user doesn't want to proceed with this tool use.",
            true,
            json!({"permissionDecision": {"decision": "reject", "source": "user"}}),
        ),
        envelope(
            "user",
            "u2",
            json!({"message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]}}),
        ),
    ]);
    let at = At::parse("toolu_rm");
    let here: Vec<&str> = events_at(&session, &at)
        .iter()
        .map(|e| e.as_str())
        .collect();
    assert_eq!(
        here,
        [
            "PreToolUse",
            "PermissionRequest",
            "PostToolBatch",
            "Notification"
        ]
    );
    assert_eq!(
        payload(&session, EventName::Stop, &At::Last).map_err(|e| e.to_string()),
        Err("no Stop in this session; events here: PreToolUse, PermissionRequest, PostToolBatch, UserPromptSubmit, Notification, SessionStart, SessionEnd".to_string())
    );
}

#[test]
fn lines_without_cwd_or_mode_leave_those_fields_out_with_a_reason() {
    let bare = |kind: &str, uuid: &str, message: Value| json!({"type": kind, "uuid": uuid, "message": message});
    let (_dir, session) = load_lines(&[
        bare("user", "u1", json!({"role": "user", "content": "hi"})),
        bare(
            "assistant",
            "a1",
            json!({"id": "m1", "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/x"}}]}),
        ),
    ]);
    let p = payload(&session, EventName::PreToolUse, &At::Last).expect("PreToolUse");
    let keys: Vec<&String> = p.json.as_object().expect("object").keys().collect();
    // No version: the newest contract; no cwd, prompt_id, mode or effort recorded.
    assert_eq!(
        keys,
        [
            "session_id",
            "transcript_path",
            "hook_event_name",
            "tool_name",
            "tool_input",
            "tool_use_id"
        ]
    );
    let left: Vec<&str> = p.left_out.iter().map(|l| l.field.as_str()).collect();
    assert_eq!(left, ["cwd", "prompt_id", "permission_mode", "effort"]);
    assert_eq!(
        p.left_out[0].reason,
        "no line before this point records a cwd"
    );
    // The call has no result: nothing after PreToolUse.
    assert!(matches!(
        payload(&session, EventName::PostToolUse, &At::parse("toolu_1")),
        Err(PayloadError::NoEvent { .. })
    ));
}

#[test]
fn at_parses_turns_uuids_ids_and_last() {
    assert_eq!(At::parse("last"), At::Last);
    assert_eq!(At::parse("3"), At::Turn(3));
    assert_eq!(
        At::parse("09d8de0a-26b5-46fa-a44d-9a5ef22d196a"),
        At::Uuid("09d8de0a-26b5-46fa-a44d-9a5ef22d196a".into())
    );
    assert_eq!(At::parse("toolu_01x"), At::ToolUseId("toolu_01x".into()));
    // Too many digits for a turn: kept as an id (which then names nothing).
    assert_eq!(
        At::parse("99999999999999999999999"),
        At::ToolUseId("99999999999999999999999".into())
    );
}

#[test]
fn a_line_uuid_selects_the_event_there_and_a_turn_its_last() {
    let scenario = Path::new(REAL_CC).join("hooks");
    let session = session(&scenario);
    // The prompt line's uuid: UserPromptSubmit.
    let at = At::parse("09d8de0a-26b5-46fa-a44d-9a5ef22d196a");
    let p = payload(&session, EventName::UserPromptSubmit, &at).expect("UserPromptSubmit");
    assert_eq!(p.source_line, 3);
    // The result line of the `cd src && pwd` call (line 70): its PostToolUse
    // and the CwdChanged it caused, both with the new cwd.
    let at = At::parse("a6c8a2e2-b8a1-432d-8594-02eff8220b9b");
    let here: Vec<&str> = events_at(&session, &at)
        .iter()
        .map(|e| e.as_str())
        .collect();
    assert_eq!(
        here,
        ["PreToolUse", "PostToolUse", "PostToolBatch", "CwdChanged"]
    );
    let post = payload(&session, EventName::PostToolUse, &at).expect("PostToolUse");
    assert_eq!(post.json["cwd"], "/home/dev/work/hooks/src");
    let pre = payload(&session, EventName::PreToolUse, &at).expect("PreToolUse");
    assert_eq!(pre.json["cwd"], "/home/dev/work/hooks");
    // Turn 1's last PreToolUse is the `cd src && pwd` call.
    let last = payload(&session, EventName::PreToolUse, &At::Turn(1)).expect("PreToolUse");
    assert_eq!(last.json["tool_use_id"], "toolu_0166zLTXLuAmxLY79ysEIMix");
    // The Agent call: its subagent's start and stop belong to it.
    let here: Vec<&str> = events_at(&session, &At::parse("toolu_01nVfs42hvM6RhEoaSKThcqL"))
        .iter()
        .map(|e| e.as_str())
        .collect();
    assert_eq!(
        here,
        [
            "PreToolUse",
            "PostToolUse",
            "PostToolBatch",
            "SubagentStart",
            "SubagentStop"
        ]
    );
}

#[test]
fn codex_sessions_have_no_claude_code_payloads() {
    let found = discover(&[PathBuf::from(CORPUS)]).expect("discover");
    let codex = found
        .sessions
        .iter()
        .find(|s| s.agent == hookscope_core::transcript::Agent::Codex)
        .expect("a Codex session in the corpus");
    let session = load(codex).expect("load");
    assert_eq!(
        payload(&session, EventName::PreToolUse, &At::Last),
        Err(PayloadError::NotClaudeCode("codex".into()))
    );
    assert!(events_at(&session, &At::Last).is_empty());
}

#[test]
fn a_replayed_edit_knows_its_file_before_and_after() {
    let session = session(&Path::new(REAL_CC).join("hooks"));
    let at = At::parse("toolu_016ykJe7330FrnpjyKTOrOmf");
    let pre = payload(&session, EventName::PreToolUse, &at)
        .expect("PreToolUse")
        .view();
    let before = "TODO: write docs\nTODO: add tests\nkeep this line\nTODO: release\n";
    assert_eq!(pre.pre_image().as_deref(), Some(before));
    assert_eq!(
        pre.post_image().as_deref(),
        Some("TODO: write docs\nTODO: add tests\nkeep this line (edited)\nTODO: release\n")
    );
    assert_eq!(pre.replaced().as_deref(), Some("keep this line"));
    // After the call: only the Edit's own fragment.
    let post = payload(&session, EventName::PostToolUse, &at)
        .expect("PostToolUse")
        .view();
    assert_eq!((post.pre_image(), post.post_image()), (None, None));
    assert_eq!(
        post.edit().map(|e| e.post),
        Some("keep this line (edited)".to_string())
    );
    // The denied Write has no result, so no recorded file before it.
    let write = payload(
        &session,
        EventName::PreToolUse,
        &At::parse("toolu_015796i98YXirh2QSMEW5t0s"),
    )
    .expect("PreToolUse")
    .view();
    assert_eq!((write.pre_image(), write.replaced()), (None, None));
    assert_eq!(write.post_image().as_deref(), Some("# new doc\n"));
}

#[test]
fn a_replayed_write_that_created_its_file_had_an_empty_pre_image() {
    let session = session(&Path::new(REAL_CC).join("tools"));
    let create = session
        .tool_calls()
        .find(|r| {
            r.name() == "Write"
                && r.result
                    .as_ref()
                    .and_then(|x| x.tool_use_result.as_ref())
                    .is_some_and(|t| t["type"] == "create")
        })
        .expect("a Write that created a file");
    let view = payload(
        &session,
        EventName::PreToolUse,
        &At::ToolUseId(create.tool_use_id.clone()),
    )
    .expect("PreToolUse")
    .view();
    assert_eq!(view.pre_image().as_deref(), Some(""));
    assert_eq!(
        view.post_image().as_deref(),
        Some("def square(x):\n    return x * x\n\n\ndef cube(x):\n    return x * x * x\n")
    );
}

#[test]
fn a_subagent_linked_to_its_own_call_is_walked_once() {
    let mut session = session(&Path::new(REAL_CC).join("hooks"));
    // Hostile: the subagent's own Bash call claims to have spawned it (ids
    // may repeat across files, so a link cycle can be made by hand).
    let sub = &mut session.subagents[0];
    let record = sub
        .turns
        .iter_mut()
        .flat_map(|t| t.events.iter_mut())
        .find_map(|e| match e {
            hookscope_core::transcript::Event::ToolCall(r) => Some(r),
            _ => None,
        })
        .expect("a call in the subagent");
    record.subagent = Some(0);
    assert_eq!(all_payloads(&session, EventName::SubagentStart).len(), 1);
    assert_eq!(all_payloads(&session, EventName::SubagentStop).len(), 1);
    assert_eq!(all_payloads(&session, EventName::PreToolUse).len(), 13);
}

/// c8435c6b (`hooks_c5_stop_block`): in its one turn Stop fires at line 75
/// (blocked by the real hook, stop_hook_active false) and at line 82
/// (stop_hook_active true). `firings_at` on the turn lists both, each with
/// the `At` that rebuilds exactly that one; `events_at` lists Stop once.
#[test]
fn firings_at_tells_apart_two_stops_in_one_turn() {
    use hookscope_core::hooks::events::{EventName, firings_at};
    let s = session(&corpus("real-cc-2.1.332/hooks_c5_stop_block"));
    let turn = At::Turn(1);
    let stops: Vec<At> = firings_at(&s, &turn)
        .into_iter()
        .filter(|(e, _)| *e == EventName::Stop)
        .map(|(_, a)| a)
        .collect();
    assert_eq!(stops, [At::Line(75), At::Line(82)]);
    let active: Vec<Value> = stops
        .iter()
        .map(|a| payload(&s, EventName::Stop, a).expect("stop").json["stop_hook_active"].clone())
        .collect();
    assert_eq!(active, [json!(false), json!(true)]);
    assert_eq!(
        events_at(&s, &turn)
            .iter()
            .filter(|e| **e == EventName::Stop)
            .count(),
        1
    );
    // Every firing has its event among events_at's, in the same order.
    let mut names: Vec<EventName> = firings_at(&s, &turn).into_iter().map(|(e, _)| e).collect();
    names.dedup();
    assert_eq!(names, events_at(&s, &turn));
    // A tool call's firings are named by its tool_use_id.
    assert!(
        firings_at(&s, &turn)
            .iter()
            .any(|(e, a)| *e == EventName::PreToolUse
                && *a == At::ToolUseId("toolu_01032bRSkqY5yqH4ZPXeQNl0".into()))
    );
    assert!(firings_at(&s, &At::parse("bogus")).is_empty());
    assert_eq!(At::parse("line:75"), At::Line(75));
    assert_eq!(At::Line(75).to_string(), "line:75");
}

/// A walk for some events builds only their points (a backtest of
/// PostToolUse rules no longer copies every call's input for PreToolUse):
/// for every Claude Code and Droid session of the corpus, the payloads of
/// each event, and of mixed lists, asked alone equal those of a whole walk,
/// in the same order.
#[test]
fn payloads_of_some_events_equal_those_of_a_whole_walk() {
    use hookscope_core::hooks::events::{REBUILT, payloads_where};
    let found = discover(&[PathBuf::from(CORPUS)]).expect("discover");
    let mut compared = 0;
    let lists: Vec<Vec<EventName>> = REBUILT
        .iter()
        .map(|e| vec![*e])
        .chain([
            vec![EventName::PostToolUse, EventName::PreToolUse],
            vec![
                EventName::Stop,
                EventName::TaskCreated,
                EventName::PostToolUseFailure,
            ],
            vec![
                EventName::PostToolBatch,
                EventName::Notification,
                EventName::SubagentStop,
            ],
        ])
        .collect();
    for r in &found.sessions {
        let Ok(session) = load(r) else { continue };
        for events in &lists {
            let whole: Vec<Payload> = events
                .iter()
                .flat_map(|e| all_payloads(&session, *e))
                .collect();
            let some = payloads_where(&session, events, &|_, _| true);
            assert_eq!(some, whole, "{} {events:?}", r.path.display());
            compared += some.len();
        }
    }
    // The corpus's rebuilt payloads, each list counted: a change in the
    // corpus or in what is rebuilt moves it.
    assert_eq!(compared, 2548);
}
