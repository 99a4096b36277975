//! Codex CLI's hook dialect (docs/contract.md#codex-hooks,
//! docs/your-hooks.md#codex-hooks): its matcher ([`matcher`]), how it
//! reads and merges handler answers ([`reduce`]), which handlers an event reaches ([`explain`]) and the hook
//! stdin rebuilt from a Codex rollout ([`payload`]). The configuration
//! itself is read by [`crate::hooks::settings::codex`].
//!
//! Nothing here uses Claude Code's matcher or reducer: a Codex handler is
//! always judged by Codex's rules (openai/codex `codex-rs/hooks/src/…`,
//! cited per item).

pub mod answer;
pub mod matcher;
pub mod payload;
pub mod reduce;

use serde_json::Value;

use crate::hooks::exec::{EnvSource, EnvVar, ExecPlan, ExecReport, Runner};
use crate::hooks::settings::codex::{Trust, TrustStatus};
use crate::hooks::settings::{HandlerVerdict, HookConfig};

/// Every handler of `event` in `config` (a Codex configuration) with its
/// verdict on `payload`, in configuration order, as Codex selects them
/// (`engine/dispatcher.rs` `select_handlers_for_matcher_inputs`): skipped
/// at load (untrusted, disabled, hooks off, invalid matcher, prompt/agent
/// type), then the matcher on the value and its aliases (each handler at
/// most once). Identical handlers are **not** deduplicated: both run.
/// `trust` (same index as `config.handlers`, may be empty) adds the "trust
/// not checked" note to handlers whose recorded hash differs from
/// hookscope's.
pub fn explain(
    config: &HookConfig,
    trust: &[Option<Trust>],
    event: &str,
    payload: &Value,
) -> Vec<HandlerVerdict> {
    let inputs = matcher::matcher_inputs(event, payload);
    let mut out: Vec<HandlerVerdict> = Vec::new();
    for (index, h) in config.handlers.iter().enumerate() {
        if h.event != event {
            continue;
        }
        let (mut v, decided) = HandlerVerdict::start(index, h.inactive.as_ref());
        if decided {
            out.push(v);
            continue;
        }
        let m = matcher::check(event, h.matcher.as_deref(), &inputs);
        v.hint = m.hint.clone();
        v.reason = m.reason.clone();
        v.fires = m.matches;
        v.matcher = Some(m);
        if v.fires {
            if let Some(Some(Trust {
                status: TrustStatus::NotChecked { recorded },
                hash,
                ..
            })) = trust.get(index)
            {
                v.reason.push_str(&format!(
                    "; trust not checked: config.toml records {recorded} but hookscope hashes this definition as {hash} (Codex 0.147's normalization): if you edited it since trusting it, Codex skips it"
                ));
            }
            if let Some(twin) = out
                .iter()
                .find(|o| o.fires && config.handlers.get(o.index).is_some_and(|t| t.raw == h.raw))
            {
                v.reason.push_str(&format!(
                    "; identical to #{}, and Codex runs both (no dedup)",
                    twin.index + 1
                ));
            }
        }
        out.push(v);
    }
    out
}

/// The `--exec` plan for Codex handlers: [`crate::hooks::exec::plan`]
/// (argv, cwd, env allowlist, timeout per handler; `place` says whether
/// in the session's folders or isolated ones) with the environment
/// made Codex's: no Claude Code variables (`CLAUDECODE`,
/// `CLAUDE_PROJECT_DIR`, `CLAUDE_CODE_*`, `CLAUDE_CONFIG_DIR`,
/// `CLAUDE_ENV_FILE`; a `--env` one stays), and for a
/// plugin's handler `PLUGIN_ROOT` beside `CLAUDE_PLUGIN_ROOT`, as Codex
/// sets both (`engine/discovery.rs` `append_plugin_hook_sources`). Codex
/// runs a command with `$SHELL -lc`; hookscope runs it with `sh -c`.
/// [`ExecPlan::run`] (or [`run_plan`]) then reads the answers with
/// Codex's reducer.
///
/// # Errors
/// The temporary folder cannot be created.
pub fn plan(
    config: &HookConfig,
    verdicts: &[HandlerVerdict],
    event: &str,
    payload: &Value,
    place: crate::hooks::exec::Place,
    env_args: &[String],
    lookup: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> std::io::Result<ExecPlan> {
    let mut plan = crate::hooks::exec::plan(
        config,
        verdicts,
        event,
        payload,
        &config.version,
        place,
        None,
        env_args,
        lookup,
    )?;
    plan.project_note = None;
    for spec in &mut plan.specs {
        let plugin_root = spec
            .env
            .iter()
            .find(|v| v.name == "CLAUDE_PLUGIN_ROOT")
            .map(|v| v.value.clone());
        spec.env.retain(|v| {
            v.source == EnvSource::Requested
                || (v.source != EnvSource::Claude && v.name != "CLAUDE_CONFIG_DIR")
        });
        if let Some(root) = plugin_root {
            for name in ["PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT"] {
                spec.env.push(EnvVar {
                    name: name.into(),
                    value: root.clone(),
                    source: EnvSource::Claude,
                });
            }
        }
    }
    Ok(plan)
}

/// Runs a [`plan`] and reads the answers with Codex's reducer
/// ([`reduce::execute`]; what [`ExecPlan::run`] does for a Codex plan).
pub fn run_plan<R: Runner + ?Sized>(plan: &ExecPlan, runner: &R) -> ExecReport {
    plan.run(runner)
}

#[cfg(test)]
mod tests;
