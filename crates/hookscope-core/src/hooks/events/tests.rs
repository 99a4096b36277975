//! captain_hook's examples of the typed views (docs/hook-api.md#typed-event-views), one test each (views over hand-written payloads and
//! the corpus task store).

use super::*;
use serde_json::json;

fn pre(tool: &str, input: Value) -> HookEvent {
    HookEvent::new(json!({
        "session_id": "s1", "hook_event_name": "PreToolUse",
        "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1"
    }))
}

fn recorded(event: &str, tool: &str, input: Value, before: Option<&str>) -> HookEvent {
    HookEvent::with_file_before(
        json!({"hook_event_name": event, "tool_name": tool, "tool_input": input}),
        FileBefore::Recorded(before.map(str::to_string)),
    )
}

#[test]
fn missing_null_or_empty_agent_id_all_mean_the_main_agent() {
    for payload in [
        json!({"hook_event_name": "Stop"}),
        json!({"hook_event_name": "Stop", "agent_id": null}),
        json!({"hook_event_name": "Stop", "agent_id": ""}),
    ] {
        let e = HookEvent::new(payload);
        assert_eq!(e.agent_id(), None);
        assert!(!e.is_subagent());
    }
    let sub =
        HookEvent::new(json!({"agent_id": "aab8fa18d1ff571f3", "agent_type": "general-purpose"}));
    assert_eq!(sub.agent_id(), Some("aab8fa18d1ff571f3"));
    assert!(sub.is_subagent());
    assert_eq!(sub.agent_type(), Some("general-purpose"));
}

#[test]
fn background_tasks_and_crons_are_empty_when_omitted_and_typed_when_sent() {
    let e = HookEvent::new(json!({"hook_event_name": "Stop"}));
    assert!(e.background_tasks().is_empty());
    assert!(e.session_crons().is_empty());
    let e = HookEvent::new(json!({
        "hook_event_name": "Stop",
        "background_tasks": [
            {"id": "b1", "type": "shell", "status": "running", "description": "npm run dev", "command": "npm run dev"},
            "not an object"
        ],
        "session_crons": [{"id": "c1", "schedule": "*/5 * * * *", "recurring": true, "prompt": "check CI"}]
    }));
    let tasks = e.background_tasks();
    assert_eq!(tasks.len(), 1);
    assert_eq!(
        (
            tasks[0].id.as_str(),
            tasks[0].kind.as_str(),
            tasks[0].status.as_str(),
            tasks[0].description.as_str()
        ),
        ("b1", "shell", "running", "npm run dev")
    );
    // Type-specific extras stay in raw.
    assert_eq!(tasks[0].raw["command"], "npm run dev");
    assert_eq!(
        e.session_crons(),
        [SessionCron {
            id: "c1".into(),
            schedule: "*/5 * * * *".into(),
            recurring: true,
            prompt: "check CI".into()
        }]
    );
}

#[test]
fn tasks_come_from_this_sessions_store_only() {
    let root = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/real-cc-2.1.332/hooks/claude-home-tasks"
    ));
    let e = HookEvent::new(json!({"session_id": "0c04bd79-42b3-41bb-b257-006f349f008a"}));
    let tasks = e.tasks(root);
    assert_eq!(tasks.len(), 1);
    assert_eq!(
        (
            tasks[0].id.as_str(),
            tasks[0].subject.as_str(),
            tasks[0].description.as_str(),
            tasks[0].status.as_str()
        ),
        (
            "1",
            "Check hooks",
            "Verify all hook events fire",
            "completed"
        )
    );
    assert_eq!(tasks[0].raw["activeForm"], "Checking hooks");
    // Another session: no store, no fallback to the one that exists.
    let other = HookEvent::new(json!({"session_id": "c8435c6b-9aae-401c-ba5f-97def3faba72"}));
    assert!(other.tasks(root).is_empty());
    // No session id, or one that would leave the store: nothing.
    assert!(HookEvent::new(json!({})).tasks(root).is_empty());
    assert!(
        HookEvent::new(json!({"session_id": ".."}))
            .tasks(root)
            .is_empty()
    );
}

#[test]
fn task_store_skips_broken_files_and_sorts_ids_numerically() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("s1");
    std::fs::create_dir(&store).expect("mkdir");
    std::fs::write(
        store.join("10.json"),
        r#"{"id":"10","subject":"ten","status":"pending"}"#,
    )
    .expect("w");
    std::fs::write(
        store.join("2.json"),
        r#"{"id":"2","subject":"two","status":"completed"}"#,
    )
    .expect("w");
    std::fs::write(store.join("3.json"), "{not json").expect("w");
    std::fs::write(store.join("4.json"), "[1,2]").expect("w");
    std::fs::create_dir(store.join("5.json")).expect("a folder named like a task");
    let e = HookEvent::new(json!({"session_id": "s1"}));
    let ids: Vec<String> = e.tasks(dir.path()).into_iter().map(|t| t.id).collect();
    assert_eq!(ids, ["2", "10"]);
}

#[test]
fn cmd_is_always_a_command_line() {
    let bash = pre("Bash", json!({"command": "FOO=1 git push && rm -rf build"}));
    let programs: Vec<String> = bash.cmd().calls.iter().map(|c| c.program.clone()).collect();
    assert_eq!(programs, ["git", "rm"]);
    assert_eq!(bash.cmd().raw, "FOO=1 git push && rm -rf build");
    assert_eq!(bash.command(), bash.cmd());
    // Non-Bash, absent command, no tool at all: zero calls, empty raw.
    for e in [
        pre("Read", json!({"file_path": "/a"})),
        pre("Bash", json!({})),
        HookEvent::new(json!({"hook_event_name": "Stop"})),
    ] {
        assert!(e.cmd().calls.is_empty());
        assert_eq!(e.cmd().raw, "");
    }
}

#[test]
fn as_input_narrows_to_the_call_type() {
    let e = pre(
        "Edit",
        json!({"file_path": "/a.py", "old_string": "x", "new_string": "y"}),
    );
    let Some(ToolCall::Edit(edit)) = e.as_input("EditCall") else {
        panic!("an EditCall")
    };
    assert_eq!((edit.old.as_str(), edit.new.as_str()), ("x", "y"));
    assert_eq!(e.as_input("BashCall"), None);
    // A malformed Edit is an OtherCall, so not an EditCall.
    assert_eq!(
        pre("Edit", json!({"file_path": "/a.py"})).as_input("EditCall"),
        None
    );
    assert_eq!(
        HookEvent::new(json!({"hook_event_name": "Stop"})).as_input("EditCall"),
        None
    );
}

#[test]
fn edit_applies_old_to_new_once_or_everywhere() {
    let input = json!({"file_path": "/n.txt", "old_string": "a", "new_string": "b"});
    let e = recorded("PreToolUse", "Edit", input, Some("a a a"));
    assert_eq!(e.pre_image().as_deref(), Some("a a a"));
    assert_eq!(e.post_image().as_deref(), Some("b a a"));
    assert_eq!(e.replaced().as_deref(), Some("a"));
    assert_eq!(
        e.edit(),
        Some(EditView {
            file_path: "/n.txt".into(),
            pre: "a".into(),
            post: "b".into()
        })
    );
    let all =
        json!({"file_path": "/n.txt", "old_string": "a", "new_string": "b", "replace_all": true});
    let e = recorded("PreToolUse", "Edit", all, Some("a a a"));
    assert_eq!(e.post_image().as_deref(), Some("b b b"));
}

#[test]
fn multiedit_folds_spans_in_order_and_fails_on_an_absent_span() {
    let input = json!({"file_path": "/m", "edits": [
        {"old_string": "one", "new_string": "two"},
        {"old_string": "two two", "new_string": "three"}
    ]});
    // The second span sees the first one's result.
    let e = recorded("PreToolUse", "MultiEdit", input.clone(), Some("one two"));
    assert_eq!(e.post_image().as_deref(), Some("three"));
    assert_eq!(e.replaced().as_deref(), Some("one\ntwo two"));
    assert_eq!(e.edit().map(|v| v.post), Some("two\nthree".to_string()));
    // "one" absent: the call would fail, so no post-image.
    let e = recorded("PreToolUse", "MultiEdit", input, Some("zero"));
    assert_eq!(e.post_image(), None);
    assert_eq!(e.pre_image().as_deref(), Some("zero"));
}

#[test]
fn images_are_none_off_pretooluse_and_for_other_tools() {
    let input = json!({"file_path": "/n.txt", "old_string": "a", "new_string": "b"});
    for event in ["PostToolUse", "PostToolUseFailure", "PermissionRequest"] {
        let e = recorded(event, "Edit", input.clone(), Some("a"));
        assert_eq!(e.pre_image(), None, "{event}");
        assert_eq!(e.post_image(), None, "{event}");
        // An Edit's old fragment is known at any event.
        assert_eq!(e.replaced().as_deref(), Some("a"), "{event}");
        assert!(e.edit().is_some(), "{event}");
    }
    let read = recorded(
        "PreToolUse",
        "Read",
        json!({"file_path": "/n.txt"}),
        Some("a"),
    );
    assert_eq!(
        (
            read.pre_image(),
            read.post_image(),
            read.replaced(),
            read.edit()
        ),
        (None, None, None, None)
    );
    // An unknown file-before: no images, but the Edit's fragment stays.
    let e = recorded("PreToolUse", "Edit", input, None);
    assert_eq!((e.pre_image(), e.post_image()), (None, None));
    assert_eq!(e.replaced().as_deref(), Some("a"));
}

#[test]
fn write_pre_image_reads_disk_at_pretooluse_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let existing = dir.path().join("old.txt");
    std::fs::write(&existing, b"caf\xe9\n").expect("write");
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let write = |p: String| pre("Write", json!({"file_path": p, "content": "new\n"}));
    // Existing file: its bytes, lossily decoded.
    let e = write(path(&existing));
    assert_eq!(e.pre_image().as_deref(), Some("caf\u{fffd}\n"));
    assert_eq!(e.replaced().as_deref(), Some("caf\u{fffd}\n"));
    assert_eq!(e.post_image().as_deref(), Some("new\n"));
    // New file: "".
    let e = write(path(&dir.path().join("new.txt")));
    assert_eq!(e.replaced().as_deref(), Some(""));
    assert_eq!(
        e.edit().map(|v| (v.pre, v.post)),
        Some((String::new(), "new\n".to_string()))
    );
    // A folder: None.
    let e = write(path(dir.path()));
    assert_eq!((e.replaced(), e.pre_image(), e.edit()), (None, None, None));
    // After the Write landed: nothing about its pre side.
    let post = HookEvent::new(json!({
        "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": path(&existing), "content": "new\n"}
    }));
    assert_eq!(
        (
            post.replaced(),
            post.pre_image(),
            post.post_image(),
            post.edit()
        ),
        (None, None, None, None)
    );
}
