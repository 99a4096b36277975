//! Two rule sets over every recorded event, and where they decide
//! differently (`replay --all --rules A --against B`;
//! docs/replay-and-backtest.md#what-changes-between-two-rule-sets).
//!
//! Every event either set names is rebuilt once and evaluated by both, with
//! the same session history; events whose combined decisions differ are
//! grouped as **newly blocked** (B blocks, A does not), **no longer blocked**
//! (A blocks, B does not), **rewrite changed** (a rewrite in one and not the
//! other, or to another input), **context changed** (the context the model
//! is told differs) and **other changes** (another verdict: a warn that
//! became an allow, …). No prefilter is used: each set would skip different
//! events, and the comparison must see every event either set can match.

use std::collections::BTreeMap;
use std::path::Path;

use hookscope_hook::event::EventKey;
use serde::Serialize;

use super::backtest::{Histories, at_of, rule_events, summary_of};
use super::evaluate;
use super::exec_all::Examples;
use crate::hooks::events::{EventName, Payload, payloads_where, rebuilds};
use crate::hooks::rules::{Evaluation, RuleSet};
use crate::transcript::{Session, SessionRef, short_session_id};

/// One event the two sets decide differently.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The session's short id.
    pub session: String,
    /// The event.
    pub event: EventKey,
    /// The `--at` naming this firing, for `replay SESSION --event E --at AT`.
    pub at: Option<String>,
    /// One line: the tool and its command or path, or the prompt.
    pub summary: String,
    /// The source file and 1-based line of the event.
    pub source: String,
    /// A's decision: the verdict and the rules that matched, `block
    /// (no-rm-rf)`, or `none`.
    pub a: String,
    /// B's, likewise.
    pub b: String,
}

/// Events two versions decide alike, and those they decide differently,
/// grouped (module docs); the JSON of both `--against` and
/// `--against-settings`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Changes {
    /// Events both decide alike.
    pub same: usize,
    /// B blocks, A does not.
    pub newly_blocked: Examples<Change>,
    /// A blocks, B does not.
    pub no_longer_blocked: Examples<Change>,
    /// A rewrite in one and not the other, or to another input.
    pub rewrite_changed: Examples<Change>,
    /// The same verdict, another context for the model.
    pub context_changed: Examples<Change>,
    /// Any other change of verdict.
    pub other_changed: Examples<Change>,
}

/// One side's decision on an event, as [`Changes::add`] compares it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// Whether it blocks (a block, `continue: false`, an objection).
    pub blocks: bool,
    /// The verdict in words, shown in a [`Change`] (`block (no-rm-rf)`).
    pub text: String,
    /// Its verdict's kind, compared (`block`, `rewrite`, `context`, …).
    pub kind: String,
    /// The rewritten input, for a rewrite.
    pub updated_input: Option<serde_json::Value>,
    /// What the model is told.
    pub context: Option<String>,
}

impl Changes {
    /// Events decided differently.
    pub fn changed(&self) -> usize {
        self.newly_blocked.count
            + self.no_longer_blocked.count
            + self.rewrite_changed.count
            + self.context_changed.count
            + self.other_changed.count
    }

    /// Counts one event decided `a` then `b`; `change` builds its example
    /// (given both texts) when it is kept.
    pub fn add(&mut self, a: &Decision, b: &Decision, change: impl FnOnce(&str, &str) -> Change) {
        let make = || change(&a.text, &b.text);
        if b.blocks && !a.blocks {
            self.newly_blocked.push(make);
        } else if a.blocks && !b.blocks {
            self.no_longer_blocked.push(make);
        } else if (a.kind == "rewrite" || b.kind == "rewrite")
            && (a.kind != b.kind || a.updated_input != b.updated_input)
        {
            self.rewrite_changed.push(make);
        } else if a.kind != b.kind {
            self.other_changed.push(make);
        } else if a.context != b.context {
            self.context_changed.push(make);
        } else {
            self.same += 1;
        }
    }

    /// Adds `o`'s counts and, room allowing, its examples.
    pub fn merge(&mut self, o: Changes) {
        self.same += o.same;
        self.newly_blocked.merge(o.newly_blocked);
        self.no_longer_blocked.merge(o.no_longer_blocked);
        self.rewrite_changed.merge(o.rewrite_changed);
        self.context_changed.merge(o.context_changed);
        self.other_changed.merge(o.other_changed);
    }
}

/// Where two rule sets decide differently over many sessions.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Against {
    /// Sessions walked (those whose payloads are rebuilt).
    pub sessions: usize,
    /// Sessions that could not be loaded.
    pub unreadable: usize,
    /// `"<path>: <error>"` per unreadable session.
    pub unreadable_files: Vec<String>,
    /// Sessions of agents whose payloads are not rebuilt, per agent.
    pub left_out: BTreeMap<String, usize>,
    /// Events evaluated by both sets.
    pub events: usize,
    /// How they decided them.
    #[serde(flatten)]
    pub changes: Changes,
}

impl Against {
    /// Events decided differently.
    pub fn changed(&self) -> usize {
        self.changes.changed()
    }

    fn merge(&mut self, o: Against) {
        self.sessions += o.sessions;
        self.unreadable += o.unreadable;
        self.unreadable_files.extend(o.unreadable_files);
        for (k, n) in o.left_out {
            *self.left_out.entry(k).or_default() += n;
        }
        self.events += o.events;
        self.changes.merge(o.changes);
    }
}

/// `block (no-rm-rf, no-force-push)`, `warn (x)`, `none`.
fn decision(e: &Evaluation) -> String {
    let ids: Vec<&str> = e
        .rules
        .iter()
        .filter(|r| r.result.is_some())
        .map(|r| r.id.as_str())
        .collect();
    match e.verdict() {
        "none" => "none".into(),
        v => format!("{v} ({})", ids.join(", ")),
    }
}

/// Compares `a` and `b` on every event of `session` either names.
pub fn against_session(session: &Session, a: &RuleSet, b: &RuleSet) -> Against {
    let mut out = Against::default();
    if !rebuilds(session.agent) {
        out.left_out.insert(session.agent.as_str().to_string(), 1);
        return out;
    }
    out.sessions = 1;
    let mut events: Vec<EventName> = rule_events(a);
    events.extend(rule_events(b));
    events.sort();
    events.dedup();
    let main_path = std::fs::canonicalize(&session.path).unwrap_or_else(|_| session.path.clone());
    let mut histories = Histories::new(session, &[a, b]);
    for p in payloads_where(session, &events, &|_, _| true) {
        let history = histories.of(&p);
        let ea = evaluate(a, &p, history);
        let eb = evaluate(b, &p, history);
        out.events += 1;
        classify(&mut out, session, &main_path, &p, &ea, &eb);
    }
    out
}

fn classify(
    out: &mut Against,
    session: &Session,
    main_path: &Path,
    p: &Payload,
    ea: &Evaluation,
    eb: &Evaluation,
) {
    let side = |e: &Evaluation| Decision {
        blocks: e.verdict() == "block",
        text: decision(e),
        kind: e.verdict().to_string(),
        updated_input: e
            .combined
            .result
            .as_ref()
            .and_then(|r| r.updated_input.clone()),
        context: e.outcome.model_sees.clone(),
    };
    out.changes.add(&side(ea), &side(eb), |a, b| Change {
        session: short_session_id(&session.id).to_string(),
        event: p.event.into(),
        at: at_of(main_path, p),
        summary: summary_of(p),
        source: format!("{}:{}", p.source_path.display(), p.source_line),
        a: a.to_string(),
        b: b.to_string(),
    });
}

/// [`against_session`] over discovered sessions, in parallel (rayon), merged
/// in the order given; `progress` gets the sessions done, from any thread.
/// A session that cannot be loaded is counted and named.
pub fn against_refs(
    sessions: &[SessionRef],
    a: &RuleSet,
    b: &RuleSet,
    progress: &(dyn Fn(usize) + Sync),
) -> Against {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let done = AtomicUsize::new(0);
    let mut total = Against::default();
    for chunk in sessions.chunks(1024) {
        let parts: Vec<Against> = chunk
            .par_iter()
            .map(|r| {
                let part = if rebuilds(r.agent) {
                    match crate::transcript::load(r) {
                        Ok(s) => against_session(&s, a, b),
                        Err(e) => Against {
                            sessions: 1,
                            unreadable: 1,
                            unreadable_files: vec![format!("{}: {e}", r.path.display())],
                            ..Against::default()
                        },
                    }
                } else {
                    let mut o = Against::default();
                    o.left_out.insert(r.agent.as_str().to_string(), 1);
                    o
                };
                progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                part
            })
            .collect();
        for part in parts {
            total.merge(part);
        }
    }
    total
}
