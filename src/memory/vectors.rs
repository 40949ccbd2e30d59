//! Contiguous storage of the triplet embeddings that retrieval scans (paper Algorithm 2
//! ranks every semantic edge at every BFS hop, so the scan is the hot loop).
//!
//! Row `id` of a row-major `rows × dim` f32 matrix holds the embedding of triplet `id`
//! (zeros when it has none), next to an i8 copy of the same row with one scale per row
//! (`row ≈ codes × scale`), its squared norm, and whether the scan should look at it
//! (alive with an embedding of length `dim`). `dim` is the length of the first
//! embedding stored; an embedding of another length is kept by the graph apart and
//! scanned one by one (see [`super::graph::AriGraph::odd_embedded`]).

/// The i8 codes of a vector and their scale: `v[i] ≈ codes[i] as f32 * scale`, with
/// `codes[i] = round(v[i] * 127 / max|v|)`. Elementwise IEEE operations only, so the
/// codes are the same on every machine. A zero or non-finite maximum gives all-zero
/// codes and scale 0.
pub fn quantize(v: &[f32], codes: &mut [i8]) -> f32 {
    let m = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if m == 0.0 || !m.is_finite() {
        codes.fill(0);
        return 0.0;
    }
    let s = 127.0 / m;
    for (c, x) in codes.iter_mut().zip(v) {
        // `as` saturates (and maps NaN to 0): always within -127..=127 here.
        *c = (x * s).round().clamp(-127.0, 127.0) as i8;
    }
    m / 127.0
}

/// The triplet embedding matrix (f32 and i8), indexed by triplet id.
#[derive(Debug, Clone, Default)]
pub struct TripletVectors {
    dim: usize,
    data: Vec<f32>,
    codes: Vec<i8>,
    scales: Vec<f32>,
    factors: Vec<f32>,
    norms: Vec<f32>,
    live: Vec<bool>,
}

impl TripletVectors {
    /// Length of every stored row (0 before the first embedding).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of rows (ids `0..rows()`; at most the graph's triplet slots).
    pub fn rows(&self) -> usize {
        self.live.len()
    }

    /// Whether row `id` is scanned: the triplet is alive and its embedding is stored here.
    pub fn is_live(&self, id: usize) -> bool {
        self.live.get(id).copied().unwrap_or(false)
    }

    /// The f32 row of `id` (length [`Self::dim`]) with its squared norm (`dot(row, row)`).
    pub fn row(&self, id: usize) -> (&[f32], f32) {
        (
            &self.data[id * self.dim..(id + 1) * self.dim],
            self.norms[id],
        )
    }

    /// The i8 rows of `ids`, row-major (`ids.len() × dim` codes; `ids` within
    /// `0..rows()`).
    pub fn codes(&self, ids: std::ops::Range<usize>) -> &[i8] {
        &self.codes[ids.start * self.dim..ids.end * self.dim]
    }

    /// The factor of row `id` in the approximate cosine of its codes with a query's:
    /// `scale / sqrt(norm)` (0 for a zero row), so that
    /// `cosine ≈ Σ codes × query codes × factor × query factor`.
    pub fn code_factor(&self, id: usize) -> f32 {
        self.factors[id]
    }

    /// Store the embedding of `id` with its squared norm; false (nothing stored) when its
    /// length is not [`Self::dim`] (the first non-empty embedding sets it). The row is
    /// not live until [`Self::set_live`].
    pub(crate) fn set(&mut self, id: usize, v: &[f32], norm_sq: f32) -> bool {
        if self.dim == 0 && !v.is_empty() {
            self.dim = v.len();
        }
        if v.len() != self.dim || self.dim == 0 {
            return false;
        }
        if self.live.len() <= id {
            self.live.resize(id + 1, false);
            self.norms.resize(id + 1, 0.0);
            self.scales.resize(id + 1, 0.0);
            self.factors.resize(id + 1, 0.0);
            self.data.resize((id + 1) * self.dim, 0.0);
            self.codes.resize((id + 1) * self.dim, 0);
        }
        let span = id * self.dim..(id + 1) * self.dim;
        self.data[span.clone()].copy_from_slice(v);
        self.scales[id] = quantize(v, &mut self.codes[span]);
        self.norms[id] = norm_sq;
        let root = norm_sq.sqrt();
        self.factors[id] = if root == 0.0 {
            0.0
        } else {
            self.scales[id] / root
        };
        true
    }

    /// Mark row `id` scanned or not (ignored for an id never stored).
    pub(crate) fn set_live(&mut self, id: usize, live: bool) {
        if let Some(l) = self.live.get_mut(id) {
            *l = live;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantize_keeps_sign_and_scale() {
        let mut c = [0i8; 4];
        let s = quantize(&[0.5, -1.0, 0.0, 0.25], &mut c);
        assert_eq!(c, [64, -127, 0, 32]);
        assert_eq!(s, 1.0 / 127.0);
        assert_eq!(quantize(&[0.0, 0.0, 0.0, 0.0], &mut c), 0.0);
        assert_eq!(c, [0; 4]);
    }

    #[test]
    fn rows_of_another_length_are_refused() {
        let mut t = TripletVectors::default();
        assert!(t.set(2, &[1.0, 0.0], 1.0));
        assert!(!t.set(0, &[1.0, 0.0, 0.0], 1.0));
        assert_eq!(t.rows(), 3);
        assert!(!t.is_live(2));
        t.set_live(2, true);
        assert!(t.is_live(2) && !t.is_live(1) && !t.is_live(9));
        assert_eq!(t.row(2), (&[1.0f32, 0.0][..], 1.0));
    }
}
