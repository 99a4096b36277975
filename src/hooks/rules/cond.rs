//! Rule conditions (`only_if` / `skip_if`) and the subject they test: a
//! hook payload plus the session history before it (hooks.md §2.4,
//! captain_hook's `Command`, `FilePath`, `Content`, `Agent`, `FromSubagent`,
//! `TouchedFile`, `RanCommand`, …).

use globset::{Glob, GlobSet, GlobSetBuilder};
use regex::{Regex, RegexBuilder};
use serde::Serialize;
use serde_json::Value;

use crate::hooks::events::HookEvent;
use crate::shell::{CommandLine, parse_command_line};

/// Largest compiled regex accepted (1 MiB; the `regex` crate's
/// `size_limit`). Matching is linear in the input whatever the pattern (the
/// crate has no backtracking), so a "catastrophic" pattern such as `(a+)+$`
/// is safe; only its compiled size is bounded.
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// The session history a rule may ask about, filled by the replay from the
/// transcript before the event (captain_hook's `TouchedFile`, `RanCommand`
/// and `ctx.turn.matches`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct History {
    /// Paths of files edited or written earlier in the session
    /// (`tool_input.file_path` of Edit/Write/MultiEdit/NotebookEdit calls).
    #[serde(default)]
    pub touched_files: Vec<String>,
    /// Bash command lines run earlier in the session, as written.
    #[serde(default)]
    pub ran_commands: Vec<String>,
    /// The opening prompt of the current turn (the user's text).
    #[serde(default)]
    pub turn_prompt: Option<String>,
}

/// The event a rule is tested against: the hook payload (hooks.md §1.4–1.5)
/// as a typed [`HookEvent`] (seed 002), its Bash command parsed once, and
/// the [`History`].
#[derive(Debug)]
pub struct Subject<'a> {
    /// The payload as Claude Code sends it on stdin.
    pub payload: &'a Value,
    /// The typed view of the payload (`agent_id`, `is_subagent`, `cmd`, …).
    pub view: HookEvent,
    /// The session history before this event.
    pub history: &'a History,
    /// `hook_event_name` (`""` when absent).
    pub event: &'a str,
    /// `tool_name`, when the event has one.
    pub tool_name: Option<&'a str>,
    /// The Bash command line ([`HookEvent::cmd`]: no calls when the tool is
    /// not Bash or has no command).
    pub cmd: CommandLine,
}

impl<'a> Subject<'a> {
    /// Builds the subject (the payload is copied once into the typed view).
    pub fn new(payload: &'a Value, history: &'a History) -> Self {
        let event = payload
            .get("hook_event_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let tool_name = payload.get("tool_name").and_then(Value::as_str);
        let view = HookEvent::new(payload.clone());
        let cmd = view.cmd();
        Subject {
            payload,
            view,
            history,
            event,
            tool_name,
            cmd,
        }
    }

    fn input(&self) -> Option<&'a Value> {
        self.payload.get("tool_input")
    }

    fn str_field(&self, key: &str) -> Option<&'a str> {
        self.payload.get(key).and_then(Value::as_str)
    }

    /// The file the tool acts on: `tool_input.file_path`, `notebook_path`
    /// or `path`.
    pub fn file_path(&self) -> Option<&'a str> {
        let input = self.input()?;
        ["file_path", "notebook_path", "path"]
            .iter()
            .find_map(|k| input.get(*k).and_then(Value::as_str))
    }

    /// The new text the tool writes: a Write's `content`, an Edit's
    /// `new_string`, a NotebookEdit's `new_source`, each MultiEdit span's
    /// `new_string`.
    pub fn new_texts(&self) -> Vec<&'a str> {
        let Some(input) = self.input() else {
            return Vec::new();
        };
        let mut out: Vec<&str> = ["content", "new_string", "new_source"]
            .iter()
            .filter_map(|k| input.get(*k).and_then(Value::as_str))
            .collect();
        if let Some(edits) = input.get("edits").and_then(Value::as_array) {
            out.extend(
                edits
                    .iter()
                    .filter_map(|e| e.get("new_string").and_then(Value::as_str)),
            );
        }
        out
    }

    /// `agent_id`; a missing, null or empty one means the main agent
    /// (seed 002 `agent_id`, [`HookEvent::agent_id`]).
    pub fn agent_id(&self) -> Option<&str> {
        self.view.agent_id()
    }

    /// The texts a `command` regex is tested against for parsed call `i`,
    /// in order, without repeats: the call as written (quotes and leading
    /// `VAR=val` assignments included), its words without the leading
    /// assignments (`FOO=1 git push` → `git push`), and its words with
    /// leading wrappers stripped ([`crate::shell::SimpleCall::unwrapped`]:
    /// `sudo`, `env`, `nohup`, `time`, `nice`, `command`, `exec`, … →
    /// `sudo -u root git push` → `git push`). The last two are the parsed
    /// words joined by one space (quotes removed).
    fn call_texts(&self, i: usize) -> Vec<String> {
        let Some(call) = self.cmd.calls.get(i) else {
            return Vec::new();
        };
        let (a, b) = call.span;
        let written = self.cmd.raw.get(a..b).unwrap_or("").to_string();
        let mut out = vec![written];
        let argv = call.argv().join(" ");
        let (prog, args) = call.unwrapped();
        let unwrapped = std::iter::once(prog)
            .chain(args)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        for t in [argv, unwrapped] {
            if !t.is_empty() && !out.contains(&t) {
                out.push(t);
            }
        }
        out
    }
}

/// One condition of `only_if` / `skip_if`. Each holds when **any** of its
/// values matches (`program = ["rm", "shred"]`).
#[derive(Debug, Clone)]
pub enum Condition {
    /// `command`: a regex searched in each parsed simple call's source text
    /// (`rm\s+-rf` matches `cd x && rm -rf build` on call 2 of 2; a pattern
    /// cannot span two calls), then in its words without leading `VAR=val`
    /// assignments and with leading wrappers (`sudo`, `env`, `nohup`, …)
    /// stripped (`Subject::call_texts`: `^git\s+push\b` matches
    /// `FOO=1 git push` and `sudo git push`); when the command did not parse
    /// completely, also in the raw line. The first text is as written,
    /// quotes included: use `program` to match the program alone.
    Command(Vec<Regex>),
    /// `program`: a call's program name, wrappers stripped (`sudo rm` →
    /// `rm`) and compared by basename (`/bin/rm` → `rm`).
    Program(Vec<String>),
    /// `file_path`: globs over the tool's file path, tried as given and
    /// relative to the payload's `cwd`. `*` crosses `/`, so `*.rs` matches
    /// any Rust file; `**` as usual.
    FilePath(GlobSet, Vec<String>),
    /// `content`: a regex over the new text ([`Subject::new_texts`]).
    Content(Vec<Regex>),
    /// `input_contains`: a substring of any string in `tool_input`.
    InputContains(Vec<String>),
    /// `agent`: the payload's `agent_type` is one of these names, exactly
    /// (seed 002 `Agent(*names)`; `"A|B"` is split).
    Agent(Vec<String>),
    /// `subagent`: true = the event comes from a subagent (non-empty
    /// `agent_id`), false = from the main agent.
    Subagent(bool),
    /// `prompt`: a case-insensitive regex on the turn's opening prompt
    /// ([`History::turn_prompt`], else the payload's `prompt`).
    Prompt(Vec<Regex>),
    /// `permission_mode`: the payload's `permission_mode` is one of these.
    PermissionMode(Vec<String>),
    /// `touched_file`: globs over [`History::touched_files`].
    TouchedFile(GlobSet, Vec<String>),
    /// `ran_command`: an earlier command line ([`History::ran_commands`]) has
    /// a call whose argv starts with these words (`"cargo test"`).
    RanCommand(Vec<Vec<String>>),
    /// `stop_hook_active`: the payload's `stop_hook_active` (Stop and
    /// SubagentStop: true when Claude Code is already continuing because a
    /// Stop hook blocked; hooks.md §1.5, §4) equals this value.
    StopHookActive(bool),
}

/// Compiles a regex with the size limit; the error is one line.
pub fn compile_regex(pattern: &str, case_insensitive: bool) -> Result<Regex, String> {
    RegexBuilder::new(pattern)
        .case_insensitive(case_insensitive)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| regex_error_line(pattern, &e))
}

fn regex_error_line(pattern: &str, e: &regex::Error) -> String {
    let text = e.to_string();
    let detail = text
        .lines()
        .find_map(|l| l.strip_prefix("error: "))
        .unwrap_or_else(|| text.lines().last().unwrap_or("invalid"));
    // As written (not `{:?}`, which would double every backslash).
    format!("bad regex \"{pattern}\": {detail}")
}

/// Compiles globs into one set; the error names the bad glob.
pub fn compile_globs(patterns: &[String]) -> Result<GlobSet, String> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        b.add(Glob::new(p).map_err(|e| format!("bad glob \"{p}\": {e}"))?);
    }
    b.build().map_err(|e| format!("bad glob set: {e}"))
}

fn quote_list(items: &[String]) -> String {
    if items.len() == 1 {
        format!("\"{}\"", items[0])
    } else {
        format!(
            "[{}]",
            items
                .iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

fn regex_list(rs: &[Regex]) -> String {
    quote_list(
        &rs.iter()
            .map(|r| r.as_str().to_string())
            .collect::<Vec<_>>(),
    )
}

fn shorten(s: &str) -> String {
    const MAX: usize = 60;
    let one_line = s.replace('\n', "⏎");
    if one_line.chars().count() <= MAX {
        one_line
    } else {
        let cut: String = one_line.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

fn basename(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// Whether a glob set matches `path` as given or relative to `cwd`.
fn glob_hits(set: &GlobSet, path: &str, cwd: Option<&str>) -> bool {
    if set.is_match(path) {
        return true;
    }
    cwd.and_then(|c| path.strip_prefix(c.trim_end_matches('/')))
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|rel| set.is_match(rel))
}

fn all_strings<'v>(v: &'v Value, out: &mut Vec<&'v str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| all_strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| all_strings(x, out)),
        _ => {}
    }
}

impl Condition {
    /// The condition as written: `command =~ "rm\s+-rf"`, `program ∈ ["rm"]`.
    pub fn label(&self) -> String {
        match self {
            Condition::Command(r) => format!("command =~ {}", regex_list(r)),
            Condition::Program(p) => format!("program = {}", quote_list(p)),
            Condition::FilePath(_, g) => format!("file_path ~ {}", quote_list(g)),
            Condition::Content(r) => format!("content =~ {}", regex_list(r)),
            Condition::InputContains(s) => format!("input_contains {}", quote_list(s)),
            Condition::Agent(a) => format!("agent = {}", quote_list(a)),
            Condition::Subagent(true) => "subagent".to_string(),
            Condition::Subagent(false) => "main agent".to_string(),
            Condition::Prompt(r) => format!("prompt =~ {}", regex_list(r)),
            Condition::PermissionMode(m) => format!("permission_mode = {}", quote_list(m)),
            Condition::TouchedFile(_, g) => format!("touched_file ~ {}", quote_list(g)),
            Condition::RanCommand(c) => format!(
                "ran_command {}",
                quote_list(&c.iter().map(|w| w.join(" ")).collect::<Vec<_>>())
            ),
            Condition::StopHookActive(b) => format!("stop_hook_active = {b}"),
        }
    }

    /// Tests the condition: `Ok(evidence)` when it holds (what matched, for
    /// the why), `Err(reason)` when it does not.
    pub fn test(&self, s: &Subject<'_>) -> Result<String, String> {
        match self {
            Condition::Command(res) => {
                let n = s.cmd.calls.len();
                let mut tested = Vec::new();
                for i in 0..n {
                    let texts = s.call_texts(i);
                    for text in &texts {
                        if res.iter().any(|r| r.is_match(text)) {
                            let written = &texts[0];
                            return Ok(if text == written {
                                format!("on call {} of {n} ({})", i + 1, shorten(text))
                            } else {
                                format!(
                                    "on call {} of {n} ({}, from \"{}\")",
                                    i + 1,
                                    shorten(text),
                                    shorten(written)
                                )
                            });
                        }
                    }
                    tested.extend(texts);
                }
                if !s.cmd.is_ok() && res.iter().any(|r| r.is_match(&s.cmd.raw)) {
                    return Ok(format!(
                        "on the raw line (it did not parse completely: {})",
                        s.cmd
                            .error
                            .clone()
                            .or_else(|| s.cmd.limits_note())
                            .unwrap_or_default()
                    ));
                }
                if s.cmd.raw.is_empty() {
                    Err("no Bash command".into())
                } else {
                    let list: Vec<String> = tested
                        .iter()
                        .map(|t| format!("\"{}\"", shorten(t)))
                        .collect();
                    Err(format!("tested: {}", list.join(", ")))
                }
            }
            Condition::Program(names) => {
                for call in &s.cmd.calls {
                    let (prog, _) = call.unwrapped();
                    let base = basename(&prog);
                    if names.iter().any(|n| n == base) {
                        return Ok(format!("({})", shorten(&call.argv().join(" "))));
                    }
                }
                if s.cmd.raw.is_empty() {
                    Err("no Bash command".into())
                } else {
                    let progs: Vec<String> = s
                        .cmd
                        .calls
                        .iter()
                        .map(|c| basename(&c.unwrapped().0).to_string())
                        .collect();
                    Err(format!("programs are {}", quote_list(&progs)))
                }
            }
            Condition::FilePath(set, _) => match s.file_path() {
                Some(p) if glob_hits(set, p, s.payload.get("cwd").and_then(Value::as_str)) => {
                    Ok(format!("({p})"))
                }
                Some(p) => Err(format!("file_path is \"{p}\"")),
                None => Err("no file_path".into()),
            },
            Condition::Content(res) => {
                let texts = s.new_texts();
                if texts.is_empty() {
                    return Err("no new text".into());
                }
                for t in texts {
                    for r in res {
                        if let Some(m) = r.find(t) {
                            return Ok(format!("({})", shorten(m.as_str())));
                        }
                    }
                }
                Err("the new text does not match".into())
            }
            Condition::InputContains(needles) => {
                let mut strings = Vec::new();
                if let Some(i) = s.input() {
                    all_strings(i, &mut strings);
                }
                needles
                    .iter()
                    .find(|n| strings.iter().any(|h| h.contains(n.as_str())))
                    .map(|n| format!("(\"{n}\")"))
                    .ok_or_else(|| "not in tool_input".to_string())
            }
            Condition::Agent(names) => match s.str_field("agent_type") {
                Some(t) if names.iter().any(|n| n == t) => Ok(format!("({t})")),
                Some(t) => Err(format!("agent_type is \"{t}\"")),
                None => Err("no agent_type".into()),
            },
            Condition::Subagent(want) => match (s.agent_id(), want) {
                (Some(id), true) => Ok(format!("(agent_id {id})")),
                (None, false) => Ok(String::new()),
                (Some(id), false) => Err(format!("from subagent {id}")),
                (None, true) => Err("from the main agent".into()),
            },
            Condition::Prompt(res) => {
                let prompt = s
                    .history
                    .turn_prompt
                    .as_deref()
                    .or_else(|| s.str_field("prompt"));
                match prompt {
                    Some(p) => res
                        .iter()
                        .find_map(|r| r.find(p))
                        .map(|m| format!("({})", shorten(m.as_str())))
                        .ok_or_else(|| format!("prompt is \"{}\"", shorten(p))),
                    None => Err("no turn prompt known".into()),
                }
            }
            Condition::PermissionMode(modes) => match s.str_field("permission_mode") {
                Some(m) if modes.iter().any(|x| x == m) => Ok(format!("({m})")),
                Some(m) => Err(format!("permission_mode is \"{m}\"")),
                None => Err("no permission_mode".into()),
            },
            Condition::TouchedFile(set, _) => {
                let cwd = s.payload.get("cwd").and_then(Value::as_str);
                s.history
                    .touched_files
                    .iter()
                    .find(|p| glob_hits(set, p, cwd))
                    .map(|p| format!("({p})"))
                    .ok_or_else(|| {
                        format!(
                            "none of {} touched files matches",
                            s.history.touched_files.len()
                        )
                    })
            }
            Condition::RanCommand(prefixes) => {
                for line in &s.history.ran_commands {
                    let parsed = parse_command_line(line);
                    for call in &parsed.calls {
                        let (prog, args) = call.unwrapped();
                        let mut argv = vec![basename(&prog).to_string()];
                        argv.extend(args);
                        if prefixes.iter().any(|p| argv.starts_with(p)) {
                            return Ok(format!("({})", shorten(line)));
                        }
                    }
                }
                Err(format!(
                    "none of {} earlier commands",
                    s.history.ran_commands.len()
                ))
            }
            Condition::StopHookActive(want) => {
                match s.payload.get("stop_hook_active").and_then(Value::as_bool) {
                    Some(b) if b == *want => Ok(String::new()),
                    Some(b) => Err(format!("stop_hook_active is {b}")),
                    None => Err("no stop_hook_active".into()),
                }
            }
        }
    }
}
