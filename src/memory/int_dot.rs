//! Integer dot products of i8 codes: the inner loop of the approximate pre-scan of
//! retrieval (paper Algorithm 2 ranks every semantic edge at every BFS hop; see
//! [`super::retrieval::Scan::Approximate`]).
//!
//! Codes are within -127..=127 ([`super::vectors::quantize`]). Every sum here is an
//! exact integer, so each kernel, whatever its order of summation or its instructions,
//! gives the same value on every machine; the kernel is therefore chosen at run time
//! from what the CPU offers without any effect on replay.

/// One query's i8 codes, with the sum of its codes over the part of the row that the
/// 32-wide kernels cover (the first `len / 32 * 32`), which the VNNI kernel needs to
/// undo its offset.
#[derive(Debug, Clone)]
pub struct QueryCodes {
    codes: Vec<i8>,
    head_sum: i32,
}

impl QueryCodes {
    /// Wrap codes (each within -127..=127).
    pub fn new(codes: Vec<i8>) -> Self {
        let head = codes.len() / 32 * 32;
        let head_sum = codes[..head].iter().map(|&c| i32::from(c)).sum();
        Self { codes, head_sum }
    }

    /// The codes.
    pub fn codes(&self) -> &[i8] {
        &self.codes
    }
}

/// The longest row every kernel sums without overflow: |sum| <= 255 × 127 × len for
/// the VNNI kernel's offset codes (and 127² × len for the others) stays below 2³¹.
/// Retrieval scans longer rows exactly instead (no embedding model comes near it).
pub const MAX_LEN: usize = 66_000;

/// Which instructions compute the integer dot products.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// A plain loop (any CPU).
    Plain,
    /// SSE2 `pmaddwd`: 8 products summed in pairs per instruction.
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// AVX2 `vpmaddubsw`: 32 products summed in pairs per instruction.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-VNNI `vpdpbusd`: 32 products summed in fours into i32 lanes per instruction.
    #[cfg(target_arch = "x86_64")]
    AvxVnni,
}

impl Kernel {
    /// The fastest kernel this CPU runs.
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avxvnni")
                && std::arch::is_x86_feature_detected!("avx2")
            {
                return Kernel::AvxVnni;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Kernel::Avx2;
            }
            Kernel::Sse2
        }
        #[cfg(not(target_arch = "x86_64"))]
        Kernel::Plain
    }

    /// Every kernel this CPU runs (for tests and benchmarks).
    pub fn available() -> Vec<Self> {
        let mut all = vec![Kernel::Plain];
        #[cfg(target_arch = "x86_64")]
        {
            all.push(Kernel::Sse2);
            if std::arch::is_x86_feature_detected!("avx2") {
                all.push(Kernel::Avx2);
                if std::arch::is_x86_feature_detected!("avxvnni") {
                    all.push(Kernel::AvxVnni);
                }
            }
        }
        all
    }

    /// `out[r * N + k] = Σᵢ rows[r·len + i] × q[k][i]` for every row `r` of `rows`, a
    /// row-major matrix of rows of `len` codes. `out` must hold at least
    /// `rows.len() / len × N` values.
    ///
    /// # Panics
    /// If `len` is 0 or above [`MAX_LEN`], `rows.len()` is not a multiple of `len`, a
    /// query's length is not `len`, or `out` is too short: all fixed by the caller,
    /// never by input.
    pub fn tile<const N: usize>(
        self,
        q: [&QueryCodes; N],
        rows: &[i8],
        len: usize,
        out: &mut [i32],
    ) {
        assert!(len > 0 && len <= MAX_LEN && rows.len().is_multiple_of(len));
        assert!(q.iter().all(|q| q.codes.len() == len));
        assert!(out.len() >= rows.len() / len * N);
        match self {
            Kernel::Plain => tile_plain(q, rows, len, out),
            // SAFETY (all three): the lengths were checked above, and `available`/`detect`
            // only give a kernel whose instructions the CPU has; SSE2 is in the x86_64
            // baseline.
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => unsafe { tile_sse2(q, rows, len, out) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { tile_avx2(q, rows, len, out) },
            #[cfg(target_arch = "x86_64")]
            Kernel::AvxVnni => unsafe { tile_vnni(q, rows, len, out) },
        }
    }
}

fn tile_plain<const N: usize>(q: [&QueryCodes; N], rows: &[i8], len: usize, out: &mut [i32]) {
    for (r, e) in rows.chunks_exact(len).enumerate() {
        for k in 0..N {
            out[r * N + k] = tail(e, &q[k].codes, 0);
        }
    }
}

/// `Σᵢ e[i] × q[i]` over `from..e.len()`.
#[inline]
fn tail(e: &[i8], q: &[i8], from: usize) -> i32 {
    e[from..]
        .iter()
        .zip(&q[from..])
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum()
}

/// The 8 i32 lanes of `v` summed (integer sums: exact in any order).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sum_lanes(v: std::arch::x86_64::__m256i) -> i32 {
    use std::arch::x86_64::{
        _mm_add_epi32, _mm_cvtsi128_si32, _mm_hadd_epi32, _mm256_castsi256_si128,
        _mm256_extracti128_si256,
    };
    let half = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let pairs = _mm_hadd_epi32(half, half);
    _mm_cvtsi128_si32(_mm_hadd_epi32(pairs, pairs))
}

/// SSE2: each 16 codes of the row and of the query sign-extended to i16, then `pmaddwd`.
///
/// # Safety
/// The lengths [`Kernel::tile`] checks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
unsafe fn tile_sse2<const N: usize>(q: [&QueryCodes; N], rows: &[i8], len: usize, out: &mut [i32]) {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi32, _mm_loadu_si128, _mm_madd_epi16, _mm_setzero_si128, _mm_srai_epi16,
        _mm_storeu_si128, _mm_unpackhi_epi8, _mm_unpacklo_epi8,
    };
    let n = len / 16 * 16;
    for (r, e) in rows.chunks_exact(len).enumerate() {
        let mut acc = [_mm_setzero_si128(); N];
        let mut c = 0;
        while c < n {
            // SAFETY: c + 16 <= len = e.len(); unaligned load of 16 bytes.
            let x = unsafe { _mm_loadu_si128(e.as_ptr().add(c).cast::<__m128i>()) };
            // Sign-extend the 16 i8 to two vectors of 8 i16.
            let (xl, xh) = (
                _mm_srai_epi16(_mm_unpacklo_epi8(x, x), 8),
                _mm_srai_epi16(_mm_unpackhi_epi8(x, x), 8),
            );
            for k in 0..N {
                // SAFETY: c + 16 <= len = q[k].len().
                let y = unsafe { _mm_loadu_si128(q[k].codes.as_ptr().add(c).cast::<__m128i>()) };
                let (yl, yh) = (
                    _mm_srai_epi16(_mm_unpacklo_epi8(y, y), 8),
                    _mm_srai_epi16(_mm_unpackhi_epi8(y, y), 8),
                );
                acc[k] = _mm_add_epi32(
                    acc[k],
                    _mm_add_epi32(_mm_madd_epi16(xl, yl), _mm_madd_epi16(xh, yh)),
                );
            }
            c += 16;
        }
        for k in 0..N {
            let mut lanes = [0i32; 4];
            // SAFETY: stores 16 bytes into a [i32; 4].
            unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast::<__m128i>(), acc[k]) };
            out[r * N + k] = lanes.iter().sum::<i32>() + tail(e, &q[k].codes, n);
        }
    }
}

/// AVX2: the row's magnitudes (unsigned) times the query codes carrying the row's signs
/// by `vpmaddubsw`, pairs widened to i32 by `vpmaddwd`. No pair saturates: |e|, |q| <=
/// 127, so a pair sum is at most 2 × 127² = 32,258 < 2¹⁵.
///
/// # Safety
/// The lengths [`Kernel::tile`] checks, on a CPU with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn tile_avx2<const N: usize>(q: [&QueryCodes; N], rows: &[i8], len: usize, out: &mut [i32]) {
    use std::arch::x86_64::{
        __m256i, _mm256_abs_epi8, _mm256_add_epi32, _mm256_loadu_si256, _mm256_madd_epi16,
        _mm256_maddubs_epi16, _mm256_set1_epi16, _mm256_setzero_si256, _mm256_sign_epi8,
    };
    let n = len / 32 * 32;
    let ones = _mm256_set1_epi16(1);
    for (r, e) in rows.chunks_exact(len).enumerate() {
        let mut acc = [_mm256_setzero_si256(); N];
        let mut c = 0;
        while c < n {
            // SAFETY: c + 32 <= len = e.len(); unaligned load of 32 bytes.
            let x = unsafe { _mm256_loadu_si256(e.as_ptr().add(c).cast::<__m256i>()) };
            let magnitude = _mm256_abs_epi8(x);
            for k in 0..N {
                // SAFETY: c + 32 <= len = q[k].len().
                let y = unsafe { _mm256_loadu_si256(q[k].codes.as_ptr().add(c).cast::<__m256i>()) };
                // |e| × (sign(e) · q) = e · q, pairs summed to i16, then to i32.
                let pairs = _mm256_maddubs_epi16(magnitude, _mm256_sign_epi8(y, x));
                acc[k] = _mm256_add_epi32(acc[k], _mm256_madd_epi16(pairs, ones));
            }
            c += 32;
        }
        for k in 0..N {
            out[r * N + k] = sum_lanes(acc[k]) + tail(e, &q[k].codes, n);
        }
    }
}

/// AVX-VNNI: the row's codes offset to unsigned (`e + 128`, one XOR with 0x80 shared by
/// every query) times the query codes by `vpdpbusd`, four products summed straight into
/// each i32 lane; the offset is then taken off exactly: `Σ (e + 128) q = Σ e q + 128 Σ q`.
///
/// # Safety
/// The lengths [`Kernel::tile`] checks, on a CPU with AVX2 and AVX-VNNI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avxvnni")]
unsafe fn tile_vnni<const N: usize>(q: [&QueryCodes; N], rows: &[i8], len: usize, out: &mut [i32]) {
    use std::arch::x86_64::{
        __m256i, _mm256_dpbusd_avx_epi32, _mm256_loadu_si256, _mm256_set1_epi8,
        _mm256_setzero_si256, _mm256_xor_si256,
    };
    let n = len / 32 * 32;
    let flip = _mm256_set1_epi8(i8::MIN);
    for (r, e) in rows.chunks_exact(len).enumerate() {
        let mut acc = [_mm256_setzero_si256(); N];
        let mut c = 0;
        while c < n {
            // SAFETY: c + 32 <= len = e.len(); unaligned load of 32 bytes.
            let x = unsafe { _mm256_loadu_si256(e.as_ptr().add(c).cast::<__m256i>()) };
            let offset = _mm256_xor_si256(x, flip);
            for k in 0..N {
                // SAFETY: c + 32 <= len = q[k].len().
                let y = unsafe { _mm256_loadu_si256(q[k].codes.as_ptr().add(c).cast::<__m256i>()) };
                acc[k] = _mm256_dpbusd_avx_epi32(acc[k], offset, y);
            }
            c += 32;
        }
        for k in 0..N {
            out[r * N + k] = sum_lanes(acc[k]) - 128 * q[k].head_sum + tail(e, &q[k].codes, n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows and queries at the extreme codes (±127 everywhere: the largest pair sums
    /// `vpmaddubsw` sees and the largest offsets `vpdpbusd` sees) and mixed, with tails.
    fn cases(len: usize) -> Vec<(Vec<i8>, Vec<i8>)> {
        let mixed = |a: usize| -> Vec<i8> {
            (0..len)
                .map(|i| (((i * a) % 255) as i32 - 127) as i8)
                .collect()
        };
        vec![
            (vec![127; len], vec![127; len]),
            (vec![-127; len], vec![127; len]),
            (vec![-127; len], vec![-127; len]),
            (vec![127; len], vec![-127; len]),
            (mixed(37), mixed(91)),
            (
                (0..len)
                    .map(|i| if i % 3 == 0 { 0 } else { -127 })
                    .collect(),
                (0..len)
                    .map(|i| if i % 2 == 0 { 127 } else { -127 })
                    .collect(),
            ),
        ]
    }

    #[test]
    fn every_kernel_gives_the_plain_sums() {
        let kernels = Kernel::available();
        assert!(kernels.contains(&Kernel::detect()));
        for len in [384usize, 53, 31, 32, 65, 1] {
            let all = cases(len);
            // Every case's row in one tile, scored against two queries at once.
            let rows: Vec<i8> = all.iter().flat_map(|(e, _)| e.clone()).collect();
            for (_, q) in &all {
                let a = QueryCodes::new(q.clone());
                let b = QueryCodes::new(q.iter().map(|&x| x.wrapping_neg()).collect());
                let want: Vec<i32> = all
                    .iter()
                    .flat_map(|(e, _)| [tail(e, &a.codes, 0), tail(e, &b.codes, 0)])
                    .collect();
                for &kernel in &kernels {
                    let mut out = vec![0; all.len() * 2];
                    kernel.tile([&a, &b], &rows, len, &mut out);
                    assert_eq!(out, want, "{kernel:?} at length {len}");
                }
            }
        }
    }

    #[test]
    fn the_longest_row_cannot_overflow() {
        // The largest offset sum of the VNNI kernel fits in an i32.
        assert!(255i64 * 127 * MAX_LEN as i64 <= i64::from(i32::MAX));
    }
}
