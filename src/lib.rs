//! hookscope's core: parsing, transcripts, queries, redaction and hooks.
//! No TUI or CLI code lives here; `src/main.rs` and its `cli`/`tui` modules are
//! thin shells over this library, and [`service`] is what they ask: the
//! sessions, `find_tool_calls` and the backtest, with the persisted index
//! when there is one.

pub mod hooks;
pub mod index;
pub mod json_line;
pub mod mcp;
pub mod printable;
pub mod query;
pub mod redact;
pub mod service;
pub mod shell;
pub mod tools;
pub mod transcript;
