//! `exp` for the fog's squeeze (`advect::FogCarry`), computed step for step as the C library's
//! `expf` computes it on x86-64 with FMA: the algorithm of Arm's optimized-routines (MIT),
//! which glibc ships — `x · 32 / ln 2` split into an integer `k` and a remainder `r`, `2^(k/32)`
//! from a 32-entry table and `2^(r/32)` from a cubic, in double precision with fused
//! multiply-adds, rounded once to `f32`. Written out here, the squeeze no longer calls into
//! the C library cell by cell, and it gives the same bits whatever the CPU (`f64::mul_add` is
//! one rounding everywhere) and whatever C library the program is linked with.

/// `2^(i/32)` for `i` in `0..32`, each with `i << 47` taken off its bits, so that adding
/// `k << 47` gives `2^(k/32)` for any integer `k` with `k % 32 == i`.
const TABLE: [u64; 32] = [
    0x3ff0000000000000,
    0x3fefd9b0d3158574,
    0x3fefb5586cf9890f,
    0x3fef9301d0125b51,
    0x3fef72b83c7d517b,
    0x3fef54873168b9aa,
    0x3fef387a6e756238,
    0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715,
    0x3feef1a7373aa9cb,
    0x3feedea64c123422,
    0x3feece086061892d,
    0x3feebfdad5362a27,
    0x3feeb42b569d4f82,
    0x3feeab07dd485429,
    0x3feea47eb03a5585,
    0x3feea09e667f3bcd,
    0x3fee9f75e8ec5f74,
    0x3feea11473eb0187,
    0x3feea589994cce13,
    0x3feeace5422aa0db,
    0x3feeb737b0cdc5e5,
    0x3feec49182a3f090,
    0x3feed503b23e255d,
    0x3feee89f995ad3ad,
    0x3feeff76f2fb5e47,
    0x3fef199bdd85529c,
    0x3fef3720dcef9069,
    0x3fef5818dcfba487,
    0x3fef7c97337b9b5f,
    0x3fefa4afa2a490da,
    0x3fefd0765b6e4540,
];

/// `32 / ln 2`.
const INV_LN2_32: f64 = f64::from_bits(0x4047_1547_652b_82fe);
/// `1.5 · 2^52`: added to a double below `2^51` in magnitude, it leaves that value rounded to
/// an integer in the low bits.
const SHIFT: f64 = f64::from_bits(0x4338000000000000);
/// The cubic for `2^(r/32)`, `r` in `[-1/2, 1/2]`: `C0 r³ + C1 r² + C2 r + 1`.
const C0: f64 = f64::from_bits(0x3ebc6af84b912394);
const C1: f64 = f64::from_bits(0x3f2ebfce50fac4f3);
const C2: f64 = f64::from_bits(0x3f962e42ff0c52d6);

/// Largest `|x|` [`exp`] takes: within it no result overflows or is subnormal, so the C
/// library's `expf` takes this same path for it.
pub(super) const EXP_LIMIT: f32 = 80.0;

/// `e^x` for `|x| <= EXP_LIMIT`, with the bits of glibc's `expf` on x86-64 with FMA (a NaN or
/// a larger `|x|` gives some value, not the exponential).
#[inline(always)]
pub(super) fn exp(x: f32) -> f32 {
    let x = f64::from(x);
    // x · 32 / ln 2 = k + r, k an integer, r in [-1/2, 1/2].
    let shifted = INV_LN2_32.mul_add(x, SHIFT);
    let k_bits = shifted.to_bits();
    let k = shifted - SHIFT;
    let r = INV_LN2_32.mul_add(x, -k);
    // 2^(k/32) from the table, its exponent raised by k / 32 (whole part).
    let scale = f64::from_bits(TABLE[(k_bits % 32) as usize].wrapping_add(k_bits << 47));
    let high = C0.mul_add(r, C1);
    let low = C2.mul_add(r, 1.0);
    let poly = high.mul_add(r * r, low);
    (poly * scale) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On x86-64 Linux with FMA, glibc's `expf` is the very computation written here: every
    /// value must match it. Elsewhere a C library may round a few values the other way, by one
    /// unit in the last place.
    #[test]
    fn exp_gives_the_bits_of_the_c_librarys_expf() {
        #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
        let same_library = std::arch::is_x86_feature_detected!("fma");
        #[cfg(not(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu")))]
        let same_library = false;
        // The whole range in even steps, the floats around 0 one by one, and scattered bit
        // patterns (a fixed linear congruential sequence) within the range.
        let even = (0..400_000).map(|i| -EXP_LIMIT + i as f32 * (2.0 * EXP_LIMIT / 400_000.0));
        let near_zero =
            (0..100_000u32).flat_map(|i| [f32::from_bits(i * 9_000), -f32::from_bits(i * 9_000)]);
        let mut state = 0x2545_f491_u32;
        let scattered = std::iter::repeat_with(move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            f32::from_bits(state)
        })
        .filter(|x| x.abs() <= EXP_LIMIT)
        .take(400_000);
        let (mut checked, mut other) = (0u32, 0u32);
        for x in even.chain(near_zero).chain(scattered) {
            let (ours, library) = (exp(x), x.exp());
            checked += 1;
            if ours.to_bits() != library.to_bits() {
                other += 1;
                let gap = ours.to_bits().abs_diff(library.to_bits());
                assert!(gap <= 1, "exp({x}) = {ours}, the C library says {library}");
            }
        }
        assert_eq!(checked, 1_000_000);
        if same_library {
            assert_eq!(other, 0, "{other} of {checked} differ from glibc's expf");
        }
        assert_eq!((exp(0.0), exp(-0.0)), (1.0, 1.0));
    }
}
