//! Keys → [`Action`]s, and the table the help overlay renders: one source of
//! truth, so the help can never drift from what the keys do.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::Action;

/// A key with its modifiers (Shift is ignored for characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// Ctrl/Alt (Shift is folded into the character).
    pub mods: KeyModifiers,
}

impl Key {
    const fn plain(code: KeyCode) -> Key {
        Key {
            code,
            mods: KeyModifiers::NONE,
        }
    }

    const fn ch(c: char) -> Key {
        Key::plain(KeyCode::Char(c))
    }

    const fn ctrl(c: char) -> Key {
        Key {
            code: KeyCode::Char(c),
            mods: KeyModifiers::CONTROL,
        }
    }

    /// How the key is written in the help overlay, e.g. `Ctrl-D`, `PgDn`, `j`.
    pub fn label(&self) -> String {
        let base = match self.code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "Shift-Tab".into(),
            KeyCode::Backspace => "Backspace".into(),
            other => format!("{other:?}"),
        };
        if self.mods.contains(KeyModifiers::CONTROL) {
            format!("Ctrl-{}", base.to_uppercase())
        } else {
            base
        }
    }
}

/// One row of the key map: the keys, what they do, and the help text.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// Keys that trigger the action.
    pub keys: &'static [Key],
    /// The action.
    pub action: Action,
    /// One line for the help overlay.
    pub help: &'static str,
}

/// The key map in normal mode (not typing a search), in help-overlay order.
pub const BINDINGS: &[Binding] = &[
    Binding {
        keys: &[Key::ch('j'), Key::plain(KeyCode::Down)],
        action: Action::Down,
        help: "down one row (detail: scroll)",
    },
    Binding {
        keys: &[Key::ch('k'), Key::plain(KeyCode::Up)],
        action: Action::Up,
        help: "up one row",
    },
    Binding {
        keys: &[Key::ch('g'), Key::plain(KeyCode::Home)],
        action: Action::Top,
        help: "first row",
    },
    Binding {
        keys: &[Key::ch('G'), Key::plain(KeyCode::End)],
        action: Action::Bottom,
        help: "last row",
    },
    Binding {
        keys: &[Key::plain(KeyCode::PageDown)],
        action: Action::PageDown,
        help: "down one page",
    },
    Binding {
        keys: &[Key::plain(KeyCode::PageUp)],
        action: Action::PageUp,
        help: "up one page",
    },
    Binding {
        keys: &[Key::ctrl('d')],
        action: Action::HalfPageDown,
        help: "down half a page",
    },
    Binding {
        keys: &[Key::ctrl('u')],
        action: Action::HalfPageUp,
        help: "up half a page",
    },
    Binding {
        keys: &[
            Key::plain(KeyCode::Enter),
            Key::ch('l'),
            Key::plain(KeyCode::Right),
        ],
        action: Action::Enter,
        help: "go in: open session, expand Task/Agent, show detail",
    },
    Binding {
        keys: &[
            Key::ch('h'),
            Key::plain(KeyCode::Left),
            Key::plain(KeyCode::Esc),
        ],
        action: Action::Back,
        help: "go back: clear filter, collapse, parent, previous pane",
    },
    Binding {
        keys: &[Key::ch(' ')],
        action: Action::ToggleExpand,
        help: "expand/collapse a Task/Agent call's subagent",
    },
    Binding {
        keys: &[Key::plain(KeyCode::Tab)],
        action: Action::FocusNext,
        help: "next pane",
    },
    Binding {
        keys: &[Key::plain(KeyCode::BackTab)],
        action: Action::FocusPrev,
        help: "previous pane",
    },
    Binding {
        keys: &[Key::ch('/')],
        action: Action::StartSearch,
        help: "search: filter the list (detail: find text)",
    },
    Binding {
        keys: &[Key::ch('n')],
        action: Action::SearchNext,
        help: "next match",
    },
    Binding {
        keys: &[Key::ch('N')],
        action: Action::SearchPrev,
        help: "previous match",
    },
    Binding {
        keys: &[Key::ch('o')],
        action: Action::ShowMore,
        help: "detail: show more of a long output",
    },
    Binding {
        keys: &[Key::ch('c')],
        action: Action::OpenCalls,
        help: "Calls view: every tool call, filtered (c again: back)",
    },
    Binding {
        keys: &[Key::ch('t')],
        action: Action::SameTool,
        help: "quick filter: calls of the selected call's tool",
    },
    Binding {
        keys: &[Key::ch('f')],
        action: Action::SameFile,
        help: "quick filter: calls mentioning the selected call's file",
    },
    Binding {
        keys: &[Key::ch('e')],
        action: Action::ErrorsOnly,
        help: "quick filter: failed calls of this tool (Calls: toggle)",
    },
    Binding {
        keys: &[Key::ch('r')],
        action: Action::Replay,
        help: "replay the hook events of the selected call/turn/session",
    },
    Binding {
        keys: &[Key::ch('y')],
        action: Action::CopyPayload,
        help: "replay: copy the payload JSON",
    },
    Binding {
        keys: &[Key::ch('Y')],
        action: Action::CopyTestCase,
        help: "replay: copy the payload as a rule-file test case",
    },
    Binding {
        keys: &[Key::ch('w')],
        action: Action::WritePayload,
        help: "replay: write the payload to a file",
    },
    Binding {
        keys: &[Key::ch('x')],
        action: Action::RunHooks,
        help: "replay: run your hooks on the payload (asks first)",
    },
    Binding {
        keys: &[Key::ch('H')],
        action: Action::HookActivity,
        help: "timeline: only rows where a hook acted (toggle)",
    },
    Binding {
        keys: &[Key::ch('B')],
        action: Action::Backtest,
        help: "backtest --rules, or your hooks (asks first), everywhere",
    },
    Binding {
        keys: &[Key::ch('D')],
        action: Action::ToggleDiagnostics,
        help: "list diagnostics (path:line: message)",
    },
    Binding {
        keys: &[Key::ch('?')],
        action: Action::ToggleHelp,
        help: "this help",
    },
    Binding {
        keys: &[Key::ch('q')],
        action: Action::Quit,
        help: "quit (closes an overlay first)",
    },
    Binding {
        keys: &[Key::ctrl('c')],
        action: Action::ForceQuit,
        help: "quit, always",
    },
];

/// The keys of the search box, in help-overlay order (any other printable
/// character is typed into the box).
pub const SEARCH_BINDINGS: &[Binding] = &[
    Binding {
        keys: &[Key::plain(KeyCode::Enter)],
        action: Action::SearchConfirm,
        help: "keep the search",
    },
    Binding {
        keys: &[Key::plain(KeyCode::Esc)],
        action: Action::SearchCancel,
        help: "clear the search",
    },
    Binding {
        keys: &[Key::plain(KeyCode::Backspace)],
        action: Action::SearchBackspace,
        help: "delete a character",
    },
    Binding {
        keys: &[Key::ctrl('u')],
        action: Action::ClearLine,
        help: "clear the search text",
    },
    Binding {
        keys: &[Key::ctrl('c')],
        action: Action::ForceQuit,
        help: "quit, always",
    },
];

/// The keys of the Calls view's filter line, in help-overlay order (any
/// other printable character is typed into the line).
pub const CALLS_FILTER_BINDINGS: &[Binding] = &[
    Binding {
        keys: &[Key::plain(KeyCode::Tab)],
        action: Action::Complete,
        help: "complete a key, tool name, session id or value",
    },
    Binding {
        keys: &[Key::plain(KeyCode::Enter), Key::plain(KeyCode::Esc)],
        action: Action::SearchConfirm,
        help: "leave the line (it keeps filtering) and walk the list",
    },
    Binding {
        keys: &[Key::plain(KeyCode::Backspace)],
        action: Action::SearchBackspace,
        help: "delete a character",
    },
    Binding {
        keys: &[Key::ctrl('u')],
        action: Action::ClearLine,
        help: "clear the line",
    },
    Binding {
        keys: &[Key::ctrl('c')],
        action: Action::ForceQuit,
        help: "quit, always",
    },
];

/// The keys of Tab's candidates popup in the Calls filter line (any other
/// printable character closes it and is typed into the line).
pub const COMPLETION_BINDINGS: &[Binding] = &[
    Binding {
        keys: &[Key::plain(KeyCode::Tab)],
        action: Action::Complete,
        help: "next candidate (takes a name typed in full)",
    },
    Binding {
        keys: &[Key::plain(KeyCode::Down)],
        action: Action::Down,
        help: "next candidate",
    },
    Binding {
        keys: &[Key::plain(KeyCode::BackTab), Key::plain(KeyCode::Up)],
        action: Action::Up,
        help: "previous candidate",
    },
    Binding {
        keys: &[Key::plain(KeyCode::Enter)],
        action: Action::Enter,
        help: "take it",
    },
    Binding {
        keys: &[Key::plain(KeyCode::Esc)],
        action: Action::Back,
        help: "close the list",
    },
    Binding {
        keys: &[Key::plain(KeyCode::Backspace)],
        action: Action::SearchBackspace,
        help: "close the list, delete a character",
    },
    Binding {
        keys: &[Key::ctrl('u')],
        action: Action::ClearLine,
        help: "close the list, clear the line",
    },
    Binding {
        keys: &[Key::ctrl('c')],
        action: Action::ForceQuit,
        help: "quit, always",
    },
];

/// The filter line's words, for the help overlay.
pub const CALLS_FILTER_HELP: &[(&str, &str)] = &[
    (
        "tool:NAME",
        "whole name, any case (Tab completes); name:TEXT a part",
    ),
    (
        "input:TEXT",
        "input contains (bare words too); quote spaces: \"rm -rf\"",
    ),
    ("output:TEXT", "output contains; -output:TEXT excludes"),
    ("is:error is:ok", "failed / succeeded calls"),
    (
        "is:blocked",
        "a hook blocked it (it did not run); -is:blocked: not",
    ),
    (
        "is:flagged",
        "a hook objected after the call ran; is:rewritten",
    ),
    (
        "hook:EVENT",
        "calls with a hook firing of EVENT (PreToolUse…)",
    ),
    (
        "ruled:RULE",
        "calls hookscope hook logged RULE on; is:ruled any",
    ),
    ("session:ID", "session id or prefix, repeatable"),
    (
        "agent:NAME",
        "claude-code codex opencode droid (Tab completes)",
    ),
    (
        "since: until:",
        "RFC 3339, 2026-11-29, or 90s 30m 36h 2d 1w",
    ),
    (
        "limit:N mode:M",
        "records (default 1000); output head|tail|smart",
    ),
    (
        "redact:off",
        "show secrets unmasked; cost:on joins spawn costs",
    ),
];

/// Which key table applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMode {
    /// Moving around: [`BINDINGS`].
    Normal,
    /// Typing a pane's search: [`SEARCH_BINDINGS`], characters typed.
    Search,
    /// Typing the Calls filter line: [`CALLS_FILTER_BINDINGS`], characters
    /// typed.
    CallsFilter,
    /// Tab's candidates popup is open: [`COMPLETION_BINDINGS`], characters
    /// typed into the line.
    Completion,
}

/// Every key bound to `action` in normal mode, as the help writes them
/// (`j ↓`); `None` when no key is.
pub fn keys_of(action: Action) -> Option<String> {
    let b = BINDINGS.iter().find(|b| b.action == action)?;
    Some(b.keys.iter().map(Key::label).collect::<Vec<_>>().join(" "))
}

/// The one key a hint line shows for `action`: Esc when it is bound (the
/// key people try first), else the first key.
pub fn hint_key(action: Action) -> Option<String> {
    let b = BINDINGS.iter().find(|b| b.action == action)?;
    let esc = Key::plain(KeyCode::Esc);
    let key = if b.keys.contains(&esc) {
        esc
    } else {
        *b.keys.first()?
    };
    Some(key.label())
}

/// What the marks on a call's row mean (Timeline, Calls view, `show`;
/// [`hookscope_core::transcript::hook_activity::HookAction::mark`]). A
/// Timeline whose rows would not fit shows a hook mark's sign alone.
pub const MARKS_HELP: &[(&str, &str)] = &[
    ("✗", "the call failed (its result is an error)"),
    (
        "⛔",
        "hook blocked, or asked then denied: not run (find: ⊘)",
    ),
    (
        "⚠",
        "hook objected after the call ran; or it failed/cancelled",
    ),
    ("↻", "hook rewrote the input (asked → ran)"),
    ("⇄", "hook replaced the output"),
    (
        "⚖",
        "hook's permission decision, not deny (allow, ask, defer)",
    ),
    ("+", "hook added context"),
    ("§", "the verdict hookscope hook logged (--decisions)"),
    ("⚑", "a row of its own: a hook firing on an event"),
    (
        "◦",
        "a note (a process ended or resumed, a system message, …)",
    ),
];

/// Mouse help lines (not keys, but listed with them).
pub const MOUSE_HELP: &[(&str, &str)] = &[
    ("wheel", "scroll the pane under the pointer"),
    ("click", "focus the pane under the pointer"),
];

fn normalize(key: KeyEvent) -> Key {
    let mut mods = key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
    let code = match key.code {
        // Some terminals report Ctrl-letters as upper case.
        KeyCode::Char(c) if mods.contains(KeyModifiers::CONTROL) => {
            KeyCode::Char(c.to_ascii_lowercase())
        }
        other => other,
    };
    if matches!(code, KeyCode::BackTab) {
        mods = KeyModifiers::NONE;
    }
    Key { code, mods }
}

fn lookup(table: &[Binding], key: Key) -> Option<Action> {
    table
        .iter()
        .find(|b| b.keys.contains(&key))
        .map(|b| b.action)
}

/// Maps a key event to an action in `mode`. While a search box or the
/// Calls filter line has the keys, printable characters are typed into it.
pub fn action_for(key: KeyEvent, mode: KeyMode) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let k = normalize(key);
    let table = match mode {
        KeyMode::Normal => return lookup(BINDINGS, k),
        KeyMode::Search => SEARCH_BINDINGS,
        KeyMode::CallsFilter => CALLS_FILTER_BINDINGS,
        KeyMode::Completion => COMPLETION_BINDINGS,
    };
    if let Some(action) = lookup(table, k) {
        return Some(action);
    }
    match k.code {
        KeyCode::Char(c) if k.mods.is_empty() => Some(Action::SearchInput(c)),
        _ => None,
    }
}

/// The key reference of docs/keys.md (between its `keymap:begin` and
/// `keymap:end` markers), generated from the tables above so the docs
/// cannot drift from the keys: one Markdown table per mode (normal, search,
/// Calls filter line, completion), the filter words, and the mouse. Used
/// by the test that keeps docs/keys.md current.
#[cfg(test)]
pub fn markdown_reference() -> String {
    let cell = |t: &str| t.replace('|', "\\|");
    let keys = |b: &Binding| {
        b.keys
            .iter()
            .map(|k| format!("`{}`", k.label()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = String::new();
    for (title, table) in [
        ("Browsing (every pane)", BINDINGS),
        ("Typing a search (`/`)", SEARCH_BINDINGS),
        ("The Calls view's filter line", CALLS_FILTER_BINDINGS),
        ("Completing a filter word (`Tab`)", COMPLETION_BINDINGS),
    ] {
        out.push_str(&format!("### {title}\n\n| key | does |\n|---|---|\n"));
        for b in table {
            out.push_str(&format!("| {} | {} |\n", keys(b), cell(b.help)));
        }
        out.push('\n');
    }
    out.push_str("### Filter words (Calls view)\n\n| word | means |\n|---|---|\n");
    for (word, what) in CALLS_FILTER_HELP {
        out.push_str(&format!("| `{}` | {} |\n", cell(word), cell(what)));
    }
    out.push_str("\n### Marks on a call's row\n\n| mark | means |\n|---|---|\n");
    for (mark, what) in MARKS_HELP {
        out.push_str(&format!("| `{}` | {} |\n", cell(mark), cell(what)));
    }
    out.push_str("\n### Mouse\n\n| mouse | does |\n|---|---|\n");
    for (what, does) in MOUSE_HELP {
        out.push_str(&format!("| {} | {} |\n", cell(what), cell(does)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/keys.md's generated reference is the key map's
    /// ([`markdown_reference`]); `HOOKSCOPE_UPDATE_DOCS=1 cargo test
    /// keys_doc` rewrites it after a key change.
    #[test]
    fn keys_doc_is_generated_from_the_key_map() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/keys.md");
        let doc = std::fs::read_to_string(path).expect("docs/keys.md");
        let (begin, end) = ("<!-- keymap:begin -->\n", "<!-- keymap:end -->");
        let a = doc.find(begin).expect("begin marker") + begin.len();
        let b = doc.find(end).expect("end marker");
        let want = markdown_reference();
        if std::env::var_os("HOOKSCOPE_UPDATE_DOCS").is_some() {
            let updated = format!("{}{want}{}", &doc[..a], &doc[b..]);
            std::fs::write(path, updated).expect("write docs/keys.md");
            return;
        }
        assert_eq!(
            &doc[a..b],
            want,
            "docs/keys.md is out of date: HOOKSCOPE_UPDATE_DOCS=1 cargo test keys_doc rewrites it"
        );
    }

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn maps_normal_keys() {
        let none = KeyModifiers::NONE;
        assert_eq!(
            action_for(key(KeyCode::Char('j'), none), KeyMode::Normal),
            Some(Action::Down)
        );
        assert_eq!(
            action_for(
                key(KeyCode::Char('G'), KeyModifiers::SHIFT),
                KeyMode::Normal
            ),
            Some(Action::Bottom)
        );
        assert_eq!(
            action_for(
                key(KeyCode::Char('d'), KeyModifiers::CONTROL),
                KeyMode::Normal
            ),
            Some(Action::HalfPageDown)
        );
        assert_eq!(
            action_for(key(KeyCode::BackTab, KeyModifiers::SHIFT), KeyMode::Normal),
            Some(Action::FocusPrev)
        );
        assert_eq!(
            action_for(
                key(KeyCode::Char('c'), KeyModifiers::CONTROL),
                KeyMode::Normal
            ),
            Some(Action::ForceQuit)
        );
        assert_eq!(
            action_for(key(KeyCode::Char('x'), none), KeyMode::Normal),
            Some(Action::RunHooks)
        );
        assert_eq!(
            action_for(key(KeyCode::Char('%'), none), KeyMode::Normal),
            None
        );
    }

    #[test]
    fn search_box_takes_characters() {
        let none = KeyModifiers::NONE;
        assert_eq!(
            action_for(key(KeyCode::Char('q'), none), KeyMode::Search),
            Some(Action::SearchInput('q'))
        );
        assert_eq!(
            action_for(key(KeyCode::Esc, none), KeyMode::Search),
            Some(Action::SearchCancel)
        );
        assert_eq!(
            action_for(
                key(KeyCode::Char('c'), KeyModifiers::CONTROL),
                KeyMode::Search
            ),
            Some(Action::ForceQuit)
        );
    }

    #[test]
    fn completion_list_moves_takes_and_types() {
        let none = KeyModifiers::NONE;
        let mode = KeyMode::Completion;
        assert_eq!(
            action_for(key(KeyCode::Tab, none), mode),
            Some(Action::Complete)
        );
        assert_eq!(
            action_for(key(KeyCode::BackTab, KeyModifiers::SHIFT), mode),
            Some(Action::Up)
        );
        assert_eq!(
            action_for(key(KeyCode::Enter, none), mode),
            Some(Action::Enter)
        );
        assert_eq!(
            action_for(key(KeyCode::Esc, none), mode),
            Some(Action::Back)
        );
        assert_eq!(
            action_for(key(KeyCode::Char('j'), none), mode),
            Some(Action::SearchInput('j'))
        );
    }

    #[test]
    fn calls_filter_line_takes_tab_and_characters() {
        let none = KeyModifiers::NONE;
        let mode = KeyMode::CallsFilter;
        assert_eq!(
            action_for(key(KeyCode::Tab, none), mode),
            Some(Action::Complete)
        );
        assert_eq!(
            action_for(key(KeyCode::Char('t'), none), mode),
            Some(Action::SearchInput('t'))
        );
        assert_eq!(
            action_for(key(KeyCode::Char('u'), KeyModifiers::CONTROL), mode),
            Some(Action::ClearLine)
        );
        assert_eq!(
            action_for(key(KeyCode::Esc, none), mode),
            Some(Action::SearchConfirm)
        );
        assert_eq!(
            action_for(key(KeyCode::Char('t'), none), KeyMode::Normal),
            Some(Action::SameTool)
        );
    }
}
