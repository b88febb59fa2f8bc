//! Where the fluid's grid lies on the floor and how it is read between cells. One mapping turns
//! world x, z into grid coordinates for everything (solids, the ball, blasts, probes, the
//! shader's maps), and one bilinear reader serves every advection, so the conventions cannot
//! drift apart.
//!
//! The fluid is stored as a structure of arrays: one `cells × cells` row-major field per
//! quantity, each an `AlignedFloats` starting on a 64-byte boundary (`aligned.rs`).
//! [`pack_fields`] lays the fields an advection carries side by side per cell, once a step, for
//! the baseline CPU's read.

/// The square of floor the fluid covers, `[-area_world/2, area_world/2]` in world x and z,
/// split into `cells` by `cells` cells.
///
/// Cell `(i, j)` runs along +x with `i` and along +z with `j`; its data is at index
/// `j * cells + i` (row-major, row `j = 0` at `z = -area_world/2`). In continuous grid
/// coordinates the cell covers `[i, i + 1]`, so its centre is at `i + 0.5`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridMapping {
    /// Cells per side.
    pub cells: usize,
    /// Side of the covered square, in world units.
    pub area_world: f32,
}

impl GridMapping {
    /// A mapping of `cells` by `cells` over a square `area_world` units across.
    pub fn new(cells: usize, area_world: f32) -> Self {
        Self { cells, area_world }
    }

    /// Side of one cell, in world units.
    pub fn cell_size_world(&self) -> f32 {
        self.area_world / self.cells as f32
    }

    /// Continuous grid coordinates of a floor point (cell centres at `i + 0.5`).
    pub fn world_to_grid(&self, x_world: f32, z_world: f32) -> [f32; 2] {
        let half_world = self.area_world * 0.5;
        let cell_world = self.cell_size_world();
        [
            (x_world + half_world) / cell_world,
            (z_world + half_world) / cell_world,
        ]
    }

    /// World x, z of the centre of cell `(i, j)`.
    pub fn cell_center_world(&self, i: usize, j: usize) -> [f32; 2] {
        let half_world = self.area_world * 0.5;
        let cell_world = self.cell_size_world();
        [
            (i as f32 + 0.5) * cell_world - half_world,
            (j as f32 + 0.5) * cell_world - half_world,
        ]
    }

    /// Number of cells in the grid.
    pub fn cell_count(&self) -> usize {
        self.cells * self.cells
    }
}

/// A bilinear read position on a `cells`-wide field, held at the edge.
///
/// Coordinates here are index coordinates: the value of cell `i` sits at exactly `i` (not
/// `i + 0.5`), which is how the advection traces back from cell to cell. Computing the position
/// once and reading several fields with it keeps the carry stage cheap.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bilinear {
    index: usize,
    cells: usize,
    fx: f32,
    fy: f32,
}

impl Bilinear {
    /// The read position for index coordinates `(x, y)` on a grid of `cells` per side (at least
    /// 2), held inside `[0, cells - 1.001]` as the example does. NaN reads as 0.
    #[inline(always)]
    pub(crate) fn at(cells: usize, x: f32, y: f32) -> Self {
        let (x0, fx) = place_axis(cells, x);
        let (y0, fy) = place_axis(cells, y);
        Self {
            index: y0 as usize * cells + x0 as usize,
            cells,
            fx,
            fy,
        }
    }

    /// The field's value at this position.
    #[inline(always)]
    pub(crate) fn read(&self, field: &[f32]) -> f32 {
        lerp_at(field, self.index, self.cells, self.fx, self.fy)
    }
}

/// One axis of a read position: the lower neighbour's index and the fraction past it, for
/// index coordinate `value` on a `cells`-wide grid. Shared by [`Bilinear`] and the
/// advections' `advect::Trace` so both read the same points.
#[inline(always)]
pub(super) fn place_axis(cells: usize, value: f32) -> (i32, f32) {
    let top = cells as f32 - 1.001;
    let held = hold(value, 0.0, top);
    // The lower neighbour is `floor(held)`, kept at most `cells - 2` (on very large grids
    // `cells - 1.001` rounds to `cells - 1`; keep a neighbour in range). It is found with float
    // arithmetic that vectorises, where `as i32` (saturating) does not: adding and taking off
    // 2^23 rounds to the nearest integer exactly for `0 <= held < 2^22`, one step down where
    // that went up gives the floor, and the integer is read from the bits of `floor + 2^23`.
    // Grids are far below 2^22 cells per side, and `held` is never negative or NaN.
    const ROUNDER: f32 = 8_388_608.0; // 2^23
    let nearest = (held + ROUNDER) - ROUNDER;
    let floor = if nearest > held {
        nearest - 1.0
    } else {
        nearest
    };
    let last = (cells - 2) as f32;
    let low = if floor < last { floor } else { last };
    let low_index = (low + ROUNDER).to_bits().wrapping_sub(ROUNDER.to_bits()) as i32;
    (low_index, held - low)
}

/// Bilinear blend of the 2×2 cells from `index` (lower-left) on a `cells`-wide field.
#[inline(always)]
fn lerp_at(field: &[f32], index: usize, cells: usize, fx: f32, fy: f32) -> f32 {
    // One bounds check for the whole 2×2 block; the four reads inside it need none.
    let block = &field[index..][..cells + 2];
    let (near, far) = ([block[0], block[1]], [block[cells], block[cells + 1]]);
    let a = near[0] + (near[1] - near[0]) * fx;
    let b = far[0] + (far[1] - far[0]) * fx;
    a + (b - a) * fy
}

/// Packs `N` fields of `cells × cells` into `out`, one `[f32; N]` per cell (`out[i][l]` is
/// `fields[l][i]`), rows in parallel; `out` is resized to fit (only the first time, in
/// practice). The advections read a cell's fields together from the packed copy.
pub(crate) fn pack_fields<const N: usize>(
    out: &mut Vec<[f32; N]>,
    fields: [&[f32]; N],
    cells: usize,
    (lanes, min_rows): (super::lanes::Lanes, usize),
) {
    use rayon::prelude::*;
    out.resize(cells * cells, [0.0; N]);
    out.par_chunks_mut(cells)
        .enumerate()
        .with_min_len(min_rows)
        .for_each(|(y, out_row)| super::advect::pack_row(lanes, fields, y, out_row));
}

/// `value` held inside `[low, high]`, with NaN landing on `low` (unlike `f32::clamp`, which
/// passes NaN through), so a NaN cannot poison an index or spread. Written as comparisons so it
/// compiles to plain min/max instructions.
#[inline(always)]
pub(crate) fn hold(value: f32, low: f32, high: f32) -> f32 {
    let above = if value > low { value } else { low };
    if above < high { above } else { high }
}

/// Rows handed to one rayon task at the least, for a grid `cells` wide: small grids run on the
/// calling thread (no pool round trip per stage), larger ones split into tasks of about 16 K
/// cells, and grids of 256² and more into tasks of 4 K cells.
///
/// A 256² level has only four tasks of 16 K cells. On the 16-core GPU host the walkway's step
/// took 1.90 to 1.95 ms on 16 threads with them, and 1.24 to 1.41 ms with tasks of 4 K cells
/// (`benches/runs/2026-12-05-h100-d`). Smaller tasks were slower. Rows never share a task's
/// writes, so the bits are the same for any split.
pub(crate) fn min_rows_per_task(cells: usize) -> usize {
    const MIN_CELLS_PER_TASK: usize = 16 * 1024;
    const LARGE_GRID_CELLS: usize = 256 * 256;
    const LARGE_GRID_CELLS_PER_TASK: usize = 4 * 1024;
    let cells = cells.max(1);
    let per_task = if cells.saturating_mul(cells) >= LARGE_GRID_CELLS {
        LARGE_GRID_CELLS_PER_TASK
    } else {
        MIN_CELLS_PER_TASK
    };
    (per_task / cells).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lower neighbour and fraction as first written, with a saturating `as i32`: the
    /// vectorising [`place_axis`] must give exactly these bits.
    fn place_axis_plain(cells: usize, value: f32) -> (i32, f32) {
        let held = hold(value, 0.0, cells as f32 - 1.001);
        let low = (held as i32).min(cells as i32 - 2);
        (low, held - low as f32)
    }

    #[test]
    fn small_grids_take_one_task_and_large_ones_sixteen() {
        // The temple's 96² and a 128² grid: one task each (a stage never goes to the pool).
        assert!(min_rows_per_task(96) >= 96);
        assert_eq!(min_rows_per_task(128), 128);
        // 192²: tasks of 16 K cells.
        assert_eq!(min_rows_per_task(192), 16 * 1024 / 192);
        // The walkway's 256²: sixteen tasks of 4 K cells; wider grids keep 4 K cells a task.
        assert_eq!(256 / min_rows_per_task(256), 16);
        assert_eq!(min_rows_per_task(512) * 512, 4 * 1024);
        assert_eq!(min_rows_per_task(8192), 1);
        assert_eq!(min_rows_per_task(0), 16 * 1024);
    }

    #[test]
    fn place_axis_matches_the_plain_conversion_bit_for_bit() {
        let specials = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -0.0,
            0.0,
            -1e-30,
            1e-30,
            0.5,
            0.999_999_9,
            1.0,
            1.000_000_1,
            2.5,
            3.5,
            1e9,
        ];
        for cells in [2usize, 3, 96, 131, 256, 5000, 3_000_000] {
            let top = cells as f32 - 1.001;
            let mut values = specials.to_vec();
            values.extend([top, top.next_down(), top.next_up(), cells as f32 - 1.0]);
            // Every integer near the grid's range and the floats just either side of it, plus
            // a fine sweep of fractions.
            for i in 0..cells.min(600) {
                let at = i as f32;
                values.extend([at, at.next_down(), at.next_up(), at + 0.5, at - 0.5]);
            }
            for step in 0..20_000 {
                values.push(step as f32 * 0.013_7 - 3.0);
            }
            for value in values {
                let (low, fraction) = place_axis(cells, value);
                let (plain_low, plain_fraction) = place_axis_plain(cells, value);
                assert_eq!(low, plain_low, "cells {cells}, value {value:e}");
                assert_eq!(
                    fraction.to_bits(),
                    plain_fraction.to_bits(),
                    "cells {cells}, value {value:e}"
                );
            }
        }
    }
}
