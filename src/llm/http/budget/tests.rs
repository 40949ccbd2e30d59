use super::*;

#[test]
fn the_default_time_limits_agree() {
    for embedded in [false, true] {
        let (t, b) = time_limits(None, None, embedded).expect("defaults");
        // A hang is tried again within the budget.
        assert!(t * TRIES_IN_BUDGET <= b && t > 0, "{t} {b}");
    }
    assert_eq!(time_limits(None, None, false), Ok((150, 300)));
    assert_eq!(time_limits(None, None, true), Ok((600, 1200)));
    // Given one, the other follows.
    assert_eq!(time_limits(None, Some(6), false), Ok((3, 6)));
    assert_eq!(time_limits(None, Some(1), false), Ok((1, 1)));
    assert_eq!(time_limits(Some(1800), None, true), Ok((1800, 3600)));
    assert_eq!(time_limits(Some(20), None, false), Ok((20, 300)));
    // No retries: one try with the default limit.
    assert_eq!(time_limits(None, Some(0), false), Ok((150, 0)));
    assert_eq!(time_limits(Some(900), Some(0), false), Ok((900, 0)));
    // A limit longer than the budget is refused, naming both flags.
    let e = time_limits(Some(600), Some(300), false).expect_err("refused");
    assert!(
        e.contains("--llm-timeout 600") && e.contains("--retry-budget 300"),
        "{e}"
    );
    assert_eq!(time_limits(Some(300), Some(300), false), Ok((300, 300)));
}

#[test]
fn the_backoff_is_what_docs_reliability_md_says() {
    let p = RetryPolicy::with_budget(Duration::from_secs(300));
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reliability.md"))
        .expect("docs/reliability.md");
    let said = p.described();
    assert!(doc.contains(&said), "docs/reliability.md must say: {said}");
    assert!(said.starts_with("0.5 s doubling up to 30 s"), "{said}");
    for n in 1..40 {
        let full = Duration::from_millis(500)
            .saturating_mul(1 << (n - 1).min(20))
            .min(Duration::from_secs(30));
        for d in [0.0, 0.3, 0.999_999, draw()] {
            let w = p.delay(n, d);
            assert!(w <= full && w >= full / 2, "retry {n}: {w:?} of {full:?}");
            assert!(w <= p.max_delay);
        }
    }
    assert_eq!(p.delay(1, 1.0), Duration::from_millis(500));
    assert_eq!(p.delay(2, 1.0), Duration::from_secs(1));
    assert_eq!(p.delay(30, 1.0), Duration::from_secs(30));
    assert_eq!(p.delay(30, 0.0), Duration::from_secs(15));
}

#[test]
fn draws_are_in_the_unit_interval_and_vary() {
    let draws: Vec<f64> = (0..50).map(|_| draw()).collect();
    assert!(draws.iter().all(|d| (0.0..1.0).contains(d)));
    assert!(draws.windows(2).any(|w| w[0] != w[1]));
}
