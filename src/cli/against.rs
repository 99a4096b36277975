//! `hookscope replay --all --rules A.toml --against B.toml [PATH...]`: where
//! two versions of a rule set decide differently, event by event
//! (docs/replay-and-backtest.md#what-changes-between-two-rule-sets).
//! `--fail-on-change` exits 1 when anything changed, to gate a pull
//! request.

use std::io::IsTerminal;
use std::path::PathBuf;

use hookscope_core::hooks::replay::against::{Against, against_refs};
use hookscope_core::hooks::replay::report_lines::changes_lines;
use hookscope_core::hooks::rules::RuleSet;

use super::print_json;
use super::replay::{Examples as Shown, ReplayArgs};

/// Runs the comparison of `a` (`--rules`) and `b` (`--against`) over the
/// sessions under `paths`, prints it, and exits 1 with `--fail-on-change`
/// when any event is decided differently.
pub fn run(paths: &[PathBuf], a: &RuleSet, b: &RuleSet, args: &ReplayArgs, shown: Shown) {
    let found = super::discover_or_exit(paths);
    let mut refs = found.sessions;
    if refs.is_empty() {
        errln!("hookscope: no sessions found");
    }
    refs.sort_by(|x, y| x.path.cmp(&y.path));
    let tty = std::io::stderr().is_terminal();
    let total = refs.len();
    let progress = |done: usize| {
        if tty {
            eprint!("\r{done}/{total} sessions");
        }
    };
    let r = against_refs(&refs, a, b, &progress);
    if tty {
        errln!();
    }
    if args.json {
        print_json(&serde_json::to_value(&r).unwrap_or_default());
    } else {
        print_text(&r, a, b, shown);
    }
    // No sessions: nothing was compared, which must not pass a CI step.
    if (args.fail_on_change && r.changed() > 0) || total == 0 {
        std::process::exit(1);
    }
}

fn name(rules: &RuleSet) -> String {
    rules
        .path
        .as_ref()
        .map_or_else(|| "(rules)".to_string(), |p| p.display().to_string())
}

fn print_text(r: &Against, a: &RuleSet, b: &RuleSet, shown: Shown) {
    outln!(
        "A: {} ({} rules) against B: {} ({} rules), over {} sessions, {} events",
        name(a),
        a.rules.len(),
        name(b),
        b.rules.len(),
        r.sessions,
        r.events
    );
    for (agent, n) in &r.left_out {
        outln!("  {agent}: {n} sessions left out (their payloads are not rebuilt)");
    }
    if r.unreadable > 0 {
        outln!("  {} unreadable (--json names them)", r.unreadable);
    }
    let shown = match shown {
        Shown::All => None,
        Shown::Up(n) => Some(n),
    };
    for line in changes_lines(&r.changes, shown, "A", "B") {
        outln!("{}", line.text);
    }
}
