//! The fast start ([`super::boot`], docs/benchmarks.md#heavy-user-benchmark): the first frame lists
//! what the index stored under the roots before discovery runs, then
//! discovery's answer replaces it with what is on disk, keeping summaries,
//! selection and Calls queries asked meanwhile. Each test works on a copy
//! of a real corpus folder with its index in a temporary folder.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use chrono::{FixedOffset, Utc};
use hookscope_core::index::Index;
use hookscope_core::query::Finder;
use hookscope_core::transcript::{SessionRef, discover, load_summary};

use super::app::App;
use super::boot::Boot;
use super::theme::Theme;
use super::worker::Msg;
use super::{calls, tests::render};

const CORPUS: &str = "tests/corpus/real-cc-2.1.332";

/// A hang guard for worker answers, not a timing.
const WAIT: Duration = Duration::from_secs(120);

/// Copies every file of `from` into `to`, keeping relative paths.
fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("readable") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A copy of the corpus and an index in another folder, synced with it as
/// a previous run leaves it; returns (temp folder, corpus root, index dir,
/// the sessions discovered).
fn warm_copy() -> (tempfile::TempDir, PathBuf, PathBuf, Vec<SessionRef>) {
    warm_copy_of(CORPUS)
}

fn warm_copy_of(corpus: &str) -> (tempfile::TempDir, PathBuf, PathBuf, Vec<SessionRef>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("corpus");
    std::fs::create_dir_all(&root).expect("mkdir");
    copy_tree(Path::new(corpus), &root);
    let sessions = discover(std::slice::from_ref(&root))
        .expect("corpus")
        .sessions;
    let dir = tmp.path().join("cache");
    let mut index = Index::open(&dir).expect("index");
    let synced = index.sync(&sessions, &mut |_| {});
    assert_eq!(synced.stats.indexed, sessions.len());
    (tmp, root, dir, sessions)
}

fn begin(root: &Path, dir: &Path) -> (App, Boot, Sender<Msg>, Receiver<Msg>) {
    let (tx, rx) = mpsc::channel();
    let index = Index::open(dir).expect("index");
    let (app, boot) = Boot::begin_with(
        &[root.to_path_buf()],
        Some(index),
        Vec::new(),
        FixedOffset::east_opt(0).expect("UTC"),
        Theme { color: false },
        &tx,
    )
    .expect("starts");
    (app, boot, tx, rx)
}

/// Applies worker messages (discovery through `boot`) up to and including
/// the one `stop` picks.
fn run_until(
    app: &mut App,
    boot: &mut Boot,
    tx: &Sender<Msg>,
    rx: &Receiver<Msg>,
    stop: impl Fn(&Msg) -> bool,
) {
    loop {
        let msg = rx.recv_timeout(WAIT).expect("a worker message");
        let done = stop(&msg);
        match msg {
            Msg::Discovered(found) => boot.discovered(app, found, tx),
            Msg::SummariesDone => {
                boot.summaries_done();
                app.apply(Msg::SummariesDone);
            }
            other => app.apply(other),
        }
        if done {
            return;
        }
    }
}

fn ids(app: &App) -> Vec<String> {
    app.ctx.sessions.iter().map(|e| e.sref.id.clone()).collect()
}

#[test]
fn the_first_frame_lists_the_stored_sessions_before_discovery() {
    let (_tmp, root, dir, sessions) = warm_copy();
    let (mut app, mut boot, tx, rx) = begin(&root, &dir);
    // Before any worker message: the stored list, in discovery's order,
    // every session with its summary, and the status bar says so.
    assert!(app.ctx.checking);
    let want: Vec<String> = sessions.iter().map(|s| s.id.clone()).collect();
    assert_eq!(ids(&app), want);
    let refs: Vec<SessionRef> = app.ctx.sessions.iter().map(|e| e.sref.clone()).collect();
    assert_eq!(refs, sessions);
    for e in &app.ctx.sessions {
        let loaded = load_summary(&e.sref).expect("loads").0;
        assert_eq!(e.summary.as_ref(), Some(&loaded), "{}", e.sref.id);
    }
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains(&format!(
            "{} sessions (as indexed; checking the disk…)",
            sessions.len()
        )),
        "{screen}"
    );
    // Discovery agrees: nothing changes but the status.
    run_until(&mut app, &mut boot, &tx, &rx, |m| {
        matches!(m, Msg::SummariesDone)
    });
    assert!(!app.ctx.checking);
    assert_eq!(ids(&app), want);
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains(&format!("{} sessions · D", sessions.len())),
        "{screen}"
    );
}

#[test]
fn discovery_replaces_the_stored_list_with_what_is_on_disk() {
    let (_tmp, root, dir, sessions) = warm_copy();
    // Since the index was written: one session deleted, one new, one grown.
    let gone = sessions
        .iter()
        .find(|s| !s.id.starts_with("e71e9aa1"))
        .expect("another session")
        .clone();
    std::fs::remove_file(&gone.path).expect("rm");
    let tools = sessions
        .iter()
        .find(|s| s.id.starts_with("e71e9aa1"))
        .expect("the tools session")
        .clone();
    let new_path = tools
        .path
        .with_file_name("00000000-0000-4000-8000-000000000001.jsonl");
    std::fs::copy(&tools.path, &new_path).expect("copy");
    let grown = sessions
        .iter()
        .find(|s| s.id != gone.id && s.id != tools.id)
        .expect("another session")
        .clone();
    let mut bytes = std::fs::read(&grown.path).expect("read");
    let first_line = bytes
        .split(|&b| b == b'\n')
        .next()
        .expect("a line")
        .to_vec();
    bytes.extend_from_slice(&first_line);
    bytes.push(b'\n');
    std::fs::write(&grown.path, &bytes).expect("write");

    let (mut app, mut boot, tx, rx) = begin(&root, &dir);
    // The stored list still names the deleted session and not the new one.
    assert!(ids(&app).contains(&gone.id));
    assert!(!ids(&app).iter().any(|i| i.starts_with("00000000")));
    run_until(&mut app, &mut boot, &tx, &rx, |m| {
        matches!(m, Msg::SummariesDone)
    });
    let now = discover(std::slice::from_ref(&root))
        .expect("corpus")
        .sessions;
    let want: Vec<String> = now.iter().map(|s| s.id.clone()).collect();
    assert_eq!(ids(&app), want);
    assert!(!ids(&app).contains(&gone.id));
    assert_eq!(app.ctx.sessions.len(), sessions.len());
    // Every summary is the loader's for the files as they are now (the
    // grown one counts its repeated first line).
    for e in &app.ctx.sessions {
        let loaded = load_summary(&e.sref).expect("loads").0;
        assert_eq!(e.summary.as_ref(), Some(&loaded), "{}", e.sref.id);
    }
    let copy = app
        .ctx
        .sessions
        .iter()
        .find(|e| e.sref.id.starts_with("00000000"))
        .and_then(|e| e.summary.as_ref())
        .expect("the new session, summarized");
    // A copy of the tools session: 23 tool_use blocks, 5 errors (as
    // index_tests recounts).
    assert_eq!((copy.tool_calls, copy.errors), (23, 5));
}

#[test]
fn the_selection_follows_its_session_when_the_list_changes() {
    let (_tmp, root, dir, sessions) = warm_copy();
    // A newer session appears first in discovery's order (written before
    // the start, so discovery's thread always sees it; the stored list
    // does not hold it).
    let newest = sessions[0]
        .path
        .with_file_name("ffffffff-0000-4000-8000-000000000002.jsonl");
    std::fs::copy(&sessions[0].path, &newest).expect("copy");
    let (mut app, mut boot, tx, rx) = begin(&root, &dir);
    assert_eq!(app.ctx.sessions.len(), sessions.len());
    // The user moves to the last session before discovery answers.
    let last = sessions.last().expect("sessions").clone();
    let at = app
        .ctx
        .sessions
        .iter()
        .position(|e| e.sref == last)
        .expect("listed");
    app.list.select(at, &app.ctx);
    app.touched = true;
    run_until(&mut app, &mut boot, &tx, &rx, |m| {
        matches!(m, Msg::SummariesDone)
    });
    assert_eq!(app.ctx.sessions.len(), sessions.len() + 1);
    assert_eq!(
        app.ctx.sessions[0].sref.id,
        "ffffffff-0000-4000-8000-000000000002"
    );
    let sel = app.list.sel.expect("a selection");
    assert_eq!(app.ctx.sessions[sel].sref.path, last.path);
}

/// The records of `result` as JSON (for equality with a fresh `find`).
fn json(result: &hookscope_core::query::FindResult) -> serde_json::Value {
    serde_json::to_value(result).expect("json")
}

/// Waits for the next [`Msg::Found`], applying everything else; a
/// discovery that arrives meanwhile is held (returned) when `hold`, else
/// handed to `boot`.
fn next_found(
    app: &mut App,
    boot: &mut Boot,
    tx: &Sender<Msg>,
    rx: &Receiver<Msg>,
    held: &mut Option<Msg>,
    hold: bool,
) -> hookscope_core::query::FindResult {
    loop {
        match rx.recv_timeout(WAIT).expect("a message") {
            Msg::Found { generation, result } => {
                assert_eq!(generation, 7);
                let found = result.expect("records");
                app.apply(Msg::Found {
                    generation,
                    result: Ok(found.clone()),
                });
                return found;
            }
            msg @ Msg::Discovered(_) if hold => *held = Some(msg),
            Msg::Discovered(found) => boot.discovered(app, found, tx),
            Msg::SummariesDone => {
                boot.summaries_done();
                app.apply(Msg::SummariesDone);
            }
            other => app.apply(other),
        }
    }
}

/// The discovery message `next_found` held back, or, when the early answer
/// came before discovery ended (a loaded machine), the next one to arrive.
fn discovered(
    app: &mut App,
    rx: &Receiver<Msg>,
    held: &mut Option<Msg>,
) -> Result<hookscope_core::transcript::Discovery, String> {
    if let Some(Msg::Discovered(d)) = held.take() {
        return d;
    }
    loop {
        match rx.recv_timeout(WAIT).expect("a message") {
            Msg::Discovered(d) => return d,
            other => app.apply(other),
        }
    }
}

/// The first Bash `tool_use` line of `file`, parsed.
fn bash_call_line(file: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(file).ok()?;
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| {
            v["message"]["content"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|b| b["type"] == "tool_use" && b["name"] == "Bash")
            })
        })
}

/// Appends to `file` a copy of its first Bash `tool_use` line under a new
/// `uuid` and `tool_use_id` (`toolu_hostile_added`): one more Bash call.
fn add_bash_call(file: &Path) {
    let mut line = bash_call_line(file).expect("a Bash call");
    line["uuid"] = "00000000-0000-4000-8000-00000000beef".into();
    for block in line["message"]["content"].as_array_mut().expect("content") {
        if block["type"] == "tool_use" {
            block["id"] = "toolu_hostile_added".into();
        }
    }
    let mut out = std::fs::read_to_string(file).expect("readable");
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&line.to_string());
    out.push('\n');
    std::fs::write(file, out).expect("writable");
}

/// The Calls view asks for `tool:Bash` as generation 7.
fn ask_bash(app: &mut App, boot: &mut Boot) -> hookscope_core::query::Query {
    let query = calls::prepare("tool:Bash", Utc::now()).expect("valid");
    app.calls.generation = 7;
    boot.find(7, query.clone());
    query
}

#[test]
fn a_calls_query_asked_before_discovery_is_answered_from_the_stored_list() {
    let (_tmp, root, dir, sessions) = warm_copy();
    let (mut app, mut boot, tx, rx) = begin(&root, &dir);
    let query = ask_bash(&mut app, &mut boot);
    // Discovery's answer is held: the query does not wait for it.
    let mut held = None;
    let found = next_found(&mut app, &mut boot, &tx, &rx, &mut held, true);
    let plain = Finder::new(&sessions, &query).run().expect("records");
    assert_eq!(json(&found), json(&plain));
    // real-cc-2.1.332 holds 52 Bash calls (index_tests).
    assert_eq!(found.records.len(), 52);
    // Nothing changed on disk: discovery and the sync leave the answer
    // standing, nobody asks again.
    let d = discovered(&mut app, &rx, &mut held);
    boot.discovered(&mut app, d, &tx);
    run_until(&mut app, &mut boot, &tx, &rx, |m| {
        matches!(m, Msg::SummariesDone)
    });
    assert_eq!(boot.asked_again(), 0);
    assert_eq!(app.calls.records().len(), 52);
}

#[test]
fn a_session_grown_since_it_was_stored_replaces_the_answer_from_the_stored_list() {
    // Hostile: a main file gained a Bash call after the index stored it.
    // The first answer is the stored list's (52 calls); discovery sees the
    // new size, and the answer shown at the end is a fresh query's (53).
    let (_tmp, root, dir, sessions) = warm_copy();
    let grown = sessions
        .iter()
        .find(|s| bash_call_line(&s.path).is_some())
        .expect("a main file with a Bash call")
        .path
        .clone();
    add_bash_call(&grown);
    let (mut app, mut boot, tx, rx) = begin(&root, &dir);
    let query = ask_bash(&mut app, &mut boot);
    let mut held = None;
    let early = next_found(&mut app, &mut boot, &tx, &rx, &mut held, true);
    assert_eq!(early.records.len(), 52);
    let d = discovered(&mut app, &rx, &mut held);
    boot.discovered(&mut app, d, &tx);
    assert_eq!(boot.asked_again(), 1);
    let again = next_found(&mut app, &mut boot, &tx, &rx, &mut held, false);
    let now = discover(std::slice::from_ref(&root))
        .expect("corpus")
        .sessions;
    let plain = Finder::new(&now, &query).run().expect("records");
    assert_eq!(json(&again), json(&plain));
    assert_eq!(again.records.len(), 53);
    assert!(
        app.calls
            .records()
            .iter()
            .any(|r| r.tool_use_id == "toolu_hostile_added")
    );
    assert_eq!(app.calls.records().len(), 53);
}

#[test]
fn a_subagent_file_changed_since_it_was_stored_replaces_the_answer_from_the_stored_list() {
    // Hostile: only a subagent file changed (same main file, same list of
    // files): discovery's list equals the stored one, the sync re-indexes
    // the session, and the answer is asked again at its end.
    let (_tmp, root, dir, sessions) = warm_copy();
    let session = sessions
        .iter()
        .find(|s| {
            s.path
                .ends_with("8bb2dece-a24f-43d4-80d6-3ee9a889b550.jsonl")
        })
        .expect("the subagent session");
    let sub = session
        .subagent_files
        .iter()
        .find(|f| bash_call_line(f).is_some())
        .expect("a subagent with a Bash call")
        .clone();
    add_bash_call(&sub);
    let (mut app, mut boot, tx, rx) = begin(&root, &dir);
    let query = ask_bash(&mut app, &mut boot);
    let mut held = None;
    let early = next_found(&mut app, &mut boot, &tx, &rx, &mut held, true);
    assert_eq!(early.records.len(), 52);
    let d = discovered(&mut app, &rx, &mut held);
    boot.discovered(&mut app, d, &tx);
    assert_eq!(boot.asked_again(), 0, "the same list: discovery keeps it");
    let again = next_found(&mut app, &mut boot, &tx, &rx, &mut held, false);
    assert_eq!(boot.asked_again(), 1);
    let plain = Finder::new(&sessions, &query).run().expect("records");
    assert_eq!(json(&again), json(&plain));
    assert_eq!(again.records.len(), 53);
    assert_eq!(app.calls.records().len(), 53);
}

#[test]
fn a_file_path_or_an_empty_index_discovers_first() {
    let (_tmp, root, dir, sessions) = warm_copy();
    // A file PATH: no stored list, discovery before the first frame.
    let one = sessions[0].path.clone();
    let (app, _boot, _tx, _rx) = begin(&one, &dir);
    assert!(!app.ctx.checking);
    assert_eq!(app.ctx.sessions.len(), 1);
    // An index that holds nothing under the root: the same.
    let empty = tempfile::tempdir().expect("tempdir");
    let (app, _boot, _tx, _rx) = begin(&root, empty.path());
    assert!(!app.ctx.checking);
    assert_eq!(app.ctx.sessions.len(), sessions.len());
}

#[test]
fn stored_rows_of_a_sibling_folder_are_not_listed() {
    // Hostile: a root whose name is a prefix of another indexed folder's
    // (`corpus` vs `corpus-other`) lists only its own sessions.
    let (tmp, root, dir, sessions) = warm_copy();
    let other = tmp.path().join("corpus-other");
    std::fs::create_dir_all(&other).expect("mkdir");
    std::fs::copy(&sessions[0].path, other.join("x.jsonl")).expect("copy");
    let more = discover(std::slice::from_ref(&other))
        .expect("other")
        .sessions;
    Index::open(&dir).expect("index").sync(&more, &mut |_| {});
    let (app, _boot, _tx, _rx) = begin(&root, &dir);
    assert!(app.ctx.checking);
    assert_eq!(app.ctx.sessions.len(), sessions.len());
    assert!(
        app.ctx
            .sessions
            .iter()
            .all(|e| e.sref.path.starts_with(&root))
    );
}

#[test]
fn a_warm_start_keeps_every_diagnostic_a_cold_one_shows() {
    // The Droid runs: their sessions' diagnostics include notes on
    // `state/task-invocations.json` (children not found), a file that is
    // not one of the session's own (a user saw 34 cold, 30 warm).
    let (_tmp, root, dir, sessions) = warm_copy_of("tests/corpus/real-droid-0.225.2");
    let found = discover(std::slice::from_ref(&root)).expect("corpus");
    let mut want = found.diagnostics.len();
    for s in &sessions {
        want += load_summary(s).expect("loads").1.len();
    }
    assert!(
        sessions
            .iter()
            .flat_map(|s| load_summary(s).expect("loads").1)
            .any(|d| d.path.ends_with("task-invocations.json"))
    );
    let (mut app, mut boot, tx, rx) = begin(&root, &dir);
    run_until(&mut app, &mut boot, &tx, &rx, |m| {
        matches!(m, Msg::SummariesDone)
    });
    assert_eq!(app.ctx.diagnostics.len(), want);
}

#[test]
fn a_warm_start_drops_the_rows_of_a_session_gone_from_disk() {
    // Every session left is fresh, so the sync is one whole sync: it must
    // still remove the rows of the session whose file was deleted.
    let (_tmp, root, dir, sessions) = warm_copy();
    let gone = sessions.last().expect("sessions").clone();
    std::fs::remove_file(&gone.path).expect("removable");
    let (mut app, mut boot, tx, rx) = begin(&root, &dir);
    run_until(&mut app, &mut boot, &tx, &rx, |m| {
        matches!(m, Msg::SummariesDone)
    });
    assert_eq!(app.ctx.sessions.len(), sessions.len() - 1);
    let index = Index::open(&dir).expect("index");
    assert!(!index.has_session(&gone));
    assert!(
        sessions[..sessions.len() - 1]
            .iter()
            .all(|s| index.has_session(s))
    );
}

#[test]
fn an_empty_folder_says_where_it_looked() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (tx, _rx) = mpsc::channel();
    let (app, _boot) = Boot::begin_with(
        &[tmp.path().to_path_buf()],
        None,
        Vec::new(),
        FixedOffset::east_opt(0).expect("UTC"),
        Theme { color: false },
        &tx,
    )
    .expect("starts");
    let mut app = app;
    assert!(app.ctx.sessions.is_empty());
    // `H` with no session to open says so and changes nothing.
    super::tests::key(&mut app, crossterm::event::KeyCode::Char('H'));
    assert!(!app.timeline.hooks_only);
    assert_eq!(
        app.ctx.message.as_deref(),
        Some("no session to show hook activity of")
    );
    assert_eq!(
        app.ctx.banner.as_deref(),
        Some(format!(" No sessions found under {}.", tmp.path().display()).as_str())
    );
    // The first session that appears takes the banner away.
    let found = hookscope_core::transcript::discover(&[PathBuf::from(
        "tests/corpus/real-cc-2.1.332/hooks_c2_exit2",
    )])
    .expect("corpus");
    app.apply(Msg::SessionAdded(found.sessions[0].clone()));
    assert_eq!(app.ctx.sessions.len(), 1);
    assert_eq!(app.ctx.banner, None);
}
