//! Rebuilds the stdin JSON Claude Code sends (or would send) to a hook, from a
//! transcript (docs/contract.md#common-input-fields, docs/contract.md#per-event-input-fields, docs/contract.md#new-input-fields).
//!
//! The session is walked once into *points*: each is one event firing (a
//! PreToolUse of one call, a Stop at the end of one turn, …) with the line it
//! is anchored at, the line whose context (`cwd`, `permissionMode`,
//! `promptId`, `effort`, version) it takes, and its event-specific fields.
//! [`payload`] picks a point and lays its fields out in the contract's order
//! ([`crate::hooks::contract`]); a field the transcript cannot tell is left
//! out and listed in [`Payload::left_out`] with the reason, never invented.
//!
//! Where an event fires is read from what the transcript records (Claude Code
//! 2.1.332 as the corpus shows it):
//! * tool events from each `tool_use` and its `tool_result`;
//!   PostToolUseFailure for an `is_error` result that is not a permission or
//!   hook denial nor a `<tool_use_error>` validation rejection
//!   (docs/contract.md#hooks-and-permissions); PermissionRequest where the result's `permissionDecision` came
//!   from a prompt (no `reasonType`, source not `hook`);
//! * PostToolBatch once per assistant message's calls, after their results;
//! * UserPromptSubmit per prompt (not for local slash commands such as
//!   `/compact`), a prompt a hook rejected included (`prompt_id` then left
//!   out: docs/hooks.md#a-rejected-prompt); Stop at each `Stop hook
//!   feedback` and at the end of a turn that was not interrupted;
//! * SessionStart at each process start (docs/formats.md#one-file-several-processes:
//!   the file's start `startup`, after each `cost-state` line
//!   `resume`, a `SessionStart:<source>` hook record's source) and at each
//!   compaction (`compact`); SessionEnd at each `cost-state` line (a file
//!   with none: its last envelope line);
//! * PostToolUse/PostToolUseFailure of a call a PreToolUse hook rewrote
//!   carry the input that ran (docs/hooks.md#a-rewrite-ran);
//! * PreCompact/PostCompact at each `compact_boundary`; CwdChanged where the
//!   `cwd` changes within a run; SubagentStart/SubagentStop per linked
//!   subagent; TaskCreated/TaskCompleted per successful TaskCreate /
//!   TaskUpdate to `completed`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{FileBefore, HookEvent};

mod droid;
use crate::hooks::contract::{self, Presence, Version};
use crate::tools::ToolCall;
use crate::transcript::hook_activity::HookAction;
use crate::transcript::{
    Agent, Event, LineContext, LineIndex, Session, Subagent, ToolCallRecord, Turn,
};

macro_rules! event_names {
    ($($name:ident),* $(,)?) => {
        /// A hook event name (docs/contract.md#per-event-input-fields, docs/contract.md#model-switch-events): every
        /// event in the contract table. Parsed exactly (case-sensitive, as
        /// settings files spell it); displays as its name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        pub enum EventName {
            $(
                #[doc = concat!("`", stringify!($name), "`.")]
                $name,
            )*
        }

        impl EventName {
            /// Every event, in the contract table's order.
            pub const ALL: &'static [EventName] = &[$(EventName::$name),*];

            /// The name as Claude Code spells it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(EventName::$name => stringify!($name),)*
                }
            }
        }
    };
}

event_names!(
    PreToolUse,
    PermissionRequest,
    PermissionDenied,
    PostToolUse,
    PostToolUseFailure,
    PostToolBatch,
    UserPromptSubmit,
    UserPromptExpansion,
    Notification,
    SubagentStart,
    SubagentStop,
    Stop,
    StopFailure,
    TaskCreated,
    TaskCompleted,
    TeammateIdle,
    PreCompact,
    PostCompact,
    SessionStart,
    Setup,
    SessionEnd,
    InstructionsLoaded,
    MessageDisplay,
    ConfigChange,
    CwdChanged,
    FileChanged,
    DirectoryAdded,
    WorktreeCreate,
    WorktreeRemove,
    Elicitation,
    ElicitationResult,
    PreModelSwitch,
    PostModelSwitch,
    PreSkillShellCommand,
);

impl std::fmt::Display for EventName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An event name that is not one of [`EventName::ALL`]; the message adds
/// "did you mean X?" when a known name is close ([`closest_name`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown event {0:?}{hint}; known events: {names}", hint = closest_name(&self.0, EventName::ALL.iter().map(|e| e.as_str())).map(|n| format!(" (did you mean {n}?)")).unwrap_or_default(), names = EventName::ALL.iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", "))]
pub struct UnknownEvent(pub String);

/// The known name closest to `name` by Levenshtein distance over lowercase
/// letters, when it is close: at most 2 edits, or a quarter of the name's
/// length for long names (`PreToolUs`, `pretooluse` → `PreToolUse`; `Foo` →
/// none). Ties keep the first in `known`.
pub fn closest_name<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    known
        .into_iter()
        .map(|k| (strsim::levenshtein(&lower, &k.to_lowercase()), k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

impl std::str::FromStr for EventName {
    type Err = UnknownEvent;

    fn from_str(s: &str) -> Result<EventName, UnknownEvent> {
        EventName::ALL
            .iter()
            .copied()
            .find(|e| e.as_str() == s)
            .ok_or_else(|| UnknownEvent(s.to_string()))
    }
}

/// Where in a session: a `tool_use_id`, a line `uuid`, a line number of the
/// main transcript file (`line:N`), a turn number (1-based over the
/// session's turns, the leading prompt-less turn of a resumed file included,
/// as `show` numbers them), or the last matching event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum At {
    /// A `tool_use.id` (`toolu_…`); a line uuid is accepted too.
    ToolUseId(String),
    /// A line's `uuid`; a tool_use_id is accepted too.
    Uuid(String),
    /// A 1-based line of the main transcript file (`line:N`): the event
    /// anchored there, else the last such event at or before it on the main
    /// thread (as for a line uuid).
    Line(usize),
    /// A 1-based line of a subagent's transcript file
    /// (`line:agent-<agent_id>:N`, the file `agent-<agent_id>.jsonl`): the
    /// event anchored there, else the last such event at or before it in
    /// that subagent.
    AgentLine(String, usize),
    /// A 1-based turn number.
    Turn(usize),
    /// The session's last matching event.
    Last,
}

impl At {
    /// Reads `--at`: `last`, a number (a turn), `line:N` (a line of the
    /// main file), `line:agent-<agent_id>:N` (a line of a subagent's file),
    /// a UUID-shaped id (a line uuid), else a tool_use_id.
    pub fn parse(text: &str) -> At {
        let t = text.trim();
        if t == "last" {
            return At::Last;
        }
        if let Some(rest) = t.strip_prefix("line:") {
            if let Ok(n) = rest.parse() {
                return At::Line(n);
            }
            if let Some((agent, n)) = rest.rsplit_once(':')
                && let Some(id) = agent.strip_prefix("agent-")
                && !id.is_empty()
                && let Ok(n) = n.parse()
            {
                return At::AgentLine(id.to_string(), n);
            }
        }
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            return t.parse().map_or(At::ToolUseId(t.to_string()), At::Turn);
        }
        let uuid_like = t.len() == 36
            && t.bytes().enumerate().all(|(i, b)| {
                matches!(i, 8 | 13 | 18 | 23) == (b == b'-') && (b == b'-' || b.is_ascii_hexdigit())
            });
        if uuid_like {
            At::Uuid(t.to_string())
        } else {
            At::ToolUseId(t.to_string())
        }
    }
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::ToolUseId(id) | At::Uuid(id) => f.write_str(id),
            At::Line(n) => write!(f, "line:{n}"),
            At::AgentLine(id, n) => write!(f, "line:agent-{id}:{n}"),
            At::Turn(n) => write!(f, "turn {n}"),
            At::Last => f.write_str("last"),
        }
    }
}

/// A field left out of a rebuilt payload, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeftOut {
    /// The payload key, e.g. `duration_ms`.
    pub field: String,
    /// Why the transcript cannot tell it.
    pub reason: String,
}

/// A rebuilt hook payload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Payload {
    /// The event.
    pub event: EventName,
    /// The stdin JSON object, keys in Claude Code's order.
    pub json: Value,
    /// Fields the transcript could not tell (left out of `json`).
    pub left_out: Vec<LeftOut>,
    /// The transcript file the event is anchored in (the main file, or a
    /// subagent's file for events inside a subagent), symlinks resolved as
    /// for `transcript_path`.
    pub source_path: PathBuf,
    /// 1-based line of that file the event is anchored at.
    pub source_line: usize,
    /// The Claude Code version that wrote that line, when recorded.
    pub claude_version: Option<String>,
    /// For an Edit/MultiEdit/Write: the file before the call as the
    /// transcript recorded it (`toolUseResult.originalFile`; `""` for a
    /// Write whose `type` is `create`); `None` when not recorded or not such
    /// a call. [`Payload::view`] hands it to [`HookEvent::pre_image`].
    pub file_before: Option<String>,
    /// The `tool_use_id` of the one call a tool event's payload concerns,
    /// also when the payload has no such field (Droid's); `None` otherwise.
    #[serde(skip)]
    pub call_id: Option<String>,
}

impl Payload {
    /// The typed view of this payload (docs/hook-api.md#typed-event-views), with the recorded file
    /// before the call as its pre-image source.
    pub fn view(&self) -> HookEvent {
        HookEvent::with_file_before(
            self.json.clone(),
            FileBefore::Recorded(self.file_before.clone()),
        )
    }
}

/// Why no payload could be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    /// The session's agent ([`Agent::as_str`], carried) has no payloads
    /// here: this builder rebuilds Claude Code and Factory Droid payloads
    /// ([`rebuilds`]), Codex's are rebuilt by `crate::hooks::codex::payload`
    /// (the CLI and MCP route a Codex session there), and OpenCode has none
    /// (its hooks are JavaScript plugins called in-process, fed no JSON).
    #[error(
        "hook payloads are rebuilt for Claude Code, Codex and Droid sessions only (OpenCode's hooks are JavaScript plugins called in-process, fed no JSON payload); this one is {0}"
    )]
    NotClaudeCode(String),
    /// `at` names nothing in the session.
    #[error("{at} names nothing in this session ({hint})")]
    NothingAt {
        /// What was asked.
        at: String,
        /// What exists instead.
        hint: String,
    },
    /// `event` is one hookscope does not rebuild from a transcript (see
    /// [`REBUILT`]): it may well have fired.
    #[error(
        "{0} payloads are not rebuilt from transcripts (a transcript does not record enough; see docs/payloads.md)"
    )]
    NotRebuilt(EventName),
    /// The event does not occur at `at` (or in the session).
    #[error("no {event} {where_}; events here: {available}{fires}")]
    NoEvent {
        /// The event asked for.
        event: EventName,
        /// `at <at>` or `in this session`.
        where_: String,
        /// The events that do occur there, comma-separated (or `none`).
        available: String,
        /// Where `event` fires in the session, as `--at` forms
        /// (`; Stop fires at line:75, line:82`, or `; Stop fires nowhere in
        /// this session`); empty when `where_` is already the whole session.
        fires: String,
    },
}

/// One event firing found in the session.
#[derive(Debug, Clone)]
struct Point {
    event: EventName,
    /// `None` main thread, `Some(i)` subagent `i`.
    thread: Option<usize>,
    /// Anchor line in the thread's file.
    line: usize,
    /// Position on the main thread (a subagent's points: its spawn's line).
    main_line: usize,
    /// Index of the main-thread turn it belongs to.
    turn: usize,
    /// Calls it concerns.
    tool_use_ids: Vec<String>,
    /// The line whose context it takes (in `thread`'s file).
    ctx_line: usize,
    /// Event-specific fields (their order does not matter: the contract's
    /// order is used).
    fields: Vec<(&'static str, Value)>,
    /// Event-specific fields known to be unknowable here, with the reason.
    left_out: Vec<(&'static str, String)>,
    /// `prompt_id` is absent by the contract (a run before its first input).
    no_prompt_id: bool,
    /// `agent_id`/`agent_type` of a subagent-internal event.
    agent: Option<(Option<String>, Option<String>)>,
    /// The file before the call, as recorded ([`Payload::file_before`]).
    file_before: Option<String>,
}

impl Point {
    fn new(
        event: EventName,
        thread: Option<usize>,
        line: usize,
        main_line: usize,
        turn: usize,
    ) -> Point {
        Point {
            event,
            thread,
            line,
            main_line,
            turn,
            tool_use_ids: Vec::new(),
            ctx_line: line,
            fields: Vec::new(),
            left_out: Vec::new(),
            no_prompt_id: false,
            agent: None,
            file_before: None,
        }
    }

    fn field(mut self, key: &'static str, value: Value) -> Point {
        self.fields.push((key, value));
        self
    }

    fn unknown(mut self, key: &'static str, reason: &str) -> Point {
        self.left_out.push((key, reason.to_string()));
        self
    }
}

const LIVE_ONLY_DURATION: &str =
    "the tool's run time is measured by the live process and not written to the transcript";

/// Text of a prompt line as the hook sees it.
fn is_local_command(turn: &Turn) -> bool {
    turn.prompt.trim_start().starts_with("<command-name>")
        && turn
            .events
            .iter()
            .any(|e| matches!(e, Event::Note { label, .. } if label == "command-output"))
}

/// State of one walk over a session: tasks created so far (id → subject,
/// description), and the subagents already walked.
#[derive(Default)]
struct Walk {
    tasks: HashMap<String, (String, Option<String>)>,
    seen: std::collections::HashSet<usize>,
}

/// Walks the session into its points, in main-thread order (a Droid
/// session's: [`droid::points`]).
fn points(session: &Session) -> Vec<Point> {
    if session.agent == Agent::Droid {
        return droid::points(session);
    }
    let mut out = Vec::new();
    let lines = &session.lines;
    let first_line = lines.contexts.first().map_or(1, |c| c.line);
    let run_starts = process_starts(session, first_line);
    // Prompt lines ascend with the turns (the lead turn has none): the
    // turn of a line is the last one opened at or before it.
    let turn_of = |line: usize| -> usize {
        session
            .turns
            .partition_point(|t| t.prompt_line.is_none_or(|p| p <= line))
            .saturating_sub(1)
    };
    for (line, source) in &run_starts {
        let source = source.as_str();
        let mut p = Point::new(EventName::SessionStart, None, *line, *line, turn_of(*line))
            .field("source", json!(source));
        p.no_prompt_id = true;
        if source == "resume" {
            for f in [
                "seconds_since_last_response",
                "context_tokens",
                "prompt_cache_likely_expired",
                "estimated_cache_write_usd",
            ] {
                p = p.unknown(f, "known to the resuming process only (cache state, token count and idle time at resume)");
            }
        }
        out.push(p);
    }
    // Without any `cost-state` (versions that write none), the file's last
    // envelope line.
    let ends: Vec<usize> = if lines.run_ends.is_empty() {
        Some(lines.last_envelope)
            .filter(|&l| l > 0)
            .into_iter()
            .collect()
    } else {
        lines.run_ends.clone()
    };
    for &line in &ends {
        out.push(
            Point::new(EventName::SessionEnd, None, line, line, turn_of(line)).unknown(
                "reason",
                "why the session ended (exit, clear, logout, …) is not written to the transcript",
            ),
        );
    }
    // CwdChanged within a run.
    for pair in lines.contexts.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let crosses_run = any_between(&lines.run_ends, a.line, b.line);
        if let (Some(old), Some(new)) = (&a.cwd, &b.cwd)
            && old != new
            && !crosses_run
        {
            out.push(
                Point::new(EventName::CwdChanged, None, b.line, b.line, turn_of(b.line))
                    .field("old_cwd", json!(old))
                    .field("new_cwd", json!(new)),
            );
        }
    }
    instruction_points(session, &run_starts, &turn_of, &mut out);
    let mut walk = Walk::default();
    for (t, turn) in session.turns.iter().enumerate() {
        let local = is_local_command(turn);
        if let Some(line) = turn.prompt_line
            && !local
        {
            out.push(
                Point::new(EventName::UserPromptSubmit, None, line, line, t)
                    .field("prompt", json!(turn.prompt)),
            );
        }
        thread_points(session, None, turn, t, None, &mut walk, &mut out);
        if turn.prompt_line.is_some() && !local {
            stop_points(session, None, turn, t, &mut out);
        }
        for event in &turn.events {
            if let Event::Compaction {
                trigger: Some(trigger),
                line,
                ..
            } = event
            {
                compaction_points(session, turn, t, trigger, *line, &mut out);
            }
        }
    }
    out.sort_by_key(|p| p.main_line);
    out
}

/// Where each process that wrote the main file started, with its
/// SessionStart `source` (docs/formats.md#one-file-several-processes):
/// the file's first envelope line (`startup`), and the first envelope line
/// after each `cost-state` line (`resume`: that line ends a process). A
/// SessionStart hook record (`hookName` `SessionStart:<source>`, not
/// `compact`, which compaction points give) names the source of the
/// process it is in; one that follows a prompt or a model answer of that
/// process marks a process that started without the previous one writing
/// its `cost-state` (killed), there.
fn process_starts(session: &Session, first_line: usize) -> Vec<(usize, String)> {
    let lines = &session.lines;
    let mut starts: std::collections::BTreeMap<usize, &'static str> =
        std::iter::once((first_line, "startup"))
            .chain(lines.run_starts.iter().map(|&l| (l, "resume")))
            .collect();
    // Where the session did something a process start precedes: prompts
    // and the model's answers, sorted.
    let mut done: Vec<usize> = session
        .turns
        .iter()
        .flat_map(|t| {
            t.prompt_line.into_iter().chain(
                t.events
                    .iter()
                    .filter(|e| matches!(e, Event::Text { .. } | Event::ToolCall(_)))
                    .map(Event::line),
            )
        })
        .collect();
    done.sort_unstable();
    for h in &lines.hook_activity {
        // Only the sources Claude Code names (the text is the transcript's).
        let Some(source) = h
            .hook_name
            .as_deref()
            .and_then(|n| n.strip_prefix("SessionStart:"))
            .and_then(|s| {
                ["startup", "resume", "clear", "fork"]
                    .into_iter()
                    .find(|k| *k == s)
            })
        else {
            continue;
        };
        let at = h.line();
        let Some((&start, _)) = starts.range(..=at).next_back() else {
            continue;
        };
        if any_between(&done, start, at) {
            starts.insert(at, source);
        } else {
            starts.insert(start, source);
        }
    }
    starts
        .into_iter()
        .map(|(l, s)| (l, s.to_string()))
        .collect()
}

/// Whether `sorted` (ascending) holds a line strictly between `from` and
/// `to`.
fn any_between(sorted: &[usize], from: usize, to: usize) -> bool {
    let i = sorted.partition_point(|&l| l <= from);
    sorted.get(i).is_some_and(|&l| l < to)
}

/// InstructionsLoaded per file of each `instructions` attachment. The load
/// reason is `session_start` when the model has not answered yet in the run
/// (no assistant text or call since the run began); other reasons (nested
/// traversal, path glob, include, compact) are not told apart, so left out.
///
/// Every process loads its instructions when it starts, but Claude Code
/// writes the attachment only when they enter the conversation (a resumed
/// process carries them over and writes none): a process start
/// (`run_starts`, [`process_starts`]) whose run has no attachment before its
/// first answer gets the files of the latest attachment before it, with
/// `session_start` (docs/hooks-payloads.md "InstructionsLoaded").
fn instruction_points(
    session: &Session,
    run_starts: &[(usize, String)],
    turn_of: &dyn Fn(usize) -> usize,
    out: &mut Vec<Point>,
) {
    let lines = &session.lines;
    // The model's answers (text, calls), sorted.
    let mut answers: Vec<usize> = session
        .turns
        .iter()
        .flat_map(|t| &t.events)
        .filter(|e| matches!(e, Event::Text { .. } | Event::ToolCall(_)))
        .map(Event::line)
        .collect();
    answers.sort_unstable();
    let answered_between = |from: usize, to: usize| any_between(&answers, from, to);
    let push = |line: usize, anchor: usize, files: &Value, answered: bool, out: &mut Vec<Point>| {
        for file in files.as_array().into_iter().flatten() {
            let mut p = Point::new(
                EventName::InstructionsLoaded,
                None,
                anchor,
                anchor,
                turn_of(anchor),
            );
            p.ctx_line = line.max(anchor);
            p = match file.get("path").and_then(Value::as_str) {
                Some(path) => p.field("file_path", json!(path)),
                None => p.unknown("file_path", "the instructions attachment names no path"),
            };
            p = match file.get("type").and_then(Value::as_str) {
                Some(t) => p.field("memory_type", json!(t)),
                None => p.unknown("memory_type", "the instructions attachment gives no type"),
            };
            p = if answered {
                p.unknown("load_reason", "loaded mid-run; why (nested traversal, path glob, include, compact) is not recorded")
            } else {
                p.field("load_reason", json!("session_start"))
            };
            out.push(p);
        }
    };
    for (line, files) in &lines.instructions {
        // `run_ends` is in line order: the last one before the attachment.
        let run_start = lines
            .run_ends
            .partition_point(|e| e < line)
            .checked_sub(1)
            .and_then(|k| lines.run_ends.get(k))
            .copied()
            .unwrap_or(0);
        push(*line, *line, files, answered_between(run_start, *line), out);
    }
    // Process starts whose run writes no attachment before answering.
    for (k, (start, _)) in run_starts.iter().enumerate() {
        let end = run_starts.get(k + 1).map_or(usize::MAX, |(l, _)| *l);
        let i = answers.partition_point(|&l| l <= *start);
        let first_answer = answers.get(i).copied().filter(|&l| l < end).unwrap_or(end);
        let j = lines.instructions.partition_point(|(l, _)| *l < *start);
        let own = lines
            .instructions
            .get(j)
            .is_some_and(|(l, _)| *l < first_answer);
        if own {
            continue;
        }
        if let Some((line, files)) = j.checked_sub(1).and_then(|j| lines.instructions.get(j)) {
            push(*line, *start, files, false, out);
        }
    }
}

/// PreCompact, PostCompact and SessionStart(compact) at a boundary line.
fn compaction_points(
    session: &Session,
    turn: &Turn,
    t: usize,
    trigger: &str,
    line: usize,
    out: &mut Vec<Point>,
) {
    // The turn holding the boundary holds the summary and the command.
    let summary = turn.events.iter().find_map(|e| match e {
        Event::Compaction {
            trigger: None,
            text,
            line: l,
            ..
        } if *l > line => Some((text.clone(), *l)),
        _ => None,
    });
    let ctx_line = summary.as_ref().map_or(line, |(_, l)| *l);
    let custom = if trigger == "auto" {
        Some(String::new())
    } else {
        session
            .turns
            .iter()
            .filter(|t| t.prompt_line.is_some_and(|p| p > line))
            .chain(std::iter::once(turn))
            .find_map(|t| {
                tag_text(&t.prompt, "command-args")
                    .filter(|_| t.prompt.contains("<command-name>/compact"))
            })
    };
    let mut pre =
        Point::new(EventName::PreCompact, None, line, line, t).field("trigger", json!(trigger));
    pre.ctx_line = ctx_line;
    pre = match custom {
        Some(c) => pre.field("custom_instructions", json!(c)),
        None => pre.unknown(
            "custom_instructions",
            "no /compact command line recorded next to the boundary",
        ),
    };
    let mut post =
        Point::new(EventName::PostCompact, None, line, line, t).field("trigger", json!(trigger));
    post.ctx_line = ctx_line;
    post = match summary.as_ref().map(|(text, _)| compact_summary(text)) {
        Some(s) => post.field("compact_summary", json!(s)),
        None => post.unknown(
            "compact_summary",
            "no isCompactSummary line after the boundary",
        ),
    };
    let mut start =
        Point::new(EventName::SessionStart, None, line, line, t).field("source", json!("compact"));
    start.ctx_line = ctx_line;
    start = match session.models.as_slice() {
        [only] => start.field("model", json!(only)),
        _ => start.unknown(
            "model",
            "the session used several models and the one in force is not tracked per line",
        ),
    };
    out.extend([pre, post, start]);
}

/// The summary as the transcript keeps it: the `isCompactSummary` text
/// without the framing Claude Code wraps around it ("This session is being
/// continued … conversation.\n\n" and a `<system-reminder>` before, the
/// "If you need specific details …" paragraphs after), when the framing is
/// recognised. Claude Code 2.1.332 rewrites the model's summary before
/// storing it (drops `<analysis>`, turns `<summary>` into `Summary:`), so
/// this differs from the hook's `compact_summary` (docs/payloads.md "Hook payloads").
fn compact_summary(text: &str) -> String {
    const LEAD: &str = "covers the earlier portion of the conversation.\n\n";
    let body = text.find(LEAD).map_or(text, |i| &text[i + LEAD.len()..]);
    let body = match body.strip_prefix("<system-reminder>") {
        Some(rest) => rest
            .find("</system-reminder>\n")
            .map_or(body, |i| &rest[i + "</system-reminder>\n".len()..]),
        None => body,
    };
    let body = body
        .find("\n\nIf you need specific details from before compaction")
        .map_or(body, |i| &body[..i]);
    body.to_string()
}

/// The text between `<tag>` and `</tag>`, trimmed.
fn tag_text(text: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    Some(text[start..end].trim().to_string())
}

/// Whether a result is a denial rather than a tool failure.
fn denied(lines: &LineIndex, id: &str) -> bool {
    lines
        .permission_decisions
        .get(id)
        .and_then(|d| d.get("decision"))
        .and_then(Value::as_str)
        == Some("reject")
}

/// Whether the call's permission decision came from a prompt (so
/// PermissionRequest fired): a decision without `reasonType` whose source is
/// not a hook and whose `reasonCode` does not name one (2.1.332:
/// `{"decision":"reject","source":"config","reasonCode":"unknown"}` for a
/// `-p` run; rule/mode decisions carry `reasonType`; a PreToolUse `ask` that
/// `-p` cannot put to anyone is `{"decision":"reject","source":"config",
/// "reasonCode":"hook:PreToolUse"}`, and no PermissionRequest fires).
fn prompted(lines: &LineIndex, id: &str) -> bool {
    lines.permission_decisions.get(id).is_some_and(|d| {
        d.get("reasonType").is_none()
            && d.get("source").and_then(Value::as_str) != Some("hook")
            && !d
                .get("reasonCode")
                .and_then(Value::as_str)
                .is_some_and(|c| c.starts_with("hook:"))
    })
}

/// Tool, batch, task and subagent points of one turn of a thread.
fn thread_points(
    session: &Session,
    thread: Option<usize>,
    turn: &Turn,
    t: usize,
    spawn_line: Option<usize>,
    walk: &mut Walk,
    out: &mut Vec<Point>,
) {
    let lines = thread_lines(session, thread);
    let agent = thread
        .and_then(|i| session.subagents.get(i))
        .map(|sub| (sub.agent_id.clone(), sub.agent_type.clone()));
    let calls: Vec<&ToolCallRecord> = turn.tool_calls().collect();
    let main_line = |line: usize| spawn_line.unwrap_or(line);
    let mut i = 0;
    while i < calls.len() {
        // One assistant message's calls form a batch.
        let mut j = i + 1;
        while j < calls.len()
            && calls[j].message_id.is_some()
            && calls[j].message_id == calls[i].message_id
        {
            j += 1;
        }
        let batch = &calls[i..j];
        for record in batch {
            for mut p in call_points(
                session,
                thread,
                lines,
                record,
                t,
                main_line(record.line),
                &mut walk.tasks,
            ) {
                p.agent = agent.clone();
                out.push(p);
            }
            if let Some(sub) = record.subagent {
                subagent_points(session, sub, record, t, walk, out);
            }
        }
        if batch.iter().all(|r| r.result.is_some()) {
            let last_line = batch
                .iter()
                .filter_map(|r| r.result.as_ref())
                .map(|r| r.line)
                .max()
                .unwrap_or(batch[0].line);
            let tool_calls: Vec<Value> = batch
                .iter()
                .map(|r| {
                    let response = lines
                        .result_blocks
                        .get(&r.tool_use_id)
                        .cloned()
                        .unwrap_or_else(|| {
                            json!(r.result.as_ref().map_or("", |x| x.text.as_str()))
                        });
                    json!({
                        "tool_name": r.name(),
                        "tool_input": r.call.raw().cloned().unwrap_or(json!({})),
                        "tool_use_id": r.tool_use_id,
                        "tool_response": response,
                    })
                })
                .collect();
            let mut p = Point::new(
                EventName::PostToolBatch,
                thread,
                last_line,
                main_line(last_line),
                t,
            )
            .field("tool_calls", Value::Array(tool_calls));
            p.tool_use_ids = batch.iter().map(|r| r.tool_use_id.clone()).collect();
            p.agent = agent.clone();
            out.push(p);
        }
        i = j;
    }
}

fn thread_lines(session: &Session, thread: Option<usize>) -> &LineIndex {
    match thread.and_then(|i| session.subagents.get(i)) {
        Some(sub) => &sub.lines,
        None => &session.lines,
    }
}

/// PreToolUse, PermissionRequest, PostToolUse(Failure), TaskCreated and
/// TaskCompleted of one call.
fn call_points(
    session: &Session,
    thread: Option<usize>,
    lines: &LineIndex,
    record: &ToolCallRecord,
    t: usize,
    main_line: usize,
    tasks: &mut HashMap<String, (String, Option<String>)>,
) -> Vec<Point> {
    let id = &record.tool_use_id;
    let input = record.call.raw().cloned().unwrap_or(json!({}));
    // After the call the hooks see the input it ran with (a PreToolUse
    // rewrite's `updatedInput`), before it the model's.
    let ran = session.ran_input(thread, record).cloned();
    let before = recorded_file_before(record);
    let tool_with = |event: EventName, line: usize, input: &Value| {
        let mut p = Point::new(event, thread, line, main_line, t)
            .field("tool_name", json!(record.name()))
            .field("tool_input", input.clone());
        p.tool_use_ids.push(id.clone());
        p.ctx_line = line;
        p.file_before = before.clone();
        p
    };
    let tool = |event: EventName, line: usize| tool_with(event, line, &input);
    let post_tool =
        |event: EventName, line: usize| tool_with(event, line, ran.as_ref().unwrap_or(&input));
    let mut out = vec![tool(EventName::PreToolUse, record.line).field("tool_use_id", json!(id))];
    if prompted(lines, id) {
        out.push(tool(EventName::PermissionRequest, record.line).unknown(
            "permission_suggestions",
            "the suggestions the permission dialog offered are not written to the transcript",
        ));
        // The dialog also notifies, in an interactive session only (`-p`
        // runs fire no Notification).
        let interactive = lines
            .context_at(record.line)
            .and_then(|c| c.entrypoint.as_deref())
            == Some("cli");
        if interactive {
            let mut n = Point::new(EventName::Notification, thread, record.line, main_line, t)
                .field(
                    "message",
                    json!(format!(
                        "Claude needs your permission to use {}",
                        record.name()
                    )),
                )
                .field("notification_type", json!("permission_prompt"));
            n.tool_use_ids.push(id.clone());
            out.push(n);
        }
    }
    let Some(result) = &record.result else {
        return out;
    };
    // A call a hook blocked did not run (2.1.x records the denial in
    // `permissionDecision`; older lines only through the hook's record).
    let hook_blocked = lines
        .hooks_of_call(record.line, id)
        .any(|h| h.event.as_deref() == Some("PreToolUse") && h.action == HookAction::Blocked);
    if denied(lines, id) || hook_blocked {
        return out;
    }
    if result.is_error {
        if result.text.trim_start().starts_with("<tool_use_error>") {
            return out;
        }
        let error = match &result.tool_use_result {
            Some(Value::String(s)) => s.strip_prefix("Error: ").unwrap_or(s).to_string(),
            _ => result.text.clone(),
        };
        let interrupted = result
            .tool_use_result
            .as_ref()
            .and_then(|r| r.get("interrupted"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        out.push(
            post_tool(EventName::PostToolUseFailure, result.line)
                .field("tool_use_id", json!(id))
                .field("error", json!(error))
                .field("is_interrupt", json!(interrupted))
                .unknown("duration_ms", LIVE_ONLY_DURATION),
        );
        return out;
    }
    let mut post = post_tool(EventName::PostToolUse, result.line).field("tool_use_id", json!(id));
    post = match record.tool_use_result_verbatim() {
        Some(r) => post.field("tool_response", r.into_owned()),
        None => post.unknown("tool_response", "the result line has no toolUseResult"),
    };
    out.push(post.unknown("duration_ms", LIVE_ONLY_DURATION));
    match &record.call {
        ToolCall::TaskCreate(create) => {
            let task_id = result
                .tool_use_result
                .as_ref()
                .and_then(|r| r.pointer("/task/id"))
                .and_then(Value::as_str);
            if let Some(task_id) = task_id {
                tasks.insert(
                    task_id.to_string(),
                    (create.subject.clone(), Some(create.description.clone())),
                );
                let mut p = Point::new(EventName::TaskCreated, thread, record.line, main_line, t)
                    .field("task_id", json!(task_id))
                    .field("task_subject", json!(create.subject))
                    .field("task_description", json!(create.description));
                p.tool_use_ids.push(id.clone());
                out.insert(1, p);
            }
        }
        ToolCall::TaskUpdate(update) if update.status.as_deref() == Some("completed") => {
            let mut p = Point::new(EventName::TaskCompleted, thread, record.line, main_line, t)
                .field("task_id", json!(update.task_id));
            match tasks.get(&update.task_id) {
                Some((subject, description)) => {
                    p = p.field(
                        "task_subject",
                        json!(update.subject.clone().unwrap_or(subject.clone())),
                    );
                    if let Some(d) = update.description.clone().or(description.clone()) {
                        p = p.field("task_description", json!(d));
                    }
                }
                None => {
                    p = p.unknown(
                        "task_subject",
                        "the task was created outside this transcript",
                    );
                }
            }
            p.tool_use_ids.push(id.clone());
            out.insert(1, p);
        }
        _ => {}
    }
    out
}

/// The file before an Edit/MultiEdit/Write as its result recorded it:
/// `toolUseResult.originalFile`, or `""` for a Write that created the file
/// (`type: "create"`).
fn recorded_file_before(record: &ToolCallRecord) -> Option<String> {
    if !matches!(
        record.call,
        ToolCall::Edit(_) | ToolCall::MultiEdit(_) | ToolCall::Write(_)
    ) {
        return None;
    }
    let r = record.result.as_ref()?.tool_use_result.as_ref()?;
    match r.get("originalFile") {
        Some(Value::String(s)) => Some(s.clone()),
        _ if r.get("type").and_then(Value::as_str) == Some("create") => Some(String::new()),
        _ => None,
    }
}

/// SubagentStart, the subagent's own points, and SubagentStop.
fn subagent_points(
    session: &Session,
    sub_index: usize,
    spawn: &ToolCallRecord,
    t: usize,
    walk: &mut Walk,
    out: &mut Vec<Point>,
) {
    let Some(sub) = session.subagents.get(sub_index) else {
        return;
    };
    // Each subagent once: ids may repeat, so links may form a cycle.
    if !walk.seen.insert(sub_index) {
        return;
    }
    let id_type = |p: Point| -> Point {
        let p = match &sub.agent_id {
            Some(a) => p.field("agent_id", json!(a)),
            None => p.unknown("agent_id", "the subagent's id is not recorded"),
        };
        match &sub.agent_type {
            Some(a) => p.field("agent_type", json!(a)),
            None => p.unknown(
                "agent_type",
                "the subagent has no meta sidecar with agentType",
            ),
        }
    };
    let mut start = id_type(Point::new(
        EventName::SubagentStart,
        None,
        spawn.line,
        spawn.line,
        t,
    ));
    start.tool_use_ids.push(spawn.tool_use_id.clone());
    out.push(start);
    for turn in &sub.turns {
        thread_points(
            session,
            Some(sub_index),
            turn,
            t,
            Some(spawn.line),
            walk,
            out,
        );
    }
    let last_line = sub.lines.contexts.last().map_or(spawn.line, |c| c.line);
    let mut stop = id_type(Point::new(
        EventName::SubagentStop,
        Some(sub_index),
        last_line,
        spawn.line,
        t,
    ))
    .field("stop_hook_active", json!(false))
    .field("agent_transcript_path", json!(real_path(&sub.path)));
    stop = match sub.turns.iter().rev().find_map(Turn::last_text) {
        Some(text) => stop.field("last_assistant_message", json!(text)),
        None => stop.unknown("last_assistant_message", "the subagent wrote no text"),
    };
    stop = background(session, spawn.line, stop);
    stop.tool_use_ids.push(spawn.tool_use_id.clone());
    out.push(stop);
}

/// `background_tasks`/`session_crons`: `[]` when nothing before `line` could
/// have left background work or a cron behind; else left out.
fn background(session: &Session, line: usize, p: Point) -> Point {
    let mut launched = false;
    let mut crons = false;
    for record in session.tool_calls().filter(|r| r.line < line) {
        let bg = record
            .call
            .raw()
            .and_then(|r| r.get("run_in_background"))
            .and_then(Value::as_bool);
        let async_agent = matches!(record.call, ToolCall::Task(_))
            && record
                .result
                .as_ref()
                .and_then(|r| r.tool_use_result.as_ref())
                .and_then(|r| r.get("status"))
                .and_then(Value::as_str)
                == Some("async_launched");
        if bg == Some(true) && !matches!(record.call, ToolCall::Task(_)) || async_agent {
            launched = true;
        }
        if record.name().starts_with("Cron") || record.name() == "ScheduleWakeup" {
            crons = true;
        }
    }
    let p = if launched {
        p.unknown("background_tasks", "background work was started earlier; whether it still ran is known to the live process only")
    } else {
        p.field("background_tasks", json!([]))
    };
    if crons {
        p.unknown(
            "session_crons",
            "a cron was scheduled earlier; the live schedule is known to the live process only",
        )
    } else {
        p.field("session_crons", json!([]))
    }
}

/// Stop points of one main-thread turn.
fn stop_points(
    session: &Session,
    thread: Option<usize>,
    turn: &Turn,
    t: usize,
    out: &mut Vec<Point>,
) {
    let mut anchors: Vec<usize> = Vec::new();
    for (i, event) in turn.events.iter().enumerate() {
        if let Event::Note {
            label, text, line, ..
        } = event
            && label == "hook"
            && text.trim_start().starts_with("Stop hook feedback")
        {
            // The Stop fired before its feedback: anchor at the event before.
            let before = turn.events[..i].last().map_or(*line, Event::line);
            anchors.push(before);
        }
    }
    // The turn ends when the model's last message is text with no tool call
    // after it; a turn cut after a call (interrupted, still running, or a
    // truncated file) has no Stop (docs/contract.md#interrupts-and-other-runtime-details: an interrupt fires
    // none).
    let last = turn.events.iter().rev().find(|e| {
        !matches!(
            e,
            Event::Thinking { .. } | Event::Note { .. } | Event::Compaction { .. }
        )
    });
    if let Some(Event::Text { line, .. }) = last {
        anchors.push(*line);
    }
    for (k, anchor) in anchors.into_iter().enumerate() {
        let last_text = turn.events.iter().rev().find_map(|e| match e {
            Event::Text { text, line, .. } if *line <= anchor => Some(text.clone()),
            _ => None,
        });
        let mut p = Point::new(EventName::Stop, thread, anchor, anchor, t)
            .field("stop_hook_active", json!(k > 0));
        p = match last_text {
            Some(text) => p.field("last_assistant_message", json!(text)),
            None => p.unknown(
                "last_assistant_message",
                "the turn has no assistant text before this stop",
            ),
        };
        out.push(background(session, anchor, p));
    }
}

/// The path as the filesystem resolves it (symlinks followed), else as
/// given; lossily as a string.
fn real_path(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// The context of a point: its own thread's line, falling back field by field
/// to the main thread at its spawn line (a subagent's lines carry no
/// `permissionMode`).
fn context_of(session: &Session, p: &Point) -> LineContext {
    let own = thread_lines(session, p.thread)
        .context_at(p.ctx_line)
        .cloned()
        .unwrap_or_default();
    if p.thread.is_none() {
        return own;
    }
    let main = session
        .lines
        .context_at(p.main_line)
        .cloned()
        .unwrap_or_default();
    LineContext {
        line: own.line,
        cwd: own.cwd.or(main.cwd),
        permission_mode: own.permission_mode.or(main.permission_mode),
        prompt_id: own.prompt_id.or(main.prompt_id),
        version: own.version.or(main.version),
        effort: own.effort.or(main.effort),
        entrypoint: own.entrypoint.or(main.entrypoint),
        rejected_prompt: own.rejected_prompt.or(main.rejected_prompt),
    }
}

/// Lays a point out as Claude Code's JSON, in the contract's field order
/// (a Droid session's: [`droid::render`]).
fn render(session: &Session, p: &Point) -> Payload {
    if session.agent == Agent::Droid {
        return droid::render(session, p);
    }
    let ctx = context_of(session, p);
    let version_text = ctx.version.clone().or(session.version.clone());
    let version = version_text
        .as_deref()
        .map_or_else(Version::latest, Version::parse);
    let mut json = Map::new();
    let mut left_out: Vec<LeftOut> = Vec::new();
    let mut leave = |field: &str, reason: String| {
        left_out.push(LeftOut {
            field: field.to_string(),
            reason,
        });
    };
    let Some(contract) = contract::event(p.event.as_str(), &version) else {
        leave(
            "*",
            format!("the hook contract has no {} at version {version}", p.event),
        );
        return Payload {
            event: p.event,
            json: Value::Object(json),
            left_out,
            source_path: thread_path(session, p.thread),
            source_line: p.line,
            claude_version: version_text,
            file_before: p.file_before.clone(),
            call_id: one_call(p),
        };
    };
    for field in contract.input_at(&version) {
        let name = field.name.as_str();
        if let Some((_, v)) = p.fields.iter().find(|(k, _)| *k == name) {
            json.insert(name.to_string(), v.clone());
            continue;
        }
        if let Some((_, reason)) = p.left_out.iter().find(|(k, _)| *k == name) {
            leave(name, reason.clone());
            continue;
        }
        let common: Option<Result<Value, &str>> = match name {
            "session_id" => Some(Ok(json!(session.id))),
            "transcript_path" => Some(Ok(json!(real_path(&session.path)))),
            "hook_event_name" => Some(Ok(json!(p.event.as_str()))),
            "cwd" => Some(
                ctx.cwd
                    .as_ref()
                    .map(|c| json!(c))
                    .ok_or("no line before this point records a cwd"),
            ),
            "prompt_id" if p.no_prompt_id => None,
            "prompt_id" => match (&ctx.prompt_id, ctx.rejected_prompt) {
                (Some(id), _) => Some(Ok(json!(id))),
                (None, Some(line)) => {
                    leave(
                        name,
                        format!(
                            "the prompt in force is the one a hook rejected (line {line}); Claude Code gave it a promptId it does not write to the transcript"
                        ),
                    );
                    continue;
                }
                (None, None) => Some(Err("no line before this point records a promptId")),
            },
            "permission_mode" => Some(
                ctx.permission_mode
                    .as_ref()
                    .map(|c| json!(c))
                    .ok_or("no prompt line before this point records a permissionMode"),
            ),
            "effort" => Some(
                ctx.effort
                    .as_ref()
                    .map(|e| json!({"level": e}))
                    .ok_or("no assistant line before this point records an effort"),
            ),
            "agent_id" | "agent_type" if field.when == Presence::Subagent => match &p.agent {
                None => None,
                Some((id, ty)) => {
                    let v = if name == "agent_id" { id } else { ty };
                    Some(
                        v.as_ref()
                            .map(|v| json!(v))
                            .ok_or("the subagent's id or type is not recorded"),
                    )
                }
            },
            _ => None,
        };
        match common {
            Some(Ok(v)) => {
                json.insert(name.to_string(), v);
            }
            Some(Err(reason)) => leave(name, reason.to_string()),
            None if matches!(field.when, Presence::Always) && !is_common(name) => {
                leave(name, "not recorded in the transcript".to_string());
            }
            None => {}
        }
    }
    Payload {
        event: p.event,
        json: Value::Object(json),
        left_out,
        source_path: thread_path(session, p.thread),
        source_line: p.line,
        claude_version: version_text,
        file_before: p.file_before.clone(),
        call_id: one_call(p),
    }
}

/// The one call a point concerns, if exactly one.
fn one_call(p: &Point) -> Option<String> {
    match p.tool_use_ids.as_slice() {
        [id] => Some(id.clone()),
        _ => None,
    }
}

fn is_common(name: &str) -> bool {
    matches!(name, "prompt_id" | "agent_id" | "agent_type")
}

fn thread_path(session: &Session, thread: Option<usize>) -> PathBuf {
    let path = match thread.and_then(|i| session.subagents.get(i)) {
        Some(sub) => &sub.path,
        None => &session.path,
    };
    std::fs::canonicalize(path).unwrap_or_else(|_| path.clone())
}

/// Where `at` points: `(thread, line)` of a uuid, the calls of an id, or a turn.
enum Resolved {
    Ids(Vec<String>, Option<(Option<usize>, usize)>),
    Turn(usize),
    Last,
}

fn find_uuid(session: &Session, uuid: &str) -> Option<(Option<usize>, usize)> {
    if let Some(&line) = session.lines.uuids.get(uuid) {
        return Some((None, line));
    }
    session
        .subagents
        .iter()
        .enumerate()
        .find_map(|(i, s): (usize, &Subagent)| s.lines.uuids.get(uuid).map(|&l| (Some(i), l)))
}

fn resolve(session: &Session, at: &At) -> Result<Resolved, PayloadError> {
    let by_id = |id: &str| session.all_tool_calls().any(|(_, r)| r.tool_use_id == id);
    let ids_on = |thread: Option<usize>, line: usize| -> Vec<String> {
        session
            .all_tool_calls()
            .filter(|(t, r)| {
                *t == thread
                    && (r.line == line || r.result.as_ref().is_some_and(|x| x.line == line))
            })
            .map(|(_, r)| r.tool_use_id.clone())
            .collect()
    };
    let last_line = session.lines.last_line;
    match at {
        At::Last => Ok(Resolved::Last),
        At::Line(n) => {
            if *n >= 1 && *n <= last_line {
                Ok(Resolved::Ids(ids_on(None, *n), Some((None, *n))))
            } else {
                Err(PayloadError::NothingAt {
                    at: format!("line:{n}"),
                    hint: format!("lines are line:1 to line:{last_line}"),
                })
            }
        }
        At::AgentLine(id, n) => {
            let Some(i) = session
                .subagents
                .iter()
                .position(|s| s.agent_id.as_deref() == Some(id.as_str()))
            else {
                let ids: Vec<String> = session
                    .subagents
                    .iter()
                    .filter_map(|s| s.agent_id.as_deref())
                    .take(5)
                    .map(|a| format!("agent-{a}"))
                    .collect();
                return Err(PayloadError::NothingAt {
                    at: at.to_string(),
                    hint: if ids.is_empty() {
                        "this session has no subagent".to_string()
                    } else {
                        format!("subagents: {}", ids.join(", "))
                    },
                });
            };
            let sub_last = session.subagents[i].lines.last_line;
            if *n >= 1 && *n <= sub_last {
                Ok(Resolved::Ids(ids_on(Some(i), *n), Some((Some(i), *n))))
            } else {
                Err(PayloadError::NothingAt {
                    at: at.to_string(),
                    hint: format!("its lines are line:agent-{id}:1 to line:agent-{id}:{sub_last}"),
                })
            }
        }
        At::Turn(n) => {
            if *n >= 1 && *n <= session.turns.len() {
                Ok(Resolved::Turn(n - 1))
            } else {
                Err(PayloadError::NothingAt {
                    at: format!("turn {n}"),
                    hint: format!("turns are 1 to {}", session.turns.len()),
                })
            }
        }
        At::ToolUseId(id) | At::Uuid(id) => {
            if by_id(id) {
                return Ok(Resolved::Ids(vec![id.clone()], None));
            }
            if let Some((thread, line)) = find_uuid(session, id) {
                return Ok(Resolved::Ids(ids_on(thread, line), Some((thread, line))));
            }
            let first: Vec<String> = session
                .all_tool_calls()
                .take(3)
                .map(|(_, r)| r.tool_use_id.clone())
                .collect();
            Err(PayloadError::NothingAt {
                at: id.clone(),
                hint: format!(
                    "no tool_use_id or line uuid {id:?}; tool calls: {}{}; turns: 1 to {}; lines: line:1 to line:{last_line}; or `last`",
                    session.all_tool_calls().count(),
                    if first.is_empty() {
                        String::new()
                    } else {
                        format!(" (e.g. {})", first.join(", "))
                    },
                    session.turns.len()
                ),
            })
        }
    }
}

/// The points `at` selects, in order.
fn selected<'a>(all: &'a [Point], resolved: &Resolved) -> Vec<&'a Point> {
    match resolved {
        Resolved::Last => all.iter().collect(),
        Resolved::Turn(t) => all.iter().filter(|p| p.turn == *t).collect(),
        Resolved::Ids(ids, line) => all
            .iter()
            .filter(|p| {
                p.tool_use_ids.iter().any(|i| ids.contains(i))
                    || line.is_some_and(|(thread, l)| p.thread == thread && p.line == l)
            })
            .collect(),
    }
}

/// The events that apply at `at` (for a picker), in [`EventName::ALL`]
/// order; empty for a non-Claude Code session or an `at` naming nothing.
pub fn events_at(session: &Session, at: &At) -> Vec<EventName> {
    if !rebuilds(session.agent) {
        return Vec::new();
    }
    let Ok(resolved) = resolve(session, at) else {
        return Vec::new();
    };
    let all = points(session);
    let present: Vec<EventName> = selected(&all, &resolved).iter().map(|p| p.event).collect();
    EventName::ALL
        .iter()
        .copied()
        .filter(|e| present.contains(e))
        .collect()
}

/// The `--at` form that names exactly `p`: its `tool_use_id` when it
/// concerns one call, `line:N` on the main thread, else (inside a subagent)
/// `line:agent-<agent_id>:N`, or the uuid of its anchor line for a subagent
/// without an `agent_id`; `None` when none is recorded.
fn at_of(session: &Session, p: &Point) -> Option<At> {
    if let [id] = p.tool_use_ids.as_slice() {
        return Some(At::ToolUseId(id.clone()));
    }
    match p.thread {
        None => Some(At::Line(p.line)),
        Some(i) => session.subagents.get(i).and_then(|s| {
            if let Some(id) = &s.agent_id {
                return Some(At::AgentLine(id.clone(), p.line));
            }
            s.lines
                .uuids
                .iter()
                .filter(|(_, l)| **l == p.line)
                .map(|(u, _)| u)
                .min()
                .map(|u| At::Uuid(u.clone()))
        }),
    }
}

/// Every firing at `at` (for a picker that tells apart two firings of one
/// event, e.g. a Stop a hook blocked and the Stop after it): each event with
/// the `At` that names that firing for [`payload`] (its `tool_use_id`, or
/// `line:N` of the main file, or a subagent line's uuid). In
/// [`EventName::ALL`] order, firings of one event in session order; the
/// events are those of [`events_at`]. Empty for a non-Claude Code session
/// or an `at` naming nothing.
pub fn firings_at(session: &Session, at: &At) -> Vec<(EventName, At)> {
    if !rebuilds(session.agent) {
        return Vec::new();
    }
    let Ok(resolved) = resolve(session, at) else {
        return Vec::new();
    };
    let all = points(session);
    let here = selected(&all, &resolved);
    EventName::ALL
        .iter()
        .flat_map(|e| here.iter().filter(move |p| p.event == *e))
        .map(|p| (p.event, at_of(session, p).unwrap_or_else(|| at.clone())))
        .collect()
}

/// `Stop fires at line:75, line:82` (at most 5 places, then `and N more`),
/// or `Stop fires nowhere in this session`.
fn fires_text(session: &Session, all: &[Point], event: EventName) -> String {
    let places: Vec<String> = all
        .iter()
        .filter(|p| p.event == event)
        .filter_map(|p| at_of(session, p))
        .map(|a| a.to_string())
        .collect();
    match places.len() {
        0 => format!("{event} fires nowhere in this session"),
        n if n <= 5 => format!("{event} fires at {}", places.join(", ")),
        n => format!(
            "{event} fires at {} and {} more",
            places[..5].join(", "),
            n - 5
        ),
    }
}

/// Every payload of `event` in the session, in order (used by the fidelity
/// tests and a backtest).
pub fn all_payloads(session: &Session, event: EventName) -> Vec<Payload> {
    if !rebuilds(session.agent) {
        return Vec::new();
    }
    points(session)
        .iter()
        .filter(|p| p.event == event)
        .map(|p| render(session, p))
        .collect()
}

/// The payloads of `events` (in the order given, each event's firings in
/// session order, as [`all_payloads`] per event) whose firing `keep` accepts;
/// `keep` sees the event and the `tool_use_id`s the firing concerns (one for
/// a call's tool events, a batch's for PostToolBatch, none for the others).
/// Only the kept firings are rendered, and the session is walked once for
/// all events (a backtest's line-level prefilter rebuilds only candidate
/// calls this way). Empty for a non-Claude Code session.
pub fn payloads_where(
    session: &Session,
    events: &[EventName],
    keep: &dyn Fn(EventName, &[String]) -> bool,
) -> Vec<Payload> {
    if !rebuilds(session.agent) {
        return Vec::new();
    }
    let all = points(session);
    events
        .iter()
        .flat_map(|e| all.iter().filter(move |p| p.event == *e))
        .filter(|p| keep(p.event, &p.tool_use_ids))
        .map(|p| render(session, p))
        .collect()
}

/// Whether hook payloads are rebuilt for this agent's sessions: Claude
/// Code's, and Factory Droid's in Droid's own shape (`build/droid.rs`).
pub fn rebuilds(agent: Agent) -> bool {
    matches!(agent, Agent::ClaudeCode | Agent::Droid)
}

/// The events whose payloads [`payload`] rebuilds (docs/contract.md#per-event-input-fields, the ones a
/// transcript records enough of); any other event gives
/// [`PayloadError::NotRebuilt`].
pub const REBUILT: &[EventName] = &[
    EventName::PreToolUse,
    EventName::PermissionRequest,
    EventName::PostToolUse,
    EventName::PostToolUseFailure,
    EventName::PostToolBatch,
    EventName::UserPromptSubmit,
    EventName::Stop,
    EventName::SubagentStart,
    EventName::SubagentStop,
    EventName::PreCompact,
    EventName::PostCompact,
    EventName::SessionStart,
    EventName::SessionEnd,
    EventName::TaskCreated,
    EventName::TaskCompleted,
    EventName::Notification,
    EventName::CwdChanged,
    EventName::InstructionsLoaded,
];

/// Rebuilds the stdin JSON of `event` at `at` (the last such event there:
/// for a turn, its last; for [`At::Last`], the session's last).
///
/// # Errors
/// [`PayloadError::NotClaudeCode`] for a Codex or OpenCode session;
/// [`PayloadError::NotRebuilt`] for an event outside [`REBUILT`] (for a
/// Droid session: PreToolUse, PostToolUse, UserPromptSubmit, Stop,
/// SessionStart, SessionEnd);
/// [`PayloadError::NothingAt`] when `at` names no call, line or turn;
/// [`PayloadError::NoEvent`] when `event` does not occur there (the error
/// lists the events that do).
pub fn payload(session: &Session, event: EventName, at: &At) -> Result<Payload, PayloadError> {
    if !rebuilds(session.agent) {
        return Err(PayloadError::NotClaudeCode(
            session.agent.as_str().to_string(),
        ));
    }
    let rebuilt = if session.agent == Agent::Droid {
        droid::REBUILT
    } else {
        REBUILT
    };
    if !rebuilt.contains(&event) {
        return Err(PayloadError::NotRebuilt(event));
    }
    let all = points(session);
    let resolved = resolve(session, at).map_err(|e| match e {
        PayloadError::NothingAt { at, hint } => PayloadError::NothingAt {
            at,
            hint: format!("{hint}; {}", fires_text(session, &all, event)),
        },
        other => other,
    })?;
    let here = selected(&all, &resolved);
    let chosen = here
        .iter()
        .rev()
        .find(|p| p.event == event)
        .copied()
        .or_else(|| {
            // A line uuid that is not itself an anchor: the last such event at or
            // before it in the same thread.
            match &resolved {
                Resolved::Ids(_, Some((thread, line))) => all
                    .iter()
                    .rfind(|p| p.event == event && p.thread == *thread && p.line <= *line),
                _ => None,
            }
        });
    match chosen {
        Some(p) => Ok(render(session, p)),
        None => {
            let mut available: Vec<&str> = EventName::ALL
                .iter()
                .filter(|e| here.iter().any(|p| p.event == **e))
                .map(|e| e.as_str())
                .collect();
            if available.is_empty() {
                available.push("none");
            }
            Err(PayloadError::NoEvent {
                event,
                where_: match at {
                    At::Last => "in this session".to_string(),
                    other => format!("at {other}"),
                },
                available: available.join(", "),
                fires: match at {
                    At::Last => String::new(),
                    _ => format!("; {}", fires_text(session, &all, event)),
                },
            })
        }
    }
}
