//! Masks: regions of a picture that a comparison leaves out (`DIR/mask_NNNN.png` beside a
//! reference, or `--mask FILE` for every frame).
//!
//! A mask is a PNG of the frame's size. Its white pixels (red at least 128 and alpha at least
//! 128) hide the pixel below: the actual picture takes the expected value there before
//! anything is measured, so no figure and no heat map sees a difference under the mask.
//! Every other pixel is compared as usual, and the fraction over the budget still counts
//! all pixels.

use super::{Image, load_png};
use crate::Error;
use crate::error::RequestError;
use std::path::{Path, PathBuf};

/// The file name of frame `frame`'s own mask inside a golden folder.
pub fn mask_file_name(frame: u32) -> String {
    format!("mask_{frame:04}.png")
}

/// The mask of a frame: its own `DIR/mask_NNNN.png` when it exists, else `shared` (from
/// `--mask`), else none.
pub fn mask_for(golden: &Path, frame: u32, shared: Option<&Path>) -> Option<PathBuf> {
    let own = golden.join(mask_file_name(frame));
    if own.is_file() {
        return Some(own);
    }
    shared.map(Path::to_path_buf)
}

/// Reads the mask at `path` for a picture of `width` × `height`; a mask of another size is
/// bad input that names the file and both sizes.
pub fn load_mask(path: &Path, width: u32, height: u32) -> Result<Image, Error> {
    let mask = load_png(path)?;
    if (mask.width, mask.height) != (width, height) {
        return Err(RequestError::Mask(format!(
            "the mask {} is {}x{}, but the pictures are {width}x{height}; draw it at the \
             pictures' size",
            path.display(),
            mask.width,
            mask.height
        ))
        .into());
    }
    Ok(mask)
}

/// Copies `expected` into `actual` under the white pixels of `mask`; returns how many pixels
/// it hid. Pictures of another size than the mask are left alone (their comparison fails on
/// size).
pub fn apply_mask(mask: &Image, expected: &Image, actual: &mut Image) -> usize {
    let same = |i: &Image| (i.width, i.height) == (mask.width, mask.height);
    if !same(expected) || !same(actual) || mask.check().is_err() {
        return 0;
    }
    let mut hidden = 0;
    for ((m, e), a) in mask
        .rgba8
        .chunks_exact(4)
        .zip(expected.rgba8.chunks_exact(4))
        .zip(actual.rgba8.chunks_exact_mut(4))
    {
        if m[0] >= 128 && m[3] >= 128 {
            a.copy_from_slice(e);
            hidden += 1;
        }
    }
    hidden
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn white_hides_and_black_keeps() {
        let expected = Image::filled(4, 1, [10, 10, 10, 255]);
        let mut actual = Image::filled(4, 1, [90, 90, 90, 255]);
        let mut mask = Image::filled(4, 1, [0, 0, 0, 255]);
        mask.rgba8[4..8].copy_from_slice(&[255, 255, 255, 255]);
        mask.rgba8[8..12].copy_from_slice(&[255, 255, 255, 0]);
        assert_eq!(apply_mask(&mask, &expected, &mut actual), 1);
        assert_eq!(&actual.rgba8[4..8], &[10, 10, 10, 255]);
        assert_eq!(
            &actual.rgba8[8..12],
            &[90, 90, 90, 255],
            "transparent white keeps"
        );
        assert_eq!(&actual.rgba8[0..4], &[90, 90, 90, 255]);
    }
}
