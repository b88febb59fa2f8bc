//! The stages of one fluid step, each its own function, in the order [`FluidSim::step`] runs
//! them. Every stage writes whole rows of its outputs from buffers it only reads, so rows are
//! handed to rayon freely and the result does not depend on the thread count.

use rayon::prelude::*;

use super::FluidSim;
use super::PressureSolverKind;
use super::advect::{FinishRow, FogCarry, Packed, PairCarry};
use super::grid::pack_fields;
use super::lanes::Lanes;
use super::pressure::PressureSolver;
use super::stencil::{divergence_into, row, rows_beside};

/// Magnitudes below this become exactly 0 wherever a field is advected or solved for. It is far
/// below anything visible, and it keeps decaying fields out of the subnormal range, where the CPU
/// runs many times slower and `value * fade` stops shrinking (a faded blast would linger as
/// 1e-44 for ever).
pub(super) const NEGLIGIBLE: f32 = 1e-9;

/// `value`, or 0 when it is negligible.
#[inline(always)]
pub(super) fn flush(value: f32) -> f32 {
    if value.abs() < NEGLIGIBLE { 0.0 } else { value }
}

impl FluidSim {
    /// Semi-Lagrangian advection of the air by itself, losing a little speed each step (the
    /// air's inertia: it keeps moving after the ball stops and calms by itself).
    pub(super) fn advect_velocity_then_walls(&mut self, dt_s: f32) {
        let cells = self.mapping.cells;
        let keep = (-self.params.velocity_decay * dt_s).exp();
        let packed = packed_for_plain(
            [&self.u, &self.v],
            &mut self.packed_pair,
            cells,
            (self.lanes, self.min_rows_per_task),
        );
        let carry = PairCarry {
            dt_s,
            cells,
            vel_x: &self.u,
            vel_y: &self.v,
            fields: [&self.u, &self.v],
            packed,
        };
        let lanes = self.lanes;
        self.u_next
            .par_chunks_mut(cells)
            .zip(self.v_next.par_chunks_mut(cells))
            .zip(self.solid.par_chunks(cells))
            .enumerate()
            .with_min_len(self.min_rows_per_task)
            .for_each(|(y, ((u_out, v_out), solid_row))| {
                let finish = KeepThenWalls { keep, y, solid_row };
                carry.row(lanes, y, (u_out, v_out), &finish);
            });
        std::mem::swap(&mut self.u, &mut self.u_next);
        std::mem::swap(&mut self.v, &mut self.v_next);
    }

    /// Pressure projection: removes the divergent part of the air so it does not compress and
    /// flows round the ball and the solids. Pressure is held at 0 on the grid's border and
    /// warm-started from the last step; `fluid.solver` solves for it with `iterations` red-black
    /// sweeps (`pressure.rs`: Gauss-Seidel or over-relaxed) or as many multigrid V-cycles
    /// (`multigrid.rs`), and its gradient is taken off the air, walls applied on the way.
    pub(super) fn project_then_walls(
        &mut self,
        iterations: u32,
        after_part: &mut dyn FnMut(&'static str),
    ) {
        let cells = self.mapping.cells;
        let min_rows = self.min_rows_per_task;
        match (self.params.solver, self.multigrid.as_deref_mut()) {
            (PressureSolverKind::Multigrid, Some(multigrid)) => {
                // The multigrid reads the divergence in grid order (`curl` is free scratch here).
                divergence_into(&mut self.curl, &self.u, &self.v, cells, min_rows);
                after_part("project: divergence");
                multigrid.solve(
                    &self.curl,
                    &mut self.pressure,
                    iterations,
                    (self.lanes, min_rows),
                );
                after_part("project: multigrid");
            }
            (solver, _) => {
                self.solver
                    .load_divergence(&self.u, &self.v, (self.lanes, min_rows));
                after_part("project: divergence");
                if solver == PressureSolverKind::Sor {
                    let omega = self.params.sor_omega;
                    self.solver
                        .iterate_over_relaxed(iterations, omega, (self.lanes, min_rows));
                } else {
                    self.solver.iterate(iterations, (self.lanes, min_rows));
                }
                after_part("project: iterations");
                // Grid order back and the gradient off the air in one pass (`ProjectRow`).
                let (solver, lanes) = (&self.solver, self.lanes);
                self.pressure
                    .par_chunks_mut(cells)
                    .zip(self.u.par_chunks_mut(cells))
                    .zip(self.v.par_chunks_mut(cells))
                    .zip(self.solid.par_chunks(cells))
                    .enumerate()
                    .with_min_len(min_rows)
                    .for_each_init(
                        || vec![0.0f32; 2 * cells],
                        |beside, (y, (((here, u_row), v_row), solid_row))| {
                            let row = ProjectRow {
                                y,
                                here,
                                beside,
                                u_row,
                                v_row,
                                solid_row,
                            };
                            match lanes {
                                Lanes::Plain => row.run(solver),
                                // SAFETY: `Lanes::Avx2` is only chosen where the CPU has AVX2.
                                #[cfg(target_arch = "x86_64")]
                                Lanes::Avx2 | Lanes::Avx512 => unsafe { row.run_avx2(solver) },
                            }
                        },
                    );
                after_part("project: store + gradient + walls");
                return;
            }
        }

        let pressure = &self.pressure;
        self.u
            .par_chunks_mut(cells)
            .zip(self.v.par_chunks_mut(cells))
            .zip(self.solid.par_chunks(cells))
            .enumerate()
            .with_min_len(min_rows)
            .for_each(|(y, ((u_row, v_row), solid_row))| {
                if y > 0 && y < cells - 1 {
                    let here = row(pressure, cells, y);
                    let beside = rows_beside(pressure, cells, y);
                    subtract_gradient_row(here, beside, u_row, v_row);
                }
                walls_row(y, cells, u_row, v_row, solid_row);
            });
    }

    /// Everything the fog is, carried by the ordinary air plus the shock wave: density (emptied
    /// where the blow opens the air, piled where it closes, then drifting back to 1 — piles
    /// spill faster than holes refill — or, with `fluid.fog: Sources`, fading by
    /// `exp(-fade · dt)` while the sources add `rate · (1 - exp(-fade · dt)) / fade`), the drift offsets (relaxing toward
    /// 0, clamped), and the lift (settling). `shock_active`: whether the shock may be anything
    /// but zeros (what [`FluidSim::advect_shock`] returned); rows with no shock near them
    /// (`FluidSim::shock_rows`), or all of them where it is not, are carried by the air
    /// alone, to the same bits (`advect::FogCarry::shock_rows`).
    pub(super) fn carry_fog(&mut self, dt_s: f32, shock_active: bool) {
        let cells = self.mapping.cells;
        let params = &self.params;
        let refill = 1.0 - (-params.refill * dt_s).exp();
        let spill = 1.0 - (-params.spill * dt_s).exp();
        let relax = (-params.relax * dt_s).exp();
        let settle = (-params.settle * dt_s).exp();
        // `fluid.fog: Sources`: the per-cell rates and the share of fog a step keeps.
        // Over a step the exact solution of `d' = rate - fade · d` is
        // `d · keep + rate · (1 - keep) / fade` (`rate · dt` with no fade), so still air settles
        // at exactly `rate / fade`, the level the fog starts at.
        let sources = self.fog_sources.as_ref().map(|(rates, fade_per_s)| {
            let keep = (-fade_per_s * dt_s).exp();
            let gain_s = if *fade_per_s > 0.0 {
                (1.0 - keep) / fade_per_s
            } else {
                dt_s
            };
            (rates.as_slice(), keep, gain_s)
        });

        let fields = [&self.density, &self.off_x, &self.off_z, &self.lift].map(|field| &field[..]);
        let packed = packed_for_plain(
            fields,
            &mut self.packed_fog,
            cells,
            (self.lanes, self.min_rows_per_task),
        );
        let carry = FogCarry {
            dt_s,
            cells,
            air: [&self.u, &self.v, &self.su, &self.sv],
            fields,
            packed,
            continuity_dt: params.continuity * dt_s,
            max_density: params.max_density,
            refill,
            spill,
            relax,
            settle,
            drift_limit: params.drift_limit,
            cell_world: self.mapping.cell_size_world(),
            sources,
            shock_rows: shock_active.then_some(&self.shock_rows),
        };
        let lanes = self.lanes;
        self.density_next
            .par_chunks_mut(cells)
            .zip(self.off_x_next.par_chunks_mut(cells))
            .zip(self.off_z_next.par_chunks_mut(cells))
            .zip(self.lift_next.par_chunks_mut(cells))
            .enumerate()
            .with_min_len(self.min_rows_per_task)
            .for_each(|(y, (((density, off_x), off_z), lift))| {
                carry.row(lanes, y, [density, off_x, off_z, lift]);
            });
        std::mem::swap(&mut self.density, &mut self.density_next);
        std::mem::swap(&mut self.off_x, &mut self.off_x_next);
        std::mem::swap(&mut self.off_z, &mut self.off_z_next);
        std::mem::swap(&mut self.lift, &mut self.lift_next);
    }
}

/// The air's row after its advection: the speed it keeps (`keep`, flushed), then the walls on
/// row `y`.
struct KeepThenWalls<'a> {
    keep: f32,
    y: usize,
    solid_row: &'a [u8],
}

impl FinishRow for KeepThenWalls<'_> {
    #[inline(always)]
    fn finish(&self, u_out: &mut [f32], v_out: &mut [f32]) {
        // Copied out, so the loops keep the factor in a register.
        let keep = self.keep;
        // One loop per field: a chained iterator does not vectorise.
        for out in [&mut *u_out, &mut *v_out] {
            for value in out.iter_mut() {
                *value = flush(*value * keep);
            }
        }
        walls_row(self.y, u_out.len(), u_out, v_out, self.solid_row);
    }
}

/// `fields` packed per cell into `scratch` for the plain read (`grid::pack_fields`); `None`
/// where the AVX2 read runs, which reads the fields where they lie (`advect::near`).
pub(super) fn packed_for_plain<'a, const N: usize>(
    fields: [&[f32]; N],
    scratch: &'a mut Vec<[f32; N]>,
    cells: usize,
    (lanes, min_rows): (Lanes, usize),
) -> Option<Packed<'a, N>> {
    if lanes != Lanes::Plain {
        return None;
    }
    pack_fields(scratch, fields, cells, (lanes, min_rows));
    Some(Packed::new(scratch, cells))
}

/// One row of the projection's last pass: row `y` of the pressure in grid order (`here`), its
/// gradient taken off the air's row, the walls applied. `beside` is scratch for the rows
/// `y - 1` and `y + 1` (`2 * cells`).
struct ProjectRow<'a> {
    y: usize,
    here: &'a mut [f32],
    beside: &'a mut [f32],
    u_row: &'a mut [f32],
    v_row: &'a mut [f32],
    solid_row: &'a [u8],
}

impl ProjectRow<'_> {
    /// The pressure goes back to grid order and its gradient comes off the air in one pass:
    /// row `y` is stored while rows `y - 1` and `y + 1` are taken from the solver's colours, so
    /// the grid is read once.
    #[inline(always)]
    fn run(self, solver: &PressureSolver) {
        let (y, cells) = (self.y, self.here.len());
        solver.grid_row(y, self.here);
        if y > 0 && y < cells - 1 {
            let (below, above) = self.beside.split_at_mut(cells);
            solver.grid_row(y - 1, below);
            solver.grid_row(y + 1, above);
            subtract_gradient_row(self.here, (below, above), self.u_row, self.v_row);
        }
        walls_row(y, cells, self.u_row, self.v_row, self.solid_row);
    }

    /// [`ProjectRow::run`] compiled for AVX2: the same operations on each cell, so the same
    /// bits.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn run_avx2(self, solver: &PressureSolver) {
        self.run(solver);
    }
}

/// Takes the pressure's gradient off an interior row of the air: `here` is the pressure along
/// the row, `(below, above)` along the rows before and after it (all `cells` long).
#[inline(always)]
fn subtract_gradient_row(
    here: &[f32],
    (below, above): (&[f32], &[f32]),
    u_row: &mut [f32],
    v_row: &mut [f32],
) {
    let cells = here.len();
    // Equal-length slices: no bounds checks, and the loop vectorises.
    let inner = 1..cells - 1;
    let (left, right) = (&here[..cells - 2], &here[2..]);
    let (below, above) = (&below[inner.clone()], &above[inner.clone()]);
    let (u_inner, v_inner) = (&mut u_row[inner.clone()], &mut v_row[inner]);
    for k in 0..cells - 2 {
        u_inner[k] -= (right[k] - left[k]) * 0.5;
        v_inner[k] -= (above[k] - below[k]) * 0.5;
    }
}

/// Walls on row `y` of the air: no air inside solids, and no air through the grid's edges (zero
/// normal velocity on the left and right columns for `u`, on the bottom and top rows for `v`).
/// It reads nothing but the row, so the stages that end by writing a row apply it there.
#[inline(always)]
pub(super) fn walls_row(
    y: usize,
    cells: usize,
    u_row: &mut [f32],
    v_row: &mut [f32],
    solid_row: &[u8],
) {
    // 32 cells at a time, skipped where none is solid (most): a select of the old value on
    // every cell compiles to masked stores, which are many times slower.
    const CHUNK: usize = 32;
    let chunks = u_row
        .chunks_mut(CHUNK)
        .zip(v_row.chunks_mut(CHUNK))
        .zip(solid_row.chunks(CHUNK));
    for ((u_chunk, v_chunk), solid_chunk) in chunks {
        // A whole chunk is tested as four 8-byte words.
        let any_solid = match <&[u8; CHUNK]>::try_from(solid_chunk) {
            Ok(bytes) => {
                let word = |k: usize| {
                    let mut word = [0u8; 8];
                    word.copy_from_slice(&bytes[8 * k..8 * k + 8]);
                    u64::from_ne_bytes(word)
                };
                (word(0) | word(1) | word(2) | word(3)) != 0
            }
            Err(_) => solid_chunk.iter().any(|&solid| solid != 0),
        };
        if !any_solid {
            continue;
        }
        for ((u, v), &solid) in u_chunk.iter_mut().zip(v_chunk.iter_mut()).zip(solid_chunk) {
            if solid != 0 {
                *u = 0.0;
                *v = 0.0;
            }
        }
    }
    u_row[0] = 0.0;
    u_row[cells - 1] = 0.0;
    if y == 0 || y == cells - 1 {
        v_row.fill(0.0);
    }
}
