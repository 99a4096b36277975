//! Output truncation for records (docs/tool-calls.md#output-modes): `head`, `tail`, `smart`.
//!
//! Lengths are counted in chars (Unicode scalar values), like Python's
//! `len()` in the reference implementation. Text at or under the cap is
//! returned unchanged by every mode.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::params::OutputMode;

/// Output cap in chars (docs/tool-calls.md#output-modes).
pub const OUTPUT_CAP: usize = 2_000;

/// Input cap in chars (docs/tool-calls.md#output-modes): a record's `input` whose compact JSON
/// text is longer becomes that text cut with [`OutputMode::Head`].
pub const INPUT_CAP: usize = 4_000;

/// Marker appended (`head`) or prepended (`tail`) to cut text.
pub const TRUNCATED: &str = "…[truncated]";

/// Marker between the selected lines and the tail in `smart` mode.
pub const SMART_GAP: &str = "…[truncated]…";

/// Lines `smart` keeps at most.
pub const SMART_MAX_LINES: usize = 20;

static SMART_LINE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)error|fatal|exception|traceback|failed|panic|exit code|denied|not found").ok()
});

/// The mode used when none is given: `smart` when the call errored, else
/// `head` (docs/tool-calls.md#output-modes).
pub fn adaptive(explicit: Option<OutputMode>, is_error: bool) -> OutputMode {
    explicit.unwrap_or(if is_error {
        OutputMode::Smart
    } else {
        OutputMode::Head
    })
}

/// Cuts `text` to `cap` chars with `mode`:
/// - `head`: the first `cap` chars + [`TRUNCATED`];
/// - `tail`: [`TRUNCATED`] + the last `cap` chars;
/// - `smart`: the lines matching
///   `error|fatal|exception|traceback|failed|panic|exit code|denied|not found`
///   (case-insensitive), deduplicated, first [`SMART_MAX_LINES`], joined by
///   `\n`; then `\n` + [`SMART_GAP`] + `\n`; then the last `cap / 2` chars.
///   With no matching line (or no room left for one) it is [`SMART_GAP`] +
///   `\n` + the tail. The whole is
///   at most `2 × cap` chars: the line block is cut (head-first) to fit, the
///   tail never is.
///
/// Text of at most `cap` chars is returned unchanged.
pub fn truncate(text: &str, mode: OutputMode, cap: usize) -> String {
    let len = text.chars().count();
    if len <= cap {
        return text.to_string();
    }
    match mode {
        OutputMode::Head => format!("{}{TRUNCATED}", first_chars(text, cap)),
        OutputMode::Tail => format!("{TRUNCATED}{}", last_chars(text, len, cap)),
        OutputMode::Smart => smart(text, len, cap),
    }
}

fn smart(text: &str, len: usize, cap: usize) -> String {
    let tail = last_chars(text, len, cap / 2);
    let mut seen = HashSet::new();
    let lines: Vec<&str> = match SMART_LINE.as_ref() {
        Some(re) => text
            .lines()
            .filter(|l| re.is_match(l))
            .filter(|l| seen.insert(*l))
            .take(SMART_MAX_LINES)
            .collect(),
        None => Vec::new(),
    };
    let block = lines.join("\n");
    let fixed = 2 + SMART_GAP.chars().count() + tail.chars().count();
    let room = (2 * cap).saturating_sub(fixed);
    let block = first_chars(&block, room);
    if block.is_empty() {
        return format!("{SMART_GAP}\n{tail}");
    }
    format!("{block}\n{SMART_GAP}\n{tail}")
}

/// The first `n` chars of `text`.
fn first_chars(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// The last `n` chars of `text`, which has `len` chars.
fn last_chars(text: &str, len: usize, n: usize) -> &str {
    if n >= len {
        return text;
    }
    match text.char_indices().nth(len - n) {
        Some((i, _)) => &text[i..],
        None => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_cap_is_unchanged() {
        for mode in [OutputMode::Head, OutputMode::Tail, OutputMode::Smart] {
            assert_eq!(truncate("abcde", mode, 5), "abcde");
            assert_eq!(truncate("", mode, 0), "");
        }
    }

    #[test]
    fn head_and_tail() {
        assert_eq!(truncate("abcdefgh", OutputMode::Head, 3), "abc…[truncated]");
        assert_eq!(truncate("abcdefgh", OutputMode::Tail, 3), "…[truncated]fgh");
        // chars, not bytes
        assert_eq!(truncate("ééééé", OutputMode::Head, 2), "éé…[truncated]");
        assert_eq!(truncate("ééééx", OutputMode::Tail, 2), "…[truncated]éx");
    }

    #[test]
    fn head_at_real_cap() {
        let text = "x".repeat(OUTPUT_CAP + 1);
        let cut = truncate(&text, OutputMode::Head, OUTPUT_CAP);
        assert_eq!(cut, format!("{}…[truncated]", "x".repeat(OUTPUT_CAP)));
        let exact = "y".repeat(OUTPUT_CAP);
        assert_eq!(truncate(&exact, OutputMode::Head, OUTPUT_CAP), exact);
    }

    #[test]
    fn smart_keeps_error_lines_then_tail() {
        let text =
            "ok 1\nError: boom\nok 2\nerror: boom\nError: boom\nPermission DENIED\nok 3\nlast line";
        // cap 40 → tail = last 20 chars; room for lines = 80 − (2 + 13 + 20) = 45
        assert_eq!(
            truncate(text, OutputMode::Smart, 40),
            "Error: boom\nerror: boom\nPermission DENIED\n…[truncated]…\nENIED\nok 3\nlast line"
        );
        // cap 10 → tail = last 5 chars; 2 × 10 − (2 + 13 + 5) = 0 chars of lines left
        assert_eq!(
            truncate(text, OutputMode::Smart, 10),
            "…[truncated]…\n line"
        );
    }

    #[test]
    fn smart_without_matches() {
        assert_eq!(
            truncate("aaaa\nbbbb\ncccc", OutputMode::Smart, 8),
            "…[truncated]…\ncccc"
        );
    }

    #[test]
    fn smart_at_most_twenty_lines() {
        let text: String = (0..30).map(|i| format!("failed {i:02}\n")).collect();
        let cut = truncate(&text, OutputMode::Smart, 1000);
        // 30 lines × 10 chars = 300 ≤ 1000: unchanged.
        assert_eq!(cut, text);
        let cut = truncate(&text, OutputMode::Smart, 200);
        let expected_lines: Vec<String> = (0..20).map(|i| format!("failed {i:02}")).collect();
        let tail = &text[text.len() - 100..];
        assert_eq!(
            cut,
            format!("{}\n…[truncated]…\n{tail}", expected_lines.join("\n"))
        );
        assert!(cut.chars().count() <= 400);
    }

    #[test]
    fn smart_hard_limit() {
        let line = format!("fatal {}", "z".repeat(50));
        let text = format!("{line}\n{}", "q".repeat(100));
        // cap 20: tail 10, fixed = 2 + 13 + 10 = 25, room = 40 - 25 = 15
        let cut = truncate(&text, OutputMode::Smart, 20);
        assert_eq!(
            cut,
            format!("fatal zzzzzzzzz\n…[truncated]…\n{}", "q".repeat(10))
        );
        assert_eq!(cut.chars().count(), 40);
    }

    #[test]
    fn adaptive_default() {
        assert_eq!(adaptive(None, true), OutputMode::Smart);
        assert_eq!(adaptive(None, false), OutputMode::Head);
        assert_eq!(adaptive(Some(OutputMode::Tail), true), OutputMode::Tail);
    }
}
