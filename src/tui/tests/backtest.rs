//! The backtest list (`B`): every match by verdict, and Enter to jump to one.

use super::*;

/// The `at` of each listed match, in order.
fn ats_of(app: &App) -> Vec<Option<String>> {
    app.backtest
        .matches
        .iter()
        .map(|b| b.example.at.clone())
        .collect()
}

/// The first row of Detail's `Backtest (B)` section (panics without one).
fn backtest_row(app: &App) -> String {
    let detail = detail_text(app);
    let at = detail
        .iter()
        .position(|l| l == "── Backtest (B) — r: the whys ──")
        .unwrap_or_else(|| panic!("{detail:?}"));
    detail.get(at + 1).cloned().unwrap_or_default()
}

#[test]
fn backtest_lists_would_be_blocks_and_enter_jumps() {
    let mut app = app_for(CORPUS);
    app.ctx.rules = crate::tui::context::Rules::load(std::path::Path::new(EXAMPLE_RULES));
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    assert_eq!(app.overlay, Some(Overlay::Backtest));
    let total = app.ctx.sessions.len();
    assert_eq!(app.backtest.progress, Some((total, total)));
    let rows: Vec<(String, String)> = app
        .backtest
        .matches
        .iter()
        .filter(|b| b.example.verdict == "block")
        .map(|b| (b.rule.clone(), b.example.summary.clone()))
        .collect();
    // example.toml blocks exactly the six `rm -rf build/` Bash calls of the
    // hooks runs (one per hooks session; see the Calls view test), all by
    // no-rm-rf.
    assert_eq!(rows.len(), 6, "{rows:?}");
    assert!(
        rows.iter()
            .all(|(r, s)| r == "no-rm-rf" && s == "Bash rm -rf build/"),
        "{rows:?}"
    );
    // Its other verdicts are listed too, and counted by verdict.
    assert_eq!(
        app.backtest.status(),
        "Backtest › 6 blocks (4 new) · 1 context · 2 allow"
    );
    let verdicts: Vec<&str> = app
        .backtest
        .matches
        .iter()
        .map(|b| b.example.verdict.as_str())
        .filter(|v| *v != "block")
        .collect();
    assert_eq!(verdicts.len(), 3, "{verdicts:?}");
    insta::assert_snapshot!("backtest_80x24", render(&mut app, 80, 24));
    insta::assert_snapshot!("backtest_160x48", render(&mut app, 160, 48));
    // Enter on the first jumps to its call in the timeline.
    let first = app.backtest.matches[0].clone();
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.overlay, None);
    assert_eq!(app.view, View::Browse);
    assert_eq!(app.ctx.open.as_ref().map(|o| o.index), Some(first.index));
    let selected = app
        .timeline
        .selected_call(&app.ctx)
        .map(|c| c.tool_use_id.clone());
    assert_eq!(selected, first.example.tool_use_id);
    // Back in the list, `H` on in the open session (its rows hide that
    // call), Enter again: the jump shows every row and lands on the call.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, Some(Overlay::Backtest));
    app.timeline.hooks_only = true;
    key(&mut app, KeyCode::Enter);
    assert!(!app.timeline.hooks_only);
    assert_eq!(
        app.timeline
            .selected_call(&app.ctx)
            .map(|c| c.tool_use_id.clone()),
        first.example.tool_use_id
    );
    // Its Detail says what the backtest's rules would do there.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    assert_eq!(
        backtest_row(&app),
        format!(
            "{} PreToolUse · {}",
            crate::tui::backtest::mark(&first.example),
            first.rule
        )
    );
    // A session opened otherwise has no such section.
    app.focus = Pane::Sessions;
    let other = (0..app.ctx.sessions.len())
        .find(|&i| i != first.index)
        .expect("another session");
    app.list.select(other, &app.ctx);
    key(&mut app, KeyCode::Enter);
    assert!(app.ctx.backtest_here.is_empty());
}

/// A would-be block on a Stop (not on a tool call): Enter jumps to its line
/// in the timeline. c8435c6b's Stops are anchored at the assistant texts of
/// lines 75 and 82.
#[test]
fn backtest_enter_on_a_stop_block_jumps_to_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("r.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"stop\"\nevents = \"Stop\"\naction = \"block\"\nreason = \"no\"\n",
    )
    .expect("write");
    let mut app = app_for("tests/corpus/real-cc-2.1.332/hooks_c5_stop_block");
    app.ctx.rules = crate::tui::context::Rules::load(&rules);
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    assert_eq!(app.overlay, Some(Overlay::Backtest));
    let ats = ats_of(&app);
    assert_eq!(ats, [Some("line:75".into()), Some("line:82".into())]);
    let selected_line = |app: &App| match app.timeline.sel {
        Some(Item::Event {
            thread: Thread::Main,
            turn,
            event,
        }) => app.ctx.session().expect("open").turns[turn].events[event].line(),
        other => panic!("selected {other:?}"),
    };
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.overlay, None);
    assert_eq!(app.focus, Pane::Timeline);
    assert_eq!(selected_line(&app), 75);
    // Its Detail says what the rule would do at that Stop.
    let first = app.backtest.matches[0].clone();
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        backtest_row(&app),
        format!("{} Stop · stop", crate::tui::backtest::mark(&first.example))
    );
    key(&mut app, KeyCode::Esc);
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    assert_eq!(selected_line(&app), 82);
}

/// A run whose list was closed keeps its progress in the status bar, with
/// the way back to the list; the list's title says how many sessions were
/// run and how many of other agents were left out.
#[test]
fn a_closed_backtest_list_keeps_its_progress_in_the_status_bar() {
    let mut app = app_for(CORPUS);
    app.backtest.start(5);
    let tally = crate::tui::backtest::Tally {
        counts: [("block".to_string(), 2)].into_iter().collect(),
        blocks_new: 1,
        objections: 0,
        sessions: 1,
        left_out: 1,
        with_diagnostics: 0,
    };
    app.backtest.add(2, 5, Vec::new(), &tally);
    assert_eq!(app.overlay, None);
    assert_eq!(
        app.status().left,
        "Backtest › 2/5 sessions · 2 blocks (1 new) · B shows the list"
    );
    // One session each, all of them rebuilt.
    let rebuilt = crate::tui::backtest::Tally {
        left_out: 0,
        ..tally.clone()
    };
    for done in 3..=5 {
        app.backtest.add(done, 5, Vec::new(), &rebuilt);
    }
    app.overlay = Some(Overlay::Backtest);
    assert_eq!(app.status().left, "Backtest › 8 blocks (4 new)");
    let text = render(&mut app, 160, 48);
    assert!(
        text.contains(" Backtest — Enter jump, Esc close — 4 of 5 sessions (1 Codex/OpenCode left out: not backtested) "),
        "{text}"
    );
    // A session read with lines the loader could not use is counted in
    // the title.
    let unreadable = crate::tui::backtest::Tally {
        with_diagnostics: 1,
        ..crate::tui::backtest::Tally::default()
    };
    app.backtest.add(5, 5, Vec::new(), &unreadable);
    let text = render(&mut app, 160, 48);
    assert!(
        text.contains("(1 Codex/OpenCode left out: not backtested), 1 with lines or files it could not use (D) "),
        "{text}"
    );
}

/// A match on a prompt jumps to its turn: in 45cd3bea (Droid), the turn's
/// SessionStart hook row comes before the prompt (line 4) and does not take
/// the jump.
#[test]
fn backtest_enter_on_a_prompt_match_selects_its_turn() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("r.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"deploy\"\nevents = \"UserPromptSubmit\"\naction = \"context\"\nreason = \"make deploy\"\n[rules.only_if]\nprompt = 'deploy'\n",
    )
    .expect("write");
    let mut app =
        app_for("tests/corpus/real-droid-0.225.2/factory/sessions/-home-dev-work-dr-denied");
    app.ctx.rules = crate::tui::context::Rules::load(&rules);
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    let ats = ats_of(&app);
    assert_eq!(ats, [Some("line:4".into())]);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.overlay, None);
    assert_eq!(app.focus, Pane::Timeline);
    assert_eq!(app.timeline.sel, Some(Item::Turn(0)));
}

/// `Esc` after `Enter` on a match goes back to the list, on that match;
/// `B` with the list closed shows the finished run again where it was left
/// (no second run), and `B` in the open list runs it anew (first row).
#[test]
fn esc_after_a_jump_goes_back_to_the_list_and_b_reopens_it() {
    let mut app = app_for(CORPUS);
    app.ctx.rules = crate::tui::context::Rules::load(std::path::Path::new(EXAMPLE_RULES));
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    let total = app.ctx.sessions.len();
    assert_eq!(app.backtest.progress, Some((total, total)));
    // The third match: a block on a Bash call (see the test above).
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.backtest.sel, 2);
    let third = app.backtest.matches[2].clone();
    assert_eq!(third.example.verdict, "block");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.overlay, None);
    assert_eq!(app.ctx.open.as_ref().map(|o| o.index), Some(third.index));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, Some(Overlay::Backtest));
    assert_eq!(app.backtest.sel, 2);
    // `?` over the list, then Esc: back to the list.
    key(&mut app, KeyCode::Char('?'));
    assert_eq!(app.overlay, Some(Overlay::Help));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, Some(Overlay::Backtest));
    // Esc closes the list; B shows the same finished run, still on row 3.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, None);
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    assert_eq!(app.overlay, Some(Overlay::Backtest));
    assert_eq!(app.backtest.sel, 2);
    assert!(app.ctx.requests.is_empty(), "{:?}", app.ctx.requests);
    // B in the open list runs it again, from the first row.
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    assert_eq!(app.backtest.sel, 0);
    assert_eq!(app.backtest.progress, Some((total, total)));
    assert_eq!(app.backtest.matches.len(), 9);
    // A jump from elsewhere (the session list) is not one Esc goes back
    // from: Esc there leaves the list closed.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, None);
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, None);
}

/// At 80 columns the title keeps its keys and counts whole: over the whole
/// corpus the Codex and OpenCode sessions left out are counted in a
/// shorter form (the wide title says why they are left out).
#[test]
fn backtest_title_fits_80_columns() {
    let mut app = app_for("tests/corpus");
    app.ctx.rules = crate::tui::context::Rules::load(std::path::Path::new(EXAMPLE_RULES));
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    let total = app.ctx.sessions.len();
    assert_eq!(app.backtest.progress, Some((total, total)));
    let (read, left_out) = (app.backtest.tally.sessions, app.backtest.tally.left_out);
    assert!(
        left_out > 0 && read + left_out == total,
        "{read} {left_out} {total}"
    );
    // Two sessions read have lines the loader could not use (a third is
    // skipped unread: none of its calls can match a rule of the set).
    assert_eq!(app.backtest.tally.with_diagnostics, 2);
    // The title at each width: the longest form that fits.
    let titles = [
        (
            80,
            format!(
                "┏ Backtest — Enter, Esc — {read} of {total} sessions, {left_out} left out, 2 partly read (D) ━"
            ),
        ),
        (
            100,
            format!(
                "┏ Backtest — Enter, Esc — {read} of {total} sessions, {left_out} Codex/OpenCode not backtested, 2 partly read (D) ━"
            ),
        ),
        (
            92,
            format!(
                "┏ Backtest — Enter jump, Esc close — {read} of {total} sessions ({left_out} left out), 2 partly read (D) ━"
            ),
        ),
    ];
    for (width, want) in titles {
        let screen = render(&mut app, width, 24);
        let top = screen.lines().next().unwrap_or_default().to_string();
        assert!(top.starts_with(&want), "{width}: {top}");
    }
    let wide = render(&mut app, 200, 30);
    assert!(
        wide.contains(&format!(
            "({left_out} Codex/OpenCode left out: not backtested)"
        )),
        "{wide}"
    );
}

/// `?` over the backtest list draws the help above the list, which stays in
/// sight around it (it was replaced by the three panes).
#[test]
fn help_over_the_backtest_list_keeps_the_list_in_sight() {
    let mut app = app_for(CORPUS);
    app.ctx.rules = crate::tui::context::Rules::load(std::path::Path::new(EXAMPLE_RULES));
    key_mod(&mut app, KeyCode::Char('B'), KeyModifiers::SHIFT);
    key(&mut app, KeyCode::Char('?'));
    assert_eq!(app.overlay, Some(Overlay::Help));
    let screen = render(&mut app, 160, 40);
    let top = screen.lines().next().unwrap_or_default();
    assert!(
        top.starts_with("┏ Backtest — Enter jump, Esc close"),
        "{screen}"
    );
    assert!(top.contains("┏ Help — Esc/q/? to close"), "{screen}");
    // The rows to the left of the help box.
    assert!(
        screen
            .lines()
            .any(|l| l.starts_with("┃block new 7843a96e PreToolUse")),
        "{screen}"
    );
}
