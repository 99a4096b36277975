//! The command line of a Bash tool call, parsed into the simple commands it runs.
//!
//! Source: docs/tool-calls.md#the-bash-command-parser (behaviour of cc_transcript's
//! `command.py`, re-implemented) and docs/contract.md#the-if-field (the `if` field: leading `VAR=val`
//! stripped, every subcommand of `&&`/`||`/`;`/`|` checked, commands inside
//! `$()` and backticks checked).
//!
//! The line is parsed with tree-sitter-bash and flattened into a list of
//! [`SimpleCall`]s in source order:
//!
//! * `program` (top level, split on `;`, `&` and newlines), `list` (`&&`,
//!   `||`, `;`, `&`) and `pipeline` (`|`, `|&`) are split into their parts;
//!   each call records the operator joining it to the next call. The
//!   operator written after a compound statement lands on its last inner call
//!   (`{ a; b; } && c` → a `;`, b `&&`, c none); statements that run no simple
//!   command (`(( i++ ))`) are skipped.
//! * Compound commands — subshells `( … )`, groups `{ …; }`, `if`/`elif`/
//!   `else`, `for`, `while`/`until`, `case` arms, function bodies — are
//!   flattened into their inner simple commands.
//! * A redirected statement (`cmd > out`, `{ a; b; } 2>&1`, `cat <<EOF`)
//!   attaches its redirects to every simple command of its body.
//! * Command substitutions `$( … )`, backticks and process substitutions
//!   `<( … )`/`>( … )` found anywhere in a command (arguments, assignment
//!   values, redirect targets, unquoted heredoc bodies, `for` lists, test
//!   expressions) contribute their inner commands as calls too, placed
//!   **immediately before** the call that contains them (they run first).
//!   The last call of each substitution has `operator: None`; calls inside a
//!   substitution keep their own list operators.
//!
//! Parsing never panics and never fails: a line with syntax errors yields a
//! [`CommandLine`] whose `error` describes the first problem (with its byte
//! offset) and whose `calls` hold whatever tree-sitter could recover.
//!
//! Parsing is bounded: only the first [`MAX_PARSED_BYTES`] of a command are
//! given to tree-sitter (cut at a line or operator boundary,
//! [`CommandLine::truncated`] says how many bytes were left out), and at most
//! [`MAX_CALLS`] simple calls are collected ([`CommandLine::calls_capped`]).
//! A 900 KB line of 150,000 pipeline stages otherwise costs seconds and
//! hundreds of MB of syntax tree.

mod display;
mod nested;
mod raw;
mod unwrap;
mod walk;

pub use display::{MAX_SCRIPT_DEPTH, ShownCall, shell_quote};
pub use nested::{MAX_NESTED_BYTES, MAX_NESTED_SCRIPTS, ReadCall, ReadCommand, Script, Unread};
pub use raw::{RawToken, raw_tokens};

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

pub use unwrap::WRAPPER_COMMANDS;

/// Deepest syntax-tree nesting the walker descends into (tree levels, not
/// characters). Deeper parts of the tree are skipped and reported through
/// [`CommandLine::error`]; this guards the stack against inputs such as
/// thousands of nested parentheses.
pub const MAX_NESTING: usize = 200;

/// Most bytes of a command given to the parser (64 KiB). A longer command is
/// cut at the last newline or `;`/`&`/`|` operator at or before this offset
/// (the operator itself is left out, so `a && b` never becomes `a &`), or at
/// a character boundary when it has none; trailing whitespace of the kept
/// part is dropped. The rest is not parsed: see [`CommandLine::truncated`].
pub const MAX_PARSED_BYTES: usize = 64 * 1024;

/// Most simple calls collected from one command line (4096). Further calls
/// are dropped in source order: see [`CommandLine::calls_capped`].
pub const MAX_CALLS: usize = 4096;

/// One leading `NAME=value` assignment of a simple command (`FOO=bar git push`).
///
/// `value` has quotes removed like an argument (`B="x y"` → `x y`); an empty
/// assignment (`FOO= cmd`) has `value == ""`. Array values (`A=(1 2)`) are kept
/// as written. Serialized as `{"name": …, "value": …}` on its own, and as one
/// entry of the `env` object inside [`SimpleCall`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvAssignment {
    /// Variable name as written (`FOO`, or `a[1]` for a subscript).
    pub name: String,
    /// Assigned value, quotes removed.
    pub value: String,
}

/// One redirection attached to a simple command (docs/tool-calls.md#the-bash-command-parser: `op`, `target`, `fd`).
///
/// * `op` is the operator token alone, without the descriptor: `>`, `>>`, `<`,
///   `>&`, `<&`, `&>`, `&>>`, `>|`, `>&-`, `<&-`, `<<` / `<<-` (heredoc),
///   `<<<` (herestring). So `2>&1` is `{op: ">&", target: "1", fd: Some(2)}`.
/// * `target` is the destination word with quotes removed (a file name, a
///   descriptor number, or the heredoc delimiter such as `EOF`); `""` for the
///   closing operators `>&-` / `<&-`.
/// * `fd` is the explicit numeric descriptor written before the operator, if
///   any (`None` for `> out`, `Some(2)` for `2> err`).
/// * `body` is only set for heredocs: the document text exactly as written,
///   from the line after the operator up to (not including) the closing
///   delimiter line; it includes the final newline, and `<<-` tab stripping
///   is not applied. Omitted from JSON when `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redirect {
    /// Operator token, e.g. `">"`, `">>"`, `">&"`, `"<<"`, `"<<<"`.
    pub op: String,
    /// Destination word, quotes removed.
    pub target: String,
    /// Explicit file descriptor written before the operator.
    pub fd: Option<u32>,
    /// Heredoc document text (heredocs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Heredocs only: the delimiter word exactly as written (`'EOF'`,
    /// `"EOF"`, `\EOF`, `EOF`). Quoting it turns expansion in the body off,
    /// so [`SimpleCall::display`] keeps it. Omitted from JSON when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delimiter: Option<String>,
}

/// One simple command the line runs (docs/tool-calls.md#the-bash-command-parser).
///
/// Words have their quoting removed: `'…'` and `"…"` are stripped, backslash
/// escapes are resolved (`a\ b` → `a b`, `"say \"hi\""` → `say "hi"`), `$'…'`
/// escapes are decoded. Expansions are **not** performed: `$VAR`, `${…}`,
/// `$(…)`, globs and `~` are kept as written.
///
/// Besides ordinary commands, these statements also produce a call:
/// assignment-only statements (`X=1` → `program: ""`, `env: {X: "1"}`),
/// declarations (`export A=1` → `program: "export"`, `args: ["A=1"]`),
/// `unset`, and test commands (`[ -f x ]` → `program: "["`,
/// `args: ["-f", "x", "]"]`; likewise `[[ … ]]`). Arithmetic commands
/// (`(( i++ ))`) produce none.
///
/// JSON: `{"program", "args", "env": {NAME: value, …} (in source order),
/// "redirects": [Redirect…], "operator": string|null, "span": [start, end]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SimpleCall {
    /// Executable word, quotes removed; `""` when the command is only
    /// assignments and/or redirects.
    pub program: String,
    /// Argument words after the program, quotes removed.
    pub args: Vec<String>,
    /// Leading `VAR=val` words, in order, separate from `args`.
    #[serde(serialize_with = "env_as_map")]
    pub env: Vec<EnvAssignment>,
    /// Redirections: those written inside the command, then those of every
    /// enclosing redirected statement (innermost first).
    pub redirects: Vec<Redirect>,
    /// Operator joining this call to the next one: `";"`, `"&&"`, `"||"`,
    /// `"|"` or `"&"`. A newline, `;;`, `;&` and `;;&` count as `";"`, and
    /// `|&` as `"|"`. `None` for the last call of the line and for the last
    /// call inside each command substitution (a trailing `&` or `;` on the
    /// last call is therefore not reported).
    pub operator: Option<String>,
    /// Byte range `[start, end)` of the command in the original UTF-8 string.
    /// It covers the assignments, program, arguments and any redirects written
    /// *inside* the command, but not redirects attached by an enclosing
    /// redirected statement (`ls > out` → the span of `ls`). Serialized as a
    /// two-element array.
    pub span: (usize, usize),
    /// Indices into [`Self::argv`] (0 = the program) of the words whose
    /// value the shell running this line computes: they hold a parameter
    /// expansion (`$X`, `${X}`), a command or process substitution
    /// (`$(…)`, backticks, `<(…)`) or an arithmetic expansion (`$((…))`)
    /// outside single quotes. In source order; not serialized. A script
    /// handed to `sh -c` in such a word is not known until it runs
    /// ([`ReadCommand`]).
    #[serde(skip)]
    pub expanded: Vec<usize>,
}

/// A parsed Bash command line: the raw text, its simple calls, and the first
/// parse problem if any (docs/tool-calls.md#the-bash-command-parser).
///
/// JSON: `{"raw": string, "calls": [SimpleCall…], "error": string|null,
/// "truncated": number|null, "calls_capped": bool}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandLine {
    /// The command exactly as given.
    pub raw: String,
    /// Simple commands in execution-relevant source order (see module docs).
    pub calls: Vec<SimpleCall>,
    /// `None` when the line parsed cleanly. Otherwise a one-line description
    /// naming the byte offset, e.g. ``syntax error at byte 5: cannot parse `"oops` ``,
    /// ``syntax error at byte 9: missing `fi` ``, or a note that nesting deeper
    /// than [`MAX_NESTING`] was skipped. `calls` then holds what could be
    /// recovered. Consumers mirroring Claude Code's `if` field should fail
    /// open (treat the rule as matching) when this is set (docs/contract.md#the-if-field).
    pub error: Option<String>,
    /// Bytes of `raw` that were **not** parsed because the command is longer
    /// than [`MAX_PARSED_BYTES`] (`raw.len()` minus the parsed prefix's
    /// length); `None` when the whole command was parsed. Calls in the
    /// unparsed tail are missing from `calls`, so consumers mirroring the
    /// `if` field should fail open here too.
    pub truncated: Option<usize>,
    /// `true` when the parsed part holds more than [`MAX_CALLS`] simple
    /// calls; `calls` then keeps the first [`MAX_CALLS`] in walk order.
    pub calls_capped: bool,
    /// The pipelines of the parsed part, each the byte ranges `[start, end)`
    /// in `raw` of its stages in order (two or more). A stage is one
    /// statement: a simple command, a subshell, a group, a redirected
    /// statement…; a call belongs to the stage whose range holds its
    /// [`SimpleCall::span`]. A pipeline written inside a stage's subshell
    /// or group is a pipeline of its own, but the pieces tree-sitter-bash
    /// nests without such a boundary (`a | b > out | c`, `cat <<EOF | a |
    /// b`) are flattened into one. A pipeline continuing a heredoc line
    /// (`cat <<EOF | sh`) starts with the span of the heredoc's command. Not
    /// serialized.
    #[serde(skip)]
    pub pipelines: Vec<Vec<(usize, usize)>>,
}

impl CommandLine {
    /// Whether the line parsed without any error, completely: no syntax
    /// error, nothing cut off ([`Self::truncated`]) and no call dropped
    /// ([`Self::calls_capped`]).
    pub fn is_ok(&self) -> bool {
        self.error.is_none() && self.truncated.is_none() && !self.calls_capped
    }

    /// One line saying what was not parsed, for display (`None` when
    /// everything was): `only the first 65530 bytes were parsed (834470
    /// bytes not parsed)`, and/or `only the first 4096 simple calls are
    /// listed`.
    pub fn limits_note(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(rest) = self.truncated {
            parts.push(format!(
                "only the first {} bytes were parsed ({} bytes not parsed)",
                self.raw.len().saturating_sub(rest),
                rest
            ));
        }
        if self.calls_capped {
            parts.push(format!(
                "only the first {MAX_CALLS} simple calls are listed"
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// Parse one Bash command line into its simple calls (docs/tool-calls.md#the-bash-command-parser).
///
/// Never panics and always returns a [`CommandLine`]: an empty,
/// whitespace-only or comment-only command yields no calls and no error; a
/// line with syntax errors yields `error: Some(…)` plus the recoverable calls.
/// Any input is accepted (NUL bytes, very long strings, deep nesting).
///
/// ```
/// use hookscope_hook::shell::parse_command_line;
///
/// let line = parse_command_line("FOO=1 npm test && echo $(rm -rf /)");
/// let programs: Vec<&str> = line.calls.iter().map(|c| c.program.as_str()).collect();
/// assert_eq!(programs, ["npm", "rm", "echo"]);
/// assert_eq!(line.calls[0].operator.as_deref(), Some("&&"));
/// assert_eq!(line.calls[0].env[0].name, "FOO");
/// assert!(line.error.is_none());
/// ```
pub fn parse_command_line(command: &str) -> CommandLine {
    walk::parse(command)
}

impl SimpleCall {
    /// The call's `program` followed by its `args` (empty when `program` is "").
    pub fn argv(&self) -> Vec<String> {
        if self.program.is_empty() {
            return Vec::new();
        }
        let mut argv = Vec::with_capacity(self.args.len() + 1);
        argv.push(self.program.clone());
        argv.extend(self.args.iter().cloned());
        argv
    }

    /// `program` and `args` with leading wrapper commands stripped
    /// (docs/tool-calls.md#unwrapping).
    ///
    /// Repeatedly, while the program is one of [`WRAPPER_COMMANDS`]
    /// (`command doas env exec nice nohup sudo time timeout xargs`, compared
    /// by basename so `/usr/bin/sudo` counts), drops it together with its
    /// flag words (`-x`, `--long`, `--opt=value`, up to and including `--`),
    /// the values of the wrapper's options that take a separate argument
    /// (`sudo -u root`, `timeout -s KILL`, `xargs -I {}`, `nice -n 10`, …),
    /// `timeout`'s duration operand, `VAR=val` words and bare integers.
    /// Returns `(program, args)`; the program is `""` if nothing is left
    /// (`sudo -i`). A call without wrappers is returned unchanged.
    ///
    /// `sudo -u root timeout 30 rm -rf /tmp/x` → `("rm", ["-rf", "/tmp/x"])`.
    pub fn unwrapped(&self) -> (String, Vec<String>) {
        unwrap::unwrap_argv(&self.argv())
    }
}

fn env_as_map<S: Serializer>(env: &[EnvAssignment], serializer: S) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(env.len()))?;
    for assignment in env {
        map.serialize_entry(&assignment.name, &assignment.value)?;
    }
    map.end()
}

#[cfg(test)]
mod tests;
