//! Pictures for a failed comparison: a heatmap of where and how much two images differ, and a
//! strip of expected | actual | heatmap to attach to a CI log or an issue.
//!
//! Differences a tolerance cares about are a few levels out of 255, invisible in a plain
//! difference image, so the heatmap amplifies them: a difference of [`SATURATION_DIFF`] levels
//! or more is already full red. Pixels that exist in only one of two differently sized images
//! are painted magenta.

use super::Image;
use rayon::prelude::*;

/// Width of the dark gap between the panels of a [`strip`], in pixels.
pub const GAP_PX: u32 = 4;
/// Colour of the gap and of unused strip area: dark grey, opaque.
const GAP_RGBA: [u8; 4] = [24, 24, 24, 255];
/// Colour of heatmap pixels present in only one image.
const MISSING_RGBA: [u8; 4] = [255, 0, 255, 255];
/// Channel difference (8-bit levels) that maps to the top of the ramp: the 255 levels are
/// amplified 8×, so the default tolerance's 8 levels sit a quarter of the way up (cyan).
pub const SATURATION_DIFF: u8 = 32;
/// Colour ramp from the smallest visible difference to saturation, as (position along the
/// ramp, colour): blue from 1 level, cyan at 8 (the default tolerance), yellow at 20, red at 32.
const RAMP: [(f32, [f32; 3]); 4] = [
    (0.0, [0.0, 0.0, 255.0]),
    (0.25, [0.0, 200.0, 255.0]),
    (0.625, [255.0, 230.0, 0.0]),
    (1.0, [255.0, 0.0, 0.0]),
];

/// Colour of a pixel whose largest channel difference is `diff`: black for 0, then up the ramp.
fn ramp_colour(diff: u8) -> [u8; 4] {
    if diff == 0 {
        return [0, 0, 0, 255];
    }
    let t = f32::from(diff.min(SATURATION_DIFF)) / f32::from(SATURATION_DIFF);
    let i = RAMP[1..RAMP.len() - 1]
        .iter()
        .take_while(|(at, _)| *at <= t)
        .count();
    let (at_low, low) = RAMP[i];
    let (at_high, high) = RAMP[i + 1];
    let f = (t - at_low) / (at_high - at_low);
    let mix = |c: usize| (low[c] + (high[c] - low[c]) * f).round() as u8;
    [mix(0), mix(1), mix(2), 255]
}

/// A heatmap of the per-pixel largest channel difference (R, G, B or A), opaque. Its size is
/// the larger width and height of the two; where only one image has a pixel it is magenta.
pub fn diff_heatmap(expected: &Image, actual: &Image) -> Image {
    let width = expected.width.max(actual.width);
    let height = expected.height.max(actual.height);
    let mut rgba8 = vec![0u8; width as usize * height as usize * 4];
    rgba8
        .par_chunks_mut((width as usize * 4).max(1))
        .enumerate()
        .for_each(|(y, row)| {
            for (x, out) in row.chunks_exact_mut(4).enumerate() {
                let colour = match (
                    expected.pixel(x as u32, y as u32),
                    actual.pixel(x as u32, y as u32),
                ) {
                    (Some(e), Some(a)) => ramp_colour(
                        e.iter()
                            .zip(a)
                            .map(|(ce, ca)| ce.abs_diff(ca))
                            .max()
                            .unwrap_or(0),
                    ),
                    _ => MISSING_RGBA,
                };
                out.copy_from_slice(&colour);
            }
        });
    Image {
        width,
        height,
        rgba8,
    }
}

/// `expected | actual | diff` side by side, top-aligned, with a [`GAP_PX`] dark gap between
/// panels: `3w + 8` pixels wide for three images of width `w`. Unused area is dark too.
pub fn strip(expected: &Image, actual: &Image, diff: &Image) -> Image {
    let panels = [expected, actual, diff];
    let width = panels.iter().map(|p| p.width).sum::<u32>() + GAP_PX * (panels.len() as u32 - 1);
    let height = panels.iter().map(|p| p.height).max().unwrap_or(0);
    let mut out = Image::filled(width, height, GAP_RGBA);
    let mut left = 0u32;
    for panel in panels {
        for y in 0..panel.height {
            for x in 0..panel.width {
                if let Some(p) = panel.pixel(x, y) {
                    let i = (y as usize * width as usize + (left + x) as usize) * 4;
                    out.rgba8[i..i + 4].copy_from_slice(&p);
                }
            }
        }
        left += panel.width + GAP_PX;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(width: u32, height: u32) -> Image {
        let mut rgba8 = Vec::new();
        for y in 0..height {
            for x in 0..width {
                rgba8.extend_from_slice(&[(x * 9) as u8, (y * 11) as u8, 77, 255]);
            }
        }
        Image {
            width,
            height,
            rgba8,
        }
    }

    #[test]
    fn identical_images_give_an_all_black_heatmap() {
        let image = picture(17, 9);
        let heat = diff_heatmap(&image, &image);
        assert_eq!((heat.width, heat.height), (17, 9));
        assert!(heat.rgba8.chunks_exact(4).all(|p| p == [0, 0, 0, 255]));
    }

    #[test]
    fn heatmap_shows_small_differences_and_grows_towards_red() {
        let image = picture(8, 8);
        let mut changed = image.clone();
        changed.rgba8[0] += 1; // pixel (0, 0): 1 level
        changed.rgba8[4 * 2 + 1] += 8; // pixel (2, 0): 8 levels
        changed.rgba8[4 * 5 + 2] = 255; // pixel (5, 0): far off
        let heat = diff_heatmap(&image, &changed);
        let one = heat.pixel(0, 0).unwrap();
        assert!(
            one[2] > 200 && one[0] < 20,
            "1 level is clearly blue: {one:?}"
        );
        assert_eq!(
            heat.pixel(2, 0).unwrap(),
            [0, 200, 255, 255],
            "tolerance level is cyan"
        );
        assert_eq!(
            heat.pixel(5, 0).unwrap(),
            [255, 0, 0, 255],
            "large differences saturate red"
        );
        assert_eq!(heat.pixel(1, 0).unwrap(), [0, 0, 0, 255]);
        assert_eq!(ramp_colour(20), [255, 230, 0, 255], "yellow at 20 levels");
        assert_eq!(ramp_colour(SATURATION_DIFF), ramp_colour(255));
        // Every step up to saturation changes the colour, so growing differences stay visible.
        assert!((0..SATURATION_DIFF).all(|d| ramp_colour(d) != ramp_colour(d + 1)));
    }

    #[test]
    fn heatmap_of_different_sizes_marks_missing_pixels() {
        let heat = diff_heatmap(&picture(4, 3), &picture(2, 5));
        assert_eq!((heat.width, heat.height), (4, 5));
        assert_eq!(heat.pixel(1, 1).unwrap(), [0, 0, 0, 255]);
        assert_eq!(heat.pixel(3, 0).unwrap(), MISSING_RGBA);
        assert_eq!(heat.pixel(0, 4).unwrap(), MISSING_RGBA);
    }

    #[test]
    fn strip_places_three_panels_with_gaps() {
        let (w, h) = (10, 6);
        let expected = picture(w, h);
        let actual = Image::filled(w, h, [200, 10, 10, 255]);
        let heat = diff_heatmap(&expected, &actual);
        let s = strip(&expected, &actual, &heat);
        assert_eq!((s.width, s.height), (3 * w + 8, h));
        assert!(s.check().is_ok());
        assert_eq!(s.pixel(3, 2), expected.pixel(3, 2));
        assert_eq!(s.pixel(w, 0).unwrap(), GAP_RGBA);
        assert_eq!(s.pixel(w + GAP_PX - 1, 5).unwrap(), GAP_RGBA);
        assert_eq!(s.pixel(w + GAP_PX, 0).unwrap(), [200, 10, 10, 255]);
        assert_eq!(s.pixel(2 * w + 2 * GAP_PX + 4, 1), heat.pixel(4, 1));
    }

    #[test]
    fn strip_of_different_sizes_pads_with_dark() {
        let s = strip(&picture(3, 2), &picture(5, 4), &picture(5, 4));
        assert_eq!((s.width, s.height), (3 + 5 + 5 + 8, 4));
        assert_eq!(s.pixel(0, 3).unwrap(), GAP_RGBA);
    }
}
