//! Ordered dithering for GIF frames: an 8×8 Bayer matrix nudges each pixel along the grey
//! axis before its palette colour is looked up, by an amount scaled to the palette's spacing.

use super::nearest::{Nearest, distance2};

/// The 8×8 Bayer threshold matrix, values 0..64.
const BAYER_8X8: [[u8; 8]; 8] = [
    [0, 32, 8, 40, 2, 34, 10, 42],
    [48, 16, 56, 24, 50, 18, 58, 26],
    [12, 44, 4, 36, 14, 46, 6, 38],
    [60, 28, 52, 20, 62, 30, 54, 22],
    [3, 35, 11, 43, 1, 33, 9, 41],
    [51, 19, 59, 27, 49, 17, 57, 25],
    [15, 47, 7, 39, 13, 45, 5, 37],
    [63, 31, 55, 23, 61, 29, 53, 21],
];

/// How far the pixel at (`x`, `y`) is moved along the grey axis, per channel in 8-bit units,
/// for a palette whose dither amplitude is `amplitude` ([`amplitude`]).
#[inline]
pub(crate) fn offset(x: usize, y: usize, amplitude: f32) -> i32 {
    let threshold = (BAYER_8X8[y % 8][x % 8] as f32 + 0.5) / 64.0 - 0.5;
    (threshold * amplitude).round() as i32
}

/// How far (per channel, 8-bit units) the Bayer threshold may move a pixel: the palette's
/// median nearest-neighbour distance spread over the three channels of the grey axis, so a
/// gradient between two neighbouring palette colours dithers evenly between them while a
/// pixel that matches a palette colour stays on it.
pub(crate) fn amplitude(palette: &[[f32; 3]], nearest: &Nearest) -> f32 {
    if palette.len() < 2 {
        return 0.0;
    }
    let mut spacings: Vec<f32> = nearest
        .sorted
        .iter()
        .map(|(colour, index)| {
            nearest
                .sorted
                .iter()
                .filter(|(_, other)| other != index)
                .map(|(other, _)| distance2(*colour, *other))
                .min()
                .map_or(0.0, |d| (d as f32).sqrt())
        })
        .collect();
    spacings.sort_by(f32::total_cmp);
    let median = spacings[spacings.len() / 2];
    (median / 3f32.sqrt()).clamp(1.0, 32.0)
}
