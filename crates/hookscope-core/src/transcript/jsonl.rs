//! Lenient JSON Lines reading: one object per line, never failing a file on
//! one bad line (docs/transcripts.md#reading-rules item 1).
//!
//! Lines are split with a buffered reader (a 10 MB line is read like any
//! other), parsed with serde_json, and every line that cannot be used becomes
//! a [`Diagnostic`] with its 1-based line number. Files are opened read-only.

pub use crate::json_line::{LineFixes, line_bytes, parse_line, repair_line};
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
    let mut window = Window::default();
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
            window.deliver(path, place, diagnostics, &mut on_line);
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
                window.deliver(path, place, diagnostics, &mut on_line);
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
        window.push(line_no, bytes, complete);
        if buf.capacity() > KEEP_BUFFER {
            // A long line's buffer goes back now (the window holds a copy).
            buf = Vec::with_capacity(64 * 1024);
        }
        if window.full() {
            window.deliver(path, place, diagnostics, &mut on_line);
        }
    };
    window.deliver(path, place, diagnostics, &mut on_line);
    place.offset = offset;
    place.lines = line_no;
    if let Some(s) = starts {
        s.push(offset);
    }
    result
}

/// Lines read but not yet parsed: [`read_lines`] parses them together,
/// in parallel on the rayon pool when they are many bytes (a large
/// session loaded alone then uses every core), and delivers them in file
/// order with their diagnostics, exactly as one line at a time would.
#[derive(Default)]
struct Window {
    /// The lines' bytes, one after the other.
    bytes: Vec<u8>,
    /// Per line: its number, its range in `bytes`, whether a newline ended it.
    lines: Vec<(usize, std::ops::Range<usize>, bool)>,
}

/// A window is parsed once it holds this many bytes (4 MiB) or
/// [`WINDOW_LINES`] lines; a longer line fills it alone.
const WINDOW_BYTES: usize = 4 << 20;

/// See [`WINDOW_BYTES`].
const WINDOW_LINES: usize = 4096;

/// A window of fewer bytes than this (256 KiB) is parsed on the calling
/// thread: splitting it would cost more than it saves.
const PARALLEL_MIN_BYTES: usize = 256 << 10;

impl Window {
    fn push(&mut self, line_no: usize, bytes: &[u8], complete: bool) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
        self.lines
            .push((line_no, start..self.bytes.len(), complete));
    }

    fn full(&self) -> bool {
        self.bytes.len() >= WINDOW_BYTES || self.lines.len() >= WINDOW_LINES
    }

    /// Parses the window's lines and hands each, in order, to `on_line`
    /// (objects) or `diagnostics` (every other outcome; see
    /// [`read_objects`]); leaves the window empty.
    fn deliver(
        &mut self,
        path: &Path,
        place: &mut Place,
        diagnostics: &mut Vec<Diagnostic>,
        on_line: &mut impl FnMut(usize, Value),
    ) {
        use rayon::prelude::*;
        if self.lines.is_empty() {
            return;
        }
        let bytes = &self.bytes;
        let parse = |(_, range, _): &(usize, std::ops::Range<usize>, bool)| {
            parse_kept(bytes.get(range.clone()).unwrap_or_default())
        };
        let parsed: Vec<_> = if bytes.len() >= PARALLEL_MIN_BYTES && self.lines.len() > 1 {
            self.lines.par_iter().map(parse).collect()
        } else {
            self.lines.iter().map(parse).collect()
        };
        if self.bytes.capacity() > 2 * WINDOW_BYTES {
            self.bytes = Vec::new();
        } else {
            self.bytes.clear();
        }
        for ((line_no, _, complete), parsed) in self.lines.drain(..).zip(parsed) {
            let diag = |message: String| Diagnostic {
                path: path.to_path_buf(),
                locus: Some(Locus::Line(line_no)),
                message,
            };
            let parsed = parsed.map(|(v, fixes)| {
                for message in fixes.messages() {
                    diagnostics.push(diag(message.to_string()));
                }
                v
            });
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
        }
    }
}

/// A line as [`parse_line`] gives it as a `Value`, except a request line
/// ([`is_request_line`]): its object and array values after its `type` are
/// skipped unbuilt and left out ([`KeptLine`]). A line that is no JSON
/// object, or whose `type` is given twice, the later one not a request's,
/// is parsed whole, so every other line is exactly the `Value` parse.
fn parse_kept(bytes: &[u8]) -> Result<(Value, LineFixes), serde_json::Error> {
    if line_bytes(bytes).first() != Some(&b'{') {
        return parse_line::<Value>(bytes);
    }
    let (line, fixes) = parse_line::<KeptLine>(bytes)?;
    let request = line
        .value
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(is_request_line);
    if line.slimmed && (!request || line.odd_key) {
        return parse_line::<Value>(bytes);
    }
    Ok((line.value, fixes))
}

/// The line types whose nested values no loader reads: Claude Code's
/// `api-request`, `api-request-blob` and `api-request-shape` lines (2.1.x:
/// the request sent to the model, its system prompt, tools and messages;
/// about a quarter of the bytes of the real 2.1.332 sessions). Their
/// scalar fields (`type`, `sessionId`, `timestamp`, `version`, `uuid`, …)
/// are kept: the loaders read those of every line
/// (docs/transcripts.md#line-types).
fn is_request_line(kind: &str) -> bool {
    matches!(
        kind,
        "api-request" | "api-request-blob" | "api-request-shape"
    )
}

/// A JSON object parsed for [`parse_kept`]: its `Value`, where, once a
/// top-level `"type"` names a request line, the later keys' object and
/// array values are skipped (serde's `IgnoredAny`, which builds nothing)
/// and left out, except `attachment` (read on every line).
struct KeptLine {
    value: Value,
    /// Whether a value was left out.
    slimmed: bool,
    /// Whether a key is one of serde_json's private tokens (the raw-value
    /// one), which its `Value` parse reads differently: the line is then
    /// parsed whole.
    odd_key: bool,
}

impl<'de> serde::Deserialize<'de> for KeptLine {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(KeptVisitor)
    }
}

/// The visitor of [`KeptLine`] (objects only: [`parse_kept`] hands it
/// nothing else).
struct KeptVisitor;

impl<'de> serde::de::Visitor<'de> for KeptVisitor {
    type Value = KeptLine;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<KeptLine, A::Error> {
        let mut out = serde_json::Map::new();
        let (mut request, mut slimmed, mut odd_key) = (false, false, false);
        while let Some(key) = map.next_key::<String>()? {
            odd_key |= key.starts_with("$serde_json::private::");
            if request && key != "attachment" {
                match map.next_value::<Scalar>()? {
                    Scalar(Some(v)) => {
                        out.insert(key, v);
                    }
                    Scalar(None) => slimmed = true,
                }
                continue;
            }
            let value: Value = map.next_value()?;
            if key == "type" {
                request = value.as_str().is_some_and(is_request_line);
            }
            out.insert(key, value);
        }
        Ok(KeptLine {
            value: Value::Object(out),
            slimmed,
            odd_key,
        })
    }
}

/// A value kept when it is a scalar (`Some`), skipped unbuilt when it is
/// an object or an array (`None`).
struct Scalar(Option<Value>);

impl<'de> serde::Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

/// The visitor of [`Scalar`].
struct ScalarVisitor;

impl<'de> serde::de::Visitor<'de> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::Bool(v))))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::from(v))))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::from(v))))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::from(v))))
    }

    fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::String(v.to_string()))))
    }

    fn visit_string<E>(self, v: String) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::String(v))))
    }

    fn visit_unit<E>(self) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::Null)))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Scalar(None))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        Ok(Scalar(None))
    }
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

    /// Lines parsed together, in parallel (a file of several windows,
    /// each over the parallel threshold), come out as one line at a time:
    /// every object in order with its number, every diagnostic in line
    /// order, a fixed line with its fix, the truncated last line last.
    #[test]
    fn windows_parsed_in_parallel_keep_the_file_order() {
        let mut bytes = Vec::new();
        let mut want_lines = Vec::new();
        let mut want_diags: Vec<(usize, String)> = Vec::new();
        let pad = "x".repeat(1500);
        for n in 1..=9000usize {
            if n % 97 == 0 {
                bytes.extend_from_slice(b"{\"broken\": \n");
                want_diags.push((
                    n,
                    "invalid JSON: EOF while parsing a value at line 1 column 10".into(),
                ));
            } else if n % 89 == 0 {
                bytes.extend_from_slice(b"[1]\n");
                want_diags.push((n, "expected a JSON object, got array".into()));
            } else if n == 4444 {
                bytes.extend_from_slice(b"{\"n\":4444,\"s\":\"\xff\"}\n");
                want_diags.push((n, "invalid UTF-8 replaced with U+FFFD".into()));
                want_lines.push(n);
            } else {
                bytes.extend_from_slice(format!("{{\"n\":{n},\"pad\":\"{pad}\"}}\n").as_bytes());
                want_lines.push(n);
            }
        }
        bytes.extend_from_slice(b"{\"n\":9001,\"pad\":\"");
        want_diags.push((
            9001,
            "truncated last line (the session may still be being written)".into(),
        ));
        assert!(bytes.len() > 3 * WINDOW_BYTES, "{}", bytes.len());
        let (lines, diags) = read(&bytes);
        let got: Vec<usize> = lines.iter().map(|(n, _)| *n).collect();
        assert_eq!(got, want_lines);
        assert!(
            lines
                .iter()
                .all(|(n, v)| v["n"].as_u64() == u64::try_from(*n).ok())
        );
        let got: Vec<(usize, String)> = diags
            .into_iter()
            .map(|d| match d.locus {
                Some(Locus::Line(n)) => (n, d.message),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, want_diags);
    }

    /// What `parse_kept` and the whole `Value` parse give, as text.
    fn both(bytes: &[u8]) -> (String, String) {
        let show = |r: Result<(Value, LineFixes), serde_json::Error>| match r {
            Ok((v, fixes)) => format!("{v} {:?}", fixes.messages()),
            Err(e) => format!("error: {e}"),
        };
        (show(parse_kept(bytes)), show(parse_line::<Value>(bytes)))
    }

    /// A request line keeps its scalars and `attachment` and leaves its
    /// objects and arrays after `type` out; anything that is not plainly
    /// such a line (`type` after the big values, `type` given twice, the
    /// raw-value token as a key, a non-object, bad bytes elsewhere) is the
    /// whole `Value` parse.
    #[test]
    fn a_request_lines_nested_values_are_left_out_and_nothing_else_is() {
        let (kept, _) = both(
            br#"{"type":"api-request-shape","sessionId":"s","shape":{"system":[{"text":"x"}]},"version":"2.1.332","n":[1,2],"uuid":"u","attachment":{"type":"instructions","files":[]},"ok":true}"#,
        );
        assert_eq!(
            kept,
            r#"{"type":"api-request-shape","sessionId":"s","version":"2.1.332","uuid":"u","attachment":{"type":"instructions","files":[]},"ok":true} []"#
        );
        // A bad byte in a kept scalar is repaired as in any line; one in a
        // value left out is never read.
        let (kept, _) = both(b"{\"type\":\"api-request\",\"s\":\"\xff\",\"m\":{\"a\":\"\xfe\"}}");
        assert_eq!(
            kept,
            "{\"type\":\"api-request\",\"s\":\"\u{fffd}\"} [\"invalid UTF-8 replaced with U+FFFD\"]"
        );
        // Only the values after `type` are left out.
        let (kept, _) = both(br#"{"shape":{"a":1},"type":"api-request-shape","blob":[1]}"#);
        assert_eq!(kept, r#"{"shape":{"a":1},"type":"api-request-shape"} []"#);
        for line in [
            &br#"{"type":"api-request","params":{"a":1},"type":"user","message":{"content":[]}}"#[..],
            br#"{"type":"api-request","$serde_json::private::RawValue":"1","p":[1]}"#,
            br#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}"#,
            br#"[1,{"type":"api-request"}]"#,
            br#""api-request""#,
            br#"{"type":"user","s":"\ud800"}"#,
            br#"{"type":"api-request","m":{"a":"#,
            br#"{"type":"api-request","m":{"a" 1}}"#,
            br#"{"type":"api-request","m":1e400}"#,
        ] {
            let (kept, whole) = both(line);
            assert_eq!(kept, whole, "{}", String::from_utf8_lossy(line));
        }
    }

    /// Every line of every JSON Lines file of the test corpus: the whole
    /// `Value` parse, or for a request line that parse without its object
    /// and array values after `type` (other than `attachment`).
    #[test]
    fn every_corpus_line_is_its_value_or_a_request_lines_scalars() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus"));
        let mut files = Vec::new();
        let mut dirs = vec![root.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("read_dir").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "jsonl") {
                    files.push(path);
                }
            }
        }
        let (mut lines, mut requests) = (0, 0);
        for file in &files {
            let bytes = std::fs::read(file).expect("read");
            for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                lines += 1;
                let kept = parse_kept(line).map(|(v, f)| (v, f.messages()));
                let mut whole = parse_line::<Value>(line).map(|(v, f)| (v, f.messages()));
                if let Ok((Value::Object(map), _)) = &mut whole
                    && map
                        .get("type")
                        .and_then(Value::as_str)
                        .is_some_and(is_request_line)
                {
                    requests += 1;
                    let mut past_type = false;
                    map.retain(|k, v| {
                        let keep =
                            !past_type || k == "attachment" || !(v.is_object() || v.is_array());
                        past_type |= k == "type";
                        keep
                    });
                }
                assert_eq!(
                    format!("{kept:?}"),
                    format!("{whole:?}"),
                    "{}",
                    file.display()
                );
            }
        }
        assert!(files.len() > 300, "{}", files.len());
        assert!(lines > 6_000, "{lines}");
        assert!(requests > 100, "{requests}");
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
