//! Fidelity of rebuilt hook payloads: every stdin real Claude Code 2.1.332
//! sent to a hook (`../shared/corpus/real-cc-2.1.332/*/hooks/<capture>/<Event>.jsonl`)
//! is rebuilt from the transcript it came from and compared field by field.
//! The per-event counts below are the README's "Hook payloads" table; a
//! change in either fails this test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookscope::hooks::events::{EventName, Payload, all_payloads};
use hookscope::transcript::{Session, discover, load};
use serde_json::Value;

const CORPUS: &str = "../shared/corpus/real-cc-2.1.332";

/// One captured invocation.
struct Capture {
    ts: String,
    stdin: Value,
}

fn captures(scenario: &Path) -> Vec<Capture> {
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(scenario.join("hooks")) else {
        return out;
    };
    for dir in dirs.filter_map(Result::ok) {
        for file in std::fs::read_dir(dir.path())
            .expect("capture dir")
            .filter_map(Result::ok)
        {
            let name = file.file_name().to_string_lossy().into_owned();
            if name.starts_with('_') || !name.ends_with(".jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(file.path()).expect("capture");
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let v: Value = serde_json::from_str(line).expect("capture line");
                out.push(Capture {
                    ts: v["ts"].to_string(),
                    stdin: v["stdin"].clone(),
                });
            }
        }
    }
    out.sort_by(|a, b| a.ts.cmp(&b.ts));
    out
}

fn session(scenario: &Path) -> Session {
    let found = discover(&[scenario.join("projects")]).expect("discover");
    assert_eq!(found.sessions.len(), 1, "{}", scenario.display());
    load(&found.sessions[0]).expect("load")
}

/// A path compared from its `projects/` component on (the corpus moved the
/// files out of `/home/dev/.claude`).
fn relocated(v: &Value) -> Value {
    match v
        .as_str()
        .and_then(|s| s.find("/projects/").map(|i| s[i..].to_string()))
    {
        Some(tail) => Value::String(tail),
        None => v.clone(),
    }
}

/// The key a capture and a rebuilt payload are paired by, `None` = by order.
fn pair_key(event: EventName, p: &Value) -> Option<String> {
    let s = |k: &str| p.get(k).map(Value::to_string).unwrap_or_default();
    match event {
        EventName::PreToolUse | EventName::PostToolUse | EventName::PostToolUseFailure => {
            Some(s("tool_use_id"))
        }
        EventName::PostToolBatch => Some(p["tool_calls"][0]["tool_use_id"].to_string()),
        EventName::PermissionRequest => Some(format!("{}{}", s("tool_name"), s("tool_input"))),
        EventName::SubagentStart | EventName::SubagentStop => Some(s("agent_id")),
        EventName::TaskCreated | EventName::TaskCompleted => Some(s("task_id")),
        _ => None,
    }
}

#[derive(Default, Debug)]
struct Tally {
    captured: usize,
    rebuilt: usize,
    /// Captures whose every field matched.
    exact: usize,
    /// field → number of captures where it differed (or was left out).
    differ: BTreeMap<String, usize>,
}

fn compare(event: EventName, captured: &Value, rebuilt: &Payload, tally: &mut Tally) {
    let empty = serde_json::Map::new();
    let cap = captured.as_object().unwrap_or(&empty);
    let got = rebuilt.json.as_object().unwrap_or(&empty);
    let mut same = true;
    for (k, v) in cap {
        let (a, b) = match k.as_str() {
            "transcript_path" | "agent_transcript_path" => (
                relocated(v),
                got.get(k).map(relocated).unwrap_or(Value::Null),
            ),
            _ => (v.clone(), got.get(k).cloned().unwrap_or(Value::Null)),
        };
        if a != b {
            same = false;
            *tally.differ.entry(k.clone()).or_default() += 1;
            if std::env::var_os("HOOKSCOPE_PAYLOAD_DIFF").is_some() {
                eprintln!("{event} {k}: captured {a} rebuilt {b}");
            }
        }
    }
    for k in got.keys().filter(|k| !cap.contains_key(*k)) {
        same = false;
        *tally.differ.entry(format!("{k} (extra)")).or_default() += 1;
    }
    // Field order as Claude Code writes it.
    let cap_keys: Vec<&String> = cap.keys().filter(|k| got.contains_key(*k)).collect();
    let got_keys: Vec<&String> = got.keys().filter(|k| cap.contains_key(*k)).collect();
    if cap_keys != got_keys {
        same = false;
        *tally.differ.entry("(field order)".into()).or_default() += 1;
    }
    if same {
        tally.exact += 1;
    }
}

fn tallies() -> BTreeMap<EventName, Tally> {
    let mut out: BTreeMap<EventName, Tally> = BTreeMap::new();
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(CORPUS)
        .expect("corpus")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("hooks").is_dir())
        .collect();
    scenarios.sort();
    for scenario in scenarios {
        let session = session(&scenario);
        let caps = captures(&scenario);
        let mut by_event: BTreeMap<EventName, Vec<&Capture>> = BTreeMap::new();
        for c in &caps {
            let name: EventName = c.stdin["hook_event_name"]
                .as_str()
                .and_then(|n| n.parse().ok())
                .expect("a known event");
            by_event.entry(name).or_default().push(c);
        }
        for (event, caps) in by_event {
            let rebuilt = all_payloads(&session, event);
            let tally = out.entry(event).or_default();
            tally.captured += caps.len();
            tally.rebuilt += rebuilt.len();
            let mut used = vec![false; rebuilt.len()];
            for (i, c) in caps.iter().enumerate() {
                let key = pair_key(event, &c.stdin);
                let found = match &key {
                    Some(key) => (0..rebuilt.len()).find(|&j| {
                        !used[j] && pair_key(event, &rebuilt[j].json).as_ref() == Some(key)
                    }),
                    None => (i < rebuilt.len() && !used[i]).then_some(i),
                };
                match found {
                    Some(j) => {
                        used[j] = true;
                        compare(event, &c.stdin, &rebuilt[j], tally);
                    }
                    None => {
                        *tally.differ.entry("(not rebuilt)".into()).or_default() += 1;
                        if std::env::var_os("HOOKSCOPE_PAYLOAD_DIFF").is_some() {
                            eprintln!("{event} not rebuilt: {}", c.stdin);
                        }
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_captured_payload_is_rebuilt_or_its_difference_is_listed() {
    let tallies = tallies();
    let mut table = String::new();
    for (event, t) in &tallies {
        let differ: Vec<String> = t.differ.iter().map(|(k, n)| format!("{k} {n}")).collect();
        table.push_str(&format!(
            "{event}: {}/{} exact, {} rebuilt; {}\n",
            t.exact,
            t.captured,
            t.rebuilt,
            differ.join(", ")
        ));
    }
    eprintln!("{table}");
    assert_eq!(table, EXPECTED);
}

/// Per event (in [`EventName`] order): captures matched in every field /
/// captures, payloads rebuilt from the transcripts, then per field the
/// captures where it differed or was left out (README "Hook payloads" says
/// why for each).
const EXPECTED: &str = concat!(
    "PreToolUse: 79/79 exact, 79 rebuilt; \n",
    "PermissionRequest: 0/2 exact, 2 rebuilt; permission_suggestions 2\n",
    "PostToolUse: 0/69 exact, 69 rebuilt; duration_ms 69, tool_response 6\n",
    "PostToolUseFailure: 0/6 exact, 6 rebuilt; duration_ms 6\n",
    "PostToolBatch: 73/73 exact, 73 rebuilt; \n",
    "UserPromptSubmit: 7/7 exact, 7 rebuilt; \n",
    "SubagentStart: 6/6 exact, 6 rebuilt; \n",
    "SubagentStop: 6/7 exact, 6 rebuilt; (not rebuilt) 1\n",
    "Stop: 8/8 exact, 8 rebuilt; \n",
    "TaskCreated: 6/6 exact, 6 rebuilt; \n",
    "TaskCompleted: 6/6 exact, 6 rebuilt; \n",
    "PreCompact: 1/1 exact, 1 rebuilt; \n",
    "PostCompact: 0/1 exact, 1 rebuilt; compact_summary 1\n",
    "SessionStart: 7/9 exact, 9 rebuilt; context_tokens 2, estimated_cache_write_usd 2, prompt_cache_likely_expired 2, seconds_since_last_response 2\n",
    "SessionEnd: 0/8 exact, 8 rebuilt; reason 8\n",
    "InstructionsLoaded: 0/8 exact, 0 rebuilt; (not rebuilt) 8\n",
    "MessageDisplay: 0/21 exact, 0 rebuilt; (not rebuilt) 21\n",
    "CwdChanged: 6/6 exact, 6 rebuilt; \n",
    "FileChanged: 0/6 exact, 0 rebuilt; (not rebuilt) 6\n",
);
