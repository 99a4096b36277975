//! Your real hooks over every recorded event (`replay --all --exec`;
//! docs/replay-and-backtest.md#every-event-your-hooks): each session's
//! events rebuilt, the handlers each reaches explained (matchers, `if`,
//! duplicates: [`Hooks::explain`]), run exactly as the single `--exec` runs
//! them ([`Hooks::plan`], [`crate::hooks::exec::ExecPlan::run`]) and
//! compared with what the transcript recorded then.
//!
//! Two passes over the same walk: [`exec_all`] with [`Mode::Plan`] runs
//! nothing and counts what would run (for the consent step), with
//! [`Mode::Run`] it runs. Sessions are walked in parallel and their parts
//! merged in the order given, so counts and examples do not depend on
//! thread timing. At most [`ExecAllOptions::jobs`] events run at once (each
//! event's handlers run side by side, as Claude Code runs them).
//!
//! Same answer, less work: an event whose payload (its JSON, byte for
//! byte) and reached handlers (where each is written and what it is) are
//! those of an event already run is answered from that run
//! ([`ExecAll::deduplicated`]); a payload carries its `session_id` and
//! `transcript_path`, so this happens across copies of one session (a
//! resumed or forked file), not across sessions.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use hookscope_hook::event::EventKey;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::against::{Change, Changes, Decision};
use super::backtest::{at_of, summary_of};
use super::{activity_at, recorded_permission};
use crate::hooks::contract::Version;
use crate::hooks::cwd_map::CwdMap;
use crate::hooks::dialect::{Dialect, Hooks, RunContext, Sources};
use crate::hooks::events::{EventName, Payload};
use crate::hooks::exec::{ExecReport, RunStatus, Runner, Seen, effect_name, failure_of, then_of};
use crate::hooks::result::Effect;
use crate::hooks::settings::Handler;
use crate::transcript::{Session, SessionRef, short_session_id};

/// Examples kept per handler and per kind of change (the first, in
/// session order); the rest are counted.
pub const KEPT_EXEC_EXAMPLES: usize = 50;

/// What the walk does at each reached event.
pub enum Mode<'a> {
    /// Count what would run; run nothing.
    Plan,
    /// Run the handlers with `runner`. `cancel` set (Ctrl-C) stops the walk:
    /// no new event starts and the answers of the events running then are
    /// dropped (their hooks were killed), so every count is of complete
    /// runs ([`ExecAll::cancelled`]).
    Run {
        /// Runs one handler ([`crate::hooks::exec::ProcessRunner`] for real).
        runner: &'a (dyn Runner + Sync),
        /// Set to stop.
        cancel: &'a AtomicBool,
    },
}

/// Whether the hooks may reach the network (the report's protections).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Network {
    /// Each hook in its own network namespace
    /// ([`crate::hooks::exec::SandboxRunner`] with `no_network`).
    Isolated,
    /// Allowed on request (`--network`).
    Allowed,
    /// Not available here, and why ([`crate::hooks::exec::no_network_available`]).
    Unavailable(String),
}

/// Whether the hooks may write outside their event's temporary folder (the
/// report's protections).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Writes {
    /// Writes confined beneath each event's temporary folder (Landlock;
    /// [`crate::hooks::exec::Confinement::confine_writes`]).
    Confined,
    /// Allowed on request (`--write-anywhere`), or because the hooks run in
    /// the session's real folders (`--real-folders`).
    Allowed,
    /// Not available here, and why
    /// ([`crate::hooks::exec::write_confinement_available`]).
    Unavailable(String),
}

/// The options of [`exec_all`].
pub struct ExecAllOptions<'a> {
    /// `--settings`: only these files, for every session; empty reads the
    /// files that applied to each session (its project's, the user's, …).
    pub settings: &'a [PathBuf],
    /// `--cwd-map`: a recorded folder → a folder here.
    pub cwd_map: &'a CwdMap,
    /// `--env NAME[=VALUE]`: passed on beside the allowlist.
    pub env_args: &'a [String],
    /// Run in fresh temporary folders (project, working folder, `HOME`):
    /// the default; `false` runs in the session's folders as recorded.
    pub isolated: bool,
    /// Events run at once (at least 1).
    pub jobs: usize,
    /// Whether the runner keeps the hooks off the network (said in the
    /// protections; the runner itself is [`Mode::Run`]'s).
    pub network: Network,
    /// Whether the runner confines the hooks' writes (said in the
    /// protections; the runner itself is [`Mode::Run`]'s).
    pub writes: Writes,
    /// `--against-settings`: a second version of the hooks (only these
    /// files, for every session); each event is run with both and the
    /// decisions compared ([`ExecAll::against`]).
    pub against: Option<&'a [PathBuf]>,
    /// Reads hookscope's environment for the hooks' allowlist (normally
    /// `std::env::var_os`).
    pub lookup: &'a (dyn Fn(&str) -> Option<OsString> + Sync),
    /// Called after each session, from any thread: sessions done, events
    /// run so far.
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
}

/// One event, as an example.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExecExample {
    /// The session's short id.
    pub session: String,
    /// The event.
    pub event: EventKey,
    /// The `--at` form naming this firing (`tool_use_id`, `line:N`,
    /// `line:agent-<id>:N`), for `replay SESSION --event E --at AT --exec`.
    pub at: Option<String>,
    /// One line: the tool and its command or path, or the prompt.
    pub summary: String,
    /// What the transcript recorded then ([`crate::hooks::exec::Then::text`]).
    pub then: String,
    /// What the hooks do now, in the same words
    /// ([`Seen::label`]; for a failure, how it failed).
    pub now: String,
    /// The source file and 1-based line of the event.
    pub source: String,
}

/// Events of one kind: how many, and the first [`KEPT_EXEC_EXAMPLES`] as
/// examples (`T`: [`ExecExample`] here, `against::Change` for two rule
/// sets).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Examples<T = ExecExample> {
    /// Events of this kind.
    pub count: usize,
    /// The first ones, in session order.
    pub examples: Vec<T>,
}

impl<T> Default for Examples<T> {
    fn default() -> Examples<T> {
        Examples {
            count: 0,
            examples: Vec::new(),
        }
    }
}

impl<T> Examples<T> {
    /// Counts one more; keeps it (built by `e`) while fewer than
    /// [`KEPT_EXEC_EXAMPLES`] are kept.
    pub(crate) fn push(&mut self, e: impl FnOnce() -> T) {
        self.count += 1;
        if self.examples.len() < KEPT_EXEC_EXAMPLES {
            self.examples.push(e());
        }
    }

    /// Adds `other`'s count and, room allowing, its examples after these.
    pub(crate) fn merge(&mut self, other: Examples<T>) {
        self.count += other.count;
        let room = KEPT_EXEC_EXAMPLES.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
    }
}

/// Then (the transcript) vs now (the hooks' combined answer), per event
/// (docs/replay-and-backtest.md#then-vs-now). A block is a blocked call,
/// a rejected prompt, a kept-going Stop, `continue: false`, or a
/// PostToolUse objection.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ThenVsNow {
    /// Events whose effect is the same then and now.
    pub same: usize,
    /// Blocked then and now.
    pub blocked_both: usize,
    /// Blocked now, not then: the likely false blocks to review.
    pub new_blocks: Examples,
    /// Blocked then, not now: regressions.
    pub lost_blocks: Examples,
    /// A rewrite now, none then.
    pub new_rewrites: Examples,
    /// A rewrite then, none now.
    pub lost_rewrites: Examples,
    /// A rewrite then and now, to another input.
    pub rewrite_changed: Examples,
    /// Context added now, not then.
    pub new_context: Examples,
    /// Context added then, not now.
    pub lost_context: Examples,
    /// Any other change of effect (an ask now, an allow then, …).
    pub other_changes: Examples,
}

impl ThenVsNow {
    fn merge(&mut self, o: ThenVsNow) {
        self.same += o.same;
        self.blocked_both += o.blocked_both;
        self.new_blocks.merge(o.new_blocks);
        self.lost_blocks.merge(o.lost_blocks);
        self.new_rewrites.merge(o.new_rewrites);
        self.lost_rewrites.merge(o.lost_rewrites);
        self.rewrite_changed.merge(o.rewrite_changed);
        self.new_context.merge(o.new_context);
        self.lost_context.merge(o.lost_context);
        self.other_changes.merge(o.other_changes);
    }
}

/// One handler's tally over the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HandlerTally {
    /// Where it is written: `file:line (layer)`.
    pub handler: String,
    /// What it runs ([`Handler::summary`]).
    pub command: String,
    /// The event it is configured on.
    pub event: EventKey,
    /// An http handler's URL (it POSTs each payload there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub posts_to: Option<String>,
    /// Events it reached (those answered from an identical earlier run
    /// included).
    pub reached: usize,
    /// Runs made (fewer than `reached` by the deduplicated events; 0 in a
    /// plan).
    pub ran: usize,
    /// How its runs ended: `exit 0`, `exit 2`, `timed out`, `http 200`, …
    pub exits: BTreeMap<String, usize>,
    /// What Claude Code does with its answers: `blocked`, `allowed`,
    /// `context_added`, `nothing`, … ([`effect_name`]).
    pub decisions: BTreeMap<String, usize>,
    /// Its failures by kind: `crashed`, `launch_failed`, `signaled`,
    /// `timed_out`, `http_error`.
    pub failures: BTreeMap<String, usize>,
    /// Of its failures, those that let the action through (no
    /// `onFailure: "block"`).
    pub fails_open: usize,
    /// Events it reached but was not run on, by reason (a prompt handler,
    /// an https URL, …).
    pub not_run: BTreeMap<String, usize>,
    /// Its own blocks on events where nothing was blocked then.
    pub new_blocks: Examples,
    /// Its failures, as examples.
    pub failed: Examples,
    /// What to know before it runs: what `hooks --lint` says of it (`lint
    /// ID: message`), and `isolated: …` when a relative script path cannot
    /// be found in the isolated folders.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lints: Vec<String>,
    /// Runs whose stderr said a permission was denied while writes were
    /// confined ([`crate::hooks::exec::sandbox::WRITE_REFUSED_NOTE`]): their
    /// answers may be the confinement's.
    pub write_refused: usize,
}

impl HandlerTally {
    fn merge(&mut self, o: HandlerTally) {
        self.reached += o.reached;
        self.ran += o.ran;
        for (k, n) in o.exits {
            *self.exits.entry(k).or_default() += n;
        }
        for (k, n) in o.decisions {
            *self.decisions.entry(k).or_default() += n;
        }
        for (k, n) in o.failures {
            *self.failures.entry(k).or_default() += n;
        }
        for (k, n) in o.not_run {
            *self.not_run.entry(k).or_default() += n;
        }
        self.fails_open += o.fails_open;
        self.write_refused += o.write_refused;
        self.new_blocks.merge(o.new_blocks);
        self.failed.merge(o.failed);
    }
}

/// What [`exec_all`] found, ran and compared; the one object `replay --all
/// --exec --json` prints.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ExecAll {
    /// Whether anything ran (`false`: a plan, [`Mode::Plan`]).
    pub ran: bool,
    /// The protections in force for every run, in words.
    pub protections: Vec<String>,
    /// Protections not in force, and why.
    pub not_in_force: Vec<String>,
    /// Sessions walked (those of an agent with a hook dialect).
    pub sessions: usize,
    /// Sessions with no handler for any event they record.
    pub sessions_without_hooks: usize,
    /// Sessions that could not be loaded.
    pub unreadable: usize,
    /// `"<path>: <error>"` per unreadable session.
    pub unreadable_files: Vec<String>,
    /// Sessions not walked, per agent: agents without a hook dialect
    /// (OpenCode), and Codex sessions when `--settings` is given (those
    /// files are Claude Code's and Droid's; Codex reads its own).
    pub left_out: BTreeMap<String, usize>,
    /// The settings files read, over all sessions (paths as found).
    pub settings_files: Vec<String>,
    /// Events at least one handler reached.
    pub events: usize,
    /// Of them, events run (or, in a plan, to run).
    pub runs: usize,
    /// Of them, events answered from an identical earlier run
    /// (module docs).
    pub deduplicated: usize,
    /// Handler runs made (or, in a plan, to make).
    pub handler_runs: usize,
    /// Set when the walk was stopped ([`Mode::Run`]'s `cancel`): the counts
    /// are of the events completed before.
    pub cancelled: bool,
    /// Per handler, in the order first met.
    pub handlers: Vec<HandlerTally>,
    /// The combined answers against the transcript, per event (not in a
    /// plan).
    pub then_vs_now: ThenVsNow,
    /// With `--against-settings`: per event, your hooks (A) against the
    /// other version (B), grouped as for two rule sets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against: Option<Changes>,
    /// Events whose payload `cwd` (after `--cwd-map`) is not a folder
    /// here: a hook that inspects its working folder sees it missing (some
    /// guards then fail closed and block everything).
    pub cwd_missing: usize,
    /// The first such folders (at most 3), for the plan's warning.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cwd_missing_examples: Vec<String>,
    /// With `--against-settings`: B's handlers, tallied as [`ExecAll::handlers`]
    /// are (no examples; B's decisions are in [`ExecAll::against`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub against_handlers: Vec<HandlerTally>,
}

impl ExecAll {
    fn merge(&mut self, o: ExecAll) {
        self.sessions += o.sessions;
        self.sessions_without_hooks += o.sessions_without_hooks;
        self.unreadable += o.unreadable;
        self.unreadable_files.extend(o.unreadable_files);
        for (k, n) in o.left_out {
            *self.left_out.entry(k).or_default() += n;
        }
        for f in o.settings_files {
            if !self.settings_files.contains(&f) {
                self.settings_files.push(f);
            }
        }
        self.events += o.events;
        self.runs += o.runs;
        self.deduplicated += o.deduplicated;
        self.handler_runs += o.handler_runs;
        self.cancelled |= o.cancelled;
        merge_tallies(&mut self.handlers, o.handlers);
        merge_tallies(&mut self.against_handlers, o.against_handlers);
        self.then_vs_now.merge(o.then_vs_now);
        self.cwd_missing += o.cwd_missing;
        for d in o.cwd_missing_examples {
            if self.cwd_missing_examples.len() < 3 && !self.cwd_missing_examples.contains(&d) {
                self.cwd_missing_examples.push(d);
            }
        }
        if let Some(c) = o.against {
            self.against.get_or_insert_with(Changes::default).merge(c);
        }
    }

    fn tally(&mut self, h: &Handler) -> &mut HandlerTally {
        tally_in(&mut self.handlers, h)
    }
}

/// Folds `more` into `into`, one tally per handler.
fn merge_tallies(into: &mut Vec<HandlerTally>, more: Vec<HandlerTally>) {
    for h in more {
        match into
            .iter_mut()
            .find(|x| x.handler == h.handler && x.event == h.event && x.command == h.command)
        {
            Some(x) => x.merge(h),
            None => into.push(h),
        }
    }
}

/// `h`'s tally in `handlers`, added when missing.
fn tally_in<'t>(handlers: &'t mut Vec<HandlerTally>, h: &Handler) -> &'t mut HandlerTally {
    {
        let handler = h.location();
        let command = h.summary();
        let pos = handlers
            .iter()
            .position(|x| x.handler == handler && x.event == h.event && x.command == command);
        let i = pos.unwrap_or_else(|| {
            handlers.push(HandlerTally {
                handler,
                command,
                event: h.event.clone(),
                posts_to: match h.runs() {
                    crate::hooks::settings::Runs::Http { url, .. } => url.map(str::to_string),
                    _ => None,
                },
                ..HandlerTally::default()
            });
            handlers.len() - 1
        });
        &mut handlers[i]
    }
}

/// Counts one run of a handler in its tally: how it ended, what Claude
/// Code does with it, its failure (and whether it fails open).
fn count_run(t: &mut HandlerTally, run: &HandlerRun) {
    *t.exits.entry(run.exit.clone()).or_default() += 1;
    *t.decisions
        .entry(effect_name(run.effect).to_string())
        .or_default() += 1;
    if run.write_refused {
        t.write_refused += 1;
    }
    if let Some((kind, blocked, _)) = &run.failure {
        *t.failures.entry((*kind).to_string()).or_default() += 1;
        if !blocked {
            t.fails_open += 1;
        }
    }
}

/// The protections every run has, and those it has not
/// (docs/security.md#running-hooks).
fn protections(isolated: bool, network: &Network, writes: &Writes) -> (Vec<String>, Vec<String>) {
    let mut on = vec![
        "each hook in its own process group, killed whole at its timeout or on Ctrl-C".to_string(),
        "environment allowlist (PATH, HOME, USER, LANG, TERM, TMPDIR, … and --env)".to_string(),
    ];
    if isolated {
        on.push("a fresh temporary HOME, project folder and working folder per event (--real-folders runs in the session's)".to_string());
    }
    let mut off = Vec::new();
    match writes {
        Writes::Confined if isolated => on.push(
            "writes confined: a hook (and what it starts) can write only in its event's temporary folder (HOME, TMPDIR, project) and /dev/null (Landlock)".to_string(),
        ),
        Writes::Confined | Writes::Allowed if !isolated => off.push(
            "write confinement: off in your real folders (--real-folders); a hook can write anywhere your user can".to_string(),
        ),
        Writes::Confined | Writes::Allowed => off.push(
            "write confinement: off (--write-anywhere); a hook can write anywhere your user can".to_string(),
        ),
        Writes::Unavailable(why) => off.push(format!(
            "write confinement: not available here ({why}); a hook can write anywhere your user can"
        )),
    }
    match network {
        Network::Isolated => on.push(
            "no network: each command hook runs in its own network namespace (loopback only; http handlers are POSTed by hookscope, by design)".to_string(),
        ),
        Network::Allowed => off.push(
            "network isolation: off (--network); a hook can reach the network".to_string(),
        ),
        Network::Unavailable(why) => off.push(format!(
            "network isolation: not available here ({why}); a hook can reach the network"
        )),
    }
    (on, off)
}

/// One handler run's part of a cached answer.
struct HandlerRun {
    label: String,
    exit: String,
    effect: Effect,
    failure: Option<(&'static str, bool, String)>,
    /// Its stderr said a permission was denied under write confinement.
    write_refused: bool,
}

/// What is kept of one event's run, shared by identical events.
struct RunSummary {
    handlers: Vec<HandlerRun>,
    not_run: Vec<(String, String)>,
    effect: Effect,
    updated_input: Option<Value>,
    /// What the model is told (the combined answer's).
    context: Option<String>,
}

impl RunSummary {
    fn of(report: &ExecReport) -> RunSummary {
        RunSummary {
            handlers: report
                .handlers
                .iter()
                .map(|h| HandlerRun {
                    label: h.label.clone(),
                    exit: exit_label(&h.status),
                    effect: h.reading.outcome.effect,
                    failure: failure_of(h).map(|f| (f.kind, f.blocked, f.how)),
                    write_refused: h
                        .notes
                        .iter()
                        .any(|n| n == crate::hooks::exec::sandbox::WRITE_REFUSED_NOTE),
                })
                .collect(),
            not_run: report
                .not_run
                .iter()
                .map(|n| (n.label.clone(), n.reason.clone()))
                .collect(),
            effect: report.combined.effect,
            updated_input: report.combined.updated_input.clone(),
            context: report.combined.model_sees.clone(),
        }
    }
}

/// Hooks loaded once per (dialect, project folder, version, B's).
type HooksCache = HashMap<(Dialect, Option<PathBuf>, String, bool), Arc<Hooks>>;

/// One event key's answer, computed by the first event with that key;
/// `None` when its plan failed.
type Answer = Arc<OnceLock<Option<Arc<RunSummary>>>>;

/// The shared state of one walk.
struct Shared<'a> {
    opts: &'a ExecAllOptions<'a>,
    mode: &'a Mode<'a>,
    /// Loaded hooks per (dialect, project folder, version).
    hooks: Mutex<HooksCache>,
    /// Answers per event key (module docs); `None` when its plan failed.
    answers: Mutex<HashMap<[u8; 32], Answer>>,
    /// Events run so far.
    runs: AtomicUsize,
    sessions_done: AtomicUsize,
    /// `hooks --lint` per handler location (`file:line (layer)`), for the
    /// configurations loaded so far.
    lints: Mutex<BTreeMap<String, Vec<String>>>,
}

/// Walks `sessions` (those of an agent with a hook dialect: Claude Code,
/// Codex, Droid; the others, OpenCode, are counted in
/// [`ExecAll::left_out`]) and, per `mode`, counts or runs every
/// handler each recorded event reaches. Never fails: an unreadable session
/// is counted and named, a plan that cannot be made (no temporary folder)
/// is a `not_run` reason.
pub fn exec_all(sessions: &[SessionRef], opts: &ExecAllOptions, mode: &Mode) -> ExecAll {
    use rayon::prelude::*;
    let (on, off) = protections(opts.isolated, &opts.network, &opts.writes);
    let mut total = ExecAll {
        ran: matches!(mode, Mode::Run { .. }),
        protections: on,
        not_in_force: off,
        ..ExecAll::default()
    };
    for s in sessions.iter().filter(|s| Dialect::of(s.agent).is_err()) {
        *total
            .left_out
            .entry(s.agent.as_str().to_string())
            .or_default() += 1;
    }
    let walked: Vec<&SessionRef> = sessions
        .iter()
        .filter(|s| Dialect::of(s.agent).is_ok())
        .collect();
    let shared = Shared {
        opts,
        mode,
        hooks: Mutex::new(HashMap::new()),
        answers: Mutex::new(HashMap::new()),
        runs: AtomicUsize::new(0),
        sessions_done: AtomicUsize::new(0),
        lints: Mutex::new(BTreeMap::new()),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.max(1))
        .build();
    let walk = |chunk: &[&SessionRef]| -> Vec<ExecAll> {
        chunk.par_iter().map(|r| session_part(r, &shared)).collect()
    };
    for chunk in walked.chunks(256) {
        let parts = match &pool {
            Ok(pool) => pool.install(|| walk(chunk)),
            Err(_) => chunk.iter().map(|r| session_part(r, &shared)).collect(),
        };
        for part in parts {
            total.merge(part);
        }
        if total.cancelled {
            break;
        }
    }
    if let Mode::Run { cancel, .. } = mode {
        total.cancelled |= cancel.load(Ordering::SeqCst);
    }
    if let Ok(lints) = shared.lints.lock() {
        for t in total
            .handlers
            .iter_mut()
            .chain(total.against_handlers.iter_mut())
        {
            if let Some(l) = lints.get(&t.handler) {
                t.lints.clone_from(l);
            }
        }
    }
    total
}

/// Lints `hooks`' configuration once (the cache key is the caller's) into
/// `shared.lints`, by handler location.
fn lint_once(hooks: &Hooks, shared: &Shared) {
    let config = hooks.config();
    let Ok(lints) = hooks.lint(&crate::hooks::lint::LintOptions::default()) else {
        return;
    };
    // A relative script: where it is looked for depends on the folder the
    // hook runs in, so `command-not-found` (resolved against the session's
    // folder) is left to `command-relative-path`; isolated, it is never
    // found, silenced or not.
    let relative: Vec<usize> = lints
        .iter()
        .filter(|l| l.id == "command-relative-path")
        .filter_map(|l| l.handler)
        .collect();
    let kept = crate::hooks::lint::silence::apply_allows(config, lints, &[]).kept;
    if let Ok(mut map) = shared.lints.lock() {
        for l in kept {
            if l.id == "command-not-found" && l.handler.is_some_and(|i| relative.contains(&i)) {
                continue;
            }
            let Some(h) = l.handler.and_then(|i| config.handlers.get(i)) else {
                continue;
            };
            let entry = map.entry(h.location()).or_default();
            let text = format!("lint {}: {}", l.id, l.message);
            if !entry.contains(&text) {
                entry.push(text);
            }
        }
        if shared.opts.isolated {
            for &i in &relative {
                if let Some(h) = config.handlers.get(i) {
                    let text = "isolated: it runs in an empty temporary project folder, where a relative script path is not found (exit 127); give an absolute path, or run with --real-folders (and --cwd-map)".to_string();
                    let entry = map.entry(h.location()).or_default();
                    if !entry.contains(&text) {
                        entry.push(text);
                    }
                }
            }
        }
    }
}

fn cancelled(mode: &Mode) -> bool {
    match mode {
        Mode::Plan => false,
        Mode::Run { cancel, .. } => cancel.load(Ordering::SeqCst),
    }
}

/// One session's part: load, its hooks, every reached event.
fn session_part(r: &SessionRef, shared: &Shared) -> ExecAll {
    use rayon::prelude::*;
    let mut part = ExecAll {
        sessions: 1,
        ..ExecAll::default()
    };
    if cancelled(shared.mode) {
        part.sessions = 0;
        part.cancelled = true;
        return part;
    }
    let done = || {
        let n = shared.sessions_done.fetch_add(1, Ordering::Relaxed) + 1;
        (shared.opts.progress)(n, shared.runs.load(Ordering::Relaxed));
    };
    let session = match crate::transcript::load(r) {
        Ok(s) => s,
        Err(e) => {
            part.unreadable = 1;
            part.unreadable_files
                .push(format!("{}: {e}", r.path.display()));
            done();
            return part;
        }
    };
    let Ok(dialect) = Dialect::of(session.agent) else {
        done();
        return part;
    };
    // The hooks of the session's project (or the given files), at the
    // version its first line records.
    let version = session
        .lines
        .contexts
        .iter()
        .find_map(|c| c.version.clone())
        .map_or_else(Version::latest, |v| Version::parse(&v));
    let load = |settings: &[PathBuf], b: bool| -> Option<Arc<Hooks>> {
        let sources = Sources::for_session(
            &session,
            shared.opts.cwd_map,
            settings.to_vec(),
            version.clone(),
        );
        // `--settings` names Claude Code's (and Droid's) files; Codex reads
        // its own.
        dialect.check_sources(&sources).ok()?;
        let label: Vec<String> = version.0.iter().map(u64::to_string).collect();
        let key = (dialect, sources.cwd.clone(), label.join("."), b);
        let cached = shared.hooks.lock().ok().and_then(|m| m.get(&key).cloned());
        Some(cached.unwrap_or_else(|| {
            let h = Arc::new(dialect.load(&sources));
            lint_once(&h, shared);
            if let Ok(mut m) = shared.hooks.lock() {
                m.insert(key, h.clone());
            }
            h
        }))
    };
    let (Some(hooks), Some(hooks_b)) = (
        load(shared.opts.settings, false),
        shared
            .opts
            .against
            .map_or(Some(None), |b| load(b, true).map(Some)),
    ) else {
        part.sessions = 0;
        part.left_out.insert(session.agent.as_str().to_string(), 1);
        done();
        return part;
    };
    part.settings_files = hooks.found_files();
    let mut events: Vec<EventName> = std::iter::once(&hooks)
        .chain(hooks_b.as_ref())
        .flat_map(|h| h.config().handlers.iter())
        .filter(|h| h.inactive.is_none())
        .filter_map(|h| h.event.known())
        .collect();
    events.sort();
    events.dedup();
    if events.is_empty() {
        part.sessions_without_hooks = 1;
        done();
        return part;
    }
    let mut payloads = dialect.payloads_of(&session, &events);
    // As the single replay does: recorded folders mapped to local ones in
    // each payload (`--cwd-map`), before it is run or compared.
    if !shared.opts.cwd_map.is_empty() {
        for p in &mut payloads {
            shared.opts.cwd_map.map_value(&mut p.json);
        }
    }
    let main_path = std::fs::canonicalize(&session.path).unwrap_or_else(|_| session.path.clone());
    let parts: Vec<ExecAll> = payloads
        .par_iter()
        .map(|p| {
            let ctx = RunContext {
                isolated: shared.opts.isolated,
                ..RunContext::for_replay(&session, p, shared.opts.cwd_map, shared.opts.env_args)
            };
            let a = Reached::of(&hooks, p, &ctx, shared);
            let mut part = event_part(&session, &hooks, &a, p, &ctx, &main_path, shared);
            if let Some(b) = &hooks_b
                && !part.cancelled
            {
                let (c, runs, tallies) =
                    compare_event(&session, (&hooks, &a), b, p, &ctx, &main_path, shared);
                part.handler_runs += runs;
                part.against = Some(c);
                merge_tallies(&mut part.against_handlers, tallies);
            }
            part
        })
        .collect();
    for p in parts {
        part.merge(p);
    }
    part.sessions = 1;
    done();
    part
}

/// What one version of the hooks does with event `p`: the reach
/// explanation, the handlers that fire with their labels, and (when any
/// fires) the answer cell identical events share. Made once per event and
/// version, for the run and the comparison alike.
struct Reached<'h> {
    verdicts: Vec<crate::hooks::settings::HandlerVerdict>,
    firing: Vec<(&'h Handler, String)>,
    cell: Option<Answer>,
}

impl<'h> Reached<'h> {
    fn of(hooks: &'h Hooks, p: &Payload, ctx: &RunContext, shared: &Shared) -> Reached<'h> {
        let verdicts = hooks.explain(p.event.as_str(), &p.json, &ctx.version);
        let config = hooks.config();
        let firing: Vec<(&Handler, String)> = verdicts
            .iter()
            .filter(|v| v.fires)
            .filter_map(|v| Some((config.handlers.get(v.index)?, config.label(v.index))))
            .collect();
        let cell = (!firing.is_empty()).then(|| {
            let handlers: Vec<&Handler> = firing.iter().map(|(h, _)| *h).collect();
            answer_cell(p, &handlers, shared)
        });
        Reached {
            verdicts,
            firing,
            cell,
        }
    }
}

/// One event: run (or count) what `reached` fires, tally, compare with the
/// transcript.
fn event_part(
    session: &Session,
    hooks: &Hooks,
    reached: &Reached,
    p: &Payload,
    ctx: &RunContext,
    main_path: &std::path::Path,
    shared: &Shared,
) -> ExecAll {
    let mut part = ExecAll::default();
    let event = p.event.as_str();
    let Some(cell) = &reached.cell else {
        return part;
    };
    let firing: Vec<&Handler> = reached.firing.iter().map(|(h, _)| *h).collect();
    if cancelled(shared.mode) {
        part.cancelled = true;
        return part;
    }
    part.events = 1;
    if let Some(cwd) = p.json.get("cwd").and_then(Value::as_str)
        && !std::path::Path::new(cwd).is_dir()
    {
        part.cwd_missing = 1;
        part.cwd_missing_examples.push(cwd.to_string());
    }
    let Mode::Run { runner, cancel } = shared.mode else {
        // A plan: count, run nothing.
        let first = cell.set(None).is_ok();
        if first {
            part.runs = 1;
            part.handler_runs = firing.len();
        } else {
            part.deduplicated = 1;
        }
        for h in &firing {
            part.tally(h).reached += 1;
        }
        return part;
    };
    let (answer, ran_here) = run_once(cell, hooks, &reached.verdicts, p, ctx, *runner, shared);
    if cancel.load(Ordering::SeqCst) {
        // Its hooks may have been killed mid-run: not an answer.
        part.events = 0;
        part.cancelled = true;
        return part;
    }
    if ran_here {
        part.runs = 1;
    } else {
        part.deduplicated = 1;
    }
    let Some(answer) = answer.clone() else {
        for h in &firing {
            let t = part.tally(h);
            t.reached += 1;
            *t.not_run
                .entry("the run could not be planned (no temporary folder)".into())
                .or_default() += 1;
        }
        return part;
    };
    // Then: what the transcript recorded for this firing.
    let compare = hooks.dialect.compares_with_transcript();
    let then = compare.then(|| {
        let activity = activity_at(session, p);
        let permission = recorded_permission(session, p);
        then_of(event, &activity, permission)
    });
    // An ask the call's record says was denied kept the call from running
    // then, as a block does.
    let then_blocked = then.as_ref().is_some_and(|t| is_block(t.seen) || t.denied);
    let with_then = |now: String| ExecExample {
        session: short_session_id(&session.id).to_string(),
        event: p.event.into(),
        at: at_of(main_path, p),
        summary: summary_of(p),
        then: then.as_ref().map_or_else(
            || "not recorded (this agent's transcripts keep no hook activity)".to_string(),
            |t| t.text.clone(),
        ),
        now,
        source: format!("{}:{}", p.source_path.display(), p.source_line),
    };
    for (h, label) in &reached.firing {
        let t = part.tally(h);
        t.reached += 1;
        if let Some((_, reason)) = answer.not_run.iter().find(|(l, _)| l == label) {
            *t.not_run.entry(reason.clone()).or_default() += 1;
            continue;
        }
        let Some(run) = answer.handlers.iter().find(|r| &r.label == label) else {
            continue;
        };
        if ran_here {
            t.ran += 1;
            part.handler_runs += 1;
        }
        let t = part.tally(h);
        count_run(t, run);
        if let Some((_, _, how)) = &run.failure {
            t.failed.push(|| with_then(how.clone()));
        }
        let own = Seen::of_effect(run.effect, event);
        if is_block(own) && !then_blocked && then.is_some() {
            t.new_blocks
                .push(|| with_then(own.label(event).to_string()));
        }
    }
    if let Some(then) = &then {
        let now = Seen::of_effect(answer.effect, event);
        let now_text = now.label(event).to_string();
        let tv = &mut part.then_vs_now;
        // The same ask then and now is the same, whatever came of it.
        let same_ask = then.seen == Seen::Asked && now == Seen::Asked;
        let (a, b) = (then_blocked && !same_ask, is_block(now));
        if a && b {
            tv.blocked_both += 1;
        } else if b {
            tv.new_blocks.push(|| with_then(now_text.clone()));
        } else if a {
            tv.lost_blocks.push(|| with_then(now_text.clone()));
        } else if then.seen == Seen::Rewrote || now == Seen::Rewrote {
            if then.seen != now {
                let rewrites = if now == Seen::Rewrote {
                    &mut tv.new_rewrites
                } else {
                    &mut tv.lost_rewrites
                };
                rewrites.push(|| with_then(now_text.clone()));
            } else if then.updated_input == answer.updated_input {
                tv.same += 1;
            } else {
                tv.rewrite_changed.push(|| with_then(now_text.clone()));
            }
        } else if then.seen == now {
            tv.same += 1;
        } else if now == Seen::AddedContext {
            tv.new_context.push(|| with_then(now_text.clone()));
        } else if then.seen == Seen::AddedContext {
            tv.lost_context.push(|| with_then(now_text.clone()));
        } else {
            tv.other_changes.push(|| with_then(now_text.clone()));
        }
    }
    part
}

/// A run's end in a few words, for counting: `exit 0`, `signal 9`,
/// `timed out`, `could not start`, `http 200`, `http error`.
fn exit_label(status: &RunStatus) -> String {
    match status {
        RunStatus::Exited { code } => format!("exit {code}"),
        RunStatus::Signaled { signal } => format!("signal {signal}"),
        RunStatus::TimedOut => "timed out".into(),
        RunStatus::LaunchFailed { .. } => "could not start".into(),
        RunStatus::Http { status } => format!("http {status}"),
        RunStatus::HttpFailed { .. } => "http error".into(),
    }
}

/// Runs `p` with the hooks `b` beside `a` (each once: `a`'s run, reached
/// as `a.1` says, is the one [`event_part`] made) and adds the pair of
/// decisions to a [`Changes`]; also the handler runs `b` took and its
/// handlers' tallies. In a plan, only counts `b`'s runs.
fn compare_event(
    session: &Session,
    a: (&Hooks, &Reached),
    b: &Hooks,
    p: &Payload,
    ctx: &RunContext,
    main_path: &std::path::Path,
    shared: &Shared,
) -> (Changes, usize, Vec<HandlerTally>) {
    let mut changes = Changes::default();
    let mut tallies: Vec<HandlerTally> = Vec::new();
    let event = p.event.as_str();
    let (hooks_a, ra) = a;
    let rb = Reached::of(b, p, ctx, shared);
    let (none_a, none_b) = (ra.cell.is_none(), rb.cell.is_none());
    if none_a && none_b {
        return (changes, 0, tallies);
    }
    for (h, _) in &rb.firing {
        tally_in(&mut tallies, h).reached += 1;
    }
    let Mode::Run { runner, cancel } = shared.mode else {
        let first = rb.cell.as_ref().is_some_and(|c| c.set(None).is_ok());
        return (changes, if first { rb.firing.len() } else { 0 }, tallies);
    };
    let decide = |hooks: &Hooks, r: &Reached| match &r.cell {
        None => (None, false),
        Some(cell) => run_once(cell, hooks, &r.verdicts, p, ctx, *runner, shared),
    };
    let (ans_a, _) = decide(hooks_a, ra);
    let (ans_b, ran_b) = decide(b, &rb);
    if cancel.load(Ordering::SeqCst) {
        return (changes, 0, Vec::new());
    }
    if let Some(summary) = &ans_b {
        for (h, label) in &rb.firing {
            let t = tally_in(&mut tallies, h);
            if let Some((_, reason)) = summary.not_run.iter().find(|(l, _)| l == label) {
                *t.not_run.entry(reason.clone()).or_default() += 1;
            } else if let Some(run) = summary.handlers.iter().find(|r| &r.label == label) {
                if ran_b {
                    t.ran += 1;
                }
                count_run(t, run);
            }
        }
    }
    let decision = |ans: &Option<Arc<RunSummary>>, none: bool| match ans {
        Some(s) => {
            let seen = Seen::of_effect(s.effect, event);
            Decision {
                blocks: is_block(seen),
                text: seen.label(event).to_string(),
                kind: effect_name(s.effect).to_string(),
                updated_input: s.updated_input.clone(),
                context: s.context.clone(),
            }
        }
        None => Decision {
            blocks: false,
            text: if none {
                "no handler reached".into()
            } else {
                "could not run (no temporary folder)".into()
            },
            kind: "nothing".into(),
            updated_input: None,
            context: None,
        },
    };
    changes.add(
        &decision(&ans_a, none_a),
        &decision(&ans_b, none_b),
        |ta, tb| Change {
            session: short_session_id(&session.id).to_string(),
            event: p.event.into(),
            at: at_of(main_path, p),
            summary: summary_of(p),
            source: format!("{}:{}", p.source_path.display(), p.source_line),
            a: ta.to_string(),
            b: tb.to_string(),
        },
    );
    (changes, if ran_b { rb.firing.len() } else { 0 }, tallies)
}

/// The answer cell of the event `p` reaching `firing`: keyed by the event,
/// its payload and the handlers (where each is written and what it is);
/// identical events share it (module docs).
fn answer_cell(p: &Payload, firing: &[&Handler], shared: &Shared) -> Answer {
    let mut hash = Sha256::new();
    hash.update(p.event.as_str().as_bytes());
    hash.update([0]);
    hash.update(
        serde_json::to_string(&p.json)
            .unwrap_or_default()
            .as_bytes(),
    );
    for h in firing {
        hash.update([0]);
        hash.update(h.location().as_bytes());
        hash.update([0]);
        hash.update(serde_json::to_string(&h.raw).unwrap_or_default().as_bytes());
    }
    let key: [u8; 32] = hash.finalize().into();
    match shared.answers.lock() {
        Ok(mut m) => m.entry(key).or_default().clone(),
        Err(_) => Arc::new(OnceLock::new()),
    }
}

/// The answer in `cell`, running `hooks` on `p` when no identical event
/// ran yet; and whether this call ran it.
fn run_once(
    cell: &Answer,
    hooks: &Hooks,
    verdicts: &[crate::hooks::settings::HandlerVerdict],
    p: &Payload,
    ctx: &RunContext,
    runner: &(dyn Runner + Sync),
    shared: &Shared,
) -> (Option<Arc<RunSummary>>, bool) {
    let mut ran_here = false;
    let answer = cell.get_or_init(|| {
        ran_here = true;
        let plan = hooks
            .plan(verdicts, p.event.as_str(), &p.json, ctx, shared.opts.lookup)
            .ok()?;
        let report = plan.run(runner);
        shared.runs.fetch_add(1, Ordering::Relaxed);
        Some(Arc::new(RunSummary::of(&report)))
    });
    (answer.clone(), ran_here)
}

/// Whether `seen` keeps the action from happening (or objects after it).
fn is_block(seen: Seen) -> bool {
    matches!(seen, Seen::Blocked | Seen::Stopped | Seen::Flagged)
}
