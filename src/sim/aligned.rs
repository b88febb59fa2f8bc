//! The fluid's fields and the pressure solver's colour arrays on 64-byte boundaries
//! ([`AlignedFloats`]): a row whose start is on a boundary is read and written in whole cache
//! lines by sixteen-lane AVX-512 vectors (and never split by eight-lane ones), where at an
//! arbitrary start every 64-byte vector would straddle two lines.

use std::ops::{Deref, DerefMut};

/// Sixteen floats on a 64-byte boundary.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Block([f32; 16]);

/// A zeroed run of floats starting on a 64-byte boundary, used as a slice.
#[derive(Clone)]
pub(super) struct AlignedFloats {
    blocks: Vec<Block>,
    len: usize,
}

impl AlignedFloats {
    /// `len` zeros.
    pub(super) fn zeros(len: usize) -> Self {
        Self::filled(len, 0.0)
    }

    /// `len` copies of `value`.
    pub(super) fn filled(len: usize, value: f32) -> Self {
        Self {
            blocks: vec![Block([value; 16]); len.div_ceil(16)],
            len,
        }
    }

    /// A copy of `values`.
    pub(super) fn from_slice(values: &[f32]) -> Self {
        let mut floats = Self::zeros(values.len());
        floats.copy_from_slice(values);
        floats
    }
}

impl Default for AlignedFloats {
    fn default() -> Self {
        Self::zeros(0)
    }
}

impl Deref for AlignedFloats {
    type Target = [f32];

    fn deref(&self) -> &[f32] {
        // SAFETY: `Block` is sixteen `f32`s with no padding (`repr(C)`, 64 bytes), so the
        // blocks are `16 * blocks.len() >= len` contiguous, initialised floats.
        unsafe { std::slice::from_raw_parts(self.blocks.as_ptr().cast::<f32>(), self.len) }
    }
}

impl DerefMut for AlignedFloats {
    fn deref_mut(&mut self) -> &mut [f32] {
        // SAFETY: as in `deref`, borrowed mutably through `&mut self`.
        unsafe { std::slice::from_raw_parts_mut(self.blocks.as_mut_ptr().cast::<f32>(), self.len) }
    }
}

impl std::fmt::Debug for AlignedFloats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlignedFloats")
            .field("len", &self.len)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_floats_start_on_a_cache_line_and_hold_their_length() {
        for len in [0, 1, 15, 16, 17, 4608] {
            let mut floats = AlignedFloats::zeros(len);
            assert_eq!(floats.len(), len);
            assert!(floats.iter().all(|&value| value == 0.0));
            assert_eq!(floats.as_ptr() as usize % 64, 0);
            if len > 0 {
                floats[len - 1] = 2.5;
                assert_eq!(floats.clone()[len - 1], 2.5);
            }
        }
    }
}
