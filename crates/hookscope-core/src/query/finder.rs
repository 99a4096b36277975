//! [`Finder`]: the one way to run `find_tool_calls` over sessions already
//! discovered (docs/tool-calls.md#the-find-query). [`super::find_tool_calls`]
//! (MCP arguments) validates and then uses it; the CLI, the service layer,
//! the TUI and the tests build one with what they have: a loader (a cache),
//! the index's verdicts and rows, a cancel check, a first page.

use super::{
    FindResult, GroupBy, LoadedSession, Query, QueryError, RowKey, RowSource, SessionRows, Tally,
    Verdict, load_from_disk, run_picked,
};
use crate::transcript::SessionRef;

/// One `find_tool_calls` query over `sessions`, built up and then
/// [`Finder::run`]. The records are the same whatever is given: a loader,
/// verdicts and rows only change what is read to get them.
///
/// ```no_run
/// use hookscope_core::query::{FindParams, Finder};
/// use hookscope_core::transcript::discover;
///
/// let found = discover(&[]).expect("default roots");
/// let params = FindParams::from_json(&serde_json::json!({"tool_name": "Bash"})).expect("valid");
/// let query = params.validate(chrono::Utc::now()).expect("valid");
/// let result = Finder::new(&found.sessions, &query).run().expect("records");
/// println!("{} of {} matches", result.records.len(), result.matched);
/// ```
#[derive(Clone, Copy)]
pub struct Finder<'a> {
    sessions: &'a [SessionRef],
    query: &'a Query,
    loader: &'a (dyn Fn(&SessionRef) -> LoadedSession + Sync),
    verdicts: Option<&'a [Option<Verdict>]>,
    rows: Option<&'a dyn RowSource>,
    cancelled: Option<&'a (dyn Fn() -> bool + Sync)>,
}

/// A session loader as a [`Finder`] calls it (from rayon threads).
type Loader<'a> = dyn Fn(&SessionRef) -> LoadedSession + Sync + 'a;

/// What a cancelled query's loader answers for each session it would
/// still load (the caller drops the answer; see [`Finder::cancel`]).
pub const CANCELLED: &str = "cancelled: a newer query superseded this one";

impl<'a> Finder<'a> {
    /// The query over `sessions` (a validated [`Query`]: from
    /// [`super::FindParams::validate`], or the TUI's filter line), loading
    /// each session the raw-byte prefilter keeps from disk.
    pub fn new(sessions: &'a [SessionRef], query: &'a Query) -> Finder<'a> {
        Finder {
            sessions,
            query,
            loader: &load_from_disk,
            verdicts: None,
            rows: None,
            cancelled: None,
        }
    }

    /// Loads sessions through `loader` (called from rayon threads) instead
    /// of from disk: e.g. [`crate::transcript::cache::SessionCache::get`],
    /// the parsed sessions the TUI's Calls view and the MCP server keep
    /// between queries. It must give what [`crate::transcript::load`]
    /// would for the same files.
    pub fn loader(mut self, loader: &'a (dyn Fn(&SessionRef) -> LoadedSession + Sync)) -> Self {
        self.loader = loader;
        self
    }

    /// The caller's verdict per session, in the order of `sessions` (e.g.
    /// [`crate::index::Index::verdicts`]): `Some(v)` is used as the raw
    /// prefilter's verdict would be (it must be sound: [`Verdict::Skip`]
    /// only when no call can pass, [`Verdict::Newest`] no older than any
    /// call that can); `None` leaves that session to the raw prefilter.
    pub fn verdicts(mut self, verdicts: &'a [Option<Verdict>]) -> Self {
        self.verdicts = Some(verdicts);
        self
    }

    /// With [`Finder::verdicts`]: each session with a verdict first has its
    /// candidate calls asked of `rows` ([`RowSource::call_rows`], e.g.
    /// [`crate::index::Index`]); when they are given, its records are built
    /// from each call's `tool_use` and result lines alone
    /// ([`super::rows`]) instead of loading it. `rows` must describe the
    /// same files the verdicts do.
    pub fn rows(mut self, rows: &'a dyn RowSource) -> Self {
        self.rows = Some(rows);
        self
    }

    /// Stops reading once `cancelled` answers `true` (a newer query
    /// superseded this one): no more session is loaded (the loader answers
    /// [`CANCELLED`] instead) and no more row is asked for. The answer of a
    /// cancelled run is partial: the caller drops it.
    pub fn cancel(mut self, cancelled: &'a (dyn Fn() -> bool + Sync)) -> Self {
        self.cancelled = Some(cancelled);
        self
    }

    /// Whether it was given the index's answers ([`Finder::verdicts`] and
    /// [`Finder::rows`]).
    pub fn indexed(&self) -> bool {
        self.verdicts.is_some() && self.rows.is_some()
    }

    /// Runs the query: the records newest first, at most `query.limit`.
    ///
    /// # Errors
    /// [`QueryError::InvalidArgument`] when a `session` entry is a prefix of
    /// several session ids.
    pub fn run(&self) -> Result<FindResult, QueryError> {
        self.with_cancel(&|rows, loader| {
            run_picked(self.sessions, self.query, self.verdicts, rows, loader)
        })
    }

    /// How many calls match (the query's `limit` ignored), split by
    /// `group_by` when given ([`super::tally`]); the same calls
    /// [`Finder::run`] would return with no limit. Sessions with rows are
    /// counted from them, the others loaded. A cancelled query's answer is
    /// partial, as [`Finder::cancel`] says.
    ///
    /// # Errors
    /// As [`Finder::run`].
    pub fn tally(&self, group_by: Option<GroupBy>) -> Result<Tally, QueryError> {
        self.with_cancel(&|rows, loader| {
            super::tally::tally(
                self.sessions,
                self.query,
                group_by,
                self.verdicts,
                rows,
                loader,
            )
        })
    }

    /// `f` with the rows and loader a run reads through: as given, or,
    /// with [`Finder::cancel`], refusing once cancelled (the loader answers
    /// [`CANCELLED`], the rows source gives none).
    fn with_cancel<R>(&self, f: &dyn Fn(Option<&dyn RowSource>, &Loader) -> R) -> R {
        let Some(cancelled) = self.cancelled else {
            return f(self.rows, self.loader);
        };
        let loader = |s: &SessionRef| {
            if cancelled() {
                Err(CANCELLED.to_string())
            } else {
                (self.loader)(s)
            }
        };
        let rows = self
            .rows
            .map(|source| UnlessCancelled { source, cancelled });
        f(rows.as_ref().map(|r| r as &dyn RowSource), &loader)
    }

    /// [`Finder::run`] answering its first `first` records first when the
    /// query's limit is larger (a heavy user's first screen): `on_first`
    /// gets them (the same records the whole answer starts with, as the
    /// order is newest first with fixed tie-breaks) and returns whether to
    /// go on; then the whole answer is returned. `None` when `on_first`
    /// said stop. With a limit of `first` or less, this is [`Finder::run`].
    pub fn run_paged(
        &self,
        first: usize,
        on_first: &mut dyn FnMut(Result<FindResult, QueryError>) -> bool,
    ) -> Option<Result<FindResult, QueryError>> {
        if self.query.limit > first {
            let mut page = self.query.clone();
            page.limit = first;
            let head = Finder {
                query: &page,
                ..*self
            };
            if !on_first(head.run()) {
                return None;
            }
        }
        Some(self.run())
    }
}

/// A [`RowSource`] that gives no more rows once its query is cancelled:
/// each session of the batch then goes to the loader, which refuses at
/// once (so a cancelled query stops reading lines as it stops loading
/// sessions).
struct UnlessCancelled<'a> {
    source: &'a dyn RowSource,
    cancelled: &'a (dyn Fn() -> bool + Sync),
}

impl RowSource for UnlessCancelled<'_> {
    fn call_rows(
        &self,
        sessions: &[&SessionRef],
        query: &Query,
        cut: Option<&RowKey>,
    ) -> Vec<Option<SessionRows>> {
        if (self.cancelled)() {
            return sessions.iter().map(|_| None).collect();
        }
        self.source.call_rows(sessions, query, cut)
    }

    fn call_facts(
        &self,
        sessions: &[&SessionRef],
        query: &Query,
        each: &mut dyn FnMut(usize, super::rows::CallFact<'_>),
    ) -> bool {
        !(self.cancelled)() && self.source.call_facts(sessions, query, each)
    }

    fn newest_cut(&self, sessions: &[&SessionRef], query: &Query) -> Option<RowKey> {
        if (self.cancelled)() {
            return None;
        }
        self.source.newest_cut(sessions, query)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::FindParams;

    fn corpus() -> Vec<SessionRef> {
        let path = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/real-cc-2.1.332"
        ));
        crate::transcript::discover(&[path])
            .expect("corpus")
            .sessions
    }

    fn bash(limit: usize) -> Query {
        FindParams::from_json(&serde_json::json!({"tool_name": "Bash", "limit": limit}))
            .expect("params")
            .validate(chrono::Utc::now())
            .expect("valid")
    }

    /// Rows stop once the query is cancelled: every session of the batch
    /// goes to the loader, which refuses at once.
    #[test]
    fn a_cancelled_query_reads_no_rows() {
        struct Every;
        impl RowSource for Every {
            fn call_rows(
                &self,
                s: &[&SessionRef],
                _: &Query,
                _: Option<&RowKey>,
            ) -> Vec<Option<SessionRows>> {
                s.iter().map(|_| Some(SessionRows::default())).collect()
            }
        }
        let sessions = corpus();
        let refs: Vec<&SessionRef> = sessions.iter().collect();
        let query = bash(10);
        let live = UnlessCancelled {
            source: &Every,
            cancelled: &|| false,
        };
        assert!(
            live.call_rows(&refs, &query, None)
                .iter()
                .all(Option::is_some)
        );
        let stale = UnlessCancelled {
            source: &Every,
            cancelled: &|| true,
        };
        let rows = stale.call_rows(&refs, &query, None);
        assert_eq!(rows.len(), refs.len());
        assert!(rows.iter().all(Option::is_none));
    }

    /// A cancelled run loads nothing: every session the prefilter keeps is
    /// refused with [`CANCELLED`], and no record is built.
    #[test]
    fn a_cancelled_run_loads_no_session() {
        let sessions = corpus();
        let query = bash(1000);
        let whole = Finder::new(&sessions, &query).run().expect("records");
        assert!(whole.matched > 0);
        let cancelled = Finder::new(&sessions, &query)
            .cancel(&|| true)
            .run()
            .expect("runs");
        assert!(cancelled.records.is_empty());
        assert!(!cancelled.unreadable.is_empty());
        assert!(
            cancelled.unreadable.iter().all(|u| u == CANCELLED),
            "{:?}",
            cancelled.unreadable
        );
    }

    /// The first page is the head of the whole answer; a limit within the
    /// page gives no first page.
    #[test]
    fn the_first_page_begins_the_whole_answer() {
        let sessions = corpus();
        let query = bash(1000);
        let mut firsts = Vec::new();
        let whole = Finder::new(&sessions, &query)
            .run_paged(3, &mut |r| {
                firsts.push(r.expect("first page"));
                true
            })
            .expect("went on")
            .expect("records");
        assert_eq!(firsts.len(), 1);
        let first = &firsts[0].records;
        assert_eq!(first.len(), 3);
        assert_eq!(first[..], whole.records[..3]);
        let stopped = Finder::new(&sessions, &query).run_paged(3, &mut |_| false);
        assert!(stopped.is_none());
        let small = bash(2);
        let mut called = false;
        let r = Finder::new(&sessions, &small).run_paged(3, &mut |_| {
            called = true;
            true
        });
        assert!(!called);
        assert_eq!(r.expect("ran").expect("records").records.len(), 2);
    }
}
