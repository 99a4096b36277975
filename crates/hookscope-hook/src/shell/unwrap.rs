//! Wrapper stripping for [`super::SimpleCall::unwrapped`] (docs/tool-calls.md#unwrapping).

/// Commands that run another command given as their operands (docs/tool-calls.md#unwrapping):
/// `command doas env exec nice nohup sudo time timeout xargs`.
pub const WRAPPER_COMMANDS: &[&str] = &[
    "command", "doas", "env", "exec", "nice", "nohup", "sudo", "time", "timeout", "xargs",
];

/// Options of a wrapper that consume the following word as their value.
struct WrapperSpec {
    short: &'static str,
    long: &'static [&'static str],
    /// Number of operands before the wrapped command (`timeout DURATION cmd`).
    operands: usize,
}

fn spec_for(name: &str) -> Option<WrapperSpec> {
    let spec = match name {
        "sudo" => WrapperSpec {
            // -h is left out: alone it means --help.
            short: "ugprtCDRTU",
            long: &[
                "--user",
                "--group",
                "--prompt",
                "--role",
                "--type",
                "--close-from",
                "--chdir",
                "--chroot",
                "--command-timeout",
                "--other-user",
                "--host",
            ],
            operands: 0,
        },
        "doas" => WrapperSpec {
            short: "uC",
            long: &[],
            operands: 0,
        },
        "env" => WrapperSpec {
            short: "uCS",
            long: &["--unset", "--chdir", "--split-string"],
            operands: 0,
        },
        "exec" => WrapperSpec {
            short: "a",
            long: &[],
            operands: 0,
        },
        "nice" => WrapperSpec {
            short: "n",
            long: &["--adjustment"],
            operands: 0,
        },
        "timeout" => WrapperSpec {
            short: "sk",
            long: &["--signal", "--kill-after"],
            operands: 1,
        },
        "time" => WrapperSpec {
            short: "fo",
            long: &["--format", "--output"],
            operands: 0,
        },
        "xargs" => WrapperSpec {
            short: "adEILnPs",
            long: &[
                "--arg-file",
                "--delimiter",
                "--max-args",
                "--max-procs",
                "--max-lines",
                "--max-chars",
                "--process-slot-var",
                "--eof",
                "--replace",
            ],
            operands: 0,
        },
        "command" | "nohup" => WrapperSpec {
            short: "",
            long: &[],
            operands: 0,
        },
        _ => return None,
    };
    Some(spec)
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_bare_integer(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
}

/// `NAME=…` with a shell identifier as NAME.
fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Strip leading wrappers from `argv` (program first). See
/// [`super::SimpleCall::unwrapped`].
pub(super) fn unwrap_argv(argv: &[String]) -> (String, Vec<String>) {
    let mut rest: Vec<String> = argv.to_vec();
    // Each round removes at least the wrapper word; the cap is only a backstop.
    for _ in 0..256 {
        let Some(head) = rest.first() else { break };
        let Some(spec) = spec_for(basename(head)) else {
            break;
        };
        let is_env = basename(head) == "env";
        let mut operands = spec.operands;
        let mut injected: Vec<String> = Vec::new();
        let mut i = 1;
        while let Some(word) = rest.get(i) {
            if word == "--" {
                i += 1;
                if operands > 0 && i < rest.len() {
                    i += 1;
                }
                break;
            }
            if let Some(long) = word.strip_prefix("--") {
                let (name, value) = match long.split_once('=') {
                    Some((name, value)) => (format!("--{name}"), Some(value.to_string())),
                    None => (word.clone(), None),
                };
                let value = match value {
                    Some(v) => Some(v),
                    None if spec.long.contains(&name.as_str()) => {
                        i += 1;
                        rest.get(i).cloned()
                    }
                    None => None,
                };
                if is_env
                    && name == "--split-string"
                    && let Some(v) = value
                {
                    injected.extend(v.split_whitespace().map(str::to_string));
                }
                i += 1;
                continue;
            }
            if let Some(cluster) = word.strip_prefix('-') {
                let mut value = None;
                let mut letter = None;
                for (pos, c) in cluster.char_indices() {
                    if spec.short.contains(c) {
                        letter = Some(c);
                        let attached = cluster.get(pos + c.len_utf8()..).unwrap_or("");
                        value = if attached.is_empty() {
                            i += 1;
                            rest.get(i).cloned()
                        } else {
                            Some(attached.to_string())
                        };
                        break;
                    }
                }
                if is_env
                    && letter == Some('S')
                    && let Some(v) = value
                {
                    injected.extend(v.split_whitespace().map(str::to_string));
                }
                i += 1;
                continue;
            }
            if operands > 0 {
                operands -= 1;
                i += 1;
                continue;
            }
            if is_assignment(word) || is_bare_integer(word) {
                i += 1;
                continue;
            }
            break;
        }
        let tail = rest.get(i..).map(<[String]>::to_vec).unwrap_or_default();
        injected.extend(tail);
        rest = injected;
    }
    let mut iter = rest.into_iter();
    let program = iter.next().unwrap_or_default();
    (program, iter.collect())
}

#[cfg(test)]
mod tests {
    use super::unwrap_argv;

    fn run(words: &[&str]) -> (String, Vec<String>) {
        let argv: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        unwrap_argv(&argv)
    }

    fn expect(program: &str, args: &[&str]) -> (String, Vec<String>) {
        (
            program.to_string(),
            args.iter().map(|a| a.to_string()).collect(),
        )
    }

    #[test]
    fn sudo_user_then_timeout_duration() {
        assert_eq!(
            run(&["sudo", "-u", "root", "timeout", "30", "rm", "-rf", "/tmp/x"]),
            expect("rm", &["-rf", "/tmp/x"])
        );
    }

    #[test]
    fn nice_adjustment() {
        assert_eq!(run(&["nice", "-n", "10", "make"]), expect("make", &[]));
        assert_eq!(
            run(&["nice", "-n10", "make", "-j4"]),
            expect("make", &["-j4"])
        );
    }

    #[test]
    fn env_assignments_and_flags() {
        assert_eq!(
            run(&["env", "-i", "FOO=1", "BAR=2", "python3", "x.py"]),
            expect("python3", &["x.py"])
        );
        assert_eq!(run(&["env", "-u", "HOME", "ls"]), expect("ls", &[]));
        assert_eq!(
            run(&["env", "-S", "rm -rf /", "extra"]),
            expect("rm", &["-rf", "/", "extra"])
        );
    }

    #[test]
    fn timeout_with_signal_and_suffix_duration() {
        assert_eq!(
            run(&["timeout", "-s", "KILL", "5m", "cargo", "test"]),
            expect("cargo", &["test"])
        );
        assert_eq!(
            run(&["timeout", "--signal=TERM", "1.5s", "ls"]),
            expect("ls", &[])
        );
    }

    #[test]
    fn xargs_replace_string() {
        assert_eq!(
            run(&["xargs", "-I", "{}", "mv", "{}", "dst"]),
            expect("mv", &["{}", "dst"])
        );
        assert_eq!(run(&["xargs", "-0", "rm", "-f"]), expect("rm", &["-f"]));
    }

    #[test]
    fn nested_and_path_wrappers() {
        assert_eq!(
            run(&["/usr/bin/sudo", "nohup", "time", "command", "git", "push"]),
            expect("git", &["push"])
        );
        assert_eq!(
            run(&["exec", "-a", "name", "bash", "-l"]),
            expect("bash", &["-l"])
        );
        assert_eq!(run(&["doas", "-u", "www", "id"]), expect("id", &[]));
    }

    #[test]
    fn nothing_left_or_no_wrapper() {
        assert_eq!(run(&["sudo", "-i"]), expect("", &[]));
        assert_eq!(run(&["git", "status"]), expect("git", &["status"]));
        assert_eq!(run(&[]), expect("", &[]));
        assert_eq!(run(&["sudo", "--", "ls"]), expect("ls", &[]));
    }
}
