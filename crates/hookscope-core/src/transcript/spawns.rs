//! The spawn tree of a loaded [`Session`]: which tool call spawned each
//! subagent, the subagents each thread spawned, the chain of spawns down to
//! any thread, and one walk over all of it that ends on cycles.
//!
//! Threads are named as in [`Session::all_tool_calls`]: `None` is the main
//! thread, `Some(i)` is `session.subagents[i]`. A spawn is a
//! [`ToolCallRecord`] whose `subagent` is `Some(i)` (set by the loader on
//! exactly one Task/Agent call per linked subagent, docs/transcripts.md#subagents). Links
//! can still form a cycle in a hand-made file (A's call spawns B, B's call
//! spawns A, through reused ids), or two records can name the same subagent
//! in a [`Session`] built by hand; the tree keeps the first spawn (in
//! [`Session::all_tool_calls`] order) and every walk visits a thread at most
//! once, so nothing here recurses or loops without bound.
//!
//! # Counts (one definition for every view)
//! - subagents of a session: every attached subagent transcript, linked,
//!   nested or not linked ([`SpawnTree::session_subagents`]);
//! - tool calls of a session: every call of every thread, each once
//!   ([`SpawnTree::session_tool_calls`], errors likewise
//!   [`SpawnTree::session_errors`]);
//! - subagents of a turn: the subagents spawned by its calls, transitively
//!   (a subagent spawned by a subagent of the turn counts too)
//!   ([`SpawnTree::turn_subagents`]);
//! - tool calls of a turn: its own calls plus every call of those subagents
//!   ([`SpawnTree::turn_tool_calls`], errors likewise
//!   [`SpawnTree::turn_errors`]).
//!
//! Summing the turns' subagents and adding [`SpawnTree::detached`] gives the
//! session's subagents; the same holds for tool calls (each thread is counted
//! once, under the first spawn that reaches it).

use std::collections::HashSet;

use super::model::{Event, Session, ToolCallRecord, Turn};

/// A thread of a session: `None` = the main thread, `Some(i)` =
/// `session.subagents[i]`.
pub type ThreadId = Option<usize>;

/// Where a tool call is: its thread, the index of its turn in that thread's
/// `turns`, the index of its event in that turn's `events`, and its
/// `tool_use_id` (which may repeat within a session; the position does not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallAt {
    /// The thread the call is in.
    pub thread: ThreadId,
    /// Index into the thread's `turns`.
    pub turn: usize,
    /// Index into that turn's `events` (an [`Event::ToolCall`]).
    pub event: usize,
    /// The call's `tool_use_id`.
    pub tool_use_id: String,
}

/// The spawn structure of one session, computed once by [`SpawnTree::new`]
/// (linear in the number of calls); it borrows nothing, so it can be kept
/// next to the session. Indices refer to the session it was built from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SpawnTree {
    /// `spawn[i]`: the call that spawned `subagents[i]`, if linked.
    spawn: Vec<Option<CallAt>>,
    /// `children[0]`: subagents spawned by main-thread calls, in call order;
    /// `children[i + 1]`: those spawned by `subagents[i]`'s calls.
    children: Vec<Vec<usize>>,
    /// Whether `subagents[i]` is reached from the main thread.
    reached: Vec<bool>,
}

/// One step of [`SpawnTree::walk`], in pre-order.
#[derive(Debug, Clone, PartialEq)]
pub enum Step<'a> {
    /// A thread's calls begin: a root of the walk (`depth` 0), or the
    /// subagent spawned by the [`Step::Call`] just before (its depth + 1).
    Enter {
        /// The thread entered.
        thread: ThreadId,
        /// Nesting depth (0 for a root).
        depth: usize,
    },
    /// One tool call of the thread entered last and not yet left.
    Call {
        /// Where the call is.
        at: CallAt,
        /// The call.
        record: &'a ToolCallRecord,
        /// Nesting depth of its thread.
        depth: usize,
        /// The subagent it spawned, when the walk enters it next (right after
        /// this step). `None` when it spawned none, or when that subagent was
        /// already visited (a cycle, or a second record naming it) or lies
        /// deeper than [`MAX_DEPTH`].
        expands: Option<usize>,
    },
    /// The thread entered by the matching [`Step::Enter`] ends.
    Leave {
        /// The thread left.
        thread: ThreadId,
        /// Its depth.
        depth: usize,
    },
}

/// The deepest nesting a walk enters (spawn chains in real sessions are a
/// few levels deep; the cap keeps nested output, e.g. JSON, bounded).
pub const MAX_DEPTH: usize = 64;

impl SpawnTree {
    /// Builds the tree from the `subagent` links of every call.
    pub fn new(session: &Session) -> SpawnTree {
        let n = session.subagents.len();
        let mut spawn: Vec<Option<CallAt>> = vec![None; n];
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for thread in threads(session) {
            for (at, record) in calls_of(session, thread) {
                let Some(i) = record.subagent.filter(|&i| i < n) else {
                    continue;
                };
                if spawn[i].is_none() {
                    children[slot(thread)].push(i);
                    spawn[i] = Some(at);
                }
            }
        }
        let mut tree = SpawnTree {
            spawn,
            children,
            reached: vec![false; n],
        };
        let mut stack: Vec<usize> = tree.children[0].clone();
        while let Some(i) = stack.pop() {
            if !tree.reached[i] {
                tree.reached[i] = true;
                stack.extend(tree.children[i + 1].iter().copied());
            }
        }
        tree
    }

    /// The call that spawned `subagents[sub]`; `None` when it is not linked
    /// (or `sub` is out of range).
    pub fn spawn_of(&self, sub: usize) -> Option<&CallAt> {
        self.spawn.get(sub).and_then(Option::as_ref)
    }

    /// The subagents spawned by `thread`'s own calls (not transitively), in
    /// call order; empty for an out-of-range thread.
    pub fn children(&self, thread: ThreadId) -> &[usize] {
        self.children.get(slot(thread)).map_or(&[], Vec::as_slice)
    }

    /// The chain of spawns from the main thread down to `thread`, outermost
    /// first (empty for the main thread). `None` when `thread` is not reached
    /// from the main thread (unlinked, below an unlinked one, or on a cycle).
    pub fn path_to(&self, thread: ThreadId) -> Option<Vec<CallAt>> {
        let mut path = Vec::new();
        let mut seen = HashSet::new();
        let mut current = thread;
        while let Some(i) = current {
            if !seen.insert(i) {
                return None; // a cycle not through the main thread
            }
            let at = self.spawn_of(i)?;
            path.push(at.clone());
            current = at.thread;
        }
        path.reverse();
        Some(path)
    }

    /// [`SpawnTree::path_to`] a call: the spawns down to its thread.
    pub fn path_to_call(&self, at: &CallAt) -> Option<Vec<CallAt>> {
        self.path_to(at.thread)
    }

    /// Subagents with no spawning call, in index order.
    pub fn unlinked(&self) -> Vec<usize> {
        (0..self.spawn.len())
            .filter(|&i| self.spawn[i].is_none())
            .collect()
    }

    /// Subagents a walk from the main thread does not reach, in index order:
    /// the unlinked ones, those spawned (transitively) by an unlinked one,
    /// and those on a spawn cycle that does not start in the main thread.
    pub fn detached(&self) -> Vec<usize> {
        (0..self.reached.len())
            .filter(|&i| !self.reached[i])
            .collect()
    }

    /// Walks `from`'s calls in order, entering each spawned subagent right
    /// after its spawn (pre-order, iterative), visiting each thread at most
    /// once and no deeper than [`MAX_DEPTH`]. Starts with
    /// `Step::Enter { thread: from, depth: 0 }` and ends with its `Leave`.
    pub fn walk<'a>(&self, session: &'a Session, from: ThreadId) -> Vec<Step<'a>> {
        let mut visited = HashSet::new();
        let mut out = Vec::new();
        self.walk_into(session, from, &mut visited, &mut out);
        out
    }

    /// Walks every thread once: the main thread (as [`SpawnTree::walk`]),
    /// then each detached subagent that is still unvisited as a further
    /// root (depth 0), unlinked ones first, in index order, and last any
    /// subagent still unvisited because it lies deeper than [`MAX_DEPTH`]
    /// below its root (it starts a new root at depth 0). Every call of the
    /// session appears in exactly one [`Step::Call`].
    pub fn walk_session<'a>(&self, session: &'a Session) -> Vec<Step<'a>> {
        let mut visited = HashSet::new();
        let mut out = Vec::new();
        let detached = self.detached();
        // The main thread; the unlinked subagents (which reach what they
        // spawned); then whatever is left: subagents on a spawn cycle.
        let roots = std::iter::once(None)
            .chain(
                detached
                    .iter()
                    .filter(|&&i| self.spawn[i].is_none())
                    .map(|&i| Some(i)),
            )
            .chain(detached.iter().map(|&i| Some(i)))
            .chain((0..session.subagents.len()).map(Some));
        for root in roots {
            if !visited.contains(&root) {
                self.walk_into(session, root, &mut visited, &mut out);
            }
        }
        out
    }

    fn walk_into<'a>(
        &self,
        session: &'a Session,
        from: ThreadId,
        visited: &mut HashSet<ThreadId>,
        out: &mut Vec<Step<'a>>,
    ) {
        if !visited.insert(from) {
            return;
        }
        // Each frame: the thread, its depth, its calls, and the next call.
        let mut stack: Vec<WalkFrame<'a>> = vec![(from, 0, calls_of(session, from).collect(), 0)];
        out.push(Step::Enter {
            thread: from,
            depth: 0,
        });
        while let Some(frame) = stack.last_mut() {
            let (thread, depth) = (frame.0, frame.1);
            let Some((at, record)) = frame.2.get(frame.3).cloned() else {
                out.push(Step::Leave { thread, depth });
                stack.pop();
                continue;
            };
            frame.3 += 1;
            let expands = record
                .subagent
                .filter(|&i| i < session.subagents.len())
                .filter(|&i| self.spawn_of(i) == Some(&at))
                .filter(|_| depth < MAX_DEPTH)
                .filter(|&i| visited.insert(Some(i)));
            out.push(Step::Call {
                at,
                record,
                depth,
                expands,
            });
            if let Some(i) = expands {
                out.push(Step::Enter {
                    thread: Some(i),
                    depth: depth + 1,
                });
                stack.push((Some(i), depth + 1, calls_of(session, Some(i)).collect(), 0));
            }
        }
    }

    /// The subagents a turn spawned, transitively, each once, in walk order
    /// (see the module doc, "Counts"). `thread` is the turn's thread.
    pub fn turn_subagents(&self, session: &Session, thread: ThreadId, turn: usize) -> Vec<usize> {
        self.turn_steps(session, thread, turn)
            .into_iter()
            .filter_map(|s| match s {
                Step::Enter {
                    thread: Some(i), ..
                } => Some(i),
                _ => None,
            })
            .collect()
    }

    /// The tool calls of a turn: its own calls plus every call of the
    /// subagents it spawned, transitively (see the module doc, "Counts").
    pub fn turn_tool_calls(&self, session: &Session, thread: ThreadId, turn: usize) -> usize {
        self.turn_steps(session, thread, turn)
            .iter()
            .filter(|s| matches!(s, Step::Call { .. }))
            .count()
    }

    /// Of [`SpawnTree::turn_tool_calls`], those whose result says
    /// `is_error: true` (the same calls, so a turn's errors never exceed
    /// its calls).
    pub fn turn_errors(&self, session: &Session, thread: ThreadId, turn: usize) -> usize {
        self.turn_steps(session, thread, turn)
            .iter()
            .filter(|s| matches!(s, Step::Call { record, .. } if record.is_error()))
            .count()
    }

    /// The tool calls of a session: every call of every thread (main and
    /// all subagents, linked or not), each once (see the module doc,
    /// "Counts").
    pub fn session_tool_calls(&self, session: &Session) -> usize {
        session.all_tool_calls().count()
    }

    /// Of [`SpawnTree::session_tool_calls`], those whose result says
    /// `is_error: true`.
    pub fn session_errors(&self, session: &Session) -> usize {
        session
            .all_tool_calls()
            .filter(|(_, r)| r.is_error())
            .count()
    }

    /// The subagents of a session: every attached subagent transcript
    /// (linked, nested or not linked), i.e. `session.subagents.len()` (see
    /// the module doc, "Counts").
    pub fn session_subagents(&self, session: &Session) -> usize {
        session.subagents.len()
    }

    /// The steps of one turn: its calls at depth 0 with their subagents
    /// entered below them (a walk restricted to the turn).
    fn turn_steps<'a>(&self, session: &'a Session, thread: ThreadId, turn: usize) -> Vec<Step<'a>> {
        let mut visited: HashSet<ThreadId> = HashSet::new();
        visited.insert(thread);
        let mut out = Vec::new();
        let Some(t) = turns_of(session, thread).get(turn) else {
            return out;
        };
        for (at, record) in calls_of_turn(thread, turn, t) {
            let expands = record
                .subagent
                .filter(|&i| self.spawn_of(i) == Some(&at))
                .filter(|i| !visited.contains(&Some(*i)));
            out.push(Step::Call {
                at,
                record,
                depth: 0,
                expands,
            });
            if let Some(i) = expands {
                let mut inner = Vec::new();
                self.walk_into(session, Some(i), &mut visited, &mut inner);
                out.extend(inner.into_iter().map(|s| deepen(s, 1)));
            }
        }
        out
    }
}

/// One thread being walked: the thread, its depth, its calls, and the index
/// of the next call.
type WalkFrame<'a> = (ThreadId, usize, Vec<(CallAt, &'a ToolCallRecord)>, usize);

/// A step moved `by` levels deeper.
fn deepen(step: Step<'_>, by: usize) -> Step<'_> {
    match step {
        Step::Enter { thread, depth } => Step::Enter {
            thread,
            depth: depth + by,
        },
        Step::Call {
            at,
            record,
            depth,
            expands,
        } => Step::Call {
            at,
            record,
            depth: depth + by,
            expands,
        },
        Step::Leave { thread, depth } => Step::Leave {
            thread,
            depth: depth + by,
        },
    }
}

/// The index of a thread's slot in `children`.
fn slot(thread: ThreadId) -> usize {
    thread.map_or(0, |i| i + 1)
}

/// The main thread, then each subagent, in index order.
fn threads(session: &Session) -> impl Iterator<Item = ThreadId> {
    std::iter::once(None).chain((0..session.subagents.len()).map(Some))
}

/// A thread's turns (empty for an out-of-range subagent).
fn turns_of(session: &Session, thread: ThreadId) -> &[Turn] {
    match thread {
        None => &session.turns,
        Some(i) => session.subagents.get(i).map_or(&[], |s| s.turns.as_slice()),
    }
}

/// A thread's calls in order, with where each is.
fn calls_of(
    session: &Session,
    thread: ThreadId,
) -> impl Iterator<Item = (CallAt, &ToolCallRecord)> {
    turns_of(session, thread)
        .iter()
        .enumerate()
        .flat_map(move |(ti, turn)| calls_of_turn(thread, ti, turn))
}

/// One turn's calls in order, with where each is.
fn calls_of_turn(
    thread: ThreadId,
    turn: usize,
    t: &Turn,
) -> impl Iterator<Item = (CallAt, &ToolCallRecord)> {
    t.events
        .iter()
        .enumerate()
        .filter_map(move |(ei, e)| match e {
            Event::ToolCall(record) => Some((
                CallAt {
                    thread,
                    turn,
                    event: ei,
                    tool_use_id: record.tool_use_id.clone(),
                },
                &**record,
            )),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{OnError, ToolKind, parse_tool_call};
    use crate::transcript::model::{Agent, Subagent};

    fn call(id: &str, spawns: Option<usize>) -> Event {
        let input = serde_json::json!({"description": id, "prompt": id});
        Event::ToolCall(Box::new(ToolCallRecord {
            tool_use_id: id.to_string(),
            call: parse_tool_call("Task", Some(&input), OnError::Other).expect("call"),
            tool_kind: ToolKind::Task,
            tool_resolved: None,
            result: None,
            timestamp: None,
            line: 1,
            message_id: None,
            subagent: spawns,
        }))
    }

    fn turn(events: Vec<Event>) -> Turn {
        Turn {
            prompt_line: Some(1),
            events,
            ..Turn::default()
        }
    }

    fn sub(turns: Vec<Turn>) -> Subagent {
        Subagent {
            turns,
            ..Subagent::default()
        }
    }

    /// Main: turn 0 spawns 0; turn 1 has a plain call. Subagent 0 spawns 1;
    /// 1 spawns nothing; 2 and 3 spawn each other (a cycle, detached); 4 is
    /// unlinked and spawns nothing.
    fn session() -> Session {
        Session {
            id: "s".into(),
            agent: Agent::ClaudeCode,
            path: "s.jsonl".into(),
            cwd: None,
            title: None,
            started: None,
            ended: None,
            version: None,
            git_branch: None,
            turns: vec![
                turn(vec![call("m0", Some(0))]),
                turn(vec![call("m1", None)]),
            ],
            subagents: vec![
                sub(vec![turn(vec![call("a0", Some(1))])]),
                sub(vec![turn(vec![call("b0", None), call("b1", None)])]),
                sub(vec![turn(vec![call("c0", Some(3))])]),
                sub(vec![turn(vec![call("d0", Some(2))])]),
                sub(vec![turn(vec![call("e0", None)])]),
            ],
            usage: Default::default(),
            models: Vec::new(),
            diagnostics: Vec::new(),
            lines: Default::default(),
        }
    }

    #[test]
    fn spawns_children_paths_and_detached() {
        let s = session();
        let t = SpawnTree::new(&s);
        assert_eq!(t.spawn_of(1).map(|a| a.tool_use_id.as_str()), Some("a0"));
        assert_eq!(t.spawn_of(4), None);
        assert_eq!(t.children(None), &[0]);
        assert_eq!(t.children(Some(0)), &[1]);
        assert_eq!(t.children(Some(9)), &[] as &[usize]);
        let path: Vec<String> = t
            .path_to(Some(1))
            .expect("reached")
            .into_iter()
            .map(|a| a.tool_use_id)
            .collect();
        assert_eq!(path, vec!["m0", "a0"]);
        assert_eq!(t.path_to(None), Some(vec![]));
        assert_eq!(t.path_to(Some(2)), None); // on a cycle
        assert_eq!(t.path_to(Some(4)), None); // unlinked
        assert_eq!(t.unlinked(), vec![4]);
        assert_eq!(t.detached(), vec![2, 3, 4]);
    }

    #[test]
    fn the_session_walk_visits_every_call_once_and_ends_on_the_cycle() {
        let s = session();
        let t = SpawnTree::new(&s);
        let calls: Vec<(String, usize)> = t
            .walk_session(&s)
            .into_iter()
            .filter_map(|step| match step {
                Step::Call { record, depth, .. } => Some((record.tool_use_id.clone(), depth)),
                _ => None,
            })
            .collect();
        let want = [
            ("m0", 0),
            ("a0", 1),
            ("b0", 2),
            ("b1", 2),
            ("m1", 0),
            ("e0", 0),
            ("c0", 0),
            ("d0", 1),
        ];
        assert_eq!(
            calls,
            want.iter()
                .map(|(id, d)| (id.to_string(), *d))
                .collect::<Vec<_>>()
        );
        assert_eq!(t.session_tool_calls(&s), 8);
    }

    #[test]
    fn a_chain_deeper_than_max_depth_still_walks_every_call_once() {
        // main spawns 0, i spawns i+1, …: a chain of MAX_DEPTH + 6 subagents.
        let n = MAX_DEPTH + 6;
        let mut s = session();
        s.turns = vec![turn(vec![call("m", Some(0))])];
        s.subagents = (0..n)
            .map(|i| {
                let next = (i + 1 < n).then_some(i + 1);
                sub(vec![turn(vec![call(&format!("s{i}"), next)])])
            })
            .collect();
        let t = SpawnTree::new(&s);
        let steps = t.walk_session(&s);
        let calls: Vec<(String, usize)> = steps
            .iter()
            .filter_map(|step| match step {
                Step::Call { record, depth, .. } => Some((record.tool_use_id.clone(), *depth)),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), n + 1);
        // Depth grows to the cap, then the rest of the chain starts again.
        assert_eq!(calls[MAX_DEPTH].1, MAX_DEPTH);
        assert_eq!(calls[MAX_DEPTH + 1], (format!("s{MAX_DEPTH}"), 0));
        assert_eq!(calls[n], (format!("s{}", n - 1), 5));
        let ids: std::collections::HashSet<&str> =
            calls.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids.len(), n + 1);
        assert_eq!(t.session_tool_calls(&s), n + 1);
    }

    #[test]
    fn turn_counts_are_transitive() {
        let s = session();
        let t = SpawnTree::new(&s);
        assert_eq!(t.turn_subagents(&s, None, 0), vec![0, 1]);
        assert_eq!(t.turn_tool_calls(&s, None, 0), 4);
        assert_eq!(t.turn_subagents(&s, None, 1), Vec::<usize>::new());
        assert_eq!(t.turn_tool_calls(&s, None, 1), 1);
        // Within the cycle, a turn of subagent 2 reaches 3 but not itself.
        assert_eq!(t.turn_subagents(&s, Some(2), 0), vec![3]);
        assert_eq!(t.turn_tool_calls(&s, Some(2), 0), 2);
    }

    #[test]
    fn turn_errors_count_the_calls_of_its_subagents_too() {
        let mut s = session();
        // b0 (in subagent 1, spawned by subagent 0, spawned by turn 0's m0)
        // fails; so does m1 (turn 1's own call).
        let fail = |e: &mut Event| {
            if let Event::ToolCall(r) = e {
                r.result = Some(crate::transcript::model::ToolResult {
                    text: "boom".into(),
                    is_error: true,
                    tool_use_result: None,
                    stdout_is_text: false,
                    echoed_input: 0,
                    timestamp: None,
                    line: 2,
                    agent_id: None,
                });
            }
        };
        fail(&mut s.subagents[1].turns[0].events[0]);
        fail(&mut s.turns[1].events[0]);
        let t = SpawnTree::new(&s);
        assert_eq!(t.turn_errors(&s, None, 0), 1);
        assert_eq!(t.turn_errors(&s, None, 1), 1);
        assert_eq!(t.turn_errors(&s, Some(2), 0), 0);
        assert_eq!(t.turn_errors(&s, None, 9), 0);
        assert_eq!(t.session_errors(&s), 2);
    }
}
