//! Animated GIF (`--video clip.gif`): the format that plays everywhere, chat and issue trackers
//! included, at the price of 256 colours a frame.
//!
//! Fog is nearly all smooth gradients, the hardest case for a palette: a naive quantiser bands
//! it into contour lines. Each frame therefore gets its own palette (a local colour table)
//! built in two steps, then ordered dithering:
//!
//! 1. **Median cut** (Heckbert, "Color image quantization for frame buffer display", 1982) over
//!    the frame's distinct colours weighted by pixel count (binned at 6 bits a channel past
//!    65536 of them): the box with the largest squared error is split at the weighted median
//!    of its widest channel until there are 256 boxes.
//! 2. Two rounds of **k-means** (Lloyd) over the same histogram move each palette colour to the
//!    mean of the colours nearest to it.
//! 3. **Ordered dithering** with an 8×8 Bayer matrix: before the nearest palette colour is
//!    looked up, each pixel is nudged along the grey axis by a threshold that depends only on
//!    its position, scaled to the palette's typical spacing. Unlike error diffusion
//!    (Floyd–Steinberg), the pattern is fixed to the screen, so still areas stay still from
//!    frame to frame instead of crawling, and flat palette colours stay flat.
//!
//! A frame with at most 256 distinct colours is stored exactly, without dithering. Alpha is
//! ignored: GIF has only on/off transparency and fog frames are opaque.
//!
//! Timing: GIF delays are whole centiseconds, so each frame's delay is rounded such that the
//! running total stays on the exact clock (at 30 fps: 3, 4, 3, 3, 4, 3 … hundredths). Browsers
//! treat delays under 2 cs as 10 cs, so above 50 fps frames are dropped to keep exactly 50 a
//! second, each lasting 2 cs; the clip's length is unchanged. See [`frame_delay_cs`].
//! The animation loops forever. All of this is deterministic: no randomness, and ties break by
//! colour value.

use std::fs::File;
use std::io::BufWriter;

use rayon::prelude::*;

use super::video::{PendingFile, VideoError, VideoReport, VideoSettings, VideoSink};
use crate::frame::Frame;

/// The most colours a GIF frame can hold.
pub const MAX_COLOURS: usize = 256;
/// Most distinct colours median cut works on directly; beyond, colours are binned.
const MAX_EXACT_BINS: usize = 1 << 16;
/// Bits kept per channel when binning.
const HISTOGRAM_BITS: u32 = 6;
/// Rounds of k-means refinement after median cut.
const KMEANS_ROUNDS: usize = 2;

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
pub fn quantize(rgba8: &[u8], width: u32) -> Quantized {
    quantize_with(rgba8, width, true)
}

/// [`quantize`], with dithering optional (off only to show in tests what it buys).
fn quantize_with(rgba8: &[u8], width: u32, dither: bool) -> Quantized {
    let width = width.max(1) as usize;
    if let Some(exact) = exact_palette(rgba8) {
        let mut indices = vec![0u8; rgba8.len() / 4];
        indices
            .par_chunks_mut(width)
            .zip(rgba8.par_chunks(width * 4))
            .for_each(|(out, row)| {
                for (index, p) in out.iter_mut().zip(row.chunks_exact(4)) {
                    let key = pack([p[0], p[1], p[2]]);
                    *index = exact.binary_search(&key).unwrap_or(0) as u8;
                }
            });
        let palette = exact.iter().map(|&key| unpack(key)).collect();
        return Quantized { palette, indices };
    }

    let histogram = Histogram::of(rgba8);
    let mut palette = median_cut(&histogram.bins, MAX_COLOURS);
    for _ in 0..KMEANS_ROUNDS {
        palette = kmeans_round(&histogram.bins, &palette);
    }
    let nearest = Nearest::new(&palette);
    let amplitude = if dither {
        dither_amplitude(&palette, &nearest)
    } else {
        0.0
    };
    let mut indices = vec![0u8; rgba8.len() / 4];
    indices
        .par_chunks_mut(width)
        .zip(rgba8.par_chunks(width * 4))
        .enumerate()
        .for_each(|(y, (out, row))| {
            // Neighbouring pixels repeat colours: remember recent answers (a pure function of
            // the colour, so the cache changes speed only, never the result).
            let mut cache = [(u32::MAX, 0u8); 1024];
            for (x, (index, p)) in out.iter_mut().zip(row.chunks_exact(4)).enumerate() {
                let threshold = (BAYER_8X8[y % 8][x % 8] as f32 + 0.5) / 64.0 - 0.5;
                let offset = (threshold * amplitude).round() as i32;
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

/// `0xRRGGBB`.
fn pack(rgb: [u8; 3]) -> u32 {
    (rgb[0] as u32) << 16 | (rgb[1] as u32) << 8 | rgb[2] as u32
}

fn unpack(key: u32) -> [u8; 3] {
    [(key >> 16) as u8, (key >> 8) as u8, key as u8]
}

/// The frame's distinct colours, sorted, if there are at most 256 of them.
fn exact_palette(rgba8: &[u8]) -> Option<Vec<u32>> {
    let mut colours: Vec<u32> = Vec::with_capacity(MAX_COLOURS + 1);
    let mut last = None;
    for p in rgba8.chunks_exact(4) {
        let key = pack([p[0], p[1], p[2]]);
        if last == Some(key) {
            continue;
        }
        last = Some(key);
        if let Err(at) = colours.binary_search(&key) {
            if colours.len() == MAX_COLOURS {
                return None;
            }
            colours.insert(at, key);
        }
    }
    Some(colours)
}

/// One occupied histogram cell: how many pixels fell in it and the mean of their colours.
#[derive(Debug, Clone, Copy)]
struct Bin {
    count: u64,
    mean: [f32; 3],
}

/// The frame's distinct colours with their pixel counts, in colour order. Frames with more
/// than [`MAX_EXACT_BINS`] distinct colours (noise, not fog) are binned at
/// [`HISTOGRAM_BITS`] per channel instead, each bin keeping the mean of its colours, so
/// median cut stays fast.
struct Histogram {
    bins: Vec<Bin>,
}

impl Histogram {
    fn of(rgba8: &[u8]) -> Self {
        let mut keys: Vec<u32> = rgba8
            .par_chunks_exact(4)
            .map(|p| pack([p[0], p[1], p[2]]))
            .collect();
        keys.par_sort_unstable();
        let mut exact: Vec<(u32, u64)> = Vec::new();
        for key in keys {
            match exact.last_mut() {
                Some((last, count)) if *last == key => *count += 1,
                _ => exact.push((key, 1)),
            }
        }
        if exact.len() <= MAX_EXACT_BINS {
            let bins = exact
                .iter()
                .map(|&(key, count)| Bin {
                    count,
                    mean: unpack(key).map(|v| v as f32),
                })
                .collect();
            return Histogram { bins };
        }
        let shift = 8 - HISTOGRAM_BITS;
        let cells = 1usize << (3 * HISTOGRAM_BITS);
        let mut counts = vec![0u64; cells];
        let mut sums = vec![[0u64; 3]; cells];
        for (key, count) in exact {
            let rgb = unpack(key);
            let cell = ((rgb[0] as usize >> shift) << (2 * HISTOGRAM_BITS))
                | ((rgb[1] as usize >> shift) << HISTOGRAM_BITS)
                | (rgb[2] as usize >> shift);
            counts[cell] += count;
            for (sum, value) in sums[cell].iter_mut().zip(rgb) {
                *sum += value as u64 * count;
            }
        }
        let bins = counts
            .iter()
            .zip(&sums)
            .filter(|(count, _)| **count > 0)
            .map(|(&count, sum)| Bin {
                count,
                mean: sum.map(|s| s as f32 / count as f32),
            })
            .collect();
        Histogram { bins }
    }
}

/// A box of histogram bins during median cut, with its statistics.
struct ColourBox {
    bins: Vec<Bin>,
    count: u64,
    mean: [f32; 3],
    /// Per channel: sum of count × (value − mean)².
    spread: [f64; 3],
}

impl ColourBox {
    fn new(bins: Vec<Bin>) -> Self {
        let count: u64 = bins.iter().map(|b| b.count).sum();
        let mut mean = [0f64; 3];
        for bin in &bins {
            for (total, &value) in mean.iter_mut().zip(&bin.mean) {
                *total += value as f64 * bin.count as f64;
            }
        }
        let mean = mean.map(|m| m / count.max(1) as f64);
        let mut spread = [0f64; 3];
        for bin in &bins {
            for c in 0..3 {
                let d = bin.mean[c] as f64 - mean[c];
                spread[c] += d * d * bin.count as f64;
            }
        }
        ColourBox {
            bins,
            count,
            mean: mean.map(|m| m as f32),
            spread,
        }
    }

    fn error(&self) -> f64 {
        if self.bins.len() < 2 {
            0.0
        } else {
            self.spread.iter().sum()
        }
    }

    /// Splits at the weighted median of the channel with the largest spread.
    fn split(mut self) -> (ColourBox, ColourBox) {
        let channel = (0..3)
            .max_by(|&a, &b| self.spread[a].total_cmp(&self.spread[b]).then(b.cmp(&a)))
            .unwrap_or(0);
        self.bins.sort_by(|a, b| {
            a.mean[channel]
                .total_cmp(&b.mean[channel])
                .then_with(|| a.mean[0].total_cmp(&b.mean[0]))
                .then_with(|| a.mean[1].total_cmp(&b.mean[1]))
                .then_with(|| a.mean[2].total_cmp(&b.mean[2]))
        });
        let half = self.count / 2;
        let mut running = 0;
        let mut at = 1;
        for (i, bin) in self.bins.iter().enumerate() {
            running += bin.count;
            if running >= half {
                at = i + 1;
                break;
            }
        }
        let at = at.clamp(1, self.bins.len() - 1);
        let upper = self.bins.split_off(at);
        (ColourBox::new(self.bins), ColourBox::new(upper))
    }
}

/// Median cut: up to `max_colours` palette colours (box means) for the histogram.
fn median_cut(bins: &[Bin], max_colours: usize) -> Vec<[f32; 3]> {
    let mut boxes = vec![ColourBox::new(bins.to_vec())];
    while boxes.len() < max_colours {
        let (worst, error) =
            boxes
                .iter()
                .enumerate()
                .map(|(i, b)| (i, b.error()))
                .fold(
                    (0, 0.0),
                    |best, item| if item.1 > best.1 { item } else { best },
                );
        if error <= 0.0 {
            break;
        }
        let (low, high) = boxes.swap_remove(worst).split();
        boxes.push(low);
        boxes.push(high);
    }
    boxes
        .iter()
        .filter(|b| b.count > 0)
        .map(|b| b.mean)
        .collect()
}

/// One k-means round: each colour moves to the weighted mean of the bins nearest to it.
/// Colours that attract no bin stay where they are.
fn kmeans_round(bins: &[Bin], palette: &[[f32; 3]]) -> Vec<[f32; 3]> {
    let nearest = Nearest::new(palette);
    let mut sums = vec![[0f64; 3]; palette.len()];
    let mut counts = vec![0u64; palette.len()];
    for bin in bins {
        let index = nearest.find(bin.mean.map(|v| v.round() as i32)) as usize;
        counts[index] += bin.count;
        for (total, &value) in sums[index].iter_mut().zip(&bin.mean) {
            *total += value as f64 * bin.count as f64;
        }
    }
    palette
        .iter()
        .enumerate()
        .map(|(i, &old)| {
            if counts[i] == 0 {
                old
            } else {
                sums[i].map(|s| (s / counts[i] as f64) as f32)
            }
        })
        .collect()
}

/// Nearest-colour search: palette entries sorted by green, searched outward from the query's
/// green value and stopped once the green distance alone exceeds the best match.
struct Nearest {
    /// (colour rounded to integers, palette index), sorted by green then by index.
    sorted: Vec<([i32; 3], u8)>,
}

impl Nearest {
    fn new(palette: &[[f32; 3]]) -> Self {
        let mut sorted: Vec<([i32; 3], u8)> = palette
            .iter()
            .enumerate()
            .map(|(i, c)| (c.map(|v| v.round().clamp(0.0, 255.0) as i32), i as u8))
            .collect();
        sorted.sort_by_key(|(c, i)| (c[1], *i));
        Nearest { sorted }
    }

    /// Index of the palette colour nearest to `colour` (Euclidean RGB; ties go to the lower
    /// index, so the answer never depends on search order).
    fn find(&self, colour: [i32; 3]) -> u8 {
        let start = self.sorted.partition_point(|(c, _)| c[1] < colour[1]);
        let mut best = (i32::MAX, u8::MAX);
        let consider = |best: &mut (i32, u8), entry: &([i32; 3], u8)| {
            let d = distance2(entry.0, colour);
            if d < best.0 || (d == best.0 && entry.1 < best.1) {
                *best = (d, entry.1);
            }
        };
        for entry in &self.sorted[start..] {
            let dg = entry.0[1] - colour[1];
            if dg * dg > best.0 {
                break;
            }
            consider(&mut best, entry);
        }
        for entry in self.sorted[..start].iter().rev() {
            let dg = entry.0[1] - colour[1];
            if dg * dg > best.0 {
                break;
            }
            consider(&mut best, entry);
        }
        best.1
    }
}

fn distance2(a: [i32; 3], b: [i32; 3]) -> i32 {
    (0..3).map(|c| (a[c] - b[c]) * (a[c] - b[c])).sum()
}

/// How far (per channel, 8-bit units) the Bayer threshold may move a pixel: the palette's
/// median nearest-neighbour distance spread over the three channels of the grey axis, so a
/// gradient between two neighbouring palette colours dithers evenly between them while a
/// pixel that matches a palette colour stays on it.
fn dither_amplitude(palette: &[[f32; 3]], nearest: &Nearest) -> f32 {
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

/// Delay of the frame at `position` in the stream (0 = first frame pushed), in centiseconds,
/// or `None` when the frame is dropped because GIF cannot show it (above 50 fps).
///
/// Up to 50 fps every frame is kept and frame `n` starts at `round(n × 100 / fps)` cs, so
/// rounding never accumulates. Above 50 fps the first frame of each 1/50 s slot is kept and
/// lasts 2 cs, the shortest delay browsers honour.
pub fn frame_delay_cs(position: u32, fps: u32) -> Option<u16> {
    let fps = fps.max(1) as u64;
    let n = position as u64;
    if fps <= 50 {
        let start = |n: u64| (200 * n + fps) / (2 * fps);
        return Some((start(n + 1) - start(n)) as u16);
    }
    let slot = |n: u64| n * 50 / fps;
    if n == 0 || slot(n) != slot(n - 1) {
        Some(2)
    } else {
        None
    }
}

/// Streams frames into an animated GIF at a temporary path; [`VideoSink::finish`] completes it
/// and renames it into place. Dropping it unfinished deletes the temporary file.
pub struct GifSink {
    encoder: Option<gif::Encoder<BufWriter<File>>>,
    width: u32,
    height: u32,
    fps: u32,
    pushed: u32,
    encoded: u32,
    total_delay_cs: u64,
    /// Last, so the file is closed before an unfinished one is deleted.
    pending: PendingFile,
}

impl GifSink {
    /// The largest width or height a GIF can have.
    pub const MAX_SIZE: u32 = u16::MAX as u32;

    /// Starts a GIF at the temporary path for `pending`'s target.
    pub(crate) fn create(
        pending: PendingFile,
        width: u32,
        height: u32,
        settings: &VideoSettings,
    ) -> Result<Self, VideoError> {
        if width > Self::MAX_SIZE || height > Self::MAX_SIZE {
            return Err(VideoError::TooLarge {
                path: pending.target().to_path_buf(),
                width,
                height,
                max: Self::MAX_SIZE,
            });
        }
        let file = pending.create()?;
        let mut encoder = gif::Encoder::new(
            BufWriter::with_capacity(1 << 20, file),
            width as u16,
            height as u16,
            &[],
        )
        .map_err(|e| pending.encode_error(e.to_string()))?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(|e| pending.encode_error(e.to_string()))?;
        Ok(GifSink {
            encoder: Some(encoder),
            width,
            height,
            fps: settings.fps,
            pushed: 0,
            encoded: 0,
            total_delay_cs: 0,
            pending,
        })
    }
}

impl VideoSink for GifSink {
    fn push(&mut self, frame: &Frame) -> Result<(), VideoError> {
        super::video::check_frame(frame, self.width, self.height)?;
        let position = self.pushed;
        self.pushed += 1;
        let Some(delay_cs) = frame_delay_cs(position, self.fps) else {
            return Ok(());
        };
        let quantized = quantize(&frame.rgba8, frame.width);
        let palette: Vec<u8> = quantized.palette.iter().flatten().copied().collect();
        let mut gif_frame = gif::Frame::from_palette_pixels(
            self.width as u16,
            self.height as u16,
            quantized.indices,
            palette,
            None,
        );
        gif_frame.delay = delay_cs;
        let encoder = self.encoder.as_mut().ok_or(VideoError::AlreadyFinished)?;
        encoder
            .write_frame(&gif_frame)
            .map_err(|e| self.pending.encode_error(e.to_string()))?;
        self.encoded += 1;
        self.total_delay_cs += delay_cs as u64;
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<VideoReport, VideoError> {
        if self.encoded == 0 {
            return Err(VideoError::NoFrames {
                path: self.pending.target().to_path_buf(),
            });
        }
        let encoder = self.encoder.take().ok_or(VideoError::AlreadyFinished)?;
        let buffered = encoder
            .into_inner()
            .map_err(|e| self.pending.encode_error(e.to_string()))?;
        let file = buffered
            .into_inner()
            .map_err(|e| self.pending.io_error("write", e.into_error()))?;
        file.sync_all()
            .map_err(|source| self.pending.io_error("write", source))?;
        let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
        drop(file);
        let path = self.pending.commit()?;
        Ok(VideoReport {
            path,
            frames_written: self.encoded,
            width: self.width,
            height: self.height,
            duration_s: self.total_delay_cs as f64 / 100.0,
            bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::video::{VideoFormat, open_video};

    /// A smooth three-channel gradient with far more than 256 colours.
    fn gradient(width: u32, height: u32, shift: u32) -> Vec<u8> {
        let mut rgba8 = Vec::new();
        for y in 0..height {
            for x in 0..width {
                rgba8.push(((x + shift) * 255 / (width + 20)) as u8);
                rgba8.push((40 + y * 150 / height) as u8);
                rgba8.push((90 + (x + 2 * y) * 100 / (width + 2 * height)) as u8);
                rgba8.push(255);
            }
        }
        rgba8
    }

    fn reconstruct(q: &Quantized) -> Vec<[u8; 3]> {
        q.indices.iter().map(|&i| q.palette[i as usize]).collect()
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
        let (_, plain_block, _) = errors(&rgba8, width, &quantize_with(&rgba8, width, false));
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

    #[test]
    fn nearest_search_agrees_with_brute_force() {
        let palette: Vec<[f32; 3]> = (0..97)
            .map(|i| {
                [
                    (i * 37 % 256) as f32,
                    (i * 91 % 256) as f32,
                    (i * 13 % 256) as f32,
                ]
            })
            .collect();
        let nearest = Nearest::new(&palette);
        for q in 0..2000 {
            let colour = [(q * 7) % 256, (q * 31) % 256, (q * 101) % 256];
            let found = nearest.find(colour) as usize;
            let best = palette
                .iter()
                .map(|c| distance2(c.map(|v| v as i32), colour))
                .min()
                .unwrap();
            assert_eq!(distance2(palette[found].map(|v| v as i32), colour), best);
        }
    }

    #[test]
    fn delays_follow_the_clock() {
        let delays = |fps: u32, frames: u32| -> Vec<Option<u16>> {
            (0..frames).map(|n| frame_delay_cs(n, fps)).collect()
        };
        let total = |d: &[Option<u16>]| d.iter().flatten().map(|&v| v as u32).sum::<u32>();
        assert_eq!(delays(10, 3), vec![Some(10); 3]);
        let thirty = delays(30, 30);
        assert_eq!(
            &thirty[..6],
            &[Some(3), Some(4), Some(3), Some(3), Some(4), Some(3)]
        );
        assert_eq!(total(&thirty), 100);
        assert_eq!(total(&delays(24, 24)), 100);
        assert_eq!(total(&delays(50, 50)), 100);
        let sixty = delays(60, 60);
        assert_eq!(
            sixty.iter().flatten().count(),
            50,
            "60 fps keeps 50 frames a second"
        );
        assert!(sixty.iter().flatten().all(|&d| d == 2));
        assert_eq!(total(&sixty), 100);
        assert_eq!(delays(120, 120).iter().flatten().count(), 50);
        assert!(delays(7, 50).iter().flatten().all(|&d| d >= 14));
    }

    #[test]
    fn writes_a_gif_that_decodes_to_the_right_frames() {
        let dir = std::env::temp_dir().join(format!("fogbank-gif-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("clip.gif");
        let settings = VideoSettings {
            fps: 30,
            crf: None,
            preset: None,
        };
        let (width, height) = (65u32, 37u32);
        let mut sink = open_video(&path, VideoFormat::Gif, width, height, &settings).unwrap();
        let frames: Vec<Vec<u8>> = (0..10).map(|i| gradient(width, height, i * 4)).collect();
        for (i, rgba8) in frames.iter().enumerate() {
            sink.push(&Frame {
                frame_index: 100 + i as u32,
                width,
                height,
                rgba8: rgba8.clone(),
                linear_f16: None,
                fog_f16: None,
            })
            .unwrap();
        }
        let report = sink.finish().unwrap();
        assert_eq!(report.frames_written, 10);
        assert!(
            (report.duration_s - 0.33).abs() < 1e-9,
            "{}",
            report.duration_s
        );

        let file = std::fs::File::open(&path).unwrap();
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(file).unwrap();
        assert_eq!((decoder.width(), decoder.height()), (65, 37));
        assert_eq!(decoder.repeat(), gif::Repeat::Infinite);
        let mut count = 0;
        let mut delays = Vec::new();
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            assert_eq!((frame.width, frame.height), (65, 37));
            let original = &frames[count];
            let mut abs_error = 0u64;
            for (a, b) in frame.buffer.iter().zip(original.iter()) {
                abs_error += (*a as i64 - *b as i64).unsigned_abs();
            }
            let mean = abs_error as f64 / original.len() as f64;
            assert!(mean < 3.0, "frame {count} mean error {mean}");
            delays.push(frame.delay);
            count += 1;
        }
        assert_eq!(count, 10);
        assert_eq!(delays, vec![3, 4, 3, 3, 4, 3, 3, 4, 3, 3]);
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("clip.gif")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn oversized_gif_is_refused_before_writing() {
        let dir = std::env::temp_dir().join(format!("fogbank-gif-big-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let settings = VideoSettings {
            fps: 30,
            crf: None,
            preset: None,
        };
        let err = open_video(
            &dir.join("big.gif"),
            VideoFormat::Gif,
            70_000,
            10,
            &settings,
        )
        .err()
        .unwrap();
        assert!(err.to_string().contains("65535"), "{err}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
