//! Claude Code's hook contract and hook replay (issue 8): the contract as
//! data ([`contract`]), typed views over a hook's stdin JSON and the
//! rebuild of that JSON from a transcript ([`events`]), what a hook returns
//! and what Claude Code then does ([`result`]), and rule sets evaluated over
//! hook payloads ([`rules`]) (hooks.md §1.6–1.8, §2.4; seed 002).
//!
//! No TUI/CLI code: the CLI (`hookscope payload`), the TUI and the MCP server
//! all call into here.

pub mod codex;
pub mod contract;
pub mod cwd_map;
pub mod events;
pub mod exec;
pub mod lint;
pub mod matcher;
pub mod replay;
pub mod result;
pub mod rules;
pub mod settings;
