//! Text helpers shared by the loaders and every view: flattening a
//! `message.content` value to text (docs/transcripts.md#user-lines-and-tool-results), how a prompt reads on
//! screen, and one-line summaries.

use serde_json::Value;

/// How a prompt reads on screen: a slash command written as
/// `<command-name>/x</command-name>…<command-args>a</command-args>` becomes
/// `/x a`; any other text is returned unchanged.
pub fn display_prompt(text: &str) -> String {
    let tag = |name: &str| {
        let open = format!("<{name}>");
        let close = format!("</{name}>");
        let start = text.find(&open)? + open.len();
        let end = text[start..].find(&close)? + start;
        Some(text[start..end].trim().to_string())
    };
    match tag("command-name") {
        Some(command) => match tag("command-args").filter(|a| !a.is_empty()) {
            Some(args) => format!("{command} {args}"),
            None => command,
        },
        None => text.to_string(),
    }
}

/// Collapses whitespace to single spaces and cuts to `max` chars with `…`.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > max {
            break;
        }
    }
    if out.chars().count() > max {
        let cut: String = out.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        out
    }
}

/// Flattens a `message.content` / `tool_result.content` value to text: a
/// string as is; text blocks joined by newlines; images as placeholders.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            let mut parts: Vec<String> = Vec::new();
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = block.get("text").and_then(Value::as_str) {
                            parts.push(t.to_string());
                        }
                    }
                    Some("image") => {
                        let source = block.get("source");
                        let media = source
                            .and_then(|s| s.get("media_type"))
                            .and_then(Value::as_str)
                            .unwrap_or("image");
                        let len = source
                            .and_then(|s| s.get("data"))
                            .and_then(Value::as_str)
                            .map_or(0, str::len);
                        parts.push(format!("[image: {media}, {len} bytes base64]"));
                    }
                    Some("tool_reference") => {
                        if let Some(name) = block.get("tool_name").and_then(Value::as_str) {
                            parts.push(format!("[tool_reference: {name}]"));
                        }
                    }
                    Some(_) | None => {
                        if let Value::String(s) = block {
                            parts.push(s.clone());
                        }
                    }
                }
            }
            parts.join("\n")
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The text of a replaced tool output (a hook's `updatedToolOutput`, as the core's `HookActivity::updated_output` keeps it):
/// a string as is; a Bash-shaped object's `stdout` (and `stderr` after a
/// line break when not empty); MCP `content` blocks as text; anything else
/// as compact JSON.
pub fn output_text(output: &Value) -> String {
    match output {
        Value::String(s) => s.clone(),
        Value::Object(map) if map.contains_key("stdout") => {
            let part = |k: &str| map.get(k).map(content_text).unwrap_or_default();
            let (out, err) = (part("stdout"), part("stderr"));
            if err.is_empty() {
                out
            } else {
                format!("{out}\n{err}")
            }
        }
        Value::Object(map) if map.contains_key("content") => {
            map.get("content").map(content_text).unwrap_or_default()
        }
        other => other.to_string(),
    }
}
