//! The Calls view (`c`): first page then the whole answer, the filter line
//! with its counts and completion popup, quick filters, the record pane,
//! jumping to a call.

use super::*;

/// Ids of the records the Calls view shows, in order.
fn call_ids(app: &App) -> Vec<String> {
    app.calls
        .records()
        .iter()
        .map(|r| r.tool_use_id.clone())
        .collect()
}

#[test]
fn snapshot_calls_view() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.view, View::Calls);
    assert!(app.calls.editing, "an empty line is typed into at once");
    keys(&mut app, r#"tool:Bash input:"rm -rf""#);
    key(&mut app, KeyCode::Enter);
    assert!(!app.calls.editing);
    // The six `rm -rf build/` Bash calls of the hooks runs, newest first
    // (recounted with python over real-cc-2.1.332/*/projects).
    assert_eq!(
        call_ids(&app),
        vec![
            "toolu_01dITZXnpQCb3Ps2Oi3ymZlZ",
            "toolu_01lPnLRRd9uBMLDeG9k70nzJ",
            "toolu_01LvJaZxCcYuYq7WyGj8bfHh",
            "toolu_0138h77ojpT1t3A4y1yWKgjr",
            "toolu_01GFEgALJm405nI2WctBocud",
            "toolu_017ewsxv2HgMNxq34i6Vs79k",
        ]
    );
    insta::assert_snapshot!("calls_rm_rf_80x24", render(&mut app, 80, 24));
    insta::assert_snapshot!("calls_rm_rf_160x48", render(&mut app, 160, 48));
}

/// A call's row too wide for the list ends in `…` (in an 80-column
/// terminal the denied `git push origin main` of hooks_c8_outcomes was cut
/// silently after `origin ma`); wide enough, it is whole.
#[test]
fn a_calls_row_too_wide_ends_in_an_ellipsis() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:Bash is:error");
    key(&mut app, KeyCode::Enter);
    // The denied push's row at each width.
    let mut push_row = |width, height| {
        render(&mut app, width, height)
            .lines()
            .find(|l| l.contains("07535b09"))
            .map(str::to_string)
            .expect("the denied push")
    };
    let row = push_row(60, 24);
    assert!(row.ends_with("…┃"), "{row}");
    assert!(!row.contains("git push origin main"), "{row}");
    let row = push_row(160, 48);
    assert!(row.contains("git push origin main"), "{row}");
    assert!(!row.contains('…'), "{row}");
}

/// On a heavy user's list the query thread sends the newest records first
/// (`Msg::FoundFirst`): they are shown at once, the count says more is
/// coming, and the whole answer replaces them with the selection kept.
#[test]
fn calls_view_shows_a_first_page_then_the_whole_answer() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:Bas");
    // The last key's query (one per key) is answered here, not served.
    let action = keymap::action_for(
        KeyEvent::new(KeyCode::Char('h'), KeyModifiers::NONE),
        app.key_mode(),
    )
    .expect("typing is bound");
    app.handle(action);
    let Some(Request::Find {
        generation, query, ..
    }) = app
        .take_requests()
        .into_iter()
        .find(|r| matches!(r, Request::Find { .. }))
    else {
        panic!("no query asked");
    };
    let refs: Vec<_> = app.ctx.sessions.iter().map(|e| e.sref.clone()).collect();
    let mut first = query.clone();
    first.limit = 3;
    let page = hookscope_core::query::Finder::new(&refs, &first)
        .run()
        .map_err(|e| e.message().to_string());
    app.apply(Msg::FoundFirst {
        generation,
        result: page,
    });
    assert_eq!(app.calls.records().len(), 3);
    assert!(app.calls.running);
    assert_eq!(
        crate::tui::calls::count_text(&app.calls),
        "the newest 3 calls so far · searching…"
    );
    app.calls.sel = 1;
    let picked = call_ids(&app)[1].clone();
    let whole = hookscope_core::query::Finder::new(&refs, &query)
        .run()
        .map_err(|e| e.message().to_string());
    app.apply(Msg::Found {
        generation,
        result: whole,
    });
    // The 52 Bash calls of real-cc-2.1.332/*/projects; the same call stays
    // selected.
    assert_eq!(app.calls.records().len(), 52);
    assert_eq!(call_ids(&app)[app.calls.sel], picked);
    assert_eq!(crate::tui::calls::count_text(&app.calls), "52 calls");
}

#[test]
fn calls_filter_counts_completes_and_reports_errors() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    // Every call of the 2.1.332 projects: 121 tool_use blocks.
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(121));
    keys(&mut app, "tool:Ba");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.filter, "tool:Bash ");
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(52));
    keys(&mut app, "is:e");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.filter, "tool:Bash is:error ");
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(10));
    // A line that is not a query (yet): the message, and the last good
    // answer stays listed.
    keys(&mut app, "\"");
    assert!(
        app.calls
            .error
            .as_deref()
            .is_some_and(|e| e.contains("unclosed quote")),
        "{:?}",
        app.calls.error
    );
    assert_eq!(app.calls.records().len(), 10);
    key(&mut app, KeyCode::Backspace);
    assert_eq!(app.calls.error, None);
    // Ambiguous: the candidates are listed and the line kept.
    keys(&mut app, "agent:c");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.filter, "tool:Bash is:error agent:c");
    assert_eq!(
        app.calls.completions,
        vec!["agent:claude-code ", "agent:codex "]
    );
    assert!(
        app.calls
            .error
            .as_deref()
            .is_some_and(|e| e.contains("unknown agent")),
        "{:?}",
        app.calls.error
    );
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, "tol:Bash");
    assert!(
        app.calls
            .error
            .as_deref()
            .is_some_and(|e| e.contains("unknown key tol:"))
    );
    let text = render(&mut app, 80, 24);
    assert!(text.contains("unknown key tol:"), "{text}");
    // The rows kept are said to be the last valid line's.
    assert!(
        text.contains(" Calls · of the last valid filter "),
        "{text}"
    );
    // `tool:` + Tab lists the 13 tool names of these sessions, shown over
    // the line's "needs a value" error.
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, "tool:");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.completions.len(), 13);
    let text = render(&mut app, 160, 48);
    assert!(text.contains(" Tab: tool:Agent   tool:Bash "), "{text}");
    // Taking one clears the list.
    keys(&mut app, "Wr");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.filter, "tool:Write ");
    assert!(app.calls.completions.is_empty());
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Browse);
}

#[test]
fn enter_on_a_subagent_call_opens_it_in_the_timeline() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:Bash input:\"ls -la\"");
    key(&mut app, KeyCode::Enter);
    // One in the tools session, one inside the subagent session's Agent.
    assert_eq!(
        call_ids(&app),
        vec![
            "toolu_01dxohHpq0K1OceRQg5RT4vA",
            "toolu_01dWuUXlkTZoL5K7RXhzXTZs"
        ]
    );
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Browse);
    assert_eq!(app.focus, Pane::Timeline);
    let session = app.ctx.session().cloned().expect("opened");
    assert_eq!(session.id, "8bb2dece-a24f-43d4-80d6-3ee9a889b550");
    let item = app.timeline.sel.expect("a selection");
    let call = crate::tui::timeline::event_of(&session, item)
        .and_then(|e| e.as_tool_call())
        .expect("a call");
    assert_eq!(call.tool_use_id, "toolu_01dWuUXlkTZoL5K7RXhzXTZs");
    assert!(matches!(
        item,
        Item::Event {
            thread: Thread::Sub(_),
            ..
        }
    ));
    // Its Agent spawn is expanded, so the row is visible.
    assert!(app.timeline.rows(&app.ctx).iter().any(|r| r.item == item));
    assert_eq!(app.timeline.expanded.len(), 1);
    // Esc goes back to the Calls view, on the same row; from the Detail
    // too, the next time.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Calls);
    assert_eq!(app.calls.sel, 1);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Browse);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Detail);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Calls);
    // Once back, Esc in the Timeline is the Timeline's own again.
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.view, View::Browse);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Browse);
}

#[test]
fn quick_filters_from_the_timeline_and_in_the_calls_view() {
    let mut app = opened(TOOLS);
    select_call(&mut app, "Edit");
    key(&mut app, KeyCode::Char('f'));
    assert_eq!(app.view, View::Calls);
    assert_eq!(
        app.calls.filter,
        "input:/home/dev/work/tools/src/new_module.py"
    );
    // The Write that created it and the Edit (recounted: both inputs name it).
    let mut ids = call_ids(&app);
    ids.sort();
    assert_eq!(
        ids,
        vec![
            "toolu_013HpL8FygzRwJbROaHPuzI9",
            "toolu_01FCunre3Vlg1cQJNqbvZlnu"
        ]
    );
    // Same tool from the selected record (the newest, the Edit).
    key(&mut app, KeyCode::Char('t'));
    assert_eq!(
        app.calls.filter,
        "input:/home/dev/work/tools/src/new_module.py tool:Edit"
    );
    assert_eq!(call_ids(&app), vec!["toolu_01FCunre3Vlg1cQJNqbvZlnu"]);
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(
        app.calls.filter,
        "input:/home/dev/work/tools/src/new_module.py tool:Edit is:error"
    );
    assert!(call_ids(&app).is_empty());
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(
        app.calls.filter,
        "input:/home/dev/work/tools/src/new_module.py tool:Edit"
    );
    // Back to the timeline; errors of the selected tool from there.
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.view, View::Browse);
    select_call(&mut app, "Bash");
    // `t` keeps your place: the session's first Bash call, not the newest
    // of the five, is selected in the answer.
    key(&mut app, KeyCode::Char('t'));
    assert_eq!(app.calls.records().len(), 5);
    assert_eq!(
        app.calls.selected().map(|r| r.tool_use_id.as_str()),
        Some("toolu_01tL383BVJdaI34KPxGfiRLZ")
    );
    key(&mut app, KeyCode::Char('c'));
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(app.calls.filter, "tool:Bash is:error");
    assert_eq!(call_ids(&app), vec!["toolu_01WS4HYZrMsYywO1CkB0np7Q"]);
    // Without a selected call there is nothing to filter by.
    key(&mut app, KeyCode::Char('c'));
    app.focus = Pane::Sessions;
    key(&mut app, KeyCode::Char('t'));
    assert_eq!(app.view, View::Browse);
    assert!(app.ctx.message.is_some());
}

#[test]
fn calls_view_mouse_and_record_pane() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:Bash");
    key(&mut app, KeyCode::Enter);
    // 80x24: the record (16 lines) is taller than its pane, so it scrolls.
    render(&mut app, 80, 24);
    let a = app.calls.areas();
    // Wheel over the list moves the selection three rows.
    app.handle(Action::ScrollAt {
        column: a.list.x + 2,
        row: a.list.y + 2,
        down: true,
    });
    assert_eq!(app.calls.sel, 3);
    // A click on the fifth row selects it.
    app.handle(Action::ClickAt {
        column: a.list.x + 2,
        row: a.list.y + 1 + 4,
    });
    assert_eq!(app.calls.sel, 4);
    // Tab gives the keys to the record pane; j scrolls it, not the list.
    key(&mut app, KeyCode::Tab);
    assert!(app.calls.focus_detail);
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.calls.sel, 4);
    assert_eq!(app.calls.detail_scroll, 1);
    key(&mut app, KeyCode::Esc);
    assert!(!app.calls.focus_detail);
    assert_eq!(app.view, View::Calls);
    // A click on the filter line goes back to typing.
    app.handle(Action::ClickAt {
        column: a.filter.x + 3,
        row: a.filter.y + 1,
    });
    assert!(app.calls.editing);
}

#[test]
fn reopening_the_calls_view_types_into_the_filter_line() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:Bash");
    key(&mut app, KeyCode::Enter);
    assert!(!app.calls.editing);
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.view, View::Browse);
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.view, View::Calls);
    assert!(app.calls.editing, "the line has the keys again");
    // So `t`, `e`, `l` are typed, not quick filters.
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, "tool:Edit");
    assert_eq!(app.calls.filter, "tool:Edit");
    // The 2.1.332 projects' Edit calls (recounted with python: 9 tool_use
    // blocks named Edit in real-cc-2.1.332/*/projects/**/*.jsonl, the
    // subagent files included).
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(9));
}

#[test]
fn tab_candidates_popup_moves_takes_and_closes() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:");
    key(&mut app, KeyCode::Tab);
    assert!(app.calls.completing());
    assert_eq!(app.key_mode(), keymap::KeyMode::Completion);
    assert_eq!(app.calls.completions.len(), 13);
    assert_eq!(app.calls.completion_sel, Some(0));
    insta::assert_snapshot!("calls_completion_popup_80x24", render(&mut app, 80, 24));
    // Tab and ↓ move on, Shift-Tab and ↑ back; the list wraps.
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Down);
    assert_eq!(app.calls.completion_sel, Some(2));
    key_mod(&mut app, KeyCode::BackTab, KeyModifiers::SHIFT);
    assert_eq!(app.calls.completion_sel, Some(1));
    key(&mut app, KeyCode::Up);
    key(&mut app, KeyCode::Up);
    assert_eq!(app.calls.completion_sel, Some(12));
    // The last of the 13, scrolled into view, at the wide size.
    insta::assert_snapshot!(
        "calls_completion_popup_last_160x48",
        render(&mut app, 160, 48)
    );
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    assert_eq!(app.calls.completion_sel, Some(1));
    // Enter takes the highlighted name (sorted: Agent, Bash, …).
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.calls.filter, "tool:Bash ");
    assert!(!app.calls.completing());
    assert!(app.calls.editing);
    assert_eq!(app.calls.result.as_ref().map(|r| r.matched), Some(52));
    // Esc closes the list and keeps the line.
    keys(&mut app, "is:");
    key(&mut app, KeyCode::Tab);
    assert!(app.calls.completing());
    key(&mut app, KeyCode::Esc);
    assert!(!app.calls.completing());
    assert_eq!(app.calls.filter, "tool:Bash is:");
    assert!(app.calls.editing);
}

/// `ruled:` reads the decision log in the query thread, not while the
/// line is checked on the UI thread: the line validates without it.
#[test]
fn ruled_leaves_the_decision_log_to_the_query_thread() {
    let query = crate::tui::calls::prepare("ruled:no-such-rule", chrono::Utc::now())
        .expect("valid without reading the log");
    let decided = query.decided.expect("decided_by");
    assert_eq!(decided.rule, "no-such-rule");
    assert!(!decided.resolved);
    assert!(decided.calls.is_empty());
}

#[test]
fn no_session_note_goes_with_its_line() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "session:zzz");
    assert!(
        crate::tui::calls::count_text(&app.calls).contains("no session zzz"),
        "{}",
        crate::tui::calls::count_text(&app.calls)
    );
    // A line that is not a query yet keeps the last records but not the
    // note about a line no longer there.
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, "tool:");
    assert!(app.calls.error.is_some());
    assert!(!crate::tui::calls::count_text(&app.calls).contains("no session"));
}

/// A Codex rollout with one `exec_command` call (as tests/cli/cli.rs builds).
fn codex_rollout(id: &str, time: &str, cmd: &str) -> String {
    let lines = [
        serde_json::json!({"timestamp": time, "type": "session_meta",
            "payload": {"id": id, "timestamp": time, "cwd": "/w", "cli_version": "0.171.0"}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "list files"}]}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "function_call", "name": "exec_command",
                "arguments": serde_json::json!({"cmd": cmd}).to_string(), "call_id": format!("call_{cmd}")}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": format!("call_{cmd}"),
                "output": "Process exited with code 0\nOutput:\n"}}),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn the_calls_list_names_time_based_ids_by_unique_prefixes() {
    // Two Codex sessions whose UUIDv7 ids share 12 hex chars: an 8-char
    // cut names both; the list shows each by its shortest unique prefix.
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = dir.path().join("sessions/2026/11/29");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    let a = "019ad8e1-4b2c-7a10-8f00-0123456789ab";
    let b = "019ad8e1-4b2c-7d55-9e11-fedcba987654";
    for (id, time, cmd) in [
        (a, "2026-11-29T18:00:01Z", "pwd"),
        (b, "2026-11-29T18:00:02Z", "ls"),
    ] {
        std::fs::write(
            sessions.join(format!("rollout-2026-11-29T18-00-00-{id}.jsonl")),
            codex_rollout(id, time, cmd),
        )
        .expect("write rollout");
    }
    let mut app = app_for(dir.path().to_str().expect("utf-8 temp path"));
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:exec_command");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.calls.records().len(), 2);
    let text = render(&mut app, 160, 48);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("exec_command") && l.contains("11-29 18:00"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows[0].contains("11-29 18:00 019ad8e1-4b2c-7d bash  exec_command [codex] ls"),
        "{text}"
    );
    assert!(
        rows[1].contains("11-29 18:00 019ad8e1-4b2c-7a bash  exec_command [codex] pwd"),
        "{text}"
    );
}

/// The Calls view's session column over long non-UUID ids: 12 columns
/// (`tool-call-s…`), not the whole id; the record pane names it whole.
#[test]
fn calls_view_caps_long_non_uuid_session_ids() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = dir.path().join("sessions/2026/11/29");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    let id = "tool-call-session-id";
    let time = "2026-11-29T18:00:01Z";
    let lines = [
        serde_json::json!({"timestamp": time, "type": "session_meta",
            "payload": {"id": id, "timestamp": time, "cwd": "/w", "cli_version": "0.171.0"}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "list files"}]}}),
        serde_json::json!({"timestamp": time, "type": "response_item",
            "payload": {"type": "function_call", "name": "exec_command",
                "arguments": serde_json::json!({"cmd": "pwd"}).to_string(), "call_id": "call_1"}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(sessions.join("rollout-2026-11-29T18-00-00-x.jsonl"), text).expect("write");
    let mut app = app_for(dir.path().to_str().expect("UTF-8 temp path"));
    key(&mut app, KeyCode::Char('c'));
    let screen = render(&mut app, 80, 24);
    let row = screen
        .lines()
        .find(|l| l.contains("exec_command") && l.contains("pwd"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(row.contains(" tool-call-s… "), "{row}");
    assert!(!row.contains(id), "{row}");
    assert!(
        screen.contains(&format!("session: {id} (codex)")),
        "{screen}"
    );
}

/// `tool:Ba` + Tab lists the names that fit and extends the line to their
/// common prefix; a second Tab on `tool:Bash` (a full name) takes it and
/// closes the list, as does Tab on `tool:Bash` typed in full.
#[test]
fn tab_on_a_full_name_takes_it() {
    let mut app = app_for("tests/corpus");
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:Ba");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.calls.filter, "tool:Bash");
    assert_eq!(
        app.calls.completions,
        vec!["tool:Bash ", "tool:BashOutput "]
    );
    key(&mut app, KeyCode::Tab);
    assert!(!app.calls.completing());
    assert_eq!(app.calls.filter, "tool:Bash ");

    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    keys(&mut app, "tool:bash");
    key(&mut app, KeyCode::Tab);
    assert!(!app.calls.completing());
    assert_eq!(app.calls.filter, "tool:Bash ");
}

/// The settle flag of every Calls query asked by `action`.
fn asked(app: &mut App, code: KeyCode) -> Vec<bool> {
    let action =
        keymap::action_for(KeyEvent::new(code, KeyModifiers::NONE), app.key_mode()).expect("bound");
    app.handle(action);
    app.take_requests()
        .into_iter()
        .filter_map(|r| match r {
            Request::Find { settle, .. } => Some(settle),
            _ => None,
        })
        .collect()
}

/// Typing mid-word asks to wait for a pause; a space (a finished word),
/// Backspace to an empty line, and Enter on a held line ask at once.
#[test]
fn a_query_typed_mid_word_waits_for_a_pause() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    app.take_requests();
    assert_eq!(asked(&mut app, KeyCode::Char('t')), vec![true]);
    assert_eq!(asked(&mut app, KeyCode::Char('o')), vec![true]);
    assert_eq!(asked(&mut app, KeyCode::Backspace), vec![true]);
    assert_eq!(asked(&mut app, KeyCode::Backspace), vec![false]);
    for c in "tool:Bash".chars() {
        let got = asked(&mut app, KeyCode::Char(c));
        if app.calls.filter == "tool:" {
            // Not a query yet: nothing is asked, the line says why.
            assert_eq!(got, Vec::<bool>::new());
            assert!(app.calls.error.is_some());
        } else {
            assert_eq!(got, vec![true], "after {:?}", app.calls.filter);
        }
    }
    assert_eq!(asked(&mut app, KeyCode::Char(' ')), vec![false]);
    assert_eq!(asked(&mut app, KeyCode::Char('i')), vec![true]);
    assert_eq!(asked(&mut app, KeyCode::Enter), vec![false]);
    assert!(!app.calls.editing);
    // Nothing held: leaving the line asks nothing again.
    key(&mut app, KeyCode::Char('/'));
    app.take_requests();
    if app.calls.editing {
        assert_eq!(asked(&mut app, KeyCode::Enter), Vec::<bool>::new());
    }
}

/// A `/` typed first (the key that starts typing elsewhere; the Calls view
/// opens typing) is part of the first word: when nothing matches, the
/// empty list says so.
#[test]
fn calls_view_a_leading_slash_that_finds_nothing_says_why() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    for c in "/tool:Bash is:error".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let screen = render(&mut app, 200, 30);
    // (wrapped in the list pane)
    assert!(
        screen.contains(
            "(no calls match: a word starting with / is searched as text; the view types in the filter already, so leave"
        ) && screen.contains("out the /)"),
        "{screen}"
    );
}

/// `hook:Stop` finds no call (Stop firings are never on one), and the
/// empty list says where they are; a tool event that finds nothing says
/// only that.
#[test]
fn calls_view_hook_on_an_event_not_on_calls_says_where_it_is() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    for c in "hook:Stop".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let screen = render(&mut app, 200, 30);
    assert!(
        screen.contains(
            "(no calls match: Stop firings are not on tool calls; H in a session's Timeline shows them)"
        ),
        "{screen}"
    );
    key(&mut app, KeyCode::Char('/'));
    for _ in 0.."hook:Stop".len() {
        key(&mut app, KeyCode::Backspace);
    }
    // A name that is no event says so.
    for c in "hook:PreToolUze".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let screen = render(&mut app, 200, 30);
    // (wrapped in the list pane)
    assert!(
        screen.contains(
            "(no calls match: PreToolUze names no hook event; hook: takes PreToolUse, PostToolUse,"
        ) && screen.contains("PermissionDenied or a hookName)"),
        "{screen}"
    );
    key(&mut app, KeyCode::Char('/'));
    for _ in 0.."hook:PreToolUze".len() {
        key(&mut app, KeyCode::Backspace);
    }
    for c in "hook:PreToolUse:Nope".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let screen = render(&mut app, 200, 30);
    assert!(screen.contains("(no calls match)"), "{screen}");
    assert!(!screen.contains("not on tool calls"), "{screen}");
}

/// While the index is first built, an answer over the sessions indexed so
/// far says so: the list's title, its count, and, when it is empty, a line
/// that does not read as "no calls match"; the same line asked again keeps
/// the selected call wherever it moved.
#[test]
fn an_answer_over_the_sessions_indexed_so_far_says_so() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('c'));
    // (The helper answers each key's query at once, over every session.)
    keys(&mut app, "tool:Bash");
    let generation = app.calls.generation;
    let total = app.ctx.sessions.len();
    let whole = app.calls.result.clone().expect("an answer");
    // 52 Bash calls; the second newest selected.
    assert_eq!(whole.records.len(), 52);
    app.calls.sel = 1;
    let picked = call_ids(&app)[1].clone();

    // The same line answered over none of the sessions yet.
    app.apply(Msg::Scope {
        generation,
        searched: 0,
        total,
    });
    let mut none = whole.clone();
    none.records.clear();
    none.matched = 0;
    app.apply(Msg::Found {
        generation,
        result: Ok(none),
    });
    assert_eq!(
        crate::tui::calls::count_text(&app.calls),
        format!("0 calls · in 0 of {total} sessions, the rest indexing")
    );
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains(" Calls · in the sessions indexed so far (Enter asks again) "),
        "{screen}"
    );
    assert!(
        screen.contains(&format!(
            "(none in the 0 of {total} sessions indexed so far; asked again every few seconds"
        )),
        "{screen}"
    );
    assert!(!screen.contains("(no calls match)"), "{screen}");

    // Asked again once indexing ended: every session, the note gone. The
    // records answer with the picked call moved (the newest one dropped):
    // it stays selected.
    app.calls.result = Some(whole.clone());
    app.calls.sel = 1;
    app.apply(Msg::Scope {
        generation,
        searched: total,
        total,
    });
    let mut moved = whole;
    moved.records.remove(0);
    app.apply(Msg::Found {
        generation,
        result: Ok(moved),
    });
    assert_eq!(call_ids(&app)[app.calls.sel], picked);
    assert_eq!(app.calls.sel, 0);
    assert_eq!(
        crate::tui::calls::count_text(&app.calls),
        "showing 51 of 52 calls"
    );
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains(" Calls "), "{screen}");
    assert!(!screen.contains("indexed so far"), "{screen}");
}

/// A call no summary field applies to (OpenCode's `invalid`: the model
/// named a tool that does not exist) shows its input in its row, as
/// `find`'s INPUT column does, rather than nothing.
#[test]
fn a_call_without_a_summary_shows_its_input() {
    let mut app = app_for("tests/corpus/real-opencode-1.18.33");
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "tool:invalid");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.calls.records().len(), 1);
    let screen = render(&mut app, 200, 30);
    let row = screen
        .lines()
        .find(|l| l.contains(" invalid "))
        .expect("the invalid call's row");
    assert!(
        row.contains(r#"[opencode] {"tool":"frobnicate","error":"Model tried"#),
        "{row}"
    );
}
