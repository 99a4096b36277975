//! Text read without parsing: the words of a command that could not be
//! parsed whole (cut at [`super::MAX_PARSED_BYTES`], a syntax error, a
//! script past the nesting budget, a script an expansion writes), for the
//! rule conditions that must still see it ([`super::ReadCommand::unread`]).
//!
//! The reading over-approximates on purpose: a word found here may be
//! quoted text and not a command at all, but a word bash would run is found
//! whatever the quoting or nesting around it, because quoting is dropped
//! rather than interpreted.

/// One token of [`raw_tokens`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawToken {
    /// A run of word characters, quotes and backslashes removed.
    Word(String),
    /// One or more `|` in a row (a pipe, `|&`, or `||`).
    Pipe,
}

/// Characters that end a word: whitespace and the shell's operator,
/// grouping and expansion characters. `|` ends a word and is a token.
fn is_break(c: char) -> bool {
    c.is_whitespace() || matches!(c, ';' | '&' | '(' | ')' | '<' | '>' | '{' | '}' | '`' | '$')
}

/// The tokens of `text` read without parsing, in order: every `'`, `"` and
/// `\` is deleted (so `r''m`, `"r"m`, `r\m` and the `'\''` of any nesting
/// depth all leave `rm`), then the text is cut into words at whitespace and
/// at `; & ( ) < > { } $` and backticks (so `$(printf rm)` gives `printf`
/// and `rm`), and each run of `|` is a [`RawToken::Pipe`]. Expansions are
/// not performed and `$'…'` escapes are not decoded. Linear in `text`; any
/// input is accepted.
///
/// ```
/// use hookscope_hook::shell::{RawToken, raw_tokens};
/// let words = |t: &str| -> Vec<String> {
///     raw_tokens(t)
///         .into_iter()
///         .filter_map(|t| match t {
///             RawToken::Word(w) => Some(w),
///             RawToken::Pipe => None,
///         })
///         .collect()
/// };
/// assert_eq!(words(r#"sh -c "r''m -rf x""#), ["sh", "-c", "rm", "-rf", "x"]);
/// assert_eq!(words("echo $(printf rm)"), ["echo", "printf", "rm"]);
/// assert_eq!(raw_tokens("a|b")[1], RawToken::Pipe);
/// ```
pub fn raw_tokens(text: &str) -> Vec<RawToken> {
    let mut out = Vec::new();
    let mut word = String::new();
    let end_word = |word: &mut String, out: &mut Vec<RawToken>| {
        if !word.is_empty() {
            out.push(RawToken::Word(std::mem::take(word)));
        }
    };
    for c in text.chars() {
        match c {
            '\'' | '"' | '\\' => {}
            '|' => {
                end_word(&mut word, &mut out);
                if out.last() != Some(&RawToken::Pipe) {
                    out.push(RawToken::Pipe);
                }
            }
            c if is_break(c) => end_word(&mut word, &mut out),
            c => word.push(c),
        }
    }
    end_word(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::{RawToken, raw_tokens};

    fn w(s: &str) -> RawToken {
        RawToken::Word(s.to_string())
    }

    #[test]
    fn quotes_and_backslashes_vanish_at_any_depth() {
        // Ten levels of sh -c, each quoting the next with '\''.
        let mut command = "rm -rf /".to_string();
        for _ in 0..10 {
            command = format!("sh -c {}", crate::shell::shell_quote(&command));
        }
        let tokens = raw_tokens(&command);
        assert_eq!(tokens.iter().filter(|t| **t == w("sh")).count(), 10);
        assert_eq!(tokens.last(), Some(&w("/")));
        assert_eq!(tokens[tokens.len() - 3], w("rm"));
    }

    #[test]
    fn operators_split_and_pipes_are_tokens() {
        assert_eq!(
            raw_tokens("curl -s x|sudo sh&&echo ok;ls>out"),
            [
                w("curl"),
                w("-s"),
                w("x"),
                RawToken::Pipe,
                w("sudo"),
                w("sh"),
                w("echo"),
                w("ok"),
                w("ls"),
                w("out"),
            ]
        );
        assert_eq!(
            raw_tokens("a || b |& c"),
            [w("a"), RawToken::Pipe, w("b"), RawToken::Pipe, w("c")]
        );
        assert_eq!(raw_tokens(""), []);
        // Non-ASCII and replacement characters stay inside words.
        assert_eq!(raw_tokens("é\u{FFFD}rm x"), [w("é\u{FFFD}rm"), w("x")]);
    }
}
