//! `--cwd-map OLD=NEW`: replaying someone else's transcript on this machine
//! (docs/replay-and-backtest.md "Running your real hooks (`--exec`)", docs/hooks-exec.md "Other
//! people's transcripts").
//!
//! A transcript records the folders of the machine it was written on: the
//! session's project (its first `cwd`), every payload's `cwd`, the absolute
//! paths in tool inputs. [`CwdMap`] maps a recorded folder `OLD` to a local
//! folder `NEW`: in the rebuilt payload (every JSON string that is `OLD` or
//! starts with `OLD/`), in `CLAUDE_PROJECT_DIR` and in the folder the hooks
//! run in. Only whole path prefixes are mapped: `/home/dev/work/app2` is not
//! under `/home/dev/work/app`, and a path in the middle of a command line
//! (`cd /home/dev/work/app && …`) is left as written.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

/// Most `--cwd-map` pairs honoured (a command line never needs more).
pub const MAX_PAIRS: usize = 64;

/// Deepest JSON nesting [`CwdMap::map_value`] walks (serde_json's own parse
/// limit is 128, so a payload is never deeper).
const MAX_DEPTH: usize = 256;

/// One `OLD=NEW` pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CwdPair {
    /// The recorded folder, as written (absolute, without a trailing `/`).
    pub old: String,
    /// The local folder, resolved against the invocation's folder.
    pub new: String,
}

/// The `--cwd-map` pairs, longest `OLD` first so a nested project wins over
/// its parent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CwdMap {
    /// The pairs, longest `OLD` first.
    pub pairs: Vec<CwdPair>,
}

impl CwdMap {
    /// Parses `OLD=NEW` arguments; `NEW` is resolved against `base` (the
    /// invocation's folder) when relative.
    ///
    /// # Errors
    /// The first bad argument, in words: no `=`, an empty side, an `OLD`
    /// that is not absolute or is `/`, more than [`MAX_PAIRS`] pairs.
    pub fn parse(args: &[String], base: &Path) -> Result<CwdMap, String> {
        if args.len() > MAX_PAIRS {
            return Err(format!(
                "--cwd-map: at most {MAX_PAIRS} pairs, {} given",
                args.len()
            ));
        }
        let mut pairs = Vec::new();
        for arg in args {
            let Some((old, new)) = arg.split_once('=') else {
                return Err(format!(
                    "--cwd-map {arg:?}: expected OLD=NEW (the recorded folder = a folder here)"
                ));
            };
            let old = old.trim_end_matches('/');
            if old.is_empty() || new.is_empty() {
                return Err(format!(
                    "--cwd-map {arg:?}: both OLD and NEW are needed, and OLD cannot be /"
                ));
            }
            if !old.starts_with('/') {
                return Err(format!(
                    "--cwd-map {arg:?}: OLD is the folder as the transcript records it, an absolute path"
                ));
            }
            let new_path = Path::new(new);
            let new = if new_path.is_absolute() {
                new_path.to_path_buf()
            } else {
                base.join(new_path)
            };
            let new = new.display().to_string();
            let new = if new.len() > 1 {
                new.trim_end_matches('/').to_string()
            } else {
                new
            };
            pairs.push(CwdPair {
                old: old.to_string(),
                new,
            });
        }
        pairs.sort_by_key(|p| std::cmp::Reverse(p.old.len()));
        Ok(CwdMap { pairs })
    }

    /// Whether no pair was given.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// `text` with its leading `OLD` replaced by `NEW`, when `text` is `OLD`
    /// or starts with `OLD/` (the longest such `OLD`); `None` otherwise.
    pub fn map_str(&self, text: &str) -> Option<String> {
        self.pairs.iter().find_map(|p| {
            let rest = text.strip_prefix(p.old.as_str())?;
            (rest.is_empty() || rest.starts_with('/')).then(|| format!("{}{rest}", p.new))
        })
    }

    /// [`CwdMap::map_str`] on a path; the path itself when nothing maps
    /// (or it is not UTF-8).
    pub fn map_path(&self, path: &Path) -> PathBuf {
        path.to_str()
            .and_then(|s| self.map_str(s))
            .map_or_else(|| path.to_path_buf(), PathBuf::from)
    }

    /// Maps every string of `value` (object values and array items, not
    /// keys) with [`CwdMap::map_str`], in place; returns how many changed.
    /// Nesting deeper than 256 levels is left as it is.
    pub fn map_value(&self, value: &mut Value) -> usize {
        if self.is_empty() {
            return 0;
        }
        self.walk(value, 0)
    }

    fn walk(&self, value: &mut Value, depth: usize) -> usize {
        if depth > MAX_DEPTH {
            return 0;
        }
        match value {
            Value::String(s) => match self.map_str(s) {
                Some(mapped) => {
                    *s = mapped;
                    1
                }
                None => 0,
            },
            Value::Array(items) => items.iter_mut().map(|v| self.walk(v, depth + 1)).sum(),
            Value::Object(map) => map.values_mut().map(|v| self.walk(v, depth + 1)).sum(),
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(args: &[&str]) -> CwdMap {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        CwdMap::parse(&args, Path::new("/here")).expect("parses")
    }

    #[test]
    fn whole_prefixes_only_longest_first() {
        let m = map(&["/home/dev/work=/w", "/home/dev/work/app/=rel/app"]);
        assert_eq!(m.pairs[0].old, "/home/dev/work/app");
        assert_eq!(m.pairs[0].new, "/here/rel/app");
        assert_eq!(
            m.map_str("/home/dev/work/app/src/a.rs").as_deref(),
            Some("/here/rel/app/src/a.rs")
        );
        assert_eq!(
            m.map_str("/home/dev/work/app").as_deref(),
            Some("/here/rel/app")
        );
        assert_eq!(m.map_str("/home/dev/work/app2").as_deref(), Some("/w/app2"));
        assert_eq!(m.map_str("/home/dev/workshop"), None);
        assert_eq!(m.map_str("cd /home/dev/work/app"), None);
        let mut v = json!({"cwd": "/home/dev/work/app/src", "tool_input": {"file_path": "/home/dev/work/app/a", "command": "ls /home/dev/work/app"}, "list": ["/home/dev/work"], "n": 1});
        assert_eq!(m.map_value(&mut v), 3);
        assert_eq!(v["cwd"], "/here/rel/app/src");
        assert_eq!(v["tool_input"]["command"], "ls /home/dev/work/app");
        assert_eq!(v["list"][0], "/w");
    }

    #[test]
    fn bad_pairs_are_refused_in_words() {
        let bad = |a: &str| CwdMap::parse(&[a.to_string()], Path::new("/")).expect_err(a);
        assert!(bad("nope").contains("expected OLD=NEW"));
        assert!(bad("/=x").contains("OLD cannot be /"));
        assert!(bad("rel=/x").contains("absolute path"));
        assert!(bad("/a=").contains("both OLD and NEW"));
        let many: Vec<String> = (0..=MAX_PAIRS).map(|i| format!("/a{i}=/b")).collect();
        assert!(CwdMap::parse(&many, Path::new("/")).is_err());
    }
}
