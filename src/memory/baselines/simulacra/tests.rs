//! Simulacra's scoring on hand values.

use super::*;

#[test]
fn min_max_normalization() {
    assert_eq!(normalize_min_max(&[2.0, 4.0, 3.0]), vec![0.0, 1.0, 0.5]);
    assert_eq!(normalize_min_max(&[7.0, 7.0]), vec![0.5, 0.5]);
}

#[test]
fn simulacra_scores_follow_the_formula_on_hand_values() {
    // now = 10. Memories: (step, importance, relevance).
    let m = [(10, 2.0, 0.9), (0, 8.0, 0.1), (5, 5.0, 0.5)];
    let s = simulacra_scores(&m, 10);
    // recency: 1, 0.995^10 = 0.951110..., 0.995^5 = 0.975248...; normalized:
    // 1, 0, (0.975248 - 0.951110) / (1 - 0.951110) = 0.493734...
    let r2 = 0.995f64.powi(10);
    let r3 = 0.995f64.powi(5);
    let rec3 = (r3 - r2) / (1.0 - r2);
    // importance normalized: 0, 1, 0.5; relevance: 1, 0, 0.5
    assert!((s[0] - (1.0 + 0.0 + 1.0)).abs() < 1e-12);
    assert!((s[1] - (0.0 + 1.0 + 0.0)).abs() < 1e-12);
    assert!((s[2] - (rec3 + 0.5 + 0.5)).abs() < 1e-12, "{}", s[2]);
    assert!((rec3 - 0.493_734).abs() < 1e-5, "{rec3}");
}

/// Recency decays from the last access: memory A, made at step 1 and retrieved at
/// step 9, is more recent at step 10 than memory B, made at step 5 and never
/// retrieved.
#[test]
fn recency_decays_from_the_last_access() {
    let entry = |step, last_access| Entry {
        step,
        last_access,
        text: String::new(),
        importance: 5.0,
        vector: Vec::new(),
        reflection: false,
        pending: false,
        action: String::new(),
    };
    let (a, b) = (entry(1, 9), entry(5, 5));
    let now = 10;
    let rec = |e: &Entry, rules| RECENCY_DECAY.powi((now - e.recency_reference(rules)) as i32);
    assert!(
        rec(&a, crate::memory::MemoryRevision::V2) > rec(&b, crate::memory::MemoryRevision::V2)
    );
    // Under the first rules recency counted from creation.
    assert!(
        rec(&a, crate::memory::MemoryRevision::V1) < rec(&b, crate::memory::MemoryRevision::V1)
    );
    let s = simulacra_scores(
        &[
            (
                a.recency_reference(crate::memory::MemoryRevision::V2),
                5.0,
                0.5,
            ),
            (
                b.recency_reference(crate::memory::MemoryRevision::V2),
                5.0,
                0.5,
            ),
        ],
        now,
    );
    assert!(s[0] > s[1]);
}
