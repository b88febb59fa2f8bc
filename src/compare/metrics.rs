//! The figures of one comparison and the verdict a [`Tolerance`] draws from them.
//!
//! Up to four gates, all of which must hold: at most `pixel_budget` of the pixels may have any
//! channel (R, G, B or A) differ by more than `max_channel_diff`, mean SSIM on luma must be
//! at least `min_ssim`, and, when a limit is set, the mean FLIP error at most `max_flip`.
//! FLIP is measured for every picture comparison and reported even when it does not gate. The figures are computed per row in parallel with integer sums, so they
//! are exact and independent of thread count. Images of different sizes are not an error: the
//! comparison fails and says so.

use super::flip::{FlipFigures, flip};
use super::{Image, Tolerance, ssim::ssim};
use rayon::prelude::*;
use std::fmt;

/// The gates one comparison was judged by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gate {
    /// Per-channel difference above which a pixel counts as over.
    pub max_channel_diff: u8,
    /// Fraction of pixels allowed over.
    pub pixel_budget: f64,
    /// Lowest acceptable SSIM; `None` when SSIM is reported but does not decide (data maps).
    pub min_ssim: Option<f64>,
    /// Highest acceptable mean FLIP error; `None` when FLIP does not decide.
    pub max_flip: Option<f64>,
}

/// Why a comparison failed.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// The images have different sizes, `[width, height]` each.
    SizeMismatch {
        /// Size of the golden image.
        expected: [u32; 2],
        /// Size of the new image.
        actual: [u32; 2],
    },
    /// An image's buffer does not match its size (a caller's bug, reported rather than panicked
    /// on).
    BadBuffer {
        /// "expected" or "actual".
        which: &'static str,
        /// The buffer error.
        message: String,
    },
    /// More pixels than the budget allows differ by more than the threshold.
    PixelsOver {
        /// Pixels over the threshold.
        pixels_over: usize,
        /// Their fraction of all pixels.
        fraction_over: f64,
        /// The per-channel threshold.
        max_channel_diff: u8,
        /// The allowed fraction.
        pixel_budget: f64,
    },
    /// Structure differs: SSIM below the minimum.
    LowSsim {
        /// Measured SSIM.
        ssim: f64,
        /// Required SSIM.
        min_ssim: f64,
    },
    /// A viewer would see it: the mean FLIP error is above the limit.
    HighFlip {
        /// Measured mean FLIP error.
        flip_mean: f64,
        /// The limit.
        max_flip: f64,
    },
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::SizeMismatch { expected, actual } => write!(
                f,
                "size differs: expected {}×{}, actual {}×{}",
                expected[0], expected[1], actual[0], actual[1]
            ),
            Failure::BadBuffer { which, message } => write!(f, "{which} image: {message}"),
            Failure::PixelsOver {
                pixels_over,
                fraction_over,
                max_channel_diff,
                pixel_budget,
            } => write!(
                f,
                "{pixels_over} px ({:.3} %) differ by more than {max_channel_diff}, budget {:.3} %",
                fraction_over * 100.0,
                pixel_budget * 100.0
            ),
            Failure::LowSsim { ssim, min_ssim } => write!(f, "SSIM {ssim:.4} below {min_ssim:.4}"),
            Failure::HighFlip {
                flip_mean,
                max_flip,
            } => write!(f, "FLIP {flip_mean:.4} above {max_flip:.4}"),
        }
    }
}

/// The figures and verdict of comparing an actual image with its expected (golden) image.
///
/// When the sizes differ (or a buffer is malformed) nothing can be measured: the figures are set
/// to their worst (max Δ 255, every pixel over, mean Δ 255, SSIM -1) and `failures` says why.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Largest difference of any channel (R, G, B or A) at any pixel, in 8-bit levels.
    pub max_channel_diff: u8,
    /// Pixels with any channel differing by more than the gate's `max_channel_diff`.
    pub pixels_over: usize,
    /// `pixels_over` as a fraction of all pixels (0 for empty images).
    pub fraction_over: f64,
    /// Mean absolute difference over the R, G and B channels of all pixels, in 8-bit levels.
    pub mean_abs_diff: f64,
    /// Mean SSIM on luma (see [`super::ssim()`]); 1 means identical.
    pub ssim: f64,
    /// FLIP's mean and 99th percentile (see [`super::flip()`]), 0 = identical; `None` for data
    /// maps and for pictures that could not be measured.
    pub flip: Option<FlipFigures>,
    /// Whether every gate held.
    pub passed: bool,
    /// The gates applied.
    pub gate: Gate,
    /// Every gate that failed, in the order size, pixels, SSIM; empty when `passed`.
    pub failures: Vec<Failure>,
}

impl Comparison {
    /// The two sizes, `[width, height]` expected then actual, when they differ.
    pub fn size_mismatch(&self) -> Option<([u32; 2], [u32; 2])> {
        self.failures.iter().find_map(|f| match f {
            Failure::SizeMismatch { expected, actual } => Some((*expected, *actual)),
            _ => None,
        })
    }

    /// Whether the figures were measured (not a size mismatch or a malformed buffer).
    pub fn measured(&self) -> bool {
        !self
            .failures
            .iter()
            .any(|x| matches!(x, Failure::SizeMismatch { .. } | Failure::BadBuffer { .. }))
    }

    fn unmeasurable(gate: Gate, failure: Failure, pixel_count: usize) -> Comparison {
        Comparison {
            max_channel_diff: u8::MAX,
            pixels_over: pixel_count,
            fraction_over: 1.0,
            mean_abs_diff: 255.0,
            ssim: -1.0,
            flip: None,
            passed: false,
            gate,
            failures: vec![failure],
        }
    }
}

impl fmt::Display for Comparison {
    /// One line, e.g. `max Δ 3, 0 px over 8 (0.000 %), mean Δ 0.21, SSIM 0.9993, FLIP 0.0012
    /// (p99 0.0310) — pass`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.measured() {
            write!(
                f,
                "max Δ {}, {} px over {} ({:.3} %), mean Δ {:.2}, SSIM {:.4}{}",
                self.max_channel_diff,
                self.pixels_over,
                self.gate.max_channel_diff,
                self.fraction_over * 100.0,
                self.mean_abs_diff,
                self.ssim,
                if self.gate.min_ssim.is_none() {
                    " (not gating)"
                } else {
                    ""
                },
            )?;
            if let Some(flip) = self.flip {
                write!(f, ", FLIP {:.4} (p99 {:.4})", flip.mean, flip.p99)?;
            }
            write!(f, " — ")?;
        }
        if self.passed {
            return write!(f, "pass");
        }
        write!(f, "FAIL")?;
        for (i, failure) in self.failures.iter().enumerate() {
            write!(f, "{}{failure}", if i == 0 { ": " } else { "; " })?;
        }
        Ok(())
    }
}

/// Compares a rendered picture with its golden image under `tol`.
pub fn compare(expected: &Image, actual: &Image, tol: &Tolerance) -> Comparison {
    let gate = Gate {
        max_channel_diff: tol.max_channel_diff,
        pixel_budget: tol.pixel_budget,
        min_ssim: Some(tol.min_ssim),
        max_flip: tol.max_flip,
    };
    compare_with_gate(expected, actual, gate, || {
        flip(expected, actual).map(|map| map.figures())
    })
}

/// Compares like [`compare`], with FLIP figures measured elsewhere (HDR-FLIP of the linear
/// pictures these were exposed from): `flip` runs only when the sizes agree.
pub(super) fn compare_with_flip(
    expected: &Image,
    actual: &Image,
    tol: &Tolerance,
    flip: impl FnOnce() -> Option<FlipFigures>,
) -> Comparison {
    let gate = Gate {
        max_channel_diff: tol.max_channel_diff,
        pixel_budget: tol.pixel_budget,
        min_ssim: Some(tol.min_ssim),
        max_flip: tol.max_flip,
    };
    compare_with_gate(expected, actual, gate, flip)
}

/// Compares data (fluid maps): passes when every channel of every pixel is within
/// `max_channel_diff`. SSIM is measured and reported but does not decide, because the maps are
/// numbers, not pictures meant for eyes.
pub fn compare_exact_within(expected: &Image, actual: &Image, max_channel_diff: u8) -> Comparison {
    let gate = Gate {
        max_channel_diff,
        pixel_budget: 0.0,
        min_ssim: None,
        max_flip: None,
    };
    compare_with_gate(expected, actual, gate, || None)
}

/// Per-row figures, reduced in row order.
#[derive(Clone, Copy, Default)]
struct RowFigures {
    max_channel_diff: u8,
    pixels_over: usize,
    rgb_abs_diff_sum: u64,
}

fn compare_with_gate(
    expected: &Image,
    actual: &Image,
    gate: Gate,
    flip: impl FnOnce() -> Option<FlipFigures>,
) -> Comparison {
    let pixel_count = expected.pixel_count().max(actual.pixel_count());
    if expected.width != actual.width || expected.height != actual.height {
        let failure = Failure::SizeMismatch {
            expected: [expected.width, expected.height],
            actual: [actual.width, actual.height],
        };
        return Comparison::unmeasurable(gate, failure, pixel_count);
    }
    for (which, image) in [("expected", expected), ("actual", actual)] {
        if let Err(e) = image.check() {
            let failure = Failure::BadBuffer {
                which,
                message: e.to_string(),
            };
            return Comparison::unmeasurable(gate, failure, pixel_count);
        }
    }

    let row_bytes = (expected.width as usize * 4).max(1);
    let rows: Vec<RowFigures> = expected
        .rgba8
        .par_chunks(row_bytes)
        .zip(actual.rgba8.par_chunks(row_bytes))
        .map(|(row_e, row_a)| row_figures(row_e, row_a, gate.max_channel_diff))
        .collect();
    let mut total = RowFigures::default();
    for row in &rows {
        total.max_channel_diff = total.max_channel_diff.max(row.max_channel_diff);
        total.pixels_over += row.pixels_over;
        total.rgb_abs_diff_sum += row.rgb_abs_diff_sum;
    }

    let (fraction_over, mean_abs_diff) = if pixel_count == 0 {
        (0.0, 0.0)
    } else {
        (
            total.pixels_over as f64 / pixel_count as f64,
            total.rgb_abs_diff_sum as f64 / (pixel_count * 3) as f64,
        )
    };
    let ssim = ssim(expected, actual).unwrap_or(-1.0);
    let flip = flip();

    let mut failures = Vec::new();
    if fraction_over > gate.pixel_budget {
        failures.push(Failure::PixelsOver {
            pixels_over: total.pixels_over,
            fraction_over,
            max_channel_diff: gate.max_channel_diff,
            pixel_budget: gate.pixel_budget,
        });
    }
    if let Some(min_ssim) = gate.min_ssim
        && (ssim < min_ssim || ssim.is_nan())
    {
        failures.push(Failure::LowSsim { ssim, min_ssim });
    }
    if let (Some(max_flip), Some(figures)) = (gate.max_flip, flip)
        && (figures.mean > max_flip || figures.mean.is_nan())
    {
        failures.push(Failure::HighFlip {
            flip_mean: figures.mean,
            max_flip,
        });
    }
    Comparison {
        max_channel_diff: total.max_channel_diff,
        pixels_over: total.pixels_over,
        fraction_over,
        mean_abs_diff,
        ssim,
        flip,
        passed: failures.is_empty(),
        gate,
        failures,
    }
}

fn row_figures(row_e: &[u8], row_a: &[u8], threshold: u8) -> RowFigures {
    let mut figures = RowFigures::default();
    for (pe, pa) in row_e.chunks_exact(4).zip(row_a.chunks_exact(4)) {
        let mut pixel_max = 0u8;
        for c in 0..4 {
            let d = pe[c].abs_diff(pa[c]);
            pixel_max = pixel_max.max(d);
            if c < 3 {
                figures.rgb_abs_diff_sum += u64::from(d);
            }
        }
        figures.max_channel_diff = figures.max_channel_diff.max(pixel_max);
        if pixel_max > threshold {
            figures.pixels_over += 1;
        }
    }
    figures
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A textured 100×100 picture with values in 40–200, so brightening never saturates.
    fn picture() -> Image {
        let (w, h) = (100u32, 100u32);
        let mut rgba8 = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let v = 40 + ((x * 37 + y * 91 + (x * y) % 17) % 160) as u8;
                rgba8.extend_from_slice(&[v, v.wrapping_add(x as u8 % 7), 200 - v / 2, 255]);
            }
        }
        Image::from_rgba8(w, h, rgba8).unwrap()
    }

    fn with_pixels_changed(image: &Image, count: usize, delta: u8) -> Image {
        let mut out = image.clone();
        for i in 0..count {
            let p = (i * 7919) % image.pixel_count();
            out.rgba8[p * 4] = out.rgba8[p * 4].saturating_add(delta);
        }
        out
    }

    #[test]
    fn identical_images_pass_with_ssim_one() {
        let image = picture();
        let c = compare(&image, &image, &Tolerance::default());
        assert!(c.passed);
        assert!((c.ssim - 1.0).abs() < 1e-12, "{}", c.ssim);
        assert_eq!((c.max_channel_diff, c.pixels_over), (0, 0));
        assert_eq!(c.mean_abs_diff, 0.0);
        assert_eq!(
            c.to_string(),
            "max Δ 0, 0 px over 8 (0.000 %), mean Δ 0.00, SSIM 1.0000, FLIP 0.0000 (p99 0.0000) \
             — pass"
        );
    }

    #[test]
    fn one_pixel_off_by_five_passes() {
        let image = picture();
        let c = compare(
            &image,
            &with_pixels_changed(&image, 1, 5),
            &Tolerance::default(),
        );
        assert!(c.passed, "{c}");
        assert_eq!((c.max_channel_diff, c.pixels_over), (5, 0));
        assert!((c.mean_abs_diff - 5.0 / 30_000.0).abs() < 1e-15);
    }

    #[test]
    fn one_pixel_off_by_fifty_is_within_budget() {
        let image = picture();
        let c = compare(
            &image,
            &with_pixels_changed(&image, 1, 50),
            &Tolerance::default(),
        );
        assert!(c.passed, "{c}");
        assert_eq!((c.max_channel_diff, c.pixels_over), (50, 1));
        assert!((c.fraction_over - 1e-4).abs() < 1e-15);
    }

    #[test]
    fn five_percent_off_by_fifty_fails_on_budget() {
        let image = picture();
        let c = compare(
            &image,
            &with_pixels_changed(&image, 500, 50),
            &Tolerance::default(),
        );
        assert!(!c.passed);
        assert_eq!(c.pixels_over, 500);
        assert!(
            matches!(
                c.failures[0],
                Failure::PixelsOver {
                    pixels_over: 500,
                    ..
                }
            ),
            "{c}"
        );
        assert!(
            c.to_string()
                .contains("FAIL: 500 px (5.000 %) differ by more than 8"),
            "{c}"
        );
    }

    #[test]
    fn uniform_brightening_by_twenty_fails_on_max_diff() {
        let image = picture();
        let mut brighter = image.clone();
        for p in brighter.rgba8.chunks_exact_mut(4) {
            for v in &mut p[..3] {
                *v += 20;
            }
        }
        let c = compare(&image, &brighter, &Tolerance::default());
        assert!(!c.passed);
        assert_eq!(c.max_channel_diff, 20);
        assert_eq!(c.pixels_over, 10_000);
        assert!((c.mean_abs_diff - 20.0).abs() < 1e-12);
        assert!(matches!(c.failures[0], Failure::PixelsOver { .. }));
        // The loose tolerance lets the same brightening through on the pixel gate.
        let loose = compare(&image, &brighter, &Tolerance::loose());
        assert!(
            !loose
                .failures
                .iter()
                .any(|f| matches!(f, Failure::PixelsOver { .. })),
            "{loose}"
        );
    }

    #[test]
    fn alpha_differences_count() {
        let image = picture();
        let mut faded = image.clone();
        faded.rgba8[3] = 0;
        let c = compare_exact_within(&image, &faded, 0);
        assert_eq!((c.max_channel_diff, c.pixels_over), (255, 1));
        assert_eq!(c.mean_abs_diff, 0.0);
        assert!(!c.passed);
    }

    #[test]
    fn size_mismatch_fails_without_panicking() {
        let c = compare(
            &picture(),
            &Image::filled(50, 100, [0, 0, 0, 255]),
            &Tolerance::default(),
        );
        assert!(!c.passed);
        assert_eq!(c.size_mismatch(), Some(([100, 100], [50, 100])));
        assert_eq!(
            c.to_string(),
            "FAIL: size differs: expected 100×100, actual 50×100"
        );
        let bad = Image {
            width: 100,
            height: 100,
            rgba8: vec![0; 7],
        };
        let c = compare(&picture(), &bad, &Tolerance::default());
        assert!(!c.passed);
        assert!(matches!(
            c.failures[0],
            Failure::BadBuffer {
                which: "actual",
                ..
            }
        ));
    }

    #[test]
    fn exact_comparison_gates_on_values_not_ssim() {
        // A flat zero map against a 0/3 checkerboard: tiny values, poor structure.
        let zero = Image::filled(32, 32, [0, 0, 0, 255]);
        let mut checker = zero.clone();
        for (i, p) in checker.rgba8.chunks_exact_mut(4).enumerate() {
            if (i % 32 + i / 32) % 2 == 0 {
                p[..3].copy_from_slice(&[3, 3, 3]);
            }
        }
        let within = compare_exact_within(&zero, &checker, 3);
        assert!(within.ssim < 0.9, "{within}");
        assert!(within.passed, "{within}");
        assert!(
            within.to_string().contains("(not gating) — pass"),
            "{within}"
        );
        let gated = Tolerance {
            max_channel_diff: 3,
            pixel_budget: 0.0,
            min_ssim: 0.98,
            max_flip: None,
        };
        let pictured = compare(&zero, &checker, &gated);
        assert!(
            matches!(pictured.failures.as_slice(), [Failure::LowSsim { .. }]),
            "{pictured}"
        );
        let beyond = compare_exact_within(&zero, &checker, 2);
        assert!(!beyond.passed);
        assert_eq!(beyond.pixels_over, 512);
    }

    #[test]
    fn flip_is_reported_always_and_gates_when_a_limit_is_set() {
        let image = picture();
        let changed = with_pixels_changed(&image, 500, 50);
        let reported = compare(&image, &changed, &Tolerance::loose());
        let figures = reported.flip.expect("pictures are measured with FLIP");
        assert!(
            figures.mean > 0.0 && figures.p99 >= figures.mean,
            "{figures:?}"
        );
        assert!(
            !reported
                .failures
                .iter()
                .any(|f| matches!(f, Failure::HighFlip { .. })),
            "{reported}"
        );
        let gated = Tolerance {
            max_flip: Some(figures.mean / 2.0),
            ..Tolerance::loose()
        };
        let c = compare(&image, &changed, &gated);
        assert!(
            matches!(c.failures.last(), Some(Failure::HighFlip { .. })),
            "{c}"
        );
        assert!(c.to_string().contains("FLIP"), "{c}");
        assert!(compare_exact_within(&image, &changed, 0).flip.is_none());
    }
}
