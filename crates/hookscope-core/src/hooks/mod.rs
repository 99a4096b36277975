//! Hooks: the contract each agent's hooks follow, what a hook received
//! and returned, and everything hookscope does with a hook configuration.
//! No TUI/CLI code: the CLI, the TUI and the MCP server all call into here.
//!
//! * [`contract`]: Claude Code's hook contract as data (events, fields,
//!   matcher fields, default timeouts, by version).
//! * [`events`]: typed views over a hook's stdin JSON, and the rebuild of
//!   that JSON from a transcript ([`events::payload`]; docs/hooks-payloads.md).
//! * [`result`]: what a hook returns ([`result::HookResult`],
//!   [`result::Action`]), the output it prints, and what Claude Code then
//!   does with an output.
//! * [`rules`]: rule sets (TOML) evaluated over a payload, with a why per
//!   rule.
//! * [`replay`]: one event replayed through a rule set with the history
//!   before it and what the transcript recorded; the backtest over many
//!   sessions; the hook firings a transcript records (docs/replay.md).
//! * [`settings`]: the user's hook configuration (which files applied,
//!   every handler with `file:line` and layer) and which handlers an event
//!   reaches ([`settings::explain`]); [`matcher`]: Claude Code's matcher and
//!   `if` semantics; [`lint`]: lints over a configuration and a handler's
//!   output.
//! * [`exec`]: running the real handlers on a rebuilt payload and reading
//!   their answers as Claude Code does (docs/hooks-exec.md,
//!   docs/security.md "Running hooks"); [`cwd_map`]: replaying another
//!   machine's transcript.
//! * [`dialect`]: the seam the shells call: one [`dialect::Dialect`] per
//!   agent (Claude Code, Codex, Droid) loads its hooks, says which fire,
//!   rebuilds payloads and plans runs, so no shell branches on the agent.
//! * [`codex`]: Codex CLI's hook dialect (its matcher, payloads and how it
//!   reads answers); Factory Droid's payloads are rebuilt by [`events`] in
//!   Droid's shape.

pub mod codex;
pub mod cwd_map;
pub mod decisions;
pub mod dialect;
pub mod events;
pub mod exec;
pub mod history_checkpoint;
pub mod install;
pub mod lint;
pub mod live;
pub mod matcher;
pub mod reach;
pub mod replay;
pub mod rules;
pub mod settings;

pub use hookscope_hook::{contract, result};
