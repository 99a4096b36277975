//! `hookscope hooks`: the user's hooks and what they did. This worktree
//! carries only `--activity` (issue 9 §5); the lead merges it with the
//! settings/lint/match arguments of the `hooks` subcommand.

use std::ffi::OsString;
use std::path::PathBuf;

/// Arguments of `hookscope hooks`.
#[derive(clap::Args, Debug)]
pub struct HooksArgs {
    /// Every hook firing the transcript of SESSION records (an id, a unique
    /// id prefix, or a path): event, tool_use_id, what it did, handler
    /// command, exit code and duration.
    #[arg(long, value_name = "SESSION", value_parser = clap::value_parser!(OsString))]
    pub activity: Option<OsString>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Where to look for the session (default: as for `sessions`).
    pub paths: Vec<PathBuf>,
}

/// Runs `hookscope hooks`.
pub fn run(args: &HooksArgs) {
    match &args.activity {
        Some(session) => super::activity::run(session, &args.paths, args.json),
        None => super::fail("hooks: give --activity SESSION"),
    }
}
