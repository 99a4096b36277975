//! hookscope's core: the agents' transcripts, queries, redaction, the
//! index and hooks. No TUI or CLI code lives here: the `hookscope` binary
//! (`src/main.rs` and its `cli`/`tui` modules) is a thin shell over this
//! library, and [`service`] is what it asks: the sessions,
//! `find_tool_calls` and the backtest, with the persisted index when there
//! is one.
//!
//! What a hook itself needs (typed tool calls, the hook contract, hook
//! results, shell parsing) is the smaller `hookscope-hook` crate; its
//! modules are re-exported here at the same paths ([`tools`], [`shell`],
//! [`json_line`], [`hooks::contract`], [`hooks::result`],
//! [`transcript::text`]). docs/architecture.md#the-crates draws the layers.

pub mod hooks;
pub mod index;
pub mod mcp;
pub mod printable;
pub mod query;
pub mod redact;
pub mod service;
#[cfg(test)]
mod test_files;
pub mod transcript;

pub use hookscope_hook::{json_line, shell, tools};
