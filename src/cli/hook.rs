//! `hookscope hook --rules FILE`: the live hook. Reads one payload on
//! stdin, evaluates it with the rule set (the evaluator `replay` and `test`
//! use), prints what the agent's hook contract expects, logs the decision
//! and exits (docs/live-hook.md). The core is `hooks::live` and
//! `hooks::decisions`; this module reads stdin, keeps the time budget and
//! writes the answer.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use hookscope_core::hooks::decisions;
use hookscope_core::hooks::live::{self, Decision, HookAgent, MAX_PAYLOAD_BYTES, OnError};
use hookscope_core::hooks::rules::History;
use serde_json::Value;

/// The long help of `hookscope hook`.
pub const LONG_ABOUT: &str = "\
Run a rule set as a hook: read one payload on stdin, answer as the agent's
hook contract expects (stdout JSON and exit code), log the decision.

In .claude/settings.json (hookscope hooks --install prints this for you):

  {\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [
    {\"type\": \"command\", \"command\": \"hookscope hook --rules /home/you/rules.toml\"}]}]}}

The rules are evaluated exactly as `hookscope test` and `hookscope replay`
evaluate them. When the hook cannot decide (the rule file does not load, the
payload does not parse, the time budget runs out) it answers --on-error:
allow (exit 0, nothing on stdout; the default, as Claude Code fails open) or
block (exit 2, the reason on stderr). An argument error exits 1, which
Claude Code reports without blocking.

Each decision is appended to $HOOKSCOPE_DECISIONS_DIR/YYYY-MM-DD.jsonl, else
$XDG_STATE_HOME/hookscope/decisions/ (else ~/.local/state/…): the rules that matched with their
whys, the output sent, the time taken. `hookscope hooks --decisions` lists
them; the TUI marks the calls they decided (§). Details: docs/live-hook.md.";

/// Arguments of `hookscope hook`.
#[derive(clap::Args, Debug)]
pub struct HookArgs {
    /// The rule file (TOML; `hookscope test --example` prints one).
    #[arg(long, value_name = "FILE")]
    pub rules: PathBuf,
    /// Whose hook contract to answer in: claude-code, droid (Droid reads
    /// Claude Code's output JSON) or codex (Codex's own: no allow without
    /// updatedInput, a block always with a reason).
    #[arg(long, default_value = "claude-code", value_parser = parse_hook_agent)]
    pub agent: HookAgent,
    /// What to answer when the hook cannot decide: allow (exit 0) or block
    /// (exit 2 with the reason on stderr).
    #[arg(long = "on-error", default_value = "allow", value_parser = parse_on_error)]
    pub on_error: OnError,
    /// The time budget in milliseconds, from reading stdin to the answer;
    /// past it the hook answers --on-error.
    #[arg(long = "timeout-ms", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub timeout_ms: u64,
    /// Do not write the decision log. (The rule cache, one small file per
    /// rule-file text that loaded whole, in $XDG_STATE_HOME/hookscope/rules,
    /// is still kept: docs/live-hook.md#the-rule-cache.)
    #[arg(long)]
    pub no_log: bool,
    /// The decision log's folder, an absolute path (default:
    /// $XDG_STATE_HOME/hookscope/decisions, else
    /// ~/.local/state/hookscope/decisions). `hooks --decisions --log-dir
    /// DIR` reads it back.
    #[arg(long = "log-dir", value_name = "DIR", value_parser = absolute_dir)]
    pub log_dir: Option<PathBuf>,
}

/// `--log-dir`'s parser: an absolute path (a hook runs in each session's
/// folder, where a relative one would scatter the log).
pub fn absolute_dir(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    if path.is_absolute() {
        Ok(path)
    } else {
        Err(format!(
            "{text:?} is not an absolute path (a hook runs in each session's folder)"
        ))
    }
}

fn parse_hook_agent(name: &str) -> Result<HookAgent, String> {
    HookAgent::from_name(name)
        .ok_or_else(|| format!("unknown agent {name:?}: claude-code, droid or codex"))
}

fn parse_on_error(name: &str) -> Result<OnError, String> {
    match name {
        "allow" => Ok(OnError::Allow),
        "block" => Ok(OnError::Block),
        _ => Err(format!("{name:?}: allow or block")),
    }
}

/// What the worker hands back: the decision, the parsed payload, the rule
/// file's hash.
type Worked = (Decision, Option<Arc<Value>>, Option<String>);

/// The worker's messages: the payload once parsed (so a decision the
/// budget cuts short is still logged with its session and event), then the
/// decision.
enum Step {
    Parsed(Arc<Value>),
    Done(Box<Worked>),
}

/// Runs the subcommand and exits with the decision's status.
pub fn run(args: &HookArgs) -> ! {
    let started = Instant::now();
    let time = chrono::Utc::now();
    let budget = Duration::from_millis(args.timeout_ms);
    let (tx, rx) = mpsc::channel::<Step>();
    let rules = args.rules.clone();
    let (agent, mode) = (args.agent, args.on_error);
    // Reading stdin, parsing and deciding run on their own thread, so the
    // budget holds whatever they do (a writer that keeps stdin open too);
    // past it the process answers and exits, which ends the thread.
    let spawned = std::thread::Builder::new()
        .name("hookscope-hook".into())
        .spawn(move || work(&rules, agent, mode, &tx));
    let mut payload: Option<Arc<Value>> = None;
    let (decision, payload, hash) = match spawned {
        Err(e) => (
            live::failed_on(mode, None, &format!("cannot start: {e}")),
            None,
            None,
        ),
        Ok(_) => loop {
            match rx.recv_timeout(budget.saturating_sub(started.elapsed())) {
                Ok(Step::Parsed(p)) => payload = Some(p),
                Ok(Step::Done(worked)) => break *worked,
                Err(_) => {
                    let why = format!(
                        "no decision within the time budget of {} ms",
                        args.timeout_ms
                    );
                    break (
                        live::failed_on(mode, payload.as_deref(), &why),
                        payload,
                        None,
                    );
                }
            }
        },
    };
    let mut stderr = decision.stderr.clone();
    if !args.no_log {
        // The log names the rule file absolutely: hooks run in each
        // session's folder, and a reader of the log checks the file again.
        let rules_path = std::fs::canonicalize(&args.rules).unwrap_or_else(|_| args.rules.clone());
        let dir = args.log_dir.clone().or_else(decisions::default_dir);
        let logged = match dir {
            None => Err("no state folder (neither XDG_STATE_HOME nor a home folder)".to_string()),
            Some(dir) => {
                let entry = decisions::entry(
                    &decision,
                    &decisions::Context {
                        time,
                        agent: args.agent,
                        payload: payload.as_deref(),
                        rules_path: &rules_path,
                        rules_hash: hash.as_deref(),
                        duration: started.elapsed(),
                    },
                );
                decisions::append(
                    &dir,
                    time,
                    &decisions::line_of(&entry),
                    decisions::MAX_TOTAL_BYTES,
                )
                .map_err(|e| format!("{}: {e}", dir.display()))
            }
        };
        if let Err(e) = logged {
            let e = live::one_line(&e);
            stderr.push_str(&format!("hookscope hook: decision not logged: {e}\n"));
        }
    }
    // One write each; a closed stdout or stderr (EPIPE) changes nothing:
    // the exit status still carries the decision.
    let _ = std::io::stdout()
        .lock()
        .write_all(decision.stdout.as_bytes());
    let _ = std::io::stdout().lock().flush();
    let _ = std::io::stderr().lock().write_all(stderr.as_bytes());
    std::process::exit(decision.exit_code)
}

/// Reads stdin whole, up to [`MAX_PAYLOAD_BYTES`].
fn read_stdin() -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_PAYLOAD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
        return Err(format!(
            "the payload is over {} MiB",
            MAX_PAYLOAD_BYTES >> 20
        ));
    }
    Ok(bytes)
}

/// Reads stdin, parses the payload (sent as [`Step::Parsed`]), loads the
/// rules, reads the history when a rule on its event needs it, and decides
/// (sent as [`Step::Done`]); any failure answers `mode`.
fn work(rules: &std::path::Path, agent: HookAgent, mode: OnError, tx: &mpsc::Sender<Step>) {
    let done = |w: Worked| {
        let _ = tx.send(Step::Done(Box::new(w)));
    };
    let bytes = match read_stdin() {
        Ok(b) => b,
        Err(why) => return done((live::failed_on(mode, None, &why), None, None)),
    };
    decide_bytes(rules, agent, mode, tx, bytes, false);
}

/// [`work`] after stdin was read: parses `bytes` (nested up to 128
/// levels, or with `deep` up to `live::MAX_PAYLOAD_DEPTH`), then decides.
/// A payload past 128 levels moves to a thread with the stack it needs.
fn decide_bytes(
    rules: &std::path::Path,
    agent: HookAgent,
    mode: OnError,
    tx: &mpsc::Sender<Step>,
    bytes: Vec<u8>,
    deep: bool,
) {
    let done = |w: Worked| {
        let _ = tx.send(Step::Done(Box::new(w)));
    };
    let parsed = if deep {
        live::parse_deep_payload(&bytes)
    } else {
        live::parse_payload(&bytes)
    };
    // What reading the payload had to repair decides whether an approving
    // answer may go out.
    let (payload, fixes) = match parsed {
        Ok((p, fixes)) => (Arc::new(p), fixes),
        Err(why) if !deep && why == live::TOO_DEEP_FOR_THE_STACK => {
            let (rules, tx_deep) = (rules.to_path_buf(), tx.clone());
            let spawned = std::thread::Builder::new()
                .name("hookscope-hook-deep".into())
                .stack_size(live::PAYLOAD_STACK_BYTES)
                .spawn(move || decide_bytes(&rules, agent, mode, &tx_deep, bytes, true));
            if let Err(e) = spawned {
                done((
                    live::failed_on(mode, None, &format!("cannot start: {e}")),
                    None,
                    None,
                ));
            }
            return;
        }
        Err(why) => return done((live::failed_on(mode, None, &why), None, None)),
    };
    drop(bytes);
    let _ = tx.send(Step::Parsed(Arc::clone(&payload)));
    let fail = |why: &str| live::failed_on(mode, Some(&payload), why);
    let (hash, set) = match live::load_rules_cached(rules, live::rule_cache_dir().as_deref()) {
        (hash, Ok(set)) => (hash, set),
        (hash, Err(why)) => return done((fail(&why), Some(payload.clone()), hash)),
    };
    let history = match live::history_wanted(&set, &payload) {
        None => History::default(),
        Some(want) => match live::history_of(&payload, want) {
            Ok(h) => h,
            Err(why) => return done((fail(&why), Some(payload.clone()), hash)),
        },
    };
    let mut decision = live::decide_as(agent, &set, &payload, &history);
    live::withhold_approval(&mut decision, &fixes);
    done((decision, Some(payload), hash));
}
