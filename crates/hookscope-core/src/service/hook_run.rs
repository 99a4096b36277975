//! Running the user's hooks on one recorded event, written once for the
//! CLI (`replay --exec`) and the TUI's replay pane (`x`): the event's
//! handlers explained ([`Hooks::explain`]: matcher, `if`, dedup), what
//! would run listed without running it ([`HookRun::preview`]), the run
//! planned ([`HookRun::plan`]: the dialect's environment, a temporary
//! folder) and, once the shell has run it (on its own thread, with its
//! own consent step), compared with what the transcript recorded
//! ([`HookRun::compare`]). The dialect is the one the [`Hooks`] were
//! loaded with (docs/architecture.md#hook-dialects); docs/hooks-exec.md is
//! the reference for what a run shows.

use std::ffi::OsString;

use serde::Serialize;

use crate::hooks::dialect::{Hooks, RunContext};
use crate::hooks::events::Payload;
use crate::hooks::exec::text::NotReached;
use crate::hooks::exec::{Agreement, ExecPlan, ExecReport, expand_header};
use crate::hooks::settings::{Handler, HandlerType, HandlerVerdict};
use crate::transcript::Session;

/// One recorded event's hooks: the handlers of `hooks` the rebuilt
/// `payload` reaches, in the context the event was recorded in.
pub struct HookRun<'a> {
    session: &'a Session,
    payload: &'a Payload,
    hooks: &'a Hooks,
    /// Per handler of the event, whether it fires and why
    /// ([`Hooks::explain`]), in the configuration's order.
    pub verdicts: Vec<HandlerVerdict>,
    /// The version whose rules apply, the session's folder (mapped), the
    /// recorded entrypoint and the `--env` requests
    /// ([`RunContext::for_replay`]).
    pub context: RunContext,
}

/// What `--exec` would run, without running it: the files read and, per
/// handler of the event, whether it would run. `--json`'s shape (with
/// `ran: false` and `message` beside it; docs/hooks-exec.md).
#[derive(Debug, Clone, Serialize)]
pub struct Preview {
    /// The settings files found (paths as given or discovered).
    pub settings_files: Vec<String>,
    /// The handlers the event reaches, in order.
    pub would_run: Vec<WouldRun>,
    /// The handlers it does not reach, with why.
    pub not_reached: Vec<NotReached>,
}

/// A handler the event reaches, as a preview lists it.
#[derive(Debug, Clone, Serialize)]
pub struct WouldRun {
    /// `#N file:line (layer)`.
    pub label: String,
    /// What it runs ([`Handler::summary`]).
    pub command: String,
    /// An http handler's URL (`None`: another type, or no `url`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// An http handler's header names (values are not shown: they may
    /// hold secrets once expanded).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<String>,
    /// An http handler's `$VAR`s outside `allowedEnvVars`: sent empty.
    /// `None` for other handler types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sent_empty: Option<Vec<String>>,
}

impl WouldRun {
    /// `  would run: LABEL: COMMAND`, or for an http handler
    /// `  would POST to URL (headers: …): LABEL (only with --exec)` and
    /// the variables left empty.
    pub fn line(&self) -> String {
        let Some(empty) = &self.sent_empty else {
            return format!("  would run: {}: {}", self.label, self.command);
        };
        let headers = if self.headers.is_empty() {
            String::new()
        } else {
            format!(" (headers: {})", self.headers.join(", "))
        };
        let empty = if empty.is_empty() {
            String::new()
        } else {
            format!(
                "; left empty, not in allowedEnvVars: ${}",
                empty.join(", $")
            )
        };
        format!(
            "  would POST to {}{headers}: {} (only with --exec){empty}",
            self.url.as_deref().unwrap_or("(no url)"),
            self.label
        )
    }
}

impl<'a> HookRun<'a> {
    /// The handlers of `hooks` that `payload` (rebuilt from `session`)
    /// reaches in `context` (usually [`RunContext::for_replay`] of the
    /// same session and payload; its `version` is the one the hooks were
    /// loaded for).
    pub fn new(
        session: &'a Session,
        payload: &'a Payload,
        hooks: &'a Hooks,
        context: RunContext,
    ) -> HookRun<'a> {
        let verdicts = hooks.explain(payload.event.as_str(), &payload.json, &context.version);
        HookRun {
            session,
            payload,
            hooks,
            verdicts,
            context,
        }
    }

    /// `#N file:line (layer)` of the handler at `index` of the
    /// configuration.
    fn label(&self, index: usize) -> String {
        self.hooks.config().label(index)
    }

    /// The handlers the event does not reach, with the reason and hint of
    /// [`Hooks::explain`].
    pub fn not_reached(&self) -> Vec<NotReached> {
        let handlers = &self.hooks.config().handlers;
        self.verdicts
            .iter()
            .filter(|v| !v.fires)
            .map(|v| NotReached {
                label: self.label(v.index),
                command: handlers
                    .get(v.index)
                    .map(Handler::summary)
                    .unwrap_or_default(),
                reason: v.reason.clone(),
                hint: v.hint.clone(),
            })
            .collect()
    }

    /// What would run, without running anything.
    pub fn preview(&self) -> Preview {
        let handlers = &self.hooks.config().handlers;
        let would_run = self
            .verdicts
            .iter()
            .filter(|v| v.fires)
            .filter_map(|v| {
                let h = handlers.get(v.index)?;
                let http = h.kind == HandlerType::Http;
                Some(WouldRun {
                    label: self.label(v.index),
                    command: h.summary(),
                    url: if http { h.url.clone() } else { None },
                    headers: if http {
                        h.headers.iter().flatten().map(|(k, _)| k.clone()).collect()
                    } else {
                        Vec::new()
                    },
                    sent_empty: http.then(|| sent_empty(h)),
                })
            })
            .collect();
        Preview {
            settings_files: self.hooks.found_files(),
            would_run,
            not_reached: self.not_reached(),
        }
    }

    /// The run of every handler the event reaches, with the dialect's
    /// environment; `lookup` reads the environment hookscope passes on.
    /// Nothing runs until [`ExecPlan::run`].
    ///
    /// # Errors
    /// The temporary folder cannot be created.
    pub fn plan(&self, lookup: &dyn Fn(&str) -> Option<OsString>) -> std::io::Result<ExecPlan> {
        self.hooks.plan(
            &self.verdicts,
            self.payload.event.as_str(),
            &self.payload.json,
            &self.context,
            lookup,
        )
    }

    /// A finished run compared with what the transcript recorded for this
    /// firing ([`crate::hooks::dialect::Dialect::vs_transcript`]); `None`
    /// when the dialect's transcripts record no hook activity (Codex).
    pub fn compare(&self, report: &ExecReport) -> Option<Agreement> {
        self.hooks
            .dialect
            .vs_transcript(self.session, self.payload, report)
    }
}

/// An http handler's `$VAR`s in its headers that `allowedEnvVars` does not
/// name: Claude Code sends them empty (docs/hooks-exec.md).
fn sent_empty(h: &Handler) -> Vec<String> {
    let allowed = h.allowed_env_vars.clone().unwrap_or_default();
    h.headers
        .iter()
        .flatten()
        .flat_map(|(_, value)| expand_header(value, &allowed, &|_| None).1)
        .collect()
}
