//! One JSON description of a typed tool call, shared by `hookscope call` and
//! anything else that prints a call for scripts.

use serde_json::{Value, json};

use super::{ToolCall, file_path_of, hunks_of, tool_kind, tool_resolved};

/// Describes a call as JSON:
/// `{type, name, input, digest, tool_kind, tool_resolved, file_path, hunks:
/// [{old,new}], command_line, error}`.
///
/// * `type` — the typed variant (`"BashCall"`, `"OtherCall"`, …);
/// * `digest` — hooks.md §2.1, `null` when the input cannot be canonicalized
///   (then `digest_error` says why);
/// * `command_line` — for a `BashCall` only: the simple calls it runs,
///   `[{program, args, env, redirects, operator, span}]` (`crate::shell`),
///   followed by `{"error": "..."}` when the command did not parse, and by
///   `{"truncated": bytes_not_parsed|null, "calls_capped": bool, "note": "..."}`
///   when the parser's limits cut it (`shell::MAX_PARSED_BYTES`,
///   `shell::MAX_CALLS`); else `null`;
/// * `error` — the strict-parse failure an `OtherCall` degraded from.
pub fn describe(call: &ToolCall) -> Value {
    let raw = call.raw();
    let (digest, digest_error) = match call.digest() {
        Ok(d) => (Some(d), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let mut out = json!({
        "type": call.type_name(),
        "name": call.name(),
        "input": raw,
        "digest": digest,
        "tool_kind": tool_kind(call.name(), raw),
        "tool_resolved": tool_resolved(call.name(), raw),
        "file_path": file_path_of(call),
        "hunks": hunks_of(call),
        "command_line": command_line_json(call),
        "error": call.error(),
    });
    if let (Some(e), Value::Object(map)) = (digest_error, &mut out) {
        map.insert("digest_error".to_string(), Value::String(e));
    }
    out
}

fn command_line_json(call: &ToolCall) -> Value {
    match call {
        ToolCall::Bash(bash) => {
            let line = bash.command_line();
            let mut calls = serde_json::to_value(&line.calls).unwrap_or(Value::Null);
            let note = line.limits_note();
            if let Value::Array(items) = &mut calls {
                if let Some(error) = line.error {
                    items.push(json!({"error": error}));
                }
                if let Some(note) = note {
                    items.push(json!({
                        "truncated": line.truncated,
                        "calls_capped": line.calls_capped,
                        "note": note,
                    }));
                }
            }
            calls
        }
        _ => Value::Null,
    }
}
