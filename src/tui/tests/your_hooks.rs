//! The replay pane's "Your hooks" and `x`: settings found or not,
//! the run dialog, runs recorded against the transcript, the lints' fixes.

use super::*;

const EXIT2: &str = "tests/corpus/real-cc-2.1.332/hooks_c2_exit2/projects/-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl";

/// The `rm -rf` call the session's PreToolUse hook blocked with exit 2.
const EXIT2_RM_RF: &str = "toolu_01GFEgALJm405nI2WctBocud";

const EXIT2_SETTINGS: &str = "assets/examples/hooks_c2_exit2/.claude/settings.json";

/// The exit-2 session opened with `settings` given (as `--settings`), the
/// replay pane open on its `rm -rf` call.
fn replay_exit2(settings: &[&str]) -> App {
    let mut app = app_for(EXIT2);
    app.ctx.settings = settings.iter().map(PathBuf::from).collect();
    key(&mut app, KeyCode::Enter);
    assert!(
        app.timeline.select_call(EXIT2_RM_RF, &app.ctx),
        "the call is in the timeline"
    );
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(app.overlay, Some(Overlay::Replay));
    app
}

#[test]
fn snapshot_replay_your_hooks() {
    let mut app = replay_exit2(&[EXIT2_SETTINGS]);
    // The one handler: a Bash PreToolUse command that fires on this call.
    assert_eq!(app.replay.verdicts.len(), 1);
    assert!(app.replay.verdicts[0].fires);
    insta::assert_snapshot!("replay_your_hooks_160x48", render_replay(&mut app, 160, 48));
    insta::assert_snapshot!("replay_your_hooks_80x24", render_replay(&mut app, 80, 24));
}

#[test]
fn replay_without_settings_says_where_it_looked() {
    let app = replay_exit2(&[]);
    let (main, _) = app.replay.lines(&app.ctx);
    let text: Vec<String> = main.iter().map(ToString::to_string).collect();
    let i = text
        .iter()
        .position(|l| l == "Your hooks")
        .expect("a Your hooks heading");
    assert!(
        text[i + 1].starts_with(
            "  no settings file found (looked for /nonexistent/managed-settings.json, /nonexistent/claude-config/settings.json"
        ),
        "{}",
        text[i + 1]
    );
    assert!(text[i + 1].ends_with("pass `hookscope --settings FILE` to use one"));
}

#[test]
fn replay_survives_a_fifo_and_invalid_json_settings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("fifo.json");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"hooks\": {\"PreToolUse\": [").expect("write");
    let (f, b) = (fifo.display().to_string(), bad.display().to_string());
    let mut app = replay_exit2(&[&f, &b]);
    assert!(app.replay.verdicts.is_empty());
    let (_, hooks) = app.replay.hooks.clone().expect("loaded");
    let config = hooks.config();
    assert_eq!(config.files.len(), 2);
    assert!(config.files.iter().all(|f| !f.problems.is_empty()));
    // It still draws.
    let screen = render_replay(&mut app, 160, 48);
    assert!(screen.contains("Your hooks"));
}

#[test]
fn transcript_recorded_uses_the_parsed_hook_activity() {
    let app = replay_exit2(&[]);
    let (_, rec) = app.replay.lines(&app.ctx);
    let text: Vec<String> = rec.iter().map(ToString::to_string).collect();
    assert!(
        text.iter()
            .any(|l| l == "  handler: python3 /home/dev/.hooks/hook.py hooks_c2_exit2 PreToolUse"),
        "{text:?}"
    );
    assert!(text.iter().any(|l| l == "  exit 2"), "{text:?}");
}

/// The screen with the `x` plan's temporary folder written as `<tmp>` and
/// `example` (a copy of the scenario's project, see [`example_copy`])
/// as `<example>`, each padded to its length so the frame stays aligned.
/// Both are fixed-length `/tmp/…` names, so the wrapping does not depend
/// on where the repository is checked out.
fn render_plan(app: &mut App, width: u16, height: u16, example: &std::path::Path) -> String {
    let tmp = app
        .replay
        .confirm
        .as_ref()
        .map(|p| p.scratch.path().display().to_string());
    let mut screen = render_replay(app, width, height);
    for (path, name) in [
        (tmp, "<tmp>"),
        (Some(example.display().to_string()), "<example>"),
    ] {
        if let Some(p) = path {
            screen = screen.replace(&p, &format!("{:<1$}", name, p.chars().count()));
        }
    }
    screen
}

/// A copy of assets/examples/hooks_c2_exit2 (settings and hook script,
/// executable) in a fixed-length `/tmp/hsXXXXXX` folder; returns the
/// folder and the copied settings file.
fn example_copy() -> (tempfile::TempDir, String) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("hs")
        .rand_bytes(6)
        .tempdir_in("/tmp")
        .expect("tempdir");
    let hooks = dir.path().join(".claude/hooks");
    std::fs::create_dir_all(&hooks).expect("mkdir");
    let from = std::path::Path::new("assets/examples/hooks_c2_exit2/.claude");
    std::fs::copy(
        from.join("settings.json"),
        dir.path().join(".claude/settings.json"),
    )
    .expect("copy settings");
    let script = hooks.join("block_rm_rf.sh");
    std::fs::copy(from.join("hooks/block_rm_rf.sh"), &script).expect("copy script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let settings = dir
        .path()
        .join(".claude/settings.json")
        .display()
        .to_string();
    (dir, settings)
}

#[test]
fn snapshot_run_hooks_confirmation() {
    let (example, settings) = example_copy();
    let mut app = replay_exit2(&[&settings]);
    key(&mut app, KeyCode::Char('x'));
    let plan = app.replay.confirm.clone().expect("the dialog is open");
    assert_eq!(plan.specs.len(), 1);
    assert_eq!(
        plan.specs[0].argv(),
        [
            "sh",
            "-c",
            "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block_rm_rf.sh"
        ]
    );
    // The session's cwd does not exist here: the project folder holding
    // the given settings, where Claude Code runs hooks when the cwd is gone.
    assert_eq!(plan.specs[0].cwd, example.path());
    let ex = example.path();
    insta::assert_snapshot!(
        "replay_run_confirm_160x48",
        render_plan(&mut app, 160, 48, ex)
    );
    insta::assert_snapshot!(
        "replay_run_confirm_80x24",
        render_plan(&mut app, 80, 24, ex)
    );
}

/// The run dialog is tall enough for its text once wrapped at word
/// boundaries: the last line of the project note is on screen at every
/// width (before: the height came from the text's width, a row short when
/// words wrapped early, and the note was cut at 200x50).
#[test]
fn the_run_dialog_shows_its_last_line() {
    // Settings outside a `.claude/` folder: the hook runs in a temporary
    // folder, whose long name wraps the cwd note early.
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = marker_settings(dir.path(), &dir.path().join("never-run"));
    let s = settings.display().to_string();
    let mut app = replay_exit2(&[&s]);
    key(&mut app, KeyCode::Char('x'));
    for w in (90..=200).step_by(5) {
        let screen = render_plan(&mut app, w, 50, dir.path());
        assert!(
            screen.contains("folder)"),
            "{w}x50: the note's end is cut:\n{screen}"
        );
    }
}

/// The dialog says what was left out of a hook's environment before
/// anything runs (a transcript value not of its known form), as `replay
/// --exec` says it on stderr (before: the dialog did not show it).
#[test]
fn the_run_dialog_names_what_was_left_out_of_the_environment() {
    let (_example, settings) = example_copy();
    let mut app = replay_exit2(&[&settings]);
    key(&mut app, KeyCode::Char('x'));
    let plan = app.replay.confirm.take().expect("the dialog is open");
    let mut plan = std::sync::Arc::try_unwrap(plan).expect("one owner");
    plan.env_warnings
        .push(hookscope_core::hooks::exec::EnvWarning {
        arg: "CLAUDE_CODE_ENTRYPOINT".into(),
        message:
            "the transcript's value \"cli$(touch X)\" is not of the form Claude Code sets; left out"
                .into(),
        transcript: true,
    });
    let lines: Vec<String> = crate::tui::replay::ReplayPane::confirm_lines(&plan, &app.ctx)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines.last().map(String::as_str),
        Some(
            "left out of the environment: CLAUDE_CODE_ENTRYPOINT: the transcript's value \"cli$(touch X)\" is not of the form Claude Code sets; left out"
        )
    );
}

/// A settings file in `dir` whose one PreToolUse Bash handler creates
/// `marker`.
fn marker_settings(dir: &std::path::Path, marker: &std::path::Path) -> PathBuf {
    let settings = dir.join("settings.json");
    let hook = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("touch '{}'", marker.display())}
    ]}]}});
    std::fs::write(&settings, hook.to_string()).expect("write settings");
    settings
}

#[test]
fn run_hooks_needs_the_dialogs_enter() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("ran");
    let settings = marker_settings(dir.path(), &marker);
    let s = settings.display().to_string();
    let mut app = replay_exit2(&[&s]);
    // Esc cancels: nothing ran.
    key(&mut app, KeyCode::Char('x'));
    assert!(app.replay.confirm.is_some());
    key(&mut app, KeyCode::Esc);
    assert!(app.replay.confirm.is_none());
    assert_eq!(
        app.overlay,
        Some(Overlay::Replay),
        "Esc closes only the dialog"
    );
    assert_eq!(app.ctx.message.as_deref(), Some("cancelled: nothing ran"));
    // `n` cancels too.
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Char('n'));
    assert!(app.replay.confirm.is_none());
    assert!(app.replay.run.is_none());
    assert!(!marker.exists(), "nothing runs without Enter");
    // Enter runs it (the worker's run, synchronously here).
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Enter);
    assert!(marker.exists(), "Enter runs the handler");
    let Some((_, _, Some(report))) = &app.replay.run else {
        panic!("a report")
    };
    assert_eq!(report.handlers.len(), 1);
    assert_eq!(report.handlers[0].exit_code, Some(0));
    // The transcript recorded a block (exit 2); the marker hook allows.
    let (main, _) = app.replay.lines(&app.ctx);
    let text: Vec<String> = main.iter().map(ToString::to_string).collect();
    assert!(
        text.contains(
            &"  vs the transcript: then: PreToolUse hook blocked the call (exit 2); now: did nothing — differs: your hooks no longer block here"
                .to_string()
        ),
        "{text:?}"
    );
}

#[test]
fn a_clean_stop_hook_run_is_recorded_not_no_hook_ran() {
    use hookscope_core::hooks::events::EventName;
    let mut app = opened(EXIT2);
    key(&mut app, KeyCode::BackTab);
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(app.overlay, Some(Overlay::Replay));
    let stop = app
        .replay
        .events
        .iter()
        .position(|e| *e == EventName::Stop)
        .expect("a Stop entry");
    for _ in 0..stop {
        key(&mut app, KeyCode::Char('j'));
    }
    assert_eq!(app.replay.picked(), Some(EventName::Stop));
    let (_, rec) = app.replay.lines(&app.ctx);
    let text: Vec<String> = rec.iter().map(ToString::to_string).collect();
    // Line 76: a stop_hook_summary with one handler, no errors.
    assert_eq!(
        text[..5],
        [
            "Transcript recorded",
            "Stop hook, line 76",
            "  ran, no effect",
            "  handler: python3 /home/dev/.hooks/hook.py hooks_c2_exit2 Stop",
            "  18 ms",
        ],
        "{text:?}"
    );
    assert!(!text.iter().any(|l| l.contains("no hook ran here")));
}

#[test]
fn run_hooks_with_the_scenarios_settings_agrees_with_the_transcript() {
    let mut app = replay_exit2(&[EXIT2_SETTINGS]);
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Enter);
    let Some((_, _, Some(report))) = &app.replay.run else {
        panic!("a report")
    };
    // block_rm_rf.sh exits 2 on `rm -rf`, as the recorded hook did.
    assert_eq!(report.handlers[0].exit_code, Some(2));
    let (main, _) = app.replay.lines(&app.ctx);
    let text: Vec<String> = main.iter().map(ToString::to_string).collect();
    assert!(
        text.contains(
            &"    stderr: Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)"
                .to_string()
        ),
        "{text:?}"
    );
    assert!(
        text.contains(
            &"  vs the transcript: then: PreToolUse hook blocked the call (exit 2); now: blocked the call — agrees"
                .to_string()
        ),
        "{text:?}"
    );
    assert!(
        text.contains(
            &"  final vs the transcript: recorded reject (hook, hook:PreToolUse); simulated reject (hook, hook:PreToolUse) — agrees"
                .to_string()
        ),
        "{text:?}"
    );
    // The pane scrolled to the run's report: it is the first line shown.
    assert_eq!(
        text.get(app.replay.scroll).map(String::as_str),
        Some("Ran your hooks (x)")
    );
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("Ran your hooks (x)"), "{screen}");
    // The status bar says the run ended (it said "running hooks…").
    assert_eq!(
        app.ctx.message.as_deref(),
        Some("ran 1 hook handler for PreToolUse (results in the pane)")
    );
    // Picking another event drops the run.
    key(&mut app, KeyCode::Char('j'));
    assert!(app.replay.run.is_none());
}

/// The write prompt (`w`) expands `~` and `~/…` to the home folder, as a
/// shell does; `~user` and other paths stay as typed.
#[test]
fn write_prompt_expands_the_home_folder() {
    use crate::tui::replay::expand_home;
    let home = std::path::Path::new("/home/u");
    assert_eq!(expand_home("~/p.json", Some(home)), "/home/u/p.json");
    assert_eq!(expand_home("~", Some(home)), "/home/u");
    assert_eq!(expand_home("~bob/p.json", Some(home)), "~bob/p.json");
    assert_eq!(expand_home("./p.json", Some(home)), "./p.json");
    assert_eq!(expand_home("~/p.json", None), "~/p.json");
}

#[test]
fn a_matcher_that_never_fires_shows_the_lints_fix_in_the_pane() {
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = dir.path().join("settings.json");
    let hook = serde_json::json!({"hooks": {"PreToolUse": [
        {"matcher": "mcp__memory", "hooks": [{"type": "command", "command": "true"}]},
        {"matcher": "Task", "hooks": [{"type": "command", "command": "true"}]}
    ]}});
    std::fs::write(&settings, hook.to_string()).expect("write settings");
    let s = settings.display().to_string();
    let app = replay_exit2(&[&s]);
    let (main, _) = app.replay.lines(&app.ctx);
    let text: Vec<String> = main.iter().map(ToString::to_string).collect();
    for line in [
        "      hint: did you mean \"mcp__memory__.*\"?",
        "      hint: write \"Agent\" (\"Agent|Task\" also covers sessions before 2.1.63)",
    ] {
        assert!(
            text.contains(&line.to_string()),
            "missing {line:?} in {text:?}"
        );
    }
}
