//! `hookscope test RULES [--json]`: runs every test case of a rule file
//! (`[[rules.tests]]` and top-level `[[tests]]`, see `hooks::rules`) and
//! prints pass/fail per case. Exit 0 when all pass, 1 on any failure, 2 when
//! the file is refused (each problem as `file:line:col: message` on stderr;
//! with `--json`, only `{"error": "invalid_rules", "errors": [...]}` on
//! stdout). Warnings (a rule set that loads but looks wrong) go to stderr, or
//! with `--json` into the output's `warnings`.

use std::path::Path;

use hookscope_core::hooks::rules::RuleSet;
use serde_json::json;

use super::print_json;

/// The bundled example rule set, embedded at build time.
pub const EXAMPLE_RULES: &str = include_str!("../../assets/rules/example.toml");

/// The test case of [`EXAMPLE_RULES`] that reads a payload file of the
/// repository; left out of the printed copy, which must run anywhere.
const REPO_PAYLOAD_CASE: &str = "[[rules.tests]]
name = \"a real PreToolUse payload captured from Claude Code 2.1.332\"
payload = \"../../tests/fixtures/rules/pretooluse_rm_rf.json\"
expect = \"block\"
";

/// `hookscope test --example`: prints [`EXAMPLE_RULES`] and exits 0. Its
/// header names the saved copy (`rules.toml`), not the repository's file;
/// the one case that reads a payload file of the repository is replaced by a
/// comment saying how to write such a case, so the printed file passes
/// `hookscope test` wherever it is saved.
pub fn print_example() -> ! {
    let text = EXAMPLE_RULES
        .replace(
            "#   hookscope test assets/rules/example.toml      # run the test cases below",
            "#   hookscope test --example > rules.toml\n#   hookscope test rules.toml      # run the test cases below",
        )
        .replace(
        REPO_PAYLOAD_CASE,
        "# A case may also read a captured payload (e.g. `hookscope payload … > captured.json`):\n\
         #   [[rules.tests]]\n\
         #   payload = \"captured.json\"   # relative to this file\n\
         #   expect = \"block\"\n",
    );
    outln!("{}", text.trim_end());
    std::process::exit(0)
}

/// Runs the subcommand and exits with its status.
pub fn run(rules: &Path, json: bool) -> ! {
    let set = match RuleSet::load(rules) {
        Ok(set) => set,
        Err(e) => {
            if json {
                print_json(&json!({"error": "invalid_rules", "errors": e.errors}));
                std::process::exit(2)
            }
            for err in &e.errors {
                errln!("hookscope: {err}");
            }
            errln!("hookscope: rule file refused; nothing was loaded");
            std::process::exit(2)
        }
    };
    if set.rules.is_empty() {
        // The live hook answers "allow" with a warning on such a file, so a
        // CI gate must not pass it.
        super::replay::refuse_no_rules(rules, "the live hook would allow every call", json);
    }
    let results = set.run_tests();
    if results.is_empty() && !json {
        errln!(
            "hookscope: {} has no test cases ([[rules.tests]] or [[tests]]); nothing was checked",
            rules.display()
        );
    }
    let failed = results.iter().filter(|r| !r.passed).count();
    let passed = results.len() - failed;
    if json {
        print_json(&json!({
            "file": rules.display().to_string(),
            "rules": set.rules.len(),
            "passed": passed,
            "failed": failed,
            "cases": results,
            "warnings": set.warnings(),
        }));
    } else {
        for w in set.warnings() {
            errln!("hookscope: {w}");
        }
        for r in &results {
            let mark = if r.passed { "PASS" } else { "FAIL" };
            let rule = r.rule.as_deref().unwrap_or("(all rules)");
            outln!("{mark}  {rule}  line {}  {}", r.line, r.name);
            if !r.passed {
                outln!("      expected {}, got {}: {}", r.expected, r.got, r.why);
            }
        }
        let n = set.rules.len();
        let plural = if n == 1 { "" } else { "s" };
        outln!(
            "{passed} passed, {failed} failed ({n} rule{plural}, {})",
            rules.display()
        );
    }
    std::process::exit(if failed == 0 { 0 } else { 1 })
}
