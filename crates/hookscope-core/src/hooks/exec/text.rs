//! The text of an [`ExecReport`], rendered from its typed fields (its JSON
//! is `serde`'s): each handler run (what ran, where, how it ended, what it
//! printed, how its answer reads), the handlers not run or not reached, the
//! combined answer and the final outcome (docs/hooks-exec.md). Every string
//! that comes from a hook's output, a settings file or a transcript is
//! masked ([`crate::redact`]) before it is shown, as the report's JSON is;
//! long output is cut at [`SHOWN_CHARS`] characters with the rest counted.

use serde_json::Value;

use super::permissions::{FinalOutcome, describe_recorded};
use super::report::{ExecReport, HandlerReport};
use super::{RunStatus, effect_name};
use crate::hooks::result::{Effect, Outcome};
use crate::redact::{Redactions, Redactor};

/// Characters of a handler's stdout, stderr or `CLAUDE_ENV_FILE` shown
/// before the rest is counted (`--json` has it all).
pub const SHOWN_CHARS: usize = 2000;

/// A handler the event did not reach, as the report lists it (and as
/// `--json`'s `not_reached` holds it).
#[derive(Debug, Clone, serde::Serialize)]
pub struct NotReached {
    /// `#N file:line (layer)`.
    pub label: String,
    /// What it runs ([`crate::hooks::settings::Handler::summary`]).
    pub command: String,
    /// Why it was not reached.
    pub reason: String,
    /// A fix, when one is obvious.
    pub hint: Option<String>,
}

impl NotReached {
    /// `  not reached: LABEL: REASON[; HINT]` (the hint only when the
    /// reason does not already say it).
    pub fn line(&self) -> String {
        format!(
            "  not reached: {}: {}",
            self.label,
            crate::hooks::settings::fire::reason_with_hint(&self.reason, self.hint.as_deref())
        )
    }
}

/// The report's lines (module docs), `not_reached` after the handlers not
/// run; what `redactor` masks is added to `counts`.
pub fn report_lines(
    report: &ExecReport,
    not_reached: &[NotReached],
    redactor: &Redactor,
    counts: &mut Redactions,
) -> Vec<String> {
    let mask = &mut Masker { redactor, counts };
    let mut text = Vec::new();
    if report.handlers.is_empty() {
        text.push("  no command handler reached this event: nothing ran".into());
    }
    for h in &report.handlers {
        handler_lines(h, mask, &mut text);
    }
    for n in &report.not_run {
        text.push(format!(
            "  not run: {} ({}): {}",
            mask.text(&n.label),
            n.handler_type,
            mask.text(&n.reason)
        ));
    }
    for n in not_reached {
        text.push(n.line());
    }
    let c = &report.combined;
    text.push(format!(
        "combined: {}",
        effect_line(
            c.effect,
            c.model_sees.as_deref(),
            c.user_sees.as_deref(),
            c.updated_output.as_ref(),
            mask
        )
    ));
    if let Some(u) = c.updated_input.as_ref().filter(|u| !u.is_null()) {
        text.push(format!("  updatedInput: {}", mask.value(u)));
    }
    if !c.decided_by.is_empty() {
        text.push(format!(
            "  decided by: {}",
            mask.text(&c.decided_by.join(", "))
        ));
    }
    for f in &c.flags {
        text.push(format!("  flag: {}", mask.text(f)));
    }
    final_lines(&report.final_outcome, mask, &mut text);
    text
}

fn handler_lines(h: &HandlerReport, mask: &mut Masker, text: &mut Vec<String>) {
    let cap = |t: &str| {
        let t = t.trim_end().replace('\n', "⏎");
        match t.char_indices().nth(SHOWN_CHARS) {
            Some((i, _)) => format!(
                "{}… ({} more chars; --json has it all)",
                &t[..i],
                t[i..].chars().count()
            ),
            None => t,
        }
    };
    text.push(format!(
        "  {}: {}",
        mask.text(&h.label),
        mask.text(&h.command)
    ));
    let argv: Vec<String> = h
        .argv
        .iter()
        .map(|a| crate::shell::shell_quote(&mask.text(a)))
        .collect();
    text.push(format!("    ran: {}", argv.join(" ")));
    text.push(format!("    cwd: {}", mask.text(&h.cwd.to_string_lossy())));
    if let Some(n) = &h.cwd_note {
        text.push(format!("    note: {}", mask.text(n)));
    }
    text.push(format!(
        "    env: {} (values not shown)",
        h.env_names.join(" ")
    ));
    let status = match &h.status {
        RunStatus::Exited { code } => format!("exit {code}"),
        RunStatus::Signaled { signal } => format!("killed by signal {signal}"),
        RunStatus::TimedOut if h.argv.first().map(String::as_str) == Some("POST") => format!(
            "timed out after {}s: no answer, request abandoned",
            seconds(h.timeout_secs)
        ),
        RunStatus::TimedOut => format!(
            "timed out after {}s: its process group was killed",
            seconds(h.timeout_secs)
        ),
        RunStatus::Http { status } => format!("http {status}"),
        RunStatus::HttpFailed { reason } => format!("http error: {}", mask.text(reason)),
        RunStatus::LaunchFailed { reason, .. } => format!(
            "launch-failed{}: {}",
            h.exit_code
                .map_or(String::new(), |c| format!(" (exit {c})")),
            mask.text(reason)
        ),
    };
    text.push(format!("    {status} in {} ms", h.duration_ms));
    for (key, body, dropped) in [
        ("stdout", &h.stdout, h.stdout_dropped),
        ("stderr", &h.stderr, h.stderr_dropped),
    ] {
        let shown = if body.is_empty() {
            "(empty)".to_string()
        } else {
            cap(&mask.text(body))
        };
        let cut = if dropped > 0 {
            format!(" [cut at 1 MiB, {dropped} bytes dropped]")
        } else {
            String::new()
        };
        text.push(format!("    {key}: {shown}{cut}"));
    }
    if let Some(w) = &h.env_file_written {
        let cut = if h.env_file_dropped > 0 {
            format!(
                " [cut at 64 KiB, {} bytes more not read]",
                h.env_file_dropped
            )
        } else {
            String::new()
        };
        text.push(format!(
            "    wrote to CLAUDE_ENV_FILE: {}{cut}",
            cap(&mask.text(w))
        ));
    }
    for n in &h.notes {
        text.push(format!("    note: {}", mask.text(n)));
    }
    let o: &Outcome = &h.reading.outcome;
    text.push(format!(
        "    reading: {}",
        effect_line(
            o.effect,
            o.model_sees.as_deref(),
            o.user_sees.as_deref(),
            o.updated_output.as_ref(),
            mask
        )
    ));
    for w in &o.why {
        text.push(format!("      why: {}", mask.text(w)));
    }
}

fn final_lines(f: &FinalOutcome, mask: &mut Masker, text: &mut Vec<String>) {
    let verdict = f
        .verdict
        .and_then(|v| serde_json::to_value(v).ok())
        .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
        .unwrap_or_else(|| effect_name(f.effect).replace('_', " "));
    let mode = f
        .permission_mode
        .as_ref()
        .map_or(String::new(), |m| format!("; mode {}", mask.text(m)));
    text.push(format!(
        "final: {verdict} (decided by {}{mode})",
        mask.text(&f.decided_by)
    ));
    if let Some(rec) = f
        .record
        .as_ref()
        .and_then(|r| serde_json::to_value(r).ok())
        .filter(Value::is_object)
    {
        text.push(format!(
            "  would be recorded as: {}",
            mask.text(&describe_recorded(&rec))
        ));
    }
    for w in &f.why {
        text.push(format!("  why: {}", mask.text(w)));
    }
}

/// `blocked — the model is told: … — the user sees: …`, each text on one
/// line (lines trimmed, blank ones dropped).
fn effect_line(
    effect: Effect,
    model_sees: Option<&str>,
    user_sees: Option<&str>,
    updated_output: Option<&Value>,
    mask: &mut Masker,
) -> String {
    let flat = |t: &str| {
        t.split('\n')
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut line = effect_name(effect).replace('_', " ");
    if let Some(m) = model_sees {
        line.push_str(&format!(" — the model is told: {}", flat(&mask.text(m))));
    }
    if let Some(u) = user_sees {
        line.push_str(&format!(" — the user sees: {}", flat(&mask.text(u))));
    }
    if let Some(out) = updated_output.filter(|v| !v.is_null()) {
        line.push_str(&format!(
            " — the model sees this output instead: {}",
            flat(&crate::transcript::hook_activity::output_text(
                &mask.value(out)
            ))
        ));
    }
    line
}

/// Masks what is shown, counting what it masked.
struct Masker<'a> {
    redactor: &'a Redactor,
    counts: &'a mut Redactions,
}

impl Masker<'_> {
    fn text(&mut self, t: &str) -> String {
        self.redactor.redact(t, self.counts).into_owned()
    }

    /// Every string of `v` masked (under secret-looking keys too, as the
    /// JSON report is).
    fn value(&mut self, v: &Value) -> Value {
        self.redactor.redact_value(v, self.counts)
    }
}

/// Seconds as JSON shows them (`5`, `0.5`), as the report's text always
/// has.
fn seconds(s: f64) -> String {
    serde_json::Number::from_f64(s).map_or_else(|| s.to_string(), |n| n.to_string())
}
