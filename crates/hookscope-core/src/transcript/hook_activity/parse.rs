//! Reading the texts the transcript writes about hooks: a handler's
//! `[command]:` prefix, an exit code in a message, a tool result's hook
//! error, an operation a hook blocked, a prompt a hook rejected.

use hookscope_hook::event::EventKey;

/// Splits the handler Claude Code names in front of a hook's text:
/// `[<command>]: <rest>` → `(Some(command), rest)`; any other text →
/// `(None, text)`. Claude Code writes this prefix for a handler that exited
/// 2 (its stderr follows): in a blocked call's `tool_result`, a rejected
/// prompt's `system/informational` line, a blocking error
/// (docs/hooks.md#what-the-transcript-records).
pub fn split_handler_prefix(text: &str) -> (Option<&str>, &str) {
    let t = text.trim_start();
    match t.strip_prefix('[').and_then(|r| r.split_once("]: ")) {
        Some((command, rest)) if !command.trim().is_empty() && !command.contains('\n') => {
            (Some(command), rest)
        }
        _ => (None, text),
    }
}

/// An exit code a hook's text states in Claude Code's words: `… status
/// code N …` or `… exit code N …` (`Failed with non-blocking status code:
/// 1`); `None` when the text states none.
pub fn exit_code_in(text: &str) -> Option<i64> {
    for marker in ["status code", "exit code"] {
        let mut from = 0;
        while let Some(at) = text.get(from..).and_then(|t| t.find(marker)) {
            let rest = &text[from + at + marker.len()..];
            let rest = rest.trim_start_matches([':', ' ']);
            let digits: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            if let Ok(code) = digits.parse::<i64>() {
                return Some(code);
            }
            from += at + marker.len();
        }
    }
    None
}

/// The event of a `hookName` (`PreToolUse:Bash` → `PreToolUse`).
pub(super) fn event_of_name(name: &str) -> &str {
    name.split_once(':').map_or(name, |(e, _)| e)
}

/// A hook error written into a tool result: `(hook_name, command, reason)`
/// for `PreToolUse:Bash hook error: [cmd]: stderr` (command `Some`),
/// `PreToolUse:Bash hook error: reason` (command `None`) and `Hook
/// PreToolUse:Bash denied this tool` (empty reason). `<tool_use_error>`
/// tags around the text are ignored.
pub fn parse_result_hook_error(text: &str) -> Option<(String, Option<String>, String)> {
    let t = text.trim();
    let t = t
        .strip_prefix("<tool_use_error>")
        .map(|t| t.strip_suffix("</tool_use_error>").unwrap_or(t).trim())
        .unwrap_or(t);
    if let Some(rest) = t.strip_prefix("Hook ")
        && let Some((name, _)) = rest.split_once(" denied this tool")
        && name.contains(':')
        && !name.contains(char::is_whitespace)
    {
        return Some((name.to_string(), None, String::new()));
    }
    let (name, reason) = t.split_once(" hook error: ")?;
    if name.is_empty() || name.contains(char::is_whitespace) || !name.contains(':') {
        return None;
    }
    let (command, reason) = match reason.strip_prefix('[').and_then(|r| r.split_once("]: ")) {
        Some((cmd, stderr)) => (Some(cmd.to_string()), stderr),
        None => (None, reason),
    };
    Some((name.to_string(), command, reason.to_string()))
}

/// A prompt blocked by a hook: `(event, reason)` for a text containing
/// `<Event> operation blocked by hook` (the reason follows a `:` or a line
/// break, may be empty). [`parse_rejected_prompt`] reads the rest.
pub fn parse_operation_blocked(text: &str) -> Option<(String, String)> {
    let t = text.trim();
    let at = t.find(" operation blocked by hook")?;
    let event = t[..at].rsplit(char::is_whitespace).next().unwrap_or("");
    if event.is_empty() {
        return None;
    }
    let rest = &t[at + " operation blocked by hook".len()..];
    let reason = rest.trim_start_matches(':').trim();
    Some((event.to_string(), reason.to_string()))
}

/// A prompt a hook rejected, as Claude Code records it (2.1.332: a
/// `system`/`informational` line whose `content` is `UserPromptSubmit
/// operation blocked by hook:\n[<command>]: <stderr>\n\nOriginal prompt:
/// <prompt>` and whose `promptSubmitEnding` is `{ending: {kind:
/// "blocked_by_hook", reason}, promptKept: false}`;
/// docs/hooks.md#what-the-transcript-records).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedPrompt {
    /// The event that rejected it (`UserPromptSubmit`,
    /// `UserPromptExpansion`).
    pub event: EventKey,
    /// The handler named in `[…]` (an exit 2), when the text names one.
    pub command: Option<String>,
    /// Why: `promptSubmitEnding.ending.reason`, else the text after the
    /// header (and after the `[…]: ` prefix); may be empty.
    pub reason: String,
    /// The prompt the user submitted (`Original prompt: …`), when quoted.
    pub prompt: Option<String>,
}

/// Reads a rejected prompt out of `text` (and the line's
/// `promptSubmitEnding.ending.reason`, `ending_reason`, which settles where
/// the reason stops when the reason or the prompt themselves hold
/// `Original prompt:`); `None` when the text is not an `<Event> operation
/// blocked by hook` record.
pub fn parse_rejected_prompt(text: &str, ending_reason: Option<&str>) -> Option<RejectedPrompt> {
    const MARK: &str = " operation blocked by hook";
    const ORIGINAL: &str = "\n\nOriginal prompt: ";
    let at = text.find(MARK)?;
    let event = text[..at]
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or("")
        .to_string();
    if event.is_empty() {
        return None;
    }
    let body = &text[at + MARK.len()..];
    let body = body.strip_prefix(':').unwrap_or(body);
    let body = body.strip_prefix('\n').unwrap_or(body);
    let (command, rest) = split_handler_prefix(body);
    // Where the reason ends: right after the recorded reason when the text
    // carries it there, else at the first `Original prompt:`.
    let split = ending_reason
        .filter(|r| !r.is_empty())
        .and_then(|r| rest.strip_prefix(r).map(|after| (r, after)))
        .and_then(|(r, after)| {
            after
                .strip_prefix(ORIGINAL)
                .map(|p| (r.to_string(), Some(p)))
        });
    let (reason, prompt) = match split {
        Some((reason, prompt)) => (reason, prompt.map(str::to_string)),
        None => match rest.split_once(ORIGINAL) {
            Some((reason, prompt)) => (reason.trim().to_string(), Some(prompt.to_string())),
            None => (rest.trim().to_string(), None),
        },
    };
    let reason = match ending_reason.filter(|r| !r.is_empty()) {
        Some(r) => r.to_string(),
        None => reason,
    };
    Some(RejectedPrompt {
        event: event.into(),
        command: command.map(str::to_string),
        reason,
        prompt,
    })
}
