//! `hookscope find [PATH...] --tool-name X | --tool-name-pattern X [filters]
//! [--json]`: a thin shell over [`hookscope_core::query::find_tool_calls`].
//!
//! Errors: a bad argument (including a PATH that does not exist) prints one
//! line on stderr and exits 2; with `--json` it prints
//! `{"error":"invalid_argument","message":…}` on stdout instead (so scripts
//! parse one stream) and still exits 2. Sessions that cannot be read are
//! reported on stderr and skipped.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::{Args as ClapArgs, ValueEnum};
use hookscope_core::query::{FindParams, FoundCall, GroupBy, OutputMode, Query, QueryError};
use hookscope_core::transcript::short_id::ShortIds;
use serde_json::Value;

use hookscope_core::index::Progress;
use hookscope_core::service::{FindError, Found, Library};

use super::{fail, print_json};

/// `hookscope find --help`'s long text.
pub const LONG_ABOUT: &str = "\
Find tool calls across sessions and their subagents, newest first.

Set exactly one of --tool-name (exact, case-insensitive) or --tool-name-pattern
(substring, case-insensitive; --tool-name-pattern '' lists every tool). The other filters combine with AND and always
match the RAW text (before redaction and truncation): --input-contains on the
compact input JSON, --output-contains / --output-excludes on the result text.
Subagent calls are included and marked ↳ (JSON: agent_id, parent_tool_use_id).
Spawns (Agent/Task) carry what the child cost (JSON: subagent {model,
agent_type, tokens, status, duration_ms, tool_uses}). By default tokens are the
usage recorded on the spawn's result (source \"recorded\": the child's last API
call only); --with-subagent-cost sums the child transcript's usage instead
(source \"exact\", the billed total), also for background spawns, which record
none, and adds a TOKENS column (total and source) to the table.

Secrets in the printed input/output are masked as [REDACTED_<TYPE>] unless
--no-redact. Output longer than 2,000 chars is cut (head; smart for errors); an
input over 4,000 chars of JSON keeps its keys, its long strings cut to fit.

Extensions beyond the original find_tool_calls: --hook EVENT, --blocked, --flagged and --rewritten
keep calls on which the transcript records a hook firing of EVENT, a hook block
(the call did not run), a hook's objection after the call ran (PostToolUse
decision block or exit 2: nothing was blocked), or a hook's input rewrite; a
JSON record of a call with hook activity gains a
hook_activity array (event, action, command, exit_code, duration_ms, reason,
rewrite {from, to}, lines, …).

--count prints how many calls match instead of the records; --group-by KEY
(tool, session, day, agent, error) prints how many per KEY, most first. They
count exactly what find would list with no limit.

A bad value prints one line on stderr and exits 2 (flags the parser itself
refuses, such as two that conflict, also print its usage); with --json the
{\"error\":\"invalid_argument\",\"message\":…} object goes to stdout (exit 2).

Examples:
  hookscope find --tool-name bash --input-contains 'rm -rf'
  hookscope find --tool-name-pattern edit --input-contains .env --since 1w
  hookscope find --tool-name-pattern mcp__ --is-error true --since 2026-11-01 --json
  hookscope find --tool-name Agent --with-subagent-cost --json
  hookscope find --tool-name-pattern '' --hook PreToolUse --blocked
  hookscope find --tool-name Bash --is-error true --group-by day
  hookscope find ~/.claude/projects/-home-me-repo --tool-name Read --session 8bb2dece --limit 5";

/// The output mode, as a flag value.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ModeArg {
    /// First 2,000 chars, then …[truncated].
    Head,
    /// …[truncated], then the last 2,000 chars.
    Tail,
    /// Up to 20 error-looking lines, …[truncated]…, then the last 1,000 chars.
    Smart,
}

/// `hookscope find` flags; each maps to one find_tool_calls parameter.
#[derive(ClapArgs, Debug)]
pub struct FindArgs {
    /// Where to look: projects folders, project folders or .jsonl files
    /// (default: every agent's folders, as `hookscope sessions --help`
    /// lists them).
    pub paths: Vec<PathBuf>,
    /// Exact tool name, case-insensitive (e.g. Bash, mcp__github__create_issue).
    #[arg(long, value_name = "NAME")]
    pub tool_name: Option<String>,
    /// Substring of the tool name, case-insensitive (e.g. mcp__github__, edit;
    /// '' matches every tool).
    #[arg(long, value_name = "TEXT")]
    pub tool_name_pattern: Option<String>,
    /// Keep calls whose full input JSON contains TEXT (case-insensitive), e.g. 'rm -rf'.
    #[arg(long, value_name = "TEXT")]
    pub input_contains: Option<String>,
    /// Keep calls whose full output contains TEXT (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    pub output_contains: Option<String>,
    /// Drop calls whose full output contains TEXT (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    pub output_excludes: Option<String>,
    /// true: failed calls only; false: successful calls only (calls with no
    /// recorded result are neither). Default: all.
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set)]
    pub is_error: Option<bool>,
    /// Only this session: an id or a unique id prefix. Repeat for several.
    #[arg(long, value_name = "ID")]
    pub session: Vec<String>,
    /// Calls at or after T: RFC 3339 (2026-11-29T18:00:00Z), a UTC time as
    /// the table prints it ('2026-11-29 18:00:05'), a date (2026-11-29 =
    /// 00:00 UTC) or a span before now (30m, 36h, 2d, 1w).
    #[arg(long, value_name = "T")]
    pub since: Option<String>,
    /// Calls before T (same forms as --since).
    #[arg(long, value_name = "T")]
    pub until: Option<String>,
    /// Only sessions of this agent: claude-code (also claude, cc), codex
    /// (cx), opencode (oc) or droid (factory, dr), as every command takes
    /// them. Codex and Droid records have is_error_reliable false.
    #[arg(long, value_name = "AGENT")]
    pub agent: Option<String>,
    /// At most N records, newest first (default 50; no upper bound). When
    /// more match, the footer says how many if every match was counted,
    /// else only that more match.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Print secrets as they are instead of [REDACTED_<TYPE>].
    #[arg(long)]
    pub no_redact: bool,
    /// How long output is cut (default: smart for failed calls, else head).
    #[arg(long, value_enum, value_name = "MODE")]
    pub output_mode: Option<ModeArg>,
    /// Join each spawn to its child transcript: persona, models and exact
    /// tokens summed from the child (also for background spawns); the table
    /// gets a TOKENS column.
    #[arg(long)]
    pub with_subagent_cost: bool,
    /// Only calls on which the transcript
    /// records a firing of this hook event (PreToolUse, PostToolUse, …, or a
    /// hookName such as PreToolUse:Bash), case-insensitive.
    #[arg(long, value_name = "EVENT")]
    pub hook: Option<String>,
    /// Extension: only calls a hook blocked (PreToolUse exit 2 or deny, or
    /// an ask that was then denied: the call did not run).
    /// `--blocked=false`: only calls it did not.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub blocked: Option<bool>,
    /// Extension: only calls a hook objected to after they ran (PostToolUse
    /// decision block or exit 2: the call had run; the reason went to the
    /// model).
    /// `--flagged=false`: only calls it did not.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub flagged: Option<bool>,
    /// Extension: only calls whose input a PreToolUse hook rewrote
    /// (updatedInput; the JSON record's hook_activity has from and to).
    /// `--rewritten=false`: only calls it did not.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub rewritten: Option<bool>,
    /// Extension: only calls `hookscope hook` logged a decision on in
    /// which rule RULE matched (`*`: any logged decision), from the
    /// decision log ($XDG_STATE_HOME/hookscope/decisions).
    #[arg(long, value_name = "RULE")]
    pub decided_by: Option<String>,
    /// The TUI Calls view's filter line, e.g. 'tool:Bash is:error since:7d
    /// "rm -rf"' (keys: tool, name, input, output, -output, is, session,
    /// since, until, agent, limit, mode, redact, cost, hook, ruled; bare words
    /// search inputs). Combines with the flags; a parameter set by both is
    /// an error. Without a tool in either, every tool matches. A line may
    /// start with `-` (`--filter '-is:blocked'`).
    #[arg(long, value_name = "LINE", allow_hyphen_values = true)]
    pub filter: Option<String>,
    /// Pretend the current time is T (RFC 3339), for reproducible relative
    /// --since/--until.
    #[arg(long, value_name = "T", hide = true)]
    pub now: Option<String>,
    /// Print how many calls match instead of the records (--limit, and
    /// limit: in --filter, are refused: every match is counted): a number,
    /// or {"total":N} with --json.
    #[arg(long, conflicts_with_all = ["limit", "group_by"])]
    pub count: bool,
    /// Print how many calls match per KEY instead of the records, most
    /// first (days newest first): tool, session, day (UTC), agent or error
    /// (error, ok, no result). --json: {"total":N,"group_by":KEY,"groups":[{"key":…,"count":N}]}.
    #[arg(long, value_enum, value_name = "KEY", conflicts_with = "limit")]
    pub group_by: Option<GroupByArg>,
    /// Print {"records":[...],"redactions":{...}} instead of a table
    /// (redactions omitted when nothing was masked).
    #[arg(long)]
    pub json: bool,
}

/// `--group-by`'s values ([`GroupBy`]).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum GroupByArg {
    /// The tool name as invoked.
    Tool,
    /// The session id (subagents' calls count for their session).
    Session,
    /// The call's UTC date, or "undated".
    Day,
    /// claude-code, codex, opencode or droid.
    Agent,
    /// error, ok, or "no result".
    Error,
}

impl From<GroupByArg> for GroupBy {
    fn from(arg: GroupByArg) -> GroupBy {
        match arg {
            GroupByArg::Tool => GroupBy::Tool,
            GroupByArg::Session => GroupBy::Session,
            GroupByArg::Day => GroupBy::Day,
            GroupByArg::Agent => GroupBy::Agent,
            GroupByArg::Error => GroupBy::Error,
        }
    }
}

impl FindArgs {
    /// The find_tool_calls parameters these flags stand for.
    pub fn params(&self) -> FindParams {
        FindParams {
            tool_name: self.tool_name.clone(),
            tool_name_pattern: self.tool_name_pattern.clone(),
            input_contains: self.input_contains.clone(),
            output_contains: self.output_contains.clone(),
            output_excludes: self.output_excludes.clone(),
            is_error: self.is_error,
            session: self.session.clone(),
            since: self.since.clone(),
            until: self.until.clone(),
            agent: self.agent.clone(),
            limit: self.limit,
            redact: !self.no_redact,
            output_mode: self.output_mode.map(|m| match m {
                ModeArg::Head => OutputMode::Head,
                ModeArg::Tail => OutputMode::Tail,
                ModeArg::Smart => OutputMode::Smart,
            }),
            with_subagent_cost: self.with_subagent_cost,
            hook: self.hook.clone(),
            blocked: self.blocked,
            flagged: self.flagged,
            rewritten: self.rewritten,
            decided_by: self.decided_by.clone(),
        }
    }
}

/// Runs the subcommand from its parsed flags (and `--filter`'s line, see
/// [`with_filter_line`]).
pub fn run_args(args: &FindArgs, no_index: bool) {
    if let Some(word) = bool_word_path(&args.paths) {
        let e = QueryError::InvalidArgument(format!(
            "no such file or directory: {word} (--blocked, --flagged and --rewritten take a value only after `=`: --blocked={word})"
        ));
        invalid(&e, args.json);
    }
    let params = match &args.filter {
        None => args.params(),
        Some(line) => match with_filter_line(args.params(), line) {
            Ok(p) => p,
            Err(e) => invalid(&e, args.json),
        },
    };
    if args.count || args.group_by.is_some() {
        if params.limit.is_some() {
            // Only the filter line can have set it: clap refuses --limit.
            let e = QueryError::InvalidArgument(
                "--filter: limit:N does not apply to --count or --group-by (they count every match)"
                    .into(),
            );
            invalid(&e, args.json);
        }
        return run_tally(
            &args.paths,
            &params,
            args.now.as_deref(),
            args.json,
            no_index,
            args.group_by.map(GroupBy::from),
        );
    }
    run(
        &args.paths,
        &params,
        args.now.as_deref(),
        args.json,
        no_index,
    );
}

/// A PATH that is the word `true` or `false` and does not exist: a value
/// written after `--blocked`, `--flagged` or `--rewritten` with a space,
/// which clap leaves as a PATH (they take theirs after `=`).
fn bool_word_path(paths: &[PathBuf]) -> Option<&'static str> {
    paths.iter().find_map(|p| {
        let word = ["true", "false"]
            .into_iter()
            .find(|w| p.as_os_str() == *w)?;
        (!p.exists()).then_some(word)
    })
}

/// `flags` with the parameters of a Calls-view filter `line`
/// ([`hookscope_core::query::filter_line::parse`]) added: a parameter both set
/// is an error naming it (sessions add up; `redact:off`, `cost:on`,
/// `is:blocked`, `is:flagged`, `is:rewritten` combine with their flags); with no tool
/// name or pattern in either, every tool (`tool_name_pattern` "", as the
/// Calls view does).
///
/// # Errors
/// The line's own errors, or `--filter: PARAM is given both as a flag and
/// in the line`.
pub fn with_filter_line(flags: FindParams, line: &str) -> Result<FindParams, QueryError> {
    let from_line = hookscope_core::query::filter_line::parse(line)
        .map_err(|e| QueryError::InvalidArgument(format!("--filter: {}", e.message())))?;
    // A flag and its `is:` word combine when they agree (`--blocked` and
    // `is:blocked`); `--blocked=false` with `is:blocked` is an error.
    fn both(
        name: &str,
        flag: Option<bool>,
        line: Option<bool>,
    ) -> Result<Option<bool>, QueryError> {
        match (flag, line) {
            (Some(a), Some(b)) if a != b => Err(QueryError::InvalidArgument(format!(
                "--filter: {name} is given both as a flag and in the line, with opposite values"
            ))),
            (flag, line) => Ok(flag.or(line)),
        }
    }
    fn one<T>(name: &str, flag: Option<T>, line: Option<T>) -> Result<Option<T>, QueryError> {
        match (flag, line) {
            (Some(_), Some(_)) => Err(QueryError::InvalidArgument(format!(
                "--filter: {name} is given both as a flag and in the line"
            ))),
            (a, b) => Ok(a.or(b)),
        }
    }
    let mut sessions = flags.session;
    sessions.extend(from_line.session);
    let mut out = FindParams {
        tool_name: one("tool_name", flags.tool_name, from_line.tool_name)?,
        tool_name_pattern: one(
            "tool_name_pattern",
            flags.tool_name_pattern,
            from_line.tool_name_pattern,
        )?,
        input_contains: one(
            "input_contains",
            flags.input_contains,
            from_line.input_contains,
        )?,
        output_contains: one(
            "output_contains",
            flags.output_contains,
            from_line.output_contains,
        )?,
        output_excludes: one(
            "output_excludes",
            flags.output_excludes,
            from_line.output_excludes,
        )?,
        is_error: one("is_error", flags.is_error, from_line.is_error)?,
        session: sessions,
        since: one("since", flags.since, from_line.since)?,
        until: one("until", flags.until, from_line.until)?,
        agent: one("agent", flags.agent, from_line.agent)?,
        limit: one("limit", flags.limit, from_line.limit)?,
        redact: flags.redact && from_line.redact,
        output_mode: one("output_mode", flags.output_mode, from_line.output_mode)?,
        with_subagent_cost: flags.with_subagent_cost || from_line.with_subagent_cost,
        hook: one("hook", flags.hook, from_line.hook)?,
        blocked: both("blocked", flags.blocked, from_line.blocked)?,
        flagged: both("flagged", flags.flagged, from_line.flagged)?,
        rewritten: both("rewritten", flags.rewritten, from_line.rewritten)?,
        decided_by: one("decided_by", flags.decided_by, from_line.decided_by)?,
    };
    if out.tool_name.is_none() && out.tool_name_pattern.is_none() {
        out.tool_name_pattern = Some(String::new());
    }
    Ok(out)
}

/// The table's marks that `records` show, explained on one line (empty
/// when none shows), each after its column: ERR's `✗`, `⊘` (a call a
/// PreToolUse or PermissionRequest hook blocked) and `?`, TOOL's `↳` of a
/// subagent's call, and INPUT's `→` of an input a PreToolUse hook rewrote
/// ([`FoundCall::summary_with_rewrite`]).
fn legend(records: &[FoundCall]) -> String {
    let mut parts = Vec::new();
    let cells: Vec<String> = records.iter().map(err_mark).collect();
    let shown = |mark: &str| cells.iter().any(|c| c.contains(mark));
    let err: Vec<&str> = [
        ("✗", "✗ failed"),
        (
            "⊘",
            "⊘ blocked by a hook before it ran (⛔ in the TUI; --blocked lists those)",
        ),
        ("?", "? no result recorded"),
        (
            "⚠",
            "⚠ a hook objected after it ran (--flagged lists those)",
        ),
    ]
    .into_iter()
    .filter(|(mark, _)| shown(mark))
    .map(|(_, text)| text)
    .collect();
    if !err.is_empty() {
        parts.push(format!("ERR: {}", err.join(", ")));
    }
    if records.iter().any(|r| r.origin.is_some()) {
        parts.push("TOOL: ↳ a subagent's call".to_string());
    }
    if records
        .iter()
        .any(|r| r.summary_with_rewrite() != r.summary())
    {
        parts.push("INPUT: a → b: a PreToolUse hook rewrote the input a to b".to_string());
    }
    parts.join("; ")
}

/// The ERR cell of `r`: `✗` failed, `⊘` blocked by a PreToolUse or
/// PermissionRequest hook before it ran (the transcript records such a
/// call as an error, [`FoundCall::blocked_before_it_ran`]), `?` no result
/// recorded (`?`, not `…`: the ellipsis marks cut text in this table),
/// empty when it succeeded; then `⚠` when a PostToolUse hook objected
/// after it ran ([`FoundCall::objected_after_it_ran`]).
fn err_mark(r: &FoundCall) -> String {
    let ran = match r.is_error {
        Some(true) if r.blocked_before_it_ran() => "⊘",
        Some(true) => "✗",
        Some(false) => "",
        None => "?",
    };
    let objected = if r.objected_after_it_ran() { "⚠" } else { "" };
    format!("{ran}{objected}")
}

/// Why `--hook NAME` finds no call ([`hookscope_core::query::params::hook_miss`]):
/// `Stop firings are not on tool calls: hookscope hooks --activity SESSION
/// lists them`, or for a name that is no event of the hook contract (a
/// typo, `PreToolUze`), what it is matched against.
fn not_on_calls(hook: &str) -> Option<String> {
    use hookscope_core::query::params::{HookMiss, hook_miss};
    Some(match hook_miss(hook)? {
        HookMiss::NotOnCalls(name) => format!(
            "{name} firings are not on tool calls: hookscope hooks --activity SESSION lists them"
        ),
        HookMiss::NoEvent => format!(
            "--hook {hook:?} names no hook event; the events on tool calls: {} (a firing's hookName matches too, as PreToolUse:Bash)",
            hookscope_core::hooks::matcher::TOOL_EVENTS.join(", ")
        ),
    })
}

/// Says on stderr why `--hook NAME` found nothing ([`not_on_calls`]), in
/// every output mode: stdout stays the answer alone (`[]`, `0`, the
/// table or the JSON object).
fn hook_note(params: &FindParams) {
    if let Some(note) = params.hook.as_deref().and_then(not_on_calls) {
        errln!("{note}");
    }
}

/// Runs the subcommand with already-built parameters. Unless `no_index`,
/// the index ([`super::index`]) decides which sessions to load
/// ([`hookscope_core::index::Index::verdicts`]); the records are the same.
pub fn run(paths: &[PathBuf], params: &FindParams, now: Option<&str>, json: bool, no_index: bool) {
    let query = query_of(params, now, json);
    let found = answer(paths, json, no_index, |library, progress| {
        library.find(&query, progress)
    });
    let result = found.result;
    said(&result.unreadable, &result.unmatched_sessions, json);
    if json {
        print_json(&result);
        if result.records.is_empty() {
            hook_note(params);
        }
        return;
    }
    // Unique among every session a `--session` prefix is resolved against.
    let short = ShortIds::new(found.sessions.iter().map(|s| s.id.as_str()));
    print_table(&result.records, &short, params.with_subagent_cost);
    let shown = result.records.len();
    // Whether the total is known depends on how far loading went (with or
    // without the index, it stops once `limit` newer matches are certain),
    // so the footer never gives it: the same query says the same thing
    // either way, and `--count` counts.
    if !result.matched_exact || result.matched > shown {
        errln!(
            "{}, newest first; more match (--limit N for more, --count for how many)",
            crate::words::plural(shown, "record")
        );
    } else {
        errln!("{shown} record{}", if shown == 1 { "" } else { "s" });
    }
    if shown == 0 {
        hook_note(params);
    }
    if shown == 0
        && let Some(d) = &query.decided
        && !d.calls.is_empty()
    {
        // The log names calls, yet none is here: say where they may be.
        errln!(
            "the decision log names {} for {}; none is among these (other filters or sessions, or a decision logged far from its call's time: a payload replayed into the hook; `hookscope hooks --decisions` lists them)",
            crate::words::plural(d.calls.len(), "call"),
            if d.rule == "*" {
                "any rule".to_string()
            } else {
                format!("rule {}", d.rule)
            }
        );
    }
    let legend = legend(&result.records);
    if !legend.is_empty() {
        errln!("{legend}");
    }
    if !result.redactions.is_empty() {
        let parts: Vec<String> = result
            .redactions
            .iter()
            .map(|(k, v)| format!("{k}×{v}"))
            .collect();
        errln!("redacted: {} (--no-redact to show)", parts.join(", "));
    }
}

/// What `ask` answers over the library of `paths` (with progress on
/// stderr and the index's report after it); a PATH given that is not read
/// (a FIFO, a device) is said, as `sessions` says it, rather than a silent
/// "0 records", and so is finding no session at all. A refused argument
/// exits 2 ([`invalid`]).
fn answer<T>(
    paths: &[PathBuf],
    json: bool,
    no_index: bool,
    ask: impl FnOnce(&Library, &mut dyn FnMut(Progress)) -> Result<Found<T>, FindError>,
) -> Found<T> {
    let library = super::index::library(paths, no_index);
    let found = super::index::with_progress(&library, |progress| ask(&library, progress));
    let found = match found {
        Ok(found) => found,
        Err(FindError::Discover(e)) => invalid(&QueryError::InvalidArgument(e.to_string()), json),
        Err(FindError::Query(e)) => invalid(&e, json),
    };
    super::index::report(&library, found.sync.as_ref());
    for d in found.diagnostics.iter().filter(|d| paths.contains(&d.path)) {
        errln!("hookscope: {d}");
    }
    if found.sessions.is_empty() {
        // "0 records" alone would read as "no call matched".
        errln!(
            "hookscope: 0 sessions found under {}",
            super::sessions::where_looked(paths)
        );
        super::sessions::say_misnamed_storage(paths);
    }
    found
}

/// Says on stderr which sessions could not be read; a `--session` entry
/// that named no session is a bad argument (exit 2; with `json` the
/// `{"error": "invalid_argument", …}` object), as for `show`: a typo must
/// not read as "no call matched".
fn said(unreadable: &[String], unmatched_sessions: &[String], json: bool) {
    for e in unreadable {
        errln!("hookscope: {e}");
    }
    if !unmatched_sessions.is_empty() {
        let names: Vec<String> = unmatched_sessions
            .iter()
            .map(|s| format!("{s:?}"))
            .collect();
        invalid(
            &QueryError::InvalidArgument(format!(
                "no session matches {} (an id or a unique id prefix; `hookscope sessions` lists them)",
                names.join(", ")
            )),
            json,
        );
    }
}

/// `--count` / `--group-by`: how many calls match `params` (no limit),
/// split by `group_by` ([`hookscope_core::service::Library::tally`]).
/// Prints a number, or a COUNT KEY table with a total line, or with
/// `json` the [`hookscope_core::query::Tally`] object.
fn run_tally(
    paths: &[PathBuf],
    params: &FindParams,
    now: Option<&str>,
    json: bool,
    no_index: bool,
    group_by: Option<GroupBy>,
) {
    let query = query_of(params, now, json);
    let found = answer(paths, json, no_index, |library, progress| {
        library.tally(&query, group_by, progress)
    });
    let tally = found.result;
    said(&tally.unreadable, &tally.unmatched_sessions, json);
    if tally.total == 0 {
        hook_note(params);
    }
    if json {
        print_json(&tally);
        return;
    }
    let Some(groups) = &tally.groups else {
        outln!("{}", tally.total);
        return;
    };
    let width = groups
        .iter()
        .map(|g| g.count.to_string().len())
        .chain([tally.total.to_string().len(), "COUNT".len()])
        .max()
        .unwrap_or(5);
    let by = group_by.map_or("", GroupBy::as_str).to_uppercase();
    outln!("{:>width$}  {by}", "COUNT");
    for g in groups {
        outln!("{:>width$}  {}", g.count, g.key);
    }
    outln!("{:>width$}  (total)", tally.total);
}

/// The validated query of `params` (`now`: `--now`), or the process
/// exits 2 with the error ([`invalid`]).
fn query_of(params: &FindParams, now: Option<&str>, json: bool) -> Query {
    let now = match now {
        None => Utc::now(),
        Some(t) => match DateTime::parse_from_rfc3339(t) {
            Ok(t) => t.with_timezone(&Utc),
            Err(e) => invalid(
                &QueryError::InvalidArgument(format!("--now: {t:?} is not RFC 3339: {e}")),
                json,
            ),
        },
    };
    // Validate before discovery so a bad argument fails fast. `--limit` has
    // no upper bound here (the MCP tool keeps MAX_LIMIT): it is applied
    // after the library's validation.
    let unlimited = FindParams {
        limit: None,
        ..params.clone()
    };
    let mut query = match unlimited.validate(now) {
        Ok(query) => query,
        Err(e) => invalid(&flag_names(e), json),
    };
    match params.limit {
        Some(0) => invalid(
            &QueryError::InvalidArgument("limit must be at least 1, got 0".to_string()),
            json,
        ),
        Some(n) => query.limit = n,
        None => {}
    }
    query
}

/// The library's name-filter errors name its parameters (`tool_name`,
/// `tool_name_pattern`, as MCP takes them); on the command line they name
/// the flags (`--tool-name`, `--tool-name-pattern`); when neither was given,
/// the error says `--tool-name-pattern ''` matches every tool.
fn flag_names(e: QueryError) -> QueryError {
    match e {
        QueryError::InvalidArgument(m) if m.starts_with("set exactly one of tool_name") => {
            let flags = m
                .replace("tool_name_pattern", "\u{0}")
                .replace("tool_name", "--tool-name")
                .replace('\u{0}', "--tool-name-pattern");
            // Neither given: say how to ask for every tool.
            let hint = if m.ends_with("not both") {
                ""
            } else {
                "; --tool-name-pattern '' matches every tool"
            };
            QueryError::InvalidArgument(format!("{flags}{hint}"))
        }
        other => other,
    }
}

fn invalid(e: &QueryError, json: bool) -> ! {
    if json {
        print_json(&e.to_json());
        std::process::exit(2)
    }
    fail(e)
}

/// The SESSION cell: the id's shortest unique prefix ([`ShortIds`]: at
/// least 8 chars of a UUID, a long other id cut to 12 chars when that
/// stays unique, else whole), at most 36 characters.
fn session_cell(id: &str, short: &ShortIds) -> String {
    clip(short.get(id), 36)
}

/// The TOKENS cell (`--with-subagent-cost`): a spawn's total and its
/// source (`15191 exact`, `5360 recorded`); empty for other calls and for a
/// spawn without a token figure.
fn tokens_cell(r: &FoundCall) -> String {
    r.subagent
        .as_ref()
        .and_then(|s| s.tokens.as_ref())
        .map(|t| format!("{} {}", t.total, t.source))
        .unwrap_or_default()
}

/// The table: TIME, SESSION, CALL (the `tool_use_id`'s shortest unique
/// prefix among the listed calls, at least 8 chars, as [`ShortIds`] shortens
/// session ids), TOOL, RESOLVED, ERR, [RULED,] [TOKENS,] INPUT (RULED with
/// a `decided_by` filter: the newest logged decision). TOOL and RESOLVED are
/// as wide as their widest cell (at most 16 and 20; at least their header),
/// so at 80 columns the common case (`Bash`, nothing resolved) leaves
/// INPUT about 14 columns.
fn print_table(records: &[FoundCall], short: &ShortIds, with_cost: bool) {
    // No records, no table: stderr's `0 records` says so, and a script
    // reading stdout gets nothing rather than a lone header.
    if records.is_empty() {
        return;
    }
    let width = |cells: &mut dyn Iterator<Item = String>, min: usize| -> usize {
        cells.map(|c| c.chars().count()).max().unwrap_or(0).max(min)
    };
    let calls = ShortIds::new(records.iter().map(|r| r.tool_use_id.as_str()));
    let call_cell = |r: &FoundCall| clip(calls.get(&r.tool_use_id), 36);
    let tool_cell = |r: &FoundCall| {
        let tool = if r.origin.is_some() {
            format!("↳{}", r.tool_name)
        } else {
            r.tool_name.clone()
        };
        clip(&tool, 16)
    };
    let resolved_cell = |r: &FoundCall| clip(r.tool_resolved.as_deref().unwrap_or(""), 20);
    let sw = width(
        &mut records.iter().map(|r| session_cell(&r.session, short)),
        8,
    );
    let cw = width(&mut records.iter().map(call_cell), 8);
    let tw = width(&mut records.iter().map(tool_cell), 4);
    let rw = width(&mut records.iter().map(resolved_cell), 8);
    let cost_header = if with_cost {
        format!("{:<18}  ", "TOKENS")
    } else {
        String::new()
    };
    // With a decided_by filter: what `hookscope hook` answered on the call
    // (its newest logged decision), `§ block (no-rm-rf)`.
    let ruled_cell = |r: &FoundCall| {
        r.decided.last().map_or_else(String::new, |d| {
            let rules: Vec<&str> = d["rules"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let verdict = d["verdict"].as_str().unwrap_or("?");
            clip(&format!("§ {verdict} ({})", rules.join(", ")), 30)
        })
    };
    let with_ruled = records.iter().any(|r| !r.decided.is_empty());
    let uw = width(&mut records.iter().map(ruled_cell), 5);
    let ruled_header = if with_ruled {
        format!("{:<uw$}  ", "RULED")
    } else {
        String::new()
    };
    // Written in chunks of lines, not a `write` per record (10,000 of them
    // for `--limit 10000`).
    let mut chunk: Vec<String> = Vec::with_capacity(TABLE_CHUNK);
    chunk.push(format!(
        "{:<19}  {:<sw$}  {:<cw$}  {:<tw$}  {:<rw$}  {:<3}  {ruled_header}{cost_header}INPUT",
        "TIME (UTC)", "SESSION", "CALL", "TOOL", "RESOLVED", "ERR"
    ));
    for r in records {
        let time = r
            .timestamp
            .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
            .unwrap_or_else(|| "-".to_string());
        let session = session_cell(&r.session, short);
        let err = err_mark(r);
        let cost = if with_cost {
            format!("{:<18}  ", tokens_cell(r))
        } else {
            String::new()
        };
        let ruled = if with_ruled {
            format!("{:<uw$}  ", ruled_cell(r))
        } else {
            String::new()
        };
        if chunk.len() == TABLE_CHUNK {
            outln!("{}", chunk.join("\n"));
            chunk.clear();
        }
        chunk.push(format!(
            "{:<19}  {:<sw$}  {:<cw$}  {:<tw$}  {:<rw$}  {:<3}  {ruled}{cost}{}",
            time,
            session,
            call_cell(r),
            tool_cell(r),
            resolved_cell(r),
            err,
            clip(&input_summary(r), 70)
        ));
    }
    outln!("{}", chunk.join("\n"));
}

/// How many table lines [`print_table`] writes at once.
const TABLE_CHUNK: usize = 512;

/// One line saying what the call did ([`FoundCall::summary`]), else the
/// compact input JSON.
fn input_summary(r: &FoundCall) -> String {
    let summary = r.summary_with_rewrite();
    if !summary.is_empty() {
        return summary;
    }
    r.input_text()
}

/// `text` on one line, at most `max` chars (an ellipsis marks a cut):
/// newlines and tabs as spaces, every other control character as the
/// visible escape [`printable`] writes (`\x1b`), as every text output
/// (docs/security.md "Terminal output").
fn clip(text: &str, max: usize) -> String {
    let spaced: String = text
        .chars()
        .map(|c| if matches!(c, '\n' | '\t') { ' ' } else { c })
        .collect();
    let one = hookscope_core::printable::printable(&spaced).into_owned();
    if one.chars().count() <= max {
        return one;
    }
    let mut out: String = one.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}
