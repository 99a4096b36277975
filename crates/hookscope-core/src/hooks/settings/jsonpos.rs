//! Where values start in a JSON text: the 1-based line of each value at a
//! JSON-pointer path, for values up to a depth. `serde_json` gives no
//! positions for values, so handlers could not be shown as `file:line`
//! without this.
//!
//! Only called on text that `serde_json` has already parsed, so the text is
//! valid JSON nested at most 128 deep (serde_json's recursion limit) and the
//! recursion here is bounded the same way. On malformed text it stops early
//! and returns what it found (never panics).

use std::collections::HashMap;

/// The start line (1-based) of every value nested at most `max_depth` deep,
/// keyed by its JSON pointer (RFC 6901: `/hooks/PreToolUse/0/hooks/1`; `""`
/// is the root). A key that occurs twice in one object keeps the position of
/// its last occurrence (the value serde_json keeps).
pub fn value_lines(text: &str, max_depth: usize) -> HashMap<String, usize> {
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        at: 0,
        line: 1,
        max_depth,
        out: HashMap::new(),
    };
    let mut path = String::new();
    scanner.value(&mut path, 0);
    scanner.out
}

/// Escapes one reference token of a JSON pointer (`~` → `~0`, `/` → `~1`).
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
    line: usize,
    max_depth: usize,
    out: HashMap<String, usize>,
}

impl Scanner<'_> {
    fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.at) {
            match b {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' => {}
                _ => return,
            }
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Skips a string starting at the opening quote; returns its raw slice
    /// (with quotes) or `None` when unterminated.
    fn string(&mut self) -> Option<&str> {
        let start = self.at;
        self.at += 1;
        while let Some(&b) = self.bytes.get(self.at) {
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'"' => return std::str::from_utf8(self.bytes.get(start..self.at)?).ok(),
                b'\n' => self.line += 1,
                _ => {}
            }
        }
        None
    }

    fn value(&mut self, path: &mut String, depth: usize) -> bool {
        self.skip_ws();
        if depth <= self.max_depth {
            self.out.insert(path.clone(), self.line);
        }
        match self.peek() {
            Some(b'{') => self.object(path, depth),
            Some(b'[') => self.array(path, depth),
            Some(b'"') => self.string().is_some(),
            Some(_) => {
                while let Some(b) = self.peek() {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                        break;
                    }
                    self.at += 1;
                }
                true
            }
            None => false,
        }
    }

    fn object(&mut self, path: &mut String, depth: usize) -> bool {
        self.at += 1;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b'}') => {
                    self.at += 1;
                    return true;
                }
                Some(b',') => {
                    self.at += 1;
                    continue;
                }
                Some(b'"') => {}
                _ => return false,
            }
            let Some(raw) = self.string() else {
                return false;
            };
            let key: String = serde_json::from_str(raw).unwrap_or_default();
            self.skip_ws();
            if self.peek() != Some(b':') {
                return false;
            }
            self.at += 1;
            let len = path.len();
            path.push('/');
            path.push_str(&escape_token(&key));
            let ok = self.value(path, depth + 1);
            path.truncate(len);
            if !ok {
                return false;
            }
        }
    }

    fn array(&mut self, path: &mut String, depth: usize) -> bool {
        self.at += 1;
        let mut index = 0usize;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b']') => {
                    self.at += 1;
                    return true;
                }
                Some(b',') => {
                    self.at += 1;
                    continue;
                }
                None => return false,
                Some(_) => {}
            }
            let len = path.len();
            path.push('/');
            path.push_str(&index.to_string());
            let ok = self.value(path, depth + 1);
            path.truncate(len);
            if !ok {
                return false;
            }
            index += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_nested_values() {
        let text = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"a/b\",\n        \"hooks\": [ {\"type\": \"command\"},\n          {\"type\": \"http\"} ]\n      }\n    ]\n  }\n}\n";
        let lines = value_lines(text, 6);
        assert_eq!(lines.get(""), Some(&1));
        assert_eq!(lines.get("/hooks"), Some(&2));
        assert_eq!(lines.get("/hooks/PreToolUse/0"), Some(&4));
        assert_eq!(lines.get("/hooks/PreToolUse/0/matcher"), Some(&5));
        assert_eq!(lines.get("/hooks/PreToolUse/0/hooks/0"), Some(&6));
        assert_eq!(lines.get("/hooks/PreToolUse/0/hooks/1"), Some(&7));
    }

    #[test]
    fn escaped_keys_and_depth_limit() {
        let text = r#"{"a/b": {"c~d": [1, {"e": 2}]}}"#;
        let lines = value_lines(text, 2);
        assert_eq!(lines.get("/a~1b/c~0d"), Some(&1));
        assert!(!lines.contains_key("/a~1b/c~0d/1"));
    }

    #[test]
    fn malformed_text_stops_without_panic() {
        let lines = value_lines("{\"a\": [1, 2", 4);
        assert_eq!(lines.get("/a/1"), Some(&1));
        let lines = value_lines("{\"a\" 1}", 4);
        assert_eq!(lines.len(), 1);
    }
}
