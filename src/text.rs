//! Cutting text to a length, for memories, prompts, messages and terminal lines: the
//! one home of these helpers (characters, never bytes, so a cut never splits a
//! character).

/// The first `n` characters of `s`, as they are (no whitespace folding, no ellipsis:
/// what a memory stores, what an error quotes).
pub fn first_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// `s` cut to its first `n` characters with "..." after them when it is longer.
pub fn with_ellipsis(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}...", first_chars(s, n))
    }
}

/// A text for a prompt or a terminal line: whitespace collapsed to single spaces, cut
/// to `n` characters with "..." when longer.
pub fn clip(s: &str, n: usize) -> String {
    with_ellipsis(&s.split_whitespace().collect::<Vec<_>>().join(" "), n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_count_characters_and_mark_what_they_cut() {
        assert_eq!(first_chars("héllo", 2), "hé");
        assert_eq!(with_ellipsis("héllo", 5), "héllo");
        assert_eq!(with_ellipsis("héllo", 4), "héll...");
        assert_eq!(clip("a \n\t b   c", 3), "a b...");
        assert_eq!(clip("a \n b", 10), "a b");
    }
}
