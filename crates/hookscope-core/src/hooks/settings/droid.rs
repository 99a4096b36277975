//! Factory Droid's hook configuration (docs/contract.md#factory-droid-hooks;
//! docs.factory.ai/harness/hooks "Configuration"), read into the same
//! [`HookConfig`] / [`super::Handler`] structures as Claude Code's, with
//! [`HookConfig::agent`] = [`Agent::Droid`].
//!
//! Files, per scope (each opened through [`crate::transcript::fsread`]:
//! regular files only, [`super::SETTINGS_CAP`] bytes at most; a bad file
//! is a [`super::SettingsFile`] with problems, never an error):
//!
//! * user ([`Layer::User`]): `<factory>/hooks.json`; when it is absent, the
//!   `hooks` key of `<factory>/settings.json` (Droid's fallback).
//!   `<factory>` is `$FACTORY_HOME_OVERRIDE/.factory` when that is set
//!   (it relocates the home folder), else `~/.factory`.
//! * project ([`Layer::Project`], under the session's cwd):
//!   `.factory/hooks.json`; when absent, the legacy `.factory/hooks/hooks.json`
//!   (Droid still loads it and migrates it on the next save); when both are
//!   absent, the `hooks` key of `.factory/settings.json`.
//! * or only the files given with `--settings` ([`Layer::Given`]).
//!
//! Org-managed hooks (Enterprise Controls) live in Factory's cloud and are
//! not read.
//!
//! The shape is Claude Code's (`{"hooks": {"<Event>": [{"matcher",
//! "hooks": [{"type": "command", "command", "timeout"}]}]}}`), so the files
//! are read by Claude Code's loader and matched by Claude Code's matcher
//! ([`crate::hooks::matcher`]) against Droid's own tool names (`Execute`,
//! `Create`, `Edit`, …): Droid documents matchers as "simple strings match
//! exactly, regex supported, `*` or empty matches all", which is what that
//! matcher does. Then, for Droid:
//!
//! * a handler on an event Droid does not have (its nine:
//!   [`DROID_EVENTS`]) never runs, and its file gets a `droid-unsupported`
//!   problem;
//! * a handler whose `type` is not `command` (Droid runs only those) never
//!   runs, same problem;
//! * the effective timeout is the written `timeout` (seconds), else
//!   [`DEFAULT_TIMEOUT`] (Droid's docs give no default; 60 s is Claude
//!   Code's older contract, which Droid follows).

use std::path::{Path, PathBuf};

use super::{HandlerType, HookConfig, Inactive, Layer, LoadOptions, Loader, problem};
use crate::transcript::Agent;

/// The hook events Droid fires (the Droid 0.225.2 binary; corpus README
/// "Hooks").
pub const DROID_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "Notification",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
];

/// Seconds a Droid hook runs when no `timeout` is written (see the module
/// docs).
pub const DEFAULT_TIMEOUT: f64 = 60.0;

/// The Factory folder when none is given: `$FACTORY_HOME_OVERRIDE/.factory`
/// when that variable is set and not empty, else `~/.factory`; `None` when
/// no home is known.
pub fn default_factory_dir() -> Option<PathBuf> {
    match std::env::var_os("FACTORY_HOME_OVERRIDE") {
        Some(home) if !home.is_empty() => Some(PathBuf::from(home).join(".factory")),
        _ => dirs::home_dir().map(|h| h.join(".factory")),
    }
}

/// Whether something is at `path` (a file, a folder, a FIFO, a dangling
/// link counts as absent).
fn present(path: &Path) -> bool {
    !matches!(std::fs::metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
}

/// Reads Droid's hook configuration (module docs): `options.settings`
/// (only those, when not empty) or the user files under `factory_dir`
/// (default [`default_factory_dir`]) and the project files under
/// `options.cwd`. `options.version` is the Claude Code version whose
/// matcher rules apply (the latest by default); `config_dir` and `managed`
/// are not used. Never fails.
pub fn load(options: &LoadOptions, factory_dir: Option<PathBuf>) -> HookConfig {
    let mut loader = Loader {
        version: options.version.clone(),
        files: Vec::new(),
        handlers: Vec::new(),
        docs: Vec::new(),
    };
    if !options.settings.is_empty() {
        for path in &options.settings {
            loader.settings_file(path, Layer::Given, None);
        }
    } else {
        if let Some(dir) = factory_dir.or_else(default_factory_dir) {
            first_present(
                &mut loader,
                &[dir.join("hooks.json"), dir.join("settings.json")],
                Layer::User,
            );
        }
        if let Some(cwd) = &options.cwd {
            let dot = cwd.join(".factory");
            first_present(
                &mut loader,
                &[
                    dot.join("hooks.json"),
                    dot.join("hooks").join("hooks.json"),
                    dot.join("settings.json"),
                ],
                Layer::Project,
            );
        }
    }
    let project_dir = options
        .cwd
        .clone()
        .map(|p| std::path::absolute(&p).unwrap_or(p));
    let mut config = loader.finish(project_dir);
    config.agent = Agent::Droid;
    adapt(&mut config);
    config
}

/// Reads the first of `paths` that is present; those before it are listed
/// as not present.
fn first_present(loader: &mut Loader, paths: &[PathBuf], layer: Layer) {
    for path in paths {
        if present(path) {
            loader.settings_file(path, layer, None);
            return;
        }
        loader
            .files
            .push(super::file_entry(path, &layer, false, Vec::new()));
    }
}

/// Droid's rules over a config read by Claude Code's loader (module docs).
fn adapt(config: &mut HookConfig) {
    for h in &mut config.handlers {
        let mut why = None;
        if !DROID_EVENTS.contains(&h.event.as_str()) {
            why = Some(format!(
                "\"{}\" is not a Droid hook event ({})",
                h.event,
                DROID_EVENTS.join(", ")
            ));
        } else if h.kind != HandlerType::Command {
            why = Some(format!(
                "Droid runs only \"command\" handlers, not {:?}",
                h.kind.as_str()
            ));
        }
        if let Some(why) = why {
            if !matches!(h.inactive, Some(Inactive::FileDropped(_))) {
                h.inactive = Some(Inactive::Invalid(why.clone()));
            }
            if let Some(f) = config.files.iter_mut().find(|f| f.path == h.origin.path)
                && !f.problems.iter().any(|p| p.message == why)
            {
                f.problems.push(problem(
                    "droid-unsupported",
                    Some(h.origin.line),
                    None,
                    why,
                    false,
                ));
            }
        }
        match h.timeout.filter(|t| *t > 0.0 && t.is_finite()) {
            Some(t) => {
                h.effective_timeout = t;
                h.timeout_source = "written".to_string();
            }
            None => {
                h.effective_timeout = DEFAULT_TIMEOUT;
                h.timeout_source =
                    "default (60 s assumed: Droid's docs give none; Claude Code's older contract)"
                        .to_string();
            }
        }
    }
    // A handler that now never runs is no one's first copy.
    let inactive: Vec<bool> = config
        .handlers
        .iter()
        .map(|h| h.inactive.is_some())
        .collect();
    for h in &mut config.handlers {
        if h.inactive.is_some() || h.duplicate_of.is_some_and(|i| inactive[i]) {
            h.duplicate_of = None;
        }
    }
}

/// Turns the Claude Code hook environment ([`crate::hooks::exec::hook_env`])
/// into Droid's, as the corpus captures show it (`runs/*/hooks/*.jsonl`,
/// field `env`): `FACTORY_PROJECT_DIR`, `DROID_PROJECT_DIR` and
/// `CLAUDE_PROJECT_DIR` all name the project (`project_dir`); Droid sets
/// no `CLAUDECODE`, `CLAUDE_CODE_SESSION_ID`, `CLAUDE_CODE_ENTRYPOINT` or
/// `CLAUDE_EFFORT`, so those are removed; `CLAUDE_ENV_FILE` (SessionStart)
/// and the basics stay.
pub fn adapt_env(vars: &mut Vec<crate::hooks::exec::EnvVar>, project_dir: Option<&str>) {
    use crate::hooks::exec::{EnvSource, EnvVar};
    vars.retain(|v| {
        !matches!(
            v.name.as_str(),
            "CLAUDECODE" | "CLAUDE_CODE_SESSION_ID" | "CLAUDE_CODE_ENTRYPOINT" | "CLAUDE_EFFORT"
        )
    });
    if let Some(dir) = project_dir {
        for name in ["FACTORY_PROJECT_DIR", "DROID_PROJECT_DIR"] {
            if !vars.iter().any(|v| v.name == name) {
                vars.insert(
                    0,
                    EnvVar {
                        name: name.to_string(),
                        value: dir.into(),
                        source: EnvSource::Claude,
                    },
                );
            }
        }
    }
}
