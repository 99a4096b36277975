//! The CLI's use of the persisted index ([`hookscope::index`]): opening it
//! (unless `--no-index` or `HOOKSCOPE_NO_INDEX=1`), bringing it up to date
//! with a progress bar on a terminal, and the notices on stderr.
//!
//! `HOOKSCOPE_INDEX_STATS=1` prints one line on stderr after the command,
//! `hookscope-index-stats: {"sync": {…SyncStats}, "bytes_read": N,
//! "in_memory": bool}`, for tests and benchmarks (`bytes_read` counts every
//! transcript byte read through the index, including text-filter reads).

use std::io::IsTerminal;

use hookscope::index::{Index, Progress, SyncStats, Synced, default_dir, disabled_by_env};
use hookscope::transcript::SessionRef;

/// The index to use, or `None` to work without one (`no_index`, the
/// environment, no home folder, SQLite unusable; the last two say so on
/// stderr). Prints the index's notices (rebuilt, in memory) one a line.
pub fn open(no_index: bool) -> Option<Index> {
    if no_index || disabled_by_env() {
        return None;
    }
    let Some(dir) = default_dir() else {
        errln!(
            "hookscope: no cache folder (neither XDG_CACHE_HOME nor a home folder); working without an index"
        );
        return None;
    };
    match Index::open(&dir) {
        Ok(index) => {
            for n in index.notices() {
                errln!("hookscope: {n}");
            }
            Some(index)
        }
        Err(e) => {
            errln!("hookscope: cannot open an index ({e}); working without one");
            None
        }
    }
}

/// [`Index::sync`] with a progress bar on stderr when it is a terminal and
/// there is something to index; prints notices added on the way.
pub fn sync(index: &mut Index, sessions: &[SessionRef]) -> Synced {
    let known = index.notices().len();
    let terminal = std::io::stderr().is_terminal();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut progress = |p: Progress| {
        if !terminal || p.total == 0 {
            return;
        }
        let bar = bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new(p.bytes_total);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "indexing {msg} [{bar:30}] {binary_bytes}/{binary_total_bytes} ({eta})",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        });
        bar.set_position(p.bytes_done);
        bar.set_message(format!("{}/{} sessions", p.done, p.total));
    };
    let synced = index.sync(sessions, &mut progress);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    for n in index.notices().iter().skip(known) {
        errln!("hookscope: {n}");
    }
    synced
}

/// The `HOOKSCOPE_INDEX_STATS` line (see the module doc).
pub fn report(index: &Index, stats: &SyncStats) {
    if std::env::var_os("HOOKSCOPE_INDEX_STATS").is_none_or(|v| v.is_empty() || v == "0") {
        return;
    }
    let line = serde_json::json!({
        "sync": stats,
        "bytes_read": index.bytes_read(),
        "in_memory": index.file().is_none(),
    });
    errln!("hookscope-index-stats: {line}");
}
