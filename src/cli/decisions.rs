//! `hookscope hooks --decisions [SESSION] [--verdict V,…] [--all] [--json]`:
//! the live hook's decision log read back (docs/live-hook.md#the-decision-log;
//! the core's `hooks::decisions`), oldest first, each with whether its rule
//! file changed since.
//!
//! One row per decision: time, short session id, event, `tool_use_id`
//! (`-` for none), tool, verdict, the matched rules as `id(verdict)`, and
//! the rule file with `unchanged`, `changed since`, `cannot read it now` or
//! `not read`; under it, each matched rule's why (for a `none`, each rule
//! that got past its event and tool, as `not <id>: <why>`). The `none` answers are
//! left out unless `--all` or `--verdict none`, and a last line counts
//! them. `--json` prints an array of `hooks::decisions::Logged` objects,
//! filtered the same way. Secrets were masked when the lines were written.

use std::path::Path;

use hookscope_core::hooks::decisions::{self, Logged, RulesNow};
use hookscope_core::transcript::short_session_id;

use super::{fail, print_json, print_text};

/// A logged verdict, as `--verdict` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Verdict {
    /// A rule blocked.
    Block,
    /// A rule warned (and pre-approved, on PreToolUse).
    Warn,
    /// A rule added context.
    Context,
    /// A rule allowed.
    Allow,
    /// A rule rewrote the input.
    Rewrite,
    /// No rule acted.
    None,
    /// The hook failed (answered with `--on-error`).
    Error,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Verdict::Block => "block",
            Verdict::Warn => "warn",
            Verdict::Context => "context",
            Verdict::Allow => "allow",
            Verdict::Rewrite => "rewrite",
            Verdict::None => "none",
            Verdict::Error => "error",
        }
    }
}

/// Which decisions are listed.
pub struct Shown<'a> {
    /// Only these verdicts (empty: all but `none`, or all with `all`).
    pub verdicts: &'a [Verdict],
    /// Also the `none` answers.
    pub all: bool,
}

impl Shown<'_> {
    fn keeps(&self, verdict: &str) -> bool {
        if self.verdicts.is_empty() {
            self.all || verdict != "none"
        } else {
            self.verdicts.iter().any(|v| v.as_str() == verdict)
        }
    }
}

/// Prints the logged decisions in `log_dir` (default: the state folder's),
/// of the sessions whose id starts with `session` when given, those `shown`
/// keeps. Exits 2 when the log folder cannot be listed.
pub fn run(session: Option<&str>, shown: &Shown<'_>, json: bool, log_dir: Option<&Path>) {
    if log_dir.is_none()
        && let Some(note) = decisions::ignored_dir_note()
    {
        eprintln!("hookscope: {note}");
    }
    let Some(dir) = log_dir
        .map(Path::to_path_buf)
        .or_else(decisions::default_dir)
    else {
        fail("no state folder (neither XDG_STATE_HOME nor a home folder)");
    };
    let (logged, skipped) = match decisions::read_all_counted(&dir) {
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
        .collect();
    let total = items.len();
    let items: Vec<Logged> = items
        .into_iter()
        .filter(|l| shown.keeps(&l.verdict))
        .map(|mut l| {
            l.check_rules(&mut hashes);
            l
        })
        .collect();
    // What could not be read is said, on stderr (the JSON stays a list).
    if skipped.lines > 0 || skipped.files > 0 {
        errln!(
            "hookscope: the decision log {} has {} line{} that {} not an entry and {} day file{} that could not be read; skipped",
            dir.display(),
            skipped.lines,
            if skipped.lines == 1 { "" } else { "s" },
            if skipped.lines == 1 { "is" } else { "are" },
            skipped.files,
            if skipped.files == 1 { "" } else { "s" },
        );
    }
    if json {
        print_json(&serde_json::to_value(&items).unwrap_or_default());
        return;
    }
    if total == 0 {
        print_text(&nothing(&dir, session));
        return;
    }
    for l in &items {
        print_text(&row(l));
        for r in &l.matched {
            if !r.why.is_empty() {
                print_text(&format!("    {}: {}", r.id, r.why));
            }
        }
        // Why no rule acted: the rules that got past event and tool.
        if l.matched.is_empty() {
            for r in &l.considered {
                print_text(&format!("    not {}: {}", r.id, r.why));
            }
        }
    }
    let left = total - items.len();
    if left > 0 {
        let noun = if left == 1 { "decision" } else { "decisions" };
        print_text(&if shown.verdicts.is_empty() {
            format!("{left} {noun} with verdict none not shown (--all shows them)")
        } else {
            format!("{left} {noun} with other verdicts not shown")
        });
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

/// One row: `<time>  <session>  <event>  <tool_use_id>  <tool>  <verdict>
/// <rules matched>  rules: <path> (<unchanged|changed since|unknown>)`.
pub fn row(l: &Logged) -> String {
    let matched: Vec<String> = l
        .matched
        .iter()
        .map(|r| format!("{}({})", r.id, r.verdict))
        .collect();
    let now = match l.rules_now {
        RulesNow::Unchanged => "unchanged since",
        RulesNow::Changed => "changed since",
        RulesNow::Unknown => "cannot read it now",
        RulesNow::NotRead => "not read: the hook failed first",
    };
    let mut line = format!(
        "{}  {}  {}  {}  {}  {}",
        l.time,
        if l.session_id.is_empty() {
            "-"
        } else {
            short_session_id(&l.session_id)
        },
        match (&l.agent_id, l.event.is_empty()) {
            (_, true) => "-".to_string(),
            (Some(a), false) => format!("{} (subagent {a})", l.event),
            (None, false) => l.event.clone(),
        },
        l.tool_use_id.as_deref().unwrap_or("-"),
        l.tool_name.as_deref().unwrap_or("-"),
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
