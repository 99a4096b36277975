//! `hookscope tail [SESSION|PATH] [PATH...] [--json]`: print a session's
//! tool calls, their results and the hook firings as they are written,
//! like `tail -f` (docs/cli.md#hookscope-tail-watch-a-session-while-the-agent-writes-it), over [`hookscope_core::transcript::follow`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use clap::Args;
use serde_json::{Value, json};

use hookscope_core::transcript::follow::{
    Change, FollowOptions, Follower, LiveItem, LiveKind, items_of,
};
use hookscope_core::transcript::{Agent, Session, SessionRef, discover, short_session_id, text};

use super::{fail, print_raw, print_text};

/// `hookscope tail` arguments.
#[derive(Args, Debug)]
pub struct TailArgs {
    /// A session id, a unique id prefix or a transcript path: follow that
    /// session (and its subagents); or a folder: follow its most recently
    /// modified session and every session that appears under it. Default:
    /// the default roots, as a folder.
    #[arg(value_parser = clap::value_parser!(OsString))]
    pub target: Option<OsString>,
    /// Where to look for a SESSION id (default: as for `sessions`).
    pub paths: Vec<PathBuf>,
    /// One JSON object per line: {"type": "call"|"result"|"hook"|
    /// "diagnostic"|"session"|"reset"|"unreadable", ...}.
    #[arg(long)]
    pub json: bool,
    /// Print everything the session already holds first (default: its last
    /// --last calls).
    #[arg(long, conflicts_with = "last")]
    pub from_start: bool,
    /// Print the session's last N calls (with their results and hook
    /// firings) before following; 0 prints only what arrives.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub last: usize,
    /// Stop after SECS seconds (exit 0; exit 1 when --count was not
    /// reached).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Stop after printing N lines (exit 0).
    #[arg(long, value_name = "N")]
    pub count: Option<usize>,
}

/// What is followed, as resolved from the arguments.
struct Target {
    /// The session to follow first (none yet: wait for one).
    session: Option<SessionRef>,
    /// Folders (or files) under which new sessions are followed too.
    roots: Vec<PathBuf>,
}

/// Runs `hookscope tail`. Exits 2 on a bad target (missing path, a FIFO or
/// device, not a transcript, an unknown or ambiguous id, an OpenCode
/// session), 1 when `--timeout` ends before `--count` lines, else 0 (also
/// on SIGINT/SIGTERM and on a closed stdout).
pub fn run(args: &TailArgs) {
    let target = resolve(args);
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // Without the flag the default action still ends the process.
        let _ = signal_hook::flag::register(signal, stop.clone());
    }
    let mut out = Printer {
        json: args.json,
        printed: 0,
        count: args.count,
    };
    let mut follower = Follower::new(&target.roots, FollowOptions::default());
    match &target.session {
        Some(session_ref) => {
            let session = follower.follow(session_ref).unwrap_or_else(|e| fail(e));
            errln!(
                "hookscope: following {} ({}); Ctrl-C to stop",
                session.id,
                session.path.display()
            );
            for item in &backlog(&session, args.from_start, args.last) {
                out.item(&session, item);
            }
        }
        None => errln!(
            "hookscope: no session yet under {}; waiting for one (Ctrl-C to stop)",
            target
                .roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
    let deadline = args
        .timeout
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| Instant::now() + Duration::from_secs_f64(s.min(1e9)));
    loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let slice = match deadline {
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    if let Some(n) = args.count.filter(|n| out.printed < *n) {
                        errln!(
                            "hookscope: timeout after {} s with {} of {n} lines",
                            args.timeout.unwrap_or(0.0),
                            out.printed
                        );
                        std::process::exit(1);
                    }
                    return;
                }
                left.min(Duration::from_millis(250))
            }
            None => Duration::from_millis(250),
        };
        for change in follower.wait(slice) {
            out.change(&change);
        }
    }
}

/// Resolves the target (module docs of [`TailArgs::target`]); exits 2 on a
/// bad one.
fn resolve(args: &TailArgs) -> Target {
    let Some(target) = &args.target else {
        return newest_under(&args.paths);
    };
    let path = Path::new(target);
    let shown = target.to_string_lossy();
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => newest_under(&[path.to_path_buf()]),
        Ok(meta) if !meta.is_file() => fail(format!(
            "{shown}: not a regular file ({}); not followed",
            hookscope_core::transcript::fsread::kind_of(&meta.file_type())
        )),
        Ok(_) => {
            let found = discover(&[path.to_path_buf()]).unwrap_or_else(|e| fail(e));
            let session = found.sessions.into_iter().next().unwrap_or_else(|| {
                fail(format!(
                    "{shown} is {}",
                    hookscope_core::transcript::discover::NOT_A_SESSION
                ))
            });
            Target {
                session: Some(followable(session)),
                roots: Vec::new(),
            }
        }
        Err(_)
            if shown.contains('/') || hookscope_core::transcript::fsread::is_jsonl_name(path) =>
        {
            fail(format!("no such file or directory: {shown}"))
        }
        Err(_) => Target {
            session: Some(followable(super::show::resolve(target, &args.paths))),
            roots: Vec::new(),
        },
    }
}

/// The most recently modified session under `roots` (the default roots
/// when empty), and the roots for new ones.
fn newest_under(roots: &[PathBuf]) -> Target {
    let found = super::discover_or_exit(roots);
    let session = found
        .sessions
        .into_iter()
        .find(|s| s.agent != Agent::OpenCode);
    if found.roots.is_empty() {
        fail(
            "no session folder found (~/.claude/projects, ~/.codex/sessions, ~/.factory/sessions); give a PATH",
        );
    }
    Target {
        session,
        roots: found.roots,
    }
}

fn followable(session: SessionRef) -> SessionRef {
    if session.agent == Agent::OpenCode {
        fail(format!(
            "{}: OpenCode sessions cannot be followed (a database, not lines)",
            session.path.display()
        ));
    }
    session
}

/// The items printed before following: everything (`from_start`), else
/// from the `last`-th last call on (with the results and hook firings
/// after it).
fn backlog(session: &Session, from_start: bool, last: usize) -> Vec<LiveItem> {
    let items = items_of(session);
    if from_start {
        return items;
    }
    if last == 0 {
        return Vec::new();
    }
    let calls: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i.kind, LiveKind::Call(_)))
        .map(|(n, _)| n)
        .collect();
    let from = calls
        .len()
        .checked_sub(last)
        .and_then(|k| calls.get(k))
        .copied()
        .unwrap_or(0);
    items.into_iter().skip(from).collect()
}

/// Prints lines and counts them.
struct Printer {
    json: bool,
    printed: usize,
    count: Option<usize>,
}

impl Printer {
    fn line(&mut self, value: Value, text: String) {
        if self.json {
            print_raw(&value.to_string());
        } else {
            print_text(&text);
        }
        self.printed += 1;
        if self.count.is_some_and(|n| self.printed >= n) {
            std::process::exit(0);
        }
    }

    fn change(&mut self, change: &Change) {
        match change {
            Change::Added(s) => self.line(
                json!({
                    "type": "session",
                    "session_id": s.id,
                    "agent": s.agent.as_str(),
                    "path": s.path.to_string_lossy(),
                }),
                format!(
                    "== new session {} ({}) {}",
                    s.id,
                    s.agent.as_str(),
                    s.path.display()
                ),
            ),
            Change::Updated { session, items } => {
                for item in items {
                    self.item(session, item);
                }
            }
            Change::Reset { path } => self.line(
                json!({"type": "reset", "path": path.to_string_lossy()}),
                format!(
                    "== {}: truncated or replaced; read again from the start",
                    path.display()
                ),
            ),
            Change::Unreadable { path, message } => self.line(
                json!({"type": "unreadable", "path": path.to_string_lossy(), "message": message}),
                format!("== {}: cannot read: {message}", path.display()),
            ),
        }
    }

    fn item(&mut self, session: &Session, item: &LiveItem) {
        let (value, text) = describe(session, item);
        self.line(value, text);
    }
}

/// The JSON object and the text line of one item.
fn describe(session: &Session, item: &LiveItem) -> (Value, String) {
    let agent_id = item
        .thread
        .and_then(|i| session.subagents.get(i))
        .and_then(|s| s.agent_id.clone());
    let path = session
        .thread_path(item.thread)
        .to_string_lossy()
        .into_owned();
    let sid = short_session_id(&session.id).to_string();
    let sub = if item.thread.is_some() { "↳" } else { "" };
    match &item.kind {
        LiveKind::Call(r) => {
            let summary = mask(&r.summary());
            let value = json!({
                "type": "call",
                "session_id": session.id,
                "agent": session.agent.as_str(),
                "agent_id": agent_id,
                "tool_use_id": r.tool_use_id,
                "name": r.name(),
                "tool_kind": r.tool_kind.as_str(),
                "tool_resolved": r.tool_resolved,
                "summary": summary,
                "timestamp": stamp(r.timestamp),
                "path": path,
                "line": r.line,
            });
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
            let text = format!(
                "{}  {sid}  → {sub}{}  {}",
                time(r.timestamp),
                r.name(),
                text::one_line(&shown, 100)
            )
            .trim_end()
            .to_string();
            (value, text)
        }
        LiveKind::Result(r) => {
            let result = r.result.as_ref();
            let output = mask(&text::one_line(result.map_or("", |x| x.text.as_str()), 200));
            let is_error = result.is_some_and(|x| x.is_error);
            let ts = result.and_then(|x| x.timestamp).or(r.timestamp);
            let value = json!({
                "type": "result",
                "session_id": session.id,
                "agent": session.agent.as_str(),
                "agent_id": agent_id,
                "tool_use_id": r.tool_use_id,
                "name": r.name(),
                "tool_kind": r.tool_kind.as_str(),
                "is_error": is_error,
                "output": output,
                "timestamp": stamp(ts),
                "path": path,
                "line": result.map_or(r.line, |x| x.line),
            });
            let text = format!(
                "{}  {sid}  ← {sub}{}  {}  {}",
                time(ts),
                r.name(),
                if is_error { "✗" } else { "ok" },
                text::one_line(&output, 100)
            );
            (value, text)
        }
        LiveKind::Hook(h) => {
            let what = mask(&h.what(200));
            let value = json!({
                "type": "hook",
                "session_id": session.id,
                "agent": session.agent.as_str(),
                "agent_id": agent_id,
                "event": h.event,
                "hook_name": h.hook_name,
                "action": h.action.as_str(),
                "tool_use_id": h.tool_use_id,
                "what": what,
                "command": h.command.as_deref().map(mask),
                "exit_code": h.exit_code,
                "timestamp": stamp(h.timestamp),
                "path": path,
                "line": h.line(),
            });
            let text = format!(
                "{}  {sid}  ⚑ {sub}{}  {}",
                time(h.timestamp),
                h.event_name(),
                text::one_line(&what, 100)
            );
            (value, text)
        }
        LiveKind::Diagnostic(d) => {
            let value = json!({
                "type": "diagnostic",
                "session_id": session.id,
                "path": d.path.to_string_lossy(),
                "line": d.line(),
                "message": d.message,
            });
            let text = format!(
                "!! {}{}: {}",
                d.path.display(),
                d.line().map(|l| format!(":{l}")).unwrap_or_default(),
                d.message
            );
            (value, text)
        }
    }
}

/// Secrets masked as `[REDACTED_<TYPE>]`.
fn mask(text: &str) -> String {
    let mut counts = hookscope_core::redact::Redactions::default();
    hookscope_core::redact::redactor()
        .redact(text, &mut counts)
        .into_owned()
}

fn stamp(ts: Option<DateTime<Utc>>) -> Value {
    ts.map_or(Value::Null, |t| {
        Value::String(t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
    })
}

/// `YYYY-MM-DD HH:MM:SS` (UTC), as the `find` table, or `-`.
fn time(ts: Option<DateTime<Utc>>) -> String {
    ts.map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|| "-".to_string())
}
