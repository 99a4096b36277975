//! The screen split: banner, panes (three columns from [`WIDE`] columns,
//! else the focused pane and its neighbour) and status bar, for drawing and
//! for mouse hits.

use ratatui::layout::{Constraint, Direction, Layout, Rect};

use super::context::Pane;

/// Where each part of the screen is, for drawing and for mouse hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Areas {
    /// The demo banner line (zero-sized when there is none).
    pub banner: Rect,
    /// Everything between banner and status bar (the panes, or the Calls
    /// view).
    pub main: Rect,
    /// The session list, when shown.
    pub sessions: Option<Rect>,
    /// The timeline, when shown.
    pub timeline: Option<Rect>,
    /// The detail pane, when shown.
    pub detail: Option<Rect>,
    /// The status bar.
    pub status: Rect,
}

/// Below this width the layout shows two panes (the focused one and its
/// neighbour) instead of three.
pub const WIDE: u16 = 120;

/// Splits the screen: banner, panes, status bar. Wide terminals get three
/// columns (26/34/40 %, from 180 columns 30/32/38 %); narrow ones show
/// Sessions|Timeline or Timeline|Detail depending on focus.
pub fn areas(area: Rect, focus: Pane, banner: bool) -> Areas {
    let [banner_area, main, status] = Layout::vertical([
        Constraint::Length(u16::from(banner)),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    let mut out = Areas {
        banner: banner_area,
        main,
        status,
        ..Areas::default()
    };
    if area.width >= WIDE {
        // From 180 columns the session list takes a larger share, so
        // titles are not cut at ~50 columns on a 200-column terminal.
        let shares = if area.width >= 180 {
            [30, 32, 38]
        } else {
            [26, 34, 40]
        };
        let [s, t, d] = Layout::horizontal(shares.map(Constraint::Percentage)).areas(main);
        out.sessions = Some(s);
        out.timeline = Some(t);
        out.detail = Some(d);
    } else {
        let split = Layout::default()
            .direction(Direction::Horizontal)
            .constraints([Constraint::Percentage(45), Constraint::Percentage(55)])
            .split(main);
        if focus == Pane::Sessions {
            out.sessions = Some(split[0]);
            out.timeline = Some(split[1]);
        } else {
            out.timeline = Some(split[0]);
            out.detail = Some(split[1]);
        }
    }
    out
}
