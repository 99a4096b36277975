//! Parsed sessions kept between queries (the TUI's Calls view, the MCP
//! server), bounded by an estimate of their size in memory.
//!
//! A [`SessionCache`] hands out the [`Session`] of a [`SessionRef`], parsing
//! it with [`super::load`] on a miss. An entry is used again only while its
//! files (main transcript, subagent files and their `.meta.json`) have the
//! same size, mtime, ctime and inode as when it was parsed — one `stat` per
//! file on each use — so a session still being written, or rewritten with
//! its size and mtime put back, is parsed again. Entries are
//! evicted least recently used first once the sum of their
//! [`estimated_size`]s would pass the budget; a session bigger than the whole
//! budget is parsed and handed out but not kept.
//!
//! [`SessionCache::get`] has the shape of a `query::Finder` loader
//! (`Result<Arc<Session>, String>`), so a query can read through it:
//! `Finder::new(&sessions, &query).loader(&|s| cache.get(s)).run()`.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::{Event, LineIndex, Session, SessionRef, Subagent, ToolCallRecord, Turn};

/// Default budget of the TUI and the MCP server: 1 GiB of estimated parsed
/// size ([`estimated_size`]).
pub const DEFAULT_BUDGET: usize = 1 << 30;

/// Fixed bytes counted per tool call record (the typed call, the result,
/// the boxed event and their bookkeeping; measured struct sizes rounded up).
pub const RECORD_OVERHEAD: usize = 512;

/// Fixed bytes counted per other event, turn, subagent and diagnostic.
pub const ITEM_OVERHEAD: usize = 96;

/// Fixed bytes counted per JSON node (`serde_json::Value` is 32 bytes, map
/// entries add their key and bucket).
pub const JSON_NODE_OVERHEAD: usize = 32;

/// An estimate of the memory a parsed [`Session`] takes, in bytes: the sum
/// of the lengths of its strings plus fixed overheads.
///
/// * each tool call: [`RECORD_OVERHEAD`] + its id and message id + **twice**
///   the JSON size of its input (the raw input is kept and the typed call
///   copies its strings) + the result's text + the JSON size of
///   `toolUseResult`;
/// * JSON size: [`JSON_NODE_OVERHEAD`] per value, plus the length of every
///   string and object key;
/// * each other event, turn (with its prompt), subagent (with its path, ids,
///   `meta.json` and models) and diagnostic: [`ITEM_OVERHEAD`] + its strings;
/// * the session: [`ITEM_OVERHEAD`] + its id, path, cwd, title, version,
///   branch and model names;
/// * the [`LineIndex`] of the session and of each subagent: per context run
///   [`ITEM_OVERHEAD`] + its strings; per `uuid` its length + 8; per
///   `permissionDecision` and per array `tool_result` content its
///   `tool_use_id` + the JSON size; per run end 8; per `instructions`
///   attachment 8 + the JSON size of its `files`; per OpenCode record id
///   its length + 24 (an empty index counts 0).
///
/// It ignores allocator slack and `Vec` growth, so the real footprint is
/// somewhat larger; it is meant to rank and bound, not to account exactly.
pub fn estimated_size(session: &Session) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    let mut size = ITEM_OVERHEAD
        + session.id.len()
        + session.path.as_os_str().len()
        + opt(&session.cwd)
        + opt(&session.title)
        + opt(&session.version)
        + opt(&session.git_branch)
        + session.models.iter().map(String::len).sum::<usize>();
    size += turns_size(&session.turns);
    size += lines_size(&session.lines);
    size += session.subagents.iter().map(subagent_size).sum::<usize>();
    size += session
        .diagnostics
        .iter()
        .map(|d| ITEM_OVERHEAD + d.path.as_os_str().len() + d.message.len())
        .sum::<usize>();
    size
}

fn turns_size(turns: &[Turn]) -> usize {
    turns
        .iter()
        .map(|t| ITEM_OVERHEAD + t.prompt.len() + t.events.iter().map(event_size).sum::<usize>())
        .sum()
}

fn subagent_size(sub: &Subagent) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    ITEM_OVERHEAD
        + opt(&sub.agent_id)
        + opt(&sub.agent_type)
        + opt(&sub.description)
        + opt(&sub.spawn_tool_use_id)
        + sub.path.as_os_str().len()
        + sub.meta.as_ref().map_or(0, json_size)
        + sub.models.iter().map(String::len).sum::<usize>()
        + turns_size(&sub.turns)
        + lines_size(&sub.lines)
}

fn lines_size(lines: &LineIndex) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    let contexts: usize = lines
        .contexts
        .iter()
        .map(|c| {
            ITEM_OVERHEAD
                + opt(&c.cwd)
                + opt(&c.permission_mode)
                + opt(&c.prompt_id)
                + opt(&c.version)
                + opt(&c.effort)
                + opt(&c.entrypoint)
        })
        .sum();
    let keyed = |m: &HashMap<String, Value>| -> usize {
        m.iter().map(|(k, v)| k.len() + json_size(v)).sum()
    };
    contexts
        + lines.uuids.keys().map(|k| k.len() + 8).sum::<usize>()
        + keyed(&lines.permission_decisions)
        + keyed(&lines.result_blocks)
        + 8 * lines.run_ends.len()
        + lines
            .instructions
            .iter()
            .map(|(_, files)| 8 + json_size(files))
            .sum::<usize>()
        + lines.records.iter().map(|r| r.len() + 24).sum::<usize>()
}

fn event_size(event: &Event) -> usize {
    match event {
        Event::ToolCall(record) => record_size(record),
        Event::Text { text, .. }
        | Event::Thinking { text, .. }
        | Event::Interruption { text, .. }
        | Event::ApiError { text, .. } => ITEM_OVERHEAD + text.len(),
        Event::Compaction { trigger, text, .. } => {
            ITEM_OVERHEAD + text.len() + trigger.as_ref().map_or(0, String::len)
        }
        Event::Note { label, text, .. } => ITEM_OVERHEAD + label.len() + text.len(),
    }
}

fn record_size(record: &ToolCallRecord) -> usize {
    let input = record.call.raw().map_or(0, json_size);
    let result = record.result.as_ref().map_or(0, |r| {
        r.text.len()
            + r.tool_use_result.as_ref().map_or(0, json_size)
            + r.agent_id.as_ref().map_or(0, String::len)
    });
    RECORD_OVERHEAD
        + record.tool_use_id.len()
        + record.message_id.as_ref().map_or(0, String::len)
        + record.tool_resolved.as_ref().map_or(0, String::len)
        + 2 * input
        + result
}

/// The JSON size of a value (see [`estimated_size`]), iterative so deep
/// nesting cannot overflow the stack.
fn json_size(value: &Value) -> usize {
    let mut size = 0;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        size += JSON_NODE_OVERHEAD;
        match v {
            Value::String(s) => size += s.len(),
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(map) => {
                for (key, item) in map {
                    size += key.len();
                    stack.push(item);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    size
}

/// What a cached session was parsed from: the identity (size, mtime,
/// ctime, inode) of its main file, each subagent file and each subagent's
/// `.meta.json`, so a file rewritten with its size and mtime put back is
/// parsed again.
type Stamp = Vec<super::fingerprint::Ident>;

fn stamp(session: &SessionRef) -> Stamp {
    std::iter::once(session.path.clone())
        .chain(
            session
                .subagent_files
                .iter()
                .flat_map(|f| [f.clone(), f.with_extension("meta.json")]),
        )
        .map(|p| super::fingerprint::Ident::of(&p))
        .collect()
}

#[derive(Debug)]
struct Entry {
    stamp: Stamp,
    session: Arc<Session>,
    size: usize,
    last_used: u64,
}

#[derive(Debug, Default)]
struct Inner {
    used: usize,
    clock: u64,
    /// By main transcript path and session id: one OpenCode database holds
    /// many sessions under one path.
    entries: HashMap<Key, Entry>,
    /// `last_used` → entry key, oldest first.
    order: BTreeMap<u64, Key>,
}

/// An entry's key: main transcript path and session id.
type Key = (PathBuf, String);

impl Inner {
    fn touch(&mut self, path: &Key) {
        self.clock += 1;
        let now = self.clock;
        if let Some(entry) = self.entries.get_mut(path) {
            self.order.remove(&entry.last_used);
            entry.last_used = now;
            self.order.insert(now, path.clone());
        }
    }

    fn remove(&mut self, path: &Key) {
        if let Some(entry) = self.entries.remove(path) {
            self.order.remove(&entry.last_used);
            self.used = self.used.saturating_sub(entry.size);
        }
    }
}

/// Parsed sessions shared between queries, up to a budget of
/// [`estimated_size`] bytes (see the module docs). Safe to use from many
/// threads at once (one lock around the index; parsing happens outside it,
/// so two threads missing on the same session both parse it).
#[derive(Debug)]
pub struct SessionCache {
    budget: usize,
    inner: Mutex<Inner>,
}

impl SessionCache {
    /// An empty cache that keeps at most `budget` bytes of estimated parsed
    /// size.
    pub fn new(budget: usize) -> SessionCache {
        SessionCache {
            budget,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The session parsed: from the cache when its files are unchanged
    /// (and marked most recently used), else parsed now with
    /// [`super::load`] and kept if it fits, evicting the least recently
    /// used entries to make room.
    ///
    /// # Errors
    /// The main file could not be read: `"<path>: <error>"`
    /// ([`super::LoadError`] as text), as `query::LoadedSession` wants.
    pub fn get(&self, session: &SessionRef) -> Result<Arc<Session>, String> {
        let stamp = stamp(session);
        let key: Key = (session.path.clone(), session.id.clone());
        if let Ok(mut inner) = self.inner.lock()
            && let Some(entry) = inner.entries.get(&key)
            && entry.stamp == stamp
        {
            let found = Arc::clone(&entry.session);
            inner.touch(&key);
            return Ok(found);
        }
        let loaded = super::load(session)
            .map(Arc::new)
            .map_err(|e| e.to_string())?;
        let size = estimated_size(&loaded);
        if let Ok(mut inner) = self.inner.lock() {
            // A changed session's old parse goes first.
            inner.remove(&key);
            if size <= self.budget {
                while inner.used + size > self.budget {
                    let Some((_, oldest)) = inner.order.pop_first() else {
                        break;
                    };
                    inner.remove(&oldest);
                }
                inner.used += size;
                inner.entries.insert(
                    key.clone(),
                    Entry {
                        stamp,
                        session: Arc::clone(&loaded),
                        size,
                        last_used: 0,
                    },
                );
                inner.touch(&key);
            }
        }
        Ok(loaded)
    }

    /// The budget given to [`SessionCache::new`], in bytes.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Estimated bytes held now (never above the budget).
    pub fn used(&self) -> usize {
        self.inner.lock().map_or(0, |i| i.used)
    }

    /// The main transcripts held now, least recently used first.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.inner
            .lock()
            .map(|i| i.order.values().map(|(path, _)| path.clone()).collect())
            .unwrap_or_default()
    }
}

impl Default for SessionCache {
    /// A cache with [`DEFAULT_BUDGET`].
    fn default() -> SessionCache {
        SessionCache::new(DEFAULT_BUDGET)
    }
}
