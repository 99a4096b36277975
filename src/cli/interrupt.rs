//! Ctrl-C, SIGTERM and SIGHUP while `replay --exec` runs hooks
//! (docs/security.md "Running hooks"): the hooks' process groups and the
//! processes that left them are killed, the temporary folders removed
//! ([`hookscope_core::hooks::exec::reaper::abort_runs`]), then hookscope ends as
//! the signal's default action ends it (the shell sees 130, 143 or 129).

use std::sync::Once;

/// Registers for SIGINT, SIGTERM and SIGHUP; a failure is said on stderr
/// (`None`: an interrupt then ends hookscope without the cleanup).
fn watch() -> Option<signal_hook::iterator::Signals> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(s) => Some(s),
        Err(e) => {
            errln!(
                "hookscope: cannot watch for Ctrl-C ({e}); an interrupt may leave a hook running"
            );
            None
        }
    }
}

/// Installs the handler (once per process; later calls do nothing). Call
/// before the first hook runs. A failure to register is said on stderr and
/// the run goes on (an interrupt then ends hookscope without the cleanup).
pub fn end_runs_on_signal() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let Some(mut signals) = watch() else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let ended = hookscope_core::hooks::exec::reaper::abort_runs();
                let name = match signal {
                    SIGINT => "Ctrl-C",
                    SIGTERM => "SIGTERM",
                    _ => "SIGHUP",
                };
                errln!(
                    "hookscope: {name}: killed {} running hook{} and what {} started, removed {} temporary folder{}; nothing was reported",
                    ended.runs,
                    if ended.runs == 1 { "" } else { "s" },
                    if ended.runs == 1 { "it" } else { "they" },
                    ended.folders,
                    if ended.folders == 1 { "" } else { "s" },
                );
                // Default action: the process ends by the signal.
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
    });
}

/// On a terminal, one stderr line before `n` handlers run (the report
/// comes when the last ends, up to its timeout): that they are running and
/// that Ctrl-C stops them. Nothing when stderr is not a terminal.
pub fn say_running(n: usize) {
    use std::io::IsTerminal;
    if n > 0 && std::io::stderr().is_terminal() {
        errln!(
            "hookscope: running {n} hook handler{}… (Ctrl-C kills {} and reports nothing)",
            if n == 1 { "" } else { "s" },
            if n == 1 { "it" } else { "them" }
        );
    }
}

/// Ctrl-C, SIGTERM and SIGHUP while `replay --all --exec` runs hooks over
/// many events: the first signal sets `cancel` (no new event starts), kills
/// every running hook's group (and keeps killing any that starts until
/// `done` is set, so none outlives the walk) and says so; the walk then
/// reports what completed. A second signal ends hookscope at once, as
/// [`end_runs_on_signal`] does. Installed once per process. Call
/// [`wait_for_stop_note`] before the report, so that the stderr line comes
/// before the process can end.
pub fn stop_runs_on_signal(
    cancel: &'static std::sync::atomic::AtomicBool,
    done: &'static std::sync::atomic::AtomicBool,
) {
    use std::sync::atomic::Ordering;
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let Some(mut signals) = watch() else {
            return;
        };
        std::thread::spawn(move || {
            let mut seen = signals.forever();
            if seen.next().is_none() {
                return;
            }
            cancel.store(true, Ordering::SeqCst);
            let ended = hookscope_core::hooks::exec::reaper::abort_runs();
            errln!(
                "\nhookscope: stopping: killed {} running hook{}; no new event starts (again to quit at once)",
                ended.runs,
                if ended.runs == 1 { "" } else { "s" },
            );
            STOP_SAID.store(true, Ordering::SeqCst);
            // Runs that were starting as the signal came are killed too.
            std::thread::spawn(move || {
                while !done.load(Ordering::SeqCst) {
                    let _ = hookscope_core::hooks::exec::reaper::abort_runs();
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
            });
            if let Some(again) = seen.next() {
                let _ = hookscope_core::hooks::exec::reaper::abort_runs();
                let _ = signal_hook::low_level::emulate_default_handler(again);
                std::process::exit(128 + again);
            }
        });
    });
}

/// Set once [`stop_runs_on_signal`]'s thread has said on stderr that it
/// stopped the runs.
static STOP_SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// After a walk [`stop_runs_on_signal`] watched: when `cancel` is set (a
/// signal came), waits (at most 2 s) until its thread has said so on
/// stderr. Its kills end the runs at once, so the walk can finish and the
/// process end before the line is written.
pub fn wait_for_stop_note(cancel: &std::sync::atomic::AtomicBool) {
    use std::sync::atomic::Ordering;
    if !cancel.load(Ordering::SeqCst) {
        return;
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while !STOP_SAID.load(Ordering::SeqCst) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
