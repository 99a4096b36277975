//! TEMPORARY stand-in for `crate::query` until the query branch is merged:
//! validates the tool-name rule and finds nothing. Replaced at merge by calls
//! to `crate::query::{FindParams, find_tool_calls}`.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::transcript::SessionRef;

/// Agent names the `agent` parameter accepts.
pub const KNOWN_AGENTS: &[&str] = &["claude-code", "codex", "opencode", "droid"];
/// The largest `limit`.
pub const MAX_LIMIT: usize = 10_000;
/// The `limit` when none is given.
pub const DEFAULT_LIMIT: usize = 50;

/// Runs the query: `Ok((result object, warnings))` or `Err(invalid-argument message)`.
pub fn run(
    sessions: &[SessionRef],
    arguments: &Value,
    now: DateTime<Utc>,
) -> Result<(Value, Vec<String>), String> {
    let _ = (sessions, now);
    let given = |k: &str| {
        arguments
            .get(k)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    if given("tool_name") == given("tool_name_pattern") {
        return Err("set exactly one of tool_name or tool_name_pattern".to_string());
    }
    Ok((json!({"records": []}), Vec::new()))
}
