//! The live hook's history checkpoint (docs/live-hook.md#history-rules-and-the-checkpoint):
//! a transcript read through its checkpoint as it grows gives the history a
//! whole load gives, before every call, at every cut of every Claude Code
//! transcript of the corpus (sessions with subagent files grown file by
//! file, before every call of every thread); and a checkpoint that no
//! longer describes the file is not used.

use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

use hookscope_core::hooks::events::{EventName, Payload};
use hookscope_core::hooks::history_checkpoint::session_history;
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
    session_history(path, id, None, Wanted::ALL, Some(state)).expect("reads")
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
    // A header that describes the file but claims a body of exabytes:
    // not used (no buffer is sized by it), and written anew.
    let mut header: serde_json::Value = serde_json::from_slice(&good[..nl]).expect("header json");
    header["done_len"] = json!(u64::MAX / 2);
    let mut lying = serde_json::to_vec(&header).expect("json");
    lying.extend_from_slice(&good[nl..]);
    std::fs::write(&file, &lying).expect("spoil");
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

/// The Claude Code sessions of the corpus with subagent files.
fn sessions_with_subagent_files() -> Vec<(PathBuf, Vec<PathBuf>)> {
    let found = discover(&[PathBuf::from("tests/corpus")]).expect("discover");
    found
        .sessions
        .into_iter()
        .filter(|r| r.agent == Agent::ClaudeCode && !r.subagent_files.is_empty())
        .filter(|r| r.path.extension().is_some_and(|e| e == "jsonl"))
        .map(|r| (r.path, r.subagent_files))
        .collect()
}

/// What a whole load of the session at `main` gives before call `id` of
/// the thread `agent` (the main thread when `None`).
fn whole_session(main: &Path, id: Option<&str>, agent: Option<&str>) -> History {
    let found = discover(&[main.to_path_buf()]).expect("discover");
    let r = found.sessions.first().expect("one session");
    let session = hookscope_core::transcript::load(r).expect("load");
    let thread = agent.and_then(|a| {
        session
            .subagents
            .iter()
            .position(|s| s.agent_id.as_deref() == Some(a))
    });
    let line = id
        .and_then(|id| {
            session
                .all_tool_calls()
                .find(|(t, c)| *t == thread && c.tool_use_id == id)
                .map(|(_, c)| c.line)
        })
        .unwrap_or(usize::MAX);
    let mut p = payload(main, line, id);
    if let Some(a) = agent {
        p.json["agent_id"] = json!(a);
    }
    HistoryIndex::new(&session).before_only(&p, Wanted::ALL)
}

/// Every (agent id, call id) of the session at `main` as a whole load
/// sees it: the main thread's calls (agent `None`) and each subagent's.
fn calls_of(main: &Path) -> Vec<(Option<String>, String)> {
    let found = discover(&[main.to_path_buf()]).expect("discover");
    let r = found.sessions.first().expect("one session");
    let session = hookscope_core::transcript::load(r).expect("load");
    session
        .all_tool_calls()
        .map(|(t, c)| {
            let agent = t.and_then(|i| session.subagents[i].agent_id.clone());
            (agent, c.tool_use_id.clone())
        })
        .collect()
}

#[test]
fn sessions_with_subagent_files_grown_through_their_checkpoints_equal_a_whole_load() {
    let sessions = sessions_with_subagent_files();
    assert!(sessions.len() >= 10, "{}", sessions.len());
    let (mut compared, mut used, mut in_subagents) = (0, 0, 0);
    for (main, subs) in &sessions {
        let root = main.parent().expect("folder");
        let dir = tempfile::tempdir().expect("tempdir");
        let state = dir.path().join("state");
        let copy = dir.path().join("s");
        // Every file of the session at its place, with the meta sidecars
        // linking reads.
        let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
        for file in std::iter::once(main).chain(subs) {
            let rel = file
                .strip_prefix(root)
                .expect("under the main file's folder");
            let to = copy.join(rel);
            std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
            let meta = file.with_extension("meta.json");
            if meta.is_file() {
                std::fs::copy(&meta, to.with_extension("meta.json")).expect("meta");
            }
            std::fs::write(&to, b"").expect("create");
            files.push((to, std::fs::read(file).expect("read")));
        }
        let main_copy = files[0].0.clone();
        // Each file grows in ~8 steps, the main file first, then each
        // subagent file, as a running session writes them.
        let steps = 8;
        for step in 1..=steps {
            for (to, bytes) in &files {
                let ends = crate::support::line_ends(bytes);
                let cut = if step == steps {
                    bytes.len()
                } else {
                    ends.get(ends.len() * step / steps)
                        .copied()
                        .unwrap_or(bytes.len())
                };
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(to)
                    .expect("open");
                let written = f.metadata().expect("meta").len() as usize;
                if cut > written {
                    f.seek(std::io::SeekFrom::End(0)).expect("seek");
                    f.write_all(&bytes[written..cut]).expect("append");
                }
            }
            for (agent, id) in calls_of(&main_copy)
                .into_iter()
                .map(|(a, i)| (a, Some(i)))
                .chain(std::iter::once((None, None)))
            {
                let got = session_history(
                    &main_copy,
                    id.as_deref(),
                    agent.as_deref(),
                    Wanted::ALL,
                    Some(&state),
                )
                .expect("reads");
                let Some(got) = got else {
                    // Only a main file with inline sidechain lines, or a
                    // file whose last line lacks its newline, has no
                    // resume point.
                    let main_now = std::fs::read_to_string(&main_copy).expect("read");
                    assert!(
                        main_now.contains("\"isSidechain\":true")
                            || files
                                .iter()
                                .any(|(to, _)| !std::fs::read(to).expect("read").ends_with(b"\n")),
                        "{} step {step}",
                        main.display()
                    );
                    continue;
                };
                assert_eq!(
                    got,
                    whole_session(&main_copy, id.as_deref(), agent.as_deref()),
                    "{} step {step}, {agent:?} before {id:?}",
                    main.display()
                );
                compared += 1;
                used += 1;
                in_subagents += usize::from(agent.is_some());
            }
        }
    }
    assert!(compared >= 400, "{compared}");
    assert!(used >= 400, "{used}");
    assert!(in_subagents >= 30, "{in_subagents}");
}

/// The real session with four subagents copied under `dir/s` with its
/// layout and meta sidecars: its main file and its subagent files there.
fn real_subagent_session_in(dir: &Path) -> (PathBuf, Vec<PathBuf>) {
    let (main, subs) = sessions_with_subagent_files()
        .into_iter()
        .find(|(m, _)| {
            m.to_string_lossy()
                .contains("8bb2dece-a24f-43d4-80d6-3ee9a889b550")
        })
        .expect("the real subagent session");
    let root = main.parent().expect("folder");
    let copy = dir.join("s");
    let mut copied = Vec::new();
    for file in std::iter::once(&main).chain(&subs) {
        let to = copy.join(file.strip_prefix(root).expect("under"));
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(file, &to).expect("copy");
        let meta = file.with_extension("meta.json");
        if meta.is_file() {
            std::fs::copy(&meta, to.with_extension("meta.json")).expect("meta");
        }
        copied.push(to);
    }
    let main_copy = copied.remove(0);
    (main_copy, copied)
}

/// The real session with four subagents: the main thread's history after
/// them holds what they ran, read through one checkpoint per file.
#[test]
fn the_main_history_after_finished_subagents_holds_what_they_ran() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state");
    let (main_copy, subs) = real_subagent_session_in(dir.path());
    assert_eq!(subs.len(), 4);
    for _ in 0..2 {
        let got = session_history(&main_copy, None, None, Wanted::ALL, Some(&state))
            .expect("reads")
            .expect("suits checkpoints");
        assert_eq!(got, whole_session(&main_copy, None, None));
        for command in [
            "grep -rn 'def ' src",
            "ls -la",
            "sleep 2; git log --oneline -1",
        ] {
            assert!(got.ran_commands.iter().any(|c| c == command), "{got:?}");
        }
    }
    // One state file per transcript file.
    assert_eq!(std::fs::read_dir(&state).expect("state").count(), 5);
}

/// Hostile files around a session with subagent files: a FIFO as a
/// subagent file and as a meta sidecar (never read, no hang), a subagent
/// state file spoiled or replaced by a FIFO: each answer is the whole
/// load's.
#[cfg(unix)]
#[test]
fn hostile_subagent_files_and_states_give_the_whole_loads_answer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state");
    let (main_copy, subs) = real_subagent_session_in(dir.path());
    let fifo = |p: &Path| {
        let c = std::ffi::CString::new(p.to_string_lossy().as_bytes()).expect("path");
        // SAFETY: a NUL-terminated path.
        assert_eq!(
            unsafe { libc::mkfifo(c.as_ptr(), 0o600) },
            0,
            "{}",
            p.display()
        );
    };
    let check = |what: &str| {
        let got = session_history(&main_copy, None, None, Wanted::ALL, Some(&state))
            .expect("reads")
            .expect("suits checkpoints");
        assert_eq!(got, whole_session(&main_copy, None, None), "{what}");
        got
    };
    let first = check("plain");
    assert!(
        first.ran_commands.iter().any(|c| c == "ls -la"),
        "{first:?}"
    );
    // Spoiled and FIFO state files of every subagent file.
    let states: Vec<PathBuf> = std::fs::read_dir(&state)
        .expect("state")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(states.len(), 5);
    for s in &states {
        std::fs::write(s, "{\"format\":2}\nnot packed").expect("spoil");
    }
    assert_eq!(check("spoiled states"), first);
    for s in &states {
        std::fs::remove_file(s).expect("rm");
        fifo(s);
    }
    assert_eq!(check("FIFO states"), first);
    // A meta sidecar that is a FIFO, and a subagent file that is one.
    let sub_copy = subs[0].clone();
    let _ = std::fs::remove_file(sub_copy.with_extension("meta.json"));
    fifo(&sub_copy.with_extension("meta.json"));
    check("FIFO meta sidecar");
    let extra = sub_copy.with_file_name("agent-fifo0000000000.jsonl");
    fifo(&extra);
    check("FIFO subagent file");
}

/// `fill_before_only` through one `Reuse` (the backtest refills one
/// history per payload) gives exactly `before_only`, for every payload of
/// every Claude Code session of the corpus (subagents included), whatever
/// the order of the payloads (in line order, reversed, and interleaved
/// with the other list choices) and whatever the lists held before.
#[test]
fn a_history_refilled_in_place_equals_a_fresh_one() {
    use hookscope_core::hooks::events::all_payloads;
    use hookscope_core::hooks::replay::Reuse;
    let found = discover(&[PathBuf::from("tests/corpus")]).expect("discover");
    let wants = [
        Wanted::ALL,
        Wanted {
            touched_files: false,
            ran_commands: true,
        },
        Wanted {
            touched_files: true,
            ran_commands: false,
        },
    ];
    let mut checked = 0;
    let mut with_entries = 0;
    for r in found
        .sessions
        .iter()
        .filter(|r| r.agent == Agent::ClaudeCode)
    {
        let Ok(session) = hookscope_core::transcript::load(r) else {
            continue;
        };
        let mut payloads = Vec::new();
        for e in [
            EventName::PreToolUse,
            EventName::Stop,
            EventName::SubagentStop,
            EventName::SubagentStart,
            EventName::UserPromptSubmit,
        ] {
            payloads.extend(all_payloads(&session, e));
        }
        payloads.sort_by_key(|p| p.source_line);
        for ix in [
            HistoryIndex::new(&session),
            HistoryIndex::distinct(&session),
        ] {
            let forward: Vec<&Payload> = payloads.iter().collect();
            let backward: Vec<&Payload> = payloads.iter().rev().collect();
            for (order, want_of) in [(&forward, 0usize), (&backward, 0), (&forward, 1)] {
                let mut h = History {
                    touched_files: vec!["stale".into()],
                    ran_commands: vec!["stale".into()],
                    turn_prompt: Some("stale".into()),
                };
                let mut reuse = Reuse::default();
                for (i, p) in order.iter().enumerate() {
                    // want_of 1: the list choice changes from payload to payload.
                    let want = wants[if want_of == 0 { 0 } else { i % 3 }];
                    ix.fill_before_only(p, want, &mut h, &mut reuse);
                    let fresh = ix.before_only(p, want);
                    assert_eq!(h, fresh, "{} line {}", r.path.display(), p.source_line);
                    checked += 1;
                    if !fresh.ran_commands.is_empty() && !fresh.touched_files.is_empty() {
                        with_entries += 1;
                    }
                }
            }
        }
    }
    // The corpus has hundreds of such payloads, many with both lists filled.
    assert!(checked > 500, "{checked}");
    assert!(with_entries > 100, "{with_entries}");
}
