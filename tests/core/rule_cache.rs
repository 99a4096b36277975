//! The live hook's rule cache (docs/live-hook.md#the-rule-cache): a rule
//! file's text that loaded whole once loads again with its regexes
//! compiled on first use, deciding exactly as before; an entry that is not
//! a small regular file with this version's stamp is not trusted.

use std::path::Path;

use hookscope_core::hooks::live::{load_rules_cached, sha256_hex};
use hookscope_core::hooks::rules::{History, RuleSet};
use serde_json::json;

const EXAMPLE_RULES: &str = "assets/rules/example.toml";

/// The stamp an entry of this build holds.
fn stamp() -> String {
    format!("hookscope {}\n", env!("CARGO_PKG_VERSION"))
}

/// A copy of `text` as a rule file in a fresh folder, with a cache folder
/// beside it.
fn rule_file(text: &str) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("rules.toml");
    std::fs::write(&rules, text).expect("write rules");
    let cache = dir.path().join("cache");
    (dir, rules, cache)
}

#[test]
fn the_first_load_is_whole_and_leaves_an_entry_named_by_the_hash() {
    let text = std::fs::read_to_string(EXAMPLE_RULES).expect("example");
    let (_dir, rules, cache) = rule_file(&text);
    let (hash, set) = load_rules_cached(&rules, Some(&cache));
    assert_eq!(set.map(|s| s.rules.len()), Ok(12));
    let hash = hash.expect("hashed");
    assert_eq!(hash, sha256_hex(text.as_bytes()));
    let entry = cache.join(&hash);
    assert_eq!(std::fs::read_to_string(&entry).expect("entry"), stamp());
    // Nothing else is left in the folder (the temporary file was renamed).
    assert_eq!(std::fs::read_dir(&cache).expect("cache").count(), 1);
    // A file that does not load leaves no entry.
    let (_dir2, bad, cache2) = rule_file(
        "[[rules]]\nid = \"x\"\nevents = \"PreToolUse\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\ncommand = \"(\"\n",
    );
    let (_, set) = load_rules_cached(&bad, Some(&cache2));
    assert!(set.is_err_and(|e| e.contains("bad regex \"(\"")));
    assert!(!cache2.exists());
}

/// Every case of the example decides the same with the regexes deferred
/// as with them compiled at load, verdict, output and whys.
#[test]
fn a_cached_load_decides_every_example_case_as_a_whole_load() {
    let bytes = std::fs::read(EXAMPLE_RULES).expect("example");
    let path = Path::new(EXAMPLE_RULES);
    let whole = RuleSet::from_bytes(bytes.clone(), path).expect("loads");
    let deferred = RuleSet::rules_from_bytes_deferred(bytes, path).expect("loads");
    let cases: Vec<_> = whole
        .tests
        .iter()
        .chain(whole.rules.iter().flat_map(|r| r.tests.iter()))
        .collect();
    assert_eq!(cases.len(), 63);
    for case in cases {
        let version = hookscope_core::hooks::contract::Version::latest();
        let a = whole.evaluate_at(&case.payload, &case.history, &version);
        let b = deferred.evaluate_at(&case.payload, &case.history, &version);
        assert_eq!(a.verdict(), b.verdict(), "line {}", case.line);
        assert_eq!(a.output, b.output, "line {}", case.line);
        let whys = |e: &hookscope_core::hooks::rules::Evaluation| {
            e.rules.iter().map(|r| r.why()).collect::<Vec<_>>()
        };
        assert_eq!(whys(&a), whys(&b), "line {}", case.line);
    }
}

/// An entry that is a folder, a FIFO, a link, too big, or another
/// version's is not trusted: the file loads whole, so its bad regex is
/// refused.
#[test]
fn an_entry_that_is_not_this_versions_small_file_is_not_trusted() {
    let text = "[[rules]]\nid = \"x\"\nevents = \"PreToolUse\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\ncommand = \"(\"\n";
    let (dir, rules, cache) = rule_file(text);
    std::fs::create_dir_all(&cache).expect("cache");
    let entry = cache.join(sha256_hex(text.as_bytes()));
    let refused = |why: &str| {
        let (_, set) = load_rules_cached(&rules, Some(&cache));
        assert!(
            set.as_ref().is_err_and(|e| e.contains("bad regex")),
            "{why}: {:?}",
            set.map(|s| s.rules.len())
        );
    };
    std::fs::write(&entry, "hookscope 0.0.0\n").expect("write");
    refused("another version's stamp");
    std::fs::write(&entry, stamp().repeat(100)).expect("write");
    refused("a big file");
    std::fs::remove_file(&entry).expect("rm");
    std::fs::create_dir(&entry).expect("mkdir");
    refused("a folder");
    std::fs::remove_dir(&entry).expect("rmdir");
    #[cfg(unix)]
    {
        let target = dir.path().join("stamp");
        std::fs::write(&target, stamp()).expect("write");
        std::os::unix::fs::symlink(&target, &entry).expect("symlink");
        refused("a link");
        std::fs::remove_file(&entry).expect("rm");
        let made = std::process::Command::new("mkfifo")
            .arg(&entry)
            .status()
            .is_ok_and(|s| s.success());
        assert!(made, "mkfifo");
        refused("a FIFO (never opened)");
    }
}

/// A lying entry (written by hand for a text that never loaded) makes the
/// bad regex match nothing: the rule does not fire, and nothing crashes.
#[test]
fn a_lying_entry_turns_a_bad_regex_into_no_match() {
    let text = "[[rules]]\nid = \"x\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"r\"\n[rules.only_if]\ncommand = \"(\"\n";
    let (_dir, rules, cache) = rule_file(text);
    std::fs::create_dir_all(&cache).expect("cache");
    std::fs::write(cache.join(sha256_hex(text.as_bytes())), stamp()).expect("write");
    let (_, set) = load_rules_cached(&rules, Some(&cache));
    let set = set.expect("loads deferred");
    let payload = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "("}, "tool_use_id": "t", "session_id": "s"});
    let e = set.evaluate_at(
        &payload,
        &History::default(),
        &hookscope_core::hooks::contract::Version::latest(),
    );
    assert_eq!(e.verdict(), "none");
}
