//! The replay pane's fixtures: `y` copies the masked payload, `Y` copies
//! it as a rule-file test case ([`test_case`]), `w` writes it to a file
//! under a path typed in a prompt line (pre-filled, editable; an existing
//! file needs a second Enter).

use super::*;

/// The `w` prompt line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WritePrompt {
    /// The path typed (pre-filled `./<event>-<tool_use_id>.json`).
    pub path: String,
    /// Set after an Enter on an existing file: the next Enter overwrites.
    pub confirm: bool,
    /// The last problem (cannot write, exists, …).
    pub error: Option<String>,
}

/// The size of `n` bytes as the status bar says it (`812 B`, `1.2 KiB`).
pub fn size_text(n: usize) -> String {
    let b = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if b < f64::from(1u32 << 20) {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{:.1} MiB", b / f64::from(1u32 << 20))
    }
}

/// JSON → TOML for a test case's `input`: `null` has no TOML form, so
/// keys holding it are dropped and named in `dropped`.
fn to_toml(v: &Value, key: &str, dropped: &mut Vec<String>) -> Option<toml::Value> {
    Some(match v {
        Value::Null => {
            dropped.push(key.to_string());
            return None;
        }
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64()?),
        },
        Value::String(s) => toml::Value::String(s.clone()),
        Value::Array(a) => toml::Value::Array(
            a.iter()
                .enumerate()
                .filter_map(|(i, x)| to_toml(x, &format!("{key}[{i}]"), dropped))
                .collect(),
        ),
        Value::Object(m) => {
            let mut t = toml::map::Map::new();
            for (k, x) in m {
                if let Some(x) = to_toml(x, &format!("{key}.{k}"), dropped) {
                    t.insert(k.clone(), x);
                }
            }
            toml::Value::Table(t)
        }
    })
}

/// A TOML basic string for `s` (escapes as TOML requires).
fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The picked payload as a top-level `[[tests]]` case of the rule-file
/// format (`crates/hookscope-core/src/hooks/rules/cases.rs`): `event`, `tool` + `input` for a
/// tool event, `cwd`, `permission_mode`, `prompt`, `agent_id`,
/// `agent_type`, the `history` before the event, and `expect` = what the
/// loaded `rules` decide on exactly this case (as `hookscope test` will
/// evaluate it). Without rules there is no `expect` line (never a guessed
/// decision) and a comment says how to get one. `payload` is the masked
/// stdin JSON; `source` names where it came from.
pub fn test_case(
    payload: &Value,
    history: &hookscope_core::hooks::rules::History,
    rules: Option<&RuleSet>,
    source: &str,
) -> String {
    let get = |k: &str| payload.get(k).and_then(Value::as_str);
    let event = get("hook_event_name").unwrap_or("PreToolUse");
    let mut body = Vec::new();
    let mut dropped = Vec::new();
    body.push(format!("event = {}", toml_str(event)));
    if let Some(tool) = get("tool_name") {
        body.push(format!("tool = {}", toml_str(tool)));
        let input = payload
            .get("tool_input")
            .cloned()
            .unwrap_or(Value::Object(Map::new()));
        match to_toml(&input, "tool_input", &mut dropped) {
            Some(t @ toml::Value::Table(_)) => body.push(format!("input = {t}")),
            _ => body.push("input = {}".to_string()),
        }
    }
    for key in ["cwd", "permission_mode", "prompt", "agent_id", "agent_type"] {
        if let Some(v) = get(key) {
            body.push(format!("{key} = {}", toml_str(v)));
        }
    }
    let mut hist = Vec::new();
    if !history.touched_files.is_empty() {
        let list: Vec<String> = history.touched_files.iter().map(|s| toml_str(s)).collect();
        hist.push(format!("touched_files = [{}]", list.join(", ")));
    }
    if !history.ran_commands.is_empty() {
        let list: Vec<String> = history.ran_commands.iter().map(|s| toml_str(s)).collect();
        hist.push(format!("ran_commands = [{}]", list.join(", ")));
    }
    if let Some(p) = &history.turn_prompt {
        hist.push(format!("turn_prompt = {}", toml_str(p)));
    }
    if !hist.is_empty() {
        body.push(format!("history = {{ {} }}", hist.join(", ")));
    }
    let mut out = vec![
        format!("# {event} replayed by hookscope from {source}"),
        "[[tests]]".to_string(),
    ];
    let name = format!("{event} at {source}");
    out.push(format!("name = {}", toml_str(&name)));
    out.extend(body);
    if !dropped.is_empty() {
        out.insert(
            1,
            format!("# left out (null has no TOML form): {}", dropped.join(", ")),
        );
    }
    match rules.map(|r| decide(r, &out.join("\n"))) {
        Some(Ok(verdict)) => out.push(format!("expect = {}", toml_str(&verdict))),
        Some(Err(e)) => out.push(format!("# no expect: the case does not parse ({e})")),
        None => out.push(
            "# no expect: no rule set is loaded (run `hookscope --rules FILE`), so no decision is known"
                .to_string(),
        ),
    }
    out.join("\n") + "\n"
}

/// What `rules` decide on the case `text` (without its `expect` line), read
/// back as `hookscope test` reads it.
fn decide(rules: &RuleSet, text: &str) -> Result<String, String> {
    let parsed = RuleSet::parse(&format!("{text}\nexpect = \"none\"\n"), "<case>")
        .map_err(|e| e.to_string())?;
    let case = parsed.tests.first().ok_or("no case")?;
    Ok(rules
        .evaluate(&case.payload, &case.history)
        .verdict()
        .to_string())
}

impl ReplayPane {
    /// The masked payload as pretty JSON (what the pane shows).
    pub fn payload_text(&self) -> Option<String> {
        let (v, _) = self.masked.as_ref()?;
        serde_json::to_string_pretty(v).ok().map(|s| s + "\n")
    }

    /// The masked payload as one line, as Claude Code sends it on a hook's
    /// stdin and as `hookscope payload` prints it (what `y` and `w` give).
    pub fn payload_line(&self) -> Option<String> {
        let (v, _) = self.masked.as_ref()?;
        serde_json::to_string(v).ok().map(|s| s + "\n")
    }

    /// Where the picked payload came from: `<session file> line N`.
    pub(super) fn source(&self) -> String {
        match &self.result {
            Some(Ok(r)) => format!(
                "{} line {}",
                r.payload
                    .source_path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                r.payload.source_line
            ),
            _ => String::new(),
        }
    }

    /// The default path for `w`: `./<event>-<tool_use_id>.json` (or the
    /// source line when the event has no call).
    pub fn default_path(&self) -> String {
        let event = self.picked().map_or("payload", EventName::as_str);
        let id = self
            .masked
            .as_ref()
            .and_then(|(v, _)| v.get("tool_use_id").and_then(Value::as_str))
            .map(str::to_string)
            .or_else(|| match &self.result {
                Some(Ok(r)) => Some(format!("line{}", r.payload.source_line)),
                _ => None,
            })
            .unwrap_or_default();
        let id: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("./{event}-{id}.json")
    }

    pub(super) fn copy(&self, ctx: &mut Ctx, as_test: bool) {
        let (Some(text), Some(Ok(r)), Some((v, counts))) =
            (self.payload_line(), &self.result, &self.masked)
        else {
            ctx.say(self.nothing_to("copy"));
            return;
        };
        let event = r.payload.event.as_str();
        let (text, what) = if as_test {
            let rules = match &ctx.rules {
                Rules::Loaded(r) => Some(r.as_ref()),
                _ => None,
            };
            let what = if rules.is_some() {
                format!("{event} test case")
            } else {
                format!("{event} test case (no expect: no rules loaded)")
            };
            (test_case(v, &r.history, rules, &self.source()), what)
        } else {
            (text, format!("{event} payload"))
        };
        let what = if counts.is_empty() {
            what
        } else {
            format!("{what}, secrets masked")
        };
        ctx.emit(Effect::Copy { text, what });
    }

    /// Enter in the prompt: writes the masked payload; a folder gets the
    /// default file name inside it (`<dir>/<event>-<tool_use_id>.json`); an
    /// existing file needs a second Enter; a special file is refused.
    pub(super) fn write(&mut self, ctx: &mut Ctx) {
        let Some(text) = self.payload_line() else {
            self.prompt = None;
            ctx.say(self.nothing_to("write"));
            return;
        };
        let event = self.picked().map_or("payload", EventName::as_str);
        let default_name = self.default_path().trim_start_matches("./").to_string();
        let Some(prompt) = self.prompt.as_mut() else {
            return;
        };
        if prompt.path.trim().is_empty() {
            prompt.error = Some("type a path".into());
            return;
        }
        prompt.path = expand_home(prompt.path.trim(), dirs::home_dir().as_deref());
        // A folder (or a link to one): the default file name inside it; the
        // prompt then shows that path, so an existing file there asks first.
        if std::fs::metadata(prompt.path.trim()).is_ok_and(|m| m.is_dir()) {
            prompt.path = Path::new(prompt.path.trim())
                .join(&default_name)
                .to_string_lossy()
                .into_owned();
        }
        let path = Path::new(prompt.path.trim());
        match std::fs::symlink_metadata(path) {
            Ok(m) if !m.is_file() => {
                prompt.error = Some("not a regular file; type another path".into());
                return;
            }
            Ok(_) if !prompt.confirm => {
                prompt.confirm = true;
                prompt.error = Some("exists: Enter again to overwrite, Esc to cancel".into());
                return;
            }
            _ => {}
        }
        // A few KiB, written once on a key press: on the UI thread.
        match std::fs::write(path, text.as_bytes()) {
            Ok(()) => {
                ctx.say(format!(
                    "wrote {event} payload ({}) to {}",
                    size_text(text.len()),
                    path.display()
                ));
                self.prompt = None;
            }
            Err(e) => {
                prompt.confirm = false;
                prompt.error = Some(format!("cannot write: {e}"));
            }
        }
    }

    pub(super) fn prompt_event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        let Some(prompt) = self.prompt.as_mut() else {
            return EventState::NotConsumed;
        };
        match action {
            Action::SearchInput(c) => prompt.path.push(c),
            Action::SearchBackspace => {
                prompt.path.pop();
            }
            Action::ClearLine => prompt.path.clear(),
            Action::SearchCancel => {
                self.prompt = None;
                ctx.say("write cancelled");
                return EventState::Consumed;
            }
            Action::SearchConfirm => {
                self.write(ctx);
                return EventState::Consumed;
            }
            Action::ForceQuit => return EventState::NotConsumed,
            _ => return EventState::Consumed,
        }
        prompt.confirm = false;
        prompt.error = None;
        EventState::Consumed
    }
}

/// `~` or `~/rest` as the home folder `home` (as a shell expands it in the
/// write prompt); any other path, or no home known, as typed.
pub fn expand_home(path: &str, home: Option<&Path>) -> String {
    match (path.strip_prefix('~'), home) {
        (Some(""), Some(h)) => h.to_string_lossy().into_owned(),
        (Some(rest), Some(h)) if rest.starts_with('/') => h
            .join(rest.trim_start_matches('/'))
            .to_string_lossy()
            .into_owned(),
        _ => path.to_string(),
    }
}
