//! `hookscope replay --all --exec [PATH...]`: your real hooks over every
//! recorded event (docs/replay-and-backtest.md#every-event-your-hooks).
//! First the plan (what would run, where http handlers POST, the
//! protections), then on a terminal a confirmation unless `--yes` (without
//! a terminal `--yes` is required), then the run with progress on stderr,
//! and the report: per handler, then vs now per event, examples with
//! their `--at`. Ctrl-C stops cleanly ([`super::interrupt::stop_runs_on_signal`]).

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use hookscope_core::hooks::exec::{Confinement, SandboxRunner};
use hookscope_core::hooks::replay::exec_all::{
    Examples, ExecAll, ExecAllOptions, HandlerTally, Mode, Network, Writes, exec_all,
};

use super::replay::{Examples as Shown, ReplayArgs, cwd_map_or_exit};
use super::{fail, print_json};

static CANCEL: AtomicBool = AtomicBool::new(false);
static DONE: AtomicBool = AtomicBool::new(false);

/// Runs `replay --all --exec` with `args` over `paths`.
pub fn run(args: &ReplayArgs, paths: &[PathBuf]) {
    if args.rules.is_some() {
        fail("--exec runs your hooks and --rules a rule set: give one of them with --all");
    }
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
    });
    if jobs == 0 {
        fail("--jobs must be at least 1");
    }
    let found = super::discover_or_exit(paths);
    let mut refs = found.sessions;
    refs.sort_by(|a, b| a.path.cmp(&b.path));
    if refs.is_empty() {
        errln!("hookscope: no sessions found");
    }
    let map = cwd_map_or_exit(&args.cwd_map);
    let lookup = |n: &str| std::env::var_os(n);
    let tty = std::io::stderr().is_terminal();
    let total = refs
        .iter()
        .filter(|s| hookscope_core::hooks::dialect::Dialect::of(s.agent).is_ok())
        .count();
    let planning = |done: usize, _runs: usize| {
        if tty {
            eprint!("\rplanning: {done}/{total} sessions");
        }
    };
    let network = if args.network {
        Network::Allowed
    } else {
        match hookscope_core::hooks::exec::no_network_available() {
            Ok(()) => Network::Isolated,
            Err(why) => Network::Unavailable(why),
        }
    };
    let writes = if args.write_anywhere || args.real_folders {
        Writes::Allowed
    } else {
        match hookscope_core::hooks::exec::write_confinement_available() {
            Ok(()) => Writes::Confined,
            Err(why) => Writes::Unavailable(why),
        }
    };
    let mut opts = ExecAllOptions {
        settings: &args.settings,
        cwd_map: &map,
        env_args: &args.env,
        isolated: !args.real_folders,
        network: network.clone(),
        writes: writes.clone(),
        against: (!args.against_settings.is_empty()).then_some(args.against_settings.as_slice()),
        jobs,
        lookup: &lookup,
        progress: &planning,
    };
    let plan = exec_all(&refs, &opts, &Mode::Plan);
    if tty {
        errln!();
    }
    if plan.runs == 0 {
        if args.json {
            print_json(&serde_json::to_value(&plan).unwrap_or_default());
        } else {
            print_plan(&plan);
            outln!("nothing to run: no recorded event reaches a handler of your hooks");
        }
        return;
    }
    if !args.json || tty {
        // The plan goes to stderr with --json, so stdout stays one object.
        for line in plan_lines(&plan) {
            if args.json {
                errln!("{line}");
            } else {
                outln!("{line}");
            }
        }
    }
    if !args.yes {
        let stdin = std::io::stdin();
        if !(stdin.is_terminal() && tty) {
            fail(
                "--exec over every event runs your hooks many times: give --yes to run without a terminal to confirm on",
            );
        }
        eprint!(
            "run your hooks now ({})? [y/N] ",
            plural(plan.handler_runs, "handler run", "handler runs")
        );
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = stdin.lock().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            errln!("hookscope: nothing was run");
            return;
        }
    }
    super::interrupt::stop_runs_on_signal(&CANCEL, &DONE);
    let running = |done: usize, runs: usize| {
        if tty {
            eprint!("\r{done}/{total} sessions, {runs} events run (Ctrl-C stops)");
        }
    };
    opts.progress = &running;
    let runner = SandboxRunner {
        how: Confinement {
            no_network: network == Network::Isolated,
            confine_writes: writes == Writes::Confined,
        },
    };
    let report = exec_all(
        &refs,
        &opts,
        &Mode::Run {
            runner: &runner,
            cancel: &CANCEL,
        },
    );
    DONE.store(true, Ordering::SeqCst);
    if tty {
        errln!();
    }
    if args.json {
        print_json(&serde_json::to_value(&report).unwrap_or_default());
    } else {
        let shown = args.examples.unwrap_or(Shown::Up(3));
        print_report(&report, shown);
        if let Some(c) = &report.against {
            super::against::print_changes(c, shown, "A (your hooks)", "B (--against-settings)");
        }
    }
    if args.fail_on_change && report.against.as_ref().is_some_and(|c| c.changed() > 0) {
        std::process::exit(1);
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The plan: how many runs, which handlers, where http handlers POST, and
/// the protections.
fn plan_lines(plan: &ExecAll) -> Vec<String> {
    let mut out = vec![format!(
        "plan: {} × {} ≈ {} ({} answered from identical events) in {}",
        plural(plan.handlers.len(), "handler", "handlers"),
        plural(plan.events, "event", "events"),
        plural(plan.handler_runs, "handler run", "handler runs"),
        plan.deduplicated,
        plural(plan.sessions, "session", "sessions"),
    )];
    for h in &plan.handlers {
        out.push(format!(
            "  {} {}: {} — reaches {}",
            h.handler,
            h.event,
            h.command,
            plural(h.reached, "event", "events")
        ));
    }
    for h in plan.handlers.iter().filter(|h| h.posts_to.is_some()) {
        out.push(format!(
            "  http: {} POSTs each payload to {}",
            h.handler,
            h.posts_to.as_deref().unwrap_or("")
        ));
    }
    out.extend(left_out_lines(plan));
    out.extend(protection_lines(plan));
    out
}

/// Sessions not walked, per agent, and why.
fn left_out_lines(r: &ExecAll) -> Vec<String> {
    r.left_out
        .iter()
        .map(|(agent, n)| {
            let why = match agent.as_str() {
                "codex" => "--settings files are Claude Code's and Droid's; without --settings your Codex hooks run on them",
                "opencode" => "OpenCode's hooks are JavaScript plugins, not commands fed JSON",
                _ => "no hook dialect",
            };
            format!("  {agent}: {} left out ({why})", plural(*n, "session", "sessions"))
        })
        .collect()
}

fn protection_lines(r: &ExecAll) -> Vec<String> {
    let mut out = Vec::new();
    for p in &r.protections {
        out.push(format!("  protection: {p}"));
    }
    for p in &r.not_in_force {
        out.push(format!("  not in force: {p}"));
    }
    out
}

fn print_plan(plan: &ExecAll) {
    for line in plan_lines(plan) {
        outln!("{line}");
    }
    if plan.settings_files.is_empty() {
        outln!("  no hook settings file found (give one with --settings FILE)");
    } else {
        outln!("  settings read: {}", plan.settings_files.join(", "));
    }
}

fn counts(map: &std::collections::BTreeMap<String, usize>) -> String {
    if map.is_empty() {
        return "none".into();
    }
    map.iter()
        .map(|(k, n)| format!("{n}× {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A group of examples under `title`, indented by `indent`: its count,
/// then each shown example as the two lines `lines` gives, then how many
/// more there are.
pub(super) fn list<T>(
    indent: &str,
    title: &str,
    e: &Examples<T>,
    shown: Shown,
    lines: impl Fn(&T) -> [String; 2],
) {
    if e.count == 0 {
        return;
    }
    outln!("{indent}{title}: {}", e.count);
    let n = match shown {
        Shown::All => e.examples.len(),
        Shown::Up(n) => n.min(e.examples.len()),
    };
    for x in e.examples.iter().take(n) {
        let [head, tail] = lines(x);
        outln!("{indent}  {head}");
        outln!("{indent}    {tail}");
    }
    if e.count > n {
        outln!(
            "{indent}  … {} more (--examples all; --json keeps the first 50)",
            e.count - n
        );
    }
}

fn examples(title: &str, e: &Examples, shown: Shown) {
    list("  ", title, e, shown, |x| {
        [
            format!(
                "{} {} --at {}  {}",
                x.session,
                x.event,
                x.at.as_deref().unwrap_or("?"),
                x.summary
            ),
            format!("then: {} · now: {}", x.then, x.now),
        ]
    });
}

fn print_handler(h: &HandlerTally, shown: Shown) {
    outln!("{} {}: {}", h.handler, h.event, h.command);
    outln!(
        "  reached {}, ran {}; exits: {}; decisions: {}",
        h.reached,
        h.ran,
        counts(&h.exits),
        counts(&h.decisions)
    );
    if !h.failures.is_empty() {
        outln!(
            "  failures: {} ({} fail open: the action went through)",
            counts(&h.failures),
            h.fails_open
        );
    }
    if !h.not_run.is_empty() {
        outln!("  not run: {}", counts(&h.not_run));
    }
    if h.write_refused > 0 {
        outln!(
            "  ⚠ {} said \"permission denied\" while its writes were confined: a refused write may have changed its answer; compare with --write-anywhere",
            plural(h.write_refused, "run", "runs")
        );
    }
    examples(
        "its new blocks (nothing blocked then)",
        &h.new_blocks,
        shown,
    );
    examples("its failures", &h.failed, shown);
}

fn print_report(r: &ExecAll, shown: Shown) {
    outln!(
        "ran your hooks on {} in {}: {} ({} answered from identical events){}",
        plural(r.events, "event", "events"),
        plural(r.sessions, "session", "sessions"),
        plural(r.handler_runs, "handler run", "handler runs"),
        r.deduplicated,
        if r.cancelled {
            " — stopped early (Ctrl-C): the counts are of the events completed"
        } else {
            ""
        }
    );
    // The protections were said with the plan, above.
    if r.unreadable > 0 {
        outln!(
            "  {} unreadable (--json names them)",
            plural(r.unreadable, "session", "sessions")
        );
    }
    for h in &r.handlers {
        outln!("");
        print_handler(h, shown);
    }
    let t = &r.then_vs_now;
    outln!("");
    outln!("then vs now (the transcript vs your hooks combined, per event):");
    outln!(
        "  same {} · blocked then and now {} · new blocks {} · lost blocks {} · rewrite changed {} · new context {} · lost context {} · other changes {}",
        t.same,
        t.blocked_both,
        t.new_blocks.count,
        t.lost_blocks.count,
        t.rewrite_changed.count,
        t.new_context.count,
        t.lost_context.count,
        t.other_changes.count
    );
    examples(
        "new blocks (to review: likely false blocks)",
        &t.new_blocks,
        shown,
    );
    examples("lost blocks (blocked then, not now)", &t.lost_blocks, shown);
    examples("rewrite changed", &t.rewrite_changed, shown);
    examples("new context", &t.new_context, shown);
    examples("lost context", &t.lost_context, shown);
    examples("other changes", &t.other_changes, shown);
}
