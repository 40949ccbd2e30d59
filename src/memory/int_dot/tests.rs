//! The kernels against the plain sums.

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
        let mut all = cases(len);
        // Every case's row in one tile, scored against two queries at once; an even
        // and an odd number of rows (the AVX-512 kernel takes rows two at a time).
        for _ in 0..2 {
            one_tile(&kernels, &all, len);
            all.pop();
        }
    }
}

/// `kernel`'s sums of every row of `rows` with the first `N` queries of `q`.
fn sums<const N: usize>(kernel: Kernel, q: &[QueryCodes], rows: &[i8], len: usize) -> Vec<i32> {
    let mut out = vec![0; rows.len() / len * N];
    kernel.tile(
        std::array::from_fn::<_, N, _>(|k| &q[k]),
        rows,
        len,
        &mut out,
    );
    out
}

/// Every case's row in one tile, scored against 2, 8 and 9 queries at once (the
/// AVX-512 kernel's sums of 8 accumulators go through one tree; 9 go to AVX2).
fn one_tile(kernels: &[Kernel], all: &[(Vec<i8>, Vec<i8>)], len: usize) {
    let rows: Vec<i8> = all.iter().flat_map(|(e, _)| e.clone()).collect();
    for (_, q) in all {
        // The query, its negation, and 7 rotations of it.
        let nine: Vec<QueryCodes> = (0..9)
            .map(|k| match k {
                0 => q.clone(),
                1 => q.iter().map(|&x| x.wrapping_neg()).collect(),
                _ => {
                    let mut r = q.clone();
                    r.rotate_left(k % len);
                    r
                }
            })
            .map(QueryCodes::new)
            .collect();
        let want = |n: usize| -> Vec<i32> {
            all.iter()
                .flat_map(|(e, _)| nine[..n].iter().map(|a| tail(e, &a.codes, 0)))
                .collect()
        };
        for &kernel in kernels {
            for (n, got) in [
                (2, sums::<2>(kernel, &nine, &rows, len)),
                (8, sums::<8>(kernel, &nine, &rows, len)),
                (9, sums::<9>(kernel, &nine, &rows, len)),
            ] {
                assert_eq!(got, want(n), "{kernel:?} at length {len}, {n} queries");
            }
        }
    }
}

#[test]
fn the_longest_row_cannot_overflow() {
    // The largest offset sum of the VNNI kernel fits in an i32.
    assert!(255i64 * 127 * MAX_LEN as i64 <= i64::from(i32::MAX));
}
