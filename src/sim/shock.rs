//! The shock wave's stage ([`FluidSim::advect_shock`]): a landing's blast travels outward with
//! itself and fades, and never enters solids. Between blasts the shock is exactly zero, and
//! after one it fills a ring of rows while the rest stay zero. So the stage first notes which
//! rows hold any shock (`FluidSim::shock_rows`) and carries only the rows with shock within a
//! row of them: every cell of a row with none near traces back to itself and reads only zeros,
//! so it becomes exactly zero. The rows of the carried shock are noted again for the fog's
//! carry, which carries the rows with no shock near them by the air alone
//! (`advect::FogCarry::shock_rows`).

use rayon::prelude::*;

use super::FluidSim;
use super::advect::{FinishRow, PairCarry};
use super::stages::{flush, packed_for_plain};

impl FluidSim {
    /// The shock wave travels outward with itself and fades; it never enters solids. Returns
    /// whether there was any shock to carry: where there was none, it is still all zeros, and
    /// [`FluidSim::carry_fog`] need not read it. Either way `shock_rows` then tells, row by
    /// row, whether the shock holds anything but zeros there.
    pub(super) fn advect_shock(&mut self, dt_s: f32) -> bool {
        let (cells, min_rows) = (self.mapping.cells, self.min_rows_per_task);
        mark_rows(&mut self.shock_rows, [&self.su, &self.sv], cells, min_rows);
        // Between blasts the shock is exactly zero (see `NEGLIGIBLE`), and advecting zeros
        // gives zeros: skipping is exact.
        if !self.shock_rows.contains(&true) {
            return false;
        }
        let fade = (-self.params.shock_fade * dt_s).exp();
        let packed = packed_for_plain(
            [&self.su, &self.sv],
            &mut self.packed_pair,
            cells,
            (self.lanes, min_rows),
        );
        let carry = PairCarry {
            dt_s,
            cells,
            vel_x: &self.su,
            vel_y: &self.sv,
            fields: [&self.su, &self.sv],
            packed,
        };
        let (lanes, held_before, skip_calm) =
            (self.lanes, &self.shock_rows, self.skip_calm_shock_rows);
        self.su_next
            .par_chunks_mut(cells)
            .zip(self.sv_next.par_chunks_mut(cells))
            .zip(self.solid.par_chunks(cells))
            .zip(self.shock_rows_next.par_iter_mut())
            .enumerate()
            .with_min_len(min_rows)
            .for_each(|(y, (((su_out, sv_out), solid_row), held))| {
                // A row whose cells do not move traces each back to itself, and reads that
                // cell and its neighbours right and up (left and down on the last column and
                // row) with fractions of 0 (or 1 from the neighbour to the cell itself):
                // where rows `y - 1` to `y + 1` are all zeros, every value read and every
                // blend is a zero, and the fade and flush make it +0.
                if skip_calm && !near(held_before, y) {
                    su_out.fill(0.0);
                    sv_out.fill(0.0);
                    *held = false;
                    return;
                }
                carry.row(lanes, y, (su_out, sv_out), &FadeInOpen { fade, solid_row });
                // With the skipping off, every row counts as holding shock (the fog's carry
                // then runs as it would with shock everywhere).
                *held = !skip_calm || any_nonzero(su_out) || any_nonzero(sv_out);
            });
        std::mem::swap(&mut self.su, &mut self.su_next);
        std::mem::swap(&mut self.sv, &mut self.sv_next);
        std::mem::swap(&mut self.shock_rows, &mut self.shock_rows_next);
        true
    }
}

/// Whether row `y` or a row next to it holds any shock, by `held` (one flag a row).
#[inline]
pub(super) fn near(held: &[bool], y: usize) -> bool {
    held[y.saturating_sub(1)..(y + 2).min(held.len())].contains(&true)
}

/// `held[y]`: whether row `y` of either field of a `cells`-wide grid holds anything but
/// zeros (`-0.0` counts as zero).
fn mark_rows(held: &mut [bool], [first, second]: [&[f32]; 2], cells: usize, min_rows: usize) {
    held.par_iter_mut()
        .zip(first.par_chunks(cells))
        .zip(second.par_chunks(cells))
        .with_min_len(min_rows)
        .for_each(|((held, first), second)| {
            *held = any_nonzero(first) || any_nonzero(second);
        });
}

/// The shock's row after its advection: faded (flushed) in open cells, 0 in solids (which
/// read a harmless in-range position).
struct FadeInOpen<'a> {
    fade: f32,
    solid_row: &'a [u8],
}

impl FinishRow for FadeInOpen<'_> {
    #[inline(always)]
    fn finish(&self, su_out: &mut [f32], sv_out: &mut [f32]) {
        let fade = self.fade;
        for out in [su_out, sv_out] {
            for (value, &solid) in out.iter_mut().zip(self.solid_row) {
                // Branch-free: a select per cell, which vectorises.
                let faded = flush(*value * fade);
                *value = if solid == 0 { faded } else { 0.0 };
            }
        }
    }
}

/// Whether any value of `field` is not zero (`-0.0` counts as zero), a chunk at a time so the
/// comparisons vectorise.
fn any_nonzero(field: &[f32]) -> bool {
    field
        .chunks(64)
        .any(|chunk| chunk.iter().fold(false, |any, &value| any | (value != 0.0)))
}
