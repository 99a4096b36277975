//! Tool-name helpers: harness aliases, pipe-spec expansion, captain_hook-style
//! name matching and MCP name parsing (docs/tool-calls.md#names-and-aliases).
//!
//! Note: this is captain_hook's matching, **not** Claude Code's matcher
//! semantics (docs/contract.md#matchers). Claude Code would need `mcp__github__Grep` or a
//! regex to catch an MCP tool; `tool_name_matches("mcp__github__Grep", "Grep")`
//! is true here.

use std::collections::BTreeSet;

/// Canonical (Claude Code) tool name → the spelling another harness uses for
/// the same tool (docs/tool-calls.md#names-and-aliases). `Execute`,
/// `Create`, `FetchUrl`, `ExitSpecMode` are Factory Droid names, `apply_patch`
/// is Codex's, `Task` is Claude Code's pre-2.x name of `Agent`.
pub const TOOL_ALIASES: &[(&str, &str)] = &[
    ("Bash", "Execute"),
    ("Edit", "apply_patch"),
    ("Write", "Create"),
    ("Agent", "Task"),
    ("WebFetch", "FetchUrl"),
    ("ExitPlanMode", "ExitSpecMode"),
];

/// Canonical names whose alias is applied in the forward direction only:
/// a spec naming the harness spelling does **not** pull in the canonical one
/// (docs/tool-calls.md#names-and-aliases: `Edit` → `apply_patch` is forward only).
const FORWARD_ONLY: &[&str] = &["Edit"];

/// Extra forward-only spellings beyond [`TOOL_ALIASES`]: `Bash` also covers
/// Codex's unified-exec tool `exec_command` (docs/tool-calls.md#names-and-aliases).
const EXTRA_FORWARD: &[(&str, &str)] = &[("Bash", "exec_command")];

/// Bare MCP tool segments known to behave like a built-in gate (cc_transcript's
/// "registered spec behaves_like"; cc_transcript documents cc-context's
/// `ccx_code_edit` / `ccx_code_replace`, which write files through MCP under
/// names no `Edit` gate would otherwise catch). Bare segment → built-in.
pub const MCP_BEHAVES_LIKE: &[(&str, &str)] =
    &[("ccx_code_edit", "Edit"), ("ccx_code_replace", "Edit")];

/// The canonical spelling for a harness alias (`Execute` → `Bash`), if any.
/// Follows [`TOOL_ALIASES`] in reverse, skipping forward-only entries.
pub fn canonical_of(alias: &str) -> Option<&'static str> {
    TOOL_ALIASES
        .iter()
        .find(|(canon, harness)| *harness == alias && !FORWARD_ONLY.contains(canon))
        .map(|(canon, _)| *canon)
}

/// Expand a pipe-separated tool spec (`"Bash|Grep"`) into the set of
/// spellings it should match (docs/tool-calls.md#names-and-aliases).
///
/// Each `|`-separated entry is kept verbatim (no trimming, empty entries
/// kept, as in cc_transcript) and adds:
/// * its forward alias from [`TOOL_ALIASES`] (`Bash` → `Execute`), plus
///   `exec_command` for `Bash`;
/// * its reverse alias (`Execute` → `Bash`), except for forward-only
///   `Edit`/`apply_patch` (a spec of `apply_patch` does not match `Edit`);
/// * the bare MCP tool segments of [`MCP_BEHAVES_LIKE`] whose built-in ends
///   up in the set (`Edit` → `ccx_code_edit`, `ccx_code_replace`).
///
/// Aliases are applied one level deep (no transitive closure).
pub fn expand_tool_names(spec: &str) -> BTreeSet<String> {
    let base: BTreeSet<String> = spec.split('|').map(str::to_string).collect();
    let mut out = base.clone();
    for name in &base {
        for (canon, harness) in TOOL_ALIASES.iter().chain(EXTRA_FORWARD) {
            if canon == name {
                out.insert((*harness).to_string());
            }
        }
        if let Some(canon) = canonical_of(name) {
            out.insert(canon.to_string());
        }
    }
    for (bare, builtin) in MCP_BEHAVES_LIKE {
        if out.contains(*builtin) {
            out.insert((*bare).to_string());
        }
    }
    out
}

/// Whether `actual` is one of `names`, exactly or as an MCP tool suffix
/// (docs/tool-calls.md#names-and-aliases).
///
/// True when `actual` is in `names`, or when it splits as
/// `mcp__<server>__<tool>` ([`mcp_parts`]) and `<tool>` — or the built-in it
/// behaves like per [`MCP_BEHAVES_LIKE`] — is in `names`. Harness aliases are
/// **not** closed over: `names` is taken verbatim (`Execute` does not match
/// `{"Bash"}`); pre-expand with [`expand_tool_names`] for those.
///
/// `names` is anything iterable over strings: `&BTreeSet<String>`,
/// `&[&str]`, `&Vec<String>`, …
///
/// ```
/// use hookscope_hook::tools::matches_names;
/// assert!(matches_names("mcp__github__Grep", ["Grep"]));
/// assert!(!matches_names("Execute", ["Bash"]));
/// ```
pub fn matches_names<I, S>(actual: &str, names: I) -> bool
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let names: Vec<S> = names.into_iter().collect();
    matches_by(actual, |needle| names.iter().any(|n| n.as_ref() == needle))
}

/// [`matches_names`] with the names asked through `contains`.
fn matches_by(actual: &str, contains: impl Fn(&str) -> bool) -> bool {
    if contains(actual) {
        return true;
    }
    let Some((_, tool)) = mcp_parts(actual) else {
        return false;
    };
    contains(tool)
        || MCP_BEHAVES_LIKE
            .iter()
            .any(|(bare, builtin)| *bare == tool && contains(builtin))
}

/// Whether `actual` matches the pipe spec `spec`, honoring aliases and MCP
/// suffixes: [`matches_names`] over [`expand_tool_names`]`(spec)`.
/// `tool_name_matches("Execute", "Bash|Grep")` and
/// `tool_name_matches("mcp__github__Grep", "Grep")` are both true.
///
/// ```
/// use hookscope_hook::tools::tool_name_matches;
/// assert!(tool_name_matches("Execute", "Bash|Grep"));
/// assert!(tool_name_matches("mcp__github__Grep", "Grep"));
/// ```
pub fn tool_name_matches(actual: &str, spec: &str) -> bool {
    // A rule set asks about the same few specs for every event of a
    // backtest: each is expanded once per thread (at most
    // `EXPANDED_SPECS` kept; past that the memo starts again).
    thread_local! {
        static EXPANDED: std::cell::RefCell<
            std::collections::HashMap<String, std::rc::Rc<BTreeSet<String>>>,
        > = std::cell::RefCell::new(std::collections::HashMap::new());
    }
    const EXPANDED_SPECS: usize = 256;
    let names = EXPANDED.with(|memo| {
        let mut memo = memo.borrow_mut();
        if let Some(names) = memo.get(spec) {
            return names.clone();
        }
        if memo.len() >= EXPANDED_SPECS {
            memo.clear();
        }
        let names = std::rc::Rc::new(expand_tool_names(spec));
        memo.insert(spec.to_string(), names.clone());
        names
    });
    matches_by(actual, |needle| names.contains(needle))
}

/// Split `mcp__<server>__<tool>` into `(server, tool)` on the first two `__`
/// (docs/tool-calls.md#names-and-aliases): `mcp__a__b__c` → `("a", "b__c")`. `None` when the
/// name lacks the `mcp__` prefix, the second `__`, or when the server or tool
/// part would be empty (consistent with the `^mcp__(.+?)__(.+)$` rule of
/// docs/tool-calls.md#tool-kind-and-resolved-name).
///
/// ```
/// use hookscope_hook::tools::mcp_parts;
/// assert_eq!(mcp_parts("mcp__semble__search"), Some(("semble", "search")));
/// assert_eq!(mcp_parts("Bash"), None);
/// ```
pub fn mcp_parts(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    if server.is_empty() || tool.is_empty() {
        return None;
    }
    Some((server, tool))
}

/// Verbs that mark an MCP tool as read-only (docs/tool-calls.md#names-and-aliases).
pub const MCP_READ_VERBS: &[&str] = &[
    "get", "list", "search", "read", "view", "fetch", "query", "describe", "show", "find",
];

/// Classify an MCP tool segment as `"read"` or `"write"` by its verbs
/// (docs/tool-calls.md#names-and-aliases).
///
/// The segment is lowercased; it is `"read"` when it **starts with** a verb
/// of [`MCP_READ_VERBS`] or one of its `_`-separated tokens **equals** one
/// (`ccx_read`), else `"write"`. The prefix test is deliberate upstream
/// behaviour, so `listen_x` and `showcase` count as reads.
///
/// ```
/// use hookscope_hook::tools::mcp_access;
/// assert_eq!(mcp_access("search"), "read");
/// assert_eq!(mcp_access("ccx_read"), "read");
/// assert_eq!(mcp_access("deploy"), "write");
/// ```
pub fn mcp_access(tool: &str) -> &'static str {
    let lower = tool.to_lowercase();
    let is_read = MCP_READ_VERBS
        .iter()
        .any(|verb| lower.starts_with(verb) || lower.split('_').any(|tok| tok == *verb));
    if is_read { "read" } else { "write" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn seed_matches_names_examples() {
        let grep = set(&["Grep"]);
        let bash = set(&["Bash"]);
        assert!(matches_names("mcp__github__Grep", &grep));
        assert!(!matches_names("Execute", &bash));
        assert!(matches_names("Grep", &grep) && matches_names("Bash", &bash));
        assert!(matches_names("Execute", ["Execute"]));
        assert!(matches_names("Grep", &["Grep", "Bash"][..]));
        assert!(!matches_names("mcp__github__Grep", ["Bash"]));
        assert!(!matches_names("github__Grep", ["Grep"]));
    }

    #[test]
    fn matches_names_behaves_like_closure() {
        assert!(matches_names("mcp__ccx__ccx_code_edit", ["Edit"]));
        assert!(!matches_names("mcp__ccx__ccx_code_edit", ["Write"]));
    }

    #[test]
    fn seed_tool_name_matches_examples() {
        assert!(tool_name_matches("Execute", "Bash|Grep"));
        assert!(tool_name_matches("mcp__github__Grep", "Grep"));
        assert!(tool_name_matches("exec_command", "Bash"));
        assert!(tool_name_matches("Bash", "Execute"));
        assert!(tool_name_matches("apply_patch", "Edit"));
        assert!(!tool_name_matches("Edit", "apply_patch"));
        assert!(!tool_name_matches("Read", "Bash|Grep"));
        assert!(tool_name_matches(
            "mcp__ccx__ccx_code_replace",
            "Edit|Write"
        ));
    }

    #[test]
    fn expand_tool_names_adds_aliases() {
        assert_eq!(
            expand_tool_names("Bash|Grep"),
            set(&["Bash", "Execute", "Grep", "exec_command"])
        );
        assert_eq!(
            expand_tool_names("Edit"),
            set(&["Edit", "apply_patch", "ccx_code_edit", "ccx_code_replace"])
        );
        assert_eq!(expand_tool_names("apply_patch"), set(&["apply_patch"]));
        assert_eq!(expand_tool_names("Task"), set(&["Agent", "Task"]));
        assert_eq!(expand_tool_names("Create"), set(&["Create", "Write"]));
        assert_eq!(
            expand_tool_names("WebFetch|ExitPlanMode"),
            set(&["ExitPlanMode", "ExitSpecMode", "FetchUrl", "WebFetch"])
        );
        assert_eq!(expand_tool_names("Read"), set(&["Read"]));
    }

    #[test]
    fn tool_aliases_table() {
        assert_eq!(TOOL_ALIASES.len(), 6);
        assert!(TOOL_ALIASES.contains(&("Bash", "Execute")));
        assert!(TOOL_ALIASES.contains(&("ExitPlanMode", "ExitSpecMode")));
        assert_eq!(canonical_of("Execute"), Some("Bash"));
        assert_eq!(canonical_of("apply_patch"), None);
        assert_eq!(canonical_of("Bash"), None);
    }

    #[test]
    fn seed_mcp_parts_examples() {
        assert_eq!(mcp_parts("mcp__semble__search"), Some(("semble", "search")));
        assert_eq!(mcp_parts("Bash"), None);
        assert_eq!(mcp_parts("mcp__a__b__c"), Some(("a", "b__c")));
        assert_eq!(
            mcp_parts("mcp__plugin_x_srv__do_it"),
            Some(("plugin_x_srv", "do_it"))
        );
        assert_eq!(mcp_parts("mcp__memory"), None);
        assert_eq!(mcp_parts("mcp____x"), None);
        assert_eq!(mcp_parts("mcp__srv__"), None);
    }

    #[test]
    fn seed_mcp_access_examples() {
        assert_eq!(mcp_access("search"), "read");
        assert_eq!(mcp_access("ccx_read"), "read");
        assert_eq!(mcp_access("deploy"), "write");
        assert_eq!(mcp_access("GetIssue"), "read");
        assert_eq!(mcp_access("create_issue"), "write");
        assert_eq!(mcp_access("issue_list"), "read");
        assert_eq!(mcp_access("listen_x"), "read");
        assert_eq!(mcp_access("showcase"), "read");
        assert_eq!(mcp_access("preview"), "write");
        assert_eq!(mcp_access(""), "write");
    }
}
