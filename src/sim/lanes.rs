//! Which instructions the fluid's row kernels run with ([`Lanes`], detected once at run time),
//! and the AVX2 forms of the small per-cell operations they share. Every choice runs the same
//! operations in the same order on each cell, with no fused multiply-add, so every choice gives
//! the same bits (the kernels' tests compare them); only the speed differs.
//!
//! The fluid picks its `Lanes` once. Every per-row kernel of the step runs with it:
//! confinement's curl and push, the advections, the red-black rows, the projection's last pass,
//! and the packing of the shader's maps. A helper that calls intrinsics is an always-inlined
//! function, never a closure: a closure would be compiled without its caller's instructions.

/// Which instructions the row kernels run with; every choice gives the same bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lanes {
    /// The baseline CPU (SSE2 on x86-64).
    Plain,
    /// AVX2 (with FMA, which every AVX2 CPU has and `exp` uses): eight lanes.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 (with AVX2): sixteen lanes in the pressure sweep and the advections'
    /// gather-free read, the AVX2 kernels elsewhere.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Lanes {
    /// The widest this CPU runs.
    pub(super) fn detect() -> Lanes {
        Self::available().pop().unwrap_or(Lanes::Plain)
    }

    /// Every choice this CPU runs, the widest last (the tests compare them all).
    pub(super) fn available() -> Vec<Lanes> {
        let mut all = vec![Lanes::Plain];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            all.push(Lanes::Avx2);
            if std::arch::is_x86_feature_detected!("avx512f") {
                all.push(Lanes::Avx512);
            }
        }
        all
    }

    /// The choice's name, for reports.
    pub(super) fn name(self) -> &'static str {
        match self {
            Lanes::Plain => "plain",
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx2 => "AVX2",
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx512 => "AVX-512",
        }
    }

    /// Whether the CPU has AVX2 (the AVX2 kernels run).
    pub(super) fn avx2(self) -> bool {
        self != Lanes::Plain
    }
}

/// `run_with(lanes)` for a row kernel type with an always-inlined `run(self)` (the multigrid's
/// and the diffusion's rows): the same body compiled for each [`Lanes`], so each gives the same
/// bits.
macro_rules! run_with_lanes {
    ($kernel:ident) => {
        impl $kernel<'_> {
            /// Runs the row with `lanes`' instructions (the same bits with each).
            #[inline(always)]
            pub(super) fn run_with(self, lanes: $crate::sim::lanes::Lanes) {
                match lanes {
                    $crate::sim::lanes::Lanes::Plain => self.run(),
                    // SAFETY: `Lanes::Avx2` is only chosen where the CPU has AVX2.
                    #[cfg(target_arch = "x86_64")]
                    $crate::sim::lanes::Lanes::Avx2 => unsafe { self.run_avx2() },
                    // SAFETY: `Lanes::Avx512` is only chosen where the CPU has AVX-512.
                    #[cfg(target_arch = "x86_64")]
                    $crate::sim::lanes::Lanes::Avx512 => unsafe { self.run_avx512() },
                }
            }

            /// # Safety
            /// The CPU must support AVX2.
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            unsafe fn run_avx2(self) {
                self.run();
            }

            /// # Safety
            /// The CPU must support AVX-512.
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,avx512f")]
            unsafe fn run_avx512(self) {
                self.run();
            }
        }
    };
}
pub(super) use run_with_lanes;

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

/// AVX-512 forms of the per-cell operations, each giving in every lane the bits its scalar
/// twin gives.
#[cfg(target_arch = "x86_64")]
pub(super) mod avx512 {
    use std::arch::x86_64::{
        __m512, _CMP_LT_OQ, _mm512_abs_ps, _mm512_cmp_ps_mask, _mm512_maskz_mov_ps, _mm512_set1_ps,
    };

    /// [`super::super::stages::flush`] on sixteen lanes: 0 where `|value|` is below
    /// `NEGLIGIBLE`, else the value (NaN kept, as the scalar comparison keeps it).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(in crate::sim) fn flush(value: __m512) -> __m512 {
        let negligible = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(
            _mm512_abs_ps(value),
            _mm512_set1_ps(super::super::stages::NEGLIGIBLE),
        );
        _mm512_maskz_mov_ps(!negligible, value)
    }
}
