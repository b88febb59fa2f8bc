//! Text on 8-bit pictures: the one typeface fogbank bundles, rasterised by `fontdue`.
//!
//! The face is DejaVu Sans Mono Bold (`assets/fonts/`, under the Bitstream Vera licence beside
//! it), compiled into the binary, so every machine draws with the same outlines. `fontdue` is
//! built without its `std` and `simd` features: its arithmetic then goes through software
//! maths (`core_maths`) in one fixed order, and a glyph's coverage is the same bytes on every
//! machine. Glyphs are placed on whole pixels, and coverage is blended over the picture in
//! integers, so drawing a text is deterministic too.

use fontdue::{Font, FontSettings};
use std::sync::OnceLock;

/// The bundled face's bytes (also registered with `plotters` by `chart.rs`).
pub(crate) const FACE_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono-Bold.ttf");

/// The bundled face, parsed once.
fn face() -> &'static Font {
    static FACE: OnceLock<Font> = OnceLock::new();
    FACE.get_or_init(|| {
        Font::from_bytes(FACE_TTF, FontSettings::default())
            .expect("the bundled DejaVu Sans Mono parses")
    })
}

/// An 8-bit sRGB RGBA picture to draw on: rows top to bottom, tightly packed.
pub struct Canvas<'a> {
    /// `width * height * 4` bytes.
    pub rgba8: &'a mut [u8],
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Text of one size: its metrics in whole pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextStyle {
    /// The em size, pixels.
    pub size_px: f32,
}

impl TextStyle {
    /// A style of `size_px` pixels to the em.
    pub fn new(size_px: f32) -> Self {
        TextStyle { size_px }
    }

    /// The advance of one character, pixels (the face is monospaced).
    pub fn advance_px(&self) -> f32 {
        face().metrics('0', self.size_px).advance_width
    }

    /// How far the capitals rise above the baseline, whole pixels.
    pub fn ascent_px(&self) -> i32 {
        face()
            .horizontal_line_metrics(self.size_px)
            .map_or(self.size_px * 0.76, |m| m.ascent)
            .ceil() as i32
    }

    /// Distance between two baselines, whole pixels.
    pub fn line_px(&self) -> i32 {
        face()
            .horizontal_line_metrics(self.size_px)
            .map_or(self.size_px * 1.17, |m| m.new_line_size)
            .ceil() as i32
    }

    /// Width of `text` drawn in this style, pixels.
    pub fn width_px(&self, text: &str) -> f32 {
        text.chars().count() as f32 * self.advance_px()
    }

    /// How many characters fit in `width_px`.
    pub fn chars_in(&self, width_px: f32) -> usize {
        (width_px / self.advance_px()).floor().max(0.0) as usize
    }
}

/// Draws `text` with its left end at `x_px` and its baseline at `baseline_px`, in `color`
/// (8-bit sRGB), anti-aliased by each glyph's coverage. Pixels outside the canvas are skipped.
pub fn draw_text(
    canvas: &mut Canvas<'_>,
    style: TextStyle,
    x_px: i32,
    baseline_px: i32,
    text: &str,
    color: [u8; 3],
) {
    let advance = style.advance_px();
    for (index, ch) in text.chars().enumerate() {
        let (metrics, coverage) = face().rasterize(ch, style.size_px);
        let pen_x = x_px + (index as f32 * advance).round() as i32;
        let left = pen_x + metrics.xmin;
        let top = baseline_px - metrics.ymin - metrics.height as i32;
        for row in 0..metrics.height {
            for col in 0..metrics.width {
                let alpha = coverage[row * metrics.width + col];
                blend(canvas, left + col as i32, top + row as i32, color, alpha);
            }
        }
    }
}

/// Darkens the rows `top..bottom` of the canvas to `keep` 255ths of their value: the backing
/// of a caption strip.
pub fn darken_rows(canvas: &mut Canvas<'_>, top: u32, bottom: u32, keep: u8) {
    let row_bytes = canvas.width as usize * 4;
    let (start, end) = (top as usize * row_bytes, bottom as usize * row_bytes);
    for pixel in canvas.rgba8[start..end].chunks_exact_mut(4) {
        for channel in &mut pixel[..3] {
            *channel = mix(0, *channel, keep);
        }
    }
}

/// `over` laid on `under` with `alpha` 255ths of coverage, rounded to the nearest level.
fn mix(over: u8, under: u8, alpha: u8) -> u8 {
    let (over, under, alpha) = (u32::from(over), u32::from(under), u32::from(alpha));
    ((over * alpha + under * (255 - alpha) + 127) / 255) as u8
}

fn blend(canvas: &mut Canvas<'_>, x: i32, y: i32, color: [u8; 3], alpha: u8) {
    if alpha == 0 || x < 0 || y < 0 || x >= canvas.width as i32 || y >= canvas.height as i32 {
        return;
    }
    let at = (y as usize * canvas.width as usize + x as usize) * 4;
    for (channel, value) in canvas.rgba8[at..at + 3].iter_mut().zip(color) {
        *channel = mix(value, *channel, alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glyph(ch: char, size_px: f32) -> (fontdue::Metrics, Vec<u8>) {
        face().rasterize(ch, size_px)
    }

    #[test]
    fn the_face_is_monospaced_and_has_every_printable_ascii_character() {
        let advance = TextStyle::new(12.0).advance_px();
        for ch in ' '..='~' {
            assert_ne!(face().lookup_glyph_index(ch), 0, "{ch:?} is missing");
            assert_eq!(face().metrics(ch, 12.0).advance_width, advance, "{ch:?}");
        }
    }

    #[test]
    fn glyphs_are_anti_aliased() {
        let (_, coverage) = glyph('O', 24.0);
        let partial = coverage.iter().filter(|&&a| a > 0 && a < 255).count();
        assert!(partial > 10, "{partial} partly covered pixels");
    }

    #[test]
    fn text_lands_where_it_is_put_and_nowhere_else() {
        let (width, height) = (64, 24);
        let mut rgba8 = vec![0u8; width * height * 4];
        let mut canvas = Canvas {
            rgba8: &mut rgba8,
            width: width as u32,
            height: height as u32,
        };
        let style = TextStyle::new(12.0);
        draw_text(&mut canvas, style, 2, 14, "Ab0", [255, 255, 255]);
        let lit: Vec<(usize, usize)> = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .filter(|&(x, y)| rgba8[(y * width + x) * 4] > 0)
            .collect();
        assert!(lit.len() > 30, "{} pixels", lit.len());
        let right = 2.0 + style.width_px("Ab0");
        for (x, y) in lit {
            assert!(x >= 2 && (x as f32) < right + 1.0, "x {x}");
            assert!(y as i32 >= 14 - style.ascent_px() - 1 && y < 17, "y {y}");
        }
    }
}
