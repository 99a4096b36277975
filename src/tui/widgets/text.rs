//! Text helpers the views share: headings and `name: value` fields,
//! multi-line text as lines, durations, wrapping to a width, search matches
//! and highlighting, and the scroll-position mark on a pane's border. Pure
//! functions over lines; no pane state.

use chrono::{DateTime, Utc};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;
use unicode_width::UnicodeWidthChar;

use crate::tui::theme::Theme;

/// A section heading: `── text ──`.
pub fn heading(text: &str, theme: &Theme) -> Line<'static> {
    Line::from(Span::styled(format!("── {text} ──"), theme.heading()))
}

/// A `name: value` line, the name dimmed.
pub fn field(name: &str, value: String, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name}: "), theme.dim()),
        Span::raw(value),
    ])
}

/// Multi-line text as lines, one style.
pub fn text_lines(text: &str, style: Style) -> Vec<Line<'static>> {
    text.lines()
        .map(|l| Line::from(Span::styled(l.to_string(), style)))
        .collect()
}

/// `1h 02m`, `3m 07s`, `4.2s`.
pub fn fmt_duration(start: DateTime<Utc>, end: DateTime<Utc>) -> String {
    let ms = (end - start).num_milliseconds().max(0);
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}h {:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{}.{}s", s, (ms % 1000) / 100)
    }
}

/// `text` cut to `width` display cells (unicode-width): whole when it fits,
/// else at the last space that leaves room for a closing `…` (mid-word only
/// when the first word alone is too wide).
pub fn fit(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    // The longest prefix that leaves a cell for the `…`.
    let mut used = 0;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        used += w;
        end = i + c.len_utf8();
    }
    let head = &text[..end];
    let cut = match head.rfind(' ') {
        // A separator left at the end (`a · b`, `a › b`) goes too.
        Some(space) if space > 0 => head[..space].trim_end_matches([' ', '·', '›']),
        _ => head,
    };
    format!("{cut}…")
}

/// Ends a call's row (`spans`, to be cut at `room` cells) with its summary:
/// ` {asked}`, or ` {asked} → {ran}` for a call a hook rewrote; nothing
/// when both are empty. When it does not fit in what the row leaves, the
/// asked side is cut first ([`summary_text`]).
pub fn push_summary(spans: &mut Vec<Span<'static>>, asked: &str, ran: Option<&str>, room: usize) {
    if asked.is_empty() && ran.is_none() {
        return;
    }
    let used: usize = spans.iter().map(Span::width).sum();
    spans.push(Span::raw(summary_text(
        asked,
        ran,
        room.saturating_sub(used),
    )));
}

/// A call's summary as a row ends with it, in `room` cells (what is left
/// of the row): ` {asked}`, or ` {asked} → {ran}` for a call a hook
/// rewrote. When that does not fit, the asked side is cut first ([`fit`],
/// down to 4 cells), so the input that ran stays whole where it can; what
/// still does not fit is cut at the pane's edge ([`cut_line`]).
fn summary_text(asked: &str, ran: Option<&str>, room: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    let Some(ran) = ran else {
        return format!(" {asked}");
    };
    let whole = format!(" {asked} → {ran}");
    if whole.width() <= room {
        return whole;
    }
    let keep = room.saturating_sub(" ".width() + " → ".width() + ran.width());
    format!(" {} → {ran}", fit(asked, keep.max(4)))
}

/// `line` cut to `width` display cells, its styles kept: whole when it
/// fits, else its first `width - 1` cells and a `…` in the style of the
/// span it cut (a row cut at the pane's edge says so: `npm test → npm
/// test` was a rewrite to `npm test -- --silent` cut silently).
pub fn cut_line(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let mut end = 0;
        let mut full = false;
        for (i, c) in span.content.char_indices() {
            let w = c.width().unwrap_or(0);
            if used + w > width.saturating_sub(1) {
                full = true;
                break;
            }
            used += w;
            end = i + c.len_utf8();
        }
        let style = span.style;
        if full {
            let head = span.content[..end].to_string();
            if width > 0 {
                spans.push(Span::styled(format!("{head}…"), style));
            }
            break;
        }
        spans.push(span);
    }
    Line {
        spans,
        style: line.style,
        alignment: line.alignment,
    }
}

/// The plain text of a line (for searching).
pub fn line_text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// Wraps lines to `width` cells, at the last space that fits when there is
/// one, else mid-word (tabs become four spaces, other control characters
/// are dropped), keeping span styles.
pub fn wrap(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    wrap_capped(lines, width, usize::MAX).0
}

/// [`wrap`], stopping after `max` wrapped lines: the lines and how many of
/// the given lines were not (or not wholly) wrapped. A line is read only
/// as far as `max` rows of `width` can show, so a 10 MB line at width 1
/// costs `max` rows, not ten million.
pub fn wrap_capped(
    lines: Vec<Line<'static>>,
    width: usize,
    max: usize,
) -> (Vec<Line<'static>>, usize) {
    let width = width.max(1);
    let total = lines.len();
    let mut out = Vec::with_capacity(lines.len().min(max));
    for (n, line) in lines.into_iter().enumerate() {
        let room = max.saturating_sub(out.len());
        if room == 0 {
            return (out, total - n);
        }
        // Cells past what `room` rows could show are never looked at.
        let budget = room.saturating_mul(width).saturating_add(1);
        let mut cells: Vec<(char, Style, usize)> = Vec::new();
        'spans: for span in &line.spans {
            for ch in span.content.chars() {
                if cells.len() >= budget {
                    break 'spans;
                }
                match ch {
                    '\t' => cells.extend(std::iter::repeat_n((' ', span.style, 1), 4)),
                    // A terminal control (ESC, CR, C1, a bidi override) is
                    // shown as its escape, `\x1b`, as the CLI prints it
                    // (docs/security.md "Terminal output"): visible, inert.
                    c if hookscope_core::printable::is_unsafe(c) => {
                        let mut buf = [0u8; 4];
                        let escaped = hookscope_core::printable::printable(c.encode_utf8(&mut buf))
                            .into_owned();
                        cells.extend(escaped.chars().map(|e| (e, span.style, 1)));
                    }
                    c if c.is_control() => {}
                    c => cells.push((c, span.style, c.width().unwrap_or(0))),
                }
            }
        }
        let mut start = 0;
        loop {
            if out.len() >= max {
                return (out, total - n);
            }
            let mut used = 0;
            let mut end = start;
            while end < cells.len() && (used + cells[end].2 <= width || end == start) {
                used += cells[end].2;
                end += 1;
            }
            if end < cells.len() {
                // Break after the last space of the segment, if any.
                if let Some(space) = (start + 1..end).rev().find(|&k| cells[k].0 == ' ') {
                    end = space + 1;
                }
            }
            out.push(cells_line(&cells[start..end]));
            if end >= cells.len() {
                break;
            }
            start = end;
        }
    }
    (out, 0)
}

fn cells_line(cells: &[(char, Style, usize)]) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut buf = String::new();
    let mut style = None;
    for &(c, st, _) in cells {
        if style.is_some_and(|s| s != st) {
            spans.push(Span::styled(
                std::mem::take(&mut buf),
                style.unwrap_or_default(),
            ));
        }
        style = Some(st);
        buf.push(c);
    }
    if !buf.is_empty() {
        spans.push(Span::styled(buf, style.unwrap_or_default()));
    }
    Line::from(spans)
}

/// Every case-insensitive occurrence of `needle` in `lines`, as (line
/// index, char offset in the line's text), in reading order; occurrences
/// in one line do not overlap (the next is looked for after the previous
/// one ends, as [`highlight_current`] marks them). None for an empty needle: what
/// Detail search steps through and counts.
pub fn search_matches(lines: &[Line<'_>], needle: &str) -> Vec<(usize, usize)> {
    let needle: Vec<char> = needle.chars().collect();
    if needle.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let hay: Vec<char> = line_text(line).chars().collect();
        out.extend(occurrences(&hay, &needle).into_iter().map(|at| (i, at)));
    }
    out
}

/// Char offsets of the non-overlapping case-insensitive occurrences of
/// `needle` in `hay`.
fn occurrences(hay: &[char], needle: &[char]) -> Vec<usize> {
    let mut out = Vec::new();
    if needle.is_empty() {
        return out;
    }
    let mut at = 0;
    while at + needle.len() <= hay.len() {
        if matches_at(hay, needle, at) {
            out.push(at);
            at += needle.len();
        } else {
            at += 1;
        }
    }
    out
}

/// A pane block with ` first-last/total ` on its bottom border when `len`
/// lines do not fit in `height` rows from line `scroll` on.
pub fn with_position(
    block: Block<'static>,
    scroll: usize,
    height: usize,
    len: usize,
) -> Block<'static> {
    if len <= height {
        return block;
    }
    block.title_bottom(
        Line::from(format!(
            " {}-{}/{} ",
            scroll + 1,
            (scroll + height).min(len),
            len
        ))
        .right_aligned(),
    )
}

/// Whether `hay` (chars) has `needle` (lowercase chars) at `at`,
/// case-insensitively.
fn matches_at(hay: &[char], needle: &[char], at: usize) -> bool {
    needle.iter().enumerate().all(|(k, n)| {
        hay.get(at + k)
            .is_some_and(|h| h.to_lowercase().eq(n.to_lowercase()))
    })
}

/// The line with every case-insensitive occurrence of `needle` restyled
/// with `hit` (other spans keep their style), the occurrence starting at
/// char offset `current` (if any; an offset from [`search_matches`]) with
/// `current_style` instead: the match `n`/`N` stepped to.
pub fn highlight_current(
    line: &Line<'static>,
    needle: &str,
    hit: Style,
    current: Option<usize>,
    current_style: Style,
) -> Line<'static> {
    let needle: Vec<char> = needle.chars().collect();
    let mut cells: Vec<(char, Style)> = Vec::new();
    for span in &line.spans {
        cells.extend(span.content.chars().map(|c| (c, span.style)));
    }
    let hay: Vec<char> = cells.iter().map(|(c, _)| *c).collect();
    let found = occurrences(&hay, &needle);
    if found.is_empty() {
        return line.clone();
    }
    for at in found {
        let style = if current == Some(at) {
            current_style
        } else {
            hit
        };
        for cell in cells.iter_mut().skip(at).take(needle.len()) {
            cell.1 = cell.1.patch(style);
        }
    }
    let cells: Vec<(char, Style, usize)> = cells
        .into_iter()
        .map(|(c, st)| (c, st, c.width().unwrap_or(0)))
        .collect();
    cells_line(&cells)
}

#[cfg(test)]
mod tests {

    /// A terminal control in shown text (an OSC that retitles the window,
    /// a right-to-left override) is drawn as its escape, never sent raw.
    #[test]
    fn wrap_shows_terminal_controls_as_escapes() {
        let lines = wrap(vec![Line::from("a\x1b]0;x\x07 b\u{202e}c\rd")], 80);
        assert_eq!(line_text(&lines[0]), "a\\x1b]0;x\\x07 b\\u{202e}c\\x0dd");
    }

    use super::*;

    #[test]
    fn highlights_every_match_case_insensitively() {
        let hit = Style::new().add_modifier(ratatui::style::Modifier::REVERSED);
        let line = Line::from(vec![Span::raw("rm -RF build/ "), Span::raw("and rm -rf x")]);
        let out = highlight_current(&line, "rm -rf", hit, None, hit);
        let marked: Vec<&str> = out
            .spans
            .iter()
            .filter(|s| s.style == hit)
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(marked, vec!["rm -RF", "rm -rf"]);
        assert_eq!(line_text(&out), "rm -RF build/ and rm -rf x");
        assert_eq!(highlight_current(&line, "absent", hit, None, hit), line);
    }

    #[test]
    fn search_matches_count_each_occurrence() {
        let lines = vec![
            Line::from("echo a; ECHO b"),
            Line::from("none"),
            Line::from(vec![Span::raw("ec"), Span::raw("ho")]),
        ];
        assert_eq!(search_matches(&lines, "echo"), vec![(0, 0), (0, 8), (2, 0)]);
        assert_eq!(search_matches(&lines, "aa"), vec![]);
        assert_eq!(
            search_matches(&[Line::from("aaaa")], "aa"),
            vec![(0, 0), (0, 2)]
        );
        assert_eq!(search_matches(&lines, ""), vec![]);
        let hit = Style::new().add_modifier(ratatui::style::Modifier::REVERSED);
        let cur = Style::new().add_modifier(ratatui::style::Modifier::UNDERLINED);
        let out = highlight_current(&lines[0], "echo", hit, Some(8), cur);
        let styled: Vec<(&str, Style)> = out
            .spans
            .iter()
            .map(|s| (s.content.as_ref(), s.style))
            .collect();
        assert_eq!(
            styled,
            vec![
                ("echo", hit),
                (" a; ", Style::default()),
                ("ECHO", cur),
                (" b", Style::default())
            ]
        );
    }

    #[test]
    fn a_rewrite_summary_cuts_the_asked_side_first() {
        let ran = Some("npm test -- --silent");
        // Room for it all: unchanged.
        assert_eq!(
            summary_text("npm test", ran, 40),
            " npm test → npm test -- --silent"
        );
        // Two cells short: the asked side gives them, at a word.
        assert_eq!(
            summary_text("npm test", ran, 30),
            " npm… → npm test -- --silent"
        );
        // No room at all: 4 cells of it stay, the rest is the edge's.
        assert_eq!(
            summary_text("npm test", ran, 10),
            " npm… → npm test -- --silent"
        );
        // Not a rewrite: the summary alone, whatever the room.
        assert_eq!(summary_text("npm test", None, 3), " npm test");
    }

    #[test]
    fn a_line_cut_at_the_edge_ends_in_an_ellipsis_in_its_span_style() {
        use ratatui::style::{Color, Style};
        let blue = Style::default().fg(Color::Blue);
        let line = || {
            Line::from(vec![
                Span::raw("bash  "),
                Span::styled("Bash ↻ npm test → npm test -- --silent", blue),
            ])
        };
        let cut = cut_line(line(), 24);
        assert_eq!(line_text(&cut), "bash  Bash ↻ npm test →…");
        assert_eq!(cut.width(), 24);
        assert_eq!(cut.spans[1].style, blue);
        // Cut inside the first span: the second goes.
        let cut = cut_line(line(), 4);
        assert_eq!(line_text(&cut), "bas…");
        assert_eq!(cut.spans.len(), 1);
        // A line that fits is whole; no room is no text.
        assert_eq!(line_text(&cut_line(line(), 44)), line_text(&line()));
        assert_eq!(line_text(&cut_line(line(), 0)), "");
    }

    #[test]
    fn fits_at_a_word_boundary_by_display_width() {
        assert_eq!(fit("turn 1 › Edit", 20), "turn 1 › Edit");
        assert_eq!(fit("Please exercise your tools", 18), "Please exercise…");
        // Wide characters count two cells: 漢字 is four.
        assert_eq!(fit("漢字 漢字 漢字", 11), "漢字 漢字…");
        assert_eq!(fit("abcdefghij", 5), "abcd…");
        assert_eq!(fit("Tab complete · Enter done", 16), "Tab complete…");
        assert_eq!(fit("abc", 0), "");
    }

    #[test]
    fn wraps_by_width() {
        let wrapped = wrap(vec![Line::from("abcdef"), Line::from("a\tb")], 4);
        let text: Vec<String> = wrapped.iter().map(line_text).collect();
        assert_eq!(text, vec!["abcd", "ef", "a   ", " b"]);
        let words = wrap(vec![Line::from("ab cd efghijk")], 5);
        let text: Vec<String> = words.iter().map(line_text).collect();
        assert_eq!(text, vec!["ab ", "cd ", "efghi", "jk"]);
    }
}
