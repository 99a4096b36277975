//! Silencing lints (docs/your-hooks.md#lints): `--allow ID` for a whole
//! run, or `# hookscope: allow ID[, ID…]` at the end of one command
//! handler's `command` (a shell comment, so the hook runs unchanged).

use serde::Serialize;

use super::explain::{closest_id, describe};
use super::{Lint, Severity};
use crate::hooks::settings::{Handler, HookConfig};

/// The marker of an inline silence in a command handler's `command`.
pub const ALLOW_MARKER: &str = "# hookscope: allow ";

/// The lint ids `h` silences for itself: `# hookscope: allow ID[, ID…]` at
/// the end of its `command` (a shell comment: `#` after a space or at the
/// start). Ids are separated by commas or spaces; empty when none.
pub fn inline_allows(h: &Handler) -> Vec<String> {
    let Some(command) = h.command.as_deref() else {
        return Vec::new();
    };
    let Some(pos) = command.rfind(ALLOW_MARKER) else {
        return Vec::new();
    };
    if pos > 0 && !command[..pos].ends_with([' ', '\t', ';']) {
        return Vec::new();
    }
    command[pos + ALLOW_MARKER.len()..]
        .split([',', ' ', '\t'])
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Lints left after silences, and those silenced.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Silenced {
    /// The lints still reported (an `allow-unknown-lint` for each silence
    /// naming no lint included).
    pub kept: Vec<Lint>,
    /// The lints silenced, for the count.
    pub silenced: Vec<Lint>,
}

/// Applies `allow` (`--allow ID`, everywhere) and each handler's
/// [`inline_allows`] to `lints` (from [`super::lint_config`] over
/// `config`). A silence naming no lint id adds an `allow-unknown-lint`
/// (at its handler, or without a place for `--allow`), which can itself be
/// silenced by `--allow allow-unknown-lint` only.
pub fn apply_allows(config: &HookConfig, lints: Vec<Lint>, allow: &[String]) -> Silenced {
    let mut out = Silenced::default();
    let mut unknown = Vec::new();
    for id in allow {
        if describe(id).is_none() {
            unknown.push(super::lint(
                "allow-unknown-lint",
                Severity::Warning,
                format!("--allow {id:?} names no lint: nothing is silenced by it"),
                closest_id(id).map_or_else(
                    || "see `hookscope hooks --explain` for the ids".to_string(),
                    |c| format!("did you mean {c}?"),
                ),
                None,
            ));
        }
    }
    for (i, h) in config.handlers.iter().enumerate() {
        for id in inline_allows(h) {
            if describe(&id).is_none() {
                unknown.push(super::lint(
                    "allow-unknown-lint",
                    Severity::Warning,
                    format!("`# hookscope: allow {id}` names no lint: nothing is silenced by it"),
                    closest_id(&id).map_or_else(
                        || "see `hookscope hooks --explain` for the ids".to_string(),
                        |c| format!("did you mean {c}?"),
                    ),
                    Some((i, h)),
                ));
            }
        }
    }
    let silences = |l: &Lint| {
        allow.iter().any(|a| a == l.id)
            || l.handler
                .and_then(|i| config.handlers.get(i))
                .is_some_and(|h| inline_allows(h).iter().any(|a| a == l.id))
    };
    for l in lints.into_iter().chain(unknown) {
        if l.id != "allow-unknown-lint" && silences(&l)
            || l.id == "allow-unknown-lint" && allow.iter().any(|a| a == l.id)
        {
            out.silenced.push(l);
        } else {
            out.kept.push(l);
        }
    }
    out
}
