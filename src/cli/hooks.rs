//! `hookscope hooks [--settings FILE]... [--cwd DIR] [--config-dir DIR]
//! [--match EVENT [VALUE] [--input JSON]] [--lint] [--version V] [--json]`:
//! the user's hook configuration (docs/your-hooks.md#your-hooks); and `hookscope hooks
//! --activity SESSION [--json] [PATH...]`: what the transcript says hooks
//! did ([`super::activity`]).
//!
//! Without `--match`/`--lint`: every settings file looked for (found or
//! not, load-time drops first), then every handler with `file:line`,
//! layer, effective timeout and whether it can run. `--match`: each handler
//! of the event with ✓/✗ and the reason. `--lint`: the lints, exit 1 when
//! any fires (`--allow ID` and `# hookscope: allow ID` silence one);
//! `--explain ID`: what a lint means ([`super::explain`]). Exit 2 on bad
//! arguments. Nothing is run. `--agent codex`
//! reads Codex CLI's hooks instead, `--agent droid` Factory Droid's: each
//! through its [`hookscope_core::hooks::dialect::Dialect`].

use std::ffi::OsString;
use std::path::PathBuf;

use hookscope_core::hooks::contract::Version;
use hookscope_core::hooks::dialect::{Dialect, Hooks, Sources};
use hookscope_core::hooks::lint::silence::{Silenced, apply_allows};
use hookscope_core::hooks::lint::{Lint, LintOptions, Severity};
use hookscope_core::hooks::reach::MatchReport;
use hookscope_core::hooks::settings::HookConfig;
use hookscope_core::hooks::settings::codex::TrustStatus;
use serde_json::Value;

use super::{fail, print_json, print_text};

/// Parses `--agent` with the one agent-name parser
/// ([`hookscope_core::transcript::Agent::from_name`]) into its hook dialect;
/// OpenCode has none hookscope reads.
fn parse_hook_agent(name: &str) -> Result<Dialect, String> {
    let agent = name
        .parse::<hookscope_core::transcript::Agent>()
        .map_err(|e| e.to_string())?;
    Dialect::of(agent).map_err(|e| e.to_string())
}

/// Arguments of `hookscope hooks`.
#[derive(clap::Args, Debug)]
pub struct HooksArgs {
    /// Whose hooks: claude-code (default; also claude, cc), codex (cx) or
    /// droid (factory, dr), the names every command takes; each with its own
    /// files, matcher and answer dialect. Droid: ~/.factory/hooks.json, else
    /// the `hooks` of ~/.factory/settings.json; the project's
    /// .factory/hooks.json, else .factory/hooks/hooks.json, else
    /// .factory/settings.json; --config-dir is then the .factory folder
    /// (default $FACTORY_HOME_OVERRIDE/.factory or ~/.factory).
    #[arg(long, value_parser = parse_hook_agent, default_value = "claude-code")]
    pub agent: Dialect,
    /// With --agent codex: the Codex home (default: $CODEX_HOME, else
    /// ~/.codex).
    #[arg(long = "codex-home", value_name = "DIR", value_parser = super::absolute)]
    pub codex_home: Option<PathBuf>,
    /// Read only this settings file (repeatable); default: the user,
    /// project, local and managed settings, enabled plugins' hooks.json, and
    /// skill/subagent frontmatter.
    #[arg(long = "settings", value_name = "FILE")]
    pub settings: Vec<PathBuf>,
    /// The project (the session's cwd) whose .claude/ is read (default: the
    /// current folder).
    #[arg(long, value_name = "DIR", value_parser = super::absolute)]
    pub cwd: Option<PathBuf>,
    /// The config dir (default: $CLAUDE_CONFIG_DIR, else ~/.claude).
    #[arg(long = "config-dir", value_name = "DIR", value_parser = super::absolute)]
    pub config_dir: Option<PathBuf>,
    /// The managed settings file (default:
    /// /etc/claude-code/managed-settings.json on Linux).
    #[arg(long, value_name = "FILE", value_parser = super::absolute)]
    pub managed: Option<PathBuf>,
    /// Which handlers an event reaches, and why: EVENT and the value its
    /// matcher tests (the tool name for tool events, the source for
    /// SessionStart, …), e.g. `--match PreToolUse mcp__memory__create`;
    /// VALUE may be left out for an event that takes no matcher (Stop,
    /// UserPromptSubmit, …).
    #[arg(long = "match", num_args = 1..=2, value_names = ["EVENT", "VALUE"])]
    pub match_: Option<Vec<String>>,
    /// With --match: the tool_input JSON for `if` rules, e.g.
    /// '{"command": "rm -rf build"}'.
    #[arg(long, value_name = "JSON")]
    pub input: Option<String>,
    /// Print the lints; exit 1 when any fires, 0 when none.
    #[arg(long)]
    pub lint: bool,
    /// With --lint: text (default), json (as --json), sarif (SARIF 2.1.0,
    /// for code scanning) or github (workflow annotations).
    #[arg(long, value_enum, value_name = "FORMAT", requires = "lint")]
    pub format: Option<LintFormat>,
    /// With --lint: silence lint ID everywhere (repeatable). One handler
    /// silences a lint for itself with `# hookscope: allow ID` at the end
    /// of its command.
    #[arg(long, value_name = "ID", requires = "lint")]
    pub allow: Vec<String>,
    /// What lint ID means, an example where it fires and the fix; without
    /// an ID, every lint id with a line on it.
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "",
          conflicts_with_all = ["match_", "lint", "activity"])]
    pub explain: Option<String>,
    /// The Claude Code version whose rules apply, e.g. 2.1.332 (default:
    /// `latest`, the newest the contract table describes).
    #[arg(long, value_name = "V")]
    pub version: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Every hook firing the transcript of SESSION records (an id, a unique
    /// id prefix, or a path): event, tool_use_id, what it did, handler
    /// command, exit code and duration.
    #[arg(long, value_name = "SESSION", value_parser = clap::value_parser!(OsString),
          conflicts_with_all = ["match_", "lint", "settings"])]
    pub activity: Option<OsString>,
    /// The decisions `hookscope hook` logged (of the sessions whose id
    /// starts with SESSION, when given), oldest first: event, tool_use_id,
    /// verdict, the rules that matched, and whether the rule file changed
    /// since. Read from $XDG_STATE_HOME/hookscope/decisions (else
    /// ~/.local/state/hookscope/decisions).
    #[arg(long, value_name = "SESSION", num_args = 0..=1, default_missing_value = "",
          conflicts_with_all = ["match_", "lint", "settings", "activity", "explain"])]
    pub decisions: Option<String>,
    /// Install a rule set as the live hook (`hookscope hook --rules FILE`) in
    /// the --scope settings file: prints the entry, matchers derived from
    /// the rules' events and tools, and the diff; --write applies it (a
    /// backup first; a file that does not parse is refused; nothing
    /// changes when it is already installed).
    #[arg(long, requires = "rules",
          conflicts_with_all = ["match_", "lint", "settings", "activity", "explain", "decisions"])]
    pub install: bool,
    /// With --install: the rule file to run.
    #[arg(long, value_name = "FILE", requires = "install")]
    pub rules: Option<PathBuf>,
    /// With --install: which settings file (user: ~/.claude/settings.json;
    /// project: .claude/settings.json; local: .claude/settings.local.json;
    /// with --agent droid: ~/.factory/hooks.json or .factory/hooks.json;
    /// with --agent codex: <codex home>/hooks.json or .codex/hooks.json,
    /// which Codex runs once you trust it in its /hooks).
    #[arg(long, value_enum, default_value = "project", requires = "install")]
    pub scope: super::install::Scope,
    /// With --install: write the settings file (else only print).
    #[arg(long, requires = "install")]
    pub write: bool,
    /// With --install: the installed hook blocks when it cannot decide
    /// (`hook --on-error block`) instead of failing open.
    #[arg(long = "on-error-block", requires = "install")]
    pub on_error_block: bool,
    /// With --decisions: only these verdicts, comma-separated (block, warn,
    /// context, allow, rewrite, none, error).
    #[arg(
        long,
        value_name = "VERDICT,…",
        value_delimiter = ',',
        requires = "decisions"
    )]
    pub verdict: Vec<super::decisions::Verdict>,
    /// With --decisions: also list the `none` answers (no rule acted),
    /// which are left out by default.
    #[arg(long, requires = "decisions")]
    pub all: bool,
    /// With --decisions: the log folder `hook --log-dir DIR` wrote
    /// (default: $HOOKSCOPE_DECISIONS_DIR, else
    /// $XDG_STATE_HOME/hookscope/decisions).
    #[arg(long = "log-dir", value_name = "DIR", requires = "decisions")]
    pub log_dir: Option<PathBuf>,
    /// With --activity: where to look for the session (default: as for
    /// `sessions`).
    #[arg(requires = "activity")]
    pub paths: Vec<PathBuf>,
}

/// Runs the subcommand.
pub fn run(args: &HooksArgs, no_index: bool) {
    if let Some(id) = &args.explain {
        super::explain::run(id, args.json);
        return;
    }
    if args.install {
        if let Some(rules) = &args.rules {
            super::install::run(
                rules,
                &super::install::Target {
                    scope: args.scope,
                    dialect: args.agent,
                    codex_home: args.codex_home.as_deref(),
                },
                args.write,
                args.on_error_block,
            );
        }
        return;
    }
    if let Some(session) = &args.decisions {
        // `--decisions --json SESSION`: SESSION lands among the PATHs.
        let from_paths = args.paths.first().and_then(|p| p.to_str());
        let session = match (session.is_empty(), from_paths) {
            (false, _) => Some(session.as_str()),
            (true, Some(p)) if args.paths.len() == 1 => Some(p),
            _ => None,
        };
        super::decisions::run(
            session,
            &super::decisions::Shown {
                verdicts: &args.verdict,
                all: args.all,
            },
            args.json,
            args.log_dir.as_deref(),
        );
        return;
    }
    if let Some(session) = &args.activity {
        super::activity::run(session, &args.paths, args.json);
        return;
    }
    let dialect = args.agent;
    for note in other_agents_files(dialect, &args.settings) {
        errln!("{note}");
    }
    let version = match &args.version {
        Some(v) => {
            let parsed = Version::parse(v);
            if parsed.0.is_empty() {
                fail(format!("--version {v:?} is not a version (e.g. 2.1.332)"));
            }
            parsed
        }
        None => Version::latest(),
    };
    let cwd = if args.settings.is_empty() {
        args.cwd.clone().or_else(|| std::env::current_dir().ok())
    } else {
        args.cwd.clone()
    };
    let sources = Sources {
        settings: args.settings.clone(),
        cwd,
        config_dir: args.config_dir.clone(),
        factory_dir: args.config_dir.clone(),
        managed: args.managed.clone(),
        codex_home: args.codex_home.clone(),
        version: version.clone(),
    };
    dialect.check_sources(&sources).unwrap_or_else(|e| fail(e));
    if args.input.is_some() && args.match_.is_none() {
        fail("--input needs --match EVENT VALUE");
    }
    // A home given by hand that is not there is a typo, not "no hooks".
    if let Some(home) = &args.codex_home {
        match std::fs::metadata(home) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => fail(format!("--codex-home {}: not a folder", home.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                fail(format!("--codex-home {}: does not exist", home.display()))
            }
            Err(e) => fail(format!("--codex-home {}: {e}", home.display())),
        }
    }
    let tool_input = args.input.as_deref().map(|text| {
        serde_json::from_str::<Value>(text)
            .unwrap_or_else(|e| fail(format!("--input is not JSON: {e}")))
    });
    let matching = args.match_.as_ref().map(|pair| {
        let event = pair.first().cloned().unwrap_or_default();
        dialect
            .check_event(&event, &version)
            .unwrap_or_else(|e| fail(e));
        let value = match (pair.get(1), dialect.matcher_field(&event, &version)) {
            (Some(value), _) => value.clone(),
            (None, None) => String::new(),
            (None, Some(field)) => fail(format!(
                "--match {event} needs the value its matcher tests ({field}), e.g. --match {event} {}",
                match field {
                    "tool_name" => "Bash",
                    "source" => "startup",
                    _ => "VALUE",
                }
            )),
        };
        (event, value)
    });
    let hooks = dialect.load(&sources);
    let version_label = if args.version.is_some() {
        version.to_string()
    } else {
        "latest".to_string()
    };
    if let Some((event, value)) = matching {
        let payload = dialect.synthetic_payload(&event, &value, tool_input, &version);
        let report = MatchReport::new(&hooks, &event, &value, payload, &version, &version_label);
        if args.json {
            print_json(&serde_json::to_value(&report).unwrap_or_default());
        } else {
            for line in report.lines() {
                print_text(&line);
            }
        }
        return;
    }
    if args.lint {
        // The tools of your sessions, from the index if there is one (no
        // walk): `matcher-no-tool` then knows your MCP tools too.
        let options = LintOptions {
            seen_tools: hookscope_core::service::seen_tool_names(no_index),
            ..LintOptions::default()
        };
        let all = hooks.lint(&options).unwrap_or_else(|e| fail(e));
        let config = hooks.config();
        let Silenced {
            kept: lints,
            silenced,
        } = apply_allows(config, all, &args.allow);
        let format = args.format.unwrap_or(if args.json {
            LintFormat::Json
        } else {
            LintFormat::Text
        });
        if format == LintFormat::Sarif {
            print_json(
                &serde_json::to_value(hookscope_core::hooks::lint::formats::sarif(&lints))
                    .unwrap_or_default(),
            );
        } else if format == LintFormat::Github {
            for line in hookscope_core::hooks::lint::formats::github_annotations(&lints) {
                print_text(&line);
            }
        } else if format == LintFormat::Json {
            let files: Vec<FileJson> = config
                .files
                .iter()
                .map(|f| FileJson {
                    path: &f.path,
                    layer: &f.layer,
                    found: f.found,
                })
                .collect();
            print_json(
                &serde_json::to_value(LintJson {
                    agent: dialect,
                    version: &version_label,
                    files,
                    lints: &lints,
                    silenced: silenced.len(),
                })
                .unwrap_or_default(),
            );
        } else {
            print_lints(config, &lints, silenced.len());
        }
        if !lints.is_empty() {
            std::process::exit(1);
        }
        return;
    }
    if args.json {
        print_json(
            &serde_json::to_value(ConfigJson {
                agent: dialect,
                version: &version_label,
                config: hooks.config_json(),
            })
            .unwrap_or_default(),
        );
    } else {
        print_config(&hooks, &version_label);
    }
}

/// How `--lint` prints (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LintFormat {
    /// `file:line: level[id]: message` and a fix line.
    Text,
    /// One JSON object (as `--json`).
    Json,
    /// A SARIF 2.1.0 log, for code scanning.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
}

/// `hooks --json`: the configuration as the dialect read it.
#[derive(serde::Serialize)]
struct ConfigJson<'a> {
    agent: Dialect,
    version: &'a str,
    config: Value,
}

/// `hooks --lint --json`: the files read and the lints.
#[derive(serde::Serialize)]
struct LintJson<'a> {
    agent: Dialect,
    version: &'a str,
    files: Vec<FileJson<'a>>,
    lints: &'a [Lint],
    /// Lints silenced by `--allow` or `# hookscope: allow`.
    silenced: usize,
}

/// A settings file in `--lint --json`: where, which layer, whether found.
#[derive(serde::Serialize)]
struct FileJson<'a> {
    path: &'a std::path::Path,
    layer: &'a hookscope_core::hooks::settings::Layer,
    found: bool,
}

/// ` · trusted` and the like after a Codex handler's place (empty for a
/// handler without a trust record: the other dialects have none).
fn trust_text(hooks: &Hooks, i: usize) -> String {
    match hooks.trust().get(i).and_then(Option::as_ref) {
        None => String::new(),
        Some(t) => match &t.status {
            TrustStatus::Trusted => " · trusted".into(),
            TrustStatus::Untrusted => " · not trusted".into(),
            TrustStatus::Disabled => " · disabled".into(),
            TrustStatus::NotChecked { .. } => {
                " · trust not checked (recorded hash differs from hookscope's)".into()
            }
        },
    }
}

/// The file list of a hook configuration: each file looked for, whether it
/// was read and how many handlers it gave, its problems with their line
/// (and column), and for a file the agent skips why and where. `header`
/// names the list, `agent` the one that skips files ("Claude Code", "Codex").
fn print_files(config: &HookConfig, header: &str, agent: &str) {
    print_text(header);
    for f in &config.files {
        let state = if !f.found && f.problems.is_empty() {
            "not present".to_string()
        } else if let Some(why) = &f.dropped {
            format!("SKIPPED by {agent}: {why}")
        } else if !f.found || f.problems.iter().any(|p| p.id == "settings-unreadable") {
            "not read".to_string()
        } else {
            match f.handlers {
                1 => "1 handler".to_string(),
                n => format!("{n} handlers"),
            }
        };
        print_text(&format!(
            "  {:<8} {}  {state}",
            f.layer.to_string(),
            f.path.display()
        ));
        for p in &f.problems {
            if f.dropped.as_deref() == Some(p.message.as_str()) {
                continue;
            }
            let at = match (p.line, p.column) {
                (Some(l), Some(c)) => format!("line {l}, column {c}: "),
                (Some(l), None) => format!("line {l}: "),
                _ => String::new(),
            };
            print_text(&format!("      {at}{} [{}]", p.message, p.id));
        }
        if let Some(why) = &f.dropped
            && let Some(p) = f.problems.iter().find(|p| p.drops_file)
            && let Some(l) = p.line
        {
            let _ = why;
            let col = p
                .column
                .map(|c| format!(", column {c}"))
                .unwrap_or_default();
            print_text(&format!("      at line {l}{col} [{}]", p.id));
        }
    }
}

/// For a `--settings` file read as Claude Code's that is another agent's:
/// in a `.factory` or `.codex` folder, or (Factory Droid's) holding a
/// top-level `customModels` or a hook command under `/.factory/`. Says
/// which `--agent` reads it as that agent's, e.g. `hookscope:
/// ~/.factory/settings.json is in a .factory folder; read as Claude Code
/// settings (--agent droid reads it as Factory Droid's)`. Nothing for
/// another dialect. The file is read as the loader reads it (a regular
/// file of at most `SETTINGS_CAP` bytes); one that cannot be read or
/// parsed gets no hint here (the loader reports it).
fn other_agents_files(dialect: Dialect, settings: &[PathBuf]) -> Vec<String> {
    if dialect != Dialect::ClaudeCode {
        return Vec::new();
    }
    let droid = ("droid", "Factory Droid's");
    settings
        .iter()
        .filter_map(|path| {
            let in_folder = path
                .components()
                .find_map(|c| match c.as_os_str().to_str()? {
                    ".factory" => Some((".factory", droid)),
                    ".codex" => Some((".codex", ("codex", "Codex's"))),
                    _ => None,
                })
                .map(|(folder, agent)| (format!("is in a {folder} folder"), agent));
            let (why, (agent, name)) = in_folder.or_else(|| {
                droid_shaped(path).map(|why| (format!("looks like Factory Droid's ({why})"), droid))
            })?;
            Some(format!(
                "hookscope: {} {why}; read as Claude Code settings (--agent {agent} reads it as {name})",
                path.display()
            ))
        })
        .collect()
}

/// What in the settings file at `path` is Factory Droid's: a top-level
/// `customModels`, or a hook command that names a `/.factory/` path.
fn droid_shaped(path: &std::path::Path) -> Option<&'static str> {
    let bytes = hookscope_core::transcript::fsread::read_capped(
        path,
        hookscope_core::hooks::settings::SETTINGS_CAP,
    )
    .ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    if v.get("customModels").is_some() {
        return Some("a customModels key");
    }
    hookscope_core::hooks::install::handler_objects(&v)
        .filter_map(|h| h.get("command")?.as_str())
        .any(|c| c.contains("/.factory/"))
        .then_some("hook commands under /.factory/")
}

fn print_config(hooks: &Hooks, version_label: &str) {
    let config = hooks.config();
    let dialect = hooks.dialect;
    print_text(&dialect.config_heading(version_label));
    print_files(config, "Settings files:", dialect.skipper());
    if let Some(off) = hooks.hooks_off() {
        print_text(off);
    }
    match hooks.codex().and_then(|c| c.project_trusted) {
        Some(false) => print_text("project: not trusted (project .codex/ hooks do not load)"),
        Some(true) => print_text("project: trusted"),
        None => {}
    }
    if let Some(d) = &config.disable_all_hooks {
        print_text(&format!(
            "disableAllHooks: {} (from {}{})",
            d.value,
            d.file.display(),
            if d.managed { ", managed" } else { "" }
        ));
    }
    if let Some(file) = &config.managed_only {
        print_text(&format!(
            "allowManagedHooksOnly: true (from {}): only managed hooks run",
            file.display()
        ));
    }
    if config.handlers.is_empty() {
        print_text("No handlers.");
        return;
    }
    print_text("Handlers:");
    for (i, h) in config.handlers.iter().enumerate() {
        let matcher = match &h.matcher {
            Some(m) => format!("matcher {m:?}"),
            None => "no matcher".to_string(),
        };
        let event = if h.event != h.event_as_written {
            format!("{} (written {})", h.event, h.event_as_written)
        } else {
            h.event.to_string()
        };
        print_text(&format!(
            "  #{} {event}  {matcher}{}  {}  {}",
            i + 1,
            if_part(h),
            h.kind.as_str(),
            h.summary()
        ));
        let timeout = format!("{} s ({})", h.effective_timeout, h.timeout_source);
        print_text(&format!(
            "     {} · timeout {timeout}{}",
            h.location(),
            trust_text(hooks, i)
        ));
        if let Some(why) = &h.inactive {
            print_text(&format!("     ✗ never runs: {why}"));
        } else if let Some(first) = h.duplicate_of {
            print_text(&format!(
                "     = identical to #{}: runs once when both are reached",
                first + 1
            ));
        }
    }
}

/// `  if "Bash(rm *)"` when the handler has an `if` rule.
fn if_part(h: &hookscope_core::hooks::settings::Handler) -> String {
    h.if_rule
        .as_ref()
        .map(|r| format!("  if {r:?}"))
        .unwrap_or_default()
}

fn print_lints(config: &HookConfig, lints: &[Lint], silenced: usize) {
    let quiet = match silenced {
        0 => String::new(),
        1 => " 1 lint silenced (--allow, # hookscope: allow).".to_string(),
        n => format!(" {n} lints silenced (--allow, # hookscope: allow)."),
    };
    if lints.is_empty() {
        let read = config.files.iter().filter(|f| f.found).count();
        print_text(&format!(
            "No lints ({} handler{} in {read} file{}).{quiet}",
            config.handlers.len(),
            if config.handlers.len() == 1 { "" } else { "s" },
            if read == 1 { "" } else { "s" }
        ));
        return;
    }
    for l in lints {
        let at = match (&l.path, l.line) {
            (Some(p), Some(line)) => format!("{}:{line}: ", p.display()),
            (Some(p), None) => format!("{}: ", p.display()),
            _ => String::new(),
        };
        let level = match l.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        print_text(&format!("{at}{level}[{}]: {}", l.id, l.message));
        print_text(&format!("    fix: {}", l.fix));
    }
    let errors = lints
        .iter()
        .filter(|l| l.severity == Severity::Error)
        .count();
    print_text(&format!(
        "{} lint{} ({errors} error{}).{quiet}",
        lints.len(),
        if lints.len() == 1 { "" } else { "s" },
        if errors == 1 { "" } else { "s" }
    ));
}
