//! `hookscope call NAME [INPUT|-] [--strict]`: the typed parse of one tool
//! call as JSON (`parse_tool_call`, docs/tool-calls.md#typed-tool-calls).

use std::io::Read;

use hookscope_core::tools::{
    OnError, ToolCall, describe_with_digest, parse_tool_call, tool_digest_text,
};
use serde_json::Value;

use super::{fail, print_json};

/// Runs the subcommand.
///
/// `input`: JSON text, `-` for standard input, or absent (the call then has
/// no input). Text that is not JSON is kept verbatim as a `FallbackCall`
/// (a note goes to stderr; with `strict`, exit 1 instead). With `strict`, a known tool with malformed input
/// prints the `ToolInputError` on stderr and exits 1; otherwise it degrades
/// to an `OtherCall` whose `error` says why.
pub fn run(name: &str, input: Option<&str>, strict: bool) {
    let text = match input {
        Some("-") => {
            let mut buf = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut buf) {
                fail(format!("cannot read INPUT from stdin: {e}"));
            }
            Some(buf)
        }
        Some(t) => Some(t.to_string()),
        None => None,
    };
    // The digest of a parsed INPUT is taken from its text, so numbers
    // keep their literals (`1e21` is a float; docs/payloads.md "Hook payloads").
    let mut digest = None;
    let call = match text.as_deref().map(serde_json::from_str::<Value>) {
        None => parse(name, None, strict),
        Some(Ok(value)) => {
            digest = Some(tool_digest_text(name, text.as_deref()));
            parse(name, Some(&value), strict)
        }
        Some(Err(e)) if strict => {
            errln!("hookscope: INPUT is not valid JSON ({e})");
            std::process::exit(1)
        }
        Some(Err(e)) => {
            errln!("hookscope: INPUT is not valid JSON ({e}); kept verbatim as a FallbackCall");
            ToolCall::fallback(name, text.as_deref().unwrap_or_default())
        }
    };
    let digest = digest.unwrap_or_else(|| call.digest());
    print_json(&describe_with_digest(&call, digest));
}

fn parse(name: &str, input: Option<&Value>, strict: bool) -> ToolCall {
    let on_error = if strict {
        OnError::Raise
    } else {
        OnError::Other
    };
    match parse_tool_call(name, input, on_error) {
        Ok(call) => call,
        Err(e) => {
            errln!("{e}");
            std::process::exit(1)
        }
    }
}
