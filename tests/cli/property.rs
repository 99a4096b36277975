//! A seeded property test over mutated real transcript lines: windows of
//! lines from the shared corpus (real Claude Code 2.1.332 and 1.0.x
//! sessions, a real Codex 0.171.0 rollout) are mutated deterministically
//! (truncated, bytes flipped, spliced, deeply nested, lone surrogates, huge
//! numbers, NULs, BOMs), written to a file and loaded. Properties:
//! - loading never panics;
//! - every tool call of the intact (unmutated) lines is kept: each
//!   `tool_use_id` found when loading the intact lines alone is found in the
//!   mutated file too (ids, not inputs: a mutated earlier chunk of the same
//!   message may stand for the intact block, as a repeated chunk does);
//! - every diagnostic names the file and a line within it.
//!
//! The generator is a hand-rolled xorshift with fixed seeds, so a failure
//! reproduces; the case count keeps the test to seconds in a debug build.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use hookscope_core::transcript::{Session, claude_code, codex};

use crate::support::{corpus, hookscope, write_lines};

/// xorshift64*: small, deterministic, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// The source files: every `.jsonl` under the real 2.1.332 `projects`
/// folders, plus a real 1.0.17 session, a 1.0.98 session with inline
/// sidechains, and a real Codex rollout.
fn sources() -> Vec<(PathBuf, bool)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "jsonl") {
                out.push(p);
            }
        }
    }
    let mut claude = Vec::new();
    let real = corpus("real-cc-2.1.332");
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(&real)
        .expect("real-cc-2.1.332")
        .flatten()
        .map(|e| e.path().join("projects"))
        .filter(|p| p.is_dir())
        .collect();
    scenarios.sort();
    for s in scenarios {
        walk(&s, &mut claude);
    }
    claude.push(corpus(
        "sniffly/tests/mock-data/-Users-dev-dev-ai-music/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl",
    ));
    let mut out: Vec<(PathBuf, bool)> = claude.into_iter().map(|p| (p, false)).collect();
    let mut codex = Vec::new();
    walk(&corpus("real-codex-0.171.0/basic/sessions"), &mut codex);
    out.extend(codex.into_iter().map(|p| (p, true)));
    out.retain(|(p, _)| p.is_file());
    out
}

/// One mutation of a line's bytes.
fn mutate(rng: &mut Rng, line: &[u8], other: &[u8]) -> Vec<u8> {
    let mut b = line.to_vec();
    match rng.below(10) {
        0 => b.truncate(rng.below(b.len())),
        1 => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(b.len());
                if let Some(x) = b.get_mut(i) {
                    *x ^= 1 << rng.below(8);
                }
            }
        }
        2 => {
            let at = rng.below(b.len());
            let from = rng.below(other.len());
            let len = rng.below(other.len() - from.min(other.len()) + 1);
            b.splice(at..at, other[from..from + len].iter().copied());
        }
        3 => {
            let at = rng.below(b.len());
            let deep = "[".repeat(100_000);
            b.splice(at..at, deep.bytes());
        }
        4 => {
            // A lone surrogate escape inside some string value.
            if let Some(i) = find_string_start(rng, &b) {
                b.splice(i..i, br"\ud83d".iter().copied());
            }
        }
        5 => {
            let at = rng.below(b.len());
            let number: &[u8] = match rng.below(3) {
                0 => b"18446744073709551616",
                1 => b"1e999",
                _ => b"-0.0000000000000000000000000000001e-400",
            };
            b.splice(at..at, number.iter().copied());
        }
        6 => {
            let at = rng.below(b.len());
            b.insert(at, 0);
        }
        7 => b.splice(0..0, [0xEF, 0xBB, 0xBF]).for_each(drop),
        8 => {
            // Cut in the middle of a multi-byte character or an escape.
            let at = rng.below(b.len());
            b.truncate(at);
            b.extend_from_slice(&[0xE2, 0x82]);
        }
        _ => {
            // Replace the whole line with another's tail.
            let from = rng.below(other.len());
            b = other[from..].to_vec();
        }
    }
    b.retain(|x| *x != b'\n');
    b
}

/// Just after the opening quote of a random string value, if any.
fn find_string_start(rng: &mut Rng, b: &[u8]) -> Option<usize> {
    let starts: Vec<usize> = b
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] == b':' && w[1] == b'"')
        .map(|(i, _)| i + 2)
        .collect();
    (!starts.is_empty()).then(|| starts[rng.below(starts.len())])
}

fn load(path: &Path, is_codex: bool) -> Session {
    let loaded = if is_codex {
        codex::load_session(path)
    } else {
        claude_code::load_session(path, &[])
    };
    loaded.expect("a regular file loads")
}

fn ids(session: &Session) -> HashSet<String> {
    session
        .all_tool_calls()
        .map(|(_, r)| r.tool_use_id.clone())
        .collect()
}

/// Windows loaded (each twice); about 20 s in a debug build on 2 cores.
const CASES: usize = 1500;

#[test]
fn mutated_real_lines_load_keep_intact_calls_and_locate_diagnostics() {
    let sources = sources();
    assert!(sources.len() >= 10, "corpus sources: {}", sources.len());
    let files: Vec<(Vec<Vec<u8>>, bool)> = sources
        .iter()
        .map(|(p, codex)| {
            let text = std::fs::read(p).expect("read corpus file");
            let lines: Vec<Vec<u8>> = text
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .map(<[u8]>::to_vec)
                .collect();
            (lines, *codex)
        })
        .filter(|(lines, _)| !lines.is_empty())
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let mutated_path = dir.path().join("mutated.jsonl");
    let intact_path = dir.path().join("intact.jsonl");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut cases = 0;
    let mut mutated_lines = 0;
    let mut seen_messages: HashSet<String> = HashSet::new();
    for case in 0..CASES {
        let (lines, is_codex) = &files[case % files.len()];
        let window = 40.min(lines.len());
        let start = rng.below(lines.len() - window + 1);
        let picked = &lines[start..start + window];
        let mut out = Vec::with_capacity(window);
        let mut intact = Vec::new();
        for line in picked {
            if rng.below(4) == 0 {
                let other = &picked[rng.below(picked.len())];
                out.push(mutate(&mut rng, line, other));
                mutated_lines += 1;
            } else {
                out.push(line.clone());
                intact.push(line.clone());
            }
        }
        write_lines(&mutated_path, &out);
        write_lines(&intact_path, &intact);
        let mutated = load(&mutated_path, *is_codex);
        let alone = load(&intact_path, *is_codex);
        let kept = ids(&mutated);
        let mut missing: Vec<String> = ids(&alone)
            .into_iter()
            .filter(|id| !kept.contains(id))
            .collect();
        missing.sort();
        assert!(
            missing.is_empty(),
            "case {case} ({}): intact calls lost: {missing:?}",
            sources[case % files.len()].0.display()
        );
        for d in &mutated.diagnostics {
            seen_messages.insert(d.message.split(':').next().unwrap_or("").to_string());
            assert_eq!(d.path, mutated_path, "case {case}: {d}");
            let line = d.line().unwrap_or(0);
            assert!(
                (1..=out.len()).contains(&line),
                "case {case}: diagnostic without a line in the file: {d}"
            );
        }
        cases += 1;
    }
    assert_eq!(cases, CASES);
    // The mutations reach the repairs and refusals they are meant to.
    for message in [
        "invalid JSON",
        "invalid UTF-8 replaced with U+FFFD",
        "lone UTF-16 surrogate escape replaced with U+FFFD",
    ] {
        assert!(
            seen_messages.contains(message),
            "{message}: {seen_messages:?}"
        );
    }
    assert!(mutated_lines > CASES * 5, "mutated lines: {mutated_lines}");
}

/// A valid input nested as deep as serde_json parses (its limit is 128)
/// goes through the other recursive code: the digest, the summary, and
/// `find`'s redaction of the input.
#[test]
fn a_deeply_nested_valid_input_is_digested_and_found() {
    let depth = 120;
    let input = format!(
        r#"{{"command":"ls","deep":{}1{}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let lines = [
        r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"go"}}"#.to_string(),
        format!(
            r#"{{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2025-01-01T00:00:01Z","message":{{"id":"m","role":"assistant","content":[{{"type":"tool_use","id":"toolu_deep","name":"Bash","input":{input}}}]}}}}"#
        ),
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let s = claude_code::load_session(&path, &[]).expect("load");
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    let call = s.tool_calls().next().expect("the call");
    assert_eq!(call.summary(), "ls");
    assert_eq!(call.digest().map(|d| d.len()), Some(64));
    let out = hookscope()
        .timeout(std::time::Duration::from_secs(20))
        .arg("find")
        .arg(dir.path())
        .args(["--tool-name", "Bash", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["records"][0]["tool_use_id"], "toolu_deep");
    assert_eq!(v["records"][0]["digest"], serde_json::json!(call.digest()));
}
