//! How fast a transcript line can be parsed, three ways (docs/benchmarks.md,
//! "Parsing: what a typed, skipping parse would gain"; not a test): into a
//! `serde_json::Value` tree (what every loader and the index build do
//! today), into serde's `IgnoredAny` (validation only: the floor of any
//! serde parse), and into the few typed fields an index row needs (the
//! envelope's `type`, `uuid`, `timestamp`, `isSidechain`; the message's
//! `content` kept as raw text and its blocks read only when it is an
//! array, each block's `input` kept raw; big values skipped with
//! `IgnoredAny`). One thread, each way over the same lines, twice.
//!
//! Run: `cargo bench --bench parse [-- --corpus DIR] [--mb 400]` (default
//! `tests/corpus`; every `.jsonl` under DIR, up to `--mb` MB read into
//! memory first).

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The envelope fields a row needs.
#[derive(Deserialize)]
#[allow(dead_code)] // read by the parse only
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    uuid: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain")]
    sidechain: Option<bool>,
    #[serde(borrow)]
    message: Option<Message<'a>>,
    #[serde(rename = "toolUseResult")]
    tool_use_result: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Message<'a> {
    #[serde(borrow)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

/// A content block: a `tool_use`'s id, name and raw input, a
/// `tool_result`'s id and error flag; text and outputs skipped.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    is_error: Option<bool>,
    content: Option<IgnoredAny>,
    text: Option<IgnoredAny>,
}

fn jsonl_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(kind) = e.file_type() else { continue };
        let path = e.path();
        if kind.is_dir() {
            jsonl_under(&path, out);
        } else if kind.is_file() && path.extension().is_some_and(|x| x == "jsonl") {
            out.push(path);
        }
    }
}

fn main() {
    let mut corpus = PathBuf::from("tests/corpus");
    let mut mb: usize = 400;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--corpus" => corpus = args.next().map_or(corpus, PathBuf::from),
            "--mb" => mb = args.next().and_then(|n| n.parse().ok()).unwrap_or(mb),
            _ => {}
        }
    }
    let mut files = Vec::new();
    jsonl_under(&corpus, &mut files);
    files.sort();
    let mut data = Vec::new();
    for f in &files {
        if data.len() >= mb << 20 {
            break;
        }
        if let Ok(bytes) = std::fs::read(f) {
            data.extend_from_slice(&bytes);
            data.push(b'\n');
        }
    }
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let total = data.len() as f64 / 1e6;
    println!(
        "{} lines, {total:.0} MB, from {}",
        lines.len(),
        corpus.display()
    );
    for round in 1..=2 {
        let rate = |parse: &dyn Fn(&[u8]) -> bool| {
            let t = Instant::now();
            let ok = lines.iter().filter(|l| parse(l)).count();
            (total / t.elapsed().as_secs_f64(), ok)
        };
        let value = rate(&|l| serde_json::from_slice::<serde_json::Value>(l).is_ok());
        let floor = rate(&|l| serde_json::from_slice::<IgnoredAny>(l).is_ok());
        let typed = rate(&|l| {
            let Ok(line) = serde_json::from_slice::<Line>(l) else {
                return false;
            };
            match line.message.and_then(|m| m.content) {
                Some(c) if c.get().starts_with('[') => {
                    serde_json::from_str::<Vec<Block>>(c.get()).is_ok()
                }
                _ => true,
            }
        });
        println!(
            "round {round}: Value {:.0} MB/s ({} lines), IgnoredAny {:.0} MB/s ({}), typed row fields {:.0} MB/s ({})",
            value.0, value.1, floor.0, floor.1, typed.0, typed.1
        );
    }
}
