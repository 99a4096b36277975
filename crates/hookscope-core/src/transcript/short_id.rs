//! Short session ids that stay unique: each UUID-shaped id is shown as its
//! shortest prefix, at least 8 chars, that no other id in the set shares.
//!
//! [`super::short_session_id`] cuts every UUID to 8 chars, which is enough
//! for Claude Code's random (v4) ids but not for Codex's time-based ones:
//! UUIDv7 starts with the creation time in milliseconds, so sessions started
//! close together share their first 8–12 chars, and an 8-char prefix then
//! names several sessions (`--session` refuses it as ambiguous). Build a
//! [`ShortIds`] over every id a prefix will be resolved against (all
//! discovered sessions, not only the ones shown) and show
//! [`ShortIds::get`]; the `find` table and the TUI's Calls list do (the
//! `sessions` table shows whole ids).
//!
//! Any other id longer than [`MAX_OTHER`] chars is cut to that many with a
//! `…`: its first 11 chars when no other id starts with them (still a
//! usable unique prefix), else 5 + `…` + its last 6 when no other id has
//! that head and tail, else it is shown whole. The full id is in the
//! record's details (`session:` in the TUI's record pane, `session` in
//! JSON).

use std::collections::HashMap;

/// The fewest chars a UUID-shaped id is cut to (as
/// [`super::short_session_id`]).
pub const MIN_SHORT_ID: usize = 8;

/// The most chars a non-UUID id is shown with (its `…` included) when a
/// cut form is unique (see the module doc).
pub const MAX_OTHER: usize = 12;

/// Whether `id` has the shape of a UUID (36 chars with 4 dashes), the only
/// ids that are shortened; any other id is shown whole.
fn uuid_like(id: &str) -> bool {
    id.len() == 36 && id.bytes().filter(|b| *b == b'-').count() == 4
}

/// The shortest unique prefix of each id in a set (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShortIds {
    /// Prefix length in chars, per UUID-shaped id.
    lengths: HashMap<String, usize>,
    /// The cut form of each long non-UUID id that has a unique one.
    cut: HashMap<String, String>,
}

impl ShortIds {
    /// Computes the prefixes for `ids` (repeats are fine: equal ids share
    /// one prefix). Each UUID-shaped id gets the shortest prefix of at least
    /// [`MIN_SHORT_ID`] chars that is not a prefix of any other distinct id
    /// of the set; its whole length when it is itself a prefix of another.
    pub fn new<'a>(ids: impl IntoIterator<Item = &'a str>) -> ShortIds {
        let mut sorted: Vec<&str> = ids.into_iter().collect();
        sorted.sort_unstable();
        sorted.dedup();
        let mut lengths = HashMap::new();
        for (i, id) in sorted.iter().enumerate() {
            if !uuid_like(id) {
                continue;
            }
            // In sorted order the ids sharing the longest prefix with `id`
            // are its neighbours.
            let shared = [i.checked_sub(1), i.checked_add(1)]
                .into_iter()
                .flatten()
                .filter_map(|j| sorted.get(j))
                .map(|other| common_prefix_chars(id, other))
                .max()
                .unwrap_or(0);
            let len = (shared + 1).max(MIN_SHORT_ID).min(id.chars().count());
            lengths.insert((*id).to_string(), len);
        }
        let mut cut = HashMap::new();
        let long: Vec<(usize, &str)> = sorted
            .iter()
            .enumerate()
            .filter(|(_, id)| !uuid_like(id) && id.chars().count() > MAX_OTHER)
            .map(|(i, id)| (i, *id))
            .collect();
        for (i, id) in long {
            let chars: Vec<char> = id.chars().collect();
            let head: String = chars[..MAX_OTHER - 1].iter().collect();
            // In sorted order, the ids starting with `head` are neighbours.
            let prefix_shared = [i.checked_sub(1), i.checked_add(1)]
                .into_iter()
                .flatten()
                .filter_map(|j| sorted.get(j))
                .any(|other| other.starts_with(&head));
            if !prefix_shared {
                cut.insert(id.to_string(), format!("{head}…"));
                continue;
            }
            let head: String = chars[..5].iter().collect();
            let tail: String = chars[chars.len() - 6..].iter().collect();
            let shared = sorted.iter().any(|other| {
                *other != id
                    && other.chars().count() > MAX_OTHER
                    && other.starts_with(&head)
                    && other.ends_with(&tail)
            });
            if !shared {
                cut.insert(id.to_string(), format!("{head}…{tail}"));
            }
        }
        ShortIds { lengths, cut }
    }

    /// The short form of `id`: its unique prefix when it is a UUID-shaped
    /// id of the set; a UUID-shaped id not in the set is cut to
    /// [`MIN_SHORT_ID`] chars; a long other id of the set its unique cut
    /// form ([`MAX_OTHER`] chars with a `…`) when it has one; any other id
    /// is returned whole.
    pub fn get<'a>(&'a self, id: &'a str) -> &'a str {
        if !uuid_like(id) {
            return self.cut.get(id).map_or(id, String::as_str);
        }
        let len = self.lengths.get(id).copied().unwrap_or(MIN_SHORT_ID);
        match id.char_indices().nth(len) {
            Some((end, _)) => &id[..end],
            None => id,
        }
    }
}

/// How many leading chars `a` and `b` share.
fn common_prefix_chars(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_v7_ids_sharing_twelve_chars_are_cut_after_the_first_difference() {
        // Two Codex-like UUIDv7 ids started in the same millisecond: the
        // first 12 hex chars ("019ad8e1-4b2c") are shared, then "-7" (the
        // version digit, the same in every v7 id); the 16th char differs.
        let a = "019ad8e1-4b2c-7a10-8f00-0123456789ab";
        let b = "019ad8e1-4b2c-7d55-9e11-fedcba987654";
        let claude = "8bb2dece-a24f-43d4-80d6-3ee9a889b550";
        let short = ShortIds::new([a, b, claude, a, "edge_cases"]);
        assert_eq!(short.get(a), "019ad8e1-4b2c-7a");
        assert_eq!(short.get(b), "019ad8e1-4b2c-7d");
        // Unshared ids keep 8 chars; other ids are whole.
        assert_eq!(short.get(claude), "8bb2dece");
        assert_eq!(short.get("edge_cases"), "edge_cases");
        // An id not in the set: as short_session_id.
        assert_eq!(
            short.get("11111111-2222-3333-4444-555555555555"),
            "11111111"
        );
    }

    #[test]
    fn long_other_ids_are_cut_to_twelve_when_unique() {
        let a = "aaaaaaaa-0000-4000-8000-000000000001x";
        let b = "aaaaaaaa-0000-4000-8000-000000000002x";
        let c = "aaaaaaaa-0000-4000-8000-000000000002y-other";
        let d = "aaaaaaaa-0000-4000-8000-0000002y-other";
        let tool = "tool-call-session-id";
        let short = ShortIds::new([a, b, c, d, tool, "edge_cases", "exactly12chr"]);
        // A unique 11-char prefix: cut at the end.
        assert_eq!(short.get(tool), "tool-call-s…");
        // Shared prefixes: head and tail, when that pair is unique.
        assert_eq!(short.get(a), "aaaaa…00001x");
        assert_eq!(short.get(b), "aaaaa…00002x");
        // c and d share head and tail: whole.
        assert_eq!(short.get(c), c);
        assert_eq!(short.get(d), d);
        assert_eq!(short.get("edge_cases"), "edge_cases");
        assert_eq!(short.get("exactly12chr"), "exactly12chr");
        // Not in the set: whole.
        assert_eq!(
            short.get("another-long-session-id"),
            "another-long-session-id"
        );
    }

    #[test]
    fn a_shared_first_eight_is_cut_after_the_first_difference() {
        let a = "019ad8e1-0000-7000-8000-000000000000";
        let b = "019ad8e2-0000-7000-8000-000000000000";
        let c = "019ad8e1-1000-7000-8000-000000000000";
        let short = ShortIds::new([a, b, c]);
        assert_eq!(short.get(a), "019ad8e1-0");
        assert_eq!(short.get(c), "019ad8e1-1");
        assert_eq!(short.get(b), "019ad8e2");
    }

    #[test]
    fn equal_ids_do_not_collide_with_themselves() {
        let a = "019ad8e1-4b2c-7a10-8f00-0123456789ab";
        assert_eq!(ShortIds::new([a, a]).get(a), "019ad8e1");
        assert_eq!(ShortIds::new([]).get(a), "019ad8e1");
    }
}
