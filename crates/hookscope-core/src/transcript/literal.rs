//! The digest of a loaded call with its numbers read from the transcript's
//! own text (docs/payloads.md "Hook payloads", "The digest").
//!
//! A loaded call holds its input as a `serde_json::Value`, in which a float
//! `>= 2^64` (or `<= -2^63`) may have been the float literal `1e21` (which
//! the digest writes `1e+21`) or an integer literal beyond 64 bits (which it
//! refuses): [`crate::tools::tool_digest`] refuses both. Keeping every
//! input's text would raise load memory, so only then — rarely — the call's
//! line is read back from its file ([`call_digest`]) and the input's literal
//! found in it ([`digest_from_line`]) for Claude Code, Droid and Codex. An
//! OpenCode call keeps the refusal: its input is a record in a database or
//! a JSON file, not a line to read back.

use std::path::Path;

use crate::tools::raw_json::{NodeId, RawJson};
use crate::tools::{DigestError, tool_digest_text};

use super::model::{Agent, Session, ToolCallRecord};

/// The most of a transcript's text read to reach a call's line (the
/// loader's own longest line, 256 MiB, past which lines are skipped).
pub const LINE_READ_CAP: u64 = 1 << 30;

/// The digest of `call`, a call of `thread` (`None`: the main thread) of
/// `session`: [`crate::tools::ToolCall::digest`], and when that is refused
/// as [`DigestError::AmbiguousNumber`], the digest of the input's literal
/// text read back from the call's line ([`digest_from_line`]). Reading the
/// line streams the file up to it (at most [`LINE_READ_CAP`] bytes, one
/// line in memory); the refusal stands when the line cannot be read or the
/// call is not found on it (the file changed since it was loaded, an
/// OpenCode session).
///
/// # Errors
/// The [`DigestError`] of the literal (an integer literal beyond 2^53−1
/// stays refused), else the refusal of the value.
pub fn call_digest(
    session: &Session,
    thread: Option<usize>,
    call: &ToolCallRecord,
) -> Result<String, DigestError> {
    let first = call.call.digest();
    if !matches!(first, Err(DigestError::AmbiguousNumber(_))) || session.agent == Agent::OpenCode {
        return first;
    }
    match nth_line(session.thread_path(thread), call.line) {
        Some(line) => {
            digest_from_line(session.agent, &line, &call.tool_use_id, call.name()).unwrap_or(first)
        }
        None => first,
    }
}

/// Line `n` (1-based) of the text of `path`, as the loaders read it.
fn nth_line(path: &Path, n: usize) -> Option<Vec<u8>> {
    let mut found = None;
    let reached = super::fsread::each_line_until(path, n, LINE_READ_CAP, |i, bytes| {
        if i == n {
            found = Some(bytes.to_vec());
        }
    });
    reached.ok().filter(|r| *r).and(found)
}

/// The input of the call `tool_use_id` on one transcript line (its raw
/// bytes: trimmed, a byte order mark dropped, invalid UTF-8 decoded
/// lossily, as the loaders do), digested from its literal text
/// ([`crate::tools::digest::tool_digest_raw`]) under the name `name`. Where the
/// input is found, by agent:
///
/// * Claude Code and Droid: the `tool_use` block of `message.content` whose
///   `id` is `tool_use_id`, its `input`;
/// * Codex: the item (`payload` of the envelope, or the bare legacy line)
///   whose `call_id` (else `id`) is `tool_use_id`: a `function_call`'s
///   `arguments` (a JSON text inside a string, read as text), a
///   `custom_tool_call`'s `input`, a `local_shell_call` / `web_search_call`
///   `action`, a `tool_search_call`'s `arguments`, an `event_msg`
///   `tool_call`'s `input`;
/// * OpenCode: none (no lines).
///
/// `None` when the line is not JSON or holds no such call.
pub fn digest_from_line(
    agent: Agent,
    line: &[u8],
    tool_use_id: &str,
    name: &str,
) -> Option<Result<String, DigestError>> {
    let text = String::from_utf8_lossy(super::jsonl::line_bytes(line));
    let raw = RawJson::parse(&text).ok()?;
    let root = raw.root();
    let digest = |input: Option<NodeId>| crate::tools::digest::tool_digest_raw(name, &raw, input);
    // An absent or null input is `null` in the digest.
    let present = |n: Option<NodeId>| n.filter(|n| !raw.is_null(*n));
    match agent {
        Agent::ClaudeCode | Agent::Droid => {
            let content = raw
                .get(root, "message")
                .and_then(|m| raw.get(m, "content"))?;
            let block = raw.items(content).iter().copied().find(|b| {
                raw.get(*b, "type").and_then(|t| raw.str(t)).as_deref() == Some("tool_use")
                    && raw.get(*b, "id").and_then(|i| raw.str(i)).as_deref() == Some(tool_use_id)
            })?;
            Some(digest(present(raw.get(block, "input"))))
        }
        Agent::Codex => {
            let item = raw.get(root, "payload").unwrap_or(root);
            let text_of = |key: &str| raw.get(item, key).and_then(|n| raw.str(n));
            let id = text_of("call_id").or_else(|| text_of("id"));
            if id.as_deref() != Some(tool_use_id) {
                return None;
            }
            let field = match text_of("type").as_deref()? {
                "function_call" => {
                    let args = present(raw.get(item, "arguments"));
                    return match args.map(|a| raw.str(a)) {
                        // The arguments text: its own literals.
                        Some(Some(text)) => Some(tool_digest_text(name, Some(&text))),
                        Some(None) | None => Some(digest(args)),
                    };
                }
                "custom_tool_call" | "tool_call" => "input",
                "local_shell_call" | "web_search_call" => "action",
                "tool_search_call" => "arguments",
                _ => return None,
            };
            Some(digest(present(raw.get(item, field))))
        }
        Agent::OpenCode => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// python: hashlib.sha256('{"input":{"n":1e+21,"x":1,"é":"ü"},"tool":"X"}'.encode()).hexdigest()
    const EXAMPLE: &str = "63ce656ba5d0f6d7d603e8809f8cec1019dbdb8e2bb02c53ee783f7ae7a44fb8";

    #[test]
    fn the_input_literal_is_found_on_each_agents_line() {
        let input = r#"{"x":1.0,"\u00e9":"\u00fc","n":1e21}"#;
        let claude = format!(
            r#"{{"type":"assistant","message":{{"content":[{{"type":"text","text":"hi"}},{{"type":"tool_use","id":"t2","name":"X","input":{{"n":0}}}},{{"type":"tool_use","id":"t1","name":"X","input":{input}}}]}}}}"#
        );
        let got = |agent, line: &str, id| digest_from_line(agent, line.as_bytes(), id, "X");
        assert_eq!(
            got(Agent::ClaudeCode, &claude, "t1"),
            Some(Ok(EXAMPLE.into()))
        );
        assert_eq!(got(Agent::Droid, &claude, "t1"), Some(Ok(EXAMPLE.into())));
        assert_eq!(got(Agent::ClaudeCode, &claude, "t9"), None);
        let args = serde_json::to_string(input).expect("string");
        let codex = format!(
            r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"function_call","name":"X","arguments":{args},"call_id":"c1"}}}}"#
        );
        assert_eq!(got(Agent::Codex, &codex, "c1"), Some(Ok(EXAMPLE.into())));
        assert_eq!(got(Agent::Codex, &codex, "c2"), None);
        let legacy = format!(r#"{{"type":"local_shell_call","call_id":"c3","action":{input}}}"#);
        assert_eq!(got(Agent::Codex, &legacy, "c3"), Some(Ok(EXAMPLE.into())));
        assert_eq!(got(Agent::OpenCode, &claude, "t1"), None);
        // An integer literal beyond 2^53−1 stays refused.
        let big = claude.replace("1e21", "1000000000000000000000");
        assert_eq!(
            got(Agent::ClaudeCode, &big, "t1"),
            Some(Err(DigestError::UnsafeInteger(
                "1000000000000000000000".into()
            )))
        );
    }
}
