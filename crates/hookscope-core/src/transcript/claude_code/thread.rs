//! One conversation thread being assembled line by line: assistant chunks
//! merged by `message.id`, `tool_use` paired with its `tool_result`, turns
//! cut at real prompts, hook records attached (docs/transcripts.md#reading-rules).

use super::*;

/// One conversation thread (the main thread or one subagent) being assembled.
#[derive(Default)]
pub(super) struct Thread {
    pub(super) turns: Vec<Turn>,
    /// tool_use_id → (turn, event) of each record with that id, in order
    /// (ids may repeat: a second call reusing one is kept).
    pub(super) calls: HashMap<String, Vec<(usize, usize)>>,
    /// message.id → usage of its last chunk, and first-seen order.
    pub(super) usage_by_message: HashMap<String, Usage>,
    pub(super) models: Vec<String>,
    pub(super) lines: LineIndex,
    pub(super) started: Option<DateTime<Utc>>,
    pub(super) ended: Option<DateTime<Utc>>,
    pub(super) agent_id: Option<String>,
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) path: PathBuf,
    /// Hook firings so far (`LineIndex::hook_activity` once done).
    pub(super) hooks: HookLog,
    /// Resuming ([`resume_session`]): lines up to this one are the
    /// checkpoint's (0: a whole read).
    pub(super) resume_base: usize,
    /// Resuming: why the new lines need a whole read after all.
    pub(super) conflict: Option<String>,
    /// The last `cost-state` line and its time, until a later process
    /// starts (its note is written then: a file one process wrote gets
    /// none).
    pub(super) pending_end: Option<(usize, Option<DateTime<Utc>>)>,
}

/// The call a hook record's `toolUseID` names: the line and input of the
/// latest call of the thread with that id (ids may repeat).
pub(super) fn call_at<'a>(
    turns: &'a [Turn],
    calls: &HashMap<String, Vec<(usize, usize)>>,
    id: Option<&str>,
) -> Option<(usize, Option<&'a Value>)> {
    let &(t, e) = calls.get(id?)?.last()?;
    match turns.get(t).and_then(|turn| turn.events.get(e)) {
        Some(Event::ToolCall(r)) => Some((r.line, r.call.raw())),
        _ => None,
    }
}

/// A result line's `toolUseResult` as [`ToolResult::tool_use_result`] keeps
/// it, with what was left out.
pub(super) struct KeptToolUseResult {
    pub(super) value: Option<Value>,
    pub(super) stdout_is_text: bool,
    pub(super) echoed_input: u8,
}

/// Keeps `tur` once: a copy, except that in an object (key order kept) a
/// `stdout` that is a non-empty string byte-identical to `text` (the
/// result's flattened content; Claude Code writes a Bash output in both),
/// and each key of [`INPUT_ECHOES`] whose value equals its call's `input`
/// key (a Write's `content`, a TodoWrite's `newTodos`), become `null`; so a
/// 10 MB output or a written file is held once.
pub(super) fn kept_tool_use_result(
    tur: Option<&Value>,
    text: &str,
    input: Option<&Value>,
) -> KeptToolUseResult {
    let verbatim = || KeptToolUseResult {
        value: tur.cloned(),
        stdout_is_text: false,
        echoed_input: 0,
    };
    let Some(Value::Object(map)) = tur else {
        return verbatim();
    };
    let stdout_is_text =
        !text.is_empty() && map.get("stdout").and_then(Value::as_str) == Some(text);
    let mut echoed_input = 0u8;
    for (bit, (key, input_key)) in INPUT_ECHOES.iter().enumerate() {
        let echoed = map.get(*key).filter(|v| !v.is_null());
        if echoed.is_some() && echoed == input.and_then(|i| i.get(*input_key)) {
            echoed_input |= 1 << bit;
        }
    }
    if !stdout_is_text && echoed_input == 0 {
        return verbatim();
    }
    let left_out = |k: &str| {
        (stdout_is_text && k == "stdout")
            || INPUT_ECHOES
                .iter()
                .enumerate()
                .any(|(bit, (key, _))| echoed_input & (1 << bit) != 0 && k == *key)
    };
    let kept = map
        .iter()
        .map(|(k, v)| {
            let v = if left_out(k) { Value::Null } else { v.clone() };
            (k.clone(), v)
        })
        .collect();
    KeptToolUseResult {
        value: Some(Value::Object(kept)),
        stdout_is_text,
        echoed_input,
    }
}

/// A line's RFC 3339 `timestamp` (both agents' envelopes carry one), in UTC.
pub(crate) fn timestamp_of(v: &Value) -> Option<DateTime<Utc>> {
    v.get("timestamp").and_then(time_of)
}

/// A `timestamp` value's time: an RFC 3339 string, else `None`.
pub(crate) fn time_of(t: &Value) -> Option<DateTime<Utc>> {
    t.as_str()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc))
}

pub(super) fn min_time(
    a: Option<DateTime<Utc>>,
    b: Option<DateTime<Utc>>,
) -> Option<DateTime<Utc>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

pub(super) fn max_time(
    a: Option<DateTime<Utc>>,
    b: Option<DateTime<Utc>>,
) -> Option<DateTime<Utc>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// The label of the notes that mark where a process that wrote the file
/// ended or began ([`Event::Note`];
/// docs/formats.md#one-file-several-processes).
pub const PROCESS_NOTE: &str = "process";

/// Whether a rejected `<Event> operation blocked by hook` record is a
/// prompt's (`UserPromptSubmit`, `UserPromptExpansion`): those make a turn
/// that never started.
pub(super) fn is_prompt_event(event: &str) -> bool {
    matches!(event, "UserPromptSubmit" | "UserPromptExpansion")
}

/// What a user line with text is, for turn cutting.
pub(super) enum UserText {
    Prompt,
    Interruption,
    Note(&'static str),
    Skip,
}

pub(super) fn classify_user_text(v: &Value, text: &str) -> UserText {
    let flag = |k: &str| v.get(k).and_then(Value::as_bool) == Some(true);
    let trimmed = text.trim_start();
    if trimmed.starts_with("[Request interrupted") {
        return UserText::Interruption;
    }
    if flag("hookText") || trimmed.starts_with("Stop hook feedback:") {
        return UserText::Note("hook");
    }
    let origin_kind = v
        .get("origin")
        .and_then(|o| o.get("kind"))
        .and_then(Value::as_str);
    if origin_kind == Some("task-notification") || trimmed.starts_with("<task-notification>") {
        return UserText::Note("task-notification");
    }
    if flag("isMeta") {
        return UserText::Skip;
    }
    if trimmed.starts_with("<local-command-stdout>")
        || trimmed.starts_with("<local-command-stderr>")
    {
        return UserText::Note("command-output");
    }
    if trimmed.starts_with("Caveat: The messages below were generated by the user") {
        return UserText::Skip;
    }
    if v.get("promptSource").and_then(Value::as_str) == Some("system") {
        return UserText::Note("system");
    }
    UserText::Prompt
}

impl Thread {
    pub(super) fn new(path: &Path) -> Thread {
        Thread {
            path: path.to_path_buf(),
            ..Thread::default()
        }
    }

    /// The line index with the hook activity filled in.
    pub(super) fn take_lines(&mut self) -> LineIndex {
        let mut lines = std::mem::take(&mut self.lines);
        lines.set_hook_activity(std::mem::take(&mut self.hooks).finish());
        lines
    }

    /// Where a hook record on `line` sits (module `hook_activity`'s [`At`]).
    pub(super) fn hook_at(
        &self,
        line: usize,
        v: &Value,
        timestamp: Option<DateTime<Utc>>,
        id: Option<&str>,
    ) -> At<'_> {
        At {
            line,
            turn: self.turns.len().saturating_sub(1),
            timestamp,
            sidechain: v.get("isSidechain").and_then(Value::as_bool) == Some(true),
            call: call_at(&self.turns, &self.calls, id),
        }
    }

    pub(super) fn push_event(&mut self, event: Event) -> (usize, usize) {
        crate::transcript::model::push_event(&mut self.turns, event)
    }

    pub(super) fn usage(&self) -> Usage {
        let mut total = Usage::default();
        for u in self.usage_by_message.values() {
            total.add(u);
        }
        total
    }

    /// Notes that a resumed read met something it does not model (the
    /// first reason is kept).
    pub(super) fn conflict(&mut self, why: &str) {
        if self.conflict.is_none() {
            self.conflict = Some(why.to_string());
        }
    }

    pub(super) fn diag(&mut self, line: usize, message: String) {
        self.diagnostics
            .push(Diagnostic::at_line(self.path.clone(), line, message));
    }

    pub(super) fn push(&mut self, line_no: usize, v: &Value) {
        let timestamp = timestamp_of(v);
        // `observe` records every `uuid` (the set the title's summary
        // lookup uses; kept once, not in a second set).
        self.lines.observe(line_no, v);
        if self.agent_id.is_none() {
            self.agent_id = v.get("agentId").and_then(Value::as_str).map(str::to_string);
        }
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        if matches!(kind, "user" | "assistant" | "system" | "attachment") {
            self.started = min_time(self.started, timestamp);
            self.ended = max_time(self.ended, timestamp);
        }
        // Where one process that wrote the file ends and the next begins
        // (docs/formats.md#one-file-several-processes), as notes.
        // A file one process wrote gets none: the end is noted when a
        // later process starts.
        if kind == "cost-state" {
            self.pending_end = Some((line_no, timestamp));
        } else if self.lines.run_starts.last() == Some(&line_no) {
            if let Some((end, at)) = self.pending_end.take() {
                self.push_event(ended_note(end, at));
            }
            self.push_event(Event::Note {
                label: PROCESS_NOTE.to_string(),
                text: "resumed · SessionStart\nA new claude process (claude --resume) continues the session from this line; SessionStart fired."
                    .to_string(),
                timestamp,
                line: line_no,
            });
        }
        match kind {
            "user" => self.push_user(line_no, v, timestamp),
            "assistant" => self.push_assistant(line_no, v, timestamp),
            "system" => self.push_system(line_no, v, timestamp),
            "attachment" => self.push_attachment(line_no, v, timestamp),
            _ => {}
        }
    }

    /// At the end of the file: the last process's end (its `cost-state`
    /// line), noted as the earlier ones were when the next began, when
    /// several processes wrote the file. A file one process wrote gets
    /// none, nor does a last process without its `cost-state` (running, or
    /// killed: no SessionEnd fired; docs/formats.md#one-file-several-processes).
    pub(super) fn note_last_end(&mut self) {
        let pending = self.pending_end.take();
        if let Some((end, at)) = pending
            && !self.lines.run_starts.is_empty()
        {
            self.push_event(ended_note(end, at));
        }
    }

    pub(super) fn push_user(
        &mut self,
        line_no: usize,
        v: &Value,
        timestamp: Option<DateTime<Utc>>,
    ) {
        let Some(content) = v.get("message").and_then(|m| m.get("content")) else {
            self.diag(line_no, "user line without message.content".to_string());
            return;
        };
        if v.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
            self.push_event(Event::Compaction {
                trigger: None,
                pre_tokens: None,
                text: content_text(content),
                timestamp,
                line: line_no,
            });
            return;
        }
        let mut has_result = false;
        if let Value::Array(blocks) = content {
            for block in blocks {
                if block.get("type").and_then(Value::as_str) == Some("tool_result") {
                    has_result = true;
                    self.pair_result(line_no, v, block, timestamp);
                }
            }
        }
        if has_result {
            return;
        }
        let text = content_text(content);
        if text.trim().is_empty() {
            return;
        }
        let hook_text = v.get("hookText").and_then(Value::as_bool) == Some(true);
        if !hook_text
            && let Some(rejected) = parse_rejected_prompt(text.trim_start(), None).filter(|r| {
                is_prompt_event(&r.event) && text.trim_start().starts_with(r.event.as_str())
            })
        {
            self.push_rejected_prompt(line_no, v, timestamp, &rejected, "user/blocked", text);
            return;
        }
        if hook_text
            || text.contains(" operation blocked by hook")
            || text.trim_start().starts_with("Stop hook feedback:")
            || text.trim_start().starts_with("SubagentStop hook feedback:")
        {
            let mut hooks = std::mem::take(&mut self.hooks);
            hooks.on_user_text(&text, hook_text, &self.hook_at(line_no, v, timestamp, None));
            self.hooks = hooks;
        }
        match classify_user_text(v, &text) {
            UserText::Prompt => {
                // Notes logged before the first prompt (SessionStart hook
                // output) belong to the first turn, not to a prompt-less one.
                if let [first] = self.turns.as_mut_slice()
                    && first.prompt_line.is_none()
                    && first.events.iter().all(|e| matches!(e, Event::Note { .. }))
                {
                    first.prompt = text;
                    first.prompt_line = Some(line_no);
                    first.timestamp = timestamp;
                    return;
                }
                self.turns.push(Turn {
                    prompt: text,
                    prompt_line: Some(line_no),
                    timestamp,
                    events: Vec::new(),
                    rejected: false,
                });
            }
            UserText::Interruption => {
                self.push_event(Event::Interruption {
                    text,
                    timestamp,
                    line: line_no,
                });
            }
            UserText::Note(label) => {
                self.push_event(Event::Note {
                    label: label.to_string(),
                    text,
                    timestamp,
                    line: line_no,
                });
            }
            UserText::Skip => {}
        }
    }

    /// A prompt a hook rejected (`record` is the rejection line's text,
    /// kept as the turn's note labelled `label`): a turn that never started
    /// ([`Turn::rejected`]) and the hook's firing in it.
    pub(super) fn push_rejected_prompt(
        &mut self,
        line_no: usize,
        v: &Value,
        timestamp: Option<DateTime<Utc>>,
        rejected: &RejectedPrompt,
        label: &str,
        record: String,
    ) {
        self.turns.push(Turn {
            prompt: rejected.prompt.clone().unwrap_or_default(),
            prompt_line: Some(line_no),
            timestamp,
            events: vec![Event::Note {
                label: label.to_string(),
                text: record,
                timestamp,
                line: line_no,
            }],
            rejected: true,
        });
        let mut hooks = std::mem::take(&mut self.hooks);
        hooks.on_prompt_rejected(rejected, label, &self.hook_at(line_no, v, timestamp, None));
        self.hooks = hooks;
    }

    pub(super) fn pair_result(
        &mut self,
        line_no: usize,
        v: &Value,
        block: &Value,
        timestamp: Option<DateTime<Utc>>,
    ) {
        let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
            self.diag(line_no, "tool_result without tool_use_id".to_string());
            return;
        };
        let decision = v.get("permissionDecision").filter(|d| d.is_object());
        if let Some(decision) = decision {
            self.lines
                .permission_decisions
                .insert(id.to_string(), decision.clone());
        }
        if let Some(blocks) = block.get("content").filter(|c| c.is_array()) {
            self.lines
                .result_blocks
                .insert(id.to_string(), blocks.clone());
        }
        let text = block.get("content").map(content_text).unwrap_or_default();
        let tool_use_result = v.get("toolUseResult");
        let agent_id = v
            .get("agentId")
            .and_then(Value::as_str)
            .or_else(|| {
                tool_use_result
                    .and_then(|r| r.get("agentId"))
                    .and_then(Value::as_str)
            })
            .map(str::to_string);
        {
            let mut hooks = std::mem::take(&mut self.hooks);
            let at = self.hook_at(line_no, v, timestamp, Some(id));
            hooks.on_tool_result(id, &text, &at);
            if let Some(event) =
                decision.and_then(crate::transcript::hook_activity::rejected_by_hook)
            {
                hooks.on_permission_reject(id, event, &text, &at);
            }
            self.hooks = hooks;
        }
        let is_error = block.get("is_error").and_then(Value::as_bool) == Some(true);
        let Some(records) = self.calls.get(id) else {
            self.diag(
                line_no,
                format!("tool_result for unknown tool_use_id {id}; kept out of the timeline"),
            );
            return;
        };
        // The first record with this id still awaiting a result, else the
        // last one (which then reports a second result).
        let awaiting = records.iter().copied().find(|&(t, e)| {
            matches!(
                self.turns.get(t).and_then(|turn| turn.events.get(e)),
                Some(Event::ToolCall(r)) if r.result.is_none()
            )
        });
        let Some((t, e)) = awaiting.or_else(|| records.last().copied()) else {
            return;
        };
        if let Some(Event::ToolCall(record)) = self
            .turns
            .get_mut(t)
            .and_then(|turn| turn.events.get_mut(e))
        {
            if record.result.is_some() {
                self.diagnostics.push(Diagnostic {
                    path: self.path.clone(),
                    locus: Some(Locus::Line(line_no)),
                    message: format!("second tool_result for {id}; the first one is kept"),
                });
                return;
            }
            let kept = kept_tool_use_result(tool_use_result, &text, record.call.raw());
            record.result = Some(ToolResult {
                text,
                is_error,
                tool_use_result: kept.value,
                stdout_is_text: kept.stdout_is_text,
                echoed_input: kept.echoed_input,
                timestamp,
                line: line_no,
                agent_id,
            });
        }
    }

    pub(super) fn push_assistant(
        &mut self,
        line_no: usize,
        v: &Value,
        timestamp: Option<DateTime<Utc>>,
    ) {
        let Some(message) = v.get("message").filter(|m| m.is_object()) else {
            self.diag(
                line_no,
                "assistant line without a message object".to_string(),
            );
            return;
        };
        let message_id = message
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(model) = message.get("model").and_then(Value::as_str)
            && model != "<synthetic>"
            && !self.models.iter().any(|m| m == model)
        {
            self.models.push(model.to_string());
        }
        if let Some(usage) = message.get("usage").filter(|u| u.is_object()) {
            let key = message_id
                .clone()
                .unwrap_or_else(|| format!("line:{line_no}"));
            self.usage_by_message.insert(key, Usage::from_json(usage));
        }
        let content = message.get("content");
        if v.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true) {
            self.push_event(Event::ApiError {
                text: content.map(content_text).unwrap_or_default(),
                timestamp,
                line: line_no,
            });
            return;
        }
        let blocks: &[Value] = match content {
            Some(Value::Array(blocks)) => blocks,
            Some(Value::String(s)) => {
                if !s.trim().is_empty() {
                    self.push_event(Event::Text {
                        text: s.clone(),
                        timestamp,
                        line: line_no,
                    });
                }
                return;
            }
            _ => return,
        };
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                    if !text.trim().is_empty() {
                        self.push_event(Event::Text {
                            text: text.to_string(),
                            timestamp,
                            line: line_no,
                        });
                    }
                }
                Some("thinking") => {
                    let text = block.get("thinking").and_then(Value::as_str).unwrap_or("");
                    self.push_event(Event::Thinking {
                        text: text.to_string(),
                        line: line_no,
                    });
                }
                Some("tool_use") => self.push_tool_use(line_no, block, &message_id, timestamp),
                _ => {}
            }
        }
    }

    pub(super) fn push_tool_use(
        &mut self,
        line_no: usize,
        block: &Value,
        message_id: &Option<String>,
        timestamp: Option<DateTime<Utc>>,
    ) {
        let id = match block.get("id") {
            Some(Value::String(id)) => id.as_str(),
            None | Some(Value::Null) => {
                self.diag(line_no, "tool_use block without id".to_string());
                return;
            }
            Some(other) => {
                self.diag(
                    line_no,
                    format!(
                        "tool_use id is not a string ({})",
                        crate::tools::calls::json_type(other)
                    ),
                );
                return;
            }
        };
        if let Some(previous) = self.calls.get(id) {
            let base = self.resume_base;
            if base > 0
                && previous.iter().any(|&(t, e)| {
                    self.turns
                        .get(t)
                        .and_then(|turn| turn.events.get(e))
                        .is_some_and(|ev| ev.line() <= base)
                })
            {
                // Whether it repeats the earlier block needs that block.
                if self.conflict.is_none() {
                    self.conflict = Some("a tool_use reusing an earlier call's id".to_string());
                }
            }
            // The same block repeated in another chunk of the same message
            // (same message.id, or no message.id and the same name and
            // input) is one call; any other block reusing the id is a
            // second call, kept.
            let repeated = previous.iter().any(|&(t, e)| {
                match self.turns.get(t).and_then(|turn| turn.events.get(e)) {
                    Some(Event::ToolCall(r)) => match (&r.message_id, message_id) {
                        (Some(a), Some(b)) => a == b,
                        _ => {
                            r.call.name() == block.get("name").and_then(Value::as_str).unwrap_or("")
                                && r.call.raw() == block.get("input")
                        }
                    },
                    _ => false,
                }
            });
            if repeated {
                return;
            }
            let first_line = previous
                .first()
                .and_then(|&(t, e)| self.turns.get(t).and_then(|turn| turn.events.get(e)))
                .map_or(0, Event::line);
            self.diag(
                line_no,
                format!(
                    "tool_use id {id} reused by a second call (first on line {first_line}); both kept"
                ),
            );
        }
        let Some(name) = block.get("name").and_then(Value::as_str) else {
            self.diag(line_no, format!("tool_use {id} without a name"));
            return;
        };
        let input = block.get("input");
        let call = match parse_tool_call(name, input, OnError::Other) {
            Ok(call) => call,
            Err(err) => {
                // Lenient mode does not fail; keep the line usable anyway.
                self.diag(line_no, format!("tool_use {id}: {err}"));
                return;
            }
        };
        let record = ToolCallRecord {
            tool_use_id: id.to_string(),
            tool_kind: tool_kind(name, input),
            tool_resolved: tool_resolved(name, input),
            call,
            result: None,
            timestamp,
            line: line_no,
            message_id: message_id.clone(),
            subagent: None,
        };
        let at = self.push_event(Event::ToolCall(Box::new(record)));
        self.calls.entry(id.to_string()).or_default().push(at);
    }

    pub(super) fn push_system(
        &mut self,
        line_no: usize,
        v: &Value,
        timestamp: Option<DateTime<Utc>>,
    ) {
        let subtype = v.get("subtype").and_then(Value::as_str).unwrap_or("");
        let content = v.get("content").map(content_text).unwrap_or_default();
        match subtype {
            "compact_boundary" | "microcompact_boundary" => {
                let meta = v.get("compactMetadata");
                self.push_event(Event::Compaction {
                    trigger: meta
                        .and_then(|m| m.get("trigger"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    pre_tokens: meta
                        .and_then(|m| m.get("preTokens"))
                        .and_then(Value::as_u64),
                    text: content,
                    timestamp,
                    line: line_no,
                });
            }
            "api_error" => {
                let error = v.get("error");
                let text = if !content.is_empty() {
                    content
                } else {
                    let status = error.and_then(|e| e.get("status")).map(Value::to_string);
                    let message = error
                        .and_then(|e| e.get("message").or_else(|| e.get("error")))
                        .map(content_text)
                        .unwrap_or_default();
                    // The views say "API error"; the text is what follows.
                    let status = status.map(|s| format!("status {s}"));
                    match (status, message.is_empty()) {
                        (Some(s), false) => format!("{s}: {message}"),
                        (Some(s), true) => s,
                        (None, false) => message,
                        (None, true) => "(no details recorded)".to_string(),
                    }
                };
                self.push_event(Event::ApiError {
                    text,
                    timestamp,
                    line: line_no,
                });
            }
            "stop_hook_summary" => {
                let mut hooks = std::mem::take(&mut self.hooks);
                hooks.on_stop_summary(v, &self.hook_at(line_no, v, timestamp, None));
                self.hooks = hooks;
                let errors: Vec<String> = v
                    .get("hookErrors")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().map(content_text).collect())
                    .unwrap_or_default();
                if !errors.is_empty() {
                    self.push_event(Event::Note {
                        label: "hook".to_string(),
                        text: format!("Stop hook: {}", errors.join("; ")),
                        timestamp,
                        line: line_no,
                    });
                }
            }
            _ => {
                if content.contains(" operation blocked by hook") {
                    let ending = v
                        .pointer("/promptSubmitEnding/ending/reason")
                        .and_then(Value::as_str);
                    if let Some(rejected) = parse_rejected_prompt(&content, ending)
                        .filter(|r| is_prompt_event(&r.event))
                    {
                        self.push_rejected_prompt(
                            line_no,
                            v,
                            timestamp,
                            &rejected,
                            &format!("system/{subtype}"),
                            content,
                        );
                        return;
                    }
                    let mut hooks = std::mem::take(&mut self.hooks);
                    hooks.on_user_text(&content, false, &self.hook_at(line_no, v, timestamp, None));
                    self.hooks = hooks;
                }
                if !content.trim().is_empty() && subtype != "turn_duration" {
                    self.push_event(Event::Note {
                        label: format!("system/{subtype}"),
                        text: content,
                        timestamp,
                        line: line_no,
                    });
                }
            }
        }
    }

    pub(super) fn push_attachment(
        &mut self,
        line_no: usize,
        v: &Value,
        timestamp: Option<DateTime<Utc>>,
    ) {
        let Some(att) = v.get("attachment") else {
            return;
        };
        let mut hooks = std::mem::take(&mut self.hooks);
        let id = att.get("toolUseID").and_then(Value::as_str);
        hooks.on_attachment(att, &self.hook_at(line_no, v, timestamp, id));
        self.hooks = hooks;
        let kind = att.get("type").and_then(Value::as_str).unwrap_or("");
        let hook_name = att
            .get("hookName")
            .and_then(Value::as_str)
            .unwrap_or("hook");
        let text = match kind {
            "hook_blocking_error" => {
                let err = att
                    .get("blockingError")
                    .map(|b| match b.get("blockingError") {
                        Some(inner) => content_text(inner),
                        None => content_text(b),
                    })
                    .unwrap_or_default();
                let (_, err) = crate::transcript::hook_activity::split_handler_prefix(&err);
                let event = hook_name.split_once(':').map_or(hook_name, |(e, _)| e);
                if matches!(event, "PostToolUse" | "PostToolUseFailure") {
                    // The call had run: the hook's block only objected.
                    format!("{hook_name} objected after the call ran: {err}")
                } else {
                    format!("{hook_name} blocked: {err}")
                }
            }
            "hook_non_blocking_error" => {
                let stderr = att.get("stderr").map(content_text).unwrap_or_default();
                format!("{hook_name} hook error: {stderr}")
            }
            "hook_additional_context" => {
                let ctx = att.get("content").map(content_text).unwrap_or_default();
                format!("{hook_name} added context: {ctx}")
            }
            "hook_success" => {
                let stdout = att.get("stdout").map(content_text).unwrap_or_default();
                if stdout.trim().is_empty() {
                    return;
                }
                format!("{hook_name} output: {stdout}")
            }
            _ => return,
        };
        self.push_event(Event::Note {
            label: "hook".to_string(),
            text,
            timestamp,
            line: line_no,
        });
    }

    pub(super) fn into_subagent(
        mut self,
        path: &Path,
        layout: SubagentLayout,
        agent_id: Option<String>,
        meta: Option<Value>,
    ) -> Subagent {
        let lines = self.take_lines();
        let meta_str = |k: &str| {
            meta.as_ref()
                .and_then(|m| m.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        Subagent {
            agent_id,
            agent_type: meta_str("agentType"),
            description: meta_str("description"),
            path: path.to_path_buf(),
            layout: Some(layout),
            spawn_tool_use_id: None,
            link: None,
            usage: self.usage(),
            models: self.models,
            started: self.started,
            ended: self.ended,
            turns: self.turns,
            meta,
            lines,
        }
    }
}

/// The note at a process's `cost-state` line.
fn ended_note(line: usize, timestamp: Option<DateTime<Utc>>) -> Event {
    Event::Note {
        label: PROCESS_NOTE.to_string(),
        text: "ended · SessionEnd\nThe claude process that wrote the lines above ended here (its cost-state line); SessionEnd fired."
            .to_string(),
        timestamp,
        line,
    }
}
