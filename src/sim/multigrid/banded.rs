//! The multigrid's V-cycles as a fixed sequence of passes over rows, run by a team of threads
//! (`sim/team.rs`): every pass over a level splits its rows into that level's bands, and each
//! member of the team takes the same bands of a level first in every pass of the solve.
//!
//! A pass writes rows of one buffer and only reads others, as the row kernels (`rows.rs`)
//! require, so the bands of one pass never touch each other's output, and the team's wait
//! between passes makes a pass's rows visible to the next. Levels too small for two bands run
//! as one chunk: the coarse half of each V-cycle is one stretch on one thread, which the others
//! wait out once.
//!
//! A half-sweep writes the other buffer of its level (`value` to `next`, then back), so a
//! smoothing of whole sweeps leaves its result in `value`, as the pass before expects.

use std::ops::Range;

use super::super::aligned::AlignedFloats;
use super::super::lanes::Lanes;
use super::super::team::Member;
use super::rows::{
    InterpolateRow, Interpolation, Pairs, ProlongRow, ResidualRow, RestrictRow, SmoothRow, Weights,
};
use super::{COARSEST_SWEEPS, Level, SMOOTHING_SWEEPS, row};

/// One of a level's buffers as the team shares it: each pass creates the slices it reads and
/// the rows it writes, and drops them when the pass ends.
#[derive(Clone, Copy)]
struct Shared {
    ptr: *mut f32,
    len: usize,
}

// SAFETY: a `Shared` is only turned into slices within a pass, where the buffers a pass reads
// are written by no member and the rows it writes belong to one member (see `read` and
// `rows_mut`); the team orders the passes.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    fn new(floats: &mut AlignedFloats) -> Shared {
        Shared {
            ptr: floats.as_mut_ptr(),
            len: floats.len(),
        }
    }

    /// The whole buffer, to read.
    ///
    /// # Safety
    /// No member writes this buffer while the slice lives.
    unsafe fn read<'a>(self) -> &'a [f32] {
        // SAFETY: `ptr` and `len` come from a live `AlignedFloats` that outlives the solve; the
        // caller promises no writes meanwhile.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// Rows `rows` of a buffer `side` wide, to write.
    ///
    /// # Safety
    /// No one else reads or writes these rows while the slice lives.
    unsafe fn rows_mut<'a>(self, side: usize, rows: Range<usize>) -> &'a mut [f32] {
        let (start, end) = (rows.start * side, rows.end * side);
        assert!(start <= end && end <= self.len, "rows within the buffer");
        // SAFETY: in bounds (checked above); the caller promises the rows are this member's.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), end - start) }
    }
}

/// One level as the passes see it.
pub(super) struct Grid<'a> {
    pub(super) side: usize,
    weights: Weights<'a>,
    from_coarse: &'a [Interpolation],
    pairs: Option<&'a Pairs>,
    value: Shared,
    next: Shared,
    rhs: Shared,
    residual: Shared,
    interpolated: Shared,
    /// Bands a pass over this level's rows splits into (1: the first member alone).
    bands: usize,
}

/// The levels as the team shares them, each split into bands of about `cells_per_band`
/// interior nodes (at least one band, at most as many as rows).
pub(super) fn grids(levels: &mut [Level], cells_per_band: usize) -> Vec<Grid<'_>> {
    levels
        .iter_mut()
        .map(|level| {
            let Level {
                nodes,
                side,
                weight_low,
                weight_high,
                regular_inverse,
                from_coarse,
                pairs,
                value,
                rhs,
                residual,
                next,
                interpolated,
            } = level;
            let cells = *nodes * *nodes;
            Grid {
                side: *side,
                weights: Weights {
                    low: weight_low,
                    high: weight_high,
                    regular_inverse: *regular_inverse,
                },
                from_coarse,
                pairs: pairs.as_ref(),
                value: Shared::new(value),
                next: Shared::new(next),
                rhs: Shared::new(rhs),
                residual: Shared::new(residual),
                interpolated: Shared::new(interpolated),
                bands: cells
                    .div_ceil(cells_per_band.max(1))
                    .clamp(1, (*nodes).max(1)),
            }
        })
        .collect()
}

/// Bands of the finest level, the most of any level: the members a team for these grids can
/// use, and the chunks of its largest pass.
pub(super) fn most_bands(grids: &[Grid]) -> usize {
    grids.first().map_or(1, |grid| grid.bands)
}

/// The interior rows of a level (its border rows are never written).
fn interior(grid: &Grid) -> Range<usize> {
    1..grid.side - 1
}

/// One V-cycle from level `at` down, as `member`'s share: smooth, restrict the residual,
/// correct from the coarser levels, smooth again.
pub(super) fn v_cycle(
    grids: &[Grid],
    at: usize,
    lanes: Lanes,
    alternating: &[u32],
    member: &mut Member,
) {
    let fine = &grids[at];
    let Some(coarse) = grids.get(at + 1) else {
        smooth(fine, COARSEST_SWEEPS, lanes, alternating, member);
        return;
    };
    smooth(fine, SMOOTHING_SWEEPS, lanes, alternating, member);
    member.pass(interior(fine), fine.bands, |rows| {
        residual_rows(fine, rows, lanes);
    });
    if coarse.bands > 1 {
        member.pass(interior(coarse), coarse.bands, |rows| {
            restrict_rows(fine, coarse, rows, lanes);
        });
        v_cycle(grids, at + 1, lanes, alternating, member);
        member.pass(0..coarse.side, coarse.bands, |rows| {
            interpolate_rows(coarse, fine, rows, lanes);
        });
    } else {
        // The coarser levels are too small to share: one member runs them all as one chunk.
        member.pass(0..1, 1, |_| {
            restrict_rows(fine, coarse, interior(coarse), lanes);
            v_cycle(grids, at + 1, lanes, alternating, &mut Member::solo());
            interpolate_rows(coarse, fine, 0..coarse.side, lanes);
        });
    }
    member.pass(interior(fine), fine.bands, |rows| {
        prolong_rows(fine, rows, lanes);
    });
    smooth(fine, SMOOTHING_SWEEPS, lanes, alternating, member);
}

/// `sweeps` red-black Gauss-Seidel sweeps of `lap(value) = rhs`: each half-sweep relaxes one
/// colour's nodes (those with `i + j` of its parity) from the other colour's into the other
/// buffer.
fn smooth(grid: &Grid, sweeps: u32, lanes: Lanes, alternating: &[u32], member: &mut Member) {
    for half_sweep in 0..2 * sweeps {
        let colour = (half_sweep % 2) as usize;
        let (from, to) = if half_sweep % 2 == 0 {
            (grid.value, grid.next)
        } else {
            (grid.next, grid.value)
        };
        member.pass(interior(grid), grid.bands, |rows| {
            let side = grid.side;
            // SAFETY: this pass writes only `to`, each member its own band; `from` and `rhs`
            // are read.
            let (from, rhs, out) = unsafe {
                (
                    from.read(),
                    grid.rhs.read(),
                    to.rows_mut(side, rows.clone()),
                )
            };
            for (j, out) in rows.zip(out.chunks_exact_mut(side)) {
                // Node `i = 1 + k` is of the colour where `(i + j) % 2 == colour`:
                // `alternating[k + parity]` is 1 exactly there.
                let parity = (colour + j) & 1;
                SmoothRow {
                    out,
                    take: &alternating[parity..],
                    below: row(from, side, j - 1),
                    here: row(from, side, j),
                    above: row(from, side, j + 1),
                    rhs: row(rhs, side, j),
                    weights: grid.weights,
                    j,
                }
                .run_with(lanes);
            }
        });
    }
}

/// `residual = rhs - lap(value)` on rows `rows` (the border ring stays 0).
pub(super) fn residual_rows(grid: &Grid, rows: Range<usize>, lanes: Lanes) {
    let side = grid.side;
    // SAFETY: the pass writes only `residual`, each member its own band.
    let (value, rhs, out) = unsafe {
        (
            grid.value.read(),
            grid.rhs.read(),
            grid.residual.rows_mut(side, rows.clone()),
        )
    };
    for (j, out) in rows.zip(out.chunks_exact_mut(side)) {
        ResidualRow {
            out,
            below: row(value, side, j - 1),
            here: row(value, side, j),
            above: row(value, side, j + 1),
            rhs: row(rhs, side, j),
            weights: grid.weights,
            j,
        }
        .run_with(lanes);
    }
}

/// The coarse right-hand side on coarse rows `rows`: full weighting of the fine residual round
/// each coarse node. The same rows of the coarse values are zeroed, the correction's start.
fn restrict_rows(fine: &Grid, coarse: &Grid, rows: Range<usize>, lanes: Lanes) {
    let (side, fine_side) = (coarse.side, fine.side);
    // SAFETY: the pass writes only the coarse `rhs` and `value`, each member its own band.
    let (residual, rhs, value) = unsafe {
        (
            fine.residual.read(),
            coarse.rhs.rows_mut(side, rows.clone()),
            coarse.value.rows_mut(side, rows.clone()),
        )
    };
    value.fill(0.0);
    for (big_j, out) in rows.zip(rhs.chunks_exact_mut(side)) {
        let fine_row = |j: usize| row(residual, fine_side, j);
        RestrictRow {
            out,
            fine: [
                fine_row(2 * big_j - 1),
                fine_row(2 * big_j),
                fine_row(2 * big_j + 1),
            ],
        }
        .run_with(lanes);
    }
}

/// Coarse rows `rows` of the coarse correction interpolated along x to the fine nodes.
fn interpolate_rows(coarse: &Grid, fine: &Grid, rows: Range<usize>, lanes: Lanes) {
    let (side, coarse_side) = (fine.side, coarse.side);
    // SAFETY: the pass writes only the fine level's `interpolated`, each member its own band.
    let (coarse_value, out) = unsafe {
        (
            coarse.value.read(),
            fine.interpolated.rows_mut(side, rows.clone()),
        )
    };
    for (big_j, out) in rows.zip(out.chunks_exact_mut(side)) {
        InterpolateRow {
            out,
            coarse: row(coarse_value, coarse_side, big_j),
            from_coarse: fine.from_coarse,
            pairs: fine.pairs,
        }
        .run_with(lanes);
    }
}

/// Adds the interpolated correction to the fine values on rows `rows`: two interpolated rows
/// blended into each.
fn prolong_rows(fine: &Grid, rows: Range<usize>, lanes: Lanes) {
    let side = fine.side;
    // SAFETY: the pass writes only the fine `value`, each member its own band.
    let (interpolated, values) = unsafe {
        (
            fine.interpolated.read(),
            fine.value.rows_mut(side, rows.clone()),
        )
    };
    for (j, value) in rows.zip(values.chunks_exact_mut(side)) {
        let y = fine.from_coarse[j];
        ProlongRow {
            value,
            row_a: row(interpolated, side, y.a),
            row_b: row(interpolated, side, y.b),
            y,
        }
        .run_with(lanes);
    }
}
