//! Codex's matcher dialect (docs/contract.md#codex-hooks; openai/codex
//! `codex-rs/hooks/src/events/common.rs` `matches_matcher`,
//! `is_exact_matcher`, `matcher_pattern_for_event`, and
//! `codex-rs/hooks/src/engine/dispatcher.rs`
//! `select_handlers_for_matcher_inputs`), each verdict with a one-line why,
//! as [`crate::hooks::matcher::check`] gives them for Claude Code.
//!
//! 1. Omitted, `""` or `*`: every value.
//! 2. Only ASCII letters, digits, `_` and `|`: exact names split on `|`
//!    (narrower than Claude Code's: no `-`, `,` or space, so
//!    `mcp__brave-search` is a regex here).
//! 3. Anything else: an unanchored Rust `regex` (no look-around, no
//!    backreferences). One that does not compile never matches, and Codex
//!    skips its whole matcher group at load (`engine/discovery.rs`).
//! 4. `UserPromptSubmit`, `Stop`, `PreCompact` and `PostCompact` drop the
//!    matcher (common.rs; a later dispatcher test matches compact events on
//!    `trigger`, this follows common.rs). Events Codex added later whose
//!    matcher field is not known here also ignore it.
//! 5. A tool is tested under its name and its aliases (`apply_patch` also as
//!    `Write` and `Edit`, `spawn_agent` as `Agent`); a handler is selected at
//!    most once per call however many of them match.

use serde_json::Value;

use crate::hooks::matcher::{MatcherKind, MatcherVerdict};

/// The payload field a Codex event's matcher tests (`tool_name`, `source`,
/// `agent_type`); `None` when the event ignores matchers (rule 4).
pub fn matcher_field(event: &str) -> Option<&'static str> {
    match event {
        "PreToolUse" | "PermissionRequest" | "PostToolUse" => Some("tool_name"),
        "SessionStart" => Some("source"),
        "SubagentStart" | "SubagentStop" => Some("agent_type"),
        _ => None,
    }
}

/// The matcher aliases Codex tests besides a tool's own name
/// (`codex-rs/core` `HookToolName::apply_patch`, `::spawn_agent`).
pub fn aliases(tool_name: &str) -> &'static [&'static str] {
    match tool_name {
        "apply_patch" => &["Write", "Edit"],
        "spawn_agent" => &["Agent"],
        _ => &[],
    }
}

/// Whether `text` is an exact matcher in Codex: only ASCII letters,
/// digits, `_` and `|` (`is_exact_matcher`).
pub fn is_exact(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|')
}

/// How Codex reads `matcher` on `event`.
pub fn classify(event: &str, matcher: Option<&str>) -> MatcherKind {
    let text = match matcher {
        None | Some("") | Some("*") => return MatcherKind::All,
        Some(t) => t,
    };
    if matcher_field(event).is_none() {
        return MatcherKind::Ignored;
    }
    if is_exact(text) {
        return MatcherKind::Exact {
            names: text.split('|').map(str::to_string).collect(),
        };
    }
    match regex::Regex::new(text) {
        Ok(_) => MatcherKind::Regex {
            pattern: text.to_string(),
        },
        Err(e) => MatcherKind::Invalid {
            pattern: text.to_string(),
            error: e
                .to_string()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .to_string(),
        },
    }
}

/// The values a handler of `event` is tested against in `payload`: the
/// [`matcher_field`]'s value, and for tool events its [`aliases`] after it.
pub fn matcher_inputs(event: &str, payload: &Value) -> Vec<String> {
    let Some(field) = matcher_field(event) else {
        return Vec::new();
    };
    let Some(value) = payload.get(field).and_then(Value::as_str) else {
        return Vec::new();
    };
    let mut out = vec![value.to_string()];
    if field == "tool_name" {
        out.extend(aliases(value).iter().map(|a| a.to_string()));
    }
    out
}

/// One matcher's verdict on `inputs` (the value and its aliases, from
/// [`matcher_inputs`]), with the why.
pub fn check(event: &str, matcher: Option<&str>, inputs: &[String]) -> MatcherVerdict {
    let kind = classify(event, matcher);
    let shown = |i: &[String]| match i {
        [] => "no value".to_string(),
        [one] => format!("{one:?}"),
        [first, rest @ ..] => format!(
            "{first:?} (aliases {})",
            rest.iter()
                .map(|r| format!("{r:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let (matches, reason, hint) = match &kind {
        MatcherKind::All => (
            true,
            "no matcher (or \"*\"/\"\"): every value".to_string(),
            None,
        ),
        MatcherKind::Ignored => (
            true,
            format!(
                "{event} ignores matchers in Codex (events/common.rs): every handler of it runs"
            ),
            None,
        ),
        MatcherKind::Exact { names } => {
            let hit = inputs.iter().find(|i| names.iter().any(|n| n == *i));
            let text = matcher.unwrap_or("");
            match hit {
                Some(h) if Some(h) == inputs.first() => (
                    true,
                    format!(
                        "matcher {text:?} is exact (letters, digits, _ and '|'): it names {h:?}"
                    ),
                    None,
                ),
                Some(h) => (
                    true,
                    format!(
                        "matcher {text:?} is exact and names {h:?}, an alias Codex also tests for {:?}",
                        inputs.first().map(String::as_str).unwrap_or("")
                    ),
                    None,
                ),
                None => (
                    false,
                    format!(
                        "matcher {text:?} is exact (letters, digits, _ and '|'): it does not name {}",
                        shown(inputs)
                    ),
                    None,
                ),
            }
        }
        MatcherKind::Regex { pattern } => {
            let re = regex::Regex::new(pattern).ok();
            let hit = re
                .as_ref()
                .and_then(|re| inputs.iter().find(|i| re.is_match(i)));
            match hit {
                Some(h) => (
                    true,
                    format!("matcher {pattern:?} is a Rust regex (unanchored): it matches {h:?}"),
                    None,
                ),
                None => {
                    let hint = (pattern.contains('-') && !pattern.contains(['.', '*', '[', '(', '^', '$']))
                        .then(|| {
                            "in Codex '-' makes a matcher a regex, not an exact name (it is exact in Claude Code ≥ 2.1.195)".to_string()
                        });
                    (
                        false,
                        format!(
                            "matcher {pattern:?} is a Rust regex (unanchored): it does not match {}",
                            shown(inputs)
                        ),
                        hint,
                    )
                }
            }
        }
        MatcherKind::Invalid { pattern, error } => (
            false,
            format!(
                "matcher {pattern:?} is not a valid Rust regex ({error}): it never matches, and Codex skips its group at load"
            ),
            (pattern.contains("(?=")
                || pattern.contains("(?!")
                || pattern.contains("(?<=")
                || pattern.contains("(?<!"))
            .then(|| "Rust's regex has no look-around; list the names instead".to_string()),
        ),
    };
    MatcherVerdict {
        matches,
        kind,
        reason,
        hint,
    }
}
