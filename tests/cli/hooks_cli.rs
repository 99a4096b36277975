//! `hookscope hooks`: the listing, `--match EVENT VALUE`, `--lint` (exit 1
//! when a lint fires, 0 when none, 2 on bad arguments), `--json`. Every
//! root is given (tempdirs or fixtures): the real home and /etc are never
//! read.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::support::hookscope;

const BARE: &str = "tests/fixtures/settings/bare_mcp_matcher.json";
const FIXED: &str = "tests/fixtures/settings/bare_mcp_matcher_fixed.json";
const C2: &str = "assets/examples/hooks_c2_exit2/.claude/settings.json";

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = hookscope().args(args).output().expect("runs");
    (
        out.status.code(),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

#[test]
fn lists_a_given_file_with_line_layer_and_timeout() {
    let (code, out, _) = run(&["hooks", "--settings", C2]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains(&format!("  given    {C2}  1 handler\n")),
        "{out}"
    );
    assert!(
        out.contains("  #1 PreToolUse  matcher \"Bash\"  command  \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block_rm_rf.sh\n"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "     {C2}:7 (given) · timeout 600 s (default since 2.1.3)\n"
        )),
        "{out}"
    );
}

#[test]
fn version_changes_the_default_timeout() {
    let (code, out, _) = run(&["hooks", "--settings", C2, "--version", "2.1.2"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("timeout 60 s (default before 2.1.3)"), "{out}");
}

#[test]
fn match_explains_the_bare_mcp_matcher() {
    let (code, out, _) = run(&[
        "hooks",
        "--settings",
        BARE,
        "--match",
        "PreToolUse",
        "mcp__memory__create",
    ]);
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with(
            "PreToolUse with tool_name = \"mcp__memory__create\" (Claude Code latest rules):\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(&format!("  ✗ #1 {BARE}:7 (given)  matcher \"mcp__memory\"")),
        "{out}"
    );
    assert!(out.contains("did you mean \"mcp__memory__.*\"?"), "{out}");
    assert!(out.ends_with("0 of 1 handler would run.\n"), "{out}");

    let (_, out, _) = run(&[
        "hooks",
        "--settings",
        FIXED,
        "--match",
        "PreToolUse",
        "mcp__memory__create",
    ]);
    assert!(out.contains("  ✓ #1 "), "{out}");
    assert!(out.ends_with("1 of 1 handler would run.\n"), "{out}");
}

#[test]
fn match_on_the_c2_example_with_if_input() {
    let (code, out, _) = run(&[
        "hooks",
        "--settings",
        C2,
        "--match",
        "PreToolUse",
        "Bash",
        "--input",
        r#"{"command": "rm -rf build/"}"#,
    ]);
    assert_eq!(code, Some(0));
    assert!(out.contains("  ✓ #1 "), "{out}");
    let (_, out, _) = run(&["hooks", "--settings", C2, "--match", "PreToolUse", "Read"]);
    assert!(out.contains("  ✗ #1 "), "{out}");
}

#[test]
fn match_json() {
    let (code, out, _) = run(&[
        "hooks",
        "--settings",
        BARE,
        "--match",
        "PreToolUse",
        "mcp__memory__create",
        "--json",
    ]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["event"], "PreToolUse");
    assert_eq!(v["payload"]["tool_name"], "mcp__memory__create");
    assert_eq!(v["verdicts"][0]["fires"], false);
    assert_eq!(v["verdicts"][0]["location"]["line"], 7);
    assert_eq!(
        v["verdicts"][0]["hint"],
        "did you mean \"mcp__memory__.*\"?"
    );
}

#[test]
fn lint_exit_codes() {
    let (code, out, _) = run(&["hooks", "--settings", BARE, "--lint"]);
    assert_eq!(code, Some(1));
    assert!(
        out.starts_with(&format!(
            "{BARE}:5: error[matcher-dead-exact]: matcher \"mcp__memory\""
        )),
        "{out}"
    );
    assert!(
        out.contains("    fix: did you mean \"mcp__memory__.*\"?\n"),
        "{out}"
    );
    assert!(out.ends_with("1 lint (1 error).\n"), "{out}");

    let (code, out, _) = run(&["hooks", "--settings", FIXED, "--lint"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out, "No lints (1 handler in 1 file).\n");

    let (code, out, _) = run(&["hooks", "--settings", BARE, "--lint", "--json"]);
    assert_eq!(code, Some(1));
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["lints"][0]["id"], "matcher-dead-exact");
    assert_eq!(v["lints"][0]["line"], 5);
}

#[test]
fn bad_arguments_exit_2() {
    let (code, _, err) = run(&[
        "hooks",
        "--settings",
        BARE,
        "--match",
        "PreToolUsed",
        "Bash",
    ]);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with("hookscope: unknown event \"PreToolUsed\" (did you mean PreToolUse?)"),
        "{err}"
    );
    let (code, _, err) = run(&["hooks", "--settings", BARE, "--input", "{}"]);
    assert_eq!(code, Some(2));
    assert_eq!(err, "hookscope: --input needs --match EVENT VALUE\n");
    let (code, _, err) = run(&["hooks", "--settings", BARE, "--version", "newest"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("is not a version"), "{err}");
    // `latest` is the default spelled out (it is how `--json` prints it).
    let latest = run(&["hooks", "--settings", BARE, "--version", "latest", "--json"]);
    assert_eq!(latest.0, Some(0), "{}", latest.2);
    assert_eq!(latest, run(&["hooks", "--settings", BARE, "--json"]));
    let (code, _, err) = run(&[
        "hooks",
        "--settings",
        BARE,
        "--match",
        "Stop",
        "x",
        "--input",
        "{not json",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("hookscope: --input is not JSON"), "{err}");
    // A tool event needs the tool name (Stop takes no matcher: no value).
    let (code, _, _) = run(&["hooks", "--settings", BARE, "--match", "PreToolUse"]);
    assert_eq!(code, Some(2));
    let (code, _, _) = run(&["hooks", "--match"]);
    assert_eq!(code, Some(2));
}

#[test]
fn layers_from_injected_roots_and_a_json_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config");
    let project = dir.path().join("project");
    fs::create_dir_all(project.join(".claude")).expect("mkdir");
    fs::create_dir_all(&config).expect("mkdir");
    fs::write(
        config.join("settings.json"),
        fs::read_to_string(BARE).expect("fixture"),
    )
    .expect("write");
    fs::write(
        project.join(".claude/settings.json"),
        "{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n",
    )
    .expect("write");
    let managed = dir.path().join("managed.json");
    let (code, out, _) = run(&[
        "hooks",
        "--cwd",
        &project.display().to_string(),
        "--config-dir",
        &config.display().to_string(),
        "--managed",
        &managed.display().to_string(),
    ]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains(&format!("  managed  {}  not present\n", managed.display())),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "  user     {}  1 handler\n",
            config.join("settings.json").display()
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "  project  {}  SKIPPED by Claude Code: not valid JSON: expected value at line 3 column 14; Claude Code cannot read this file\n      at line 3, column 14 [settings-invalid-json]\n",
            project.join(".claude/settings.json").display()
        )),
        "{out}"
    );
    let (code, out, _) = run(&[
        "hooks",
        "--cwd",
        &project.display().to_string(),
        "--config-dir",
        &config.display().to_string(),
        "--managed",
        &managed.display().to_string(),
        "--lint",
    ]);
    assert_eq!(code, Some(1));
    assert!(out.contains("error[settings-invalid-json]"), "{out}");
    assert!(out.contains("error[matcher-dead-exact]"), "{out}");
}

#[test]
fn if_rule_is_shown_and_decides() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("settings.json");
    fs::write(
        &path,
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo guard", "if": "Bash(rm *)"}]}]}}"#,
    )
    .expect("write");
    let p = path.display().to_string();
    let (_, out, _) = run(&["hooks", "--settings", &p]);
    assert!(
        out.contains("  #1 PreToolUse  matcher \"Bash\"  if \"Bash(rm *)\"  command  echo guard\n"),
        "{out}"
    );
    let (_, out, _) = run(&[
        "hooks",
        "--settings",
        &p,
        "--match",
        "PreToolUse",
        "Bash",
        "--input",
        r#"{"command": "git status"}"#,
    ]);
    assert!(out.contains("  ✗ #1 "), "{out}");
    assert!(out.ends_with("0 of 1 handler would run.\n"), "{out}");
    let (_, out, _) = run(&[
        "hooks",
        "--settings",
        &p,
        "--match",
        "PreToolUse",
        "Bash",
        "--input",
        r#"{"command": "FOO=1 rm -rf build"}"#,
    ]);
    assert!(out.contains("  ✓ #1 "), "{out}");
}

#[test]
fn json_listing() {
    let (code, out, _) = run(&["hooks", "--settings", C2, "--json"]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    let h = &v["config"]["handlers"][0];
    assert_eq!(h["event"], "PreToolUse");
    assert_eq!(h["type"], "command");
    assert_eq!(h["origin"]["line"], 7);
    assert_eq!(h["origin"]["layer"]["kind"], "given");
    assert_eq!(h["effective_timeout"], 600.0);
}

#[cfg(unix)]
#[test]
fn non_utf8_settings_path() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let name = std::ffi::OsStr::from_bytes(b"s\xff.json");
    let path = dir.path().join(name);
    fs::copy(BARE, &path).expect("copy");
    let out = hookscope()
        .arg("hooks")
        .arg("--settings")
        .arg(&path)
        .arg("--lint")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("s\u{fffd}.json:5: error[matcher-dead-exact]"),
        "{text}"
    );
    assert!(Path::new(&path).exists());
}

/// Every command takes the same agent names and aliases
/// (`transcript::Agent::from_name`): `hooks --agent claude-code|claude|cc`
/// read the same files as the default, `find --agent claude|cc` and
/// `--agent oc` select what `claude-code` and `opencode` select, and
/// OpenCode (no hook configuration read) is refused by `hooks`, exit 2.
#[test]
fn agent_names_and_aliases_are_the_same_everywhere() {
    let (code, default, _) = run(&["hooks", "--settings", C2]);
    assert_eq!(code, Some(0));
    for name in ["claude-code", "claude", "cc", "Claude-Code"] {
        let (code, out, err) = run(&["hooks", "--agent", name, "--settings", C2]);
        assert_eq!(code, Some(0), "{name}: {err}");
        assert_eq!(out, default, "{name}");
    }
    let (code, _, err) = run(&["hooks", "--agent", "oc", "--settings", C2]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("OpenCode's hooks (plugins) are not read"),
        "{err}"
    );
    let find = |dir: &str, agent: &str| {
        let (code, out, err) = run(&[
            "find",
            dir,
            "--agent",
            agent,
            "--tool-name-pattern",
            "",
            "--json",
            "--limit",
            "10000",
        ]);
        assert_eq!(code, Some(0), "{agent}: {err}");
        out
    };
    let cc = "tests/corpus/real-cc-2.1.332";
    let canonical = find(cc, "claude-code");
    // python3 over real-cc-2.1.332/*/projects/**.jsonl: 121 tool_use blocks
    // (hooks_c8_outcomes: 9 on its main thread, 1 in its subagent).
    let v: Value = serde_json::from_str(&canonical).expect("json");
    assert_eq!(v["records"].as_array().map(Vec::len), Some(121));
    assert_eq!(find(cc, "claude"), canonical);
    assert_eq!(find(cc, "CC"), canonical);
    let oc = "tests/corpus/real-opencode-1.18.33";
    let canonical = find(oc, "opencode");
    assert_eq!(find(oc, "oc"), canonical);
    let v: Value = serde_json::from_str(&canonical).expect("json");
    let records = v["records"].as_array().expect("records");
    assert!(!records.is_empty());
    assert!(records.iter().all(|r| r["agent"] == "opencode"));
}

/// A settings file of `n` PreToolUse groups whose matchers are
/// `pattern` with `{i}` replaced by the group's number.
fn many_matchers(dir: &Path, pattern: &str, n: usize) -> String {
    let groups: Vec<Value> = (0..n)
        .map(|i| {
            serde_json::json!({"matcher": pattern.replace("{i}", &i.to_string()),
                "hooks": [{"type": "command", "command": "true"}]})
        })
        .collect();
    let file = dir.join("settings.json");
    fs::write(
        &file,
        serde_json::json!({"hooks": {"PreToolUse": groups}}).to_string(),
    )
    .expect("write");
    file.display().to_string()
}

/// 3,000 catastrophic matchers (`(a+)+\1xN$`, each giving up only after a
/// million backtracking steps) in one settings file: `--match` spends at
/// most the question's budget on them, then reports each one left as not
/// evaluated, with the lint that flags its shape (before: 87 s in a
/// release build, every verdict "gave up").
#[test]
fn thousands_of_catastrophic_matchers_spend_one_budget_per_question() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = many_matchers(dir.path(), r"(a+)+\1x{i}$", 3000);
    let value = "a".repeat(36);
    let (code, out, _) = run(&[
        "hooks",
        "--settings",
        &file,
        "--match",
        "PreToolUse",
        &value,
        "--json",
    ]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    let verdicts = v["verdicts"].as_array().expect("verdicts");
    assert_eq!(verdicts.len(), 3000);
    let first = verdicts[0]["reason"].as_str().unwrap_or_default();
    assert!(first.contains("gave up on"), "{first}");
    let last = verdicts[2999]["reason"].as_str().unwrap_or_default();
    assert!(
        last.starts_with(r#"matcher "(a+)+\1x2999$" was not evaluated on "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" (matcher-catastrophic-regex: nested quantifiers"#),
        "{last}"
    );
    assert!(
        last.contains("(past 250 ms such patterns are not run)"),
        "{last}"
    );
    assert!(verdicts.iter().all(|h| h["fires"] == false));
}

/// Slow matchers the catastrophic-shape check does not flag
/// (`(\w*a){25}\1xN$`, a Unicode class compiled thousands of times):
/// past the hard budget nothing more is compiled or run, each verdict
/// says so, and `--lint` says which probes it skipped (`matcher-budget`).
#[test]
fn slow_matchers_past_the_hard_budget_are_said_not_evaluated() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = many_matchers(dir.path(), r"(\w*a){25}\1x{i}$", 3000);
    let value = "a".repeat(36);
    let (_, out, _) = run(&[
        "hooks",
        "--settings",
        &file,
        "--match",
        "PreToolUse",
        &value,
        "--json",
    ]);
    let v: Value = serde_json::from_str(&out).expect("json");
    let last = v["verdicts"][2999]["reason"].as_str().unwrap_or_default();
    assert!(last.contains("was not evaluated on"), "{last}");
    assert!(last.contains("(the limit is 1000 ms)"), "{last}");
    let (code, out, _) = run(&["hooks", "--settings", &file, "--lint"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("warning[matcher-budget]: "), "{out}");
    assert!(
        out.contains("regex probes were not run: the lints spent "),
        "{out}"
    );
}

/// `--match` for an event no handler is configured for says where it
/// looked when it found no settings file (as the plain listing does), and
/// which files it read when it found some.
#[test]
fn match_with_no_handler_says_where_it_looked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (managed, config, project) = (
        dir.path().join("managed.json"),
        dir.path().join("config"),
        dir.path().join("project"),
    );
    let paths = [&managed, &config, &project].map(|p| p.display().to_string());
    // `hooks --match PreToolUse Bash` run from `cwd` with these settings folders.
    let match_bash = |cwd: &str, config_dir: &str, managed: &str| {
        run(&[
            "hooks",
            "--match",
            "PreToolUse",
            "Bash",
            "--cwd",
            cwd,
            "--config-dir",
            config_dir,
            "--managed",
            managed,
        ])
    };
    let (code, out, _) = match_bash(&paths[2], &paths[1], &paths[0]);
    assert_eq!(code, Some(0));
    let line = format!(
        "  no handler is configured for PreToolUse: no settings file found (looked for {}, {}/settings.json, {}/.claude/settings.json, {}/.claude/settings.local.json)\n",
        paths[0], paths[1], paths[2], paths[2]
    );
    assert!(
        out.ends_with(&line),
        "missing {line:?} at the end of:\n{out}"
    );
    // Run from the home folder: the user and project files are one file,
    // named once.
    let home = dir.path().join("home");
    let claude = home.join(".claude").display().to_string();
    let home = home.display().to_string();
    let (code, out, _) = match_bash(&home, &claude, &paths[0]);
    assert_eq!(code, Some(0));
    assert!(
        out.ends_with(&format!(
            "(looked for {}, {claude}/settings.json, {claude}/settings.local.json)\n",
            paths[0]
        )),
        "{out}"
    );

    let (code, out, _) = run(&["hooks", "--match", "Stop", "", "--settings", C2]);
    assert_eq!(code, Some(0));
    assert!(
        out.ends_with(&format!("  no handler is configured for Stop (in {C2})\n")),
        "{out}"
    );
}

/// `--lint --format sarif`: a SARIF 2.1.0 log with the properties the
/// 2.1.0 schema requires (version, runs[].tool.driver.name, each result's
/// message.text; ruleIndex pointing at its rule; level one of the four;
/// locations with a uri and a 1-based startLine), one result per lint.
#[test]
fn lint_format_sarif_is_a_sarif_2_1_0_log() {
    let file = "tests/fixtures/lints/command-relative-path.json";
    let out = hookscope()
        .args(["hooks", "--settings", file, "--lint", "--format", "sarif"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["version"], "2.1.0");
    assert_eq!(
        v["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "hookscope");
    let rules = driver["rules"].as_array().expect("rules");
    let results = runs[0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 3);
    let mut lines = Vec::new();
    for r in results {
        let i = usize::try_from(r["ruleIndex"].as_u64().expect("index")).expect("usize");
        assert_eq!(rules[i]["id"], r["ruleId"]);
        assert!(
            rules[i]["shortDescription"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        assert!(
            ["error", "warning", "note", "none"].contains(&r["level"].as_str().expect("level"))
        );
        assert!(
            r["message"]["text"]
                .as_str()
                .is_some_and(|t| t.contains(" — fix: "))
        );
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], file);
        lines.push(loc["region"]["startLine"].as_u64().expect("line"));
    }
    assert_eq!(lines, [7, 11, 15]);
    assert_eq!(results[2]["level"], "error");
}

/// `--lint --format github`: one workflow command per lint, its text
/// escaped so a settings file cannot start another command.
#[test]
fn lint_format_github_annotates_and_escapes() {
    let out = hookscope()
        .args([
            "hooks",
            "--settings",
            "tests/fixtures/lints/http-env-not-allowed.json",
            "--lint",
            "--format",
            "github",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "::error file=tests/fixtures/lints/http-env-not-allowed.json,line=7,title=http-env-not-allowed::$TOKEN in the http handler's headers or URL is not in `allowedEnvVars`: Claude Code sends it empty — fix: add it: \"allowedEnvVars\": [\"TOKEN\"]\n"
    );
    // A file whose folder name holds a newline and `::`, and a matcher with
    // `::error::`: every annotation stays one line, its text escaped.
    let dir = tempfile::tempdir().expect("tempdir");
    let sub = dir.path().join("x\n::error::pwned,y:z");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let file = sub.join("s.json");
    std::fs::write(
        &file,
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash(x::error::pwned)", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
    )
    .expect("write");
    let out = hookscope()
        .args(["hooks", "--lint", "--format", "github", "--settings"])
        .arg(&file)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(lines[0].starts_with("::error file="), "{text}");
    assert!(
        lines[0].contains(
            "x%0A%3A%3Aerror%3A%3Apwned%2Cy%3Az/s.json,line=1,title=matcher-permission-syntax::"
        ),
        "{text}"
    );
}

/// `--explain ID`: the lint's line, why, the example it fires on and the
/// fix, and how to silence it; `--json` carries the same; an unknown id
/// exits 2 with the closest id; no id lists every lint.
#[test]
fn explain_says_what_a_lint_means_with_its_example_and_fix() {
    let (code, out, _) = run(&["hooks", "--explain", "matcher-permission-syntax"]);
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with(
            "matcher-permission-syntax: a matcher written as a permission rule (`Bash(rm:*)`)"
        ),
        "{out}"
    );
    assert!(
        out.contains("Fires on (a settings file, Claude Code 2.1.332):\n"),
        "{out}"
    );
    assert!(
        out.contains("          \"matcher\": \"Bash(rm:*)\",\n"),
        "{out}"
    );
    assert!(
        out.contains("              \"if\": \"Bash(rm:*)\"\n"),
        "{out}"
    );
    assert!(
        out.ends_with("`# hookscope: allow matcher-permission-syntax`, or for a whole run with `hooks --lint --allow matcher-permission-syntax`.\n"),
        "{out}"
    );
    let (code, out, _) = run(&["hooks", "--explain", "exit-1-policy", "--json"]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["id"], "exit-1-policy");
    assert_eq!(v["example"]["kind"], "output");
    assert_eq!(v["example"]["exit_code"], 1);
    assert_eq!(v["fixed"]["exit_code"], 0);
    let (code, _, err) = run(&["hooks", "--explain", "matcher-permision-syntax"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("did you mean matcher-permission-syntax?"),
        "{err}"
    );
    let (code, out, _) = run(&["hooks", "--explain"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out.lines().filter(|l| l.contains("  ")).count(),
        hookscope_core::hooks::lint::LINTS.len()
    );
}

/// `# hookscope: allow ID` at the end of a command silences that lint for
/// that handler only; `--allow ID` everywhere; a silence naming no lint is
/// itself a lint with the closest id; the count of silenced lints is said.
#[test]
fn lints_are_silenced_inline_or_by_allow() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("settings.json");
    let write = |commands: &[&str]| {
        let hooks: Vec<Value> = commands
            .iter()
            .map(|c| serde_json::json!({"type": "command", "command": c}))
            .collect();
        fs::write(
            &file,
            serde_json::to_string_pretty(&serde_json::json!({"hooks": {"PreToolUse": [
                {"matcher": "Bash", "hooks": hooks}]}}))
            .expect("json"),
        )
        .expect("write");
    };
    let lint = |extra: &[&str]| {
        let out = hookscope()
            .args(["hooks", "--settings"])
            .arg(&file)
            .args(["--lint", "--json"])
            .args(extra)
            .env("PATH", "/usr/bin:/bin")
            .output()
            .expect("runs");
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        let ids: Vec<String> = v["lints"]
            .as_array()
            .expect("lints")
            .iter()
            .map(|l| l["id"].as_str().expect("id").to_string())
            .collect();
        (
            out.status.code(),
            ids,
            v["silenced"].as_u64().expect("silenced"),
            v,
        )
    };
    write(&[
        "true hooks/a.py # hookscope: allow command-relative-path",
        "python3 hooks/b.py",
    ]);
    let (code, ids, silenced, _) = lint(&[]);
    assert_eq!(code, Some(1));
    assert_eq!(ids, ["command-relative-path"], "only the second handler's");
    assert_eq!(
        silenced, 0,
        "true's argument is not a script: nothing to silence"
    );
    write(&[
        "python3 hooks/a.py # hookscope: allow command-relative-path",
        "python3 hooks/b.py",
    ]);
    let (_, ids, silenced, v) = lint(&[]);
    assert_eq!(ids, ["command-relative-path"]);
    assert_eq!(silenced, 1);
    assert_eq!(v["lints"][0]["handler"], 1);
    let (code, ids, silenced, _) = lint(&["--allow", "command-relative-path"]);
    assert_eq!(code, Some(0));
    assert!(ids.is_empty());
    assert_eq!(silenced, 2);
    write(&["python3 hooks/a.py # hookscope: allow comand-relative-path"]);
    let (_, ids, _, v) = lint(&[]);
    assert_eq!(ids, ["command-relative-path", "allow-unknown-lint"]);
    assert_eq!(v["lints"][1]["fix"], "did you mean command-relative-path?");
    let out = hookscope()
        .args(["hooks", "--settings"])
        .arg(&file)
        .args(["--lint", "--allow", "command-relative-path"])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.ends_with("1 lint (0 errors). 1 lint silenced (--allow, # hookscope: allow).\n"),
        "{text}"
    );
}

/// `--lint --format sarif` validates against the official SARIF 2.1.0
/// JSON Schema (OASIS, errata01; tests/fixtures/sarif/), for a file with
/// lints of every severity and for a clean one (an empty results list).
#[test]
fn lint_format_sarif_validates_against_the_oasis_schema() {
    let schema: Value = serde_json::from_str(
        &fs::read_to_string("tests/fixtures/sarif/sarif-schema-2.1.0.json").expect("schema"),
    )
    .expect("schema json");
    let validator = jsonschema::draft4::new(&schema).expect("a draft-04 schema");
    // It refuses what SARIF does not allow.
    assert!(
        !validator.is_valid(&serde_json::json!({"version": "2.1.0", "runs": [{"results": []}]}))
    );
    for (file, code) in [
        ("tests/fixtures/lints/command-relative-path.json", 1),
        ("tests/fixtures/lints/http-env-not-allowed.json", 1),
        ("tests/fixtures/lints/matcher-permission-syntax.json", 1),
        ("tests/fixtures/lints/timeout-not-positive_fixed.json", 0),
    ] {
        let out = hookscope()
            .args(["hooks", "--settings", file, "--lint", "--format", "sarif"])
            .env("PATH", "/usr/bin:/bin")
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(code), "{file}");
        let log: Value = serde_json::from_slice(&out.stdout).expect("json");
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{file}: {errors:?}");
    }
}

/// With an index (built here by `sessions` over the real `tools` session,
/// which calls `mcp__mockmcp__lookup`), `--lint` tries a regex matcher on
/// the tools the sessions called too: a pattern for an MCP server never
/// called is `matcher-no-tool`; one for `mockmcp` is not, nor one for a
/// tool of any server. Without an index a pattern naming MCP is left alone.
#[test]
fn matcher_no_tool_knows_the_mcp_tools_of_your_indexed_sessions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let corpus = "tests/corpus/real-cc-2.1.332/tools";
    let built = crate::support::indexed(&cache)
        .args(["sessions", corpus])
        .output()
        .expect("runs");
    assert!(built.status.success());
    let file = dir.path().join("settings.json");
    let lint = |matcher: &str, index: bool| -> Vec<String> {
        fs::write(
            &file,
            serde_json::json!({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [
                {"type": "command", "command": "true"}]}]}})
            .to_string(),
        )
        .expect("write");
        let mut cmd = if index {
            crate::support::indexed(&cache)
        } else {
            hookscope()
        };
        let out = cmd
            .args(["hooks", "--settings"])
            .arg(&file)
            .args(["--lint", "--json"])
            .env("PATH", "/usr/bin:/bin")
            .output()
            .expect("runs");
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        v["lints"]
            .as_array()
            .expect("lints")
            .iter()
            .map(|l| {
                format!(
                    "{}: {}",
                    l["id"].as_str().unwrap_or(""),
                    l["message"].as_str().unwrap_or("")
                )
            })
            .collect()
    };
    let found = lint("^mcp__notes__.*", true);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("matcher-no-tool: the regex matcher \"^mcp__notes__.*\" matches no tool of the latest Claude Code nor any of the "),
        "{found:?}"
    );
    assert!(lint("^mcp__mockmcp__.*", true).is_empty());
    // A tool of any MCP server (what `hooks --install` writes for a rule's
    // `tool = "query"`) is not said to never fire: the server may be
    // called later.
    assert!(lint("^(?:query)$|^mcp__.+__(?:query)$", true).is_empty());
    assert!(lint("^mcp__notes__.*", false).is_empty());
    assert_eq!(lint("^(Shell|Exec)$", false).len(), 1);
}

/// A settings file in another agent's folder, or with Factory Droid's
/// content, read as Claude Code's (the default `--agent`), gets a hint
/// naming the `--agent` that reads it as that agent's; with that
/// `--agent`, or a plain Claude Code file, none.
#[test]
fn a_settings_file_in_a_factory_or_codex_folder_hints_at_its_agent() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let write = |folder: &str| {
        let dir = tmp.path().join(folder);
        fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("settings.json");
        fs::write(&file, r#"{"hooks":{}}"#).expect("write");
        file.to_str().expect("utf-8").to_string()
    };
    let droid = write(".factory");
    let codex = write(".codex");
    let plain = write("project");
    let (code, _, err) = run(&["hooks", "--settings", &droid]);
    assert_eq!(code, Some(0));
    assert_eq!(
        err,
        format!(
            "hookscope: {droid} is in a .factory folder; read as Claude Code settings (--agent droid reads it as Factory Droid's)\n"
        )
    );
    let (_, _, err) = run(&["hooks", "--settings", &codex]);
    assert_eq!(
        err,
        format!(
            "hookscope: {codex} is in a .codex folder; read as Claude Code settings (--agent codex reads it as Codex's)\n"
        )
    );
    let (code, _, err) = run(&["hooks", "--agent", "droid", "--settings", &droid]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let (_, _, err) = run(&["hooks", "--settings", &plain]);
    assert_eq!(err, "");
    // Droid's by its content, in a folder of any name: the corpus's copy
    // of a real ~/.factory/settings.json (a customModels key), and a file
    // whose hook runs a script under /.factory/.
    let corpus = "tests/corpus/real-droid-0.225.2/factory/settings.json";
    let (code, _, err) = run(&["hooks", "--settings", corpus]);
    assert_eq!(code, Some(0));
    assert_eq!(
        err,
        format!(
            "hookscope: {corpus} looks like Factory Droid's (a customModels key); read as Claude Code settings (--agent droid reads it as Factory Droid's)\n"
        )
    );
    let scripted = tmp.path().join("project").join("hooks.json");
    fs::write(
        &scripted,
        r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"python3 /home/dev/.factory/hooks/stop.py"}]}]}}"#,
    )
    .expect("write");
    let scripted = scripted.to_str().expect("utf-8");
    let (_, _, err) = run(&["hooks", "--settings", scripted]);
    assert_eq!(
        err,
        format!(
            "hookscope: {scripted} looks like Factory Droid's (hook commands under /.factory/); read as Claude Code settings (--agent droid reads it as Factory Droid's)\n"
        )
    );
}

/// `--match EVENT` alone is the question for an event that takes no
/// matcher; for one that does, the missing value is refused (exit 2) with
/// the field it tests. A matcher that never fires says its lint's fix is
/// about every value, not the one asked.
#[test]
fn match_without_a_value_and_a_never_firing_matchers_fix() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("settings.json");
    fs::write(
        &file,
        r#"{"hooks":{"PreToolUse":[{"matcher":"bash","hooks":[{"type":"command","command":"/bin/true"}]}]}}"#,
    )
    .expect("write");
    let file = file.to_str().expect("utf-8");
    let (code, out, err) = run(&["hooks", "--settings", file, "--match", "Stop"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("Stop (Claude Code ignores matchers here: every handler of it is reached)"),
        "{out}"
    );
    let (code, out, err) = run(&["hooks", "--settings", file, "--match", "PreToolUse"]);
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert_eq!(
        err,
        "hookscope: --match PreToolUse needs the value its matcher tests (tool_name), e.g. --match PreToolUse Bash\n"
    );
    let (code, out, _) = run(&[
        "hooks",
        "--settings",
        file,
        "--match",
        "PreToolUse",
        "mcp__github__create_issue",
    ]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("tool_name \"mcp__github__create_issue\" is not \"bash\"; this matcher never fires on any value (matcher-case); write \"Bash\"\n"),
        "{out}"
    );
}

/// The Droid-content hint reads a settings file as the loader does: a file
/// nested past the JSON parser's depth limit and a FIFO get no hint and
/// no hang, only the loader's own problem line.
#[cfg(unix)]
#[test]
fn the_droid_hint_reads_no_fifo_and_no_endless_nesting() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let deep = tmp.path().join("deep.json");
    fs::write(
        &deep,
        format!(
            "{{\"customModels\":{}{}}}",
            "[".repeat(200_000),
            "]".repeat(200_000)
        ),
    )
    .expect("write");
    let (code, out, err) = run(&["hooks", "--settings", deep.to_str().expect("utf-8")]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    assert!(out.contains("recursion limit exceeded"), "{out}");
    let fifo = tmp.path().join("settings.fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let (code, out, err) = run(&["hooks", "--settings", fifo.to_str().expect("utf-8")]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    assert!(out.contains("not a regular file (FIFO)"), "{out}");
}
