//! `hookscope replay --all --rules A.toml --against B.toml [PATH...]`: where
//! two versions of a rule set decide differently, event by event
//! (docs/replay-and-backtest.md#what-changes-between-two-rule-sets).
//! `--fail-on-change` exits 1 when anything changed, to gate a pull
//! request.

use std::io::IsTerminal;
use std::path::PathBuf;

use hookscope_core::hooks::replay::against::{Against, Change, Changes, against_refs};
use hookscope_core::hooks::replay::exec_all::Examples;
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
    if args.fail_on_change && r.changed() > 0 {
        std::process::exit(1);
    }
}

fn name(rules: &RuleSet) -> String {
    rules
        .path
        .as_ref()
        .map_or_else(|| "(rules)".to_string(), |p| p.display().to_string())
}

fn group(title: &str, e: &Examples<Change>, shown: Shown) {
    super::exec_all::list("", title, e, shown, |c| {
        [
            format!(
                "{} {} --at {}  {}",
                c.session,
                c.event,
                c.at.as_deref().unwrap_or("?"),
                c.summary
            ),
            format!("A: {} · B: {}", c.a, c.b),
        ]
    });
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
    print_changes(&r.changes, shown, "A", "B");
}

/// The groups of `c`, with `a` and `b` naming the two sides.
pub fn print_changes(c: &Changes, shown: Shown, a: &str, b: &str) {
    outln!("{a} against {b}:");
    outln!(
        "same {} · newly blocked {} · no longer blocked {} · rewrite changed {} · context changed {} · other changes {}",
        c.same,
        c.newly_blocked.count,
        c.no_longer_blocked.count,
        c.rewrite_changed.count,
        c.context_changed.count,
        c.other_changed.count
    );
    group(
        "newly blocked (B blocks, A did not)",
        &c.newly_blocked,
        shown,
    );
    group(
        "no longer blocked (A blocked, B does not)",
        &c.no_longer_blocked,
        shown,
    );
    group("rewrite changed", &c.rewrite_changed, shown);
    group("context changed", &c.context_changed, shown);
    group("other changes", &c.other_changed, shown);
    if c.changed() == 0 {
        outln!("no event is decided differently");
    }
}
