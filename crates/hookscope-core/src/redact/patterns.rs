//! The built-in secret patterns, in priority order (docs/tool-calls.md#redaction).
//!
//! Each entry names its TYPE, its regex, which capture group is replaced
//! (0 = the whole match) and a validator run on the replaced text. The
//! validators carry the rules the `regex` crate cannot express (no
//! look-around): "≥1 digit", exact lengths, trailing boundaries.

/// Left boundary for prefix-shaped tokens. The `regex` crate has no
/// look-behind, so the boundary character is consumed outside the value
/// group. Besides start-of-text and any non-word character, a JSON/C escape
/// (`\n`, `\r`, `\t`) counts as a boundary so that raw JSONL text such as
/// `"…\nghp_…"` is still redacted.
macro_rules! lb {
    () => {
        r"(?:^|[^A-Za-z0-9_]|\\[nrt])"
    };
}

/// `KEY <sep> VALUE` glue: optional (escaped) closing quote after the key
/// name, `=`, `:`, `:=` or `=>` with spaces/tabs (never newlines) around it,
/// optional (escaped) opening quote before the value.
macro_rules! sep {
    () => {
        r#"\\?["']?[ \t]*(?::=|=>|=|:)[ \t]*\\?["']?"#
    };
}

/// Key-name keywords for `GENERIC_SECRET`. A keyword may be preceded by
/// anything name-like (`ANTHROPIC_API_KEY`, `dbPassword`) but only followed
/// by a separator-led suffix (`token_value`), so `tokenizer`, `author` and
/// `input_tokens` are not secret keys.
macro_rules! generic_key {
    () => {
        r"[A-Za-z0-9_.-]*?(?:api[_-]?key|secret|token|passwd|password|passphrase|credentials?|private[_-]?key|access[_-]?key|auth)(?:[_.-][A-Za-z0-9_.-]*)?"
    };
}

/// Key names for `AWS_SECRET`: something containing `aws` then `secret` or
/// `key` (`aws_secret_access_key`, `AWS_SECRET_KEY`), or the STS/JSON
/// spelling `SecretAccessKey`.
macro_rules! aws_secret_key {
    () => {
        r"[A-Za-z0-9_.-]*?(?:aws[A-Za-z0-9_.-]*?(?:secret|key)|secret[_-]?access[_-]?key)[A-Za-z0-9_.-]*"
    };
}

/// One built-in pattern.
pub(super) struct Pattern {
    /// TYPE name used in `[REDACTED_<TYPE>]` and in the counts map.
    pub ty: &'static str,
    /// Regex source.
    pub re: &'static str,
    /// Capture group that is replaced; 0 = whole match.
    pub group: usize,
    /// Extra acceptance test on the replaced text and the character right
    /// after it (if any).
    pub check: fn(&str, Option<char>) -> bool,
}

fn always(_: &str, _: Option<char>) -> bool {
    true
}

fn has_digit(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
}

fn has_letter(s: &str) -> bool {
    s.chars().any(char::is_alphabetic)
}

fn not_alnum(next: Option<char>) -> bool {
    !next.is_some_and(|c| c.is_ascii_alphanumeric())
}

/// `AWS_KEY`: the 16 characters after the prefix must end the token.
fn aws_key(_: &str, next: Option<char>) -> bool {
    not_alnum(next)
}

/// `AWS_SECRET`: exactly 40 base64 characters, at least one digit.
pub(super) fn aws_secret_value(v: &str) -> bool {
    v.len() == 40
        && has_digit(v)
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'/' || b == b'+')
}

fn aws_secret(v: &str, _: Option<char>) -> bool {
    aws_secret_value(v)
}

/// Value-shaped check shared by `OPENAI_KEY` and `BEARER_TOKEN`.
fn digit(v: &str, _: Option<char>) -> bool {
    has_digit(v)
}

/// `GOOGLE_API_KEY`: `AIza` + exactly 35.
fn google(v: &str, _: Option<char>) -> bool {
    v.len() == 39
}

/// `GENERIC_SECRET` value: ≥8 chars with a digit (spec) and a letter
/// (decision: all-digit values are counters/timestamps such as
/// `"total_tokens": 12345678`, not secrets).
pub(super) fn generic_value(v: &str) -> bool {
    v.chars().count() >= 8 && has_digit(v) && has_letter(v)
}

fn generic(v: &str, _: Option<char>) -> bool {
    generic_value(v)
}

/// Anchored key-name regex for `GENERIC_SECRET` (used by `redact_value`
/// on JSON object keys).
pub(super) const GENERIC_KEY_ANCHORED: &str = concat!("(?i)^", generic_key!(), "$");
/// Anchored key-name regex for `AWS_SECRET`.
pub(super) const AWS_SECRET_KEY_ANCHORED: &str = concat!("(?i)^", aws_secret_key!(), "$");

/// Cheap trigger literals, compared ASCII case-insensitively: a text
/// holding none of these (and neither of the two non-ASCII letters Unicode
/// case folding maps onto ASCII ones, U+212A KELVIN SIGN and U+017F LONG
/// S, which the patterns' `(?i)` would match as `k` and `s`) cannot match
/// any pattern below, so it is returned untouched without running the set.
/// A superset of every pattern's literal requirements on purpose (the
/// generic key words are matched case-insensitively).
pub(super) const TRIGGERS: &[&str] = &[
    "-----BEGIN",
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "key",
    "secret",
    "token",
    "pass",
    "credential",
    "auth",
    "bearer",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "sk-",
    "xox",
    "k_live_",
    "k_test_",
    "eyJ",
    "AIza",
    "://",
];

/// The patterns, highest priority first. Order must equal
/// [`super::TYPES`].
pub(super) const PATTERNS: &[Pattern] = &[
    // PEM private key block. The body may not contain a run of five dashes
    // (true of every PEM body, headers such as `DEK-Info: AES-128-CBC,…`
    // included), which keeps the search linear when headers have no END.
    // Without an END line (truncated output) the header plus the
    // base64-ish body that follows is masked instead.
    Pattern {
        ty: "PRIVATE_KEY",
        re: concat!(
            r"-----BEGIN[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----",
            r"(?:(?:[^-]|-{1,4}[^-])*?-----END[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----",
            r"|[A-Za-z0-9+/=\s\\:,-]*)"
        ),
        group: 0,
        check: always,
    },
    Pattern {
        ty: "AWS_KEY",
        re: concat!(lb!(), r"((?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})"),
        group: 1,
        check: aws_key,
    },
    Pattern {
        ty: "AWS_SECRET",
        re: concat!(
            r"(?i)(?-u:\b)",
            aws_secret_key!(),
            sep!(),
            r"([A-Za-z0-9/+=]+)"
        ),
        group: 1,
        check: aws_secret,
    },
    Pattern {
        ty: "GITHUB_TOKEN",
        re: concat!(
            lb!(),
            r"(gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"
        ),
        group: 1,
        check: always,
    },
    Pattern {
        ty: "GITLAB_TOKEN",
        re: concat!(lb!(), r"(glpat-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*)"),
        group: 1,
        check: always,
    },
    Pattern {
        ty: "ANTHROPIC_KEY",
        re: concat!(lb!(), r"(sk-ant-[A-Za-z0-9_-]{20,})"),
        group: 1,
        check: always,
    },
    Pattern {
        ty: "OPENAI_KEY",
        re: concat!(lb!(), r"(sk-[A-Za-z0-9_-]{20,})"),
        group: 1,
        check: digit,
    },
    Pattern {
        ty: "SLACK_TOKEN",
        re: concat!(lb!(), r"(xox[baprs]-[A-Za-z0-9-]{10,})"),
        group: 1,
        check: always,
    },
    Pattern {
        ty: "STRIPE_KEY",
        re: concat!(lb!(), r"([sr]k_(?:live|test)_[A-Za-z0-9]{10,})"),
        group: 1,
        check: always,
    },
    Pattern {
        ty: "JWT",
        re: concat!(
            lb!(),
            r"(eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
        ),
        group: 1,
        check: always,
    },
    Pattern {
        ty: "GOOGLE_API_KEY",
        re: concat!(lb!(), r"(AIza[0-9A-Za-z_-]{35,})"),
        group: 1,
        check: google,
    },
    // userinfo (`user:pass`, user may be empty as in `redis://:pw@host`)
    // between `://` and `@`; the scheme and host stay visible.
    Pattern {
        ty: "URL_CREDENTIALS",
        re: r#"://([^\s:/?#@\[\]"'<>\\]*:[^\s/?#@\[\]"'<>\\]+)@"#,
        group: 1,
        check: always,
    },
    Pattern {
        ty: "BEARER_TOKEN",
        re: concat!(
            r"(?i)(?:^|[^A-Za-z0-9_]|\\[nrt])bearer[ \t]+",
            r"([A-Za-z0-9._~+/=-]{8,})"
        ),
        group: 1,
        check: digit,
    },
    Pattern {
        ty: "GENERIC_SECRET",
        re: concat!(
            r"(?i)(?-u:\b)",
            generic_key!(),
            sep!(),
            r#"([^\s"'`,;&|\\\[\]{}()<>]+)"#
        ),
        group: 1,
        check: generic,
    },
];
