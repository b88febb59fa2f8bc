//! The stages of one fluid step, each its own function, in the order [`FluidSim::step`] runs
//! them. Every stage writes whole rows of its outputs from buffers it only reads, so rows are
//! handed to rayon freely and the result does not depend on the thread count.

use rayon::prelude::*;

use super::FluidSim;
use super::PressureSolverKind;
use super::grid::{BilinearRun, RUN, hold, pack_fields};
use super::stencil::{curl_into, divergence_at, divergence_into, row, rows_beside};

/// Largest `|exponent|` of the continuity factor: beyond it the fog is already fully emptied or
/// capped, and clamping keeps `0 * inf` (NaN) out of the density under violent blasts.
const CONTINUITY_EXPONENT_LIMIT: f32 = 30.0;

/// Magnitudes below this become exactly 0 wherever a field is advected or solved for. It is far
/// below anything visible, and it keeps decaying fields out of the subnormal range, where the CPU
/// runs many times slower and `value * fade` stops shrinking (a faded blast would linger as
/// 1e-44 for ever).
const NEGLIGIBLE: f32 = 1e-9;

/// Traces cells of one row back along a velocity, a run of [`RUN`] cells at a time.
struct RowTrace {
    y: f32,
    xs: [f32; RUN],
    ys: [f32; RUN],
    run: BilinearRun,
}

impl RowTrace {
    fn new(cells: usize, y: usize) -> Self {
        Self {
            y: y as f32,
            xs: [0.0; RUN],
            ys: [0.0; RUN],
            run: BilinearRun::new(cells),
        }
    }

    /// Places the run of cells from column `start` at `(x - vel_x * dt_s, y - vel_y * dt_s)`,
    /// with `vel_x`, `vel_y` the row's velocities (from column 0); returns the run's length.
    #[inline(always)]
    fn trace(&mut self, start: usize, vel_x: &[f32], vel_y: &[f32], dt_s: f32) -> usize {
        let len = RUN.min(self.run_cells() - start);
        let (vel_x, vel_y) = (&vel_x[start..][..len], &vel_y[start..][..len]);
        for k in 0..len {
            // `as i32`: the same value as from usize, and a conversion that vectorises.
            self.xs[k] = (start + k) as i32 as f32 - vel_x[k] * dt_s;
            self.ys[k] = self.y - vel_y[k] * dt_s;
        }
        self.run.place(&self.xs, &self.ys);
        len
    }

    fn run_cells(&self) -> usize {
        self.run.cells()
    }
}

/// `value`, or 0 when it is negligible.
#[inline(always)]
pub(super) fn flush(value: f32) -> f32 {
    if value.abs() < NEGLIGIBLE { 0.0 } else { value }
}

impl FluidSim {
    /// Vorticity confinement: measures the curl, then pushes the air along the curl's gradient
    /// so small swirls survive the grid's numerical smoothing. The push fades out below
    /// `vorticity_threshold` (smoothstep from the threshold to twice it), so weak grid-scale
    /// noise is not amplified and the air calms once the ball's swirls have died down.
    pub(super) fn confine_vortices_then_walls(&mut self, dt_s: f32) {
        let cells = self.mapping.cells;
        let min_rows = self.min_rows_per_task;
        let strength = self.params.vorticity * dt_s;
        let threshold = self.params.vorticity_threshold;

        curl_into(&mut self.curl, &self.u, &self.v, cells, min_rows);

        let curl = &self.curl;
        self.u
            .par_chunks_mut(cells)
            .zip(self.v.par_chunks_mut(cells))
            .zip(self.solid.par_chunks(cells))
            .enumerate()
            .with_min_len(min_rows)
            .for_each(|(y, ((u_row, v_row), solid_row))| {
                if y >= 2 && y + 2 < cells {
                    let here = row(curl, cells, y);
                    let (below, above) = rows_beside(curl, cells, y);
                    for x in 2..cells - 2 {
                        let grad_x = (here[x + 1].abs() - here[x - 1].abs()) * 0.5;
                        let grad_y = (above[x].abs() - below[x].abs()) * 0.5;
                        let length = (grad_x * grad_x + grad_y * grad_y).sqrt() + 1e-5;
                        let swirl =
                            here[x] * strength * confinement_weight(here[x].abs(), threshold);
                        u_row[x] += (grad_y / length) * swirl;
                        v_row[x] -= (grad_x / length) * swirl;
                    }
                }
                walls_row(y, cells, u_row, v_row, solid_row);
            });
    }

    /// Semi-Lagrangian advection of the air by itself, losing a little speed each step (the
    /// air's inertia: it keeps moving after the ball stops and calms by itself).
    pub(super) fn advect_velocity_then_walls(&mut self, dt_s: f32) {
        let cells = self.mapping.cells;
        let keep = (-self.params.velocity_decay * dt_s).exp();
        pack_fields(
            &mut self.packed_pair,
            [&self.u, &self.v],
            cells,
            self.min_rows_per_task,
        );
        let (u, v, packed) = (&self.u, &self.v, &self.packed_pair);
        self.u_next
            .par_chunks_mut(cells)
            .zip(self.v_next.par_chunks_mut(cells))
            .zip(self.solid.par_chunks(cells))
            .enumerate()
            .with_min_len(self.min_rows_per_task)
            .for_each(|(y, ((u_out, v_out), solid_row))| {
                let row = &mut RowTrace::new(cells, y);
                let pairs = &mut [[0.0f32; 2]; RUN];
                for start in (0..cells).step_by(RUN) {
                    let len = row.trace(start, &u[y * cells..], &v[y * cells..], dt_s);
                    row.run.read_packed_into(packed, &mut pairs[..len]);
                    let (u_out, v_out) = (&mut u_out[start..][..len], &mut v_out[start..][..len]);
                    unpack_pairs(&pairs[..len], u_out, v_out);
                    for value in u_out.iter_mut().chain(v_out.iter_mut()) {
                        *value = flush(*value * keep);
                    }
                }
                walls_row(y, cells, u_out, v_out, solid_row);
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
                multigrid.solve(&self.curl, &mut self.pressure, iterations);
                after_part("project: multigrid");
            }
            (solver, _) => {
                self.solver.load_divergence(&self.u, &self.v, min_rows);
                after_part("project: divergence");
                if solver == PressureSolverKind::Sor {
                    let omega = self.params.sor_omega;
                    self.solver
                        .iterate_over_relaxed(iterations, omega, min_rows);
                } else {
                    self.solver.iterate(iterations, min_rows);
                }
                after_part("project: iterations");
                self.solver.store_pressure(&mut self.pressure, min_rows);
                after_part("project: store");
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
                    let (below, above) = rows_beside(pressure, cells, y);
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
                walls_row(y, cells, u_row, v_row, solid_row);
            });
    }

    /// The shock wave travels outward with itself and fades; it never enters solids.
    pub(super) fn advect_shock(&mut self, dt_s: f32) {
        // Between blasts the shock is exactly zero (see `NEGLIGIBLE`), and advecting zeros gives
        // zeros: skipping is exact.
        let active = |field: &[f32]| field.iter().any(|&value| value != 0.0);
        if !active(&self.su) && !active(&self.sv) {
            return;
        }
        let cells = self.mapping.cells;
        let fade = (-self.params.shock_fade * dt_s).exp();
        pack_fields(
            &mut self.packed_pair,
            [&self.su, &self.sv],
            cells,
            self.min_rows_per_task,
        );
        let (su, sv, solid, packed) = (&self.su, &self.sv, &self.solid, &self.packed_pair);
        self.su_next
            .par_chunks_mut(cells)
            .zip(self.sv_next.par_chunks_mut(cells))
            .enumerate()
            .with_min_len(self.min_rows_per_task)
            .for_each(|(y, (su_out, sv_out))| {
                let trace = &mut RowTrace::new(cells, y);
                let row = y * cells;
                let solid_row = &solid[row..row + cells];
                let pairs = &mut [[0.0f32; 2]; RUN];
                for start in (0..cells).step_by(RUN) {
                    let len = trace.trace(start, &su[row..], &sv[row..], dt_s);
                    let solid_run = &solid_row[start..][..len];
                    let (su_out, sv_out) =
                        (&mut su_out[start..][..len], &mut sv_out[start..][..len]);
                    // Solid cells read a harmless in-range position, then become 0.
                    trace.run.read_packed_into(packed, &mut pairs[..len]);
                    unpack_pairs(&pairs[..len], su_out, sv_out);
                    for out in [su_out, sv_out] {
                        for (value, &solid) in out.iter_mut().zip(solid_run) {
                            *value = if solid != 0 {
                                0.0
                            } else {
                                flush(*value * fade)
                            };
                        }
                    }
                }
            });
        std::mem::swap(&mut self.su, &mut self.su_next);
        std::mem::swap(&mut self.sv, &mut self.sv_next);
    }

    /// Everything the fog is, carried by the ordinary air plus the shock wave: density (emptied
    /// where the blow opens the air, piled where it closes, then drifting back to 1 — piles
    /// spill faster than holes refill — or, with `fluid.fog: Sources`, fading by
    /// `exp(-fade · dt)` while the sources add `rate · (1 - exp(-fade · dt)) / fade`), the drift offsets (relaxing toward
    /// 0, clamped), and the lift (settling).
    pub(super) fn carry_fog(&mut self, dt_s: f32) {
        let cells = self.mapping.cells;
        let params = &self.params;
        let refill = 1.0 - (-params.refill * dt_s).exp();
        let spill = 1.0 - (-params.spill * dt_s).exp();
        let relax = (-params.relax * dt_s).exp();
        let settle = (-params.settle * dt_s).exp();
        let continuity_dt = params.continuity * dt_s;
        let max_density = params.max_density;
        let drift_limit = params.drift_limit;
        let cell_world = self.mapping.cell_size_world();
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

        pack_fields(
            &mut self.packed_fog,
            [&self.density, &self.off_x, &self.off_z, &self.lift],
            cells,
            self.min_rows_per_task,
        );
        let (u, v, su, sv) = (&self.u, &self.v, &self.su, &self.sv);
        let packed = &self.packed_fog;
        self.density_next
            .par_chunks_mut(cells)
            .zip(self.off_x_next.par_chunks_mut(cells))
            .zip(self.off_z_next.par_chunks_mut(cells))
            .zip(self.lift_next.par_chunks_mut(cells))
            .enumerate()
            .with_min_len(self.min_rows_per_task)
            .for_each(|(y, (((density_out, off_x_out), off_z_out), lift_out))| {
                let row = y * cells;
                let inner_row = y > 0 && y < cells - 1;
                let (u_row, v_row) = (&u[row..row + cells], &v[row..row + cells]);
                let (su_row, sv_row) = (&su[row..row + cells], &sv[row..row + cells]);
                // The shock's neighbours above and below (this row again on the border rows,
                // where they are not read).
                let (sv_below, sv_above) = if inner_row {
                    (&sv[row - cells..row], &sv[row + cells..row + 2 * cells])
                } else {
                    (sv_row, sv_row)
                };
                let run = &mut BilinearRun::new(cells);
                let (xs, ys) = (&mut [0.0f32; RUN], &mut [0.0f32; RUN]);
                let (shift_x, shift_y) = (&mut [0.0f32; RUN], &mut [0.0f32; RUN]);
                let squeezes = &mut [0.0f32; RUN];
                let quads = &mut [[0.0f32; 4]; RUN];
                for start in (0..cells).step_by(RUN) {
                    let len = RUN.min(cells - start);
                    let end = start + len;
                    {
                        let (u_run, v_run) = (&u_row[start..end], &v_row[start..end]);
                        let (su_run, sv_run) = (&su_row[start..end], &sv_row[start..end]);
                        for k in 0..len {
                            let wind_x = u_run[k] + su_run[k];
                            let wind_y = v_run[k] + sv_run[k];
                            shift_x[k] = wind_x * dt_s;
                            shift_y[k] = wind_y * dt_s;
                            // `as i32`: the same value as from usize, and it vectorises.
                            xs[k] = (start + k) as i32 as f32 - shift_x[k];
                            ys[k] = y as f32 - shift_y[k];
                        }
                    }
                    run.place(xs, ys);

                    // The continuity exponent; the spread is 0 on the border cells.
                    squeezes.fill(0.0);
                    if inner_row {
                        let low = start.max(1);
                        let high = end.min(cells - 1);
                        for x in low..high {
                            squeezes[x - start] = divergence_at(su_row, sv_below, sv_above, x);
                        }
                    }
                    let mut any_squeeze = false;
                    for spread in squeezes.iter_mut() {
                        let exponent = hold(
                            -*spread * continuity_dt,
                            -CONTINUITY_EXPONENT_LIMIT,
                            CONTINUITY_EXPONENT_LIMIT,
                        );
                        any_squeeze |= exponent != 0.0;
                        *spread = exponent;
                    }
                    // exp(0) is exactly 1: skip the calls where there is no shock (most cells).
                    if any_squeeze {
                        for exponent in squeezes[..len].iter_mut() {
                            *exponent = if *exponent == 0.0 {
                                1.0
                            } else {
                                exponent.exp()
                            };
                        }
                    } else {
                        squeezes.fill(1.0);
                    }

                    let density_out = &mut density_out[start..end];
                    let (off_x_out, off_z_out) =
                        (&mut off_x_out[start..end], &mut off_z_out[start..end]);
                    let lift_out = &mut lift_out[start..end];
                    run.read_packed_into(packed, &mut quads[..len]);
                    for (k, quad) in quads[..len].iter().enumerate() {
                        density_out[k] = quad[0];
                        off_x_out[k] = quad[1];
                        off_z_out[k] = quad[2];
                        lift_out[k] = quad[3];
                    }
                    match sources {
                        None => {
                            for (value, &squeeze) in density_out.iter_mut().zip(&squeezes[..len]) {
                                let carried = (*value * squeeze).min(max_density);
                                let rate = if carried > 1.0 { spill } else { refill };
                                *value = carried + (1.0 - carried) * rate;
                            }
                        }
                        Some((rates, keep, gain_s)) => {
                            let rates = &rates[row + start..row + end];
                            for ((value, &squeeze), &rate) in
                                density_out.iter_mut().zip(&squeezes[..len]).zip(rates)
                            {
                                let carried = *value * squeeze * keep + rate * gain_s;
                                *value = flush(carried.min(max_density));
                            }
                        }
                    }
                    for (out, shift) in [(off_x_out, &shift_x[..len]), (off_z_out, &shift_y[..len])]
                    {
                        for (value, &shift) in out.iter_mut().zip(shift) {
                            let drift = (*value - shift * cell_world) * relax;
                            *value = flush(hold(drift, -drift_limit, drift_limit));
                        }
                    }
                    for value in lift_out.iter_mut() {
                        *value = flush(*value * settle);
                    }
                }
            });
        std::mem::swap(&mut self.density, &mut self.density_next);
        std::mem::swap(&mut self.off_x, &mut self.off_x_next);
        std::mem::swap(&mut self.off_z, &mut self.off_z_next);
        std::mem::swap(&mut self.lift, &mut self.lift_next);
    }
}

/// Splits packed pairs into two rows (equal lengths).
#[inline(always)]
fn unpack_pairs(pairs: &[[f32; 2]], first: &mut [f32], second: &mut [f32]) {
    for ((pair, a), b) in pairs.iter().zip(first.iter_mut()).zip(second.iter_mut()) {
        *a = pair[0];
        *b = pair[1];
    }
}

/// Walls on row `y` of the air: no air inside solids, and no air through the grid's edges (zero
/// normal velocity on the left and right columns for `u`, on the bottom and top rows for `v`).
/// It reads nothing but the row, so the stages that end by writing a row apply it there.
#[inline(always)]
fn walls_row(y: usize, cells: usize, u_row: &mut [f32], v_row: &mut [f32], solid_row: &[u8]) {
    for ((u, v), &solid) in u_row.iter_mut().zip(v_row.iter_mut()).zip(solid_row) {
        // Branch-free: a select per cell, which vectorises.
        let open = solid == 0;
        *u = if open { *u } else { 0.0 };
        *v = if open { *v } else { 0.0 };
    }
    u_row[0] = 0.0;
    u_row[cells - 1] = 0.0;
    if y == 0 || y == cells - 1 {
        v_row.fill(0.0);
    }
}

/// How much of the confinement applies at curl magnitude `curl_abs`: 0 below `threshold`,
/// 1 from twice it, smooth in between; always 1 when the threshold is 0.
#[inline]
fn confinement_weight(curl_abs: f32, threshold: f32) -> f32 {
    if threshold <= 0.0 {
        return 1.0;
    }
    let t = ((curl_abs - threshold) / threshold).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}
