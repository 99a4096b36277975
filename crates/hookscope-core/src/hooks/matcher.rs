//! Claude Code's matcher semantics (docs/contract.md#matchers): which handlers an event
//! reaches, by the matcher string of their group and the handler's `if`
//! permission rule, as of a Claude Code version, each with a one-line why.
//!
//! Pure functions over strings and the hook payload; no settings files
//! here (those are `hooks::settings`'). The rules, as docs/contract.md#matchers gives
//! them:
//!
//! 1. `"*"`, `""` or no matcher: every value.
//! 2. A matcher made only of the *exact alphabet* is a list of exact,
//!    case-sensitive names split on `|` (and `,`). The alphabet is letters,
//!    digits and `_` and `|`; from 2.1.191 also `,` and spaces (names are
//!    trimmed); from 2.1.195 also `-`. `FileChanged` and `StopFailure` keep
//!    the narrow alphabet (letters, digits, `_`, `|`) in every version.
//! 3. Anything else is a JavaScript `RegExp`, unanchored
//!    (`RegExp.prototype.test`): `Edit.*` also matches `NotebookEdit`.
//!    Evaluated with `fancy-regex` (a backtracking engine with lookaround
//!    and backreferences, as JavaScript has); a pattern neither engine
//!    accepts is [`MatcherKind::Invalid`] (Claude Code's schema check then
//!    drops the whole file, docs/contract.md#settings-claude-code-skips).
//!
//! Events without matcher support ignore the matcher and always fire. The
//! field matched is the contract's `matcher` field of the event
//! (`tool_name`, `source`, `agent_type`, …; for `FileChanged` the file's
//! base name), see [`matcher_value`].
//!
//! The handler-level `if` rule ([`check_if`]) is one permission rule
//! (`Bash(git *)`, `Edit(src/**)`), tool events only.

mod js;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::hooks::contract::{self, Version};
use crate::shell::parse_command_line;

/// The events whose handlers may carry an `if` rule (docs/contract.md#the-if-field).
pub const TOOL_EVENTS: [&str; 5] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
];

/// From this version `,` and spaces belong to the exact alphabet.
const COMMA_SINCE: &str = "2.1.191";
/// From this version `-` belongs to the exact alphabet.
const HYPHEN_SINCE: &str = "2.1.195";
/// From this version `Edit(src/**)` means `src` directly under the cwd
/// (before, at any depth).
const ANCHORED_PATHS_SINCE: &str = "2.1.214";

/// How Claude Code reads a matcher string (docs/contract.md#matchers).
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

/// The payload field `event`'s matcher is tested against, per the
/// contract table (`tool_name` for tool events, `source` for
/// SessionStart, …); `None` for events without matcher support and for
/// events the table does not know (or that are newer than `version`).
pub fn matcher_field(event: &str, version: &Version) -> Option<&'static str> {
    contract::event(event, version)?.matcher.as_deref()
}

/// The value `event`'s matcher is tested against in `payload` (the hook
/// stdin JSON): the [`matcher_field`]'s string value; for `FileChanged`
/// the base name of `file_path` (the matcher lists file names,
/// docs/contract.md#matchers). `None` when the event has no matcher field or the payload lacks
/// it (or it is not a string).
pub fn matcher_value(event: &str, payload: &Value, version: &Version) -> Option<String> {
    let field = matcher_field(event, version)?;
    let value = payload.get(field)?.as_str()?;
    if event == "FileChanged" {
        let base = Path::new(value)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| value.to_string());
        return Some(base);
    }
    Some(value.to_string())
}

/// Which characters make a matcher exact for `event` at `version`.
struct Alphabet {
    comma_and_space: bool,
    hyphen: bool,
}

impl Alphabet {
    fn of(event: &str, version: &Version) -> Alphabet {
        if event == "FileChanged" || event == "StopFailure" {
            return Alphabet {
                comma_and_space: false,
                hyphen: false,
            };
        }
        Alphabet {
            comma_and_space: *version >= Version::parse(COMMA_SINCE),
            hyphen: *version >= Version::parse(HYPHEN_SINCE),
        }
    }

    fn allows(&self, c: char) -> bool {
        c.is_ascii_alphanumeric()
            || c == '_'
            || c == '|'
            || (self.comma_and_space && (c == ',' || c == ' '))
            || (self.hyphen && c == '-')
    }

    fn describe(&self) -> &'static str {
        match (self.comma_and_space, self.hyphen) {
            (true, true) => "letters, digits, _, -, spaces, ',' and '|'",
            (true, false) => "letters, digits, _, spaces, ',' and '|'",
            (false, true) => "letters, digits, _, - and '|'",
            (false, false) => "letters, digits, _ and '|'",
        }
    }
}

/// `2.1.332`, or `the latest version` for [`Version::latest`] (a
/// transcript without a version).
pub(crate) fn shown(version: &Version) -> String {
    if *version == Version::latest() {
        "the latest version".to_string()
    } else {
        version.to_string()
    }
}

/// How Claude Code reads `matcher` on `event` as of `version`. A regex is
/// checked for its syntax only (parsed, not compiled), so classifying costs
/// microseconds whatever the pattern.
pub fn classify(event: &str, matcher: Option<&str>, version: &Version) -> MatcherKind {
    let text = match matcher {
        None | Some("") | Some("*") => return MatcherKind::All,
        Some(text) => text,
    };
    if matcher_field(event, version).is_none() {
        return MatcherKind::Ignored;
    }
    let alphabet = Alphabet::of(event, version);
    if text.chars().all(|c| alphabet.allows(c)) {
        let names = text
            .split(|c| c == '|' || (alphabet.comma_and_space && c == ','))
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect();
        return MatcherKind::Exact { names };
    }
    match syntax(text) {
        Ok(()) => MatcherKind::Regex {
            pattern: text.to_string(),
        },
        Err(error) => MatcherKind::Invalid {
            pattern: text.to_string(),
            error,
        },
    }
}

/// Whether `pattern` is a well-formed regular expression: parsed, not
/// compiled (compiling a pattern with Unicode classes takes about a
/// millisecond, and a settings file may hold thousands; JavaScript, too,
/// rejects a pattern for its syntax only). A pattern that parses but that
/// the engine cannot build (a size limit) is reported when it is checked.
fn syntax(pattern: &str) -> Result<(), String> {
    if pattern.len() > MAX_REGEX_BYTES {
        // Not parsed: evaluating it is refused, and its verdict says so.
        return Ok(());
    }
    let pattern = js::translate(pattern)?;
    fancy_regex::Expr::parse_tree(&pattern)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `pattern` (JavaScript syntax) read with JavaScript's meanings
/// ([`js::translate`]) and compiled.
fn compile_with(pattern: &str, backtrack_limit: usize) -> Result<fancy_regex::Regex, String> {
    if pattern.len() > MAX_REGEX_BYTES {
        return Err(too_long(pattern));
    }
    let pattern = js::translate(pattern)?;
    fancy_regex::RegexBuilder::new(&pattern)
        .backtrack_limit(backtrack_limit)
        .build()
        .map_err(|e| e.to_string())
}

/// Longest regex matcher hookscope parses or runs, in bytes (8 KiB): a
/// settings file's matchers are tool names and short alternations; a
/// longer one (an attacker's file) would cost seconds to compile. Its
/// verdicts say it was not evaluated.
pub const MAX_REGEX_BYTES: usize = 8 * 1024;

fn too_long(pattern: &str) -> String {
    format!(
        "the pattern is {} bytes, longer than the {} KiB hookscope evaluates",
        pattern.len(),
        MAX_REGEX_BYTES / 1024
    )
}

/// JavaScript's `new RegExp(pattern).test(value)` (no flags), as hookscope
/// evaluates a regex matcher: `Ok(true)` when it matches anywhere in
/// `value`.
///
/// # Errors
/// What `new RegExp` would throw on (the syntax JavaScript refuses), or the
/// engine giving up after [`BACKTRACK_LIMIT`] steps.
pub fn js_test(pattern: &str, value: &str) -> Result<bool, String> {
    compile_with(pattern, BACKTRACK_LIMIT)?
        .is_match(value)
        .map_err(|e| e.to_string())
}

/// Backtracking steps one regex matcher may take on one value before it
/// gives up (about 30 ms): what a question allows each matcher until its
/// [`Budget`] is spent.
pub const BACKTRACK_LIMIT: usize = 1_000_000;

/// Backtracking steps per matcher once the question's [`REGEX_BUDGET`] is
/// spent (well under a millisecond; a matcher on a tool name takes a few
/// hundred).
pub const SPENT_BACKTRACK_LIMIT: usize = 10_000;

/// Time one question (one `--match`, one replayed event, one `--lint`) may
/// spend compiling and running regex matchers before it stops running
/// those that [`redos_risk`] flags and holds the rest to
/// [`SPENT_BACKTRACK_LIMIT`].
pub const REGEX_BUDGET: std::time::Duration = std::time::Duration::from_millis(250);

/// Time after which a question evaluates no more regex matchers: each is
/// then reported as not evaluated.
pub const REGEX_HARD_BUDGET: std::time::Duration = std::time::Duration::from_secs(1);

/// What one question may spend on regex matchers (docs/security.md
/// "Settings files"): a settings file with thousands of catastrophic
/// patterns (`(a+)+\1x$`), each giving up only at [`BACKTRACK_LIMIT`],
/// would otherwise take minutes. Up to [`REGEX_BUDGET`] every matcher runs
/// with the full limit; past it a matcher [`redos_risk`] flags is not run
/// (its verdict says why, with the `matcher-catastrophic-regex` lint) and
/// the others get [`SPENT_BACKTRACK_LIMIT`]; past [`REGEX_HARD_BUDGET`]
/// none runs. Legitimate matchers take microseconds, so their verdicts
/// never depend on the budget.
#[derive(Debug, Default)]
pub struct Budget {
    spent: std::time::Duration,
    refused: usize,
    /// Patterns compiled for this question, by (pattern, backtrack limit):
    /// a lint probes one pattern on many names. At most [`CACHED_PATTERNS`].
    compiled: std::collections::HashMap<(String, usize), Result<fancy_regex::Regex, String>>,
}

/// Most compiled patterns a [`Budget`] keeps.
const CACHED_PATTERNS: usize = 1024;

impl Budget {
    /// A fresh budget, for one question.
    pub fn new() -> Budget {
        Budget::default()
    }

    /// Time spent so far on regex matchers.
    pub fn spent(&self) -> std::time::Duration {
        self.spent
    }

    /// How many matchers were not evaluated because the budget was spent.
    pub fn refused(&self) -> usize {
        self.refused
    }

    /// Whether the question may compile or run no more regex matchers
    /// ([`REGEX_HARD_BUDGET`] spent).
    pub fn exhausted(&self) -> bool {
        self.spent >= REGEX_HARD_BUDGET
    }

    /// `pattern` compiled with `backtrack_limit`, from the cache or
    /// compiled now, the time charged to the budget.
    fn compile(
        &mut self,
        pattern: &str,
        backtrack_limit: usize,
    ) -> Result<fancy_regex::Regex, String> {
        let key = (pattern.to_string(), backtrack_limit);
        if let Some(found) = self.compiled.get(&key) {
            return found.clone();
        }
        let started = std::time::Instant::now();
        let made = compile_with(pattern, backtrack_limit);
        self.spent += started.elapsed();
        if self.compiled.len() < CACHED_PATTERNS {
            self.compiled.insert(key, made.clone());
        }
        made
    }

    fn limit(&self) -> usize {
        if self.spent >= REGEX_BUDGET {
            SPENT_BACKTRACK_LIMIT
        } else {
            BACKTRACK_LIMIT
        }
    }

    /// Why `pattern` is not evaluated now, or `None` when it is.
    fn refusal(&mut self, pattern: &str) -> Option<String> {
        let why = if pattern.len() > MAX_REGEX_BYTES {
            too_long(pattern)
        } else if self.spent >= REGEX_HARD_BUDGET {
            format!(
                "this question already spent {} ms on regular expressions (the limit is {} ms)",
                self.spent.as_millis(),
                REGEX_HARD_BUDGET.as_millis()
            )
        } else if self.spent >= REGEX_BUDGET {
            let risk = redos_risk(pattern)?;
            format!(
                "matcher-catastrophic-regex: {risk}; this question already spent {} ms on regular expressions (past {} ms such patterns are not run)",
                self.spent.as_millis(),
                REGEX_BUDGET.as_millis()
            )
        } else {
            return None;
        };
        self.refused += 1;
        Some(why)
    }
}

/// Whether a group with `matcher` on `event` is reached when the event's
/// matcher field (the contract's `matcher`, e.g. `tool_name`) has `value`
/// (`None` when the payload lacks it), as of `version`.
///
/// ```
/// use hookscope_core::hooks::contract::Version;
/// use hookscope_core::hooks::matcher::check;
///
/// let v = Version::parse("2.1.332");
/// let bare = check("PreToolUse", Some("mcp__memory"), Some("mcp__memory__create"), &v);
/// assert!(!bare.matches);
/// assert_eq!(bare.hint.as_deref(), Some(r#"did you mean "mcp__memory__.*"?"#));
/// assert!(check("PreToolUse", Some("Edit.*"), Some("NotebookEdit"), &v).matches);
/// ```
pub fn check(
    event: &str,
    matcher: Option<&str>,
    value: Option<&str>,
    version: &Version,
) -> MatcherVerdict {
    check_within(event, matcher, value, version, &mut Budget::new())
}

/// [`check`] within `budget`, shared by every matcher of one question
/// (see [`Budget`]): a regex matcher is compiled and run only while the
/// budget allows, and the time it takes is charged to it.
pub fn check_within(
    event: &str,
    matcher: Option<&str>,
    value: Option<&str>,
    version: &Version,
    budget: &mut Budget,
) -> MatcherVerdict {
    check_inner(event, matcher, value, version, budget)
}

fn check_inner(
    event: &str,
    matcher: Option<&str>,
    value: Option<&str>,
    version: &Version,
    budget: &mut Budget,
) -> MatcherVerdict {
    let kind = classify(event, matcher, version);
    let field = matcher_field(event, version).unwrap_or("value");
    let written = matcher.unwrap_or_default();
    let verdict = |matches: bool, reason: String, hint: Option<String>| MatcherVerdict {
        matches,
        kind: kind.clone(),
        reason,
        hint,
    };
    match &kind {
        MatcherKind::All => {
            let reason = match matcher {
                None => format!("no matcher: every {field} matches"),
                Some(m) => format!("matcher \"{m}\" matches every {field}"),
            };
            verdict(true, reason, None)
        }
        MatcherKind::Ignored => {
            let reason = if contract::event(event, version).is_none() {
                format!(
                    "{event} is not a hook event Claude Code {} knows: the matcher \"{written}\" is not used",
                    shown(version)
                )
            } else {
                format!(
                    "{event} has no matcher support: the matcher \"{written}\" is ignored and the handler always fires"
                )
            };
            verdict(
                true,
                reason,
                Some("remove the matcher; it changes nothing on this event".to_string()),
            )
        }
        MatcherKind::Invalid { error, .. } => verdict(
            false,
            format!(
                "matcher \"{written}\" is not a valid regular expression ({}): Claude Code's schema check drops every hook of this file",
                first_line(error)
            ),
            None,
        ),
        MatcherKind::Exact { names } => {
            let Some(value) = value else {
                return verdict(
                    false,
                    format!(
                        "the payload has no {field}: the exact matcher \"{written}\" cannot match"
                    ),
                    None,
                );
            };
            let alphabet = Alphabet::of(event, version);
            let what = if names.len() == 1 {
                "an exact name"
            } else {
                "a list of exact names"
            };
            if names.iter().any(|n| n == value) {
                return verdict(
                    true,
                    format!(
                        "matcher \"{written}\" is {what} ({}): {field} \"{value}\" is one of them",
                        alphabet.describe()
                    ),
                    None,
                );
            }
            // A bare prefix of the value (`mcp__memory` for
            // `mcp__memory__create`) names no tool at all; otherwise say
            // which value missed which name(s).
            let bare_prefix =
                field == "tool_name" && names.iter().any(|n| value.starts_with(&format!("{n}__")));
            let subject = if bare_prefix {
                "no tool is called exactly that".to_string()
            } else if let [only] = names.as_slice() {
                format!("{field} \"{value}\" is not \"{only}\"")
            } else {
                format!("{field} \"{value}\" is not one of them")
            };
            let renamed = renamed_note(names.iter().map(String::as_str), value, version);
            verdict(
                false,
                format!(
                    "matcher \"{written}\" is {what} ({}): {subject}{}",
                    alphabet.describe(),
                    renamed
                        .as_ref()
                        .map_or(String::new(), |(n, _)| format!("; {n}"))
                ),
                renamed.map(|(_, h)| h).or_else(|| exact_hint(names, value)),
            )
        }
        MatcherKind::Regex { pattern } => {
            let drift = regex_drift_note(event, pattern, version);
            let Some(value) = value else {
                return verdict(
                    false,
                    format!(
                        "the payload has no {field}: the regular expression \"{written}\" cannot match{drift}"
                    ),
                    None,
                );
            };
            if let Some(why) = budget.refusal(pattern) {
                return verdict(
                    false,
                    format!(
                        "matcher \"{written}\" was not evaluated on \"{value}\" ({why}); JavaScript's engine could hang here{drift}"
                    ),
                    Some(
                        "remove the nested or overlapping quantifier; list names with `|`"
                            .to_string(),
                    ),
                );
            }
            let limit = budget.limit();
            let found = budget.compile(pattern, limit).map(|re| {
                let started = std::time::Instant::now();
                let found = re
                    .find(value)
                    .map(|m| m.map(|m| (m.start(), m.end(), m.as_str().to_string())))
                    .map_err(|e| e.to_string());
                budget.spent += started.elapsed();
                found
            });
            // JS `test()` searches anywhere: a pattern is anchored only by
            // its own `^…$`.
            let shape = if pattern.starts_with('^')
                && pattern.ends_with('$')
                && !pattern.ends_with("\\$")
            {
                "a regular expression, anchored by its ^…$"
            } else {
                "a regular expression, unanchored"
            };
            match found {
                Ok(Ok(Some((start, end, text)))) => {
                    let whole = start == 0 && end == value.len();
                    let hint = (!whole).then(|| {
                        format!(
                            "it matches inside longer names; anchor it as \"^({pattern})$\" to match whole names"
                        )
                    });
                    let reason = if whole {
                        format!("matcher \"{written}\" is {shape}: it matches \"{value}\"{drift}")
                    } else {
                        format!(
                            "matcher \"{written}\" is {shape}: it matches \"{value}\" at \"{text}\"{drift}"
                        )
                    };
                    verdict(true, reason, hint)
                }
                Ok(Ok(None)) => {
                    let renamed = renamed_note(words(pattern), value, version);
                    verdict(
                        false,
                        format!(
                            "matcher \"{written}\" is {shape}: no match in \"{value}\"{drift}{}",
                            renamed
                                .as_ref()
                                .map_or(String::new(), |(n, _)| format!("; {n}"))
                        ),
                        renamed
                            .map(|(_, h)| h)
                            .or_else(|| regex_hint(pattern, value, budget)),
                    )
                }
                Ok(Err(e)) => verdict(
                    false,
                    format!(
                        "matcher \"{written}\": the regular expression gave up on \"{value}\" ({}); JavaScript's engine could hang here",
                        first_line(&e)
                    ),
                    None,
                ),
                Err(e) => verdict(
                    false,
                    format!("matcher \"{written}\" does not compile: {}", first_line(&e)),
                    None,
                ),
            }
        }
    }
}

/// Tools Claude Code renamed: `(old, new, since)`: from `since` a hook
/// payload's `tool_name` is `new` (docs/hooks-exec.md "Task and Agent" has
/// the evidence: the 2.1.332 captures carry `Agent`; the rename dates from
/// 2.1.63).
pub const RENAMED_TOOLS: &[(&str, &str, &str)] = &[("Task", "Agent", "2.1.63")];

/// The fix for a matcher naming a renamed tool's old name only: the one
/// `hooks --lint` (`matcher-renamed-tool`) and the reach explanations give.
pub fn rename_fix(old: &str, new: &str, since: &str) -> String {
    format!("write \"{new}\" (\"{new}|{old}\" also covers sessions before {since})")
}

/// The rename a matcher misses at `version`: its exact names or regex
/// words name a tool's old name but not its new one, and `version` is at or
/// after the rename. `(old, new, since)`.
pub fn missed_rename(
    kind: &MatcherKind,
    version: &Version,
) -> Option<(&'static str, &'static str, &'static str)> {
    let names: Vec<&str> = match kind {
        MatcherKind::Exact { names } => names.iter().map(String::as_str).collect(),
        MatcherKind::Regex { pattern } => words(pattern).collect(),
        _ => return None,
    };
    RENAMED_TOOLS.iter().copied().find(|(old, new, since)| {
        names.contains(old) && !names.contains(new) && *version >= Version::parse(since)
    })
}

/// The words (runs of letters, digits and `_`) of a pattern, for spotting a
/// tool name in a regex (`^(Task|Bash)$` names Task; `TaskCreate` does
/// not).
fn words(pattern: &str) -> impl Iterator<Item = &str> + Clone {
    pattern
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// When a matcher naming `names` missed `value` because of a tool rename:
/// the reason's note and the fix. `Task` against `Agent` from 2.1.63 (the
/// old name no longer reaches subagent calls); `Agent` against `Task`
/// before (the new name did not exist yet).
fn renamed_note<'a>(
    names: impl Iterator<Item = &'a str> + Clone,
    value: &str,
    version: &Version,
) -> Option<(String, String)> {
    for (old, new, since) in RENAMED_TOOLS {
        let has = |n: &str| names.clone().any(|x| x == n);
        let after = *version >= Version::parse(since);
        if has(old) && !has(new) && value == *new && after {
            return Some((
                format!(
                    "the {old} tool was renamed {new} in Claude Code {since}, and from then on hook payloads carry tool_name \"{new}\", so a matcher naming only {old} no longer fires on it (Claude Code {} here)",
                    shown(version)
                ),
                rename_fix(old, new, since),
            ));
        }
        if has(new) && !has(old) && value == *old && !after {
            return Some((
                format!(
                    "before Claude Code {since} this tool was called {old} (Claude Code {} here)",
                    shown(version)
                ),
                format!("write \"{new}|{old}\" to cover sessions before and after {since}"),
            ));
        }
    }
    None
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default().trim()
}

/// Why a pattern is a regex rather than an exact list because of the
/// version (`code-reviewer` before 2.1.195, `Edit, Write` before 2.1.191),
/// as a suffix for the reason; empty otherwise.
fn regex_drift_note(event: &str, pattern: &str, version: &Version) -> String {
    let latest = Alphabet::of(event, &Version::latest());
    if !pattern.chars().all(|c| latest.allows(c)) {
        return String::new();
    }
    let now = Alphabet::of(event, version);
    if pattern.contains('-') && !now.hyphen {
        return format!(
            " (before {HYPHEN_SINCE} a '-' makes a matcher a regular expression; Claude Code {} here)",
            shown(version)
        );
    }
    format!(
        " (before {COMMA_SINCE} ',' and spaces make a matcher a regular expression; Claude Code {} here)",
        shown(version)
    )
}

/// A fix for an exact matcher that missed `value`.
fn exact_hint(names: &[String], value: &str) -> Option<String> {
    for name in names {
        if value.starts_with(&format!("{name}__")) {
            return Some(format!("did you mean \"{name}__.*\"?"));
        }
        if let Some(server) = name.strip_prefix("mcp__")
            && !server.contains("__")
            && value.starts_with("mcp__plugin_")
            && value.contains(&format!("_{server}__"))
        {
            let prefix = value
                .find(&format!("_{server}__"))
                .map(|i| &value[..i + server.len() + 3])
                .unwrap_or(value);
            return Some(format!(
                "plugin servers are named mcp__plugin_<plugin>_<server>: did you mean \"{prefix}.*\"?"
            ));
        }
        if name.eq_ignore_ascii_case(value) {
            return Some(format!(
                "exact names are case-sensitive: \"{name}\" and \"{value}\" differ only in case"
            ));
        }
    }
    None
}

/// A fix for a regex that missed `value`: a case difference.
fn regex_hint(pattern: &str, value: &str, budget: &mut Budget) -> Option<String> {
    if budget.exhausted() {
        return None;
    }
    let limit = budget.limit();
    let re = budget.compile(&format!("(?i){pattern}"), limit).ok()?;
    let started = std::time::Instant::now();
    let hit = matches!(re.is_match(value), Ok(true));
    budget.spent += started.elapsed();
    hit.then(|| "matchers are case-sensitive; it matches only ignoring case".to_string())
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

/// A parsed permission rule: `Tool` or `Tool(pattern)`.
fn parse_rule(rule: &str) -> Option<(&str, Option<&str>)> {
    let rule = rule.trim();
    match rule.find('(') {
        None => (!rule.is_empty() && !rule.contains(')')).then_some((rule, None)),
        Some(open) => {
            let inner = rule[open + 1..].strip_suffix(')')?;
            let tool = rule[..open].trim();
            (!tool.is_empty()).then_some((tool, Some(inner)))
        }
    }
}

/// Checks `rule` (one permission rule, no `&&`/`||`) for `event` on
/// `payload` (the hook stdin JSON) as of `version`: never runs on non-tool
/// events; fails open on unparsable commands (docs/contract.md#the-if-field).
///
/// Bash patterns are matched against every simple command of the line
/// (leading `VAR=val` stripped, `$()`/backtick contents included):
/// `*` is any text, a trailing ` *` or `:*` also matches the bare prefix
/// (`git *` matches `git`). A pattern more specific than a command name
/// (`git push *`) runs anyway when the line has `$(`, a backtick or a
/// `$VAR`. Path rules (`Edit(src/**)`, `Read(//etc/*)`) are globs: `//x`
/// is absolute, `~/x` under the home folder, `/x` and `x` relative to the
/// payload's `cwd` — from 2.1.214 directly under it, before at any depth.
/// `WebFetch(domain:host)` compares the URL's host. Other patterns are
/// not checked and run (fail open), said in the reason.
///
/// ```
/// use hookscope_core::hooks::contract::Version;
/// use hookscope_core::hooks::matcher::check_if;
/// use serde_json::json;
///
/// let v = Version::parse("2.1.332");
/// let p = json!({"tool_name": "Bash", "tool_input": {"command": "echo $(rm -rf /)"}});
/// assert!(check_if("PreToolUse", "Bash(rm *)", &p, &v).runs);
/// assert!(!check_if("Stop", "Bash(rm *)", &p, &v).runs);
/// ```
pub fn check_if(event: &str, rule: &str, payload: &Value, version: &Version) -> IfVerdict {
    let verdict = |runs: bool, reason: String| IfVerdict { runs, reason };
    if !TOOL_EVENTS.contains(&event) {
        return verdict(
            false,
            format!(
                "\"if\" applies only to tool events; on {event} a handler with \"if\" never runs"
            ),
        );
    }
    let Some((tool, pattern)) = parse_rule(rule) else {
        return verdict(
            true,
            format!(
                "\"if\": \"{rule}\" is not a permission rule (Tool or Tool(pattern)): runs (fails open)"
            ),
        );
    };
    let tool_name = payload
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if tool != tool_name {
        return verdict(
            false,
            format!("\"if\": \"{rule}\" is for {tool}; this call is {tool_name}"),
        );
    }
    let pattern = match pattern.map(str::trim) {
        None | Some("") | Some("*") => {
            return verdict(true, format!("\"if\": \"{rule}\" covers every {tool} call"));
        }
        Some(p) => p,
    };
    let input = payload.get("tool_input").unwrap_or(&Value::Null);
    match tool {
        "Bash" => check_bash(rule, pattern, input),
        "WebFetch" => check_domain(rule, pattern, input),
        _ => match file_path_of(input) {
            Some(path) if is_path_tool(tool) => check_path(rule, pattern, path, payload, version),
            _ => verdict(
                true,
                format!("\"if\": patterns on {tool} are not checked here: runs (fails open)"),
            ),
        },
    }
}

fn is_path_tool(tool: &str) -> bool {
    matches!(
        tool,
        "Edit" | "MultiEdit" | "Write" | "Read" | "NotebookEdit" | "NotebookRead" | "Glob" | "Grep"
    )
}

fn file_path_of(input: &Value) -> Option<&str> {
    ["file_path", "notebook_path", "path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
}

/// A permission-rule wildcard (`*` = any text, newlines included; every
/// other character literal) as an anchored regex; shared with the
/// settings `permissions` rules of `hooks::exec::permissions`.
pub(crate) fn wildcard_regex(pattern: &str) -> Option<regex::Regex> {
    let body: Vec<String> = pattern.split('*').map(regex::escape).collect();
    regex::Regex::new(&format!("^(?s:{})$", body.join(".*"))).ok()
}

fn command_pattern_matches(pattern: &str, text: &str) -> bool {
    if let Some(prefix) = pattern.strip_suffix(":*") {
        return text == prefix || text.starts_with(&format!("{prefix} "));
    }
    if let Some(prefix) = pattern.strip_suffix(" *")
        && text == prefix
    {
        return true;
    }
    wildcard_regex(pattern).is_some_and(|re| re.is_match(text))
}

/// Whether a Bash pattern names more than a command (`git push *`,
/// `npm run test:*`) rather than just one (`git`, `git *`, `git:*`).
fn more_specific_than_a_name(pattern: &str) -> bool {
    let base = pattern
        .strip_suffix(":*")
        .or_else(|| pattern.strip_suffix(" *"))
        .unwrap_or(pattern);
    base.contains(' ') || base.contains('*')
}

fn has_dynamic_parts(command: &str) -> bool {
    if command.contains("$(") || command.contains('`') {
        return true;
    }
    let bytes = command.as_bytes();
    bytes
        .windows(2)
        .any(|w| w[0] == b'$' && (w[1].is_ascii_alphabetic() || w[1] == b'_' || w[1] == b'{'))
}

fn check_bash(rule: &str, pattern: &str, input: &Value) -> IfVerdict {
    let Some(command) = input.get("command").and_then(Value::as_str) else {
        return IfVerdict {
            runs: true,
            reason: format!(
                "\"if\": \"{rule}\": the call has no command string: runs (fails open)"
            ),
        };
    };
    let line = parse_command_line(command);
    if !line.is_ok() {
        let why = line
            .error
            .clone()
            .or_else(|| line.limits_note())
            .unwrap_or_default();
        return IfVerdict {
            runs: true,
            reason: format!(
                "\"if\": \"{rule}\": the command could not be parsed completely ({why}): runs (fails open)"
            ),
        };
    }
    if more_specific_than_a_name(pattern) && has_dynamic_parts(command) {
        return IfVerdict {
            runs: true,
            reason: format!(
                "\"if\": \"{rule}\" is more specific than a command name and the command has $(…), backticks or $VAR: runs anyway"
            ),
        };
    }
    let texts: Vec<String> = line
        .calls
        .iter()
        .filter(|c| !c.program.is_empty())
        .map(|c| c.argv().join(" "))
        .collect();
    let n = texts.len();
    for (i, text) in texts.iter().enumerate() {
        if command_pattern_matches(pattern, text) {
            return IfVerdict {
                runs: true,
                reason: format!(
                    "\"if\": \"{rule}\" matches simple command {} of {n} ({})",
                    i + 1,
                    crate::transcript::text::one_line(text, 60)
                ),
            };
        }
    }
    let listed: Vec<String> = texts
        .iter()
        .take(4)
        .map(|t| crate::transcript::text::one_line(t, 30))
        .collect();
    IfVerdict {
        runs: false,
        reason: format!(
            "\"if\": \"{rule}\" matches none of the {n} simple command(s) ({}{})",
            listed.join("; "),
            if n > 4 { "; …" } else { "" }
        ),
    }
}

fn check_domain(rule: &str, pattern: &str, input: &Value) -> IfVerdict {
    let Some(domain) = pattern.strip_prefix("domain:") else {
        return IfVerdict {
            runs: true,
            reason: format!(
                "\"if\": \"{rule}\": only domain: patterns are checked on WebFetch: runs (fails open)"
            ),
        };
    };
    let url = input.get("url").and_then(Value::as_str).unwrap_or_default();
    let host = url
        .split_once("://")
        .map(|(_, rest)| rest)
        .unwrap_or(url)
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    let host = host.rsplit('@').next().unwrap_or(host);
    let host = host.split(':').next().unwrap_or(host);
    let runs = host.eq_ignore_ascii_case(domain.trim());
    IfVerdict {
        runs,
        reason: format!(
            "\"if\": \"{rule}\": the URL's host is \"{host}\"{}",
            if runs { "" } else { ", another domain" }
        ),
    }
}

fn check_path(
    rule: &str,
    pattern: &str,
    path: &str,
    payload: &Value,
    version: &Version,
) -> IfVerdict {
    let cwd = payload
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .unwrap_or_default();
    let anchored = *version >= Version::parse(ANCHORED_PATHS_SINCE);
    let glob_text = if let Some(abs) = pattern.strip_prefix("//") {
        format!("/{abs}")
    } else if let Some(rest) = pattern.strip_prefix("~/") {
        match dirs::home_dir() {
            Some(home) => home.join(rest).to_string_lossy().into_owned(),
            None => {
                return IfVerdict {
                    runs: true,
                    reason: format!(
                        "\"if\": \"{rule}\": no home folder to resolve ~: runs (fails open)"
                    ),
                };
            }
        }
    } else {
        let rel = pattern.trim_start_matches("./").trim_start_matches('/');
        if anchored {
            cwd.join(rel).to_string_lossy().into_owned()
        } else {
            format!("{}/**/{rel}", cwd.to_string_lossy().trim_end_matches('/'))
        }
    };
    let file = if Path::new(path).is_absolute() {
        PathBuf::from(path)
    } else {
        cwd.join(path)
    };
    let matcher = globset::GlobBuilder::new(&glob_text)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher());
    let Ok(matcher) = matcher else {
        return IfVerdict {
            runs: true,
            reason: format!("\"if\": \"{rule}\" is not a valid glob: runs (fails open)"),
        };
    };
    let hit = matcher.is_match(&file)
        || (!anchored && {
            // `src/**` at any depth also covers `<cwd>/src/**` itself.
            let direct = cwd.join(pattern.trim_start_matches("./").trim_start_matches('/'));
            globset::GlobBuilder::new(&direct.to_string_lossy())
                .literal_separator(true)
                .build()
                .is_ok_and(|g| g.compile_matcher().is_match(&file))
        });
    let scope = if pattern.starts_with("//") || pattern.starts_with("~/") {
        String::new()
    } else if anchored {
        format!(" (relative to the cwd, directly under it from {ANCHORED_PATHS_SINCE})")
    } else {
        format!(
            " (relative to the cwd at any depth before {ANCHORED_PATHS_SINCE}; Claude Code {} here)",
            shown(version)
        )
    };
    IfVerdict {
        runs: hit,
        reason: format!(
            "\"if\": \"{rule}\"{scope} {} {}",
            if hit { "covers" } else { "does not cover" },
            file.display()
        ),
    }
}

/// Why a regex matcher could make JavaScript's backtracking engine hang
/// (nested quantifiers like `(a+)+`, `(.*)*`, alternations under a
/// quantifier whose branches can start alike like `(a|ab)*`), or `None`.
///
/// A syntactic check over the pattern (escapes and character classes
/// skipped), not a proof: it flags the classic exponential shapes.
pub fn redos_risk(pattern: &str) -> Option<String> {
    struct Group {
        start: usize,
        unbounded_inside: bool,
        branches: Vec<String>,
        current: String,
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut stack: Vec<Group> = vec![Group {
        start: 0,
        unbounded_inside: false,
        branches: Vec::new(),
        current: String::new(),
    }];
    let is_unbounded = |i: usize| -> bool {
        match chars.get(i) {
            Some('*') | Some('+') => true,
            Some('{') => {
                let rest: String = chars[i..].iter().take_while(|c| **c != '}').collect();
                rest.ends_with(',') || rest.contains(",}") || {
                    let inner = rest.trim_start_matches('{');
                    inner.ends_with(',')
                }
            }
            _ => false,
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                if let Some(top) = stack.last_mut() {
                    top.current.push(c);
                    if let Some(n) = chars.get(i + 1) {
                        top.current.push(*n);
                    }
                }
                i += 2;
                continue;
            }
            '[' => {
                let mut j = i + 1;
                if chars.get(j) == Some(&'^') {
                    j += 1;
                }
                if chars.get(j) == Some(&']') {
                    j += 1;
                }
                while j < chars.len() && chars[j] != ']' {
                    if chars[j] == '\\' {
                        j += 1;
                    }
                    j += 1;
                }
                if let Some(top) = stack.last_mut() {
                    top.current.extend(&chars[i..(j + 1).min(chars.len())]);
                }
                i = j + 1;
                continue;
            }
            '(' => stack.push(Group {
                start: i,
                unbounded_inside: false,
                branches: Vec::new(),
                current: String::new(),
            }),
            '|' => {
                if let Some(top) = stack.last_mut() {
                    let branch = std::mem::take(&mut top.current);
                    top.branches.push(branch);
                }
            }
            ')' if stack.len() > 1 => {
                let Some(mut group) = stack.pop() else { break };
                let last = std::mem::take(&mut group.current);
                group.branches.push(last);
                let quantified = is_unbounded(i + 1);
                let text: String = chars[group.start..=i].iter().collect();
                if quantified && group.unbounded_inside {
                    return Some(format!(
                        "nested quantifiers: {text}{} repeats a group that itself repeats; JavaScript's backtracking can take exponential time on a near-miss",
                        chars[i + 1]
                    ));
                }
                if quantified && group.branches.len() > 1 {
                    let branches: Vec<String> = group
                        .branches
                        .iter()
                        .map(|b| b.trim_start_matches("?:").to_string())
                        .collect();
                    let overlap = branches.iter().enumerate().any(|(a, x)| {
                        branches.iter().enumerate().any(|(b, y)| {
                            a != b
                                && (x.is_empty() || x.starts_with('.') || y.starts_with(x.as_str()))
                        })
                    });
                    if overlap {
                        return Some(format!(
                            "overlapping alternatives under a quantifier: {text}{} can match the same text several ways; JavaScript's backtracking can take exponential time",
                            chars[i + 1]
                        ));
                    }
                }
                if let Some(parent) = stack.last_mut() {
                    parent.unbounded_inside |= group.unbounded_inside || quantified;
                    parent.current.push_str(&text);
                }
                i += 1;
                continue;
            }
            _ => {
                if is_unbounded(i)
                    && let Some(top) = stack.last_mut()
                {
                    top.unbounded_inside = true;
                }
                if let Some(top) = stack.last_mut() {
                    top.current.push(c);
                }
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests;
