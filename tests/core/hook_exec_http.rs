//! `hooks::exec` `http` handlers (docs/contract.md#handler-types-and-fields): the payload POSTed as
//! JSON to a local server (a `TcpListener` on 127.0.0.1:0 in a thread), the
//! response read as a command's stdout, failures non-blocking. The handler
//! comes from a real settings file through `settings::load` and
//! `RunSpec::from_handler`. No timing assertions: the silent server is only
//! checked to be reported as timed out.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;

use hookscope_core::hooks::contract::Version;
use hookscope_core::hooks::exec::{
    HandlerCommand, ProcessRunner, Reading, RunSpec, RunStatus, read_run, run_all,
};
use hookscope_core::hooks::result::Effect;
use hookscope_core::hooks::settings::{LoadOptions, load};
use serde_json::{Value, json};

use crate::support::{REAL_CC, bash_hooks_settings};

/// The Bash `echo original command` PreToolUse of the `hooks` scenario.
fn pre_tool_use() -> Value {
    let text =
        std::fs::read_to_string(Path::new(REAL_CC).join("hooks/hooks/hooks/PreToolUse.jsonl"))
            .expect("capture");
    let v: Value = serde_json::from_str(text.lines().next().expect("line")).expect("json");
    let p = v["stdin"].clone();
    assert_eq!(p["tool_input"]["command"], "echo original command");
    p
}

/// A spec for one `http` PreToolUse handler POSTing to `port`, built from
/// a settings file: header `Authorization: Bearer $HS_TOKEN` (allowed) and
/// `X-Other: ${HS_SECRET}-x` (not allowed), timeout `timeout` seconds.
fn http_spec(port: u16, timeout: u32, extra: Value) -> RunSpec {
    try_http_spec(port, timeout, extra).expect("http spec")
}

fn try_http_spec(port: u16, timeout: u32, extra: Value) -> Result<RunSpec, String> {
    let dir = tempfile::tempdir().expect("tmp");
    let mut handler = json!({
        "type": "http",
        "url": format!("http://127.0.0.1:{port}/hook"),
        "headers": {"Authorization": "Bearer $HS_TOKEN", "X-Other": "${HS_SECRET}-x"},
        "allowedEnvVars": ["HS_TOKEN"],
        "timeout": timeout
    });
    if let (Some(h), Some(e)) = (handler.as_object_mut(), extra.as_object()) {
        h.extend(e.clone());
    }
    let file = bash_hooks_settings(dir.path().join("settings.json"), json!([handler]));
    let config = load(&LoadOptions {
        settings: vec![file],
        cwd: None,
        config_dir: None,
        managed: None,
        version: Version::parse("2.1.332"),
    });
    assert_eq!(config.handlers.len(), 1);
    let lookup = |n: &str| match n {
        "HS_TOKEN" => Some("tok123".into()),
        "HS_SECRET" => Some("hunter2".into()),
        _ => None,
    };
    RunSpec::from_handler(
        &config.handlers[0],
        "http".into(),
        dir.path().to_path_buf(),
        None,
        Vec::new(),
        &lookup,
    )
}

fn run_one(spec: &RunSpec, payload: &Value) -> (RunStatus, Reading) {
    let stdin = serde_json::to_vec(payload).expect("payload");
    let mut runs = run_all(&ProcessRunner, std::slice::from_ref(spec), &stdin);
    let run = runs.remove(0);
    let reading = read_run("PreToolUse", &Version::parse("2.1.332"), spec, &run);
    (run.output.status, reading)
}

/// Reads one request (headers, then `Content-Length` bytes of body).
fn read_request(stream: &mut std::net::TcpStream) -> String {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).expect("read");
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let len = text[..end]
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                break;
            }
        }
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// A server answering one request with `status` and `body`; the thread
/// returns the request it read.
fn serve_once(status: &'static str, body: &'static str) -> (u16, JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("accept");
        let request = read_request(&mut stream);
        let response = format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(response.as_bytes()).expect("write");
        request
    });
    (port, handle)
}

fn header<'a>(request: &'a str, name: &str) -> Option<&'a str> {
    let head = request.split("\r\n\r\n").next()?;
    head.lines().skip(1).find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

#[test]
fn http_200_deny_blocks_and_the_request_is_the_payload() {
    let (port, server) = serve_once(
        "200 OK",
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#,
    );
    let spec = http_spec(port, 30, json!({}));
    let p = pre_tool_use();
    let (status, r) = run_one(&spec, &p);
    let request = server.join().expect("server");
    assert_eq!(status, RunStatus::Http { status: 200 });
    assert_eq!(r.outcome.effect, Effect::Blocked);
    assert_eq!(r.outcome.model_sees.as_deref(), Some("no"));
    assert_eq!(
        r.outcome.why[0],
        "http 200: the response body is read as a command's stdout with exit 0 (docs/contract.md#handler-types-and-fields)"
    );
    assert!(!r.failed);
    assert!(request.starts_with("POST /hook HTTP/1.1\r\n"), "{request}");
    assert_eq!(header(&request, "content-type"), Some("application/json"));
    assert_eq!(header(&request, "authorization"), Some("Bearer tok123"));
    // HS_SECRET is not in allowedEnvVars: left empty, never read.
    assert_eq!(header(&request, "x-other"), Some("-x"));
    let body = request.split_once("\r\n\r\n").expect("body").1;
    let sent: Value = serde_json::from_str(body).expect("json body");
    assert_eq!(sent, p);
    assert_eq!(
        spec.http_plan_line().as_deref(),
        Some(format!(
            "would POST to http://127.0.0.1:{port}/hook (headers: Authorization, X-Other); left empty, not in allowedEnvVars: $HS_SECRET"
        ).as_str())
    );
    assert_eq!(
        spec.argv(),
        ["POST", &format!("http://127.0.0.1:{port}/hook")]
    );
}

#[test]
fn http_500_is_a_non_blocking_error() {
    let (port, server) = serve_once(
        "500 Internal Server Error",
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#,
    );
    let spec = http_spec(port, 30, json!({}));
    let (status, r) = run_one(&spec, &pre_tool_use());
    server.join().expect("server");
    assert_eq!(status, RunStatus::Http { status: 500 });
    assert_eq!(r.outcome.effect, Effect::Nothing);
    assert_eq!(r.outcome.model_sees, None);
    assert_eq!(
        r.outcome.why,
        [
            "http 500 (not 2xx; the body is ignored): a non-blocking error, the action proceeds (docs/contract.md#exit-codes-and-stdout; onFailure: \"block\" would block)"
        ]
    );
    assert!(r.failed);
}

#[test]
fn http_500_with_on_failure_block_blocks() {
    let (port, server) = serve_once("500 Internal Server Error", "");
    let spec = http_spec(port, 30, json!({"onFailure": "block"}));
    assert!(spec.on_failure_block);
    let (status, r) = run_one(&spec, &pre_tool_use());
    server.join().expect("server");
    assert_eq!(status, RunStatus::Http { status: 500 });
    assert_eq!(r.outcome.effect, Effect::Blocked);
    assert_eq!(
        r.outcome.model_sees.as_deref(),
        Some("http 500 (not 2xx; the body is ignored)")
    );
}

#[test]
fn closed_port_is_a_connection_error_not_a_crash() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let spec = http_spec(port, 30, json!({}));
    let (status, r) = run_one(&spec, &pre_tool_use());
    assert_eq!(
        status,
        RunStatus::HttpFailed {
            reason: "connection refused".into()
        }
    );
    assert_eq!(status.describe(), "http error: connection refused");
    assert_eq!(r.outcome.effect, Effect::Nothing);
    assert_eq!(
        r.outcome.why,
        [
            "http error: connection refused: a non-blocking error, the action proceeds (docs/contract.md#exit-codes-and-stdout; onFailure: \"block\" would block)"
        ]
    );
}

#[test]
fn silent_server_times_out_at_the_handler_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("accept");
        let _ = read_request(&mut stream);
        // Never answers; holds the connection until the test is done.
        let _ = done_rx.recv();
    });
    let spec = http_spec(port, 1, json!({}));
    assert_eq!(spec.timeout_secs, 1.0);
    let (status, r) = run_one(&spec, &pre_tool_use());
    drop(done_tx);
    server.join().expect("server");
    assert_eq!(status, RunStatus::TimedOut);
    assert_eq!(r.outcome.effect, Effect::Nothing);
    assert_eq!(
        r.outcome.why,
        [
            "timed out after 1s: no answer from the server, request abandoned: no decision, the action proceeds (a stalled gate fails open; docs/contract.md#exit-codes-and-stdout)"
        ]
    );
}

#[test]
fn https_and_missing_url_are_not_run() {
    assert_eq!(
        try_http_spec(1, 30, json!({"url": "https://example.com/hook"})),
        Err("not run: https not built in (hookscope POSTs plain http:// only; see docs/replay-and-backtest.md, --exec)".to_string())
    );
    assert_eq!(
        try_http_spec(1, 30, json!({"url": ""})),
        Err("not run: the http handler has no url".to_string())
    );
    let spec = http_spec(8080, 30, json!({}));
    assert!(matches!(spec.command, HandlerCommand::Http { .. }));
}

#[test]
fn header_expansion_keeps_stray_dollars_and_empties_refused_names() {
    use hookscope_core::hooks::exec::expand_header;
    let allowed = vec!["A".to_string()];
    let lookup = |n: &str| (n == "A" || n == "B").then(|| format!("<{n}>"));
    assert_eq!(
        expand_header("x $A ${A}y $B ${B} $1 $ ${A ${} end$", &allowed, &lookup),
        (
            "x <A> <A>y   $1 $ ${A ${} end$".to_string(),
            vec!["B".to_string()]
        )
    );
    // An allowed but unset variable is empty.
    assert_eq!(
        expand_header("Bearer $A", &allowed, &|_| None),
        ("Bearer ".to_string(), Vec::new())
    );
}
