//! Hooks: what a hook returns and what Claude Code then does
//! ([`result`]), and rule sets evaluated over hook payloads ([`rules`])
//! (issue 8; hooks.md §1.6–1.8, §2.4; seed 002 "Events & Results").

pub mod result;
pub mod rules;
