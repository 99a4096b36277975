//! One `--exec` run of an event's handlers, end to end: where they run
//! ([`Scratch`], [`working_dir`]), which handler types cannot run
//! ([`not_runnable`]), and [`execute`]: run, read each answer, combine, and
//! the final outcome, as one [`ExecReport`] the CLI (and later the TUI)
//! prints.

use hookscope_hook::event::EventKey;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use crate::hooks::contract::Version;
use crate::redact::{Redactions, redactor};

use super::permissions::{FinalOutcome, Permissions, RuleContext, final_outcome};
use super::{CombinedRuns, Reading, RunSpec, RunStatus, Runner, combine_runs, read_run, run_all};

/// Most bytes of a `CLAUDE_ENV_FILE` read back after the run (64 KiB).
pub const ENV_FILE_CAP: u64 = 64 * 1024;

/// A temporary folder for one `--exec` run (removed when dropped): the
/// working folder when the session's `cwd` does not exist here, and the
/// `CLAUDE_ENV_FILE`s.
#[derive(Debug)]
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        super::reaper::unregister_temporary(self.dir.path());
    }
}

impl Scratch {
    /// Creates `hookscope-exec-XXXXXX` in the system temp folder.
    ///
    /// # Errors
    /// The I/O error when the folder cannot be created.
    /// The folder is registered with [`super::reaper::register_temporary`]
    /// so an interrupted hookscope removes it too.
    pub fn new() -> std::io::Result<Scratch> {
        let dir = tempfile::Builder::new()
            .prefix("hookscope-exec-")
            .tempdir()?;
        super::reaper::register_temporary(dir.path());
        Ok(Scratch { dir })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Creates an empty `session-env/<session>/<event>-hook-<index>.sh` in
    /// the scratch folder (the shape of Claude Code's
    /// `<config>/session-env/…` path in the captures) and returns it. The
    /// session id is used only when it is one safe path component.
    ///
    /// # Errors
    /// The I/O error when the file cannot be created.
    pub fn env_file(
        &self,
        event: &str,
        session_id: &str,
        index: usize,
    ) -> std::io::Result<PathBuf> {
        let safe = super::env::known_form("CLAUDE_CODE_SESSION_ID", session_id)
            && session_id != "."
            && session_id != "..";
        let dir = self
            .path()
            .join("session-env")
            .join(if safe { session_id } else { "session" });
        std::fs::create_dir_all(&dir)?;
        let file = dir.join(format!("{}-hook-{index}.sh", event.to_lowercase()));
        std::fs::write(&file, b"")?;
        Ok(file)
    }
}

/// The `CLAUDE_PROJECT_DIR` a replayed hook gets, and why it is that folder
/// (docs/replay-and-backtest.md "Running your real hooks"): never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectDir {
    /// The folder (absolute when hookscope chose it).
    pub path: PathBuf,
    /// The session's project as recorded (its first `cwd`, after
    /// `--cwd-map`), when known.
    pub recorded: Option<PathBuf>,
    /// Why `path` is not the session's project, when it is not.
    pub note: Option<String>,
}

/// Chooses `CLAUDE_PROJECT_DIR`: the session's project (`session`, its
/// first `cwd` after `--cwd-map`) when that folder exists here; else the
/// folder holding the given settings' `.claude/` (`settings_project`,
/// [`crate::hooks::settings::HookConfig::project_dir`]) when it exists;
/// else the recorded project as it is (a hook using it will not find its
/// files, said in the note); else `fallback` (the temporary folder).
pub fn project_dir(
    session: Option<&Path>,
    settings_project: Option<&Path>,
    fallback: &Path,
) -> ProjectDir {
    let session = session.filter(|d| !d.as_os_str().is_empty());
    let settings_project = settings_project.filter(|d| !d.as_os_str().is_empty());
    let recorded = session.map(Path::to_path_buf);
    if let Some(d) = session.filter(|d| d.is_dir()) {
        return ProjectDir {
            path: d.to_path_buf(),
            recorded,
            note: None,
        };
    }
    if let Some(p) = settings_project.filter(|p| p.is_dir()) {
        let note = session.map(|d| {
            format!(
                "the session's project {} does not exist here: CLAUDE_PROJECT_DIR is {} (the folder holding the settings' .claude/; --cwd-map OLD=NEW names another)",
                d.display(),
                p.display()
            )
        });
        return ProjectDir {
            path: p.to_path_buf(),
            recorded,
            note,
        };
    }
    if let Some(d) = session.filter(|d| !plain_path(d)) {
        return ProjectDir {
            path: fallback.to_path_buf(),
            recorded,
            note: Some(format!(
                "the session's project {:?} does not exist here and holds characters a shell would read: CLAUDE_PROJECT_DIR is the temporary folder {} (--cwd-map OLD=NEW maps it to a local folder)",
                d.display().to_string(),
                fallback.display()
            )),
        };
    }
    if let Some(d) = session {
        return ProjectDir {
            path: d.to_path_buf(),
            recorded,
            note: Some(format!(
                "the session's project {} does not exist here: CLAUDE_PROJECT_DIR names it anyway, so a hook that reads its files there will not find them (--cwd-map OLD=NEW maps it to a local folder)",
                d.display()
            )),
        };
    }
    ProjectDir {
        path: fallback.to_path_buf(),
        recorded: None,
        note: Some(format!(
            "the session records no project folder: CLAUDE_PROJECT_DIR is the temporary folder {}",
            fallback.display()
        )),
    }
}

/// Whether a recorded folder that does not exist here may still be named in
/// `CLAUDE_PROJECT_DIR` (and substituted into a handler's `args`): an
/// absolute path of letters, digits, spaces and `/._-+,@=:~%` only. A
/// transcript's folder with `$`, a backtick, a quote, `;`, `|`, `&`, a
/// bracket or a control would be code in `bash -c "cd
/// ${CLAUDE_PROJECT_DIR}"` (docs/security.md "Running hooks").
fn plain_path(path: &Path) -> bool {
    let Some(text) = path.to_str() else {
        return false;
    };
    text.starts_with('/')
        && text.chars().all(|c| {
            c.is_alphanumeric()
                || matches!(
                    c,
                    '/' | '.' | '_' | '-' | '+' | ',' | '@' | '=' | ':' | '~' | '%' | ' '
                )
        })
}

/// Where the handlers run, as Claude Code would run them: the payload's
/// `cwd` (it follows a `cd`, unlike `CLAUDE_PROJECT_DIR`) when it is a
/// folder here; else its place under `project` (the same path relative to
/// the recorded project, when that folder exists here); else the project
/// folder (Claude Code, from 2.1.239, falls back to the project when the
/// `cwd` is gone); else `scratch`'s folder. The note says why when it is
/// not the payload's `cwd`.
pub fn working_dir(
    payload: &Value,
    project: &ProjectDir,
    scratch: &Scratch,
) -> (PathBuf, Option<String>) {
    let Some(cwd) = payload.get("cwd").and_then(Value::as_str) else {
        return (
            scratch.path().to_path_buf(),
            Some(format!(
                "the payload has no cwd: running in a temporary folder, {}",
                scratch.path().display()
            )),
        );
    };
    if Path::new(cwd).is_dir() {
        return (PathBuf::from(cwd), None);
    }
    let under = project
        .recorded
        .as_deref()
        .and_then(|r| Path::new(cwd).strip_prefix(r).ok())
        .map(|rel| project.path.join(rel))
        .filter(|p| p.is_dir() && p != &project.path);
    if let Some(place) = under {
        return (
            place.clone(),
            Some(format!(
                "the session's cwd {cwd} does not exist here: running in its place under CLAUDE_PROJECT_DIR, {}",
                place.display()
            )),
        );
    }
    if project.path.is_dir() && project.path != scratch.path() {
        return (
            project.path.clone(),
            Some(format!(
                "the session's cwd {cwd} does not exist here: running in CLAUDE_PROJECT_DIR, {} (Claude Code runs hooks in the project folder when the cwd is gone)",
                project.path.display()
            )),
        );
    }
    (
        scratch.path().to_path_buf(),
        Some(format!(
            "the session's cwd {cwd} does not exist here: running in a temporary folder, {}",
            scratch.path().display()
        )),
    )
}

/// A configured handler that was not run, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotRun {
    /// Where it comes from.
    pub label: String,
    /// `http`, `prompt`, `agent`, `mcp_tool`, or an unknown type.
    pub handler_type: String,
    /// Why it did not run.
    pub reason: String,
}

/// Why a handler of `handler_type` is not run by `--exec`, `None` for
/// `command` and `http` (docs/contract.md#handler-types-and-fields, docs/contract.md#prompt-and-agent-hooks; an `https://` url is refused
/// by [`super::RunSpec::from_handler`]); `prompt` and `agent` need a model; `mcp_tool` needs
/// the MCP server.
pub fn not_runnable(handler_type: &str) -> Option<String> {
    match handler_type {
        "command" | "http" => None,
        "prompt" | "agent" => Some(format!(
            "not runnable offline: the {handler_type} hook asks a model (docs/contract.md#prompt-and-agent-hooks)"
        )),
        "mcp_tool" => {
            Some("not runnable offline: an mcp_tool hook calls a running MCP server".into())
        }
        other => Some(format!("unknown handler type {other:?}: not run")),
    }
}

/// One handler's run, as shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HandlerReport {
    /// Where it comes from ([`RunSpec::label`]).
    pub label: String,
    /// The command as written.
    pub command: String,
    /// What was executed.
    pub argv: Vec<String>,
    /// Where it ran.
    pub cwd: PathBuf,
    /// Why that is not the session's cwd, when it is not.
    pub cwd_note: Option<String>,
    /// The names of its environment variables (values are not shown).
    pub env_names: Vec<String>,
    /// Its timeout, seconds.
    pub timeout_secs: f64,
    /// `onFailure: "block"` as written.
    pub on_failure_block: bool,
    /// How it ended.
    pub status: RunStatus,
    /// The exit code, when it exited (also a shell's 126/127).
    pub exit_code: Option<i32>,
    /// Wall time, ms.
    pub duration_ms: u64,
    /// stdout (lossy UTF-8, at most [`super::OUTPUT_CAP`] bytes), unmasked.
    pub stdout: String,
    /// stderr, likewise.
    pub stderr: String,
    /// Bytes of stdout dropped past the cap.
    pub stdout_dropped: u64,
    /// Bytes of stderr dropped past the cap.
    pub stderr_dropped: u64,
    /// What else happened to the process.
    pub notes: Vec<String>,
    /// What it wrote to its `CLAUDE_ENV_FILE` (lossy, its first
    /// [`ENV_FILE_CAP`] bytes), when anything.
    pub env_file_written: Option<String>,
    /// Bytes of `CLAUDE_ENV_FILE` past [`ENV_FILE_CAP`], not shown.
    pub env_file_dropped: u64,
    /// How Claude Code reads its answer.
    pub reading: Reading,
}

/// What a hook wrote to its `CLAUDE_ENV_FILE`: the first [`ENV_FILE_CAP`]
/// bytes (lossy) and how many bytes past them were not read; `None` when
/// it wrote nothing or the file is gone or not a regular file.
fn read_env_file(path: &Path) -> Option<(String, u64)> {
    use std::io::Read;
    let file = crate::transcript::fsread::open_regular(path).ok()?;
    let size = file.metadata().ok()?.len();
    let mut bytes = Vec::new();
    file.take(ENV_FILE_CAP).read_to_end(&mut bytes).ok()?;
    if bytes.is_empty() {
        return None;
    }
    let dropped = size.saturating_sub(bytes.len() as u64);
    Some((String::from_utf8_lossy(&bytes).into_owned(), dropped))
}

/// Everything one `--exec` run produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExecReport {
    /// The event.
    pub event: EventKey,
    /// The Claude Code version the answers were read at.
    pub claude_version: String,
    /// Each command or `http` handler that ran, in configuration order.
    pub handlers: Vec<HandlerReport>,
    /// Handlers that were not run, and why.
    pub not_run: Vec<NotRun>,
    /// The handlers' answers merged.
    pub combined: CombinedRuns,
    /// The final outcome (PreToolUse: through the permission rules and mode).
    pub final_outcome: FinalOutcome,
}

/// Runs `specs` in parallel with `payload` on stdin through `runner`, reads
/// each answer for `event` at `version` ([`read_run`]), combines them
/// ([`combine_runs`]) and computes the final outcome
/// ([`final_outcome`] with `perms`).
#[allow(clippy::too_many_arguments)]
pub fn execute<R: Runner + ?Sized>(
    runner: &R,
    event: &str,
    version: &Version,
    payload: &Value,
    specs: &[RunSpec],
    not_run: Vec<NotRun>,
    perms: &Permissions,
    rule_ctx: &RuleContext,
) -> ExecReport {
    let stdin = serde_json::to_vec(payload).unwrap_or_default();
    let runs = run_all(runner, specs, &stdin);
    let mut handlers = Vec::with_capacity(specs.len());
    for (spec, run) in specs.iter().zip(&runs) {
        let reading = read_run(event, version, spec, run);
        let out = &run.output;
        let exit_code = match &out.status {
            RunStatus::Exited { code } => Some(*code),
            RunStatus::LaunchFailed { exit_code, .. } => *exit_code,
            _ => None,
        };
        let (env_file_written, env_file_dropped) = spec
            .env
            .iter()
            .find(|v| v.name == "CLAUDE_ENV_FILE")
            .and_then(|v| read_env_file(Path::new(&v.value)))
            .map_or((None, 0), |(text, dropped)| (Some(text), dropped));
        handlers.push(HandlerReport {
            label: spec.label.clone(),
            command: spec.display(),
            argv: spec.argv(),
            cwd: spec.cwd.clone(),
            cwd_note: spec.cwd_note.clone(),
            env_names: spec.env.iter().map(|v| v.name.clone()).collect(),
            timeout_secs: spec.timeout_secs,
            on_failure_block: spec.on_failure_block,
            status: out.status.clone(),
            exit_code,
            duration_ms: out.duration_ms,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            stdout_dropped: out.stdout_dropped,
            stderr_dropped: out.stderr_dropped,
            notes: {
                let mut notes = out.notes.clone();
                if let super::HandlerCommand::Http { headers, .. } = &spec.command {
                    let empty: Vec<&str> = headers
                        .iter()
                        .flat_map(|h| h.not_expanded.iter().map(String::as_str))
                        .collect();
                    if !empty.is_empty() {
                        notes.push(format!(
                            "left empty in its headers, not in allowedEnvVars: ${}",
                            empty.join(", $")
                        ));
                    }
                }
                notes
            },
            env_file_written,
            env_file_dropped,
            reading,
        });
    }
    let readings: Vec<Reading> = handlers.iter().map(|h| h.reading.clone()).collect();
    let combined = combine_runs(&readings);
    let final_outcome = final_outcome(event, version, payload, &combined, perms, rule_ctx);
    ExecReport {
        event: event.into(),
        claude_version: version.to_string(),
        handlers,
        not_run,
        combined,
        final_outcome,
    }
}

impl ExecReport {
    /// The report as JSON, with every text a hook printed (stdout, stderr,
    /// what the model and user see, the env file) masked by
    /// [`crate::redact`] unless `raw`; the masks are counted in `counts`.
    pub fn to_json(&self, raw: bool, counts: &mut Redactions) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if !raw {
            v = redactor().redact_value(&v, counts);
        }
        if let Some(o) = v.as_object_mut() {
            o.insert("ran".into(), json!(true));
        }
        v
    }
}
