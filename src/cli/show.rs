//! `hookscope show SESSION [PATH...] [--json]`: one session with its turns
//! and tool calls. SESSION is an id, a unique id prefix, or a path.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use hookscope_core::transcript::spawns::{SpawnTree, Step};
use hookscope_core::transcript::{
    ResolveError, Session, SessionRef, discover, export::session_json, load, resolve_session, text,
};

use hookscope_core::transcript::Event;
use hookscope_core::transcript::claude_code::PROCESS_NOTE;
use hookscope_core::transcript::hook_activity::HookAction;

use super::{discover_or_exit, fail, print_json};
use crate::words::plural;

/// Resolves SESSION: a session's file (any bytes, so a non-UTF-8 file
/// name opens: a `.jsonl`, a `.jsonl.zst`, an OpenCode database holding one
/// session), a folder holding one session, else an id or id prefix among
/// the sessions found under `paths` through the one resolver every command
/// shares ([`resolve_session`]; ids are compared with SESSION decoded
/// lossily). Identical copies of one session (a `.jsonl` and its `.zst`, a
/// backup elsewhere) open once, with a note on stderr naming the others.
///
/// Exits 2 with one line on stderr when nothing or several sessions match
/// (files that differ under one id are listed, to pass one as SESSION).
pub fn resolve(session: &OsStr, paths: &[PathBuf]) -> SessionRef {
    let as_path = Path::new(session);
    let shown = session.to_string_lossy();
    // Why a file named SESSION was not taken, for the error when no id
    // matches it either.
    let mut not_taken = None;
    if as_path.is_file() {
        // A file the discovery takes (else SESSION is read as an id).
        match discover(&[as_path.to_path_buf()]) {
            Ok(found) => return one_in(found.sessions, "file", &shown),
            Err(e) => not_taken = Some(e.to_string()),
        }
    }
    // A `.jsonl` that exists but is a FIFO or device: never opened, and
    // not looked up as an id either.
    if hookscope_core::transcript::fsread::is_jsonl_name(as_path)
        && let Ok(meta) = std::fs::metadata(as_path)
        && !meta.is_file()
        && !meta.is_dir()
    {
        fail(format!(
            "{shown}: not a regular file ({}); not opened",
            hookscope_core::transcript::fsread::kind_of(&meta.file_type())
        ));
    }
    // A path that is not there (an id never holds a `/`): say so, not
    // "no session matches".
    if shown.contains('/') && std::fs::symlink_metadata(as_path).is_err() {
        fail(format!("{shown}: no such file or folder"));
    }
    // A folder given as SESSION: its one session (else say how to pick).
    if as_path.is_dir() {
        let found = discover(&[as_path.to_path_buf()]).unwrap_or_else(|e| fail(e));
        return one_in(found.sessions, "folder", &shown);
    }
    let session: &str = &shown;
    // A full id the index holds once, with its files unchanged, needs no
    // walk of the roots.
    if let Some(stored) = hookscope_core::service::Library::new(paths)
        .with_existing_index(false)
        .resolve_stored(session)
    {
        return stored;
    }
    let found = discover_or_exit(paths);
    match resolve_session(&found.sessions, session) {
        Ok(resolved) => {
            if let Some(note) = resolved.note() {
                errln!("hookscope: {note}");
            }
            resolved.session.clone()
        }
        Err(ResolveError::NoMatch(_)) => {
            // Say which named files were skipped (a hook capture, a stream
            // log): the usual reason a session "is not there".
            let skipped: Vec<String> = found
                .diagnostics
                .iter()
                .filter(|d| d.locus.is_none() && paths.contains(&d.path))
                .map(|d| format!("{}: {}", d.path.display(), d.message))
                .collect();
            if let Some(why) = not_taken {
                fail(format!("no session matches {session:?} (as a file: {why})"))
            }
            if skipped.is_empty() {
                fail(format!("no session matches {session:?}"))
            } else {
                fail(format!(
                    "no session matches {session:?} (skipped {})",
                    skipped.join("; ")
                ))
            }
        }
        Err(other) => fail(other),
    }
}

/// The one session of a file or folder given as SESSION (`kind`: `file`
/// or `folder`); exits 2 when it holds none or several.
fn one_in(mut sessions: Vec<SessionRef>, kind: &str, shown: &str) -> SessionRef {
    let place = if kind == "file" {
        format!("in the file {shown}")
    } else {
        format!("under the folder {shown}")
    };
    match sessions.len() {
        1 => sessions.remove(0),
        0 if kind == "file" => fail(format!(
            "{shown} is {}",
            hookscope_core::transcript::discover::NOT_A_SESSION
        )),
        0 => fail(format!("no session found {place}")),
        n => fail(format!(
            "{n} sessions {place}; give one's id (or a unique prefix) and the {kind} as PATH: `… {} {shown}`",
            sessions[0].id
        )),
    }
}

/// `text` with secrets masked (`[REDACTED_<TYPE>]`).
fn mask(text: &str) -> String {
    let mut counts = hookscope_core::redact::Redactions::new();
    hookscope_core::redact::redactor()
        .redact(text, &mut counts)
        .into_owned()
}

/// Loads SESSION fully, exiting 2 when it cannot be read.
pub fn load_or_exit(session: &OsStr, paths: &[PathBuf]) -> Session {
    let found = resolve(session, paths);
    load(&found).unwrap_or_else(|e| fail(e))
}

/// Runs the subcommand: JSON (see `export::session_json`) or a readable
/// outline. Subagents are printed under the call that spawned them through
/// the session's spawn tree (each once, so a spawn cycle ends); subagents not
/// reached from the main thread follow under `unlinked subagent` headings.
pub fn run(session: &OsStr, paths: &[PathBuf], json: bool) {
    let loaded = load_or_exit(session, paths);
    if json {
        print_json(&session_json(&loaded));
        return;
    }
    let tree = SpawnTree::new(&loaded);
    let s = loaded.summary_with(&tree);
    outln!("{}  {}", s.id, s.title.as_deref().unwrap_or("(untitled)"));
    // The header counts the turns as they are numbered below (and as
    // `--at N` takes them), and names those that are not a prompt the
    // model answered.
    let odd: Vec<String> = loaded
        .turns
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            if t.rejected {
                Some(format!("turn {}: a prompt a hook rejected", i + 1))
            } else if t.prompt_line.is_none() {
                Some(format!("turn {}: before the first prompt", i + 1))
            } else {
                None
            }
        })
        .collect();
    outln!(
        "{}{}, {}, {}, {}, {}",
        plural(loaded.turns.len(), "turn"),
        if odd.is_empty() {
            String::new()
        } else {
            format!(" ({})", odd.join("; "))
        },
        plural(s.tool_calls, "tool call"),
        plural(s.errors, "error"),
        plural(s.subagents, "subagent"),
        plural(s.diagnostics, "diagnostic")
    );
    // Each turn's counts: its calls and subagents, transitively (the one
    // definition in `transcript::spawns`). Turns are numbered as `--at N`
    // takes them: 1-based over every turn, the prompt-less lead of a
    // resumed file and a prompt a hook rejected included.
    let turn_header = |i: usize| {
        let Some(turn) = loaded.turns.get(i) else {
            return;
        };
        let number = i + 1;
        let prompt = text::one_line(&text::display_prompt(&turn.prompt), 80);
        let calls = tree.turn_tool_calls(&loaded, None, i);
        let subs = tree.turn_subagents(&loaded, None, i).len();
        let counts = match (calls, subs) {
            (0, 0) => String::new(),
            (c, 0) => format!("  [{}]", plural(c, "tool call")),
            (c, n) => format!("  [{}, {}]", plural(c, "tool call"), plural(n, "subagent")),
        };
        if turn.rejected {
            let why = loaded
                .lines
                .hook_activity
                .iter()
                .find(|h| h.turn == i && h.action == HookAction::Blocked)
                .map(|h| h.what(120))
                .unwrap_or_else(|| "blocked by hook".to_string());
            outln!(
                "\nturn {number}: {prompt}\n  ⛔ prompt rejected, the turn never started: {}",
                mask(&why)
            );
        } else if turn.prompt_line.is_some() {
            outln!("\nturn {number}: {prompt}{counts}");
        } else {
            outln!("\nturn {number}: (before the first prompt: resumed, no prompt){counts}");
        }
    };
    // The main thread's firings that are not on a call and acted (a Stop
    // block, added context, a failure), in line order among the calls of
    // their turn. A rejected prompt's block is in its header already.
    let mut firings: Vec<(usize, usize, String)> = loaded
        .lines
        .hook_activity
        .iter()
        .filter(|h| {
            !h.on_call()
                && h.action.acted()
                && !(h.action == HookAction::Blocked && h.event_name() == "UserPromptSubmit")
        })
        .map(|h| {
            (
                h.turn,
                h.line(),
                format!("  ⚑ {}: {}", h.event_name(), mask(&h.what(120))),
            )
        })
        .collect();
    // Where one claude process ended and the next resumed the file (the
    // Timeline's `◦ process:` rows, docs/formats.md#one-file-several-processes),
    // in the same line order.
    for (i, turn) in loaded.turns.iter().enumerate() {
        for e in &turn.events {
            if let Event::Note {
                label, text, line, ..
            } = e
                && label == PROCESS_NOTE
            {
                let first = text.lines().next().unwrap_or("");
                firings.push((i, *line, format!("  ◦ {label}: {first} (line {line})")));
            }
        }
    }
    firings.sort_by_key(|(t, l, _)| (*t, *l));
    let next_firing = std::cell::Cell::new(0);
    // Prints the firings not printed yet that come before (turn, line).
    let firings_before = |turn: usize, line: usize| {
        while let Some((t, l, text)) = firings.get(next_firing.get()) {
            if (*t, *l) >= (turn, line) {
                break;
            }
            outln!("{text}");
            next_firing.set(next_firing.get() + 1);
        }
    };
    let turn_header = |i: usize| {
        firings_before(i, 0);
        turn_header(i);
    };
    // Turn headers printed so far (main thread).
    let mut next_turn = 0;
    for step in tree.walk_session(&loaded) {
        match step {
            Step::Enter {
                thread: Some(i),
                depth: 0,
            } => {
                while next_turn < loaded.turns.len() {
                    turn_header(next_turn);
                    next_turn += 1;
                }
                let sub = &loaded.subagents[i];
                outln!(
                    "\nunlinked subagent: {} ({})",
                    sub.agent_id.as_deref().unwrap_or("?"),
                    sub.path.to_string_lossy()
                );
            }
            Step::Call {
                at, record, depth, ..
            } => {
                if at.thread.is_none() {
                    while next_turn <= at.turn {
                        turn_header(next_turn);
                        next_turn += 1;
                    }
                    firings_before(at.turn, record.line);
                }
                print_call(&loaded, at.thread, record, depth + 1);
            }
            Step::Enter { .. } | Step::Leave { .. } => {}
        }
    }
    while next_turn < loaded.turns.len() {
        turn_header(next_turn);
        next_turn += 1;
    }
    firings_before(usize::MAX, usize::MAX);
    for d in &loaded.diagnostics {
        errln!("diagnostic: {d}");
    }
}

/// One call of the outline: kind, name, `✗` when it failed (`(no result)`
/// when none is recorded), then what the
/// transcript records hooks did to it (the TUI's marks, for every agent:
/// `⛔ hook blocked`, `⚠ hook objected` after it ran, `↻ hook rewrote`,
/// `⇄ hook replaced output`, `⚖ hook: ask`, …; `HookAction::mark`), its
/// summary as it ran (`asked → ran` for a rewritten call) and its
/// `tool_use_id`.
fn print_call(
    session: &hookscope_core::transcript::Session,
    thread: Option<usize>,
    call: &hookscope_core::transcript::ToolCallRecord,
    depth: usize,
) {
    let mut mark = String::from(match &call.result {
        Some(r) if r.is_error => " ✗",
        Some(_) => "",
        // As the TUI says it (a killed process left the call unanswered).
        None => " (no result)",
    });
    for h in session.hooks_of_call(thread, call) {
        let text = h.action.mark(h.decision.as_deref());
        if !text.is_empty() && !mark.contains(&text) {
            mark.push(' ');
            mark.push_str(&text);
        }
    }
    let summary = mask(&session.summary_as_ran(thread, call));
    // The tool_use_id last, whole: it is what `payload`/`replay --at` take.
    outln!(
        "{}{:<6} {}{}{}  {}  [{}]",
        "  ".repeat(depth),
        call.tool_kind.as_str(),
        call.name(),
        call.tool_resolved
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default(),
        mark,
        summary,
        call.tool_use_id
    );
}
