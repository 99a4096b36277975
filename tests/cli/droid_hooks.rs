//! Factory Droid hooks (docs/contract.md#factory-droid-hooks): the typed hook activity of Droid's
//! hook lines, Droid's hook configuration and the Droid payload rebuild,
//! over `tests/corpus/real-droid-0.225.2`, plus hostile inputs in temp
//! dirs.
//!
//! Every expected value was recounted with python3 over the JSONL
//! (`json.loads` per line, not the loader): hook lines = user messages with
//! `hookEventName` (23, 10, 7, 8, 4, 4 per session); the only non-zero
//! `hookResults[].exitCode` is the `errors` run's exit 2 on line 14.

use std::path::PathBuf;

use hookscope_core::transcript::hook_activity::HookAction;
use hookscope_core::transcript::{Session, discover, load};
use serde_json::Value;

use crate::support::{by_id, corpus, hookscope, write_file};

/// The Droid 0.225.2 captures.
fn droid() -> PathBuf {
    corpus("real-droid-0.225.2")
}

fn factory() -> PathBuf {
    droid().join("factory")
}

const ERRORS: &str = "1b9da415-c5e6-4a90-b936-c8633676babf";

fn load_all() -> Vec<Session> {
    let found = discover(&[factory().join("sessions")]).expect("discover");
    found
        .sessions
        .iter()
        .map(|s| load(s).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

#[test]
fn one_activity_per_hook_line_in_every_run() {
    let sessions = load_all();
    // python3: (session, hook lines, of them with hookToolCallId).
    let expected = [
        ("5a8cddfb-fae3-441b-8085-94ed3460ada4", 23, 20),
        ("f7e1db17-deb2-4d9f-9bab-65cffa8f840a", 10, 6),
        ("bf23b181-02c9-4443-8222-f4710a76d949", 7, 4),
        (ERRORS, 8, 5),
        ("45cd3bea-9543-450b-a90f-e58635ed4f0f", 4, 1),
        ("98fc4707-6b16-40d1-ab57-c4c6ff985096", 4, 1),
    ];
    assert_eq!(sessions.len(), expected.len());
    for (id, lines, on_calls) in expected {
        let s = by_id(&sessions, id);
        let all: Vec<_> = s.all_hook_activity().collect();
        assert_eq!(all.len(), lines, "{id}");
        let tied = all.iter().filter(|(_, h)| h.on_call()).count();
        assert_eq!(tied, on_calls, "{id}");
        // Each hook line is its own firing.
        assert!(
            all.iter()
                .all(|(_, h)| h.lines.len() == 1 && h.kinds == ["droid/hook"])
        );
        let blocked = all
            .iter()
            .filter(|(_, h)| h.action == HookAction::Blocked)
            .count();
        assert_eq!(blocked, usize::from(id == ERRORS), "{id}");
    }
}

#[test]
fn the_errors_run_blocks_rm_rf_by_exit_2() {
    let sessions = load_all();
    let s = by_id(&sessions, ERRORS);
    let events: Vec<&str> = s
        .lines
        .hook_activity
        .iter()
        .map(|h| h.event_name())
        .collect();
    // python3: hookEventName of the hook lines, in file order (lines 2, 6,
    // 7, 10, 11, 14, 17, 19).
    assert_eq!(
        events,
        [
            "SessionStart",
            "PreToolUse",
            "PostToolUse",
            "PreToolUse",
            "PreToolUse",
            "PreToolUse",
            "Stop",
            "SessionEnd"
        ]
    );
    let lines: Vec<usize> = s.lines.hook_activity.iter().map(|h| h.line()).collect();
    assert_eq!(lines, [2, 6, 7, 10, 11, 14, 17, 19]);
    let h = &s.lines.hook_activity[5];
    assert_eq!(h.action, HookAction::Blocked);
    assert_eq!(
        h.tool_use_id.as_deref(),
        Some("call_CQRmHwfk8ggbj3l8NR2Iqt2S")
    );
    assert_eq!(h.hook_name.as_deref(), Some("PreToolUse:Execute"));
    assert_eq!(h.exit_code, Some(2));
    let stderr = "Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)";
    assert_eq!(h.stderr.as_deref(), Some(stderr));
    assert_eq!(h.reason.as_deref(), Some(stderr));
    assert_eq!(
        h.command.as_deref(),
        Some("python3 /home/dev/.factory/hooks/droid_hook.py PreToolUse")
    );
    // hookEndTime − hookStartTime = 1796158715080 − 1796158715052.
    assert_eq!(h.duration_ms, Some(28));
    // Tied to the `rm -rf build/` call on line 13, whose result reads
    // "Error: <stderr>".
    assert_eq!(h.call_line, Some(13));
    let call = s
        .tool_calls()
        .find(|c| c.tool_use_id == "call_CQRmHwfk8ggbj3l8NR2Iqt2S")
        .expect("call");
    assert_eq!(call.line, 13);
    let result = call.result.as_ref().expect("result");
    assert_eq!(result.text, format!("Error: {stderr}"));
    assert_eq!(
        s.lines
            .hooks_of_call(13, "call_CQRmHwfk8ggbj3l8NR2Iqt2S")
            .map(|h| h.line())
            .collect::<Vec<_>>(),
        [14]
    );
    // The SessionStart run before the prompt belongs to the first turn.
    assert_eq!(s.turns.len(), 1);
    assert_eq!(s.lines.hook_activity[0].turn, 0);
    assert_eq!(
        s.lines.hook_activity[0].hook_name.as_deref(),
        Some("SessionStart:startup")
    );
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
}

#[test]
fn cli_find_blocked_and_hook_see_droid() {
    let out = hookscope()
        .arg("find")
        .arg(factory().join("sessions"))
        .args(["--agent", "droid", "--blocked", "--tool-name-pattern", ""])
        .args(["--json", "--limit", "1000"])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let records = v["records"].as_array().expect("records");
    assert_eq!(records.len(), 1, "{v}");
    let r = &records[0];
    assert_eq!(r["tool_use_id"], "call_CQRmHwfk8ggbj3l8NR2Iqt2S");
    assert_eq!(r["agent"], "droid");
    let activity = r["hook_activity"].as_array().expect("hook_activity");
    assert_eq!(activity.len(), 1);
    assert_eq!(activity[0]["action"], "blocked");
    assert_eq!(activity[0]["exit_code"], 2);
    // --hook PostToolUse: the calls with a PostToolUse line (python3: 12,
    // one per successful tool).
    let out = hookscope()
        .arg("find")
        .arg(factory().join("sessions"))
        .args([
            "--agent",
            "droid",
            "--hook",
            "PostToolUse",
            "--tool-name-pattern",
            "",
        ])
        .args(["--json", "--limit", "1000"])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let records = v["records"].as_array().expect("records");
    assert_eq!(records.len(), 12);
    assert!(records.iter().all(|r| r["is_error"] == false));
}

#[test]
fn cli_hooks_activity_lists_a_droid_session() {
    let out = hookscope()
        .args(["hooks", "--activity", ERRORS])
        .arg(factory().join("sessions"))
        .arg("--json")
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let items = v.as_array().expect("array");
    assert_eq!(items.len(), 8);
    let blocked: Vec<&Value> = items.iter().filter(|i| i["action"] == "blocked").collect();
    assert_eq!(blocked.len(), 1);
    assert_eq!(blocked[0]["line"], Value::Null); // `lines` is the field
    assert_eq!(blocked[0]["lines"], serde_json::json!([14]));
    assert_eq!(
        blocked[0]["what"],
        "blocked by hook: Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)"
    );
}

/// Writes a Droid transcript (session_start, a prompt, one Execute call
/// `t1` on line 3, then `hooks` as hook lines from line 4) and loads it.
fn droid_session(hooks: &[&str]) -> Session {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("s.jsonl");
    let mut text = String::from(concat!(
        r#"{"type":"session_start","id":"s1","title":"t","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","id":"u1","message":{"role":"user","content":[{"type":"text","text":"go"}]}}"#,
        "\n",
        r#"{"type":"message","id":"a1","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Execute","input":{"command":"rm -rf /"}}]}}"#,
        "\n",
    ));
    for h in hooks {
        text.push_str(&format!(
            r#"{{"type":"message","id":"h","parentId":"a1","message":{{"role":"user","content":[],"visibility":"user_only",{h}}}}}"#
        ));
        text.push('\n');
    }
    std::fs::write(&path, text).expect("write");
    hookscope_core::transcript::droid::load_session(&path).expect("load")
}

#[test]
fn hostile_hook_lines_are_diagnostics_and_keep_the_rest() {
    let s = droid_session(&[
        // Wrong types everywhere.
        r#""hookEventName":3,"hookMatcher":["x"],"hookResults":"exit 2","hookCommands":{"command":"x"},"hookToolCallId":7"#,
        // hookResults entries that are not objects, an exitCode string.
        r#""hookEventName":"PreToolUse","hookToolCallId":"t1","hookResults":[5,{"exitCode":"2","stderr":"no"}],"hookCommands":[{"type":"command"}]"#,
        // End before start: no duration.
        r#""hookEventName":"Stop","hookResults":[],"hookStartTime":10,"hookEndTime":5"#,
    ]);
    let hooks = &s.lines.hook_activity;
    assert_eq!(hooks.len(), 3);
    assert_eq!(hooks[0].event, None);
    assert_eq!(hooks[0].tool_use_id, None);
    assert_eq!(hooks[0].action, HookAction::Succeeded);
    assert_eq!(hooks[1].tool_use_id.as_deref(), Some("t1"));
    assert_eq!(hooks[1].call_line, Some(3));
    assert_eq!(hooks[1].exit_code, None);
    assert_eq!(hooks[1].stderr.as_deref(), None);
    assert_eq!(hooks[2].duration_ms, None);
    let messages: Vec<(Option<usize>, &str)> = s
        .diagnostics
        .iter()
        .map(|d| (d.line(), d.message.as_str()))
        .collect();
    assert_eq!(
        messages,
        [
            (
                Some(4),
                "hook line: hookEventName is a JSON number where a string belongs; the rest of it is kept"
            ),
            (
                Some(4),
                "hook line: hookMatcher is a JSON array where a string belongs; the rest of it is kept"
            ),
            (
                Some(4),
                "hook line: hookToolCallId is a JSON number where a string belongs; the rest of it is kept"
            ),
            (
                Some(4),
                "hook line: hookCommands is a JSON object where a list belongs; the rest of it is kept"
            ),
            (
                Some(4),
                "hook line: hookResults is a JSON string where a list belongs; the rest of it is kept"
            ),
            (
                Some(5),
                "hook line: hookCommands[0] has no command string; the rest of it is kept"
            ),
            (
                Some(5),
                "hook line: hookResults[0] is a JSON number where an object belongs; the rest of it is kept"
            ),
            (
                Some(5),
                "hook line: hookResults[1].exitCode is a JSON string where an integer belongs; the rest of it is kept"
            ),
        ]
    );
}

#[test]
fn exit_codes_and_json_stdout_decide_the_action() {
    let line = |event: &str, code: i64, stdout: &str, stderr: &str| {
        format!(
            r#""hookEventName":"{event}","hookMatcher":"Execute","hookToolCallId":"t1","hookStatus":"completed","hookCommands":[{{"type":"command","command":"h.sh"}}],"hookResults":[{{"exitCode":{code},"stdout":{},"stderr":{}}}]"#,
            serde_json::to_string(stdout).expect("json"),
            serde_json::to_string(stderr).expect("json")
        )
    };
    let lines = [
        line("PreToolUse", 1, "", "oops"),
        line(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no rm"}}"#,
            "",
        ),
        line(
            "PostToolUse",
            0,
            r#"{"decision":"block","reason":"fix it"}"#,
            "",
        ),
        line(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput":{"updatedInput":{"command":"ls"}}}"#,
            "",
        ),
        line("SessionStart", 0, "remember X", ""),
        line("SessionEnd", 2, "", "late"),
        r#""hookEventName":"Stop","hookStatus":"cancelled""#.to_string(),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let s = droid_session(&refs);
    let got: Vec<(HookAction, Option<&str>)> = s
        .lines
        .hook_activity
        .iter()
        .map(|h| (h.action, h.reason.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (HookAction::Failed, Some("oops")),
            (HookAction::Blocked, Some("no rm")),
            // A PostToolUse block objects after the call ran.
            (HookAction::Flagged, Some("fix it")),
            (HookAction::Rewrote, None),
            (HookAction::AddedContext, None),
            (HookAction::Failed, Some("late")),
            (HookAction::Cancelled, None),
        ]
    );
    let rewrite = s.lines.hook_activity[3].rewrite.as_ref().expect("rewrite");
    assert_eq!(rewrite.summary(40), "rm -rf / → ls");
    assert_eq!(s.lines.hook_activity[4].context, ["remember X"]);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
}

/// The captured stdin payloads of one run's `<Event>.jsonl`, in file order.
fn captured(run: &str, event: &str) -> Vec<Value> {
    let path = droid()
        .join("runs")
        .join(run)
        .join("hooks")
        .join(format!("{event}.jsonl"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("capture line")["stdin"].clone())
        .collect()
}

#[test]
fn rebuilt_droid_payloads_match_every_capture_field_by_field() {
    use hookscope_core::hooks::events::{At, EventName, all_payloads, payload};
    let sessions = load_all();
    let mut compared = 0;
    for run in [
        "tools",
        "multiturn",
        "subagent",
        "errors",
        "denied",
        "abort",
    ] {
        for (event, name) in [
            (EventName::SessionStart, "SessionStart"),
            (EventName::PreToolUse, "PreToolUse"),
            (EventName::PostToolUse, "PostToolUse"),
            (EventName::Stop, "Stop"),
            (EventName::SessionEnd, "SessionEnd"),
        ] {
            let caps = captured(run, name);
            let Some(first) = caps.first() else {
                continue;
            };
            let id = first["session_id"].as_str().expect("session_id");
            let s = by_id(&sessions, id);
            let rebuilt: Vec<_> = if matches!(event, EventName::PreToolUse | EventName::PostToolUse)
            {
                // Each capture pairs with the first unused hook line of the
                // event whose matcher is its tool_name (parallel calls' hooks
                // run at once, so the capture order of those may differ);
                // that line's hookToolCallId names the call.
                let mut used = std::collections::HashSet::new();
                caps.iter()
                    .map(|cap| {
                        let want = format!("{name}:{}", cap["tool_name"].as_str().unwrap_or(""));
                        let (i, h) = s
                            .lines
                            .hook_activity
                            .iter()
                            .enumerate()
                            .find(|(i, h)| {
                                h.hook_name.as_deref() == Some(want.as_str()) && !used.contains(i)
                            })
                            .unwrap_or_else(|| panic!("{run}: no hook line for {want}"));
                        used.insert(i);
                        let id = h.tool_use_id.clone().expect("hookToolCallId");
                        payload(s, event, &At::ToolUseId(id)).expect("rebuilt")
                    })
                    .collect()
            } else {
                all_payloads(s, event)
            };
            assert_eq!(rebuilt.len(), caps.len(), "{run} {name}");
            for (cap, p) in caps.iter().zip(&rebuilt) {
                let cap = cap.as_object().expect("object");
                let got = p.json.as_object().expect("object");
                let left: Vec<&str> = p.left_out.iter().map(|l| l.field.as_str()).collect();
                let expected_left: &[&str] = match name {
                    "SessionStart" => &["CLAUDE_ENV_FILE"],
                    "Stop" => &["tool_execution_count", "elapsed_time"],
                    "SessionEnd" => &["reason", "session_duration_ms"],
                    _ => &[],
                };
                assert_eq!(left, expected_left, "{run} {name}");
                for (k, v) in cap {
                    if expected_left.contains(&k.as_str()) {
                        assert!(!got.contains_key(k), "{run} {name} {k}");
                        continue;
                    }
                    let g = got.get(k).unwrap_or_else(|| panic!("{run} {name}: no {k}"));
                    if k == "transcript_path" {
                        // The capture's machine path; same sessions/<slug>/<file>.
                        let tail =
                            |p: &str| p.rsplitn(3, '/').take(2).collect::<Vec<_>>().join("/");
                        assert_eq!(
                            tail(g.as_str().expect("str")),
                            tail(v.as_str().expect("str"))
                        );
                        continue;
                    }
                    assert_eq!(g, v, "{run} {name} {k}");
                }
                assert_eq!(got.len() + left.len(), cap.len(), "{run} {name}: {got:?}");
                compared += 1;
            }
        }
    }
    // python3: 57 capture lines less the one _responses.jsonl line.
    assert_eq!(compared, 56);
}

/// `hooks --agent droid` with `FACTORY_HOME_OVERRIDE` at a temp home holding
/// the corpus's `factory/settings.json` (no hooks.json: Droid falls back to
/// its `hooks` key): the 9 events, matcher "*" on the tool events.
#[test]
fn cli_hooks_agent_droid_reads_the_corpus_settings_in_a_temp_home() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let proj = tmp.path().join("proj");
    std::fs::create_dir_all(&proj).expect("mkdir");
    let settings = std::fs::read_to_string(factory().join("settings.json")).expect("read");
    write_file(home.join(".factory/settings.json"), &settings);
    let run = |args: &[&str]| {
        let out = hookscope()
            .args(["hooks", "--agent", "droid", "--json", "--cwd"])
            .arg(&proj)
            .args(args)
            .env("FACTORY_HOME_OVERRIDE", &home)
            .env("HOME", tmp.path().join("nohome"))
            .output()
            .expect("run");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).expect("json")
    };
    let v = run(&[]);
    let config = &v["config"];
    assert_eq!(config["agent"], "droid");
    let found: Vec<(String, bool)> = config["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            let p = f["path"].as_str().unwrap_or("");
            let rel = p
                .strip_prefix(tmp.path().to_str().expect("utf8"))
                .unwrap_or(p);
            (rel.to_string(), f["found"] == true)
        })
        .collect();
    assert_eq!(
        found,
        [
            ("/home/.factory/hooks.json".to_string(), false),
            ("/home/.factory/settings.json".to_string(), true),
            ("/proj/.factory/hooks.json".to_string(), false),
            ("/proj/.factory/hooks/hooks.json".to_string(), false),
            ("/proj/.factory/settings.json".to_string(), false),
        ]
    );
    let handlers = config["handlers"].as_array().expect("handlers");
    // python3: 9 event keys, one handler each, in file order.
    let events: Vec<&str> = handlers
        .iter()
        .map(|h| h["event"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        events,
        [
            "PreToolUse",
            "PostToolUse",
            "Notification",
            "UserPromptSubmit",
            "Stop",
            "SubagentStop",
            "PreCompact",
            "SessionStart",
            "SessionEnd"
        ]
    );
    for h in handlers {
        let event = h["event"].as_str().unwrap_or("");
        assert_eq!(
            h["command"],
            format!("python3 /home/dev/.factory/hooks/droid_hook.py {event}")
        );
        assert_eq!(h["effective_timeout"], 30.0);
        assert_eq!(h["inactive"], Value::Null);
        let matcher = if event.ends_with("ToolUse") {
            json_str("*")
        } else {
            Value::Null
        };
        assert_eq!(h["matcher"], matcher, "{event}");
    }
    let m = run(&["--match", "PreToolUse", "Execute"]);
    let verdicts = m["verdicts"].as_array().expect("verdicts");
    assert_eq!(verdicts.len(), 1);
    assert_eq!(verdicts[0]["fires"], true);
    // An event Droid does not have is refused.
    let out = hookscope()
        .args([
            "hooks",
            "--agent",
            "droid",
            "--match",
            "PostToolUseFailure",
            "Execute",
        ])
        .env("FACTORY_HOME_OVERRIDE", &home)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

fn json_str(s: &str) -> Value {
    Value::String(s.to_string())
}

fn droid_load(
    factory: &std::path::Path,
    cwd: Option<&std::path::Path>,
) -> hookscope_core::hooks::settings::HookConfig {
    use hookscope_core::hooks::settings::{LoadOptions, droid};
    droid::load(
        &LoadOptions {
            cwd: cwd.map(std::path::Path::to_path_buf),
            ..LoadOptions::default()
        },
        Some(factory.to_path_buf()),
    )
}

const ONE_HOOK: &str = r#"{"hooks":{"PreToolUse":[{"matcher":"Execute|Create","hooks":[{"type":"command","command":"a.sh"}]}]}}"#;

#[test]
fn droid_hooks_json_wins_over_settings_and_legacy_is_a_fallback() {
    use hookscope_core::hooks::contract::Version;
    use hookscope_core::hooks::settings::{explain, synthetic_payload};
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = tmp.path().join("factory");
    let proj = tmp.path().join("proj");
    write_file(f.join("hooks.json"), ONE_HOOK);
    write_file(
        f.join("settings.json"),
        r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"s.sh"}]}]}}"#,
    );
    write_file(
        proj.join(".factory/hooks/hooks.json"),
        r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"legacy.sh","timeout":5}]}]}}"#,
    );
    write_file(
        proj.join(".factory/settings.json"),
        r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"p.sh"}]}]}}"#,
    );
    let c = droid_load(&f, Some(&proj));
    let commands: Vec<&str> = c
        .handlers
        .iter()
        .filter_map(|h| h.command.as_deref())
        .collect();
    assert_eq!(commands, ["a.sh", "legacy.sh"]);
    assert_eq!(c.handlers[0].effective_timeout, 60.0);
    assert_eq!(c.handlers[1].effective_timeout, 5.0);
    let v = Version::latest();
    let fires = |tool: &str| {
        let payload = synthetic_payload("PreToolUse", tool, None, &v);
        explain(&c, "PreToolUse", &payload, &v)[0].fires
    };
    // "simple strings exact, regex supported": Execute|Create is a list.
    assert!(fires("Execute"));
    assert!(fires("Create"));
    assert!(!fires("Read"));
    assert!(!fires("ExecuteX"));
}

#[test]
fn hostile_droid_hook_files_are_problems_not_crashes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Not JSON: its problem; the settings.json fallback is not used (the
    // file is there).
    let a = tmp.path().join("a");
    write_file(a.join("hooks.json"), "{not json");
    write_file(a.join("settings.json"), ONE_HOOK);
    let c = droid_load(&a, None);
    assert!(c.handlers.is_empty());
    assert_eq!(c.files.len(), 1);
    assert_eq!(c.files[0].problems[0].id, "settings-invalid-json");
    // Huge: over the cap, not read.
    let b = tmp.path().join("b");
    write_file(b.join("hooks.json"), " ".repeat((4 << 20) + 1));
    let c = droid_load(&b, None);
    assert!(c.handlers.is_empty());
    assert_eq!(c.files[0].problems[0].id, "settings-unreadable");
    // A FIFO: not opened (no hang).
    #[cfg(unix)]
    {
        let d = tmp.path().join("d");
        std::fs::create_dir_all(&d).expect("mkdir");
        let fifo = d.join("hooks.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        let c = droid_load(&d, None);
        assert!(c.handlers.is_empty());
        assert_eq!(c.files[0].problems[0].id, "settings-unreadable");
        assert!(
            c.files[0].problems[0].message.starts_with("not read"),
            "{:?}",
            c.files[0].problems
        );
    }
    // Events and handler types Droid does not have never run.
    let e = tmp.path().join("e");
    write_file(
        e.join("hooks.json"),
        r#"{"hooks":{"PostToolUseFailure":[{"hooks":[{"type":"command","command":"x"}]}],
                     "Stop":[{"hooks":[{"type":"http","url":"http://127.0.0.1:9/"}]}]}}"#,
    );
    let c = droid_load(&e, None);
    assert_eq!(c.handlers.len(), 2);
    assert!(c.handlers.iter().all(|h| h.inactive.is_some()));
    let ids: Vec<&str> = c.files[0].problems.iter().map(|p| p.id).collect();
    assert_eq!(ids, ["droid-unsupported", "droid-unsupported"]);
}

/// `replay --exec` on a Droid session uses the Droid config (here
/// `$FACTORY_HOME_OVERRIDE/.factory/hooks.json`) and Droid's environment.
#[test]
fn cli_replay_exec_on_a_droid_session_runs_droid_hooks_with_droid_env() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write_file(
        tmp.path().join(".factory/hooks.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"Execute","hooks":[{"type":"command","command":"cat >/dev/null; echo no >&2; exit 2"}]}]}}"#,
    );
    let session = factory()
        .join("sessions/-home-dev-work-dr-errors")
        .join(format!("{ERRORS}.jsonl"));
    let out = hookscope()
        .arg("replay")
        .arg(&session)
        .args([
            "--event",
            "PreToolUse",
            "--at",
            "call_CQRmHwfk8ggbj3l8NR2Iqt2S",
            "--exec",
            "--json",
        ])
        .env("FACTORY_HOME_OVERRIDE", tmp.path())
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["payload"]["tool_name"], "Execute");
    assert_eq!(v["payload"].get("tool_use_id"), None);
    let h = &v["exec"]["handlers"][0];
    assert_eq!(h["exit_code"], 2);
    let names: Vec<&str> = h["env_names"]
        .as_array()
        .expect("env_names")
        .iter()
        .filter_map(Value::as_str)
        .filter(|n| n.contains("PROJECT_DIR") || n.starts_with("CLAUDE"))
        .collect();
    assert_eq!(
        names,
        [
            "DROID_PROJECT_DIR",
            "FACTORY_PROJECT_DIR",
            "CLAUDE_PROJECT_DIR"
        ]
    );
    assert_eq!(v["exec"]["vs_transcript"]["agrees"], true);
    let recorded = v["recorded"].as_array().expect("recorded");
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["source"], "droid_hook");
    assert_eq!(recorded[0]["line"], 14);
}

/// A parallel batch (two `tool_use` blocks in one assistant message, so on
/// one line) gets each hook line by `hookToolCallId` only. python3 over
/// the JSONL: the errors run's line 9 holds `frobnicate`
/// (`call_1Fat…`, PreToolUse line 11) and `Read` (`call_fmTA…`,
/// PreToolUse line 10); the tools run's line 24 Glob/Grep (Pre 25/26,
/// Post 27/28) and line 41 Read/Edit (Pre 42/43).
#[test]
fn parallel_batch_hooks_attach_by_hook_tool_call_id() {
    let sessions = load_all();
    // (session, call, its hooks as (hook_name, line)).
    type Hooks = &'static [(&'static str, usize)];
    let expected: [(&str, &str, Hooks); 6] = [
        (
            ERRORS,
            "call_1FatynadI38R0ipkHnUY8j4i",
            &[("PreToolUse:frobnicate", 11)],
        ),
        (
            ERRORS,
            "call_fmTAmKAhShI0Bv7dHKO8Hgme",
            &[("PreToolUse:Read", 10)],
        ),
        (
            "5a8cddfb-fae3-441b-8085-94ed3460ada4",
            "call_b7dmQyjbsJ4os59G05pbfA25",
            &[("PreToolUse:Glob", 25), ("PostToolUse:Glob", 27)],
        ),
        (
            "5a8cddfb-fae3-441b-8085-94ed3460ada4",
            "call_9N46BMSQeyA54RoYEDf48Qag",
            &[("PreToolUse:Grep", 26), ("PostToolUse:Grep", 28)],
        ),
        (
            "5a8cddfb-fae3-441b-8085-94ed3460ada4",
            "call_nhO23MDARq3Z4cwap8FwjVPh",
            &[("PreToolUse:Read", 42)],
        ),
        (
            "5a8cddfb-fae3-441b-8085-94ed3460ada4",
            "call_fptbslfmVmMt151VrMaa6O8O",
            &[("PreToolUse:Edit", 43)],
        ),
    ];
    for (sid, call_id, hooks) in expected {
        let s = by_id(&sessions, sid);
        let record = s
            .turns
            .iter()
            .flat_map(|t| t.tool_calls())
            .find(|r| r.tool_use_id == call_id)
            .unwrap_or_else(|| panic!("no call {call_id}"));
        let got: Vec<(String, usize)> = s
            .hooks_of_call(None, record)
            .map(|h| (h.hook_name.clone().unwrap_or_default(), h.lines[0]))
            .collect();
        let want: Vec<(String, usize)> = hooks.iter().map(|(n, l)| (n.to_string(), *l)).collect();
        assert_eq!(got, want, "{call_id}");
    }
    // `find --hook PreToolUse:Read`: only the four Read calls with such a
    // hook line (python3), not their batch mates.
    let out = hookscope()
        .arg("find")
        .arg(factory().join("sessions"))
        .args(["--hook", "PreToolUse:Read", "--tool-name-pattern", ""])
        .args(["--json", "--limit", "1000"])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut ids: Vec<&str> = v["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| r["tool_use_id"].as_str().unwrap_or_default())
        .collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "call_fmTAmKAhShI0Bv7dHKO8Hgme",
            "call_hvcHgK57RLylCCwWh2FgsEEu",
            "call_jvonBl1vtfyZCEG6oj6MKL7h",
            "call_nhO23MDARq3Z4cwap8FwjVPh"
        ]
    );
}
