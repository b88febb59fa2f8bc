//! The pressure sweep's rows in vectors: eight lanes with AVX2, sixteen with AVX-512 where the
//! CPU has it ([`Lanes::Avx512`](super::super::lanes::Lanes)). Both run [`RelaxRow::relax`]'s
//! operations in the same order on each slot, so the same bits as the scalar loop. The
//! kernels' helpers are always inlined into the functions with the instructions and hold no
//! closure over an intrinsic (a closure would be compiled without them).
//!
//! A row that is not a whole number of vectors ends with a vector that overlaps the one before
//! it. That last vector is computed first, from the row as it was, and stored last, so SOR
//! reads only old values and the slots both cover get the same value twice.

use std::arch::x86_64::{
    __m256, __m512, _mm256_add_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_set1_ps,
    _mm256_storeu_ps, _mm256_sub_ps, _mm512_add_ps, _mm512_loadu_ps, _mm512_mul_ps, _mm512_set1_ps,
    _mm512_storeu_ps, _mm512_sub_ps,
};

use std::marker::PhantomData;

use super::rows::{ColourRows, RowForm};
use super::{PressureSolver, RelaxRow, Update};
use crate::sim::lanes;

impl<'a> RelaxRow<'a> {
    /// [`RelaxRow::relax`] in AVX2 vectors of eight slots, the same operations in the same
    /// order on each slot, so the same bits. A row that is not a whole number of vectors ends
    /// with a vector that overlaps the one before it; it is computed first, from the row as it
    /// was, and stored last, so the slots both cover get the same value twice (SOR reads each
    /// slot's old value, which must not have been replaced yet). Rows under eight slots (grids
    /// under 18 cells) take the scalar loop.
    #[target_feature(enable = "avx2")]
    pub(super) fn relax_avx2(self, update: impl Update) {
        // SAFETY: this function's feature is AVX2.
        unsafe { self.relax_wide(update) }
    }

    /// [`RelaxRow::relax_avx2`]'s body, inlined into AVX2 callers (a function with the
    /// feature is not always inlined into another). It holds no closure: a closure would be
    /// compiled without the caller's instructions.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[inline(always)]
    pub(super) unsafe fn relax_wide(self, update: impl Update) {
        // SAFETY: the caller promises AVX2.
        unsafe { self.starts().relax_wide(update) }
    }

    /// Where each slice starts, every one checked to hold `out.len()` floats.
    #[inline(always)]
    pub(super) fn starts(self) -> RowStarts<'a> {
        let slots = self.out.len();
        RowStarts {
            slots,
            left: self.left[..slots].as_ptr(),
            right: self.right[..slots].as_ptr(),
            below: self.below[..slots].as_ptr(),
            above: self.above[..slots].as_ptr(),
            divergence: self.divergence[..slots].as_ptr(),
            out: self.out.as_mut_ptr(),
            _row: PhantomData,
        }
    }
}

/// A [`RelaxRow`] as the starts of its slices, each holding `slots` floats, for the wide
/// kernels to read at offsets they check; it holds the row's borrows for as long as it lives.
pub(in crate::sim::pressure) struct RowStarts<'a> {
    pub(super) slots: usize,
    pub(super) left: *const f32,
    pub(super) right: *const f32,
    pub(super) below: *const f32,
    pub(super) above: *const f32,
    pub(super) divergence: *const f32,
    pub(super) out: *mut f32,
    _row: PhantomData<RelaxRow<'a>>,
}

impl RowStarts<'_> {
    /// [`RelaxRow::relax`] on these slots, one at a time (rows under one vector).
    #[inline(always)]
    fn relax_scalar(self, update: impl Update) {
        let slots = self.slots;
        // SAFETY: every slice holds `slots` floats and `out` overlaps none of the others
        // (the borrows of the row these starts came from).
        let row = unsafe {
            RelaxRow {
                out: std::slice::from_raw_parts_mut(self.out, slots),
                left: std::slice::from_raw_parts(self.left, slots),
                right: std::slice::from_raw_parts(self.right, slots),
                below: std::slice::from_raw_parts(self.below, slots),
                above: std::slice::from_raw_parts(self.above, slots),
                divergence: std::slice::from_raw_parts(self.divergence, slots),
            }
        };
        row.relax(update);
    }

    /// [`RelaxRow::relax_avx2`] on these slots.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[inline(always)]
    unsafe fn relax_wide(self, update: impl Update) {
        const WIDTH: usize = 8;
        if self.slots < WIDTH {
            self.relax_scalar(update);
            return;
        }
        let last = self.slots - WIDTH;
        // SAFETY: `k + 8 <= slots` for every `k` read (`k < last`, and `last`); the caller
        // promises AVX2.
        unsafe {
            let tail = self.relaxed_at(last, update);
            let mut k = 0;
            while k < last {
                let value = self.relaxed_at(k, update);
                _mm256_storeu_ps(self.out.add(k), value);
                k += WIDTH;
            }
            _mm256_storeu_ps(self.out.add(last), tail);
        }
    }

    /// [`RelaxRow::relax_avx512`] on these slots.
    ///
    /// # Safety
    /// The CPU must support AVX2 and AVX-512.
    #[inline(always)]
    unsafe fn relax_wide512(self, update: impl Update) {
        const WIDTH: usize = 16;
        if self.slots < WIDTH {
            // SAFETY: the caller promises AVX2.
            unsafe { self.relax_wide(update) };
            return;
        }
        let last = self.slots - WIDTH;
        // SAFETY: `k + 16 <= slots` for every `k` read (`k < last`, and `last`); the caller
        // promises AVX-512.
        unsafe {
            let tail = self.relaxed_at512(last, update);
            let mut k = 0;
            while k < last {
                let value = self.relaxed_at512(k, update);
                _mm512_storeu_ps(self.out.add(k), value);
                k += WIDTH;
            }
            _mm512_storeu_ps(self.out.add(last), tail);
        }
    }
}

impl RowStarts<'_> {
    /// The slots `k..k + 8` as [`RelaxRow::relax`] computes them.
    ///
    /// # Safety
    /// The CPU must support AVX2, and `k + 8 <= slots`.
    #[inline(always)]
    unsafe fn relaxed_at(&self, k: usize, update: impl Update) -> __m256 {
        debug_assert!(k + 8 <= self.slots);
        // SAFETY: the caller's promises; every slice holds `slots` floats.
        unsafe {
            let sum = _mm256_add_ps(
                _mm256_loadu_ps(self.left.add(k)),
                _mm256_loadu_ps(self.right.add(k)),
            );
            let sum = _mm256_add_ps(sum, _mm256_loadu_ps(self.below.add(k)));
            let sum = _mm256_add_ps(sum, _mm256_loadu_ps(self.above.add(k)));
            let sum = _mm256_sub_ps(sum, _mm256_loadu_ps(self.divergence.add(k)));
            let relaxed = _mm256_mul_ps(sum, _mm256_set1_ps(0.25));
            let old = _mm256_loadu_ps(self.out.add(k));
            lanes::avx2::flush(update.wide(old, relaxed))
        }
    }
}

impl RelaxRow<'_> {
    /// [`RelaxRow::relax`] in AVX-512 vectors of sixteen slots, as [`RelaxRow::relax_avx2`]
    /// runs eight (the same overlapping last vector). Rows under sixteen slots take the AVX2
    /// kernel.
    #[target_feature(enable = "avx2,avx512f")]
    pub(in crate::sim::pressure) fn relax_avx512(self, update: impl Update) {
        // SAFETY: this function's features are AVX2 and AVX-512.
        unsafe { self.relax_wide512(update) }
    }

    /// [`RelaxRow::relax_avx512`]'s body, inlined into its callers.
    ///
    /// # Safety
    /// The CPU must support AVX2 and AVX-512.
    #[inline(always)]
    unsafe fn relax_wide512(self, update: impl Update) {
        // SAFETY: the caller promises AVX2 and AVX-512.
        unsafe { self.starts().relax_wide512(update) }
    }
}

impl RowStarts<'_> {
    /// The slots `k..k + 16` as [`RelaxRow::relax`] computes them.
    ///
    /// # Safety
    /// The CPU must support AVX-512, and `k + 16 <= slots`.
    #[inline(always)]
    unsafe fn relaxed_at512(&self, k: usize, update: impl Update) -> __m512 {
        debug_assert!(k + 16 <= self.slots);
        // SAFETY: the caller's promises; every slice holds `slots` floats.
        unsafe {
            let sum = _mm512_add_ps(
                _mm512_loadu_ps(self.left.add(k)),
                _mm512_loadu_ps(self.right.add(k)),
            );
            let sum = _mm512_add_ps(sum, _mm512_loadu_ps(self.below.add(k)));
            let sum = _mm512_add_ps(sum, _mm512_loadu_ps(self.above.add(k)));
            let sum = _mm512_sub_ps(sum, _mm512_loadu_ps(self.divergence.add(k)));
            let relaxed = _mm512_mul_ps(sum, _mm512_set1_ps(0.25));
            let old = _mm512_loadu_ps(self.out.add(k));
            lanes::avx512::flush(update.wide512(old, relaxed))
        }
    }
}

impl ColourRows<'_> {
    /// Where the rows `y, y - SPACING, …` (`count` of them, all in `1..=cells - 2`) of colour
    /// `colour` start ([`ColourRows::place_run`]): [`ColourRows::row`]'s slices without making
    /// them, row by row.
    #[inline(always)]
    fn run<const SPACING: usize>(&mut self, colour: usize, y: usize, count: usize) -> RowRun<'_> {
        let (&form, first, back) = self.place_run::<SPACING>(colour, y, count);
        RowRun {
            form,
            first,
            back,
            count,
            _rows: PhantomData,
        }
    }
}

/// A run of rows of one colour that share a form ([`ColourRows::run`]), lent while it lives.
struct RowRun<'a> {
    form: RowForm,
    /// Offset of the first row's start from row 1's.
    first: usize,
    /// How much less each next row's offset is.
    back: usize,
    count: usize,
    _rows: PhantomData<&'a mut [f32]>,
}

impl RowRun<'_> {
    /// Where the run's row `index` (`< count`) starts.
    #[inline(always)]
    fn row(&self, index: usize) -> RowStarts<'_> {
        assert!(index < self.count);
        let (form, at) = (&self.form, self.first - index * self.back);
        // SAFETY: the offsets of `ColourRows::row`'s slices (see there) for a row of the run
        // (`ColourRows::place_run` checked them all), which the run borrows; `&self` lends
        // one row at a time only to `RowStarts`, whose kernels write only `out`.
        unsafe {
            RowStarts {
                slots: form.slots,
                left: form.left.add(at),
                right: form.left.add(at + 1),
                below: form.below.add(at),
                above: form.above.add(at),
                divergence: form.divergence.add(at),
                out: form.out.add(at),
                _row: PhantomData,
            }
        }
    }
}

impl PressureSolver {
    /// [`PressureSolver::sweep_in_step`] with the rows in AVX2 ([`RelaxRow::relax_avx2`]).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn sweep_in_step_avx2<const SPACING: usize>(
        &mut self,
        iterations: u32,
        wave: u32,
        update: impl Update,
    ) {
        // SAFETY: the caller promises AVX2.
        let relax = |rows: &mut ColourRows<'_>, colour, y, count| {
            let run = rows.run::<SPACING>(colour, y, count);
            for index in 0..count {
                // SAFETY: the caller promises AVX2.
                unsafe { run.row(index).relax_wide(update) };
            }
        };
        self.sweep_in_step::<SPACING>(iterations, wave, relax);
    }

    /// [`PressureSolver::sweep_in_step`] with the rows in AVX-512
    /// ([`RelaxRow::relax_avx512`]).
    ///
    /// # Safety
    /// The CPU must support AVX2 and AVX-512.
    #[target_feature(enable = "avx2,avx512f")]
    pub(super) unsafe fn sweep_in_step_avx512<const SPACING: usize>(
        &mut self,
        iterations: u32,
        wave: u32,
        update: impl Update,
    ) {
        // SAFETY: the caller promises AVX2 and AVX-512.
        let relax = |rows: &mut ColourRows<'_>, colour, y, count| {
            let run = rows.run::<SPACING>(colour, y, count);
            for index in 0..count {
                // SAFETY: the caller promises AVX2 and AVX-512.
                unsafe { run.row(index).relax_wide512(update) };
            }
        };
        self.sweep_in_step::<SPACING>(iterations, wave, relax);
    }
}
