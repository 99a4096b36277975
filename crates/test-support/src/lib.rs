//! What hookscope's tests and benchmarks share: the hermetic command for
//! the binary, where the corpus is, the writers of temporary transcripts
//! and settings, and the heavy-corpus generator ([`gen_corpus`]).
//!
//! Not published: the workspace's two test binaries (`tests/core`,
//! `tests/cli`), the benches and `examples/gen_corpus.rs` depend on it.

use std::path::{Path, PathBuf};

use hookscope_core::transcript::{Session, Usage};
use serde_json::Value;

pub mod gen_corpus;

// ---- the binary ----------------------------------------------------------

/// A folder that does not exist: where the binary's defaults point.
pub const NOWHERE: &str = "/nonexistent-hookscope-test";

/// Makes `cmd` hermetic: it reads no agent folder, settings file or index
/// of this machine and writes nothing to it. `HOOKSCOPE_NO_INDEX=1` (no
/// index: [`indexed`] turns it back on, in a given folder), `HOME` at
/// [`NOWHERE`], and none of the variables that move a default away from
/// `HOME`: `CLAUDE_CONFIG_DIR` (`~/.claude`), `CODEX_HOME` (`~/.codex`),
/// `XDG_DATA_HOME` (OpenCode's `~/.local/share`), `FACTORY_HOME_OVERRIDE`
/// (Droid's `~/.factory`), `XDG_CACHE_HOME` (the index's `~/.cache`); nor
/// `HOOKSCOPE_INDEX_STATS` or `HOOKSCOPE_DECISIONS_DIR`. So every default
/// root is under a folder that does not exist, and a replayed hook's
/// environment gets no such variable from the test's. The state folder
/// (`XDG_STATE_HOME`: the live hook's decision log and history
/// checkpoints) is one of the test process's own under the temporary
/// folder, `hookscope-test-state-<pid>`, never the user's. A test that
/// needs one of these sets it after this.
pub fn hermetic(cmd: &mut std::process::Command) -> &mut std::process::Command {
    cmd.env("HOOKSCOPE_NO_INDEX", "1")
        .env("HOME", NOWHERE)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("FACTORY_HOME_OVERRIDE")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("HOOKSCOPE_INDEX_STATS")
        .env_remove("HOOKSCOPE_DECISIONS_DIR")
        .env(
            "XDG_STATE_HOME",
            std::env::temp_dir().join(format!("hookscope-test-state-{}", std::process::id())),
        )
}

/// The `hookscope` binary, [`hermetic`], as a `std` command (to spawn it
/// and read its output while it runs).
pub fn hookscope_process() -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("hookscope"));
    hermetic(&mut cmd);
    cmd
}

/// The `hookscope` binary, [`hermetic`].
pub fn hookscope() -> assert_cmd::Command {
    assert_cmd::Command::from_std(hookscope_process())
}

/// [`hookscope`] with the index on, in `cache/hookscope/`
/// (`XDG_CACHE_HOME=cache`).
pub fn indexed(cache: &Path) -> assert_cmd::Command {
    let mut cmd = hookscope();
    cmd.env_remove("HOOKSCOPE_NO_INDEX")
        .env("XDG_CACHE_HOME", cache);
    cmd
}

// ---- the corpus ------------------------------------------------------------

/// The vendored corpus, relative to the workspace root (the folder the
/// tests of the `hookscope` package run in): for arguments whose path the
/// output shows as given.
pub const CORPUS: &str = "tests/corpus";

/// The Claude Code 2.1.332 captures (one folder per scenario).
pub const REAL_CC: &str = "tests/corpus/real-cc-2.1.332";

/// The `hooks_c2_exit2` session: its `rm -rf` PreToolUse ([`RM_RF`]) is
/// blocked by a hook's exit 2.
pub const C2: &str = "tests/corpus/real-cc-2.1.332/hooks_c2_exit2/projects/-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl";

/// The blocked `rm -rf` call of [`C2`].
pub const RM_RF: &str = "toolu_01GFEgALJm405nI2WctBocud";

/// The shipped example rule set.
pub const EXAMPLE_RULES: &str = "assets/rules/example.toml";

/// The workspace root (the `hookscope` package's folder), absolute: two
/// folders above this crate's.
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().nth(2).unwrap_or(here).to_path_buf()
}

/// `rel` (such as [`C2`]) under the workspace root, absolute.
pub fn package_path(rel: impl AsRef<Path>) -> PathBuf {
    workspace_root().join(rel)
}

/// The corpus folder, absolute.
pub fn corpus_dir() -> PathBuf {
    package_path(CORPUS)
}

/// `rel` under the corpus, absolute.
pub fn corpus(rel: impl AsRef<Path>) -> PathBuf {
    corpus_dir().join(rel)
}

// ---- writers ---------------------------------------------------------------

/// Writes `contents` to `path`, creating its parent folders; returns `path`.
pub fn write_file(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = path.as_ref();
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, contents).expect("write");
    path.to_path_buf()
}

/// Writes `lines`, each followed by `\n`, to `path` (parent folders
/// created); returns `path`.
pub fn write_lines<L: AsRef<[u8]>>(path: impl AsRef<Path>, lines: &[L]) -> PathBuf {
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line.as_ref());
        bytes.push(b'\n');
    }
    write_file(path, bytes)
}

/// Writes `lines` as JSON Lines (each value compact on its line) to `path`
/// (parent folders created): a transcript; returns `path`.
pub fn write_jsonl(path: impl AsRef<Path>, lines: &[Value]) -> PathBuf {
    let lines: Vec<String> = lines.iter().map(Value::to_string).collect();
    write_lines(path, &lines)
}

/// A Claude Code settings file at `path` whose one `PreToolUse` matcher
/// group (`"matcher": "Bash"`) holds `handlers` (a JSON list), pretty-printed
/// (the first handler on line 7); returns `path`.
pub fn bash_hooks_settings(path: impl AsRef<Path>, handlers: Value) -> PathBuf {
    let v = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]}});
    write_file(path, serde_json::to_string_pretty(&v).expect("json"))
}

/// Copies the folder `from` to `to`: folders and regular files (anything
/// else is left out).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let kind = entry.file_type().expect("file type");
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The offset just after each `\n` of `bytes`: where a file cut at a line
/// end may stop (the tests that grow a transcript cut it there).
pub fn line_ends(bytes: &[u8]) -> Vec<usize> {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect()
}

// ---- sessions --------------------------------------------------------------

/// A [`Usage`] of `input`, `output`, `cache_creation` and `cache_read`
/// tokens.
pub fn usage(input: u64, output: u64, cache_creation: u64, cache_read: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_creation_input_tokens: cache_creation,
        cache_read_input_tokens: cache_read,
    }
}

/// The session `id` of `sessions` (a panic without it).
pub fn by_id<'a>(sessions: &'a [Session], id: &str) -> &'a Session {
    sessions
        .iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("no session {id}"))
}
