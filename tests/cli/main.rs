//! Integration tests that run the `hookscope` binary (and the library tests
//! that share a file with them). Library-only tests are in `tests/core`.

use hookscope_test_support as support;

mod against_cli;
mod cli;
mod codex_corpus;
mod codex_forks;
mod codex_hooks;
mod droid_corpus;
mod droid_hooks;
mod exec_all_cli;
mod find;
mod find_tally;
mod hook_activity_cli;
mod hook_cli;
mod hook_exec_cli;
mod hook_exec_hostile;
mod hook_rules_cli;
mod hook_rules_guards;
mod hooks_cli;
mod hostile_input;
mod index;
mod index_agents;
mod index_backtest;
mod index_grow;
mod index_rows;
mod index_safety;
mod mcp;
mod opencode_corpus;
mod opencode_spawn_cost;
mod payload_cli;
mod property;
mod replay_cli;
mod show_cli;
mod tail_cli;
mod terminal_output;
mod tool_kinds;
