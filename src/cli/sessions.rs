//! `hookscope sessions [PATH...] [--json]`: every session with its counts.

use std::path::PathBuf;

use hookscope_core::transcript::Diagnostic;

use super::print_json;

/// Runs the subcommand. With `json`, prints an array of session objects
/// (`id, agent, path, cwd, title, first_prompt, started, ended, version,
/// turns, tool_calls, errors, subagents, diagnostics`; `agent` is
/// `"claude-code"`, `"codex"`, `"opencode"` or `"droid"`), newest first; else a table with an AGENT
/// column.
///
/// `agent` keeps only that agent's sessions (`--agent`).
///
/// With `diagnostics`, lists the diagnostics instead of the sessions:
/// discovery's (orphaned subagent files, unreadable folders or files,
/// FIFOs, too-deep folders, symlink loops) first, then each session's in
/// session order, then sessions that could not be loaded; as text one
/// `path:line: message` (or `path: message`) per line, with `json` an array
/// of `{path, line, message}` objects (`line` null for a whole file; paths
/// lossy; a diagnostic about a record adds `record`, see
/// [`Diagnostic`]'s serde shape).
///
/// Summaries come from the index ([`super::index`]) unless `no_index`;
/// the output is the same either way.
pub fn run(
    paths: &[PathBuf],
    json: bool,
    diagnostics: bool,
    agent: Option<hookscope_core::transcript::Agent>,
    no_index: bool,
) {
    let library = super::index::library(paths, no_index);
    let keep = |s: &hookscope_core::transcript::SessionRef| agent.is_none_or(|a| s.agent == a);
    let (found, results, stats) = super::index::with_progress(&library, |progress| {
        library.discover_summaries(&keep, progress)
    })
    .unwrap_or_else(|e| super::fail(e));
    super::index::report(&library, stats.as_ref());
    let mut summaries = Vec::new();
    let mut all: Vec<Diagnostic> = found.diagnostics.clone();
    let mut unreadable = Vec::new();
    for result in results {
        match result {
            Ok((s, mut d)) => {
                summaries.push(s);
                all.append(&mut d);
            }
            Err(e) => {
                if !diagnostics {
                    errln!("hookscope: {e}");
                }
                unreadable.push(Diagnostic {
                    message: e.source.to_string(),
                    path: e.path,
                    locus: None,
                });
            }
        }
    }
    all.append(&mut unreadable);
    if diagnostics {
        if json {
            print_json(&serde_json::to_value(&all).unwrap_or_else(|_| serde_json::json!([])));
        } else {
            for d in &all {
                outln!("{d}");
            }
        }
        return;
    }
    summaries.sort_by(|a, b| b.started.cmp(&a.started).then_with(|| a.path.cmp(&b.path)));
    if json {
        print_json(&serde_json::to_value(&summaries).unwrap_or_else(|_| serde_json::json!([])));
        return;
    }
    outln!(
        "{:<36}  {:<11}  {:<16}  {:>5} {:>6} {:>4} {:>4}  TITLE",
        "ID",
        "AGENT",
        "STARTED",
        "TURNS",
        "CALLS",
        "ERR",
        "SUB"
    );
    for s in &summaries {
        let started = s
            .started
            .map(|t| {
                t.with_timezone(&chrono::Local)
                    .format("%Y-%m-%d %H:%M")
                    .to_string()
            })
            .unwrap_or_else(|| "-".to_string());
        let title = s.title.as_deref().unwrap_or("(untitled)");
        let title: String = title.chars().take(60).collect();
        outln!(
            "{:<36}  {:<11}  {:<16}  {:>5} {:>6} {:>4} {:>4}  {}",
            s.id,
            s.agent.as_str(),
            started,
            s.turns,
            s.tool_calls,
            s.errors,
            s.subagents,
            title
        );
    }
    let diags = found.diagnostics.len() + summaries.iter().map(|s| s.diagnostics).sum::<usize>();
    if summaries.is_empty() && diags == 0 {
        let under = where_looked(paths);
        match agent {
            Some(agent) => errln!("0 {} sessions found under {under}", agent.as_str()),
            None => errln!("0 sessions found under {under}"),
        }
        say_misnamed_storage(paths);
    } else if diags > 0 {
        errln!(
            "{}, {} (see `hookscope sessions --diagnostics`)",
            crate::words::plural(summaries.len(), "session"),
            crate::words::plural(diags, "diagnostic")
        );
    }
}

/// For a command that found no session: a line per PATH laid out as
/// OpenCode's older JSON storage under another folder name
/// ([`hookscope_core::transcript::opencode_json::misnamed_storage`]),
/// saying where it is read.
pub fn say_misnamed_storage(paths: &[PathBuf]) {
    for p in paths {
        if hookscope_core::transcript::opencode_json::misnamed_storage(p) {
            errln!(
                "hookscope: {} holds session/, message/ and part/ as OpenCode's older JSON storage does; hookscope reads that layout in a folder named `storage` (as OpenCode keeps it): link or copy it under that name",
                hookscope_core::printable::printable(&p.display().to_string())
            );
        }
    }
}

/// Where a command over `paths` looked, for the line that says it found
/// no session there: `the given paths`, or without a PATH
/// [`default_locations`].
pub fn where_looked(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        default_locations()
    } else {
        "the given paths".to_string()
    }
}

/// `the default locations (/home/me/.claude/projects, …; see `hookscope
/// sessions --help`)`: every place a command without a PATH looks
/// ([`hookscope_core::transcript::discover::default_root_candidates`]).
pub fn default_locations() -> String {
    let places: Vec<String> = hookscope_core::transcript::discover::default_root_candidates()
        .iter()
        .map(|p| hookscope_core::printable::printable(&p.to_string_lossy()).into_owned())
        .collect();
    format!(
        "the default locations ({}; see `hookscope sessions --help`)",
        places.join(", ")
    )
}
