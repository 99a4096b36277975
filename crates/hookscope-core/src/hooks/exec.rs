//! Running a hook's real handlers on a rebuilt payload and reducing their
//! answers exactly as Claude Code does (docs/hooks-exec.md#agrees-differs-failed-open; docs/contract.md#handler-types-and-fields, docs/contract.md#exit-codes-and-stdout, docs/contract.md#json-output-fields, docs/contract.md#decision-control-per-event,
//! docs/contract.md#async-hooks, docs/contract.md#hooks-and-permissions; docs/contract.md#failing-closed-onfailure).
//!
//! * [`RunSpec`]: one `command` (or `http`, [`HandlerCommand::Http`]) handler ready to run: shell form (`sh -c`,
//!   or `bash -c` with `shell: "bash"`) or exec form (`command` + `args`, no
//!   shell), its cwd, its whole environment ([`hook_env`]: an allowlist),
//!   its effective timeout and `onFailure`. Independent of the settings
//!   module; [`RunSpec::from_handler`] builds one from a
//!   [`settings::Handler`].
//! * [`Runner`]: runs one spec; [`ProcessRunner`] is the real one (own
//!   process group, killed whole at the timeout, output capped); tests fake
//!   it. [`run_all`] runs every spec in parallel, as Claude Code does, and
//!   records the order they finished in.
//! * [`read_run`]: one handler's answer as Claude Code reads it
//!   ([`crate::hooks::result::interpret_output_at`], plus what only a real
//!   run has: launch failures, timeouts, `onFailure: "block"`, PreModelSwitch
//!   failing closed, a shell-profile line before the JSON, the 10,000-char
//!   cap).
//! * [`combine_runs`]: several handlers merged (`continue: false` first,
//!   then deny > defer > ask > allow, `updatedInput` of the last to finish,
//!   flagged when several set it).
//! * [`permissions::final_outcome`]: the merged hooks' answer through the
//!   settings `permissions` rules and the permission mode (docs/contract.md#hooks-and-permissions).
//! * [`execute`]: all of the above for one event, as an [`ExecReport`];
//!   [`Scratch`], [`project_dir`] and [`working_dir`] say where handlers
//!   run and what `CLAUDE_PROJECT_DIR` is, [`not_runnable`] which handler
//!   types are listed but not run.
//! * [`agreement`]: a run compared with what the transcript recorded for
//!   the same firing, effect by effect, a failed handler never agreeing,
//!   and the simulated `permissionDecision` against the recorded one
//!   (docs/hooks-exec.md "Agrees, differs, failed open").

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use serde_json::Value;

use crate::hooks::contract::{self, FailMode, Version};
use crate::hooks::result::{Effect, Outcome, PermissionDecision, interpret_output_at};
use crate::hooks::settings::{self, Runs};

mod compare;
mod env;
mod http;
pub mod permissions;
mod plan;
mod process;
pub mod reaper;
mod report;
pub mod sandbox;
pub mod text;

pub use compare::{
    Agreement, Failure, FinalCheck, Seen, Then, Verdict, agreement, failure_of, then_of,
};
pub use env::{
    BASIC_ENV, ENV_FILE_EVENTS, EnvContext, EnvSource, EnvVar, EnvWarning, hook_env, known_form,
};
pub use http::{HttpHeader, expand_header, post};
pub use plan::{ExecPlan, Place, plan};
pub use process::{
    MAX_TIMEOUT_SECS, OUTPUT_CAP, ProcessRunner, SandboxRunner, substitute, timeout_duration,
};
pub use report::{
    ENV_FILE_CAP, ExecReport, HandlerReport, NotRun, ProjectDir, Scratch, execute, not_runnable,
    project_dir, working_dir,
};
pub use sandbox::{Confinement, no_network_available, write_confinement_available};

/// Longest text Claude Code keeps of a hook's `additionalContext`,
/// `systemMessage` or stdout, in characters (docs/contract.md#exit-codes-and-stdout).
pub const TEXT_CAP_CHARS: usize = 10_000;

/// The shell a shell-form command runs in (`shell` field, docs/contract.md#handler-types-and-fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shell {
    /// `sh -c COMMAND` (the default).
    Sh,
    /// `bash -c COMMAND` (`shell: "bash"`).
    Bash,
    /// `pwsh -NoProfile -Command COMMAND` (`shell: "powershell"`); a
    /// launch failure where `pwsh` is not installed.
    PowerShell,
}

impl Shell {
    /// Parses a settings `shell` value (`bash`, `powershell`, `sh`);
    /// `None` for anything else.
    pub fn parse(s: &str) -> Option<Shell> {
        match s {
            "sh" => Some(Shell::Sh),
            "bash" => Some(Shell::Bash),
            "powershell" | "pwsh" => Some(Shell::PowerShell),
            _ => None,
        }
    }

    /// The program and the arguments before COMMAND.
    pub fn program(self) -> (&'static str, &'static [&'static str]) {
        match self {
            Shell::Sh => ("sh", &["-c"]),
            Shell::Bash => ("bash", &["-c"]),
            Shell::PowerShell => ("pwsh", &["-NoProfile", "-Command"]),
        }
    }
}

/// What a `command` handler executes (docs/contract.md#handler-types-and-fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum HandlerCommand {
    /// Shell form: `command` given to a shell.
    Shell {
        /// The command line as written in settings.
        command: String,
        /// The shell.
        shell: Shell,
    },
    /// Exec form (`args` present): `command` is the program, run without a
    /// shell; `${NAME}` in it and in `args` is replaced by the hook
    /// environment's value ([`substitute`]).
    Exec {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// An `http` handler (docs/contract.md#handler-types-and-fields): the payload is POSTed to `url`
    /// with `Content-Type: application/json` and `headers`.
    Http {
        /// The `url` as written (plain `http://`).
        url: String,
        /// The headers, values expanded ([`expand_header`]).
        headers: Vec<HttpHeader>,
    },
}

/// One handler ready to run. Built by whoever reads the settings; owns
/// everything the run needs, so runs are independent of each other.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSpec {
    /// Where it comes from, for the output (e.g.
    /// `.claude/settings.json:12 PreToolUse[0].hooks[1]`).
    pub label: String,
    /// What to execute.
    pub command: HandlerCommand,
    /// The working folder (the payload's `cwd` when it exists, else a
    /// temporary folder; [`RunSpec::cwd_note`] says which).
    pub cwd: PathBuf,
    /// Why `cwd` is not the session's, when it is not.
    pub cwd_note: Option<String>,
    /// The whole environment of the process: nothing else is inherited.
    pub env: Vec<EnvVar>,
    /// Effective timeout in seconds (`settings::Handler::effective_timeout`).
    pub timeout_secs: f64,
    /// The folder its writes are confined to under a
    /// [`SandboxRunner`] that confines writes: the event's temporary folder
    /// when it runs isolated ([`Place::Isolated`]); `None` in the session's
    /// real folders (never confined).
    pub write_root: Option<PathBuf>,
    /// `onFailure: "block"` as written (honoured from 2.1.295 only; see
    /// [`read_run`]).
    pub on_failure_block: bool,
    /// `async: true`: it runs, but its decision has no effect; only its
    /// context and messages arrive, on the next turn (docs/contract.md#async-hooks).
    pub is_async: bool,
}

impl RunSpec {
    /// The argv executed: `["sh", "-c", COMMAND]`, `["bash", "-c", …]`, or
    /// the exec form's program and args with `${NAME}` substituted.
    pub fn argv(&self) -> Vec<String> {
        match &self.command {
            HandlerCommand::Shell { command, shell } => {
                let (prog, flags) = shell.program();
                let mut v = vec![prog.to_string()];
                v.extend(flags.iter().map(|f| f.to_string()));
                v.push(command.clone());
                v
            }
            HandlerCommand::Exec { program, args } => {
                let env = self.env_pairs();
                let mut v = vec![substitute(program, &env)];
                v.extend(args.iter().map(|a| substitute(a, &env)));
                v
            }
            HandlerCommand::Http { url, .. } => vec!["POST".to_string(), url.clone()],
        }
    }

    /// The spec of a configured `command` handler `h` (shell form, or exec
    /// form when it has `args`; `shell: "bash"`/`"powershell"`), or of an
    /// `http` handler (its `url`, its `headers` expanded by
    /// [`expand_header`] with `lookup` for the names in `allowedEnvVars`),
    /// with its effective timeout, `onFailure: "block"` and `async`, run in
    /// `cwd` with exactly `env` (command handlers).
    ///
    /// # Errors
    /// Why it cannot run, as the `NotRun` reason: a handler that is neither
    /// `command` nor `http` ([`not_runnable`]), one without a `command`, an
    /// unknown `shell`, an `http` handler without a `url` or with an
    /// `https://` one (no TLS stack is built in).
    pub fn from_handler(
        h: &settings::Handler,
        label: String,
        cwd: PathBuf,
        cwd_note: Option<String>,
        env: Vec<EnvVar>,
        lookup: &dyn Fn(&str) -> Option<OsString>,
    ) -> Result<RunSpec, String> {
        let on_failure_block = h.on_failure.as_deref() == Some("block");
        let (command, args, shell, is_async) = match h.runs() {
            Runs::Http {
                url,
                headers,
                allowed_env_vars,
            } => {
                let spec = Self::http(url, headers, allowed_env_vars, lookup)?;
                return Ok(RunSpec {
                    label,
                    command: spec,
                    cwd,
                    cwd_note,
                    env: Vec::new(),
                    timeout_secs: h.effective_timeout,
                    write_root: None,
                    on_failure_block,
                    is_async: h.is_async == Some(true),
                });
            }
            Runs::Command {
                command,
                args,
                shell,
                is_async,
            } => (command, args, shell, is_async),
            _ => {
                return Err(not_runnable(h.kind.as_str())
                    .unwrap_or_else(|| "not a command handler".to_string()));
            }
        };
        let Some(command) = command.filter(|c| !c.trim().is_empty()) else {
            return Err("not run: the command handler has no command".into());
        };
        let command = match args {
            Some(args) => HandlerCommand::Exec {
                program: command.to_string(),
                args: args.to_vec(),
            },
            None => {
                let shell = match shell {
                    None => Shell::Sh,
                    Some(s) => Shell::parse(s).ok_or_else(|| {
                        format!("not run: unknown shell {s:?} (bash or powershell)")
                    })?,
                };
                HandlerCommand::Shell {
                    command: command.to_string(),
                    shell,
                }
            }
        };
        Ok(RunSpec {
            label,
            command,
            cwd,
            cwd_note,
            env,
            timeout_secs: h.effective_timeout,
            write_root: None,
            on_failure_block,
            is_async,
        })
    }

    /// An http handler's POST: its `url` (plain `http://` only) and
    /// `headers` with `$VAR`s expanded from `lookup` when listed in
    /// `allowed` (else left empty and named in `not_expanded`).
    fn http(
        url: Option<&str>,
        headers: Option<&BTreeMap<String, String>>,
        allowed: &[String],
        lookup: &dyn Fn(&str) -> Option<OsString>,
    ) -> Result<HandlerCommand, String> {
        let Some(url) = url.map(str::to_string).filter(|u| !u.trim().is_empty()) else {
            return Err("not run: the http handler has no url".into());
        };
        let lower = url.trim().to_ascii_lowercase();
        if lower.starts_with("https://") {
            return Err("not run: https not built in (hookscope POSTs plain http:// only; see docs/replay-and-backtest.md, --exec)".into());
        }
        if !lower.starts_with("http://") {
            return Err(format!("not run: the url {url:?} is not http://"));
        }
        let get = |n: &str| lookup(n).map(|v| v.to_string_lossy().into_owned());
        let headers = headers
            .into_iter()
            .flatten()
            .map(|(name, value)| {
                let (value, not_expanded) = expand_header(value, allowed, &get);
                HttpHeader {
                    name: name.clone(),
                    value,
                    not_expanded,
                }
            })
            .collect();
        Ok(HandlerCommand::Http { url, headers })
    }

    /// The environment as `(name, value)` pairs.
    pub fn env_pairs(&self) -> Vec<(String, OsString)> {
        self.env
            .iter()
            .map(|v| (v.name.clone(), v.value.clone()))
            .collect()
    }

    /// The command as written: the shell command, or the program and args
    /// joined by spaces.
    pub fn display(&self) -> String {
        match &self.command {
            HandlerCommand::Shell { command, .. } => command.clone(),
            HandlerCommand::Exec { program, args } => {
                let mut v = vec![program.clone()];
                v.extend(args.iter().cloned());
                v.join(" ")
            }
            HandlerCommand::Http { url, headers } => {
                let mut s = format!("POST {url}");
                if !headers.is_empty() {
                    let names: Vec<&str> = headers.iter().map(|h| h.name.as_str()).collect();
                    s.push_str(&format!(" (headers: {})", names.join(", ")));
                }
                s
            }
        }
    }

    /// What the plan says before anything runs, for an `http` handler:
    /// `would POST to URL (headers: A, B)`, plus which `$VAR`s are left
    /// empty; `None` for a command handler.
    pub fn http_plan_line(&self) -> Option<String> {
        let HandlerCommand::Http { url, headers } = &self.command else {
            return None;
        };
        let mut s = format!("would POST to {url}");
        if !headers.is_empty() {
            let names: Vec<&str> = headers.iter().map(|h| h.name.as_str()).collect();
            s.push_str(&format!(" (headers: {})", names.join(", ")));
        }
        let refused: Vec<&str> = headers
            .iter()
            .flat_map(|h| h.not_expanded.iter().map(String::as_str))
            .collect();
        if !refused.is_empty() {
            s.push_str(&format!(
                "; left empty, not in allowedEnvVars: ${}",
                refused.join(", $")
            ));
        }
        Some(s)
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum RunStatus {
    /// The process exited with `code`.
    Exited {
        /// The exit status.
        code: i32,
    },
    /// The process was killed by `signal` (not by hookscope's timeout).
    Signaled {
        /// The signal number.
        signal: i32,
    },
    /// Still running at its timeout: its process group was killed and its
    /// output discarded (docs/contract.md#exit-codes-and-stdout).
    TimedOut,
    /// It could not start: not found, not executable, bad interpreter.
    /// `exit_code` is the shell's 126/127 for a shell-form command (the
    /// shell started, the command did not), `None` when the program itself
    /// could not be spawned.
    LaunchFailed {
        /// In plain words.
        reason: String,
        /// The shell's exit status, for a shell-form command.
        exit_code: Option<i32>,
    },
    /// An `http` handler got a response with this HTTP status (its body is
    /// the stdout); 2xx is a success, anything else a non-blocking error.
    Http {
        /// The HTTP status code.
        status: u16,
    },
    /// An `http` handler got no response: connection refused, name not
    /// resolved, reset (a non-blocking error).
    HttpFailed {
        /// In plain words (`connection refused`).
        reason: String,
    },
}

impl RunStatus {
    /// `exit 0`, `killed by signal 9`, `timed out`, `launch-failed: …`.
    pub fn describe(&self) -> String {
        match self {
            RunStatus::Exited { code } => format!("exit {code}"),
            RunStatus::Signaled { signal } => format!("killed by signal {signal}"),
            RunStatus::TimedOut => "timed out".into(),
            RunStatus::LaunchFailed { reason, exit_code } => match exit_code {
                Some(c) => format!("launch-failed (exit {c}): {reason}"),
                None => format!("launch-failed: {reason}"),
            },
            RunStatus::Http { status } => format!("http {status}"),
            RunStatus::HttpFailed { reason } => format!("http error: {reason}"),
        }
    }
}

/// What one run produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunOutput {
    /// How it ended.
    pub status: RunStatus,
    /// stdout, at most [`OUTPUT_CAP`] bytes.
    #[serde(skip)]
    pub stdout: Vec<u8>,
    /// stderr, at most [`OUTPUT_CAP`] bytes.
    #[serde(skip)]
    pub stderr: Vec<u8>,
    /// Bytes of stdout read past the cap and dropped.
    pub stdout_dropped: u64,
    /// Bytes of stderr read past the cap and dropped.
    pub stderr_dropped: u64,
    /// Wall time from spawn to the end of the run (or to the kill), ms.
    pub duration_ms: u64,
    /// What else happened (a child kept the pipes open, leftovers killed).
    pub notes: Vec<String>,
}

/// Runs one handler. Implementations must never panic on a failing
/// handler: a launch failure is a [`RunStatus::LaunchFailed`] output.
pub trait Runner: Sync {
    /// Runs `spec` with `stdin` (the payload JSON) on its standard input.
    fn run(&self, spec: &RunSpec, stdin: &[u8]) -> RunOutput;
}

/// One handler's run: its output and its place in the finishing order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finished {
    /// What it produced.
    pub output: RunOutput,
    /// 0 for the first handler to finish, 1 for the next, …
    pub finish_order: usize,
}

/// Runs every spec in parallel (one thread each, as Claude Code runs all
/// matching handlers at once, docs/contract.md#where-hooks-are-configured) with `stdin` on each, and
/// returns their outputs in `specs` order, each with its finishing
/// position.
pub fn run_all<R: Runner + ?Sized>(runner: &R, specs: &[RunSpec], stdin: &[u8]) -> Vec<Finished> {
    let counter = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let handles: Vec<_> = specs
            .iter()
            .map(|spec| {
                let counter = &counter;
                scope.spawn(move || {
                    let output = runner.run(spec, stdin);
                    let finish_order = counter.fetch_add(1, Ordering::SeqCst);
                    Finished {
                        output,
                        finish_order,
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| Finished {
                    output: RunOutput {
                        status: RunStatus::LaunchFailed {
                            reason: "the runner panicked".into(),
                            exit_code: None,
                        },
                        stdout: Vec::new(),
                        stderr: Vec::new(),
                        stdout_dropped: 0,
                        stderr_dropped: 0,
                        duration_ms: 0,
                        notes: Vec::new(),
                    },
                    finish_order: usize::MAX,
                })
            })
            .collect()
    })
}

/// A shell-form command the shell could not start reports 126 (found, not
/// executable) or 127 (not found) with the shell's message on stderr; that
/// is a launch failure, with the exit status kept (Claude Code runs shell
/// form through `sh -c`, so it sees the same exit code).
pub fn classify_shell_launch(spec: &RunSpec, out: &mut RunOutput) {
    let RunStatus::Exited { code } = out.status else {
        return;
    };
    if !matches!(spec.command, HandlerCommand::Shell { .. }) || !matches!(code, 126 | 127) {
        return;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lower = stderr.to_lowercase();
    let reason = if lower.contains("not found") || lower.contains("no such file") {
        "not found"
    } else if lower.contains("permission denied") {
        "not executable (permission denied)"
    } else if lower.contains("bad interpreter") || lower.contains("cannot execute") {
        "bad interpreter"
    } else {
        return;
    };
    let first = stderr.lines().next().unwrap_or("").trim();
    out.status = RunStatus::LaunchFailed {
        reason: format!("{reason}: {first}"),
        exit_code: Some(code),
    };
}

/// One handler's answer as Claude Code reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reading {
    /// The handler's label ([`RunSpec::label`]).
    pub label: String,
    /// What Claude Code does with it, and why (the why starts with what only
    /// a real run shows: launch failure, timeout, `onFailure`).
    pub outcome: Outcome,
    /// Whether the run failed (launch-failed, timed out, killed, or an exit
    /// code other than 0 and 2).
    pub failed: bool,
    /// Its place in the finishing order ([`Finished::finish_order`]).
    pub finish_order: usize,
}

/// A hint for a command the shell did not find (exit 127) whose program
/// is a relative path (`./my-hook.sh`): it runs in the hook's folder, not
/// where hookscope was started. Empty otherwise.
fn relative_hint(spec: &RunSpec, code: i32) -> String {
    let shown = spec.display();
    let program = shown.split_whitespace().next().unwrap_or("");
    if code == 127 && (program.starts_with("./") || program.starts_with("../")) {
        format!(
            "; a relative command runs in the hook's folder, {}: name it by its absolute path",
            spec.cwd.display()
        )
    } else {
        String::new()
    }
}

/// Reads one finished run for `event` at `version` (docs/contract.md#exit-codes-and-stdout, docs/contract.md#json-output-fields, docs/contract.md#decision-control-per-event,
/// docs/contract.md#failing-closed-onfailure):
///
/// * exited: [`interpret_output_at`] on the exit code, stdout and stderr
///   (lossy UTF-8); plus a note when stdout's first line is not JSON but a
///   later line starts a JSON object (a shell-profile `echo` before the
///   JSON turns it all into plain text);
/// * launch-failed, killed by a signal, or an exit code other than 0/2: a
///   non-blocking error, the action proceeds; with `onFailure: "block"` at
///   ≥ 2.1.295 it blocks as exit 2 does (the failure described on stderr);
/// * timed out: output discarded, no decision (fail-open); blocks with
///   `onFailure: "block"` (≥ 2.1.295) and on PreModelSwitch (fails closed);
/// * texts the model or user sees are cut at [`TEXT_CAP_CHARS`].
pub fn read_run(event: &str, version: &Version, spec: &RunSpec, run: &Finished) -> Reading {
    let out = &run.output;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let contract = contract::event(event, version);
    let block_honoured = contract.is_some_and(|c| c.on_failure_block(version));
    let fails_closed = contract.is_some_and(|c| c.on_failure.timeout == FailMode::Closed);
    let on_failure = spec.on_failure_block && block_honoured;
    let mut pre = Vec::new();
    if spec.on_failure_block && !block_honoured {
        pre.push(format!(
            "onFailure: \"block\" is honoured from Claude Code 2.1.295; at {version} it is ignored (docs/contract.md#failing-closed-onfailure)"
        ));
    }
    let as_exit2 = |text: &str| interpret_output_at(event, version, 2, "", text);
    let (mut outcome, failed) = match &out.status {
        RunStatus::TimedOut => {
            let what = if matches!(spec.command, HandlerCommand::Http { .. }) {
                format!(
                    "timed out after {}s: no answer from the server, request abandoned",
                    spec.timeout_secs
                )
            } else {
                format!(
                    "timed out after {}s: killed with its process group, output discarded",
                    spec.timeout_secs
                )
            };
            if on_failure || fails_closed {
                let mut o = as_exit2(&format!("hook timed out after {}s", spec.timeout_secs));
                let why = if fails_closed && !on_failure {
                    format!(
                        "{what}; {event} fails closed on a timeout: blocked (docs/contract.md#failing-closed-onfailure)"
                    )
                } else {
                    format!(
                        "{what}; onFailure: \"block\" turns the timeout into a block, as exit 2 (docs/contract.md#failing-closed-onfailure)"
                    )
                };
                o.why.insert(0, why);
                (o, true)
            } else {
                let mut o = interpret_output_at(event, version, 0, "", "");
                o.why = vec![format!(
                    "{what}: no decision, the action proceeds (a stalled gate fails open; docs/contract.md#exit-codes-and-stdout)"
                )];
                (o, true)
            }
        }
        RunStatus::LaunchFailed {
            reason,
            exit_code: None,
        } => failure(
            event,
            version,
            on_failure,
            &format!("the hook could not start: {reason}"),
            None,
        ),
        RunStatus::Signaled { signal } => failure(
            event,
            version,
            on_failure,
            &format!("the hook was killed by signal {signal}"),
            None,
        ),
        RunStatus::LaunchFailed {
            reason,
            exit_code: Some(code),
        } => failure(
            event,
            version,
            on_failure,
            &format!(
                "the shell could not start the command ({reason}){}",
                relative_hint(spec, *code)
            ),
            Some((*code, &stdout, &stderr)),
        ),
        RunStatus::Http { status } if (200..300).contains(status) => {
            let mut o = interpret_output_at(event, version, 0, &stdout, "");
            o.why.insert(
                0,
                format!(
                    "http {status}: the response body is read as a command's stdout with exit 0 (docs/contract.md#handler-types-and-fields)"
                ),
            );
            (o, false)
        }
        RunStatus::Http { status } => failure(
            event,
            version,
            on_failure,
            &format!("http {status} (not 2xx; the body is ignored)"),
            None,
        ),
        RunStatus::HttpFailed { reason } => failure(
            event,
            version,
            on_failure,
            &format!("http error: {reason}"),
            None,
        ),
        RunStatus::Exited { code } if *code != 0 && *code != 2 && on_failure => failure(
            event,
            version,
            on_failure,
            &format!("exit {code}"),
            Some((*code, &stdout, &stderr)),
        ),
        RunStatus::Exited { code } => {
            let failed = *code != 0 && *code != 2;
            (
                interpret_output_at(event, version, *code, &stdout, &stderr),
                failed,
            )
        }
    };
    if !matches!(out.status, RunStatus::TimedOut)
        && let Some((first, line)) = profile_line_before_json(&stdout)
    {
        outcome.why.push(format!(
            "stdout starts with {first:?}, and the JSON object only comes on line {line}: Claude Code parses stdout as JSON only when it starts with `{{`, so this JSON has no effect (a shell profile echo? docs/contract.md#exit-codes-and-stdout \"Hook JSON has no effect\")"
        ));
    }
    if out.stdout_dropped > 0 {
        outcome.why.push(format!(
            "stdout was cut at {OUTPUT_CAP} bytes by hookscope ({} more bytes dropped)",
            out.stdout_dropped
        ));
    }
    if out.stderr_dropped > 0 {
        outcome.why.push(format!(
            "stderr was cut at {OUTPUT_CAP} bytes by hookscope ({} more bytes dropped)",
            out.stderr_dropped
        ));
    }
    for (text, whose) in [
        (&mut outcome.model_sees, "model"),
        (&mut outcome.user_sees, "user"),
    ] {
        if let Some(t) = text
            && let Some((cut, _)) = t.char_indices().nth(TEXT_CAP_CHARS)
        {
            let total = t.chars().count();
            t.truncate(cut);
            outcome.why.push(format!(
                "what the {whose} sees is cut at {TEXT_CAP_CHARS} characters (of {total}; docs/contract.md#exit-codes-and-stdout)"
            ));
        }
    }
    if spec.is_async {
        asynchronous(&mut outcome);
    }
    pre.append(&mut outcome.why);
    outcome.why = pre;
    Reading {
        label: spec.label.clone(),
        outcome,
        failed,
        finish_order: run.finish_order,
    }
}

/// An `async: true` handler's answer (docs/contract.md#async-hooks): `decision`,
/// `permissionDecision`, `continue` and `updatedInput` have no effect; its
/// context (and `systemMessage`) arrive on the next turn.
fn asynchronous(outcome: &mut Outcome) {
    let had = outcome.effect;
    outcome.updated_input = None;
    outcome.updated_output = None;
    outcome.effect = if outcome.model_sees.is_some() {
        Effect::ContextAdded
    } else {
        Effect::Nothing
    };
    if matches!(had, Effect::Blocked | Effect::Stopped) {
        // A block reason is not context: drop it.
        outcome.model_sees = None;
        outcome.effect = Effect::Nothing;
    }
    if had != outcome.effect {
        outcome.why.push(format!(
            "async: true — its decision has no effect (it would have been {}); context and systemMessage arrive on the next turn (docs/contract.md#async-hooks)",
            effect_name(had)
        ));
    } else if outcome.model_sees.is_some() || outcome.user_sees.is_some() {
        outcome.why.push(
            "async: true — its context and systemMessage arrive on the next turn (docs/contract.md#async-hooks)"
                .into(),
        );
    }
}

/// The snake_case name of an effect, as serialized.
pub fn effect_name(effect: Effect) -> &'static str {
    match effect {
        Effect::Blocked => "blocked",
        Effect::Asked => "asked",
        Effect::Deferred => "deferred",
        Effect::Stopped => "stopped",
        Effect::InputRewritten => "input_rewritten",
        Effect::OutputReplaced => "output_replaced",
        Effect::Allowed => "allowed",
        Effect::ContextAdded => "context_added",
        Effect::Nothing => "nothing",
    }
}

/// A failed run: non-blocking (the action proceeds), or with `onFailure`
/// honoured a block as exit 2 does. `exited` carries the exit code and
/// output when the process did run (its JSON is then still read when not
/// blocking, docs/contract.md#exit-codes-and-stdout).
fn failure(
    event: &str,
    version: &Version,
    on_failure: bool,
    what: &str,
    exited: Option<(i32, &str, &str)>,
) -> (Outcome, bool) {
    if on_failure {
        let (stdout, stderr) = match exited {
            Some((_, out, err)) if !err.trim().is_empty() => (out, err.to_string()),
            Some((_, out, _)) => (out, what.to_string()),
            None => ("", what.to_string()),
        };
        let mut o = interpret_output_at(event, version, 2, stdout, &stderr);
        o.why.insert(
            0,
            format!(
                "{what}: onFailure: \"block\" turns a failed hook into a block, as exit 2 (docs/contract.md#failing-closed-onfailure)"
            ),
        );
        return (o, true);
    }
    match exited {
        Some((code, out, err)) => {
            let mut o = interpret_output_at(event, version, code, out, err);
            o.why.insert(0, what.to_string());
            (o, true)
        }
        None => {
            let mut o = interpret_output_at(event, version, 0, "", "");
            o.why = vec![format!(
                "{what}: a non-blocking error, the action proceeds (docs/contract.md#exit-codes-and-stdout; onFailure: \"block\" would block)"
            )];
            (o, true)
        }
    }
}

/// When stdout does not start with `{` (after leading whitespace) but a
/// later line starts a JSON object that parses to the end: the first line
/// and the 1-based line number the JSON starts on.
pub fn profile_line_before_json(stdout: &str) -> Option<(String, usize)> {
    if stdout.trim_start().starts_with('{') {
        return None;
    }
    let mut offset = 0;
    for (i, line) in stdout.split_inclusive('\n').enumerate() {
        if i > 0 && line.trim_start().starts_with('{') {
            let rest = &stdout[offset..];
            if serde_json::from_str::<Value>(rest).is_ok_and(|v| v.is_object()) {
                let first = stdout.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                return Some((first.trim_end().to_string(), i + 1));
            }
        }
        offset += line.len();
    }
    None
}

/// Several handlers' readings merged as Claude Code merges them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CombinedRuns {
    /// The merged effect.
    pub effect: Effect,
    /// The PreToolUse permission decision that wins (deny > defer > ask >
    /// allow), when any handler gave one.
    pub decision: Option<PermissionDecision>,
    /// What the model is told: block reasons, then added context, each
    /// handler's on its own line, in handler order.
    pub model_sees: Option<String>,
    /// What the user alone sees (`systemMessage`, `stopReason`, an ask's
    /// reason, user-facing block reasons), joined the same way.
    pub user_sees: Option<String>,
    /// The replacement tool input: the last handler to finish among those
    /// that rewrote (when the decision is allow).
    pub updated_input: Option<Value>,
    /// What the model sees instead of the tool's output (PostToolUse
    /// `updatedToolOutput`): the last handler to finish among those that
    /// set one.
    pub updated_output: Option<Value>,
    /// The labels of the handlers that decided the effect.
    pub decided_by: Vec<String>,
    /// Warnings about the merge (several rewrites, several blocks, a rewrite
    /// dropped by a stronger decision).
    pub flags: Vec<String>,
}

fn decision_of(effect: Effect) -> Option<PermissionDecision> {
    match effect {
        Effect::Blocked => Some(PermissionDecision::Deny),
        Effect::Deferred => Some(PermissionDecision::Defer),
        Effect::Asked => Some(PermissionDecision::Ask),
        Effect::Allowed | Effect::InputRewritten => Some(PermissionDecision::Allow),
        Effect::Stopped | Effect::OutputReplaced | Effect::ContextAdded | Effect::Nothing => None,
    }
}

/// Merges `readings` (in handler order) as Claude Code merges several
/// hooks (docs/contract.md#json-output-fields, docs/contract.md#decision-control-per-event): `continue: false` beats everything; then the
/// strongest decision wins (deny > defer > ask > allow; on events without
/// permission decisions a block is the deny); with allow, the
/// `updatedInput` of the **last handler to finish** wins (non-deterministic
/// in Claude Code), flagged when several set one; contexts and user
/// messages join.
pub fn combine_runs(readings: &[Reading]) -> CombinedRuns {
    let join = |items: Vec<String>| (!items.is_empty()).then(|| items.join("\n"));
    let mut flags = Vec::new();
    let user_all: Vec<String> = readings
        .iter()
        .filter_map(|r| r.outcome.user_sees.clone())
        .collect();
    let stoppers: Vec<&Reading> = readings
        .iter()
        .filter(|r| r.outcome.effect == Effect::Stopped)
        .collect();
    if !stoppers.is_empty() {
        return CombinedRuns {
            effect: Effect::Stopped,
            decision: None,
            model_sees: None,
            user_sees: join(user_all),
            updated_input: None,
            updated_output: None,
            decided_by: stoppers.iter().map(|r| r.label.clone()).collect(),
            flags: vec![
                "continue: false stops Claude and beats every decision (docs/contract.md#json-output-fields)".into(),
            ],
        };
    }
    let decision = PermissionDecision::combine(
        readings
            .iter()
            .filter_map(|r| decision_of(r.outcome.effect)),
    );
    let deciding: Vec<&Reading> = readings
        .iter()
        .filter(|r| decision.is_some() && decision_of(r.outcome.effect) == decision)
        .collect();
    let rewrites: Vec<&Reading> = readings
        .iter()
        .filter(|r| r.outcome.effect == Effect::InputRewritten)
        .collect();
    let mut updated_input = None;
    let mut effect = match decision {
        Some(PermissionDecision::Deny) => Effect::Blocked,
        Some(PermissionDecision::Defer) => Effect::Deferred,
        Some(PermissionDecision::Ask) => Effect::Asked,
        Some(PermissionDecision::Allow) => Effect::Allowed,
        None => Effect::Nothing,
    };
    if decision == Some(PermissionDecision::Allow) {
        if let Some(last) = rewrites.iter().max_by_key(|r| r.finish_order) {
            effect = Effect::InputRewritten;
            updated_input = last.outcome.updated_input.clone();
            if rewrites.len() > 1 {
                let labels: Vec<&str> = rewrites.iter().map(|r| r.label.as_str()).collect();
                flags.push(format!(
                    "{} handlers set updatedInput ({}): Claude Code keeps the last to finish, which is not deterministic; this run kept {}'s",
                    rewrites.len(),
                    labels.join(", "),
                    last.label
                ));
            }
        }
    } else if !rewrites.is_empty() {
        flags.push(format!(
            "updatedInput of {} not applied: the decision is {}",
            rewrites
                .iter()
                .map(|r| r.label.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            decision.map_or("none", |d| match d {
                PermissionDecision::Deny => "deny",
                PermissionDecision::Defer => "defer",
                PermissionDecision::Ask => "ask",
                PermissionDecision::Allow => "allow",
            })
        ));
    }
    let blocks: Vec<&Reading> = readings
        .iter()
        .filter(|r| r.outcome.effect == Effect::Blocked)
        .collect();
    if blocks.len() > 1 {
        flags.push(format!(
            "{} handlers block: every reason is shown, in handler order",
            blocks.len()
        ));
    }
    let mut model = Vec::new();
    for r in &blocks {
        model.extend(r.outcome.model_sees.clone());
    }
    for r in readings {
        if r.outcome.effect != Effect::Blocked
            && let Some(m) = &r.outcome.model_sees
        {
            model.push(m.clone());
        }
    }
    let replacers: Vec<&Reading> = readings
        .iter()
        .filter(|r| r.outcome.updated_output.is_some())
        .collect();
    let updated_output = replacers
        .iter()
        .max_by_key(|r| r.finish_order)
        .and_then(|r| r.outcome.updated_output.clone());
    if replacers.len() > 1
        && let Some(last) = replacers.iter().max_by_key(|r| r.finish_order)
    {
        let labels: Vec<&str> = replacers.iter().map(|r| r.label.as_str()).collect();
        flags.push(format!(
            "{} handlers set updatedToolOutput ({}): the last to finish wins, which is not deterministic; this run kept {}'s",
            replacers.len(),
            labels.join(", "),
            last.label
        ));
    }
    if effect == Effect::Nothing && updated_output.is_some() {
        effect = Effect::OutputReplaced;
    }
    if effect == Effect::Nothing && !model.is_empty() {
        effect = Effect::ContextAdded;
    }
    let decided_by = if deciding.is_empty() {
        let by = if effect == Effect::OutputReplaced {
            Effect::OutputReplaced
        } else {
            Effect::ContextAdded
        };
        readings
            .iter()
            .filter(|r| r.outcome.effect == by)
            .map(|r| r.label.clone())
            .collect()
    } else {
        deciding.iter().map(|r| r.label.clone()).collect()
    };
    CombinedRuns {
        effect,
        decision,
        model_sees: join(model),
        user_sees: join(user_all),
        updated_input,
        updated_output,
        decided_by,
        flags,
    }
}

#[cfg(test)]
mod tests;
