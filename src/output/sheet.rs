//! Contact sheets: many stills on one dark page, each with a label such as its frame number.
//!
//! `fogbank sheet` uses this to show a clip at a glance (documentation, reviews, bug reports).
//! Frames are laid out left to right, top to bottom, in the order given; each cell is as large
//! as the largest frame (smaller frames are centred in it) and has a label band underneath,
//! lettered in the bundled typeface ([`super::text`], the caption strip's). The result is plain RGBA8, ready for
//! [`super::png::encode_rgba8`]. [`thumbnail`] shrinks frames first when the sheet would be
//! too large. The page is an `image` buffer: the `image` crate copies the frames in and
//! shrinks them (`image::imageops`).

use image::imageops;
use image::{ImageBuffer, Rgba, RgbaImage};

use super::text::{Canvas, TextStyle, draw_text};
use crate::frame::Frame;

/// Background of the page and the label bands: a dark grey that reads as "not the picture".
pub const BACKGROUND: [u8; 4] = [22, 22, 26, 255];
/// Colour of the label text (anti-aliased over [`BACKGROUND`]).
pub const LABEL_COLOUR: [u8; 3] = [225, 225, 225];
/// The largest sheet, in pixels, that [`contact_sheet`] will build (1 GiB of RGBA8).
pub const MAX_SHEET_PIXELS: u64 = 1 << 28;

/// A finished contact sheet: tightly packed 8-bit sRGB RGBA, rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub rgba8: Vec<u8>,
}

/// Where things go on a sheet; every number is in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SheetLayout {
    /// Number of columns actually used (never more than the number of frames).
    pub columns: u32,
    /// Number of rows.
    pub rows: u32,
    /// Width of the picture part of each cell (the widest frame).
    pub cell_width_px: u32,
    /// Height of the picture part of each cell (the tallest frame).
    pub cell_height_px: u32,
    /// Height of the label band under each picture.
    pub label_band_px: u32,
    /// Gap between cells and around the edge.
    pub gap_px: u32,
    /// The labels' em size, pixels.
    pub label_px: u32,
}

impl SheetLayout {
    /// Top-left corner of the picture part of cell `index`.
    pub fn cell_origin_px(&self, index: u32) -> (u32, u32) {
        let column = index % self.columns;
        let row = index / self.columns;
        let x = self.gap_px + column * (self.cell_width_px + self.gap_px);
        let y = self.gap_px + row * (self.cell_height_px + self.label_band_px + self.gap_px);
        (x, y)
    }

    /// Top-left corner of the label band of cell `index`.
    pub fn label_origin_px(&self, index: u32) -> (u32, u32) {
        let (x, y) = self.cell_origin_px(index);
        (x, y + self.cell_height_px)
    }

    /// Width of the whole sheet, in 64 bits so absurd requests cannot overflow.
    fn width_px(&self) -> u64 {
        let cells = self.columns as u64 * self.cell_width_px as u64;
        cells + (self.columns as u64 + 1) * self.gap_px as u64
    }

    /// Height of the whole sheet, in 64 bits.
    fn height_px(&self) -> u64 {
        let per_row = self.cell_height_px as u64 + self.label_band_px as u64;
        self.rows as u64 * per_row + (self.rows as u64 + 1) * self.gap_px as u64
    }
}

/// Why a sheet could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SheetError {
    /// Nothing to show.
    #[error("a contact sheet needs at least one frame: check --frames")]
    NoFrames,
    /// `--columns 0`.
    #[error("--columns must be at least 1")]
    NoColumns,
    /// A frame whose pixel buffer does not match its size (a bug upstream, not user input).
    #[error("frame {frame_index} is {width}×{height} but has {len} bytes of pixels")]
    BadFrame {
        /// The frame's number.
        frame_index: u32,
        /// Its stated width.
        width: u32,
        /// Its stated height.
        height: u32,
        /// Bytes actually present.
        len: usize,
    },
    /// The sheet would not fit in memory.
    #[error(
        "the contact sheet would be {width}×{height} pixels, more than {MAX_SHEET_PIXELS}: \
         show fewer frames (--frames with a step) or render smaller stills (--size)"
    )]
    TooLarge {
        /// Width the sheet would have had.
        width: u64,
        /// Height the sheet would have had.
        height: u64,
    },
}

impl SheetError {
    /// True when the request itself was wrong (no frames, no columns, a sheet too large to
    /// build: fixing the command line fixes it); false for [`SheetError::BadFrame`], a
    /// renderer bug.
    pub fn is_bad_input(&self) -> bool {
        match self {
            SheetError::NoFrames | SheetError::NoColumns | SheetError::TooLarge { .. } => true,
            SheetError::BadFrame { .. } => false,
        }
    }
}

/// The labels' em size for cells `cell_width_px` wide: they grow with the pictures, a 20th of
/// the width, from 10 pixels (up to 200 wide) to 48 (from 960 wide).
pub fn label_px_for(cell_width_px: u32) -> u32 {
    (cell_width_px / 20).clamp(10, 48)
}

/// Works out the layout for `frames` in `columns` columns (clamped to the frame count).
pub fn layout(frames: &[Frame], columns: u32) -> Result<SheetLayout, SheetError> {
    if frames.is_empty() {
        return Err(SheetError::NoFrames);
    }
    if columns == 0 {
        return Err(SheetError::NoColumns);
    }
    let count = frames.len().min(u32::MAX as usize) as u32;
    let columns = columns.min(count);
    let rows = count.div_ceil(columns);
    let cell_width_px = frames.iter().map(|f| f.width).max().unwrap_or(1).max(1);
    let cell_height_px = frames.iter().map(|f| f.height).max().unwrap_or(1).max(1);
    let label_px = label_px_for(cell_width_px);
    let line_px = TextStyle::new(label_px as f32).line_px().max(1) as u32;
    let label_band_px = line_px + label_px / 2;
    let gap_px = 4 + label_px / 4;
    Ok(SheetLayout {
        columns,
        rows,
        cell_width_px,
        cell_height_px,
        label_band_px,
        gap_px,
        label_px,
    })
}

/// Lays `frames` out in `columns` columns on a dark page, each with the text `label(frame)`
/// centred underneath (e.g. `|f| format!("{}", f.frame_index)`).
///
/// A label that does not fit the cell is cut, ending in `…`.
pub fn contact_sheet(
    frames: &[Frame],
    columns: u32,
    label: impl Fn(&Frame) -> String,
) -> Result<SheetImage, SheetError> {
    for frame in frames {
        let expected = frame.width as u64 * frame.height as u64 * 4;
        if frame.rgba8.len() as u64 != expected {
            return Err(SheetError::BadFrame {
                frame_index: frame.frame_index,
                width: frame.width,
                height: frame.height,
                len: frame.rgba8.len(),
            });
        }
    }
    let layout = layout(frames, columns)?;
    let (width, height) = sheet_size(&layout)?;

    let mut page = RgbaImage::from_pixel(width, height, Rgba(BACKGROUND));
    for (index, frame) in frames.iter().enumerate() {
        let (cell_x, cell_y) = layout.cell_origin_px(index as u32);
        let x = cell_x + (layout.cell_width_px - frame.width) / 2;
        let y = cell_y + (layout.cell_height_px - frame.height) / 2;
        if let Some(picture) = view(frame) {
            imageops::replace(&mut page, &picture, x.into(), y.into());
        }
    }
    let mut canvas = Canvas {
        width,
        height,
        rgba8: &mut page,
    };
    for (index, frame) in frames.iter().enumerate() {
        let (band_x, band_y) = layout.label_origin_px(index as u32);
        draw_label(&mut canvas, &layout, band_x, band_y, &label(frame));
    }
    Ok(SheetImage {
        width,
        height,
        rgba8: page.into_raw(),
    })
}

/// The sheet's size for `layout`, or [`SheetError::TooLarge`] past [`MAX_SHEET_PIXELS`].
fn sheet_size(layout: &SheetLayout) -> Result<(u32, u32), SheetError> {
    let width = layout.width_px();
    let height = layout.height_px();
    if width.saturating_mul(height) > MAX_SHEET_PIXELS {
        return Err(SheetError::TooLarge { width, height });
    }
    Ok((width as u32, height as u32))
}

/// Letters `text` centred in the label band whose top-left corner is (`band_x`, `band_y`).
fn draw_label(canvas: &mut Canvas<'_>, layout: &SheetLayout, band_x: u32, band_y: u32, text: &str) {
    let style = TextStyle::new(layout.label_px as f32);
    let fitted = fit_text(text, style.chars_in(layout.cell_width_px as f32));
    let text_w = style.width_px(&fitted).round() as u32;
    let text_x = band_x + (layout.cell_width_px - text_w.min(layout.cell_width_px)) / 2;
    let top = band_y + (layout.label_band_px - style.line_px() as u32) / 2;
    let baseline = top as i32 + style.ascent_px();
    draw_text(
        canvas,
        style,
        text_x as i32,
        baseline,
        &fitted,
        LABEL_COLOUR,
    );
}

/// One label band as a sheet draws it under a cell `cell_width_px` wide: the band's width,
/// height and 8-bit sRGB RGBA pixels (for checking the lettering against a reference).
pub fn label_band(text: &str, cell_width_px: u32) -> (u32, u32, Vec<u8>) {
    let label_px = label_px_for(cell_width_px);
    let line_px = TextStyle::new(label_px as f32).line_px().max(1) as u32;
    let layout = SheetLayout {
        columns: 1,
        rows: 1,
        cell_width_px,
        cell_height_px: 0,
        label_band_px: line_px + label_px / 2,
        gap_px: 0,
        label_px,
    };
    let (width, height) = (cell_width_px, layout.label_band_px);
    let mut rgba8 = BACKGROUND.repeat((width * height) as usize);
    let mut canvas = Canvas {
        width,
        height,
        rgba8: &mut rgba8,
    };
    draw_label(&mut canvas, &layout, 0, 0, text);
    (width, height, rgba8)
}

/// `text`, or its first `chars - 1` characters and `…` when it is longer than `chars`.
fn fit_text(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_string();
    }
    let kept: String = text.chars().take(chars.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// `frame`'s pixels as an `image` view, without copying; `None` when the buffer does not
/// match the size.
fn view(frame: &Frame) -> Option<ImageBuffer<Rgba<u8>, &[u8]>> {
    ImageBuffer::from_raw(frame.width, frame.height, &frame.rgba8[..])
}

/// Shrinks `frame` by a whole factor so that it is at most `max_width_px` wide, averaging the
/// pixels each thumbnail pixel covers (`image::imageops::thumbnail`, in 8-bit sRGB).
/// Frames already narrow enough, and frames whose buffer does not match their size, are
/// returned unchanged. Keeps the frame number.
pub fn thumbnail(frame: &Frame, max_width_px: u32) -> Frame {
    let factor = frame.width.div_ceil(max_width_px.max(1)).max(1);
    let Some(picture) = view(frame).filter(|_| factor > 1) else {
        return frame.clone();
    };
    let width = frame.width.div_ceil(factor);
    let height = frame.height.div_ceil(factor);
    let small = imageops::thumbnail(&picture, width, height);
    Frame {
        frame_index: frame.frame_index,
        width,
        height,
        rgba8: small.into_raw().into(),
        linear_f16: None,
        fog_f16: None,
        weather_f16: None,
    }
}

#[cfg(test)]
mod tests;
