//! Terminal escape injection (docs/security.md "Terminal output"): a
//! seeded property test puts control sequences (OSC 0 retitle, OSC 52
//! clipboard write, CSI clear, C1 CSI, CR, BEL, DEL, NUL) into every text
//! field of a real transcript (prompts, commands, tool results, hook
//! output, ids, paths), into its file name, a settings file and a rule
//! file, then runs every text subcommand over them. No text output, on
//! stdout or stderr, may carry a raw C0 control other than tab and
//! newline, DEL, or a C1 control: each is printed as a visible escape.
//!
//! Before the fix `sessions`, `show`, `hooks --activity`, `replay` and
//! `tail` printed them raw (this test failed on each).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{corpus, hookscope};

/// The sequences put into text fields.
const NASTY: &[&str] = &[
    "\u{1b}]0;PWNED\u{7}",
    "\u{1b}]52;c;cm0gLXJmIH4=\u{7}",
    "\u{1b}[2J\u{1b}[H",
    "\u{9b}31m",
    "\r",
    "\u{7f}",
    "\u{0}",
    "\u{1b}P+q\u{1b}\\",
];

/// Fields whose value steers parsing (kept so the lines still load).
const STRUCTURAL: &[&str] = &[
    "type",
    "role",
    "subtype",
    "level",
    "timestamp",
    "version",
    "hookEvent",
    "hookEventName",
    "hook_event_name",
    "stop_reason",
    "userType",
    "decision",
    "source",
];

/// xorshift64*: a fixed-seed generator, so a failure reproduces.
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
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `text` with one of [`NASTY`] at a random char boundary; the same text
/// always becomes the same (ids stay linked).
fn poison(text: &str, rng: &mut Rng, seen: &mut HashMap<String, String>) -> String {
    if let Some(done) = seen.get(text) {
        return done.clone();
    }
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let at = bounds[rng.below(bounds.len())];
    let nasty = NASTY[rng.below(NASTY.len())];
    let out = format!("{}{nasty}{}", &text[..at], &text[at..]);
    seen.insert(text.to_string(), out.clone());
    out
}

fn walk(value: &mut Value, key: Option<&str>, rng: &mut Rng, seen: &mut HashMap<String, String>) {
    match value {
        Value::String(s) if !key.is_some_and(|k| STRUCTURAL.contains(&k)) => {
            *s = poison(s, rng, seen);
        }
        // A JSON text inside a string (a hook's stdout) is poisoned inside.
        Value::Array(items) => items.iter_mut().for_each(|v| walk(v, None, rng, seen)),
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                walk(v, Some(k), rng, seen);
            }
        }
        _ => {}
    }
}

/// Copies every file under `from` to `to`, poisoning each JSONL line.
fn poison_tree(from: &Path, to: &Path, rng: &mut Rng, seen: &mut HashMap<String, String>) {
    std::fs::create_dir_all(to).expect("mkdir");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(from)
        .expect("read_dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().expect("name");
        if p.is_dir() {
            poison_tree(&p, &to.join(name), rng, seen);
            continue;
        }
        let text = std::fs::read_to_string(&p).expect("read");
        let mut out = String::new();
        for line in text.lines() {
            match serde_json::from_str::<Value>(line) {
                Ok(mut v) => {
                    walk(&mut v, None, rng, seen);
                    out.push_str(&v.to_string());
                }
                Err(_) => out.push_str(line),
            }
            out.push('\n');
        }
        std::fs::write(to.join(name), out).expect("write");
    }
}

fn run(args: &[&std::ffi::OsStr]) -> (Vec<u8>, Vec<u8>) {
    let out = hookscope()
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("run");
    (out.stdout, out.stderr)
}

/// The first raw control (C0 but tab/newline, DEL, C1) in `bytes`, with
/// some context.
fn raw_control(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let (i, c) = text
        .char_indices()
        .find(|&(_, c)| hookscope_core::printable::is_unsafe(c))?;
    let from = text[..i].char_indices().rev().nth(40).map_or(0, |(j, _)| j);
    Some(format!("{c:?} after {:?}", &text[from..i]))
}

#[test]
fn no_text_output_carries_a_raw_control() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut seen = HashMap::new();
    let sources = [
        "real-cc-2.1.332/hooks_c8_outcomes/projects",
        "real-cc-2.1.332/hooks_c2_exit2/projects",
        "real-codex-0.171.0/basic",
    ];
    let mut checked = 0;
    for seed in [0x9e37_79b9_7f4a_7c15_u64, 0x0bad_cafe_dead_beef, 42] {
        let mut rng = Rng(seed);
        let root = dir.path().join(format!("s{seed:x}"));
        for (i, s) in sources.iter().enumerate() {
            poison_tree(&corpus(s), &root.join(i.to_string()), &mut rng, &mut seen);
        }
        // A session file whose name itself carries a retitle sequence.
        let c8 = root
            .join("0/-home-dev-work-hooks-c8-outcomes")
            .join("07535b09-1bbd-4e99-9cf4-3c8d232c7d4f.jsonl");
        let named = root.join("0/-home-dev-work-hooks-c8-outcomes/x\u{1b}]0;T\u{7}.jsonl");
        std::fs::copy(&c8, &named).expect("copy");
        // A malformed line and an unknown line type, with raw controls, for
        // the diagnostics.
        let mut text = std::fs::read(&named).expect("read");
        text.extend_from_slice(
            b"{\"type\":\"\x1b]0;T\x07\",\"uuid\":\"q\"}\n{\"type\":\"user\" \x1b[2J\x9b\n",
        );
        std::fs::write(&named, text).expect("write");
        let settings = root.join("settings.json");
        std::fs::write(
            &settings,
            r#"{"hooks":{"PreToolUse":[{"matcher":"Bash\u001b[2J","hooks":[{"type":"command","command":"echo \u001b]0;X\u0007 \u009b1m"}]}],"Stop\u001b]0;x\u0007":[]}}"#,
        )
        .expect("settings");
        let rules = root.join("rules.toml");
        std::fs::write(
            &rules,
            "[[rules]]\nname = \"r\\u001b]0;T\\u0007\"\nevent = \"PreToolUse\"\ntool = \"Bash\"\n\
             program = \"rm\"\naction = \"block\"\nmessage = \"no \\u009b2J rm\\r\"\n\
             [[rules.tests]]\nevent = \"PreToolUse\"\ncommand = \"rm -rf \\u001b[2J\"\nexpect = \"allow\"\n",
        )
        .expect("rules");
        let all = root.join("0");
        let os = |s: &str| std::ffi::OsString::from(s);
        let commands: Vec<Vec<std::ffi::OsString>> = vec![
            vec![os("sessions"), root.clone().into()],
            vec![os("sessions"), os("--diagnostics"), root.clone().into()],
            vec![os("show"), c8.clone().into()],
            vec![os("show"), named.clone().into()],
            vec![os("show"), root.join("2").into()],
            vec![os("find"), os("--limit"), os("1000"), root.clone().into()],
            vec![os("find"), os("--blocked"), root.clone().into()],
            vec![os("hooks"), os("--activity"), c8.clone().into()],
            vec![os("hooks"), os("--settings"), settings.clone().into()],
            vec![
                os("hooks"),
                os("--settings"),
                settings.clone().into(),
                os("--lint"),
            ],
            vec![
                os("hooks"),
                os("--settings"),
                settings.clone().into(),
                os("--match"),
                os("PreToolUse"),
                os("Bash\u{1b}[2J"),
            ],
            vec![
                os("replay"),
                c8.clone().into(),
                os("--event"),
                os("PreToolUse"),
            ],
            vec![
                os("replay"),
                c8.clone().into(),
                os("--event"),
                os("UserPromptSubmit"),
                os("--rules"),
                rules.clone().into(),
            ],
            vec![os("replay"), c8.clone().into(), os("--event"), os("Stop")],
            vec![
                os("replay"),
                os("--all"),
                os("--rules"),
                rules.clone().into(),
                all.clone().into(),
            ],
            vec![os("test"), rules.clone().into()],
            vec![
                os("tail"),
                c8.clone().into(),
                os("--from-start"),
                os("--timeout"),
                os("0"),
            ],
            vec![os("show"), os("\u{1b}]0;nope\u{7}"), root.clone().into()],
        ];
        for args in &commands {
            let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
            let (out, err) = run(&refs);
            assert!(
                !out.is_empty() || !err.is_empty(),
                "{args:?} printed nothing"
            );
            if let Some(c) = raw_control(&out) {
                panic!("{args:?}: stdout has a raw {c}");
            }
            if let Some(c) = raw_control(&err) {
                panic!("{args:?}: stderr has a raw {c}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 54);
}

/// The escapes are visible: a retitle sequence in a prompt is printed as
/// `\x1b]0;…\x07`, not dropped; a C1 control in a command too, in `show`
/// and in the `find` table.
#[test]
fn a_control_in_a_prompt_is_printed_as_a_visible_escape() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("s.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/r","message":{"role":"user","content":"hi \u001b]0;PWNED\u0007 there"}}"#,
            "\n",
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"printf '\u009b2J'"}}]}}"#,
            "\n"
        ),
    )
    .expect("write");
    let (out, _) = run(&[std::ffi::OsStr::new("show"), file.as_os_str()]);
    let out = String::from_utf8(out).expect("utf-8");
    assert!(out.contains("hi \\x1b]0;PWNED\\x07 there"), "{out}");
    assert!(out.contains("printf '\\u{9b}2J'"), "{out}");
    // JSON output keeps the value (JSON's own escape).
    let (json, _) = run(&[
        std::ffi::OsStr::new("show"),
        file.as_os_str(),
        std::ffi::OsStr::new("--json"),
    ]);
    let json = String::from_utf8(json).expect("utf-8");
    assert!(json.contains(r"hi \u001b]0;PWNED\u0007 there"), "{json}");
    // The `find` table's one-line input shows the same escape (it made
    // controls spaces before).
    let (table, _) = run(&[
        std::ffi::OsStr::new("find"),
        std::ffi::OsStr::new("--tool-name"),
        std::ffi::OsStr::new("Bash"),
        file.as_os_str(),
    ]);
    let table = String::from_utf8(table).expect("utf-8");
    assert!(table.contains("printf '\\u{9b}2J'"), "{table}");
}
