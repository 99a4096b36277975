//! Reusable pieces the views build on: coloured diffs, pretty JSON, the
//! status bar, shared text helpers.

pub mod diff;
pub mod json;
pub mod status_bar;
pub mod text;
