//! The vector maths every part of the memory shares: dot products in a fixed order
//! (so a replay recomputes every similarity bit for bit), cosines and normalization.
//! A leaf: it depends on nothing of the memory.

/// Dot product over the common length, accumulated in 8 independent lanes (so the
/// compiler can use SIMD) and summed in a fixed order: deterministic.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut lanes = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    let mut tail = 0.0f32;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
        + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
        + tail
}

/// Cosine similarity with squared norms `na = dot(a, a)` and `nb = dot(b, b)` given
/// (0.0 when either is zero).
pub fn cosine_with_norms(a: &[f32], b: &[f32], na: f32, nb: f32) -> f32 {
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        cosine_from_dot(dot(a, b), na, nb)
    }
}

/// Cosine similarity of two vectors of equal length (0.0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    cosine_with_norms(a, b, dot(a, a), dot(b, b))
}

/// Scale a vector to unit length in place (left as is when zero).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

/// `dot / (sqrt(na) * sqrt(nb))`, or 0.0 when a squared norm is zero: the one formula
/// of [`cosine_with_norms`].
#[inline]
pub fn cosine_from_dot(dot: f32, na: f32, nb: f32) -> f32 {
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

/// The highest cosine of an embedding (`e`: the vector with its squared norm) to any
/// of `queries`; 0.0 without an embedding or a query (or when every cosine is below 0).
pub fn best_cosine(queries: &[&[f32]], e: Option<(&[f32], f32)>) -> f32 {
    e.map(|(e, ne)| {
        queries
            .iter()
            .map(|q| cosine_with_norms(q, e, dot(q, q), ne))
            .fold(0.0_f32, f32::max)
    })
    .unwrap_or(0.0)
}
