//! Counting a frame's colours: its distinct colours when there are at most 256 (stored
//! exactly), and the weighted histogram median cut and k-means work on.

use rayon::prelude::*;

use super::{MAX_COLOURS, pack, unpack};

/// Most distinct colours median cut works on directly; beyond, colours are binned.
const MAX_EXACT_BINS: usize = 1 << 16;
/// Bits kept per channel when binning.
const HISTOGRAM_BITS: u32 = 6;

/// The frame's distinct colours, sorted, if there are at most 256 of them.
pub(crate) fn exact_palette(rgba8: &[u8]) -> Option<Vec<u32>> {
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
pub(crate) struct Bin {
    pub(crate) count: u64,
    pub(crate) mean: [f32; 3],
}

/// The frame's distinct colours with their pixel counts, in colour order. Frames with more
/// than [`MAX_EXACT_BINS`] distinct colours (noise, not fog) are binned at
/// [`HISTOGRAM_BITS`] per channel instead, each bin keeping the mean of its colours, so
/// median cut stays fast.
pub(crate) struct Histogram {
    pub(crate) bins: Vec<Bin>,
}

impl Histogram {
    pub(crate) fn of(rgba8: &[u8]) -> Self {
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
