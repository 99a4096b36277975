//! End to end: `hookscope mcp` spawned as an MCP client would, spoken to in
//! newline-delimited JSON-RPC over its stdin/stdout.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{self, C2, hookscope, hookscope_process, package_path};

/// How long the whole conversation may take before the child is killed.
const DEADLINE: Duration = Duration::from_secs(120);

/// A running `hookscope mcp` with a reader thread on its stdout.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    deadline: Instant,
}

impl Server {
    /// `hookscope mcp` on `tests/corpus/{corpus}`, without the index
    /// (`HOOKSCOPE_NO_INDEX=1`: nothing is written to the user's cache).
    fn start(corpus: &str) -> Server {
        Server::start_with(corpus, None)
    }

    /// As [`Server::start`]; with `cache`, the server keeps its index in
    /// `cache/hookscope` (`XDG_CACHE_HOME`).
    fn start_with(corpus: &str, cache: Option<&std::path::Path>) -> Server {
        Server::start_at(&support::corpus(corpus), cache)
    }

    /// As [`Server::start_with`] on any folder.
    fn start_at(path: &std::path::Path, cache: Option<&std::path::Path>) -> Server {
        let mut command = hookscope_process();
        if let Some(cache) = cache {
            command
                .env("XDG_CACHE_HOME", cache)
                .env_remove("HOOKSCOPE_NO_INDEX");
        }
        let mut child = command
            .arg("mcp")
            .arg(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn hookscope mcp");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("child stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            lines,
            deadline: Instant::now() + DEADLINE,
        }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write to server");
        stdin.flush().expect("flush");
    }

    /// Sends a request and returns the response with the same id, skipping
    /// notifications and other responses. Panics (the child is then killed
    /// by `Drop`) when nothing arrives before the deadline.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no response to {method} within {DEADLINE:?}")
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("server closed stdout before answering {method}")
                }
            };
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// `tools/call` of find_tool_calls; returns the `result` object.
    fn call(&mut self, id: u64, arguments: Value) -> Value {
        self.call_tool(id, "find_tool_calls", arguments)
    }

    /// `tools/call` of the tool `name`; returns the `result` object.
    fn call_tool(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        let response = self.request(
            id,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        );
        // A result, not a JSON-RPC error: exactly these keys.
        let mut keys: Vec<&str> = response
            .as_object()
            .expect("a response object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, ["id", "jsonrpc", "result"], "{response}");
        response["result"].clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let give_up = Instant::now() + Duration::from_secs(2);
        while Instant::now() < give_up {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tool's answer as JSON: the text content must be the same object as
/// `structuredContent`.
fn answer(result: &Value) -> Value {
    let content = result["content"].as_array().expect("content array");
    assert_eq!(content.len(), 1, "{result}");
    assert_eq!(content[0]["type"], "text");
    let text = content[0]["text"].as_str().expect("text content");
    let value: Value = serde_json::from_str(text).expect("text content is JSON");
    assert_eq!(result["structuredContent"], value);
    value
}

/// The MCP handshake: `initialize`, then `notifications/initialized`.
fn initialize(server: &mut Server) {
    let init = server.request(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "hookscope-test", "version": "0"}
        }),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "hookscope", "{init}");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
}

#[test]
fn initialize_list_and_call_over_stdio() {
    let mut server = Server::start("real-cc-2.1.332");

    let init = server.request(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "hookscope-test", "version": "0"}
        }),
    );
    let init = &init["result"];
    assert_eq!(init["protocolVersion"], "2025-06-18", "{init}");
    assert_eq!(init["serverInfo"]["name"], "hookscope");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let list = server.request(2, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools array");
    let names: Vec<&str> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        names,
        [
            "find_tool_calls",
            "count_tool_calls",
            "hook_payload",
            "replay_hook"
        ]
    );
    for t in &tools[1..] {
        let props = t["inputSchema"]["properties"]
            .as_object()
            .expect("properties");
        for (name, p) in props {
            assert!(
                p["description"].as_str().is_some_and(|d| !d.is_empty()),
                "{name}"
            );
        }
        assert!(
            t["description"]
                .as_str()
                .is_some_and(|d| d.starts_with("hookscope extension."))
        );
    }
    let tool = &tools[0];
    assert_eq!(tool["name"], "find_tool_calls");
    assert!(
        tool["description"]
            .as_str()
            .is_some_and(|d| d.contains("tool_name_pattern"))
    );
    let schema = &tool["inputSchema"];
    assert_eq!(schema["type"], "object");
    let properties = schema["properties"].as_object().expect("properties");
    let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "agent",
            "blocked",
            "decided_by",
            "flagged",
            "hook",
            "input_contains",
            "is_error",
            "limit",
            "output_contains",
            "output_excludes",
            "output_mode",
            "redact",
            "rewritten",
            "session",
            "since",
            "tool_name",
            "tool_name_pattern",
            "until",
            "with_subagent_cost",
        ]
    );
    assert_eq!(properties["limit"]["type"], "integer");
    assert_eq!(
        properties["output_mode"]["enum"],
        json!(["head", "tail", "smart"])
    );

    // Bash calls whose input contains "rm -rf", newest first (found with a
    // script over the corpus's projects/**/*.jsonl; a sixth, older one,
    // toolu_017ewsxv2HgMNxq34i6Vs79k in a2105fb9, is cut by the limit).
    let result = server.call(
        3,
        json!({"tool_name": "Bash", "input_contains": "rm -rf", "limit": 5}),
    );
    assert_eq!(result["isError"], false, "{result}");
    let found = answer(&result);
    let ids: Vec<&str> = found["records"]
        .as_array()
        .expect("records array")
        .iter()
        .map(|r| r["tool_use_id"].as_str().unwrap_or("<none>"))
        .collect();
    assert_eq!(
        ids,
        [
            "toolu_01dITZXnpQCb3Ps2Oi3ymZlZ",
            "toolu_01lPnLRRd9uBMLDeG9k70nzJ",
            "toolu_01LvJaZxCcYuYq7WyGj8bfHh",
            "toolu_0138h77ojpT1t3A4y1yWKgjr",
            "toolu_01GFEgALJm405nI2WctBocud",
        ]
    );

    // Both name filters: find_tool_calls' invalid_argument object, as the result.
    let result = server.call(4, json!({"tool_name": "Bash", "tool_name_pattern": "x"}));
    // Answered, not failed (docs/tool-calls.md#the-find-query): isError is false.
    assert_eq!(result["isError"], false, "{result}");
    let error = answer(&result);
    assert_eq!(error["error"], "invalid_argument", "{error}");
    assert!(
        error["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{error}"
    );
    assert_eq!(error.as_object().map(|o| o.len()), Some(2), "{error}");

    // An unknown parameter is an invalid argument too, not a protocol error.
    let result = server.call(5, json!({"tool_name": "Bash", "bogus": 1}));
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(answer(&result)["error"], "invalid_argument");

    // An unknown tool is a JSON-RPC Invalid params error (MCP 2025-06-18,
    // Tools § Error Handling).
    let response = server.request(
        6,
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert_eq!(
        response,
        json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32602,
            "message": "Invalid params: Unknown tool: no_such_tool (this server has find_tool_calls, count_tool_calls, hook_payload, replay_hook)"}})
    );

    // count_tool_calls: real-cc-2.1.332 has 52 Bash calls, 10 of them
    // failed (distinct tool_use ids, recounted with python3).
    let result = server.call_tool(
        10,
        "count_tool_calls",
        json!({"tool_name": "Bash", "group_by": "error"}),
    );
    assert_eq!(result["isError"], false, "{result}");
    let counted = answer(&result);
    assert_eq!(counted["total"], 52, "{counted}");
    assert_eq!(counted["group_by"], "error");
    assert_eq!(counted["groups"][0], json!({"key": "ok", "count": 42}));
    assert_eq!(counted["groups"][1], json!({"key": "error", "count": 10}));
    let result = server.call_tool(11, "count_tool_calls", json!({"tool_name": "Bash"}));
    assert_eq!(answer(&result), json!({"total": 52}));
    // A parameter that shapes records, or an unknown key, is refused.
    for (args, message) in [
        (
            json!({"tool_name": "Bash", "limit": 5}),
            "limit does not apply to count_tool_calls",
        ),
        (
            json!({"tool_name": "Bash", "group_by": "week"}),
            "group_by: \"week\" is not one of tool, session, day, agent, error",
        ),
    ] {
        let result = server.call_tool(12, "count_tool_calls", args);
        assert_eq!(
            answer(&result),
            json!({"error": "invalid_argument", "message": message})
        );
    }

    // hook_payload: the PreToolUse stdin of c2's rm -rf call, rebuilt.
    let result = server.call_tool(
        7,
        "hook_payload",
        json!({"session": "e1be136e", "event": "PreToolUse", "at": "toolu_01GFEgALJm405nI2WctBocud"}),
    );
    assert_eq!(result["isError"], false, "{result}");
    let p = answer(&result);
    assert_eq!(p["event"], "PreToolUse");
    assert_eq!(p["source"]["line"], 44);
    assert_eq!(p["payload"]["tool_input"]["command"], "rm -rf build/");
    assert_eq!(
        p["payload"]["tool_use_id"],
        "toolu_01GFEgALJm405nI2WctBocud"
    );
    assert_eq!(p["payload"]["permission_mode"], "bypassPermissions");
    assert_eq!(p["left_out"], json!([]));

    // replay_hook with an inline rule set: blocked, with the why, and the
    // hook error the transcript recorded.
    let rules = "[[rules]]\nid = \"no-rm\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"no rm\"\n[rules.only_if]\nprogram = \"rm\"\n";
    let result = server.call_tool(
        8,
        "replay_hook",
        json!({"session": "e1be136e", "event": "PreToolUse", "at": "toolu_01GFEgALJm405nI2WctBocud", "rules": rules}),
    );
    assert_eq!(result["isError"], false, "{result}");
    let r = answer(&result);
    assert_eq!(r["decision"], "block");
    assert_eq!(
        r["rules"],
        json!([{"id": "no-rm", "matched": true, "verdict": "block",
            "why": "event PreToolUse ✓ · tool Bash ✓ · program = \"rm\" ✓ (rm -rf build/)"}])
    );
    assert_eq!(
        r["output"]["stdout"]["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    assert_eq!(r["recorded"][0]["line"], 45);
    assert_eq!(
        r["recorded"][0]["text"],
        "PreToolUse:Bash hook error: [python3 /home/dev/.hooks/hook.py hooks_c2_exit2 PreToolUse]: Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)"
    );

    // replay_hook all=true: the backtest over the real 2.1.332 sessions (the
    // six `rm -rf build/` calls, as `find` above counts them).
    let result = server.call_tool(9, "replay_hook", json!({"all": true, "rules": rules}));
    let bt = answer(&result);
    assert_eq!(bt["rules"][0]["counts"], json!({"block": 6}));
    assert_eq!(bt["combined"], json!({"block": 6}));

    // replay_hook all=true against a second set that warns instead: the six
    // blocks are no longer blocks, nothing else changed.
    let warns = rules.replace("action = \"block\"", "action = \"warn\"");
    let result = server.call_tool(
        19,
        "replay_hook",
        json!({"all": true, "rules": rules, "against": warns, "examples": 1}),
    );
    let ag = answer(&result);
    assert_eq!(ag["no_longer_blocked"]["count"], 6, "{ag}");
    assert_eq!(ag["changed"], 6);
    assert_eq!(
        ag["no_longer_blocked"]["examples"].as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(ag["no_longer_blocked"]["examples"][0]["a"], "block (no-rm)");
    assert_eq!(ag["no_longer_blocked"]["examples"][0]["b"], "warn (no-rm)");
    let result = server.call_tool(
        20,
        "replay_hook",
        json!({"session": "e1be136e", "event": "Stop", "rules": rules, "against": warns}),
    );
    assert_eq!(answer(&result)["message"], "against goes with all: true");

    // A refused rule set is an invalid argument with file:line:col.
    let result = server.call_tool(
        10,
        "replay_hook",
        json!({"session": "e1be136e", "event": "Stop", "rules": "[[rules]]\nid = 1\n"}),
    );
    let e = answer(&result);
    assert_eq!(e["error"], "invalid_argument");
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("rule set refused; nothing was loaded:\n<rules>:2:6: ")),
        "{e}"
    );
}

/// The `initialize` request and its `initialized` notification, as lines.
fn handshake() -> Vec<String> {
    vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "hookscope-test", "version": "0"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    ]
}

/// Runs `hookscope mcp PATH` with `lines` written to stdin in one write and
/// then closed; returns every stdout line parsed, once the server exits.
fn run_piped(path: &str, lines: &[String]) -> Vec<Value> {
    let mut input = lines.join("\n");
    input.push('\n');
    // A hang guard, not a timing: a server that never exits is killed.
    let output = hookscope()
        .args(["mcp", path])
        .write_stdin(input)
        .timeout(Duration::from_secs(300))
        .output()
        .expect("run hookscope mcp");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    String::from_utf8(output.stdout)
        .expect("UTF-8 stdout")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn subagent_corpus() -> String {
    support::corpus("real-cc-2.1.332/subagent/projects")
        .display()
        .to_string()
}

/// 300 `tools/call` requests and EOF in one write: every one is answered
/// before the server exits (it used to drop the requests still in flight at
/// EOF, answering 161 to 195 of them).
#[test]
fn every_pipelined_request_is_answered_before_exit() {
    let mut lines = handshake();
    for id in 1..=300 {
        lines.push(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "find_tool_calls", "arguments": {"tool_name": "Read"}}})
            .to_string(),
        );
    }
    let responses = run_piped(&subagent_corpus(), &lines);
    assert_eq!(responses.len(), 301);
    let mut ids: Vec<u64> = responses
        .iter()
        .map(|r| r["id"].as_u64().expect("numeric id"))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..=300).collect::<Vec<u64>>());
    for response in responses.iter().filter(|r| r["id"] != 0) {
        let result = &response["result"];
        assert_eq!(result["isError"], false, "{response}");
        // The session's two Read calls (in subagents a254c4c2… and
        // a9a1865f…), newest first.
        let value = answer(result);
        let found: Vec<&str> = value["records"]
            .as_array()
            .expect("records")
            .iter()
            .map(|r| r["tool_use_id"].as_str().expect("tool_use_id"))
            .collect();
        assert_eq!(
            found,
            [
                "toolu_01ODoKPi4xQIP1UU1UbS5ZcO",
                "toolu_01DIgoxeg8ZxqYQ6XNQPwD7s"
            ],
            "{response}"
        );
    }
}

/// Malformed lines get JSON-RPC errors with the right codes and ids, and the
/// server goes on answering the next requests.
#[test]
fn malformed_lines_get_jsonrpc_errors() {
    let mut lines = handshake();
    lines.push("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\":".to_string());
    lines.push(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "find_tool_calls", "arguments": "tool_name=Bash"}})
        .to_string(),
    );
    lines.push(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "find_tool_calls", "arguments": {}, "_meta": 5}})
        .to_string(),
    );
    // The empty pattern matches every tool: the session's 9 calls.
    lines.push(
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "find_tool_calls", "arguments": {"tool_name_pattern": ""}}})
        .to_string(),
    );
    lines.push(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "find_tool_calls", "arguments": {"tool_name": "bash"}}})
        .to_string(),
    );
    let responses = run_piped(&subagent_corpus(), &lines);
    assert_eq!(responses.len(), 6, "{responses:?}");
    let by_id = |id: Value| {
        responses
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no response with id {id}: {responses:?}"))
    };
    let parse = by_id(Value::Null);
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    assert_eq!(
        parse["error"]["message"],
        "Parse error: EOF while parsing a value at line 1 column 37"
    );
    assert_eq!(
        by_id(json!(2)),
        &json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602,
            "message": "Invalid params: \"arguments\" must be an object, got \"tool_name=Bash\""}})
    );
    // rmcp's own types refuse `_meta: 5`; the answer still carries the id.
    let meta = by_id(json!(3));
    assert_eq!(meta["error"]["code"], -32602, "{meta}");
    // The server is still serving: the last call is answered normally.
    let last = &by_id(json!(4))["result"];
    assert_eq!(last["isError"], false, "{last}");
    // The session's three Bash calls, one in each of three subagents.
    assert_eq!(answer(last)["records"].as_array().map(Vec::len), Some(3));
    let every = &by_id(json!(5))["result"];
    assert_eq!(every["isError"], false, "{every}");
    assert_eq!(answer(every)["records"].as_array().map(Vec::len), Some(9));
}

#[test]
fn a_missing_path_fails_at_start_on_stderr() {
    let output = hookscope_process()
        .args(["mcp", "/nonexistent/hookscope-mcp-test"])
        .stdin(Stdio::null())
        .output()
        .expect("run hookscope mcp");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr,
        "hookscope: no such file or directory: /nonexistent/hookscope-mcp-test\n"
    );
}

/// `replay_hook` and `hookscope replay --json` give the same object (one
/// serializer, `hooks::replay::replay_json`), with the rule set's warnings;
/// without rules `replay_hook` still answers: the payload and the record,
/// `rules_note` saying no rule set is loaded.
#[test]
fn replay_hook_equals_the_cli_json_lists_warnings_and_needs_no_rules() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("r.toml");
    // A Stop block without `stop_hook_active = false` loads with a warning.
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"no-rm\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"no rm\"\n[rules.only_if]\nprogram = \"rm\"\n\n[[rules]]\nid = \"stop\"\nevents = \"Stop\"\naction = \"block\"\nreason = \"go on\"\n",
    )
    .expect("write rules");
    let rules = rules.to_string_lossy().into_owned();
    let mut server = Server::start("real-cc-2.1.332");
    server.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "hookscope-test", "version": "0"}}),
    );
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let at = "toolu_01GFEgALJm405nI2WctBocud";
    let result = server.call_tool(
        2,
        "replay_hook",
        json!({"session": "e1be136e", "event": "PreToolUse", "at": at, "rules_path": rules}),
    );
    let mcp = answer(&result);
    let corpus = support::corpus("real-cc-2.1.332");
    let out = hookscope_process()
        .args([
            "replay",
            "e1be136e",
            corpus.to_str().expect("utf-8"),
            "--event",
            "PreToolUse",
            "--at",
            at,
            "--rules",
            &rules,
            "--json",
        ])
        .output()
        .expect("cli");
    let mut cli: Value = serde_json::from_slice(&out.stdout).expect("cli json");
    // The CLI alone can run the user's hooks (--exec); without it, its
    // `exec` says nothing ran. MCP never runs them and has no such key.
    let exec = cli.as_object_mut().and_then(|o| o.remove("exec"));
    assert_eq!(exec.as_ref().map(|e| &e["ran"]), Some(&json!(false)));
    assert_eq!(mcp, cli);
    assert_eq!(mcp["decision"], "block");
    assert_eq!(mcp["claude_version"], "2.1.332");
    assert_eq!(mcp["flags"], json!([]));
    assert_eq!(mcp["warnings"].as_array().map(Vec::len), Some(1), "{mcp}");
    assert!(
        mcp["warnings"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("stop_hook_active")),
        "{mcp}"
    );
    // No rules: the payload and the record, no decision.
    let result = server.call_tool(
        3,
        "replay_hook",
        json!({"session": "e1be136e", "event": "PreToolUse", "at": at}),
    );
    assert_eq!(result["isError"], false, "{result}");
    let bare = answer(&result);
    assert_eq!(bare["payload"]["tool_input"]["command"], "rm -rf build/");
    assert_eq!(bare["rules"], Value::Null);
    assert_eq!(bare["decision"], Value::Null);
    assert_eq!(bare["recorded"][0]["line"], 45);
    assert!(
        bare["rules_note"]
            .as_str()
            .is_some_and(|n| n.starts_with("no rule set loaded")),
        "{bare}"
    );
    // A backtest still needs rules.
    let result = server.call_tool(4, "replay_hook", json!({"all": true}));
    assert_eq!(answer(&result)["error"], "invalid_argument");
    // `at` may name a line of a subagent's file: c8435c6b's subagent
    // ab7c2c7a0f676372d has its one tool_use on line 15.
    let result = server.call_tool(
        5,
        "replay_hook",
        json!({"session": "c8435c6b", "event": "PreToolUse",
               "at": "line:agent-ab7c2c7a0f676372d:15"}),
    );
    let sub = answer(&result);
    assert_eq!(sub["payload"]["agent_id"], "ab7c2c7a0f676372d", "{sub}");
    assert_eq!(
        sub["payload"]["tool_use_id"],
        "toolu_01R0X233Xv6jvDxKQQg7zv6P"
    );
    assert_eq!(sub["source"]["line"], 15);
}

/// `hook_payload` on a Codex session answers with Codex's own payload (as
/// `replay_hook` does), not a refusal. python3 over the real rollout: line
/// 12 is the `exec_command` call `call_mtfuaxdyo8h2rjg7kvpu3863`
/// (`{"cmd": "ls -la"}`).
#[test]
fn hook_payload_of_a_codex_session() {
    let mut server = Server::start("real-codex-0.171.0");
    server.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "hookscope-test", "version": "0"}}),
    );
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let result = server.call_tool(
        2,
        "hook_payload",
        json!({"session": "01a2287a", "event": "PreToolUse", "at": "call_mtfuaxdyo8h2rjg7kvpu3863"}),
    );
    assert_eq!(result["isError"], false, "{result}");
    let p = answer(&result);
    assert_eq!(p["source"]["line"], 12);
    assert_eq!(p["payload"]["tool_name"], "Bash");
    assert_eq!(p["payload"]["tool_input"], json!({"command": "ls -la"}));
    assert_eq!(p["payload"]["tool_use_id"], "call_mtfuaxdyo8h2rjg7kvpu3863");
}

/// docs/cli.md#index: with the persisted index, `find_tool_calls` gives exactly
/// what it gives without it, on the whole shared corpus (every agent), for
/// a name filter, an error filter, an input text filter and a limit that
/// cuts; first on a cold index (built by the first call), then warm.
#[test]
fn find_tool_calls_is_the_same_with_and_without_the_index() {
    let calls = [
        json!({"tool_name": "Bash", "limit": 10000}),
        json!({"tool_name_pattern": "", "is_error": true, "limit": 10000}),
        json!({"tool_name": "Bash", "input_contains": "git", "limit": 10000}),
        json!({"tool_name_pattern": "", "limit": 7}),
    ];
    let mut plain = Server::start_with(".", None);
    initialize(&mut plain);
    let expected: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, args)| answer(&plain.call(10 + i as u64, args.clone())))
        .collect();
    drop(plain);
    // The corpus's recount: 45 Bash calls in real-cc-2.1.332 alone, so the
    // whole corpus has more; the cut at 7 says how many matched.
    assert!(expected[0]["records"].as_array().map_or(0, Vec::len) > 45);
    assert_eq!(expected[3]["records"].as_array().map(Vec::len), Some(7));
    let cache = tempfile::tempdir().expect("tempdir");
    for round in ["cold", "warm"] {
        let mut indexed = Server::start_with(".", Some(cache.path()));
        initialize(&mut indexed);
        for (i, args) in calls.iter().enumerate() {
            let got = answer(&indexed.call(10 + i as u64, args.clone()));
            assert_eq!(got, expected[i], "{round} index, arguments {args}");
        }
    }
    assert!(cache.path().join("hookscope/index.sqlite").is_file());
}

/// `replay_hook` with `all: true` on a server that keeps an index: the
/// backtest equals the one without it (the index answers which sessions no
/// rule's tool can name, without reading them).
#[test]
fn replay_hook_backtest_is_the_same_with_and_without_the_index() {
    let rules = "[[rules]]\nid = \"no-write\"\nevents = \"PreToolUse\"\ntool = \"Write\"\naction = \"warn\"\nreason = \"check writes\"\n";
    let args = json!({"all": true, "rules": rules});
    let mut plain = Server::start_with("real-cc-2.1.332", None);
    initialize(&mut plain);
    let expected = answer(&plain.call_tool(2, "replay_hook", args.clone()));
    drop(plain);
    // python3 over real-cc-2.1.332/*/projects (main and subagent files):
    // 9 sessions, 7 with a Write call; 8bb2dece and 07535b09 have none.
    assert_eq!(expected["sessions"], 9);
    let cache = tempfile::tempdir().expect("tempdir");
    for round in ["cold", "warm"] {
        let mut indexed = Server::start_with("real-cc-2.1.332", Some(cache.path()));
        initialize(&mut indexed);
        let got = answer(&indexed.call_tool(2, "replay_hook", args.clone()));
        assert_eq!(got, expected, "{round} index");
        assert_eq!(got["skipped"], 2, "{round} index");
    }
    assert!(cache.path().join("hookscope/index.sqlite").is_file());
}

/// `hook_payload` resolves `session` as the CLI does: an id in two
/// identical files (a session and its backup) opens once, the answer's
/// `note` naming the other copy; in two files that differ, the answer is
/// the invalid_argument object listing both paths.
#[test]
fn hook_payload_resolves_an_id_in_two_files_as_the_cli_does() {
    let c2 = package_path(C2);
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir
        .path()
        .join("a/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl");
    let b = dir
        .path()
        .join("b/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl");
    for p in [&a, &b] {
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&c2, p).expect("copy");
    }
    let mut server = Server::start_at(dir.path(), None);
    initialize(&mut server);
    let args = json!({"session": "e1be", "event": "Stop"});
    let v = answer(&server.call_tool(2, "hook_payload", args.clone()));
    assert_eq!(
        v["note"],
        format!(
            "session e1be136e-e2ee-4f2f-bdb9-5cd3211001fb is also in {} (identical copy); showing {}",
            b.display(),
            a.display()
        )
    );
    assert_eq!(
        v["payload"]["session_id"],
        "e1be136e-e2ee-4f2f-bdb9-5cd3211001fb"
    );
    drop(server);
    let text = std::fs::read_to_string(&c2).expect("read");
    let cut = text.trim_end().rfind('\n').expect("lines");
    std::fs::write(&b, &text[..=cut]).expect("write");
    let mut server = Server::start_at(dir.path(), None);
    initialize(&mut server);
    let v = answer(&server.call_tool(3, "hook_payload", args));
    assert_eq!(v["error"], "invalid_argument", "{v}");
    assert_eq!(
        v["message"],
        format!(
            "\"e1be136e-e2ee-4f2f-bdb9-5cd3211001fb\" is the id of 2 sessions in different files ({} [claude-code], {} [claude-code]); pass the file path instead",
            a.display(),
            b.display()
        )
    );
}

/// A 20 MiB line (past the 16 MiB a line may have) gets an Invalid Request
/// error with the limit said, and the next request is answered (before,
/// a line between 16 and 64 MiB stopped the server: the client waited
/// forever).
#[test]
fn an_over_long_line_is_refused_and_the_next_request_answered() {
    let mut lines = handshake();
    lines.push(format!(
        "{{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\", \"params\": {{\"pad\": \"{}\"}}}}",
        "x".repeat(20 << 20)
    ));
    lines.push(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string());
    let responses = run_piped(&subagent_corpus(), &lines);
    assert_eq!(responses.len(), 3, "{}", responses.len());
    let refused = responses
        .iter()
        .find(|r| r["id"].is_null())
        .expect("the refusal");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("16 MiB")),
        "{refused}"
    );
    let listed = responses
        .iter()
        .find(|r| r["id"] == 2)
        .expect("the next answer");
    assert!(listed["result"]["tools"].is_array(), "{listed}");
}

/// `replay_hook` with `all: true` over many sessions: the counts are whole,
/// the examples a sample (3 per rule and verdict by default, the
/// `examples` argument otherwise), the rest counted in `examples_left_out`
/// (before: every example, so the answer grew with the corpus: 13 MB for
/// 5,000 sessions). 60 copies of the c2 session (each its own id) hold
/// 60 × 5 Bash calls (python3 over its `tool_use` blocks), so the answer
/// keeps 3 of 300.
#[test]
fn a_backtest_answer_keeps_a_sample_of_examples_and_whole_counts() {
    let dir = tempfile::tempdir().expect("tmp");
    let c2 = std::fs::read_to_string(C2).expect("c2");
    for i in 0..60 {
        let id = format!("e1be136e-e2ee-4f2f-bdb9-{i:012}");
        let copy = c2.replace("e1be136e-e2ee-4f2f-bdb9-5cd3211001fb", &id);
        std::fs::write(dir.path().join(format!("{id}.jsonl")), copy).expect("write");
    }
    let rules = "[[rules]]\nid = \"every-bash\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"warn\"\nreason = \"look\"\n";
    let mut server = Server::start_at(dir.path(), None);
    initialize(&mut server);
    let bt = answer(&server.call_tool(2, "replay_hook", json!({"all": true, "rules": rules})));
    assert_eq!(bt["sessions"], 60);
    let warns = 300;
    assert_eq!(bt["rules"][0]["counts"], json!({"warn": warns}));
    assert_eq!(bt["rules"][0]["examples"].as_array().map(Vec::len), Some(3));
    assert_eq!(bt["rules"][0]["examples_left_out"], warns - 3);
    assert_eq!(bt["examples_per_verdict"], 3);
    let one = answer(&server.call_tool(
        3,
        "replay_hook",
        json!({"all": true, "rules": rules, "examples": 1}),
    ));
    assert_eq!(
        one["rules"][0]["examples"].as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(one["rules"][0]["counts"]["warn"], warns);
    let e = answer(&server.call_tool(
        4,
        "replay_hook",
        json!({"all": true, "rules": rules, "examples": 5000}),
    ));
    assert_eq!(
        e["message"],
        "examples must be an integer from 0 to 1000, got 5000"
    );
    let e = answer(&server.call_tool(
        5,
        "replay_hook",
        json!({"session": "e1be136e", "event": "Stop", "rules": rules, "examples": 2}),
    ));
    assert_eq!(e["message"], "examples goes with all: true");
}
