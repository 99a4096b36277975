//! Forked and spawned Codex rollouts (docs/sessions.md#where-sessions-come-from): a child names its parent
//! in its first `session_meta` (`forked_from_id`, `source.subagent.
//! thread_spawn.parent_thread_id`), a fork replays the parent's history
//! after its own `session_meta`, and the replayed part is not counted again.
//!
//! Every rollout here is built in a temp dir from the lines of the real
//! 0.171.0 rollout in `tests/corpus/real-codex-0.171.0` (its 46 lines
//! as the parent `P`; its lines 2–16, 43 and 46 — task_started … first
//! call, its output, a token_count, the answer, task_complete — re-stamped
//! with a new turn id as a child's own turn), the way codex-rs writes them
//! (`RolloutRecorder` + `InitialHistory::Forked`: the child's
//! `session_meta`, the parent's items re-written with new timestamps, then
//! the child's turns; a `spawn_agent` child with forked context keeps only
//! messages, events and turn contexts of the parent). Field shapes of the
//! `source.subagent` objects follow the agent-sessions stage0 fixture
//! (`small.jsonl`).
//!
//! Expected values were recounted with python3 over the written files
//! (json.loads per line; the copied prefix = line 2 up to the first line
//! whose turn id's UUIDv7 milliseconds are ≥ the child id's; turns = user
//! `message` items after it not starting with `<`; calls = `function_call`
//! items after it; usage = the last `token_count` total after it minus the
//! last one inside it, mapped as the loader maps totals: input − cached,
//! output, cached as cache reads).

use std::path::{Path, PathBuf};

use hookscope_core::transcript::codex::{self, Lineage, uuid_v7_millis};
use hookscope_core::transcript::{
    Agent, Session, SubagentLayout, SubagentLink, Usage, discover, load,
};
use serde_json::{Value, json};

use crate::support::{corpus, hookscope, write_jsonl};

const P_ID: &str = "01a2287a-35b1-76e0-b188-fd2c5f457a31";
const REAL_171: &str = "real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl";

/// A fork made a minute after P (UUIDv7 ms 0x01a2287b0000 > P's turns').
const F_ID: &str = "01a2287b-0000-7000-8000-00000000f001";
const F_TURN: &str = "01a2287b-0001-7000-8000-00000000f0a1";
/// A subagent spawned by Q (P plus a spawn turn).
const S_ID: &str = "01a2287b-1000-7000-8000-0000000005a1";
const S_TURN: &str = "01a2287b-1001-7000-8000-0000000005b1";
/// A `spawn_agent` child with forked context (filtered copy of Q).
const T_ID: &str = "01a2287b-2000-7000-8000-0000000007a1";
const T_TURN: &str = "01a2287b-2001-7000-8000-0000000007b1";
const Q_TURN: &str = "01a2287a-ffff-7000-8000-00000000aaaa";

fn real_lines() -> Vec<Value> {
    let path = corpus(REAL_171);
    std::fs::read_to_string(&path)
        .expect("real 0.171 rollout")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn set(v: &mut Value, pointer: &str, new: Value) {
    *v.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("{pointer}")) = new;
}

/// A `session_meta` line from P's, with another id and lineage fields.
fn meta(p: &[Value], id: &str, ts: &str, extra: Value) -> Value {
    let mut m = p[0].clone();
    set(&mut m, "/timestamp", json!(ts));
    set(&mut m, "/payload/id", json!(id));
    set(&mut m, "/payload/session_id", json!(id));
    if let (Some(obj), Value::Object(extra)) = (m["payload"].as_object_mut(), extra) {
        obj.extend(extra);
    }
    m
}

/// Replaces every turn id a line carries.
fn retag(v: &mut Value, turn: &str) {
    for ptr in [
        "/payload/turn_id",
        "/payload/internal_chat_message_metadata_passthrough/turn_id",
        "/payload/metadata/turn_id",
    ] {
        if let Some(t) = v.pointer_mut(ptr) {
            *t = json!(turn);
        }
    }
}

/// A child's own turn: P's lines 2–16, 43, 46 with turn id `turn`, prompt
/// `prompt`, the call's id `call_id` and the token_count total
/// `{input, cached, output}`.
fn own_turn(
    p: &[Value],
    turn: &str,
    ts: &str,
    prompt: &str,
    call_id: &str,
    total: (u64, u64, u64),
) -> Vec<Value> {
    let mut out: Vec<Value> = p[1..16].iter().chain([&p[42], &p[45]]).cloned().collect();
    for v in &mut out {
        retag(v, turn);
        set(v, "/timestamp", json!(ts));
    }
    // out[6] = P line 8 (the prompt); out[10] / out[13] = lines 12 / 15.
    set(&mut out[6], "/payload/content/0/text", json!(prompt));
    set(&mut out[10], "/payload/call_id", json!(call_id));
    set(&mut out[13], "/payload/call_id", json!(call_id));
    let (input, cached, output) = total;
    set(
        &mut out[14],
        "/payload/info/total_token_usage",
        json!({"input_tokens": input, "cached_input_tokens": cached,
               "cache_write_input_tokens": 0, "output_tokens": output,
               "reasoning_output_tokens": 0, "total_tokens": input + output}),
    );
    out
}

/// P's lines with the fork's timestamp (Codex re-writes copied items).
fn copied(p: &[Value], ts: &str) -> Vec<Value> {
    p.iter()
        .cloned()
        .map(|mut v| {
            set(&mut v, "/timestamp", json!(ts));
            v
        })
        .collect()
}

/// P's final total (line 45): input 75935, cached 60745, output 619.
const P_TOTAL: (u64, u64, u64) = (75935, 60745, 619);

fn usage(input: u64, output: u64, read: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: read,
    }
}

/// The fork F: 1 own meta line, P's 46 lines (2–47), an own turn (48–64)
/// whose total is P's plus {input 10400, cached 8300, output 50}.
fn fork_lines(p: &[Value]) -> Vec<Value> {
    let ts = "2026-11-29T19:00:00.000Z";
    let mut lines = vec![meta(
        p,
        F_ID,
        ts,
        json!({"forked_from_id": P_ID, "source": "cli"}),
    )];
    lines.extend(copied(p, ts));
    lines.extend(own_turn(
        p,
        F_TURN,
        "2026-11-29T19:00:05.000Z",
        "[fork] count the lines of hello.py",
        "call_fork_1",
        (P_TOTAL.0 + 10400, P_TOTAL.1 + 8300, P_TOTAL.2 + 50),
    ));
    lines
}

/// Q: P plus a turn whose two `spawn_agent` calls spawn S (v1 output
/// `agent_id`) and T (v2 output `task_name`), and a token_count.
fn q_lines(p: &[Value]) -> Vec<Value> {
    let mut lines = p.to_vec();
    let ts = "2026-11-29T18:59:00.000Z";
    let mut prompt = p[7].clone();
    retag(&mut prompt, Q_TURN);
    set(
        &mut prompt,
        "/payload/content/0/text",
        json!("spawn two helpers"),
    );
    lines.push(prompt);
    for (call_id, args, output) in [
        (
            "call_spawn_1",
            json!({"message": "count the files", "agent_type": "explorer"}).to_string(),
            json!({"agent_id": S_ID, "nickname": "Euclid"}).to_string(),
        ),
        (
            "call_spawn_2",
            json!({"message": "write a test", "task_name": "tester"}).to_string(),
            json!({"task_name": "/root/tester", "nickname": null}).to_string(),
        ),
    ] {
        let mut call = p[11].clone();
        retag(&mut call, Q_TURN);
        set(&mut call, "/timestamp", json!(ts));
        set(&mut call, "/payload/name", json!("spawn_agent"));
        set(&mut call, "/payload/call_id", json!(call_id));
        set(&mut call, "/payload/arguments", json!(args));
        let mut out = p[14].clone();
        retag(&mut out, Q_TURN);
        set(&mut out, "/timestamp", json!(ts));
        set(&mut out, "/payload/call_id", json!(call_id));
        set(&mut out, "/payload/output", json!(output));
        lines.push(call);
        lines.push(out);
    }
    let mut count = p[44].clone();
    set(&mut count, "/timestamp", json!(ts));
    set(
        &mut count,
        "/payload/info/total_token_usage",
        json!({"input_tokens": 80000, "cached_input_tokens": 64000,
               "cache_write_input_tokens": 0, "output_tokens": 700,
               "reasoning_output_tokens": 0, "total_tokens": 80700}),
    );
    lines.push(count);
    lines
}

/// S: a fresh `thread_spawn` child of P's thread (no copied history).
fn s_lines(p: &[Value]) -> Vec<Value> {
    let source = json!({"subagent": {"thread_spawn": {"parent_thread_id": P_ID, "depth": 1,
        "agent_path": null, "agent_nickname": "Euclid", "agent_role": "explorer"}}});
    let mut lines = vec![meta(
        p,
        S_ID,
        "2026-11-29T19:01:00.000Z",
        json!({"source": source, "thread_source": "subagent", "agent_nickname": "Euclid",
               "agent_role": "explorer"}),
    )];
    lines.extend(own_turn(
        p,
        S_TURN,
        "2026-11-29T19:01:01.000Z",
        "count the files",
        "call_sub_1",
        (5000, 1000, 40),
    ));
    lines
}

/// T: a `spawn_agent` child with forked context: its copy of Q keeps only
/// the session_meta, messages (no reasoning, calls or outputs), events and
/// turn contexts (codex-rs `keep_forked_rollout_item`).
fn t_lines(p: &[Value], q: &[Value]) -> Vec<Value> {
    let ts = "2026-11-29T19:02:00.000Z";
    let source = json!({"subagent": {"thread_spawn": {"parent_thread_id": P_ID, "depth": 1,
        "agent_path": "/root/tester", "agent_nickname": null, "agent_role": null}}});
    let mut lines = vec![meta(
        p,
        T_ID,
        ts,
        json!({"forked_from_id": P_ID, "source": source, "thread_source": "subagent"}),
    )];
    let kept = q.iter().filter(|v| {
        let kind = v["type"].as_str().unwrap_or("");
        let item = v["payload"]["type"].as_str().unwrap_or("");
        match kind {
            "response_item" => item == "message",
            "session_meta" | "event_msg" | "turn_context" | "compacted" => true,
            _ => false,
        }
    });
    lines.extend(copied(&kept.cloned().collect::<Vec<_>>(), ts));
    lines.extend(own_turn(
        p,
        T_TURN,
        "2026-11-29T19:02:01.000Z",
        "write a test",
        "call_t_1",
        (80000 + 3000, 64000 + 2000, 700 + 30),
    ));
    lines
}

fn rollout_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!(
        "sessions/2026/11/29/rollout-2026-11-29T19-00-00-{id}.jsonl"
    ))
}

fn only_session(dir: &Path) -> Session {
    let found = discover(&[dir.to_path_buf()]).expect("discover");
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    load(&found.sessions[0]).expect("load")
}

fn messages(s: &Session) -> Vec<String> {
    s.diagnostics.iter().map(|d| d.to_string()).collect()
}

#[test]
fn lineage_fields_from_session_meta() {
    let p = real_lines();
    assert_eq!(
        Lineage::from_meta(&p[0]["payload"]),
        Lineage {
            id: Some(P_ID.into()),
            ..Lineage::default()
        }
    );
    let s = s_lines(&p);
    let l = Lineage::from_meta(&s[0]["payload"]);
    assert_eq!(l.parent(), Some(P_ID));
    assert_eq!(l.subagent.as_deref(), Some("thread_spawn"));
    assert_eq!(l.kind(), "explorer");
    // The stage0 fixture's `{"subagent": {"other": …}}` source and its
    // top-level `parent_thread_id` (values trimmed there).
    let other =
        json!({"id": "a", "parent_thread_id": "b", "source": {"subagent": {"other": "guardian"}}});
    let l = Lineage::from_meta(&other);
    assert_eq!((l.parent(), l.kind().as_str()), (Some("b"), "guardian"));
    let review = json!({"id": "a", "source": {"subagent": "review"}});
    assert_eq!(
        Lineage::from_meta(&review).subagent.as_deref(),
        Some("review")
    );
    // Wrong types are no lineage: a number id, a string thread_spawn.
    let odd = json!({"id": "a", "forked_from_id": 42, "parent_thread_id": null,
                     "source": {"subagent": {"thread_spawn": "x"}}});
    let l = Lineage::from_meta(&odd);
    assert_eq!(
        (l.parent(), l.subagent.as_deref()),
        (None, Some("thread_spawn"))
    );
    assert_eq!(
        Lineage::from_meta(&json!("not an object")),
        Lineage::default()
    );
    // A rollout naming itself has no parent.
    let itself = json!({"id": "a", "forked_from_id": "a"});
    assert_eq!(Lineage::from_meta(&itself).parent(), None);
    assert_eq!(uuid_v7_millis(P_ID), Some(0x01a2287a35b1));
    assert_eq!(uuid_v7_millis("01a2287a-35b1-46e0-b188-fd2c5f457a31"), None);
}

/// A legacy rollout without lineage fields loads as before: P alone (1
/// prompt at line 8, 6 calls, total input 75935 − cached 60745 = 15190,
/// output 619, cached 60745) and with no children, no diagnostics.
#[test]
fn a_rollout_without_lineage_is_unchanged() {
    let p = real_lines();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = rollout_path(dir.path(), P_ID);
    write_jsonl(&path, &p);
    let s = only_session(dir.path());
    assert_eq!(s.id, P_ID);
    assert_eq!(s.prompt_turns(), 1);
    assert_eq!(s.tool_calls().count(), 6);
    assert_eq!(s.usage, usage(15190, 619, 60745));
    assert!(s.subagents.is_empty());
    assert!(s.diagnostics.is_empty(), "{:?}", messages(&s));
    assert_eq!(s, codex::load_session(&path).expect("load"));
}

/// F alone (its parent not among the files): lines 2–47 are P's copy; its
/// own part is 1 prompt (line 54), 1 call (call_fork_1, line 58) and the
/// usage over P's total: input (86335 − 69045) − 15190 = 2100, output
/// 669 − 619 = 50, cached 69045 − 60745 = 8300.
#[test]
fn a_fork_counts_only_its_own_part_and_says_its_parent_is_absent() {
    let p = real_lines();
    let dir = tempfile::tempdir().expect("tempdir");
    write_jsonl(rollout_path(dir.path(), F_ID), &fork_lines(&p));
    let s = only_session(dir.path());
    assert_eq!(s.id, F_ID);
    assert_eq!(
        s.turns.iter().map(|t| t.prompt_line).collect::<Vec<_>>(),
        vec![Some(54)]
    );
    assert_eq!(s.turns[0].prompt, "[fork] count the lines of hello.py");
    let calls: Vec<(&str, usize)> = s
        .tool_calls()
        .map(|c| (c.tool_use_id.as_str(), c.line))
        .collect();
    assert_eq!(calls, vec![("call_fork_1", 58)]);
    assert_eq!(s.usage, usage(2100, 50, 8300));
    assert_eq!(s.summary().tool_calls, 1);
    assert_eq!(
        messages(&s),
        vec![format!(
            "{}:2: parent session {P_ID} is not linked: lines 2–47 replay its history and are not counted here",
            rollout_path(dir.path(), F_ID).display()
        )]
    );
}

/// P and F together: F is P's subagent (layout child_session, no spawn
/// call: a user fork), counted once: P's 6 calls + F's 1.
#[test]
fn a_fork_with_its_parent_present_is_its_child() {
    let p = real_lines();
    let dir = tempfile::tempdir().expect("tempdir");
    write_jsonl(rollout_path(dir.path(), P_ID), &p);
    write_jsonl(rollout_path(dir.path(), F_ID), &fork_lines(&p));
    let s = only_session(dir.path());
    assert_eq!(s.id, P_ID);
    assert_eq!(s.subagents.len(), 1);
    let f = &s.subagents[0];
    assert_eq!(f.agent_id.as_deref(), Some(F_ID));
    assert_eq!(f.layout, Some(SubagentLayout::ChildSession));
    assert_eq!(f.agent_type.as_deref(), Some("fork"));
    assert_eq!((f.link, f.spawn_tool_use_id.as_deref()), (None, None));
    assert_eq!(f.tool_calls().count(), 1);
    assert_eq!(f.usage, usage(2100, 50, 8300));
    assert_eq!(
        f.meta.as_ref().map(|m| m["replayed_lines"].clone()),
        Some(json!({"first_line": 2, "last_line": 47, "lines": 46}))
    );
    assert_eq!(
        f.meta.as_ref().map(|m| m["forked_from_id"].clone()),
        Some(json!(P_ID))
    );
    assert_eq!(s.summary().tool_calls, 7);
    assert_eq!(s.summary().turns, 1);
    assert!(s.diagnostics.is_empty(), "{:?}", messages(&s));
}

/// Q (P + a spawn turn: prompt line 47, spawn_agent calls at 48 and 50)
/// with S (fresh thread_spawn child, its call call_sub_1 at line 12) and T
/// (spawn with forked context: Q's 27 kept lines at 2–28; own prompt, call
/// call_t_1): S links to call_spawn_1 by `agent_id`, T to call_spawn_2 by
/// `task_name` = its agent_path. Usage: S 5000 − 1000 = 4000 input, 40
/// output, 1000 cached; T over Q's 80000/64000/700: (83000 − 66000) −
/// 16000 = 1000 input, 30 output, 2000 cached.
#[test]
fn spawned_children_link_to_their_spawn_calls() {
    let p = real_lines();
    let q = q_lines(&p);
    let dir = tempfile::tempdir().expect("tempdir");
    write_jsonl(rollout_path(dir.path(), P_ID), &q);
    write_jsonl(rollout_path(dir.path(), S_ID), &s_lines(&p));
    let t = t_lines(&p, &q);
    write_jsonl(rollout_path(dir.path(), T_ID), &t);
    let s = only_session(dir.path());
    assert_eq!(s.subagents.len(), 2);
    // Children are in path order: S (…5a1) before T (…7a1).
    let (sub_s, sub_t) = (&s.subagents[0], &s.subagents[1]);
    assert_eq!(sub_s.agent_id.as_deref(), Some(S_ID));
    assert_eq!(sub_s.spawn_tool_use_id.as_deref(), Some("call_spawn_1"));
    assert_eq!(sub_s.link, Some(SubagentLink::ChildSessionId));
    assert_eq!(sub_s.agent_type.as_deref(), Some("explorer"));
    assert_eq!(sub_s.description.as_deref(), Some("Euclid"));
    assert_eq!(sub_s.usage, usage(4000, 40, 1000));
    assert_eq!(sub_s.prompt(), "count the files");
    assert_eq!(
        sub_s.meta.as_ref().map(|m| m["replayed_lines"].clone()),
        Some(Value::Null)
    );
    assert_eq!(sub_t.agent_id.as_deref(), Some(T_ID));
    assert_eq!(sub_t.spawn_tool_use_id.as_deref(), Some("call_spawn_2"));
    assert_eq!(sub_t.link, Some(SubagentLink::AgentPath));
    assert_eq!(sub_t.usage, usage(1000, 30, 2000));
    assert_eq!(
        sub_t
            .tool_calls()
            .map(|c| c.tool_use_id.as_str())
            .collect::<Vec<_>>(),
        vec!["call_t_1"]
    );
    // T's copy: its lines 2..=1+kept; kept = Q's session_meta, messages,
    // events and turn contexts: 27 of Q's 52 lines (python recount).
    let kept = t.len() - 1 - 17;
    assert_eq!(kept, 27);
    assert_eq!(
        sub_t.meta.as_ref().map(|m| m["replayed_lines"].clone()),
        Some(json!({"first_line": 2, "last_line": 1 + kept, "lines": kept}))
    );
    let spawns: Vec<(&str, Option<usize>)> = s
        .tool_calls()
        .filter(|c| c.name() == "spawn_agent")
        .map(|c| (c.tool_use_id.as_str(), c.subagent))
        .collect();
    assert_eq!(
        spawns,
        vec![("call_spawn_1", Some(0)), ("call_spawn_2", Some(1))]
    );
    // Q's 8 calls (6 + 2 spawns) + S's 1 + T's 1.
    assert_eq!(s.summary().tool_calls, 10);
    assert_eq!(s.summary().subagents, 2);
    assert!(s.diagnostics.is_empty(), "{:?}", messages(&s));
}

/// S without its parent: listed on its own, its 1 call counted, and a
/// diagnostic on its session_meta line.
#[test]
fn a_spawned_child_without_its_parent_says_so() {
    let p = real_lines();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = rollout_path(dir.path(), S_ID);
    write_jsonl(&path, &s_lines(&p));
    let s = only_session(dir.path());
    assert_eq!(s.id, S_ID);
    assert_eq!(s.tool_calls().count(), 1);
    assert_eq!(s.usage, usage(4000, 40, 1000));
    assert_eq!(
        messages(&s),
        vec![format!(
            "{}:1: parent session {P_ID} is not linked; shown on its own",
            path.display()
        )]
    );
}

/// A and B each name the other as parent; C names itself: all three stay
/// sessions of their own, each link reported, nothing hangs.
#[test]
fn parent_cycles_and_self_parents_are_not_followed() {
    let p = real_lines();
    let dir = tempfile::tempdir().expect("tempdir");
    let a = "01a2287b-3000-7000-8000-00000000000a";
    let b = "01a2287b-3000-7000-8000-00000000000b";
    let c = "01a2287b-3000-7000-8000-00000000000c";
    for (id, parent) in [(a, b), (b, a), (c, c)] {
        let mut lines = vec![meta(
            &p,
            id,
            "2026-11-29T19:03:00.000Z",
            json!({"forked_from_id": parent}),
        )];
        lines.extend(own_turn(
            &p,
            id,
            "2026-11-29T19:03:01.000Z",
            "hi",
            "call_1",
            (100, 0, 1),
        ));
        write_jsonl(rollout_path(dir.path(), id), &lines);
    }
    let found = discover(&[dir.path().to_path_buf()]).expect("discover");
    let mut ids: Vec<&str> = found.sessions.iter().map(|s| s.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, vec![a, b, c]);
    assert!(found.sessions.iter().all(|s| s.subagent_files.is_empty()));
    let cycle: Vec<String> = found
        .diagnostics
        .iter()
        .map(|d| d.message.clone())
        .collect();
    assert_eq!(cycle, vec!["parent sessions form a cycle; not linked"; 2]);
    for r in &found.sessions {
        let s = load(r).expect("load");
        assert_eq!(s.tool_calls().count(), 1, "{}", s.id);
        let want = if s.id == c {
            "session_meta names the rollout itself as its parent; ignored".to_string()
        } else {
            let parent = if s.id == a { b } else { a };
            format!("parent session {parent} is not linked; shown on its own")
        };
        assert_eq!(
            s.diagnostics
                .iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>(),
            vec![want]
        );
    }
}

/// Two rollouts share P's id (a copy under archived_sessions): F's parent
/// is ambiguous, so F is not linked (no guess) and still counts its own
/// part only.
#[test]
fn a_parent_id_that_repeats_is_not_guessed() {
    let p = real_lines();
    let dir = tempfile::tempdir().expect("tempdir");
    write_jsonl(rollout_path(dir.path(), P_ID), &p);
    write_jsonl(
        dir.path().join(format!(
            "archived_sessions/rollout-2026-11-29T18-03-47-{P_ID}.jsonl"
        )),
        &p,
    );
    write_jsonl(rollout_path(dir.path(), F_ID), &fork_lines(&p));
    let found = discover(&[dir.path().to_path_buf()]).expect("discover");
    assert_eq!(found.sessions.len(), 3);
    assert_eq!(
        found
            .diagnostics
            .iter()
            .map(|d| d.message.clone())
            .collect::<Vec<_>>(),
        vec![format!(
            "parent session id {P_ID} names 2 rollouts; not linked"
        )]
    );
    let f = found
        .sessions
        .iter()
        .find(|s| s.id == F_ID)
        .expect("F listed");
    let f = load(f).expect("load");
    assert_eq!(f.tool_calls().count(), 1);
    assert_eq!(f.usage, usage(2100, 50, 8300));
}

/// A fork whose copy is open at the end of the file with turn ids in it
/// has no turn of its own yet (all replayed); one whose copy has no turn
/// ids at all cannot be cut and says so, counting the lines as its own.
#[test]
fn a_copy_open_at_the_end() {
    let p = real_lines();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut empty = vec![meta(
        &p,
        F_ID,
        "2026-11-29T19:00:00.000Z",
        json!({"forked_from_id": P_ID}),
    )];
    empty.extend(copied(&p, "2026-11-29T19:00:00.000Z"));
    let path = rollout_path(dir.path(), F_ID);
    write_jsonl(&path, &empty);
    let s = codex::load_session(&path).expect("load");
    assert_eq!((s.turns.len(), s.tool_calls().count()), (0, 0));
    assert_eq!(s.usage, Usage::default());

    let mut unmarked = empty.clone();
    for v in &mut unmarked[1..] {
        retag(v, "not-a-uuid");
    }
    write_jsonl(&path, &unmarked);
    let s = codex::load_session(&path).expect("load");
    assert_eq!(s.tool_calls().count(), 6);
    assert_eq!(s.usage, usage(15190, 619, 60745));
    let lines: Vec<(Option<usize>, &str)> = s
        .diagnostics
        .iter()
        .map(|d| (d.line(), d.message.split(" 0").next().unwrap_or("")))
        .collect();
    assert_eq!(
        lines,
        vec![
            (Some(1), "parent session"),
            (
                Some(2),
                "lines 2–47 look like a copy of another session's history (a second session_meta), but where it ends is not marked (no UUIDv7 turn ids); counted as this session's own"
            ),
        ]
    );
}

/// The CLI lists P with its child (one row, 7 calls, 1 subagent) and
/// `show` on P names the fork.
#[test]
fn cli_lists_the_fork_under_its_parent() {
    let p = real_lines();
    let dir = tempfile::tempdir().expect("tempdir");
    write_jsonl(rollout_path(dir.path(), P_ID), &p);
    write_jsonl(rollout_path(dir.path(), F_ID), &fork_lines(&p));
    let out = hookscope()
        .args(["sessions", "--json"])
        .arg(dir.path())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).expect("json");
    let rows = v.as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 1, "{v}");
    assert_eq!(rows[0]["id"], json!(P_ID));
    assert_eq!(rows[0]["agent"], json!(Agent::Codex.as_str()));
    assert_eq!(rows[0]["tool_calls"], json!(7));
    assert_eq!(rows[0]["subagents"], json!(1));
}

/// G, a fork of the fork F (its copy = F's 64 lines at 2–65: F's meta,
/// P's copy, F's own turn), with P and F present: both are P's subagents;
/// G counts its own turn only (1 call; usage over F's final total, input
/// (86335 + 700) − (69045 + 500) − 17290 = 200, output 5, cached 500).
/// P 6 + F 1 + G 1 calls, each once.
#[test]
fn a_fork_of_a_fork_counts_each_part_once() {
    let p = real_lines();
    let f = fork_lines(&p);
    let g_id = "01a2287b-4000-7000-8000-00000000a001";
    let g_turn = "01a2287b-4001-7000-8000-00000000a0b1";
    let ts = "2026-11-29T19:04:00.000Z";
    let mut g = vec![meta(&p, g_id, ts, json!({"forked_from_id": F_ID}))];
    g.extend(copied(&f, ts));
    g.extend(own_turn(
        &p,
        g_turn,
        "2026-11-29T19:04:01.000Z",
        "[fork of fork] hi",
        "call_g_1",
        (
            P_TOTAL.0 + 10400 + 700,
            P_TOTAL.1 + 8300 + 500,
            P_TOTAL.2 + 50 + 5,
        ),
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    write_jsonl(rollout_path(dir.path(), P_ID), &p);
    write_jsonl(rollout_path(dir.path(), F_ID), &f);
    write_jsonl(rollout_path(dir.path(), g_id), &g);
    let s = only_session(dir.path());
    assert_eq!(s.id, P_ID);
    let subs: Vec<(&str, usize, Usage)> = s
        .subagents
        .iter()
        .map(|x| {
            (
                x.agent_id.as_deref().unwrap_or(""),
                x.tool_calls().count(),
                x.usage,
            )
        })
        .collect();
    assert_eq!(
        subs,
        vec![
            (F_ID, 1, usage(2100, 50, 8300)),
            (g_id, 1, usage(200, 5, 500))
        ]
    );
    assert_eq!(
        s.subagents[1]
            .meta
            .as_ref()
            .map(|m| m["replayed_lines"].clone()),
        Some(json!({"first_line": 2, "last_line": 65, "lines": 64}))
    );
    assert_eq!(s.summary().tool_calls, 8);
    assert!(s.diagnostics.is_empty(), "{:?}", messages(&s));
}

/// The same fork twice (a copy of F with the same id in another folder):
/// loaded once, the copy reported.
#[test]
fn a_child_copied_twice_is_counted_once() {
    let p = real_lines();
    let dir = tempfile::tempdir().expect("tempdir");
    write_jsonl(rollout_path(dir.path(), P_ID), &p);
    write_jsonl(rollout_path(dir.path(), F_ID), &fork_lines(&p));
    let copy = dir.path().join(format!(
        "sessions/2026/11/30/rollout-2026-11-29T19-00-00-{F_ID}.jsonl"
    ));
    write_jsonl(&copy, &fork_lines(&p));
    let s = only_session(dir.path());
    assert_eq!(s.subagents.len(), 1);
    assert_eq!(s.summary().tool_calls, 7);
    assert_eq!(
        messages(&s),
        vec![format!(
            "{}: child rollout {F_ID} has the id of {}; not counted again",
            copy.display(),
            rollout_path(dir.path(), F_ID).display()
        )]
    );
}

/// `show` on P lists the fork F as its subagent with F's own call only
/// (P's 6 calls are not repeated under it).
#[test]
fn show_names_the_fork_under_its_parent() {
    let p = real_lines();
    let dir = tempfile::tempdir().expect("tempdir");
    write_jsonl(rollout_path(dir.path(), P_ID), &p);
    write_jsonl(rollout_path(dir.path(), F_ID), &fork_lines(&p));
    let out = hookscope()
        .args(["show", "01a2287a"])
        .arg(dir.path())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains("1 turn, 7 tool calls, 1 error, 1 subagent, 0 diagnostics"),
        "{text}"
    );
    let tail: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("unlinked subagent: "))
        .collect();
    assert_eq!(tail.len(), 2, "{text}");
    assert!(
        tail[0].starts_with(&format!("unlinked subagent: {F_ID} (")),
        "{text}"
    );
    assert!(tail[1].ends_with("[call_fork_1]"), "{text}");
}

/// A fork written without UUIDv7 turn ids (P' and F' = P and F with every
/// turn id replaced by a plain string): its copy's end is not marked, so
/// with its parent present it is found by comparing F' with P' (lines 2–47
/// equal P' lines 1–46 but for timestamps; line 48 matches no later line),
/// and F' counts its own part only; alone, it counts everything and says
/// so.
#[test]
fn an_unmarked_copy_is_found_by_comparing_with_the_parent() {
    let mut p = real_lines();
    for v in &mut p {
        retag(v, "turn-of-p");
    }
    let mut f = fork_lines(&p);
    for v in &mut f[47..] {
        retag(v, "turn-of-f");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    write_jsonl(rollout_path(dir.path(), P_ID), &p);
    write_jsonl(rollout_path(dir.path(), F_ID), &f);
    let s = only_session(dir.path());
    assert_eq!(s.subagents.len(), 1);
    let sub = &s.subagents[0];
    assert_eq!(
        sub.tool_calls()
            .map(|c| c.tool_use_id.as_str())
            .collect::<Vec<_>>(),
        vec!["call_fork_1"]
    );
    assert_eq!(sub.usage, usage(2100, 50, 8300));
    assert_eq!(
        sub.meta.as_ref().map(|m| m["replayed_lines"].clone()),
        Some(json!({"first_line": 2, "last_line": 47, "lines": 46}))
    );
    assert!(s.diagnostics.is_empty(), "{:?}", messages(&s));

    std::fs::remove_file(rollout_path(dir.path(), P_ID)).expect("rm");
    let alone = only_session(dir.path());
    assert_eq!(alone.tool_calls().count(), 7);
    assert_eq!(alone.diagnostics.len(), 2, "{:?}", messages(&alone));
}
