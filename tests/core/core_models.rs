//! The core's session-derived models on hostile and real input: the shell
//! parser's limits, the diff model of a tool call (transcript::diff), and
//! the session cache (transcript::cache).

use hookscope_core::tools::{OnError, describe, parse_tool_call};
use serde_json::{Value, json};

/// `hookscope call`'s JSON for a 150,000-stage pipeline (900 KB) says what
/// the parser left out: 834,462 bytes after the first 65,535, and that only
/// 4096 of the 10,923 parsed stages are listed.
#[test]
fn describe_reports_parser_limits() {
    let command = "cat | ".repeat(149_999) + "cat";
    assert_eq!(command.len(), 899_997);
    let call = parse_tool_call("Bash", Some(&json!({ "command": command })), OnError::Raise)
        .expect("a BashCall");
    let out = describe(&call);
    let items = out["command_line"].as_array().expect("an array");
    assert_eq!(items.len(), 4096 + 1);
    assert_eq!(
        items[4096],
        json!({
            "truncated": 834_462,
            "calls_capped": true,
            "note": "only the first 65535 bytes were parsed (834462 bytes not parsed); only the first 4096 simple calls are listed"
        })
    );
    assert_eq!(items[4095]["program"], "cat");
    assert_eq!(items[4095]["operator"], "|");
}

mod diff_model {
    use hookscope_core::tools::{OnError, file_path_of, hunks_of, parse_tool_call};
    use hookscope_core::transcript::diff::{
        Applied, CallDiff, ChangeKind, DiffSource, LineTag, MAX_LINE_BYTES, applied_of, call_diff,
    };
    use hookscope_core::transcript::{Session, ToolCallRecord, ToolResult, discover, load};
    use serde_json::json;

    use crate::support::corpus;

    fn session(rel: &str) -> Session {
        session_at(&corpus(rel))
    }

    fn session_at(path: &std::path::Path) -> Session {
        let found = discover(&[path.to_path_buf()]).expect("discover");
        assert_eq!(found.sessions.len(), 1, "{}", path.display());
        load(&found.sessions[0]).expect("load")
    }

    fn record<'a>(session: &'a Session, id: &str) -> &'a ToolCallRecord {
        session
            .all_tool_calls()
            .map(|(_, r)| r)
            .find(|r| r.tool_use_id == id)
            .unwrap_or_else(|| panic!("no call {id}"))
    }

    fn diff(record: &ToolCallRecord) -> CallDiff {
        call_diff(record).expect("a file-editing call")
    }

    /// The lines of every hunk as `+text` / `-text` / ` text`.
    fn lines_of(diff: &CallDiff) -> Vec<String> {
        diff.files
            .iter()
            .flat_map(|f| &f.hunks)
            .flat_map(|h| &h.lines)
            .map(|l| {
                let p = match l.tag {
                    LineTag::Added => '+',
                    LineTag::Removed => '-',
                    LineTag::Context => ' ',
                };
                format!("{p}{}", l.text)
            })
            .collect()
    }

    const TOOLS: &str = "real-cc-2.1.332/tools/projects/-home-dev-work-tools/e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl";
    const HOOKS: &str = "real-cc-2.1.332/hooks/projects/-home-dev-work-hooks/0c04bd79-42b3-41bb-b257-006f349f008a.jsonl";
    const CODEX: &str = "real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl";

    /// tools line 44/45: the Edit's structuredPatch, one hunk.
    #[test]
    fn edit_with_structured_patch() {
        let s = session(TOOLS);
        let d = diff(record(&s, "toolu_01FCunre3Vlg1cQJNqbvZlnu"));
        assert_eq!(d.applied, Applied::Yes);
        assert_eq!(d.files.len(), 1);
        let f = &d.files[0];
        assert_eq!(f.path, "/home/dev/work/tools/src/new_module.py");
        assert_eq!(
            (f.kind, f.source),
            (ChangeKind::Edit, DiffSource::StructuredPatch)
        );
        assert_eq!(f.hunks.len(), 1);
        assert_eq!(f.hunks[0].header, "@@ -3,4 +3,5 @@");
        assert_eq!(
            lines_of(&d),
            [
                " ",
                " ",
                " def cube(x):",
                "-    return x * x * x",
                "+    \"\"\"Return x cubed.\"\"\"",
                "+    return x ** 3"
            ]
        );
    }

    /// tools line 40/41: a Write of a new file records `structuredPatch: []`,
    /// so the content is diffed against nothing: 6 lines added.
    #[test]
    fn write_of_a_new_file() {
        let s = session(TOOLS);
        let d = diff(record(&s, "toolu_013HpL8FygzRwJbROaHPuzI9"));
        let f = &d.files[0];
        assert_eq!(
            (f.kind, f.source),
            (ChangeKind::Write, DiffSource::CallHunks)
        );
        assert_eq!(f.hunks[0].header, "@@ -0,0 +1,6 @@");
        assert_eq!((f.added(), f.removed()), (6, 0));
        assert_eq!(lines_of(&d)[0], "+def square(x):");
    }

    /// claude-code-viewer fe5e1c67 line 285/286: a MultiEdit of 5 edits whose
    /// structuredPatch has 5 hunks, 20 lines removed and 19 added.
    #[test]
    fn multiedit_with_structured_patch() {
        let s = session(
            "claude-code-viewer/mock-global-claude-dir/projects/sample-project/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        );
        let r = record(&s, "toolu_01S32MnkYrukXN9L3TTPje5F");
        assert_eq!(hunks_of(&r.call).len(), 5);
        let d = diff(r);
        let f = &d.files[0];
        assert_eq!(f.path, "/path/to/Demo/todo-app/src/hooks/useTodos.test.ts");
        assert_eq!(f.source, DiffSource::StructuredPatch);
        let headers: Vec<&str> = f.hunks.iter().map(|h| h.header.as_str()).collect();
        assert_eq!(
            headers,
            [
                "@@ -3,7 +3,6 @@",
                "@@ -89,9 +88,8 @@",
                "@@ -105,9 +103,8 @@",
                "@@ -123,9 +120,9 @@",
                "@@ -139,19 +136,21 @@"
            ]
        );
        assert_eq!((f.added(), f.removed(), lines_of(&d).len()), (19, 20, 72));
    }

    /// real-codex-0.171.0 lines 17 and 27: `exec_command` running
    /// `apply_patch <<'EOF'` — an Add File of 2 lines, then an Update File
    /// with one `@@` section (1 context, 1 removed, 1 added).
    #[test]
    fn codex_heredoc_apply_patch() {
        let s = session(CODEX);
        let add = record(&s, "call_zf48lrtzap7lo14s9e55uc40");
        assert_eq!(add.name(), "exec_command");
        let d = diff(add);
        assert_eq!(d.notes, Vec::<String>::new());
        assert_eq!(d.applied, Applied::Yes);
        let f = &d.files[0];
        assert_eq!((f.path.as_str(), f.kind), ("hello.py", ChangeKind::Add));
        assert_eq!(f.source, DiffSource::ApplyPatch);
        assert_eq!(f.hunks[0].header, "@@ -0,0 +1,2 @@");
        assert_eq!(
            lines_of(&d),
            ["+def hello():", "+    return \"hello from apply_patch\""]
        );
        // The core's file_path_of / hunks_of agree (the `f` filter and Detail).
        assert_eq!(file_path_of(&add.call), Some("hello.py"));
        assert_eq!(hunks_of(&add.call).len(), 1);

        let update = record(&s, "call_baf0fw1kcj9eoi1tuurc1io4");
        let d = diff(update);
        let f = &d.files[0];
        assert_eq!((f.path.as_str(), f.kind), ("hello.py", ChangeKind::Update));
        assert_eq!(f.hunks.len(), 1);
        assert_eq!(f.hunks[0].header, "@@");
        assert_eq!((f.added(), f.removed(), f.hunks[0].lines.len()), (1, 1, 3));
        assert_eq!(file_path_of(&update.call), Some("hello.py"));
        // `ls -la` and `cat hello.py && python3 -c …` edit nothing.
        assert_eq!(call_diff(record(&s, "call_mtfuaxdyo8h2rjg7kvpu3863")), None);
        assert_eq!(call_diff(record(&s, "call_gp8gi3hwshtxp2nu9ljdbe2t")), None);
    }

    /// A `custom_tool_call` apply_patch — the item of docs/transcripts.md#response-items
    /// verbatim, in a rollout written to a temp dir and loaded by the Codex
    /// loader (no real rollout in the corpus has one: see
    /// real-codex-0.171.0/README) — with its output, and the same call with
    /// a failed output.
    #[test]
    fn codex_custom_tool_call_apply_patch() {
        use std::io::Write;
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir
            .path()
            .join("rollout-2026-01-01T00-00-00-00000000-0000-4000-8000-000000000002.jsonl");
        let lines = [
            r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"ap-1","cwd":"/w","cli_version":"0.99.0"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix a.py"}]}}"#,
            r#"{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"call_ap","name":"apply_patch","input":"*** Begin Patch\n*** Update File: a.py\n@@\n-old\n+new\n*** End Patch"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_ap","output":"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM a.py\n"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"call_bad","name":"apply_patch","input":"*** Begin Patch\n*** Update File: a.py\n@@\n-gone\n+new\n*** End Patch"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:05Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_bad","output":"Exit code: 1\nWall time: 0 seconds\nOutput:\nFailed to find expected lines in a.py:\ngone\n"}}"#,
        ];
        let mut file = std::fs::File::create(&path).expect("create");
        for line in lines {
            writeln!(file, "{line}").expect("write");
        }
        drop(file);
        let s = session_at(&path);
        let ok = record(&s, "call_ap");
        assert_eq!(ok.call.type_name(), "OtherCall");
        let d = diff(ok);
        assert_eq!(d.applied, Applied::Yes);
        assert_eq!(
            (d.files[0].path.as_str(), d.files[0].kind),
            ("a.py", ChangeKind::Update)
        );
        assert_eq!(lines_of(&d), ["-old", "+new"]);
        assert_eq!(file_path_of(&ok.call), Some("a.py"));
        let bad = diff(record(&s, "call_bad"));
        assert_eq!(
            bad.applied,
            Applied::No("the call failed: Exit code: 1".into())
        );
    }

    /// A malformed patch: no End Patch, a bare `@@` with nothing under it,
    /// a 1 MB line. Partial hunks and notes, no panic.
    #[test]
    fn malformed_patch_gives_partial_hunks_and_notes() {
        let long = "y".repeat(1 << 20);
        let cmd = format!(
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n@@\n@@ ctx\n-x\n+{long}\nEOF\n"
        );
        let call = parse_tool_call("exec_command", Some(&json!({ "cmd": cmd })), OnError::Other)
            .expect("typed");
        let r = ToolCallRecord {
            tool_use_id: "call_2".into(),
            tool_kind: hookscope_core::tools::tool_kind("exec_command", call.raw()),
            tool_resolved: None,
            call,
            result: None,
            timestamp: None,
            line: 1,
            message_id: None,
            subagent: None,
        };
        let d = diff(&r);
        // Lines count from `*** Begin Patch` (line 1). Without an End Patch
        // the heredoc's closing `EOF` is read as a patch line.
        assert_eq!(
            d.notes,
            [
                "line 3: `@@` section with no lines",
                "line 7: \"EOF\" is not a patch line; skipped",
                "no \"*** End Patch\": read to the end of the text",
                "1 line(s) longer than 8192 bytes cut",
            ]
        );
        let f = &d.files[0];
        assert_eq!(f.hunks.len(), 2);
        assert_eq!(
            f.hunks[1].lines[1].text.len(),
            MAX_LINE_BYTES + '…'.len_utf8()
        );
        assert_eq!((f.added(), f.removed()), (1, 1));
    }

    /// hooks line 64/65: the Write that permission mode `default` denied.
    #[test]
    fn denied_write_is_not_applied() {
        let s = session(HOOKS);
        let d = diff(record(&s, "toolu_015796i98YXirh2QSMEW5t0s"));
        assert_eq!(
            d.applied,
            Applied::No(
                "permission not granted: Claude requested permissions to write to /home/dev/work/hooks/docs/new.md, but you haven't granted it yet."
                    .into()
            )
        );
        assert_eq!(d.files[0].path, "/home/dev/work/hooks/docs/new.md");
        assert_eq!(lines_of(&d), ["+# new doc"]);
        // The Edit of the same session was applied.
        let edit = diff(record(&s, "toolu_016ykJe7330FrnpjyKTOrOmf"));
        assert_eq!(edit.applied, Applied::Yes);
    }

    /// hooks_c2_exit2 line 45 and hooks_c3_deny_json line 45: Bash calls a
    /// PreToolUse hook blocked (exit 2, JSON deny), the texts Claude Code
    /// 2.1.332 wrote.
    #[test]
    fn hook_blocked_calls_are_not_applied() {
        let c2 = session("real-cc-2.1.332/hooks_c2_exit2/projects/-home-dev-work-hooks-c2-exit2");
        assert_eq!(
            applied_of(record(&c2, "toolu_01GFEgALJm405nI2WctBocud")),
            Applied::No(
                "blocked by a PreToolUse hook: Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)"
                    .into()
            )
        );
        let c3 = session(
            "real-cc-2.1.332/hooks_c3_deny_json/projects/-home-dev-work-hooks-c3-deny-json",
        );
        assert_eq!(
            applied_of(record(&c3, "toolu_0138h77ojpT1t3A4y1yWKgjr")),
            Applied::No(
                "blocked by a PreToolUse hook: Denied by hookscope test hook (JSON): rm -rf is destructive"
                    .into()
            )
        );
    }

    /// An Edit whose result carries the texts of docs/transcripts.md#user-lines-and-tool-results (user
    /// rejection, interruption) and a hook denial for Edit in the 2.1.332
    /// wording: none applied, the diff still shown.
    #[test]
    fn rejected_and_interrupted_edits() {
        let call = parse_tool_call(
            "Edit",
            Some(&json!({"file_path": "a.py", "old_string": "x", "new_string": "y"})),
            OnError::Other,
        )
        .expect("typed");
        let with_result = |text: &str| ToolCallRecord {
            tool_use_id: "toolu_x".into(),
            tool_kind: hookscope_core::tools::tool_kind("Edit", call.raw()),
            tool_resolved: None,
            call: call.clone(),
            result: Some(ToolResult {
                text: text.into(),
                is_error: true,
                tool_use_result: None,
                stdout_is_text: false,
                echoed_input: 0,
                timestamp: None,
                line: 2,
                agent_id: None,
            }),
            timestamp: None,
            line: 1,
            message_id: None,
            subagent: None,
        };
        let cases = [
            (
                "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
                "rejected by the user",
            ),
            ("[Request interrupted by user for tool use]", "interrupted"),
            (
                "PreToolUse:Edit hook error: [python3 hook.py]: edits to a.py are frozen",
                "blocked by a PreToolUse hook: edits to a.py are frozen",
            ),
            (
                "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
                "the call failed: File has not been read yet. Read it first before writing to it.",
            ),
        ];
        for (text, reason) in cases {
            let d = diff(&with_result(text));
            assert_eq!(d.applied, Applied::No(reason.into()), "{text}");
            assert_eq!(lines_of(&d), ["-x", "+y"]);
        }
    }
}

/// `hookscope call` on a `sh -c` line and a quoted heredoc: each call's
/// `display` keeps the quoting (`'a; b'` stays one word, `<<'EOF'` keeps
/// its quotes), and the script's calls come as `script_calls`.
#[test]
fn describe_shows_quoted_calls_and_unwrapped_scripts() {
    let command = "sh -c 'a; b' && cat <<'EOF' > notes.txt\nhello $(not run)\nEOF";
    let call = parse_tool_call("Bash", Some(&json!({ "command": command })), OnError::Raise)
        .expect("a BashCall");
    let out = describe(&call);
    let calls = out["command_line"].as_array().expect("an array");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["display"], "sh -c 'a; b'");
    assert_eq!(calls[0]["args"], json!(["-c", "a; b"]));
    let inner: Vec<(&str, &Value)> = calls[0]["script_calls"]
        .as_array()
        .expect("script calls")
        .iter()
        .map(|c| (c["display"].as_str().unwrap_or(""), &c["operator"]))
        .collect();
    assert_eq!(inner, [("a", &json!(";")), ("b", &Value::Null)]);
    assert_eq!(calls[1]["display"], "cat <<'EOF' > notes.txt");
    assert_eq!(calls[1]["redirects"][0]["delimiter"], "'EOF'");
    assert_eq!(calls[1].get("script_calls"), None);
}

mod session_cache {
    use std::io::Write;
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use chrono::Utc;
    use hookscope_core::transcript::cache::{ITEM_OVERHEAD, SessionCache, estimated_size};
    use hookscope_core::transcript::{Agent, Event, Session, SessionRef, Turn, Usage, load};

    use crate::support::corpus;

    const PROJECTS: [&str; 3] = [
        "tools/projects/-home-dev-work-tools/e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl",
        "hooks/projects/-home-dev-work-hooks/0c04bd79-42b3-41bb-b257-006f349f008a.jsonl",
        "subagent/projects/-home-dev-work-subagent/8bb2dece-a24f-43d4-80d6-3ee9a889b550.jsonl",
    ];

    /// Copies a real-cc-2.1.332 main transcript (without subagent files)
    /// into `dir`.
    fn copied(dir: &Path, rel: &str) -> SessionRef {
        let source = corpus("real-cc-2.1.332").join(rel);
        let name = source.file_name().expect("a file name");
        let path = dir.join(name);
        std::fs::copy(&source, &path).expect("copy");
        SessionRef::claude_code(path, Vec::new())
    }

    #[test]
    fn estimate_counts_strings_and_overheads() {
        let session = Session {
            id: "s1".into(),
            agent: Agent::ClaudeCode,
            path: PathBuf::from("/t/s1.jsonl"),
            cwd: None,
            title: Some("title".into()),
            started: Some(Utc::now()),
            ended: None,
            version: None,
            git_branch: None,
            turns: vec![Turn {
                prompt: "hello".into(),
                prompt_line: Some(1),
                timestamp: None,
                events: vec![Event::Text {
                    text: "answer".into(),
                    timestamp: None,
                    line: 2,
                }],
                rejected: false,
            }],
            subagents: Vec::new(),
            usage: Usage::default(),
            models: vec!["m".into()],
            diagnostics: Vec::new(),
            lines: Default::default(),
        };
        // session: 96 + "s1" + "/t/s1.jsonl" + "title" + "m";
        // turn: 96 + "hello"; text event: 96 + "answer".
        assert_eq!(ITEM_OVERHEAD, 96);
        assert_eq!(
            estimated_size(&session),
            (96 + 2 + 11 + 5 + 1) + (96 + 5) + (96 + 6)
        );
    }

    #[test]
    fn estimate_counts_the_line_index() {
        let mut session = Session {
            id: String::new(),
            path: PathBuf::new(),
            agent: Agent::ClaudeCode,
            cwd: None,
            title: None,
            started: None,
            ended: None,
            version: None,
            git_branch: None,
            turns: Vec::new(),
            subagents: Vec::new(),
            usage: Usage::default(),
            models: Vec::new(),
            diagnostics: Vec::new(),
            lines: Default::default(),
        };
        let bare = estimated_size(&session);
        assert_eq!(bare, ITEM_OVERHEAD);
        session.lines.uuids.insert("u-1".into(), 1);
        session.lines.run_ends.push(2);
        session
            .lines
            .result_blocks
            .insert("toolu_1".into(), serde_json::json!([{"type": "image"}]));
        // uuid: 3 + 8; run end: 8; result blocks: "toolu_1" + array (32)
        // + object (32) + "type" + string (32) + "image".
        assert_eq!(
            estimated_size(&session),
            bare + (3 + 8) + 8 + (7 + 32 + 32 + 4 + 32 + 5)
        );
    }

    #[test]
    fn a_changed_file_is_parsed_again() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let sref = copied(dir.path(), PROJECTS[0]);
        let cache = SessionCache::new(1 << 30);
        let first = cache.get(&sref).expect("loads");
        let again = cache.get(&sref).expect("loads");
        assert!(
            Arc::ptr_eq(&first, &again),
            "unchanged file: the same parse"
        );
        assert_eq!(first.tool_calls().count(), 23);
        assert_eq!(cache.used(), estimated_size(&first));

        // A line appended (a live session): parsed again, the old parse dropped.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&sref.path)
            .expect("open for append");
        writeln!(
            file,
            "{{\"type\":\"summary\",\"summary\":\"later\",\"leafUuid\":\"x\"}}"
        )
        .expect("append");
        drop(file);
        let changed = cache.get(&sref).expect("loads");
        assert!(!Arc::ptr_eq(&first, &changed));
        assert_eq!(cache.paths(), std::slice::from_ref(&sref.path));
        assert_eq!(cache.used(), estimated_size(&changed));

        // A missing file is an error, not a cached entry.
        let gone = SessionRef::claude_code(dir.path().join("gone.jsonl"), Vec::new());
        assert!(cache.get(&gone).is_err());
        assert_eq!(cache.paths().len(), 1);
    }

    /// One OpenCode database holds many sessions under one path: each is
    /// its own entry (before, the first one parsed was handed out for every
    /// session of the database, and the Calls view and the MCP server lost
    /// or repeated calls).
    #[test]
    fn sessions_sharing_a_database_are_kept_apart() {
        let corpus = corpus("real-opencode-1.18.33");
        let found = hookscope_core::transcript::discover(&[corpus]).expect("corpus");
        let db: Vec<&SessionRef> = found
            .sessions
            .iter()
            .filter(|s| s.path.extension().is_some_and(|e| e == "db"))
            .collect();
        let same_file: Vec<&&SessionRef> = db.iter().filter(|s| s.path == db[0].path).collect();
        assert!(
            same_file.len() >= 2,
            "{} sessions in one database",
            same_file.len()
        );
        let cache = SessionCache::new(1 << 30);
        for s in &same_file {
            let got = cache.get(s).expect("loads");
            assert_eq!(got.id, s.id);
            assert_eq!(got.turns.len(), load(s).expect("loads").turns.len());
        }
        // Asked again, each comes from the cache, still its own.
        for s in &same_file {
            assert_eq!(cache.get(s).expect("cached").id, s.id);
        }
    }

    /// A file rewritten with its size and mtime put back (`sed -i` +
    /// `touch -r`) is parsed again: the cache compares ctime and inode too.
    #[test]
    fn a_rewrite_with_size_and_mtime_restored_is_parsed_again() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let sref = copied(dir.path(), PROJECTS[0]);
        let cache = SessionCache::new(1 << 30);
        let first = cache.get(&sref).expect("loads");
        let before = std::fs::metadata(&sref.path).expect("stat");
        let text = std::fs::read(&sref.path).expect("read");
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&sref.path, &text).expect("rewrite");
        std::fs::File::options()
            .write(true)
            .open(&sref.path)
            .expect("open")
            .set_modified(before.modified().expect("mtime"))
            .expect("touch -r");
        let after = std::fs::metadata(&sref.path).expect("stat");
        assert_eq!(
            (after.len(), after.modified().ok()),
            (before.len(), before.modified().ok())
        );
        let again = cache.get(&sref).expect("loads");
        assert!(!Arc::ptr_eq(&first, &again), "parsed again");
    }

    #[test]
    fn least_recently_used_is_evicted_within_the_budget() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let mut refs: Vec<(usize, SessionRef)> = PROJECTS
            .iter()
            .map(|rel| {
                let sref = copied(dir.path(), rel);
                let size = estimated_size(&load(&sref).expect("loads"));
                (size, sref)
            })
            .collect();
        // a = the middle one, b = the largest, c = the smallest.
        refs.sort_by_key(|(size, _)| *size);
        let [(ec, c), (ea, a), (eb, b)] =
            <[(usize, SessionRef); 3]>::try_from(refs).unwrap_or_else(|_| panic!("three sessions"));
        assert!(ec < ea && ea < eb);

        let cache = SessionCache::new(ea + eb);
        cache.get(&a).expect("a");
        cache.get(&b).expect("b");
        assert_eq!(cache.paths(), [a.path.clone(), b.path.clone()]);
        assert_eq!(cache.used(), ea + eb);
        cache.get(&a).expect("a again"); // a is now the most recent
        assert_eq!(cache.paths(), [b.path.clone(), a.path.clone()]);
        // c needs room: b (least recently used) goes, a stays.
        cache.get(&c).expect("c");
        assert_eq!(cache.paths(), [a.path.clone(), c.path.clone()]);
        assert_eq!(cache.used(), ea + ec);

        // A session bigger than the whole budget is handed out, never kept.
        let tiny = SessionCache::new(ec - 1);
        let x = tiny.get(&c).expect("loads");
        let y = tiny.get(&c).expect("loads");
        assert!(!Arc::ptr_eq(&x, &y));
        assert_eq!((tiny.used(), tiny.paths().len()), (0, 0));
    }
}
