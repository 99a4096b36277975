//! Generates a large benchmark corpus by replicating the sessions of every
//! agent (Claude Code, Codex, OpenCode, Droid) of a source corpus with fresh
//! session ids (see
//! `crates/test-support/src/gen_corpus.rs` for the layout and the id rewriting).
//!
//! Run: `cargo run --release --example gen_corpus -- OUT_DIR [--size 1GiB]
//! [--source tests/corpus] [--heavy]`
//!
//! `--heavy` (the heavy-user mode, docs/benchmarks.md#heavy-user-benchmark) adds three big Claude Code
//! sessions of 301 MB, each with ten 10 MB lines, in `OUT_DIR/big/p-big/`
//! (`--big N` sets how many); use it with `--size 5GiB` for the heavy-user
//! 5 GB corpus.
//!
//! `--copies N` stops after N copies of the source and `--bulk N` then
//! fills the rest of `--size` with N medium Claude Code sessions
//! (`OUT_DIR/bulk/p-bulk/`): the heavy-user shape of fewer, bigger sessions is
//! `--size 5GiB --heavy --copies 128 --bulk 983` (8,794 sessions).
//!
//! `--size` accepts `1GiB`, `512MiB`, `300MB`, … (default `1GiB`); the output
//! is at least that big (whole copies). Exit status 2 on a bad argument, 1 when
//! generation fails.

use hookscope_test_support::gen_corpus;

use std::path::PathBuf;
use std::time::Instant;

fn usage() -> ! {
    eprintln!(
        "usage: gen_corpus OUT_DIR [--size 1GiB] [--source DIR] [--heavy] [--big N] [--copies N] [--bulk N]  (default source tests/corpus)"
    );
    std::process::exit(2)
}

fn main() {
    let mut out: Option<PathBuf> = None;
    let mut size = 1u64 << 30;
    let mut source = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus"));
    let mut heavy: Option<gen_corpus::Heavy> = None;
    let mut copies: Option<usize> = None;
    let mut bulk: usize = 0;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--size" => match args.next().as_deref().and_then(gen_corpus::parse_size) {
                Some(s) => size = s,
                None => usage(),
            },
            "--source" => match args.next() {
                Some(s) => source = PathBuf::from(s),
                None => usage(),
            },
            "--heavy" => heavy = Some(heavy.take().unwrap_or_default()),
            "--big" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => {
                    heavy = Some(gen_corpus::Heavy {
                        sessions: n,
                        ..heavy.take().unwrap_or_default()
                    })
                }
                None => usage(),
            },
            "--copies" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => copies = Some(n),
                _ => usage(),
            },
            "--bulk" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => bulk = n,
                None => usage(),
            },
            "-h" | "--help" => usage(),
            other if other.starts_with("--") => usage(),
            other if out.is_none() => out = Some(PathBuf::from(other)),
            _ => usage(),
        }
    }
    let Some(out) = out else { usage() };
    let start = Instant::now();
    match gen_corpus::generate_copies(&source, &out, size, copies) {
        Ok(g) => {
            println!(
                "{}: {} copies × {} sessions, {} files, {:.2} GiB ({:.2} MB per copy) in {:.1} s",
                out.display(),
                g.copies,
                g.sessions_per_copy,
                g.files,
                g.bytes as f64 / (1u64 << 30) as f64,
                g.source_bytes as f64 / 1e6,
                start.elapsed().as_secs_f64()
            );
            if let Err(e) = gen_corpus::verify_first_copy(&source, &out) {
                eprintln!("gen_corpus: warning: {e}");
            }
            let mut written = g.bytes;
            if let Some(heavy) = &heavy {
                let start = Instant::now();
                match gen_corpus::generate_big_sessions(&source, &out, heavy) {
                    Ok((files, bytes)) => {
                        written += bytes;
                        println!(
                            "{}: {files} big sessions, {:.2} GB, {} lines of {} MB each, in {:.1} s",
                            out.join("big").display(),
                            bytes as f64 / 1e9,
                            heavy.big_lines,
                            heavy.line_bytes / 1_000_000,
                            start.elapsed().as_secs_f64()
                        )
                    }
                    Err(e) => {
                        eprintln!("gen_corpus: {e}");
                        std::process::exit(1);
                    }
                }
            }
            if bulk > 0 {
                let start = Instant::now();
                let each = size.saturating_sub(written) / bulk as u64;
                match gen_corpus::generate_bulk_sessions(&source, &out, bulk, each.max(1)) {
                    Ok((files, bytes)) => println!(
                        "{}: {files} bulk sessions, {:.2} GB ({:.2} MB each), in {:.1} s",
                        out.join("bulk").display(),
                        bytes as f64 / 1e9,
                        bytes as f64 / 1e6 / files.max(1) as f64,
                        start.elapsed().as_secs_f64()
                    ),
                    Err(e) => {
                        eprintln!("gen_corpus: {e}");
                        std::process::exit(1);
                    }
                }
            }
        }
        Err(e) => {
            eprintln!("gen_corpus: {e}");
            std::process::exit(1);
        }
    }
}
