//! The retrieval score Simulacra (Generative Agents) and the reference's ranked memory
//! (`pipeline_smartrag.py`) share: recency, importance and relevance, each normalized,
//! summed (a leaf).

/// Min-max normalize to [0, 1]; all 0.5 when every value is equal (as Generative Agents).
pub fn normalize_min_max(xs: &[f64]) -> Vec<f64> {
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    xs.iter()
        .map(|x| {
            if max - min > 0.0 {
                (x - min) / (max - min)
            } else {
                0.5
            }
        })
        .collect()
}

/// The sum of recency (`decay^(now - step)`), importance and relevance, each normalized
/// over the memories by `normalize`, for memories given as (step, importance,
/// relevance): Generative Agents' score and the reference's ranked memory's
/// ([`super::smart_rag::smart_scores`]) differ only in the decay and the normalization.
pub fn summed_scores(
    memories: &[(u32, f64, f64)],
    now: u32,
    decay: f64,
    normalize: fn(&[f64]) -> Vec<f64>,
) -> Vec<f64> {
    let recency: Vec<f64> = memories
        .iter()
        .map(|m| decay.powi(now.saturating_sub(m.0) as i32))
        .collect();
    let importance: Vec<f64> = memories.iter().map(|m| m.1).collect();
    let relevance: Vec<f64> = memories.iter().map(|m| m.2).collect();
    let (r, i, v) = (
        normalize(&recency),
        normalize(&importance),
        normalize(&relevance),
    );
    (0..memories.len()).map(|k| r[k] + i[k] + v[k]).collect()
}
