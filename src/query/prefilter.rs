//! Raw-byte prefilter: skip a session without parsing any JSON when none of
//! its files can hold a matching call.
//!
//! A call's `tool_use` block and its `tool_result` are in the same file
//! (main transcript, inline sidechain, or the subagent's own file), so a
//! session is a candidate when at least one of its files contains every
//! needle, compared ASCII case-insensitively (`memchr::memmem` over an
//! ASCII-lowercased copy of the file).
//!
//! Needles used: the tool name (exact or pattern), `input_contains` and
//! `output_contains`. A needle is only used when it is "plain": printable
//! ASCII without `"`, `\`, `<`, `>`, `&` (characters some JSON writers
//! escape; Claude Code's writer escapes only `"`, `\` and control characters).
//! Others (non-ASCII, quotes, newlines…) may be stored escaped, so they are
//! not used and the session is parsed. `output_excludes` and `is_error`
//! never skip anything.
//!
//! Two cases where the parsed text holds an ASCII letter the raw bytes do
//! not: a char whose Unicode lowercase is ASCII (`K` KELVIN SIGN → `k`,
//! `İ` → `i̇`), and the placeholders `[image: …]` / `[tool_reference: …]` the
//! loader writes into output text. A file containing such a char (raw or
//! `\u`-escaped), or a JSON `"image"` / `"tool_reference"` string, is always a
//! candidate.
//!
//! Input is matched on its re-serialized compact JSON; a number written in a
//! form serde_json re-serializes differently (`1e2` → `100.0`) could be missed
//! by the prefilter. Claude Code writes numbers in their shortest form, which
//! serde_json keeps.

use std::path::Path;

use memchr::memmem;

use super::params::{NameFilter, Query};

/// The plain needles of a query (already lowercase); empty = no prefilter.
pub fn needles(query: &Query) -> Vec<String> {
    let mut out = Vec::new();
    let name = match &query.name {
        NameFilter::Exact(n) | NameFilter::Pattern(n) => n,
    };
    for needle in [
        Some(name),
        query.input_contains.as_ref(),
        query.output_contains.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        if is_plain(needle) {
            out.push(needle.to_ascii_lowercase());
        }
    }
    out
}

/// Whether a needle can be searched for in raw JSON bytes as is.
pub fn is_plain(needle: &str) -> bool {
    !needle.is_empty()
        && needle
            .bytes()
            .all(|b| (0x20..0x7f).contains(&b) && !matches!(b, b'"' | b'\\' | b'<' | b'>' | b'&'))
}

/// Byte sequences (lowercase) whose presence disables skipping a file.
const UNSAFE_MARKERS: &[&[u8]] = &[
    "\u{212a}".as_bytes(), // KELVIN SIGN, lowercases to 'k'
    "\u{130}".as_bytes(),  // LATIN CAPITAL LETTER I WITH DOT ABOVE → 'i' + U+0307
    b"\\u212a",
    b"\\u0130",
    b"\"image\"",
    b"\"tool_reference\"",
];

/// Compiled needles (one `memmem::Finder` each, built once per query).
pub struct Prefilter {
    needles: Vec<memmem::Finder<'static>>,
    markers: Vec<memmem::Finder<'static>>,
}

impl Prefilter {
    /// Compiles `needles` (lowercase, plain; see [`needles`]).
    pub fn new(needles: &[String]) -> Prefilter {
        Prefilter {
            needles: needles
                .iter()
                .map(|n| memmem::Finder::new(n.as_bytes()).into_owned())
                .collect(),
            markers: UNSAFE_MARKERS
                .iter()
                .map(|m| memmem::Finder::new(m).into_owned())
                .collect(),
        }
    }

    /// Whether there is nothing to prefilter on (every file is a candidate).
    pub fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }

    /// Whether a file may hold a call matching every needle. An unreadable
    /// file is a candidate (the loader then reports it).
    pub fn file_may_match(&self, path: &Path) -> bool {
        if self.is_empty() {
            return true;
        }
        let Ok(mut bytes) = std::fs::read(path) else {
            return true;
        };
        bytes.make_ascii_lowercase();
        self.bytes_may_match(&bytes)
    }

    /// [`Prefilter::file_may_match`] on an already ASCII-lowercased buffer.
    pub fn bytes_may_match(&self, lower: &[u8]) -> bool {
        self.markers.iter().any(|m| m.find(lower).is_some())
            || self.needles.iter().all(|n| n.find(lower).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_needles() {
        assert!(is_plain("rm -rf"));
        assert!(is_plain("/etc/passwd"));
        assert!(!is_plain("say \"hi\""));
        assert!(!is_plain("a\\b"));
        assert!(!is_plain("line\nbreak"));
        assert!(!is_plain("café"));
        assert!(!is_plain("<tag>"));
        assert!(!is_plain(""));
    }

    #[test]
    fn matching() {
        let raw = br#"{"name":"bash","input":{"command":"rm -rf build/"}}"#.to_ascii_lowercase();
        let p = |n: &[&str]| Prefilter::new(&n.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert!(p(&["bash", "rm -rf"]).bytes_may_match(&raw));
        assert!(!p(&["bash", ".env"]).bytes_may_match(&raw));
        let kelvin = "{\"x\":\"\u{212a}ey\"}".as_bytes().to_ascii_lowercase();
        assert!(p(&["key"]).bytes_may_match(&kelvin));
        let image = br#"{"type":"image","source":{}}"#.to_ascii_lowercase();
        assert!(p(&["[image:"]).bytes_may_match(&image));
        assert!(p(&[]).is_empty());
    }
}
