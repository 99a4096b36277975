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
//! `İ` → `i̇`), and the image placeholder `[image: …]` the loader writes into
//! output text. A file containing either (raw or `\u`-escaped), or a JSON
//! `"image"` string, is always a candidate.

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
];

/// Whether a file may hold a call matching every needle. An unreadable file
/// is a candidate (the loader then reports it).
pub fn file_may_match(path: &Path, needles: &[String]) -> bool {
    if needles.is_empty() {
        return true;
    }
    let Ok(mut bytes) = std::fs::read(path) else {
        return true;
    };
    bytes.make_ascii_lowercase();
    bytes_may_match(&bytes, needles)
}

/// [`file_may_match`] on an already ASCII-lowercased buffer.
pub fn bytes_may_match(lower: &[u8], needles: &[String]) -> bool {
    if UNSAFE_MARKERS
        .iter()
        .any(|m| memmem::find(lower, m).is_some())
    {
        return true;
    }
    needles
        .iter()
        .all(|n| memmem::find(lower, n.as_bytes()).is_some())
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
        assert!(bytes_may_match(&raw, &["bash".into(), "rm -rf".into()]));
        assert!(!bytes_may_match(&raw, &["bash".into(), ".env".into()]));
        let kelvin = "{\"x\":\"\u{212a}ey\"}".as_bytes().to_ascii_lowercase();
        assert!(bytes_may_match(&kelvin, &["key".into()]));
        let image = br#"{"type":"image","source":{}}"#.to_ascii_lowercase();
        assert!(bytes_may_match(&image, &["[image:".into()]));
    }
}
