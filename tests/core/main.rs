//! Integration tests of the core library (`hookscope_core::…`) through its
//! public API: nothing here runs the binary (those are in `tests/cli`). A
//! test of the `hookscope` package, so it runs in the workspace root, where
//! the corpus paths of `hookscope_test_support` point.

use hookscope_test_support as support;

mod big_session_memory;
mod claude_code_corpus;
mod core_models;
mod docs_links;
mod gen_corpus;
mod history_checkpoint;
mod hook_activity;
mod hook_exec;
mod hook_exec_http;
mod hook_payloads;
mod hook_reach;
mod hook_rules;
mod hook_run;
mod hook_settings;
mod hook_truth;
mod js_matchers;
mod lint_pairs;
mod live_line;
mod replay;
mod rule_cache;
