//! The row kernels of the semi-Lagrangian advections (the air, the shock wave, and the fog by
//! both): each cell of a row is traced back along a velocity, placed between four cells once
//! ([`Trace`]), and every field that velocity carries is read there together: from a packed
//! copy ([`Packed`]) on the baseline CPU, and with AVX2 from the fields themselves, eight cells
//! at a time without a gather where their backtraces stay within a cell (`near`).
//!
//! The kernels are plain loops compiled for the baseline CPU and, where the CPU has them
//! ([`Lanes::detect`]), AVX2 (eight lanes) and AVX-512 (the gather-free read, sixteen). Every
//! form runs the same operations in the same order, with no fused multiply-add, so all give the
//! bits of [`super::grid::Bilinear`] (a test compares them). [`PairCarry`] carries the air or
//! the shock wave, [`FogCarry`] the fog's four fields by their sum, [`RUN`] cells at a time;
//! what finishes a carried row (the air's decay and walls, the shock's fade) is a [`FinishRow`]
//! inlined into the row kernel, so it runs as wide as the carry.

use super::grid::{hold, place_axis};
use super::lanes::Lanes;
use super::stages::flush;
use super::stencil::divergence_run;

/// Cells traced and read together: enough to vectorise, small enough to stay in L1.
pub(super) const RUN: usize = 32;

/// Largest `|exponent|` of the continuity factor: beyond it the fog is already fully emptied or
/// capped, and clamping keeps `0 * inf` (NaN) out of the density under violent blasts.
const CONTINUITY_EXPONENT_LIMIT: f32 = 30.0;

/// `N` fields of a `cells × cells` grid packed per cell (`data[i][l]` is field `l` at index
/// `i`, see [`super::grid::pack_fields`]), checked once to hold the whole grid so the bilinear
/// reads inside it need no bounds checks.
#[derive(Clone, Copy)]
pub(super) struct Packed<'a, const N: usize> {
    data: &'a [[f32; N]],
    cells: usize,
}

impl<'a, const N: usize> Packed<'a, N> {
    /// `data` as a `cells`-wide grid (at least 2 cells a side, `cells²` entries).
    pub(super) fn new(data: &'a [[f32; N]], cells: usize) -> Self {
        assert!(
            cells >= 2 && data.len() >= cells * cells,
            "packed fields of {} cells for a {cells}-wide grid",
            data.len()
        );
        Self { data, cells }
    }
}

/// Read positions of a run of up to [`RUN`] cells of one row: the lower-left neighbour
/// (`x0`, `y0`, each in `0..=cells - 2`) and the fractions past it. Each is exactly what
/// [`super::grid::Bilinear::at`] gives for the same point. The reads that trust them without
/// a bounds check hold them to the grid again ([`Trace::held_index`]); the AVX2 read checks
/// them against the cell it reads for.
struct Trace {
    x0: [u32; RUN],
    y0: [u32; RUN],
    fx: [f32; RUN],
    fy: [f32; RUN],
}

impl Trace {
    fn new() -> Self {
        Self {
            x0: [0; RUN],
            y0: [0; RUN],
            fx: [0.0; RUN],
            fy: [0.0; RUN],
        }
    }

    /// Places slot `k` at `(start + k - shift_x[k], y - shift_y[k])` on a `cells`-wide grid, for
    /// every slot (callers read only the slots they filled; the others land in range too).
    #[inline(always)]
    fn place(&mut self, cells: usize, y: usize, start: usize, shift: (&[f32; RUN], &[f32; RUN])) {
        let y_grid = y as f32;
        for k in 0..RUN {
            // `as i32`: the same value as from usize, and a conversion that vectorises.
            let x = (start + k) as i32 as f32 - shift.0[k];
            let (x0, fx) = place_axis(cells, x);
            let (y0, fy) = place_axis(cells, y_grid - shift.1[k]);
            // `place_axis` keeps both in `0..=last` (a negative one would wrap to a large
            // `u32`, which `held_index` holds).
            self.x0[k] = x0 as u32;
            self.y0[k] = y0 as u32;
            self.fx[k] = fx;
            self.fy[k] = fy;
        }
    }

    /// The index of slot `k`'s lower-left neighbour on a `cells`-wide grid, its coordinates
    /// held to `0..=cells - 2` (where `place` already put them) so the unchecked reads of the
    /// packed fields are sound whatever the floats did.
    #[inline(always)]
    fn held_index(&self, k: usize, cells: usize) -> usize {
        let last = (cells - 2) as u32;
        self.y0[k].min(last) as usize * cells + self.x0[k].min(last) as usize
    }

    /// The packed fields at slot `k`: per field the bilinear blend of `grid::lerp_at`,
    /// operation for operation.
    #[cfg(any(test, not(target_arch = "x86_64")))]
    #[inline(always)]
    fn read<const N: usize>(&self, packed: Packed<'_, N>, k: usize) -> [f32; N] {
        let cells = packed.cells;
        let index = self.held_index(k, cells);
        debug_assert!(index + cells + 1 < packed.data.len());
        // SAFETY: `x0` and `y0` are at most `cells - 2` (held in `held_index`) and `data`
        // holds at least `cells²` entries (checked in `Packed::new`), so
        // `index + cells + 1 <= (cells - 2) * cells + cells - 2 + cells + 1 < cells²`.
        let (near_0, near_1, far_0, far_1) = unsafe {
            (
                *packed.data.get_unchecked(index),
                *packed.data.get_unchecked(index + 1),
                *packed.data.get_unchecked(index + cells),
                *packed.data.get_unchecked(index + cells + 1),
            )
        };
        let (fx, fy) = (self.fx[k], self.fy[k]);
        std::array::from_fn(|l| {
            let a = near_0[l] + (near_1[l] - near_0[l]) * fx;
            let b = far_0[l] + (far_1[l] - far_0[l]) * fx;
            a + (b - a) * fy
        })
    }
}

impl Trace {
    /// Both packed fields at slots `0..out_a.len()` into `out_a`, `out_b` (equal lengths, at
    /// most [`RUN`]): [`Trace::read`], with both fields of a cell in one vector.
    #[inline(always)]
    fn read_pairs(&self, packed: Packed<'_, 2>, out_a: &mut [f32], out_b: &mut [f32]) {
        let out_b = &mut out_b[..out_a.len()];
        #[cfg(target_arch = "x86_64")]
        for (k, (a, b)) in out_a.iter_mut().zip(out_b.iter_mut()).enumerate() {
            use std::arch::x86_64::{
                _mm_add_ps, _mm_cvtss_f32, _mm_loadu_ps, _mm_movehl_ps, _mm_movelh_ps, _mm_mul_ps,
                _mm_set1_ps, _mm_shuffle_ps, _mm_sub_ps,
            };
            let cells = packed.cells;
            let index = self.held_index(k, cells);
            debug_assert!(index + cells + 1 < packed.data.len());
            // SAFETY: SSE is part of x86-64. The reads are those of `Trace::read` (in bounds:
            // see there); cells `index, index + 1` and `index + cells, index + cells + 1` are
            // adjacent `[f32; 2]`s, so four floats from each start.
            let [value_a, value_b] = unsafe {
                let base = packed.data.as_ptr().cast::<f32>();
                let near = _mm_loadu_ps(base.add(2 * index)); // a0 b0 a1 b1
                let far = _mm_loadu_ps(base.add(2 * (index + cells)));
                let low = _mm_movelh_ps(near, far); // near_0, far_0
                let high = _mm_movehl_ps(far, near); // near_1, far_1
                // a = near_0 + (near_1 - near_0) * fx, and b the same on the far row.
                let fx = _mm_set1_ps(self.fx[k]);
                let blend_x = _mm_add_ps(low, _mm_mul_ps(_mm_sub_ps(high, low), fx));
                let far_x = _mm_movehl_ps(blend_x, blend_x);
                // a + (b - a) * fy.
                let fy = _mm_set1_ps(self.fy[k]);
                let blend = _mm_add_ps(blend_x, _mm_mul_ps(_mm_sub_ps(far_x, blend_x), fy));
                [
                    _mm_cvtss_f32(blend),
                    _mm_cvtss_f32(_mm_shuffle_ps::<1>(blend, blend)),
                ]
            };
            *a = value_a;
            *b = value_b;
        }
        #[cfg(not(target_arch = "x86_64"))]
        for (k, (a, b)) in out_a.iter_mut().zip(out_b.iter_mut()).enumerate() {
            [*a, *b] = self.read(packed, k);
        }
    }
}

impl Trace {
    /// The four packed fields at slot `k` in one SSE vector: [`Trace::read`], lane for lane
    /// (each lane runs the same three blends, so the same bits).
    #[inline(always)]
    fn read_quad(&self, packed: Packed<'_, 4>, k: usize) -> [f32; 4] {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{
                _mm_add_ps, _mm_loadu_ps, _mm_mul_ps, _mm_set1_ps, _mm_storeu_ps, _mm_sub_ps,
            };
            let cells = packed.cells;
            let index = self.held_index(k, cells);
            debug_assert!(index + cells + 1 < packed.data.len());
            let mut out = [0.0f32; 4];
            // SAFETY: SSE is part of x86-64. The reads are those of `Trace::read` (in bounds:
            // see there), each cell's four fields one `[f32; 4]`.
            unsafe {
                let base = packed.data.as_ptr().cast::<f32>();
                let near_0 = _mm_loadu_ps(base.add(4 * index));
                let near_1 = _mm_loadu_ps(base.add(4 * (index + 1)));
                let far_0 = _mm_loadu_ps(base.add(4 * (index + cells)));
                let far_1 = _mm_loadu_ps(base.add(4 * (index + cells + 1)));
                let fx = _mm_set1_ps(self.fx[k]);
                let a = _mm_add_ps(near_0, _mm_mul_ps(_mm_sub_ps(near_1, near_0), fx));
                let b = _mm_add_ps(far_0, _mm_mul_ps(_mm_sub_ps(far_1, far_0), fx));
                let fy = _mm_set1_ps(self.fy[k]);
                _mm_storeu_ps(
                    out.as_mut_ptr(),
                    _mm_add_ps(a, _mm_mul_ps(_mm_sub_ps(b, a), fy)),
                );
            }
            out
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.read(packed, k)
    }
}

/// What a [`PairCarry`] does to a whole row once both fields are read (the air's decay and
/// walls, the shock's fade). A type of its own, rather than a closure, inlines into the carry's
/// row kernel and so runs with the kernel's instructions; any closure on two rows is one too.
pub(super) trait FinishRow {
    /// Finishes the carried rows `out_a`, `out_b` in place.
    fn finish(&self, out_a: &mut [f32], out_b: &mut [f32]);
}

impl<F: Fn(&mut [f32], &mut [f32])> FinishRow for F {
    #[inline(always)]
    fn finish(&self, out_a: &mut [f32], out_b: &mut [f32]) {
        self(out_a, out_b);
    }
}

/// Two fields carried by a velocity `(vel_x, vel_y)` in cells per second over `dt_s` (the air
/// by itself, the shock wave by itself).
pub(super) struct PairCarry<'a> {
    pub(super) dt_s: f32,
    pub(super) cells: usize,
    pub(super) vel_x: &'a [f32],
    pub(super) vel_y: &'a [f32],
    /// The carried fields, whole grids (the AVX2 read takes them from here, [`near`]).
    pub(super) fields: [&'a [f32]; 2],
    /// The same packed per cell, for [`Lanes::Plain`] (`None` where only AVX2 runs).
    pub(super) packed: Option<Packed<'a, 2>>,
}

impl PairCarry<'_> {
    /// Row `y` of both carried fields into `out_a`, `out_b`, then `finish` on the whole row.
    pub(super) fn row<F: FinishRow>(
        &self,
        lanes: Lanes,
        y: usize,
        out: (&mut [f32], &mut [f32]),
        finish: &F,
    ) {
        match lanes {
            Lanes::Plain => self.row_plain(lanes, y, out, finish),
            // SAFETY: `Lanes::Avx2` is only chosen where the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx2 => unsafe { self.row_avx2(y, out, finish) },
            // SAFETY: `Lanes::Avx512` is only chosen where the CPU has AVX-512 and AVX2.
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx512 => unsafe { self.row_avx512(y, out, finish) },
        }
    }

    /// [`PairCarry::row`] compiled for AVX-512, reading sixteen cells at a time.
    ///
    /// # Safety
    /// The CPU must support AVX2 and AVX-512.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f")]
    unsafe fn row_avx512<F: FinishRow>(&self, y: usize, out: (&mut [f32], &mut [f32]), finish: &F) {
        self.row_plain(Lanes::Avx512, y, out, finish);
    }

    /// [`PairCarry::row`] compiled for AVX2, reading through [`near`].
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn row_avx2<F: FinishRow>(&self, y: usize, out: (&mut [f32], &mut [f32]), finish: &F) {
        self.row_plain(Lanes::Avx2, y, out, finish);
    }

    /// The row; `lanes` picks the read (the packed one, or [`near`] where it is `Avx2`).
    #[inline(always)]
    fn row_plain<F: FinishRow>(
        &self,
        lanes: Lanes,
        y: usize,
        (out_a, out_b): (&mut [f32], &mut [f32]),
        finish: &F,
    ) {
        let cells = self.cells;
        let (vel_x, vel_y) = (
            &self.vel_x[y * cells..][..cells],
            &self.vel_y[y * cells..][..cells],
        );
        let (out_a, out_b) = (&mut out_a[..cells], &mut out_b[..cells]);
        #[cfg(target_arch = "x86_64")]
        let near = lanes.avx2().then(|| near::Near::new(self.fields, cells));
        let mut trace = Trace::new();
        let (mut shift_x, mut shift_y) = ([0.0f32; RUN], [0.0f32; RUN]);
        for start in (0..cells).step_by(RUN) {
            let len = RUN.min(cells - start);
            let (vel_x, vel_y) = (&vel_x[start..][..len], &vel_y[start..][..len]);
            for k in 0..len {
                shift_x[k] = vel_x[k] * self.dt_s;
                shift_y[k] = vel_y[k] * self.dt_s;
            }
            trace.place(cells, y, start, (&shift_x, &shift_y));
            let (out_a, out_b) = (&mut out_a[start..][..len], &mut out_b[start..][..len]);
            match lanes {
                Lanes::Plain => {
                    let packed = self.packed.expect("packed fields for the plain read");
                    trace.read_pairs(packed, out_a, out_b);
                }
                #[cfg(target_arch = "x86_64")]
                Lanes::Avx2 | Lanes::Avx512 => {
                    let near = near.as_ref().expect("made above for AVX2");
                    // SAFETY: `Lanes::Avx2` is only chosen where the CPU has AVX2, and
                    // `Lanes::Avx512` where it has AVX-512 too.
                    unsafe {
                        let sixteen = lanes == Lanes::Avx512;
                        near.read_run(&trace, y, start, &mut [out_a, out_b], sixteen)
                    };
                }
            }
        }
        finish.finish(out_a, out_b);
    }
}

/// The fog carried by the ordinary air plus the shock wave, with the per-step factors of
/// `FluidSim::carry_fog` (see there for what each does).
pub(super) struct FogCarry<'a> {
    pub(super) dt_s: f32,
    pub(super) cells: usize,
    /// `u`, `v`, `su`, `sv`, whole grids.
    pub(super) air: [&'a [f32]; 4],
    /// The fog's fields (density, off_x, off_z, lift), whole grids (the AVX2 read takes
    /// them from here, [`near`]).
    pub(super) fields: [&'a [f32]; 4],
    /// The same packed per cell, for [`Lanes::Plain`] (`None` where only AVX2 runs).
    pub(super) packed: Option<Packed<'a, 4>>,
    pub(super) continuity_dt: f32,
    pub(super) max_density: f32,
    pub(super) refill: f32,
    pub(super) spill: f32,
    pub(super) relax: f32,
    pub(super) settle: f32,
    pub(super) drift_limit: f32,
    pub(super) cell_world: f32,
    /// `fluid.fog: Sources`: the per-cell rates, the share a step keeps and the gain.
    pub(super) sources: Option<(&'a [f32], f32, f32)>,
    /// Per row, whether the shock (`su`, `sv`) may hold anything but zeros there; `None`
    /// where it holds none anywhere. A row with none in it or the rows next to it is carried
    /// without reading it: the backtrace is `u · dt` where it was `(u + su) · dt`, the same
    /// bits but for the sign of a zero shift (which moves no read position and leaves the
    /// drift offsets the same once flushed), and every squeeze is exactly 1.
    pub(super) shock_rows: Option<&'a [bool]>,
}

/// One row of the fog's four fields: density, off_x, off_z, lift.
pub(super) type FogRow<'a> = [&'a mut [f32]; 4];

impl FogCarry<'_> {
    /// Row `y` of the carried fog into `out`.
    pub(super) fn row(&self, lanes: Lanes, y: usize, out: FogRow<'_>) {
        match lanes {
            Lanes::Plain => self.row_plain(lanes, y, out),
            // SAFETY: `Lanes::Avx2` is only chosen where the CPU has AVX2 and FMA.
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx2 => unsafe { self.row_avx2(y, out) },
            // SAFETY: `Lanes::Avx512` is only chosen where the CPU has AVX-512, AVX2 and FMA.
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx512 => unsafe { self.row_avx512(y, out) },
        }
    }

    /// [`FogCarry::row`] compiled for AVX-512, reading sixteen cells at a time.
    ///
    /// # Safety
    /// The CPU must support AVX2, FMA and AVX-512.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,avx512f")]
    unsafe fn row_avx512(&self, y: usize, out: FogRow<'_>) {
        self.row_plain(Lanes::Avx512, y, out);
    }

    /// [`FogCarry::row`] compiled for AVX2 (and FMA, which the squeeze's `exp` uses).
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn row_avx2(&self, y: usize, out: FogRow<'_>) {
        self.row_plain(Lanes::Avx2, y, out);
    }

    /// The row; `lanes` picks the read (the packed one, or [`near`] where it is `Avx2`).
    #[inline(always)]
    fn row_plain(
        &self,
        lanes: Lanes,
        y: usize,
        [density_out, off_x_out, off_z_out, lift_out]: FogRow<'_>,
    ) {
        let cells = self.cells;
        #[cfg(target_arch = "x86_64")]
        let near = lanes.avx2().then(|| near::Near::new(self.fields, cells));
        let dt_s = self.dt_s;
        let (max_density, refill, spill) = (self.max_density, self.refill, self.spill);
        let (relax, settle, drift_limit) = (self.relax, self.settle, self.drift_limit);
        let (cell_world, continuity_dt) = (self.cell_world, self.continuity_dt);
        let row = y * cells;
        let inner_row = y > 0 && y < cells - 1;
        // A NaN or infinite continuity factor would turn zero spreads into squeezes.
        let shock_near = self
            .shock_rows
            .is_some_and(|held| super::shock::near(held, y));
        let shock = shock_near || !continuity_dt.is_finite();
        let [u, v, su, sv] = self.air;
        let (u_row, v_row) = (&u[row..row + cells], &v[row..row + cells]);
        let (su_row, sv_row) = (&su[row..row + cells], &sv[row..row + cells]);
        // The shock's neighbours above and below (this row again on the border rows, where
        // they are not read).
        let (sv_below, sv_above) = if inner_row {
            (&sv[row - cells..row], &sv[row + cells..row + 2 * cells])
        } else {
            (sv_row, sv_row)
        };
        let mut trace = Trace::new();
        let (mut shift_x, mut shift_y) = ([0.0f32; RUN], [0.0f32; RUN]);
        let mut squeezes = [0.0f32; RUN];
        for start in (0..cells).step_by(RUN) {
            let len = RUN.min(cells - start);
            let end = start + len;
            let (u_run, v_run) = (&u_row[start..end], &v_row[start..end]);
            if shock {
                let (su_run, sv_run) = (&su_row[start..end], &sv_row[start..end]);
                for k in 0..len {
                    shift_x[k] = (u_run[k] + su_run[k]) * dt_s;
                    shift_y[k] = (v_run[k] + sv_run[k]) * dt_s;
                }
            } else {
                for k in 0..len {
                    shift_x[k] = u_run[k] * dt_s;
                    shift_y[k] = v_run[k] * dt_s;
                }
            }
            trace.place(cells, y, start, (&shift_x, &shift_y));

            if shock {
                self.squeezes_into(&mut squeezes, len, (y, start), (su_row, sv_below, sv_above));
            } else {
                // No shock: no spread, and exp(0) is exactly 1.
                squeezes.fill(1.0);
            }

            let density_out = &mut density_out[start..end];
            let (off_x_out, off_z_out) = (&mut off_x_out[start..end], &mut off_z_out[start..end]);
            let lift_out = &mut lift_out[start..end];
            match lanes {
                Lanes::Plain => {
                    let packed = self.packed.expect("packed fields for the plain read");
                    for k in 0..len {
                        let [density, off_x, off_z, lift] = trace.read_quad(packed, k);
                        density_out[k] = density;
                        off_x_out[k] = off_x;
                        off_z_out[k] = off_z;
                        lift_out[k] = lift;
                    }
                }
                #[cfg(target_arch = "x86_64")]
                Lanes::Avx2 | Lanes::Avx512 => {
                    let near = near.as_ref().expect("made above for AVX2");
                    let mut outs = [
                        &mut *density_out,
                        &mut *off_x_out,
                        &mut *off_z_out,
                        &mut *lift_out,
                    ];
                    // SAFETY: `Lanes::Avx2` is only chosen where the CPU has AVX2, and
                    // `Lanes::Avx512` where it has AVX-512 too.
                    unsafe {
                        let sixteen = lanes == Lanes::Avx512;
                        near.read_run(&trace, y, start, &mut outs, sixteen)
                    };
                }
            }
            let squeezes = &squeezes[..len];
            match self.sources {
                None => {
                    for (value, &squeeze) in density_out.iter_mut().zip(squeezes) {
                        let carried = (*value * squeeze).min(max_density);
                        let rate = if carried > 1.0 { spill } else { refill };
                        *value = carried + (1.0 - carried) * rate;
                    }
                }
                Some((rates, keep, gain_s)) => {
                    let rates = &rates[row + start..row + end];
                    for ((value, &squeeze), &rate) in
                        density_out.iter_mut().zip(squeezes).zip(rates)
                    {
                        let carried = *value * squeeze * keep + rate * gain_s;
                        *value = flush(carried.min(max_density));
                    }
                }
            }
            for (out, shift) in [(off_x_out, &shift_x[..len]), (off_z_out, &shift_y[..len])] {
                for (value, &shift) in out.iter_mut().zip(shift) {
                    let drift = (*value - shift * cell_world) * relax;
                    *value = flush(hold(drift, -drift_limit, drift_limit));
                }
            }
            for value in lift_out.iter_mut() {
                *value = flush(*value * settle);
            }
        }
    }
}

impl FogCarry<'_> {
    /// The continuity factor `exp(-spread · continuity · dt)` of the run of `len` cells of row
    /// `y` from column `start` into `squeezes`, `spread` the shock's divergence (0 on the
    /// border cells; `su_row`, `sv_below`, `sv_above` as in `stencil::divergence_run`, the last
    /// two only read on interior rows).
    #[inline(always)]
    fn squeezes_into(
        &self,
        squeezes: &mut [f32; RUN],
        len: usize,
        (y, start): (usize, usize),
        (su_row, sv_below, sv_above): (&[f32], &[f32], &[f32]),
    ) {
        let cells = self.cells;
        squeezes.fill(0.0);
        if y > 0 && y < cells - 1 {
            let (low, high) = (start.max(1), (start + len).min(cells - 1));
            if low < high {
                let out = &mut squeezes[low - start..high - start];
                divergence_run(out, low, su_row, sv_below, sv_above);
            }
        }
        let mut any_squeeze = false;
        for spread in squeezes.iter_mut() {
            let exponent = hold(
                -*spread * self.continuity_dt,
                -CONTINUITY_EXPONENT_LIMIT,
                CONTINUITY_EXPONENT_LIMIT,
            );
            any_squeeze |= exponent != 0.0;
            *spread = exponent;
        }
        // exp(0) is exactly 1: skip runs with no shock, and run the others branch-free (the
        // loop vectorises). The exponents are held well inside `exp::EXP_LIMIT`.
        const { assert!(CONTINUITY_EXPONENT_LIMIT <= super::exp::EXP_LIMIT) };
        if any_squeeze {
            for exponent in squeezes[..len].iter_mut() {
                *exponent = super::exp::exp(*exponent);
            }
        } else {
            squeezes.fill(1.0);
        }
    }
}

/// Packs row `y` of `N` fields into `out_row` (see [`super::grid::pack_fields`]).
pub(super) fn pack_row<const N: usize>(
    lanes: Lanes,
    fields: [&[f32]; N],
    y: usize,
    out_row: &mut [[f32; N]],
) {
    match lanes {
        Lanes::Plain => pack_row_plain(fields, y, out_row),
        // SAFETY: `Lanes::Avx2` is only chosen where the CPU has AVX2.
        #[cfg(target_arch = "x86_64")]
        Lanes::Avx2 | Lanes::Avx512 => unsafe { pack_row_avx2(fields, y, out_row) },
    }
}

/// [`pack_row`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pack_row_avx2<const N: usize>(fields: [&[f32]; N], y: usize, out_row: &mut [[f32; N]]) {
    pack_row_plain(fields, y, out_row);
}

#[inline(always)]
fn pack_row_plain<const N: usize>(fields: [&[f32]; N], y: usize, out_row: &mut [[f32; N]]) {
    let cells = out_row.len();
    // Equal-length rows: no bounds checks in the loop.
    let rows: [&[f32]; N] = std::array::from_fn(|l| &fields[l][y * cells..][..cells]);
    for (x, cell) in out_row.iter_mut().enumerate() {
        *cell = std::array::from_fn(|l| rows[l][x]);
    }
}

#[cfg(target_arch = "x86_64")]
mod near;
#[cfg(test)]
mod tests;
