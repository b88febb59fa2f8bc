//! `--stamp` and `--caption` as a user runs them: a stamped still or PNG frame differs from the
//! plain one only inside the strip along its bottom (or top) edge, which is at most a fifth of
//! the picture at 320×180, and says each frame's own facts. Off by default: the golden suites
//! hold every unstamped picture to its bytes.

mod common;

use common::{fogbank_ok, require_gpu, temp_dir};
use std::path::Path;

fn rows(path: &Path) -> (u32, Vec<Vec<u8>>) {
    let image = image::open(path).unwrap().to_rgba8();
    let width = image.width();
    let rows = image
        .as_raw()
        .chunks_exact(width as usize * 4)
        .map(<[u8]>::to_vec)
        .collect();
    (width, rows)
}

/// The rows in which two pictures of the same size differ.
fn differing_rows(a: &Path, b: &Path) -> Vec<usize> {
    let ((wa, ra), (wb, rb)) = (rows(a), rows(b));
    assert_eq!((wa, ra.len()), (wb, rb.len()));
    (0..ra.len()).filter(|&y| ra[y] != rb[y]).collect()
}

#[test]
fn a_stamped_still_differs_from_the_plain_one_only_inside_the_strip() {
    require_gpu!();
    let dir = temp_dir("stamp-still");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let still = [
        "still",
        "tests/scenes/tiny.ron",
        "--frame",
        "6",
        "--size",
        "320x180",
    ];
    let run = |name: &str, extra: &[&str]| {
        fogbank_ok(&[&still[..], &["--out", &path(name), "--quiet"], extra].concat());
        dir.join(name)
    };
    let plain = run("plain.png", &[]);
    let bottom = run("bottom.png", &["--stamp", "--caption", "take 3"]);
    let top = run("top.png", &["--stamp", "top"]);
    let off = run("off.png", &["--stamp", "off"]);
    assert_eq!(std::fs::read(&off).unwrap(), std::fs::read(&plain).unwrap());

    let strip = differing_rows(&plain, &bottom);
    assert!(!strip.is_empty());
    assert!(strip.len() * 5 <= 180, "{} rows", strip.len());
    assert_eq!(strip, (180 - strip.len()..180).collect::<Vec<_>>());
    let strip = differing_rows(&plain, &top);
    assert!(strip.len() * 5 <= 180, "{} rows", strip.len());
    assert_eq!(strip, (0..strip.len()).collect::<Vec<_>>());
}

#[test]
fn stamped_frames_of_a_clip_say_their_own_frame_in_a_strip_of_one_height() {
    require_gpu!();
    let (plain, stamped) = (temp_dir("stamp-plain"), temp_dir("stamp-clip"));
    let render = [
        "render",
        "tests/scenes/tiny.ron",
        "--frames",
        "0..3",
        "--size",
        "320x180",
    ];
    let (plain_arg, stamped_arg) = (plain.to_str().unwrap(), stamped.to_str().unwrap());
    fogbank_ok(&[&render[..], &["--out", plain_arg, "--quiet"]].concat());
    fogbank_ok(&[&render[..], &["--out", stamped_arg, "--quiet", "--stamp"]].concat());
    let mut strips = Vec::new();
    for frame in 0..3 {
        let name = format!("frame_{frame:04}.png");
        let rows = differing_rows(&plain.join(&name), &stamped.join(&name));
        assert!(
            rows.len() * 5 <= 180 && rows.last() == Some(&179),
            "{rows:?}"
        );
        strips.push(rows);
    }
    assert!(strips.windows(2).all(|w| w[0] == w[1]), "one height");
    // Each frame's strip says its own frame (and hash): the stamped pictures' strips differ.
    let strip_of = |frame: u32| {
        let (_, rows) = rows(&stamped.join(format!("frame_{frame:04}.png")));
        rows[strips[0][0]..].to_vec()
    };
    assert_ne!(strip_of(0), strip_of(1));
}
