//! The live hook: one payload an agent sent on stdin, evaluated by the
//! same rule-set evaluator as `replay` and `test` ([`RuleSet::evaluate_at`]),
//! answered in the agent's hook contract (docs/live-hook.md).
//!
//! - [`decide`]: the answer to one payload: the stdout JSON, exit code and
//!   stderr that [`RuleSet::evaluate_at`]'s [`HookOutput`] says, with the
//!   evaluation kept for the decision log ([`super::decisions`]).
//! - [`failed`]: the answer when anything goes wrong (the rule file does not
//!   load, the payload does not parse, a time budget runs out): the
//!   configured [`OnError`] mode, never a half-written stdout.
//! - [`history_of`]: the session history a rule with `prompt`,
//!   `touched_file` or `ran_command` reads, from the payload's
//!   `transcript_path`, read only when a rule on the payload's event needs
//!   it.
//!
//! Claude Code and Factory Droid are answered alike (Droid reads Claude
//! Code's output JSON); Codex in its own contract ([`decide_as`],
//! docs/live-hook.md#agents).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::hooks::contract::Version;
use crate::hooks::events::{EventName, Payload};
use crate::hooks::replay::{HistoryIndex, Wanted};
use crate::hooks::result::HookOutput;
use crate::hooks::rules::{Evaluation, History, RuleSet};
use crate::json_line::LineFixes;

/// The largest payload read from stdin, in bytes (64 MiB): a Write of a
/// big file is carried whole; a longer stdin is a failure ([`OnError`]).
pub const MAX_PAYLOAD_BYTES: u64 = 64 << 20;

/// The SHA-256 of `bytes`, lowercase hex (the decision log's
/// `rules.sha256`).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What the hook answers when it cannot decide (docs/live-hook.md#failures).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnError {
    /// Exit 0 with nothing on stdout: the agent goes on as if the hook were
    /// not there (Claude Code itself fails open on a hook error).
    #[default]
    Allow,
    /// Exit 2 with the reason on stderr: the contract's blocking exit code
    /// (it blocks PreToolUse, UserPromptSubmit, Stop…; on events exit 2
    /// cannot block, the agent shows the reason).
    Block,
}

impl OnError {
    /// `allow` or `block`, as `--on-error` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            OnError::Allow => "allow",
            OnError::Block => "block",
        }
    }
}

/// Which agent's hook contract the answer follows (`--agent`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HookAgent {
    /// Claude Code (docs/contract.md).
    #[default]
    ClaudeCode,
    /// Factory Droid: Claude Code's output JSON and exit codes, Droid's
    /// tool names (a rule's `tool = "Bash"` also matches `Execute`).
    Droid,
    /// Codex CLI: the same evaluation, answered as Codex reads hook
    /// output ([`crate::hooks::codex::answer`]).
    Codex,
}

impl HookAgent {
    /// `claude-code`, `droid` or `codex`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookAgent::ClaudeCode => "claude-code",
            HookAgent::Droid => "droid",
            HookAgent::Codex => "codex",
        }
    }

    /// The agent named `name` (`claude-code`/`claude`, `droid`/`factory`,
    /// `codex`); `None` otherwise.
    pub fn from_name(name: &str) -> Option<HookAgent> {
        match name {
            "claude-code" | "claude" => Some(HookAgent::ClaudeCode),
            "droid" | "factory" | "factory-droid" => Some(HookAgent::Droid),
            "codex" => Some(HookAgent::Codex),
            _ => None,
        }
    }
}

/// The hook's answer to one payload: what goes to stdout, stderr and the
/// exit status, and how it was reached.
#[derive(Debug, Clone)]
pub struct Decision {
    /// The event (`hook_event_name`), when the payload named one.
    pub event: Option<String>,
    /// The evaluation (`None` after a failure).
    pub evaluation: Option<Evaluation>,
    /// The whole of stdout: one JSON object and a newline, or empty.
    pub stdout: String,
    /// The exit status.
    pub exit_code: i32,
    /// The whole of stderr (one line after a failure), or empty.
    pub stderr: String,
    /// Set after a failure: what went wrong, in one line.
    pub failure: Option<String>,
}

impl Decision {
    /// The combined verdict (`block`, `warn`, `context`, `allow`,
    /// `rewrite`, `none`), or `error` after a failure.
    pub fn verdict(&self) -> &'static str {
        self.evaluation
            .as_ref()
            .map_or("error", Evaluation::verdict)
    }
}

/// The answer of `rules` to `payload` with the session `history` before it:
/// [`RuleSet::evaluate_at`] with the newest contract, its [`HookOutput`]
/// written as the contract expects (the stdout JSON on one line).
pub fn decide(rules: &RuleSet, payload: &Value, history: &History) -> Decision {
    decide_as(HookAgent::ClaudeCode, rules, payload, history)
}

/// [`decide`] answered in `agent`'s contract: Claude Code's and Droid's
/// output as [`decide`] writes it; Codex's from the same combined result
/// by [`crate::hooks::codex::answer::hook_output`], with the outcome as
/// Codex's reader takes it ([`crate::hooks::codex::reduce::read_answer`]).
pub fn decide_as(
    agent: HookAgent,
    rules: &RuleSet,
    payload: &Value,
    history: &History,
) -> Decision {
    let mut evaluation = rules.evaluate_at(payload, history, &Version::latest());
    if agent == HookAgent::Codex {
        crate::hooks::codex::answer::answer_in_codex(&mut evaluation);
    }
    let HookOutput {
        exit_code,
        stdout,
        stderr,
        ..
    } = &evaluation.output;
    let mut stderr = stderr.clone().unwrap_or_default();
    // An event this hookscope does not know (a misspelling, or one newer
    // than its contract): no rule named it, and the answer says so.
    if evaluation.event.known().is_none() && evaluation.verdict() == "none" {
        stderr.push_str(&format!(
            "hookscope hook: hook_event_name {:?} is not an event of the hook contract this hookscope knows (docs/contract.md); no rule applied\n",
            one_line(evaluation.event.as_str())
        ));
    }
    Decision {
        event: Some(evaluation.event.as_str().to_string()),
        stdout: stdout
            .as_ref()
            .map(|v| format!("{v}\n"))
            .unwrap_or_default(),
        exit_code: *exit_code,
        stderr,
        failure: None,
        evaluation: Some(evaluation),
    }
}

/// Withholds an approving answer (`permissionDecision: "allow"`, a
/// rewrite's `updatedInput`, `decision.behavior: "allow"`) on a payload
/// that had to be repaired to be read (invalid UTF-8, a lone surrogate
/// escape: `fixes` from [`parse_payload`]): the rules saw U+FFFD where the agent has
/// other bytes, so an approval would cover a text nobody checked, and a
/// rewrite would replace the model's text with the repaired one. The
/// answer becomes nothing on stdout and exit 0 (the agent asks as usual),
/// with one line on stderr; blocks and context are kept.
/// Returns whether it withheld.
pub fn withhold_approval(decision: &mut Decision, fixes: &LineFixes) -> bool {
    let approves = decision.stdout.contains(r#""permissionDecision":"allow""#)
        || decision.stdout.contains(r#""behavior":"allow""#);
    let repairs = fixes.messages().join(" and ");
    if repairs.is_empty() || !approves || decision.exit_code != 0 {
        return false;
    }
    decision.stdout.clear();
    decision.stderr.push_str(&format!(
        "hookscope hook: the payload was read with {repairs}, so the {} answer is withheld: the rules did not see the call's exact text\n",
        decision.verdict()
    ));
    true
}

/// The rule file at `path` as the live hook loads it: a regular file of at
/// most [`crate::hooks::rules::MAX_RULE_FILE_BYTES`], without its test
/// cases ([`RuleSet::rules_from_bytes`]), with at least one rule (an empty
/// or truncated file would turn the protection off without a word).
/// Returns the SHA-256 of its bytes when they were read, and the rule set
/// or why it cannot be used (one line: `cannot read rule file …`,
/// `rule file … is over 16 MiB`, `rule file refused: <first error> (and N
/// more)`, `rule file … has no rules`). The hook and the
/// `rule-set-unusable` lint both load through it.
pub fn load_rules(path: &Path) -> (Option<String>, Result<RuleSet, String>) {
    load_rules_cached(path, None)
}

/// Where [`load_rules_cached`] keeps its cache: `rules/` in
/// [`state_dir`].
pub fn rule_cache_dir() -> Option<PathBuf> {
    state_dir().map(|d| d.join("rules"))
}

/// What a cache entry holds: the version that loaded the text whole (a
/// newer hookscope may check more, so it loads the text whole again).
fn rule_cache_stamp() -> String {
    format!("hookscope {}\n", env!("CARGO_PKG_VERSION"))
}

/// [`load_rules`] with the live hook's cache (docs/live-hook.md#the-rule-cache):
/// `cache` holds one small file per rule-file content that loaded whole
/// before, named by its SHA-256. A text found there loads with its
/// regexes deferred ([`RuleSet::rules_from_bytes_deferred`]: each compiles
/// on first use), so a call compiles only what its payload reaches; any
/// other text loads whole and, when it loads, is added. A cache that
/// cannot be read or written only costs the whole load; an entry that is
/// not a small regular file with this version's stamp is not trusted.
pub fn load_rules_cached(
    path: &Path,
    cache: Option<&Path>,
) -> (Option<String>, Result<RuleSet, String>) {
    let cap = crate::hooks::rules::MAX_RULE_FILE_BYTES;
    let text = match crate::transcript::fsread::read_capped(path, cap) {
        Ok(t) if t.len() as u64 <= cap => t,
        Ok(_) => {
            let why = format!("rule file {} is over {} MiB", path.display(), cap >> 20);
            return (None, Err(why));
        }
        Err(e) => {
            return (
                None,
                Err(format!("cannot read rule file {}: {e}", path.display())),
            );
        }
    };
    let hash = sha256_hex(&text);
    let entry = cache.map(|dir| dir.join(&hash));
    let seen = entry.as_deref().is_some_and(|e| {
        // A regular file (not a FIFO or a link elsewhere), read capped.
        std::fs::symlink_metadata(e).is_ok_and(|m| m.is_file() && m.len() < 256)
            && std::fs::read(e).is_ok_and(|b| b == rule_cache_stamp().as_bytes())
    });
    let parsed = if seen {
        RuleSet::rules_from_bytes_deferred(text, path)
    } else {
        RuleSet::rules_from_bytes(text, path)
    };
    if let (false, Some(entry), Ok(set)) = (seen, entry.as_deref(), &parsed)
        && !set.rules.is_empty()
    {
        remember_rules(entry);
    }
    let loaded = match parsed {
        Ok(set) if set.rules.is_empty() => {
            Err(format!("rule file {} has no rules", path.display()))
        }
        Ok(set) => Ok(set),
        Err(e) => {
            let first = e
                .errors
                .first()
                .map_or_else(|| "refused".to_string(), ToString::to_string);
            let more = match e.errors.len() {
                0 | 1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            Err(format!("rule file refused: {first}{more}"))
        }
    };
    (Some(hash), loaded)
}

/// Adds a cache entry for [`load_rules_cached`]: written beside it and
/// renamed in, so a reader sees the whole stamp or none; errors are
/// dropped (the cache only saves time).
fn remember_rules(entry: &Path) {
    let Some(dir) = entry.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = entry.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, rule_cache_stamp()).is_ok() && std::fs::rename(&tmp, entry).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// `text` on one line: control characters (newlines, escapes) as spaces.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The answer when the hook cannot decide: nothing on stdout; with
/// [`OnError::Allow`] exit 0, with [`OnError::Block`] exit 2; `why` (one
/// line, control characters replaced) on stderr either way, prefixed
/// `hookscope hook:` and followed by what the mode did.
pub fn failed(mode: OnError, event: Option<&str>, why: &str) -> Decision {
    let then = match mode {
        OnError::Allow => "allowed (--on-error allow)",
        OnError::Block => "blocked (--on-error block)",
    };
    failed_then(mode, event, why, then)
}

/// [`failed`] with `then` (what the mode did) said after `why`.
fn failed_then(mode: OnError, event: Option<&str>, why: &str, then: &str) -> Decision {
    let why = one_line(why);
    Decision {
        event: event.map(str::to_string),
        evaluation: None,
        stdout: String::new(),
        exit_code: match mode {
            OnError::Allow => 0,
            OnError::Block => 2,
        },
        stderr: format!("hookscope hook: {why}; {then}\n"),
        failure: Some(why),
    }
}

/// [`failed`] for `payload` (when it parsed): its event named, and a
/// Stop or SubagentStop with `stop_hook_active: true` answered as
/// [`OnError::Allow`] whatever `mode` says. The agent is going on because a
/// Stop hook blocked already; blocking again on an error that persists would
/// never let it stop.
pub fn failed_on(mode: OnError, payload: Option<&Value>, why: &str) -> Decision {
    let event = payload
        .and_then(|p| p.get("hook_event_name"))
        .and_then(Value::as_str);
    let looping = matches!(event, Some("Stop" | "SubagentStop"))
        && payload.and_then(|p| p.get("stop_hook_active")) == Some(&Value::Bool(true));
    if mode == OnError::Block && looping {
        return failed_then(
            OnError::Allow,
            event,
            why,
            "allowed: stop_hook_active is true, and blocking again would never let the agent stop",
        );
    }
    failed(mode, event, why)
}

/// The deepest nesting of arrays and objects a payload may have (10,000
/// levels). A transcript line stops at serde_json's 128, but a payload is
/// what the agent sends about a call: a tool input nested deeper (by the
/// model, or by a page it read) must not turn the rules off by failing the
/// parse, so the hook reads it up to this depth on a thread with room for
/// it ([`PAYLOAD_STACK_BYTES`], [`parse_deep_payload`]).
pub const MAX_PAYLOAD_DEPTH: usize = 10_000;

/// The stack the hook's work thread needs for a payload [`MAX_PAYLOAD_DEPTH`]
/// deep (parsed, cloned, read by the rules): 256 MiB, reserved, not used
/// until needed; such a thread is started only for a payload past 128
/// levels.
pub const PAYLOAD_STACK_BYTES: usize = 256 << 20;

/// Parses stdin as a hook payload: one JSON object, read leniently as a
/// transcript line is (invalid UTF-8 and lone surrogate escapes repaired),
/// with `hook_event_name` a string. The error says what is wrong in one
/// line; a payload nested past 128 levels gives [`TOO_DEEP_FOR_THE_STACK`]:
/// read it with [`parse_deep_payload`] on a thread with
/// [`PAYLOAD_STACK_BYTES`] of stack. Beside the payload, what reading it
/// had to repair ([`withhold_approval`] needs it).
pub fn parse_payload(bytes: &[u8]) -> Result<(Value, LineFixes), String> {
    let trimmed = crate::json_line::line_bytes(bytes);
    let parsed = match crate::json_line::parse_line::<Value>(trimmed) {
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            return Err(TOO_DEEP_FOR_THE_STACK.to_string());
        }
        other => other,
    };
    checked_payload(parsed)
}

/// What [`parse_payload`] answers for a payload nested past 128 levels.
pub const TOO_DEEP_FOR_THE_STACK: &str = "the payload nests past 128 levels";

/// [`parse_payload`] for a payload nested up to [`MAX_PAYLOAD_DEPTH`]
/// levels; run it (and the rules after it) on a thread with
/// [`PAYLOAD_STACK_BYTES`] of stack.
pub fn parse_deep_payload(bytes: &[u8]) -> Result<(Value, LineFixes), String> {
    let trimmed = crate::json_line::line_bytes(bytes);
    if crate::json_line::nesting_depth(trimmed, MAX_PAYLOAD_DEPTH) > MAX_PAYLOAD_DEPTH {
        return Err(format!(
            "the payload nests more than {MAX_PAYLOAD_DEPTH} levels deep"
        ));
    }
    let repaired = crate::json_line::repair_line(trimmed);
    let (text, fixes) = match &repaired {
        Some((b, fixes)) => (b.as_slice(), *fixes),
        None => (trimmed, LineFixes::default()),
    };
    let mut de = serde_json::Deserializer::from_slice(text);
    de.disable_recursion_limit();
    let parsed = serde::Deserialize::deserialize(&mut de)
        .and_then(|v: Value| de.end().map(|()| v))
        .map(|v| (v, fixes));
    checked_payload(parsed)
}

/// The parsed payload and its repairs, when it is an object with a string
/// `hook_event_name` and, naming a tool, a `tool_input` object.
fn checked_payload(
    parsed: Result<(Value, LineFixes), serde_json::Error>,
) -> Result<(Value, LineFixes), String> {
    let (value, fixes) = parsed.map_err(|e| format!("the payload is not JSON ({e})"))?;
    match value.get("hook_event_name") {
        Some(Value::String(_)) => {}
        _ if !value.is_object() => return Err("the payload is not a JSON object".to_string()),
        Some(_) => return Err("the payload's hook_event_name is not a string".to_string()),
        None => return Err("the payload has no hook_event_name".to_string()),
    }
    // Every event that names a tool sends its input as an object
    // (docs/contract.md#per-event-input-fields); any other shape would
    // meet no rule's condition and pass as `none`, past `--on-error`.
    let kind = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    match (value.get("tool_name"), value.get("tool_input")) {
        (None, None) | (Some(Value::String(_)), Some(Value::Object(_))) => Ok((value, fixes)),
        (Some(name), _) if !name.is_string() => Err(format!(
            "the payload's tool_name is {}, not a string",
            kind(name)
        )),
        (Some(_), None) => Err("the payload names a tool but has no tool_input".to_string()),
        (None, Some(_)) => Err("the payload has a tool_input but no tool_name".to_string()),
        (Some(_), Some(input)) => Err(format!(
            "the payload's tool_input is {}, not an object",
            kind(input)
        )),
    }
}

/// Whether a rule of `rules` that can still match `payload` reads the
/// session history, and which lists: a rule whose event, tool or other
/// `only_if` conditions already fail (a Stop rule with `stop_hook_active =
/// false` on a payload with `true`, an Edit rule on a Bash call) does not
/// make the hook read the transcript, since no history changes its outcome
/// ([`crate::hooks::rules::Rule::could_match_before_history`]).
pub fn history_wanted(rules: &RuleSet, payload: &Value) -> Option<Wanted> {
    let empty = History::default();
    let mut subject: Option<crate::hooks::rules::Subject<'_>> = None;
    let mut out: Option<Wanted> = None;
    for rule in &rules.rules {
        let Some(want) = crate::hooks::replay::wanted_by(rule) else {
            continue;
        };
        let s = subject.get_or_insert_with(|| crate::hooks::rules::Subject::new(payload, &empty));
        if !rule.could_match_before_history(s) {
            continue;
        }
        let w = out.get_or_insert(Wanted {
            touched_files: false,
            ran_commands: false,
        });
        w.touched_files |= want.touched_files;
        w.ran_commands |= want.ran_commands;
    }
    out
}

/// hookscope's state folder: `$XDG_STATE_HOME/hookscope` when that variable
/// is an absolute path (XDG Base Directory spec), else
/// `~/.local/state/hookscope`; `None` without a home folder. The decision
/// log, the history checkpoints and install's backups live under it.
pub fn state_dir() -> Option<PathBuf> {
    let state = match std::env::var_os("XDG_STATE_HOME").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        _ => dirs::home_dir()?.join(".local").join("state"),
    };
    Some(state.join("hookscope"))
}

/// The session history before the call `payload` concerns, read from its
/// `transcript_path` (a Claude Code transcript, with its subagents' files):
/// the files touched and commands run before it, and the opening prompt of
/// its turn (docs/replay.md#history-before-an-event); a payload with its own
/// `prompt` (UserPromptSubmit) has that as its turn prompt, and needs no
/// transcript when only the prompt is wanted. The call is found by
/// `tool_use_id` (in the main thread or a subagent's file, by `agent_id`);
/// an event that is not a call, or a call not yet written, sees every
/// call the transcript holds.
///
/// # Errors
/// One line: no `transcript_path`, or the transcript cannot be read
/// (missing, not a regular file, over the loader's size caps).
pub fn history_of(payload: &Value, want: Wanted) -> Result<History, String> {
    // UserPromptSubmit carries its turn's prompt, which the transcript may
    // not hold yet: it is the turn prompt, and all a prompt rule needs.
    let own_prompt = payload.get("prompt").and_then(Value::as_str);
    if let Some(prompt) = own_prompt
        && !want.touched_files
        && !want.ran_commands
    {
        return Ok(History {
            turn_prompt: Some(prompt.to_string()),
            ..History::default()
        });
    }
    let path = match payload.get("transcript_path") {
        Some(Value::String(p)) if !p.is_empty() => p,
        Some(Value::String(_)) => {
            return Err(
                "a rule reads the session history, but the payload's transcript_path is empty"
                    .into(),
            );
        }
        None | Some(Value::Null) => {
            return Err(
                "a rule reads the session history, but the payload has no transcript_path".into(),
            );
        }
        Some(_) => {
            return Err(
                "a rule reads the session history, but the payload's transcript_path is not a string"
                    .into(),
            );
        }
    };
    let path = PathBuf::from(path);
    let event: EventName = payload
        .get("hook_event_name")
        .and_then(Value::as_str)
        .and_then(|e| e.parse().ok())
        .unwrap_or(EventName::PreToolUse);
    let payload_of = |line: usize| Payload {
        event,
        json: payload.clone(),
        left_out: Vec::new(),
        source_path: path.clone(),
        source_line: line,
        claude_version: None,
        file_before: None,
        call_id: None,
    };
    // Through the per-session checkpoint when the session suits one.
    let id = payload.get("tool_use_id").and_then(Value::as_str);
    // The subagent the event is in (SubagentStart names the one it
    // starts, but fires on the main thread). An `agent_id` that is not a
    // string names no thread: its history cannot be told.
    let agent = match payload.get("agent_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(a)) => Some(a.as_str()),
        Some(_) => {
            return Err(
                "a rule reads the session history, but the payload's agent_id is not a string"
                    .into(),
            );
        }
    }
    .filter(|_| event != EventName::SubagentStart);
    let dir = crate::hooks::history_checkpoint::default_dir();
    let mut history = match crate::hooks::history_checkpoint::session_history(
        &path,
        id,
        agent,
        want,
        dir.as_deref(),
    )? {
        Some(history) => history,
        None => {
            let session = load_transcript(&path)?;
            if let Some(a) = agent
                && !session
                    .subagents
                    .iter()
                    .any(|s| s.agent_id.as_deref() == Some(a))
            {
                return Err(no_subagent(a, &path));
            }
            let line = position_of(&session, payload);
            HistoryIndex::new(&session).before_only(&payload_of(line), want)
        }
    };
    if let Some(prompt) = own_prompt {
        history.turn_prompt = Some(prompt.to_string());
    }
    Ok(history)
}

/// The failure of a payload inside a subagent whose transcript is not
/// found: its history cannot be told (the main thread's would be a guess).
pub(crate) fn no_subagent(agent_id: &str, path: &Path) -> String {
    format!(
        "the payload's agent_id {:?} names no subagent transcript of the session at {}: its history cannot be read",
        crate::printable::printable(agent_id),
        path.display()
    )
}

/// Loads the Claude Code session at `path` (its subagent files found as
/// discovery finds them).
fn load_transcript(path: &Path) -> Result<crate::transcript::Session, String> {
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("cannot read transcript_path {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!(
            "transcript_path {} is not a regular file",
            path.display()
        ));
    }
    let found = crate::transcript::discover(&[path.to_path_buf()])
        .map_err(|e| format!("cannot read transcript_path {}: {e}", path.display()))?;
    let Some(r) = found.sessions.first() else {
        return Err(format!(
            "transcript_path {} is not a session transcript",
            path.display()
        ));
    };
    crate::transcript::load(r)
        .map_err(|e| format!("cannot load transcript_path {}: {e}", path.display()))
}

/// The line (of the main file, or of the subagent's file for a payload
/// with `agent_id`) the payload's call is written at, found by
/// `tool_use_id`; past the end when it is not there.
fn position_of(session: &crate::transcript::Session, payload: &Value) -> usize {
    let id = payload.get("tool_use_id").and_then(Value::as_str);
    let agent = payload.get("agent_id").and_then(Value::as_str);
    let thread = agent.and_then(|a| {
        session
            .subagents
            .iter()
            .position(|s| s.agent_id.as_deref() == Some(a))
    });
    let found = id.and_then(|id| {
        session
            .all_tool_calls()
            .find(|(t, c)| *t == thread && c.tool_use_id == id)
            .map(|(_, c)| c.line)
    });
    found.unwrap_or(usize::MAX)
}
