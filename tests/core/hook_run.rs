//! `service::HookRun`: the user's hooks on one recorded event, as the CLI's
//! `replay --exec` and the TUI's `x` use it: the real hooks_c2_exit2 session
//! (2.1.332) and its blocked `rm -rf` PreToolUse, with a settings file that
//! has a handler the event reaches (the scenario's real script, by its
//! absolute path), an http handler with a header variable that
//! `allowedEnvVars` does not name, and a handler for another tool.

use hookscope_core::hooks::cwd_map::CwdMap;
use hookscope_core::hooks::dialect::{Dialect, RunContext, Sources};
use hookscope_core::hooks::events::{At, EventName, payload};
use hookscope_core::hooks::exec::{ProcessRunner, Verdict};
use hookscope_core::service::HookRun;
use hookscope_core::transcript::{Agent, claude_code};
use serde_json::json;

use crate::support::{C2, RM_RF, package_path, write_file};

#[test]
fn previews_runs_and_compares_the_recorded_rm_rf_block() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = package_path("assets/examples/hooks_c2_exit2/.claude/hooks/block_rm_rf.sh");
    let settings = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": script.display().to_string()},
            {"type": "http", "url": "http://127.0.0.1:9/hook",
             "headers": {"Authorization": "Bearer $NOPE"}}
        ]},
        {"matcher": "Write", "hooks": [{"type": "command", "command": "exit 0"}]}
    ]}});
    let path = write_file(
        dir.path().join("settings.json"),
        serde_json::to_string_pretty(&settings).expect("json"),
    );
    let session = claude_code::load_session(&package_path(C2), &[]).expect("loads");
    assert_eq!(session.agent, Agent::ClaudeCode);
    let p = payload(&session, EventName::PreToolUse, &At::parse(RM_RF)).expect("payload");
    let map = CwdMap::default();
    let context = RunContext::for_replay(&session, &p, &map, &[]);
    assert_eq!(context.version.to_string(), "2.1.332");
    let hooks = Dialect::for_agent(session.agent).load(&Sources {
        settings: vec![path.clone()],
        version: context.version.clone(),
        ..Sources::default()
    });
    let run = HookRun::new(&session, &p, &hooks, context);

    let preview = run.preview();
    let shown = path.display().to_string();
    assert_eq!(preview.settings_files, vec![shown.clone()]);
    let labels: Vec<&str> = preview.would_run.iter().map(|w| w.label.as_str()).collect();
    assert_eq!(
        labels,
        vec![
            format!("#1 {shown}:7 (given)"),
            format!("#2 {shown}:11 (given)")
        ]
    );
    // Only the http handler says what it would POST and what it sends empty.
    assert_eq!(preview.would_run[0].sent_empty, None);
    assert_eq!(
        preview.would_run[0].line(),
        format!("  would run: #1 {shown}:7 (given): {}", script.display())
    );
    assert_eq!(
        preview.would_run[1].sent_empty,
        Some(vec!["NOPE".to_string()])
    );
    assert_eq!(
        preview.would_run[1].line(),
        format!(
            "  would POST to http://127.0.0.1:9/hook (headers: Authorization): #2 {shown}:11 (given) (only with --exec); left empty, not in allowedEnvVars: $NOPE"
        )
    );
    assert_eq!(preview.not_reached.len(), 1);
    assert_eq!(preview.not_reached[0].command, "exit 0");
    assert_eq!(
        preview.not_reached[0].line(),
        format!(
            "  not reached: #3 {shown}:23 (given): {}",
            preview.not_reached[0].reason
        )
    );
    assert!(
        preview.not_reached[0].reason.contains("Write"),
        "{:?}",
        preview.not_reached[0]
    );

    // The run: the http handler cannot reach anyone (nothing listens on
    // port 9), so although the script blocks as the transcript recorded,
    // the comparison says loudly that this run failed open.
    let plan = run.plan(&|_| None).expect("plan");
    let report = plan.run(&ProcessRunner);
    let agreement = run
        .compare(&report)
        .expect("Claude Code records hook activity");
    assert_eq!(agreement.verdict, Verdict::FailedOpen, "{}", agreement.text);
    let failed = format!(
        "then: PreToolUse hook blocked the call (exit 2); now: blocked the call — FAILED OPEN: #2 {shown}:11 (given) http error"
    );
    assert!(agreement.text.starts_with(&failed), "{}", agreement.text);

    // The script alone agrees with the record.
    let alone = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": script.display().to_string()}
    ]}]}});
    let path = write_file(dir.path().join("alone.json"), alone.to_string());
    let context = RunContext::for_replay(&session, &p, &map, &[]);
    let hooks = Dialect::for_agent(session.agent).load(&Sources {
        settings: vec![path],
        version: context.version.clone(),
        ..Sources::default()
    });
    let run = HookRun::new(&session, &p, &hooks, context);
    let report = run.plan(&|_| None).expect("plan").run(&ProcessRunner);
    let agreement = run
        .compare(&report)
        .expect("Claude Code records hook activity");
    assert_eq!(agreement.verdict, Verdict::Agrees, "{}", agreement.text);
    assert_eq!(
        agreement.text,
        "then: PreToolUse hook blocked the call (exit 2); now: blocked the call — agrees"
    );
}
