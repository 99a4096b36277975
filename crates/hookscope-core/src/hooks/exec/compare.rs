//! "vs the transcript": what a run of the user's hooks does now, compared
//! with what the transcript recorded for the same firing (docs/replay-and-backtest.md "Running
//! your real hooks", docs/hooks-exec.md "Agrees, differs, failed open").
//!
//! Both sides are read into the same words, [`Seen`]: blocked the call (or
//! kept Claude going, rejected the prompt), objected after the call ran,
//! rewrote the input, replaced the output the model saw, asked, deferred,
//! allowed, added context, did nothing. Then is read from the transcript's
//! hook records of the firing ([`HookActivity`]) and, for a tool call, its
//! recorded `permissionDecision`; now from the merged answer of the run
//! ([`ExecReport::combined`]). They agree when the effect is the same and,
//! for a rewrite or a replaced output, so is the new input or output.
//!
//! A handler that crashed (an exit code other than 0 and 2 without a JSON
//! answer), could not start (126/127, not found), died on a signal, timed
//! out or got no HTTP answer never agrees: Claude Code reads that as a
//! non-blocking error and lets the action through (or blocks, under
//! `onFailure: "block"`), so the run says nothing about what the hook would
//! decide; [`Agreement::verdict`] is `failed_open` (or `failed_blocked`).
//! For PreToolUse the simulated [`super::permissions::FinalOutcome::record`]
//! is compared with the recorded `permissionDecision` too
//! ([`FinalCheck`]).

use serde::Serialize;
use serde_json::Value;

use super::permissions::describe_recorded;
use super::{ExecReport, HandlerReport, RunStatus};
use crate::hooks::result::Effect;
use crate::transcript::hook_activity::{HookAction, HookActivity, output_text};
use crate::transcript::text::one_line;

/// What a hook firing did, in the words both sides are compared in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Seen {
    /// Blocked the action: the call (PreToolUse deny or exit 2), the prompt
    /// (UserPromptSubmit), the stop (Stop/SubagentStop: Claude goes on).
    Blocked,
    /// `continue: false`: Claude stops.
    Stopped,
    /// A PostToolUse/PostToolUseFailure block: the call had already run.
    Flagged,
    /// Rewrote the tool input (`updatedInput`).
    Rewrote,
    /// Replaced what the model saw of the tool's output
    /// (`updatedToolOutput`).
    ReplacedOutput,
    /// Asked the user (`permissionDecision: ask`; in `-p` a denial).
    Asked,
    /// Deferred the call (`defer`).
    Deferred,
    /// Allowed the call without a prompt.
    Allowed,
    /// Added context for the model.
    AddedContext,
    /// Nothing that changed anything.
    Nothing,
}

impl Seen {
    /// `blocked the call`, `kept Claude going`, `rejected the prompt`,
    /// `objected after the call ran`, `rewrote the input`, … for `event`.
    pub fn label(self, event: &str) -> &'static str {
        match self {
            Seen::Blocked => match event {
                "Stop" | "SubagentStop" => "kept Claude going",
                "UserPromptSubmit" | "UserPromptExpansion" => "rejected the prompt",
                "PreToolUse" | "PermissionRequest" => "blocked the call",
                _ => "blocked",
            },
            Seen::Stopped => "stopped Claude (continue: false)",
            Seen::Flagged => "objected after the call ran",
            Seen::Rewrote => "rewrote the input",
            Seen::ReplacedOutput => "replaced the output the model saw",
            Seen::Asked => "asked the user",
            Seen::Deferred => "deferred the call",
            Seen::Allowed => "allowed the call",
            Seen::AddedContext => "added context",
            Seen::Nothing => "did nothing",
        }
    }

    /// What the merged answer of a run does, in these words.
    pub fn of_effect(effect: Effect, event: &str) -> Seen {
        match effect {
            Effect::Blocked if matches!(event, "PostToolUse" | "PostToolUseFailure") => {
                Seen::Flagged
            }
            Effect::Blocked => Seen::Blocked,
            Effect::Stopped => Seen::Stopped,
            Effect::InputRewritten => Seen::Rewrote,
            Effect::OutputReplaced => Seen::ReplacedOutput,
            Effect::Asked => Seen::Asked,
            Effect::Deferred => Seen::Deferred,
            Effect::Allowed => Seen::Allowed,
            Effect::ContextAdded => Seen::AddedContext,
            Effect::Nothing => Seen::Nothing,
        }
    }
}

/// What the transcript recorded for a firing, read into [`Seen`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Then {
    /// The effect.
    pub seen: Seen,
    /// One line: `PreToolUse hook rewrote the input (exit 0)`, `nothing
    /// recorded`.
    pub text: String,
    /// The recorded `updatedInput`, for a rewrite.
    pub updated_input: Option<Value>,
    /// The recorded `updatedToolOutput`, for a replaced output.
    pub updated_output: Option<Value>,
    /// Whether the call did not run then because of a hook, whatever the
    /// hook said: a block, or an `ask` the call's `permissionDecision`
    /// records as rejected for that hook (`-p` could not put it). A
    /// then-vs-now tally counts it as blocked then.
    pub denied: bool,
}

/// Reads `activity` (the transcript's hook records of one firing of
/// `event`, `hooks::replay::activity_at`) and, for a tool call, its
/// recorded `permissionDecision` into [`Then`]. The strongest record wins
/// ([`HookAction`]'s order); a hook that failed then did nothing; a call
/// the transcript says a hook rejected with no record of the hook is read
/// from the decision (`source: hook` a block, `reasonCode: hook:…` from
/// `config` an ask `-p` could not put).
pub fn then_of(event: &str, activity: &[&HookActivity], permission: Option<&Value>) -> Then {
    let strongest = activity.iter().min_by_key(|h| h.action);
    let exit = strongest
        .and_then(|h| h.exit_code)
        .filter(|c| *c != 0)
        .map_or(String::new(), |c| format!(" (exit {c})"));
    // A rejection the record puts on a hook: from `source: hook` a block,
    // else (`reasonCode: hook:…` from `config`) an ask `-p` could not put.
    let by_permission = permission.and_then(|d| {
        crate::transcript::hook_activity::rejected_by_hook(d)?;
        Some(if d.get("source").and_then(Value::as_str) == Some("hook") {
            Seen::Blocked
        } else {
            Seen::Asked
        })
    });
    let Some(h) = strongest else {
        return match by_permission {
            Some(seen) => Then {
                seen,
                text: format!(
                    "a {event} hook {} (the call's recorded permissionDecision)",
                    seen.label(event)
                ),
                updated_input: None,
                updated_output: None,
                denied: true,
            },
            None => Then {
                seen: Seen::Nothing,
                text: "no hook recorded".into(),
                updated_input: None,
                updated_output: None,
                denied: false,
            },
        };
    };
    let seen = match h.action {
        // An `ask` that was then denied is read as the ask it was.
        HookAction::Blocked if h.decision.as_deref() == Some("ask") => Seen::Asked,
        HookAction::Blocked => Seen::Blocked,
        HookAction::Flagged => Seen::Flagged,
        HookAction::Rewrote => Seen::Rewrote,
        HookAction::ReplacedOutput => Seen::ReplacedOutput,
        HookAction::PermissionDecision => match h.decision.as_deref() {
            Some("ask") => Seen::Asked,
            Some("defer") => Seen::Deferred,
            Some("deny") => Seen::Blocked,
            _ => Seen::Allowed,
        },
        HookAction::AddedContext => Seen::AddedContext,
        HookAction::Failed | HookAction::Cancelled | HookAction::Other | HookAction::Succeeded => {
            by_permission.unwrap_or(Seen::Nothing)
        }
    };
    let what = match h.action {
        HookAction::Failed => format!("{} hook failed{exit}: no effect", h.event_name()),
        HookAction::Cancelled => format!("{} hook was cancelled: no effect", h.event_name()),
        HookAction::Succeeded | HookAction::Other if seen == Seen::Nothing => {
            format!("{} hook ran{exit}, no effect", h.event_name())
        }
        _ => format!("{} hook {}{exit}", h.event_name(), seen.label(event)),
    };
    let asked_in_p = seen == Seen::Asked && by_permission == Some(Seen::Asked);
    Then {
        seen,
        text: if asked_in_p {
            format!("{what}; -p could not put the question: the call was denied")
        } else {
            what
        },
        updated_input: activity
            .iter()
            .find_map(|h| h.rewrite.as_ref().map(|r| r.to.clone())),
        updated_output: activity.iter().find_map(|h| h.updated_output.clone()),
        denied: seen == Seen::Blocked || asked_in_p,
    }
}

/// How one handler of a run failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The handler's label.
    pub label: String,
    /// `crashed`, `launch_failed`, `signaled`, `timed_out` or `http_error`.
    pub kind: &'static str,
    /// In words: `could not start (exit 127): not found: …`.
    pub how: String,
    /// Whether `onFailure: "block"` turned it into a block (else it failed
    /// open: the action goes through).
    pub blocked: bool,
}

/// How `h` failed, when it did: it could not start, died on a signal, timed
/// out, got no HTTP answer (or not a 2xx), or exited with a code other than
/// 0 and 2 without a JSON object on stdout (a crash; a JSON answer with
/// exit 1 is honoured and is not a failure).
pub fn failure_of(h: &HandlerReport) -> Option<Failure> {
    let first_err = h
        .stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| format!(": {}", one_line(l, 120)))
        .unwrap_or_default();
    let (kind, how) = match &h.status {
        RunStatus::LaunchFailed { reason, exit_code } => (
            "launch_failed",
            match exit_code {
                Some(c) => format!("could not start (exit {c}): {reason}"),
                None => format!("could not start: {reason}"),
            },
        ),
        RunStatus::Signaled { signal } => ("signaled", format!("died on signal {signal}")),
        RunStatus::TimedOut => ("timed_out", format!("timed out after {}s", h.timeout_secs)),
        RunStatus::HttpFailed { reason } => ("http_error", format!("http error: {reason}")),
        RunStatus::Http { status } if !(200..300).contains(status) => {
            ("http_error", format!("http {status}"))
        }
        RunStatus::Exited { code } if *code != 0 && *code != 2 => {
            let answered = h.stdout.trim_start().starts_with('{')
                && serde_json::from_str::<Value>(&h.stdout).is_ok_and(|v| v.is_object());
            if answered {
                return None;
            }
            ("crashed", format!("crashed (exit {code}){first_err}"))
        }
        _ => return None,
    };
    Some(Failure {
        label: h.label.clone(),
        kind,
        how,
        blocked: h.on_failure_block && h.reading.outcome.effect == Effect::Blocked,
    })
}

/// The verdict of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Same effect (and same rewrite or replaced output).
    Agrees,
    /// Another effect now.
    Differs,
    /// A handler failed and Claude Code lets the action through: the run
    /// does not show what the hook decides.
    FailedOpen,
    /// A handler failed and `onFailure: "block"` blocks: likewise.
    FailedBlocked,
}

/// The final outcome compared with the call's recorded `permissionDecision`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalCheck {
    /// What the transcript recorded.
    pub recorded: Value,
    /// What the simulation says would be recorded (`None`: a prompt the
    /// user answers).
    pub simulated: Option<super::permissions::PermissionRecord>,
    /// Whether they agree (`None` when the user answered a prompt).
    pub agrees: Option<bool>,
    /// What differs, in words.
    pub differences: Vec<String>,
    /// One line: `recorded accept (config, rule cliArg); simulated accept
    /// (config, rule cliArg) — agrees`.
    pub text: String,
}

/// A run compared with the transcript (module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    /// Same effect then and now, and no handler failed.
    pub agrees: bool,
    /// Agrees, differs, failed open, failed blocked.
    pub verdict: Verdict,
    /// What the transcript recorded.
    pub then: Seen,
    /// [`Then::text`].
    pub then_text: String,
    /// [`Then::denied`]: the call did not run then because of a hook (a
    /// block, or an ask recorded as rejected).
    pub then_denied: bool,
    /// What the run does.
    pub now: Seen,
    /// The handlers that failed (never empty for `failed_*`).
    pub failures: Vec<Failure>,
    /// What else differs (a rewrite to another input, …).
    pub differences: Vec<String>,
    /// PreToolUse: the final outcome vs the recorded `permissionDecision`.
    pub final_outcome: Option<FinalCheck>,
    /// One line: `then: PreToolUse hook blocked the call (exit 2); now:
    /// blocked the call — agrees`.
    pub text: String,
}

/// Compares `report` with what the transcript recorded for the same firing:
/// `activity` (`hooks::replay::activity_at`) and the call's recorded
/// `permissionDecision` (`hooks::replay::recorded_permission`).
pub fn agreement(
    report: &ExecReport,
    activity: &[&HookActivity],
    permission: Option<&Value>,
) -> Agreement {
    let event = report.event.as_str();
    let then = then_of(event, activity, permission);
    let now = Seen::of_effect(report.combined.effect, event);
    let failures: Vec<Failure> = report.handlers.iter().filter_map(failure_of).collect();
    let mut differences = Vec::new();
    let value_text = |v: &Value| one_line(&output_text(v), 80);
    let same_effect = then.seen == now || (then.seen == Seen::Blocked && now == Seen::Stopped);
    if same_effect {
        if let (Some(a), Some(b)) = (&then.updated_input, &report.combined.updated_input)
            && a != b
        {
            differences.push(format!(
                "the input is rewritten to {} now, to {} then",
                one_line(&b.to_string(), 80),
                one_line(&a.to_string(), 80)
            ));
        }
        if let (Some(a), Some(b)) = (&then.updated_output, &report.combined.updated_output)
            && a != b
        {
            differences.push(format!(
                "the model sees {:?} now, {:?} then",
                value_text(b),
                value_text(a)
            ));
        }
    }
    let verdict = if !failures.is_empty() {
        if failures.iter().all(|f| f.blocked) {
            Verdict::FailedBlocked
        } else {
            Verdict::FailedOpen
        }
    } else if same_effect && differences.is_empty() {
        Verdict::Agrees
    } else {
        Verdict::Differs
    };
    let now_text = now.label(event);
    let tail = match verdict {
        Verdict::Agrees => "agrees".to_string(),
        Verdict::FailedOpen | Verdict::FailedBlocked => {
            let list: Vec<String> = failures
                .iter()
                .map(|f| format!("{} {}", f.label, f.how))
                .collect();
            if verdict == Verdict::FailedOpen {
                format!(
                    "FAILED OPEN: {}; Claude Code treats that as a non-blocking error and lets the action through, so this run does not show what your hook decides (fix it and run again)",
                    list.join("; ")
                )
            } else {
                format!(
                    "FAILED, BLOCKED by onFailure: \"block\": {}; the block comes from the failure, not from your hook's answer",
                    list.join("; ")
                )
            }
        }
        Verdict::Differs if !differences.is_empty() => {
            format!("differs: {}", differences.join("; "))
        }
        Verdict::Differs => match (then.seen, now) {
            (Seen::Blocked, _) => "differs: your hooks no longer block here".to_string(),
            (Seen::Asked, Seen::Blocked) if then.denied => {
                "differs: your hooks now block here (then they asked, and the call was denied all the same)".to_string()
            }
            (_, Seen::Blocked) => "differs: your hooks now block here".to_string(),
            (Seen::Nothing, n) => format!("differs: your hooks now {}", n.label(event)),
            (t, Seen::Nothing) => format!(
                "differs: your hooks no longer act here (then they {})",
                t.label(event)
            ),
            (t, n) => format!(
                "differs: your hooks now {} (then they {})",
                n.label(event),
                t.label(event)
            ),
        },
    };
    let text = format!("then: {}; now: {now_text} — {tail}", then.text);
    let final_outcome = if event == "PreToolUse" {
        permission.map(|recorded| final_check(report, recorded))
    } else {
        None
    };
    Agreement {
        agrees: verdict == Verdict::Agrees,
        verdict,
        then: then.seen,
        then_denied: then.denied,
        then_text: then.text,
        now,
        failures,
        differences,
        final_outcome,
        text,
    }
}

fn final_check(report: &ExecReport, recorded: &Value) -> FinalCheck {
    let simulated = report.final_outcome.record.clone();
    let then = describe_recorded(recorded);
    let (agrees, differences) = match &simulated {
        Some(s) => {
            let (a, d) = s.compare(recorded);
            (Some(a), d)
        }
        None => (None, Vec::new()),
    };
    let now = simulated
        .as_ref()
        .map_or_else(|| "a prompt the user answers".to_string(), |s| s.describe());
    let tail = match agrees {
        Some(true) => "agrees".to_string(),
        Some(false) => format!("differs: {}", differences.join("; ")),
        None => "the user's answer decides".to_string(),
    };
    FinalCheck {
        recorded: recorded.clone(),
        simulated,
        agrees,
        differences,
        text: format!("recorded {then}; simulated {now} — {tail}"),
    }
}
