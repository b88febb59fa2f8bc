//! HDR-FLIP: FLIP for pictures in linear light with values above white, after Andersson,
//! Nilsson, Shirley and Akenine-Möller, "Visualizing Errors in Rendered High Dynamic Range
//! Images", Eurographics 2021 (short papers).
//!
//! An HDR picture is only seen after an exposure and a tone curve, and a change may show at
//! one exposure and hide at another (a lamp's core shows only when exposed down). HDR-FLIP
//! brackets the exposures a viewer might choose and keeps, for each pixel, the worst LDR-FLIP
//! error over the bracket:
//!
//! 1. **Luminance.** Y = 0.2126 R + 0.7152 G + 0.0722 B of the reference, negative light
//!    clamped to 0.
//! 2. **Bracket.** The tone curve is the ACES fit with the paper's constants (pre-exposure of
//!    0.6 folded in): `(k0 x² + k1 x) / (k3 x² + k4 x + k5)`. `x_t` is the light it maps to
//!    t = 0.85. The start exposure brings the brightest pixel to `x_t`: log2(x_t / Y_max). The
//!    stop exposure brings the median to it: log2(x_t / Y_median). The count of exposures is
//!    ⌈stop − start⌉, at least 2, spaced evenly from start to stop.
//! 3. **Each exposure.** Both pictures are scaled by 2^exposure, tone mapped, clamped to
//!    [0, 1] and compared with LDR-FLIP ([`super::flip`]) in linear light, without 8-bit
//!    rounding.
//! 4. **HDR-FLIP** is each pixel's largest error over the exposures.
//!
//! A black reference has no bracket: one exposure, 0 EV, as the paper's code does. fogbank
//! departs from the paper in two corner cases. A median of 0 (more than half of the pixels
//! black) takes the darkest lit pixel instead, where the paper's stop would be infinite. And
//! the bracket has at most [`MAX_EXPOSURES`] exposures, spread over the same range. Light that
//! is not a number counts as black and infinite light as the largest half float.
//!
//! The exposures run one after another in a fixed order and each LDR-FLIP is deterministic;
//! the maximum does not depend on the order, so the result repeats exactly.

use super::flip::{FlipFigures, FlipMap, flip_linear};

/// The ACES fit's numerator and denominator coefficients, `k0`–`k5` of the paper's code.
const ACES: [f32; 6] = [
    0.6 * 0.6 * 2.51,
    0.6 * 0.03,
    0.0,
    0.6 * 0.6 * 2.43,
    0.6 * 0.59,
    0.14,
];
/// The tone-mapped value the start and stop exposures bring their luminance to.
const T_TARGET: f32 = 0.85;
/// The most exposures one comparison runs, whatever the reference's dynamic range.
pub const MAX_EXPOSURES: u32 = 32;
/// The largest finite half float: infinite light is read as this.
const HALF_MAX: f32 = 65_504.0;

/// A picture in linear light: RGB a pixel, rows top to bottom, values may exceed 1.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearPicture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height` pixels of linear RGB (Rec. 709 primaries).
    pub rgb: Vec<[f32; 3]>,
}

/// The exposures HDR-FLIP compared at, in stops.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ExposureBracket {
    /// The first (darkest) exposure, EV.
    pub start_ev: f32,
    /// The last (brightest) exposure, EV.
    pub stop_ev: f32,
    /// How many exposures, evenly spaced from start to stop.
    pub count: u32,
}

/// The HDR-FLIP map and the bracket it was taken over.
#[derive(Clone, Debug, PartialEq)]
pub struct HdrFlip {
    /// Each pixel's largest LDR-FLIP error over the bracket.
    pub map: FlipMap,
    /// The exposures compared.
    pub bracket: ExposureBracket,
}

impl HdrFlip {
    /// The mean and the 99th percentile of the map.
    pub fn figures(&self) -> FlipFigures {
        self.map.figures()
    }
}

/// Light as HDR-FLIP reads it: not a number is black, negative is black, infinite is the
/// largest half float.
fn sanitised(v: f32) -> f32 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, HALF_MAX)
    }
}

/// The ACES fit of light `x` (exposure applied), clamped to [0, 1].
pub fn tone_map(x: f32) -> f32 {
    let [k0, k1, k2, k3, k4, k5] = ACES;
    let x = x.max(0.0);
    let value = (k0 * x * x + k1 * x + k2) / (k3 * x * x + k4 * x + k5);
    if value.is_nan() {
        1.0
    } else {
        value.clamp(0.0, 1.0)
    }
}

/// The light the tone curve maps to `t`: the positive root of
/// `(k0 − t k3) x² + (k1 − t k4) x + (k2 − t k5) = 0`.
fn light_for(t: f32) -> f32 {
    let [k0, k1, k2, k3, k4, k5] = ACES;
    let c0 = (k1 - k4 * t) / (k0 - k3 * t);
    let c1 = (k2 - k5 * t) / (k0 - k3 * t);
    -0.5 * c0 + ((0.5 * c0) * (0.5 * c0) - c1).sqrt()
}

/// The exposures to compare `reference` at (see the module's doc).
pub fn exposure_bracket(reference: &LinearPicture) -> ExposureBracket {
    let mut luminance: Vec<f32> = reference
        .rgb
        .iter()
        .map(|p| {
            let [r, g, b] = p.map(sanitised);
            0.2126 * r + 0.7152 * g + 0.0722 * b
        })
        .collect();
    luminance.sort_unstable_by(f32::total_cmp);
    let brightest = luminance.last().copied().unwrap_or(0.0);
    if brightest <= 0.0 {
        return ExposureBracket {
            start_ev: 0.0,
            stop_ev: 0.0,
            count: 1,
        };
    }
    let n = luminance.len();
    let median = match n % 2 {
        1 => luminance[n / 2],
        _ => 0.5 * (luminance[n / 2 - 1] + luminance[n / 2]),
    };
    let median = if median > 0.0 {
        median
    } else {
        // More than half of the pixels are black: the darkest lit pixel stands in.
        luminance
            .iter()
            .copied()
            .find(|y| *y > 0.0)
            .unwrap_or(brightest)
    };
    let x_t = light_for(T_TARGET);
    let start_ev = (x_t / brightest).log2();
    let stop_ev = (x_t / median).log2();
    let count = ((stop_ev - start_ev).ceil() as u32).clamp(2, MAX_EXPOSURES);
    ExposureBracket {
        start_ev,
        stop_ev,
        count,
    }
}

/// The HDR-FLIP map of `test` against `reference`; `None` when their sizes differ or a
/// buffer does not match its size.
pub fn hdr_flip(reference: &LinearPicture, test: &LinearPicture) -> Option<HdrFlip> {
    let pixels = reference.width as usize * reference.height as usize;
    if (reference.width, reference.height) != (test.width, test.height)
        || reference.rgb.len() != pixels
        || test.rgb.len() != pixels
    {
        return None;
    }
    let bracket = exposure_bracket(reference);
    let width = reference.width as usize;
    let step = match bracket.count {
        0 | 1 => 0.0,
        n => (bracket.stop_ev - bracket.start_ev) / (n - 1) as f32,
    };
    let mut errors = vec![0.0f32; pixels];
    for i in 0..bracket.count {
        let scale = (bracket.start_ev + i as f32 * step).exp2();
        let exposed = |picture: &LinearPicture| -> Vec<[f32; 3]> {
            picture
                .rgb
                .iter()
                .map(|p| p.map(|v| tone_map(sanitised(v) * scale)))
                .collect()
        };
        let at_exposure = flip_linear(&exposed(reference), &exposed(test), width);
        for (worst, e) in errors.iter_mut().zip(at_exposure) {
            *worst = worst.max(e);
        }
    }
    Some(HdrFlip {
        map: FlipMap {
            width: reference.width,
            height: reference.height,
            errors,
        },
        bracket,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64×48 HDR picture: a gradient, stripes and a lamp at 12× white.
    fn picture() -> LinearPicture {
        let (w, h) = (64u32, 48u32);
        let mut rgb = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let lamp = (20..28).contains(&x) && (10..18).contains(&y);
                let stripe = if (x / 5 + y / 7) % 2 == 0 { 0.6 } else { 0.05 };
                let v = if lamp {
                    12.0
                } else {
                    stripe * (0.2 + x as f32 / 40.0)
                };
                rgb.push([v, v * 0.8, v * 0.5 + y as f32 / 200.0]);
            }
        }
        LinearPicture {
            width: w,
            height: h,
            rgb,
        }
    }

    /// A box blur of `radius` pixels in linear light, clamped at the edges.
    fn blurred(picture: &LinearPicture, radius: i32) -> LinearPicture {
        let (w, h) = (picture.width as i32, picture.height as i32);
        let mut out = picture.clone();
        for y in 0..h {
            for x in 0..w {
                let mut sum = [0.0f32; 3];
                let mut count = 0.0;
                for dy in -radius..=radius {
                    for dx in -radius..=radius {
                        let sx = (x + dx).clamp(0, w - 1);
                        let sy = (y + dy).clamp(0, h - 1);
                        let p = picture.rgb[(sy * w + sx) as usize];
                        for c in 0..3 {
                            sum[c] += p[c];
                        }
                        count += 1.0;
                    }
                }
                out.rgb[(y * w + x) as usize] = sum.map(|s| s / count);
            }
        }
        out
    }

    #[test]
    fn the_tone_curve_reaches_its_target_at_the_bracket_light() {
        let x_t = light_for(T_TARGET);
        assert!((tone_map(x_t) - T_TARGET).abs() < 1e-5, "{x_t}");
        assert_eq!(tone_map(0.0), 0.0);
        assert_eq!(tone_map(f32::INFINITY), 1.0);
        assert!(tone_map(1e6) <= 1.0 && tone_map(0.5) < tone_map(1.0));
    }

    #[test]
    fn the_bracket_runs_from_the_brightest_pixel_to_the_median() {
        let bracket = exposure_bracket(&picture());
        let x_t = light_for(T_TARGET);
        // The brightest pixel is the lamp's lowest row: (12, 9.6, 6 + 17/200).
        let lamp = 0.2126 * 12.0 + 0.7152 * 9.6 + 0.0722 * (6.0 + 17.0 / 200.0);
        assert!(
            (bracket.start_ev - (x_t / lamp).log2()).abs() < 1e-4,
            "{bracket:?}"
        );
        assert!(bracket.stop_ev > bracket.start_ev + 4.0, "{bracket:?}");
        assert_eq!(
            bracket.count,
            (bracket.stop_ev - bracket.start_ev).ceil() as u32
        );
        let black = LinearPicture {
            width: 2,
            height: 1,
            rgb: vec![[0.0; 3]; 2],
        };
        assert_eq!(exposure_bracket(&black).count, 1);
        // Mostly black: the darkest lit pixel stands in for the median; the bracket is finite.
        let dark = LinearPicture {
            width: 4,
            height: 1,
            rgb: vec![[0.0; 3], [0.0; 3], [0.0; 3], [2.0; 3]],
        };
        let b = exposure_bracket(&dark);
        assert!(
            b.start_ev.is_finite() && b.stop_ev.is_finite() && b.count == 2,
            "{b:?}"
        );
    }

    #[test]
    fn identical_pictures_score_zero() {
        let p = picture();
        let result = hdr_flip(&p, &p).unwrap();
        assert!(result.map.errors.iter().all(|e| *e == 0.0));
        assert_eq!(
            result.figures(),
            FlipFigures {
                mean: 0.0,
                p99: 0.0
            }
        );
    }

    #[test]
    fn the_error_grows_with_the_blur_and_repeats_exactly() {
        let p = picture();
        let figures: Vec<FlipFigures> = [1, 2, 4]
            .iter()
            .map(|&r| hdr_flip(&p, &blurred(&p, r)).unwrap().figures())
            .collect();
        assert!(figures[0].mean > 0.0, "{figures:?}");
        for pair in figures.windows(2) {
            assert!(pair[1].mean > pair[0].mean, "{figures:?}");
            assert!(pair[1].p99 >= pair[0].p99, "{figures:?}");
        }
        let again = hdr_flip(&p, &blurred(&p, 2)).unwrap();
        assert_eq!(again.map, hdr_flip(&p, &blurred(&p, 2)).unwrap().map);
    }

    #[test]
    fn a_change_above_white_shows_where_a_single_exposure_misses_it() {
        // The lamp twice as bright: at 0 EV both lamps clamp to white and LDR-FLIP of the
        // clamped pictures sees nothing, but the darker exposures of the bracket see it.
        let p = picture();
        let mut brighter = p.clone();
        for v in brighter.rgb.iter_mut().filter(|v| v[0] > 10.0) {
            *v = v.map(|c| c * 2.0);
        }
        let clamp = |q: &LinearPicture| -> Vec<[f32; 3]> {
            q.rgb.iter().map(|v| v.map(|c| c.clamp(0.0, 1.0))).collect()
        };
        let ldr = flip_linear(&clamp(&p), &clamp(&brighter), 64);
        assert!(ldr.iter().all(|e| *e == 0.0));
        let hdr = hdr_flip(&p, &brighter).unwrap();
        assert!(hdr.figures().p99 > 0.1, "{:?}", hdr.figures());
    }

    #[test]
    fn sizes_that_differ_are_not_measured() {
        let p = picture();
        let mut q = p.clone();
        q.height -= 1;
        assert!(hdr_flip(&p, &q).is_none());
    }
}
