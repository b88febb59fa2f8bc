//! The rows of the one-pass sweep ([`super::PressureSolver::sweep_in_step`]). Both colours'
//! arrays are checked once, and every row of one colour whose first `x` is the same reads its
//! neighbours at the same offsets from the row's start: four [`RowForm`]s, found once a sweep,
//! place any of the thousands of rows a solve relaxes with one multiplication, the same slices
//! [`super::relax_row`] cuts with checks.

use std::marker::PhantomData;

use super::{AlignedFloats, RelaxRow, first_x};

/// Where the rows of one colour with one first `x` read and write: the row `y` of that form
/// is `slots` floats from each pointer plus `(y - 1) * half`, its right neighbours one float
/// past its left ones.
#[derive(Debug, Clone, Copy)]
pub(super) struct RowForm {
    /// This colour's pressure: the interior slots of row 1's place.
    pub(super) out: *mut f32,
    /// This colour's divergence, slot for slot with `out`.
    pub(super) divergence: *const f32,
    /// The other colour's pressure, each slot's left neighbour.
    pub(super) left: *const f32,
    /// The other colour's pressure a row down (`y - 1`).
    pub(super) below: *const f32,
    /// The other colour's pressure a row up (`y + 1`).
    pub(super) above: *const f32,
    /// Interior slots a row.
    pub(super) slots: usize,
}

/// Both colours' pressure and divergence of a `cells`-wide grid (`half` slots a row), lent for
/// one sweep: [`ColourRows::row`] hands out one row with its neighbours at a time.
pub(super) struct ColourRows<'a> {
    cells: usize,
    half: usize,
    /// `forms[colour][first_x]`.
    forms: [[RowForm; 2]; 2],
    /// The arrays are borrowed (the pressure mutably) for as long as this lives.
    _arrays: PhantomData<(&'a mut [f32], &'a [f32])>,
}

impl<'a> ColourRows<'a> {
    /// The colours' arrays of a `cells`-wide grid (at least 3), `half` slots a row, each
    /// checked here to hold `cells * half` floats.
    pub(super) fn new(
        pressure: &'a mut [AlignedFloats; 2],
        divergence: &'a [AlignedFloats; 2],
        cells: usize,
        half: usize,
    ) -> Self {
        let size = cells.checked_mul(half).expect("a grid that fits in memory");
        assert!(
            cells >= 3
                && half == cells.div_ceil(2)
                && pressure
                    .iter()
                    .chain(divergence)
                    .all(|colour| colour.len() >= size),
            "colour arrays for a {cells}-wide grid"
        );
        let [even, odd] = pressure;
        let pressure = [even.as_mut_ptr(), odd.as_mut_ptr()];
        let form = |colour: usize, start: usize| {
            // As in `relax_row`: slots `k_first..k_end` of row `y` are the interior cells
            // `x = start + 2k`, and the left and right neighbours of slot `k` are the other
            // colour's slots `k + start - 1` (so `0` for `k_first`) and the one after.
            let k_first = 1 - start;
            let k_end = (cells - 2 - start) / 2 + 1;
            let theirs = pressure[1 - colour].cast_const();
            // SAFETY: every offset is at most `2 * half + 1 <= cells * half` (cells >= 3), so
            // each pointer lies in (or one past) its array.
            unsafe {
                RowForm {
                    out: pressure[colour].add(half + k_first),
                    divergence: divergence[colour].as_ptr().add(half + k_first),
                    left: theirs.add(half),
                    below: theirs.add(k_first),
                    above: theirs.add(2 * half + k_first),
                    slots: k_end - k_first,
                }
            }
        };
        Self {
            cells,
            half,
            forms: [[form(0, 0), form(0, 1)], [form(1, 0), form(1, 1)]],
            _arrays: PhantomData,
        }
    }

    /// Row `y` (`1..=cells - 2`) of colour `colour`: its form and the offset of its start
    /// from row 1's, `(y - 1) * half`.
    #[inline(always)]
    pub(super) fn place(&self, colour: usize, y: usize) -> (&RowForm, usize) {
        assert!(
            colour < 2 && y >= 1 && y + 1 < self.cells,
            "row {y} of colour {colour}"
        );
        (&self.forms[colour][first_x(colour, y)], (y - 1) * self.half)
    }

    /// Rows `y, y - SPACING, …` (`count` of them, at least one, all in `1..=cells - 2`) of
    /// colour `colour`, `SPACING` even so that they share a form: the form, the offset of the
    /// first row's start from row 1's and how much less each next row's is.
    #[inline(always)]
    pub(super) fn place_run<const SPACING: usize>(
        &self,
        colour: usize,
        y: usize,
        count: usize,
    ) -> (&RowForm, usize, usize) {
        const { assert!(SPACING.is_multiple_of(2)) };
        assert!(
            count >= 1 && y > SPACING * (count - 1),
            "{count} rows from row {y}"
        );
        let (form, at) = self.place(colour, y);
        (form, at, SPACING * self.half)
    }

    /// The interior slots of row `y` (`1..=cells - 2`) of colour `colour` with their
    /// neighbours in the other colour: exactly the slices of [`super::relax_row`].
    #[inline(always)]
    pub(super) fn row(&mut self, colour: usize, y: usize) -> RelaxRow<'_> {
        let (form, at) = self.place(colour, y);
        // SAFETY: every array holds `cells * half` floats (checked in `new`). Row `y`'s
        // slices start `at = (y - 1) * half` past their form's pointers, which lie in rows 0
        // to 2, so they lie in rows `y - 1` to `y + 1 <= cells - 1`, and end at slot
        // `k_end <= half` of their row (`out`, `below`, `above`, `divergence`) or
        // `1 + slots <= half` (`right`): `k_end` is `cells / 2` rounded down for `start = 0`,
        // and `1 + slots = k_end + 1 = half` for `start = 1`. `out` lies in this colour's
        // pressure, every other slice in the other colour's pressure or this colour's
        // divergence, separate allocations, so the one mutable slice overlaps none of them;
        // `&mut self` keeps it the only row lent.
        unsafe {
            let slots = form.slots;
            RelaxRow {
                out: std::slice::from_raw_parts_mut(form.out.add(at), slots),
                left: std::slice::from_raw_parts(form.left.add(at), slots),
                right: std::slice::from_raw_parts(form.left.add(at + 1), slots),
                below: std::slice::from_raw_parts(form.below.add(at), slots),
                above: std::slice::from_raw_parts(form.above.add(at), slots),
                divergence: std::slice::from_raw_parts(form.divergence.add(at), slots),
            }
        }
    }
}
