//! `hookscope hooks --decisions [SESSION] [--json]`: the live hook's
//! decision log read back (docs/live-hook.md#the-decision-log; the core's
//! `hooks::decisions`), oldest first, each with whether its rule file
//! changed since.
//!
//! One row per decision: time, short session id, event, `tool_use_id`
//! (`-` for none), verdict, the matched rules as `id(verdict)`, and the rule
//! file with `unchanged`, `changed since` or `unknown`. `--json` prints an
//! array of `hooks::decisions::Logged` objects. Secrets were masked when
//! the lines were written.

use std::path::Path;

use hookscope_core::hooks::decisions::{self, Logged, RulesNow};
use hookscope_core::transcript::short_session_id;

use super::{fail, print_json, print_text};

/// Prints the logged decisions in `log_dir` (default: the state folder's),
/// of the sessions whose id starts with `session` when given. Exits 2 when
/// the log folder cannot be listed.
pub fn run(session: Option<&str>, json: bool, log_dir: Option<&Path>) {
    let Some(dir) = log_dir
        .map(Path::to_path_buf)
        .or_else(decisions::default_dir)
    else {
        fail("no state folder (neither XDG_STATE_HOME nor a home folder)");
    };
    let logged = match decisions::read_all(&dir) {
        Ok(v) => v,
        Err(e) => fail(format!(
            "cannot read the decision log {}: {e}",
            dir.display()
        )),
    };
    let mut hashes = std::collections::HashMap::new();
    let items: Vec<Logged> = logged
        .iter()
        .filter(|v| {
            session.is_none_or(|s| {
                v.get("session_id")
                    .and_then(serde_json::Value::as_str)
                    .is_some_and(|id| id.starts_with(s))
            })
        })
        .filter_map(Logged::of)
        .map(|mut l| {
            l.check_rules(&mut hashes);
            l
        })
        .collect();
    if json {
        print_json(&serde_json::to_value(&items).unwrap_or_default());
        return;
    }
    if items.is_empty() {
        print_text(&nothing(&dir, session));
        return;
    }
    for l in &items {
        print_text(&row(l));
    }
}

/// The line printed when nothing is logged.
fn nothing(dir: &Path, session: Option<&str>) -> String {
    match session {
        Some(s) => format!(
            "no decisions logged for session {s} in {} (hookscope hook writes them)",
            dir.display()
        ),
        None => format!(
            "no decisions logged in {} (hookscope hook writes them)",
            dir.display()
        ),
    }
}

/// One row: `<time>  <session>  <event>  <tool_use_id>  <verdict>
/// <rules matched>  rules: <path> (<unchanged|changed since|unknown>)`.
pub fn row(l: &Logged) -> String {
    let matched: Vec<String> = l
        .matched
        .iter()
        .map(|r| format!("{}({})", r.id, r.verdict))
        .collect();
    let now = match l.rules_now {
        RulesNow::Unchanged => "unchanged",
        RulesNow::Changed => "changed since",
        RulesNow::Unknown => "cannot read it now",
    };
    let mut line = format!(
        "{}  {}  {}  {}  {}",
        l.time,
        if l.session_id.is_empty() {
            "-"
        } else {
            short_session_id(&l.session_id)
        },
        if l.event.is_empty() { "-" } else { &l.event },
        l.tool_use_id.as_deref().unwrap_or("-"),
        l.verdict,
    );
    if !matched.is_empty() {
        line.push_str(&format!("  {}", matched.join(" ")));
    }
    if let Some(f) = &l.failure {
        line.push_str(&format!("  ({f})"));
    }
    line.push_str(&format!("  rules: {} ({now})", l.rules_path));
    line
}
