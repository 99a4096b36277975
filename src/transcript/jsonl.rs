//! Lenient JSON Lines reading: one object per line, never failing a file on
//! one bad line (docs/transcripts.md#reading-rules item 1).
//!
//! Lines are split with a buffered reader (a 10 MB line is read like any
//! other), parsed with serde_json, and every line that cannot be used becomes
//! a [`Diagnostic`] with its 1-based line number. Files are opened read-only.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde_json::Value;

use super::model::{Diagnostic, Locus};

/// Reads `path` line by line and calls `on_line(line_number, object)` for each
/// line that is a JSON object. Blank lines are skipped silently.
///
/// Diagnostics pushed to `diagnostics`:
/// - invalid JSON: `invalid JSON: <serde message>`;
/// - a last line without a newline that does not parse: `truncated last line
///   (the session may still be being written)`;
/// - invalid UTF-8: the line is decoded lossily (U+FFFD) and still used, with
///   `invalid UTF-8 replaced with U+FFFD`;
/// - a lone UTF-16 surrogate escape (`"\ud83d"` without its pair): rewritten
///   to U+FFFD and the line still used, with `lone UTF-16 surrogate escape
///   replaced with U+FFFD` (see [`parse_line`]);
/// - a UTF-8 byte order mark at the start of a line is ignored;
/// - a JSON value that is not an object: `expected a JSON object, got <kind>`.
///
/// - a line longer than [`MAX_LINE`] bytes: `line longer than 256 MiB;
///   skipped` (the rest of it is read through, not kept).
///
/// # Errors
/// Only when the file cannot be opened or read at all (missing, permission,
/// I/O error, not a regular file: see [`super::fsread::open_regular`]); a
/// partial read keeps the lines already delivered.
pub fn read_objects(
    path: &Path,
    diagnostics: &mut Vec<Diagnostic>,
    on_line: impl FnMut(usize, Value),
) -> std::io::Result<()> {
    let file = super::fsread::open_decoded(path)?;
    read_lines(
        file,
        path,
        &mut Place::default(),
        diagnostics,
        on_line,
        None,
    )
}

/// Where [`read_objects_from`] starts and where it ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    /// Byte offset (of the file as stored) of the next line to read.
    pub offset: u64,
    /// Lines before `offset` (the next line is `lines + 1`).
    pub lines: usize,
    /// After a read: the offset where its last line starts (`offset` when
    /// it read no line).
    pub last_start: u64,
    /// After a read: whether its last line lacked a newline (the file ended
    /// inside a line).
    pub partial: bool,
    /// After a read: whether that partial last line was delivered as an
    /// object (it parsed although its newline is not written yet).
    pub partial_delivered: bool,
    /// After a read: whether it stopped on a read error.
    pub failed: bool,
}

/// [`read_objects`] of a plain (not `.zst`) file from `place` on: lines are
/// numbered from `place.lines + 1`, `place` is advanced to the end of what
/// was read (`offset`, `lines`, and the `last_start` / `partial` /
/// `partial_delivered` / `failed` facts of the read), and the start offset
/// of every line read, then the end offset, is pushed to `starts` (when
/// given). Read from
/// a line start, the lines and diagnostics are those [`read_objects`] gives
/// for the same lines of the whole file.
///
/// # Errors
/// As [`read_objects`], and a failed seek.
pub fn read_objects_from(
    path: &Path,
    place: &mut Place,
    diagnostics: &mut Vec<Diagnostic>,
    on_line: impl FnMut(usize, Value),
    starts: Option<&mut Vec<u64>>,
) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    let mut file = super::fsread::open_regular(path)?;
    file.seek(SeekFrom::Start(place.offset))?;
    read_lines(file, path, place, diagnostics, on_line, starts)
}

/// The loop of [`read_objects`] / [`read_objects_from`] over `file`
/// (positioned at `place.offset`).
fn read_lines(
    file: impl Read,
    path: &Path,
    place: &mut Place,
    diagnostics: &mut Vec<Diagnostic>,
    mut on_line: impl FnMut(usize, Value),
    mut starts: Option<&mut Vec<u64>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut line_no = place.lines;
    let mut offset = place.offset;
    place.last_start = offset;
    place.partial = false;
    place.partial_delivered = false;
    place.failed = false;
    let result = loop {
        if buf.capacity() > KEEP_BUFFER {
            // After a long line (kept, skipped or blank) the buffer is as big
            // as it was (up to twice its length); start small again.
            buf = Vec::with_capacity(64 * 1024);
        }
        buf.clear();
        let read = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf);
        if let Ok(n) = read
            && n > MAX_LINE
            && buf.last() != Some(&b'\n')
        {
            line_no += 1;
            place.last_start = offset;
            if let Some(s) = starts.as_deref_mut() {
                s.push(offset);
            }
            diagnostics.push(Diagnostic {
                path: path.to_path_buf(),
                locus: Some(Locus::Line(line_no)),
                message: "line longer than 256 MiB; skipped".to_string(),
            });
            match skip_line(&mut reader) {
                Ok((rest, newline)) => {
                    offset += n as u64 + rest;
                    place.partial = !newline;
                }
                Err(err) => {
                    diagnostics.push(Diagnostic {
                        path: path.to_path_buf(),
                        locus: Some(Locus::Line(line_no)),
                        message: format!("read error: {err}"),
                    });
                    place.failed = true;
                    break Ok(());
                }
            }
            continue;
        }
        let n = match read {
            Ok(n) => n,
            Err(err) => {
                diagnostics.push(Diagnostic {
                    path: path.to_path_buf(),
                    locus: Some(Locus::Line(line_no + 1)),
                    message: format!("read error: {err}"),
                });
                place.failed = true;
                break Ok(());
            }
        };
        if n == 0 {
            break Ok(());
        }
        line_no += 1;
        place.last_start = offset;
        if let Some(s) = starts.as_deref_mut() {
            s.push(offset);
        }
        offset += n as u64;
        let complete = buf.last() == Some(&b'\n');
        place.partial = !complete;
        let bytes = line_bytes(&buf);
        if bytes.is_empty() {
            continue;
        }
        let diag = |message: String| Diagnostic {
            path: path.to_path_buf(),
            locus: Some(Locus::Line(line_no)),
            message,
        };
        let parsed = parse_line::<Value>(bytes).map(|(v, fixes)| {
            for message in fixes.messages() {
                diagnostics.push(diag(message.to_string()));
            }
            v
        });
        if buf.capacity() > KEEP_BUFFER {
            // Give a long line's buffer back before its value is used, not
            // after (the value and what is kept of it are as big again).
            buf = Vec::with_capacity(64 * 1024);
        }
        match parsed {
            Ok(Value::Object(map)) => {
                place.partial_delivered = !complete;
                on_line(line_no, Value::Object(map));
            }
            Ok(other) => diagnostics.push(diag(format!(
                "expected a JSON object, got {}",
                crate::tools::calls::json_type(&other)
            ))),
            Err(err) if !complete && err.is_eof() => diagnostics.push(diag(
                "truncated last line (the session may still be being written)".to_string(),
            )),
            Err(err) => diagnostics.push(diag(format!("invalid JSON: {err}"))),
        }
    };
    place.offset = offset;
    place.lines = line_no;
    if let Some(s) = starts {
        s.push(offset);
    }
    result
}

/// The largest line buffer [`read_objects`] keeps between lines, in bytes
/// (1 MiB); after a longer line it starts over at 64 KiB.
const KEEP_BUFFER: usize = 1 << 20;

/// The longest line kept, in bytes (256 MiB; a pasted image makes lines of
/// tens of MiB).
pub const MAX_LINE: usize = 256 << 20;

/// Reads through the rest of a line (up to and including its newline)
/// without keeping it; returns the bytes consumed and whether a newline
/// ended them.
fn skip_line(reader: &mut impl BufRead) -> std::io::Result<(u64, bool)> {
    let mut consumed = 0u64;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok((consumed, false));
        }
        match memchr::memchr(b'\n', chunk) {
            Some(i) => {
                reader.consume(i + 1);
                return Ok((consumed + i as u64 + 1, true));
            }
            None => {
                let n = chunk.len();
                reader.consume(n);
                consumed += n as u64;
            }
        }
    }
}

/// What [`parse_line`] repaired in a line before it parsed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineFixes {
    /// Invalid UTF-8 was decoded lossily (U+FFFD).
    pub invalid_utf8: bool,
    /// A `\uD800`–`\uDFFF` escape not part of a surrogate pair was rewritten
    /// to `\uFFFD` (Claude Code writes them when it cuts a string inside an
    /// emoji).
    pub lone_surrogate: bool,
}

impl LineFixes {
    /// The diagnostic messages for the repairs made, in a fixed order:
    /// `invalid UTF-8 replaced with U+FFFD`, `lone UTF-16 surrogate escape
    /// replaced with U+FFFD`.
    pub fn messages(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.invalid_utf8 {
            out.push("invalid UTF-8 replaced with U+FFFD");
        }
        if self.lone_surrogate {
            out.push("lone UTF-16 surrogate escape replaced with U+FFFD");
        }
        out
    }
}

/// The JSON text of a raw line: surrounding ASCII whitespace and a leading
/// UTF-8 byte order mark (EF BB BF, as an editor may write at the start of a
/// file) removed.
pub fn line_bytes(raw: &[u8]) -> &[u8] {
    let trimmed = trim_ascii(raw);
    match trimmed.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => trim_ascii(rest),
        None => trimmed,
    }
}

/// A repaired copy of a line that failed to parse, when a repair applies:
/// invalid UTF-8 decoded lossily, then every lone surrogate escape rewritten
/// to `\ufffd` (same length). `None` when there is nothing to repair (the
/// parse error stands).
pub fn repair_line(bytes: &[u8]) -> Option<(Vec<u8>, LineFixes)> {
    let mut fixes = LineFixes::default();
    let mut out = match std::str::from_utf8(bytes) {
        Ok(_) => bytes.to_vec(),
        Err(_) => {
            fixes.invalid_utf8 = true;
            String::from_utf8_lossy(bytes).into_owned().into_bytes()
        }
    };
    fixes.lone_surrogate = replace_lone_surrogates(&mut out);
    (fixes != LineFixes::default()).then_some((out, fixes))
}

/// Parses one line's JSON text (see [`line_bytes`]) as `T`; when that fails
/// and [`repair_line`] applies, parses the repaired text instead and says
/// what was repaired. This is the one line parser of the loaders (through
/// [`read_objects`]); the query prefilter uses [`repair_line`] the same way
/// for its borrowed line type.
///
/// # Errors
/// The first parse's error when the line cannot be repaired or still does
/// not parse.
pub fn parse_line<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
) -> Result<(T, LineFixes), serde_json::Error> {
    let err = match serde_json::from_slice::<T>(bytes) {
        Ok(v) => return Ok((v, LineFixes::default())),
        Err(err) => err,
    };
    match repair_line(bytes) {
        Some((fixed, fixes)) => serde_json::from_slice::<T>(&fixed)
            .map(|v| (v, fixes))
            .map_err(|_| err),
        None => Err(err),
    }
}

/// Rewrites each `\uXXXX` escape in the surrogate range that is not a
/// high-low pair to `\ufffd`, in place; `\\` escapes are skipped so `\\ud83d`
/// (a backslash and text) is left alone. Returns whether any was rewritten.
fn replace_lone_surrogates(bytes: &mut [u8]) -> bool {
    let hex4 = |b: &[u8], at: usize| -> Option<u16> {
        let digits = b.get(at..at + 4)?;
        let text = std::str::from_utf8(digits).ok()?;
        u16::from_str_radix(text, 16).ok()
    };
    let escape_at = |b: &[u8], at: usize| -> Option<u16> {
        if b.get(at) == Some(&b'\\') && b.get(at + 1) == Some(&b'u') {
            hex4(b, at + 2)
        } else {
            None
        }
    };
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = escape_at(bytes, i) else {
            i += 2; // `\\`, `\"`, `\n`, …: skip the escaped byte
            continue;
        };
        let high = (0xD800..0xDC00).contains(&unit);
        let low = (0xDC00..0xE000).contains(&unit);
        if high && escape_at(bytes, i + 6).is_some_and(|u| (0xDC00..0xE000).contains(&u)) {
            i += 12; // a valid pair
            continue;
        }
        if high || low {
            bytes[i + 2..i + 6].copy_from_slice(b"fffd");
            changed = true;
        }
        i += 6;
    }
    changed
}

fn trim_ascii(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    &bytes[start..end.max(start)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn read(bytes: &[u8]) -> (Vec<(usize, Value)>, Vec<Diagnostic>) {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        file.write_all(bytes).expect("write");
        let mut diags = Vec::new();
        let mut lines = Vec::new();
        read_objects(file.path(), &mut diags, |n, v| lines.push((n, v))).expect("read");
        (lines, diags)
    }

    #[test]
    fn bad_lines_are_diagnosed_and_the_rest_loads() {
        let (lines, diags) = read(b"{\"a\":1}\nnot json\n\n[1,2]\n{\"b\":2}\n{\"c\":");
        assert_eq!(
            lines.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
            vec![1, 5]
        );
        let got: Vec<(Option<usize>, &str)> = diags
            .iter()
            .map(|d| (d.line(), d.message.split(':').next().unwrap_or("")))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some(2), "invalid JSON"),
                (Some(4), "expected a JSON object, got array"),
                (
                    Some(6),
                    "truncated last line (the session may still be being written)"
                ),
            ]
        );
    }

    #[test]
    fn invalid_utf8_is_replaced_and_used() {
        let (lines, diags) = read(b"{\"t\":\"a\xffb\"}\n");
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].1["t"], "a\u{fffd}b");
        assert_eq!(diags[0].message, "invalid UTF-8 replaced with U+FFFD");
    }

    #[test]
    fn a_ten_megabyte_line_loads() {
        let big = "x".repeat(10 * 1024 * 1024);
        let line = format!("{{\"big\":\"{big}\"}}\n{{\"n\":2}}\n");
        let (lines, diags) = read(line.as_bytes());
        assert!(diags.is_empty());
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[0].1["big"].as_str().map(str::len),
            Some(10 * 1024 * 1024)
        );
    }

    #[test]
    fn missing_file_is_an_error() {
        let mut diags = Vec::new();
        let err = read_objects(Path::new("/nonexistent/x.jsonl"), &mut diags, |_, _| {});
        assert!(err.is_err());
    }

    #[test]
    fn lone_surrogates_are_replaced_pairs_and_escaped_backslashes_kept() {
        let (lines, diags) =
            read(b"{\"t\":\"a\\ud83d\",\"p\":\"\\ud83d\\ude00\",\"b\":\"\\\\ud83d\",\"l\":\"\\udc00x\"}\n");
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].1["t"], "a\u{fffd}");
        assert_eq!(lines[0].1["p"], "\u{1f600}");
        assert_eq!(lines[0].1["b"], "\\ud83d");
        assert_eq!(lines[0].1["l"], "\u{fffd}x");
        assert_eq!(
            diags.iter().map(|d| d.message.as_str()).collect::<Vec<_>>(),
            vec!["lone UTF-16 surrogate escape replaced with U+FFFD"]
        );
    }

    #[test]
    fn a_byte_order_mark_does_not_cost_line_one() {
        let (lines, diags) = read(b"\xEF\xBB\xBF{\"a\":1}\n{\"b\":2}\n");
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            lines.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert_eq!(lines[0].1["a"], 1);
    }
}
