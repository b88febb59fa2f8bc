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
        let top = cells as f32 - 1.001;
        let x = hold(x, 0.0, top);
        let y = hold(y, 0.0, top);
        // On very large grids `cells - 1.001` rounds to `cells - 1`; keep a neighbour in range.
        // Through i32: a plain conversion, where usize needs extra fix-ups (grids stay far below
        // 2^31 cells per side).
        let x0 = (x as i32 as usize).min(cells - 2);
        let y0 = (y as i32 as usize).min(cells - 2);
        Self {
            index: y0 * cells + x0,
            cells,
            fx: x - x0 as f32,
            fy: y - y0 as f32,
        }
    }

    /// The field's value at this position.
    #[inline(always)]
    pub(crate) fn read(&self, field: &[f32]) -> f32 {
        let near = &field[self.index..self.index + 2];
        let far = &field[self.index + self.cells..self.index + self.cells + 2];
        let a = near[0] + (near[1] - near[0]) * self.fx;
        let b = far[0] + (far[1] - far[0]) * self.fx;
        a + (b - a) * self.fy
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
