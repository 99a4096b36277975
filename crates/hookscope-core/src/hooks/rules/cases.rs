//! Test cases inside a rule file: `[[rules.tests]]` (one rule alone) and
//! top-level `[[tests]]` (the whole set, merged), as captain_hook's
//! `tests={Input(command="git stash"): Block()}` (docs/rules.md#rule-sets).
//!
//! A case gives either an input (`command = "…"` for Bash, or `input = {…}`
//! with `tool`) or a `payload` file (a hook's stdin JSON; a corpus capture
//! line `{"stdin": …}` or an envelope `{"payload": …}` also works), the
//! `expect`ed verdict (`block`, `warn`, `context`, `allow`, `rewrite` or
//! `none`), and for rewrites optionally `expect_input`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use toml::Spanned;

use super::{Errors, History, RuleAction, RuleSet, Subject, verdict};

/// Largest payload file a test case reads (16 MiB).
const MAX_PAYLOAD_BYTES: u64 = 16 << 20;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCase {
    name: Option<String>,
    event: Option<Spanned<String>>,
    tool: Option<String>,
    command: Option<String>,
    input: Option<toml::Value>,
    payload: Option<Spanned<String>>,
    agent_type: Option<String>,
    agent_id: Option<String>,
    permission_mode: Option<String>,
    prompt: Option<String>,
    cwd: Option<String>,
    stop_hook_active: Option<bool>,
    #[serde(default)]
    history: History,
    expect: Spanned<String>,
    expect_input: Option<toml::Value>,
}

/// One test case, ready to run.
#[derive(Debug, Clone)]
pub struct TestCase {
    /// The case's `name`, else a summary of its input.
    pub name: String,
    /// Line of the case's table.
    pub line: usize,
    /// The rule it tests (`None` for a top-level case: the whole set).
    pub rule: Option<String>,
    /// The payload evaluated.
    pub payload: Value,
    /// The session history given.
    pub history: History,
    /// The expected verdict (`none` = no rule matches).
    pub expect: String,
    /// The expected `updatedInput` of a rewrite.
    pub expect_input: Option<Value>,
    /// The payload file, when the case named one.
    pub payload_file: Option<PathBuf>,
}

/// A case's run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseResult {
    /// The rule tested, or `None` for the whole set.
    pub rule: Option<String>,
    /// The case's name.
    pub name: String,
    /// Its line in the rule file.
    pub line: usize,
    /// The expected verdict.
    pub expected: String,
    /// The verdict obtained.
    pub got: String,
    /// Whether they agree (and `expect_input`, when given, equals the
    /// `updatedInput`).
    pub passed: bool,
    /// The why of the tested rule (or of each matching rule for the set).
    pub why: String,
}

fn to_json(v: toml::Value) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn read_payload(path: &Path) -> Result<Value, String> {
    let bytes = crate::transcript::fsread::read_capped(path, MAX_PAYLOAD_BYTES)
        .map_err(|e| format!("payload {}: cannot read: {e}", path.display()))?;
    let v: Value = serde_json::from_slice(&bytes)
        .map_err(|e| format!("payload {}: not JSON: {e}", path.display()))?;
    let v = match v {
        Value::Object(mut m) if m.get("stdin").is_some_and(Value::is_object) => {
            m.remove("stdin").unwrap_or(Value::Null)
        }
        Value::Object(mut m) if m.get("payload").is_some_and(Value::is_object) => {
            m.remove("payload").unwrap_or(Value::Null)
        }
        other => other,
    };
    if v.is_object() {
        Ok(v)
    } else {
        Err(format!("payload {}: not a JSON object", path.display()))
    }
}

pub(crate) fn compile_case(
    raw: Spanned<RawCase>,
    rule: Option<&str>,
    base: &Path,
    errs: &mut Errors<'_>,
) -> Option<TestCase> {
    let at = raw.span().start;
    let (line, _) = errs.line_col(at);
    let raw = raw.into_inner();
    let before = errs.list.len();
    let expect_at = raw.expect.span().start;
    let expect = raw.expect.into_inner();
    if expect != "none" && RuleAction::parse(&expect).is_none() {
        errs.at(
            expect_at,
            format!(
                "unknown expect `{expect}` (one of: {}, none)",
                RuleAction::NAMES.join(", ")
            ),
        );
    }
    // The event must be one Claude Code sends (a misspelt one matches no
    // rule, so every `expect = "none"` case would pass vacuously), and the
    // case must give what that event is about.
    let event_at = raw.event.as_ref().map_or(at, |e| e.span().start);
    let event = raw
        .event
        .as_ref()
        .map_or_else(|| "PreToolUse".to_string(), |e| e.get_ref().clone());
    let known = crate::hooks::contract::event_names();
    if raw.payload.is_none() {
        if !known.contains(&event.as_str()) {
            let hint = crate::hooks::events::closest_name(&event, known.iter().copied())
                .map(|n| format!(" (did you mean {n}?)"))
                .unwrap_or_default();
            errs.at(
                event_at,
                format!(
                    "test case: unknown event `{event}`{hint}; known: {}",
                    known.join(", ")
                ),
            );
        } else if crate::hooks::matcher::TOOL_EVENTS.contains(&event.as_str())
            && raw.command.is_none()
            && raw.tool.is_none()
            && raw.input.is_none()
        {
            errs.at(
                at,
                format!(
                    "test case: a {event} case gives no `command`, `tool`/`input` or `payload`: it would test nothing"
                ),
            );
        } else if event == "UserPromptSubmit" && raw.prompt.is_none() {
            errs.at(
                at,
                "test case: a UserPromptSubmit case gives no `prompt` or `payload`: it would test nothing",
            );
        }
    }
    let mut payload_file = None;
    let payload = if let Some(p) = raw.payload {
        if raw.command.is_some() || raw.input.is_some() {
            errs.at(
                p.span().start,
                "give `payload` or `command`/`input`, not both",
            );
        }
        let path = base.join(p.get_ref());
        match read_payload(&path) {
            Ok(v) => {
                payload_file = Some(path);
                v
            }
            Err(e) => {
                errs.at(p.span().start, e);
                Value::Null
            }
        }
    } else {
        let mut m = Map::new();
        m.insert("session_id".into(), json!("hookscope-test"));
        m.insert(
            "cwd".into(),
            json!(raw.cwd.clone().unwrap_or_else(|| "/project".into())),
        );
        m.insert(
            "permission_mode".into(),
            json!(
                raw.permission_mode
                    .clone()
                    .unwrap_or_else(|| "default".into())
            ),
        );
        m.insert("hook_event_name".into(), json!(event));
        let tool = raw
            .tool
            .clone()
            .or_else(|| raw.command.as_ref().map(|_| "Bash".to_string()));
        if let Some(t) = &tool {
            m.insert("tool_name".into(), json!(t));
        }
        let mut input = raw.input.map(to_json).unwrap_or_else(|| json!({}));
        if let Some(c) = &raw.command
            && let Some(obj) = input.as_object_mut()
        {
            obj.insert("command".into(), json!(c));
        }
        if tool.is_some() {
            m.insert("tool_input".into(), input);
        }
        if let Some(p) = &raw.prompt {
            m.insert("prompt".into(), json!(p));
        }
        if let Some(a) = &raw.agent_id {
            m.insert("agent_id".into(), json!(a));
        }
        if let Some(a) = &raw.agent_type {
            m.insert("agent_type".into(), json!(a));
        }
        // Claude Code sends `stop_hook_active` with every Stop and
        // SubagentStop (docs/contract.md#per-event-input-fields): false unless the case says true.
        let is_stop = matches!(event.as_str(), "Stop" | "SubagentStop");
        if let Some(b) = raw.stop_hook_active.or(is_stop.then_some(false)) {
            m.insert("stop_hook_active".into(), json!(b));
        }
        Value::Object(m)
    };
    if errs.list.len() > before {
        return None;
    }
    let name = raw.name.unwrap_or_else(|| {
        let tool = payload.get("tool_name").and_then(Value::as_str);
        let input = payload.get("tool_input");
        let what = input
            .and_then(|i| i.get("command").or_else(|| i.get("file_path")))
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| payload_file.as_ref().map(|p| p.display().to_string()))
            .unwrap_or_default();
        let event = payload
            .get("hook_event_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        match tool {
            Some(t) => format!("{event} {t} {what}").trim_end().to_string(),
            None => format!("{event} {what}").trim_end().to_string(),
        }
    });
    Some(TestCase {
        name,
        line,
        rule: rule.map(str::to_string),
        payload,
        history: raw.history,
        expect,
        expect_input: raw.expect_input.map(to_json),
        payload_file,
    })
}

impl RuleSet {
    /// Runs every test case: each rule's own cases (that rule alone), then
    /// the file's top-level cases (the whole set, merged), in file order.
    pub fn run_tests(&self) -> Vec<CaseResult> {
        let mut rules: Vec<&super::Rule> = self.rules.iter().collect();
        rules.sort_by_key(|r| r.line);
        let mut out = Vec::new();
        for rule in rules {
            for case in &rule.tests {
                let subject = Subject::new(&case.payload, &case.history);
                let e = rule.evaluate(&subject);
                let got = e.result.as_ref().map_or("none", verdict).to_string();
                let input = e.result.as_ref().and_then(|r| r.updated_input.clone());
                out.push(finish(case, got, input, e.why()));
            }
        }
        for case in &self.tests {
            let e = self.evaluate(&case.payload, &case.history);
            let why = e
                .rules
                .iter()
                .filter(|r| r.result.is_some())
                .map(|r| format!("{}: {}", r.id, r.why()))
                .collect::<Vec<_>>()
                .join("; ");
            let input = e
                .combined
                .result
                .as_ref()
                .and_then(|r| r.updated_input.clone());
            let why = if why.is_empty() {
                "no rule matched".to_string()
            } else {
                why
            };
            out.push(finish(case, e.verdict().to_string(), input, why));
        }
        out
    }
}

fn finish(case: &TestCase, got: String, input: Option<Value>, why: String) -> CaseResult {
    let input_ok = case
        .expect_input
        .as_ref()
        .is_none_or(|want| input.as_ref() == Some(want));
    let passed = got == case.expect && input_ok;
    let why = if got == case.expect && !input_ok {
        format!(
            "{why} · updatedInput {} ≠ expect_input {}",
            input.map_or("none".into(), |v| v.to_string()),
            case.expect_input
                .as_ref()
                .map_or("none".into(), Value::to_string)
        )
    } else {
        why
    };
    CaseResult {
        rule: case.rule.clone(),
        name: case.name.clone(),
        line: case.line,
        expected: case.expect.clone(),
        got,
        passed,
        why,
    }
}
