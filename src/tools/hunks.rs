//! Lowering edit-shaped calls to before/after hunks, and the file a call
//! targets (seed 000 `hunks_of` / `file_path_of`; hooks.md §2.2).

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

/// Lower an edit-shaped call to before/after hunks (seed 000; hooks.md §2.2):
/// * `EditCall` → one hunk `(old, new)`;
/// * `MultiEditCall` → one hunk per span, in application order;
/// * `WriteCall` → `("", content)`; `NotebookEditCall` → `("", new_source)`;
/// * everything else (including Codex `apply_patch`, whose patch text is not
///   lowered here) → empty.
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
        _ => Vec::new(),
    }
}

/// The file a call targets, when it targets one (seed 000 `file_path_of`):
/// `file_path` of Read/Write/Edit/MultiEdit, `notebook_path` of NotebookEdit.
///
/// Extra over the seed: an untyped Codex `apply_patch` call (input a patch
/// string, or an object `{"input": patch}` from older builds; formats.md
/// §2.3) yields the path of its first `*** Update File:`, `*** Add File:` or
/// `*** Delete File:` header. Everything else → `None`.
pub fn file_path_of(call: &ToolCall) -> Option<&str> {
    match call {
        ToolCall::Read(c) => Some(&c.file_path),
        ToolCall::Write(c) => Some(&c.file_path),
        ToolCall::Edit(c) => Some(&c.file_path),
        ToolCall::MultiEdit(c) => Some(&c.file_path),
        ToolCall::NotebookEdit(c) => Some(&c.notebook_path),
        ToolCall::Other(c) if c.name == "apply_patch" => {
            let patch = match c.raw.as_ref()? {
                Value::String(s) => s.as_str(),
                Value::Object(obj) => obj.get("input")?.as_str()?,
                _ => return None,
            };
            first_patch_path(patch)
        }
        _ => None,
    }
}

/// The path of the first file header in a Codex `*** Begin Patch` text.
fn first_patch_path(patch: &str) -> Option<&str> {
    const HEADERS: [&str; 3] = ["*** Update File:", "*** Add File:", "*** Delete File:"];
    patch.lines().find_map(|line| {
        HEADERS
            .iter()
            .find_map(|h| line.strip_prefix(h))
            .map(str::trim)
            .filter(|p| !p.is_empty())
    })
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
        assert!(hunks_of(&call).is_empty());
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
