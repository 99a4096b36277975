//! [`ProcessRunner`]: runs a [`RunSpec`] as a real process (unix).
//!
//! The child gets exactly `spec.env` (nothing inherited), `spec.cwd`, the
//! payload on stdin, and its own process group (`process_group(0)`), so a
//! timeout kills the hook **and everything it started** with one
//! `kill(-pgid, SIGKILL)`. stdout and stderr are read on their own threads
//! and kept up to [`OUTPUT_CAP`] bytes each; the rest is read and dropped
//! (so a chatty hook never blocks on a full pipe) and counted.
//!
//! The run ends when the process has exited **and** both pipes are closed,
//! or at the deadline (`timeout_secs` after the spawn), whichever is first.
//! At the deadline the group is killed: [`RunStatus::TimedOut`] when the
//! hook itself had not exited; when it had exited but a child of it kept
//! the pipes open, its exit status stands and a note says so. After every
//! run the group is killed if anything is left in it (a background child),
//! with a note: replaying a hook leaves nothing running. Processes that
//! leave the group (`setsid`, a daemon) are followed and killed too, on
//! Linux ([`super::reaper`]), and named in the notes.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::reaper::kill_group;
use super::sandbox::Confinement;
use super::{RunOutput, RunSpec, RunStatus, Runner, classify_shell_launch};

/// Most bytes of stdout, and of stderr, kept per handler (1 MiB each); the
/// rest is read, dropped and counted ([`RunOutput::stdout_dropped`]).
pub const OUTPUT_CAP: usize = 1024 * 1024;

/// Longest timeout honoured, in seconds (one day): larger values (and
/// non-finite ones) are clamped so a deadline can always be computed.
pub const MAX_TIMEOUT_SECS: f64 = 86_400.0;

/// Runs handlers as real processes (see the module docs). Stateless.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessRunner;

impl Runner for ProcessRunner {
    fn run(&self, spec: &RunSpec, stdin: &[u8]) -> RunOutput {
        if let super::HandlerCommand::Http { url, headers } = &spec.command {
            return super::http::post(url, headers, spec.timeout_secs, stdin);
        }
        run_process(spec, stdin, Confinement::default())
    }
}

/// [`ProcessRunner`] with each command handler confined as `how` says
/// ([`super::sandbox`]; docs/security.md#running-hooks): in a network
/// namespace of its own, and writing only beneath its spec's
/// [`RunSpec::write_root`]. An http handler is still POSTed by hookscope
/// itself. Check [`super::no_network_available`] and
/// [`super::write_confinement_available`] first: where the kernel refuses,
/// every hook would fail to start (a launch failure that says why, never
/// an unconfined run).
#[derive(Debug, Clone, Copy, Default)]
pub struct SandboxRunner {
    /// What each command handler is confined to.
    pub how: Confinement,
}

impl Runner for SandboxRunner {
    fn run(&self, spec: &RunSpec, stdin: &[u8]) -> RunOutput {
        if let super::HandlerCommand::Http { url, headers } = &spec.command {
            return super::http::post(url, headers, spec.timeout_secs, stdin);
        }
        run_process(spec, stdin, self.how)
    }
}

/// `timeout_secs` as a [`Duration`]: negative, NaN → 0; over
/// [`MAX_TIMEOUT_SECS`] (or infinite) → that maximum.
pub fn timeout_duration(timeout_secs: f64) -> Duration {
    let secs = if timeout_secs.is_nan() || timeout_secs < 0.0 {
        0.0
    } else {
        timeout_secs.min(MAX_TIMEOUT_SECS)
    };
    Duration::from_secs_f64(secs)
}

fn launch_failed(reason: String, started: Instant) -> RunOutput {
    RunOutput {
        status: RunStatus::LaunchFailed {
            reason,
            exit_code: None,
        },
        stdout: Vec::new(),
        stderr: Vec::new(),
        stdout_dropped: 0,
        stderr_dropped: 0,
        duration_ms: elapsed_ms(started),
        notes: Vec::new(),
    }
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Why `program` could not be started, in plain words (docs/contract.md#exit-codes-and-stdout:
/// not found, not executable, bad interpreter).
fn launch_reason(program: &Path, err: &std::io::Error, cwd: &Path) -> String {
    let shown = program.display();
    match err.kind() {
        std::io::ErrorKind::NotFound => {
            // execve says ENOENT both for a missing program and for a
            // script whose `#!` interpreter is missing.
            let resolved = if program.is_absolute() || program.components().count() > 1 {
                Some(cwd.join(program))
            } else {
                None
            };
            match resolved {
                Some(p) if p.is_file() => format!(
                    "bad interpreter: {shown} exists but the program on its `#!` line was not found"
                ),
                _ => format!("not found: {shown}"),
            }
        }
        std::io::ErrorKind::PermissionDenied => {
            format!("not executable: {shown} (permission denied)")
        }
        _ => match err.raw_os_error() {
            Some(code) if code == libc::ENOEXEC => {
                format!("bad interpreter: {shown} is not a binary and has no `#!` line")
            }
            _ => format!("cannot start {shown}: {err}"),
        },
    }
}

#[cfg(unix)]
fn run_process(spec: &RunSpec, stdin: &[u8], how: Confinement) -> RunOutput {
    use std::os::unix::process::{CommandExt, ExitStatusExt};

    let started = Instant::now();
    let argv = spec.argv();
    let Some((program, args)) = argv.split_first() else {
        return launch_failed("empty command".into(), started);
    };
    if !spec.cwd.is_dir() {
        return launch_failed(
            format!("the working folder {} does not exist", spec.cwd.display()),
            started,
        );
    }
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .envs(spec.env.iter().map(|v| (&v.name, &v.value)))
        .current_dir(&spec.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let _confined = match super::sandbox::apply(&mut cmd, spec.write_root.as_deref(), how) {
        Ok(kept) => kept,
        Err(reason) => return launch_failed(reason, started),
    };
    let able = super::reaper::prepare();
    // Spawned and registered as live under one lock, so another run's end
    // never takes this hook for an orphan of hookscope's (`Follow::finish`).
    let spawning = super::reaper::spawn_guard();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            drop(spawning);
            return launch_failed(launch_reason(Path::new(program), &e, &spec.cwd), started);
        }
    };
    let deadline = started + timeout_duration(spec.timeout_secs);
    let pgid = i32::try_from(child.id()).unwrap_or(0);
    let mut follow = super::reaper::Follow::start(pgid, able);
    drop(spawning);

    let (tx, rx) = mpsc::channel::<Event>();
    if let Some(mut pipe) = child.stdin.take() {
        let data = stdin.to_vec();
        std::thread::spawn(move || {
            // A hook that does not read its stdin closes the pipe: EPIPE is
            // expected and not an error of the hook.
            let _ = pipe.write_all(&data);
        });
    }
    let mut readers = 0;
    if let Some(pipe) = child.stdout.take() {
        readers += 1;
        spawn_reader(pipe, Stream::Stdout, tx.clone());
    }
    if let Some(pipe) = child.stderr.take() {
        readers += 1;
        spawn_reader(pipe, Stream::Stderr, tx.clone());
    }
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let status = child.wait();
            let _ = tx.send(Event::Exited(status));
        });
    }
    drop(tx);

    let mut out = RunOutput {
        status: RunStatus::TimedOut,
        stdout: Vec::new(),
        stderr: Vec::new(),
        stdout_dropped: 0,
        stderr_dropped: 0,
        duration_ms: 0,
        notes: Vec::new(),
    };
    let mut exited: Option<std::io::Result<std::process::ExitStatus>> = None;
    let mut open_pipes = readers;
    let mut killed = false;
    let mut hook_timed_out = false;
    while exited.is_none() || open_pipes > 0 {
        let now = Instant::now();
        let wait = if killed {
            // After SIGKILL everything ends promptly; wait without a deadline
            // but not forever (a process in uninterruptible sleep).
            Duration::from_secs(5)
        } else if able {
            // Look for the hook's descendants while it runs.
            deadline
                .saturating_duration_since(now)
                .min(super::reaper::POLL)
        } else {
            deadline.saturating_duration_since(now)
        };
        match rx.recv_timeout(wait) {
            Ok(Event::Exited(s)) => exited = Some(s),
            Ok(Event::Data(which, bytes)) => {
                let (kept, dropped) = match which {
                    Stream::Stdout => (&mut out.stdout, &mut out.stdout_dropped),
                    Stream::Stderr => (&mut out.stderr, &mut out.stderr_dropped),
                };
                let room = OUTPUT_CAP.saturating_sub(kept.len());
                let take = bytes.len().min(room);
                kept.extend_from_slice(&bytes[..take]);
                *dropped += (bytes.len() - take) as u64;
            }
            Ok(Event::Eof) => open_pipes -= 1,
            Err(mpsc::RecvTimeoutError::Timeout) if !killed && Instant::now() < deadline => {
                follow.poll();
            }
            Err(mpsc::RecvTimeoutError::Timeout) if !killed => {
                follow.kill_followed();
                killed = true;
                hook_timed_out = exited.is_none();
                out.duration_ms = elapsed_ms(started);
                if !hook_timed_out {
                    out.notes.push(format!(
                        "it exited, but a process it started kept its stdout/stderr open until the {}s timeout; its process group was killed",
                        spec.timeout_secs
                    ));
                }
            }
            Err(_) => {
                out.notes.push(if exited.is_some() && open_pipes > 0 {
                    "a process it started left its process group (setsid or a daemon) and still holds its stdout/stderr open: hookscope could not kill it, and reads what the hook wrote before that".into()
                } else {
                    "the process did not end within 5 s of SIGKILL; its output may be incomplete"
                        .to_string()
                });
                break;
            }
        }
    }
    if !killed {
        out.duration_ms = elapsed_ms(started);
    }
    let leftover = group_alive(pgid);
    if leftover {
        kill_group(pgid);
        if !killed {
            out.notes.push(
                "processes it started were still running after it finished; hookscope killed its process group (Claude Code would leave them running)".into(),
            );
        }
    }
    out.notes.extend(follow.finish());
    out.status = match exited {
        _ if hook_timed_out => RunStatus::TimedOut,
        Some(Ok(status)) => match status.code() {
            Some(code) => RunStatus::Exited { code },
            None => RunStatus::Signaled {
                signal: status.signal().unwrap_or(0),
            },
        },
        Some(Err(e)) => RunStatus::LaunchFailed {
            reason: format!("could not wait for the process: {e}"),
            exit_code: None,
        },
        None => RunStatus::TimedOut,
    };
    classify_shell_launch(spec, &mut out);
    if how.confine_writes
        && spec.write_root.is_some()
        && super::sandbox::says_permission_denied(&out.stderr)
    {
        out.notes
            .push(super::sandbox::WRITE_REFUSED_NOTE.to_string());
    }
    out
}

#[cfg(not(unix))]
fn run_process(_spec: &RunSpec, _stdin: &[u8], _how: Confinement) -> RunOutput {
    launch_failed(
        "running hooks is supported on unix only".into(),
        Instant::now(),
    )
}

#[derive(Debug, Clone, Copy)]
enum Stream {
    Stdout,
    Stderr,
}

enum Event {
    Exited(std::io::Result<std::process::ExitStatus>),
    /// Bytes read from a pipe, sent as they arrive: what a hook printed is
    /// kept even when a process it started holds the pipe open past the
    /// run (the verdict follows the bytes read).
    Data(Stream, Vec<u8>),
    /// A pipe reached EOF (or failed).
    Eof,
}

fn spawn_reader<R: Read + Send + 'static>(mut pipe: R, which: Stream, tx: mpsc::Sender<Event>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if tx.send(Event::Data(which, buf[..n].to_vec())).is_err() {
                        // The run is over; the rest is not wanted.
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = tx.send(Event::Eof);
    });
}

/// Whether any process is left in group `pgid` (a zombie still counts
/// until it is reaped).
#[cfg(unix)]
fn group_alive(pgid: i32) -> bool {
    if pgid <= 1 {
        return false;
    }
    // SAFETY: signal 0 only checks for existence and permission.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

/// Replaces each `${NAME}` whose NAME is in `env` by its value (exec form
/// has no shell to do it; docs/contract.md#where-hooks-are-configured's example passes
/// `${CLAUDE_PROJECT_DIR}` in `args`). Unknown names stay as written.
pub fn substitute(text: &str, env: &[(String, std::ffi::OsString)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                match env.iter().find(|(k, _)| k == name) {
                    Some((_, v)) => out.push_str(&v.to_string_lossy()),
                    None => {
                        out.push_str("${");
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}
