//! The environment a replayed hook gets: an allowlist, never the user's
//! whole environment (docs/security.md#running-hooks).
//!
//! Claude Code hands hooks its own environment plus its `CLAUDE*`
//! variables. The 2.1.332 captures (`real-cc-2.1.332/*/hooks/*/<Event>.jsonl`,
//! field `env`, which recorded the `CLAUDE*` names only) show these names;
//! hookscope derives the ones a transcript can tell and leaves out the ones
//! that belong to a live process:
//!
//! | name | in the captures | hookscope |
//! |---|---|---|
//! | `CLAUDECODE` | `1`, every event | `1` |
//! | `CLAUDE_PROJECT_DIR` | every event; the folder Claude Code started in (stays put after `cd`, unlike the payload's `cwd`) | the session's first `cwd` |
//! | `CLAUDE_CODE_SESSION_ID` | every event | the payload's `session_id` |
//! | `CLAUDE_CODE_ENTRYPOINT` | `sdk-cli` (`-p` runs) | the transcript's `entrypoint` at that line, when recorded |
//! | `CLAUDE_EFFORT` | exactly when the payload has `effort` (tool events, Stop, SubagentStop), = `effort.level` | the same |
//! | `CLAUDE_ENV_FILE` | SessionStart, CwdChanged, FileChanged (docs/contract.md#handler-types-and-fields adds Setup): `<config>/session-env/<session>/<event>-hook-<n>.sh` | a fresh empty file in a temporary folder, never the real one |
//! | `CLAUDE_CONFIG_DIR` | inherited from Claude Code's own environment | passed through when set (a basic, below) |
//! | `CLAUDE_PID`, `CLAUDE_CODE_MESSAGING_SOCKET`, `CLAUDE_CODE_MESSAGING_TOKEN`, `CLAUDE_CODE_CHILD_NOTES_DIR`, `CLAUDE_CODE_CHILD_SESSION`, `CLAUDE_CODE_SESSION_ATTENDED` | a live process's pid, IPC socket and token, notes folder | left out (no live process) |
//! | `CLAUDE_CODE_ENABLE_TODO_TOOLS`, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` | the capture harness's own settings, inherited | left out (`--env NAME` passes them) |
//!
//! Plus the basics of [`BASIC_ENV`] from hookscope's own environment when
//! set, plus each `--env NAME` (or `NAME=VALUE`).

use hookscope_hook::event::EventKey;
use std::ffi::OsString;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

/// Variables passed through from hookscope's own environment when set: what
/// a shell and common interpreters need to start (`PATH`, `HOME`, locale,
/// terminal, temp folder, time zone) and `CLAUDE_CONFIG_DIR` (Claude Code's
/// config folder; not a secret).
pub const BASIC_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "TMPDIR",
    "TZ",
    "CLAUDE_CONFIG_DIR",
];

/// Events whose hooks get `CLAUDE_ENV_FILE` (docs/contract.md#handler-types-and-fields; the captures
/// show SessionStart, CwdChanged and FileChanged).
pub const ENV_FILE_EVENTS: &[&str] = &["SessionStart", "Setup", "CwdChanged", "FileChanged"];

/// Where a variable's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EnvSource {
    /// Derived from the session as Claude Code would set it.
    Claude,
    /// One of [`BASIC_ENV`], from hookscope's environment.
    Basic,
    /// Asked for with `--env NAME` (from hookscope's environment) or
    /// `--env NAME=VALUE`.
    Requested,
}

/// One variable of a hook's environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvVar {
    /// The name.
    pub name: String,
    /// The value (not UTF-8 safe for display: print names, not values).
    #[serde(skip)]
    pub value: OsString,
    /// Where it comes from.
    pub source: EnvSource,
}

/// What the Claude Code variables are derived from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvContext {
    /// `hook_event_name`.
    pub event: EventKey,
    /// `session_id` → `CLAUDE_CODE_SESSION_ID`.
    pub session_id: Option<String>,
    /// The folder Claude Code started in → `CLAUDE_PROJECT_DIR`.
    pub project_dir: Option<String>,
    /// The payload's `effort.level` → `CLAUDE_EFFORT`.
    pub effort: Option<String>,
    /// The transcript's `entrypoint` → `CLAUDE_CODE_ENTRYPOINT`.
    pub entrypoint: Option<String>,
    /// The file `CLAUDE_ENV_FILE` names (only used on
    /// [`ENV_FILE_EVENTS`]); the caller creates it (empty, temporary).
    pub env_file: Option<PathBuf>,
}

impl EnvContext {
    /// The context read from a hook payload (`hook_event_name`,
    /// `session_id`, `effort.level`); `project_dir`, `entrypoint` and
    /// `env_file` are for the caller to fill.
    pub fn from_payload(payload: &Value) -> EnvContext {
        let s = |k: &str| payload.get(k).and_then(Value::as_str).map(str::to_string);
        EnvContext {
            event: s("hook_event_name").unwrap_or_default().into(),
            session_id: s("session_id"),
            project_dir: None,
            effort: payload
                .get("effort")
                .and_then(|e| e.get("level"))
                .and_then(Value::as_str)
                .map(str::to_string),
            entrypoint: None,
            env_file: None,
        }
    }

    /// Whether this event's hooks get `CLAUDE_ENV_FILE`.
    pub fn wants_env_file(&self) -> bool {
        ENV_FILE_EVENTS.contains(&self.event.as_str())
    }
}

/// A `--env` argument that could not be honoured, or a value from the
/// transcript left out of the environment because it is not of its known
/// form ([`known_form`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvWarning {
    /// The argument as given, or the variable's name (`transcript`).
    pub arg: String,
    /// Why.
    pub message: String,
    /// The value came from the transcript (not from `--env`).
    pub transcript: bool,
}

impl std::fmt::Display for EnvWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.transcript {
            write!(f, "{}: {}", self.arg, self.message)
        } else {
            write!(f, "--env {}: {}", self.arg, self.message)
        }
    }
}

/// Whether `value`, read from a transcript for the variable `name`, is of
/// the form Claude Code itself would set there (docs/security.md "Running
/// hooks"): `CLAUDE_CODE_ENTRYPOINT` a lowercase word (`cli`, `sdk-cli`,
/// `claude-vscode`: `[a-z][a-z0-9_-]{0,39}`), `CLAUDE_EFFORT` a level
/// (`[a-z]{1,16}`), `CLAUDE_CODE_SESSION_ID` an id (`[A-Za-z0-9][A-Za-z0-9_.-]{0,127}`,
/// a UUID, `ses_…`, a Codex thread id). A value of another form (a
/// transcript saying `cli$(touch X)`) is left out: a handler may pass it
/// to a shell (`bash -c "log ${CLAUDE_CODE_ENTRYPOINT}"`). Other names:
/// `true`.
pub fn known_form(name: &str, value: &str) -> bool {
    let word = |v: &str, max: usize, first: fn(char) -> bool, rest: fn(char) -> bool| {
        let mut chars = v.chars();
        v.len() <= max && chars.next().is_some_and(first) && chars.all(rest)
    };
    match name {
        "CLAUDE_CODE_ENTRYPOINT" => word(
            value,
            40,
            |c| c.is_ascii_lowercase(),
            |c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_',
        ),
        "CLAUDE_EFFORT" => word(
            value,
            16,
            |c| c.is_ascii_lowercase(),
            |c| c.is_ascii_lowercase(),
        ),
        "CLAUDE_CODE_SESSION_ID" => word(
            value,
            128,
            |c| c.is_ascii_alphanumeric(),
            |c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'),
        ),
        _ => true,
    }
}

/// The hook environment: the Claude Code variables of `ctx`, then the set
/// [`BASIC_ENV`] names read through `lookup` (hookscope's environment),
/// then each of `requested` (`NAME` read through `lookup`, or
/// `NAME=VALUE`). A later entry replaces an earlier one of the same name.
/// A requested NAME that is unset, or an empty or malformed name, is a
/// warning, not an error; so is a transcript value not of its
/// [`known_form`], which is left out.
pub fn hook_env(
    ctx: &EnvContext,
    requested: &[String],
    lookup: &dyn Fn(&str) -> Option<OsString>,
) -> (Vec<EnvVar>, Vec<EnvWarning>) {
    let mut vars: Vec<EnvVar> = Vec::new();
    let mut warnings = Vec::new();
    let mut refused = Vec::new();
    let mut from_transcript = |name: &'static str, value: &Option<String>| match value {
        Some(v) if known_form(name, v) => Some((name, v.clone())),
        Some(v) => {
            refused.push(EnvWarning {
                arg: name.to_string(),
                message: format!(
                    "the transcript's value {v:?} is not of the form Claude Code sets there; left out"
                ),
                transcript: true,
            });
            None
        }
        None => None,
    };
    let session_id = from_transcript("CLAUDE_CODE_SESSION_ID", &ctx.session_id);
    let entrypoint = from_transcript("CLAUDE_CODE_ENTRYPOINT", &ctx.entrypoint);
    let effort = from_transcript("CLAUDE_EFFORT", &ctx.effort);
    warnings.append(&mut refused);
    let mut set = |name: &str, value: OsString, source: EnvSource| {
        vars.retain(|v| v.name != name);
        vars.push(EnvVar {
            name: name.to_string(),
            value,
            source,
        });
    };
    set("CLAUDECODE", "1".into(), EnvSource::Claude);
    if let Some(dir) = &ctx.project_dir {
        set("CLAUDE_PROJECT_DIR", dir.into(), EnvSource::Claude);
    }
    for (name, value) in [session_id, entrypoint, effort].into_iter().flatten() {
        set(name, value.into(), EnvSource::Claude);
    }
    if ctx.wants_env_file()
        && let Some(f) = &ctx.env_file
    {
        set("CLAUDE_ENV_FILE", f.into(), EnvSource::Claude);
    }
    for name in BASIC_ENV {
        if let Some(v) = lookup(name) {
            set(name, v, EnvSource::Basic);
        }
    }
    for arg in requested {
        let (name, value) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(OsString::from(v))),
            None => (arg.as_str(), None),
        };
        if !valid_name(name) {
            warnings.push(EnvWarning {
                arg: arg.clone(),
                message: "not a variable name (letters, digits, _; not starting with a digit)"
                    .into(),
                transcript: false,
            });
            continue;
        }
        match value.or_else(|| lookup(name)) {
            Some(v) => set(name, v, EnvSource::Requested),
            None => warnings.push(EnvWarning {
                arg: arg.clone(),
                message: format!("{name} is not set in hookscope's environment; not passed"),
                transcript: false,
            }),
        }
    }
    (vars, warnings)
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
