//! `hookscope hooks --activity SESSION [--json] [PATH...]`: every hook
//! firing the session's transcripts record (docs/cli.md#hookscope-hooks---activity-what-the-transcript-says-hooks-did; the core's
//! `transcript::hook_activity`), main thread first, then each subagent.
//!
//! The table has one row per firing: the line, the event (`hookName` when
//! recorded, e.g. `PreToolUse:Bash`), the `tool_use_id` it belongs to (`-`
//! for none), what it did, and the handler with its exit code and duration.
//! `--json` prints an array of `transcript::hook_activity::activity_json`
//! objects (secrets masked).

use std::ffi::OsStr;
use std::path::PathBuf;

use hookscope_core::transcript::hook_activity::{HookActivity, activity_json};
use hookscope_core::transcript::text::one_line;
use serde_json::Value;

use super::{print_json, print_text, show::load_or_exit};

/// Prints the hook activity of SESSION (an id, a unique id prefix, or a
/// path) found under `paths`. Exits 2 when the session cannot be resolved
/// or read (as `show`).
pub fn run(session: &OsStr, paths: &[PathBuf], json: bool) {
    let session = load_or_exit(session, paths);
    if json {
        let items: Vec<Value> = session
            .all_hook_activity()
            .map(|(thread, a)| {
                let agent_id = thread
                    .and_then(|i| session.subagents.get(i))
                    .and_then(|s| s.agent_id.as_deref());
                activity_json(a, session.thread_path(thread), agent_id, true)
            })
            .collect();
        print_json(&Value::Array(items));
        return;
    }
    let mut rows = 0usize;
    for (thread, a) in session.all_hook_activity() {
        let where_ = match thread.and_then(|i| session.subagents.get(i)) {
            Some(s) => format!(
                "subagent {} line {}",
                s.agent_id.as_deref().unwrap_or("?"),
                a.line()
            ),
            None => format!("line {}", a.line()),
        };
        print_text(&row(&where_, a));
        rows += 1;
    }
    if rows == 0 {
        print_text(&format!("no hook activity recorded in {}", session.id));
    }
}

/// One table row: `<where>  <event>  <tool_use_id>  <what>  <handler>`,
/// secrets masked.
fn row(where_: &str, a: &HookActivity) -> String {
    let event = a.hook_name.as_deref().unwrap_or(a.event_name());
    let id = a.tool_use_id.as_deref().unwrap_or("-");
    let mut handler = a
        .command
        .as_deref()
        .map_or_else(|| "(handler not recorded)".to_string(), |c| one_line(c, 80));
    let mut facts = Vec::new();
    if let Some(code) = a.exit_code {
        facts.push(format!("exit {code}"));
    }
    if let Some(ms) = a.duration_ms {
        facts.push(format!("{ms} ms"));
    }
    if !facts.is_empty() {
        handler = format!("{handler} ({})", facts.join(", "));
    }
    let text = format!(
        "{where_:<10}  {event:<22}  {id:<32}  {}  [{handler}]",
        a.what(120)
    );
    let mut counts = hookscope_core::redact::Redactions::default();
    hookscope_core::redact::redactor()
        .redact(&text, &mut counts)
        .into_owned()
}
