//! The Detail pane's subagent fields (under its spawning call) and a
//! subagent no call of the session spawned.

use super::*;

/// A subagent's type, description, agent id, models (the subagent's own
/// `message.model`s, which the meta sidecar does not record) and call
/// counts (`hint` says how to see the calls).
pub(super) fn subagent_fields(sub: &Subagent, hint: &str, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![field(
        "type",
        sub.agent_type.clone().unwrap_or_else(|| "?".into()),
        theme,
    )];
    if let Some(d) = &sub.description {
        out.push(field("description", d.clone(), theme));
    }
    if let Some(id) = &sub.agent_id {
        out.push(field("agent_id", id.clone(), theme));
    }
    if !sub.models.is_empty() {
        out.push(field("model", sub.models.join(", "), theme));
    }
    // The hint only when there are calls to see.
    let calls = sub.tool_calls().count();
    let errors = sub.tool_calls().filter(|c| c.is_error()).count();
    let hint = if calls == 0 {
        String::new()
    } else {
        format!(" — {hint}")
    };
    out.push(field(
        "calls",
        format!("{calls} ({}){hint}", plural(errors, "error")),
        theme,
    ));
    out
}

/// A subagent transcript that no call spawns: where it is and what it did.
pub(super) fn unlinked_lines(
    b: &mut Build<'_>,
    session: &Session,
    tree: &SpawnTree,
    s: usize,
) -> Vec<Line<'static>> {
    let ctx = b.ctx;
    let theme = &ctx.theme;
    let Some(sub) = session.subagents.get(s) else {
        return Vec::new();
    };
    let (title, why) = if tree.spawn_of(s).is_some() {
        (
            "Detached subagent",
            "Its spawning call is not reached from the main thread (the spawns form a cycle).",
        )
    } else {
        (
            "Unlinked subagent",
            "No call in this session spawns it (its Task/Agent call is not in the file).",
        )
    };
    let mut out = vec![heading(title, theme)];
    out.push(Line::from(Span::styled(why, theme.dim())));
    out.push(field("file", sub.path.display().to_string(), theme));
    out.extend(subagent_fields(sub, "Enter/Space expands them", theme));
    out.push(field(
        "tokens",
        format!(
            "{} in, {} out, {} cache write, {} cache read",
            sub.usage.input_tokens,
            sub.usage.output_tokens,
            sub.usage.cache_creation_input_tokens,
            sub.usage.cache_read_input_tokens
        ),
        theme,
    ));
    let prompt = sub.prompt();
    if !prompt.is_empty() {
        out.push(Line::default());
        out.push(heading("Prompt", theme));
        let mut counts = Redactions::new();
        out.extend(text_lines(
            &masked(&display_prompt(prompt), &mut counts),
            Style::default(),
        ));
    }
    out
}
