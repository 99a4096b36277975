//! `hookscope show` text outline over a real 2.1.332 session.

use assert_cmd::Command;

use crate::support::hookscope;

#[test]
fn the_outline_names_each_calls_tool_use_id() {
    // hooks_c2_exit2: the Bash `rm -rf build/` call the PreToolUse hook
    // blocked (exit 2) is toolu_01GFEgALJm405nI2WctBocud in the transcript;
    // `payload`/`replay --at` take that id, so the outline prints it whole.
    let text = outline("e1be136e", "tests/corpus/real-cc-2.1.332/hooks_c2_exit2");
    assert!(
        text.lines().any(|l| l
            == "  bash   Bash ✗ ⛔ hook blocked  rm -rf build/  [toolu_01GFEgALJm405nI2WctBocud]"),
        "{text}"
    );
    // The session's one hook error (grep: one `PreToolUse:Bash hook error`
    // result) is its one blocked mark.
    assert_eq!(text.matches("⛔").count(), 1, "{text}");
    // Every call line ends with a bracketed id: 13 calls (12 + 1 in the subagent).
    let ids = text
        .lines()
        .filter(|l| l.ends_with(']') && l.contains("[toolu_"))
        .count();
    assert_eq!(ids, 13);
}

/// The outline marks a call a hook blocked the same way for every agent:
/// Droid's errors run (python3 over its JSONL: one non-zero
/// `hookResults[].exitCode`, exit 2 on line 14 for `hookToolCallId`
/// `call_CQRmHwfk8ggbj3l8NR2Iqt2S`, the `rm -rf build/` Execute call).
#[test]
fn the_outline_marks_a_droid_call_a_hook_blocked() {
    let text = outline(
        "1b9da415",
        "tests/corpus/real-droid-0.225.2/factory/sessions",
    );
    assert!(
        text.lines().any(|l| l
            == "  bash   Execute ✗ ⛔ hook blocked  rm -rf build/  [call_CQRmHwfk8ggbj3l8NR2Iqt2S]"),
        "{text}"
    );
    assert_eq!(text.matches("⛔").count(), 1, "{text}");
}

/// The bash call a hard kill left `running` (real-opencode-1.18.33's
/// README, "Hard kill") has no result: the outline says so, as the TUI
/// does, where a call that ran says nothing.
#[test]
fn the_outline_marks_a_call_without_a_result() {
    let text = outline("ses_dcc9c4ce", "tests/corpus/real-opencode-1.18.33");
    assert!(
        text.lines().any(|l| l
            == "  bash   bash (no result)  echo working; sleep 60; echo never  [call_hlq9QR5kDsObgXfiNfSLRAVF]"),
        "{text}"
    );
    assert_eq!(text.matches("(no result)").count(), 1, "{text}");
}

/// `hookscope show ID FOLDER`'s stdout, asserting it succeeded.
fn outline(id: &str, folder: &str) -> String {
    let out = hookscope()
        .args(["show", id, folder])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr_of(args: &[&str]) -> (Option<i32>, String, String) {
    outcome(hookscope().args(args))
}

/// Runs `cmd`: (exit code, stdout, stderr).
fn outcome(cmd: &mut Command) -> (Option<i32>, String, String) {
    let out = cmd.output().expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_folder_as_session_opens_its_one_session() {
    // hooks_c2_exit2 holds one session, e1be136e…; as SESSION it opens it.
    let (code, stdout, _) = stderr_of(&[
        "payload",
        "tests/corpus/real-cc-2.1.332/hooks_c2_exit2",
        "--event",
        "Stop",
    ]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.starts_with("{\"session_id\":\"e1be136e-e2ee-4f2f-bdb9-5cd3211001fb\""),
        "{stdout}"
    );
    // A folder of 9 sessions: says how to pick one, exit 2.
    let (code, _, stderr) = stderr_of(&["show", "tests/corpus/real-cc-2.1.332"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with(
            "hookscope: 9 sessions under the folder tests/corpus/real-cc-2.1.332; give one's id"
        ),
        "{stderr}"
    );
}

#[test]
fn a_skipped_path_is_named_when_nothing_matches() {
    // A hook capture file given as PATH is not a transcript: the error says
    // it was skipped instead of only "no session matches".
    let capture = "tests/corpus/real-cc-2.1.332/hooks_c2_exit2/hooks/hooks_c2_exit2/Stop.jsonl";
    let (code, _, stderr) = stderr_of(&["show", "e1be136e", capture]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr.trim_end(),
        format!(
            "hookscope: no session matches \"e1be136e\" (skipped {capture}: not a Claude Code, Codex, OpenCode or Droid session transcript; skipped)"
        )
    );
}

#[test]
fn a_file_that_is_no_transcript_says_why_when_no_id_matches_it_either() {
    // SESSION names an existing file discovery does not take (README.md of
    // a corpus folder): the error says why, not only "no session matches".
    let readme = "tests/corpus/real-codex-0.171.0/README.md";
    let (code, _, stderr) = stderr_of(&["show", readme, "tests/corpus/real-codex-0.171.0"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr.trim_end(),
        format!(
            "hookscope: no session matches \"{readme}\" (as a file: not a .jsonl transcript, an OpenCode database or a folder: {readme})"
        )
    );
}

#[test]
fn a_missing_path_given_as_session_is_named_missing() {
    let (code, _, stderr) = stderr_of(&[
        "show",
        "tests/corpus/no-such-folder/x.jsonl",
        "tests/corpus/real-codex-0.171.0",
    ]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr.trim_end(),
        "hookscope: tests/corpus/no-such-folder/x.jsonl: no such file or folder"
    );
}

/// The binary with HOME, the agents' homes and the index cache in `home`
/// (empty folders), so only the PATHs given are read.
fn in_home(home: &std::path::Path, args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    outcome(
        hookscope()
            .env("HOME", home)
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("CLAUDE_CONFIG_DIR", home.join("claude"))
            .env("CODEX_HOME", home.join("codex"))
            .args(args),
    )
}

/// A legacy flat Codex session (formats of docs/sessions.md "Where sessions come
/// from": a bare meta line, `record_type` state lines, bare response items)
/// saved under another name than `rollout-*.jsonl` opens when given as a
/// PATH (it is judged by its content); in a folder walked it is not listed.
/// No legacy-shaped rollout is in `tests/corpus`, so the lines are those of
/// `codex_corpus::legacy_flat_rollout`.
#[test]
fn a_legacy_codex_export_given_as_a_path_opens() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path().join("exports");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let lines = [
        r#"{"id":"legacy-export-1","timestamp":"2025-08-01T10:00:00Z","instructions":"be brief","git":{"branch":"dev"}}"#,
        r#"{"record_type":"state"}"#,
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]}"#,
        r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"c1"}"#,
        r#"{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"a\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"}"#,
        r#"{"record_type":"state"}"#,
    ];
    let export = dir.join("export.jsonl");
    std::fs::write(&export, lines.join("\n") + "\n").expect("write");
    let (code, out, err) = in_home(home.path(), &["show".as_ref(), export.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out.lines().take(5).collect::<Vec<_>>(),
        vec![
            "legacy-export-1  list files",
            "1 turn, 1 tool call, 0 errors, 0 subagents, 0 diagnostics",
            "",
            "turn 1: list files  [1 tool call]",
            "  bash   shell  ls  [c1]",
        ]
    );
    let (code, out, _) = in_home(
        home.path(),
        &["sessions".as_ref(), export.as_os_str(), "--json".as_ref()],
    );
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v[0]["id"], "legacy-export-1");
    assert_eq!(v[0]["agent"], "codex");
    // The folder walked: only `rollout-*` names are taken in that layout.
    let (code, out, _) = in_home(
        home.path(),
        &["sessions".as_ref(), dir.as_os_str(), "--json".as_ref()],
    );
    assert_eq!(code, Some(0));
    assert_eq!(out.trim(), "[]");
}

/// A `.jsonl` PATH that is no agent's session (a hook capture) is refused
/// with the four agents named.
#[test]
fn a_jsonl_that_is_no_session_is_refused_naming_the_four_agents() {
    let home = tempfile::tempdir().expect("tempdir");
    let capture = std::path::Path::new(
        "tests/corpus/real-cc-2.1.332/hooks_c2_exit2/hooks/hooks_c2_exit2/Stop.jsonl",
    );
    let (code, out, err) = in_home(home.path(), &["show".as_ref(), capture.as_os_str()]);
    assert_eq!(code, Some(2));
    assert_eq!(out, "");
    assert_eq!(
        err,
        format!(
            "hookscope: {} is not a Claude Code, Codex, OpenCode or Droid session transcript\n",
            capture.display()
        )
    );
}

const C2_FILE: &str = "tests/corpus/real-cc-2.1.332/hooks_c2_exit2/projects/-home-dev-work-hooks-c2-exit2/e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl";
const C2_NAME: &str = "e1be136e-e2ee-4f2f-bdb9-5cd3211001fb.jsonl";

/// Every command that opens one session, with SESSION and a PATH.
fn session_commands(
    session: &std::ffi::OsStr,
    path: &std::path::Path,
) -> Vec<Vec<std::ffi::OsString>> {
    let with = |head: &[&str], tail: &[&str]| -> Vec<std::ffi::OsString> {
        let mut v: Vec<std::ffi::OsString> = head.iter().map(Into::into).collect();
        v.push(session.to_owned());
        v.extend(tail.iter().map(Into::into));
        v.push(path.as_os_str().to_owned());
        v
    };
    vec![
        with(&["show"], &["--json"]),
        with(&["payload"], &["--event", "Stop"]),
        with(&["replay"], &["--event", "Stop", "--json"]),
        with(&["hooks", "--activity"], &["--json"]),
        with(&["tail"], &["--from-start", "--count", "1", "--json"]),
    ]
}

/// `<home>/sessions` with the folders `a/` and `b/` for two copies of the
/// C2 session file: (the root, `a/…jsonl`, `b/…jsonl`), nothing written.
fn two_places(
    home: &std::path::Path,
) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let root = home.join("sessions");
    let a = root.join("a").join(C2_NAME);
    let b = root.join("b").join(C2_NAME);
    for p in [&a, &b] {
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    }
    (root, a, b)
}

fn run_os(home: &std::path::Path, args: &[std::ffi::OsString]) -> (Option<i32>, String, String) {
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    in_home(home, &refs)
}

/// One Claude Code session saved twice (`a/` and a backup in `b/`, the same
/// bytes): every command opens it by id or prefix, once, and says on
/// stderr where the other copy is, instead of asking for "more of the id".
#[test]
fn an_id_in_two_identical_files_opens_once_with_a_note() {
    let home = tempfile::tempdir().expect("tempdir");
    let (root, a, b) = two_places(home.path());
    for p in [&a, &b] {
        std::fs::copy(C2_FILE, p).expect("copy");
    }
    let note = format!(
        "hookscope: session e1be136e-e2ee-4f2f-bdb9-5cd3211001fb is also in {} (identical copy); showing {}\n",
        b.display(),
        a.display()
    );
    for args in session_commands("e1be".as_ref(), &root) {
        let (code, out, err) = run_os(home.path(), &args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        // `tail` goes on with its own `following …` line.
        assert!(err.starts_with(&note), "{args:?}: {err}");
        // The same answer as naming the file itself.
        let mut by_path = args.clone();
        let at = by_path.iter().position(|a| a == "e1be").expect("id");
        by_path[at] = a.as_os_str().to_owned();
        let (code, direct, err) = run_os(home.path(), &by_path);
        assert_eq!(code, Some(0), "{by_path:?}: {err}");
        assert!(!err.contains("identical"), "{by_path:?}: {err}");
        assert_eq!(out, direct, "{args:?}");
    }
}

/// A Codex rollout and its `.jsonl.zst` copy (the same text once
/// decompressed) are one session: opened from the plain file, the note
/// names the compressed one.
#[test]
fn a_rollout_and_its_zst_copy_open_once() {
    let home = tempfile::tempdir().expect("tempdir");
    let root = home.path().join("sessions");
    std::fs::create_dir_all(&root).expect("mkdir");
    let src = "tests/corpus/real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl";
    let name = std::path::Path::new(src).file_name().expect("name");
    let plain = root.join(name);
    std::fs::copy(src, &plain).expect("copy");
    let zst = root.join(format!("{}.zst", name.to_string_lossy()));
    let text = std::fs::read(src).expect("read");
    std::fs::write(&zst, zstd::encode_all(&text[..], 3).expect("zstd")).expect("write");
    let (code, out, err) = in_home(
        home.path(),
        &["show".as_ref(), "01a2287a".as_ref(), root.as_os_str()],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        err,
        format!(
            "hookscope: session 01a2287a-35b1-76e0-b188-fd2c5f457a31 is also in {} (identical copy); showing {}\n",
            zst.display(),
            plain.display()
        )
    );
    assert!(
        out.starts_with("01a2287a-35b1-76e0-b188-fd2c5f457a31"),
        "{out}"
    );
}

/// Two files of one id that differ (the backup lacks the last line): every
/// command lists both paths and exits 2; each path then opens its own file.
#[test]
fn an_id_in_two_different_files_lists_both_paths() {
    let home = tempfile::tempdir().expect("tempdir");
    let (root, a, b) = two_places(home.path());
    let text = std::fs::read_to_string(C2_FILE).expect("read");
    std::fs::write(&a, &text).expect("write");
    let cut = text.trim_end().rfind('\n').expect("several lines");
    std::fs::write(&b, &text[..=cut]).expect("write");
    let listed = format!(
        "hookscope: \"e1be136e-e2ee-4f2f-bdb9-5cd3211001fb\" is the id of 2 sessions in different files ({} [claude-code], {} [claude-code]); pass the file path instead\n",
        a.display(),
        b.display()
    );
    for args in session_commands("e1be136e".as_ref(), &root) {
        let (code, out, err) = run_os(home.path(), &args);
        assert_eq!(code, Some(2), "{args:?}: {out}");
        if args.iter().any(|a| a == "--json") {
            // With --json the refusal is the JSON error object on stdout.
            assert_eq!(err, "", "{args:?}");
            let v: serde_json::Value = serde_json::from_str(&out).expect("json");
            assert_eq!(v["error"], "invalid_argument", "{args:?}");
            assert_eq!(
                v["message"].as_str().map(|m| format!("hookscope: {m}\n")),
                Some(listed.clone()),
                "{args:?}"
            );
        } else {
            assert_eq!(err, listed, "{args:?}");
        }
    }
    for p in [&a, &b] {
        let (code, out, err) = in_home(
            home.path(),
            &["show".as_ref(), p.as_os_str(), "--json".as_ref()],
        );
        assert_eq!(code, Some(0), "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v["path"], p.display().to_string());
    }
}

/// `show --json` marks a prompt a hook rejected (`rejected: true`, the
/// turn never started), as the text outline's ⛔ line does; the c8
/// session's README: the second prompt (line 76, `DROP TABLE`) was
/// rejected by its UserPromptSubmit hook (before: no field told it from a
/// turn without calls).
#[test]
fn show_json_marks_a_rejected_prompt() {
    let out = hookscope()
        .args([
            "show",
            "07535b09",
            "tests/corpus/real-cc-2.1.332/hooks_c8_outcomes",
            "--json",
        ])
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let turns: Vec<(u64, bool)> = v["turns"]
        .as_array()
        .expect("turns")
        .iter()
        .map(|t| {
            (
                t["line"].as_u64().unwrap_or(0),
                t["rejected"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(turns, [(3, false), (76, true), (82, false)]);
}
