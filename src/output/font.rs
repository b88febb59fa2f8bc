//! A tiny built-in bitmap font, so contact sheets can print frame numbers without a font file.
//!
//! Each glyph is 5 pixels wide and 7 high (the classic character-LCD cell) and is drawn scaled
//! by a whole number, so labels stay crisp at any size. The set covers digits, the letters A–Z
//! (lower case is drawn as upper case), space and the few symbols that labels need:
//! `. , : ; - _ / = + ( ) [ ] # % ? ' * < >`. Any other character is drawn as a hollow box, so a
//! missing glyph is visible rather than silently dropped.

/// Width of one glyph, in font pixels.
pub const GLYPH_WIDTH: u32 = 5;
/// Height of one glyph, in font pixels.
pub const GLYPH_HEIGHT: u32 = 7;
/// Space between neighbouring glyphs, in font pixels.
pub const GLYPH_SPACING: u32 = 1;

/// The glyph for `c`: seven rows, top first; bit 4 of each row is the leftmost pixel.
pub fn glyph(c: char) -> [u8; 7] {
    match c.to_ascii_uppercase() {
        '0' => [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        '1' => [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        '2' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        '3' => [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        '4' => [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        '5' => [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        '6' => [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        '7' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        '9' => [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        'A' => [0x0E, 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11],
        'B' => [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        'C' => [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E],
        'D' => [0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C],
        'E' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F],
        'F' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        'G' => [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F],
        'H' => [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        'I' => [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E],
        'J' => [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        'K' => [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11],
        'L' => [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        'M' => [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11],
        'N' => [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        'O' => [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'P' => [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        'Q' => [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D],
        'R' => [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        'S' => [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E],
        'T' => [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        'U' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'V' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        'W' => [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A],
        'X' => [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        'Y' => [0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04],
        'Z' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
        ' ' => [0x00; 7],
        '.' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
        ',' => [0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08],
        ':' => [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00],
        ';' => [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x04, 0x08],
        '-' => [0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00],
        '_' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F],
        '/' => [0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00],
        '=' => [0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00],
        '+' => [0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00],
        '(' => [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
        ')' => [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08],
        '[' => [0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E],
        ']' => [0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E],
        '#' => [0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A],
        '%' => [0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03],
        '?' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04],
        '\'' => [0x04, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00],
        '*' => [0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00],
        '<' => [0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02],
        '>' => [0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08],
        _ => [0x1F, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1F],
    }
}

/// Width in pixels of `text` drawn at `scale` (no trailing space after the last glyph).
pub fn text_width_px(text: &str, scale: u32) -> u32 {
    let count = text.chars().count() as u32;
    if count == 0 {
        return 0;
    }
    (count * (GLYPH_WIDTH + GLYPH_SPACING) - GLYPH_SPACING) * scale
}

/// Height in pixels of one line of text drawn at `scale`.
pub fn text_height_px(scale: u32) -> u32 {
    GLYPH_HEIGHT * scale
}

/// A tightly packed RGBA8 image to draw into, rows top to bottom.
pub struct Canvas<'a> {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub rgba8: &'a mut [u8],
}

impl Canvas<'_> {
    /// Draws `text` with its top-left corner at (`x_px`, `y_px`), each font pixel a
    /// `scale × scale` square of `colour`. Pixels outside the canvas are clipped, so a label
    /// that runs off the edge is cut rather than wrapped.
    pub fn draw_text(&mut self, x_px: i64, y_px: i64, text: &str, scale: u32, colour: [u8; 4]) {
        let scale = scale.max(1) as i64;
        let advance = (GLYPH_WIDTH + GLYPH_SPACING) as i64 * scale;
        for (index, c) in text.chars().enumerate() {
            let glyph_x = x_px + index as i64 * advance;
            for (row, bits) in glyph(c).iter().enumerate() {
                for column in 0..GLYPH_WIDTH as i64 {
                    if bits & (0x10 >> column) == 0 {
                        continue;
                    }
                    let left = glyph_x + column * scale;
                    let top = y_px + row as i64 * scale;
                    self.fill_rect(left, top, scale, scale, colour);
                }
            }
        }
    }

    /// Fills a rectangle with `colour`, clipped to the canvas.
    pub fn fill_rect(&mut self, x_px: i64, y_px: i64, w_px: i64, h_px: i64, colour: [u8; 4]) {
        let x0 = x_px.clamp(0, self.width as i64) as usize;
        let x1 = (x_px + w_px).clamp(0, self.width as i64) as usize;
        let y0 = y_px.clamp(0, self.height as i64) as usize;
        let y1 = (y_px + h_px).clamp(0, self.height as i64) as usize;
        let stride = self.width as usize * 4;
        for y in y0..y1 {
            for pixel in self.rgba8[y * stride + x0 * 4..y * stride + x1 * 4].chunks_exact_mut(4) {
                pixel.copy_from_slice(&colour);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHITE: [u8; 4] = [255, 255, 255, 255];

    fn render(text: &str, scale: u32) -> (u32, u32, Vec<u8>) {
        let width = text_width_px(text, scale) + 4;
        let height = text_height_px(scale) + 4;
        let mut rgba8 = vec![0u8; (width * height * 4) as usize];
        let mut canvas = Canvas {
            width,
            height,
            rgba8: &mut rgba8,
        };
        canvas.draw_text(2, 2, text, scale, WHITE);
        (width, height, rgba8)
    }

    fn lit(rgba8: &[u8], width: u32, x: u32, y: u32) -> bool {
        rgba8[((y * width + x) * 4) as usize] == 255
    }

    #[test]
    fn every_listed_character_has_a_distinct_glyph() {
        let listed = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.,:;-_/=+()[]#%?'*<>";
        let unknown = glyph('\u{263A}');
        let mut seen: Vec<[u8; 7]> = Vec::new();
        for c in listed.chars() {
            let g = glyph(c);
            assert_ne!(g, unknown, "{c:?} falls back to the box");
            assert!(
                g.iter().all(|row| row & !0x1F == 0),
                "{c:?} is wider than 5"
            );
            assert!(!seen.contains(&g), "{c:?} looks like another glyph");
            seen.push(g);
        }
        assert_eq!(glyph('a'), glyph('A'));
        assert_eq!(glyph(' '), [0; 7]);
    }

    #[test]
    fn text_width_counts_glyphs_and_gaps() {
        assert_eq!(text_width_px("", 3), 0);
        assert_eq!(text_width_px("7", 1), 5);
        assert_eq!(text_width_px("42", 1), 11);
        assert_eq!(text_width_px("42", 3), 33);
        assert_eq!(text_height_px(2), 14);
    }

    #[test]
    fn draws_the_one_at_the_right_place_and_scale() {
        // '1': the stem is the middle column (x = 2) in every row, the foot spans x = 1..=3.
        let (width, height, rgba8) = render("1", 2);
        let lit_count = rgba8.chunks_exact(4).filter(|p| p[0] == 255).count();
        let font_pixels: u32 = glyph('1').iter().map(|r| r.count_ones()).sum();
        assert_eq!(lit_count as u32, font_pixels * 4);
        for row in 0..7 {
            assert!(lit(&rgba8, width, 2 + 2 * 2, 2 + row * 2), "stem row {row}");
            assert!(lit(&rgba8, width, 2 + 2 * 2 + 1, 2 + row * 2 + 1));
        }
        assert!(!lit(&rgba8, width, 2, 2), "top-left of '1' is empty");
        // Nothing outside the text box.
        for y in 0..height {
            assert!(!lit(&rgba8, width, 0, y) && !lit(&rgba8, width, 1, y));
        }
    }

    #[test]
    fn clips_at_the_edges_without_panicking() {
        let mut rgba8 = vec![0u8; 8 * 8 * 4];
        let mut canvas = Canvas {
            width: 8,
            height: 8,
            rgba8: &mut rgba8,
        };
        canvas.draw_text(-3, -3, "88", 2, WHITE);
        canvas.draw_text(6, 6, "W", 3, WHITE);
        assert!(rgba8.chunks_exact(4).any(|p| p[0] == 255));
    }
}
