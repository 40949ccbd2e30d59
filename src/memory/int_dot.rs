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
    /// AVX-512 VNNI `vpdpbusd` on 256-bit registers (the EVEX encoding, with AVX-512VL):
    /// the same instruction and sums as [`Kernel::AvxVnni`], on CPUs that have AVX-512
    /// VNNI but not AVX-VNNI (AMD Zen 4, Intel Ice Lake and Sapphire Rapids servers).
    #[cfg(target_arch = "x86_64")]
    Avx512Vnni,
}

/// Whether this CPU has AVX-512 VNNI with the 256-bit forms (AVX-512VL) and AVX2.
#[cfg(target_arch = "x86_64")]
fn has_avx512_vnni() -> bool {
    std::arch::is_x86_feature_detected!("avx512vnni")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx2")
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
            if has_avx512_vnni() {
                return Kernel::Avx512Vnni;
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
                if has_avx512_vnni() {
                    all.push(Kernel::Avx512Vnni);
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
            // SAFETY (all four): the lengths were checked above, and `available`/`detect`
            // only give a kernel whose instructions the CPU has; SSE2 is in the x86_64
            // baseline.
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => unsafe { tile_sse2(q, rows, len, out) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { tile_avx2(q, rows, len, out) },
            #[cfg(target_arch = "x86_64")]
            Kernel::AvxVnni => unsafe { tile_vnni(q, rows, len, out) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Vnni => unsafe { tile_avx512_vnni(q, rows, len, out) },
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

/// AVX-512 VNNI: [`tile_vnni`]'s offset codes and `vpdpbusd` (EVEX-encoded, on 256-bit
/// registers with AVX-512VL), two rows at a time so that each load of a query's codes
/// serves both (AVX-512 gives 32 vector registers: 2 × 8 accumulators fit), and each
/// row's 8 lane sums reduced together by a tree of `vphaddd` ([`sum_lanes_8`]). The
/// same products and exact integer sums as every other kernel. More than 8 queries at
/// once go to [`tile_avx2`].
///
/// # Safety
/// The lengths [`Kernel::tile`] checks, on a CPU with AVX2, AVX-512 VNNI and AVX-512VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512vnni,avx512vl")]
unsafe fn tile_avx512_vnni<const N: usize>(
    q: [&QueryCodes; N],
    rows: &[i8],
    len: usize,
    out: &mut [i32],
) {
    if N > 8 {
        // More queries than one tree of sums takes (the pre-scan sends at most 8).
        // SAFETY: the same lengths; AVX2 is among this kernel's features.
        return unsafe { tile_avx2(q, rows, len, out) };
    }
    let mut pairs = rows.chunks_exact(2 * len);
    for (p, two) in pairs.by_ref().enumerate() {
        let (e0, e1) = two.split_at(len);
        // SAFETY: both rows are `len` long, as every query is; the CPU has the features.
        let sums = unsafe { pair_vnni(q, e0, e1) };
        out[2 * p * N..(2 * p + 2) * N].copy_from_slice(&sums[..2 * N]);
    }
    // The last of an odd number of rows, paired with itself (its second sums unused).
    let odd = pairs.remainder();
    if !odd.is_empty() {
        let r = rows.len() / len - 1;
        // SAFETY: as above.
        let sums = unsafe { pair_vnni(q, odd, odd) };
        out[r * N..(r + 1) * N].copy_from_slice(&sums[..N]);
    }
}

/// Two rows' sums with every query for [`tile_avx512_vnni`]: `[e0·q[0], ...,
/// e0·q[N-1], e1·q[0], ..., e1·q[N-1]]` in the first `2 N` values.
///
/// # Safety
/// `e0`, `e1` and every query have the same length, on a CPU with AVX2, AVX-512 VNNI
/// and AVX-512VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512vnni,avx512vl")]
unsafe fn pair_vnni<const N: usize>(q: [&QueryCodes; N], e0: &[i8], e1: &[i8]) -> [i32; 16] {
    use std::arch::x86_64::{
        __m256i, _mm256_dpbusd_epi32, _mm256_loadu_si256, _mm256_set1_epi8, _mm256_setzero_si256,
        _mm256_xor_si256,
    };
    let n = e0.len() / 32 * 32;
    let flip = _mm256_set1_epi8(i8::MIN);
    let mut acc0 = [_mm256_setzero_si256(); N];
    let mut acc1 = [_mm256_setzero_si256(); N];
    let mut c = 0;
    while c < n {
        // SAFETY: c + 32 <= n <= e0.len() = e1.len(); unaligned loads of 32 bytes.
        let (x0, x1) = unsafe {
            (
                _mm256_loadu_si256(e0.as_ptr().add(c).cast::<__m256i>()),
                _mm256_loadu_si256(e1.as_ptr().add(c).cast::<__m256i>()),
            )
        };
        let (x0, x1) = (_mm256_xor_si256(x0, flip), _mm256_xor_si256(x1, flip));
        for k in 0..N {
            // SAFETY: c + 32 <= n <= q[k].len().
            let y = unsafe { _mm256_loadu_si256(q[k].codes.as_ptr().add(c).cast::<__m256i>()) };
            acc0[k] = _mm256_dpbusd_epi32(acc0[k], x0, y);
            acc1[k] = _mm256_dpbusd_epi32(acc1[k], x1, y);
        }
        c += 32;
    }
    let (s0, s1) = (sum_lanes_8(acc0), sum_lanes_8(acc1));
    let mut out = [0i32; 16];
    for k in 0..N {
        let offset = 128 * q[k].head_sum;
        out[k] = s0[k] - offset + tail(e0, &q[k].codes, n);
        out[N + k] = s1[k] - offset + tail(e1, &q[k].codes, n);
    }
    out
}

/// The 8 i32 lanes of each of up to 8 vectors summed (`out[k]` for `v[k]`), by a tree
/// of `vphaddd`: 6 horizontal adds and one add of the two 128-bit halves instead of
/// [`sum_lanes`]' 4 instructions per vector. Integer sums: exact in any order.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sum_lanes_8<const N: usize>(v: [std::arch::x86_64::__m256i; N]) -> [i32; 8] {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi32, _mm_storeu_si128, _mm256_castsi256_si128, _mm256_extracti128_si256,
        _mm256_hadd_epi32, _mm256_setzero_si256,
    };
    let a: [_; 8] = std::array::from_fn(|k| if k < N { v[k] } else { _mm256_setzero_si256() });
    // Each 128-bit half of `quad[i]` holds that half's sums of vectors 4i..4i+4.
    let quad = [
        _mm256_hadd_epi32(_mm256_hadd_epi32(a[0], a[1]), _mm256_hadd_epi32(a[2], a[3])),
        _mm256_hadd_epi32(_mm256_hadd_epi32(a[4], a[5]), _mm256_hadd_epi32(a[6], a[7])),
    ];
    let mut out = [0i32; 8];
    for (i, h) in quad.iter().enumerate() {
        let s = _mm_add_epi32(
            _mm256_castsi256_si128(*h),
            _mm256_extracti128_si256::<1>(*h),
        );
        // SAFETY: stores 16 bytes into 4 i32 of `out`.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().add(4 * i).cast::<__m128i>(), s) };
    }
    out
}

#[cfg(test)]
mod tests;
