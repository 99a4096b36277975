//! `hookscope hooks --explain [ID] [--json]`: what a lint means, an
//! example where it fires, the same fixed, and how to silence it
//! (docs/your-hooks.md#lints). Without an ID, every lint id with its line.
//! An unknown id exits 2 with the closest id.

use hookscope_core::hooks::lint::LINTS;
use hookscope_core::hooks::lint::explain::{Example, closest_id, describe, explain};

use super::{fail, print_json, print_text};

/// Runs `--explain` for `id` (empty: list every lint).
pub fn run(id: &str, json: bool) {
    if id.is_empty() {
        if json {
            let all: Vec<serde_json::Value> = LINTS
                .iter()
                .map(|(id, what)| serde_json::json!({"id": id, "what": what}))
                .collect();
            print_json(&serde_json::Value::Array(all));
        } else {
            for (id, what) in LINTS {
                print_text(&format!("{id:<32} {what}"));
            }
            print_text("");
            print_text("hookscope hooks --explain ID: what it means, an example and the fix.");
        }
        return;
    }
    let (Some(e), Some(what)) = (explain(id), describe(id)) else {
        fail(match closest_id(id) {
            Some(c) => format!("no lint is called {id:?}; did you mean {c}?"),
            None => format!("no lint is called {id:?}; `hookscope hooks --explain` lists them"),
        });
    };
    if json {
        let mut v = serde_json::to_value(e).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert("what".into(), what.into());
        }
        print_json(&v);
        return;
    }
    print_text(&format!("{id}: {what}"));
    print_text("");
    print_text(e.why);
    print_text("");
    print_example("Fires on", &e.example);
    print_text("");
    print_example("Fixed", &e.fixed);
    print_text("");
    if matches!(e.example, Example::Output { .. }) {
        print_text(
            "This lint reads a hook's answer: it is reported by replays and runs, not by --lint.",
        );
    } else {
        print_text(&format!(
            "Silence it for one command handler by ending its command with `# hookscope: allow {id}`, or for a whole run with `hooks --lint --allow {id}`."
        ));
    }
}

fn print_example(title: &str, example: &Example) {
    match *example {
        Example::Settings { version, json } => {
            print_text(&format!(
                "{title} (a settings file, Claude Code {version}):"
            ));
            let pretty = serde_json::from_str::<serde_json::Value>(json)
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                // Not JSON on purpose (settings-invalid-json): as written.
                .unwrap_or_else(|| json.to_string());
            for line in pretty.lines() {
                print_text(&format!("  {line}"));
            }
        }
        Example::Output {
            event,
            exit_code,
            stdout,
            ..
        } => {
            print_text(&format!("{title} (a {event} hook's answer):"));
            print_text(&format!("  exit {exit_code}"));
            if stdout.is_empty() {
                print_text("  stdout: (empty)");
            } else {
                for line in stdout.lines() {
                    print_text(&format!("  stdout: {line}"));
                }
            }
        }
        Example::Described(text) => print_text(&format!("{title}: {text}")),
    }
}
