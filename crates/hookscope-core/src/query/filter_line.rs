//! The one-line filter language of the TUI's Calls view: the parameters of
//! `find_tool_calls` (docs/tool-calls.md#the-find-query) as `key:value` words, e.g.
//! `tool:Bash input:"rm -rf" is:error since:7d session:4f2a agent:codex`.
//!
//! | word | parameter |
//! |---|---|
//! | `tool:NAME` | `tool_name` (exact, case-insensitive) |
//! | `name:TEXT` (also `pattern:`) | `tool_name_pattern` (substring) |
//! | `input:TEXT` (also `in:`), or bare words | `input_contains` |
//! | `output:TEXT` (also `out:`) | `output_contains` |
//! | `-output:TEXT` (also `-out:`, `excludes:`) | `output_excludes` |
//! | `is:error` / `is:ok` | `is_error` true / false |
//! | `session:ID` (repeatable) | `session` (exact id or unique prefix) |
//! | `since:WHEN`, `until:WHEN` | `since`, `until` (RFC 3339, date, `7d`…) |
//! | `agent:NAME` | `agent` |
//! | `limit:N` | `limit` |
//! | `mode:head\|tail\|smart` | `output_mode` |
//! | `redact:off` | `redact = false` |
//! | `cost:on` | `with_subagent_cost = true` |
//! | `hook:EVENT` | extension `hook` (a hook firing of EVENT or `hookName` recorded on the call) |
//! | `is:blocked` / `is:flagged` / `is:rewritten` | extensions `blocked` / `flagged` / `rewritten` = true (a hook blocked the call, so it did not run / objected after it ran / rewrote its input) |
//! | `-is:blocked` / `-is:flagged` / `-is:rewritten`, `-is:error` / `-is:ok` | the same = false (`is:error -is:blocked`: calls that ran and failed), `is_error` false / true |
//! | `ruled:RULE`, `is:ruled` | extension `decided_by` = RULE / `*` (`hookscope hook` logged a decision on the call, in which rule RULE matched / any) |
//!
//! Keys are case-insensitive. A value with spaces is written in double
//! quotes (`\"` and `\\` escape inside them). Bare words (no key) are joined
//! with single spaces into `input_contains`, so typing `rm -rf` searches
//! inputs. A line without `tool:` or `name:` matches every tool (validate
//! with [`FindParams::validate_or_all_tools`]).
//!
//! Errors ([`QueryError::InvalidArgument`]): an unknown key (`tol:Bash`; a
//! bare word that merely contains `:` must be quoted, e.g. `"http://x"`), a
//! key given twice (except `session:`; `is:error`, `is:blocked`,
//! `is:flagged` and `is:rewritten` are four different words), an empty value, a bad `is:`,
//! `limit:`, `mode:`, `redact:` or `cost:` value, an unclosed quote, and
//! bare words together with `input:`.
//!
//! [`complete`] offers Tab completions for the word being typed: keys, tool
//! names, session ids, the hook events of docs/contract.md#events for `hook:`, and the
//! fixed values of `is:`, `agent:`, `mode:`,
//! `redact:` and `cost:`.

use super::QueryError;
use super::params::{FindParams, KNOWN_AGENTS, OutputMode};

/// The keys, in the order completion offers them (aliases after).
pub const KEYS: &[&str] = &[
    "tool", "name", "input", "output", "-output", "is", "-is", "session", "since", "until",
    "agent", "limit", "mode", "redact", "cost", "hook", "ruled", "pattern", "in", "out", "-out",
    "excludes",
];

/// The hook events `hook:` completes (Claude Code's events with a tool call
/// to attach to, docs/contract.md#events).
pub const HOOK_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
];

/// One word of a filter line: `key:value` or a bare value, with where it
/// starts in the line (byte offset).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    key: Option<String>,
    value: String,
    start: usize,
    end: usize,
}

/// Splits a line into words, honouring double quotes around values.
fn words(line: &str) -> Result<Vec<Word>, QueryError> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut key = None;
        let mut text = String::new();
        let mut quoted = false;
        let mut end = line.len();
        while let Some(&(at, c)) = chars.peek() {
            if c.is_whitespace() && !quoted {
                end = at;
                break;
            }
            chars.next();
            match c {
                '"' => quoted = !quoted,
                '\\' if quoted => match chars.next() {
                    Some((_, e)) => text.push(e),
                    None => text.push('\\'),
                },
                ':' if key.is_none() && !quoted && is_key_like(&text) => {
                    key = Some(std::mem::take(&mut text).to_ascii_lowercase());
                }
                c => text.push(c),
            }
        }
        if quoted {
            return Err(QueryError::InvalidArgument(format!(
                "unclosed quote in {:?}",
                line.get(start..).unwrap_or(line)
            )));
        }
        out.push(Word {
            key,
            value: text,
            start,
            end,
        });
    }
    Ok(out)
}

/// Whether the text before a `:` reads as a key (letters, `_`, `-`).
fn is_key_like(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '_' || c == '-')
}

/// Parses a filter line into `find_tool_calls` parameters (see the module
/// doc for the words). Redaction stays on and the limit unset unless the
/// line says otherwise.
///
/// # Errors
/// [`QueryError::InvalidArgument`] as listed in the module doc.
pub fn parse(line: &str) -> Result<FindParams, QueryError> {
    let invalid = |m: String| Err(QueryError::InvalidArgument(m));
    let mut params = FindParams::default();
    let mut bare: Vec<String> = Vec::new();
    let mut seen: Vec<&'static str> = Vec::new();
    for word in words(line)? {
        let Some(key) = word.key else {
            if !word.value.is_empty() {
                bare.push(word.value);
            }
            continue;
        };
        let canonical = match canonical_key(&key) {
            Some(k) => k,
            None => {
                return invalid(format!(
                    "unknown key {key}: (keys: tool, name, input, output, -output, is, -is, session, since, until, agent, limit, mode, redact, cost, hook, ruled; quote a word that contains ':')"
                ));
            }
        };
        if word.value.is_empty() {
            return invalid(format!("{key}: needs a value"));
        }
        if canonical != "session" {
            let slot = slot_of(canonical, &word.value);
            if seen.contains(&slot) {
                return invalid(format!("{slot}: given twice"));
            }
            seen.push(slot);
        }
        let value = word.value;
        match canonical {
            "tool" => params.tool_name = Some(value),
            "name" => params.tool_name_pattern = Some(value),
            "input" => params.input_contains = Some(value),
            "output" => params.output_contains = Some(value),
            "-output" => params.output_excludes = Some(value),
            "is" => match value.to_ascii_lowercase().as_str() {
                "error" | "err" | "failed" => params.is_error = Some(true),
                "ok" | "success" => params.is_error = Some(false),
                "blocked" => params.blocked = Some(true),
                "flagged" => params.flagged = Some(true),
                "rewritten" => params.rewritten = Some(true),
                "ruled" => params.decided_by = Some("*".to_string()),
                _ => {
                    return invalid(format!(
                        "is:{value}: use is:error, is:ok, is:blocked, is:flagged, is:rewritten or is:ruled"
                    ));
                }
            },
            "-is" => match value.to_ascii_lowercase().as_str() {
                "error" | "err" | "failed" => params.is_error = Some(false),
                "ok" | "success" => params.is_error = Some(true),
                "blocked" => params.blocked = Some(false),
                "flagged" => params.flagged = Some(false),
                "rewritten" => params.rewritten = Some(false),
                _ => {
                    return invalid(format!(
                        "-is:{value}: use -is:error, -is:ok, -is:blocked, -is:flagged or -is:rewritten"
                    ));
                }
            },
            "hook" => params.hook = Some(value),
            "ruled" => params.decided_by = Some(value),
            "session" => params.session.push(value),
            "since" => params.since = Some(value),
            "until" => params.until = Some(value),
            "agent" => params.agent = Some(value),
            "limit" => match value.parse::<usize>() {
                Ok(n) => params.limit = Some(n),
                Err(_) => return invalid(format!("limit:{value}: not a whole number")),
            },
            "mode" => {
                params.output_mode = Some(match value.to_ascii_lowercase().as_str() {
                    "head" => OutputMode::Head,
                    "tail" => OutputMode::Tail,
                    "smart" => OutputMode::Smart,
                    _ => return invalid(format!("mode:{value}: use head, tail or smart")),
                })
            }
            "redact" => params.redact = on_off("redact", &value)?,
            "cost" => params.with_subagent_cost = on_off("cost", &value)?,
            _ => return invalid(format!("unknown key {key}:")),
        }
    }
    if !bare.is_empty() {
        if params.input_contains.is_some() {
            return invalid(format!(
                "both input: and bare words ({:?}); quote the words into input:",
                bare.join(" ")
            ));
        }
        params.input_contains = Some(bare.join(" "));
    }
    Ok(params)
}

/// The line with every word of `key`'s parameter removed and, when `value`
/// is given, `key:value` (quoted as needed) appended. Removing `input`
/// also removes bare words (they are `input_contains` too); setting `tool`
/// or `name` removes the other (they exclude each other). A line that does
/// not split into words (an unclosed quote) gets the word appended as is.
/// This is how the quick filters edit the line.
pub fn with_word(line: &str, key: &str, value: Option<&str>) -> String {
    let canonical = canonical_key(key).map(|k| slot_of(k, value.unwrap_or("error")));
    let drop = |w: &Word| -> bool {
        let wk = w
            .key
            .as_deref()
            .and_then(canonical_key)
            .map(|k| slot_of(k, &w.value));
        match (wk, canonical) {
            (None, Some("input")) => true,
            (Some(a), Some(b)) => {
                a == b || (value.is_some() && matches!((a, b), ("tool", "name") | ("name", "tool")))
            }
            _ => false,
        }
    };
    let mut kept: Vec<&str> = match words(line) {
        Ok(ws) => ws
            .iter()
            .filter(|w| !drop(w))
            .filter_map(|w| line.get(w.start..w.end))
            .collect(),
        Err(_) => vec![line.trim()],
    };
    let added = value.map(|v| format!("{key}:{}", quote(v)));
    if let Some(a) = &added {
        kept.push(a);
    }
    kept.retain(|w| !w.is_empty());
    kept.join(" ")
}

fn on_off(key: &str, value: &str) -> Result<bool, QueryError> {
    match value.to_ascii_lowercase().as_str() {
        "on" | "yes" | "true" => Ok(true),
        "off" | "no" | "false" => Ok(false),
        _ => Err(QueryError::InvalidArgument(format!(
            "{key}:{value}: use {key}:on or {key}:off"
        ))),
    }
}

/// The slot a word fills, for "given twice" and [`with_word`]: its
/// canonical key, except that `is:` has four (`is` for `is:error` /
/// `is:ok`, `is:blocked`, `is:flagged`, `is:rewritten`), which `-is:`
/// shares (`is:blocked -is:blocked` is given twice).
fn slot_of(canonical: &'static str, value: &str) -> &'static str {
    if canonical != "is" && canonical != "-is" {
        return canonical;
    }
    match value.to_ascii_lowercase().as_str() {
        "blocked" => "is:blocked",
        "flagged" => "is:flagged",
        "rewritten" => "is:rewritten",
        "ruled" => "ruled",
        _ => "is",
    }
}

/// The parameter a key (or alias) stands for, by its canonical key.
fn canonical_key(key: &str) -> Option<&'static str> {
    Some(match key {
        "tool" | "tool_name" => "tool",
        "name" | "pattern" | "tool_name_pattern" => "name",
        "input" | "in" | "input_contains" => "input",
        "output" | "out" | "output_contains" => "output",
        "-output" | "-out" | "excludes" | "output_excludes" => "-output",
        "is" => "is",
        "-is" => "-is",
        "session" => "session",
        "since" => "since",
        "until" => "until",
        "agent" => "agent",
        "limit" => "limit",
        "mode" | "output_mode" => "mode",
        "redact" => "redact",
        "cost" | "with_subagent_cost" => "cost",
        "hook" => "hook",
        "ruled" | "decided_by" => "ruled",
        _ => return None,
    })
}

/// Tab completions for the last word of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// Byte offset where the replaced text starts (the line up to here is
    /// kept).
    pub start: usize,
    /// What may replace `line[start..]`, each a whole word or key (`tool:`,
    /// `tool:Bash `, `is:error `), sorted, without duplicates.
    pub candidates: Vec<String>,
}

impl Completion {
    /// The line after Tab: the only candidate; else the candidate that is
    /// exactly what is typed (`tool:Bash` among `tool:Bash `,
    /// `tool:BashOutput `: a second Tab takes it); else the longest common
    /// prefix of the candidates when it is longer than what is typed; else
    /// the line unchanged.
    pub fn apply(&self, line: &str) -> String {
        let head = line.get(..self.start).unwrap_or(line);
        let typed = line.get(self.start..).unwrap_or("");
        let exact = self
            .candidates
            .iter()
            .find(|c| c.trim_end().to_lowercase() == typed.to_lowercase());
        match self.candidates.as_slice() {
            [] => line.to_string(),
            [one] => format!("{head}{one}"),
            _ if exact.is_some() => format!("{head}{}", exact.map_or("", |c| c.as_str())),
            many => {
                let common = common_prefix(many);
                if common.chars().count() > typed.chars().count() {
                    format!("{head}{common}")
                } else {
                    line.to_string()
                }
            }
        }
    }
}

/// The longest prefix shared by all strings, compared case-insensitively and
/// spelled as in the first.
fn common_prefix(items: &[String]) -> String {
    let Some(first) = items.first() else {
        return String::new();
    };
    let mut len = first.len();
    for item in &items[1..] {
        let shared: usize = first
            .chars()
            .zip(item.chars())
            .take_while(|(a, b)| a.to_lowercase().eq(b.to_lowercase()))
            .map(|(a, _)| a.len_utf8())
            .sum();
        len = len.min(shared);
    }
    first.get(..len).unwrap_or("").to_string()
}

/// Quotes a value when it has spaces, quotes or backslashes.
pub fn quote(value: &str) -> String {
    if value.is_empty()
        || value
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '\\')
    {
        let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
        format!("\"{escaped}\"")
    } else {
        value.to_string()
    }
}

/// Completions for the last word of `line` (the cursor is at the end).
/// `tool_names` and `session_ids` are the values seen in the loaded
/// sessions; `rule_ids` those the decision log names (`ruled:`); matching
/// is a case-insensitive prefix. A line ending in a space offers every key.
pub fn complete(
    line: &str,
    tool_names: &[String],
    session_ids: &[String],
    rule_ids: &[String],
) -> Completion {
    let start = line
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let word = line.get(start..).unwrap_or("");
    let mut candidates: Vec<String> = match word.split_once(':') {
        None => {
            let lower = word.to_ascii_lowercase();
            KEYS.iter()
                .filter(|k| k.starts_with(&lower))
                .map(|k| format!("{k}:"))
                .collect()
        }
        Some((key, typed)) => {
            let typed_lower = typed.trim_start_matches('"').to_lowercase();
            let values: Vec<String> = match canonical_key(&key.to_ascii_lowercase()) {
                Some("tool") | Some("name") => tool_names.to_vec(),
                Some("session") => session_ids.to_vec(),
                Some("ruled") => rule_ids.to_vec(),
                Some("is") => vec![
                    "error".into(),
                    "ok".into(),
                    "blocked".into(),
                    "flagged".into(),
                    "rewritten".into(),
                    "ruled".into(),
                ],
                Some("-is") => vec![
                    "error".into(),
                    "ok".into(),
                    "blocked".into(),
                    "flagged".into(),
                    "rewritten".into(),
                ],
                Some("hook") => HOOK_EVENTS.iter().map(|e| e.to_string()).collect(),
                Some("agent") => KNOWN_AGENTS.iter().map(|a| a.to_string()).collect(),
                Some("mode") => vec!["head".into(), "tail".into(), "smart".into()],
                Some("redact") | Some("cost") => vec!["on".into(), "off".into()],
                _ => Vec::new(),
            };
            values
                .into_iter()
                .filter(|v| v.to_lowercase().starts_with(&typed_lower))
                .map(|v| format!("{key}:{} ", quote(&v)))
                .collect()
        }
    };
    // Names match case-insensitively (`tool:bash` is `tool:Bash`): one
    // spelling per name, the first in sort order (upper case first).
    candidates.sort_by(|a, b| {
        a.to_lowercase()
            .cmp(&b.to_lowercase())
            .then_with(|| a.cmp(b))
    });
    candidates.dedup_by(|a, b| a.to_lowercase() == b.to_lowercase());
    Completion { start, candidates }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn the_issue_example() {
        let p = parse(r#"tool:Bash input:"rm -rf" is:error since:7d session:4f2a agent:codex"#)
            .expect("valid line");
        assert_eq!(p.tool_name.as_deref(), Some("Bash"));
        assert_eq!(p.input_contains.as_deref(), Some("rm -rf"));
        assert_eq!(p.is_error, Some(true));
        assert_eq!(p.since.as_deref(), Some("7d"));
        assert_eq!(p.session, vec!["4f2a".to_string()]);
        assert_eq!(p.agent.as_deref(), Some("codex"));
        assert!(p.redact);
        assert_eq!(p.limit, None);
    }

    #[test]
    fn minus_is_sets_each_flag_false_and_shares_its_slot() {
        let p = parse("tool:Bash is:error -is:blocked -is:flagged -is:rewritten").expect("valid");
        assert_eq!(p.is_error, Some(true));
        assert_eq!(
            (p.blocked, p.flagged, p.rewritten),
            (Some(false), Some(false), Some(false))
        );
        assert_eq!(parse("-is:error").expect("valid").is_error, Some(false));
        assert_eq!(parse("-IS:ok").expect("valid").is_error, Some(true));
        let err = |line: &str| match parse(line) {
            Err(QueryError::InvalidArgument(m)) => m,
            other => panic!("{line}: {other:?}"),
        };
        assert_eq!(err("is:blocked -is:blocked"), "is:blocked: given twice");
        assert_eq!(err("is:error -is:ok"), "is: given twice");
        assert_eq!(
            err("-is:ruled"),
            "-is:ruled: use -is:error, -is:ok, -is:blocked, -is:flagged or -is:rewritten"
        );
        let c = complete("-is:b", &[], &[], &[]);
        assert_eq!(c.candidates, vec!["-is:blocked ".to_string()]);
    }

    #[test]
    fn every_key_maps_to_its_parameter() {
        let p = parse(
            r#"name:mcp__ output:denied -output:"no such" is:ok session:a session:b until:2026-11-29 limit:20 mode:tail redact:off cost:on"#,
        )
        .expect("valid line");
        assert_eq!(p.tool_name_pattern.as_deref(), Some("mcp__"));
        assert_eq!(p.output_contains.as_deref(), Some("denied"));
        assert_eq!(p.output_excludes.as_deref(), Some("no such"));
        assert_eq!(p.is_error, Some(false));
        assert_eq!(p.session, vec!["a".to_string(), "b".to_string()]);
        assert_eq!(p.until.as_deref(), Some("2026-11-29"));
        assert_eq!(p.limit, Some(20));
        assert_eq!(p.output_mode, Some(OutputMode::Tail));
        assert!(!p.redact);
        assert!(p.with_subagent_cost);
    }

    #[test]
    fn bare_words_search_input() {
        let p = parse("  rm   -rf ").expect("valid");
        assert_eq!(p.input_contains.as_deref(), Some("rm -rf"));
        let p = parse(r#"TOOL:bash "http://x""#).expect("valid");
        assert_eq!(p.tool_name.as_deref(), Some("bash"));
        assert_eq!(p.input_contains.as_deref(), Some("http://x"));
        let p = parse(r#"input:"say \"hi\" \\o/""#).expect("valid");
        assert_eq!(p.input_contains.as_deref(), Some(r#"say "hi" \o/"#));
        assert_eq!(parse("").expect("empty is fine"), FindParams::default());
    }

    /// The hook words (hookscope's extensions): `is:blocked` and
    /// `is:rewritten` sit beside `is:error`; `hook:` takes an event or a
    /// `hookName` (the second `:` is part of the value).
    #[test]
    fn hook_words_map_to_the_extensions() {
        let p = parse("hook:PreToolUse:Bash is:blocked is:error is:rewritten").expect("valid");
        assert_eq!(p.hook.as_deref(), Some("PreToolUse:Bash"));
        assert_eq!(
            (p.blocked, p.rewritten, p.is_error),
            (Some(true), Some(true), Some(true))
        );
        // Toggling is:error (the `e` quick filter) keeps is:blocked.
        assert_eq!(
            with_word("is:blocked is:error", "is", None),
            "is:blocked".to_string()
        );
        assert_eq!(
            with_word("is:blocked", "is", Some("error")),
            "is:blocked is:error".to_string()
        );
    }

    #[test]
    fn mistakes_are_invalid_arguments() {
        for (line, says) in [
            ("tol:Bash", "unknown key tol:"),
            ("http://example.com", "unknown key http:"),
            ("tool:Bash tool:Read", "tool: given twice"),
            ("tool:", "tool: needs a value"),
            (
                "is:maybe",
                "use is:error, is:ok, is:blocked, is:flagged, is:rewritten or is:ruled",
            ),
            ("is:blocked is:blocked", "is:blocked: given twice"),
            ("is:ruled ruled:no-rm-rf", "ruled: given twice"),
            ("is:error is:ok", "is: given twice"),
            ("hook:", "hook: needs a value"),
            ("limit:ten", "not a whole number"),
            ("mode:middle", "use head, tail or smart"),
            ("redact:perhaps", "use redact:on or redact:off"),
            (r#"input:"rm -rf"#, "unclosed quote"),
            ("input:rm -rf", "both input: and bare words"),
        ] {
            match parse(line) {
                Err(QueryError::InvalidArgument(m)) => {
                    assert!(m.contains(says), "{line:?} → {m:?}, expected {says:?}")
                }
                Ok(p) => panic!("{line:?} parsed as {p:?}"),
            }
        }
    }

    #[test]
    fn validates_with_every_tool_by_default() {
        let now = chrono::Utc
            .with_ymd_and_hms(2026, 12, 1, 0, 0, 0)
            .single()
            .expect("valid time");
        let p = parse("is:error").expect("valid");
        assert!(
            p.validate(now).is_err(),
            "find_tool_calls' own contract needs a name"
        );
        let q = p.validate_or_all_tools(now).expect("all tools");
        assert!(q.name.matches("Bash") && q.name.matches("mcp__x__y"));
        let both = parse("tool:Bash name:Ba").expect("parses");
        assert!(both.validate_or_all_tools(now).is_err());
        let bad_since = parse("since:yesterday").expect("parses");
        assert!(bad_since.validate_or_all_tools(now).is_err());
    }

    #[test]
    fn completes_keys_tools_and_values() {
        let tools = vec![
            "Bash".to_string(),
            "bash".to_string(),
            "BashOutput".to_string(),
            "Read".to_string(),
            "mcp__github__create_issue".to_string(),
        ];
        let sessions = vec!["4f2a0000-aaaa".to_string(), "4f2b1111-bbbb".to_string()];
        let c = complete("to", &tools, &sessions, &[]);
        assert_eq!(c.candidates, vec!["tool:".to_string()]);
        assert_eq!(c.apply("to"), "tool:");

        let c = complete("is:error tool:ba", &tools, &sessions, &[]);
        assert_eq!(c.start, 9);
        assert_eq!(
            c.candidates,
            vec!["tool:Bash ".to_string(), "tool:BashOutput ".to_string()]
        );
        assert_eq!(c.apply("is:error tool:ba"), "is:error tool:Bash");

        let c = complete("is:error tool:Bash", &tools, &sessions, &[]);
        assert_eq!(c.candidates.len(), 2);
        assert_eq!(c.apply("is:error tool:Bash"), "is:error tool:Bash ");

        let c = complete("tool:r", &tools, &sessions, &[]);
        assert_eq!(c.apply("tool:r"), "tool:Read ");

        let c = complete("session:4f2", &tools, &sessions, &[]);
        assert_eq!(c.apply("session:4f2"), "session:4f2");
        let c = complete("session:4f2b", &tools, &sessions, &[]);
        assert_eq!(c.apply("session:4f2b"), "session:4f2b1111-bbbb ");

        assert_eq!(
            complete("is:", &tools, &sessions, &[]).candidates,
            vec![
                "is:blocked ".to_string(),
                "is:error ".to_string(),
                "is:flagged ".to_string(),
                "is:ok ".to_string(),
                "is:rewritten ".to_string(),
                "is:ruled ".to_string()
            ]
        );
        assert_eq!(
            complete("hook:pre", &tools, &sessions, &[]).candidates,
            vec!["hook:PreToolUse ".to_string()]
        );
        assert_eq!(
            complete("agent:c", &tools, &sessions, &[]).candidates,
            vec!["agent:claude-code ".to_string(), "agent:codex ".to_string()]
        );
        assert_eq!(
            complete("agent:c", &tools, &sessions, &[]).apply("agent:c"),
            "agent:c"
        );
        // `ruled:` offers the rule ids the decision log names.
        let rules = vec!["no-rm-rf".to_string(), "force-with-lease".to_string()];
        assert_eq!(
            complete("is:error ruled:no", &tools, &sessions, &rules).candidates,
            vec!["ruled:no-rm-rf ".to_string()]
        );
        assert_eq!(
            complete("ruled:", &tools, &sessions, &rules).candidates,
            vec![
                "ruled:force-with-lease ".to_string(),
                "ruled:no-rm-rf ".to_string()
            ]
        );
        // Every agent with a loader: all four, sorted.
        assert_eq!(
            complete("agent:", &tools, &sessions, &[]).candidates,
            vec![
                "agent:claude-code ".to_string(),
                "agent:codex ".to_string(),
                "agent:droid ".to_string(),
                "agent:opencode ".to_string()
            ]
        );
        assert_eq!(
            complete("agent:o", &tools, &sessions, &[]).apply("agent:o"),
            "agent:opencode "
        );
        assert_eq!(
            complete("agent:D", &tools, &sessions, &[]).apply("agent:D"),
            "agent:droid "
        );
        for name in ["opencode", "droid", "Codex"] {
            let p = parse(&format!("agent:{name}")).expect("a known agent");
            assert_eq!(p.agent.as_deref(), Some(name));
        }
        assert_eq!(
            complete("", &tools, &sessions, &[]).candidates.len(),
            KEYS.len()
        );
        assert!(
            complete("input:x", &tools, &sessions, &[])
                .candidates
                .is_empty()
        );
        assert!(
            complete("zzz", &tools, &sessions, &[])
                .candidates
                .is_empty()
        );
    }

    #[test]
    fn quick_filters_edit_the_line() {
        assert_eq!(with_word("", "tool", Some("Bash")), "tool:Bash");
        assert_eq!(
            with_word(r#"name:Ba input:"rm -rf" is:error"#, "tool", Some("Read")),
            r#"input:"rm -rf" is:error tool:Read"#
        );
        assert_eq!(
            with_word("tool:Bash rm -rf", "input", Some("/tmp/a b.txt")),
            r#"tool:Bash input:"/tmp/a b.txt""#
        );
        assert_eq!(with_word("tool:Bash is:error", "is", None), "tool:Bash");
        assert_eq!(
            with_word("tool:Bash", "is", Some("error")),
            "tool:Bash is:error"
        );
        assert_eq!(
            with_word("session:a session:b", "session", Some("c")),
            "session:c"
        );
        assert_eq!(
            with_word(r#"input:"x"#, "is", Some("error")),
            r#"input:"x is:error"#
        );
    }

    #[test]
    fn quoting_round_trips() {
        assert_eq!(quote("Bash"), "Bash");
        assert_eq!(quote("rm -rf"), "\"rm -rf\"");
        let tricky = r#"a "b" \c"#;
        let p = parse(&format!("input:{}", quote(tricky))).expect("valid");
        assert_eq!(p.input_contains.as_deref(), Some(tricky));
    }
}
