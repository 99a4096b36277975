//! Text that is safe to write to a terminal: every control character a
//! transcript, a settings file or a hook's output may carry is replaced by
//! a visible escape, so that printing it cannot retitle the window (OSC 0),
//! clear the screen (CSI), write the clipboard (OSC 52) or overwrite a line
//! (CR). The one helper every text output of the CLI goes through
//! (docs/security.md "Terminal output"); `--json` output is not passed here
//! (JSON escapes C0 itself, and a payload must stay byte for byte).

use std::borrow::Cow;

/// Whether `c` is replaced by [`printable`]: C0 controls except tab and
/// newline (U+0000–U+001F), DEL (U+007F), C1 controls (U+0080–U+009F), and
/// the bidirectional controls that reorder what a terminal shows (U+200E,
/// U+200F, U+202A–U+202E, U+2066–U+2069: "Trojan Source").
pub fn is_unsafe(c: char) -> bool {
    matches!(
        c,
        '\0'..='\x08'
            | '\x0b'..='\x1f'
            | '\x7f'
            | '\u{80}'..='\u{9f}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// `text` with each character [`is_unsafe`] names written as a visible
/// escape: `\x1b` for C0 and DEL (two lowercase hex digits), `\u{9b}` for
/// C1. Tab and newline are kept. Borrowed when nothing needed replacing
/// (the common case costs one scan).
///
/// ```
/// use hookscope_core::printable::printable;
/// assert_eq!(printable("a\x1b]0;x\x07b"), "a\\x1b]0;x\\x07b");
/// assert_eq!(printable("\u{9b}2J\tok\n"), "\\u{9b}2J\tok\n");
/// assert_eq!(printable("plain"), "plain");
/// assert_eq!(printable("a\u{202e}b"), "a\\u{202e}b");
/// ```
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_unsafe(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_is_replaced_and_tab_newline_kept() {
        for c in (0u32..0xa0).filter_map(char::from_u32) {
            let s = c.to_string();
            let out = printable(&s);
            if c == '\t' || c == '\n' || (' '..='~').contains(&c) {
                assert_eq!(out, s, "{c:?}");
            } else {
                assert!(!out.chars().any(is_unsafe), "{c:?} → {out:?}");
                assert!(out.starts_with('\\'), "{c:?} → {out:?}");
            }
        }
        assert_eq!(printable("\r"), "\\x0d");
        assert_eq!(printable("\x7f"), "\\x7f");
        assert_eq!(printable("\u{85}"), "\\u{85}");
        assert_eq!(printable("é\u{a0}"), "é\u{a0}");
    }
}
