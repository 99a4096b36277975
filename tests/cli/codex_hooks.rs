//! Codex hooks (docs/your-hooks.md#codex-hooks): reading `$CODEX_HOME` and project `.codex/`
//! hook files with Codex's rules (docs/contract.md#codex-hooks), the Codex matcher
//! and reducer through the CLI, and real scripts run through `replay
//! --exec` on the real Codex 0.171.0 rollout.

use std::path::{Path, PathBuf};

use hookscope_core::hooks::codex;
use hookscope_core::hooks::settings::Inactive;
use hookscope_core::hooks::settings::codex::{
    CodexHooks, CodexLoadOptions, TrustStatus, definition_hash, load,
};
use hookscope_core::transcript::Agent;
use serde_json::{Value, json};

use crate::support::{hookscope, write_file};

const ROLLOUT: &str = "tests/corpus/real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl";

struct Roots {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

fn roots() -> Roots {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("codex-home");
    let project = dir.path().join("repo");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::create_dir_all(project.join(".git")).expect("git");
    Roots {
        _dir: dir,
        home,
        project,
    }
}

fn load_at(r: &Roots) -> CodexHooks {
    load(&CodexLoadOptions {
        codex_home: Some(r.home.clone()),
        cwd: Some(r.project.clone()),
    })
}

/// A rule set that blocks every `echo` (the real rollout's last call).
const NO_ECHO: &str = "[[rules]]\nid = \"no-echo\"\nevents = \"PreToolUse\"\ntool = \"Bash\"\naction = \"block\"\nreason = \"no echo here\"\n[rules.only_if]\nprogram = \"echo\"\n";

const GUARD: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash|shell_command",
        "hooks": [
          {"type": "command", "command": "echo hi >&2; exit 2", "timeout": 5}
        ]
      }
    ]
  }
}
"#;

/// The hash of GUARD's handler, computed independently (python: sha256 of
/// `json.dumps({"event_name": "pre_tool_use", "matcher": "Bash|shell_command",
/// "hooks": [{"type": "command", "command": "echo hi >&2; exit 2",
/// "timeout": 5, "async": False}]}, sort_keys=True, separators=(",", ":"))`).
const GUARD_HASH: &str = "sha256:12f0486ea0b08d6924c3c6701e89c1a66991bfee4994fb9502755b5718a33ccb";

fn trust(key_file: &Path, label: &str, hash: &str) -> String {
    format!(
        "[hooks.state.\"{}:{label}:0:0\"]\ntrusted_hash = \"{hash}\"\n",
        key_file.display()
    )
}

#[test]
fn user_hooks_json_with_file_line_and_trust_by_hash() {
    let r = roots();
    let hooks_json = r.home.join("hooks.json");
    write_file(&hooks_json, GUARD);
    write_file(
        r.home.join("config.toml"),
        trust(&hooks_json, "pre_tool_use", GUARD_HASH),
    );
    let h = load_at(&r);
    assert_eq!(h.config.agent, Agent::Codex);
    assert_eq!(h.config.handlers.len(), 1);
    let handler = &h.config.handlers[0];
    assert_eq!(handler.origin.line, 7);
    assert_eq!(handler.effective_timeout, 5.0);
    assert_eq!(definition_hash(handler), GUARD_HASH);
    let t = h.trust[0].as_ref().expect("trust");
    assert_eq!(t.status, TrustStatus::Trusted);
    assert_eq!(t.key, format!("{}:pre_tool_use:0:0", hooks_json.display()));
    assert!(handler.inactive.is_none());
}

#[test]
fn no_trusted_hash_is_untrusted_and_a_different_one_is_not_checked() {
    let r = roots();
    let hooks_json = r.home.join("hooks.json");
    write_file(&hooks_json, GUARD);
    let h = load_at(&r);
    assert_eq!(
        h.trust[0].as_ref().expect("t").status,
        TrustStatus::Untrusted
    );
    assert!(
        matches!(&h.config.handlers[0].inactive, Some(Inactive::Skipped(w)) if w.starts_with("not trusted"))
    );
    write_file(
        r.home.join("config.toml"),
        trust(&hooks_json, "pre_tool_use", "sha256:00"),
    );
    let h = load_at(&r);
    assert_eq!(
        h.trust[0].as_ref().expect("t").status,
        TrustStatus::NotChecked {
            recorded: "sha256:00".into()
        }
    );
    // Not decided: listed as running, with the note in its reason.
    assert!(h.config.handlers[0].inactive.is_none());
    let v = codex::explain(
        &h.config,
        &h.trust,
        "PreToolUse",
        &json!({"tool_name": "Bash"}),
    );
    assert!(v[0].fires);
    assert!(v[0].reason.contains("trust not checked"), "{}", v[0].reason);
}

#[test]
fn enabled_false_disables_a_trusted_hook() {
    let r = roots();
    let hooks_json = r.home.join("hooks.json");
    write_file(&hooks_json, GUARD);
    write_file(
        r.home.join("config.toml"),
        format!(
            "{}enabled = false\n",
            trust(&hooks_json, "pre_tool_use", GUARD_HASH)
        ),
    );
    let h = load_at(&r);
    assert_eq!(
        h.trust[0].as_ref().expect("t").status,
        TrustStatus::Disabled
    );
    assert!(h.config.handlers[0].inactive.is_some());
}

const TOML_STOP: &str = r#"
[[hooks.Stop]]
matcher = "ignored"

[[hooks.Stop.hooks]]
type = "command"
command = "echo stop"
timeout = 9
"#;

#[test]
fn inline_toml_hooks_have_lines_and_both_forms_warn() {
    let r = roots();
    write_file(r.home.join("config.toml"), TOML_STOP);
    let h = load_at(&r);
    assert_eq!(h.config.handlers.len(), 1);
    let s = &h.config.handlers[0];
    assert_eq!((s.event.as_str(), s.origin.line), ("Stop", 5));
    assert_eq!(s.effective_timeout, 9.0);
    assert!(
        h.config
            .files
            .iter()
            .all(|f| f.problems.iter().all(|p| p.id != "codex-both-forms"))
    );
    write_file(r.home.join("hooks.json"), GUARD);
    let h = load_at(&r);
    assert_eq!(h.config.handlers.len(), 2);
    let both: Vec<_> = h
        .config
        .files
        .iter()
        .flat_map(|f| f.problems.iter())
        .filter(|p| p.id == "codex-both-forms")
        .collect();
    assert_eq!(both.len(), 1);
}

#[test]
fn features_hooks_false_turns_every_hook_off() {
    for key in ["hooks", "codex_hooks"] {
        let r = roots();
        write_file(r.home.join("hooks.json"), GUARD);
        write_file(
            r.home.join("config.toml"),
            format!("[features]\n{key} = false\n"),
        );
        let h = load_at(&r);
        let off = h.hooks_off.as_deref().expect("off");
        assert!(off.contains(&format!("[features] {key} = false")), "{off}");
        assert!(
            h.config
                .handlers
                .iter()
                .all(|x| matches!(&x.inactive, Some(Inactive::Skipped(w)) if w == off))
        );
    }
}

const PROJECT_STOP: &str =
    r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo project"}]}]}}"#;

#[test]
fn project_hooks_load_only_when_trusted() {
    let r = roots();
    let proj_json = r.project.join(".codex/hooks.json");
    write_file(&proj_json, PROJECT_STOP);
    let h = load_at(&r);
    assert_eq!(h.project_trusted, Some(false));
    let p = &h.config.handlers[0];
    assert!(
        matches!(&p.inactive, Some(Inactive::Skipped(w)) if w.starts_with("the project is not trusted"))
    );
    // Trusted project, and the hook trusted by its hash.
    let stop = hookscope_core::hooks::settings::codex::load(&CodexLoadOptions {
        codex_home: Some(r.home.clone()),
        cwd: Some(r.project.clone()),
    });
    let hash = definition_hash(&stop.config.handlers[0]);
    write_file(
        r.home.join("config.toml"),
        format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"\n\n{}",
            r.project.display(),
            trust(&proj_json, "stop", &hash)
        ),
    );
    let h = load_at(&r);
    assert_eq!(h.project_trusted, Some(true));
    assert!(
        h.config.handlers[0].inactive.is_none(),
        "{:?}",
        h.config.handlers[0].inactive
    );
}

#[test]
fn hostile_files_are_problems_not_crashes() {
    let r = roots();
    // Not JSON.
    write_file(r.home.join("hooks.json"), "{\"hooks\": [\n");
    // Not TOML.
    write_file(r.home.join("config.toml"), "[features\nhooks = \n");
    let h = load_at(&r);
    let ids: Vec<&str> = h
        .config
        .files
        .iter()
        .flat_map(|f| f.problems.iter().map(|p| p.id))
        .collect();
    assert!(ids.contains(&"settings-invalid-json"), "{ids:?}");
    assert!(ids.contains(&"settings-invalid-toml"), "{ids:?}");
    assert!(h.config.handlers.is_empty());
    // A wrong type drops the file, as Codex's serde model does.
    write_file(
        r.home.join("hooks.json"),
        r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"ok"}]}],"PreToolUse":[{"matcher":3,"hooks":[]}]}}"#,
    );
    std::fs::remove_file(r.home.join("config.toml")).expect("rm");
    let h = load_at(&r);
    assert_eq!(h.config.handlers.len(), 1);
    assert!(
        matches!(&h.config.handlers[0].inactive, Some(Inactive::Skipped(w)) if w.starts_with("its file is skipped by Codex"))
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_hooks_json_and_a_huge_one_do_not_block() {
    let r = roots();
    let fifo = r.home.join("hooks.json");
    let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("path");
    // SAFETY: mkfifo with a valid NUL-terminated path.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(rc, 0);
    let h = load_at(&r);
    let f = h
        .config
        .files
        .iter()
        .find(|f| f.path == fifo)
        .expect("listed");
    assert_eq!(f.problems[0].message, "not read: not a regular file (FIFO)");
    std::fs::remove_file(&fifo).expect("rm");
    // Over the 4 MiB cap.
    let big = format!("{{\"hooks\":{{}},\"pad\":\"{}\"}}", "x".repeat(5 << 20));
    write_file(&fifo, &big);
    let h = load_at(&r);
    let f = h
        .config
        .files
        .iter()
        .find(|f| f.path == fifo)
        .expect("listed");
    assert_eq!(f.problems[0].id, "settings-unreadable");
}

#[cfg(unix)]
#[test]
fn a_non_utf8_codex_home_loads() {
    use std::os::unix::ffi::OsStrExt;
    let r = roots();
    let odd = r
        .home
        .parent()
        .expect("p")
        .join(std::ffi::OsStr::from_bytes(b"home-\xff"));
    write_file(odd.join("hooks.json"), GUARD);
    let h = load(&CodexLoadOptions {
        codex_home: Some(odd.clone()),
        cwd: None,
    });
    assert_eq!(h.config.handlers.len(), 1);
    assert_eq!(h.config.handlers[0].origin.path, odd.join("hooks.json"));
}

#[test]
fn an_invalid_look_around_matcher_skips_its_group() {
    let r = roots();
    write_file(
        r.home.join("hooks.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"^(?!Read).*","hooks":[{"type":"command","command":"x"}]}]}}"#,
    );
    let h = load_at(&r);
    assert!(
        matches!(&h.config.handlers[0].inactive, Some(Inactive::Skipped(w)) if w.starts_with("invalid matcher"))
    );
    let f = h
        .config
        .files
        .iter()
        .find(|f| f.path == r.home.join("hooks.json"))
        .expect("listed");
    assert!(
        f.problems
            .iter()
            .any(|p| p.id == "matcher-invalid" && p.line == Some(1)),
        "{:?}",
        f.problems
    );
}

#[test]
fn cli_match_uses_the_codex_dialect() {
    let r = roots();
    write_file(
        r.home.join("hooks.json"),
        r#"{"hooks":{"PreToolUse":[
{"matcher":"mcp__brave-search","hooks":[{"type":"command","command":"a"}]},
{"matcher":"Write","hooks":[{"type":"command","command":"b"}]}]}}"#,
    );
    let out = hookscope()
        .args([
            "hooks",
            "--agent",
            "codex",
            "--json",
            "--match",
            "PreToolUse",
            "apply_patch",
        ])
        .arg("--codex-home")
        .arg(&r.home)
        .arg("--cwd")
        .arg(&r.project)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let verdicts = v["verdicts"].as_array().expect("verdicts");
    assert_eq!(verdicts.len(), 2);
    // Untrusted in this home: both listed, neither runs; the reason says why.
    assert!(
        verdicts[0]["reason"]
            .as_str()
            .expect("r")
            .contains("not trusted")
    );
}

/// A Codex home whose hooks.json holds `groups` (a JSON list of PreToolUse
/// matcher groups), every handler trusted by its hash.
fn trusted_home(r: &Roots, groups: Value) {
    let hooks_json = r.home.join("hooks.json");
    write_file(
        &hooks_json,
        serde_json::to_string_pretty(&json!({"hooks": {"PreToolUse": groups}})).expect("j"),
    );
    trust_every_handler(r);
}

/// Trusts every handler of the Codex home's hooks as it is now (the
/// user `config.toml` records each one's hash, as Codex's /hooks does).
fn trust_every_handler(r: &Roots) {
    let h = load_at(r);
    let mut cfg = String::new();
    for t in &h.trust {
        let t = t.as_ref().expect("trust");
        cfg.push_str(&format!(
            "[hooks.state.\"{}\"]\ntrusted_hash = \"{}\"\n\n",
            t.key, t.hash
        ));
    }
    write_file(r.home.join("config.toml"), &cfg);
}

fn replay_exec(r: &Roots) -> Value {
    let out = hookscope()
        .args([
            "replay",
            ROLLOUT,
            "--event",
            "PreToolUse",
            "--exec",
            "--json",
        ])
        .env("CODEX_HOME", &r.home)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn replay_exec_runs_a_real_script_on_the_real_rollout() {
    let r = roots();
    let script = r.home.join("guard.sh");
    write_file(
        &script,
        "#!/bin/sh\nif grep -q AKIA; then echo 'secret in command' >&2; exit 2; fi\nexit 0\n",
    );
    trusted_home(
        &r,
        json!([{"matcher": "Bash|shell_command",
                "hooks": [{"type": "command", "command": format!("sh {}", script.display()), "timeout": 10}]}]),
    );
    let v = replay_exec(&r);
    assert_eq!(v["agent"], "codex");
    // The last call of the rollout (line 37): `echo AKIA… ghp_…`.
    let p = &v["payload"];
    assert_eq!(p["tool_name"], "Bash");
    assert_eq!(p["tool_use_id"], "call_u5itvwi2ezioe52njxy0xwxb");
    assert_eq!(p["turn_id"], "01a2287a-35c3-7a20-96ca-5a4d46aab0d4");
    assert_eq!(p["model"], "gpt-5-codex");
    assert_eq!(v["source"]["line"], 37);
    let exec = &v["exec"];
    assert_eq!(exec["handlers"].as_array().expect("h").len(), 1);
    assert_eq!(exec["handlers"][0]["exit_code"], 2);
    assert_eq!(exec["combined"]["effect"], "blocked");
    assert_eq!(exec["combined"]["model_sees"], "secret in command");
    assert_eq!(exec["final_outcome"]["verdict"], "denied");
    // No Claude Code variable in a Codex hook's environment.
    let env = exec["handlers"][0]["env_names"].as_array().expect("env");
    assert!(
        env.iter()
            .all(|n| !n.as_str().expect("s").starts_with("CLAUDE")),
        "{env:?}"
    );
}

#[test]
fn replay_exec_exit_2_without_stderr_does_not_block_and_duplicates_both_run() {
    let r = roots();
    let same = json!({"type": "command", "command": "cat >/dev/null; exit 2"});
    trusted_home(
        &r,
        json!([{"matcher": "Bash", "hooks": [same.clone()]}, {"matcher": "Bash", "hooks": [same]}]),
    );
    let v = replay_exec(&r);
    let exec = &v["exec"];
    let handlers = exec["handlers"].as_array().expect("h");
    assert_eq!(handlers.len(), 2, "identical handlers are not deduplicated");
    for h in handlers {
        assert_eq!(h["exit_code"], 2);
        assert_eq!(h["reading"]["failed"], true);
        assert_eq!(h["reading"]["outcome"]["effect"], "nothing");
    }
    assert_eq!(exec["combined"]["effect"], "nothing");
    assert_eq!(exec["final_outcome"]["verdict"], "runs");
}

#[test]
fn replay_exec_exit_1_with_deny_json_fails_open() {
    let r = roots();
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#;
    trusted_home(
        &r,
        json!([{"hooks": [{"type": "command", "command": format!("cat >/dev/null; echo '{deny}'; exit 1")}]},
               {"hooks": [{"type": "command", "command": "cat >/dev/null; echo '[junk'"}]}]),
    );
    let v = replay_exec(&r);
    let h = v["exec"]["handlers"].as_array().expect("h");
    assert_eq!(h.len(), 2);
    assert_eq!(h[0]["reading"]["failed"], true);
    assert_eq!(h[1]["reading"]["failed"], true);
    assert!(
        h[1]["reading"]["outcome"]["why"][0]
            .as_str()
            .expect("why")
            .contains("starts with { or [")
    );
    assert_eq!(v["exec"]["combined"]["effect"], "nothing");
}

#[test]
fn an_enabled_plugin_hooks_json_is_listed_with_its_note() {
    let r = roots();
    let root = r.home.join("plugins/cache/market/fmt/1.2.0");
    write_file(
        root.join("hooks/hooks.json"),
        r#"{"hooks":{"PostToolUse":[{"matcher":"apply_patch","hooks":[{"type":"command","command":"${PLUGIN_ROOT}/fmt.sh"}]}]}}"#,
    );
    // A newer version beside it (1.10.0 > 1.2.0 by version order, not by
    // text): only the newest is read.
    write_file(
        r.home
            .join("plugins/cache/market/fmt/1.10.0/hooks/hooks.json"),
        GUARD,
    );
    write_file(
        r.home.join("config.toml"),
        "[plugins.\"fmt@market\"]\nenabled = true\n\n[plugins.\"off@market\"]\nenabled = false\n",
    );
    let h = load_at(&r);
    let plugin: Vec<_> = h
        .config
        .handlers
        .iter()
        .filter(|x| {
            x.origin.layer == hookscope_core::hooks::settings::Layer::Plugin("fmt@market".into())
        })
        .collect();
    assert_eq!(plugin.len(), 1);
    assert_eq!(plugin[0].event, "PreToolUse");
    assert_eq!(
        h.trust[0].as_ref().expect("t").key,
        "fmt@market:hooks/hooks.json:pre_tool_use:0:0"
    );
    let f = h
        .config
        .files
        .iter()
        .find(|f| {
            f.path
                == r.home
                    .join("plugins/cache/market/fmt/1.10.0/hooks/hooks.json")
        })
        .expect("listed");
    assert!(f.problems.iter().any(|p| p.id == "codex-plugin-hooks"));
}

#[test]
fn session_end_timeouts_are_capped_at_3_seconds() {
    use hookscope_core::hooks::settings::codex::codex_timeout;
    assert_eq!(codex_timeout("SessionEnd", None).0, 1);
    assert_eq!(codex_timeout("SessionEnd", Some(30)).0, 3);
    assert_eq!(codex_timeout("Interrupt", Some(2)).0, 2);
    assert_eq!(codex_timeout("PreToolUse", None).0, 600);
    assert_eq!(codex_timeout("PreToolUse", Some(0)).0, 1);
}

#[test]
fn a_trusted_project_feature_switch_beats_the_users() {
    let r = roots();
    write_file(
        r.project.join(".codex/config.toml"),
        "[features]\nhooks = true\n",
    );
    write_file(
        r.home.join("config.toml"),
        format!(
            "[features]\nhooks = false\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            r.project.display()
        ),
    );
    assert_eq!(load_at(&r).hooks_off, None);
    // Untrusted, the project's switch is not read.
    write_file(r.home.join("config.toml"), "[features]\nhooks = false\n");
    assert!(load_at(&r).hooks_off.is_some());
}

/// Every Codex payload of the real rollout (each turn's UserPromptSubmit,
/// every call's PreToolUse/PostToolUse, Stop, and the session's last of
/// each) is the same whether the rollout is read as plain `.jsonl` or as
/// `.jsonl.zst` (compressed here with the `zstd` crate), `transcript_path`
/// aside (it names the file read). Before, the `.zst` form lost `turn_id`
/// and `model`: the rollout was read back raw, still compressed.
#[test]
fn a_zst_rollout_gives_the_same_payloads_as_the_plain_one() {
    use hookscope_core::hooks::codex::payload::{firings_at, payload};
    use hookscope_core::hooks::events::At;
    let dir = tempfile::tempdir().expect("tempdir");
    let name = Path::new(ROLLOUT).file_name().expect("name");
    let plain = dir.path().join(name);
    std::fs::copy(ROLLOUT, &plain).expect("copy");
    let zst = dir.path().join(format!("{}.zst", name.to_string_lossy()));
    let text = std::fs::read(ROLLOUT).expect("read");
    std::fs::write(&zst, zstd::encode_all(&text[..], 3).expect("compress")).expect("write");
    let load = |p: &Path| {
        let found = hookscope_core::transcript::discover(&[p.to_path_buf()]).expect("discover");
        assert_eq!(found.sessions.len(), 1, "{}", p.display());
        hookscope_core::transcript::load(&found.sessions[0]).expect("load")
    };
    let (a, b) = (load(&plain), load(&zst));
    assert_eq!(a.agent, Agent::Codex);
    assert_eq!(b.agent, Agent::Codex);
    let mut ats = vec![At::Last];
    ats.extend((1..=a.turns.len()).map(At::Turn));
    let mut compared = 0;
    for at in &ats {
        let firings = firings_at(&a, at);
        assert_eq!(firings, firings_at(&b, at), "{at}");
        for (event, at) in firings {
            let p = payload(&a, event, &at).expect("plain payload");
            let q = payload(&b, event, &at).expect("zst payload");
            assert_eq!(p.json["turn_id"], "01a2287a-35c3-7a20-96ca-5a4d46aab0d4");
            assert_eq!(p.json["model"], "gpt-5-codex");
            assert_eq!(p.json["transcript_path"], plain.display().to_string());
            assert_eq!(q.json["transcript_path"], zst.display().to_string());
            let (mut pj, mut qj) = (p.json.clone(), q.json.clone());
            pj["transcript_path"] = Value::Null;
            qj["transcript_path"] = Value::Null;
            assert_eq!(pj, qj, "{event} at {at}");
            assert_eq!(p.left_out, q.left_out, "{event} at {at}");
            assert_eq!(p.source_line, q.source_line);
            compared += 1;
        }
    }
    // 4 for the session's last + (1 prompt, 6 calls × 2, 1 Stop) for its one turn.
    assert_eq!(compared, 18);
}

/// The shells reach every dialect through `hooks::dialect`: a Codex
/// replay without `--exec` evaluates the rule set (the echo meets no rule
/// of the example) and says the rollout records no hook activity; with `--exec` the report is tagged
/// with the Codex dialect and not compared with the transcript.
#[test]
fn a_codex_replay_says_what_is_not_read_and_tags_its_dialect() {
    let r = roots();
    trusted_home(
        &r,
        json!([{"matcher": "Bash", "hooks": [{"type": "command", "command": "cat >/dev/null; exit 0"}]}]),
    );
    let out = hookscope()
        .args([
            "replay",
            ROLLOUT,
            "--event",
            "PreToolUse",
            "--rules",
            "assets/rules/example.toml",
        ])
        .env("CODEX_HOME", &r.home)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("rules (assets/rules/example.toml):\n")
            && text.contains("\ndecision: none\n"),
        "{text}"
    );
    assert!(
        text.contains("recorded in the transcript: not read (Codex records no hook activity)\n"),
        "{text}"
    );
    let out = hookscope()
        .args(["replay", ROLLOUT, "--event", "PreToolUse", "--exec"])
        .env("CODEX_HOME", &r.home)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let home = r.home.join("hooks.json");
    assert!(
        text.contains(&format!(
            "hooks run (--exec; {}; Codex dialect):\n",
            home.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("vs the transcript: not compared (Codex records no hook activity)\n"),
        "{text}"
    );
    let v = replay_exec(&r);
    assert_eq!(v["exec"]["dialect"], "codex");
    assert_eq!(v["exec"]["vs_transcript"], Value::Null);
    assert_eq!(
        v["rules_note"],
        "no rule set loaded: only the payload and what the transcript recorded"
    );
}

/// What one dialect reads is refused for another, exit 2, with what it
/// reads instead; `--lint` is Claude Code's and Droid's.
#[test]
fn each_dialect_refuses_the_other_dialects_sources() {
    let r = roots();
    let run = |args: &[&str]| {
        let out = hookscope()
            .args(args)
            .env("CODEX_HOME", &r.home)
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, err) = run(&["hooks", "--agent", "codex", "--settings", "x.json"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--settings, --config-dir and --managed are Claude Code's and Droid's; Codex hooks are read from --codex-home"), "{err}");
    let (code, err) = run(&["hooks", "--agent", "codex", "--lint"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--lint checks Claude Code and Droid settings"),
        "{err}"
    );
    let home = r.home.display().to_string();
    let (code, err) = run(&["hooks", "--codex-home", &home]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--codex-home is Codex's (use it with --agent codex)"),
        "{err}"
    );
    let (code, err) = run(&[
        "replay",
        ROLLOUT,
        "--event",
        "PreToolUse",
        "--settings",
        "x.json",
    ]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("Codex hooks are read from --codex-home"),
        "{err}"
    );
}

/// `hooks --agent codex --match` carries each handler's trust in JSON and
/// in text, next to its place (one listing for every dialect).
#[test]
fn codex_match_json_and_listing_show_trust() {
    let r = roots();
    trusted_home(
        &r,
        json!([{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]),
    );
    let home = r.home.display().to_string();
    let out = hookscope()
        .args([
            "hooks",
            "--agent",
            "codex",
            "--codex-home",
            &home,
            "--json",
            "--match",
            "PreToolUse",
            "Bash",
        ])
        .output()
        .expect("run");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["agent"], "codex");
    assert_eq!(v["verdicts"][0]["fires"], true);
    assert_eq!(v["verdicts"][0]["trust"]["status"], "trusted");
    let out = hookscope()
        .args(["hooks", "--agent", "codex", "--codex-home", &home])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("Hook configuration (Codex CLI rules)\n"),
        "{text}"
    );
    assert!(text.contains(" · trusted\n"), "{text}");
}

/// The loop a user runs: `hooks --install --agent codex` writes the Codex
/// home's hooks.json (and says Codex must trust it); trusted, the installed
/// `hookscope hook --agent codex` runs as Codex's handler on the real
/// rollout's last call (`echo AKIA…`), and Codex's reading of its answer
/// blocks the call with the rule's reason.
#[test]
fn an_installed_rule_set_blocks_through_codex_reading() {
    let r = roots();
    let rules = r.home.join("rules.toml");
    write_file(&rules, NO_ECHO);
    let install = || {
        hookscope()
            .args([
                "hooks",
                "--install",
                "--agent",
                "codex",
                "--scope",
                "user",
                "--write",
            ])
            .arg("--codex-home")
            .arg(&r.home)
            .arg("--rules")
            .arg(&rules)
            .output()
            .expect("run")
    };
    let out = install();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Codex runs a hook only once you trust it"),
        "{stdout}"
    );
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(r.home.join("hooks.json")).expect("written"))
            .expect("json");
    let command = written["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .expect("command");
    assert!(command.ends_with(" --agent codex"), "{command}");
    assert_eq!(
        written["hooks"]["PreToolUse"][0]["matcher"],
        "^(?:Bash|Execute|exec_command)$|^mcp__.+__(?:Bash|Execute|exec_command)$"
    );
    // Untrusted, Codex would skip it; trusted, it runs.
    trust_every_handler(&r);
    let v = replay_exec(&r);
    let exec = &v["exec"];
    assert_eq!(exec["handlers"].as_array().expect("h").len(), 1, "{exec}");
    assert_eq!(exec["handlers"][0]["exit_code"], 0, "{exec}");
    assert_eq!(exec["handlers"][0]["reading"]["failed"], false, "{exec}");
    assert_eq!(exec["combined"]["effect"], "blocked");
    assert_eq!(exec["combined"]["model_sees"], "no echo here");
    assert_eq!(exec["final_outcome"]["verdict"], "denied");
    // Installing again changes nothing.
    let again = install();
    assert!(String::from_utf8_lossy(&again.stdout).starts_with("already installed in "));
}

/// `replay` of a real Codex event with `--rules`: the rules run on the
/// payload Codex would send, and the answer is Codex's (a deny with its
/// reason), read back by Codex's reader as a block.
#[test]
fn replay_of_a_codex_event_evaluates_the_rules_in_codex_contract() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("rules.toml");
    write_file(&rules, NO_ECHO);
    let out = hookscope()
        .args([
            "replay",
            ROLLOUT,
            "--event",
            "PreToolUse",
            "--json",
            "--rules",
        ])
        .arg(&rules)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["decision"], "block", "{v}");
    assert_eq!(
        v["output"]["stdout"],
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": "no echo here"}})
    );
    assert_eq!(v["outcome"]["effect"], "blocked");
}
