//! Claude Code's settings schema for the one walk of a hook configuration
//! ([`super::walk`]): which events exist at a version, what a matcher and
//! each handler type and field may be, and which mistakes make Claude Code
//! skip the whole file. Droid's files are read with it too.

use super::*;

/// Claude Code's settings schema for the shared walk (also Droid's, read in
/// Claude Code's shape): events by version (an unknown one is ignored, or
/// drops the file before 2.1.209), a subagent's `Stop` is `SubagentStop`,
/// any schema mistake skips the whole file, every handler type and field
/// (docs/contract.md#handler-types-and-fields).
pub(super) struct ClaudeSchema<'a> {
    pub(super) version: &'a Version,
}

impl walk::Schema for ClaudeSchema<'_> {
    fn event(
        &mut self,
        event_key: &str,
        event_ptr: &str,
        place: &walk::Place,
        problems: &mut Vec<Problem>,
    ) -> Option<walk::KeyRead> {
        let line_of = place.line_of;
        let agent_stop = matches!(place.layer, Layer::Agent(_)) && event_key == "Stop";
        let known = contract::event(event_key, self.version).is_some() || agent_stop;
        if !known {
            let since = Version::parse(UNKNOWN_EVENT_IGNORED_SINCE);
            let newer = contract::event(event_key, &Version::latest()).is_some();
            let what = if newer {
                format!(
                    "\"{event_key}\" is not an event yet at Claude Code {}",
                    self.version
                )
            } else {
                let hint = closest_event(event_key)
                    .map(|e| format!(" (did you mean \"{e}\"?)"))
                    .unwrap_or_default();
                format!("\"{event_key}\" is not a hook event{hint}")
            };
            if *self.version < since {
                problems.push(problem(
                    "unknown-event",
                    line_of(event_ptr),
                    None,
                    format!(
                        "{what}; Claude Code before {UNKNOWN_EVENT_IGNORED_SINCE} rejects the whole file for an unknown event key (\"Invalid key in record\")"
                    ),
                    true,
                ));
            } else {
                problems.push(problem(
                    "unknown-event",
                    line_of(event_ptr),
                    None,
                    format!("{what}; Claude Code ignores its hooks"),
                    false,
                ));
            }
        }
        Some(walk::KeyRead {
            event: if agent_stop {
                EventName::SubagentStop.into()
            } else {
                event_key.into()
            },
            inactive: (!known).then_some(Inactive::UnknownEvent),
        })
    }

    fn groups_not_a_list(&self, key: &str, groups: &Value, line: Option<usize>) -> Problem {
        schema(
            line,
            format!(
                "\"{key}\" is a JSON {} where a list of matcher groups belongs",
                type_name(groups)
            ),
        )
    }

    fn group_not_an_object(
        &self,
        key: &str,
        gi: usize,
        group: &Value,
        line: Option<usize>,
    ) -> Problem {
        schema(
            line,
            format!(
                "{key}[{gi}] is a JSON {} where a matcher group object belongs",
                type_name(group)
            ),
        )
    }

    fn matcher(
        &mut self,
        event: &str,
        key: &str,
        gi: usize,
        matcher: Option<&Value>,
        group_ptr: &str,
        place: &walk::Place,
        problems: &mut Vec<Problem>,
    ) -> (Option<String>, Option<Inactive>) {
        let line_of = place.line_of;
        match matcher {
            None | Some(Value::Null) => (None, None),
            Some(Value::String(s)) => {
                if let MatcherKind::Invalid { error, .. } =
                    matcher::classify(event, Some(s), self.version)
                {
                    problems.push(matcher_schema(
                        line_of(&format!("{group_ptr}/matcher")),
                        format!("matcher {s:?} on {key} is not a valid pattern: {error}"),
                    ));
                }
                (Some(s.clone()), None)
            }
            Some(other) => {
                problems.push(matcher_schema(
                    line_of(&format!("{group_ptr}/matcher")).or(line_of(group_ptr)),
                    format!(
                        "matcher of {key}[{gi}] is a JSON {} where a string belongs",
                        type_name(other)
                    ),
                ));
                (None, None)
            }
        }
    }

    fn no_hooks_list(&self, key: &str, gi: usize, line: Option<usize>) -> Option<Problem> {
        Some(schema(line, format!("{key}[{gi}] has no \"hooks\" list")))
    }

    fn hooks_not_a_list(
        &self,
        key: &str,
        gi: usize,
        hooks: &Value,
        line: Option<usize>,
    ) -> Problem {
        schema(
            line,
            format!(
                "\"hooks\" of {key}[{gi}] is a JSON {} where a list of handlers belongs",
                type_name(hooks)
            ),
        )
    }

    fn handler(
        &mut self,
        mut h: Handler,
        raw: &Value,
        ptr: &str,
        where_: &str,
        place: &walk::Place,
        problems: &mut Vec<Problem>,
    ) -> Option<Handler> {
        let line_of = place.line_of;
        let line = h.origin.line;
        let bad = |field: &str, want: &str, got: &Value, problems: &mut Vec<Problem>| {
            problems.push(schema(
                line_of(&format!("{ptr}/{}", jsonpos::escape_token(field))).or(Some(line)),
                format!(
                    "{where_}.{field} is a JSON {} where {want} belongs",
                    type_name(got)
                ),
            ));
        };
        let Some(obj) = raw.as_object() else {
            problems.push(schema(
                Some(line),
                format!(
                    "{where_} is a JSON {} where a handler object belongs",
                    type_name(raw)
                ),
            ));
            return None;
        };
        match obj.get("type") {
            Some(Value::String(t)) => {
                h.kind = HandlerType::parse(t);
                if let HandlerType::Unknown(t) = &h.kind {
                    problems.push(schema(
                        line_of(&format!("{ptr}/type")).or(Some(line)),
                        format!(
                            "{where_}.type {t:?} is not a handler type (command, http, mcp_tool, prompt, agent)"
                        ),
                    ));
                    h.inactive
                        .get_or_insert(Inactive::Invalid(format!("unknown type {t:?}")));
                }
            }
            Some(other) => bad("type", "a string", other, problems),
            None => {
                problems.push(schema(Some(line), format!("{where_} has no \"type\"")));
                h.inactive
                    .get_or_insert(Inactive::Invalid("no \"type\"".to_string()));
            }
        }
        macro_rules! field {
            ($name:literal, $target:expr, $conv:expr, $want:literal) => {
                if let Some(v) = obj.get($name) {
                    match $conv(v) {
                        Some(x) => $target = Some(x),
                        None if v.is_null() => {}
                        None => bad($name, $want, v, problems),
                    }
                }
            };
        }
        let string = |v: &Value| v.as_str().map(str::to_string);
        let boolean = |v: &Value| v.as_bool();
        let strings = |v: &Value| {
            v.as_array()?
                .iter()
                .map(|x| x.as_str().map(str::to_string))
                .collect::<Option<Vec<String>>>()
        };
        field!("command", h.command, string, "a string");
        field!("args", h.args, strings, "a list of strings");
        field!("shell", h.shell, string, "a string");
        field!("async", h.is_async, boolean, "true or false");
        field!("asyncRewake", h.async_rewake, boolean, "true or false");
        field!("url", h.url, string, "a string");
        field!(
            "headers",
            h.headers,
            |v: &Value| {
                v.as_object()?
                    .iter()
                    .map(|(k, x)| x.as_str().map(|s| (k.clone(), s.to_string())))
                    .collect::<Option<BTreeMap<String, String>>>()
            },
            "an object of strings"
        );
        field!(
            "allowedEnvVars",
            h.allowed_env_vars,
            strings,
            "a list of strings"
        );
        field!("server", h.server, string, "a string");
        field!("tool", h.tool, string, "a string");
        if let Some(v) = obj.get("input") {
            h.input = Some(v.clone());
        }
        field!("prompt", h.prompt, string, "a string");
        field!("model", h.model, string, "a string");
        field!("if", h.if_rule, string, "a string");
        field!(
            "timeout",
            h.timeout,
            |v: &Value| v.as_f64(),
            "a number of seconds"
        );
        field!("statusMessage", h.status_message, string, "a string");
        field!("once", h.once, boolean, "true or false");
        field!("onFailure", h.on_failure, string, "a string");
        field!(
            "continueOnBlock",
            h.continue_on_block,
            boolean,
            "true or false"
        );
        let (t, source) = effective_timeout(&h.event, &h.kind, h.timeout, self.version);
        h.effective_timeout = t;
        h.timeout_source = source;
        Some(h)
    }
}
