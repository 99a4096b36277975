//! Reading the configuration that applies: every settings file of every
//! layer (managed, user, project, local, plugins, given), each read only
//! when it is a regular file and capped, its hooks walked into handlers
//! with file:line, and what Claude Code drops said per file (see the
//! parent module's doc).

use super::*;

/// The hook configuration of `agent`'s sessions: [`droid::load`] (default
/// Factory folder) for [`Agent::Droid`], else [`load`].
pub fn load_for(agent: Agent, options: &LoadOptions) -> HookConfig {
    match agent {
        Agent::Droid => droid::load(options, None),
        _ => load(options),
    }
}

/// Reads the configuration that applies (see the module doc). Never fails:
/// every unreadable or invalid file is a [`SettingsFile`] with problems.
pub fn load(options: &LoadOptions) -> HookConfig {
    let mut loader = Loader {
        version: options.version.clone(),
        files: Vec::new(),
        handlers: Vec::new(),
        docs: Vec::new(),
    };
    let project_dir;
    if !options.settings.is_empty() {
        for path in &options.settings {
            match given_plugin(path) {
                Some(GivenPlugin::Manifest { name, root }) => loader.plugin(&name, &root),
                Some(GivenPlugin::Hooks { name, root }) => {
                    loader.settings_file(path, Layer::Plugin(name), Some(root));
                }
                None => loader.settings_file(path, Layer::Given, None),
            }
        }
        // Resolved against the invocation's folder: `.claude/settings.json`
        // has the empty path as its project otherwise.
        project_dir = options.cwd.clone().or_else(|| {
            options.settings.iter().find_map(|p| {
                let p = std::path::absolute(p).ok()?;
                let parent = p.parent()?;
                (parent.file_name()? == ".claude")
                    .then(|| parent.parent().map(Path::to_path_buf))?
            })
        });
    } else {
        project_dir = options.cwd.clone();
        let managed = options.managed.clone().unwrap_or_else(default_managed_path);
        loader.settings_file(&managed, Layer::Managed, None);
        if let Some(dir) = managed.parent() {
            for path in list_dir(&dir.join("managed-settings.d"), |p| {
                p.extension().is_some_and(|e| e == "json")
            }) {
                loader.settings_file(&path, Layer::Managed, None);
            }
        }
        let config_dir = options.config_dir.clone().or_else(default_config_dir);
        if let Some(dir) = &config_dir {
            loader.settings_file(&dir.join("settings.json"), Layer::User, None);
        }
        if let Some(cwd) = &options.cwd {
            loader.settings_file(
                &cwd.join(".claude").join("settings.json"),
                Layer::Project,
                None,
            );
            loader.settings_file(
                &cwd.join(".claude").join("settings.local.json"),
                Layer::Local,
                None,
            );
        }
        if let Some(dir) = &config_dir {
            for (name, root) in enabled_plugins(&loader.docs, dir) {
                loader.plugin(&name, &root);
            }
        }
        let mut roots: Vec<PathBuf> = config_dir.iter().cloned().collect();
        if let Some(cwd) = &options.cwd {
            roots.push(cwd.join(".claude"));
        }
        for root in &roots {
            for skill in list_dir(&root.join("skills"), |p| p.is_dir()) {
                let name = file_name(&skill);
                loader.frontmatter_file(&skill.join("SKILL.md"), Layer::Skill(name));
            }
            for agent in list_dir(&root.join("agents"), |p| {
                p.extension().is_some_and(|e| e == "md")
            }) {
                let name = agent
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                loader.frontmatter_file(&agent, Layer::Agent(name));
            }
        }
    }
    let project_dir = project_dir.map(|p| std::path::absolute(&p).unwrap_or(p));
    loader.finish(project_dir)
}

/// A plugin's hook file given with `--settings`, recognized by where it
/// sits in the plugin's folder.
pub(super) enum GivenPlugin {
    /// `<root>/.claude-plugin/plugin.json`: the whole plugin (its
    /// `hooks/hooks.json` and the manifest's own `hooks`).
    Manifest {
        /// The manifest's `name`, else the root folder's name.
        name: String,
        /// The plugin folder (`$CLAUDE_PLUGIN_ROOT`), absolute.
        root: PathBuf,
    },
    /// `<root>/hooks/hooks.json`: the plugin's shipped hooks.
    Hooks {
        /// As for `Manifest`.
        name: String,
        /// As for `Manifest`.
        root: PathBuf,
    },
}

/// Whether `path` (as given, resolved against the current folder) is a
/// plugin's `hooks/hooks.json` or `.claude-plugin/plugin.json` that exists:
/// its hooks then run with `CLAUDE_PLUGIN_ROOT` set to the plugin folder,
/// as Claude Code runs an installed plugin's (docs/your-hooks.md#your-hooks).
pub(super) fn given_plugin(path: &Path) -> Option<GivenPlugin> {
    let abs = std::path::absolute(path).ok()?;
    let folder = abs.parent()?;
    let root = folder.parent()?.to_path_buf();
    let file = abs.file_name()?;
    let folder_name = folder.file_name()?;
    let manifest = file == "plugin.json" && folder_name == ".claude-plugin";
    let hooks = file == "hooks.json" && folder_name == "hooks";
    if !(manifest || hooks) || !abs.is_file() {
        return None;
    }
    let name = fsread::read_capped(
        &root.join(".claude-plugin").join("plugin.json"),
        SETTINGS_CAP,
    )
    .ok()
    .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
    .and_then(|v| v.get("name")?.as_str().map(str::to_string))
    .filter(|n| !n.trim().is_empty())
    .unwrap_or_else(|| file_name(&root));
    Some(if manifest {
        GivenPlugin::Manifest { name, root }
    } else {
        GivenPlugin::Hooks { name, root }
    })
}

pub(super) fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Entries of `dir` (sorted, at most [`DIR_CAP`]) that pass `keep`; empty
/// when `dir` is not a folder.
pub(super) fn list_dir(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .take(DIR_CAP)
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| keep(p))
        .collect();
    out.sort();
    out
}

/// A loaded (not dropped) settings document, for `enabledPlugins`,
/// switches and permissions.
pub(super) struct Doc {
    pub(super) layer: Layer,
    pub(super) path: PathBuf,
    pub(super) value: Value,
}

/// Precedence of a settings layer for switches (higher wins): managed >
/// local > project > user; given files in order.
pub(super) fn precedence(layer: &Layer) -> u8 {
    match layer {
        Layer::Managed => 4,
        Layer::Local => 3,
        Layer::Project => 2,
        Layer::User | Layer::Given => 1,
        _ => 0,
    }
}

/// The enabled plugins (`enabledPlugins` merged by precedence; value
/// `true`) and their roots: the `installPath` in
/// `<config>/plugins/installed_plugins.json` (either its v1 shape
/// `{"plugins": {key: {installPath}}}` or v2 `{"plugins": {key: [{installPath}]}}`),
/// else the newest folder under `<config>/plugins/cache/<marketplace>/<name>/`.
pub(super) fn enabled_plugins(docs: &[Doc], config_dir: &Path) -> Vec<(String, PathBuf)> {
    let mut ordered: Vec<&Doc> = docs.iter().collect();
    ordered.sort_by_key(|d| precedence(&d.layer));
    let mut enabled: BTreeMap<String, bool> = BTreeMap::new();
    for doc in ordered {
        if let Some(map) = doc.value.get("enabledPlugins").and_then(Value::as_object) {
            for (key, v) in map {
                if let Some(b) = v.as_bool() {
                    enabled.insert(key.clone(), b);
                }
            }
        }
    }
    let installed = fsread::read_capped(
        &config_dir.join("plugins").join("installed_plugins.json"),
        SETTINGS_CAP,
    )
    .ok()
    .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let mut out = Vec::new();
    for (key, on) in enabled {
        if !on {
            continue;
        }
        let from_installed = installed
            .as_ref()
            .and_then(|v| v.get("plugins")?.get(&key).cloned())
            .and_then(|entry| {
                let first = match entry {
                    Value::Array(list) => list.into_iter().next()?,
                    other => other,
                };
                first
                    .get("installPath")
                    .and_then(Value::as_str)
                    .map(PathBuf::from)
            });
        let root = from_installed.or_else(|| {
            let (name, market) = key.split_once('@')?;
            if name.contains(['/', '\\']) || market.contains(['/', '\\']) || name == ".." {
                return None;
            }
            let base = config_dir
                .join("plugins")
                .join("cache")
                .join(market)
                .join(name);
            let versions = list_dir(&base, |p| p.is_dir());
            if versions.is_empty() {
                base.is_dir().then_some(base)
            } else {
                versions.into_iter().max_by(|a, b| {
                    Version::parse(&file_name(a)).cmp(&Version::parse(&file_name(b)))
                })
            }
        });
        if let Some(root) = root {
            out.push((key, root));
        }
    }
    out
}

pub(super) struct Loader {
    pub(super) version: Version,
    pub(super) files: Vec<SettingsFile>,
    pub(super) handlers: Vec<Handler>,
    pub(super) docs: Vec<Doc>,
}

/// Reads one hook configuration file (regular files only, at most
/// [`SETTINGS_CAP`] bytes); returns its bytes, or records in `files` why
/// not: absent (a problem only for a file named on the command line),
/// not a regular file, or unreadable. Shared by the Claude Code, Codex and
/// Droid loaders.
pub(crate) fn read_file(
    path: &Path,
    layer: &Layer,
    files: &mut Vec<SettingsFile>,
) -> Option<Vec<u8>> {
    match fsread::read_capped(path, SETTINGS_CAP) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A file named on the command line must exist; a missing
            // user/project/local/managed file or plugin hooks.json is
            // normal (listed as not present).
            let problems = if *layer == Layer::Given {
                vec![problem(
                    "settings-unreadable",
                    None,
                    None,
                    format!("cannot read: {e}"),
                    false,
                )]
            } else {
                Vec::new()
            };
            files.push(file_entry(path, layer, false, problems));
            None
        }
        Err(e) => {
            let message = if fsread::is_not_regular(&e) {
                format!("not read: {e}")
            } else {
                format!("cannot read: {e}")
            };
            files.push(file_entry(
                path,
                layer,
                true,
                vec![problem("settings-unreadable", None, None, message, false)],
            ));
            None
        }
    }
}

impl Loader {
    /// Reads one file; returns its bytes or records why not.
    pub(super) fn read(&mut self, path: &Path, layer: &Layer) -> Option<Vec<u8>> {
        read_file(path, layer, &mut self.files)
    }

    pub(super) fn settings_file(
        &mut self,
        path: &Path,
        layer: Layer,
        plugin_root: Option<PathBuf>,
    ) {
        let Some(bytes) = self.read(path, &layer) else {
            return;
        };
        let value: Value = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => {
                let message = format!("not valid JSON: {e}; Claude Code cannot read this file");
                self.files.push(file_entry(
                    path,
                    &layer,
                    true,
                    vec![problem(
                        "settings-invalid-json",
                        Some(e.line()),
                        Some(e.column()),
                        message,
                        true,
                    )],
                ));
                self.mark_dropped();
                return;
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        let lines = jsonpos::value_lines(&text, 5);
        let line_of = |pointer: &str| lines.get(pointer).copied();
        self.document(path, layer, plugin_root, value, &line_of, "/hooks");
    }

    /// A plugin's hooks: `hooks/hooks.json`, and the `hooks` of its
    /// `.claude-plugin/plugin.json` manifest when present (inline object,
    /// or a path or list of paths relative to the plugin root).
    pub(super) fn plugin(&mut self, name: &str, root: &Path) {
        let layer = Layer::Plugin(name.to_string());
        let default = root.join("hooks").join("hooks.json");
        self.settings_file(&default, layer.clone(), Some(root.to_path_buf()));
        let manifest = root.join(".claude-plugin").join("plugin.json");
        let Ok(bytes) = fsread::read_capped(&manifest, SETTINGS_CAP) else {
            return;
        };
        let Ok(value) = serde_json::from_slice::<Value>(&bytes) else {
            return;
        };
        let extra: Vec<&str> = match value.get("hooks") {
            Some(Value::String(p)) => vec![p.as_str()],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
            Some(Value::Object(_)) => {
                let text = String::from_utf8_lossy(&bytes);
                let lines = jsonpos::value_lines(&text, 5);
                let line_of = |pointer: &str| lines.get(pointer).copied();
                let inline = serde_json::json!({ "hooks": value["hooks"].clone() });
                self.document(
                    &manifest,
                    layer,
                    Some(root.to_path_buf()),
                    inline,
                    &line_of,
                    "/hooks",
                );
                return;
            }
            _ => Vec::new(),
        };
        for rel in extra {
            let path = root.join(rel.trim_start_matches("./"));
            if path != default {
                self.settings_file(&path, layer.clone(), Some(root.to_path_buf()));
            }
        }
    }

    pub(super) fn frontmatter_file(&mut self, path: &Path, layer: Layer) {
        let Some(bytes) = self.read(path, &layer) else {
            return;
        };
        match frontmatter::hooks(&bytes) {
            Ok(None) => {}
            Ok(Some(fm)) => {
                let value = serde_json::json!({ "hooks": fm.hooks });
                let line_of = |pointer: &str| {
                    pointer
                        .strip_prefix("/hooks")
                        .and_then(|rest| fm.line_of(rest))
                };
                self.document(path, layer, None, value, &line_of, "/hooks");
            }
            Err(p) => {
                self.files
                    .push(file_entry(path, &layer, true, vec![p.clone()]));
                if p.drops_file {
                    self.mark_dropped();
                }
            }
        }
    }

    /// Marks the last file dropped (by its first dropping problem).
    pub(super) fn mark_dropped(&mut self) {
        if let Some(f) = self.files.last_mut() {
            f.dropped = f
                .problems
                .iter()
                .find(|p| p.drops_file)
                .map(|p| p.message.clone());
        }
    }

    pub(super) fn document(
        &mut self,
        path: &Path,
        layer: Layer,
        plugin_root: Option<PathBuf>,
        value: Value,
        line_of: &dyn Fn(&str) -> Option<usize>,
        hooks_pointer: &str,
    ) {
        let mut problems = Vec::new();
        let mut handlers = Vec::new();
        let Some(root) = value.as_object() else {
            problems.push(problem(
                "schema-invalid",
                line_of(""),
                None,
                format!(
                    "the file is a JSON {} where an object belongs; Claude Code skips it",
                    type_name(&value)
                ),
                true,
            ));
            let mut f = file_entry(path, &layer, true, problems);
            f.dropped = f.problems.first().map(|p| p.message.clone());
            self.files.push(f);
            return;
        };
        let disable_all = flag(root, "disableAllHooks", line_of, &mut problems);
        let managed_only = flag(root, "allowManagedHooksOnly", line_of, &mut problems);
        if managed_only.is_some() && layer != Layer::Managed {
            problems.push(problem(
                "managed-only-ignored",
                line_of("/allowManagedHooksOnly"),
                None,
                "allowManagedHooksOnly is honoured only in managed settings; here it does nothing"
                    .to_string(),
                false,
            ));
        }
        match root.get("hooks") {
            None => {}
            Some(Value::Object(events)) => {
                let place = walk::Place {
                    path,
                    layer: &layer,
                    plugin_root: plugin_root.clone(),
                    line_of,
                };
                let mut schema = claude::ClaudeSchema {
                    version: &self.version,
                };
                walk::walk(
                    &mut schema,
                    events,
                    hooks_pointer,
                    &place,
                    &mut problems,
                    &mut handlers,
                );
            }
            Some(other) => problems.push(problem(
                "schema-invalid",
                line_of(hooks_pointer),
                None,
                format!(
                    "\"hooks\" is a JSON {} where an object of events belongs; Claude Code's schema rejects it and skips the whole file",
                    type_name(other)
                ),
                true,
            )),
        }
        // Load-time drops first (docs/contract.md#settings-claude-code-skips), then by line.
        problems.sort_by_key(|p| (!p.drops_file, p.line.unwrap_or(0)));
        let dropped = problems
            .iter()
            .find(|p| p.drops_file)
            .map(|p| p.message.clone());
        if let Some(why) = &dropped {
            for h in &mut handlers {
                h.inactive = Some(Inactive::FileDropped(why.clone()));
            }
        } else if layer.is_settings() {
            self.docs.push(Doc {
                layer: layer.clone(),
                path: path.to_path_buf(),
                value: value.clone(),
            });
        }
        let mut f = file_entry(path, &layer, true, problems);
        f.dropped = dropped;
        f.disable_all_hooks = disable_all;
        f.allow_managed_hooks_only = managed_only;
        f.handlers = handlers.len();
        self.files.push(f);
        self.handlers.extend(handlers);
    }

    pub(super) fn finish(self, project_dir: Option<PathBuf>) -> HookConfig {
        let Loader {
            version,
            files,
            mut handlers,
            docs,
        } = self;
        // disableAllHooks: the value of the highest-precedence file wins.
        let mut disable: Option<DisableAll> = None;
        let mut best = 0u8;
        let mut managed_only = None;
        let mut permissions = Permissions::default();
        let mut mode_rank = 0u8;
        for doc in &docs {
            let rank = precedence(&doc.layer);
            if let Some(b) = doc.value.get("disableAllHooks").and_then(Value::as_bool)
                && rank >= best
            {
                best = rank;
                disable = Some(DisableAll {
                    value: b,
                    file: doc.path.clone(),
                    managed: doc.layer == Layer::Managed,
                });
            }
            if doc.layer == Layer::Managed
                && doc
                    .value
                    .get("allowManagedHooksOnly")
                    .and_then(Value::as_bool)
                    == Some(true)
            {
                managed_only = Some(doc.path.clone());
            }
            if let Some(p) = doc.value.get("permissions").and_then(Value::as_object) {
                let source = match doc.layer {
                    Layer::User => Some("userSettings"),
                    Layer::Project => Some("projectSettings"),
                    Layer::Local => Some("localSettings"),
                    Layer::Managed => Some("policySettings"),
                    _ => None,
                };
                for (key, list) in [
                    ("allow", &mut permissions.allow),
                    ("ask", &mut permissions.ask),
                    ("deny", &mut permissions.deny),
                ] {
                    if let Some(items) = p.get(key).and_then(Value::as_array) {
                        for rule in items.iter().filter_map(Value::as_str) {
                            list.push(rule.to_string());
                            if let Some(src) = source {
                                permissions
                                    .rule_sources
                                    .entry(rule.to_string())
                                    .or_insert_with(|| src.to_string());
                            }
                        }
                    }
                }
                if let Some(m) = p.get("defaultMode").and_then(Value::as_str)
                    && rank >= mode_rank
                {
                    mode_rank = rank;
                    permissions.default_mode = Some(m.to_string());
                }
            }
        }
        for h in &mut handlers {
            if h.inactive.is_some() {
                continue;
            }
            let managed = h.origin.layer == Layer::Managed;
            if let Some(d) = &disable
                && d.value
                && (d.managed || !managed)
            {
                h.inactive = Some(Inactive::DisabledAll(d.file.display().to_string()));
                continue;
            }
            if let Some(file) = &managed_only
                && !managed
            {
                h.inactive = Some(Inactive::ManagedOnly(file.display().to_string()));
            }
        }
        // Identical handlers from settings files run once.
        let mut seen: HashMap<(EventKey, String), usize> = HashMap::new();
        for (i, h) in handlers.iter_mut().enumerate() {
            if !h.origin.layer.is_settings() || h.inactive.is_some() {
                continue;
            }
            let key = (h.event.clone(), canonical(&h.raw));
            match seen.get(&key) {
                Some(&first) => h.duplicate_of = Some(first),
                None => {
                    seen.insert(key, i);
                }
            }
        }
        HookConfig {
            files,
            handlers,
            disable_all_hooks: disable,
            managed_only,
            version,
            project_dir,
            permissions,
            agent: Agent::ClaudeCode,
        }
    }
}

/// A key-order-independent text of a JSON value (for dedup).
pub(super) fn canonical(value: &Value) -> String {
    pub(super) fn sort(v: &Value) -> Value {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let mut out = Map::new();
                for k in keys {
                    out.insert(k.clone(), sort(&map[k]));
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(value).to_string()
}

pub(super) fn flag(
    root: &Map<String, Value>,
    key: &str,
    line_of: &dyn Fn(&str) -> Option<usize>,
    problems: &mut Vec<Problem>,
) -> Option<bool> {
    match root.get(key)? {
        Value::Bool(b) => Some(*b),
        other => {
            problems.push(schema(
                line_of(&format!("/{key}")),
                format!(
                    "{key} is a JSON {} where true or false belongs",
                    type_name(other)
                ),
            ));
            None
        }
    }
}

/// The known event closest to a misspelt one (case or a small edit).
pub fn closest_event(name: &str) -> Option<&'static str> {
    let names = contract::event_names();
    if let Some(n) = names.iter().find(|n| n.eq_ignore_ascii_case(name)) {
        return Some(n);
    }
    names
        .into_iter()
        .map(|n| (strsim::levenshtein(n, name), n))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// `object`, `array`, `string`, `number`, `boolean` or `null` (the hook
/// crate's [`crate::tools::calls::json_type`]).
pub use crate::tools::calls::json_type as type_name;

pub(super) fn problem(
    id: &'static str,
    line: Option<usize>,
    column: Option<usize>,
    message: String,
    drops: bool,
) -> Problem {
    Problem {
        id,
        line,
        column,
        message,
        drops_file: drops,
    }
}

/// A schema error in the hooks: Claude Code skips the whole file.
pub(super) fn schema(line: Option<usize>, what: String) -> Problem {
    problem(
        "schema-invalid",
        line,
        None,
        format!(
            "{what}; Claude Code's settings schema rejects it and skips every hook and setting of this file"
        ),
        true,
    )
}

/// A schema error in a matcher: Claude Code skips the whole file.
pub(super) fn matcher_schema(line: Option<usize>, what: String) -> Problem {
    Problem {
        id: "matcher-schema-invalid",
        ..schema(line, what)
    }
}

pub(super) fn file_entry(
    path: &Path,
    layer: &Layer,
    found: bool,
    problems: Vec<Problem>,
) -> SettingsFile {
    SettingsFile {
        path: path.to_path_buf(),
        layer: layer.clone(),
        found,
        dropped: None,
        problems,
        disable_all_hooks: None,
        allow_managed_hooks_only: None,
        handlers: 0,
    }
}
