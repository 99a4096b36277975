//! Lowering edit-shaped calls to before/after hunks, and the file a call
//! targets (docs/tool-calls.md#hunks-and-file-paths).

use serde::Serialize;
use serde_json::Value;

pub use super::calls::EditSpan;
use super::calls::ToolCall;

/// A before/after content pair lowered from an edit-shaped tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hunk {
    /// The content replaced; empty for pure additions such as Write.
    pub old: String,
    /// The content written.
    pub new: String,
}

/// Lower an edit-shaped call to before/after hunks (docs/tool-calls.md#hunks-and-file-paths):
/// * `EditCall` → one hunk `(old, new)`;
/// * `MultiEditCall` → one hunk per span, in application order;
/// * `WriteCall` → `("", content)`; `NotebookEditCall` → `("", new_source)`;
/// * a Codex `apply_patch` (`*** Begin Patch` → per-file add/update/delete
///   hunks; the patch found by
///   [`apply_patch_text`], so also an `apply_patch <<'EOF'` heredoc run
///   through `exec_command`/`shell`) → per file in patch order: `*** Add
///   File` → `("", added lines)`; each `@@` section of `*** Update File` →
///   `(context and - lines, context and + lines)`, every line ending in
///   `\n`; `*** Delete File` → none (the patch carries no pre-image, like
///   a span edit, whose payload has none);
/// * everything else → empty.
pub fn hunks_of(call: &ToolCall) -> Vec<Hunk> {
    match call {
        ToolCall::Edit(c) => vec![Hunk {
            old: c.old.clone(),
            new: c.new.clone(),
        }],
        ToolCall::MultiEdit(c) => c
            .edits
            .iter()
            .map(|span| Hunk {
                old: span.old.clone(),
                new: span.new.clone(),
            })
            .collect(),
        ToolCall::Write(c) => vec![Hunk {
            old: String::new(),
            new: c.content.clone(),
        }],
        ToolCall::NotebookEdit(c) => vec![Hunk {
            old: String::new(),
            new: c.new_source.clone(),
        }],
        call => match apply_patch_text(call) {
            Some(text) => parse_apply_patch(text)
                .files
                .iter()
                .flat_map(PatchFile::hunks)
                .collect(),
            None => Vec::new(),
        },
    }
}

/// The file a call targets, when it targets one:
/// `file_path` of Read/Write/Edit/MultiEdit, `notebook_path` of NotebookEdit.
///
/// Extra over cc_transcript: a Codex `apply_patch` — the custom tool call (input
/// a patch string, or an object `{"input": patch}` / `{"patch": patch}`;
/// docs/transcripts.md#response-items) or an `apply_patch` heredoc/argument in a shell command
/// (see [`apply_patch_text`]) — yields the path of its first `*** Update
/// File:`, `*** Add File:` or `*** Delete File:` header, so it agrees with
/// [`hunks_of`] and the diff a viewer shows. Everything else → `None`.
pub fn file_path_of(call: &ToolCall) -> Option<&str> {
    match call {
        ToolCall::Read(c) => Some(&c.file_path),
        ToolCall::Write(c) => Some(&c.file_path),
        ToolCall::Edit(c) => Some(&c.file_path),
        ToolCall::MultiEdit(c) => Some(&c.file_path),
        ToolCall::NotebookEdit(c) => Some(&c.notebook_path),
        call => first_patch_path(apply_patch_text(call)?),
    }
}

/// The `*** Begin Patch` … `*** End Patch` text a Codex `apply_patch`
/// applies (docs/transcripts.md#response-items), when `call` is one:
/// * a call named `apply_patch` whose input is the patch string, or an
///   object with the patch under `input` (older builds), `patch`, or
///   `command` (what Codex hands its hooks, openai/codex PR #20527);
/// * a shell call (`BashCall`: Bash, `exec_command`, `shell`, …) whose
///   command runs `apply_patch`/`applypatch` (wrappers such as `cd x &&`
///   allowed) with the patch in a heredoc (`apply_patch <<'EOF'`) or as its
///   argument — what Codex intercepts as a file change.
///
/// The block runs from `*** Begin Patch` to the first `*** End Patch` after
/// it, or to the end of the text when there is none. `None` when the text
/// holds no `*** Begin Patch`.
pub fn apply_patch_text(call: &ToolCall) -> Option<&str> {
    match call {
        ToolCall::Bash(bash) => patch_in_command(&bash.command),
        call if call.name() == "apply_patch" => {
            let text = match call.raw()? {
                Value::String(s) => s.as_str(),
                Value::Object(obj) => obj
                    .get("input")
                    .or_else(|| obj.get("patch"))
                    .or_else(|| obj.get("command"))?
                    .as_str()?,
                _ => return None,
            };
            patch_block(text)
        }
        _ => None,
    }
}

const BEGIN_PATCH: &str = "*** Begin Patch";
const END_PATCH: &str = "*** End Patch";

/// The patch block of `text` (see [`apply_patch_text`]).
fn patch_block(text: &str) -> Option<&str> {
    let start = text.find(BEGIN_PATCH)?;
    let rest = text.get(start..)?;
    let end = rest
        .find(END_PATCH)
        .map_or(rest.len(), |e| e + END_PATCH.len());
    rest.get(..end)
}

/// The patch a shell command feeds to `apply_patch`, if it runs one.
fn patch_in_command(command: &str) -> Option<&str> {
    if !command.contains(BEGIN_PATCH)
        || !(command.contains("apply_patch") || command.contains("applypatch"))
    {
        return None;
    }
    let line = crate::shell::parse_command_line(command);
    line.calls.iter().find_map(|call| {
        let (program, args) = call.unwrapped();
        let base = program.rsplit('/').next().unwrap_or(&program);
        if !matches!(base, "apply_patch" | "applypatch") {
            return None;
        }
        // A heredoc or the patch as an argument; when the line did not parse
        // whole (an unterminated heredoc, a body past the parser's byte cap)
        // the text after the `apply_patch` word is taken.
        let fed = call.redirects.iter().any(|r| r.op.starts_with("<<"))
            || args.first().is_some_and(|a| a.contains(BEGIN_PATCH))
            || !line.is_ok();
        if !fed {
            return None;
        }
        patch_block(command.get(call.span.0..)?)
    })
}

/// The path of the first file header in a Codex `*** Begin Patch` text.
fn first_patch_path(patch: &str) -> Option<&str> {
    patch.lines().find_map(|line| {
        PATCH_HEADERS
            .iter()
            .find_map(|(h, _)| line.trim_start().strip_prefix(h))
            .map(str::trim)
            .filter(|p| !p.is_empty())
    })
}

const PATCH_HEADERS: [(&str, PatchOp); 3] = [
    ("*** Add File:", PatchOp::Add),
    ("*** Update File:", PatchOp::Update),
    ("*** Delete File:", PatchOp::Delete),
];

/// What a Codex patch does to one file (docs/transcripts.md#response-items `apply_patch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PatchOp {
    /// `*** Add File: path` — a new file, its lines all `+`.
    Add,
    /// `*** Update File: path` (optionally `*** Move to: new`) — `@@` sections.
    Update,
    /// `*** Delete File: path` — no lines.
    Delete,
}

/// What one line of a diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineTag {
    /// Unchanged context (` ` prefix, or an empty line in a patch section).
    Context,
    /// Added (`+`).
    Added,
    /// Removed (`-`).
    Removed,
}

/// One `@@` section of a Codex patch (or the added lines of an Add File).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchChunk {
    /// The `@@` line as written (`@@`, `@@ def hello():`); `""` when the
    /// first section of an Update File has no `@@` line, or for Add File.
    pub header: String,
    /// The lines without their one-character prefix, in order.
    pub lines: Vec<(LineTag, String)>,
}

/// One file section of a Codex patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchFile {
    /// Add, Update or Delete.
    pub op: PatchOp,
    /// The path after the header, trimmed.
    pub path: String,
    /// `*** Move to: new` of an Update File.
    pub move_to: Option<String>,
    /// The sections; for Add File one chunk of added lines; none for Delete.
    pub chunks: Vec<PatchChunk>,
}

impl PatchFile {
    /// The file's before/after pairs (see [`hunks_of`]).
    pub fn hunks(&self) -> Vec<Hunk> {
        let side = |chunk: &PatchChunk, skip: LineTag| {
            chunk
                .lines
                .iter()
                .filter(|(tag, _)| *tag != skip)
                .map(|(_, text)| format!("{text}\n"))
                .collect::<String>()
        };
        match self.op {
            PatchOp::Delete => Vec::new(),
            PatchOp::Add => vec![Hunk {
                old: String::new(),
                new: self
                    .chunks
                    .iter()
                    .map(|c| side(c, LineTag::Removed))
                    .collect(),
            }],
            PatchOp::Update => self
                .chunks
                .iter()
                .map(|c| Hunk {
                    old: side(c, LineTag::Added),
                    new: side(c, LineTag::Removed),
                })
                .collect(),
        }
    }
}

/// A Codex patch parsed leniently: the files it touches and notes on
/// anything that did not fit the grammar.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ApplyPatch {
    /// File sections in patch order.
    pub files: Vec<PatchFile>,
    /// One line per problem, with the 1-based line in the patch text
    /// (the `*** Begin Patch` line of [`apply_patch_text`]'s block is 1):
    /// `line 7: "garbage" is not a patch line; skipped`, `no "*** End
    /// Patch": read to the end`, …
    pub notes: Vec<String>,
}

/// Parse a Codex `apply_patch` text (docs/transcripts.md#response-items; the grammar of
/// codex-rs `apply-patch`): `*** Begin Patch`, then per file `*** Add
/// File: p` + `+` lines, `*** Delete File: p`, or `*** Update File: p`
/// (+ `*** Move to: q`) + sections that each start with `@@` (and optional context)
/// (the first may omit it) holding ` `/`+`/`-` lines (an empty line is
/// empty context; `*** End of File` is skipped), then `*** End Patch`.
///
/// Never fails: lines that fit nowhere are skipped with a note, a missing
/// `*** End Patch` reads to the end, an empty `@@` section is noted; what
/// parsed is kept. Markers are matched on the trimmed line. Linear in the
/// text's length.
pub fn parse_apply_patch(text: &str) -> ApplyPatch {
    let mut out = ApplyPatch::default();
    let mut begun = false;
    let mut ended = false;
    // Line of the `@@` that opened the current chunk, to note empty ones.
    let mut chunk_line: Option<usize> = None;
    let note_empty = |out: &mut ApplyPatch, chunk_line: Option<usize>| {
        if let (Some(n), Some(file)) = (chunk_line, out.files.last())
            && file.chunks.last().is_some_and(|c| c.lines.is_empty())
        {
            out.notes
                .push(format!("line {n}: `@@` section with no lines"));
        }
    };
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let marker = line.trim();
        if !begun {
            if marker == BEGIN_PATCH {
                begun = true;
            } else if !marker.is_empty() {
                out.notes
                    .push(format!("line {n}: text before \"{BEGIN_PATCH}\"; skipped"));
            }
            continue;
        }
        if marker == END_PATCH {
            ended = true;
            break;
        }
        if let Some((op, path)) = PATCH_HEADERS
            .iter()
            .find_map(|(h, op)| marker.strip_prefix(h).map(|p| (*op, p.trim())))
        {
            note_empty(&mut out, chunk_line.take());
            out.files.push(PatchFile {
                op,
                path: path.to_string(),
                move_to: None,
                chunks: Vec::new(),
            });
            continue;
        }
        let Some(file) = out.files.last_mut() else {
            out.notes.push(format!(
                "line {n}: {} outside a file section; skipped",
                shown(line)
            ));
            continue;
        };
        if let Some(to) = marker.strip_prefix("*** Move to:") {
            if file.op == PatchOp::Update {
                file.move_to = Some(to.trim().to_string());
            } else {
                out.notes.push(format!(
                    "line {n}: `*** Move to` outside an Update File; skipped"
                ));
            }
            continue;
        }
        if marker == "*** End of File" {
            continue;
        }
        match file.op {
            PatchOp::Delete => out.notes.push(format!(
                "line {n}: {} in a Delete File section; skipped",
                shown(line)
            )),
            PatchOp::Add => match line.strip_prefix('+') {
                Some(added) => {
                    if file.chunks.is_empty() {
                        file.chunks.push(PatchChunk {
                            header: String::new(),
                            lines: Vec::new(),
                        });
                    }
                    if let Some(chunk) = file.chunks.last_mut() {
                        chunk.lines.push((LineTag::Added, added.to_string()));
                    }
                }
                None => out.notes.push(format!(
                    "line {n}: {} in an Add File section is not a `+` line; skipped",
                    shown(line)
                )),
            },
            PatchOp::Update => {
                if marker.starts_with("@@") {
                    let pending = chunk_line.replace(n);
                    if let Some(m) = pending
                        && file.chunks.last().is_some_and(|c| c.lines.is_empty())
                    {
                        out.notes
                            .push(format!("line {m}: `@@` section with no lines"));
                    }
                    file.chunks.push(PatchChunk {
                        header: marker.to_string(),
                        lines: Vec::new(),
                    });
                    continue;
                }
                let tagged = match line.chars().next() {
                    None => Some((LineTag::Context, "")),
                    Some(' ') => Some((LineTag::Context, line.get(1..).unwrap_or(""))),
                    Some('+') => Some((LineTag::Added, line.get(1..).unwrap_or(""))),
                    Some('-') => Some((LineTag::Removed, line.get(1..).unwrap_or(""))),
                    Some(_) => None,
                };
                match tagged {
                    Some((tag, body)) => {
                        if file.chunks.is_empty() {
                            file.chunks.push(PatchChunk {
                                header: String::new(),
                                lines: Vec::new(),
                            });
                        }
                        if let Some(chunk) = file.chunks.last_mut() {
                            chunk.lines.push((tag, body.to_string()));
                        }
                    }
                    None => out.notes.push(format!(
                        "line {n}: {} is not a patch line; skipped",
                        shown(line)
                    )),
                }
            }
        }
    }
    note_empty(&mut out, chunk_line);
    if !begun {
        out.notes.push(format!("no \"{BEGIN_PATCH}\" line"));
    } else if !ended {
        out.notes
            .push(format!("no \"{END_PATCH}\": read to the end of the text"));
    }
    for file in &out.files {
        if file.op == PatchOp::Update && file.chunks.is_empty() && file.move_to.is_none() {
            out.notes
                .push(format!("Update File {} has no changes", file.path));
        }
    }
    out
}

/// A patch line quoted for a note: at most 40 characters.
fn shown(line: &str) -> String {
    let mut out: String = line.chars().take(40).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    format!("{out:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{OnError, parse_tool_call};
    use serde_json::json;

    fn parse(name: &str, input: Value) -> ToolCall {
        parse_tool_call(name, Some(&input), OnError::Raise).unwrap()
    }

    fn hunk(old: &str, new: &str) -> Hunk {
        Hunk {
            old: old.into(),
            new: new.into(),
        }
    }

    #[test]
    fn edit_yields_one_hunk() {
        let call = parse(
            "Edit",
            json!({"file_path": "a.py", "old_string": "x", "new_string": "y"}),
        );
        assert_eq!(hunks_of(&call), vec![hunk("x", "y")]);
        assert_eq!(file_path_of(&call), Some("a.py"));
    }

    #[test]
    fn multiedit_yields_every_span_in_order() {
        let call = parse(
            "MultiEdit",
            json!({"file_path": "m.rs", "edits": [
                {"old_string": "a", "new_string": "b"},
                {"old_string": "c", "new_string": "d", "replace_all": true},
                {"old_string": "e", "new_string": ""}
            ]}),
        );
        assert_eq!(
            hunks_of(&call),
            vec![hunk("a", "b"), hunk("c", "d"), hunk("e", "")]
        );
        assert_eq!(file_path_of(&call), Some("m.rs"));
    }

    #[test]
    fn write_and_notebook_are_pure_additions() {
        let w = parse("Write", json!({"file_path": "w.txt", "content": "hello\n"}));
        assert_eq!(hunks_of(&w), vec![hunk("", "hello\n")]);
        assert_eq!(file_path_of(&w), Some("w.txt"));
        let c = parse("Create", json!({"file_path": "c.txt", "content": "c"}));
        assert_eq!(hunks_of(&c), vec![hunk("", "c")]);
        let nb = parse(
            "NotebookEdit",
            json!({"notebook_path": "n.ipynb", "new_source": "print(1)", "cell_id": "abc"}),
        );
        assert_eq!(hunks_of(&nb), vec![hunk("", "print(1)")]);
        assert_eq!(file_path_of(&nb), Some("n.ipynb"));
    }

    #[test]
    fn other_calls_have_no_hunks() {
        let r = parse("Read", json!({"file_path": "r.md", "offset": 10}));
        assert!(hunks_of(&r).is_empty());
        assert_eq!(file_path_of(&r), Some("r.md"));
        let b = parse("Bash", json!({"command": "ls"}));
        assert!(hunks_of(&b).is_empty());
        assert_eq!(file_path_of(&b), None);
        let degraded =
            parse_tool_call("Edit", Some(&json!({"file_path": "a"})), OnError::Other).unwrap();
        assert!(hunks_of(&degraded).is_empty());
        assert_eq!(file_path_of(&degraded), None);
    }

    #[test]
    fn apply_patch_path_extra() {
        let patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-old\n+new\n*** Add File: b.py\n*** End Patch";
        let call = parse("apply_patch", json!(patch));
        assert_eq!(call.type_name(), "OtherCall");
        // The Update File section, then the Add File with no lines.
        assert_eq!(hunks_of(&call), vec![hunk("old\n", "new\n"), hunk("", "")]);
        assert_eq!(file_path_of(&call), Some("src/a.py"));
        let older = parse(
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Add File: new.txt\n+x\n*** End Patch"}),
        );
        assert_eq!(file_path_of(&older), Some("new.txt"));
        assert_eq!(file_path_of(&parse("apply_patch", json!("garbage"))), None);
        assert_eq!(file_path_of(&parse("other", json!(patch))), None);
    }
}

#[cfg(test)]
mod patch_tests {
    use super::*;
    use crate::tools::{OnError, parse_tool_call};
    use serde_json::json;

    fn hunk(old: &str, new: &str) -> Hunk {
        Hunk {
            old: old.into(),
            new: new.into(),
        }
    }

    #[test]
    fn update_with_move_and_sections() {
        let patch = "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@ def f():\n x = 1\n-y = 2\n+y = 3\n@@\n-z\n\n*** End of File\n*** Delete File: gone.txt\n*** End Patch";
        let parsed = parse_apply_patch(patch);
        assert_eq!(parsed.notes, Vec::<String>::new());
        assert_eq!(parsed.files.len(), 2);
        let a = &parsed.files[0];
        assert_eq!((a.op, a.path.as_str()), (PatchOp::Update, "a.py"));
        assert_eq!(a.move_to.as_deref(), Some("b.py"));
        assert_eq!(a.chunks[0].header, "@@ def f():");
        assert_eq!(a.chunks[1].header, "@@");
        assert_eq!(
            a.chunks[1].lines,
            vec![
                (LineTag::Removed, "z".to_string()),
                (LineTag::Context, String::new())
            ]
        );
        assert_eq!(
            a.hunks(),
            vec![
                hunk("x = 1\ny = 2\n", "x = 1\ny = 3\n"),
                hunk("z\n\n", "\n")
            ]
        );
        assert_eq!(parsed.files[1].op, PatchOp::Delete);
        assert_eq!(parsed.files[1].hunks(), vec![]);
    }

    #[test]
    fn heredoc_in_a_shell_command() {
        let cmd = "cd /repo && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: hello.py\n+def hello():\n+    return 1\n*** End Patch\nEOF\n";
        let call = parse_tool_call("exec_command", Some(&json!({"cmd": cmd})), OnError::Raise)
            .expect("typed");
        assert_eq!(call.type_name(), "BashCall");
        assert_eq!(file_path_of(&call), Some("hello.py"));
        assert_eq!(
            hunks_of(&call),
            vec![hunk("", "def hello():\n    return 1\n")]
        );
        // The patch as an argument (Codex `shell` argv `["apply_patch", patch]`).
        let argv = json!({"command": ["apply_patch", "*** Begin Patch\n*** Delete File: x\n*** End Patch"]});
        let call = parse_tool_call("shell", Some(&argv), OnError::Raise).expect("typed");
        assert_eq!(file_path_of(&call), Some("x"));
        // Patch text that is only printed or saved is not applied.
        for cmd in [
            "cat > p.diff <<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF",
            "echo '*** Begin Patch' # apply_patch",
        ] {
            let call = parse_tool_call("Bash", Some(&json!({"command": cmd})), OnError::Raise)
                .expect("typed");
            assert_eq!(file_path_of(&call), None, "{cmd}");
            assert_eq!(hunks_of(&call), vec![], "{cmd}");
        }
    }

    #[test]
    fn malformed_patches_keep_what_parsed() {
        let big = "x".repeat(1 << 20);
        let patch = format!(
            "junk\n*** Begin Patch\nstray\n*** Update File: a\n@@\n@@ second\n+{big}\nnot a line\n*** Add File: b\nno plus"
        );
        let parsed = parse_apply_patch(&patch);
        assert_eq!(
            parsed.notes,
            vec![
                "line 1: text before \"*** Begin Patch\"; skipped".to_string(),
                "line 3: \"stray\" outside a file section; skipped".to_string(),
                "line 5: `@@` section with no lines".to_string(),
                "line 8: \"not a line\" is not a patch line; skipped".to_string(),
                "line 10: \"no plus\" in an Add File section is not a `+` line; skipped"
                    .to_string(),
                "no \"*** End Patch\": read to the end of the text".to_string(),
            ]
        );
        assert_eq!(parsed.files.len(), 2);
        assert_eq!(parsed.files[0].chunks.len(), 2);
        assert_eq!(parsed.files[0].chunks[1].lines[0].1.len(), 1 << 20);
        assert_eq!(parsed.files[1].chunks, vec![]);
        assert_eq!(
            parse_apply_patch("").notes,
            vec!["no \"*** Begin Patch\" line".to_string()]
        );
    }
}
