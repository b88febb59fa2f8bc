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
//! A sweep is one pass: within each band its second half-sweep trails its first by a row
//! (`smooth`). It reads one buffer and writes another (`value` to `spare`, then back), so a
//! smoothing of an even number of sweeps leaves its result in `value`, as the next pass
//! expects.

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
    spare: Shared,
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
                spare,
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
                spare: Shared::new(spare),
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

/// `sweeps` red-black Gauss-Seidel sweeps of `lap(value) = rhs` (an even number), one pass
/// each: the first half-sweep relaxes one colour's nodes from `from` into `next`, and the
/// second the other colour's from `next` into `to`. Sweeps alternate `value` → `spare` and
/// `spare` → `value`, so the result is in `value`.
///
/// Within a band the second half-sweep trails the first by a row: row `j` of `to` needs rows
/// `j - 1 ..= j + 1` of `next`. The rows just outside the band belong to its neighbours, who
/// write them in the same pass, so each band relaxes them again into a scratch of its own.
fn smooth(grid: &Grid, sweeps: u32, lanes: Lanes, alternating: &[u32], member: &mut Member) {
    assert!(sweeps.is_multiple_of(2), "smoothing ends in `value`");
    for sweep in 0..sweeps {
        let (from, to) = if sweep % 2 == 0 {
            (grid.value, grid.spare)
        } else {
            (grid.spare, grid.value)
        };
        member.pass(interior(grid), grid.bands, |rows| {
            sweep_rows(grid, (from, to), rows, lanes, alternating);
        });
    }
}

thread_local! {
    /// The rows of `next` just outside a band, relaxed by the band itself.
    static HALO: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// One sweep over the band `rows` (see [`smooth`]).
fn sweep_rows(
    grid: &Grid,
    (from, to): (Shared, Shared),
    rows: Range<usize>,
    lanes: Lanes,
    alternating: &[u32],
) {
    let side = grid.side;
    let (first, last) = (rows.start, rows.end - 1);
    // SAFETY: the pass writes `next` and `to` on this band's rows only; `from` and `rhs` are
    // read, and the band's neighbours' rows of `next` are not read (their scratch copies are).
    let (from, rhs, next, out) = unsafe {
        (
            from.read(),
            grid.rhs.read(),
            grid.next.rows_mut(side, rows.clone()),
            to.rows_mut(side, rows.clone()),
        )
    };
    let relax = |colour: usize, out: &mut [f32], rows: [&[f32]; 3], rhs: &[f32], j: usize| {
        let parity = (colour + j) & 1;
        SmoothRow {
            out,
            take: &alternating[parity..],
            below: rows[0],
            here: rows[1],
            above: rows[2],
            rhs,
            weights: grid.weights,
            j,
        }
        .run_with(lanes);
    };
    HALO.with_borrow_mut(|halo| {
        halo.clear();
        halo.resize(2 * side, 0.0);
        let (before, after) = halo.split_at_mut(side);
        // The neighbours' rows, or the border's zeros.
        for (j, scratch) in [(first - 1, &mut *before), (last + 1, &mut *after)] {
            if (1..side - 1).contains(&j) {
                let around = [
                    row(from, side, j - 1),
                    row(from, side, j),
                    row(from, side, j + 1),
                ];
                relax(0, scratch, around, row(rhs, side, j), j);
            }
        }
        // Row `j` of the band's part of `next`.
        let band_row = |j: usize| -> std::ops::Range<usize> {
            let start = (j - first) * side;
            start..start + side
        };
        for j in rows.clone() {
            let around = [
                row(from, side, j - 1),
                row(from, side, j),
                row(from, side, j + 1),
            ];
            relax(0, &mut next[band_row(j)], around, row(rhs, side, j), j);
            if j > first {
                // The other colour on the row before, whose rows of `next` are all relaxed.
                let k = j - 1;
                let below = if k == first {
                    &*before
                } else {
                    &next[band_row(k - 1)]
                };
                let around = [below, &next[band_row(k)], &next[band_row(j)]];
                relax(1, &mut out[band_row(k)], around, row(rhs, side, k), k);
            }
        }
        let below = if last == first {
            &*before
        } else {
            &next[band_row(last - 1)]
        };
        let around = [below, &next[band_row(last)], &*after];
        relax(
            1,
            &mut out[band_row(last)],
            around,
            row(rhs, side, last),
            last,
        );
    });
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
