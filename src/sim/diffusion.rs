//! The optional diffusion stages: `fluid.viscosity` (the air's velocity) and
//! `fluid.fog_diffusion` (the fog's density), each an implicit solve of
//! `x - α ∇²x = x₀` with `α = rate · dt / h²` (`rate` in world units² per second, `h` the cell
//! in world units), so it is stable for any rate and gives the same spread in world units on
//! any grid.
//!
//! The solve is red-black Gauss-Seidel, [`DIFFUSION_SWEEPS`] sweeps starting from `x₀`: a
//! half-sweep writes every cell of one colour from its neighbours of the other colour (read
//! from the previous buffer) and copies the rest, rows in parallel, then the buffers swap. A row
//! is computed in whole vectors for both colours with the CPU's widest instructions (`Lanes`),
//! and each cell keeps the new value only where it is of the colour and open; the velocity's
//! two components run in the same passes. Every cell is computed by the same operations in the
//! same order as the first, cell-by-cell form (the tests keep it and compare), whatever thread
//! runs its row, so the result does not depend on the thread count. The grid's border and the
//! solid cells keep their values; the air sticks to solids (their velocity, 0, is a neighbour
//! like any other), while no fog flows into them (a solid neighbour is left out of the fog's
//! sum).

use rayon::prelude::*;

use super::FluidSim;
use super::aligned::AlignedFloats;
use super::lanes::{Lanes, run_with_lanes};
use super::stages::flush;

/// Red-black sweeps per diffusion solve. With `α` up to about 1 (a viscosity of
/// `h² / dt` world units² per second) 20 sweeps leave less than 1% of the first step's error.
pub const DIFFUSION_SWEEPS: u32 = 20;

/// The scratch a diffusion solve needs: per field solved at once, the right-hand side and the
/// next iterate.
#[derive(Debug, Clone, Default)]
pub(super) struct DiffusionScratch {
    rhs: Vec<AlignedFloats>,
    next: Vec<AlignedFloats>,
}

/// How a solid neighbour counts in the sum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SolidNeighbour {
    /// Its value (the air's 0) is a neighbour like any other: no slip along solids.
    Value,
    /// It is left out: nothing flows into the solid.
    Closed,
}

/// One row `y` of a half-sweep for one field: `out` is row `y` of the next iterate, `input` and
/// `rhs` the whole fields, `solid` the grid's solids. Every interior node is computed in whole
/// vectors; the nodes with `x % 2 == parity` that are not solid take the new value, the rest
/// keep their input.
struct DiffuseRow<'a> {
    out: &'a mut [f32],
    input: &'a [f32],
    rhs: &'a [f32],
    solid: &'a [u8],
    y: usize,
    alpha: f32,
    parity: usize,
    neighbour: SolidNeighbour,
}

run_with_lanes!(DiffuseRow);

impl DiffuseRow<'_> {
    #[inline(always)]
    fn run(self) {
        let cells = self.out.len();
        let (y, alpha, inner) = (self.y, self.alpha, cells - 2);
        fn at<T>(field: &[T], start: usize, inner: usize) -> &[T] {
            &field[start..][..inner]
        }
        let (input, solid) = (self.input, self.solid);
        let at = |field, row: usize, from: usize| at(field, row * cells + from, inner);
        let solid_at = |row: usize, from: usize| &solid[row * cells + from..][..inner];
        // Node `1 + k` of the row and its neighbours, in the order they are summed.
        let (here, rhs) = (at(input, y, 1), at(self.rhs, y, 1));
        let around = [
            at(input, y, 0),
            at(input, y, 2),
            at(input, y - 1, 1),
            at(input, y + 1, 1),
        ];
        let solid_around = [
            solid_at(y, 0),
            solid_at(y, 2),
            solid_at(y - 1, 1),
            solid_at(y + 1, 1),
        ];
        let solid_here = solid_at(y, 1);
        let out = &mut self.out[1..=inner];
        let keep_odd_k = self.parity == 0;
        let [left, right, below, above] = around;
        // Node `1 + k` takes the relaxed value where `(1 + k) % 2 == parity` and it is open.
        let mine = |k: usize| (((k & 1) == 1) == keep_odd_k) & (solid_here[k] == 0);
        match self.neighbour {
            SolidNeighbour::Value => {
                let denominator = 1.0 + alpha * 4.0;
                for k in 0..inner {
                    // `0.0 + left` as the sum starts: it turns a -0.0 into +0.0.
                    let sum = 0.0 + left[k] + right[k] + below[k] + above[k];
                    let relaxed = flush((rhs[k] + alpha * sum) / denominator);
                    out[k] = if mine(k) { relaxed } else { here[k] };
                }
            }
            SolidNeighbour::Closed => {
                let [solid_left, solid_right, solid_below, solid_above] = solid_around;
                // A neighbour left out adds +0.0, which leaves the sum as skipping it does:
                // the sum starts at +0.0 and so is never -0.0, the one value adding +0.0
                // changes. The count adds 1 per open neighbour, exactly.
                let term = |value: f32, solid: u8| if solid == 0 { value } else { 0.0 };
                let one = |solid: u8| if solid == 0 { 1.0_f32 } else { 0.0 };
                for k in 0..inner {
                    let sum = 0.0
                        + term(left[k], solid_left[k])
                        + term(right[k], solid_right[k])
                        + term(below[k], solid_below[k])
                        + term(above[k], solid_above[k]);
                    let count = 0.0
                        + one(solid_left[k])
                        + one(solid_right[k])
                        + one(solid_below[k])
                        + one(solid_above[k]);
                    let relaxed = flush((rhs[k] + alpha * sum) / (1.0 + alpha * count));
                    out[k] = if mine(k) { relaxed } else { here[k] };
                }
            }
        }
    }
}

impl DiffusionScratch {
    /// Solves `x - alpha ∇²x = x₀` for each of `fields` (each holds `x₀` on entry and `x` on
    /// return), all of them in the same passes.
    fn solve(
        &mut self,
        fields: &mut [&mut AlignedFloats],
        solid: &[u8],
        cells: usize,
        alpha: f32,
        neighbour: SolidNeighbour,
        (lanes, min_rows): (Lanes, usize),
    ) {
        let count = fields.len();
        self.rhs.resize_with(count, AlignedFloats::default);
        self.next.resize_with(count, AlignedFloats::default);
        for ((field, rhs), next) in fields.iter().zip(&mut self.rhs).zip(&mut self.next) {
            if rhs.len() != field.len() {
                *rhs = AlignedFloats::zeros(field.len());
            }
            rhs.copy_from_slice(field);
            if next.len() != field.len() {
                *next = AlignedFloats::zeros(field.len());
            }
        }
        for _ in 0..DIFFUSION_SWEEPS {
            for colour in [0, 1] {
                let row = |field: usize, y: usize, out: &mut [f32]| {
                    let input: &[f32] = fields[field];
                    if y == 0 || y == cells - 1 {
                        out.copy_from_slice(&input[y * cells..][..cells]);
                        return;
                    }
                    // The edge columns are not interior: they keep their input.
                    out[0] = input[y * cells];
                    out[cells - 1] = input[y * cells + cells - 1];
                    DiffuseRow {
                        out,
                        input,
                        rhs: &self.rhs[field],
                        solid,
                        y,
                        alpha,
                        parity: (colour + y) & 1,
                        neighbour,
                    }
                    .run_with(lanes);
                };
                match &mut self.next[..] {
                    [next] => next
                        .par_chunks_mut(cells)
                        .enumerate()
                        .with_min_len(min_rows)
                        .for_each(|(y, out)| row(0, y, out)),
                    [first, second] => first
                        .par_chunks_mut(cells)
                        .zip(second.par_chunks_mut(cells))
                        .enumerate()
                        .with_min_len(min_rows)
                        .for_each(|(y, (out_first, out_second))| {
                            row(0, y, out_first);
                            row(1, y, out_second);
                        }),
                    _ => unreachable!("one or two fields"),
                }
                for (field, next) in fields.iter_mut().zip(&mut self.next) {
                    std::mem::swap(*field, next);
                }
            }
        }
    }
}

impl FluidSim {
    /// `alpha` of a diffusion at `rate_world2_per_s` over `dt_s`, in cells: `rate · dt / h²`.
    fn diffusion_alpha(&self, rate_world2_per_s: f32, dt_s: f32) -> f32 {
        let cell_world = self.mapping.cell_size_world();
        rate_world2_per_s * dt_s / (cell_world * cell_world)
    }

    /// `fluid.viscosity`: diffuses the air's velocity (no slip along solids). Skipped at 0.
    pub(super) fn diffuse_velocity(&mut self, dt_s: f32) {
        let alpha = self.diffusion_alpha(self.params.viscosity, dt_s);
        if !(alpha > 0.0 && alpha.is_finite()) {
            return;
        }
        let (cells, run) = (self.mapping.cells, (self.lanes, self.min_rows_per_task));
        let scratch = self.diffusion.get_or_insert_with(Default::default);
        // Both components in the same passes: each is solved on its own, as if alone.
        scratch.solve(
            &mut [&mut self.u, &mut self.v],
            &self.solid,
            cells,
            alpha,
            SolidNeighbour::Value,
            run,
        );
    }

    /// `fluid.fog_diffusion`: diffuses the fog's density (no flow into solids). Skipped at 0.
    pub(super) fn diffuse_fog(&mut self, dt_s: f32) {
        let alpha = self.diffusion_alpha(self.params.fog_diffusion, dt_s);
        if !(alpha > 0.0 && alpha.is_finite()) {
            return;
        }
        let (cells, run) = (self.mapping.cells, (self.lanes, self.min_rows_per_task));
        let scratch = self.diffusion.get_or_insert_with(Default::default);
        scratch.solve(
            &mut [&mut self.density],
            &self.solid,
            cells,
            alpha,
            SolidNeighbour::Closed,
            run,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The solve as first written: a half-sweep copies the input and relaxes the nodes of one
    /// colour one by one, skipping solids and, when closed, solid neighbours.
    fn first_form(
        field: &mut Vec<f32>,
        solid: &[u8],
        cells: usize,
        alpha: f32,
        neighbour: SolidNeighbour,
    ) {
        let rhs = field.clone();
        let mut next = field.clone();
        for _ in 0..DIFFUSION_SWEEPS {
            for colour in [0, 1] {
                next.copy_from_slice(field);
                for y in 1..cells - 1 {
                    let first = 1 + ((y + 1 + colour) & 1);
                    for x in (first..cells - 1).step_by(2) {
                        let i = y * cells + x;
                        if solid[i] != 0 {
                            continue;
                        }
                        let (mut sum, mut count) = (0.0_f32, 0.0_f32);
                        for j in [i - 1, i + 1, i - cells, i + cells] {
                            if neighbour == SolidNeighbour::Closed && solid[j] != 0 {
                                continue;
                            }
                            sum += field[j];
                            count += 1.0;
                        }
                        next[i] = flush((rhs[i] + alpha * sum) / (1.0 + alpha * count));
                    }
                }
                std::mem::swap(field, &mut next);
            }
        }
    }

    #[test]
    fn the_row_kernel_gives_the_first_form_s_bits_on_any_split_and_lanes() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .expect("a pool");
        for cells in [5, 37, 70] {
            let count = cells * cells;
            // Solids in scattered cells and a block; values of both signs, zeros of both
            // signs and tiny ones, so every branch of the first form runs.
            let solid: Vec<u8> = (0..count)
                .map(|k| u8::from(k % 11 == 3 || (k / cells) % 9 == 4 && k % cells < 6))
                .collect();
            let start = |seed: usize| -> Vec<f32> {
                (0..count)
                    .map(|k| match (k * 7 + seed) % 17 {
                        0 => -0.0,
                        1 => 0.0,
                        2 => 3e-10,
                        n => (n as f32 - 8.0) * 0.37,
                    })
                    .collect()
            };
            for neighbour in [SolidNeighbour::Value, SolidNeighbour::Closed] {
                let mut expected = [start(0), start(5)];
                for field in &mut expected {
                    first_form(field, &solid, cells, 0.8, neighbour);
                }
                for lanes in Lanes::available() {
                    for min_rows in [1, 4, usize::MAX] {
                        let mut scratch = DiffusionScratch::default();
                        let mut first = AlignedFloats::from_slice(&start(0));
                        let mut second = AlignedFloats::from_slice(&start(5));
                        pool.install(|| {
                            scratch.solve(
                                &mut [&mut first, &mut second],
                                &solid,
                                cells,
                                0.8,
                                neighbour,
                                (lanes, min_rows),
                            );
                        });
                        for (got, expected) in [&first[..], &second[..]].iter().zip(&expected) {
                            let same = got
                                .iter()
                                .zip(expected)
                                .all(|(a, b)| a.to_bits() == b.to_bits());
                            assert!(same, "{cells}, {neighbour:?}, {lanes:?}, {min_rows}");
                        }
                        // One field alone gives the bits it gives beside another.
                        let mut alone = AlignedFloats::from_slice(&start(0));
                        pool.install(|| {
                            scratch.solve(
                                &mut [&mut alone],
                                &solid,
                                cells,
                                0.8,
                                neighbour,
                                (lanes, min_rows),
                            );
                        });
                        assert!(
                            alone
                                .iter()
                                .zip(&first[..])
                                .all(|(a, b)| a.to_bits() == b.to_bits())
                        );
                    }
                }
            }
        }
    }
}
