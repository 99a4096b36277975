//! What a long-running view of the sessions (the TUI) asks of a
//! [`Library`] beyond the one-shot questions of the CLI: the stored list to
//! show before discovery answers ([`Library::listed`]), the summaries of
//! sessions unchanged since they were stored
//! ([`Library::fresh_summaries`]), the sync in chunks that refreshes the
//! list as it goes ([`Library::sync_list`]), `find_tool_calls` with the
//! view's own loader ([`Library::find_and_count_with`]) and the sessions a backtest
//! can skip unread ([`Library::backtest_index`]). The view keeps its threads
//! and messages; the index choreography is here, once
//! (docs/cli.md#index).

use std::collections::BTreeSet;

use rayon::prelude::*;

use super::{Library, backtest_index, current_states, current_verdicts};
use crate::hooks::rules::RuleSet;
use crate::index::{self, Index, Listed, Progress, State, SummaryResult};
use crate::query::{FindResult, Finder, LoadedSession, Query, QueryError, Verdict, tally};
use crate::transcript::{self, Diagnostic, SessionRef, SessionSummary};

/// Sessions synced (or, when they cannot be indexed, loaded) per chunk of
/// [`Library::sync_list`]: one [`ListUpdate::Summaries`] each, so a view
/// refreshes its list once per chunk, not once per session.
pub const SYNC_CHUNK: usize = 64;

/// What [`Library::sync_list`] tells the view as it goes.
#[derive(Debug)]
pub enum ListUpdate {
    /// Where the sync of changed and new sessions is: `Some((done,
    /// total))` sessions re-indexed while it runs (from `(0, total)`),
    /// `None` when it ended. Not sent when no session needed it.
    Indexing(Option<(usize, usize)>),
    /// Summaries of sessions of the list, by their position in it, and
    /// tool names seen (the last update carries every tool name the index
    /// holds, with no summary).
    Summaries {
        /// `(position, summary and diagnostics or why not)`.
        items: Vec<(usize, SummaryResult)>,
        /// Tool names for the view's completion.
        tool_names: Vec<String>,
    },
    /// An index notice (rebuilt, kept in memory, …), one sentence.
    Notice(String),
    /// `true` while the sync waits for another process that holds the
    /// index's build lock ([`crate::index::build_lock`]; the
    /// [`ListUpdate::Indexing`] counts then follow that process's work),
    /// `false` once it goes on. Sent only when it changes.
    WaitingForBuild(bool),
}

/// One session loaded for a list: its summary and diagnostics (or why it
/// could not be read) and the names of its tools, sorted and unique.
pub fn summary_of(session: &SessionRef) -> (SummaryResult, Vec<String>) {
    match transcript::load(session) {
        Ok(s) => {
            let names: BTreeSet<String> = s
                .all_tool_calls()
                .map(|(_, c)| c.name().to_string())
                .collect();
            (
                Ok((s.summary(), s.diagnostics)),
                names.into_iter().collect(),
            )
        }
        Err(e) => (Err(e), Vec::new()),
    }
}

impl Library {
    /// A second [`Library`] over the same roots on a second connection to
    /// the same index file ([`Index::reader`]), for questions asked while
    /// this one syncs; `None` without an index or with one in memory.
    pub fn reader(&self) -> Option<Library> {
        let reader = self.index.as_ref()?.lock().ok()?.reader()?;
        Some(Library::new(&self.paths).with_index(reader))
    }

    /// What stops this library's index connection mid-statement
    /// ([`index::Interrupter`]); `None` without an index. Give it only to
    /// the thread whose questions may be stopped: every statement on the
    /// connection stops (a stopped question is answered as without the
    /// index, or dropped by its superseded caller).
    pub fn interrupter(&self) -> Option<index::Interrupter> {
        Some(self.index.as_ref()?.lock().ok()?.interrupter())
    }

    /// Whether the index holds current rows for each of `sessions` now
    /// ([`current_states`]: the stored stamps equal the files'), in order;
    /// `None` without an index. While a first build runs, what a view can
    /// answer from the index alone (the TUI's Calls view then searches
    /// these and says so, rather than loading the rest beside the build:
    /// docs/keys.md, "While the index is first built").
    pub fn indexed_now(&self, sessions: &[SessionRef]) -> Option<Vec<bool>> {
        let index = self.index.as_ref()?.lock().ok()?;
        Some(
            current_states(&index, sessions)
                .into_iter()
                .map(|s| matches!(s, State::Indexed))
                .collect(),
        )
    }

    /// The sessions the index stored under `roots`, with their summaries
    /// ([`Index::listed`]): what a view can show before discovery answers.
    /// Empty without an index, or unless every root is a folder holding
    /// stored sessions.
    pub fn listed(&self, roots: &[std::path::PathBuf]) -> Vec<Listed> {
        match self.index.as_ref().map(|i| i.lock()) {
            Some(Ok(index)) => index.listed(roots),
            _ => Vec::new(),
        }
    }

    /// Each session's stored summary and diagnostics when its files are
    /// unchanged since it was indexed ([`Index::fresh_summaries`]), else
    /// `None`; every one `None` without an index. Reads no transcript.
    pub fn fresh_summaries(
        &self,
        sessions: &[SessionRef],
    ) -> Vec<Option<(SessionSummary, Vec<Diagnostic>)>> {
        match self.index.as_ref().map(|i| i.lock()) {
            Some(Ok(index)) => index.fresh_summaries(sessions),
            _ => sessions.iter().map(|_| None).collect(),
        }
    }

    /// Brings the index up to date with a view's list, telling `send` as
    /// it goes (it returns `false` when the view is gone; the work then
    /// stops). `fresh[i]` says session `i`'s summary is shown already
    /// ([`Library::fresh_summaries`]). Sessions the index cannot hold are
    /// loaded in parallel, in chunks of [`SYNC_CHUNK`], as without an
    /// index. The changed and new ones are synced in chunks with
    /// [`ListUpdate::Indexing`] progress and a [`ListUpdate::Summaries`]
    /// per chunk, then the fresh ones in one chunk (sent again only when a
    /// file changed since). The rows of sessions gone are removed (when
    /// every session is fresh, the one chunk is a whole [`Index::sync`],
    /// which removes them in the same pass). The last update carries the
    /// index's tool names. Without an index every session is loaded.
    ///
    /// Returns whether every session was fresh and its stored rows reused
    /// (no file changed since they were stored): answers a view gave from
    /// the stored list ([`Library::listed`]) then stand.
    pub fn sync_list(
        &self,
        sessions: &[SessionRef],
        fresh: &[bool],
        send: &(dyn Fn(ListUpdate) -> bool + Sync),
    ) -> bool {
        let indexable: Vec<bool> = match &self.index {
            Some(_) => sessions.iter().map(index::indexable).collect(),
            None => vec![false; sessions.len()],
        };
        let others: Vec<usize> = (0..sessions.len()).filter(|&i| !indexable[i]).collect();
        let no_others = others.is_empty();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                for batch in others.chunks(SYNC_CHUNK) {
                    let done: Vec<(usize, (SummaryResult, Vec<String>))> = batch
                        .par_iter()
                        .map(|&i| (i, summary_of(&sessions[i])))
                        .collect();
                    let mut tool_names = Vec::new();
                    let items = done
                        .into_iter()
                        .map(|(i, (r, names))| {
                            tool_names.extend(names);
                            (i, r)
                        })
                        .collect();
                    if !send(ListUpdate::Summaries { items, tool_names }) {
                        return;
                    }
                }
            });
            let Some(shared) = &self.index else {
                return false;
            };
            let is_fresh = |i: usize| fresh.get(i).copied().unwrap_or(false);
            let rest: Vec<usize> = (0..sessions.len())
                .filter(|&i| indexable[i] && !is_fresh(i))
                .collect();
            let last: Vec<usize> = (0..sessions.len())
                .filter(|&i| indexable[i] && is_fresh(i))
                .collect();
            let total = rest.len();
            let mut all_reused = no_others && rest.is_empty();
            // Every session is in the one chunk of fresh ones: a whole sync
            // removes the rows of sessions gone in the same pass (one read
            // of the stored table, not two).
            let whole = all_reused && !last.is_empty();
            if total > 0 {
                send(ListUpdate::Indexing(Some((0, total))));
            }
            // A first build makes the call indexes after its last chunk
            // (readers between chunks name none).
            let deferred = total > 0
                && shared.lock().is_ok_and(|mut index| {
                    index.defer_indexes_for(index::bytes_to_index(sessions, &rest))
                });
            let mut known = 0;
            let chunks = rest
                .chunks(SYNC_CHUNK)
                .map(|c| (c, false))
                .chain(std::iter::once((last.as_slice(), true)).filter(|(c, _)| !c.is_empty()));
            let mut done = 0usize;
            let waiting = std::cell::Cell::new(false);
            for (chunk, fresh_chunk) in chunks {
                let refs: Vec<SessionRef> = chunk.iter().map(|&i| sessions[i].clone()).collect();
                let Ok(mut index) = shared.lock() else {
                    all_reused = false;
                    break;
                };
                let base = done;
                let mut progress = |p: Progress| {
                    if p.waiting != waiting.get() {
                        waiting.set(p.waiting);
                        send(ListUpdate::WaitingForBuild(p.waiting));
                    }
                    if !fresh_chunk {
                        send(ListUpdate::Indexing(Some((base + p.done, total))));
                    }
                };
                let synced = if whole {
                    index.sync(&refs, &mut progress)
                } else {
                    index.sync_part(&refs, &mut progress)
                };
                all_reused &= synced.reused.iter().all(|&r| r);
                if !fresh_chunk {
                    done += chunk.len();
                }
                if !fresh_chunk || synced.stats.indexed > 0 {
                    // Fresh sessions are on screen already: only those that
                    // changed since (not reused by the sync) are sent again.
                    let before: Vec<bool> = if fresh_chunk {
                        synced.reused.clone()
                    } else {
                        Vec::new()
                    };
                    let items = index
                        .summaries(&refs, synced)
                        .into_iter()
                        .zip(chunk)
                        .enumerate()
                        .filter(|(k, _)| !before.get(*k).copied().unwrap_or(false))
                        .map(|(_, (r, &i))| (i, r))
                        .collect();
                    send(ListUpdate::Summaries {
                        items,
                        tool_names: Vec::new(),
                    });
                }
                for n in index.notices().iter().skip(known) {
                    send(ListUpdate::Notice(n.clone()));
                }
                known = index.notices().len();
            }
            if let Ok(mut index) = shared.lock() {
                if deferred && let Err(e) = index.end_deferred() {
                    send(ListUpdate::Notice(format!(
                        "the index's call indexes could not be made ({e}); the next start makes them"
                    )));
                }
                // The chunks removed nothing: rows of sessions gone go now.
                if !whole {
                    index.remove_gone(sessions);
                }
                send(ListUpdate::Summaries {
                    items: Vec::new(),
                    tool_names: index.tool_names().unwrap_or_default(),
                });
            }
            if waiting.get() {
                send(ListUpdate::WaitingForBuild(false));
            }
            if total > 0 {
                send(ListUpdate::Indexing(None));
            }
            all_reused
        })
    }

    /// `find_tool_calls` over a view's `sessions` with the view's own
    /// `loader` (its cache), stopping once `cancelled` says a newer query
    /// superseded it ([`Finder::cancel`]), with its first `first_page`
    /// records given to `on_first` first when the limit is larger
    /// ([`Finder::run_paged`]), then the whole answer to `on_found`; `None`
    /// when `on_first` or `on_found` said stop, or when `cancelled` already
    /// says so once the index has answered. With an index, only the
    /// sessions it says can hold a match are loaded and indexed Claude Code
    /// sessions are built from their rows; the records are those without
    /// it. `stored` takes every session's rows as stored without checking a
    /// file (the list is the index's own, [`Library::listed`]; the answer is
    /// then `find`'s over the files as the index last saw them); otherwise
    /// only rows whose files are unchanged now are used
    /// ([`current_verdicts`]).
    ///
    /// When the limit cut the answer before every match was known
    /// ([`FindResult::matched_exact`] false), every match is then counted
    /// ([`Finder::tally`]) on the same verdicts of the index (asked once for
    /// both), from the index's stored facts alone: `Some(total)`; `None`
    /// when they were all known, without an index, when the query has a
    /// text or hook filter (counting it would read lines or load sessions:
    /// [`tally::from_facts_alone`]), or when `cancelled` says so (the count
    /// would be partial).
    #[allow(clippy::too_many_arguments)]
    pub fn find_and_count_with(
        &self,
        sessions: &[SessionRef],
        query: &Query,
        stored: bool,
        loader: &(dyn Fn(&SessionRef) -> LoadedSession + Sync),
        cancelled: &(dyn Fn() -> bool + Sync),
        first_page: Option<usize>,
        on_first: &mut dyn FnMut(Result<FindResult, QueryError>) -> bool,
        on_found: &mut dyn FnMut(Result<FindResult, QueryError>) -> bool,
    ) -> Option<Result<usize, QueryError>> {
        self.in_view(sessions, query, stored, loader, cancelled, &mut |finder| {
            let found = match first_page {
                Some(n) => finder.run_paged(n, on_first)?,
                None => finder.run(),
            };
            let uncounted = found.as_ref().is_ok_and(|r| !r.matched_exact);
            if !on_found(found) || !uncounted || !tally::from_facts_alone(query) {
                return None;
            }
            let counted = finder.indexed().then(|| finder.tally(None))?;
            (!cancelled()).then(|| counted.map(|t| t.total))
        })
        .flatten()
    }

    /// `run` on the [`Finder`] of a view's `sessions` ([`Library::find_and_count_with`]
    /// says what `stored`, `loader` and `cancelled` are): with the index's
    /// verdicts and rows when there is an index. `None` when `cancelled`
    /// says so once the index has answered (perhaps interrupted, with no
    /// verdicts: the raw prefilter would then read every session).
    fn in_view<R>(
        &self,
        sessions: &[SessionRef],
        query: &Query,
        stored: bool,
        loader: &(dyn Fn(&SessionRef) -> LoadedSession + Sync),
        cancelled: &(dyn Fn() -> bool + Sync),
        run: &mut dyn FnMut(Finder<'_>) -> R,
    ) -> Option<R> {
        let verdicts = self.index.as_ref().and_then(|shared| {
            let index = shared.lock().ok()?;
            Some(if stored {
                stored_verdicts(&index, sessions, query)
            } else {
                current_verdicts(&index, sessions, query)
            })
        });
        if cancelled() {
            return None;
        }
        let mut finder = Finder::new(sessions, query)
            .loader(loader)
            .cancel(cancelled);
        if let (Some(shared), Some(verdicts)) = (&self.index, &verdicts) {
            finder = finder.verdicts(verdicts).rows(shared.as_ref());
        }
        Some(run(finder))
    }

    /// What the index tells a backtest of `rules` about each of
    /// `sessions`, asked one session at a time ([`backtest_index`]: a
    /// backtest counts a session whose every rule is ruled out done
    /// unread); `None` without an index.
    pub fn backtest_index<'a>(
        &'a self,
        sessions: &'a [SessionRef],
        rules: &'a RuleSet,
    ) -> Option<super::BacktestIndex<'a>> {
        backtest_index(self.index.as_ref()?, sessions, rules)
    }
}

/// What `index` says about `query` for `sessions` taken as stored (every
/// one [`State::Indexed`]: see [`Library::find_and_count_with`]).
fn stored_verdicts(index: &Index, sessions: &[SessionRef], query: &Query) -> Vec<Option<Verdict>> {
    let states: Vec<State> = sessions.iter().map(|_| State::Indexed).collect();
    index.verdicts(sessions, &states, query)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A view's count comes from the index's stored facts: real-cc-2.1.332
    /// holds 52 Bash calls (distinct tool_use ids, recounted with
    /// python3); a text filter, or no index, gives no count.
    #[test]
    fn a_view_count_comes_from_the_stored_facts_alone() {
        let corpus = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/real-cc-2.1.332"
        ));
        let sessions = transcript::discover(&[corpus]).expect("corpus").sessions;
        let library = Library::new(&[]).with_index(Index::in_memory().expect("sqlite"));
        assert!(library.sync(&sessions, &mut |_| {}).is_some());
        let query = |args: serde_json::Value| {
            crate::query::FindParams::from_json(&args)
                .and_then(|p| p.validate(chrono::Utc::now()))
                .expect("valid")
        };
        // The loader must not be called: the facts answer.
        let loader = |_: &SessionRef| -> LoadedSession { Err("loaded".to_string()) };
        // The count after an answer cut at one record.
        let bash = query(serde_json::json!({"tool_name": "Bash", "limit": 1}));
        let count = |library: &Library, q: &Query, cancelled: bool| {
            library.find_and_count_with(
                &sessions,
                q,
                false,
                &loader,
                &|| cancelled,
                None,
                &mut |_| true,
                &mut |_| true,
            )
        };
        assert_eq!(count(&library, &bash, false), Some(Ok(52)));
        let git =
            query(serde_json::json!({"tool_name": "Bash", "input_contains": "git", "limit": 1}));
        assert_eq!(count(&library, &git, false), None);
        assert_eq!(count(&Library::new(&[]), &bash, false), None);
        // Superseded: no count.
        assert_eq!(count(&library, &bash, true), None);
        // The Calls view's question: the first page, the whole answer, then
        // the count on the same verdicts.
        let answer = |q: &Query, keep_going: bool| {
            let mut pages: Vec<(usize, bool)> = Vec::new();
            let total = {
                let mut on_first = |r: Result<FindResult, QueryError>| {
                    pages.push(r.map_or((0, false), |r| (r.records.len(), r.matched_exact)));
                    true
                };
                let mut seen = Vec::new();
                let mut on_found = |r: Result<FindResult, QueryError>| {
                    seen.push(r.map_or((0, false), |r| (r.records.len(), r.matched_exact)));
                    keep_going
                };
                let total = library.find_and_count_with(
                    &sessions,
                    q,
                    false,
                    &loader,
                    &|| false,
                    Some(2),
                    &mut on_first,
                    &mut on_found,
                );
                pages.extend(seen);
                total
            };
            (pages, total)
        };
        let five = query(serde_json::json!({"tool_name": "Bash", "limit": 5}));
        assert_eq!(
            answer(&five, true),
            (vec![(2, false), (5, false)], Some(Ok(52)))
        );
        // Told to stop after the answer: no count.
        assert_eq!(answer(&five, false), (vec![(2, false), (5, false)], None));
        // Every match known: nothing to count.
        let all = query(serde_json::json!({"tool_name": "Bash", "limit": 100}));
        assert_eq!(answer(&all, true), (vec![(2, false), (52, true)], None));
    }

    /// While another process holds the index's build lock, the list's sync
    /// says it waits (once), then that it goes on, before its progress
    /// ends; every summary is still sent once.
    #[test]
    fn a_sync_list_says_when_it_waits_for_another_build() {
        let corpus = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/real-cc-2.1.332"
        ));
        let sessions = transcript::discover(&[corpus]).expect("corpus").sessions;
        let n = sessions.len();
        let dir = tempfile::TempDir::new().expect("temp");
        let library = Library::new(&[]).with_index(Index::open(dir.path()).expect("index"));
        let mut other =
            index::build_lock::BuildLock::open(&dir.path().join(index::FILE_NAME)).expect("lock");
        assert_eq!(
            other.take(index::build_lock::STALLED_AFTER, &mut || 0),
            index::build_lock::Taken::AtOnce
        );
        let updates = std::sync::Mutex::new(Vec::new());
        let send = |u: ListUpdate| {
            updates.lock().expect("lock").push(u);
            true
        };
        std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(index::build_lock::POLL * 4);
                drop(other);
            });
            assert!(!library.sync_list(&sessions, &vec![false; n], &send));
        });
        let updates = updates.into_inner().expect("lock");
        let waits: Vec<bool> = updates
            .iter()
            .filter_map(|u| match u {
                ListUpdate::WaitingForBuild(w) => Some(*w),
                _ => None,
            })
            .collect();
        assert_eq!(waits, vec![true, false]);
        let summaries: usize = updates
            .iter()
            .map(|u| match u {
                ListUpdate::Summaries { items, .. } => items.len(),
                _ => 0,
            })
            .sum();
        assert_eq!(summaries, n);
        assert!(matches!(updates.last(), Some(ListUpdate::Indexing(None))));
    }

    /// A first sync of a list reads every session and sends each one's
    /// summary once, with progress from 0 to the end; a second over the
    /// unchanged list, every summary shown already, reuses every row,
    /// sends no summary again and says so.
    /// A first build in chunks (the threshold lowered to any size) leaves
    /// the calls' secondary indexes out until its last chunk is written:
    /// between chunks a reader sees them missing and still answers, from
    /// the sessions indexed so far, what `find` without an index answers
    /// over those; afterwards they are there and the whole answer equals
    /// the one without an index.
    #[test]
    fn a_first_build_in_chunks_makes_the_call_indexes_last_and_answers_between_chunks() {
        fn copy(from: &std::path::Path, to: &std::path::Path) {
            std::fs::create_dir_all(to).expect("mkdir");
            for entry in std::fs::read_dir(from).expect("read_dir") {
                let entry = entry.expect("entry");
                let kind = entry.file_type().expect("type");
                if kind.is_dir() {
                    copy(&entry.path(), &to.join(entry.file_name()));
                } else if kind.is_file() {
                    std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
                }
            }
        }
        // Three copies of the test corpus: enough sessions for three chunks.
        let corpus =
            std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus"));
        let data = tempfile::TempDir::new().expect("temp");
        for copy_name in ["c0", "c1", "c2"] {
            copy(&corpus, &data.path().join(copy_name));
        }
        let sessions = transcript::discover(&[data.path().to_path_buf()])
            .expect("corpus")
            .sessions;
        let n = sessions.len();
        let indexable = sessions.iter().filter(|s| index::indexable(s)).count();
        assert!(
            indexable > 2 * SYNC_CHUNK,
            "{indexable} sessions: too few chunks"
        );
        let dir = tempfile::TempDir::new().expect("temp");
        let library = Library::new(&[]).with_index(
            Index::open(dir.path())
                .expect("index")
                .with_deferred_indexes_from(0),
        );
        let reader = library.reader().expect("a file index has a reader");
        let query = crate::query::FindParams {
            tool_name: Some("Bash".into()),
            limit: Some(1000),
            ..crate::query::FindParams::default()
        }
        .validate(chrono::Utc::now())
        .expect("valid");
        let answer = |over: &[SessionRef]| -> String {
            let mut got = None;
            reader.find_and_count_with(
                over,
                &query,
                false,
                &crate::query::load_from_disk,
                &|| false,
                None,
                &mut |_| true,
                &mut |r| {
                    got = Some(r);
                    true
                },
            );
            let found = got.expect("an answer").expect("no error");
            let reference = Finder::new(over, &query).run().expect("reference");
            let (a, b) = (
                serde_json::to_string(&found.records).expect("json"),
                serde_json::to_string(&reference.records).expect("json"),
            );
            assert_eq!(a, b);
            a
        };
        let between = std::sync::Mutex::new(Vec::new());
        let send = |u: ListUpdate| {
            if let ListUpdate::Summaries { items, .. } = &u
                && !items.is_empty()
            {
                let indexed = reader
                    .index
                    .as_ref()
                    .and_then(|i| i.lock().ok().map(|i| i.calls_indexed()))
                    .expect("reader");
                let held = reader.indexed_now(&sessions).expect("index");
                let part: Vec<SessionRef> = sessions
                    .iter()
                    .zip(&held)
                    .filter(|&(_, &h)| h)
                    .map(|(s, _)| s.clone())
                    .collect();
                answer(&part);
                between.lock().expect("lock").push((indexed, part.len()));
            }
            true
        };
        library.sync_list(&sessions, &vec![false; n], &send);
        let between = between.into_inner().expect("lock");
        assert!(between.len() > 2, "{between:?}");
        assert!(between.iter().all(|(indexed, _)| !indexed), "{between:?}");
        assert!(between.windows(2).all(|w| w[0].1 < w[1].1), "{between:?}");
        let after = reader
            .index
            .as_ref()
            .and_then(|i| i.lock().ok().map(|i| i.calls_indexed()))
            .expect("reader");
        assert!(after, "the call indexes are made after the last chunk");
        let whole = answer(&sessions);
        assert!(whole.contains("\"tool_name\":\"Bash\""));
    }

    #[test]
    fn a_second_sync_of_an_unchanged_list_reuses_every_row() {
        let corpus = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/real-cc-2.1.332"
        ));
        let sessions = transcript::discover(&[corpus]).expect("corpus").sessions;
        let n = sessions.len();
        assert!(sessions.iter().all(index::indexable));
        let library = Library::new(&[]).with_index(Index::in_memory().expect("sqlite"));
        let updates = std::sync::Mutex::new(Vec::new());
        let send = |u: ListUpdate| {
            updates.lock().expect("lock").push(u);
            true
        };
        assert!(
            library
                .fresh_summaries(&sessions)
                .iter()
                .all(Option::is_none)
        );
        assert!(!library.sync_list(&sessions, &vec![false; n], &send));
        let first = std::mem::take(&mut *updates.lock().expect("lock"));
        let mut shown = BTreeSet::new();
        let mut progress = Vec::new();
        for u in &first {
            match u {
                ListUpdate::Summaries { items, .. } => {
                    for (i, r) in items {
                        assert!(r.is_ok(), "session {i}: {r:?}");
                        assert!(shown.insert(*i), "session {i} sent twice");
                    }
                }
                ListUpdate::Indexing(p) => progress.push(*p),
                ListUpdate::Notice(_) => {}
                ListUpdate::WaitingForBuild(w) => panic!("nobody else builds here: {w}"),
            }
        }
        assert_eq!(shown.len(), n);
        assert_eq!(progress.first(), Some(&Some((0, n))));
        assert_eq!(progress.last(), Some(&None));
        match first.last() {
            Some(ListUpdate::Indexing(None)) => {}
            other => panic!("the last update is the end of progress, not {other:?}"),
        }

        let fresh = library.fresh_summaries(&sessions);
        assert!(fresh.iter().all(Option::is_some));
        assert!(library.sync_list(&sessions, &vec![true; n], &send));
        let second = std::mem::take(&mut *updates.lock().expect("lock"));
        assert_eq!(second.len(), 1, "{second:?}");
        match &second[0] {
            ListUpdate::Summaries { items, tool_names } => {
                assert!(items.is_empty());
                assert!(tool_names.iter().any(|t| t == "Bash"), "{tool_names:?}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
