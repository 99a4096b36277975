//! The `hookscope` binary: parses arguments and dispatches to the TUI or a
//! CLI subcommand. No logic lives here.

mod cli;
mod tui;

use std::path::PathBuf;

use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};
use hookscope::query::{FindParams, OutputMode};

/// Browse AI coding-agent sessions, find tool calls, and debug hooks.
///
/// Without a subcommand, opens the TUI on PATHs (projects folders, project
/// folders or .jsonl files), else on $CLAUDE_CONFIG_DIR/projects or
/// ~/.claude/projects, else on a bundled demo.
#[derive(Parser, Debug)]
#[command(name = "hookscope", version, about, long_about = None)]
struct Args {
    /// Sessions to open in the TUI: projects folders, project folders, or .jsonl files.
    paths: Vec<PathBuf>,
    /// Benchmark hook: discover PATHs, render one frame headless, print the
    /// elapsed milliseconds and exit (used by `cargo bench --bench load`).
    #[arg(long, hide = true)]
    first_frame: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List sessions with their counts.
    Sessions {
        /// Where to look (default: $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects).
        paths: Vec<PathBuf>,
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Show one session's turns and tool calls.
    Show {
        /// A session id, a unique id prefix, or a path to its .jsonl file.
        session: String,
        /// Where to look for it (default: as for `sessions`).
        paths: Vec<PathBuf>,
        /// Print JSON instead of an outline.
        #[arg(long)]
        json: bool,
    },
    /// Parse one tool call into its typed form and print it as JSON.
    ///
    /// Prints {type, name, input, digest, tool_kind, tool_resolved, file_path,
    /// hunks, command_line, error}. Example:
    ///   hookscope call Bash '{"command":"FOO=1 git push && rm -rf build"}'
    Call {
        /// The tool name exactly as invoked (Bash, Edit, mcp__server__tool, …).
        name: String,
        /// The tool input as JSON, or - to read it from stdin; omit for no input.
        input: Option<String>,
        /// Exit 1 with the ToolInputError when a known tool's input is malformed
        /// (default: degrade to an OtherCall carrying the error).
        #[arg(long)]
        strict: bool,
    },
    /// Serve the find_tool_calls tool over MCP on stdio (for Claude Code and
    /// other MCP clients).
    ///
    /// Register it with: claude mcp add hookscope -- hookscope mcp
    ///
    /// Sessions are discovered again on every call, so new ones show up
    /// without a restart. Logs go to stderr only.
    Mcp {
        /// Where to look (default: $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects).
        paths: Vec<PathBuf>,
    },
    /// Find tool calls across sessions and their subagents (find_tool_calls).
    #[command(long_about = FIND_LONG_ABOUT)]
    Find(Box<FindArgs>),
}

const FIND_LONG_ABOUT: &str = "\
Find tool calls across sessions and their subagents, newest first.

Set exactly one of --tool-name (exact, case-insensitive) or --tool-name-pattern
(substring, case-insensitive). The other filters combine with AND and always
match the RAW text (before redaction and truncation): --input-contains on the
compact input JSON, --output-contains / --output-excludes on the result text.
Subagent calls are included and marked ↳ (JSON: agent_id, parent_tool_use_id).
Spawns (Agent/Task) carry what the child cost (JSON: subagent {model,
agent_type, tokens, status, duration_ms, tool_uses}); a background spawn has no
tokens until --with-subagent-cost joins the child transcript.

Secrets in the printed input/output are masked as [REDACTED_<TYPE>] unless
--no-redact. Output longer than 2,000 chars is cut (head; smart for errors).

Bad arguments print one line on stderr and exit 2; with --json the
{\"error\":\"invalid_argument\",\"message\":…} object goes to stdout (exit 2).

Examples:
  hookscope find --tool-name bash --input-contains 'rm -rf'
  hookscope find --tool-name-pattern edit --input-contains .env --since 1w
  hookscope find --tool-name-pattern mcp__ --is-error true --since 2026-11-01 --json
  hookscope find --tool-name Agent --with-subagent-cost --json
  hookscope find ~/.claude/projects/-home-me-repo --tool-name Read --session 8bb2dece --limit 5";

/// The output mode, as a flag value.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModeArg {
    /// First 2,000 chars, then …[truncated].
    Head,
    /// …[truncated], then the last 2,000 chars.
    Tail,
    /// Up to 20 error-looking lines, …[truncated]…, then the last 1,000 chars.
    Smart,
}

/// `hookscope find` flags; each maps to one find_tool_calls parameter.
#[derive(ClapArgs, Debug)]
struct FindArgs {
    /// Where to look: projects folders, project folders or .jsonl files
    /// (default: $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects).
    paths: Vec<PathBuf>,
    /// Exact tool name, case-insensitive (e.g. Bash, mcp__github__create_issue).
    #[arg(long, value_name = "NAME")]
    tool_name: Option<String>,
    /// Substring of the tool name, case-insensitive (e.g. mcp__github__, edit).
    #[arg(long, value_name = "TEXT")]
    tool_name_pattern: Option<String>,
    /// Keep calls whose full input JSON contains TEXT (case-insensitive), e.g. 'rm -rf'.
    #[arg(long, value_name = "TEXT")]
    input_contains: Option<String>,
    /// Keep calls whose full output contains TEXT (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    output_contains: Option<String>,
    /// Drop calls whose full output contains TEXT (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    output_excludes: Option<String>,
    /// true: failed calls only; false: successful calls only (calls with no
    /// recorded result are neither). Default: all.
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set)]
    is_error: Option<bool>,
    /// Only this session: an id or a unique id prefix. Repeat for several.
    #[arg(long, value_name = "ID")]
    session: Vec<String>,
    /// Calls at or after T: RFC 3339 (2026-11-29T18:00:00Z), a date
    /// (2026-11-29 = 00:00 UTC) or a span before now (30m, 36h, 2d, 1w).
    #[arg(long, value_name = "T")]
    since: Option<String>,
    /// Calls before T (same forms as --since).
    #[arg(long, value_name = "T")]
    until: Option<String>,
    /// Only sessions of this agent: claude-code (codex, opencode, droid are
    /// known but not loaded yet, so they match nothing).
    #[arg(long, value_name = "AGENT")]
    agent: Option<String>,
    /// At most N records, newest first (default 50, at most 10000).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Print secrets as they are instead of [REDACTED_<TYPE>].
    #[arg(long)]
    no_redact: bool,
    /// How long output is cut (default: smart for failed calls, else head).
    #[arg(long, value_enum, value_name = "MODE")]
    output_mode: Option<ModeArg>,
    /// Join each spawn to its child transcript: persona, models and exact
    /// tokens summed from the child (also for background spawns).
    #[arg(long)]
    with_subagent_cost: bool,
    /// Pretend the current time is T (RFC 3339), for reproducible relative
    /// --since/--until.
    #[arg(long, value_name = "T", hide = true)]
    now: Option<String>,
    /// Print {"records":[...],"redactions":{...}} instead of a table
    /// (redactions omitted when nothing was masked).
    #[arg(long)]
    json: bool,
}

impl FindArgs {
    fn params(&self) -> FindParams {
        FindParams {
            tool_name: self.tool_name.clone(),
            tool_name_pattern: self.tool_name_pattern.clone(),
            input_contains: self.input_contains.clone(),
            output_contains: self.output_contains.clone(),
            output_excludes: self.output_excludes.clone(),
            is_error: self.is_error,
            session: self.session.clone(),
            since: self.since.clone(),
            until: self.until.clone(),
            agent: self.agent.clone(),
            limit: self.limit,
            redact: !self.no_redact,
            output_mode: self.output_mode.map(|m| match m {
                ModeArg::Head => OutputMode::Head,
                ModeArg::Tail => OutputMode::Tail,
                ModeArg::Smart => OutputMode::Smart,
            }),
            with_subagent_cost: self.with_subagent_cost,
        }
    }
}

fn main() {
    let args = Args::parse();
    match args.command {
        Some(Command::Sessions { paths, json }) => cli::sessions::run(&paths, json),
        Some(Command::Show {
            session,
            paths,
            json,
        }) => cli::show::run(&session, &paths, json),
        Some(Command::Call {
            name,
            input,
            strict,
        }) => cli::call::run(&name, input.as_deref(), strict),
        Some(Command::Mcp { paths }) => cli::mcp::run(&paths),
        Some(Command::Find(find)) => {
            cli::find::run(&find.paths, &find.params(), find.now.as_deref(), find.json)
        }
        None if args.first_frame => match tui::first_frame_ms(&args.paths) {
            Ok(ms) => println!("{ms:.2}"),
            Err(e) => cli::fail(format!("{e:#}")),
        },
        None => {
            if let Err(e) = tui::run(&args.paths) {
                cli::fail(format!("{e:#}"))
            }
        }
    }
}
