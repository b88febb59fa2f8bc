//! Rendering PNG frames on a GPU adapter (lavapipe in CI): two renders give identical bytes,
//! odd sizes work, `still` matches the same frame of `render`, and contact sheets.

mod common;

use common::{assert_exit, fogbank, render_ok, require_gpu, temp_dir};

#[test]
fn two_renders_give_identical_bytes_and_odd_sizes_work() {
    require_gpu!();
    let (a, b) = (temp_dir("twice-a"), temp_dir("twice-b"));
    for dir in [&a, &b] {
        render_ok(&[
            "--frames",
            "0..3",
            "--size",
            "333x177",
            "--out",
            dir.to_str().unwrap(),
        ]);
    }
    for frame in 0..3 {
        let name = format!("frame_{frame:04}.png");
        let x = std::fs::read(a.join(&name)).unwrap();
        let y = std::fs::read(b.join(&name)).unwrap();
        assert_eq!(x, y, "{name} differs between two renders");
        let image = image::load_from_memory(&x).unwrap();
        assert_eq!((image.width(), image.height()), (333, 177));
    }
}

#[test]
fn still_matches_the_same_frame_of_a_render() {
    require_gpu!();
    let dir = temp_dir("still");
    render_ok(&[
        "--frames",
        "20,40",
        "--size",
        "160x90",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let still = dir.join("still.png");
    common::fogbank_ok(&[
        "still",
        "--quiet",
        "--frame",
        "40",
        "--size",
        "160x90",
        "--out",
        still.to_str().unwrap(),
    ]);
    let rendered = image::open(dir.join("frame_0040.png")).unwrap().to_rgba8();
    let single = image::open(&still).unwrap().to_rgba8();
    assert_eq!(
        rendered.as_raw(),
        single.as_raw(),
        "still differs from render"
    );
}

#[test]
fn contact_sheet_lays_out_labelled_stills() {
    require_gpu!();
    let dir = temp_dir("sheet");
    let sheet = dir.join("sheet.png");
    common::fogbank_ok(&[
        "sheet",
        "tests/scenes/tiny.ron",
        "--quiet",
        "--frames",
        "0,3,6,9,11",
        "--columns",
        "2",
        "--thumb-width",
        "80",
        "--out",
        sheet.to_str().unwrap(),
    ]);
    let image = image::open(&sheet).unwrap();
    // Two columns of 80-pixel stills, three rows for five stills.
    assert!(
        image.width() >= 160 && image.width() < 240,
        "{}",
        image.width()
    );
    assert!(image.height() > 3 * 45, "{}", image.height());
    // No columns is bad input, refused before anything is written.
    let refused = dir.join("no-columns.png");
    let out = fogbank(&[
        "sheet",
        "--frames",
        "0",
        "--columns",
        "0",
        "--out",
        refused.to_str().unwrap(),
    ]);
    assert_exit(&out, 2);
    assert!(!refused.exists());
}
