//! The line-level JSON-RPC checks in front of the MCP server (no transport).
//!
//! `hookscope mcp` reads newline-delimited JSON-RPC 2.0 from stdin (MCP
//! stdio transport). Before a line reaches the protocol library it is
//! classified here, so that every request gets an answer:
//!
//! - a line that is not JSON gets a `-32700` Parse error (`id: null`), as
//!   JSON-RPC 2.0 §5.1 says;
//! - JSON that is not a request, notification or response object gets
//!   `-32600` Invalid Request (with the request's `id` when it has a usable
//!   one, else `null`);
//! - a `tools/call` whose `params` are not an object with a string `name`
//!   and an object (or absent / `null`) `arguments`, or that names another
//!   tool than those of [`super::TOOL_NAMES`], gets `-32602` Invalid params (MCP
//!   2025-06-18, Tools § Error Handling: unknown tools and invalid arguments
//!   are protocol errors);
//! - everything else is forwarded; a forwarded request's `id` is reported
//!   so the server can wait for its answer before it exits.

use serde_json::{Value, json};

/// JSON-RPC 2.0 Parse error: the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0 Invalid Request: JSON, but not a request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC 2.0 Invalid params (also MCP's code for an unknown tool).
pub const INVALID_PARAMS: i64 = -32602;

/// What to do with one stdin line.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// An empty (or whitespace-only) line: nothing to do.
    Blank,
    /// Answer it at once with this JSON-RPC error response; do not forward.
    Reply(Value),
    /// Forward the line to the protocol library.
    Forward {
        /// The request's `id` (a string or a number) when the line is a
        /// request, which must be answered; `None` for notifications and
        /// responses.
        request_id: Option<Value>,
        /// For `notifications/cancelled`: the `params.requestId` it cancels
        /// (a cancelled request gets no answer, MCP 2025-06-18
        /// Cancellation).
        cancels: Option<Value>,
    },
}

/// A JSON-RPC 2.0 error response: `{"jsonrpc": "2.0", "id": id, "error":
/// {"code": code, "message": message}}`.
pub fn error_response(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Classifies one line of stdin (without its `\n`; any bytes, not
/// necessarily UTF-8).
pub fn classify(line: &[u8]) -> Incoming {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Incoming::Blank;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Reply(error_response(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: {e}"),
            ));
        }
    };
    let Some(object) = value.as_object() else {
        return Incoming::Reply(error_response(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: a message must be a JSON object (batches are not supported)",
        ));
    };
    let id = object.get("id");
    let usable_id = id.filter(|i| i.is_string() || i.is_number()).cloned();
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Incoming::Reply(error_response(
            usable_id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            "Invalid Request: \"jsonrpc\" must be \"2.0\"",
        ));
    }
    let Some(method) = object.get("method") else {
        // A response to a request of the server (`result` or `error`).
        return if id.is_some() && (object.contains_key("result") || object.contains_key("error")) {
            Incoming::Forward {
                request_id: None,
                cancels: None,
            }
        } else {
            Incoming::Reply(error_response(
                usable_id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "Invalid Request: no \"method\"",
            ))
        };
    };
    let Some(method) = method.as_str() else {
        return Incoming::Reply(error_response(
            usable_id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            "Invalid Request: \"method\" must be a string",
        ));
    };
    let Some(id) = id else {
        // A notification: never answered.
        let cancels = (method == "notifications/cancelled")
            .then(|| object.get("params")?.get("requestId").cloned())
            .flatten();
        return Incoming::Forward {
            request_id: None,
            cancels,
        };
    };
    let Some(id) = usable_id else {
        return Incoming::Reply(error_response(
            Value::Null,
            INVALID_REQUEST,
            &format!("Invalid Request: \"id\" must be a string or a number, got {id}"),
        ));
    };
    if method == "tools/call"
        && let Err(why) = check_call_params(object.get("params"))
    {
        return Incoming::Reply(error_response(
            id,
            INVALID_PARAMS,
            &format!("Invalid params: {why}"),
        ));
    }
    Incoming::Forward {
        request_id: Some(id),
        cancels: None,
    }
}

/// Checks a `tools/call` request's `params` (MCP 2025-06-18
/// `CallToolRequest`: `{name: string, arguments?: object}`).
fn check_call_params(params: Option<&Value>) -> Result<(), String> {
    let Some(params) = params.and_then(Value::as_object) else {
        return Err("tools/call params must be an object {name, arguments}".to_string());
    };
    let name = match params.get("name") {
        Some(Value::String(n)) => n,
        Some(other) => return Err(format!("\"name\" must be a string, got {other}")),
        None => return Err("\"name\" is missing".to_string()),
    };
    if !super::TOOL_NAMES.contains(&name.as_str()) {
        return Err(format!(
            "Unknown tool: {name} (this server has {})",
            super::TOOL_NAMES.join(", ")
        ));
    }
    match params.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => Ok(()),
        Some(other) => Err(format!("\"arguments\" must be an object, got {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &str) -> Value {
        match classify(line.as_bytes()) {
            Incoming::Reply(v) => v,
            other => panic!("not a reply: {other:?}"),
        }
    }

    #[test]
    fn not_json_is_a_parse_error_with_a_null_id() {
        let v = reply("{\"jsonrpc\": \"2.0\", \"id\": 1,");
        assert_eq!(v["id"], Value::Null);
        assert_eq!(v["error"]["code"], -32700);
        assert_eq!(v["jsonrpc"], "2.0");
        let v = match classify(b"\xff\xfe") {
            Incoming::Reply(v) => v,
            other => panic!("{other:?}"),
        };
        assert_eq!(v["error"]["code"], -32700);
        assert_eq!(classify(b"  \t"), Incoming::Blank);
    }

    #[test]
    fn bad_requests_are_invalid_requests() {
        for (line, id) in [
            ("[1, 2]", Value::Null),
            ("42", Value::Null),
            (r#"{"id": 3, "method": "tools/list"}"#, json!(3)),
            (r#"{"jsonrpc": "2.0", "id": "a", "method": 5}"#, json!("a")),
            (
                r#"{"jsonrpc": "2.0", "id": [1], "method": "ping"}"#,
                Value::Null,
            ),
            (r#"{"jsonrpc": "2.0", "id": 4}"#, json!(4)),
        ] {
            let v = reply(line);
            assert_eq!(v["error"]["code"], -32600, "{line}");
            assert_eq!(v["id"], id, "{line}");
        }
    }

    #[test]
    fn bad_tool_calls_are_invalid_params() {
        for (params, why) in [
            (
                json!("x"),
                "tools/call params must be an object {name, arguments}",
            ),
            (json!({"arguments": {}}), "\"name\" is missing"),
            (json!({"name": 7}), "\"name\" must be a string, got 7"),
            (
                json!({"name": "find_tool_calls", "arguments": [1]}),
                "\"arguments\" must be an object, got [1]",
            ),
            (
                json!({"name": "no_such_tool", "arguments": {}}),
                "Unknown tool: no_such_tool (this server has find_tool_calls, count_tool_calls, hook_payload, replay_hook)",
            ),
        ] {
            let line = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params});
            let v = reply(&line.to_string());
            assert_eq!(
                v,
                json!({"jsonrpc": "2.0", "id": 9, "error": {"code": -32602, "message": format!("Invalid params: {why}")}})
            );
        }
    }

    #[test]
    fn requests_notifications_and_responses_are_forwarded() {
        let call = json!({"jsonrpc": "2.0", "id": "r1", "method": "tools/call",
            "params": {"name": "find_tool_calls", "arguments": null}});
        assert_eq!(
            classify(call.to_string().as_bytes()),
            Incoming::Forward {
                request_id: Some(json!("r1")),
                cancels: None
            }
        );
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 7}});
        assert_eq!(
            classify(cancel.to_string().as_bytes()),
            Incoming::Forward {
                request_id: None,
                cancels: Some(json!(7))
            }
        );
        let response = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        assert_eq!(
            classify(response.to_string().as_bytes()),
            Incoming::Forward {
                request_id: None,
                cancels: None
            }
        );
    }
}
