//! Integration tests of the core library (`hookscope::…`): nothing here runs
//! the binary, so this binary builds and runs without the `cli` feature
//! (`cargo test --no-default-features --test core`). Tests that run the
//! binary are in `tests/cli`.

#[path = "../support/mod.rs"]
mod support;

mod big_session_memory;
mod claude_code_corpus;
mod core_models;
mod gen_corpus;
mod hook_activity;
mod hook_exec;
mod hook_exec_http;
mod hook_payloads;
mod hook_rules;
mod hook_settings;
mod hook_truth;
mod replay;
