//! Collecting a thread's hook firings as its lines are read ([`HookLog`]):
//! each firing's records joined into one [`HookActivity`] and attached to
//! its call, turn or stop.

use super::*;

/// Builds the [`HookActivity`] list of one thread while its lines are read
/// (used by the Claude Code loader, in file order).
#[derive(Debug, Default)]
pub struct HookLog {
    /// The records so far, in first-line order.
    pub records: Vec<HookActivity>,
    /// A Stop/SubagentStop feedback or block seen before its summary
    /// (`toolUseID` may come later): index into `records`.
    pub(super) open_stop: Option<usize>,
}

/// Where a hook record sits: its line, turn, timestamp, whether the line is
/// in a sidechain, and the call its `toolUseID` names (line and input).
#[derive(Debug, Clone, Copy)]
pub struct At<'a> {
    /// 1-based line.
    pub line: usize,
    /// Turn index in the thread.
    pub turn: usize,
    /// The line's timestamp.
    pub timestamp: Option<DateTime<Utc>>,
    /// `isSidechain: true` (a Stop summary is then a SubagentStop).
    pub sidechain: bool,
    /// The call named by the record's `toolUseID`: its line and input.
    pub call: Option<(usize, Option<&'a Value>)>,
}

pub(super) fn is_stop(event: Option<&str>) -> bool {
    matches!(event, Some("Stop" | "SubagentStop"))
}

impl HookLog {
    /// A log that continues from `records` (and the open Stop record
    /// `open_stop`, see [`HookLog::open_stop`]), as
    /// [`crate::transcript::claude_code`] resumes a grown main file.
    pub fn resume(records: Vec<HookActivity>, open_stop: Option<usize>) -> HookLog {
        HookLog { records, open_stop }
    }

    /// The Stop/SubagentStop record still waiting for its summary (index
    /// into `records`).
    pub fn open_stop(&self) -> Option<usize> {
        self.open_stop
    }

    /// The records, finished (each settled: a block after its call ran is
    /// [`HookAction::Flagged`]).
    pub fn finish(mut self) -> Vec<HookActivity> {
        for r in &mut self.records {
            r.settle();
        }
        self.records
    }

    /// The latest record of `event` with this `toolUseID` (and on the same
    /// call, when both know theirs: ids may repeat), if it may take a
    /// record with `command` (its own command is unset or the same).
    pub(super) fn find(
        &self,
        event: Option<&str>,
        id: Option<&str>,
        command: Option<&str>,
        call_line: Option<usize>,
    ) -> Option<usize> {
        let id = id?;
        self.records.iter().rposition(|r| {
            r.event.as_deref() == event
                && r.tool_use_id.as_deref() == Some(id)
                && (r.call_line.is_none() || call_line.is_none() || r.call_line == call_line)
                && (command.is_none() || r.command.is_none() || r.command.as_deref() == command)
        })
    }

    pub(super) fn start(&mut self, at: &At, kind: &str) -> usize {
        let mut r = HookActivity::new(at.line, kind, at.turn, at.timestamp);
        r.call_line = at.call.map(|(l, _)| l);
        self.records.push(r);
        self.records.len() - 1
    }

    /// An `attachment` line whose `attachment.type` starts with `hook`.
    /// `att` is the `attachment` object. Returns whether it was a hook
    /// record.
    pub fn on_attachment(&mut self, att: &Value, at: &At) -> bool {
        let Some(kind) = att.get("type").and_then(Value::as_str) else {
            return false;
        };
        if !kind.starts_with("hook_") {
            return false;
        }
        let label = format!("attachment/{kind}");
        let hook_name = str_of(att, "hookName");
        let event = str_of(att, "hookEvent")
            .or_else(|| hook_name.as_deref().map(|n| event_of_name(n).to_string()));
        let id = str_of(att, "toolUseID");
        let blocking = att.get("blockingError");
        let command =
            str_of(att, "command").or_else(|| blocking.and_then(|b| str_of(b, "command")));
        let content = att
            .get("content")
            .map(content_text)
            .filter(|c| !c.trim().is_empty());
        // Which record takes it: a Stop's records merge by toolUseID (or
        // into the open feedback); others by (event, toolUseID) when this
        // record has no handler of its own or the same one; a context
        // attachment also merges into the record just before it whose
        // stdout already carried that context.
        let call_line = at.call.map(|(l, _)| l);
        // Outside a Stop, two outcomes (a decision, a cancel, a failure)
        // are two handlers unless they name the same command; a context
        // attachment repeats its handler's and always joins it.
        let joins = is_stop(event.as_deref()) || kind == "hook_additional_context";
        let mut target = if joins {
            self.find(
                event.as_deref(),
                id.as_deref(),
                command.as_deref(),
                call_line,
            )
        } else {
            command.as_deref().and_then(|c| {
                self.find(event.as_deref(), id.as_deref(), Some(c), call_line)
                    .filter(|&i| {
                        self.records
                            .get(i)
                            .is_some_and(|r| r.command.as_deref() == Some(c))
                    })
            })
        };
        if target.is_none() && is_stop(event.as_deref()) {
            target = self.open_stop.filter(|&i| {
                self.records.get(i).is_some_and(|r| {
                    r.event.as_deref() == event.as_deref()
                        && (r.tool_use_id.is_none() || r.tool_use_id == id)
                })
            });
        }
        if target.is_none()
            && kind == "hook_additional_context"
            && let Some(last) = self.records.len().checked_sub(1)
            && let Some(r) = self.records.get(last)
            && r.event.as_deref() == event.as_deref()
            && content
                .as_ref()
                .is_some_and(|c| r.context.contains(&cap(c)))
        {
            target = Some(last);
        }
        let i = match target {
            Some(i) => {
                if let Some(r) = self.records.get_mut(i) {
                    r.absorb(at.line, &label);
                }
                i
            }
            None => self.start(at, &label),
        };
        let Some(r) = self.records.get_mut(i) else {
            return true;
        };
        if r.event.is_none() {
            r.event = event.clone().map(EventKey::from);
        }
        if r.hook_name.is_none() || r.hook_name.as_deref() == r.event.as_deref() {
            r.hook_name = hook_name.or(r.hook_name.take());
        }
        if r.tool_use_id.is_none() {
            r.tool_use_id = id;
        }
        if r.call_line.is_none() {
            r.call_line = at.call.map(|(l, _)| l);
        }
        let duration = att.get("durationMs").and_then(Value::as_u64);
        if let Some(c) = &command
            && r.command.is_none()
        {
            r.command = Some(c.clone());
        }
        r.duration_ms = r.duration_ms.or(duration);
        r.add_handler(command, duration);
        if let Some(code) = att.get("exitCode").and_then(Value::as_i64) {
            r.exit_code = Some(code);
        }
        if let Some(s) = att
            .get("stdout")
            .map(content_text)
            .filter(|s| !s.is_empty())
        {
            r.stdout = Some(cap(&s));
        }
        if let Some(s) = att
            .get("stderr")
            .map(content_text)
            .filter(|s| !s.is_empty())
        {
            r.stderr = Some(cap(&s));
        }
        let call_input = at.call.and_then(|(_, input)| input);
        r.read_stdout_json(call_input);
        match kind {
            "hook_success" => {}
            "hook_blocking_error" => {
                let err = blocking
                    .map(|b| match b.get("blockingError") {
                        Some(inner) => content_text(inner),
                        None => content_text(b),
                    })
                    .filter(|e| !e.trim().is_empty());
                if let Some(err) = err {
                    let reason = r.name_handler_in(&err);
                    r.reason = Some(cap(&reason));
                }
                r.raise(HookAction::Blocked);
            }
            "hook_non_blocking_error" | "hook_error_during_execution" => {
                if r.reason.is_none() {
                    r.reason = r.stderr.clone().or_else(|| content.as_deref().map(cap));
                }
                if r.exit_code.is_none() {
                    r.exit_code = r.reason.as_deref().and_then(exit_code_in);
                }
                r.raise(HookAction::Failed);
            }
            "hook_additional_context" => {
                if let Some(Value::Array(items)) = att.get("content") {
                    for item in items {
                        let t = content_text(item);
                        if !t.trim().is_empty() {
                            r.push_context(t);
                        }
                    }
                } else if let Some(c) = content {
                    r.push_context(c);
                }
            }
            "hook_permission_decision" => {
                let d = str_of(att, "decision")
                    .or_else(|| str_of(att, "permissionDecision"))
                    .or_else(|| str_of(att, "behavior"));
                if let Some(d) = d {
                    r.raise(if d == "deny" {
                        HookAction::Blocked
                    } else {
                        HookAction::PermissionDecision
                    });
                    r.decision = Some(d);
                } else {
                    r.raise(HookAction::PermissionDecision);
                }
                let reason = str_of(att, "reason")
                    .or_else(|| str_of(att, "permissionDecisionReason"))
                    .or_else(|| str_of(att, "message"));
                if r.reason.is_none() {
                    r.reason = reason.map(|x| cap(&x));
                }
            }
            "hook_cancelled" => r.raise(HookAction::Cancelled),
            "hook_stopped_continuation" => {
                if r.reason.is_none() {
                    r.reason = str_of(att, "message").map(|m| cap(&m));
                }
                r.raise(HookAction::Blocked);
            }
            _ => {
                if r.reason.is_none() {
                    r.reason = content.as_deref().map(cap);
                }
                r.raise(HookAction::Other);
            }
        }
        if is_stop(r.event.as_deref()) {
            self.open_stop = Some(i);
        }
        true
    }

    /// A `system` line of subtype `stop_hook_summary`: ends one
    /// Stop/SubagentStop firing.
    pub fn on_stop_summary(&mut self, v: &Value, at: &At) {
        let label = "system/stop_hook_summary";
        let event = if at.sidechain { "SubagentStop" } else { "Stop" };
        let id = str_of(v, "toolUseID");
        let mut target = self.find(Some(event), id.as_deref(), None, None);
        if target.is_none() {
            target = self.open_stop.filter(|&i| {
                self.records.get(i).is_some_and(|r| {
                    r.event.as_deref() == Some(event)
                        && (r.tool_use_id.is_none() || r.tool_use_id == id)
                })
            });
        }
        let i = match target {
            Some(i) => {
                if let Some(r) = self.records.get_mut(i) {
                    r.absorb(at.line, label);
                }
                i
            }
            None => self.start(at, label),
        };
        self.open_stop = None;
        let Some(r) = self.records.get_mut(i) else {
            return;
        };
        if r.event.is_none() {
            r.event = Some(event.into());
        }
        if r.tool_use_id.is_none() {
            r.tool_use_id = id;
        }
        for info in v
            .get("hookInfos")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let command = str_of(info, "command");
            let duration = info.get("durationMs").and_then(Value::as_u64);
            r.add_handler(command, duration);
        }
        if r.command.is_none() {
            r.command = r.handlers.first().and_then(|h| h.command.clone());
        }
        let handler_duration = r
            .handlers
            .iter()
            .find(|h| h.command.is_some() && h.command == r.command)
            .and_then(|h| h.duration_ms);
        r.duration_ms = r.duration_ms.or(handler_duration);
        let errors: Vec<String> = v
            .get("hookErrors")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(content_text).collect())
            .unwrap_or_default();
        let failed: Vec<usize> = v
            .get("failedHookErrorIndexes")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_u64)
                    .filter_map(|n| usize::try_from(n).ok())
                    .collect()
            })
            .unwrap_or_default();
        let blocking: Vec<&String> = errors
            .iter()
            .enumerate()
            .filter(|(k, _)| !failed.contains(k))
            .map(|(_, e)| e)
            .collect();
        if !blocking.is_empty() {
            if r.reason.is_none() {
                let joined: Vec<String> = blocking.iter().map(|e| r.name_handler_in(e)).collect();
                r.reason = Some(cap(&joined.join("; ")));
            }
            r.raise(HookAction::Blocked);
        } else if !errors.is_empty() {
            if r.reason.is_none() {
                r.reason = Some(cap(&errors.join("; ")));
            }
            r.raise(HookAction::Failed);
        }
        if v.get("preventedContinuation").and_then(Value::as_bool) == Some(true) {
            if r.reason.is_none() {
                r.reason = str_of(v, "stopReason").map(|s| cap(&s));
            }
            r.raise(HookAction::Blocked);
        }
        for ctx in v
            .get("hookAdditionalContext")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let t = content_text(ctx);
            if !t.trim().is_empty() {
                r.push_context(t);
            }
        }
    }

    /// A prompt a hook rejected ([`parse_rejected_prompt`]): one
    /// [`HookAction::Blocked`] firing of its event, with the `[…]` handler
    /// as its command and exit code 2, the reason without the prefix, and
    /// `kind` (`system/informational`, `user/blocked`) as its record kind.
    pub fn on_prompt_rejected(&mut self, rejected: &RejectedPrompt, kind: &str, at: &At) {
        let i = self.start(at, kind);
        if let Some(r) = self.records.get_mut(i) {
            r.event = Some(rejected.event.clone());
            r.hook_name = Some(rejected.event.to_string());
            if let Some(command) = &rejected.command {
                r.command = Some(command.clone());
                r.add_handler(Some(command.clone()), None);
                r.exit_code = Some(2);
                r.stderr = Some(cap(&rejected.reason)).filter(|s| !s.is_empty());
            }
            r.reason = Some(cap(&rejected.reason)).filter(|s| !s.is_empty());
            r.raise(HookAction::Blocked);
        }
    }

    /// A user line's text that is hook output: `hookText: true` lines
    /// (`<Event> hook feedback:\n<reason>`) and `<Event> operation blocked
    /// by hook` texts. Returns whether it was one.
    pub fn on_user_text(&mut self, text: &str, hook_text: bool, at: &At) -> bool {
        let trimmed = text.trim_start();
        if let Some(rejected) = parse_rejected_prompt(trimmed, None) {
            self.on_prompt_rejected(&rejected, "user/blocked", at);
            return true;
        }
        let feedback = trimmed
            .split_once(" hook feedback:")
            .filter(|(e, _)| hook_text || (!e.is_empty() && !e.contains(char::is_whitespace)));
        let Some((event, reason)) = feedback else {
            if !hook_text {
                return false;
            }
            let i = self.start(at, "user/hookText");
            if let Some(r) = self.records.get_mut(i) {
                r.reason = Some(cap(trimmed));
                r.raise(HookAction::AddedContext);
                r.context.push(cap(trimmed));
            }
            return true;
        };
        let event = event.trim().to_string();
        let reason = reason.trim().to_string();
        // Merge into an open firing of the same event that has no feedback
        // yet, else start one.
        let open = self.open_stop.filter(|&i| {
            self.records
                .get(i)
                .is_some_and(|r| r.event.as_deref() == Some(event.as_str()))
        });
        let i = match open {
            Some(i) => {
                if let Some(r) = self.records.get_mut(i) {
                    r.absorb(at.line, "user/hookText");
                }
                i
            }
            None => self.start(at, "user/hookText"),
        };
        if let Some(r) = self.records.get_mut(i) {
            if r.event.is_none() {
                r.event = Some(event.into());
            }
            if !reason.is_empty() {
                let reason = r.name_handler_in(&reason);
                r.reason = Some(cap(&reason));
            }
            r.raise(HookAction::Blocked);
            if is_stop(r.event.as_deref()) {
                self.open_stop = Some(i);
            }
        }
        true
    }

    /// A Factory Droid hook line (a user `message` with `hookEventName`;
    /// real-droid-0.225.2 README "hook lines"; `m` is the `message`
    /// object): one firing per line. Read as Claude Code's older contract
    /// (docs/contract.md#factory-droid-hooks):
    ///
    /// * `event` = `hookEventName`, `hook_name` = `<event>:<hookMatcher>`
    ///   (`PreToolUse:Execute`, `SessionStart:startup`) or the event alone;
    /// * `tool_use_id` = `hookToolCallId` (tool events; Stop and SessionEnd
    ///   carry `hookParentId`, a message id, which is not kept);
    /// * `handlers` = `hookCommands[].command`; `duration_ms` =
    ///   `hookEndTime − hookStartTime` (ms, the whole firing);
    /// * the result that acted (`hookResults[]`: the first exit 2, else the
    ///   first other non-zero exit, else the first) gives `exit_code`,
    ///   `stdout`, `stderr` and, by index, `command`;
    /// * exit 2 on PreToolUse, PostToolUse, UserPromptSubmit, Stop or
    ///   SubagentStop is [`HookAction::Blocked`] (stderr is fed to the
    ///   model; a blocked tool's result then reads `Error: <stderr>`); any
    ///   other non-zero exit (and exit 2 on the other events) is
    ///   [`HookAction::Failed`]; an exit-0 stdout that is JSON is read as
    ///   Claude Code's (`decision`, `permissionDecision`, `continue`,
    ///   `hookSpecificOutput.updatedInput` / `additionalContext`); plain
    ///   exit-0 stdout of SessionStart or UserPromptSubmit is added context;
    /// * `hookStatus` `cancelled` is [`HookAction::Cancelled`]; `error` or
    ///   `timeout` without a failing result is [`HookAction::Failed`].
    ///
    /// Returns what was malformed (a field of the wrong JSON type), one
    /// message each, for the caller's diagnostics; the usable fields are
    /// kept.
    pub fn on_droid_hook(&mut self, m: &Value, at: &At) -> Vec<String> {
        let mut problems = Vec::new();
        let string_field = |key: &str, problems: &mut Vec<String>| match m.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()).filter(|s| !s.is_empty()),
            Some(other) => {
                problems.push(format!(
                    "{key} is a JSON {} where a string belongs",
                    json_type(other)
                ));
                None
            }
        };
        let event = string_field("hookEventName", &mut problems);
        let matcher = string_field("hookMatcher", &mut problems);
        let tool_call = string_field("hookToolCallId", &mut problems);
        let status = string_field("hookStatus", &mut problems);
        let list = |key: &str, problems: &mut Vec<String>| -> Vec<Value> {
            match m.get(key) {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items.clone(),
                Some(other) => {
                    problems.push(format!(
                        "{key} is a JSON {} where a list belongs",
                        json_type(other)
                    ));
                    Vec::new()
                }
            }
        };
        let commands = list("hookCommands", &mut problems);
        let results = list("hookResults", &mut problems);
        let i = self.start(at, "droid/hook");
        let Some(r) = self.records.get_mut(i) else {
            return problems;
        };
        r.hook_name = match (&event, &matcher) {
            (Some(e), Some(mt)) => Some(format!("{e}:{mt}")),
            (e, _) => e.clone(),
        };
        r.event = event.map(EventKey::from);
        r.tool_use_id = tool_call;
        let mut command_of = Vec::new();
        for (k, c) in commands.iter().enumerate() {
            let command = match c.get("command") {
                Some(Value::String(s)) => Some(s.clone()),
                _ => {
                    problems.push(format!("hookCommands[{k}] has no command string"));
                    None
                }
            };
            command_of.push(command.clone());
            r.add_handler(command, None);
        }
        let ms = |key: &str| m.get(key).and_then(Value::as_u64);
        if let (Some(start), Some(end)) = (ms("hookStartTime"), ms("hookEndTime")) {
            r.duration_ms = end.checked_sub(start);
        }
        // (exit code, stdout, stderr) of each result.
        let mut outcomes: Vec<(Option<i64>, Option<String>, Option<String>)> = Vec::new();
        for (k, res) in results.iter().enumerate() {
            if !res.is_object() {
                problems.push(format!(
                    "hookResults[{k}] is a JSON {} where an object belongs",
                    json_type(res)
                ));
                outcomes.push((None, None, None));
                continue;
            }
            let code = match res.get("exitCode") {
                None | Some(Value::Null) => None,
                Some(v) => {
                    let code = v.as_i64();
                    if code.is_none() {
                        problems.push(format!(
                            "hookResults[{k}].exitCode is a JSON {} where an integer belongs",
                            json_type(v)
                        ));
                    }
                    code
                }
            };
            let text = |key: &str| {
                res.get(key)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(cap)
            };
            outcomes.push((code, text("stdout"), text("stderr")));
        }
        let acting = outcomes
            .iter()
            .position(|o| o.0 == Some(2))
            .or_else(|| outcomes.iter().position(|o| o.0.is_some_and(|c| c != 0)))
            .or_else(|| (!outcomes.is_empty()).then_some(0));
        let call_input = at.call.and_then(|(_, input)| input);
        // Exit-0 JSON stdout decides (each result's, in order).
        for (code, stdout, _) in &outcomes {
            if *code == Some(0) && stdout.is_some() {
                r.stdout = stdout.clone();
                r.read_stdout_json(call_input);
            }
        }
        r.command = acting
            .and_then(|k| command_of.get(k).cloned().flatten())
            .or_else(|| r.handlers.first().and_then(|h| h.command.clone()));
        if let Some((code, stdout, stderr)) = acting.and_then(|k| outcomes.get(k)).cloned() {
            r.exit_code = code;
            r.stdout = stdout;
            r.stderr = stderr;
        }
        let said = r.stderr.clone().or_else(|| r.stdout.clone());
        let blocks_on_2 = matches!(
            r.event.as_deref(),
            Some("PreToolUse" | "PostToolUse" | "UserPromptSubmit" | "Stop" | "SubagentStop")
        );
        match r.exit_code {
            Some(2) if blocks_on_2 => {
                r.reason = said;
                r.raise(HookAction::Blocked);
            }
            Some(c) if c != 0 => {
                r.reason = said;
                r.raise(HookAction::Failed);
            }
            Some(0)
                if matches!(
                    r.event.as_deref(),
                    Some("SessionStart" | "UserPromptSubmit")
                ) && r.action == HookAction::Succeeded =>
            {
                if let Some(out) = r.stdout.clone()
                    && !out.trim_start().starts_with('{')
                    && !out.trim().is_empty()
                {
                    r.push_context(out);
                }
            }
            _ => {}
        }
        match status.as_deref() {
            Some("cancelled" | "canceled") => r.raise(HookAction::Cancelled),
            Some(s @ ("error" | "timeout" | "timed_out" | "failed"))
                if r.action == HookAction::Succeeded =>
            {
                if r.reason.is_none() {
                    r.reason = Some(format!("hookStatus {s}"));
                }
                r.raise(HookAction::Failed);
            }
            _ => {}
        }
        problems
    }

    /// A `tool_result` whose text is a hook error
    /// ([`parse_result_hook_error`]): the call was blocked by its
    /// PreToolUse hook. `id` is the result's `tool_use_id`.
    pub fn on_tool_result(&mut self, id: &str, text: &str, at: &At) -> bool {
        let Some((name, command, reason)) = parse_result_hook_error(text) else {
            return false;
        };
        let event = event_of_name(&name).to_string();
        let call_line = at.call.map(|(l, _)| l);
        let i = match self.find(Some(&event), Some(id), command.as_deref(), call_line) {
            Some(i) => {
                if let Some(r) = self.records.get_mut(i) {
                    r.absorb(at.line, "tool_result");
                }
                i
            }
            None => self.start(at, "tool_result"),
        };
        if let Some(r) = self.records.get_mut(i) {
            r.event = Some(event.into());
            if r.hook_name.is_none() {
                r.hook_name = Some(name);
            }
            if r.tool_use_id.is_none() {
                r.tool_use_id = Some(id.to_string());
            }
            if r.call_line.is_none() {
                r.call_line = at.call.map(|(l, _)| l);
            }
            if r.command.is_none() && command.is_some() {
                // Claude Code writes `[<command>]: <stderr>` only for an
                // exit 2 (real-cc-2.1.332 README, C2 vs C3).
                r.exit_code = r.exit_code.or(Some(2));
                r.stderr = r.stderr.take().or_else(|| Some(cap(&reason)));
                r.command = command.clone();
                r.add_handler(command, None);
            }
            if r.reason.is_none() && !reason.is_empty() {
                r.reason = Some(cap(&reason));
            }
            if r.decision.is_none() && r.exit_code.is_none() && r.command.is_none() {
                // Without `[command]` the block came from a JSON deny.
                r.decision = Some("deny".to_string());
            }
            r.raise(HookAction::Blocked);
        }
        true
    }
}

/// The event of the hook a tool result's `permissionDecision` names as the
/// reason the call was rejected: `{decision: "reject", reasonCode:
/// "hook:<Event>"}` gives `<Event>`; `{decision: "reject", source: "hook"}`
/// without a `reasonCode` gives `PreToolUse`. `None` for any other
/// decision (accepted, or rejected by a rule, the mode or a person).
/// docs/hooks.md#what-the-transcript-records.
pub fn rejected_by_hook(decision: &Value) -> Option<&str> {
    let get = |k: &str| decision.get(k).and_then(Value::as_str);
    if get("decision") != Some("reject") {
        return None;
    }
    match get("reasonCode").and_then(|c| c.strip_prefix("hook:")) {
        Some(event) if !event.is_empty() => Some(event),
        _ => (get("source") == Some("hook")).then_some("PreToolUse"),
    }
}

impl HookLog {
    /// A tool result line whose `permissionDecision` says a hook of
    /// `event` ([`rejected_by_hook`]) got call `id` rejected. A firing of
    /// that event on the call already read as a block stays as it is; one
    /// whose `permissionDecision` was `ask` becomes a block (no one
    /// answered the question, e.g. under `-p`, so the call did not run;
    /// its `decision` stays `ask`); with no firing recorded, one is
    /// started from the result line (`kinds`: `tool_result/permissionDecision`,
    /// `reason`: the result text).
    pub fn on_permission_reject(&mut self, id: &str, event: &str, text: &str, at: &At) {
        let call_line = at.call.map(|(l, _)| l);
        let on_call = |r: &HookActivity| {
            r.event.as_deref() == Some(event)
                && r.tool_use_id.as_deref() == Some(id)
                && (r.call_line.is_none() || call_line.is_none() || r.call_line == call_line)
        };
        if self
            .records
            .iter()
            .any(|r| on_call(r) && r.action == HookAction::Blocked)
        {
            return;
        }
        let mut asked = false;
        for r in self.records.iter_mut().filter(|r| on_call(r)) {
            if r.decision.as_deref() == Some("ask") {
                r.absorb(at.line, "tool_result/permissionDecision");
                r.raise(HookAction::Blocked);
                asked = true;
            }
        }
        if asked {
            return;
        }
        let i = self.start(at, "tool_result/permissionDecision");
        if let Some(r) = self.records.get_mut(i) {
            r.event = Some(event.into());
            r.tool_use_id = Some(id.to_string());
            if !text.trim().is_empty() {
                r.reason = Some(cap(text));
            }
            r.raise(HookAction::Blocked);
        }
    }
}
