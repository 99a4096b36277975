//! Which handlers an event reaches, and why each does or does not
//! (docs/your-hooks.md#your-hooks; docs/contract.md#matchers, the order "event fires → matcher →
//! `if` → spawn"): the load-time state of the handler
//! first (its file dropped, hooks disabled, managed-only), then the
//! matcher of its group ([`matcher::check`]), then its `if` rule
//! ([`matcher::check_if`]), then dedup of identical handlers.

use serde::Serialize;
use serde_json::{Map, Value};

use super::HookConfig;
use crate::hooks::contract::Version;
use crate::hooks::matcher::{self, IfVerdict, MatcherVerdict};

/// One handler's verdict for one event.
#[derive(Debug, Clone, Serialize)]
pub struct HandlerVerdict {
    /// Index in [`HookConfig::handlers`].
    pub index: usize,
    /// Whether Claude Code would spawn it for this event.
    pub fires: bool,
    /// One line: the step that decided (`its file is skipped by Claude
    /// Code: …`, the matcher's reason, the `if` rule's reason, `runs once:
    /// identical to #3`, or why it fires).
    pub reason: String,
    /// A fix, when one is obvious: the matcher's, else for a matcher that
    /// never fires the fix `hooks --lint` gives
    /// ([`crate::hooks::lint::never_fires`]).
    pub hint: Option<String>,
    /// The matcher's verdict, when the matcher was tried.
    pub matcher: Option<MatcherVerdict>,
    /// The `if` rule's verdict, when it was tried.
    pub if_rule: Option<IfVerdict>,
}

/// `REASON; HINT`, the hint left out when there is none or the reason
/// already says it: how a verdict's why reads on one line (`hooks --match`,
/// the `--exec` report's "not reached" lines).
pub fn reason_with_hint(reason: &str, hint: Option<&str>) -> String {
    match hint.filter(|h| !reason.contains(h)) {
        Some(h) => format!("{reason}; {h}"),
        None => reason.to_string(),
    }
}

impl HandlerVerdict {
    /// Handler `index`'s verdict before any step decided: does not fire,
    /// no reason yet; or, when `inactive` says why it never runs, that
    /// reason (`never runs: …`) and nothing more to ask.
    pub fn start(index: usize, inactive: Option<&super::Inactive>) -> (HandlerVerdict, bool) {
        let mut v = HandlerVerdict {
            index,
            fires: false,
            reason: String::new(),
            hint: None,
            matcher: None,
            if_rule: None,
        };
        match inactive {
            Some(why) => {
                v.reason = format!("never runs: {why}");
                (v, true)
            }
            None => (v, false),
        }
    }
}

/// The payload for a matcher test without a transcript: `hook_event_name`,
/// the event's matcher field (the contract's `matcher`, e.g. `tool_name`)
/// set to `value`, and `tool_input` when given.
pub fn synthetic_payload(
    event: &str,
    value: &str,
    tool_input: Option<Value>,
    version: &Version,
) -> Value {
    let mut map = Map::new();
    map.insert("hook_event_name".into(), Value::String(event.to_string()));
    if let Some(field) = matcher::matcher_field(event, version) {
        map.insert(field.to_string(), Value::String(value.to_string()));
    }
    if let Some(input) = tool_input {
        map.insert("tool_input".into(), input);
    }
    Value::Object(map)
}

/// Every handler of `event` (as Claude Code fires it) with its verdict on
/// `payload` (the hook's stdin JSON) as of `version`, in
/// [`HookConfig::handlers`] order. A Codex configuration
/// ([`HookConfig::agent`]) is judged by [`crate::hooks::codex::explain`]
/// instead (without its trust notes).
pub fn explain(
    config: &HookConfig,
    event: &str,
    payload: &Value,
    version: &Version,
) -> Vec<HandlerVerdict> {
    if config.agent == crate::transcript::Agent::Codex {
        // Never Claude Code's matcher on a Codex hook.
        return crate::hooks::codex::explain(config, &[], event, payload);
    }
    let value = matcher::matcher_value(event, payload, version);
    // One budget for every regex matcher of this question.
    let mut budget = matcher::Budget::new();
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
        let m = matcher::check_within(
            event,
            h.matcher.as_deref(),
            value.as_deref(),
            version,
            &mut budget,
        );
        v.hint = m.hint.clone();
        let matched = m.matches;
        let mut matcher_reason = if m.reason.is_empty() {
            match &h.matcher {
                Some(text) if matched => format!("matcher {text:?} matches"),
                Some(text) => format!("matcher {text:?} does not match"),
                None => "no matcher: every value".to_string(),
            }
        } else {
            m.reason.clone()
        };
        v.matcher = Some(m);
        if !matched {
            // A matcher that never fires gets the fix `--lint` gives, and
            // the reason says it is about every value, not this one
            // (`"bash"` asked with `mcp__github__create_issue`: "Bash"
            // would not match it either).
            if v.hint.is_none()
                && let Some(l) = crate::hooks::lint::never_fires_within(h, version, &mut budget)
            {
                matcher_reason.push_str(&format!(
                    "; this matcher never fires on any value ({})",
                    l.id
                ));
                v.hint = Some(l.fix);
            }
            v.reason = matcher_reason;
            out.push(v);
            continue;
        }
        if let Some(rule) = &h.if_rule {
            let iv = matcher::check_if(event, rule, payload, version);
            let runs = iv.runs;
            let if_reason = if iv.reason.is_empty() {
                format!(
                    "if {rule:?} {}",
                    if runs { "holds" } else { "does not hold" }
                )
            } else {
                iv.reason.clone()
            };
            v.if_rule = Some(iv);
            if !runs {
                v.reason = format!("{matcher_reason}; {if_reason}");
                out.push(v);
                continue;
            }
            v.reason = format!("{matcher_reason}; {if_reason}");
        } else {
            v.reason = matcher_reason;
        }
        if let Some(first) = h.duplicate_of
            && out.iter().any(|o| o.index == first && o.fires)
        {
            v.reason = format!(
                "identical to #{} ({}), which runs: Claude Code runs it once",
                first + 1,
                config.handlers[first].location()
            );
            out.push(v);
            continue;
        }
        v.fires = true;
        out.push(v);
    }
    out
}
