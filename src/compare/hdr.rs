//! EXR pictures for `compare`: linear light, brought to the same 8-bit sRGB the gates judge
//! PNG frames in, after a stated exposure.
//!
//! An EXR holds linear light, where a bright lamp can be many times white. Each pixel's colour
//! is scaled by 2^exposure (`--exposure EV`, 0 by default), clamped to [0, 1] and encoded with
//! the sRGB curve ([`crate::color::linear_to_srgb8`]); alpha is clamped and scaled to 8 bits.
//! The usual gates then apply, FLIP included. Light above white after the exposure compares
//! as white, so a lower exposure looks into the highlights.

use super::{CompareError, Image, load_png};
use crate::color::linear_to_srgb8;
use crate::output::exr::{decode_exr_rgba_f16, f16_bits_to_f32};
use std::path::Path;

/// Whether `path` names an EXR file (by its extension, in any case).
pub fn is_exr(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("exr"))
}

/// Reads a picture to compare: a PNG as it is, an EXR exposed by `exposure_ev` and encoded to
/// 8-bit sRGB.
pub fn load_picture(path: &Path, exposure_ev: f32) -> Result<Image, CompareError> {
    if !is_exr(path) {
        return load_png(path);
    }
    let bytes = std::fs::read(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => CompareError::Missing {
            path: path.to_path_buf(),
        },
        _ => CompareError::Unreadable {
            path: path.to_path_buf(),
            source,
        },
    })?;
    let (width, height, halves) =
        decode_exr_rgba_f16(&bytes).map_err(|e| CompareError::NotExr {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    Image::from_rgba8(width, height, expose(&halves, exposure_ev))
}

/// Half-float RGBA in linear light to 8-bit sRGB RGBA after `exposure_ev` stops.
fn expose(halves: &[u16], exposure_ev: f32) -> Vec<u8> {
    let scale = exposure_ev.exp2();
    halves
        .chunks_exact(4)
        .flat_map(|p| {
            let [r, g, b, a] = [0, 1, 2, 3].map(|c| f16_bits_to_f32(p[c]));
            let colour = |v: f32| linear_to_srgb8((v * scale).clamp(0.0, 1.0));
            [
                colour(r),
                colour(g),
                colour(b),
                (a.clamp(0.0, 1.0) * 255.0).round() as u8,
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::exr::f32_to_f16_bits;

    #[test]
    fn exposure_scales_light_before_the_srgb_curve() {
        let halves: Vec<u16> = [0.5f32, 2.0, 0.0, 1.0]
            .iter()
            .map(|&v| f32_to_f16_bits(v))
            .collect();
        assert_eq!(expose(&halves, 0.0), [188, 255, 0, 255]);
        // One stop down: 2.0 becomes white, 0.5 a quarter.
        assert_eq!(expose(&halves, -1.0), [137, 255, 0, 255]);
        assert!(is_exr(Path::new("a/B.EXR")) && !is_exr(Path::new("a.png")));
    }
}
