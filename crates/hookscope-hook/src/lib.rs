//! What a hook for an AI coding agent needs, and nothing else: no
//! transcripts, no SQLite, no zstd.
//!
//! - [`tools`]: typed tool calls ([`tools::parse_tool_call`] →
//!   [`tools::ToolCall`]: `BashCall`, `EditCall`, … `OtherCall`), edit
//!   [`tools::Hunk`]s, and the tool-call digest ([`tools::tool_digest`])
//!   (docs/tool-calls.md#typed-tool-calls).
//! - [`contract`]: Claude Code's hook contract as data, by version: which
//!   events exist, their matcher field, what exit 2 does
//!   (docs/payloads.md#hook-payloads).
//! - [`event`]: hook event names, typed ([`event::EventName`], and
//!   [`event::EventKey`] for a known event or any other name).
//! - [`result`]: a hook's answer, typed: [`result::HookResult`] and its
//!   [`result::Action`], read from or written to the JSON a hook prints
//!   (docs/hook-api.md#results-and-actions).
//! - [`shell`]: a Bash command line parsed with tree-sitter-bash
//!   ([`shell::parse_command_line`]).
//! - [`json_line`]: one line of JSON read leniently (invalid UTF-8, lone
//!   surrogate escapes), and [`text`]: content blocks flattened to text.
//!
//! The `hookscope-core` crate re-exports each module at the same path, so
//! `hookscope_core::tools::parse_tool_call` is this crate's function.
//! docs/architecture.md#the-crates draws the layers.

pub mod contract;
pub mod event;
pub mod json_line;
pub mod result;
pub mod shell;
pub mod text;
pub mod tools;
