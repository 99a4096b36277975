//! The `hookscope` binary: parses arguments and dispatches to the TUI or a
//! CLI subcommand. No logic lives here.

mod allocator;
mod cli;
mod tui;
mod words;

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Browse AI coding-agent sessions, find tool calls, and debug hooks.
///
/// Without a subcommand, opens the TUI on PATHs (projects folders, project
/// folders or .jsonl files), else on every agent's default folders
/// (Claude Code, Codex, OpenCode, Factory Droid; see `sessions --help`),
/// else on a bundled demo.
#[derive(Parser, Debug)]
#[command(name = "hookscope", version, about, long_about = None)]
struct Args {
    /// Sessions to open in the TUI: projects folders, project folders, or .jsonl files.
    paths: Vec<PathBuf>,
    /// Benchmark hook: discover PATHs, render one frame headless, print the
    /// elapsed milliseconds and exit (used by `cargo bench --bench load`).
    #[arg(long, hide = true)]
    first_frame: bool,
    /// Benchmark hook: discover PATHs, then print the milliseconds to the
    /// first frame, to the complete session list and to the Calls view's
    /// answer to this filter line (used by `cargo bench --bench heavy`).
    #[arg(long, hide = true, value_name = "FILTER")]
    bench_probe: Option<String>,
    /// A rule set (TOML; `hookscope test --example` prints one) for the TUI's replay
    /// pane (`r`): each rule's decision with the why.
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    /// A second rule set: the TUI's `B` lists the events --rules (A) and
    /// this one (B) decide differently.
    #[arg(long, value_name = "FILE", requires = "rules")]
    against: Option<PathBuf>,
    /// A second version of your hook settings (repeatable): the TUI's `B`
    /// runs your hooks (A) and these (B) on every event and lists where
    /// they differ.
    #[arg(long = "against-settings", value_name = "FILE")]
    against_settings: Vec<PathBuf>,
    /// A Claude Code settings file whose hooks the TUI's replay pane explains
    /// and runs (`x`), instead of the ones that applied to the session (your
    /// user settings and the project's .claude/). Repeatable.
    #[arg(long, value_name = "FILE")]
    settings: Vec<PathBuf>,
    /// For the TUI's replay pane: map a folder the transcripts record (OLD,
    /// absolute) to a folder here (NEW) in payloads, CLAUDE_PROJECT_DIR and
    /// where `x` runs the hooks (repeatable).
    #[arg(long = "cwd-map", value_name = "OLD=NEW")]
    cwd_map: Vec<String>,
    /// Work without the session index in the cache folder
    /// ($XDG_CACHE_HOME/hookscope, else ~/.cache/hookscope): read every
    /// transcript and write nothing (also HOOKSCOPE_NO_INDEX=1).
    #[arg(long, global = true)]
    no_index: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List sessions with their counts.
    Sessions {
        /// Where to look (default: every agent's folders: $CLAUDE_CONFIG_DIR/projects
        /// or ~/.claude/projects; $CODEX_HOME/sessions and archived_sessions, else
        /// ~/.codex/…; OpenCode's $XDG_DATA_HOME/opencode (opencode.db, storage/);
        /// ~/.factory/sessions).
        paths: Vec<PathBuf>,
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
        /// List the diagnostics (path:line: message) instead of the sessions.
        #[arg(long)]
        diagnostics: bool,
        /// Only sessions of this agent: claude-code (also claude, cc), codex
        /// (cx), opencode (oc), droid (factory, dr).
        #[arg(long, value_name = "AGENT", value_parser = parse_agent)]
        agent: Option<hookscope_core::transcript::Agent>,
    },
    /// Show one session's turns and tool calls.
    Show {
        /// A session id, a unique id prefix, or a path to its file (any
        /// bytes: a path need not be UTF-8). An id found in identical
        /// copies (a .jsonl and its .jsonl.zst, a backup) opens once with a
        /// note; in files that differ, they are listed to pass one.
        #[arg(value_parser = clap::value_parser!(OsString))]
        session: OsString,
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
    #[command(verbatim_doc_comment)]
    Call {
        /// The tool name exactly as invoked (Bash, Edit, mcp__server__tool, …).
        name: String,
        /// The tool input as JSON, or - to read it from stdin; omit for no input.
        input: Option<String>,
        /// Exit 1 with the ToolInputError when a known tool's input is malformed,
        /// or when INPUT is not JSON (default: degrade to an OtherCall carrying
        /// the error, or keep non-JSON text as a FallbackCall).
        #[arg(long)]
        strict: bool,
    },
    /// Serve find_tool_calls over MCP on stdio (for Claude Code and other
    /// MCP clients), with hookscope's count_tool_calls, hook_payload and
    /// replay_hook.
    ///
    /// Register it with: claude mcp add hookscope -- hookscope mcp
    ///
    /// Sessions are discovered again on every call, so new ones show up
    /// without a restart. Logs go to stderr only.
    Mcp {
        /// Where to look (default: every agent's folders: $CLAUDE_CONFIG_DIR/projects
        /// or ~/.claude/projects; $CODEX_HOME/sessions and archived_sessions, else
        /// ~/.codex/…; OpenCode's $XDG_DATA_HOME/opencode (opencode.db, storage/);
        /// ~/.factory/sessions).
        paths: Vec<PathBuf>,
    },
    /// Find tool calls across sessions and their subagents (find_tool_calls).
    #[command(long_about = cli::find::LONG_ABOUT)]
    Find(Box<cli::find::FindArgs>),
    /// Run the test cases of a rule file ([[rules.tests]] and [[tests]]).
    ///
    /// Prints PASS/FAIL per case with the why of each failure. Exit 0 when
    /// all pass, 1 on any failure, 2 when the file is refused (TOML, regex,
    /// glob or rule errors, each with file:line:col).
    Test {
        /// The rule file (TOML; `hookscope test --example` prints a
        /// commented one to start from).
        #[arg(value_parser = clap::value_parser!(PathBuf), required_unless_present = "example")]
        rules: Option<PathBuf>,
        /// Print the bundled example rule set (assets/rules/example.toml,
        /// with its test cases) on stdout and exit: `hookscope test
        /// --example > rules.toml`.
        #[arg(long, conflicts_with = "json")]
        example: bool,
        /// Print {file, rules, passed, failed, cases: [...]} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run a rule set as a hook: one payload on stdin, the contract's answer
    /// on stdout and in the exit code, the decision logged.
    #[command(long_about = cli::hook::LONG_ABOUT)]
    Hook(Box<cli::hook::HookArgs>),
    /// Print the stdin JSON Claude Code sent (or would send) to a hook, rebuilt
    /// from the transcript: `hookscope payload SESSION --event PreToolUse
    /// --at toolu_… | ./my-hook.sh`.
    Payload(Box<cli::payload::PayloadArgs>),
    /// Replay a hook event through a rule set (the payload, each rule with
    /// its why, the decision, the hook output, the outcome, and what the
    /// transcript recorded), or backtest a rule set over every session
    /// (--all).
    ///
    ///   hookscope replay SESSION --event PreToolUse --at toolu_… --rules rules.toml
    ///   hookscope replay --rules rules.toml --all [PATH...]
    #[command(verbatim_doc_comment)]
    Replay(Box<cli::replay::ReplayArgs>),
    /// Your hook configuration: every settings file and handler with
    /// file:line, layer and effective timeout; which handlers an event
    /// reaches and why (--match EVENT VALUE); lints (--lint, exit 1 when
    /// any fires). Nothing is run. --activity SESSION: every hook firing the
    /// transcript records.
    ///
    ///   hookscope hooks --match PreToolUse mcp__memory__create
    ///   hookscope hooks --settings .claude/settings.json --lint
    ///   hookscope hooks --activity SESSION [--json] [PATH...]
    #[command(verbatim_doc_comment)]
    Hooks(Box<cli::hooks::HooksArgs>),
    /// Print tool calls, their results and hook firings as a session is
    /// written, like `tail -f` (the last 10 calls first; --last, --from-start).
    ///
    /// Without SESSION or with a folder: the most recently modified session
    /// there, and every session that appears there later.
    ///
    ///   hookscope tail                      # the newest session under the default roots
    ///   hookscope tail ~/.claude/projects/-my-repo --json
    ///   hookscope tail 8bb2dece --last 0 --count 5 --timeout 60
    #[command(verbatim_doc_comment)]
    Tail(Box<cli::tail::TailArgs>),
    /// Print a shell completion script for hookscope.
    ///
    ///   hookscope completions bash > ~/.local/share/bash-completion/completions/hookscope
    ///   hookscope completions zsh > ~/.zfunc/_hookscope
    ///   hookscope completions fish > ~/.config/fish/completions/hookscope.fish
    #[command(verbatim_doc_comment)]
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print hookscope's man page (roff) on stdout.
    ///
    ///   hookscope man > ~/.local/share/man/man1/hookscope.1
    #[command(verbatim_doc_comment)]
    Man,
}

/// `--agent`'s parser: the one agent-name parser
/// ([`hookscope_core::transcript::Agent::from_name`]); the error lists every
/// accepted name.
fn parse_agent(name: &str) -> Result<hookscope_core::transcript::Agent, String> {
    name.parse()
        .map_err(|e: hookscope_core::transcript::UnknownAgent| e.to_string())
}

fn main() {
    allocator::configure();
    // `args_os`, not `args`: an argument that is not UTF-8 is clap's to
    // refuse (exit 2 with a message), never a panic.
    let args = match Args::try_parse_from(std::env::args_os()) {
        Ok(args) => args,
        Err(e) => parse_failure(e),
    };
    // With `--json`, a refusal is the JSON error object on stdout, as a
    // script reads the answer (docs/cli.md "Exit codes").
    let json = match &args.command {
        Some(Command::Sessions { json, .. } | Command::Show { json, .. }) => *json,
        Some(Command::Test { json, .. }) => *json,
        Some(Command::Find(a)) => a.json,
        Some(Command::Replay(a)) => a.json,
        Some(Command::Hooks(a)) => a.json,
        Some(Command::Tail(a)) => a.json,
        _ => false,
    };
    if json {
        cli::fail_in_json();
    }
    match args.command {
        Some(Command::Sessions {
            paths,
            json,
            diagnostics,
            agent,
        }) => cli::sessions::run(&paths, json, diagnostics, agent, args.no_index),
        Some(Command::Show {
            session,
            paths,
            json,
        }) => cli::show::run(session.as_ref(), &paths, json),
        Some(Command::Call {
            name,
            input,
            strict,
        }) => cli::call::run(&name, input.as_deref(), strict),
        Some(Command::Mcp { paths }) => cli::mcp::run(&paths, args.no_index),
        Some(Command::Find(find)) => cli::find::run_args(&find, args.no_index),
        Some(Command::Test {
            rules,
            json,
            example,
        }) => match (example, rules) {
            (true, _) => cli::test::print_example(),
            (false, Some(rules)) => cli::test::run(&rules, json),
            (false, None) => cli::fail("give a rule file, or --example to print one"),
        },
        Some(Command::Payload(args)) => cli::payload::run(&args),
        Some(Command::Hook(args)) => cli::hook::run(&args),
        Some(Command::Replay(replay)) => cli::replay::run(&replay, args.no_index),
        Some(Command::Hooks(hooks)) => cli::hooks::run(&hooks, args.no_index),
        Some(Command::Tail(args)) => cli::tail::run(&args),
        Some(Command::Completions { shell }) => {
            let mut cmd = <Args as clap::CommandFactory>::command();
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut cmd, "hookscope", &mut out);
            cli::print_raw(&String::from_utf8_lossy(&out));
        }
        Some(Command::Man) => {
            let cmd = <Args as clap::CommandFactory>::command();
            let mut out = Vec::new();
            match clap_mangen::Man::new(cmd).render(&mut out) {
                Ok(()) => cli::print_raw(&String::from_utf8_lossy(&out)),
                Err(e) => cli::fail(format!("cannot render the man page: {e}")),
            }
        }
        None if args.bench_probe.is_some() => {
            match tui::bench_probe(
                &args.paths,
                args.bench_probe.as_deref().unwrap_or_default(),
                args.no_index,
            ) {
                Ok([frame, list, calls, whole]) => {
                    println!("{frame:.1} {list:.1} {calls:.1} {whole:.1}")
                }
                Err(e) => cli::fail(format!("{e:#}")),
            }
        }
        None if args.first_frame => match tui::first_frame_ms(&args.paths, args.no_index) {
            Ok(ms) => println!("{ms:.2}"),
            Err(e) => cli::fail(format!("{e:#}")),
        },
        None => {
            if let Some(hint) = subcommand_typo(&args.paths) {
                cli::fail(hint);
            }
            let cwd_map = cli::replay::cwd_map_or_exit(&args.cwd_map);
            if let Err(e) = tui::run(
                &args.paths,
                tui::Versions {
                    rules: args.rules.as_deref(),
                    against: args.against.as_deref(),
                    against_settings: &args.against_settings,
                },
                &args.settings,
                cwd_map,
                args.no_index,
            ) {
                cli::fail(format!("{e:#}"))
            }
        }
    }
}

/// A command line clap refuses. `find --json` keeps its contract even
/// here: the `{"error": "invalid_argument", "message": …}` object on stdout
/// and exit 2 (docs/tool-calls.md#the-find-query); everything else (and `--help`/`--version`) is
/// clap's own output.
fn parse_failure(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    // `args_os`: the refused argument may not be UTF-8 (`args` would panic).
    let argv: Vec<OsString> = std::env::args_os().skip(1).collect();
    // The subcommands whose `--json` refusals are the JSON error object
    // (as `cli::fail_in_json`), the usage errors clap finds included.
    const JSON_COMMANDS: &[&str] = &[
        "sessions", "show", "find", "test", "replay", "hooks", "tail",
    ];
    let command = argv
        .iter()
        .find(|a| !a.as_encoded_bytes().starts_with(b"-"));
    let find_json = command.is_some_and(|c| JSON_COMMANDS.iter().any(|j| c == OsStr::new(j)))
        && argv.iter().any(|a| a == OsStr::new("--json"));
    let usage = !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
    if usage && argv.first().is_some_and(|a| a == OsStr::new("hook")) {
        // Exit 2 would block the agent's call (the hook contract's blocking
        // status): a misconfigured hook fails open with exit 1, which
        // Claude Code reports without blocking.
        let _ = e.print();
        std::process::exit(1);
    }
    if find_json && usage {
        // The error's paragraph (clap puts what is missing on the lines
        // after its first), without the usage that follows it.
        let rendered = e.render().to_string();
        let words: Vec<&str> = rendered
            .lines()
            .map(str::trim)
            .take_while(|l| !l.is_empty())
            .collect();
        let message = match words.join(" ").trim_start_matches("error: ") {
            "" => "invalid arguments".to_string(),
            m => m.to_string(),
        };
        let error = hookscope_core::query::QueryError::InvalidArgument(message);
        // Pretty, as every other `--json` refusal.
        cli::print_json(&error.to_json());
        std::process::exit(2);
    }
    e.exit()
}

/// A first PATH that does not exist but is one or two letters from a
/// subcommand (`hookscope session DIR`): the message suggesting it.
fn subcommand_typo(paths: &[PathBuf]) -> Option<String> {
    use clap::CommandFactory;
    let first = paths.first()?;
    if first.exists() {
        return None;
    }
    let name = first.to_str()?;
    let command = Args::command();
    let best = command
        .get_subcommands()
        .map(|c| c.get_name())
        .filter(|c| strsim::levenshtein(c, name) <= 2)
        .min_by_key(|c| strsim::levenshtein(c, name))?;
    Some(format!(
        "no such file or directory: {name} (did you mean `hookscope {best}`?)"
    ))
}
