//! The scriptable CLI: one file per subcommand, each a thin shell over the
//! library. Errors print one line on stderr and exit 2 (see [`fail`]).

/// `println!` for CLI text output: control characters made visible
/// ([`print_text`]), and a closed pipe ends quietly.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::print_text(&format!($($arg)*))
    };
}

/// `eprintln!` for CLI messages on stderr, which may quote a transcript,
/// a path or a hook's output: control characters made visible
/// ([`hookscope_core::printable::printable`]).
macro_rules! errln {
    () => {
        eprintln!()
    };
    ($($arg:tt)*) => {
        eprintln!("{}", hookscope_core::printable::printable(&format!($($arg)*)))
    };
}

/// An `--event` value: a hook event's name as settings files spell it
/// (`Stop`), or the same name in another case (`stop`), as `find --hook`
/// takes it; only one event matches either way.
///
/// # Errors
/// [`hookscope_core::hooks::events::UnknownEvent`] for any other text.
pub fn event_arg(
    text: &str,
) -> Result<hookscope_core::hooks::events::EventName, hookscope_core::hooks::events::UnknownEvent> {
    use hookscope_core::hooks::events::EventName;
    text.parse().or_else(|e| {
        EventName::ALL
            .iter()
            .copied()
            .find(|n| n.as_str().eq_ignore_ascii_case(text))
            .ok_or(e)
    })
}

pub mod activity;
pub mod against;
pub mod call;
pub mod decisions;
pub mod exec_all;
pub mod explain;
pub mod find;
pub mod hook;
pub mod hooks;
pub mod index;
pub mod install;
pub mod interrupt;
pub mod mcp;
pub mod payload;
pub mod replay;
pub mod sessions;
pub mod show;
pub mod tail;
pub mod test;

use std::path::PathBuf;

use hookscope_core::transcript::{Discovery, discover};

/// A path argument resolved against the invocation's folder (a clap value
/// parser): a folder or file the hooks use from another working folder
/// (`--cwd`, `--config-dir`, …) must not stay relative (docs/your-hooks.md#your-hooks).
///
/// # Errors
/// An empty path.
pub fn absolute(text: &str) -> Result<PathBuf, String> {
    if text.is_empty() {
        return Err("an empty path".into());
    }
    std::path::absolute(text).map_err(|e| e.to_string())
}

/// Whether [`fail`] answers in JSON: set by a subcommand given `--json`
/// whose refusals a script reads from stdout ([`fail_in_json`]).
static FAIL_IN_JSON: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes [`fail`] print `{"error": "invalid_argument", "message": …}` on
/// stdout (the shape `find --json` refuses with) instead of a line on
/// stderr, for the rest of the process.
pub fn fail_in_json() {
    FAIL_IN_JSON.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Prints `hookscope: <message>` on stderr (after [`fail_in_json`]: the
/// JSON error object on stdout) and exits with status 2 (bad arguments,
/// unknown session, bad PATH).
pub fn fail(message: impl std::fmt::Display) -> ! {
    if FAIL_IN_JSON.load(std::sync::atomic::Ordering::Relaxed) {
        print_json(
            &serde_json::json!({"error": "invalid_argument", "message": message.to_string()}),
        );
    } else {
        errln!("hookscope: {message}");
    }
    std::process::exit(2)
}

/// Discovers sessions under `paths`, exiting 2 on a bad PATH.
pub fn discover_or_exit(paths: &[PathBuf]) -> Discovery {
    discover(paths).unwrap_or_else(|e| fail(e))
}

/// Prints a JSON value (or anything serializable, written straight from it
/// without a `Value` tree), pretty, on stdout, as it is (JSON escapes every
/// C0 control itself). A closed pipe (`| head`) ends the process quietly
/// with status 0 instead of panicking.
pub fn print_json<T: serde::Serialize + ?Sized>(value: &T) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => print_raw(&text),
        Err(e) => fail(format!("cannot serialize output: {e}")),
    }
}

/// Writes text output and a newline to stdout, every control character
/// but tab and newline made visible ([`hookscope_core::printable::printable`]:
/// text from a transcript never drives the terminal); exits 0 quietly on a
/// broken pipe.
pub fn print_text(text: &str) {
    print_raw(&hookscope_core::printable::printable(text));
}

/// Writes `text` and a newline to stdout as it is: only for JSON, whose
/// bytes a hook reads (a payload) or a script parses, and for what clap
/// generates from hookscope's own definitions (completion scripts, the
/// man page). Exits 0 quietly on a broken pipe.
pub fn print_raw(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
}
