//! The optional diffusion stages: `fluid.viscosity` (the air's velocity) and
//! `fluid.fog_diffusion` (the fog's density), each an implicit solve of
//! `x - α ∇²x = x₀` with `α = rate · dt / h²` (`rate` in world units² per second, `h` the cell
//! in world units), so it is stable for any rate and gives the same spread in world units on
//! any grid.
//!
//! The solve is red-black Gauss-Seidel, [`DIFFUSION_SWEEPS`] sweeps starting from `x₀`: a
//! half-sweep writes every cell of one colour from its neighbours of the other colour (read
//! from the previous buffer) and copies the rest, rows in parallel, then the buffers swap. Every
//! cell is computed by the same operations whatever thread runs its row, so the result does not
//! depend on the thread count. The grid's border and the solid cells keep their values; the air
//! sticks to solids (their velocity, 0, is a neighbour like any other), while no fog flows
//! into them (a solid neighbour is left out of the fog's sum).

use rayon::prelude::*;

use super::FluidSim;
use super::aligned::AlignedFloats;
use super::stages::flush;

/// Red-black sweeps per diffusion solve. With `α` up to about 1 (a viscosity of
/// `h² / dt` world units² per second) 20 sweeps leave less than 1% of the first step's error.
pub const DIFFUSION_SWEEPS: u32 = 20;

/// The scratch a diffusion solve needs: the right-hand side and the next iterate.
#[derive(Debug, Clone, Default)]
pub(super) struct DiffusionScratch {
    rhs: Vec<f32>,
    next: AlignedFloats,
}

/// How a solid neighbour counts in the sum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SolidNeighbour {
    /// Its value (the air's 0) is a neighbour like any other: no slip along solids.
    Value,
    /// It is left out: nothing flows into the solid.
    Closed,
}

impl DiffusionScratch {
    /// Solves `x - alpha ∇²x = x₀` for `field` (which holds `x₀` on entry and `x` on return).
    fn solve(
        &mut self,
        field: &mut AlignedFloats,
        solid: &[u8],
        cells: usize,
        alpha: f32,
        neighbour: SolidNeighbour,
        min_rows: usize,
    ) {
        self.rhs.clear();
        self.rhs.extend_from_slice(field);
        if self.next.len() != field.len() {
            self.next = AlignedFloats::zeros(field.len());
        }
        for _ in 0..DIFFUSION_SWEEPS {
            for colour in [0, 1] {
                let (input, rhs) = (&*field, &self.rhs);
                self.next
                    .par_chunks_mut(cells)
                    .enumerate()
                    .with_min_len(min_rows)
                    .for_each(|(y, out)| {
                        let row = y * cells;
                        out.copy_from_slice(&input[row..row + cells]);
                        if y == 0 || y == cells - 1 {
                            return;
                        }
                        let first = 1 + ((y + 1 + colour) & 1);
                        for x in (first..cells - 1).step_by(2) {
                            let i = row + x;
                            if solid[i] != 0 {
                                continue;
                            }
                            let around = [i - 1, i + 1, i - cells, i + cells];
                            let mut sum = 0.0_f32;
                            let mut count = 0.0_f32;
                            for j in around {
                                if neighbour == SolidNeighbour::Closed && solid[j] != 0 {
                                    continue;
                                }
                                sum += input[j];
                                count += 1.0;
                            }
                            out[x] = flush((rhs[i] + alpha * sum) / (1.0 + alpha * count));
                        }
                    });
                std::mem::swap(field, &mut self.next);
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
        let (cells, min_rows) = (self.mapping.cells, self.min_rows_per_task);
        let scratch = self.diffusion.get_or_insert_with(Default::default);
        for field in [&mut self.u, &mut self.v] {
            scratch.solve(
                field,
                &self.solid,
                cells,
                alpha,
                SolidNeighbour::Value,
                min_rows,
            );
        }
    }

    /// `fluid.fog_diffusion`: diffuses the fog's density (no flow into solids). Skipped at 0.
    pub(super) fn diffuse_fog(&mut self, dt_s: f32) {
        let alpha = self.diffusion_alpha(self.params.fog_diffusion, dt_s);
        if !(alpha > 0.0 && alpha.is_finite()) {
            return;
        }
        let (cells, min_rows) = (self.mapping.cells, self.min_rows_per_task);
        let scratch = self.diffusion.get_or_insert_with(Default::default);
        scratch.solve(
            &mut self.density,
            &self.solid,
            cells,
            alpha,
            SolidNeighbour::Closed,
            min_rows,
        );
    }
}
