//! Each lint of tests/fixtures/lints/ has a minimal settings file where it
//! fires (`<id>.json`) and its fixed twin where it is silent
//! (`<id>_fixed.json`); the twin raises no lint at all
//! (docs/your-hooks.md#lints).

use std::path::{Path, PathBuf};

use hookscope_core::hooks::contract::Version;
use hookscope_core::hooks::lint::{LINTS, Lint, LintOptions, lint_config};
use hookscope_core::hooks::settings::{LoadOptions, load};

use crate::support::package_path;

fn lints_of(path: &Path) -> Vec<Lint> {
    let config = load(&LoadOptions {
        settings: vec![path.to_path_buf()],
        cwd: None,
        config_dir: None,
        managed: None,
        version: Version::parse("2.1.332"),
    });
    lint_config(
        &config,
        &LintOptions {
            path: Some("/usr/bin:/bin".into()),
            ..LintOptions::default()
        },
    )
}

fn pairs() -> Vec<(String, PathBuf, PathBuf)> {
    let dir = package_path("tests/fixtures/lints");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        if let Some(id) = name.strip_suffix("_fixed.json") {
            out.push((id.to_string(), dir.join(format!("{id}.json")), path.clone()));
        }
    }
    out.sort();
    out
}

#[test]
fn each_lint_fires_on_its_file_and_not_on_the_fixed_twin() {
    let pairs = pairs();
    assert_eq!(pairs.len(), 10);
    for (id, bad, fixed) in &pairs {
        assert!(LINTS.iter().any(|(l, _)| l == id), "{id} is not in LINTS");
        let found = lints_of(bad);
        assert!(
            found.iter().any(|l| l.id == id),
            "{id} does not fire on {}: {found:?}",
            bad.display()
        );
        let after = lints_of(fixed);
        assert!(
            after.is_empty(),
            "{} is not clean: {after:?}",
            fixed.display()
        );
    }
}

#[test]
fn relative_paths_name_the_program_the_script_and_a_missing_script() {
    let bad = package_path("tests/fixtures/lints/command-relative-path.json");
    let found: Vec<Lint> = lints_of(&bad)
        .into_iter()
        .filter(|l| l.id == "command-relative-path")
        .collect();
    let lines: Vec<Option<usize>> = found.iter().map(|l| l.line).collect();
    assert_eq!(lines, [Some(7), Some(11), Some(15)]);
    assert!(
        found[0]
            .message
            .starts_with("\"./hooks/check.sh\" is relative")
    );
    assert!(
        found[1]
            .message
            .starts_with("python3's script \"hooks/check.py\"")
    );
    assert!(found[2].message.contains("reads its program from stdin"));
}

#[test]
fn an_env_var_sent_empty_is_named_with_the_fix() {
    let bad = package_path("tests/fixtures/lints/http-env-not-allowed.json");
    let l = lints_of(&bad)
        .into_iter()
        .find(|l| l.id == "http-env-not-allowed")
        .expect("lint");
    assert!(
        l.message
            .starts_with("$TOKEN in the http handler's headers"),
        "{}",
        l.message
    );
    assert_eq!(l.fix, "add it: \"allowedEnvVars\": [\"TOKEN\"]");
}

#[test]
fn a_missing_command_with_on_failure_block_blocks_every_action() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = crate::support::bash_hooks_settings(
        dir.path().join("s.json"),
        serde_json::json!([{"type": "command", "command": "/nonexistent/guard.sh", "onFailure": "block"}]),
    );
    let l = lints_of(&file)
        .into_iter()
        .find(|l| l.id == "command-not-found")
        .expect("lint");
    assert!(
        l.message
            .ends_with("with `onFailure: \"block\"` that blocks every action it is reached on"),
        "{}",
        l.message
    );
}

/// `hooks --explain`'s examples (docs/your-hooks.md#lints): each settings
/// example raises its lint and its fixed twin raises none at all; each
/// output example goes through `lint_output` the same way; every lint is
/// explained.
#[test]
fn every_explained_example_fires_and_its_fix_is_clean() {
    use hookscope_core::hooks::lint::explain::{EXPLANATIONS, Example};
    use hookscope_core::hooks::lint::lint_output;
    use hookscope_core::hooks::lint::silence::apply_allows;
    let dir = tempfile::tempdir().expect("tempdir");
    let ids = |example: &Example, name: &str| -> Option<Vec<&'static str>> {
        match *example {
            Example::Settings { version, json } => {
                let path = dir.path().join(name);
                std::fs::write(&path, json).expect("write");
                let config = load(&LoadOptions {
                    settings: vec![path],
                    cwd: None,
                    config_dir: None,
                    managed: None,
                    version: Version::parse(version),
                });
                let lints = lint_config(
                    &config,
                    &LintOptions {
                        path: Some("/usr/bin:/bin".into()),
                        ..LintOptions::default()
                    },
                );
                Some(
                    apply_allows(&config, lints, &[])
                        .kept
                        .iter()
                        .map(|l| l.id)
                        .collect(),
                )
            }
            Example::Output {
                event,
                exit_code,
                stdout,
                payload,
            } => {
                let payload: serde_json::Value = serde_json::from_str(payload).expect("payload");
                Some(
                    lint_output(
                        event,
                        Some(exit_code),
                        stdout,
                        "",
                        &payload,
                        &Version::parse("2.1.332"),
                    )
                    .iter()
                    .map(|l| l.id)
                    .collect(),
                )
            }
            Example::Described(text) => {
                assert!(!text.is_empty());
                None
            }
        }
    };
    let mut shown = 0;
    for e in EXPLANATIONS {
        assert!(LINTS.iter().any(|(l, _)| *l == e.id), "{}", e.id);
        if let Some(found) = ids(&e.example, &format!("{}.json", e.id)) {
            assert!(
                found.contains(&e.id),
                "{} does not fire on its example: {found:?}",
                e.id
            );
            shown += 1;
        }
        if let Some(found) = ids(&e.fixed, &format!("{}_fixed.json", e.id)) {
            assert!(
                found.is_empty(),
                "{}'s fixed example is not clean: {found:?}",
                e.id
            );
        }
    }
    assert_eq!(EXPLANATIONS.len(), LINTS.len());
    // Described in words: settings-unreadable, managed-only-ignored,
    // frontmatter-invalid, matcher-plugin-server, matcher-budget,
    // not-executable.
    assert_eq!(
        shown,
        LINTS.len() - 6,
        "lints with a file or an output shown"
    );
}

/// `duplicate-handler` only where Claude Code's dedup applies: the two
/// identical handlers can be reached by one event. The same command under
/// `Bash` and `mcp__github__.*` (block-no-verify's documented setup) never
/// fires twice on one call; under `Bash` and `Bash|Edit` it does.
#[test]
fn duplicates_are_said_only_when_their_matchers_overlap() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ids = |second: &str| -> Vec<&'static str> {
        let path = dir.path().join("s.json");
        let group = |m: &str| serde_json::json!({"matcher": m, "hooks": [{"type": "command", "command": "true"}]});
        std::fs::write(
            &path,
            serde_json::json!({"hooks": {"PreToolUse": [group("Bash"), group(second)]}})
                .to_string(),
        )
        .expect("write");
        lints_of(&path).iter().map(|l| l.id).collect()
    };
    assert_eq!(ids("mcp__github__.*"), Vec::<&str>::new());
    assert_eq!(ids("Bash|Edit"), ["duplicate-handler"]);
    assert_eq!(ids("*"), ["duplicate-handler"]);
    assert_eq!(ids("^(Bash|Edit)$"), ["duplicate-handler"]);
}
