//! The CLI's use of the service layer's index ([`hookscope_core::service`]):
//! a [`Library`] with the persisted index (unless `--no-index` or
//! `HOOKSCOPE_NO_INDEX=1`), a progress bar on a terminal while it syncs,
//! and its notices on stderr.
//!
//! `HOOKSCOPE_INDEX_STATS=1` prints one line on stderr after the command,
//! `hookscope-index-stats: {"sync": {…SyncStats}, "bytes_read": N,
//! "in_memory": bool}`, for tests and benchmarks (`bytes_read` counts every
//! transcript byte read through the index, including text-filter reads).

use std::io::IsTerminal;
use std::path::PathBuf;

use hookscope_core::index::{Progress, SyncStats};
use hookscope_core::service::Library;

/// The sessions under `paths` with the index unless `no_index`; the
/// index's notices (rebuilt, in memory, why there is none) are printed.
pub fn library(paths: &[PathBuf], no_index: bool) -> Library {
    let library = Library::new(paths).with_default_index(no_index);
    notices(&library);
    library
}

/// Prints the library's notices gathered since the last call, one a line.
pub fn notices(library: &Library) {
    for n in library.take_notices() {
        errln!("hookscope: {n}");
    }
}

/// Runs `f` with a progress callback that draws a bar on stderr when it is
/// a terminal and the sync has something to index; the bar is cleared and
/// the notices the sync added printed afterwards.
pub fn with_progress<R>(library: &Library, f: impl FnOnce(&mut dyn FnMut(Progress)) -> R) -> R {
    let terminal = std::io::stderr().is_terminal();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut said = false;
    let mut said_waiting = false;
    let mut eta_shown = false;
    let mut progress = |p: Progress| {
        if p.waiting && !said_waiting && !terminal && p.bytes_total >= QUIET_SYNC_MAX {
            said_waiting = true;
            errln!("{}", waiting_notice(&p));
        }
        if !terminal {
            // No bar off a terminal: one line when the sync is long enough
            // to be taken for a hang.
            if !said && !p.waiting && p.bytes_total >= QUIET_SYNC_MAX {
                said = true;
                errln!("{}", sync_notice(&p));
            }
            return;
        }
        if p.total == 0 {
            return;
        }
        let message = if p.making_indexes {
            format!("{} sessions indexed; sorting the call indexes…", p.total)
        } else if p.waiting {
            format!("another hookscope indexes: {}/{}", p.done, p.total)
        } else {
            format!("indexing {}/{} sessions", p.done, p.total)
        };
        // The message is set before the bar is first drawn: its first frame
        // says what it counts.
        let bar = bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new(p.bytes_total).with_message(message.clone());
            set_bar_style(&bar, false);
            bar
        });
        bar.set_message(message);
        // After a wait the sync plans again: fewer sessions may be left.
        bar.set_length(p.bytes_total);
        // The time left is shown once some bytes are done: before, it
        // reads `(0s)`. While the call indexes are sorted, the message
        // alone (the bytes are all done; no time left is known).
        if p.making_indexes {
            if let Ok(style) = indicatif::ProgressStyle::with_template("{msg}") {
                bar.set_style(style);
            }
        } else if p.bytes_done > 0 && !eta_shown {
            eta_shown = true;
            set_bar_style(bar, true);
        }
        bar.set_position(p.bytes_done);
    };
    let out = f(&mut progress);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    notices(library);
    out
}

/// The progress bar's style: `{msg} [{bar}] done/total`, with the time
/// left when `eta`; the bar takes the columns the rest of the line leaves,
/// so the line fits the terminal (80 columns included) and never wraps.
fn set_bar_style(bar: &indicatif::ProgressBar, eta: bool) {
    let template = if eta {
        "{msg} [{wide_bar}] {binary_bytes}/{binary_total_bytes} ({eta} left)"
    } else {
        "{msg} [{wide_bar}] {binary_bytes}/{binary_total_bytes}"
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
}

/// The most transcript bytes a sync indexes without a word when stderr is
/// not a terminal (64 MiB, a few seconds): past it, [`sync_notice`] says
/// what the wait is.
pub const QUIET_SYNC_MAX: u64 = 64 << 20;

/// The line a long sync prints off a terminal: `hookscope: indexing 8,794
/// sessions (4.37 GiB) before answering; later questions reuse the index`.
fn sync_notice(p: &Progress) -> String {
    format!(
        "hookscope: indexing {} session{} ({}) before answering; later questions reuse the index",
        crate::words::thousands(p.total),
        if p.total == 1 { "" } else { "s" },
        indicatif::BinaryBytes(p.bytes_total)
    )
}

/// The line a sync prints off a terminal when another process is indexing
/// the same sessions: `hookscope: another hookscope process is indexing
/// these sessions (12 of 855 done); waiting for it, then reusing its
/// work`.
fn waiting_notice(p: &Progress) -> String {
    format!(
        "hookscope: another hookscope process is indexing these sessions ({} of {} done); waiting for it, then reusing its work",
        crate::words::thousands(p.done),
        crate::words::thousands(p.total)
    )
}

/// The `HOOKSCOPE_INDEX_STATS` line (see the module doc), when the
/// variable is set and the question used the index.
pub fn report(library: &Library, stats: Option<&SyncStats>) {
    if std::env::var_os("HOOKSCOPE_INDEX_STATS").is_none_or(|v| v.is_empty() || v == "0") {
        return;
    }
    if let Some(line) = stats.and_then(|s| library.index_stats(s)) {
        errln!("hookscope-index-stats: {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_sync_off_a_terminal_says_what_the_wait_is() {
        let p = Progress {
            done: 0,
            total: 8794,
            bytes_done: 0,
            bytes_total: 4_692_000_000,
            waiting: false,
            making_indexes: false,
        };
        assert_eq!(
            sync_notice(&p),
            "hookscope: indexing 8,794 sessions (4.37 GiB) before answering; later questions reuse the index"
        );
        assert!(p.bytes_total >= QUIET_SYNC_MAX);
        let waiting = Progress {
            done: 12,
            waiting: true,
            ..p
        };
        assert_eq!(
            waiting_notice(&waiting),
            "hookscope: another hookscope process is indexing these sessions (12 of 8,794 done); waiting for it, then reusing its work"
        );
    }
}
