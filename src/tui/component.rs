//! Components: the TUI's visible building blocks (after gitui's
//! `components/mod.rs`).
//!
//! Each pane (Sessions, Timeline, Detail, the Calls view) and each overlay
//! (help, diagnostics) is one struct in its own module that owns its state
//! (selection, scroll, filter, what it last laid out in) and its keys, and
//! implements [`Component`]:
//!
//! - [`Component::event`] gets an [`Action`] (keys are turned into actions by
//!   [`super::keymap`], the one source of truth for keys) and says whether it
//!   used it ([`EventState`]); the app offers the action to the focused
//!   component first and handles what is left (focus, overlays, quit);
//! - [`Component::commands`] lists what it offers now (or everything, for
//!   the help): the hint line and the help overlay are built from these
//!   lists, with the keys looked up in the keymap, so they cannot drift;
//! - [`Component::draw`] renders from `&self` and the shared [`Ctx`]; it
//!   never writes state back (scroll offsets are computed in the state
//!   transitions from the area the component was last laid out in).
//!
//! A component never reads another pane's fields: what crosses panes (open
//! this session, select this call, focus Detail) is a [`super::context::Effect`] pushed to
//! [`Ctx::effects`] that the app routes, and what a pane shows of another's
//! selection is handed to it by the app (e.g. Detail's subject).
//! Popups are drawn into the screen minus the status bar, so an overlay never
//! hides the bar that says how to leave it.

use ratatui::Frame;
use ratatui::layout::Rect;

use super::action::Action;
use super::context::Ctx;

/// Whether a component used an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventState {
    /// It acted on it; nobody else sees it.
    Consumed,
    /// Not for it; the app handles it (or offers it to the next).
    NotConsumed,
}

impl EventState {
    /// Whether the event was used.
    pub fn is_consumed(self) -> bool {
        self == EventState::Consumed
    }
}

/// One thing a component offers: an action and what it does here. The keys
/// come from [`super::keymap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    /// The action the keys trigger.
    pub action: Action,
    /// A short name for the hint line (`open`, `search`).
    pub name: &'static str,
    /// One line for the help overlay.
    pub help: &'static str,
}

impl Command {
    /// A command.
    pub const fn new(action: Action, name: &'static str, help: &'static str) -> Command {
        Command { action, name, help }
    }
}

/// A pane or overlay: state, keys, what it offers, drawing.
pub trait Component {
    /// Offers an action; [`EventState::Consumed`] when the component acted.
    fn event(&mut self, action: Action, ctx: &mut Ctx) -> EventState;

    /// Appends the commands it offers now to `out` (every command it can
    /// ever offer when `force_all`, for the help overlay).
    fn commands(&self, ctx: &Ctx, out: &mut Vec<Command>, force_all: bool);

    /// Draws into `area`; `focused` says whether it has the keys.
    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx, focused: bool);
}

/// The first visible row of a list after a move, as ratatui's `List` keeps
/// it (scroll padding 0): the smallest change of `offset` that shows
/// `selected` whole, given each row's height and `max` rows of room. The
/// list draws with this offset and leaves it unchanged. Without room (not
/// laid out yet, or a zero-height pane) the offset is kept, as ratatui
/// draws nothing then.
pub fn follow(offset: usize, selected: Option<usize>, heights: &[usize], max: usize) -> usize {
    if heights.is_empty() {
        return 0;
    }
    if max == 0 {
        return offset;
    }
    let len = heights.len();
    let mut first = offset.min(len - 1);
    let mut last = first;
    let mut used = 0;
    for h in &heights[first..] {
        if used + h > max {
            break;
        }
        used += h;
        last += 1;
    }
    let show = selected.map_or(first, |s| s.min(len - 1));
    while show >= last {
        used += heights[last];
        last += 1;
        while used > max && first < last {
            used -= heights[first];
            first += 1;
        }
    }
    while show < first {
        first -= 1;
        used += heights[first];
        while used > max && last > first + 1 {
            last -= 1;
            used -= heights[last];
        }
    }
    first
}

/// Moves `delta` steps from `current` within `items`, clamping at the ends.
pub fn moved<T: Copy + PartialEq>(items: &[T], current: Option<T>, delta: isize) -> Option<T> {
    if items.is_empty() {
        return None;
    }
    let pos = current
        .and_then(|c| items.iter().position(|x| *x == c))
        .unwrap_or(0);
    let last = items.len() - 1;
    let next = pos.saturating_add_signed(delta).min(last);
    items.get(next).copied()
}

/// The next (or previous) item after `current`, wrapping around.
pub fn wrapped<T: Copy + PartialEq>(items: &[T], current: Option<T>, forward: bool) -> Option<T> {
    let pos = current.and_then(|c| items.iter().position(|x| *x == c));
    let n = items.len();
    if n == 0 {
        return None;
    }
    let next = match (pos, forward) {
        (None, _) => 0,
        (Some(p), true) => (p + 1) % n,
        (Some(p), false) => (p + n - 1) % n,
    };
    items.get(next).copied()
}

/// How many rows a movement action moves in a list of `page` visible rows
/// (`None` for actions that do not move).
pub fn delta_of(action: Action, page: usize) -> Option<isize> {
    let page = isize::try_from(page.max(1)).unwrap_or(1);
    Some(match action {
        Action::Up => -1,
        Action::Down => 1,
        Action::Top => isize::MIN / 2,
        Action::Bottom => isize::MAX / 2,
        Action::PageUp => -page,
        Action::PageDown => page,
        Action::HalfPageUp => -(page / 2).max(1),
        Action::HalfPageDown => (page / 2).max(1),
        Action::ScrollAt { down: true, .. } => 3,
        Action::ScrollAt { down: false, .. } => -3,
        _ => return None,
    })
}

/// Rows inside a bordered block of `area` (at least 1).
pub fn inner_rows(area: Rect) -> usize {
    usize::from(area.height.saturating_sub(2)).max(1)
}

/// Applies a search-box key to `line` (`searching` is the pane's "keys go to
/// the box" flag): typing, Backspace, Ctrl-U, Enter (keep) and Esc (clear).
/// Returns whether the text may have changed (the pane then re-filters).
pub fn type_into(line: &mut String, searching: &mut bool, action: Action) -> bool {
    match action {
        Action::SearchInput(c) => line.push(c),
        Action::SearchBackspace => {
            line.pop();
        }
        Action::ClearLine => line.clear(),
        Action::SearchConfirm => {
            *searching = false;
            return false;
        }
        Action::SearchCancel => {
            *searching = false;
            line.clear();
        }
        _ => return false,
    }
    true
}

/// A rectangle of at most `width`×`height` centred in `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// `sel` moved by `delta` rows within a list of `len` (clamped to its
/// first and last row).
pub fn step(sel: usize, delta: isize, len: usize) -> usize {
    sel.saturating_add_signed(delta).min(len.saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follow_keeps_the_selection_in_view_like_ratatui() {
        // Ten one-row items, five rows of room.
        let ones = [1; 10];
        assert_eq!(follow(0, Some(3), &ones, 5), 0);
        assert_eq!(follow(0, Some(7), &ones, 5), 3);
        assert_eq!(follow(3, Some(1), &ones, 5), 1);
        assert_eq!(follow(9, None, &ones, 5), 9);
        // Two-row sessions under one-row headers.
        let mixed = [1, 2, 2, 1, 2];
        assert_eq!(follow(0, Some(4), &mixed, 4), 3);
        assert_eq!(follow(0, Some(2), &mixed, 4), 1);
        assert_eq!(follow(0, Some(0), &[], 4), 0);
    }
}
