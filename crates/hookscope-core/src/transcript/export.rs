//! JSON views of a loaded session, shared by `hookscope show --json` and any
//! other machine-readable output. Field names follow Claude Code's
//! (`tool_use_id`, `tool_kind`, …) and `find_tool_calls`'s records.
//!
//! Subagents are nested under the call that spawned them by walking the
//! session's [`SpawnTree`] (iterative, each thread once, at most
//! [`super::spawns::MAX_DEPTH`] levels), so a hand-made spawn cycle ends.
//! Paths are written lossily (invalid UTF-8 as U+FFFD).

use serde_json::{Map, Value, json};

use super::model::{Session, Subagent, ToolCallRecord};
use super::spawns::{SpawnTree, Step, ThreadId};
use crate::tools::file_path_of;

/// One tool call of `thread` (`None`: the main thread) of `session` as a
/// JSON object, without its subagent: `{tool_use_id, name, tool_kind,
/// tool_resolved, is_error, input, file_path, digest, timestamp, line}`
/// (`digest`: [`super::call_digest`], its numbers read from the line when
/// the value cannot tell them; `null` when refused).
pub fn tool_call_fields(
    session: &Session,
    thread: ThreadId,
    record: &ToolCallRecord,
) -> Map<String, Value> {
    let value = json!({
        "tool_use_id": record.tool_use_id,
        "name": record.name(),
        "tool_kind": record.tool_kind,
        "tool_resolved": record.tool_resolved,
        "is_error": record.is_error(),
        "input": record.call.raw(),
        "file_path": file_path_of(&record.call),
        "digest": super::call_digest(session, thread, record).ok(),
        "timestamp": record.timestamp,
        "line": record.line,
    });
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// A subagent as a JSON object, without its calls: `{agent_id, agent_type,
/// description, layout, link, path, models}` (`path` lossy).
pub fn subagent_fields(sub: &Subagent) -> Map<String, Value> {
    let value = json!({
        "agent_id": sub.agent_id,
        "agent_type": sub.agent_type,
        "description": sub.description,
        "layout": sub.layout,
        "link": sub.link,
        "path": sub.path.to_string_lossy(),
        "models": sub.models,
    });
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Subagent `i` of `session` as [`subagent_fields`] plus its `tool_calls`
/// (the nested call objects, turn indices dropped); an index past the
/// subagents gives only `tool_calls`.
fn subagent_with_calls(session: &Session, i: usize, calls: Vec<(usize, Value)>) -> Value {
    let mut sub = session
        .subagents
        .get(i)
        .map(subagent_fields)
        .unwrap_or_default();
    sub.insert(
        "tool_calls".to_string(),
        Value::Array(calls.into_iter().map(|(_, v)| v).collect()),
    );
    Value::Object(sub)
}

/// One frame of the nesting being built: the spawn call waiting for its
/// subagent's calls (its fields, the subagent index, the index of the call's
/// turn; none for a root), and the calls collected so far, each with the
/// index of its turn in its thread.
struct Frame {
    spawn: Option<(Map<String, Value>, usize, usize)>,
    calls: Vec<(usize, Value)>,
}

/// Every root thread of the session (main first, then detached subagents)
/// with its calls as JSON; a call that spawned a subagent carries
/// `subagent: {…subagent_fields, tool_calls: [...]}` nested below it.
fn nested_calls(session: &Session, tree: &SpawnTree) -> Vec<(ThreadId, Vec<(usize, Value)>)> {
    let mut roots = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    for step in tree.walk_session(session) {
        match step {
            Step::Enter { depth: 0, .. } => stack.push(Frame {
                spawn: None,
                calls: Vec::new(),
            }),
            Step::Enter { .. } => {}
            Step::Call {
                at,
                record,
                expands,
                ..
            } => {
                let fields = tool_call_fields(session, at.thread, record);
                match expands {
                    Some(i) => stack.push(Frame {
                        spawn: Some((fields, i, at.turn)),
                        calls: Vec::new(),
                    }),
                    None => {
                        if let Some(top) = stack.last_mut() {
                            top.calls.push((at.turn, Value::Object(fields)));
                        }
                    }
                }
            }
            Step::Leave { thread, .. } => {
                let Some(frame) = stack.pop() else {
                    continue;
                };
                match frame.spawn {
                    Some((mut fields, i, turn)) => {
                        fields.insert(
                            "subagent".to_string(),
                            subagent_with_calls(session, i, frame.calls),
                        );
                        if let Some(top) = stack.last_mut() {
                            top.calls.push((turn, Value::Object(fields)));
                        }
                    }
                    None => roots.push((thread, frame.calls)),
                }
            }
        }
    }
    roots
}

/// The whole session: the [`super::SessionSummary`] fields plus `turns`
/// (each `{index, prompt, line, timestamp, rejected, tool_call_count,
/// subagent_count, tool_calls}`, `rejected` true for a prompt a hook
/// rejected (the turn never started, [`super::Turn::rejected`]), a spawn's
/// subagent nested under it; the counts are the
/// turn's own calls and subagents plus those of its subagents, transitively,
/// as [`super::spawns`] defines them), `unlinked_subagents` (subagents not reached from the
/// main thread: no spawn call, or a hand-made spawn cycle; each with its
/// `tool_calls`) and `diagnostic_messages` (`path:line: message` strings).
pub fn session_json(session: &Session) -> Value {
    let tree = SpawnTree::new(session);
    let mut value = serde_json::to_value(session.summary_with(&tree))
        .unwrap_or_else(|_| Value::Object(Map::new()));
    let mut turns: Vec<Vec<Value>> = vec![Vec::new(); session.turns.len()];
    let mut unlinked = Vec::new();
    for (thread, calls) in nested_calls(session, &tree) {
        match thread {
            None => {
                for (t, call) in calls {
                    if let Some(list) = turns.get_mut(t) {
                        list.push(call);
                    }
                }
            }
            Some(i) => {
                unlinked.push(subagent_with_calls(session, i, calls));
            }
        }
    }
    if let Value::Object(map) = &mut value {
        map.insert(
            "turns".to_string(),
            Value::Array(
                session
                    .turns
                    .iter()
                    .zip(turns)
                    .enumerate()
                    .map(|(i, (turn, calls))| {
                        json!({
                            "index": i,
                            "prompt": turn.prompt,
                            "line": turn.prompt_line,
                            "timestamp": turn.timestamp,
                            "rejected": turn.rejected,
                            "tool_call_count": tree.turn_tool_calls(session, None, i),
                            "subagent_count": tree.turn_subagents(session, None, i).len(),
                            "tool_calls": calls,
                        })
                    })
                    .collect(),
            ),
        );
        map.insert("unlinked_subagents".to_string(), Value::Array(unlinked));
        map.insert(
            "diagnostic_messages".to_string(),
            Value::Array(
                session
                    .diagnostics
                    .iter()
                    .map(|d| Value::String(d.to_string()))
                    .collect(),
            ),
        );
    }
    value
}
