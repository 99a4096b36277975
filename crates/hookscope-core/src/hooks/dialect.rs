//! The seam between hookscope and each agent's hook dialect: which files
//! hold the hooks, which events exist, how a matcher reads a payload, how a
//! payload is rebuilt from a transcript, how a run is planned and read.
//!
//! A shell (CLI, TUI, MCP) picks the dialect once from the session's agent
//! ([`Dialect::for_agent`]) or from `--agent` and then only calls methods:
//! it never branches on the agent for hooks. Each method dispatches to the
//! dialect's own module:
//!
//! | | Claude Code | Codex | Factory Droid |
//! |---|---|---|---|
//! | configuration | [`settings::load`] | [`settings::codex::load`] | [`settings::droid::load`] |
//! | which handlers fire | [`settings::explain`] | [`codex::explain`] (with trust) | [`settings::explain`] |
//! | payload from a transcript | [`events::payload`] | [`codex::payload::payload`] | [`events::payload`] (Droid's shape) |
//! | a run | [`exec::plan`] | [`codex::plan`] (Codex's environment; Codex's reducer) | [`exec::plan`] (Droid's environment) |
//! | rule sets | evaluated | not evaluated | evaluated |
//!
//! A fifth agent's hooks is one more variant and one arm in each method;
//! docs/architecture.md#adding-an-agents-hooks is the checklist.
//!
//! [`settings::load`]: crate::hooks::settings::load
//! [`settings::codex::load`]: crate::hooks::settings::codex::load
//! [`settings::droid::load`]: crate::hooks::settings::droid::load
//! [`settings::explain`]: crate::hooks::settings::explain
//! [`codex::explain`]: crate::hooks::codex::explain
//! [`codex::plan`]: crate::hooks::codex::plan
//! [`codex::payload::payload`]: crate::hooks::codex::payload::payload
//! [`events::payload`]: crate::hooks::events::payload
//! [`exec::plan`]: crate::hooks::exec::plan

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::hooks::codex;
use crate::hooks::contract::{self, Version};
use crate::hooks::events::{At, EventName, Payload, PayloadError};
use crate::hooks::exec::ExecPlan;
use crate::hooks::settings::codex::{CodexHooks, CodexLoadOptions, Trust};
use crate::hooks::settings::{self, HandlerVerdict, HookConfig, LoadOptions};
use crate::transcript::{Agent, Session};

/// An agent's hook dialect (module docs). Serialized as the agent's name
/// (`"claude-code"`, `"codex"`, `"droid"`), as [`Agent`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// Claude Code's settings files, matcher and answers (docs/your-hooks.md).
    ClaudeCode,
    /// Codex CLI: `$CODEX_HOME/hooks.json`, `config.toml` `[hooks]`, the
    /// project's `.codex/`; Codex's matcher, trust and reducer.
    Codex,
    /// Factory Droid: `~/.factory` and the project's `.factory/`, read in
    /// Claude Code's shape with Droid's events and environment.
    Droid,
}

/// Why an agent has no hook dialect hookscope reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{agent}'s hooks (plugins) are not read: they are JavaScript plugins called in-process, fed no JSON payload; hooks are read for claude-code, codex and droid"
)]
pub struct NoDialect {
    /// The agent's display name.
    pub agent: &'static str,
}

impl Dialect {
    /// Every dialect, in the order `--agent` lists them.
    pub const ALL: [Dialect; 3] = [Dialect::ClaudeCode, Dialect::Codex, Dialect::Droid];

    /// The dialect of `agent`'s hooks.
    ///
    /// # Errors
    /// [`NoDialect`] for OpenCode (its hooks are plugins, not commands fed
    /// JSON).
    pub fn of(agent: Agent) -> Result<Dialect, NoDialect> {
        match agent {
            Agent::ClaudeCode => Ok(Dialect::ClaudeCode),
            Agent::Codex => Ok(Dialect::Codex),
            Agent::Droid => Ok(Dialect::Droid),
            Agent::OpenCode => Err(NoDialect { agent: "OpenCode" }),
        }
    }

    /// The dialect a session of `agent` is replayed in: [`Dialect::of`],
    /// and Claude Code's for an agent without one (its payload is then
    /// refused by [`Dialect::payload`] with the reason).
    pub fn for_agent(agent: Agent) -> Dialect {
        Dialect::of(agent).unwrap_or(Dialect::ClaudeCode)
    }

    /// The agent whose dialect this is.
    pub fn agent(self) -> Agent {
        match self {
            Dialect::ClaudeCode => Agent::ClaudeCode,
            Dialect::Codex => Agent::Codex,
            Dialect::Droid => Agent::Droid,
        }
    }

    /// The agent's display name: `Claude Code`, `Codex`, `Droid`.
    pub fn label(self) -> &'static str {
        match self {
            Dialect::ClaudeCode => "Claude Code",
            Dialect::Codex => "Codex",
            Dialect::Droid => "Droid",
        }
    }

    /// Who skips a settings file that does not load ("SKIPPED by …"):
    /// Droid reads its files in Claude Code's shape and with its loader.
    pub fn skipper(self) -> &'static str {
        match self {
            Dialect::Codex => "Codex",
            Dialect::ClaudeCode | Dialect::Droid => "Claude Code",
        }
    }

    /// How a report names whose files and reading these are: empty for
    /// Claude Code (the default), `"; Codex dialect"`, `"; Droid dialect"`.
    pub fn report_tag(self) -> &'static str {
        match self {
            Dialect::ClaudeCode => "",
            Dialect::Codex => "; Codex dialect",
            Dialect::Droid => "; Droid dialect",
        }
    }

    /// What the configuration files are called in "no … found": `settings
    /// file` (Claude Code, Droid), `Codex hook file`.
    pub fn files_noun(self) -> &'static str {
        match self {
            Dialect::Codex => "Codex hook file",
            Dialect::ClaudeCode | Dialect::Droid => "settings file",
        }
    }

    /// Checks that `sources` names only what this dialect reads.
    ///
    /// # Errors
    /// The message a shell prints: Codex reads `$CODEX_HOME` and the
    /// project's `.codex/`, never settings files; the others have no Codex
    /// home.
    pub fn check_sources(self, sources: &Sources) -> Result<(), String> {
        match self {
            Dialect::Codex
                if !sources.settings.is_empty()
                    || sources.config_dir.is_some()
                    || sources.managed.is_some() =>
            {
                Err("--settings, --config-dir and --managed are Claude Code's and Droid's; Codex hooks are read from --codex-home ($CODEX_HOME, else ~/.codex) and the project's .codex/".into())
            }
            Dialect::ClaudeCode | Dialect::Droid if sources.codex_home.is_some() => {
                Err("--codex-home is Codex's (use it with --agent codex)".into())
            }
            _ => Ok(()),
        }
    }

    /// Whose matcher rules a verdict follows, for a heading: `Claude Code
    /// 2.1.332 rules` (Claude Code and Droid, whose matchers are Claude
    /// Code's; `version_label` as given or `latest`), `Codex CLI rules`.
    pub fn rules_label(self, version_label: &str) -> String {
        match self {
            Dialect::Codex => "Codex CLI rules".to_string(),
            Dialect::ClaudeCode | Dialect::Droid => format!("Claude Code {version_label} rules"),
        }
    }

    /// The heading of a configuration listing (`hooks` without `--match`).
    pub fn config_heading(self, version_label: &str) -> String {
        match self {
            Dialect::ClaudeCode | Dialect::Codex => {
                format!("Hook configuration ({})", self.rules_label(version_label))
            }
            Dialect::Droid => format!(
                "Droid hook configuration (read in Claude Code's shape; matchers by {})",
                self.rules_label(version_label)
            ),
        }
    }

    /// Whether a run is compared with what the transcript recorded (the
    /// hook-activity records and the permission outcome of
    /// docs/hooks-exec.md#agrees-differs-failed-open): Codex rollouts
    /// record no hook activity.
    pub fn compares_with_transcript(self) -> bool {
        self != Dialect::Codex
    }

    /// A run of this dialect's hooks on `payload` ([`ExecPlan::run`]'s
    /// report) compared with what `session` recorded for that firing: its
    /// hook activity and the call's recorded `permissionDecision`
    /// ([`crate::hooks::exec::agreement`],
    /// docs/hooks-exec.md#agrees-differs-failed-open). `None` when the
    /// dialect's transcripts record no hook activity
    /// ([`Dialect::compares_with_transcript`]: Codex), so a run is never
    /// said to differ from a record that cannot exist.
    pub fn vs_transcript(
        self,
        session: &Session,
        payload: &Payload,
        report: &crate::hooks::exec::ExecReport,
    ) -> Option<crate::hooks::exec::Agreement> {
        self.compares_with_transcript().then(|| {
            let activity = crate::hooks::replay::activity_at(session, payload);
            let permission = crate::hooks::replay::recorded_permission(session, payload);
            crate::hooks::exec::agreement(report, &activity, permission)
        })
    }

    /// Where this dialect's hooks are read from, for a "no file found"
    /// message.
    pub fn where_hooks_are(self) -> &'static str {
        match self {
            Dialect::ClaudeCode => "pass `hookscope --settings FILE` to use one",
            Dialect::Codex => {
                "Codex hooks are read from $CODEX_HOME (else ~/.codex) and the project's .codex/"
            }
            Dialect::Droid => {
                "Droid hooks are read from ~/.factory (hooks.json, settings.json) and the project's .factory/"
            }
        }
    }

    /// Checks that `event` is one of this dialect's events.
    ///
    /// # Errors
    /// The message a shell prints: the event is unknown (with the closest
    /// Claude Code event as a hint) or not this agent's, and the list of
    /// events.
    pub fn check_event(self, event: &str, version: &Version) -> Result<(), String> {
        match self {
            Dialect::Codex => {
                if settings::codex::EVENTS.contains(&event) {
                    return Ok(());
                }
                Err(format!(
                    "unknown Codex event {event:?}; events: {}",
                    settings::codex::EVENTS.join(", ")
                ))
            }
            Dialect::ClaudeCode | Dialect::Droid => {
                if self == Dialect::Droid && !settings::droid::DROID_EVENTS.contains(&event) {
                    return Err(format!(
                        "{event:?} is not a Droid hook event; events: {}",
                        settings::droid::DROID_EVENTS.join(", ")
                    ));
                }
                if contract::event(event, version).is_some() {
                    return Ok(());
                }
                let hint = settings::closest_event(event)
                    .map(|e| format!(" (did you mean {e}?)"))
                    .unwrap_or_default();
                Err(format!(
                    "unknown event {event:?}{hint}; events: {}",
                    contract::event_names().join(", ")
                ))
            }
        }
    }

    /// The payload field this dialect's matcher tests for `event` (None:
    /// the event takes no matcher, every handler of it is reached).
    pub fn matcher_field(self, event: &str, version: &Version) -> Option<&'static str> {
        match self {
            Dialect::Codex => codex::matcher::matcher_field(event),
            Dialect::ClaudeCode | Dialect::Droid => {
                contract::event(event, version).and_then(|e| e.matcher.as_deref())
            }
        }
    }

    /// The smallest payload of `event` whose matcher value is `value`
    /// (`hooks --match EVENT VALUE`), with `tool_input` for `if` rules.
    pub fn synthetic_payload(
        self,
        event: &str,
        value: &str,
        tool_input: Option<Value>,
        version: &Version,
    ) -> Value {
        match self {
            Dialect::Codex => {
                let mut payload = Map::new();
                payload.insert("hook_event_name".into(), json!(event));
                if let Some(field) = codex::matcher::matcher_field(event) {
                    payload.insert(field.into(), json!(value));
                }
                if let Some(v) = tool_input {
                    payload.insert("tool_input".into(), v);
                }
                Value::Object(payload)
            }
            Dialect::ClaudeCode | Dialect::Droid => {
                settings::synthetic_payload(event, value, tool_input, version)
            }
        }
    }

    /// Reads this dialect's hook configuration from `sources`. Never
    /// fails: each unreadable or invalid file is listed with its problems.
    pub fn load(self, sources: &Sources) -> Hooks {
        let loaded = match self {
            Dialect::Codex => Loaded::Codex(Box::new(settings::codex::load(&CodexLoadOptions {
                codex_home: sources.codex_home.clone(),
                cwd: sources.cwd.clone(),
            }))),
            Dialect::ClaudeCode => {
                Loaded::Settings(Box::new(settings::load(&sources.load_options())))
            }
            Dialect::Droid => Loaded::Settings(Box::new(settings::droid::load(
                &sources.load_options(),
                sources.factory_dir.clone(),
            ))),
        };
        Hooks {
            dialect: self,
            loaded,
        }
    }

    /// The hook stdin of `event` at `at` rebuilt from `session` in this
    /// dialect's shape (docs/payloads.md); a shortened `tool_use_id` that
    /// names one call is made whole first ([`At::expanded`]).
    ///
    /// # Errors
    /// As the dialect's builder refuses: nothing at `at`, an event not
    /// rebuilt, or a session whose agent has no payloads.
    pub fn payload(
        self,
        session: &Session,
        event: EventName,
        at: &At,
    ) -> Result<Payload, PayloadError> {
        let at = &at.expanded(session)?;
        match self {
            Dialect::Codex => codex::payload::payload(session, event, at),
            Dialect::ClaudeCode | Dialect::Droid => {
                crate::hooks::events::payload(session, event, at)
            }
        }
    }
}

impl Dialect {
    /// Every payload of `events` this dialect rebuilds from `session`, in
    /// session order per event kind as the builder walks it: Claude Code
    /// and Droid through [`crate::hooks::events::payloads_where`]; Codex
    /// turn by turn (each turn's UserPromptSubmit, its calls' PreToolUse
    /// and PostToolUse, then its Stop; [`Dialect::firings_at`]). A firing
    /// whose payload cannot be rebuilt is left out. Empty for a session of
    /// another agent's shape.
    pub fn payloads_of(self, session: &Session, events: &[EventName]) -> Vec<Payload> {
        match self {
            Dialect::ClaudeCode | Dialect::Droid => {
                crate::hooks::events::payloads_where(session, events, &|_, _| true)
            }
            Dialect::Codex => (1..=session.turns.len())
                .flat_map(|n| codex::payload::firings_at(session, &At::Turn(n)))
                .filter(|(e, _)| events.contains(e))
                .filter_map(|(e, at)| codex::payload::payload(session, e, &at).ok())
                .collect(),
        }
    }

    /// Every firing of an event at `at` whose payload [`Dialect::payload`]
    /// rebuilds, each with the `At` that rebuilds it, in order (the
    /// replay picker's entries).
    pub fn firings_at(self, session: &Session, at: &At) -> Vec<(EventName, At)> {
        match self {
            Dialect::Codex => codex::payload::firings_at(session, at),
            Dialect::ClaudeCode | Dialect::Droid => crate::hooks::events::firings_at(session, at),
        }
    }
}

/// [`Dialect::payload`] in the dialect of `session`'s agent.
///
/// # Errors
/// As [`Dialect::payload`].
pub fn payload(session: &Session, event: EventName, at: &At) -> Result<Payload, PayloadError> {
    Dialect::for_agent(session.agent).payload(session, event, at)
}

/// Where [`Dialect::load`] looks. Each field is used by the dialects it
/// names; the others ignore it.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// Claude Code, Droid: only these settings files (`--settings`).
    pub settings: Vec<PathBuf>,
    /// Every dialect: the project folder (a session's cwd) whose
    /// `.claude/`, `.codex/` or `.factory/` is read.
    pub cwd: Option<PathBuf>,
    /// Claude Code: the config dir (default `$CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`).
    pub config_dir: Option<PathBuf>,
    /// Droid: the `.factory` folder (default
    /// [`settings::droid::default_factory_dir`]).
    pub factory_dir: Option<PathBuf>,
    /// Claude Code: the managed settings file.
    pub managed: Option<PathBuf>,
    /// Codex: the Codex home (default `$CODEX_HOME`, else `~/.codex`).
    pub codex_home: Option<PathBuf>,
    /// Claude Code, Droid: the version whose rules apply.
    pub version: Version,
}

impl Sources {
    /// The sources of `session`'s hooks: the settings files given
    /// (`--settings`; empty reads every layer), the session's project folder
    /// (its recorded `cwd` through `map`, when that folder is here:
    /// [`project_dir`]) and the `version` whose rules apply; every home
    /// (config dir, managed file, Codex home, `.factory`) at its default.
    /// A shell that takes a home by hand sets that field after.
    pub fn for_session(
        session: &Session,
        map: &crate::hooks::cwd_map::CwdMap,
        settings: Vec<PathBuf>,
        version: Version,
    ) -> Sources {
        Sources {
            settings,
            cwd: project_dir(session, map),
            version,
            ..Sources::default()
        }
    }

    fn load_options(&self) -> LoadOptions {
        LoadOptions {
            settings: self.settings.clone(),
            cwd: self.cwd.clone(),
            config_dir: self.config_dir.clone(),
            managed: self.managed.clone(),
            version: self.version.clone(),
        }
    }
}

/// A loaded hook configuration and the dialect it follows.
#[derive(Clone, Debug)]
pub struct Hooks {
    /// Whose hooks these are.
    pub dialect: Dialect,
    loaded: Loaded,
}

#[derive(Clone, Debug)]
enum Loaded {
    Settings(Box<HookConfig>),
    Codex(Box<CodexHooks>),
}

/// What the shells need to plan a run beyond the configuration and the
/// verdicts ([`Hooks::plan`]).
#[derive(Clone, Debug, Default)]
pub struct RunContext {
    /// The version whose rules apply (Claude Code, Droid).
    pub version: Version,
    /// The session's folder (mapped by `--cwd-map`); the scratch folder is
    /// used when it is gone.
    pub session_dir: Option<PathBuf>,
    /// The recorded `entrypoint` (`CLAUDE_CODE_ENTRYPOINT`).
    pub entrypoint: Option<String>,
    /// `--env NAME[=VALUE]` requests.
    pub env_args: Vec<String>,
    /// Run in fresh temporary folders (project, working folder, `HOME`)
    /// instead of the session's ([`crate::hooks::exec::Place::Isolated`]);
    /// `false` from [`RunContext::for_replay`].
    pub isolated: bool,
}

impl RunContext {
    /// The context of a replayed event: the version its line records (else
    /// the latest), the session's folder mapped by `map` (kept even when it
    /// is gone here: the plan then says so and uses a scratch folder), the
    /// `entrypoint` recorded at the payload's line (else the session's
    /// first), and `env_args`.
    pub fn for_replay(
        session: &Session,
        payload: &Payload,
        map: &crate::hooks::cwd_map::CwdMap,
        env_args: &[String],
    ) -> RunContext {
        let version = payload
            .claude_version
            .as_deref()
            .map_or_else(Version::latest, Version::parse);
        let entrypoint = (payload.source_path == session.path)
            .then(|| session.lines.context_at(payload.source_line))
            .flatten()
            .and_then(|c| c.entrypoint.clone())
            .or_else(|| {
                session
                    .lines
                    .contexts
                    .iter()
                    .find_map(|c| c.entrypoint.clone())
            });
        RunContext {
            version,
            session_dir: session.cwd.as_deref().map(|d| map.map_path(Path::new(d))),
            entrypoint,
            env_args: env_args.to_vec(),
            isolated: false,
        }
    }
}

impl Hooks {
    /// The files and handlers, as every dialect lists them.
    pub fn config(&self) -> &HookConfig {
        match &self.loaded {
            Loaded::Settings(c) => c,
            Loaded::Codex(c) => &c.config,
        }
    }

    /// Codex's own part (trust, `codex_hooks` switch, project trust); None
    /// for the other dialects.
    pub fn codex(&self) -> Option<&CodexHooks> {
        match &self.loaded {
            Loaded::Codex(c) => Some(c),
            Loaded::Settings(_) => None,
        }
    }

    /// Each handler's trust (Codex; same index as the handlers), empty
    /// elsewhere.
    pub fn trust(&self) -> &[Option<Trust>] {
        self.codex().map_or(&[], |c| &c.trust)
    }

    /// Why no hook runs at all, when the configuration says so (Codex's
    /// `codex_hooks` feature off).
    pub fn hooks_off(&self) -> Option<&str> {
        self.codex().and_then(|c| c.hooks_off.as_deref())
    }

    /// The configuration as JSON, as `hooks --json` prints it: Codex's with
    /// its trust and switches, the others' [`HookConfig`].
    pub fn config_json(&self) -> Value {
        match &self.loaded {
            Loaded::Settings(c) => serde_json::to_value(&**c).unwrap_or(Value::Null),
            Loaded::Codex(c) => serde_json::to_value(c).unwrap_or(Value::Null),
        }
    }

    /// Each handler of `event` with its verdict on `payload`, in
    /// configuration order, by the dialect's matcher (docs/your-hooks.md).
    pub fn explain(&self, event: &str, payload: &Value, version: &Version) -> Vec<HandlerVerdict> {
        match &self.loaded {
            Loaded::Codex(c) => codex::explain(&c.config, &c.trust, event, payload),
            Loaded::Settings(c) => settings::explain(c, event, payload, version),
        }
    }

    /// The lints (docs/your-hooks.md) over this configuration.
    ///
    /// # Errors
    /// Codex: the lints check Claude Code's settings; Codex's file
    /// problems are listed with the configuration instead.
    pub fn lint(
        &self,
        options: &crate::hooks::lint::LintOptions,
    ) -> Result<Vec<crate::hooks::lint::Lint>, String> {
        match &self.loaded {
            Loaded::Codex(_) => Err("--lint checks Claude Code and Droid settings; `hooks --agent codex` lists each Codex file's problems".into()),
            Loaded::Settings(c) => Ok(crate::hooks::lint::lint_config(c, options)),
        }
    }

    /// The paths of the files that were found.
    pub fn found_files(&self) -> Vec<String> {
        self.config()
            .files
            .iter()
            .filter(|f| f.found)
            .map(|f| f.path.display().to_string())
            .collect()
    }

    /// One line per file-level problem, for stderr and the report: a file
    /// in `given` that is not there (with a hint), a file the agent skips
    /// and why, each other problem with its line; then why no hook runs
    /// (Codex's switch off). A dropped file's reason is said once.
    pub fn file_notes(&self, given: &[PathBuf]) -> Vec<String> {
        let mut notes = Vec::new();
        for f in &self.config().files {
            if !f.found {
                if given.contains(&f.path) {
                    notes.push(format!("{}: not found (check the path)", f.path.display()));
                }
                continue;
            }
            if let Some(why) = &f.dropped {
                notes.push(format!(
                    "{}: {} skips this file: {why}",
                    f.path.display(),
                    self.dialect.skipper()
                ));
            }
            for p in &f.problems {
                if f.dropped.as_deref() == Some(p.message.as_str()) {
                    continue;
                }
                let at = p.line.map_or(String::new(), |l| format!(":{l}"));
                notes.push(format!("{}{at}: {}", f.path.display(), p.message));
            }
        }
        if let Some(off) = self.hooks_off() {
            notes.push(off.to_string());
        }
        notes
    }

    /// The run of every handler `verdicts` reach, with the dialect's
    /// environment; [`ExecPlan::run`] reads the answers with the dialect's
    /// reducer. `lookup` reads the environment hookscope passes on.
    ///
    /// # Errors
    /// The temporary folder cannot be created.
    pub fn plan(
        &self,
        verdicts: &[HandlerVerdict],
        event: &str,
        payload: &Value,
        ctx: &RunContext,
        lookup: &dyn Fn(&str) -> Option<OsString>,
    ) -> std::io::Result<ExecPlan> {
        let place = if ctx.isolated {
            crate::hooks::exec::Place::Isolated {
                recorded: ctx.session_dir.clone(),
            }
        } else {
            crate::hooks::exec::Place::Recorded(ctx.session_dir.clone())
        };
        match &self.loaded {
            Loaded::Codex(c) => codex::plan(
                &c.config,
                verdicts,
                event,
                payload,
                place,
                &ctx.env_args,
                lookup,
            ),
            Loaded::Settings(c) => crate::hooks::exec::plan(
                c,
                verdicts,
                event,
                payload,
                &ctx.version,
                place,
                ctx.entrypoint.clone(),
                &ctx.env_args,
                lookup,
            ),
        }
    }
}

/// The folder of a session's recorded `cwd` mapped by `map`, when it is a
/// folder here (the project whose hook files are read).
pub fn project_dir(session: &Session, map: &crate::hooks::cwd_map::CwdMap) -> Option<PathBuf> {
    session
        .cwd
        .as_deref()
        .map(|d| map.map_path(Path::new(d)))
        .filter(|d| d.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_but_opencode_has_a_dialect() {
        assert_eq!(Dialect::of(Agent::Codex), Ok(Dialect::Codex));
        assert_eq!(Dialect::of(Agent::Droid), Ok(Dialect::Droid));
        assert_eq!(Dialect::of(Agent::ClaudeCode), Ok(Dialect::ClaudeCode));
        let e = Dialect::of(Agent::OpenCode).expect_err("plugins");
        assert!(
            e.to_string()
                .starts_with("OpenCode's hooks (plugins) are not read"),
            "{e}"
        );
        for d in Dialect::ALL {
            assert_eq!(Dialect::of(d.agent()), Ok(d));
        }
    }

    #[test]
    fn events_are_the_dialects_own() {
        let v = Version::latest();
        assert!(Dialect::Codex.check_event("PermissionRequest", &v).is_ok());
        let e = Dialect::Codex
            .check_event("Notification", &v)
            .expect_err("not codex");
        assert!(e.starts_with("unknown Codex event \"Notification\""), "{e}");
        let e = Dialect::Droid
            .check_event("PermissionRequest", &v)
            .expect_err("not droid");
        assert!(e.contains("is not a Droid hook event"), "{e}");
        let e = Dialect::ClaudeCode
            .check_event("PreToolUs", &v)
            .expect_err("typo");
        assert!(e.contains("(did you mean PreToolUse?)"), "{e}");
    }

    #[test]
    fn a_codex_synthetic_payload_carries_codex_matcher_field() {
        let v = Version::latest();
        let p = Dialect::Codex.synthetic_payload("SessionStart", "resume", None, &v);
        assert_eq!(
            p,
            json!({"hook_event_name": "SessionStart", "source": "resume"})
        );
    }

    /// A run is compared with the transcript in Claude Code's dialect (the
    /// c2 call a PreToolUse hook blocked with exit 2; a run of no handler
    /// differs from it) and never in Codex's, whose rollouts record no hook
    /// activity.
    #[test]
    fn only_dialects_that_record_hook_activity_compare_a_run() {
        let path = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/real-cc-2.1.332/hooks_c2_exit2/projects/-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl"
        ));
        let found = crate::transcript::discover(&[path]).expect("corpus");
        let session = crate::transcript::load(&found.sessions[0]).expect("load");
        let payload = Dialect::ClaudeCode
            .payload(
                &session,
                EventName::PreToolUse,
                &At::ToolUseId("toolu_01GFEgALJm405nI2WctBocud".into()),
            )
            .expect("payload");
        let report = crate::hooks::exec::execute(
            &crate::hooks::exec::ProcessRunner,
            "PreToolUse",
            &Version::latest(),
            &payload.json,
            &[],
            Vec::new(),
            &settings::Permissions::default(),
            &crate::hooks::exec::permissions::RuleContext::default(),
        );
        let agreement = Dialect::ClaudeCode
            .vs_transcript(&session, &payload, &report)
            .expect("compared");
        assert!(
            agreement
                .text
                .starts_with("then: PreToolUse hook blocked the call (exit 2); now:"),
            "{}",
            agreement.text
        );
        assert_eq!(
            Dialect::Codex.vs_transcript(&session, &payload, &report),
            None
        );
    }
}
