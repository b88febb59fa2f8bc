//! The `multigrid` pressure solver: geometric multigrid V-cycles for the projection's
//! `lap(p) = div`, with `p = 0` on the grid's border, the same system the red-black solver
//! sweeps at (solids enter the projection through the walls on the air, as in the example, so
//! both solvers converge to the same pressure).
//!
//! A red-black sweep only evens out errors a few cells wide; a smooth error across the grid
//! takes thousands of sweeps. A V-cycle smooths a little, hands what is left (the residual) to
//! a grid of half the resolution, where the same error is twice as steep, recursively down to
//! a few cells, and carries the corrections back up, smoothing again on each level.
//!
//! Levels are vertex grids: level `l` has nodes every `2^l` cells from the border cell at 0;
//! the far border (cell `cells - 1`) does not fall on a coarse node in general, so each axis's
//! last interior node has a shorter gap to it and takes a non-uniform (Shortley-Weller)
//! stencil there; interpolation toward the far border runs down to its zero too. Restriction
//! is full weighting (1/4, 1/2, 1/4 per axis), prolongation linear, smoothing red-black
//! Gauss-Seidel (two sweeps before and after each coarse correction, sixteen on the coarsest
//! grid). Everything runs in one fixed order on the calling thread, so the result does not
//! depend on the thread count.

use super::stages::flush;

/// Red-black sweeps before and after each coarse correction.
const SMOOTHING_SWEEPS: u32 = 2;
/// Red-black sweeps on the coarsest grid.
const COARSEST_SWEEPS: u32 = 16;
/// Coarsening stops at this many interior nodes per axis.
const COARSEST_NODES: usize = 3;

/// How a fine node takes a coarse correction: `weight_a * coarse[a] + weight_b * coarse[b]`
/// along one axis (index 0 and `nodes + 1` of the coarse axis are the border, 0).
#[derive(Debug, Clone, Copy)]
struct Interpolation {
    a: usize,
    weight_a: f32,
    b: usize,
    weight_b: f32,
}

/// One grid of the hierarchy, the border ring included (`side = nodes + 2` per axis).
#[derive(Debug, Clone)]
struct Level {
    /// Interior nodes per axis.
    nodes: usize,
    /// Nodes per axis with the border ring.
    side: usize,
    /// Per axis index: the stencil's weight toward the lower and the upper neighbour.
    weight_low: Vec<f32>,
    weight_high: Vec<f32>,
    /// Per axis index of this level: how it takes the next coarser level's correction.
    from_coarse: Vec<Interpolation>,
    /// The unknown (pressure on level 0, corrections below), the right-hand side and the
    /// residual, `side × side`.
    value: Vec<f32>,
    rhs: Vec<f32>,
    residual: Vec<f32>,
}

impl Level {
    /// Level with nodes every `spacing` cells from 0 and the far border at `border` cells.
    fn new(spacing: usize, border: usize) -> Level {
        let nodes = (border - 1) / spacing;
        let side = nodes + 2;
        let mut weight_low = vec![0.0; side];
        let mut weight_high = vec![0.0; side];
        for i in 1..=nodes {
            let gap_low = spacing as f32;
            let gap_high = if i == nodes {
                (border - nodes * spacing) as f32
            } else {
                spacing as f32
            };
            // d²p/dx² ≈ 2/(a+b) · ((p₊ - p)/b - (p - p₋)/a) on gaps a below, b above.
            weight_low[i] = 2.0 / (gap_low * (gap_low + gap_high));
            weight_high[i] = 2.0 / (gap_high * (gap_low + gap_high));
        }
        let count = side * side;
        Level {
            nodes,
            side,
            weight_low,
            weight_high,
            from_coarse: Vec::new(),
            value: vec![0.0; count],
            rhs: vec![0.0; count],
            residual: vec![0.0; count],
        }
    }

    /// `lap(value)` at interior node `(i, j)`.
    #[inline(always)]
    fn laplacian(&self, i: usize, j: usize) -> f32 {
        let (side, p) = (self.side, &self.value);
        let at = j * side + i;
        let (low, high) = (&self.weight_low, &self.weight_high);
        low[i] * p[at - 1] + high[i] * p[at + 1] + low[j] * p[at - side] + high[j] * p[at + side]
            - (low[i] + high[i] + low[j] + high[j]) * p[at]
    }

    /// `sweeps` red-black Gauss-Seidel sweeps of `lap(value) = rhs`, in place.
    fn smooth(&mut self, sweeps: u32) {
        let (side, nodes) = (self.side, self.nodes);
        let (low, high) = (&self.weight_low[..side], &self.weight_high[..side]);
        for _ in 0..sweeps {
            for colour in [0, 1] {
                for j in 1..=nodes {
                    // Rows j - 1 and j + 1 are read, row j is written (only cells of this
                    // colour, whose row neighbours are of the other).
                    let (before, rest) = self.value.split_at_mut(j * side);
                    let (row, after) = rest.split_at_mut(side);
                    let (below, above) = (&before[(j - 1) * side..], &after[..side]);
                    let rhs = &self.rhs[j * side..][..side];
                    let (low_j, high_j) = (low[j], high[j]);
                    let first = 1 + ((colour + j + 1) & 1);
                    for i in (first..=nodes).step_by(2) {
                        let neighbours = low[i] * row[i - 1]
                            + high[i] * row[i + 1]
                            + low_j * below[i]
                            + high_j * above[i];
                        let diagonal = low[i] + high[i] + low_j + high_j;
                        row[i] = flush((neighbours - rhs[i]) / diagonal);
                    }
                }
            }
        }
    }

    /// `residual = rhs - lap(value)` on the interior (the border ring stays 0).
    fn compute_residual(&mut self) {
        for j in 1..=self.nodes {
            for i in 1..=self.nodes {
                let at = j * self.side + i;
                self.residual[at] = self.rhs[at] - self.laplacian(i, j);
            }
        }
    }
}

/// The hierarchy for one grid size; level 0 is the fluid's grid.
#[derive(Debug, Clone)]
pub(super) struct Multigrid {
    levels: Vec<Level>,
}

impl Multigrid {
    /// The levels for a `cells`-wide grid (at least 3).
    pub(super) fn new(cells: usize) -> Multigrid {
        let border = cells - 1;
        let mut levels = vec![Level::new(1, border)];
        let mut spacing = 1;
        while levels
            .last()
            .is_some_and(|level| level.nodes > COARSEST_NODES)
        {
            spacing *= 2;
            let coarse = Level::new(spacing, border);
            let fine = levels.last_mut().expect("a level");
            // Fine node i sits at i·s; coarse node I at I·2s.
            fine.from_coarse = (0..fine.side)
                .map(|i| interpolation(i, fine.nodes, spacing / 2, &coarse, border))
                .collect();
            levels.push(coarse);
        }
        Multigrid { levels }
    }

    /// Runs `cycles` V-cycles of `lap(p) = divergence` on `pressure` (both `cells × cells`,
    /// grid order), starting from the pressure given (the last step's: a warm start). The
    /// border of `pressure` is left at 0.
    pub(super) fn solve(&mut self, divergence: &[f32], pressure: &mut [f32], cycles: u32) {
        let fine = &mut self.levels[0];
        fine.rhs.copy_from_slice(divergence);
        fine.value.copy_from_slice(pressure);
        clear_border(&mut fine.value, fine.side);
        clear_border(&mut fine.rhs, fine.side);
        for _ in 0..cycles {
            v_cycle(&mut self.levels);
        }
        pressure.copy_from_slice(&self.levels[0].value);
    }

    /// Root mean square over the interior of `divergence - lap(p)` after the last solve, in
    /// `f64`, in a fixed order.
    pub(super) fn residual_rms(&mut self) -> f64 {
        let fine = &mut self.levels[0];
        fine.compute_residual();
        let mut sum = 0.0;
        for j in 1..=fine.nodes {
            for &r in &fine.residual[j * fine.side + 1..][..fine.nodes] {
                sum += f64::from(r) * f64::from(r);
            }
        }
        (sum / (fine.nodes * fine.nodes) as f64).sqrt()
    }
}

/// How fine node `i` (at `i · spacing`) takes the correction of the coarse level (nodes at
/// multiples of `2 · spacing`, far border at `border`).
fn interpolation(
    i: usize,
    fine_nodes: usize,
    spacing: usize,
    coarse: &Level,
    border: usize,
) -> Interpolation {
    let none = Interpolation {
        a: 0,
        weight_a: 0.0,
        b: 0,
        weight_b: 0.0,
    };
    if i == 0 || i > fine_nodes {
        return none;
    }
    if i.is_multiple_of(2) {
        return Interpolation {
            a: i / 2,
            weight_a: 1.0,
            ..none
        };
    }
    let (a, b) = (i / 2, i.div_ceil(2));
    if b <= coarse.nodes {
        return Interpolation {
            a,
            weight_a: 0.5,
            b,
            weight_b: 0.5,
        };
    }
    // Between the last coarse node and the far border: linear down to the border's 0.
    let x = i * spacing;
    let x_a = a * 2 * spacing;
    Interpolation {
        a,
        weight_a: (border - x) as f32 / (border - x_a) as f32,
        ..none
    }
}

/// Zeroes the border ring of a `side × side` grid.
fn clear_border(field: &mut [f32], side: usize) {
    field[..side].fill(0.0);
    field[(side - 1) * side..].fill(0.0);
    for j in 1..side - 1 {
        field[j * side] = 0.0;
        field[j * side + side - 1] = 0.0;
    }
}

/// One V-cycle from `levels[0]` down: smooth, restrict the residual, correct from the coarser
/// levels, smooth again.
fn v_cycle(levels: &mut [Level]) {
    let Some((fine, coarser)) = levels.split_first_mut() else {
        return;
    };
    let Some(coarse) = coarser.first_mut() else {
        fine.smooth(COARSEST_SWEEPS);
        return;
    };
    fine.smooth(SMOOTHING_SWEEPS);
    fine.compute_residual();
    restrict(fine, coarse);
    coarse.value.fill(0.0);
    v_cycle(coarser);
    let coarse = &coarser[0];
    prolong_add(coarse, fine);
    fine.smooth(SMOOTHING_SWEEPS);
}

/// The coarse right-hand side: full weighting of the fine residual around each coarse node.
fn restrict(fine: &Level, coarse: &mut Level) {
    const WEIGHTS: [f32; 3] = [0.25, 0.5, 0.25];
    for big_j in 1..=coarse.nodes {
        for big_i in 1..=coarse.nodes {
            let mut sum = 0.0;
            for (dj, weight_j) in WEIGHTS.iter().enumerate() {
                let row = (2 * big_j + dj - 1) * fine.side;
                for (di, weight_i) in WEIGHTS.iter().enumerate() {
                    sum += weight_j * weight_i * fine.residual[row + 2 * big_i + di - 1];
                }
            }
            coarse.rhs[big_j * coarse.side + big_i] = sum;
        }
    }
}

/// Adds the coarse level's correction, interpolated, to the fine level's values.
fn prolong_add(coarse: &Level, fine: &mut Level) {
    let c = &coarse.value;
    for j in 1..=fine.nodes {
        let y = fine.from_coarse[j];
        for i in 1..=fine.nodes {
            let x = fine.from_coarse[i];
            let row_a = y.a * coarse.side;
            let row_b = y.b * coarse.side;
            let correction = y.weight_a
                * (x.weight_a * c[row_a + x.a] + x.weight_b * c[row_a + x.b])
                + y.weight_b * (x.weight_a * c[row_b + x.a] + x.weight_b * c[row_b + x.b]);
            fine.value[j * fine.side + i] += correction;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A divergence like a blast's: a ring of outflow, plus a fixed pattern.
    fn blast_divergence(cells: usize) -> Vec<f32> {
        let mut divergence = vec![0.0_f32; cells * cells];
        let centre = cells as f32 * 0.4;
        for j in 1..cells - 1 {
            for i in 1..cells - 1 {
                let (dx, dy) = (i as f32 - centre, j as f32 - centre * 1.2);
                let r = (dx * dx + dy * dy).sqrt();
                divergence[j * cells + i] = 3.0 * (-((r - 6.0) * (r - 6.0)) / 8.0).exp()
                    + ((i * 7 + j * 3) % 5) as f32 * 0.01;
            }
        }
        divergence
    }

    /// RMS of `div - lap(p)` with the fluid's five-point stencil.
    fn residual_rms(divergence: &[f32], p: &[f32], cells: usize) -> f64 {
        let mut sum = 0.0;
        for j in 1..cells - 1 {
            for i in 1..cells - 1 {
                let at = j * cells + i;
                let lap = p[at - 1] + p[at + 1] + p[at - cells] + p[at + cells] - 4.0 * p[at];
                let r = f64::from(divergence[at] - lap);
                sum += r * r;
            }
        }
        (sum / ((cells - 2) * (cells - 2)) as f64).sqrt()
    }

    fn jacobi(divergence: &[f32], cells: usize, sweeps: u32) -> Vec<f32> {
        let mut p = vec![0.0_f32; cells * cells];
        let mut next = p.clone();
        for _ in 0..sweeps {
            for j in 1..cells - 1 {
                for i in 1..cells - 1 {
                    let at = j * cells + i;
                    next[at] = (p[at - 1] + p[at + 1] + p[at - cells] + p[at + cells]
                        - divergence[at])
                        * 0.25;
                }
            }
            std::mem::swap(&mut p, &mut next);
        }
        p
    }

    #[test]
    fn levels_halve_down_to_a_few_nodes_and_keep_the_far_border() {
        for cells in [4, 5, 17, 96, 97, 256] {
            let multigrid = Multigrid::new(cells);
            let levels = &multigrid.levels;
            assert_eq!(levels[0].nodes, cells - 2);
            let last = levels.last().unwrap();
            assert!(last.nodes <= COARSEST_NODES, "{cells}: {}", last.nodes);
            for pair in levels.windows(2) {
                assert_eq!(pair[1].nodes, pair[0].nodes / 2, "{cells}");
            }
        }
    }

    #[test]
    fn default_cycles_beat_a_thousand_jacobi_sweeps() {
        for cells in [48, 96] {
            let divergence = blast_divergence(cells);
            let start = residual_rms(&divergence, &vec![0.0; cells * cells], cells);
            let jacobi_rms = residual_rms(&divergence, &jacobi(&divergence, cells, 1000), cells);
            let mut multigrid = Multigrid::new(cells);
            let mut p = vec![0.0_f32; cells * cells];
            multigrid.solve(&divergence, &mut p, crate::sim::DEFAULT_MULTIGRID_CYCLES);
            let multigrid_rms = residual_rms(&divergence, &p, cells);
            assert!(
                (multigrid.residual_rms() - multigrid_rms).abs() <= 1e-6 * start,
                "{cells}: {} vs {multigrid_rms}",
                multigrid.residual_rms()
            );
            assert!(
                multigrid_rms < jacobi_rms,
                "{cells}: multigrid {multigrid_rms:e}, 1000 Jacobi {jacobi_rms:e}, start {start:e}"
            );
            // And each cycle cuts the residual by a good factor.
            let mut one = vec![0.0_f32; cells * cells];
            Multigrid::new(cells).solve(&divergence, &mut one, 1);
            let after_one = residual_rms(&divergence, &one, cells);
            assert!(
                after_one < 0.3 * start,
                "{cells}: {after_one:e} of {start:e}"
            );
            assert!(p.iter().all(|v| v.is_finite()));
        }
    }

    #[test]
    fn the_border_stays_zero_and_results_repeat() {
        let cells = 37;
        let divergence = blast_divergence(cells);
        let mut a = vec![1.0_f32; cells * cells];
        let mut b = a.clone();
        Multigrid::new(cells).solve(&divergence, &mut a, 3);
        Multigrid::new(cells).solve(&divergence, &mut b, 3);
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
        for k in 0..cells {
            for at in [k, k * cells, k * cells + cells - 1, (cells - 1) * cells + k] {
                assert_eq!(a[at], 0.0, "border {at}");
            }
        }
    }
}
