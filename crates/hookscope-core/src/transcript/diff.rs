//! What a tool call changed in files, as one model for every viewer (the
//! TUI's Detail pane, and anything else that shows diffs).
//!
//! For a [`ToolCallRecord`], [`call_diff`] gives its file changes — per file
//! the path, the hunks as unified-diff lines, and where they came from — and
//! whether the change was applied ([`Applied`]). The hunks come from, in
//! order of preference:
//!
//! 1. the result's `toolUseResult.structuredPatch` (Claude Code Edit,
//!    MultiEdit and Write of an existing file; docs/transcripts.md#structured-tool-results "hunk"
//!    `{oldStart, oldLines, newStart, newLines, lines}`), when non-empty;
//! 2. the call's own hunks ([`crate::tools::hunks_of`]: Edit, MultiEdit,
//!    Write, NotebookEdit), each diffed line by line with `similar`, three
//!    lines of context;
//! 3. a Codex `apply_patch`'s parsed sections ([`crate::tools::parse_apply_patch`]:
//!    the custom tool call, or a heredoc run through `exec_command`/`shell`).
//!
//! Limits: a line longer than [`MAX_LINE_BYTES`] is cut and a diff keeps at
//! most [`MAX_DIFF_LINES`] lines; each cut adds a note.

use serde::Serialize;
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use super::ToolCallRecord;
use crate::tools::{
    PatchOp, ToolCall, apply_patch_text, file_path_of, hunks_of, parse_apply_patch,
};

pub use crate::tools::LineTag;

/// Longest diff line kept, in bytes (8 KiB); longer lines are cut at a
/// character boundary and end in `…`.
pub const MAX_LINE_BYTES: usize = 8 * 1024;

/// Most diff lines (hunk lines, headers not counted) kept for one call.
pub const MAX_DIFF_LINES: usize = 20_000;

/// Where a [`FileChange`]'s hunks came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffSource {
    /// The result's `toolUseResult.structuredPatch` (what Claude Code applied).
    StructuredPatch,
    /// The call's input ([`crate::tools::hunks_of`]), diffed with `similar`;
    /// line numbers count from the edited snippet, not the file.
    CallHunks,
    /// A Codex `apply_patch` text, as written by the model.
    ApplyPatch,
}

/// What the call does to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// Edit, MultiEdit, NotebookEdit: replacements inside the file.
    Edit,
    /// Write: the whole file's content.
    Write,
    /// Codex `*** Add File`.
    Add,
    /// Codex `*** Update File`.
    Update,
    /// Codex `*** Delete File`.
    Delete,
}

impl ChangeKind {
    /// `edit`, `write`, `add`, `update`, `delete`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Edit => "edit",
            ChangeKind::Write => "write",
            ChangeKind::Add => "add",
            ChangeKind::Update => "update",
            ChangeKind::Delete => "delete",
        }
    }
}

/// One line of a hunk: its tag and its text without the `+`/`-`/` ` prefix
/// (and without a line ending).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffLine {
    /// Context, added or removed.
    pub tag: LineTag,
    /// The text.
    pub text: String,
}

/// One hunk: its header and lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffHunk {
    /// `@@ -a,b +c,d @@` for structured patches and computed diffs (and a
    /// Codex Add File, `@@ -0,0 +1,n @@`); a Codex section's `@@` line as
    /// written (`@@`, `@@ def f():`), `@@` when the patch omitted it.
    pub header: String,
    /// The lines in order.
    pub lines: Vec<DiffLine>,
}

/// The change to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileChange {
    /// The file as the call names it (`file_path`, `notebook_path`, or the
    /// patch header's path; relative paths stay relative).
    pub path: String,
    /// A Codex `*** Move to:` destination.
    pub move_to: Option<String>,
    /// What happens to the file.
    pub kind: ChangeKind,
    /// Where the hunks came from.
    pub source: DiffSource,
    /// The hunks; empty for a Delete or an edit that changed nothing.
    pub hunks: Vec<DiffHunk>,
}

impl FileChange {
    /// Number of `+` lines.
    pub fn added(&self) -> usize {
        self.count(LineTag::Added)
    }

    /// Number of `-` lines.
    pub fn removed(&self) -> usize {
        self.count(LineTag::Removed)
    }

    fn count(&self, tag: LineTag) -> usize {
        self.hunks
            .iter()
            .flat_map(|h| &h.lines)
            .filter(|l| l.tag == tag)
            .count()
    }
}

/// Whether a call's change reached the file, judged from its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "applied", content = "reason", rename_all = "lowercase")]
pub enum Applied {
    /// The result is not an error (and none of the reasons below).
    Yes,
    /// The call did not run or failed; the reason as text, e.g. `blocked by
    /// a PreToolUse hook: …`, `permission not granted: …`, `rejected by the
    /// user`, `interrupted`, `the call failed: …`.
    No(String),
    /// No result was recorded (interrupted, still running, or the file was
    /// cut), so it is not known.
    Unknown(String),
}

/// The file changes of one call, and whether they were applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallDiff {
    /// One entry per file, in the call's order.
    pub files: Vec<FileChange>,
    /// Whether the change was applied ([`applied_of`]).
    pub applied: Applied,
    /// Problems met while reading the change (a malformed patch, cut
    /// lines), one line each; empty when none.
    pub notes: Vec<String>,
}

/// The file changes of a file-editing call (see the module docs), or `None`
/// when the call edits no file (not Edit/MultiEdit/Write/NotebookEdit and
/// no Codex `apply_patch`).
pub fn call_diff(record: &ToolCallRecord) -> Option<CallDiff> {
    let mut notes = Vec::new();
    let files = match &record.call {
        ToolCall::Edit(_)
        | ToolCall::MultiEdit(_)
        | ToolCall::Write(_)
        | ToolCall::NotebookEdit(_) => {
            let kind = if matches!(record.call, ToolCall::Write(_)) {
                ChangeKind::Write
            } else {
                ChangeKind::Edit
            };
            let path = file_path_of(&record.call).unwrap_or_default().to_string();
            let structured = record
                .result
                .as_ref()
                .and_then(|r| r.tool_use_result.as_ref())
                .and_then(|t| t.get("structuredPatch"))
                .and_then(from_structured_patch);
            let (source, hunks) = match structured {
                Some(hunks) => (DiffSource::StructuredPatch, hunks),
                None => (
                    DiffSource::CallHunks,
                    hunks_of(&record.call)
                        .iter()
                        .flat_map(|h| from_texts(&h.old, &h.new))
                        .collect(),
                ),
            };
            vec![FileChange {
                path,
                move_to: None,
                kind,
                source,
                hunks,
            }]
        }
        call => {
            let patch = parse_apply_patch(apply_patch_text(call)?);
            notes.extend(patch.notes);
            patch
                .files
                .into_iter()
                .map(|file| {
                    let kind = match file.op {
                        PatchOp::Add => ChangeKind::Add,
                        PatchOp::Update => ChangeKind::Update,
                        PatchOp::Delete => ChangeKind::Delete,
                    };
                    let hunks = file
                        .chunks
                        .into_iter()
                        .map(|chunk| {
                            let header = if file.op == PatchOp::Add {
                                format!("@@ -0,0 +1,{} @@", chunk.lines.len())
                            } else if chunk.header.is_empty() {
                                "@@".to_string()
                            } else {
                                chunk.header
                            };
                            DiffHunk {
                                header,
                                lines: chunk
                                    .lines
                                    .into_iter()
                                    .map(|(tag, text)| DiffLine { tag, text })
                                    .collect(),
                            }
                        })
                        .collect();
                    FileChange {
                        path: file.path,
                        move_to: file.move_to,
                        kind,
                        source: DiffSource::ApplyPatch,
                        hunks,
                    }
                })
                .collect()
        }
    };
    let mut diff = CallDiff {
        files,
        applied: applied_of(record),
        notes,
    };
    cap(&mut diff);
    Some(diff)
}

/// Cut long lines and long diffs (see [`MAX_LINE_BYTES`], [`MAX_DIFF_LINES`]).
fn cap(diff: &mut CallDiff) {
    let mut long_lines = 0usize;
    let mut kept = 0usize;
    let mut dropped = 0usize;
    for file in &mut diff.files {
        let mut keep_hunks = file.hunks.len();
        for (i, hunk) in file.hunks.iter_mut().enumerate() {
            let room = MAX_DIFF_LINES.saturating_sub(kept);
            if room == 0 && !hunk.lines.is_empty() {
                keep_hunks = keep_hunks.min(i);
            }
            if hunk.lines.len() > room {
                dropped += hunk.lines.len() - room;
                hunk.lines.truncate(room);
            }
            kept += hunk.lines.len();
            for line in &mut hunk.lines {
                if line.text.len() > MAX_LINE_BYTES {
                    let mut end = MAX_LINE_BYTES;
                    while end > 0 && !line.text.is_char_boundary(end) {
                        end -= 1;
                    }
                    line.text.truncate(end);
                    line.text.push('…');
                    long_lines += 1;
                }
            }
        }
        file.hunks.truncate(keep_hunks);
    }
    if long_lines > 0 {
        diff.notes.push(format!(
            "{long_lines} line(s) longer than {MAX_LINE_BYTES} bytes cut"
        ));
    }
    if dropped > 0 {
        diff.notes.push(format!(
            "{dropped} diff line(s) after the first {MAX_DIFF_LINES} not shown"
        ));
    }
}

/// Whether a call's change was applied, from its result (Claude Code
/// 2.1.332 texts as recorded in tests/corpus/real-cc-2.1.332; docs/transcripts.md#user-lines-and-tool-results;
/// docs/hooks.md#what-the-transcript-records):
///
/// * no result → [`Applied::Unknown`] `no result recorded`;
/// * text starting `PreToolUse:<Tool> hook error: ` (a PreToolUse hook's
///   exit 2 — then `[<hook command>]: <stderr>` — or its JSON deny with the
///   `permissionDecisionReason`), or `Hook PreToolUse:<Tool> denied this
///   tool` (a deny without reason) → `blocked by a PreToolUse hook: <reason>`;
/// * `Claude requested permissions to …, but you haven't granted it yet.`
///   → `permission not granted: <text>`;
/// * `The user doesn't want to proceed with this tool use…` → `rejected by
///   the user`;
/// * `[Request interrupted…` → `interrupted`;
/// * any other error result → `the call failed: <first line>`
///   (`<tool_use_error>` tags removed);
/// * else [`Applied::Yes`].
///
/// For Codex `is_error` is a guess from the output's exit code
/// (transcript::codex), so a failed `apply_patch` counts as not applied only
/// as far as that guess goes.
pub fn applied_of(record: &ToolCallRecord) -> Applied {
    let Some(result) = &record.result else {
        return Applied::Unknown("no result recorded".to_string());
    };
    let text = result.text.trim();
    let text = text
        .strip_prefix("<tool_use_error>")
        .map(|t| t.strip_suffix("</tool_use_error>").unwrap_or(t).trim())
        .unwrap_or(text);
    let first_line = |t: &str| t.lines().next().unwrap_or("").trim().to_string();
    if let Some(rest) = text.strip_prefix("PreToolUse:")
        && let Some((_, reason)) = rest.split_once(" hook error: ")
    {
        // Exit 2 adds `[<hook command>]: ` before the stderr.
        let reason = match reason.strip_prefix('[').and_then(|r| r.split_once("]: ")) {
            Some((_, stderr)) => stderr,
            None => reason,
        };
        return Applied::No(format!(
            "blocked by a PreToolUse hook: {}",
            first_line(reason)
        ));
    }
    if text.starts_with("Hook PreToolUse:") && text.contains("denied this tool") {
        return Applied::No(format!(
            "blocked by a PreToolUse hook: {}",
            first_line(text)
        ));
    }
    if text.starts_with("Claude requested permissions to") {
        return Applied::No(format!("permission not granted: {}", first_line(text)));
    }
    if text.starts_with("The user doesn't want to proceed with this tool use") {
        return Applied::No("rejected by the user".to_string());
    }
    if text.starts_with("[Request interrupted") {
        return Applied::No("interrupted".to_string());
    }
    if result.is_error {
        let line = first_line(text);
        return Applied::No(if line.is_empty() {
            "the call failed".to_string()
        } else {
            format!("the call failed: {line}")
        });
    }
    Applied::Yes
}

/// Reads a `structuredPatch` array (docs/transcripts.md#structured-tool-results). `None` when it is
/// missing, not an array, or empty (a Write of a new file records `[]`).
/// Missing numbers read as 0; a line without a `+`/`-`/` ` prefix is
/// context as written; non-string lines are skipped.
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
                            let (tag, text) = match l.chars().next() {
                                Some('+') => (LineTag::Added, l.get(1..).unwrap_or("")),
                                Some('-') => (LineTag::Removed, l.get(1..).unwrap_or("")),
                                Some(' ') => (LineTag::Context, l.get(1..).unwrap_or("")),
                                _ => (LineTag::Context, l),
                            };
                            DiffLine {
                                tag,
                                text: text.to_string(),
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

/// A line diff of two texts with three lines of context (`similar`'s
/// unified diff); no hunks when they are equal.
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
                .map(|c| DiffLine {
                    tag: match c.tag() {
                        ChangeTag::Equal => LineTag::Context,
                        ChangeTag::Insert => LineTag::Added,
                        ChangeTag::Delete => LineTag::Removed,
                    },
                    text: c.value().trim_end_matches(['\n', '\r']).to_string(),
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computes_and_reads_hunks() {
        let hunks = from_texts("a\nb\nc\n", "a\nB\nc\n");
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].header, "@@ -1,3 +1,3 @@");
        let tags: Vec<(LineTag, &str)> = hunks[0]
            .lines
            .iter()
            .map(|l| (l.tag, l.text.as_str()))
            .collect();
        assert_eq!(
            tags,
            vec![
                (LineTag::Context, "a"),
                (LineTag::Removed, "b"),
                (LineTag::Added, "B"),
                (LineTag::Context, "c"),
            ]
        );
        let patch = serde_json::json!([{"oldStart":3,"oldLines":1,"newStart":3,"newLines":1,"lines":["-x","+y"]}]);
        let read = from_structured_patch(&patch).unwrap_or_default();
        assert_eq!(read[0].header, "@@ -3,1 +3,1 @@");
        assert_eq!(
            read[0].lines[1],
            DiffLine {
                tag: LineTag::Added,
                text: "y".to_string()
            }
        );
        assert_eq!(from_structured_patch(&serde_json::json!([])), None);
    }
}
