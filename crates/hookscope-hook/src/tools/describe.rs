//! One JSON description of a typed tool call, shared by `hookscope call` and
//! anything else that prints a call for scripts.

use serde_json::{Value, json};

use super::{ToolCall, file_path_of, hunks_of, tool_kind, tool_resolved};

/// Describes a call as JSON:
/// `{type, name, input, digest, tool_kind, tool_resolved, file_path, hunks:
/// [{old,new}], command_line, error}`.
///
/// * `type` — the typed variant (`"BashCall"`, `"OtherCall"`, …);
/// * `digest` — docs/tool-calls.md#the-digest, `null` when the input cannot be canonicalized
///   (then `digest_error` says why);
/// * `command_line` — for a `BashCall` only: the simple calls it runs,
///   `[{program, args, env, redirects, operator, span, display}]`
///   (`crate::shell`; `display` is `SimpleCall::display`, the call with its
///   words shell-quoted; a `sh -c 'script'` call also has `script_calls`, the
///   script's own calls in the same shape, up to `shell::MAX_SCRIPT_DEPTH`
///   levels),
///   followed by `{"error": "..."}` when the command did not parse, and by
///   `{"truncated": bytes_not_parsed|null, "calls_capped": bool, "note": "..."}`
///   when the parser's limits cut it (`shell::MAX_PARSED_BYTES`,
///   `shell::MAX_CALLS`); else `null`;
/// * `error` — the strict-parse failure an `OtherCall` degraded from.
pub fn describe(call: &ToolCall) -> Value {
    describe_with_digest(call, call.digest())
}

/// [`describe`] with the call's digest given: the one computed from the
/// input's JSON text ([`super::tool_digest_text`]) where the caller has it,
/// which reads numbers from their literals (`1e21` digests, a value holding
/// it cannot).
pub fn describe_with_digest(call: &ToolCall, digest: Result<String, super::DigestError>) -> Value {
    let raw = call.raw();
    let (digest, digest_error) = match digest {
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
            let mut calls = calls_json(&line.calls, 0);
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

/// The calls as JSON objects, each with its `display` text and, for a
/// `sh -c` call, its script's calls as `script_calls`.
fn calls_json(calls: &[crate::shell::SimpleCall], depth: usize) -> Value {
    let items = calls
        .iter()
        .map(|call| {
            let mut item = serde_json::to_value(call).unwrap_or(Value::Null);
            if let Value::Object(map) = &mut item {
                map.insert("display".to_string(), Value::String(call.display()));
                if depth < crate::shell::MAX_SCRIPT_DEPTH
                    && let Some(script) = call.shell_script()
                {
                    let inner = crate::shell::parse_command_line(&script);
                    map.insert(
                        "script_calls".to_string(),
                        calls_json(&inner.calls, depth + 1),
                    );
                }
            }
            item
        })
        .collect();
    Value::Array(items)
}
