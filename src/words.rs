//! Small wording helpers shared by the CLI and the TUI.

/// `1 turn`, `2 turns`: the count and the word, with an `s` unless it is one.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `8794` → `8,794`: a count with commas between groups of three digits.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_groups_digits() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1234), "1,234");
        assert_eq!(super::thousands(8794), "8,794");
        assert_eq!(super::thousands(1_234_567), "1,234,567");
    }
}
