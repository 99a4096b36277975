//! What `hookscope tail` prints for each thing a followed session gains
//! ([`crate::transcript::follow`]), as one typed value: `--json` is its
//! `serde` form (one object per line, tagged by `type`), the text line is
//! [`LiveLine::text`]. Every string that comes from a transcript (a
//! call's summary, an output, a hook's command and what it said) is
//! masked ([`crate::redact`]) when the value is built, so neither form can
//! show a secret the other hides (docs/cli.md#hookscope-tail-watch-a-session-while-the-agent-writes-it).

use chrono::{DateTime, Utc};
use hookscope_hook::event::EventKey;
use serde::Serialize;

use super::follow::{Change, LiveItem, LiveKind};
use super::{Session, short_session_id, text};

/// One printed line of `tail`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LiveLine {
    /// A session appeared under the followed folder.
    Session {
        /// Its id.
        session_id: String,
        /// Its agent (`claude-code`, `codex`, …).
        agent: &'static str,
        /// Its main file.
        path: String,
    },
    /// A followed file was truncated or replaced: read again from the start.
    Reset {
        /// The file.
        path: String,
    },
    /// A followed file cannot be read now.
    Unreadable {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// A `tool_use` appeared.
    Call {
        /// Which call, in which session and thread.
        #[serde(flatten)]
        head: CallHead,
        /// Its resolved name, when it differs by agent.
        tool_resolved: Option<String>,
        /// One-line summary of its input, masked.
        summary: String,
        /// Its time, RFC 3339 with milliseconds (UTC).
        timestamp: Option<String>,
        /// The thread file it is in.
        path: String,
        /// Its 1-based line there.
        line: usize,
        /// What the text line shows: the summary, or the compact input
        /// (masked) when there is no field to summarize.
        #[serde(skip)]
        shown: String,
        /// The text line's prefix: time, short session id, `↳` in a
        /// subagent.
        #[serde(skip)]
        prefix: Prefix,
    },
    /// A call's `tool_result` appeared.
    Result {
        /// Which call, in which session and thread.
        #[serde(flatten)]
        head: CallHead,
        /// The result's `is_error`.
        is_error: bool,
        /// Its text on one line (200 characters at most), masked.
        output: String,
        /// The result's time (else the call's).
        timestamp: Option<String>,
        /// The thread file.
        path: String,
        /// The result's 1-based line.
        line: usize,
        /// The text line's prefix.
        #[serde(skip)]
        prefix: Prefix,
    },
    /// A hook firing the transcript records.
    Hook {
        /// The session's id.
        session_id: String,
        /// Its agent.
        agent: &'static str,
        /// The subagent's `agentId` (`None` on the main thread).
        agent_id: Option<String>,
        /// The hook event, as recorded.
        event: Option<EventKey>,
        /// The recorded hook name (`PreToolUse:Bash`).
        hook_name: Option<String>,
        /// What it did (`blocked`, `rewrote`, …).
        action: &'static str,
        /// The call it is about.
        tool_use_id: Option<String>,
        /// What it said, on one line (200 characters at most), masked.
        what: String,
        /// The command, masked.
        command: Option<String>,
        /// Its exit code, when recorded.
        exit_code: Option<i64>,
        /// Its time.
        timestamp: Option<String>,
        /// The thread file.
        path: String,
        /// Its first record's 1-based line.
        line: usize,
        /// The event's name for the text line (`event`, else from
        /// `hook_name`).
        #[serde(skip)]
        event_name: String,
        /// The text line's prefix.
        #[serde(skip)]
        prefix: Prefix,
    },
    /// A new diagnostic.
    Diagnostic {
        /// The session's id.
        session_id: String,
        /// The file.
        path: String,
        /// Its 1-based line, when it is about one.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
}

/// What a call's and a result's line share: which call, in which session
/// and thread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallHead {
    /// The session's id.
    pub session_id: String,
    /// Its agent (`claude-code`, `codex`, …).
    pub agent: &'static str,
    /// The subagent's `agentId` (`None` on the main thread).
    pub agent_id: Option<String>,
    /// `tool_use.id`.
    pub tool_use_id: String,
    /// The tool name as invoked.
    pub name: String,
    /// Its kind (`bash`, `edit`, …).
    pub tool_kind: &'static str,
}

/// The start of an item's text line: `YYYY-MM-DD HH:MM:SS` (UTC, or `-`),
/// the short session id, and `↳` when the item is in a subagent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Prefix {
    time: String,
    sid: String,
    sub: &'static str,
}

/// Secrets masked as `[REDACTED_<TYPE>]`.
fn mask(text: &str) -> String {
    let mut counts = crate::redact::Redactions::default();
    crate::redact::redactor()
        .redact(text, &mut counts)
        .into_owned()
}

fn stamp(ts: Option<DateTime<Utc>>) -> Option<String> {
    ts.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

fn time(ts: Option<DateTime<Utc>>) -> String {
    ts.map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|| "-".to_string())
}

impl LiveLine {
    /// The lines of a [`Change`] other than [`Change::Updated`] (whose items
    /// are each [`LiveLine::of_item`]); `None` for an update.
    pub fn of_change(change: &Change) -> Option<LiveLine> {
        match change {
            Change::Added(s) => Some(LiveLine::Session {
                session_id: s.id.clone(),
                agent: s.agent.as_str(),
                path: s.path.to_string_lossy().into_owned(),
            }),
            Change::Updated { .. } => None,
            Change::Reset { path } => Some(LiveLine::Reset {
                path: path.to_string_lossy().into_owned(),
            }),
            Change::Unreadable { path, message } => Some(LiveLine::Unreadable {
                path: path.to_string_lossy().into_owned(),
                message: message.clone(),
            }),
        }
    }

    /// The line of one item `session` gained.
    pub fn of_item(session: &Session, item: &LiveItem) -> LiveLine {
        let agent_id = item
            .thread
            .and_then(|i| session.subagents.get(i))
            .and_then(|s| s.agent_id.clone());
        let path = session
            .thread_path(item.thread)
            .to_string_lossy()
            .into_owned();
        let prefix = |ts: Option<DateTime<Utc>>| Prefix {
            time: time(ts),
            sid: short_session_id(&session.id).to_string(),
            sub: if item.thread.is_some() { "↳" } else { "" },
        };
        let agent = session.agent.as_str();
        let head = |r: &super::ToolCallRecord, agent_id: Option<String>| CallHead {
            session_id: session.id.clone(),
            agent,
            agent_id,
            tool_use_id: r.tool_use_id.clone(),
            name: r.name().to_string(),
            tool_kind: r.tool_kind.as_str(),
        };
        match &item.kind {
            LiveKind::Call(r) => {
                let summary = mask(&r.summary());
                // No field to summarize (an MCP tool's own input): its
                // compact input, masked, as `find`'s table shows it.
                let shown = if summary.is_empty() {
                    r.call
                        .raw()
                        .filter(|v| !v.is_null())
                        .map(|v| mask(&v.to_string()))
                        .unwrap_or_default()
                } else {
                    summary.clone()
                };
                LiveLine::Call {
                    head: head(r, agent_id),
                    tool_resolved: r.tool_resolved.clone(),
                    summary,
                    timestamp: stamp(r.timestamp),
                    path,
                    line: r.line,
                    shown,
                    prefix: prefix(r.timestamp),
                }
            }
            LiveKind::Result(r) => {
                let result = r.result.as_ref();
                let ts = result.and_then(|x| x.timestamp).or(r.timestamp);
                LiveLine::Result {
                    head: head(r, agent_id),
                    is_error: result.is_some_and(|x| x.is_error),
                    output: mask(&text::one_line(result.map_or("", |x| x.text.as_str()), 200)),
                    timestamp: stamp(ts),
                    path,
                    line: result.map_or(r.line, |x| x.line),
                    prefix: prefix(ts),
                }
            }
            LiveKind::Hook(h) => LiveLine::Hook {
                session_id: session.id.clone(),
                agent,
                agent_id,
                event: h.event.clone(),
                hook_name: h.hook_name.clone(),
                action: h.action.as_str(),
                tool_use_id: h.tool_use_id.clone(),
                what: mask(&h.what(200)),
                command: h.command.as_deref().map(mask),
                exit_code: h.exit_code,
                timestamp: stamp(h.timestamp),
                path,
                line: h.line(),
                event_name: h.event_name().to_string(),
                prefix: prefix(h.timestamp),
            },
            LiveKind::Diagnostic(d) => LiveLine::Diagnostic {
                session_id: session.id.clone(),
                path: d.path.to_string_lossy().into_owned(),
                line: d.line(),
                message: d.message.clone(),
            },
        }
    }

    /// The text line: `== new session ID (agent) PATH`, `TIME  SID  →
    /// Bash  SUMMARY` for a call, `← Bash  ok|✗  OUTPUT` for a result,
    /// `⚑ EVENT  WHAT` for a hook, `!! PATH:LINE: MESSAGE` for a
    /// diagnostic (100 characters of the variable part at most).
    pub fn text(&self) -> String {
        match self {
            LiveLine::Session {
                session_id,
                agent,
                path,
            } => format!("== new session {session_id} ({agent}) {path}"),
            LiveLine::Reset { path } => {
                format!("== {path}: truncated or replaced; read again from the start")
            }
            LiveLine::Unreadable { path, message } => format!("== {path}: cannot read: {message}"),
            LiveLine::Call {
                head,
                shown,
                prefix: p,
                ..
            } => format!(
                "{}  {}  → {}{}  {}",
                p.time,
                p.sid,
                p.sub,
                head.name,
                text::one_line(shown, 100)
            )
            .trim_end()
            .to_string(),
            LiveLine::Result {
                head,
                is_error,
                output,
                prefix: p,
                ..
            } => format!(
                "{}  {}  ← {}{}  {}  {}",
                p.time,
                p.sid,
                p.sub,
                head.name,
                if *is_error { "✗" } else { "ok" },
                text::one_line(output, 100)
            ),
            LiveLine::Hook {
                what,
                event_name,
                prefix: p,
                ..
            } => format!(
                "{}  {}  ⚑ {}{event_name}  {}",
                p.time,
                p.sid,
                p.sub,
                text::one_line(what, 100)
            ),
            LiveLine::Diagnostic {
                path,
                line,
                message,
                ..
            } => format!(
                "!! {path}{}: {message}",
                line.map(|l| format!(":{l}")).unwrap_or_default()
            ),
        }
    }
}
