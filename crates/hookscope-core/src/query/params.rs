//! [`FindParams`]: the parameters of `find_tool_calls` exactly as docs/tool-calls.md#the-find-query
//! names them, their validation into a [`Query`], and time parsing.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::QueryError;

/// Agent names the `agent` parameter accepts (docs/architecture.md#architecture: one loader per
/// agent): `claude-code`, `codex`, `opencode` and `droid`, each with a
/// loader ([`crate::transcript::Agent::NAMES`]).
pub const KNOWN_AGENTS: &[&str] = &crate::transcript::Agent::NAMES;

/// Records returned when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 50;

/// The largest `limit` accepted; more is an `invalid_argument`.
pub const MAX_LIMIT: usize = 10_000;

/// How a record's `output` is cut when it is longer than the cap
/// (docs/tool-calls.md#output-modes, [`super::output`]). Serialized lowercase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputMode {
    /// The first cap chars, then `…[truncated]`.
    Head,
    /// `…[truncated]`, then the last cap chars.
    Tail,
    /// Up to 20 deduplicated error-looking lines, `…[truncated]…`, then the
    /// last cap/2 chars; at most 2×cap chars.
    Smart,
}

/// The parameters of `find_tool_calls` (docs/tool-calls.md#the-find-query), deserializable straight
/// from an MCP tool call's `arguments` object.
///
/// Names are `find_tool_calls`' exactly; unknown keys are refused (use
/// [`FindParams::from_json`] to get that as an `invalid_argument`). `null`
/// counts as "not given" for every key. Empty strings count as "not given"
/// for the string filters (as a falsy value does in the reference
/// implementation), except `tool_name_pattern`: `""` is set and matches
/// every tool name (the empty substring).
///
/// Semantics (validated by [`FindParams::validate`]):
/// - exactly one of `tool_name` (exact name, case-insensitive) and
///   `tool_name_pattern` (substring of the name, case-insensitive; `""`
///   matches every name);
/// - `input_contains` / `output_contains`: case-insensitive substring of the
///   full, pre-cap, pre-redaction input JSON text (compact serialization) /
///   output text; `output_excludes` drops records whose output contains it;
///   a call without a recorded result has the empty output;
/// - `is_error`: `None` all, `Some(true)` failures only, `Some(false)`
///   successes only (a call with no recorded result is neither);
/// - `session`: a session id or a list of them (a JSON string or array); each
///   entry is an exact id or else a unique id prefix; empty = every session;
/// - `since` / `until`: RFC 3339 (`2026-11-29T18:00:00Z`), a UTC time as
///   `find`'s table prints it (`2026-11-29 18:00:05`), a date
///   (`2026-11-29` = that day's 00:00 UTC), or a span before `now` (`90s`,
///   `30m`, `36h`, `2d`, `1w`); `since` is inclusive, `until` exclusive;
/// - `agent`: one of [`KNOWN_AGENTS`] or an alias ([`crate::transcript::Agent::from_name`]:
///   `claude`, `cc`, `cx`, `oc`, `factory`, `dr`);
/// - `limit`: 1..=[`MAX_LIMIT`], default [`DEFAULT_LIMIT`];
/// - `redact`: default `true`;
/// - `output_mode`: `"head" | "tail" | "smart"`, default adaptive;
/// - `with_subagent_cost`: default `false`.
///
/// Extensions beyond the original 14 (hookscope's own; they only
/// narrow, and leave the 14 as they are):
/// - `hook`: only calls on which the transcript records a firing of this
///   hook event (`PreToolUse`, or a `hookName` such as `PreToolUse:Bash`),
///   case-insensitive;
/// - `blocked`: `true` only calls a hook blocked (PreToolUse exit 2 or deny,
///   or an `ask` the tool result records as rejected for that hook:
///   the call did not run; docs/hooks.md#what-the-transcript-records; a
///   blocking record on an event hookscope cannot place before the call
///   is not one), `false` only calls no hook blocked;
/// - `flagged`: `true` only calls a hook objected to after they ran
///   (PostToolUse `decision: block` or exit 2: nothing was blocked),
///   `false` only calls no hook objected to;
/// - `rewritten`: `true` only calls whose input a PreToolUse hook rewrote
///   (`updatedInput`), `false` only calls not rewritten;
/// - `decided_by`: only calls on which `hookscope hook` logged a decision
///   in which this rule id matched (`*`: any decision), read from the
///   decision log (docs/live-hook.md#the-decision-log) when validated;
///   a decision logged far from the call's time (a replayed payload) is
///   not the call's.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FindParams {
    /// Exact tool name as invoked (`Bash`, `mcp__srv__tool`), case-insensitive.
    #[serde(default)]
    pub tool_name: Option<String>,
    /// Substring of the tool name, case-insensitive.
    #[serde(default)]
    pub tool_name_pattern: Option<String>,
    /// Substring of the full raw input JSON text, case-insensitive.
    #[serde(default)]
    pub input_contains: Option<String>,
    /// Substring of the full raw output text, case-insensitive.
    #[serde(default)]
    pub output_contains: Option<String>,
    /// Drop records whose full raw output contains this, case-insensitive.
    #[serde(default)]
    pub output_excludes: Option<String>,
    /// Tri-state error filter.
    #[serde(default)]
    pub is_error: Option<bool>,
    /// Session ids (or unique prefixes); a JSON string or a list.
    #[serde(default, deserialize_with = "one_or_many")]
    pub session: Vec<String>,
    /// Lower time bound (inclusive), as given.
    #[serde(default)]
    pub since: Option<String>,
    /// Upper time bound (exclusive), as given.
    #[serde(default)]
    pub until: Option<String>,
    /// Agent name, e.g. `claude-code`.
    #[serde(default)]
    pub agent: Option<String>,
    /// Maximum records returned (newest first).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Mask secrets in emitted fields (default `true`).
    #[serde(default = "default_true", deserialize_with = "bool_or_null_true")]
    pub redact: bool,
    /// Output truncation; `None` = adaptive (`smart` on errors, else `head`).
    #[serde(default)]
    pub output_mode: Option<OutputMode>,
    /// Join each spawn to its child transcript for exact cost (default `false`).
    #[serde(default, deserialize_with = "bool_or_null_false")]
    pub with_subagent_cost: bool,
    /// Extension: a hook event (or `hookName`) recorded on the call.
    #[serde(default)]
    pub hook: Option<String>,
    /// Extension: tri-state "a hook blocked the call" filter.
    #[serde(default)]
    pub blocked: Option<bool>,
    /// Extension: tri-state "a hook objected after the call ran" filter.
    #[serde(default)]
    pub flagged: Option<bool>,
    /// Extension: tri-state "a hook rewrote the call's input" filter.
    #[serde(default)]
    pub rewritten: Option<bool>,
    /// Extension: a rule id that matched in a decision `hookscope hook`
    /// logged on the call (`*`: any logged decision).
    #[serde(default)]
    pub decided_by: Option<String>,
}

impl Default for FindParams {
    fn default() -> Self {
        FindParams {
            tool_name: None,
            tool_name_pattern: None,
            input_contains: None,
            output_contains: None,
            output_excludes: None,
            is_error: None,
            session: Vec::new(),
            since: None,
            until: None,
            agent: None,
            limit: None,
            redact: true,
            output_mode: None,
            with_subagent_cost: false,
            hook: None,
            blocked: None,
            flagged: None,
            rewritten: None,
            decided_by: None,
        }
    }
}

fn default_true() -> bool {
    true
}

fn bool_or_null_true<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Option::<bool>::deserialize(d)?.unwrap_or(true))
}

fn bool_or_null_false<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Option::<bool>::deserialize(d)?.unwrap_or(false))
}

fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<OneOrMany>::deserialize(d)? {
        None => Vec::new(),
        Some(OneOrMany::One(s)) => vec![s],
        Some(OneOrMany::Many(v)) => v,
    })
}

impl FindParams {
    /// Parses an MCP `arguments` object (or `null` = no arguments).
    ///
    /// # Errors
    /// [`QueryError::InvalidArgument`] for an unknown key or a value of the
    /// wrong type, with serde's message, prefixed with the parameter's name
    /// for a wrong type (`limit: invalid type: string "x", expected usize`).
    pub fn from_json(arguments: &Value) -> Result<FindParams, QueryError> {
        if arguments.is_null() {
            return Ok(FindParams::default());
        }
        FindParams::deserialize(arguments).map_err(|e| {
            // serde names the expected type, not the parameter: find the
            // key whose value alone fails, and name it first.
            let key = arguments.as_object().and_then(|map| {
                map.iter().find_map(|(k, v)| {
                    let alone = Value::Object([(k.clone(), v.clone())].into_iter().collect());
                    FindParams::deserialize(&alone).err().map(|_| k.clone())
                })
            });
            let message = e.to_string();
            match key {
                Some(k) if !message.contains(&format!("`{k}`")) => {
                    QueryError::InvalidArgument(format!("{k}: {message}"))
                }
                _ => QueryError::InvalidArgument(message),
            }
        })
    }

    /// Checks every parameter and resolves times against `now`.
    ///
    /// # Errors
    /// [`QueryError::InvalidArgument`] when both or neither of `tool_name` /
    /// `tool_name_pattern` are set, a time does not parse or `since` is not
    /// before `until`, the agent is unknown, `limit` is 0 or above
    /// [`MAX_LIMIT`], or a `session` entry is empty.
    pub fn validate(&self, now: DateTime<Utc>) -> Result<Query, QueryError> {
        let mut q = self.validate_name_default(now, false)?;
        q.resolve_decided()?;
        Ok(q)
    }

    /// [`FindParams::validate`], except that giving neither `tool_name` nor
    /// `tool_name_pattern` means every tool (the TUI filter line's default:
    /// a line without `tool:`/`name:` lists all calls). Giving both is still
    /// an error.
    ///
    /// # Errors
    /// As [`FindParams::validate`], minus the "neither" case.
    pub fn validate_or_all_tools(&self, now: DateTime<Utc>) -> Result<Query, QueryError> {
        let mut q = self.validate_name_default(now, true)?;
        q.resolve_decided()?;
        Ok(q)
    }

    /// [`FindParams::validate_or_all_tools`] without reading the decision
    /// log: a `decided_by` is left for [`Query::resolve_decided`], which
    /// the caller runs off its UI thread before the query.
    ///
    /// # Errors
    /// As [`FindParams::validate_or_all_tools`], minus the log's.
    pub fn validate_or_all_tools_deferred(&self, now: DateTime<Utc>) -> Result<Query, QueryError> {
        self.validate_name_default(now, true)
    }

    fn validate_name_default(
        &self,
        now: DateTime<Utc>,
        all_tools: bool,
    ) -> Result<Query, QueryError> {
        let invalid = |m: String| QueryError::InvalidArgument(m);
        // An empty pattern is set (the empty substring matches every name,
        // so `tool_name_pattern: ""` lists every tool); an empty exact name
        // would match nothing and counts as not given.
        let name = match (given(&self.tool_name), self.tool_name_pattern.as_deref()) {
            (None, None) if all_tools => NameFilter::Pattern(String::new()),
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "set exactly one of tool_name or tool_name_pattern, not both".to_string(),
                ));
            }
            (None, None) => {
                return Err(invalid(
                    "set exactly one of tool_name (exact, case-insensitive) or tool_name_pattern (substring, case-insensitive)".to_string(),
                ));
            }
            (Some(n), None) => NameFilter::Exact(fold(n)),
            (None, Some(p)) => NameFilter::Pattern(fold(p)),
        };
        let since = match given(&self.since) {
            Some(s) => Some(parse_time(s, now).map_err(|m| invalid(format!("since: {m}")))?),
            None => None,
        };
        let until = match given(&self.until) {
            Some(s) => Some(parse_time(s, now).map_err(|m| invalid(format!("until: {m}")))?),
            None => None,
        };
        if let (Some(s), Some(u)) = (since, until)
            && s >= u
        {
            return Err(invalid(format!(
                "since ({}) must be before until ({})",
                s.to_rfc3339(),
                u.to_rfc3339()
            )));
        }
        let agent = match given(&self.agent) {
            Some(a) => match a.parse::<crate::transcript::Agent>() {
                Ok(agent) => Some(agent),
                Err(e) => return Err(invalid(e.to_string())),
            },
            None => None,
        };
        let limit = self.limit.unwrap_or(DEFAULT_LIMIT);
        if limit == 0 || limit > MAX_LIMIT {
            return Err(invalid(format!(
                "limit must be between 1 and {MAX_LIMIT}, got {limit}"
            )));
        }
        if self.session.iter().any(|s| s.trim().is_empty()) {
            return Err(invalid("session ids must not be empty".to_string()));
        }
        // The log is read by `Query::resolve_decided` (at once in
        // `validate`; the TUI reads it off its UI thread).
        let decided = given(&self.decided_by).map(|rule| {
            std::sync::Arc::new(DecidedBy {
                rule: rule.trim().to_string(),
                calls: std::sync::Arc::default(),
                resolved: false,
            })
        });
        Ok(Query {
            name,
            input_contains: given(&self.input_contains).map(fold),
            output_contains: given(&self.output_contains).map(fold),
            output_excludes: given(&self.output_excludes).map(fold),
            is_error: self.is_error,
            sessions: self.session.iter().map(|s| s.trim().to_string()).collect(),
            since,
            until,
            agent,
            limit,
            redact: self.redact,
            output_mode: self.output_mode,
            with_subagent_cost: self.with_subagent_cost,
            hook: given(&self.hook).map(fold),
            blocked: self.blocked,
            flagged: self.flagged,
            rewritten: self.rewritten,
            decided,
        })
    }
}

fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|s| !s.is_empty())
}

/// The case folding every case-insensitive comparison uses (Unicode
/// lowercase).
pub(crate) fn fold(text: &str) -> String {
    text.to_lowercase()
}

/// How the tool name is matched, already case-folded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameFilter {
    /// The whole name, case-insensitive.
    Exact(String),
    /// A substring of the name, case-insensitive.
    Pattern(String),
}

impl NameFilter {
    /// Whether `name` passes.
    pub fn matches(&self, name: &str) -> bool {
        let name = fold(name);
        match self {
            NameFilter::Exact(n) => name == *n,
            NameFilter::Pattern(p) => name.contains(p.as_str()),
        }
    }

    /// The folded needle.
    pub fn needle(&self) -> &str {
        match self {
            NameFilter::Exact(n) | NameFilter::Pattern(n) => n,
        }
    }
}

/// Validated parameters ([`FindParams::validate`]): needles case-folded,
/// times resolved, defaults applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// Tool name filter.
    pub name: NameFilter,
    /// Folded `input_contains`.
    pub input_contains: Option<String>,
    /// Folded `output_contains`.
    pub output_contains: Option<String>,
    /// Folded `output_excludes`.
    pub output_excludes: Option<String>,
    /// Tri-state error filter.
    pub is_error: Option<bool>,
    /// Session ids or prefixes (empty = all).
    pub sessions: Vec<String>,
    /// Inclusive lower bound.
    pub since: Option<DateTime<Utc>>,
    /// Exclusive upper bound.
    pub until: Option<DateTime<Utc>>,
    /// Only this agent's sessions (`agent`, any name of
    /// [`crate::transcript::Agent::from_name`]).
    pub agent: Option<crate::transcript::Agent>,
    /// Records returned at most.
    pub limit: usize,
    /// Mask secrets.
    pub redact: bool,
    /// Explicit output mode, else adaptive.
    pub output_mode: Option<OutputMode>,
    /// Join spawns to their child transcripts.
    pub with_subagent_cost: bool,
    /// Extension: folded hook event or `hookName` recorded on the call.
    pub hook: Option<String>,
    /// Extension: blocked by a hook (tri-state).
    pub blocked: Option<bool>,
    /// Extension: objected to by a hook after it ran (tri-state).
    pub flagged: Option<bool>,
    /// Extension: input rewritten by a hook (tri-state).
    pub rewritten: Option<bool>,
    /// Extension: only the calls `hookscope hook` logged a decision on
    /// (by a rule), resolved from the log when validated.
    pub decided: Option<std::sync::Arc<DecidedBy>>,
}

/// `decided_by` resolved: the rule id (`*` for any) and the calls the log
/// names, as `(session_id, tool_use_id)`.
#[derive(Debug, Clone, PartialEq)]
pub struct DecidedBy {
    /// The rule id asked for, or `*`.
    pub rule: String,
    /// The decided calls, each with its decisions in short.
    pub calls: std::sync::Arc<crate::hooks::decisions::DecidedCalls>,
    /// Whether `calls` was read from the log ([`Query::resolve_decided`]).
    pub resolved: bool,
}

impl Query {
    /// Whether a filter needs a call's lines to decide (`input_contains`,
    /// `output_contains`, `output_excludes`, `decided_by`); the others
    /// answer from the index's rows alone.
    pub fn reads_lines(&self) -> bool {
        self.input_contains.is_some()
            || self.output_contains.is_some()
            || self.output_excludes.is_some()
            || self.decided.is_some()
    }

    /// Reads the decision log for `decided_by` when it was not read yet
    /// (docs/live-hook.md#the-decision-log): the calls a logged decision
    /// names, by rule id or `*`.
    ///
    /// # Errors
    /// No state folder, a log that cannot be read, or a rule id no logged
    /// decision names (the message lists those it does).
    pub fn resolve_decided(&mut self) -> Result<(), QueryError> {
        let Some(d) = self.decided.as_ref().filter(|d| !d.resolved) else {
            return Ok(());
        };
        let rule = d.rule.clone();
        let calls = read_decided(&rule)?;
        self.decided = Some(std::sync::Arc::new(DecidedBy {
            rule,
            calls,
            resolved: true,
        }));
        Ok(())
    }
}

/// The calls the decision log names for rule id `rule` (`*`: any answer
/// but `none`).
fn read_decided(
    rule: &str,
) -> Result<std::sync::Arc<crate::hooks::decisions::DecidedCalls>, QueryError> {
    let invalid = |m: String| QueryError::InvalidArgument(m);
    let Some(dir) = crate::hooks::decisions::default_dir() else {
        return Err(invalid(
            "decided_by: no state folder (neither XDG_STATE_HOME nor a home folder)".to_string(),
        ));
    };
    let any = rule == "*";
    let calls =
        crate::hooks::decisions::decided_calls(&dir, (!any).then_some(rule)).map_err(|e| {
            invalid(format!(
                "decided_by: cannot read the decision log {}: {e}",
                dir.display()
            ))
        })?;
    if !any && calls.is_empty() {
        // A rule that decided only events that are not calls (a Stop
        // gate) has no call to show: say where its decisions are.
        let events = crate::hooks::decisions::events_decided_by(&dir, rule).unwrap_or_default();
        if !events.is_empty() {
            let counted: Vec<String> = events.iter().map(|(e, n)| format!("{e} ×{n}")).collect();
            return Err(invalid(format!(
                "decided_by: {rule:?} decided only events that are not calls ({}): `hookscope hooks --decisions` lists them",
                counted.join(", ")
            )));
        }
        let known = crate::hooks::decisions::rule_ids(&dir).unwrap_or_default();
        if !known.contains(rule) {
            let shown: Vec<&str> = known.iter().take(12).map(String::as_str).collect();
            // The ids first, the folder last: a narrow line keeps what
            // to type instead.
            return Err(invalid(format!(
                "decided_by: no logged decision names rule {rule:?}; {} (log: {})",
                if shown.is_empty() {
                    "the log names no rule yet".to_string()
                } else {
                    format!(
                        "the rules it names: {}{}",
                        shown.join(", "),
                        if known.len() > shown.len() {
                            ", …"
                        } else {
                            ""
                        }
                    )
                },
                dir.display()
            )));
        }
    }
    Ok(calls)
}

/// Parses a `since`/`until` value: RFC 3339, a UTC time without a zone as
/// `find`'s table prints it (`2026-11-29 18:00:05`, also with `T`, without
/// seconds or with a fraction), a date `YYYY-MM-DD` (00:00 UTC), or a span
/// `<n><unit>` before `now` with unit `s`, `m`, `h`, `d` or `w` (`30m`,
/// `36h`, `2d`, `1w`).
///
/// # Errors
/// A one-sentence message naming the accepted forms; for the TUI's short
/// form without a year (`12-03 04:35`), one that says so and spells the
/// full forms it could mean (this year's, as UTC or with a zone).
pub fn parse_time(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    let t = text.trim();
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Ok(dt.with_timezone(&Utc));
    }
    let utc = [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ]
    .iter()
    .find_map(|f| chrono::NaiveDateTime::parse_from_str(t, f).ok());
    if let Some(time) = utc {
        return Ok(time.and_utc());
    }
    if let Ok(date) = NaiveDate::parse_from_str(t, "%Y-%m-%d")
        && let Some(midnight) = date.and_hms_opt(0, 0, 0)
    {
        return Ok(midnight.and_utc());
    }
    if let Some(span) = parse_span(t) {
        return now
            .checked_sub_signed(span)
            .ok_or_else(|| format!("{text:?} reaches before the supported time range"));
    }
    // The TUI's short form (`12-03 04:35`, this year's times in local
    // time): which year and zone are not written, so it is refused with
    // the full forms it could mean.
    let short = format!("{}-{t}", now.format("%Y"));
    let dated = ["%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"]
        .iter()
        .find_map(|f| chrono::NaiveDateTime::parse_from_str(&short, f).ok());
    if let Some(dated) = dated {
        let full = dated.format("%Y-%m-%d %H:%M").to_string();
        return Err(format!(
            "{text:?} has no year (the TUI's short form, in local time); write it in full: {full:?} is read as UTC, or give its zone, e.g. \"{}+01:00\"",
            dated.format("%Y-%m-%dT%H:%M:%S")
        ));
    }
    Err(format!(
        "cannot parse {text:?}; expected RFC 3339 (2026-11-29T18:00:00Z), a UTC time (2026-11-29 18:00:05), a date (2026-11-29) or a span before now (30m, 36h, 2d, 1w)"
    ))
}

fn parse_span(t: &str) -> Option<Duration> {
    let unit = t.chars().last()?;
    let digits = &t[..t.len() - unit.len_utf8()];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = digits.parse().ok()?;
    let secs_per = match unit.to_ascii_lowercase() {
        's' => 1,
        'm' => 60,
        'h' => 3_600,
        'd' => 86_400,
        'w' => 604_800,
        _ => return None,
    };
    Duration::try_seconds(n.checked_mul(secs_per)?)
}

/// The contract event a `hook` filter names (or a `hookName`'s event,
/// before its `:`), case-insensitive, when it is one that never fires on a
/// tool call (Stop, UserPromptSubmit, SessionStart, …): such a filter
/// finds no call, and the shells say where those firings are instead.
/// `None` for a tool event (PreToolUse, …) or a name hookscope does not
/// know.
pub fn hook_not_on_calls(hook: &str) -> Option<&'static str> {
    let name = hook_event(hook)?.as_str();
    (!crate::hooks::matcher::TOOL_EVENTS.contains(&name)).then_some(name)
}

/// Why a `hook` filter finds no call whatever the sessions hold
/// ([`hook_miss`]); the shells say it beside an empty answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookMiss {
    /// It names an event that never fires on a tool call (Stop,
    /// UserPromptSubmit, …): [`hook_not_on_calls`]'s name.
    NotOnCalls(&'static str),
    /// Its event (before any `:`) is no event of the contract (a typo).
    NoEvent,
}

/// [`HookMiss`] for a `hook` filter's text; `None` for a tool event or an
/// empty text (no filter).
pub fn hook_miss(hook: &str) -> Option<HookMiss> {
    if hook.trim().is_empty() {
        return None;
    }
    match hook_event(hook) {
        None => Some(HookMiss::NoEvent),
        Some(_) => hook_not_on_calls(hook).map(HookMiss::NotOnCalls),
    }
}

/// The contract event a `hook` filter names: its text, or a `hookName`'s
/// before its `:`, compared case-insensitively with every event of the
/// contract; `None` for a name that is no event (a typo, `PreToolUze`).
pub fn hook_event(hook: &str) -> Option<crate::hooks::events::EventName> {
    let event = hook.split(':').next().unwrap_or(hook);
    crate::hooks::events::EventName::ALL
        .iter()
        .copied()
        .find(|e| e.as_str().eq_ignore_ascii_case(event))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-12-01T12:00:00Z")
            .map(|d| d.with_timezone(&Utc))
            .unwrap_or_default()
    }

    #[test]
    fn a_wrong_type_names_its_parameter() {
        let err = FindParams::from_json(&json!({"tool_name": "Bash", "limit": "x"}))
            .expect_err("a string limit");
        assert_eq!(
            err.to_json(),
            json!({"error": "invalid_argument",
                   "message": "limit: invalid type: string \"x\", expected usize"})
        );
        // An unknown key is already named by serde.
        let err = FindParams::from_json(&json!({"nope": 1})).expect_err("unknown key");
        assert!(
            err.to_json()["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("unknown field `nope`")),
            "{err:?}"
        );
    }

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .map(|d| d.with_timezone(&Utc))
            .unwrap_or_default()
    }

    #[test]
    fn times() {
        assert_eq!(
            parse_time("2026-11-29T18:00:00+01:00", now()),
            Ok(at("2026-11-29T17:00:00Z"))
        );
        assert_eq!(
            parse_time("2026-11-29", now()),
            Ok(at("2026-11-29T00:00:00Z"))
        );
        // The time as `find`'s table prints it (UTC), and its variants.
        for t in [
            "2026-12-03 04:35:06",
            "2026-12-03T04:35:06",
            " 2026-12-03 04:35:06.000 ",
        ] {
            assert_eq!(parse_time(t, now()), Ok(at("2026-12-03T04:35:06Z")), "{t}");
        }
        assert_eq!(
            parse_time("2026-12-03 04:35", now()),
            Ok(at("2026-12-03T04:35:00Z"))
        );
        // The TUI's short form has no year and is local time: refused,
        // with this year's full forms.
        assert_eq!(
            parse_time("12-03 04:35", now()),
            Err("\"12-03 04:35\" has no year (the TUI's short form, in local time); write it in full: \"2026-12-03 04:35\" is read as UTC, or give its zone, e.g. \"2026-12-03T04:35:00+01:00\"".to_string())
        );
        assert!(
            parse_time("13-03 04:35", now()).is_err_and(|e| e.starts_with("cannot parse")),
            "not a month"
        );
        assert_eq!(parse_time("30m", now()), Ok(at("2026-12-01T11:30:00Z")));
        assert_eq!(parse_time("36h", now()), Ok(at("2026-11-30T00:00:00Z")));
        assert_eq!(parse_time("2d", now()), Ok(at("2026-11-29T12:00:00Z")));
        assert_eq!(parse_time("1w", now()), Ok(at("2026-11-24T12:00:00Z")));
        assert_eq!(parse_time("90s", now()), Ok(at("2026-12-01T11:58:30Z")));
        for bad in [
            "",
            "yesterday",
            "2d3h",
            "-2d",
            "d",
            "3y",
            "2026-13-01",
            "2026-12-03 25:00:00",
            "2026-12-03 04",
            "9999999999999999w",
        ] {
            assert!(parse_time(bad, now()).is_err(), "{bad}");
        }
    }

    #[test]
    fn deserializes_seed_names() {
        let p = FindParams::from_json(&json!({
            "tool_name": "Bash", "session": "abc", "redact": null,
            "output_mode": "tail", "limit": 3, "is_error": true
        }));
        let Ok(p) = p else { panic!("{p:?}") };
        assert_eq!(p.session, vec!["abc".to_string()]);
        assert!(p.redact);
        assert_eq!(p.output_mode, Some(OutputMode::Tail));
        let p = FindParams::from_json(&json!({"session": ["a", "b"], "redact": false}));
        assert!(p.as_ref().is_ok_and(|p| p.session.len() == 2 && !p.redact));
        assert!(matches!(
            FindParams::from_json(&json!({"toolname": "x"})),
            Err(QueryError::InvalidArgument(_))
        ));
        assert!(matches!(
            FindParams::from_json(&json!({"output_mode": "middle"})),
            Err(QueryError::InvalidArgument(_))
        ));
        assert_eq!(
            FindParams::from_json(&Value::Null),
            Ok(FindParams::default())
        );
    }

    fn invalid(message: &str) -> Result<NameFilter, QueryError> {
        Err(QueryError::InvalidArgument(message.to_string()))
    }

    const BOTH: &str = "set exactly one of tool_name or tool_name_pattern, not both";

    #[test]
    fn validation() {
        let base = FindParams {
            tool_name: Some("Bash".into()),
            ..FindParams::default()
        };
        assert_eq!(
            base.validate(now()).map(|q| q.name),
            Ok(NameFilter::Exact("bash".into()))
        );
        let both = FindParams {
            tool_name_pattern: Some("ba".into()),
            ..base.clone()
        };
        assert_eq!(both.validate(now()).map(|q| q.name), invalid(BOTH));
        assert_eq!(
            FindParams::default().validate(now()).map(|q| q.name),
            invalid(
                "set exactly one of tool_name (exact, case-insensitive) or tool_name_pattern (substring, case-insensitive)"
            )
        );
        let empty_name = FindParams {
            tool_name: Some(String::new()),
            tool_name_pattern: Some("ba".into()),
            ..FindParams::default()
        };
        assert_eq!(
            empty_name.validate(now()).map(|q| q.name),
            Ok(NameFilter::Pattern("ba".into()))
        );
        // The empty pattern is set: every tool.
        let every = FindParams {
            tool_name_pattern: Some(String::new()),
            ..FindParams::default()
        };
        assert_eq!(
            every.validate(now()).map(|q| q.name),
            Ok(NameFilter::Pattern(String::new()))
        );
        let both_empty = FindParams {
            tool_name: Some(String::new()),
            ..every.clone()
        };
        assert_eq!(
            both_empty.validate(now()).map(|q| q.name),
            Ok(NameFilter::Pattern(String::new()))
        );
        let empty_and_name = FindParams {
            tool_name: Some("Bash".into()),
            ..every
        };
        assert_eq!(
            empty_and_name.validate(now()).map(|q| q.name),
            invalid(BOTH)
        );
        let reversed = FindParams {
            since: Some("1d".into()),
            until: Some("2d".into()),
            ..base.clone()
        };
        assert_eq!(
            reversed.validate(now()).map(|q| q.name),
            invalid(
                "since (2026-11-30T12:00:00+00:00) must be before until (2026-11-29T12:00:00+00:00)"
            )
        );
        let zero = FindParams {
            limit: Some(0),
            ..base.clone()
        };
        assert_eq!(
            zero.validate(now()).map(|q| q.name),
            invalid("limit must be between 1 and 10000, got 0")
        );
        let agent = FindParams {
            agent: Some("gemini".into()),
            ..base.clone()
        };
        let Err(QueryError::InvalidArgument(m)) = agent.validate(now()) else {
            panic!("expected invalid agent")
        };
        assert!(
            m.contains("claude-code (claude, cc), codex (cx), opencode (oc), droid (factory, dr)"),
            "{m}"
        );
        let q = FindParams {
            agent: Some("Claude-Code".into()),
            ..base
        }
        .validate(now());
        assert!(
            q.is_ok_and(|q| q.agent == Some(crate::transcript::Agent::ClaudeCode)
                && q.limit == DEFAULT_LIMIT)
        );
    }
}
