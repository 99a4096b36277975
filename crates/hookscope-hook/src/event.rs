//! Hook event names, typed: [`EventName`] for every event of Claude Code's
//! hook contract (docs/contract.md#per-event-input-fields), and [`EventKey`]
//! for an event as a settings file, a rule set, a transcript or an agent
//! names it — a known event, or another name kept as written
//! (docs/hook-api.md#event-names).
//!
//! Settings, rules, exec plans and reports, replay and hook activity carry
//! an [`EventKey`]: the known case is matched by value
//! (`key == EventName::Stop`), and a name this table does not know (a newer
//! Claude Code's event, a Codex-only name, a typo) is kept, shown and
//! compared exactly as written, never dropped or guessed at.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! event_names {
    ($($name:ident),* $(,)?) => {
        /// A hook event name (docs/contract.md#per-event-input-fields,
        /// docs/contract.md#model-switch-events): every event in the
        /// contract table. Parsed exactly (case-sensitive, as settings files
        /// spell it); displays and serializes as its name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        pub enum EventName {
            $(
                #[doc = concat!("`", stringify!($name), "`.")]
                $name,
            )*
        }

        impl EventName {
            /// Every event, in the contract table's order.
            pub const ALL: &'static [EventName] = &[$(EventName::$name),*];

            /// The name as Claude Code spells it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(EventName::$name => stringify!($name),)*
                }
            }
        }
    };
}

event_names!(
    PreToolUse,
    PermissionRequest,
    PermissionDenied,
    PostToolUse,
    PostToolUseFailure,
    PostToolBatch,
    UserPromptSubmit,
    UserPromptExpansion,
    Notification,
    SubagentStart,
    SubagentStop,
    Stop,
    StopFailure,
    TaskCreated,
    TaskCompleted,
    TeammateIdle,
    PreCompact,
    PostCompact,
    SessionStart,
    Setup,
    SessionEnd,
    InstructionsLoaded,
    MessageDisplay,
    ConfigChange,
    CwdChanged,
    FileChanged,
    DirectoryAdded,
    WorktreeCreate,
    WorktreeRemove,
    Elicitation,
    ElicitationResult,
    PreModelSwitch,
    PostModelSwitch,
    PreSkillShellCommand,
);

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// An event name that is not one of [`EventName::ALL`]; the message adds
/// "did you mean X?" when a known name is close ([`closest_name`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown event {0:?}{hint}; known events: {names}", hint = closest_name(&self.0, EventName::ALL.iter().map(|e| e.as_str())).map(|n| format!(" (did you mean {n}?)")).unwrap_or_default(), names = EventName::ALL.iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", "))]
pub struct UnknownEvent(pub String);

/// The known name closest to `name` by Levenshtein distance over lowercase
/// letters, when it is close: at most 2 edits, or a quarter of the name's
/// length for long names (`PreToolUs`, `pretooluse` → `PreToolUse`; `Foo` →
/// none). Ties keep the first in `known`.
pub fn closest_name<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    known
        .into_iter()
        .map(|k| (strsim::levenshtein(&lower, &k.to_lowercase()), k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

impl FromStr for EventName {
    type Err = UnknownEvent;

    fn from_str(s: &str) -> Result<EventName, UnknownEvent> {
        EventName::ALL
            .iter()
            .copied()
            .find(|e| e.as_str() == s)
            .ok_or_else(|| UnknownEvent(s.to_string()))
    }
}

impl EventName {
    /// Whether the event fires after its call ran (PostToolUse,
    /// PostToolUseFailure): a block there stops nothing, it is an objection
    /// the model reads (docs/hooks.md).
    pub fn after_call(self) -> bool {
        matches!(self, EventName::PostToolUse | EventName::PostToolUseFailure)
    }

    /// Whether the event fires before its call runs and can stop it
    /// (PreToolUse, PermissionRequest): a block there means the call did
    /// not run (docs/hooks.md).
    pub fn before_call(self) -> bool {
        matches!(self, EventName::PreToolUse | EventName::PermissionRequest)
    }
}

/// An event as something names it: a settings file's event key, a rule's
/// `event`, a transcript's `hookEvent`, a payload's `hook_event_name`.
///
/// [`EventKey::Known`] when the name is exactly (case-sensitive) one of
/// [`EventName::ALL`]; [`EventKey::Other`] keeps any other name as written
/// (a newer agent's event, Codex's or Droid's own names when they differ,
/// a typo a lint reports). Build one with [`EventKey::new`] (or `From`);
/// two keys are equal when their names are. Displays, serializes and
/// deserializes as the bare name string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventKey {
    /// A contract event.
    Known(EventName),
    /// Any other name, exactly as written.
    Other(String),
}

impl EventKey {
    /// The key for `name`: [`EventKey::Known`] when it is a contract event,
    /// else [`EventKey::Other`] with `name` as written.
    pub fn new(name: &str) -> EventKey {
        match name.parse::<EventName>() {
            Ok(known) => EventKey::Known(known),
            Err(_) => EventKey::Other(name.to_string()),
        }
    }

    /// The name as written (a known event's contract spelling).
    pub fn as_str(&self) -> &str {
        match self {
            EventKey::Known(e) => e.as_str(),
            EventKey::Other(s) => s,
        }
    }

    /// The contract event, when the name is one.
    pub fn known(&self) -> Option<EventName> {
        match self {
            EventKey::Known(e) => Some(*e),
            EventKey::Other(_) => None,
        }
    }

    /// Whether this is the contract event `event`.
    pub fn is(&self, event: EventName) -> bool {
        self.known() == Some(event)
    }

    /// Whether this is a contract event that fires after its call ran
    /// ([`EventName::after_call`]).
    pub fn after_call(&self) -> bool {
        self.known().is_some_and(EventName::after_call)
    }

    /// Whether this is a contract event that fires before its call runs
    /// ([`EventName::before_call`]).
    pub fn before_call(&self) -> bool {
        self.known().is_some_and(EventName::before_call)
    }
}

impl Default for EventKey {
    /// An empty [`EventKey::Other`]: "no event name was given".
    fn default() -> EventKey {
        EventKey::Other(String::new())
    }
}

impl From<EventName> for EventKey {
    fn from(e: EventName) -> EventKey {
        EventKey::Known(e)
    }
}

impl From<&str> for EventKey {
    fn from(s: &str) -> EventKey {
        EventKey::new(s)
    }
}

impl From<String> for EventKey {
    fn from(s: String) -> EventKey {
        match s.parse::<EventName>() {
            Ok(known) => EventKey::Known(known),
            Err(_) => EventKey::Other(s),
        }
    }
}

impl From<&String> for EventKey {
    fn from(s: &String) -> EventKey {
        EventKey::new(s)
    }
}

impl std::ops::Deref for EventKey {
    type Target = str;

    /// The name as written ([`EventKey::as_str`]), so a key goes wherever a
    /// `&str` name is read.
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for EventKey {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for EventKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl PartialEq<EventName> for EventKey {
    fn eq(&self, other: &EventName) -> bool {
        self.is(*other)
    }
}

impl PartialEq<str> for EventKey {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for EventKey {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for EventKey {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<EventKey> for str {
    fn eq(&self, other: &EventKey) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<EventKey> for &str {
    fn eq(&self, other: &EventKey) -> bool {
        *self == other.as_str()
    }
}

impl Serialize for EventKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EventKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<EventKey, D::Error> {
        String::deserialize(d).map(EventKey::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contract_name_is_known_and_any_other_is_kept_as_written() {
        assert_eq!(EventKey::new("Stop"), EventKey::Known(EventName::Stop));
        assert_eq!(EventKey::new("stop"), EventKey::Other("stop".into()));
        assert_eq!(
            EventKey::from("AfterAgent".to_string()),
            EventKey::Other("AfterAgent".into())
        );
        assert!(EventKey::new("PreToolUse").is(EventName::PreToolUse));
        assert_eq!(EventKey::new("Nope").known(), None);
        assert_eq!(EventKey::new("Nope").as_str(), "Nope");
        assert_eq!(EventKey::new("PostToolBatch"), "PostToolBatch");
        assert_eq!(EventKey::new("x").to_string(), "x");
        // Display pads like a string, for column layouts.
        assert_eq!(format!("{:<12}|", EventKey::new("Stop")), "Stop        |");
        assert_eq!(format!("{:>6}|", EventKey::new("abc")), "   abc|");
    }

    #[test]
    fn a_key_is_a_bare_string_in_json() {
        let keys = vec![EventKey::new("Stop"), EventKey::new("Custom")];
        let text = serde_json::to_string(&keys).expect("serializes");
        assert_eq!(text, r#"["Stop","Custom"]"#);
        let back: Vec<EventKey> = serde_json::from_str(&text).expect("deserializes");
        assert_eq!(back, keys);
    }

    #[test]
    fn every_contract_name_parses_to_itself() {
        for e in EventName::ALL {
            assert_eq!(e.as_str().parse::<EventName>(), Ok(*e));
        }
        assert_eq!(EventName::ALL.len(), 34);
        // The same events, in the same order, as the contract table.
        let names: Vec<&str> = EventName::ALL.iter().map(|e| e.as_str()).collect();
        let table: Vec<&str> = crate::contract::load()
            .expect("the embedded contract parses")
            .events
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(names, table);
        let err = "PreToolUs".parse::<EventName>().expect_err("unknown");
        assert!(err.to_string().contains("did you mean PreToolUse?"));
    }
}
