//! Counting a frame's colours: its distinct colours when there are at most 256 (stored
//! exactly), and the weighted histogram median cut and k-means work on.

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
        match ColourCounts::of(rgba8) {
            Some(exact) => Histogram {
                bins: exact
                    .into_iter()
                    .map(|(key, count)| Bin {
                        count,
                        mean: unpack(key).map(|v| v as f32),
                    })
                    .collect(),
            },
            None => Histogram::binned(rgba8),
        }
    }

    /// The pixels counted in cells of [`HISTOGRAM_BITS`] per channel, each bin keeping the
    /// mean of its pixels' colours (integer sums, so the order of the pixels does not matter).
    fn binned(rgba8: &[u8]) -> Self {
        let shift = 8 - HISTOGRAM_BITS;
        let cells = 1usize << (3 * HISTOGRAM_BITS);
        let mut counts = vec![0u64; cells];
        let mut sums = vec![[0u64; 3]; cells];
        for p in rgba8.chunks_exact(4) {
            let cell = ((p[0] as usize >> shift) << (2 * HISTOGRAM_BITS))
                | ((p[1] as usize >> shift) << HISTOGRAM_BITS)
                | (p[2] as usize >> shift);
            counts[cell] += 1;
            for (sum, &value) in sums[cell].iter_mut().zip(&p[..3]) {
                *sum += value as u64;
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

/// A frame's distinct colours counted in an open-addressing hash table small enough to stay
/// in cache (twice [`MAX_EXACT_BINS`] slots, 1 MiB): one pass over the pixels instead of
/// sorting all of them, which on a 1080p frame moved 8 MB through memory a dozen times and
/// kept a GIF encoder's threads waiting on memory rather than computing.
struct ColourCounts {
    /// `(key, count)` per slot; [`EMPTY`] keys are free (colour keys use 24 bits).
    slots: Vec<(u32, u32)>,
    /// Occupied slots.
    len: usize,
}

/// The key of a free slot: no 24-bit colour has it.
const EMPTY: u32 = u32::MAX;

impl ColourCounts {
    /// The frame's distinct colours with their pixel counts, sorted by colour, or `None` when
    /// there are more than [`MAX_EXACT_BINS`].
    fn of(rgba8: &[u8]) -> Option<Vec<(u32, u64)>> {
        let capacity = MAX_EXACT_BINS * 2;
        let mut table = ColourCounts {
            slots: vec![(EMPTY, 0); capacity],
            len: 0,
        };
        // Neighbouring pixels often share a colour: count runs, then add each run once.
        let mut run: Option<(u32, u32)> = None;
        for p in rgba8.chunks_exact(4) {
            let key = pack([p[0], p[1], p[2]]);
            match &mut run {
                Some((last, count)) if *last == key => *count += 1,
                _ => {
                    if let Some((last, count)) = run.replace((key, 1)) {
                        table.add(last, count)?;
                    }
                }
            }
        }
        if let Some((last, count)) = run {
            table.add(last, count)?;
        }
        let mut exact: Vec<(u32, u64)> = table
            .slots
            .into_iter()
            .filter(|&(key, _)| key != EMPTY)
            .map(|(key, count)| (key, u64::from(count)))
            .collect();
        exact.sort_unstable_by_key(|&(key, _)| key);
        Some(exact)
    }

    /// Adds `count` pixels of colour `key`; `None` once the table holds more than
    /// [`MAX_EXACT_BINS`] colours.
    fn add(&mut self, key: u32, count: u32) -> Option<()> {
        let mask = self.slots.len() - 1;
        let mut slot = (key.wrapping_mul(0x9E37_79B1) >> 15) as usize & mask;
        loop {
            let entry = &mut self.slots[slot];
            if entry.0 == key {
                entry.1 += count;
                return Some(());
            }
            if entry.0 == EMPTY {
                if self.len == MAX_EXACT_BINS {
                    return None;
                }
                *entry = (key, count);
                self.len += 1;
                return Some(());
            }
            slot = (slot + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Every pixel counted in a sorted map: what the histogram must hold.
    fn reference_counts(rgba8: &[u8]) -> BTreeMap<u32, u64> {
        let mut counts = BTreeMap::new();
        for p in rgba8.chunks_exact(4) {
            *counts.entry(pack([p[0], p[1], p[2]])).or_insert(0) += 1;
        }
        counts
    }

    /// Pixels from a seeded generator: `distinct` colours at most, in runs and scattered.
    fn pixels(count: usize, distinct: u32, seed: u64) -> Vec<u8> {
        let mut rng = crate::rng::SplitMix64::new(seed);
        let mut rgba8 = Vec::with_capacity(count * 4);
        while rgba8.len() < count * 4 {
            let key = ((rng.next_u64() % u64::from(distinct)) as u32).wrapping_mul(2_654_435_761)
                % (1 << 24);
            let run = 1 + rng.next_u64() % 4;
            for _ in 0..run {
                let [r, g, b] = unpack(key);
                rgba8.extend_from_slice(&[r, g, b, 255]);
            }
        }
        rgba8.truncate(count * 4);
        rgba8
    }

    #[test]
    fn exact_counts_match_counting_every_pixel() {
        for (distinct, seed) in [(1, 1), (300, 2), (40_000, 3)] {
            let rgba8 = pixels(200_000, distinct, seed);
            let histogram = Histogram::of(&rgba8);
            let expected = reference_counts(&rgba8);
            assert_eq!(histogram.bins.len(), expected.len(), "{distinct} colours");
            for (bin, (key, count)) in histogram.bins.iter().zip(&expected) {
                assert_eq!(bin.count, *count);
                assert_eq!(bin.mean, unpack(*key).map(|v| v as f32));
            }
        }
    }

    #[test]
    fn past_the_exact_limit_colours_are_binned() {
        let rgba8 = pixels(600_000, 1 << 24, 4);
        assert!(reference_counts(&rgba8).len() > MAX_EXACT_BINS);
        let histogram = Histogram::of(&rgba8);
        let total: u64 = histogram.bins.iter().map(|bin| bin.count).sum();
        assert_eq!(total, 600_000);
        assert!(histogram.bins.len() <= 1 << (3 * HISTOGRAM_BITS));
        // Each bin's mean lies inside its cell.
        let cell_of = |v: f32| (v as u32) >> (8 - HISTOGRAM_BITS);
        for bin in &histogram.bins {
            let low = bin.mean.map(|v| cell_of(v.floor()));
            let high = bin.mean.map(|v| cell_of(v.ceil().min(255.0)));
            assert!(low.iter().zip(&high).all(|(a, b)| a == b || a + 1 == *b));
        }
    }
}
