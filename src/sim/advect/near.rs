//! The advections' bilinear read in AVX2 without a gather, for the common case: eight
//! neighbouring cells of one row whose backtraces each land within a cell of where they start
//! (the lower-left neighbour `x0` is `x - 1` or `x`, `y0` is `y - 1` or `y`). Then every corner
//! a lane reads is one of nine cells around it, so nine contiguous loads per field (rows `y - 1`
//! to `y + 1`, columns shifted by -1, 0 and +1) and per-lane selects give each lane exactly the
//! four values `Trace::read` reads, and the same three blends give the same bits.
//!
//! A group where some lane lands further away, or whose loads would leave the grid (its first
//! and last cells), is read cell by cell from the same fields ([`Near::read_one`]). The fields
//! are read where they lie, one slice each, so the AVX2 advections need no packed copy. Where
//! the CPU has AVX-512, sixteen cells go together first ([`Near::read_group16`]); a pair of
//! groups that cannot is read as two groups of eight.

use std::arch::x86_64::{
    __m256, __m256i, _mm256_add_epi32, _mm256_add_ps, _mm256_blendv_ps, _mm256_castsi256_ps,
    _mm256_cmpeq_epi32, _mm256_loadu_ps, _mm256_loadu_si256, _mm256_movemask_ps, _mm256_mul_ps,
    _mm256_set1_epi32, _mm256_setr_epi32, _mm256_setzero_si256, _mm256_storeu_ps, _mm256_sub_epi32,
    _mm256_sub_ps, _mm256_testz_si256,
};

use std::arch::x86_64::{
    __m512, __mmask16, _mm512_add_epi32, _mm512_add_ps, _mm512_cmpeq_epi32_mask, _mm512_loadu_ps,
    _mm512_loadu_si512, _mm512_mask_blend_ps, _mm512_mul_ps, _mm512_set1_epi32, _mm512_setr_epi32,
    _mm512_setzero_si512, _mm512_storeu_ps, _mm512_sub_epi32, _mm512_sub_ps,
    _mm512_test_epi32_mask,
};

use super::Trace;

/// Cells per group: one AVX2 vector.
const WIDTH: usize = 8;

/// `N` whole fields of a `cells × cells` grid, read together at the positions of a [`Trace`].
pub(super) struct Near<'a, const N: usize> {
    fields: [&'a [f32]; N],
    cells: usize,
}

impl<'a, const N: usize> Near<'a, N> {
    /// `fields` on a `cells`-wide grid (at least 2 cells a side, each `cells²` long or more),
    /// checked once so the reads need no bounds checks.
    pub(super) fn new(fields: [&'a [f32]; N], cells: usize) -> Self {
        for field in fields {
            assert!(
                cells >= 2 && field.len() >= cells * cells,
                "a field of {} cells for a {cells}-wide grid",
                field.len()
            );
        }
        Self { fields, cells }
    }

    /// The fields at slots `0..outs[0].len()` of `trace` (a run of row `y` from column
    /// `start`, at most `RUN` slots) into `outs` (one slice per field, equal lengths).
    /// Always inlined into the carries' AVX2 row kernels, so what stays the same along a row
    /// is worked out once a row, not once a run. `sixteen`: sixteen slots at a time first
    /// ([`Near::read_group16`]).
    ///
    /// # Safety
    /// The CPU must support AVX2, and AVX-512 where `sixteen` is set.
    #[inline(always)]
    pub(super) unsafe fn read_run(
        &self,
        trace: &Trace,
        y: usize,
        start: usize,
        outs: &mut [&mut [f32]; N],
        sixteen: bool,
    ) {
        let len = outs[0].len();
        assert!(len <= trace.x0.len() && outs.iter().all(|out| out.len() == len));
        if len < WIDTH {
            (0..len).for_each(|k| self.read_one(trace, k, outs));
            return;
        }
        let mut group = 0;
        while group < len {
            // A run that is not a whole number of groups ends with a group overlapping the one
            // before it: its slots get the same values again.
            let at = group.min(len - WIDTH);
            // Sixteen slots at once where AVX-512 runs and they all read without a gather.
            // SAFETY: the caller promises AVX-512 where `sixteen` is set.
            if sixteen
                && at + 2 * WIDTH <= len
                && unsafe { self.read_group16(trace, y, start, at, outs) }
            {
                group += 2 * WIDTH;
                continue;
            }
            // SAFETY: the caller promises AVX2.
            if !unsafe { self.read_group(trace, y, start, at, outs) } {
                (at..at + WIDTH).for_each(|k| self.read_one(trace, k, outs));
            }
            group += WIDTH;
        }
    }

    /// [`Near::read_group`] on sixteen slots `at..at + 16` in AVX-512: `false`, writing
    /// nothing, unless every one lands within a cell of its own and the loads stay in the
    /// grid.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn read_group16(
        &self,
        trace: &Trace,
        y: usize,
        start: usize,
        at: usize,
        outs: &mut [&mut [f32]; N],
    ) -> bool {
        const SIXTEEN: usize = 2 * WIDTH;
        let cells = self.cells;
        let x = start + at;
        let below = (if y > 0 { y - 1 } else { y }) * cells;
        let here = y * cells;
        let above = (if y + 1 < cells { y + 1 } else { y }) * cells;
        // The loads span columns `x - 1..x + 17` of those rows.
        if below + x == 0 || above + x + SIXTEEN + 1 > cells * cells {
            return false;
        }
        debug_assert!(at + SIXTEEN <= trace.x0.len());
        // SAFETY: `at + 16 <= len <= RUN` (checked in `read_run`).
        let (x0, y0) = unsafe {
            (
                _mm512_loadu_si512(trace.x0.as_ptr().add(at).cast()),
                _mm512_loadu_si512(trace.y0.as_ptr().add(at).cast()),
            )
        };
        let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let left = _mm512_add_epi32(_mm512_set1_epi32(x as i32 - 1), lane);
        let dx = _mm512_sub_epi32(x0, left);
        let dy = _mm512_sub_epi32(y0, _mm512_set1_epi32(y as i32 - 1));
        let not_0_or_1 = _mm512_set1_epi32(!1);
        if _mm512_test_epi32_mask(dx, not_0_or_1) != 0
            || _mm512_test_epi32_mask(dy, not_0_or_1) != 0
        {
            return false;
        }
        let zero = _mm512_setzero_si512();
        let from_left: __mmask16 = _mm512_cmpeq_epi32_mask(dx, zero);
        let from_below: __mmask16 = _mm512_cmpeq_epi32_mask(dy, zero);
        // SAFETY: as above.
        let (fx, fy) = unsafe {
            (
                _mm512_loadu_ps(trace.fx.as_ptr().add(at)),
                _mm512_loadu_ps(trace.fy.as_ptr().add(at)),
            )
        };
        let uniform = |mask: __mmask16| mask == 0 || mask == 0xffff;
        let same_corners = uniform(from_left) && uniform(from_below);
        let near_row = if from_below == 0xffff { below } else { here };
        let far_row = if from_below == 0xffff { here } else { above };
        let column = if from_left == 0xffff { x - 1 } else { x };
        for (field, out) in self.fields.iter().zip(outs.iter_mut()) {
            // SAFETY: every field holds `cells²` floats (checked in `new`); the loads read
            // `below + x - 1 >= 0` up to `above + x + 17 <= cells²` (checked above); `out`
            // holds `len >= at + 16` floats.
            unsafe {
                let base = field.as_ptr();
                let [near_0, near_1, far_0, far_1] = if same_corners {
                    let load =
                        |row: usize, shift: usize| _mm512_loadu_ps(base.add(row + column + shift));
                    [
                        load(near_row, 0),
                        load(near_row, 1),
                        load(far_row, 0),
                        load(far_row, 1),
                    ]
                } else {
                    let load =
                        |row: usize, shift: usize| _mm512_loadu_ps(base.add(row + x + shift - 1));
                    // `low` where the mask is set, else `high`.
                    let select = |low: __m512, high: __m512, mask: __mmask16| {
                        _mm512_mask_blend_ps(mask, high, low)
                    };
                    let near: [__m512; 3] = std::array::from_fn(|shift| {
                        select(load(below, shift), load(here, shift), from_below)
                    });
                    let far: [__m512; 3] = std::array::from_fn(|shift| {
                        select(load(here, shift), load(above, shift), from_below)
                    });
                    [
                        select(near[0], near[1], from_left),
                        select(near[1], near[2], from_left),
                        select(far[0], far[1], from_left),
                        select(far[1], far[2], from_left),
                    ]
                };
                // `Trace::read`'s blends, operation for operation.
                let a = _mm512_add_ps(near_0, _mm512_mul_ps(_mm512_sub_ps(near_1, near_0), fx));
                let b = _mm512_add_ps(far_0, _mm512_mul_ps(_mm512_sub_ps(far_1, far_0), fx));
                let value = _mm512_add_ps(a, _mm512_mul_ps(_mm512_sub_ps(b, a), fy));
                _mm512_storeu_ps(out.as_mut_ptr().add(at), value);
            }
        }
        true
    }

    /// Slots `at..at + 8` without a gather, if each lands within a cell of its own (see the
    /// module's docs); `false`, writing nothing, if not.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn read_group(
        &self,
        trace: &Trace,
        y: usize,
        start: usize,
        at: usize,
        outs: &mut [&mut [f32]; N],
    ) -> bool {
        let cells = self.cells;
        let x = start + at;
        // Rows `y - 1` and `y + 1`, or row `y` where the grid has none (then never selected:
        // `y0` is never -1, nor `cells - 1`).
        let below = (if y > 0 { y - 1 } else { y }) * cells;
        let here = y * cells;
        let above = (if y + 1 < cells { y + 1 } else { y }) * cells;
        // The loads span columns `x - 1..x + 9` of those rows.
        if below + x == 0 || above + x + WIDTH + 1 > cells * cells {
            return false;
        }
        debug_assert!(at + WIDTH <= trace.x0.len());
        // SAFETY: `at + 8 <= len <= RUN` (checked in `read_run`), so the eight slots lie in
        // the trace's arrays.
        let (x0, y0) = unsafe {
            (
                _mm256_loadu_si256(trace.x0.as_ptr().add(at).cast::<__m256i>()),
                _mm256_loadu_si256(trace.y0.as_ptr().add(at).cast::<__m256i>()),
            )
        };
        // `x0 - (x - 1 + lane)` and `y0 - (y - 1)`: each must be 0 or 1 (indices are below
        // 2^31: grids are far smaller).
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let left = _mm256_add_epi32(_mm256_set1_epi32(x as i32 - 1), lane);
        let dx = _mm256_sub_epi32(x0, left);
        let dy = _mm256_sub_epi32(y0, _mm256_set1_epi32(y as i32 - 1));
        let not_0_or_1 = _mm256_set1_epi32(!1);
        if _mm256_testz_si256(dx, not_0_or_1) == 0 || _mm256_testz_si256(dy, not_0_or_1) == 0 {
            return false;
        }
        // Where `x0` is `x - 1` (else `x`), and where `y0` is `y - 1` (else `y`).
        let zero = _mm256_setzero_si256();
        let from_left = _mm256_castsi256_ps(_mm256_cmpeq_epi32(dx, zero));
        let from_below = _mm256_castsi256_ps(_mm256_cmpeq_epi32(dy, zero));
        // SAFETY: as above.
        let (fx, fy) = unsafe {
            (
                _mm256_loadu_ps(trace.fx.as_ptr().add(at)),
                _mm256_loadu_ps(trace.fy.as_ptr().add(at)),
            )
        };
        // Where every lane takes the same neighbours (smooth air: most groups), each corner is
        // one load and no select.
        let (left_mask, below_mask) = (
            _mm256_movemask_ps(from_left),
            _mm256_movemask_ps(from_below),
        );
        let uniform = |mask: i32| mask == 0 || mask == 0xff;
        let same_corners = uniform(left_mask) && uniform(below_mask);
        let near_row = if below_mask == 0xff { below } else { here };
        let far_row = if below_mask == 0xff { here } else { above };
        let column = if left_mask == 0xff { x - 1 } else { x };
        for (field, out) in self.fields.iter().zip(outs.iter_mut()) {
            // SAFETY: every field holds `cells²` floats (checked in `new`); the loads read
            // `below + x - 1 >= 0` up to `above + x + 9 <= cells²` (checked above; `column`
            // is `x - 1` or `x`); `out` holds `len >= at + 8` floats.
            unsafe {
                let base = field.as_ptr();
                let [near_0, near_1, far_0, far_1] = if same_corners {
                    let load =
                        |row: usize, shift: usize| _mm256_loadu_ps(base.add(row + column + shift));
                    [
                        load(near_row, 0),
                        load(near_row, 1),
                        load(far_row, 0),
                        load(far_row, 1),
                    ]
                } else {
                    let load =
                        |row: usize, shift: usize| _mm256_loadu_ps(base.add(row + x + shift - 1));
                    let select =
                        |low: __m256, high: __m256, mask: __m256| _mm256_blendv_ps(high, low, mask);
                    // The row `y0` and the row after it, at columns shifted by -1, 0 and +1.
                    let near: [__m256; 3] = std::array::from_fn(|shift| {
                        select(load(below, shift), load(here, shift), from_below)
                    });
                    let far: [__m256; 3] = std::array::from_fn(|shift| {
                        select(load(here, shift), load(above, shift), from_below)
                    });
                    [
                        select(near[0], near[1], from_left),
                        select(near[1], near[2], from_left),
                        select(far[0], far[1], from_left),
                        select(far[1], far[2], from_left),
                    ]
                };
                // `Trace::read`'s blends, operation for operation.
                let a = _mm256_add_ps(near_0, _mm256_mul_ps(_mm256_sub_ps(near_1, near_0), fx));
                let b = _mm256_add_ps(far_0, _mm256_mul_ps(_mm256_sub_ps(far_1, far_0), fx));
                let value = _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), fy));
                _mm256_storeu_ps(out.as_mut_ptr().add(at), value);
            }
        }
        true
    }

    /// Slot `k` of `trace` into `outs[..][k]`: [`Trace::read`] from the separate fields.
    #[inline(always)]
    fn read_one(&self, trace: &Trace, k: usize, outs: &mut [&mut [f32]; N]) {
        let cells = self.cells;
        let index = trace.held_index(k, cells);
        let (fx, fy) = (trace.fx[k], trace.fy[k]);
        for (field, out) in self.fields.iter().zip(outs.iter_mut()) {
            // One bounds check for the 2×2 block (`x0`, `y0` are at most `cells - 2`).
            let block = &field[index..][..cells + 2];
            let (near_0, near_1, far_0, far_1) =
                (block[0], block[1], block[cells], block[cells + 1]);
            let a = near_0 + (near_1 - near_0) * fx;
            let b = far_0 + (far_1 - far_0) * fx;
            out[k] = a + (b - a) * fy;
        }
    }
}
