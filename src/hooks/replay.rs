//! Hook replay (issue 8 §4): one event of a session rebuilt as the hook's
//! stdin ([`crate::hooks::events::payload`]), the session history before it
//! ([`History`]), a rule set's evaluation with the why
//! ([`RuleSet::evaluate_at`]), and what the transcript itself recorded about
//! the hooks that really ran there ([`Recorded`]). [`replay`] is the one
//! entry point the CLI (`hookscope replay`), the TUI replay pane and the MCP
//! server (`replay_hook`) call; [`backtest`] runs every event of many
//! sessions through a rule set.
//!
//! # History before the event
//! The history is what the session did *before* the event's position:
//! * on the main thread, the main thread's calls on earlier lines, plus the
//!   calls of every subagent whose spawning call's result came earlier;
//! * inside a subagent (the payload has an `agent_id`), the main thread's
//!   calls before the spawning call, the subagents finished before it, and
//!   the subagent's own earlier calls.
//!
//! Only calls with a result that is not an error count (a denied `rm -rf` did
//! not run; a call cut off without a result did not finish). `touched_files`
//! takes each Edit/Write/MultiEdit/NotebookEdit/apply_patch call's path
//! ([`crate::tools::file_path_of`], write and edit kinds only),
//! `ran_commands` each shell call's command line as written (the rules parse
//! it with [`crate::shell`]), and `turn_prompt` the opening prompt of the
//! main-thread turn the event belongs to (`None` for the prompt-less lead
//! turn of a resumed file).
//!
//! # What the transcript recorded
//! Claude Code 2.1.332 leaves these traces of hooks (corpus README "How hook
//! outcomes show up"), which the loader keeps as `Event::Note { label:
//! "hook" }` lines:
//! * `attachment` lines `hook_blocking_error`, `hook_non_blocking_error`,
//!   `hook_additional_context`, `hook_success` with output (text
//!   `"<hookName> blocked: …"`, `"… hook error: …"`, `"… added context: …"`,
//!   `"… output: …"`);
//! * `system/stop_hook_summary` lines **with** `hookErrors` (`"Stop hook:
//!   …"`; a clean summary is not kept by the loader, so a Stop whose hooks
//!   said nothing shows no record);
//! * the `Stop hook feedback:` user line.
//!
//! A note belongs to the event when its text starts with the event's name
//! (`hookName` is `PreToolUse:Bash`, `Stop`, `SessionStart:startup`, …) and
//! it lies in the same file from the event's anchor line up to the next
//! anchor of the same event there. For tool events the call's own
//! `tool_result` is added when the hook decided it (its
//! `permissionDecision.source` is `hook`, or its text starts with
//! `<Event>:`, as `PreToolUse:Bash hook error: …`).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::hooks::contract::Version;
use crate::hooks::events::MAX_FILE_BYTES;
use crate::hooks::events::{At, EventName, Payload, PayloadError, all_payloads, payload};
use crate::hooks::rules::{Condition, Evaluation, History, RuleSet, verdict};
use crate::query::prefilter::is_plain;
use crate::tools::{ToolCall, ToolKind, expand_tool_names, file_path_of};
use crate::transcript::fsread::read_capped;
use crate::transcript::{
    Agent, Event, Session, SessionRef, ToolCallRecord, Turn, short_session_id,
};

/// One trace of a hook that really ran, as the transcript recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recorded {
    /// Where it comes from: `attachment` (a `hook_*` attachment line),
    /// `stop_hook_summary` (a summary with `hookErrors`), `hook_feedback`
    /// (the `Stop hook feedback:` user line) or `tool_result` (the call's
    /// result, written by the hook's decision).
    pub source: &'static str,
    /// 1-based line in the event's file ([`Payload::source_path`]).
    pub line: usize,
    /// The text as the loader keeps it (see the module docs).
    pub text: String,
}

/// An event replayed: the payload, the history before it, the rule set's
/// evaluation (when a rule set was given) and the transcript's own record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replay {
    /// The rebuilt stdin, with its left-out fields and source line.
    pub payload: Payload,
    /// The session before the event (module docs "History").
    pub history: History,
    /// Each rule's result with the why, the combined decision, the hook
    /// output JSON and the outcome, as of the line's Claude Code version;
    /// `None` without a rule set.
    pub evaluation: Option<Evaluation>,
    /// What the transcript recorded about the hooks that ran at this event,
    /// in line order (empty when nothing was recorded).
    pub recorded: Vec<Recorded>,
}

/// Why an event could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The payload could not be rebuilt (not Claude Code, `at` names
    /// nothing, the event does not occur there; the message says what
    /// exists).
    #[error(transparent)]
    Payload(#[from] PayloadError),
}

/// Replays `event` at `at` (the session's last such event for
/// [`At::Last`]) through `rules`.
///
/// # Errors
/// [`ReplayError::Payload`] as [`payload`] refuses.
pub fn replay(
    session: &Session,
    event: EventName,
    at: &At,
    rules: Option<&RuleSet>,
) -> Result<Replay, ReplayError> {
    let built = payload(session, event, at)?;
    let history = history_before(session, &built);
    let evaluation = rules.map(|r| evaluate(r, &built, &history));
    let recorded = recorded_at(session, &built);
    Ok(Replay {
        payload: built,
        history,
        evaluation,
        recorded,
    })
}

fn evaluate(rules: &RuleSet, p: &Payload, history: &History) -> Evaluation {
    let version = p
        .claude_version
        .as_deref()
        .map_or_else(Version::latest, Version::parse);
    rules.evaluate_at(&p.json, history, &version)
}

/// The thread a payload is in: `Some(i)` for the subagent whose `agent_id`
/// the payload carries, else the main thread.
fn thread_of(session: &Session, p: &Payload) -> Option<usize> {
    let id = p.json.get("agent_id").and_then(Value::as_str)?;
    session
        .subagents
        .iter()
        .position(|s| s.agent_id.as_deref() == Some(id))
}

/// Line of the main-thread call that spawned subagent `i`.
fn spawn_line(session: &Session, i: usize) -> Option<usize> {
    let id = session.subagents.get(i)?.spawn_tool_use_id.as_deref()?;
    session
        .tool_calls()
        .find(|r| r.tool_use_id == id)
        .map(|r| r.line)
}

/// Line of the result of the call that spawned subagent `i` (when it
/// finished).
fn spawn_end(session: &Session, i: usize) -> Option<usize> {
    let id = session.subagents.get(i)?.spawn_tool_use_id.as_deref()?;
    session
        .tool_calls()
        .find(|r| r.tool_use_id == id)
        .and_then(|r| r.result.as_ref())
        .map(|r| r.line)
}

fn done_ok(r: &ToolCallRecord) -> bool {
    r.result.as_ref().is_some_and(|res| !res.is_error)
}

fn add_call(h: &mut History, r: &ToolCallRecord) {
    if !done_ok(r) {
        return;
    }
    match &r.call {
        ToolCall::Bash(b) => h.ran_commands.push(b.command.clone()),
        call if matches!(r.tool_kind, ToolKind::Edit | ToolKind::Write) => {
            if let Some(p) = file_path_of(call) {
                h.touched_files.push(p.to_string());
            }
        }
        _ => {}
    }
}

/// The main-thread position of a payload: its line on the main thread, or
/// for a subagent's event the line of its spawning call (0 when unknown).
fn main_position(session: &Session, thread: Option<usize>, p: &Payload) -> usize {
    match thread {
        None => p.source_line,
        Some(i) => spawn_line(session, i).unwrap_or(0),
    }
}

/// The session history before the payload's event (module docs
/// "History").
pub fn history_before(session: &Session, p: &Payload) -> History {
    let thread = thread_of(session, p);
    let pos = main_position(session, thread, p);
    let mut h = History::default();
    for r in session.tool_calls().filter(|r| r.line < pos) {
        add_call(&mut h, r);
    }
    for (i, sub) in session.subagents.iter().enumerate() {
        if Some(i) == thread {
            continue;
        }
        if spawn_end(session, i).is_some_and(|end| end < pos) {
            sub.tool_calls().for_each(|r| add_call(&mut h, r));
        }
    }
    if let Some(i) = thread
        && let Some(sub) = session.subagents.get(i)
    {
        for r in sub.tool_calls().filter(|r| r.line < p.source_line) {
            add_call(&mut h, r);
        }
    }
    h.turn_prompt = session
        .turns
        .iter()
        .rfind(|t| t.prompt_line.is_some_and(|l| l <= pos))
        .map(|t| t.prompt.clone());
    h
}

fn names_event(text: &str, event: EventName) -> bool {
    text.strip_prefix(event.as_str())
        .is_some_and(|rest| rest.starts_with(':') || rest.starts_with(' '))
}

fn note_source(text: &str) -> &'static str {
    if text.starts_with("Stop hook feedback:") || text.starts_with("SubagentStop hook feedback:") {
        "hook_feedback"
    } else if text.starts_with("Stop hook: ") || text.starts_with("SubagentStop hook: ") {
        "stop_hook_summary"
    } else {
        "attachment"
    }
}

/// What the transcript recorded about hooks at the payload's event (module
/// docs "What the transcript recorded").
pub fn recorded_at(session: &Session, p: &Payload) -> Vec<Recorded> {
    let thread = thread_of(session, p);
    let turns: &[Turn] = match thread {
        None => &session.turns,
        Some(i) => session.subagents.get(i).map_or(&[][..], |s| &s.turns[..]),
    };
    let end = all_payloads(session, p.event)
        .iter()
        .filter(|o| o.source_path == p.source_path && o.source_line > p.source_line)
        .map(|o| o.source_line)
        .min()
        .unwrap_or(usize::MAX);
    let mut out: Vec<Recorded> = turns
        .iter()
        .flat_map(|t| &t.events)
        .filter_map(|e| match e {
            Event::Note {
                label, text, line, ..
            } if label == "hook"
                && *line >= p.source_line
                && *line < end
                && names_event(text, p.event) =>
            {
                Some(Recorded {
                    source: note_source(text),
                    line: *line,
                    text: text.clone(),
                })
            }
            _ => None,
        })
        .collect();
    if let Some(id) = p.json.get("tool_use_id").and_then(Value::as_str) {
        let lines = match thread {
            None => &session.lines,
            Some(i) => session
                .subagents
                .get(i)
                .map_or(&session.lines, |s| &s.lines),
        };
        let by_hook = lines
            .permission_decisions
            .get(id)
            .and_then(|d| d.get("source"))
            .and_then(Value::as_str)
            == Some("hook");
        let record = turns
            .iter()
            .flat_map(Turn::tool_calls)
            .find(|r| r.tool_use_id == id);
        if let Some(res) = record.and_then(|r| r.result.as_ref())
            && ((by_hook
                && matches!(
                    p.event,
                    EventName::PreToolUse | EventName::PermissionRequest
                ))
                || names_event(&res.text, p.event))
        {
            out.push(Recorded {
                source: "tool_result",
                line: res.line,
                text: res.text.clone(),
            });
        }
    }
    out.sort_by_key(|r| r.line);
    out
}

// ---- backtest --------------------------------------------------------------

/// Most examples kept per rule and verdict in a [`Backtest`].
pub const MAX_EXAMPLES: usize = 3;

/// One event a rule matched, as an example in a backtest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Example {
    /// The session's short id ([`short_session_id`]).
    pub session: String,
    /// The event name.
    pub event: String,
    /// The payload's `tool_use_id`, for tool events.
    pub tool_use_id: Option<String>,
    /// The `--at` form that names this firing
    /// ([`crate::hooks::events::At::parse`]): the `tool_use_id` for a tool
    /// event, else `line:N` (the 1-based line of the main transcript file it
    /// is anchored at); `None` for a non-tool event inside a subagent.
    pub at: Option<String>,
    /// One line: the tool and its command or path, or the prompt.
    pub summary: String,
    /// The rule's verdict (`block`, `warn`, `context`, `allow`, `rewrite`).
    pub verdict: String,
    /// The source file and 1-based line of the event.
    pub source: String,
}

/// A rule's tally over a backtest: per verdict, how many events it matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct RuleTally {
    /// The rule id.
    pub id: String,
    /// Events per verdict (`block`, `warn`, `context`, `allow`, `rewrite`),
    /// only verdicts that occurred.
    pub counts: BTreeMap<String, usize>,
    /// The first [`MAX_EXAMPLES`] examples per verdict, in session order.
    pub examples: Vec<Example>,
}

/// The result of running every event of many sessions through a rule set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Backtest {
    /// Claude Code sessions looked at (skipped ones included).
    pub sessions: usize,
    /// Sessions skipped by the prefilter without loading ([`could_match`]).
    pub skipped: usize,
    /// Sessions that could not be read or loaded (left out of the counts).
    pub unreadable: usize,
    /// Events evaluated (payloads of the events the rules name).
    pub events: usize,
    /// Per rule, in the rule set's evaluation order.
    pub rules: Vec<RuleTally>,
    /// The merged decision over all rules, per verdict.
    pub combined: BTreeMap<String, usize>,
}

impl Backtest {
    /// An empty tally for `rules`.
    pub fn new(rules: &RuleSet) -> Backtest {
        Backtest {
            rules: rules
                .rules
                .iter()
                .map(|r| RuleTally {
                    id: r.id.clone(),
                    ..RuleTally::default()
                })
                .collect(),
            ..Backtest::default()
        }
    }

    /// Adds `other` (a later batch of sessions) to this tally: counts sum,
    /// examples are kept in order up to [`MAX_EXAMPLES`] per verdict.
    pub fn merge(&mut self, other: Backtest) {
        self.sessions += other.sessions;
        self.skipped += other.skipped;
        self.unreadable += other.unreadable;
        self.events += other.events;
        for (k, n) in other.combined {
            *self.combined.entry(k).or_default() += n;
        }
        for (mine, theirs) in self.rules.iter_mut().zip(other.rules) {
            for (k, n) in theirs.counts {
                *mine.counts.entry(k).or_default() += n;
            }
            for ex in theirs.examples {
                mine.push_example(ex);
            }
        }
    }
}

impl RuleTally {
    fn push_example(&mut self, ex: Example) {
        let same = self
            .examples
            .iter()
            .filter(|e| e.verdict == ex.verdict)
            .count();
        if same < MAX_EXAMPLES {
            self.examples.push(ex);
        }
    }
}

/// Whether any rule needs the session history (a `prompt`, `touched_file`
/// or `ran_command` condition).
fn needs_history(rules: &RuleSet) -> bool {
    rules.rules.iter().any(|r| {
        r.only_if.iter().chain(&r.skip_if).any(|c| {
            matches!(
                c,
                Condition::Prompt(_) | Condition::TouchedFile(..) | Condition::RanCommand(_)
            )
        })
    })
}

/// The prefilter of a backtest: whether any rule of `rules` can match an
/// event of a session whose files' bytes are `files`.
///
/// A rule without a `tool` spec can always match. A rule with one matches
/// only payloads whose `tool_name` passes [`crate::tools::tool_name_matches`]:
/// the name is one of [`expand_tool_names`] of the spec (aliases and
/// `MCP_BEHAVES_LIKE` segments included) or an `mcp__<server>__<name>` that
/// ends in one. Either way that name is a substring of the `tool_use`
/// block's `name`, which Claude Code writes as-is (tool names are ASCII
/// letters, digits, `_` and `-`, which JSON never escapes). So a session in
/// whose files none of the spec's names occurs cannot be matched by that
/// rule.
///
/// A rule whose `only_if` has an `input_contains` whose values are all
/// plain ([`crate::query::prefilter::is_plain`]: printable ASCII without
/// `"`, `\`, `<`, `>`, `&`, which no JSON writer escapes) matches only a
/// payload whose `tool_input` holds a string containing one of them, and
/// `tool_input` is the recorded `tool_use` input, so one of the values occurs
/// in the files' bytes as is. When neither kind of needle occurs for any
/// rule, the session is skipped unloaded.
pub fn could_match(rules: &RuleSet, files: &[&[u8]]) -> bool {
    let occurs = |needle: &str| {
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        files.iter().any(|f| finder.find(f).is_some())
    };
    rules.rules.iter().any(|r| {
        let tool_ok = match &r.tool {
            None => true,
            Some(spec) => expand_tool_names(spec).iter().any(|n| occurs(n)),
        };
        let input_ok = r.only_if.iter().all(|c| match c {
            Condition::InputContains(needles) if needles.iter().all(|n| is_plain(n)) => {
                needles.iter().any(|n| occurs(n))
            }
            _ => true,
        });
        tool_ok && input_ok
    })
}

/// The events a rule set names, in [`EventName::ALL`] order (unknown names
/// cannot occur: the loader refuses them).
pub fn rule_events(rules: &RuleSet) -> Vec<EventName> {
    EventName::ALL
        .iter()
        .copied()
        .filter(|e| {
            rules
                .rules
                .iter()
                .any(|r| r.events.iter().any(|n| n == e.as_str()))
        })
        .collect()
}

fn summary_of(p: &Payload) -> String {
    let j = &p.json;
    let s = |k: &str| j.get(k).and_then(Value::as_str);
    let input = j.get("tool_input");
    let one_line = |t: &str| {
        let t = t.replace('\n', "⏎");
        if t.chars().count() > 80 {
            format!("{}…", t.chars().take(80).collect::<String>())
        } else {
            t
        }
    };
    if let Some(tool) = s("tool_name") {
        let detail = input
            .and_then(|i| {
                ["command", "file_path", "notebook_path", "path", "pattern"]
                    .iter()
                    .find_map(|k| i.get(*k).and_then(Value::as_str))
            })
            .map(one_line)
            .unwrap_or_default();
        return format!("{tool} {detail}").trim_end().to_string();
    }
    if let Some(prompt) = s("prompt") {
        return one_line(prompt);
    }
    if let Some(msg) = s("last_assistant_message") {
        return format!("after: {}", one_line(msg));
    }
    p.event.to_string()
}

/// Runs every event of `session` named by `rules` through them and tallies
/// per rule (a [`Backtest`] of one session, not counting it as skipped).
pub fn backtest_session(session: &Session, rules: &RuleSet) -> Backtest {
    let mut bt = Backtest::new(rules);
    // Payloads carry the resolved path of the file they are anchored in.
    let main_path = std::fs::canonicalize(&session.path).unwrap_or_else(|_| session.path.clone());
    bt.sessions = 1;
    let with_history = needs_history(rules);
    for event in rule_events(rules) {
        for p in all_payloads(session, event) {
            bt.events += 1;
            let history = if with_history {
                history_before(session, &p)
            } else {
                History::default()
            };
            let eval = evaluate(rules, &p, &history);
            let v = eval.verdict();
            if v != "none" {
                *bt.combined.entry(v.to_string()).or_default() += 1;
            }
            for (tally, re) in bt.rules.iter_mut().zip(&eval.rules) {
                let Some(result) = &re.result else {
                    continue;
                };
                let v = verdict(result).to_string();
                *tally.counts.entry(v.clone()).or_default() += 1;
                let tool_use_id = p
                    .json
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                tally.push_example(Example {
                    session: short_session_id(&session.id).to_string(),
                    event: event.to_string(),
                    at: tool_use_id.clone().or_else(|| {
                        (p.source_path == main_path).then(|| format!("line:{}", p.source_line))
                    }),
                    tool_use_id,
                    summary: summary_of(&p),
                    verdict: v,
                    source: format!("{}:{}", p.source_path.display(), p.source_line),
                });
            }
        }
    }
    bt
}

/// Backtests `sessions` (already loaded) in order; see [`backtest_session`].
pub fn backtest(sessions: &[Session], rules: &RuleSet) -> Backtest {
    let mut bt = Backtest::new(rules);
    for s in sessions {
        bt.merge(backtest_session(s, rules));
    }
    bt
}

/// Backtests discovered sessions in parallel (rayon), Claude Code ones only
/// (hook payloads follow its contract; others are not counted). Each
/// session's files (main transcript and subagent files, each at most
/// [`crate::hooks::events::MAX_FILE_BYTES`]) are first scanned by
/// [`could_match`]; a session no rule can match is counted in
/// [`Backtest::skipped`] without being loaded. Results are merged in the
/// order of `sessions`, so the examples do not depend on thread timing.
/// `progress` is called with the number of sessions done after each one
/// (from any thread).
pub fn backtest_refs(
    sessions: &[SessionRef],
    rules: &RuleSet,
    progress: &(dyn Fn(usize) + Sync),
) -> Backtest {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let done = AtomicUsize::new(0);
    let claude: Vec<&SessionRef> = sessions
        .iter()
        .filter(|s| s.agent == Agent::ClaudeCode)
        .collect();
    let parts: Vec<Backtest> = claude
        .par_iter()
        .map(|r| {
            let bt = backtest_ref(r, rules);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1);
            bt
        })
        .collect();
    let mut total = Backtest::new(rules);
    for part in parts {
        total.merge(part);
    }
    total
}

/// One session of [`backtest_refs`]: prefilter, load, tally.
fn backtest_ref(r: &SessionRef, rules: &RuleSet) -> Backtest {
    let mut bt = Backtest::new(rules);
    bt.sessions = 1;
    let read = |p: &std::path::Path| read_capped(p, MAX_FILE_BYTES);
    let mut files = Vec::with_capacity(1 + r.subagent_files.len());
    for p in std::iter::once(&r.path).chain(&r.subagent_files) {
        match read(p) {
            Ok(bytes) => files.push(bytes),
            Err(_) => {
                bt.unreadable = 1;
                return bt;
            }
        }
    }
    let slices: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
    if !could_match(rules, &slices) {
        bt.skipped = 1;
        return bt;
    }
    drop(files);
    match crate::transcript::load(r) {
        Ok(session) => backtest_session(&session, rules),
        Err(_) => {
            bt.unreadable = 1;
            bt
        }
    }
}
