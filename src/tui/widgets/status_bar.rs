//! The bottom line: where you are (session › turn › call), counts, the
//! diagnostics count with its key, and the search box while typing.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use unicode_width::UnicodeWidthStr;

use crate::tui::context::Ctx;
use crate::tui::widgets::text::fit;

/// What the app puts in the bar besides the shared counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    /// Where you are (the breadcrumb) or what the keys do now.
    pub left: String,
    /// The search box's text while a pane's search is typed into.
    pub typing: Option<String>,
}

/// The right side: sessions (or how many are read so far, or the index's
/// sync progress), the
/// diagnostics count and the help key.
pub fn counts_text(ctx: &Ctx) -> String {
    counts_text_as(ctx, false)
}

/// [`counts_text`], `short`: the keys without their words (`· D 0 · ? `),
/// for a bar whose left side would not fit beside the long form.
fn counts_text_as(ctx: &Ctx, short: bool) -> String {
    let loaded = ctx.sessions.iter().filter(|s| s.summary.is_some()).count();
    // While another process builds the index, this one's counts cover only
    // the chunk it waits on: the wait itself is what to say.
    let mut right = if ctx.indexing.is_some() && ctx.waiting_for_build {
        "waiting for another hookscope process to index these sessions…".to_string()
    } else if let Some((done, total)) = ctx.indexing {
        format!(
            "indexing {}/{} sessions…",
            crate::words::thousands(done),
            crate::words::thousands(total)
        )
    } else if ctx.checking {
        format!(
            "{} sessions (as indexed; checking the disk…)",
            crate::words::thousands(ctx.sessions.len())
        )
    } else if ctx.summaries_done {
        match ctx.sessions.len() {
            1 => "1 session".to_string(),
            n => format!("{} sessions", crate::words::thousands(n)),
        }
    } else {
        format!(
            "{}/{} read",
            crate::words::thousands(loaded),
            crate::words::thousands(ctx.sessions.len())
        )
    };
    let diagnostics = crate::words::thousands(ctx.diagnostics.len());
    if short {
        right.push_str(&format!(" · D {diagnostics} · ? "));
    } else {
        right.push_str(&format!(" · D {diagnostics} diag · ? help "));
    }
    right
}

/// Where you are, in parts: `title › lead › spawn › … › last`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Crumbs {
    /// The session's title.
    pub title: Option<String>,
    /// `turn N` (or `unlinked subagent`).
    pub lead: Option<String>,
    /// Each spawn down to the call's subagent: (label with its
    /// description, type alone).
    pub spawns: Vec<(String, String)>,
    /// The selected call's tool name (or `text`, `event`).
    pub last: Option<String>,
}

/// The fewest cells the session title is cut to (a few chars and `…`)
/// before the spawns are shortened.
const MIN_TITLE: usize = 8;

/// The breadcrumb within `room` display cells, keeping its end: the
/// session title yields first (cut at a word, down to [`MIN_TITLE`]
/// cells), then the spawns are named by type alone, then the spawns
/// farthest from the call become `…`; last, the title goes and the rest
/// is cut from its start (`…` first).
pub fn fit_crumbs(crumbs: &Crumbs, room: usize) -> String {
    let tail = |spawns: &[String], elided: bool| -> String {
        let mut parts: Vec<&str> = Vec::new();
        parts.extend(crumbs.lead.as_deref());
        if elided {
            parts.push("…");
        }
        parts.extend(spawns.iter().map(String::as_str));
        parts.extend(crumbs.last.as_deref());
        parts.join(" › ")
    };
    let full: Vec<String> = crumbs.spawns.iter().map(|s| s.0.clone()).collect();
    let short: Vec<String> = crumbs.spawns.iter().map(|s| s.1.clone()).collect();
    let mut tails = vec![tail(&full, false), tail(&short, false)];
    for k in 1..=short.len() {
        tails.push(tail(&short[k..], true));
    }
    let Some(title) = crumbs.title.as_deref() else {
        let t = tails
            .iter()
            .find(|t| t.width() <= room)
            .unwrap_or(&tails[tails.len() - 1]);
        return fit_end(t, room);
    };
    if tails[0].is_empty() {
        return fit(title, room);
    }
    for t in &tails {
        let tail_w = t.width();
        if title.width() + 3 + tail_w <= room {
            return format!("{title} › {t}");
        }
        if tail_w + 3 + MIN_TITLE <= room {
            return format!("{} › {t}", fit(title, room - tail_w - 3));
        }
    }
    fit_end(&tails[tails.len() - 1], room)
}

/// `text` within `width` cells keeping its end (`…` first when cut).
fn fit_end(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut used = 0;
    let mut start = text.len();
    for (i, c) in text.char_indices().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        used += w;
        start = i;
    }
    format!("…{}", &text[start..])
}

/// Draws the bar.
pub fn draw(frame: &mut Frame, area: Rect, ctx: &Ctx, status: &Status) {
    let theme = &ctx.theme;
    let line = if let Some(message) = &ctx.message {
        Line::from(Span::styled(format!(" {message}"), theme.error()))
    } else if let Some(what) = &status.typing {
        Line::from(vec![
            Span::raw(format!("/{what}")),
            Span::styled("▏", theme.tool()),
            Span::raw("   Enter keep · Esc clear"),
        ])
    } else {
        let left = format!(" {}", status.left);
        let width = usize::from(area.width);
        let mut right = counts_text(ctx);
        if left.width() + right.width() + 1 > width {
            // Room for the left side first: the keys lose their words.
            right = counts_text_as(ctx, true);
        }
        let right_w = right.width();
        // Cut at a word by display width, so `›` parts are not split.
        let left = fit(&left, width.saturating_sub(right_w + 1));
        let pad = width.saturating_sub(left.width() + right_w);
        Line::from(vec![
            Span::raw(left),
            Span::raw(" ".repeat(pad)),
            Span::raw(right),
        ])
    };
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crumbs_keep_their_end() {
        let crumbs = Crumbs {
            title: Some("[scenario:subagent] Inspect this repository".to_string()),
            lead: Some("turn 1".to_string()),
            spawns: vec![
                (
                    "general-purpose “Inspect”".to_string(),
                    "general-purpose".to_string(),
                ),
                ("Explore “Find”".to_string(), "Explore".to_string()),
            ],
            last: Some("Bash".to_string()),
        };
        assert_eq!(
            fit_crumbs(&crumbs, 110),
            "[scenario:subagent] Inspect this repository › turn 1 › general-purpose “Inspect” › Explore “Find” › Bash"
        );
        assert_eq!(
            fit_crumbs(&crumbs, 70),
            "[scenari… › turn 1 › general-purpose “Inspect” › Explore “Find” › Bash"
        );
        assert_eq!(
            fit_crumbs(&crumbs, 52),
            "[scenar… › turn 1 › general-purpose › Explore › Bash"
        );
        assert_eq!(
            fit_crumbs(&crumbs, 40),
            "[scenario… › turn 1 › … › Explore › Bash"
        );
        assert_eq!(fit_crumbs(&crumbs, 20), "turn 1 › … › Bash");
        assert_eq!(fit_crumbs(&crumbs, 14), "… 1 › … › Bash");
    }
}

#[cfg(test)]
mod count_tests {
    //! A heavy user's list: the counts read the same before and after the
    //! check of the disk (`8,794 sessions`, not `8794`).
    use crate::tui::app::App;
    use crate::tui::theme::Theme;
    use hookscope_core::transcript::SessionRef;
    use std::path::PathBuf;

    #[test]
    fn counts_and_the_sessions_title_group_thousands() {
        let refs: Vec<SessionRef> = (0..1234)
            .map(|i| {
                SessionRef::claude_code(
                    PathBuf::from(format!("/nonexistent/{i}.jsonl")),
                    Vec::new(),
                )
            })
            .collect();
        let mut app = App::new(
            refs,
            Vec::new(),
            chrono::FixedOffset::east_opt(0).expect("UTC"),
            Theme { color: false },
        );
        app.ctx.summaries_done = true;
        assert_eq!(
            super::counts_text(&app.ctx),
            "1,234 sessions · D 0 diag · ? help "
        );
        app.ctx.checking = true;
        assert!(
            super::counts_text(&app.ctx)
                .starts_with("1,234 sessions (as indexed; checking the disk…)")
        );
        let screen = crate::tui::tests::render(&mut app, 120, 30);
        assert!(screen.contains("Sessions (1,234)"), "{screen}");
        // Summaries still being read, and the diagnostics count.
        app.ctx.checking = false;
        app.ctx.summaries_done = false;
        app.ctx.diagnostics = (0..3584)
            .map(|i| hookscope_core::transcript::Diagnostic {
                path: PathBuf::from(format!("/nonexistent/{i}.jsonl")),
                locus: None,
                message: "bad line".to_string(),
            })
            .collect();
        assert_eq!(
            super::counts_text(&app.ctx),
            "0/1,234 read · D 3,584 diag · ? help "
        );
        // The index being built here, then by another process.
        app.ctx.indexing = Some((1200, 1234));
        assert!(
            super::counts_text(&app.ctx).starts_with("indexing 1,200/1,234 sessions…"),
            "{}",
            super::counts_text(&app.ctx)
        );
        app.ctx.waiting_for_build = true;
        assert!(
            super::counts_text(&app.ctx)
                .starts_with("waiting for another hookscope process to index these sessions…"),
            "{}",
            super::counts_text(&app.ctx)
        );
    }
}
