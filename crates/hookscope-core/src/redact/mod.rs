//! Secret masking for tool inputs and outputs (docs/tool-calls.md#redaction).
//!
//! Redaction is applied at emission time only: filters and searches match
//! the raw text, and only what is shown or written out goes through
//! [`Redactor::redact`] / [`Redactor::redact_value`]. Every secret found is
//! replaced by `[REDACTED_<TYPE>]`, where TYPE is one of [`TYPES`], and the
//! caller's [`Redactions`] map counts the replacements per TYPE (the
//! `redactions` field of a response).
//!
//! # Matching model
//!
//! * A cheap trigger scan (one literal-only regex: `key`, `token`, `sk-`,
//!   `://`, … case-insensitively) rejects texts that cannot contain a
//!   secret; such texts come back as [`Cow::Borrowed`] without further work.
//! * Otherwise one combined [`RegexSet`] over all patterns tells which TYPEs
//!   occur; only those patterns are run to locate their matches.
//! * Priority (the order of [`TYPES`]) decides overlaps: candidate ranges
//!   are accepted highest priority first and a lower-priority candidate
//!   that overlaps an accepted range is dropped. So `sk-ant-…` is
//!   `ANTHROPIC_KEY`, not `OPENAI_KEY`, and `token: ghp_…` becomes
//!   `token: [REDACTED_GITHUB_TOKEN]` rather than a `GENERIC_SECRET`, even
//!   though the generic match starts further left.
//! * Patterns with a value group replace only the value: key names
//!   (`api_key=`), `Bearer `, and the URL scheme and host are kept.
//! * Value-shaped patterns (`AWS_SECRET`, `OPENAI_KEY`, `BEARER_TOKEN`,
//!   `GENERIC_SECRET`) require at least one digit in the value so that prose
//!   ("password: required") is left alone.
//! * Output is idempotent: `[REDACTED_…]` placeholders never match again.
//!
//! # Decisions beyond docs/tool-calls.md#redaction
//!
//! * `URL_CREDENTIALS` masks the whole userinfo (`user:pass`), keeping
//!   `scheme://` and `@host…`: the pattern is the "user:pass" before `@`, and
//!   the user slot often carries the token itself
//!   (`https://<token>:x-oauth-basic@…`).
//! * `GENERIC_SECRET` also requires a letter (all-digit values are counters
//!   like `total_tokens=12345678`), and key words must end the key name or be
//!   followed by `_`, `-` or `.` (`tokenizer`, `author`, `input_tokens` are
//!   not secret keys). Only `:`/`=`/`:=`/`=>` separators on one line count;
//!   `--password x` flags are not covered.
//! * A PEM header without an END line (truncated output) masks the header
//!   and the base64 body that follows.
//! * [`Redactor::redact_value`] redacts string values, never object keys;
//!   additionally a string value under a secret-looking key
//!   (`{"password": "hunter2x9"}`) is masked whole when it passes the
//!   `AWS_SECRET` or `GENERIC_SECRET` value rules.

mod patterns;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::{Regex, RegexSet};
use serde_json::Value;

use patterns::PATTERNS;

/// Counts of replacements by TYPE name (`"AWS_KEY"` → 2).
///
/// A `BTreeMap` so that JSON output is sorted. Only TYPEs that were actually
/// replaced appear; callers add the map to a response only when it is
/// non-empty (docs/tool-calls.md#redaction).
pub type Redactions = BTreeMap<String, usize>;

/// Every TYPE name, in priority order (docs/tool-calls.md#redaction). The placeholder for a
/// TYPE `T` is `[REDACTED_T]`.
pub const TYPES: &[&str] = &[
    "PRIVATE_KEY",
    "AWS_KEY",
    "AWS_SECRET",
    "GITHUB_TOKEN",
    "GITLAB_TOKEN",
    "ANTHROPIC_KEY",
    "OPENAI_KEY",
    "SLACK_TOKEN",
    "STRIPE_KEY",
    "JWT",
    "GOOGLE_API_KEY",
    "URL_CREDENTIALS",
    "BEARER_TOKEN",
    "GENERIC_SECRET",
];

/// Compiled secret patterns (docs/tool-calls.md#redaction).
///
/// Building one compiles the trigger regex; the patterns are compiled the
/// first time a text passes the trigger (a few ms: a live hook whose
/// decision holds no secret-like word never pays it). Build it once and
/// share it — use [`redactor`] for the process-wide instance. `Redactor` is
/// `Send + Sync`.
#[derive(Debug)]
pub struct Redactor {
    /// Literal-only prefilter; no match ⇒ no secret possible.
    triggers: aho_corasick::AhoCorasick,
    /// The patterns, compiled on first use.
    patterns: std::sync::OnceLock<Compiled>,
    /// Anchored key-name regexes for [`Redactor::redact_value`] (generic,
    /// AWS secret), compiled on first use: a short-lived process (the live
    /// hook) that redacts only text never pays for them.
    key_names: std::sync::OnceLock<(Regex, Regex)>,
}

/// False only when neither key-name regex can match `key`: an ASCII key
/// (the regexes' `(?i)` folds a few non-ASCII letters into ASCII ones)
/// holding none of the words each alternative needs. Spares the regexes'
/// compilation in a process whose keys never come close.
fn key_may_name_a_secret(key: &str) -> bool {
    if !key.is_ascii() {
        return true;
    }
    let lower = key.to_ascii_lowercase();
    ["key", "secret", "token", "pass", "credential", "auth"]
        .iter()
        .any(|w| lower.contains(w))
}

/// The compiled patterns of a [`Redactor`].
#[derive(Debug)]
struct Compiled {
    /// All patterns combined, in priority order.
    set: RegexSet,
    /// The same patterns, individually, to locate matches.
    regexes: Vec<Regex>,
}

/// One accepted replacement: byte range and TYPE.
type Accepted = BTreeMap<usize, (usize, &'static str)>;

impl Redactor {
    /// Compiles the built-in patterns.
    ///
    /// # Panics
    ///
    /// Never for the shipped patterns (they are constants covered by the
    /// tests); a panic here is a bug in this module, not in the input.
    pub fn new() -> Redactor {
        Redactor {
            triggers: aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(patterns::TRIGGERS)
                .expect("built-in trigger literals build"),
            patterns: std::sync::OnceLock::new(),
            key_names: std::sync::OnceLock::new(),
        }
    }

    /// Whether `text` holds a trigger literal ([`patterns::TRIGGERS`],
    /// ASCII case-insensitively) or a non-ASCII letter that case-folds
    /// into one (KELVIN SIGN, LONG S): false means no pattern can match.
    fn triggered(&self, text: &str) -> bool {
        self.triggers.is_match(text) || text.contains(['\u{212A}', '\u{17F}'])
    }

    /// The anchored key-name regexes (generic, AWS secret).
    fn key_names(&self) -> &(Regex, Regex) {
        self.key_names.get_or_init(|| {
            let compile = |re: &str| Regex::new(re).expect("built-in redaction pattern compiles");
            (
                compile(patterns::GENERIC_KEY_ANCHORED),
                compile(patterns::AWS_SECRET_KEY_ANCHORED),
            )
        })
    }

    /// The patterns, compiled on the first call.
    fn compiled(&self) -> &Compiled {
        self.patterns.get_or_init(|| {
            let compile = |re: &str| Regex::new(re).expect("built-in redaction pattern compiles");
            Compiled {
                set: RegexSet::new(PATTERNS.iter().map(|p| p.re))
                    .expect("built-in redaction patterns compile as a set"),
                regexes: PATTERNS.iter().map(|p| compile(p.re)).collect(),
            }
        })
    }

    /// Masks every secret in `text` as `[REDACTED_<TYPE>]` and adds one to
    /// `counts[TYPE]` per replacement (counts accumulate across calls).
    ///
    /// Returns [`Cow::Borrowed`] when nothing was replaced (including the
    /// fast path for texts without any trigger literal), so clean text costs
    /// no allocation. Never fails; any `&str` is valid input.
    pub fn redact<'a>(&self, text: &'a str, counts: &mut Redactions) -> Cow<'a, str> {
        if !self.triggered(text) {
            return Cow::Borrowed(text);
        }
        let accepted = self.find(text);
        if accepted.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (&start, &(end, ty)) in &accepted {
            out.push_str(&text[last..start]);
            out.push_str("[REDACTED_");
            out.push_str(ty);
            out.push(']');
            last = end;
            bump(counts, ty);
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }

    /// Returns a copy of `value` with every string inside it redacted as by
    /// [`Redactor::redact`], recursing through arrays and objects.
    ///
    /// Object keys are kept as they are (they are field names, and masking
    /// them could make keys collide). A string value whose own text contains
    /// no secret but whose key looks secret (`password`, `api_key`,
    /// `aws_secret_access_key`, …) is replaced whole by
    /// `[REDACTED_AWS_SECRET]` or `[REDACTED_GENERIC_SECRET]` when it meets
    /// that TYPE's value rule (AWS: 40 base64 chars with a digit; generic:
    /// ≥8 chars with a digit and a letter) and has no whitespace. Numbers,
    /// booleans and null are returned unchanged.
    pub fn redact_value(&self, value: &Value, counts: &mut Redactions) -> Value {
        match value {
            Value::String(s) => Value::String(self.redact(s, counts).into_owned()),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.redact_value(v, counts)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let nv = match v {
                            Value::String(s) => self.redact_keyed(k, s, counts),
                            _ => self.redact_value(v, counts),
                        };
                        (k.clone(), nv)
                    })
                    .collect(),
            ),
            Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
        }
    }

    /// A string under object key `key`: ordinary redaction first, then the
    /// secret-key rule if nothing was found.
    fn redact_keyed(&self, key: &str, s: &str, counts: &mut Redactions) -> Value {
        if let Cow::Owned(r) = self.redact(s, counts) {
            return Value::String(r);
        }
        if s.chars().any(char::is_whitespace) {
            return Value::String(s.to_owned());
        }
        if !key_may_name_a_secret(key) {
            return Value::String(s.to_owned());
        }
        let (generic_key, aws_secret_key) = self.key_names();
        let ty = if aws_secret_key.is_match(key) && patterns::aws_secret_value(s) {
            "AWS_SECRET"
        } else if generic_key.is_match(key) && patterns::generic_value(s) {
            "GENERIC_SECRET"
        } else {
            return Value::String(s.to_owned());
        };
        bump(counts, ty);
        Value::String(format!("[REDACTED_{ty}]"))
    }

    /// Accepted replacement ranges, resolved by priority.
    fn find(&self, text: &str) -> Accepted {
        let mut accepted = Accepted::new();
        let compiled = self.compiled();
        for idx in compiled.set.matches(text).iter() {
            let (Some(pat), Some(re)) = (PATTERNS.get(idx), compiled.regexes.get(idx)) else {
                continue;
            };
            for caps in re.captures_iter(text) {
                let Some(m) = caps.get(pat.group) else {
                    continue;
                };
                if m.is_empty() {
                    continue;
                }
                let next = text[m.end()..].chars().next();
                if !(pat.check)(m.as_str(), next) {
                    continue;
                }
                if overlaps(&accepted, m.start(), m.end()) {
                    continue;
                }
                accepted.insert(m.start(), (m.end(), pat.ty));
            }
        }
        accepted
    }
}

impl Default for Redactor {
    /// Same as [`Redactor::new`].
    fn default() -> Self {
        Redactor::new()
    }
}

/// The process-wide [`Redactor`], compiled on first use.
pub fn redactor() -> &'static Redactor {
    static REDACTOR: LazyLock<Redactor> = LazyLock::new(Redactor::new);
    &REDACTOR
}

/// Does `[start, end)` overlap any accepted range?
fn overlaps(accepted: &Accepted, start: usize, end: usize) -> bool {
    if let Some((_, &(prev_end, _))) = accepted.range(..=start).next_back()
        && prev_end > start
    {
        return true;
    }
    accepted
        .range(start..)
        .next()
        .is_some_and(|(&next_start, _)| next_start < end)
}

fn bump(counts: &mut Redactions, ty: &str) {
    if let Some(c) = counts.get_mut(ty) {
        *c += 1;
    } else {
        counts.insert(ty.to_owned(), 1);
    }
}

#[cfg(test)]
mod tests;
