//! The timeline: subagents expanded and walked, its filter and `n`, unlinked
//! subagents, spawn cycles, OpenCode child sessions and Droid hook runs,
//! long timelines and their window.

use super::*;

#[test]
fn snapshot_timeline_with_subagent_expanded() {
    let mut app = opened(SUBAGENT);
    select_call(&mut app, "Agent");
    key(&mut app, KeyCode::Enter); // expand
    key(&mut app, KeyCode::Enter); // onto its first child
    key(&mut app, KeyCode::Char('j'));
    insta::assert_snapshot!("timeline_expanded_80x24", render(&mut app, 80, 24));
    insta::assert_snapshot!("timeline_expanded_160x48", render(&mut app, 160, 48));
}

#[test]
fn expand_walk_and_collapse_a_subagent() {
    let mut app = opened(SUBAGENT);
    let before = app.timeline.rows(&app.ctx).len();
    assert_eq!(before, 11);
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('j'));
    let agent = Item::Event {
        thread: Thread::Main,
        turn: 0,
        event: 1,
    };
    assert_eq!(app.timeline.sel, Some(agent));
    key(&mut app, KeyCode::Enter);
    assert!(app.timeline.expanded.contains(&agent));
    assert_eq!(app.timeline.rows(&app.ctx).len(), 15);
    key(&mut app, KeyCode::Char('l'));
    let first_child = Item::Event {
        thread: Thread::Sub(
            app.ctx
                .session()
                .and_then(|s| crate::tui::timeline::event_of(s, agent))
                .and_then(|e| e.as_tool_call())
                .and_then(|c| c.subagent)
                .expect("linked"),
        ),
        turn: 0,
        event: 0,
    };
    assert_eq!(app.timeline.sel, Some(first_child));
    assert_eq!(app.focus, Pane::Timeline);
    key(&mut app, KeyCode::Char('h'));
    assert_eq!(app.timeline.sel, Some(agent));
    key(&mut app, KeyCode::Char('h'));
    assert!(app.timeline.expanded.is_empty());
    assert_eq!(app.timeline.rows(&app.ctx).len(), 11);
    key(&mut app, KeyCode::Char(' '));
    assert!(app.timeline.expanded.contains(&agent));
    key(&mut app, KeyCode::Char(' '));
    assert!(app.timeline.expanded.is_empty());
    key(&mut app, KeyCode::Char('G'));
    assert_eq!(
        app.timeline.rows(&app.ctx).last().map(|r| r.item),
        app.timeline.sel
    );
    key(&mut app, KeyCode::Char('g'));
    assert_eq!(app.timeline.sel, Some(Item::Turn(0)));
}

#[test]
fn search_filters_and_esc_clears() {
    let mut app = opened(TOOLS);
    let all = app.timeline.rows(&app.ctx).len();
    key(&mut app, KeyCode::Char('/'));
    assert!(app.timeline.searching);
    keys(&mut app, "grep");
    assert_eq!(app.timeline.filter, "grep");
    assert_eq!(app.timeline.rows(&app.ctx).len(), 3);
    key(&mut app, KeyCode::Enter);
    assert!(!app.timeline.searching);
    assert_eq!(app.timeline.filter, "grep");
    let first = app.timeline.sel;
    key(&mut app, KeyCode::Char('n'));
    assert_ne!(app.timeline.sel, first);
    key(&mut app, KeyCode::Char('n'));
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.timeline.sel, first);
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "x");
    key(&mut app, KeyCode::Esc);
    assert!(!app.timeline.searching);
    assert_eq!(app.timeline.filter, "");
    assert_eq!(app.timeline.rows(&app.ctx).len(), all);
}

#[test]
fn timeline_filter_finds_calls_inside_collapsed_subagents() {
    let mut app = opened(SUBAGENT);
    assert!(app.timeline.expanded.is_empty());
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "grep -rn");
    key(&mut app, KeyCode::Enter);
    // The explore subagent's Bash call (its Agent row is collapsed).
    let session = app.ctx.session().cloned().expect("loaded");
    let ids: Vec<String> = app
        .timeline
        .rows(&app.ctx)
        .iter()
        .filter_map(|r| crate::tui::timeline::event_of(&session, r.item))
        .filter_map(|e| e.as_tool_call())
        .map(|c| c.tool_use_id.clone())
        .collect();
    assert_eq!(ids, vec!["toolu_01jnpTxdhXKCZgdSENXyt8je"]);
    let found = app.timeline.sel.expect("selected");
    assert!(matches!(
        found,
        Item::Event {
            thread: Thread::Sub(_),
            ..
        }
    ));
    // Clearing the filter keeps it selected and expands its Agent call.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.timeline.filter, "");
    assert_eq!(app.timeline.sel, Some(found));
    assert_eq!(app.timeline.expanded.len(), 1);
    assert!(app.timeline.rows(&app.ctx).iter().any(|r| r.item == found));
}

#[test]
fn unlinked_subagents_are_listed_after_the_turns() {
    // claude-code-viewer's sample project: two sibling agent-test-hash-*
    // files whose Task calls are not in any session of the folder.
    let folder = "tests/corpus/claude-code-viewer/mock-global-claude-dir/projects/sample-project";
    let mut app = app_for(folder);
    let index = app
        .ctx
        .sessions
        .iter()
        .position(|e| !e.sref.subagent_files.is_empty())
        .expect("a session with the sibling files");
    app.list.sel = Some(index);
    key(&mut app, KeyCode::Enter);
    let session = app.ctx.session().cloned().expect("loaded");
    let tree = app.ctx.spawns().cloned().expect("loaded");
    let rows = app.timeline.rows(&app.ctx);
    // The last two rows are the two agent-test-hash-* files, in file order
    // (their first prompts: "Run the test suite", "Build the project").
    let labels: Vec<String> = rows
        .iter()
        .filter(|r| matches!(r.item, Item::Unlinked(_)))
        .map(|r| crate::tui::timeline::row_text(&session, &tree, r.item))
        .collect();
    assert_eq!(
        labels,
        vec![
            "unlinked subagent ? test-hash-123 — Run the test suite",
            "unlinked subagent ? test-hash-456 — Build the project",
        ]
    );
    assert!(matches!(rows[rows.len() - 1].item, Item::Unlinked(_)));
    assert!(matches!(rows[rows.len() - 2].item, Item::Unlinked(_)));
    let headers: Vec<Item> = rows[rows.len() - 2..].iter().map(|r| r.item).collect();
    // Enter on the first expands it to its own events.
    app.timeline.sel = headers.first().copied();
    let before = app.timeline.rows(&app.ctx).len();
    key(&mut app, KeyCode::Enter);
    assert!(app.timeline.expanded.contains(&headers[0]));
    let after: Vec<String> = app
        .timeline
        .rows(&app.ctx)
        .iter()
        .filter(|r| r.parent == Some(headers[0]))
        .map(|r| crate::tui::timeline::row_text(&session, &tree, r.item))
        .collect();
    // Its one assistant text (the file's second line), one row more.
    assert_eq!(after, vec!["I'll run the test suite for you."]);
    assert_eq!(app.timeline.rows(&app.ctx).len(), before + 1);
    let text = render(&mut app, 160, 48);
    assert!(text.contains("▾ unlinked subagent"), "{text}");
}

#[test]
fn n_without_a_search_says_so_and_moves_nothing() {
    let mut app = opened(TOOLS);
    key(&mut app, KeyCode::Char('j'));
    let sel = app.timeline.sel;
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.timeline.sel, sel);
    assert_eq!(
        app.ctx.message.as_deref(),
        Some("no search: / filters the timeline")
    );
    key(&mut app, KeyCode::Char('N'));
    assert_eq!(app.timeline.sel, sel);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.detail.scroll, 0);
    assert_eq!(
        app.ctx.message.as_deref(),
        Some("no search: / finds text in the detail")
    );
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Sessions);
    let sel = app.list.sel;
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.list.sel, sel);
    assert_eq!(
        app.ctx.message.as_deref(),
        Some("no search: / filters the list")
    );
}

/// The session's call ids along the fully expanded timeline, with depths.
fn expanded_calls(app: &App) -> Vec<(String, usize)> {
    let session = app.ctx.session().cloned().expect("loaded");
    app.timeline
        .every_row(&app.ctx)
        .iter()
        .filter_map(|r| {
            crate::tui::timeline::event_of(&session, r.item)
                .and_then(|e| e.as_tool_call())
                .map(|c| (c.tool_use_id.clone(), r.depth))
        })
        .collect()
}

#[test]
fn a_hand_made_spawn_cycle_renders_expands_and_jumps() {
    // The subagent session re-linked in memory into two cycles: main's
    // Agent call spawns A (3, "Inspect repository"), A's Read spawns B (2,
    // "Find functions"), B's Bash spawns A again; and 0 ("Background
    // check") and 1 ("Read notes") spawn each other, neither reached from
    // the main thread (their main-thread Agent calls unlinked).
    let mut app = opened(SUBAGENT);
    let mut session = (**app.ctx.session().expect("loaded")).clone();
    relink(&mut session, "toolu_01RNYJFbxX2Ngbhqr7ThQaWg", None);
    relink(&mut session, "toolu_01DIgoxeg8ZxqYQ6XNQPwD7s", Some(2));
    relink(&mut session, "toolu_01jnpTxdhXKCZgdSENXyt8je", Some(3));
    relink(&mut session, "toolu_01aWUpYqUJUYg412bh1nwfKI", None);
    relink(&mut session, "toolu_01QsDwoBvXrX9cAOXPn1lNLy", None);
    relink(&mut session, "toolu_01ODoKPi4xQIP1UU1UbS5ZcO", Some(0));
    relink(&mut session, "toolu_01dM1oJYP60BEcdfrRP89wcZ", Some(1));
    app.apply(Msg::Loaded {
        index: 0,
        result: Ok(std::sync::Arc::new(session)),
    });
    // Fully expanded (what the filter searches): each thread once; B's Bash
    // and 1's Read do not expand back into a thread above them.
    let want = [
        ("toolu_01EoVg2LEYBcgsNqrLdx6tDq", 0),
        ("toolu_01dWuUXlkTZoL5K7RXhzXTZs", 1),
        ("toolu_01DIgoxeg8ZxqYQ6XNQPwD7s", 1),
        ("toolu_01jnpTxdhXKCZgdSENXyt8je", 2),
        ("toolu_01RNYJFbxX2Ngbhqr7ThQaWg", 0),
        ("toolu_01aWUpYqUJUYg412bh1nwfKI", 0),
        ("toolu_01QsDwoBvXrX9cAOXPn1lNLy", 0),
        ("toolu_01dM1oJYP60BEcdfrRP89wcZ", 1),
        ("toolu_01ODoKPi4xQIP1UU1UbS5ZcO", 2),
    ];
    let want: Vec<(String, usize)> = want.iter().map(|(id, d)| (id.to_string(), *d)).collect();
    assert_eq!(expanded_calls(&app), want);
    let rows = app.timeline.every_row(&app.ctx);
    assert_eq!(
        rows.iter()
            .filter(|r| matches!(r.item, Item::Unlinked(_)))
            .map(|r| r.item)
            .collect::<Vec<_>>(),
        vec![Item::Unlinked(0)]
    );
    // The jump into B (through A): both spawns above it are expanded.
    assert!(
        app.timeline
            .select_call("toolu_01jnpTxdhXKCZgdSENXyt8je", &app.ctx)
    );
    assert_eq!(app.timeline.expanded.len(), 2);
    // Enter on B's Bash (its spawn back into A does not expand) opens its
    // detail, which names the path of spawns from the main thread.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    let text = render(&mut app, 160, 48);
    assert!(
        text.contains(
            "turn 1 › general-purpose “Inspect repository” › Explore “Find functions” › Bash"
        ),
        "{text}"
    );
    // The jump into the detached cycle: its root row and 0's Bash expand.
    key(&mut app, KeyCode::Esc);
    assert!(
        app.timeline
            .select_call("toolu_01ODoKPi4xQIP1UU1UbS5ZcO", &app.ctx)
    );
    assert!(app.timeline.expanded.contains(&Item::Unlinked(0)));
    assert_eq!(app.timeline.expanded.len(), 4);
    let text = render(&mut app, 160, 48);
    assert!(
        text.contains("▾ detached subagent general-purpose a0ddb8d7d9a82d5…"),
        "{text}"
    );
    let session = app.ctx.session().cloned().expect("loaded");
    let tree = app.ctx.spawns().cloned().expect("loaded");
    assert_eq!(
        crate::tui::timeline::row_text(&session, &tree, Item::Unlinked(0)),
        "detached subagent general-purpose a0ddb8d7d9a82d5fb — Background check"
    );
    // Detail names it detached, not unlinked.
    app.timeline.sel = Some(Item::Unlinked(0));
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('k'));
    let detail = detail_text(&app);
    assert_eq!(
        detail.first().map(String::as_str),
        Some("── Detached subagent ──"),
        "{detail:?}"
    );
    // Every row expanded by hand, then drawn at both sizes: it ends.
    for row in app.timeline.every_row(&app.ctx) {
        app.timeline.expanded.insert(row.item);
    }
    assert_eq!(
        app.timeline.all_rows(&app.ctx).len(),
        app.timeline.every_row(&app.ctx).len()
    );
    render(&mut app, 80, 24);
    render(&mut app, 160, 48);
}

#[test]
fn api_error_rows_say_api_error_once() {
    use crate::tui::timeline::api_error_line;
    assert_eq!(
        api_error_line("status 529: Overloaded"),
        "API error: status 529: Overloaded"
    );
    // Claude Code's own isApiErrorMessage text keeps its prefix, not ours too.
    assert_eq!(api_error_line("API Error: 500 boom"), "API Error: 500 boom");
}

/// An OpenCode session (1.1.65 JSON storage) whose `task` call's child
/// session is expanded in place under it.
#[test]
fn snapshot_opencode_session_with_a_child_session_expanded() {
    let mut app = opened(
        "tests/corpus/real-opencode-1.1.65-legacy-json/data/storage/session/b1b723701d29a26aff31b3aa001b8ee39b69a447/ses_dcc99b764ffejo4IzDVf1tRC9K.json",
    );
    select_call(&mut app, "task");
    key(&mut app, KeyCode::Enter); // expand
    key(&mut app, KeyCode::Enter); // onto its first child
    insta::assert_snapshot!("opencode_child_expanded_160x48", render(&mut app, 160, 48));
}

/// A Droid session with its hook runs in the timeline as typed firings: the
/// `rm -rf` call marked `⛔ hook blocked` (its PreToolUse exit 2), `⚑`
/// rows for SessionStart (in the first turn), Stop and SessionEnd.
#[test]
fn snapshot_droid_session_with_its_hook_runs() {
    let mut app = opened(
        "tests/corpus/real-droid-0.225.2/factory/sessions/-home-dev-work-dr-errors/1b9da415-c5e6-4a90-b936-c8633676babf.jsonl",
    );
    insta::assert_snapshot!("droid_hook_runs_160x48", render(&mut app, 160, 48));
}

/// A Claude Code session in `dir` with one prompt and `calls` Bash calls
/// `echo call-<i>` (i from 0), each answered `out <i>`. Returns its path.
fn many_bash_calls(dir: &std::path::Path, calls: usize) -> String {
    let id = "22222222-3333-4444-8555-666666666666";
    let head = serde_json::json!({
        "type": "user", "uuid": "u0", "parentUuid": null, "sessionId": id,
        "isSidechain": false, "cwd": "/tmp/long", "timestamp": "2026-11-29T18:00:00.000Z",
        "message": {"role": "user", "content": "go"}
    });
    let mut text = head.to_string() + "\n";
    let mut parent = "u0".to_string();
    for i in 0..calls {
        let (a, r) = (format!("a{i}"), format!("r{i}"));
        let call = serde_json::json!({
            "type": "assistant", "uuid": a, "parentUuid": parent, "sessionId": id,
            "isSidechain": false, "cwd": "/tmp/long", "timestamp": "2026-11-29T18:00:01.000Z",
            "message": {"id": format!("msg_{i}"), "role": "assistant", "model": "claude-test",
                "content": [{"type": "tool_use", "id": format!("toolu_{i:05}"), "name": "Bash",
                    "input": {"command": format!("echo call-{i}")}}]}
        });
        let result = serde_json::json!({
            "type": "user", "uuid": r, "parentUuid": a, "sessionId": id,
            "isSidechain": false, "cwd": "/tmp/long", "timestamp": "2026-11-29T18:00:02.000Z",
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("toolu_{i:05}"),
                 "content": format!("out {i}")}
            ]}
        });
        text.push_str(&format!("{call}\n{result}\n"));
        parent = r;
    }
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, text).expect("write the session");
    path.to_string_lossy().into_owned()
}

/// A Timeline of 5,001 rows (a turn and 5,000 calls): End selects the last
/// call, which is drawn selected on the pane's last row, the rows above it
/// the calls before it; only the rows on screen are built
/// (`timeline::window`).
#[test]
fn a_long_timeline_shows_its_last_call_selected() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = many_bash_calls(dir.path(), 5_000);
    let mut app = opened(&path);
    assert_eq!(app.timeline.rows(&app.ctx).len(), 5_001);
    render(&mut app, 160, 48);
    key(&mut app, KeyCode::End);
    let screen = render(&mut app, 160, 48);
    let call = app
        .timeline
        .selected_call(&app.ctx)
        .expect("a call selected");
    assert_eq!(call.tool_use_id, "toolu_04999");
    // The Timeline's rows: between its top and bottom borders.
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("Bash echo call-"))
        .collect();
    let last = rows.last().expect("call rows drawn");
    assert!(last.contains("▶  bash  Bash echo call-4999"), "{last}");
    assert!(last.contains("Bash echo call-4999"), "{last}");
    let before = rows[rows.len() - 2];
    assert!(before.contains("Bash echo call-4998"), "{before}");
    // The window the list is built from: the selection on the last row.
    assert_eq!(
        crate::tui::timeline::window(20_001, 0, Some(20_000), 44),
        (19_957, 20_001)
    );
}

#[test]
fn timeline_window_scrolls_the_least_that_shows_the_selection() {
    use crate::tui::timeline::window;
    assert_eq!(window(0, 5, None, 10), (0, 0));
    assert_eq!(window(100, 0, Some(3), 10), (0, 10));
    assert_eq!(window(100, 0, Some(10), 10), (1, 11));
    assert_eq!(window(100, 50, Some(20), 10), (20, 30));
    // An offset past the last page shows the last page.
    assert_eq!(window(100, 95, None, 10), (90, 100));
    assert_eq!(window(100, 500, Some(99), 10), (90, 100));
    assert_eq!(window(100, 95, Some(96), 10), (90, 100));
    // A pane grown taller than its rows (a resize) shows them all.
    assert_eq!(window(22, 5, Some(6), 48), (0, 22));
    assert_eq!(window(5, 0, Some(4), 0), (4, 5));
}
