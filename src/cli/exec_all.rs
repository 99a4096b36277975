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
    ExecAll, ExecAllOptions, Mode, Network, Writes, exec_all,
};
use hookscope_core::hooks::replay::report_lines::{exec_report_lines, plan_lines, plural};

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
        if refs.is_empty() {
            // No sessions: nothing was run, which must not pass a CI step.
            std::process::exit(1);
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
    super::interrupt::wait_for_stop_note(&CANCEL);
    if tty {
        errln!();
    }
    if args.json {
        print_json(&serde_json::to_value(&report).unwrap_or_default());
    } else {
        let shown = shown_of(args.examples.unwrap_or(Shown::Up(3)));
        for line in exec_report_lines(&report, shown) {
            outln!("{}", line.text);
        }
    }
    if args.fail_on_change && report.against.as_ref().is_some_and(|c| c.changed() > 0) {
        std::process::exit(1);
    }
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

/// `--examples`: how many examples per group.
fn shown_of(shown: Shown) -> Option<usize> {
    match shown {
        Shown::All => None,
        Shown::Up(n) => Some(n),
    }
}
