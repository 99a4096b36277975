//! `hookscope replay SESSION --event EVENT [--at ID] [--exec]` on a Codex
//! session: the payload Codex would hand its hooks
//! (`hooks::codex::payload`), the Codex hooks of `$CODEX_HOME` and the
//! session's project (`hooks::settings::codex`) judged by Codex's matcher,
//! and with `--exec` each handler run and read with Codex's reducer
//! (`hooks::codex::reduce`). Claude Code's matcher, reducer and rule sets
//! are never applied here.

use hookscope::hooks::codex;
use hookscope::hooks::events::{At, EventName};
use hookscope::hooks::exec::ProcessRunner;
use hookscope::hooks::settings::codex::{CodexLoadOptions, load};
use hookscope::redact::{Redactions, redactor};
use hookscope::transcript::Session;
use serde_json::{Value, json};

use super::replay::{ReplayArgs, exec_text};
use super::{fail, print_json};

/// Runs the Codex replay (module docs).
pub fn run(
    session: &Session,
    event: EventName,
    at: &At,
    args: &ReplayArgs,
    map: &hookscope::hooks::cwd_map::CwdMap,
) {
    if !args.settings.is_empty() {
        fail(
            "--settings files are Claude Code's; a Codex session uses $CODEX_HOME and the project's .codex/",
        );
    }
    let mut p = codex::payload::payload(session, event, at).unwrap_or_else(|e| fail(e));
    map.map_value(&mut p.json);
    let mut counts = Redactions::new();
    let shown = redactor().redact_value(&p.json, &mut counts);
    let cwd = session
        .cwd
        .as_deref()
        .map(|d| map.map_path(std::path::Path::new(d)))
        .filter(|d| d.is_dir());
    let hooks = load(&CodexLoadOptions {
        codex_home: None,
        cwd,
    });
    let verdicts = codex::explain(&hooks.config, &hooks.trust, event.as_str(), &p.json);
    let label = |i: usize| format!("#{} {}", i + 1, hooks.config.handlers[i].location());
    let files: Vec<String> = hooks
        .config
        .files
        .iter()
        .filter(|f| f.found)
        .map(|f| f.path.display().to_string())
        .collect();
    let mut notes: Vec<String> = Vec::new();
    for f in hooks.config.files.iter().filter(|f| f.found) {
        for pr in &f.problems {
            let at = pr.line.map_or(String::new(), |l| format!(":{l}"));
            notes.push(format!("{}{at}: {}", f.path.display(), pr.message));
        }
    }
    if let Some(off) = &hooks.hooks_off {
        notes.push(off.clone());
    }
    for n in &notes {
        errln!("hookscope: {n}");
    }
    let verdict_json: Vec<Value> = verdicts
        .iter()
        .map(|v| {
            json!({"label": label(v.index), "command": hooks.config.handlers[v.index].summary(),
                   "fires": v.fires, "reason": v.reason})
        })
        .collect();
    let mut text = vec![
        format!(
            "{} at {}:{} (Codex session)",
            p.event,
            p.source_path.display(),
            p.source_line
        ),
        "payload:".into(),
        format!(
            "  {}",
            serde_json::to_string(&shown).unwrap_or_else(|_| "{}".into())
        ),
    ];
    for left in &p.left_out {
        text.push(format!("  left out {}: {}", left.field, left.reason));
    }
    if args.rules.is_some() {
        text.push("rules: not evaluated (rule sets follow Claude Code's hook contract; this is a Codex session)".into());
    }
    let shown_files = if files.is_empty() {
        "no Codex hook file found".to_string()
    } else {
        files.join(", ")
    };
    let mut out = json!({
        "agent": "codex",
        "payload": shown,
        "left_out": p.left_out,
        "source": {"path": p.source_path, "line": p.source_line},
        "settings_files": files,
        "notes": notes,
        "verdicts": verdict_json,
    });
    if !args.exec {
        let nothing =
            "nothing ran (--exec runs the command handlers of your Codex hooks on this payload)";
        text.push(format!("hooks ({shown_files}; Codex dialect): {nothing}"));
        for v in &verdicts {
            let h = &hooks.config.handlers[v.index];
            let what = if v.fires { "would run" } else { "not reached" };
            text.push(format!("  {what}: {}: {}", label(v.index), h.summary()));
            text.push(format!("    {}", v.reason));
        }
        if let Some(o) = out.as_object_mut() {
            o.insert("exec".into(), json!({"ran": false, "message": nothing}));
        }
    } else {
        let plan = codex::plan(
            &hooks.config,
            &verdicts,
            event.as_str(),
            &p.json,
            &args.env,
            &|n| std::env::var_os(n),
        )
        .unwrap_or_else(|e| {
            fail(format!(
                "cannot create a temporary folder for the hooks: {e}"
            ))
        });
        for w in &plan.env_warnings {
            errln!("hookscope: {w}");
        }
        crate::cli::interrupt::end_runs_on_signal();
        crate::cli::interrupt::say_running(plan.specs.len());
        let report = codex::run_plan(&plan, &ProcessRunner);
        let mut j = report.to_json(false, &mut counts);
        let not_reached: Vec<Value> = verdicts
            .iter()
            .filter(|v| !v.fires)
            .map(|v| json!({"label": label(v.index), "reason": v.reason}))
            .collect();
        if let Some(o) = j.as_object_mut() {
            o.insert("not_reached".into(), json!(not_reached));
            o.insert("dialect".into(), json!("codex"));
        }
        text.push(format!("hooks run (--exec; {shown_files}; Codex dialect):"));
        for n in &notes {
            text.push(format!("  settings: {n}"));
        }
        exec_text(&j, &mut text);
        if let Some(o) = out.as_object_mut() {
            o.insert("exec".into(), j);
        }
    }
    if !counts.is_empty() {
        let list: Vec<String> = counts.iter().map(|(t, n)| format!("{t} {n}")).collect();
        errln!(
            "hookscope: masked secrets as [REDACTED_<TYPE>] ({})",
            list.join(", ")
        );
    }
    if args.json {
        print_json(&out);
    } else {
        for line in &text {
            outln!("{line}");
        }
    }
}
