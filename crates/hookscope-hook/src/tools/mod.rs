//! Typed tool calls: parsing a tool's name and raw input into a
//! [`ToolCall`], the cross-language digest, name aliases and matching,
//! MCP helpers, edit hunks and coarse classification.
//!
//! Follows the cc_transcript tools API (docs/tool-calls.md#typed-tool-calls) and
//! docs/tool-calls.md#the-digest (digest), docs/tool-calls.md#names-and-aliases (aliases, `mcp_access`),
//! docs/tool-calls.md#tool-kind-and-resolved-name (`tool_kind` / `tool_resolved`); input schemas from docs/tool-calls.md#input-schemas
//! (Claude Code) and docs/transcripts.md#response-items (Codex).
//!
//! * [`calls`] — the typed structs and the [`ToolCall`] enum;
//! * [`names`] — [`TOOL_ALIASES`], [`expand_tool_names`], [`matches_names`],
//!   [`tool_name_matches`], [`mcp_parts`], [`mcp_access`];
//! * [`digest`] — RFC 8785 [`canonical_json`] and [`tool_digest`];
//! * [`hunks`] — [`Hunk`], [`hunks_of`], [`file_path_of`], and Codex patches:
//!   [`apply_patch_text`], [`parse_apply_patch`];
//! * [`kind`] — [`ToolKind`], [`tool_kind`], [`tool_resolved`].

pub mod calls;
pub mod describe;
pub mod digest;
pub mod hunks;
pub mod kind;
pub mod names;
pub mod raw_json;

use serde_json::Value;

pub use calls::{
    BashCall, EditCall, EditSpan, ExitPlanModeCall, FallbackCall, GlobCall, GrepCall,
    MultiEditCall, NotebookEditCall, OtherCall, ReadCall, SkillCall, TaskCall, TaskCreateCall,
    TaskUpdateCall, ToolCall, WorkflowCall, WriteCall, argv_to_command,
};
pub use describe::{describe, describe_with_digest};
pub use digest::{
    DigestError, MAX_SAFE_INTEGER, canonical_json, canonical_json_text, tool_digest,
    tool_digest_text,
};
pub use hunks::{
    ApplyPatch, Hunk, LineTag, PatchChunk, PatchFile, PatchOp, apply_patch_text, file_path_of,
    hunks_of, parse_apply_patch,
};
pub use kind::{ToolKind, tool_kind, tool_resolved};
pub use names::{
    MCP_BEHAVES_LIKE, MCP_READ_VERBS, TOOL_ALIASES, canonical_of, expand_tool_names, matches_names,
    mcp_access, mcp_parts, tool_name_matches,
};

/// What [`parse_tool_call`] does with a known tool whose input is malformed
/// (docs/tool-calls.md#strict-and-lenient-parsing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnError {
    /// Strict (default): return the [`ToolInputError`].
    #[default]
    Raise,
    /// Lenient, for wild-data boundaries (hook runtime, transcript lift):
    /// degrade to an [`OtherCall`] over the verbatim input, with the strict
    /// error message in `error`.
    Other,
}

/// A known tool's input did not match its expected shape
/// (docs/tool-calls.md#strict-and-lenient-parsing).
///
/// Displays as `<tool>: field "<field>" <problem>` (e.g.
/// `Edit: field "old_string" is missing`, `… is null`,
/// `… must be a string, got number`) or, for whole-input problems,
/// `<tool>: <problem>` (`Bash: input must be a JSON object, got string`).
/// Nested fields are spelled `edits[1].new_string` / `command[0]`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{tool}: {}{problem}", field_prefix(.field))]
pub struct ToolInputError {
    /// The tool name as invoked.
    pub tool: String,
    /// The JSON field at fault (input spelling), `None` for the whole input.
    pub field: Option<String>,
    /// What is wrong: `is missing`, `is null`, `must be a string, got number`, …
    pub problem: String,
}

fn field_prefix(field: &Option<String>) -> String {
    field
        .as_ref()
        .map(|f| format!("field \"{f}\" "))
        .unwrap_or_default()
}

/// Parse a tool's name and raw input into the typed hierarchy
/// (docs/tool-calls.md#typed-tool-calls).
///
/// * `name` — the tool name exactly as invoked; it selects the typed model
///   (exact, case-sensitive: `Bash`/`Execute`/`shell`/`shell_command`/
///   `exec_command`/`local_shell_call` → [`BashCall`], `Read`, `Write`/`Create`,
///   `Edit`, `MultiEdit`, `NotebookEdit`, `Glob`, `Grep`,
///   `ExitPlanMode`/`ExitSpecMode`, `Skill`, `Agent`/`Task`, `TaskCreate`,
///   `TaskUpdate`, `Workflow`). Every other name (MCP tools, Codex
///   `apply_patch`/`update_plan`/`write_stdin`, unknown tools) becomes an
///   [`OtherCall`] with `error: None` in both modes, whatever the input.
/// * `input` — the decoded input; `None` when absent. It is kept verbatim
///   as `raw` on every variant (the digest substrate).
/// * `on_error` — [`OnError::Raise`] returns `Err` for malformed input to a
///   typed tool; [`OnError::Other`] returns `Ok(OtherCall)` over the same
///   raw input with `error: Some(message)`.
///
/// Malformed means: a required field missing, `null` or of the wrong JSON
/// type, or a non-object input (`input must be a JSON object, got …`).
/// Absent input (`None`) is validated like an empty object, so it fails on
/// the first required field (`Edit: field "file_path" is missing`) — and a
/// tool without required fields (`Workflow`) decodes with all fields `None`.
/// A **string** input to a Codex shell-style name (`shell`, `exec_command`,
/// …) is a Codex verbatim input and becomes an untyped `OtherCall` with
/// `error: None`. Optional fields of the wrong type are ignored (`None`).
///
/// ```
/// use hookscope_hook::tools::{OnError, ToolCall, parse_tool_call};
/// let input = serde_json::json!({"file_path": "a.py", "old_string": "x", "new_string": "y"});
/// let call = parse_tool_call("Edit", Some(&input), OnError::Raise).unwrap();
/// let ToolCall::Edit(edit) = call else { panic!() };
/// assert_eq!(edit.new, "y");
/// ```
///
/// # Errors
/// [`ToolInputError`] under [`OnError::Raise`] only.
pub fn parse_tool_call(
    name: &str,
    input: Option<&Value>,
    on_error: OnError,
) -> Result<ToolCall, ToolInputError> {
    match calls::decode_strict(name, input) {
        Ok(call) => Ok(call),
        Err(err) => match on_error {
            OnError::Raise => Err(err),
            OnError::Other => Ok(ToolCall::Other(OtherCall {
                name: name.to_string(),
                raw: input.cloned(),
                error: Some(err.to_string()),
            })),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict(name: &str, input: Value) -> Result<ToolCall, ToolInputError> {
        parse_tool_call(name, Some(&input), OnError::Raise)
    }

    fn lenient(name: &str, input: Value) -> ToolCall {
        match parse_tool_call(name, Some(&input), OnError::Other) {
            Ok(call) => call,
            Err(e) => panic!("lenient parse failed: {e}"),
        }
    }

    fn err_msg(name: &str, input: Value) -> String {
        match strict(name, input) {
            Ok(call) => panic!("expected error, got {call:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn seed_edit_example() {
        let call = strict(
            "Edit",
            json!({"file_path": "a.py", "old_string": "x", "new_string": "y"}),
        )
        .unwrap();
        let ToolCall::Edit(edit) = &call else {
            panic!("not an EditCall: {call:?}")
        };
        assert_eq!(edit.new, "y");
        assert_eq!(edit.old, "x");
        assert_eq!(edit.file_path, "a.py");
        assert!(!edit.replace_all);
        assert_eq!(call.type_name(), "EditCall");
        assert_eq!(call.name(), "Edit");
        assert_eq!(call.error(), None);
        assert_eq!(
            call.raw(),
            Some(&json!({"file_path": "a.py", "old_string": "x", "new_string": "y"}))
        );
    }

    #[test]
    fn default_is_raise() {
        assert_eq!(OnError::default(), OnError::Raise);
    }

    #[test]
    fn strict_missing_null_wrong_type() {
        assert_eq!(
            err_msg("Edit", json!({"file_path": "a.py", "new_string": "y"})),
            "Edit: field \"old_string\" is missing"
        );
        assert_eq!(
            err_msg(
                "Edit",
                json!({"file_path": "a.py", "old_string": null, "new_string": "y"})
            ),
            "Edit: field \"old_string\" is null"
        );
        assert_eq!(
            err_msg(
                "Edit",
                json!({"file_path": "a.py", "old_string": 3, "new_string": "y"})
            ),
            "Edit: field \"old_string\" must be a string, got number"
        );
        let e = strict("Read", json!({"file_path": ["a"]})).unwrap_err();
        assert_eq!(
            e,
            ToolInputError {
                tool: "Read".into(),
                field: Some("file_path".into()),
                problem: "must be a string, got array".into(),
            }
        );
    }

    #[test]
    fn lenient_degrades_with_error_and_verbatim_raw() {
        let input = json!({"file_path": "a.py", "old_string": null, "new_string": "y"});
        let call = lenient("Edit", input.clone());
        assert_eq!(call.type_name(), "OtherCall");
        assert_eq!(call.name(), "Edit");
        assert_eq!(call.error(), Some("Edit: field \"old_string\" is null"));
        assert_eq!(call.raw(), Some(&input));
        assert_eq!(
            call.digest().unwrap(),
            tool_digest("Edit", Some(&input)).unwrap()
        );
        // Well-formed input under lenient mode still types.
        let ok = lenient("Bash", json!({"command": "ls"}));
        assert_eq!(ok.type_name(), "BashCall");
        assert_eq!(ok.error(), None);
    }

    #[test]
    fn non_object_input_to_builtin() {
        assert_eq!(
            err_msg("Bash", json!("ls -la")),
            "Bash: input must be a JSON object, got string"
        );
        assert_eq!(
            err_msg("Edit", json!([1, 2])),
            "Edit: input must be a JSON object, got array"
        );
        assert_eq!(
            err_msg("Read", Value::Null),
            "Read: input must be a JSON object, got null"
        );
        let call = lenient("Bash", json!("ls -la"));
        assert_eq!(call.type_name(), "OtherCall");
        assert_eq!(
            call.error(),
            Some("Bash: input must be a JSON object, got string")
        );
        assert_eq!(call.raw(), Some(&json!("ls -la")));
        assert_eq!(
            call.digest().unwrap(),
            tool_digest("Bash", Some(&json!("ls -la"))).unwrap()
        );
        assert_ne!(
            call.digest().unwrap(),
            tool_digest("Bash", Some(&json!({}))).unwrap()
        );
    }

    #[test]
    fn absent_input_to_builtin() {
        let e = parse_tool_call("Edit", None, OnError::Raise).unwrap_err();
        assert_eq!(e.to_string(), "Edit: field \"file_path\" is missing");
        let call = parse_tool_call("Edit", None, OnError::Other).unwrap();
        assert_eq!(call.type_name(), "OtherCall");
        assert_eq!(call.raw(), None);
        assert_eq!(call.error(), Some("Edit: field \"file_path\" is missing"));
        assert_eq!(call.digest().unwrap(), tool_digest("Edit", None).unwrap());
        // No required fields: absent input still types.
        let wf = parse_tool_call("Workflow", None, OnError::Raise).unwrap();
        assert_eq!(wf.type_name(), "WorkflowCall");
        assert_eq!(wf.raw(), None);
    }

    #[test]
    fn unknown_tools_are_other_without_error() {
        for mode in [OnError::Raise, OnError::Other] {
            let s = parse_tool_call("update_plan", Some(&json!("{\"plan\":[]}")), mode).unwrap();
            assert_eq!(s.type_name(), "OtherCall");
            assert_eq!(s.error(), None);
            assert_eq!(s.raw(), Some(&json!("{\"plan\":[]}")));
            assert_eq!(
                s.digest().unwrap(),
                tool_digest("update_plan", Some(&json!("{\"plan\":[]}"))).unwrap()
            );
            let o =
                parse_tool_call("mcp__github__get_issue", Some(&json!({"n": 1})), mode).unwrap();
            assert_eq!(o.type_name(), "OtherCall");
            assert_eq!(o.error(), None);
            let n = parse_tool_call("Mystery", None, mode).unwrap();
            assert_eq!(n.type_name(), "OtherCall");
            assert_eq!(n.raw(), None);
            let num = parse_tool_call("Mystery", Some(&json!(5)), mode).unwrap();
            assert_eq!(num.error(), None);
        }
        // Names are case-sensitive: "bash" is not Claude's Bash.
        assert_eq!(
            strict("bash", json!({"command": 1})).unwrap().type_name(),
            "OtherCall"
        );
    }

    #[test]
    fn unknown_tool_string_digest_is_over_json_string() {
        let call = strict("apply_patch", json!("*** Begin Patch\n*** End Patch")).unwrap();
        let doc = "{\"input\":\"*** Begin Patch\\n*** End Patch\",\"tool\":\"apply_patch\"}";
        let expected = {
            use sha2::{Digest, Sha256};
            Sha256::digest(doc.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        assert_eq!(call.digest().unwrap(), expected);
    }

    #[test]
    fn digest_vectors_through_calls() {
        let bash = strict("Bash", json!({"command": "git status", "timeout": 5000})).unwrap();
        assert_eq!(
            bash.digest().unwrap(),
            "bb1ec4959bd14512342126db9066d06d92f8e3486e74b9812cb5037f3f086cc8"
        );
        let empty = strict("Empty", json!({})).unwrap();
        assert_eq!(
            empty.digest().unwrap(),
            "b50e454c692adcd4121bab7971501fcc94656ad0247b66d2d607be05dcddd4c5"
        );
        let unsafe_int = strict(
            "Bash",
            json!({"command": "x", "timeout": 9007199254740993_u64}),
        )
        .unwrap();
        assert!(matches!(
            unsafe_int.digest(),
            Err(DigestError::UnsafeInteger(_))
        ));
    }

    #[test]
    fn bash_fields() {
        let call = strict(
            "Bash",
            json!({"command": "git status", "description": "Show status", "timeout": 5000, "run_in_background": false}),
        )
        .unwrap();
        let ToolCall::Bash(b) = call else { panic!() };
        assert_eq!(b.command, "git status");
        assert_eq!(b.description.as_deref(), Some("Show status"));
        assert_eq!(b.timeout, Some(5000));
        assert_eq!(b.run_in_background, Some(false));
        // Optional wrong types are ignored, not fatal.
        let call = strict(
            "Execute",
            json!({"command": "ls", "timeout": "soon", "description": 7}),
        )
        .unwrap();
        let ToolCall::Bash(b) = call else { panic!() };
        assert_eq!(b.name, "Execute");
        assert_eq!(b.timeout, None);
        assert_eq!(b.description, None);
        let ToolCall::Bash(b) =
            strict("Bash", json!({"command": "ls", "timeout": 1500.0})).unwrap()
        else {
            panic!()
        };
        assert_eq!(b.timeout, Some(1500));
        let ToolCall::Bash(b) = strict("Bash", json!({"command": "ls", "timeout": -1})).unwrap()
        else {
            panic!()
        };
        assert_eq!(b.timeout, None);
    }

    #[test]
    fn codex_shell_array_command() {
        let input =
            json!({"command": ["bash", "-lc", "ls -la"], "timeout_ms": 120000, "workdir": "/w"});
        let call = strict("shell", input.clone()).unwrap();
        assert_eq!(call.type_name(), "BashCall");
        assert_eq!(call.raw(), Some(&input));
        let ToolCall::Bash(b) = call else { panic!() };
        assert_eq!(b.name, "shell");
        assert_eq!(b.command, "ls -la");
        assert_eq!(b.timeout, Some(120000));
        let ToolCall::Bash(b) =
            strict("shell", json!({"command": ["rg", "-n", "foo bar", "src"]})).unwrap()
        else {
            panic!()
        };
        assert_eq!(b.command, "rg -n 'foo bar' src");
        assert_eq!(
            err_msg("shell", json!({"command": ["ls", 1]})),
            "shell: field \"command[1]\" must be a string, got number"
        );
        assert_eq!(
            err_msg("shell", json!({"command": 5})),
            "shell: field \"command\" must be an array of strings, got number"
        );
        // A string input to a Codex name is a verbatim input: untyped, no error.
        let s = strict("shell", json!("{\"command\":[\"ls\"]}")).unwrap();
        assert_eq!(s.type_name(), "OtherCall");
        assert_eq!(s.error(), None);
    }

    #[test]
    fn codex_shell_command_exec_command_local_shell() {
        let ToolCall::Bash(b) = strict(
            "shell_command",
            json!({"command": "ls -la", "workdir": "/w"}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(b.command, "ls -la");
        let ToolCall::Bash(b) = strict(
            "exec_command",
            json!({"cmd": "cat a && echo b", "yield_time_ms": 1000}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(b.command, "cat a && echo b");
        assert_eq!(b.timeout, None);
        assert_eq!(
            err_msg("exec_command", json!({"command": "ls"})),
            "exec_command: field \"cmd\" is missing"
        );
        let ToolCall::Bash(b) = strict(
            "local_shell_call",
            json!({"action": {"type": "exec", "command": ["ls"], "timeout_ms": 10}}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(b.command, "ls");
        assert_eq!(b.timeout, Some(10));
        let ToolCall::Bash(b) =
            strict("local_shell_call", json!({"command": ["sh", "-c", "pwd"]})).unwrap()
        else {
            panic!()
        };
        assert_eq!(b.command, "pwd");
    }

    #[test]
    fn read_write_glob_grep() {
        let ToolCall::Read(r) = strict(
            "Read",
            json!({"file_path": "/a", "offset": 10, "limit": 20}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            (r.file_path.as_str(), r.offset, r.limit),
            ("/a", Some(10), Some(20))
        );
        let ToolCall::Write(w) =
            strict("Create", json!({"file_path": "/b", "content": ""})).unwrap()
        else {
            panic!()
        };
        assert_eq!((w.name.as_str(), w.content.as_str()), ("Create", ""));
        assert_eq!(
            err_msg("Write", json!({"file_path": "/b"})),
            "Write: field \"content\" is missing"
        );
        let ToolCall::Glob(g) = strict("Glob", json!({"pattern": "**/*.rs"})).unwrap() else {
            panic!()
        };
        assert_eq!((g.pattern.as_str(), g.path), ("**/*.rs", None));
        let ToolCall::Grep(g) = strict(
            "Grep",
            json!({"pattern": "fn main", "path": "src", "glob": "*.rs", "type": "rust",
                   "output_mode": "content", "-i": true, "-n": true, "-A": 2, "-B": 1, "-C": 3,
                   "multiline": false, "head_limit": 50, "offset": 5}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(g.pattern, "fn main");
        assert_eq!(g.path.as_deref(), Some("src"));
        assert_eq!(g.glob.as_deref(), Some("*.rs"));
        assert_eq!(g.file_type.as_deref(), Some("rust"));
        assert_eq!(g.output_mode.as_deref(), Some("content"));
        assert_eq!(
            (g.case_insensitive, g.line_numbers),
            (Some(true), Some(true))
        );
        assert_eq!((g.after, g.before, g.context), (Some(2), Some(1), Some(3)));
        assert_eq!(
            (g.multiline, g.head_limit, g.offset),
            (Some(false), Some(50), Some(5))
        );
        assert_eq!(
            err_msg("Grep", json!({"path": "."})),
            "Grep: field \"pattern\" is missing"
        );
    }

    #[test]
    fn multiedit_and_notebook() {
        let ToolCall::MultiEdit(m) = strict(
            "MultiEdit",
            json!({"file_path": "f", "edits": [{"old_string": "a", "new_string": "b", "replace_all": true}]}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            m.edits,
            vec![EditSpan {
                old: "a".into(),
                new: "b".into(),
                replace_all: true
            }]
        );
        assert_eq!(
            err_msg(
                "MultiEdit",
                json!({"file_path": "f", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c"}]})
            ),
            "MultiEdit: field \"edits[1].new_string\" is missing"
        );
        assert_eq!(
            err_msg("MultiEdit", json!({"file_path": "f", "edits": ["x"]})),
            "MultiEdit: field \"edits[0]\" must be an object, got string"
        );
        assert_eq!(
            err_msg("MultiEdit", json!({"file_path": "f", "edits": {}})),
            "MultiEdit: field \"edits\" must be an array, got object"
        );
        let ToolCall::NotebookEdit(n) = strict(
            "NotebookEdit",
            json!({"notebook_path": "n.ipynb", "new_source": "x", "cell_number": 2, "cell_type": "code", "edit_mode": "insert"}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(n.cell_number, Some(2));
        assert_eq!(n.cell_type.as_deref(), Some("code"));
        assert_eq!(n.edit_mode.as_deref(), Some("insert"));
        assert_eq!(n.cell_id, None);
    }

    #[test]
    fn plan_skill_task_tracker_workflow() {
        let ToolCall::ExitPlanMode(p) = strict("ExitSpecMode", json!({"plan": "1. do"})).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (p.name.as_str(), p.plan.as_str()),
            ("ExitSpecMode", "1. do")
        );
        let ToolCall::Skill(s) = strict("Skill", json!({"skill": "pdf", "args": "x"})).unwrap()
        else {
            panic!()
        };
        assert_eq!((s.skill.as_str(), s.args.as_deref()), ("pdf", Some("x")));
        let ToolCall::Skill(s) = strict("Skill", json!({"command": "legacy"})).unwrap() else {
            panic!()
        };
        assert_eq!(s.skill, "legacy");
        assert_eq!(
            err_msg("Skill", json!({})),
            "Skill: field \"skill\" is missing"
        );
        assert_eq!(
            err_msg("Skill", json!({"command": 1})),
            "Skill: field \"command\" must be a string, got number"
        );
        let ToolCall::Task(t) = strict(
            "Agent",
            json!({"description": "d", "prompt": "p", "subagent_type": "Explore", "model": "haiku", "run_in_background": true}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(t.subagent_type.as_deref(), Some("Explore"));
        assert_eq!(t.model.as_deref(), Some("haiku"));
        assert_eq!(t.run_in_background, Some(true));
        assert_eq!(
            err_msg("Task", json!({"description": "d"})),
            "Task: field \"prompt\" is missing"
        );
        let ToolCall::TaskCreate(c) = strict(
            "TaskCreate",
            json!({"subject": "Check hooks", "description": "Verify", "activeForm": "Checking hooks"}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(c.active_form.as_deref(), Some("Checking hooks"));
        let ToolCall::TaskUpdate(u) =
            strict("TaskUpdate", json!({"taskId": "1", "status": "completed"})).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (u.task_id.as_str(), u.status.as_deref()),
            ("1", Some("completed"))
        );
        assert_eq!(
            err_msg("TaskUpdate", json!({"taskId": 1})),
            "TaskUpdate: field \"taskId\" must be a string, got number"
        );
        let ToolCall::Workflow(w) = strict(
            "Workflow",
            json!({"name": "research", "args": ["q"], "scriptPath": "/s.js", "resumeFromRunId": "r1"}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(w.workflow_name.as_deref(), Some("research"));
        assert_eq!(w.name, "Workflow");
        assert_eq!(w.args, Some(json!(["q"])));
        assert_eq!(w.script_path.as_deref(), Some("/s.js"));
        assert_eq!(w.resume_from_run_id.as_deref(), Some("r1"));
        assert_eq!(w.script, None);
    }

    #[test]
    fn error_display_shapes() {
        let e = ToolInputError {
            tool: "Bash".into(),
            field: None,
            problem: "input must be a JSON object, got string".into(),
        };
        assert_eq!(
            e.to_string(),
            "Bash: input must be a JSON object, got string"
        );
        let boxed: Box<dyn std::error::Error> = Box::new(e);
        assert!(boxed.to_string().starts_with("Bash:"));
    }

    #[test]
    fn serializes_with_type_tag() {
        let call = strict("Glob", json!({"pattern": "*"})).unwrap();
        assert_eq!(
            serde_json::to_value(&call).unwrap(),
            json!({"type": "GlobCall", "name": "Glob", "raw": {"pattern": "*"}, "pattern": "*", "path": null})
        );
        assert_eq!(call.kind(), ToolKind::Other);
        assert_eq!(
            strict(
                "Edit",
                json!({"file_path": "a", "old_string": "", "new_string": ""})
            )
            .unwrap()
            .kind(),
            ToolKind::Edit
        );
    }

    #[test]
    fn never_panics_on_odd_inputs() {
        let odd = [
            json!(null),
            json!(true),
            json!(1.5),
            json!("s"),
            json!([]),
            json!({}),
            json!({"command": {"nested": [1, 2]}, "edits": [null], "file_path": 1}),
            json!({"action": "x", "command": []}),
        ];
        let names = [
            "Bash",
            "Execute",
            "shell",
            "shell_command",
            "exec_command",
            "local_shell_call",
            "Read",
            "Write",
            "Create",
            "Edit",
            "MultiEdit",
            "NotebookEdit",
            "Glob",
            "Grep",
            "ExitPlanMode",
            "ExitSpecMode",
            "Skill",
            "Agent",
            "Task",
            "TaskCreate",
            "TaskUpdate",
            "Workflow",
            "mcp__a__b",
            "",
            "Other",
        ];
        for name in names {
            for input in &odd {
                let strict_result = parse_tool_call(name, Some(input), OnError::Raise);
                let lenient_call = parse_tool_call(name, Some(input), OnError::Other).unwrap();
                assert_eq!(lenient_call.raw(), Some(input));
                assert_eq!(lenient_call.name(), name);
                match strict_result {
                    Ok(call) => assert_eq!(call, lenient_call),
                    Err(e) => assert_eq!(lenient_call.error(), Some(e.to_string().as_str())),
                }
                assert!(lenient_call.digest().is_ok());
            }
        }
    }
}
