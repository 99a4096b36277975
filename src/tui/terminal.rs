//! Terminal setup and teardown: raw mode + alternate screen (via
//! `ratatui::init`, whose panic hook restores the terminal and chains to the
//! previous hook), mouse capture, a [`TerminalGuard`] that restores on drop,
//! and a SIGTERM/SIGHUP flag so the loop can leave and restore cleanly (with a
//! watcher that exits if the loop is stuck on a hung-up terminal).

use std::io::{self, stdout};
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use ratatui::DefaultTerminal;

/// Restores the terminal when dropped (normal exit, `?` errors).
pub struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Enters raw mode and the alternate screen, enables mouse capture and
/// installs a chaining panic hook that restores the terminal first.
///
/// # Errors
/// When the terminal cannot be put in raw mode or written to.
pub fn init() -> io::Result<(DefaultTerminal, TerminalGuard)> {
    // ratatui::try_init installs its own chaining hook (restore, then the
    // previous hook); ours runs before it to turn mouse capture off too.
    let terminal = ratatui::try_init()?;
    let guard = TerminalGuard;
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = hookscope_core::hooks::exec::reaper::abort_runs();
        let _ = execute!(stdout(), DisableMouseCapture);
        previous(info);
    }));
    execute!(stdout(), EnableMouseCapture)?;
    Ok((terminal, guard))
}

/// Leaves the alternate screen and raw mode and turns mouse capture off,
/// and ends any hook the exec dialog is running (its process group, the
/// processes that left it, its temporary folder:
/// [`hookscope_core::hooks::exec::reaper::abort_runs`]), on every way out of
/// the TUI. Safe to call more than once.
pub fn restore() {
    let _ = hookscope_core::hooks::exec::reaper::abort_runs();
    let _ = execute!(stdout(), DisableMouseCapture);
    ratatui::restore();
}

/// The number of the SIGTERM or SIGHUP that arrived (0 until one does); the
/// event loop checks it, leaves, restores the terminal and exits with
/// [`exit_status`]: 0 for SIGTERM (a polite request to quit, as `q`), 129
/// for SIGHUP (the terminal is gone), whether it was idle or busy.
///
/// A watcher thread also guards against a loop that cannot leave: when the
/// terminal has hung up (its tmux or ssh session killed), crossterm's read of
/// the closed tty returns 0 bytes forever inside `event::poll`, so the loop
/// never gets to check the flag and the process would spin at full CPU. If the
/// process is still alive 500 ms after the signal, the watcher restores the
/// terminal (best effort) and exits with the same [`exit_status`].
///
/// # Errors
/// When the signal handlers cannot be registered.
pub fn termination_flag() -> io::Result<Arc<AtomicI32>> {
    use signal_hook::consts::{SIGHUP, SIGTERM};
    let flag = Arc::new(AtomicI32::new(0));
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP])?;
    let watched = Arc::clone(&flag);
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            watched.store(signal, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(500));
            restore();
            std::process::exit(exit_status(signal));
        }
    });
    watch_the_tty(Arc::clone(&flag));
    Ok(flag)
}

/// The terminal the TUI reads: standard input when it is one, else
/// `/dev/tty` (crossterm's choice). `None` when there is none.
fn tty_fd() -> Option<i32> {
    // SAFETY: isatty and open take a descriptor or a C string and touch no
    // memory of ours.
    unsafe {
        if libc::isatty(libc::STDIN_FILENO) == 1 {
            return Some(libc::STDIN_FILENO);
        }
        let fd = libc::open(c"/dev/tty".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        (fd >= 0).then_some(fd)
    }
}

/// Whether `fd` is still a terminal: a hung-up terminal (its tmux server
/// or ssh connection gone) answers `EIO` to every terminal request.
pub fn is_terminal(fd: i32) -> bool {
    // SAFETY: isatty reads no memory of ours.
    unsafe { libc::isatty(fd) == 1 }
}

/// A second guard for a terminal that goes away without a SIGHUP reaching
/// the process (seen once: a TUI left spinning after its tmux server died):
/// once a second, a thread checks that the terminal is still one; when it
/// is not, it sets the flag as a SIGHUP would, gives the loop 500 ms, then
/// restores what it can and exits 129.
fn watch_the_tty(flag: Arc<AtomicI32>) {
    let Some(fd) = tty_fd() else {
        return;
    };
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_secs(1));
            if !is_terminal(fd) {
                let hup = signal_hook::consts::SIGHUP;
                flag.store(hup, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(500));
                restore();
                std::process::exit(exit_status(hup));
            }
        }
    });
}

/// The exit status after `signal`: 0 for SIGTERM (the TUI exits 0
/// on SIGTERM, busy or idle), 128 + the number for anything else (129 for
/// SIGHUP).
pub fn exit_status(signal: i32) -> i32 {
    if signal == signal_hook::consts::SIGTERM {
        0
    } else {
        128 + signal
    }
}

#[cfg(test)]
mod tests {
    use super::{exit_status, is_terminal};

    #[test]
    fn a_file_or_a_closed_descriptor_is_no_terminal() {
        let file = std::fs::File::open("Cargo.toml").expect("open");
        use std::os::fd::AsRawFd;
        assert!(!is_terminal(file.as_raw_fd()));
        assert!(!is_terminal(-1));
    }

    #[test]
    fn sigterm_exits_0_and_sighup_129() {
        assert_eq!(exit_status(signal_hook::consts::SIGTERM), 0);
        assert_eq!(exit_status(signal_hook::consts::SIGHUP), 129);
    }
}
