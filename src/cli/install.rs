//! `hookscope hooks --install --rules FILE [--scope user|project|local]
//! [--write]`: the settings entry that runs a rule set as the live hook
//! (the core's `hooks::install`), printed with the diff it makes to the
//! scope's settings file, and with `--write` applied: a backup first, the
//! file replaced whole (a temporary file renamed), a file that does not
//! parse refused untouched, nothing written when it is already installed
//! (docs/live-hook.md#installing-it).

use std::path::{Path, PathBuf};

use hookscope_core::hooks::contract::Version;
use hookscope_core::hooks::dialect::Dialect;
use hookscope_core::hooks::install;
use hookscope_core::hooks::rules::RuleSet;
use serde_json::Value;

use super::{fail, print_raw, print_text};

/// Which settings file `--install` edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`.
    User,
    /// `.claude/settings.json` of the current folder (shared with the repository).
    Project,
    /// `.claude/settings.local.json` of the current folder (yours alone).
    Local,
}

/// What Codex needs before it runs what was installed (its hook trust,
/// docs/live-hook.md#installing-it).
const CODEX_TRUST: &str = "Codex runs a hook only once you trust it: open /hooks in Codex and trust the hookscope handlers (again after each change to them); project hooks also need the project trusted. `hookscope hooks --agent codex` shows each handler's trust.";

/// The largest settings file read, in bytes (16 MiB).
const MAX_SETTINGS_BYTES: u64 = 16 << 20;

/// Which file `--install` writes: the scope, the agent, and for Codex's
/// user scope the Codex home (`--codex-home`, else `$CODEX_HOME`, else
/// `~/.codex`).
pub struct Target<'a> {
    /// `--scope`.
    pub scope: Scope,
    /// `--agent`.
    pub dialect: Dialect,
    /// `--codex-home`.
    pub codex_home: Option<&'a Path>,
}

/// Runs `--install` into `target`'s file; exits 2 when the rules or the
/// settings file are refused.
pub fn run(rules: &Path, target_of: &Target<'_>, write: bool, on_error_block: bool) {
    let (scope, dialect) = (target_of.scope, target_of.dialect);
    let set = match RuleSet::load_rules(rules) {
        Ok(set) => set,
        Err(e) => {
            for err in &e.errors {
                errln!("hookscope: {err}");
            }
            fail("rule file refused; nothing was installed")
        }
    };
    if set.rules.is_empty() {
        fail(format!(
            "{} has no rules; nothing to install",
            rules.display()
        ));
    }
    // What loading found questionable (a Stop block that would loop)
    // matters most when the rules are about to run for real.
    for w in set.warnings() {
        errln!("hookscope: warning: {w}");
    }
    let rules_abs = match std::fs::canonicalize(rules) {
        Ok(p) => p,
        Err(e) => fail(format!("cannot resolve {}: {e}", rules.display())),
    };
    let Some(rules_text) = rules_abs.to_str() else {
        fail(format!(
            "{} is not UTF-8; a settings file cannot name it",
            rules_abs.display()
        ));
    };
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(str::to_string))
        .unwrap_or_else(|| "hookscope".to_string());
    let agent = match dialect {
        Dialect::Droid => " --agent droid",
        Dialect::Codex => " --agent codex",
        Dialect::ClaudeCode => "",
    };
    let on_error = if on_error_block {
        " --on-error block"
    } else {
        ""
    };
    // The rule file in a command, whatever binary or options surround it:
    // how an entry installed earlier is found again.
    let signature = format!("hook --rules {}", shell_quote(rules_text));
    let command = format!("{} {signature}{agent}{on_error}", shell_quote(&exe));
    let target = match target_file(scope, dialect, target_of.codex_home) {
        Ok(t) => std::path::absolute(&t).unwrap_or(t),
        Err(e) => fail(e),
    };
    if scope != Scope::User
        && let (Ok(cwd), Ok(user)) = (
            std::env::current_dir(),
            target_file(Scope::User, dialect, target_of.codex_home),
        )
    {
        if std::path::absolute(&user).ok().as_ref() == Some(&target) {
            errln!(
                "hookscope: warning: here the project's file is your user file ({}): every session will run these rules",
                target.display()
            );
        }
        if cwd
            .file_name()
            .is_some_and(|n| n == ".claude" || n == ".factory" || n == ".codex")
        {
            errln!(
                "hookscope: warning: {} is inside a settings folder; run --install from the project's root",
                target.display()
            );
        }
    }
    if scope == Scope::Project {
        // The entry names this machine's binary and rule file.
        // Only Claude Code has a local file; the others keep yours in the
        // user folder.
        let yours = match dialect {
            Dialect::ClaudeCode => "--scope local keeps it yours",
            Dialect::Codex | Dialect::Droid => "--scope user keeps it in your own folder",
        };
        errln!(
            "hookscope: note: the entry names {exe} and {rules_text}, paths of this machine, in a file shared with the repository; {yours}"
        );
    }
    // The same rules installed in another scope's file: the agent runs
    // every matching entry, so each event would be decided twice.
    for other in [Scope::User, Scope::Project, Scope::Local] {
        let Ok(file) = target_file(other, dialect, target_of.codex_home) else {
            continue;
        };
        let file = std::path::absolute(&file).unwrap_or(file);
        if other == scope || file == target {
            continue;
        }
        if let Ok((Some(_), v)) = read_settings(&file)
            && let Some(theirs) = install::installed_command(&v, &signature)
        {
            // Claude Code runs identical command handlers once; any
            // other difference (another binary, other options) runs both.
            let then = match (dialect, theirs == command) {
                (Dialect::ClaudeCode, true) => {
                    "this entry would be redundant (Claude Code runs identical handlers once)"
                }
                (Dialect::ClaudeCode, false) => {
                    "Claude Code would run both entries, so each event would be decided (and logged) twice"
                }
                _ => "the agent may run both entries, deciding (and logging) each event twice",
            };
            errln!(
                "hookscope: warning: {} already runs these rules: {then}; keep one (`hooks --lint` reports it as duplicate-handler)",
                file.display()
            );
        }
    }
    let (original, mut settings) = match read_settings(&target) {
        Ok(v) => v,
        Err(e) => fail(format!("refusing to touch {}: {e}", target.display())),
    };
    // The diff is against the file as it is: a file indented otherwise
    // shows that --write rewrites it with two-space indents.
    let before = match &original {
        Some(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        None => String::new(),
    };
    // Events the agent does not have are left out, and said.
    let (groups, skipped): (Vec<install::Group>, Vec<install::Group>) = install::groups(&set)
        .into_iter()
        .partition(|g| dialect.check_event(&g.event, &Version::latest()).is_ok());
    for g in &skipped {
        errln!(
            "hookscope: {} has no {} event; the rules on it are not installed",
            dialect.label(),
            g.event
        );
    }
    if groups.is_empty() {
        fail(format!(
            "no event of {} is a {} event",
            rules.display(),
            dialect.label()
        ));
    }
    let changed = match install::merge(&mut settings, &groups, &command, &signature) {
        Ok(c) => c,
        Err(e) => fail(format!("refusing to touch {}: {e}", target.display())),
    };
    let after = pretty(&settings);
    if !changed {
        print_text(&format!(
            "already installed in {}: nothing to change",
            target.display()
        ));
        return;
    }
    print_text(&format!(
        "{} {} in {}:",
        if write { "installing" } else { "would install" },
        groups
            .iter()
            .map(|g| g.event.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        target.display()
    ));
    print_raw(&diff(&before, &after, &target));
    if dialect == Dialect::Codex {
        // docs/live-hook.md#installing-it: Codex skips a hook nobody trusted.
        print_text(CODEX_TRUST);
    }
    if !write {
        print_text("run again with --write to apply (a backup of the file is kept)");
        return;
    }
    let backup = match &original {
        Some(original) => match write_backup(&target, original) {
            Ok(b) => Some(b),
            Err(e) => fail(format!(
                "cannot write a backup of {}: {e}",
                target.display()
            )),
        },
        None => None,
    };
    if let Err(e) = write_whole(&target, after.as_bytes()) {
        fail(format!("cannot write {}: {e}", target.display()));
    }
    match backup {
        Some(b) => print_text(&format!(
            "installed in {} (backup: {})",
            target.display(),
            b.display()
        )),
        None => print_text(&format!("installed in {} (a new file)", target.display())),
    }
    if dialect != Dialect::Codex {
        print_text(
            "next: work with the agent as usual; `hookscope hooks --decisions` lists what the rules decided, and the TUI marks those calls §",
        );
    }
}

/// Keeps `original` (the bytes of `target` before the write) in the state
/// folder, out of the project: `$XDG_STATE_HOME/hookscope/backups/<file
/// name>-<first 12 hex of the path's SHA-256>-<UTC time>`, a new file.
fn write_backup(target: &Path, original: &[u8]) -> std::io::Result<PathBuf> {
    use std::io::Write;
    let Some(state) = hookscope_core::hooks::live::state_dir().map(|d| d.join("backups")) else {
        return Err(std::io::Error::other("no state folder"));
    };
    std::fs::create_dir_all(&state)?;
    let key = hookscope_core::hooks::live::sha256_hex(target.as_os_str().as_encoded_bytes());
    let name = format!(
        "{}-{}-{}",
        target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        key.get(..12).unwrap_or(&key),
        chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
    );
    let backup = state.join(name);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&backup)?;
    f.write_all(original)?;
    Ok(backup)
}

/// The settings file of `scope` for `dialect`: Claude Code's
/// `settings.json` files, Droid's `hooks.json` (`<factory>/hooks.json`,
/// the project's `.factory/hooks.json`; Droid has no local scope), or
/// Codex's (`<codex home>/hooks.json`, the project's `.codex/hooks.json`;
/// no local scope either).
fn target_file(
    scope: Scope,
    dialect: Dialect,
    codex_home: Option<&Path>,
) -> Result<PathBuf, String> {
    let no_home = || "no home folder: cannot find the user settings file".to_string();
    match (dialect, scope) {
        (Dialect::Codex, Scope::User) => codex_home
            .map(Path::to_path_buf)
            .or_else(hookscope_core::hooks::settings::codex::default_codex_home)
            .map(|d| d.join("hooks.json"))
            .ok_or_else(no_home),
        (Dialect::Codex, Scope::Project) => Ok(PathBuf::from(".codex").join("hooks.json")),
        (Dialect::Codex, Scope::Local) => {
            Err("Codex has no local hooks file: use --scope project or user".into())
        }
        (Dialect::Droid, Scope::User) => {
            hookscope_core::hooks::settings::droid::default_factory_dir()
                .map(|d| d.join("hooks.json"))
                .ok_or_else(no_home)
        }
        (Dialect::Droid, Scope::Project) => Ok(PathBuf::from(".factory").join("hooks.json")),
        (Dialect::Droid, Scope::Local) => {
            Err("Droid has no local hooks file: use --scope project or user".into())
        }
        (_, Scope::User) => hookscope_core::hooks::settings::default_config_dir()
            .map(|d| d.join("settings.json"))
            .ok_or_else(no_home),
        (_, Scope::Project) => Ok(PathBuf::from(".claude").join("settings.json")),
        (_, Scope::Local) => Ok(PathBuf::from(".claude").join("settings.local.json")),
    }
}

/// The settings at `path`: `(None, {})` when there is no file; the file's
/// bytes and object otherwise.
fn read_settings(path: &Path) -> Result<(Option<Vec<u8>>, Value), String> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((None, Value::Object(serde_json::Map::new())));
        }
        Err(e) => return Err(e.to_string()),
        Ok(_) => {}
    }
    let bytes = hookscope_core::transcript::fsread::read_capped(path, MAX_SETTINGS_BYTES)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_SETTINGS_BYTES {
        return Err(format!("over {} MiB", MAX_SETTINGS_BYTES >> 20));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok((Some(bytes), Value::Object(serde_json::Map::new())));
    }
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| format!("not JSON ({e})"))?;
    if !v.is_object() {
        return Err("not a JSON object".into());
    }
    Ok((Some(bytes), v))
}

/// `v` as the file holds it: pretty JSON, two-space indent, a newline.
fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

/// A unified diff of the file before and after.
fn diff(before: &str, after: &str, path: &Path) -> String {
    let name = path.display().to_string();
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string()
}

/// Replaces `path` whole: its folder created, the bytes written to a
/// temporary file beside it, renamed over it. The file keeps its mode; a
/// new one is `0644`, as an editor would make it (a temporary file is
/// `0600`).
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `s` quoted for `sh`: as is when it holds only safe characters, else in
/// single quotes (a `'` written `'\''`).
fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-+:@%=,".contains(c));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
