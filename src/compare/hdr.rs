//! EXR pictures for `compare` and `check --format exr`: linear light, judged two ways.
//!
//! An EXR holds linear light, where a bright lamp can be many times white.
//!
//! * **The 8-bit gates after a stated exposure.** Each pixel's colour is scaled by
//!   2^exposure (`--exposure EV`, 0 by default), clamped to [0, 1] and encoded with the sRGB
//!   curve ([`crate::color::linear_to_srgb8`]); alpha is clamped and scaled to 8 bits. Max-diff,
//!   the pixel budget and SSIM then judge the result as they judge a PNG frame. Light above
//!   white after the exposure compares as white, so a lower exposure looks into the highlights.
//! * **HDR-FLIP** ([`super::flip_hdr`]) of the linear pictures themselves, over a bracket of
//!   exposures taken from the reference. It stands in for LDR-FLIP: it is reported always and
//!   gates when `--max-flip` (or `max_flip`) sets a limit.
//!
//! The heat map and the strip of a failing EXR frame are drawn from the exposed pictures, so
//! they are PNGs any viewer shows.

use super::flip_hdr::{ExposureBracket, LinearPicture, hdr_flip};
use super::metrics::compare_with_flip;
use super::{CompareError, Comparison, Image, Tolerance, load_png};
use crate::color::linear_to_srgb8;
use crate::output::exr::{decode_exr_rgba_f16, f16_bits_to_f32};
use std::path::Path;

/// A half-float RGBA picture in linear light, as an EXR file or the renderer holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct HdrFrame {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` IEEE 754 halves (raw bits): R, G, B, A a pixel.
    pub halves: Vec<u16>,
}

impl HdrFrame {
    /// Reads an EXR file. Errors name the file and say whether it is missing, unreadable or
    /// not an EXR.
    pub fn read(path: &Path) -> Result<HdrFrame, CompareError> {
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
        Ok(HdrFrame {
            width,
            height,
            halves,
        })
    }

    /// The picture after `exposure_ev` stops, as 8-bit sRGB.
    pub fn exposed(&self, exposure_ev: f32) -> Result<Image, CompareError> {
        Image::from_rgba8(self.width, self.height, expose(&self.halves, exposure_ev))
    }

    /// The colour as 32-bit floats, for HDR-FLIP.
    pub fn linear(&self) -> LinearPicture {
        LinearPicture {
            width: self.width,
            height: self.height,
            rgb: self
                .halves
                .chunks_exact(4)
                .map(|p| [0, 1, 2].map(|c| f16_bits_to_f32(p[c])))
                .collect(),
        }
    }

    /// Copies `expected`'s pixels into this picture under the white pixels of `mask` (see
    /// [`super::apply_mask`]); returns how many it hid. Pictures of another size than the
    /// mask are left alone.
    pub fn hide(&mut self, mask: &Image, expected: &HdrFrame) -> usize {
        let size = (mask.width, mask.height);
        let fits =
            |w: u32, h: u32, len: usize| (w, h) == size && len == w as usize * h as usize * 4;
        if !fits(self.width, self.height, self.halves.len())
            || !fits(expected.width, expected.height, expected.halves.len())
            || mask.check().is_err()
        {
            return 0;
        }
        let mut hidden = 0;
        for ((m, e), a) in mask
            .rgba8
            .chunks_exact(4)
            .zip(expected.halves.chunks_exact(4))
            .zip(self.halves.chunks_exact_mut(4))
        {
            if m[0] >= 128 && m[3] >= 128 {
                a.copy_from_slice(e);
                hidden += 1;
            }
        }
        hidden
    }
}

/// An HDR comparison: the verdict, the exposed pictures it judged (for heat maps and strips)
/// and the exposures HDR-FLIP bracketed.
#[derive(Clone, Debug)]
pub struct HdrComparison {
    /// Figures and verdict: the 8-bit gates after the exposure, FLIP from HDR-FLIP.
    pub comparison: Comparison,
    /// The reference after the exposure.
    pub expected: Image,
    /// The actual picture after the exposure.
    pub actual: Image,
    /// HDR-FLIP's exposures; `None` when the pictures could not be measured.
    pub bracket: Option<ExposureBracket>,
}

impl HdrComparison {
    /// How the frame was judged, for a report's detail line.
    pub fn method(&self, exposure_ev: f32) -> String {
        let gates = format!("gates at {exposure_ev:+} EV");
        match self.bracket {
            Some(b) => format!(
                "{gates}; FLIP is HDR-FLIP over {} exposure{} from {:+.2} to {:+.2} EV",
                b.count,
                if b.count == 1 { "" } else { "s" },
                b.start_ev,
                b.stop_ev
            ),
            None => gates,
        }
    }
}

/// Judges `actual` against `expected` in linear light: the 8-bit gates of `tolerance` after
/// `exposure_ev` stops, and HDR-FLIP of the linear pictures in place of LDR-FLIP.
pub fn compare_hdr(
    expected: &HdrFrame,
    actual: &HdrFrame,
    exposure_ev: f32,
    tolerance: &Tolerance,
) -> Result<HdrComparison, CompareError> {
    let (expected8, actual8) = (expected.exposed(exposure_ev)?, actual.exposed(exposure_ev)?);
    let mut bracket = None;
    let comparison = compare_with_flip(&expected8, &actual8, tolerance, || {
        let result = hdr_flip(&expected.linear(), &actual.linear())?;
        bracket = Some(result.bracket);
        Some(result.figures())
    });
    Ok(HdrComparison {
        comparison,
        expected: expected8,
        actual: actual8,
        bracket,
    })
}

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
    HdrFrame::read(path)?.exposed(exposure_ev)
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

    #[test]
    fn a_mask_hides_linear_pixels_and_the_gates_and_hdr_flip_see_nothing_there() {
        let frame = |v: f32| HdrFrame {
            width: 8,
            height: 8,
            halves: [v, v, v, 1.0].map(f32_to_f16_bits).repeat(64),
        };
        let expected = frame(0.25);
        let mut actual = frame(0.25);
        for (i, p) in actual.halves.chunks_exact_mut(4).enumerate() {
            if i % 8 < 3 {
                p[..3].fill(f32_to_f16_bits(6.0));
            }
        }
        let tolerance = Tolerance::default();
        let seen = compare_hdr(&expected, &actual, 0.0, &tolerance).unwrap();
        assert!(!seen.comparison.passed && seen.comparison.flip.unwrap().mean > 0.0);
        let mut mask = Image::filled(8, 8, [0, 0, 0, 255]);
        for (i, p) in mask.rgba8.chunks_exact_mut(4).enumerate() {
            if i % 8 < 3 {
                p.copy_from_slice(&[255, 255, 255, 255]);
            }
        }
        assert_eq!(actual.hide(&mask, &expected), 24);
        let hidden = compare_hdr(&expected, &actual, 0.0, &tolerance).unwrap();
        assert!(hidden.comparison.passed, "{}", hidden.comparison);
        assert_eq!(hidden.comparison.flip.unwrap().mean, 0.0);
        assert_eq!(actual.hide(&Image::filled(4, 4, [255; 4]), &expected), 0);
    }
}
