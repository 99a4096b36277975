//! Codex CLI's hook configuration (docs/contract.md#codex-hooks),
//! read into the same [`HookConfig`]/[`Handler`] structures as Claude
//! Code's, with [`HookConfig::agent`] = [`Agent::Codex`] so the Codex
//! matcher ([`crate::hooks::codex::matcher`]) and reducer
//! ([`crate::hooks::codex::reduce`]) apply, never Claude Code's.
//!
//! What is read (openai/codex `codex-rs/hooks/src/engine/discovery.rs`
//! `discover_handlers`, `load_hooks_json`, `load_toml_hooks_from_layer`):
//!
//! * the user layer `$CODEX_HOME` (else `~/.codex`): `hooks.json` and the
//!   `[hooks]` tables of `config.toml`;
//! * project layers: each `.codex/` folder from the project root (the
//!   nearest folder above the cwd holding `.git`, Codex's default
//!   `project_root_markers`; else the cwd) down to the cwd, the same two
//!   forms, only when the project is trusted: `[projects."<path>"]
//!   trust_level = "trusted"` in the user `config.toml` for the cwd, the
//!   project root or a folder above (codex-rs/config loader
//!   `project_trust_context`); an untrusted project's handlers are listed
//!   and marked skipped;
//! * enabled plugins: `[plugins."<name>@<marketplace>"] enabled = true` in
//!   the user `config.toml`, root `$CODEX_HOME/plugins/cache/<marketplace>/<name>/<version>/`
//!   (the newest version), file `hooks/hooks.json` (Codex 0.147 stopped
//!   running plugin hooks, feature `plugin_hooks` "removed"; they are listed
//!   with that note).
//!
//! Both `hooks.json` and `[hooks]` in one layer: both load, and a problem
//! `codex-both-forms` says so (Codex logs the same warning). `[features]
//! hooks = false` (or the deprecated `codex_hooks = false`) in the user or a
//! trusted project `config.toml` turns every hook off ([`CodexHooks::hooks_off`]).
//!
//! **Hook trust** (discovery.rs `command_hook_hash`, `hook_trust_status`;
//! codex-rs/config `fingerprint.rs` `version_for_toml`; codex-rs/hooks
//! `config_rules.rs` `hook_states_from_stack`): a non-managed handler runs
//! only when `[hooks.state."<source>:<event_label>:<group>:<handler>"]` in
//! the user `config.toml` holds a `trusted_hash` equal to the hash of its
//! normalized definition, and is off when that table says `enabled =
//! false`. `<source>` is the absolute path of the `hooks.json` or
//! `config.toml` (for a plugin `<name>@<marketplace>:hooks/hooks.json`).
//! The hash: `sha256:` + hex SHA-256 of the compact, key-sorted JSON of
//! `{"event_name": <label>, "matcher": <matcher, absent when none or
//! dropped>, "hooks": [{"type": "command", "command", "timeout" (600 by
//! default, at least 1; SessionEnd 1..3), "async", "statusMessage" (when
//! set)}]}` — the normalization of Codex 0.147 (later versions add fields
//! such as `visibilityHint`). So ([`TrustStatus`]): no `trusted_hash` →
//! **untrusted** (Codex skips it, whatever the hash); a recorded hash equal
//! to ours → **trusted**; a different one → **not checked** (either the
//! hook changed since it was trusted, and Codex skips it, or this Codex
//! version normalizes differently; hookscope does not guess, and lists the
//! handler as running).
//!
//! Every file is opened with [`crate::transcript::fsread`] (regular files only,
//! [`super::SETTINGS_CAP`] bytes); a file with a problem never stops the others.
//! Nothing is run or written.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::walk;
use super::{
    DIR_CAP, Handler, HandlerType, HookConfig, Inactive, Layer, Permissions, Problem, SettingsFile,
    file_entry, jsonpos, problem, type_name,
};
use crate::hooks::codex::matcher as cmatcher;
use crate::hooks::contract::Version;
use crate::hooks::matcher::MatcherKind;
use crate::transcript::Agent;

/// The hook events Codex knows (`codex-rs/hooks/src/events/*`,
/// docs/contract.md#codex-hooks), in settings spelling.
pub const EVENTS: [&str; 13] = [
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "SessionEnd",
    "Interrupt",
    "StopFailure",
];

/// Codex's default handler timeout, seconds (discovery.rs:
/// `timeout_sec.unwrap_or(600).max(1)`).
pub const DEFAULT_TIMEOUT_SECS: u64 = 600;

/// The cap on SessionEnd and Interrupt handlers, seconds (discovery.rs
/// `SESSION_END_MAX_TIMEOUT_SEC`; masterwork v0.3.1 for Interrupt).
pub const SHORT_EVENT_CAP_SECS: u64 = 3;

/// The snake_case label of an event in hook keys and hashes
/// (`hook_event_key_label`): `PreToolUse` → `pre_tool_use`.
pub fn event_label(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The effective timeout of a Codex handler on `event` from its written
/// `timeout` (whole seconds), and where it comes from: 600 s by default and
/// at least 1; on SessionEnd and Interrupt 1 s by default, clamped to 1..3.
pub fn codex_timeout(event: &str, written: Option<u64>) -> (u64, String) {
    if matches!(event, "SessionEnd" | "Interrupt") {
        let t = written.unwrap_or(1).clamp(1, SHORT_EVENT_CAP_SECS);
        let why = match written {
            None => format!("default on {event} in Codex (1 s)"),
            Some(w) if w != t => format!("written {w}, clamped to 1..3 s on {event} in Codex"),
            Some(_) => "written".to_string(),
        };
        return (t, why);
    }
    match written {
        None => (DEFAULT_TIMEOUT_SECS, "default in Codex (600 s)".to_string()),
        Some(0) => (1, "written 0, raised to 1 s by Codex".to_string()),
        Some(w) => (w, "written".to_string()),
    }
}

/// Where to look. Every root is injectable so tests never read the real
/// home.
#[derive(Debug, Clone, Default)]
pub struct CodexLoadOptions {
    /// `$CODEX_HOME`; `None`: the environment's, else `~/.codex`.
    pub codex_home: Option<PathBuf>,
    /// The session's cwd (the project); `None`: no project layers.
    pub cwd: Option<PathBuf>,
}

/// `$CODEX_HOME`, else `~/.codex`; `None` when neither is known.
pub fn default_codex_home() -> Option<PathBuf> {
    match std::env::var_os("CODEX_HOME") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::home_dir().map(|h| h.join(".codex")),
    }
}

/// A handler's hook-trust state (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TrustStatus {
    /// The recorded `trusted_hash` equals the hash of the definition.
    Trusted,
    /// No `trusted_hash` is recorded: Codex skips the handler until it is
    /// trusted in `/hooks`.
    Untrusted,
    /// A `trusted_hash` is recorded but differs from hookscope's hash:
    /// edited since it was trusted (skipped by Codex), or another Codex
    /// normalization. Not decided.
    NotChecked {
        /// The hash in `config.toml`.
        recorded: String,
    },
    /// `enabled = false` in its `[hooks.state]` entry.
    Disabled,
}

/// One handler's trust record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Trust {
    /// The `[hooks.state]` key Codex looks up.
    pub key: String,
    /// hookscope's hash of the normalized definition (Codex 0.147).
    pub hash: String,
    /// The verdict.
    #[serde(flatten)]
    pub status: TrustStatus,
}

/// Codex's hook configuration: the shared [`HookConfig`] (agent
/// [`Agent::Codex`]) plus what only Codex has.
#[derive(Debug, Clone, Serialize)]
pub struct CodexHooks {
    /// Files, handlers (with `file:line`, layer, effective timeout, and
    /// [`Handler::inactive`] for the skipped ones).
    pub config: HookConfig,
    /// Per handler (same index as `config.handlers`): its trust record;
    /// `None` for a handler Codex never hashes (prompt/agent, empty command).
    pub trust: Vec<Option<Trust>>,
    /// Why every hook is off (`[features] hooks = false` in FILE), when so.
    pub hooks_off: Option<String>,
    /// The user `config.toml` that holds `[hooks.state]` and `[projects]`.
    pub user_config: Option<PathBuf>,
    /// Whether the project layers are trusted (`None`: no project).
    pub project_trusted: Option<bool>,
}

/// Reads Codex's hook configuration (see the module docs). Never fails.
pub fn load(options: &CodexLoadOptions) -> CodexHooks {
    let mut l = CodexLoader::default();
    let home = options.codex_home.clone().or_else(default_codex_home);
    let user_config = home.as_ref().map(|h| h.join("config.toml"));
    let user_doc = user_config
        .as_ref()
        .and_then(|p| l.read_toml(p, &Layer::User));
    let get = |doc: &Option<TomlDoc>, path: &[&str]| -> Option<Value> {
        let mut v = &doc.as_ref()?.value;
        for k in path {
            v = v.get(*k)?;
        }
        Some(v.clone())
    };
    let mut hooks_off = features_off(&user_doc, user_config.as_deref());
    let states: Map<String, Value> = get(&user_doc, &["hooks", "state"])
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default();
    // User layer.
    if let Some(home) = &home {
        l.layer(home, Layer::User, user_doc.as_ref(), user_config.as_deref());
    }
    // Project layers.
    let mut project_trusted = None;
    if let Some(cwd) = &options.cwd {
        let cwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.clone());
        let root = cwd
            .ancestors()
            .find(|a| a.join(".git").exists())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| cwd.clone());
        let projects = get(&user_doc, &["projects"]);
        let trust = cwd.ancestors().find_map(|a| {
            let key = a.to_string_lossy();
            projects
                .as_ref()?
                .get(key.as_ref())?
                .get("trust_level")?
                .as_str()
                .map(|s| (a.to_path_buf(), s.to_string()))
        });
        let trusted = trust.as_ref().is_some_and(|(_, t)| t == "trusted");
        project_trusted = Some(trusted);
        let dirs: Vec<PathBuf> = cwd
            .ancestors()
            .take_while(|a| a.starts_with(&root))
            .map(|a| a.join(".codex"))
            .filter(|d| d.is_dir() && Some(d) != home.as_ref())
            .collect();
        for dir in dirs.into_iter().rev() {
            let cfg = dir.join("config.toml");
            let doc = l.read_toml(&cfg, &Layer::Project);
            let start = l.handlers.len();
            l.layer(&dir, Layer::Project, doc.as_ref(), Some(&cfg));
            if !trusted {
                let why = match &trust {
                    Some((p, level)) => format!(
                        "the project is not trusted (trust_level = {level:?} for {} in {}): Codex loads no project hooks",
                        p.display(),
                        user_config
                            .as_deref()
                            .map_or("config.toml".into(), |p| p.display().to_string())
                    ),
                    None => format!(
                        "the project is not trusted (no [projects.\"{}\"] trust_level = \"trusted\" in {}): Codex loads no project hooks",
                        root.display(),
                        user_config
                            .as_deref()
                            .map_or("config.toml".into(), |p| p.display().to_string())
                    ),
                };
                for h in &mut l.handlers[start..] {
                    h.inactive.get_or_insert(Inactive::Skipped(why.clone()));
                }
            } else if let Some(f) = doc.as_ref().and_then(|d| d.value.get("features")) {
                // A trusted project layer has precedence over the user's.
                let says = f
                    .get("hooks")
                    .or_else(|| f.get("codex_hooks"))
                    .and_then(Value::as_bool);
                match says {
                    Some(true) => hooks_off = None,
                    Some(false) => hooks_off = features_off(&doc, Some(&cfg)),
                    None => {}
                }
            }
        }
    }
    // Plugins.
    if let (Some(home), Some(plugins)) = (&home, get(&user_doc, &["plugins"])) {
        for (id, entry) in plugins.as_object().into_iter().flatten() {
            if entry.get("enabled").and_then(Value::as_bool) != Some(true) {
                continue;
            }
            let Some(root) = plugin_root(home, id) else {
                continue;
            };
            let path = root.join("hooks").join("hooks.json");
            let start = l.handlers.len();
            l.json_file(
                &path,
                Layer::Plugin(id.clone()),
                Some(format!("{id}:hooks/hooks.json")),
                Some(root.clone()),
            );
            for h in &mut l.handlers[start..] {
                h.origin.plugin_root = Some(root.clone());
            }
        }
    }
    // Trust, enabled, features.
    let mut trust = Vec::with_capacity(l.handlers.len());
    for (h, key_source) in l.handlers.iter_mut().zip(&l.key_sources) {
        let Some(ks) = key_source else {
            trust.push(None);
            continue;
        };
        let key = format!("{ks}:{}:{}:{}", event_label(&h.event), h.group, h.position);
        let hash = definition_hash(h);
        let state = states.get(&key).or_else(|| {
            // Codex 0.147 keyed plugin hooks by "<id>:hooks.json".
            ks.strip_suffix(":hooks/hooks.json")
                .and_then(|id| states.get(&format!("{id}:hooks.json:{}", &key[ks.len() + 1..])))
        });
        let enabled = state
            .and_then(|s| s.get("enabled"))
            .and_then(Value::as_bool);
        let recorded = state
            .and_then(|s| s.get("trusted_hash"))
            .and_then(Value::as_str);
        let status = if enabled == Some(false) {
            TrustStatus::Disabled
        } else {
            match recorded {
                None => TrustStatus::Untrusted,
                Some(r) if r == hash => TrustStatus::Trusted,
                Some(r) => TrustStatus::NotChecked {
                    recorded: r.to_string(),
                },
            }
        };
        let where_ = user_config
            .as_deref()
            .map_or("the user config.toml".to_string(), |p| {
                p.display().to_string()
            });
        match &status {
            TrustStatus::Disabled => {
                h.inactive.get_or_insert(Inactive::Skipped(format!(
                    "disabled: enabled = false under [hooks.state.\"{key}\"] in {where_}"
                )));
            }
            TrustStatus::Untrusted => {
                h.inactive.get_or_insert(Inactive::Skipped(format!(
                    "not trusted: no trusted_hash under [hooks.state.\"{key}\"] in {where_}; Codex skips it until you trust it in /hooks"
                )));
            }
            _ => {}
        }
        trust.push(Some(Trust { key, hash, status }));
    }
    if let Some(why) = &hooks_off {
        for h in &mut l.handlers {
            h.inactive = Some(Inactive::Skipped(why.clone()));
        }
    }
    CodexHooks {
        config: HookConfig {
            files: l.files,
            handlers: l.handlers,
            disable_all_hooks: None,
            managed_only: None,
            version: Version::latest(),
            project_dir: options.cwd.clone(),
            permissions: Permissions::default(),
            agent: Agent::Codex,
        },
        trust,
        hooks_off,
        user_config,
        project_trusted,
    }
}

/// `[features] hooks = false` (or deprecated `codex_hooks = false`) in `doc`.
fn features_off(doc: &Option<TomlDoc>, path: Option<&Path>) -> Option<String> {
    let features = doc.as_ref()?.value.get("features")?;
    for key in ["hooks", "codex_hooks"] {
        if features.get(key).and_then(Value::as_bool) == Some(false) {
            let dep = if key == "codex_hooks" {
                " (the deprecated name of `hooks`)"
            } else {
                ""
            };
            return Some(format!(
                "hooks are off: [features] {key} = false{dep} in {}",
                path.map_or("config.toml".into(), |p| p.display().to_string())
            ));
        }
    }
    None
}

/// The newest cached version folder of plugin `id` (`name@marketplace`).
fn plugin_root(home: &Path, id: &str) -> Option<PathBuf> {
    let (name, market) = id.split_once('@')?;
    let bad = |s: &str| s.is_empty() || s == ".." || s == "." || s.contains(['/', '\\']);
    if bad(name) || bad(market) {
        return None;
    }
    let base = home.join("plugins").join("cache").join(market).join(name);
    let entries = std::fs::read_dir(&base).ok()?;
    let versions: Vec<PathBuf> = entries
        .take(DIR_CAP)
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    versions
        .into_iter()
        .max_by(|a, b| {
            let v = |p: &Path| Version::parse(&p.file_name().unwrap_or_default().to_string_lossy());
            v(a).cmp(&v(b))
        })
        .or_else(|| base.is_dir().then_some(base))
}

/// hookscope's hash of a handler's normalized definition (module docs).
pub fn definition_hash(h: &Handler) -> String {
    let mut handler = Map::new();
    handler.insert("type".into(), Value::String("command".into()));
    handler.insert(
        "command".into(),
        Value::String(h.command.clone().unwrap_or_default()),
    );
    handler.insert("timeout".into(), Value::from(h.effective_timeout as u64));
    handler.insert("async".into(), Value::Bool(h.is_async.unwrap_or(false)));
    if let Some(m) = &h.status_message {
        handler.insert("statusMessage".into(), Value::String(m.clone()));
    }
    let mut group = Map::new();
    group.insert("event_name".into(), Value::String(event_label(&h.event)));
    let keeps_matcher = !matches!(h.event.as_str(), "UserPromptSubmit" | "Stop");
    if let (Some(m), true) = (&h.matcher, keeps_matcher) {
        group.insert("matcher".into(), Value::String(m.clone()));
    }
    group.insert("hooks".into(), Value::Array(vec![Value::Object(handler)]));
    let text = super::canonical(&Value::Object(group));
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// A parsed TOML file as JSON, with the line of each JSON pointer.
struct TomlDoc {
    value: Value,
    lines: HashMap<String, usize>,
}

#[derive(Default)]
struct CodexLoader {
    files: Vec<SettingsFile>,
    handlers: Vec<Handler>,
    /// Per handler: the `<source>` of its trust key; `None` when Codex
    /// never hashes it.
    key_sources: Vec<Option<String>>,
}

/// 1-based line of byte `offset` in `text`.
fn line_at(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// Every JSON pointer of a TOML document with the line its value (or key)
/// starts on.
fn toml_lines(text: &str) -> HashMap<String, usize> {
    fn walk(
        v: &toml::de::DeValue<'_>,
        ptr: &str,
        text: &str,
        out: &mut HashMap<String, usize>,
        depth: usize,
    ) {
        if depth > 8 {
            return;
        }
        match v {
            toml::de::DeValue::Table(t) => {
                for (k, val) in t.iter() {
                    let p = format!("{ptr}/{}", jsonpos::escape_token(k.get_ref()));
                    let at = k.span().start.min(val.span().start);
                    out.entry(p.clone()).or_insert_with(|| line_at(text, at));
                    walk(val.get_ref(), &p, text, out, depth + 1);
                }
            }
            toml::de::DeValue::Array(a) => {
                for (i, val) in a.iter().enumerate() {
                    let p = format!("{ptr}/{i}");
                    out.entry(p.clone())
                        .or_insert_with(|| line_at(text, val.span().start));
                    walk(val.get_ref(), &p, text, out, depth + 1);
                }
            }
            _ => {}
        }
    }
    let mut out = HashMap::new();
    if let Ok(doc) = toml::de::DeTable::parse(text) {
        walk(
            &toml::de::DeValue::Table(doc.into_inner()),
            "",
            text,
            &mut out,
            0,
        );
    }
    out
}

impl CodexLoader {
    fn read(&mut self, path: &Path, layer: &Layer) -> Option<Vec<u8>> {
        super::read_file(path, layer, &mut self.files)
    }

    /// Reads and parses a `config.toml`; a bad one is a file entry with a
    /// problem (Codex refuses to start on it).
    fn read_toml(&mut self, path: &Path, layer: &Layer) -> Option<TomlDoc> {
        let bytes = self.read(path, layer)?;
        let Ok(text) = String::from_utf8(bytes) else {
            self.files.push(file_entry(
                path,
                layer,
                true,
                vec![problem(
                    "settings-invalid-toml",
                    None,
                    None,
                    "not UTF-8: not a TOML file; Codex cannot read it".into(),
                    true,
                )],
            ));
            return None;
        };
        match toml::from_str::<toml::Table>(&text) {
            Ok(table) => Some(TomlDoc {
                value: serde_json::to_value(&table).unwrap_or(Value::Null),
                lines: toml_lines(&text),
            }),
            Err(e) => {
                let line = e.span().map(|s| line_at(&text, s.start));
                self.files.push(file_entry(
                    path,
                    layer,
                    true,
                    vec![problem(
                        "settings-invalid-toml",
                        line,
                        None,
                        format!(
                            "not valid TOML: {}; Codex cannot read this file",
                            e.message().trim()
                        ),
                        true,
                    )],
                ));
                if let Some(f) = self.files.last_mut() {
                    f.dropped = f.problems.first().map(|p| p.message.clone());
                }
                None
            }
        }
    }

    /// One config layer folder: `hooks.json` and the `[hooks]` of
    /// `config.toml` (`doc`, already read).
    fn layer(&mut self, dir: &Path, layer: Layer, doc: Option<&TomlDoc>, cfg: Option<&Path>) {
        let json_path = dir.join("hooks.json");
        let json_count = self.json_file(
            &json_path,
            layer.clone(),
            Some(abs(&json_path).display().to_string()),
            None,
        );
        let (Some(doc), Some(cfg)) = (doc, cfg) else {
            return;
        };
        let Some(hooks) = doc.value.get("hooks") else {
            return;
        };
        let mut events = hooks.clone();
        if let Some(o) = events.as_object_mut() {
            o.remove("state");
        }
        let toml_count = events.as_object().map_or(0, |o| o.len());
        let line_of = |p: &str| doc.lines.get(p).copied();
        let (mut problems, count) = self.walk(
            &events,
            cfg,
            &layer,
            &line_of,
            "/hooks",
            Some(abs(cfg).display().to_string()),
            None,
        );
        if json_count > 0 && toml_count > 0 {
            problems.push(problem(
                "codex-both-forms",
                line_of("/hooks"),
                None,
                format!(
                    "hooks come from both {} and the [hooks] tables here; Codex loads both and warns: prefer a single representation for this layer",
                    json_path.display()
                ),
                false,
            ));
        }
        if count > 0 || !problems.is_empty() {
            let mut f = file_entry(cfg, &layer, true, problems);
            f.dropped = f
                .problems
                .iter()
                .find(|p| p.drops_file)
                .map(|p| p.message.clone());
            f.handlers = count;
            self.files.push(f);
        }
    }

    /// One `hooks.json`; returns how many event keys it has.
    fn json_file(
        &mut self,
        path: &Path,
        layer: Layer,
        key_source: Option<String>,
        plugin_root: Option<PathBuf>,
    ) -> usize {
        let Some(bytes) = self.read(path, &layer) else {
            return 0;
        };
        let value: Value = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => {
                let mut f = file_entry(
                    path,
                    &layer,
                    true,
                    vec![problem(
                        "settings-invalid-json",
                        Some(e.line()),
                        Some(e.column()),
                        format!(
                            "not valid JSON: {e}; Codex fails to parse it and loads none of its hooks"
                        ),
                        true,
                    )],
                );
                f.dropped = f.problems.first().map(|p| p.message.clone());
                self.files.push(f);
                return 0;
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        let lines = jsonpos::value_lines(&text, 6);
        let line_of = |p: &str| lines.get(p).copied();
        let events = match &value {
            Value::Object(o) => o.get("hooks").cloned().unwrap_or(Value::Object(Map::new())),
            other => {
                let mut f = file_entry(
                    path,
                    &layer,
                    true,
                    vec![problem(
                        "schema-invalid",
                        Some(1),
                        None,
                        format!(
                            "the file is a JSON {} where an object with \"hooks\" belongs; Codex fails to parse it",
                            type_name(other)
                        ),
                        true,
                    )],
                );
                f.dropped = f.problems.first().map(|p| p.message.clone());
                self.files.push(f);
                return 0;
            }
        };
        let count = events.as_object().map_or(0, |o| o.len());
        let (problems, n) = self.walk(
            &events,
            path,
            &layer,
            &line_of,
            "/hooks",
            key_source,
            plugin_root,
        );
        let mut f = file_entry(path, &layer, true, problems);
        f.dropped = f
            .problems
            .iter()
            .find(|p| p.drops_file)
            .map(|p| p.message.clone());
        f.handlers = n;
        if let Layer::Plugin(_) = layer {
            f.problems.push(problem(
                "codex-plugin-hooks",
                None,
                None,
                "plugin hooks: Codex 0.147 and later do not run them (feature plugin_hooks is \"removed\"); listed for older versions".into(),
                false,
            ));
        }
        self.files.push(f);
        count
    }

    /// Walks the events object of one file into handlers ([`walk`] with
    /// [`CodexSchema`]); returns the file's problems and its handler count.
    /// A shape Codex's serde model refuses drops the whole file (every
    /// handler of it is marked).
    #[allow(clippy::too_many_arguments)]
    fn walk(
        &mut self,
        events: &Value,
        path: &Path,
        layer: &Layer,
        line_of: &dyn Fn(&str) -> Option<usize>,
        base: &str,
        key_source: Option<String>,
        plugin_root: Option<PathBuf>,
    ) -> (Vec<Problem>, usize) {
        let mut problems = Vec::new();
        let start = self.handlers.len();
        let Some(map) = events.as_object() else {
            problems.push(fatal(
                line_of(base),
                format!(
                    "\"hooks\" is a {} where a table of events belongs",
                    type_name(events)
                ),
            ));
            return (problems, 0);
        };
        let place = walk::Place {
            path,
            layer,
            plugin_root,
            line_of,
        };
        let mut schema = CodexSchema {
            key_source,
            key_sources: &mut self.key_sources,
        };
        walk::walk(
            &mut schema,
            map,
            base,
            &place,
            &mut problems,
            &mut self.handlers,
        );
        problems.sort_by_key(|p| (!p.drops_file, p.line.unwrap_or(0)));
        if let Some(why) = problems
            .iter()
            .find(|p| p.drops_file)
            .map(|p| p.message.clone())
        {
            for h in &mut self.handlers[start..] {
                h.inactive = Some(Inactive::Skipped(format!(
                    "its file is skipped by Codex: {why}"
                )));
            }
        }
        (problems, self.handlers.len() - start)
    }
}

/// A shape Codex's serde model refuses: the file's hooks are not loaded.
fn fatal(line: Option<usize>, what: String) -> Problem {
    problem(
        "schema-invalid",
        line,
        None,
        format!("{what}; Codex fails to parse this file's hooks and loads none of them"),
        true,
    )
}

/// Codex's hook schema for the shared walk (engine/discovery.rs and the
/// serde model of `hooks.json`): its events only (others ignored), a
/// matcher must be a string and an invalid one skips its group, handler
/// types command/prompt/agent (prompt and agent skipped at load), the
/// fields `command`, `timeout` (whole seconds), `async`, `statusMessage`;
/// each handler's trust key source is kept beside it.
struct CodexSchema<'a> {
    /// The `<source>` of the trust keys of this file's handlers.
    key_source: Option<String>,
    /// One entry per handler pushed (None: not hashed).
    key_sources: &'a mut Vec<Option<String>>,
}

impl walk::Schema for CodexSchema<'_> {
    fn event(
        &mut self,
        event: &str,
        ptr: &str,
        place: &walk::Place,
        problems: &mut Vec<Problem>,
    ) -> Option<walk::KeyRead> {
        if !EVENTS.contains(&event) {
            problems.push(problem(
                "unknown-event",
                (place.line_of)(ptr),
                None,
                format!("\"{event}\" is not a Codex hook event; Codex ignores it"),
                false,
            ));
            return None;
        }
        Some(walk::KeyRead {
            event: event.into(),
            inactive: None,
        })
    }

    fn groups_not_a_list(&self, event: &str, groups: &Value, line: Option<usize>) -> Problem {
        fatal(
            line,
            format!(
                "{event} is a {} where a list of matcher groups belongs",
                type_name(groups)
            ),
        )
    }

    fn group_not_an_object(
        &self,
        event: &str,
        gi: usize,
        _: &Value,
        line: Option<usize>,
    ) -> Problem {
        fatal(line, format!("{event}[{gi}] is not a table"))
    }

    fn matcher(
        &mut self,
        event: &str,
        _key: &str,
        gi: usize,
        matcher: Option<&Value>,
        gptr: &str,
        place: &walk::Place,
        problems: &mut Vec<Problem>,
    ) -> (Option<String>, Option<Inactive>) {
        let line = (place.line_of)(&format!("{gptr}/matcher"));
        let matcher = match matcher {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                problems.push(fatal(
                    line,
                    format!(
                        "the matcher of {event}[{gi}] is a {} where a string belongs",
                        type_name(other)
                    ),
                ));
                None
            }
        };
        let mut invalid = None;
        if let MatcherKind::Invalid { pattern, error } =
            cmatcher::classify(event, matcher.as_deref())
        {
            let msg = format!(
                "invalid matcher {pattern:?} on {event}[{gi}]: {error}; Codex skips this group (engine/discovery.rs)"
            );
            problems.push(problem("matcher-invalid", line, None, msg.clone(), false));
            invalid = Some(Inactive::Skipped(msg));
        }
        (matcher, invalid)
    }

    fn no_hooks_list(&self, _: &str, _: usize, _: Option<usize>) -> Option<Problem> {
        None
    }

    fn hooks_not_a_list(
        &self,
        event: &str,
        gi: usize,
        hooks: &Value,
        line: Option<usize>,
    ) -> Problem {
        fatal(
            line,
            format!("\"hooks\" of {event}[{gi}] is a {}", type_name(hooks)),
        )
    }

    fn handler(
        &mut self,
        mut h: Handler,
        raw: &Value,
        ptr: &str,
        where_: &str,
        place: &walk::Place,
        problems: &mut Vec<Problem>,
    ) -> Option<Handler> {
        let line_of = place.line_of;
        let line = h.origin.line;
        let Some(obj) = raw.as_object() else {
            problems.push(fatal(Some(line), format!("{where_} is not a table")));
            return None;
        };
        let kind = match obj.get("type") {
            Some(Value::String(t)) if t == "command" => HandlerType::Command,
            Some(Value::String(t)) if t == "prompt" => HandlerType::Prompt,
            Some(Value::String(t)) if t == "agent" => HandlerType::Agent,
            Some(other) => {
                problems.push(fatal(
                    line_of(&format!("{ptr}/type")).or(Some(line)),
                    format!("{where_}.type {other} is not command, prompt or agent"),
                ));
                return None;
            }
            None => {
                problems.push(fatal(Some(line), format!("{where_} has no \"type\"")));
                return None;
            }
        };
        let mut bad = |field: &str, want: &str| {
            problems.push(fatal(
                line_of(&format!("{ptr}/{field}")).or(Some(line)),
                format!("{where_}.{field} is not {want}"),
            ));
        };
        let command = match obj.get("command") {
            Some(Value::String(s)) => Some(s.clone()),
            None | Some(Value::Null) => None,
            Some(_) => {
                bad("command", "a string");
                None
            }
        };
        let written_timeout = match obj.get("timeout") {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_u64() {
                Some(t) => Some(t),
                None => {
                    bad("timeout", "a whole number of seconds (0 or more)");
                    None
                }
            },
        };
        let is_async = match obj.get("async") {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                bad("async", "true or false");
                None
            }
        };
        let status_message = match obj.get("statusMessage") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                bad("statusMessage", "a string");
                None
            }
        };
        if kind == HandlerType::Command && command.is_none() {
            problems.push(fatal(Some(line), format!("{where_} has no \"command\"")));
        }
        let (t, source) = codex_timeout(&h.event, written_timeout);
        let mut hashed = self.key_source.clone();
        match kind {
            HandlerType::Prompt | HandlerType::Agent => {
                h.inactive.get_or_insert(Inactive::Skipped(format!(
                    "{} hooks are not supported by Codex yet: skipped at load",
                    kind.as_str()
                )));
                hashed = None;
            }
            _ if command.as_deref().is_some_and(|c| c.trim().is_empty()) => {
                h.inactive.get_or_insert(Inactive::Skipped(
                    "empty command: Codex skips it at load".into(),
                ));
                hashed = None;
            }
            _ => {}
        }
        h.kind = kind;
        h.command = command;
        h.is_async = is_async;
        h.timeout = written_timeout.map(|t| t as f64);
        h.status_message = status_message;
        h.effective_timeout = t as f64;
        h.timeout_source = source;
        self.key_sources.push(hashed);
        Some(h)
    }
}

fn abs(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
