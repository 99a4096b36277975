//! The Detail pane's tool call: its fields, the typed view (a Bash call's
//! breakdown from the worker), the diff of its file changes, its subagent and
//! its output (up to the [`super::Limit`]).

use super::*;

pub(super) fn call_lines(
    b: &mut Build<'_>,
    session: &Session,
    tree: &SpawnTree,
    thread: Thread,
    record: &ToolCallRecord,
    hooks: &[&HookActivity],
) -> Vec<Line<'static>> {
    let ctx = b.ctx;
    let theme = &ctx.theme;
    let mut title = vec![
        Span::styled(record.name().to_string(), theme.tool()),
        Span::styled(format!("  {}", record.tool_kind.as_str()), theme.kind()),
    ];
    if let Some(res) = &record.tool_resolved {
        title.push(Span::styled(format!("  → {res}"), theme.tool()));
    }
    // A call a hook blocked never ran: its error result is the hook's.
    let blocked = hooks
        .iter()
        .any(|h| h.action == hookscope_core::transcript::hook_activity::HookAction::Blocked);
    let status = match &record.result {
        None => Span::styled("  no result", theme.dim()),
        Some(r) if r.is_error && blocked => Span::styled("  ⛔ blocked by a hook", theme.error()),
        Some(r) if r.is_error => Span::styled("  ✗ error", theme.error()),
        Some(_) => Span::styled("  ✓ ok", theme.added()),
    };
    title.push(status);
    if record.result.is_some() && session.agent.error_flag_derived() {
        // Codex records no error flag: it is derived from the exit code.
        title.push(Span::styled(
            " (from the exit code; not reliable)",
            theme.dim(),
        ));
    }
    let mut out = vec![Line::from(title)];
    // OpenCode stores records, not lines: name the part.
    let sub = match thread {
        Thread::Sub(s) => Some(s),
        Thread::Main => None,
    };
    let mut where_ = match session.locus_of(sub, record.line) {
        hookscope_core::transcript::Locus::Record(id) => format!("record {id}"),
        hookscope_core::transcript::Locus::Line(n) => format!("line {n}"),
    };
    if let Thread::Sub(s) = thread {
        // Every spawn from the main thread down, so a depth-2 call says
        // both, and three general-purpose agents are told apart.
        let path: Vec<String> = spawn_chain(tree, s)
            .into_iter()
            .map(|s| subagent_label(session, s, 40))
            .collect();
        where_.push_str(&format!(" of subagent {}", path.join(" › ")));
    }
    if let Some(t) = record.timestamp {
        where_.push_str(&format!(
            ", {}",
            crate::tui::fmt_time(t, ctx.utc_offset, "%Y-%m-%d %H:%M:%S")
        ));
        if let Some(end) = record.result.as_ref().and_then(|r| r.timestamp) {
            where_.push_str(&format!(" ({})", fmt_duration(t, end)));
        }
    }
    out.push(field("at", where_, theme));
    out.push(field("id", record.tool_use_id.clone(), theme));
    for h in hooks.iter().filter(|h| h.action.acted()) {
        // What a hook did to this call, up front: a rewrite means the
        // input below is not what ran.
        let mut counts = Redactions::new();
        out.push(Line::from(Span::styled(
            masked(&h.what(200), &mut counts),
            match h.action {
                HookAction::Blocked | HookAction::Failed | HookAction::Cancelled => theme.error(),
                _ => theme.kind(),
            },
        )));
    }
    out.push(Line::default());
    if let Some(matches) = ctx.backtest_here.get(&record.tool_use_id) {
        out.extend(backtest_section(matches, theme));
    }
    for h in hooks {
        out.push(heading(&format!("Hook {}", h.event_name()), theme));
        out.extend(hook_lines(h, session, thread, theme));
        out.push(Line::default());
    }
    let logged = super::super::context::decisions_on(&ctx.decisions, record);
    if !logged.is_empty() {
        out.push(heading("Rules, live (hookscope hook)", theme));
        for l in logged {
            out.extend(decision_lines(l, theme));
        }
        out.push(Line::default());
    }

    out.push(heading("Input", theme));
    match record.call.raw() {
        Some(raw) => {
            let mut counts = Redactions::new();
            let raw = redactor().redact_value(raw, &mut counts);
            out.extend(redaction_note(&counts, theme));
            out.extend(json::lines(&raw, theme));
        }
        None => out.push(Line::from(Span::styled("(no input)", theme.dim()))),
    }
    if let Some(ran) = session.ran_input(sub, record) {
        // The tool ran a PreToolUse hook's rewrite, not the model's input.
        out.push(Line::default());
        out.push(heading(
            "Ran with (a PreToolUse hook rewrote the input)",
            theme,
        ));
        let mut counts = Redactions::new();
        let ran = redactor().redact_value(ran, &mut counts);
        out.extend(redaction_note(&counts, theme));
        out.extend(json::lines(&ran, theme));
    }
    let parse = match &record.call {
        ToolCall::Bash(bash) => {
            let key = bash_key(&record.tool_use_id, bash);
            let parse = b.parses.get(&key).cloned();
            if parse.is_none() {
                b.missing = Some((key, bash.command.clone()));
            }
            parse
        }
        _ => None,
    };
    let digest = hookscope_core::transcript::call_digest(session, sub, record).ok();
    let typed = typed_view(record, theme, parse.as_deref(), digest);
    if !typed.is_empty() {
        out.push(Line::default());
        out.push(heading("Typed", theme));
        out.extend(typed);
    }
    if let Some(change) = hookscope_core::transcript::diff::call_diff(record) {
        out.push(Line::default());
        let patch = change
            .files
            .iter()
            .any(|f| f.source == hookscope_core::transcript::diff::DiffSource::ApplyPatch);
        out.push(heading(
            if patch { "Diff (apply_patch)" } else { "Diff" },
            theme,
        ));
        let mut counts = Redactions::new();
        out.extend(diff::call_lines(&change, theme, &mut |t| {
            masked(t, &mut counts)
        }));
    }
    if let Some(sub) = record.subagent.and_then(|s| session.subagents.get(s)) {
        out.push(Line::default());
        out.push(heading("Subagent", theme));
        out.extend(subagent_fields(
            sub,
            "Enter/Space in the timeline expands them",
            theme,
        ));
        if let Some(s) = record.subagent
            && spawn_chain(tree, s).len() > 1
        {
            let path: Vec<String> = spawn_chain(tree, s)
                .into_iter()
                .map(|s| subagent_label(session, s, 40))
                .collect();
            out.push(field("spawned via", path.join(" › "), theme));
        }
    }
    out.push(Line::default());
    out.push(heading("Output", theme));
    out.extend(output_view(record, theme, b.limit));
    for h in hooks.iter().filter(|h| h.updated_output.is_some()) {
        // A PostToolUse hook replaced what the model saw of the output.
        if let Some(o) = &h.updated_output {
            out.push(Line::default());
            out.push(heading(
                &format!(
                    "What the model saw instead ({} replaced the output)",
                    h.hook_name.as_deref().unwrap_or(h.event_name())
                ),
                theme,
            ));
            let mut counts = Redactions::new();
            out.extend(text_lines(
                &masked(
                    &hookscope_core::transcript::hook_activity::output_text(o),
                    &mut counts,
                ),
                Style::new(),
            ));
        }
    }
    b.more |= record
        .result
        .as_ref()
        .is_some_and(|r| !cut_text(&r.text, b.limit).1.is_empty());
    out
}

/// The typed view of a call (`parse_tool_call`'s variant): what the call
/// means rather than its JSON. For Bash, the simple calls the command runs
/// (`BashCall::command_line`, tree-sitter-bash): program, args, leading
/// `VAR=val`, redirects and the operator to the next call.
/// `parse` is the Bash line's breakdown once the worker has it ("parsing…"
/// until then); `digest` the call's (`transcript::call_digest`), shown last.
pub fn typed_view(
    record: &ToolCallRecord,
    theme: &Theme,
    parse: Option<&CommandLine>,
    digest: Option<String>,
) -> Vec<Line<'static>> {
    let mut out = vec![field("type", record.call.type_name().to_string(), theme)];
    if let Some(path) = hookscope_core::tools::file_path_of(&record.call) {
        out.push(field("file", path.to_string(), theme));
    }
    match &record.call {
        ToolCall::Bash(bash) => {
            if let Some(d) = &bash.description {
                out.push(field("description", d.clone(), theme));
            }
            if let Some(t) = bash.timeout {
                out.push(field("timeout", format!("{t} ms"), theme));
            }
            if bash.run_in_background == Some(true) {
                out.push(field("background", "yes".to_string(), theme));
            }
            match parse {
                None => out.push(Line::from(Span::styled("parsing…", theme.dim()))),
                Some(line) => out.extend(bash_lines(line, theme)),
            }
        }
        ToolCall::Task(task) => {
            if let Some(t) = &task.subagent_type {
                out.push(field("subagent_type", t.clone(), theme));
            }
            if let Some(m) = &task.model {
                out.push(field("model", m.clone(), theme));
            }
            if task.run_in_background == Some(true) {
                out.push(field("background", "yes".to_string(), theme));
            }
            out.push(field("description", task.description.clone(), theme));
        }
        ToolCall::Read(read) => {
            if let Some(o) = read.offset {
                out.push(field("offset", o.to_string(), theme));
            }
            if let Some(l) = read.limit {
                out.push(field("limit", l.to_string(), theme));
            }
        }
        ToolCall::Glob(glob) => {
            out.push(field("pattern", glob.pattern.clone(), theme));
            if let Some(p) = &glob.path {
                out.push(field("path", p.clone(), theme));
            }
        }
        ToolCall::Grep(grep) => {
            out.push(field("pattern", grep.pattern.clone(), theme));
            for (k, v) in [
                ("path", &grep.path),
                ("glob", &grep.glob),
                ("output_mode", &grep.output_mode),
            ] {
                if let Some(v) = v {
                    out.push(field(k, v.clone(), theme));
                }
            }
        }
        ToolCall::Skill(skill) => out.push(field("skill", skill.skill.clone(), theme)),
        ToolCall::Edit(edit) if edit.replace_all => {
            out.push(field("replace_all", "true".to_string(), theme));
        }
        ToolCall::MultiEdit(multi) => {
            out.push(field("edits", multi.edits.len().to_string(), theme));
        }
        ToolCall::Other(other) => {
            if let Some((server, tool)) = hookscope_core::tools::mcp_parts(record.name()) {
                out.push(field(
                    "mcp",
                    format!(
                        "server {server}, tool {tool} ({})",
                        hookscope_core::tools::mcp_access(tool)
                    ),
                    theme,
                ));
            }
            if let Some(err) = &other.error {
                out.push(Line::from(Span::styled(
                    format!("malformed input: {err}"),
                    theme.error(),
                )));
            }
        }
        _ => {}
    }
    if let Some(d) = digest {
        out.push(field("digest", d, theme));
    }
    out
}

/// A parsed Bash line as lines, from the core's `CommandLine::shown_calls`:
/// each simple call with its words shell-quoted and its operator (secrets
/// masked), a `sh -c` script's calls under it as `1.1 ↳`, `1.2 ↳`, then the
/// parse problem and the parser-limit note if any.
pub(super) fn bash_lines(line: &CommandLine, theme: &Theme) -> Vec<Line<'static>> {
    let mut counts = Redactions::new();
    let mut out = Vec::new();
    out.push(Line::from(Span::styled(
        format!("runs {} simple call(s):", line.calls.len()),
        theme.dim(),
    )));
    let mut labels: Vec<String> = Vec::new();
    let mut children: Vec<usize> = Vec::new();
    let mut top = 0;
    for shown in line.shown_calls() {
        let label = match shown.unwrapped_from {
            Some(from) => {
                let k = children.get_mut(from).map_or(1, |c| {
                    *c += 1;
                    *c
                });
                format!("{}.{k}", labels.get(from).map_or("?", String::as_str))
            }
            None => {
                top += 1;
                top.to_string()
            }
        };
        let lead = if shown.depth == 0 {
            format!("{label:>2}. ")
        } else {
            format!("{}{label} ↳ ", "  ".repeat(shown.depth + 1))
        };
        labels.push(label);
        children.push(0);
        let mut spans = vec![
            Span::styled(lead, theme.dim()),
            Span::raw(masked(&shown.text, &mut counts)),
        ];
        if let Some(op) = &shown.operator {
            spans.push(Span::styled(format!("  {op}"), theme.heading()));
        }
        out.push(Line::from(spans));
        if let Some(err) = &shown.script_error {
            out.push(Line::from(Span::styled(
                format!("    its script does not parse: {err}"),
                theme.error(),
            )));
        }
    }
    if let Some(err) = &line.error {
        out.push(Line::from(Span::styled(
            format!("does not parse: {err}"),
            theme.error(),
        )));
    }
    if let Some(note) = line.limits_note() {
        out.push(Line::from(Span::styled(note, theme.error())));
    }
    out
}

/// The call's output text (red when `is_error`), with secrets masked as
/// `[REDACTED_<TYPE>]`; the first line says how many were masked. Only the
/// first [`Limit`] lines and bytes are built (cut at a line end when one is
/// in reach), then a line saying how much more there is and that `o` shows
/// more.
pub fn output_view(record: &ToolCallRecord, theme: &Theme, limit: Limit) -> Vec<Line<'static>> {
    match &record.result {
        None => vec![Line::from(Span::styled(
            "(no result recorded: interrupted, still running, or the file was cut)",
            theme.dim(),
        ))],
        Some(r) if r.text.is_empty() => {
            vec![Line::from(Span::styled("(empty)", theme.dim()))]
        }
        Some(r) => {
            let style = if r.is_error {
                theme.error()
            } else {
                Style::new()
            };
            let (head, rest) = cut_text(&r.text, limit);
            let mut counts = Redactions::new();
            let text = masked(head, &mut counts);
            let mut out = redaction_note(&counts, theme);
            out.extend(text_lines(&text, style));
            if !rest.is_empty() {
                let more = rest.lines().count();
                out.push(Line::from(Span::styled(
                    format!(
                        "… {more} more {} ({}) — press o to show more",
                        if more == 1 { "line" } else { "lines" },
                        size_text(rest.len())
                    ),
                    theme.heading(),
                )));
            }
            out
        }
    }
}

/// One logged decision of `hookscope hook` on a call: when, the verdict, the
/// rule file and whether it changed since, then each matched rule with its
/// why as it was live (masked when written).
pub(super) fn decision_lines(
    l: &hookscope_core::hooks::decisions::Logged,
    theme: &Theme,
) -> Vec<Line<'static>> {
    use hookscope_core::hooks::decisions::RulesNow;
    let verdict_style = theme.verdict(&l.verdict);
    let now = match l.rules_now {
        RulesNow::Unchanged => "unchanged since",
        RulesNow::Changed => "changed since: a replay today may differ",
        RulesNow::Unknown => "cannot tell whether it changed",
        RulesNow::NotRead => "not read by the hook (it failed first)",
    };
    // The log is a file anyone with the user's rights could edit: its
    // texts are shown with their control characters as visible escapes.
    let clean = |t: &str| -> String {
        hookscope_core::printable::printable(t)
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect()
    };
    let mut out = vec![Line::from(vec![
        Span::styled(
            format!("{} {} ", clean(&l.time), clean(&l.event)),
            theme.dim(),
        ),
        Span::styled(clean(&l.verdict), verdict_style),
    ])];
    out.push(field(
        "rules",
        format!("{} ({now})", clean(&l.rules_path)),
        theme,
    ));
    // What the hook answered: a rewrite's new input is in its stdout, a
    // failure says on stderr whether the call was allowed or blocked.
    let mut answer = match l.exit_code {
        Some(code) => format!("exit {code}"),
        None => "exit ?".to_string(),
    };
    if let Some(stdout) = &l.stdout {
        answer.push_str(&format!(", stdout {}", clean(&stdout.to_string())));
    }
    out.push(field("answer", answer, theme));
    // After a failure stderr repeats it (with what the mode did): the
    // `failed:` line below says it once.
    let repeats = l.failure.as_deref().is_some_and(|f| l.stderr.contains(f));
    if !l.stderr.trim().is_empty() && !repeats {
        out.push(field("stderr", clean(l.stderr.trim_end()), theme));
    }
    for r in &l.matched {
        let mut line = format!("  ✓ {} → {}", clean(&r.id), clean(&r.verdict));
        if !r.why.is_empty() {
            line.push_str(&format!(": {}", clean(&r.why)));
        }
        out.push(Line::from(Span::raw(line)));
    }
    // Why no rule acted: the rules that got past event and tool, each
    // with the condition that stopped it (as `hooks --decisions` prints).
    if l.matched.is_empty() {
        for r in &l.considered {
            out.push(Line::from(Span::styled(
                format!("  ✗ {}: {}", clean(&r.id), clean(&r.why)),
                theme.dim(),
            )));
        }
    }
    if let Some(f) = &l.failure {
        out.push(Line::from(Span::styled(
            format!("  failed: {}", clean(f)),
            theme.error(),
        )));
    }
    out
}

/// The backtest list's matches on what Detail shows (a call, or the line
/// of an event that is not one), when it was reached from that list: what
/// each rule would do there (`r` shows every rule's why), then a blank
/// line.
pub(super) fn backtest_section(
    matches: &[(String, hookscope_core::hooks::replay::Example)],
    theme: &crate::tui::theme::Theme,
) -> Vec<Line<'static>> {
    let mut out = vec![heading("Backtest (B) — r: the whys", theme)];
    for (rule, m) in matches {
        out.push(Line::from(vec![
            Span::styled(
                format!("{} ", crate::tui::backtest::mark(m)),
                if m.verdict == "block" {
                    theme.error()
                } else {
                    theme.kind()
                },
            ),
            Span::raw(format!("{} · {rule}", m.event.as_str())),
        ]));
    }
    out.push(Line::default());
    out
}
