//! `hookscope tail [SESSION|PATH] [PATH...] [--json]`: print a session's
//! tool calls, their results and the hook firings as they are written,
//! like `tail -f` (docs/cli.md#hookscope-tail-watch-a-session-while-the-agent-writes-it), over [`hookscope_core::transcript::follow`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::Args;

use hookscope_core::transcript::follow::{
    Change, FollowOptions, Follower, LiveItem, LiveKind, items_of,
};
use hookscope_core::transcript::live_line::LiveLine;
use hookscope_core::transcript::{Agent, Session, SessionRef, discover};

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
    fn line(&mut self, line: &LiveLine) {
        if self.json {
            print_raw(&serde_json::to_string(line).unwrap_or_default());
        } else {
            print_text(&line.text());
        }
        self.printed += 1;
        if self.count.is_some_and(|n| self.printed >= n) {
            std::process::exit(0);
        }
    }

    fn change(&mut self, change: &Change) {
        match change {
            Change::Updated { session, items } => {
                for item in items {
                    self.item(session, item);
                }
            }
            other => {
                if let Some(line) = LiveLine::of_change(other) {
                    self.line(&line);
                }
            }
        }
    }

    fn item(&mut self, session: &Session, item: &LiveItem) {
        self.line(&LiveLine::of_item(session, item));
    }
}
