//! Everything a key (or the mouse, or the terminal) can ask the app to do.
//!
//! Keys become [`Action`]s in [`super::keymap`]; the app state changes only in
//! [`super::app::App::handle`] (which offers them to the components). Keeping one flat enum makes the help overlay,
//! tests and any future config file speak the same names.

/// One thing the user (or the terminal) asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Move the selection (or scroll) up one row.
    Up,
    /// Move the selection (or scroll) down one row.
    Down,
    /// Jump to the first row.
    Top,
    /// Jump to the last row.
    Bottom,
    /// Up one page.
    PageUp,
    /// Down one page.
    PageDown,
    /// Up half a page.
    HalfPageUp,
    /// Down half a page.
    HalfPageDown,
    /// Go in: open a session, expand a Task/Agent call, or focus the detail.
    Enter,
    /// Go back: collapse, go to the parent row, or focus the previous pane.
    Back,
    /// Expand or collapse a Task/Agent call's subagent in place.
    ToggleExpand,
    /// Focus the next pane.
    FocusNext,
    /// Focus the previous pane.
    FocusPrev,
    /// Start typing a search for the focused pane.
    StartSearch,
    /// Next search match.
    SearchNext,
    /// Previous search match.
    SearchPrev,
    /// A character typed into the search box.
    SearchInput(char),
    /// Delete the last character of the search box.
    SearchBackspace,
    /// Keep the search and leave the search box.
    SearchConfirm,
    /// Clear the search and leave the search box.
    SearchCancel,
    /// Complete the word being typed in the Calls filter line (Tab).
    Complete,
    /// Clear the search box or the Calls filter line.
    ClearLine,
    /// Open the Calls view (or go back from it).
    OpenCalls,
    /// Quick filter: calls of the selected call's tool.
    SameTool,
    /// Quick filter: calls whose input mentions the selected call's file.
    SameFile,
    /// Quick filter: failed calls (of the selected call's tool from the
    /// timeline; toggles `is:error` in the Calls view).
    ErrorsOnly,
    /// Show more of a long output in the Detail pane (4× per press).
    ShowMore,
    /// Open the replay pane on the selected call, turn or session.
    Replay,
    /// Replay pane: copy the picked event's payload JSON.
    CopyPayload,
    /// Replay pane: copy the payload as a rule-file test case.
    CopyTestCase,
    /// Replay pane: write the payload to a file (a path prompt).
    WritePayload,
    /// Replay pane: run your hook handlers on the payload (a confirmation
    /// dialog first; nothing runs before its Enter).
    RunHooks,
    /// Timeline: show only the rows where a hook acted (toggle).
    HookActivity,
    /// Run the loaded rule set over every session and list the would-be
    /// blocks (the backtest).
    Backtest,
    /// Show or hide the key help overlay.
    ToggleHelp,
    /// Show or hide the diagnostics overlay.
    ToggleDiagnostics,
    /// Quit (or close the open overlay).
    Quit,
    /// Quit now, whatever is open.
    ForceQuit,
    /// Mouse wheel at a screen cell; `down` scrolls towards the end.
    ScrollAt {
        /// Screen column.
        column: u16,
        /// Screen row.
        row: u16,
        /// Towards the end (wheel down) or the start.
        down: bool,
    },
    /// Mouse click at a screen cell (focuses the pane under it).
    ClickAt {
        /// Screen column.
        column: u16,
        /// Screen row.
        row: u16,
    },
    /// The terminal was resized.
    Resize {
        /// New width in cells.
        width: u16,
        /// New height in cells.
        height: u16,
    },
}
