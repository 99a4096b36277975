//! JavaScript regular expressions read with JavaScript's meanings
//! (docs/contract.md#matchers): Claude Code compiles a regex matcher with
//! `new RegExp(matcher)` (no flags, so no `u`), and hookscope runs it with
//! fancy-regex, whose syntax is Rust's. [`translate`] rewrites the
//! JavaScript source into a pattern fancy-regex reads the same way, and
//! refuses what JavaScript refuses:
//!
//! * `\d`, `\w`, `\b` and their negations are ASCII-only (`[0-9]`,
//!   `[A-Za-z0-9_]`, an ASCII word boundary), as JavaScript's are without
//!   `u`; Rust's are Unicode-aware;
//! * `.` stops at every line terminator (`\n`, `\r`, U+2028, U+2029);
//! * `[^]` matches any character and `[]` none;
//! * an escaped letter with no meaning in JavaScript is that letter
//!   (`\A`, `\z`, `\a`, `\p`, `\e`), where Rust reads anchors, a bell or a
//!   Unicode class;
//! * `{` that does not start a quantifier (`a{,5}`, `{x}`) and a lone `}`
//!   or `]` are literal characters;
//! * inside a class `[` is a literal (`[[:alpha:]]` is the class `[:alph`
//!   then `]`), and `&`, `~` are literals (Rust's set operators);
//! * `\1`… is a back-reference only when that many groups exist, else an
//!   octal escape (`\1` → U+0001) or the digit (`\8`);
//! * `(?i)`, `(?P<…>`, `(?>…)`, a possessive `a*+` and other syntax
//!   JavaScript has not are errors, as `new RegExp` throws on them.

/// An ASCII word character, as JavaScript's `\w` (without `u`).
const WORD: &str = "A-Za-z0-9_";

/// `\b` with JavaScript's (ASCII) word characters.
const BOUNDARY: &str = "(?:(?<=[A-Za-z0-9_])(?![A-Za-z0-9_])|(?<![A-Za-z0-9_])(?=[A-Za-z0-9_]))";

/// `\B` likewise.
const NOT_BOUNDARY: &str =
    "(?:(?<=[A-Za-z0-9_])(?=[A-Za-z0-9_])|(?<![A-Za-z0-9_])(?![A-Za-z0-9_]))";

/// `c` as a literal in a Rust pattern (outside or inside a class).
fn literal(c: char) -> String {
    if c.is_ascii_alphanumeric() || c == '_' || (!c.is_ascii() && !c.is_whitespace()) {
        c.to_string()
    } else if c.is_ascii_punctuation() || c == ' ' {
        format!("\\{c}")
    } else {
        format!("\\x{{{:X}}}", u32::from(c))
    }
}

/// How many capturing groups `chars` has: `(` not followed by `?`, or
/// `(?<name>`, outside classes and escapes.
fn capture_groups(chars: &[char]) -> usize {
    let (mut n, mut i, mut in_class) = (0, 0, false);
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => {
                let named = chars.get(i + 1) == Some(&'?')
                    && chars.get(i + 2) == Some(&'<')
                    && !matches!(chars.get(i + 3), Some('=' | '!'));
                if chars.get(i + 1) != Some(&'?') || named {
                    n += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    n
}

/// The length of a JavaScript quantifier `{n}`, `{n,}` or `{n,m}` at
/// `chars[i]` (a `{`), or `None` when the brace is a literal there.
fn quantifier_len(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i + 1;
    let digits = |j: &mut usize| {
        let start = *j;
        while chars.get(*j).is_some_and(char::is_ascii_digit) {
            *j += 1;
        }
        *j > start
    };
    if !digits(&mut j) {
        return None;
    }
    if chars.get(j) == Some(&',') {
        j += 1;
        digits(&mut j);
    }
    (chars.get(j) == Some(&'}')).then_some(j + 1 - i)
}

/// The `n` hex digits at `chars[i..]`, as a value (`None` when fewer).
fn hex(chars: &[char], i: usize, n: usize) -> Option<u32> {
    let s: String = chars.get(i..i + n)?.iter().collect();
    (s.len() == n && s.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| u32::from_str_radix(&s, 16).ok())
        .flatten()
}

/// An octal escape's value (up to 3 digits, at most 0o377) at `chars[i]`
/// and how many digits it took.
fn octal(chars: &[char], i: usize) -> (u32, usize) {
    let mut value = 0u32;
    let mut taken = 0;
    while taken < 3 {
        let Some(d) = chars.get(i + taken).and_then(|c| c.to_digit(8)) else {
            break;
        };
        if value * 8 + d > 0o377 {
            break;
        }
        value = value * 8 + d;
        taken += 1;
    }
    (value, taken)
}

fn code(v: u32) -> String {
    format!("\\x{{{v:X}}}")
}

/// The escape `\` + `chars[i]` (and what follows) read as JavaScript
/// reads it; returns the Rust text and how many characters it used after
/// the backslash.
fn escape(chars: &[char], i: usize, in_class: bool, groups: usize, named: bool) -> (String, usize) {
    let Some(&e) = chars.get(i) else {
        // A trailing backslash: JavaScript refuses it too; let the engine say so.
        return ("\\".into(), 0);
    };
    let out = match e {
        'd' if in_class => "0-9".to_string(),
        'd' => "[0-9]".to_string(),
        'D' => "[^0-9]".to_string(),
        'w' if in_class => WORD.to_string(),
        'w' => format!("[{WORD}]"),
        'W' => format!("[^{WORD}]"),
        's' => "\\s".into(),
        'S' => "\\S".into(),
        'b' if in_class => code(8),
        'b' => BOUNDARY.into(),
        'B' if !in_class => NOT_BOUNDARY.into(),
        'n' => "\\n".into(),
        'r' => "\\r".into(),
        't' => "\\t".into(),
        'f' => code(0x0C),
        'v' => code(0x0B),
        'x' => match hex(chars, i + 1, 2) {
            Some(v) => return (code(v), 3),
            None => "x".into(),
        },
        'u' => match hex(chars, i + 1, 4) {
            Some(v) => return (code(v), 5),
            None => "u".into(),
        },
        'c' => match chars.get(i + 1) {
            Some(l) if l.is_ascii_alphabetic() => return (code(u32::from(*l) % 32), 2),
            _ => "\\\\c".into(),
        },
        'k' if named && !in_class => {
            // `\k<name>`: passed on whole.
            let end = chars[i..].iter().position(|c| *c == '>');
            return match end {
                Some(n) if chars.get(i + 1) == Some(&'<') => (
                    format!("\\{}", chars[i..=i + n].iter().collect::<String>()),
                    n + 1,
                ),
                _ => ("k".into(), 1),
            };
        }
        '0' if !chars.get(i + 1).is_some_and(char::is_ascii_digit) => code(0),
        '1'..='9' if !in_class => {
            let mut j = i;
            while chars.get(j).is_some_and(char::is_ascii_digit) {
                j += 1;
            }
            let n: usize = chars[i..j]
                .iter()
                .collect::<String>()
                .parse()
                .unwrap_or(usize::MAX);
            if n <= groups {
                return (format!("\\{n}"), j - i);
            }
            if e == '8' || e == '9' {
                e.to_string()
            } else {
                let (v, taken) = octal(chars, i);
                return (code(v), taken);
            }
        }
        '0'..='7' => {
            let (v, taken) = octal(chars, i);
            return (code(v), taken);
        }
        c if c.is_ascii_alphabetic() => c.to_string(),
        c => literal(c),
    };
    (out, 1)
}

/// The JavaScript regular expression `source` (no flags) as a fancy-regex
/// pattern with the same matches (module docs).
///
/// # Errors
/// The syntax JavaScript refuses: a group `(?` other than `(?:`, `(?=`,
/// `(?!`, `(?<=`, `(?<!` and `(?<name>`; a quantifier on a quantifier
/// (`a*+`, `a{2}*`). Other malformed patterns are left to the engine, which
/// refuses them as JavaScript does.
pub fn translate(source: &str) -> Result<String, String> {
    let chars: Vec<char> = source.chars().collect();
    let groups = capture_groups(&chars);
    let named = chars.windows(4).any(|w| {
        w[0] == '('
            && w[1] == '?'
            && w[2] == '<'
            && (w[3].is_ascii_alphabetic() || w[3] == '_' || w[3] == '$')
    });
    let mut out = String::with_capacity(source.len() + 16);
    let mut i = 0;
    let mut in_class = false;
    let mut class_first = false;
    // After a quantifier (and its lazy `?`): another one is an error.
    let mut quantified = false;
    while i < chars.len() {
        let c = chars[i];
        if in_class {
            let first = std::mem::replace(&mut class_first, false);
            match c {
                ']' => {
                    out.push(']');
                    in_class = false;
                }
                '\\' => {
                    let (text, used) = escape(&chars, i + 1, true, groups, named);
                    out.push_str(&text);
                    i += used;
                }
                '[' | '&' | '~' => out.push_str(&literal(c)),
                '-' if first
                    || chars.get(i + 1) == Some(&']')
                    || chars.get(i + 1) == Some(&'-')
                    || chars.get(i.wrapping_sub(1)) == Some(&'-') =>
                {
                    out.push_str("\\-");
                }
                '^' if !first => out.push_str("\\^"),
                c => out.push_str(&literal(c)),
            }
            i += 1;
            continue;
        }
        let was_quantified = std::mem::replace(&mut quantified, false);
        match c {
            '\\' => {
                let (text, used) = escape(&chars, i + 1, false, groups, named);
                out.push_str(&text);
                i += used;
            }
            '[' => {
                if chars.get(i + 1) == Some(&']') {
                    out.push_str("[^\\s\\S]");
                    i += 1;
                } else if chars.get(i + 1) == Some(&'^') && chars.get(i + 2) == Some(&']') {
                    out.push_str("[\\s\\S]");
                    i += 2;
                } else {
                    out.push('[');
                    in_class = true;
                    class_first = true;
                    if chars.get(i + 1) == Some(&'^') {
                        out.push('^');
                        i += 1;
                    }
                }
            }
            '(' if chars.get(i + 1) == Some(&'?') => {
                let rest: String = chars[i + 2..].iter().take(3).collect();
                let ok = rest.starts_with(':')
                    || rest.starts_with('=')
                    || rest.starts_with('!')
                    || rest.starts_with("<=")
                    || rest.starts_with("<!")
                    || (rest.starts_with('<')
                        && chars
                            .get(i + 3)
                            .is_some_and(|c| c.is_ascii_alphabetic() || *c == '_' || *c == '$'));
                if !ok {
                    return Err(format!(
                        "invalid group \"(?{rest}…\" at position {i}: JavaScript has no inline flags, atomic groups or (?P<…>)"
                    ));
                }
                out.push_str("(?");
                i += 1;
            }
            '{' => match quantifier_len(&chars, i) {
                Some(n) => {
                    if was_quantified {
                        return Err(format!("nothing to repeat at position {i}"));
                    }
                    out.extend(&chars[i..i + n]);
                    i += n - 1;
                    quantified = true;
                }
                None => out.push_str("\\{"),
            },
            '*' | '+' | '?' => {
                if was_quantified && c != '?' {
                    return Err(format!("nothing to repeat at position {i}"));
                }
                out.push(c);
                // `a*?` is lazy: the `?` ends the quantifier.
                quantified = !(was_quantified && c == '?');
                if was_quantified
                    && c == '?'
                    && chars
                        .get(i + 1)
                        .is_some_and(|n| matches!(n, '*' | '+' | '?' | '{'))
                {
                    return Err(format!("nothing to repeat at position {}", i + 1));
                }
            }
            '}' => out.push_str("\\}"),
            ']' => out.push_str("\\]"),
            '.' => out.push_str("[^\\n\\r\\x{2028}\\x{2029}]"),
            '#' | ' ' => out.push_str(&literal(c)),
            c => out.push(c),
        }
        i += 1;
    }
    if in_class {
        return Err("unterminated character class".into());
    }
    Ok(out)
}
