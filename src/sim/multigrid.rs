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
//! grid).
//!
//! Every pass writes whole rows of one buffer from buffers it only reads (`rows.rs`), so the
//! rows can be shared among threads. A team of the pool's threads runs the cycles
//! (`banded.rs`): each member takes the same bands of rows of a level first in every pass, a
//! pass starts when the last is done, and levels too small to share run on one member. A
//! half-sweep writes another buffer (its colour relaxed, the other copied), and a whole sweep
//! is one pass, its second half a row behind its first; the prolongation first
//! interpolates each coarse row along x once, then adds two such rows to each fine row. Each
//! node is computed by the same operations in the same order as the solver's first,
//! one-thread form, so the result has its bits on any thread count and with any [`Lanes`]
//! (`tests.rs` keeps that form and compares).

mod banded;
mod rows;
#[cfg(test)]
mod tests;

use super::aligned::AlignedFloats;
use super::lanes::Lanes;
use super::team;
use rows::{Interpolation, Pairs};

/// Red-black sweeps before and after each coarse correction.
const SMOOTHING_SWEEPS: u32 = 2;
/// Red-black sweeps on the coarsest grid.
const COARSEST_SWEEPS: u32 = 16;
/// Coarsening stops at this many interior nodes per axis.
const COARSEST_NODES: usize = 3;

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
    /// The reciprocal of the uniform interior's diagonal, where a multiplication by it gives
    /// the division's bits (`rows::Weights::regular_inverse`).
    regular_inverse: Option<f32>,
    /// Per axis index of this level: how it takes the next coarser level's correction, and
    /// the same split by parity where it has the usual shape (`rows::Pairs`).
    from_coarse: Vec<Interpolation>,
    pairs: Option<Pairs>,
    /// The unknown (pressure on level 0, corrections below), the right-hand side and the
    /// residual, `side × side`; the buffer a sweep's first half-sweep writes, and the one its
    /// second writes on every other sweep.
    value: AlignedFloats,
    rhs: AlignedFloats,
    residual: AlignedFloats,
    next: AlignedFloats,
    spare: AlignedFloats,
    /// The next coarser level's rows interpolated along x to this level's nodes, one `side`
    /// long row per coarse row (sized with `from_coarse`).
    interpolated: AlignedFloats,
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
        let regular_inverse = regular_inverse(&weight_low, &weight_high, nodes);
        let zeros = AlignedFloats::zeros(side * side);
        Level {
            nodes,
            side,
            weight_low,
            weight_high,
            regular_inverse,
            from_coarse: Vec::new(),
            pairs: None,
            value: zeros.clone(),
            rhs: zeros.clone(),
            residual: zeros.clone(),
            next: zeros.clone(),
            spare: zeros,
            interpolated: AlignedFloats::default(),
        }
    }
}

/// The reciprocal of the diagonal `low + high + low + high` (summed in the half-sweep's order)
/// shared by the nodes `1..nodes` of an axis, where it is a power of two with a normal
/// reciprocal, so that multiplying by it gives the division's bits; else `None`.
fn regular_inverse(low: &[f32], high: &[f32], nodes: usize) -> Option<f32> {
    if nodes < 2 {
        return None;
    }
    let uniform = (1..nodes)
        .all(|i| low[i].to_bits() == low[1].to_bits() && high[i].to_bits() == high[1].to_bits());
    let diagonal = low[1] + high[1] + low[1] + high[1];
    let inverse = 1.0 / diagonal;
    let power_of_two = diagonal.is_normal() && diagonal.to_bits() & 0x007f_ffff == 0;
    (uniform && power_of_two && inverse.is_normal()).then_some(inverse)
}

/// The hierarchy for one grid size; level 0 is the fluid's grid.
#[derive(Debug, Clone)]
pub(super) struct Multigrid {
    levels: Vec<Level>,
    /// `0, 1, 0, 1, …`, one past the finest level's side: the half-sweeps' colour masks.
    alternating: Vec<u32>,
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
            fine.pairs = Pairs::new(&fine.from_coarse, coarse.side);
            fine.interpolated = AlignedFloats::zeros(coarse.side * fine.side);
            levels.push(coarse);
        }
        let alternating = (0..levels[0].side + 1).map(|k| (k % 2) as u32).collect();
        Multigrid {
            levels,
            alternating,
        }
    }

    /// Runs `cycles` V-cycles of `lap(p) = divergence` on `pressure` (both `cells × cells`,
    /// grid order), starting from the pressure given (the last step's: a warm start). The
    /// border of `pressure` is left at 0. `lanes` and `min_rows` change only the speed: a band
    /// of rows of any level holds about `min_rows` rows of the fluid's grid in cells.
    pub(super) fn solve(
        &mut self,
        divergence: &[f32],
        pressure: &mut [f32],
        cycles: u32,
        (lanes, min_rows): (Lanes, usize),
    ) {
        let fine = &mut self.levels[0];
        let fine_side = fine.side;
        fine.rhs.copy_from_slice(divergence);
        fine.value.copy_from_slice(pressure);
        clear_border(&mut fine.value, fine.side);
        clear_border(&mut fine.rhs, fine.side);
        let grids = banded::grids(&mut self.levels, min_rows.saturating_mul(fine_side));
        let alternating = &self.alternating;
        let bands = banded::most_bands(&grids);
        team::run(bands, |member| {
            for _ in 0..cycles {
                banded::v_cycle(&grids, 0, lanes, alternating, member);
            }
        });
        drop(grids);
        pressure.copy_from_slice(&self.levels[0].value);
    }

    /// Root mean square over the interior of `divergence - lap(p)` after the last solve, in
    /// `f64`, in a fixed order.
    pub(super) fn residual_rms(&mut self) -> f64 {
        let grids = banded::grids(&mut self.levels[..1], usize::MAX);
        banded::residual_rows(&grids[0], 1..grids[0].side - 1, Lanes::Plain);
        drop(grids);
        let fine = &self.levels[0];
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

/// Row `j` of a `side`-wide grid.
#[inline(always)]
fn row(field: &[f32], side: usize, j: usize) -> &[f32] {
    &field[j * side..][..side]
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
