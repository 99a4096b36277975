//! Load benchmark (not a test): discovers and fully loads every Claude Code
//! session under a corpus folder repeatedly and reports sessions/s and MB/s.
//!
//! Run: `cargo bench --bench load [-- CORPUS [ROUNDS]]`
//! (default corpus `tests/corpus`, 20 rounds).
//! When `target/release/hookscope` exists it also reports the time to first
//! frame: the binary's hidden `--first-frame` flag discovers, builds the app
//! and renders one frame headless, then prints the elapsed milliseconds.
//! It also times the shell parser on a 150,000-stage (900 KB) pipeline.

use std::path::PathBuf;
use std::time::Instant;

use hookscope_core::transcript::{discover, load};
use rayon::prelude::*;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let corpus = args
        .first()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus")));
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(20);

    let found = match discover(std::slice::from_ref(&corpus)) {
        Ok(found) => found,
        Err(e) => {
            eprintln!("load bench: {e}");
            std::process::exit(2);
        }
    };
    let bytes: u64 = found.sessions.iter().map(|s| s.total_bytes()).sum();
    println!(
        "corpus {}: {} sessions, {:.2} MB (main + subagent files)",
        corpus.display(),
        found.sessions.len(),
        bytes as f64 / 1e6
    );

    for (label, parallel) in [("sequential", false), ("parallel (rayon)", true)] {
        let start = Instant::now();
        let mut loaded = 0usize;
        for _ in 0..rounds {
            let discovered = discover(std::slice::from_ref(&corpus))
                .map(|d| d.sessions)
                .unwrap_or_default();
            loaded += if parallel {
                discovered.par_iter().filter(|s| load(s).is_ok()).count()
            } else {
                discovered.iter().filter(|s| load(s).is_ok()).count()
            };
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{label:>18}: {rounds} rounds in {secs:.3} s — {:.0} sessions/s, {:.1} MB/s (discovery included)",
            loaded as f64 / secs,
            (bytes as f64 * rounds as f64) / 1e6 / secs
        );
    }

    // The shell parser on a 150,000-stage pipeline (900 KB): bounded by
    // shell::MAX_PARSED_BYTES / MAX_CALLS (it took 2.5 s and 500 MB before).
    let pipeline = "cat | ".repeat(149_999) + "cat";
    let start = Instant::now();
    let line = hookscope_core::shell::parse_command_line(&pipeline);
    println!(
        "shell: {} KB pipeline parsed in {:.1} ms ({} calls kept, {} bytes not parsed)",
        pipeline.len() / 1000,
        start.elapsed().as_secs_f64() * 1e3,
        line.calls.len(),
        line.truncated.unwrap_or(0)
    );

    let binary = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/target/release/hookscope"
    ));
    let binary = std::env::var_os("CARGO_TARGET_DIR")
        .map(|d| PathBuf::from(d).join("release/hookscope"))
        .filter(|p| p.is_file())
        .unwrap_or(binary);
    if binary.is_file() {
        let mut samples = Vec::new();
        for _ in 0..5 {
            let out = std::process::Command::new(&binary)
                .arg("--first-frame")
                // As before the index: the start without it (and the user's
                // cache folder left alone); benches/heavy.rs measures the
                // indexed start.
                .arg("--no-index")
                .arg(&corpus)
                .output();
            if let Ok(out) = out
                && let Ok(text) = String::from_utf8(out.stdout)
                && let Ok(ms) = text.trim().parse::<f64>()
            {
                samples.push(ms);
            }
        }
        samples.sort_by(f64::total_cmp);
        match samples.get(samples.len() / 2) {
            Some(median) => println!(
                "time to first frame (median of {}): {median:.1} ms",
                samples.len()
            ),
            None => {
                println!("time to first frame: the binary did not report (build it with --release)")
            }
        }
    } else {
        println!("time to first frame: build `cargo build --release` first");
    }
}
