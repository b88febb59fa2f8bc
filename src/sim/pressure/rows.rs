//! The rows of the one-pass sweep ([`super::PressureSolver::sweep_in_step`]): both colours'
//! arrays checked once, so each of the thousands of rows a solve relaxes is found with a few
//! additions and no bounds checks, the same slices [`super::relax_row`] cuts with them.

use std::marker::PhantomData;

use super::{RelaxRow, Update, first_x};

/// Both colours' pressure and divergence of a `cells`-wide grid (`half` slots a row), lent for
/// one sweep: [`ColourRows::row`] hands out one row with its neighbours at a time.
pub(super) struct ColourRows<'a> {
    cells: usize,
    half: usize,
    /// Each colour's pressure, `cells * half` floats from here.
    pressure: [*mut f32; 2],
    /// Each colour's divergence, `cells * half` floats from here.
    divergence: [*const f32; 2],
    /// The arrays are borrowed (the pressure mutably) for as long as this lives.
    _arrays: PhantomData<(&'a mut [f32], &'a [f32])>,
}

impl<'a> ColourRows<'a> {
    /// The colours' arrays of a `cells`-wide grid, `half` slots a row, each checked here to
    /// hold `cells * half` floats.
    pub(super) fn new(
        pressure: &'a mut [Vec<f32>; 2],
        divergence: &'a [Vec<f32>; 2],
        cells: usize,
        half: usize,
    ) -> Self {
        let size = cells.checked_mul(half).expect("a grid that fits in memory");
        assert!(
            half == cells.div_ceil(2)
                && pressure
                    .iter()
                    .chain(divergence)
                    .all(|colour| colour.len() >= size),
            "colour arrays for a {cells}-wide grid"
        );
        let [even, odd] = pressure;
        Self {
            cells,
            half,
            pressure: [even.as_mut_ptr(), odd.as_mut_ptr()],
            divergence: [divergence[0].as_ptr(), divergence[1].as_ptr()],
            _arrays: PhantomData,
        }
    }

    /// The interior slots of row `y` (`1..=cells - 2`) of colour `colour` with their
    /// neighbours in the other colour: exactly the slices of [`super::relax_row`].
    #[inline(always)]
    pub(super) fn row(&mut self, colour: usize, y: usize) -> RelaxRow<'_> {
        let (cells, half) = (self.cells, self.half);
        assert!(
            colour < 2 && y >= 1 && y + 1 < cells,
            "row {y} of colour {colour}"
        );
        let start = first_x(colour, y);
        // As in `relax_row`: slots `k_first..k_end` are the interior cells `x = start + 2k`,
        // and the left and right neighbours of slot `k` are the other colour's slots
        // `k + start - 1` (so `0` for `k_first`) and the one after.
        let k_first = 1 - start;
        let k_end = (cells - 2 - start) / 2 + 1;
        let slots = k_end - k_first;
        let at = y * half;
        let other = 1 - colour;
        debug_assert!(k_end <= half && slots < half);
        // SAFETY: every array holds `cells * half` floats (checked in `new`). With
        // `1 <= y <= cells - 2` (checked above), rows `y - 1` to `y + 1` lie in them, and in a
        // row the slices end at `k_end <= half` (`out`, `below`, `above`, `divergence`) and
        // `1 + slots <= half` (`right`): `k_end` is `cells / 2` rounded down for `start = 0`,
        // and `1 + slots = k_end + 1 = half` for `start = 1`. `out` lies in this colour's
        // pressure, every other slice in the other colour's pressure or this colour's
        // divergence, separate allocations, so the one mutable slice overlaps none of them;
        // `&mut self` keeps it the only row lent.
        unsafe {
            let theirs = self.pressure[other].cast_const();
            RelaxRow {
                out: std::slice::from_raw_parts_mut(self.pressure[colour].add(at + k_first), slots),
                left: std::slice::from_raw_parts(theirs.add(at), slots),
                right: std::slice::from_raw_parts(theirs.add(at + 1), slots),
                below: std::slice::from_raw_parts(theirs.add(at - half + k_first), slots),
                above: std::slice::from_raw_parts(theirs.add(at + half + k_first), slots),
                divergence: std::slice::from_raw_parts(
                    self.divergence[colour].add(at + k_first),
                    slots,
                ),
            }
        }
    }

    /// Relaxes [`ColourRows::row`] in AVX2 ([`RelaxRow::relax_avx2`]). Not inlined: the
    /// sweep's loop then keeps a handful of values in registers, and each row is found afresh
    /// from the arrays' starts, in fewer instructions than the loop spends keeping every
    /// slice's start up to date.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    pub(super) unsafe fn relax_avx2(&mut self, colour: usize, y: usize, update: impl Update) {
        // SAFETY: this function's feature is AVX2.
        unsafe { self.row(colour, y).relax_wide(update) };
    }
}
