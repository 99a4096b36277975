//! The detail pane: an Edit's diff, Codex `apply_patch`, huge Bash outputs
//! and lines, a depth-2 spawn, turn counts, the detail search, the
//! breadcrumb.

use super::*;

#[test]
fn snapshot_detail_of_edit() {
    let mut app = opened(TOOLS);
    select_call(&mut app, "Edit");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    insta::assert_snapshot!("detail_edit_160x48", render(&mut app, 160, 48));
    render(&mut app, 80, 24);
    // Jump to the diff with the detail search.
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "── diff");
    key(&mut app, KeyCode::Enter);
    insta::assert_snapshot!("detail_edit_80x24", render(&mut app, 80, 24));
}

#[test]
fn codex_apply_patch_through_exec_command_shows_its_diff() {
    let rollout = "tests/corpus/real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl";
    let mut app = opened(rollout);
    let session = app.ctx.session().cloned().expect("loaded");
    // The second patch: it updates hello.py (recounted from the rollout).
    let item = app
        .timeline
        .rows(&app.ctx)
        .into_iter()
        .map(|r| r.item)
        .filter(|i| {
            crate::tui::timeline::event_of(&session, *i)
                .and_then(|e| e.as_tool_call())
                .is_some_and(|c| c.summary().starts_with("apply_patch"))
        })
        .nth(1)
        .expect("two apply_patch calls");
    app.timeline.sel = Some(item);
    key(&mut app, KeyCode::Enter);
    let text = detail_text(&app);
    let at = text
        .iter()
        .position(|l| l == "── Diff (apply_patch) ──")
        .expect("a diff section");
    // A Codex call's status says where it comes from.
    assert_eq!(
        format!("{}{}", text[0], text[1]),
        "exec_command  bash  ✓ ok (from the exit code; not reliable)"
    );
    // Drawn from the core's diff model: the file, then its `@@` section.
    assert_eq!(text[at + 1], "update hello.py");
    assert_eq!(text[at + 2], "@@");
    assert!(
        text.iter().any(|l| l.starts_with("-    return ")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|l| l.starts_with("+    return ")),
        "{text:?}"
    );
}

/// A one-call Claude Code session in `dir`: a prompt, a Bash `tool_use`
/// running `command`, and its `tool_result` with `output`. Returns the
/// file's path.
fn one_bash_call(dir: &std::path::Path, command: &str, output: &str) -> String {
    let id = "11111111-2222-4333-8444-555555555555";
    let lines = [
        serde_json::json!({
            "type": "user", "uuid": "u1", "parentUuid": null, "sessionId": id,
            "isSidechain": false, "cwd": "/tmp/hostile", "timestamp": "2026-11-29T18:00:00.000Z",
            "message": {"role": "user", "content": "run it"}
        }),
        serde_json::json!({
            "type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": id,
            "isSidechain": false, "cwd": "/tmp/hostile", "timestamp": "2026-11-29T18:00:01.000Z",
            "message": {"role": "assistant", "model": "claude-test", "content": [
                {"type": "tool_use", "id": "toolu_hostile", "name": "Bash",
                 "input": {"command": command}}
            ]}
        }),
        serde_json::json!({
            "type": "user", "uuid": "r1", "parentUuid": "a1", "sessionId": id,
            "isSidechain": false, "cwd": "/tmp/hostile", "timestamp": "2026-11-29T18:00:02.000Z",
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_hostile", "content": output}
            ]}
        }),
    ];
    let path = dir.join(format!("{id}.jsonl"));
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&path, text.join("\n") + "\n").expect("write the session");
    path.to_string_lossy().into_owned()
}

/// Opens `path`, selects its Bash call and focuses Detail.
fn detail_of_bash(path: &str) -> App {
    let mut app = opened(path);
    select_call(&mut app, "Bash");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    app
}

#[test]
fn a_10_mb_output_builds_a_bounded_number_of_lines() {
    let dir = tempfile::tempdir().expect("a temp dir");
    // 10 MB as 200,000 lines of 49 characters and a newline.
    let line = "x".repeat(49);
    let output = format!("{line}\n").repeat(200_000);
    assert_eq!(output.len(), 10_000_000);
    let path = one_bash_call(dir.path(), "yes | head", &output);
    let mut app = detail_of_bash(&path);
    for width in [160u16, 80, 1] {
        render(&mut app, width, 48);
        let lines = app.detail.lines().len();
        let text = detail_text(&app);
        if width == 160 {
            // 2,000 output lines (one row each at this width) and the
            // fields above them: well under 2,100 rows.
            assert!(lines < 2_100, "{lines} rows at width {width}");
            assert!(
                text.iter()
                    .any(|l| l == "… 198000 more lines (9.4 MiB) — press o to show more"),
                "{:?}",
                &text[text.len() - 3..]
            );
        } else if width == 80 {
            // Two panes: Detail's 42 columns wrap each 49-character line
            // to two rows.
            assert!((4_000..4_100).contains(&lines), "{lines} rows at width 80");
        } else {
            // Width 1: the wrapped rows stop at 256 Ki, with a line that
            // says so (10 MB would be ten million rows).
            assert!(lines <= 262_145, "{lines} rows at width 1");
        }
    }
    // o shows four times more lines, still bounded.
    render(&mut app, 160, 48);
    key(&mut app, KeyCode::Char('o'));
    let lines = app.detail.lines().len();
    assert!((8_000..8_100).contains(&lines), "{lines} rows after o");
}

#[test]
fn a_single_10_mb_output_line_at_width_1_stays_bounded() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let output = "y".repeat(10_000_000);
    let path = one_bash_call(dir.path(), "cat big", &output);
    let mut app = detail_of_bash(&path);
    render(&mut app, 1, 24);
    // The output is cut at 256 KiB, and the rows at 256 Ki in all.
    assert!(app.detail.lines().len() <= 262_145);
    render(&mut app, 160, 48);
    let text = detail_text(&app);
    assert!(
        text.iter()
            .any(|l| l == "… 1 more line (9.3 MiB) — press o to show more"),
        "{:?}",
        &text[text.len() - 3..]
    );
}

#[test]
fn a_huge_bash_line_is_parsed_off_the_ui_thread_once() {
    let dir = tempfile::tempdir().expect("a temp dir");
    // 150,000 pipeline stages, 900 KB: seconds of tree-sitter.
    let command = vec!["cat a"; 150_000].join(" | ");
    assert_eq!(command.len(), 150_000 * 5 + 149_999 * 3);
    let path = one_bash_call(dir.path(), &command, "ok");
    let mut app = app_for(&path);
    app.handle(Action::Enter);
    run_requests(&mut app); // the session loads (its first row is the turn)
    app.handle(Action::Down); // onto the Bash call
    let requests = app.take_requests();
    let [
        Request::ParseBash {
            key,
            command: asked,
        },
    ] = requests.as_slice()
    else {
        panic!("one parse request, got {requests:?}");
    };
    assert_eq!(key.0, "toolu_hostile");
    assert_eq!(asked.len(), command.len());
    let text = |app: &App| -> Vec<String> { detail_text(app) };
    assert!(text(&app).iter().any(|l| l == "parsing…"));
    // Moving away and back asks nothing new while the answer is pending.
    app.handle(Action::Up);
    app.handle(Action::Down);
    assert_eq!(app.take_requests(), vec![]);
    // The worker's answer is folded in and kept per call.
    app.apply(Msg::Parsed {
        key: key.clone(),
        line: hookscope_core::shell::parse_command_line("cat a | cat a"),
    });
    assert!(text(&app).iter().any(|l| l == "runs 2 simple call(s):"));
    app.handle(Action::Up);
    app.handle(Action::Down);
    assert_eq!(app.take_requests(), vec![]);
    assert!(text(&app).iter().any(|l| l == "runs 2 simple call(s):"));
}

#[test]
fn a_depth_2_call_names_every_spawn_and_the_subagent_its_model() {
    // The subagent session's Explore subagent (index 2, "Find functions"),
    // re-linked in memory as if the general-purpose one (3, "Inspect
    // repository") had spawned it from its Read call: a depth-2 call (no
    // corpus file nests subagents). Types, descriptions, agent ids and the
    // model are the files' own.
    let mut app = opened(SUBAGENT);
    let mut session = (**app.ctx.session().expect("loaded")).clone();
    relink(&mut session, "toolu_01RNYJFbxX2Ngbhqr7ThQaWg", None);
    relink(&mut session, "toolu_01DIgoxeg8ZxqYQ6XNQPwD7s", Some(2));
    let tree = hookscope_core::transcript::spawns::SpawnTree::new(&session);
    assert_eq!(crate::tui::context::spawn_chain(&tree, 2), vec![3, 2]);
    app.apply(Msg::Loaded {
        index: 0,
        result: Ok(std::sync::Arc::new(session)),
    });
    assert!(
        app.timeline
            .select_call("toolu_01jnpTxdhXKCZgdSENXyt8je", &app.ctx)
    );
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    let text = render(&mut app, 160, 48);
    assert!(
        text.contains(
            "turn 1 › general-purpose “Inspect repository” › Explore “Find functions” › Bash"
        ),
        "{text}"
    );
    let detail: Vec<String> = app
        .detail
        .lines()
        .iter()
        .map(crate::tui::widgets::text::line_text)
        .collect::<Vec<_>>();
    let joined = detail.concat();
    assert!(
        joined.contains(
            "of subagent general-purpose “Inspect repository” › Explore “Find functions”"
        ),
        "{joined}"
    );
    // The spawning Read call: the Subagent section names the model, the
    // agent id and the path of spawns.
    assert!(
        app.timeline
            .select_call("toolu_01DIgoxeg8ZxqYQ6XNQPwD7s", &app.ctx)
    );
    render(&mut app, 160, 48);
    let detail = detail_text(&app);
    let at = detail
        .iter()
        .position(|l| l == "── Subagent ──")
        .expect("a Subagent section");
    assert_eq!(
        detail[at + 1..at + 5],
        [
            "type: Explore",
            "description: Find functions",
            "agent_id: a460e426666c15a15",
            "model: claude-opus-5-5",
        ]
    );
    assert!(
        detail.concat().contains(
            "spawned via: general-purpose “Inspect repository” › Explore “Find functions”"
        ),
        "{detail:?}"
    );
    insta::assert_snapshot!("detail_depth_2_spawn_160x48", render(&mut app, 160, 48));
    insta::assert_snapshot!("detail_depth_2_spawn_80x24", render(&mut app, 80, 24));
}

#[test]
fn the_turn_detail_and_the_session_row_count_alike() {
    // The real subagent session (recounted with python): 4 Agent calls in
    // turn 1 of the main file, 5 calls in its 4 subagent files, no
    // `is_error: true` result. The turn's counts include its subagents'
    // calls, so they equal the session's (the core's one definition).
    let mut app = opened(SUBAGENT);
    let text = render(&mut app, 160, 48);
    assert!(text.contains("1 turn, 9 calls, 0 err, 4 sub"), "{text}");
    app.timeline.sel = Some(Item::Turn(0));
    key(&mut app, KeyCode::Enter);
    render(&mut app, 160, 48);
    let detail = detail_text(&app);
    assert!(
        detail
            .contains(&"counts: 9 tool calls (5 in subagents), 0 errors, 4 subagents".to_string()),
        "{detail:?}"
    );
    let summary = app.ctx.sessions[0].summary.clone().expect("summarized");
    assert_eq!(
        (summary.tool_calls, summary.errors, summary.subagents),
        (9, 0, 4)
    );
}

/// Selects the call whose one-line summary starts with `prefix`.
fn select_call_summary(app: &mut App, prefix: &str) {
    let session = app.ctx.session().cloned().expect("loaded");
    let item = app
        .timeline
        .rows(&app.ctx)
        .into_iter()
        .find(|r| {
            crate::tui::timeline::event_of(&session, r.item)
                .and_then(|e| e.as_tool_call())
                .is_some_and(|c| c.summary().starts_with(prefix))
        })
        .map(|r| r.item);
    assert!(item.is_some(), "no call {prefix}");
    app.timeline.sel = item;
}

/// The Detail title's `(k/n)` as drawn.
fn detail_count(screen: &str) -> String {
    let at = screen.find("Detail /echo (").expect("the search title");
    let rest = &screen[at + "Detail /echo (".len()..];
    rest[..rest.find(')').expect("closing paren")].to_string()
}

/// The line (row of the screen) and text of the cells drawn in the
/// current-match style (bold, underlined, reversed in the colourless theme).
fn current_match_cells(app: &mut App, width: u16, height: u16) -> Vec<(u16, String)> {
    use ratatui::style::Modifier;
    app.handle(Action::Resize { width, height });
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal.draw(|f| draw(f, app)).expect("draw");
    let buffer = terminal.backend().buffer();
    let want = Modifier::REVERSED | Modifier::BOLD | Modifier::UNDERLINED;
    let mut out: Vec<(u16, String)> = Vec::new();
    for y in 0..height {
        let mut run = String::new();
        for x in 0..width {
            let cell = &buffer[(x, y)];
            if cell.modifier.contains(want) {
                run.push_str(cell.symbol());
            } else if !run.is_empty() {
                out.push((y, std::mem::take(&mut run)));
            }
        }
        if !run.is_empty() {
            out.push((y, run));
        }
    }
    out
}

/// `n`/`N` step a current match over every occurrence of `/echo` in the
/// Detail of `Bash sh -c 'echo partial…'` (tools session), wrapping; the
/// title counts occurrences (recounted over the drawn lines); each step
/// shows exactly one current match, on screen, at 200x50 (no scrolling)
/// and at 80x24 (scrolling as needed).
#[test]
fn detail_search_steps_through_every_occurrence() {
    for (width, height) in [(200u16, 50u16), (80, 24)] {
        let mut app = opened(TOOLS);
        render(&mut app, width, height);
        select_call_summary(&mut app, "sh -c 'echo partial");
        key(&mut app, KeyCode::Char('l'));
        assert_eq!(app.focus, Pane::Detail);
        render(&mut app, width, height);
        key(&mut app, KeyCode::Char('/'));
        keys(&mut app, "echo");
        key(&mut app, KeyCode::Enter);
        let screen = render(&mut app, width, height);
        let (hits, current) = app.detail.matches();
        let total = hits.len();
        // Recount: every occurrence in the drawn lines.
        let recount: usize = app
            .detail
            .lines()
            .iter()
            .map(|l| {
                crate::tui::widgets::text::line_text(l)
                    .to_lowercase()
                    .matches("echo")
                    .count()
            })
            .sum();
        assert_eq!(total, recount);
        // The command (line 31 of the transcript) has `echo` twice; it is
        // shown three times: the input's `command`, the breakdown's whole
        // line and its two parts (one each).
        assert_eq!(total, 6, "{width}x{height}");
        if width == 200 {
            assert_eq!(
                hits,
                vec![(6, 21), (6, 42), (15, 11), (15, 32), (16, 10), (17, 10)]
            );
        }
        assert_eq!(current, Some(0));
        assert_eq!(detail_count(&screen), format!("1/{total}"));
        let mut seen = Vec::new();
        for k in 1..=total {
            let cur = current_match_cells(&mut app, width, height);
            assert_eq!(cur.len(), 1, "{width}x{height} step {k}: {cur:?}");
            assert_eq!(cur[0].1.to_lowercase(), "echo");
            seen.push(hits[k - 1]);
            key(&mut app, KeyCode::Char('n'));
            let screen = render(&mut app, width, height);
            let next = k % total + 1;
            assert_eq!(detail_count(&screen), format!("{next}/{total}"));
        }
        assert_eq!(seen, hits);
        // Back one from the first wraps to the last.
        key(&mut app, KeyCode::Char('N'));
        let screen = render(&mut app, width, height);
        assert_eq!(detail_count(&screen), format!("{total}/{total}"));
        assert_eq!(current_match_cells(&mut app, width, height).len(), 1);
        if width == 200 {
            // Everything fits: stepping never scrolls.
            assert_eq!(app.detail.scroll, 0);
        }
    }
}

/// At 80 columns over the whole corpus, a call inside the "Inspect
/// repository" subagent keeps the breadcrumb's end (`turn 1 › spawn ›
/// Bash`); the session title is what is cut.
#[test]
fn breadcrumb_at_80_columns_keeps_turn_spawn_and_tool() {
    let mut app = app_for(CORPUS);
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "'scenario:subagent");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter); // open it
    assert!(
        app.timeline
            .select_call("toolu_01dWuUXlkTZoL5K7RXhzXTZs", &app.ctx)
    );
    let screen = render(&mut app, 80, 24);
    let last = screen.lines().last().expect("a status line").to_string();
    // The counts take 30 cells: the spawn is named by its type, the title
    // cut to what is left.
    assert_eq!(
        last,
        " [scenario:su… › turn 1 › general-purpose › Bash 9 sessions · D 0 diag · ? help"
    );
}

/// A 10 MB output in Detail: the built lines stay bounded, End scrolls to
/// the last built row, and the pane's last visible line is the one that
/// says how much more there is (the rest is never wrapped or drawn).
#[test]
fn a_10_mb_output_scrolls_to_its_end() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let line = "z".repeat(49);
    let output = format!("{line}\n").repeat(200_000);
    let path = one_bash_call(dir.path(), "yes | head", &output);
    let mut app = detail_of_bash(&path);
    render(&mut app, 160, 48);
    key(&mut app, KeyCode::End);
    let screen = render(&mut app, 160, 48);
    // The pane's last row (above its bottom border) is the note.
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("press o to show more"))
        .expect("the note is on screen");
    assert!(
        lines[at].contains("… 198000 more lines (9.4 MiB) — press o to show more"),
        "{}",
        lines[at]
    );
    assert!(
        lines[at + 1].contains("┗") || lines[at + 1].contains("└"),
        "{}",
        lines[at + 1]
    );
    assert!(lines[at - 1].contains(&line), "{}", lines[at - 1]);
    let built = app.detail.lines();
    assert_eq!(
        crate::tui::widgets::text::line_text(&built[built.len() - 1]),
        "… 198000 more lines (9.4 MiB) — press o to show more"
    );
    assert_eq!(
        crate::tui::widgets::text::line_text(&built[built.len() - 2]),
        line
    );
    assert!(built.len() < 2_100, "{} rows built", built.len());
}
