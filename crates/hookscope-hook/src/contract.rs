//! Claude Code's hook contract as data (docs/contract.md#the-hook-contract-as-hookscope-reads-it, docs/contract.md#later-changes),
//! selected by version.
//!
//! The table is `crates/hookscope-hook/contract/claude-code.json`, embedded at build time
//! and parsed once. Per event it says: its input fields in the order Claude
//! Code writes them (as the 2.1.332 captures show) and when each is present,
//! the matcher field, which output fields and decisions it honours, what
//! exit 2 does and where stderr goes, whether plain stdout becomes context,
//! the default timeout, and `onFailure`; each with the version it holds
//! from (`since`, absent = no known lower bound).
//!
//! A parse failure of the embedded table is caught by this module's unit
//! test; at runtime [`load`] returns it as an error and [`event`] as
//! `None`, never a panic.

use std::cmp::Ordering;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// The embedded table (`crates/hookscope-hook/contract/claude-code.json`).
pub const CONTRACT_JSON: &str = include_str!("../contract/claude-code.json");

/// A Claude Code version such as `2.1.332`, compared numerically component
/// by component (`2.1.95 < 2.1.101`; a missing component counts as 0, so
/// `2.1 == 2.1.0`). Parsed leniently: each dot-separated component's
/// leading digits (`2.1.332 (Claude Code)` is `2.1.332`); a component
/// without digits ends the version.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub struct Version(pub Vec<u64>);

impl Version {
    /// Parses `text` (see the type's doc); `"garbage"` is the empty version
    /// (older than every real one).
    pub fn parse(text: &str) -> Version {
        if text.trim() == "latest" {
            return Version::latest();
        }
        let mut parts = Vec::new();
        for component in text.trim().split('.') {
            let digits: String = component.chars().take_while(char::is_ascii_digit).collect();
            match digits.parse::<u64>() {
                Ok(n) => parts.push(n),
                Err(_) => break,
            }
            if digits.len() != component.len() {
                break;
            }
        }
        Version(parts)
    }

    /// The newest version this table describes; used when a transcript
    /// records none. Displayed (and serialized) as `latest`, which parses
    /// back to it.
    pub fn latest() -> Version {
        Version(vec![u64::MAX])
    }
}

impl From<String> for Version {
    fn from(text: String) -> Version {
        Version::parse(&text)
    }
}

impl From<Version> for String {
    fn from(v: Version) -> String {
        v.to_string()
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 == [u64::MAX] {
            return f.write_str("latest");
        }
        let parts: Vec<String> = self.0.iter().map(u64::to_string).collect();
        f.write_str(&parts.join("."))
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Version) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Version) -> Ordering {
        let n = self.0.len().max(other.0.len());
        for i in 0..n {
            let a = self.0.get(i).copied().unwrap_or(0);
            let b = other.0.get(i).copied().unwrap_or(0);
            match a.cmp(&b) {
                Ordering::Equal => {}
                other => return other,
            }
        }
        Ordering::Equal
    }
}

/// Whether something with `since` holds at `version` (`None` = always).
fn holds(since: &Option<Version>, version: &Version) -> bool {
    since.as_ref().is_none_or(|s| s <= version)
}

/// When an input field is in the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// On every payload of the event.
    Always,
    /// Once the session has a prompt (`prompt_id`, docs/contract.md#common-input-fields).
    AfterFirstPrompt,
    /// Only when the event comes from inside a subagent (`agent_id`,
    /// `agent_type`).
    Subagent,
    /// Sometimes, depending on the situation (`duration_ms`, `model`, …).
    Optional,
}

/// One input field of an event's payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputField {
    /// The JSON key, e.g. `tool_use_id`.
    pub name: String,
    /// When it is present.
    pub when: Presence,
    /// The first version that sends it.
    #[serde(default)]
    pub since: Option<Version>,
    /// What more is known about it, when there is more.
    #[serde(default)]
    pub note: Option<String>,
}

/// One output field (or decision value) an event's hook output honours
/// (docs/contract.md#json-output-fields, docs/contract.md#decision-control-per-event): `field` is a dotted path (`decision`,
/// `hookSpecificOutput.permissionDecision`), `values` the accepted values
/// when the field is an enum (`["allow","deny","ask"]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputField {
    /// Dotted path in the hook's JSON output.
    pub field: String,
    /// Accepted values, when restricted.
    #[serde(default)]
    pub values: Option<Vec<serde_json::Value>>,
    /// The first version that honours it.
    #[serde(default)]
    pub since: Option<Version>,
    /// A condition or caveat (e.g. `defer` only in `-p`).
    #[serde(default)]
    pub note: Option<String>,
}

/// What exit status 2 does (docs/contract.md#exit-codes-and-stdout).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exit2Effect {
    /// Blocks the action (the call, the stop, the prompt, …).
    Block,
    /// Does not block; stderr is shown somewhere.
    None,
    /// Ignored altogether.
    Ignored,
}

/// Where a hook's stderr goes on exit 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StderrTo {
    /// Fed to the model.
    Claude,
    /// Shown to the user (a `hook error` notice).
    User,
    /// Debug log only.
    DebugLog,
    /// Dropped.
    Discarded,
}

/// Exit-2 behaviour of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exit2 {
    /// What exit 2 does.
    pub effect: Exit2Effect,
    /// Where stderr goes.
    pub stderr_to: StderrTo,
}

/// A default timeout, in seconds, from a version on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timeout {
    /// Seconds (SessionEnd's 1.5 is a shared budget).
    pub seconds: f64,
    /// From which version.
    #[serde(default)]
    pub since: Option<Version>,
}

/// A property that holds from a version on (an empty `since` = always).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Since {
    /// From which version.
    #[serde(default)]
    pub since: Option<Version>,
}

/// Whether a timeout lets the action through (fail-open) or blocks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailMode {
    /// The action proceeds (the default; docs/contract.md#exit-codes-and-stdout).
    Open,
    /// The action is blocked (PreModelSwitch; docs/contract.md#model-switch-events).
    Closed,
}

/// `onFailure` (docs/contract.md#failing-closed-onfailure).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OnFailure {
    /// From this version a command/http handler's `onFailure: "block"`
    /// turns a spawn failure, a timeout or an unexpected exit code into a
    /// block.
    pub block_since: Version,
    /// What a timeout does without `onFailure`.
    pub timeout: FailMode,
}

/// One event's contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventContract {
    /// The event name, e.g. `PreToolUse`.
    pub name: String,
    /// The first version that fires it.
    #[serde(default)]
    pub since: Option<Version>,
    /// Input fields in Claude Code's order (all versions; see
    /// [`EventContract::input_at`]).
    pub input: Vec<InputField>,
    /// The payload field the matcher tests (`tool_name`, `source`,
    /// `trigger`, `agent_type`, …); `None` = no matcher support (a matcher
    /// is ignored and the hook always fires).
    pub matcher: Option<String>,
    /// Output fields honoured (all versions; see
    /// [`EventContract::output_at`]), the universal ones included.
    pub output: Vec<OutputField>,
    /// What exit 2 does.
    pub exit2: Exit2,
    /// Non-empty when plain (non-JSON) stdout on exit 0 is added to the
    /// model's context, from the entry's version on.
    pub plain_stdout_to_context: Vec<Since>,
    /// Default timeouts by version.
    pub timeout: Vec<Timeout>,
    /// `onFailure` semantics.
    pub on_failure: OnFailure,
    /// A caveat.
    #[serde(default)]
    pub note: Option<String>,
}

impl EventContract {
    /// Input fields sent at `version`, in order.
    pub fn input_at<'a>(&'a self, version: &'a Version) -> impl Iterator<Item = &'a InputField> {
        self.input.iter().filter(move |f| holds(&f.since, version))
    }

    /// Output fields honoured at `version`.
    pub fn output_at<'a>(&'a self, version: &'a Version) -> impl Iterator<Item = &'a OutputField> {
        self.output.iter().filter(move |f| holds(&f.since, version))
    }

    /// Whether the output field at dotted path `field` is honoured at
    /// `version`, with `value` among its accepted values when given.
    pub fn honours(
        &self,
        field: &str,
        value: Option<&serde_json::Value>,
        version: &Version,
    ) -> bool {
        self.output_at(version).any(|f| {
            f.field == field
                && match (value, &f.values) {
                    (Some(v), Some(values)) => values.contains(v),
                    _ => true,
                }
        })
    }

    /// Whether plain stdout becomes context at `version`.
    pub fn stdout_to_context(&self, version: &Version) -> bool {
        self.plain_stdout_to_context
            .iter()
            .any(|s| holds(&s.since, version))
    }

    /// The default timeout in seconds at `version` (the newest entry that
    /// holds), `None` when none does.
    pub fn timeout_at(&self, version: &Version) -> Option<f64> {
        self.timeout
            .iter()
            .filter(|t| holds(&t.since, version))
            .max_by(|a, b| a.since.cmp(&b.since))
            .map(|t| t.seconds)
    }

    /// Whether `onFailure: "block"` is honoured at `version`.
    pub fn on_failure_block(&self, version: &Version) -> bool {
        self.on_failure.block_since <= *version
    }
}

/// The whole table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contract {
    /// `claude-code`.
    pub agent: String,
    /// Where the facts come from.
    pub sources: Vec<String>,
    /// Every event, in the table's order.
    pub events: Vec<EventContract>,
}

/// The embedded table could not be parsed (a build defect the unit test
/// catches).
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "the embedded hook contract (crates/hookscope-hook/contract/claude-code.json) is invalid: {0}"
)]
pub struct ContractError(pub String);

static CONTRACT: OnceLock<Result<Contract, ContractError>> = OnceLock::new();

/// The parsed table, parsed once.
///
/// # Errors
/// [`ContractError`] when the embedded JSON does not parse (never for a
/// released build: the unit test `embedded_contract_parses` parses it).
pub fn load() -> Result<&'static Contract, ContractError> {
    CONTRACT
        .get_or_init(|| {
            serde_json::from_str::<Contract>(CONTRACT_JSON)
                .map_err(|e| ContractError(e.to_string()))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The contract of event `name` (exact, case-sensitive, as in settings
/// files) as of `version`: `None` when the event is unknown or newer than
/// `version` (PreModelSwitch before 2.1.251).
pub fn event(name: &str, version: &Version) -> Option<&'static EventContract> {
    load()
        .ok()?
        .events
        .iter()
        .find(|e| e.name == name && holds(&e.since, version))
}

/// Every event name the table knows, in its order: [`crate::event::EventName::ALL`]
/// (a test keeps the two equal), so naming the events does not parse the
/// table.
pub fn event_names() -> Vec<&'static str> {
    crate::event::EventName::ALL
        .iter()
        .map(|e| e.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s)
    }

    #[test]
    fn embedded_contract_parses() {
        let contract = load().expect("the embedded contract parses");
        assert_eq!(contract.events.len(), 34);
        // No event twice, every event sends hook_event_name and session_id.
        let mut names: Vec<&str> = contract.events.iter().map(|e| e.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 34);
        for e in &contract.events {
            assert!(
                e.input.iter().any(|f| f.name == "hook_event_name"),
                "{}",
                e.name
            );
            assert_eq!(e.input[0].name, "session_id", "{}", e.name);
        }
    }

    #[test]
    fn versions_compare_numerically() {
        assert!(v("2.1.95") < v("2.1.101"));
        assert!(v("2.1.9") < v("2.1.10"));
        assert_eq!(v("2.1"), v("2.1.0"));
        assert_eq!(v("2.1.332 (Claude Code)"), v("2.1.332"));
        assert_eq!(v("2.1.332").to_string(), "2.1.332");
        assert!(v("garbage") < v("0.0.1"));
        assert!(v("2.1.332") < Version::latest());
        // The newest reads as `latest` (not u64::MAX) and parses back.
        assert_eq!(Version::latest().to_string(), "latest");
        assert_eq!(v("latest"), Version::latest());
        assert_eq!(
            serde_json::to_value(Version::latest()).expect("json"),
            serde_json::json!("latest")
        );
    }

    #[test]
    fn model_switch_events_exist_from_2_1_251() {
        assert!(event("PreModelSwitch", &v("2.1.250")).is_none());
        let pre = event("PreModelSwitch", &v("2.1.251")).expect("PreModelSwitch");
        assert_eq!(pre.matcher.as_deref(), Some("to_model"));
        assert_eq!(pre.on_failure.timeout, FailMode::Closed);
        assert_eq!(pre.timeout_at(&v("2.1.300")), Some(30.0));
        assert!(!pre.honours("hookSpecificOutput.updatedInput", None, &v("2.1.300")));
        let post = event("PostModelSwitch", &v("2.1.332")).expect("PostModelSwitch");
        assert!(post.stdout_to_context(&v("2.1.332")));
        assert_eq!(post.exit2.effect, Exit2Effect::None);
    }

    #[test]
    fn pretooluse_contract_follows_hooks_md() {
        let e = event("PreToolUse", &v("2.1.332")).expect("PreToolUse");
        assert_eq!(e.matcher.as_deref(), Some("tool_name"));
        assert_eq!(e.exit2.effect, Exit2Effect::Block);
        assert_eq!(e.exit2.stderr_to, StderrTo::Claude);
        assert!(!e.stdout_to_context(&v("2.1.332")));
        let deny = serde_json::json!("deny");
        let defer = serde_json::json!("defer");
        let maybe = serde_json::json!("maybe");
        let at = v("2.1.332");
        assert!(e.honours("hookSpecificOutput.permissionDecision", Some(&deny), &at));
        assert!(e.honours("hookSpecificOutput.permissionDecision", Some(&defer), &at));
        assert!(!e.honours("hookSpecificOutput.permissionDecision", Some(&maybe), &at));
        assert!(e.honours("hookSpecificOutput.updatedInput", None, &at));
        // 60 s before 2.1.3, 600 s after (anthropics/claude-code#19175).
        assert_eq!(e.timeout_at(&v("2.1.2")), Some(60.0));
        assert_eq!(e.timeout_at(&v("2.1.3")), Some(600.0));
        assert!(!e.on_failure_block(&v("2.1.294")));
        assert!(e.on_failure_block(&v("2.1.295")));
        let names: Vec<&str> = e.input_at(&at).map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "session_id",
                "transcript_path",
                "cwd",
                "prompt_id",
                "permission_mode",
                "agent_id",
                "agent_type",
                "effort",
                "hook_event_name",
                "tool_name",
                "tool_input",
                "tool_use_id"
            ]
        );
        // prompt_id only from 2.1.196 (docs/contract.md#common-input-fields).
        assert!(!e.input_at(&v("2.1.100")).any(|f| f.name == "prompt_id"));
    }

    #[test]
    fn exit2_and_stdout_per_event() {
        let at = v("2.1.332");
        let get = |n: &str| event(n, &at).expect(n);
        assert_eq!(get("PermissionRequest").exit2.effect, Exit2Effect::Ignored);
        assert_eq!(
            get("PermissionRequest").exit2.stderr_to,
            StderrTo::Discarded
        );
        assert_eq!(get("PostToolUse").exit2.effect, Exit2Effect::None);
        assert_eq!(get("UserPromptSubmit").exit2.stderr_to, StderrTo::User);
        assert!(get("UserPromptSubmit").stdout_to_context(&at));
        assert!(get("SessionStart").stdout_to_context(&at));
        assert_eq!(get("UserPromptSubmit").timeout_at(&at), Some(30.0));
        assert_eq!(get("SessionEnd").timeout_at(&at), Some(1.5));
        assert_eq!(get("Stop").matcher, None);
        assert_eq!(get("SubagentStop").matcher.as_deref(), Some("agent_type"));
        assert_eq!(
            get("Notification").matcher.as_deref(),
            Some("notification_type")
        );
        assert!(get("PermissionRequest").honours(
            "hookSpecificOutput.decision.behavior",
            Some(&serde_json::json!("allow")),
            &at
        ));
        assert!(event("NoSuchEvent", &at).is_none());
        // Stop's background_tasks only from 2.1.145.
        assert!(
            !get("Stop")
                .input_at(&v("2.1.144"))
                .any(|f| f.name == "background_tasks")
        );
    }
}
