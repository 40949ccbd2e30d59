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

/// `n` and a noun, singular for 1 and plural otherwise: `count(1, "step")` is "1 step",
/// `count(3, "step")` "3 steps". See [`count_as`] for a noun whose plural is not `-s`.
pub fn count(n: impl Into<u64>, one: &str) -> String {
    count_as(n, one, &format!("{one}s"))
}

/// `n` and a noun: `one` for 1, `many` otherwise ("1 memory", "2 memories").
pub fn count_as(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A large count for a terminal line, to 2-3 significant figures: "840", "8,400",
/// "84k", "1.2M". Exact below 10,000 (with a thousands comma), then rounded to
/// thousands, and from a million on to tenths of a million.
pub fn amount(n: u64) -> String {
    match n {
        0..10_000 if n >= 1_000 => format!("{},{:03}", n / 1_000, n % 1_000),
        0..10_000 => n.to_string(),
        10_000..999_500 => format!("{}k", (n + 500) / 1_000),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
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
        assert_eq!(count(1u32, "step"), "1 step");
        assert_eq!(count(0u32, "step"), "0 steps");
        assert_eq!(count_as(1u64, "memory", "memories"), "1 memory");
        assert_eq!(count_as(4u64, "memory", "memories"), "4 memories");
    }

    #[test]
    fn amounts_keep_two_or_three_figures() {
        assert_eq!(amount(0), "0");
        assert_eq!(amount(840), "840");
        assert_eq!(amount(8_400), "8,400");
        assert_eq!(amount(1_005), "1,005");
        assert_eq!(amount(31_600), "32k");
        assert_eq!(amount(999_499), "999k");
        assert_eq!(amount(999_500), "1.0M");
        assert_eq!(amount(12_345_678), "12.3M");
    }
}
