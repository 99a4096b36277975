//! `hookscope test RULES [--json]`: exit 0 / 1 / 2, per-case lines, JSON.

use serde_json::{Value, json};

use crate::support::{EXAMPLE_RULES, hookscope};

#[test]
fn the_example_passes_with_exit_0() {
    let out = hookscope()
        .args(["test", EXAMPLE_RULES])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    // 51 [[rules.tests]] + 3 [[tests]] in the file
    assert_eq!(text.lines().filter(|l| l.starts_with("PASS  ")).count(), 63);
    assert_eq!(
        text.lines().last(),
        Some("63 passed, 0 failed (12 rules, assets/rules/example.toml)")
    );
    // The example's Stop gate checks stop_hook_active: no warning.
    assert_eq!(String::from_utf8(out.stderr).expect("utf-8"), "");
    assert!(
        text.contains("PASS  no-rm-rf  line 103  PreToolUse Bash rm -rf build/\n"),
        "{text}"
    );
}

#[test]
fn a_failing_case_exits_1_with_the_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("r.toml");
    std::fs::write(
        &p,
        "[[rules]]\nid = \"no-curl\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"no curl\"\n[rules.only_if]\nprogram = \"curl\"\n[[rules.tests]]\ncommand = \"curl x | sh\"\nexpect = \"block\"\n[[rules.tests]]\ncommand = \"wget x\"\nexpect = \"block\"\n",
    )
    .expect("write");
    let out = hookscope().arg("test").arg(&p).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "PASS  no-curl  line 9  PreToolUse Bash curl x | sh"
    );
    assert_eq!(lines[1], "FAIL  no-curl  line 12  PreToolUse Bash wget x");
    assert_eq!(
        lines[2],
        "      expected block, got none: event PreToolUse ✓ · tool Bash ✓ · program = \"curl\" ✗ (programs are \"wget\")"
    );
    let out = hookscope()
        .arg("test")
        .arg(&p)
        .arg("--json")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        (v["passed"].as_u64(), v["failed"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(v["cases"][1]["got"], "none");
    assert_eq!(v["cases"][1]["rule"], "no-curl");
}

#[test]
fn a_refused_file_exits_2_with_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("bad.toml");
    std::fs::write(
        &p,
        "[[rules]]\nid = \"x\"\nevents = \"PreToolUse\"\naction = \"block\"\n",
    )
    .expect("write");
    let out = hookscope().arg("test").arg(&p).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).expect("utf-8");
    assert!(
        err.starts_with(&format!(
            "hookscope: {}:4:10: rule `x` blocks without a `reason`",
            p.display()
        )),
        "{err}"
    );
    assert!(
        err.ends_with("hookscope: rule file refused; nothing was loaded\n"),
        "{err}"
    );
    let out = hookscope()
        .arg("test")
        .arg(&p)
        .arg("--json")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["error"], "invalid_rules");
    assert_eq!(v["errors"][0]["line"], 4);
    // With --json the errors are printed once, in the JSON.
    assert_eq!(String::from_utf8(out.stderr).expect("utf-8"), "");
    let out = hookscope()
        .args(["test", "no/such/file.toml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

/// A rule file with no rules (empty, or only test cases) is refused by
/// `test` and by `replay` (exit 2, the file named), as the live hook and
/// `hooks --install` refuse it: a CI gate on it must not pass.
#[test]
fn a_rule_file_with_no_rules_is_refused_by_test_and_replay() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty.toml");
    std::fs::write(&empty, "# nothing yet\n").expect("write");
    let empty = empty.to_str().expect("utf-8 path");
    let out = hookscope().args(["test", empty]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).expect("utf-8"),
        format!(
            "hookscope: rule file {empty} has no rules ([[rules]] tables): the live hook would allow every call\n"
        )
    );
    let out = hookscope()
        .args(["test", empty, "--json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["error"], "invalid_rules");
    // The shape of every other rule-file problem: an object with no place.
    assert_eq!(
        v["errors"],
        json!([{
            "file": empty,
            "line": 0,
            "column": 0,
            "message": "has no rules ([[rules]] tables): the live hook would allow every call"
        }])
    );
    let out = hookscope()
        .args([
            "replay",
            "--all",
            "--rules",
            empty,
            "--no-index",
            "tests/corpus/real-cc-2.1.332",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stdout).expect("utf-8"), "");
    assert_eq!(
        String::from_utf8(out.stderr).expect("utf-8"),
        format!(
            "hookscope: rule file {empty} has no rules ([[rules]] tables): nothing could match\n"
        )
    );
}

/// A Stop block without `stop_hook_active = false` loads, with a warning on
/// stderr (text) or in `warnings` (--json).
#[test]
fn an_endless_stop_block_loads_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("stop.toml");
    std::fs::write(
        &p,
        "[[rules]]\nid = \"gate\"\nevents = \"Stop\"\naction = \"block\"\nreason = \"run the tests\"\n[[rules.tests]]\nevent = \"Stop\"\nexpect = \"block\"\n[[rules.tests]]\nevent = \"Stop\"\nstop_hook_active = true\nexpect = \"block\"\n",
    )
    .expect("write");
    let warning = format!(
        "hookscope: {}:1:1: warning: rule `gate` blocks Stop without checking stop_hook_active: after its block the agent goes on, stops again with stop_hook_active = true, and this rule blocks again, for ever. Fix: add stop_hook_active = false under [rules.only_if]\n",
        p.display()
    );
    let out = hookscope().arg("test").arg(&p).output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8(out.stderr).expect("utf-8"), warning);
    let out = hookscope()
        .arg("test")
        .arg(&p)
        .arg("--json")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8(out.stderr).expect("utf-8"), "");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["warnings"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["warnings"][0]["line"], 1);
    assert_eq!(
        format!(
            "hookscope: {}:1:1: {}\n",
            p.display(),
            v["warnings"][0]["message"].as_str().unwrap_or("")
        ),
        warning
    );
}

#[test]
fn the_printed_example_runs_anywhere() {
    // `test --example` prints the bundled rule set without the case that
    // reads a repository file, so a user without the repository can start
    // from it: saved in a temp dir, all its cases pass (53 = the 54 cases
    // of assets/rules/example.toml minus the payload-file one).
    let dir = tempfile::tempdir().expect("tempdir");
    let out = hookscope()
        .args(["test", "--example"])
        .output()
        .expect("run");
    assert!(out.status.success());
    // Its header says how to save and run this copy, not the repository's.
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("#   hookscope test --example > rules.toml\n#   hookscope test rules.toml "),
        "{text}"
    );
    assert!(!text.contains("assets/rules/example.toml"), "{text}");
    let file = dir.path().join("rules.toml");
    std::fs::write(&file, &out.stdout).expect("write");
    let run = hookscope().arg("test").arg(&file).output().expect("run");
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.trim_end().ends_with(&format!(
            "62 passed, 0 failed (12 rules, {})",
            file.display()
        )),
        "{stdout}"
    );
}

#[test]
fn a_rule_file_without_cases_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("rules.toml");
    std::fs::write(
        &file,
        "[[rules]]\nid = \"w\"\nevents = \"PreToolUse\"\naction = \"warn\"\nreason = \"hi\"\n",
    )
    .expect("write");
    let run = hookscope().arg("test").arg(&file).output().expect("run");
    assert_eq!(run.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("has no test cases ([[rules.tests]] or [[tests]]); nothing was checked"),
        "{stderr}"
    );
}

/// A test case whose `event` is misspelt, or that gives nothing for its
/// event to be about, is refused with file:line:col (before, both passed
/// vacuously: `PreTooluse` matches no rule, so `expect = "none"` held).
#[test]
fn a_vacuous_test_case_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("t.toml");
    std::fs::write(
        &p,
        "[[rules]]\nid = \"no-rm\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\n\
         only_if = { program = \"rm\" }\naction = \"block\"\nreason = \"no rm\"\n\n\
         [[rules.tests]]\nevent = \"PreTooluse\"\ncommand = \"rm -rf /\"\nexpect = \"none\"\n\n\
         [[tests]]\nexpect = \"none\"\n\n\
         [[tests]]\nevent = \"UserPromptSubmit\"\nexpect = \"none\"\n\n\
         [[tests]]\nevent = \"Stop\"\nexpect = \"none\"\n",
    )
    .expect("write");
    let out = hookscope().arg("test").arg(&p).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).expect("utf-8");
    let lines: Vec<&str> = err.lines().collect();
    let file = p.display().to_string();
    assert_eq!(lines.len(), 4, "{err}");
    assert!(
        lines[0].starts_with(&format!(
            "hookscope: {file}:10:9: test case: unknown event `PreTooluse` (did you mean PreToolUse?); known: PreToolUse,"
        )),
        "{err}"
    );
    assert_eq!(
        lines[1],
        format!(
            "hookscope: {file}:14:1: test case: a PreToolUse case gives no `command`, `tool`/`input` or `payload`: it would test nothing"
        )
    );
    assert_eq!(
        lines[2],
        format!(
            "hookscope: {file}:17:1: test case: a UserPromptSubmit case gives no `prompt` or `payload`: it would test nothing"
        )
    );
    assert_eq!(lines[3], "hookscope: rule file refused; nothing was loaded");
}

/// The regexes of one rule set share a compiled-size budget (32 MiB):
/// 40 rules of `\w{20}N` (about 1 MiB compiled each) are refused at the
/// 33rd with file:line:col, said once (before: 2,000 of them took 2.3 GB
/// and 14 s to load); 2,000 small patterns still load.
#[test]
fn a_rule_set_past_its_regex_budget_is_refused_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rule = |i: usize, pattern: &str| {
        format!(
            "[[rules]]\nid = \"r{i}\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\n\
             only_if = {{ command = \"{pattern}\" }}\naction = \"block\"\nreason = \"x\"\n\n"
        )
    };
    let big: String = (0..40)
        .map(|i| rule(i, &format!("\\\\w{{20}}{i}")))
        .collect();
    let p = dir.path().join("big.toml");
    std::fs::write(&p, big).expect("write");
    let out = hookscope().arg("test").arg(&p).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).expect("utf-8");
    let lines: Vec<&str> = err.lines().collect();
    // Rule 32 (0-based) starts on line 32 * 8 + 1; its pattern is on line +4, column 23.
    assert_eq!(
        lines,
        [
            format!(
                "hookscope: {}:261:23: regex \"\\w{{20}}32\" does not fit in what is left of the rule set's budget of 32 MiB compiled (0 KiB left): the set's regexes are too large together",
                p.display()
            )
            .as_str(),
            "hookscope: rule file refused; nothing was loaded"
        ]
    );
    let small: String = (0..2000)
        .map(|i| rule(i, &format!("^rm{i}\\\\b")))
        .collect();
    let p = dir.path().join("small.toml");
    std::fs::write(&p, small).expect("write");
    let out = hookscope().arg("test").arg(&p).output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
