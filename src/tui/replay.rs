//! The replay pane (`r` on a call, turn or session; docs/replay-and-backtest.md#replay-and-backtest): which
//! hook events apply at that point (a picker), and for the picked one what
//! [`hookscope_core::hooks::replay::replay`] says: each rule with ✓/✗ and the
//! why, the combined decision, the hook output and the outcome, the rebuilt
//! payload (secrets masked as `[REDACTED_<TYPE>]`, as Detail shows them),
//! the fields left out with their reason, and the transcript's own record
//! of the hooks that ran there. No replay logic lives here: the pane calls
//! the core and draws its answer.
//!
//! From here `y` copies the payload, `Y` copies it as a rule-file test case
//! ([`test_case`]), `w` writes it to a file under a path typed in a prompt
//! line (pre-filled, editable; an existing file needs a second Enter).
//! Copies go through the app's one clipboard ([`super::context::Effect::Copy`]).
//!
//! "Your hooks" (docs/keys.md) lists the handlers of the picked event from the
//! settings that apply ([`Ctx::settings`], else the session's user and
//! project settings) with [`settings::explain`]'s verdicts; the transcript's
//! record starts with the parsed hook firings
//! ([`hookscope_core::hooks::replay::activity_at`]). `x` opens a confirmation
//! dialog with the [`ExecPlan`] (nothing runs before its Enter); Enter runs
//! it on a worker ([`super::worker::spawn_hooks`]) and the pane shows the
//! [`ExecReport`] beside what the transcript recorded.

use std::path::Path;
use std::sync::Arc;

use hookscope_core::hooks::contract::Version;
use hookscope_core::hooks::dialect::{Dialect, Hooks, RunContext, Sources, project_dir};
use hookscope_core::hooks::events::{At, EventName};
use hookscope_core::hooks::exec::{ExecPlan, ExecReport, effect_name};
use hookscope_core::hooks::reach::Reach;
use hookscope_core::hooks::replay::{Replay, replay_with};
use hookscope_core::hooks::rules::RuleSet;
use hookscope_core::hooks::settings::{self, HandlerVerdict};
use hookscope_core::redact::{Redactions, redactor};
use hookscope_core::service::HookRun;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Padding, Paragraph, Wrap};
use serde_json::{Map, Value};

use super::action::Action;
use super::component::{Command, Component, EventState, delta_of, inner_rows};
use super::context::{Ctx, Effect, Rules};
use super::widgets::text::fit;

/// Below this width the transcript's record is listed under the replay
/// instead of beside it.
const SIDE_BY_SIDE: u16 = 120;

/// The `w` prompt line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WritePrompt {
    /// The path typed (pre-filled `./<event>-<tool_use_id>.json`).
    pub path: String,
    /// Set after an Enter on an existing file: the next Enter overwrites.
    pub confirm: bool,
    /// The last problem (cannot write, exists, …).
    pub error: Option<String>,
}

/// The replay pane's state.
#[derive(Debug, Default)]
pub struct ReplayPane {
    /// Where in the session (`None` until opened).
    pub at: Option<At>,
    /// What it was opened on, in words (`call toolu_… Bash`, `turn 3`).
    pub label: String,
    /// The events that apply there, one entry per firing the picker tells
    /// apart ([`firings`]): an event fired twice in a turn (a Stop a hook
    /// blocked, then the Stop after it) is listed twice.
    pub events: Vec<EventName>,
    /// For each entry of `events`, the `At` that rebuilds that firing.
    pub ats: Vec<At>,
    /// For each entry, the line it is anchored at as the picker shows it
    /// (`line 44`, or `sub line 14` in a subagent's file), when known.
    pub places: Vec<Option<String>>,
    /// Index into `events` of the picked one.
    pub sel: usize,
    /// The picked event's replay, or why there is none.
    pub result: Option<Result<Replay, String>>,
    /// The picked event's payload, masked, and what was masked.
    pub masked: Option<(Value, Redactions)>,
    /// First visible line of the text.
    pub scroll: usize,
    /// The `w` prompt, while open.
    pub prompt: Option<WritePrompt>,
    /// The hook configuration that applies ([`Ctx::settings`], else the
    /// session's), loaded once per session file (its path is the key).
    pub hooks: Option<(std::path::PathBuf, Arc<Hooks>)>,
    /// The picked event's handlers with their verdicts
    /// ([`settings::explain`]).
    pub verdicts: Vec<HandlerVerdict>,
    /// The `x` confirmation dialog, while open: what would run. Nothing
    /// runs before its Enter.
    pub confirm: Option<Arc<ExecPlan>>,
    /// The last confirmed run of the picked event: its counter, what ran,
    /// and the report (`None` while the hooks run).
    pub run: Option<(u64, Arc<ExecPlan>, Option<ExecReport>)>,
    /// That report compared with what the transcript recorded for this
    /// firing ([`HookRun::compare`]: `then: PreToolUse hook blocked the
    /// call (exit 2); now: blocked the call — agrees`, or a loud `FAILED
    /// OPEN`); `None` before a report, or for a dialect whose transcripts
    /// record no hook activity (Codex).
    pub agreement: Option<hookscope_core::hooks::exec::Agreement>,
    /// Counts confirmed runs; a report whose counter is not the current
    /// one (the pick changed meanwhile) is dropped.
    pub generation: u64,
    /// Where it was last laid out.
    area: Rect,
}

/// The size of `n` bytes as the status bar says it (`812 B`, `1.2 KiB`).
pub fn size_text(n: usize) -> String {
    let b = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if b < f64::from(1u32 << 20) {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{:.1} MiB", b / f64::from(1u32 << 20))
    }
}

/// JSON → TOML for a test case's `input`: `null` has no TOML form, so
/// keys holding it are dropped and named in `dropped`.
fn to_toml(v: &Value, key: &str, dropped: &mut Vec<String>) -> Option<toml::Value> {
    Some(match v {
        Value::Null => {
            dropped.push(key.to_string());
            return None;
        }
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64()?),
        },
        Value::String(s) => toml::Value::String(s.clone()),
        Value::Array(a) => toml::Value::Array(
            a.iter()
                .enumerate()
                .filter_map(|(i, x)| to_toml(x, &format!("{key}[{i}]"), dropped))
                .collect(),
        ),
        Value::Object(m) => {
            let mut t = toml::map::Map::new();
            for (k, x) in m {
                if let Some(x) = to_toml(x, &format!("{key}.{k}"), dropped) {
                    t.insert(k.clone(), x);
                }
            }
            toml::Value::Table(t)
        }
    })
}

/// A TOML basic string for `s` (escapes as TOML requires).
fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The picked payload as a top-level `[[tests]]` case of the rule-file
/// format (`crates/hookscope-core/src/hooks/rules/cases.rs`): `event`, `tool` + `input` for a
/// tool event, `cwd`, `permission_mode`, `prompt`, `agent_id`,
/// `agent_type`, the `history` before the event, and `expect` = what the
/// loaded `rules` decide on exactly this case (as `hookscope test` will
/// evaluate it). Without rules there is no `expect` line (never a guessed
/// decision) and a comment says how to get one. `payload` is the masked
/// stdin JSON; `source` names where it came from.
pub fn test_case(
    payload: &Value,
    history: &hookscope_core::hooks::rules::History,
    rules: Option<&RuleSet>,
    source: &str,
) -> String {
    let get = |k: &str| payload.get(k).and_then(Value::as_str);
    let event = get("hook_event_name").unwrap_or("PreToolUse");
    let mut body = Vec::new();
    let mut dropped = Vec::new();
    body.push(format!("event = {}", toml_str(event)));
    if let Some(tool) = get("tool_name") {
        body.push(format!("tool = {}", toml_str(tool)));
        let input = payload
            .get("tool_input")
            .cloned()
            .unwrap_or(Value::Object(Map::new()));
        match to_toml(&input, "tool_input", &mut dropped) {
            Some(t @ toml::Value::Table(_)) => body.push(format!("input = {t}")),
            _ => body.push("input = {}".to_string()),
        }
    }
    for key in ["cwd", "permission_mode", "prompt", "agent_id", "agent_type"] {
        if let Some(v) = get(key) {
            body.push(format!("{key} = {}", toml_str(v)));
        }
    }
    let mut hist = Vec::new();
    if !history.touched_files.is_empty() {
        let list: Vec<String> = history.touched_files.iter().map(|s| toml_str(s)).collect();
        hist.push(format!("touched_files = [{}]", list.join(", ")));
    }
    if !history.ran_commands.is_empty() {
        let list: Vec<String> = history.ran_commands.iter().map(|s| toml_str(s)).collect();
        hist.push(format!("ran_commands = [{}]", list.join(", ")));
    }
    if let Some(p) = &history.turn_prompt {
        hist.push(format!("turn_prompt = {}", toml_str(p)));
    }
    if !hist.is_empty() {
        body.push(format!("history = {{ {} }}", hist.join(", ")));
    }
    let mut out = vec![
        format!("# {event} replayed by hookscope from {source}"),
        "[[tests]]".to_string(),
    ];
    let name = format!("{event} at {source}");
    out.push(format!("name = {}", toml_str(&name)));
    out.extend(body);
    if !dropped.is_empty() {
        out.insert(
            1,
            format!("# left out (null has no TOML form): {}", dropped.join(", ")),
        );
    }
    match rules.map(|r| decide(r, &out.join("\n"))) {
        Some(Ok(verdict)) => out.push(format!("expect = {}", toml_str(&verdict))),
        Some(Err(e)) => out.push(format!("# no expect: the case does not parse ({e})")),
        None => out.push(
            "# no expect: no rule set is loaded (run `hookscope --rules FILE`), so no decision is known"
                .to_string(),
        ),
    }
    out.join("\n") + "\n"
}

/// What `rules` decide on the case `text` (without its `expect` line), read
/// back as `hookscope test` reads it.
fn decide(rules: &RuleSet, text: &str) -> Result<String, String> {
    let parsed = RuleSet::parse(&format!("{text}\nexpect = \"none\"\n"), "<case>")
        .map_err(|e| e.to_string())?;
    let case = parsed.tests.first().ok_or("no case")?;
    Ok(rules
        .evaluate(&case.payload, &case.history)
        .verdict()
        .to_string())
}

impl ReplayPane {
    /// Opens the pane at `at` of the loaded session, on `label`, with the
    /// first applicable event picked (PreToolUse for a call: the contract's
    /// order).
    pub fn open(&mut self, at: At, label: String, ctx: &Ctx) {
        let list = ctx.session().map(|s| firings(s, &at)).unwrap_or_default();
        (self.events, self.ats) = list.into_iter().unzip();
        self.places = match ctx.session() {
            Some(s) => self.ats.iter().map(|a| place(s, a)).collect(),
            None => vec![None; self.ats.len()],
        };
        self.at = Some(at);
        self.label = label;
        self.sel = 0;
        self.prompt = None;
        self.recompute(ctx);
    }

    /// The picked event.
    pub fn picked(&self) -> Option<EventName> {
        self.events.get(self.sel).copied()
    }

    /// The picker's label of entry `i`: the event's name, with the line of
    /// the firing when the event is listed more than once (`Stop (line 75)`,
    /// `PreToolUse (line 44)` for a call's event: the call's line, `sub line
    /// 14` in a subagent's file).
    pub fn entry_label(&self, i: usize) -> String {
        let Some(e) = self.events.get(i) else {
            return String::new();
        };
        let twice = self.events.iter().filter(|x| *x == e).count() > 1;
        match self.places.get(i) {
            Some(Some(place)) if twice => format!("{e} ({place})"),
            _ => e.as_str().to_string(),
        }
    }

    /// The picker's width inside the pane's border at `inner` columns: its
    /// widest entry plus a blank column before the replay text, at least
    /// 20 columns and at most two fifths of the pane (31 at 80 columns:
    /// `PostToolBatch (sub line 150)` fits; a longer entry is cut with `…`).
    fn picker_width(&self, inner: u16) -> u16 {
        let widest = (0..self.events.len())
            .map(|i| self.entry_label(i).chars().count() + 2)
            .max()
            .unwrap_or(0);
        let want = u16::try_from(widest + 1).unwrap_or(u16::MAX);
        want.clamp(20, (inner * 2 / 5).max(20))
    }

    /// Replays the picked event. On the UI thread on purpose: it works on
    /// the session already in memory (one walk of its lines, no file read
    /// besides resolving `transcript_path`'s symlinks) and the rule set
    /// loaded at start; evaluating one event takes well under a frame.
    fn recompute(&mut self, ctx: &Ctx) {
        self.scroll = 0;
        // A run belongs to the event it ran on.
        self.run = None;
        self.agreement = None;
        self.confirm = None;
        self.generation += 1;
        self.result = None;
        self.masked = None;
        let (Some(session), Some(at), Some(event)) = (ctx.session(), &self.at, self.picked())
        else {
            return;
        };
        let at = self.ats.get(self.sel).unwrap_or(at);
        let rules = match &ctx.rules {
            Rules::Loaded(r) => Some(r.as_ref()),
            _ => None,
        };
        let result =
            replay_with(session, event, at, rules, &ctx.cwd_map).map_err(|e| e.to_string());
        self.verdicts.clear();
        if let Ok(r) = &result {
            let context = RunContext::for_replay(session, &r.payload, &ctx.cwd_map, &[]);
            let hooks = self.hook_config(session, &context.version, ctx);
            self.verdicts = HookRun::new(session, &r.payload, &hooks, context).verdicts;
            let mut counts = Redactions::default();
            let v = redactor().redact_value(&r.payload.json, &mut counts);
            self.masked = Some((v, counts));
        }
        self.result = Some(result);
    }

    /// The hook configuration for `session`: loaded on the first replay of
    /// a session and kept ([`ReplayPane::hooks`]). On the UI thread: a few
    /// small files, each read only when it is a regular file and capped
    /// ([`settings::load`]), so a FIFO or a huge file costs nothing.
    fn hook_config(
        &mut self,
        session: &hookscope_core::transcript::model::Session,
        version: &Version,
        ctx: &Ctx,
    ) -> Arc<Hooks> {
        if let Some((key, hooks)) = &self.hooks
            && *key == session.path
        {
            return hooks.clone();
        }
        // The session's agent decides whose files and dialect.
        let hooks = Arc::new(Dialect::for_agent(session.agent).load(&Sources {
            settings: ctx.settings.clone(),
            cwd: project_dir(session, &ctx.cwd_map),
            config_dir: ctx.settings_config_dir.clone(),
            managed: ctx.settings_managed.clone(),
            codex_home: ctx.codex_home.clone(),
            factory_dir: None,
            version: version.clone(),
        }));
        self.hooks = Some((session.path.clone(), hooks.clone()));
        hooks
    }

    /// The "Your hooks" lines: file-level drops first, then each handler
    /// of the picked event with ✓/✗, its `file:line (layer)`, what it runs
    /// and the reason (and hint) from [`settings::explain`]; when no
    /// settings file was found, where it looked and how to pass one.
    fn hooks_lines(&self, ctx: &Ctx) -> Vec<Line<'static>> {
        let theme = &ctx.theme;
        let mut out = Vec::new();
        let Some((_, hooks)) = &self.hooks else {
            return out;
        };
        let config = hooks.config();
        let found: Vec<&settings::SettingsFile> = config.files.iter().filter(|f| f.found).collect();
        if found.is_empty() {
            out.push(Line::from(Span::styled("Your hooks", theme.heading())));
            let looked: Vec<String> = config
                .files
                .iter()
                .map(|f| f.path.display().to_string())
                .collect();
            out.push(Line::from(Span::styled(
                format!(
                    "  no settings file found (looked for {}); {}",
                    if looked.is_empty() {
                        "none".to_string()
                    } else {
                        looked.join(", ")
                    },
                    hooks.dialect.where_hooks_are()
                ),
                theme.dim(),
            )));
            return out;
        }
        let names: Vec<String> = found.iter().map(|f| f.path.display().to_string()).collect();
        out.push(Line::from(Span::styled(
            format!("Your hooks ({})", names.join(", ")),
            theme.heading(),
        )));
        for f in &found {
            if let Some(why) = &f.dropped {
                out.push(Line::from(Span::styled(
                    format!(
                        "  ⚠ {}: {} skips this file: {why}",
                        f.path.display(),
                        hooks.dialect.skipper()
                    ),
                    theme.error(),
                )));
            }
        }
        if self.verdicts.is_empty() {
            let event = self.picked().map_or("this event", EventName::as_str);
            out.push(Line::from(Span::styled(
                format!("  no handler for {event} in these files"),
                theme.dim(),
            )));
        }
        for r in Reach::of(hooks, &self.verdicts) {
            out.push(Line::from(vec![
                Span::styled(format!("  {} {} ", r.mark(), r.label()), theme.tool()),
                Span::raw(r.summary.clone()),
            ]));
            out.push(Line::from(Span::styled(
                format!("      {}", r.reason),
                theme.dim(),
            )));
            if let Some(hint) = &r.hint {
                out.push(Line::from(Span::styled(
                    format!("      hint: {hint}"),
                    theme.dim(),
                )));
            }
        }
        out
    }

    /// `x`: builds what would run for the picked event (every command
    /// handler it reaches, [`hookscope_core::hooks::exec::plan`]) and opens the
    /// confirmation dialog; says why when there is nothing to run.
    fn ask_to_run(&mut self, ctx: &mut Ctx) {
        let (Some(Ok(r)), Some((_, hooks)), Some(session)) =
            (&self.result, &self.hooks, ctx.session())
        else {
            ctx.say("nothing to run: no payload here");
            return;
        };
        let context = RunContext::for_replay(session, &r.payload, &ctx.cwd_map, &[]);
        let plan =
            HookRun::new(session, &r.payload, hooks, context).plan(&|n| match &ctx.hook_env {
                Some(env) => env.get(n).cloned(),
                None => std::env::var_os(n),
            });
        match plan {
            Err(e) => ctx.say(format!(
                "cannot create a temporary folder for the hooks: {e}"
            )),
            Ok(p) if p.specs.is_empty() => ctx.say(format!(
                "nothing to run: no command handler of your {} hooks reaches {}{}",
                hooks.dialect.label(),
                r.payload.event,
                if p.not_run.is_empty() {
                    String::new()
                } else {
                    format!(" ({} listed but not run)", p.not_run.len())
                }
            )),
            Ok(p) => self.confirm = Some(Arc::new(p)),
        }
    }

    /// A report from the worker: kept when it answers the current run.
    pub fn hooks_ran(&mut self, generation: u64, report: ExecReport, ctx: &mut Ctx) {
        if let Some((g, _, slot)) = self.run.as_mut()
            && *g == generation
        {
            let n = report.handlers.len();
            ctx.say(format!(
                "ran {n} hook handler{} for {} (results in the pane)",
                if n == 1 { "" } else { "s" },
                report.event
            ));
            self.agreement = match (&self.result, ctx.session(), &self.hooks) {
                (Some(Ok(r)), Some(session), Some((_, hooks))) => {
                    let context = RunContext::for_replay(session, &r.payload, &ctx.cwd_map, &[]);
                    HookRun::new(session, &r.payload, hooks, context).compare(&report)
                }
                _ => None,
            };
            *slot = Some(report);
        }
    }

    /// The dialog's key handling: Enter runs, Esc or `n` cancels.
    fn confirm_event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        match action {
            Action::SearchConfirm => {
                if let Some(plan) = self.confirm.take() {
                    self.generation += 1;
                    self.run = Some((self.generation, plan.clone(), None));
                    self.agreement = None;
                    ctx.requests.push(super::context::Request::RunHooks {
                        generation: self.generation,
                        plan: super::context::PlanHandle(plan),
                    });
                    ctx.say("running hooks…");
                }
            }
            Action::SearchCancel | Action::SearchInput('n') => {
                self.confirm = None;
                ctx.say("cancelled: nothing ran");
            }
            Action::ForceQuit => return EventState::NotConsumed,
            _ => {}
        }
        EventState::Consumed
    }

    /// The dialog's text: per command handler its command, argv, cwd (and
    /// why), environment variable names and timeout; the handlers listed
    /// but not run; and that nothing runs before Enter.
    pub fn confirm_lines(plan: &ExecPlan, ctx: &Ctx) -> Vec<Line<'static>> {
        let theme = &ctx.theme;
        let mut out = vec![Line::from(Span::styled(
            "Nothing runs until you press Enter (Esc or n cancels).",
            theme.error(),
        ))];
        out.push(Line::from(Span::styled(
            format!(
                "{} command handler{} of your hooks would run on this {} payload:",
                plan.specs.len(),
                if plan.specs.len() == 1 { "" } else { "s" },
                plan.event
            ),
            theme.heading(),
        )));
        let quote = |argv: Vec<String>| -> String {
            argv.iter()
                .map(|a| hookscope_core::shell::shell_quote(a))
                .collect::<Vec<_>>()
                .join(" ")
        };
        for s in &plan.specs {
            out.push(Line::from(Span::styled(s.label.clone(), theme.tool())));
            if let Some(line) = s.http_plan_line() {
                out.push(Line::from(format!("  {line}")));
                out.push(Line::from(format!("  timeout: {}s", s.timeout_secs)));
                continue;
            }
            out.push(Line::from(format!("  runs: {}", quote(s.argv()))));
            out.push(Line::from(format!("  cwd: {}", s.cwd.display())));
            if let Some(n) = &s.cwd_note {
                out.push(Line::from(Span::styled(format!("    ({n})"), theme.dim())));
            }
            let names: Vec<&str> = s.env.iter().map(|v| v.name.as_str()).collect();
            out.push(Line::from(format!(
                "  env: {} (values not shown)",
                names.join(" ")
            )));
            out.push(Line::from(format!("  timeout: {}s", s.timeout_secs)));
        }
        for n in &plan.not_run {
            out.push(Line::from(Span::styled(
                format!("not run: {} ({}): {}", n.label, n.handler_type, n.reason),
                theme.dim(),
            )));
        }
        if let Some(n) = &plan.project_note {
            out.push(Line::from(Span::styled(format!("note: {n}"), theme.dim())));
        }
        // What was left out of the environment (a transcript value not of
        // its known form; docs/security.md "Running hooks") and env files
        // that could not be made: said before anything runs, as the CLI
        // says them on stderr.
        for w in &plan.env_warnings {
            out.push(Line::from(Span::styled(
                format!("left out of the environment: {w}"),
                theme.error(),
            )));
        }
        for e in &plan.env_file_errors {
            out.push(Line::from(Span::styled(
                format!("env file: {e}"),
                theme.error(),
            )));
        }
        out
    }

    /// The "Ran your hooks" lines: each handler's status, exit code,
    /// duration, stdout/stderr (masked), its reading; the merged and final
    /// outcome; and whether that agrees with what the transcript recorded.
    fn run_lines(&self, ctx: &Ctx) -> Vec<Line<'static>> {
        let theme = &ctx.theme;
        let mut out = Vec::new();
        let Some((_, _, report)) = &self.run else {
            return out;
        };
        let Some(report) = report else {
            out.push(Line::from(Span::styled("Ran your hooks", theme.heading())));
            out.push(Line::from(Span::styled("  running hooks…", theme.dim())));
            return out;
        };
        out.push(Line::from(Span::styled(
            "Ran your hooks (x)",
            theme.heading(),
        )));
        let mask = |t: &str| {
            let mut counts = Redactions::default();
            let t = redactor().redact(t.trim_end(), &mut counts).into_owned();
            let t = t.replace('\n', "⏎");
            fit(&t, 400)
        };
        for h in &report.handlers {
            out.push(Line::from(Span::styled(
                format!("  {}", h.label),
                theme.tool(),
            )));
            out.push(Line::from(format!(
                "    {} in {} ms",
                h.status.describe(),
                h.duration_ms
            )));
            for (name, body) in [("stdout", &h.stdout), ("stderr", &h.stderr)] {
                let shown = if body.is_empty() {
                    "(empty)".to_string()
                } else {
                    mask(body)
                };
                out.push(Line::from(format!("    {name}: {shown}")));
            }
            out.push(Line::from(format!(
                "    reading: {}",
                mask(&h.reading.outcome.summary())
            )));
        }
        for n in &report.not_run {
            out.push(Line::from(Span::styled(
                format!("  not run: {} ({}): {}", n.label, n.handler_type, n.reason),
                theme.dim(),
            )));
        }
        let mut merged = effect_name(report.combined.effect).replace('_', " ");
        if let Some(o) = &report.combined.updated_output {
            merged.push_str(&format!(
                " — the model sees this output instead: {}",
                mask(&hookscope_core::transcript::hook_activity::output_text(o))
            ));
        }
        out.push(Line::from(vec![
            Span::styled("  merged: ", theme.heading()),
            Span::raw(merged),
        ]));
        let verdict = report
            .final_outcome
            .verdict
            .as_ref()
            .and_then(|v| serde_json::to_value(v).ok())
            .and_then(|v| v.as_str().map(str::to_string));
        let now = verdict
            .unwrap_or_else(|| effect_name(report.final_outcome.effect).to_string())
            .replace('_', " ");
        out.push(Line::from(vec![
            Span::styled("  final: ", theme.heading()),
            Span::raw(format!(
                "{now} (decided by {})",
                report.final_outcome.decided_by
            )),
        ]));
        if let Some(a) = &self.agreement {
            let loud = matches!(
                a.verdict,
                hookscope_core::hooks::exec::Verdict::FailedOpen
                    | hookscope_core::hooks::exec::Verdict::FailedBlocked
            );
            out.push(Line::from(vec![
                Span::styled("  vs the transcript: ", theme.heading()),
                if loud {
                    Span::styled(a.text.clone(), theme.error())
                } else {
                    Span::raw(a.text.clone())
                },
            ]));
            if let Some(f) = &a.final_outcome {
                out.push(Line::from(vec![
                    Span::styled("  final vs the transcript: ", theme.heading()),
                    Span::raw(f.text.clone()),
                ]));
            }
        }
        out
    }

    /// Lays it out in `main` (the screen between banner and status bar).
    pub fn set_area(&mut self, main: Rect) {
        self.area = main;
    }

    /// The masked payload as pretty JSON (what the pane shows).
    pub fn payload_text(&self) -> Option<String> {
        let (v, _) = self.masked.as_ref()?;
        serde_json::to_string_pretty(v).ok().map(|s| s + "\n")
    }

    /// The masked payload as one line, as Claude Code sends it on a hook's
    /// stdin and as `hookscope payload` prints it (what `y` and `w` give).
    pub fn payload_line(&self) -> Option<String> {
        let (v, _) = self.masked.as_ref()?;
        serde_json::to_string(v).ok().map(|s| s + "\n")
    }

    /// Where the picked payload came from: `<session file> line N`.
    fn source(&self) -> String {
        match &self.result {
            Some(Ok(r)) => format!(
                "{} line {}",
                r.payload
                    .source_path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                r.payload.source_line
            ),
            _ => String::new(),
        }
    }

    /// The default path for `w`: `./<event>-<tool_use_id>.json` (or the
    /// source line when the event has no call).
    pub fn default_path(&self) -> String {
        let event = self.picked().map_or("payload", EventName::as_str);
        let id = self
            .masked
            .as_ref()
            .and_then(|(v, _)| v.get("tool_use_id").and_then(Value::as_str))
            .map(str::to_string)
            .or_else(|| match &self.result {
                Some(Ok(r)) => Some(format!("line{}", r.payload.source_line)),
                _ => None,
            })
            .unwrap_or_default();
        let id: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("./{event}-{id}.json")
    }

    fn copy(&self, ctx: &mut Ctx, as_test: bool) {
        let (Some(text), Some(Ok(r)), Some((v, counts))) =
            (self.payload_line(), &self.result, &self.masked)
        else {
            ctx.say("nothing to copy: no payload here");
            return;
        };
        let event = r.payload.event.as_str();
        let (text, what) = if as_test {
            let rules = match &ctx.rules {
                Rules::Loaded(r) => Some(r.as_ref()),
                _ => None,
            };
            let what = if rules.is_some() {
                format!("{event} test case")
            } else {
                format!("{event} test case (no expect: no rules loaded)")
            };
            (test_case(v, &r.history, rules, &self.source()), what)
        } else {
            (text, format!("{event} payload"))
        };
        let what = if counts.is_empty() {
            what
        } else {
            format!("{what}, secrets masked")
        };
        ctx.emit(Effect::Copy { text, what });
    }

    /// Enter in the prompt: writes the masked payload; a folder gets the
    /// default file name inside it (`<dir>/<event>-<tool_use_id>.json`); an
    /// existing file needs a second Enter; a special file is refused.
    fn write(&mut self, ctx: &mut Ctx) {
        let Some(text) = self.payload_line() else {
            self.prompt = None;
            ctx.say("nothing to write: no payload here");
            return;
        };
        let event = self.picked().map_or("payload", EventName::as_str);
        let default_name = self.default_path().trim_start_matches("./").to_string();
        let Some(prompt) = self.prompt.as_mut() else {
            return;
        };
        if prompt.path.trim().is_empty() {
            prompt.error = Some("type a path".into());
            return;
        }
        prompt.path = expand_home(prompt.path.trim(), dirs::home_dir().as_deref());
        // A folder (or a link to one): the default file name inside it; the
        // prompt then shows that path, so an existing file there asks first.
        if std::fs::metadata(prompt.path.trim()).is_ok_and(|m| m.is_dir()) {
            prompt.path = Path::new(prompt.path.trim())
                .join(&default_name)
                .to_string_lossy()
                .into_owned();
        }
        let path = Path::new(prompt.path.trim());
        match std::fs::symlink_metadata(path) {
            Ok(m) if !m.is_file() => {
                prompt.error = Some("not a regular file; type another path".into());
                return;
            }
            Ok(_) if !prompt.confirm => {
                prompt.confirm = true;
                prompt.error = Some("exists: Enter again to overwrite, Esc to cancel".into());
                return;
            }
            _ => {}
        }
        // A few KiB, written once on a key press: on the UI thread.
        match std::fs::write(path, text.as_bytes()) {
            Ok(()) => {
                ctx.say(format!(
                    "wrote {event} payload ({}) to {}",
                    size_text(text.len()),
                    path.display()
                ));
                self.prompt = None;
            }
            Err(e) => {
                prompt.confirm = false;
                prompt.error = Some(format!("cannot write: {e}"));
            }
        }
    }

    fn prompt_event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        let Some(prompt) = self.prompt.as_mut() else {
            return EventState::NotConsumed;
        };
        match action {
            Action::SearchInput(c) => prompt.path.push(c),
            Action::SearchBackspace => {
                prompt.path.pop();
            }
            Action::ClearLine => prompt.path.clear(),
            Action::SearchCancel => {
                self.prompt = None;
                ctx.say("write cancelled");
                return EventState::Consumed;
            }
            Action::SearchConfirm => {
                self.write(ctx);
                return EventState::Consumed;
            }
            Action::ForceQuit => return EventState::NotConsumed,
            _ => return EventState::Consumed,
        }
        prompt.confirm = false;
        prompt.error = None;
        EventState::Consumed
    }

    fn text_area(&self) -> Rect {
        let inner = Block::bordered().inner(self.area);
        let picker = self.picker_width(inner.width);
        let [_, rest] =
            Layout::horizontal([Constraint::Length(picker), Constraint::Min(0)]).areas(inner);
        rest
    }

    /// The replay's lines (rules, decision, outcome, output, payload, left
    /// out), and the transcript's record separately.
    pub fn lines(&self, ctx: &Ctx) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
        let theme = &ctx.theme;
        let mut out: Vec<Line<'static>> = Vec::new();
        let mut rec: Vec<Line<'static>> = Vec::new();
        let head = |t: &str| Line::from(Span::styled(t.to_string(), theme.heading()));
        let dim = |t: String| Line::from(Span::styled(t, theme.dim()));
        let no_rules = match &self.result {
            Some(Ok(r)) => !r.dialect.takes_rule_sets(),
            _ => false,
        };
        match &ctx.rules {
            // Rule sets decide on Claude Code's and Droid's payloads; a
            // Codex session's replay shows the payload Codex sends its own
            // hooks, which no rule set sees (`replay` the same).
            _ if no_rules => {
                out.push(head("Rules"));
                out.push(dim("rule sets are evaluated on Claude Code and Droid events only; this is the payload Codex sends its hooks (Your hooks below)".into()));
            }
            Rules::None => {
                out.push(head("Rules"));
                out.push(dim("no rule set loaded: start with `hookscope --rules FILE [PATH...]` (write one with `hookscope test --example > rules.toml`)".into()));
            }
            Rules::Failed { path, errors } => {
                out.push(head(&format!("Rules: {} was refused", path.display())));
                out.extend(errors.iter().map(|e| Line::from(format!("  {e}"))));
            }
            Rules::Loaded(set) => {
                // The set's warnings (as `hookscope replay` prints them on
                // stderr), above the replay.
                if !set.warnings().is_empty() {
                    out.push(Line::from(Span::styled(
                        format!("Rule set warnings ({})", set.warnings().len()),
                        theme.heading(),
                    )));
                    out.extend(
                        set.warnings()
                            .iter()
                            .map(|w| Line::from(Span::styled(format!("  ⚠ {w}"), theme.error()))),
                    );
                }
            }
        }
        let Some(result) = &self.result else {
            if self.events.is_empty() {
                out.push(dim(format!("no hook event applies at {}", self.label)));
            }
            return (out, rec);
        };
        let r = match result {
            Ok(r) => r,
            Err(e) => {
                out.push(Line::from(format!("cannot replay: {e}")));
                return (out, rec);
            }
        };
        if let (Some(e), Rules::Loaded(set)) = (&r.evaluation, &ctx.rules) {
            let file = set
                .path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            out.push(head(&format!("Rules ({file})")));
            for rule in &e.rules {
                let mark = if rule.matched { "✓" } else { "✗" };
                let verdict = rule
                    .result
                    .as_ref()
                    .map_or("", hookscope_core::hooks::rules::verdict);
                out.push(Line::from(vec![
                    Span::styled(format!("  {mark} {} ", rule.id), theme.tool()),
                    Span::raw(format!("{verdict} ")),
                    Span::styled(rule.why(), theme.dim()),
                ]));
            }
            out.push(Line::from(vec![
                Span::styled("Decision: ", theme.heading()),
                Span::raw(e.verdict().to_string()),
            ]));
            out.push(Line::from(vec![
                Span::styled("Outcome: ", theme.heading()),
                Span::raw(e.outcome.summary()),
            ]));
            if let Some(stdout) = &e.output.stdout {
                out.push(Line::from(vec![
                    Span::styled(
                        format!("Hook output (exit {}): ", e.output.exit_code),
                        theme.heading(),
                    ),
                    Span::raw(stdout.to_string()),
                ]));
            }
        }
        out.extend(self.hooks_lines(ctx));
        out.extend(self.run_lines(ctx));
        let masked = self
            .masked
            .as_ref()
            .filter(|(_, c)| !c.is_empty())
            .map(|(_, c)| {
                let parts: Vec<String> = c.iter().map(|(t, n)| format!("{n} × {t}")).collect();
                format!(" (masked: {})", parts.join(", "))
            })
            .unwrap_or_default();
        out.push(head(&format!(
            "Payload — {}{masked}",
            fit(&self.source(), 60)
        )));
        if let Some(text) = self.payload_text() {
            out.extend(text.lines().map(|l| Line::from(l.to_string())));
        }
        for left in &r.payload.left_out {
            out.push(Line::from(vec![
                Span::styled(format!("  ⚠ left out {}: ", left.field), theme.tool()),
                Span::styled(left.reason.clone(), theme.dim()),
            ]));
        }
        rec.push(head("Transcript recorded"));
        let activity = ctx
            .session()
            .map(|s| hookscope_core::hooks::replay::activity_at(s, &r.payload))
            .unwrap_or_default();
        let mask = |t: &str| {
            let mut counts = Redactions::default();
            redactor().redact(t, &mut counts).into_owned()
        };
        for h in &activity {
            rec.push(Line::from(Span::styled(
                format!(
                    "{} hook, line {}",
                    h.hook_name.as_deref().unwrap_or(h.event_name()),
                    h.line()
                ),
                theme.tool(),
            )));
            rec.push(Line::from(format!("  {}", mask(&h.what(200)))));
            let commands: Vec<&str> = h
                .handlers
                .iter()
                .filter_map(|x| x.command.as_deref())
                .collect();
            let commands = if commands.is_empty() {
                h.command.as_deref().into_iter().collect()
            } else {
                commands
            };
            for c in commands {
                rec.push(Line::from(format!("  handler: {}", mask(c))));
            }
            let mut facts = Vec::new();
            if let Some(c) = h.exit_code {
                facts.push(format!("exit {c}"));
            }
            if let Some(ms) = h.duration_ms {
                facts.push(format!("{ms} ms"));
            }
            if !facts.is_empty() {
                rec.push(Line::from(Span::styled(
                    format!("  {}", facts.join(" · ")),
                    theme.dim(),
                )));
            }
        }
        if !r.dialect.compares_with_transcript() {
            rec.push(dim(format!(
                "not read: {} records no hook activity",
                r.dialect.label()
            )));
        } else if r.recorded.is_empty() && activity.is_empty() {
            rec.push(dim(
                "no hook ran here, as far as the transcript shows".into()
            ));
        }
        for x in &r.recorded {
            rec.push(Line::from(Span::styled(
                format!("{} line {}", x.source, x.line),
                theme.tool(),
            )));
            let mut counts = Redactions::default();
            let text = redactor().redact(&x.text, &mut counts).into_owned();
            rec.extend(text.lines().map(|l| Line::from(format!("  {l}"))));
        }
        (out, rec)
    }

    fn max_scroll(&self, ctx: &Ctx) -> usize {
        let (mut main, rec) = self.lines(ctx);
        if self.area.width < SIDE_BY_SIDE {
            main.extend(rec);
        }
        main.len().saturating_sub(inner_rows(self.text_area()))
    }
}

/// The picker's entries at `at`, each with the `At` that rebuilds it (from
/// [`hookscope_core::hooks::events::firings_at`]): every firing is its own entry
/// (each call's PreToolUse, PermissionRequest, PostToolUse, … on a turn; two
/// Stops in one turn are two entries); for the whole session
/// ([`At::Last`]) every event folds into one entry, its last.
fn firings(session: &hookscope_core::transcript::model::Session, at: &At) -> Vec<(EventName, At)> {
    let mut out: Vec<(EventName, At)> = Vec::new();
    for (e, a) in Dialect::for_agent(session.agent).firings_at(session, at) {
        if *at == At::Last {
            if !out.iter().any(|(x, _)| *x == e) {
                out.push((e, At::Last));
            }
        } else {
            out.push((e, a));
        }
    }
    out
}

/// Where a firing is anchored, for its picker label: `line N` (main file;
/// for a call its `tool_use` line), `sub line N` (a subagent's file).
fn place(session: &hookscope_core::transcript::model::Session, at: &At) -> Option<String> {
    match at {
        At::Line(n) => Some(format!("line {n}")),
        At::AgentLine(_, n) => Some(format!("sub line {n}")),
        At::ToolUseId(id) => session
            .all_tool_calls()
            .find(|(_, r)| r.tool_use_id == *id)
            .map(|(thread, r)| match thread {
                None => format!("line {}", r.line),
                Some(_) => format!("sub line {}", r.line),
            }),
        _ => None,
    }
}

impl Component for ReplayPane {
    fn event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        if self.confirm.is_some() {
            return self.confirm_event(action, ctx);
        }
        if self.prompt.is_some() {
            return self.prompt_event(action, ctx);
        }
        match action {
            Action::Up | Action::Down => {
                let n = self.events.len();
                if n > 0 {
                    self.sel = match action {
                        Action::Up => self.sel.saturating_sub(1),
                        _ => (self.sel + 1).min(n - 1),
                    };
                    self.recompute(ctx);
                }
            }
            Action::CopyPayload => self.copy(ctx, false),
            Action::RunHooks => self.ask_to_run(ctx),
            Action::CopyTestCase => self.copy(ctx, true),
            Action::WritePayload => {
                if self.masked.is_some() {
                    self.prompt = Some(WritePrompt {
                        path: self.default_path(),
                        confirm: false,
                        error: None,
                    });
                } else {
                    ctx.say("nothing to write: no payload here");
                }
            }
            other => {
                let Some(delta) = delta_of(other, inner_rows(self.text_area())) else {
                    return EventState::NotConsumed;
                };
                self.scroll = self
                    .scroll
                    .saturating_add_signed(delta)
                    .min(self.max_scroll(ctx));
            }
        }
        EventState::Consumed
    }

    fn commands(&self, _ctx: &Ctx, out: &mut Vec<Command>, _force_all: bool) {
        out.push(Command::new(Action::Down, "event", "next applicable event"));
        out.push(Command::new(
            Action::Up,
            "event",
            "previous applicable event",
        ));
        out.push(Command::new(
            Action::PageDown,
            "scroll",
            "scroll the replay",
        ));
        out.push(Command::new(
            Action::CopyPayload,
            "copy",
            "copy the payload JSON (masked)",
        ));
        out.push(Command::new(
            Action::CopyTestCase,
            "test case",
            "copy it as a rule-file [[tests]] case",
        ));
        out.push(Command::new(
            Action::WritePayload,
            "write",
            "write the payload to a file (path prompt)",
        ));
        out.push(Command::new(
            Action::RunHooks,
            "run hooks",
            "run your hooks on this payload (asks first)",
        ));
        out.push(Command::new(
            Action::Backtest,
            "backtest",
            "run the rule set over every session: the would-be blocks",
        ));
        out.push(Command::new(Action::Back, "close", "close the replay pane"));
    }

    fn draw(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, _focused: bool) {
        let theme = &ctx.theme;
        let area = self.area;
        let title = format!(" Replay — {} — Esc/q close ", self.label);
        let block = Block::bordered()
            .title(Span::styled(
                fit(&title, usize::from(area.width.saturating_sub(2))),
                theme.heading(),
            ))
            .border_style(theme.border(true));
        let inner = block.inner(area);
        frame.render_widget(Clear, area);
        frame.render_widget(block, area);
        let [body, prompt_area] = Layout::vertical([
            Constraint::Min(0),
            Constraint::Length(u16::from(self.prompt.is_some()) * 2),
        ])
        .areas(inner);
        let [picker, text] = Layout::horizontal([
            Constraint::Length(self.picker_width(inner.width)),
            Constraint::Min(0),
        ])
        .areas(body);
        // The picker.
        let mut items = vec![Line::from(Span::styled("Events here", theme.heading()))];
        // A turn of many calls lists more firings than fit: keep the picked
        // one in view (the heading stays).
        let rows = usize::from(picker.height).saturating_sub(1).max(1);
        let first = (self.sel + 1).saturating_sub(rows);
        for i in first..self.events.len() {
            let width = usize::from(picker.width.saturating_sub(1));
            let line = fit(&format!(" {} ", self.entry_label(i)), width);
            items.push(if i == self.sel {
                Line::from(Span::styled(line, theme.selected(true)))
            } else {
                Line::from(line)
            });
        }
        if self.events.is_empty() {
            items.push(Line::from(Span::styled(" none", theme.dim())));
        }
        frame.render_widget(Paragraph::new(items), picker);
        // The replay, and the record beside it on a wide screen.
        let (mut main, rec) = self.lines(ctx);
        let text = if area.width >= SIDE_BY_SIDE {
            let [left, right] =
                Layout::horizontal([Constraint::Percentage(62), Constraint::Percentage(38)])
                    .areas(text);
            // The record wraps (its lines are long messages), one cell off
            // the replay's column.
            let rec: Vec<Line> = rec.into_iter().skip(self.scroll).collect();
            frame.render_widget(
                Paragraph::new(rec)
                    .block(Block::new().padding(Padding::left(2)))
                    .wrap(Wrap { trim: false }),
                right,
            );
            left
        } else {
            main.extend(rec);
            text
        };
        // Wrapped, so a rule's whole why can be read (scrolling moves by
        // logical lines).
        let main: Vec<Line> = main.into_iter().skip(self.scroll).collect();
        frame.render_widget(Paragraph::new(main).wrap(Wrap { trim: false }), text);
        if let Some(p) = &self.prompt {
            let lines = vec![
                Line::from(vec![
                    Span::styled("write to: ", theme.heading()),
                    Span::raw(format!("{}█", p.path)),
                ]),
                Line::from(Span::styled(
                    p.error
                        .clone()
                        .unwrap_or_else(|| "Enter write · Esc cancel · Ctrl-U clear".into()),
                    theme.dim(),
                )),
            ];
            frame.render_widget(Paragraph::new(lines), prompt_area);
        }
        if let Some(plan) = &self.confirm {
            let lines = Self::confirm_lines(plan, ctx);
            let w = area.width.saturating_sub(8).min(110);
            // Rows once wrapped (at word boundaries) inside the border.
            let rows = Paragraph::new(lines.clone())
                .wrap(Wrap { trim: false })
                .line_count(w.saturating_sub(2).max(1));
            let h = u16::try_from(rows + 2)
                .unwrap_or(u16::MAX)
                .min(area.height.saturating_sub(2));
            let x = area.x + (area.width.saturating_sub(w)) / 2;
            let y = area.y + (area.height.saturating_sub(h)) / 2;
            let dialog = Rect::new(x, y, w, h);
            frame.render_widget(Clear, dialog);
            frame.render_widget(
                Paragraph::new(lines).wrap(Wrap { trim: false }).block(
                    Block::bordered()
                        .title(Span::styled(" Run your hooks? ", theme.heading()))
                        .title_bottom(Span::styled(" Enter run · Esc/n cancel ", theme.heading()))
                        .border_style(theme.border(true)),
                ),
                dialog,
            );
        }
    }
}

/// `~` or `~/rest` as the home folder `home` (as a shell expands it in the
/// write prompt); any other path, or no home known, as typed.
pub fn expand_home(path: &str, home: Option<&Path>) -> String {
    match (path.strip_prefix('~'), home) {
        (Some(""), Some(h)) => h.to_string_lossy().into_owned(),
        (Some(rest), Some(h)) if rest.starts_with('/') => h
            .join(rest.trim_start_matches('/'))
            .to_string_lossy()
            .into_owned(),
        _ => path.to_string(),
    }
}
