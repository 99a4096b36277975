//! The heavy-user benchmark (docs/benchmarks.md#heavy-user-benchmark; not a test): one run reports every
//! number the heavy-user budget names, on a generated heavy corpus.
//!
//! Run: `cargo build --release && cargo bench --bench heavy [-- --corpus DIR]
//! [--size 5GiB] [--runs 3]`
//!
//! 1. Corpus: `--corpus DIR` is reused when it holds files, else generated
//!    there (and kept) in the heavy-user shape: 128 copies of `tests/corpus`
//!    (all four agents), the heavy-user mode's three 301 MB Claude Code
//!    sessions with ten 10 MB lines each, and 983 bulk Claude Code sessions
//!    filling the rest of `--size` (`crates/test-support/src/gen_corpus.rs`,
//!    `gen_corpus --heavy --copies 128 --bulk 983`). Without `--corpus` it goes to a temporary
//!    folder removed at exit.
//! 2. Every command runs `target/release/hookscope` (build it first) with
//!    `XDG_CACHE_HOME` set to a folder of the bench's own, so the user's
//!    cache is never touched: **cold** = that folder emptied first (an index
//!    is built when hookscope keeps one), **warm** = the same command again.
//! 3. Reported, medians of `--runs` where repeated:
//!    * `sessions DIR` cold (time, MB/s of corpus bytes) and warm, and two
//!      cold builds at once (the second waits for the first's build lock);
//!    * the TUI's start (hidden `--bench-probe FILTER`): first frame,
//!      complete list with counts, the Calls view's first answer (its
//!      first page of 100 records on a list of 1,000 sessions or more) and
//!      whole answer for `tool:Bash` and for `is:error`;
//!    * peak RSS of each command (`wait4`'s `ru_maxrss`);
//!    * `show BIG` on one 301 MB session: time and peak RSS;
//!    * `find DIR --tool-name Bash --input-contains git` at `--limit 50`,
//!      `1000` and every match, against `rg -c git DIR` (page cache warm,
//!      interleaved), with the ratios.
//!
//! Nothing here asserts; numbers go in the README's Benchmarks section.

use hookscope_test_support::gen_corpus;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Bench options (see the module doc).
struct Options {
    corpus: Option<PathBuf>,
    size: u64,
    runs: usize,
}

fn options() -> Options {
    let mut o = Options {
        corpus: None,
        size: 5 << 30,
        runs: 3,
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
            _ => {} // cargo bench passes --bench
        }
    }
    o
}

/// One finished command: wall seconds, peak RSS in MB, stdout.
struct Ran {
    secs: f64,
    rss_mb: f64,
    stdout: String,
}

/// Runs `cmd` to the end with stdout captured (stdin null, stderr
/// discarded), reaping it with `wait4` to read its peak RSS.
fn run(mut cmd: Command) -> Ran {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let start = Instant::now();
    let Ok(mut child) = cmd.spawn() else {
        return Ran {
            secs: f64::NAN,
            rss_mb: f64::NAN,
            stdout: String::new(),
        };
    };
    let mut stdout = String::new();
    if let Some(mut out) = child.stdout.take() {
        use std::io::Read;
        let mut buf = Vec::new();
        let _ = out.read_to_end(&mut buf);
        stdout = String::from_utf8_lossy(&buf).into_owned();
    }
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data, zero is a valid value; wait4 fills it
    // for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not yet reaped; the pointers are valid.
    unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    Ran {
        secs: start.elapsed().as_secs_f64(),
        rss_mb: usage.ru_maxrss as f64 / 1024.0,
        stdout,
    }
}

/// How many records a `find --json` answer holds (0 when it is not one).
/// `hookscope find DIR ARGS --json` (the command `hookscope` builds) run
/// `runs` times: the median time (s) and peak RSS (MB), and the last
/// run's stdout.
fn find_json(
    hookscope: &dyn Fn(&[&str]) -> Command,
    dir: &str,
    args: &[&str],
    runs: usize,
) -> (f64, f64, String) {
    let mut times = Vec::new();
    let mut rss = Vec::new();
    let mut stdout = String::new();
    for _ in 0..runs {
        let mut full = vec!["find", dir];
        full.extend_from_slice(args);
        full.push("--json");
        let r = run(hookscope(&full));
        times.push(r.secs);
        rss.push(r.rss_mb);
        stdout = r.stdout;
    }
    (median(times), median(rss), stdout)
}

fn records_in(stdout: &str) -> usize {
    serde_json::from_str::<serde_json::Value>(stdout)
        .ok()
        .and_then(|v| v["records"].as_array().map(Vec::len))
        .unwrap_or(0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn corpus_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => total += e.metadata().map_or(0, |m| m.len()),
                _ => {}
            }
        }
    }
    total
}

fn main() {
    let o = options();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let binary = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("release/hookscope");
    if !binary.is_file() {
        eprintln!("heavy bench: build `cargo build --release` first");
        std::process::exit(2);
    }
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let corpus = o
        .corpus
        .clone()
        .unwrap_or_else(|| scratch.path().join("corpus"));
    let has_files = std::fs::read_dir(&corpus).is_ok_and(|mut d| d.next().is_some());
    if !has_files {
        let source = root.join("tests/corpus");
        let start = Instant::now();
        // The heavy-user shape: 128 copies (7,808 sessions), three 301 MB
        // sessions, and 983 bulk sessions filling the rest of `--size`
        // (8,794 sessions in all).
        let g = gen_corpus::generate_copies(&source, &corpus, o.size, Some(128))
            .expect("corpus generated");
        let (big, mut big_bytes) =
            gen_corpus::generate_big_sessions(&source, &corpus, &gen_corpus::Heavy::default())
                .expect("big sessions generated");
        let each = o.size.saturating_sub(g.bytes + big_bytes) / 983;
        big_bytes += gen_corpus::generate_bulk_sessions(&source, &corpus, 983, each.max(1))
            .expect("bulk sessions generated")
            .1;
        if let Err(e) = gen_corpus::verify_first_copy(&source, &corpus) {
            eprintln!("heavy bench: warning: {e}");
        }
        println!(
            "generated {}: {} copies × {} sessions ({:.1} MB each), {} files, {:.2} GB + {big} big sessions {:.2} GB in {:.0} s",
            corpus.display(),
            g.copies,
            g.sessions_per_copy,
            g.source_bytes as f64 / 1e6,
            g.files,
            g.bytes as f64 / 1e9,
            big_bytes as f64 / 1e9,
            start.elapsed().as_secs_f64()
        );
    }
    let bytes = corpus_bytes(&corpus);
    let cache = scratch.path().join("cache");
    let hookscope = |args: &[&str]| {
        let mut c = Command::new(&binary);
        c.args(args)
            .env("XDG_CACHE_HOME", &cache)
            .env("NO_COLOR", "1");
        c
    };
    let dir = corpus.to_string_lossy().into_owned();
    println!("corpus {dir}: {:.2} GB", bytes as f64 / 1e9);

    // Page cache: every file read once (rg reads them all).
    let _ = Command::new("rg")
        .args(["-c", "--no-messages", "git", &dir])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();

    // Cold and warm session lists.
    let _ = std::fs::remove_dir_all(&cache);
    let cold = run(hookscope(&["sessions", &dir, "--json"]));
    println!(
        "sessions, cold: {:.2} s ({:.0} MB/s), peak RSS {:.0} MB",
        cold.secs,
        bytes as f64 / 1e6 / cold.secs,
        cold.rss_mb
    );
    // Two cold builds at once, the second started 2 s after the first:
    // the second waits for the first's build lock and reuses its rows
    // (docs/cli.md "Index").
    let _ = std::fs::remove_dir_all(&cache);
    std::thread::scope(|scope| {
        let first = scope.spawn(|| run(hookscope(&["sessions", &dir, "--json"])));
        std::thread::sleep(std::time::Duration::from_secs(2));
        let second = run(hookscope(&["sessions", &dir, "--json"]));
        let first = first.join().unwrap_or(Ran {
            secs: f64::NAN,
            rss_mb: f64::NAN,
            stdout: String::new(),
        });
        println!(
            "sessions, two cold builds at once (the second 2 s later): first {:.2} s, second {:.2} s after its start ({:.0} / {:.0} MB); same list: {}",
            first.secs,
            second.secs,
            first.rss_mb,
            second.rss_mb,
            first.stdout == second.stdout && first.stdout == cold.stdout
        );
    });
    let warm: Vec<Ran> = (0..o.runs)
        .map(|_| run(hookscope(&["sessions", &dir, "--json"])))
        .collect();
    println!(
        "sessions, warm: {:.2} s, peak RSS {:.0} MB",
        median(warm.iter().map(|r| r.secs).collect()),
        median(warm.iter().map(|r| r.rss_mb).collect())
    );

    // The TUI's start.
    for filter in ["tool:Bash", "is:error"] {
        let mut samples: Vec<[f64; 4]> = Vec::new();
        let mut rss = Vec::new();
        for _ in 0..o.runs {
            let r = run(hookscope(&["--bench-probe", filter, &dir]));
            let v: Vec<f64> = r
                .stdout
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if let [a, b, c, d] = v[..] {
                samples.push([a, b, c, d]);
            }
            rss.push(r.rss_mb);
        }
        let col = |i: usize| median(samples.iter().map(|s| s[i]).collect());
        println!(
            "TUI ({filter}): first frame {:.0} ms, list complete {:.0} ms, Calls first answer {:.0} ms (whole answer {:.0} ms), peak RSS {:.0} MB",
            col(0),
            col(1),
            col(2),
            col(3),
            median(rss)
        );
    }

    // The big session.
    let big_dir = corpus.join("big/p-big");
    let big = std::fs::read_dir(&big_dir)
        .ok()
        .and_then(|mut d| d.find_map(|e| e.ok().map(|e| e.path())));
    if let Some(big) = big {
        let size = std::fs::metadata(&big).map_or(0, |m| m.len());
        let big = big.to_string_lossy().into_owned();
        let runs: Vec<Ran> = (0..o.runs)
            .map(|_| run(hookscope(&["show", &big])))
            .collect();
        println!(
            "show one {:.0} MB session: {:.2} s, peak RSS {:.0} MB",
            size as f64 / 1e6,
            median(runs.iter().map(|r| r.secs).collect()),
            median(runs.iter().map(|r| r.rss_mb).collect())
        );
    }

    // find against rg -c.
    let rg_ok = Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let limits = ["50", "1000", "1000000"];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); limits.len()];
    let mut rss: Vec<Vec<f64>> = vec![Vec::new(); limits.len()];
    let mut counts = vec![0usize; limits.len()];
    let mut rg_times = Vec::new();
    for _ in 0..o.runs {
        for (i, limit) in limits.iter().enumerate() {
            let r = run(hookscope(&[
                "find",
                &dir,
                "--tool-name",
                "Bash",
                "--input-contains",
                "git",
                "--limit",
                limit,
                "--json",
            ]));
            counts[i] = records_in(&r.stdout);
            times[i].push(r.secs);
            rss[i].push(r.rss_mb);
        }
        if rg_ok {
            let mut c = Command::new("rg");
            c.args(["-c", "git", &dir]);
            rg_times.push(run(c).secs);
        }
    }
    let rg = median(rg_times);
    for (i, limit) in limits.iter().enumerate() {
        let t = median(times[i].clone());
        println!(
            "find --limit {limit}: {t:.2} s ({} records, peak RSS {:.0} MB){}",
            counts[i],
            median(rss[i].clone()),
            if rg_ok {
                format!(", {:.2}× rg -c ({rg:.2} s)", t / rg)
            } else {
                String::new()
            }
        );
    }
    if !rg_ok {
        println!("rg not on PATH: the ratios are skipped (apt-get install ripgrep)");
    }

    // Queries the index answers (name, kind, error, time): warm, the
    // discovery kept in the index (stored by the runs above).
    let index_queries: [(&str, &[&str], f64); 6] = [
        ("nothing matches", &["--tool-name", "NoSuchTool"], 0.05),
        ("first page, one name", &["--tool-name", "Bash"], 0.1),
        (
            "first page, errors",
            &[
                "--tool-name",
                "Bash",
                "--is-error",
                "true",
                "--limit",
                "100",
            ],
            0.1,
        ),
        (
            "first page, since a date",
            &[
                "--tool-name",
                "Read",
                "--since",
                "2026-01-01",
                "--limit",
                "100",
            ],
            0.1,
        ),
        (
            "10,000 records, errors",
            &[
                "--tool-name",
                "Bash",
                "--is-error",
                "true",
                "--limit",
                "10000",
            ],
            0.3,
        ),
        (
            "10,000 records, pattern",
            &["--tool-name-pattern", "Grep", "--limit", "10000"],
            0.3,
        ),
    ];
    for (what, args, budget) in index_queries {
        let (t, m, stdout) = find_json(&hookscope, &dir, args, o.runs);
        let records = records_in(&stdout);
        println!(
            "index query, {what} (find {}): {:.0} ms, {records} records, peak RSS {m:.0} MB; budget ≤ {:.0} ms and ≤ 150 MB: {}{}",
            args.join(" "),
            t * 1000.0,
            budget * 1000.0,
            if t <= budget && m <= 150.0 {
                "met"
            } else {
                "MISSED"
            },
            if rg_ok {
                format!(", {:.2}× rg -c", t / rg)
            } else {
                String::new()
            }
        );
    }

    // Counts and facets (`find --count` / `--group-by`): no budget of
    // their own in docs/benchmarks.md; `rg -c` beside them.
    let counts: [(&str, &[&str]); 3] = [
        ("count, one name", &["--tool-name", "Bash", "--count"]),
        (
            "group by day, errors",
            &[
                "--tool-name",
                "Bash",
                "--is-error",
                "true",
                "--group-by",
                "day",
            ],
        ),
        (
            "group by agent, every call",
            &["--tool-name-pattern", "", "--group-by", "agent"],
        ),
    ];
    for (what, args) in counts {
        let (t, m, stdout) = find_json(&hookscope, &dir, args, o.runs);
        let total = serde_json::from_str::<serde_json::Value>(&stdout)
            .ok()
            .and_then(|v| v["total"].as_u64())
            .unwrap_or(0);
        println!(
            "index count, {what} (find {}): {:.0} ms, {total} calls, peak RSS {:.0} MB{}",
            args.join(" "),
            t * 1000.0,
            m,
            if rg_ok {
                format!(", {:.2}× rg -c", t / rg)
            } else {
                String::new()
            }
        );
    }

    // Backtests (`replay --rules R --all`): the bundled example set, once
    // (it is the slowest figure), and a set of one tool rule beside the
    // `find` that asks the same (every match, measured above).
    let example = root.join("assets/rules/example.toml");
    let r = run(hookscope(&[
        "replay",
        "--rules",
        &example.to_string_lossy(),
        "--all",
        &dir,
        "--json",
    ]));
    let events = serde_json::from_str::<serde_json::Value>(&r.stdout)
        .ok()
        .and_then(|v| v["events"].as_u64())
        .unwrap_or(0);
    println!(
        "backtest, the example rule set (replay --all): {:.2} s, {events} events evaluated, peak RSS {:.0} MB; budget ≤ 15 s and ≤ 300 MB: {}",
        r.secs,
        r.rss_mb,
        if r.secs <= 15.0 && r.rss_mb <= 300.0 {
            "met"
        } else {
            "MISSED"
        }
    );
    let one = scratch.path().join("one-tool-rule.toml");
    let wrote = std::fs::write(
        &one,
        "[[rules]]\nid = \"git\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"r\"\n[rules.only_if]\ninput_contains = \"git\"\n",
    );
    if wrote.is_ok() {
        let find_every = median(times[2].clone());
        let mut secs = Vec::new();
        for _ in 0..o.runs {
            secs.push(
                run(hookscope(&[
                    "replay",
                    "--rules",
                    &one.to_string_lossy(),
                    "--all",
                    &dir,
                    "--json",
                ]))
                .secs,
            );
        }
        let t = median(secs);
        println!(
            "backtest, one tool rule (Bash, input_contains git): {t:.2} s = {:.2}× find every match ({find_every:.2} s); budget ≤ 2×: {}",
            t / find_every,
            if t <= 2.0 * find_every {
                "met"
            } else {
                "MISSED"
            }
        );
    }
}
