//! Counting a frame's colours: its distinct colours when there are at most 256 (stored
//! exactly), and the weighted histogram median cut and k-means work on.
//!
//! The distinct colours and their counts are found per band of [`BAND_PIXELS`] pixels in
//! parallel and merged, or in one pass over the whole frame where bands would not pay (one
//! thread to run them: each band fills and merges a table of its own, a third more work). The
//! merged list (sorted by colour, counts summed) is the same in whatever order bands are added
//! and with or without bands, so the result never depends on the number of threads.

use rayon::prelude::*;

use super::{MAX_COLOURS, pack, unpack};

/// Pixels per band when counting in parallel: 2^19 (2 MiB of RGBA8), four bands of a
/// 1920×1080 frame.
const BAND_PIXELS: usize = 1 << 19;

/// Most distinct colours median cut works on directly; beyond, colours are binned.
const MAX_EXACT_BINS: usize = 1 << 16;
/// Bits kept per channel when binning.
const HISTOGRAM_BITS: u32 = 6;

/// `count` of each band of `rgba8`, in order: bands of [`BAND_PIXELS`] in parallel on the
/// current rayon pool when `banded`, else the whole frame as one band on the calling thread
/// (none for an empty frame either way).
fn per_band<T: Send>(
    rgba8: &[u8],
    banded: bool,
    count: impl Fn(&[u8]) -> T + Sync + Send,
) -> Vec<T> {
    if banded {
        rgba8.par_chunks(BAND_PIXELS * 4).map(count).collect()
    } else {
        rgba8.chunks(rgba8.len().max(4)).map(count).collect()
    }
}

/// The frame's distinct colours, sorted, if there are at most 256 of them (bands in parallel
/// when `banded`; the same either way).
pub(crate) fn exact_palette(rgba8: &[u8], banded: bool) -> Option<Vec<u32>> {
    let bands = per_band(rgba8, banded, exact_palette_of_band);
    let mut colours: Vec<u32> = Vec::new();
    for band in bands {
        let band = band?;
        let mut merged = Vec::with_capacity(colours.len() + band.len());
        let (mut a, mut b) = (colours.iter().peekable(), band.iter().peekable());
        while let (Some(&&x), Some(&&y)) = (a.peek(), b.peek()) {
            merged.push(x.min(y));
            if x <= y {
                a.next();
            }
            if y <= x {
                b.next();
            }
        }
        merged.extend(a.chain(b));
        if merged.len() > MAX_COLOURS {
            return None;
        }
        colours = merged;
    }
    Some(colours)
}

/// One band's distinct colours, sorted, if there are at most 256 of them.
fn exact_palette_of_band(rgba8: &[u8]) -> Option<Vec<u32>> {
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
    /// The histogram of `rgba8`, its colours counted in bands in parallel when `banded` (the
    /// same either way).
    pub(crate) fn of(rgba8: &[u8], banded: bool) -> Self {
        match ColourCounts::of(rgba8, banded) {
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
    /// there are more than [`MAX_EXACT_BINS`]: bands counted (in parallel when `banded`), each
    /// in a table of its own, then the tables added to the first one's in band order and sorted
    /// once (the sorted list is the same whichever way the counts were added).
    fn of(rgba8: &[u8], banded: bool) -> Option<Vec<(u32, u64)>> {
        let mut bands = per_band(rgba8, banded, ColourCounts::of_band).into_iter();
        let mut table = bands.next().flatten()?;
        for band in bands {
            for (key, count) in band?.slots {
                if key != EMPTY {
                    table.add(key, count)?;
                }
            }
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

    /// One band's distinct colours counted, or `None` when there are more than
    /// [`MAX_EXACT_BINS`].
    fn of_band(rgba8: &[u8]) -> Option<ColourCounts> {
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
        Some(table)
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
            let histogram = Histogram::of(&rgba8, true);
            let expected = reference_counts(&rgba8);
            assert_eq!(histogram.bins.len(), expected.len(), "{distinct} colours");
            for (bin, (key, count)) in histogram.bins.iter().zip(&expected) {
                assert_eq!(bin.count, *count);
                assert_eq!(bin.mean, unpack(*key).map(|v| v as f32));
            }
        }
    }

    /// `bands` bands of [`BAND_PIXELS`] pixels (the last one shorter), band `b` holding the
    /// colours `first(b) .. first(b) + distinct` in turn.
    fn banded(bands: usize, distinct: u32, first: impl Fn(u32) -> u32) -> Vec<u8> {
        let total = BAND_PIXELS * bands - BAND_PIXELS / 3;
        (0..total)
            .flat_map(|i| {
                let band = (i / BAND_PIXELS) as u32;
                let [r, g, b] = unpack(first(band) + (i as u32 * 7) % distinct);
                [r, g, b, 255]
            })
            .collect()
    }

    #[test]
    fn counts_merged_across_bands_match_counting_every_pixel() {
        // Shared colours and colours of one band only; fewer than the limit in all.
        let rgba8 = banded(3, 30_000, |band| band * 10_000);
        let expected = reference_counts(&rgba8);
        assert_eq!(expected.len(), 50_000);
        // In bands or in one pass, the same counts.
        for in_bands in [true, false] {
            let histogram = Histogram::of(&rgba8, in_bands);
            assert_eq!(histogram.bins.len(), expected.len());
            for (bin, (key, count)) in histogram.bins.iter().zip(&expected) {
                assert_eq!(
                    (bin.count, bin.mean),
                    (*count, unpack(*key).map(|v| v as f32))
                );
            }
        }
        // The same on one thread and on three.
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| ColourCounts::of(&rgba8, true))
        };
        assert_eq!(on(1), on(3));
        assert_eq!(on(3), ColourCounts::of(&rgba8, false));
    }

    #[test]
    fn bands_under_the_limit_whose_union_is_over_it_are_binned() {
        let rgba8 = banded(3, 40_000, |band| band * 40_000);
        assert!(reference_counts(&rgba8).len() > MAX_EXACT_BINS);
        for in_bands in [true, false] {
            assert!(ColourCounts::of(&rgba8, in_bands).is_none());
            let histogram = Histogram::of(&rgba8, in_bands);
            let total: u64 = histogram.bins.iter().map(|bin| bin.count).sum();
            assert_eq!(total, (rgba8.len() / 4) as u64);
        }
    }

    #[test]
    fn exact_palettes_are_the_union_of_the_bands() {
        for in_bands in [true, false] {
            let same = banded(2, 200, |_| 5_000);
            assert_eq!(exact_palette(&same, in_bands).map(|p| p.len()), Some(200));
            let apart = banded(2, 200, |band| band * 100);
            let union: Vec<u32> = reference_counts(&apart).into_keys().collect();
            assert_eq!(union.len(), 300);
            assert_eq!(exact_palette(&apart, in_bands), None);
            let few = banded(2, 120, |band| band * 100);
            let union: Vec<u32> = reference_counts(&few).into_keys().collect();
            assert_eq!(exact_palette(&few, in_bands), Some(union));
        }
        // An empty frame has no colours, in bands or not.
        assert_eq!(exact_palette(&[], true), Some(Vec::new()));
        assert_eq!(exact_palette(&[], false), Some(Vec::new()));
    }

    #[test]
    fn past_the_exact_limit_colours_are_binned() {
        let rgba8 = pixels(600_000, 1 << 24, 4);
        assert!(reference_counts(&rgba8).len() > MAX_EXACT_BINS);
        let histogram = Histogram::of(&rgba8, true);
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
