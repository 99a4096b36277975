//! A Codex rollout's family: the lineage its `session_meta` records
//! (forks and subagent children), the copy of the parent's history a fork
//! starts with ([`Replay`]), and linking child rollouts to their parent.

use super::*;

/// What a rollout's own (first) `session_meta` says about where it came
/// from (docs/transcripts.md#the-rollout-envelope: `forked_from_id`, `parent_thread_id`,
/// `source.subagent`). Every field is `None` for a rollout started by the
/// user (and for every rollout before these fields existed).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lineage {
    /// `payload.id`: the rollout's own thread id.
    pub id: Option<String>,
    /// `payload.forked_from_id`: the thread whose history was copied in.
    pub forked_from_id: Option<String>,
    /// `source.subagent.thread_spawn.parent_thread_id`, else
    /// `payload.parent_thread_id` (newer rollouts write both): the thread
    /// that spawned this one.
    pub parent_thread_id: Option<String>,
    /// The kind of subagent thread from `source.subagent`: `thread_spawn`,
    /// `review`, `compact`, or the value of `{"other": …}`; `None` when
    /// `source` is not a subagent (`cli`, `vscode`, `exec`, …).
    pub subagent: Option<String>,
    /// `thread_spawn.agent_path` (else `payload.agent_path`): the
    /// subagent's task name (multi-agent v2 `spawn_agent` answers with it).
    pub agent_path: Option<String>,
    /// `thread_spawn.agent_nickname` (else `payload.agent_nickname`).
    pub agent_nickname: Option<String>,
    /// `thread_spawn.agent_role` (else `payload.agent_role`).
    pub agent_role: Option<String>,
}

impl Lineage {
    /// Reads a `session_meta` payload; strings that are empty count as
    /// absent.
    pub fn from_meta(meta: &Value) -> Lineage {
        let s = |v: &Value, k: &str| str_of(v, k).filter(|s| !s.is_empty()).map(str::to_string);
        let sub = meta.get("source").and_then(|src| src.get("subagent"));
        let spawn = sub.and_then(|s| s.get("thread_spawn"));
        let kind = match sub {
            Some(Value::String(k)) if !k.is_empty() => Some(k.clone()),
            Some(Value::Object(o)) => match (o.get("thread_spawn"), o.get("other")) {
                (Some(_), _) => Some("thread_spawn".to_string()),
                (None, Some(Value::String(other))) if !other.is_empty() => Some(other.clone()),
                _ => o.keys().next().cloned(),
            },
            _ => None,
        };
        let from_spawn = |k: &str| spawn.and_then(|sp| s(sp, k)).or_else(|| s(meta, k));
        Lineage {
            id: s(meta, "id"),
            forked_from_id: s(meta, "forked_from_id"),
            parent_thread_id: from_spawn("parent_thread_id"),
            subagent: kind,
            agent_path: from_spawn("agent_path"),
            agent_nickname: from_spawn("agent_nickname"),
            agent_role: from_spawn("agent_role"),
        }
    }

    /// The thread this one belongs under: `parent_thread_id`, else
    /// `forked_from_id`; `None` when neither is set or it names the rollout
    /// itself.
    pub fn parent(&self) -> Option<&str> {
        self.parent_thread_id
            .as_deref()
            .or(self.forked_from_id.as_deref())
            .filter(|p| Some(*p) != self.id.as_deref())
    }

    /// Whether the rollout names itself as its parent (ignored).
    pub fn names_itself(&self) -> bool {
        let own = self.id.as_deref();
        own.is_some()
            && (self.parent_thread_id.as_deref() == own || self.forked_from_id.as_deref() == own)
    }

    /// How the child is shown as a subagent: the agent role, else the
    /// subagent kind, else `fork` for a fork made by the user.
    pub fn kind(&self) -> String {
        self.agent_role
            .clone()
            .or_else(|| self.subagent.clone())
            .unwrap_or_else(|| "fork".to_string())
    }
}

/// The lineage of the rollout at `path`, from its first line when that is
/// a `session_meta` (read through [`crate::transcript::fsread::open_decoded`], at most
/// [`LINEAGE_LINE_CAP`] bytes of it); `None` when it is not, or the line is
/// longer or not JSON (discovery then treats the rollout as a root).
pub fn read_lineage(path: &Path) -> Option<Lineage> {
    use std::io::{BufRead, BufReader, Read};
    let file = crate::transcript::fsread::open_decoded(path).ok()?;
    let mut reader = BufReader::new(file.take(LINEAGE_LINE_CAP));
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).ok()? == 0 {
            return None;
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            break;
        }
    }
    let v: Value = serde_json::from_slice(crate::transcript::jsonl::line_bytes(&line)).ok()?;
    if str_of(&v, "type") != Some("session_meta") {
        return None;
    }
    v.get("payload")
        .filter(|p| p.is_object())
        .map(Lineage::from_meta)
}

/// The most bytes [`read_lineage`] reads (4 MiB; a real first
/// `session_meta` line, with its base instructions, is 20–60 KB).
pub const LINEAGE_LINE_CAP: u64 = 4 << 20;

/// The millisecond Unix time of a version-7 UUID
/// (`019fc8be-3658-7ca3-…`: its first 48 bits), else `None`. Codex thread
/// and turn ids are UUIDv7 from about 0.4x on.
pub fn uuid_v7_millis(id: &str) -> Option<u64> {
    let b = id.as_bytes();
    let shape = b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        });
    if !shape || b[14] != b'7' {
        return None;
    }
    let hex = format!("{}{}", id.get(0..8)?, id.get(9..13)?);
    u64::from_str_radix(&hex, 16).ok()
}

/// Where a forked rollout's copy of its parent's history is.
///
/// Codex writes a fork (`codex fork`, `/fork`, app-server `thread/fork`)
/// and a `spawn_agent` child with forked context as: its own
/// `session_meta`, then the parent's rollout items re-written with new
/// timestamps (the parent's `session_meta` first; a spawn keeps only
/// messages, final answers, events and turn contexts), then its own turns
/// (codex-rs `InitialHistory::Forked`, `RolloutRecorder`). The copy is
/// recognised when the line after the own `session_meta` is a
/// `session_meta` with another id; it ends before the first line that
/// repeats the own `session_meta`, or carries a turn id (see
/// `turn_id_of`) that is a UUIDv7 no older than the own id (a copied
/// turn started before the fork, so its id is older). When the file ends
/// first: the whole rest is the copy if it holds UUIDv7 turn ids (nothing
/// of its own yet), else its end is not marked: with the parent's rollout
/// loaded alongside ([`load_session_with`]), the copy is found by
/// comparing the two (the longest run of lines whose `type` and `payload`
/// follow the parent's lines in order); without it, a diagnostic says so and the lines
/// count as the rollout's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replay {
    /// 1-based first line of the copy (the parent's `session_meta`).
    pub first_line: usize,
    /// 1-based last line of the copy.
    pub last_line: usize,
    /// Lines of the copy that parsed (blank and bad lines excluded).
    pub lines: usize,
}

/// The replay detector's state while reading.
#[derive(Default)]
pub(super) enum ReplayState {
    /// Before the own `session_meta` and the line after it.
    #[default]
    Start,
    /// No copied prefix (or it has ended).
    Off,
    /// Inside a candidate copy: its lines are held until its end is known.
    Buffering {
        first_line: usize,
        held: Vec<(usize, Value)>,
        saw_turn_id: bool,
    },
}

/// The last line of `child`'s copy of its parent's history, found by
/// comparing it with the parent's rollout `parent` (used when the copy's
/// end is not marked by turn ids, [`Replay`]): from `first_line` on, each
/// child line whose `type` and `payload` equal those of a parent line after
/// the previous match is part of the copy (a subsequence: a `spawn_agent`
/// fork copies only some of the parent's items); the copy ends before the
/// first line that matches none. `None` when no line matches or a file
/// cannot be read.
pub(super) fn copy_end_by_parent(child: &Path, first_line: usize, parent: &Path) -> Option<usize> {
    let key = |v: &Value| -> Option<String> {
        let kind = str_of(v, "type")?;
        Some(format!("{kind}\u{0}{}", v.get("payload")?))
    };
    let mut ignored = Vec::new();
    let mut positions: HashMap<String, Vec<usize>> = HashMap::new();
    let mut n = 0usize;
    read_objects(parent, &mut ignored, |_, v| {
        if let Some(k) = key(&v) {
            positions.entry(k).or_default().push(n);
        }
        n += 1;
    })
    .ok()?;
    let mut cursor: Option<usize> = None;
    let mut end = None;
    let mut open = true;
    read_objects(child, &mut ignored, |line_no, v| {
        if !open || line_no < first_line {
            return;
        }
        let next = key(&v).and_then(|k| positions.get(&k)).and_then(|found| {
            let from = cursor.map_or(0, |c| c + 1);
            found.get(found.partition_point(|&p| p < from)).copied()
        });
        match next {
            Some(p) => {
                cursor = Some(p);
                end = Some(line_no);
            }
            None => open = false,
        }
    })
    .ok()?;
    end
}

/// Turns child threads (ids unique, none the main one's) into the main
/// thread's subagents (index `i` is `threads[i]`), each tied to its parent
/// thread's spawn call when there is one. A child's parent is the main
/// thread or another child with the parent's id; every call spawns at most
/// one child and every child is spawned by at most one call, so a cycle of
/// parent links cannot loop.
pub(super) fn link_children(
    main: &mut Thread,
    mut threads: Vec<Thread>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Subagent> {
    let first_of: HashMap<String, usize> = threads
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.clone(), i))
        .collect();
    // (child, parent thread: None = main, call) for every link found.
    let mut links: Vec<(usize, Option<usize>, String, SubagentLink)> = Vec::new();
    for (i, child) in threads.iter().enumerate() {
        let Some(parent) = child.lineage.parent() else {
            continue;
        };
        let parent_thread = if parent == main.id {
            None
        } else if let Some(&j) = first_of.get(parent).filter(|&&j| j != i) {
            Some(j)
        } else {
            diagnostics.push(Diagnostic::at_line(
                &child.path,
                child.loader.meta_line.unwrap_or(1),
                format!("parent session {parent} is not among the rollouts read with it"),
            ));
            continue;
        };
        let found = match parent_thread {
            None => main.spawn_call_of(child),
            Some(j) => threads[j].spawn_call_of(child),
        };
        if let Some((call, how)) = found {
            links.push((i, parent_thread, call, how));
        }
    }
    let mut spawned: Vec<Option<(String, SubagentLink)>> = vec![None; threads.len()];
    for (i, parent_thread, call, how) in links {
        let marked = match parent_thread {
            None => main.mark_spawn(&call, i),
            Some(j) => threads[j].mark_spawn(&call, i),
        };
        if marked {
            spawned[i] = Some((call, how));
        }
    }
    threads
        .iter_mut()
        .zip(spawned)
        .map(|(t, spawn)| {
            let replay = t.replay.map(
                |r| json!({"first_line": r.first_line, "last_line": r.last_line, "lines": r.lines}),
            );
            let meta = json!({
                "id": t.id,
                "forked_from_id": t.lineage.forked_from_id,
                "parent_thread_id": t.lineage.parent_thread_id,
                "subagent": t.lineage.subagent,
                "agent_path": t.lineage.agent_path,
                "agent_nickname": t.lineage.agent_nickname,
                "agent_role": t.lineage.agent_role,
                "replayed_lines": replay,
            });
            let (spawn_tool_use_id, link) = match spawn {
                Some((call, how)) => (Some(call), Some(how)),
                None => (None, None),
            };
            Subagent {
                agent_id: Some(t.id.clone()),
                agent_type: Some(t.lineage.kind()),
                description: t
                    .lineage
                    .agent_nickname
                    .clone()
                    .or_else(|| t.lineage.agent_path.clone())
                    .or_else(|| t.title()),
                path: t.path.clone(),
                layout: Some(SubagentLayout::ChildSession),
                spawn_tool_use_id,
                link,
                meta: Some(meta),
                turns: std::mem::take(&mut t.loader.turns),
                usage: t.usage,
                models: std::mem::take(&mut t.loader.models),
                started: t.loader.started,
                ended: t.loader.ended,
                lines: LineIndex::default(),
            }
        })
        .collect()
}
