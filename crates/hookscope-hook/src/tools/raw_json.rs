//! JSON read from its text with every number kept as its literal: the
//! digest's canonicalizer where the text exists (docs/payloads.md "Hook payloads",
//! "The digest").
//!
//! `serde_json::Value` cannot tell the integer literal
//! `1000000000000000000000` from the float literal `1e21` (both become the
//! float 1e21), and RFC 8785 digests the second (`1e+21`) while the
//! reference refuses the first (an integer beyond 2^53−1). serde_json's
//! `arbitrary_precision` would keep literals, but Cargo unifies features
//! crate-wide, so it would change every `Value` of the program; this module
//! scans the text itself instead, for the digest path only.
//!
//! [`RawJson::parse`] builds a small tree of the text without recursion (an
//! explicit stack: 100,000 nested `[` cost memory in proportion, never the
//! call stack): strings are kept as their literal text and unescaped by
//! serde_json when needed (a lone UTF-16 surrogate escape becomes U+FFFD, as
//! the transcript loaders repair it: `json_line::repair_line`),
//! numbers as their literal text. Object members are sorted by the UTF-16
//! code units of their keys once, when the object closes; a repeated key
//! keeps its last value (as serde_json and Python's `json` do).
//! [`RawJson::canonical`] writes a node in RFC 8785 form, also without
//! recursion. Time and memory are linear in the text (plus the sort).

use super::digest::{DigestError, MAX_SAFE_INTEGER, write_f64, write_string};

/// A node of a [`RawJson`] tree (an index into it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeId(usize);

/// One JSON value of the text.
#[derive(Debug)]
enum Node<'t> {
    Null,
    Bool(bool),
    /// The number's literal, as written (`-0`, `1.0`, `1E400`).
    Num(&'t str),
    /// The string's literal, quotes and escapes included.
    Str(&'t str),
    Arr(Vec<NodeId>),
    /// Members sorted by the UTF-16 code units of their unescaped keys,
    /// one per key (the last one written).
    Obj(Vec<(String, NodeId)>),
}

/// A JSON text read with its number literals kept (module docs).
#[derive(Debug)]
pub struct RawJson<'t> {
    nodes: Vec<Node<'t>>,
    root: NodeId,
}

/// A container being read.
enum Open {
    Arr(Vec<NodeId>),
    /// The members so far and the key of the value being read.
    Obj(Vec<(String, NodeId)>, String),
}

impl<'t> RawJson<'t> {
    /// Reads `text` as one JSON value (RFC 8259: whitespace around it is
    /// allowed, anything else after it is not).
    ///
    /// # Errors
    /// [`DigestError::Invalid`] with the byte offset and what was wrong when
    /// `text` is not one JSON value (a string that serde_json cannot
    /// unescape even after the lone-surrogate repair included).
    pub fn parse(text: &'t str) -> Result<RawJson<'t>, DigestError> {
        let mut r = Reader {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            nodes: Vec::new(),
        };
        let root = r.document()?;
        Ok(RawJson {
            nodes: r.nodes,
            root,
        })
    }

    /// The top-level value.
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// The value of `key` in the object `node` (`None` when `node` is not
    /// an object or has no such key).
    pub fn get(&self, node: NodeId, key: &str) -> Option<NodeId> {
        match self.nodes.get(node.0)? {
            Node::Obj(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| *v),
            _ => None,
        }
    }

    /// The items of the array `node` (empty when it is not an array).
    pub fn items(&self, node: NodeId) -> &[NodeId] {
        match self.nodes.get(node.0) {
            Some(Node::Arr(items)) => items,
            _ => &[],
        }
    }

    /// Whether `node` is `null`.
    pub fn is_null(&self, node: NodeId) -> bool {
        matches!(self.nodes.get(node.0), Some(Node::Null))
    }

    /// The unescaped text of the string `node` (`None` when it is not a
    /// string).
    pub fn str(&self, node: NodeId) -> Option<String> {
        match self.nodes.get(node.0)? {
            Node::Str(lit) => unescape(lit).ok(),
            _ => None,
        }
    }

    /// `node` in RFC 8785 canonical form (see
    /// [`super::digest::canonical_json`] for the rules), its numbers taken
    /// from their literals: an integer literal (no `.`, `e` or `E`) beyond
    /// ±(2^53−1) is refused, any other is read as a double (correctly
    /// rounded) and written as ECMAScript does (`1.0` → `1`, `1e21` →
    /// `1e+21`, `-0` → `0`).
    ///
    /// # Errors
    /// [`DigestError::UnsafeInteger`] (the literal) and
    /// [`DigestError::OutOfRange`] (a literal beyond the double range, such
    /// as `1E400`).
    pub fn canonical(&self, node: NodeId) -> Result<String, DigestError> {
        let mut out = String::new();
        self.write(&mut out, node)?;
        Ok(out)
    }

    /// Appends the canonical form of `node` to `out` (see [`Self::canonical`]).
    ///
    /// # Errors
    /// As [`Self::canonical`].
    pub fn write(&self, out: &mut String, node: NodeId) -> Result<(), DigestError> {
        /// What is left to write, last first.
        enum Task {
            Node(NodeId),
            Text(&'static str),
            Key(NodeId, usize),
        }
        let mut tasks = vec![Task::Node(node)];
        while let Some(task) = tasks.pop() {
            let id = match task {
                Task::Text(t) => {
                    out.push_str(t);
                    continue;
                }
                Task::Key(obj, i) => {
                    if let Some(Node::Obj(members)) = self.nodes.get(obj.0)
                        && let Some((key, _)) = members.get(i)
                    {
                        write_string(out, key);
                        out.push(':');
                    }
                    continue;
                }
                Task::Node(id) => id,
            };
            match self.nodes.get(id.0) {
                None | Some(Node::Null) => out.push_str("null"),
                Some(Node::Bool(true)) => out.push_str("true"),
                Some(Node::Bool(false)) => out.push_str("false"),
                Some(Node::Num(lit)) => write_literal_number(out, lit)?,
                Some(Node::Str(lit)) => write_string(out, &unescape(lit)?),
                Some(Node::Arr(items)) => {
                    out.push('[');
                    tasks.push(Task::Text("]"));
                    for (i, item) in items.iter().enumerate().rev() {
                        tasks.push(Task::Node(*item));
                        if i > 0 {
                            tasks.push(Task::Text(","));
                        }
                    }
                }
                Some(Node::Obj(members)) => {
                    out.push('{');
                    tasks.push(Task::Text("}"));
                    for (i, (_, value)) in members.iter().enumerate().rev() {
                        tasks.push(Task::Node(*value));
                        tasks.push(Task::Key(id, i));
                        if i > 0 {
                            tasks.push(Task::Text(","));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The scanner behind [`RawJson::parse`].
struct Reader<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    nodes: Vec<Node<'t>>,
}

impl<'t> Reader<'t> {
    fn invalid(&self, what: &str) -> DigestError {
        DigestError::Invalid(format!("{what} at byte {}", self.pos))
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn push(&mut self, node: Node<'t>) -> NodeId {
        self.nodes.push(node);
        NodeId(self.nodes.len() - 1)
    }

    /// The whole text: one value, whitespace around it.
    fn document(&mut self) -> Result<NodeId, DigestError> {
        let mut stack: Vec<Open> = Vec::new();
        'value: loop {
            self.skip_ws();
            let mut done = match self.bytes.get(self.pos) {
                Some(b'[') => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.bytes.get(self.pos) == Some(&b']') {
                        self.pos += 1;
                        self.push(Node::Arr(Vec::new()))
                    } else {
                        stack.push(Open::Arr(Vec::new()));
                        continue 'value;
                    }
                }
                Some(b'{') => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.bytes.get(self.pos) == Some(&b'}') {
                        self.pos += 1;
                        self.push(Node::Obj(Vec::new()))
                    } else {
                        let key = self.key()?;
                        stack.push(Open::Obj(Vec::new(), key));
                        continue 'value;
                    }
                }
                Some(_) => {
                    let scalar = self.scalar()?;
                    self.push(scalar)
                }
                None => return Err(self.invalid("a value expected")),
            };
            // `done` is a complete value: hand it to its container, closing
            // every container it completes.
            loop {
                self.skip_ws();
                let next = self.bytes.get(self.pos).copied();
                match stack.last_mut() {
                    None => {
                        return match next {
                            None => Ok(done),
                            Some(_) => Err(self.invalid("text after the value")),
                        };
                    }
                    Some(Open::Arr(items)) => {
                        items.push(done);
                        match next {
                            Some(b',') => {
                                self.pos += 1;
                                continue 'value;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                let Some(Open::Arr(items)) = stack.pop() else {
                                    return Err(self.invalid("unbalanced array"));
                                };
                                done = self.push(Node::Arr(items));
                            }
                            _ => return Err(self.invalid("`,` or `]` expected")),
                        }
                    }
                    Some(Open::Obj(members, key)) => {
                        members.push((std::mem::take(key), done));
                        match next {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                let key = self.key()?;
                                if let Some(Open::Obj(_, slot)) = stack.last_mut() {
                                    *slot = key;
                                }
                                continue 'value;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                let Some(Open::Obj(members, _)) = stack.pop() else {
                                    return Err(self.invalid("unbalanced object"));
                                };
                                done = self.push(Node::Obj(sorted_members(members)));
                            }
                            _ => return Err(self.invalid("`,` or `}` expected")),
                        }
                    }
                }
            }
        }
    }

    /// An object key and its `:`, unescaped.
    fn key(&mut self) -> Result<String, DigestError> {
        if self.bytes.get(self.pos) != Some(&b'"') {
            return Err(self.invalid("a string key expected"));
        }
        let lit = self.string_literal()?;
        let key = unescape(lit)?;
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b':') {
            return Err(self.invalid("`:` expected"));
        }
        self.pos += 1;
        Ok(key)
    }

    /// A string, number, `true`, `false` or `null` at `pos`.
    fn scalar(&mut self) -> Result<Node<'t>, DigestError> {
        let rest = &self.bytes[self.pos..];
        for (word, node) in [
            (&b"true"[..], Node::Bool(true)),
            (b"false", Node::Bool(false)),
            (b"null", Node::Null),
        ] {
            if rest.starts_with(word) {
                self.pos += word.len();
                return Ok(node);
            }
        }
        match rest.first() {
            Some(b'"') => {
                let lit = self.string_literal()?;
                // Checked now, so a bad escape is an error of the parse.
                unescape(lit)?;
                Ok(Node::Str(lit))
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.invalid("a value expected")),
        }
    }

    /// The literal of the string starting at `pos` (quotes included);
    /// its escapes are checked when it is unescaped.
    fn string_literal(&mut self) -> Result<&'t str, DigestError> {
        let start = self.pos;
        let mut i = start + 1;
        loop {
            match memchr::memchr2(b'"', b'\\', &self.bytes[i.min(self.bytes.len())..]) {
                None => {
                    self.pos = self.bytes.len();
                    return Err(self.invalid("unterminated string"));
                }
                Some(k) if self.bytes[i + k] == b'"' => {
                    self.pos = i + k + 1;
                    return Ok(&self.text[start..self.pos]);
                }
                Some(k) => i += k + 2, // a backslash and the byte it escapes
            }
        }
    }

    /// A number literal per RFC 8259 §6 (`-? int frac? exp?`).
    fn number(&mut self) -> Result<Node<'t>, DigestError> {
        let start = self.pos;
        let digits = |r: &mut Self| {
            let from = r.pos;
            while r.bytes.get(r.pos).is_some_and(u8::is_ascii_digit) {
                r.pos += 1;
            }
            r.pos > from
        };
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.invalid("a digit expected")),
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if !digits(self) {
                return Err(self.invalid("a digit expected after `.`"));
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            if !digits(self) {
                return Err(self.invalid("a digit expected in the exponent"));
            }
        }
        Ok(Node::Num(&self.text[start..self.pos]))
    }
}

/// An object's members in JCS order: by the UTF-16 code units of the key,
/// one per key, the last one written (a stable sort keeps the order of
/// equal keys, so the last of each run is the last written).
fn sorted_members(mut members: Vec<(String, NodeId)>) -> Vec<(String, NodeId)> {
    members.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
    let mut out: Vec<(String, NodeId)> = Vec::with_capacity(members.len());
    for member in members {
        match out.last_mut() {
            Some(last) if last.0 == member.0 => *last = member,
            _ => out.push(member),
        }
    }
    out
}

/// The text of a string literal (quotes included). A literal without a
/// backslash or control character is its own text; otherwise serde_json
/// unescapes it, after the loaders' lone-surrogate repair when it refuses
/// (`"\ud83d"` alone becomes U+FFFD).
fn unescape(lit: &str) -> Result<String, DigestError> {
    let inner = lit
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(lit);
    if !inner.bytes().any(|b| b == b'\\' || b < 0x20) {
        return Ok(inner.to_string());
    }
    let bad = |e: serde_json::Error| DigestError::Invalid(format!("string: {e}"));
    match serde_json::from_str::<String>(lit) {
        Ok(s) => Ok(s),
        Err(e) => match crate::json_line::repair_line(lit.as_bytes()) {
            Some((fixed, _)) => serde_json::from_slice::<String>(&fixed).map_err(|_| bad(e)),
            None => Err(bad(e)),
        },
    }
}

/// Writes a number from its literal (see [`RawJson::canonical`]).
fn write_literal_number(out: &mut String, lit: &str) -> Result<(), DigestError> {
    let integer = !lit.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'));
    if integer {
        let (negative, digits) = match lit.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, lit),
        };
        // 16 digits hold every safe integer (2^53−1 has 16); more never fit.
        let magnitude = if digits.len() > 16 {
            None
        } else {
            digits.parse::<u64>().ok()
        };
        match magnitude {
            Some(0) => out.push('0'),
            Some(m) if m <= MAX_SAFE_INTEGER => {
                if negative {
                    out.push('-');
                }
                out.push_str(&m.to_string());
            }
            _ => return Err(DigestError::UnsafeInteger(lit.to_string())),
        }
        return Ok(());
    }
    match lit.parse::<f64>() {
        Ok(f) if f.is_finite() => {
            write_f64(out, f);
            Ok(())
        }
        _ => Err(DigestError::OutOfRange(lit.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(text: &str) -> Result<String, DigestError> {
        let raw = RawJson::parse(text)?;
        raw.canonical(raw.root())
    }

    #[test]
    fn numbers_from_their_literals() {
        let cases: &[(&str, &str)] = &[
            ("1.0", "1"),
            ("-0", "0"),
            ("-0.0", "0"),
            ("0", "0"),
            ("1e21", "1e+21"),
            ("1E21", "1e+21"),
            ("1e20", "100000000000000000000"),
            ("1e-7", "1e-7"),
            ("1e300", "1e+300"),
            ("123456789012345678901234567890.0", "1.2345678901234568e+29"),
            ("9007199254740991", "9007199254740991"),
            ("-9007199254740991", "-9007199254740991"),
            ("1e-400", "0"),
            ("4.5e-324", "5e-324"),
            ("0.1", "0.1"),
            ("-42", "-42"),
        ];
        for (lit, want) in cases {
            assert_eq!(canon(lit).as_deref(), Ok(*want), "{lit}");
        }
    }

    #[test]
    fn integer_literals_beyond_the_safe_range_and_doubles_beyond_range_are_refused() {
        for lit in [
            "9007199254740992",
            "9007199254740993",
            "-9007199254740993",
            "1000000000000000000000",
            "18446744073709551616",
            "00000000000000001",
        ] {
            let want = if lit.starts_with("00") {
                // Leading zeros are not JSON.
                assert!(matches!(canon(lit), Err(DigestError::Invalid(_))), "{lit}");
                continue;
            } else {
                DigestError::UnsafeInteger(lit.to_string())
            };
            assert_eq!(canon(&format!("[{lit}]")), Err(want), "{lit}");
        }
        assert_eq!(
            canon("{\"a\":1E400}"),
            Err(DigestError::OutOfRange("1E400".into()))
        );
        assert_eq!(
            canon("-1e400"),
            Err(DigestError::OutOfRange("-1e400".into()))
        );
    }

    #[test]
    fn nested_objects_and_arrays_sorted_by_utf16_last_key_wins() {
        let text = r#" { "z" : [1, {"y": null, "x": true}, "s", []],
                         "a": {"c": false, "b": 1.25, "c": {}},
                         "😀": 2, "\ue000": 1, "": 5 } "#;
        assert_eq!(
            canon(text).as_deref(),
            Ok(
                "{\"\":5,\"a\":{\"b\":1.25,\"c\":{}},\"z\":[1,{\"x\":true,\"y\":null},\"s\",[]],\"😀\":2,\"\u{e000}\":1}"
            )
        );
    }

    #[test]
    fn strings_are_unescaped_and_written_like_json_stringify() {
        assert_eq!(
            canon(r#"["\u00e9\/\n\u0001\"", "é", "\ud83d\ude00", "\ud83d"]"#).as_deref(),
            Ok("[\"é/\\n\\u0001\\\"\",\"é\",\"😀\",\"\u{fffd}\"]")
        );
    }

    #[test]
    fn deep_nesting_uses_no_call_stack() {
        let depth = 100_000;
        let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(canon(&deep).as_deref(), Ok(deep.as_str()));
        let objects = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        assert_eq!(canon(&objects).as_deref(), Ok(objects.as_str()));
        // Unclosed: refused, not a crash.
        assert!(matches!(
            canon(&"[".repeat(depth)),
            Err(DigestError::Invalid(_))
        ));
    }

    #[test]
    fn bad_text_is_invalid() {
        for text in [
            "",
            "[1,]",
            "{\"a\"}",
            "{\"a\":1,}",
            "[1 2]",
            "tru",
            "\"abc",
            "1.",
            "1e",
            "-",
            "[1] x",
            "{1:2}",
            "\"\\x\"",
            "\"a\u{1}\"",
            "01",
        ] {
            assert!(
                matches!(canon(text), Err(DigestError::Invalid(_))),
                "{text:?}: {:?}",
                canon(text)
            );
        }
    }

    #[test]
    fn a_ten_megabyte_string() {
        let body = "ab\\\"c".repeat(2 * 1024 * 1024);
        let text = format!("{{\"s\":\"{body}\"}}");
        let out = canon(&text).expect("canonical");
        assert_eq!(out.len(), text.len());
        assert_eq!(out, text);
    }

    #[test]
    fn navigation() {
        let raw =
            RawJson::parse(r#"{"m":{"c":[{"id":"x","in":{"n":1e21}}, 3]},"s":"q\"","z":null}"#)
                .expect("parse");
        let c = raw
            .get(raw.root(), "m")
            .and_then(|m| raw.get(m, "c"))
            .expect("c");
        let items = raw.items(c);
        assert_eq!(items.len(), 2);
        assert_eq!(
            raw.get(items[0], "id").and_then(|n| raw.str(n)).as_deref(),
            Some("x")
        );
        let input = raw.get(items[0], "in").expect("in");
        assert_eq!(raw.canonical(input).as_deref(), Ok("{\"n\":1e+21}"));
        assert_eq!(
            raw.get(raw.root(), "s").and_then(|n| raw.str(n)).as_deref(),
            Some("q\"")
        );
        assert!(raw.get(raw.root(), "z").is_some_and(|z| raw.is_null(z)));
        assert_eq!(raw.get(items[1], "id"), None);
        assert!(raw.items(items[1]).is_empty());
    }
}
