//! What format sniffing reads of a line: a few top-level keys, taken
//! without building the line's JSON tree (every other value, however big, is
//! skipped by serde_json's parser). Discovery sniffs the first lines of every
//! file, so this is on the hot path of `find` and the session list.
//!
//! Presence is recorded even for `null` values (`"payload": null` counts as
//! a `payload` key, as `Value::get(..).is_some()` would say). A line that is
//! not a JSON object, or has a duplicate key among the ones read, is not
//! sniffed (skipped like an unparsable line).

use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A key's value as sniffing needs it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Sniffed {
    /// The key is not in the line.
    #[default]
    Absent,
    /// A string value.
    Str(String),
    /// An object; `id` is its own `id` key when that is a string.
    Object {
        /// The object's `id` string, if any.
        id: Option<String>,
    },
    /// Any other value (`null`, number, bool, array).
    Other,
}

impl Sniffed {
    /// Whether the key is in the line (any value, `null` included).
    pub fn present(&self) -> bool {
        *self != Sniffed::Absent
    }

    /// The string value, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Sniffed::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Whether the value is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Sniffed::Object { .. })
    }
}

struct SniffedVisitor;

impl<'de> Visitor<'de> for SniffedVisitor {
    type Value = Sniffed;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Sniffed, E> {
        Ok(Sniffed::Str(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Sniffed, E> {
        Ok(Sniffed::Str(v))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Sniffed, E> {
        Ok(Sniffed::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Sniffed, E> {
        Ok(Sniffed::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Sniffed, E> {
        Ok(Sniffed::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Sniffed, E> {
        Ok(Sniffed::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Sniffed, E> {
        Ok(Sniffed::Other)
    }

    fn visit_none<E: de::Error>(self) -> Result<Sniffed, E> {
        Ok(Sniffed::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Sniffed, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Sniffed::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Sniffed, A::Error> {
        let mut id = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "id" {
                if let Sniffed::Str(s) = map.next_value::<Sniffed>()? {
                    id = Some(s);
                }
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Sniffed::Object { id })
    }
}

impl<'de> Deserialize<'de> for Sniffed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Sniffed, D::Error> {
        d.deserialize_any(SniffedVisitor)
    }
}

/// The top-level keys of one line that tell the formats apart
/// (docs/transcripts.md#the-line-envelope Claude Code envelope, docs/transcripts.md#the-rollout-envelope Codex envelope, docs/transcripts.md#older-codex-layouts legacy
/// Codex meta).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LineSniff {
    /// `type`.
    #[serde(rename = "type")]
    pub kind: Sniffed,
    /// `uuid` (every Claude Code conversation line).
    pub uuid: Sniffed,
    /// `sessionId` (Claude Code).
    #[serde(rename = "sessionId")]
    pub session_id_camel: Sniffed,
    /// `leafUuid` (Claude Code `summary` lines).
    #[serde(rename = "leafUuid")]
    pub leaf_uuid: Sniffed,
    /// `message` (Claude Code).
    pub message: Sniffed,
    /// `payload` (Codex envelope).
    pub payload: Sniffed,
    /// `session_id` (stream-json, hook payloads).
    pub session_id: Sniffed,
    /// `role` (legacy Codex items).
    pub role: Sniffed,
    /// `id` (legacy Codex meta).
    pub id: Sniffed,
    /// `timestamp`.
    pub timestamp: Sniffed,
    /// `record_type` (legacy Codex `{"record_type":"state"}` lines).
    pub record_type: Sniffed,
}

/// Fills a [`LineSniff`] from a JSON object key by key, so the keys read
/// before an error (a line cut at the sniffing prefix, inside a huge value)
/// are kept. A duplicate of a sniffed key sets `dup` and fails.
struct Partial<'s> {
    out: &'s mut LineSniff,
    dup: &'s mut bool,
}

impl<'de> Visitor<'de> for Partial<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let out = &mut *self.out;
            let slot = match key.as_ref() {
                "type" => &mut out.kind,
                "uuid" => &mut out.uuid,
                "sessionId" => &mut out.session_id_camel,
                "leafUuid" => &mut out.leaf_uuid,
                "message" => &mut out.message,
                "payload" => &mut out.payload,
                "session_id" => &mut out.session_id,
                "role" => &mut out.role,
                "id" => &mut out.id,
                "timestamp" => &mut out.timestamp,
                "record_type" => &mut out.record_type,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            if slot.present() {
                *self.dup = true;
                return Err(de::Error::custom(format_args!("duplicate key {key}")));
            }
            // Assigned only once the whole value is read.
            *slot = map.next_value::<Sniffed>()?;
        }
        Ok(())
    }
}

/// Sniffs one line's JSON text. A complete line must parse whole as an
/// object (after [`super::jsonl::repair_line`] when needed); a line cut at
/// the prefix (`complete == false`) keeps the keys read before the cut,
/// when there is at least one and no sniffed key repeats.
fn sniff_line(bytes: &[u8], complete: bool) -> Option<LineSniff> {
    let attempt = |bytes: &[u8]| -> (LineSniff, bool, bool) {
        let mut out = LineSniff::default();
        let mut dup = false;
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let ok = de
            .deserialize_map(Partial {
                out: &mut out,
                dup: &mut dup,
            })
            .and_then(|()| de.end())
            .is_ok();
        (out, ok, dup)
    };
    let bytes = super::jsonl::line_bytes(bytes);
    let (out, ok, dup) = attempt(bytes);
    if ok {
        return Some(out);
    }
    if complete {
        let (fixed, _) = super::jsonl::repair_line(bytes)?;
        let (out, ok, _) = attempt(&fixed);
        return ok.then_some(out);
    }
    let any = [
        &out.kind,
        &out.uuid,
        &out.session_id_camel,
        &out.leaf_uuid,
        &out.message,
        &out.payload,
        &out.session_id,
        &out.role,
        &out.id,
        &out.timestamp,
        &out.record_type,
    ]
    .iter()
    .any(|s| s.present());
    (bytes.first() == Some(&b'{') && !dup && any).then_some(out)
}

/// How much of one line sniffing parses (64 KiB): the top-level keys that
/// tell formats apart come before a huge value (a pasted image in the first
/// prompt makes a line of tens of MiB).
pub const LINE_PREFIX: usize = 64 * 1024;

/// The most bytes sniffing reads through in one file (64 MiB), cut lines'
/// tails included.
const FILE_BUDGET: u64 = 64 * 1024 * 1024;

/// Sniffs up to `n` of the first non-blank lines of a file that are JSON
/// objects (at most `4 n` lines are tried, within the first 64 MiB). Each
/// line is sniffed from at most its first [`LINE_PREFIX`] bytes: a longer
/// line gives the keys read before the cut. Lines that do not parse are
/// skipped. A file that cannot be opened, or is not a regular file, gives
/// none.
pub fn sniff_lines(path: &Path, n: usize) -> Vec<LineSniff> {
    sniff_file(path, n).unwrap_or_default()
}

/// [`sniff_lines`], saying why a file could not be opened.
///
/// # Errors
/// The error of [`super::fsread::open_regular`] (missing, permission, not
/// a regular file); read errors after opening end the sniff quietly.
pub fn sniff_file(path: &Path, n: usize) -> std::io::Result<Vec<LineSniff>> {
    let file = super::fsread::open_decoded(path)?;
    let mut reader = BufReader::with_capacity(64 * 1024, file.take(FILE_BUDGET));
    let mut out = Vec::new();
    let mut buf = Vec::new();
    let mut tries = 0;
    while out.len() < n && tries < n * 4 {
        buf.clear();
        match (&mut reader)
            .take(LINE_PREFIX as u64)
            .read_until(b'\n', &mut buf)
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        tries += 1;
        let complete = buf.last() == Some(&b'\n') || buf.len() < LINE_PREFIX;
        if !complete && skip_rest_of_line(&mut reader).is_err() {
            break;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(line) = sniff_line(&buf, complete) {
            out.push(line);
        }
    }
    Ok(out)
}

/// Reads through the rest of a line, keeping nothing.
fn skip_rest_of_line(reader: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        if let Some(i) = memchr::memchr(b'\n', chunk) {
            reader.consume(i + 1);
            return Ok(());
        }
        let len = chunk.len();
        reader.consume(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniff(text: &str) -> Option<LineSniff> {
        sniff_line(text.as_bytes(), true)
    }

    #[test]
    fn reads_the_keys_and_skips_the_rest() {
        let l = sniff(
            r#"{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"big":[1,2,{"x":"y"}]}"#,
        )
        .expect("a line");
        assert_eq!(l.kind.as_str(), Some("user"));
        assert!(l.uuid.present());
        assert_eq!(l.session_id_camel.as_str(), Some("s"));
        assert!(l.message.is_object());
        assert!(!l.payload.present());
        assert!(!l.session_id.present());
    }

    #[test]
    fn null_counts_as_present_and_payload_ids_are_read() {
        let l = sniff(r#"{"payload":null,"session_id":null}"#).expect("a line");
        assert!(l.payload.present() && !l.payload.is_object());
        assert!(l.session_id.present());
        let l = sniff(
            r#"{"timestamp":"t","type":"session_meta","payload":{"instructions":"long","id":"abc","git":{"id":"nested"}}}"#,
        )
        .expect("a line");
        assert_eq!(
            l.payload,
            Sniffed::Object {
                id: Some("abc".into())
            }
        );
        let l = sniff(r#"{"type":7,"id":{"no":"string"}}"#).expect("a line");
        assert_eq!(l.kind, Sniffed::Other);
        assert!(l.id.is_object());
    }

    #[test]
    fn non_objects_and_broken_lines_are_not_sniffed() {
        assert!(sniff("[1,2]").is_none());
        assert!(sniff(r#""text""#).is_none());
        assert!(sniff(r#"{"type":"user""#).is_none());
        assert!(sniff(r#"{"type":"user","type":"user"}"#).is_none());
    }

    #[test]
    fn a_cut_line_keeps_the_keys_read_before_the_cut() {
        let l = sniff_line(
            br#"{"sessionId":"s","type":"user","message":{"content":"xxxx"#,
            false,
        )
        .expect("a partial line");
        assert_eq!(l.session_id_camel.as_str(), Some("s"));
        assert_eq!(l.kind.as_str(), Some("user"));
        assert!(!l.message.present());
        assert!(sniff_line(br#"{"big":"xxxx"#, false).is_none());
        assert!(sniff_line(br#"{"type":"a","type":"b","x":"xx"#, false).is_none());
    }
}
