//! Claude Code's matcher semantics (hooks.md §1.3): which handlers an event
//! reaches, by the matcher string of their group and the handler's `if`
//! permission rule, as of a Claude Code version, each with a one-line why.
//!
//! Pure functions over strings and the hook payload; no settings files
//! here (those are [`crate::hooks::settings`]'s).

use serde::Serialize;
use serde_json::Value;

use crate::hooks::contract::Version;

/// How Claude Code reads a matcher string (hooks.md §1.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MatcherKind {
    /// `*`, `""` or absent: every value.
    All,
    /// Only letters, digits, `_` (and by version `-`, space, `,`), split on
    /// `|` (and `,`): exact, case-sensitive names.
    Exact {
        /// The names, trimmed.
        names: Vec<String>,
    },
    /// Anything else: an unanchored JavaScript regular expression.
    Regex {
        /// The pattern as written.
        pattern: String,
    },
    /// The event has no matcher support: the matcher is ignored and the
    /// handler always fires.
    Ignored,
    /// A pattern that is neither exact nor a regex this engine (or
    /// JavaScript's) accepts; Claude Code's schema check drops the file.
    Invalid {
        /// The pattern as written.
        pattern: String,
        /// The parser's message.
        error: String,
    },
}

/// One matcher's verdict on one value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MatcherVerdict {
    /// Whether the handler group is reached.
    pub matches: bool,
    /// How the matcher was read (by version).
    pub kind: MatcherKind,
    /// One line: which rule applied and why it matched or not, e.g.
    /// `matcher "mcp__memory" is an exact name (letters, digits, _): no tool is called exactly that`.
    pub reason: String,
    /// A fix, when one is obvious: `did you mean "mcp__memory__.*"?`.
    pub hint: Option<String>,
}

/// How Claude Code reads `matcher` on `event` as of `version`.
pub fn classify(event: &str, matcher: Option<&str>, version: &Version) -> MatcherKind {
    let _ = (event, matcher, version);
    MatcherKind::All
}

/// Whether a group with `matcher` on `event` is reached when the event's
/// matcher field (the contract's `matcher`, e.g. `tool_name`) has `value`
/// (`None` when the payload lacks it), as of `version`.
pub fn check(
    event: &str,
    matcher: Option<&str>,
    value: Option<&str>,
    version: &Version,
) -> MatcherVerdict {
    let kind = classify(event, matcher, version);
    let _ = value;
    MatcherVerdict {
        matches: true,
        kind,
        reason: String::new(),
        hint: None,
    }
}

/// A handler's `if` permission rule (`Bash(git *)`, `Edit(src/**)`)
/// checked against a payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IfVerdict {
    /// Whether the handler runs.
    pub runs: bool,
    /// One line: which simple command or path decided, or why the rule
    /// failed open / never runs on this event.
    pub reason: String,
}

/// Checks `rule` (one permission rule, no `&&`/`||`) for `event` on
/// `payload` (the hook stdin JSON) as of `version`: never runs on non-tool
/// events; fails open on unparsable commands (hooks.md §1.3 `if` field).
pub fn check_if(event: &str, rule: &str, payload: &Value, version: &Version) -> IfVerdict {
    let _ = (event, rule, payload, version);
    IfVerdict {
        runs: true,
        reason: String::new(),
    }
}

/// Why a regex matcher could make JavaScript's backtracking engine hang
/// (nested quantifiers like `(a+)+`, `(.*)*`, alternations under a
/// quantifier that overlap), or `None`.
pub fn redos_risk(pattern: &str) -> Option<String> {
    let _ = pattern;
    None
}
