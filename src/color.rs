//! The sRGB transfer functions, the one copy fogbank uses wherever display values and linear
//! light meet: scene colours on their way to the shaders, the 8-bit frames turned back into
//! linear light for OpenEXR, and the tests that predict what the `encode` pass writes.
//!
//! These are the exact piecewise curves of IEC 61966-2-1 (not the 2.2 power approximation),
//! in `f32`, the same operations in the same order everywhere, so a colour converted here is
//! bit-identical whichever caller converts it. The GPU's twin is `srgb_to_linear` in
//! shaders/common.wgsl; the `encode` pass leaves the encoding to the `Rgba8UnormSrgb` store.

/// One display (sRGB) component, nominally 0..=1, to linear light.
pub fn srgb_to_linear(srgb: f32) -> f32 {
    if srgb <= 0.04045 {
        srgb / 12.92
    } else {
        ((srgb + 0.055) / 1.055).powf(2.4)
    }
}

/// One linear-light component, nominally 0..=1, to its display (sRGB) value; not clamped.
pub fn linear_to_srgb(linear: f32) -> f32 {
    if linear <= 0.003_130_8 {
        linear * 12.92
    } else {
        1.055 * linear.powf(1.0 / 2.4) - 0.055
    }
}

/// An 8-bit sRGB code value to linear light in 0..=1.
pub fn srgb8_to_linear(value: u8) -> f32 {
    srgb_to_linear(value as f32 / 255.0)
}

/// Linear light to an 8-bit sRGB code value: clamped to 0..=1, encoded, rounded to nearest
/// (what a store to an `Rgba8UnormSrgb` texture does, up to the GPU's rounding).
pub fn linear_to_srgb8(linear: f32) -> u8 {
    (linear_to_srgb(linear.clamp(0.0, 1.0)) * 255.0).round() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_known_values() {
        assert_eq!(srgb_to_linear(0.0), 0.0);
        assert!((srgb_to_linear(1.0) - 1.0).abs() < 1e-6);
        // Mid grey 0.5 is about 0.214 in linear light.
        assert!((srgb_to_linear(0.5) - 0.21404).abs() < 1e-4);
        // The linear segment.
        assert!((srgb_to_linear(0.04) - 0.04 / 12.92).abs() < 1e-7);
        assert!((srgb8_to_linear(10) - 10.0 / 255.0 / 12.92).abs() < 1e-7);
        assert_eq!(srgb8_to_linear(0), 0.0);
        assert!((srgb8_to_linear(255) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn encode_known_values() {
        assert_eq!(linear_to_srgb(0.0), 0.0);
        assert!((linear_to_srgb(1.0) - 1.0).abs() < 1e-6);
        assert!((linear_to_srgb(0.21404) - 0.5).abs() < 1e-4);
        assert!((linear_to_srgb(0.002) - 0.002 * 12.92).abs() < 1e-7);
        assert_eq!(linear_to_srgb8(-1.0), 0);
        assert_eq!(linear_to_srgb8(2.0), 255);
        // Linear 0.2 is sRGB 0.4845: level 123.6.
        assert_eq!(linear_to_srgb8(0.2), 124);
    }

    /// Every 8-bit code value survives decoding and encoding again.
    #[test]
    fn every_code_value_round_trips() {
        for value in 0..=255u8 {
            assert_eq!(linear_to_srgb8(srgb8_to_linear(value)), value, "{value}");
        }
    }

    /// The two curves meet at the breakpoints: each side of the piecewise curve is continuous.
    #[test]
    fn curves_are_continuous_at_their_breakpoints() {
        let below = srgb_to_linear(0.04045);
        let above = srgb_to_linear(0.040_450_01);
        assert!((above - below).abs() < 1e-6, "{below} {above}");
        let below = linear_to_srgb(0.003_130_8);
        let above = linear_to_srgb(0.003_130_81);
        assert!((above - below).abs() < 1e-5, "{below} {above}");
    }
}
