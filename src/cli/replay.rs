//! `hookscope replay SESSION [PATH...] --event EVENT [--at ID] [--rules FILE]
//! [--json]`: one event replayed through a rule set (`hooks::replay::replay`):
//! the payload, each rule with ✓/✗ and its why, the combined decision, the
//! hook output JSON, the outcome, and what the transcript itself recorded.
//!
//! `hookscope replay --rules FILE --all [PATH...] [--json]`: the backtest
//! (`hooks::replay::backtest_refs`): every event of every Claude Code session
//! through the rule set, per rule how many events it would have blocked,
//! warned, rewritten or allowed, with the first examples. A progress line
//! `\r<done>/<total> sessions` goes to stderr when stderr is a terminal.
//!
//! Exit 0 when it ran; 2 on bad arguments (unknown event, `--at` naming
//! nothing, a refused rule file with `file:line:col`, `--all` without
//! `--rules`), with what exists.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;

use hookscope::hooks::events::{At, EventName};
use hookscope::hooks::replay::{
    Backtest, Replay, backtest_json, backtest_refs, replay, replay_json,
};
use hookscope::hooks::rules::RuleSet;
use serde_json::{Value, json};

use super::{fail, print_json};

/// Arguments of `hookscope replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// A session id, a unique id prefix, or a path to its .jsonl file; with
    /// --all, the first PATH to search.
    #[arg(value_parser = clap::value_parser!(OsString))]
    pub session: Option<OsString>,
    /// Where to look (default: as for `sessions`).
    pub paths: Vec<PathBuf>,
    /// The hook event, spelled as in settings files (PreToolUse, Stop, …).
    #[arg(long)]
    pub event: Option<String>,
    /// Where: a tool_use_id, a line uuid, `line:N` (a line of the main
    /// transcript file: the event anchored there, else the last one before
    /// it), `line:agent-<agent_id>:N` (likewise in a subagent's file), a
    /// turn number, or `last` (the default: the session's last such event).
    #[arg(long)]
    pub at: Option<String>,
    /// The rule file (TOML; see assets/rules/example.toml).
    #[arg(long, value_parser = clap::value_parser!(PathBuf))]
    pub rules: Option<PathBuf>,
    /// Backtest: every event of every Claude Code session under PATH...
    /// through --rules.
    #[arg(long)]
    pub all: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Loads a rule file or exits 2 with every problem as `file:line:col` on
/// stderr (with `json`, as `{"error": "invalid_rules", "errors": [...]}` on
/// stdout alone). The set's warnings go to stderr unless `json` (the JSON
/// output then carries them as `warnings`).
pub fn load_rules_or_exit(path: &std::path::Path, json: bool) -> RuleSet {
    match RuleSet::load(path) {
        Ok(set) => {
            if !json {
                for w in set.warnings() {
                    eprintln!("hookscope: {w}");
                }
            }
            set
        }
        Err(e) => {
            if json {
                print_json(&json!({"error": "invalid_rules", "errors": e.errors}));
                std::process::exit(2)
            }
            for err in &e.errors {
                eprintln!("hookscope: {err}");
            }
            fail("rule file refused; nothing was loaded")
        }
    }
}

/// Runs the subcommand.
pub fn run(args: &ReplayArgs) {
    let rules = args
        .rules
        .as_deref()
        .map(|p| load_rules_or_exit(p, args.json));
    if args.all {
        let Some(rules) = rules else {
            fail("--all needs --rules FILE (the rule set to backtest)")
        };
        let mut paths: Vec<PathBuf> = args.session.iter().map(PathBuf::from).collect();
        paths.extend(args.paths.iter().cloned());
        return run_all(&paths, &rules, args.json);
    }
    let Some(session) = &args.session else {
        fail("give a SESSION (or --all with --rules FILE for a backtest)")
    };
    let Some(event) = &args.event else {
        fail(format!(
            "give --event; known events: {}",
            EventName::ALL
                .iter()
                .map(|e| e.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    };
    let event: EventName = event.parse().unwrap_or_else(|e| fail(e));
    let session = super::show::load_or_exit(session, &args.paths);
    let at = args.at.as_deref().map_or(At::Last, At::parse);
    let r = replay(&session, event, &at, rules.as_ref()).unwrap_or_else(|e| fail(e));
    let (out, masked) = replay_json(&r, rules.as_ref());
    if !masked.is_empty() {
        let list: Vec<String> = masked.iter().map(|(t, n)| format!("{t} {n}")).collect();
        eprintln!(
            "hookscope: masked secrets in the payload as [REDACTED_<TYPE>] ({})",
            list.join(", ")
        );
    }
    if args.json {
        print_json(&out);
    } else {
        print_replay(&r, &out["payload"], args.rules.as_deref());
    }
}

fn print_replay(r: &Replay, payload: &Value, rules: Option<&std::path::Path>) {
    outln!(
        "{} at {}:{}",
        r.payload.event,
        r.payload.source_path.display(),
        r.payload.source_line
    );
    outln!("payload:");
    outln!(
        "  {}",
        serde_json::to_string(payload).unwrap_or_else(|_| "{}".into())
    );
    for left in &r.payload.left_out {
        outln!("  left out {}: {}", left.field, left.reason);
    }
    match (&r.evaluation, rules) {
        (Some(e), Some(path)) => {
            outln!("rules ({}):", path.display());
            for x in &e.rules {
                let mark = if x.matched { "✓" } else { "✗" };
                let v = x.result.as_ref().map_or(String::new(), |res| {
                    format!(" → {}", hookscope::hooks::rules::verdict(res))
                });
                outln!("  {mark} {}{v}: {}", x.id, x.why());
            }
            outln!("decision: {}", e.verdict());
            for f in &e.combined.flags {
                outln!("  flag: {f}");
            }
            let stdout = e
                .output
                .stdout
                .as_ref()
                .map(|v| serde_json::to_string(v).unwrap_or_default());
            outln!(
                "hook output: exit {}{}{}",
                e.output.exit_code,
                stdout.map_or(String::new(), |s| format!(", stdout {s}")),
                e.output
                    .stderr
                    .as_ref()
                    .map_or(String::new(), |s| format!(", stderr {s:?}"))
            );
            let effect = serde_json::to_value(e.outcome.effect)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            outln!("outcome: {effect}");
            if let Some(m) = &e.outcome.model_sees {
                outln!("  model sees: {}", m.replace('\n', "⏎"));
            }
            if let Some(m) = &e.outcome.user_sees {
                outln!("  user sees: {}", m.replace('\n', "⏎"));
            }
            for w in &e.outcome.why {
                outln!("  why: {w}");
            }
        }
        _ => outln!("rules: none loaded (--rules FILE evaluates a rule set here)"),
    }
    if r.recorded.is_empty() {
        outln!("recorded in the transcript: nothing about hooks here");
    } else {
        outln!("recorded in the transcript:");
        for x in &r.recorded {
            outln!(
                "  line {} {}: {}",
                x.line,
                x.source,
                x.text.replace('\n', "⏎")
            );
        }
    }
}

fn run_all(paths: &[PathBuf], rules: &RuleSet, json: bool) {
    let found = super::discover_or_exit(paths);
    let mut refs = found.sessions;
    refs.sort_by(|a, b| a.path.cmp(&b.path));
    let total = refs
        .iter()
        .filter(|s| s.agent == hookscope::transcript::Agent::ClaudeCode)
        .count();
    let tty = std::io::stderr().is_terminal();
    let progress = |done: usize| {
        if tty {
            eprint!("\r{done}/{total} sessions");
        }
    };
    let bt = backtest_refs(&refs, rules, &progress);
    if tty {
        eprintln!();
    }
    if json {
        print_json(&backtest_json(&bt, rules));
    } else {
        print_backtest(&bt, rules);
    }
}

fn print_backtest(bt: &Backtest, rules: &RuleSet) {
    outln!(
        "backtest of {}: {} sessions ({} skipped by the prefilter, {} unreadable), {} events",
        rules
            .path
            .as_ref()
            .map_or("<rules>".to_string(), |p| p.display().to_string()),
        bt.sessions,
        bt.skipped,
        bt.unreadable,
        bt.events
    );
    if bt.codex > 0 {
        outln!(
            "{} Codex session{} left out: hook replay follows Claude Code's hook contract (Codex hooks are not replayed yet)",
            bt.codex,
            if bt.codex == 1 { "" } else { "s" }
        );
    }
    for t in &bt.rules {
        let counts = if t.counts.is_empty() {
            "never matched".to_string()
        } else {
            t.counts
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        outln!("{}: {counts}", t.id);
        for ex in &t.examples {
            outln!(
                "  {} {} {} {}: {}",
                ex.verdict,
                ex.session,
                ex.event,
                ex.at.as_deref().unwrap_or("-"),
                ex.summary
            );
        }
    }
    let combined = if bt.combined.is_empty() {
        "no event".to_string()
    } else {
        bt.combined
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    outln!("combined: {combined}");
}
