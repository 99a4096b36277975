//! What the two test binaries (`tests/core`, `tests/cli`) share.
//!
//! Each binary uses a part of it, hence the `dead_code` allowance.
#![allow(dead_code)]

/// The benchmark corpus generator, the file the benches include too.
#[path = "../../benches/support/gen_corpus.rs"]
pub mod gen_corpus;
