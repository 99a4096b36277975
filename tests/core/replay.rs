//! `hooks::replay` on real Claude Code 2.1.332 sessions
//! (`tests/corpus/real-cc-2.1.332/hooks_c2_exit2`, `hooks_c3_deny_json`,
//! `hooks_c5_stop_block`): the decisions of `assets/rules/example.toml`
//! with their why, and the hook facts the transcript recorded.

use std::path::{Path, PathBuf};

use hookscope_core::hooks::events::{At, EventName};
use hookscope_core::hooks::replay::{Replay, replay};
use hookscope_core::hooks::rules::RuleSet;
use hookscope_core::transcript::{Session, claude_code};

use crate::support::{CORPUS, EXAMPLE_RULES, REAL_CC};

/// Loads the one session of a scenario folder with its subagents.
fn session(scenario: &str) -> Session {
    let projects = Path::new(REAL_CC).join(scenario).join("projects");
    let dir = std::fs::read_dir(&projects)
        .expect("projects")
        .next()
        .expect("one project")
        .expect("entry")
        .path();
    let main: PathBuf = std::fs::read_dir(&dir)
        .expect("project dir")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("main transcript");
    let subdir = main.with_extension("").join("subagents");
    let mut subs: Vec<PathBuf> = std::fs::read_dir(&subdir)
        .map(|rd| {
            rd.map(|e| e.expect("entry").path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    subs.sort();
    claude_code::load_session(&main, &subs).expect("load")
}

fn example() -> RuleSet {
    RuleSet::load(Path::new(EXAMPLE_RULES)).expect("example loads")
}

fn run(scenario: &str, event: EventName, at: &str) -> Replay {
    let s = session(scenario);
    let rules = example();
    replay(&s, event, &At::parse(at), Some(&rules)).expect("replay")
}

const NO_RM_RF_WHY: &str = r#"event PreToolUse ✓ · tool Bash ✓ · program = "rm" ✓ (rm -rf build/) · command =~ ["(?-u:\b)rm(?:\s+\S+)*?\s+-[0-9A-Za-z_]*(?:[rR][0-9A-Za-z_]*f|f[0-9A-Za-z_]*[rR])", "(?-u:\b)rm(?:\s+\S+)*?\s+(?:-[0-9A-Za-z_]*[rR]|--r[a-z]*)(?:\s+\S+)*?\s+(?:-[0-9A-Za-z_]*f|--f[a-z]*|--interactive=never)", "(?-u:\b)rm(?:\s+\S+)*?\s+(?:-[0-9A-Za-z_]*f|--f[a-z]*|--interactive=never)(?:\s+\S+)*?\s+(?:-[0-9A-Za-z_]*[rR]|--r[a-z]*)"] ✓ on call 1 of 1 (rm -rf build/) · skip_if command =~ "(?-u)^rm\s+-\w+\s+/tmp/[\w-]+/?$" — not matched ✓"#;

const NO_RM_RF_REASON: &str = "rm -rf is blocked in this project. Move the folder aside with `trash <path>` (or `mv <path> /tmp/`) instead.\nIf the folder really must go, ask the user to delete it.";

/// The rm -rf call both variants blocked: the example blocks it too, with
/// the same why, and the recorded fact is the hook's tool_result.
fn assert_rm_rf_blocked(r: &Replay, scenario: &str, recorded: &str) {
    assert_eq!(r.payload.source_line, 44);
    assert_eq!(r.payload.json["tool_input"]["command"], "rm -rf build/");
    let e = r.evaluation.as_ref().expect("rules given");
    assert_eq!(e.verdict(), "block");
    let matched: Vec<&str> = e
        .rules
        .iter()
        .filter(|x| x.matched)
        .map(|x| x.id.as_str())
        .collect();
    assert_eq!(matched, ["no-rm-rf"]);
    assert_eq!(e.rules[0].why(), NO_RM_RF_WHY);
    let git = e
        .rules
        .iter()
        .find(|x| x.id == "force-with-lease")
        .expect("rule");
    assert_eq!(
        git.why(),
        r#"event PreToolUse ✓ · tool Bash ✓ · program = "git" ✗ (programs are "rm")"#
    );
    let stdout = e.output.stdout.as_ref().expect("JSON output");
    assert_eq!(stdout["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        stdout["hookSpecificOutput"]["permissionDecisionReason"],
        NO_RM_RF_REASON
    );
    assert_eq!(e.outcome.model_sees.as_deref(), Some(NO_RM_RF_REASON));
    // History: the earlier successful Bash call and the Edit of notes.txt;
    // the failing `exit 3` call (an error result) is not counted.
    assert_eq!(r.history.ran_commands, ["echo original command"]);
    assert_eq!(
        r.history.touched_files,
        [format!("/home/dev/work/{scenario}/notes.txt")]
    );
    assert_eq!(r.recorded.len(), 1, "{:?}", r.recorded);
    assert_eq!(r.recorded[0].source, "tool_result");
    assert_eq!(r.recorded[0].line, 45);
    assert_eq!(r.recorded[0].text, recorded);
}

#[test]
fn c2_exit2_rm_rf_is_blocked_and_the_hook_error_is_recorded() {
    let r = run(
        "hooks_c2_exit2",
        EventName::PreToolUse,
        "toolu_01GFEgALJm405nI2WctBocud",
    );
    assert_rm_rf_blocked(
        &r,
        "hooks_c2_exit2",
        "PreToolUse:Bash hook error: [python3 /home/dev/.hooks/hook.py hooks_c2_exit2 PreToolUse]: Blocked by hookscope test hook: 'rm -rf' is not allowed (exit 2)",
    );
}

#[test]
fn c3_deny_json_rm_rf_is_blocked_and_the_denial_is_recorded() {
    let r = run(
        "hooks_c3_deny_json",
        EventName::PreToolUse,
        "toolu_0138h77ojpT1t3A4y1yWKgjr",
    );
    assert_rm_rf_blocked(
        &r,
        "hooks_c3_deny_json",
        "PreToolUse:Bash hook error: Denied by hookscope test hook (JSON): rm -rf is destructive",
    );
}

#[test]
fn a_call_no_hook_decided_records_nothing() {
    // The first Bash call of c2 (echo): allowed by no rule, nothing recorded.
    let r = run(
        "hooks_c2_exit2",
        EventName::PreToolUse,
        "toolu_01iZZmNIegRYHeEO8XWQDf7M",
    );
    let e = r.evaluation.as_ref().expect("rules");
    assert_eq!(e.verdict(), "none");
    assert!(r.recorded.is_empty(), "{:?}", r.recorded);
    assert!(r.history.ran_commands.is_empty());
}

/// A Stop gate over the real c5 session: source files were edited, no
/// tests were run.
const STOP_GATE: &str = r#"
[[rules]]
id = "tests-before-stop"
events = "Stop"
action = "block"
reason = "Run the tests before stopping."
[rules.only_if]
touched_file = "**/notes.txt"
[rules.skip_if]
ran_command = "cargo test"
"#;

#[test]
fn c5_first_stop_blocks_with_the_history_and_records_the_hook_feedback() {
    let s = session("hooks_c5_stop_block");
    let rules = RuleSet::parse(STOP_GATE, "gate.toml").expect("rules");
    // Line 75's uuid: the assistant's final text before the first Stop.
    let at = At::parse("20888217-b61f-45ed-93bf-cf32fe828846");
    let r = replay(&s, EventName::Stop, &at, Some(&rules)).expect("replay");
    assert_eq!(r.payload.source_line, 75);
    assert_eq!(r.payload.json["stop_hook_active"], false);
    let e = r.evaluation.as_ref().expect("rules");
    assert_eq!(e.verdict(), "block");
    assert_eq!(
        e.rules[0].why(),
        r#"event Stop ✓ · touched_file ~ "**/notes.txt" ✓ (/home/dev/work/hooks_c5_stop_block/notes.txt) · skip_if ran_command "cargo test" — not matched ✓"#
    );
    let stdout = e.output.stdout.as_ref().expect("JSON output");
    assert_eq!(stdout["decision"], "block");
    assert_eq!(stdout["reason"], "Run the tests before stopping.");
    // The transcript: the feedback user line (76), the blocking-error
    // attachment (77) and the stop_hook_summary with hookErrors (78).
    let got: Vec<(&str, usize, &str)> = r
        .recorded
        .iter()
        .map(|x| (x.source, x.line, x.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "hook_feedback",
                76,
                "Stop hook feedback:\nStop hook says: please also run the tests before stopping."
            ),
            (
                "attachment",
                77,
                "Stop blocked: Stop hook says: please also run the tests before stopping."
            ),
            (
                "stop_hook_summary",
                78,
                "Stop hook: Stop hook says: please also run the tests before stopping."
            ),
        ]
    );
}

#[test]
fn c5_last_stop_is_the_default_and_records_nothing() {
    let s = session("hooks_c5_stop_block");
    let rules = RuleSet::parse(STOP_GATE, "gate.toml").expect("rules");
    let r = replay(&s, EventName::Stop, &At::Last, Some(&rules)).expect("replay");
    assert_eq!(r.payload.source_line, 82);
    assert_eq!(r.payload.json["stop_hook_active"], true);
    assert_eq!(r.evaluation.as_ref().expect("rules").verdict(), "block");
    assert_eq!(
        r.history.ran_commands,
        [
            "echo original command",
            "rm -rf build/",
            "echo secret output here",
            "cd src && pwd",
            "ls src"
        ]
    );
    // The second Stop's hook said nothing: its clean stop_hook_summary is
    // not kept by the loader.
    assert!(r.recorded.is_empty(), "{:?}", r.recorded);
}

#[test]
fn without_rules_there_is_no_evaluation_and_bad_at_says_what_exists() {
    let s = session("hooks_c2_exit2");
    let r = replay(&s, EventName::PreToolUse, &At::Last, None).expect("replay");
    assert!(r.evaluation.is_none());
    let err = replay(&s, EventName::PreToolUse, &At::parse("toolu_nothing"), None)
        .expect_err("names nothing");
    assert!(err.to_string().starts_with("toolu_nothing names nothing in this session (no tool_use_id or line uuid \"toolu_nothing\"; tool calls: "), "{err}");
}

#[test]
fn the_prefilter_skips_only_what_no_rule_can_match() {
    use hookscope_core::hooks::replay::could_match;
    let bash = RuleSet::parse(
        "[[rules]]\nid = \"b\"\nevents = \"PreToolUse\"\ntool = \"Bash|Edit\"\naction = \"allow\"\n",
        "r.toml",
    )
    .expect("rules");
    let line = |name: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","name":"{name}"}}]}}}}"#
        )
    };
    // Aliases (Execute for Bash), forward aliases (apply_patch for Edit),
    // MCP suffixes and MCP_BEHAVES_LIKE segments are all found.
    for name in [
        "Bash",
        "Execute",
        "exec_command",
        "apply_patch",
        "mcp__srv__Edit",
        "mcp__cc__ccx_code_edit",
    ] {
        assert!(
            could_match(&bash, &[line("Read").as_bytes(), line(name).as_bytes()]),
            "{name}"
        );
    }
    assert!(!could_match(
        &bash,
        &[line("Read").as_bytes(), line("Grep").as_bytes()]
    ));
    assert!(!could_match(&bash, &[]));
    // A rule without a tool spec can match any session.
    let stop = RuleSet::parse(
        "[[rules]]\nid = \"s\"\nevents = \"Stop\"\naction = \"context\"\nreason = \"r\"\n",
        "r.toml",
    )
    .expect("rules");
    assert!(could_match(&stop, &[]));
    // input_contains with plain values: one must occur in the bytes.
    let prod = RuleSet::parse(
        "[[rules]]\nid = \"p\"\nevents = \"PreToolUse\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\ninput_contains = [\"prod-db\", \"live-db\"]\n",
        "r.toml",
    )
    .expect("rules");
    assert!(!could_match(&prod, &[br#"{"host":"staging-db"}"#]));
    assert!(could_match(&prod, &[br#"{"host":"live-db.internal"}"#]));
    // A value JSON may escape (a quote) is not used as a needle.
    let quoted = RuleSet::parse(
        "[[rules]]\nid = \"q\"\nevents = \"PreToolUse\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\ninput_contains = 'say \"hi\"'\n",
        "r.toml",
    )
    .expect("rules");
    assert!(could_match(&quoted, &[br#"{"command":"say \"hi\""}"#]));
}

/// The session filter's per-rule needles: a `prompt` regex's literal in
/// either ASCII case (cut at `k` and `s`, which a case-insensitive match
/// also finds as U+212A and U+017F), a `touched_file` glob's literal runs;
/// a glob with a class or an alternation, and `skip_if`, never narrow.
#[test]
fn the_session_filter_says_per_rule_which_can_match() {
    use hookscope_core::hooks::replay::SessionFilter;
    let rules = RuleSet::parse(
        r#"
[[rules]]
id = "deploy"
events = "UserPromptSubmit"
action = "context"
reason = "r"
[rules.only_if]
prompt = 'deploy\s+now'

[[rules]]
id = "keys"
events = "UserPromptSubmit"
action = "context"
reason = "r"
[rules.only_if]
prompt = '\bkeys\b'

[[rules]]
id = "src"
events = "Stop"
action = "context"
reason = "r"
[rules.only_if]
touched_file = ["src/**/*.rs", "lib/*.py"]

[[rules]]
id = "braces"
events = "Stop"
action = "context"
reason = "r"
[rules.only_if]
touched_file = "{src,lib}/**"

[[rules]]
id = "skip-only"
events = "Stop"
action = "context"
reason = "r"
[rules.skip_if]
prompt = 'never'
"#,
        "r.toml",
    )
    .expect("rules");
    let filter = SessionFilter::new(&rules);
    let p = |bytes: &str| filter.possible(&[bytes.as_bytes()]);
    assert_eq!(p(""), [false, false, false, true, true]);
    assert_eq!(
        p(r#"{"text":"DEPLOY  Now"}"#),
        [true, false, false, true, true]
    );
    // The literal every match starts with is "deploy" (the `\s+` after it
    // ends the prefix): "now" alone is not enough, "deploy" alone is.
    assert!(!p(r#"{"text":"ship it now"}"#)[0]);
    assert!(p(r#"{"text":"deploy later"}"#)[0]);
    // The Kelvin sign: `(?i)keys` matches "\u{212A}eys"; the piece is "ey".
    let rule = RuleSet::parse(
        "[[rules]]\nid = \"k\"\nevents = \"UserPromptSubmit\"\naction = \"context\"\nreason = \"r\"\n[rules.only_if]\nprompt = '\\bkeys\\b'\n",
        "r.toml",
    )
    .expect("rules");
    let payload = serde_json::json!({
        "hook_event_name": "UserPromptSubmit",
        "session_id": "s",
        "prompt": "\u{212A}eys",
    });
    let history = hookscope_core::hooks::rules::History::default();
    let subject = hookscope_core::hooks::rules::Subject::new(&payload, &history);
    assert!(rule.rules[0].only_if[0].test(&subject).is_ok());
    assert!(p("\u{212A}eys")[1]);
    assert!(p("KEYS")[1]);
    assert!(p(r#"{"file_path":"/w/src/a/b.rs"}"#)[2]);
    assert!(p(r#"{"file_path":"/w/lib/x.py"}"#)[2]);
    assert!(!p(r#"{"file_path":"/w/lib/x.rs"}"#)[2]);
}

#[test]
fn backtest_of_one_real_session_counts_its_blocks() {
    use hookscope_core::hooks::replay::backtest;
    let s = session("hooks_c2_exit2");
    let bt = backtest(std::slice::from_ref(&s), &example());
    assert_eq!(bt.sessions, 1);
    let rm = &bt.rules[0];
    assert_eq!(rm.id, "no-rm-rf");
    assert_eq!(rm.counts.get("block"), Some(&1));
    assert_eq!(
        rm.examples[0].tool_use_id.as_deref(),
        Some("toolu_01GFEgALJm405nI2WctBocud")
    );
    assert_eq!(rm.examples[0].summary, "Bash rm -rf build/");
}

/// The prefiltered backtest (could_match + line filter) against loading and
/// evaluating every session of `tests/corpus`: same sessions, tallies,
/// examples and combined counts.
fn assert_prefilter_is_exact(rules: &RuleSet) -> (hookscope_core::hooks::replay::Backtest, usize) {
    use hookscope_core::hooks::replay::{Prefilter, backtest_refs_with};
    let found = hookscope_core::transcript::discover(&[PathBuf::from(CORPUS)]).expect("discover");
    let mut refs = found.sessions;
    refs.sort_by(|a, b| a.path.cmp(&b.path));
    let fast = backtest_refs_with(&refs, rules, &|_| {}, Prefilter::On);
    let full = backtest_refs_with(&refs, rules, &|_| {}, Prefilter::Off);
    // `evaluated` (the denominators) leaves out the sessions skipped
    // unloaded; everything else is the same.
    let strip = |bt: &hookscope_core::hooks::replay::Backtest| {
        let mut rules = bt.rules.clone();
        for t in &mut rules {
            t.evaluated = 0;
        }
        rules
    };
    assert_eq!(strip(&fast), strip(&full));
    for (f, o) in fast.rules.iter().zip(&full.rules) {
        assert!(f.evaluated <= o.evaluated, "{}", f.id);
    }
    assert_eq!(fast.combined, full.combined);
    assert_eq!(fast.sessions, full.sessions);
    assert_eq!(fast.unreadable, full.unreadable);
    assert_eq!(full.skipped, 0);
    (fast, full.events)
}

#[test]
fn prefiltered_backtest_equals_full_on_the_corpus_example_rules() {
    use hookscope_core::hooks::replay::LineFilter;
    let rules = example();
    // Every rule of the example is a PreToolUse rule with a tool spec.
    assert!(LineFilter::new(&rules).is_some());
    let (fast, full_events) = assert_prefilter_is_exact(&rules);
    // README "Backtest": 7 blocks (the rm -rf build/ calls, Droid's
    // included), 2 allows (a2105fb9's `git status --short`,
    // hooks_c8_outcomes' `git log --oneline -2`).
    assert_eq!(fast.combined.get("block"), Some(&7));
    assert_eq!(fast.combined.get("allow"), Some(&2));
    assert!(
        fast.events < full_events,
        "{} vs {full_events}",
        fast.events
    );
}

/// A set with a rule the line filter cannot narrow (a Stop rule) beside a
/// narrowed one: where the Stop rule may match, the session is loaded and
/// its candidate calls come from its loaded calls; where it cannot (its
/// `prompt` needle occurs nowhere), the lines are read for candidates and
/// a session without one is skipped, exactly as with the narrowed rule
/// alone. Both give what loading every session gives.
#[test]
fn a_rule_left_whole_beside_a_narrowed_one_changes_no_verdict() {
    let narrowed = "[[rules]]\nid = \"rm\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"r\"\n[rules.only_if]\nprogram = \"rm\"\n";
    let alone = RuleSet::parse(narrowed, "r.toml").expect("rules");
    let with = |prompt: &str| {
        RuleSet::parse(
            &format!("{narrowed}[[rules]]\nid = \"s\"\nevents = \"Stop\"\naction = \"block\"\nreason = \"r\"\n[rules.only_if]\nprompt = '{prompt}'\n"),
            "r.toml",
        )
        .expect("rules")
    };
    let (alone_bt, _) = assert_prefilter_is_exact(&alone);
    // A prompt no session holds: the same sessions skipped as the rm rule
    // alone, the same verdicts.
    let (never, _) = assert_prefilter_is_exact(&with("zqxjzqxj"));
    assert_eq!(never.skipped, alone_bt.skipped);
    assert_eq!(never.rules[0], alone_bt.rules[0]);
    assert!(alone_bt.skipped > 0);
    assert_eq!(alone_bt.combined.get("block"), Some(&7));
    // A prompt every session may hold: nothing skipped by the rm rule's
    // lines, its verdicts unchanged.
    let (always, _) = assert_prefilter_is_exact(&with("."));
    assert_eq!(always.rules[0].counts, alone_bt.rules[0].counts);
    assert_eq!(always.rules[0].examples, alone_bt.rules[0].examples);
}

/// Each candidate call is tested against what the rule reads of the call
/// itself: a `file_path` glob, relative to a `cwd` the filter does not know
/// (`src/**` holds for `/path/to/Demo/todo-app/src/hooks/useTodos.ts` when
/// the cwd is `…/todo-app`), and a rule with no tool spec at all
/// (`file_path = "*.md"` on PreToolUse and PermissionRequest). Sessions
/// whose calls cannot match either are skipped unloaded; the verdicts are
/// those of loading every session (corpus: 16 contexts on Writes under a
/// `src/`, 28 warns on `.md` files; 15 of 36 sessions read).
#[test]
fn the_line_prefilter_tests_a_calls_file_path_for_any_cwd() {
    let rules = RuleSet::parse(
        r#"
[[rules]]
id = "src-rel"
events = "PreToolUse"
tool = "Edit|Write|MultiEdit"
action = "context"
reason = "r"
[rules.only_if]
file_path = "src/**"
[[rules]]
id = "any-tool-md"
events = ["PreToolUse", "PermissionRequest"]
action = "warn"
reason = "r"
[rules.only_if]
file_path = "*.md"
"#,
        "fp.toml",
    )
    .expect("rules");
    let (fast, full_events) = assert_prefilter_is_exact(&rules);
    assert_eq!(fast.rules[0].counts.get("context"), Some(&16));
    assert_eq!(fast.rules[1].counts.get("warn"), Some(&28));
    assert_eq!((fast.sessions, fast.skipped), (36, 21));
    assert_eq!(fast.events, 51);
    assert!(full_events > 51);
}

/// Prefilters built once and run one session at a time (the TUI's
/// backtest) give, session by session, what `backtest_refs` gives for that
/// session alone; merged, the whole run's counts (the example set over the
/// corpus: 7 blocks, 2 allows, 2 contexts; Codex and OpenCode left out).
#[test]
fn prefilters_built_once_equal_backtest_refs_per_session() {
    use hookscope_core::hooks::replay::{Backtest, Prefilters, backtest_refs};
    let rules = example();
    let found = hookscope_core::transcript::discover(&[PathBuf::from(CORPUS)]).expect("discover");
    let filters = Prefilters::new(&rules);
    let mut merged = Backtest::new(&rules);
    for r in &found.sessions {
        let one = filters.backtest(r, &rules);
        assert_eq!(
            one,
            backtest_refs(std::slice::from_ref(r), &rules, &|_| {}),
            "{}",
            r.path.display()
        );
        merged.merge(one);
    }
    let whole = backtest_refs(&found.sessions, &rules, &|_| {});
    assert_eq!(merged.combined, whole.combined);
    assert_eq!(merged.left_out, whole.left_out);
    assert_eq!(
        (merged.sessions, merged.skipped),
        (whole.sessions, whole.skipped)
    );
    assert_eq!(merged.combined.get("block"), Some(&7));
    assert_eq!(merged.combined.get("allow"), Some(&2));
    assert_eq!(merged.combined.get("context"), Some(&2));
}

#[test]
fn prefiltered_backtest_equals_full_with_history_rules() {
    use hookscope_core::hooks::replay::LineFilter;
    // Narrowable (tool specs, a command regex) and history conditions.
    let narrow = RuleSet::parse(
        r#"
[[rules]]
id = "rm-after-edit"
events = ["PreToolUse", "PermissionRequest"]
tool = "Bash"
action = "warn"
reason = "rm after an edit"
[rules.only_if]
command = 'rm\s'
touched_file = "**"

[[rules]]
id = "edit-after-ls"
events = "PreToolUse"
tool = "Edit|Write"
action = "context"
reason = "listed first"
[rules.only_if]
ran_command = "ls"
"#,
        "narrow.toml",
    )
    .expect("rules");
    assert!(LineFilter::new(&narrow).is_some());
    let (fast, _) = assert_prefilter_is_exact(&narrow);
    assert!(fast.rules.iter().any(|r| !r.counts.is_empty()));
    // A rule without a tool spec cannot be narrowed: whole sessions.
    let wide = RuleSet::parse(
        r#"
[[rules]]
id = "stop-after-rm"
events = "Stop"
action = "warn"
reason = "an rm ran"
[rules.only_if]
ran_command = "rm"
stop_hook_active = false
"#,
        "wide.toml",
    )
    .expect("rules");
    assert!(LineFilter::new(&wide).is_none());
    assert_prefilter_is_exact(&wide);
}

/// Rules on prompts and stops (no tool spec) narrowed by their `prompt`
/// and `touched_file` needles: sessions without them are skipped, and the
/// tallies are those of loading every session.
#[test]
fn prefiltered_backtest_equals_full_with_prompt_rules() {
    let rules = RuleSet::parse(
        r#"
[[rules]]
id = "fix-then-stop"
events = "Stop|SubagentStop"
action = "block"
reason = "r"
[rules.only_if]
prompt = '\b(fix|implement|refactor|run|list)\b'
touched_file = ["*.py", "*.rs", "*.txt", "*.md"]

[[rules]]
id = "prompts"
events = "UserPromptSubmit"
action = "context"
reason = "r"
[rules.only_if]
prompt = 'hello|print|file'
"#,
        "prompts.toml",
    )
    .expect("rules");
    let (fast, full_events) = assert_prefilter_is_exact(&rules);
    assert!(fast.skipped > 0, "{}", fast.skipped);
    assert!(fast.events < full_events);
    assert!(
        fast.rules.iter().all(|r| !r.counts.is_empty()),
        "{:?}",
        fast.rules.iter().map(|r| &r.counts).collect::<Vec<_>>()
    );
}

#[test]
fn line_filter_picks_candidate_calls_and_refuses_a_torn_line() {
    use hookscope_core::hooks::replay::LineFilter;
    use std::collections::HashSet;
    let rules = RuleSet::parse(
        r#"
[[rules]]
id = "push"
events = "PreToolUse"
tool = "Bash"
action = "block"
reason = "no"
[rules.only_if]
command = 'git\s+push'
"#,
        "t.toml",
    )
    .expect("rules");
    let f = LineFilter::new(&rules).expect("narrowable");
    let line = |id: &str, name: &str, cmd: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","id":"{id}","name":"{name}","input":{{"command":"{cmd}"}}}}]}}}}"#
        )
    };
    let file = [
        line("t1", "Bash", "git push"),
        line("t2", "Bash", "ls"),       // no `git`
        line("t3", "Read", "git push"), // not Bash
        line("t4", "Bash", "cd x && git  push -f"),
    ]
    .join("\n");
    let mut ids = HashSet::new();
    assert!(f.candidate_ids(file.as_bytes(), &mut ids));
    let mut got: Vec<&str> = ids.iter().map(String::as_str).collect();
    got.sort();
    assert_eq!(got, ["t1", "t4"]);
    // A candidate line cut short does not parse: the caller loads it all.
    let whole = line("t5", "Bash", "git push");
    let torn = &whole[..whole.len() - 4];
    let mut ids = HashSet::new();
    assert!(!f.candidate_ids(torn.as_bytes(), &mut ids));
    // A regex without a usable literal (`.` first) gives no needle beyond
    // the tool spec, but each Bash call's command is tested against it:
    // `ls` (t2) cannot match, and `Read` lines stay out.
    let dot = RuleSet::parse(
        "[[rules]]\nid = \"d\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"x\"\n[rules.only_if]\ncommand = '.+push'\n",
        "d.toml",
    )
    .expect("rules");
    let f = LineFilter::new(&dot).expect("tool spec narrows");
    let mut ids = HashSet::new();
    assert!(f.candidate_ids(file.as_bytes(), &mut ids));
    let mut got: Vec<&str> = ids.iter().map(String::as_str).collect();
    got.sort();
    assert_eq!(got, ["t1", "t4"]);
    // A needle in the line's envelope (`gitBranch`) or in another block does
    // not make a call a candidate: the groups are checked on the block.
    let git = RuleSet::parse(
        "[[rules]]\nid = \"g\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"x\"\n[rules.only_if]\ninput_contains = \"git\"\n",
        "g.toml",
    )
    .expect("rules");
    let f = LineFilter::new(&git).expect("narrows");
    let envelope = r#"{"type":"assistant","gitBranch":"main","message":{"content":[{"type":"text","text":"git"},{"type":"tool_use","id":"e1","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"e2","name":"Bash","input":{"command":"git log"}}]}}"#;
    let mut ids = HashSet::new();
    assert!(f.candidate_ids(envelope.as_bytes(), &mut ids));
    assert_eq!(ids.into_iter().collect::<Vec<_>>(), ["e2"]);
}

/// Hostile candidate lines: the filter reads only a line's
/// `message.content` blocks, and any line it cannot read as one JSON object
/// of unique members (an array, a duplicate `message`, a block `input` that
/// does not parse as a value) makes it refuse the file (the session is then
/// read whole); lines whose `message` or `content` is not an object or an
/// array, or whose blocks are not objects, hold no call.
#[test]
fn line_filter_refuses_lines_it_cannot_read_and_skips_odd_shapes() {
    use hookscope_core::hooks::replay::LineFilter;
    use std::collections::HashSet;
    let rules = RuleSet::parse(
        "[[rules]]\nid = \"rm\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"x\"\n[rules.only_if]\nprogram = \"rm\"\n",
        "r.toml",
    )
    .expect("rules");
    let f = LineFilter::new(&rules).expect("narrows");
    let block = r#"{"type":"tool_use","id":"ok1","name":"Bash","input":{"command":"rm -rf x"}}"#;
    let ids_of = |line: &str| {
        let mut ids = HashSet::new();
        let ok = f.candidate_ids(line.as_bytes(), &mut ids);
        let mut v: Vec<String> = ids.into_iter().collect();
        v.sort();
        (ok, v)
    };
    let good = format!(r#"{{"type":"assistant","message":{{"content":[{block}]}}}}"#);
    assert_eq!(ids_of(&good), (true, vec!["ok1".to_string()]));
    for refused in [
        format!(r#"[{{"message":{{"content":[{block}]}}}}, "tool_use"]"#),
        format!(r#"{{"message":{{"content":[]}},"message":{{"content":[{block}]}}}}"#),
        r#"{"message":{"content":[{"type":"tool_use","id":"n1","name":"Bash","input":{"command":"rm x","n":1e400}}]}}"#.to_string(),
    ] {
        assert!(!ids_of(&refused).0, "{refused}");
    }
    for nothing in [
        r#"{"message":"tool_use rm"}"#,
        r#"{"message":{"content":"tool_use rm"}}"#,
        r#"{"message":{"content":["tool_use", 3, null]}}"#,
        r#"{"message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"rm"}}]}}"#,
        r#"{"message":{"content":[{"type":"tool_use","id":"ls1","name":"Bash","input":{"command":"ls"}}]}}"#,
    ] {
        assert_eq!(ids_of(nothing), (true, Vec::<String>::new()), "{nothing}");
    }
    // A name that is not a string, on a line that holds the needles: kept
    // (the loader decides what it is).
    let odd = r#"{"note":"Bash rm","message":{"content":[{"type":"tool_use","id":"q1","name":7,"input":{}}]}}"#;
    assert_eq!(ids_of(odd), (true, vec!["q1".to_string()]));
}

/// Inside a subagent the `prompt` condition sees the subagent's own opening
/// prompt (its file's first user message, line 1 of
/// agent-ab7c2c7a0f676372d.jsonl), not the main turn's.
#[test]
fn a_subagent_call_sees_the_subagents_prompt() {
    let s = session("hooks_c5_stop_block");
    let rules = RuleSet::parse(
        "[[rules]]\nid = \"sub\"\nevents = \"PreToolUse\"\naction = \"warn\"\nreason = \"x\"\n[rules.only_if]\nprompt = 'quick check of the src'\n",
        "p.toml",
    )
    .expect("rules");
    let r = replay(
        &s,
        EventName::PreToolUse,
        &At::ToolUseId("toolu_01R0X233Xv6jvDxKQQg7zv6P".into()),
        Some(&rules),
    )
    .expect("replays");
    assert_eq!(r.payload.json["agent_id"], "ab7c2c7a0f676372d");
    assert_eq!(
        r.history.turn_prompt.as_deref(),
        Some("[sub:hooksub] Run a quick check of the src directory.")
    );
    assert_eq!(r.evaluation.expect("rules").verdict(), "warn");
    // A main-thread call of the same turn keeps the main prompt.
    let main = replay(
        &s,
        EventName::PreToolUse,
        &At::ToolUseId("toolu_01032bRSkqY5yqH4ZPXeQNl0".into()),
        Some(&rules),
    )
    .expect("replays");
    assert_ne!(main.history.turn_prompt, r.history.turn_prompt);
    assert_eq!(main.evaluation.expect("rules").verdict(), "none");
}

/// A session the prefilter cannot read (here a subagent file that became a
/// folder; also a file over its 64 MB cap) is loaded without it and tallied
/// as without the prefilter; a session whose main file is gone is
/// unreadable and named.
#[test]
fn backtest_loads_what_the_prefilter_cannot_read_and_names_the_unreadable() {
    use hookscope_core::hooks::replay::{Prefilter, backtest_refs_with};
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("projects").join("-home-dev-work");
    std::fs::create_dir_all(&project).expect("mkdir");
    let source = Path::new("tests/corpus/real-cc-2.1.332/hooks/projects");
    let main = std::fs::read_dir(source)
        .expect("corpus")
        .flatten()
        .flat_map(|p| std::fs::read_dir(p.path()).into_iter().flatten().flatten())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("a session");
    let copy = project.join(main.file_name().expect("name"));
    std::fs::copy(&main, &copy).expect("copy");
    let found =
        hookscope_core::transcript::discover(&[dir.path().to_path_buf()]).expect("discover");
    assert_eq!(found.sessions.len(), 1);
    let mut refs = found.sessions.clone();
    let odd = dir.path().join("agent-gone.jsonl");
    std::fs::create_dir(&odd).expect("a folder where a file was");
    refs[0].subagent_files.push(odd);
    let rules = example();
    let on = backtest_refs_with(&refs, &rules, &|_| {}, Prefilter::On);
    let off = backtest_refs_with(&refs, &rules, &|_| {}, Prefilter::Off);
    assert_eq!(on.unreadable, 0);
    assert_eq!(on.rules, off.rules);
    assert_eq!(on.events, off.events);
    assert!(on.events > 0);

    std::fs::remove_file(&copy).expect("rm");
    let gone = backtest_refs_with(&found.sessions, &rules, &|_| {}, Prefilter::On);
    assert_eq!(gone.unreadable, 1);
    assert_eq!(gone.unreadable_files.len(), 1);
    assert!(
        gone.unreadable_files[0].starts_with(&format!("{}: ", copy.display())),
        "{:?}",
        gone.unreadable_files
    );
}

/// A `command` rule matches the words the shell makes of a command, so the
/// line prefilter must not skip a call whose bytes hold the words only
/// once quotes, escapes or expansions are read: `r''m -rf` is blocked
/// with the prefilter as without it (the evasions the example rule set's
/// tests name).
/// The c2 session with its `rm -rf build/` call's command replaced by
/// `command` (as written in the JSON line), backtested with the
/// prefilter on and off.
fn c2_backtested_with_command(
    rules: &RuleSet,
    command: &str,
) -> (
    hookscope_core::hooks::replay::Backtest,
    hookscope_core::hooks::replay::Backtest,
) {
    use hookscope_core::hooks::replay::{Prefilter, backtest_refs_with};
    let source = Path::new(REAL_CC).join(
        "hooks_c2_exit2/projects/-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl",
    );
    let text = std::fs::read_to_string(&source).expect("corpus");
    let written = r#""command":"rm -rf build/""#;
    assert_eq!(text.matches(written).count(), 1);
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("projects").join("-home-dev-work");
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::write(
        project.join(source.file_name().expect("name")),
        text.replace(written, command),
    )
    .expect("write");
    let found =
        hookscope_core::transcript::discover(&[dir.path().to_path_buf()]).expect("discover");
    (
        backtest_refs_with(&found.sessions, rules, &|_| {}, Prefilter::On),
        backtest_refs_with(&found.sessions, rules, &|_| {}, Prefilter::Off),
    )
}

#[test]
fn the_line_prefilter_narrows_on_a_program_name() {
    let rules = RuleSet::parse(
        r#"
[[rules]]
id = "no-rm"
events = "PreToolUse"
tool = "Bash"
action = "block"
reason = "no"
[rules.only_if]
program = "rm"
"#,
        "one.toml",
    )
    .expect("loads");
    // (command as in the JSON line, blocks, PreToolUse firings evaluated
    // with the prefilter on: that call's when it runs rm, of 12; the
    // session's `sh -c '…'`, whose quotes the shell rewrites, holds the
    // needle's bytes' escape but its calls run no rm, so it is not a
    // candidate; with no candidate the session is skipped unloaded)
    for (command, blocks, evaluated) in [
        (r#""command":"rm -rf build/""#, 1, 1),
        (r#""command":"/bin/rm -rf build/""#, 1, 1),
        (r#""command":"sudo -n rm -rf build/""#, 1, 1),
        (r#""command":"r''m -rf build/""#, 1, 1),
        (r#""command":"\\rm -rf build/""#, 1, 1),
        (r#""command":"ls build/""#, 0, 0),
    ] {
        let (on, off) = c2_backtested_with_command(&rules, command);
        assert_eq!(on.rules[0].counts, off.rules[0].counts, "{command}");
        assert_eq!(
            off.rules[0].counts.get("block").copied().unwrap_or(0),
            blocks,
            "{command}"
        );
        assert_eq!(off.events, 12, "{command}");
        assert_eq!(on.events, evaluated, "{command}");
    }
}

#[test]
fn the_line_prefilter_keeps_commands_the_shell_rewrites() {
    let rules = RuleSet::parse(
        r#"
[[rules]]
id = "no-rm-rf"
events = "PreToolUse"
tool = "Bash"
action = "block"
reason = "no"
[rules.only_if]
command = '\brm\s+-rf\b'
"#,
        "one.toml",
    )
    .expect("loads");
    // Each as it is in the JSON line; the block each must get (with the
    // prefilter off) is checked too for the plain quoting ones.
    for (command, blocks) in [
        (r#""command":"rm -rf build/""#, Some(1)),
        (r#""command":"r''m -rf build/""#, Some(1)),
        (r#""command":"r\\m -rf build/""#, Some(1)),
        (r#""command":"\"r\"m -rf build/""#, Some(1)),
        (r#""command":"X=rm; $X -rf build/""#, None),
        (r#""command":"`echo rm` -rf build/""#, None),
    ] {
        let (on, off) = c2_backtested_with_command(&rules, command);
        // `evaluated` leaves out a session skipped unloaded (no call can
        // run rm -rf: the last two); everything else is the same.
        let strip = |bt: &hookscope_core::hooks::replay::Backtest| {
            let mut rules = bt.rules.clone();
            for t in &mut rules {
                t.evaluated = 0;
            }
            rules
        };
        assert_eq!(strip(&on), strip(&off), "{command}");
        assert_eq!(on.combined, off.combined, "{command}");
        assert_eq!(on.skipped, usize::from(blocks.is_none()), "{command}");
        if let Some(n) = blocks {
            assert_eq!(off.rules[0].counts.get("block"), Some(&n), "{command}");
        }
    }
}

/// A command written with `\u` escapes of plain ASCII (no agent writes
/// these; a hostile or unusual writer may) reads `rm -rf build/` once
/// parsed: the byte filters cannot see the needle, so the session is read
/// whole and the block is counted with the prefilter on as off, for a
/// `program`, a `command` and an `input_contains` rule (the line filter's
/// and the session filter's needles).
#[test]
fn the_byte_filters_read_a_session_whose_bytes_escape_plain_ascii() {
    for only_if in [
        r#"program = "rm""#,
        r#"command = '\brm\s+-rf\b'"#,
        r#"input_contains = "rm -rf""#,
    ] {
        let rules = RuleSet::parse(
            &format!(
                "[[rules]]\nid = \"no-rm\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"no\"\n[rules.only_if]\n{only_if}\n"
            ),
            "one.toml",
        )
        .expect("loads");
        for command in [
            r#""command":"\u0072m -rf build/""#,
            r#""command":"r\u006D -rf build/""#,
            r#""command":"rm \u002drf build/""#,
        ] {
            let (on, off) = c2_backtested_with_command(&rules, command);
            assert_eq!(
                off.rules[0].counts.get("block"),
                Some(&1),
                "{only_if} {command}"
            );
            assert_eq!(on.rules, off.rules, "{only_if} {command}");
            assert_eq!(on.skipped, 0, "{only_if} {command}");
        }
    }
}

// ---- hooks_c8_outcomes: the backtest against what the hooks did ----------

const C8: &str = "tests/corpus/real-cc-2.1.332/hooks_c8_outcomes";

/// Every event the rebuilt payloads cover, in one rule that matches them
/// all (`context` is taken on every event).
const EVERY_EVENT: &str = r#"
[[rules]]
id = "every-event"
events = ["PreToolUse","PermissionRequest","PostToolUse","PostToolUseFailure","PostToolBatch","UserPromptSubmit","Stop","SubagentStart","SubagentStop","PreCompact","PostCompact","SessionStart","SessionEnd","TaskCreated","TaskCompleted","Notification","CwdChanged","InstructionsLoaded"]
action = "context"
reason = "seen"
"#;

fn backtest_of(dir: &str, rules: &RuleSet) -> hookscope_core::hooks::replay::Backtest {
    let found = hookscope_core::transcript::discover(&[PathBuf::from(dir)]).expect("discover");
    let mut refs = found.sessions;
    refs.sort_by(|a, b| a.path.cmp(&b.path));
    hookscope_core::hooks::replay::backtest_refs(&refs, rules, &|_| {})
}

/// The lines of one capture file of c8 (`hooks/hooks_c8_outcomes/*.jsonl`).
fn c8_capture_lines(name: &str) -> Vec<serde_json::Value> {
    let path = Path::new(C8).join("hooks/hooks_c8_outcomes").join(name);
    std::fs::read_to_string(path)
        .expect("capture")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

/// `replay --all` over hooks_c8_outcomes finds every hook event the
/// captures show fired, per event kind the same count as the `capture`
/// handler (registered on every event with matcher `*`) saw; the two kinds
/// it does not rebuild (MessageDisplay, FileChanged: not in the
/// transcript, docs/payloads.md "Hook payloads") are the only ones missing.
#[test]
fn c8_backtest_finds_every_captured_event() {
    let rules = RuleSet::parse(EVERY_EVENT, "every-event.toml").expect("loads");
    let bt = backtest_of(C8, &rules);
    let mut captured: std::collections::BTreeMap<String, usize> = Default::default();
    let dir = Path::new(C8).join("hooks/hooks_c8_outcomes");
    for entry in std::fs::read_dir(&dir).expect("captures") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.starts_with('_') {
            continue;
        }
        for v in c8_capture_lines(&name) {
            if v["handler"] == "capture" {
                *captured
                    .entry(v["event"].as_str().expect("event").to_string())
                    .or_default() += 1;
            }
        }
    }
    let not_rebuilt: Vec<&String> = captured
        .keys()
        .filter(|e| !bt.by_event.contains_key(*e))
        .collect();
    assert_eq!(not_rebuilt, ["FileChanged", "MessageDisplay"]);
    captured.retain(|e, _| bt.by_event.contains_key(e));
    assert_eq!(bt.by_event, captured);
    // The README's counts, for the record.
    assert_eq!(bt.by_event.get("PreToolUse"), Some(&10));
    assert_eq!(bt.by_event.get("UserPromptSubmit"), Some(&3));
    assert_eq!(bt.by_event.get("SessionStart"), Some(&3));
}

/// The behaviour handlers of c8 as a rule set: each of its blocks is one a
/// hook did then (`_responses.jsonl`: the `ask` on `git push`, the
/// PostToolUse block on `git commit`, the exit 2 on the DROP TABLE prompt,
/// the Stop block), except the Stop of run 3, which the real stop_lint let
/// through only because it had blocked once in the session already (a
/// marker file the rules cannot see): that one is new.
#[test]
fn c8_blocks_then_and_new_agree_with_the_responses() {
    let rules =
        RuleSet::load(Path::new("tests/fixtures/rules/c8_mirror.toml")).expect("mirror loads");
    let bt = backtest_of(C8, &rules);
    // What the hooks answered that had a block's effect, per event.
    let mut then: std::collections::BTreeMap<String, usize> = Default::default();
    for r in c8_capture_lines("_responses.jsonl") {
        let stdout = r["stdout"].as_str().unwrap_or("");
        let json: serde_json::Value = serde_json::from_str(stdout).unwrap_or_default();
        let decision = json["hookSpecificOutput"]["permissionDecision"].as_str();
        let blocks = r["exit"] == 2
            || json["decision"] == "block"
            || matches!(decision, Some("deny" | "ask"));
        if blocks {
            *then
                .entry(r["event"].as_str().expect("event").to_string())
                .or_default() += 1;
        }
    }
    assert_eq!(
        then,
        [
            ("PostToolUse".to_string(), 1),
            ("PreToolUse".to_string(), 1),
            ("Stop".to_string(), 1),
            ("UserPromptSubmit".to_string(), 1)
        ]
        .into()
    );
    let tally = |id: &str| {
        let t = bt.rules.iter().find(|t| t.id == id).expect("rule");
        (
            t.counts.get("block").copied().unwrap_or(0),
            t.blocks_then,
            t.blocks_new,
        )
    };
    assert_eq!(tally("push_ask"), (1, then["PreToolUse"], 0));
    assert_eq!(tally("commit_block"), (1, then["PostToolUse"], 0));
    assert_eq!(tally("prompt_gate"), (1, then["UserPromptSubmit"], 0));
    assert_eq!(tally("stop_lint"), (2, then["Stop"], 1));
    let stop = &bt
        .rules
        .iter()
        .find(|t| t.id == "stop_lint")
        .expect("rule")
        .examples;
    assert_eq!(stop[0].at.as_deref(), Some("line:57"));
    assert_eq!(stop[0].blocked_then, Some(true));
    assert_eq!(stop[1].at.as_deref(), Some("line:97"));
    assert_eq!(stop[1].blocked_then, Some(false));
    let rewrites = bt
        .rules
        .iter()
        .find(|t| t.id == "bash_rewrite")
        .expect("rule");
    assert_eq!(rewrites.counts.get("rewrite"), Some(&3));
}

/// Every address a backtest prints (`Example::at`: a tool_use_id, `line:N`,
/// `line:agent-<id>:N`) is accepted back by `--at` and reaches an event of
/// the same kind anchored at the same place, for every event of every
/// Claude Code and Droid session of the corpus (uuid-less hand-made lines
/// included).
#[test]
fn every_event_a_backtest_lists_is_reached_by_its_at() {
    // One rule per event, so that each keeps all of its examples (a
    // backtest keeps the first KEPT_EXAMPLES per rule and verdict).
    let events = EVERY_EVENT
        .lines()
        .find_map(|l| l.strip_prefix("events = "))
        .expect("events line");
    let names: Vec<String> = serde_json::from_str(events).expect("event list");
    let per_event: String = names
        .iter()
        .map(|e| {
            format!("[[rules]]\nid = \"{e}\"\nevents = \"{e}\"\naction = \"context\"\nreason = \"seen\"\n")
        })
        .collect();
    let rules = RuleSet::parse(&per_event, "every-event.toml").expect("loads");
    let found = hookscope_core::transcript::discover(&[PathBuf::from(CORPUS)]).expect("discover");
    let bt = hookscope_core::hooks::replay::backtest_refs(&found.sessions, &rules, &|_| {});
    assert!(bt.rules.iter().all(|t| t.examples_left_out == 0));
    let examples: Vec<&hookscope_core::hooks::replay::Example> =
        bt.rules.iter().flat_map(|t| &t.examples).collect();
    assert_eq!(examples.len(), bt.events, "every event is an example");
    let mut loaded: std::collections::HashMap<String, Session> = Default::default();
    let mut checked = 0;
    for ex in examples {
        let at = ex
            .at
            .as_deref()
            .unwrap_or_else(|| panic!("no --at for {ex:?}"));
        let (file, line) = ex.source.rsplit_once(':').expect("path:line");
        let session = loaded.entry(ex.session.clone()).or_insert_with(|| {
            let r = found
                .sessions
                .iter()
                .find(|s| {
                    hookscope_core::transcript::short_session_id(&s.id) == ex.session
                        && s.agent.as_str() != "codex"
                        && hookscope_core::hooks::events::rebuilds(s.agent)
                        && (std::fs::canonicalize(&s.path).is_ok_and(|p| p == Path::new(file))
                            || s.subagent_files.iter().any(|f| {
                                std::fs::canonicalize(f).is_ok_and(|p| p == Path::new(file))
                            })
                            || s.path.to_string_lossy() == file)
                })
                .unwrap_or_else(|| panic!("session of {ex:?}"));
            hookscope_core::transcript::load(r).expect("load")
        });
        let event: EventName = ex.event.parse().expect("event");
        let p = hookscope_core::hooks::events::payload(session, event, &At::parse(at))
            .unwrap_or_else(|e| panic!("{at} ({}): {e}", ex.source));
        assert_eq!(
            (
                p.source_path.to_string_lossy().into_owned(),
                p.source_line.to_string()
            ),
            (file.to_string(), line.to_string()),
            "{at}"
        );
        checked += 1;
    }
    // 1,375 events in the corpus's Claude Code and Droid sessions (the
    // rule names every rebuilt event; recounted by this walk).
    assert_eq!(checked, 1375);
}

/// A backtest keeps the first 1,000 examples per rule and verdict (in
/// session order) and counts the rest: the one rule naming every event
/// matches the corpus's 1,375 events, keeps 1,000 and counts 375 left out,
/// its count whole (before: all 1,375 kept, whatever the corpus size).
#[test]
fn a_backtest_keeps_the_first_thousand_examples_per_verdict() {
    let rules = RuleSet::parse(EVERY_EVENT, "every-event.toml").expect("loads");
    let found = hookscope_core::transcript::discover(&[PathBuf::from(CORPUS)]).expect("discover");
    let bt = hookscope_core::hooks::replay::backtest_refs(&found.sessions, &rules, &|_| {});
    let t = &bt.rules[0];
    assert_eq!(t.counts.get("context"), Some(&1375));
    assert_eq!(
        t.examples.len(),
        hookscope_core::hooks::replay::KEPT_EXAMPLES
    );
    assert_eq!(t.examples_left_out, 375);
}

/// A backtest assembles each event's history from one index per session,
/// each command line and file once, and only for the events whose rules
/// ask about it: its tallies equal evaluating every payload with the full
/// history of [`history_before`].
#[test]
fn backtest_history_equals_the_full_history_per_event() {
    use hookscope_core::hooks::events::all_payloads;
    use hookscope_core::hooks::replay::{backtest_session, history_before};
    use std::collections::BTreeMap;
    let rules = RuleSet::parse(
        r#"
[[rules]]
id = "touched-then-stop"
events = "Stop|SubagentStop"
action = "block"
reason = "r"
[rules.only_if]
touched_file = "**"
[rules.skip_if]
ran_command = ["echo"]

[[rules]]
id = "ran-echo"
events = "PreToolUse|Stop"
action = "warn"
reason = "r"
[rules.only_if]
ran_command = ["echo"]

[[rules]]
id = "prompt-words"
events = "PreToolUse|UserPromptSubmit"
action = "context"
reason = "r"
[rules.only_if]
prompt = '(?i)\b(run|use|write|read)\b'
"#,
        "history.toml",
    )
    .expect("loads");
    let mut fired = vec![0; rules.rules.len()];
    for scenario in [
        "hooks",
        "hooks_c2_exit2",
        "hooks_c5_stop_block",
        "hooks_c8_outcomes",
        "subagent",
        "tools",
    ] {
        let s = session(scenario);
        let bt = backtest_session(&s, &rules);
        let mut want: Vec<BTreeMap<String, usize>> = vec![BTreeMap::new(); rules.rules.len()];
        for event in [
            EventName::PreToolUse,
            EventName::Stop,
            EventName::SubagentStop,
            EventName::UserPromptSubmit,
        ] {
            for p in all_payloads(&s, event) {
                let eval = rules.evaluate(&p.json, &history_before(&s, &p));
                for ((w, re), n) in want.iter_mut().zip(&eval.rules).zip(&mut fired) {
                    if let Some(r) = &re.result {
                        let v = hookscope_core::hooks::rules::verdict(r);
                        *w.entry(v.to_string()).or_default() += 1;
                        *n += 1;
                    }
                }
            }
        }
        let got: Vec<BTreeMap<String, usize>> = bt.rules.iter().map(|t| t.counts.clone()).collect();
        assert_eq!(got, want, "{scenario}");
    }
    assert!(
        fired.iter().all(|&n| n > 0),
        "each rule fires in the corpus: {fired:?}"
    );
}
