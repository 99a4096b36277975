//! OpenCode `task` spawns carry their child session's cost in `find`
//! records without `--with-subagent-cost` (the loader already linked the
//! child; docs/cli.md#hookscope-find). Values recounted with python's sqlite3 over a copy
//! of `real-opencode-1.18.33/data/opencode.db` (+ `-wal`): per child session,
//! the sums of its assistant messages' `tokens.input`, `tokens.output`,
//! `tokens.cache.read` (`cache.write` is 0), `modelID`, `agent`, and its
//! `tool` parts.

use serde_json::{Value, json};

use crate::support::{corpus, hookscope};

fn find(extra: &[&str]) -> Vec<Value> {
    let db = corpus("real-opencode-1.18.33/data/opencode.db");
    let mut cmd = hookscope();
    cmd.args(["find", "--tool-name", "task", "--json"]).arg(db);
    cmd.args(extra);
    let out = cmd.assert().success().get_output().clone();
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v["records"].as_array().cloned().unwrap_or_default()
}

fn cost(records: &[Value], tool_use_id: &str) -> Value {
    records
        .iter()
        .find(|r| r["tool_use_id"] == tool_use_id)
        .map(|r| r["subagent"].clone())
        .unwrap_or(Value::Null)
}

#[test]
fn task_spawns_carry_the_child_cost_by_default() {
    let records = find(&[]);
    assert_eq!(records.len(), 3);
    // (spawn, child session, agent, input, output, cache read, tool parts)
    for (call, child, agent, input, output, read, tools) in [
        (
            "call_63fJjgieZSdgW1BftEgnwbOH",
            "ses_dcc9c82a4ffe72DBNelwOper4n",
            "explore",
            1541,
            50,
            4623,
            1,
        ),
        (
            "call_cQvA8tHxWgy7EBxxEOmiMsqt",
            "ses_dcc9c82c9ffewf5QuZOTauBG6n",
            "general",
            4603,
            76,
            13802,
            2,
        ),
        (
            "call_Ufm5Xvs1ra7fzrtXEd8mGMmn",
            "ses_dcc9c863cffegH7meAapimtQq1",
            "explore",
            2348,
            71,
            7038,
            2,
        ),
    ] {
        let got = cost(&records, call);
        assert_eq!(
            got,
            json!({
                "model": "mock-coder",
                "agent_type": agent,
                "tokens": {
                    "input_tokens": input,
                    "output_tokens": output,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": read,
                    "total": input + output + read,
                    "source": "exact"
                },
                "status": null,
                "duration_ms": null,
                "tool_uses": tools,
                "models": ["mock-coder"],
                "child_uuid": child
            }),
            "{call}"
        );
    }
    // The flag gives the same (the child is the only source either way).
    let flagged = find(&["--with-subagent-cost"]);
    for r in &records {
        let id = r["tool_use_id"].as_str().unwrap_or("");
        assert_eq!(cost(&flagged, id), r["subagent"], "{id}");
    }
}
