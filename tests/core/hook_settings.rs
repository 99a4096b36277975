//! The user's hook configuration (docs/your-hooks.md#your-hooks): files by layer, handlers
//! with `file:line`, effective timeouts, merge rules, and the load-time
//! drops Claude Code itself makes (docs/contract.md#settings-claude-code-skips). Every root is a
//! tempdir: the real home and /etc are never read.

use std::fs;
use std::path::{Path, PathBuf};

use hookscope_core::hooks::contract::Version;
use hookscope_core::hooks::settings::{
    HandlerType, HookConfig, Inactive, Layer, LoadOptions, SETTINGS_CAP, effective_timeout, load,
};

use crate::support::write_file;

struct Roots {
    _dir: tempfile::TempDir,
    config: PathBuf,
    project: PathBuf,
    managed: PathBuf,
}

fn roots() -> Roots {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config");
    let project = dir.path().join("project");
    let managed = dir.path().join("etc").join("managed-settings.json");
    fs::create_dir_all(&config).expect("mkdir");
    fs::create_dir_all(project.join(".claude")).expect("mkdir");
    fs::create_dir_all(managed.parent().expect("parent")).expect("mkdir");
    Roots {
        _dir: dir,
        config,
        project,
        managed,
    }
}

fn opts(r: &Roots, version: &str) -> LoadOptions {
    LoadOptions {
        settings: Vec::new(),
        cwd: Some(r.project.clone()),
        config_dir: Some(r.config.clone()),
        managed: Some(r.managed.clone()),
        version: Version::parse(version),
    }
}

fn given(paths: &[&Path], version: &str) -> HookConfig {
    load(&LoadOptions {
        settings: paths.iter().map(|p| p.to_path_buf()).collect(),
        cwd: None,
        config_dir: None,
        managed: None,
        version: Version::parse(version),
    })
}

const USER: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "guard.sh" },
          { "type": "command", "command": "slow.sh", "timeout": 5 }
        ]
      }
    ],
    "UserPromptSubmit": [
      { "hooks": [ { "type": "prompt", "prompt": "Is this safe? $ARGUMENTS" } ] }
    ]
  }
}
"#;

#[test]
fn every_layer_with_file_line_and_timeout() {
    let r = roots();
    write_file(r.config.join("settings.json"), USER);
    write_file(
        r.project.join(".claude/settings.json"),
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "agent", "prompt": "check"}]}]}}"#,
    );
    write_file(
        r.project.join(".claude/settings.local.json"),
        "{\"hooks\": {\"PostToolUse\": [\n {\"matcher\": \"Edit\", \"hooks\": [\n  {\"type\": \"http\", \"url\": \"http://127.0.0.1:9/h\", \"headers\": {\"A\": \"$T\"}, \"allowedEnvVars\": [\"T\"]}]}]}}",
    );
    write_file(
        &r.managed,
        r#"{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "bye", "timeout": 90}]}]}}"#,
    );
    let config = load(&opts(&r, "2.1.332"));
    let layers: Vec<String> = config.files.iter().map(|f| f.layer.to_string()).collect();
    assert_eq!(layers, ["managed", "user", "project", "local"]);
    assert!(
        config
            .files
            .iter()
            .all(|f| f.found && f.problems.is_empty())
    );
    assert_eq!(config.handlers.len(), 6);

    let bye = &config.handlers[0];
    assert_eq!(bye.origin.layer, Layer::Managed);
    assert_eq!(bye.effective_timeout, 60.0, "SessionEnd caps at 60 s");

    let guard = &config.handlers[1];
    assert_eq!(guard.event, "PreToolUse");
    assert_eq!(guard.matcher.as_deref(), Some("Bash"));
    assert_eq!(guard.kind, HandlerType::Command);
    assert_eq!(guard.command.as_deref(), Some("guard.sh"));
    assert_eq!(guard.origin.line, 7);
    assert_eq!(guard.origin.layer, Layer::User);
    assert_eq!(guard.effective_timeout, 600.0);
    let slow = &config.handlers[2];
    assert_eq!(slow.origin.line, 8);
    assert_eq!((slow.timeout, slow.effective_timeout), (Some(5.0), 5.0));
    assert_eq!(slow.timeout_source, "written");
    let prompt = &config.handlers[3];
    assert_eq!(prompt.kind, HandlerType::Prompt);
    assert_eq!(prompt.matcher, None);
    assert_eq!(prompt.effective_timeout, 30.0);
    assert_eq!(prompt.origin.line, 13);

    let agent = &config.handlers[4];
    assert_eq!(
        (agent.kind.clone(), agent.effective_timeout),
        (HandlerType::Agent, 60.0)
    );
    let http = &config.handlers[5];
    assert_eq!(http.kind, HandlerType::Http);
    assert_eq!(http.origin.line, 3);
    assert_eq!(http.origin.layer, Layer::Local);
    assert_eq!(
        http.allowed_env_vars.as_deref(),
        Some(&["T".to_string()][..])
    );
    assert_eq!(
        http.headers
            .as_ref()
            .and_then(|h| h.get("A"))
            .map(String::as_str),
        Some("$T")
    );
    assert!(config.handlers.iter().all(|h| h.inactive.is_none()));
}

#[test]
fn missing_files_are_listed_not_problems() {
    let r = roots();
    let config = load(&opts(&r, "2.1.332"));
    assert_eq!(config.files.len(), 4);
    assert!(
        config
            .files
            .iter()
            .all(|f| !f.found && f.problems.is_empty())
    );
    assert!(config.handlers.is_empty());
}

#[test]
fn timeouts_by_version_event_and_type() {
    let v = |s: &str| Version::parse(s);
    assert_eq!(
        effective_timeout("PreToolUse", &HandlerType::Command, None, &v("2.1.2")).0,
        60.0
    );
    assert_eq!(
        effective_timeout("PreToolUse", &HandlerType::Command, None, &v("2.1.3")).0,
        600.0
    );
    assert_eq!(
        effective_timeout(
            "UserPromptSubmit",
            &HandlerType::Command,
            None,
            &v("2.1.332")
        )
        .0,
        30.0
    );
    assert_eq!(
        effective_timeout("MessageDisplay", &HandlerType::Http, None, &v("2.1.332")).0,
        10.0
    );
    assert_eq!(
        effective_timeout("SessionEnd", &HandlerType::Command, None, &v("2.1.332")).0,
        1.5
    );
    assert_eq!(
        effective_timeout("MessageDisplay", &HandlerType::Prompt, None, &v("2.1.332")).0,
        10.0
    );
    assert_eq!(
        effective_timeout("Stop", &HandlerType::Prompt, Some(0.0), &v("2.1.332")).0,
        30.0,
        "a zero timeout is not a timeout"
    );
}

#[test]
fn json_error_has_line_and_column_and_the_rest_loads() {
    let r = roots();
    write_file(r.config.join("settings.json"), USER);
    write_file(
        r.project.join(".claude/settings.json"),
        "{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n",
    );
    let config = load(&opts(&r, "2.1.332"));
    let project = &config.files[2];
    assert_eq!(project.layer, Layer::Project);
    assert_eq!(project.problems.len(), 1);
    assert_eq!(project.problems[0].line, Some(3));
    assert_eq!(project.problems[0].column, Some(14));
    assert!(project.problems[0].message.starts_with("not valid JSON"));
    assert!(project.dropped.is_some());
    assert_eq!(config.handlers.len(), 3, "the user file still loads");
}

#[test]
fn one_schema_invalid_matcher_drops_every_hook_of_its_file() {
    let r = roots();
    write_file(r.config.join("settings.json"), USER);
    write_file(
        r.project.join(".claude/settings.json"),
        r#"{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "a.sh"}]},
      {"matcher": {"tool": "Edit"}, "hooks": [{"type": "command", "command": "b.sh"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "c.sh"}]}]
  },
  "disableAllHooks": true
}"#,
    );
    let config = load(&opts(&r, "2.1.332"));
    let project = &config.files[2];
    let why = project.dropped.as_deref().expect("dropped");
    assert!(why.contains("matcher of PreToolUse[1] is a JSON object where a string belongs"));
    assert_eq!(project.problems[0].line, Some(5));
    assert_eq!(project.handlers, 3);
    let from_project: Vec<_> = config
        .handlers
        .iter()
        .filter(|h| h.origin.layer == Layer::Project)
        .collect();
    assert_eq!(from_project.len(), 3);
    assert!(
        from_project
            .iter()
            .all(|h| matches!(h.inactive, Some(Inactive::FileDropped(_))))
    );
    // Its disableAllHooks is skipped with it: the user's hooks still run.
    assert!(config.disable_all_hooks.is_none());
    assert_eq!(config.active_on("PreToolUse").count(), 2);
}

#[test]
fn unknown_event_key_rejects_the_file_before_2_1_101() {
    let r = roots();
    let text = r#"{"hooks": {
  "PreToolUse": [{"hooks": [{"type": "command", "command": "a.sh"}]}],
  "PreToolUsed": [{"hooks": [{"type": "command", "command": "b.sh"}]}]
}}"#;
    write_file(r.config.join("settings.json"), text);
    let old = load(&opts(&r, "2.1.100"));
    let user = &old.files[1];
    assert!(
        user.dropped
            .as_deref()
            .expect("dropped")
            .contains("\"PreToolUsed\" is not a hook event (did you mean \"PreToolUse\"?)")
    );
    assert_eq!(user.problems[0].line, Some(3));
    assert_eq!(old.active_on("PreToolUse").count(), 0);

    let new = load(&opts(&r, "2.1.101"));
    let user = &new.files[1];
    assert!(user.dropped.is_none());
    assert_eq!(user.problems.len(), 1);
    assert!(
        user.problems[0]
            .message
            .ends_with("Claude Code ignores its hooks")
    );
    assert_eq!(new.active_on("PreToolUse").count(), 1);
    assert_eq!(new.handlers[1].inactive, Some(Inactive::UnknownEvent));
}

#[test]
fn event_newer_than_the_version_is_unknown_then() {
    let r = roots();
    write_file(
        r.config.join("settings.json"),
        r#"{"hooks": {"PreModelSwitch": [{"hooks": [{"type": "command", "command": "m"}]}]}}"#,
    );
    let config = load(&opts(&r, "2.1.250"));
    assert!(
        config.files[1].problems[0]
            .message
            .contains("not an event yet at Claude Code 2.1.250")
    );
    let config = load(&opts(&r, "2.1.251"));
    assert!(config.files[1].problems.is_empty());
    assert_eq!(config.handlers[0].effective_timeout, 30.0);
}

#[test]
fn disable_all_hooks_follows_settings_precedence() {
    let r = roots();
    write_file(
        r.config.join("settings.json"),
        USER.replacen('{', "{\"disableAllHooks\": true,", 1),
    );
    write_file(
        &r.managed,
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "m"}]}]}}"#,
    );
    let config = load(&opts(&r, "2.1.332"));
    let d = config.disable_all_hooks.as_ref().expect("set");
    assert!(d.value && !d.managed);
    assert_eq!(config.handlers[0].origin.layer, Layer::Managed);
    assert!(
        config.handlers[0].inactive.is_none(),
        "managed hooks stay on"
    );
    assert!(
        config.handlers[1..]
            .iter()
            .all(|h| matches!(h.inactive, Some(Inactive::DisabledAll(_))))
    );

    // A project false beats a user true.
    write_file(
        r.project.join(".claude/settings.json"),
        r#"{"disableAllHooks": false}"#,
    );
    let config = load(&opts(&r, "2.1.332"));
    assert!(!config.disable_all_hooks.as_ref().expect("set").value);
    assert!(config.handlers.iter().all(|h| h.inactive.is_none()));

    // Set in managed settings it turns managed hooks off too.
    write_file(
        &r.managed,
        r#"{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "m"}]}]}}"#,
    );
    let config = load(&opts(&r, "2.1.332"));
    assert!(config.handlers.iter().all(|h| h.inactive.is_some()));
}

#[test]
fn allow_managed_hooks_only_is_honoured_only_in_managed_settings() {
    let r = roots();
    write_file(
        r.config.join("settings.json"),
        USER.replacen('{', "{\"allowManagedHooksOnly\": true,", 1),
    );
    let config = load(&opts(&r, "2.1.332"));
    assert!(config.managed_only.is_none());
    assert!(config.handlers.iter().all(|h| h.inactive.is_none()));
    assert!(
        config.files[1].problems[0]
            .message
            .contains("honoured only in managed settings")
    );

    write_file(
        &r.managed,
        r#"{"allowManagedHooksOnly": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "m"}]}]}}"#,
    );
    let config = load(&opts(&r, "2.1.332"));
    assert_eq!(config.managed_only.as_deref(), Some(r.managed.as_path()));
    assert!(config.handlers[0].inactive.is_none());
    assert!(
        config.handlers[1..]
            .iter()
            .all(|h| matches!(h.inactive, Some(Inactive::ManagedOnly(_))))
    );
}

#[test]
fn identical_settings_handlers_dedupe_but_plugin_copies_do_not() {
    let r = roots();
    let same = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]}"#;
    write_file(
        r.config.join("settings.json"),
        format!(
            "{}, \"enabledPlugins\": {{\"fmt@market\": true, \"off@market\": false}}}}",
            same
        ),
    );
    // Keys in another order, another matcher: still the same handler.
    write_file(
        r.project.join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"command": "guard.sh", "type": "command"}]}]}}"#,
    );
    let plugin_root = r.config.join("plugins/cache/market/fmt/1.2.0");
    write_file(
        plugin_root.join("hooks/hooks.json"),
        format!("{{\"description\": \"fmt\", {}}}", &same[1..]),
    );
    write_file(
        r.config
            .join("plugins/cache/market/fmt/1.10.0/hooks/hooks.json"),
        format!("{{\"description\": \"newer\", {}}}", &same[1..]),
    );
    write_file(
        r.config
            .join("plugins/cache/market/off/1.0.0/hooks/hooks.json"),
        format!("{{{}}}", &same[1..]),
    );
    let config = load(&opts(&r, "2.1.332"));
    assert_eq!(config.handlers.len(), 3);
    assert_eq!(config.handlers[0].duplicate_of, None);
    assert_eq!(config.handlers[1].duplicate_of, Some(0));
    let plugin = &config.handlers[2];
    assert_eq!(plugin.origin.layer, Layer::Plugin("fmt@market".into()));
    assert_eq!(plugin.duplicate_of, None);
    assert_eq!(
        plugin.origin.plugin_root.as_deref(),
        Some(r.config.join("plugins/cache/market/fmt/1.10.0").as_path()),
        "the newest cached version by number, not by name"
    );
}

#[test]
fn installed_plugins_json_gives_the_install_path() {
    let r = roots();
    write_file(
        r.config.join("settings.json"),
        r#"{"enabledPlugins": {"lint@m": true}}"#,
    );
    let root = r.config.join("elsewhere/lint");
    write_file(
        r.config.join("plugins/installed_plugins.json"),
        format!(
            r#"{{"version": 2, "plugins": {{"lint@m": [{{"scope": "user", "installPath": {:?}}}]}}}}"#,
            root.display().to_string()
        ),
    );
    write_file(
        root.join("hooks/hooks.json"),
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/stop.sh"}]}]}}"#,
    );
    let config = load(&opts(&r, "2.1.332"));
    assert_eq!(config.handlers.len(), 1);
    assert_eq!(
        config.handlers[0].origin.plugin_root.as_deref(),
        Some(root.as_path())
    );
}

#[test]
fn plugin_manifest_hooks_and_a_plugin_without_hooks() {
    let r = roots();
    write_file(
        r.config.join("settings.json"),
        r#"{"enabledPlugins": {"a@m": true, "b@m": true, "c@m": true}}"#,
    );
    // a: no hooks at all (normal, not a problem).
    fs::create_dir_all(r.config.join("plugins/cache/m/a/1.0.0")).expect("mkdir");
    // b: inline hooks in its manifest.
    write_file(
        r.config
            .join("plugins/cache/m/b/1.0.0/.claude-plugin/plugin.json"),
        "{\"name\": \"b\",\n \"hooks\": {\"Stop\": [{\"hooks\": [\n  {\"type\": \"command\", \"command\": \"b.sh\"}]}]}}",
    );
    // c: a manifest naming another hooks file.
    write_file(
        r.config
            .join("plugins/cache/m/c/2.0.0/.claude-plugin/plugin.json"),
        r#"{"name": "c", "hooks": "./extra/hooks.json"}"#,
    );
    write_file(
        r.config.join("plugins/cache/m/c/2.0.0/extra/hooks.json"),
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "c.sh"}]}]}}"#,
    );
    let config = load(&opts(&r, "2.1.332"));
    let plugin_files: Vec<_> = config
        .files
        .iter()
        .filter(|f| matches!(f.layer, Layer::Plugin(_)))
        .collect();
    assert!(
        plugin_files.iter().all(|f| f.problems.is_empty()),
        "{plugin_files:?}"
    );
    let found: Vec<String> = plugin_files
        .iter()
        .filter(|f| f.found)
        .map(|f| {
            f.path
                .strip_prefix(&r.config)
                .expect("under config")
                .display()
                .to_string()
        })
        .collect();
    assert_eq!(
        found,
        [
            "plugins/cache/m/b/1.0.0/.claude-plugin/plugin.json",
            "plugins/cache/m/c/2.0.0/extra/hooks.json"
        ]
    );
    let commands: Vec<(&str, usize)> = config
        .handlers
        .iter()
        .map(|h| (h.command.as_deref().unwrap_or(""), h.origin.line))
        .collect();
    assert_eq!(commands, [("b.sh", 3), ("c.sh", 1)]);
}

#[test]
fn skill_and_agent_frontmatter_hooks() {
    let r = roots();
    write_file(
        r.project.join(".claude/skills/format/SKILL.md"),
        "---\nname: format\ndescription: x\nhooks:\n  PostToolUse:\n    - matcher: \"Edit|Write\"\n      hooks:\n        - type: command\n          command: ./fmt.sh\n          once: true\n---\n# Format\n",
    );
    write_file(
        r.config.join("agents/reviewer.md"),
        "---\nname: reviewer\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: done.sh\n---\n",
    );
    write_file(r.config.join("agents/plain.md"), "no frontmatter\n");
    let config = load(&opts(&r, "2.1.332"));
    assert_eq!(config.handlers.len(), 2);
    let agent = &config.handlers[0];
    assert_eq!(agent.origin.layer, Layer::Agent("reviewer".into()));
    assert_eq!(
        (agent.event.as_str(), agent.event_as_written.as_str()),
        ("SubagentStop", "Stop")
    );
    assert_eq!(agent.origin.line, 6);
    let skill = &config.handlers[1];
    assert_eq!(skill.origin.layer, Layer::Skill("format".into()));
    assert_eq!(skill.once, Some(true));
    assert_eq!(skill.matcher.as_deref(), Some("Edit|Write"));
    assert_eq!(skill.origin.line, 8);
}

#[test]
fn given_files_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("proj/.claude/settings.json");
    write_file(&a, USER);
    let config = given(&[&a], "2.1.332");
    assert_eq!(config.files.len(), 1);
    assert_eq!(config.files[0].layer, Layer::Given);
    assert_eq!(config.handlers.len(), 3);
    assert_eq!(
        config.project_dir.as_deref(),
        Some(dir.path().join("proj").as_path())
    );
    let missing = dir.path().join("nope.json");
    let config = given(&[&missing], "2.1.332");
    assert!(!config.files[0].found);
    assert!(
        config.files[0].problems[0]
            .message
            .starts_with("cannot read")
    );
}

#[test]
fn permissions_are_collected() {
    let r = roots();
    write_file(
        r.config.join("settings.json"),
        r#"{"permissions": {"allow": ["Bash(ls *)"], "deny": ["Bash(rm *)"], "defaultMode": "default"}}"#,
    );
    write_file(
        r.project.join(".claude/settings.local.json"),
        r#"{"permissions": {"ask": ["Bash(git push *)"], "defaultMode": "acceptEdits"}}"#,
    );
    let config = load(&opts(&r, "2.1.332"));
    assert_eq!(config.permissions.allow, ["Bash(ls *)"]);
    assert_eq!(config.permissions.deny, ["Bash(rm *)"]);
    assert_eq!(config.permissions.ask, ["Bash(git push *)"]);
    assert_eq!(
        config.permissions.default_mode.as_deref(),
        Some("acceptEdits")
    );
}

// ---- hostile inputs ----

#[test]
fn deep_nesting_is_a_json_error_not_a_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("settings.json");
    let depth = 100_000;
    write_file(&path, format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
    let config = given(&[&path], "2.1.332");
    let p = &config.files[0].problems[0];
    assert!(
        p.message.contains("recursion limit exceeded"),
        "{}",
        p.message
    );
    assert_eq!(p.line, Some(1));
    assert!(config.handlers.is_empty());
}

#[test]
fn a_file_over_the_cap_is_not_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("settings.json");
    let size = usize::try_from(SETTINGS_CAP).expect("fits") + 1;
    write_file(&path, " ".repeat(size));
    let config = given(&[&path], "2.1.332");
    assert_eq!(
        config.files[0].problems[0].message,
        format!("cannot read: larger than {SETTINGS_CAP} bytes")
    );
}

#[test]
fn non_utf8_settings_is_a_json_error_with_position() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("settings.json");
    fs::write(&path, b"{\"hooks\": {\n\"Stop\": \"\xff\xfe\"}}").expect("write");
    let config = given(&[&path], "2.1.332");
    let p = &config.files[0].problems[0];
    assert_eq!(p.line, Some(2));
    assert!(
        p.message.contains("invalid unicode") || p.message.contains("UTF-8"),
        "{}",
        p.message
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_named_settings_json_does_not_block() {
    let r = roots();
    let fifo = r.config.join("settings.json");
    let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("path");
    // SAFETY: mkfifo with a valid NUL-terminated path.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(rc, 0);
    write_file(r.project.join(".claude/settings.json"), USER);
    let config = load(&opts(&r, "2.1.332"));
    assert_eq!(
        config.files[1].problems[0].message,
        "not read: not a regular file (FIFO)"
    );
    assert_eq!(config.handlers.len(), 3);
}

#[test]
fn wrong_types_everywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: &[(&str, &str)] = &[
        ("[]", "the file is a JSON array where an object belongs"),
        (
            r#"{"hooks": []}"#,
            "\"hooks\" is a JSON array where an object of events belongs",
        ),
        (
            r#"{"hooks": {"Stop": {}}}"#,
            "\"Stop\" is a JSON object where a list of matcher groups belongs",
        ),
        (
            r#"{"hooks": {"Stop": [1]}}"#,
            "Stop[0] is a JSON number where a matcher group object belongs",
        ),
        (
            r#"{"hooks": {"Stop": [{"hooks": "x"}]}}"#,
            "\"hooks\" of Stop[0] is a JSON string where a list of handlers belongs",
        ),
        (
            r#"{"hooks": {"Stop": [{}]}}"#,
            "Stop[0] has no \"hooks\" list",
        ),
        (
            r#"{"hooks": {"Stop": [{"hooks": [null]}]}}"#,
            "Stop[0].hooks[0] is a JSON null where a handler object belongs",
        ),
        (
            r#"{"hooks": {"Stop": [{"hooks": [{"type": 1}]}]}}"#,
            "Stop[0].hooks[0].type is a JSON number where a string belongs",
        ),
        (
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "shell"}]}]}}"#,
            "Stop[0].hooks[0].type \"shell\" is not a handler type",
        ),
        (
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ["a"]}]}]}}"#,
            "Stop[0].hooks[0].command is a JSON array where a string belongs",
        ),
        (
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "timeout": "30"}]}]}}"#,
            "Stop[0].hooks[0].timeout is a JSON string where a number of seconds belongs",
        ),
        (
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "args": [1]}]}]}}"#,
            "Stop[0].hooks[0].args is a JSON array where a list of strings belongs",
        ),
        (
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "http", "url": "u", "headers": {"a": 1}}]}]}}"#,
            "Stop[0].hooks[0].headers is a JSON object where an object of strings belongs",
        ),
        (
            r#"{"disableAllHooks": "yes"}"#,
            "disableAllHooks is a JSON string where true or false belongs",
        ),
    ];
    for (i, (text, expected)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("s{i}.json"));
        write_file(&path, text);
        let config = given(&[&path], "2.1.332");
        let file = &config.files[0];
        let dropped = file
            .dropped
            .as_deref()
            .unwrap_or_else(|| panic!("{text}: not dropped"));
        assert!(dropped.starts_with(expected), "{text}: {dropped}");
        assert!(config.active_on("Stop").next().is_none(), "{text}");
    }
}

// ---- lints: each fires on a minimal file and not on the fix ----

mod lints {
    use super::*;
    use hookscope_core::hooks::lint::{
        LINTS, Lint, LintOptions, Severity, lint_config, lint_output,
    };
    use serde_json::json;

    struct Bin {
        _dir: tempfile::TempDir,
        path: PathBuf,
    }

    /// A PATH folder holding an executable `ok.sh` and a non-executable
    /// `noexec.sh`.
    fn bin() -> Bin {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().to_path_buf();
        write_file(path.join("ok.sh"), "#!/bin/sh\nexit 0\n");
        write_file(path.join("noexec.sh"), "#!/bin/sh\nexit 0\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(path.join("ok.sh"), fs::Permissions::from_mode(0o755))
                .expect("chmod");
            fs::set_permissions(path.join("noexec.sh"), fs::Permissions::from_mode(0o644))
                .expect("chmod");
        }
        Bin { _dir: dir, path }
    }

    fn lint_text(text: &str, version: &str, bin: &Bin) -> Vec<Lint> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("settings.json");
        write_file(&path, text);
        let config = given(&[&path], version);
        lint_config(
            &config,
            &LintOptions {
                path: Some(bin.path.clone().into_os_string()),
                ..LintOptions::default()
            },
        )
    }

    fn one(event: &str, matcher: Option<&str>, handler: serde_json::Value) -> String {
        let mut group = json!({"hooks": [handler]});
        if let Some(m) = matcher {
            group["matcher"] = json!(m);
        }
        json!({"hooks": {event: [group]}}).to_string()
    }

    fn cmd() -> serde_json::Value {
        json!({"type": "command", "command": "ok.sh"})
    }

    fn ids(lints: &[Lint]) -> Vec<&'static str> {
        lints.iter().map(|l| l.id).collect()
    }

    #[test]
    fn each_config_lint_fires_and_its_fix_is_silent() {
        let b = bin();
        let noexec = b.path.join("noexec.sh").display().to_string();
        let okabs = b.path.join("ok.sh").display().to_string();
        let cases: Vec<(&str, String, String, &str)> = vec![
            (
                "matcher-dead-exact",
                one("PreToolUse", Some("mcp__memory"), cmd()),
                one("PreToolUse", Some("mcp__memory__.*"), cmd()),
                "2.1.332",
            ),
            (
                "matcher-case",
                one("PreToolUse", Some("bash"), cmd()),
                one("PreToolUse", Some("Bash"), cmd()),
                "2.1.332",
            ),
            (
                "matcher-unanchored",
                one("PreToolUse", Some("Edit.*"), cmd()),
                one("PreToolUse", Some("^Edit.*$"), cmd()),
                "2.1.332",
            ),
            (
                "matcher-comma-version",
                one("PreToolUse", Some("Bash, Edit"), cmd()),
                one("PreToolUse", Some("Bash|Edit"), cmd()),
                "2.1.190",
            ),
            (
                "matcher-hyphen-version",
                one("SubagentStart", Some("code-reviewer"), cmd()),
                one("SubagentStart", Some("^code-reviewer$"), cmd()),
                "2.1.194",
            ),
            (
                "matcher-ignored",
                one("Stop", Some("Bash"), cmd()),
                one("Stop", None, cmd()),
                "2.1.332",
            ),
            (
                "matcher-tool-absent",
                one("PreToolUse", Some("Glob|Grep"), cmd()),
                one("PreToolUse", Some("Bash"), cmd()),
                "2.1.117",
            ),
            (
                "matcher-catastrophic-regex",
                one("PreToolUse", Some("^(Bash.*)+$"), cmd()),
                one("PreToolUse", Some("^Bash$"), cmd()),
                "2.1.332",
            ),
            (
                "if-non-tool-event",
                one(
                    "Stop",
                    None,
                    json!({"type": "command", "command": "ok.sh", "if": "Bash(rm *)"}),
                ),
                one("Stop", None, cmd()),
                "2.1.332",
            ),
            (
                "timeout-ms",
                one(
                    "Stop",
                    None,
                    json!({"type": "command", "command": "ok.sh", "timeout": 30000}),
                ),
                one(
                    "Stop",
                    None,
                    json!({"type": "command", "command": "ok.sh", "timeout": 30}),
                ),
                "2.1.332",
            ),
            (
                "handler-type-not-allowed",
                one(
                    "Notification",
                    None,
                    json!({"type": "prompt", "prompt": "x"}),
                ),
                one("Stop", None, json!({"type": "prompt", "prompt": "x"})),
                "2.1.332",
            ),
            (
                "handler-type-not-allowed",
                one(
                    "SessionStart",
                    None,
                    json!({"type": "http", "url": "http://127.0.0.1:9/"}),
                ),
                one(
                    "SessionStart",
                    None,
                    json!({"type": "mcp_tool", "server": "s", "tool": "t"}),
                ),
                "2.1.332",
            ),
            (
                "command-not-found",
                one(
                    "Stop",
                    None,
                    json!({"type": "command", "command": "no-such-hook-xyz --flag"}),
                ),
                one(
                    "Stop",
                    None,
                    json!({"type": "command", "command": "FOO=1 ok.sh --flag"}),
                ),
                "2.1.332",
            ),
            (
                "not-executable",
                one("Stop", None, json!({"type": "command", "command": noexec})),
                one("Stop", None, json!({"type": "command", "command": okabs})),
                "2.1.332",
            ),
            (
                "unknown-event",
                one("PreToolUsed", None, cmd()),
                one("PreToolUse", None, cmd()),
                "2.1.332",
            ),
            (
                "matcher-schema-invalid",
                json!({"hooks": {"PreToolUse": [{"matcher": {"a": 1}, "hooks": [cmd()]}]}})
                    .to_string(),
                one("PreToolUse", Some("Bash"), cmd()),
                "2.1.332",
            ),
            (
                "once-outside-skill",
                one(
                    "Stop",
                    None,
                    json!({"type": "command", "command": "ok.sh", "once": true}),
                ),
                one("Stop", None, cmd()),
                "2.1.332",
            ),
            (
                "on-failure-version",
                one(
                    "PreToolUse",
                    None,
                    json!({"type": "command", "command": "ok.sh", "onFailure": "block"}),
                ),
                one("PreToolUse", None, cmd()),
                "2.1.294",
            ),
            (
                "on-failure-version",
                one(
                    "PreToolUse",
                    None,
                    json!({"type": "prompt", "prompt": "x", "onFailure": "block"}),
                ),
                one(
                    "PreToolUse",
                    None,
                    json!({"type": "command", "command": "ok.sh", "onFailure": "block"}),
                ),
                "2.1.295",
            ),
            (
                "settings-invalid-json",
                "{".to_string(),
                "{}".to_string(),
                "2.1.332",
            ),
            (
                "schema-invalid",
                r#"{"hooks": []}"#.to_string(),
                r#"{"hooks": {}}"#.to_string(),
                "2.1.332",
            ),
            (
                "managed-only-ignored",
                r#"{"allowManagedHooksOnly": true}"#.to_string(),
                "{}".to_string(),
                "2.1.332",
            ),
        ];
        for (id, bad, fixed, version) in &cases {
            assert!(LINTS.iter().any(|(l, _)| l == id), "{id} is documented");
            let lints = lint_text(bad, version, &b);
            assert!(ids(&lints).contains(id), "{id} on {bad}: {:?}", ids(&lints));
            let l = lints.iter().find(|l| l.id == *id).expect("found");
            assert!(!l.fix.is_empty() && l.path.is_some(), "{id}");
            let lints = lint_text(fixed, version, &b);
            assert!(lints.is_empty(), "{id} fixed {fixed}: {lints:?}");
        }
    }

    #[test]
    fn bare_mcp_matcher_lint_names_the_line_and_fix() {
        let b = bin();
        let text = std::fs::read_to_string("tests/fixtures/settings/bare_mcp_matcher.json")
            .expect("fixture");
        let lints = lint_text(&text, "2.1.332", &b);
        assert_eq!(lints.len(), 1, "{lints:?}");
        assert_eq!(lints[0].id, "matcher-dead-exact");
        assert_eq!(lints[0].severity, Severity::Error);
        assert_eq!(lints[0].line, Some(5), "the matcher's line");
        assert_eq!(lints[0].fix, "did you mean \"mcp__memory__.*\"?");
    }

    #[test]
    fn unanchored_mcp_regex_names_what_else_it_matches() {
        let b = bin();
        let lints = lint_text(&one("PreToolUse", Some("mcp__.*"), cmd()), "2.1.332", &b);
        assert_eq!(ids(&lints), ["matcher-unanchored"]);
        assert!(
            lints[0].message.contains("notmcp__server__tool"),
            "{}",
            lints[0].message
        );
        // anthropics/claude-code#72644: `mcp__*` is a regex, not a glob.
        let lints = lint_text(&one("PreToolUse", Some("mcp__*"), cmd()), "2.1.332", &b);
        assert_eq!(ids(&lints), ["matcher-unanchored"]);
        assert!(
            lints[0]
                .message
                .contains("(`__*` is `_` followed by any number of `_`, not a glob)"),
            "{}",
            lints[0].message
        );
        let lints = lint_text(&one("PreToolUse", Some("Edit.*"), cmd()), "2.1.332", &b);
        assert!(
            lints[0].message.contains("NotebookEdit"),
            "{}",
            lints[0].message
        );
    }

    #[test]
    fn glob_grep_matcher_is_fine_before_native_builds_dropped_them() {
        let b = bin();
        let lints = lint_text(&one("PreToolUse", Some("Glob|Grep"), cmd()), "2.1.116", &b);
        assert!(lints.is_empty(), "{lints:?}");
    }

    #[test]
    fn plugin_server_matcher_without_plugin_prefix() {
        let r = roots();
        write_file(
            r.config.join("settings.json"),
            r#"{"enabledPlugins": {"mem@m": true}}"#,
        );
        let root = r.config.join("plugins/cache/m/mem/1.0.0");
        let hooks = |m: &str| {
            json!({"hooks": {"PreToolUse": [{"matcher": m, "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/h.sh"}]}]}})
                .to_string()
        };
        write_file(root.join("hooks/hooks.json"), hooks("^mcp__store__.*$"));
        write_file(root.join("h.sh"), "#!/bin/sh\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(root.join("h.sh"), fs::Permissions::from_mode(0o755))
                .expect("chmod");
        }
        let lints = lint_config(&load(&opts(&r, "2.1.332")), &LintOptions::default());
        assert_eq!(ids(&lints), ["matcher-plugin-server"]);
        assert!(
            lints[0].fix.contains("^mcp__plugin_mem_store__.*$"),
            "{}",
            lints[0].fix
        );
        write_file(
            root.join("hooks/hooks.json"),
            hooks("^mcp__plugin_mem_store__.*$"),
        );
        let lints = lint_config(&load(&opts(&r, "2.1.332")), &LintOptions::default());
        assert!(lints.is_empty(), "{lints:?}");
    }

    #[test]
    fn project_dir_substitution_resolves_the_example_hook() {
        let config = given(
            &[Path::new(
                "assets/examples/hooks_c2_exit2/.claude/settings.json",
            )],
            "2.1.332",
        );
        assert_eq!(config.handlers.len(), 1);
        let lints = lint_config(&config, &LintOptions::default());
        assert!(lints.is_empty(), "{lints:?}");
    }

    // ---- output lints on strings ----

    fn out_ids(
        event: &str,
        exit: i32,
        stdout: &str,
        payload: serde_json::Value,
    ) -> Vec<&'static str> {
        ids(&lint_output(
            event,
            Some(exit),
            stdout,
            "",
            &payload,
            &Version::latest(),
        ))
    }

    #[test]
    fn output_lints() {
        let bash = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
        assert_eq!(
            out_ids(
                "PreToolUse",
                0,
                r#"{"permissionDecision": "deny"}"#,
                bash.clone()
            ),
            ["output-flat-permission-decision"]
        );
        assert_eq!(
            out_ids(
                "PreToolUse",
                0,
                r#"{"hookSpecificOutput": {"permissionDecision": "deny"}}"#,
                bash.clone()
            ),
            ["output-hook-event-name"]
        );
        assert_eq!(
            out_ids(
                "PreToolUse",
                0,
                r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "deny"}}"#,
                bash.clone()
            ),
            ["output-hook-event-name"]
        );
        assert_eq!(
            out_ids("PreToolUse", 0, r#"{"decision": "approve"}"#, bash.clone()),
            ["output-decision-approve"]
        );
        assert_eq!(
            out_ids("PermissionRequest", 2, "", bash.clone()),
            ["exit2-no-effect"]
        );
        assert_eq!(
            out_ids("PostToolUse", 2, "", bash.clone()),
            ["exit2-no-effect"]
        );
        assert!(out_ids("PreToolUse", 2, "", bash.clone()).is_empty());
        assert_eq!(
            out_ids("PreToolUse", 1, "", bash.clone()),
            ["exit-1-policy"]
        );
        assert!(
            out_ids("PreToolUse", 1, r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}"#, bash.clone()).is_empty(),
            "exit 1 with deny JSON blocks (eqtylab/cupcake#117)"
        );
        assert_eq!(
            out_ids(
                "PreToolUse",
                2,
                r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}"#,
                bash.clone()
            ),
            ["exit-2-overrides-allow"]
        );
        assert_eq!(
            out_ids(
                "PreToolUse",
                0,
                "Shell ready\n{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\"}}",
                bash.clone()
            ),
            ["stdout-not-json"]
        );
        assert_eq!(
            out_ids(
                "PreToolUse",
                0,
                r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"dangerouslyDisableSandbox": true}}}"#,
                bash.clone()
            ),
            ["updated-input-missing-field"]
        );
        assert!(
            out_ids("PreToolUse", 0, r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "trash build"}}}"#, bash.clone()).is_empty()
        );
        let active = json!({"stop_hook_active": true});
        assert_eq!(
            out_ids(
                "Stop",
                0,
                r#"{"decision": "block", "reason": "run the tests"}"#,
                active.clone()
            ),
            ["stop-hook-active-block"]
        );
        assert_eq!(
            out_ids("SubagentStop", 2, "", active.clone()),
            ["stop-hook-active-block"]
        );
        assert!(out_ids("Stop", 0, "", active).is_empty());
    }

    #[test]
    fn every_lint_id_is_in_the_readme_table() {
        let readme = fs::read_to_string("docs/your-hooks.md").expect("docs/your-hooks.md");
        for (id, _) in LINTS {
            assert!(
                readme.contains(&format!("| `{id}` |")),
                "{id} missing from README"
            );
        }
        for id in [
            "output-flat-permission-decision",
            "output-hook-event-name",
            "output-decision-approve",
            "exit2-no-effect",
            "exit-1-policy",
            "exit-2-overrides-allow",
            "stdout-not-json",
            "updated-input-missing-field",
            "stop-hook-active-block",
        ] {
            assert!(LINTS.iter().any(|(l, _)| *l == id), "{id} undocumented");
        }
    }

    /// The real 2.1.332 captures: every response the variant hooks gave
    /// was honoured by Claude Code, so none lints; the Stop block replayed
    /// with `stop_hook_active: true` does.
    #[test]
    fn real_capture_responses_lint_clean() {
        let root = Path::new("tests/corpus/real-cc-2.1.332");
        let mut count = 0;
        for scenario in [
            "hooks_c2_exit2",
            "hooks_c3_deny_json",
            "hooks_c5_stop_block",
            "hooks_c6_prompt_context",
        ] {
            let path = root
                .join(scenario)
                .join("hooks")
                .join(scenario)
                .join("_responses.jsonl");
            let text = fs::read_to_string(&path).expect("corpus");
            for line in text.lines() {
                let r: serde_json::Value = serde_json::from_str(line).expect("json");
                let event = r["event"].as_str().expect("event");
                let payload = json!({"tool_name": r["tool_name"], "tool_input": {"command": "rm -rf build/"}, "stop_hook_active": false});
                let exit = i32::try_from(r["exit"].as_i64().expect("exit")).expect("small");
                let stdout = r["stdout"].as_str().expect("stdout");
                let stderr = r["stderr"].as_str().expect("stderr");
                let lints = lint_output(
                    event,
                    Some(exit),
                    stdout,
                    stderr,
                    &payload,
                    &Version::parse("2.1.332"),
                );
                assert!(lints.is_empty(), "{scenario}: {lints:?}");
                if event == "Stop" {
                    let active = json!({"stop_hook_active": true});
                    let lints = lint_output(
                        event,
                        Some(exit),
                        stdout,
                        stderr,
                        &active,
                        &Version::parse("2.1.332"),
                    );
                    assert_eq!(ids(&lints), ["stop-hook-active-block"]);
                }
                count += 1;
            }
        }
        assert_eq!(count, 5);
    }
}

// ---- which handlers fire, and why ----

mod explain {
    use super::*;
    use hookscope_core::hooks::settings::{explain, synthetic_payload};
    use serde_json::json;

    #[test]
    fn the_why_chain_in_order() {
        let r = roots();
        write_file(
            r.config.join("settings.json"),
            r#"{"hooks": {
  "PreToolUse": [
    {"matcher": "mcp__memory", "hooks": [{"type": "command", "command": "a.sh"}]},
    {"matcher": "mcp__memory__.*", "hooks": [{"type": "command", "command": "b.sh"}]},
    {"matcher": "Bash", "hooks": [{"type": "command", "command": "c.sh", "if": "Bash(rm *)"}]}
  ],
  "Stop": [{"hooks": [{"type": "command", "command": "s.sh", "if": "Bash(rm *)"}, {"type": "command", "command": "t.sh"}]}]
}}"#,
        );
        // The same b.sh handler in the project file: runs once.
        write_file(
            r.project.join(".claude/settings.json"),
            r#"{"hooks": {"PreToolUse": [{"matcher": "mcp__.*", "hooks": [{"type": "command", "command": "b.sh"}]}]}}"#,
        );
        let v = Version::parse("2.1.332");
        let config = load(&opts(&r, "2.1.332"));
        let payload = synthetic_payload("PreToolUse", "mcp__memory__create", None, &v);
        assert_eq!(
            payload,
            json!({"hook_event_name": "PreToolUse", "tool_name": "mcp__memory__create"})
        );
        let verdicts = explain(&config, "PreToolUse", &payload, &v);
        let fires: Vec<(usize, bool)> = verdicts.iter().map(|x| (x.index, x.fires)).collect();
        assert_eq!(fires, [(0, false), (1, true), (2, false), (5, false)]);
        assert_eq!(
            verdicts[0].hint.as_deref(),
            Some("did you mean \"mcp__memory__.*\"?")
        );
        assert!(
            verdicts[0]
                .reason
                .contains("no tool is called exactly that"),
            "{}",
            verdicts[0].reason
        );
        assert!(
            verdicts[3].reason.starts_with("identical to #2 ("),
            "{}",
            verdicts[3].reason
        );

        // `if` decides after the matcher, on a tool event.
        let rm = synthetic_payload(
            "PreToolUse",
            "Bash",
            Some(json!({"command": "rm -rf build/"})),
            &v,
        );
        let verdicts = explain(&config, "PreToolUse", &rm, &v);
        assert!(verdicts[2].fires, "{}", verdicts[2].reason);
        let ls = synthetic_payload("PreToolUse", "Bash", Some(json!({"command": "ls"})), &v);
        let verdicts = explain(&config, "PreToolUse", &ls, &v);
        assert!(!verdicts[2].fires);
        assert!(verdicts[2].if_rule.is_some());

        // On Stop (no matcher support) a handler with `if` never runs.
        let stop = synthetic_payload("Stop", "", None, &v);
        assert_eq!(stop, json!({"hook_event_name": "Stop"}));
        let verdicts = explain(&config, "Stop", &stop, &v);
        let fires: Vec<(usize, bool)> = verdicts.iter().map(|x| (x.index, x.fires)).collect();
        assert_eq!(fires, [(3, false), (4, true)]);
    }

    #[test]
    fn a_dropped_file_answers_first() {
        let r = roots();
        write_file(
            r.config.join("settings.json"),
            r#"{"hooks": {"PreToolUse": [{"matcher": ["Bash"], "hooks": [{"type": "command", "command": "a.sh"}]}]}}"#,
        );
        let v = Version::parse("2.1.332");
        let config = load(&opts(&r, "2.1.332"));
        let payload = synthetic_payload("PreToolUse", "Bash", None, &v);
        let verdicts = explain(&config, "PreToolUse", &payload, &v);
        assert_eq!(verdicts.len(), 1);
        assert!(!verdicts[0].fires);
        assert!(
            verdicts[0].reason.starts_with(
                "never runs: its file is skipped by Claude Code: matcher of PreToolUse[0] is a JSON array where a string belongs"
            ),
            "{}",
            verdicts[0].reason
        );
        assert!(verdicts[0].matcher.is_none(), "the matcher is never tried");
    }
}

#[test]
fn hostile_frontmatter_deep_nesting_and_bad_yaml() {
    let r = roots();
    let depth = 50_000;
    write_file(
        r.config.join("agents/deep.md"),
        format!(
            "---\nhooks: {}{}\n---\n",
            "[".repeat(depth),
            "]".repeat(depth)
        ),
    );
    write_file(
        r.config.join("agents/bad.md"),
        "---\nname: bad\nhooks:\n  Stop: [unclosed\n---\n",
    );
    fs::write(
        r.config.join("agents/notutf8.md"),
        b"---\nhooks: \xff\n---\n",
    )
    .expect("write");
    let config = load(&opts(&r, "2.1.332"));
    let agents: Vec<_> = config
        .files
        .iter()
        .filter(|f| matches!(f.layer, Layer::Agent(_)))
        .collect();
    assert_eq!(agents.len(), 3);
    // bad.md, deep.md, notutf8.md in name order.
    assert_eq!(agents[0].problems[0].id, "frontmatter-invalid");
    assert_eq!(agents[0].problems[0].line, Some(5));
    assert_eq!(agents[1].problems[0].id, "frontmatter-invalid");
    assert!(
        agents[1].problems[0]
            .message
            .contains("recursion limit exceeded"),
        "{}",
        agents[1].problems[0].message
    );
    assert!(agents[2].problems[0].message.starts_with("not UTF-8"));
    assert!(config.handlers.is_empty());
}

/// `Handler::runs` shows only what the handler's `type` reads: a command
/// handler with a stray `url` is a command, an http handler's headers and
/// `allowedEnvVars` come through, and an unknown type keeps its name.
#[test]
fn a_handler_runs_what_its_type_reads() {
    use hookscope_core::hooks::settings::Runs;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("settings.json");
    write_file(
        &path,
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "guard.sh", "url": "http://ignored", "shell": "bash", "async": true},
  {"type": "http", "url": "http://127.0.0.1:9/h", "headers": {"Authorization": "Bearer $TOKEN"}, "allowedEnvVars": ["TOKEN"]},
  {"type": "agent", "prompt": "check it\nsecond line", "model": "small"},
  {"type": "webhook", "url": "http://x"}
]}]}}"#,
    );
    let config = given(&[&path], "2.1.332");
    let runs: Vec<Runs> = config.handlers.iter().map(|h| h.runs()).collect();
    assert_eq!(
        runs[0],
        Runs::Command {
            command: Some("guard.sh"),
            args: None,
            shell: Some("bash"),
            is_async: true
        }
    );
    let Runs::Http {
        url,
        headers,
        allowed_env_vars,
    } = runs[1]
    else {
        panic!("http: {:?}", runs[1]);
    };
    assert_eq!(url, Some("http://127.0.0.1:9/h"));
    assert_eq!(
        headers
            .and_then(|h| h.get("Authorization"))
            .map(String::as_str),
        Some("Bearer $TOKEN")
    );
    assert_eq!(allowed_env_vars, ["TOKEN".to_string()]);
    assert_eq!(
        runs[2],
        Runs::Model {
            agent: true,
            prompt: Some("check it\nsecond line"),
            model: Some("small")
        }
    );
    assert_eq!(config.handlers[2].summary(), "check it");
    assert_eq!(runs[3], Runs::Unknown("webhook"));
    assert_eq!(config.handlers[0].summary(), "guard.sh");
}
