//! Lenient JSON Lines reading: one object per line, never failing a file on
//! one bad line (formats.md §6 item 1).
//!
//! Lines are split with a buffered reader (a 10 MB line is read like any
//! other), parsed with serde_json, and every line that cannot be used becomes
//! a [`Diagnostic`] with its 1-based line number. Files are opened read-only.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde_json::Value;

use super::model::Diagnostic;

/// Reads `path` line by line and calls `on_line(line_number, object)` for each
/// line that is a JSON object. Blank lines are skipped silently.
///
/// Diagnostics pushed to `diagnostics`:
/// - invalid JSON: `invalid JSON: <serde message>`;
/// - a last line without a newline that does not parse: `truncated last line
///   (the session may still be being written)`;
/// - invalid UTF-8: the line is decoded lossily (U+FFFD) and still used, with
///   `invalid UTF-8 replaced with U+FFFD`;
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
    mut on_line: impl FnMut(usize, Value),
) -> std::io::Result<()> {
    let file = super::fsread::open_regular(path)?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut line_no = 0usize;
    loop {
        buf.clear();
        let read = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf);
        if matches!(read, Ok(n) if n > MAX_LINE) && buf.last() != Some(&b'\n') {
            line_no += 1;
            diagnostics.push(Diagnostic {
                path: path.to_path_buf(),
                line: Some(line_no),
                message: "line longer than 256 MiB; skipped".to_string(),
            });
            if let Err(err) = skip_line(&mut reader) {
                diagnostics.push(Diagnostic {
                    path: path.to_path_buf(),
                    line: Some(line_no),
                    message: format!("read error: {err}"),
                });
                return Ok(());
            }
            continue;
        }
        let n = match read {
            Ok(n) => n,
            Err(err) => {
                diagnostics.push(Diagnostic {
                    path: path.to_path_buf(),
                    line: Some(line_no + 1),
                    message: format!("read error: {err}"),
                });
                return Ok(());
            }
        };
        if n == 0 {
            return Ok(());
        }
        line_no += 1;
        let complete = buf.last() == Some(&b'\n');
        let bytes = trim_ascii(&buf);
        if bytes.is_empty() {
            continue;
        }
        let diag = |message: String| Diagnostic {
            path: path.to_path_buf(),
            line: Some(line_no),
            message,
        };
        let parsed = match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => Ok(v),
            Err(err) if std::str::from_utf8(bytes).is_err() => {
                let text = String::from_utf8_lossy(bytes);
                match serde_json::from_str::<Value>(&text) {
                    Ok(v) => {
                        diagnostics.push(diag("invalid UTF-8 replaced with U+FFFD".to_string()));
                        Ok(v)
                    }
                    Err(_) => Err(err),
                }
            }
            Err(err) => Err(err),
        };
        match parsed {
            Ok(Value::Object(map)) => on_line(line_no, Value::Object(map)),
            Ok(other) => diagnostics.push(diag(format!(
                "expected a JSON object, got {}",
                crate::tools::calls::json_type(&other)
            ))),
            Err(err) if !complete && err.is_eof() => diagnostics.push(diag(
                "truncated last line (the session may still be being written)".to_string(),
            )),
            Err(err) => diagnostics.push(diag(format!("invalid JSON: {err}"))),
        }
    }
}

/// The longest line kept, in bytes (256 MiB; a pasted image makes lines of
/// tens of MiB).
pub const MAX_LINE: usize = 256 << 20;

/// Reads through the rest of a line (up to and including its newline)
/// without keeping it.
fn skip_line(reader: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match memchr::memchr(b'\n', chunk) {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                reader.consume(n);
            }
        }
    }
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
            .map(|d| (d.line, d.message.split(':').next().unwrap_or("")))
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
}
