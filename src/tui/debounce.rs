//! Calls-view queries while typing (docs/keys.md#the-calls-views-filter-line): a line typed in
//! the middle of a word is asked only once typing pauses for [`PAUSE`]; a
//! finished word (the line ends in a space), an emptied line, Enter or a
//! quick filter is asked at once. Each key still supersedes the query
//! that is running, so it stops reading at once instead of finishing a
//! line nobody waits for.

use std::time::{Duration, Instant};

use hookscope_core::query::Query;

/// How long typing must pause before a mid-word line is asked.
pub const PAUSE: Duration = Duration::from_millis(120);

/// The newest Calls query that waits for a pause: `(due, generation,
/// query)`.
#[derive(Default)]
pub struct Debounce {
    pending: Option<(Instant, u64, Query)>,
}

/// What the shell does with a Calls query now.
#[derive(Debug, PartialEq)]
pub enum Ask {
    /// Send it to the query thread.
    Now(u64, Query),
    /// Hold it (the running query of an older generation is superseded).
    Later(u64),
}

impl Debounce {
    /// A new query from the view at `now`; `settle` when its line is
    /// mid-word. A query asked at once drops the one held.
    pub fn ask(&mut self, generation: u64, query: Query, settle: bool, now: Instant) -> Ask {
        if settle {
            self.pending = Some((now + PAUSE, generation, query));
            Ask::Later(generation)
        } else {
            self.pending = None;
            Ask::Now(generation, query)
        }
    }

    /// The held query once its pause is over at `now` (taken), else `None`.
    pub fn due(&mut self, now: Instant) -> Option<(u64, Query)> {
        match &self.pending {
            Some((due, ..)) if *due <= now => self.pending.take().map(|(_, g, q)| (g, q)),
            _ => None,
        }
    }

    /// How long the event loop may wait for a key before [`Debounce::due`]
    /// has something: `cap` when nothing is held.
    pub fn wait(&self, now: Instant, cap: Duration) -> Duration {
        match &self.pending {
            Some((due, ..)) => due.saturating_duration_since(now).min(cap),
            None => cap,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query() -> Query {
        crate::tui::calls::prepare("tool:Bash", chrono::Utc::now()).expect("valid")
    }

    /// Keys 80 ms apart hold the query until 120 ms after the last one; a
    /// finished word goes at once and drops what was held.
    #[test]
    fn a_mid_word_line_waits_for_the_pause() {
        let mut d = Debounce::default();
        let t0 = Instant::now();
        assert_eq!(d.ask(1, query(), true, t0), Ask::Later(1));
        let t1 = t0 + Duration::from_millis(80);
        assert!(d.due(t1).is_none());
        assert_eq!(d.ask(2, query(), true, t1), Ask::Later(2));
        assert_eq!(
            d.wait(t1, Duration::from_millis(50)),
            Duration::from_millis(50)
        );
        assert_eq!(
            d.wait(t1 + Duration::from_millis(100), Duration::from_millis(50)),
            Duration::from_millis(20)
        );
        assert!(d.due(t1 + Duration::from_millis(119)).is_none());
        let (generation, _) = d.due(t1 + PAUSE).expect("due");
        assert_eq!(generation, 2);
        assert!(d.due(t1 + PAUSE * 2).is_none(), "asked once");
        assert_eq!(d.ask(3, query(), true, t1), Ask::Later(3));
        assert!(matches!(d.ask(4, query(), false, t1), Ask::Now(4, _)));
        assert!(d.due(t1 + PAUSE * 3).is_none(), "the held one was dropped");
    }
}
