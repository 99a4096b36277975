//! Snapshot and state tests of how hook activity shows in the TUI
//! (docs/tui.md#hooks-in-the-timeline): the call a hook blocked carries the mark and Detail names the
//! handler; one Stop firing is one `⚑` row; `H` keeps only the rows where a
//! hook acted. On the real-cc-2.1.332 captures (see tests/core/hook_activity.rs
//! for the recount) and a hand-made rewrite.

use std::io::Write;

use crossterm::event::KeyCode;

use super::app::{App, Pane};
use super::tests::{app_for, key, opened, render};

const C2: &str = "tests/corpus/real-cc-2.1.332/hooks_c2_exit2/projects/-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl";
const C5: &str = "tests/corpus/real-cc-2.1.332/hooks_c5_stop_block/projects/-home-dev-work-hooks-c5-stop-block/c8435c6b-9aae-401c-ba5f-97def3faba72.jsonl";
const C6: &str = "tests/corpus/real-cc-2.1.332/hooks_c6_prompt_context/projects/-home-dev-work-hooks-c6-prompt-context/7843a96e-cabd-49b8-9e61-24dd57f841d5.jsonl";

/// The texts of the visible timeline rows.
fn row_texts(app: &App) -> Vec<String> {
    let session = app.ctx.session().cloned().expect("loaded");
    let tree = app.ctx.spawns().cloned().expect("tree");
    app.timeline
        .rows(&app.ctx)
        .iter()
        .map(|r| super::timeline::row_text(&session, &tree, r.item))
        .collect()
}

#[test]
fn c2_hook_activity_only_shows_the_blocked_call_and_its_handler() {
    let mut app = opened(C2);
    key(&mut app, KeyCode::Char('H'));
    assert!(app.timeline.hooks_only);
    let rows = row_texts(&app);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0].starts_with("bash Bash  rm -rf build/"), "{rows:?}");
    assert!(rows[0].ends_with("⛔ hook blocked"), "{rows:?}");
    insta::assert_snapshot!("hooks_only_c2_80x24", render(&mut app, 80, 24));
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    insta::assert_snapshot!("hooks_detail_c2_160x48", render(&mut app, 160, 48));
    // H again: every row, the blocked call still selected.
    key(&mut app, KeyCode::Char('H'));
    assert!(!app.timeline.hooks_only);
    assert_eq!(app.focus, Pane::Timeline);
    assert!(row_texts(&app).len() > 1);
}

#[test]
fn h_before_any_session_is_open_opens_the_selected_one_filtered() {
    // From the Sessions list with nothing open yet: `H` opens the selected
    // session with the filter on (it used to focus an empty Timeline).
    let mut app = app_for(C2);
    assert!(app.ctx.open.is_none());
    key(&mut app, KeyCode::Char('H'));
    assert!(app.timeline.hooks_only);
    assert_eq!(app.focus, Pane::Timeline);
    let rows = row_texts(&app);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0].ends_with("⛔ hook blocked"), "{rows:?}");
}

#[test]
fn c5_one_stop_firing_is_one_row() {
    let mut app = opened(C5);
    let rows = row_texts(&app);
    let stops: Vec<&String> = rows.iter().filter(|r| r.starts_with("Stop")).collect();
    // Lines 76 (feedback), 77 (attachment), 78 (summary) are one firing;
    // the clean Stop on line 83 left no note, so it has no row.
    assert_eq!(stops.len(), 1, "{rows:?}");
    assert_eq!(
        stops[0],
        "Stop: blocked by hook: Stop hook says: please also run the tests before stopping. [python3 /home/dev/.hooks/hook.py hooks_c5_stop_block Stop]"
    );
    key(&mut app, KeyCode::Char('H'));
    insta::assert_snapshot!("hooks_only_c5_80x24", render(&mut app, 80, 24));
    key(&mut app, KeyCode::Enter);
    insta::assert_snapshot!("hooks_detail_c5_80x24", render(&mut app, 80, 24));
}

#[test]
fn c6_context_rows_for_session_start_and_the_prompt() {
    let mut app = opened(C6);
    key(&mut app, KeyCode::Char('H'));
    let rows = row_texts(&app);
    assert_eq!(
        rows,
        vec![
            "SessionStart:startup: context added: Context added by SessionStart hook: project codename BLUEBIRD. [python3 /home/dev/.hooks/hook.py hooks_c6_prompt_context SessionStart, exit 0, 28 ms]".to_string(),
            "UserPromptSubmit: context added: Context added by UserPromptSubmit hook: the build number is 4711.".to_string(),
        ]
    );
}

/// A C4-style rewrite (hand-made: the corpus has none): the call row says
/// so, and Detail shows from → to.
#[test]
fn a_rewritten_call_shows_from_and_to() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir
        .path()
        .join("11111111-2222-3333-4444-555555555555.jsonl");
    let stdout = serde_json::json!({"hookSpecificOutput":{"hookEventName":"PreToolUse",
        "updatedInput":{"command":"echo B"}}})
    .to_string();
    let lines = [
        serde_json::json!({"type":"user","uuid":"u1","timestamp":"2026-11-29T18:00:00Z",
            "message":{"role":"user","content":"say A"}}),
        serde_json::json!({"type":"assistant","uuid":"a1","timestamp":"2026-11-29T18:00:01Z",
            "message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_rw",
            "name":"Bash","input":{"command":"echo A"}}]}}),
        serde_json::json!({"type":"attachment","uuid":"t1","timestamp":"2026-11-29T18:00:01Z",
            "attachment":{"type":"hook_success","hookName":"PreToolUse:Bash","hookEvent":"PreToolUse",
            "toolUseID":"toolu_rw","stdout":stdout,"stderr":"","exitCode":0,"command":"./rewrite.sh",
            "durationMs":7}}),
        serde_json::json!({"type":"user","uuid":"r1","timestamp":"2026-11-29T18:00:02Z",
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_rw",
            "content":"B","is_error":false}]}}),
    ];
    let mut f = std::fs::File::create(&path).expect("create");
    for l in lines {
        writeln!(f, "{l}").expect("write");
    }
    drop(f);
    let mut app = app_for(&path.to_string_lossy());
    key(&mut app, KeyCode::Enter);
    let rows = row_texts(&app);
    assert_eq!(
        rows,
        vec![
            "turn 1 say A".to_string(),
            "bash Bash  echo A → echo B ↻ hook rewrote".to_string()
        ]
    );
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    let screen = render(&mut app, 100, 40);
    assert!(
        screen.contains("input rewritten by hook: echo A → echo B"),
        "{screen}"
    );
    insta::assert_snapshot!("hooks_detail_rewrite_100x40", screen);
}

/// The Calls view's `is:blocked` / `hook:` words: over the whole corpus
/// the two calls a PreToolUse hook blocked (c3's, newer, then c2's), each
/// with its mark; `is:rewritten` finds none.
#[test]
fn calls_view_hook_words() {
    let mut app = app_for("tests/corpus/real-cc-2.1.332");
    key(&mut app, KeyCode::Char('c'));
    for c in "hook:PreToolUse is:blocked".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let ids: Vec<String> = app
        .calls
        .records()
        .iter()
        .map(|r| r.tool_use_id.clone())
        .collect();
    assert_eq!(
        ids,
        vec![
            // c8's git push (newest): its hook's ask was denied.
            "toolu_01RQ1iz1XkupduEYRX4OQTB2".to_string(),
            "toolu_0138h77ojpT1t3A4y1yWKgjr".to_string(),
            "toolu_01GFEgALJm405nI2WctBocud".to_string()
        ]
    );
    insta::assert_snapshot!("calls_blocked_160x48", render(&mut app, 160, 48));
}

/// A jump to a line of a Stop firing (the backtest's `Enter`) lands on its
/// one `⚑` row, even on the summary line whose note has no row of its own.
#[test]
fn a_jump_to_a_merged_line_selects_the_firing_row() {
    let mut app = opened(C5);
    assert!(app.timeline.select_line(78, &app.ctx));
    let session = app.ctx.session().cloned().expect("loaded");
    let sel = app.timeline.sel.expect("a selection");
    let firing = super::timeline::hook_of_item(&session, sel).expect("the ⚑ row");
    assert_eq!(firing.lines, vec![76, 77, 78]);
    assert!(app.timeline.rows(&app.ctx).iter().any(|r| r.item == sel));
}

/// The Calls view's `is:blocked` / `hook:` words over the Droid corpus:
/// the one call a Droid PreToolUse hook blocked (exit 2, the `errors`
/// run's `rm -rf build/`).
#[test]
fn calls_view_hook_words_see_droid() {
    let mut app = app_for("tests/corpus/real-droid-0.225.2/factory/sessions");
    key(&mut app, KeyCode::Char('c'));
    for c in "hook:PreToolUse is:blocked".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let ids: Vec<String> = app
        .calls
        .records()
        .iter()
        .map(|r| r.tool_use_id.clone())
        .collect();
    assert_eq!(ids, vec!["call_CQRmHwfk8ggbj3l8NR2Iqt2S".to_string()]);
}

const C8: &str = "tests/corpus/real-cc-2.1.332/hooks_c8_outcomes/projects/-home-dev-work-hooks-c8-outcomes/07535b09-1bbd-4e99-9cf4-3c8d232c7d4f.jsonl";

/// hooks_c8_outcomes (its README says what happened where): the rewritten
/// `npm test` reads `asked → ran`, the `git commit` a PostToolUse hook
/// objected to after it ran is not "blocked", the rejected prompt is a turn
/// of its own that never started, and the `git push` the hook asked about
/// carries the ask.
#[test]
fn c8_rewrite_objection_rejected_prompt_and_ask() {
    let mut app = opened(C8);
    let rows = row_texts(&app);
    let find =
        |prefix: &str| -> Vec<&String> { rows.iter().filter(|r| r.starts_with(prefix)).collect() };
    assert_eq!(
        find("bash Bash  npm test"),
        vec![
            "bash Bash  npm test → npm test -- --silent ↻ hook rewrote",
            "bash Bash  npm test → npm test -- --silent ↻ hook rewrote",
        ],
        "{rows:#?}"
    );
    assert_eq!(
        find("bash Bash  git commit"),
        vec!["bash Bash  git commit -am \"Mark notes as checked\" ⚠ hook objected"],
        "{rows:#?}"
    );
    assert_eq!(
        find("turn 2"),
        vec![
            "turn 2 rejected by hook [scenario:c8b] Clean up the database: DROP TABLE users; then recreate it empty."
        ],
        "{rows:#?}"
    );
    assert_eq!(
        find("UserPromptSubmit: blocked"),
        vec![
            "UserPromptSubmit: blocked by hook: c8 prompt_gate: prompts containing DROP TABLE are rejected [python3 /home/dev/.hooks/hook8.py hooks_c8_outcomes UserPromptSubmit prompt_gate, exit 2]"
        ],
        "{rows:#?}"
    );
    assert_eq!(
        find("bash Bash  git push"),
        vec!["bash Bash  git push origin main ⛔ hook asked, denied"],
        "{rows:#?}"
    );
    // Three processes wrote the file: where each ended (the last one too,
    // at its cost-state line 100) and the next began.
    assert_eq!(
        rows.iter()
            .filter(|r| r.starts_with("process: "))
            .map(String::as_str)
            .collect::<Vec<_>>(),
        [
            "process: ended · SessionEnd",
            "process: resumed · SessionStart",
            "process: ended · SessionEnd",
            "process: resumed · SessionStart",
            "process: ended · SessionEnd",
        ]
    );
    key(&mut app, KeyCode::Char('H'));
    insta::assert_snapshot!("hooks_only_c8_80x24", render(&mut app, 80, 24));
    // The first row (the rewritten npm test) in Detail.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    insta::assert_snapshot!("hooks_detail_c8_rewrite_80x24", render(&mut app, 80, 24));
}

/// One screen never mixes whole hook marks and signs: at 200×50 c8's
/// rewritten `npm test` rows would fit with `↻ hook rewrote`, but the
/// `git commit` row with `⚠ hook objected` would not, so every row shows
/// signs alone; at 300 columns every row fits and every mark is whole.
#[test]
fn hook_marks_are_whole_or_signs_on_the_whole_screen() {
    let mut app = opened(C8);
    let lines = |app: &mut App, w: u16| -> Vec<String> {
        render(app, w, 50)
            .lines()
            .filter(|l| l.contains("npm test →") || l.contains("git commit"))
            .map(|l| {
                l.split('│')
                    .filter(|p| !p.is_empty())
                    .nth(1)
                    .unwrap_or("")
                    .trim()
                    .to_string()
            })
            .collect()
    };
    let narrow = lines(&mut app, 200);
    assert!(narrow.len() >= 3, "{narrow:#?}");
    assert!(
        narrow
            .iter()
            .all(|l| !l.contains("hook rewrote") && !l.contains("hook objected")),
        "{narrow:#?}"
    );
    assert!(
        narrow
            .iter()
            .any(|l| l.contains("Bash ↻ npm test → npm test -- --silent")),
        "{narrow:#?}"
    );
    assert!(
        narrow.iter().any(|l| l.contains("Bash ⚠ git commit -am")),
        "{narrow:#?}"
    );
    let wide = lines(&mut app, 300);
    assert!(
        wide.iter()
            .any(|l| l.contains("Bash ↻ hook rewrote npm test")),
        "{wide:#?}"
    );
    assert!(
        wide.iter()
            .any(|l| l.contains("Bash ⚠ hook objected git commit")),
        "{wide:#?}"
    );
}

/// `r` on a `⚑` row replays that firing: on c8's `⚑ Stop: blocked by
/// hook` row the pane opens on the turn with the Stop that fired there
/// picked (not the turn's first PreToolUse).
#[test]
fn replay_from_a_hook_row_picks_that_firing() {
    let mut app = opened(C8);
    key(&mut app, KeyCode::Char('H'));
    let stop_row = row_texts(&app)
        .iter()
        .position(|r| r.starts_with("Stop: blocked by hook"))
        .expect("the Stop row");
    for _ in 0..stop_row {
        key(&mut app, KeyCode::Down);
    }
    key(&mut app, KeyCode::Char('r'));
    let picked = app.replay.picked();
    assert_eq!(
        picked,
        Some(hookscope_core::hooks::events::EventName::Stop),
        "{:?}",
        app.replay.entry_label(app.replay.sel)
    );
    assert_eq!(app.replay.entry_label(app.replay.sel), "Stop (line 57)");
}
