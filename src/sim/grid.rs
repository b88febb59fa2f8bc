//! Where the fluid's grid lies on the floor and how it is read between cells. One mapping turns
//! world x, z into grid coordinates for everything (solids, the ball, blasts, probes, the
//! shader's maps), and one bilinear reader serves every advection, so the conventions cannot
//! drift apart.

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
/// index coordinate `value` on a `cells`-wide grid. Shared by [`Bilinear`] and
/// [`BilinearRun`] so both read the same points.
#[inline(always)]
fn place_axis(cells: usize, value: f32) -> (i32, f32) {
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

/// [`lerp_at`] for `N` fields packed per cell (`packed[i][l]` is field `l` at index `i`): one
/// bounds check and four whole-cell loads for all of them, and per field exactly the
/// operations of [`lerp_at`] in the same order, so the same bits.
#[inline(always)]
fn lerp_packed_at<const N: usize>(
    packed: &[[f32; N]],
    index: usize,
    cells: usize,
    fx: f32,
    fy: f32,
) -> [f32; N] {
    let block = &packed[index..][..cells + 2];
    let (near_0, near_1, far_0, far_1) = (block[0], block[1], block[cells], block[cells + 1]);
    std::array::from_fn(|l| {
        let a = near_0[l] + (near_1[l] - near_0[l]) * fx;
        let b = far_0[l] + (far_1[l] - far_0[l]) * fx;
        a + (b - a) * fy
    })
}

/// Packs `N` fields of `cells × cells` into `out`, one `[f32; N]` per cell (`out[i][l]` is
/// `fields[l][i]`), rows in parallel; `out` is resized to fit (only the first time, in
/// practice). The advections read a cell's fields together from the packed copy.
pub(crate) fn pack_fields<const N: usize>(
    out: &mut Vec<[f32; N]>,
    fields: [&[f32]; N],
    cells: usize,
    min_rows: usize,
) {
    use rayon::prelude::*;
    out.resize(cells * cells, [0.0; N]);
    out.par_chunks_mut(cells)
        .enumerate()
        .with_min_len(min_rows)
        .for_each(|(y, out_row)| {
            let rows: [&[f32]; N] = std::array::from_fn(|l| &fields[l][y * cells..][..cells]);
            for (x, cell) in out_row.iter_mut().enumerate() {
                *cell = std::array::from_fn(|l| rows[l][x]);
            }
        });
}

/// Cells per [`BilinearRun`]: enough to vectorise, small enough to stay in registers and L1.
pub(crate) const RUN: usize = 32;

/// Read positions for a run of up to [`RUN`] consecutive cells, placed together so the
/// arithmetic vectorises (the reads themselves are per cell). Each position is exactly what
/// [`Bilinear::at`] gives for it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BilinearRun {
    cells: usize,
    x0: [i32; RUN],
    y0: [i32; RUN],
    index: [usize; RUN],
    fx: [f32; RUN],
    fy: [f32; RUN],
}

impl BilinearRun {
    /// An empty run for a grid of `cells` per side (at least 2).
    pub(crate) fn new(cells: usize) -> Self {
        Self {
            cells,
            x0: [0; RUN],
            y0: [0; RUN],
            index: [0; RUN],
            fx: [0.0; RUN],
            fy: [0.0; RUN],
        }
    }

    /// Cells per side of the grid.
    pub(crate) fn cells(&self) -> usize {
        self.cells
    }

    /// Places slot `k` at index coordinates `(xs[k], ys[k])` for every slot (callers read only
    /// the slots they filled; the others hold harmless in-range positions).
    #[inline(always)]
    pub(crate) fn place(&mut self, xs: &[f32; RUN], ys: &[f32; RUN]) {
        for k in 0..RUN {
            let (x0, fx) = place_axis(self.cells, xs[k]);
            let (y0, fy) = place_axis(self.cells, ys[k]);
            self.x0[k] = x0;
            self.y0[k] = y0;
            self.fx[k] = fx;
            self.fy[k] = fy;
        }
        // Apart from the arithmetic above, so that loop stays free of 64-bit products.
        for k in 0..RUN {
            self.index[k] = self.y0[k] as usize * self.cells + self.x0[k] as usize;
        }
    }

    /// The field's value at slot `k`'s position.
    #[cfg(test)]
    #[inline(always)]
    pub(crate) fn read(&self, k: usize, field: &[f32]) -> f32 {
        lerp_at(field, self.index[k], self.cells, self.fx[k], self.fy[k])
    }

    /// The field's values at slots `0..out.len()` into `out`. Reading a whole run into a row of
    /// the output first, and transforming it after in a separate pass, keeps the gather loop
    /// small and lets the transform vectorise.
    #[cfg(test)]
    #[inline(always)]
    pub(crate) fn read_into(&self, field: &[f32], out: &mut [f32]) {
        for (k, value) in out.iter_mut().enumerate().take(RUN) {
            *value = self.read(k, field);
        }
    }

    /// The `N` packed fields' values (see [`pack_fields`]) at slots `0..out.len()` into `out`:
    /// per field the bits of [`BilinearRun::read_into`] on that field alone.
    #[inline(always)]
    pub(crate) fn read_packed_into<const N: usize>(
        &self,
        packed: &[[f32; N]],
        out: &mut [[f32; N]],
    ) {
        for (k, value) in out.iter_mut().enumerate().take(RUN) {
            *value = lerp_packed_at(packed, self.index[k], self.cells, self.fx[k], self.fy[k]);
        }
    }
}

/// `value` held inside `[low, high]`, with NaN landing on `low` (unlike `f32::clamp`, which
/// passes NaN through), so a NaN cannot poison an index or spread. Written as comparisons so it
/// compiles to plain min/max instructions.
#[inline(always)]
pub(crate) fn hold(value: f32, low: f32, high: f32) -> f32 {
    let above = if value > low { value } else { low };
    if above < high { above } else { high }
}

/// Rows handed to one rayon task at the least: small grids run on the calling thread (no pool
/// round trip per stage), large ones split into tasks of about this many cells.
pub(crate) fn min_rows_per_task(cells: usize) -> usize {
    const MIN_CELLS_PER_TASK: usize = 16 * 1024;
    (MIN_CELLS_PER_TASK / cells.max(1)).max(1)
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

    #[test]
    fn a_run_reads_what_single_positions_read() {
        let cells = 37;
        let field: Vec<f32> = (0..cells * cells)
            .map(|i| ((i * 7919) % 1013) as f32 * 0.37 - 50.0)
            .collect();
        let mut xs = [0.0f32; RUN];
        let mut ys = [0.0f32; RUN];
        for k in 0..RUN {
            xs[k] = k as f32 * 1.37 - 3.0;
            ys[k] = 40.0 - k as f32 * 1.61;
        }
        xs[3] = f32::NAN;
        ys[5] = f32::INFINITY;
        let mut run = BilinearRun::new(cells);
        run.place(&xs, &ys);
        let mut read = [0.0f32; RUN];
        run.read_into(&field, &mut read);
        for k in 0..RUN {
            let single = Bilinear::at(cells, xs[k], ys[k]).read(&field);
            assert_eq!(read[k].to_bits(), single.to_bits(), "slot {k}");
            assert_eq!(run.read(k, &field).to_bits(), single.to_bits(), "slot {k}");
        }
    }

    #[test]
    fn packed_reads_give_each_field_the_bits_of_its_own_read() {
        let cells = 41;
        let field = |seed: usize| -> Vec<f32> {
            (0..cells * cells)
                .map(|i| ((i * 7919 + seed * 104_729) % 1013) as f32 * 0.37 - 50.0 + 1e-3 / 3.0)
                .collect()
        };
        let fields = [field(1), field(2), field(3), field(4)];
        let mut packed = Vec::new();
        pack_fields(
            &mut packed,
            [&fields[0], &fields[1], &fields[2], &fields[3]],
            cells,
            3,
        );
        assert_eq!(packed.len(), cells * cells);
        let mut xs = [0.0f32; RUN];
        let mut ys = [0.0f32; RUN];
        for k in 0..RUN {
            xs[k] = k as f32 * 1.37 - 3.0 + 0.123;
            ys[k] = 45.0 - k as f32 * 1.61;
        }
        xs[7] = f32::NAN;
        let mut run = BilinearRun::new(cells);
        run.place(&xs, &ys);
        let mut quads = [[0.0f32; 4]; RUN];
        run.read_packed_into(&packed, &mut quads);
        for (l, field) in fields.iter().enumerate() {
            let mut alone = [0.0f32; RUN];
            run.read_into(field, &mut alone);
            for k in 0..RUN {
                assert_eq!(
                    quads[k][l].to_bits(),
                    alone[k].to_bits(),
                    "field {l} slot {k}"
                );
            }
            // The reads are blends, not copies of a cell.
            assert!(alone.iter().any(|v| !field.contains(v)), "field {l}");
        }
    }
}
