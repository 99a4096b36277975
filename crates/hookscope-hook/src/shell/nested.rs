//! A command line read together with the scripts it hands to another
//! shell, for rules that must see every command a line runs (docs/rules.md "Rule
//! sets": the nested-shell rule).
//!
//! [`ReadCommand::new`] opens, recursively:
//! * the script of a shell run with `-c` ([`SimpleCall::shell_script`]:
//!   `sh`, `bash`, `zsh`, `dash`, `ksh`, `mksh`, `ash`, behind any wrapper
//!   such as `env FOO=1`, `sudo`, `xargs`), parsed as Bash;
//! * the arguments of `eval`, joined by one space as `eval` joins them,
//!   parsed as Bash;
//! * the command of each `find … -exec`/`-execdir`/`-ok`/`-okdir … ;`
//!   (or `… {} +`), taken word for word as one call.
//!
//! Every cost is bounded: at most [`MAX_SCRIPT_DEPTH`] levels of scripts,
//! [`MAX_NESTED_SCRIPTS`] scripts and [`MAX_NESTED_BYTES`] of their text per
//! line, and no script is opened once [`MAX_CALLS`] calls are read. A text
//! that is not parsed whole — the line or a script cut at
//! [`super::MAX_PARSED_BYTES`], with a syntax error or past
//! [`MAX_CALLS`]; a script past a bound; a script holding an expansion the
//! outer shell performs (`sh -c "$CMD"`, `sh -c "$(printf rm) x"`), which
//! is not known until it runs — is listed in [`ReadCommand::unread`], so a
//! consumer can fall back to its raw text ([`super::raw_tokens`]) instead of
//! failing open.

use std::cell::OnceCell;

use super::display::{is_shell, script_index};
use super::raw::{RawToken, raw_tokens};
use super::{
    CommandLine, MAX_CALLS, MAX_SCRIPT_DEPTH, SimpleCall, parse_command_line, shell_quote,
};

/// Most nested scripts parsed for one command line (64); further ones are
/// [`Unread`].
pub const MAX_NESTED_SCRIPTS: usize = 64;

/// Most bytes of nested script text parsed for one command line (128 KiB,
/// summed over its scripts: two parses of a line's
/// [`super::MAX_PARSED_BYTES`]); a script that would pass it is
/// [`Unread`].
pub const MAX_NESTED_BYTES: usize = 128 * 1024;

/// One text read as a command line: the line itself (index 0 of
/// [`ReadCommand::scripts`]) or a script one of its calls runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// The parsed text.
    pub line: CommandLine,
    /// How it is run, as shown in a why: `""` for the line, else `sh -c`,
    /// `bash -c` (the shell's basename), `eval`, `find -exec` (the flag as
    /// written: `find -execdir`, …).
    pub via: String,
    /// The index in [`ReadCommand::calls`] of the call that runs it (`None`
    /// for the line).
    pub carrier: Option<usize>,
    /// 0 for the line, n for a script n levels down.
    pub depth: usize,
    /// For each of `line.calls`, its index in [`ReadCommand::calls`].
    pub reads: Vec<usize>,
}

/// One call of a [`ReadCommand`]: call `index` of script `script`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadCall {
    /// Index in [`ReadCommand::scripts`].
    pub script: usize,
    /// Index in that script's `line.calls`.
    pub index: usize,
    /// One past the last call read from the scripts this call runs: calls
    /// `self + 1 .. end` of [`ReadCommand::calls`] are its descendants.
    pub end: usize,
}

/// A text that was not parsed whole (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// The script the text belongs to: with `text == None` the script's
    /// own text (`scripts[script].line.raw`); with `Some`, a script word
    /// found in that script's calls and not opened.
    pub script: usize,
    /// The text when it is not a script's own (a script past a bound).
    pub text: Option<String>,
    /// Why, one line: `command not parsed whole: 70672 bytes, 5136 not
    /// parsed`, `sh -c script not parsed whole: syntax error at byte 5: …`,
    /// `bash -c script holds an expansion the outer shell performs: not
    /// known until it runs`, `sh -c script not opened: nested deeper than 3
    /// levels`.
    pub why: String,
}

/// A command line with the scripts its calls run (module docs): every call
/// in order — each call followed by the calls of the scripts it runs — and
/// what could not be read whole.
#[derive(Debug, Clone)]
pub struct ReadCommand {
    /// The line (index 0), then every script opened, in the order met.
    pub scripts: Vec<Script>,
    /// Every call read, depth first: the line's calls, each followed by
    /// the calls of the scripts it runs.
    pub calls: Vec<ReadCall>,
    /// The texts not parsed whole, in the order met; empty when everything
    /// was read.
    pub unread: Vec<Unread>,
    /// [`raw_tokens`] of each `unread` text, made on first use.
    tokens: OnceCell<Vec<Vec<RawToken>>>,
    /// [`Self::pipelines`], made on first use.
    stages: OnceCell<Vec<(usize, Vec<Vec<usize>>)>>,
}

/// A script a call hands on, before it is opened.
enum Carried {
    /// Text to parse as Bash; `expanded` when the outer shell computes it.
    Text {
        via: String,
        text: String,
        expanded: bool,
    },
    /// Words run as one call (`find -exec`), with their
    /// [`SimpleCall::expanded`] indices.
    Argv {
        via: String,
        argv: Vec<String>,
        expanded: Vec<usize>,
    },
}

/// Where the unwrapped program sits in `call.argv()`, when the unwrapped
/// words are the argv's tail (not after `env -S`, which splits a word).
fn unwrapped_at(call: &SimpleCall, program: &str, args: &[String]) -> Option<usize> {
    let argv = call.argv();
    let start = argv.len().checked_sub(args.len() + 1)?;
    let tail = argv.get(start..)?;
    (tail.first().map(String::as_str) == Some(program) && tail.get(1..) == Some(args))
        .then_some(start)
}

/// Whether any word of `call` at argv indices `from..to` (of the unwrapped
/// words, shifted by `at`) is expanded; every expanded word counts when the
/// shift is unknown.
fn any_expanded(call: &SimpleCall, at: Option<usize>, from: usize, to: usize) -> bool {
    match at {
        Some(at) => call.expanded.iter().any(|&i| i >= at + from && i < at + to),
        None => !call.expanded.is_empty(),
    }
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// The scripts `call` runs (module docs), in argument order.
fn carried(call: &SimpleCall) -> Vec<Carried> {
    let (program, args) = call.unwrapped();
    let at = unwrapped_at(call, &program, &args);
    let name = basename(&program);
    if is_shell(&program) {
        return script_index(&args)
            .and_then(|i| {
                Some(Carried::Text {
                    via: format!("{name} -c"),
                    text: args.get(i)?.clone(),
                    // args[i] is word i + 1 of the unwrapped words.
                    expanded: any_expanded(call, at, i + 1, i + 2),
                })
            })
            .into_iter()
            .collect();
    }
    match name {
        "eval" if !args.is_empty() => vec![Carried::Text {
            via: "eval".to_string(),
            text: args.join(" "),
            expanded: any_expanded(call, at, 1, args.len() + 1),
        }],
        "find" => find_exec(call, at, &args),
        _ => Vec::new(),
    }
}

/// The commands of `find`'s `-exec`-like actions: the words after the flag
/// up to a `;` word, or a `+` right after `{}`, or the end.
fn find_exec(call: &SimpleCall, at: Option<usize>, args: &[String]) -> Vec<Carried> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if !matches!(arg.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            continue;
        }
        let start = i;
        while let Some(word) = args.get(i) {
            let ends = word == ";" || (word == "+" && i > start && args[i - 1] == "{}");
            if ends {
                break;
            }
            i += 1;
        }
        let argv: Vec<String> = args
            .get(start..i)
            .map(<[String]>::to_vec)
            .unwrap_or_default();
        if argv.is_empty() {
            continue;
        }
        // Unwrapped word j is argv index at + j; args[k] is word k + 1.
        let expanded = match at {
            Some(at) => call
                .expanded
                .iter()
                .filter_map(|&e| e.checked_sub(at + start + 1))
                .filter(|&j| j < argv.len())
                .collect(),
            None if call.expanded.is_empty() => Vec::new(),
            None => (0..argv.len()).collect(),
        };
        out.push(Carried::Argv {
            via: format!("find {arg}"),
            argv,
            expanded,
        });
        i += 1;
    }
    out
}

/// A line of one call from its words (`find -exec`'s command): `raw` is
/// the words [`shell_quote`]d and joined, the call's span all of it.
fn argv_line(argv: Vec<String>, expanded: Vec<usize>) -> CommandLine {
    let raw = argv
        .iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ");
    let mut words = argv.into_iter();
    let call = SimpleCall {
        program: words.next().unwrap_or_default(),
        args: words.collect(),
        env: Vec::new(),
        redirects: Vec::new(),
        operator: None,
        span: (0, raw.len()),
        expanded,
    };
    CommandLine {
        raw,
        calls: vec![call],
        error: None,
        truncated: None,
        calls_capped: false,
        pipelines: Vec::new(),
    }
}

/// What did not parse in `line`, for [`Unread::why`]: `70672 bytes, 5136
/// not parsed`, `more than 4096 simple calls`, the syntax error.
fn incomplete(line: &CommandLine) -> String {
    let mut parts = Vec::new();
    if let Some(rest) = line.truncated {
        parts.push(format!("{} bytes, {rest} not parsed", line.raw.len()));
    }
    if line.calls_capped {
        parts.push(format!("more than {MAX_CALLS} simple calls"));
    }
    if let Some(error) = &line.error {
        parts.push(error.clone());
    }
    parts.join("; ")
}

/// What opening scripts has spent so far.
#[derive(Default)]
struct Spent {
    scripts: usize,
    bytes: usize,
}

impl ReadCommand {
    /// Reads `line` and the scripts its calls run (module docs). Never
    /// fails; what is not read whole is in [`Self::unread`].
    ///
    /// ```
    /// use hookscope_hook::shell::{ReadCommand, parse_command_line};
    ///
    /// let read = ReadCommand::new(parse_command_line("cd x && bash -c 'rm -rf out; ls'"));
    /// let programs: Vec<&str> = (0..read.calls.len())
    ///     .filter_map(|r| read.call(r))
    ///     .map(|c| c.program.as_str())
    ///     .collect();
    /// assert_eq!(programs, ["cd", "bash", "rm", "ls"]);
    /// assert_eq!(read.place(2).as_deref(), Some("inside bash -c"));
    /// assert_eq!(read.position(2), (1, 2));
    /// assert!(read.is_whole());
    /// ```
    pub fn new(line: CommandLine) -> ReadCommand {
        let mut read = ReadCommand {
            scripts: Vec::new(),
            calls: Vec::new(),
            unread: Vec::new(),
            tokens: OnceCell::new(),
            stages: OnceCell::new(),
        };
        if !line.is_ok() {
            read.unread.push(Unread {
                script: 0,
                text: None,
                why: format!("command not parsed whole: {}", incomplete(&line)),
            });
        }
        read.scripts.push(Script {
            line,
            via: String::new(),
            carrier: None,
            depth: 0,
            reads: Vec::new(),
        });
        read.visit(0, &mut Spent::default());
        read
    }

    /// Reads the calls of script `s`, opening the scripts they run.
    /// Recursion is bounded by [`MAX_SCRIPT_DEPTH`].
    fn visit(&mut self, s: usize, spent: &mut Spent) {
        let count = self.scripts.get(s).map_or(0, |x| x.line.calls.len());
        for index in 0..count {
            let r = self.calls.len();
            self.calls.push(ReadCall {
                script: s,
                index,
                end: r + 1,
            });
            let carried = match self.scripts.get_mut(s) {
                Some(script) => {
                    script.reads.push(r);
                    script
                        .line
                        .calls
                        .get(index)
                        .map(carried)
                        .unwrap_or_default()
                }
                None => Vec::new(),
            };
            for c in carried {
                self.open(s, r, c, spent);
            }
            let end = self.calls.len();
            if let Some(call) = self.calls.get_mut(r) {
                call.end = end;
            }
        }
    }

    /// Opens script `c` run by call `carrier` of script `parent`, or lists
    /// it as [`Unread`] past a bound.
    fn open(&mut self, parent: usize, carrier: usize, c: Carried, spent: &mut Spent) {
        let depth = self.scripts.get(parent).map_or(0, |p| p.depth) + 1;
        let (via, size, shown) = match &c {
            Carried::Text { via, text, .. } => (via.clone(), text.len(), None),
            Carried::Argv { via, argv, .. } => {
                let shown = argv.iter().map(|w| shell_quote(w)).collect::<Vec<_>>();
                let shown = shown.join(" ");
                (via.clone(), shown.len(), Some(shown))
            }
        };
        let refused = if depth > MAX_SCRIPT_DEPTH {
            Some(format!("nested deeper than {MAX_SCRIPT_DEPTH} levels"))
        } else if spent.scripts >= MAX_NESTED_SCRIPTS
            || spent.bytes.saturating_add(size) > MAX_NESTED_BYTES
            || self.calls.len() >= MAX_CALLS
        {
            Some(format!(
                "past the budget of {MAX_NESTED_SCRIPTS} scripts, {MAX_NESTED_BYTES} bytes of script and {MAX_CALLS} calls per command"
            ))
        } else {
            None
        };
        if let Some(bound) = refused {
            let text = match c {
                Carried::Text { text, .. } => text,
                Carried::Argv { .. } => shown.unwrap_or_default(),
            };
            self.unread.push(Unread {
                script: parent,
                text: Some(text),
                why: format!("{via} script not opened: {bound}"),
            });
            return;
        }
        spent.scripts += 1;
        spent.bytes += size;
        let (line, expanded) = match c {
            Carried::Text { text, expanded, .. } => (parse_command_line(&text), expanded),
            Carried::Argv { argv, expanded, .. } => (argv_line(argv, expanded), false),
        };
        let s = self.scripts.len();
        if !line.is_ok() {
            self.unread.push(Unread {
                script: s,
                text: None,
                why: format!("{via} script not parsed whole: {}", incomplete(&line)),
            });
        }
        if expanded {
            self.unread.push(Unread {
                script: s,
                text: None,
                why: format!(
                    "{via} script holds an expansion the outer shell performs: not known until it runs"
                ),
            });
        }
        self.scripts.push(Script {
            line,
            via,
            carrier: Some(carrier),
            depth,
            reads: Vec::new(),
        });
        self.visit(s, spent);
    }

    /// The line itself (script 0).
    pub fn line(&self) -> Option<&CommandLine> {
        self.scripts.first().map(|s| &s.line)
    }

    /// Whether every text was parsed whole ([`Self::unread`] is empty).
    pub fn is_whole(&self) -> bool {
        self.unread.is_empty()
    }

    /// The simple call of read call `r`.
    pub fn call(&self, r: usize) -> Option<&SimpleCall> {
        let rc = self.calls.get(r)?;
        self.scripts.get(rc.script)?.line.calls.get(rc.index)
    }

    /// The source text of read call `r` in its script (quotes as written
    /// there); `""` when out of range.
    pub fn written(&self, r: usize) -> &str {
        let Some(rc) = self.calls.get(r) else {
            return "";
        };
        let Some(script) = self.scripts.get(rc.script) else {
            return "";
        };
        let (a, b) = script.line.calls.get(rc.index).map_or((0, 0), |c| c.span);
        script.line.raw.get(a..b).unwrap_or("")
    }

    /// 1-based position of read call `r` among the calls of its script, and
    /// how many that script has: `(1, 2)` for `rm` in `sh -c 'rm x; ls'`.
    pub fn position(&self, r: usize) -> (usize, usize) {
        self.calls.get(r).map_or((0, 0), |rc| {
            let n = self
                .scripts
                .get(rc.script)
                .map_or(0, |s| s.line.calls.len());
            (rc.index + 1, n)
        })
    }

    /// Where read call `r` was found, for a why: `None` on the line itself,
    /// else `inside sh -c`, and from deeper scripts the chain outwards,
    /// `inside sh -c inside bash -c` ([`Self::script_place`]).
    pub fn place(&self, r: usize) -> Option<String> {
        self.script_place(self.calls.get(r)?.script)
    }

    /// Where script `s` runs, for a why: `None` for the line (script 0),
    /// else `inside bash -c`, the chain outwards for deeper scripts.
    pub fn script_place(&self, s: usize) -> Option<String> {
        let mut script = s;
        let mut parts = Vec::new();
        // Each step goes to a script opened earlier, so this ends.
        while let Some(s) = self.scripts.get(script).filter(|s| s.depth > 0) {
            parts.push(format!("inside {}", s.via));
            script = s
                .carrier
                .and_then(|c| self.calls.get(c))
                .map_or(0, |c| c.script);
        }
        (!parts.is_empty()).then(|| parts.join(" "))
    }

    /// The text of `unread` entry `u`.
    pub fn unread_text<'a>(&'a self, u: &'a Unread) -> &'a str {
        match &u.text {
            Some(text) => text,
            None => self
                .scripts
                .get(u.script)
                .map_or("", |s| s.line.raw.as_str()),
        }
    }

    /// [`raw_tokens`] of each [`Self::unread`] text, in the same order,
    /// made once.
    pub fn unread_tokens(&self) -> &[Vec<RawToken>] {
        self.tokens.get_or_init(|| {
            self.unread
                .iter()
                .map(|u| raw_tokens(self.unread_text(u)))
                .collect()
        })
    }

    /// The first [`Unread::why`], with `(+N more)` when there are several;
    /// `None` when everything was read.
    pub fn unread_note(&self) -> Option<String> {
        let first = self.unread.first()?;
        Some(match self.unread.len() - 1 {
            0 => first.why.clone(),
            more => format!("{} (+{more} more)", first.why),
        })
    }

    /// The pipelines of every script, each as its stages in order, a stage
    /// as the read calls it runs: the calls of the script whose span lies
    /// in the stage's range ([`CommandLine::pipelines`]) and their
    /// descendants (the calls of a `bash -c` script in a stage run in that
    /// stage). Returns `(script, stages)` pairs, made once.
    pub fn pipelines(&self) -> &[(usize, Vec<Vec<usize>>)] {
        self.stages.get_or_init(|| self.find_pipelines())
    }

    fn find_pipelines(&self) -> Vec<(usize, Vec<Vec<usize>>)> {
        let mut out = Vec::new();
        for (s, script) in self.scripts.iter().enumerate() {
            if script.line.pipelines.is_empty() {
                continue;
            }
            // The script's calls by span start, for a binary search per stage.
            let mut by_start: Vec<(usize, usize, usize)> = script
                .line
                .calls
                .iter()
                .zip(&script.reads)
                .map(|(c, &r)| (c.span.0, c.span.1, r))
                .collect();
            by_start.sort_unstable();
            for pipeline in &script.line.pipelines {
                let stages = pipeline
                    .iter()
                    .map(|&(a, b)| {
                        let first = by_start.partition_point(|&(start, _, _)| start < a);
                        let mut reads = Vec::new();
                        for &(start, end, r) in by_start.iter().skip(first) {
                            if start >= b {
                                break;
                            }
                            if end > b {
                                continue;
                            }
                            let last = self.calls.get(r).map_or(r + 1, |c| c.end);
                            reads.extend(r..last);
                        }
                        reads
                    })
                    .collect();
                out.push((s, stages));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(command: &str) -> ReadCommand {
        ReadCommand::new(parse_command_line(command))
    }

    /// (program, place) of every read call.
    fn programs(read: &ReadCommand) -> Vec<(String, Option<String>)> {
        (0..read.calls.len())
            .map(|r| {
                let program = read.call(r).map(|c| c.program.clone()).unwrap_or_default();
                (program, read.place(r))
            })
            .collect()
    }

    fn at(p: &str, place: Option<&str>) -> (String, Option<String>) {
        (p.to_string(), place.map(str::to_string))
    }

    #[test]
    fn shells_eval_and_find_exec_are_opened() {
        let r = read("env FOO=1 bash -lc 'rm -rf \"out\"; ls' && eval \"git\" push");
        assert_eq!(
            programs(&r),
            [
                at("env", None),
                at("rm", Some("inside bash -c")),
                at("ls", Some("inside bash -c")),
                at("eval", None),
                at("git", Some("inside eval")),
            ]
        );
        assert_eq!(r.calls[0].end, 3);
        assert_eq!(r.position(2), (2, 2));
        assert_eq!(r.written(1), "rm -rf \"out\"");
        assert!(r.is_whole());

        let r = read("find . -name '*.o' -exec rm -f {} + -execdir sh -c 'shred \"$1\"' _ {} \\;");
        assert_eq!(
            programs(&r),
            [
                at("find", None),
                at("rm", Some("inside find -exec")),
                at("sh", Some("inside find -execdir")),
                at("shred", Some("inside sh -c inside find -execdir")),
            ]
        );
        assert_eq!(r.scripts[1].line.raw, "rm -f {}");
        // `"$1"` is inside the single-quoted script: not an outer expansion.
        assert!(r.is_whole(), "{:?}", r.unread);
    }

    #[test]
    fn a_script_the_outer_shell_writes_is_unread() {
        let r = read("sh -c \"$(printf rm) -rf x\"");
        assert_eq!(
            r.unread_note().as_deref(),
            Some(
                "sh -c script holds an expansion the outer shell performs: not known until it runs"
            )
        );
        assert_eq!(r.unread_text(&r.unread[0]), "$(printf rm) -rf x");
        // The script is still parsed: what it shows is real.
        let r = read("bash -c \"rm -rf $DIR\"");
        assert_eq!(programs(&r)[1], at("rm", Some("inside bash -c")));
        assert_eq!(r.unread.len(), 1);
        // Only the script word counts: `$1` of the positional words does not.
        assert!(read("sh -c 'rm \"$1\"' _ \"$HOME\"").is_whole());
        assert!(!read("eval rm $X").is_whole());
        // After `env -S` the words cannot be mapped: any expansion counts.
        assert!(!read("env -S 'sh -c' \"$X\"").is_whole());
    }

    #[test]
    fn depth_and_budgets_bound_the_work() {
        // Six levels of sh -c (1130 bytes: each level triples the quoting).
        let mut command = "rm -rf /".to_string();
        for _ in 0..6 {
            command = format!("sh -c {}", shell_quote(&command));
        }
        let r = read(&command);
        assert_eq!(r.scripts.len(), 1 + MAX_SCRIPT_DEPTH);
        assert_eq!(r.calls.len(), 1 + MAX_SCRIPT_DEPTH);
        assert_eq!(r.unread.len(), 1);
        assert_eq!(
            r.unread[0].why,
            "sh -c script not opened: nested deeper than 3 levels"
        );
        assert_eq!(r.unread[0].script, MAX_SCRIPT_DEPTH);
        assert!(
            r.unread_text(&r.unread[0])
                .starts_with("sh -c 'sh -c '\\''")
        );
        // Twelve evals nest without growing: still three levels.
        let r = read(&format!("{}rm -rf /", "eval ".repeat(12)));
        assert_eq!(r.scripts.len(), 1 + MAX_SCRIPT_DEPTH);
        assert_eq!(
            r.scripts[3].line.raw,
            "eval eval eval eval eval eval eval eval eval rm -rf /"
        );
        assert_eq!(
            r.unread[0].why,
            "eval script not opened: nested deeper than 3 levels"
        );

        let command = vec!["sh -c 'true'"; 100].join("; ");
        let r = read(&command);
        assert_eq!(r.scripts.len(), 1 + MAX_NESTED_SCRIPTS);
        assert_eq!(r.unread.len(), 100 - MAX_NESTED_SCRIPTS);
        assert_eq!(
            r.unread_note().as_deref(),
            Some(
                "sh -c script not opened: past the budget of 64 scripts, 131072 bytes of script and 4096 calls per command (+35 more)"
            )
        );

        // Three evals, each holding the next, of 50 KB each: the third
        // would pass 128 KiB of script.
        let mut command = format!("echo {}", "x".repeat(50_000));
        for _ in 0..3 {
            command = format!("eval {}", shell_quote(&command));
        }
        let r = read(&command);
        assert_eq!(r.scripts.len(), 3);
        assert_eq!(r.unread.len(), 1);
        assert_eq!(
            r.unread[0].why,
            "eval script not opened: past the budget of 64 scripts, 131072 bytes of script and 4096 calls per command"
        );
        assert_eq!(r.unread_text(&r.unread[0]).len(), 50_005);
    }

    #[test]
    fn a_line_not_parsed_whole_is_unread() {
        let long = format!("echo {}; rm -rf /", "y".repeat(70_000));
        let r = read(&long);
        assert_eq!(
            r.unread_note().as_deref(),
            Some("command not parsed whole: 70015 bytes, 4479 not parsed")
        );
        assert_eq!(r.unread_text(&r.unread[0]).len(), 70_015);
        let r = read("bash -c 'if'");
        assert_eq!(
            r.unread[0].why,
            "bash -c script not parsed whole: syntax error at byte 0: cannot parse `if`"
        );
    }

    #[test]
    fn pipeline_stages_hold_the_calls_of_their_scripts() {
        let r = read("curl -s x | tee log | bash -c 'cd /tmp && sh' ; a | b");
        let pipes = r.pipelines();
        let names = |reads: &Vec<usize>| -> Vec<String> {
            reads
                .iter()
                .filter_map(|&i| r.call(i).map(|c| c.program.clone()))
                .collect()
        };
        assert_eq!(pipes.len(), 2);
        let (script, stages) = &pipes[0];
        assert_eq!(*script, 0);
        let stages: Vec<Vec<String>> = stages.iter().map(names).collect();
        assert_eq!(
            stages,
            [vec!["curl"], vec!["tee"], vec!["bash", "cd", "sh"]]
        );
        let r = read("bash -c 'curl x | sh'");
        assert_eq!(r.pipelines()[0].0, 1);
        assert_eq!(r.script_place(1).as_deref(), Some("inside bash -c"));
    }
}
