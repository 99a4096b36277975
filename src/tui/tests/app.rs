//! The app as a whole: focus and Tab, overlays (help, diagnostics), quitting,
//! the mouse, odd terminal sizes, `NO_COLOR`, the README screenshot.

use super::*;

#[test]
fn snapshot_help() {
    let mut app = app_for(SUBAGENT);
    key(&mut app, KeyCode::Char('?'));
    assert_eq!(app.overlay, Some(Overlay::Help));
    insta::assert_snapshot!("help_80x24", render(&mut app, 80, 24));
    insta::assert_snapshot!("help_160x48", render(&mut app, 160, 48));
}

/// The help opens on the keys of where the user is: the focused pane, the
/// Calls view, or the overlay it was opened over; "Everywhere" follows.
#[test]
fn help_opens_on_the_keys_of_where_you_are() {
    let first_two = |app: &mut App| -> Vec<String> {
        key(app, KeyCode::Char('?'));
        let screen = render(app, 80, 24);
        let headings: Vec<String> = screen
            .lines()
            .skip(1)
            // Inside the help box (76 wide, centred: from column 3).
            .map(|l| {
                l.chars()
                    .skip(3)
                    .take_while(|c| *c != '┃')
                    .collect::<String>()
            })
            .map(|t| t.trim_end().to_string())
            .filter(|t| !t.is_empty() && !t.starts_with(' '))
            .take(2)
            .collect();
        key(app, KeyCode::Esc);
        headings
    };
    let mut app = app_for(SUBAGENT);
    assert_eq!(first_two(&mut app), ["Sessions", "Everywhere"]);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Timeline);
    assert_eq!(first_two(&mut app), ["Timeline", "Everywhere"]);
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.view, View::Calls);
    // The Calls view opens typing its filter line: Esc ends that first.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Calls);
    assert_eq!(first_two(&mut app), ["Calls view (c)", "Everywhere"]);
}

#[test]
fn enter_opens_and_tab_cycles_focus() {
    let mut app = app_for(SUBAGENT);
    assert_eq!(app.list.sel, Some(0));
    assert_eq!(app.focus, Pane::Sessions);
    app.handle(Action::Enter);
    assert!(matches!(
        app.ctx.open.as_ref().map(|o| &o.state),
        Some(OpenState::Loading)
    ));
    assert_eq!(app.take_requests(), vec![Request::Open(0)]);
    assert_eq!(app.focus, Pane::Timeline);
    let sref = app.ctx.sessions[0].sref.clone();
    app.apply(Msg::Loaded {
        index: 0,
        result: worker::open(&sref),
    });
    assert_eq!(app.timeline.sel, Some(Item::Turn(0)));
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Detail);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Sessions);
    key_mod(&mut app, KeyCode::BackTab, KeyModifiers::SHIFT);
    assert_eq!(app.focus, Pane::Detail);
    key(&mut app, KeyCode::Char('h'));
    assert_eq!(app.focus, Pane::Timeline);
    // Enter again on the same session does not reload it; it reads the
    // decision log again (decisions made since are marked).
    key(&mut app, KeyCode::Char('h'));
    assert_eq!(app.focus, Pane::Sessions);
    app.handle(Action::Enter);
    assert_eq!(app.take_requests(), vec![Request::Decisions(0)]);
}

/// The diagnostics overlay (`D`) over a session with a malformed line, a
/// line of an unknown type and a truncated last line: each is listed with
/// its file and line (the folder written as `<dir>`, padded to its length
/// so the frame stays aligned).
#[test]
fn snapshot_diagnostics_overlay() {
    let dir = tempfile::Builder::new()
        .prefix("hsdiag")
        .rand_bytes(6)
        .tempdir_in("/tmp")
        .expect("tempdir");
    let mut text = std::fs::read_to_string(TOOLS).expect("tools session");
    text.push_str("{not json\n");
    text.push_str("{\"type\":\"from-the-future\",\"uuid\":\"u-1\"}\n");
    text.push_str("{\"type\":\"assistant\",\"message\":{\"content\":[");
    let file = dir
        .path()
        .join("e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl");
    std::fs::write(&file, text).expect("write");
    let mut app = opened(&file.display().to_string());
    key(&mut app, KeyCode::Char('D'));
    assert_eq!(app.overlay, Some(Overlay::Diagnostics));
    let shown = dir.path().display().to_string();
    for (w, h, name) in [
        (80, 24, "diagnostics_80x24"),
        (160, 48, "diagnostics_160x48"),
    ] {
        let screen = render(&mut app, w, h)
            .replace(&shown, &format!("{:<1$}", "<dir>", shown.chars().count()));
        insta::assert_snapshot!(name, screen);
    }
}

#[test]
fn overlays_and_quit() {
    let mut app = app_for(SUBAGENT);
    key(&mut app, KeyCode::Char('D'));
    assert_eq!(app.overlay, Some(Overlay::Diagnostics));
    key(&mut app, KeyCode::Char('?'));
    assert_eq!(app.overlay, Some(Overlay::Help));
    // Closing the help shows the overlay it was opened over.
    key(&mut app, KeyCode::Char('q'));
    assert_eq!(app.overlay, Some(Overlay::Diagnostics));
    key(&mut app, KeyCode::Char('q'));
    assert_eq!(app.overlay, None);
    assert!(!app.quit);
    key(&mut app, KeyCode::Char('?'));
    key_mod(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(app.quit);
    let mut app = app_for(SUBAGENT);
    key(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}

#[test]
fn mouse_focuses_and_scrolls_the_pane_under_it() {
    let mut app = opened(SUBAGENT);
    app.handle(Action::Resize {
        width: 160,
        height: 48,
    });
    // Wide layout: sessions | timeline | detail.
    app.handle(Action::ClickAt { column: 2, row: 5 });
    assert_eq!(app.focus, Pane::Sessions);
    app.handle(Action::ScrollAt {
        column: 60,
        row: 5,
        down: true,
    });
    assert_eq!(app.focus, Pane::Sessions);
    assert_eq!(
        app.timeline.sel,
        Some(Item::Event {
            thread: Thread::Main,
            turn: 0,
            event: 2
        })
    );
}

#[test]
fn tiny_and_odd_sizes_do_not_panic() {
    let mut app = opened(TOOLS);
    select_call(&mut app, "Edit");
    for (w, h) in [
        (20, 5),
        (1, 1),
        (0, 0),
        (5, 30),
        (300, 3),
        (119, 24),
        (120, 10),
    ] {
        for overlay in [None, Some(Overlay::Help), Some(Overlay::Diagnostics)] {
            for focus in [Pane::Sessions, Pane::Timeline, Pane::Detail] {
                app.overlay = overlay;
                app.focus = focus;
                render(&mut app, w, h);
                app.handle(Action::PageDown);
                app.handle(Action::Bottom);
                render(&mut app, w, h);
            }
        }
    }
}

#[test]
fn no_color_uses_no_colours() {
    let mut app = opened(TOOLS);
    select_call(&mut app, "Edit");
    app.focus = Pane::Detail;
    app.handle(Action::Resize {
        width: 160,
        height: 48,
    });
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("test terminal");
    terminal.draw(|f| draw(f, &app)).expect("draw");
    let buffer = terminal.backend().buffer();
    assert!(
        buffer
            .content()
            .iter()
            .all(|c| c.fg == Color::Reset && c.bg == Color::Reset)
    );
}

#[test]
fn help_stays_above_the_status_bar_and_scrolls_to_its_end() {
    let mut app = app_for(SUBAGENT);
    key(&mut app, KeyCode::Char('?'));
    key(&mut app, KeyCode::Char('G'));
    // The last page: the mouse lines, and the status bar still there.
    insta::assert_snapshot!("help_end_80x24", render(&mut app, 80, 24));
    let text = render(&mut app, 80, 24);
    let last = text.lines().last().unwrap_or_default();
    assert!(last.contains("? help"), "{last}");
}

/// The README's screenshot is this test's render: `hookscope
/// tests/corpus` at 150x32, the `tools` session found with the session
/// search, the timeline filtered to `new_module`, its Edit in Detail. The
/// README's ```text block after "at 150x32" must equal it; run with
/// `HOOKSCOPE_UPDATE_README=1` to rewrite the block.
#[test]
fn readme_screenshot_is_the_render() {
    let corpus = "tests/corpus";
    let mut app = app_for(corpus);
    key(&mut app, KeyCode::Char('/'));
    // fzf's exact matches: Claude Code's tools session (Droid's has no "shell").
    keys(&mut app, "'scenario:tools 'shell");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter); // open it
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "new_module");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('j')); // the Write, then the Edit
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    app.handle(Action::Resize {
        width: 150,
        height: 32,
    });
    let mut terminal = Terminal::new(TestBackend::new(150, 32)).expect("test terminal");
    terminal.draw(|f| draw(f, &app)).expect("draw");
    let screen = buffer_text_with(terminal.backend().buffer(), false);
    assert!(screen.contains("Edit  edit  ✓ ok"), "{screen}");

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).expect("README.md");
    let anchor = "`hookscope tests/corpus` at 150x32";
    let at = readme.find(anchor).expect("the screenshot's caption");
    let open = at + readme[at..].find("```text\n").expect("its text block") + "```text\n".len();
    let close = open + readme[open..].find("```").expect("the block's end");
    if std::env::var_os("HOOKSCOPE_UPDATE_README").is_some() {
        let updated = format!("{}{screen}{}", &readme[..open], &readme[close..]);
        std::fs::write(path, updated).expect("write README.md");
    } else {
        assert_eq!(
            readme[open..close],
            screen,
            "README screenshot is stale: HOOKSCOPE_UPDATE_README=1 cargo test --bin hookscope readme"
        );
    }
}
