//! Reading fogbank's EXR output for comparison with 8-bit sRGB frames (the sRGB curve itself is
//! `fogbank::color`).

use std::path::Path;

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
