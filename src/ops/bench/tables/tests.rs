//! Tests of `report`.

use super::*;
use crate::llm::Usage;
use crate::trajectory::Outcome;

/// Two episodes of 2 steps each: 4,000 prompt tokens of which 1,000 cached, 400
/// completion tokens; the server read 3,000 tokens in 30 s (100 tok/s) and generated
/// 400 in 40 s (10 tok/s), so the least a step could take is (30 + 40) / 4 = 17.5 s.
#[test]
fn the_lower_bound_of_a_step_comes_from_its_tokens_and_the_server_speeds() {
    let mut a = sample_row("g", "arigraph", 1, 0.5, Outcome::Done);
    a.usage = Some(Usage {
        prompt_tokens: 2_500,
        completion_tokens: 300,
        cached_tokens: 500,
        prompt_ms: 20_000,
        completion_ms: 30_000,
        timed_calls: 4,
        ..Usage::default()
    });
    a.step_ms = vec![20_000, 40_000];
    a.llm_calls = 6;
    a.decision_steps = 2;
    let mut b = a.clone();
    b.usage = Some(Usage {
        prompt_tokens: 1_500,
        completion_tokens: 100,
        cached_tokens: 500,
        prompt_ms: 10_000,
        completion_ms: 10_000,
        timed_calls: 4,
        ..Usage::default()
    });
    b.step_ms = vec![10_000, 30_000];
    let sp = Speed::of(&[&a, &b]).expect("speed");
    assert_eq!(sp.median_step_s, 25.0);
    assert_eq!(sp.mean_step_s, 25.0);
    assert_eq!(sp.cached_share, 0.25);
    assert_eq!(sp.calls_per_decision, 3.0);
    assert_eq!(sp.prompt_tokens_per_s, Some(100.0));
    assert_eq!(sp.completion_tokens_per_s, Some(10.0));
    assert_eq!(sp.lower_bound_s, Some(17.5));
    // An endpoint that reports no timings: no speeds, no bound, the rest still shown.
    a.usage = Some(Usage {
        prompt_ms: 0,
        completion_ms: 0,
        timed_calls: 0,
        ..a.usage.expect("usage")
    });
    let sp = Speed::of(&[&a]).expect("speed");
    assert_eq!(sp.lower_bound_s, None);
    assert_eq!(sp.median_step_s, 30.0);
    // A bench that mixes a timed and an untimed endpoint (a resume): the speeds come
    // from the timed episode alone, the bound covers both episodes' tokens.
    let mut untimed = b.clone();
    untimed.usage = Some(Usage {
        prompt_ms: 0,
        completion_ms: 0,
        timed_calls: 0,
        ..b.usage.expect("usage")
    });
    let mixed = Speed::of(&[&b, &untimed]).expect("speed");
    // b read 1,000 uncached tokens in 10 s and generated 100 in 10 s: 100 and 10
    // tok/s; both episodes: (2,000 / 100 + 200 / 10) / 4 steps = 10 s.
    assert_eq!(mixed.prompt_tokens_per_s, Some(100.0));
    assert_eq!(mixed.completion_tokens_per_s, Some(10.0));
    assert_eq!(mixed.lower_bound_s, Some(10.0));
    // Rows written before these figures were recorded have none.
    assert_eq!(
        Speed::of(&[&sample_row("g", "m", 1, 0.5, Outcome::Done)]),
        None
    );
}

#[test]
fn best_three_of_five() {
    assert!((best_k_mean(&[0.2, 1.0, 0.4, 0.8, 0.6], 3) - 0.8).abs() < 1e-12);
    // Ties count once each.
    assert!((best_k_mean(&[0.5, 0.5, 0.5, 0.1, 0.0], 3) - 0.5).abs() < 1e-12);
    assert!((best_k_mean(&[1.0, 1.0, 0.0, 0.0, 1.0], 3) - 1.0).abs() < 1e-12);
    // Fewer than 3 runs: the mean of what there is.
    assert!((best_k_mean(&[0.3, 0.9], 3) - 0.6).abs() < 1e-12);
    assert_eq!(best_k_mean(&[], 3), 0.0);
}

#[test]
fn mean_and_sample_std() {
    let (m, s) = mean_std(&[0.0, 1.0]);
    assert!((m - 0.5).abs() < 1e-12);
    assert!((s - 0.5f64.sqrt()).abs() < 1e-12);
    assert_eq!(mean_std(&[0.7]), (0.7, 0.0));
}

#[test]
fn aggregation_excludes_failed_episodes_and_counts_them() {
    let rows = vec![
        sample_row("simple", "arigraph", 1, 1.0, Outcome::Won),
        sample_row("simple", "arigraph", 2, 0.4, Outcome::StepCap),
        sample_row("simple", "arigraph", 3, 0.0, Outcome::Failed),
        sample_row("simple", "rag", 1, 0.2, Outcome::StepCap),
    ];
    let cells = aggregate(
        &rows,
        &["simple".into()],
        &["arigraph".into(), "rag".into()],
    );
    let a = &cells[0];
    assert_eq!((a.episodes, a.failed), (2, 1));
    assert!((a.best3 - 0.7).abs() < 1e-12);
    assert!((a.win_rate - 0.5).abs() < 1e-12);
    assert_eq!(a.prompt_tokens_per_step, Some(2000.0));
    assert_eq!(a.completion_tokens_per_step, Some(300.0));
    assert!((cells[1].best3 - 0.2).abs() < 1e-12);
    let md = markdown(
        &cells,
        &["simple".into()],
        &[
            Variant::parse("arigraph").unwrap(),
            Variant::parse("rag").unwrap(),
        ],
        5,
    );
    assert!(md.contains("| memory | simple |"), "{md}");
    assert!(md.contains("| AriGraph | 0.70 |"), "{md}");
    assert!(md.contains("| RAG | 0.20 |"), "{md}");
    assert!(md.contains("| AriGraph | 2000 / 300 |"), "{md}");
}

#[test]
fn unknown_usage_is_shown_as_unknown_never_as_zero() {
    let mut r = sample_row("simple", "rag", 1, 0.5, Outcome::StepCap);
    r.prompt_tokens = None;
    r.completion_tokens = None;
    let rows = vec![r, sample_row("simple", "rag", 2, 0.5, Outcome::StepCap)];
    let cells = aggregate(&rows, &["simple".into()], &["rag".into()]);
    assert_eq!(cells[0].prompt_tokens_per_step, None);
    let md = markdown(
        &cells,
        &["simple".into()],
        &[Variant::parse("rag").unwrap()],
        2,
    );
    assert!(md.contains("| RAG | ? / ? |"), "{md}");
    assert!(csv(&cells).contains(",?,?,"), "{}", csv(&cells));
}

/// NetHack's figures by hand: scores 20 and 40 (mean 30, sample std 14.1), deepest
/// levels 1 and 3 (mean 2, std 1.41), progression 0 and 1.75% (mean 0.88%).
#[test]
fn games_with_levels_get_the_papers_netplay_table() {
    let mut a = sample_row("nethack-s1-room", "arigraph", 1, 0.0, Outcome::StepCap);
    a.score = 20;
    a.max_depth = Some(1);
    a.progression = Some(0.0);
    let mut b = sample_row("nethack-s1-room", "arigraph", 2, 0.0, Outcome::Lost);
    b.score = 40;
    b.max_depth = Some(3);
    b.progression = Some(0.0175);
    let games = ["nethack-s1-room".to_string()];
    let cells = aggregate(&[a, b], &games, &["arigraph".to_string()]);
    let l = cells[0].levels.as_ref().expect("levels");
    assert_eq!((l.score, l.depth), (30.0, 2.0));
    assert!((l.score_std - 14.142).abs() < 1e-3 && (l.depth_std - 1.414).abs() < 1e-3);
    let md = markdown(
        &cells,
        &games,
        &[crate::rows::Variant::parse("arigraph").unwrap()],
        2,
    );
    assert!(
        md.contains("| nethack-s1-room | arigraph | 2 | 30.0 ± 14.1 | 2.00 ± 1.41 | 0.88% |"),
        "{md}"
    );
    // Games without levels have no such table.
    let plain = aggregate(
        &[sample_row("simple", "arigraph", 1, 0.5, Outcome::Done)],
        &["simple".to_string()],
        &["arigraph".to_string()],
    );
    assert!(plain[0].levels.is_none());
}
