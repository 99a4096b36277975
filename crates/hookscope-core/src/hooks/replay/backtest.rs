//! The backtest: every event of many sessions through a rule set, with
//! per-rule tallies and the first examples ([`Backtest`]), the byte and
//! line prefilters that skip what no rule can match ([`could_match`],
//! [`LineFilter`]), and the parallel run over discovered sessions
//! ([`backtest_refs`]). docs/replay-and-backtest.md describes what it
//! counts.

use super::*;
use hookscope_hook::event::EventKey;
use memchr::memmem;
use std::path::{Path, PathBuf};

/// The JSON of a backtest, the one object `hookscope replay --all --json`
/// prints and `replay_hook` with `all: true` returns: the [`Backtest`]'s
/// fields plus `warnings` (the rule set's, [`RuleSet::warnings`]).
pub fn backtest_json(bt: &Backtest, rules: &RuleSet) -> Value {
    let mut out = serde_json::to_value(bt).unwrap_or(Value::Null);
    if let Some(o) = out.as_object_mut() {
        o.insert("warnings".into(), serde_json::json!(rules.warnings()));
    }
    out
}

// ---- backtest --------------------------------------------------------------

/// Examples per rule and verdict that `hookscope replay --all` prints by
/// default (`--examples N`), and that the MCP `replay_hook` tool returns
/// by default (its `examples` argument).
pub const MAX_EXAMPLES: usize = 3;

/// Most examples a [`Backtest`] keeps per rule and verdict (the first, in
/// session order); the rest are counted in
/// [`RuleTally::examples_left_out`]. A broad rule over tens of thousands
/// of sessions matches hundreds of thousands of events: the counts hold
/// them all, the examples do not.
pub const KEPT_EXAMPLES: usize = 1000;

/// One event a rule matched, as an example in a backtest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Example {
    /// The session's short id ([`short_session_id`]).
    pub session: String,
    /// The event name.
    pub event: EventKey,
    /// The payload's `tool_use_id`, for tool events.
    pub tool_use_id: Option<String>,
    /// The `--at` form that names this firing
    /// ([`crate::hooks::events::At::parse`]): the `tool_use_id` for a tool
    /// event, else `line:N` (the 1-based line of the main transcript file it
    /// is anchored at), or inside a subagent `line:agent-<agent_id>:N` (a
    /// line of the subagent's file); `None` when neither can be told.
    pub at: Option<String>,
    /// One line: the tool and its command or path, or the prompt.
    pub summary: String,
    /// The rule's verdict (`block`, `warn`, `context`, `allow`, `rewrite`).
    pub verdict: String,
    /// The source file and 1-based line of the event.
    pub source: String,
    /// For a `block`: whether the transcript shows a hook taking that
    /// effect at the time (a call blocked before it ran, an objection after
    /// it ran, a Stop blocked, a prompt rejected; docs/replay.md "Blocked
    /// then, or new"); `false` marks a would-be new block (the ones to
    /// review as possible false blocks). `None` for other verdicts and for
    /// a tool event whose call is not recorded.
    pub blocked_then: Option<bool>,
    /// Set when the rule matched on a command not parsed whole (its
    /// [`crate::hooks::rules::RuleEval::unread`]): what was not parsed, e.g.
    /// `command not parsed whole: 70672 bytes, 5136 not parsed`. Such a
    /// match may rest on raw text (docs/rules.md "Rule sets": the long-command
    /// rule). Omitted from JSON when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_parsed_whole: Option<String>,
}

/// A rule's tally over a backtest: per verdict, how many events it matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct RuleTally {
    /// The rule id.
    pub id: String,
    /// Events per verdict (`block`, `warn`, `context`, `allow`, `rewrite`),
    /// only verdicts that occurred.
    pub counts: BTreeMap<String, usize>,
    /// The denominator: firings of the rule's events in the sessions the
    /// backtest loaded (those the line prefilter ruled out included: no rule
    /// matches them); sessions skipped unloaded ([`Backtest::skipped`]) are
    /// not counted.
    pub evaluated: usize,
    /// Of its `block`s, those on calls the transcript shows blocked by a
    /// hook at the time ([`Example::blocked_then`] `Some(true)`).
    pub blocks_then: usize,
    /// Of its `block`s, those on calls no hook blocked at the time: the
    /// would-be new blocks ([`Example::blocked_then`] `Some(false)`).
    pub blocks_new: usize,
    /// Of its `block`s, those on PostToolUse or PostToolUseFailure
    /// ([`Example::is_objection`]). Counted in `blocks_then`/`blocks_new`
    /// too.
    pub objections: usize,
    /// Of its matches (every verdict), those on a command not parsed whole
    /// ([`Example::not_parsed_whole`]): a guard matches such a command on
    /// its raw text, so these are the ones to review.
    pub not_parsed_whole: usize,
    /// The events it matched, in session order: the first
    /// [`KEPT_EXAMPLES`] per verdict (fewer after
    /// [`Backtest::cap_examples`]).
    pub examples: Vec<Example>,
    /// Matched events not in `examples` (past the cap), all verdicts;
    /// omitted from JSON when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub examples_left_out: usize,
}

impl Example {
    /// Whether it is a `block` on an event after the call ran
    /// (PostToolUse, PostToolUseFailure, [`EventName::after_call`]): the
    /// call had already run, so the block is an objection the model reads,
    /// not a call stopped (docs/replay.md "Blocked then, or new").
    pub fn is_objection(&self) -> bool {
        self.verdict == "block" && self.event.after_call()
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The result of running every event of many sessions through a rule set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Backtest {
    /// Sessions looked at (skipped ones included): those whose hook
    /// payloads are rebuilt ([`crate::hooks::events::rebuilds`]: Claude
    /// Code and Droid).
    pub sessions: usize,
    /// Sessions skipped by the prefilters without loading ([`could_match`],
    /// or no candidate line of a [`LineFilter`]).
    pub skipped: usize,
    /// Sessions that could not be read or loaded (left out of the counts).
    pub unreadable: usize,
    /// Why, per such session: `"<path>: <error>"` (the file that failed),
    /// in the order the sessions were given.
    pub unreadable_files: Vec<String>,
    /// Sessions loaded with a diagnostic (a truncated or malformed line,
    /// invalid UTF-8, a subagent file that could not be read): their
    /// events were evaluated without what the loader could not use, so a
    /// match there is not counted.
    pub with_diagnostics: usize,
    /// The first diagnostic of each such session (`"<path>:<line>:
    /// <message>"`, as [`crate::transcript::Diagnostic`] prints it), in the
    /// order the sessions were given.
    pub diagnostics: Vec<String>,
    /// Sessions of agents whose payloads are not rebuilt (Codex,
    /// OpenCode) passed in and left out, per agent
    /// ([`Agent::as_str`]: `"codex"` → 1); agents with none are absent.
    /// Not counted in `sessions`.
    pub left_out: BTreeMap<String, usize>,
    /// Events evaluated (payloads of the events the rules name that were
    /// rebuilt: a [`LineFilter`] leaves out the calls no rule can match).
    pub events: usize,
    /// Firings per event name in the sessions loaded, those a
    /// [`LineFilter`] left out included (the rules' denominators).
    pub by_event: BTreeMap<String, usize>,
    /// Per rule, in the rule set's evaluation order.
    pub rules: Vec<RuleTally>,
    /// The merged decision over all rules, per verdict, over the events
    /// that would still happen under the set: a call's PostToolUse and
    /// PostToolUseFailure are left out when the set blocks its PreToolUse
    /// or PermissionRequest (counted in `combined_unreachable`).
    pub combined: BTreeMap<String, usize>,
    /// Of `combined`'s `block`, those on PostToolUse or PostToolUseFailure:
    /// objections the model reads, the call was not stopped
    /// (docs/replay-and-backtest.md).
    pub combined_objections: usize,
    /// PostToolUse and PostToolUseFailure events left out of `combined`
    /// because the set blocks the call before it runs, so they would not
    /// fire.
    pub combined_unreachable: usize,
}

impl Backtest {
    /// An empty tally for `rules`.
    pub fn new(rules: &RuleSet) -> Backtest {
        Backtest {
            rules: rules
                .rules
                .iter()
                .map(|r| RuleTally {
                    id: r.id.clone(),
                    ..RuleTally::default()
                })
                .collect(),
            ..Backtest::default()
        }
    }

    /// Adds `other` (a later batch of sessions) to this tally: counts sum,
    /// examples are appended in order.
    pub fn merge(&mut self, other: Backtest) {
        self.sessions += other.sessions;
        self.skipped += other.skipped;
        self.unreadable += other.unreadable;
        self.unreadable_files.extend(other.unreadable_files);
        self.with_diagnostics += other.with_diagnostics;
        self.diagnostics.extend(other.diagnostics);
        for (k, n) in other.left_out {
            *self.left_out.entry(k).or_default() += n;
        }
        self.events += other.events;
        for (k, n) in other.combined {
            *self.combined.entry(k).or_default() += n;
        }
        self.combined_objections += other.combined_objections;
        self.combined_unreachable += other.combined_unreachable;
        for (k, n) in other.by_event {
            *self.by_event.entry(k).or_default() += n;
        }
        for (mine, theirs) in self.rules.iter_mut().zip(other.rules) {
            for (k, n) in theirs.counts {
                *mine.counts.entry(k).or_default() += n;
            }
            mine.evaluated += theirs.evaluated;
            mine.blocks_then += theirs.blocks_then;
            mine.blocks_new += theirs.blocks_new;
            mine.objections += theirs.objections;
            mine.not_parsed_whole += theirs.not_parsed_whole;
            mine.examples.extend(theirs.examples);
            mine.examples_left_out += theirs.examples_left_out;
        }
    }

    /// Keeps the first `per_verdict` examples of each rule and verdict
    /// (session order), counting the others in
    /// [`RuleTally::examples_left_out`]; the counts are unchanged.
    pub fn cap_examples(&mut self, per_verdict: usize) {
        for t in &mut self.rules {
            let mut seen: BTreeMap<String, usize> = BTreeMap::new();
            let before = t.examples.len();
            t.examples.retain(|e| {
                let n = seen.entry(e.verdict.clone()).or_default();
                *n += 1;
                *n <= per_verdict
            });
            t.examples_left_out += before - t.examples.len();
        }
    }
}

/// The call a tool event's payload concerns: its `tool_use_id`, else the
/// call it was rebuilt for (a Droid payload has no such field,
/// [`Payload::call_id`]).
/// The `--at` form naming the firing of `p` ([`Example::at`]): its
/// `tool_use_id`, else `line:N` on the main file `main_path`, else
/// `line:agent-<agent_id>:N` inside a subagent.
pub(super) fn at_of(main_path: &Path, p: &Payload) -> Option<String> {
    call_id_of(p).map(str::to_string).or_else(|| {
        if p.source_path == main_path {
            Some(format!("line:{}", p.source_line))
        } else {
            p.json
                .get("agent_id")
                .and_then(Value::as_str)
                .filter(|a| !a.is_empty())
                .map(|a| format!("line:agent-{a}:{}", p.source_line))
        }
    })
}

pub(super) fn call_id_of(p: &Payload) -> Option<&str> {
    p.json
        .get("tool_use_id")
        .and_then(Value::as_str)
        .or(p.call_id.as_deref())
}

/// Whether the transcript shows a hook taking, at the time, the effect a
/// `block` at `p` takes (docs/replay.md "Blocked then, or new"):
/// * before a call ran (PreToolUse, PermissionRequest): a hook blocked the
///   call (a [`HookAction::Blocked`] PreToolUse/PermissionRequest firing,
///   which a `permissionDecision` rejection a hook caused also is: a
///   `deny`, or an `ask` that no one could answer);
/// * after it ran (PostToolUse, PostToolUseFailure): a hook objected
///   ([`HookAction::Flagged`]);
/// * any other event: a [`HookAction::Blocked`] firing of that event at
///   `p`'s place ([`activity_at`]: a Stop block, a rejected prompt).
///
/// `None` when `p` is a tool event whose call is not recorded.
fn blocked_then(session: &Session, p: &Payload) -> Option<bool> {
    use crate::transcript::hook_activity::HookAction;
    let Some(id) = call_id_of(p) else {
        return Some(
            activity_at(session, p)
                .iter()
                .any(|h| h.action == HookAction::Blocked),
        );
    };
    let thread = thread_of(session, p);
    let record = match thread.and_then(|i| session.subagents.get(i)) {
        Some(s) => s.tool_calls().find(|r| r.tool_use_id == id),
        None => session.tool_calls().find(|r| r.tool_use_id == id),
    }?;
    let mut firings = session.hooks_of_call(thread, record);
    if p.event.after_call() {
        return Some(firings.any(|h| {
            h.after_call() && matches!(h.action, HookAction::Flagged | HookAction::Blocked)
        }));
    }
    // A rejection the call's `permissionDecision` puts on a hook (a deny,
    // an ask no one answered) is a blocked firing already
    // (`HookLog::on_permission_reject`).
    Some(firings.any(|h| {
        h.action == HookAction::Blocked && h.event.as_ref().is_some_and(EventKey::before_call)
    }))
}

/// What rule `r` reads of the history (`None`: nothing; `prompt` alone
/// gives both lists off).
pub(crate) fn wanted_by(r: &crate::hooks::rules::Rule) -> Option<Wanted> {
    let mut needed = false;
    let mut want = Wanted {
        touched_files: false,
        ran_commands: false,
    };
    for c in r.only_if.iter().chain(&r.skip_if) {
        match c {
            Condition::Prompt(_) => needed = true,
            Condition::TouchedFile(..) => (needed, want.touched_files) = (true, true),
            Condition::RanCommand(_) => (needed, want.ran_commands) = (true, true),
            _ => {}
        }
    }
    needed.then_some(want)
}

/// The events named by a rule that asks about the history (`prompt`,
/// `touched_file`, `ran_command`), each with the lists its rules read:
/// only their payloads need a [`History`] assembled, with only those
/// lists; every other payload is evaluated with an empty one, which no
/// other condition reads.
pub(crate) fn history_events(sets: &[&RuleSet]) -> Vec<(EventName, Wanted)> {
    let mut out: Vec<(EventName, Wanted)> = Vec::new();
    for r in sets.iter().flat_map(|s| &s.rules) {
        let Some(want) = wanted_by(r) else {
            continue;
        };
        for e in r.events.iter().filter_map(EventKey::known) {
            match out.iter_mut().find(|(x, _)| *x == e) {
                Some((_, w)) => {
                    w.touched_files |= want.touched_files;
                    w.ran_commands |= want.ran_commands;
                }
                None => out.push((e, want)),
            }
        }
    }
    out
}

/// The histories the payloads of one session get, in the order they come:
/// for an event whose rules ask about the history ([`history_events`]),
/// one [`History`] refilled in place ([`HistoryIndex::fill_before_only`]:
/// a session of many Stop events copies each earlier entry about once);
/// for any other, an empty one, which no other condition reads.
pub(super) struct Histories {
    index: Option<HistoryIndex>,
    events: Vec<(EventName, Wanted)>,
    history: History,
    reuse: Reuse,
    empty: History,
}

impl Histories {
    /// For `session` and the rule sets `sets` (indexed only when one of
    /// their rules reads the history).
    pub(super) fn new(session: &Session, sets: &[&RuleSet]) -> Histories {
        let events = history_events(sets);
        Histories {
            index: (!events.is_empty()).then(|| HistoryIndex::distinct(session)),
            events,
            history: History::default(),
            reuse: Reuse::default(),
            empty: History::default(),
        }
    }

    /// The history `p`'s rules read.
    pub(super) fn of(&mut self, p: &Payload) -> &History {
        match (
            self.index.as_ref(),
            self.events.iter().find(|(e, _)| *e == p.event),
        ) {
            (Some(ix), Some((_, want))) => {
                ix.fill_before_only(p, *want, &mut self.history, &mut self.reuse);
                &self.history
            }
            _ => &self.empty,
        }
    }
}

/// The prefilter of a backtest: whether any rule of `rules` can match an
/// event of a session whose files' bytes are `files`
/// ([`SessionFilter::possible`], which says it per rule and explains why a
/// session without a rule's needles cannot be matched by it).
pub fn could_match(rules: &RuleSet, files: &[&[u8]]) -> bool {
    SessionFilter::new(rules).possible(files).contains(&true)
}

/// One piece of a [`SessionFilter`] needle: bytes that must occur.
#[derive(Debug, Clone)]
enum Piece {
    /// Byte for byte.
    Exact(Box<memmem::Finder<'static>>),
    /// ASCII letters in either case (a `(?i-u)` regex of the escaped
    /// piece).
    Folded(regex::bytes::Regex),
}

impl Piece {
    fn occurs(&self, bytes: &[u8]) -> bool {
        match self {
            Piece::Exact(f) => f.find(bytes).is_some(),
            Piece::Folded(re) => re.is_match(bytes),
        }
    }
}

/// A needle: alternatives, one of which must hold; each a list of pieces
/// (indexes into [`SessionFilter`]'s pieces) that must all occur.
type Needle = Vec<Vec<usize>>;

/// The session-level prefilter of a backtest: per rule, the needles a
/// session's files must hold for the rule to match one of its events
/// (each needle one alternative of which occurs; an alternative's pieces
/// all occur). A rule whose needles do not all hold cannot match in that
/// session; its events are not rebuilt unless another rule may match them,
/// and a session where no rule can match is skipped unloaded.
///
/// A rule's needles:
/// * its `tool` spec: one of [`expand_tool_names`]. A rule with one matches
///   only payloads whose `tool_name` passes
///   [`crate::tools::tool_name_matches`]: the name is one of those or an
///   `mcp__<server>__<name>` that ends in one. Either way that name is a
///   substring of the `tool_use` block's `name`, which Claude Code writes
///   as-is (tool names are ASCII letters, digits, `_` and `-`, which JSON
///   never escapes).
/// * an `only_if` `input_contains` whose values are all plain
///   ([`crate::query::prefilter::is_plain`]: printable ASCII without `"`,
///   `\`, `<`, `>`, `&`, which no JSON writer escapes): one of the values.
///   The condition holds only when a string of `tool_input` (the recorded
///   `tool_use` input) contains one, so it occurs in the files as is.
/// * an `only_if` `prompt` whose regexes all narrow: a literal every match
///   starts with (regex-syntax's prefix extraction of the pattern as
///   written), cut into pieces at every character outside
///   `[A-Za-z0-9_@%+=:,./-]` and at `k` and `s` (the ASCII letters a
///   Unicode case-insensitive match also finds as `K` U+212A and `ſ`
///   U+017F), each piece found in either ASCII case. The prompt tested is
///   the turn's (or subagent task's) opening text or the payload's
///   `prompt`, which the transcript holds as written; a piece lies inside
///   one word of it, so JSON escaping and the loader joining text blocks
///   with newlines cannot hide it.
/// * an `only_if` `touched_file` whose globs hold no `[`, `{` or `\`: one
///   of the globs, as its literal runs (cut at `*`, `?`, `/` and every
///   character outside `[A-Za-z0-9_@%+=:,./-]`), all of them. A touched
///   file is the `file_path` of an earlier recorded edit, matched whole or
///   relative to `cwd` (a suffix of it), so each run lies in its bytes.
///
/// Conditions of `skip_if`, and every other condition, never narrow.
/// A session whose bytes hold a `\u` escape of plain ASCII (`\u0067` for
/// `g`, [`crate::query::prefilter::has_escaped_ascii`]; no agent writes
/// these) may hide any needle: every rule is possible there. Not covered: a
/// writer that writes `/` as `\/` (Claude Code and Droid do not).
#[derive(Debug, Clone)]
pub struct SessionFilter {
    /// Each distinct piece once.
    pieces: Vec<Piece>,
    /// Per rule, in the rule set's order, its needles.
    rules: Vec<Vec<Needle>>,
}

impl SessionFilter {
    /// The needles of every rule of `rules` (see the type's docs).
    pub fn new(rules: &RuleSet) -> SessionFilter {
        let mut keys: Vec<(bool, String)> = Vec::new();
        let mut pieces: Vec<Piece> = Vec::new();
        let mut piece = |text: &str, folded: bool| -> Option<usize> {
            if let Some(i) = keys.iter().position(|(f, t)| *f == folded && t == text) {
                return Some(i);
            }
            let p = if folded {
                Piece::Folded(
                    regex::bytes::RegexBuilder::new(&regex::escape(text))
                        .case_insensitive(true)
                        .unicode(false)
                        .build()
                        .ok()?,
                )
            } else {
                Piece::Exact(Box::new(memmem::Finder::new(text.as_bytes()).into_owned()))
            };
            keys.push((folded, text.to_string()));
            pieces.push(p);
            Some(pieces.len() - 1)
        };
        let mut needle = |alts: Vec<Vec<String>>, folded: bool| -> Option<Needle> {
            alts.iter()
                .map(|ps| ps.iter().map(|p| piece(p, folded)).collect())
                .collect()
        };
        let mut per_rule = Vec::with_capacity(rules.rules.len());
        for r in &rules.rules {
            let mut needles = Vec::new();
            if let Some(spec) = &r.tool {
                let alts = expand_tool_names(spec)
                    .into_iter()
                    .map(|n| vec![n])
                    .collect();
                needles.extend(needle(alts, false));
            }
            for c in &r.only_if {
                let (alts, folded) = match c {
                    Condition::InputContains(values) if values.iter().all(|v| is_plain(v)) => (
                        Some(values.iter().map(|v| vec![v.clone()]).collect()),
                        false,
                    ),
                    Condition::Prompt(res) => (
                        regex_alternatives(res, |b| shell_safe(b) && !b"kKsS".contains(&b)),
                        true,
                    ),
                    Condition::TouchedFile(_, globs) => (glob_alternatives(globs), false),
                    _ => (None, false),
                };
                if let Some(alts) = alts {
                    needles.extend(needle(alts, folded));
                }
            }
            per_rule.push(needles);
        }
        SessionFilter {
            pieces,
            rules: per_rule,
        }
    }

    /// Per rule of the set it was built from, in order: whether the rule
    /// can match an event of a session whose files' bytes are `files`
    /// (`false`: one of its needles occurs nowhere in them). Each piece is
    /// looked for at most once.
    pub fn possible(&self, files: &[&[u8]]) -> Vec<bool> {
        let mut found = self.nothing_found();
        for f in files {
            self.find_in(f, &mut found);
        }
        self.possible_given(&found)
    }

    /// [`SessionFilter::possible`] over files read in pieces (each cut at a
    /// line end, so every needle, which lies in one line, is whole in one
    /// of them): `found` (start with [`SessionFilter::nothing_found`])
    /// gathers which pieces occurred in `bytes`, and whether they hold a
    /// `\u` escape of plain ASCII.
    fn find_in(&self, bytes: &[u8], found: &mut Found) {
        for (f, p) in found.pieces.iter_mut().zip(&self.pieces) {
            *f = *f || p.occurs(bytes);
        }
        found.escaped = found.escaped || crate::query::prefilter::has_escaped_ascii(bytes);
    }

    /// Nothing found yet (for [`SessionFilter::find_in`]).
    fn nothing_found(&self) -> Found {
        Found {
            pieces: vec![false; self.pieces.len()],
            escaped: false,
        }
    }

    /// [`SessionFilter::possible`] from what [`SessionFilter::find_in`]
    /// found: every rule where the bytes hold an escape of plain ASCII.
    fn possible_given(&self, found: &Found) -> Vec<bool> {
        if found.escaped {
            return vec![true; self.rules.len()];
        }
        let occurs = |i: usize| found.pieces.get(i).copied().unwrap_or(false);
        self.rules
            .iter()
            .map(|needles| {
                needles
                    .iter()
                    .all(|alts| alts.iter().any(|ps| ps.iter().all(|&i| occurs(i))))
            })
            .collect()
    }
}

/// What [`SessionFilter::find_in`] has seen of a session's bytes so far.
struct Found {
    /// Per piece of the filter, whether it occurred.
    pieces: Vec<bool>,
    /// Whether the bytes hold a `\u` escape of plain ASCII, which may hide
    /// any piece ([`crate::query::prefilter::has_escaped_ascii`]).
    escaped: bool,
}

/// The literal runs of `globs` as [`SessionFilter`] needs them (one
/// alternative per glob, its runs all required); `None` when a glob has a
/// class, an alternation or an escape (`[`, `{`, `\`), or no run.
fn glob_alternatives(globs: &[String]) -> Option<Vec<Vec<String>>> {
    globs
        .iter()
        .map(|g| {
            if g.contains(['[', '{', '\\']) {
                return None;
            }
            let runs: Vec<String> = g
                .split(|c: char| !c.is_ascii() || c == '/' || !shell_safe(c as u8))
                .filter(|r| !r.is_empty())
                .map(str::to_string)
                .collect();
            (!runs.is_empty()).then_some(runs)
        })
        .collect()
}

/// What rule `r` needs of a call for one of its events to match
/// ([`crate::index::names::CallNeed`]), for
/// [`crate::index::Index::calls_wanted`]; `None` when it names no tool.
/// Its names are [`expand_tool_names`] of its `tool` spec. Its
/// input needles are those of an `only_if`
/// `input_contains` whose values are all plain
/// ([`crate::query::prefilter::is_plain`]), ASCII-lowercased, and only
/// when every event of the rule is PreToolUse or PermissionRequest: their
/// payloads carry the `tool_use` block's input as recorded, the text the
/// index folds (a PostToolUse carries the input that ran, which a hook's
/// rewrite may have changed). A plain value inside a string of that input
/// is inside its compact JSON as is, and lowercasing keeps it inside.
fn call_need(r: &crate::hooks::rules::Rule) -> Option<crate::index::names::CallNeed> {
    let recorded_input = !r.events.is_empty()
        && r.events
            .iter()
            .all(|e| e.is(EventName::PreToolUse) || e.is(EventName::PermissionRequest));
    let names = expand_tool_names(r.tool.as_deref()?).into_iter().collect();
    let inputs = recorded_input
        .then(|| {
            r.only_if.iter().find_map(|c| match c {
                Condition::InputContains(values)
                    if !values.is_empty() && values.iter().all(|v| is_plain(v)) =>
                {
                    Some(values.iter().map(|v| v.to_ascii_lowercase()).collect())
                }
                _ => None,
            })
        })
        .flatten();
    Some(crate::index::names::CallNeed { names, inputs })
}

/// What the persisted index must hold of a session for one rule to match
/// one of its events there ([`index_needs`]); a part that is `None` asks
/// nothing.
#[derive(Debug, Clone)]
pub struct IndexNeed<'r> {
    /// For a rule that names a tool: a call it needs (`call_need`: its
    /// tool, and the plain `input_contains` of a rule on PreToolUse or
    /// PermissionRequest alone).
    pub call: Option<crate::index::names::CallNeed>,
    /// For a rule with an `only_if` `prompt`: its patterns, one of which
    /// must find a match in a stored prompt of the session (every prompt a
    /// `prompt` condition tests is one of them: [`crate::index::prompts`]);
    /// the `bool` is set when the rule names Stop or SubagentStop alone,
    /// whose firings test only the prompts stored with their `stop` mark
    /// ([`crate::hooks::replay::stop_prompts`]).
    pub prompt: Option<(&'r [crate::hooks::rules::Pattern], bool)>,
    /// For a rule with an `only_if` `agent`: its names, one of which must
    /// be the `agent_type` of a subagent of the session (a rebuilt payload
    /// carries no other: [`crate::transcript::Subagent::agent_type`]).
    pub agents: Option<&'r [String]>,
}

impl IndexNeed<'_> {
    /// Whether it asks the index anything.
    pub fn asks(&self) -> bool {
        self.call.is_some() || self.prompt.is_some() || self.agents.is_some()
    }
}

/// What the persisted index tells a backtest of one session
/// ([`backtest_refs_knowing`]).
#[derive(Debug, Clone, Default)]
pub struct Known {
    /// Per rule of the set, in order, whether it may match an event of the
    /// session ([`index_needs`]).
    pub possible: Vec<bool>,
    /// Where the `tool_use` lines of the session's calls that a
    /// [`LineFilter`] may take for candidates are (thread file, byte offset,
    /// length; [`LineFilter::call_names`]), when the index has every one:
    /// then only these lines are read for candidates, not the whole files.
    /// `None`: the files are scanned.
    pub call_lines: Option<Vec<(PathBuf, u64, u64)>>,
}

/// Per rule of `rules`, in order, what the index must hold of a session
/// for the rule to match one of its events there ([`IndexNeed`]). A rule
/// whose need does not hold cannot match in the session; one that asks
/// nothing may match anywhere.
pub fn index_needs(rules: &RuleSet) -> Vec<IndexNeed<'_>> {
    let stops_only = |r: &crate::hooks::rules::Rule| {
        !r.events.is_empty()
            && r.events
                .iter()
                .all(|e| e.is(EventName::Stop) || e.is(EventName::SubagentStop))
    };
    rules
        .rules
        .iter()
        .map(|r| IndexNeed {
            call: call_need(r),
            prompt: r.only_if.iter().find_map(|c| match c {
                Condition::Prompt(patterns) => Some((patterns.as_slice(), stops_only(r))),
                _ => None,
            }),
            agents: r.only_if.iter().find_map(|c| match c {
                Condition::Agent(names) => Some(names.as_slice()),
                _ => None,
            }),
        })
        .collect()
}

/// The events a rule set names, in [`EventName::ALL`] order (unknown names
/// cannot occur: the loader refuses them).
pub fn rule_events(rules: &RuleSet) -> Vec<EventName> {
    events_of(rules, |_| true)
}

/// The events the rules at the places `kept` accepts name, in
/// [`EventName::ALL`] order.
fn events_of(rules: &RuleSet, kept: impl Fn(usize) -> bool) -> Vec<EventName> {
    EventName::ALL
        .iter()
        .copied()
        .filter(|e| {
            rules
                .rules
                .iter()
                .enumerate()
                .any(|(i, r)| kept(i) && r.events.iter().any(|n| n == e.as_str()))
        })
        .collect()
}

pub(super) fn summary_of(p: &Payload) -> String {
    let j = &p.json;
    let s = |k: &str| j.get(k).and_then(Value::as_str);
    let input = j.get("tool_input");
    // Masked whole before it is cut, so no part of a secret is shown.
    let one_line = |t: &str| {
        let mut masked = crate::redact::Redactions::new();
        let t = crate::redact::redactor()
            .redact(t, &mut masked)
            .replace('\n', "⏎");
        if t.chars().count() > 80 {
            format!("{}…", t.chars().take(80).collect::<String>())
        } else {
            t
        }
    };
    if let Some(tool) = s("tool_name") {
        let detail = input
            .and_then(|i| {
                ["command", "file_path", "notebook_path", "path", "pattern"]
                    .iter()
                    .find_map(|k| i.get(*k).and_then(Value::as_str))
            })
            .map(one_line)
            .unwrap_or_default();
        return format!("{tool} {detail}").trim_end().to_string();
    }
    if let Some(prompt) = s("prompt") {
        return one_line(prompt);
    }
    if let Some(msg) = s("last_assistant_message") {
        return format!("after: {}", one_line(msg));
    }
    p.event.to_string()
}

/// Runs every event of `session` named by `rules` through them and tallies
/// per rule (a [`Backtest`] of one session, not counting it as skipped).
/// A session whose payloads are not rebuilt (Codex, OpenCode) is only
/// counted in [`Backtest::left_out`].
pub fn backtest_session(session: &Session, rules: &RuleSet) -> Backtest {
    if !crate::hooks::events::rebuilds(session.agent) {
        let mut bt = Backtest::new(rules);
        bt.left_out.insert(session.agent.as_str().to_string(), 1);
        return bt;
    }
    backtest_calls(session, rules, None)
}

/// What the prefilters left of a session's events: the rules that may
/// match there ([`SessionFilter::possible`]) and the candidate calls of
/// the events a [`LineFilter`] narrows.
struct Narrowed<'a> {
    possible: Vec<bool>,
    lines: Option<(&'a LineFilter, &'a HashSet<String>)>,
}

/// [`backtest_session`] with only the firings a rule may match rebuilt
/// (`None`: every firing): the events a rule that may match names
/// ([`Narrowed::possible`]), and of the events a [`LineFilter`] narrows
/// the calls of its candidate lines. No other firing can be matched by a
/// rule, so the tallies and examples are those of the whole session, and
/// [`Backtest::events`] counts the firings evaluated.
fn backtest_calls(session: &Session, rules: &RuleSet, only: Option<&Narrowed<'_>>) -> Backtest {
    let mut bt = Backtest::new(rules);
    // Payloads carry the resolved path of the file they are anchored in.
    let main_path = std::fs::canonicalize(&session.path).unwrap_or_else(|_| session.path.clone());
    bt.sessions = 1;
    let mut histories = Histories::new(session, &[rules]);
    let seen = std::cell::RefCell::new(BTreeMap::<String, usize>::new());
    let wanted: Vec<EventName> = match only {
        None => rule_events(rules),
        Some(n) => events_of(rules, |i| n.possible.get(i).copied().unwrap_or(false)),
    };
    let keep = |event: EventName, ids: &[String]| {
        *seen.borrow_mut().entry(event.to_string()).or_default() += 1;
        wanted.contains(&event)
            && only.and_then(|n| n.lines).is_none_or(|(filter, only)| {
                !filter.narrows(event) || ids.iter().any(|i| only.contains(i))
            })
    };
    // Payloads are evaluated as they are rendered, one at a time, a call's
    // PreToolUse before its PostToolUse: the calls the set blocks before
    // they run (thread file, tool_use_id).
    let mut stopped: HashSet<(PathBuf, String)> = HashSet::new();
    let events = rule_events(rules);
    crate::hooks::events::for_each_payload_where(session, &events, &keep, &mut |p| {
        let event = p.event;
        bt.events += 1;
        let history = histories.of(&p);
        let eval = evaluate(rules, &p, history);
        let v = eval.verdict();
        let call = call_id_of(&p).map(|id| (p.source_path.clone(), id.to_string()));
        if event.after_call() && call.as_ref().is_some_and(|c| stopped.contains(c)) {
            bt.combined_unreachable += 1;
        } else if v != "none" {
            *bt.combined.entry(v.to_string()).or_default() += 1;
            if v == "block" {
                if event.after_call() {
                    bt.combined_objections += 1;
                } else if let Some(c) = call {
                    stopped.insert(c);
                }
            }
        }
        for (tally, re) in bt.rules.iter_mut().zip(&eval.rules) {
            let Some(result) = &re.result else {
                continue;
            };
            let v = verdict(result).to_string();
            *tally.counts.entry(v.clone()).or_default() += 1;
            let tool_use_id = call_id_of(&p).map(str::to_string);
            let then = (v == "block").then(|| blocked_then(session, &p)).flatten();
            match then {
                Some(true) => tally.blocks_then += 1,
                Some(false) => tally.blocks_new += 1,
                None => {}
            }
            if re.unread.is_some() {
                tally.not_parsed_whole += 1;
            }
            let example = Example {
                session: short_session_id(&session.id).to_string(),
                event: event.into(),
                at: at_of(&main_path, &p),
                tool_use_id,
                summary: summary_of(&p),
                verdict: v,
                source: format!("{}:{}", p.source_path.display(), p.source_line),
                blocked_then: then,
                not_parsed_whole: re.unread.clone(),
            };
            if example.is_objection() {
                tally.objections += 1;
            }
            tally.examples.push(example);
        }
        // The examples kept are the first per verdict: cap as they come,
        // so a session of 100,000 matches does not hold them all.
        if bt.events.is_multiple_of(4096) {
            bt.cap_examples(KEPT_EXAMPLES);
        }
    });
    bt.by_event = seen.into_inner();
    for (tally, rule) in bt.rules.iter_mut().zip(&rules.rules) {
        tally.evaluated = rule
            .events
            .iter()
            .filter_map(|e| bt.by_event.get(e.as_str()))
            .sum();
    }
    bt
}

/// Backtests `sessions` (already loaded) in order; see [`backtest_session`].
pub fn backtest(sessions: &[Session], rules: &RuleSet) -> Backtest {
    let mut bt = Backtest::new(rules);
    for s in sessions {
        bt.merge(backtest_session(s, rules));
        bt.cap_examples(KEPT_EXAMPLES);
    }
    bt
}

// ---- backtest line prefilter ---------------------------------------------

/// The events whose payloads carry the call's `tool_name` and `tool_input`
/// as the `tool_use` block recorded them (one call each). Not PostToolUse
/// nor PostToolUseFailure: after a call ran, its payload carries the input
/// that ran, which a PreToolUse hook's rewrite (`updatedInput`) may have
/// changed from the `tool_use` line's.
const CALL_EVENTS: &[&str] = &["PreToolUse", "PermissionRequest"];

/// One rule a [`LineFilter`] narrows.
#[derive(Debug, Clone)]
struct NarrowedRule {
    /// Its place in the rule set.
    id: usize,
    /// The rule: a call whose groups hold is a candidate only when it may
    /// match it ([`crate::hooks::rules::Rule::may_match_call`]).
    rule: crate::hooks::rules::Rule,
    /// Its groups: what each is tested on, and its alternatives.
    groups: Vec<(On, Vec<Alternative>)>,
    /// Whether a call whose groups hold is tested on its block too
    /// ([`block_tested`]).
    block_test: bool,
}

/// Whether a rule has a condition its [`LineFilter`] groups do not decide
/// and the call's block does (`command`, `program`, `pipeline`, `line`,
/// `content`, an `input_contains` with a value that is not plain,
/// `file_path`): a call whose groups hold is then tested on its block. A
/// rule whose only such conditions are plain `input_contains` values is
/// decided by its groups (up to a value that spans two strings).
fn block_tested(r: &crate::hooks::rules::Rule) -> bool {
    r.only_if.iter().any(|c| match c {
        Condition::InputContains(values) => !values.iter().all(|v| is_plain(v)),
        c => c.reads_call_alone() || matches!(c, Condition::FilePath(..)),
    })
}

/// Characters a Bash command can hold inside one argv word that
/// [`crate::tools::argv_to_command`] would not quote (`[A-Za-z0-9_@%+=:,./-]`):
/// a regex literal is cut at every other character into pieces.
fn shell_safe(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b)
}

/// The literal pieces a match of one of `res` must hold (an alternative
/// per literal, each a list of pieces that must all occur), from
/// regex-syntax's prefix extraction: when the sequence is finite, every
/// match starts with one of its literals. `None` when a regex cannot be
/// narrowed (infinite or empty sequence, an empty literal, non-UTF-8 bytes,
/// a literal without a piece). Pieces are cut at every byte `keep` refuses
/// and at every non-ASCII character.
fn regex_alternatives(
    res: &[crate::hooks::rules::Pattern],
    keep: fn(u8) -> bool,
) -> Option<Vec<Vec<String>>> {
    use regex_syntax::hir::literal::Extractor;
    let mut out = Vec::new();
    for r in res {
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(r.as_str())
            .ok()?;
        let seq = Extractor::new().extract(&hir);
        let lits = seq.literals()?;
        if lits.is_empty() {
            return None;
        }
        for lit in lits {
            let text = std::str::from_utf8(lit.as_bytes()).ok()?;
            let pieces: Vec<String> = text
                .split(|c: char| !c.is_ascii() || !keep(c as u8))
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect();
            if pieces.is_empty() {
                return None;
            }
            out.push(pieces);
        }
    }
    Some(out)
}

/// One alternative of a [`LineFilter`] group: pieces that must all occur.
type Alternative = Vec<memchr::memmem::Finder<'static>>;

/// The bytes after which a shell's words are no longer the bytes of the
/// command as written: quotes (`'`, and `"`, which a JSON string holds as
/// `\"`), escapes (`\`), expansions (`$`, `` ` ``). A command without any
/// of them has the words it is written with.
const SHELL_REWRITES: &[u8] = b"'\\$`";

/// What a [`LineFilter`] group is tested on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum On {
    /// The `tool_use` block's `name`.
    Name,
    /// The block's `input`, as is (`input_contains`).
    Input,
    /// The block's `input` as a shell would read it (`command`): the
    /// group also holds wherever a byte of [`SHELL_REWRITES`] occurs.
    Command,
}

/// The line-level prefilter of a backtest (`find`'s idea):
/// which `tool_use` lines can hold a call one of the rules acts on.
///
/// A rule is narrowed when it names only call events (PreToolUse,
/// PermissionRequest, PostToolUse, PostToolUseFailure), whose payloads carry
/// the recorded `tool_use` block's `name` and `input`, and has at least one
/// needle; the firings of a call event only narrowed rules name are
/// restricted to the candidate calls, every other rule keeps its events
/// whole ([`LineFilter::rest`]). A rule's needles, each a group of
/// alternatives one of which must occur in the call's block:
/// * its `tool` spec: one of [`expand_tool_names`] (as [`could_match`]
///   explains, one of them is a substring of the block's `name`);
/// * an `only_if` `input_contains` whose values are all plain
///   ([`is_plain`]): one of the values, as is (a substring of a string of
///   the recorded input, which Claude Code's writer escapes only at `"`,
///   `\` and control characters);
/// * an `only_if` `command` whose regexes all narrow: a literal every
///   match starts with (regex-syntax's prefix extraction), cut into pieces
///   at every character outside `[A-Za-z0-9_@%+=:,./-]` (so a piece lies in
///   one word even of a command joined from a Codex argv), all pieces of one
///   of the literals. A `command` regex is also tested against the words the
///   shell makes of the command (quotes and escapes removed: `r''m` is the
///   program `rm`), so this group also holds wherever the text has a
///   character that quotes, escapes or expands (`'`, `\`,
///   which JSON writes before every `"`, `$` and `` ` ``): only a command
///   written without them has its words as they are in the bytes.
/// * an `only_if` `program` whose names are all made of those characters
///   (`git`, not `g'it`): one of the names, as is, held the same way (a
///   program is the last `/` part of a call's first word, after `sudo`,
///   `env`, `xargs` and the other wrappers, so where the words are as
///   written its name is in the text).
///
/// A *candidate* line holds the JSON string `"tool_use"` (the block's
/// `type`) and, for some rule, one alternative of each of its groups
/// (byte-exact, case-sensitive; a case-insensitive regex extracts its case
/// variants, or does not narrow). A candidate line is parsed, and a
/// *candidate call* is one of its `tool_use` blocks whose `name` holds a
/// tool-name alternative and whose `input` (re-serialized) the other groups'
/// (so `"gitBranch"` in the line's envelope does not make every call a
/// candidate for `git`). Only the candidate calls are rebuilt and
/// evaluated; a session without one is skipped unloaded. Other conditions
/// (`file_path`, history, …) never narrow. A file whose bytes hold a `\u`
/// escape of plain ASCII is not narrowed (as for [`SessionFilter`]). Not
/// covered: a writer that writes `/` as `\/` (Claude Code does not).
#[derive(Debug, Clone)]
pub struct LineFilter {
    /// The narrowed rules, in the set's order.
    rules: Vec<NarrowedRule>,
    /// The call events only narrowed rules name.
    events: Vec<EventName>,
    /// The rules that cannot be narrowed.
    rest: RuleSet,
    /// Their places in the rule set.
    rest_ids: Vec<usize>,
    tool_use: memchr::memmem::Finder<'static>,
}

impl LineFilter {
    /// The filter for `rules`: the rules that can be narrowed (see the
    /// type's docs) give the needles; the others are kept whole
    /// ([`LineFilter::rest`]). `None` when no event is named only by
    /// narrowed rules (then the backtest loads every session [`could_match`]
    /// lets through and evaluates all its events).
    pub fn new(rules: &RuleSet) -> Option<LineFilter> {
        let finder = |s: &str| memchr::memmem::Finder::new(s.as_bytes()).into_owned();
        let mut narrowed = Vec::new();
        let mut rest = RuleSet::default();
        let mut rest_ids = Vec::new();
        for (i, r) in rules.rules.iter().enumerate() {
            let mut groups: Vec<(On, Vec<Alternative>)> = Vec::new();
            if let Some(spec) = &r.tool {
                groups.push((
                    On::Name,
                    expand_tool_names(spec)
                        .iter()
                        .map(|n| vec![finder(n)])
                        .collect(),
                ));
            }
            for c in &r.only_if {
                match c {
                    Condition::InputContains(values) if values.iter().all(|v| is_plain(v)) => {
                        groups.push((On::Input, values.iter().map(|v| vec![finder(v)]).collect()));
                    }
                    Condition::Command(res) => {
                        if let Some(alts) = regex_alternatives(res, shell_safe) {
                            groups.push((
                                On::Command,
                                alts.iter()
                                    .map(|pieces| pieces.iter().map(|p| finder(p)).collect())
                                    .collect(),
                            ));
                        }
                    }
                    // The program's name is the last `/` part of one word:
                    // where the shell leaves the words as written, the
                    // name itself is in the bytes.
                    Condition::Program(names)
                        if names
                            .iter()
                            .all(|n| !n.is_empty() && n.bytes().all(shell_safe)) =>
                    {
                        groups.push((On::Command, names.iter().map(|n| vec![finder(n)]).collect()));
                    }
                    _ => {}
                }
            }
            let calls_only =
                !r.events.is_empty() && r.events.iter().all(|e| CALL_EVENTS.contains(&e.as_str()));
            // A condition tested on the call itself narrows even without
            // a needle (`file_path = "*.lock"` on any tool).
            let block_test = block_tested(r);
            if calls_only && (!groups.is_empty() || block_test) {
                narrowed.push(NarrowedRule {
                    id: i,
                    rule: r.clone(),
                    groups,
                    block_test,
                });
            } else {
                rest.rules.push(r.clone());
                rest_ids.push(i);
            }
        }
        let events: Vec<EventName> = EventName::ALL
            .iter()
            .copied()
            .filter(|e| CALL_EVENTS.contains(&e.as_str()))
            .filter(|e| {
                let named =
                    |r: &crate::hooks::rules::Rule| r.events.iter().any(|n| n == e.as_str());
                narrowed.iter().any(|n| named(&n.rule)) && !rest.rules.iter().any(named)
            })
            .collect();
        if events.is_empty() {
            return None;
        }
        Some(LineFilter {
            rules: narrowed,
            events,
            rest,
            rest_ids,
            tool_use: finder("\"tool_use\""),
        })
    }

    /// The name parts one of which a call's name holds when one of its
    /// `tool_use` lines can be a candidate (each narrowed rule's tool
    /// names, [`expand_tool_names`]); `None` when a narrowed rule names no
    /// tool (any call may then be one).
    pub fn call_names(&self) -> Option<std::collections::BTreeSet<String>> {
        let mut out = std::collections::BTreeSet::new();
        for n in &self.rules {
            out.extend(expand_tool_names(n.rule.tool.as_deref()?));
        }
        Some(out)
    }

    /// The rules that cannot be narrowed (their events are evaluated at
    /// every firing, and a session is skipped only when [`could_match`]
    /// rules them out too).
    pub fn rest(&self) -> &RuleSet {
        &self.rest
    }

    /// Whether a rule the filter leaves whole ([`LineFilter::rest`]) may
    /// match in a session where `possible` (per rule of the set) holds.
    fn rest_may(&self, possible: &[bool]) -> bool {
        self.rest_ids
            .iter()
            .any(|&i| possible.get(i).copied().unwrap_or(true))
    }

    /// Whether the firings of `event` are narrowed to the candidate calls
    /// (only narrowed rules name it).
    pub fn narrows(&self, event: EventName) -> bool {
        self.events.contains(&event)
    }

    /// Whether some rule's groups all hold, each in `name` or `input`.
    fn holds(&self, name: &[u8], input: &[u8]) -> bool {
        self.rules
            .iter()
            .any(|n| Self::groups_hold(&n.groups, name, &|| input))
    }

    /// Whether every one of a rule's `groups` holds, each in `name` or
    /// `input` (asked only when a group reads it).
    fn groups_hold<'i>(
        groups: &[(On, Vec<Alternative>)],
        name: &[u8],
        input: &dyn Fn() -> &'i [u8],
    ) -> bool {
        groups.iter().all(|(on, alts)| {
            let hay = if *on == On::Name { name } else { input() };
            (*on == On::Command && hay.iter().any(|b| SHELL_REWRITES.contains(b)))
                || Self::alternative_holds(alts, hay)
        })
    }

    /// Whether one of `alts` has all its pieces in `hay`.
    fn alternative_holds(alts: &[Alternative], hay: &[u8]) -> bool {
        alts.iter()
            .any(|pieces| pieces.iter().all(|f| f.find(hay).is_some()))
    }

    /// Whether the call named `name` with input `input` (`input_text`: it
    /// as compact JSON) is a candidate: for some narrowed rule, each group
    /// holds ([`Self::holds`]) and the rule may match a payload of the call
    /// ([`crate::hooks::rules::Rule::may_match_call`], on a subject built
    /// from the call's name and input alone, with the rule's first event).
    ///
    /// `possible` (per rule of the whole set) leaves out the rules already
    /// known not to match in the session.
    fn candidate(&self, name: &str, input: Option<&Value>, possible: Option<&[bool]>) -> bool {
        let history = History::default();
        // Re-serialized once, when a group reads it.
        let text = std::cell::OnceCell::new();
        let input_text = || -> &[u8] {
            text.get_or_init(|| input.map(Value::to_string).unwrap_or_default())
                .as_bytes()
        };
        let mut subjects: Vec<(Value, &str)> = Vec::new();
        self.rules.iter().any(|n| {
            if possible.is_some_and(|p| !p.get(n.id).copied().unwrap_or(true)) {
                return false;
            }
            if !Self::groups_hold(&n.groups, name.as_bytes(), &input_text) {
                return false;
            }
            if !n.block_test {
                return true;
            }
            let Some(event) = n.rule.events.first().map(EventKey::as_str) else {
                return false;
            };
            if !subjects.iter().any(|(_, e)| *e == event) {
                subjects.push((
                    serde_json::json!({
                        "hook_event_name": event,
                        "tool_name": name,
                        "tool_input": input.cloned().unwrap_or_else(|| serde_json::json!({})),
                    }),
                    event,
                ));
            }
            subjects
                .iter()
                .find(|(_, e)| *e == event)
                .is_none_or(|(payload, _)| n.rule.may_match_call(&Subject::new(payload, &history)))
        })
    }

    /// Adds the `tool_use` block ids of one candidate line's candidate
    /// calls to `ids`, reading only the line's `message.content` blocks
    /// (the rest of the line is checked for syntax, not built): each
    /// `tool_use` block with an `id` whose `name` is not a string (the
    /// loader decides), or that [`Self::candidate`] accepts on its `name`
    /// and `input`; the `input` is parsed only when a rule's name group
    /// holds. `None` when the line is not a JSON object of unique members,
    /// or a block's `input` does not parse: the caller then reads the
    /// session whole.
    fn line_candidates(
        &self,
        line: &[u8],
        ids: &mut HashSet<String>,
        possible: Option<&[bool]>,
    ) -> Option<()> {
        let parsed: LineOf<'_> = serde_json::from_slice(line).ok()?;
        let Some(message) = parsed.message.filter(|m| opens_with(m, '{')) else {
            return Some(());
        };
        let message: MessageOf<'_> = serde_json::from_str(message.get()).ok()?;
        let Some(content) = message.content.filter(|c| opens_with(c, '[')) else {
            return Some(());
        };
        let blocks: Vec<&serde_json::value::RawValue> = serde_json::from_str(content.get()).ok()?;
        for b in blocks.into_iter().filter(|b| opens_with(b, '{')) {
            let b: BlockOf<'_> = serde_json::from_str(b.get()).ok()?;
            if raw_str(b.kind).as_deref() != Some("tool_use") {
                continue;
            }
            let Some(id) = raw_str(b.id) else {
                continue;
            };
            // Then on the block itself: the name groups on its `name`,
            // the others on its `input` re-serialized (serde_json escapes
            // only `"`, `\` and control characters, none of which a needle
            // holds), so the envelope (`cwd`, `gitBranch`, …) cannot make a
            // call a candidate. A block whose name is not a string is kept
            // (the loader decides).
            let Some(name) = raw_str(b.name) else {
                ids.insert(id.into_owned());
                continue;
            };
            if !self.rules.iter().any(|n| {
                n.groups
                    .iter()
                    .filter(|(on, _)| *on == On::Name)
                    .all(|(_, alts)| Self::alternative_holds(alts, name.as_bytes()))
            }) {
                continue;
            }
            let input: Option<Value> = match b.input {
                Some(raw) => Some(serde_json::from_str(raw.get()).ok()?),
                None => None,
            };
            if self.candidate(&name, input.as_ref(), possible) {
                ids.insert(id.into_owned());
            }
        }
        Some(())
    }

    /// Adds the `tool_use_id` of each candidate call of a loaded `session`
    /// (main thread and subagents) to `ids`: the test [`Self::candidate_ids`]
    /// makes on a candidate line's blocks, made on each call's recorded
    /// name and `input` (re-serialized), with no line to parse again and no
    /// escape to guard against (the input is decoded).
    /// Only the rules `possible` (per rule of the set; `None`: all) lets
    /// match in the session are asked.
    fn candidate_calls(
        &self,
        session: &Session,
        ids: &mut HashSet<String>,
        possible: Option<&[bool]>,
    ) {
        for (_, rec) in session.all_tool_calls() {
            if self.candidate(rec.call.name(), rec.call.raw(), possible) {
                ids.insert(rec.tool_use_id.clone());
            }
        }
    }

    /// Adds the `tool_use` block ids of `file`'s candidate lines to `ids`.
    /// `false` when a candidate line does not parse as a JSON object (a
    /// truncated line, bad bytes): the caller then evaluates the whole
    /// session, as without the filter.
    /// Also `false` when `file` holds a `\u` escape of plain ASCII, which may
    /// hide the `"tool_use"` token or a needle.
    pub fn candidate_ids(&self, file: &[u8], ids: &mut HashSet<String>) -> bool {
        self.candidate_ids_of(file, ids, None)
    }

    /// [`Self::candidate_ids`] for the rules `possible` (per rule of the
    /// set; `None`: all) lets match in the session.
    fn candidate_ids_of(
        &self,
        file: &[u8],
        ids: &mut HashSet<String>,
        possible: Option<&[bool]>,
    ) -> bool {
        if crate::query::prefilter::has_escaped_ascii(file) {
            return false;
        }
        let mut ok = true;
        let mut next_start = 0;
        for hit in self.tool_use.find_iter(file) {
            if hit < next_start {
                continue; // same line as the previous hit
            }
            let start = memchr::memrchr(b'\n', &file[..hit]).map_or(0, |i| i + 1);
            let end = memchr::memchr(b'\n', &file[hit..]).map_or(file.len(), |i| hit + i);
            next_start = end;
            let line = &file[start..end];
            // Quick reject: every group somewhere on the line.
            if !self.holds(line, line) {
                continue;
            }
            match self.line_candidates(line, ids, possible) {
                Some(()) => {}
                None => ok = false,
            }
        }
        ok
    }
}

/// The members of a transcript line [`LineFilter::line_candidates`] reads
/// (every other member is skipped unparsed, its syntax still checked).
#[derive(serde::Deserialize)]
struct LineOf<'a> {
    #[serde(borrow)]
    message: Option<&'a serde_json::value::RawValue>,
}

/// The members of a line's `message` read for its blocks.
#[derive(serde::Deserialize)]
struct MessageOf<'a> {
    #[serde(borrow)]
    content: Option<&'a serde_json::value::RawValue>,
}

/// The members of a content block read for a `tool_use`.
#[derive(serde::Deserialize)]
struct BlockOf<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    id: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    name: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    input: Option<&'a serde_json::value::RawValue>,
}

/// The JSON string `raw` holds, `None` when it holds another value.
fn raw_str(raw: Option<&serde_json::value::RawValue>) -> Option<std::borrow::Cow<'_, str>> {
    raw.filter(|r| r.get().starts_with('"'))
        .and_then(|r| serde_json::from_str(r.get()).ok())
}

/// What a raw JSON value opens with (`{`, `[`, …).
fn opens_with(raw: &serde_json::value::RawValue, c: char) -> bool {
    raw.get().starts_with(c)
}

/// How [`backtest_refs_with`] narrows its work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefilter {
    /// [`could_match`] on each session's bytes, then (when the rules allow
    /// it) the [`LineFilter`]: the default.
    On,
    /// Load every session and evaluate all its events (the reference the
    /// prefilter is tested against).
    Off,
}

/// Backtests discovered sessions in parallel (rayon) with the prefilters
/// on; see [`backtest_refs_with`].
pub fn backtest_refs(
    sessions: &[SessionRef],
    rules: &RuleSet,
    progress: &(dyn Fn(usize) + Sync),
) -> Backtest {
    backtest_refs_with(sessions, rules, progress, Prefilter::On)
}

/// Backtests discovered sessions in parallel (rayon), those whose hook
/// payloads are rebuilt only ([`crate::hooks::events::rebuilds`]: Claude
/// Code and Droid; the others are counted in [`Backtest::left_out`]). Each
/// session's files (main transcript and subagent files, read in pieces of
/// at most [`crate::hooks::events::MAX_FILE_BYTES`] cut at line ends) are
/// first scanned by [`SessionFilter`] and [`LineFilter`]; a session no
/// rule can match is counted in [`Backtest::skipped`] without being
/// loaded. A session with an unreadable file or a line longer than a
/// piece is loaded without the scan (one the loader cannot load is
/// counted in [`Backtest::unreadable`] and named in
/// [`Backtest::unreadable_files`]). Results are merged in the
/// order of `sessions`, so the examples do not depend on thread timing.
/// `progress` is called with the number of sessions done after each one
/// (from any thread). With [`Prefilter::On`] the tallies, examples and
/// `sessions`/`unreadable` are those of [`Prefilter::Off`]; `skipped` and
/// `events` say how much work was saved.
pub fn backtest_refs_with(
    sessions: &[SessionRef],
    rules: &RuleSet,
    progress: &(dyn Fn(usize) + Sync),
    prefilter: Prefilter,
) -> Backtest {
    backtest_refs_known(sessions, rules, progress, prefilter, &|_| None)
}

/// [`backtest_refs`] knowing, per session `i`, what the persisted index
/// says of each rule there (`possible(i)`: per rule, in order, whether it
/// may match an event of the session; `None`: nothing known;
/// `crate::service::Library::backtest_synced`). A rule it rules out is
/// not evaluated there (as if the session's bytes lacked its needles), and
/// a session where it rules out every rule is counted skipped unread.
/// `possible` is asked on the worker that takes the session, right before
/// it would be read, so the index's answers overlap the reading of other
/// sessions. Tallies, examples and `sessions` are those of
/// [`backtest_refs`] when `possible` is right; `skipped` may be higher and
/// `evaluated` lower.
pub fn backtest_refs_knowing(
    sessions: &[SessionRef],
    rules: &RuleSet,
    progress: &(dyn Fn(usize) + Sync),
    possible: &(dyn Fn(usize) -> Option<Known> + Sync),
) -> Backtest {
    backtest_refs_known(sessions, rules, progress, Prefilter::On, possible)
}

fn backtest_refs_known(
    sessions: &[SessionRef],
    rules: &RuleSet,
    progress: &(dyn Fn(usize) + Sync),
    prefilter: Prefilter,
    possible: &(dyn Fn(usize) -> Option<Known> + Sync),
) -> Backtest {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let done = AtomicUsize::new(0);
    let claude: Vec<(usize, &SessionRef)> = sessions
        .iter()
        .enumerate()
        .filter(|(_, s)| crate::hooks::events::rebuilds(s.agent))
        .collect();
    let filters = match prefilter {
        Prefilter::On => Prefilters::new(rules),
        Prefilter::Off => Prefilters {
            sessions: None,
            lines: None,
        },
    };
    let mut total = Backtest::new(rules);
    for s in sessions
        .iter()
        .filter(|s| !crate::hooks::events::rebuilds(s.agent))
    {
        *total
            .left_out
            .entry(s.agent.as_str().to_string())
            .or_default() += 1;
    }
    // In chunks, merged in order and capped after each, so the examples
    // held at once stay bounded ([`KEPT_EXAMPLES`]) whatever the corpus.
    for chunk in claude.chunks(1024) {
        let parts: Vec<Backtest> = chunk
            .par_iter()
            .map(|&(i, r)| {
                let known = match prefilter {
                    Prefilter::On => possible(i),
                    Prefilter::Off => None,
                };
                let mut bt = filters.backtest_knowing(r, rules, known.as_ref());
                bt.cap_examples(KEPT_EXAMPLES);
                progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                bt
            })
            .collect();
        for part in parts {
            total.merge(part);
        }
        total.cap_examples(KEPT_EXAMPLES);
    }
    total
}

/// A rule set's prefilters ([`SessionFilter`], [`LineFilter`]) built
/// once, for a caller that backtests sessions one at a time (the TUI's
/// list, which shows each session's matches as it goes): building them
/// compiles the rules' literal regexes, which [`backtest_refs`] does once
/// per call.
#[derive(Debug, Clone)]
pub struct Prefilters {
    /// `None`: [`Prefilter::Off`] (every session loaded whole).
    sessions: Option<SessionFilter>,
    lines: Option<LineFilter>,
}

impl Prefilters {
    /// The prefilters of `rules` ([`Prefilter::On`]).
    pub fn new(rules: &RuleSet) -> Prefilters {
        Prefilters {
            sessions: Some(SessionFilter::new(rules)),
            lines: LineFilter::new(rules),
        }
    }

    /// Session `r` through `rules` (the set these were built from), equal
    /// to [`backtest_refs`] of `r` alone: a session of an agent whose
    /// payloads are not rebuilt is counted in [`Backtest::left_out`], the
    /// examples are capped at [`KEPT_EXAMPLES`].
    pub fn backtest(&self, r: &SessionRef, rules: &RuleSet) -> Backtest {
        self.backtest_knowing(r, rules, None)
    }

    /// [`Prefilters::backtest`] knowing, per rule, whether it may match an
    /// event of `r` (`known`, from the persisted index: a rule it rules out
    /// is not evaluated there, and a session where it rules out every rule
    /// is counted skipped unread; [`backtest_refs_knowing`]). With
    /// [`Prefilter::Off`] filters it is not used.
    pub fn backtest_knowing(
        &self,
        r: &SessionRef,
        rules: &RuleSet,
        known: Option<&Known>,
    ) -> Backtest {
        if !crate::hooks::events::rebuilds(r.agent) {
            let mut bt = Backtest::new(rules);
            bt.left_out.insert(r.agent.as_str().to_string(), 1);
            return bt;
        }
        let mut bt = backtest_ref(r, rules, self.sessions.as_ref(), self.lines.as_ref(), known);
        bt.cap_examples(KEPT_EXAMPLES);
        bt
    }
}

/// One session of [`Prefilters::backtest`]: prefilter (`sessions`: none
/// with [`Prefilter::Off`]), load, tally.
///
/// The files are read once for the needles ([`SessionFilter::find_in`]),
/// and, when a [`LineFilter`] applies, for its candidate calls: in the
/// same pass when every rule is narrowed; otherwise only when no rule of
/// [`LineFilter::rest`] can match there (the session may then be skipped
/// unloaded). A session that is loaded anyway takes its candidate calls
/// from the loaded calls ([`LineFilter::candidate_calls`]), not from its
/// lines parsed a second time.
fn backtest_ref(
    r: &SessionRef,
    rules: &RuleSet,
    sessions: Option<&SessionFilter>,
    lines: Option<&LineFilter>,
    known: Option<&Known>,
) -> Backtest {
    let mut bt = Backtest::new(rules);
    bt.sessions = 1;
    let call_lines = known.and_then(|k| k.call_lines.as_deref());
    let known = known.map(|k| k.possible.as_slice());
    if sessions.is_some() && known.is_some_and(|k| !k.contains(&true)) {
        bt.skipped = 1;
        return bt;
    }
    // How a loaded session's events are narrowed.
    enum Load<'a> {
        Whole,
        Possible(Vec<bool>),
        Lines(Vec<bool>, &'a LineFilter, &'a HashSet<String>),
        LoadedCalls(Vec<bool>, &'a LineFilter),
    }
    let load = |how: Load<'_>| match crate::transcript::load(r) {
        Ok(session) => {
            let mut from_calls = HashSet::new();
            let narrowed = match how {
                Load::Whole => None,
                Load::Possible(possible) => Some(Narrowed {
                    possible,
                    lines: None,
                }),
                Load::Lines(possible, filter, ids) => Some(Narrowed {
                    possible,
                    lines: Some((filter, ids)),
                }),
                Load::LoadedCalls(possible, filter) => {
                    filter.candidate_calls(&session, &mut from_calls, Some(&possible));
                    Some(Narrowed {
                        possible,
                        lines: Some((filter, &from_calls)),
                    })
                }
            };
            let mut bt = backtest_calls(&session, rules, narrowed.as_ref());
            if let Some(d) = session.diagnostics.first() {
                bt.with_diagnostics = 1;
                bt.diagnostics.push(d.to_string());
            }
            bt
        }
        Err(e) => {
            let mut bt = Backtest::new(rules);
            bt.sessions = 1;
            bt.unreadable = 1;
            bt.unreadable_files
                .push(format!("{}: {e}", r.path.display()));
            bt
        }
    };
    let Some(sessions) = sessions else {
        return load(Load::Whole);
    };
    // Once the candidate calls are known (`parsed`: every candidate line
    // could be read), they decide: none, skipped unread; else the session
    // loaded with only them rebuilt.
    let by_candidates = |possible: Vec<bool>, filter, parsed: bool, ids: &HashSet<String>| {
        if !parsed {
            return load(Load::Possible(possible));
        }
        if ids.is_empty() {
            let mut bt = Backtest::new(rules);
            bt.sessions = 1;
            bt.skipped = 1;
            return bt;
        }
        load(Load::Lines(possible, filter, ids))
    };
    // The index's answer and its calls' lines: when no rule the line
    // filter leaves whole may match, the candidates come from those lines
    // alone (no file is scanned; the byte filter, which only narrows, is
    // not needed to decide).
    if let (Some(possible), Some(filter), Some(call_lines)) = (known, lines, call_lines)
        && !filter.rest_may(possible)
    {
        let mut ids = HashSet::new();
        let mut files = std::collections::HashMap::new();
        let parsed = call_lines.iter().all(|(file, offset, len)| {
            crate::query::rows::read_line(&mut files, file, (*offset, *len))
                .is_some_and(|line| filter.candidate_ids_of(&line, &mut ids, Some(possible)))
        });
        drop(files);
        return by_candidates(possible.to_vec(), filter, parsed, &ids);
    }
    // Each file in pieces of at most MAX_FILE_BYTES cut at line ends (one
    // piece for all but a heavy user's biggest sessions). `false` for a
    // line longer than a piece, or a file the loader may still cope with
    // (a subagent file gone: a diagnostic): no prefilter, the loader
    // decides.
    let scan_files = |each: &mut dyn FnMut(&[u8])| {
        std::iter::once(&r.path).chain(&r.subagent_files).all(|p| {
            matches!(
                crate::transcript::fsread::scan_in_pieces(p, MAX_FILE_BYTES as usize, each),
                Ok(true)
            )
        })
    };
    // Which needles occur, and (every rule narrowed) the candidate calls
    // of its lines.
    let same_pass = lines.filter(|f| f.rest_ids.is_empty());
    let mut found = sessions.nothing_found();
    let mut ids = HashSet::new();
    let mut parsed = true;
    let scanned = scan_files(&mut |bytes| {
        sessions.find_in(bytes, &mut found);
        if let Some(filter) = same_pass {
            parsed &= filter.candidate_ids_of(bytes, &mut ids, known);
        }
    });
    if !scanned {
        return load(Load::Whole);
    }
    let mut possible = sessions.possible_given(&found);
    if let Some(known) = known {
        for (p, k) in possible.iter_mut().zip(known) {
            *p = *p && *k;
        }
    }
    if !possible.contains(&true) {
        bt.skipped = 1;
        return bt;
    }
    let Some(filter) = lines else {
        return load(Load::Possible(possible));
    };
    if filter.rest_may(&possible) {
        return load(Load::LoadedCalls(possible, filter));
    }
    // The candidate calls decide whether to load: read the lines.
    if same_pass.is_none()
        && !scan_files(&mut |bytes| {
            parsed &= filter.candidate_ids_of(bytes, &mut ids, Some(&possible))
        })
    {
        return load(Load::Whole);
    }
    by_candidates(possible, filter, parsed, &ids)
}
