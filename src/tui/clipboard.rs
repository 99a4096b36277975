//! The TUI's clipboard (`y`/`Y` in the replay pane): one system clipboard
//! kept alive for the whole run ([`arboard::Clipboard`], created lazily on
//! the first copy: on X11 the copied text lives only as long as its owner),
//! and OSC 52 through crossterm ([`crossterm::clipboard::CopyToClipboard`])
//! when there is no display, over SSH, or when arboard fails. Behind the
//! [`Clipboard`] trait so tests capture what was copied ([`Captured`]).

#[cfg(test)]
use std::sync::{Arc, Mutex};

/// Somewhere text can be copied to.
pub trait Clipboard: std::fmt::Debug {
    /// Copies `text`; returns how (`"the system clipboard"`, `"OSC 52"`).
    ///
    /// # Errors
    /// Why nothing could be copied (every way failed).
    fn copy(&mut self, text: &str) -> Result<&'static str, String>;
}

/// Whether a system clipboard can be reached from here: not over SSH
/// (`SSH_TTY`/`SSH_CONNECTION` set: the display is the far end's), and on
/// Linux/BSD only with `$DISPLAY` or `$WAYLAND_DISPLAY`.
pub fn system_reachable(var: impl Fn(&str) -> Option<String>) -> bool {
    let set = |k: &str| var(k).is_some_and(|v| !v.is_empty());
    if set("SSH_TTY") || set("SSH_CONNECTION") {
        return false;
    }
    if cfg!(any(target_os = "macos", target_os = "windows")) {
        return true;
    }
    set("DISPLAY") || set("WAYLAND_DISPLAY")
}

/// The real clipboard: arboard when a display is reachable, else (or when
/// arboard fails) OSC 52 written to the terminal.
#[derive(Default)]
pub struct SystemClipboard {
    /// The system clipboard, once created (kept for the whole run).
    board: Option<arboard::Clipboard>,
    /// Set once arboard failed to start (not retried on every copy).
    board_failed: bool,
}

impl std::fmt::Debug for SystemClipboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SystemClipboard")
            .field("board", &self.board.is_some())
            .field("board_failed", &self.board_failed)
            .finish()
    }
}

impl SystemClipboard {
    fn osc52(text: &str) -> Result<&'static str, String> {
        use std::io::Write;
        let mut out = std::io::stdout();
        crossterm::execute!(
            out,
            crossterm::clipboard::CopyToClipboard::to_clipboard_from(text)
        )
        .and_then(|()| out.flush())
        .map_err(|e| format!("OSC 52 failed: {e}"))?;
        Ok("OSC 52")
    }
}

impl Clipboard for SystemClipboard {
    fn copy(&mut self, text: &str) -> Result<&'static str, String> {
        if !system_reachable(|k| std::env::var(k).ok()) || self.board_failed {
            return Self::osc52(text);
        }
        if self.board.is_none() {
            match arboard::Clipboard::new() {
                Ok(b) => self.board = Some(b),
                Err(_) => {
                    self.board_failed = true;
                    return Self::osc52(text);
                }
            }
        }
        match self.board.as_mut().map(|b| b.set_text(text.to_string())) {
            Some(Ok(())) => Ok("the system clipboard"),
            _ => Self::osc52(text),
        }
    }
}

#[cfg(test)]
/// A clipboard that keeps what was copied (tests; the shared list can be
/// read after the app took the clipboard).
#[derive(Debug, Clone, Default)]
pub struct Captured {
    /// Every text copied, in order.
    pub copied: Arc<Mutex<Vec<String>>>,
}

#[cfg(test)]
impl Clipboard for Captured {
    fn copy(&mut self, text: &str) -> Result<&'static str, String> {
        self.copied
            .lock()
            .map_err(|_| "clipboard lock poisoned".to_string())?
            .push(text.to_string());
        Ok("test clipboard")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssh_or_no_display_goes_to_osc52() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert!(!system_reachable(env(&[
            ("DISPLAY", ":0"),
            ("SSH_TTY", "/dev/pts/1")
        ])));
        if cfg!(target_os = "linux") {
            assert!(!system_reachable(env(&[])));
            assert!(!system_reachable(env(&[("DISPLAY", "")])));
            assert!(system_reachable(env(&[("WAYLAND_DISPLAY", "wayland-0")])));
            assert!(system_reachable(env(&[("DISPLAY", ":0")])));
        }
    }
}
