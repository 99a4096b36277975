//! The decision log: one JSON line per decision of the live hook
//! (`hookscope hook`, [`super::live`]), in
//! `$XDG_STATE_HOME/hookscope/decisions/YYYY-MM-DD.jsonl` (else
//! `~/.local/state/hookscope/decisions/`), one file per UTC day, the
//! oldest days removed past [`MAX_TOTAL_BYTES`] (docs/live-hook.md#the-decision-log).
//!
//! Each line is written with `O_APPEND` in one `write`, so hooks running in
//! parallel never interleave (a regular file's append is atomic on Linux);
//! secrets are masked as everywhere else ([`crate::redact`]); an entry
//! longer than [`MAX_ENTRY_BYTES`] keeps its ids and verdict and drops its
//! output and whys.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};

use super::live::{Decision, HookAgent};

/// The total size the log folder's day files may reach, in bytes (64 MiB):
/// past it the oldest days are removed before a line is added; when today's
/// file alone is over it, the line is dropped (an error says so).
pub const MAX_TOTAL_BYTES: u64 = 64 << 20;

/// The longest entry written whole, in bytes (64 KiB).
pub const MAX_ENTRY_BYTES: usize = 64 << 10;

/// The log folder: `$HOOKSCOPE_DECISIONS_DIR` when that variable is an
/// absolute path (one folder for the hook, `find`, the TUI and MCP alike;
/// docs/live-hook.md#the-decision-log), else
/// `$XDG_STATE_HOME/hookscope/decisions` when that variable is an absolute
/// path (XDG Base Directory spec), else `~/.local/state/hookscope/decisions`;
/// `None` without a home folder.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("HOOKSCOPE_DECISIONS_DIR").map(PathBuf::from)
        && dir.is_absolute()
    {
        return Some(dir);
    }
    Some(super::live::state_dir()?.join("decisions"))
}

/// A note when `$HOOKSCOPE_DECISIONS_DIR` is set but not an absolute path,
/// so [`default_dir`] ignored it: `HOOKSCOPE_DECISIONS_DIR=logs is not an
/// absolute path; ignored, the log is read from <dir>` (`None` when the
/// variable is unset, empty or absolute). A hook runs in each session's
/// folder, so a relative folder would name a different log per project.
pub fn ignored_dir_note() -> Option<String> {
    let set = std::env::var_os("HOOKSCOPE_DECISIONS_DIR").filter(|v| !v.is_empty())?;
    if Path::new(&set).is_absolute() {
        return None;
    }
    let used = default_dir().map_or_else(
        || "nowhere (no state folder)".to_string(),
        |d| d.display().to_string(),
    );
    Some(format!(
        "HOOKSCOPE_DECISIONS_DIR={} is not an absolute path; ignored, the log is read from {used}",
        Path::new(&set).display()
    ))
}

/// Where a decision came from and what it cost, beside the [`Decision`].
#[derive(Debug, Clone)]
pub struct Context<'a> {
    /// When the payload was read.
    pub time: DateTime<Utc>,
    /// The contract answered.
    pub agent: HookAgent,
    /// The payload (`None` when it did not parse).
    pub payload: Option<&'a Value>,
    /// The rule file, absolute when it could be resolved.
    pub rules_path: &'a Path,
    /// SHA-256 of the rule file's bytes, hex (`None` when unread).
    pub rules_hash: Option<&'a str>,
    /// From reading stdin to the answer.
    pub duration: Duration,
}

/// The log entry of one decision, secrets masked: `time` (RFC 3339, ms),
/// `agent`, `session_id`, `event`, `tool_use_id`, `tool_name`, `agent_id`
/// (the subagent the event fired in, or null), `transcript_bytes` (on an
/// event that is not a call, the size of `transcript_path` when the hook
/// ran: the lines written before the event; else null), `digest`
/// (the call's tool digest, docs/tool-calls.md#the-digest, of the payload's
/// `tool_name` and `tool_input`; null without them), `transcript_path`,
/// `rules` {`path`, `sha256`}, `verdict` (`error` after
/// a failure), `matched` [{`id`, `verdict`, `why`}], `considered` [{`id`,
/// `why`}] (the rules whose event and tool matched but a condition or a
/// skip stopped: that condition's name and what it found, `program ✗
/// (programs are "rm")`), `output` {`exit_code`,
/// `stdout` (the JSON sent, or null), `stderr`}, `failure` (or null) and
/// `duration_ms` (float).
pub fn entry(decision: &Decision, cx: &Context<'_>) -> Value {
    let field = |k: &str| {
        cx.payload
            .and_then(|p| p.get(k))
            .and_then(Value::as_str)
            .map_or(Value::Null, |s| Value::String(s.to_string()))
    };
    // Whys are masked one by one; rule ids and verdicts are the rule
    // file's own words, not data, and stay as written (an id such as
    // `secret-on-the-line` would otherwise send every line through the
    // full masking, which costs milliseconds).
    let redactor = crate::redact::redactor();
    let mut counts = crate::redact::Redactions::new();
    let mut mask = |text: String| redactor.redact(&text, &mut counts).into_owned();
    let matched: Vec<Value> = decision
        .evaluation
        .iter()
        .flat_map(|e| &e.rules)
        .filter_map(|r| {
            let result = r.result.as_ref()?;
            Some(json!({
                "id": r.id,
                "verdict": crate::hooks::rules::verdict(result),
                "why": mask(r.why()),
            }))
        })
        .collect();
    // The rules that reached their conditions (event and tool matched) and
    // stopped at one: why the hook did not act, for a `none` to be read.
    // Only the condition's name and what it found are kept, not the
    // pattern the rule file wrote (`test` shows it): a rule's regex that
    // spells `token` or `key` would make every line pay for masking.
    let considered: Vec<Value> = decision
        .evaluation
        .iter()
        .flat_map(|e| &e.rules)
        .filter(|r| r.result.is_none())
        .filter_map(|r| {
            let last = r.steps.last()?;
            let passed_tool =
                !last.ok && !last.check.starts_with("event ") && !last.check.starts_with("tool ");
            passed_tool.then(|| {
                let words = if last.check.starts_with("skip_if ") {
                    2
                } else {
                    1
                };
                let name: Vec<&str> = last.check.split(' ').take(words).collect();
                let why = format!("{} ✗ {}", name.join(" "), last.detail);
                json!({"id": r.id, "why": mask(why)})
            })
        })
        .collect();
    let stdout = if decision.stdout.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(decision.stdout.trim_end())
            .unwrap_or_else(|_| Value::String(decision.stdout.clone()))
    };
    // What the call was, beside its ids: a payload replayed by hand
    // (`hookscope payload … | hookscope hook`) carries another call's ids.
    let digest = cx
        .payload
        .and_then(|p| Some((p.get("tool_name")?.as_str()?, p.get("tool_input")?)))
        .and_then(|(name, input)| crate::tools::tool_digest(name, Some(input)).ok())
        .map_or(Value::Null, Value::String);
    // Where an event that is not a call happened: the transcript's size
    // then (its lines so far), which places the decision among the
    // session's lines without a guess (docs/live-hook.md#the-decision-log).
    let transcript_bytes = cx
        .payload
        .filter(|p| p.get("tool_use_id").is_none())
        .and_then(|p| p.get("transcript_path")?.as_str())
        .filter(|p| !p.is_empty())
        .and_then(|p| std::fs::metadata(p).ok())
        .filter(std::fs::Metadata::is_file)
        .map_or(Value::Null, |m| json!(m.len()));
    // The rest is masked whole; the rule lists, masked above, go in after
    // (their places are kept by the placeholders).
    let value = json!({
        "time": cx.time.to_rfc3339_opts(SecondsFormat::Millis, true),
        "agent": cx.agent.as_str(),
        "session_id": field("session_id"),
        "event": decision.event.clone().map_or(Value::Null, Value::String),
        "tool_use_id": field("tool_use_id"),
        "tool_name": field("tool_name"),
        "agent_id": field("agent_id"),
        "digest": digest,
        "transcript_path": field("transcript_path"),
        "transcript_bytes": transcript_bytes,
        "rules": {
            "path": cx.rules_path.to_string_lossy(),
            "sha256": cx.rules_hash,
        },
        "verdict": decision.verdict(),
        "matched": Value::Null,
        "considered": Value::Null,
        "output": {
            "exit_code": decision.exit_code,
            "stdout": stdout,
            "stderr": decision.stderr,
        },
        "failure": decision.failure,
        "duration_ms": (cx.duration.as_secs_f64() * 1e6).round() / 1e3,
    });
    let mut masked = redactor.redact_value(&value, &mut counts);
    masked["matched"] = Value::Array(matched);
    masked["considered"] = Value::Array(considered);
    masked
}

/// The entry as one line (JSON and `\n`): whole when it fits in
/// [`MAX_ENTRY_BYTES`], else without `matched` whys, `considered` and
/// `output` texts (`"truncated": true`).
pub fn line_of(entry: &Value) -> Vec<u8> {
    let mut line = entry.to_string().into_bytes();
    if line.len() > MAX_ENTRY_BYTES {
        let mut short = entry.clone();
        if let Some(m) = short.get_mut("matched").and_then(Value::as_array_mut) {
            for r in m {
                if let Some(o) = r.as_object_mut() {
                    o.remove("why");
                }
            }
        }
        if let Some(o) = short.as_object_mut() {
            o.remove("considered");
        }
        if let Some(o) = short.get_mut("output").and_then(Value::as_object_mut) {
            o.insert("stdout".into(), Value::Null);
            o.insert("stderr".into(), Value::String(String::new()));
        }
        if let Some(o) = short.as_object_mut() {
            o.insert("transcript_path".into(), Value::Null);
            o.insert("truncated".into(), Value::Bool(true));
        }
        line = short.to_string().into_bytes();
        line.truncate(MAX_ENTRY_BYTES);
    }
    line.push(b'\n');
    line
}

/// The day file of `time` in `dir`: `YYYY-MM-DD.jsonl` (UTC).
pub fn day_file(dir: &Path, time: DateTime<Utc>) -> PathBuf {
    dir.join(format!("{}.jsonl", time.format("%Y-%m-%d")))
}

/// Appends `line` to the day file of `time` in `dir` (created, with its
/// folders, mode 0600/0700), after removing the oldest day files while the
/// folder's `*.jsonl` files total more than `max_total` bytes.
///
/// # Errors
/// The folder or file cannot be created or written (a read-only state
/// folder); the day file is a symbolic link or not a regular file; today's
/// file alone is over `max_total`; a short write.
pub fn append(dir: &Path, time: DateTime<Utc>, line: &[u8], max_total: u64) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind};
    create_private_dir(dir)?;
    let today = day_file(dir, time);
    prune(dir, &today, max_total.saturating_sub(line.len() as u64))?;
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let mut file = options.open(&today)?;
    if !file.metadata()?.is_file() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("{} is not a regular file", today.display()),
        ));
    }
    // One write: appends of one write each never interleave.
    let n = file.write(line)?;
    if n != line.len() {
        return Err(Error::new(
            ErrorKind::WriteZero,
            format!(
                "short write to {} ({n} of {} bytes)",
                today.display(),
                line.len()
            ),
        ));
    }
    Ok(())
}

/// Creates `dir` and its parents, owner-only on Unix.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

/// Removes the oldest `YYYY-MM-DD.jsonl` files of `dir` (by name) while the
/// day files total more than `budget` bytes; never `today`.
///
/// # Errors
/// Listing fails, or `today` alone is over `budget`.
fn prune(dir: &Path, today: &Path, budget: u64) -> std::io::Result<()> {
    let mut days: Vec<(PathBuf, u64)> = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !is_day_file_name(name) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_file() {
            days.push((entry.path(), meta.len()));
        }
    }
    days.sort();
    let mut total: u64 = days.iter().map(|(_, n)| n).sum();
    for (path, len) in &days {
        if total <= budget {
            return Ok(());
        }
        if path == today {
            continue;
        }
        if std::fs::remove_file(path).is_ok() {
            total -= len;
        }
    }
    if total > budget {
        return Err(std::io::Error::other(format!(
            "the decision log is over its {} MiB cap ({} holds {} bytes); line dropped",
            MAX_TOTAL_BYTES >> 20,
            today.display(),
            total
        )));
    }
    Ok(())
}

/// Whether `name` is `YYYY-MM-DD.jsonl`.
fn is_day_file_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".jsonl") else {
        return false;
    };
    stem.len() == 10
        && stem.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        })
}

/// The entries of the day files in `dir`, oldest day first, in file order;
/// lines that are not JSON objects are skipped. Each file is read only when
/// regular, up to [`MAX_TOTAL_BYTES`].
///
/// # Errors
/// The folder cannot be listed (a missing folder is no error: no entries).
pub fn read_all(dir: &Path) -> std::io::Result<Vec<Value>> {
    read_all_counted(dir).map(|(all, _)| all)
}

/// What [`read_all_counted`] left out of the log: lines that are not a
/// JSON object (a write cut short, an edit by hand), and day files that
/// could not be read (not a regular file, over the size cap, unreadable).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Non-empty lines that are not a JSON object.
    pub lines: usize,
    /// Day files not read.
    pub files: usize,
}

/// [`read_all`], with what it skipped counted, so a reader can say so.
///
/// # Errors
/// As [`read_all`].
pub fn read_all_counted(dir: &Path) -> std::io::Result<(Vec<Value>, Skipped)> {
    let mut skipped = Skipped::default();
    let listing = match std::fs::read_dir(dir) {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), skipped)),
        Err(e) => return Err(e),
    };
    let mut days: Vec<PathBuf> = listing
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_str().is_some_and(is_day_file_name))
        .map(|e| e.path())
        .collect();
    days.sort();
    let mut out = Vec::new();
    for day in days {
        let Ok(bytes) = crate::transcript::fsread::read_capped(&day, MAX_TOTAL_BYTES) else {
            skipped.files += 1;
            continue;
        };
        for line in bytes.split(|&b| b == b'\n') {
            match serde_json::from_slice::<Value>(line) {
                Ok(v @ Value::Object(_)) => out.push(v),
                _ if line.iter().all(u8::is_ascii_whitespace) => {}
                _ => skipped.lines += 1,
            }
        }
    }
    Ok((out, skipped))
}

/// One rule that matched in a [`Logged`] decision.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LoggedRule {
    /// The rule's `id`.
    pub id: String,
    /// Its verdict (`block`, `warn`, `context`, `allow`, `rewrite`).
    pub verdict: String,
    /// Its why, as the live hook wrote it (empty in a truncated entry).
    pub why: String,
}

/// Whether the rule file a [`Logged`] decision names still has the content
/// it had then (its SHA-256 now against the logged one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RulesNow {
    /// The same bytes: a replay today decides as the hook did.
    Unchanged,
    /// Other bytes: the rule set changed since.
    Changed,
    /// The file cannot be read now.
    Unknown,
    /// The entry has no hash: the hook failed before it read the file
    /// (a missing or refused rule file, a payload that did not parse).
    NotRead,
}

/// A decision read back from the log ([`entry`]'s fields, typed): what
/// the TUI and `hooks --decisions` show beside the call.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Logged {
    /// `time` as written (RFC 3339, UTC).
    pub time: String,
    /// `session_id` (empty when the payload had none).
    pub session_id: String,
    /// `event`, or empty after a payload that did not parse.
    pub event: String,
    /// `tool_use_id`, when the payload had one.
    pub tool_use_id: Option<String>,
    /// `tool_name`, when the payload had one.
    pub tool_name: Option<String>,
    /// `agent_id`: the subagent the event fired in (or, on SubagentStart,
    /// the one it starts); `None` on the main thread and in older entries.
    pub agent_id: Option<String>,
    /// `transcript_bytes`: on an event that is not a call, the size of the
    /// transcript when the hook ran, in bytes (`None` on a call, when it
    /// could not be read, and in older entries).
    pub transcript_bytes: Option<u64>,
    /// `transcript_path` as the payload gave it, when it was a string.
    pub transcript_path: Option<String>,
    /// `agent` (`claude-code`, `droid`, `codex`; empty when not written).
    pub agent: String,
    /// `digest`: the tool digest of the payload's call, when logged.
    pub digest: Option<String>,
    /// The combined verdict, `none`, or `error` after a failure.
    pub verdict: String,
    /// The rule file as given to the hook.
    pub rules_path: String,
    /// Its SHA-256 then, hex.
    pub rules_sha256: Option<String>,
    /// Whether the file still has those bytes ([`Logged::check_rules`];
    /// [`RulesNow::Unknown`] until checked).
    pub rules_now: RulesNow,
    /// The rules that matched.
    pub matched: Vec<LoggedRule>,
    /// The rules whose event and tool matched but that stopped at a
    /// condition or a skip, with their whys (`verdict` empty).
    pub considered: Vec<LoggedRule>,
    /// The exit code sent.
    pub exit_code: Option<i64>,
    /// The JSON sent on stdout (a rewrite's `updatedInput` is in it), or
    /// `None` when nothing was printed.
    pub stdout: Option<Value>,
    /// What was written on stderr (after a failure: what went wrong and
    /// whether the call was then allowed or blocked).
    pub stderr: String,
    /// What went wrong, after a failure.
    pub failure: Option<String>,
    /// From reading stdin to the answer, in ms.
    pub duration_ms: Option<f64>,
}

impl Logged {
    /// The typed form of one log line; `None` when it is not an entry
    /// (no `time` or `verdict`).
    pub fn of(v: &Value) -> Option<Logged> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        // `matched` items carry a verdict; `considered` ones do not.
        let rules_at = |key: &str, with_verdict: bool| -> Vec<LoggedRule> {
            v.get(key)
                .and_then(Value::as_array)
                .map(|m| {
                    m.iter()
                        .filter_map(|r| {
                            let verdict = match with_verdict {
                                true => r.get("verdict")?.as_str()?.to_string(),
                                false => String::new(),
                            };
                            Some(LoggedRule {
                                id: r.get("id")?.as_str()?.to_string(),
                                verdict,
                                why: r
                                    .get("why")
                                    .and_then(Value::as_str)
                                    .unwrap_or("")
                                    .to_string(),
                            })
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let (matched, considered) = (rules_at("matched", true), rules_at("considered", false));
        let rules = v.get("rules");
        Some(Logged {
            time: s("time")?,
            session_id: s("session_id").unwrap_or_default(),
            event: s("event").unwrap_or_default(),
            tool_use_id: s("tool_use_id"),
            tool_name: s("tool_name"),
            agent_id: s("agent_id"),
            transcript_bytes: v.get("transcript_bytes").and_then(Value::as_u64),
            transcript_path: s("transcript_path"),
            agent: s("agent").unwrap_or_default(),
            digest: s("digest"),
            verdict: s("verdict")?,
            rules_path: rules
                .and_then(|r| r.get("path"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            rules_sha256: rules
                .and_then(|r| r.get("sha256"))
                .and_then(Value::as_str)
                .map(str::to_string),
            rules_now: RulesNow::Unknown,
            matched,
            considered,
            exit_code: v
                .get("output")
                .and_then(|o| o.get("exit_code"))
                .and_then(Value::as_i64),
            stdout: v
                .get("output")
                .and_then(|o| o.get("stdout"))
                .filter(|o| !o.is_null())
                .cloned(),
            stderr: v
                .get("output")
                .and_then(|o| o.get("stderr"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            failure: s("failure"),
            duration_ms: v.get("duration_ms").and_then(Value::as_f64),
        })
    }

    /// Whether this decision can be on the call whose tool digest is
    /// `call_digest` (its ids already matched): the ids alone cannot tell a
    /// live decision from a payload replayed by hand with an old call's
    /// ids, so a logged digest must equal the call's. Accepted when either
    /// digest is unknown (an entry from before digests were logged, an
    /// input that cannot be digested) and for Codex, whose hook payload
    /// names tools otherwise than its rollout (`Bash` for `exec_command`).
    ///
    /// Nor can a replayed payload with the same input: a decision logged
    /// outside [`live_window`] around the call's time (`called`, the
    /// `tool_use` line's timestamp) is not the live hook's on that call.
    pub fn is_on(&self, call_digest: Option<&str>, called: Option<DateTime<Utc>>) -> bool {
        digest_agrees(self.digest.as_deref(), &self.agent, call_digest) && self.logged_near(called)
    }

    /// Whether this decision was logged within [`live_window`] of `at` (a
    /// call's time, or the turn an event that is not a call is placed in);
    /// either time unknown: it was.
    pub fn logged_near(&self, at: Option<DateTime<Utc>>) -> bool {
        in_live_window(parse_time(&self.time), at)
    }

    /// Sets [`Logged::rules_now`] by hashing the rule file now (read as
    /// the hook reads it: a regular file of at most
    /// [`crate::hooks::rules::MAX_RULE_FILE_BYTES`]); `hashes` caches each
    /// path's answer across entries.
    pub fn check_rules(&mut self, hashes: &mut std::collections::HashMap<String, Option<String>>) {
        let now = hashes
            .entry(self.rules_path.clone())
            .or_insert_with(|| {
                let cap = crate::hooks::rules::MAX_RULE_FILE_BYTES;
                crate::transcript::fsread::read_capped(Path::new(&self.rules_path), cap)
                    .ok()
                    .filter(|b| b.len() as u64 <= cap)
                    .map(|b| super::live::sha256_hex(&b))
            })
            .clone();
        self.rules_now = match (&self.rules_sha256, now) {
            (Some(then), Some(now)) if *then == now => RulesNow::Unchanged,
            (Some(_), Some(_)) => RulesNow::Changed,
            (None, _) => RulesNow::NotRead,
            (Some(_), None) => RulesNow::Unknown,
        };
    }
}

/// The logged decisions of session `session_id` in `dir`, oldest first,
/// each with [`Logged::rules_now`] checked (a missing folder: none).
///
/// # Errors
/// As [`read_all`].
pub fn for_session(dir: &Path, session_id: &str) -> std::io::Result<Vec<Logged>> {
    let mut hashes = std::collections::HashMap::new();
    Ok(cached_entries(dir)?
        .iter()
        .filter(|v| v.get("session_id").and_then(Value::as_str) == Some(session_id))
        .filter_map(Logged::of)
        .map(|mut l| {
            l.check_rules(&mut hashes);
            l
        })
        .collect())
}

/// [`read_all`] of `dir`, kept while its day files keep their names, sizes
/// and mtimes: the TUI asks on every open and while a session grows, the
/// Calls view while its line is typed; each asks again for a folder
/// listing only.
///
/// # Errors
/// As [`read_all`].
fn cached_entries(dir: &Path) -> std::io::Result<std::sync::Arc<Vec<Value>>> {
    use std::sync::{Arc, Mutex};
    type Stamp = Vec<(PathBuf, u64, Option<std::time::SystemTime>)>;
    type Cached = (PathBuf, Stamp, Arc<Vec<Value>>);
    static CACHE: Mutex<Option<Cached>> = Mutex::new(None);
    let stamp: Stamp = match std::fs::read_dir(dir) {
        Ok(listing) => {
            let mut v: Stamp = listing
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_str().is_some_and(is_day_file_name))
                .filter_map(|e| {
                    let m = e.metadata().ok()?;
                    Some((e.path(), m.len(), m.modified().ok()))
                })
                .collect();
            v.sort();
            v
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    let cached = CACHE
        .lock()
        .ok()
        .and_then(|c| c.clone())
        .filter(|(d, s, _)| d == dir && *s == stamp)
        .map(|(_, _, all)| all);
    if let Some(all) = cached {
        return Ok(all);
    }
    let all = Arc::new(read_all(dir)?);
    if let Ok(mut c) = CACHE.lock() {
        *c = Some((dir.to_path_buf(), stamp, Arc::clone(&all)));
    }
    Ok(all)
}

/// How long before its call (clock skew) and after it a decision logged
/// by `hookscope hook` can be the live hook's on that call: 5 minutes
/// before, 24 hours after (a PostToolUse fires when the tool is done, and
/// a subagent's call can run for hours). A decision logged outside it
/// came from a payload replayed by hand into the hook (`payload | hook`)
/// with the call's ids and input (docs/live-hook.md#the-decision-log).
pub fn live_window() -> (chrono::TimeDelta, chrono::TimeDelta) {
    (chrono::TimeDelta::minutes(5), chrono::TimeDelta::hours(24))
}

/// Whether a decision logged at `logged` can be live on a call made at
/// `called` ([`live_window`]); either time unknown: it can.
fn in_live_window(logged: Option<DateTime<Utc>>, called: Option<DateTime<Utc>>) -> bool {
    let (Some(logged), Some(called)) = (logged, called) else {
        return true;
    };
    let (before, after) = live_window();
    logged >= called - before && logged <= called + after
}

/// An entry's `time` (RFC 3339), in UTC.
fn parse_time(time: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(time)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// [`Logged::is_on`]'s test: a logged `digest` of an entry by `agent`
/// agrees with the call's unless both are known and differ (Codex's
/// always agrees).
fn digest_agrees(logged: Option<&str>, agent: &str, call: Option<&str>) -> bool {
    match (logged, call) {
        (Some(logged), Some(call)) => logged == call || agent == "codex",
        _ => true,
    }
}

/// One logged decision on a call, for the `find` join: its [`brief`]
/// form and what [`Logged::is_on`] checks.
#[derive(Debug, Clone, PartialEq)]
pub struct DecidedCall {
    /// The decision as a `find` record's `decided` item ([`brief`]).
    pub brief: Value,
    /// The entry's `digest`, `agent` and `time`.
    digest: Option<String>,
    agent: String,
    time: Option<DateTime<Utc>>,
}

impl DecidedCall {
    /// [`Logged::is_on`] of the entry.
    pub fn is_on(&self, call_digest: Option<&str>, called: Option<DateTime<Utc>>) -> bool {
        digest_agrees(self.digest.as_deref(), &self.agent, call_digest)
            && in_live_window(self.time, called)
    }
}

/// Decided calls by `(session_id, tool_use_id)`, each with its decisions
/// in log order.
pub type DecidedCalls = std::collections::BTreeMap<(String, String), Vec<DecidedCall>>;

/// The [`brief`] decisions of `calls` on the call `tool_use_id` of session
/// `session_id` made at `called`, those [`Logged::is_on`] keeps for its
/// digest and time; `digest` is asked only when the ids have a decision.
pub fn decisions_on(
    calls: &DecidedCalls,
    session_id: &str,
    tool_use_id: &str,
    called: Option<DateTime<Utc>>,
    digest: impl FnOnce() -> Option<String>,
) -> Vec<Value> {
    let Some(found) = calls.get(&(session_id.to_string(), tool_use_id.to_string())) else {
        return Vec::new();
    };
    let digest = digest();
    found
        .iter()
        .filter(|d| d.is_on(digest.as_deref(), called))
        .map(|d| d.brief.clone())
        .collect()
}

/// The calls `hookscope hook` logged a decision on in `dir`: those where
/// rule `rule` matched, or for `None` every call whose answer was not
/// `none` (a rule acted, or the hook failed: the calls the TUI marks `§`);
/// each with those decisions.
///
/// # Errors
/// As [`read_all`].
pub fn decided_calls(
    dir: &Path,
    rule: Option<&str>,
) -> std::io::Result<std::sync::Arc<DecidedCalls>> {
    let mut calls = DecidedCalls::new();
    for l in cached_entries(dir)?
        .iter()
        .filter_map(Logged::of)
        .filter(|l| match rule {
            Some(r) => l.matched.iter().any(|m| m.id == r),
            None => l.verdict != "none",
        })
    {
        let brief = brief(&l);
        if let Some(id) = l.tool_use_id {
            calls
                .entry((l.session_id, id))
                .or_default()
                .push(DecidedCall {
                    brief,
                    time: parse_time(&l.time),
                    digest: l.digest,
                    agent: l.agent,
                });
        }
    }
    Ok(std::sync::Arc::new(calls))
}

/// A decision in short, as a `find` record's `decided` item:
/// `{"time", "verdict", "rules": [ids of the matched rules]}`.
pub fn brief(l: &Logged) -> Value {
    serde_json::json!({
        "time": l.time,
        "verdict": l.verdict,
        "rules": l.matched.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
    })
}

/// The ids of the rules any decision in `dir` names as matched, sorted.
///
/// # Errors
/// As [`read_all`].
pub fn rule_ids(dir: &Path) -> std::io::Result<std::collections::BTreeSet<String>> {
    Ok(cached_entries(dir)?
        .iter()
        .filter_map(Logged::of)
        .flat_map(|l| l.matched.into_iter().map(|m| m.id))
        .collect())
}

/// The events that are not calls (no `tool_use_id`: Stop, SubagentStop,
/// UserPromptSubmit, …) on which rule `rule` matched in the log in `dir`,
/// each with how many times, by event name: what `find --decided-by`
/// cannot show as records (docs/live-hook.md#the-decision-log).
///
/// # Errors
/// As [`read_all`].
pub fn events_decided_by(
    dir: &Path,
    rule: &str,
) -> std::io::Result<std::collections::BTreeMap<String, usize>> {
    let mut out = std::collections::BTreeMap::new();
    for l in cached_entries(dir)?.iter().filter_map(Logged::of) {
        if l.tool_use_id.is_none() && l.matched.iter().any(|m| m.id == rule) {
            *out.entry(l.event).or_insert(0) += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_file_names_are_recognised() {
        assert!(is_day_file_name("2026-12-05.jsonl"));
        assert!(!is_day_file_name("2026-12-5.jsonl"));
        assert!(!is_day_file_name("notes.jsonl"));
        assert!(!is_day_file_name("2026-12-05.json"));
    }

    /// Lines that are not entries are skipped, a FIFO in a day file's
    /// place is not read (no hang), a symbolic link in today's file's place
    /// is refused.
    #[cfg(unix)]
    #[test]
    fn hostile_log_files_are_skipped_or_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("2026-12-01.jsonl"),
            "garbage\n[1]\n{\"time\":\"t\",\"verdict\":\"block\",\"matched\":[{\"id\":1}]}\n{\"no\":\"time\"}\n",
        )
        .expect("w");
        let fifo = std::ffi::CString::new(
            dir.path()
                .join("2026-12-02.jsonl")
                .to_string_lossy()
                .as_bytes(),
        )
        .expect("path");
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let (all, skipped) = read_all_counted(dir.path()).expect("read");
        assert_eq!(all.len(), 2, "{all:?}");
        // `garbage` and `[1]` are not entries; the FIFO is not read.
        assert_eq!(skipped, Skipped { lines: 2, files: 1 });
        let typed: Vec<Logged> = all.iter().filter_map(Logged::of).collect();
        assert_eq!(typed.len(), 1);
        assert_eq!(typed[0].verdict, "block");
        assert!(
            typed[0].matched.is_empty(),
            "a rule without a string id is skipped"
        );
        let now = DateTime::parse_from_rfc3339("2026-12-03T10:00:00Z")
            .expect("time")
            .with_timezone(&Utc);
        let target = dir.path().join("elsewhere");
        std::os::unix::fs::symlink(&target, day_file(dir.path(), now)).expect("symlink");
        assert!(append(dir.path(), now, b"{}\n", MAX_TOTAL_BYTES).is_err());
        assert!(!target.exists(), "nothing written through the link");
    }

    /// Past the cap the oldest day goes first; today's file is kept.
    #[test]
    fn the_oldest_days_are_removed_past_the_cap() {
        let dir = tempfile::tempdir().expect("tempdir");
        for day in ["2026-12-01", "2026-12-02", "2026-12-03"] {
            std::fs::write(dir.path().join(format!("{day}.jsonl")), vec![b'x'; 100]).expect("w");
        }
        let now = DateTime::parse_from_rfc3339("2026-12-04T10:00:00Z")
            .expect("time")
            .with_timezone(&Utc);
        append(dir.path(), now, b"{}\n", 250).expect("append");
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .expect("ls")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["2026-12-02.jsonl", "2026-12-03.jsonl", "2026-12-04.jsonl"]
        );
    }
}
