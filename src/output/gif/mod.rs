//! GIF colour: each frame reduced to at most 256 colours for [`crate::output::video::gif`],
//! the format that plays everywhere, chat and issue trackers included.
//!
//! Fog is nearly all smooth gradients, the hardest case for a palette: a naive quantiser bands
//! it into contour lines. Each frame therefore gets its own palette (a local colour table)
//! built in two steps, then ordered dithering:
//!
//! 1. **Median cut** (Heckbert, "Color image quantization for frame buffer display", 1982) over
//!    the frame's distinct colours weighted by pixel count (module `histogram`, binned at 6
//!    bits a channel past 65536 of them): the box with the largest squared error is split at
//!    the weighted median of its widest channel until there are 256 boxes (module `palette`).
//! 2. Two rounds of **k-means** (Lloyd) over the same histogram move each palette colour to the
//!    mean of the colours nearest to it (module `palette`, with the search of `nearest`).
//! 3. **Ordered dithering** with an 8×8 Bayer matrix (module `dither`): before the nearest
//!    palette colour is looked up, each pixel is nudged along the grey axis by a threshold that
//!    depends only on its position, scaled to the palette's typical spacing. Unlike error diffusion
//!    (Floyd–Steinberg), the pattern is fixed to the screen, so still areas stay still from
//!    frame to frame instead of crawling, and flat palette colours stay flat.
//!
//! The three stages are public ([`count_colours`], [`choose_palette`], [`map_pixels`]) so that
//! benchmarks can time them apart; [`quantize`] runs them in a row. Counting and mapping split
//! the frame into bands of rows on the current rayon pool, to the same result on any number of
//! threads.
//!
//! A frame with at most 256 distinct colours is stored exactly, without dithering. Alpha is
//! ignored: GIF has only on/off transparency and fog frames are opaque. All of this is
//! deterministic: no randomness, and ties break by colour value.
//!
//! This is fogbank's own code rather than the `gif` crate's quantiser (NeuQuant, behind
//! `gif::Frame::from_rgba_speed`): NeuQuant does not dither, so smooth fog bands, and
//! switching would change the pixels of every GIF fogbank writes.

mod dither;
mod histogram;
mod nearest;
mod palette;

use rayon::prelude::*;

use histogram::{Histogram, exact_palette};
use nearest::Nearest;
use palette::{kmeans_round, median_cut};

/// The most colours a GIF frame can hold.
pub const MAX_COLOURS: usize = 256;
/// Rounds of k-means refinement after median cut.
const KMEANS_ROUNDS: usize = 2;

/// A frame reduced to a palette: `indices[y * width + x]` picks from `palette`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quantized {
    /// At most 256 RGB colours.
    pub palette: Vec<[u8; 3]>,
    /// One palette index per pixel, rows top to bottom.
    pub indices: Vec<u8>,
}

/// Reduces tightly packed RGBA8 pixels (`width` per row; alpha ignored) to at most 256
/// colours, dithering when the frame has more (see the module documentation).
///
/// The three stages, [`count_colours`], [`choose_palette`] and [`map_pixels`], are public so
/// that benchmarks can time them apart; this is exactly the three in a row. The mapping, and
/// the counting on a pool of more than one thread, split the frame into bands of rows that run
/// on the current rayon pool; the result does not depend on how many threads it has.
pub fn quantize(rgba8: &[u8], width: u32) -> Quantized {
    map_pixels(&choose_palette(count_colours(rgba8)), rgba8, width)
}

/// A frame's colours, counted: its distinct colours when there are at most 256 (the first
/// stage of [`quantize`]), otherwise the weighted histogram the palette is built from.
pub struct ColourCount(Counted);

enum Counted {
    /// At most 256 distinct colours, sorted (`0xRRGGBB`).
    Exact(Vec<u32>),
    Histogram(Histogram),
}

/// The palette chosen for a frame (the second stage of [`quantize`]), with what mapping its
/// pixels needs: the nearest-colour search and the dither amplitude.
pub struct PaletteChoice(Chosen);

enum Chosen {
    Exact(Vec<u32>),
    Fitted {
        palette: Vec<[f32; 3]>,
        nearest: Nearest,
        amplitude: f32,
    },
}

/// Counts the colours of tightly packed RGBA8 pixels (alpha ignored): in bands of rows on the
/// current rayon pool when it has more than one thread, in one pass on one thread (where the
/// bands' own tables and their merge would cost a third more). The same count either way.
pub fn count_colours(rgba8: &[u8]) -> ColourCount {
    count_colours_banded(rgba8, rayon::current_num_threads() > 1)
}

/// [`count_colours`], in bands of rows on the current rayon pool when `banded`, else in one
/// pass on the calling thread. The same count either way.
pub(crate) fn count_colours_banded(rgba8: &[u8], banded: bool) -> ColourCount {
    ColourCount(match exact_palette(rgba8, banded) {
        Some(exact) => Counted::Exact(exact),
        None => Counted::Histogram(Histogram::of(rgba8, banded)),
    })
}

/// Builds the palette for counted colours: the colours themselves when there are at most 256,
/// otherwise median cut and [`KMEANS_ROUNDS`] rounds of k-means, dithered.
pub fn choose_palette(count: ColourCount) -> PaletteChoice {
    choose_palette_with(count, true)
}

/// [`choose_palette`], with dithering optional (off only to show in tests what it buys).
fn choose_palette_with(count: ColourCount, dither: bool) -> PaletteChoice {
    PaletteChoice(match count.0 {
        Counted::Exact(exact) => Chosen::Exact(exact),
        Counted::Histogram(histogram) => {
            let mut palette = median_cut(&histogram.bins, MAX_COLOURS);
            for _ in 0..KMEANS_ROUNDS {
                palette = kmeans_round(&histogram.bins, &palette);
            }
            let nearest = Nearest::new(&palette);
            let amplitude = if dither {
                dither::amplitude(&palette, &nearest)
            } else {
                0.0
            };
            Chosen::Fitted {
                palette,
                nearest,
                amplitude,
            }
        }
    })
}

/// Picks each pixel's palette entry (the last stage of [`quantize`]): rows in parallel, each
/// row by the same operations whatever thread runs it.
pub fn map_pixels(choice: &PaletteChoice, rgba8: &[u8], width: u32) -> Quantized {
    let width = width.max(1) as usize;
    let mut indices = vec![0u8; rgba8.len() / 4];
    let rows = indices
        .par_chunks_mut(width)
        .zip(rgba8.par_chunks(width * 4))
        .enumerate();
    match &choice.0 {
        Chosen::Exact(exact) => {
            rows.for_each(|(_, (out, row))| {
                for (index, p) in out.iter_mut().zip(row.chunks_exact(4)) {
                    let key = pack([p[0], p[1], p[2]]);
                    *index = exact.binary_search(&key).unwrap_or(0) as u8;
                }
            });
            let palette = exact.iter().map(|&key| unpack(key)).collect();
            Quantized { palette, indices }
        }
        Chosen::Fitted {
            palette,
            nearest,
            amplitude,
        } => {
            rows.for_each(|(y, (out, row))| {
                // Neighbouring pixels repeat colours: remember recent answers (a pure
                // function of the colour, so the cache changes speed only, never the result).
                let mut cache = [(u32::MAX, 0u8); 1024];
                for (x, (index, p)) in out.iter_mut().zip(row.chunks_exact(4)).enumerate() {
                    let offset = dither::offset(x, y, *amplitude);
                    let colour = [0, 1, 2].map(|c| (p[c] as i32 + offset).clamp(0, 255));
                    let key = pack(colour.map(|v| v as u8));
                    let slot = (key.wrapping_mul(0x9E37_79B1) >> 22) as usize;
                    if cache[slot].0 != key {
                        cache[slot] = (key, nearest.find(colour));
                    }
                    *index = cache[slot].1;
                }
            });
            let palette = palette.iter().map(|c| c.map(|v| v as u8)).collect();
            Quantized { palette, indices }
        }
    }
}

/// `0xRRGGBB`.
pub(crate) fn pack(rgb: [u8; 3]) -> u32 {
    (rgb[0] as u32) << 16 | (rgb[1] as u32) << 8 | rgb[2] as u32
}

pub(crate) fn unpack(key: u32) -> [u8; 3] {
    [(key >> 16) as u8, (key >> 8) as u8, key as u8]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::video::test_support::gradient;

    fn reconstruct(q: &Quantized) -> Vec<[u8; 3]> {
        q.indices.iter().map(|&i| q.palette[i as usize]).collect()
    }

    /// Mean absolute error per channel between the original and the quantised pixels, and
    /// the mean and worst error of 8×8 block averages (what the eye sees from a distance).
    fn errors(rgba8: &[u8], width: u32, q: &Quantized) -> (f64, f64, f64) {
        let height = rgba8.len() as u32 / 4 / width;
        let back = reconstruct(q);
        let mut abs_error = 0u64;
        for (i, p) in rgba8.chunks_exact(4).enumerate() {
            for c in 0..3 {
                abs_error += (back[i][c] as i64 - p[c] as i64).unsigned_abs();
            }
        }
        let pixel_error = abs_error as f64 / (width * height * 3) as f64;
        let (mut block_sum, mut block_worst, mut blocks) = (0.0f64, 0.0f64, 0.0f64);
        for by in 0..height / 8 {
            for bx in 0..width / 8 {
                for c in 0..3 {
                    let (mut orig, mut quant) = (0i64, 0i64);
                    for y in by * 8..by * 8 + 8 {
                        for x in bx * 8..bx * 8 + 8 {
                            let i = (y * width + x) as usize;
                            orig += rgba8[i * 4 + c] as i64;
                            quant += back[i][c] as i64;
                        }
                    }
                    let diff = (orig - quant).abs() as f64 / 64.0;
                    block_sum += diff;
                    block_worst = block_worst.max(diff);
                    blocks += 1.0;
                }
            }
        }
        (pixel_error, block_sum / blocks, block_worst)
    }

    fn distinct_colours(rgba8: &[u8]) -> usize {
        let mut all: Vec<u32> = rgba8
            .chunks_exact(4)
            .map(|p| pack([p[0], p[1], p[2]]))
            .collect();
        all.sort_unstable();
        all.dedup();
        all.len()
    }

    #[test]
    fn few_colours_are_kept_exactly() {
        let colours = [[10u8, 20, 30], [200, 100, 0], [0, 0, 0], [255, 255, 255]];
        let mut rgba8 = Vec::new();
        for i in 0..40 {
            let c = colours[(i * 7 / 3) % 4];
            rgba8.extend_from_slice(&[c[0], c[1], c[2], 255]);
        }
        let q = quantize(&rgba8, 8);
        assert_eq!(q.palette.len(), 4);
        let back = reconstruct(&q);
        for (i, p) in rgba8.chunks_exact(4).enumerate() {
            assert_eq!(back[i], [p[0], p[1], p[2]]);
        }
    }

    #[test]
    fn gradients_stay_close_to_the_original() {
        let (width, height) = (128u32, 64u32);
        let rgba8 = gradient(width, height, 0);
        assert!(
            distinct_colours(&rgba8) > 1000,
            "the test image must need quantising"
        );
        let q = quantize(&rgba8, width);
        assert_eq!(q.palette.len(), 256);
        let (pixel_error, block_mean, block_worst) = errors(&rgba8, width, &q);
        assert!(pixel_error < 3.0, "mean error per channel {pixel_error}");
        assert!(block_mean < 1.0, "mean block error {block_mean}");
        assert!(block_worst < 3.0, "worst block error {block_worst}");
    }

    #[test]
    fn dithering_keeps_local_averages_where_the_palette_is_sparse() {
        // Red across, green down: 65536 colours for 256 palette entries, ~16 levels apart.
        let (width, height) = (256u32, 256u32);
        let mut rgba8 = Vec::new();
        for y in 0..height {
            for x in 0..width {
                rgba8.extend_from_slice(&[x as u8, y as u8, 128, 255]);
            }
        }
        let (_, plain_block, _) = errors(
            &rgba8,
            width,
            &map_pixels(
                &choose_palette_with(count_colours(&rgba8), false),
                &rgba8,
                width,
            ),
        );
        let (pixel_error, dithered_block, _) = errors(&rgba8, width, &quantize(&rgba8, width));
        assert!(
            dithered_block < 0.6 * plain_block,
            "dithered {dithered_block} vs plain {plain_block}"
        );
        assert!(
            dithered_block < 1.5 && pixel_error < 4.0,
            "{dithered_block} {pixel_error}"
        );
    }

    #[test]
    fn flat_palette_colours_stay_flat() {
        // Two big flat areas plus a gradient strip: the flat areas must not get dither noise.
        let (width, height) = (64u32, 64u32);
        let mut rgba8 = Vec::new();
        for y in 0..height {
            for x in 0..width {
                let p = match y {
                    0..24 => [40, 60, 90],
                    24..48 => [200, 190, 170],
                    _ => [(x * 4) as u8, (y * 3) as u8, ((x + y) * 2) as u8],
                };
                rgba8.extend_from_slice(&[p[0], p[1], p[2], 255]);
            }
        }
        assert!(distinct_colours(&rgba8) > 256);
        let q = quantize(&rgba8, width);
        let back = reconstruct(&q);
        for (i, colour) in back.iter().enumerate().take((48 * width) as usize) {
            let expected: [u8; 3] = rgba8[i * 4..i * 4 + 3].try_into().unwrap();
            assert_eq!(*colour, expected, "pixel {i}");
        }
    }

    #[test]
    fn quantizing_is_deterministic() {
        let rgba8 = gradient(96, 40, 7);
        assert_eq!(quantize(&rgba8, 96), quantize(&rgba8, 96));
    }
}
