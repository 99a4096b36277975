//! One line of JSON text, read leniently: the text of a raw line (ASCII
//! whitespace and a byte order mark trimmed), and a repair for what real
//! transcripts hold and `serde_json` refuses: invalid UTF-8 and lone UTF-16
//! surrogate escapes (docs/formats.md). No dependency on the rest of the
//! crate: the core's transcript loaders (its `transcript::jsonl` re-exports
//! these), the query prefilter, and the tool digest's string unescaping
//! all use it.

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
/// the core's `transcript::jsonl::read_objects`); the query prefilter uses [`repair_line`] the same way
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

/// How deep the arrays and objects of JSON text `text` nest (strings and
/// their escapes skipped), stopping once past `limit` (then `limit + 1`):
/// what a reader checks before parsing past serde_json's 128 levels.
pub fn nesting_depth(text: &[u8], limit: usize) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &b in text {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
                if deepest > limit {
                    return deepest;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
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

    /// Brackets inside strings (and escaped quotes) do not count; the scan
    /// stops once past the limit.
    #[test]
    fn nesting_depth_skips_strings() {
        assert_eq!(nesting_depth(br#"{"a":[1,[2]]}"#, 100), 3);
        assert_eq!(nesting_depth(br#"{"a":"[[[[\"[[","b":{}}"#, 100), 2);
        assert_eq!(nesting_depth(b"1", 100), 0);
        assert_eq!(nesting_depth(b"[[[[[[", 3), 4);
    }
}
