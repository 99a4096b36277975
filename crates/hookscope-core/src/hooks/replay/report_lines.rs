//! The words of `replay --all --exec` and `--against` reports, line by
//! line (docs/replay-and-backtest.md#every-event-your-hooks), shared by the
//! CLI (which prints them) and the TUI (which lists them and jumps from an
//! example's lines to its event). Each example line carries its
//! [`Target`]: the event's source file and line and its `--at`.

use std::collections::BTreeMap;

use super::against::{Change, Changes};
use super::exec_all::{Examples, ExecAll, ExecExample, HandlerTally};

/// Where an example line points: the event's `source` (`path:line`) and
/// its `--at` (`tool_use_id`, `line:N`, `line:agent-<id>:N`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `path:line` of the event (a subagent's file for its events).
    pub source: String,
    /// The `--at` naming it, when there is one.
    pub at: Option<String>,
}

impl Target {
    /// The file part of [`Target::source`].
    pub fn path(&self) -> &str {
        self.source
            .rsplit_once(':')
            .map_or(self.source.as_str(), |(p, _)| p)
    }
}

/// One line of a report: its text and, on an example's lines, where the
/// example is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportLine {
    /// The text, indented.
    pub text: String,
    /// The example it belongs to, if any.
    pub target: Option<Target>,
}

impl ReportLine {
    fn plain(text: impl Into<String>) -> ReportLine {
        ReportLine {
            text: text.into(),
            target: None,
        }
    }
}

/// `n one` or `n many`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `3× exit 0, 1× exit 2`, or `none`.
pub fn counts(map: &BTreeMap<String, usize>) -> String {
    if map.is_empty() {
        return "none".into();
    }
    map.iter()
        .map(|(k, n)| format!("{n}× {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The plan: how many runs, which handlers, where http handlers POST, the
/// sessions left out, and the protections.
pub fn plan_lines(plan: &ExecAll) -> Vec<String> {
    let handlers = if plan.against_handlers.is_empty() {
        plural(plan.handlers.len(), "handler", "handlers")
    } else {
        format!(
            "{} (A) and {} (B)",
            plural(plan.handlers.len(), "handler", "handlers"),
            plural(plan.against_handlers.len(), "handler", "handlers")
        )
    };
    let mut out = vec![format!(
        "plan: {handlers} × {} ≈ {} ({} answered from identical events) in {}",
        plural(plan.events, "event", "events"),
        plural(plan.handler_runs, "handler run", "handler runs"),
        plan.deduplicated,
        plural(plan.sessions, "session", "sessions"),
    )];
    let a = if plan.against_handlers.is_empty() {
        ""
    } else {
        "A: "
    };
    let sides = [(a, &plan.handlers), ("B: ", &plan.against_handlers)];
    for (side, handlers) in sides {
        for h in handlers {
            out.push(format!(
                "  {side}{} {}: {} — reaches {}",
                h.handler,
                h.event,
                h.command,
                plural(h.reached, "event", "events")
            ));
            out.extend(h.lints.iter().map(|l| format!("    ⚠ {l}")));
        }
    }
    if plan
        .handlers
        .iter()
        .chain(&plan.against_handlers)
        .any(|h| h.lints.iter().any(|l| l.starts_with("lint ")))
    {
        out.push(
            "  ⚠ hooks --lint flags handlers above (hookscope hooks --explain ID says why): their runs may fail or never fire".to_string(),
        );
    }
    for h in plan.handlers.iter().filter(|h| h.posts_to.is_some()) {
        out.push(format!(
            "  http: {} POSTs each payload to {}",
            h.handler,
            h.posts_to.as_deref().unwrap_or("")
        ));
    }
    out.extend(plan.left_out.iter().map(|(agent, n)| {
        let why = match agent.as_str() {
            "codex" => "--settings files are Claude Code's and Droid's; without --settings your Codex hooks run on them",
            "opencode" => "OpenCode's hooks are JavaScript plugins, not commands fed JSON",
            _ => "no hook dialect",
        };
        format!("  {agent}: {} left out ({why})", plural(*n, "session", "sessions"))
    }));
    if plan.cwd_missing > 0 {
        out.push(format!(
            "  ⚠ {} of {} were recorded in folders that do not exist here ({}): the hook runs in a temporary folder, but the payload's cwd still names the recorded one, and a guard that checks it may fail closed and block everything; map them to local folders with --cwd-map OLD=NEW",
            plan.cwd_missing,
            plural(plan.events, "event", "events"),
            plan.cwd_missing_examples.join(", ")
        ));
    }
    for p in &plan.protections {
        out.push(format!("  protection: {p}"));
    }
    for p in &plan.not_in_force {
        out.push(format!("  not in force: {p}"));
    }
    out
}

/// A group of examples under `title`, indented by `indent`: its count,
/// then each example (up to `shown`; `None`: all kept) as the two lines
/// `lines` gives, then how many more there are.
fn group<T>(
    out: &mut Vec<ReportLine>,
    indent: &str,
    title: &str,
    e: &Examples<T>,
    shown: Option<usize>,
    lines: impl Fn(&T) -> ([String; 2], Target),
) {
    if e.count == 0 {
        return;
    }
    out.push(ReportLine::plain(format!("{indent}{title}: {}", e.count)));
    let n = shown.map_or(e.examples.len(), |n| n.min(e.examples.len()));
    for x in e.examples.iter().take(n) {
        let ([head, tail], target) = lines(x);
        out.push(ReportLine {
            text: format!("{indent}  {head}"),
            target: Some(target.clone()),
        });
        out.push(ReportLine {
            text: format!("{indent}    {tail}"),
            target: Some(target),
        });
    }
    if e.count > n {
        out.push(ReportLine::plain(format!(
            "{indent}  … {} more (--examples all; --json keeps the first 50)",
            e.count - n
        )));
    }
}

/// An example's two lines (`SESSION EVENT --at AT  SUMMARY`, then
/// `second`) and where it is.
fn example(
    session: &str,
    event: &hookscope_hook::event::EventKey,
    at: Option<&str>,
    summary: &str,
    source: &str,
    second: String,
) -> ([String; 2], Target) {
    (
        [
            format!("{session} {event} --at {}  {summary}", at.unwrap_or("?")),
            second,
        ],
        Target {
            source: source.to_string(),
            at: at.map(str::to_string),
        },
    )
}

fn exec_examples(out: &mut Vec<ReportLine>, title: &str, e: &Examples, shown: Option<usize>) {
    group(out, "  ", title, e, shown, |x: &ExecExample| {
        example(
            &x.session,
            &x.event,
            x.at.as_deref(),
            &x.summary,
            &x.source,
            format!("then: {} · now: {}", x.then, x.now),
        )
    });
}

/// One handler's tally; `own_examples` `false` leaves its new blocks to
/// the then-vs-now list (the only handler: the same events).
fn handler_lines(
    out: &mut Vec<ReportLine>,
    h: &HandlerTally,
    shown: Option<usize>,
    own_examples: bool,
) {
    out.push(ReportLine::plain(format!(
        "{} {}: {}",
        h.handler, h.event, h.command
    )));
    out.extend(
        h.lints
            .iter()
            .map(|l| ReportLine::plain(format!("  ⚠ {l}"))),
    );
    out.push(ReportLine::plain(format!(
        "  reached {}, ran {}; exits: {}; decisions: {}",
        h.reached,
        h.ran,
        counts(&h.exits),
        counts(&h.decisions)
    )));
    if !h.failures.is_empty() {
        out.push(ReportLine::plain(format!(
            "  failures: {} ({} fail open: the action went through)",
            counts(&h.failures),
            h.fails_open
        )));
    }
    if !h.not_run.is_empty() {
        out.push(ReportLine::plain(format!(
            "  not run: {}",
            counts(&h.not_run)
        )));
    }
    if h.write_refused > 0 {
        out.push(ReportLine::plain(format!(
            "  ⚠ {} said \"permission denied\" while its writes were confined: a refused write may have changed its answer; compare with --write-anywhere",
            plural(h.write_refused, "run", "runs")
        )));
    }
    if own_examples {
        exec_examples(
            out,
            "its new blocks (nothing blocked then)",
            &h.new_blocks,
            shown,
        );
    } else if h.new_blocks.count > 0 {
        out.push(ReportLine::plain(format!(
            "  its new blocks (nothing blocked then): {}, listed under then vs now",
            h.new_blocks.count
        )));
    }
    exec_examples(out, "its failures", &h.failed, shown);
}

/// The report of a run ([`ExecAll`] with `ran`): the totals, per handler,
/// then vs now with examples (up to `shown` per group; `None`: every one
/// kept), and with `--against-settings` the changes between A and B.
pub fn exec_report_lines(r: &ExecAll, shown: Option<usize>) -> Vec<ReportLine> {
    let mut out = vec![ReportLine::plain(format!(
        "ran your hooks on {} in {}: {} ({} answered from identical events){}",
        plural(r.events, "event", "events"),
        plural(r.sessions, "session", "sessions"),
        plural(r.handler_runs, "handler run", "handler runs"),
        r.deduplicated,
        if r.cancelled {
            " — stopped early (Ctrl-C, or Esc in the TUI): the counts are of the events completed"
        } else {
            ""
        }
    ))];
    if r.unreadable > 0 {
        out.push(ReportLine::plain(format!(
            "  {} unreadable (--json names them)",
            plural(r.unreadable, "session", "sessions")
        )));
    }
    let several = r.handlers.len() > 1;
    for h in &r.handlers {
        out.push(ReportLine::plain(""));
        handler_lines(&mut out, h, shown, several);
    }
    if !r.against_handlers.is_empty() {
        out.push(ReportLine::plain(""));
        out.push(ReportLine::plain(
            "B (--against-settings), per handler (its decisions are compared below):",
        ));
        for h in &r.against_handlers {
            handler_lines(&mut out, h, shown, true);
        }
    }
    let t = &r.then_vs_now;
    out.push(ReportLine::plain(""));
    out.push(ReportLine::plain(
        "then vs now (the transcript vs your hooks combined, per event):",
    ));
    out.push(ReportLine::plain(format!(
        "  same {} · blocked then and now {} · new blocks {} · lost blocks {} · new rewrites {} · lost rewrites {} · rewrite changed {} · new context {} · lost context {} · other changes {}",
        t.same,
        t.blocked_both,
        t.new_blocks.count,
        t.lost_blocks.count,
        t.new_rewrites.count,
        t.lost_rewrites.count,
        t.rewrite_changed.count,
        t.new_context.count,
        t.lost_context.count,
        t.other_changes.count
    )));
    exec_examples(
        &mut out,
        "new blocks (blocked now, not then: review them; false blocks hide here)",
        &t.new_blocks,
        shown,
    );
    exec_examples(
        &mut out,
        "lost blocks (blocked then, not now)",
        &t.lost_blocks,
        shown,
    );
    exec_examples(
        &mut out,
        "new rewrites (rewritten now, not then)",
        &t.new_rewrites,
        shown,
    );
    exec_examples(
        &mut out,
        "lost rewrites (rewritten then, not now)",
        &t.lost_rewrites,
        shown,
    );
    exec_examples(
        &mut out,
        "rewrite changed (rewritten then and now, to another input)",
        &t.rewrite_changed,
        shown,
    );
    exec_examples(&mut out, "new context", &t.new_context, shown);
    exec_examples(&mut out, "lost context", &t.lost_context, shown);
    exec_examples(&mut out, "other changes", &t.other_changes, shown);
    if let Some(c) = &r.against {
        out.push(ReportLine::plain(""));
        out.extend(changes_lines(
            c,
            shown,
            "A (your hooks)",
            "B (--against-settings)",
        ));
    }
    out
}

/// The groups of `c` (newly blocked, no longer blocked, rewrite changed,
/// context changed, other), with `a` and `b` naming the two sides.
pub fn changes_lines(c: &Changes, shown: Option<usize>, a: &str, b: &str) -> Vec<ReportLine> {
    let mut out = vec![
        ReportLine::plain(format!("{a} against {b}:")),
        ReportLine::plain(format!(
            "same {} · newly blocked {} · no longer blocked {} · rewrite changed {} · context changed {} · other changes {}",
            c.same,
            c.newly_blocked.count,
            c.no_longer_blocked.count,
            c.rewrite_changed.count,
            c.context_changed.count,
            c.other_changed.count
        )),
    ];
    let change = |c: &Change| {
        example(
            &c.session,
            &c.event,
            c.at.as_deref(),
            &c.summary,
            &c.source,
            format!("A: {} · B: {}", c.a, c.b),
        )
    };
    group(
        &mut out,
        "",
        "newly blocked (B blocks, A did not)",
        &c.newly_blocked,
        shown,
        change,
    );
    group(
        &mut out,
        "",
        "no longer blocked (A blocked, B does not)",
        &c.no_longer_blocked,
        shown,
        change,
    );
    group(
        &mut out,
        "",
        "rewrite changed",
        &c.rewrite_changed,
        shown,
        change,
    );
    group(
        &mut out,
        "",
        "context changed",
        &c.context_changed,
        shown,
        change,
    );
    group(
        &mut out,
        "",
        "other changes",
        &c.other_changed,
        shown,
        change,
    );
    if c.changed() == 0 {
        out.push(ReportLine::plain("no event is decided differently"));
    }
    out
}
