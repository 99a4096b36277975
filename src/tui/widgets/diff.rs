//! Unified diffs as coloured lines: from Claude Code's `structuredPatch`
//! (formats.md §1.6) when present, else computed with `similar` from the
//! old/new texts of a call.

use ratatui::text::{Line, Span};
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use crate::tui::theme::Theme;

/// What a diff line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    /// Unchanged context.
    Context,
    /// Added.
    Added,
    /// Removed.
    Removed,
}

/// One hunk: its `@@ … @@` header and its lines (without the +/-/space).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffHunk {
    /// `@@ -a,b +c,d @@`.
    pub header: String,
    /// Lines in order.
    pub lines: Vec<(Tag, String)>,
}

/// Reads a `structuredPatch` array (`{oldStart, oldLines, newStart,
/// newLines, lines: [" ctx", "-old", "+new"]}`). `None` when it is missing,
/// not an array, or empty (Write of a new file records `[]`).
pub fn from_structured_patch(patch: &Value) -> Option<Vec<DiffHunk>> {
    let hunks = patch.as_array().filter(|a| !a.is_empty())?;
    let num = |h: &Value, k: &str| h.get(k).and_then(Value::as_u64).unwrap_or(0);
    let out = hunks
        .iter()
        .map(|h| {
            let header = format!(
                "@@ -{},{} +{},{} @@",
                num(h, "oldStart"),
                num(h, "oldLines"),
                num(h, "newStart"),
                num(h, "newLines")
            );
            let lines = h
                .get("lines")
                .and_then(Value::as_array)
                .map(|ls| {
                    ls.iter()
                        .filter_map(Value::as_str)
                        .map(|l| {
                            let mut chars = l.chars();
                            match chars.next() {
                                Some('+') => (Tag::Added, chars.as_str().to_string()),
                                Some('-') => (Tag::Removed, chars.as_str().to_string()),
                                Some(' ') => (Tag::Context, chars.as_str().to_string()),
                                _ => (Tag::Context, l.to_string()),
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            DiffHunk { header, lines }
        })
        .collect();
    Some(out)
}

/// A line diff of two texts, three lines of context.
pub fn from_texts(old: &str, new: &str) -> Vec<DiffHunk> {
    let diff = TextDiff::from_lines(old, new);
    let mut unified = diff.unified_diff();
    unified.context_radius(3);
    unified
        .iter_hunks()
        .map(|hunk| DiffHunk {
            header: hunk.header().to_string(),
            lines: hunk
                .iter_changes()
                .map(|c| {
                    let tag = match c.tag() {
                        ChangeTag::Equal => Tag::Context,
                        ChangeTag::Insert => Tag::Added,
                        ChangeTag::Delete => Tag::Removed,
                    };
                    let text = c.value().trim_end_matches(['\n', '\r']).to_string();
                    (tag, text)
                })
                .collect(),
        })
        .collect()
}

/// The hunks as styled lines: header, then `+`/`-`/` ` prefixed lines.
pub fn lines(hunks: &[DiffHunk], theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for hunk in hunks {
        out.push(Line::from(Span::styled(hunk.header.clone(), theme.hunk())));
        for (tag, text) in &hunk.lines {
            let line = match tag {
                Tag::Added => Span::styled(format!("+{text}"), theme.added()),
                Tag::Removed => Span::styled(format!("-{text}"), theme.removed()),
                Tag::Context => Span::raw(format!(" {text}")),
            };
            out.push(Line::from(line));
        }
    }
    out
}

/// The `*** Begin Patch` … `*** End Patch` block of a Codex `apply_patch`
/// text (formats.md §2.3), wherever it sits in `text` (alone, or in a
/// `apply_patch <<'EOF'` heredoc run through `exec_command`/`shell`). An
/// unterminated block runs to the end of the text.
pub fn codex_patch(text: &str) -> Option<&str> {
    let start = text.find("*** Begin Patch")?;
    let rest = text.get(start..)?;
    let end = rest
        .find("*** End Patch")
        .map_or(rest.len(), |e| e + "*** End Patch".len());
    rest.get(..end)
}

/// A Codex patch as styled lines: `***` file headers and `@@` markers as
/// hunk headers, `+`/`-` lines added/removed, others as context.
pub fn patch_lines(patch: &str, theme: &Theme) -> Vec<Line<'static>> {
    patch
        .lines()
        .map(|l| {
            let style = if l.starts_with("***") || l.starts_with("@@") {
                theme.hunk()
            } else if l.starts_with('+') {
                theme.added()
            } else if l.starts_with('-') {
                theme.removed()
            } else {
                ratatui::style::Style::default()
            };
            Line::from(Span::styled(l.to_string(), style))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_styles_a_codex_patch() {
        let cmd = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: hello.py\n+def hello():\n*** End Patch\nEOF";
        let patch = codex_patch(cmd).expect("a patch");
        assert!(patch.starts_with("*** Begin Patch") && patch.ends_with("*** End Patch"));
        let theme = Theme { color: true };
        let lines = patch_lines(patch, &theme);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[2].spans[0].style, theme.added());
        assert_eq!(lines[1].spans[0].style, theme.hunk());
        assert_eq!(codex_patch("ls -la"), None);
        assert_eq!(
            codex_patch("*** Begin Patch\n+x"),
            Some("*** Begin Patch\n+x")
        );
    }

    #[test]
    fn computes_and_reads_hunks() {
        let hunks = from_texts("a\nb\nc\n", "a\nB\nc\n");
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].header, "@@ -1,3 +1,3 @@");
        assert_eq!(
            hunks[0].lines,
            vec![
                (Tag::Context, "a".to_string()),
                (Tag::Removed, "b".to_string()),
                (Tag::Added, "B".to_string()),
                (Tag::Context, "c".to_string()),
            ]
        );
        let patch = serde_json::json!([{"oldStart":3,"oldLines":1,"newStart":3,"newLines":1,"lines":["-x","+y"]}]);
        let read = from_structured_patch(&patch).unwrap_or_default();
        assert_eq!(read[0].header, "@@ -3,1 +3,1 @@");
        assert_eq!(read[0].lines[1], (Tag::Added, "y".to_string()));
        assert_eq!(from_structured_patch(&serde_json::json!([])), None);
    }
}
