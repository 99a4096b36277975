//! Rule sets: a TOML file of rules, each naming its events, an optional
//! tool spec, `only_if` / `skip_if` conditions and an action; evaluated over
//! a hook payload with the why for every rule (docs/rules.md#rule-sets;
//! docs/contract.md#blocks-without-a-reason).
//!
//! ```toml
//! [[rules]]
//! id = "no-rm-rf"
//! events = ["PreToolUse"]          # or "Stop|SubagentStop"
//! tool = "Bash"                    # pipe spec, aliases and MCP suffixes
//! action = "block"                 # block | warn | context | allow | rewrite
//! reason = "rm -rf is blocked here; move the folder to the trash with `trash <path>`."
//! message = "hookscope: blocked rm -rf"   # the user alone sees this
//! [rules.only_if]
//! command = 'rm\s+-r?f'
//! [rules.skip_if]
//! subagent = true
//! [[rules.tests]]
//! command = "rm -rf build"
//! expect = "block"
//! ```
//!
//! `command`, `program` and `pipeline` read the calls of the scripts a
//! command hands to another shell (`bash -c`, `eval`, `find -exec`), and a
//! command not parsed whole also on its raw text, deciding for caution
//! ([`RuleAction::approves`]); docs/rules.md "Rule sets" says how.
//!
//! Loading refuses the whole file on any problem (TOML syntax, unknown key,
//! bad regex or glob, a block without a reason the model can see, …) with
//! file, line and column ([`RuleSetError`]); nothing is half-loaded.

mod cases;
mod cond;

use hookscope_hook::event::{EventKey, EventName};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toml::Spanned;

pub use cases::{CaseResult, TestCase};
pub use cond::{
    Condition, History, Pattern, REGEX_SIZE_LIMIT, Subject, compile_globs, compile_regex,
};

/// Compiled size all the regexes of one rule set may take together
/// (32 MiB; each is charged by [`REGEX_SIZE_LIMIT`] tiers): a file of
/// thousands of large patterns is refused with `file:line:col` instead of
/// taking gigabytes to load (docs/security.md "Rule files").
pub const REGEX_SET_BUDGET: usize = 32 << 20;

use crate::hooks::contract::{self, Version};
use crate::hooks::result::{
    Action, Combined, EventControl, HookOutput, HookResult, Outcome, combine, hook_output_at,
    interpret_output_at,
};
use crate::tools::tool_name_matches;

/// Largest rule file read (16 MiB).
pub const MAX_RULE_FILE_BYTES: u64 = 16 << 20;

/// One problem in a rule file: where and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleError {
    /// The file as displayed (lossy for a non-UTF-8 path), or `<string>`.
    pub file: String,
    /// 1-based line (0 when the problem has no place, e.g. unreadable).
    pub line: usize,
    /// 1-based column (0 when unknown).
    pub column: usize,
    /// The problem, with the fix when there is one.
    pub message: String,
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}: {}", self.file, self.message),
            (l, 0) => write!(f, "{}:{l}: {}", self.file, self.message),
            (l, c) => write!(f, "{}:{l}:{c}: {}", self.file, self.message),
        }
    }
}

/// A refused rule file: every problem found (at least one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{}", .errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct RuleSetError {
    /// The problems, in file order.
    pub errors: Vec<RuleError>,
}

/// What a matching rule does (the rule file's `action`): captain_hook's four
/// actions, with `context` = a warn that does not pre-approve
/// (docs/hook-api.md#results-and-actions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleAction {
    /// [`Action::Block`].
    Block,
    /// [`Action::Warn`], approving.
    Warn,
    /// [`Action::Warn`] with `approve = false`.
    Context,
    /// [`Action::Allow`].
    Allow,
    /// [`Action::Rewrite`] through `rewrite_command` / `rewrite_content`.
    Rewrite,
}

impl RuleAction {
    /// Names accepted in `action` and in a test's `expect` (plus `none`).
    pub const NAMES: [&'static str; 5] = ["block", "warn", "context", "allow", "rewrite"];

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "block" => Self::Block,
            "warn" => Self::Warn,
            "context" => Self::Context,
            "allow" => Self::Allow,
            "rewrite" => Self::Rewrite,
            _ => return None,
        })
    }

    /// Whether a match approves the tool call: `allow`, `rewrite`, and
    /// `warn` (on PreToolUse a warn also pre-approves). The others, `block`
    /// and `context`, guard. On a command not parsed whole an approving
    /// rule never matches through its `command`/`program`/`pipeline`
    /// conditions, and a guarding one is never skipped through them
    /// (docs/rules.md "Rule sets": the long-command rule).
    pub fn approves(self) -> bool {
        matches!(self, Self::Allow | Self::Warn | Self::Rewrite)
    }

    /// `an allow rule`, `a block rule`, … for a why.
    fn rule_noun(self) -> String {
        let article = if self == Self::Allow { "an" } else { "a" };
        format!("{article} {} rule", self.as_str())
    }

    /// The name (`"context"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Block => "block",
            Self::Warn => "warn",
            Self::Context => "context",
            Self::Allow => "allow",
            Self::Rewrite => "rewrite",
        }
    }
}

/// The verdict name of a result: its action, or `context` for a warn that
/// does not approve.
pub fn verdict(r: &HookResult) -> &'static str {
    match r.action {
        Action::Warn if !r.approve => "context",
        a => a.as_str(),
    }
}

/// A regex substitution (`pattern` → `replace`, `$1` for groups), applied
/// to every match.
#[derive(Debug, Clone)]
pub struct Rewrite {
    /// The compiled pattern.
    pub pattern: Pattern,
    /// The replacement (regex crate syntax: `$1`, `${name}`).
    pub replace: String,
    /// `true` for `rewrite_content` (the new-text fields), `false` for
    /// `rewrite_command` (`tool_input.command`).
    pub content: bool,
}

/// One loaded rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// `id`, unique in the file.
    pub id: String,
    /// Line of the rule's `[[rules]]` table.
    pub line: usize,
    /// The events it applies to.
    pub events: Vec<EventKey>,
    /// The tool spec (`Bash|Edit`), matched as [`tool_name_matches`].
    pub tool: Option<String>,
    /// Conditions that must all hold.
    pub only_if: Vec<Condition>,
    /// Conditions any of which skips the rule.
    pub skip_if: Vec<Condition>,
    /// Lower runs first (default 100; ties keep file order).
    pub priority: i64,
    /// The action.
    pub action: RuleAction,
    /// What the model is told.
    pub reason: Option<String>,
    /// What the user alone sees (`systemMessage`).
    pub message: Option<String>,
    /// Advisory context beside a rewrite (or after a block's reason).
    pub note: Option<String>,
    /// The rewrite, for `action = "rewrite"`.
    pub rewrite: Option<Rewrite>,
    /// The rule's own test cases.
    pub tests: Vec<TestCase>,
}

/// One step of a rule's why: a check and whether it held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The check as written (`tool Bash`, `command =~ "rm"`), a skip with
    /// what happened to it (`skip_if subagent = true — not matched`).
    pub check: String,
    /// Whether it let the rule go on.
    pub ok: bool,
    /// The evidence or the reason it failed.
    pub detail: String,
}

/// A rule's evaluation: matched or not, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleEval {
    /// The rule's id.
    pub id: String,
    /// Whether every check held (the rule reached its action; a rewrite
    /// that changes nothing still counts, with `result` None).
    pub matched: bool,
    /// The checks made, up to the first failing one.
    pub steps: Vec<Step>,
    /// The rule's result when it matched (`None` also for a rewrite that
    /// changes nothing).
    pub result: Option<HookResult>,
    /// Set when a `command`, `program` or `pipeline` condition of the rule
    /// was checked on a command not parsed whole: what was not
    /// ([`crate::shell::ReadCommand::unread_note`], e.g. `command not parsed
    /// whole: 70672 bytes, 5136 not parsed`). The backtest counts the
    /// matches that carry it. Omitted from JSON when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unread: Option<String>,
}

impl RuleEval {
    /// The why on one line: `tool Bash ✓ · command =~ "rm\s+-rf" ✓ on call 2
    /// of 3 (rm -rf build)`.
    pub fn why(&self) -> String {
        self.steps
            .iter()
            .map(|s| {
                let mark = if s.ok { "✓" } else { "✗" };
                if s.detail.is_empty() {
                    format!("{} {mark}", s.check)
                } else {
                    format!("{} {mark} {}", s.check, s.detail)
                }
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

/// A rule set's decision on one event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    /// The event (`hook_event_name`).
    pub event: EventKey,
    /// Every rule, in evaluation order, matched or not.
    pub rules: Vec<RuleEval>,
    /// The matching results merged as Claude Code merges several hooks.
    pub combined: Combined,
    /// What a hook returning the combined result prints.
    pub output: HookOutput,
    /// What Claude Code then does.
    pub outcome: Outcome,
}

impl Evaluation {
    /// The combined verdict: `block`, `warn`, `context`, `allow`, `rewrite`,
    /// or `none` when no rule matched.
    pub fn verdict(&self) -> &'static str {
        self.combined.result.as_ref().map_or("none", verdict)
    }
}

/// A loaded rule file.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    /// Where it came from (`None` for a string).
    pub path: Option<PathBuf>,
    /// The rules, in evaluation order (priority, then file order).
    pub rules: Vec<Rule>,
    /// The file's top-level `[[tests]]`, run against the whole set.
    pub tests: Vec<TestCase>,
    /// Problems that do not refuse the file (e.g. a Stop rule that would
    /// block forever), in file order; see [`RuleSet::warnings`].
    pub warnings: Vec<RuleError>,
}

// ---- raw TOML ------------------------------------------------------------

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    rules: Vec<Spanned<RawRule>>,
    #[serde(default)]
    tests: Vec<Spanned<cases::RawCase>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawConds {
    command: Option<Spanned<OneOrMany>>,
    program: Option<Spanned<OneOrMany>>,
    pipeline: Option<Spanned<toml::Value>>,
    line: Option<Spanned<OneOrMany>>,
    file_path: Option<Spanned<OneOrMany>>,
    content: Option<Spanned<OneOrMany>>,
    input_contains: Option<Spanned<OneOrMany>>,
    agent: Option<Spanned<OneOrMany>>,
    subagent: Option<bool>,
    prompt: Option<Spanned<OneOrMany>>,
    permission_mode: Option<Spanned<OneOrMany>>,
    touched_file: Option<Spanned<OneOrMany>>,
    ran_command: Option<Spanned<OneOrMany>>,
    stop_hook_active: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRewrite {
    pattern: Spanned<String>,
    replace: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: Spanned<String>,
    events: Spanned<OneOrMany>,
    tool: Option<Spanned<String>>,
    #[serde(default)]
    only_if: RawConds,
    #[serde(default)]
    skip_if: RawConds,
    priority: Option<i64>,
    action: Spanned<String>,
    reason: Option<String>,
    message: Option<String>,
    note: Option<String>,
    rewrite_command: Option<Spanned<RawRewrite>>,
    rewrite_content: Option<Spanned<RawRewrite>>,
    #[serde(default)]
    tests: Vec<Spanned<cases::RawCase>>,
}

/// Turns byte offsets into lines for one file's errors.
pub(crate) struct Errors<'t> {
    file: String,
    text: &'t str,
    /// Byte offsets where each line starts (line 1 at index 0).
    line_starts: Vec<usize>,
    /// Collected problems.
    pub(crate) list: Vec<RuleError>,
    /// Compiled-regex bytes the set may still spend
    /// ([`REGEX_SET_BUDGET`] at the start).
    regex_budget: usize,
    /// The budget's refusal was reported (once per file).
    regex_budget_said: bool,
    /// Regexes are not compiled now but on first use (a file the hook
    /// already loaded whole; docs/live-hook.md#the-rule-cache).
    deferred: bool,
}

impl<'t> Errors<'t> {
    fn new(file: String, text: &'t str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        Errors {
            file,
            text,
            line_starts,
            list: Vec::new(),
            regex_budget: REGEX_SET_BUDGET,
            regex_budget_said: false,
            deferred: false,
        }
    }

    /// [`compile_regex`] charged to the set's budget: each regex is charged
    /// the smallest of 4 KiB, 64 KiB and [`REGEX_SIZE_LIMIT`] it compiles
    /// within, and one that does not fit in what is left is refused.
    /// When deferred, nothing is compiled now.
    fn regex(&mut self, pattern: &str, case_insensitive: bool) -> Result<Pattern, String> {
        if self.deferred {
            return Ok(Pattern::deferred(pattern, case_insensitive));
        }
        let mut last = None;
        for tier in [4 << 10, 64 << 10, REGEX_SIZE_LIMIT] {
            if tier > self.regex_budget {
                if self.regex_budget_said {
                    // Said once, at the first regex past it.
                    return Err(String::new());
                }
                self.regex_budget_said = true;
                return Err(format!(
                    "regex \"{pattern}\" does not fit in what is left of the rule set's budget of {} MiB compiled ({} KiB left): the set's regexes are too large together",
                    REGEX_SET_BUDGET >> 20,
                    self.regex_budget >> 10
                ));
            }
            match cond::compile_regex_within(pattern, case_insensitive, tier) {
                Ok(r) => {
                    self.regex_budget -= tier;
                    return Ok(Pattern::compiled(r, case_insensitive));
                }
                Err((e, too_big)) if too_big && tier < REGEX_SIZE_LIMIT => last = Some(e),
                Err((e, _)) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| format!("bad regex \"{pattern}\"")))
    }

    /// 1-based line and column (in characters) of byte `offset`, in
    /// O(log lines).
    pub(crate) fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset);
        let start = self
            .line_starts
            .get(line.wrapping_sub(1))
            .copied()
            .unwrap_or(0);
        let col = self
            .text
            .get(start..offset)
            .map_or(0, |l| l.chars().count())
            + 1;
        (line.max(1), col)
    }

    /// Records `message` at byte `offset`.
    pub(crate) fn at(&mut self, offset: usize, message: impl Into<String>) {
        let (line, column) = self.line_col(offset);
        self.list.push(RuleError {
            file: self.file.clone(),
            line,
            column,
            message: message.into(),
        });
    }
}

/// A `pipeline` value: one list of steps (`["curl", "sh|bash"]`) or a
/// list of such lists; each step one program name or several joined by
/// `|`. The error says what to write instead.
fn pipeline_spec(value: &toml::Value) -> Result<Vec<Vec<Vec<String>>>, String> {
    const SHAPE: &str = "pipeline: give the programs in order, [\"curl\", \"sh\"] (a step may be \"sh|bash\"), or a list of such lists";
    let items = value.as_array().ok_or(SHAPE)?;
    let lists: Vec<&Vec<toml::Value>> =
        if !items.is_empty() && items.iter().all(toml::Value::is_array) {
            items.iter().filter_map(toml::Value::as_array).collect()
        } else {
            vec![items]
        };
    let mut specs = Vec::new();
    for list in lists {
        let mut steps = Vec::new();
        for item in list {
            let step = item.as_str().ok_or(SHAPE)?;
            let names: Vec<String> = step.split('|').map(str::to_string).collect();
            if let Some(bad) = names
                .iter()
                .find(|n| n.is_empty() || n.chars().any(char::is_whitespace))
            {
                return Err(format!(
                    "pipeline: \"{bad}\" in \"{step}\" is not a program name; give names alone (\"curl\"), several as \"sh|bash\""
                ));
            }
            steps.push(names);
        }
        if steps.len() < 2 {
            return Err(format!(
                "pipeline: {} names fewer than two programs; a pipeline condition needs them in order ([\"curl\", \"sh\"]); for one program anywhere use `program`",
                toml::Value::Array(list.clone())
            ));
        }
        specs.push(steps);
    }
    Ok(specs)
}

fn compile_conds(raw: RawConds, errs: &mut Errors<'_>) -> Vec<Condition> {
    let mut out = Vec::new();
    // First: the cheapest check, and the one that says why a Stop went
    // through.
    if let Some(b) = raw.stop_hook_active {
        out.push(Condition::StopHookActive(b));
    }
    let regexes = |v: Option<Spanned<OneOrMany>>, ci: bool, errs: &mut Errors<'_>| {
        v.map(|s| {
            let start = s.span().start;
            s.into_inner()
                .into_vec()
                .iter()
                .filter_map(|p| match errs.regex(p, ci) {
                    Ok(r) => Some(r),
                    Err(e) => {
                        if !e.is_empty() {
                            errs.at(start, e);
                        }
                        None
                    }
                })
                .collect::<Vec<_>>()
        })
    };
    // `program` before `command`: a name compares without a regex, so a
    // call of another program never compiles the rule's command regexes.
    if let Some(p) = raw.program {
        out.push(Condition::Program(p.into_inner().into_vec()));
    }
    if let Some(r) = regexes(raw.command, false, errs) {
        out.push(Condition::Command(r));
    }
    if let Some(p) = raw.pipeline {
        let start = p.span().start;
        match pipeline_spec(p.get_ref()) {
            Ok(specs) => out.push(Condition::Pipeline(specs)),
            Err(e) => errs.at(start, e),
        }
    }
    if let Some(r) = regexes(raw.line, false, errs) {
        out.push(Condition::Line(r));
    }
    let globs = |v: Option<Spanned<OneOrMany>>, errs: &mut Errors<'_>| {
        v.and_then(|s| {
            let start = s.span().start;
            let pats = s.into_inner().into_vec();
            compile_globs(&pats)
                .map(|set| (set, pats))
                .map_err(|e| errs.at(start, e))
                .ok()
        })
    };
    if let Some((set, pats)) = globs(raw.file_path, errs) {
        out.push(Condition::FilePath(set, pats));
    }
    if let Some(r) = regexes(raw.content, false, errs) {
        out.push(Condition::Content(r));
    }
    if let Some(s) = raw.input_contains {
        out.push(Condition::InputContains(s.into_inner().into_vec()));
    }
    if let Some(a) = raw.agent {
        let names = a
            .into_inner()
            .into_vec()
            .iter()
            .flat_map(|n| n.split('|').map(str::to_string).collect::<Vec<_>>())
            .collect();
        out.push(Condition::Agent(names));
    }
    if let Some(b) = raw.subagent {
        out.push(Condition::Subagent(b));
    }
    if let Some(r) = regexes(raw.prompt, true, errs) {
        out.push(Condition::Prompt(r));
    }
    if let Some(m) = raw.permission_mode {
        out.push(Condition::PermissionMode(m.into_inner().into_vec()));
    }
    if let Some((set, pats)) = globs(raw.touched_file, errs) {
        out.push(Condition::TouchedFile(set, pats));
    }
    if let Some(r) = raw.ran_command {
        let start = r.span().start;
        let prefixes: Vec<Vec<String>> = r
            .into_inner()
            .into_vec()
            .iter()
            .map(|c| c.split_whitespace().map(str::to_string).collect())
            .collect();
        if prefixes.iter().any(Vec::is_empty) {
            errs.at(
                start,
                "ran_command: an empty command matches everything; name its words (\"cargo test\")",
            );
        }
        out.push(Condition::RanCommand(prefixes));
    }
    out
}

/// `cases`: whether the rule's test cases are compiled (a live hook
/// leaves them out: a case's missing payload file must not stop it).
fn compile_rule(
    raw: Spanned<RawRule>,
    base: &Path,
    cases: bool,
    errs: &mut Errors<'_>,
) -> Option<Rule> {
    let (line, _) = errs.line_col(raw.span().start);
    let raw = raw.into_inner();
    let before = errs.list.len();
    let id_at = raw.id.span().start;
    let id = raw.id.into_inner();
    if id.trim().is_empty() {
        errs.at(id_at, "rule id is empty");
    }
    let events_at = raw.events.span().start;
    let events: Vec<EventKey> = raw
        .events
        .into_inner()
        .into_vec()
        .iter()
        .flat_map(|e| {
            e.split('|')
                .map(|s| EventKey::new(s.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    if events.is_empty() {
        errs.at(events_at, format!("rule `{id}` names no event"));
    }
    let known = contract::event_names();
    for e in &events {
        if !known.contains(&e.as_str()) {
            let hint = crate::hooks::events::closest_name(e, known.iter().copied())
                .map(|n| format!(" (did you mean {n}?)"))
                .unwrap_or_default();
            errs.at(
                events_at,
                format!(
                    "rule `{id}`: unknown event `{e}`{hint}; known: {}",
                    known.join(", ")
                ),
            );
        }
    }
    let action_at = raw.action.span().start;
    let action = RuleAction::parse(raw.action.get_ref());
    if action.is_none() {
        errs.at(
            action_at,
            format!(
                "rule `{id}`: unknown action `{}` (one of: {})",
                raw.action.get_ref(),
                RuleAction::NAMES.join(", ")
            ),
        );
    }
    let only_if = compile_conds(raw.only_if, errs);
    let skip_if = compile_conds(raw.skip_if, errs);
    let reason = raw.reason.filter(|r| !r.trim().is_empty());
    let mut rewrite = None;
    for (raw_rw, content) in [(raw.rewrite_command, false), (raw.rewrite_content, true)] {
        if let Some(rw) = raw_rw {
            let at = rw.span().start;
            let rw = rw.into_inner();
            if rewrite.is_some() {
                errs.at(
                    at,
                    format!("rule `{id}`: give rewrite_command or rewrite_content, not both"),
                );
            }
            match errs.regex(rw.pattern.get_ref(), false) {
                Ok(pattern) => {
                    rewrite = Some(Rewrite {
                        pattern,
                        replace: rw.replace,
                        content,
                    })
                }
                Err(e) if e.is_empty() => {}
                Err(e) => errs.at(rw.pattern.span().start, e),
            }
        }
    }
    if let Some(action) = action {
        match action {
            // docs/contract.md#blocks-without-a-reason: the official hookify plugin's blocks
            // carry no reason, so the model only learns that a hook denied
            // the tool.
            RuleAction::Block if reason.is_none() => errs.at(
                action_at,
                format!(
                    "rule `{id}` blocks without a `reason`: the model would be told only that a hook blocked it, and would retry blindly. Fix: add reason = \"<what to do instead>\" (`message` is for the user only)"
                ),
            ),
            RuleAction::Warn | RuleAction::Context if reason.is_none() => errs.at(
                action_at,
                format!("rule `{id}` {}s without a `reason`: the model would be told nothing. Fix: add reason = \"<what the model should know>\"", action.as_str()),
            ),
            RuleAction::Rewrite if rewrite.is_none() => errs.at(
                action_at,
                format!("rule `{id}` rewrites but has no rewrite_command or rewrite_content. Fix: add rewrite_command = {{ pattern = '…', replace = '…' }}"),
            ),
            _ => {}
        }
        if action != RuleAction::Rewrite && rewrite.is_some() {
            errs.at(
                action_at,
                format!(
                    "rule `{id}` has a rewrite but action = \"{}\"; set action = \"rewrite\"",
                    action.as_str()
                ),
            );
        }
        // An unknown event was reported above; checking what it can do
        // would only add a second, misleading error.
        for e in events.iter().filter(|e| known.contains(&e.as_str())) {
            let control = EventControl::of(e);
            // What each event honours: docs/contract.md#exit-codes-and-stdout (exit 2) and
            // docs/contract.md#decision-control-per-event (decision fields, updatedInput), as the contract table says.
            if action == RuleAction::Block && !control.can_block() {
                errs.at(
                    events_at,
                    format!(
                        "rule `{id}` blocks on {e}, which cannot be blocked: Claude Code ignores a hook's block on {e}. Fix: use another action (context, warn) or a blockable event"
                    ),
                );
            }
            if action == RuleAction::Rewrite && !control.can_rewrite() {
                errs.at(events_at, format!("rule `{id}` rewrites on {e}: Claude Code takes a rewritten tool input only from PreToolUse and PermissionRequest hooks"));
            }
        }
    }
    let tests = match cases {
        true => raw
            .tests
            .into_iter()
            .filter_map(|c| cases::compile_case(c, Some(&id), base, errs))
            .collect(),
        false => Vec::new(),
    };
    if errs.list.len() > before {
        return None;
    }
    Some(Rule {
        id,
        line,
        events,
        tool: raw.tool.map(Spanned::into_inner),
        only_if,
        skip_if,
        priority: raw.priority.unwrap_or(100),
        action: action?,
        reason,
        message: raw.message,
        note: raw.note,
        rewrite,
        tests,
    })
}

/// The warning for a rule that blocks Stop/SubagentStop without checking
/// `stop_hook_active` (docs/contract.md#known-pitfalls: a Stop hook that always blocks keeps the
/// agent going forever), or `None`.
fn endless_stop_warning(r: &Rule) -> Option<String> {
    let on_stop: Vec<&str> = r
        .events
        .iter()
        .filter(|e| e.is(EventName::Stop) || e.is(EventName::SubagentStop))
        .map(EventKey::as_str)
        .collect();
    let guarded = r
        .only_if
        .iter()
        .any(|c| matches!(c, Condition::StopHookActive(false)))
        || r.skip_if
            .iter()
            .any(|c| matches!(c, Condition::StopHookActive(true)));
    (r.action == RuleAction::Block && !on_stop.is_empty() && !guarded).then(|| {
        format!(
            "warning: rule `{}` blocks {} without checking stop_hook_active: after its block the agent goes on, stops again with stop_hook_active = true, and this rule blocks again, for ever. Fix: add stop_hook_active = false under [rules.only_if]",
            r.id,
            on_stop.join("/")
        )
    })
}

/// The warning for a `context` or `warn` rule on events where its text
/// reaches no one: the event takes no `additionalContext` (Notification,
/// SessionEnd, PreCompact, …), a warn there cannot approve, and the rule
/// shows the user no `message` the event would display; or `None`.
fn silent_context_warning(r: &Rule) -> Option<String> {
    if !matches!(r.action, RuleAction::Warn | RuleAction::Context) {
        return None;
    }
    let silent: Vec<&str> = r
        .events
        .iter()
        .map(EventKey::as_str)
        .filter(|e| {
            let c = EventControl::of(e);
            let heard = c.additional_context
                || (r.action == RuleAction::Warn && c.permission_decision)
                || (r.message.is_some() && c.system_message);
            !heard
        })
        .collect();
    (!silent.is_empty()).then(|| {
        format!(
            "warning: rule `{}` is a {} on {}, which takes no additionalContext: its text reaches no one there",
            r.id,
            r.action.as_str(),
            silent.join("/")
        )
    })
}

/// The warning for a rule whose tool spec names a built-in tool in the
/// wrong case (`bash`): tool names are compared exactly, so it would never
/// match ([`crate::hooks::lint::KNOWN_TOOLS`]), or `None`.
fn tool_case_warning(r: &Rule) -> Option<String> {
    let spec = r.tool.as_deref()?;
    let fixes: Vec<String> = spec
        .split('|')
        .map(str::trim)
        .filter(|n| !crate::hooks::lint::KNOWN_TOOLS.contains(n))
        .filter_map(|n| {
            crate::hooks::lint::KNOWN_TOOLS
                .iter()
                .find(|k| k.eq_ignore_ascii_case(n))
                .map(|k| format!("`{n}` → `{k}`"))
        })
        .collect();
    (!fixes.is_empty()).then(|| {
        format!(
            "warning: rule `{}` names a tool in the wrong case ({}): tool names are compared exactly, so it never matches",
            r.id,
            fixes.join(", ")
        )
    })
}

/// A rule file's bytes: a regular file of at most [`MAX_RULE_FILE_BYTES`]
/// ([`crate::transcript::fsread::read_capped`]); else the one error
/// `cannot read: <io error>` at line 0.
fn read_rule_file(path: &Path) -> Result<Vec<u8>, RuleSetError> {
    crate::transcript::fsread::read_capped(path, MAX_RULE_FILE_BYTES).map_err(|e| RuleSetError {
        errors: vec![RuleError {
            file: path.display().to_string(),
            line: 0,
            column: 0,
            message: format!("cannot read: {e}"),
        }],
    })
}

impl RuleSet {
    /// Loads a rule file: a regular file of at most [`MAX_RULE_FILE_BYTES`],
    /// UTF-8 TOML. Test payload files are resolved next to it.
    ///
    /// # Errors
    /// Every problem found, each with file, line and column; the file is
    /// refused whole.
    pub fn load(path: &Path) -> Result<RuleSet, RuleSetError> {
        Self::from_bytes(read_rule_file(path)?, path)
    }

    /// [`RuleSet::load`] without the test cases ([`RuleSet::rules_from_bytes`]):
    /// what evaluating the rules needs (the live hook, a replay, a backtest,
    /// `hooks --install`, the TUI), so a case's missing payload file stops
    /// only `hookscope test`.
    ///
    /// # Errors
    /// As [`RuleSet::load`], less the test cases' errors.
    pub fn load_rules(path: &Path) -> Result<RuleSet, RuleSetError> {
        Self::rules_from_bytes(read_rule_file(path)?, path)
    }

    /// [`RuleSet::load`] of a file already read (`bytes`, at most
    /// [`MAX_RULE_FILE_BYTES`] as `read_capped` gives them): the live hook
    /// reads the file once to hash it and to parse it.
    ///
    /// # Errors
    /// As [`RuleSet::load`].
    pub fn from_bytes(bytes: Vec<u8>, path: &Path) -> Result<RuleSet, RuleSetError> {
        Self::from_bytes_with(bytes, path, true, false)
    }

    /// [`RuleSet::from_bytes`] without the test cases (`tests` empty, and
    /// every rule's): what the live hook evaluates. A case's payload file is
    /// not read, so a missing one does not stop the hook; the rules are
    /// checked as [`RuleSet::load`] checks them.
    ///
    /// # Errors
    /// As [`RuleSet::load`], less the test cases' errors.
    pub fn rules_from_bytes(bytes: Vec<u8>, path: &Path) -> Result<RuleSet, RuleSetError> {
        Self::from_bytes_with(bytes, path, false, false)
    }

    /// [`RuleSet::rules_from_bytes`] for a text that already loaded whole
    /// (the live hook's cache, docs/live-hook.md#the-rule-cache): every
    /// check but the regexes' runs, and each regex compiles on its first
    /// use ([`Pattern`]), so a call compiles only what its payload reaches.
    ///
    /// # Errors
    /// As [`RuleSet::rules_from_bytes`], less the regexes' errors.
    pub fn rules_from_bytes_deferred(bytes: Vec<u8>, path: &Path) -> Result<RuleSet, RuleSetError> {
        Self::from_bytes_with(bytes, path, false, true)
    }

    fn from_bytes_with(
        bytes: Vec<u8>,
        path: &Path,
        cases: bool,
        deferred: bool,
    ) -> Result<RuleSet, RuleSetError> {
        let file = path.display().to_string();
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let good = String::from_utf8_lossy(&e.as_bytes()[..at]).into_owned();
                let (line, column) = Errors::new(String::new(), &good).line_col(at);
                return Err(RuleSetError {
                    errors: vec![RuleError {
                        file,
                        line,
                        column,
                        message: format!("not UTF-8 (byte {at})"),
                    }],
                });
            }
        };
        let base = path.parent().unwrap_or(Path::new("."));
        let mut set = Self::parse_in(&text, &file, base, cases, deferred)?;
        set.path = Some(path.to_path_buf());
        Ok(set)
    }

    /// Parses rule-file text; `file` names it in errors, payload paths are
    /// relative to the current directory.
    ///
    /// # Errors
    /// As [`RuleSet::load`].
    pub fn parse(text: &str, file: &str) -> Result<RuleSet, RuleSetError> {
        Self::parse_in(text, file, Path::new("."), true, false)
    }

    /// [`RuleSet::parse`] without the test cases: no payload file is read
    /// (the MCP server's `rules` text comes from the client).
    ///
    /// # Errors
    /// As [`RuleSet::load`], less the test cases' errors.
    pub fn parse_rules(text: &str, file: &str) -> Result<RuleSet, RuleSetError> {
        Self::parse_in(text, file, Path::new("."), false, false)
    }

    fn parse_in(
        text: &str,
        file: &str,
        base: &Path,
        cases: bool,
        deferred: bool,
    ) -> Result<RuleSet, RuleSetError> {
        let mut errs = Errors::new(file.to_string(), text);
        errs.deferred = deferred;
        let raw: RawFile = match toml::from_str(text) {
            Ok(r) => r,
            Err(e) => {
                let msg = e.message().trim().to_string();
                match e.span() {
                    Some(span) => errs.at(span.start, msg),
                    None => errs.list.push(RuleError {
                        file: file.to_string(),
                        line: 0,
                        column: 0,
                        message: msg,
                    }),
                }
                return Err(RuleSetError { errors: errs.list });
            }
        };
        let mut seen = std::collections::HashMap::new();
        let mut rules = Vec::with_capacity(raw.rules.len());
        // Where each rule's table starts (line, column), for its warnings.
        let mut places = std::collections::HashMap::new();
        for r in raw.rules {
            places.insert(
                r.get_ref().id.get_ref().clone(),
                errs.line_col(r.span().start),
            );
            let at = r.get_ref().id.span().start;
            let id = r.get_ref().id.get_ref().clone();
            if let Some(first) = seen.insert(id.clone(), at) {
                let (l, _) = errs.line_col(first);
                errs.at(at, format!("duplicate rule id `{id}` (first at line {l})"));
            }
            if let Some(rule) = compile_rule(r, base, cases, &mut errs) {
                rules.push(rule);
            }
        }
        let tests = match cases {
            true => raw
                .tests
                .into_iter()
                .filter_map(|c| cases::compile_case(c, None, base, &mut errs))
                .collect(),
            false => Vec::new(),
        };
        if !errs.list.is_empty() {
            return Err(RuleSetError { errors: errs.list });
        }
        rules.sort_by_key(|r| r.priority);
        let mut warnings: Vec<RuleError> = rules
            .iter()
            .flat_map(|r| {
                [
                    endless_stop_warning(r),
                    tool_case_warning(r),
                    silent_context_warning(r),
                ]
                .into_iter()
                .flatten()
                .map(|message| RuleError {
                    file: file.to_string(),
                    line: r.line,
                    column: places.get(&r.id).map_or(0, |&(_, c)| c),
                    message,
                })
            })
            .collect();
        warnings.sort_by_key(|w| w.line);
        Ok(RuleSet {
            path: None,
            rules,
            tests,
            warnings,
        })
    }

    /// What loading found questionable without refusing the file, each with
    /// file and line: a `block` rule on Stop/SubagentStop that does not
    /// check `stop_hook_active` (it would block the Stop that follows its
    /// own block too, and the agent would never stop), a tool spec that
    /// names a built-in tool in the wrong case (`bash`), and a `context` or
    /// `warn` on an event that takes no `additionalContext`.
    pub fn warnings(&self) -> &[RuleError] {
        &self.warnings
    }

    /// Evaluates every rule on a payload (docs/contract.md#common-input-fields, docs/contract.md#per-event-input-fields stdin) with the
    /// session `history` before it, merges the matching results as Claude
    /// Code merges several hooks, and says what Claude Code then does (the
    /// newest contract; see [`RuleSet::evaluate_at`]).
    pub fn evaluate(&self, payload: &Value, history: &History) -> Evaluation {
        self.evaluate_at(payload, history, &Version::latest())
    }

    /// [`RuleSet::evaluate`] with the output and outcome as of Claude Code
    /// `version` (the transcript line's `version`).
    pub fn evaluate_at(&self, payload: &Value, history: &History, version: &Version) -> Evaluation {
        let subject = Subject::new(payload, history);
        let rules: Vec<RuleEval> = self.rules.iter().map(|r| r.evaluate(&subject)).collect();
        let matched: Vec<(String, HookResult)> = rules
            .iter()
            .filter_map(|e| e.result.clone().map(|r| (e.id.clone(), r)))
            .collect();
        let combined = combine(&matched);
        let event = subject.event.to_string();
        let (output, outcome) = match &combined.result {
            Some(r) => {
                let out = hook_output_at(&event, version, r);
                let stdout = out
                    .stdout
                    .as_ref()
                    .map(Value::to_string)
                    .unwrap_or_default();
                let mut o = interpret_output_at(
                    &event,
                    version,
                    out.exit_code,
                    &stdout,
                    out.stderr.as_deref().unwrap_or(""),
                );
                let mut why = out.notes.clone();
                why.extend(combined.flags.iter().cloned());
                why.append(&mut o.why);
                o.why = why;
                (out, o)
            }
            None => (
                HookOutput::empty(),
                interpret_output_at(&event, version, 0, "", ""),
            ),
        };
        Evaluation {
            event: event.into(),
            rules,
            combined,
            output,
            outcome,
        }
    }
}

impl Rule {
    /// Its event names joined by `sep`, as written in order
    /// (`PreToolUse|PermissionRequest` for `sep` = `|`).
    pub fn events_joined(&self, sep: &str) -> String {
        let names: Vec<&str> = self.events.iter().map(EventKey::as_str).collect();
        names.join(sep)
    }

    /// Whether this rule can still match once the history is known: its
    /// event and tool hold, and every `only_if` condition that does not
    /// read the history (`prompt`, `touched_file`, `ran_command`) holds.
    /// `false` means no history changes its outcome: it does not match.
    pub fn could_match_before_history(&self, s: &Subject<'_>) -> bool {
        self.event_and_tool_hold(s)
            && self
                .only_if
                .iter()
                .filter(|c| !c.reads_history())
                .all(|c| c.test(s).is_ok())
    }

    /// Whether the subject's event is one of this rule's and its tool (if
    /// any) matches the rule's `tool` spec.
    fn event_and_tool_hold(&self, s: &Subject<'_>) -> bool {
        self.events.iter().any(|e| e == s.event)
            && self
                .tool
                .as_ref()
                .is_none_or(|spec| s.tool_name.is_some_and(|t| tool_name_matches(t, spec)))
    }

    /// Whether this rule may match some PreToolUse or PermissionRequest
    /// payload of the call whose `tool_name` and `tool_input` `s` was built
    /// from (a subject of those alone, its `hook_event_name` one of those
    /// events): its event and tool hold, and every `only_if` condition may
    /// hold on the call ([`Condition::may_hold_on_call`]: those that read
    /// the call alone are tested, `file_path` for any `cwd`, the others
    /// taken as holding). `false` means no context of the call (its `cwd`,
    /// agent, permission mode, history) makes the rule match it: what a
    /// backtest's line prefilter asks of each candidate call
    /// ([`crate::hooks::replay::LineFilter`]).
    pub fn may_match_call(&self, s: &Subject<'_>) -> bool {
        self.event_and_tool_hold(s) && self.only_if.iter().all(|c| c.may_hold_on_call(s))
    }

    /// Evaluates this rule alone: the checks in order (event, tool,
    /// `only_if` in a fixed order, cheap checks first: `stop_hook_active`,
    /// `program`, then `command` and the rest; then `skip_if`), stopping at
    /// the first that fails; the result when all held.
    pub fn evaluate(&self, s: &Subject<'_>) -> RuleEval {
        let mut steps = Vec::new();
        // A rule that stops early did not match; one that reaches its
        // action matched, even when its rewrite turns out a no-op.
        let unread = s.read.unread_note();
        let mut on_unread = false;
        let eval = |steps: Vec<Step>, result: Option<HookResult>, on_unread: bool| RuleEval {
            id: self.id.clone(),
            matched: false,
            steps,
            result,
            unread: unread.clone().filter(|_| on_unread),
        };
        let event_ok = self.events.iter().any(|e| e == s.event);
        steps.push(Step {
            check: format!("event {}", self.events_joined("|")),
            ok: event_ok,
            detail: if event_ok {
                String::new()
            } else {
                format!(
                    "(got {})",
                    if s.event.is_empty() { "none" } else { s.event }
                )
            },
        });
        if !event_ok {
            return eval(steps, None, false);
        }
        if let Some(spec) = &self.tool {
            let ok = s.tool_name.is_some_and(|t| tool_name_matches(t, spec));
            steps.push(Step {
                check: format!("tool {spec}"),
                ok,
                detail: match (ok, s.tool_name) {
                    (true, Some(t)) if t != spec => format!("({t})"),
                    (true, _) => String::new(),
                    (false, Some(t)) => format!("(got {t})"),
                    (false, None) => "(no tool)".into(),
                },
            });
            if !ok {
                return eval(steps, None, false);
            }
        }
        let approves = self.action.approves();
        for c in &self.only_if {
            let mut outcome = c.test(s);
            if let Some(note) = unread.as_deref().filter(|_| c.reads_calls()) {
                on_unread = true;
                if approves && outcome.is_ok() {
                    outcome = Err(format!(
                        "{note}; {} does not rest on a command it could not read whole",
                        self.action.rule_noun()
                    ));
                }
            }
            if approves
                && outcome.is_ok()
                && let Err(why) = c.on_every_call(s, &self.action.rule_noun())
            {
                outcome = Err(why);
            }
            match outcome {
                Ok(detail) => steps.push(Step {
                    check: c.label(),
                    ok: true,
                    detail,
                }),
                Err(detail) => {
                    steps.push(Step {
                        check: c.label(),
                        ok: false,
                        detail: format!("({detail})"),
                    });
                    return eval(steps, None, on_unread);
                }
            }
        }
        // A skip condition reads as what happened to it, so that ✓ (the
        // rule went on) cannot be taken for "the skip matched":
        // `skip_if subagent = true — not matched ✓`, or
        // `skip_if subagent = true — matched ✗ (agent_id a7) → rule skipped`.
        //
        // On a command not parsed whole a skip through the calls is
        // decided for caution: a guard is not skipped, an approving rule is.
        for c in &self.skip_if {
            let mut outcome = c.test(s);
            let mut kept = String::new();
            // A guard's skip covers the whole line or nothing: matched on
            // one call, it must hold on the others too.
            if !approves
                && outcome.is_ok()
                && let Err(why) = c.skip_on_every_call(s)
            {
                kept = format!("({why})");
                outcome = Err(String::new());
            }
            if let Some(note) = unread.as_deref().filter(|_| c.reads_calls()) {
                on_unread = true;
                let noun = self.action.rule_noun();
                match (approves, outcome.is_ok()) {
                    (false, true) => {
                        kept = format!(
                            "({note}; {noun} is not skipped on a command it could not read whole)"
                        );
                        outcome = Err(String::new());
                    }
                    (true, false) => {
                        outcome = Ok(format!(
                            "({note}; {noun} is skipped on a command it could not read whole)"
                        ));
                    }
                    _ => {}
                }
            }
            match outcome {
                Ok(detail) => {
                    steps.push(Step {
                        check: format!("skip_if {} — matched", c.label()),
                        ok: false,
                        detail: format!("{detail} → rule skipped").trim_start().to_string(),
                    });
                    return eval(steps, None, on_unread);
                }
                Err(_) => steps.push(Step {
                    check: format!("skip_if {} — not matched", c.label()),
                    ok: true,
                    detail: kept,
                }),
            }
        }
        let result = self.result(s, &mut steps);
        RuleEval {
            matched: true,
            ..eval(steps, result, on_unread)
        }
    }

    fn result(&self, s: &Subject<'_>, steps: &mut Vec<Step>) -> Option<HookResult> {
        let reason = self.reason.as_deref();
        let mut r = match self.action {
            RuleAction::Block => {
                let mut r = HookResult::of(Action::Block, reason);
                if let (Some(m), Some(n)) = (r.message.as_mut(), &self.note) {
                    m.push('\n');
                    m.push_str(n);
                }
                r
            }
            RuleAction::Warn => HookResult::of(Action::Warn, reason),
            RuleAction::Context => HookResult {
                approve: false,
                ..HookResult::of(Action::Warn, reason)
            },
            RuleAction::Allow => HookResult::of(Action::Allow, reason),
            RuleAction::Rewrite => {
                let rw = self.rewrite.as_ref()?;
                match rewrite_input(rw, s) {
                    Some(updated) => HookResult {
                        updated_input: Some(updated),
                        note: self.note.clone().or_else(|| self.reason.clone()),
                        ..HookResult::of(Action::Rewrite, None)
                    },
                    None => {
                        steps.push(Step {
                            check: "rewrite".into(),
                            ok: false,
                            detail: "(leaves the input unchanged: no-op)".into(),
                        });
                        return None;
                    }
                }
            }
        };
        r.system_message = self.message.clone();
        Some(r)
    }
}

/// The whole tool input with the rewrite applied (Claude Code's
/// `updatedInput` replaces the input, so every other field is kept);
/// `None` when nothing changes.
fn rewrite_input(rw: &Rewrite, s: &Subject<'_>) -> Option<Value> {
    let mut input = s.payload.get("tool_input")?.clone();
    let mut changed = false;
    let mut apply = |v: &mut Value| {
        if let Some(text) = v.as_str() {
            let Some(pattern) = rw.pattern.regex() else {
                return;
            };
            let new = pattern.replace_all(text, rw.replace.as_str());
            if new != text {
                *v = Value::String(new.into_owned());
                changed = true;
            }
        }
    };
    let obj = input.as_object_mut()?;
    if rw.content {
        for k in ["content", "new_string", "new_source"] {
            if let Some(v) = obj.get_mut(k) {
                apply(v);
            }
        }
        if let Some(edits) = obj.get_mut("edits").and_then(Value::as_array_mut) {
            for e in edits {
                if let Some(v) = e.get_mut("new_string") {
                    apply(v);
                }
            }
        }
    } else if let Some(v) = obj.get_mut("command") {
        apply(v);
    }
    changed.then_some(input)
}

#[cfg(test)]
mod tests;
