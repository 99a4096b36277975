//! Every `docs/<file>.md#<section>` the repository cites (code comments,
//! docs, the README) names a file of `docs/` and a heading in it, so a
//! reader of the repository alone can follow each one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::support::package_path;

/// GitHub's anchor of a heading: lowercase, punctuation other than `-` and
/// `_` dropped, spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if !p.ends_with("corpus") && !p.ends_with("snapshots") {
                files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs" || x == "md") {
            out.push(p);
        }
    }
}

#[test]
fn every_cited_docs_section_exists() {
    let docs = package_path("docs");
    let mut anchors: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in std::fs::read_dir(&docs).expect("docs").flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "md") {
            let text = std::fs::read_to_string(&p).expect("read");
            let set = text
                .lines()
                .filter_map(|l| l.strip_prefix('#'))
                .map(|l| slug(l.trim_start_matches('#')))
                .collect();
            let name = p
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_string();
            anchors.insert(name, set);
        }
    }
    let mut sources = vec![package_path("README.md")];
    for dir in ["src", "crates", "benches", "tests", "docs"] {
        files(&package_path(dir), &mut sources);
    }
    let cite = regex::Regex::new(r"docs/([\w-]+\.md)#([\w-]+)").expect("regex");
    let mut missing = Vec::new();
    let mut cited = 0;
    for path in &sources {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        for c in cite.captures_iter(&text) {
            cited += 1;
            let ok = anchors.get(&c[1]).is_some_and(|s| s.contains(&c[2]));
            if !ok {
                missing.push(format!("{}: docs/{}#{}", path.display(), &c[1], &c[2]));
            }
        }
    }
    assert!(cited > 300, "only {cited} citations found");
    assert!(
        missing.is_empty(),
        "cited sections that do not exist:\n{}",
        missing.join("\n")
    );
}
