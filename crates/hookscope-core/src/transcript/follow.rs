//! Following sessions while they are written (docs/cli.md#hookscope-tail-watch-a-session-while-the-agent-writes-it): the core of
//! `hookscope tail` and of the TUI's live updates.
//!
//! A [`Follower`] watches the files of the sessions it follows (the main
//! transcript, its subagent files, the folders new subagent files appear
//! in) and the roots it was given (for new sessions). It uses file
//! notifications (the `notify` crate: inotify, FSEvents, kqueue,
//! ReadDirectoryChanges) to wake up early, and a stat of every followed file
//! each [`FollowOptions::poll`] as the fallback, so a missed or unsupported
//! notification costs at most one poll interval. It never spins: it blocks
//! on the notification channel with a timeout.
//!
//! Per file it keeps the offset just after the last complete line (`\n`)
//! and reads only the bytes after it to find the next one. When a followed
//! file gained complete lines the session is loaded again with its agent's
//! loader ([`super::load`]) and compared with what was already reported:
//! tool calls by (file, line, `tool_use_id`), results by the same key,
//! hook firings ([`HookActivity`]) by (file, first line), diagnostics by
//! (file, line, message). A last line without its newline is kept for the
//! next read; while the file keeps changing its `truncated last line`
//! diagnostic is held back (also from the [`Session`] handed out), and it is
//! reported only once the file has stayed unchanged for
//! [`FollowOptions::settle`]. A file that shrinks below the offset or is
//! replaced (another inode) is read again from 0 ([`Change::Reset`]); an item
//! already reported at the same place (file, line, id) is not repeated.
//!
//! Reloading a whole session costs what `show` costs; to keep a busy, huge
//! session from taking a core, a session is not reloaded sooner than twice
//! its last load time after the previous load.
//!
//! Claude Code (main files and subagent files, also ones that appear later
//! under `<session>/subagents/`), Codex rollouts and Droid transcripts are
//! followed; OpenCode (a database, not lines) is not.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant, SystemTime};

use super::hook_activity::HookActivity;
use super::model::{Agent, Diagnostic, Locus, Session, ToolCallRecord};
use super::{SessionRef, discover};

/// The message of the diagnostic [`super::jsonl::read_objects`] gives a
/// last line cut short; held back while the file still grows.
const TRUNCATED_LAST_LINE: &str = "truncated last line";

/// Below this size a touched `.jsonl` that was not a session is sniffed
/// again on its next change (64 KiB).
const SNIFF_AGAIN: u64 = 64 << 10;

/// How a [`Follower`] watches.
#[derive(Debug, Clone)]
pub struct FollowOptions {
    /// How often followed files are stat'ed, and the longest a
    /// [`Follower::wait`] blocks between checks (default 500 ms).
    pub poll: Duration,
    /// How long a file must stay unchanged before a last line without its
    /// newline is reported as a diagnostic (default 2 s).
    pub settle: Duration,
    /// How often the roots are searched again for new sessions when file
    /// notifications are not available (default 10 s; with notifications
    /// only the created or written file is looked at).
    pub rescan: Duration,
    /// Use file notifications (default true); false polls only.
    pub notify: bool,
    /// Follow the sessions that appear under the roots too (default true);
    /// false only reports them ([`Change::Added`]).
    pub follow_new: bool,
    /// Wait twice the last load time before loading a session again
    /// (default true; tests that drive [`Follower::check`] turn it off).
    pub reload_backoff: bool,
}

impl Default for FollowOptions {
    fn default() -> Self {
        FollowOptions {
            poll: Duration::from_millis(500),
            settle: Duration::from_secs(2),
            rescan: Duration::from_secs(10),
            notify: true,
            follow_new: true,
            reload_backoff: true,
        }
    }
}

/// Something new in a followed session, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveItem {
    /// The thread: `None` the main thread, `Some(i)` the session's
    /// `subagents[i]` (as [`Session::all_tool_calls`]).
    pub thread: Option<usize>,
    /// What it is.
    pub kind: LiveKind,
}

/// What a [`LiveItem`] is.
#[derive(Debug, Clone, PartialEq)]
pub enum LiveKind {
    /// A `tool_use` appeared (its `result` may already be there; the result
    /// is reported as its own [`LiveKind::Result`] item).
    Call(Box<ToolCallRecord>),
    /// A call's `tool_result` appeared; the record carries it.
    Result(Box<ToolCallRecord>),
    /// A hook firing the transcript records (its first record appeared).
    Hook(Box<HookActivity>),
    /// A new diagnostic (a bad line; a cut last line once the file settled).
    Diagnostic(Diagnostic),
}

impl LiveItem {
    /// The 1-based line of the item in its thread's file: the `tool_use`'s
    /// for a call, the `tool_result`'s for a result, the first record's for
    /// a hook firing, the diagnostic's (0 for a whole file).
    pub fn line(&self) -> usize {
        match &self.kind {
            LiveKind::Call(r) => r.line,
            LiveKind::Result(r) => r.result.as_ref().map_or(r.line, |res| res.line),
            LiveKind::Hook(h) => h.line(),
            LiveKind::Diagnostic(d) => d.line().unwrap_or(0),
        }
    }
}

/// What [`Follower::wait`] reports.
#[derive(Debug, Clone)]
pub enum Change {
    /// A session appeared under the roots. When
    /// [`FollowOptions::follow_new`] is set it is now followed and an
    /// [`Change::Updated`] with everything it holds follows.
    Added(SessionRef),
    /// A followed session gained complete lines: it as loaded now (the held
    /// back diagnostic of a cut last line left out) and the items not
    /// reported before.
    Updated {
        /// The session as loaded now.
        session: Arc<Session>,
        /// The new items, main thread first, then each subagent, each in
        /// line order.
        items: Vec<LiveItem>,
    },
    /// A followed file shrank or was replaced: it is read again from the
    /// start.
    Reset {
        /// The file.
        path: PathBuf,
    },
    /// A followed file could not be read (removed, permission, not a
    /// regular file any more); it is tried again at the next change.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why, e.g. `No such file or directory (os error 2)`.
        message: String,
    },
}

/// Why a session cannot be followed.
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    /// OpenCode keeps sessions in a database, not in lines.
    #[error("{0}: OpenCode sessions cannot be followed")]
    Unsupported(PathBuf),
    /// The main file could not be read.
    #[error(transparent)]
    Load(#[from] super::LoadError),
}

/// Where a file's reading stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileState {
    /// (device, inode) on unix; (0, 0) elsewhere.
    identity: (u64, u64),
    /// The size at the last check.
    len: u64,
    /// The mtime at the last check.
    modified: Option<SystemTime>,
    /// The offset just after the last complete line.
    complete: u64,
    /// Complete lines before `complete` (blank ones too, as the loaders
    /// number lines).
    lines: usize,
}

/// A folder whose mtime says a subagent file may have appeared.
#[derive(Debug, Clone)]
struct DirState {
    path: PathBuf,
    modified: Option<SystemTime>,
}

/// What an item is keyed by, so nothing is reported twice.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Call(PathBuf, usize, String),
    Result(PathBuf, usize, String),
    Hook(PathBuf, usize),
    Diagnostic(PathBuf, Option<Locus>, String),
}

/// One followed session.
struct Followed {
    session_ref: SessionRef,
    files: HashMap<PathBuf, FileState>,
    dirs: Vec<DirState>,
    seen: HashSet<Key>,
    /// When a file last changed (for [`FollowOptions::settle`]).
    changed_at: HashMap<PathBuf, Instant>,
    /// Files whose cut last line was reported as settled.
    settled: HashSet<PathBuf>,
    /// Needs a reload (new complete lines, a new file, a settled cut line).
    dirty: bool,
    last_load: Duration,
    loaded_at: Option<Instant>,
    session: Option<Arc<Session>>,
}

/// Follows sessions and the roots they live under (module docs).
pub struct Follower {
    roots: Vec<PathBuf>,
    options: FollowOptions,
    followed: Vec<Followed>,
    /// Canonical paths of every session file (main and subagent) known
    /// under the roots or followed.
    known: HashSet<PathBuf>,
    events: Option<Receiver<notify::Result<notify::Event>>>,
    watcher: Option<notify::RecommendedWatcher>,
    /// Paths touched (notifications) since the last check.
    touched: Vec<PathBuf>,
    /// A root could not be watched (inotify limits, permissions): new
    /// sessions are found by rescans, as without notifications.
    watch_failed: bool,
    /// Touched `.jsonl` files that were not sessions when sniffed (a hook
    /// capture, a file still empty or half copied), with their size and
    /// mtime then: sniffed again when touched while small, or once either
    /// changed (a copy that was caught half written).
    rejected: HashMap<PathBuf, Option<(u64, Option<SystemTime>)>>,
    /// Touched paths sniffed so far ([`Follower::look_for_new`]), for tests.
    sniffed: usize,
    last_rescan: Instant,
    last_rescan_cost: Duration,
    last_poll: Option<Instant>,
}

impl Follower {
    /// A follower watching `roots` (folders or files, as [`discover()`] takes
    /// them; none = no new sessions reported). The sessions already under
    /// the roots are known, not followed: follow some with
    /// [`Follower::follow`]. Notifications that cannot be set up (a
    /// platform without them, inotify limits) leave the follower polling.
    pub fn new(roots: &[PathBuf], options: FollowOptions) -> Follower {
        Follower::with_known(roots, options, None)
    }

    /// [`Follower::new`] with the sessions already under the roots given
    /// (`Some`: a discovery the caller just made, e.g. the TUI's start, so
    /// the roots are not walked twice); `None` discovers them.
    pub fn with_known(
        roots: &[PathBuf],
        options: FollowOptions,
        known: Option<&[SessionRef]>,
    ) -> Follower {
        let roots: Vec<PathBuf> = roots
            .iter()
            .map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.clone()))
            .collect();
        let mut follower = Follower {
            roots,
            options,
            followed: Vec::new(),
            known: HashSet::new(),
            events: None,
            watcher: None,
            touched: Vec::new(),
            watch_failed: false,
            rejected: HashMap::new(),
            sniffed: 0,
            last_rescan: Instant::now(),
            last_rescan_cost: Duration::ZERO,
            last_poll: None,
        };
        match known {
            Some(known) => {
                for s in known {
                    follower.remember(s);
                }
            }
            None => {
                if !follower.roots.is_empty()
                    && let Ok(found) = discover(&follower.roots)
                {
                    for s in &found.sessions {
                        follower.remember(s);
                    }
                }
            }
        }
        if follower.options.notify {
            follower.start_watching();
        }
        follower
    }

    /// Whether file notifications are in use (else polling only).
    pub fn notifying(&self) -> bool {
        self.watcher.is_some()
    }

    fn start_watching(&mut self) {
        use notify::Watcher;
        let (tx, rx) = channel();
        let Ok(mut watcher) = notify::recommended_watcher(tx) else {
            return;
        };
        for root in &self.roots {
            let (path, mode) = if root.is_dir() {
                (root.clone(), notify::RecursiveMode::Recursive)
            } else {
                match root.parent() {
                    Some(p) => (p.to_path_buf(), notify::RecursiveMode::NonRecursive),
                    None => continue,
                }
            };
            // A root that cannot be watched is still polled and rescanned.
            if watcher.watch(&path, mode).is_err() {
                self.watch_failed = true;
            }
        }
        self.events = Some(rx);
        self.watcher = Some(watcher);
    }

    /// Adds a followed file's folder to the watch list (when it is not under
    /// a watched root).
    fn watch_session(&mut self, session_ref: &SessionRef) {
        use notify::Watcher;
        let Some(watcher) = self.watcher.as_mut() else {
            return;
        };
        let main = canonical(&session_ref.path);
        if self.roots.iter().any(|r| r.is_dir() && main.starts_with(r)) {
            return;
        }
        if let Some(dir) = main.parent() {
            let _ = watcher.watch(dir, notify::RecursiveMode::NonRecursive);
        }
        if let Some(stem_dir) = session_dir(&main).filter(|d| d.is_dir()) {
            let _ = watcher.watch(&stem_dir, notify::RecursiveMode::Recursive);
        }
    }

    fn remember(&mut self, s: &SessionRef) {
        self.known.insert(canonical(&s.path));
        for f in &s.subagent_files {
            self.known.insert(canonical(f));
        }
    }

    /// Follows `session_ref`: loads it now, counts everything it holds as
    /// reported, and returns it (the held-back diagnostic of a cut last
    /// line left out). Following a session twice returns the loaded one.
    ///
    /// # Errors
    /// [`FollowError::Unsupported`] for OpenCode; [`FollowError::Load`] when
    /// the main file cannot be read.
    pub fn follow(&mut self, session_ref: &SessionRef) -> Result<Arc<Session>, FollowError> {
        if let Some(f) = self
            .followed
            .iter()
            .find(|f| f.session_ref.path == session_ref.path)
            && let Some(s) = &f.session
        {
            return Ok(s.clone());
        }
        let mut followed = self.start(session_ref)?;
        let session = load_filtered(&mut followed)?;
        for item in items_of(&session) {
            followed.seen.insert(key_of(&session, &item));
        }
        self.finish_follow(followed);
        Ok(session)
    }

    /// Stops following the session whose main file is `path` (its files
    /// stay known: it is not reported as new again).
    pub fn unfollow(&mut self, path: &Path) {
        self.followed.retain(|f| f.session_ref.path != path);
    }

    /// The main files of the sessions followed.
    pub fn followed(&self) -> Vec<PathBuf> {
        self.followed
            .iter()
            .map(|f| f.session_ref.path.clone())
            .collect()
    }

    fn start(&mut self, session_ref: &SessionRef) -> Result<Followed, FollowError> {
        if session_ref.agent == Agent::OpenCode {
            return Err(FollowError::Unsupported(session_ref.path.clone()));
        }
        let mut followed = Followed {
            session_ref: session_ref.clone(),
            files: HashMap::new(),
            dirs: Vec::new(),
            seen: HashSet::new(),
            changed_at: HashMap::new(),
            settled: HashSet::new(),
            dirty: true,
            last_load: Duration::ZERO,
            loaded_at: None,
            session: None,
        };
        followed.dirs = watched_dirs(&session_ref.path)
            .into_iter()
            .map(|path| DirState {
                modified: mtime(&path),
                path,
            })
            .collect();
        for path in followed.all_files() {
            let state = scan(&path, None).map(|(s, _)| s).unwrap_or(FileState {
                identity: (0, 0),
                len: 0,
                modified: None,
                complete: 0,
                lines: 0,
            });
            followed.changed_at.insert(path.clone(), Instant::now());
            followed.files.insert(path, state);
        }
        Ok(followed)
    }

    fn finish_follow(&mut self, followed: Followed) {
        let session_ref = followed.session_ref.clone();
        self.remember(&session_ref);
        self.watch_session(&session_ref);
        self.followed.push(followed);
    }

    /// Blocks until something changed or `timeout` passed (waking at least
    /// every [`FollowOptions::poll`] to stat the followed files), and
    /// returns what changed (empty on timeout).
    pub fn wait(&mut self, timeout: Duration) -> Vec<Change> {
        let deadline = Instant::now() + timeout;
        loop {
            let now = Instant::now();
            let left = deadline.saturating_duration_since(now);
            let slice = left.min(self.next_wake(now));
            self.block(slice);
            let changes = self.check();
            if !changes.is_empty() || Instant::now() >= deadline {
                return changes;
            }
        }
    }

    /// How long to block before the next check: the poll interval, less
    /// when a held-back reload or a settle comes due sooner.
    fn next_wake(&self, now: Instant) -> Duration {
        let mut wake = self.options.poll;
        if let Some(last) = self.last_poll {
            wake = (last + self.options.poll).saturating_duration_since(now);
        }
        for f in &self.followed {
            if f.dirty
                && self.options.reload_backoff
                && let Some(at) = f.loaded_at
            {
                wake = wake.min((at + f.last_load * 2).saturating_duration_since(now));
            }
        }
        wake
    }

    /// Waits on the notification channel (or sleeps when polling) for at
    /// most `slice`, collecting touched paths.
    fn block(&mut self, slice: Duration) {
        let Some(rx) = &self.events else {
            std::thread::sleep(slice);
            return;
        };
        let mut lost = false;
        match rx.recv_timeout(slice) {
            Ok(event) => {
                if let Ok(event) = event.as_ref()
                    && changes_a_file(event)
                {
                    self.touched.extend(event.paths.iter().cloned());
                }
                while let Ok(event) = rx.try_recv() {
                    if let Ok(event) = event
                        && changes_a_file(&event)
                    {
                        self.touched.extend(event.paths);
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => lost = true,
        }
        if lost {
            // The watcher died: poll from now on.
            self.events = None;
            self.watcher = None;
        }
    }

    /// One check of everything: new sessions (from touched paths, or a
    /// rescan when polling), then every followed file.
    pub fn check(&mut self) -> Vec<Change> {
        let now = Instant::now();
        let mut changes = Vec::new();
        let touched = std::mem::take(&mut self.touched);
        self.look_for_new(&touched, now, &mut changes);
        let polled = self
            .last_poll
            .is_none_or(|t| now.duration_since(t) >= self.options.poll);
        let touched_set: HashSet<&PathBuf> = touched.iter().collect();
        let settle = self.options.settle;
        for f in &mut self.followed {
            let touched_here = f.files.keys().any(|p| touched_set.contains(&canonical(p)))
                || f.dirs.iter().any(|d| {
                    touched
                        .iter()
                        .any(|t| t.parent() == Some(d.path.as_path()) || *t == d.path)
                });
            if polled || touched_here {
                f.refresh(now, &mut changes);
            }
            let settled_now: Vec<PathBuf> = f
                .files
                .iter()
                .filter(|(p, s)| {
                    s.len > s.complete
                        && !f.settled.contains(*p)
                        && f.changed_at
                            .get(*p)
                            .is_none_or(|t| now.duration_since(*t) >= settle)
                })
                .map(|(p, _)| p.clone())
                .collect();
            for p in settled_now {
                f.settled.insert(p);
                f.dirty = true;
            }
            let due = !self.options.reload_backoff
                || f.loaded_at
                    .is_none_or(|at| now.duration_since(at) >= f.last_load * 2);
            if f.dirty && due {
                match load_filtered(f) {
                    Ok(session) => {
                        let mut items = Vec::new();
                        for item in items_of(&session) {
                            if f.seen.insert(key_of(&session, &item)) {
                                items.push(item);
                            }
                        }
                        changes.push(Change::Updated { session, items });
                    }
                    Err(e) => changes.push(Change::Unreadable {
                        path: f.session_ref.path.clone(),
                        message: e.to_string(),
                    }),
                }
            }
        }
        if polled {
            self.last_poll = Some(now);
        }
        changes
    }

    /// New sessions: each touched `.jsonl` no session owns is discovered
    /// alone (cheap); without notifications the roots are searched again
    /// every [`FollowOptions::rescan`] (never more often than 20 times the
    /// last search took, so a huge tree cannot take a core).
    fn look_for_new(&mut self, touched: &[PathBuf], now: Instant, changes: &mut Vec<Change>) {
        let mut found: Vec<SessionRef> = Vec::new();
        let mut asked: HashSet<PathBuf> = HashSet::new();
        for path in touched {
            if !super::fsread::is_jsonl_name(path) || self.known.contains(path) {
                continue;
            }
            if !self.roots.iter().any(|r| path.starts_with(r) || path == r) {
                continue;
            }
            if !asked.insert(path.clone()) {
                continue;
            }
            // A file that was no session when sniffed is sniffed again
            // while its first lines may still be arriving (sniffing reads
            // the first 8 lines), or when it changed since (the stat is
            // taken before the sniff, so a copy caught half written is seen
            // again once it is complete).
            let meta = std::fs::metadata(path).ok();
            let small = meta
                .as_ref()
                .is_some_and(|m| m.is_file() && m.len() < SNIFF_AGAIN);
            let stat = meta.map(|m| (m.len(), m.modified().ok()));
            if let Some(then) = self.rejected.get(path)
                && !small
                && *then == stat
            {
                continue;
            }
            self.sniffed += 1;
            match discover(std::slice::from_ref(path)) {
                Ok(d) if !d.sessions.is_empty() => {
                    self.rejected.remove(path);
                    found.extend(d.sessions);
                }
                _ => {
                    self.rejected.insert(path.clone(), stat);
                }
            }
        }
        let rescan_due = (self.events.is_none() || self.watch_failed)
            && !self.roots.is_empty()
            && now.duration_since(self.last_rescan)
                >= self.options.rescan.max(self.last_rescan_cost * 20);
        if rescan_due {
            let started = Instant::now();
            if let Ok(d) = discover(&self.roots) {
                found.extend(d.sessions);
            }
            self.last_rescan = Instant::now();
            self.last_rescan_cost = started.elapsed();
        }
        for s in found {
            let main = canonical(&s.path);
            if self.known.contains(&main) {
                // A known session: a new subagent file of a followed one is
                // picked up by its folder's mtime.
                continue;
            }
            if self
                .followed
                .iter()
                .any(|f| canonical(&f.session_ref.path) == main)
            {
                continue;
            }
            self.remember(&s);
            changes.push(Change::Added(s.clone()));
            if self.options.follow_new
                && let Ok(followed) = self.start(&s)
            {
                // Everything in a new session is new: nothing is seen yet.
                self.finish_follow(followed);
            }
        }
    }
}

impl Followed {
    fn all_files(&self) -> Vec<PathBuf> {
        let mut files = vec![self.session_ref.path.clone()];
        files.extend(self.session_ref.subagent_files.iter().cloned());
        files
    }

    /// Stats every file (and the folders new subagent files appear in);
    /// marks the session dirty when a file gained complete lines, was reset
    /// or appeared.
    fn refresh(&mut self, now: Instant, changes: &mut Vec<Change>) {
        let dirs_changed = self.dirs.iter_mut().fold(false, |acc, d| {
            let m = mtime(&d.path);
            let changed = m != d.modified;
            d.modified = m;
            acc | changed
        });
        if dirs_changed
            && let Ok(found) = discover(std::slice::from_ref(&self.session_ref.path))
            && let Some(s) = found
                .sessions
                .into_iter()
                .find(|s| s.path == self.session_ref.path)
            && s.subagent_files != self.session_ref.subagent_files
        {
            self.session_ref.subagent_files = s.subagent_files;
            self.dirs = watched_dirs(&self.session_ref.path)
                .into_iter()
                .map(|path| DirState {
                    modified: mtime(&path),
                    path,
                })
                .collect();
            self.dirty = true;
        }
        for path in self.all_files() {
            let old = self.files.get(&path).copied();
            match scan(&path, old) {
                Ok((state, reset)) => {
                    if reset && old.is_some_and(|o| o.len > 0 || o.complete > 0) {
                        changes.push(Change::Reset { path: path.clone() });
                    }
                    if old != Some(state) {
                        self.changed_at.insert(path.clone(), now);
                        self.settled.remove(&path);
                    }
                    let grew = old.is_none_or(|o| o.complete != state.complete) || reset;
                    if grew {
                        self.dirty = true;
                    }
                    self.files.insert(path, state);
                }
                Err(err) => {
                    let was_readable = old.is_some_and(|o| o.identity != (0, 0));
                    if was_readable {
                        changes.push(Change::Unreadable {
                            path: path.clone(),
                            message: err.to_string(),
                        });
                    }
                    self.files.insert(
                        path,
                        FileState {
                            identity: (0, 0),
                            len: 0,
                            modified: None,
                            complete: 0,
                            lines: 0,
                        },
                    );
                }
            }
        }
    }
}

/// Loads the followed session again, leaving out the diagnostic of a cut
/// last line that has not settled.
fn load_filtered(f: &mut Followed) -> Result<Arc<Session>, super::LoadError> {
    let started = Instant::now();
    let loaded = super::load(&f.session_ref);
    f.last_load = started.elapsed();
    f.loaded_at = Some(Instant::now());
    f.dirty = false;
    let mut session = loaded?;
    session.diagnostics.retain(|d| {
        let Some(state) = f.files.get(&d.path) else {
            return true;
        };
        let pending = state.len > state.complete && !f.settled.contains(&d.path);
        !(pending
            && d.line() == Some(state.lines + 1)
            && d.message.starts_with(TRUNCATED_LAST_LINE))
    });
    let session = Arc::new(session);
    f.session = Some(session.clone());
    Ok(session)
}

/// Every item a session holds, main thread first, then each subagent, each
/// in line order; a call's result follows it where its line says.
pub fn items_of(session: &Session) -> Vec<LiveItem> {
    let mut items: Vec<LiveItem> = Vec::new();
    for (thread, record) in session.all_tool_calls() {
        items.push(LiveItem {
            thread,
            kind: LiveKind::Call(Box::new(record.clone())),
        });
        if record.result.is_some() {
            items.push(LiveItem {
                thread,
                kind: LiveKind::Result(Box::new(record.clone())),
            });
        }
    }
    for (thread, hook) in session.all_hook_activity() {
        items.push(LiveItem {
            thread,
            kind: LiveKind::Hook(Box::new(hook.clone())),
        });
    }
    let thread_of_path: HashMap<&Path, Option<usize>> = session
        .subagents
        .iter()
        .enumerate()
        .map(|(i, s)| (s.path.as_path(), Some(i)))
        .filter(|(p, _)| *p != session.path.as_path())
        .chain(std::iter::once((session.path.as_path(), None)))
        .collect();
    for d in &session.diagnostics {
        items.push(LiveItem {
            thread: thread_of_path.get(d.path.as_path()).copied().flatten(),
            kind: LiveKind::Diagnostic(d.clone()),
        });
    }
    // Stable: at one line a call comes before its hooks, a result after
    // them only when on a later line.
    items.sort_by_key(|i| (i.thread.map_or(0, |t| t + 1), i.line(), rank(&i.kind)));
    items
}

fn rank(kind: &LiveKind) -> u8 {
    match kind {
        LiveKind::Call(_) => 0,
        LiveKind::Result(_) => 1,
        LiveKind::Hook(_) => 2,
        LiveKind::Diagnostic(_) => 3,
    }
}

fn key_of(session: &Session, item: &LiveItem) -> Key {
    let path = session.thread_path(item.thread).to_path_buf();
    match &item.kind {
        LiveKind::Call(r) => Key::Call(path, r.line, r.tool_use_id.clone()),
        LiveKind::Result(r) => Key::Result(path, r.line, r.tool_use_id.clone()),
        LiveKind::Hook(h) => Key::Hook(path, h.line()),
        LiveKind::Diagnostic(d) => {
            Key::Diagnostic(d.path.clone(), d.locus.clone(), d.message.clone())
        }
    }
}

/// Reads `path` from where `old` left off: its new state, and whether it
/// was read from 0 because it shrank below the offset or was replaced.
///
/// # Errors
/// The `stat`/`open`/read error, or not a regular file.
fn scan(path: &Path, old: Option<FileState>) -> std::io::Result<(FileState, bool)> {
    let meta = std::fs::metadata(path)?;
    let identity = identity(&meta);
    let len = meta.len();
    let modified = meta.modified().ok();
    let mut reset = false;
    let (mut complete, mut lines) = match old {
        Some(o) if o.identity == identity && len >= o.complete => {
            if len == o.len && modified == o.modified {
                return Ok((o, false));
            }
            (o.complete, o.lines)
        }
        Some(o) => {
            reset = o.identity != (0, 0);
            (0, 0)
        }
        None => (0, 0),
    };
    if super::fsread::is_zst(path) {
        // A compressed rollout is not appended to: whole or nothing.
        return Ok((
            FileState {
                identity,
                len,
                modified,
                complete: len,
                lines: 0,
            },
            reset,
        ));
    }
    let mut file = super::fsread::open_regular(path)?;
    file.seek(SeekFrom::Start(complete))?;
    let mut buf = vec![0u8; 256 * 1024];
    let mut at = complete;
    // Read what was there when stat'ed; more is for the next check.
    while at < len {
        let want = usize::try_from((len - at).min(buf.len() as u64)).unwrap_or(buf.len());
        let n = file.read(&mut buf[..want])?;
        if n == 0 {
            break;
        }
        let chunk = &buf[..n];
        let count = memchr::memchr_iter(b'\n', chunk).count();
        if let Some(last) = memchr::memrchr(b'\n', chunk) {
            complete = at + last as u64 + 1;
            lines += count;
        }
        at += n as u64;
    }
    Ok((
        FileState {
            identity,
            len,
            modified,
            complete,
            lines,
        },
        reset,
    ))
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn identity(_meta: &std::fs::Metadata) -> (u64, u64) {
    (1, 1)
}

fn mtime(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `<dir>/<stem>` beside a main transcript (2.1.x subagents live under it).
fn session_dir(main: &Path) -> Option<PathBuf> {
    let stem = main.file_stem()?;
    Some(main.parent()?.join(stem))
}

/// The folders whose mtime changes when a subagent file of the session at
/// `main` appears: its own folder (sibling `agent-*.jsonl`, 2.0.x),
/// `<stem>/` and `<stem>/subagents/` (2.1.x).
/// Whether a notification can mean a file changed: anything but a file
/// opened, read or closed unwritten (notify reports every open of a
/// watched file; the follower's own reads, or any reader's such as `rg`
/// over the roots, would wake it for nothing, and a small file it sniffs
/// again on every touch would wake it forever). A close after writing
/// counts.
fn changes_a_file(event: &notify::Event) -> bool {
    use notify::event::{AccessKind, AccessMode};
    match event.kind {
        notify::EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        notify::EventKind::Access(_) => false,
        _ => true,
    }
}

fn watched_dirs(main: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(parent) = main.parent() {
        dirs.push(parent.to_path_buf());
    }
    if let Some(stem_dir) = session_dir(main) {
        dirs.push(stem_dir.join("subagents"));
        dirs.push(stem_dir);
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const STOP_BLOCK: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/real-cc-2.1.332/hooks_c5_stop_block/projects/-home-dev-work-hooks-c5-stop-block/c8435c6b-9aae-401c-ba5f-97def3faba72.jsonl"
    );
    const SUBAGENT_DIR: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/real-cc-2.1.332/subagent/projects/-home-dev-work-subagent"
    );
    const SUBAGENT_ID: &str = "8bb2dece-a24f-43d4-80d6-3ee9a889b550";

    /// The lines of a corpus file, each with its newline.
    fn lines(path: &str) -> Vec<Vec<u8>> {
        let bytes = std::fs::read(path).expect("corpus file");
        bytes
            .split_inclusive(|b| *b == b'\n')
            .map(<[u8]>::to_vec)
            .collect()
    }

    fn options() -> FollowOptions {
        FollowOptions {
            poll: Duration::ZERO,
            settle: Duration::from_secs(3600),
            rescan: Duration::ZERO,
            notify: false,
            follow_new: true,
            reload_backoff: false,
        }
    }

    /// Opening and reading a watched file changes nothing, so it wakes the
    /// follower for nothing: a small `.jsonl` that is no session, read by
    /// another process (here the test), is not sniffed again and again
    /// (each sniff opened it, which notified again: a TUI spun at full CPU
    /// after `rg` read its roots). A write still counts.
    #[test]
    fn reading_a_watched_file_does_not_wake_the_follower() {
        let dir = tempfile::tempdir().expect("tempdir");
        let notes = dir.path().join("notes.jsonl");
        std::fs::write(&notes, b"{\"x\":1}\n").expect("write");
        let mut f = Follower::new(
            &[dir.path().to_path_buf()],
            FollowOptions {
                notify: true,
                poll: Duration::from_secs(3600),
                rescan: Duration::from_secs(3600),
                ..options()
            },
        );
        if f.events.is_none() {
            // No inotify here (a container without it): nothing to test.
            return;
        }
        let _ = f.wait(Duration::from_millis(100));
        let before = f.sniffed;
        for _ in 0..3 {
            let _ = std::fs::read(&notes).expect("read");
        }
        let _ = f.wait(Duration::from_millis(400));
        assert_eq!(f.sniffed, before, "reads woke the follower");
        // A change does: the file is sniffed once more, then left alone.
        append(&notes, b"{\"y\":2}\n");
        let _ = f.wait(Duration::from_millis(400));
        assert!(
            (before + 1..=before + 2).contains(&f.sniffed),
            "{} sniffs after one write",
            f.sniffed - before
        );
    }

    fn append(path: &Path, bytes: &[u8]) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .expect("open for append");
        f.write_all(bytes).expect("append");
    }

    /// (kind, tool_use_id or event, line) of every item of every update.
    fn summary(changes: &[Change]) -> Vec<(String, String, usize)> {
        let mut out = Vec::new();
        for c in changes {
            match c {
                Change::Updated { items, .. } => {
                    for i in items {
                        let (k, what) = match &i.kind {
                            LiveKind::Call(r) => ("call", r.tool_use_id.clone()),
                            LiveKind::Result(r) => ("result", r.tool_use_id.clone()),
                            LiveKind::Hook(h) => ("hook", h.event_name().to_string()),
                            LiveKind::Diagnostic(d) => ("diagnostic", d.message.clone()),
                        };
                        out.push((k.to_string(), what, i.line()));
                    }
                }
                Change::Reset { .. } => out.push(("reset".into(), String::new(), 0)),
                Change::Added(s) => out.push(("added".into(), s.id.clone(), 0)),
                Change::Unreadable { message, .. } => {
                    out.push(("unreadable".into(), message.clone(), 0))
                }
            }
        }
        out
    }

    fn item(k: &str, what: &str, line: usize) -> (String, String, usize) {
        (k.to_string(), what.to_string(), line)
    }

    /// A tempdir with lines 1..=n of the Stop-block session, followed.
    fn start(
        n: usize,
        opts: FollowOptions,
    ) -> (tempfile::TempDir, PathBuf, Follower, Vec<Vec<u8>>) {
        let all = lines(STOP_BLOCK);
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir
            .path()
            .join("c8435c6b-9aae-401c-ba5f-97def3faba72.jsonl");
        std::fs::write(&path, all[..n].concat()).expect("write");
        let mut follower = Follower::new(&[dir.path().to_path_buf()], opts);
        let found = discover(std::slice::from_ref(&path)).expect("discover");
        let session = follower.follow(&found.sessions[0]).expect("follow");
        // Lines 1..=69 hold 11 tool_use blocks, 1..=72 12 (recounted with python).
        let calls = session.all_tool_calls().count();
        assert_eq!(calls, if n >= 70 { 12 } else { 11 });
        (dir, path, follower, all)
    }

    #[test]
    fn grow_reports_call_then_result_then_hook() {
        let (_dir, path, mut f, all) = start(69, options());
        assert!(summary(&f.check()).iter().all(|(k, _, _)| k != "call"));
        append(&path, &all[69]);
        assert_eq!(
            summary(&f.check()),
            vec![item("call", "toolu_010vLE7lG2fUGk9vel3s1Alv", 70)]
        );
        append(&path, &all[70]);
        assert_eq!(
            summary(&f.check()),
            vec![item("result", "toolu_010vLE7lG2fUGk9vel3s1Alv", 71)]
        );
        // The hook_blocking_error attachment of the Stop (file line 77).
        append(&path, &all[76]);
        assert_eq!(summary(&f.check()), vec![item("hook", "Stop", 72)]);
        // Nothing new: nothing reported, nothing reloaded.
        assert!(f.check().is_empty());
    }

    #[test]
    fn partial_last_line_waits_for_its_newline() {
        let (_dir, path, mut f, all) = start(69, options());
        let line = &all[69];
        append(&path, &line[..line.len() / 2]);
        assert!(
            f.check().is_empty(),
            "a cut line is neither a call nor a diagnostic"
        );
        append(&path, &line[line.len() / 2..line.len() - 1]);
        assert!(f.check().is_empty(), "still no newline");
        append(&path, b"\n");
        let changes = f.check();
        assert_eq!(
            summary(&changes),
            vec![item("call", "toolu_010vLE7lG2fUGk9vel3s1Alv", 70)]
        );
        let Some(Change::Updated { session, .. }) = changes.first() else {
            panic!("an update");
        };
        assert!(session.diagnostics.iter().all(|d| d.line() != Some(70)));
    }

    #[test]
    fn partial_last_line_is_a_diagnostic_once_settled() {
        let opts = FollowOptions {
            settle: Duration::ZERO,
            ..options()
        };
        let (_dir, path, mut f, all) = start(69, opts);
        let line = &all[69];
        append(&path, &line[..100]);
        assert_eq!(
            summary(&f.check()),
            vec![item(
                "diagnostic",
                "truncated last line (the session may still be being written)",
                70
            )]
        );
    }

    #[test]
    fn truncation_reads_again_from_the_start() {
        let (_dir, path, mut f, all) = start(72, options());
        // Cut back to 60 lines, then the Bash call and its result.
        std::fs::write(&path, all[..60].concat()).expect("truncate");
        append(&path, &[all[69].clone(), all[70].clone()].concat());
        assert_eq!(
            summary(&f.check()),
            vec![
                item("reset", "", 0),
                item("call", "toolu_010vLE7lG2fUGk9vel3s1Alv", 61),
                item("result", "toolu_010vLE7lG2fUGk9vel3s1Alv", 62),
            ]
        );
    }

    #[test]
    fn replacement_reads_the_new_file_once() {
        let (dir, path, mut f, all) = start(69, options());
        let tmp = dir.path().join("new.tmp");
        std::fs::write(&tmp, all[..70].concat()).expect("write");
        std::fs::rename(&tmp, &path).expect("replace");
        // Same lines at the same places are not reported again.
        assert_eq!(
            summary(&f.check()),
            vec![
                item("reset", "", 0),
                item("call", "toolu_010vLE7lG2fUGk9vel3s1Alv", 70)
            ]
        );
    }

    #[test]
    fn a_subagent_file_that_appears_is_read() {
        let src = Path::new(SUBAGENT_DIR);
        let dir = tempfile::tempdir().expect("tempdir");
        let main = dir.path().join(format!("{SUBAGENT_ID}.jsonl"));
        std::fs::copy(src.join(format!("{SUBAGENT_ID}.jsonl")), &main).expect("copy");
        let mut f = Follower::new(&[dir.path().to_path_buf()], options());
        let found = discover(std::slice::from_ref(&main)).expect("discover");
        assert!(found.sessions[0].subagent_files.is_empty());
        f.follow(&found.sessions[0]).expect("follow");
        assert!(f.check().is_empty());
        let subs = dir.path().join(SUBAGENT_ID).join("subagents");
        std::fs::create_dir_all(&subs).expect("mkdir");
        for name in [
            "agent-a460e426666c15a15.jsonl",
            "agent-a460e426666c15a15.meta.json",
        ] {
            std::fs::copy(
                src.join(SUBAGENT_ID).join("subagents").join(name),
                subs.join(name),
            )
            .expect("copy");
        }
        let changes = f.check();
        let calls: Vec<_> = changes
            .iter()
            .flat_map(|c| match c {
                Change::Updated { items, .. } => items.clone(),
                _ => Vec::new(),
            })
            .filter_map(|i| match i.kind {
                LiveKind::Call(r) => Some((i.thread, r.tool_use_id.clone())),
                _ => None,
            })
            .collect();
        // The subagent file has one tool_use (recounted with python).
        assert_eq!(
            calls,
            vec![(Some(0), "toolu_01jnpTxdhXKCZgdSENXyt8je".to_string())]
        );
    }

    #[test]
    fn a_new_session_under_the_root_is_added_and_followed() {
        let (dir, _path, mut f, all) = start(69, options());
        let other = dir
            .path()
            .join("0c04bd79-0000-4000-8000-000000000001.jsonl");
        // No notifications here: the rescan finds it.
        std::fs::write(&other, all[..22].concat()).expect("write");
        // Followed from its start: its first call (line 22) is new.
        assert_eq!(
            summary(&f.check()),
            vec![
                item("added", "0c04bd79-0000-4000-8000-000000000001", 0),
                item("call", "toolu_01032bRSkqY5yqH4ZPXeQNl0", 22),
            ]
        );
        assert!(f.check().is_empty());
    }

    /// Follows lines 1..=n of the corpus file `src` copied into a tempdir.
    fn follow_copy(src: &str, n: usize) -> (tempfile::TempDir, PathBuf, Follower, Vec<Vec<u8>>) {
        let all = lines(src);
        let dir = tempfile::tempdir().expect("tempdir");
        let name = Path::new(src).file_name().expect("a file name");
        let path = dir.path().join(name);
        std::fs::write(&path, all[..n].concat()).expect("write");
        let mut follower = Follower::new(&[dir.path().to_path_buf()], options());
        let found = discover(std::slice::from_ref(&path)).expect("discover");
        follower.follow(&found.sessions[0]).expect("follow");
        (dir, path, follower, all)
    }

    #[test]
    fn a_codex_rollout_is_followed() {
        const ROLLOUT: &str = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl"
        );
        // Line 12 is an exec_command function_call, 15 its output.
        let (_dir, path, mut f, all) = follow_copy(ROLLOUT, 11);
        append(&path, &all[11]);
        assert_eq!(
            summary(&f.check()),
            vec![item("call", "call_mtfuaxdyo8h2rjg7kvpu3863", 12)]
        );
        append(&path, &all[12..15].concat());
        assert_eq!(
            summary(&f.check()),
            vec![item("result", "call_mtfuaxdyo8h2rjg7kvpu3863", 15)]
        );
    }

    #[test]
    fn a_droid_transcript_is_followed() {
        const DROID: &str = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/real-droid-0.225.2/factory/sessions/-home-dev-work-dr-tools/5a8cddfb-fae3-441b-8085-94ed3460ada4.jsonl"
        );
        // Line 9 is an Execute tool_use, 10 its PreToolUse hook line
        // (`hookToolCallId`), 11 its tool_result.
        let (_dir, path, mut f, all) = follow_copy(DROID, 8);
        append(&path, &all[8]);
        assert_eq!(
            summary(&f.check()),
            vec![item("call", "call_Y7ZHqmtyfP2vH50eJ4eGp1es", 9)]
        );
        append(&path, &all[9..11].concat());
        assert_eq!(
            summary(&f.check()),
            vec![
                item("hook", "PreToolUse", 10),
                item("result", "call_Y7ZHqmtyfP2vH50eJ4eGp1es", 11)
            ]
        );
    }

    #[test]
    fn a_touched_jsonl_that_is_no_session_is_not_added() {
        let (dir, _path, mut f, _all) = start(69, options());
        let capture = dir.path().join("capture.jsonl");
        std::fs::write(
            &capture,
            b"{\"session_id\":\"x\",\"hook_event_name\":\"Stop\"}\n",
        )
        .expect("write");
        f.touched.push(canonical(&capture));
        assert!(f.check().is_empty());
        assert!(f.rejected.contains_key(&canonical(&capture)));
    }

    /// A big `.jsonl` (more than the 64 KiB of a still-small file) that was
    /// no session when first touched (hook captures) is sniffed again once
    /// its size or mtime changed: rewritten as a session, it is added.
    #[test]
    fn a_big_rejected_file_that_changes_is_sniffed_again() {
        let (dir, _path, mut f, all) = start(69, options());
        let copy = dir
            .path()
            .join("0c04bd79-0000-4000-8000-00000000cafe.jsonl");
        let capture: &[u8] = b"{\"session_id\":\"x\",\"hook_event_name\":\"Stop\"}\n";
        let big: Vec<u8> = capture
            .iter()
            .copied()
            .cycle()
            .take(SNIFF_AGAIN as usize * 2)
            .collect();
        std::fs::write(&copy, &big).expect("write");
        f.touched.push(canonical(&copy));
        assert!(f.check().is_empty());
        assert!(f.rejected.contains_key(&canonical(&copy)));
        // Touched again unchanged: not sniffed again, still nothing.
        f.touched.push(canonical(&copy));
        assert!(f.check().is_empty());
        // Rewritten as a session (another size).
        std::fs::write(&copy, all[..22].concat()).expect("write");
        f.touched.push(canonical(&copy));
        let added: Vec<String> = f
            .check()
            .into_iter()
            .filter_map(|c| match c {
                Change::Added(s) => Some(s.id),
                _ => None,
            })
            .collect();
        assert_eq!(
            added,
            vec!["0c04bd79-0000-4000-8000-00000000cafe".to_string()]
        );
        assert!(!f.rejected.contains_key(&canonical(&copy)));
    }

    #[test]
    fn notifications_wake_the_wait() {
        let opts = FollowOptions {
            notify: true,
            poll: Duration::from_secs(3600),
            ..options()
        };
        let (_dir, path, mut f, all) = start(69, opts);
        if !f.notifying() {
            // No inotify here (limits): the poll path is tested above.
            return;
        }
        append(&path, &all[69]);
        let mut got = Vec::new();
        // A safety net only: the append wakes the wait at once.
        let until = Instant::now() + Duration::from_secs(20);
        while got.is_empty() && Instant::now() < until {
            got = summary(&f.wait(Duration::from_secs(20)));
        }
        assert_eq!(
            got,
            vec![item("call", "toolu_010vLE7lG2fUGk9vel3s1Alv", 70)]
        );
    }
}
