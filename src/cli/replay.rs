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

use hookscope_core::hooks::events::{At, EventName};
use hookscope_core::hooks::exec::text::{NotReached, report_lines};
use hookscope_core::hooks::replay::{
    Backtest, MAX_EXAMPLES, Replay, backtest_json, replay_json, replay_with,
};
use hookscope_core::hooks::rules::RuleSet;
use hookscope_core::redact::Redactions;
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
    /// The hook event, as settings files spell it (PreToolUse, Stop, …; any
    /// case: stop).
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
    /// Every event of every session under PATH...: through --rules (a
    /// backtest; --against B compares two sets) or your hooks (--exec).
    #[arg(long)]
    pub all: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// With --all: examples listed per rule and verdict, a number or `all`
    /// (default 3; --json keeps every one the backtest kept, the first
    /// 1,000, unless N is given).
    #[arg(long, value_name = "N|all", value_parser = parse_examples)]
    pub examples: Option<Examples>,
    /// Run the command handlers of your hook settings that this event
    /// reaches, on the rebuilt payload (nothing runs without it). With
    /// --all: on every recorded event they reach, after a plan and a
    /// confirmation.
    #[arg(long)]
    pub exec: bool,
    /// With --all --rules A: compare A with this rule set B, event by
    /// event, and list where they decide differently.
    #[arg(long, value_name = "B.toml", value_parser = clap::value_parser!(PathBuf))]
    pub against: Option<PathBuf>,
    /// With --all --exec: a second version of your hooks (a settings file,
    /// repeatable); every event is run with both and the decisions that
    /// differ are listed.
    #[arg(long = "against-settings", value_name = "FILE")]
    pub against_settings: Vec<PathBuf>,
    /// With --against or --against-settings: exit 1 when any event is
    /// decided differently (to gate a change in CI).
    #[arg(long = "fail-on-change")]
    pub fail_on_change: bool,
    /// With --all --exec: run without asking (required when there is no
    /// terminal to ask on).
    #[arg(long)]
    pub yes: bool,
    /// With --all --exec: events run at once (default: the number of
    /// cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// With --all --exec: run the hooks in each session's folders and your
    /// HOME, as recorded (default: fresh temporary folders and HOME per
    /// event).
    #[arg(long = "real-folders")]
    pub real_folders: bool,
    /// With --all --exec: let the hooks reach the network (default: each
    /// command hook in its own network namespace, where the kernel allows).
    #[arg(long)]
    pub network: bool,
    /// With --all --exec: let the hooks write anywhere your user can
    /// (default: each hook, and what it starts, writes only in its event's
    /// temporary folder and /dev/null, where the kernel has Landlock).
    #[arg(long = "write-anywhere")]
    pub write_anywhere: bool,
    /// The hook settings file to read (repeatable); default: the files that
    /// applied to the session (user, project, local, managed, plugins).
    #[arg(long = "settings", value_name = "FILE")]
    pub settings: Vec<PathBuf>,
    /// With --exec: pass NAME from your environment to the hooks, or set
    /// NAME=VALUE (repeatable); hooks get an allowlist otherwise.
    #[arg(long = "env", value_name = "NAME")]
    pub env: Vec<String>,
    /// Map a folder the transcript records (OLD, absolute) to a folder here
    /// (NEW) in the payload, CLAUDE_PROJECT_DIR and where the hooks run:
    /// for a transcript written on another machine (repeatable; the longest
    /// OLD wins).
    #[arg(long = "cwd-map", value_name = "OLD=NEW")]
    pub cwd_map: Vec<String>,
    /// With --exec: the session's `claude --allowedTools` rules (a
    /// transcript does not record them), for the final outcome: e.g.
    /// `--allowed-tools "Read,Edit,Bash(git log:*)"` (repeatable; commas or
    /// spaces between rules).
    #[arg(long = "allowed-tools", alias = "allowedTools", value_name = "RULES")]
    pub allowed_tools: Vec<String>,
    /// With --exec: the session's `claude --disallowedTools` rules, likewise.
    #[arg(
        long = "disallowed-tools",
        alias = "disallowedTools",
        value_name = "RULES"
    )]
    pub disallowed_tools: Vec<String>,
}

/// Permission rules as `claude --allowedTools` takes them: split on commas
/// and white space outside parentheses (`Bash(git log:*),Read` is two).
pub fn split_rules(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for arg in args {
        let mut depth = 0usize;
        let mut cur = String::new();
        for c in arg.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 && (c == ',' || c.is_whitespace()) {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            } else {
                cur.push(c);
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

/// The `--cwd-map` pairs, or exit 2 saying which argument is wrong. NEW is
/// resolved against the invocation's folder.
pub fn cwd_map_or_exit(args: &[String]) -> hookscope_core::hooks::cwd_map::CwdMap {
    let base = std::env::current_dir().unwrap_or_default();
    hookscope_core::hooks::cwd_map::CwdMap::parse(args, &base).unwrap_or_else(|e| fail(e))
}

/// How many examples `replay --all` lists per rule and verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Examples {
    /// At most this many.
    Up(usize),
    /// Every one.
    All,
}

fn parse_examples(s: &str) -> Result<Examples, String> {
    if s == "all" {
        return Ok(Examples::All);
    }
    s.parse()
        .map(Examples::Up)
        .map_err(|_| format!("expected a number or `all`, not `{s}`"))
}

/// Exits 2 on a rule file with no rules: `rule file PATH has no rules
/// ([[rules]] tables): <so>` on stderr, or with `json` as `{"error":
/// "invalid_rules", "errors": [{file, line: 0, column: 0, message}]}` on
/// stdout, the shape of every rule-file problem (`test` and `replay`).
pub fn refuse_no_rules(path: &std::path::Path, so: &str, json: bool) -> ! {
    if json {
        // The shape of every other rule-file problem (`RuleError`), with
        // no place in the file.
        let error = hookscope_core::hooks::rules::RuleError {
            file: path.display().to_string(),
            line: 0,
            column: 0,
            message: format!("has no rules ([[rules]] tables): {so}"),
        };
        print_json(&json!({"error": "invalid_rules", "errors": [error]}));
        std::process::exit(2)
    }
    fail(format!(
        "rule file {} has no rules ([[rules]] tables): {so}",
        path.display()
    ))
}

/// Loads a rule file or exits 2 with every problem as `file:line:col` on
/// stderr (with `json`, as `{"error": "invalid_rules", "errors": [...]}` on
/// stdout alone); a file with no rules is refused the same way. The set's
/// warnings go to stderr unless `json` (the JSON output then carries them
/// as `warnings`).
pub fn load_rules_or_exit(path: &std::path::Path, json: bool) -> RuleSet {
    match RuleSet::load_rules(path) {
        // As the live hook and `hooks --install` refuse it: an empty or
        // wrong file would otherwise backtest to "nothing matched".
        Ok(set) if set.rules.is_empty() => refuse_no_rules(path, "nothing could match", json),
        Ok(set) => {
            if !json {
                for w in set.warnings() {
                    errln!("hookscope: {w}");
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
                errln!("hookscope: {err}");
            }
            fail("rule file refused; nothing was loaded")
        }
    }
}

/// Runs the subcommand; a backtest (`--all`) asks the persisted index
/// which sessions no rule can match unless `no_index` (`--no-index`).
pub fn run(args: &ReplayArgs, no_index: bool) {
    let rules = args
        .rules
        .as_deref()
        .map(|p| load_rules_or_exit(p, args.json));
    if args.all {
        let mut paths: Vec<PathBuf> = args.session.iter().map(PathBuf::from).collect();
        paths.extend(args.paths.iter().cloned());
        if args.exec {
            return super::exec_all::run(args, &paths);
        }
        if !args.against_settings.is_empty() {
            fail(
                "--against-settings compares two versions of your hooks: give it with --all --exec",
            );
        }
        let Some(rules) = rules else {
            fail("--all needs --rules FILE (the rule set to backtest) or --exec (your hooks)")
        };
        let examples = args.examples.unwrap_or(Examples::Up(MAX_EXAMPLES));
        if let Some(b) = &args.against {
            let b = load_rules_or_exit(b, args.json);
            return super::against::run(&paths, &rules, &b, args, examples);
        }
        return run_all(&paths, &rules, args.json, args.examples, no_index);
    }
    if args.examples.is_some() {
        fail(
            "--examples sets how many examples a backtest lists per rule and verdict: give it with --all (one event's replay lists every rule's verdict already)",
        );
    }
    if args.against.is_some() || args.fail_on_change || !args.against_settings.is_empty() {
        fail(
            "--against and --against-settings compare two versions over every session: give --all --rules A.toml --against B.toml, or --all --exec --against-settings B.json",
        );
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
    let event: EventName = super::event_arg(event).unwrap_or_else(|e| fail(e));
    let map = cwd_map_or_exit(&args.cwd_map);
    let session = super::show::load_or_exit(session, &args.paths);
    let at = args.at.as_deref().map_or(At::Last, At::parse);
    let r = replay_with(&session, event, &at, rules.as_ref(), &map).unwrap_or_else(|e| fail(e));
    if let Some(note) = super::payload::resolved_to(&at, event, r.payload.source_line) {
        errln!("{note}");
    }
    let (mut out, masked) = replay_json(&r, rules.as_ref());
    if !map.is_empty()
        && let Some(o) = out.as_object_mut()
    {
        o.insert("cwd_map".into(), json!(map.pairs));
    }
    if !masked.is_empty() {
        let list: Vec<String> = masked.iter().map(|(t, n)| format!("{t} {n}")).collect();
        errln!(
            "hookscope: masked secrets in the payload as [REDACTED_<TYPE>] ({})",
            list.join(", ")
        );
    }
    let hooks = run_hooks(&session, &r, args, &map);
    if args.json {
        let mut out = out;
        if let Some(o) = out.as_object_mut() {
            o.insert("exec".into(), hooks.json);
        }
        print_json(&out);
    } else {
        print_replay(&r, &out["payload"], args.rules.as_deref());
        for line in &hooks.text {
            outln!("{line}");
        }
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
                    format!(" → {}", hookscope_core::hooks::rules::verdict(res))
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
    if !r.dialect.compares_with_transcript() {
        outln!(
            "recorded in the transcript: not read ({} records no hook activity)",
            r.dialect.label()
        );
    } else if r.recorded.is_empty() {
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

/// The backtest of `rules` over `paths`, as text with `examples` per rule
/// and verdict ([`MAX_EXAMPLES`] when not given) or as JSON with every
/// example the backtest kept unless `examples` caps them.
fn run_all(
    paths: &[PathBuf],
    rules: &RuleSet,
    json: bool,
    examples: Option<Examples>,
    no_index: bool,
) {
    // With the index, the discovery it kept when no folder changed (no
    // walk, no sync), as `find` does; else a walk and a sync.
    let library = super::index::library(paths, no_index);
    let (found, synced) = super::index::with_progress(&library, |sync_progress| {
        library.discover_synced(sync_progress)
    })
    .unwrap_or_else(|e| super::fail(e));
    let mut refs = found.sessions;
    if refs.is_empty() {
        let under = if paths.is_empty() {
            super::sessions::default_locations()
        } else {
            paths
                .iter()
                .map(|p| hookscope_core::printable::printable(&p.to_string_lossy()).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        };
        errln!("hookscope: no sessions found under {under}");
    }
    refs.sort_by(|a, b| a.path.cmp(&b.path));
    let total = refs
        .iter()
        .filter(|s| hookscope_core::hooks::events::rebuilds(s.agent))
        .count();
    let tty = std::io::stderr().is_terminal();
    let progress = |done: usize| {
        if tty {
            eprint!("\r{done}/{total} sessions");
        }
    };
    let (bt, stats) = library.backtest_synced(&refs, rules, &progress, synced);
    super::index::report(&library, stats.as_ref());
    if tty {
        errln!();
    }
    if json {
        let mut bt = bt;
        if let Some(Examples::Up(n)) = examples {
            bt.cap_examples(n);
        }
        print_json(&backtest_json(&bt, rules));
    } else {
        print_backtest(&bt, rules, examples.unwrap_or(Examples::Up(MAX_EXAMPLES)));
    }
    if refs.is_empty() {
        // An empty backtest passes nothing: a CI step that backtests the
        // wrong folder must not go green.
        std::process::exit(1);
    }
}

/// `n` of `of` as a percentage with one decimal.
fn share(n: usize, of: usize) -> String {
    if of == 0 {
        return "-".to_string();
    }
    #[allow(clippy::cast_precision_loss)]
    let pct = n as f64 * 100.0 / of as f64;
    format!("{pct:.1}%")
}

/// The display name of an agent's serialized spelling (`codex` → `Codex`).
fn agent_label(agent: &str) -> &str {
    match agent {
        "claude-code" => "Claude Code",
        "codex" => "Codex",
        "opencode" => "OpenCode",
        "droid" => "Droid",
        other => other,
    }
}

/// The backtest's line for `n` sessions of `agent` (an [`Agent::as_str`]
/// spelling) left out, suggesting only what works for that agent (docs/replay-and-backtest.md
/// "Replay and backtest"): a Codex session replays one event with its own
/// Codex hooks (`replay SESSION --event E`); OpenCode has no hook payloads
/// to rebuild at all, so nothing is suggested for it.
///
/// [`Agent::as_str`]: hookscope_core::transcript::Agent::as_str
fn left_out_line(agent: &str, n: usize) -> String {
    let name = agent_label(agent);
    let s = if n == 1 { "" } else { "s" };
    let why = match agent {
        "codex" => "the backtest does not cover them yet (replay one Codex event through the rules with `replay SESSION --event E --rules FILE`)".to_string(),
        "opencode" => "OpenCode has no hook payloads to rebuild (its hooks are JavaScript plugins called in-process, not commands fed JSON on stdin)".to_string(),
        _ => "their hook payloads are not rebuilt for rule sets".to_string(),
    };
    format!("{n} {name} session{s} left out: {why}")
}

/// The first 10 of `items`, one per line after `prefix`, then how many
/// more (`… and N more{what}`) when there are.
fn print_first(items: &[String], prefix: &str, what: &str) {
    const SHOWN: usize = 10;
    for item in items.iter().take(SHOWN) {
        outln!("{prefix}{item}");
    }
    if items.len() > SHOWN {
        outln!(
            "  … and {} more{what} (--json lists them all)",
            items.len() - SHOWN
        );
    }
}

fn print_backtest(bt: &Backtest, rules: &RuleSet, examples: Examples) {
    let read = bt.sessions - bt.skipped - bt.unreadable;
    let left_out: usize = bt.left_out.values().sum();
    let of = if left_out > 0 {
        format!(
            "{} of {} sessions ({left_out} left out, below)",
            bt.sessions,
            bt.sessions + left_out
        )
    } else {
        format!(
            "{} session{}",
            bt.sessions,
            if bt.sessions == 1 { "" } else { "s" }
        )
    };
    outln!(
        "backtest of {}: {of}: {read} read, {} skipped unread (no rule of the set can match there), {} unreadable",
        rules
            .path
            .as_ref()
            .map_or("<rules>".to_string(), |p| p.display().to_string()),
        bt.skipped,
        bt.unreadable,
    );
    outln!(
        "{} event{} rebuilt and run through the rules in the sessions read (the line prefilter skipped the others: no rule could match them)",
        bt.events,
        if bt.events == 1 { "" } else { "s" }
    );
    // The unreadable sessions, by name (the first few).
    print_first(&bt.unreadable_files, "  unreadable: ", " unreadable");
    // Sessions read without some of their lines: a match there is missed.
    if bt.with_diagnostics > 0 {
        let s = if bt.with_diagnostics == 1 { "" } else { "s" };
        outln!(
            "{} session{s} read had lines or files the loader could not use (a match on one is not counted; `hookscope show SESSION` lists them), the first of each:",
            bt.with_diagnostics
        );
        print_first(&bt.diagnostics, "  ", "");
    }
    for (agent, n) in &bt.left_out {
        outln!("{}", left_out_line(agent, *n));
    }
    outln!(
        "each rule counts every event of its kind in the {read} session{} read, those the line prefilter skipped included; its % is of that count{}",
        if read == 1 { "" } else { "s" },
        if bt.skipped > 0 {
            format!(
                ", not a rate over every session: the {} skipped unread hold no event any rule can match, and their events are not counted (which sessions are read depends on the whole set, so adding a rule changes another's count and %: compare a rule's matches, not its %, across sets)",
                bt.skipped
            )
        } else {
            String::new()
        }
    );
    for (t, rule) in bt.rules.iter().zip(&rules.rules) {
        let counts = if t.counts.is_empty() && t.evaluated == 0 && bt.skipped > 0 {
            "never matched (none of its events is in the sessions read; the sessions skipped unread hold none it can match)".to_string()
        } else if t.counts.is_empty() {
            "never matched".to_string()
        } else {
            t.counts
                .iter()
                .map(|(k, n)| format!("{k} {n} ({})", share(*n, t.evaluated)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        outln!(
            "{}: {} {} event{}: {counts}",
            t.id,
            t.evaluated,
            rule.events_joined("/"),
            if t.evaluated == 1 { "" } else { "s" }
        );
        let blocks = t.counts.get("block").copied().unwrap_or(0);
        if t.blocks_then + t.blocks_new > 0 {
            let other = blocks - t.blocks_then - t.blocks_new;
            let mut line = format!(
                "  blocks: {} new (no hook did this then: review these), {} that a hook did then",
                t.blocks_new, t.blocks_then
            );
            if other > 0 {
                line.push_str(&format!(
                    ", {other} where the transcript does not tell what a hook did then (not checked)"
                ));
            }
            outln!("{line}");
        }
        if t.objections > 0 {
            outln!(
                "  {} of the blocks after the call ran (PostToolUse: an objection the model reads, the call was not stopped)",
                t.objections
            );
        }
        if t.not_parsed_whole > 0 {
            outln!(
                "  {} on a command not parsed whole (matched on its raw text, or an approval refused: review these)",
                t.not_parsed_whole
            );
        }
        for (verdict, n) in &t.counts {
            let limit = match examples {
                Examples::All => usize::MAX,
                Examples::Up(k) => k,
            };
            let mut listed = 0;
            for ex in t
                .examples
                .iter()
                .filter(|e| &e.verdict == verdict)
                .take(limit)
            {
                listed += 1;
                let mut mark = match ex.blocked_then {
                    Some(true) => " [a hook did then]",
                    Some(false) => " [new]",
                    None if ex.verdict == "block" => " [not checked: the transcript does not tell]",
                    None => "",
                }
                .to_string();
                if ex.not_parsed_whole.is_some() {
                    mark.push_str(" [not parsed whole]");
                }
                // After the call ran a block is an objection (the TUI's
                // `object`; docs/replay.md "Blocked then, or new").
                if ex.is_objection() {
                    mark.push_str(" [after it ran: an objection]");
                }
                outln!(
                    "  {} {} {} {}: {}{mark}",
                    ex.verdict,
                    ex.session,
                    ex.event,
                    ex.at.as_deref().unwrap_or("-"),
                    ex.summary
                );
            }
            if listed < *n {
                match examples {
                    Examples::All => outln!(
                        "  … {} more {verdict} (hookscope keeps the first {} per rule and verdict)",
                        n - listed,
                        hookscope_core::hooks::replay::KEPT_EXAMPLES
                    ),
                    Examples::Up(_) => {
                        outln!("  … {} more {verdict} (--examples all)", n - listed);
                    }
                }
            }
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
    let mut notes = Vec::new();
    if bt.combined_objections > 0 {
        notes.push(format!(
            "{} of the blocks after the call ran: objections, the call was not stopped",
            bt.combined_objections
        ));
    }
    if bt.combined_unreachable > 0 {
        notes.push(format!(
            "{} PostToolUse/PostToolUseFailure events left out: the set blocks their call before it runs",
            bt.combined_unreachable
        ));
    }
    if notes.is_empty() {
        outln!("combined: {combined}");
    } else {
        outln!("combined: {combined} ({})", notes.join("; "));
    }
}

/// `exec` when nothing ran: why, and with `--settings` what would have
/// ([`hookscope_core::service::Preview`]'s fields beside these).
#[derive(serde::Serialize)]
struct NotRunJson<'a> {
    ran: bool,
    message: &'a str,
    #[serde(flatten)]
    preview: Option<&'a hookscope_core::service::Preview>,
}

/// `exec` when the hooks ran: the masked report's fields and, beside them,
/// what the run was read with and how it compares with the transcript.
#[derive(serde::Serialize)]
struct RanJson<'a> {
    #[serde(flatten)]
    report: Value,
    dialect: hookscope_core::hooks::dialect::Dialect,
    settings_files: &'a [String],
    notes: &'a [String],
    not_reached: &'a [hookscope_core::hooks::exec::text::NotReached],
    env_warnings: &'a [hookscope_core::hooks::exec::EnvWarning],
    project_note: Option<&'a str>,
    vs_transcript: Option<&'a hookscope_core::hooks::exec::Agreement>,
}

/// What `--exec` (or its absence) adds to a replay: the `exec` JSON and the
/// text lines.
struct HooksOut {
    json: Value,
    text: Vec<String>,
}

/// Without `--exec`: nothing runs and the output says so (with
/// `--settings`, the handlers that would run are listed). With `--exec`:
/// the hook configuration that applied to the session (or the
/// `--settings` files) is loaded, the handlers the event reaches
/// (`settings::explain`: matcher, `if`, dedup) are run on the rebuilt
/// payload (`hooks::exec::execute`), and each run, the merge and the final
/// outcome are shown; secrets in what the hooks printed are masked.
fn run_hooks(
    session: &hookscope_core::transcript::Session,
    r: &Replay,
    args: &ReplayArgs,
    map: &hookscope_core::hooks::cwd_map::CwdMap,
) -> HooksOut {
    use hookscope_core::hooks::dialect::{RunContext, Sources};
    use hookscope_core::hooks::exec::ProcessRunner;
    use hookscope_core::service::{HookRun, WouldRun};

    // The session's agent decided the dialect of the payload; its hooks
    // are read and run in the same one.
    let dialect = r.dialect;
    let tag = dialect.report_tag();
    let nothing = format!(
        "none run now (--exec runs the command handlers of your {} on this payload)",
        if dialect == hookscope_core::hooks::dialect::Dialect::Codex {
            format!("{} hooks", dialect.label())
        } else {
            "hook settings".to_string()
        }
    );
    if !args.exec && args.settings.is_empty() {
        let j = NotRunJson {
            ran: false,
            message: &nothing,
            preview: None,
        };
        return HooksOut {
            json: serde_json::to_value(j).unwrap_or_default(),
            text: vec![format!("hooks: {nothing}")],
        };
    }
    let context = RunContext::for_replay(session, &r.payload, map, &args.env);
    let sources =
        Sources::for_session(session, map, args.settings.clone(), context.version.clone());
    dialect.check_sources(&sources).unwrap_or_else(|e| fail(e));
    let hooks = dialect.load(&sources);
    // File-level problems go to stderr and into the report (once each: a
    // dropped file's reason is often also its first problem); a file given
    // with --settings that is not there is said, with a hint.
    let file_notes = hooks.file_notes(&args.settings);
    for note in &file_notes {
        errln!("hookscope: {note}");
    }
    let hook_run = HookRun::new(session, &r.payload, &hooks, context);
    let preview = hook_run.preview();
    let mut text = Vec::new();
    let shown_files = if preview.settings_files.is_empty() {
        format!("no {} found", dialect.files_noun())
    } else {
        preview.settings_files.join(", ")
    };
    if !args.exec {
        text.push(format!("hooks ({shown_files}{tag}): {nothing}"));
        text.extend(preview.would_run.iter().map(WouldRun::line));
        text.extend(preview.not_reached.iter().map(NotReached::line));
        let j = NotRunJson {
            ran: false,
            message: &nothing,
            preview: Some(&preview),
        };
        return HooksOut {
            json: serde_json::to_value(j).unwrap_or_default(),
            text,
        };
    }
    let mut plan = hook_run.plan(&|n| std::env::var_os(n)).unwrap_or_else(|e| {
        fail(format!(
            "cannot create a temporary folder for the hooks: {e}"
        ))
    });
    plan.permissions.cli_allow = split_rules(&args.allowed_tools);
    plan.permissions.cli_deny = split_rules(&args.disallowed_tools);
    for e in &plan.env_file_errors {
        errln!("hookscope: {e}");
    }
    for w in &plan.env_warnings {
        errln!("hookscope: {w}");
    }
    crate::cli::interrupt::end_runs_on_signal();
    crate::cli::interrupt::say_running(plan.specs.len());
    let report = plan.run(&ProcessRunner);
    let agreement = hook_run.compare(&report);
    // The JSON and the text are each masked from the typed report; the
    // line on stderr counts what the chosen output masked.
    let mut json_counts = Redactions::new();
    let j = serde_json::to_value(RanJson {
        report: report.to_json(false, &mut json_counts),
        dialect,
        settings_files: &preview.settings_files,
        notes: &file_notes,
        not_reached: &preview.not_reached,
        env_warnings: &plan.env_warnings,
        project_note: plan.project_note.as_deref(),
        vs_transcript: agreement.as_ref(),
    })
    .unwrap_or_default();
    text.push(format!("hooks run (--exec; {shown_files}{tag}):"));
    for note in &file_notes {
        text.push(format!("  settings: {note}"));
    }
    if let Some(n) = &plan.project_note {
        text.push(format!("  note: {n}"));
    }
    let mut text_counts = Redactions::new();
    text.extend(report_lines(
        &report,
        &preview.not_reached,
        hookscope_core::redact::redactor(),
        &mut text_counts,
    ));
    match &agreement {
        Some(agreement) => {
            text.push(format!("vs the transcript: {}", agreement.text));
            if let Some(f) = &agreement.final_outcome {
                text.push(format!("final vs the transcript: {}", f.text));
            }
        }
        None => text.push(format!(
            "vs the transcript: not compared ({} records no hook activity)",
            dialect.label()
        )),
    }
    let counts = if args.json { json_counts } else { text_counts };
    if !counts.is_empty() {
        let list: Vec<String> = counts.iter().map(|(t, n)| format!("{t} {n}")).collect();
        errln!(
            "hookscope: masked secrets in the hooks' output as [REDACTED_<TYPE>] ({})",
            list.join(", ")
        );
    }
    HooksOut { json: j, text }
}
