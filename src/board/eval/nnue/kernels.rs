//! The two loops an evaluation spends its time in: adding and taking out first-layer
//! columns, and the output layer's squared clipped ReLU. Each is written once in plain
//! Rust and, on x86-64, compiled a second time for AVX2, chosen at run time, so that one
//! binary runs on every x86-64 CPU and uses the wider registers where they exist.
//!
//! The output layer uses the NNUE engines' trick for the square: with |w| ≤ 128 and a
//! clipped activation v ≤ 255, `v·w` fits in 16 bits, so `(v·w)·v` is one multiply in 16
//! bits and one pairwise multiply-add into 32 — twice the lanes of a product in 32 bits.
//! [`super::Network::from_bytes`] refuses a net whose output weights break that bound.

use super::{HIDDEN, QA};

/// The largest output weight the 16-bit product allows (255 · 128 < 2¹⁵).
pub const MAX_OUTPUT_WEIGHT: i16 = 128;

/// `acc -= Σ columns[subs]; acc += Σ columns[adds]`, in one pass over the accumulator.
#[inline]
pub fn apply(acc: &mut [i16; HIDDEN], columns: &[[i16; HIDDEN]], subs: &[u16], adds: &[u16]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has just been found to support AVX2.
        unsafe { apply_avx2(acc, columns, subs, adds) };
        return;
    }
    apply_body(acc, columns, subs, adds);
}

/// Σ clamp(acc, 0, QA)² · w.
#[inline]
pub fn output(acc: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: as above.
        return unsafe { output_avx2(acc, w) };
    }
    output_body(acc, w)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn apply_avx2(acc: &mut [i16; HIDDEN], columns: &[[i16; HIDDEN]], subs: &[u16], adds: &[u16]) {
    apply_body(acc, columns, subs, adds);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn output_avx2(acc: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i32 {
    use std::arch::x86_64::*;
    let zero = _mm256_setzero_si256();
    let top = _mm256_set1_epi16(QA as i16);
    let mut sum = _mm256_setzero_si256();
    for (a, w) in acc.chunks_exact(16).zip(w.chunks_exact(16)) {
        // SAFETY: each chunk is 16 lanes of 16 bits, one unaligned 256-bit load.
        let (a, w) = unsafe {
            (
                _mm256_loadu_si256(a.as_ptr().cast()),
                _mm256_loadu_si256(w.as_ptr().cast()),
            )
        };
        let v = _mm256_min_epi16(_mm256_max_epi16(a, zero), top);
        let vw = _mm256_mullo_epi16(v, w);
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
    }
    let half = _mm_add_epi32(
        _mm256_castsi256_si128(sum),
        _mm256_extracti128_si256::<1>(sum),
    );
    let quarter = _mm_add_epi32(half, _mm_unpackhi_epi64(half, half));
    let eighth = _mm_add_epi32(quarter, _mm_shuffle_epi32::<0b01>(quarter));
    _mm_cvtsi128_si32(eighth)
}

/// Lanes kept in registers at once: 64 sixteen-bit lanes are four AVX2 registers or
/// eight SSE ones, few enough that every column is streamed through them once.
const BLOCK: usize = 64;

#[inline(always)]
fn apply_body(acc: &mut [i16; HIDDEN], columns: &[[i16; HIDDEN]], subs: &[u16], adds: &[u16]) {
    for start in (0..HIDDEN).step_by(BLOCK) {
        let mut block = [0i16; BLOCK];
        block.copy_from_slice(&acc[start..start + BLOCK]);
        for &f in subs {
            let column = &columns[usize::from(f)][start..start + BLOCK];
            for (a, w) in block.iter_mut().zip(column) {
                *a = a.wrapping_sub(*w);
            }
        }
        for &f in adds {
            let column = &columns[usize::from(f)][start..start + BLOCK];
            for (a, w) in block.iter_mut().zip(column) {
                *a = a.wrapping_add(*w);
            }
        }
        acc[start..start + BLOCK].copy_from_slice(&block);
    }
}

/// The same product as the vector code: `v·w` in 16 bits, then times `v` in 32.
#[inline(always)]
fn output_body(acc: &[i16; HIDDEN], w: &[i16; HIDDEN]) -> i32 {
    acc.iter()
        .zip(w)
        .map(|(&a, &w)| {
            let v = a.clamp(0, QA as i16);
            i32::from(v.wrapping_mul(w)) * i32::from(v)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_vectors(seed: u64) -> ([i16; HIDDEN], [i16; HIDDEN], Vec<[i16; HIDDEN]>) {
        let mut s = seed;
        let mut next = |range: i32| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) as i32 % (2 * range + 1) - range) as i16
        };
        let acc = std::array::from_fn(|_| next(400));
        let w = std::array::from_fn(|_| next(i32::from(MAX_OUTPUT_WEIGHT)));
        let columns = (0..8).map(|_| std::array::from_fn(|_| next(200))).collect();
        (acc, w, columns)
    }

    #[test]
    fn the_kernels_agree_with_the_plain_formulas() {
        for seed in 0..50 {
            let (acc, w, columns) = random_vectors(seed);
            let expected: i32 = acc
                .iter()
                .zip(&w)
                .map(|(&a, &w)| {
                    let v = i32::from(a).clamp(0, QA);
                    v * v * i32::from(w)
                })
                .sum();
            assert_eq!(output(&acc, &w), expected);
            assert_eq!(output_body(&acc, &w), expected);

            let mut updated = acc;
            apply(&mut updated, &columns, &[1, 5], &[0, 2, 7]);
            for i in 0..HIDDEN {
                let want = acc[i]
                    .wrapping_sub(columns[1][i])
                    .wrapping_sub(columns[5][i])
                    .wrapping_add(columns[0][i])
                    .wrapping_add(columns[2][i])
                    .wrapping_add(columns[7][i]);
                assert_eq!(updated[i], want, "lane {i}");
            }
        }
    }
}
