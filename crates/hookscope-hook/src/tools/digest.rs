//! RFC 8785 JSON Canonicalization Scheme (JCS) and the cross-language tool
//! digest (docs/tool-calls.md#the-digest; cc_transcript `ids.py` / Rust `ids.rs`).
//!
//! The digest of a tool call is the lowercase hex SHA-256 of the UTF-8 bytes
//! of the JCS form of `{"input": <raw input or null>, "tool": <tool name>}`.
//! It is computed only from the tool name (never alias-normalized) and the
//! verbatim raw input, so a hook, the transcript parser and other languages
//! agree on it.

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// The largest integer magnitude that survives a round trip through an IEEE
/// double (`2^53 - 1`, JavaScript's `Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Why a value could not be canonicalized (docs/tool-calls.md#the-digest: such values
/// "raise", because no two languages would canonicalize them identically).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DigestError {
    /// An integer literal whose magnitude exceeds `2^53 - 1`; carries the
    /// integer as decimal text.
    #[error(
        "integer {0} is outside the IEEE-754 safe range (|n| > 2^53-1) and cannot be canonicalized"
    )]
    UnsafeInteger(String),
    /// A number that serde_json holds as a float but that may have been
    /// written as an integer literal beyond 64 bits (`18446744073709551616`
    /// is read as the float 2^64): a float `>= 2^64` or `<= -2^63` (see
    /// [`tool_digest`]). Carries the float's ECMAScript text.
    #[error(
        "number {0} may be an integer literal beyond 2^53-1 (read as a float) and cannot be digested"
    )]
    AmbiguousNumber(String),
    /// NaN or ±Infinity. Unreachable through `serde_json::Value` today, kept
    /// so callers can match on it should the number backend change.
    #[error("non-finite number cannot be canonicalized")]
    NonFinite,
    /// A number literal beyond the range of a double (`1E400`), read from
    /// the JSON text ([`tool_digest_text`]); carries the literal. The
    /// reference reads it as infinity, which no canonical form holds.
    #[error("number {0} is outside the IEEE-754 double range and cannot be canonicalized")]
    OutOfRange(String),
    /// The text given to [`canonical_json_text`] / [`tool_digest_text`] is
    /// not one JSON value; carries where and why.
    #[error("not JSON: {0}")]
    Invalid(String),
}

/// Serialize `value` in RFC 8785 canonical form (docs/tool-calls.md#the-digest).
///
/// * objects: keys sorted by their UTF-16 code units (not UTF-8 bytes), no
///   whitespace; duplicate keys cannot occur in a `serde_json::Map` (the
///   decoder keeps the last one);
/// * strings: escaped like ECMAScript `JSON.stringify` — `"` and `\`,
///   `\b \f \n \r \t`, every other C0 control as lowercase `\u00xx`;
///   everything else (including non-ASCII and U+007F) is emitted raw;
/// * numbers: ECMAScript `Number::toString` (`1.0` → `1`, `1e21` → `1e+21`,
///   `1e-7` → `1e-7`, `-0` → `0`) via `ryu-js`.
///
/// # Errors
/// [`DigestError::UnsafeInteger`] for an integer literal with
/// `|n| > 2^53 - 1`; [`DigestError::NonFinite`] for NaN/±Infinity.
pub fn canonical_json(value: &Value) -> Result<String, DigestError> {
    let mut out = String::new();
    write_value(&mut out, value, Floats::Jcs)?;
    Ok(out)
}

/// How floats are treated: plain JCS, or the digest's stricter rule.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Floats {
    /// Every finite float is formatted (RFC 8785).
    Jcs,
    /// Floats that may stand for an integer literal beyond 64 bits are
    /// refused ([`DigestError::AmbiguousNumber`]).
    Digest,
}

/// [`canonical_json`] of a JSON **text**, each number taken from its
/// literal ([`super::raw_json`]): an integer literal (no `.`/`e`/`E`)
/// beyond ±(2^53−1) is refused, any other literal is read as a double and
/// written in ECMAScript form (`1.0` → `1`, `1e21` → `1e+21`, `-0` → `0`).
/// Unlike a `serde_json::Value`, the text tells `1e21` (digested) from
/// `1000000000000000000000` (refused), as the reference does (docs/payloads.md "Hook
/// payloads", "The digest"). Strings are unescaped by serde_json (a lone
/// surrogate escape becomes U+FFFD, as the transcript loaders repair it);
/// nesting costs no call stack.
///
/// # Errors
/// [`DigestError::Invalid`] when `text` is not one JSON value;
/// [`DigestError::UnsafeInteger`], [`DigestError::OutOfRange`].
pub fn canonical_json_text(text: &str) -> Result<String, DigestError> {
    let raw = super::raw_json::RawJson::parse(text)?;
    raw.canonical(raw.root())
}

/// [`tool_digest`] from the input's JSON **text** (`None` → `null`), its
/// numbers read from their literals as [`canonical_json_text`] does: the
/// digest wherever the text exists (`hookscope call`'s INPUT, a transcript
/// line read back by `transcript::call_digest`).
///
/// # Errors
/// As [`canonical_json_text`].
pub fn tool_digest_text(name: &str, input: Option<&str>) -> Result<String, DigestError> {
    match input {
        None => tool_digest(name, None),
        Some(text) => {
            let raw = super::raw_json::RawJson::parse(text)?;
            tool_digest_raw(name, &raw, Some(raw.root()))
        }
    }
}

/// [`tool_digest`] of the node `input` of a [`RawJson`] text (`None` →
/// `null`), numbers from their literals (see [`canonical_json_text`]).
///
/// # Errors
/// [`DigestError::UnsafeInteger`], [`DigestError::OutOfRange`].
///
/// [`RawJson`]: super::raw_json::RawJson
pub fn tool_digest_raw(
    name: &str,
    raw: &super::raw_json::RawJson<'_>,
    input: Option<super::raw_json::NodeId>,
) -> Result<String, DigestError> {
    digest_of_doc(name, |doc| match input {
        Some(node) => raw.write(doc, node),
        None => {
            doc.push_str("null");
            Ok(())
        }
    })
}

/// SHA-256 hex of `{"input":<written by input>,"tool":<name>}`, the one
/// shape every digest hashes.
fn digest_of_doc(
    name: &str,
    input: impl FnOnce(&mut String) -> Result<(), DigestError>,
) -> Result<String, DigestError> {
    let mut doc = String::from("{\"input\":");
    input(&mut doc)?;
    doc.push_str(",\"tool\":");
    write_string(&mut doc, name);
    doc.push('}');
    Ok(sha256_hex(doc.as_bytes()))
}

/// Whether [`tool_digest`] of `value` would be refused as
/// [`DigestError::AmbiguousNumber`] (a float `>= 2^64` or `<= -2^63`
/// somewhere in it): the cheap test before reading the literal back from
/// the text. No hashing; recursion as deep as the value (serde_json builds
/// values at most 128 deep).
pub fn has_ambiguous_number(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.as_u64().is_none()
                && n.as_i64().is_none()
                && n.as_f64()
                    .is_some_and(|f| f >= TWO_POW_64 || f <= MINUS_TWO_POW_63)
        }
        Value::Array(items) => items.iter().any(has_ambiguous_number),
        Value::Object(map) => map.values().any(has_ambiguous_number),
        _ => false,
    }
}

/// The digest of a tool call: lowercase hex SHA-256 (64 chars) of
/// `canonical_json({"input": raw-or-null, "tool": name})` (docs/tool-calls.md#the-digest).
///
/// `raw` is the verbatim input: an object for Claude Code structured input,
/// a JSON string for Codex verbatim inputs, `None` (→ `null`) when absent.
/// `name` is used exactly as invoked (`Execute` and `Bash` differ).
///
/// Numbers (docs/tool-calls.md#the-digest: integers with |n| > 2^53−1 raise; floats are
/// formatted like ECMAScript). The reference (`ids.py`) tells integers from
/// floats by the literal: `18446744073709551616` is a Python int and raises,
/// `1e21` is a float and becomes `1e+21`. serde_json keeps an integer
/// literal exact as u64/i64 when it fits 64 bits (then |n| > 2^53−1 is
/// refused as [`DigestError::UnsafeInteger`]), but reads a longer one as a
/// float, and the literal is gone by then. So a float that could be such a
/// literal — `>= 2^64` or `<= -2^63`, where every float is integral and an
/// integer literal would not have fit — is refused as [`DigestError::AmbiguousNumber`]:
/// no digest rather than one that may differ from the reference. Floats in
/// `(-2^63, 2^64)` can only come from float literals and are formatted.
/// This refuses big float literals such as `1e21` or `1e300` too (the
/// reference digests them); [`canonical_json`] itself still formats them.
/// Where the JSON text exists, [`tool_digest_text`] reads the literals and
/// gives the reference's answer for both; the transcript paths read the
/// call's line back when this refuses (`transcript::call_digest`).
///
/// # Errors
/// Propagates [`canonical_json`] errors from `raw`, and
/// [`DigestError::AmbiguousNumber`] as above.
pub fn tool_digest(name: &str, raw: Option<&Value>) -> Result<String, DigestError> {
    digest_of_doc(name, |doc| match raw {
        Some(v) => write_value(doc, v, Floats::Digest),
        None => {
            doc.push_str("null");
            Ok(())
        }
    })
}

/// Lowercase hex SHA-256 of `bytes`.
fn sha256_hex(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for b in hash {
        // Writing to a String cannot fail.
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

fn write_value(out: &mut String, value: &Value, floats: Floats) -> Result<(), DigestError> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_number(out, n, floats)?,
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item, floats)?;
            }
            out.push(']');
        }
        Value::Object(map) => write_object(out, map, floats)?,
    }
    Ok(())
}

fn write_object(
    out: &mut String,
    map: &Map<String, Value>,
    floats: Floats,
) -> Result<(), DigestError> {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
    out.push('{');
    for (i, (key, val)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, key);
        out.push(':');
        write_value(out, val, floats)?;
    }
    out.push('}');
    Ok(())
}

/// 2^64 and -2^63 as floats: outside `(-2^63, 2^64)` a float may stand for
/// an integer literal serde_json could not keep as u64/i64 (`-2^63 - 1`
/// rounds to the float -2^63).
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
const MINUS_TWO_POW_63: f64 = -9_223_372_036_854_775_808.0;

fn write_number(out: &mut String, n: &Number, floats: Floats) -> Result<(), DigestError> {
    if let Some(u) = n.as_u64() {
        if u > MAX_SAFE_INTEGER {
            return Err(DigestError::UnsafeInteger(u.to_string()));
        }
        let _ = write!(out, "{u}");
        return Ok(());
    }
    if let Some(i) = n.as_i64() {
        if i.unsigned_abs() > MAX_SAFE_INTEGER {
            return Err(DigestError::UnsafeInteger(i.to_string()));
        }
        let _ = write!(out, "{i}");
        return Ok(());
    }
    match n.as_f64() {
        Some(f) if floats == Floats::Digest && (f >= TWO_POW_64 || f <= MINUS_TWO_POW_63) => {
            let mut buf = ryu_js::Buffer::new();
            Err(DigestError::AmbiguousNumber(
                buf.format_finite(f).to_string(),
            ))
        }
        Some(f) if f.is_finite() => {
            write_f64(out, f);
            Ok(())
        }
        _ => Err(DigestError::NonFinite),
    }
}

/// Appends a finite double as ECMAScript `Number::toString` writes it
/// (`ryu-js`; both zeros as `0`).
pub(crate) fn write_f64(out: &mut String, f: f64) {
    if f == 0.0 {
        // Covers -0.0: ECMAScript prints both zeros as "0".
        out.push('0');
    } else {
        let mut buf = ryu_js::Buffer::new();
        out.push_str(buf.format_finite(f));
    }
}

/// Append `s` as a JSON string literal escaped like `JSON.stringify`.
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn canon(v: &Value) -> String {
        canonical_json(v).unwrap()
    }

    #[test]
    fn digest_vector_bash() {
        let raw = json!({"command": "git status", "timeout": 5000});
        assert_eq!(
            tool_digest("Bash", Some(&raw)).unwrap(),
            "bb1ec4959bd14512342126db9066d06d92f8e3486e74b9812cb5037f3f086cc8"
        );
        // Key order in the source does not matter.
        let reordered: Value =
            serde_json::from_str(r#"{"timeout":5000,"command":"git status"}"#).unwrap();
        assert_eq!(
            tool_digest("Bash", Some(&reordered)).unwrap(),
            "bb1ec4959bd14512342126db9066d06d92f8e3486e74b9812cb5037f3f086cc8"
        );
    }

    #[test]
    fn digest_vector_empty() {
        assert_eq!(
            tool_digest("Empty", Some(&json!({}))).unwrap(),
            "b50e454c692adcd4121bab7971501fcc94656ad0247b66d2d607be05dcddd4c5"
        );
    }

    // The expected digests below are python's
    // hashlib.sha256(<canonical text>.encode()).hexdigest(), not this
    // module's own sha256_hex.

    #[test]
    fn digest_name_not_alias_normalized() {
        // {"input":{"command":"git status","timeout":5000},"tool":"Execute"}
        let raw = json!({"command": "git status", "timeout": 5000});
        assert_eq!(
            tool_digest("Execute", Some(&raw)).unwrap(),
            "a37407ce364960f658edf7421f4da4dc18bae451d83c7f04c149dc0e93cc65ac"
        );
    }

    #[test]
    fn digest_of_absent_input_is_over_null() {
        // {"input":null,"tool":"X"}
        let expected = "507df9201d75f5927de18cd161f7f8827e68bd868c670c8f470b4f62ebc6e308";
        assert_eq!(tool_digest("X", None).unwrap(), expected);
        assert_eq!(tool_digest("X", Some(&Value::Null)).unwrap(), expected);
    }

    #[test]
    fn digest_of_string_input_is_over_json_string() {
        // {"input":"*** Begin Patch\n","tool":"apply_patch"}
        let raw = Value::String("*** Begin Patch\n".into());
        assert_eq!(
            tool_digest("apply_patch", Some(&raw)).unwrap(),
            "d4ee933103e5961407cc7888ca1081f8fa421b472e917f1ffeacbefe6ed17afc"
        );
    }

    #[test]
    fn sha256_hex_known_value() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn float_formatting_matches_ecmascript() {
        let cases: &[(&str, &str)] = &[
            ("1.0", "1"),
            ("-1.0", "-1"),
            ("0.0", "0"),
            ("-0.0", "0"),
            ("1e21", "1e+21"),
            ("1e20", "100000000000000000000"),
            ("1e-7", "1e-7"),
            ("0.000001", "0.000001"),
            ("1.5", "1.5"),
            ("0.1", "0.1"),
            ("1.2345678901234568e20", "123456789012345680000"),
            ("698957826421429.2", "698957826421429.2"),
            ("4.5e-324", "5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"),
            ("-2.5e-8", "-2.5e-8"),
        ];
        for (src, want) in cases {
            let v: Value = serde_json::from_str(src).unwrap();
            assert_eq!(canon(&v), *want, "number {src}");
        }
    }

    #[test]
    fn integers_and_safe_range() {
        assert_eq!(canon(&json!(0)), "0");
        assert_eq!(canon(&json!(-42)), "-42");
        assert_eq!(canon(&json!(9007199254740991_u64)), "9007199254740991");
        assert_eq!(canon(&json!(-9007199254740991_i64)), "-9007199254740991");
        assert_eq!(
            canonical_json(&json!(9007199254740992_u64)),
            Err(DigestError::UnsafeInteger("9007199254740992".into()))
        );
        assert_eq!(
            canonical_json(&json!(-9007199254740992_i64)),
            Err(DigestError::UnsafeInteger("-9007199254740992".into()))
        );
        assert_eq!(
            canonical_json(&json!({"a": [u64::MAX]})),
            Err(DigestError::UnsafeInteger("18446744073709551615".into()))
        );
        assert_eq!(
            tool_digest("Bash", Some(&json!({"n": i64::MIN}))),
            Err(DigestError::UnsafeInteger("-9223372036854775808".into()))
        );
    }

    #[test]
    fn string_escaping_like_json_stringify() {
        let v = json!("q\" b\\ \u{08}\u{0c}\n\r\t \u{01}\u{1f} \u{7f} é 😀 \u{2028}");
        assert_eq!(
            canon(&v),
            "\"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0001\\u001f \u{7f} é 😀 \u{2028}\""
        );
        assert_eq!(canon(&json!("/")), "\"/\"");
    }

    #[test]
    fn keys_sorted_by_utf16_code_units() {
        // U+E000 is one UTF-16 unit 0xE000; U+1F600 is the surrogate pair
        // 0xD83D 0xDE00, so it sorts first in UTF-16 but last in UTF-8.
        let v = json!({"\u{e000}": 1, "\u{1F600}": 2, "b": 3, "a": 4, "": 5, "aa": 6});
        assert_eq!(
            canon(&v),
            "{\"\":5,\"a\":4,\"aa\":6,\"b\":3,\"😀\":2,\"\u{e000}\":1}"
        );
    }

    #[test]
    fn nested_structures() {
        let v = json!({"z": [1, {"y": null, "x": true}, "s"], "a": {"c": false, "b": 1.25}});
        assert_eq!(
            canon(&v),
            r#"{"a":{"b":1.25,"c":false},"z":[1,{"x":true,"y":null},"s"]}"#
        );
    }

    #[test]
    fn duplicate_keys_last_wins() {
        let v: Value = serde_json::from_str(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(canon(&v), r#"{"a":3,"b":2}"#);
    }

    /// The issue's example: `1e21` is a float literal (`1e+21`), `1.0` is
    /// `1`, keys sort by UTF-16 code units. The expected digest is python's
    /// `hashlib.sha256('{"input":{"n":1e+21,"x":1,"é":"ü"},"tool":"X"}'
    /// .encode()).hexdigest()`, the canonical text written by hand.
    #[test]
    fn digest_from_text_reads_number_literals() {
        let text = r#"{"x":1.0,"\u00e9":"\u00fc","n":1e21}"#;
        assert_eq!(
            canonical_json_text(text).as_deref(),
            Ok("{\"n\":1e+21,\"x\":1,\"é\":\"ü\"}")
        );
        assert_eq!(
            tool_digest_text("X", Some(text)).as_deref(),
            Ok("63ce656ba5d0f6d7d603e8809f8cec1019dbdb8e2bb02c53ee783f7ae7a44fb8")
        );
        // The Value path cannot tell 1e21 from an integer literal: refused.
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            tool_digest("X", Some(&value)),
            Err(DigestError::AmbiguousNumber("1e+21".into()))
        );
        assert!(has_ambiguous_number(&value));
        assert!(!has_ambiguous_number(&json!({"a": [1.5, -3, "1e21"]})));
        // Nested arrays and objects; python: sha256 of
        // '{"input":{"a":[0,[{"b":-1.5e-7}],"s"],"z":1e+300},"tool":"T"}'.
        assert_eq!(
            tool_digest_text(
                "T",
                Some(r#" {"z": 1E300, "a": [-0, [{"b": -0.00000015}], "s"]} "#)
            )
            .as_deref(),
            Ok("4a74ca4daa0d6f0c2cc0c5030faecc040169216db60d6ddb7da50005fac3bac6")
        );
        // Absent input is null, as through a Value.
        assert_eq!(tool_digest_text("X", None), tool_digest("X", None));
        // Where a Value can answer, both paths agree.
        let plain = r#"{"command":"git status","timeout":5000}"#;
        assert_eq!(
            tool_digest_text("Bash", Some(plain)).as_deref(),
            Ok("bb1ec4959bd14512342126db9066d06d92f8e3486e74b9812cb5037f3f086cc8")
        );
    }

    /// Integer literals beyond 2^53−1 stay refused when read from the text,
    /// whatever their size; a literal beyond the double range too.
    #[test]
    fn digest_from_text_refuses_big_integer_literals_and_out_of_range() {
        for lit in [
            "9007199254740993",
            "1000000000000000000000",
            "-9007199254740992",
        ] {
            assert_eq!(
                tool_digest_text("T", Some(&format!("{{\"n\":[{lit}]}}"))),
                Err(DigestError::UnsafeInteger(lit.into())),
                "{lit}"
            );
        }
        assert_eq!(
            tool_digest_text("T", Some("{\"n\":1E400}")),
            Err(DigestError::OutOfRange("1E400".into()))
        );
        assert!(matches!(
            tool_digest_text("T", Some("{\"n\":")),
            Err(DigestError::Invalid(_))
        ));
        // No stack overflow on 100,000 unclosed `[`.
        assert!(matches!(
            tool_digest_text("T", Some(&"[".repeat(100_000))),
            Err(DigestError::Invalid(_))
        ));
    }

    /// docs/tool-calls.md#the-digest: integers beyond 2^53−1 raise. 2^64 and 2^64+1 are
    /// read by serde_json as the float 2^64; 1e300 (a float literal) cannot
    /// be told from such an integer and is refused by the digest too;
    /// 9007199254740993 stays an exact u64 and is refused as an integer.
    #[test]
    fn digest_refuses_integers_beyond_the_safe_range_however_they_are_read() {
        let digest = |text: &str| {
            let input: Value = serde_json::from_str(&format!("{{\"n\":{text}}}")).unwrap();
            tool_digest("T", Some(&input))
        };
        let two64 = "18446744073709551616";
        assert_eq!(
            digest(two64),
            Err(DigestError::AmbiguousNumber("18446744073709552000".into()))
        );
        assert_eq!(
            digest("18446744073709551617"),
            Err(DigestError::AmbiguousNumber("18446744073709552000".into()))
        );
        assert_eq!(
            digest("-9223372036854775809"),
            Err(DigestError::AmbiguousNumber("-9223372036854776000".into()))
        );
        assert!(digest("-9.2e18").is_ok());
        assert_eq!(
            digest("1e300"),
            Err(DigestError::AmbiguousNumber("1e+300".into()))
        );
        assert_eq!(
            digest("9007199254740993"),
            Err(DigestError::UnsafeInteger("9007199254740993".into()))
        );
        // Floats below 2^64 can only be float literals: formatted.
        assert_eq!(digest("1e19"), tool_digest("T", Some(&json!({"n": 1e19}))));
        assert!(digest("1e19").is_ok());
        assert!(digest("-9223372036854775808").is_err()); // i64::MIN: unsafe integer
        // canonical_json itself stays plain JCS.
        let v: Value = serde_json::from_str("1e300").unwrap();
        assert_eq!(canon(&v), "1e+300");
    }
}
