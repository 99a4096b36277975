//! Hook replay (docs/replay-and-backtest.md#replay-and-backtest): one event of a session rebuilt as the hook's
//! stdin ([`crate::hooks::events::payload`]), the session history before it
//! ([`History`]), a rule set's evaluation with the why
//! ([`RuleSet::evaluate_at`]), and what the transcript itself recorded about
//! the hooks that really ran there ([`Recorded`]). [`replay`] is what the
//! CLI (`hookscope replay`), the TUI replay pane and the MCP server
//! (`replay_hook`) call; the payload is rebuilt in the session's hook
//! dialect ([`crate::hooks::dialect`]), and a Codex session's is not
//! evaluated (rule sets follow Claude Code's contract). [`backtest`] and
//! [`backtest_refs`] run every event of many sessions through a rule set
//! (`replay/backtest.rs`).
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
//! ([`crate::tools::file_path_of`], write and edit kinds only; for a patch,
//! its first file), and a shell call that feeds a patch to `apply_patch`
//! (Codex intercepts it as a file change) counts there too;
//! `ran_commands` each other shell call's command line as written (the rules parse
//! it with [`crate::shell`]), and `turn_prompt` the opening prompt of the
//! main-thread turn the event belongs to (`None` for the prompt-less lead
//! turn of a resumed file). Inside a subagent `turn_prompt` is the
//! subagent's own opening prompt (the first user message of its file, which
//! is the spawning call's `prompt`): the subagent's calls serve that task,
//! and a rule's `prompt` condition asks what the agent making the call was
//! told (docs/contract.md#per-event-input-fields: a subagent's events carry no `prompt`, so this is
//! hookscope's choice); a subagent without a recorded prompt falls back to
//! the main turn's.
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

mod backtest;
pub use backtest::*;
pub mod against;
pub mod exec_all;
pub mod report_lines;

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use crate::hooks::contract::Version;
use crate::hooks::cwd_map::CwdMap;
use crate::hooks::events::MAX_FILE_BYTES;
use crate::hooks::events::{At, EventName, Payload, PayloadError, all_payloads};
use crate::hooks::rules::{Condition, Evaluation, History, RuleSet, Subject, verdict};
use crate::query::prefilter::is_plain;
use crate::tools::{ToolCall, ToolKind, expand_tool_names, file_path_of};
use crate::transcript::{
    Agent, Event, Session, SessionRef, ToolCallRecord, Turn, short_session_id,
};

/// One trace of a hook that really ran, as the transcript recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recorded {
    /// Where it comes from: `attachment` (a `hook_*` attachment line),
    /// `stop_hook_summary` (a summary with `hookErrors`), `hook_feedback`
    /// (the `Stop hook feedback:` user line), `tool_result` (the call's
    /// result, written by the hook's decision), `prompt_rejected` (the line
    /// recording a prompt a hook rejected), `updated_output` (a hook
    /// whose stdout replaced the output the model saw:
    /// `the model saw this output instead: …`) or `droid_hook` (a Droid
    /// hook line, as [`crate::transcript::hook_activity::HookActivity::what`]
    /// reads it).
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
    /// The hook dialect the payload is in (the session's agent's).
    pub dialect: crate::hooks::dialect::Dialect,
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
/// [`ReplayError::Payload`] as [`crate::hooks::dialect::Dialect::payload`] refuses.
pub fn replay(
    session: &Session,
    event: EventName,
    at: &At,
    rules: Option<&RuleSet>,
) -> Result<Replay, ReplayError> {
    replay_with(session, event, at, rules, &CwdMap::default())
}

/// [`replay`] with the recorded folders of `map` (`--cwd-map OLD=NEW`)
/// mapped to local ones in the payload before the rule set sees it
/// ([`CwdMap::map_value`]).
///
/// # Errors
/// [`ReplayError::Payload`] as [`crate::hooks::dialect::Dialect::payload`] refuses.
pub fn replay_with(
    session: &Session,
    event: EventName,
    at: &At,
    rules: Option<&RuleSet>,
    map: &CwdMap,
) -> Result<Replay, ReplayError> {
    let dialect = crate::hooks::dialect::Dialect::for_agent(session.agent);
    let mut built = dialect.payload(session, event, at)?;
    map.map_value(&mut built.json);
    let history = history_before(session, &built);
    let evaluation = rules.map(|r| {
        let mut e = evaluate(r, &built, &history);
        // Codex reads its own answers (docs/live-hook.md#agents): the
        // same evaluation, answered as `hook --agent codex` answers.
        if dialect == crate::hooks::dialect::Dialect::Codex {
            crate::hooks::codex::answer::answer_in_codex(&mut e);
        }
        e
    });
    let recorded = recorded_at(session, &built);
    Ok(Replay {
        dialect,
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

fn done_ok(r: &ToolCallRecord) -> bool {
    r.result.as_ref().is_some_and(|res| !res.is_error)
}

/// What one finished call adds to a [`History`]: a Bash command it ran, or
/// a file it edited or wrote.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) enum Trace {
    Ran(String),
    Touched(String),
}

/// What a finished call of `thread` adds to a history: what it ran (the
/// input a PreToolUse hook rewrote it to, [`Session::ran_input`], else the
/// model's).
pub(crate) fn trace_of(
    session: &Session,
    thread: Option<usize>,
    r: &ToolCallRecord,
) -> Option<Trace> {
    trace_or(session, thread, r, || call_trace(&r.call, r.tool_kind))
}

/// [`trace_of`] with `as_asked`, the trace of the call as the model asked
/// it, for a call whose record lacks its input (a call read before a
/// checkpoint, [`crate::hooks::live`]).
pub(crate) fn trace_or(
    session: &Session,
    thread: Option<usize>,
    r: &ToolCallRecord,
    as_asked: impl FnOnce() -> Option<Trace>,
) -> Option<Trace> {
    if !done_ok(r) {
        return None;
    }
    match session.ran_input(thread, r) {
        Some(input) => {
            let rewritten =
                crate::tools::parse_tool_call(r.name(), Some(input), crate::tools::OnError::Other)
                    .ok()?;
            call_trace(&rewritten, r.tool_kind)
        }
        None => as_asked(),
    }
}

/// What `call` (of kind `kind`) adds to a history once it ran.
pub(crate) fn call_trace(call: &ToolCall, kind: ToolKind) -> Option<Trace> {
    match call {
        // A shell call that feeds a patch to `apply_patch` is a file
        // change (Codex intercepts it as one): it touched the patch's file.
        ToolCall::Bash(_) if crate::tools::apply_patch_text(call).is_some() => {
            file_path_of(call).map(|p| Trace::Touched(p.to_string()))
        }
        ToolCall::Bash(b) => Some(Trace::Ran(b.command.clone())),
        call if matches!(kind, ToolKind::Edit | ToolKind::Write) => {
            file_path_of(call).map(|p| Trace::Touched(p.to_string()))
        }
        _ => None,
    }
}

fn add_trace(h: &mut History, t: &Trace, want: Wanted) {
    match t {
        Trace::Ran(c) if want.ran_commands => h.ran_commands.push(c.clone()),
        Trace::Touched(p) if want.touched_files => h.touched_files.push(p.clone()),
        _ => {}
    }
}

/// Which lists of a [`History`] [`HistoryIndex::before_only`] fills (the
/// turn prompt is always set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wanted {
    /// Fill [`History::touched_files`] (a `touched_file` condition).
    pub touched_files: bool,
    /// Fill [`History::ran_commands`] (a `ran_command` condition).
    pub ran_commands: bool,
}

impl Wanted {
    /// Both lists.
    pub const ALL: Wanted = Wanted {
        touched_files: true,
        ran_commands: true,
    };
}

/// Keeps the first of each equal trace, in order.
fn first_of_each(traces: &mut Vec<(usize, Trace)>) {
    let mut seen = std::collections::HashSet::new();
    traces.retain(|(_, t)| seen.insert(t.clone()));
}

/// One subagent in a [`HistoryIndex`].
#[derive(Debug, Clone)]
struct SubTraces {
    agent_id: Option<String>,
    /// Line of its spawning call on the main thread.
    spawn_line: Option<usize>,
    /// Line of its spawning call's result (when it finished).
    spawn_end: Option<usize>,
    /// Its calls' traces with their lines, in call order.
    traces: Vec<(usize, Trace)>,
    /// Its opening prompt (the first user message of its file: the spawn's
    /// `prompt`).
    prompt: Option<String>,
}

/// A session's history, indexed once (the calls' traces with their lines,
/// each subagent's spawn and end lines) so that the history before each of
/// many payloads ([`HistoryIndex::before`]) is assembled without walking the
/// session again: a backtest builds one per session instead of rescanning
/// every call (and every spawn) per payload.
#[derive(Debug, Clone)]
pub struct HistoryIndex {
    /// Main-thread traces with their lines, in call order.
    main: Vec<(usize, Trace)>,
    /// Whether `main` is in line order (then a prefix is cut by binary
    /// search).
    main_sorted: bool,
    subs: Vec<SubTraces>,
    /// Main-thread turns with an opening prompt: (prompt line, prompt).
    prompts: Vec<(usize, String)>,
}

impl HistoryIndex {
    /// Indexes `session` (one walk over its calls).
    pub fn new(session: &Session) -> HistoryIndex {
        HistoryIndex::indexed(session, true)
    }

    /// The index of `session`'s turn prompts alone (its subagents'
    /// prompts, spawns and the main turns' prompts; no call's trace): what
    /// [`HistoryIndex::turn_prompt_of`] reads, without reading any command.
    pub fn prompts_only(session: &Session) -> HistoryIndex {
        HistoryIndex::indexed(session, false)
    }

    /// [`HistoryIndex::new`], the calls' traces read only when `traces`.
    fn indexed(session: &Session, traces: bool) -> HistoryIndex {
        let main: Vec<(usize, Trace)> = session
            .tool_calls()
            .filter(|_| traces)
            .filter_map(|r| trace_of(session, None, r).map(|t| (r.line, t)))
            .collect();
        let main_sorted = main.windows(2).all(|w| w[0].0 <= w[1].0);
        // The first record of a repeated id wins.
        let mut spawns: std::collections::HashMap<&str, (usize, Option<usize>)> =
            std::collections::HashMap::new();
        for r in session.tool_calls() {
            spawns
                .entry(r.tool_use_id.as_str())
                .or_insert((r.line, r.result.as_ref().map(|res| res.line)));
        }
        let subs = session
            .subagents
            .iter()
            .enumerate()
            .map(|(i, sub)| {
                let spawn = sub
                    .spawn_tool_use_id
                    .as_deref()
                    .and_then(|id| spawns.get(id));
                SubTraces {
                    agent_id: sub.agent_id.clone(),
                    spawn_line: spawn.map(|s| s.0),
                    spawn_end: spawn.and_then(|s| s.1),
                    traces: sub
                        .tool_calls()
                        .filter(|_| traces)
                        .filter_map(|r| trace_of(session, Some(i), r).map(|t| (r.line, t)))
                        .collect(),
                    prompt: sub
                        .turns
                        .iter()
                        .find(|t| t.prompt_line.is_some())
                        .map(|t| t.prompt.clone()),
                }
            })
            .collect();
        let prompts = session
            .turns
            .iter()
            .filter_map(|t| t.prompt_line.map(|l| (l, t.prompt.clone())))
            .collect();
        HistoryIndex {
            main,
            main_sorted,
            subs,
            prompts,
        }
    }

    /// [`HistoryIndex::new`] keeping each command line and file path of a
    /// thread once, at its first call: the history it assembles holds each
    /// entry once. Every history condition (`touched_file`, `ran_command`)
    /// asks whether one entry matches and names the first that does, so
    /// its verdicts and the entry it names are those of the full history;
    /// only the count in a why that found none ("none of N earlier
    /// commands") counts distinct entries. A backtest uses it so that a
    /// session of many calls and many Stop events does not copy its whole
    /// history per event (docs/replay-and-backtest.md#replay-and-backtest).
    pub fn distinct(session: &Session) -> HistoryIndex {
        let mut ix = HistoryIndex::new(session);
        first_of_each(&mut ix.main);
        for sub in &mut ix.subs {
            first_of_each(&mut sub.traces);
        }
        ix
    }

    /// The history before `p` (module docs "History"); equal to
    /// [`history_before`] of the session it indexes.
    pub fn before(&self, p: &Payload) -> History {
        self.before_only(p, Wanted::ALL)
    }

    /// [`HistoryIndex::before`] with only the lists `want` names filled
    /// (the others empty): what a rule set without `ran_command` (or
    /// without `touched_file`) conditions on this event reads.
    pub fn before_only(&self, p: &Payload, want: Wanted) -> History {
        let mut h = History::default();
        self.fill_before_only(p, want, &mut h, &mut Reuse::default());
        h
    }

    /// [`HistoryIndex::before_only`] written into `h`, reusing what it
    /// already holds: when the previous fill through the same `reuse` took
    /// the first `k` main-thread traces and this one takes `n ≥ k` of them
    /// (payloads in line order), the entries of those `k` stay and only
    /// the traces after them are copied; the rest of the lists (other
    /// threads' traces) is written again. So a session with many Stop
    /// events copies each main-thread entry about once, not once per
    /// event. `h` ends equal to what [`HistoryIndex::before_only`] gives,
    /// whatever it held before, provided only fills through this `reuse`
    /// (and this index) wrote it.
    pub fn fill_before_only(&self, p: &Payload, want: Wanted, h: &mut History, reuse: &mut Reuse) {
        let (thread, pos) = self.place_of(p);
        if !want.ran_commands {
            h.ran_commands.clear();
        }
        if !want.touched_files {
            h.touched_files.clear();
        }
        if self.main_sorted {
            let n = self.main.partition_point(|(l, _)| *l < pos);
            let kept = match reuse.main {
                Some((k, ran, touched)) if reuse.want == Some(want) && k <= n => {
                    h.ran_commands.truncate(ran);
                    h.touched_files.truncate(touched);
                    k
                }
                _ => {
                    h.ran_commands.clear();
                    h.touched_files.clear();
                    0
                }
            };
            self.main[kept..n]
                .iter()
                .for_each(|(_, t)| add_trace(h, t, want));
            reuse.main = Some((n, h.ran_commands.len(), h.touched_files.len()));
            reuse.want = Some(want);
        } else {
            h.ran_commands.clear();
            h.touched_files.clear();
            self.main
                .iter()
                .filter(|(l, _)| *l < pos)
                .for_each(|(_, t)| add_trace(h, t, want));
            *reuse = Reuse::default();
        }
        for (i, sub) in self.subs.iter().enumerate() {
            if Some(i) != thread && sub.spawn_end.is_some_and(|end| end < pos) {
                sub.traces.iter().for_each(|(_, t)| add_trace(h, t, want));
            }
        }
        if let Some(sub) = thread.and_then(|i| self.subs.get(i)) {
            sub.traces
                .iter()
                .filter(|(l, _)| *l < p.source_line)
                .for_each(|(_, t)| add_trace(h, t, want));
        }
        h.turn_prompt = self.turn_prompt_in(thread, pos).map(str::to_string);
    }

    /// The thread `p` fires in (its subagent by `agent_id`, `None` for the
    /// main thread) and its place on the main thread (its line, or inside a
    /// subagent the line of the spawning call).
    fn place_of(&self, p: &Payload) -> (Option<usize>, usize) {
        // SubagentStart names the subagent it starts but fires on the
        // main thread, before that subagent ran anything.
        let thread = p
            .json
            .get("agent_id")
            .and_then(Value::as_str)
            .filter(|_| p.event != EventName::SubagentStart)
            .and_then(|id| {
                self.subs
                    .iter()
                    .position(|s| s.agent_id.as_deref() == Some(id))
            });
        let pos = match thread {
            None => p.source_line,
            Some(i) => self.subs.get(i).and_then(|s| s.spawn_line).unwrap_or(0),
        };
        (thread, pos)
    }

    /// Inside a subagent its own opening prompt (the task it works on),
    /// else the main-thread turn's at `pos`.
    fn turn_prompt_in(&self, thread: Option<usize>, pos: usize) -> Option<&str> {
        thread
            .and_then(|i| self.subs.get(i))
            .and_then(|s| s.prompt.as_deref())
            .or_else(|| {
                self.prompts
                    .iter()
                    .rfind(|(l, _)| *l <= pos)
                    .map(|(_, t)| t.as_str())
            })
    }

    /// [`History::turn_prompt`] of the history before `p`, as
    /// [`HistoryIndex::before`] sets it (this index may be
    /// [`HistoryIndex::prompts_only`]).
    pub fn turn_prompt_of(&self, p: &Payload) -> Option<&str> {
        let (thread, pos) = self.place_of(p);
        self.turn_prompt_in(thread, pos)
    }
}

/// The turn prompts the Stop and SubagentStop firings of `session` test
/// (each firing's [`History::turn_prompt`], as a backtest sets it: a
/// rule's `prompt` condition on those events tests exactly these, the
/// payloads carrying no `prompt` of their own), distinct. Empty for a
/// session whose payloads are not rebuilt. What the index stores to rule
/// a session out for a Stop rule ([`crate::index::prompts`]).
pub fn stop_prompts(session: &Session) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let ix = HistoryIndex::prompts_only(session);
    crate::hooks::events::for_each_payload_where(
        session,
        &[EventName::Stop, EventName::SubagentStop],
        &|_, _| true,
        &mut |p| {
            if let Some(t) = ix.turn_prompt_of(&p) {
                out.insert(t.to_string());
            }
        },
    );
    out
}

/// What [`HistoryIndex::fill_before_only`] left in a [`History`] that the
/// next fill can keep. Start from `Reuse::default()` (nothing known).
#[derive(Debug, Clone, Default)]
pub struct Reuse {
    /// `(k, ran, touched)`: the lists begin with the entries of the first
    /// `k` main-thread traces, `ran` and `touched` of them long.
    main: Option<(usize, usize, usize)>,
    /// The lists that fill wrote.
    want: Option<Wanted>,
}

/// The session history before the payload's event (module docs
/// "History"). For many payloads of one session, build a [`HistoryIndex`]
/// once and ask it instead.
pub fn history_before(session: &Session, p: &Payload) -> History {
    HistoryIndex::new(session).before(p)
}

fn names_event(text: &str, event: EventName) -> bool {
    text.strip_prefix(event.as_str())
        .is_some_and(|rest| rest.starts_with(':') || rest.starts_with(' '))
}

/// Whether a note is a rejected prompt's record (its `system`/`user` line:
/// `UserPromptSubmit operation blocked by hook: …`).
fn is_rejection_note(label: &str, text: &str) -> bool {
    (label.starts_with("system/") || label == "user/blocked")
        && text.contains(" operation blocked by hook")
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
            } if (label == "hook" || is_rejection_note(label, text))
                && *line >= p.source_line
                && *line < end
                && names_event(text, p.event) =>
            {
                Some(Recorded {
                    source: if label == "hook" {
                        note_source(text)
                    } else {
                        "prompt_rejected"
                    },
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
    // What a hook made the model see instead of the tool's output is in
    // its stdout JSON, which the notes do not spell out.
    if session.agent != Agent::Droid {
        for h in activity_at(session, p)
            .into_iter()
            .filter(|h| h.updated_output.is_some())
        {
            out.push(Recorded {
                source: "updated_output",
                line: h.line(),
                text: format!(
                    "{}: {}",
                    h.hook_name.as_deref().unwrap_or(h.event_name()),
                    h.what(200)
                ),
            });
        }
    }
    if session.agent == Agent::Droid {
        // Droid writes one hook line per firing: what it says.
        for h in activity_at(session, p) {
            out.push(Recorded {
                source: "droid_hook",
                line: h.line(),
                text: format!(
                    "{}: {}",
                    h.hook_name.as_deref().unwrap_or(h.event_name()),
                    h.what(200)
                ),
            });
        }
    }
    out.sort_by_key(|r| r.line);
    out
}

/// The parsed hook firings ([`crate::transcript::hook_activity::HookActivity`])
/// of the payload's event at its place: for a tool event (a payload with
/// `tool_use_id`) the firings of that call whose event is the payload's;
/// otherwise the firings of the event in the payload's thread from its line
/// up to the next firing of the same event (the window [`recorded_at`]
/// uses), e.g. a Stop's `stop_hook_summary` with the handler that ran
/// cleanly. In line order.
pub fn activity_at<'a>(
    session: &'a Session,
    p: &Payload,
) -> Vec<&'a crate::transcript::hook_activity::HookActivity> {
    let thread = thread_of(session, p);
    let lines = match thread {
        None => &session.lines,
        Some(i) => session
            .subagents
            .get(i)
            .map_or(&session.lines, |s| &s.lines),
    };
    let event = p.event.as_str();
    // Droid's payloads carry no tool_use_id: the call it concerns.
    let id = p
        .json
        .get("tool_use_id")
        .and_then(Value::as_str)
        .or(p.call_id.as_deref());
    if let Some(id) = id {
        let turns: &[Turn] = match thread {
            None => &session.turns,
            Some(i) => session.subagents.get(i).map_or(&[][..], |s| &s.turns[..]),
        };
        // Ids may repeat: the call at or before the payload's line.
        let call = turns
            .iter()
            .flat_map(Turn::tool_calls)
            .filter(|r| r.tool_use_id == id)
            .map(|r| r.line)
            .filter(|l| *l <= p.source_line)
            .max()
            .or_else(|| {
                turns
                    .iter()
                    .flat_map(Turn::tool_calls)
                    .find(|r| r.tool_use_id == id)
                    .map(|r| r.line)
            });
        return match call {
            Some(line) => lines
                .hooks_of_call(line, id)
                .filter(|h| h.event_name() == event)
                .collect(),
            None => Vec::new(),
        };
    }
    let end = all_payloads(session, p.event)
        .iter()
        .filter(|o| o.source_path == p.source_path && o.source_line > p.source_line)
        .map(|o| o.source_line)
        .min()
        .unwrap_or(usize::MAX);
    let mut out: Vec<_> = lines
        .hook_activity
        .iter()
        .filter(|h| {
            h.event_name() == event && !h.on_call() && h.line() >= p.source_line && h.line() < end
        })
        .collect();
    out.sort_by_key(|h| h.line());
    out
}

/// The `permissionDecision` the transcript recorded on the tool result of
/// the payload's call (`{decision, source, reasonType|reasonCode,
/// ruleSource}`, 2.1.332), in the payload's thread; `None` for an event not
/// on a call, or a call without one.
pub fn recorded_permission<'a>(session: &'a Session, p: &Payload) -> Option<&'a Value> {
    let id = p.json.get("tool_use_id").and_then(Value::as_str)?;
    session
        .thread_lines(thread_of(session, p))
        .permission_decisions
        .get(id)
}

/// What a replay without a rule set says in [`replay_json`]'s `rules_note`.
pub const NO_RULES: &str = "no rule set loaded: only the payload and what the transcript recorded";

/// The JSON of a replay, the one object `hookscope replay --json` prints
/// and the MCP tool `replay_hook` returns: `{event, source {transcript,
/// line}, claude_version, payload, left_out, history, rules [{id, matched,
/// verdict, why}], decision, flags, output, outcome, recorded, warnings,
/// rules_note, redactions?}`. The payload's secrets are masked as
/// `[REDACTED_<TYPE>]` (`redactions`: per type how many, only when any;
/// also returned). Without a rule set `rules`, `decision`, `flags`,
/// `output` and `outcome` are null, `warnings` is empty and `rules_note` is
/// [`NO_RULES`] (else null); `warnings` are the rule set's
/// ([`RuleSet::warnings`]).
pub fn replay_json(r: &Replay, rules: Option<&RuleSet>) -> (Value, crate::redact::Redactions) {
    let mut counts = crate::redact::Redactions::new();
    let redactor = crate::redact::redactor();
    let payload = redactor.redact_value(&r.payload.json, &mut counts);
    // The history's command lines and the whys (which quote the command)
    // come from the transcript too.
    let history = redactor.redact_value(
        &serde_json::to_value(&r.history).unwrap_or_default(),
        &mut counts,
    );
    let e = r.evaluation.as_ref();
    let rules_out = e.map(|e| {
        let list: Vec<Value> = e
            .rules
            .iter()
            .map(|x| {
                serde_json::json!({
                    "id": x.id,
                    "matched": x.matched,
                    "verdict": x.result.as_ref().map(verdict),
                    "why": x.why(),
                })
            })
            .collect();
        redactor.redact_value(&Value::Array(list), &mut counts)
    });
    let mut out = serde_json::json!({
        "agent": r.dialect,
        "event": r.payload.event.as_str(),
        "source": {
            "transcript": r.payload.source_path.to_string_lossy(),
            "line": r.payload.source_line,
        },
        "claude_version": r.payload.claude_version,
        "payload": payload,
        "left_out": r.payload.left_out,
        "history": history,
        "rules": rules_out,
        "decision": e.map(|e| e.verdict()),
        "flags": e.map(|e| &e.combined.flags),
        "output": e.map(|e| &e.output),
        "outcome": e.map(|e| &e.outcome),
        "recorded": r.recorded,
        "warnings": rules.map_or(&[][..], RuleSet::warnings),
        "rules_note": if e.is_none() { Some(NO_RULES) } else { None },
    });
    if !counts.is_empty()
        && let Some(o) = out.as_object_mut()
    {
        o.insert("redactions".into(), serde_json::json!(counts));
    }
    (out, counts)
}
