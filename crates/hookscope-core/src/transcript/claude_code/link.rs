//! Linking every subagent to its spawning Task/Agent call: `toolUseId` from
//! the meta sidecar, else `agentId` on the spawn's result, else the spawn's
//! `input.prompt` equal to the subagent's first prompt.

use super::*;

/// Every tool call record of the session, main thread and subagents, mutably.
pub(super) fn tool_calls_mut(session: &mut Session) -> impl Iterator<Item = &mut ToolCallRecord> {
    session
        .turns
        .iter_mut()
        .chain(
            session
                .subagents
                .iter_mut()
                .flat_map(|s| s.turns.iter_mut()),
        )
        .flat_map(|turn| turn.events.iter_mut())
        .filter_map(|event| match event {
            Event::ToolCall(record) => Some(&mut **record),
            _ => None,
        })
}

/// What linking needs of one Task/Agent call.
pub(crate) struct SpawnFacts {
    /// The thread the call is in (`None` = main, `Some(i)` = subagent i).
    pub(crate) owner: Option<usize>,
    /// Position of the call in [`Session::all_tool_calls`] order (the order
    /// [`tool_calls_mut`] visits too): the one record a link is set on, even
    /// when another call (e.g. the subagent's own) reuses its `tool_use_id`.
    pub(crate) ordinal: usize,
    pub(crate) tool_use_id: String,
    pub(crate) agent_id: Option<String>,
    pub(crate) prompt: Option<String>,
    pub(crate) subagent_type: Option<String>,
    pub(crate) description: Option<String>,
}

/// A Task/Agent call's `prompt`, trimmed: what a subagent's first prompt
/// is compared with (the last linking rule).
pub(crate) fn spawn_prompt(r: &ToolCallRecord) -> Option<String> {
    r.call
        .raw()
        .and_then(|raw| raw.get("prompt"))
        .and_then(Value::as_str)
        .map(|p| p.trim().to_string())
}

/// What linking needs of one subagent.
pub(crate) struct SubFacts<'a> {
    /// Its meta sidecar's `toolUseId`.
    pub(crate) meta_tool_use_id: Option<&'a str>,
    /// Its `agentId` (the thread's, else the file name's).
    pub(crate) agent_id: Option<&'a str>,
    /// Its first prompt ([`Subagent::prompt`]).
    pub(crate) prompt: &'a str,
}

impl<'a> SubFacts<'a> {
    fn of(sub: &'a Subagent) -> SubFacts<'a> {
        SubFacts {
            meta_tool_use_id: sub
                .meta
                .as_ref()
                .and_then(|m| m.get("toolUseId"))
                .and_then(Value::as_str),
            agent_id: sub.agent_id.as_deref(),
            prompt: sub.prompt(),
        }
    }
}

/// Whether a subagent and a spawn match under one linking rule.
pub(super) type LinkRule = dyn Fn(&SubFacts<'_>, &SpawnFacts) -> bool;

/// For each subagent, the spawn (an index into `spawns`, in
/// [`Session::all_tool_calls`] order) it is linked to and how: passes in
/// order of trust (meta `toolUseId`, then `agentId`, then prompt text); a
/// spawn is taken once, and never by a subagent's own calls (module docs).
pub(crate) fn link_pairs(
    subs: &[SubFacts<'_>],
    spawns: &[SpawnFacts],
) -> Vec<Option<(usize, SubagentLink)>> {
    let mut links: Vec<Option<(usize, SubagentLink)>> = vec![None; subs.len()];
    let mut taken = vec![false; spawns.len()];
    let passes: [(SubagentLink, &LinkRule); 3] = [
        (SubagentLink::MetaToolUseId, &|sub, spawn| {
            sub.meta_tool_use_id == Some(spawn.tool_use_id.as_str())
        }),
        (SubagentLink::AgentId, &|sub, spawn| {
            sub.agent_id.is_some() && spawn.agent_id.as_deref() == sub.agent_id
        }),
        (SubagentLink::PromptText, &|sub, spawn| {
            let prompt = sub.prompt.trim();
            !prompt.is_empty() && spawn.prompt.as_deref() == Some(prompt)
        }),
    ];
    for (how, matches) in passes {
        for (i, sub) in subs.iter().enumerate() {
            if links[i].is_some() {
                continue;
            }
            let found = spawns
                .iter()
                .enumerate()
                .find(|(j, spawn)| !taken[*j] && spawn.owner != Some(i) && matches(sub, spawn));
            if let Some((j, _)) = found {
                taken[j] = true;
                links[i] = Some((j, how));
            }
        }
    }
    links
}

pub(super) fn link_subagents(session: &mut Session) {
    let spawns: Vec<SpawnFacts> = session
        .all_tool_calls()
        .enumerate()
        .filter(|(_, (_, r))| r.tool_kind == crate::tools::ToolKind::Task)
        .map(|(ordinal, (owner, r))| {
            let get = |k: &str| {
                r.call
                    .raw()
                    .and_then(|raw| raw.get(k))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            };
            SpawnFacts {
                owner,
                ordinal,
                tool_use_id: r.tool_use_id.clone(),
                agent_id: r.result.as_ref().and_then(|res| res.agent_id.clone()),
                prompt: spawn_prompt(r),
                subagent_type: get("subagent_type"),
                description: get("description"),
            }
        })
        .collect();
    let facts: Vec<SubFacts<'_>> = session.subagents.iter().map(SubFacts::of).collect();
    let links = link_pairs(&facts, &spawns);
    // Only the matched spawn record is linked (by its position, not its id):
    // a subagent's own call reusing the spawn's `tool_use_id` must not point
    // at the subagent itself.
    let spawn_of: HashMap<usize, usize> = links
        .iter()
        .enumerate()
        .filter_map(|(i, link)| link.map(|(j, _)| (spawns[j].ordinal, i)))
        .collect();
    for (ordinal, record) in tool_calls_mut(session).enumerate() {
        if let Some(&i) = spawn_of.get(&ordinal) {
            record.subagent = Some(i);
        }
    }
    for (sub, link) in session.subagents.iter_mut().zip(links) {
        let Some((j, how)) = link else {
            continue;
        };
        let spawn = &spawns[j];
        sub.spawn_tool_use_id = Some(spawn.tool_use_id.clone());
        sub.link = Some(how);
        if sub.agent_type.is_none() {
            sub.agent_type = spawn.subagent_type.clone();
        }
        if sub.description.is_none() {
            sub.description = spawn.description.clone();
        }
    }
}
