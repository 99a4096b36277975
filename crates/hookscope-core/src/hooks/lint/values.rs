//! Lints on what a matcher can match (docs/your-hooks.md#lints): on events
//! whose matcher field takes a closed set of values (Notification's
//! `notification_type`, SessionStart's `source`, …) a name outside the set
//! never matches; on tool events a regex that matches no tool of the
//! version, and does not mention MCP, never fires. Each tries the matcher
//! as Claude Code does ([`matcher::check_within`]), within the lints'
//! regex budget; none touches the disk.

use super::{KNOWN_TOOLS, Lint, Severity, lint};
use crate::hooks::contract::Version;
use crate::hooks::matcher::{self, MatcherKind, TOOL_EVENTS};
use crate::hooks::settings::Handler;

/// The events whose matcher field takes a closed set of values, with the
/// field and the values (docs/contract.md#matchers).
pub const MATCHER_VALUES: &[(&str, &str, &[&str])] = &[
    (
        "Notification",
        "notification_type",
        &[
            "permission_prompt",
            "idle_prompt",
            "auth_success",
            "elicitation_dialog",
            "elicitation_url_dialog",
            "elicitation_complete",
            "elicitation_response",
            "agent_needs_input",
            "agent_completed",
            "quota_auto_resume_fired",
            "quota_auto_resume_stale",
            "quota_auto_resume_disabled",
        ],
    ),
    (
        "SessionStart",
        "source",
        &["startup", "resume", "clear", "compact", "fork"],
    ),
    ("Setup", "trigger", &["init", "maintenance"]),
    (
        "SessionEnd",
        "reason",
        &[
            "clear",
            "resume",
            "logout",
            "prompt_input_exit",
            "other",
            "bypass_permissions_disabled",
        ],
    ),
    ("PreCompact", "trigger", &["manual", "auto"]),
    ("PostCompact", "trigger", &["manual", "auto"]),
    (
        "ConfigChange",
        "source",
        &[
            "user_settings",
            "project_settings",
            "local_settings",
            "policy_settings",
            "skills",
        ],
    ),
    (
        "StopFailure",
        "error",
        &[
            "rate_limit",
            "overloaded",
            "authentication_failed",
            "oauth_org_not_allowed",
            "billing_error",
            "invalid_request",
            "model_not_found",
            "server_error",
            "max_output_tokens",
            "unknown",
        ],
    ),
];

/// The closed value set of `event`'s matcher, with its field, when it has
/// one.
pub fn matcher_values(event: &str) -> Option<(&'static str, &'static [&'static str])> {
    MATCHER_VALUES
        .iter()
        .find(|(e, _, _)| *e == event)
        .map(|(_, f, v)| (*f, *v))
}

/// `matcher-unknown-value` and `matcher-no-tool` on `h`'s matcher (once
/// per handler group; the caller sees to that).
pub(super) fn value_lints(
    h: &Handler,
    at: Option<(usize, &Handler)>,
    version: &Version,
    budget: &mut matcher::Budget,
    seen_tools: &[String],
) -> Vec<Lint> {
    let Some(text) = h.matcher.as_deref() else {
        return Vec::new();
    };
    let event = h.event.as_str();
    let kind = matcher::classify(event, Some(text), version);
    if matches!(
        kind,
        MatcherKind::All | MatcherKind::Ignored | MatcherKind::Invalid { .. }
    ) {
        return Vec::new();
    }
    let matches = |value: &str, budget: &mut matcher::Budget| {
        matcher::check_within(event, Some(text), Some(value), version, budget).matches
    };
    let mut out = Vec::new();
    if let Some((field, values)) = matcher_values(event) {
        let names: Vec<String> = match &kind {
            MatcherKind::Exact { names } => names.clone(),
            _ => vec![text.to_string()],
        };
        let unknown: Vec<&String> = names
            .iter()
            .filter(|n| {
                let one = match &kind {
                    MatcherKind::Exact { .. } => values.contains(&n.as_str()),
                    _ => values.iter().any(|v| matches(v, budget)),
                };
                !one
            })
            .collect();
        if !unknown.is_empty() && !budget.exhausted() {
            let none = unknown.len() == names.len();
            let shown: Vec<String> = unknown.iter().map(|n| format!("{n:?}")).collect();
            let closest = unknown
                .iter()
                .filter_map(|n| closest(n, values))
                .map(|v| format!("{v:?}"))
                .collect::<Vec<_>>();
            out.push(lint(
                "matcher-unknown-value",
                if none {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                format!(
                    "{event}'s matcher tests `{field}`, which is one of {}; {} {} none of them{}",
                    values.join(", "),
                    shown.join(", "),
                    if unknown.len() == 1 {
                        "matches"
                    } else {
                        "match"
                    },
                    if none {
                        ", so the handler never fires"
                    } else {
                        ""
                    }
                ),
                if closest.is_empty() {
                    format!("match one of: {}", values.join("|"))
                } else {
                    format!("did you mean {}?", closest.join(", "))
                },
                at,
            ));
        }
    }
    // A pattern naming MCP is tried only against the tools seen in the
    // user's sessions (MCP servers are theirs); without them it is left
    // alone.
    let mentions_mcp = text.to_ascii_lowercase().contains("mcp");
    // `mcp__.+__query` is for a tool of any server, seen or not yet (what
    // `hooks --install` writes for a rule's `tool = "query"`).
    let any_server = ["mcp__.+__", "mcp__.*__", "mcp__[^_]+__", "mcp__[^_]*__"]
        .iter()
        .any(|w| text.contains(w));
    if TOOL_EVENTS.contains(&event)
        && matches!(kind, MatcherKind::Regex { .. })
        && (!mentions_mcp || !seen_tools.is_empty())
        && !any_server
        // `Bash(rm:*)` is matcher-permission-syntax's, with its own fix.
        && super::fields::permission_syntax(text, None).is_none()
    {
        let of = if *version == Version::latest() {
            "the latest Claude Code".to_string()
        } else {
            format!("Claude Code {version}")
        };
        let any = KNOWN_TOOLS
            .iter()
            .copied()
            .chain(seen_tools.iter().map(String::as_str))
            .any(|t| matches(t, budget));
        if !any && !budget.exhausted() {
            out.push(lint(
                "matcher-no-tool",
                Severity::Warning,
                format!(
                    "the regex matcher {text:?} matches no tool of {of}{}: the handler never fires",
                    if seen_tools.is_empty() {
                        " and names no MCP server (`mcp__…`)".to_string()
                    } else {
                        format!(
                            " nor any of the {} tools (MCP tools included) called in your indexed sessions",
                            seen_tools.len()
                        )
                    }
                ),
                "name the tools it is for (`Edit|Write`), or `mcp__<server>__.*` for an MCP server's"
                    .to_string(),
                at,
            ));
        }
    }
    out
}

/// The value of `values` closest to `name` (case-insensitive edit
/// distance at most a third of its length), for "did you mean".
fn closest<'a>(name: &str, values: &[&'a str]) -> Option<&'a str> {
    let lower = name.to_ascii_lowercase().replace('-', "_");
    values
        .iter()
        .map(|v| (strsim::levenshtein(&lower, v), *v))
        .filter(|(d, v)| *d <= (v.len() / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, v)| v)
}

/// Whether the matchers of `a` and `b` (handlers of the same event) can
/// both match one event: identical, either matches everything (or the
/// event has no matcher), or some name — of their exact lists, Claude
/// Code's tools, the event's fixed values — matches both. Two handlers
/// that never fire together are not run once by Claude Code's dedup, so
/// `duplicate-handler` is not said of them.
pub(super) fn matchers_overlap(
    a: &Handler,
    b: &Handler,
    version: &Version,
    budget: &mut matcher::Budget,
) -> bool {
    let event = a.event.as_str();
    let (ma, mb) = (a.matcher.as_deref(), b.matcher.as_deref());
    if ma == mb {
        return true;
    }
    let (ka, kb) = (
        matcher::classify(event, ma, version),
        matcher::classify(event, mb, version),
    );
    let everything = |k: &MatcherKind| matches!(k, MatcherKind::All | MatcherKind::Ignored);
    if everything(&ka) || everything(&kb) {
        return true;
    }
    let mut candidates: Vec<String> = Vec::new();
    for k in [&ka, &kb] {
        if let MatcherKind::Exact { names } = k {
            candidates.extend(names.iter().cloned());
        }
    }
    candidates.extend(KNOWN_TOOLS.iter().map(|t| (*t).to_string()));
    if let Some((_, values)) = matcher_values(event) {
        candidates.extend(values.iter().map(|v| (*v).to_string()));
    }
    candidates.iter().any(|v| {
        matcher::check_within(event, ma, Some(v), version, budget).matches
            && matcher::check_within(event, mb, Some(v), version, budget).matches
    })
}
