//! hookscope's core: parsing, transcripts, queries, redaction and hooks.
//! No TUI or CLI code lives here; `src/main.rs` and its `cli`/`tui` modules are
//! thin shells over this library.

pub mod hooks;
pub mod index;
pub mod mcp;
pub mod printable;
pub mod query;
pub mod redact;
pub mod shell;
pub mod tools;
pub mod transcript;
