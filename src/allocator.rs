//! The binary's memory allocator: mimalloc, with memory it no longer uses
//! given back to the system after 100 ms (docs/benchmarks.md, "The
//! allocator").
//!
//! Loading a session and building the index allocate a `serde_json::Value`
//! tree per transcript line and free it soon after: many small nodes, on
//! every core. mimalloc does that 20–35% faster than the system allocator
//! on the heavy corpus. Its default purge delay (1 s in mimalloc 3) lets
//! freed pages of a loaded session linger while the next one is loaded,
//! which raised the backtest's peak RSS by about 100 MB; 100 ms gives most
//! of that back at no measured cost.

/// Every allocation of the binary goes through mimalloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` of mimalloc's `mi_option_e` (`mimalloc.h`, the
/// same place in mimalloc 2 and 3): the milliseconds before freed memory is
/// given back to the system. The `-sys` crate names no constant for it.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The purge delay hookscope runs with, in milliseconds.
const PURGE_DELAY_MS: std::ffi::c_long = 100;

/// Sets mimalloc's options; called first thing in `main`. A user's own
/// `MIMALLOC_PURGE_DELAY` is left in force.
pub fn configure() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: `mi_option_set` takes any option number and value; it only
    // stores the value, which mimalloc reads on its next purge.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number is the purge delay's: before `configure`, it reads
    /// mimalloc 3's documented default (1000 ms), and afterwards 100.
    #[test]
    fn the_purge_delay_is_the_option_set() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reading an option has no precondition.
        let before = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(before, 1000);
        configure();
        // SAFETY: as above.
        let after = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(after, PURGE_DELAY_MS);
    }
}
