//! The one walk of a hook configuration's events object, shared by every
//! dialect: `{"<Event>": [{"matcher": …, "hooks": [{…handler…}]}]}` into
//! [`Handler`]s with `file:line`, each problem with its line. What is valid
//! at each level (which events exist, what a matcher may be, which handler
//! types and fields, the timeouts, which mistakes skip the whole file) is
//! the dialect's [`Schema`]: Claude Code's and Droid's in
//! [`super::Loader`]'s, Codex's in [`super::codex`]. docs/contract.md#where-hooks-are-configured
//! and docs/your-hooks.md describe both.

use hookscope_hook::event::EventKey;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{Handler, HandlerType, Inactive, Layer, Origin, Problem, jsonpos};

/// The file being walked: its path, layer and plugin root (for handler
/// origins), and where each JSON pointer is in it (its line).
pub(super) struct Place<'a> {
    /// The file.
    pub path: &'a Path,
    /// Its layer.
    pub layer: &'a Layer,
    /// The plugin root of a plugin's file.
    pub plugin_root: Option<PathBuf>,
    /// The 1-based line of a JSON pointer into the file, when known.
    pub line_of: &'a dyn Fn(&str) -> Option<usize>,
}

/// An event key as a dialect reads it.
pub(super) struct KeyRead {
    /// The event its handlers belong to (Claude Code reads a subagent's
    /// `Stop` as `SubagentStop`).
    pub event: EventKey,
    /// Why none of its handlers runs, when the key is kept but dead (an
    /// unknown event Claude Code ignores).
    pub inactive: Option<Inactive>,
}

/// What a dialect says at each level of the walk (module docs). Each
/// method gets the key as written, the indices, and the JSON pointer of
/// the place; the problems it returns or pushes carry their own lines.
pub(super) trait Schema {
    /// The event `key` (pointer `ptr`): `None` skips it (its problem
    /// pushed); else whose handlers they are.
    fn event(
        &mut self,
        key: &str,
        ptr: &str,
        place: &Place,
        problems: &mut Vec<Problem>,
    ) -> Option<KeyRead>;
    /// `key`'s value is not a list of matcher groups.
    fn groups_not_a_list(&self, key: &str, groups: &Value, line: Option<usize>) -> Problem;
    /// Group `gi` of `key` is not an object.
    fn group_not_an_object(
        &self,
        key: &str,
        gi: usize,
        group: &Value,
        line: Option<usize>,
    ) -> Problem;
    /// The group's matcher (`None`: absent): what is kept, and why the
    /// group's handlers never run when the dialect skips the group.
    #[allow(clippy::too_many_arguments)]
    fn matcher(
        &mut self,
        event: &str,
        key: &str,
        gi: usize,
        matcher: Option<&Value>,
        group_ptr: &str,
        place: &Place,
        problems: &mut Vec<Problem>,
    ) -> (Option<String>, Option<Inactive>);
    /// The group has no `hooks`: the problem, if the dialect has one.
    fn no_hooks_list(&self, key: &str, gi: usize, line: Option<usize>) -> Option<Problem>;
    /// The group's `hooks` is not a list.
    fn hooks_not_a_list(&self, key: &str, gi: usize, hooks: &Value, line: Option<usize>)
    -> Problem;
    /// Fills `handler` (its place, event, matcher and group already set,
    /// `inactive` from the event and the group) from `raw`, pointer `ptr`;
    /// `None` leaves it out (a shape the dialect cannot load).
    fn handler(
        &mut self,
        handler: Handler,
        raw: &Value,
        ptr: &str,
        where_: &str,
        place: &Place,
        problems: &mut Vec<Problem>,
    ) -> Option<Handler>;
}

/// Walks `events` (the object at pointer `base`) with `schema`, pushing
/// each handler in file order onto `handlers` and each problem onto
/// `problems`.
pub(super) fn walk(
    schema: &mut dyn Schema,
    events: &Map<String, Value>,
    base: &str,
    place: &Place,
    problems: &mut Vec<Problem>,
    handlers: &mut Vec<Handler>,
) {
    let line_of = place.line_of;
    for (key, groups) in events {
        let event_ptr = format!("{base}/{}", jsonpos::escape_token(key));
        let Some(event) = schema.event(key, &event_ptr, place, problems) else {
            continue;
        };
        let Some(groups) = groups.as_array() else {
            problems.push(schema.groups_not_a_list(key, groups, line_of(&event_ptr)));
            continue;
        };
        for (gi, group) in groups.iter().enumerate() {
            let group_ptr = format!("{event_ptr}/{gi}");
            let Some(g) = group.as_object() else {
                problems.push(schema.group_not_an_object(key, gi, group, line_of(&group_ptr)));
                continue;
            };
            let (matcher, skipped) = schema.matcher(
                &event.event,
                key,
                gi,
                g.get("matcher"),
                &group_ptr,
                place,
                problems,
            );
            let list = match g.get("hooks") {
                Some(Value::Array(list)) => list,
                Some(other) => {
                    let line = line_of(&format!("{group_ptr}/hooks"));
                    problems.push(schema.hooks_not_a_list(key, gi, other, line));
                    continue;
                }
                None => {
                    problems.extend(schema.no_hooks_list(key, gi, line_of(&group_ptr)));
                    continue;
                }
            };
            let matcher_line = line_of(&format!("{group_ptr}/matcher")).or(line_of(&group_ptr));
            for (hi, raw) in list.iter().enumerate() {
                let ptr = format!("{group_ptr}/hooks/{hi}");
                let line = line_of(&ptr).or(line_of(&group_ptr)).unwrap_or(1);
                let mut handler = Handler::blank(
                    event.event.clone(),
                    key,
                    raw.clone(),
                    Origin {
                        path: place.path.to_path_buf(),
                        line,
                        layer: place.layer.clone(),
                        plugin_root: place.plugin_root.clone(),
                    },
                );
                handler.matcher = matcher.clone();
                handler.matcher_line = matcher_line;
                handler.group = gi;
                handler.position = hi;
                handler.inactive = event.inactive.clone().or_else(|| skipped.clone());
                let where_ = format!("{key}[{gi}].hooks[{hi}]");
                if let Some(h) = schema.handler(handler, raw, &ptr, &where_, place, problems) {
                    handlers.push(h);
                }
            }
        }
    }
}

impl Handler {
    /// A handler of `event` (written `written`) at `origin` with only its
    /// place known: no matcher, type unknown, every optional field absent,
    /// timeout 0 (the schema fills them).
    pub(super) fn blank(event: EventKey, written: &str, raw: Value, origin: Origin) -> Handler {
        Handler {
            event,
            event_as_written: written.to_string(),
            matcher: None,
            matcher_line: None,
            group: 0,
            position: 0,
            kind: HandlerType::Unknown(String::new()),
            command: None,
            args: None,
            shell: None,
            is_async: None,
            async_rewake: None,
            url: None,
            headers: None,
            allowed_env_vars: None,
            server: None,
            tool: None,
            input: None,
            prompt: None,
            model: None,
            if_rule: None,
            timeout: None,
            status_message: None,
            once: None,
            on_failure: None,
            continue_on_block: None,
            raw,
            effective_timeout: 0.0,
            timeout_source: String::new(),
            origin,
            inactive: None,
            duplicate_of: None,
        }
    }
}
