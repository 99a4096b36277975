//! Terminal setup and teardown: raw mode + alternate screen (via
//! `ratatui::init`, whose panic hook restores the terminal and chains to the
//! previous hook), mouse capture, a [`TerminalGuard`] that restores on drop,
//! and a SIGTERM/SIGHUP flag so the loop can leave and restore cleanly.

use std::io::{self, stdout};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

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
        let _ = execute!(stdout(), DisableMouseCapture);
        previous(info);
    }));
    execute!(stdout(), EnableMouseCapture)?;
    Ok((terminal, guard))
}

/// Leaves the alternate screen and raw mode and turns mouse capture off.
/// Safe to call more than once.
pub fn restore() {
    let _ = execute!(stdout(), DisableMouseCapture);
    ratatui::restore();
}

/// A flag set when SIGTERM or SIGHUP arrives; the event loop checks it and
/// leaves, so the terminal is restored.
///
/// # Errors
/// When the signal handlers cannot be registered.
pub fn termination_flag() -> io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGTERM, Arc::clone(&flag))?;
    signal_hook::flag::register(signal_hook::consts::SIGHUP, Arc::clone(&flag))?;
    Ok(flag)
}
