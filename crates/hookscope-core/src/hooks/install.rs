//! Installing a rule set as the live hook (`hookscope hooks --install`):
//! the Claude Code settings entry that runs `hookscope hook --rules FILE`
//! on every event the rule set names, with matchers derived from its tool
//! specs, and its merge into a settings file (docs/live-hook.md#installing-it).
//!
//! - [`groups`]: one matcher group per event the rules name. On an event
//!   whose matcher tests `tool_name` (docs/contract.md#matchers) the
//!   matcher covers every tool a rule on it can match: the names of its
//!   tool specs with their aliases, and the MCP tools that end in them or
//!   behave like them (a superset: the hook filters again). An event with
//!   a rule without a tool spec, or whose matcher tests another field,
//!   gets no matcher (every firing reaches the hook).
//! - [`merge`]: adds the groups to a settings object. A group already
//!   running the same rule file (a handler whose command holds
//!   `hook --rules <file>`, whatever binary or options it names) is updated
//!   in place: its matcher, and that handler's command. A second such group
//!   on the same event is removed, and so are such groups on events the
//!   rule set no longer names. Merging twice changes nothing.

use serde_json::{Map, Value, json};

use crate::hooks::rules::RuleSet;
use crate::tools::{MCP_BEHAVES_LIKE, expand_tool_names};

/// One matcher group to install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The event (`PreToolUse`, `Stop`, …).
    pub event: String,
    /// The matcher (a JavaScript regex over `tool_name`), or `None` for
    /// every firing.
    pub matcher: Option<String>,
}

/// Events whose matcher tests `tool_name` (docs/contract.md#matchers).
const TOOL_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
];

/// The groups `rules` needs, one per event its rules name, in the order
/// the events first appear (rules in evaluation order).
pub fn groups(rules: &RuleSet) -> Vec<Group> {
    let mut order: Vec<String> = Vec::new();
    // Per event: the tool names (None once a rule has no tool spec).
    let mut tools: std::collections::HashMap<String, Option<Vec<String>>> =
        std::collections::HashMap::new();
    for rule in &rules.rules {
        for event in &rule.events {
            let event = event.as_str().to_string();
            if !order.contains(&event) {
                order.push(event.clone());
            }
            let entry = tools.entry(event).or_insert_with(|| Some(Vec::new()));
            match (&rule.tool, entry.as_mut()) {
                (Some(spec), Some(names)) => {
                    for n in expand_tool_names(spec) {
                        if !names.contains(&n) {
                            names.push(n);
                        }
                    }
                }
                (None, _) => *entry = None,
                (Some(_), None) => {}
            }
        }
    }
    order
        .into_iter()
        .map(|event| {
            let matcher = match tools.get(&event) {
                Some(Some(names)) if TOOL_EVENTS.contains(&event.as_str()) => {
                    Some(tool_matcher(names))
                }
                _ => None,
            };
            Group { event, matcher }
        })
        .collect()
}

/// The regex matcher for tools named `names`: `^(?:A|B)$` for the names,
/// and `^mcp__.+__(?:A|B|…)$` for MCP tools ending in them or in a bare
/// name that behaves like one (`search` behaves like `Grep`).
fn tool_matcher(names: &[String]) -> String {
    let mut mcp: Vec<String> = names.to_vec();
    for (bare, builtin) in MCP_BEHAVES_LIKE {
        if names.iter().any(|n| n == builtin) && !mcp.iter().any(|m| m == bare) {
            mcp.push((*bare).to_string());
        }
    }
    let alt = |list: &[String]| list.iter().map(|n| escape(n)).collect::<Vec<_>>().join("|");
    format!("^(?:{})$|^mcp__.+__(?:{})$", alt(names), alt(&mcp))
}

/// `name` with every JavaScript regex metacharacter escaped.
fn escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if "\\^$.|?*+()[]{}/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The settings JSON that installs `groups`, each running `command`:
/// `{"hooks": {"<event>": [{"matcher": …, "hooks": [{"type": "command",
/// "command": …}]}]}}` (no `matcher` key for a group without one).
pub fn entry(groups: &[Group], command: &str) -> Value {
    let mut hooks = Map::new();
    for g in groups {
        hooks.insert(g.event.clone(), Value::Array(vec![group_json(g, command)]));
    }
    json!({ "hooks": hooks })
}

fn group_json(g: &Group, command: &str) -> Value {
    let mut o = Map::new();
    if let Some(m) = &g.matcher {
        o.insert("matcher".into(), Value::String(m.clone()));
    }
    o.insert(
        "hooks".into(),
        json!([{"type": "command", "command": command}]),
    );
    Value::Object(o)
}

/// Whether a handler's command holds `signature` ([`holds`]).
fn handler_holds(handler: &Value, signature: &str) -> bool {
    handler
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| holds(c, signature))
}

/// Whether a matcher group runs the rule file `signature` names (a
/// handler whose command holds it).
fn runs(group: &Value, signature: &str) -> bool {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .is_some_and(|hs| hs.iter().any(|h| handler_holds(h, signature)))
}

/// Whether `command` holds `signature` as whole words (followed by its end
/// or whitespace: `--rules a.toml` is not in `--rules a.toml.bak`).
fn holds(command: &str, signature: &str) -> bool {
    command.match_indices(signature).any(|(i, m)| {
        command[i + m.len()..]
            .chars()
            .next()
            .is_none_or(char::is_whitespace)
    })
}

/// Sets the command of the handlers of `group` that hold `signature` to
/// `command`.
fn set_command(group: &mut Value, signature: &str, command: &str) {
    let handlers = group.get_mut("hooks").and_then(Value::as_array_mut);
    for h in handlers.into_iter().flatten() {
        if handler_holds(h, signature)
            && let Some(o) = h.as_object_mut()
        {
            o.insert("command".into(), Value::String(command.to_string()));
        }
    }
}

/// The command of the first handler in `settings` (a settings file's
/// top-level object, Claude Code's `hooks` shape) that runs the rule file
/// `signature` names, as [`merge`] finds an earlier install; `None` when
/// none does or the file has another shape.
pub fn installed_command<'a>(settings: &'a Value, signature: &str) -> Option<&'a str> {
    handler_objects(settings)
        .find(|h| handler_holds(h, signature))?
        .get("command")?
        .as_str()
}

/// Every handler object of `settings` (a settings file's top-level object
/// in Claude Code's shape: `hooks.<Event>[].hooks[]`), in file order;
/// nothing where the file has another shape.
pub fn handler_objects(settings: &Value) -> impl Iterator<Item = &Value> {
    settings
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|events| events.values())
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|group| group.get("hooks")?.as_array())
        .flatten()
}

/// Merges `groups` running `command` into `settings` (a settings file's
/// top-level object). `signature` names the rule file in a command
/// (`hook --rules <file>`, as `command` holds it): per event, the first
/// group with a handler holding it gets the new matcher and that handler
/// `command`, in place, and any later one is removed; else a group is
/// appended. Groups holding it on events not in `groups` are removed (an
/// event left empty is removed too). Returns whether anything changed.
///
/// # Errors
/// `settings` is not an object, or its `hooks` (or an event's list) has
/// another shape than Claude Code's; nothing is changed then.
pub fn merge(
    settings: &mut Value,
    groups: &[Group],
    command: &str,
    signature: &str,
) -> Result<bool, String> {
    let Some(top) = settings.as_object_mut() else {
        return Err("the settings file is not a JSON object".into());
    };
    let hooks = top
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err("its \"hooks\" is not an object".into());
    };
    for (event, list) in hooks.iter() {
        if !list.is_array() {
            return Err(format!("its \"hooks\".\"{event}\" is not a list"));
        }
    }
    let before = hooks.clone();
    for g in groups {
        let list = hooks
            .entry(g.event.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        let Some(list) = list.as_array_mut() else {
            return Err(format!("its \"hooks\".\"{}\" is not a list", g.event));
        };
        let wanted = group_json(g, command);
        match list.iter().position(|x| runs(x, signature)) {
            Some(first) => {
                if let Some(existing) = list.get_mut(first) {
                    set_command(existing, signature, command);
                    if let Some(o) = existing.as_object_mut() {
                        match &g.matcher {
                            Some(m) => {
                                o.insert("matcher".into(), Value::String(m.clone()));
                            }
                            None => {
                                o.remove("matcher");
                            }
                        }
                    }
                }
                // One group per event: a second one would run the rules twice.
                let mut i = 0;
                list.retain(|x| {
                    i += 1;
                    i - 1 == first || !runs(x, signature)
                });
            }
            None => list.push(wanted),
        }
    }
    let named: Vec<&str> = groups.iter().map(|g| g.event.as_str()).collect();
    let mut emptied = Vec::new();
    for (event, list) in hooks.iter_mut() {
        if named.contains(&event.as_str()) {
            continue;
        }
        if let Some(list) = list.as_array_mut() {
            let n = list.len();
            list.retain(|x| !runs(x, signature));
            if list.is_empty() && n > 0 {
                emptied.push(event.clone());
            }
        }
    }
    for e in emptied {
        hooks.remove(&e);
    }
    Ok(*hooks != before)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: &str = r#"
[[rules]]
id = "a"
events = "PreToolUse"
tool = "Bash"
action = "block"
reason = "r"
[[rules]]
id = "b"
events = "PreToolUse|PostToolUse"
tool = "Grep"
action = "context"
reason = "r"
[[rules]]
id = "c"
events = "Stop"
action = "block"
reason = "r"
[rules.only_if]
stop_hook_active = false
"#;

    #[test]
    fn groups_cover_every_tool_a_rule_matches() {
        let set = RuleSet::parse(RULES, "r.toml").expect("rules");
        let g = groups(&set);
        assert_eq!(
            g.iter().map(|g| g.event.as_str()).collect::<Vec<_>>(),
            ["PreToolUse", "PostToolUse", "Stop"]
        );
        assert_eq!(g[2].matcher, None);
        let m = g[0].matcher.clone().expect("a tool matcher");
        let re = regex::Regex::new(&m).expect("a regex");
        for name in [
            "Bash",
            "Execute",
            "exec_command",
            "Grep",
            "mcp__github__Grep",
        ] {
            assert!(re.is_match(name), "{name} by {m}");
            assert!(
                crate::tools::tool_name_matches(name, "Bash")
                    || crate::tools::tool_name_matches(name, "Grep")
            );
        }
        for name in ["Read", "BashOutput", "xBash", "mcp__x__Read"] {
            assert!(!re.is_match(name), "{name} by {m}");
        }
    }

    #[test]
    fn merging_twice_changes_nothing_and_keeps_other_hooks() {
        let set = RuleSet::parse(RULES, "r.toml").expect("rules");
        let g = groups(&set);
        let mut settings = json!({"model": "x", "hooks": {"PreToolUse": [
            {"matcher": "Write", "hooks": [{"type": "command", "command": "mine.sh"}]}]}});
        assert_eq!(
            merge(
                &mut settings,
                &g,
                "hookscope hook --rules r.toml",
                "hook --rules r.toml"
            ),
            Ok(true)
        );
        let once = settings.clone();
        assert_eq!(
            merge(
                &mut settings,
                &g,
                "hookscope hook --rules r.toml",
                "hook --rules r.toml"
            ),
            Ok(false)
        );
        assert_eq!(settings, once);
        assert_eq!(
            settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            "mine.sh"
        );
        assert_eq!(
            settings["hooks"]["PreToolUse"].as_array().map(Vec::len),
            Some(2)
        );
        assert_eq!(settings["model"], "x");
        // A rule set that no longer names PostToolUse: its group goes.
        let fewer: Vec<Group> = g
            .iter()
            .filter(|g| g.event != "PostToolUse")
            .cloned()
            .collect();
        assert_eq!(
            merge(
                &mut settings,
                &fewer,
                "hookscope hook --rules r.toml",
                "hook --rules r.toml"
            ),
            Ok(true)
        );
        assert!(settings["hooks"].get("PostToolUse").is_none());
        // A command edited by hand (another binary, an option) is the same
        // rule file: updated in place, and a duplicate group removed.
        settings["hooks"]["Stop"][0]["hooks"][0]["command"] =
            json!("/old/hookscope hook --rules r.toml --on-error block");
        settings["hooks"]["Stop"]
            .as_array_mut()
            .expect("list")
            .push(json!({"hooks": [{"type": "command", "command": "x/hookscope hook --rules r.toml"}]}));
        assert_eq!(
            merge(
                &mut settings,
                &fewer,
                "new hook --rules r.toml",
                "hook --rules r.toml"
            ),
            Ok(true)
        );
        assert_eq!(settings["hooks"]["Stop"].as_array().map(Vec::len), Some(1));
        assert_eq!(
            settings["hooks"]["Stop"][0]["hooks"][0]["command"],
            "new hook --rules r.toml"
        );
        assert!(!holds(
            "hookscope hook --rules r.toml.bak",
            "hook --rules r.toml"
        ));
        assert!(holds(
            "hookscope hook --rules r.toml --agent droid",
            "hook --rules r.toml"
        ));
    }

    #[test]
    fn a_settings_file_of_another_shape_is_refused_untouched() {
        let g = vec![Group {
            event: "Stop".into(),
            matcher: None,
        }];
        for bad in [
            json!([1]),
            json!({"hooks": [1]}),
            json!({"hooks": {"Stop": {}}}),
        ] {
            let mut s = bad.clone();
            assert!(merge(&mut s, &g, "c", "c").is_err());
            assert_eq!(s, bad);
        }
    }
}
