//! The benchmark corpus generator (`crates/test-support/src/gen_corpus.rs`) copies
//! every agent's sessions (the find benchmark includes Codex,
//! OpenCode and Droid data), each copy with fresh session ids.

use std::collections::{BTreeMap, BTreeSet};

use hookscope_core::transcript::{Agent, discover};

use crate::support::{corpus_dir, gen_corpus};

fn per_agent(root: &std::path::Path) -> (BTreeMap<Agent, usize>, BTreeSet<String>) {
    let found = discover(&[root.to_path_buf()]).expect("discovers");
    let mut counts = BTreeMap::new();
    for s in &found.sessions {
        *counts.entry(s.agent).or_insert(0) += 1;
    }
    let ids = found.sessions.iter().map(|s| s.id.clone()).collect();
    (counts, ids)
}

#[test]
fn one_copy_has_every_agent_with_fresh_ids() {
    let source = corpus_dir();
    let out = tempfile::tempdir().expect("tempdir");
    // 1 byte: exactly one copy.
    let g = gen_corpus::generate(&source, out.path(), 1).expect("generates");
    assert_eq!(g.copies, 1);
    let (want, source_ids) = per_agent(&source);
    let (got, copy_ids) = per_agent(&out.path().join("c0000"));
    assert_eq!(got, want);
    // OpenCode: 5 top-level sessions in opencode.db (8 rows, 3 with a
    // parent_id) + 3 legacy session files without a parentID (of 6).
    assert_eq!(got.get(&Agent::OpenCode), Some(&8));
    for agent in Agent::ALL {
        assert!(got.get(&agent).is_some_and(|n| *n > 0), "{agent:?}");
    }
    assert_eq!(g.sessions_per_copy, want.values().sum::<usize>());
    assert!(copy_ids.is_disjoint(&source_ids));
    // Every session of the copy has its own id (two source fixtures share
    // one: 61 sessions, 60 ids).
    assert_eq!(source_ids.len() + 1, g.sessions_per_copy);
    assert_eq!(copy_ids.len(), g.sessions_per_copy);
    // The staging folder is gone; the source was only read.
    assert!(!out.path().join(".opencode-work").exists());
    gen_corpus::verify_first_copy(&source, out.path()).expect("same shape");
}
