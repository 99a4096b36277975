//! Claude Code's hook contract and hook replay (issue 8): the contract as
//! data ([`contract`]), typed views over a hook's stdin JSON and the
//! rebuild of that JSON from a transcript ([`events`]).
//!
//! No TUI/CLI code: the CLI (`hookscope payload`), the TUI and the MCP server
//! all call into here.

pub mod contract;
pub mod events;
