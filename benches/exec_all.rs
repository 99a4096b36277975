//! `hookscope replay --all --exec` benchmark (not a test;
//! docs/benchmarks.md#your-hooks-over-every-event).
//!
//! Run: `cargo bench --bench exec_all [-- --corpus DIR] [--size 1GiB]
//! [--runs 3] [--jobs N]`
//!
//! 1. Corpus: `--corpus DIR` is reused when it already holds `.jsonl` files,
//!    else generated there (and kept); without `--corpus` it goes to a
//!    temporary folder removed at exit (`crates/test-support/src/gen_corpus.rs`,
//!    as the `find_vs_rg` bench makes it: the sessions of `tests/corpus`
//!    copied with fresh ids up to `--size`, default 1 GiB).
//! 2. Hooks: a settings file with one trivial handler, `true`, on
//!    PreToolUse `Bash`.
//! 3. Timing: `hookscope replay --all --exec --yes --json --settings S DIR`
//!    (the bench-profile binary; `--jobs` passed on when given, else the
//!    core count), once untimed (page cache), then `--runs` times. Printed:
//!    the median wall time, the events reached, the handler runs made, how
//!    many events the dedupe answered, and handler runs per second.

use hookscope_test_support::gen_corpus;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Options {
    corpus: Option<PathBuf>,
    size: u64,
    runs: usize,
    jobs: Option<usize>,
}

fn options() -> Options {
    let mut o = Options {
        corpus: None,
        size: 1 << 30,
        runs: 3,
        jobs: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--corpus" => o.corpus = args.next().map(PathBuf::from),
            "--size" => {
                if let Some(s) = args.next().as_deref().and_then(gen_corpus::parse_size) {
                    o.size = s;
                }
            }
            "--runs" => {
                if let Some(n) = args.next().and_then(|n| n.parse().ok()) {
                    o.runs = n;
                }
            }
            "--jobs" => o.jobs = args.next().and_then(|n| n.parse().ok()),
            _ => {} // `--bench` and friends, passed by cargo
        }
    }
    o.runs = o.runs.max(1);
    o
}

fn has_jsonl(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => has_jsonl(&p),
            Ok(t) if t.is_file() => p.extension().is_some_and(|x| x == "jsonl"),
            _ => false,
        }
    })
}

fn fail(what: &str) -> ! {
    eprintln!("exec_all bench: {what}");
    std::process::exit(2)
}

fn main() {
    let o = options();
    let source = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus"));
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_hookscope"));
    let _temp;
    let corpus = match &o.corpus {
        Some(dir) => dir.clone(),
        None => {
            let t = tempfile::TempDir::new()
                .unwrap_or_else(|e| fail(&format!("no temporary folder: {e}")));
            let p = t.path().to_path_buf();
            _temp = t;
            p
        }
    };
    if !has_jsonl(&corpus) {
        let start = Instant::now();
        match gen_corpus::generate(&source, &corpus, o.size) {
            Ok(g) => println!(
                "generated {}: {} copies × {} sessions in {:.1} s",
                corpus.display(),
                g.copies,
                g.sessions_per_copy,
                start.elapsed().as_secs_f64()
            ),
            Err(e) => fail(&format!("generating the corpus: {e}")),
        }
    }
    let hooks = tempfile::TempDir::new().unwrap_or_else(|e| fail(&format!("{e}")));
    let settings = hooks.path().join("settings.json");
    let text = r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]}}"#;
    std::fs::write(&settings, text).unwrap_or_else(|e| fail(&format!("{e}")));
    let run = || -> (Duration, serde_json::Value) {
        let mut c = Command::new(&binary);
        c.args(["replay", "--all", "--exec", "--yes", "--json", "--settings"])
            .arg(&settings)
            .arg(&corpus)
            .env("HOOKSCOPE_NO_INDEX", "1")
            .stderr(Stdio::null());
        if let Some(j) = o.jobs {
            c.args(["--jobs", &j.to_string()]);
        }
        let start = Instant::now();
        let out = c.output().unwrap_or_else(|e| fail(&format!("run: {e}")));
        let wall = start.elapsed();
        if !out.status.success() {
            fail(&format!("hookscope exited {:?}", out.status.code()));
        }
        let v =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| fail(&format!("not JSON: {e}")));
        (wall, v)
    };
    let (_, first) = run();
    let mut walls: Vec<Duration> = (0..o.runs).map(|_| run().0).collect();
    walls.sort();
    let median = walls[walls.len() / 2];
    let n = |k: &str| first[k].as_u64().unwrap_or(0);
    let handler_runs = n("handler_runs");
    println!(
        "replay --all --exec (handler `true` on PreToolUse Bash), {} sessions: {} events reached, {} handler runs, {} events answered by the dedupe",
        n("sessions"),
        n("events"),
        handler_runs,
        n("deduplicated")
    );
    #[allow(clippy::cast_precision_loss)]
    let per_sec = handler_runs as f64 / median.as_secs_f64();
    println!(
        "wall time, median of {}: {:.2} s; {:.0} handler runs per second",
        o.runs,
        median.as_secs_f64(),
        per_sec
    );
}
