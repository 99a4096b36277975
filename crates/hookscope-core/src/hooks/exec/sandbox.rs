//! What a replayed hook may touch: no network, and writes confined to its
//! event's temporary folder (docs/security.md#running-hooks).
//!
//! Both are applied in the child between `fork` and `exec`, so they hold
//! for the hook **and everything it starts**:
//! - **no network**: `unshare(CLONE_NEWNET)` (with `CLONE_NEWUSER` when
//!   not root): the hook sees a loopback interface only, down.
//! - **writes confined** (Linux Landlock, ABI 3 or later, best effort
//!   below): creating, writing, truncating, renaming or removing files is
//!   allowed only beneath [`RunSpec::write_root`] and on `/dev/null`.
//!   Reading and executing stay allowed everywhere, so a hook reads its
//!   script, its interpreter and the files it inspects as it would under
//!   the agent. `no_new_privs` is set as Landlock requires: a set-user-ID
//!   program (`sudo`) gains nothing.
//!
//! The ruleset is built in the parent (it allocates and opens paths); the
//! child only makes two system calls, which are async-signal-safe.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::process::{Command, Stdio};

#[cfg(doc)]
use super::RunSpec;

/// What confinement a run asks for ([`super::SandboxRunner`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Confinement {
    /// Each command handler in a network namespace of its own.
    pub no_network: bool,
    /// Writes only beneath the spec's [`RunSpec::write_root`] (a spec
    /// without one runs unconfined: the session's real folders).
    pub confine_writes: bool,
}

/// The note a confined run carries when its stderr says a permission was
/// denied (`Permission denied`, `EACCES`, `Operation not permitted`): the
/// refusal may be the confinement's, not the hook's own answer.
pub const WRITE_REFUSED_NOTE: &str = "its stderr says a permission was denied while its writes were confined to its temporary folder: a refused write may have changed its answer (compare with --write-anywhere)";

/// Whether `stderr` says a permission was denied (see
/// [`WRITE_REFUSED_NOTE`]); case-insensitive.
pub fn says_permission_denied(stderr: &[u8]) -> bool {
    let lower = stderr.to_ascii_lowercase();
    ["permission denied", "eacces", "operation not permitted"]
        .iter()
        .any(|w| memchr::memmem::find(&lower, w.as_bytes()).is_some())
}

/// What must be kept alive until the child has been spawned (the Landlock
/// ruleset's descriptor).
#[derive(Debug, Default)]
pub struct Applied {
    _ruleset: Option<OwnedFd>,
}

/// Prepares `cmd` so the child starts confined as `how` says, writes
/// allowed beneath `write_root` ([`RunSpec::write_root`]; `None` leaves
/// writes unconfined).
///
/// # Errors
/// The Landlock ruleset cannot be built (the kernel lacks Landlock, or a
/// path cannot be opened): the caller reports a launch failure rather than
/// run the hook unconfined.
pub fn apply(
    cmd: &mut Command,
    write_root: Option<&Path>,
    how: Confinement,
) -> Result<Applied, String> {
    let mut applied = Applied::default();
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let ruleset_fd = match (write_root, how.confine_writes) {
            (Some(root), true) => {
                let fd = write_ruleset(root)?;
                let raw = fd.as_raw_fd();
                applied._ruleset = Some(fd);
                Some(raw)
            }
            _ => None,
        };
        let no_network = how.no_network;
        if ruleset_fd.is_none() && !no_network {
            return Ok(applied);
        }
        // SAFETY: the closure runs in the child between fork and exec; it
        // calls only geteuid(2), unshare(2), prctl(2) and
        // landlock_restrict_self(2), which are async-signal-safe, and
        // allocates nothing. The ruleset descriptor is open in the child
        // (inherited; close-on-exec, so the hook does not keep it).
        unsafe {
            cmd.pre_exec(move || {
                if no_network {
                    let flags = if libc::geteuid() == 0 {
                        libc::CLONE_NEWNET
                    } else {
                        libc::CLONE_NEWUSER | libc::CLONE_NEWNET
                    };
                    if libc::unshare(flags) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                if let Some(fd) = ruleset_fd {
                    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (cmd, write_root);
        if how.no_network || how.confine_writes {
            return Err("network and write confinement are Linux's".into());
        }
    }
    Ok(applied)
}

/// A Landlock ruleset that handles every write right of ABI 3 (write,
/// truncate, make, remove, rename across folders) and grants them beneath
/// `root` and on `/dev/null`.
#[cfg(target_os = "linux")]
fn write_ruleset(root: &Path) -> Result<OwnedFd, String> {
    use landlock::{
        ABI, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
        RulesetCreatedAttr, path_beneath_rules,
    };
    let abi = ABI::V3;
    let writes = AccessFs::from_write(abi);
    // Opened first, so a folder that is gone is an error, not a rule
    // silently left out.
    let folder = PathFd::new(root).map_err(|e| format!("write confinement (Landlock): {e}"))?;
    let ruleset = Ruleset::default()
        // Below ABI 3 the rights the kernel knows are still enforced.
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(writes)
        .and_then(|r| r.create())
        .and_then(|r| r.add_rule(PathBeneath::new(folder, writes)))
        .and_then(|r| r.add_rules(path_beneath_rules(["/dev/null"], writes)))
        .map_err(|e| format!("write confinement (Landlock): {e}"))?;
    let fd: Option<OwnedFd> = ruleset.into();
    fd.ok_or_else(|| "write confinement: this kernel has no Landlock".to_string())
}

/// Whether writes can be confined here: a test process confined to a
/// temporary folder must write inside it and be refused outside it. `Err`
/// says why not (not Linux, Landlock not enabled in the kernel).
pub fn write_confinement_available() -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        let dir = tempfile::tempdir().map_err(|e| format!("no temporary folder: {e}"))?;
        let inside = dir.path().join("inside");
        let outside = tempfile::tempdir().map_err(|e| format!("no temporary folder: {e}"))?;
        let refused = outside.path().join("refused");
        std::fs::create_dir(&inside).map_err(|e| e.to_string())?;
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            ": > \"$1/ok\"; (: > \"$2\") 2>/dev/null; exit 0",
            "sh",
        ])
        .arg(&inside)
        .arg(&refused)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        // The same confinement a hook gets.
        let how = Confinement {
            no_network: false,
            confine_writes: true,
        };
        let applied = apply(&mut cmd, Some(&inside), how)?;
        let status = cmd
            .status()
            .map_err(|e| format!("the kernel refused Landlock: {e}"))?;
        drop(applied);
        if !status.success() {
            return Err(format!("a confined test process ended with {status}"));
        }
        if !inside.join("ok").exists() {
            return Err("a confined test process could not write in its own folder".into());
        }
        if refused.exists() {
            return Err("Landlock did not refuse a write outside the folder".into());
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err("write confinement (Landlock) is Linux's".into())
    }
}

/// Whether [`Confinement::no_network`] can start a process here: `sh -c :`
/// is run in a new network namespace. `Err` says why not (not Linux, or
/// the kernel refused: unprivileged user namespaces off, a seccomp filter).
pub fn no_network_available() -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", ":"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let how = Confinement {
            no_network: true,
            confine_writes: false,
        };
        let _keep = apply(&mut cmd, None, how)?;
        match cmd.status() {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(format!(
                "a test process in a network namespace ended with {s}"
            )),
            Err(e) => Err(format!("the kernel refused a network namespace: {e}")),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err("network namespaces are Linux's".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_without_a_write_root_is_not_confined() {
        let mut cmd = Command::new("true");
        let applied = apply(
            &mut cmd,
            None,
            Confinement {
                no_network: false,
                confine_writes: true,
            },
        );
        assert!(applied.is_ok_and(|a| a._ruleset.is_none()));
    }

    #[test]
    fn an_unknown_root_is_refused_not_ignored() {
        if write_confinement_available().is_err() {
            // Without Landlock there is no ruleset to build.
            return;
        }
        let mut cmd = Command::new("true");
        let applied = apply(
            &mut cmd,
            Some(Path::new("/nonexistent/hookscope-root")),
            Confinement {
                no_network: false,
                confine_writes: true,
            },
        );
        assert!(applied.is_err_and(|e| e.contains("Landlock")));
    }
}
