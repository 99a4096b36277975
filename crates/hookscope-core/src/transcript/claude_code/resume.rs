//! Resuming a Claude Code session from where reading its main file
//! stopped ([`Checkpoint`]): only the lines after it are read, and the
//! result is what [`super::load_session`] gives for the whole file (the
//! index's grown-session path).

use super::*;

/// Where reading a Claude Code main file stopped, and the main thread's
/// state there: what [`resume_session`] needs to read only the lines after
/// it and give what [`load_session`] gives for the whole file. Made by
/// [`load_session_with_checkpoint`] (and by a resume); kept by the index as
/// JSON. The bodies of earlier events are not kept: their calls come back
/// from the index's rows ([`OldCall`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Byte offset of the first line not taken in (the end of the last
    /// complete line; a partial last line is read again).
    pub offset: u64,
    /// Lines before `offset`.
    pub lines: usize,
    /// Bytes the read covered (the file's size when it was read whole).
    pub end: u64,
    pub(super) meta: SessionMeta,
    /// The summary `leafUuid`s found among the lines' `uuid`s, with their
    /// line (what the title needs of the uuid set).
    pub(super) leaves: Vec<(String, usize)>,
    /// The main thread's turns, prompt turns, and its first prompt turn
    /// `(turn, line, prompt)`.
    pub(super) turns: usize,
    pub(super) prompt_turns: usize,
    pub(super) first_prompt: Option<(usize, usize, String)>,
    /// Whether turn 0 (if any) holds only notes (a first prompt then opens
    /// it rather than a new turn).
    pub(super) turn0_notes_only: bool,
    pub(super) started: Option<DateTime<Utc>>,
    pub(super) ended: Option<DateTime<Utc>>,
    pub(super) agent_id: Option<String>,
    /// The main thread's hook firings so far and its open Stop record.
    pub(super) hooks: Vec<crate::transcript::hook_activity::HookActivity>,
    pub(super) open_stop: Option<usize>,
    /// Made by [`load_thread_with_checkpoint`]: the file is a subagent's,
    /// read as one thread (absent in older checkpoints: a main file).
    #[serde(default)]
    pub(super) one_thread: bool,
}

impl Checkpoint {
    /// Whether it was made by [`load_thread_with_checkpoint`] (a subagent
    /// file read as one thread).
    pub fn one_thread(&self) -> bool {
        self.one_thread
    }

    /// The thread's `agentId` as read so far (a subagent file's; `None`
    /// when no line carried one).
    pub fn agent_id(&self) -> Option<&str> {
        self.agent_id.as_deref()
    }

    /// Whether it holds JSON values kept verbatim (a hook firing's
    /// rewritten input), the only fields whose JSON may not read back
    /// equal (a float); everything else is text, integers and times.
    pub fn holds_json_values(&self) -> bool {
        self.hooks
            .iter()
            .any(|h| h.rewrite.is_some() || h.updated_output.is_some())
    }
}

/// A main-thread call as the index stored it (its row), for
/// [`resume_session`]: enough to pair a later result with it and to find
/// it by id.
#[derive(Debug, Clone)]
pub struct OldCall {
    /// `tool_use_id`.
    pub tool_use_id: String,
    /// Tool name.
    pub name: String,
    /// [`crate::tools::tool_kind`] as stored.
    pub kind: crate::tools::ToolKind,
    /// [`crate::tools::tool_resolved`] as stored.
    pub resolved: Option<String>,
    /// 1-based line of its `tool_use`.
    pub line: usize,
    /// The stored timestamp (the call's own; for a call with a result,
    /// the result's when the call has none).
    pub timestamp: Option<DateTime<Utc>>,
    /// Its result: `(is_error, line)`.
    pub result: Option<(bool, usize)>,
}

/// What [`resume_session`] gives.
#[derive(Debug)]
pub struct Resumed {
    /// The session as [`load_session`] would give it for the whole file,
    /// except: the earlier calls are the [`OldCall`]s given (no input, no
    /// result body; a result paired now is complete), the earlier events
    /// other than calls are absent, `diagnostics` holds only those of the
    /// new lines, and `usage`, `models` and `lines` (but its hook
    /// activity, which is whole) cover only the new lines.
    pub session: Session,
    /// The checkpoint at the new end (`None` as for
    /// [`load_session_with_checkpoint`]).
    pub checkpoint: Option<Checkpoint>,
    /// Offsets of the lines read, from line `from.lines + 1` on, then the
    /// end offset.
    pub starts: Vec<u64>,
    /// Bytes read.
    pub read: u64,
}

/// Reads the lines of a grown main file after `from` (made for the same
/// file when it was shorter) on top of the stored main-thread calls `old`
/// (in order), for a session without subagent files; or of a subagent file
/// read as one thread, when `from` was made by
/// [`load_thread_with_checkpoint`].
///
/// `Ok(Err(why))` when the new lines do something the checkpoint does not
/// model (the caller then loads the file whole): a `tool_use` reusing the id
/// of an earlier call, a `summary` line, a sidechain line, a hook record
/// that rewrote an earlier call's input (its input is not kept); and a
/// compressed file.
///
/// # Errors
/// As [`load_session`].
pub fn resume_session(
    main: &Path,
    from: &Checkpoint,
    old: &[OldCall],
) -> std::io::Result<Result<Resumed, String>> {
    if crate::transcript::fsread::is_zst(main) {
        return Ok(Err("a compressed file".to_string()));
    }
    let mut thread = Thread::new(main);
    thread.resume_base = from.lines;
    // Turns: the first prompt where it was, the other prompt turns after
    // it (only their number counts), turn 0 as it was for a first prompt.
    thread.turns = (0..from.turns).map(|_| Turn::default()).collect();
    let mut prompts_left = from.prompt_turns;
    if let Some((i, line, prompt)) = &from.first_prompt
        && let Some(turn) = thread.turns.get_mut(*i)
    {
        turn.prompt_line = Some(*line);
        turn.prompt = prompt.clone();
        prompts_left = prompts_left.saturating_sub(1);
        let after = i + 1;
        for turn in thread.turns.iter_mut().skip(after).take(prompts_left) {
            turn.prompt_line = Some(0);
        }
    }
    if !from.turn0_notes_only
        && let Some(turn) = thread.turns.first_mut()
    {
        turn.events.push(Event::Thinking {
            text: String::new(),
            line: 0,
        });
    }
    if !old.is_empty() && thread.turns.is_empty() {
        return Ok(Err("calls without a turn".to_string()));
    }
    let last = thread.turns.len().saturating_sub(1);
    for call in old {
        let record = ToolCallRecord {
            tool_use_id: call.tool_use_id.clone(),
            tool_kind: call.kind,
            tool_resolved: call.resolved.clone(),
            call: crate::tools::ToolCall::Other(crate::tools::calls::OtherCall {
                name: call.name.clone(),
                raw: None,
                error: None,
            }),
            result: call.result.map(|(is_error, line)| ToolResult {
                text: String::new(),
                is_error,
                tool_use_result: None,
                stdout_is_text: false,
                echoed_input: 0,
                timestamp: None,
                line,
                agent_id: None,
            }),
            timestamp: call.timestamp,
            line: call.line,
            message_id: None,
            subagent: None,
        };
        if let Some(turn) = thread.turns.get_mut(last) {
            turn.events.push(Event::ToolCall(Box::new(record)));
            let at = (last, turn.events.len() - 1);
            thread
                .calls
                .entry(call.tool_use_id.clone())
                .or_default()
                .push(at);
        }
    }
    for (leaf, line) in &from.leaves {
        thread.lines.uuids.insert(leaf.clone(), *line);
    }
    thread.started = from.started;
    thread.ended = from.ended;
    thread.agent_id = from.agent_id.clone();
    thread.hooks = HookLog::resume(from.hooks.clone(), from.open_stop);

    let mut read = MainRead::new(main, thread, from.meta.clone());
    read.resume_base = from.lines;
    read.one_thread = from.one_thread;
    let mut diagnostics = Vec::new();
    let mut place = Place {
        offset: from.offset,
        lines: from.lines,
        ..Place::default()
    };
    let mut starts = Vec::new();
    read_objects_from(
        main,
        &mut place,
        &mut diagnostics,
        |line_no, value| read.line(line_no, &value),
        Some(&mut starts),
    )?;
    let bytes = place.offset.saturating_sub(from.offset);
    if let Some(why) = read.main_thread.conflict.take() {
        return Ok(Err(why));
    }
    // A rewrite's `from` is the call's input, which an earlier call lacks.
    let rewrote_old = read.main_thread.hooks.records.iter().any(|r| {
        r.rewrite.is_some()
            && r.lines.iter().any(|&l| l > from.lines)
            && r.call_line.is_some_and(|l| l <= from.lines)
    });
    if rewrote_old {
        return Ok(Err("a hook rewrote an earlier call's input".to_string()));
    }
    let checkpoint = read.checkpoint(&place);
    let session = read.finish(Vec::new(), diagnostics);
    Ok(Ok(Resumed {
        session,
        checkpoint,
        starts,
        read: bytes,
    }))
}
