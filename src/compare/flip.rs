//! FLIP, a perceptual difference of two pictures: LDR-FLIP after Andersson, Nilsson,
//! Akenine-Möller, Oskarsson, Åström and Fairchild, "FLIP: A Difference Evaluator for
//! Alternating Images", Proc. ACM Comput. Graph. Interact. Tech. 3(2), 2020.
//!
//! A pixel count says how many pixels moved, not whether a viewer would see it. FLIP models
//! the viewer, and gives each pixel an error from 0 (no visible difference) to 1:
//!
//! 1. **Colour.** Both pictures go from sRGB to linear RGB, XYZ and the opponent space
//!    YyCxCz. Each channel is filtered by a contrast sensitivity function: Gaussians whose
//!    widths are the paper's, in degrees of visual angle at [`PIXELS_PER_DEGREE`]. The result
//!    goes back to linear RGB, is clamped to [0, 1], then to L\*a\*b\* with the Hunt
//!    adjustment (a and b scaled by L/100). The HyAB distance (|ΔL| + ‖Δab‖) is raised to
//!    `qc` = 0.7. It is remapped so that `pc` = 0.4 of the largest distance (green against
//!    blue) gives `pt` = 0.95, and the largest gives 1.
//! 2. **Features.** The luminance of each picture is convolved with the first (edges) and
//!    second (points) derivatives of a Gaussian half a cycle of 0.082° wide. Each pixel's
//!    feature error is the larger difference of the two gradient magnitudes, scaled by 1/√2
//!    and raised to `qf` = 0.5.
//! 3. **FLIP** is the colour error raised to (1 − feature error): a difference on an edge
//!    counts for more.
//!
//! Every filter is a sum of separable terms. A horizontal pass per row and a vertical pass per
//! row run in parallel, each pixel computed by the same operations whatever thread runs it.
//! Edges are clamped. The mean adds row sums in row order, so the figures are deterministic.
//! Alpha is ignored. HDR-FLIP ([`super::flip_hdr`]) runs these steps on tone-mapped linear light.

use super::Image;
use crate::color::srgb8_to_linear;
use rayon::prelude::*;

/// Pixels per degree of visual angle: a 3840-pixel-wide, 0.7 m wide screen seen from 0.7 m,
/// the FLIP paper's default observer.
pub const PIXELS_PER_DEGREE: f32 = 67.020_64;
/// Exponent of the colour difference.
const QC: f32 = 0.7;
/// Exponent of the feature difference.
const QF: f32 = 0.5;
/// Fraction of the largest colour difference that maps to [`PT`].
const PC: f32 = 0.4;
/// Error given to [`PC`] of the largest colour difference.
const PT: f32 = 0.95;
/// Width of one cycle of the feature detectors, in degrees.
const FEATURE_CYCLE_DEG: f32 = 0.082;

/// Linear sRGB (D65) to XYZ, the exact rational matrix of the FLIP reference code.
const RGB_TO_XYZ: [[f32; 3]; 3] = [
    [
        10_135_552.0 / 24_577_794.0,
        8_788_810.0 / 24_577_794.0,
        4_435_075.0 / 24_577_794.0,
    ],
    [
        2_613_072.0 / 12_288_897.0,
        8_788_810.0 / 12_288_897.0,
        887_015.0 / 12_288_897.0,
    ],
    [
        1_425_312.0 / 73_733_382.0,
        8_788_810.0 / 73_733_382.0,
        70_074_185.0 / 73_733_382.0,
    ],
];
/// XYZ to linear sRGB, the inverse of [`RGB_TO_XYZ`].
const XYZ_TO_RGB: [[f32; 3]; 3] = [
    [3.241_003_2, -1.537_399, -0.498_615_9],
    [-0.969_224_3, 1.875_93, 0.041_554_227],
    [0.055_639_42, -0.204_011_2, 1.057_149],
];

/// The contrast sensitivity of one opponent channel: `a1·√(π/b1)·e^(−π²r²/b1)` plus the same
/// with `a2`, `b2`, where r is in degrees (the paper's Table 1).
#[derive(Clone, Copy)]
struct Csf {
    a1: f32,
    b1: f32,
    a2: f32,
    b2: f32,
}

/// Achromatic channel (Yy).
const CSF_ACHROMATIC: Csf = Csf {
    a1: 1.0,
    b1: 0.0047,
    a2: 0.0,
    b2: 1e-5,
};
/// Red-green channel (Cx).
const CSF_RED_GREEN: Csf = Csf {
    a1: 1.0,
    b1: 0.0053,
    a2: 0.0,
    b2: 1e-5,
};
/// Blue-yellow channel (Cz).
const CSF_BLUE_YELLOW: Csf = Csf {
    a1: 34.1,
    b1: 0.04,
    a2: 13.5,
    b2: 0.025,
};

/// The per-pixel FLIP errors of two pictures, each in [0, 1], rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct FlipMap {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// One error a pixel.
    pub errors: Vec<f32>,
}

/// The two figures a check reports from a [`FlipMap`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlipFigures {
    /// Mean error over all pixels.
    pub mean: f64,
    /// The 99th percentile (nearest rank): 1 % of the pixels are worse.
    pub p99: f64,
}

impl FlipMap {
    /// Mean error over all pixels; 0 for an empty picture. Row sums are added in row order.
    pub fn mean(&self) -> f64 {
        if self.errors.is_empty() {
            return 0.0;
        }
        let width = (self.width as usize).max(1);
        let total: f64 = self
            .errors
            .chunks(width)
            .map(|row| row.iter().map(|&e| f64::from(e)).sum::<f64>())
            .sum();
        total / self.errors.len() as f64
    }

    /// The error that `fraction` (0–1) of the pixels do not exceed, by nearest rank; 0 for an
    /// empty picture.
    pub fn percentile(&self, fraction: f64) -> f64 {
        if self.errors.is_empty() {
            return 0.0;
        }
        let mut sorted = self.errors.clone();
        sorted.sort_unstable_by(f32::total_cmp);
        let rank = (fraction.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
        f64::from(sorted[rank.clamp(1, sorted.len()) - 1])
    }

    /// The mean and the 99th percentile.
    pub fn figures(&self) -> FlipFigures {
        FlipFigures {
            mean: self.mean(),
            p99: self.percentile(0.99),
        }
    }
}

/// The LDR-FLIP error map of `test` against `reference` at [`PIXELS_PER_DEGREE`]. `None`
/// when the sizes differ or a buffer does not match its size.
pub fn flip(reference: &Image, test: &Image) -> Option<FlipMap> {
    if reference.width != test.width || reference.height != test.height {
        return None;
    }
    reference.check().ok()?;
    test.check().ok()?;
    let linear = |image: &Image| -> Vec<[f32; 3]> {
        (image.rgba8.chunks_exact(4))
            .map(|p| [0, 1, 2].map(|c| srgb8_to_linear(p[c])))
            .collect()
    };
    let (width, height) = (reference.width, reference.height);
    let errors = flip_linear(&linear(reference), &linear(test), width as usize);
    Some(FlipMap {
        width,
        height,
        errors,
    })
}

/// The LDR-FLIP errors of two pictures given as linear RGB in [0, 1], `width` pixels a row,
/// of the same length (the caller checks). HDR-FLIP calls it once an exposure.
pub(super) fn flip_linear(reference: &[[f32; 3]], test: &[[f32; 3]], width: usize) -> Vec<f32> {
    let height = reference.len() / width.max(1);
    let kernels = Kernels::new(PIXELS_PER_DEGREE);
    let reference = Prepared::new(reference, width, height, &kernels);
    let test = Prepared::new(test, width, height, &kernels);
    let cmax = max_colour_distance().powf(QC);
    (0..width * height)
        .into_par_iter()
        .with_min_len(width.max(1))
        .map(|i| {
            let colour = remap_colour(hyab(reference.lab[i], test.lab[i]).powf(QC), cmax);
            let edge = (reference.edge[i] - test.edge[i]).abs();
            let point = (reference.point[i] - test.point[i]).abs();
            let feature = (std::f32::consts::FRAC_1_SQRT_2 * edge.max(point))
                .clamp(0.0, 1.0)
                .powf(QF);
            colour.powf(1.0 - feature)
        })
        .collect()
}

/// One picture, ready to be compared: the Hunt-adjusted L\*a\*b\* of its filtered colour, and
/// the magnitudes of its edge and point features.
struct Prepared {
    lab: Vec<[f32; 3]>,
    edge: Vec<f32>,
    point: Vec<f32>,
}

impl Prepared {
    fn new(rgb: &[[f32; 3]], width: usize, height: usize, kernels: &Kernels) -> Prepared {
        let white = white_xyz();
        let mut planes = [
            vec![0.0f32; width * height],
            vec![0.0f32; width * height],
            vec![0.0f32; width * height],
        ];
        for (i, linear) in rgb.iter().enumerate() {
            let ycxcz = xyz_to_ycxcz(mat(&RGB_TO_XYZ, *linear), white);
            for c in 0..3 {
                planes[c][i] = ycxcz[c];
            }
        }
        // Normalised luminance, Y/Yw = (Yy + 16)/116, before the colour filters.
        let luminance: Vec<f32> = planes[0].iter().map(|y| (y + 16.0) / 116.0).collect();
        let filtered: Vec<Vec<f32>> = planes
            .iter()
            .zip(&kernels.csf)
            .map(|(plane, terms)| filter_sum(plane, width, height, terms))
            .collect();
        let lab = (0..width * height)
            .map(|i| {
                let xyz = ycxcz_to_xyz([filtered[0][i], filtered[1][i], filtered[2][i]], white);
                let rgb = mat(&XYZ_TO_RGB, xyz).map(|v| v.clamp(0.0, 1.0));
                hunt(xyz_to_lab(mat(&RGB_TO_XYZ, rgb), white))
            })
            .collect();
        let magnitude = |[dx, dy]: [&Separable; 2]| {
            let x = filter(&luminance, width, height, dx);
            let y = filter(&luminance, width, height, dy);
            x.iter().zip(&y).map(|(a, b)| a.hypot(*b)).collect()
        };
        Prepared {
            lab,
            edge: magnitude([&kernels.edge[0], &kernels.edge[1]]),
            point: magnitude([&kernels.point[0], &kernels.point[1]]),
        }
    }
}

/// A separable 2D filter: `horizontal` along rows, then `vertical` along columns, each with
/// its centre at the middle.
struct Separable {
    horizontal: Vec<f32>,
    vertical: Vec<f32>,
}

/// Every filter FLIP applies at one viewing distance.
struct Kernels {
    /// The contrast sensitivity of Yy, Cx and Cz, each a sum of separable Gaussians.
    csf: [Vec<Separable>; 3],
    /// Edge detectors across x and across y.
    edge: [Separable; 2],
    /// Point detectors across x and across y.
    point: [Separable; 2],
}

impl Kernels {
    fn new(pixels_per_degree: f32) -> Kernels {
        // The radius covers three standard deviations of the widest Gaussian of any channel.
        let widest = [CSF_ACHROMATIC, CSF_RED_GREEN, CSF_BLUE_YELLOW]
            .iter()
            .flat_map(|c| [c.b1, c.b2])
            .fold(0.0f32, f32::max);
        let pi = std::f32::consts::PI;
        let radius = (3.0 * (widest / (2.0 * pi * pi)).sqrt() * pixels_per_degree).ceil() as i32;
        let csf = [CSF_ACHROMATIC, CSF_RED_GREEN, CSF_BLUE_YELLOW]
            .map(|c| csf_terms(c, radius, pixels_per_degree));

        let sd = 0.5 * FEATURE_CYCLE_DEG * pixels_per_degree;
        let radius = (3.0 * sd).ceil() as i32;
        let gauss: Vec<f32> = (-radius..=radius)
            .map(|x| (-((x * x) as f32) / (2.0 * sd * sd)).exp())
            .collect();
        let gauss_sum: f32 = gauss.iter().sum();
        let smooth: Vec<f32> = gauss.iter().map(|g| g / gauss_sum).collect();
        // The 2D kernel is derivative(x) · g(y); its positive weights are scaled to sum to 1 and
        // its negative weights to −1. The sign depends on x alone, so the scaling moves into the
        // derivative's 1D kernel and the smoothing keeps sum 1.
        let signed_normalised = |d: Vec<f32>| -> Vec<f32> {
            let positive: f32 = d.iter().filter(|v| **v > 0.0).sum();
            let negative: f32 = -d.iter().filter(|v| **v < 0.0).sum::<f32>();
            d.iter()
                .map(|&v| if v > 0.0 { v / positive } else { v / negative })
                .collect()
        };
        let first = signed_normalised(
            (-radius..=radius)
                .zip(&gauss)
                .map(|(x, g)| -(x as f32) * g)
                .collect(),
        );
        let second = signed_normalised(
            (-radius..=radius)
                .zip(&gauss)
                .map(|(x, g)| ((x * x) as f32 / (sd * sd) - 1.0) * g)
                .collect(),
        );
        let across = |d: &Vec<f32>| {
            [
                Separable {
                    horizontal: d.clone(),
                    vertical: smooth.clone(),
                },
                Separable {
                    horizontal: smooth.clone(),
                    vertical: d.clone(),
                },
            ]
        };
        Kernels {
            csf,
            edge: across(&first),
            point: across(&second),
        }
    }
}

/// The separable terms of one channel's contrast sensitivity, normalised so that the whole 2D
/// kernel sums to 1.
fn csf_terms(csf: Csf, radius: i32, pixels_per_degree: f32) -> Vec<Separable> {
    let pi = std::f32::consts::PI;
    let delta_deg = 1.0 / pixels_per_degree;
    let terms: Vec<(f32, Vec<f32>)> = [(csf.a1, csf.b1), (csf.a2, csf.b2)]
        .into_iter()
        .filter(|(a, _)| *a != 0.0)
        .map(|(a, b)| {
            let e: Vec<f32> = (-radius..=radius)
                .map(|x| {
                    let r_deg = x as f32 * delta_deg;
                    (-pi * pi * r_deg * r_deg / b).exp()
                })
                .collect();
            (a * (pi / b).sqrt(), e)
        })
        .collect();
    let total: f32 = terms
        .iter()
        .map(|(w, e)| w * e.iter().sum::<f32>().powi(2))
        .sum();
    terms
        .into_iter()
        .map(|(w, e)| Separable {
            vertical: e.iter().map(|v| v * w / total).collect(),
            horizontal: e,
        })
        .collect()
}

/// `plane` filtered by the sum of `terms`.
fn filter_sum(plane: &[f32], width: usize, height: usize, terms: &[Separable]) -> Vec<f32> {
    let mut sum = vec![0.0f32; plane.len()];
    for term in terms {
        for (s, v) in sum.iter_mut().zip(filter(plane, width, height, term)) {
            *s += v;
        }
    }
    sum
}

/// `plane` filtered by one separable kernel, clamping at the edges.
fn filter(plane: &[f32], width: usize, height: usize, kernel: &Separable) -> Vec<f32> {
    if plane.is_empty() {
        return Vec::new();
    }
    let mut across = vec![0.0f32; plane.len()];
    let h_radius = (kernel.horizontal.len() / 2) as isize;
    across
        .par_chunks_mut(width)
        .zip(plane.par_chunks(width))
        .for_each(|(out, row)| {
            for (x, o) in out.iter_mut().enumerate() {
                *o = kernel
                    .horizontal
                    .iter()
                    .enumerate()
                    .map(|(k, w)| {
                        let sx = (x as isize + k as isize - h_radius).clamp(0, width as isize - 1);
                        w * row[sx as usize]
                    })
                    .sum();
            }
        });
    let mut out = vec![0.0f32; plane.len()];
    let v_radius = (kernel.vertical.len() / 2) as isize;
    out.par_chunks_mut(width)
        .enumerate()
        .for_each(|(y, out_row)| {
            for (k, w) in kernel.vertical.iter().enumerate() {
                let sy = (y as isize + k as isize - v_radius).clamp(0, height as isize - 1);
                let src = &across[sy as usize * width..(sy as usize + 1) * width];
                for (o, s) in out_row.iter_mut().zip(src) {
                    *o += w * s;
                }
            }
        });
    out
}

/// `m · v`.
fn mat(m: &[[f32; 3]; 3], v: [f32; 3]) -> [f32; 3] {
    [0, 1, 2].map(|r| m[r][0] * v[0] + m[r][1] * v[1] + m[r][2] * v[2])
}

/// The XYZ of linear white (1, 1, 1), FLIP's reference illuminant.
fn white_xyz() -> [f32; 3] {
    mat(&RGB_TO_XYZ, [1.0, 1.0, 1.0])
}

fn xyz_to_ycxcz(xyz: [f32; 3], white: [f32; 3]) -> [f32; 3] {
    let [x, y, z] = [0, 1, 2].map(|c| xyz[c] / white[c]);
    [116.0 * y - 16.0, 500.0 * (x - y), 200.0 * (y - z)]
}

fn ycxcz_to_xyz(ycxcz: [f32; 3], white: [f32; 3]) -> [f32; 3] {
    let y = (ycxcz[0] + 16.0) / 116.0;
    let x = ycxcz[1] / 500.0 + y;
    let z = y - ycxcz[2] / 200.0;
    [x * white[0], y * white[1], z * white[2]]
}

fn xyz_to_lab(xyz: [f32; 3], white: [f32; 3]) -> [f32; 3] {
    let delta = 6.0f32 / 29.0;
    let f = |t: f32| {
        if t > delta * delta * delta {
            t.cbrt()
        } else {
            t / (3.0 * delta * delta) + 4.0 / 29.0
        }
    };
    let [fx, fy, fz] = [0, 1, 2].map(|c| f(xyz[c] / white[c]));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// The Hunt effect: chroma shrinks with lightness.
fn hunt([l, a, b]: [f32; 3]) -> [f32; 3] {
    [l, 0.01 * l * a, 0.01 * l * b]
}

/// HyAB distance: lightness by city block, chroma by Euclid.
fn hyab(p: [f32; 3], q: [f32; 3]) -> f32 {
    (p[0] - q[0]).abs() + (p[1] - q[1]).hypot(p[2] - q[2])
}

/// The largest colour distance, between linear green and linear blue.
fn max_colour_distance() -> f32 {
    let white = white_xyz();
    let lab = |rgb: [f32; 3]| hunt(xyz_to_lab(mat(&RGB_TO_XYZ, rgb), white));
    hyab(lab([0.0, 1.0, 0.0]), lab([0.0, 0.0, 1.0]))
}

/// The paper's compression of a colour difference (already raised to `qc`) into [0, 1].
fn remap_colour(difference: f32, cmax: f32) -> f32 {
    let knee = PC * cmax;
    let error = if difference < knee {
        PT / knee * difference
    } else {
        PT + (difference - knee) / (cmax - knee) * (1.0 - PT)
    };
    error.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 96×64 picture with edges, dots and gradients, so a blur changes it everywhere.
    fn picture() -> Image {
        let (w, h) = (96u32, 64u32);
        let mut rgba8 = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let stripe = if (x / 6 + y / 9) % 2 == 0 { 210 } else { 40 };
                let dot = if (x % 11 == 5) && (y % 7 == 3) {
                    255
                } else {
                    0
                };
                rgba8.extend_from_slice(&[
                    stripe.max(dot),
                    (x * 255 / w) as u8,
                    (y * 255 / h) as u8,
                    255,
                ]);
            }
        }
        Image::from_rgba8(w, h, rgba8).unwrap()
    }

    /// A box blur of `radius` pixels, clamped at the edges.
    fn blurred(image: &Image, radius: i32) -> Image {
        let (w, h) = (image.width as i32, image.height as i32);
        let mut out = image.clone();
        for y in 0..h {
            for x in 0..w {
                let mut sum = [0u32; 3];
                let mut count = 0;
                for dy in -radius..=radius {
                    for dx in -radius..=radius {
                        let sx = (x + dx).clamp(0, w - 1);
                        let sy = (y + dy).clamp(0, h - 1);
                        let i = ((sy * w + sx) * 4) as usize;
                        for (c, s) in sum.iter_mut().enumerate() {
                            *s += u32::from(image.rgba8[i + c]);
                        }
                        count += 1;
                    }
                }
                let i = ((y * w + x) * 4) as usize;
                for (c, s) in sum.iter().enumerate() {
                    out.rgba8[i + c] = (s / count) as u8;
                }
            }
        }
        out
    }

    #[test]
    fn identical_pictures_score_zero() {
        let image = picture();
        let map = flip(&image, &image).unwrap();
        assert!(map.errors.iter().all(|e| *e == 0.0));
        assert_eq!(
            map.figures(),
            FlipFigures {
                mean: 0.0,
                p99: 0.0
            }
        );
    }

    #[test]
    fn the_error_grows_with_the_blur() {
        let image = picture();
        let figures: Vec<FlipFigures> = [1, 2, 4]
            .iter()
            .map(|&r| flip(&image, &blurred(&image, r)).unwrap().figures())
            .collect();
        assert!(figures[0].mean > 0.0, "{figures:?}");
        for pair in figures.windows(2) {
            assert!(pair[1].mean > pair[0].mean, "{figures:?}");
            assert!(pair[1].p99 >= pair[0].p99, "{figures:?}");
        }
        for f in &figures {
            assert!(f.p99 >= f.mean && f.p99 <= 1.0, "{f:?}");
        }
    }

    #[test]
    fn black_against_white_is_near_the_top_and_green_against_blue_is_one() {
        let black = Image::filled(32, 32, [0, 0, 0, 255]);
        let white = Image::filled(32, 32, [255, 255, 255, 255]);
        let mean = flip(&black, &white).unwrap().mean();
        // |ΔL| = 100 → 100^0.7 ≈ 25.1, above the knee at 0.4 of green–blue: 0.95 to 1.
        assert!(mean > 0.95 && mean < 1.0, "{mean}");
        let green = Image::filled(32, 32, [0, 255, 0, 255]);
        let blue = Image::filled(32, 32, [0, 0, 255, 255]);
        let mean = flip(&green, &blue).unwrap().mean();
        assert!((mean - 1.0).abs() < 1e-4, "{mean}");
    }

    #[test]
    fn sizes_that_differ_are_not_measured() {
        let a = Image::filled(8, 8, [0, 0, 0, 255]);
        let b = Image::filled(8, 9, [0, 0, 0, 255]);
        assert!(flip(&a, &b).is_none());
    }

    #[test]
    fn percentile_is_by_nearest_rank() {
        let map = FlipMap {
            width: 10,
            height: 10,
            errors: (0..100).map(|i| i as f32 / 100.0).collect(),
        };
        assert_eq!(map.percentile(0.99), f64::from(0.98f32));
        assert_eq!(map.percentile(1.0), f64::from(0.99f32));
        assert!((map.mean() - 0.495).abs() < 1e-6);
    }
}
