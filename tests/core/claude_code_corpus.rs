//! Integration tests of the Claude Code loader against the shared corpus
//! (`tests/corpus`, see its SOURCES.md) and against broken input built in
//! temp files.
//!
//! Every expected number below was counted from the JSONL itself (python3 over
//! the raw lines, applying docs/transcripts.md#claude-code and the turn rules in `model::Turn`),
//! not copied from the loader's output. The comment above each test says what
//! was counted and where it is in the file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use hookscope_core::transcript::{
    Agent, DiscoverError, Event, Session, SubagentLayout, SubagentLink, claude_code::load_session,
    discover, load,
};

use crate::support::{corpus, corpus_dir, usage, write_file};

/// Discovers `dir` (relative to the corpus) and loads the session `id`, with
/// the subagent files discovery attached to it.
fn load_in(dir: &str, id: &str) -> Session {
    let found = discover(&[corpus(dir)]).expect("discover corpus dir");
    let session = found
        .sessions
        .iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("session {id} not discovered under {dir}"));
    load(session).expect("load session")
}

fn call_ids(session: &Session) -> Vec<&str> {
    session
        .tool_calls()
        .map(|c| c.tool_use_id.as_str())
        .collect()
}

fn call_names(session: &Session) -> Vec<&str> {
    session.tool_calls().map(|c| c.name()).collect()
}

fn error_ids(session: &Session) -> Vec<&str> {
    session
        .tool_calls()
        .filter(|c| c.is_error())
        .map(|c| c.tool_use_id.as_str())
        .collect()
}

fn prompt_lines(session: &Session) -> Vec<usize> {
    session.turns.iter().filter_map(|t| t.prompt_line).collect()
}

fn linked(session: &Session) -> usize {
    session
        .subagents
        .iter()
        .filter(|s| s.spawn_tool_use_id.is_some())
        .count()
}

/// (label, line) of every `Note` event of the main thread.
fn notes(session: &Session) -> Vec<(String, usize)> {
    session
        .turns
        .iter()
        .flat_map(|t| &t.events)
        .filter_map(|e| match e {
            Event::Note { label, line, .. } => Some((label.clone(), *line)),
            _ => None,
        })
        .collect()
}

fn rel(path: &Path) -> String {
    let root = corpus_dir();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

// ---------------------------------------------------------------------------
// The whole corpus
// ---------------------------------------------------------------------------

/// The corpus holds 26 Claude Code main transcripts (SOURCES.md inventory plus
/// real-cc-2.1.332). Everything else is Codex / Droid / OpenCode data, hook
/// captures (`hooks/<capture>/*.jsonl`), stream-json stdout and mock-request
/// logs, or subagent transcripts.
const CLAUDE_SESSIONS: &[&str] = &[
    "agent-sessions/Resources/Fixtures/stage0/agents/claude/large.jsonl",
    "agent-sessions/Resources/Fixtures/stage0/agents/claude/schema_drift.jsonl",
    "agent-sessions/Resources/Fixtures/stage0/agents/claude/small.jsonl",
    "agent-sessions/Resources/Fixtures/stage0/agents/claude/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl",
    "agentsview/internal/parser/testdata/claude/valid_session.jsonl",
    "cass/tests/fixtures/message_grouping/claude_session.jsonl",
    "ccusage/apps/ccusage/test/test-transcript.jsonl",
    "claude-code-log/test/test_data/edge_cases.jsonl",
    "claude-code-log/test/test_data/representative_messages.jsonl",
    "claude-code-log/test/test_data/session_b.jsonl",
    "claude-code-log/test/test_data/todowrite_examples.jsonl",
    "claude-code-transcripts/tests/sample_session.jsonl",
    "claude-code-viewer/mock-global-claude-dir/projects/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    "claude-code-viewer/mock-global-claude-dir/projects/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    "claude-code-viewer/mock-global-claude-dir/projects/sample-project/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
    "real-cc-2.1.332/compact/projects/-home-dev-work-hooks/a2105fb9-3595-4ebb-b172-ce1ef7565b67.jsonl",
    "real-cc-2.1.332/hooks/projects/-home-dev-work-hooks/0c04bd79-42b3-41bb-b257-006f349f008a.jsonl",
    "real-cc-2.1.332/hooks_c2_exit2/projects/-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl",
    "real-cc-2.1.332/hooks_c3_deny_json/projects/-home-dev-work-hooks-c3-deny-json/f887d501-79d2-484e-916a-82bc1a5c1146.jsonl",
    "real-cc-2.1.332/hooks_c5_stop_block/projects/-home-dev-work-hooks-c5-stop-block/c8435c6b-9aae-401c-ba5f-97def3faba72.jsonl",
    "real-cc-2.1.332/hooks_c6_prompt_context/projects/-home-dev-work-hooks-c6-prompt-context/7843a96e-cabd-49b8-9e61-24dd57f841d5.jsonl",
    "real-cc-2.1.332/hooks_c8_outcomes/projects/-home-dev-work-hooks-c8-outcomes/07535b09-1bbd-4e99-9cf4-3c8d232c7d4f.jsonl",
    "real-cc-2.1.332/subagent/projects/-home-dev-work-subagent/8bb2dece-a24f-43d4-80d6-3ee9a889b550.jsonl",
    "real-cc-2.1.332/tools/projects/-home-dev-work-tools/e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl",
    "sniffly/tests/mock-data/-Users-dev-dev-ai-music/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl",
    "sniffly/tests/mock-data/-Users-dev-dev-ai-music/fed8ce56-bc79-401f-a83e-af084253362f.jsonl",
    "sniffly/tests/mock-data/-Users-dev-dev-ai-music/ff71dbed-a4f2-4284-a4fc-fe2fb90de929.jsonl",
];

#[test]
fn whole_corpus_discovers_exactly_the_claude_sessions_and_each_loads() {
    let found = discover(&[corpus_dir()]).expect("discover corpus");
    // Changed when Codex rollouts became sessions too: the 27 counted here
    // were always the Claude Code sessions, so the count and the paths are
    // taken over those only (tests/cli/codex_corpus.rs counts the Codex ones).
    // Every discovered session, Codex included, must still load below.
    let claude: Vec<_> = found
        .sessions
        .iter()
        .filter(|s| s.agent == Agent::ClaudeCode)
        .collect();
    let paths: BTreeSet<String> = claude.iter().map(|s| rel(&s.path)).collect();
    let expected: BTreeSet<String> = CLAUDE_SESSIONS.iter().map(|s| s.to_string()).collect();
    assert_eq!(claude.len(), 27);
    assert_eq!(paths, expected);

    for s in &found.sessions {
        let loaded = load(s).unwrap_or_else(|e| panic!("{} failed to load: {e}", s.path.display()));
        assert_eq!(loaded.id, s.id);
    }

    // Subagent files attached across the corpus: 11 in real-cc-2.1.332
    // `subagents/` dirs (1 of them hooks_c8_outcomes'), 1 in
    // agent-sessions, and the two sibling agent-test-hash-*.jsonl
    // (sessionId 5c0375b4…).
    let attached: BTreeSet<String> = found
        .sessions
        .iter()
        .flat_map(|s| s.subagent_files.iter().map(|p| rel(p)))
        .collect();
    assert_eq!(attached.len(), 14);
    assert!(attached.contains(
        "claude-code-viewer/mock-global-claude-dir/projects/sample-project/agent-test-hash-123.jsonl"
    ));
    assert!(attached.contains(
        "claude-code-viewer/mock-global-claude-dir/projects/sample-project/agent-test-hash-456.jsonl"
    ));

    // The two subagent files whose parent session file is absent are orphans:
    // cass agent-test123.jsonl (sessionId "test-session", no test-session.jsonl)
    // and claude-code-log showcol1 (no 55550000-….jsonl beside its folder).
    let diags: Vec<(String, Option<usize>, String)> = found
        .diagnostics
        .iter()
        .map(|d| (rel(&d.path), d.line(), d.message.clone()))
        .collect();
    let orphan = "subagent transcript whose parent session file was not found; not shown";
    assert_eq!(
        diags,
        vec![
            (
                "cass/tests/fixtures/claude_code_real/projects/-test-project/agent-test123.jsonl"
                    .to_string(),
                None,
                orphan.to_string()
            ),
            (
                "claude-code-log/test/test_data/minimal_showcase/55550000-0000-4000-8000-000000000001/subagents/agent-showcol1.jsonl"
                    .to_string(),
                None,
                orphan.to_string()
            ),
        ]
    );
}

#[test]
fn other_agents_files_are_not_claude_sessions() {
    // Changed when the Codex loader arrived: the four Codex files of the
    // original list are now Codex sessions (never Claude Code ones), and the
    // skip message names both agents. The other files are still skipped.
    let codex = [
        "real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl",
        "cass/tests/fixtures/codex_real/sessions/2025/11/26/rollout-tool-call.jsonl",
        "agentsview/internal/parser/testdata/codex/function_calls.jsonl",
        "agent-sessions/Resources/Fixtures/stage0/agents/codex/schema_drift.jsonl",
    ];
    for f in codex {
        let found = discover(&[corpus(f)]).expect("discover file");
        let agents: Vec<Agent> = found.sessions.iter().map(|s| s.agent).collect();
        assert_eq!(agents, vec![Agent::Codex], "{f}");
        assert!(found.diagnostics.is_empty(), "{f}");
    }
    // Changed when the Droid loader arrived: a Droid session store file is a
    // Droid session (never a Claude Code one); the skip message names it.
    let found = discover(&[corpus_dir()
        .join("agent-sessions/Resources/Fixtures/stage0/agents/droid/session_store_small.jsonl")])
    .expect("discover file");
    let agents: Vec<Agent> = found.sessions.iter().map(|s| s.agent).collect();
    assert_eq!(agents, vec![Agent::Droid]);
    // Given explicitly, each is skipped with a diagnostic instead of listed.
    let foreign = [
        "agent-sessions/Resources/Fixtures/stage0/agents/droid/stream_json_schema_drift.jsonl",
        "agent-sessions/Resources/Fixtures/stage0/agents/droid/stream_json_small.jsonl",
        "real-cc-2.1.332/hooks_c5_stop_block/hooks/hooks_c5_stop_block/Stop.jsonl",
        "real-cc-2.1.332/subagent/stream/subagent.stdout.jsonl",
        "real-cc-2.1.332/subagent/stream/subagent.mock-requests.jsonl",
        "real-codex-0.171.0/basic/stream/exec.stdout.jsonl",
        "real-codex-0.171.0/basic/stream/mock-requests.jsonl",
    ];
    for f in foreign {
        let path = corpus(f);
        let found = discover(std::slice::from_ref(&path)).expect("discover file");
        assert!(found.sessions.is_empty(), "{f} listed as a session");
        assert_eq!(found.diagnostics.len(), 1, "{f}");
        assert_eq!(
            found.diagnostics[0].message,
            "not a Claude Code, Codex, OpenCode or Droid session transcript; skipped"
        );
    }
    // A folder of hook captures, stream-json and mock requests only (plus the
    // project folder): only the one real session is listed.
    let found = discover(&[corpus("real-cc-2.1.332/hooks_c5_stop_block")]).expect("dir");
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, vec!["c8435c6b-9aae-401c-ba5f-97def3faba72"]);
    assert!(found.diagnostics.is_empty());
}

// ---------------------------------------------------------------------------
// Claude Code 1.0.17 (sniffly, REAL)
// ---------------------------------------------------------------------------

/// ba79134d: 36 user lines, of which 6 are prompts (lines 1 `/init`, 38, 55,
/// 63, 67, 71); the other 30 carry tool_results. 30 tool_use blocks, none with
/// `is_error: true`. Usage summed over the last chunk of each message.id.
#[test]
fn sniffly_1_0_17_init_session() {
    let s = load_in(
        "sniffly/tests/mock-data",
        "ba79134d-b6e9-4867-af0c-6941038c9e4b",
    );
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (6, 30, 0, 0)
    );
    assert_eq!(prompt_lines(&s), vec![1, 38, 55, 63, 67, 71]);
    assert_eq!(s.usage, usage(91, 2266, 16072, 503_769));
    assert_eq!(s.version.as_deref(), Some("1.0.17"));
    assert_eq!(
        call_names(&s),
        vec![
            "LS",
            "Read",
            "Glob",
            "Glob",
            "Glob",
            "Glob",
            "Glob",
            "Glob",
            "Glob",
            "Glob",
            "Glob",
            "Glob",
            "Glob",
            "Read",
            "Glob",
            "Write",
            "TodoWrite",
            "TodoWrite",
            "Write",
            "TodoWrite",
            "Write",
            "TodoWrite",
            "Edit",
            "Bash",
            "Bash",
            "Edit",
            "Bash",
            "Bash",
            "Bash",
            "Bash"
        ]
    );
    assert_eq!(
        call_ids(&s)[..3],
        [
            "toolu_01Ld2AzRRtpX28MuPRGiC8jn",
            "toolu_01T9TNnWpr3cD6mWjoaTVUvm",
            "toolu_01Y6FmfAqvzR3zyZNPP65EQc"
        ]
    );
    assert_eq!(call_ids(&s)[29], "toolu_01YGojBgC8ETaCwico37QkSE");
    assert!(s.tool_calls().all(|c| c.result.is_some()));
    assert!(s.diagnostics.is_empty());
}

/// fed8ce56: a `summary` line for another session (leafUuid not in the file),
/// prompt "push to github" (line 2), three Bash calls in message
/// msg_01NaBnqp… of which two are rejected (`is_error: true`, lines 13–14),
/// `[Request interrupted by user for tool use]` (line 15), then "continue"
/// (line 16) with two more Bash calls.
#[test]
fn sniffly_1_0_17_interruption_and_rejected_calls() {
    let s = load_in(
        "sniffly/tests/mock-data",
        "fed8ce56-bc79-401f-a83e-af084253362f",
    );
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (2, 7, 2, 0)
    );
    assert_eq!(prompt_lines(&s), vec![2, 16]);
    assert_eq!(
        call_ids(&s),
        vec![
            "toolu_01LjFNEf5XrVHXXTePS4tRFR",
            "toolu_01VSEqoeVyQpPU4RxEN3N4hq",
            "toolu_01GGKAtjBtWSFTFgVxu92cRN",
            "toolu_01DP7Ppp3tvYZZUrUVaNgBmo",
            "toolu_01TcrxTGdSCepJ68m2SBY8bo",
            "toolu_01KkhkbRqZbACyeR2ixLVeN8",
            "toolu_01AvwET1pXT6CHj9o1KY6KSK",
        ]
    );
    assert_eq!(
        error_ids(&s),
        vec![
            "toolu_01DP7Ppp3tvYZZUrUVaNgBmo",
            "toolu_01TcrxTGdSCepJ68m2SBY8bo"
        ]
    );
    // 4 messages: (4,3,14363,0) (72,1,409,14363) (4,273,637,14772) (8,1,591,15409).
    assert_eq!(s.usage, usage(88, 278, 16000, 44544));
    let interruptions: Vec<usize> = s
        .turns
        .iter()
        .flat_map(|t| &t.events)
        .filter_map(|e| match e {
            Event::Interruption { line, .. } => Some(*line),
            _ => None,
        })
        .collect();
    assert_eq!(interruptions, vec![15]);
    // The interruption belongs to the first turn, not a turn of its own.
    assert_eq!(s.turns[0].tool_calls().count(), 5);
    // The summary's leafUuid is in another file, so the first prompt is the title.
    assert_eq!(s.title.as_deref(), Some("push to github"));
}

/// ff71dbed holds one `summary` line and nothing else.
#[test]
fn sniffly_summary_only_file() {
    let s = load_in(
        "sniffly/tests/mock-data",
        "ff71dbed-a4f2-4284-a4fc-fe2fb90de929",
    );
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (0, 0, 0, 0)
    );
    assert!(s.turns.is_empty());
    assert_eq!(
        s.title.as_deref(),
        Some("AI Music Generation from Word Embeddings")
    );
    assert!(s.diagnostics.is_empty());
}

// ---------------------------------------------------------------------------
// Claude Code 1.0.98 / 1.0.108 (claude-code-viewer, REAL): inline sidechains
// ---------------------------------------------------------------------------

/// 5c0375b4 (1.0.108): one prompt (`/orchestrator …`, line 1; line 2 is its
/// isMeta body). 13 main-thread tool_use blocks, including 3 Task calls: the
/// first (toolu_018t…) fails (`is_error`, line 15) and spawns nothing; the
/// other two match the two sidechain roots (lines 16 and 26) by prompt text.
/// Edit toolu_019c… fails ("File has not been read yet"). The two sibling
/// agent-test-hash-*.jsonl (2.0.28) carry sessionId 5c0375b4… and attach
/// unlinked.
#[test]
fn viewer_1_0_108_inline_and_sibling_subagents() {
    let s = load_in(
        "claude-code-viewer/mock-global-claude-dir/projects",
        "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
    );
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (1, 21, 3, 4)
    );
    assert_eq!(linked(&s), 2);
    assert_eq!(
        call_names(&s),
        vec![
            "TodoWrite",
            "Glob",
            "Glob",
            "TodoWrite",
            "Task",
            "Task",
            "TodoWrite",
            "Task",
            "TodoWrite",
            "Edit",
            "Read",
            "MultiEdit",
            "TodoWrite"
        ]
    );
    assert_eq!(
        error_ids(&s),
        vec![
            "toolu_018t5jce2ZNoGr2ADsHGQife",
            "toolu_019ctBEHhLKehUi4xPDkYwvc"
        ]
    );
    assert_eq!(s.usage, usage(64, 2003, 26074, 190_261));

    let subs: Vec<_> = s
        .subagents
        .iter()
        .map(|a| {
            (
                a.layout,
                a.link,
                a.spawn_tool_use_id.as_deref(),
                a.tool_calls().count(),
                a.turns.first().and_then(|t| t.prompt_line),
            )
        })
        .collect();
    assert_eq!(
        subs,
        vec![
            (
                Some(SubagentLayout::Inline),
                Some(SubagentLink::PromptText),
                Some("toolu_014YF9TXhDRR7BnpasNJ7gjC"),
                2,
                Some(16)
            ),
            (
                Some(SubagentLayout::Inline),
                Some(SubagentLink::PromptText),
                Some("toolu_01LKfUwrsnof18CpWZQcJH44"),
                6,
                Some(26)
            ),
            (Some(SubagentLayout::Sibling), None, None, 0, Some(1)),
            (Some(SubagentLayout::Sibling), None, None, 0, Some(1)),
        ]
    );
    assert_eq!(s.subagents[0].usage, usage(18, 485, 13436, 25737));
    assert_eq!(s.subagents[1].usage, usage(47, 1141, 8237, 108_261));
    assert_eq!(
        s.subagents[1]
            .tool_calls()
            .map(|c| c.name())
            .collect::<Vec<_>>(),
        vec!["Bash", "Bash", "Bash", "Bash", "Read", "Bash"]
    );
    assert_eq!(s.subagents[2].agent_id.as_deref(), Some("test-hash-123"));
    assert_eq!(s.subagents[2].prompt(), "Run the test suite");
    assert_eq!(s.subagents[2].usage, usage(100, 10, 0, 0));
    assert_eq!(s.subagents[3].agent_id.as_deref(), Some("test-hash-456"));
    assert_eq!(s.subagents[3].prompt(), "Build the project");
    // The spawn records point back at their subagents.
    let spawn = s
        .tool_calls()
        .find(|c| c.tool_use_id == "toolu_01LKfUwrsnof18CpWZQcJH44")
        .expect("spawn");
    assert_eq!(spawn.subagent, Some(1));
    assert!(s.diagnostics.is_empty());
}

/// fe5e1c67 (1.0.98): prompts at line 2 (`/orchestrator …`) and 434; 11
/// main-thread calls with 5 Task spawns; 5 sidechain roots (parentUuid null,
/// lines 16, 38, 125, 229, 295), each equal in text to one Task's
/// `input.prompt`. No `is_error: true` on the main thread.
#[test]
fn viewer_1_0_98_five_inline_subagents_linked_by_prompt() {
    let s = load_in(
        "claude-code-viewer/mock-global-claude-dir/projects",
        "fe5e1c67-53e7-4862-81ae-d0e013e3270b",
    );
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (2, 167, 23, 5)
    );
    assert_eq!(prompt_lines(&s), vec![2, 434]);
    assert_eq!(linked(&s), 5);
    assert_eq!(
        call_ids(&s),
        vec![
            "toolu_019okXfjnUzJkV2VZbndx6ik",
            "toolu_01Gbs41yRWc2W5JEW6w87PNA",
            "toolu_01KrQweoQa7fzmcQAC83TKas",
            "toolu_014i9ThHMNShCHocf9xMKasf",
            "toolu_01EbxY94wRUAGyMLj5wh699C",
            "toolu_01LS6tcVd796SbQKmZqeVnWY",
            "toolu_01KGJpuz9qTWdbSj2iEXVufK",
            "toolu_017rjDpjVPeNFmAEXNTkoP55",
            "toolu_01EPom7jESzNbU8coiKjzVGS",
            "toolu_01VVWfN4Sen1ZUx9iPwA1hC1",
            "toolu_01G5fXX8sk5nLjyGcqi6LW7q",
        ]
    );
    assert_eq!(s.usage, usage(373, 2636, 6672, 161_313));
    let subs: Vec<_> = s
        .subagents
        .iter()
        .map(|a| {
            (
                a.turns.first().and_then(|t| t.prompt_line),
                a.spawn_tool_use_id.as_deref(),
                a.link,
                a.tool_calls().count(),
            )
        })
        .collect();
    let p = Some(SubagentLink::PromptText);
    assert_eq!(
        subs,
        vec![
            (Some(16), Some("toolu_01LS6tcVd796SbQKmZqeVnWY"), p, 8),
            (Some(38), Some("toolu_014i9ThHMNShCHocf9xMKasf"), p, 33),
            (Some(125), Some("toolu_01EbxY94wRUAGyMLj5wh699C"), p, 39),
            (Some(229), Some("toolu_017rjDpjVPeNFmAEXNTkoP55"), p, 24),
            (Some(295), Some("toolu_01EPom7jESzNbU8coiKjzVGS"), p, 52),
        ]
    );
    assert!(
        s.subagents
            .iter()
            .all(|a| a.layout == Some(SubagentLayout::Inline))
    );
    assert_eq!(s.subagents[1].usage, usage(57, 9863, 41160, 739_334));
    assert_eq!(s.subagents[4].usage, usage(124, 15286, 31345, 1_406_144));
    // The inline subagent's own Task spawn type comes from the Task input.
    assert_eq!(
        s.subagents[0].agent_type.as_deref(),
        Some("general-purpose")
    );
    // MultiEdit appears inside subagent 2 (line 125's thread), as the 12th call.
    assert_eq!(
        s.subagents[2].tool_calls().nth(11).map(|c| c.name()),
        Some("MultiEdit")
    );
    // The summary line points at 1af7fc5e's leaf, so the title is the prompt.
    assert_eq!(
        s.title.as_deref(),
        Some("/orchestrator create TODO app by Next.js")
    );
}

// ---------------------------------------------------------------------------
// Claude Code 2.1.332 (real-cc-2.1.332, REAL): subagents/ dir + meta.json
// ---------------------------------------------------------------------------

/// 8bb2dece: one prompt (line 3); 4 Agent calls; the task notification of the
/// background agent (line 44, `origin.kind: task-notification`) is not a
/// turn. Each `subagents/agent-<id>.meta.json` names its spawn in `toolUseId`;
/// a0ddb8d7… is the `run_in_background: true` spawn whose result is "Async
/// agent launched successfully…".
#[test]
fn real_2_1_332_subagent_scenario() {
    let s = load_in(
        "real-cc-2.1.332/subagent",
        "8bb2dece-a24f-43d4-80d6-3ee9a889b550",
    );
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (1, 9, 0, 4)
    );
    assert_eq!(linked(&s), 4);
    assert_eq!(prompt_lines(&s), vec![3]);
    assert_eq!(
        call_ids(&s),
        vec![
            "toolu_01EoVg2LEYBcgsNqrLdx6tDq",
            "toolu_01RNYJFbxX2Ngbhqr7ThQaWg",
            "toolu_01aWUpYqUJUYg412bh1nwfKI",
            "toolu_01QsDwoBvXrX9cAOXPn1lNLy",
        ]
    );
    assert_eq!(call_names(&s), vec!["Agent"; 4]);
    assert_eq!(s.usage, usage(1885, 408, 5635, 30066));
    assert_eq!(notes(&s), vec![("task-notification".to_string(), 44)]);

    let subs: Vec<_> = s
        .subagents
        .iter()
        .map(|a| {
            (
                a.agent_id.as_deref(),
                a.agent_type.as_deref(),
                a.spawn_tool_use_id.as_deref(),
                a.tool_calls()
                    .map(|c| c.tool_use_id.as_str())
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    assert_eq!(
        subs,
        vec![
            (
                Some("a0ddb8d7d9a82d5fb"),
                Some("general-purpose"),
                Some("toolu_01QsDwoBvXrX9cAOXPn1lNLy"),
                vec!["toolu_01dM1oJYP60BEcdfrRP89wcZ"]
            ),
            (
                Some("a254c4c26332d0a9d"),
                Some("general-purpose"),
                Some("toolu_01aWUpYqUJUYg412bh1nwfKI"),
                vec!["toolu_01ODoKPi4xQIP1UU1UbS5ZcO"]
            ),
            (
                Some("a460e426666c15a15"),
                Some("Explore"),
                Some("toolu_01RNYJFbxX2Ngbhqr7ThQaWg"),
                vec!["toolu_01jnpTxdhXKCZgdSENXyt8je"]
            ),
            (
                Some("a9a1865f5e2572fa1"),
                Some("general-purpose"),
                Some("toolu_01EoVg2LEYBcgsNqrLdx6tDq"),
                vec![
                    "toolu_01dWuUXlkTZoL5K7RXhzXTZs",
                    "toolu_01DIgoxeg8ZxqYQ6XNQPwD7s"
                ]
            ),
        ]
    );
    assert!(s.subagents.iter().all(|a| {
        a.layout == Some(SubagentLayout::SubagentsDir)
            && a.link == Some(SubagentLink::MetaToolUseId)
    }));
    assert_eq!(s.subagents[0].usage, usage(454, 72, 1352, 7219));
    assert_eq!(s.subagents[3].usage, usage(756, 133, 2257, 12045));
    let background = s
        .tool_calls()
        .find(|c| c.tool_use_id == "toolu_01QsDwoBvXrX9cAOXPn1lNLy")
        .expect("background spawn");
    assert_eq!(background.subagent, Some(0));
    assert!(
        background
            .result
            .as_ref()
            .is_some_and(|r| r.text.starts_with("Async agent launched successfully."))
    );
    assert_eq!(
        background
            .result
            .as_ref()
            .and_then(|r| r.agent_id.as_deref()),
        Some("a0ddb8d7d9a82d5fb")
    );
    assert!(s.diagnostics.is_empty());
}

/// e71e9aa1 (`tools` scenario): the README's "24 turns" are model requests;
/// the file has exactly one real prompt (line 3). 23 tool_use blocks; 5
/// results with `is_error: true` (Bash exit 1, Read of a missing file, both
/// WebFetch calls, mcp__mockmcp__fail).
#[test]
fn real_2_1_332_tools_scenario() {
    let s = load_in(
        "real-cc-2.1.332/tools",
        "e71e9aa1-2571-47ab-8bf7-9e6efaaedfff",
    );
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (1, 23, 5, 0)
    );
    assert_eq!(prompt_lines(&s), vec![3]);
    assert_eq!(
        call_names(&s),
        vec![
            "Bash",
            "Bash",
            "Bash",
            "Read",
            "Write",
            "Edit",
            "Read",
            "Glob",
            "Edit",
            "Grep",
            "Grep",
            "Read",
            "Bash",
            "TaskCreate",
            "TaskUpdate",
            "TaskUpdate",
            "WebFetch",
            "WebFetch",
            "ToolSearch",
            "mcp__mockmcp__lookup",
            "mcp__mockmcp__fail",
            "Glob",
            "Bash"
        ]
    );
    assert_eq!(
        error_ids(&s),
        vec![
            "toolu_01WS4HYZrMsYywO1CkB0np7Q",
            "toolu_01gcAkWxBhH1maruUyRaIAxj",
            "toolu_016TlHdLVFJAQN6MfKhX2vre",
            "toolu_017ZbsblccMMC9TJ0bERxPuh",
            "toolu_01gjV6MKnsT2EKGg8SDoC1mi",
        ]
    );
    assert_eq!(s.usage, usage(6008, 1316, 17949, 95772));
    assert!(s.tool_calls().all(|c| c.result.is_some()));
    // ToolSearch's result is tool_reference blocks.
    let search = s
        .tool_calls()
        .find(|c| c.name() == "ToolSearch")
        .and_then(|c| c.result.as_ref())
        .map(|r| r.text.clone());
    assert_eq!(
        search.as_deref(),
        Some("[tool_reference: mcp__mockmcp__lookup]\n[tool_reference: mcp__mockmcp__fail]")
    );
}

/// a2105fb9 (`compact`): run 1 prompt (line 3, 12 calls), the compact
/// boundary (line 82, manual, preTokens 8179) and the isCompactSummary line
/// (83), the `/compact` command prompt (85) with its `<local-command-stdout>`
/// (86), and the resumed prompt (99, one Bash call). Its one subagent file is
/// run 1's Agent call (meta toolUseId toolu_01vav8…).
#[test]
fn real_2_1_332_compact_scenario() {
    let s = load_in(
        "real-cc-2.1.332/compact",
        "a2105fb9-3595-4ebb-b172-ce1ef7565b67",
    );
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (3, 14, 2, 1)
    );
    assert_eq!(linked(&s), 1);
    assert_eq!(prompt_lines(&s), vec![3, 85, 99]);
    assert_eq!(
        s.turns
            .iter()
            .map(|t| t.tool_calls().count())
            .collect::<Vec<_>>(),
        vec![12, 0, 1]
    );
    assert_eq!(
        error_ids(&s),
        vec![
            "toolu_01Ta96qZCwshbRGPUnAGvB3v",
            "toolu_01ntAYE1kS2GUfmERL5Fmb1p"
        ]
    );
    assert_eq!(s.usage, usage(5210, 705, 15584, 83144));
    let compactions: Vec<(usize, Option<&str>, Option<u64>)> = s
        .turns
        .iter()
        .flat_map(|t| &t.events)
        .filter_map(|e| match e {
            Event::Compaction {
                line,
                trigger,
                pre_tokens,
                ..
            } => Some((*line, trigger.as_deref(), *pre_tokens)),
            _ => None,
        })
        .collect();
    assert_eq!(
        compactions,
        vec![(82, Some("manual"), Some(8179)), (83, None, None)]
    );
    assert_eq!(
        hookscope_core::transcript::claude_code::display_prompt(&s.turns[1].prompt),
        "/compact Focus on which hooks fired"
    );
    // Three processes wrote the file (cost-state on lines 77, 95 and 128):
    // where each ended, the last one included, and the next began.
    assert_eq!(
        notes(&s),
        vec![
            ("process".to_string(), 77),
            ("process".to_string(), 82),
            ("command-output".to_string(), 86),
            ("process".to_string(), 95),
            ("process".to_string(), 99),
            ("process".to_string(), 128),
        ]
    );
    let sub = &s.subagents[0];
    assert_eq!(
        sub.spawn_tool_use_id.as_deref(),
        Some("toolu_01vav8MsQNfPMnFugFnXDUEH")
    );
    assert_eq!(sub.link, Some(SubagentLink::MetaToolUseId));
    assert_eq!(
        sub.tool_calls()
            .map(|c| c.tool_use_id.as_str())
            .collect::<Vec<_>>(),
        vec!["toolu_01tsoXiTqOJlIWDme0Iy7ePL"]
    );
    assert_eq!(sub.usage, usage(489, 63, 1466, 7819));
}

/// c8435c6b (`hooks_c5_stop_block`): one prompt (line 3). The Stop hook's
/// block comes back as a user line with `hookText: true` and "Stop hook
/// feedback:…" (line 76): an event of the turn, not a new turn. Then the
/// `hook_blocking_error` attachment (77) and a stop_hook_summary with
/// hookErrors (78). 12 calls, one error (Bash exit 3).
#[test]
fn real_2_1_332_stop_hook_feedback_is_not_a_turn() {
    let s = load_in(
        "real-cc-2.1.332/hooks_c5_stop_block",
        "c8435c6b-9aae-401c-ba5f-97def3faba72",
    );
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (1, 13, 1, 1)
    );
    assert_eq!(linked(&s), 1);
    assert_eq!(s.turns.len(), 1);
    assert_eq!(prompt_lines(&s), vec![3]);
    assert_eq!(error_ids(&s), vec!["toolu_01DyCH1dtuL9osvMyrGk1pDI"]);
    assert_eq!(
        notes(&s),
        vec![
            ("hook".to_string(), 76),
            ("hook".to_string(), 77),
            ("hook".to_string(), 78)
        ]
    );
    assert_eq!(s.usage, usage(4959, 662, 14839, 79168));
    assert_eq!(
        s.subagents[0].spawn_tool_use_id.as_deref(),
        Some("toolu_01RTDqVVNFhuOBpHMJNDbFOh")
    );
    // The spawn is the 10th main-thread call.
    assert_eq!(call_ids(&s)[9], "toolu_01RTDqVVNFhuOBpHMJNDbFOh");
    assert_eq!(s.tool_calls().nth(9).and_then(|c| c.subagent), Some(0));
}

// ---------------------------------------------------------------------------
// Trimmed / synthetic fixtures
// ---------------------------------------------------------------------------

/// agent-sessions small.jsonl (2.1.x shapes, trimmed). Main-thread user lines
/// that are prompts: 49 (image + text), 60, 62, 63, 87; line 30 is a
/// tool_result. Main tool_use blocks with an id: toolu_stage0_1 (line 29) and
/// "[trimmed for fixture]" (55). The sidechain lines (1, 4, 7–10, 18, 19, 22)
/// hang off one root (sys1): one inline subagent, no spawn. Its tool_use and
/// tool_results have no ids (3 diagnostics). `system/api_error` at 48, 56,
/// 58, 74; compact boundaries at 21 and 51. custom-title beats ai-title.
#[test]
fn agent_sessions_small_2_1_fixture() {
    let s = load_in(
        "agent-sessions/Resources/Fixtures/stage0/agents/claude",
        "small",
    );
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (5, 2, 0, 1)
    );
    assert_eq!(linked(&s), 0);
    assert_eq!(prompt_lines(&s), vec![49, 60, 62, 63, 87]);
    assert_eq!(
        call_ids(&s),
        vec!["toolu_stage0_1", "[trimmed for fixture]"]
    );
    assert_eq!(s.title.as_deref(), Some("Stage0 small fixture"));
    // msg_stage0_1 = 10/5; every "[trimmed for fixture]" message id is one
    // message with zero usage.
    assert_eq!(s.usage, usage(10, 5, 0, 0));
    let api_errors: Vec<usize> = s
        .turns
        .iter()
        .flat_map(|t| &t.events)
        .filter_map(|e| match e {
            Event::ApiError { line, .. } => Some(*line),
            _ => None,
        })
        .collect();
    assert_eq!(api_errors, vec![48, 56, 58, 74]);
    let boundaries: Vec<usize> = s
        .turns
        .iter()
        .flat_map(|t| &t.events)
        .filter_map(|e| match e {
            Event::Compaction { line, .. } => Some(*line),
            _ => None,
        })
        .collect();
    assert_eq!(boundaries, vec![21, 51]);
    let sub = &s.subagents[0];
    assert_eq!(sub.layout, Some(SubagentLayout::Inline));
    assert_eq!(sub.prompt(), "Hello");
    let diags: Vec<(Option<usize>, &str)> = s
        .diagnostics
        .iter()
        .map(|d| (d.line(), d.message.as_str()))
        .collect();
    assert_eq!(
        diags,
        vec![
            (Some(8), "tool_use block without id"),
            (Some(9), "tool_result without tool_use_id"),
            (Some(10), "tool_result without tool_use_id"),
        ]
    );
}

/// agent-sessions subagent/ (2.1.207): the parent's Task tool_use has no id,
/// so the `subagents/agent-a0ad….jsonl` (minimal meta, no toolUseId; its
/// prompt differs from any spawn) attaches unlinked.
#[test]
fn agent_sessions_subagents_dir_without_link() {
    let s = load_in(
        "agent-sessions/Resources/Fixtures/stage0/agents/claude/subagent",
        "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f",
    );
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (1, 0, 0, 1)
    );
    assert_eq!(linked(&s), 0);
    let sub = &s.subagents[0];
    assert_eq!(sub.layout, Some(SubagentLayout::SubagentsDir));
    assert_eq!(sub.agent_id.as_deref(), Some("a0ad4f44468bdf20d"));
    assert_eq!(sub.agent_type.as_deref(), Some("general-purpose"));
    assert_eq!(sub.prompt(), "Search the repo for TODO comments");
}

/// agent-sessions schema_drift.jsonl: Claude lines mixed with drifted
/// top-level `tool_use`/`tool_result` types (opaque). One prompt (line 1); the
/// second user line has `origin.kind: task-notification` (a note).
#[test]
fn agent_sessions_schema_drift_is_a_claude_session() {
    let s = load_in(
        "agent-sessions/Resources/Fixtures/stage0/agents/claude",
        "schema_drift",
    );
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (1, 0, 0, 0)
    );
    assert_eq!(prompt_lines(&s), vec![1]);
    assert_eq!(notes(&s), vec![("task-notification".to_string(), 6)]);
    let diags: Vec<(Option<usize>, &str)> = s
        .diagnostics
        .iter()
        .map(|d| (d.line(), d.message.as_str()))
        .collect();
    assert_eq!(
        diags,
        vec![
            (Some(2), "unknown line type \"tool_use\"; kept as metadata"),
            (
                Some(3),
                "unknown line type \"tool_result\"; kept as metadata"
            ),
        ]
    );
}

/// claude-code-log edge_cases.jsonl: prompts at lines 1, 3, 7 (a command), 12
/// and 18 (content `["wow error"]`); line 6 is the local-command caveat and 8
/// is `<local-command-stdout>`. Lines 13, 15, 16 are JSON but not objects
/// (line 14 is an object without `type`: ignored). Line 10 misspells
/// `content` (so MultiEdit tool_edge_002 keeps no result) and line 11 has
/// `message: "error"`. tool_edge_001 fails.
#[test]
fn claude_code_log_edge_cases() {
    let s = load_in("claude-code-log/test/test_data", "edge_cases");
    let sum = s.summary();
    assert_eq!(
        (sum.turns, sum.tool_calls, sum.errors, sum.subagents),
        (5, 3, 1, 0)
    );
    assert_eq!(prompt_lines(&s), vec![1, 3, 7, 12, 18]);
    assert_eq!(
        call_names(&s),
        vec!["FailingTool", "MultiEdit", "TodoWrite"]
    );
    assert_eq!(error_ids(&s), vec!["tool_edge_001"]);
    let multi = s.tool_calls().nth(1).expect("MultiEdit");
    assert!(multi.result.is_none());
    assert_eq!(notes(&s), vec![("command-output".to_string(), 8)]);
    assert_eq!(s.usage, usage(488, 435, 0, 0));
    let diags: Vec<(Option<usize>, &str)> = s
        .diagnostics
        .iter()
        .map(|d| (d.line(), d.message.as_str()))
        .collect();
    assert_eq!(
        diags,
        vec![
            (Some(10), "user line without message.content"),
            (Some(11), "user line without message.content"),
            (Some(13), "expected a JSON object, got string"),
            (Some(15), "expected a JSON object, got number"),
            (Some(16), "expected a JSON object, got array"),
        ]
    );
    assert_eq!(
        s.title.as_deref(),
        Some(
            "Tested various edge cases including markdown formatting, long text, tool errors, system messages, command outputs, special characters and emojis. All message types render correctly in the transcript viewer."
        )
    );
}

// ---------------------------------------------------------------------------
// Bad input never crashes
// ---------------------------------------------------------------------------

const PROMPT_1: &str = r#"{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"first prompt"}}"#;
const CALL_1: &str = r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":3,"output_tokens":4}}}"#;
const RESULT_1: &str = r#"{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt","is_error":false}]}}"#;
const PROMPT_2: &str = r#"{"type":"user","uuid":"u3","parentUuid":"u2","sessionId":"s","message":{"role":"user","content":"second prompt"}}"#;
const CALL_2: &str = r#"{"type":"assistant","uuid":"a2","parentUuid":"u3","sessionId":"s","message":{"id":"msg_2","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"/x"}}],"usage":{"input_tokens":5,"output_tokens":6}}}"#;
const RESULT_2_ERR: &str = r#"{"type":"user","uuid":"u4","parentUuid":"a2","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"<tool_use_error>File does not exist.</tool_use_error>","is_error":true}]}}"#;

fn write_lines(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    write_file(dir.path().join(name), bytes)
}

fn join(lines: &[&str]) -> Vec<u8> {
    let mut out = lines.join("\n").into_bytes();
    out.push(b'\n');
    out
}

fn diag_list(s: &Session) -> Vec<(Option<usize>, String)> {
    s.diagnostics
        .iter()
        .map(|d| (d.line(), d.message.clone()))
        .collect()
}

/// Session counts as `summary()` gives them: tool calls and errors over
/// every thread (main and subagents, `transcript::spawns` "Counts"). The
/// expected values in this file were recounted with python over the JSONL:
/// unique `tool_use` ids per thread (main lines, `isSidechain` lines, each
/// subagent file) and first `tool_result`s with `is_error: true`.
fn counts(s: &Session) -> (usize, usize, usize) {
    let sum = s.summary();
    (sum.turns, sum.tool_calls, sum.errors)
}

#[test]
fn malformed_line_in_the_middle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_lines(
        &dir,
        "s.jsonl",
        &join(&[
            PROMPT_1,
            CALL_1,
            "{not json at all",
            RESULT_1,
            PROMPT_2,
            CALL_2,
            RESULT_2_ERR,
        ]),
    );
    let s = load_session(&path, &[]).expect("load");
    assert_eq!(
        diag_list(&s),
        vec![(
            Some(3),
            "invalid JSON: key must be a string at line 1 column 2".to_string()
        )]
    );
    assert_eq!(counts(&s), (2, 2, 1));
    assert_eq!(prompt_lines(&s), vec![1, 5]);
    assert!(s.tool_calls().all(|c| c.result.is_some()));
    assert_eq!(s.usage, usage(8, 10, 0, 0));
}

#[test]
fn truncated_last_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut bytes = join(&[PROMPT_1, CALL_1, RESULT_1, PROMPT_2]);
    // The writer died in the middle of the assistant line: no newline.
    bytes.extend_from_slice(&CALL_2.as_bytes()[..60]);
    let path = write_lines(&dir, "s.jsonl", &bytes);
    let s = load_session(&path, &[]).expect("load");
    assert_eq!(
        diag_list(&s),
        vec![(
            Some(5),
            "truncated last line (the session may still be being written)".to_string()
        )]
    );
    assert_eq!(counts(&s), (2, 1, 0));
}

#[test]
fn invalid_utf8_is_replaced_and_the_line_used() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut bytes = join(&[PROMPT_1, CALL_1, RESULT_1]);
    bytes.extend_from_slice(
        b"{\"type\":\"user\",\"uuid\":\"u3\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9 \xff prompt\"}}\n",
    );
    // A stray byte outside any string cannot be saved by replacement.
    bytes.extend_from_slice(b"{\"type\":\xff\"user\"}\n");
    bytes.extend_from_slice(&join(&[CALL_2, RESULT_2_ERR]));
    let path = write_lines(&dir, "s.jsonl", &bytes);
    let s = load_session(&path, &[]).expect("load");
    assert_eq!(
        diag_list(&s),
        vec![
            (Some(4), "invalid UTF-8 replaced with U+FFFD".to_string()),
            (
                Some(5),
                "invalid JSON: expected value at line 1 column 9".to_string()
            ),
        ]
    );
    assert_eq!(counts(&s), (2, 2, 1));
    assert_eq!(s.turns[1].prompt, "caf\u{fffd} \u{fffd} prompt");
}

#[test]
fn unknown_line_types_are_kept_with_a_diagnostic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_lines(
        &dir,
        "s.jsonl",
        &join(&[
            r#"{"type":"frobnicate","uuid":"x1","sessionId":"s","payloadish":{"a":[1,2]}}"#,
            PROMPT_1,
            r#"{"type":"api-request-blob","sessionId":"s","message":{"role":"user","content":"not a prompt"}}"#,
            CALL_1,
            r#"{"noType":true}"#,
            RESULT_1,
        ]),
    );
    let s = load_session(&path, &[]).expect("load");
    let diags: Vec<(Option<usize>, &str)> = s
        .diagnostics
        .iter()
        .map(|d| (d.line(), d.message.as_str()))
        .collect();
    assert_eq!(
        diags,
        vec![(
            Some(1),
            "unknown line type \"frobnicate\"; kept as metadata"
        )]
    );
    assert_eq!(counts(&s), (1, 1, 0));
    assert_eq!(prompt_lines(&s), vec![2]);
}

#[test]
fn tool_result_for_an_unknown_id() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_lines(
        &dir,
        "s.jsonl",
        &join(&[
            PROMPT_1,
            r#"{"type":"user","uuid":"u9","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_nobody","content":"orphan","is_error":true}]}}"#,
            CALL_1,
            RESULT_1,
        ]),
    );
    let s = load_session(&path, &[]).expect("load");
    assert_eq!(
        diag_list(&s),
        vec![(
            Some(2),
            "tool_result for unknown tool_use_id toolu_nobody; kept out of the timeline"
                .to_string()
        )]
    );
    // The orphan result neither opens a turn nor counts as an error.
    assert_eq!(counts(&s), (1, 1, 0));
}

#[test]
fn ten_megabyte_line_loads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = "x".repeat(10 * 1024 * 1024);
    let big_result = format!(
        r#"{{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","toolUseResult":{{"stdout":"{big}"}},"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_1","content":"{big}"}}]}}}}"#
    );
    let path = write_lines(
        &dir,
        "s.jsonl",
        &join(&[
            PROMPT_1,
            CALL_1,
            &big_result,
            PROMPT_2,
            CALL_2,
            RESULT_2_ERR,
        ]),
    );
    let s = load_session(&path, &[]).expect("load");
    assert!(s.diagnostics.is_empty());
    assert_eq!(counts(&s), (2, 2, 1));
    let first = s.tool_calls().next().and_then(|c| c.result.as_ref());
    assert_eq!(first.map(|r| r.text.len()), Some(10 * 1024 * 1024));
}

#[test]
fn empty_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_lines(&dir, "empty.jsonl", b"");
    let s = load_session(&path, &[]).expect("load");
    assert_eq!(counts(&s), (0, 0, 0));
    assert!(s.turns.is_empty());
    assert!(s.diagnostics.is_empty());
    assert_eq!(s.id, "empty");
    // Discovery does not list a file with nothing Claude-like in it.
    let found = discover(&[dir.path().to_path_buf()]).expect("discover");
    assert!(found.sessions.is_empty());
    // Blank lines only: the same.
    let blank = write_lines(&dir, "blank.jsonl", b"\n \n\t\n");
    let s = load_session(&blank, &[]).expect("load");
    assert_eq!(counts(&s), (0, 0, 0));
    assert!(s.diagnostics.is_empty());
}

#[test]
fn missing_file_and_missing_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("gone.jsonl");
    let err = load_session(&missing, &[]).expect_err("missing main file");
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);

    match discover(std::slice::from_ref(&missing)) {
        Err(DiscoverError::Missing(p)) => assert_eq!(p, missing),
        other => panic!("expected DiscoverError::Missing, got {other:?}"),
    }
    let missing_dir = dir.path().join("no-such-dir");
    assert!(matches!(
        discover(std::slice::from_ref(&missing_dir)),
        Err(DiscoverError::Missing(_))
    ));

    // A missing subagent file is a diagnostic; the main file still loads.
    let main = write_lines(&dir, "s.jsonl", &join(&[PROMPT_1, CALL_1, RESULT_1]));
    let ghost = dir.path().join("s/subagents/agent-ghost.jsonl");
    let s = load_session(&main, std::slice::from_ref(&ghost)).expect("load");
    assert_eq!(counts(&s), (1, 1, 0));
    assert!(s.subagents.is_empty());
    assert_eq!(s.diagnostics.len(), 1);
    assert_eq!(s.diagnostics[0].path, ghost);
    assert_eq!(s.diagnostics[0].line(), None);
    assert_eq!(
        s.diagnostics[0].message,
        "cannot read subagent transcript: No such file or directory (os error 2)"
    );
}

/// A sibling `agent-<id>.jsonl` whose first line is not the prompt (a
/// `system/session_start` and a hook attachment come first, as in the
/// agent-sessions fixtures) still links to its Task by prompt text: the
/// subagent's prompt is its first real prompt, not the prompt-less lead turn.
#[test]
fn subagent_opening_with_events_links_by_prompt_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let main = write_lines(
        &dir,
        "sess-1.jsonl",
        &join(&[
            r#"{"type":"user","uuid":"u1","sessionId":"sess-1","message":{"role":"user","content":"delegate"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"sess-1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_task","name":"Task","input":{"description":"look","prompt":"Find the TODOs","subagent_type":"Explore"}}]}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"sess-1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_task","content":"found 2"}]}}"#,
        ]),
    );
    let agent = write_lines(
        &dir,
        "agent-abc.jsonl",
        &join(&[
            r#"{"type":"system","subtype":"session_start","content":"Session started","isSidechain":true,"uuid":"c0","sessionId":"sess-1"}"#,
            r#"{"type":"attachment","isSidechain":true,"uuid":"c1","parentUuid":"c0","sessionId":"sess-1","attachment":{"type":"hook_success","hookName":"SessionStart","stdout":"ok"}}"#,
            r#"{"type":"user","isSidechain":true,"uuid":"c2","parentUuid":"c1","sessionId":"sess-1","message":{"role":"user","content":"Find the TODOs"}}"#,
            r#"{"type":"assistant","isSidechain":true,"uuid":"c3","parentUuid":"c2","sessionId":"sess-1","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"toolu_grep","name":"Grep","input":{"pattern":"TODO"}}]}}"#,
        ]),
    );
    let found = discover(&[dir.path().to_path_buf()]).expect("discover");
    assert_eq!(found.sessions.len(), 1);
    assert_eq!(found.sessions[0].subagent_files, vec![agent.clone()]);
    let s = load(&found.sessions[0]).expect("load");
    assert_eq!(s.path, main);
    assert_eq!(s.subagents.len(), 1);
    let sub = &s.subagents[0];
    assert_eq!(sub.prompt(), "Find the TODOs");
    assert_eq!(sub.layout, Some(SubagentLayout::Sibling));
    assert_eq!(sub.link, Some(SubagentLink::PromptText));
    assert_eq!(sub.spawn_tool_use_id.as_deref(), Some("toolu_task"));
    assert_eq!(sub.agent_type.as_deref(), Some("Explore"));
    assert_eq!(s.tool_calls().next().and_then(|c| c.subagent), Some(0));
    // Each call's place: the file of its thread and its line there.
    let places: Vec<String> = s
        .all_tool_calls()
        .map(|(thread, c)| s.source_of(thread, c.locus()).to_string())
        .collect();
    assert_eq!(
        places,
        vec![
            format!("{}:2", main.display()),
            format!("{}:4", agent.display())
        ]
    );
}

/// `system/api_error` lines give their status and message without an "API
/// error" prefix (the views add one): small.jsonl's four api_error lines
/// (48, 56, 58, 74): `error.status` 0 on the last three, `error.message`
/// (or the `error.error` JSON) on the first three.
#[test]
fn api_error_text_has_no_prefix_of_ours() {
    let found = discover(&[corpus(
        "agent-sessions/Resources/Fixtures/stage0/agents/claude/small.jsonl",
    )])
    .expect("discover");
    let s = load(&found.sessions[0]).expect("load");
    let errors: Vec<(usize, String)> = s
        .turns
        .iter()
        .flat_map(|t| &t.events)
        .filter_map(|e| match e {
            Event::ApiError { text, line, .. } => Some((*line, text.clone())),
            _ => None,
        })
        .collect();
    let lines: Vec<usize> = errors.iter().map(|e| e.0).collect();
    assert_eq!(lines, vec![48, 56, 58, 74]);
    let texts: Vec<&str> = errors.iter().map(|e| e.1.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "[trimmed for fixture]",
            "status 0: [trimmed for fixture]",
            r#"status 0: {"type":"error","error":{"type":"authentication_error","message":"[trimmed for fixture]"},"request_id":"[trimmed for fixture]"}"#,
            "status 0",
        ]
    );
    // The timeline says "API error" once.
    assert!(
        texts
            .iter()
            .all(|t| !t.to_lowercase().starts_with("api error"))
    );
}
