//! The contact sheet's tests: layout, cells, labels in their bands only and lettered as the
//! reference picture shows, cut labels, bad requests and thumbnails.

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
    assert_eq!((l.columns, l.rows, l.label_px), (3, 2, 10));
    assert_eq!((l.gap_px, l.label_band_px), (6, 17));
    assert_eq!(sheet.width, 3 * 64 + 4 * 6);
    assert_eq!(sheet.height, 2 * (36 + 17) + 3 * 6);
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
    for i in 0..4 {
        let (bx, by) = l.label_origin_px(i);
        let band = count_in(&sheet, bx, by, 20, l.label_band_px, BACKGROUND);
        assert_eq!(band, (20 * l.label_band_px) as usize, "band {i}");
    }
}

/// Whether a pixel is lettering: lighter than the page.
fn lettered(sheet: &SheetImage, x: u32, y: u32) -> bool {
    pixel(sheet, x, y)[0] > BACKGROUND[0] + 40
}

#[test]
fn labels_put_text_in_the_label_band_only() {
    let frames: Vec<Frame> = (0..4)
        .map(|i| solid(i * 10, 64, 36, [0, 0, 0, 255]))
        .collect();
    let sheet = contact_sheet(&frames, 2, |f| format!("{}", f.frame_index)).unwrap();
    let l = layout(&frames, 2).unwrap();
    let in_band = |x: u32, y: u32| {
        (0..4).any(|i| {
            let (bx, by) = l.label_origin_px(i);
            (bx..bx + l.cell_width_px).contains(&x) && (by..by + l.label_band_px).contains(&y)
        })
    };
    for i in 0..4 {
        let (bx, by) = l.label_origin_px(i);
        let lit = (by..by + l.label_band_px)
            .flat_map(|y| (bx..bx + l.cell_width_px).map(move |x| (x, y)))
            .filter(|&(x, y)| lettered(&sheet, x, y))
            .count();
        assert!(lit > 10, "label {i}: {lit} lettered pixels");
    }
    for y in 0..sheet.height {
        for x in 0..sheet.width {
            if lettered(&sheet, x, y) {
                assert!(in_band(x, y), "lettering outside the bands at ({x}, {y})");
            }
        }
    }
}

#[test]
fn long_labels_are_cut_at_the_cell() {
    let frames = vec![solid(7, 400, 50, [0, 0, 0, 255])];
    let long = "frame 7 of a clip with a very long name that cannot fit";
    let sheet = contact_sheet(&frames, 1, |_| long.to_string()).unwrap();
    let l = layout(&frames, 1).unwrap();
    assert_eq!(l.label_px, 20);
    // No lettering in the right-hand gap, some in the band.
    let gap_x = l.gap_px + l.cell_width_px;
    for y in 0..sheet.height {
        for x in gap_x..sheet.width {
            assert!(!lettered(&sheet, x, y), "({x}, {y})");
        }
    }
    let (bx, by) = l.label_origin_px(0);
    assert!((by..by + l.label_band_px).any(|y| lettered(&sheet, bx + 2, y)));
    assert_eq!(fit_text("12345", 3), "12…");
    assert_eq!(fit_text("123", 3), "123");
}

/// The reference lettering of a sheet's label, checked in; see [`a_label_reads_as_its_reference_picture`].
const LABEL_REFERENCE: &str = "tests/references/sheet_label.png";

#[test]
fn a_label_reads_as_its_reference_picture() {
    // The label of frame 120 under a 320-pixel cell, as `fogbank sheet` letters it. The
    // reference was looked at and reads "frame 120  2.00 s"; the bundled face and integer
    // blending draw it to the same bytes on every machine. FOGBANK_BLESS_LABELS=1 rewrites it.
    let (width, height, rgba8) = label_band("frame 120  2.00 s", 320);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(LABEL_REFERENCE);
    if std::env::var_os("FOGBANK_BLESS_LABELS").is_some() {
        let png = crate::output::png::encode_rgba8(width, height, &rgba8, true).unwrap();
        std::fs::write(&path, png).unwrap();
    }
    let reference = image::open(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba8();
    let actual_path = std::env::temp_dir().join("fogbank-sheet-label-actual.png");
    let same = reference.dimensions() == (width, height) && reference.as_raw() == &rgba8;
    if !same {
        let png = crate::output::png::encode_rgba8(width, height, &rgba8, true).unwrap();
        std::fs::write(&actual_path, png).unwrap();
    }
    assert!(
        same,
        "the label differs from {}: see {}",
        path.display(),
        actual_path.display()
    );
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
        Ok((4 + 12, 4 + 17 + 12))
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
