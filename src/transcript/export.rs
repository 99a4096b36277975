//! JSON views of a loaded session, shared by `hookscope show --json` and any
//! other machine-readable output. Field names follow Claude Code's
//! (`tool_use_id`, `tool_kind`, …) and `find_tool_calls`'s records.

use serde_json::{Value, json};

use super::model::{Session, Subagent, ToolCallRecord, Turn};
use crate::tools::file_path_of;

/// One tool call as JSON:
/// `{tool_use_id, name, tool_kind, tool_resolved, is_error, input, file_path,
/// digest, timestamp, line, subagent?}`. `subagent` is present on a spawn
/// linked to its transcript: `{agent_id, agent_type, description, layout,
/// link, path, tool_calls: [...]}` (recursively).
pub fn tool_call_json(session: &Session, record: &ToolCallRecord) -> Value {
    let mut value = json!({
        "tool_use_id": record.tool_use_id,
        "name": record.name(),
        "tool_kind": record.tool_kind,
        "tool_resolved": record.tool_resolved,
        "is_error": record.is_error(),
        "input": record.call.raw(),
        "file_path": file_path_of(&record.call),
        "digest": record.digest(),
        "timestamp": record.timestamp,
        "line": record.line,
    });
    if let Some(sub) = record.subagent.and_then(|i| session.subagents.get(i))
        && let Value::Object(map) = &mut value
    {
        map.insert("subagent".to_string(), subagent_json(session, sub));
    }
    value
}

/// A subagent as JSON: `{agent_id, agent_type, description, layout, link,
/// path, models, tool_calls}`.
pub fn subagent_json(session: &Session, sub: &Subagent) -> Value {
    json!({
        "agent_id": sub.agent_id,
        "agent_type": sub.agent_type,
        "description": sub.description,
        "layout": sub.layout,
        "link": sub.link,
        "path": sub.path,
        "models": sub.models,
        "tool_calls": sub.tool_calls().map(|r| tool_call_json(session, r)).collect::<Vec<_>>(),
    })
}

fn turn_json(session: &Session, index: usize, turn: &Turn) -> Value {
    json!({
        "index": index,
        "prompt": turn.prompt,
        "line": turn.prompt_line,
        "timestamp": turn.timestamp,
        "tool_calls": turn.tool_calls().map(|r| tool_call_json(session, r)).collect::<Vec<_>>(),
    })
}

/// The whole session: the [`super::SessionSummary`] fields plus `turns`
/// (each `{index, prompt, line, timestamp, tool_calls}`), `unlinked_subagents`
/// (subagents not tied to any spawn) and `diagnostic_messages`.
pub fn session_json(session: &Session) -> Value {
    let mut value = serde_json::to_value(session.summary()).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.insert(
            "turns".to_string(),
            Value::Array(
                session
                    .turns
                    .iter()
                    .enumerate()
                    .map(|(i, t)| turn_json(session, i, t))
                    .collect(),
            ),
        );
        map.insert(
            "unlinked_subagents".to_string(),
            Value::Array(
                session
                    .subagents
                    .iter()
                    .filter(|s| s.spawn_tool_use_id.is_none())
                    .map(|s| subagent_json(session, s))
                    .collect(),
            ),
        );
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
