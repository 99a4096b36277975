//! The OpenCode loaders (SQLite `opencode.db` and the legacy `storage/` JSON
//! files), discovery and `find` over `tests/corpus/real-opencode-*`,
//! plus hostile stores built in temp dirs.
//!
//! Every expected value was recounted independently with python3 (not the
//! loader): the SQLite db and its `-wal` copied to a temp dir and read with
//! python's `sqlite3` (`SELECT id, parent_id FROM session`, `SELECT id,
//! session_id, data FROM message`, `SELECT id, message_id, data FROM
//! part`), the JSON storage with `json.load` over `session/*/*.json`,
//! `message/*/*.json`, `part/*/*.json`. Counted: sessions = rows without a
//! parent; turns = user messages without a `compaction` part; tool calls =
//! `tool` parts of the session and all its descendants; errors = those with
//! `state.status == "error"`; children = descendant sessions; tokens = the
//! main thread's assistant `tokens` summed (`input`; `output + reasoning`;
//! `cache.write`; `cache.read`). For the SQLite store these equal the
//! session rows' own `tokens_*` totals.

use std::path::{Path, PathBuf};

use hookscope_core::tools::{ToolCall, ToolKind};
use hookscope_core::transcript::{Agent, Event, Locus, Session, Usage, discover, load};
use serde_json::Value;

use crate::support::{by_id, corpus, hookscope, usage};

fn db() -> PathBuf {
    corpus("real-opencode-1.18.33/data/opencode.db")
}

fn storage() -> PathBuf {
    corpus("real-opencode-1.1.65-legacy-json/data/storage")
}

fn load_all(paths: &[PathBuf]) -> Vec<Session> {
    let found = discover(paths).expect("discover");
    found
        .sessions
        .iter()
        .map(|s| load(s).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// (id, turns, tool calls of all threads, errors, children, main usage).
type Expected = (&'static str, usize, usize, usize, usize, Usage);

fn check(sessions: &[Session], expected: &[Expected]) {
    assert_eq!(sessions.len(), expected.len(), "session count");
    for (id, turns, calls, errors, children, tokens) in expected {
        let s = by_id(sessions, id);
        let sum = s.summary();
        assert_eq!(s.agent, Agent::OpenCode, "{id}");
        assert_eq!(sum.turns, *turns, "{id} turns");
        assert_eq!(sum.tool_calls, *calls, "{id} tool calls");
        assert_eq!(sum.errors, *errors, "{id} errors");
        assert_eq!(sum.subagents, *children, "{id} children");
        assert_eq!(s.usage, *tokens, "{id} tokens");
        assert_eq!(s.usage.total(), tokens.total(), "{id}");
    }
}

#[test]
fn sqlite_store_counts_every_run_including_rows_in_the_wal() {
    let sessions = load_all(&[db()]);
    // python3 recount (module docs); e.g. the `tools`+`resume` session:
    // 2 user messages, 14 tool parts (2 error), tokens 30170 / 595+23 / 0 / 90483.
    check(
        &sessions,
        &[
            (
                "ses_dcc9cb767ffeMSF13zG4UDjOLz",
                2,
                14,
                2,
                0,
                usage(30170, 618, 0, 90483),
            ),
            (
                "ses_dcc9c8e2dffemCotpZRMa3GzyP",
                1,
                8,
                0,
                3,
                usage(5926, 197, 0, 17770),
            ),
            (
                "ses_dcc9c71d7ffegcFmST6i1bJa0Z",
                2,
                4,
                2,
                0,
                usage(5872, 62, 0, 17613),
            ),
            (
                "ses_dcc9c4cefffeAL2RT1kk5aDdnv",
                1,
                1,
                0,
                0,
                usage(0, 0, 0, 0),
            ),
            (
                "ses_dcc9a5b0affe4rNHPlT2UpUj8q",
                3,
                2,
                0,
                0,
                usage(6302, 127, 0, 18895),
            ),
        ],
    );
    for s in &sessions {
        assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
        assert_eq!(s.path, db());
        assert_eq!(s.version.as_deref(), Some("1.18.33"));
    }
}

#[test]
fn sqlite_child_sessions_are_subagents_linked_to_their_task_calls() {
    let sessions = load_all(&[db()]);
    let parent = by_id(&sessions, "ses_dcc9c8e2dffemCotpZRMa3GzyP");
    // python3: children (parent_id = the session): their tool parts and tokens.
    let expected = [
        (
            "ses_dcc9c863cffegH7meAapimtQq1",
            2,
            usage(2348, 71, 0, 7038),
            "explore",
        ),
        (
            "ses_dcc9c82c9ffewf5QuZOTauBG6n",
            2,
            usage(4603, 76, 0, 13802),
            "general",
        ),
        (
            "ses_dcc9c82a4ffe72DBNelwOper4n",
            1,
            usage(1541, 50, 0, 4623),
            "explore",
        ),
    ];
    assert_eq!(parent.subagents.len(), 3);
    for (id, calls, tokens, kind) in expected {
        let (i, sub) = parent
            .subagents
            .iter()
            .enumerate()
            .find(|(_, s)| s.agent_id.as_deref() == Some(id))
            .unwrap_or_else(|| panic!("child {id}"));
        assert_eq!(sub.tool_calls().count(), calls, "{id}");
        assert_eq!(sub.usage, tokens, "{id}");
        assert_eq!(sub.agent_type.as_deref(), Some(kind), "{id}");
        // The task call whose metadata.sessionId names the child spawns it.
        let spawn = parent
            .tool_calls()
            .find(|c| c.subagent == Some(i))
            .unwrap_or_else(|| panic!("no spawn of {id}"));
        assert_eq!(spawn.name(), "task");
        assert_eq!(spawn.tool_kind, ToolKind::Task);
        assert_eq!(
            sub.spawn_tool_use_id.as_deref(),
            Some(spawn.tool_use_id.as_str())
        );
        let meta_id = spawn
            .result
            .as_ref()
            .and_then(|r| r.tool_use_result.as_ref())
            .and_then(|m| m.get("sessionId"))
            .and_then(Value::as_str);
        assert_eq!(meta_id, Some(id));
    }
}

#[test]
fn sqlite_tool_parts_map_to_typed_calls_statuses_and_notes() {
    let sessions = load_all(&[db()]);
    let tools = by_id(&sessions, "ses_dcc9cb767ffeMSF13zG4UDjOLz");
    let names: Vec<&str> = tools.tool_calls().map(|c| c.name()).collect();
    // python3: the tool parts' `tool` in message/part order.
    assert_eq!(
        names,
        [
            "bash",
            "bash",
            "read",
            "write",
            "edit",
            "glob",
            "grep",
            "todowrite",
            "bash",
            "read",
            "edit",
            "todowrite",
            "read",
            "bash"
        ]
    );
    let call = |id: &str| {
        tools
            .tool_calls()
            .find(|c| c.tool_use_id == id)
            .unwrap_or_else(|| panic!("{id}"))
    };
    // `bash` that exits 1: completed, metadata.exit 1 → not an error, a note says so.
    let exit1 = call("call_5N6w2vsDHA9YlF2G7uZpF49b");
    assert!(matches!(&exit1.call, ToolCall::Bash(b) if b.name == "bash"));
    assert_eq!(exit1.result.as_ref().map(|r| r.is_error), Some(false));
    let note = tools
        .turns
        .iter()
        .flat_map(|t| t.events.iter())
        .find_map(|e| match e {
            Event::Note { label, text, .. } if label == "exit status" => Some(text.clone()),
            _ => None,
        })
        .expect("exit note");
    assert!(note.contains("code 1"), "{note}");
    // status error → is_error with the error text.
    let missing = call("call_9QOaui0T24gyhpL277G4wTTs");
    assert!(
        matches!(&missing.call, ToolCall::Read(r) if r.file_path.ends_with("missing-file.txt"))
    );
    let r = missing.result.as_ref().expect("result");
    assert!(r.is_error);
    assert!(r.text.starts_with("File not found: "), "{}", r.text);
    assert!(matches!(
        &call("call_KTHo2p5pWQDGshFs75UA502g").call,
        ToolCall::Edit(_)
    ));
    // The call's record id is its message/part, not a line.
    let locus = tools.locus_of(None, exit1.line);
    assert!(
        matches!(&locus, Locus::Record(id) if id.starts_with("prt_")),
        "{locus:?}"
    );

    // The killed run: a `running` bash part is a call without a result.
    let abort = by_id(&sessions, "ses_dcc9c4cefffeAL2RT1kk5aDdnv");
    let running = abort.tool_calls().next().expect("call");
    assert_eq!(running.tool_use_id, "call_hlq9QR5kDsObgXfiNfSLRAVF");
    assert!(running.result.is_none());

    // The server run: a manual compaction is an event, not a prompt.
    let server = by_id(&sessions, "ses_dcc9a5b0affe4rNHPlT2UpUj8q");
    let compactions: Vec<Option<String>> = server
        .turns
        .iter()
        .flat_map(|t| t.events.iter())
        .filter_map(|e| match e {
            Event::Compaction { trigger, .. } => Some(trigger.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(compactions, [Some("manual".to_string())]);
}

#[test]
fn legacy_json_storage_counts_every_run() {
    let sessions = load_all(&[storage()]);
    check(
        &sessions,
        &[
            (
                "ses_dcc99caa0ffewtCDCzmQvnbet8",
                2,
                14,
                2,
                0,
                usage(44316, 719, 0, 132927),
            ),
            (
                "ses_dcc99b764ffejo4IzDVf1tRC9K",
                1,
                8,
                0,
                3,
                usage(8918, 197, 0, 26747),
            ),
            (
                "ses_dcc99ad7affeKUPQJdBSv0mTjD",
                2,
                4,
                2,
                0,
                usage(8878, 72, 0, 26628),
            ),
        ],
    );
    for s in &sessions {
        assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
        assert_eq!(s.version.as_deref(), Some("1.1.65"));
    }
    let parent = by_id(&sessions, "ses_dcc99b764ffejo4IzDVf1tRC9K");
    // python3: the three children's tool parts and tokens.
    for (id, calls, tokens) in [
        (
            "ses_dcc99b669ffeL7m1RjoKHAJiZj",
            2,
            usage(3368, 71, 0, 10099),
        ),
        (
            "ses_dcc99b55cffeNpV9p7Jf0zZLvu",
            2,
            usage(5680, 86, 0, 17032),
        ),
        (
            "ses_dcc99b55bffe45L6pCkhA6RqX2",
            1,
            usage(2221, 50, 0, 6661),
        ),
    ] {
        let (i, sub) = parent
            .subagents
            .iter()
            .enumerate()
            .find(|(_, s)| s.agent_id.as_deref() == Some(id))
            .unwrap_or_else(|| panic!("child {id}"));
        assert_eq!(sub.tool_calls().count(), calls, "{id}");
        assert_eq!(sub.usage, tokens, "{id}");
        assert!(
            parent.tool_calls().any(|c| c.subagent == Some(i)),
            "{id} unlinked"
        );
    }
}

#[test]
fn a_session_file_given_alone_loads_with_its_children() {
    let file = storage().join(
        "session/b1b723701d29a26aff31b3aa001b8ee39b69a447/ses_dcc99b764ffejo4IzDVf1tRC9K.json",
    );
    let sessions = load_all(&[file]);
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].subagents.len(), 3);
}

#[test]
fn a_child_session_file_given_alone_opens_the_session_that_holds_it() {
    // A subagent's own session file stands for its parent's session, as a
    // Claude Code subagent file does (README "Layout": the three children
    // of ses_dcc99b764ffe…).
    let project = storage().join("session/b1b723701d29a26aff31b3aa001b8ee39b69a447");
    let child = project.join("ses_dcc99b669ffeL7m1RjoKHAJiZj.json");
    let sessions = load_all(std::slice::from_ref(&child));
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].id, "ses_dcc99b764ffejo4IzDVf1tRC9K");
    assert_eq!(sessions[0].subagents.len(), 3);
    let out = hookscope()
        .args(["show"])
        .arg(&child)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("ses_dcc99b764ffejo4IzDVf1tRC9K  Mock session title\n"),
        "{text}"
    );

    // Hostile: two session files naming each other as parent. Given one,
    // the walk up stops where it comes back and opens that file's session.
    let temp = tempfile::tempdir().expect("tempdir");
    let dir = temp.path().join("storage/session/p");
    std::fs::create_dir_all(&dir).expect("mkdir");
    for (id, parent) in [("ses_a", "ses_b"), ("ses_b", "ses_a")] {
        let v = serde_json::json!({"id": id, "parentID": parent, "title": id,
            "time": {"created": 1_796_158_671_000_i64, "updated": 1_796_158_671_000_i64}});
        std::fs::write(dir.join(format!("{id}.json")), v.to_string()).expect("write");
    }
    let sessions = load_all(&[dir.join("ses_a.json")]);
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].id, "ses_a");
}

fn find_json(args: &[&str]) -> Vec<Value> {
    let out = hookscope()
        .arg("find")
        .args(args)
        .args(["--json", "--limit", "1000"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    v.get("records")
        .or(Some(&v))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_else(|| panic!("no records in {v}"))
}

fn ids(records: &[Value]) -> Vec<String> {
    let mut ids: Vec<String> = records
        .iter()
        .filter_map(|r| {
            r.get("tool_use_id")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .collect();
    ids.sort();
    ids
}

#[test]
fn cli_find_bash_and_errors_per_opencode_store() {
    let db = db();
    let db = db.to_string_lossy();
    let records = find_json(&[db.as_ref(), "--agent", "opencode", "--tool-name", "bash"]);
    // python3: every `bash` tool part's callID (all sessions, children included).
    let mut expected = vec![
        "call_M6U5WBrvQFq7Yo9YGGVQ6qXC",
        "call_jHBaAhVWMrYbuyNh0eVh32Zh",
        "call_hlq9QR5kDsObgXfiNfSLRAVF",
        "call_cDrpcFt43meiXJTueUiyHS1x",
        "call_AaylhpprEHVFlrJrl4VdScTL",
        "call_lyiCw11MRH2rZXeImRAdg5us",
        "call_5N6w2vsDHA9YlF2G7uZpF49b",
        "call_P5fI0c2TnH0hytqQKIdlYjBa",
        "call_llaIyB85qfY7UjzcyKfLS9SW",
    ];
    expected.sort();
    assert_eq!(ids(&records), expected);
    for r in &records {
        assert_eq!(r["agent"], "opencode");
        assert_eq!(r["tool_kind"], "bash");
        assert_eq!(r["is_error_reliable"], true);
    }
    // python3: parts with state.status == "error".
    let errors = find_json(&[
        db.as_ref(),
        "--agent",
        "opencode",
        "--is-error",
        "true",
        "--tool-name-pattern",
        "",
    ]);
    let mut expected = vec![
        "call_UkrQLi5fbxkQkLESuYtFS2q7",
        "call_Gei3jkeO4vTS96OPfcE68TPg",
        "call_9QOaui0T24gyhpL277G4wTTs",
        "call_ZR8Qvgy9b6wUzAuDkFyxuYXT",
    ];
    expected.sort();
    assert_eq!(ids(&errors), expected);

    let st = storage();
    let st = st.to_string_lossy();
    let errors = find_json(&[
        st.as_ref(),
        "--agent",
        "opencode",
        "--is-error",
        "true",
        "--tool-name-pattern",
        "",
    ]);
    let mut expected = vec![
        "call_J9m89naYCJrIM9KELpVNsZnG",
        "call_Cm6i6YlBxakoMgS8X3nJi9zk",
        "call_nm3e6TuhYDcTdaIYdwu0Bdcd",
        "call_hQHfA4IkDVDszrGJYHIZBpkx",
    ];
    expected.sort();
    assert_eq!(ids(&errors), expected);
    // Another agent's filter selects none of them.
    assert!(find_json(&[db.as_ref(), "--agent", "droid", "--tool-name", "bash"]).is_empty());
}

#[test]
fn cli_sessions_names_the_agent() {
    let out = hookscope()
        .args(["sessions", "--json"])
        .arg(db())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let rows = v.as_array().expect("array");
    assert_eq!(rows.len(), 5);
    assert!(rows.iter().all(|r| r["agent"] == "opencode"));
}

// ---- hostile stores ----

fn copy_db(dir: &Path) -> PathBuf {
    let src = corpus("real-opencode-1.18.33/data");
    for name in ["opencode.db", "opencode.db-wal"] {
        std::fs::copy(src.join(name), dir.join(name)).expect("copy");
    }
    dir.join("opencode.db")
}

#[test]
fn a_db_and_wal_in_a_read_only_folder_without_shm_still_load_whole() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = copy_db(tmp.path());
    let mut before: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("ls")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    before.sort();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for name in ["opencode.db", "opencode.db-wal"] {
            std::fs::set_permissions(
                tmp.path().join(name),
                std::fs::Permissions::from_mode(0o444),
            )
            .expect("chmod");
        }
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o555))
            .expect("chmod");
    }
    let sessions = load_all(std::slice::from_ref(&path));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod back");
    }
    // The rows that live only in the -wal are there: all 5 sessions, 29 calls.
    assert_eq!(sessions.len(), 5);
    let calls: usize = sessions.iter().map(|s| s.summary().tool_calls).sum();
    assert_eq!(calls, 14 + 8 + 4 + 1 + 2);
    let mut after: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("ls")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    after.sort();
    // Nothing was written beside the db (no -shm made), even as root: the
    // rows were read from a private copy.
    assert_eq!(after, before);
}

#[test]
fn reading_in_place_writes_neither_the_db_nor_its_wal_nor_its_shm() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = copy_db(tmp.path());
    let src = corpus("real-opencode-1.18.33/data/opencode.db-shm");
    std::fs::copy(src, tmp.path().join("opencode.db-shm")).expect("copy shm");
    let stamp = || {
        ["opencode.db", "opencode.db-wal", "opencode.db-shm"].map(|n| {
            let m = std::fs::metadata(tmp.path().join(n)).expect("stat");
            (
                m.len(),
                m.modified().expect("mtime"),
                std::fs::read(tmp.path().join(n)).expect("read"),
            )
        })
    };
    let before = stamp();
    let sessions = load_all(std::slice::from_ref(&path));
    assert_eq!(sessions.len(), 5);
    assert!(stamp() == before, "a file of the store changed");
}

#[test]
fn a_corrupt_sqlite_file_is_a_diagnostic_not_a_crash() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("opencode.db");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(std::iter::repeat_n(0xA5u8, 8192));
    std::fs::write(&path, bytes).expect("write");
    let found = discover(&[tmp.path().to_path_buf()]).expect("discover");
    assert!(found.sessions.is_empty());
    assert_eq!(found.diagnostics.len(), 1, "{:?}", found.diagnostics);
    assert_eq!(found.diagnostics[0].path, path);
    assert!(
        found.diagnostics[0]
            .message
            .starts_with("OpenCode database not read: "),
        "{}",
        found.diagnostics[0].message
    );
    // Given as a PATH: the same diagnostic, no error.
    let found = discover(std::slice::from_ref(&path)).expect("discover");
    assert_eq!(found.diagnostics.len(), 1);
}

#[test]
fn a_database_without_the_part_table_is_reported() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("other.db");
    let conn = rusqlite::Connection::open(&path).expect("open");
    conn.execute_batch(
        "CREATE TABLE session (id TEXT PRIMARY KEY); CREATE TABLE message (id TEXT, session_id TEXT, time_created INTEGER, data TEXT);",
    )
    .expect("schema");
    drop(conn);
    let found = discover(std::slice::from_ref(&path)).expect("discover");
    assert!(found.sessions.is_empty());
    assert_eq!(
        found.diagnostics[0].message,
        "OpenCode database not read: not an OpenCode database: no table `part`"
    );
}

#[test]
fn bad_rows_are_diagnostics_with_their_record_id() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("opencode.db");
    let conn = rusqlite::Connection::open(&path).expect("open");
    conn.execute_batch(
        "CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, title TEXT, directory TEXT, version TEXT, time_created INTEGER, time_updated INTEGER);
         CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
         CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
         INSERT INTO session VALUES ('ses_a', NULL, 't', '/w', '9.9', 1, 2);
         INSERT INTO message VALUES ('msg_1', 'ses_a', 1, 1, '{\"role\":\"user\",\"time\":{\"created\":1}}');
         INSERT INTO part VALUES ('prt_1', 'msg_1', 'ses_a', 1, 1, '{\"type\":\"text\",\"text\":\"hi\"}');
         INSERT INTO message VALUES ('msg_2', 'ses_a', 2, 2, '{\"role\":\"assistant\",\"time\":{\"created\":2}}');
         INSERT INTO part VALUES ('prt_2', 'msg_2', 'ses_a', 2, 2, '{not json');
         INSERT INTO part VALUES ('prt_3', 'msg_2', 'ses_a', 3, 3, '{\"type\":\"tool\",\"tool\":\"bash\",\"callID\":\"c1\",\"state\":{\"status\":\"weird\",\"input\":{\"command\":\"ls\"}}}');",
    )
    .expect("rows");
    drop(conn);
    let sessions = load_all(std::slice::from_ref(&path));
    let s = &sessions[0];
    assert_eq!(s.prompt_turns(), 1);
    assert_eq!(s.tool_calls().count(), 1);
    let diags: Vec<String> = s.diagnostics.iter().map(ToString::to_string).collect();
    let p = path.display();
    assert_eq!(
        diags,
        [
            format!(
                "{p}#prt_2: part row: data is not JSON (key must be a string at line 1 column 2); ignored"
            ),
            format!(
                "{p}#prt_3: bash tool part with unknown state.status \"weird\"; kept without a result"
            ),
        ]
    );
}

#[test]
fn a_locked_database_gives_a_clear_error_not_a_hang() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("opencode.db");
    let conn = rusqlite::Connection::open(&path).expect("open");
    conn.execute_batch(
        "PRAGMA journal_mode=DELETE;
         CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, time_created INTEGER, time_updated INTEGER);
         CREATE TABLE message (id TEXT, session_id TEXT, time_created INTEGER, data TEXT);
         CREATE TABLE part (id TEXT, message_id TEXT, time_created INTEGER, data TEXT);
         INSERT INTO session VALUES ('ses_a', NULL, 1, 2);",
    )
    .expect("schema");
    // An exclusive transaction holds the lock until the end of the test.
    conn.execute_batch("PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; INSERT INTO session VALUES ('ses_b', NULL, 3, 4);")
        .expect("lock");
    let found = discover(std::slice::from_ref(&path)).expect("discover");
    assert!(found.sessions.is_empty());
    let message = &found.diagnostics[0].message;
    assert!(
        message.starts_with(
            "OpenCode database not read: database is locked (another process holds it)"
        ),
        "{message}"
    );
    drop(conn);
}

#[test]
fn a_json_part_file_that_is_not_json_is_a_diagnostic_with_its_path() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let st = tmp.path().join("storage");
    let w = |rel: &str, text: &str| {
        let p = st.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
        p
    };
    w(
        "session/proj/ses_x.json",
        r#"{"id":"ses_x","title":"t","directory":"/w","version":"1.1.0","time":{"created":1,"updated":2}}"#,
    );
    w(
        "message/ses_x/msg_1.json",
        r#"{"id":"msg_1","sessionID":"ses_x","role":"user","time":{"created":1}}"#,
    );
    w(
        "part/msg_1/prt_1.json",
        r#"{"id":"prt_1","messageID":"msg_1","type":"text","text":"hello"}"#,
    );
    w(
        "message/ses_x/msg_2.json",
        r#"{"id":"msg_2","sessionID":"ses_x","role":"assistant","time":{"created":2},"tokens":{"input":5,"output":1,"reasoning":0,"cache":{"read":0,"write":0}}}"#,
    );
    let bad = w("part/msg_2/prt_2.json", "this is not json");
    w(
        "part/msg_2/prt_3.json",
        r#"{"id":"prt_3","messageID":"msg_2","type":"tool","tool":"read","callID":"c1","state":{"status":"completed","input":{"filePath":"/w/a"},"output":"x"}}"#,
    );
    let sessions = load_all(&[tmp.path().to_path_buf()]);
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(s.prompt_turns(), 1);
    assert_eq!(s.tool_calls().count(), 1);
    assert_eq!(s.usage, usage(5, 1, 0, 0));
    assert_eq!(s.diagnostics.len(), 1, "{:?}", s.diagnostics);
    assert_eq!(s.diagnostics[0].path, bad);
    assert!(
        s.diagnostics[0]
            .message
            .starts_with("OpenCode record is not valid JSON"),
        "{}",
        s.diagnostics[0].message
    );
}

#[test]
fn the_cache_estimate_counts_record_ids() {
    let sessions = load_all(&[db()]);
    let s = by_id(&sessions, "ses_dcc9cb767ffeMSF13zG4UDjOLz");
    assert!(!s.lines.records.is_empty());
    let mut without = s.clone();
    without.lines.records.clear();
    let ids: usize = s.lines.records.iter().map(|r| r.len() + 24).sum();
    assert_eq!(
        hookscope_core::transcript::cache::estimated_size(s),
        hookscope_core::transcript::cache::estimated_size(&without) + ids
    );
}

#[test]
fn opencode_snapshot_folders_are_not_walked() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let oc = tmp.path().join("opencode");
    // A db inside snapshot/ (git object stores) would be a second listing.
    std::fs::create_dir_all(oc.join("snapshot/abc")).expect("mkdir");
    copy_db(&oc.join("snapshot/abc"));
    copy_db(&oc);
    let found = discover(&[tmp.path().to_path_buf()]).expect("discover");
    assert_eq!(found.sessions.len(), 5);
    assert!(
        found
            .sessions
            .iter()
            .all(|s| s.path == oc.join("opencode.db"))
    );
}

#[test]
fn cli_find_task_spawns_carry_their_child_sessions_cost() {
    let db = db();
    let db = db.to_string_lossy();
    let records = find_json(&[db.as_ref(), "--tool-name", "task", "--with-subagent-cost"]);
    // python3: each child session's assistant tokens summed
    // (input + output + reasoning + cache.read + cache.write).
    let mut got: Vec<(String, u64)> = records
        .iter()
        .map(|r| {
            (
                r["subagent"]["child_uuid"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
                r["subagent"]["tokens"]["total"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            (
                "ses_dcc9c82a4ffe72DBNelwOper4n".to_string(),
                1541 + 50 + 4623
            ),
            (
                "ses_dcc9c82c9ffewf5QuZOTauBG6n".to_string(),
                4603 + 76 + 13802
            ),
            (
                "ses_dcc9c863cffegH7meAapimtQq1".to_string(),
                2348 + 71 + 7038
            ),
        ]
    );
}

#[test]
fn a_wal_mode_db_without_wal_or_shm_is_read_immutable_and_untouched() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("opencode.db");
    let conn = rusqlite::Connection::open(&path).expect("open");
    conn.execute_batch(
        "PRAGMA journal_mode=WAL;
         CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, title TEXT, time_created INTEGER, time_updated INTEGER);
         CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);
         CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, time_created INTEGER, data TEXT);
         INSERT INTO session VALUES ('ses_a', NULL, 'a', 1, 2);",
    )
    .expect("rows");
    drop(conn); // the last connection checkpoints and removes -wal and -shm
    let names = || {
        let mut n: Vec<_> = std::fs::read_dir(tmp.path())
            .expect("ls")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(), ["opencode.db"]);
    let sessions = load_all(std::slice::from_ref(&path));
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].title.as_deref(), Some("a"));
    // No -shm or -wal was made beside it.
    assert_eq!(names(), ["opencode.db"]);
}

/// A connection kept between loads (`opencode_sqlite::idle_max`) is not
/// reused once the database changed: an `immutable=1` one (a WAL-mode
/// database without `-wal`) would read its old pages.
#[test]
fn a_kept_connection_is_not_reused_after_the_database_changes() {
    use hookscope_core::transcript::opencode_sqlite::load_session;
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("opencode.db");
    let write = |sql: &str| {
        let conn = rusqlite::Connection::open(&path).expect("open");
        conn.execute_batch(sql).expect("write");
        // The last connection checkpoints and removes -wal and -shm.
        drop(conn);
    };
    write(
        "PRAGMA journal_mode=WAL;
         CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, title TEXT, time_created INTEGER, time_updated INTEGER);
         CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);
         CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, time_created INTEGER, data TEXT);
         INSERT INTO session VALUES ('ses_a', NULL, 'first', 1, 2);",
    );
    let title = || {
        load_session(&path, "ses_a")
            .unwrap_or_else(|e| panic!("{e}"))
            .title
    };
    assert_eq!(title().as_deref(), Some("first"));
    // Kept, and reused while nothing changes.
    assert_eq!(title().as_deref(), Some("first"));
    write("UPDATE session SET title = 'second' WHERE id = 'ses_a';");
    assert_eq!(title().as_deref(), Some("second"));
    // The file replaced by another (a new inode) is read anew too.
    let other = tmp.path().join("other.db");
    std::fs::copy(&path, &other).expect("copy");
    {
        let conn = rusqlite::Connection::open(&other).expect("open");
        conn.execute_batch("UPDATE session SET title = 'third' WHERE id = 'ses_a';")
            .expect("write");
    }
    std::fs::rename(&other, &path).expect("rename");
    assert_eq!(title().as_deref(), Some("third"));
}

/// Loading one session of each of many databases in turn keeps a
/// connection to each, up to `opencode_sqlite::idle_max` (an eighth of
/// the open-file limit): the second round reuses them, on the same
/// descriptors (a database not in WAL mode holds one).
#[cfg(target_os = "linux")]
#[test]
fn a_connection_is_kept_per_database_up_to_the_limit() {
    use hookscope_core::transcript::opencode_sqlite::{idle_max, load_session};
    let tmp = tempfile::tempdir().expect("tempdir");
    // More than the old fixed 32, and room left for the other tests'
    // databases in the shared pool.
    let n = idle_max().saturating_sub(8).min(100);
    let paths: Vec<PathBuf> = (0..n)
        .map(|i| {
            let path = tmp.path().join(format!("oc{i}.db"));
            let conn = rusqlite::Connection::open(&path).expect("open");
            conn.execute_batch(&format!(
                "CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, title TEXT, time_created INTEGER, time_updated INTEGER);
                 CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);
                 CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, time_created INTEGER, data TEXT);
                 INSERT INTO session VALUES ('ses_a', NULL, 'db {i}', 1, 2);"
            ))
            .expect("write");
            path
        })
        .collect();
    // (descriptor, file) of every descriptor open on those files.
    let open_here = || {
        let mut open: Vec<(String, PathBuf)> = std::fs::read_dir("/proc/self/fd")
            .expect("fds")
            .filter_map(|e| {
                let e = e.ok()?;
                let target = std::fs::read_link(e.path()).ok()?;
                target
                    .starts_with(tmp.path())
                    .then(|| (e.file_name().to_string_lossy().into_owned(), target))
            })
            .collect();
        open.sort();
        open
    };
    let mut rounds = Vec::new();
    for round in 0..2 {
        for (i, path) in paths.iter().enumerate() {
            let session = load_session(path, "ses_a").unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(session.title, Some(format!("db {i}")), "round {round}");
        }
        let open = open_here();
        assert_eq!(open.len(), n, "round {round}");
        rounds.push(open);
    }
    assert_eq!(rounds[0], rounds[1]);
}

#[test]
fn find_table_summarizes_edit_calls_by_their_file_path() {
    // OpenCode's edit input is `{filePath, oldString, newString}` (camel
    // case): the table's INPUT column names the file, as for Claude Code's
    // `file_path`, instead of printing the JSON.
    let db = db();
    let out = hookscope()
        .args(["find", "--tool-name", "edit", "--limit", "10"])
        .arg(&db)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("edit")).collect();
    // python3: the store's two `edit` parts (callID, state.input.filePath).
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows.iter()
            .any(|r| r.contains("call_ZR8Qvg") && r.ends_with("/home/dev/work/oc-tools/notes.txt")),
        "{text}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("call_KTHo2p") && r.ends_with("/home/dev/work/oc-tools/hello.py")),
        "{text}"
    );
    assert!(!text.contains("{\"filePath\""), "{text}");
}

#[test]
fn show_gives_a_call_without_a_summary_field_its_input() {
    // The `invalid` part of the legacy store's errors session (the model
    // called an unavailable tool) and the `read` part without a `filePath`:
    // no field a summary reads applies, so `show` prints their input (python3:
    // `state.input` of the two parts) rather than an empty column.
    let out = hookscope()
        .args(["show", "ses_dcc99ad7affeKUPQJdBSv0mTjD"])
        .arg(storage())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|l| l.trim_start().starts_with(
            "other  invalid  {\"tool\":\"frobnicate\",\"error\":\"Model tried to call unavailable tool 'frobnicate'."
        )),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.trim() == "read   read ✗  {\"offset\":3}  [call_J9m89naYCJrIM9KELpVNsZnG]"),
        "{text}"
    );
}
