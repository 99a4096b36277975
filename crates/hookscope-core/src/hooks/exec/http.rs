//! `http` handlers (docs/contract.md#handler-types-and-fields): the payload POSTed as JSON to the
//! handler's `url`, run only with `--exec` / the TUI's `x` confirmation.
//!
//! * [`expand_header`]: `$VAR` / `${VAR}` in a header value is replaced by
//!   the variable's value only when its name is in the handler's
//!   `allowedEnvVars`; any other reference becomes empty (it is never read
//!   from the environment).
//! * [`post`]: one POST (body = the hook's stdin JSON, `Content-Type:
//!   application/json`, the handler's headers) bounded by the handler's
//!   timeout, mapped into a [`RunOutput`]: a response is
//!   [`RunStatus::Http`] with the body as stdout (at most [`OUTPUT_CAP`]
//!   bytes), a connection error [`RunStatus::HttpFailed`], no answer in
//!   time [`RunStatus::TimedOut`]. Plain `http://` only: no TLS stack is
//!   built in.

use std::io::Read;
use std::time::Instant;

use super::process::timeout_duration;
use super::{OUTPUT_CAP, RunOutput, RunStatus};

/// One header of an `http` handler, as sent.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HttpHeader {
    /// The header name as written.
    pub name: String,
    /// The value after [`expand_header`] (not shown: it may hold a token).
    #[serde(skip)]
    pub value: String,
    /// The `$VAR` names that were left empty because they are not in
    /// `allowedEnvVars`.
    pub not_expanded: Vec<String>,
}

/// `value` with `$NAME` and `${NAME}` (NAME = `[A-Za-z_][A-Za-z0-9_]*`)
/// replaced by `lookup(NAME)` when NAME is in `allowed`, by the empty string
/// otherwise (docs/contract.md#handler-types-and-fields: env interpolation only for `allowedEnvVars`);
/// an allowed but unset variable is also empty. A `$` not followed by a
/// name (or an unclosed `${`) is kept. Returns the value and the names that
/// were not allowed.
pub fn expand_header(
    value: &str,
    allowed: &[String],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> (String, Vec<String>) {
    let mut out = String::with_capacity(value.len());
    let mut refused = Vec::new();
    let mut rest = value;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        let (name, consumed) = if let Some(inner) = after.strip_prefix('{') {
            match inner.find('}') {
                Some(end) if is_name(&inner[..end]) => (&inner[..end], end + 2),
                _ => ("", 0),
            }
        } else {
            let end = after
                .char_indices()
                .find(|&(i, c)| {
                    !(c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()))
                })
                .map_or(after.len(), |(i, _)| i);
            (&after[..end], end)
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        if allowed.iter().any(|a| a == name) {
            out.push_str(&lookup(name).unwrap_or_default());
        } else if !refused.iter().any(|r| r == name) {
            refused.push(name.to_string());
        }
        rest = &after[consumed..];
    }
    out.push_str(rest);
    (out, refused)
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

fn output(status: RunStatus, body: Vec<u8>, dropped: u64, started: Instant) -> RunOutput {
    RunOutput {
        status,
        stdout: body,
        stderr: Vec::new(),
        stdout_dropped: dropped,
        stderr_dropped: 0,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        notes: Vec::new(),
    }
}

/// POSTs `body` to `url` with `headers` and `Content-Type:
/// application/json`, giving up after `timeout_secs` (the whole exchange).
/// Never panics: every failure is a status (see the module docs). A status
/// outside 2xx is returned as [`RunStatus::Http`] with its body; the reading
/// ([`super::read_run`]) makes it a non-blocking error.
pub fn post(url: &str, headers: &[HttpHeader], timeout_secs: f64, body: &[u8]) -> RunOutput {
    let started = Instant::now();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout_duration(timeout_secs)))
        .http_status_as_error(false)
        .max_redirects(0)
        // Straight to the URL, as Node's fetch in Claude Code does: no
        // HTTP_PROXY/ALL_PROXY from the environment (a local hook server
        // must not be routed through a proxy).
        .proxy(None)
        .build()
        .into();
    let mut req = agent.post(url).header("Content-Type", "application/json");
    for h in headers {
        req = req.header(h.name.as_str(), h.value.as_str());
    }
    match req.send(body) {
        Ok(resp) => {
            let status = resp.status().as_u16();
            let mut reader = resp.into_body().into_reader();
            let mut kept = Vec::new();
            let mut dropped = 0u64;
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        let room = OUTPUT_CAP.saturating_sub(kept.len()).min(n);
                        kept.extend_from_slice(&buf[..room]);
                        dropped += (n - room) as u64;
                    }
                    Err(e) => {
                        let timed_out = e.kind() == std::io::ErrorKind::TimedOut
                            || e.to_string().to_lowercase().contains("timeout");
                        let st = if timed_out {
                            RunStatus::TimedOut
                        } else {
                            RunStatus::HttpFailed {
                                reason: format!("reading the response of http {status}: {e}"),
                            }
                        };
                        return output(st, Vec::new(), 0, started);
                    }
                }
            }
            output(RunStatus::Http { status }, kept, dropped, started)
        }
        Err(ureq::Error::Timeout(_)) => output(RunStatus::TimedOut, Vec::new(), 0, started),
        Err(ureq::Error::Io(e)) if e.kind() == std::io::ErrorKind::TimedOut => {
            output(RunStatus::TimedOut, Vec::new(), 0, started)
        }
        Err(ureq::Error::Io(e)) => output(
            RunStatus::HttpFailed {
                reason: io_reason(&e),
            },
            Vec::new(),
            0,
            started,
        ),
        Err(e) => output(
            RunStatus::HttpFailed {
                reason: e.to_string(),
            },
            Vec::new(),
            0,
            started,
        ),
    }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::ConnectionRefused => "connection refused".into(),
        std::io::ErrorKind::ConnectionReset => "connection reset".into(),
        _ => e.to_string(),
    }
}
