//! Nearest palette colour to a pixel: the lookup every pixel of every GIF frame makes.

use std::sync::OnceLock;

/// Nearest-colour search. The RGB cube is cut into cells of [`CELL`]³ values; the first time a
/// cell is asked about, it keeps the palette entries that can be nearest to some colour in it
/// (those whose closest point of the cell is no farther than the farthest point of the cell is
/// from the entry that is closest in that sense), and every later query in the cell scans
/// only those, usually a handful. Fog fills few cells, so few are ever built. The answer is
/// exactly the brute-force one: any entry at the minimum distance from a colour is in its
/// cell's list, and ties go to the lower index.
pub(crate) struct Nearest {
    /// (colour rounded to integers, palette index), sorted by green then by index.
    pub(crate) sorted: Vec<([i32; 3], u8)>,
    /// Per cell, built on first use: the entries that can be nearest in it.
    cells: Vec<OnceLock<Candidates>>,
}

/// Palette entries (colour rounded to integers, index) that can be nearest in one cell.
type Candidates = Box<[([i32; 3], u8)]>;

/// Width of a cell of the search grid, in 8-bit units.
const CELL: i32 = 8;
/// Cells along each channel.
const CELLS: usize = (256 / CELL) as usize;

impl Nearest {
    pub(crate) fn new(palette: &[[f32; 3]]) -> Self {
        let mut sorted: Vec<([i32; 3], u8)> = palette
            .iter()
            .enumerate()
            .map(|(i, c)| (c.map(|v| v.round().clamp(0.0, 255.0) as i32), i as u8))
            .collect();
        sorted.sort_by_key(|(c, i)| (c[1], *i));
        let cells = (0..CELLS * CELLS * CELLS)
            .map(|_| OnceLock::new())
            .collect();
        Nearest { sorted, cells }
    }

    /// Index of the palette colour nearest to `colour` (Euclidean RGB; ties go to the lower
    /// index, so the answer never depends on search order).
    pub(crate) fn find(&self, colour: [i32; 3]) -> u8 {
        let colour = colour.map(|v| v.clamp(0, 255));
        let at = colour.map(|v| (v / CELL) as usize);
        let cell = (at[0] * CELLS + at[1]) * CELLS + at[2];
        let candidates = self.cells[cell].get_or_init(|| self.candidates(at));
        let mut best = (i32::MAX, u8::MAX);
        for &(entry, index) in candidates.iter() {
            let d = distance2(entry, colour);
            if d < best.0 || (d == best.0 && index < best.1) {
                best = (d, index);
            }
        }
        best.1
    }

    /// The entries that can be nearest to some colour of the cell at `at` (cell coordinates).
    fn candidates(&self, at: [usize; 3]) -> Candidates {
        let low = at.map(|a| a as i32 * CELL);
        let high = low.map(|l| l + CELL - 1);
        let per_channel = |entry: &[i32; 3], far: bool| -> i32 {
            (0..3)
                .map(|c| {
                    let d = if far {
                        (entry[c] - low[c]).abs().max((entry[c] - high[c]).abs())
                    } else if entry[c] < low[c] {
                        low[c] - entry[c]
                    } else if entry[c] > high[c] {
                        entry[c] - high[c]
                    } else {
                        0
                    };
                    d * d
                })
                .sum()
        };
        // Every colour of the cell is at most this far (squared) from its nearest entry.
        let bound = self
            .sorted
            .iter()
            .map(|(entry, _)| per_channel(entry, true))
            .min()
            .unwrap_or(0);
        self.sorted
            .iter()
            .filter(|(entry, _)| per_channel(entry, false) <= bound)
            .copied()
            .collect()
    }
}

pub(crate) fn distance2(a: [i32; 3], b: [i32; 3]) -> i32 {
    (0..3).map(|c| (a[c] - b[c]) * (a[c] - b[c])).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_lowest_index_at_the_minimum_distance_wins_in_every_cell() {
        // Duplicates and equidistant entries make ties; a palette crowded in one corner makes
        // long candidate lists elsewhere.
        let mut palette: Vec<[f32; 3]> = (0..200)
            .map(|i| {
                [
                    (i * 53 % 97) as f32 + 60.0,
                    (i * 29 % 89) as f32 + 70.0,
                    (i * 71 % 83) as f32 + 80.0,
                ]
            })
            .collect();
        palette.extend([[10.0, 10.0, 10.0], [10.0, 10.0, 10.0], [12.0, 10.0, 10.0]]);
        palette.extend([[250.0, 0.0, 128.0], [0.0, 250.0, 128.0], [8.0, 10.0, 10.0]]);
        let nearest = Nearest::new(&palette);
        let rounded: Vec<[i32; 3]> = palette.iter().map(|c| c.map(|v| v as i32)).collect();
        for q in 0..60_000i32 {
            let colour = [(q * 7) % 256, (q * 131) % 256, (q * 61 + q / 256) % 256];
            let expected = (0..rounded.len())
                .min_by_key(|&i| (distance2(rounded[i], colour), i))
                .unwrap();
            assert_eq!(nearest.find(colour) as usize, expected, "{colour:?}");
        }
        // Ties between the duplicate entries 200 and 201, and the two at distance 2.
        assert_eq!(nearest.find([10, 10, 10]), 200);
        assert_eq!(nearest.find([11, 10, 10]), 200);
        assert_eq!(nearest.find([9, 10, 10]), 200);
    }
}
