//! `hookscope find` against ripgrep benchmark (not a test; docs/benchmarks.md#find-against-ripgrep).
//!
//! Run: `cargo bench --bench find_vs_rg [-- --corpus DIR] [--size 1GiB]
//! [--word git] [--runs 5]`
//!
//! 1. Corpus: `--corpus DIR` is reused when it already holds `.jsonl` files,
//!    else generated there (and kept); without `--corpus` it is generated
//!    into a temporary folder removed at exit. Generation replicates the
//!    sessions of all four agents in `tests/corpus` (Claude Code, Codex,
//!    OpenCode SQLite and legacy JSON, Droid) with fresh ids until the
//!    total reaches `--size` (default 1 GiB; `crates/test-support/src/gen_corpus.rs`).
//! 2. Page cache: every file is read once, then each command runs once
//!    untimed.
//! 3. Timing: `hookscope find DIR --tool-name Bash --input-contains WORD`
//!    (the binary cargo builds with the bench profile, stdout to /dev/null;
//!    default limit 50, then `--limit 1000`) and `rg -c WORD DIR`, run
//!    `--runs` times each, interleaved; medians of the wall times and the
//!    ratio find / rg are printed. When `rg` is not on PATH its part is
//!    skipped with a message (`apt-get install ripgrep`).
//!
//! 4. Backtest, in the same run on the same files:
//!    `hookscope replay --rules R --all DIR --json` with a one-rule set R
//!    comparable to the `find` query (PreToolUse, tool Bash, `only_if
//!    input_contains = WORD`, action block), timed `--runs` times with the
//!    others, beside `find --limit 10000` (every match, as the backtest
//!    visits every match); its block count is printed beside find's record
//!    count.
//!
//! Both tools use every core (rayon's and ripgrep's defaults).

// The heavy-user mode (`Heavy`, big sessions) is used by benches/heavy.rs.
#[allow(dead_code)]
use hookscope_test_support::gen_corpus;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `find`'s largest `--limit` (`query::params::MAX_LIMIT`): every match of
/// the bench's query (3,096 on the 1 GiB corpus), the query a backtest
/// (which visits every match) compares with.
const ALL: usize = 10_000;

/// Bench options (see the module doc).
struct Options {
    corpus: Option<PathBuf>,
    size: u64,
    word: String,
    runs: usize,
}

fn options() -> Options {
    let mut o = Options {
        corpus: None,
        size: 1 << 30,
        word: "git".to_string(),
        runs: 5,
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
            "--word" => {
                if let Some(w) = args.next() {
                    o.word = w;
                }
            }
            "--runs" => {
                if let Some(n) = args.next().and_then(|n| n.parse().ok()) {
                    o.runs = n;
                }
            }
            _ => {} // `--bench` and friends, passed by cargo
        }
    }
    o.runs = o.runs.max(1);
    o
}

/// Every regular file under `dir` (recursively).
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => files_under(&path, out),
            Ok(t) if t.is_file() => out.push(path),
            _ => {}
        }
    }
}

/// Runs `cmd` with stdout discarded; its wall time, `None` when it could not
/// run or failed (rg's exit 1 = "no match" counts as success).
fn time(cmd: &mut Command) -> Option<Duration> {
    let start = Instant::now();
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    let elapsed = start.elapsed();
    matches!(status.code(), Some(0) | Some(1)).then_some(elapsed)
}

fn median(mut samples: Vec<Duration>) -> Option<Duration> {
    samples.sort();
    samples.get(samples.len() / 2).copied()
}

fn secs(d: Option<Duration>) -> String {
    d.map_or("n/a".to_string(), |d| format!("{:.3} s", d.as_secs_f64()))
}

fn rg_available() -> bool {
    Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn main() {
    let o = options();
    let source = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus"));
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_hookscope"));

    // 1. The corpus.
    let _temp; // keeps a generated temporary corpus alive until the end
    let corpus = match &o.corpus {
        Some(dir) => dir.clone(),
        None => match tempfile::TempDir::new() {
            Ok(t) => {
                let p = t.path().to_path_buf();
                _temp = t;
                p
            }
            Err(e) => {
                eprintln!("find_vs_rg: cannot create a temporary folder: {e}");
                std::process::exit(2);
            }
        },
    };
    let mut files = Vec::new();
    files_under(&corpus, &mut files);
    if !files
        .iter()
        .any(|f| f.extension().is_some_and(|e| e == "jsonl"))
    {
        let start = Instant::now();
        match gen_corpus::generate(&source, &corpus, o.size) {
            Ok(g) => println!(
                "generated {}: {} copies × {} sessions ({:.2} MB per copy) in {:.1} s",
                corpus.display(),
                g.copies,
                g.sessions_per_copy,
                g.source_bytes as f64 / 1e6,
                start.elapsed().as_secs_f64()
            ),
            Err(e) => {
                eprintln!("find_vs_rg: generating the corpus: {e}");
                std::process::exit(2);
            }
        }
        if let Err(e) = gen_corpus::verify_first_copy(&source, &corpus) {
            eprintln!("find_vs_rg: warning: {e}");
        }
        files.clear();
        files_under(&corpus, &mut files);
    }
    let jsonl: Vec<&PathBuf> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    let bytes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "corpus {}: {} files ({} .jsonl), {:.3} GiB",
        corpus.display(),
        files.len(),
        jsonl.len(),
        bytes as f64 / (1u64 << 30) as f64
    );
    if bytes < (1 << 30) {
        println!("note: the corpus is smaller than 1 GiB");
    }

    // 2. Warm the page cache.
    for f in &files {
        let _ = std::fs::read(f);
    }
    // hookscope's index (docs/cli.md#index) goes to a folder of the bench's own, never
    // the user's cache; the untimed first run of each command builds it, so
    // the timed runs are warm-index runs.
    let cache_dir = match tempfile::TempDir::new() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("find_vs_rg: cannot create a temporary folder: {e}");
            std::process::exit(2);
        }
    };
    let find = |limit: Option<usize>, json: bool| {
        let mut c = Command::new(&binary);
        c.env("XDG_CACHE_HOME", cache_dir.path());
        c.arg("find")
            .arg(&corpus)
            .args(["--tool-name", "Bash", "--input-contains", &o.word]);
        if let Some(l) = limit {
            c.args(["--limit", &l.to_string()]);
        }
        if json {
            c.arg("--json");
        }
        c
    };
    let rg = || {
        let mut c = Command::new("rg");
        c.arg("-c").arg(&o.word).arg(&corpus);
        c
    };
    // The backtest's rule set: the find query as one rule.
    let rules_dir = match tempfile::TempDir::new() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("find_vs_rg: cannot create a temporary folder: {e}");
            std::process::exit(2);
        }
    };
    let rules = rules_dir.path().join("bench.toml");
    let rule_text = format!(
        "[[rules]]\nid = \"bash-{w}\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"bench\"\n[rules.only_if]\ninput_contains = {w:?}\n",
        w = o.word
    );
    if let Err(e) = std::fs::write(&rules, rule_text) {
        eprintln!("find_vs_rg: cannot write the rule set: {e}");
        std::process::exit(2);
    }
    let backtest = || {
        let mut c = Command::new(&binary);
        c.env("XDG_CACHE_HOME", cache_dir.path());
        c.arg("replay")
            .arg("--rules")
            .arg(&rules)
            .arg("--all")
            .arg(&corpus)
            .arg("--json");
        c
    };
    let have_rg = rg_available();
    if !have_rg {
        println!("rg (ripgrep) is not on PATH: skipping its part (apt-get install -y ripgrep)");
    }

    // Counts (untimed; also warms both commands).
    let records = |limit: Option<usize>| -> Option<usize> {
        let out = find(limit, true).stderr(Stdio::null()).output().ok()?;
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        v.get("records")?.as_array().map(Vec::len)
    };
    println!(
        "find --tool-name Bash --input-contains {}: {} records (default limit 50), {} with --limit 1000, {} with --limit 10000",
        o.word,
        records(None).map_or("?".to_string(), |n| n.to_string()),
        records(Some(1000)).map_or("?".to_string(), |n| n.to_string()),
        records(Some(10_000)).map_or("?".to_string(), |n| n.to_string()),
    );
    if have_rg {
        let counted = rg().output().ok().map(|out| {
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let (lines, files) = text
                .lines()
                .filter_map(|l| l.rsplit_once(':'))
                .filter_map(|(_, n)| n.parse::<u64>().ok())
                .fold((0u64, 0u64), |(sum, files), n| (sum + n, files + 1));
            (lines, files)
        });
        match counted {
            Some((lines, files)) => {
                println!("rg -c {}: {lines} matching lines in {files} files", o.word)
            }
            None => println!("rg -c {}: could not run", o.word),
        }
    }

    let blocked = backtest()
        .stderr(Stdio::null())
        .output()
        .ok()
        .and_then(|out| {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
            Some((
                v["rules"][0]["counts"]["block"].as_u64().unwrap_or(0),
                v["sessions"].as_u64()?,
                v["skipped"].as_u64()?,
                v["events"].as_u64()?,
            ))
        });
    match blocked {
        Some((b, s, k, e)) => println!(
            "replay --all (Bash, input_contains {}): {b} blocks over {e} events of {s} sessions ({k} skipped by the prefilter)",
            o.word
        ),
        None => println!("replay --all: could not run"),
    }

    // 3. Timed runs, interleaved.
    let mut t_bt = Vec::new();
    let mut t_find = Vec::new();
    let mut t_find_1000 = Vec::new();
    let mut t_find_all = Vec::new();
    let mut t_rg = Vec::new();
    for _ in 0..o.runs {
        if let Some(d) = time(&mut find(None, false)) {
            t_find.push(d);
        }
        if let Some(d) = time(&mut find(Some(1000), false)) {
            t_find_1000.push(d);
        }
        if let Some(d) = time(&mut find(Some(ALL), false)) {
            t_find_all.push(d);
        }
        if have_rg && let Some(d) = time(&mut rg()) {
            t_rg.push(d);
        }
        if let Some(d) = time(&mut backtest()) {
            t_bt.push(d);
        }
    }
    let m_bt = median(t_bt);
    let m_find_all = median(t_find_all);
    let (m_find, m_find_1000, m_rg) = (median(t_find), median(t_find_1000), median(t_rg));
    println!(
        "medians of {} runs ({} cores):",
        o.runs,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("  hookscope find (limit 50):   {}", secs(m_find));
    println!("  hookscope find --limit 1000: {}", secs(m_find_1000));
    println!(
        "  hookscope find --limit {ALL}: {} (every match)",
        secs(m_find_all)
    );
    println!("  hookscope replay --all:      {}", secs(m_bt));
    if let (Some(b), Some(f), Some(f1)) = (m_bt, m_find_all, m_find_1000)
        && !f.is_zero()
        && !f1.is_zero()
    {
        println!(
            "  ratio replay --all / find: {:.2}× (every match), {:.2}× (limit 1000)",
            b.as_secs_f64() / f.as_secs_f64(),
            b.as_secs_f64() / f1.as_secs_f64()
        );
    }
    if have_rg {
        println!(
            "  rg -c {}:{} {}",
            o.word,
            " ".repeat(18usize.saturating_sub(o.word.len())),
            secs(m_rg)
        );
        let ratio = |a: Option<Duration>| match (a, m_rg) {
            (Some(a), Some(r)) if !r.is_zero() => {
                format!("{:.2}×", a.as_secs_f64() / r.as_secs_f64())
            }
            _ => "n/a".to_string(),
        };
        println!(
            "  ratio find / rg: {} (limit 50), {} (limit 1000); goal ≤ 2×",
            ratio(m_find),
            ratio(m_find_1000)
        );
    }
}
