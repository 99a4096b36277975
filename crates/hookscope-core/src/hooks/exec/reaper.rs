//! What a hook run leaves behind, found and ended: processes that left the
//! hook's process group, and the temporary folders of a run when hookscope
//! itself is interrupted (docs/security.md "Running hooks").
//!
//! A handler runs in its own process group, killed whole when its run ends
//! ([`super::ProcessRunner`]). A process it starts in a new session or group
//! (`setsid`, `set -m`, a daemon that double-forks) leaves that group. On
//! Linux, hookscope marks itself a child subreaper
//! (`prctl(PR_SET_CHILD_SUBREAPER)`) before its first run, so such a
//! process, orphaned when the hook exits, becomes hookscope's child rather
//! than init's. While a hook runs its descendants are followed through
//! `/proc/<pid>/stat` (every [`POLL`]); when the run ends, every one still
//! alive is killed (SIGKILL) and reaped, and the run's notes name them. A
//! process that was born and orphaned between two looks is still found:
//! a child of hookscope outside hookscope's process group, born after the
//! hook, is an orphan the hook left (hookscope starts nothing else outside
//! its group but the hooks themselves, which are known). Elsewhere than Linux a
//! process that leaves the group cannot be followed; the docs say so.
//!
//! [`abort_runs`] is for an interrupted hookscope (Ctrl-C, SIGTERM, SIGHUP,
//! quitting the TUI while a hook runs): it kills every live run's group and
//! followed processes and removes the folders registered with
//! [`register_temporary`] (the `--exec` scratch folders, which hold the
//! `CLAUDE_ENV_FILE`s).
//!
//! Bounds: at most [`MAX_FOLLOWED`] processes followed per run; a look
//! reads at most [`MAX_SCANNED`] `/proc` entries.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How often a running hook's descendants are looked for (20 ms).
pub const POLL: Duration = Duration::from_millis(20);

/// Most processes followed per run (a fork bomb is not followed further).
pub const MAX_FOLLOWED: usize = 4096;

/// Most `/proc` entries read per look.
pub const MAX_SCANNED: usize = 200_000;

/// One process as `/proc/<pid>/stat` gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Proc {
    pub pid: i32,
    pub ppid: i32,
    pub pgrp: i32,
    pub session: i32,
    /// Start time in clock ticks after boot (field 22): with `pid`, the
    /// process's identity (pids are reused).
    pub start: u64,
    /// State `Z`: exited, not yet reaped.
    pub zombie: bool,
    /// The program name (field 2, at most 15 bytes, as the kernel keeps it).
    pub comm: String,
}

/// Parses one `/proc/<pid>/stat` line. The name (field 2) is in
/// parentheses and may hold spaces and `)`: the fields after it are read
/// from the last `)`. `None` when the line does not have that shape.
pub(crate) fn parse_stat(line: &str) -> Option<Proc> {
    let open = line.find('(')?;
    let close = line.rfind(')')?;
    if close < open {
        return None;
    }
    let pid = line[..open].trim().parse().ok()?;
    let comm = line[open + 1..close].to_string();
    // Fields 3.. : state ppid pgrp session tty_nr tpgid flags minflt
    // cminflt majflt cmajflt utime stime cutime cstime priority nice
    // num_threads itrealvalue starttime …
    let rest: Vec<&str> = line[close + 1..].split_ascii_whitespace().collect();
    let state = *rest.first()?;
    Some(Proc {
        pid,
        ppid: rest.get(1)?.parse().ok()?,
        pgrp: rest.get(2)?.parse().ok()?,
        session: rest.get(3)?.parse().ok()?,
        start: rest.get(19)?.parse().ok()?,
        zombie: state == "Z" || state == "X",
        comm,
    })
}

/// Every process `/proc` lists (Linux); empty elsewhere or when `/proc`
/// cannot be read.
pub(crate) fn scan() -> Vec<Proc> {
    let mut out = Vec::new();
    if !cfg!(target_os = "linux") {
        return out;
    }
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten().take(MAX_SCANNED) {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if let Some(p) = read_proc(pid) {
            out.push(p);
        }
    }
    out
}

/// `/proc/<pid>/stat` of one process, when it exists.
pub(crate) fn read_proc(pid: i32) -> Option<Proc> {
    // The file is a few hundred bytes; a cap keeps a strange /proc bounded.
    use std::io::Read;
    let file = std::fs::File::open(format!("/proc/{pid}/stat")).ok()?;
    let mut text = String::new();
    file.take(4096).read_to_string(&mut text).ok()?;
    parse_stat(&text)
}

/// A run hookscope has started and not finished: what [`abort_runs`]
/// kills.
#[derive(Debug)]
struct Live {
    id: u64,
    /// The hook's pid, which is its process group's id.
    pgid: i32,
    /// Processes followed so far: pid → start time.
    followed: Vec<(i32, u64)>,
}

static LIVE: Mutex<Vec<Live>> = Mutex::new(Vec::new());
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Held from a hook's spawn until it is registered as live, and while a
/// run's end looks for hookscope's orphans: a child spawned but not yet
/// registered would otherwise look like one (and be killed and reaped, so
/// its own run could not wait for it).
pub(crate) fn spawn_guard() -> std::sync::MutexGuard<'static, ()> {
    static SPAWNING: Mutex<()> = Mutex::new(());
    SPAWNING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn live() -> std::sync::MutexGuard<'static, Vec<Live>> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn temporaries() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    TEMPORARIES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Marks this process a child subreaper (Linux, once). `false` where that
/// is not possible.
fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        static DONE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *DONE.get_or_init(|| {
            // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes an integer
            // argument and touches no memory of ours.
            unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Makes sure processes orphaned by a run come to this process (Linux);
/// call before spawning the first hook. Returns whether they will.
pub(crate) fn prepare() -> bool {
    become_subreaper()
}

/// Follows one running hook's descendants (see the module docs).
#[derive(Debug)]
pub(crate) struct Follow {
    id: u64,
    root: i32,
    root_start: u64,
    own_pid: i32,
    own_pgrp: i32,
    followed: HashMap<i32, u64>,
    /// Whether the follow is possible here (Linux, subreaper set).
    able: bool,
    /// Processes outside the hook's group killed at the timeout
    /// ([`Follow::kill_followed`]), named in [`Follow::finish`]'s notes.
    killed_early: Vec<Proc>,
}

impl Follow {
    /// Starts following the hook `root` (its pid, also its group's id),
    /// registered as live for [`abort_runs`].
    pub(crate) fn start(root: i32, able: bool) -> Follow {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let own_pid = i32::try_from(std::process::id()).unwrap_or(0);
        let own_pgrp = if able {
            read_proc(own_pid).map_or(0, |p| p.pgrp)
        } else {
            0
        };
        let root_start = if able {
            read_proc(root).map_or(0, |p| p.start)
        } else {
            0
        };
        live().push(Live {
            id,
            pgid: root,
            followed: Vec::new(),
        });
        let mut f = Follow {
            id,
            root,
            root_start,
            own_pid,
            own_pgrp,
            followed: HashMap::new(),
            able,
            killed_early: Vec::new(),
        };
        f.poll();
        f
    }

    /// One look at `/proc`: every process whose parent is the hook or a
    /// followed process, or that is in the hook's group, born after the
    /// hook, is followed from now on.
    pub(crate) fn poll(&mut self) {
        if !self.able {
            return;
        }
        let procs = scan();
        self.extend(&procs);
    }

    fn extend(&mut self, procs: &[Proc]) {
        loop {
            let mut grew = false;
            for p in procs {
                if p.pid == self.root || p.start < self.root_start {
                    continue;
                }
                if self.followed.get(&p.pid) == Some(&p.start) {
                    continue;
                }
                let parent_followed = p.ppid == self.root || self.followed.contains_key(&p.ppid);
                if (parent_followed || p.pgrp == self.root) && self.followed.len() < MAX_FOLLOWED {
                    self.followed.insert(p.pid, p.start);
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let list: Vec<(i32, u64)> = self.followed.iter().map(|(p, s)| (*p, *s)).collect();
        if let Some(l) = live().iter_mut().find(|l| l.id == self.id) {
            l.followed = list;
        }
    }

    /// Kills every followed process still alive (and the hook's group);
    /// used at the timeout, so that pipes held by an escaped process close.
    pub(crate) fn kill_followed(&mut self) {
        self.poll();
        kill_group(self.root);
        if !self.able {
            return;
        }
        for p in scan() {
            if self.followed.get(&p.pid) == Some(&p.start) && !p.zombie {
                kill_pid(p.pid);
                if p.pgrp != self.root {
                    self.killed_early.push(p);
                }
            }
        }
    }

    /// The end of a run: the hook's group is killed; every followed
    /// process still alive outside it (and every orphan of this process
    /// the hook left, see the module docs) is killed and reaped. Returns
    /// the notes for the run: which processes escaped the group, and any
    /// that could not be killed.
    pub(crate) fn finish(mut self) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.able {
            return notes;
        }
        // No hook is between its spawn and its registration while this
        // looks for orphans (`alone` below would count it as one).
        let _spawning = spawn_guard();
        let procs = scan();
        self.extend(&procs);
        let alone = live().len() == 1;
        let early = std::mem::take(&mut self.killed_early);
        let mut escaped: Vec<&Proc> = early.iter().collect();
        for p in &procs {
            if p.pid == self.root || p.zombie || p.start < self.root_start {
                continue;
            }
            let followed = self.followed.get(&p.pid) == Some(&p.start);
            // Born and orphaned between two looks: this process's own
            // child outside its group (so not one it started itself: hooks
            // run in groups of their own), when no other run could have
            // left it.
            let orphan = alone && p.ppid == self.own_pid && p.pgrp != self.own_pgrp;
            if (followed || orphan)
                && p.pgrp != self.root
                && !escaped.iter().any(|e| e.pid == p.pid && e.start == p.start)
            {
                escaped.push(p);
            }
            if orphan && !followed && self.followed.len() < MAX_FOLLOWED {
                self.followed.insert(p.pid, p.start);
            }
        }
        kill_group(self.root);
        let mut refused = Vec::new();
        for p in &escaped {
            let alive = read_proc(p.pid).is_some_and(|now| now.start == p.start && !now.zombie);
            if alive && !kill_pid(p.pid) {
                refused.push(*p);
            }
        }
        let named = |list: &[&Proc]| -> String {
            let mut names: Vec<String> = list
                .iter()
                .take(8)
                .map(|p| format!("pid {} ({})", p.pid, p.comm))
                .collect();
            if list.len() > 8 {
                names.push(format!("and {} more", list.len() - 8));
            }
            names.join(", ")
        };
        let (one, it) = (
            escaped.len() == 1,
            if escaped.len() == 1 { "it" } else { "them" },
        );
        if !escaped.is_empty() {
            notes.push(format!(
                "{} process{} it started left its process group (setsid, a daemon) and {} still running when its run ended: {}; hookscope killed {it} (Claude Code would leave {it} running)",
                escaped.len(),
                if one { "" } else { "es" },
                if one { "was" } else { "were" },
                named(&escaped),
            ));
        }
        if !refused.is_empty() {
            notes.push(format!(
                "hookscope could not kill {} of them (permission denied): {} still running",
                named(&refused),
                if refused.len() == 1 {
                    "it is"
                } else {
                    "they are"
                },
            ));
        }
        self.reap();
        notes
    }

    /// Reaps the followed processes that became this process's children
    /// (zombies once killed), waiting at most one second for them.
    fn reap(&self) {
        if self.followed.is_empty() {
            return;
        }
        for _ in 0..50 {
            let mut waiting = false;
            for p in scan() {
                if self.followed.get(&p.pid) != Some(&p.start) {
                    continue;
                }
                if p.ppid == self.own_pid {
                    if !p.zombie {
                        waiting = true;
                        continue;
                    }
                    reap_pid(p.pid);
                } else {
                    // Its parent (a followed process) is dying; it comes
                    // to this process next.
                    waiting = true;
                }
            }
            if !waiting {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        live().retain(|l| l.id != self.id);
    }
}

/// SIGKILL to every process of group `pgid` (never to pgid 0 or 1, which
/// would be this process's own group or init).
pub(crate) fn kill_group(pgid: i32) {
    #[cfg(unix)]
    if pgid > 1 {
        // SAFETY: kill(2) with a negative pid signals a process group; no
        // memory is involved.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// SIGKILL to one process; `false` when it was refused (EPERM).
fn kill_pid(pid: i32) -> bool {
    #[cfg(unix)]
    if pid > 1 {
        // SAFETY: kill(2) on one pid; no memory is involved.
        let r = unsafe { libc::kill(pid, libc::SIGKILL) };
        return r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EPERM);
    }
    true
}

/// Collects one exited child's status (never blocks; never pid ≤ 0).
fn reap_pid(pid: i32) {
    #[cfg(unix)]
    if pid > 1 {
        let mut status = 0;
        // SAFETY: waitpid on one pid with WNOHANG writes only `status`.
        unsafe {
            libc::waitpid(pid, &mut status, libc::WNOHANG);
        }
    }
}

/// Registers a folder to remove if hookscope is interrupted
/// ([`abort_runs`]); [`unregister_temporary`] when it is removed normally.
pub fn register_temporary(path: &Path) {
    temporaries().push(path.to_path_buf());
}

/// Forgets a folder registered with [`register_temporary`].
pub fn unregister_temporary(path: &Path) {
    temporaries().retain(|p| p != path);
}

/// What [`abort_runs`] ended: hook runs in progress and temporary
/// folders removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Aborted {
    /// Runs whose process group (and followed processes) got SIGKILL.
    pub runs: usize,
    /// Temporary folders removed.
    pub folders: usize,
}

/// Ends every hook run in progress and removes the registered temporary
/// folders: for an interrupted hookscope (Ctrl-C, SIGTERM, SIGHUP, the TUI
/// quitting while a hook runs). Each live run's process group and the
/// processes followed outside it get SIGKILL. Safe to call from any
/// thread, any number of times; the runs themselves then end as killed.
pub fn abort_runs() -> Aborted {
    let runs: Vec<(i32, Vec<(i32, u64)>)> = live()
        .iter()
        .map(|l| (l.pgid, l.followed.clone()))
        .collect();
    if !runs.is_empty() {
        // Who to kill is read before anything dies (a descendant's parent
        // link is lost once its parent is gone); the groups go first, in
        // one signal each, so a hook's shell is killed rather than seeing
        // its child die and exiting 137 on its own; then the processes
        // outside the groups.
        let doomed = doomed(&runs, &scan());
        for (pgid, _) in &runs {
            kill_group(*pgid);
        }
        for pid in doomed {
            kill_pid(pid);
        }
    }
    let folders: Vec<PathBuf> = std::mem::take(&mut *temporaries());
    let mut removed = 0;
    for f in &folders {
        if std::fs::remove_dir_all(f).is_ok() {
            removed += 1;
        }
    }
    Aborted {
        runs: runs.len(),
        folders: removed,
    }
}

/// What [`abort_runs`] kills besides the runs' groups, from one look at
/// `procs`: the processes followed so far, every descendant of a run's
/// hook or of a followed process (also those not looked at yet), and this
/// process's children outside its own group (orphans a hook left).
fn doomed(runs: &[(i32, Vec<(i32, u64)>)], procs: &[Proc]) -> Vec<i32> {
    let own_pid = i32::try_from(std::process::id()).unwrap_or(0);
    let own_pgrp = procs
        .iter()
        .find(|p| p.pid == own_pid)
        .map_or(0, |p| p.pgrp);
    let mut marked: std::collections::HashSet<i32> = std::collections::HashSet::new();
    for (root, followed) in runs {
        marked.insert(*root);
        for (pid, start) in followed {
            if procs.iter().any(|p| p.pid == *pid && p.start == *start) {
                marked.insert(*pid);
            }
        }
    }
    loop {
        let mut grew = false;
        for p in procs {
            if p.pid == own_pid || p.zombie || marked.contains(&p.pid) {
                continue;
            }
            let orphan = p.ppid == own_pid && own_pgrp != 0 && p.pgrp != own_pgrp;
            if marked.contains(&p.ppid) || orphan {
                marked.insert(p.pid);
                grew = true;
            }
        }
        if !grew || marked.len() > MAX_FOLLOWED * 4 {
            break;
        }
    }
    marked.retain(|pid| *pid != own_pid && *pid > 1);
    marked.into_iter().collect()
}

/// How many hook runs are in progress (for a shell deciding whether a
/// quit must end them first).
pub fn live_runs() -> usize {
    live().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_with_spaces_and_parentheses_in_the_name_parses() {
        let line = "4242 (my (odd) prog) S 4000 4242 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 987654 1000 200";
        let p = parse_stat(line).expect("parses");
        assert_eq!(p.pid, 4242);
        assert_eq!(p.comm, "my (odd) prog");
        assert_eq!(p.ppid, 4000);
        assert_eq!(p.pgrp, 4242);
        assert_eq!(p.session, 4242);
        assert_eq!(p.start, 987_654);
        assert!(!p.zombie);
        let z = parse_stat("7 (x) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0").expect("z");
        assert!(z.zombie);
        assert_eq!(z.start, 55);
    }

    #[test]
    fn a_short_or_shapeless_stat_line_is_none() {
        assert_eq!(parse_stat(""), None);
        assert_eq!(parse_stat("12 (x) S 1 2"), None);
        assert_eq!(parse_stat("12 x) S ("), None);
        assert_eq!(
            parse_stat("ab (x) S 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 9"),
            None
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_is_in_the_scan() {
        let own = i32::try_from(std::process::id()).expect("pid");
        assert!(scan().iter().any(|p| p.pid == own));
        assert_eq!(read_proc(own).map(|p| p.pid), Some(own));
    }
}
