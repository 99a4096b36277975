//! Live updates: a session file in a tempdir grows while the
//! follower thread ([`worker::spawn_follow_with`]) watches it; its
//! messages go through [`App::apply`] as in the event loop. Waits have a
//! 20 s safety net only; nothing asserts on time.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use crossterm::event::KeyCode;
use hookscope_core::transcript::follow::FollowOptions;

use super::app::{App, Pane};
use super::tests::{key, opened, render};
use super::worker::{self, Msg};

/// hooks_c5_stop_block: line 70 is a Bash `tool_use` (`cd src && pwd`,
/// toolu_010vLE7lG2fUGk9vel3s1Alv), 71 its `tool_result`.
const STOP_BLOCK: &str = "tests/corpus/real-cc-2.1.332/hooks_c5_stop_block/projects/-home-dev-work-hooks-c5-stop-block/c8435c6b-9aae-401c-ba5f-97def3faba72.jsonl";
const ID: &str = "c8435c6b-9aae-401c-ba5f-97def3faba72";
const SAFETY: Duration = Duration::from_secs(20);

fn lines() -> Vec<Vec<u8>> {
    std::fs::read(STOP_BLOCK)
        .expect("corpus session")
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

fn append(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open for append");
    f.write_all(bytes).expect("append");
}

fn options() -> FollowOptions {
    FollowOptions {
        poll: Duration::from_millis(20),
        rescan: Duration::from_millis(20),
        notify: false,
        ..FollowOptions::default()
    }
}

/// Applies messages until one satisfies `done` (which sees each).
fn apply_until(app: &mut App, rx: &Receiver<Msg>, mut done: impl FnMut(&Msg) -> bool) {
    loop {
        let msg = rx
            .recv_timeout(SAFETY)
            .expect("a message from the follower");
        let stop = done(&msg);
        app.apply(msg);
        while let requests = app.take_requests()
            && !requests.is_empty()
        {
            for r in requests {
                if let super::context::Request::Summarize(index) = r {
                    let sref = app.ctx.sessions[index].sref.clone();
                    app.apply(worker::summary_msg(index, &sref));
                }
            }
        }
        if stop {
            return;
        }
    }
}

fn has_call(msg: &Msg, id: &str) -> bool {
    matches!(msg, Msg::Live { session, .. }
        if session.all_tool_calls().any(|(_, c)| c.tool_use_id == id))
}

fn row_texts(app: &App) -> Vec<String> {
    let session = app.ctx.session().cloned().expect("loaded");
    let tree = hookscope_core::transcript::spawns::SpawnTree::new(&session);
    app.timeline
        .rows(&app.ctx)
        .into_iter()
        .map(|r| super::timeline::row_text(&session, &tree, r.item))
        .collect()
}

/// A tempdir with lines 1..=69 of the session, the app opened on it.
fn start() -> (tempfile::TempDir, PathBuf, Vec<Vec<u8>>, App) {
    let all = lines();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(format!("{ID}.jsonl"));
    std::fs::write(&path, all[..69].concat()).expect("write");
    let app = opened(path.to_str().expect("utf-8 temp path"));
    (dir, path, all, app)
}

#[test]
fn a_growing_session_updates_the_timeline_and_keeps_the_selection() {
    let (dir, path, all, mut app) = start();
    let _ = render(&mut app, 160, 48);
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('j'));
    let sel = app.timeline.sel;
    let offset = app.timeline.offset;
    let before = row_texts(&app);
    assert!(!before.iter().any(|t| t.contains("cd src && pwd")));

    let (tx, rx) = channel();
    let follow = worker::spawn_follow_with(vec![dir.path().to_path_buf()], options(), tx);
    let sref = app.ctx.sessions[0].sref.clone();
    follow.send((0, sref)).expect("follower thread");
    // It says where it starts from: the session as loaded, nothing moves.
    apply_until(&mut app, &rx, |m| matches!(m, Msg::Live { .. }));
    assert_eq!(app.timeline.sel, sel);
    assert_eq!(row_texts(&app), before);

    append(&path, &all[69]);
    append(&path, &all[70]);
    apply_until(&mut app, &rx, |m| {
        has_call(m, "toolu_010vLE7lG2fUGk9vel3s1Alv")
    });
    let after = row_texts(&app);
    // One more row: the Bash call, at the end of the last turn.
    assert_eq!(after.len(), before.len() + 1);
    assert_eq!(after[..before.len()], before[..]);
    assert!(after[before.len()].contains("cd src && pwd"), "{after:?}");
    assert_eq!(app.timeline.sel, sel, "the selection stays put");
    assert_eq!(app.timeline.offset, offset, "the scroll stays put");
    assert_eq!(app.focus, Pane::Timeline);
    // The list's counts follow: 12 tool calls now (11 + the Bash call).
    let summary = app.ctx.sessions[0].summary.as_ref().expect("summary");
    assert_eq!(summary.tool_calls, 12);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("12 calls"), "{screen}");
}

#[test]
fn a_new_session_appears_in_the_list() {
    let (dir, _path, all, mut app) = start();
    let sel = app.list.sel;
    let (tx, rx) = channel();
    let follow = worker::spawn_follow_with(vec![dir.path().to_path_buf()], options(), tx);
    follow
        .send((0, app.ctx.sessions[0].sref.clone()))
        .expect("follower thread");
    apply_until(&mut app, &rx, |m| matches!(m, Msg::Live { .. }));
    let other = "0c04bd79-0000-4000-8000-000000000001";
    std::fs::write(
        dir.path().join(format!("{other}.jsonl")),
        all[..22].concat(),
    )
    .expect("write");
    apply_until(&mut app, &rx, |m| matches!(m, Msg::SessionAdded(_)));
    assert_eq!(app.ctx.sessions.len(), 2);
    assert_eq!(app.ctx.sessions[1].sref.id, other);
    // Its summary was asked for and applied: lines 1..=22 hold one call.
    let summary = app.ctx.sessions[1].summary.as_ref().expect("summary");
    assert_eq!(summary.tool_calls, 1);
    assert_eq!(app.list.sel, sel, "the selection stays put");
    assert!(app.list.selectable().contains(&1));
}

/// As the event loop runs it: default options (file notifications, the
/// 500 ms poll as the fallback).
#[test]
fn the_default_follower_updates_the_open_session() {
    let (dir, path, all, mut app) = start();
    let (tx, rx) = channel();
    let follow = worker::spawn_follow(vec![dir.path().to_path_buf()], tx);
    follow
        .send((0, app.ctx.sessions[0].sref.clone()))
        .expect("follower thread");
    apply_until(&mut app, &rx, |m| matches!(m, Msg::Live { .. }));
    append(&path, &all[69]);
    apply_until(&mut app, &rx, |m| {
        has_call(m, "toolu_010vLE7lG2fUGk9vel3s1Alv")
    });
    let rows = row_texts(&app);
    assert!(
        rows.last().is_some_and(|t| t.contains("cd src && pwd")),
        "{rows:?}"
    );
}

/// At the TUI's start the follower is given the sessions the start's
/// discovery found (the roots are not walked twice): those are known, a
/// session written afterwards is reported as new.
#[test]
fn a_follower_given_the_known_sessions_reports_only_new_ones() {
    let (dir, _path, all, mut app) = start();
    let known = hookscope_core::transcript::discover(&[dir.path().to_path_buf()])
        .expect("discover")
        .sessions;
    assert_eq!(known.len(), 1);
    let (tx, rx) = channel();
    let follow =
        worker::spawn_follow_known(vec![dir.path().to_path_buf()], Some(known), options(), tx);
    follow
        .send((0, app.ctx.sessions[0].sref.clone()))
        .expect("follower thread");
    apply_until(&mut app, &rx, |m| matches!(m, Msg::Live { .. }));
    let other = "0c04bd79-0000-4000-8000-000000000002";
    std::fs::write(
        dir.path().join(format!("{other}.jsonl")),
        all[..22].concat(),
    )
    .expect("write");
    apply_until(&mut app, &rx, |m| matches!(m, Msg::SessionAdded(_)));
    assert_eq!(app.ctx.sessions.len(), 2);
    assert_eq!(app.ctx.sessions[1].sref.id, other);
}

/// The Timeline filter keeps its rows' texts per session (built once): a
/// reload of the session (the same rows, one call's command changed in
/// place, as after a rewrite) must be searched afresh, not through the
/// texts cached for the session before it.
#[test]
fn a_timeline_filter_searches_a_reloaded_session_afresh() {
    let (_dir, path, all, mut app) = start();
    let _ = render(&mut app, 160, 48);
    key(&mut app, KeyCode::Char('/'));
    for c in "original".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    // Line 22: Bash `echo original command`.
    let found = row_texts(&app);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("echo original command"), "{found:?}");

    let mut lines = all[..69].to_vec();
    let text = String::from_utf8(lines[21].clone()).expect("utf-8 line");
    assert!(text.contains("echo original command"));
    lines[21] = text
        .replace("echo original command", "echo replaced command")
        .into_bytes();
    std::fs::write(&path, lines.concat()).expect("rewrite");
    let sref = app.ctx.sessions[0].sref.clone();
    let session = hookscope_core::transcript::load(&sref).expect("reload");
    app.apply(Msg::Live {
        index: 0,
        session: std::sync::Arc::new(session),
    });
    assert!(row_texts(&app).is_empty(), "{:?}", row_texts(&app));
    key(&mut app, KeyCode::Char('/'));
    for _ in 0.."original".len() {
        key(&mut app, KeyCode::Backspace);
    }
    for c in "replaced".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let found = row_texts(&app);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("echo replaced command"), "{found:?}");
}
