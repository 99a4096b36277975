//! `hookscope find [PATH...] --tool-name X | --tool-name-pattern X [filters]
//! [--json]`: a thin shell over [`hookscope::query::find_tool_calls`].
//!
//! Errors: a bad argument (including a PATH that does not exist) prints one
//! line on stderr and exits 2; with `--json` it prints
//! `{"error":"invalid_argument","message":…}` on stdout instead (so scripts
//! parse one stream) and still exits 2. Sessions that cannot be read are
//! reported on stderr and skipped.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use hookscope::query::{FindParams, FoundCall, QueryError, find_tool_calls};
use serde_json::Value;

use hookscope::transcript::discover;

use super::{fail, print_json};

/// Runs the subcommand with already-built parameters.
pub fn run(paths: &[PathBuf], params: &FindParams, now: Option<&str>, json: bool) {
    let now = match now {
        None => Utc::now(),
        Some(t) => match DateTime::parse_from_rfc3339(t) {
            Ok(t) => t.with_timezone(&Utc),
            Err(e) => invalid(
                &QueryError::InvalidArgument(format!("--now: {t:?} is not RFC 3339: {e}")),
                json,
            ),
        },
    };
    // Validate before discovery so a bad argument fails fast.
    if let Err(e) = params.validate(now) {
        invalid(&e, json);
    }
    let found = match discover(paths) {
        Ok(found) => found,
        Err(e) => invalid(&QueryError::InvalidArgument(e.to_string()), json),
    };
    let result = match find_tool_calls(&found.sessions, params, now) {
        Ok(r) => r,
        Err(e) => invalid(&e, json),
    };
    for e in &result.unreadable {
        eprintln!("hookscope: {e}");
    }
    if json {
        match serde_json::to_value(&result) {
            Ok(v) => print_json(&v),
            Err(e) => fail(format!("cannot serialize output: {e}")),
        }
        return;
    }
    print_table(&result.records);
    let limit = params.limit.unwrap_or(hookscope::query::DEFAULT_LIMIT);
    eprintln!(
        "{} record{}{}",
        result.records.len(),
        if result.records.len() == 1 { "" } else { "s" },
        if result.records.len() == limit {
            format!(" (limit {limit}; --limit N for more)")
        } else {
            String::new()
        }
    );
    if !result.redactions.is_empty() {
        let parts: Vec<String> = result
            .redactions
            .iter()
            .map(|(k, v)| format!("{k}×{v}"))
            .collect();
        eprintln!("redacted: {} (--no-redact to show)", parts.join(", "));
    }
}

fn invalid(e: &QueryError, json: bool) -> ! {
    if json {
        print_json(&e.to_json());
        std::process::exit(2)
    }
    fail(e)
}

fn print_table(records: &[FoundCall]) {
    println!(
        "{:<19}  {:<8}  {:<16}  {:<20}  {:<3}  INPUT",
        "TIME (UTC)", "SESSION", "TOOL", "RESOLVED", "ERR"
    );
    for r in records {
        let time = r
            .timestamp
            .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
            .unwrap_or_else(|| "-".to_string());
        let session: String = r.session.chars().take(8).collect();
        let tool = if r.origin.is_some() {
            format!("↳{}", r.tool_name)
        } else {
            r.tool_name.clone()
        };
        let err = match r.is_error {
            Some(true) => "✗",
            Some(false) => "",
            None => "…",
        };
        println!(
            "{:<19}  {:<8}  {:<16}  {:<20}  {:<3}  {}",
            time,
            session,
            clip(&tool, 16),
            clip(r.tool_resolved.as_deref().unwrap_or(""), 20),
            err,
            clip(&input_summary(r), 70)
        );
    }
}

/// One line saying what the call did: the command, the file path, the
/// pattern, the URL, the prompt, else the compact input JSON.
fn input_summary(r: &FoundCall) -> String {
    for key in [
        "command",
        "file_path",
        "notebook_path",
        "pattern",
        "url",
        "query",
        "description",
        "prompt",
    ] {
        if let Some(s) = r.input.get(key).and_then(Value::as_str) {
            return s.to_string();
        }
    }
    match &r.input {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

/// `text` on one line, at most `max` chars (an ellipsis marks a cut).
fn clip(text: &str, max: usize) -> String {
    let one: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one.chars().count() <= max {
        return one;
    }
    let mut out: String = one.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}
