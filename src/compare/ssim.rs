//! Structural similarity (SSIM) on luma, after Wang, Bovik, Sheikh and Simoncelli, "Image
//! Quality Assessment: From Error Visibility to Structural Similarity", IEEE TIP 13(4), 2004.
//!
//! Per-pixel gates miss a fog bank that moved a few pixels but kept its brightness; SSIM sees
//! structure. As in the paper: an 11×11 Gaussian window with σ = 1.5 px, normalised to sum 1,
//! evaluated at every position where it fits inside the image (no padding); K1 = 0.01,
//! K2 = 0.03, dynamic range L = 255, so C1 = (K1·L)² and C2 = (K2·L)²; the result is the mean
//! over all windows (MSSIM). Luma is the BT.601 weighting of the 8-bit sRGB values, as the
//! reference implementation's `rgb2gray`; alpha is ignored. Images smaller than 11 px on a side
//! use the largest odd window that fits, with the same σ. No downsampling is done.
//!
//! The filter is separable: a horizontal pass per row, then a vertical pass per output row,
//! each row in parallel; the row sums are added in row order, so the result is deterministic.

use super::Image;
use rayon::prelude::*;

/// Gaussian window size of the paper, in pixels.
const WINDOW_PX: usize = 11;
/// Gaussian standard deviation of the paper, in pixels.
const SIGMA_PX: f64 = 1.5;
/// Dynamic range of 8-bit values.
const RANGE: f64 = 255.0;
/// Stabiliser of the luminance term, (0.01 · L)².
const C1: f64 = (0.01 * RANGE) * (0.01 * RANGE);
/// Stabiliser of the contrast-structure term, (0.03 · L)².
const C2: f64 = (0.03 * RANGE) * (0.03 * RANGE);

/// Mean SSIM of the two images' luma, in [-1, 1] (1 = identical). `None` when the sizes differ
/// or a buffer does not match its size. Two empty images score 1.
pub fn ssim(expected: &Image, actual: &Image) -> Option<f64> {
    if expected.width != actual.width || expected.height != actual.height {
        return None;
    }
    expected.check().ok()?;
    actual.check().ok()?;
    Some(ssim_of_planes(
        &luma(expected),
        &luma(actual),
        expected.width as usize,
        expected.height as usize,
    ))
}

/// BT.601 luma of each pixel, on the 0–255 scale of the stored values.
fn luma(image: &Image) -> Vec<f64> {
    image
        .rgba8
        .chunks_exact(4)
        .map(|p| 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]))
        .collect()
}

/// Normalised 1-D Gaussian weights of odd length `size`.
fn gaussian_weights(size: usize) -> Vec<f64> {
    let centre = (size / 2) as f64;
    let raw: Vec<f64> = (0..size)
        .map(|i| {
            let d = i as f64 - centre;
            (-(d * d) / (2.0 * SIGMA_PX * SIGMA_PX)).exp()
        })
        .collect();
    let total: f64 = raw.iter().sum();
    raw.iter().map(|w| w / total).collect()
}

/// The five windowed moments SSIM needs: E[a], E[b], E[a²], E[b²], E[ab].
type Moments = [f64; 5];

fn moments_of(a: f64, b: f64) -> Moments {
    [a, b, a * a, b * b, a * b]
}

/// SSIM of one window from its moments.
fn ssim_of_moments(m: &Moments) -> f64 {
    let [mu_a, mu_b, e_aa, e_bb, e_ab] = *m;
    let var_a = e_aa - mu_a * mu_a;
    let var_b = e_bb - mu_b * mu_b;
    let cov_ab = e_ab - mu_a * mu_b;
    ((2.0 * mu_a * mu_b + C1) * (2.0 * cov_ab + C2))
        / ((mu_a * mu_a + mu_b * mu_b + C1) * (var_a + var_b + C2))
}

/// Mean SSIM of two luma planes of `width × height`.
fn ssim_of_planes(a: &[f64], b: &[f64], width: usize, height: usize) -> f64 {
    if width == 0 || height == 0 {
        return 1.0;
    }
    let window = WINDOW_PX.min(width).min(height);
    let window = if window.is_multiple_of(2) {
        window - 1
    } else {
        window
    };
    let weights = gaussian_weights(window);
    let out_width = width - window + 1;
    let out_height = height - window + 1;

    // Horizontal pass: every input row, only the columns where the window fits.
    let mut horizontal = vec![[0.0; 5]; out_width * height];
    horizontal
        .par_chunks_mut(out_width)
        .enumerate()
        .for_each(|(y, row)| {
            let row_a = &a[y * width..(y + 1) * width];
            let row_b = &b[y * width..(y + 1) * width];
            for (x, out) in row.iter_mut().enumerate() {
                let mut sum = [0.0; 5];
                for (k, w) in weights.iter().enumerate() {
                    let m = moments_of(row_a[x + k], row_b[x + k]);
                    for (s, v) in sum.iter_mut().zip(m) {
                        *s += w * v;
                    }
                }
                *out = sum;
            }
        });

    // Vertical pass: one SSIM row sum per output row, added in row order.
    let row_sums: Vec<f64> = (0..out_height)
        .into_par_iter()
        .map(|y| {
            let mut row_sum = 0.0;
            for x in 0..out_width {
                let mut sum = [0.0; 5];
                for (k, w) in weights.iter().enumerate() {
                    let m = &horizontal[(y + k) * out_width + x];
                    for (s, v) in sum.iter_mut().zip(m) {
                        *s += w * v;
                    }
                }
                row_sum += ssim_of_moments(&sum);
            }
            row_sum
        })
        .collect();
    row_sums.iter().sum::<f64>() / (out_width * out_height) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic noise (xorshift32), so the tests never depend on a random seed.
    fn noise_image(width: u32, height: u32, seed: u32) -> Image {
        let mut state = seed.max(1);
        let mut rgba8 = Vec::with_capacity((width * height * 4) as usize);
        for _ in 0..width * height {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let v = (state >> 24) as u8;
            rgba8.extend_from_slice(&[v, v, v, 255]);
        }
        Image {
            width,
            height,
            rgba8,
        }
    }

    /// 3×3 box blur with clamped edges.
    fn blur(image: &Image) -> Image {
        let (w, h) = (image.width as i64, image.height as i64);
        let mut out = image.clone();
        for y in 0..h {
            for x in 0..w {
                for c in 0..3 {
                    let mut sum = 0u32;
                    for dy in -1..=1 {
                        for dx in -1..=1 {
                            let sx = (x + dx).clamp(0, w - 1);
                            let sy = (y + dy).clamp(0, h - 1);
                            sum += u32::from(image.rgba8[((sy * w + sx) * 4 + c) as usize]);
                        }
                    }
                    out.rgba8[((y * w + x) * 4 + c) as usize] = (sum / 9) as u8;
                }
            }
        }
        out
    }

    /// The textbook definition, evaluated directly with a 2-D window at every position.
    fn ssim_direct(a: &[f64], b: &[f64], width: usize, height: usize) -> f64 {
        let weights = gaussian_weights(WINDOW_PX);
        let mut total = 0.0;
        let mut count = 0;
        for y in 0..=height - WINDOW_PX {
            for x in 0..=width - WINDOW_PX {
                let mut m = [0.0; 5];
                for j in 0..WINDOW_PX {
                    for i in 0..WINDOW_PX {
                        let idx = (y + j) * width + x + i;
                        let w = weights[i] * weights[j];
                        for (s, v) in m.iter_mut().zip(moments_of(a[idx], b[idx])) {
                            *s += w * v;
                        }
                    }
                }
                total += ssim_of_moments(&m);
                count += 1;
            }
        }
        total / count as f64
    }

    #[test]
    fn identical_images_score_exactly_one() {
        let image = noise_image(40, 30, 7);
        let score = ssim(&image, &image).unwrap();
        assert!((score - 1.0).abs() < 1e-12, "{score}");
    }

    #[test]
    fn noise_against_its_blur_scores_well_below_one() {
        let noise = noise_image(64, 64, 12345);
        let blurred = blur(&noise);
        let score = ssim(&noise, &blurred).unwrap();
        assert!(score < 0.6, "noise vs blur scored {score}");
        assert!(score > -1.0);
        // A smooth picture barely changes under the same blur.
        let smooth = blur(&blur(&blur(&noise)));
        let smooth_score = ssim(&smooth, &blur(&smooth)).unwrap();
        assert!(
            smooth_score > score + 0.2,
            "smooth {smooth_score} vs noise {score}"
        );
    }

    #[test]
    fn separable_filter_matches_the_direct_definition() {
        let a = noise_image(23, 19, 3);
        let b = blur(&a);
        let separable = ssim(&a, &b).unwrap();
        let direct = ssim_direct(&luma(&a), &luma(&b), 23, 19);
        assert!(
            (separable - direct).abs() < 1e-12,
            "{separable} vs {direct}"
        );
    }

    #[test]
    fn weights_are_the_papers_gaussian() {
        let w = gaussian_weights(WINDOW_PX);
        assert_eq!(w.len(), 11);
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        // Centre over neighbour is exp(1 / (2 σ²)) for σ = 1.5.
        assert!((w[5] / w[4] - (1.0f64 / 4.5).exp()).abs() < 1e-12);
        assert!((C1 - 6.5025).abs() < 1e-12 && (C2 - 58.5225).abs() < 1e-12);
    }

    #[test]
    fn symmetric_and_size_safe() {
        let a = noise_image(16, 16, 5);
        let b = blur(&a);
        assert!((ssim(&a, &b).unwrap() - ssim(&b, &a).unwrap()).abs() < 1e-12);
        assert_eq!(ssim(&a, &noise_image(16, 15, 5)), None);
        // Tiny images use a smaller window instead of failing.
        let tiny = noise_image(3, 5, 9);
        assert!((ssim(&tiny, &tiny).unwrap() - 1.0).abs() < 1e-12);
        assert!(ssim(&tiny, &blur(&tiny)).unwrap() < 1.0);
        let empty = Image {
            width: 0,
            height: 4,
            rgba8: Vec::new(),
        };
        assert_eq!(ssim(&empty, &empty), Some(1.0));
    }
}
