//! Contact sheets: many stills on one dark page, each with a label such as its frame number.
//!
//! `fogbank sheet` uses this to show a clip at a glance (documentation, reviews, bug reports).
//! Frames are laid out left to right, top to bottom, in the order given; each cell is as large
//! as the largest frame (smaller frames are centred in it) and has a label band underneath,
//! drawn with the built-in [`super::font`]. The result is plain RGBA8, ready for
//! [`super::png::encode_rgba8`]. [`thumbnail`] shrinks frames first when the sheet would be
//! too large. The page is an `image` buffer: the `image` crate copies the frames in and
//! shrinks them (`image::imageops`).

use image::imageops;
use image::{ImageBuffer, Rgba, RgbaImage};

use super::font::{self, Canvas};
use crate::frame::Frame;

/// Background of the page and the label bands: a dark grey that reads as "not the picture".
pub const BACKGROUND: [u8; 4] = [22, 22, 26, 255];
/// Colour of the label text.
pub const LABEL_COLOUR: [u8; 4] = [225, 225, 225, 255];
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
    /// Scale of the 5×7 font (each font pixel is `scale × scale`).
    pub font_scale: u32,
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

/// The font scale for cells `cell_width_px` wide: labels grow with the pictures, from 1 at up
/// to 319 pixels to 6 from 960 pixels.
pub fn font_scale_for(cell_width_px: u32) -> u32 {
    (cell_width_px / 160).clamp(1, 6)
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
    let font_scale = font_scale_for(cell_width_px);
    let label_band_px = font::text_height_px(font_scale) + 4 * font_scale;
    let gap_px = 4 + 2 * font_scale;
    Ok(SheetLayout {
        columns,
        rows,
        cell_width_px,
        cell_height_px,
        label_band_px,
        gap_px,
        font_scale,
    })
}

/// Lays `frames` out in `columns` columns on a dark page, each with the text `label(frame)`
/// centred underneath (e.g. `|f| format!("{}", f.frame_index)`).
///
/// Labels that do not fit the cell are drawn smaller, down to scale 1, and then cut at the
/// cell's edge. Characters outside the built-in font show as boxes (see [`super::font`]).
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
        let index = index as u32;
        let text = label(frame);
        let (band_x, band_y) = layout.label_origin_px(index);
        let mut scale = layout.font_scale;
        while scale > 1 && font::text_width_px(&text, scale) > layout.cell_width_px {
            scale -= 1;
        }
        let fitted = fit_text(&text, scale, layout.cell_width_px);
        let text_w = font::text_width_px(&fitted, scale);
        let text_x = band_x + (layout.cell_width_px - text_w.min(layout.cell_width_px)) / 2;
        let text_y = band_y + (layout.label_band_px - font::text_height_px(scale)) / 2;
        canvas.draw_text(text_x as i64, text_y as i64, &fitted, scale, LABEL_COLOUR);
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

/// The longest prefix of `text` that fits `max_width_px` at `scale`.
fn fit_text(text: &str, scale: u32, max_width_px: u32) -> String {
    let mut fitted = String::new();
    for c in text.chars() {
        fitted.push(c);
        if font::text_width_px(&fitted, scale) > max_width_px {
            fitted.pop();
            break;
        }
    }
    fitted
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
mod tests {
    use super::*;

    fn solid(frame_index: u32, width: u32, height: u32, colour: [u8; 4]) -> Frame {
        Frame {
            frame_index,
            width,
            height,
            rgba8: colour.repeat((width * height) as usize).into(),
            linear_f16: None,
            fog_f16: None,
            weather_f16: None,
        }
    }

    fn pixel(sheet: &SheetImage, x: u32, y: u32) -> [u8; 4] {
        let at = ((y * sheet.width + x) * 4) as usize;
        [
            sheet.rgba8[at],
            sheet.rgba8[at + 1],
            sheet.rgba8[at + 2],
            sheet.rgba8[at + 3],
        ]
    }

    fn count_in(sheet: &SheetImage, x0: u32, y0: u32, w: u32, h: u32, colour: [u8; 4]) -> usize {
        let mut count = 0;
        for y in y0..y0 + h {
            for x in x0..x0 + w {
                count += (pixel(sheet, x, y) == colour) as usize;
            }
        }
        count
    }

    #[test]
    fn size_follows_the_layout() {
        let frames: Vec<Frame> = (0..5).map(|i| solid(i, 64, 36, [200, 0, 0, 255])).collect();
        let sheet = contact_sheet(&frames, 3, |f| f.frame_index.to_string()).unwrap();
        let l = layout(&frames, 3).unwrap();
        assert_eq!((l.columns, l.rows, l.font_scale), (3, 2, 1));
        assert_eq!((l.gap_px, l.label_band_px), (6, 11));
        assert_eq!(sheet.width, 3 * 64 + 4 * 6);
        assert_eq!(sheet.height, 2 * (36 + 11) + 3 * 6);
        assert_eq!(sheet.rgba8.len(), (sheet.width * sheet.height * 4) as usize);
        // More columns than frames: one row, as many columns as frames.
        let wide = layout(&frames, 50).unwrap();
        assert_eq!((wide.columns, wide.rows), (5, 1));
    }

    #[test]
    fn frames_land_in_their_cells_and_the_rest_is_background() {
        let colours = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]];
        let frames: Vec<Frame> = (0..3)
            .map(|i| solid(i, 20, 10, colours[i as usize]))
            .collect();
        let sheet = contact_sheet(&frames, 2, |_| String::new()).unwrap();
        let l = layout(&frames, 2).unwrap();
        for (i, colour) in colours.iter().enumerate() {
            let (x, y) = l.cell_origin_px(i as u32);
            assert_eq!(count_in(&sheet, x, y, 20, 10, *colour), 200, "cell {i}");
        }
        // The fourth cell is empty; gaps and corners are background.
        let (x, y) = l.cell_origin_px(3);
        assert_eq!(count_in(&sheet, x, y, 20, 10, BACKGROUND), 200);
        assert_eq!(pixel(&sheet, 0, 0), BACKGROUND);
        assert_eq!(pixel(&sheet, sheet.width - 1, sheet.height - 1), BACKGROUND);
        // Empty labels draw nothing.
        assert_eq!(
            sheet
                .rgba8
                .chunks_exact(4)
                .filter(|p| *p == LABEL_COLOUR)
                .count(),
            0
        );
    }

    #[test]
    fn labels_put_text_in_the_label_band_only() {
        let frames: Vec<Frame> = (0..4)
            .map(|i| solid(i * 10, 64, 36, [0, 0, 0, 255]))
            .collect();
        let sheet = contact_sheet(&frames, 2, |f| format!("{}", f.frame_index)).unwrap();
        let l = layout(&frames, 2).unwrap();
        for i in 0..4 {
            let (bx, by) = l.label_origin_px(i);
            let in_band = count_in(
                &sheet,
                bx,
                by,
                l.cell_width_px,
                l.label_band_px,
                LABEL_COLOUR,
            );
            // Frame 0 is labelled "0"; the others "10", "20", "30": two glyphs.
            let text = format!("{}", i * 10);
            let expected: u32 = text
                .chars()
                .map(|c| font::glyph(c).iter().map(|r| r.count_ones()).sum::<u32>())
                .sum();
            assert_eq!(
                in_band as u32,
                expected * l.font_scale * l.font_scale,
                "label {i}"
            );
        }
        let total = sheet
            .rgba8
            .chunks_exact(4)
            .filter(|p| *p == LABEL_COLOUR)
            .count();
        let bands: usize = (0..4)
            .map(|i| {
                let (bx, by) = l.label_origin_px(i);
                count_in(
                    &sheet,
                    bx,
                    by,
                    l.cell_width_px,
                    l.label_band_px,
                    LABEL_COLOUR,
                )
            })
            .sum();
        assert_eq!(total, bands, "label pixels outside the bands");
    }

    #[test]
    fn long_labels_shrink_and_are_cut_at_the_cell() {
        let frames = vec![solid(7, 400, 50, [0, 0, 0, 255])];
        let long = "frame 7 of a clip with a very long name that cannot fit";
        let sheet = contact_sheet(&frames, 1, |_| long.to_string()).unwrap();
        let l = layout(&frames, 1).unwrap();
        assert_eq!(l.font_scale, 2);
        // No label pixel in the right-hand gap.
        let gap_x = l.gap_px + l.cell_width_px;
        assert_eq!(
            count_in(&sheet, gap_x, 0, l.gap_px, sheet.height, LABEL_COLOUR),
            0
        );
        assert!(count_in(&sheet, 0, 0, sheet.width, sheet.height, LABEL_COLOUR) > 0);
        assert_eq!(fit_text("12345", 1, 11), "12");
    }

    #[test]
    fn mixed_sizes_are_centred() {
        let frames = vec![
            solid(0, 40, 20, [255, 0, 0, 255]),
            solid(1, 20, 10, [0, 255, 0, 255]),
        ];
        let sheet = contact_sheet(&frames, 2, |_| String::new()).unwrap();
        let l = layout(&frames, 2).unwrap();
        let (x, y) = l.cell_origin_px(1);
        assert_eq!(pixel(&sheet, x + 10, y + 5), [0, 255, 0, 255]);
        assert_eq!(pixel(&sheet, x + 9, y + 4), BACKGROUND);
        assert_eq!(pixel(&sheet, x + 29, y + 14), [0, 255, 0, 255]);
        assert_eq!(pixel(&sheet, x + 30, y + 15), BACKGROUND);
    }

    #[test]
    fn rejects_bad_requests() {
        assert_eq!(
            contact_sheet(&[], 3, |_| String::new()),
            Err(SheetError::NoFrames)
        );
        let frames = vec![solid(0, 4, 4, [0; 4])];
        assert_eq!(
            contact_sheet(&frames, 0, |_| String::new()),
            Err(SheetError::NoColumns)
        );
        let broken = vec![Frame {
            frame_index: 3,
            width: 4,
            height: 4,
            rgba8: vec![0; 10].into(),
            linear_f16: None,
            fog_f16: None,
            weather_f16: None,
        }];
        assert!(matches!(
            contact_sheet(&broken, 1, |_| String::new()),
            Err(SheetError::BadFrame { frame_index: 3, .. })
        ));
        let mut big = layout(&frames, 1).unwrap();
        big.cell_width_px = 100_000;
        big.cell_height_px = 100_000;
        assert!(matches!(sheet_size(&big), Err(SheetError::TooLarge { .. })));
        assert!(sheet_size(&big).unwrap_err().is_bad_input());
        assert!(SheetError::NoColumns.is_bad_input());
        let bad_frame = contact_sheet(&broken, 1, |_| String::new()).unwrap_err();
        assert!(!bad_frame.is_bad_input());
        assert_eq!(
            sheet_size(&layout(&frames, 1).unwrap()),
            Ok((4 + 12, 4 + 11 + 12))
        );
    }

    #[test]
    fn thumbnails_shrink_by_a_whole_factor_and_average() {
        // Left half white, right half black; halved, the middle column mixes the two.
        let mut frame = solid(9, 6, 4, [0, 0, 0, 255]);
        for y in 0..4 {
            for x in 0..3 {
                let at = (y * 6 + x) * 4;
                frame.rgba8[at..at + 4].copy_from_slice(&[255, 255, 255, 255]);
            }
        }
        let thumb = thumbnail(&frame, 3);
        assert_eq!((thumb.width, thumb.height, thumb.frame_index), (3, 2, 9));
        for row in thumb.rgba8.chunks_exact(3 * 4) {
            assert_eq!(&row[0..4], &[255, 255, 255, 255]);
            assert!((120..=135).contains(&row[4]), "{:?}", &row[4..8]);
            assert_eq!(row[7], 255);
            assert_eq!(&row[8..12], &[0, 0, 0, 255]);
        }
        // Odd sizes round up; solid colours stay solid; narrow frames are kept as they are.
        let odd = thumbnail(&solid(1, 5, 3, [10, 200, 30, 255]), 2);
        assert_eq!((odd.width, odd.height), (2, 1));
        assert!(odd.rgba8.chunks_exact(4).all(|p| p == [10, 200, 30, 255]));
        assert_eq!(thumbnail(&frame, 10), frame);
    }
}
