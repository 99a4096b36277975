//! The Codex session being assembled line by line: its threads, turns,
//! calls paired with their outputs, and what the rollout records of them
//! (docs/transcripts.md#codex).

use super::*;

/// One rollout read with its lineage: the main thread of a [`Session`], or
/// one of its child rollouts.
pub(super) struct Thread {
    pub(super) path: PathBuf,
    pub(super) id: String,
    pub(super) lineage: Lineage,
    pub(super) replay: Option<Replay>,
    /// The own part's usage (the inherited total taken off).
    pub(super) usage: Usage,
    pub(super) loader: Loader,
    pub(super) diagnostics: Vec<Diagnostic>,
}

impl Thread {
    pub(super) fn load(path: &Path) -> std::io::Result<Thread> {
        Thread::load_cut(path, None)
    }

    /// [`Thread::load`] with the copy's last line given (`forced_end`).
    pub(super) fn load_cut(path: &Path, forced_end: Option<usize>) -> std::io::Result<Thread> {
        let mut loader = Loader::new(path);
        loader.forced_end = forced_end;
        let mut diagnostics = Vec::new();
        read_objects(path, &mut diagnostics, |line_no, value| {
            loader.push(line_no, value);
        })?;
        loader.finish();
        loader.apply_end_events();
        diagnostics.append(&mut loader.diagnostics);
        let id = loader
            .id
            .clone()
            .filter(|id| !id.is_empty())
            .or_else(|| uuid_of_file_name(path))
            .unwrap_or_else(|| crate::transcript::model::id_from_path(path));
        let lineage = loader.lineage.clone().unwrap_or_default();
        if lineage.names_itself() {
            diagnostics.push(Diagnostic::at_line(
                path,
                loader.meta_line.unwrap_or(1),
                "session_meta names the rollout itself as its parent; ignored".to_string(),
            ));
        }
        let usage = loader.own_usage();
        Ok(Thread {
            path: path.to_path_buf(),
            id,
            lineage,
            replay: loader.replay,
            usage,
            loader,
            diagnostics,
        })
    }

    pub(super) fn title(&self) -> Option<String> {
        self.loader.thread_name.clone().or_else(|| {
            self.loader
                .turns
                .iter()
                .find(|t| t.prompt_line.is_some())
                .map(|t| one_line(&t.prompt, 200))
                .filter(|t| !t.is_empty())
        })
    }

    /// A rollout shown on its own that names a parent: one diagnostic
    /// (on the copied lines when there are some, else on the meta line).
    pub(super) fn note_unlinked_parent(&self, diagnostics: &mut Vec<Diagnostic>) {
        let Some(parent) = self.lineage.parent() else {
            return;
        };
        let (line, message) = match self.replay {
            Some(r) => (
                r.first_line,
                format!(
                    "parent session {parent} is not linked: lines {}–{} replay its history \
                     and are not counted here",
                    r.first_line, r.last_line
                ),
            ),
            None => (
                self.loader.meta_line.unwrap_or(1),
                format!("parent session {parent} is not linked; shown on its own"),
            ),
        };
        diagnostics.push(Diagnostic::at_line(&self.path, line, message));
    }

    /// The `tool_use_id` of the call in this thread that spawned `child`:
    /// a `collab_agent_spawn_end` event naming its id, else a
    /// `spawn_agent` output naming it (`agent_id`, multi-agent v1) or its
    /// task name (`task_name`, v2), with how it was found.
    pub(super) fn spawn_call_of(&self, child: &Thread) -> Option<(String, SubagentLink)> {
        if let Some(call) = self.loader.spawn_ends.get(&child.id) {
            return Some((call.clone(), SubagentLink::ChildSessionId));
        }
        for record in self.loader.turns.iter().flat_map(Turn::tool_calls) {
            if record.name() != "spawn_agent" {
                continue;
            }
            let Some(out) = record
                .result
                .as_ref()
                .and_then(|r| serde_json::from_str::<Value>(r.text.trim()).ok())
            else {
                continue;
            };
            if str_of(&out, "agent_id") == Some(child.id.as_str()) {
                return Some((record.tool_use_id.clone(), SubagentLink::ChildSessionId));
            }
            if let Some(path) = child.lineage.agent_path.as_deref()
                && str_of(&out, "task_name") == Some(path)
            {
                return Some((record.tool_use_id.clone(), SubagentLink::AgentPath));
            }
        }
        None
    }

    /// Sets `subagent` on the call `tool_use_id` (the latest call with that
    /// id) unless it already spawned another; whether it was set.
    pub(super) fn mark_spawn(&mut self, tool_use_id: &str, index: usize) -> bool {
        let Some(&(t, e)) = self.loader.calls.get(tool_use_id) else {
            return false;
        };
        match self
            .loader
            .turns
            .get_mut(t)
            .and_then(|t| t.events.get_mut(e))
        {
            Some(Event::ToolCall(record)) if record.subagent.is_none() => {
                record.subagent = Some(index);
                true
            }
            _ => false,
        }
    }
}

/// The session being assembled.
#[derive(Default)]
pub(super) struct Loader {
    pub(super) path: PathBuf,
    pub(super) turns: Vec<Turn>,
    /// call_id → (turn, event) of the latest call with that id.
    pub(super) calls: HashMap<String, (usize, usize)>,
    /// call_ids whose output stated an exit code.
    pub(super) exit_known: HashSet<String>,
    /// call_id → failed?, from `exec_command_end` / `patch_apply_end` /
    /// `mcp_tool_call_end`.
    pub(super) end_failed: HashMap<String, bool>,
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) id: Option<String>,
    pub(super) cwd: Option<String>,
    pub(super) version: Option<String>,
    pub(super) git_branch: Option<String>,
    pub(super) seen_meta: bool,
    pub(super) thread_name: Option<String>,
    pub(super) models: Vec<String>,
    pub(super) usage: Option<Usage>,
    /// The sum of 0.51/0.52 `event_msg turn.completed` `usage` objects
    /// (each one turn's), used when no `token_count` total exists.
    pub(super) turn_usage: Option<Usage>,
    pub(super) started: Option<DateTime<Utc>>,
    pub(super) ended: Option<DateTime<Utc>>,
    /// The previous line was a `compacted` line (its `context_compacted`
    /// event is then not a second boundary).
    pub(super) after_compacted: bool,
    pub(super) lines_seen: usize,
    /// The first `session_meta`'s lineage, and its line.
    pub(super) lineage: Option<Lineage>,
    pub(super) meta_line: Option<usize>,
    pub(super) replay_state: ReplayState,
    /// The copied prefix, once its end is known.
    pub(super) replay: Option<Replay>,
    /// The last `total_token_usage` inside the copied prefix: the running
    /// total the fork started from.
    pub(super) inherited: Option<Usage>,
    /// `collab_agent_spawn_end`: `new_thread_id` → `call_id`.
    pub(super) spawn_ends: HashMap<String, String>,
    /// The last line of the copy, when known from outside (a comparison
    /// with the parent's rollout, [`copy_end_by_parent`]).
    pub(super) forced_end: Option<usize>,
    /// The first line of a copy whose end was not marked (read as own).
    pub(super) unmarked_copy: Option<usize>,
}

impl Loader {
    pub(super) fn new(path: &Path) -> Loader {
        Loader {
            path: path.to_path_buf(),
            ..Loader::default()
        }
    }

    pub(super) fn diag(&mut self, line: usize, message: String) {
        self.diagnostics
            .push(Diagnostic::at_line(self.path.clone(), line, message));
    }

    pub(super) fn push_event(&mut self, event: Event) -> (usize, usize) {
        crate::transcript::model::push_event(&mut self.turns, event)
    }

    /// Reads one line, holding back a copied parent prefix (see [`Replay`]).
    pub(super) fn push(&mut self, line_no: usize, v: Value) {
        match std::mem::take(&mut self.replay_state) {
            ReplayState::Start => {
                let is_meta = str_of(&v, "type") == Some("session_meta");
                let meta_id = v.get("payload").and_then(|p| str_of(p, "id"));
                if !self.seen_meta {
                    // Until the own session_meta has been read.
                    self.process(line_no, &v);
                    return;
                }
                if is_meta && meta_id.is_some() && meta_id != self.id.as_deref() {
                    self.replay_state = ReplayState::Buffering {
                        first_line: line_no,
                        held: vec![(line_no, v)],
                        saw_turn_id: false,
                    };
                    return;
                }
                self.replay_state = ReplayState::Off;
                self.process(line_no, &v);
            }
            ReplayState::Off => {
                self.replay_state = ReplayState::Off;
                self.process(line_no, &v);
            }
            ReplayState::Buffering {
                first_line,
                mut held,
                mut saw_turn_id,
            } => {
                if let Some(end) = self.forced_end {
                    if line_no > end {
                        self.end_replay(first_line, held, true);
                        self.process(line_no, &v);
                    } else {
                        held.push((line_no, v));
                        self.replay_state = ReplayState::Buffering {
                            first_line,
                            held,
                            saw_turn_id,
                        };
                    }
                    return;
                }
                let own_ms = self.id.as_deref().and_then(uuid_v7_millis);
                let repeats_own_meta = str_of(&v, "type") == Some("session_meta")
                    && v.get("payload").and_then(|p| str_of(p, "id")) == self.id.as_deref();
                let turn = turn_id_of(&v);
                let own_turn = matches!(
                    (own_ms, turn.and_then(uuid_v7_millis)),
                    (Some(own), Some(t)) if t >= own
                );
                if repeats_own_meta || own_turn {
                    self.end_replay(first_line, held, true);
                    self.process(line_no, &v);
                    return;
                }
                saw_turn_id |= turn.and_then(uuid_v7_millis).is_some();
                held.push((line_no, v));
                self.replay_state = ReplayState::Buffering {
                    first_line,
                    held,
                    saw_turn_id,
                };
            }
        }
    }

    /// At the end of the file: a copy still open is the whole rest when it
    /// holds UUIDv7 turn ids (the fork has no turn of its own yet) and the
    /// own id is a UUIDv7; else its end is not marked and its lines count as
    /// own.
    pub(super) fn finish(&mut self) {
        if let ReplayState::Buffering {
            first_line,
            held,
            saw_turn_id,
        } = std::mem::take(&mut self.replay_state)
        {
            let marked = self.forced_end.is_some()
                || (saw_turn_id && self.id.as_deref().and_then(uuid_v7_millis).is_some());
            if !marked {
                self.unmarked_copy = Some(first_line);
                let last = held.last().map_or(first_line, |(l, _)| *l);
                self.diag(
                    first_line,
                    format!(
                        "lines {first_line}–{last} look like a copy of another session's history \
                         (a second session_meta), but where it ends is not marked (no UUIDv7 turn \
                         ids); counted as this session's own"
                    ),
                );
            }
            self.end_replay(first_line, held, marked);
        }
        self.replay_state = ReplayState::Off;
    }

    /// Closes the copied prefix: its lines are read for the inherited
    /// running total only (`is_copy`), or read as the rollout's own.
    pub(super) fn end_replay(
        &mut self,
        first_line: usize,
        held: Vec<(usize, Value)>,
        is_copy: bool,
    ) {
        self.replay_state = ReplayState::Off;
        if !is_copy {
            for (line_no, v) in held {
                self.process(line_no, &v);
            }
            return;
        }
        let last_line = held.last().map_or(first_line, |(l, _)| *l);
        for (_, v) in &held {
            self.observe_time(v);
            if str_of(v, "type") == Some("event_msg")
                && let Some(p) = v.get("payload")
                && str_of(p, "type") == Some("token_count")
                && let Some(total) = p
                    .get("info")
                    .and_then(|i| i.get("total_token_usage"))
                    .filter(|t| t.is_object())
            {
                self.inherited = Some(usage_from_codex(total));
            }
        }
        self.replay = Some(Replay {
            first_line,
            last_line,
            lines: held.len(),
        });
    }

    /// The own part's usage: the last running total read outside the copied
    /// prefix minus the inherited total (Codex seeds a fork's running total
    /// with its parent's; a total below the inherited one in some counter
    /// was not seeded and is taken whole); no own total after a copy is 0;
    /// without any total, the `turn.completed` sum.
    pub(super) fn own_usage(&self) -> Usage {
        match (self.usage, self.inherited) {
            (Some(total), Some(base)) => {
                let seeded = total.input_tokens >= base.input_tokens
                    && total.output_tokens >= base.output_tokens
                    && total.cache_creation_input_tokens >= base.cache_creation_input_tokens
                    && total.cache_read_input_tokens >= base.cache_read_input_tokens;
                if seeded {
                    Usage {
                        input_tokens: total.input_tokens - base.input_tokens,
                        output_tokens: total.output_tokens - base.output_tokens,
                        cache_creation_input_tokens: total.cache_creation_input_tokens
                            - base.cache_creation_input_tokens,
                        cache_read_input_tokens: total.cache_read_input_tokens
                            - base.cache_read_input_tokens,
                    }
                } else {
                    total
                }
            }
            (Some(total), None) => total,
            (None, _) if self.replay.is_some() => Usage::default(),
            (None, _) => self.turn_usage.unwrap_or_default(),
        }
    }

    pub(super) fn observe_time(&mut self, v: &Value) -> Option<DateTime<Utc>> {
        let ts = timestamp_of(v);
        if let Some(t) = ts {
            self.started = Some(self.started.map_or(t, |s| s.min(t)));
            self.ended = Some(self.ended.map_or(t, |e| e.max(t)));
        }
        ts
    }

    pub(super) fn process(&mut self, line_no: usize, v: &Value) {
        self.lines_seen += 1;
        let first = self.lines_seen == 1;
        let ts = self.observe_time(v);
        let after_compacted = std::mem::take(&mut self.after_compacted);
        match (str_of(v, "type"), v.get("payload")) {
            (Some(kind), Some(payload)) => {
                self.push_envelope(line_no, kind, payload, ts, after_compacted)
            }
            _ => self.push_bare(line_no, v, first),
        }
    }

    pub(super) fn push_envelope(
        &mut self,
        line_no: usize,
        kind: &str,
        payload: &Value,
        ts: Option<DateTime<Utc>>,
        after_compacted: bool,
    ) {
        match kind {
            "session_meta" => self.observe_meta(line_no, payload),
            "turn_context" => {
                if let Some(model) = str_of(payload, "model").filter(|m| !m.is_empty())
                    && !self.models.iter().any(|m| m == model)
                {
                    self.models.push(model.to_string());
                }
                if self.cwd.is_none() {
                    self.cwd = str_of(payload, "cwd")
                        .filter(|c| !c.is_empty())
                        .map(str::to_string);
                }
            }
            "response_item" => self.push_item(line_no, payload, ts),
            "event_msg" => self.push_event_msg(line_no, payload, ts, after_compacted),
            "compacted" => {
                self.after_compacted = true;
                self.push_event(Event::Compaction {
                    trigger: None,
                    pre_tokens: None,
                    text: str_of(payload, "message").unwrap_or_default().to_string(),
                    timestamp: ts,
                    line: line_no,
                });
            }
            k if QUIET_LINE_TYPES.contains(&k) => {}
            other => self.diag(line_no, format!("unknown line type {other:?}; ignored")),
        }
    }

    /// A line without the envelope: the legacy layout (docs/transcripts.md#older-codex-layouts) or
    /// something unusable.
    pub(super) fn push_bare(&mut self, line_no: usize, v: &Value, first: bool) {
        if v.get("record_type").is_some() {
            return; // legacy `{"record_type":"state"}`
        }
        let kind = str_of(v, "type");
        if first
            && kind.is_none()
            && v.get("role").is_none()
            && v.get("id").is_some()
            && v.get("timestamp").is_some()
        {
            self.observe_meta(line_no, v);
            return;
        }
        if kind.is_some() && v.get("payload").is_none() {
            self.push_item(line_no, v, timestamp_of(v));
            return;
        }
        self.diag(
            line_no,
            "neither a {timestamp, type, payload} envelope nor a legacy response item; ignored"
                .to_string(),
        );
    }

    pub(super) fn observe_meta(&mut self, line_no: usize, meta: &Value) {
        if !meta.is_object() {
            self.diag(line_no, "session_meta payload is not an object".to_string());
            return;
        }
        if self.seen_meta {
            return; // resume/fork repeats it; the first one wins (docs/transcripts.md#the-rollout-envelope)
        }
        self.seen_meta = true;
        self.meta_line = Some(line_no);
        self.lineage = Some(Lineage::from_meta(meta));
        let s = |k: &str| {
            str_of(meta, k)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        self.id = s("id");
        if s("cwd").is_some() {
            self.cwd = s("cwd");
        }
        self.version = s("cli_version");
        self.git_branch = meta
            .get("git")
            .and_then(|g| str_of(g, "branch"))
            .filter(|b| !b.is_empty())
            .map(str::to_string);
    }

    pub(super) fn push_item(&mut self, line_no: usize, item: &Value, ts: Option<DateTime<Utc>>) {
        if !item.is_object() {
            self.diag(
                line_no,
                "response_item payload is not an object".to_string(),
            );
            return;
        }
        // agentsview-style messages omit `type`.
        let kind = match (str_of(item, "type"), item.get("role")) {
            (Some(k), _) => k,
            (None, Some(_)) => "message",
            (None, None) => {
                self.diag(line_no, "response_item without a type".to_string());
                return;
            }
        };
        match kind {
            "message" => self.push_message(line_no, item, ts),
            "reasoning" => {
                let summary = item.get("summary").map(content_text).unwrap_or_default();
                let text = if summary.trim().is_empty() {
                    item.get("content").map(content_text).unwrap_or_default()
                } else {
                    summary
                };
                if !text.trim().is_empty() {
                    self.push_event(Event::Thinking {
                        text,
                        line: line_no,
                    });
                }
            }
            "function_call" => {
                let Some(name) = str_of(item, "name") else {
                    self.diag(line_no, "function_call without a name".to_string());
                    return;
                };
                let parsed = match item.get("arguments") {
                    Some(Value::String(args)) => parse_codex_arguments_with_fixes(
                        name,
                        args,
                        OnError::Other,
                    )
                    .map(|(call, fixes)| {
                        for message in fixes.messages() {
                            self.diag(line_no, format!("function_call arguments: {message}"));
                        }
                        call
                    }),
                    None | Some(Value::Null) => parse_tool_call(name, None, OnError::Other),
                    Some(other) => parse_tool_call(name, Some(other), OnError::Other),
                };
                self.push_call(line_no, item, name, parsed.ok(), ts);
            }
            "custom_tool_call" => {
                let Some(name) = str_of(item, "name") else {
                    self.diag(line_no, "custom_tool_call without a name".to_string());
                    return;
                };
                let input = item.get("input").filter(|v| !v.is_null());
                let call = parse_tool_call(name, input, OnError::Other).ok();
                self.push_call(line_no, item, name, call, ts);
            }
            "local_shell_call" => {
                let input = item.get("action").filter(|v| !v.is_null());
                let call = parse_tool_call("local_shell_call", input, OnError::Other).ok();
                self.push_call(line_no, item, "local_shell_call", call, ts);
            }
            "web_search_call" => {
                let input = item.get("action").filter(|v| !v.is_null());
                let call = parse_tool_call("web_search", input, OnError::Other).ok();
                self.push_call(line_no, item, "web_search", call, ts);
            }
            "tool_search_call" => {
                let input = item.get("arguments").filter(|v| !v.is_null());
                let call = parse_tool_call("tool_search", input, OnError::Other).ok();
                self.push_call(line_no, item, "tool_search", call, ts);
            }
            "image_generation_call" => {
                let input = str_of(item, "revised_prompt").map(|p| json!({"revised_prompt": p}));
                let call = parse_tool_call("image_generation", input.as_ref(), OnError::Other).ok();
                self.push_call(line_no, item, "image_generation", call, ts);
            }
            "function_call_output" | "custom_tool_call_output" | "tool_search_output" => {
                self.pair_output(line_no, kind, item, ts)
            }
            "agent_message" => {
                let text = item.get("content").map(content_text).unwrap_or_default();
                self.push_event(Event::Note {
                    label: "agent_message".to_string(),
                    text,
                    timestamp: ts,
                    line: line_no,
                });
            }
            k if QUIET_ITEM_TYPES.contains(&k) => {}
            other => self.diag(
                line_no,
                format!("unknown response_item type {other:?}; ignored"),
            ),
        }
    }

    pub(super) fn push_message(&mut self, line_no: usize, item: &Value, ts: Option<DateTime<Utc>>) {
        let text = item.get("content").map(content_text).unwrap_or_default();
        match str_of(item, "role") {
            Some("user") => {
                if text.trim().is_empty() || is_injected_context(&text) {
                    return;
                }
                self.turns.push(Turn {
                    prompt: text,
                    prompt_line: Some(line_no),
                    timestamp: ts,
                    events: Vec::new(),
                    rejected: false,
                });
            }
            Some("assistant") if !text.trim().is_empty() => {
                self.push_event(Event::Text {
                    text,
                    timestamp: ts,
                    line: line_no,
                });
            }
            // developer / system instructions are not part of the conversation.
            _ => {}
        }
    }

    /// Adds a tool call. `call` is `None` only if lenient parsing failed,
    /// which `OnError::Other` never does.
    pub(super) fn push_call(
        &mut self,
        line_no: usize,
        item: &Value,
        name: &str,
        call: Option<crate::tools::ToolCall>,
        ts: Option<DateTime<Utc>>,
    ) {
        let Some(call) = call else {
            self.diag(line_no, format!("{name}: input could not be parsed"));
            return;
        };
        let call_id = str_of(item, "call_id")
            .or_else(|| str_of(item, "id"))
            .map_or_else(|| format!("line:{line_no}"), str::to_string);
        if let Some(&(t, e)) = self.calls.get(&call_id) {
            let same = self.turns[t].events[e]
                .as_tool_call()
                .is_some_and(|r| r.call.name() == call.name() && r.call.raw() == call.raw());
            if same {
                return; // the same call replayed (resume/fork history)
            }
            self.diag(
                line_no,
                format!("call_id {call_id} reused by another call; outputs pair with the latest"),
            );
        }
        let input = call.raw().cloned();
        let record = ToolCallRecord {
            tool_use_id: call_id.clone(),
            tool_kind: tool_kind(name, input.as_ref()),
            tool_resolved: tool_resolved(name, input.as_ref()),
            call,
            result: None,
            timestamp: ts,
            line: line_no,
            message_id: None,
            subagent: None,
        };
        let at = self.push_event(Event::ToolCall(Box::new(record)));
        self.calls.insert(call_id, at);
    }

    pub(super) fn pair_output(
        &mut self,
        line_no: usize,
        kind: &str,
        item: &Value,
        ts: Option<DateTime<Utc>>,
    ) {
        let Some(call_id) = str_of(item, "call_id") else {
            self.diag(line_no, format!("{kind} without call_id"));
            return;
        };
        // `tool_search_output` lists the tools found in `tools` instead.
        let (text, exit_code) = match (item.get("output"), item.get("tools")) {
            (Some(output), _) => output_text(output),
            (None, Some(tools)) => (tools.to_string(), None),
            (None, None) => (String::new(), None),
        };
        let Some(&(t, e)) = self.calls.get(call_id) else {
            self.diag(
                line_no,
                format!("{kind} for unknown call_id {call_id}; kept out of the timeline"),
            );
            return;
        };
        let duplicate = match self.turns[t].events.get_mut(e) {
            Some(Event::ToolCall(record)) if record.result.is_none() => {
                record.result = Some(ToolResult {
                    text,
                    is_error: exit_code.is_some_and(|c| c != 0),
                    tool_use_result: None,
                    stdout_is_text: false,
                    echoed_input: 0,
                    timestamp: ts,
                    line: line_no,
                    agent_id: None,
                });
                false
            }
            _ => true,
        };
        if duplicate {
            self.diag(
                line_no,
                format!("second output for call_id {call_id}; the first one is kept"),
            );
        } else if exit_code.is_some() {
            self.exit_known.insert(call_id.to_string());
        }
    }

    pub(super) fn push_event_msg(
        &mut self,
        line_no: usize,
        payload: &Value,
        ts: Option<DateTime<Utc>>,
        after_compacted: bool,
    ) {
        let Some(kind) = str_of(payload, "type") else {
            self.diag(line_no, "event_msg without a payload type".to_string());
            return;
        };
        match kind {
            "turn.completed" => {
                if let Some(u) = payload.get("usage").filter(|u| u.is_object()) {
                    self.turn_usage
                        .get_or_insert_with(Usage::default)
                        .add(&usage_from_codex(u));
                }
            }
            "token_count" => {
                if let Some(total) = payload
                    .get("info")
                    .and_then(|i| i.get("total_token_usage"))
                    .filter(|t| t.is_object())
                {
                    self.usage = Some(usage_from_codex(total));
                }
            }
            "turn_aborted" => {
                let reason = str_of(payload, "reason").unwrap_or("unknown");
                self.push_event(Event::Interruption {
                    text: format!("[turn aborted: {reason}]"),
                    timestamp: ts,
                    line: line_no,
                });
            }
            "error" | "stream_error" | "warning" => {
                let text = str_of(payload, "message")
                    .or_else(|| payload.get("error").and_then(|e| str_of(e, "message")))
                    .map_or_else(|| payload.to_string(), str::to_string);
                let event = if kind == "warning" {
                    Event::Note {
                        label: "warning".to_string(),
                        text,
                        timestamp: ts,
                        line: line_no,
                    }
                } else {
                    Event::ApiError {
                        text,
                        timestamp: ts,
                        line: line_no,
                    }
                };
                self.push_event(event);
            }
            "context_compacted" => {
                if !after_compacted {
                    self.push_event(Event::Compaction {
                        trigger: None,
                        pre_tokens: None,
                        text: String::new(),
                        timestamp: ts,
                        line: line_no,
                    });
                }
            }
            "thread_name_updated" => {
                if let Some(name) = str_of(payload, "thread_name").filter(|n| !n.trim().is_empty())
                {
                    self.thread_name = Some(one_line(name, 200));
                }
            }
            "exec_command_end" | "patch_apply_end" | "mcp_tool_call_end" => {
                let failed = match kind {
                    "exec_command_end" => payload
                        .get("exit_code")
                        .and_then(Value::as_i64)
                        .map(|c| c != 0),
                    "patch_apply_end" => payload
                        .get("success")
                        .and_then(Value::as_bool)
                        .map(|ok| !ok),
                    _ => payload.get("result").map(|r| {
                        r.get("Err").is_some()
                            || r.get("Ok")
                                .and_then(|ok| ok.get("isError"))
                                .and_then(Value::as_bool)
                                == Some(true)
                    }),
                };
                if let (Some(call_id), Some(failed)) = (str_of(payload, "call_id"), failed) {
                    self.end_failed.insert(call_id.to_string(), failed);
                }
            }
            "collab_agent_spawn_end" => {
                if let (Some(call_id), Some(child)) =
                    (str_of(payload, "call_id"), str_of(payload, "new_thread_id"))
                {
                    self.spawn_ends
                        .entry(child.to_string())
                        .or_insert_with(|| call_id.to_string());
                }
            }
            "tool_call" => {
                // 0.42-era fixtures (docs/transcripts.md#older-codex-layouts): {name, call_id, input}.
                let Some(name) = str_of(payload, "name") else {
                    self.diag(line_no, "event_msg tool_call without a name".to_string());
                    return;
                };
                let input = payload.get("input").filter(|v| !v.is_null());
                let call = parse_tool_call(name, input, OnError::Other).ok();
                self.push_call(line_no, payload, name, call, ts);
            }
            k if QUIET_EVENT_TYPES.contains(&k) => {}
            other => self.diag(
                line_no,
                format!("unknown event_msg type {other:?}; ignored"),
            ),
        }
    }

    /// Sets `is_error` from `*_end` events for outputs that stated no exit code.
    pub(super) fn apply_end_events(&mut self) {
        for (call_id, failed) in &self.end_failed {
            if self.exit_known.contains(call_id) {
                continue;
            }
            let Some(&(t, e)) = self.calls.get(call_id) else {
                continue;
            };
            if let Some(Event::ToolCall(record)) = self.turns[t].events.get_mut(e)
                && let Some(result) = record.result.as_mut()
            {
                result.is_error = *failed;
            }
        }
    }
}
