//! The caption strip's tests: it changes only its own rows, stays within a fifth of the
//! picture, reads at 320×180 (each character a distinct, high-contrast shape of at least 7
//! rows), and burns the same bytes on every machine.

use super::*;
use crate::output::text::Canvas;

fn scene_with(stamp: StampPlace, caption: Option<&str>) -> Scene {
    let mut scene = Scene::default();
    scene.output.stamp = stamp;
    scene.output.caption = caption.map(str::to_string);
    scene
}

fn facts() -> FrameFacts {
    FrameFacts {
        frame: 240,
        time_s: 4.0,
        view: View::Fog,
        compositor: Compositor::Raster,
        samples: 4,
        state_hash: 0x0123_4567_89ab_cdef,
    }
}

/// A picture with something in every pixel: a gradient.
fn picture(width: u32, height: u32) -> Vec<u8> {
    (0..width * height)
        .flat_map(|i| {
            let (x, y) = (i % width, i / width);
            [(x * 255 / width) as u8, (y * 255 / height) as u8, 128, 255]
        })
        .collect()
}

#[test]
fn off_by_default_and_on_with_a_stamp_or_a_caption() {
    assert_eq!(Caption::for_scene(&Scene::default()), None);
    assert_eq!(
        Caption::for_scene(&scene_with(StampPlace::Off, Some("  "))),
        None
    );
    assert!(Caption::for_scene(&scene_with(StampPlace::Bottom, None)).is_some());
    assert!(Caption::for_scene(&scene_with(StampPlace::Off, Some("take 3"))).is_some());
}

#[test]
fn the_strip_changes_only_its_own_rows_at_the_bottom_or_the_top() {
    let (width, height) = (320, 180);
    for place in [StampPlace::Bottom, StampPlace::Top] {
        let caption = Caption::for_scene(&scene_with(place, Some("take 3"))).unwrap();
        let layout = caption.layout(width, height);
        let before = picture(width, height);
        let mut after = before.clone();
        caption.stamp(&mut after, width, height, &facts());
        let row_bytes = width as usize * 4;
        for y in 0..height {
            let row = y as usize * row_bytes..(y as usize + 1) * row_bytes;
            let inside = (layout.top_row..layout.bottom_row).contains(&y);
            assert_eq!(
                before[row.clone()] != after[row],
                inside,
                "{place:?} row {y}"
            );
        }
        match place {
            StampPlace::Top => assert_eq!(layout.top_row, 0),
            _ => assert_eq!(layout.bottom_row, height),
        }
    }
}

#[test]
fn the_strip_is_at_most_a_fifth_of_the_picture_from_320x180_to_4k() {
    let caption = Caption::for_scene(&scene_with(StampPlace::Bottom, Some("a caption"))).unwrap();
    for (width, height) in [(320, 180), (640, 360), (1920, 1080), (3840, 2160)] {
        let layout = caption.layout(width, height);
        let rows = layout.bottom_row - layout.top_row;
        assert!(rows * 5 <= height, "{width}x{height}: {rows} rows");
        assert!(
            layout.lines >= 2,
            "{width}x{height}: {} lines",
            layout.lines
        );
        assert!(layout.style.size_px >= MIN_SIZE_PX);
    }
    // The same share of the picture at every 16:9 size: the text scales with it.
    let small = caption.layout(1920, 1080);
    let large = caption.layout(3840, 2160);
    assert_eq!(large.style.size_px, 2.0 * small.style.size_px);
}

#[test]
fn every_fact_fits_on_the_strip_at_320x180() {
    let caption = Caption::for_scene(&scene_with(StampPlace::Bottom, None)).unwrap();
    let layout = caption.layout(320, 180);
    let chars = layout.style.chars_in(320.0 - 2.0 * layout.pad_px as f32);
    let lines = wrap(&caption.groups(&facts()), chars);
    assert!(lines.len() <= layout.lines, "{lines:?}");
    assert!(
        lines.concat().contains("hash 0123456789abcdef"),
        "{lines:?}"
    );
    assert!(lines.concat().contains("frame 240"), "{lines:?}");
}

#[test]
fn characters_are_legible_at_320x180() {
    // Each character the strip writes, drawn at the strip's size for 320×180, is a distinct
    // shape: any two differ by at least three whole pixels' worth, and each stands 5 rows
    // (the lower case) or 6 (the rest) tall with full-contrast strokes.
    let caption = Caption::for_scene(&scene_with(StampPlace::Bottom, None)).unwrap();
    let style = caption.layout(320, 180).style;
    let cell_w = style.advance_px().ceil() as u32 + 2;
    let cell_h = style.line_px() as u32 + 2;
    let glyph = |ch: char| {
        let mut rgba8 = vec![0u8; (cell_w * cell_h * 4) as usize];
        let mut canvas = Canvas {
            rgba8: &mut rgba8,
            width: cell_w,
            height: cell_h,
        };
        draw_text(
            &mut canvas,
            style,
            1,
            1 + style.ascent_px(),
            &ch.to_string(),
            [255; 3],
        );
        rgba8.chunks_exact(4).map(|p| p[0]).collect::<Vec<u8>>()
    };
    let charset: Vec<char> = "0123456789abcdefhilmnoprstwxzFRS.".chars().collect();
    let shapes: Vec<Vec<u8>> = charset.iter().map(|&c| glyph(c)).collect();
    for (ch, shape) in charset.iter().zip(&shapes) {
        let rows = (0..cell_h as usize)
            .filter(|y| {
                shape[y * cell_w as usize..(y + 1) * cell_w as usize]
                    .iter()
                    .any(|&v| v > 0)
            })
            .count();
        let max = shape.iter().copied().max().unwrap_or(0);
        // Capitals and digits stand at least 6 rows tall, the lower case at least 5.
        let least = match ch {
            '.' => 1,
            c if c.is_ascii_lowercase() && !"bdfhilt".contains(*c) => 5,
            _ => 6,
        };
        assert!(rows >= least, "{ch:?} is {rows} rows tall");
        assert!(max >= 200, "{ch:?} peaks at {max}");
    }
    for i in 0..shapes.len() {
        for j in i + 1..shapes.len() {
            let differing: u32 = shapes[i]
                .iter()
                .zip(&shapes[j])
                .map(|(a, b)| u32::from(a.abs_diff(*b)))
                .sum();
            assert!(
                differing >= 3 * 255,
                "{:?} and {:?} differ by {differing} levels in all",
                charset[i],
                charset[j]
            );
        }
    }
}

#[test]
fn a_stamp_is_the_same_bytes_on_every_machine() {
    // The strip of a fixed picture, pinned: fontdue without `std` rasterises with software
    // maths, and the blend is integer arithmetic.
    let (width, height) = (320, 180);
    let caption = Caption::for_scene(&scene_with(StampPlace::Bottom, Some("take 3"))).unwrap();
    let mut rgba8 = picture(width, height);
    caption.stamp(&mut rgba8, width, height, &facts());
    assert_eq!(crate::sim::fnv1a64(&rgba8), PINNED_STAMP_FNV);
}

/// The FNV-1a 64 of the stamped picture of `a_stamp_is_the_same_bytes_on_every_machine`.
const PINNED_STAMP_FNV: u64 = 0xe9e9a5734102eb06;

#[test]
fn groups_wrap_whole_and_overlong_ones_are_cut() {
    let groups: Vec<String> = ["temple", "frame 240", "hash 0123456789abcdef"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        wrap(&groups, 40),
        ["temple  frame 240  hash 0123456789abcdef"]
    );
    assert_eq!(
        wrap(&groups, 20),
        ["temple  frame 240", "hash 0123456789abcd…"]
    );
    assert_eq!(ellipsis("abcdef", 4), "abc…");
}

#[test]
fn a_caption_is_one_short_line() {
    assert!(check_text("take 3: the fog over the altar").is_ok());
    assert!(
        check_text("two\nlines")
            .unwrap_err()
            .contains("control character")
    );
    let long = "x".repeat(MAX_CAPTION_CHARS + 1);
    assert!(check_text(&long).unwrap_err().contains("at most 200"));
}
