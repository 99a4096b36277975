//! `hookscope hooks --agent codex [--codex-home DIR] [--cwd DIR] [--match
//! EVENT VALUE [--input JSON]] [--json]`: Codex CLI's hook configuration
//! (`hooks::settings::codex`), judged with Codex's own matcher
//! (`hooks::codex::explain`): files, handlers with `file:line`, layer,
//! timeout and trust; with `--match` each handler of the event with ✓/✗ and
//! the reason. Nothing is run.

use hookscope::hooks::codex;
use hookscope::hooks::settings::HandlerVerdict;
use hookscope::hooks::settings::codex::{CodexHooks, CodexLoadOptions, EVENTS, TrustStatus, load};
use serde_json::{Map, Value, json};

use super::hooks::HooksArgs;
use super::{fail, print_json, print_text};

/// Loads the Codex configuration for `codex_home` and `cwd` (the defaults:
/// `$CODEX_HOME` / `~/.codex`, and the current folder).
pub fn load_for(args: &HooksArgs) -> CodexHooks {
    load(&CodexLoadOptions {
        codex_home: args.codex_home.clone(),
        cwd: args.cwd.clone().or_else(|| std::env::current_dir().ok()),
    })
}

/// Runs `hookscope hooks --agent codex`.
pub fn run(args: &HooksArgs) {
    if !args.settings.is_empty() || args.config_dir.is_some() || args.managed.is_some() {
        fail(
            "--settings, --config-dir and --managed are Claude Code's; for Codex use --codex-home and --cwd",
        );
    }
    if args.lint {
        fail(
            "--lint checks Claude Code settings; `hooks --agent codex` lists each file's problems",
        );
    }
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
    let hooks = load_for(args);
    if let Some(pair) = &args.match_ {
        let event = pair.first().cloned().unwrap_or_default();
        let value = pair.get(1).cloned().unwrap_or_default();
        if !EVENTS.contains(&event.as_str()) {
            fail(format!(
                "unknown Codex event {event:?}; events: {}",
                EVENTS.join(", ")
            ));
        }
        let mut payload = Map::new();
        payload.insert("hook_event_name".into(), json!(event));
        if let Some(field) = codex::matcher::matcher_field(&event) {
            payload.insert(field.into(), json!(value));
        }
        if let Some(text) = &args.input {
            let v: Value = serde_json::from_str(text)
                .unwrap_or_else(|e| fail(format!("--input is not JSON: {e}")));
            payload.insert("tool_input".into(), v);
        }
        let payload = Value::Object(payload);
        let verdicts = codex::explain(&hooks.config, &hooks.trust, &event, &payload);
        if args.json {
            print_json(&json!({
                "agent": "codex",
                "event": event,
                "value": value,
                "payload": payload,
                "files": hooks.config.files,
                "hooks_off": hooks.hooks_off,
                "verdicts": verdicts.iter().map(|v| verdict_json(&hooks, v)).collect::<Vec<_>>(),
            }));
        } else {
            print_match(&hooks, &event, &value, &verdicts);
        }
        return;
    }
    if args.json {
        print_json(&json!({"agent": "codex", "config": hooks}));
    } else {
        print_config(&hooks);
    }
}

fn verdict_json(hooks: &CodexHooks, v: &HandlerVerdict) -> Value {
    let h = &hooks.config.handlers[v.index];
    json!({
        "handler": v.index + 1,
        "fires": v.fires,
        "reason": v.reason,
        "hint": v.hint,
        "location": {"path": h.origin.path, "line": h.origin.line, "layer": h.origin.layer},
        "matcher": h.matcher,
        "type": h.kind,
        "summary": h.summary(),
        "effective_timeout": h.effective_timeout,
        "trust": hooks.trust.get(v.index),
    })
}

fn trust_text(hooks: &CodexHooks, i: usize) -> String {
    match hooks.trust.get(i).and_then(Option::as_ref) {
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

fn print_config(hooks: &CodexHooks) {
    print_text("Hook configuration (Codex CLI rules)");
    super::hooks::print_files(&hooks.config, "Files:", "Codex");
    if let Some(off) = &hooks.hooks_off {
        print_text(off);
    }
    match hooks.project_trusted {
        Some(false) => print_text("project: not trusted (project .codex/ hooks do not load)"),
        Some(true) => print_text("project: trusted"),
        None => {}
    }
    if hooks.config.handlers.is_empty() {
        print_text("No handlers.");
        return;
    }
    print_text("Handlers:");
    for (i, h) in hooks.config.handlers.iter().enumerate() {
        let matcher = match &h.matcher {
            Some(m) => format!("matcher {m:?}"),
            None => "no matcher".to_string(),
        };
        print_text(&format!(
            "  #{} {}  {matcher}  {}  {}",
            i + 1,
            h.event,
            h.kind.as_str(),
            h.summary()
        ));
        print_text(&format!(
            "     {} · timeout {} s ({}){}",
            h.location(),
            h.effective_timeout,
            h.timeout_source,
            trust_text(hooks, i)
        ));
        if let Some(why) = &h.inactive {
            print_text(&format!("     ✗ never runs: {why}"));
        }
    }
}

fn print_match(hooks: &CodexHooks, event: &str, value: &str, verdicts: &[HandlerVerdict]) {
    let what = match codex::matcher::matcher_field(event) {
        Some(f) => format!("{event} with {f} = {value:?}"),
        None => format!("{event} (Codex ignores matchers here: every handler of it is reached)"),
    };
    print_text(&format!("{what} (Codex CLI rules):"));
    super::hooks::print_verdicts(&hooks.config, event, verdicts, "Codex");
}
