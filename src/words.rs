//! Small wording helpers shared by the CLI and the TUI.

/// `1 turn`, `2 turns`: the count and the word, with an `s` unless it is one.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}
