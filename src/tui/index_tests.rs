//! The TUI's start from the persisted index (docs/cli.md#index): a warm index
//! fills the list before the first frame, a cold one is synced in the
//! background with progress, and the Calls view answers the same with and
//! without it. Each test keeps its index in its own temporary folder.

use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use chrono::{FixedOffset, Utc};
use hookscope_core::index::Index;
use hookscope_core::query::Finder;
use hookscope_core::transcript::{SessionRef, discover};

use super::app::App;
use super::theme::Theme;
use super::worker::Msg;
use super::{calls, start_with, tests::render};

const CORPUS: &str = "tests/corpus/real-cc-2.1.332";

/// A hang guard for worker answers, not a timing.
const WAIT: Duration = Duration::from_secs(120);

fn app_over(sessions: &[SessionRef]) -> App {
    App::new(
        sessions.to_vec(),
        Vec::new(),
        FixedOffset::east_opt(0).expect("UTC"),
        Theme { color: false },
    )
}

/// An index in `dir` brought up to date with `sessions`, as a previous run
/// leaves it.
fn warm(dir: &std::path::Path, sessions: &[SessionRef]) {
    let mut index = Index::open(dir).expect("index");
    let synced = index.sync(sessions, &mut |_| {});
    assert_eq!(synced.stats.indexed, sessions.len());
}

/// Applies messages until `stop` says so; returns them (the stopping one
/// last).
fn apply_until(app: &mut App, rx: &Receiver<Msg>, stop: impl Fn(&Msg) -> bool) -> Vec<String> {
    let mut seen = Vec::new();
    loop {
        let msg = rx.recv_timeout(WAIT).expect("a worker message");
        let done = stop(&msg);
        seen.push(format!("{msg:?}").chars().take(80).collect());
        app.apply(msg);
        if done {
            return seen;
        }
    }
}

/// The Calls view's answer to `filter` through the start's query thread,
/// as JSON, and the same query without an index.
fn calls_both_ways(
    app: &mut App,
    rx: &Receiver<Msg>,
    queries: &super::worker::Queries,
    sessions: &[SessionRef],
    filter: &str,
    generation: u64,
) -> (serde_json::Value, serde_json::Value) {
    let query = calls::prepare(filter, Utc::now()).expect("valid filter");
    queries.send(generation, query.clone());
    let mut got = None;
    while got.is_none() {
        match rx.recv_timeout(WAIT).expect("an answer") {
            Msg::Found {
                generation: g,
                result,
            } if g == generation => {
                got = Some(serde_json::to_value(result.expect("records")).expect("json"));
            }
            other => app.apply(other),
        }
    }
    let plain = Finder::new(sessions, &query).run().expect("records");
    (
        got.expect("an answer"),
        serde_json::to_value(plain).expect("json"),
    )
}

#[test]
fn a_warm_index_lists_every_session_with_its_counts_at_the_first_frame() {
    let found = discover(&[CORPUS.into()]).expect("corpus");
    let sessions = found.sessions;
    let cache = tempfile::tempdir().expect("tempdir");
    let dir = cache.path().join("hookscope");
    warm(&dir, &sessions);

    let mut app = app_over(&sessions);
    let (tx, rx) = mpsc::channel();
    let queries = start_with(
        &mut app,
        &sessions,
        Some(Index::open(&dir).expect("index")),
        &tx,
    );
    drop(tx);
    // The first frame, before any worker message is applied.
    let screen = render(&mut app, 160, 48);
    assert!(app.ctx.summaries_done);
    assert!(app.ctx.sessions.iter().all(|e| e.summary.is_some()));
    assert!(
        screen.contains(&format!("{} sessions", sessions.len())),
        "{screen}"
    );
    // The tools session: 23 tool_use blocks, 5 results with is_error
    // (recounted with python over its JSONL), one turn.
    let tools = app
        .ctx
        .sessions
        .iter()
        .find(|e| e.sref.id.starts_with("e71e9aa1"))
        .and_then(|e| e.summary.as_ref())
        .expect("the tools session");
    assert_eq!((tools.turns, tools.tool_calls, tools.errors), (1, 23, 5));
    // Every summary equals the loader's.
    for e in &app.ctx.sessions {
        let loaded = hookscope_core::transcript::load_summary(&e.sref)
            .expect("loads")
            .0;
        assert_eq!(e.summary.as_ref(), Some(&loaded), "{}", e.sref.id);
    }

    // The Calls view: the same records with the index as without.
    for (generation, filter) in [
        (1, "tool:Bash"),
        (2, "is:error"),
        (3, "tool:Bash input:git"),
    ] {
        let (got, plain) = calls_both_ways(&mut app, &rx, &queries, &sessions, filter, generation);
        assert_eq!(got, plain, "{filter}");
        if filter == "tool:Bash" {
            // real-cc-2.1.332 holds 52 Bash calls (see worker's test).
            assert_eq!(got["records"].as_array().map(Vec::len), Some(52));
        }
    }
}

#[test]
fn a_cold_index_is_synced_in_the_background_with_progress() {
    let found = discover(&[CORPUS.into()]).expect("corpus");
    let sessions = found.sessions;
    let cache = tempfile::tempdir().expect("tempdir");
    let dir = cache.path().join("hookscope");

    let mut app = app_over(&sessions);
    let (tx, rx) = mpsc::channel();
    let queries = start_with(
        &mut app,
        &sessions,
        Some(Index::open(&dir).expect("index")),
        &tx,
    );
    drop(tx);
    // Nothing indexed yet: the first frame lists the sessions, unread.
    let screen = render(&mut app, 160, 48);
    assert!(!app.ctx.summaries_done);
    assert!(app.ctx.sessions.iter().all(|e| e.summary.is_none()));
    assert!(
        screen.contains(&format!("0/{} read", sessions.len())),
        "{screen}"
    );
    let first = rx.recv_timeout(WAIT).expect("progress");
    assert!(
        matches!(first, Msg::Indexing(Some((0, n))) if n == sessions.len()),
        "{first:?}"
    );
    app.apply(first);
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains(&format!("indexing 0/{} sessions…", sessions.len())),
        "{screen}"
    );
    // Each row waits for the index, and says so (not `loading…`).
    assert!(screen.contains("┃  indexing…"), "{screen}");
    assert!(!screen.contains("loading…"), "{screen}");
    apply_until(&mut app, &rx, |m| matches!(m, Msg::Indexing(None)));
    assert_eq!(app.ctx.indexing, None);
    for e in &app.ctx.sessions {
        let loaded = hookscope_core::transcript::load_summary(&e.sref)
            .expect("loads")
            .0;
        assert_eq!(e.summary.as_ref(), Some(&loaded), "{}", e.sref.id);
    }
    assert!(app.ctx.tool_names.contains("Bash"));
    let (got, plain) = calls_both_ways(&mut app, &rx, &queries, &sessions, "is:error", 1);
    assert_eq!(got, plain);
    // The index was written: a later start finds every session fresh.
    let index = Index::open(&dir).expect("index");
    assert!(index.current(&sessions).iter().all(|&c| c));
}

#[test]
fn without_an_index_the_start_is_as_before() {
    let found = discover(&[CORPUS.into()]).expect("corpus");
    let sessions = found.sessions;
    let mut app = app_over(&sessions);
    let (tx, rx) = mpsc::channel();
    let queries = start_with(&mut app, &sessions, None, &tx);
    drop(tx);
    assert!(app.ctx.sessions.iter().all(|e| e.summary.is_none()));
    apply_until(&mut app, &rx, |m| matches!(m, Msg::SummariesDone));
    assert!(app.ctx.sessions.iter().all(|e| e.summary.is_some()));
    let (got, plain) = calls_both_ways(&mut app, &rx, &queries, &sessions, "tool:Bash", 1);
    assert_eq!(got, plain);
}

/// Keys typed in a burst: each query supersedes the one before, whose
/// statements on the query thread's own index connection are interrupted
/// (`Queries::supersede`). The newest still gets the records `find` gives
/// without an index, and no older generation answers after it.
#[test]
fn a_burst_of_superseded_queries_ends_with_the_newest_answer() {
    let found = discover(&[CORPUS.into()]).expect("corpus");
    let sessions = found.sessions;
    let cache = tempfile::tempdir().expect("tempdir");
    let dir = cache.path().join("hookscope");
    warm(&dir, &sessions);
    let mut app = app_over(&sessions);
    let (tx, rx) = mpsc::channel();
    let queries = start_with(
        &mut app,
        &sessions,
        Some(Index::open(&dir).expect("index")),
        &tx,
    );
    drop(tx);
    let typed = "tool:Bash is:error";
    for (at, _) in typed.char_indices().skip(1) {
        let query = calls::prepare(&typed[..at], Utc::now())
            .unwrap_or_else(|_| calls::prepare("", Utc::now()).expect("the empty filter"));
        queries.send(at as u64, query);
    }
    let last = typed.len() as u64 + 1;
    let (got, plain) = calls_both_ways(&mut app, &rx, &queries, &sessions, typed, last);
    assert_eq!(got, plain);
    // real-cc-2.1.332 has 10 failed Bash calls (distinct tool_use ids
    // whose tool_result has is_error true, recounted with python3).
    assert_eq!(got["records"].as_array().map(Vec::len), Some(10));
    while let Ok(msg) = rx.try_recv() {
        if let Msg::Found { generation, .. } | Msg::FoundFirst { generation, .. } = msg {
            assert!(generation >= last, "generation {generation} answered late");
        }
    }
}

/// An answer the limit cut before every match was known (`limit:5`) is
/// followed by the count of every match, from the index's stored facts,
/// and the status text says it (a text filter is not counted: see
/// `Library::find_and_count_with`'s test).
#[test]
fn a_cut_answer_is_followed_by_its_count() {
    let found = discover(&[CORPUS.into()]).expect("corpus");
    let sessions = found.sessions;
    let cache = tempfile::tempdir().expect("tempdir");
    let dir = cache.path().join("hookscope");
    warm(&dir, &sessions);
    let mut app = app_over(&sessions);
    let (tx, rx) = mpsc::channel();
    let queries = start_with(
        &mut app,
        &sessions,
        Some(Index::open(&dir).expect("index")),
        &tx,
    );
    drop(tx);
    app.calls.generation = 1;
    queries.send(
        1,
        calls::prepare("tool:Bash limit:5", Utc::now()).expect("valid"),
    );
    apply_until(&mut app, &rx, |m| {
        matches!(m, Msg::Found { generation: 1, .. })
    });
    let result = app.calls.result.as_ref().expect("an answer");
    assert_eq!((result.records.len(), result.matched_exact), (5, false));
    assert_eq!(
        calls::count_text(&app.calls),
        "showing the newest 5 calls; more match (limit:N)"
    );
    apply_until(&mut app, &rx, |m| matches!(m, Msg::Counted { .. }));
    // real-cc-2.1.332 holds 52 Bash calls (distinct tool_use ids).
    assert_eq!(app.calls.total, Some((1, 52)));
    assert_eq!(
        calls::count_text(&app.calls),
        "showing the newest 5 of 52 calls (limit:N)"
    );
}

/// The corpus's sessions over an index in `dir` that holds the first half
/// of them, as a first build leaves it midway, and a Calls query thread
/// over it that searches the indexed sessions only while told the sync
/// runs (from any unindexed byte); with its receiver and that half.
fn half_indexed(
    dir: &std::path::Path,
) -> (
    Vec<SessionRef>,
    usize,
    super::worker::Queries,
    Receiver<Msg>,
) {
    let sessions = discover(&[CORPUS.into()]).expect("corpus").sessions;
    let half = sessions.len() / 2;
    warm(dir, &sessions[..half]);
    let library =
        hookscope_core::service::Library::new(&[]).with_index(Index::open(dir).expect("index"));
    let (tx, rx) = mpsc::channel();
    let queries = super::worker::spawn_queries_indexed(sessions.clone(), Some(library), tx);
    queries.indexed_only_from(1);
    (sessions, half, queries, rx)
}

/// While a first build runs, a Calls query searches the sessions the index
/// holds so far (loading the rest beside the build would double its work)
/// and the count says so; asked again once indexing ends, it searches every
/// session, the answer is the one without an index, and the note goes.
#[test]
fn while_the_index_is_first_built_the_calls_view_searches_what_it_holds() {
    use super::tests::{key, keys};
    use crossterm::event::KeyCode;

    let cache = tempfile::tempdir().expect("tempdir");
    let (sessions, half, queries, rx) = half_indexed(&cache.path().join("hookscope"));
    queries.indexing(true);

    let mut app = app_over(&sessions);
    key(&mut app, KeyCode::Char('c'));
    // (The helper answers each key's query at once, without an index.)
    keys(&mut app, "tool:Bash");
    let generation = app.calls.generation;
    let query = calls::prepare(&app.calls.filter, Utc::now()).expect("valid filter");
    let answer = |app: &mut App, rx: &Receiver<Msg>| -> Vec<String> {
        apply_until(
            app,
            rx,
            |m| matches!(m, Msg::Found { generation: g, .. } if *g == generation),
        )
    };

    queries.send(generation, query.clone());
    let seen = answer(&mut app, &rx);
    assert!(
        seen[0].starts_with(&format!(
            "Scope {{ generation: {generation}, searched: {half}, total: {} }}",
            sessions.len()
        )),
        "{seen:?}"
    );
    let plain = |refs: &[SessionRef]| {
        serde_json::to_value(Finder::new(refs, &query).run().expect("records")).expect("json")
    };
    let got = serde_json::to_value(app.calls.result.as_ref().expect("an answer")).expect("json");
    assert_eq!(got, plain(&sessions[..half]));
    assert_ne!(got, plain(&sessions), "the half must hold fewer Bash calls");
    assert_eq!(
        calls::count_text(&app.calls),
        format!(
            "{} · in {half} of {} sessions, the rest indexing",
            crate::words::plural(app.calls.records().len(), "call"),
            sessions.len()
        )
    );

    // Indexing ended: the same line asked again searches every session.
    queries.indexing(false);
    queries.send(generation, query.clone());
    let seen = answer(&mut app, &rx);
    assert!(
        seen[0].starts_with(&format!(
            "Scope {{ generation: {generation}, searched: {n}, total: {n} }}",
            n = sessions.len()
        )),
        "{seen:?}"
    );
    let got = serde_json::to_value(app.calls.result.as_ref().expect("an answer")).expect("json");
    assert_eq!(got, plain(&sessions));
    // The 52 Bash calls of real-cc-2.1.332/*/projects.
    assert_eq!(calls::count_text(&app.calls), "52 calls");
}

/// The start asks the newest query again, when it searched part of the
/// sessions, every `REFRESH_WHILE_INDEXING` while indexing goes on and once
/// when it ends (the event loop hands it the `Indexing` and `Scope`
/// messages), and only then.
#[test]
fn the_query_that_searched_part_is_asked_again_when_indexing_ends() {
    let cache = tempfile::tempdir().expect("tempdir");
    let (sessions, half, queries, rx) = half_indexed(&cache.path().join("hookscope"));
    let mut boot = super::boot::Boot::with_queries(queries);
    let query = calls::prepare("tool:Bash", Utc::now()).expect("valid filter");
    // The event loop's part: the scope seen, then the answer.
    let answer = |boot: &mut super::boot::Boot, generation: u64| -> (usize, usize) {
        let mut scope = None;
        loop {
            let msg = rx.recv_timeout(WAIT).expect("an answer");
            boot.observe(&msg);
            match msg {
                Msg::Scope {
                    searched, total, ..
                } => scope = Some((searched, total)),
                Msg::Found { generation: g, .. } if g == generation => {
                    return scope.expect("a scope before the answer");
                }
                _ => {}
            }
        }
    };

    // A sync of a few sessions: the answer is whole, nothing is asked again.
    boot.observe(&Msg::Indexing(Some((0, 1))));
    boot.queries().expect("queries").indexed_only_from(u64::MAX);
    boot.find(1, query.clone());
    assert_eq!(answer(&mut boot, 1), (sessions.len(), sessions.len()));
    boot.observe(&Msg::Indexing(None));
    assert_eq!(boot.asked_after_indexing(), 0);

    // A first build: the answer is over the half indexed; when it ends,
    // the same query is asked again, over every session.
    boot.queries().expect("queries").indexed_only_from(1);
    boot.observe(&Msg::Indexing(Some((half, sessions.len()))));
    boot.find(2, query.clone());
    assert_eq!(answer(&mut boot, 2), (half, sessions.len()));
    // Indexing goes on: not asked again before the answer has stood
    // `REFRESH_WHILE_INDEXING`, then asked again (still over the half).
    boot.observe(&Msg::Indexing(Some((half + 1, sessions.len()))));
    assert_eq!(boot.asked_after_indexing(), 0);
    boot.refresh_every(std::time::Duration::ZERO);
    boot.observe(&Msg::Indexing(Some((half + 1, sessions.len()))));
    assert_eq!(boot.asked_after_indexing(), 1);
    assert_eq!(answer(&mut boot, 2), (half, sessions.len()));
    boot.observe(&Msg::Indexing(None));
    assert_eq!(boot.asked_after_indexing(), 2);
    assert_eq!(answer(&mut boot, 2), (sessions.len(), sessions.len()));
    // Once: a second end asks nothing.
    boot.observe(&Msg::Indexing(None));
    assert_eq!(boot.asked_after_indexing(), 2);
}
