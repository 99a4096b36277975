use super::*;
use serde_json::json;

/// Redacts with fresh counts; returns (output, counts).
fn r(text: &str) -> (String, Redactions) {
    let mut counts = Redactions::new();
    let out = redactor().redact(text, &mut counts).into_owned();
    (out, counts)
}

fn counts(pairs: &[(&str, usize)]) -> Redactions {
    pairs.iter().map(|&(k, v)| (k.to_owned(), v)).collect()
}

/// Asserts the exact output and counts, then idempotence on the output.
#[track_caller]
fn check(input: &str, expected: &str, expected_counts: &[(&str, usize)]) {
    let (out, c) = r(input);
    assert_eq!(out, expected, "input: {input:?}");
    assert_eq!(c, counts(expected_counts), "input: {input:?}");
    let mut again = Redactions::new();
    let second = redactor().redact(&out, &mut again);
    assert!(
        matches!(second, Cow::Borrowed(_)),
        "not idempotent: {out:?}"
    );
    assert!(again.is_empty(), "not idempotent: {out:?} → {again:?}");
}

/// Asserts the text comes back untouched (borrowed) with no counts.
#[track_caller]
fn untouched(input: &str) {
    let mut c = Redactions::new();
    let out = redactor().redact(input, &mut c);
    assert!(
        matches!(out, Cow::Borrowed(_)),
        "masked: {input:?} → {out:?}"
    );
    assert!(c.is_empty(), "counted: {input:?} → {c:?}");
}

// ---------------------------------------------------------------- table

#[test]
fn types_match_pattern_table_in_priority_order() {
    let names: Vec<&str> = patterns::PATTERNS.iter().map(|p| p.ty).collect();
    assert_eq!(names, TYPES);
    assert_eq!(TYPES.len(), 14);
}

#[test]
fn redactor_new_and_default_compile() {
    let a = Redactor::new();
    let b = Redactor::default();
    let mut c = Redactions::new();
    assert_eq!(
        a.redact("api_key=abcd1234efgh", &mut c),
        "api_key=[REDACTED_GENERIC_SECRET]"
    );
    assert_eq!(
        b.redact("api_key=abcd1234efgh", &mut c),
        "api_key=[REDACTED_GENERIC_SECRET]"
    );
    assert_eq!(c, counts(&[("GENERIC_SECRET", 2)]));
}

// ---------------------------------------------------------------- PRIVATE_KEY

const PEM: &str = "-----BEGIN RSA PRIVATE KEY-----\n\
MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgwMbRvI0MBZhpF\n\
Y0Fz1k2nqU3q4vX1fNmPfJ9w2s8Kq7m0aZ5d\n\
-----END RSA PRIVATE KEY-----";

#[test]
fn private_key_pem_block_spanning_lines() {
    check(
        &format!("key file:\n{PEM}\ntrailing text"),
        "key file:\n[REDACTED_PRIVATE_KEY]\ntrailing text",
        &[("PRIVATE_KEY", 1)],
    );
}

#[test]
fn private_key_openssh_and_escaped_newlines_in_raw_json() {
    check(
        r#"{"content":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"}"#,
        r#"{"content":"[REDACTED_PRIVATE_KEY]\n"}"#,
        &[("PRIVATE_KEY", 1)],
    );
}

#[test]
fn private_key_truncated_block_masks_header_and_body() {
    check(
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nMIIEvQIBAD…[truncated]",
        "[REDACTED_PRIVATE_KEY]…[truncated]",
        &[("PRIVATE_KEY", 1)],
    );
}

#[test]
fn private_key_encrypted_pem_with_headers() {
    check(
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,ABCDEF0123\n\nMIIE+/abc\n-----END RSA PRIVATE KEY-----\ndone",
        "[REDACTED_PRIVATE_KEY]\ndone",
        &[("PRIVATE_KEY", 1)],
    );
}

#[test]
fn private_key_many_headers_without_end_stay_linear() {
    let text = "-----BEGIN PRIVATE KEY-----\nMIIE\n\"x\" ".repeat(5_000);
    let (out, c) = r(&text);
    assert_eq!(c, counts(&[("PRIVATE_KEY", 5_000)]));
    assert_eq!(out, "[REDACTED_PRIVATE_KEY]\"x\" ".repeat(5_000));
}

#[test]
fn private_key_negative_public_key_and_certificate() {
    untouched(
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
    );
    untouched("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----");
    untouched("grep for 'PRIVATE KEY' headers in the repo");
}

// ---------------------------------------------------------------- AWS_KEY

#[test]
fn aws_key_positive() {
    check(
        "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
        "export AWS_ACCESS_KEY_ID=[REDACTED_AWS_KEY]",
        &[("AWS_KEY", 1)],
    );
    check(
        "creds ASIAY34FZKBOKMUTVV7A used",
        "creds [REDACTED_AWS_KEY] used",
        &[("AWS_KEY", 1)],
    );
}

#[test]
fn aws_key_negative() {
    // too short, too long, embedded in a word
    untouched("AKIAIOSFODNN7EXAMP");
    untouched("AKIAIOSFODNN7EXAMPLEXX");
    untouched("XAKIAIOSFODNN7EXAMPLE");
}

// ---------------------------------------------------------------- AWS_SECRET

#[test]
fn aws_secret_positive() {
    check(
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws_secret_access_key = [REDACTED_AWS_SECRET]",
        &[("AWS_SECRET", 1)],
    );
    check(
        r#"{"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}"#,
        r#"{"SecretAccessKey": "[REDACTED_AWS_SECRET]"}"#,
        &[("AWS_SECRET", 1)],
    );
}

#[test]
fn aws_secret_negative() {
    // bare 40-char base64 with no aws-ish key
    untouched("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
    // aws key name but not 40 chars and no digit: prose
    untouched("aws_secret_access_key: see the vault");
}

// ---------------------------------------------------------------- GITHUB_TOKEN

#[test]
fn github_token_positive() {
    check(
        "git clone with ghp_0123456789abcdefghijABCDEFGHIJ012345 ok",
        "git clone with [REDACTED_GITHUB_TOKEN] ok",
        &[("GITHUB_TOKEN", 1)],
    );
    check(
        "GH_TOKEN=github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789",
        "GH_TOKEN=[REDACTED_GITHUB_TOKEN]",
        &[("GITHUB_TOKEN", 1)],
    );
    // priority over GENERIC_SECRET even though `token:` starts further left
    check(
        "token: gho_0123456789abcdefghijABCDEFGHIJ012345",
        "token: [REDACTED_GITHUB_TOKEN]",
        &[("GITHUB_TOKEN", 1)],
    );
}

#[test]
fn github_token_negative() {
    untouched("ghp_short123");
    untouched("see the gh_pr_view docs and ghx_0123456789abcdefghijABCDEFGHIJ012345");
}

// ---------------------------------------------------------------- GITLAB_TOKEN

#[test]
fn gitlab_token_positive() {
    check(
        "glpat-xYz12AbCdEfGhIjKlMnO",
        "[REDACTED_GITLAB_TOKEN]",
        &[("GITLAB_TOKEN", 1)],
    );
}

#[test]
fn gitlab_token_negative() {
    untouched("glpat-short1");
    untouched("the glpat- prefix marks GitLab personal access tokens");
}

// ---------------------------------------------------------------- ANTHROPIC_KEY

#[test]
fn anthropic_key_positive_and_beats_openai() {
    check(
        "ANTHROPIC_API_KEY=sk-ant-api03-FAKEFAKEFAKE0123456789abcdefghijklmnopqrstuvwxyzFAKE-AA",
        "ANTHROPIC_API_KEY=[REDACTED_ANTHROPIC_KEY]",
        &[("ANTHROPIC_KEY", 1)],
    );
}

#[test]
fn anthropic_key_negative() {
    untouched("sk-ant-short");
    untouched("keys look like sk-ant-… in the console");
}

// ---------------------------------------------------------------- OPENAI_KEY

#[test]
fn openai_key_positive() {
    check(
        "client = OpenAI(api_key=\"sk-proj-abc123DEF456ghi789JKL0\")",
        "client = OpenAI(api_key=\"[REDACTED_OPENAI_KEY]\")",
        &[("OPENAI_KEY", 1)],
    );
}

#[test]
fn openai_key_negative() {
    // no digit: a kebab-case name, not a key
    untouched("see sk-learn-compatibility-guidelines-page");
    untouched("sk-1234");
    untouched("task-0123456789abcdefghijklmnop");
}

// ---------------------------------------------------------------- SLACK_TOKEN

#[test]
fn slack_token_positive() {
    check(
        "SLACK=xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
        "SLACK=[REDACTED_SLACK_TOKEN]",
        &[("SLACK_TOKEN", 1)],
    );
}

#[test]
fn slack_token_negative() {
    untouched("xoxb-");
    untouched("xoxz-123456789012-1234567890123");
}

// ---------------------------------------------------------------- STRIPE_KEY

#[test]
fn stripe_key_positive() {
    check(
        "stripe.api_key = 'sk_live_51H8abcDEF0123456789'; rk_test_abcdef0123456789",
        "stripe.api_key = '[REDACTED_STRIPE_KEY]'; [REDACTED_STRIPE_KEY]",
        &[("STRIPE_KEY", 2)],
    );
}

#[test]
fn stripe_key_negative() {
    // publishable keys are not secret; too-short bodies are not keys
    untouched("pk_live_51H8abcDEF0123456789");
    untouched("sk_live_");
}

// ---------------------------------------------------------------- JWT

const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";

#[test]
fn jwt_positive() {
    check(
        &format!("cookie session={JWT}; Path=/"),
        "cookie session=[REDACTED_JWT]; Path=/",
        &[("JWT", 1)],
    );
}

#[test]
fn jwt_negative() {
    // header only, and two segments
    untouched("eyJhbGciOiJIUzI1NiJ9");
    untouched("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0");
}

// ---------------------------------------------------------------- GOOGLE_API_KEY

#[test]
fn google_api_key_positive() {
    check(
        "https://maps.googleapis.com/api?key=AIzaSyA1234567890abcdefghijklmnopqrstuv&x=1",
        "https://maps.googleapis.com/api?key=[REDACTED_GOOGLE_API_KEY]&x=1",
        &[("GOOGLE_API_KEY", 1)],
    );
}

#[test]
fn google_api_key_negative() {
    untouched("AIzaSyA1234567890");
    // 36 chars after AIza: not a Google key shape
    untouched("AIzaSyA1234567890abcdefghijklmnopqrstuvw");
}

// ---------------------------------------------------------------- URL_CREDENTIALS

#[test]
fn url_credentials_positive() {
    check(
        "postgres://user:p4ssw0rd@host/db",
        "postgres://[REDACTED_URL_CREDENTIALS]@host/db",
        &[("URL_CREDENTIALS", 1)],
    );
    check(
        "redis://:hunter2@cache:6379/0",
        "redis://[REDACTED_URL_CREDENTIALS]@cache:6379/0",
        &[("URL_CREDENTIALS", 1)],
    );
    // a recognised token inside the userinfo keeps its own, higher TYPE
    check(
        "https://x:ghp_0123456789abcdefghijABCDEFGHIJ012345@github.com/o/r.git",
        "https://x:[REDACTED_GITHUB_TOKEN]@github.com/o/r.git",
        &[("GITHUB_TOKEN", 1)],
    );
}

#[test]
fn url_credentials_negative() {
    untouched("https://github.com/org/repo");
    untouched("git@github.com:org/repo.git");
    untouched("ssh://git@host:22/repo.git");
    untouched("https://user@host/path");
    untouched("http://localhost:3000/?mail=a@b.com");
}

// ---------------------------------------------------------------- BEARER_TOKEN

#[test]
fn bearer_token_positive() {
    check(
        "Authorization: Bearer abc123def456ghi",
        "Authorization: Bearer [REDACTED_BEARER_TOKEN]",
        &[("BEARER_TOKEN", 1)],
    );
    check(
        "curl -H 'authorization: bearer Zm9vYmFy.YmF6-1_x~' https://api",
        "curl -H 'authorization: bearer [REDACTED_BEARER_TOKEN]' https://api",
        &[("BEARER_TOKEN", 1)],
    );
    // a JWT bearer is reported as JWT (higher priority)
    check(
        &format!("Authorization: Bearer {JWT}"),
        "Authorization: Bearer [REDACTED_JWT]",
        &[("JWT", 1)],
    );
}

#[test]
fn bearer_token_negative() {
    untouched("Bearer authentication requires a token");
    untouched("the bearer tokens expire hourly");
    untouched("Authorization: Bearer $TOKEN");
}

// ---------------------------------------------------------------- GENERIC_SECRET

#[test]
fn generic_secret_positive() {
    check(
        "api_key=abcd1234efgh",
        "api_key=[REDACTED_GENERIC_SECRET]",
        &[("GENERIC_SECRET", 1)],
    );
    check(
        r#"{"user": "bob", "password": "hunter2x9"}"#,
        r#"{"user": "bob", "password": "[REDACTED_GENERIC_SECRET]"}"#,
        &[("GENERIC_SECRET", 1)],
    );
    // escaped JSON inside a JSON string (Codex `arguments`)
    check(
        r#"{"arguments":"{\"db_password\": \"hunter2x9\"}"}"#,
        r#"{"arguments":"{\"db_password\": \"[REDACTED_GENERIC_SECRET]\"}"}"#,
        &[("GENERIC_SECRET", 1)],
    );
    check(
        "GET /cb?access_token=abc123def456&state=xyz",
        "GET /cb?access_token=[REDACTED_GENERIC_SECRET]&state=xyz",
        &[("GENERIC_SECRET", 1)],
    );
    check(
        "clientSecret: Zq8vLm2pQ",
        "clientSecret: [REDACTED_GENERIC_SECRET]",
        &[("GENERIC_SECRET", 1)],
    );
}

#[test]
fn generic_secret_negative() {
    untouched("the password field is required");
    untouched("password: required");
    untouched("Set the token in the config, then rotate the secret.");
    untouched("token: abc12"); // < 8 chars
    untouched("password=changeme"); // no digit
    untouched(r#"{"input_tokens": 292, "total_tokens": 12345678}"#);
    untouched(r#"{"tokenizer": "cl100k_base", "author": "dev2024x"}"#);
    untouched("fn password(&self) -> Result<Token, Error>");
    untouched("let token = parse_token(input1);");
}

// ---------------------------------------------------------------- general negatives

#[test]
fn ids_hashes_and_paths_are_not_secrets() {
    untouched("commit a2105fb9c4e5d6f7a8b9c0d1e2f3a4b5c6d7e8f9 (HEAD -> main)");
    untouched("session 8bb2dece-a24f-43d4-80d6-3ee9a889b550 resumed");
    untouched(r#"{"type":"tool_use","id":"toolu_01P4Hgl5wzxwZ0mZhViiKAAe","name":"Bash"}"#);
    untouched(
        r#"{"id":"msg_01qNXNpV9hUxRQ6dR40ZF0um","requestId":"req_01174WBC3TSXuTdAFuJkwT9YE"}"#,
    );
    untouched("/home/dev/.ssh/id_ed25519 and src/secret_store/token.rs and C:\\keys\\api.pem");
    let png = format!(
        r#"{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg{}=="}}}}"#,
        "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVowMTIzNDU2Nzg5K/abc+def".repeat(200)
    );
    untouched(&png);
}

#[test]
fn fast_path_borrows_without_trigger() {
    let text = "just ordinary output: 42 files changed, 7 insertions(+)";
    assert!(!redactor().triggered(text));
    untouched(text);
}

#[test]
fn case_folded_letters_still_trigger() {
    // (?i) in the patterns matches KELVIN SIGN as k and LONG S as s, so
    // the ASCII trigger scan must not pass over them.
    assert!(redactor().triggered("\u{212A}EY"));
    assert!(redactor().triggered("pa\u{17F}\u{17F}word"));
    assert!(redactor().triggered("Bearer x"));
    assert!(redactor().triggered("GHP_x"));
    assert!(!redactor().triggered("gh_x ordinary words"));
    // The same answers as the Unicode case-insensitive regex of the
    // literals, on texts around each trigger.
    let alternation = patterns::TRIGGERS
        .iter()
        .map(|t| regex::escape(t))
        .collect::<Vec<_>>()
        .join("|");
    let unicode = Regex::new(&format!("(?i){alternation}")).expect("compiles");
    for t in patterns::TRIGGERS {
        for text in [
            t.to_string(),
            t.to_uppercase(),
            t.to_lowercase(),
            t.replacen('k', "\u{212A}", 1),
            t.replacen('s', "\u{17F}", 1),
            t[..t.len() - 1].to_string(),
            format!("x{}y", &t[1..]),
        ] {
            let by_regex = unicode.is_match(&text);
            assert!(!by_regex || redactor().triggered(&text), "{text}");
            if text.is_ascii() {
                assert_eq!(redactor().triggered(&text), by_regex, "{text}");
            }
        }
    }
}

// ---------------------------------------------------------------- behaviour

#[test]
fn already_redacted_text_is_unchanged() {
    for t in TYPES {
        untouched(&format!("value [REDACTED_{t}] here"));
        untouched(&format!("api_key=[REDACTED_{t}]"));
        untouched(&format!("Authorization: Bearer [REDACTED_{t}]"));
        untouched(&format!("postgres://[REDACTED_{t}]@host/db"));
    }
}

#[test]
fn counts_accumulate_across_calls() {
    let mut c = Redactions::new();
    let _ = redactor().redact("AKIAIOSFODNN7EXAMPLE", &mut c);
    let _ = redactor().redact("AKIAIOSFODNN7EXAMPLE and api_key=abcd1234efgh", &mut c);
    let _ = redactor().redact("nothing here", &mut c);
    assert_eq!(c, counts(&[("AWS_KEY", 2), ("GENERIC_SECRET", 1)]));
    // sorted JSON output
    assert_eq!(
        serde_json::to_string(&c).ok().as_deref(),
        Some(r#"{"AWS_KEY":2,"GENERIC_SECRET":1}"#)
    );
}

#[test]
fn several_types_in_one_text() {
    check(
        "a=AKIAIOSFODNN7EXAMPLE b=glpat-xYz12AbCdEfGhIjKlMnO c=postgres://u:p4ss@h",
        "a=[REDACTED_AWS_KEY] b=[REDACTED_GITLAB_TOKEN] c=postgres://[REDACTED_URL_CREDENTIALS]@h",
        &[("AWS_KEY", 1), ("GITLAB_TOKEN", 1), ("URL_CREDENTIALS", 1)],
    );
}

#[test]
fn escaped_newline_counts_as_boundary_in_raw_json() {
    check(
        r#""out":"x\nghp_0123456789abcdefghijABCDEFGHIJ012345\nAKIAIOSFODNN7EXAMPLE""#,
        r#""out":"x\n[REDACTED_GITHUB_TOKEN]\n[REDACTED_AWS_KEY]""#,
        &[("AWS_KEY", 1), ("GITHUB_TOKEN", 1)],
    );
}

#[test]
fn non_ascii_text_is_handled() {
    check(
        "пароль: ok — password: hunter2x9 ✓",
        "пароль: ok — password: [REDACTED_GENERIC_SECRET] ✓",
        &[("GENERIC_SECRET", 1)],
    );
}

// ---------------------------------------------------------------- redact_value

#[test]
fn redact_value_walks_strings_and_keeps_keys() {
    let v = json!({
        "command": "echo AKIAIOSFODNN7EXAMPLE",
        "env": {"API_KEY": "abcd1234efgh", "HOME": "/home/dev", "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
        "password": "hunter2x9",
        "list": ["Bearer abc123def456ghi", 3, true, null],
        "ghp_0123456789abcdefghijABCDEFGHIJ012345": 1,
        "timeout": 12345678,
        "token": "not a secret value 123",
    });
    let mut c = Redactions::new();
    let out = redactor().redact_value(&v, &mut c);
    assert_eq!(
        out,
        json!({
            "command": "echo [REDACTED_AWS_KEY]",
            "env": {"API_KEY": "[REDACTED_GENERIC_SECRET]", "HOME": "/home/dev", "aws_secret_access_key": "[REDACTED_AWS_SECRET]"},
            "password": "[REDACTED_GENERIC_SECRET]",
            "list": ["Bearer [REDACTED_BEARER_TOKEN]", 3, true, null],
            "ghp_0123456789abcdefghijABCDEFGHIJ012345": 1,
            "timeout": 12345678,
            "token": "not a secret value 123",
        })
    );
    assert_eq!(
        c,
        counts(&[
            ("AWS_KEY", 1),
            ("AWS_SECRET", 1),
            ("BEARER_TOKEN", 1),
            ("GENERIC_SECRET", 2)
        ])
    );
    // idempotent on values too
    let mut again = Redactions::new();
    assert_eq!(redactor().redact_value(&out, &mut again), out);
    assert!(again.is_empty());
}

// ---------------------------------------------------------------- real corpus

/// Reads a corpus file relative to the repository root (`tests/corpus`).
fn corpus(rel: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(rel);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("corpus file {} missing: {e}", path.display()))
}

#[test]
fn real_claude_code_tool_result_line() {
    let file = corpus(
        "real-cc-2.1.332/tools/projects/-home-dev-work-tools/e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl",
    );
    let line = file
        .lines()
        .find(|l| l.contains(r#""tool_use_id":"toolu_01P4Hgl5wzxwZ0mZhViiKAAe""#))
        .expect("tool_result line present in corpus");

    // Decoded field, as emitted by find_tool_calls.
    let rec: Value = serde_json::from_str(line).expect("corpus line is JSON");
    let stdout = rec["toolUseResult"]["stdout"]
        .as_str()
        .expect("stdout string");
    check(
        stdout,
        "aws_access_key_id=[REDACTED_AWS_KEY]\ntoken: [REDACTED_GITHUB_TOKEN]\nANTHROPIC_API_KEY=[REDACTED_ANTHROPIC_KEY]",
        &[("AWS_KEY", 1), ("ANTHROPIC_KEY", 1), ("GITHUB_TOKEN", 1)],
    );

    // The raw JSONL line: both copies (content and toolUseResult) masked,
    // ids, uuids and timestamps untouched, still valid JSON.
    let (raw, c) = r(line);
    assert_eq!(
        c,
        counts(&[("AWS_KEY", 2), ("ANTHROPIC_KEY", 2), ("GITHUB_TOKEN", 2)])
    );
    for secret in ["AKIAIOSFODNN7EXAMPLE", "ghp_0123456789", "sk-ant-api03"] {
        assert!(!raw.contains(secret), "{secret} leaked");
    }
    for kept in [
        "toolu_01P4Hgl5wzxwZ0mZhViiKAAe",
        "5aa2388a-6023-4a83-8a0a-00c5a9d615d8",
        "e71e9aa1-2571-47ab-8bf7-9e6efaaedfff",
        "2026-11-29T18:00:42.407Z",
    ] {
        assert!(raw.contains(kept), "{kept} lost");
    }
    let reparsed: Value = serde_json::from_str(&raw).expect("still JSON");
    let mut vc = Redactions::new();
    assert_eq!(redactor().redact_value(&rec, &mut vc), reparsed);
    assert_eq!(vc, c);
}

#[test]
fn real_codex_function_call_line() {
    let file = corpus(
        "real-codex-0.171.0/basic/sessions/2026/11/29/rollout-2026-11-29T18-03-47-01a2287a-35b1-76e0-b188-fd2c5f457a31.jsonl",
    );
    let line = file
        .lines()
        .find(|l| l.contains(r#""type":"function_call","#) && l.contains("AKIAIOSFODNN7EXAMPLE"))
        .expect("function_call line present in corpus");
    let rec: Value = serde_json::from_str(line).expect("corpus line is JSON");
    let args = rec["payload"]["arguments"]
        .as_str()
        .expect("arguments string");
    check(
        args,
        r#"{"cmd": "echo [REDACTED_AWS_KEY] [REDACTED_GITHUB_TOKEN]"}"#,
        &[("AWS_KEY", 1), ("GITHUB_TOKEN", 1)],
    );
}

#[test]
fn key_prefilter_never_hides_a_key_the_regexes_name() {
    let (generic, aws) = redactor().key_names();
    // Every key a key-name regex accepts passes the prefilter, and the
    // prefilter drops keys no regex accepts.
    for key in [
        "api_key",
        "API-KEY",
        "x.secret",
        "githubToken",
        "passwd",
        "PASSPHRASE",
        "credentials",
        "Authorization",
        "private-key",
        "aws_secret_access_key",
        "AWSKey",
        "SecretAccessKey",
        "session_id",
        "tool_use_id",
        "sha256",
        "time",
        "command",
        "\u{17F}ecret",
        "\u{212A}ey",
    ] {
        let named = generic.is_match(key) || aws.is_match(key);
        assert!(!named || key_may_name_a_secret(key), "{key}");
    }
    assert!(!key_may_name_a_secret("session_id"));
    assert!(!key_may_name_a_secret("command"));
    assert!(key_may_name_a_secret("\u{17F}ecret"));
    assert!(key_may_name_a_secret("SecretAccessKey"));
}
