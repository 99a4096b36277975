//! A simple call written back as shell text, and the calls of a
//! `sh -c 'script'` listed under it (for the TUI's Bash breakdown and
//! `hookscope call`).

use serde::Serialize;

use super::{CommandLine, Redirect, SimpleCall, parse_command_line};

/// How many `sh -c` levels [`CommandLine::shown_calls`] opens (3): the
/// script of a script of a script.
pub const MAX_SCRIPT_DEPTH: usize = 3;

/// Shells whose `-c SCRIPT` is read as a command line of its own.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"];

/// A word quoted so a POSIX shell reads it back as the same word:
/// * left bare when it is non-empty and every character is a letter, digit
///   or one of `_ @ % + = : , . / -`, or it only adds the expansion and
///   pattern characters `$ { } * ? [ ] ~` to those (words keep expansions
///   and globs as written — `$HOME`, `*.rs` — so they are shown as they were
///   most likely written);
/// * in double quotes when it holds an expansion (`$`, `` ` ``) together
///   with other special characters (`"$HOME/my dir"`), escaping `"` and `\`;
/// * else in single quotes, a `'` written as `'\''` (`''` for the empty word).
///
/// ```
/// use hookscope_hook::shell::shell_quote;
/// assert_eq!(shell_quote("a; b"), "'a; b'");
/// assert_eq!(shell_quote("it's"), r"'it'\''s'");
/// assert_eq!(shell_quote("$HOME/my dir"), "\"$HOME/my dir\"");
/// assert_eq!(shell_quote("src/*.rs"), "src/*.rs");
/// ```
pub fn shell_quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    let expansion = |c: char| "${}*?[]~".contains(c);
    if word.is_empty() {
        return "''".to_string();
    }
    if word.chars().all(|c| plain(c) || expansion(c)) {
        return word.to_string();
    }
    if word.contains(['$', '`']) {
        let mut out = String::with_capacity(word.len() + 2);
        out.push('"');
        for c in word.chars() {
            if matches!(c, '"' | '\\') {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('"');
        return out;
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

fn redirect_text(r: &Redirect) -> String {
    let fd = r.fd.map(|f| f.to_string()).unwrap_or_default();
    if let Some(written) = &r.delimiter {
        return format!("{fd}{}{written}", r.op);
    }
    if r.target.is_empty() {
        return format!("{fd}{}", r.op);
    }
    let sep = if r.op.ends_with('&') { "" } else { " " };
    format!("{fd}{}{sep}{}", r.op, shell_quote(&r.target))
}

impl SimpleCall {
    /// The call written back as shell text: leading `NAME=value`s, the
    /// program and its arguments, each word [`shell_quote`]d, then its
    /// redirects (`2>&1`, `> out.txt`, a heredoc with its delimiter as
    /// written, `<<'EOF'`; the body is left out). The operator to the next
    /// call is not part of it.
    ///
    /// `sh -c 'a; b'` → `sh -c 'a; b'` (the script stays one word);
    /// `cat <<'EOF' > notes.txt` → `cat <<'EOF' > notes.txt`.
    pub fn display(&self) -> String {
        let mut parts: Vec<String> = self
            .env
            .iter()
            .map(|e| format!("{}={}", e.name, shell_quote(&e.value)))
            .collect();
        if !self.program.is_empty() {
            parts.push(shell_quote(&self.program));
        }
        parts.extend(self.args.iter().map(|a| shell_quote(a)));
        parts.extend(self.redirects.iter().map(redirect_text));
        parts.join(" ")
    }

    /// The script of a shell run with `-c` (`sh -c 'a; b'`, `bash -lc X`,
    /// also behind wrappers: `sudo sh -c X`, `xargs sh -c X`, `env A=1 sh -c
    /// X`): the first operand after an option cluster holding `c`, skipping
    /// the values of `-o`/`+o`/`-O`/`+O` (`bash -o pipefail -c X`) and of
    /// `--rcfile`/`--init-file`; after `--` the next word. `None` for other
    /// calls and for a shell given a script file.
    pub fn shell_script(&self) -> Option<String> {
        let (program, args) = self.unwrapped();
        if !is_shell(&program) {
            return None;
        }
        script_index(&args).and_then(|i| args.get(i).cloned())
    }
}

/// Whether `program` (a path or a name) is one of [`SHELLS`].
pub(super) fn is_shell(program: &str) -> bool {
    SHELLS.contains(&program.rsplit('/').next().unwrap_or(program))
}

/// The index in `args` (a shell's words after its name) of the script
/// `-c` runs ([`SimpleCall::shell_script`]); `None` without `-c` or
/// without an operand.
pub(super) fn script_index(args: &[String]) -> Option<usize> {
    let mut dash_c = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return (dash_c && i + 1 < args.len()).then_some(i + 1);
        }
        if let Some(long) = arg.strip_prefix("--") {
            let takes_value = matches!(long, "rcfile" | "init-file");
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        let cluster = arg.strip_prefix('-').or_else(|| arg.strip_prefix('+'));
        if let Some(cluster) = cluster.filter(|c| !c.is_empty()) {
            dash_c |= arg.starts_with('-') && cluster.contains('c');
            // `-o NAME`, `-O NAME` (and `+o`, `+O`): each takes a word.
            i += 1 + cluster.chars().filter(|c| matches!(c, 'o' | 'O')).count();
            continue;
        }
        return dash_c.then_some(i);
    }
    None
}

/// One row of a command line's breakdown for display
/// ([`CommandLine::shown_calls`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownCall {
    /// 0 for the line's own calls; n for calls of a script `n` levels of
    /// `sh -c` down.
    pub depth: usize,
    /// [`SimpleCall::display`] of the call.
    pub text: String,
    /// The operator to the next call at the same depth (`SimpleCall::operator`).
    pub operator: Option<String>,
    /// For a script's call, the index (in the returned list) of the `sh -c`
    /// call it was unwrapped from.
    pub unwrapped_from: Option<usize>,
    /// The script's parse problem or limits note, on the `sh -c` row whose
    /// script it is.
    pub script_error: Option<String>,
}

impl CommandLine {
    /// The calls for display, in order: each call ([`SimpleCall::display`]),
    /// and after a `sh -c 'script'` call the calls of its script, parsed as
    /// a command line of its own, marked with the row they were unwrapped
    /// from (up to [`MAX_SCRIPT_DEPTH`] levels).
    ///
    /// `sh -c 'a; b' && c` → `sh -c 'a; b'` (`&&`), `  a` (from row 0,
    /// `;`), `  b` (from row 0), `c`.
    pub fn shown_calls(&self) -> Vec<ShownCall> {
        let mut out = Vec::new();
        push_shown(&mut out, &self.calls, 0, None);
        out
    }
}

fn push_shown(out: &mut Vec<ShownCall>, calls: &[SimpleCall], depth: usize, from: Option<usize>) {
    for call in calls {
        let row = out.len();
        out.push(ShownCall {
            depth,
            text: call.display(),
            operator: call.operator.clone(),
            unwrapped_from: from,
            script_error: None,
        });
        if depth >= MAX_SCRIPT_DEPTH {
            continue;
        }
        if let Some(script) = call.shell_script() {
            let inner = parse_command_line(&script);
            let problems: Vec<String> = inner
                .error
                .iter()
                .cloned()
                .chain(inner.limits_note())
                .collect();
            if let Some(shown) = out.get_mut(row)
                && !problems.is_empty()
            {
                shown.script_error = Some(problems.join("; "));
            }
            push_shown(out, &inner.calls, depth + 1, Some(row));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::parse_command_line;

    fn texts(command: &str) -> Vec<String> {
        parse_command_line(command)
            .calls
            .iter()
            .map(SimpleCall::display)
            .collect()
    }

    #[test]
    fn words_are_quoted_as_needed() {
        assert_eq!(texts("sh -c 'a; b'"), ["sh -c 'a; b'"]);
        assert_eq!(
            texts("cat <<'EOF' > notes.txt\nhello\nEOF"),
            ["cat <<'EOF' > notes.txt"]
        );
        assert_eq!(texts("cat <<EOF\nx\nEOF"), ["cat <<EOF"]);
        assert_eq!(texts("cat <<-\"END\"\n\tx\nEND"), ["cat <<-\"END\""]);
        assert_eq!(
            texts("FOO='x y' git commit -m \"it's done\" 2>&1 >>log.txt"),
            ["FOO='x y' git commit -m 'it'\\''s done' 2>&1 >> log.txt"]
        );
        assert_eq!(
            texts("echo \"$HOME/my dir\" *.rs ~/x '' <<< 'a b'"),
            ["echo \"$HOME/my dir\" *.rs ~/x '' <<< 'a b'"]
        );
        assert_eq!(texts("X=1"), ["X=1"]);
        assert_eq!(texts("exec 3>&-"), ["exec 3>&-"]);
    }

    #[test]
    fn sh_dash_c_is_shown_with_its_script_calls() {
        let line = parse_command_line("sh -c 'a; b' && sudo bash -lc \"git push | tee out\"");
        let shown = line.shown_calls();
        let rows: Vec<(usize, &str, Option<&str>, Option<usize>)> = shown
            .iter()
            .map(|s| {
                (
                    s.depth,
                    s.text.as_str(),
                    s.operator.as_deref(),
                    s.unwrapped_from,
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                (0, "sh -c 'a; b'", Some("&&"), None),
                (1, "a", Some(";"), Some(0)),
                (1, "b", None, Some(0)),
                (0, "sudo bash -lc 'git push | tee out'", None, None),
                (1, "git push", Some("|"), Some(3)),
                (1, "tee out", None, Some(3)),
            ]
        );
        // A script file is not unwrapped; an unparsable script is noted.
        assert_eq!(
            parse_command_line("bash run.sh -c x").shown_calls().len(),
            1
        );
        let shown = parse_command_line("sh -c 'echo \"oops'").shown_calls();
        assert_eq!(
            shown[0].script_error.as_deref(),
            Some("syntax error at byte 5: cannot parse `\"oops`")
        );
    }

    #[test]
    fn nested_scripts_stop_at_the_depth_limit() {
        let mut command = "ls".to_string();
        for _ in 0..6 {
            command = format!("sh -c {}", shell_quote(&command));
        }
        let shown = parse_command_line(&command).shown_calls();
        let depths: Vec<usize> = shown.iter().map(|s| s.depth).collect();
        assert_eq!(depths, [0, 1, 2, 3]);
        assert_eq!(shown[3].unwrapped_from, Some(2));
        assert_eq!(shown[3].text, r"sh -c 'sh -c '\''sh -c ls'\'''");
    }
}
