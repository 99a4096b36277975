//! Rule conditions (`only_if` / `skip_if`) and the subject they test: a
//! hook payload plus the session history before it (docs/rules.md#rule-sets,
//! captain_hook's `Command`, `FilePath`, `Content`, `Agent`, `FromSubagent`,
//! `TouchedFile`, `RanCommand`, …).

use globset::{Glob, GlobSet, GlobSetBuilder};
use regex::{Regex, RegexBuilder};
use serde::Serialize;
use serde_json::Value;

use crate::hooks::events::HookEvent;
use crate::shell::{RawToken, ReadCommand, parse_command_line};

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

/// The event a rule is tested against: the hook payload (docs/contract.md#common-input-fields, docs/contract.md#per-event-input-fields)
/// as a typed [`HookEvent`] (docs/hook-api.md#typed-event-views), its Bash command parsed once with
/// the scripts it hands to a shell ([`ReadCommand`]), and the [`History`].
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
    /// not Bash or has no command) read with the scripts its calls run
    /// (`sh -c`, `eval`, `find -exec`; docs/rules.md "Rule sets").
    pub read: std::rc::Rc<ReadCommand>,
    /// The Codex patch the call applies, parsed once on first use
    /// ([`Subject::patch`]).
    patch: std::cell::OnceCell<Option<crate::tools::ApplyPatch>>,
}

/// [`HookEvent::cmd`] of a Bash `command`, read with its scripts
/// ([`ReadCommand::new`]): a pure function of the text, so each command
/// line is parsed once per thread and shared after (a backtest meets
/// `git status` and `cargo test` thousands of times; [`LineMemo`]).
fn read_command(command: &str) -> std::rc::Rc<ReadCommand> {
    thread_local! {
        static MEMO: std::cell::RefCell<LineMemo<ReadCommand>> =
            std::cell::RefCell::new(LineMemo::default());
    }
    MEMO.with(|memo| {
        memo.borrow_mut()
            .get_or(command, || ReadCommand::new(parse_command_line(command)))
    })
}

/// The words of each call an earlier command line runs, as `ran_command`
/// compares them: the program's basename, then its arguments, with the
/// wrappers (`sudo`, `env`, …) unwrapped (docs/rules.md#rule-sets, "only_if / skip_if"). A pure
/// function of the line, kept per thread ([`LineMemo`]): a Stop tests every
/// earlier command of its session, so a session of thousands of commands
/// and Stops would otherwise parse each line once per Stop.
fn ran_words(line: &str) -> std::rc::Rc<Vec<Vec<String>>> {
    thread_local! {
        static MEMO: std::cell::RefCell<LineMemo<Vec<Vec<String>>>> =
            std::cell::RefCell::new(LineMemo::default());
    }
    MEMO.with(|memo| {
        memo.borrow_mut().get_or(line, || {
            parse_command_line(line)
                .calls
                .iter()
                .map(|call| {
                    let (prog, args) = call.unwrapped();
                    let mut argv = vec![basename(&prog).to_string()];
                    argv.extend(args);
                    argv
                })
                .collect()
        })
    })
}

/// A per-thread memo from a command line to what is read from it, holding
/// at most [`READ_MEMO_BYTES`] of command text (past that it starts again);
/// a line over 1/64 of that is read each time and not kept.
struct LineMemo<V> {
    map: std::collections::HashMap<String, std::rc::Rc<V>>,
    bytes: usize,
}

impl<V> Default for LineMemo<V> {
    fn default() -> Self {
        LineMemo {
            map: std::collections::HashMap::new(),
            bytes: 0,
        }
    }
}

impl<V> LineMemo<V> {
    /// What `read` gives for `line`, from the memo when it is there.
    fn get_or(&mut self, line: &str, read: impl FnOnce() -> V) -> std::rc::Rc<V> {
        if line.len() > READ_MEMO_BYTES / 64 {
            return std::rc::Rc::new(read());
        }
        if let Some(v) = self.map.get(line) {
            return v.clone();
        }
        let v = std::rc::Rc::new(read());
        if self.bytes + line.len() > READ_MEMO_BYTES {
            self.map.clear();
            self.bytes = 0;
        }
        self.bytes += line.len();
        self.map.insert(line.to_string(), v.clone());
        v
    }
}

/// The command text each of [`read_command`]'s and [`ran_words`]'s memos
/// holds at most, per thread (1 MiB; a command over 1/64 of it is parsed
/// each time).
const READ_MEMO_BYTES: usize = 1 << 20;

impl<'a> Subject<'a> {
    /// Builds the subject (the payload is copied once into the typed view).
    pub fn new(payload: &'a Value, history: &'a History) -> Self {
        let event = payload
            .get("hook_event_name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let tool_name = payload.get("tool_name").and_then(Value::as_str);
        let view = HookEvent::new(payload.clone());
        let command = match view.call() {
            Some(crate::tools::ToolCall::Bash(bash)) => bash.command,
            _ => String::new(),
        };
        let read = read_command(&command);
        Subject {
            payload,
            view,
            history,
            event,
            tool_name,
            read,
            patch: std::cell::OnceCell::new(),
        }
    }

    /// The command line as given (`""` without one).
    pub fn command(&self) -> &str {
        self.read.line().map_or("", |l| l.raw.as_str())
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

    /// The Codex patch the payload's call applies (`apply_patch`, its text
    /// under `tool_input.command` as Codex hands it to hooks, or `input` /
    /// `patch`; [`crate::tools::apply_patch_text`]), parsed.
    /// Parsed on the first call; every rule's `file_path` and `content`
    /// read the same.
    fn patch(&self) -> Option<&crate::tools::ApplyPatch> {
        self.patch
            .get_or_init(|| {
                let name = self.tool_name?;
                let call =
                    crate::tools::parse_tool_call(name, self.input(), crate::tools::OnError::Other)
                        .ok()?;
                crate::tools::apply_patch_text(&call).map(crate::tools::parse_apply_patch)
            })
            .as_ref()
    }

    /// Every file the call acts on: [`Subject::file_path`], else each
    /// file of its Codex patch (a moved file by both names), in patch
    /// order.
    pub fn file_paths(&self) -> Vec<String> {
        if let Some(p) = self.file_path() {
            return vec![p.to_string()];
        }
        self.patch()
            .map(|patch| {
                patch
                    .files
                    .iter()
                    .flat_map(|f| std::iter::once(&f.path).chain(&f.move_to))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The new text of a Codex patch, one text per file: its added lines.
    fn patch_texts(&self) -> Vec<String> {
        self.patch()
            .map(|patch| {
                patch
                    .files
                    .iter()
                    .map(|f| {
                        f.chunks
                            .iter()
                            .flat_map(|c| &c.lines)
                            .filter(|(tag, _)| *tag == crate::tools::LineTag::Added)
                            .map(|(_, l)| format!("{l}\n"))
                            .collect::<String>()
                    })
                    .filter(|t| !t.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The new text the tool writes: a Write's `content`, an Edit's
    /// `new_string`, a NotebookEdit's `new_source`, each MultiEdit span's
    /// `new_string` (a Codex patch's added lines are read by the `content` condition).
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
    /// (docs/hook-api.md#typed-event-views, [`HookEvent::agent_id`]).
    pub fn agent_id(&self) -> Option<&str> {
        self.view.agent_id()
    }

    /// The texts a `command` regex is tested against for read call `r`
    /// ([`ReadCommand::calls`]), in order, without repeats: the call as
    /// written in its script (quotes and leading `VAR=val` assignments
    /// included), its words without the leading assignments (`FOO=1 git
    /// push` → `git push`), and its words with leading wrappers stripped
    /// ([`crate::shell::SimpleCall::unwrapped`]: `sudo`, `env`, `nohup`,
    /// `time`, `nice`, `command`, `exec`, … → `sudo -u root git push` →
    /// `git push`). The last two are the parsed words joined by one space
    /// (quotes removed).
    fn call_texts(&self, r: usize) -> Vec<String> {
        let Some(call) = self.read.call(r) else {
            return Vec::new();
        };
        let mut out = vec![self.read.written(r).to_string()];
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

    /// The program of read call `r` as `program` compares it: wrappers
    /// stripped, basename.
    fn program(&self, r: usize) -> String {
        self.read
            .call(r)
            .map(|c| basename(&c.unwrapped().0).to_string())
            .unwrap_or_default()
    }

    /// `on call 2 of 3`: read call `r`'s place among its script's calls.
    fn at_call(&self, r: usize) -> String {
        let (i, n) = self.read.position(r);
        format!("on call {i} of {n}")
    }

    /// `, inside sh -c` for a call of a nested script, `""` on the line.
    fn inside(&self, r: usize) -> String {
        self.read
            .place(r)
            .map(|p| format!(", {p}"))
            .unwrap_or_default()
    }

    /// The first [`crate::shell::Unread`] text whose raw words hold a word
    /// `hit` accepts: that text's why and the word.
    fn raw_word(&self, hit: impl Fn(&str) -> bool) -> Option<(&str, String)> {
        self.read
            .unread
            .iter()
            .zip(self.read.unread_tokens())
            .find_map(|(u, tokens)| {
                tokens.iter().find_map(|t| match t {
                    RawToken::Word(w) if hit(w) => Some((u.why.as_str(), w.clone())),
                    _ => None,
                })
            })
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
    /// `FOO=1 git push` and `sudo git push`). Calls of nested scripts
    /// (`sh -c`, `eval`, `find -exec`) are tested like the line's own.
    /// When a text was not parsed whole ([`ReadCommand::unread`]), also
    /// in that text. The first text is as written, quotes included: use
    /// `program` to match the program alone.
    Command(Vec<Pattern>),
    /// `program`: a call's program name, wrappers stripped (`sudo rm` →
    /// `rm`) and compared by basename (`/bin/rm` → `rm`), over every call
    /// read, those of nested scripts included (`bash -c 'rm -rf x'`). When
    /// a text was not parsed whole, also any word of its raw text
    /// ([`crate::shell::raw_tokens`]: quotes and backslashes dropped, so
    /// `echo rm` counts there). A program given by an expansion (`$CMD`)
    /// is not known and matches no name.
    Program(Vec<String>),
    /// `pipeline`: programs in order within one pipeline (any of several
    /// such lists): each step names one program or several (`"sh|bash"`),
    /// and each step's program must run in a later stage than the one
    /// before, not necessarily the next (`["curl", "sh"]` holds for `curl
    /// x | tee log | sudo sh`). Programs compare as for `program`; a stage
    /// runs every call inside it (`(cd /; sh)`, the script of `bash -c`).
    /// When a text was not parsed whole, also its raw words in order with
    /// a `|` between each step's word and the next.
    Pipeline(Vec<Vec<Vec<String>>>),
    /// `line`: a regex searched in the whole command line as given, quotes
    /// and all, with no parsing (`curl[^|]*\|\s*(ba)?sh`).
    Line(Vec<Pattern>),
    /// `file_path`: globs over the tool's file path, tried as given and
    /// relative to the payload's `cwd`. `*` crosses `/`, so `*.rs` matches
    /// any Rust file; `**` as usual.
    FilePath(GlobSet, Vec<String>),
    /// `content`: a regex over the new text ([`Subject::new_texts`]).
    Content(Vec<Pattern>),
    /// `input_contains`: a substring of any string in `tool_input`.
    InputContains(Vec<String>),
    /// `agent`: the payload's `agent_type` is one of these names, exactly
    /// (captain_hook's `Agent(*names)`; `"A|B"` is split).
    Agent(Vec<String>),
    /// `subagent`: true = the event comes from a subagent (non-empty
    /// `agent_id`), false = from the main agent.
    Subagent(bool),
    /// `prompt`: a case-insensitive regex on the turn's opening prompt
    /// ([`History::turn_prompt`], else the payload's `prompt`).
    Prompt(Vec<Pattern>),
    /// `permission_mode`: the payload's `permission_mode` is one of these.
    PermissionMode(Vec<String>),
    /// `touched_file`: globs over [`History::touched_files`].
    TouchedFile(GlobSet, Vec<String>),
    /// `ran_command`: an earlier command line ([`History::ran_commands`]) has
    /// a call whose argv starts with these words (`"cargo test"`).
    RanCommand(Vec<Vec<String>>),
    /// `stop_hook_active`: the payload's `stop_hook_active` (Stop and
    /// SubagentStop: true when Claude Code is already continuing because a
    /// Stop hook blocked; docs/contract.md#per-event-input-fields, docs/contract.md#known-pitfalls) equals this value.
    StopHookActive(bool),
}

/// A rule's regex (`command`, `line`, `content`, `prompt`, a rewrite's
/// `pattern`; docs/rules.md#rule-sets): compiled when the rule file
/// loads, or, for a file whose content the hook already loaded whole
/// (docs/live-hook.md#the-rule-cache), on its first use, so a hook call
/// compiles only the regexes its payload reaches.
///
/// A deferred pattern that does not compile (only possible when the cache
/// entry lies: the same text compiled before) matches nothing.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    case_insensitive: bool,
    compiled: std::sync::OnceLock<Option<Regex>>,
}

impl Pattern {
    /// A pattern already compiled (`regex` built from `source`).
    pub(crate) fn compiled(regex: Regex, case_insensitive: bool) -> Pattern {
        Pattern {
            source: regex.as_str().to_string(),
            case_insensitive,
            compiled: std::sync::OnceLock::from(Some(regex)),
        }
    }

    /// A pattern compiled on first use, within [`REGEX_SIZE_LIMIT`].
    pub(crate) fn deferred(source: &str, case_insensitive: bool) -> Pattern {
        Pattern {
            source: source.to_string(),
            case_insensitive,
            compiled: std::sync::OnceLock::new(),
        }
    }

    /// The regex as written in the rule file.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The compiled regex (compiling it now when deferred); `None` when it
    /// does not compile.
    pub fn regex(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| compile_regex(&self.source, self.case_insensitive).ok())
            .as_ref()
    }

    /// [`Regex::is_match`]; false when the pattern does not compile.
    pub fn is_match(&self, haystack: &str) -> bool {
        self.regex().is_some_and(|r| r.is_match(haystack))
    }

    /// [`Regex::find`]; `None` when the pattern does not compile.
    pub fn find<'h>(&self, haystack: &'h str) -> Option<regex::Match<'h>> {
        self.regex().and_then(|r| r.find(haystack))
    }
}

/// Compiles a regex with the size limit; the error is one line.
pub fn compile_regex(pattern: &str, case_insensitive: bool) -> Result<Regex, String> {
    compile_regex_within(pattern, case_insensitive, REGEX_SIZE_LIMIT).map_err(|(e, _)| e)
}

/// Compiles a regex within `limit` bytes compiled (the `regex` crate's
/// `size_limit`); the error is one line, and `true` when the pattern was
/// only too large.
pub(crate) fn compile_regex_within(
    pattern: &str,
    case_insensitive: bool,
    limit: usize,
) -> Result<Regex, (String, bool)> {
    RegexBuilder::new(pattern)
        .case_insensitive(case_insensitive)
        .size_limit(limit)
        .build()
        .map_err(|e| {
            (
                regex_error_line(pattern, &e),
                matches!(e, regex::Error::CompiledTooBig(_)),
            )
        })
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

/// `"a"` for one item, else `["a", "b"]`.
fn quote_list(items: &[String]) -> String {
    match items {
        [one] => format!("\"{one}\""),
        _ => bracket_list(items),
    }
}

/// `["a", "b"]`, whatever the count.
fn bracket_list(items: &[String]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn regex_list(rs: &[Pattern]) -> String {
    quote_list(
        &rs.iter()
            .map(|r| r.as_str().to_string())
            .collect::<Vec<_>>(),
    )
}

fn shorten(s: &str) -> String {
    const MAX: usize = 60;
    // Secrets are masked before the cut: a token cut short no longer
    // matches its pattern, and its head would be shown (and logged).
    let mut counts = crate::redact::Redactions::new();
    let s = crate::redact::redactor().redact(s, &mut counts);
    let one_line = s.replace('\n', "⏎");
    if one_line.chars().count() <= MAX {
        one_line
    } else {
        let cut: String = one_line.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

/// Most items a why lists (20); more are counted: `(+N more)`.
const MAX_LISTED: usize = 20;

/// `items` cut to [`MAX_LISTED`], with `(+N more)` as a last item when cut.
fn capped(items: &[String]) -> Vec<String> {
    let mut out: Vec<String> = items.iter().take(MAX_LISTED).cloned().collect();
    if items.len() > MAX_LISTED {
        out.push(format!("(+{} more)", items.len() - MAX_LISTED));
    }
    out
}

/// The first way `steps` (each a list of programs, any of which will do)
/// run in order in `stages` (per stage, its read calls and their
/// programs), one step per stage, in later and later stages: per step the
/// stage index and the read call. Greedy: each step takes the first stage
/// that can, which never loses a match.
fn in_order(steps: &[Vec<String>], stages: &[Vec<(usize, String)>]) -> Option<Vec<(usize, usize)>> {
    let mut hits = Vec::with_capacity(steps.len());
    for (i, stage) in stages.iter().enumerate() {
        let Some(step) = steps.get(hits.len()) else {
            break;
        };
        if let Some((r, _)) = stage.iter().find(|(_, p)| step.iter().any(|n| n == p)) {
            hits.push((i, *r));
        }
    }
    (hits.len() == steps.len()).then_some(hits)
}

/// [`in_order`] over raw words ([`crate::shell::raw_tokens`]): each step's
/// word must come after a `|` that follows the previous step's word. The
/// words found.
fn raw_in_order(steps: &[Vec<String>], tokens: &[RawToken]) -> Option<Vec<String>> {
    let mut found = Vec::with_capacity(steps.len());
    let mut need_pipe = false;
    for t in tokens {
        let Some(step) = steps.get(found.len()) else {
            break;
        };
        match t {
            RawToken::Pipe => need_pipe = false,
            RawToken::Word(w) if !need_pipe && step.iter().any(|n| n == basename(w)) => {
                found.push(w.clone());
                need_pipe = true;
            }
            RawToken::Word(_) => {}
        }
    }
    (found.len() == steps.len()).then_some(found)
}

/// The matched calls of a pipeline as shell text
/// ([`crate::shell::SimpleCall::display`]), `curl -s x | … | sh` (`…` for
/// stages skipped).
fn shown_stages(s: &Subject<'_>, hits: &[(usize, usize)]) -> String {
    let mut out = String::new();
    let mut last: Option<usize> = None;
    for &(stage, r) in hits {
        if let Some(prev) = last {
            out.push_str(if stage > prev + 1 { " | … | " } else { " | " });
        }
        out.push_str(&s.read.call(r).map(|c| c.display()).unwrap_or_default());
        last = Some(stage);
    }
    out
}

/// The programs a stage runs, for a why: `sh`, or `(cd, sh)`.
fn stage_programs(s: &Subject<'_>, reads: &[usize]) -> String {
    let programs: Vec<String> = reads.iter().map(|&r| s.program(r)).collect();
    match programs.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", programs.join(", ")),
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
    /// Whether the condition reads the session history (`prompt`,
    /// `touched_file`, `ran_command`).
    pub fn reads_history(&self) -> bool {
        matches!(
            self,
            Condition::Prompt(_) | Condition::TouchedFile(..) | Condition::RanCommand(_)
        )
    }

    /// Whether the condition reads the call alone: the payload's
    /// `tool_name` and `tool_input` (`command`, `program`, `pipeline`,
    /// `line`, `content`, `input_contains`), nothing of the line it was
    /// recorded on nor of the session. On a PreToolUse or
    /// PermissionRequest payload, which carries the `tool_use` block's name
    /// and input as recorded, its outcome is known from the block alone
    /// ([`Condition::may_hold_on_call`]).
    pub fn reads_call_alone(&self) -> bool {
        matches!(
            self,
            Condition::Command(_)
                | Condition::Program(_)
                | Condition::Pipeline(_)
                | Condition::Line(_)
                | Condition::Content(_)
                | Condition::InputContains(_)
        )
    }

    /// Whether the condition may hold on a payload whose `tool_name` and
    /// `tool_input` are those of `s` (a subject built from them alone),
    /// whatever else the payload holds: a condition that reads the call
    /// alone ([`Condition::reads_call_alone`]) is tested; `file_path` holds
    /// when one of the call's files matches as given or relative to some
    /// `cwd` (the part after any `/` of it, since `cwd` is not known); any
    /// other condition (`agent`, `subagent`, `permission_mode`, the history,
    /// `stop_hook_active`) may hold. `false` means no payload of this call
    /// makes the condition hold.
    pub fn may_hold_on_call(&self, s: &Subject<'_>) -> bool {
        match self {
            Condition::FilePath(set, _) => s.file_paths().iter().any(|p| {
                set.is_match(p) || p.match_indices('/').any(|(i, _)| set.is_match(&p[i + 1..]))
            }),
            c if c.reads_call_alone() => c.test(s).is_ok(),
            _ => true,
        }
    }

    /// Whether the condition reads the Bash command's calls (`command`,
    /// `program`, `pipeline`): on a command not parsed whole its outcome is
    /// uncertain, and the rule decides which way it falls (docs/rules.md "Rule
    /// sets": the long-command rule). `line` reads the text whole and is
    /// not one of them.
    pub fn reads_calls(&self) -> bool {
        matches!(
            self,
            Condition::Command(_) | Condition::Program(_) | Condition::Pipeline(_)
        )
    }

    /// The condition as written: `command =~ "rm\s+-rf"`, `program ∈ ["rm"]`.
    pub fn label(&self) -> String {
        match self {
            Condition::Command(r) => format!("command =~ {}", regex_list(r)),
            Condition::Program(p) => format!("program = {}", quote_list(p)),
            Condition::Pipeline(specs) => {
                let one = |steps: &Vec<Vec<String>>| {
                    bracket_list(&steps.iter().map(|alts| alts.join("|")).collect::<Vec<_>>())
                };
                match specs.as_slice() {
                    [steps] => format!("pipeline = {}", one(steps)),
                    _ => format!(
                        "pipeline = [{}]",
                        specs.iter().map(one).collect::<Vec<_>>().join(", ")
                    ),
                }
            }
            Condition::Line(r) => format!("line =~ {}", regex_list(r)),
            Condition::FilePath(_, g) => format!("file_path ~ {}", quote_list(g)),
            Condition::Content(r) => format!("content =~ {}", regex_list(r)),
            Condition::InputContains(s) => format!("input_contains {}", quote_list(s)),
            Condition::Agent(a) => format!("agent = {}", quote_list(a)),
            Condition::Subagent(want) => format!("subagent = {want}"),
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

    /// For a rule that approves (allow, warn, rewrite; `noun` names it, `an
    /// allow rule`): whether `command` or `program` holds on **every** call
    /// the line runs, each a plain call, since the answer approves the
    /// whole line (docs/rules.md "Approving rules hold on every call"). A
    /// plain call sets no variable before its program (`GIT_SSH_COMMAND=…
    /// git`), writes no file by redirection (`> f`, `>> f`, `&> f`; to
    /// `/dev/null`, duplicating a descriptor and reading are fine), and runs
    /// through no wrapper (`sudo`, `env`, `timeout`, `xargs`, …). A call that
    /// only hands its script to a shell (`sh -c '…'`, `eval '…'`) is passed
    /// over for the condition (the calls of its script are tested instead)
    /// but must be plain too. `Err` is the why's detail, naming the first
    /// call that fails; other conditions always pass.
    pub fn on_every_call(&self, s: &Subject<'_>, noun: &str) -> Result<(), String> {
        self.every_call(s, Some(noun))
    }

    /// For a `skip_if` of a guarding rule (block, context): whether
    /// `command` or `program` holds on **every** call the line runs, so a
    /// skip meant for one harmless call (`rm -rf /tmp/x`) cannot excuse a
    /// second one beside it (`rm -rf /tmp/x && rm -rf /`; docs/rules.md
    /// "Approving rules hold on every call"). Shell carriers are passed over
    /// as in [`Condition::on_every_call`]; plainness is not asked. `Err`
    /// names the first call it does not hold on; other conditions always
    /// pass.
    pub fn skip_on_every_call(&self, s: &Subject<'_>) -> Result<(), String> {
        self.every_call(s, None)
    }

    /// [`Condition::on_every_call`] (with the approving rule's `noun`,
    /// which also asks for plain calls) or
    /// [`Condition::skip_on_every_call`] (`None`).
    fn every_call(&self, s: &Subject<'_>, noun: Option<&str>) -> Result<(), String> {
        let holds = |r: usize| match self {
            Condition::Command(res) => s
                .call_texts(r)
                .iter()
                .any(|t| res.iter().any(|re| re.is_match(t))),
            Condition::Program(names) => {
                let p = s.program(r);
                names.iter().any(|n| n == basename(&p))
            }
            _ => true,
        };
        // A patch of several files is approved whole: each file must match.
        if let (Condition::FilePath(set, _), Some(noun)) = (self, noun) {
            let cwd = s.payload.get("cwd").and_then(Value::as_str);
            return match s.file_paths().iter().find(|p| !glob_hits(set, p, cwd)) {
                Some(p) => Err(format!(
                    "the patch also changes \"{}\": {noun} approves the whole patch, so every file must match",
                    shorten(p)
                )),
                None => Ok(()),
            };
        }
        if !matches!(self, Condition::Command(_) | Condition::Program(_)) {
            return Ok(());
        }
        let shell_carrier = |r: usize| {
            s.read
                .scripts
                .iter()
                .any(|sc| sc.carrier == Some(r) && (sc.via.ends_with(" -c") || sc.via == "eval"))
        };
        let call_named = |r: usize| {
            format!(
                "{} runs \"{}\"{}",
                s.at_call(r).trim_start_matches("on "),
                shorten(s.read.written(r)),
                s.inside(r)
            )
        };
        for r in 0..s.read.calls.len() {
            if let Some(noun) = noun
                && let Some(why) = s.read.call(r).and_then(not_plain)
            {
                return Err(format!(
                    "{}, {why}: {noun} approves the whole line, and approves only plain calls",
                    call_named(r)
                ));
            }
            if !shell_carrier(r) && !holds(r) {
                return Err(match noun {
                    Some(noun) => format!(
                        "{}: {noun} approves the whole line, so this must hold on every call",
                        call_named(r)
                    ),
                    None => format!(
                        "{}: a skip of a guard must hold on every call of the line",
                        call_named(r)
                    ),
                });
            }
        }
        Ok(())
    }

    /// Tests the condition: `Ok(evidence)` when it holds (what matched, for
    /// the why), `Err(reason)` when it does not.
    pub fn test(&self, s: &Subject<'_>) -> Result<String, String> {
        match self {
            Condition::Command(res) => {
                let mut tested = Vec::new();
                for r in 0..s.read.calls.len() {
                    let texts = s.call_texts(r);
                    for text in &texts {
                        if res.iter().any(|re| re.is_match(text)) {
                            let written = &texts[0];
                            let from = if text == written {
                                String::new()
                            } else {
                                format!(", from \"{}\"", shorten(written))
                            };
                            return Ok(format!(
                                "{} ({}{from}{})",
                                s.at_call(r),
                                shorten(text),
                                s.inside(r)
                            ));
                        }
                    }
                    tested.extend(texts);
                }
                let raw_hit = s.read.unread.iter().find_map(|u| {
                    let text = s.read.unread_text(u);
                    res.iter()
                        .find_map(|re| re.find(text))
                        .map(|m| (u.why.as_str(), m.as_str()))
                });
                if let Some((why, hit)) = raw_hit {
                    return Ok(format!(
                        "({why}; matched on raw text: \"{}\")",
                        shorten(hit)
                    ));
                }
                if s.command().is_empty() {
                    Err("no Bash command".into())
                } else {
                    let list: Vec<String> = tested
                        .iter()
                        .map(|t| format!("\"{}\"", shorten(t)))
                        .collect();
                    Err(format!("tested: {}", capped(&list).join(", ")))
                }
            }
            Condition::Program(names) => {
                let wanted = |p: &str| names.iter().any(|n| n == basename(p));
                for r in 0..s.read.calls.len() {
                    if !wanted(&s.program(r)) {
                        continue;
                    }
                    let argv = s
                        .read
                        .call(r)
                        .map(|c| c.argv().join(" "))
                        .unwrap_or_default();
                    return Ok(match s.read.place(r) {
                        None => format!("({})", shorten(&argv)),
                        Some(place) => {
                            format!("{} ({}, {place})", s.at_call(r), shorten(&argv))
                        }
                    });
                }
                if let Some((why, word)) = s.raw_word(wanted) {
                    return Ok(format!(
                        "({why}; matched on raw text: \"{}\")",
                        shorten(&word)
                    ));
                }
                if s.command().is_empty() {
                    Err("no Bash command".into())
                } else {
                    let progs: Vec<String> =
                        (0..s.read.calls.len()).map(|r| s.program(r)).collect();
                    Err(format!("programs are {}", quote_list(&capped(&progs))))
                }
            }
            Condition::Pipeline(specs) => {
                let pipes = s.read.pipelines();
                for (script, stages) in pipes {
                    let programs: Vec<Vec<(usize, String)>> = stages
                        .iter()
                        .map(|reads| reads.iter().map(|&r| (r, s.program(r))).collect())
                        .collect();
                    if let Some(hits) = specs.iter().find_map(|steps| in_order(steps, &programs)) {
                        let place = s
                            .read
                            .script_place(*script)
                            .map(|p| format!(", {p}"))
                            .unwrap_or_default();
                        return Ok(format!("({}{place})", shorten(&shown_stages(s, &hits))));
                    }
                }
                let raw_hit =
                    s.read
                        .unread
                        .iter()
                        .zip(s.read.unread_tokens())
                        .find_map(|(u, tokens)| {
                            specs
                                .iter()
                                .find_map(|steps| raw_in_order(steps, tokens))
                                .map(|words| (u.why.as_str(), words.join(" | ")))
                        });
                if let Some((why, words)) = raw_hit {
                    return Ok(format!(
                        "({why}; matched on raw text: \"{}\")",
                        shorten(&words)
                    ));
                }
                if s.command().is_empty() {
                    Err("no Bash command".into())
                } else if pipes.is_empty() {
                    Err("no pipeline".into())
                } else {
                    let shown: Vec<String> = pipes
                        .iter()
                        .map(|(_, stages)| {
                            stages
                                .iter()
                                .map(|reads| stage_programs(s, reads))
                                .collect::<Vec<_>>()
                                .join(" | ")
                        })
                        .collect();
                    Err(format!("pipelines are {}", quote_list(&capped(&shown))))
                }
            }
            Condition::Line(res) => {
                let line = s.command();
                if line.is_empty() {
                    return Err("no Bash command".into());
                }
                res.iter()
                    .find_map(|r| r.find(line))
                    .map(|m| format!("({})", shorten(m.as_str())))
                    .ok_or_else(|| format!("the line does not match: \"{}\"", shorten(line)))
            }
            Condition::FilePath(set, _) => {
                let cwd = s.payload.get("cwd").and_then(Value::as_str);
                let paths = s.file_paths();
                if let Some(p) = paths.iter().find(|p| glob_hits(set, p, cwd)) {
                    return Ok(format!("({p})"));
                }
                match paths.as_slice() {
                    [] => Err("no file_path".into()),
                    [p] => Err(format!("file_path is \"{p}\"")),
                    many => Err(format!(
                        "the patch's files are {}",
                        quote_list(&capped(many))
                    )),
                }
            }
            Condition::Content(res) => {
                // A Codex patch's added lines only when the input names no
                // new text of its own.
                let mut texts = s.new_texts();
                let patched = if texts.is_empty() {
                    s.patch_texts()
                } else {
                    Vec::new()
                };
                if texts.is_empty() {
                    texts = patched.iter().map(String::as_str).collect();
                }
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
            Condition::Subagent(want) => {
                // No id does not prove the main agent: a rebuilt payload
                // of a subagent whose transcript records no id (older
                // inline-sidechain layouts) has its `agent_type` alone.
                let no_id = || match s.str_field("agent_type") {
                    Some(t) => format!(
                        "no agent_id; agent_type \"{t}\": the main agent run with --agent, or a subagent whose id was not recorded"
                    ),
                    None => "no agent_id".to_string(),
                };
                match (s.agent_id(), want) {
                    (Some(id), true) => Ok(format!("(agent_id {id})")),
                    (None, false) => Ok(format!("({})", no_id())),
                    (Some(id), false) => Err(format!("from subagent {id}")),
                    (None, true) => Err(no_id()),
                }
            }
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
                // A call's words come from its text: without a quote or a
                // backslash (which can join or spell a word otherwise) a
                // line lacking every prefix's program name as a substring
                // cannot run it, and is not parsed (a long session holds
                // tens of thousands of commands).
                let programs: Option<Vec<&str>> = prefixes
                    .iter()
                    .map(|p| p.first().map(String::as_str).filter(|w| !w.is_empty()))
                    .collect();
                for line in &s.history.ran_commands {
                    if let Some(programs) = &programs
                        && memchr::memchr3(b'\'', b'"', b'\\', line.as_bytes()).is_none()
                        && !programs.iter().any(|p| line.contains(p))
                    {
                        continue;
                    }
                    let words = ran_words(line);
                    if words
                        .iter()
                        .any(|argv| prefixes.iter().any(|p| argv.starts_with(p)))
                    {
                        return Ok(format!("({})", shorten(line)));
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

/// Why `call` is not a plain call for an approving rule
/// ([`Condition::on_every_call`]): it sets a variable first, writes a file
/// by redirection, or runs through a wrapper; `None` when plain.
fn not_plain(call: &crate::shell::SimpleCall) -> Option<String> {
    if let Some(a) = call.env.first() {
        return Some(format!("which sets {}= first", a.name));
    }
    let writes = call.redirects.iter().find(|r| {
        let output = matches!(r.op.as_str(), ">" | ">>" | ">|" | "&>" | "&>>" | "<>");
        output && r.target != "/dev/null"
    });
    if let Some(r) = writes {
        return Some(format!("which writes to {} ({})", shorten(&r.target), r.op));
    }
    let (program, args) = call.unwrapped();
    if program != call.program || args != call.args {
        return Some(format!("which runs through {}", basename(&call.program)));
    }
    None
}

#[cfg(test)]
mod memo_tests {
    use super::*;

    /// A command read twice is the same reading, shared; it equals a fresh
    /// reading; a command too long for the memo is read each time.
    #[test]
    fn a_command_line_is_read_once_and_shared() {
        let line = "cd src && sudo rm -rf build && bash -c 'git push --force'";
        let first = read_command(line);
        let _other = read_command("ls -la");
        let again = read_command(line);
        assert!(std::rc::Rc::ptr_eq(&first, &again));
        let fresh = ReadCommand::new(parse_command_line(line));
        assert_eq!(format!("{:?}", *again), format!("{fresh:?}"));
        // cd, rm (behind sudo), bash, and the git its script runs.
        assert_eq!(again.calls.len(), 4);
        let long = format!("echo {}", "x".repeat(READ_MEMO_BYTES / 64));
        assert!(!std::rc::Rc::ptr_eq(
            &read_command(&long),
            &read_command(&long)
        ));
    }

    /// `ran_command` reads an earlier line's words once per thread: the
    /// words of each call, wrappers unwrapped and the program's basename.
    #[test]
    fn an_earlier_command_is_split_into_words_once() {
        let line = "sudo /usr/bin/git push --force && cargo test | tee log";
        let first = ran_words(line);
        let _other = ran_words("ls -la");
        assert!(std::rc::Rc::ptr_eq(&first, &ran_words(line)));
        let words: Vec<Vec<&str>> = first
            .iter()
            .map(|w| w.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            words,
            vec![
                vec!["git", "push", "--force"],
                vec!["cargo", "test"],
                vec!["tee", "log"]
            ]
        );
    }
}
