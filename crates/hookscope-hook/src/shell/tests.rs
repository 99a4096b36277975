use super::*;

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// (program, args, operator) of every call.
fn shape(line: &CommandLine) -> Vec<(String, Vec<String>, Option<String>)> {
    line.calls
        .iter()
        .map(|c| (c.program.clone(), c.args.clone(), c.operator.clone()))
        .collect()
}

fn sh(items: &[(&str, &[&str], Option<&str>)]) -> Vec<(String, Vec<String>, Option<String>)> {
    items
        .iter()
        .map(|(p, a, o)| (p.to_string(), s(a), o.map(str::to_string)))
        .collect()
}

fn parse_ok(command: &str) -> CommandLine {
    let line = parse_command_line(command);
    let shown: String = command.chars().take(80).collect();
    assert_eq!(line.error, None, "unexpected error for {shown:?}");
    line
}

fn redirect(op: &str, target: &str, fd: Option<u32>) -> Redirect {
    Redirect {
        op: op.to_string(),
        target: target.to_string(),
        fd,
        body: None,
        delimiter: None,
    }
}

#[test]
fn git_status() {
    let line = parse_ok("git status");
    assert_eq!(line.raw, "git status");
    assert_eq!(
        line.calls,
        vec![SimpleCall {
            program: "git".into(),
            args: s(&["status"]),
            env: vec![],
            redirects: vec![],
            operator: None,
            span: (0, 10),
            expanded: vec![],
        }]
    );
}

#[test]
fn leading_env_assignment() {
    let line = parse_ok("FOO=bar git push -f");
    assert_eq!(line.calls.len(), 1);
    let call = &line.calls[0];
    assert_eq!(call.program, "git");
    assert_eq!(call.args, s(&["push", "-f"]));
    assert_eq!(
        call.env,
        vec![EnvAssignment {
            name: "FOO".into(),
            value: "bar".into()
        }]
    );
    assert_eq!(call.span, (0, 19));
}

#[test]
fn and_list() {
    let line = parse_ok("npm test && git push");
    assert_eq!(
        shape(&line),
        sh(&[("npm", &["test"], Some("&&")), ("git", &["push"], None)])
    );
    assert_eq!(line.calls[1].span, (12, 20));
}

#[test]
fn all_operators() {
    let line = parse_ok("a; b || c | d & e");
    assert_eq!(
        shape(&line),
        sh(&[
            ("a", &[], Some(";")),
            ("b", &[], Some("||")),
            ("c", &[], Some("|")),
            ("d", &[], Some("&")),
            ("e", &[], None),
        ])
    );
}

#[test]
fn pipe_ampersand_and_trailing_background() {
    let line = parse_ok("make |& tee log &");
    assert_eq!(
        shape(&line),
        sh(&[("make", &[], Some("|")), ("tee", &["log"], None)])
    );
}

#[test]
fn newlines_are_semicolons() {
    let line = parse_ok("cd /tmp\nls -la\n\n# comment\npwd\n");
    assert_eq!(
        shape(&line),
        sh(&[
            ("cd", &["/tmp"], Some(";")),
            ("ls", &["-la"], Some(";")),
            ("pwd", &[], None),
        ])
    );
}

#[test]
fn multi_line_with_continuation_and_list() {
    let line = parse_ok("cargo build \\\n  --release &&\n  ./target/release/app --flag");
    assert_eq!(
        shape(&line),
        sh(&[
            ("cargo", &["build", "--release"], Some("&&")),
            ("./target/release/app", &["--flag"], None),
        ])
    );
}

#[test]
fn cd_and_pwd() {
    let line = parse_ok("cd /tmp && pwd");
    assert_eq!(
        shape(&line),
        sh(&[("cd", &["/tmp"], Some("&&")), ("pwd", &[], None)])
    );
    assert_eq!(line.calls[0].span, (0, 7));
    assert_eq!(line.calls[1].span, (11, 14));
}

#[test]
fn quoted_heredoc() {
    let cmd = "cat <<'EOF' > notes.txt\nhello $(not run)\nEOF";
    let line = parse_ok(cmd);
    assert_eq!(line.calls.len(), 1);
    let call = &line.calls[0];
    assert_eq!(call.program, "cat");
    assert!(call.args.is_empty());
    assert_eq!(
        call.redirects,
        vec![
            Redirect {
                op: "<<".into(),
                target: "EOF".into(),
                fd: None,
                body: Some("hello $(not run)\n".into()),
                delimiter: Some("'EOF'".into()),
            },
            redirect(">", "notes.txt", None),
        ]
    );
    assert_eq!(call.span, (0, 3));
}

#[test]
fn heredoc_followed_by_pipeline_and_list() {
    let line = parse_ok("cat <<EOF | grep x && ls\nbody\nEOF\necho done");
    assert_eq!(
        shape(&line),
        sh(&[
            ("cat", &[], Some("|")),
            ("grep", &["x"], Some("&&")),
            ("ls", &[], Some(";")),
            ("echo", &["done"], None),
        ])
    );
    assert_eq!(line.calls[0].redirects.len(), 1);
    assert_eq!(line.calls[0].redirects[0].body.as_deref(), Some("body\n"));
    assert!(line.calls[1].redirects.is_empty());
}

#[test]
fn unquoted_heredoc_substitution_surfaces() {
    let line = parse_ok("cat <<EOF\nhi $(rm -rf /)\nEOF");
    assert_eq!(
        shape(&line),
        sh(&[("rm", &["-rf", "/"], None), ("cat", &[], None)])
    );
}

#[test]
fn apply_patch_heredoc() {
    let cmd = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.rs\n@@\n-old\n+new\n*** End Patch\nEOF\n";
    let line = parse_ok(cmd);
    assert_eq!(line.calls.len(), 1);
    let call = &line.calls[0];
    assert_eq!(call.program, "apply_patch");
    assert!(call.args.is_empty());
    assert_eq!(
        call.redirects,
        vec![Redirect {
            op: "<<".into(),
            target: "EOF".into(),
            fd: None,
            body: Some(
                "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-old\n+new\n*** End Patch\n"
                    .into()
            ),
            delimiter: Some("'EOF'".into()),
        }]
    );
}

#[test]
fn file_redirects() {
    let line = parse_ok("ls > out.txt 2>&1");
    assert_eq!(line.calls.len(), 1);
    assert_eq!(line.calls[0].program, "ls");
    assert_eq!(
        line.calls[0].redirects,
        vec![redirect(">", "out.txt", None), redirect(">&", "1", Some(2))]
    );
    assert_eq!(line.calls[0].span, (0, 2));
}

#[test]
fn more_redirect_forms() {
    let line = parse_ok("> o ls; cat <<< \"hi there\" &>> log; echo a >out b; cmd 2>/dev/null >&-");
    assert_eq!(
        shape(&line),
        sh(&[
            ("ls", &[], Some(";")),
            ("cat", &[], Some(";")),
            ("echo", &["a", "b"], Some(";")),
            ("cmd", &[], None),
        ])
    );
    assert_eq!(line.calls[0].redirects, vec![redirect(">", "o", None)]);
    assert_eq!(
        line.calls[1].redirects,
        vec![
            redirect("<<<", "hi there", None),
            redirect("&>>", "log", None)
        ]
    );
    assert_eq!(line.calls[2].redirects, vec![redirect(">", "out", None)]);
    assert_eq!(
        line.calls[3].redirects,
        vec![
            redirect(">", "/dev/null", Some(2)),
            redirect(">&-", "", None)
        ]
    );
}

#[test]
fn quotes_removed() {
    let line = parse_ok(r#"echo "hello world" 'x y' a\ b "say \"hi\" $HOME" --msg="a b" $'t\tab'"#);
    assert_eq!(
        line.calls[0].args,
        s(&[
            "hello world",
            "x y",
            "a b",
            "say \"hi\" $HOME",
            "--msg=a b",
            "t\tab"
        ])
    );
}

#[test]
fn quoted_program_and_env_value() {
    let line = parse_ok(r#"A="x y" B= "rm" -rf "$(pwd)/x""#);
    let call = &line.calls[1];
    assert_eq!(call.program, "rm");
    assert_eq!(call.args, s(&["-rf", "$(pwd)/x"]));
    assert_eq!(
        call.env,
        vec![
            EnvAssignment {
                name: "A".into(),
                value: "x y".into()
            },
            EnvAssignment {
                name: "B".into(),
                value: "".into()
            },
        ]
    );
    // the substitution's call comes first
    assert_eq!(
        shape(&line),
        sh(&[("pwd", &[], None), ("rm", &["-rf", "$(pwd)/x"], None)])
    );
}

#[test]
fn subshell() {
    let line = parse_ok("(cd src && make)");
    assert_eq!(
        shape(&line),
        sh(&[("cd", &["src"], Some("&&")), ("make", &[], None)])
    );
}

#[test]
fn brace_group() {
    let line = parse_ok("{ a; b; }");
    assert_eq!(shape(&line), sh(&[("a", &[], Some(";")), ("b", &[], None)]));
}

#[test]
fn redirected_group_applies_to_all() {
    let line = parse_ok("{ a; b; } > out && c");
    assert_eq!(
        shape(&line),
        sh(&[
            ("a", &[], Some(";")),
            ("b", &[], Some("&&")),
            ("c", &[], None)
        ])
    );
    assert_eq!(line.calls[0].redirects, vec![redirect(">", "out", None)]);
    assert_eq!(line.calls[1].redirects, vec![redirect(">", "out", None)]);
    assert!(line.calls[2].redirects.is_empty());
}

#[test]
fn redirect_binds_to_last_pipeline_element() {
    let line = parse_ok("a | b > out 2>&1 | c; d && e < in");
    assert_eq!(
        shape(&line),
        sh(&[
            ("a", &[], Some("|")),
            ("b", &[], Some("|")),
            ("c", &[], Some(";")),
            ("d", &[], Some("&&")),
            ("e", &[], None),
        ])
    );
    assert!(line.calls[0].redirects.is_empty());
    assert_eq!(
        line.calls[1].redirects,
        vec![redirect(">", "out", None), redirect(">&", "1", Some(2))]
    );
    assert!(line.calls[2].redirects.is_empty());
    assert!(line.calls[3].redirects.is_empty());
    assert_eq!(line.calls[4].redirects, vec![redirect("<", "in", None)]);
}

#[test]
fn for_loop() {
    let line = parse_ok(r#"for f in *.rs; do rustfmt "$f"; done"#);
    assert_eq!(shape(&line), sh(&[("rustfmt", &["$f"], None)]));
}

#[test]
fn for_over_substitution_and_while_read() {
    let line = parse_ok("for f in $(ls); do rm $f; done\nwhile read l; do echo $l; done < list");
    assert_eq!(
        shape(&line),
        sh(&[
            ("ls", &[], None),
            ("rm", &["$f"], Some(";")),
            ("read", &["l"], Some(";")),
            ("echo", &["$l"], None),
        ])
    );
    assert_eq!(line.calls[2].redirects, vec![redirect("<", "list", None)]);
    assert_eq!(line.calls[3].redirects, vec![redirect("<", "list", None)]);
}

#[test]
fn if_statement() {
    let line = parse_ok("if test -f x; then rm x; fi");
    assert_eq!(
        shape(&line),
        sh(&[("test", &["-f", "x"], Some(";")), ("rm", &["x"], None)])
    );
}

#[test]
fn if_elif_else_and_test_brackets() {
    let line =
        parse_ok("if [ -f x ]; then a; elif [[ $y == b* && -n $z ]]; then b; else c; fi && d");
    assert_eq!(
        shape(&line),
        sh(&[
            ("[", &["-f", "x", "]"], Some(";")),
            ("a", &[], Some(";")),
            ("[[", &["$y", "==", "b*", "&&", "-n", "$z", "]]"], Some(";")),
            ("b", &[], Some(";")),
            ("c", &[], Some("&&")),
            ("d", &[], None),
        ])
    );
}

#[test]
fn case_and_function() {
    let line = parse_ok("case $x in a) foo;; b) bar;; esac\nf() { rm -r x; }");
    assert_eq!(
        shape(&line),
        sh(&[
            ("foo", &[], Some(";")),
            ("bar", &[], Some(";")),
            ("rm", &["-r", "x"], None),
        ])
    );
}

#[test]
fn command_substitution_surfaces() {
    let line = parse_ok("echo $(rm -rf /)");
    assert_eq!(
        shape(&line),
        sh(&[
            ("rm", &["-rf", "/"], None),
            ("echo", &["$(rm -rf /)"], None)
        ])
    );
    assert_eq!(line.calls[0].span, (7, 15));
}

#[test]
fn backticks_and_nested_substitutions() {
    let line = parse_ok("echo `whoami` \"$(a && b $(c))\" | wc -l");
    assert_eq!(
        shape(&line),
        sh(&[
            ("whoami", &[], None),
            ("a", &[], Some("&&")),
            ("c", &[], None),
            ("b", &["$(c)"], None),
            ("echo", &["`whoami`", "$(a && b $(c))"], Some("|")),
            ("wc", &["-l"], None),
        ])
    );
}

#[test]
fn assignment_only_and_declarations() {
    let line = parse_ok("X=$(date); export A=\"1 2\" B; unset C; ((i++)) && ok");
    assert_eq!(
        shape(&line),
        sh(&[
            ("date", &[], None),
            ("", &[], Some(";")),
            ("export", &["A=1 2", "B"], Some(";")),
            ("unset", &["C"], Some(";")),
            ("ok", &[], None),
        ])
    );
    assert_eq!(
        line.calls[1].env,
        vec![EnvAssignment {
            name: "X".into(),
            value: "$(date)".into()
        }]
    );
}

#[test]
fn sudo_timeout_unwrapped() {
    let line = parse_ok("sudo -u root timeout 30 rm -rf /tmp/x");
    assert_eq!(line.calls[0].program, "sudo");
    assert_eq!(
        line.calls[0].unwrapped(),
        ("rm".to_string(), s(&["-rf", "/tmp/x"]))
    );
}

#[test]
fn nice_unwrapped() {
    let line = parse_ok("nice -n 10 make");
    assert_eq!(line.calls[0].unwrapped(), ("make".to_string(), vec![]));
    let plain = parse_ok("git push");
    assert_eq!(
        plain.calls[0].unwrapped(),
        ("git".to_string(), s(&["push"]))
    );
}

#[test]
fn unterminated_string_sets_error() {
    let line = parse_command_line("echo \"unterminated");
    assert_eq!(
        line.error.as_deref(),
        Some("syntax error at byte 5: cannot parse `\"unterminated`")
    );
    assert_eq!(shape(&line), sh(&[("echo", &[], None)]));
}

#[test]
fn missing_keyword_sets_error() {
    let line = parse_command_line("if true; then echo hi");
    assert_eq!(
        line.error.as_deref(),
        Some("syntax error at byte 0: cannot parse `if true; then echo hi`")
    );
    // the inner commands are still recovered
    assert_eq!(
        shape(&line),
        sh(&[("true", &[], Some(";")), ("echo", &["hi"], None)])
    );
}

#[test]
fn empty_and_comment_only() {
    for cmd in ["", "   ", "\n\n", "# just a comment"] {
        let line = parse_command_line(cmd);
        assert_eq!(line.calls, vec![], "{cmd:?}");
        assert_eq!(line.error, None, "{cmd:?}");
    }
}

#[test]
fn serializes_env_as_object_and_span_as_array() {
    let line = parse_ok("B=2 A=1 ls > o");
    let json = serde_json::to_value(&line).unwrap_or_default();
    assert_eq!(
        json,
        serde_json::json!({
            "raw": "B=2 A=1 ls > o",
            "calls": [{
                "program": "ls",
                "args": [],
                "env": {"B": "2", "A": "1"},
                "redirects": [{"op": ">", "target": "o", "fd": null}],
                "operator": null,
                "span": [0, 10]
            }],
            "error": null,
            "truncated": null,
            "calls_capped": false
        })
    );
    let text = serde_json::to_string(&line.calls[0].env.len()).unwrap_or_default();
    assert_eq!(text, "2");
    let env_text = serde_json::to_string(&line.calls[0]).unwrap_or_default();
    assert!(
        env_text.contains(r#""env":{"B":"2","A":"1"}"#),
        "{env_text}"
    );
}

#[test]
fn unicode_spans_are_bytes() {
    let line = parse_ok("echo 'héllo' && ls");
    assert_eq!(line.calls[0].args, s(&["héllo"]));
    assert_eq!(line.calls[1].span, (17, 19));
}

/// Random junk lines checked by `never_panics_on_junk` (raised locally to
/// 100 000 while developing; kept small so the suite stays fast).
const JUNK_INPUTS: usize = 2_000;

#[test]
fn never_panics_on_junk() {
    let mut inputs: Vec<String> = vec![
        "\0".into(),
        "echo \0 a\0b".into(),
        "(((((".into(),
        ")))))".into(),
        "$(".into(),
        "`".into(),
        "<<".into(),
        "cat <<EOF\nunterminated".into(),
        "&& || ; ;; | &".into(),
        "${".into(),
        "case".into(),
        "exec 3<> f".into(),
        "\\".into(),
        "'".into(),
        "$'\\x".into(),
        "[[ ( ( ( a ]]".into(),
    ];
    // Deterministic pseudo-random junk from a small alphabet of shell syntax.
    let alphabet: Vec<char> = "ab $()`'\"\\;&|<>{}[]\n#=-\t\0é!*".chars().collect();
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..JUNK_INPUTS {
        let len = next() % 120;
        let text: String = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        inputs.push(text);
    }
    for input in &inputs {
        let line = parse_command_line(input);
        assert_eq!(&line.raw, input);
        for call in &line.calls {
            assert!(call.span.0 <= call.span.1 && call.span.1 <= input.len());
            let _ = call.unwrapped();
        }
    }
}

#[test]
fn deep_nesting_is_guarded() {
    // 40 KB: under MAX_PARSED_BYTES, so the nesting guard is what stops it.
    let depth = 10_000;
    let cmd = format!("{}rm x{}", "( ".repeat(depth), " )".repeat(depth));
    let line = parse_command_line(&cmd);
    assert_eq!(
        line.error.as_deref(),
        Some(
            "nesting deeper than 200 syntax levels at byte 400; commands below it were not extracted"
        )
    );
    assert_eq!(line.calls, vec![]);
    let cmd = format!("echo {}rm x{}", "$(".repeat(depth), ")".repeat(depth));
    let line = parse_command_line(&cmd);
    assert!(
        line.error
            .as_deref()
            .is_some_and(|e| e.starts_with("nesting deeper than 200")),
        "{:?}",
        line.error
    );
    assert_eq!(line.calls.last().map(|c| c.program.as_str()), Some("echo"));
    let shallow = format!("{}rm x{}", "( ".repeat(20), " )".repeat(20));
    assert_eq!(shape(&parse_ok(&shallow)), sh(&[("rm", &["x"], None)]));
}

#[test]
fn large_input() {
    let cmd = "echo hello && ".repeat(4_000) + "true";
    assert_eq!(cmd.len(), 56_004);
    let line = parse_ok(&cmd);
    assert_eq!(line.calls.len(), 4_001);
    assert_eq!(line.truncated, None);
    assert!(!line.calls_capped && line.is_ok());
    assert_eq!(line.calls[0].operator.as_deref(), Some("&&"));
    assert_eq!(line.calls[4_000].operator, None);
    // Over the byte cap: cut before the `&&` whose second `&` sits at
    // byte 65532, so 65530 bytes (4681 calls) are parsed and 4096 kept.
    let cmd = "echo hello && ".repeat(8_000) + "true";
    let line = parse_command_line(&cmd);
    assert_eq!(line.error, None);
    assert_eq!(line.truncated, Some(112_004 - 65_530));
    assert!(line.calls_capped && !line.is_ok());
    assert_eq!(line.calls.len(), MAX_CALLS);
    assert_eq!(
        line.limits_note().as_deref(),
        Some(
            "only the first 65530 bytes were parsed (46474 bytes not parsed); only the first 4096 simple calls are listed"
        )
    );
    let junk: String = "x\"'$(`".repeat(20_000);
    let line = parse_command_line(&junk);
    assert!(line.error.is_some());
}

#[test]
fn long_pipeline_is_cut_at_an_operator() {
    // 150,000 stages, 3.6 MB: only the first 64 KiB up to the last `|`
    // before it (byte 65518) are parsed: 2730 stages, 65517 bytes.
    let cmd = "sort -u -k 2 data.txt | ".repeat(150_000) + "wc -l";
    let line = parse_command_line(&cmd);
    assert_eq!(line.error, None);
    assert_eq!(line.truncated, Some(3_600_005 - 65_517));
    assert!(!line.calls_capped);
    assert_eq!(line.calls.len(), 2_730);
    let last = line.calls.last().expect("calls");
    assert_eq!(
        (last.program.as_str(), last.operator.as_deref()),
        ("sort", None)
    );
    assert_eq!(last.span, (65_496, 65_517));
    assert_eq!(line.calls[0].operator.as_deref(), Some("|"));
}

#[test]
fn no_boundary_cuts_at_a_char_boundary() {
    // One 100,000-byte word of 2-byte characters: no operator to cut at, so
    // the cut falls on the character boundary at or before 65536.
    let cmd = format!("echo {}", "é".repeat(50_000));
    let line = parse_command_line(&cmd);
    assert_eq!(line.truncated, Some(100_005 - 65_535));
    assert_eq!(line.calls.len(), 1);
    assert_eq!(line.calls[0].args[0].len(), 65_530);
}

#[test]
fn expanded_words_are_those_the_outer_shell_computes() {
    let line = parse_ok("sh -c \"$X\" a 'b$c' \"$(d)\" $((1+2)) ${e} <(f) $'\\x41'");
    assert_eq!(
        line.calls.last().map(|c| c.expanded.clone()),
        Some(vec![2, 5, 6, 7, 8])
    );
    let line = parse_ok("$CMD -rf x");
    assert_eq!(line.calls[0].expanded, [0]);
    assert_eq!(
        parse_ok("sh -c 'rm $1'").calls[0].expanded,
        Vec::<usize>::new()
    );
}

#[test]
fn pipelines_are_recorded_with_their_stages() {
    let stages = |command: &str| -> Vec<Vec<String>> {
        let line = parse_command_line(command);
        line.pipelines
            .iter()
            .map(|p| {
                p.iter()
                    .map(|&(a, b)| command.get(a..b).unwrap_or("").to_string())
                    .collect()
            })
            .collect()
    };
    assert_eq!(stages("a | b > out | c"), [s(&["a", "b", "c"])]);
    assert_eq!(
        stages("curl x | (cd /; sh)"),
        [s(&["curl x", "(cd /; sh)"])]
    );
    assert_eq!(stages("cat <<EOF | sh\nx\nEOF"), [s(&["cat", "sh"])]);
    assert_eq!(stages("cat <<EOF | a | b\nx\nEOF"), [s(&["cat", "a", "b"])]);
    assert_eq!(
        stages("x=$(a | b) && c |& d"),
        [s(&["a", "b"]), s(&["c", "d"])]
    );
    assert_eq!(
        stages("a | (b | c)"),
        [s(&["a", "(b | c)"]), s(&["b", "c"])]
    );
    assert!(stages("a && b; c").is_empty());
}

#[test]
fn shell_scripts_skip_option_values() {
    let script = |command: &str| parse_ok(command).calls[0].shell_script();
    assert_eq!(script("bash -o pipefail -c 'x y'").as_deref(), Some("x y"));
    assert_eq!(script("bash -euo pipefail -c z").as_deref(), Some("z"));
    assert_eq!(script("bash --rcfile f -c z").as_deref(), Some("z"));
    assert_eq!(
        script("bash -O extglob +O nullglob -lc z").as_deref(),
        Some("z")
    );
    assert_eq!(script("sh -c -- -z").as_deref(), Some("-z"));
    assert_eq!(script("sh -o errexit run.sh"), None);
    assert_eq!(script("sh -c"), None);
}
