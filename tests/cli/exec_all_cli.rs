//! `hookscope replay --all --exec` (docs/replay-and-backtest.md#every-event-your-hooks):
//! your hooks run on every recorded event they reach. The per-handler
//! counts and the then-vs-now tallies equal those of running each event by
//! hand with the single `replay … --exec`; nothing runs without `--yes` when
//! there is no terminal; Ctrl-C stops the walk and leaves no hook running;
//! identical events run once; the run is isolated by default.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{REAL_CC, bash_hooks_settings, hookscope, hookscope_process, write_file};

/// The two sessions the by-hand comparison walks: a hook's exit-2 block,
/// and one session resumed twice with a rewrite, an ask, an objection, a
/// rejected prompt and a Stop block.
fn sessions() -> Vec<String> {
    ["hooks_c2_exit2", "hooks_c8_outcomes"]
        .iter()
        .map(|s| format!("{REAL_CC}/{s}"))
        .collect()
}

/// A guard that blocks `rm -rf` (exit 2) and a checker that crashes
/// (exit 1, no JSON) on `git`: two handlers of PreToolUse `Bash`.
fn settings(dir: &Path) -> PathBuf {
    let guard = write_file(
        dir.join("guard.sh"),
        "#!/bin/sh\ncase \"$(cat)\" in *'rm -rf'*) echo 'no rm -rf' >&2; exit 2;; esac\nexit 0\n",
    );
    let crash = write_file(
        dir.join("crash.sh"),
        "#!/bin/sh\ncase \"$(cat)\" in *'\"git '*) echo boom >&2; exit 1;; esac\nexit 0\n",
    );
    bash_hooks_settings(
        dir.join("settings.json"),
        json!([
            {"type": "command", "command": format!("sh {}", guard.display())},
            {"type": "command", "command": format!("sh {}", crash.display())}
        ]),
    )
}

/// A settings file in `dir` whose one PreToolUse `Bash` handler runs the
/// script `name` (written with `body`) with `shell`.
fn one_hook(dir: &Path, name: &str, shell: &str, body: impl AsRef<[u8]>) -> PathBuf {
    let hook = write_file(dir.join(name), body);
    bash_hooks_settings(
        dir.join("settings.json"),
        json!([{"type": "command", "command": format!("{shell} {}", hook.display())}]),
    )
}

/// `replay --all --exec --yes --json --settings S` over `paths`, with
/// `extra` arguments; the JSON report.
fn all_exec_on(settings: &Path, paths: &[String], extra: &[&str]) -> Value {
    let out = hookscope()
        .args(["replay", "--all", "--exec", "--yes", "--json", "--settings"])
        .arg(settings)
        .args(paths)
        .args(extra)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// `replay SESSION --event PreToolUse --at ID --exec --json --settings S`
/// over the two sessions: one event run by hand.
fn replay_exec(session: &str, id: &str, settings: &Path) -> Value {
    let out = hookscope()
        .args(["replay", session])
        .args(sessions())
        .args([
            "--event",
            "PreToolUse",
            "--at",
            id,
            "--exec",
            "--json",
            "--settings",
        ])
        .arg(settings)
        .output()
        .expect("replay");
    serde_json::from_slice(&out.stdout).expect("replay json")
}

/// `#1 /path:7 (given)` → `/path:7 (given)`.
fn location(label: &str) -> String {
    label
        .split_once(' ')
        .map_or(label, |(_, rest)| rest)
        .to_string()
}

#[test]
fn every_event_by_hand_gives_the_same_counts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = settings(dir.path());
    let all = all_exec_on(&settings, &sessions(), &[]);
    // By hand: every Bash call of the two sessions, one `replay --exec` each.
    let found = hookscope()
        .args(["find", "--tool-name", "Bash", "--json", "--limit", "1000"])
        .args(sessions())
        .output()
        .expect("find");
    let found: Value = serde_json::from_slice(&found.stdout).expect("find json");
    let records = found["records"].as_array().expect("records");
    assert!(records.len() >= 5, "{}", records.len());
    let mut exits: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut then_now: BTreeMap<&str, usize> = BTreeMap::new();
    for r in records {
        let session = r["session"].as_str().expect("session");
        let id = r["tool_use_id"].as_str().expect("id");
        let v = replay_exec(session, id, &settings);
        let exec = &v["exec"];
        for h in exec["handlers"].as_array().expect("handlers") {
            let label = location(h["label"].as_str().expect("label"));
            let code = h["exit_code"].as_i64().expect("exit code");
            *exits.entry((label, format!("exit {code}"))).or_default() += 1;
        }
        let vs = &exec["vs_transcript"];
        let blocks = |s: &str| matches!(s, "blocked" | "stopped" | "flagged");
        let (then, now) = (
            vs["then"].as_str().expect("then"),
            vs["now"].as_str().expect("now"),
        );
        // An ask the transcript records as denied kept the call from
        // running then (c8's git push), unless the hooks still ask now.
        let then_blocked =
            (blocks(then) || vs["then_denied"] == true) && !(then == "asked" && now == "asked");
        let kind = match (then_blocked, blocks(now)) {
            (true, true) => "blocked_both",
            (false, true) => "new_blocks",
            (true, false) => "lost_blocks",
            _ if then == "rewrote" && now != "rewrote" => "lost_rewrites",
            _ if now == "rewrote" && then != "rewrote" => "new_rewrites",
            _ => "neither",
        };
        *then_now.entry(kind).or_default() += 1;
    }
    // The walk: the same runs, per handler.
    assert_eq!(all["ran"], true);
    assert_eq!(all["events"], records.len());
    assert_eq!(all["cancelled"], false);
    let mut walked: BTreeMap<(String, String), usize> = BTreeMap::new();
    for h in all["handlers"].as_array().expect("handlers") {
        assert_eq!(h["reached"], records.len());
        for (k, n) in h["exits"].as_object().expect("exits") {
            let n = usize::try_from(n.as_u64().expect("n")).expect("usize");
            walked.insert(
                (h["handler"].as_str().expect("h").to_string(), k.clone()),
                n,
            );
        }
    }
    assert_eq!(walked, exits);
    let t = &all["then_vs_now"];
    assert_eq!(
        t["blocked_both"],
        then_now.get("blocked_both").copied().unwrap_or(0)
    );
    assert_eq!(
        t["new_blocks"]["count"],
        then_now.get("new_blocks").copied().unwrap_or(0)
    );
    assert_eq!(
        t["lost_blocks"]["count"],
        then_now.get("lost_blocks").copied().unwrap_or(0)
    );
    // c8's git push: asked then and denied, not blocked now (the checker
    // crashes on git: it fails open).
    assert!(then_now.get("lost_blocks").copied().unwrap_or(0) >= 1);
    // c8's three `npm test` a hook rewrote then; these hooks do not.
    assert_eq!(then_now.get("lost_rewrites"), Some(&3));
    assert_eq!(t["lost_rewrites"]["count"], 3);
    assert_eq!(t["new_rewrites"]["count"], 0);
    assert_eq!(t["rewrite_changed"]["count"], 0);
    // The recorded exit-2 block of `rm -rf` is blocked then and now, not new.
    assert!(then_now.get("blocked_both").copied().unwrap_or(0) >= 1);
    let crash = &all["handlers"][1];
    assert_eq!(crash["failures"]["crashed"], crash["exits"]["exit 1"]);
    assert_eq!(crash["fails_open"], crash["exits"]["exit 1"]);
}

#[test]
fn without_a_terminal_nothing_runs_unless_yes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("ran");
    let settings = one_hook(
        dir.path(),
        "touch.sh",
        "sh",
        format!("#!/bin/sh\ntouch {}\n", marker.display()),
    );
    let out = hookscope()
        .args(["replay", "--all", "--exec", "--settings"])
        .arg(&settings)
        .args(sessions())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.starts_with("plan: 1 handler × "), "{stdout}");
    let confined = hookscope_core::hooks::exec::write_confinement_available().is_ok();
    assert_eq!(
        stdout.contains("protection: writes confined: a hook (and what it starts)"),
        confined,
        "{stdout}"
    );
    assert_eq!(
        stdout.contains("not in force: write confinement: not available here ("),
        !confined,
        "{stdout}"
    );
    assert!(stderr.contains("give --yes"), "{stderr}");
    assert!(!marker.exists(), "a hook ran without consent");
}

/// By default a hook runs in a fresh temporary folder with a fresh HOME;
/// `--real-folders` gives it the recorded folder (here gone, so the
/// project's fallback) and this process's HOME.
#[test]
fn hooks_run_isolated_by_default() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("log");
    let settings = one_hook(
        dir.path(),
        "where.sh",
        "sh",
        format!(
            "#!/bin/sh\ncat >/dev/null\necho \"$HOME|$PWD|$CLAUDE_PROJECT_DIR\" >> {}\n",
            log.display()
        ),
    );
    let c2 = format!("{REAL_CC}/hooks_c2_exit2");
    let out = hookscope()
        .args(["replay", "--all", "--exec", "--yes", "--write-anywhere"])
        .arg("--settings")
        .arg(&settings)
        .arg(&c2)
        .env("HOME", dir.path())
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&log).expect("log");
    let lines: Vec<&str> = text.lines().collect();
    assert!(!lines.is_empty());
    for line in &lines {
        let parts: Vec<&str> = line.split('|').collect();
        assert_eq!(parts.len(), 3, "{line}");
        let (home, pwd, project) = (parts[0], parts[1], parts[2]);
        assert!(
            home.contains("hookscope-exec-") && home.ends_with("/home"),
            "{line}"
        );
        assert!(
            pwd.contains("hookscope-exec-") && pwd.ends_with("/project"),
            "{line}"
        );
        assert_eq!(project, pwd, "{line}");
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("protection: a fresh temporary HOME"),
        "{stdout}"
    );
    // --real-folders: this process's HOME.
    std::fs::remove_file(&log).expect("rm");
    let out = hookscope()
        .args([
            "replay",
            "--all",
            "--exec",
            "--yes",
            "--real-folders",
            "--settings",
        ])
        .arg(&settings)
        .arg(&c2)
        .env("HOME", dir.path())
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = std::fs::read_to_string(&log).expect("log");
    let home = dir.path().display().to_string();
    assert!(
        text.lines().all(|l| l.starts_with(&format!("{home}|"))),
        "{text}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("protection: a fresh temporary HOME"));
}

/// A session whose calls repeat one tool_use_id with the same input: the
/// payloads are identical, so the hook runs once and the other is answered
/// from that run.
#[test]
fn identical_events_run_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let count = dir.path().join("count");
    let settings = one_hook(
        dir.path(),
        "count.sh",
        "sh",
        format!("#!/bin/sh\ncat >/dev/null\necho x >> {}\n", count.display()),
    );
    let project = dir.path().join("projects").join("-tmp-dup");
    let session = "11111111-2222-3333-4444-555555555555";
    let line = |uuid: &str, parent: &str, body: Value| {
        let mut v = json!({"type": "assistant", "uuid": uuid, "parentUuid": parent,
            "sessionId": session, "cwd": "/tmp/dup", "version": "2.1.332",
            "timestamp": "2026-12-01T10:00:00.000Z", "isSidechain": false, "userType": "external"});
        if let Some(o) = v.as_object_mut() {
            for (k, x) in body.as_object().expect("object") {
                o.insert(k.clone(), x.clone());
            }
        }
        v
    };
    let call = |uuid: &str, parent: &str| {
        line(
            uuid,
            parent,
            json!({"message": {"role": "assistant", "id": format!("msg_{uuid}"),
            "content": [{"type": "tool_use", "id": "toolu_same", "name": "Bash",
                         "input": {"command": "ls"}}]}}),
        )
    };
    let result = |uuid: &str, parent: &str| {
        line(
            uuid,
            parent,
            json!({"type": "user", "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_same", "content": "ok"}]}}),
        )
    };
    let prompt = line(
        "u0",
        "",
        json!({"type": "user", "parentUuid": null,
        "message": {"role": "user", "content": "list"}}),
    );
    crate::support::write_jsonl(
        project.join(format!("{session}.jsonl")),
        &[
            prompt,
            call("a1", "u0"),
            result("r1", "a1"),
            call("a2", "r1"),
            result("r2", "a2"),
        ],
    );
    let out = hookscope()
        // The count file is outside the events' folders.
        .args([
            "replay",
            "--all",
            "--exec",
            "--yes",
            "--json",
            "--write-anywhere",
        ])
        .arg("--settings")
        .arg(&settings)
        .arg(dir.path().join("projects"))
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let runs = std::fs::read_to_string(&count)
        .expect("count")
        .lines()
        .count();
    assert_eq!(v["events"], 2, "{v}");
    assert_eq!(v["deduplicated"], 1, "{v}");
    assert_eq!(v["runs"], 1);
    assert_eq!(runs, 1);
    assert_eq!(v["handlers"][0]["reached"], 2);
    assert_eq!(v["handlers"][0]["ran"], 1);
    assert_eq!(v["handlers"][0]["exits"]["exit 0"], 2);
}

/// Ctrl-C while hooks run: hookscope reports what completed, says it
/// stopped, and no hook process is left behind.
#[test]
fn ctrl_c_stops_and_leaves_no_hook_running() {
    let dir = tempfile::tempdir().expect("tempdir");
    let started = dir.path().join("started");
    let tag = format!("hookscope-sleep-{}", std::process::id());
    let settings = one_hook(
        dir.path(),
        "slow.sh",
        "bash",
        format!(
            "#!/bin/sh\ncat >/dev/null\necho $$ >> {}\nexec -a {tag} sleep 30\n",
            started.display()
        ),
    );
    let child = hookscope_process()
        .args([
            "replay",
            "--all",
            "--exec",
            "--yes",
            "--jobs",
            "2",
            "--write-anywhere",
            "--settings",
        ])
        .arg(&settings)
        .args(sessions())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // Wait until a hook runs (it writes its pid), then interrupt.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !started.exists() {
        assert!(Instant::now() < deadline, "no hook started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = i32::try_from(child.id()).expect("pid");
    // SAFETY: kill(2) on the child's pid with SIGINT; no memory is shared.
    unsafe {
        libc::kill(pid, libc::SIGINT);
    }
    let out = child.wait_with_output().expect("wait");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("hookscope: stopping: killed"), "{stderr}");
    assert!(
        stdout.contains("stopped early (Ctrl-C, or Esc in the TUI)"),
        "{stdout}"
    );
    // Every hook process that started is gone.
    let pids = std::fs::read_to_string(&started).expect("pids");
    for p in pids.lines() {
        let p: i32 = p.trim().parse().expect("pid");
        let alive = Path::new(&format!("/proc/{p}")).exists()
            && std::fs::read_to_string(format!("/proc/{p}/stat"))
                .is_ok_and(|s| !s.contains(") Z "));
        assert!(!alive, "hook process {p} still runs");
    }
}

/// `--against-settings`: every event run with your hooks (A: blocks
/// `rm -rf`) and another version (B: blocks `git push`); the groups equal
/// what running each event by hand with each version gives.
#[test]
fn against_settings_lists_the_events_the_two_versions_decide_differently() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    let guard = |dir: &Path, word: &str| {
        one_hook(
            dir,
            "guard.sh",
            "sh",
            format!(
                "#!/bin/sh\ncase \"$(cat)\" in *'{word}'*) echo 'no {word}' >&2; exit 2;; esac\nexit 0\n"
            ),
        )
    };
    std::fs::create_dir_all(&a).expect("a");
    std::fs::create_dir_all(&b).expect("b");
    let (sa, sb) = (guard(&a, "rm -rf"), guard(&b, "git push"));
    let out = hookscope()
        .args([
            "replay",
            "--all",
            "--exec",
            "--yes",
            "--json",
            "--fail-on-change",
            "--settings",
        ])
        .arg(&sa)
        .arg("--against-settings")
        .arg(&sb)
        .args(sessions())
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let ag = &v["against"];
    let ats = |group: &str| -> std::collections::BTreeSet<String> {
        ag[group]["examples"]
            .as_array()
            .expect("examples")
            .iter()
            .map(|e| e["at"].as_str().expect("at").to_string())
            .collect()
    };
    // By hand: each Bash call with A, then with B.
    let found = hookscope()
        .args(["find", "--tool-name", "Bash", "--json", "--limit", "1000"])
        .args(sessions())
        .output()
        .expect("find");
    let found: Value = serde_json::from_slice(&found.stdout).expect("find json");
    let (mut newly, mut no_longer) = (
        std::collections::BTreeSet::new(),
        std::collections::BTreeSet::new(),
    );
    for r in found["records"].as_array().expect("records") {
        let (session, id) = (
            r["session"].as_str().expect("s"),
            r["tool_use_id"].as_str().expect("id"),
        );
        let effect = |settings: &Path| {
            replay_exec(session, id, settings)["exec"]["combined"]["effect"] == "blocked"
        };
        match (effect(&sa), effect(&sb)) {
            (false, true) => newly.insert(id.to_string()),
            (true, false) => no_longer.insert(id.to_string()),
            _ => false,
        };
    }
    assert!(!newly.is_empty() && !no_longer.is_empty());
    assert_eq!(ats("newly_blocked"), newly);
    assert_eq!(ats("no_longer_blocked"), no_longer);
    assert_eq!(ag["newly_blocked"]["examples"][0]["b"], "blocked the call");
    assert_eq!(ag["newly_blocked"]["examples"][0]["a"], "did nothing");
}

/// By default each command hook runs in its own network namespace where
/// the kernel allows it (and the report says which); `--network` keeps the
/// host's. Read from the hook's `/proc/self/ns/net`.
#[test]
fn hooks_have_no_network_unless_asked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("ns");
    let settings = one_hook(
        dir.path(),
        "ns.sh",
        "sh",
        format!(
            "#!/bin/sh\ncat >/dev/null\nreadlink /proc/self/ns/net >> {}\n",
            log.display()
        ),
    );
    let ours = std::fs::read_link("/proc/self/ns/net").expect("our netns");
    let ours = ours.to_string_lossy().to_string();
    let c2 = format!("{REAL_CC}/hooks_c2_exit2");
    let run = |extra: &[&str]| -> Value {
        let _ = std::fs::remove_file(&log);
        all_exec_on(&settings, std::slice::from_ref(&c2), extra)
    };
    let has = |v: &Value, key: &str, prefix: &str| {
        v[key]
            .as_array()
            .expect("list")
            .iter()
            .any(|p| p.as_str().is_some_and(|p| p.starts_with(prefix)))
    };
    // The log is outside the events' folders.
    let v = run(&["--write-anywhere"]);
    let seen = std::fs::read_to_string(&log).expect("log");
    if has(
        &v,
        "protections",
        "no network: each command hook runs in its own network namespace",
    ) {
        assert!(seen.lines().all(|l| l != ours), "{seen} vs {ours}");
    } else {
        assert!(
            has(
                &v,
                "not_in_force",
                "network isolation: not available here ("
            ),
            "{v}"
        );
    }
    let v = run(&["--network", "--write-anywhere"]);
    let seen = std::fs::read_to_string(&log).expect("log");
    assert!(seen.lines().all(|l| l == ours), "{seen} vs {ours}");
    assert!(
        has(&v, "not_in_force", "network isolation: off (--network)"),
        "{v}"
    );
}

/// By default a hook's writes are confined to its event's temporary folder
/// where the kernel has Landlock (the report says which): its own HOME
/// takes a file, a folder outside does not; `--write-anywhere` lifts it
/// and says so.
#[test]
fn hooks_write_only_in_their_folder_unless_asked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).expect("outside");
    let settings = one_hook(
        dir.path(),
        "write.sh",
        "sh",
        format!(
            "#!/bin/sh\ncat >/dev/null\necho x > \"$HOME/mine\" || exit 3\necho x >> {}/log || exit 5\n",
            outside.display()
        ),
    );
    let c2 = format!("{REAL_CC}/hooks_c2_exit2");
    let v = all_exec_on(&settings, std::slice::from_ref(&c2), &[]);
    let listed = |key: &str, prefix: &str| {
        v[key]
            .as_array()
            .expect("list")
            .iter()
            .any(|p| p.as_str().is_some_and(|p| p.starts_with(prefix)))
    };
    let events = v["events"].as_u64().expect("events");
    assert!(events >= 1, "{v}");
    if hookscope_core::hooks::exec::write_confinement_available().is_ok() {
        assert!(listed("protections", "writes confined:"), "{v}");
        assert!(
            !outside.join("log").exists(),
            "a confined hook wrote outside"
        );
        // HOME was writable (never exit 3); the write outside was refused
        // (exit 5), and the shell's "Permission denied" is flagged.
        assert_eq!(v["handlers"][0]["exits"]["exit 5"], events, "{v}");
        assert_eq!(v["handlers"][0]["write_refused"], events, "{v}");
    } else {
        assert!(
            listed("not_in_force", "write confinement: not available here ("),
            "{v}"
        );
    }
    let v = all_exec_on(&settings, std::slice::from_ref(&c2), &["--write-anywhere"]);
    assert!(
        listed_in(
            &v,
            "not_in_force",
            "write confinement: off (--write-anywhere)"
        ),
        "{v}"
    );
    let lines = std::fs::read_to_string(outside.join("log")).expect("log");
    assert_eq!(lines.lines().count() as u64, events);
    assert_eq!(v["handlers"][0]["exits"]["exit 0"], events, "{v}");
    assert_eq!(v["handlers"][0]["write_refused"], 0, "{v}");
}

fn listed_in(v: &Value, key: &str, prefix: &str) -> bool {
    v[key].as_array().is_some_and(|l| {
        l.iter()
            .any(|p| p.as_str().is_some_and(|p| p.starts_with(prefix)))
    })
}

/// The plan warns about what `hooks --lint` flags on the handlers it will
/// run (a relative script path fails every run), and with
/// `--against-settings` it lists and tallies B's handlers too.
#[test]
fn the_plan_warns_of_lints_and_tallies_b() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = bash_hooks_settings(
        dir.path().join("a.json"),
        json!([{"type": "command", "command": "./guard.sh"}]),
    );
    let ok = write_file(
        dir.path().join("ok.sh"),
        "#!/bin/sh\ncat >/dev/null\nexit 0\n",
    );
    let b = bash_hooks_settings(
        dir.path().join("b.json"),
        json!([{"type": "command", "command": format!("sh {}", ok.display())}]),
    );
    let c2 = format!("{REAL_CC}/hooks_c2_exit2");
    let out = hookscope()
        .args(["replay", "--all", "--exec", "--settings"])
        .arg(&a)
        .arg("--against-settings")
        .arg(&b)
        .arg(&c2)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "no --yes, no terminal");
    let plan = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = plan.lines().collect();
    assert!(
        lines[0].starts_with("plan: 1 handler (A) and 1 handler (B) × 6 events ≈ 12 handler runs"),
        "{plan}"
    );
    assert!(
        lines[1].starts_with("  A: ")
            && lines[1].ends_with("PreToolUse: ./guard.sh — reaches 6 events"),
        "{plan}"
    );
    assert!(
        lines[2].starts_with("    ⚠ lint command-relative-path: \"./guard.sh\" is relative"),
        "{plan}"
    );
    assert!(
        lines[3].starts_with("    ⚠ isolated: it runs in an empty temporary project folder, where a relative script path is not found"),
        "{plan}"
    );
    assert!(lines[4].starts_with("  B: "), "{plan}");
    let v = all_exec_on(
        &a,
        std::slice::from_ref(&c2),
        &["--against-settings", b.to_str().expect("utf-8")],
    );
    assert_eq!(
        v["handlers"][0]["lints"][0]
            .as_str()
            .map(|l| l.starts_with("lint command-relative-path: ")),
        Some(true),
        "{v}"
    );
    assert_eq!(v["handlers"][0]["failures"]["launch_failed"], 6, "{v}");
    let bt = &v["against_handlers"][0];
    assert_eq!(bt["reached"], 6, "{v}");
    assert_eq!(bt["ran"], 6, "{v}");
    assert_eq!(bt["exits"]["exit 0"], 6, "{v}");
    assert!(bt.get("lints").is_none(), "{v}");
}

/// `--cwd-map` maps the payloads' recorded folders as the single replay
/// does, and the plan warns when events were recorded in folders missing
/// here (a guard that checks its cwd may then block everything).
#[test]
fn cwd_map_reaches_the_payloads_and_missing_folders_are_warned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("cwds");
    let settings = one_hook(
        dir.path(),
        "cwd.sh",
        "sh",
        format!(
            "#!/bin/sh\nc=$(sed -n 's/.*\"cwd\":\"\\([^\"]*\\)\".*/\\1/p')\necho \"$c\" >> {}\n",
            log.display()
        ),
    );
    let c2 = format!("{REAL_CC}/hooks_c2_exit2");
    let out = hookscope()
        .args(["replay", "--all", "--exec", "--settings"])
        .arg(&settings)
        .arg(&c2)
        .output()
        .expect("runs");
    let plan = String::from_utf8_lossy(&out.stdout);
    assert!(
        plan.contains("  ⚠ 6 of 6 events were recorded in folders that do not exist here (/home/dev/work/hooks_c2_exit2): "),
        "{plan}"
    );
    let local = dir.path().join("work");
    std::fs::create_dir_all(local.join("hooks_c2_exit2")).expect("mkdir");
    let map = format!("/home/dev/work={}", local.display());
    let v = all_exec_on(
        &settings,
        std::slice::from_ref(&c2),
        &["--cwd-map", &map, "--write-anywhere"],
    );
    assert_eq!(v["cwd_missing"], 0, "{v}");
    let cwds = std::fs::read_to_string(&log).expect("log");
    let want = local.join("hooks_c2_exit2").display().to_string();
    assert_eq!(cwds.lines().count(), 6, "{cwds}");
    assert!(cwds.lines().all(|l| l == want), "{cwds}");
}

/// A hook that blocks `git push` now, over c8, whose push a hook asked
/// about and `-p` denied: the push was kept from running then too, so it
/// is blocked then and now, not a new block (of the run or of the
/// handler); the single event says how it differs.
#[test]
fn an_ask_denied_then_is_blocked_then() {
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = one_hook(
        dir.path(),
        "no-push.sh",
        "sh",
        "#!/bin/sh\ncase \"$(cat)\" in *'git push'*) echo 'no push' >&2; exit 2;; esac\nexit 0\n",
    );
    let c8 = format!("{REAL_CC}/hooks_c8_outcomes");
    let all = all_exec_on(&settings, std::slice::from_ref(&c8), &[]);
    let t = &all["then_vs_now"];
    assert_eq!(t["blocked_both"], 1, "{t}");
    assert_eq!(t["new_blocks"]["count"], 0, "{t}");
    assert_eq!(all["handlers"][0]["new_blocks"]["count"], 0);
    let out = hookscope()
        .args(["replay", "07535b09", &c8])
        .args([
            "--event",
            "PreToolUse",
            "--at",
            "toolu_01RQ1iz1XkupduEYRX4OQTB2",
        ])
        .args(["--exec", "--json", "--settings"])
        .arg(&settings)
        .output()
        .expect("replay");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let vs = &v["exec"]["vs_transcript"];
    assert_eq!(vs["then"], "asked");
    assert_eq!(vs["then_denied"], true);
    assert_eq!(vs["now"], "blocked");
    assert!(
        vs["text"]
            .as_str()
            .unwrap_or("")
            .ends_with("— differs: your hooks now block here (then they asked, and the call was denied all the same)"),
        "{vs}"
    );
}
