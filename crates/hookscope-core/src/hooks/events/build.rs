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
mod points;

use crate::hooks::contract::{self, Presence, Version};
use crate::tools::ToolCall;
use crate::transcript::hook_activity::HookAction;
use crate::transcript::{
    Agent, Event, LineContext, LineIndex, Session, Subagent, ToolCallRecord, Turn,
};
use points::*;

pub use hookscope_hook::event::{EventKey, EventName, UnknownEvent, closest_name};

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
    /// `self`, with a shortened `tool_use_id` (as the `find` table and the
    /// TUI show them, [`crate::transcript::short_id`]: `toolu_015ys…`, the
    /// head and tail `toolu…BkRPr0` of ids that share their start, or any
    /// prefix) made whole when exactly one call of `session` (subagents
    /// included) has an id with that head and tail; an exact id, an unknown
    /// one and every other form are returned unchanged (the builder then
    /// says what exists).
    ///
    /// # Errors
    /// [`PayloadError::AmbiguousId`] when several calls' ids start with it.
    pub fn expanded(&self, session: &Session) -> Result<At, PayloadError> {
        let At::ToolUseId(text) = self else {
            return Ok(self.clone());
        };
        let (head, tail) = text.split_once('…').unwrap_or((text, ""));
        if tail.is_empty()
            && (head.is_empty() || session.all_tool_calls().any(|(_, r)| r.tool_use_id == head))
        {
            return Ok(At::ToolUseId(head.to_string()));
        }
        let ids: Vec<&str> = session
            .all_tool_calls()
            .map(|(_, r)| r.tool_use_id.as_str())
            .filter(|id| {
                id.len() >= head.len() + tail.len() && id.starts_with(head) && id.ends_with(tail)
            })
            .collect();
        match ids.as_slice() {
            [] => Ok(self.clone()),
            [one] => Ok(At::ToolUseId((*one).to_string())),
            many => Err(PayloadError::AmbiguousId {
                at: text.clone(),
                count: many.len(),
                examples: many.iter().take(3).copied().collect::<Vec<_>>().join(", "),
            }),
        }
    }

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

/// Which agents' hook payloads are rebuilt, and why OpenCode's are not: what
/// [`PayloadError::NotClaudeCode`] says, and what the TUI says on an
/// OpenCode call.
pub const REBUILT_FOR: &str = "hook payloads are rebuilt for Claude Code, Codex and Droid sessions only (OpenCode's hooks are JavaScript plugins called in-process, fed no JSON payload)";

/// Why no payload could be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    /// The session's agent ([`Agent::as_str`], carried) has no payloads
    /// here: this builder rebuilds Claude Code and Factory Droid payloads
    /// ([`rebuilds`]), Codex's are rebuilt by `crate::hooks::codex::payload`
    /// (the CLI and MCP route a Codex session there), and OpenCode has none
    /// (its hooks are JavaScript plugins called in-process, fed no JSON).
    #[error("{REBUILT_FOR}; this one is {0}")]
    NotClaudeCode(String),
    /// `at` is the start of several calls' `tool_use_id`s
    /// ([`At::expanded`] makes a prefix whole only when one call has it).
    #[error("{at} starts the tool_use_id of {count} calls ({examples}); give more of the id")]
    AmbiguousId {
        /// What was asked.
        at: String,
        /// How many calls' ids start with it.
        count: usize,
        /// The first few of them, comma-separated.
        examples: String,
    },
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

/// The path as the filesystem resolves it (absolute, symlinks followed),
/// else as given; lossily as a string: a payload's `transcript_path`, as
/// the agent wrote it (it holds the absolute path of the file it writes).
pub(crate) fn real_path(path: &Path) -> String {
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
fn render(session: &Session, p: &Point, transcript_path: &str) -> Payload {
    if session.agent == Agent::Droid {
        return droid::render(session, p, transcript_path);
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
            file_before: p.file_before.map(str::to_string),
            call_id: one_call(p),
        };
    };
    for field in contract.input_at(&version) {
        let name = field.name.as_str();
        if let Some((_, v)) = p.fields.iter().find(|(k, _)| *k == name) {
            json.insert(name.to_string(), v.clone().into_owned());
            continue;
        }
        if let Some((_, reason)) = p.left_out.iter().find(|(k, _)| *k == name) {
            leave(name, reason.clone());
            continue;
        }
        let common: Option<Result<Value, &str>> = match name {
            "session_id" => Some(Ok(json!(session.id))),
            "transcript_path" => Some(Ok(json!(transcript_path))),
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
                    let (v, missing) = if name == "agent_id" {
                        (id, "the subagent's id is not recorded")
                    } else {
                        (ty, "the subagent's type is not recorded")
                    };
                    Some(v.as_ref().map(|v| json!(v)).ok_or(missing))
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
        file_before: p.file_before.map(str::to_string),
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

/// Where `at` points: the calls of an id, or of a line (`(thread, line)`
/// of a `line:N` or uuid, with the `tool_use` lines of the calls on it), or
/// a turn.
enum Resolved {
    Ids(Vec<String>, Option<(Option<usize>, usize)>, Vec<usize>),
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
    // The calls whose `tool_use` or result is on `line` of `thread`: their
    // ids, at that line, and their `tool_use` lines (a call is told from
    // another with the same id by its line).
    let ids_on = |thread: Option<usize>, line: usize| -> Resolved {
        let calls: Vec<(String, usize)> = session
            .all_tool_calls()
            .filter(|(t, r)| {
                *t == thread
                    && (r.line == line || r.result.as_ref().is_some_and(|x| x.line == line))
            })
            .map(|(_, r)| (r.tool_use_id.clone(), r.line))
            .collect();
        let (ids, lines) = calls.into_iter().unzip();
        Resolved::Ids(ids, Some((thread, line)), lines)
    };
    let last_line = session.lines.last_line;
    match at {
        At::Last => Ok(Resolved::Last),
        At::Line(n) => {
            if *n >= 1 && *n <= last_line {
                Ok(ids_on(None, *n))
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
                Ok(ids_on(Some(i), *n))
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
                return Ok(Resolved::Ids(vec![id.clone()], None, Vec::new()));
            }
            if let Some((thread, line)) = find_uuid(session, id) {
                return Ok(ids_on(thread, line));
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
fn selected<'a, 'b>(all: &'a [Point<'b>], resolved: &Resolved) -> Vec<&'a Point<'b>> {
    match resolved {
        Resolved::Last => all.iter().collect(),
        Resolved::Turn(t) => all.iter().filter(|p| p.turn == *t).collect(),
        // A point of one of the calls: by id; for a line, a point built
        // from one call only when it is a call on that line (another call
        // reusing the id is not).
        Resolved::Ids(ids, line, call_lines) => all
            .iter()
            .filter(|p| {
                let of_call = p.tool_use_ids.iter().any(|i| ids.contains(i))
                    && match line {
                        Some((thread, _)) if !p.call_lines.is_empty() => {
                            p.thread == *thread
                                && p.call_lines.iter().any(|l| call_lines.contains(l))
                        }
                        _ => true,
                    };
                of_call || line.is_some_and(|(thread, l)| p.thread == thread && p.line == l)
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
    line_at(session, p.thread, p.line)
}

/// The `--at` form that names `line` of `thread`'s file: `line:N` on the
/// main thread (`None`), `line:agent-<agent_id>:N` in a subagent with an
/// `agent_id`, else the uuid of that line; `None` when the line has none
/// (or the subagent does not exist). What tells apart calls that share a
/// `tool_use_id`.
fn line_at(session: &Session, thread: Option<usize>, line: usize) -> Option<At> {
    match thread {
        None => Some(At::Line(line)),
        Some(i) => session.subagents.get(i).and_then(|s| {
            if let Some(id) = &s.agent_id {
                return Some(At::AgentLine(id.clone(), line));
            }
            s.lines
                .uuids
                .iter()
                .filter(|(_, l)| **l == line)
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

/// The 1-based turn of the session's last firing of `event` (what
/// [`At::Last`] rebuilds), for naming that turn's other firings with
/// [`firings_at`]; `None` when it never fires or the session is not one
/// [`rebuilds`] covers.
pub fn turn_of_last(session: &Session, event: EventName) -> Option<usize> {
    if !rebuilds(session.agent) {
        return None;
    }
    points(session)
        .iter()
        .rfind(|p| p.event == event)
        .map(|p| p.turn + 1)
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
    let path = real_path(&session.path);
    points(session)
        .iter()
        .filter(|p| p.event == event)
        .map(|p| render(session, p, &path))
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
    let mut out = Vec::new();
    for_each_payload_where(session, events, keep, &mut |p| out.push(p));
    out
}

/// [`payloads_where`] handing each payload to `f` as it is rendered,
/// in the same order, instead of collecting them: a backtest of a session
/// with 100,000 firings holds one payload at a time.
pub fn for_each_payload_where(
    session: &Session,
    events: &[EventName],
    keep: &dyn Fn(EventName, &[String]) -> bool,
    f: &mut dyn FnMut(Payload),
) {
    if !rebuilds(session.agent) {
        return;
    }
    let all = points::points_for(session, Some(events));
    // Resolved once: every payload of the session carries the same path.
    let path = real_path(&session.path);
    events
        .iter()
        .flat_map(|e| all.iter().filter(move |p| p.event == *e))
        .filter(|p| keep(p.event, &p.tool_use_ids))
        .for_each(|p| f(render(session, p, &path)));
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
                Resolved::Ids(_, Some((thread, line)), _) => all
                    .iter()
                    .rfind(|p| p.event == event && p.thread == *thread && p.line <= *line),
                _ => None,
            }
        });
    match chosen {
        Some(p) => Ok(render(session, p, &real_path(&session.path))),
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
                    _ => format!(
                        "; {}{}",
                        fires_text(session, &all, event),
                        blocked_note(session, &resolved, event)
                    ),
                },
            })
        }
    }
}

/// How an error names the call whose `tool_use` is on `line` of `thread`:
/// as `--at` would (`line:N`, `line:agent-<agent_id>:N`, else the line's
/// uuid), else `a subagent's line N`.
pub fn place_of_call(session: &Session, thread: Option<usize>, line: usize) -> String {
    line_at(session, thread, line)
        .map_or_else(|| format!("a subagent's line {line}"), |at| at.to_string())
}

/// For an event after a call (PostToolUse, PostToolUseFailure) asked at
/// calls a PreToolUse or PermissionRequest hook blocked: `; the call at
/// line:N was blocked by a hook before it ran, so no <event> fired` (each
/// such call's `tool_use` line); empty otherwise.
fn blocked_note(session: &Session, resolved: &Resolved, event: EventName) -> String {
    let Resolved::Ids(ids, line, call_lines) = resolved else {
        return String::new();
    };
    if !event.after_call() {
        return String::new();
    }
    let blocked: Vec<String> = session
        .all_tool_calls()
        .filter(|(thread, r)| {
            ids.contains(&r.tool_use_id)
                && line.is_none_or(|(t, _)| t == *thread && call_lines.contains(&r.line))
        })
        .filter(|(thread, r)| {
            session
                .hooks_of_call(*thread, r)
                .any(|h| h.blocked_before_call())
        })
        .map(|(thread, r)| place_of_call(session, thread, r.line))
        .collect();
    match blocked.as_slice() {
        [] => String::new(),
        [one] => {
            format!("; the call at {one} was blocked by a hook before it ran, so no {event} fired")
        }
        many => format!(
            "; the calls at {} were blocked by a hook before they ran, so no {event} fired",
            many.join(", ")
        ),
    }
}
