//! Where each event fires in a session: the one walk that turns a
//! session into *points* (module docs of [`super`]): process starts and
//! ends, instructions loaded, compactions, prompts, every call's tool
//! events, subagents, tasks and Stops, each with its anchor line, the line
//! whose context it takes and its event-specific fields.

use super::*;
use std::borrow::Cow;

/// One event firing found in the session.
#[derive(Debug, Clone)]
pub(super) struct Point<'a> {
    pub(super) event: EventName,
    /// `None` main thread, `Some(i)` subagent `i`.
    pub(super) thread: Option<usize>,
    /// Anchor line in the thread's file.
    pub(super) line: usize,
    /// Position on the main thread (a subagent's points: its spawn's line).
    pub(super) main_line: usize,
    /// Index of the main-thread turn it belongs to.
    pub(super) turn: usize,
    /// Calls it concerns.
    pub(super) tool_use_ids: Vec<String>,
    /// The `tool_use` line (in `thread`'s file) of each call it concerns
    /// that is in its own thread, for a point built from one call: what
    /// tells apart calls that share a `tool_use_id` (empty for the others).
    pub(super) call_lines: Vec<usize>,
    /// The line whose context it takes (in `thread`'s file).
    pub(super) ctx_line: usize,
    /// Event-specific fields (their order does not matter: the contract's
    /// order is used). A call's `tool_input` and `tool_response` are
    /// borrowed from the session and copied only when a payload is
    /// rendered: a walk of a session of 40,000 calls no longer holds a copy
    /// of every input.
    pub(super) fields: Vec<(&'static str, Cow<'a, Value>)>,
    /// Event-specific fields known to be unknowable here, with the reason.
    pub(super) left_out: Vec<(&'static str, String)>,
    /// `prompt_id` is absent by the contract (a run before its first input).
    pub(super) no_prompt_id: bool,
    /// `agent_id`/`agent_type` of a subagent-internal event.
    pub(super) agent: Option<(Option<String>, Option<String>)>,
    /// The file before the call, as recorded ([`Payload::file_before`]).
    pub(super) file_before: Option<&'a str>,
}

impl<'a> Point<'a> {
    pub(super) fn new(
        event: EventName,
        thread: Option<usize>,
        line: usize,
        main_line: usize,
        turn: usize,
    ) -> Point<'a> {
        Point {
            event,
            thread,
            line,
            main_line,
            turn,
            tool_use_ids: Vec::new(),
            call_lines: Vec::new(),
            ctx_line: line,
            fields: Vec::new(),
            left_out: Vec::new(),
            no_prompt_id: false,
            agent: None,
            file_before: None,
        }
    }

    pub(super) fn field(self, key: &'static str, value: Value) -> Point<'a> {
        self.field_cow(key, Cow::Owned(value))
    }

    /// [`Point::field`] with a value borrowed from the session, or copied.
    pub(super) fn field_cow(mut self, key: &'static str, value: Cow<'a, Value>) -> Point<'a> {
        self.fields.push((key, value));
        self
    }

    pub(super) fn unknown(mut self, key: &'static str, reason: &str) -> Point<'a> {
        self.left_out.push((key, reason.to_string()));
        self
    }
}

pub(super) const LIVE_ONLY_DURATION: &str =
    "the tool's run time is measured by the live process and not written to the transcript";

/// Text of a prompt line as the hook sees it.
pub(super) fn is_local_command(turn: &Turn) -> bool {
    turn.prompt.trim_start().starts_with("<command-name>")
        && turn
            .events
            .iter()
            .any(|e| matches!(e, Event::Note { label, .. } if label == "command-output"))
}

/// State of one walk over a session: tasks created so far (id → subject,
/// description), and the subagents already walked.
#[derive(Default)]
pub(super) struct Walk {
    pub(super) tasks: HashMap<String, (String, Option<String>)>,
    pub(super) seen: std::collections::HashSet<usize>,
    /// The events the caller wants (`None`: all): a call's points of other
    /// events are not built, since each copies the call's `tool_input` (a
    /// PostToolUse rule set over a session of 40,000 calls held three
    /// copies of every input and two of every response).
    pub(super) wanted: Option<Vec<EventName>>,
}

impl Walk {
    /// Whether the caller wants points of `event`.
    pub(super) fn wants(&self, event: EventName) -> bool {
        self.wanted.as_ref().is_none_or(|w| w.contains(&event))
    }

    /// Whether the caller wants no event after a call ran (PostToolUse,
    /// PostToolUseFailure, PostToolBatch): their `tool_response` copies and
    /// the input that ran are then never read.
    pub(super) fn skip_post(&self) -> bool {
        !self.wants(EventName::PostToolUse)
            && !self.wants(EventName::PostToolUseFailure)
            && !self.wants(EventName::PostToolBatch)
    }
}

/// Walks the session into its points, in main-thread order (a Droid
/// session's: [`droid::points`]).
pub(super) fn points(session: &Session) -> Vec<Point<'_>> {
    points_for(session, None)
}

/// [`points`], or with `events` only the points of those events, in the
/// same order: a call's points of other events are not built, and without
/// PostToolUse, PostToolUseFailure or PostToolBatch among them nothing
/// after a call is read.
pub(super) fn points_for<'a>(session: &'a Session, events: Option<&[EventName]>) -> Vec<Point<'a>> {
    if session.agent == Agent::Droid {
        return droid::points(session);
    }
    let mut out = Vec::new();
    let lines = &session.lines;
    let first_line = lines.contexts.first().map_or(1, |c| c.line);
    let run_starts = process_starts(session, first_line);
    // Prompt lines ascend with the turns (the lead turn has none): the
    // turn of a line is the last one opened at or before it.
    let turn_of = |line: usize| -> usize {
        session
            .turns
            .partition_point(|t| t.prompt_line.is_none_or(|p| p <= line))
            .saturating_sub(1)
    };
    for (line, source) in &run_starts {
        let source = source.as_str();
        let mut p = Point::new(EventName::SessionStart, None, *line, *line, turn_of(*line))
            .field("source", json!(source));
        p.no_prompt_id = true;
        if source == "resume" {
            for f in [
                "seconds_since_last_response",
                "context_tokens",
                "prompt_cache_likely_expired",
                "estimated_cache_write_usd",
            ] {
                p = p.unknown(f, "known to the resuming process only (cache state, token count and idle time at resume)");
            }
        }
        out.push(p);
    }
    // Without any `cost-state` (versions that write none), the file's last
    // envelope line.
    let ends: Vec<usize> = if lines.run_ends.is_empty() {
        Some(lines.last_envelope)
            .filter(|&l| l > 0)
            .into_iter()
            .collect()
    } else {
        lines.run_ends.clone()
    };
    for &line in &ends {
        out.push(
            Point::new(EventName::SessionEnd, None, line, line, turn_of(line)).unknown(
                "reason",
                "why the session ended (exit, clear, logout, …) is not written to the transcript",
            ),
        );
    }
    // CwdChanged within a run.
    for pair in lines.contexts.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let crosses_run = any_between(&lines.run_ends, a.line, b.line);
        if let (Some(old), Some(new)) = (&a.cwd, &b.cwd)
            && old != new
            && !crosses_run
        {
            out.push(
                Point::new(EventName::CwdChanged, None, b.line, b.line, turn_of(b.line))
                    .field("old_cwd", json!(old))
                    .field("new_cwd", json!(new)),
            );
        }
    }
    instruction_points(session, &run_starts, &turn_of, &mut out);
    let mut walk = Walk {
        wanted: events.map(<[EventName]>::to_vec),
        ..Walk::default()
    };
    for (t, turn) in session.turns.iter().enumerate() {
        let local = is_local_command(turn);
        if let Some(line) = turn.prompt_line
            && !local
        {
            out.push(
                Point::new(EventName::UserPromptSubmit, None, line, line, t)
                    .field("prompt", json!(turn.prompt)),
            );
        }
        thread_points(session, None, turn, t, None, &mut walk, &mut out);
        if turn.prompt_line.is_some() && !local {
            stop_points(session, None, turn, t, &mut out);
        }
        for event in &turn.events {
            if let Event::Compaction {
                trigger: Some(trigger),
                line,
                ..
            } = event
            {
                compaction_points(session, turn, t, trigger, *line, &mut out);
            }
        }
    }
    if let Some(events) = events {
        out.retain(|p| events.contains(&p.event));
    }
    out.sort_by_key(|p| p.main_line);
    out
}

/// Where each process that wrote the main file started, with its
/// SessionStart `source` (docs/formats.md#one-file-several-processes):
/// the file's first envelope line (`startup`), and the first envelope line
/// after each `cost-state` line (`resume`: that line ends a process). A
/// SessionStart hook record (`hookName` `SessionStart:<source>`, not
/// `compact`, which compaction points give) names the source of the
/// process it is in; one that follows a prompt or a model answer of that
/// process marks a process that started without the previous one writing
/// its `cost-state` (killed), there.
pub(super) fn process_starts(session: &Session, first_line: usize) -> Vec<(usize, String)> {
    let lines = &session.lines;
    let mut starts: std::collections::BTreeMap<usize, &'static str> =
        std::iter::once((first_line, "startup"))
            .chain(lines.run_starts.iter().map(|&l| (l, "resume")))
            .collect();
    // Where the session did something a process start precedes: prompts
    // and the model's answers, sorted.
    let mut done: Vec<usize> = session
        .turns
        .iter()
        .flat_map(|t| {
            t.prompt_line.into_iter().chain(
                t.events
                    .iter()
                    .filter(|e| matches!(e, Event::Text { .. } | Event::ToolCall(_)))
                    .map(Event::line),
            )
        })
        .collect();
    done.sort_unstable();
    for h in &lines.hook_activity {
        // Only the sources Claude Code names (the text is the transcript's).
        let Some(source) = h
            .hook_name
            .as_deref()
            .and_then(|n| n.strip_prefix("SessionStart:"))
            .and_then(|s| {
                ["startup", "resume", "clear", "fork"]
                    .into_iter()
                    .find(|k| *k == s)
            })
        else {
            continue;
        };
        let at = h.line();
        let Some((&start, _)) = starts.range(..=at).next_back() else {
            continue;
        };
        if any_between(&done, start, at) {
            starts.insert(at, source);
        } else {
            starts.insert(start, source);
        }
    }
    starts
        .into_iter()
        .map(|(l, s)| (l, s.to_string()))
        .collect()
}

/// Whether `sorted` (ascending) holds a line strictly between `from` and
/// `to`.
pub(super) fn any_between(sorted: &[usize], from: usize, to: usize) -> bool {
    let i = sorted.partition_point(|&l| l <= from);
    sorted.get(i).is_some_and(|&l| l < to)
}

/// InstructionsLoaded per file of each `instructions` attachment. The load
/// reason is `session_start` when the model has not answered yet in the run
/// (no assistant text or call since the run began); other reasons (nested
/// traversal, path glob, include, compact) are not told apart, so left out.
///
/// Every process loads its instructions when it starts, but Claude Code
/// writes the attachment only when they enter the conversation (a resumed
/// process carries them over and writes none): a process start
/// (`run_starts`, [`process_starts`]) whose run has no attachment before its
/// first answer gets the files of the latest attachment before it, with
/// `session_start` (docs/hooks-payloads.md "InstructionsLoaded").
pub(super) fn instruction_points<'a>(
    session: &'a Session,
    run_starts: &[(usize, String)],
    turn_of: &dyn Fn(usize) -> usize,
    out: &mut Vec<Point<'a>>,
) {
    let lines = &session.lines;
    // The model's answers (text, calls), sorted.
    let mut answers: Vec<usize> = session
        .turns
        .iter()
        .flat_map(|t| &t.events)
        .filter(|e| matches!(e, Event::Text { .. } | Event::ToolCall(_)))
        .map(Event::line)
        .collect();
    answers.sort_unstable();
    let answered_between = |from: usize, to: usize| any_between(&answers, from, to);
    let push = |line: usize,
                anchor: usize,
                files: &Value,
                answered: bool,
                out: &mut Vec<Point<'a>>| {
        for file in files.as_array().into_iter().flatten() {
            let mut p = Point::new(
                EventName::InstructionsLoaded,
                None,
                anchor,
                anchor,
                turn_of(anchor),
            );
            p.ctx_line = line.max(anchor);
            p = match file.get("path").and_then(Value::as_str) {
                Some(path) => p.field("file_path", json!(path)),
                None => p.unknown("file_path", "the instructions attachment names no path"),
            };
            p = match file.get("type").and_then(Value::as_str) {
                Some(t) => p.field("memory_type", json!(t)),
                None => p.unknown("memory_type", "the instructions attachment gives no type"),
            };
            p = if answered {
                p.unknown("load_reason", "loaded mid-run; why (nested traversal, path glob, include, compact) is not recorded")
            } else {
                p.field("load_reason", json!("session_start"))
            };
            out.push(p);
        }
    };
    for (line, files) in &lines.instructions {
        // `run_ends` is in line order: the last one before the attachment.
        let run_start = lines
            .run_ends
            .partition_point(|e| e < line)
            .checked_sub(1)
            .and_then(|k| lines.run_ends.get(k))
            .copied()
            .unwrap_or(0);
        push(*line, *line, files, answered_between(run_start, *line), out);
    }
    // Process starts whose run writes no attachment before answering.
    for (k, (start, _)) in run_starts.iter().enumerate() {
        let end = run_starts.get(k + 1).map_or(usize::MAX, |(l, _)| *l);
        let i = answers.partition_point(|&l| l <= *start);
        let first_answer = answers.get(i).copied().filter(|&l| l < end).unwrap_or(end);
        let j = lines.instructions.partition_point(|(l, _)| *l < *start);
        let own = lines
            .instructions
            .get(j)
            .is_some_and(|(l, _)| *l < first_answer);
        if own {
            continue;
        }
        if let Some((line, files)) = j.checked_sub(1).and_then(|j| lines.instructions.get(j)) {
            push(*line, *start, files, false, out);
        }
    }
}

/// PreCompact, PostCompact and SessionStart(compact) at a boundary line.
pub(super) fn compaction_points<'a>(
    session: &'a Session,
    turn: &'a Turn,
    t: usize,
    trigger: &str,
    line: usize,
    out: &mut Vec<Point<'a>>,
) {
    // The turn holding the boundary holds the summary and the command.
    let summary = turn.events.iter().find_map(|e| match e {
        Event::Compaction {
            trigger: None,
            text,
            line: l,
            ..
        } if *l > line => Some((text.clone(), *l)),
        _ => None,
    });
    let ctx_line = summary.as_ref().map_or(line, |(_, l)| *l);
    let custom = if trigger == "auto" {
        Some(String::new())
    } else {
        session
            .turns
            .iter()
            .filter(|t| t.prompt_line.is_some_and(|p| p > line))
            .chain(std::iter::once(turn))
            .find_map(|t| {
                tag_text(&t.prompt, "command-args")
                    .filter(|_| t.prompt.contains("<command-name>/compact"))
            })
    };
    let mut pre =
        Point::new(EventName::PreCompact, None, line, line, t).field("trigger", json!(trigger));
    pre.ctx_line = ctx_line;
    pre = match custom {
        Some(c) => pre.field("custom_instructions", json!(c)),
        None => pre.unknown(
            "custom_instructions",
            "no /compact command line recorded next to the boundary",
        ),
    };
    let mut post =
        Point::new(EventName::PostCompact, None, line, line, t).field("trigger", json!(trigger));
    post.ctx_line = ctx_line;
    post = match summary.as_ref().map(|(text, _)| compact_summary(text)) {
        Some(s) => post.field("compact_summary", json!(s)),
        None => post.unknown(
            "compact_summary",
            "no isCompactSummary line after the boundary",
        ),
    };
    let mut start =
        Point::new(EventName::SessionStart, None, line, line, t).field("source", json!("compact"));
    start.ctx_line = ctx_line;
    start = match session.models.as_slice() {
        [only] => start.field("model", json!(only)),
        _ => start.unknown(
            "model",
            "the session used several models and the one in force is not tracked per line",
        ),
    };
    out.extend([pre, post, start]);
}

/// The summary as the transcript keeps it: the `isCompactSummary` text
/// without the framing Claude Code wraps around it ("This session is being
/// continued … conversation.\n\n" and a `<system-reminder>` before, the
/// "If you need specific details …" paragraphs after), when the framing is
/// recognised. Claude Code 2.1.332 rewrites the model's summary before
/// storing it (drops `<analysis>`, turns `<summary>` into `Summary:`), so
/// this differs from the hook's `compact_summary` (docs/payloads.md "Hook payloads").
pub(super) fn compact_summary(text: &str) -> String {
    const LEAD: &str = "covers the earlier portion of the conversation.\n\n";
    let body = text.find(LEAD).map_or(text, |i| &text[i + LEAD.len()..]);
    let body = match body.strip_prefix("<system-reminder>") {
        Some(rest) => rest
            .find("</system-reminder>\n")
            .map_or(body, |i| &rest[i + "</system-reminder>\n".len()..]),
        None => body,
    };
    let body = body
        .find("\n\nIf you need specific details from before compaction")
        .map_or(body, |i| &body[..i]);
    body.to_string()
}

/// The text between `<tag>` and `</tag>`, trimmed.
pub(super) fn tag_text(text: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    Some(text[start..end].trim().to_string())
}

/// Whether a result is a denial rather than a tool failure.
pub(super) fn denied(lines: &LineIndex, id: &str) -> bool {
    lines
        .permission_decisions
        .get(id)
        .and_then(|d| d.get("decision"))
        .and_then(Value::as_str)
        == Some("reject")
}

/// Whether the call's permission decision came from a prompt (so
/// PermissionRequest fired): a decision without `reasonType` whose source is
/// not a hook and whose `reasonCode` does not name one (2.1.332:
/// `{"decision":"reject","source":"config","reasonCode":"unknown"}` for a
/// `-p` run; rule/mode decisions carry `reasonType`; a PreToolUse `ask` that
/// `-p` cannot put to anyone is `{"decision":"reject","source":"config",
/// "reasonCode":"hook:PreToolUse"}`, and no PermissionRequest fires).
pub(super) fn prompted(lines: &LineIndex, id: &str) -> bool {
    lines.permission_decisions.get(id).is_some_and(|d| {
        d.get("reasonType").is_none()
            && d.get("source").and_then(Value::as_str) != Some("hook")
            && !d
                .get("reasonCode")
                .and_then(Value::as_str)
                .is_some_and(|c| c.starts_with("hook:"))
    })
}

/// Tool, batch, task and subagent points of one turn of a thread.
pub(super) fn thread_points<'a>(
    session: &'a Session,
    thread: Option<usize>,
    turn: &'a Turn,
    t: usize,
    spawn_line: Option<usize>,
    walk: &mut Walk,
    out: &mut Vec<Point<'a>>,
) {
    let lines = thread_lines(session, thread);
    let agent = thread
        .and_then(|i| session.subagents.get(i))
        .map(|sub| (sub.agent_id.clone(), sub.agent_type.clone()));
    let calls: Vec<&ToolCallRecord> = turn.tool_calls().collect();
    let main_line = |line: usize| spawn_line.unwrap_or(line);
    let mut i = 0;
    while i < calls.len() {
        // One assistant message's calls form a batch.
        let mut j = i + 1;
        while j < calls.len()
            && calls[j].message_id.is_some()
            && calls[j].message_id == calls[i].message_id
        {
            j += 1;
        }
        let batch = &calls[i..j];
        for record in batch {
            for mut p in call_points(
                session,
                thread,
                lines,
                record,
                t,
                main_line(record.line),
                walk,
            ) {
                p.agent = agent.clone();
                out.push(p);
            }
            if let Some(sub) = record.subagent {
                subagent_points(session, sub, record, t, walk, out);
            }
        }
        if walk.wants(EventName::PostToolBatch) && batch.iter().all(|r| r.result.is_some()) {
            let last_line = batch
                .iter()
                .filter_map(|r| r.result.as_ref())
                .map(|r| r.line)
                .max()
                .unwrap_or(batch[0].line);
            let tool_calls: Vec<Value> = batch
                .iter()
                .map(|r| {
                    let response = lines
                        .result_blocks
                        .get(&r.tool_use_id)
                        .cloned()
                        .unwrap_or_else(|| {
                            json!(r.result.as_ref().map_or("", |x| x.text.as_str()))
                        });
                    json!({
                        "tool_name": r.name(),
                        "tool_input": r.call.raw().cloned().unwrap_or(json!({})),
                        "tool_use_id": r.tool_use_id,
                        "tool_response": response,
                    })
                })
                .collect();
            let mut p = Point::new(
                EventName::PostToolBatch,
                thread,
                last_line,
                main_line(last_line),
                t,
            )
            .field("tool_calls", Value::Array(tool_calls));
            p.tool_use_ids = batch.iter().map(|r| r.tool_use_id.clone()).collect();
            p.agent = agent.clone();
            out.push(p);
        }
        i = j;
    }
}

pub(super) fn thread_lines(session: &Session, thread: Option<usize>) -> &LineIndex {
    match thread.and_then(|i| session.subagents.get(i)) {
        Some(sub) => &sub.lines,
        None => &session.lines,
    }
}

/// PreToolUse, PermissionRequest, PostToolUse(Failure), TaskCreated and
/// TaskCompleted of one call.
pub(super) fn call_points<'a>(
    session: &'a Session,
    thread: Option<usize>,
    lines: &'a LineIndex,
    record: &'a ToolCallRecord,
    t: usize,
    main_line: usize,
    walk: &mut Walk,
) -> Vec<Point<'a>> {
    let skip_post = walk.skip_post();
    let (want_pre, want_permission, want_notification, want_post, want_failure) = (
        walk.wants(EventName::PreToolUse),
        walk.wants(EventName::PermissionRequest),
        walk.wants(EventName::Notification),
        walk.wants(EventName::PostToolUse),
        walk.wants(EventName::PostToolUseFailure),
    );
    let tasks = &mut walk.tasks;
    let id = &record.tool_use_id;
    // Borrowed from the session: copied when a payload is rendered.
    let input: Cow<'a, Value> = record
        .call
        .raw()
        .map_or_else(|| Cow::Owned(json!({})), Cow::Borrowed);
    // After the call the hooks see the input it ran with (a PreToolUse
    // rewrite's `updatedInput`), before it the model's.
    let ran: Option<&'a Value> = session.ran_input(thread, record).filter(|_| !skip_post);
    let before = recorded_file_before(record);
    let tool_with = |event: EventName, line: usize, input: Cow<'a, Value>| {
        let mut p = Point::new(event, thread, line, main_line, t)
            .field("tool_name", json!(record.name()))
            .field_cow("tool_input", input);
        p.tool_use_ids.push(id.clone());
        p.call_lines.push(record.line);
        p.ctx_line = line;
        p.file_before = before;
        p
    };
    let tool = |event: EventName, line: usize| tool_with(event, line, input.clone());
    let post_tool = |event: EventName, line: usize| {
        tool_with(
            event,
            line,
            ran.map_or_else(|| input.clone(), Cow::Borrowed),
        )
    };
    let mut out = Vec::new();
    if want_pre {
        out.push(tool(EventName::PreToolUse, record.line).field("tool_use_id", json!(id)));
    }
    // A task point goes right after the PreToolUse (first when there is none).
    let task_at = usize::from(want_pre);
    if prompted(lines, id) {
        if want_permission {
            out.push(tool(EventName::PermissionRequest, record.line).unknown(
                "permission_suggestions",
                "the suggestions the permission dialog offered are not written to the transcript",
            ));
        }
        // The dialog also notifies, in an interactive session only (`-p`
        // runs fire no Notification).
        let interactive = lines
            .context_at(record.line)
            .and_then(|c| c.entrypoint.as_deref())
            == Some("cli");
        if interactive && want_notification {
            let mut n = Point::new(EventName::Notification, thread, record.line, main_line, t)
                .field(
                    "message",
                    json!(format!(
                        "Claude needs your permission to use {}",
                        record.name()
                    )),
                )
                .field("notification_type", json!("permission_prompt"));
            n.tool_use_ids.push(id.clone());
            n.call_lines.push(record.line);
            out.push(n);
        }
    }
    let Some(result) = &record.result else {
        return out;
    };
    // A call a hook blocked did not run (2.1.x records the denial in
    // `permissionDecision`; older lines only through the hook's record).
    let hook_blocked = lines.hooks_of_call(record.line, id).any(|h| {
        h.event
            .as_ref()
            .is_some_and(|e| e.is(EventName::PreToolUse))
            && h.action == HookAction::Blocked
    });
    if denied(lines, id) || hook_blocked {
        return out;
    }
    if result.is_error {
        if result.text.trim_start().starts_with("<tool_use_error>") {
            return out;
        }
        let error = match &result.tool_use_result {
            Some(Value::String(s)) => s.strip_prefix("Error: ").unwrap_or(s).to_string(),
            _ => result.text.clone(),
        };
        let interrupted = result
            .tool_use_result
            .as_ref()
            .and_then(|r| r.get("interrupted"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if !want_failure {
            return out;
        }
        out.push(
            post_tool(EventName::PostToolUseFailure, result.line)
                .field("tool_use_id", json!(id))
                .field("error", json!(error))
                .field("is_interrupt", json!(interrupted))
                .unknown("duration_ms", LIVE_ONLY_DURATION),
        );
        return out;
    }
    if want_post {
        let mut post =
            post_tool(EventName::PostToolUse, result.line).field("tool_use_id", json!(id));
        post = match record.tool_use_result_verbatim() {
            Some(r) => post.field_cow("tool_response", r),
            None => post.unknown("tool_response", "the result line has no toolUseResult"),
        };
        out.push(post.unknown("duration_ms", LIVE_ONLY_DURATION));
    }
    match &record.call {
        ToolCall::TaskCreate(create) => {
            let task_id = result
                .tool_use_result
                .as_ref()
                .and_then(|r| r.pointer("/task/id"))
                .and_then(Value::as_str);
            if let Some(task_id) = task_id {
                tasks.insert(
                    task_id.to_string(),
                    (create.subject.clone(), Some(create.description.clone())),
                );
                let mut p = Point::new(EventName::TaskCreated, thread, record.line, main_line, t)
                    .field("task_id", json!(task_id))
                    .field("task_subject", json!(create.subject))
                    .field("task_description", json!(create.description));
                p.tool_use_ids.push(id.clone());
                out.insert(task_at, p);
            }
        }
        ToolCall::TaskUpdate(update) if update.status.as_deref() == Some("completed") => {
            let mut p = Point::new(EventName::TaskCompleted, thread, record.line, main_line, t)
                .field("task_id", json!(update.task_id));
            match tasks.get(&update.task_id) {
                Some((subject, description)) => {
                    p = p.field(
                        "task_subject",
                        json!(update.subject.clone().unwrap_or(subject.clone())),
                    );
                    if let Some(d) = update.description.clone().or(description.clone()) {
                        p = p.field("task_description", json!(d));
                    }
                }
                None => {
                    p = p.unknown(
                        "task_subject",
                        "the task was created outside this transcript",
                    );
                }
            }
            p.tool_use_ids.push(id.clone());
            out.insert(task_at, p);
        }
        _ => {}
    }
    out
}

/// The file before an Edit/MultiEdit/Write as its result recorded it:
/// `toolUseResult.originalFile`, or `""` for a Write that created the file
/// (`type: "create"`).
pub(super) fn recorded_file_before(record: &ToolCallRecord) -> Option<&str> {
    if !matches!(
        record.call,
        ToolCall::Edit(_) | ToolCall::MultiEdit(_) | ToolCall::Write(_)
    ) {
        return None;
    }
    let r = record.result.as_ref()?.tool_use_result.as_ref()?;
    match r.get("originalFile") {
        Some(Value::String(s)) => Some(s.as_str()),
        _ if r.get("type").and_then(Value::as_str) == Some("create") => Some(""),
        _ => None,
    }
}

/// SubagentStart, the subagent's own points, and SubagentStop.
pub(super) fn subagent_points<'a>(
    session: &'a Session,
    sub_index: usize,
    spawn: &'a ToolCallRecord,
    t: usize,
    walk: &mut Walk,
    out: &mut Vec<Point<'a>>,
) {
    let Some(sub) = session.subagents.get(sub_index) else {
        return;
    };
    // Each subagent once: ids may repeat, so links may form a cycle.
    if !walk.seen.insert(sub_index) {
        return;
    }
    let id_type = |p: Point<'a>| -> Point<'a> {
        let p = match &sub.agent_id {
            Some(a) => p.field("agent_id", json!(a)),
            None => p.unknown("agent_id", "the subagent's id is not recorded"),
        };
        match &sub.agent_type {
            Some(a) => p.field("agent_type", json!(a)),
            None => p.unknown(
                "agent_type",
                "the subagent has no meta sidecar with agentType",
            ),
        }
    };
    let mut start = id_type(Point::new(
        EventName::SubagentStart,
        None,
        spawn.line,
        spawn.line,
        t,
    ));
    start.tool_use_ids.push(spawn.tool_use_id.clone());
    out.push(start);
    for turn in &sub.turns {
        thread_points(
            session,
            Some(sub_index),
            turn,
            t,
            Some(spawn.line),
            walk,
            out,
        );
    }
    // SubagentStop fires once the subagent's last message is written: at
    // its last line that holds an event (its final text, after every call
    // and result), so its own calls are all before it.
    let last_event = sub
        .turns
        .iter()
        .flat_map(|t| t.events.iter())
        .map(|e| match e {
            Event::ToolCall(r) => r.result.as_ref().map_or(r.line, |res| res.line.max(r.line)),
            other => other.line(),
        })
        .max();
    let last_line = sub
        .lines
        .contexts
        .last()
        .map(|c| c.line)
        .max(last_event)
        .unwrap_or(spawn.line);
    let mut stop = id_type(Point::new(
        EventName::SubagentStop,
        Some(sub_index),
        last_line,
        spawn.line,
        t,
    ))
    .field("stop_hook_active", json!(false))
    .field("agent_transcript_path", json!(real_path(&sub.path)));
    stop = match sub.turns.iter().rev().find_map(Turn::last_text) {
        Some(text) => stop.field("last_assistant_message", json!(text)),
        None => stop.unknown("last_assistant_message", "the subagent wrote no text"),
    };
    stop = background(session, spawn.line, stop);
    stop.tool_use_ids.push(spawn.tool_use_id.clone());
    out.push(stop);
}

/// `background_tasks`/`session_crons`: `[]` when nothing before `line` could
/// have left background work or a cron behind; else left out.
pub(super) fn background<'a>(session: &Session, line: usize, p: Point<'a>) -> Point<'a> {
    let mut launched = false;
    let mut crons = false;
    for record in session.tool_calls().filter(|r| r.line < line) {
        let bg = record
            .call
            .raw()
            .and_then(|r| r.get("run_in_background"))
            .and_then(Value::as_bool);
        let async_agent = matches!(record.call, ToolCall::Task(_))
            && record
                .result
                .as_ref()
                .and_then(|r| r.tool_use_result.as_ref())
                .and_then(|r| r.get("status"))
                .and_then(Value::as_str)
                == Some("async_launched");
        if bg == Some(true) && !matches!(record.call, ToolCall::Task(_)) || async_agent {
            launched = true;
        }
        if record.name().starts_with("Cron") || record.name() == "ScheduleWakeup" {
            crons = true;
        }
    }
    let p = if launched {
        p.unknown("background_tasks", "background work was started earlier; whether it still ran is known to the live process only")
    } else {
        p.field("background_tasks", json!([]))
    };
    if crons {
        p.unknown(
            "session_crons",
            "a cron was scheduled earlier; the live schedule is known to the live process only",
        )
    } else {
        p.field("session_crons", json!([]))
    }
}

/// Stop points of one main-thread turn.
pub(super) fn stop_points<'a>(
    session: &'a Session,
    thread: Option<usize>,
    turn: &'a Turn,
    t: usize,
    out: &mut Vec<Point<'a>>,
) {
    let mut anchors: Vec<usize> = Vec::new();
    for (i, event) in turn.events.iter().enumerate() {
        if let Event::Note {
            label, text, line, ..
        } = event
            && label == "hook"
            && text.trim_start().starts_with("Stop hook feedback")
        {
            // The Stop fired before its feedback: anchor at the event before.
            let before = turn.events[..i].last().map_or(*line, Event::line);
            anchors.push(before);
        }
    }
    // The turn ends when the model's last message is text with no tool call
    // after it; a turn cut after a call (interrupted, still running, or a
    // truncated file) has no Stop (docs/contract.md#interrupts-and-other-runtime-details: an interrupt fires
    // none).
    let last = turn.events.iter().rev().find(|e| {
        !matches!(
            e,
            Event::Thinking { .. } | Event::Note { .. } | Event::Compaction { .. }
        )
    });
    if let Some(Event::Text { line, .. }) = last {
        anchors.push(*line);
    }
    for (k, anchor) in anchors.into_iter().enumerate() {
        let last_text = turn.events.iter().rev().find_map(|e| match e {
            Event::Text { text, line, .. } if *line <= anchor => Some(text.clone()),
            _ => None,
        });
        let mut p = Point::new(EventName::Stop, thread, anchor, anchor, t)
            .field("stop_hook_active", json!(k > 0));
        p = match last_text {
            Some(text) => p.field("last_assistant_message", json!(text)),
            None => p.unknown(
                "last_assistant_message",
                "the turn has no assistant text before this stop",
            ),
        };
        out.push(background(session, anchor, p));
    }
}
