//! Which instructions the fluid's row kernels run with ([`Lanes`], detected once at run time),
//! and the AVX2 forms of the small per-cell operations they share. Every choice runs the same
//! operations in the same order on each cell, with no fused multiply-add, so every choice gives
//! the same bits (the kernels' tests compare them); only the speed differs.

/// Which instructions the row kernels run with; every choice gives the same bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lanes {
    /// The baseline CPU (SSE2 on x86-64).
    Plain,
    /// AVX2: eight lanes.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Lanes {
    /// The widest this CPU runs.
    pub(super) fn detect() -> Lanes {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Lanes::Avx2;
        }
        Lanes::Plain
    }

    /// Every choice this CPU runs (the tests compare them).
    #[cfg(test)]
    pub(super) fn available() -> Vec<Lanes> {
        let mut all = vec![Lanes::Plain];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            all.push(Lanes::Avx2);
        }
        all
    }
}

/// AVX2 forms of the per-cell operations the kernels share, each giving in every lane the bits
/// its scalar twin gives.
#[cfg(target_arch = "x86_64")]
pub(super) mod avx2 {
    use std::arch::x86_64::{__m256, _CMP_LT_OQ, _mm256_andnot_ps, _mm256_cmp_ps, _mm256_set1_ps};

    /// [`super::super::stages::flush`] on eight lanes: 0 where `|value|` is below
    /// `NEGLIGIBLE`, else the value (NaN kept, as the scalar comparison keeps it).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::sim) fn flush(value: __m256) -> __m256 {
        let sign = _mm256_set1_ps(-0.0);
        let magnitude = _mm256_andnot_ps(sign, value);
        let negligible = _mm256_cmp_ps::<_CMP_LT_OQ>(
            magnitude,
            _mm256_set1_ps(super::super::stages::NEGLIGIBLE),
        );
        _mm256_andnot_ps(negligible, value)
    }
}
