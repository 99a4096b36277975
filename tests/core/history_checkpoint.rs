//! The live hook's history checkpoint (docs/live-hook.md#history-rules-and-the-checkpoint):
//! a transcript read through its checkpoint as it grows gives the history a
//! whole load gives, before every call, at every cut of every Claude Code
//! transcript of the corpus without subagent files; and a checkpoint that
//! no longer describes the file is not used.

use std::io::Write;
use std::path::{Path, PathBuf};

use hookscope_core::hooks::events::{EventName, Payload};
use hookscope_core::hooks::history_checkpoint::main_history;
use hookscope_core::hooks::replay::{HistoryIndex, Wanted};
use hookscope_core::hooks::rules::History;
use hookscope_core::transcript::{Agent, Session, discover};
use serde_json::json;

/// The Claude Code main files of the corpus without subagent files.
fn plain_transcripts() -> Vec<PathBuf> {
    let found = discover(&[PathBuf::from("tests/corpus")]).expect("discover");
    found
        .sessions
        .into_iter()
        .filter(|r| r.agent == Agent::ClaudeCode && r.subagent_files.is_empty())
        .filter(|r| r.path.extension().is_some_and(|e| e == "jsonl"))
        .map(|r| r.path)
        .collect()
}

fn payload(path: &Path, line: usize, id: Option<&str>) -> Payload {
    Payload {
        event: EventName::PreToolUse,
        json: json!({"hook_event_name": "PreToolUse", "tool_use_id": id}),
        left_out: Vec::new(),
        source_path: path.to_path_buf(),
        source_line: line,
        claude_version: None,
        file_before: None,
        call_id: None,
    }
}

/// What a whole load gives before call `id` (every call when `None` or
/// not found).
fn whole(session: &Session, path: &Path, id: Option<&str>) -> History {
    let line = id
        .and_then(|id| {
            session
                .all_tool_calls()
                .find(|(t, c)| t.is_none() && c.tool_use_id == id)
                .map(|(_, c)| c.line)
        })
        .unwrap_or(usize::MAX);
    HistoryIndex::new(session).before_only(&payload(path, line, id), Wanted::ALL)
}

/// Through the checkpoint in `state`; `None` when the file does not suit
/// one (the live hook then loads it whole).
fn through(path: &Path, id: Option<&str>, state: &Path) -> Option<History> {
    main_history(path, id, Wanted::ALL, Some(state)).expect("reads")
}

fn checkpointed(path: &Path, id: Option<&str>, state: &Path) -> History {
    through(path, id, state)
        .unwrap_or_else(|| panic!("{} does not suit a checkpoint", path.display()))
}

#[test]
fn growing_through_the_checkpoint_equals_a_whole_load() {
    let transcripts = plain_transcripts();
    assert!(transcripts.len() >= 15, "{}", transcripts.len());
    let (mut compared, mut used) = (0, 0);
    for source in &transcripts {
        let bytes = std::fs::read(source).expect("read");
        let full =
            hookscope_core::transcript::claude_code::load_session(source, &[]).expect("load");
        if !full.subagents.is_empty() {
            continue; // inline sidechains: no checkpoint
        }
        let ids: Vec<String> = full.tool_calls().map(|c| c.tool_use_id.clone()).collect();
        // Line ends, as cut points: every one for a short file, ~12 else.
        let ends = crate::support::line_ends(&bytes);
        let step = (ends.len() / 12).max(1);
        let cuts: Vec<usize> = ends.iter().copied().step_by(step).collect();
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(source.file_name().expect("name"));
        let state = dir.path().join("state");
        // Grow one file cut by cut, through the checkpoint each time.
        let mut written = 0;
        let mut file = std::fs::File::create(&path).expect("create");
        for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
            file.write_all(&bytes[written..cut]).expect("append");
            file.flush().expect("flush");
            written = cut;
            let now = hookscope_core::transcript::claude_code::load_session(&path, &[])
                .expect("load prefix");
            match through(&path, None, &state) {
                Some(got) => {
                    assert_eq!(
                        got,
                        whole(&now, &path, None),
                        "{} at {cut}",
                        source.display()
                    );
                    used += 1;
                }
                // A last line without its newline that parses: no resume
                // point; the hook loads the file whole.
                None => assert!(
                    !bytes[..cut].ends_with(b"\n"),
                    "{} at {cut}",
                    source.display()
                ),
            }
        }
        // Before each call of the whole file.
        for id in ids.iter().map(String::as_str) {
            let Some(got) = through(&path, Some(id), &state) else {
                continue;
            };
            assert_eq!(
                got,
                whole(&full, &path, Some(id)),
                "{} before {id}",
                source.display()
            );
            compared += 1;
        }
    }
    assert!(compared >= 70, "{compared}");
    assert!(used > 100, "{used}");
}

/// A rewrite that keeps the size (and an unrelated state file) is seen:
/// the checkpoint is not used, and the answer is the whole load's.
#[test]
fn a_checkpoint_that_no_longer_describes_the_file_is_not_used() {
    let source = plain_transcripts()
        .into_iter()
        .find(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("\"name\":\"Bash\"")))
        .expect("a transcript with a Bash call");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.jsonl");
    let state = dir.path().join("state");
    let text = std::fs::read_to_string(&source).expect("read");
    std::fs::write(&path, &text).expect("write");
    let before = checkpointed(&path, None, &state);
    assert!(!before.ran_commands.is_empty(), "{before:?}");
    // The same size, other commands: each command's first letter is X.
    let key = "\"command\":\"";
    let mut same_size = text.clone().into_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find(key) {
        let c = from + at + key.len();
        if same_size.get(c).is_some_and(u8::is_ascii_alphanumeric) {
            same_size[c] = b'X';
        }
        from = c;
    }
    assert_eq!(same_size.len(), text.len());
    std::fs::write(&path, &same_size).expect("rewrite");
    let now = hookscope_core::transcript::claude_code::load_session(&path, &[]).expect("load");
    let after = checkpointed(&path, None, &state);
    assert_eq!(after, whole(&now, &path, None));
    assert_ne!(after, before);
    assert!(
        after.ran_commands.iter().all(|c| c.starts_with('X')),
        "{after:?}"
    );
    let files = || -> Vec<PathBuf> {
        std::fs::read_dir(&state)
            .expect("state")
            .map(|e| e.expect("entry").path())
            .collect()
    };
    assert_eq!(files().len(), 1);
    let file = files().remove(0);
    // Its packed items cut in the middle (the header's lengths kept): not
    // used, and written anew.
    let good = std::fs::read(&file).expect("read");
    let nl = good.iter().position(|b| *b == b'\n').expect("header");
    let mut spoiled = good.clone();
    for b in spoiled.iter_mut().skip(nl + 1).take(40) {
        *b = b'#';
    }
    std::fs::write(&file, &spoiled).expect("spoil");
    assert_eq!(checkpointed(&path, None, &state), after);
    assert_eq!(std::fs::read(&file).expect("read"), good);
    // A state file that is not JSON is ignored.
    std::fs::write(&file, "not json").expect("spoil");
    assert_eq!(checkpointed(&path, None, &state), after);
    // A FIFO in its place is not read (no hang), and not written through.
    #[cfg(unix)]
    {
        std::fs::remove_file(&file).expect("rm");
        let c = std::ffi::CString::new(file.to_string_lossy().as_bytes()).expect("path");
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(checkpointed(&path, None, &state), after);
    }
}
