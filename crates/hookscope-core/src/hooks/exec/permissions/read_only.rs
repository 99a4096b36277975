//! Which calls Claude Code runs without a permission prompt by itself, with
//! no rule and no hook (docs/hooks-exec.md "The final outcome"):
//!
//! * the tools whose "Permission required" is "No" in Claude Code's tools
//!   reference ([`NO_PROMPT_TOOLS`]: Agent, Read, Glob, Grep, the task and
//!   cron tools, ToolSearch, …); the file-reading ones only inside the
//!   working folder (a path outside it prompts);
//! * a Bash command made only of read-only commands ([`read_only_bash`]):
//!   the documented examples `ls`, `cat`, `echo`, `pwd`, `head`, `tail`,
//!   `grep`, `find`, `wc`, `which`, `diff`, `stat`, `du`, `cd` and the
//!   read-only `git` forms, each simple command on its own (`cd src && ls`
//!   qualifies), inside the working folder.
//!
//! Claude Code's own list of read-only commands is longer and not
//! published; hookscope's is the documented part, so a command outside it
//! is said to prompt where Claude Code may run it (docs/replay-and-backtest.md "Running your
//! real hooks", where the simulation still differs).

use std::path::Path;

/// Tools that run without a permission prompt in `default` mode, by
/// Claude Code's tools reference ("Permission required: No"), plus the old
/// name `Task` of `Agent` and the file tools of older versions (`LS`,
/// `NotebookRead`).
pub const NO_PROMPT_TOOLS: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "CronCreate",
    "CronDelete",
    "CronList",
    "EndConversation",
    "EnterPlanMode",
    "ExitWorktree",
    "Glob",
    "Grep",
    "LS",
    "LSP",
    "ListMcpResourcesTool",
    "NotebookRead",
    "PushNotification",
    "Read",
    "ReadMcpResourceTool",
    "RemoteTrigger",
    "ReportFindings",
    "ScheduleWakeup",
    "SendMessage",
    "SendUserFile",
    "Task",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskOutput",
    "TaskStop",
    "TaskUpdate",
    "TodoWrite",
    "ToolSearch",
    "WaitForMcpServers",
];

/// The tools of [`NO_PROMPT_TOOLS`] that read files: they prompt for a path
/// outside the working folder.
pub const FILE_READ_TOOLS: &[&str] = &["Read", "Glob", "Grep", "LS", "NotebookRead", "LSP"];

/// Commands that only read (the documented examples; see the module docs).
pub const READ_ONLY_COMMANDS: &[&str] = &[
    "cat", "cd", "diff", "du", "echo", "find", "grep", "head", "ls", "pwd", "stat", "tail", "wc",
    "which",
];

/// `git` subcommands that only read.
pub const READ_ONLY_GIT: &[&str] = &[
    "blame",
    "describe",
    "diff",
    "log",
    "ls-files",
    "rev-parse",
    "show",
    "status",
];

/// `find` options that act (run a command, delete, write a file).
const FIND_ACTS: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// Whether `path` (as written in a command or a tool input) stays inside
/// `cwd` or `project`: a relative path without `..` does; an absolute one
/// when under either; `~` never does.
pub fn inside(path: &str, cwd: Option<&str>, project: Option<&str>) -> bool {
    if path.starts_with('~') {
        return false;
    }
    let p = Path::new(path);
    if !p.is_absolute() {
        return !p.components().any(|c| c == std::path::Component::ParentDir);
    }
    if p.components().any(|c| c == std::path::Component::ParentDir) {
        return false;
    }
    [cwd, project]
        .into_iter()
        .flatten()
        .any(|base| !base.is_empty() && p.starts_with(base))
}

/// Why `command` is not made only of read-only commands inside the working
/// folder, or `Ok(())` when it is (see the module docs). The command must
/// parse completely; every simple command must be one of
/// [`READ_ONLY_COMMANDS`] or `git` with one of [`READ_ONLY_GIT`], with no
/// value computed by the shell in it (`$X`, `$(…)`), no redirect other than
/// to `/dev/null` or another descriptor, no acting `find` option and no
/// path argument outside `cwd`/`project`.
///
/// # Errors
/// The reason, in words (`rm is not a read-only command`).
pub fn read_only_bash(
    command: &str,
    cwd: Option<&str>,
    project: Option<&str>,
) -> Result<(), String> {
    let line = crate::shell::parse_command_line(command);
    if !line.is_ok() {
        return Err("the command does not parse completely".into());
    }
    if line.calls.is_empty() {
        return Err("the command runs nothing".into());
    }
    for call in &line.calls {
        if call.program.is_empty() {
            return Err("it assigns a variable".into());
        }
        if !call.expanded.is_empty() {
            return Err(format!(
                "{} has a value the shell computes ($VAR, $(…))",
                call.program
            ));
        }
        if !call.env.is_empty() {
            return Err(format!("{} runs with a variable set", call.program));
        }
        let program = call.program.as_str();
        if program == "git" {
            let sub = call.args.iter().find(|a| !a.starts_with('-'));
            match sub {
                Some(s) if READ_ONLY_GIT.contains(&s.as_str()) => {}
                Some(s) => return Err(format!("git {s} is not a read-only git command")),
                None => return Err("git without a subcommand".into()),
            }
        } else if !READ_ONLY_COMMANDS.contains(&program) {
            return Err(format!("{program} is not a read-only command"));
        }
        if program == "find"
            && let Some(a) = call.args.iter().find(|a| FIND_ACTS.contains(&a.as_str()))
        {
            return Err(format!("find {a} acts"));
        }
        for r in &call.redirects {
            let to_fd =
                r.op.contains('&') && r.target.chars().all(|c| c.is_ascii_digit() || c == '-');
            let reads = r.op.starts_with('<');
            if !(to_fd || reads || r.target == "/dev/null") {
                return Err(format!("{program} writes to {}", r.target));
            }
        }
        if let Some(outside) = call
            .args
            .iter()
            .filter(|a| !a.starts_with('-') || a.starts_with("--") && a.contains('='))
            .map(|a| a.split_once('=').map_or(a.as_str(), |(_, v)| v))
            .filter(|a| a.starts_with('/') || a.starts_with('~') || a.contains(".."))
            .find(|a| !inside(a, cwd, project))
        {
            return Err(format!(
                "{program} reaches {outside}, outside the working folder"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(c: &str) -> bool {
        read_only_bash(c, Some("/p/src"), Some("/p")).is_ok()
    }

    #[test]
    fn documented_read_only_commands_alone_and_combined() {
        for c in [
            "ls src",
            "ls -la",
            "cd src && pwd",
            "git status",
            "git log --oneline -2",
            "cat a.txt | grep x | wc -l",
            "find . -name '*.rs'",
            "head -5 /p/README.md",
            "grep -rn foo . 2>/dev/null",
            "ls 2>&1",
        ] {
            assert!(
                ok(c),
                "{c}: {:?}",
                read_only_bash(c, Some("/p/src"), Some("/p"))
            );
        }
    }

    #[test]
    fn anything_that_acts_or_reaches_out_prompts() {
        let why = |c: &str| read_only_bash(c, Some("/p/src"), Some("/p")).expect_err(c);
        assert_eq!(why("rm -rf build/"), "rm is not a read-only command");
        assert_eq!(why("npm test"), "npm is not a read-only command");
        assert_eq!(
            why("git push origin main"),
            "git push is not a read-only git command"
        );
        assert_eq!(
            why("git commit -am x"),
            "git commit is not a read-only git command"
        );
        assert_eq!(why("ls > out.txt"), "ls writes to out.txt");
        assert_eq!(why("find . -delete"), "find -delete acts");
        assert_eq!(
            why("cat ~/.ssh/id_rsa"),
            "cat reaches ~/.ssh/id_rsa, outside the working folder"
        );
        assert_eq!(
            why("ls /etc"),
            "ls reaches /etc, outside the working folder"
        );
        assert_eq!(
            why("cat ../../secret"),
            "cat reaches ../../secret, outside the working folder"
        );
        assert_eq!(
            why("ls $HOME"),
            "ls has a value the shell computes ($VAR, $(…))"
        );
        assert_eq!(
            why("echo 'unclosed"),
            "the command does not parse completely"
        );
    }

    #[test]
    fn paths_inside_the_working_folder_or_project() {
        assert!(inside("src/a.rs", None, None));
        assert!(inside("/p/src/a.rs", Some("/q"), Some("/p")));
        assert!(!inside("/pp/a", Some("/q"), Some("/p")));
        assert!(!inside("/p/../etc", None, Some("/p")));
        assert!(!inside("~/x", None, None));
    }
}
