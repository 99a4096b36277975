//! `hookscope payload SESSION --event EVENT [--at ID] [--raw] [--envelope]`:
//! the stdin JSON Claude Code sent (or would send) to a hook, rebuilt from
//! the transcript (`hooks::events::payload`; for a Codex session the one
//! Codex would send, `hooks::codex::payload`), alone on stdout so that
//! `hookscope payload … | ./my-hook.sh` works.
//!
//! stdout: the payload as one line of JSON (as Claude Code writes it), or
//! with `--envelope` a fixture object (pretty); with `--envelope --rules
//! FILE` the fixture also holds `expected`, the rule set's decision for the
//! event (`hooks::replay::replay`); without `--rules` only that the event
//! occurred, never a guessed decision. stderr: one line per secret
//! type masked (unless `--raw`) and per field left out. Exit 2 on bad
//! arguments (unknown event, `--at` naming nothing, an event the point does
//! not have), with what exists.

use std::ffi::OsString;
use std::path::PathBuf;

use hookscope_core::hooks::events::{At, EventName, Payload, REBUILT, closest_name};
use hookscope_core::hooks::replay::replay_with;
use hookscope_core::hooks::rules::{Evaluation, verdict};
use hookscope_core::redact::{Redactions, redactor};
use serde::Serialize;
use serde_json::Value;

use super::{fail, print_json, print_raw};

/// Arguments of `hookscope payload`.
#[derive(clap::Args, Debug)]
pub struct PayloadArgs {
    /// A session id, a unique id prefix, or a path to its .jsonl file (any
    /// bytes: a path need not be UTF-8).
    #[arg(value_parser = clap::value_parser!(OsString))]
    pub session: OsString,
    /// Where to look for it (default: as for `sessions`).
    pub paths: Vec<PathBuf>,
    /// The hook event, as settings files spell it (PreToolUse, Stop, …; any
    /// case: stop).
    #[arg(long)]
    pub event: String,
    /// Where: a tool_use_id, a line uuid, `line:N` (a line of the main
    /// transcript file: the event anchored there, else the last one before
    /// it), `line:agent-<agent_id>:N` (likewise in a subagent's file), a
    /// turn number (its last such event), or `last` (the default: the
    /// session's last such event); when that turn has several, stderr names
    /// each, and a `line:N` resolved to another line says which.
    #[arg(long)]
    pub at: Option<String>,
    /// Print secrets as they are (default: masked as [REDACTED_<TYPE>]).
    #[arg(long)]
    pub raw: bool,
    /// Wrap the payload as a fixture: {claude_version, event, source
    /// {transcript, line}, occurred, left_out, payload}.
    #[arg(long)]
    pub envelope: bool,
    /// With --envelope: add the outcome this rule file expects for the event
    /// (`expected`: decision, each matching rule with its why, the hook
    /// output, the outcome).
    #[arg(long, value_parser = clap::value_parser!(PathBuf))]
    pub rules: Option<PathBuf>,
    /// Map a folder the transcript records (OLD, absolute) to a folder here
    /// (NEW) in the payload's paths, for a transcript written on another
    /// machine (repeatable; the longest OLD wins).
    #[arg(long = "cwd-map", value_name = "OLD=NEW")]
    pub cwd_map: Vec<String>,
}

/// Runs the subcommand.
pub fn run(args: &PayloadArgs) {
    if args.rules.is_some() && !args.envelope {
        fail("--rules needs --envelope (the expected outcome is part of the fixture envelope)");
    }
    let event: EventName =
        super::event_arg(&args.event).unwrap_or_else(|_| fail(unknown_event(&args.event)));
    let session = super::show::load_or_exit(&args.session, &args.paths);
    let at = args.at.as_deref().map_or(At::Last, At::parse);
    // The session's agent decides the dialect: a Codex session gets the
    // payload Codex would send (as `replay` shows).
    let dialect = hookscope_core::hooks::dialect::Dialect::for_agent(session.agent);
    let map = super::replay::cwd_map_or_exit(&args.cwd_map);
    let mut built = dialect
        .payload(&session, event, &at)
        .unwrap_or_else(|e| fail(e));
    map.map_value(&mut built.json);
    if let Some(note) = several_in_turn(dialect, &session, event, &at) {
        errln!("{note}");
    }
    if let Some(note) = resolved_to(&at, event, built.source_line) {
        errln!("{note}");
    }
    if let Some(note) = several_with_id(&session, &at, &built) {
        errln!("{note}");
    }
    let (json, masked) = mask(&built, args.raw);
    if !masked.is_empty() {
        let list: Vec<String> = masked.iter().map(|(t, n)| format!("{t} {n}")).collect();
        errln!(
            "hookscope: masked secrets as [REDACTED_<TYPE>] ({}); --raw prints them",
            list.join(", ")
        );
    }
    for left in &built.left_out {
        errln!("hookscope: left out {}: {}", left.field, left.reason);
    }
    if args.envelope {
        let mut env = Envelope::new(&built, json);
        let replayed = args.rules.as_ref().map(|path| {
            let rules = super::replay::load_rules_or_exit(path, false);
            let r =
                replay_with(&session, event, &at, Some(&rules), &map).unwrap_or_else(|e| fail(e));
            (path, r)
        });
        if let Some((path, r)) = &replayed {
            env.expected = r.evaluation.as_ref().map(|e| Expected::new(e, path));
        }
        print_json(&serde_json::to_value(&env).unwrap_or_default());
    } else {
        match serde_json::to_string(&json) {
            Ok(text) => print_raw(&text),
            Err(e) => fail(format!("cannot serialize the payload: {e}")),
        }
    }
}

/// With `--at` a turn, or `last` (the default), where `event` fired more
/// than once in that turn (a Stop a hook blocked, then the Stop after it):
/// which one was printed and how to name each, e.g. `hookscope: turn 1 has
/// 2 Stop firings (line:75, line:82); printed the last, line:82; --at
/// line:75 for the other`. `None` for one firing or another `--at`.
fn several_in_turn(
    dialect: hookscope_core::hooks::dialect::Dialect,
    session: &hookscope_core::transcript::Session,
    event: EventName,
    at: &At,
) -> Option<String> {
    let n = match at {
        At::Turn(n) => *n,
        At::Last => hookscope_core::hooks::events::turn_of_last(session, event)?,
        _ => return None,
    };
    let places: Vec<String> = dialect
        .firings_at(session, &At::Turn(n))
        .into_iter()
        .filter(|(e, _)| *e == event)
        .map(|(_, a)| a.to_string())
        .collect();
    let (last, others) = places.split_last()?;
    if others.is_empty() {
        return None;
    }
    Some(format!(
        "hookscope: turn {n} has {} {event} firings ({}); printed the last, {last}; --at {} for {}",
        places.len(),
        places.join(", "),
        others.join(" or "),
        if others.len() == 1 {
            "the other"
        } else {
            "the others"
        }
    ))
}

/// With `--at` a `tool_use_id` that several calls of the session share (a
/// transcript may repeat one; the loader keeps both and says so): which
/// one was printed and how to name each, e.g. `hookscope: 2 calls have
/// tool_use_id toolu_dup (line:2, line:4); printed the one at line:4;
/// --at line:2 for the other`. The printed one is the last call with that
/// id at or before the payload's line in its file. `None` for an id one
/// call has, and for every other `--at`.
fn several_with_id(
    session: &hookscope_core::transcript::Session,
    at: &At,
    built: &Payload,
) -> Option<String> {
    let at = at.expanded(session).unwrap_or_else(|_| at.clone());
    let (At::ToolUseId(id) | At::Uuid(id)) = &at else {
        return None;
    };
    let calls: Vec<(String, &std::path::Path, usize)> = session
        .all_tool_calls()
        .filter(|(_, r)| &r.tool_use_id == id)
        .map(|(thread, r)| {
            (
                hookscope_core::hooks::events::place_of_call(session, thread, r.line),
                session.thread_path(thread),
                r.line,
            )
        })
        .collect();
    if calls.len() < 2 {
        return None;
    }
    let printed = calls
        .iter()
        .filter(|(_, path, line)| *path == built.source_path && *line <= built.source_line)
        .max_by_key(|(_, _, line)| *line)?;
    let others: Vec<&str> = calls
        .iter()
        .filter(|c| c.0 != printed.0)
        .map(|c| c.0.as_str())
        .collect();
    Some(format!(
        "hookscope: {} calls have tool_use_id {id} ({}); printed the one at {}; --at {} for {}",
        calls.len(),
        calls
            .iter()
            .map(|c| c.0.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        printed.0,
        others.join(" or "),
        if others.len() == 1 {
            "the other"
        } else {
            "the others"
        }
    ))
}

/// With `--at line:N` (or `line:agent-<id>:N`) that resolved to an
/// `event` anchored on another line (the last one before it, as when N is
/// a hook's own record line, which `hooks --activity` lists: the line
/// after its event's; or a call's later line, for an event anchored on its
/// result): which line that was, e.g. `hookscope: --at line:76 resolved
/// to the Stop at line:75`.
pub(super) fn resolved_to(at: &At, event: EventName, printed: usize) -> Option<String> {
    let (asked, agent) = match at {
        At::Line(n) => (*n, String::new()),
        At::AgentLine(agent, n) => (*n, format!("agent-{agent}:")),
        _ => return None,
    };
    (asked != printed).then(|| {
        format!(
            "hookscope: --at line:{agent}{asked} resolved to the {event} at line:{agent}{printed}"
        )
    })
}

/// The error for an `--event` that is no hook event: it names the events
/// `payload` rebuilds ([`REBUILT`]) and says the others exist but are not
/// rebuilt, so it never suggests one that `payload` then refuses.
fn unknown_event(name: &str) -> String {
    let rebuilt = || REBUILT.iter().map(|e| e.as_str());
    let hint = closest_name(name, rebuilt())
        .map(|n| format!(" (did you mean {n}?)"))
        .unwrap_or_default();
    let others: Vec<&str> = EventName::ALL
        .iter()
        .filter(|e| !REBUILT.contains(e))
        .map(|e| e.as_str())
        .collect();
    format!(
        "unknown event \"{name}\"{hint}; payload rebuilds: {}; the other hook events ({}) exist but are not rebuilt from transcripts",
        rebuilt().collect::<Vec<_>>().join(", "),
        others.join(", ")
    )
}

/// The payload, masked unless `raw`, with what was masked.
fn mask(built: &Payload, raw: bool) -> (Value, Redactions) {
    let mut counts = Redactions::new();
    if raw {
        return (built.json.clone(), counts);
    }
    let masked = redactor().redact_value(&built.json, &mut counts);
    (masked, counts)
}

/// The fixture file (`--envelope`): the payload with where it came from.
/// Without a rule set it records only that the event occurred (never a
/// guessed decision); with `--rules`, `expected` holds what they decide.
#[derive(Serialize)]
struct Envelope<'a> {
    claude_version: Option<&'a str>,
    event: &'static str,
    source: Source,
    occurred: bool,
    left_out: &'a [hookscope_core::hooks::events::LeftOut],
    payload: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<Expected<'a>>,
}

/// Where an envelope's payload was rebuilt from.
#[derive(Serialize)]
struct Source {
    transcript: String,
    line: usize,
}

/// The outcome a rule file expects (`--envelope --rules`): `{rules, decision,
/// matched [{id, verdict, why}], output, outcome}`.
#[derive(Serialize)]
struct Expected<'a> {
    rules: String,
    decision: &'static str,
    matched: Vec<Matched<'a>>,
    output: &'a hookscope_core::hooks::result::HookOutput,
    outcome: &'a hookscope_core::hooks::result::Outcome,
}

/// A rule that matched, with its verdict and why.
#[derive(Serialize)]
struct Matched<'a> {
    id: &'a str,
    verdict: &'static str,
    why: String,
}

impl<'a> Envelope<'a> {
    fn new(built: &'a Payload, payload: Value) -> Envelope<'a> {
        Envelope {
            claude_version: built.claude_version.as_deref(),
            event: built.event.as_str(),
            source: Source {
                transcript: built.source_path.to_string_lossy().into_owned(),
                line: built.source_line,
            },
            occurred: true,
            left_out: &built.left_out,
            payload,
            expected: None,
        }
    }
}

impl<'a> Expected<'a> {
    fn new(e: &'a Evaluation, path: &std::path::Path) -> Expected<'a> {
        Expected {
            rules: path.to_string_lossy().into_owned(),
            decision: e.verdict(),
            matched: e
                .rules
                .iter()
                .filter_map(|x| {
                    x.result.as_ref().map(|r| Matched {
                        id: &x.id,
                        verdict: verdict(r),
                        why: x.why(),
                    })
                })
                .collect(),
            output: &e.output,
            outcome: &e.outcome,
        }
    }
}
