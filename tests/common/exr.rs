//! Reading fogbank's EXR output and comparing linear light with 8-bit sRGB frames.

use std::path::Path;

/// Linear light to an 8-bit sRGB code value: clamped to 0..=1, the exact piecewise curve,
/// rounded to nearest (what the renderer's `Rgba8UnormSrgb` store does).
pub fn linear_to_srgb8(linear: f32) -> u8 {
    let v = linear.clamp(0.0, 1.0);
    let encoded = if v <= 0.003_130_8 {
        v * 12.92
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    };
    (encoded * 255.0).round() as u8
}

/// An EXR written by fogbank: its size and its pixels as `f32`, four to a pixel.
pub fn read_exr(path: &Path) -> (u32, u32, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (w, h, halves) = fogbank::output::exr::decode_exr_rgba_f16(&bytes).unwrap();
    let floats = halves
        .iter()
        .map(|&b| fogbank::output::exr::f16_bits_to_f32(b))
        .collect();
    (w, h, floats)
}
