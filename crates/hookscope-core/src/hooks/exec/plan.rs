//! What `--exec` (CLI) and `x` (TUI replay pane) would run for one event,
//! built once and shown before anything runs (docs/security.md#running-hooks): every command
//! handler the event reaches as a [`RunSpec`] (argv, cwd and why, the
//! environment's names, timeout), the handlers listed but not run, and the
//! context [`execute`] needs. [`ExecPlan::run`] runs it.

use hookscope_hook::event::EventKey;
use std::path::PathBuf;

use serde_json::Value;

use super::permissions::RuleContext;
use super::{
    EnvContext, EnvSource, EnvVar, EnvWarning, ExecReport, NotRun, ProjectDir, RunSpec, Runner,
    Scratch, execute, hook_env, project_dir, working_dir,
};
use crate::hooks::contract::Version;
use crate::hooks::settings::{HandlerVerdict, HookConfig, Permissions};
use crate::transcript::Agent;

/// One event's runnable handlers and their context, ready for
/// [`ExecPlan::run`]. Nothing has run when it exists; its [`Scratch`]
/// folder (the cwd when the session's does not exist here, the
/// `CLAUDE_ENV_FILE`s) lives as long as the plan.
#[derive(Debug)]
pub struct ExecPlan {
    /// The event's name (`PreToolUse`).
    pub event: EventKey,
    /// The Claude Code version whose reading rules apply.
    pub version: Version,
    /// The hook's stdin JSON (unmasked: it is what the handlers get).
    pub payload: Value,
    /// The command and `http` handlers to run, labelled `#<n> file:line (layer)`.
    pub specs: Vec<RunSpec>,
    /// Handlers the event reaches that are not run (http, prompt, agent,
    /// mcp_tool, or a command that cannot be built), with the reason.
    pub not_run: Vec<NotRun>,
    /// Problems with the `--env` names asked for.
    pub env_warnings: Vec<EnvWarning>,
    /// A `CLAUDE_ENV_FILE` that could not be created, per handler.
    pub env_file_errors: Vec<String>,
    /// Set when `CLAUDE_PROJECT_DIR` is not the session's project (it does
    /// not exist here): what it is instead.
    pub project_note: Option<String>,
    /// The settings `permissions` rules (docs/contract.md#hooks-and-permissions).
    pub permissions: Permissions,
    /// Where the `permissions` rules' paths are resolved from.
    pub rule_ctx: RuleContext,
    /// The temporary folder, removed when the plan is dropped.
    pub scratch: Scratch,
    /// Whose hooks these are ([`HookConfig::agent`]): [`ExecPlan::run`]
    /// reads Codex handlers' answers with Codex's reducer.
    pub agent: Agent,
}

/// Where a planned run's handlers run (docs/replay-and-backtest.md#every-event-your-hooks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// As Claude Code ran them: the session's folder (its `cwd` as
    /// recorded, mapped; it may not exist here, [`project_dir`] and
    /// [`working_dir`] then say what is used instead), this process's
    /// `HOME`.
    Recorded(Option<PathBuf>),
    /// Isolated: `CLAUDE_PROJECT_DIR`, the working folder, `HOME` and
    /// `TMPDIR` are fresh folders inside the run's temporary folder, so a
    /// hook that writes relative to them writes there; each spec's
    /// [`super::RunSpec::write_root`] is that folder. `recorded` (the session's
    /// folder) is where permission rules' paths are still resolved from.
    Isolated {
        /// The session's folder as recorded, mapped.
        recorded: Option<PathBuf>,
    },
}

/// Builds the plan for the handlers `verdicts` says fire (from
/// [`crate::hooks::settings::explain`] over `config`), on `payload` (the
/// event's stdin JSON) as of `version`. `session_dir` is the session's
/// `cwd` as recorded (it may not exist here); `entrypoint` the transcript's
/// (`cli`, `sdk-cli`) for `CLAUDE_CODE_ENTRYPOINT`; `env_args` the `--env
/// NAME[=VALUE]` asked for; `lookup` reads this process's environment.
///
/// # Errors
/// The temporary folder cannot be created.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    config: &HookConfig,
    verdicts: &[HandlerVerdict],
    event: &str,
    payload: &Value,
    version: &Version,
    place: Place,
    entrypoint: Option<String>,
    env_args: &[String],
    lookup: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> std::io::Result<ExecPlan> {
    let scratch = Scratch::new()?;
    let label = |i: usize| config.label(i);
    let (project, cwd, cwd_note, home) = match place {
        Place::Recorded(session_dir) => {
            let project = project_dir(
                session_dir.as_deref(),
                config.project_dir.as_deref(),
                scratch.path(),
            );
            let (cwd, cwd_note) = working_dir(payload, &project, &scratch);
            (project, cwd, cwd_note, None)
        }
        Place::Isolated { recorded } => {
            let folder = scratch.path().join("project");
            let home = scratch.path().join("home");
            std::fs::create_dir_all(&folder)?;
            std::fs::create_dir_all(&home)?;
            std::fs::create_dir_all(scratch.path().join("tmp"))?;
            let note = format!(
                "isolated: running in a temporary project folder, {}",
                folder.display()
            );
            let project = ProjectDir {
                path: folder.clone(),
                recorded: recorded.filter(|d| !d.as_os_str().is_empty()),
                note: None,
            };
            (project, folder, Some(note), Some(home))
        }
    };
    let project_note = project.note.clone();
    let project_dir = Some(project.path.clone());
    let mut ctx = EnvContext::from_payload(payload);
    ctx.project_dir = project_dir.as_ref().map(|p| p.display().to_string());
    ctx.entrypoint = entrypoint;
    let mut specs = Vec::new();
    let mut not_run = Vec::new();
    let mut env_warnings = Vec::new();
    let mut env_file_errors = Vec::new();
    for v in verdicts.iter().filter(|v| v.fires) {
        let Some(h) = config.handlers.get(v.index) else {
            continue;
        };
        let mut hctx = ctx.clone();
        if hctx.wants_env_file() {
            let sid = hctx.session_id.clone().unwrap_or_default();
            match scratch.env_file(event, &sid, specs.len()) {
                Ok(f) => hctx.env_file = Some(f),
                Err(e) => env_file_errors.push(format!("cannot create a CLAUDE_ENV_FILE: {e}")),
            }
        }
        let (mut env, warnings) = hook_env(&hctx, env_args, lookup);
        if let Some(home) = &home {
            // Isolated: HOME and TMPDIR inside the event's temporary
            // folder, where a confined hook may write.
            env.retain(|v| v.name != "HOME" && v.name != "TMPDIR");
            env.push(EnvVar {
                name: "HOME".into(),
                value: home.clone().into_os_string(),
                source: EnvSource::Basic,
            });
            env.push(EnvVar {
                name: "TMPDIR".into(),
                value: scratch.path().join("tmp").into_os_string(),
                source: EnvSource::Basic,
            });
        }
        if env_warnings.is_empty() {
            env_warnings = warnings;
        }
        if config.agent == crate::transcript::Agent::Droid {
            crate::hooks::settings::droid::adapt_env(&mut env, hctx.project_dir.as_deref());
        }
        if let Some(root) = &h.origin.plugin_root {
            env.push(EnvVar {
                name: "CLAUDE_PLUGIN_ROOT".into(),
                value: root.clone().into_os_string(),
                source: EnvSource::Claude,
            });
        }
        match RunSpec::from_handler(
            h,
            label(v.index),
            cwd.clone(),
            cwd_note.clone(),
            env,
            lookup,
        ) {
            Ok(mut spec) => {
                spec.write_root = home.as_ref().map(|_| scratch.path().to_path_buf());
                specs.push(spec);
            }
            Err(reason) => not_run.push(NotRun {
                label: label(v.index),
                handler_type: h.kind.as_str().to_string(),
                reason,
            }),
        }
    }
    // Rules and "inside the working folder" are judged on the payload's
    // paths, so against the project they were recorded under (mapped).
    let rule_ctx = RuleContext {
        non_interactive: ctx.entrypoint.as_deref() == Some("sdk-cli"),
        cwd: payload
            .get("cwd")
            .and_then(Value::as_str)
            .map(str::to_string),
        project_dir: project
            .recorded
            .as_ref()
            .unwrap_or(&project.path)
            .to_str()
            .map(str::to_string),
        home: lookup("HOME").map(|h| h.to_string_lossy().into_owned()),
    };
    Ok(ExecPlan {
        event: event.into(),
        version: version.clone(),
        payload: payload.clone(),
        specs,
        not_run,
        env_warnings,
        env_file_errors,
        project_note,
        permissions: config.permissions.clone(),
        rule_ctx,
        scratch,
        agent: config.agent,
    })
}

impl ExecPlan {
    /// Runs every spec with `runner` and reads, merges and finalizes their
    /// answers ([`execute`]; for a Codex plan
    /// [`crate::hooks::codex::reduce::execute`]).
    pub fn run<R: Runner + ?Sized>(&self, runner: &R) -> ExecReport {
        if self.agent == Agent::Codex {
            // Never Claude Code's reducer on a Codex hook.
            return crate::hooks::codex::reduce::execute(
                runner,
                &self.event,
                &self.payload,
                &self.specs,
                self.not_run.clone(),
            );
        }
        execute(
            runner,
            &self.event,
            &self.version,
            &self.payload,
            &self.specs,
            self.not_run.clone(),
            &self.permissions,
            &self.rule_ctx,
        )
    }
}
