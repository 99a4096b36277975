//! What the worker's messages ([`Msg`]) do to the [`App`]: summaries
//! arriving, a session loaded or grown, a rediscovery, query answers,
//! backtest and hook-run results. Every change a background thread causes
//! enters the app here.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use hookscope_core::transcript::short_id::ShortIds;
use hookscope_core::transcript::spawns::SpawnTree;
use hookscope_core::transcript::{Diagnostic, Session, SessionRef};

use super::app::{App, OpenState, Request, SessionEntry};
use super::worker::Msg;

impl App {
    /// Folds a worker result in.
    pub fn apply(&mut self, msg: Msg) {
        match msg {
            Msg::Summary {
                index,
                result,
                tool_names,
            } => {
                if index >= self.ctx.sessions.len() {
                    return;
                }
                self.set_summary(index, result);
                self.ctx.tool_names.extend(tool_names);
                self.list.refresh(&self.ctx);
                if !self.touched {
                    self.list.select_first();
                }
                // The preview of a session shows its summary: rebuild so
                // the new facts replace "loading…".
                self.detail.invalidate();
            }
            Msg::Summaries { items, tool_names } => {
                for (index, result) in items {
                    self.set_summary(index, result);
                }
                self.ctx.tool_names.extend(tool_names);
                self.list.refresh(&self.ctx);
                if !self.touched {
                    self.list.select_first();
                }
                self.detail.invalidate();
            }
            Msg::Indexing(progress) => {
                // A session's preview says `indexing…` or `loading…`.
                if self.ctx.indexing.is_some() != progress.is_some() {
                    self.detail.invalidate();
                }
                self.ctx.indexing = progress;
            }
            Msg::WaitingForBuild(waiting) => self.ctx.waiting_for_build = waiting,
            Msg::Notice(line) => self.ctx.say(line),
            Msg::SummariesDone => self.ctx.summaries_done = true,
            Msg::Loaded { index, result } => {
                let Some(open) = self.ctx.open.as_mut().filter(|o| o.index == index) else {
                    return; // a session opened earlier, since replaced
                };
                open.state = match result {
                    Ok(session) => {
                        let tree = Arc::new(SpawnTree::new(&session));
                        OpenState::Ready(session, tree)
                    }
                    Err(e) => OpenState::Failed(e),
                };
                self.timeline.loaded(&self.ctx);
                self.finish_jump();
            }
            Msg::RuleIds(ids) => self.ctx.rule_ids = ids,
            Msg::Decisions {
                index,
                decisions,
                events,
            } => {
                if self.ctx.open.as_ref().is_some_and(|o| o.index == index) {
                    self.ctx.decisions = Arc::new(decisions);
                    let mut events = events;
                    if let Some(session) = self.ctx.session() {
                        crate::tui::context::EventDecision::place_all(&mut events, session);
                    }
                    self.ctx.event_decisions = Arc::new(events);
                    self.detail.invalidate();
                }
            }
            Msg::Live { index, session } => self.live(index, session),
            Msg::SessionAdded(sref) => {
                if self
                    .ctx
                    .banner
                    .as_deref()
                    .is_some_and(|b| b.starts_with(super::boot::NO_SESSIONS))
                {
                    self.set_banner(None);
                }
                let index = self.ctx.sessions.len();
                self.ctx.sessions.push(SessionEntry {
                    sref,
                    summary: None,
                    error: None,
                });
                self.ctx.short_ids =
                    ShortIds::new(self.ctx.sessions.iter().map(|e| e.sref.id.as_str()));
                self.ctx.requests.push(Request::Summarize(index));
                self.list.refresh(&self.ctx);
            }
            Msg::Found { generation, result } => self.calls.found(generation, result),
            Msg::FoundFirst { generation, result } => self.calls.found_first(generation, result),
            Msg::Counted { generation, total } => self.calls.counted(generation, total),
            Msg::Scope {
                generation,
                searched,
                total,
            } => self.calls.scope(generation, searched, total),
            // Taken by the event loop (`boot::Boot::discovered`) before
            // `apply`; one that gets here has no list to replace.
            Msg::Discovered(_) => {}
            Msg::Parsed { key, line } => self.detail.parsed(key, line),
            Msg::HooksRan { generation, report } => {
                self.replay.hooks_ran(generation, *report, &mut self.ctx)
            }
            Msg::Backtested {
                done,
                total,
                matches,
                tally,
            } => self.backtest.add(done, total, matches, &tally),
            Msg::ExecAllPlanned(plan) => self.every_event.planned(&plan),
            Msg::EveryEventProgress { done, total, runs } => {
                self.every_event.progress(done, total, runs);
            }
            Msg::ExecAllDone(report) => {
                self.every_event.ran(&report);
                if self.overlay == Some(super::app::Overlay::EveryEvent) {
                    // "running…" is over: the pane's own status says what now.
                    self.ctx.message = None;
                } else {
                    self.ctx.say(if report.cancelled {
                        "stopped: B shows the report of the events completed"
                    } else {
                        "your hooks ran over every event: B shows the report"
                    });
                }
            }
            Msg::Compared(r) => self.every_event.compared(&r),
        }
        self.sync();
    }

    /// Replaces the list the index stored (shown while discovery ran) with
    /// what discovery found on disk (`sessions`, `diagnostics`), keeping
    /// what is known: an entry whose main file and id are still there keeps
    /// its summary (and its diagnostics) until the index sync sends a new
    /// one, the selection and the open session follow their session, a
    /// session gone from disk leaves the list (unless it is open: it stays
    /// at the end). Returns, per new session, whether its summary is the one
    /// stored for exactly these files (same [`SessionRef`]): the sync then
    /// re-sends it only if its other files changed.
    pub fn rediscovered(
        &mut self,
        sessions: Vec<SessionRef>,
        diagnostics: Vec<Diagnostic>,
    ) -> Vec<bool> {
        let key = |s: &SessionRef| (s.path.clone(), s.id.clone());
        let selected = self
            .list
            .sel
            .and_then(|i| self.ctx.sessions.get(i))
            .map(|e| key(&e.sref));
        let open = self.ctx.open.as_ref().map(|o| o.index);
        let mut old: HashMap<(PathBuf, String), (usize, SessionEntry)> = HashMap::new();
        let mut open_entry = None;
        for (i, e) in std::mem::take(&mut self.ctx.sessions)
            .into_iter()
            .enumerate()
        {
            if Some(i) == open {
                open_entry = Some(e.clone());
            }
            old.entry(key(&e.sref)).or_insert((i, e));
        }
        let mut mask = Vec::with_capacity(sessions.len());
        let mut new_open = None;
        let mut new_selected = None;
        for s in sessions {
            let k = key(&s);
            let entry = match old.remove(&k) {
                Some((i, e)) => {
                    if Some(i) == open {
                        new_open = Some(self.ctx.sessions.len());
                    }
                    mask.push(e.sref == s && e.summary.is_some());
                    SessionEntry { sref: s, ..e }
                }
                None => {
                    mask.push(false);
                    SessionEntry {
                        sref: s,
                        summary: None,
                        error: None,
                    }
                }
            };
            if selected.as_ref() == Some(&k) {
                new_selected = Some(self.ctx.sessions.len());
            }
            self.ctx.sessions.push(entry);
        }
        if let (Some(_), None, Some(e)) = (open, new_open, open_entry) {
            // Open but gone from disk: kept (its timeline is loaded).
            new_open = Some(self.ctx.sessions.len());
            mask.push(true);
            old.remove(&key(&e.sref));
            self.ctx.sessions.push(e);
        }
        // The diagnostics of sessions gone from disk go (by their files; a
        // session's diagnostics may also name other files, such as Droid's
        // task-invocations.json, which stay with the sessions kept).
        let gone_files: HashSet<PathBuf> = old
            .values()
            .flat_map(|(_, e)| {
                std::iter::once(e.sref.path.clone()).chain(e.sref.subagent_files.iter().cloned())
            })
            .collect();
        self.ctx
            .diagnostics
            .retain(|d| !gone_files.contains(&d.path));
        self.ctx.diagnostics.extend(diagnostics);
        self.ctx.short_ids = ShortIds::new(self.ctx.sessions.iter().map(|e| e.sref.id.as_str()));
        self.ctx.checking = false;
        if let (Some(o), Some(i)) = (self.ctx.open.as_mut(), new_open)
            && o.index != i
        {
            // Messages for the old index are dropped: load it again under
            // the new one (and follow it there).
            o.index = i;
            self.ctx.requests.push(Request::Open(i));
        }
        self.list.reset_rows();
        self.list.refresh(&self.ctx);
        match new_selected {
            Some(i) if self.touched => self.list.sel = Some(i),
            _ => self.list.select_first(),
        }
        self.list.refresh(&self.ctx);
        self.detail.invalidate();
        self.sync();
        mask
    }

    /// Sets session `index`'s summary (its diagnostics join the list's) or
    /// its error (which becomes a diagnostic); no list refresh.
    fn set_summary(&mut self, index: usize, result: crate::tui::worker::SummaryItem) {
        let Some(entry) = self.ctx.sessions.get_mut(index) else {
            return;
        };
        if entry.summary.is_some() || entry.error.is_some() {
            // Summarized again (its files changed): its old diagnostics go.
            let sref = &entry.sref;
            self.ctx
                .diagnostics
                .retain(|d| d.path != sref.path && !sref.subagent_files.contains(&d.path));
        }
        match result {
            Ok((summary, diags)) => {
                entry.summary = Some(summary);
                entry.error = None;
                self.ctx.diagnostics.extend(diags);
            }
            Err(e) => {
                self.ctx.diagnostics.push(Diagnostic {
                    path: entry.sref.path.clone(),
                    locus: None,
                    message: e.clone(),
                });
                entry.error = Some(e);
            }
        }
    }

    /// The open session `index` was loaded again (its files grew): swap it
    /// in, keeping the Timeline's selection and scroll, and refresh its
    /// list entry's counts. Ignored while it is still loading or when
    /// another session is open (the list entry is still refreshed).
    fn live(&mut self, index: usize, session: Arc<Session>) {
        if let Some(entry) = self.ctx.sessions.get_mut(index) {
            entry.summary = Some(session.summary());
            entry.error = None;
        }
        let Some(open) = self.ctx.open.as_mut().filter(|o| o.index == index) else {
            return;
        };
        if !matches!(open.state, OpenState::Ready(..)) {
            return;
        }
        let tree = Arc::new(SpawnTree::new(&session));
        open.state = OpenState::Ready(session, tree);
        self.timeline.refreshed(&self.ctx);
        self.detail.invalidate();
    }
}
