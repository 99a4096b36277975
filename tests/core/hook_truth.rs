//! `--exec`'s honesty checked against the whole real corpus
//! (`tests/corpus/real-cc-2.1.332`): every hook event of every session is
//! rebuilt, the scenario's own hooks answer it as they answered the real
//! Claude Code 2.1.332 (their recorded answers, `hooks/<capture>/_responses.jsonl`,
//! given to the payloads their README says each handler acted on), the
//! answers are read, merged and put through the permission simulation by
//! `hooks::exec::execute`, and the result is compared with what the
//! transcript recorded (`hooks::exec::agreement`). Every firing must agree,
//! with the labels below; every tool call's simulated `permissionDecision`
//! must equal the recorded one (decision, source and reason).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookscope_core::hooks::contract::Version;
use hookscope_core::hooks::events::{EventName, all_payloads};
use hookscope_core::hooks::exec::permissions::{Permissions, RuleContext};
use hookscope_core::hooks::exec::{
    HandlerCommand, RunOutput, RunSpec, RunStatus, Runner, Seen, Shell, Verdict, agreement, execute,
};
use hookscope_core::hooks::replay::{activity_at, recorded_permission};
use hookscope_core::transcript::{Session, discover, load};
use serde_json::Value;

use crate::support::REAL_CC;

fn session(scenario: &Path) -> Session {
    let found = discover(&[scenario.join("projects")]).expect("discover");
    assert_eq!(found.sessions.len(), 1, "{}", scenario.display());
    load(&found.sessions[0]).expect("load")
}

/// One recorded answer of `_responses.jsonl`.
#[derive(Clone, Debug)]
struct Answer {
    event: String,
    handler: String,
    stdout: String,
    stderr: String,
    exit: i32,
}

fn answers(scenario: &Path) -> Vec<Answer> {
    let Ok(dirs) = std::fs::read_dir(scenario.join("hooks")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for dir in dirs.filter_map(Result::ok) {
        let Ok(text) = std::fs::read_to_string(dir.path().join("_responses.jsonl")) else {
            continue;
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).expect("response line");
            out.push(Answer {
                event: v["event"].as_str().unwrap_or("").into(),
                handler: v["handler"].as_str().unwrap_or("hook").into(),
                stdout: v["stdout"].as_str().unwrap_or("").into(),
                stderr: v["stderr"].as_str().unwrap_or("").into(),
                exit: v["exit"]
                    .as_i64()
                    .and_then(|c| i32::try_from(c).ok())
                    .unwrap_or(0),
            });
        }
    }
    out
}

/// The scenario's handlers on `event` that acted, as its README says
/// (`hooks_c8_outcomes/README.md` "Hooks"; the main README's scenario
/// table), with their recorded answer; `first_stop` is whether this is the
/// session's first Stop (c8's stop_lint blocks once per session).
fn acting(
    scenario: &str,
    event: &str,
    p: &Value,
    first_stop: bool,
    answers: &[Answer],
) -> Vec<Answer> {
    let answer = |handler: &str, pick: &dyn Fn(&Answer) -> bool| {
        answers
            .iter()
            .find(|a| a.event == event && a.handler == handler && pick(a))
            .cloned()
            .unwrap_or_else(|| panic!("{scenario}: no recorded answer of {handler} on {event}"))
    };
    let any = |_: &Answer| true;
    let command = p["tool_input"]["command"].as_str().unwrap_or("");
    let tool = p["tool_name"].as_str().unwrap_or("");
    let prompt = p["prompt"].as_str().unwrap_or("");
    let stop_active = p["stop_hook_active"] == Value::Bool(true);
    let mut out = Vec::new();
    match (scenario, event) {
        ("hooks_c2_exit2" | "hooks_c3_deny_json", "PreToolUse") if command.contains("rm -rf") => {
            out.push(answer("hook", &any));
        }
        ("hooks_c5_stop_block", "Stop") if !stop_active => out.push(answer("hook", &any)),
        ("hooks_c6_prompt_context", "SessionStart" | "UserPromptSubmit") => {
            out.push(answer("hook", &any));
        }
        ("hooks_c8_outcomes", "PreToolUse") if tool == "Bash" => {
            if command == "npm test" {
                out.push(answer("bash_rewrite", &any));
            }
            if command.starts_with("git push") {
                out.push(answer("push_ask", &any));
            }
        }
        ("hooks_c8_outcomes", "PostToolUse") => {
            if tool == "Bash" && command.starts_with("git commit") {
                out.push(answer("commit_block", &any));
            }
            let file = p["tool_input"]["file_path"].as_str().unwrap_or("");
            if tool == "Read" && file.ends_with("README.md") {
                out.push(answer("readme_ctx", &any));
            }
        }
        ("hooks_c8_outcomes", "UserPromptSubmit") => {
            if prompt.contains("DROP TABLE") {
                out.push(answer("prompt_gate", &|a| a.exit == 2));
            } else if prompt.contains("deploy") {
                out.push(answer("prompt_gate", &|a| a.exit == 0));
            }
        }
        ("hooks_c8_outcomes", "Stop") if !stop_active && first_stop => {
            out.push(answer("stop_lint", &any));
        }
        _ => {}
    }
    out
}

/// How the scenario's acting handlers answer in a run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// As they answered the real Claude Code.
    Recorded,
    /// Not at all (exit 0, nothing printed): the hooks no longer act.
    Silent,
    /// The shell cannot find them (exit 127): they fail open.
    Missing,
}

/// Answers each spec (labelled by handler) with its recorded answer; a
/// handler with none prints nothing and exits 0, as the capture hooks did.
struct Recorded(Vec<Answer>, Mode);

impl Runner for Recorded {
    fn run(&self, spec: &RunSpec, _stdin: &[u8]) -> RunOutput {
        let a = self.0.iter().find(|a| a.handler == spec.label);
        if a.is_some() && self.1 == Mode::Missing {
            return RunOutput {
                status: RunStatus::LaunchFailed {
                    reason: format!("not found: sh: 1: {}: not found", spec.label),
                    exit_code: Some(127),
                },
                stdout: Vec::new(),
                stderr: format!("sh: 1: {}: not found\n", spec.label).into_bytes(),
                stdout_dropped: 0,
                stderr_dropped: 0,
                duration_ms: 1,
                notes: Vec::new(),
            };
        }
        RunOutput {
            status: RunStatus::Exited {
                code: a.map_or(0, |a| a.exit),
            },
            stdout: a.map_or_else(Vec::new, |a| a.stdout.clone().into_bytes()),
            stderr: a.map_or_else(Vec::new, |a| a.stderr.clone().into_bytes()),
            stdout_dropped: 0,
            stderr_dropped: 0,
            duration_ms: 1,
            notes: Vec::new(),
        }
    }
}

fn spec(label: &str) -> RunSpec {
    RunSpec {
        label: label.into(),
        command: HandlerCommand::Shell {
            command: label.into(),
            shell: Shell::Sh,
        },
        cwd: PathBuf::from("/"),
        cwd_note: None,
        env: Vec::new(),
        timeout_secs: 600.0,
        write_root: None,
        on_failure_block: false,
        is_async: false,
    }
}

/// The `claude --allowedTools` of each scenario (its README's command
/// line); none for the bypassPermissions runs.
fn allowed_tools(scenario: &str) -> Vec<String> {
    let list: &[&str] = match scenario {
        "hooks" | "compact" => &["Read", "Edit", "Bash", "TaskCreate", "TaskUpdate", "Agent"],
        "hooks_c8_outcomes" => &["Read", "Edit", "Write", "Bash", "Agent"],
        _ => &[],
    };
    list.iter().map(|s| s.to_string()).collect()
}

#[derive(Default)]
struct Truth {
    /// scenario → "Event: then label" → firings.
    labels: BTreeMap<String, BTreeMap<String, usize>>,
    /// Firings compared.
    firings: usize,
    /// Disagreements, in words.
    wrong: Vec<String>,
    /// Recorded permissionDecision shape → calls whose simulation agreed.
    finals: BTreeMap<String, usize>,
    /// Calls with a recorded permissionDecision.
    calls: usize,
    /// Verdict → firings.
    verdicts: BTreeMap<String, usize>,
}

fn truth(mode: Mode) -> Truth {
    let mut t = Truth::default();
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(REAL_CC)
        .expect("corpus")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("projects").is_dir())
        .collect();
    scenarios.sort();
    assert_eq!(scenarios.len(), 9);
    for dir in scenarios {
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name")
            .to_string();
        let s = session(&dir);
        let answers = answers(&dir);
        let perms = Permissions {
            cli_allow: allowed_tools(&name),
            ..Permissions::default()
        };
        for &event in EventName::ALL {
            for (i, p) in all_payloads(&s, event).iter().enumerate() {
                let ev = event.as_str();
                let mut acting = acting(&name, ev, &p.json, i == 0, &answers);
                if mode == Mode::Silent {
                    acting.clear();
                }
                let mut labels: Vec<String> = vec!["capture".into()];
                labels.extend(acting.iter().map(|a| a.handler.clone()));
                let specs: Vec<RunSpec> = labels.iter().map(|l| spec(l)).collect();
                let version = p
                    .claude_version
                    .as_deref()
                    .map_or_else(Version::latest, Version::parse);
                let ctx = RuleContext {
                    non_interactive: true,
                    cwd: p.json["cwd"].as_str().map(str::to_string),
                    project_dir: s.cwd.clone(),
                    home: Some("/home/dev".into()),
                };
                let report = execute(
                    &Recorded(acting, mode),
                    ev,
                    &version,
                    &p.json,
                    &specs,
                    Vec::new(),
                    &perms,
                    &ctx,
                );
                let activity = activity_at(&s, p);
                let permission = recorded_permission(&s, p);
                let a = agreement(&report, &activity, permission);
                t.firings += 1;
                let verdict = serde_json::to_value(a.verdict).expect("verdict");
                *t.verdicts
                    .entry(verdict.as_str().unwrap_or("").to_string())
                    .or_default() += 1;
                let at = format!("{name} {ev} line {}", p.source_line);
                if a.verdict != Verdict::Agrees {
                    t.wrong.push(format!("{at}: {}", a.text));
                }
                if a.then != Seen::Nothing {
                    *t.labels
                        .entry(name.clone())
                        .or_default()
                        .entry(format!("{ev}: {}", a.then.label(ev)))
                        .or_default() += 1;
                }
                if let Some(f) = &a.final_outcome {
                    t.calls += 1;
                    if f.agrees == Some(true) {
                        let key = f.recorded.to_string();
                        *t.finals.entry(key).or_default() += 1;
                    } else {
                        t.wrong.push(format!("{at} final: {}", f.text));
                    }
                }
            }
        }
    }
    t
}

#[test]
fn every_firing_of_the_corpus_agrees_with_its_transcript() {
    let t = truth(Mode::Recorded);
    assert!(t.wrong.is_empty(), "{}", t.wrong.join("\n"));
    assert_eq!(t.firings, 457);
    let labels: BTreeMap<&str, Vec<(&str, usize)>> = t
        .labels
        .iter()
        .map(|(s, m)| {
            (
                s.as_str(),
                m.iter().map(|(k, n)| (k.as_str(), *n)).collect(),
            )
        })
        .collect();
    let want: BTreeMap<&str, Vec<(&str, usize)>> = [
        ("hooks_c2_exit2", vec![("PreToolUse: blocked the call", 1)]),
        (
            "hooks_c3_deny_json",
            vec![("PreToolUse: blocked the call", 1)],
        ),
        ("hooks_c5_stop_block", vec![("Stop: kept Claude going", 1)]),
        (
            "hooks_c6_prompt_context",
            vec![
                ("SessionStart: added context", 1),
                ("UserPromptSubmit: added context", 1),
            ],
        ),
        (
            "hooks_c8_outcomes",
            vec![
                ("PostToolUse: added context", 1),
                ("PostToolUse: objected after the call ran", 1),
                ("PreToolUse: asked the user", 1),
                ("PreToolUse: rewrote the input", 3),
                ("Stop: kept Claude going", 1),
                ("UserPromptSubmit: added context", 1),
                ("UserPromptSubmit: rejected the prompt", 1),
            ],
        ),
    ]
    .into_iter()
    .collect();
    assert_eq!(labels, want);
}

#[test]
fn every_calls_simulated_permission_decision_is_the_recorded_one() {
    let t = truth(Mode::Recorded);
    assert!(t.wrong.is_empty(), "{}", t.wrong.join("\n"));
    assert_eq!(t.calls, 121);
    let finals: Vec<(&str, usize)> = t.finals.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    assert_eq!(
        finals,
        [
            (
                r#"{"decision":"accept","source":"config","reasonType":"mode"}"#,
                82
            ),
            (
                r#"{"decision":"accept","source":"config","reasonType":"rule","ruleSource":"cliArg"}"#,
                31
            ),
            (
                r#"{"decision":"accept","source":"hook","reasonType":"hook"}"#,
                3
            ),
            (
                r#"{"decision":"reject","source":"config","reasonCode":"hook:PreToolUse"}"#,
                1
            ),
            (
                r#"{"decision":"reject","source":"config","reasonCode":"unknown"}"#,
                2
            ),
            (
                r#"{"decision":"reject","source":"hook","reasonType":"hook","reasonCode":"hook:PreToolUse"}"#,
                2
            ),
        ]
    );
}

#[test]
fn hooks_that_no_longer_act_or_cannot_start_never_agree() {
    // Silent now: each of the 14 firings that acted then differs ("a
    // rewrite then and none now differs"); the 6 calls a hook decided get
    // another permissionDecision.
    let t = truth(Mode::Silent);
    let verdicts: Vec<(&str, usize)> = t.verdicts.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    assert_eq!(verdicts, [("agrees", 443), ("differs", 14)]);
    let finals_wrong = t.wrong.iter().filter(|w| w.contains(" final: ")).count();
    assert_eq!(finals_wrong, 6, "{}", t.wrong.join("\n"));
    assert!(
        t.wrong.contains(&"hooks_c8_outcomes PreToolUse line 15: then: PreToolUse hook rewrote the input; now: did nothing — differs: your hooks no longer act here (then they rewrote the input)".to_string()),
        "{}",
        t.wrong.join("\n")
    );
    // Not found (127): those 14 firings failed open, loudly.
    let t = truth(Mode::Missing);
    let verdicts: Vec<(&str, usize)> = t.verdicts.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    assert_eq!(verdicts, [("agrees", 443), ("failed_open", 14)]);
    assert!(
        t.wrong.iter().any(|w| w.starts_with("hooks_c2_exit2 PreToolUse line 44: then: PreToolUse hook blocked the call (exit 2); now: did nothing — FAILED OPEN: hook could not start (exit 127): not found: sh: 1: hook: not found; Claude Code treats that as a non-blocking error and lets the action through")),
        "{}",
        t.wrong.join("\n")
    );
}
