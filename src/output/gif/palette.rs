//! Building a frame's palette from its histogram: median cut, then k-means rounds.

use super::histogram::Bin;
use super::nearest::Nearest;

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
pub(crate) fn median_cut(bins: &[Bin], max_colours: usize) -> Vec<[f32; 3]> {
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
pub(crate) fn kmeans_round(bins: &[Bin], palette: &[[f32; 3]]) -> Vec<[f32; 3]> {
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
