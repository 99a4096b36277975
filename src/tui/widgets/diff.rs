//! Draws the core's diff model ([`hookscope_core::transcript::diff`]) as coloured
//! lines; what the hunks are is decided there.

use hookscope_core::transcript::diff::{Applied, CallDiff, DiffHunk, DiffSource, LineTag};
use ratatui::text::{Line, Span};

use crate::tui::theme::Theme;

/// The hunks as styled lines: header, then `+`/`-`/` ` prefixed lines, each
/// text passed through `show` (the caller masks secrets there).
pub fn lines(
    hunks: &[DiffHunk],
    theme: &Theme,
    show: &mut dyn FnMut(&str) -> String,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for hunk in hunks {
        out.push(Line::from(Span::styled(hunk.header.clone(), theme.hunk())));
        for line in &hunk.lines {
            let text = show(&line.text);
            let span = match line.tag {
                LineTag::Added => Span::styled(format!("+{text}"), theme.added()),
                LineTag::Removed => Span::styled(format!("-{text}"), theme.removed()),
                LineTag::Context => Span::raw(format!(" {text}")),
            };
            out.push(Line::from(span));
        }
    }
    out
}

/// A call's whole diff: first `not applied: <reason>` (or `applied:
/// unknown — <reason>`) when it was not applied, the model's notes, then
/// per file a `add path` / `update a → b` line (Codex patches, or several
/// files) and its hunks; `(no change)` for an edit with no hunks.
pub fn call_lines(
    diff: &CallDiff,
    theme: &Theme,
    show: &mut dyn FnMut(&str) -> String,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    match &diff.applied {
        Applied::Yes => {}
        Applied::No(reason) => out.push(Line::from(Span::styled(
            format!("not applied: {}", show(reason)),
            theme.error(),
        ))),
        Applied::Unknown(reason) => out.push(Line::from(Span::styled(
            format!("applied: unknown — {reason}"),
            theme.dim(),
        ))),
    }
    for note in &diff.notes {
        out.push(Line::from(Span::styled(show(note), theme.dim())));
    }
    let named = diff.files.len() > 1
        || diff
            .files
            .iter()
            .any(|f| f.source == DiffSource::ApplyPatch);
    for file in &diff.files {
        if named {
            let mut head = format!("{} {}", file.kind.as_str(), show(&file.path));
            if let Some(to) = &file.move_to {
                head.push_str(&format!(" → {}", show(to)));
            }
            out.push(Line::from(Span::styled(head, theme.hunk())));
        }
        if file.hunks.is_empty() && !named {
            out.push(Line::from(Span::styled("(no change)", theme.dim())));
        }
        out.extend(lines(&file.hunks, theme, show));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookscope_core::transcript::diff::{ChangeKind, DiffLine, FileChange};

    #[test]
    fn draws_a_patch_and_its_status() {
        let theme = Theme { color: true };
        let diff = CallDiff {
            files: vec![FileChange {
                path: "hello.py".into(),
                move_to: None,
                kind: ChangeKind::Add,
                source: DiffSource::ApplyPatch,
                hunks: vec![DiffHunk {
                    header: "@@ -0,0 +1,1 @@".into(),
                    lines: vec![DiffLine {
                        tag: LineTag::Added,
                        text: "def hello():".into(),
                    }],
                }],
            }],
            applied: Applied::No("the call failed: exit 1".into()),
            notes: vec![],
        };
        let lines = call_lines(&diff, &theme, &mut |t| t.to_string());
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(
            text,
            [
                "not applied: the call failed: exit 1",
                "add hello.py",
                "@@ -0,0 +1,1 @@",
                "+def hello():"
            ]
        );
        assert_eq!(lines[0].spans[0].style, theme.error());
        assert_eq!(lines[3].spans[0].style, theme.added());
    }
}
