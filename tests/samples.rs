//! Samples a pixel (`--samples N`, `output.samples`): one sample is the single-sample picture,
//! more samples converge toward the supersampled picture at geometry edges, every run gives the
//! same bytes, golden checks record and reuse the count, and bad counts are refused.

mod common;

use common::{assert_exit, fogbank, fogbank_ok, require_gpu, scene, stderr, temp_dir};
use std::path::Path;

/// A still of the tiny scene's frame 8 at 160×90 with `args` added, as RGBA8.
fn tiny_still(dir: &Path, name: &str, args: &[&str]) -> Vec<u8> {
    let out = dir.join(name);
    let tiny = scene("tiny.ron");
    let base = [
        "still",
        tiny.as_str(),
        "--frame",
        "8",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    fogbank_ok(&[&base[..], args].concat());
    image::open(&out).unwrap().to_rgba8().into_raw()
}

/// The mean of the largest channel difference over the pixels where `single` and `reference`
/// differ by more than 8 levels: the edges a single sample gets wrong.
fn edge_error(picture: &[u8], single: &[u8], reference: &[u8]) -> f64 {
    let mut sum = 0.0;
    let mut edges = 0u32;
    for ((p, s), r) in picture
        .chunks_exact(4)
        .zip(single.chunks_exact(4))
        .zip(reference.chunks_exact(4))
    {
        let diff = |a: &[u8], b: &[u8]| (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0);
        if diff(s, r) > 8 {
            sum += f64::from(diff(p, r));
            edges += 1;
        }
    }
    assert!(
        edges > 20,
        "only {edges} edge pixels: the test frame shows too little"
    );
    sum / f64::from(edges)
}

#[test]
fn one_sample_is_the_single_sample_picture_and_more_converge_at_edges() {
    require_gpu!();
    let dir = temp_dir("samples-converge");
    std::fs::create_dir_all(&*dir).unwrap();
    let plain = tiny_still(&dir, "plain.png", &[]);
    let one = tiny_still(&dir, "one.png", &["--samples", "1"]);
    assert!(plain == one, "--samples 1 changed the picture");
    let four = tiny_still(&dir, "four.png", &["--samples", "4"]);
    let reference = tiny_still(&dir, "reference.png", &["--samples", "64"]);
    let single_error = edge_error(&one, &one, &reference);
    let four_error = edge_error(&four, &one, &reference);
    eprintln!("edge error against 64 samples: one {single_error:.2}, four {four_error:.2} levels");
    assert!(
        four_error <= 0.5 * single_error,
        "4 samples: edge error {four_error:.2} levels against {single_error:.2} with one"
    );
}

#[test]
fn samples_give_the_same_bytes_on_every_run_in_every_compositor() {
    require_gpu!();
    let dir = temp_dir("samples-repeat");
    std::fs::create_dir_all(&*dir).unwrap();
    for compositor in ["raster", "compute", "raymarch"] {
        let args = ["--samples", "3", "--compositor", compositor];
        let first = tiny_still(&dir, &format!("{compositor}-a.png"), &args);
        let second = tiny_still(&dir, &format!("{compositor}-b.png"), &args);
        assert!(first == second, "{compositor}: two runs differ");
    }
}

#[test]
fn a_golden_check_records_its_samples_and_takes_them_back() {
    require_gpu!();
    let golden = temp_dir("samples-golden");
    let tiny = scene("tiny.ron");
    let dir = golden.to_str().unwrap();
    let base = ["check", tiny.as_str(), "--golden", dir, "--frames", "0..2"];
    fogbank_ok(&[&base[..], &["--samples", "2", "--bless", "--quiet"]].concat());
    let sidecar = std::fs::read_to_string(golden.join("golden.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&sidecar).unwrap();
    assert_eq!(json["samples"], 2, "{sidecar}");
    // Without --samples the check renders with the recorded two, and says so.
    let checked = fogbank(&["check", tiny.as_str(), "--golden", dir]);
    assert_exit(&checked, 0);
    assert!(
        stderr(&checked).contains("2 samples"),
        "{}",
        stderr(&checked)
    );
    // With one sample the edges move: an exact check fails.
    let exact = ["--max-diff", "0", "--pixel-budget", "0"];
    let single = [&base[..], &["--samples", "1"], &exact].concat();
    assert_exit(&fogbank(&single), 3);
    let sampled = [&base[..], &exact].concat();
    assert_exit(&fogbank(&sampled), 0);
}

#[test]
fn bad_sample_counts_are_refused() {
    for count in ["0", "257", "two"] {
        let out = fogbank(&[
            "still",
            "--frame",
            "1",
            "--out",
            "x.png",
            "--samples",
            count,
        ]);
        assert_exit(&out, 2);
        assert!(stderr(&out).contains("--samples"), "{}", stderr(&out));
    }
    let out = fogbank(&["validate", &scene("tiny.ron"), "--set", "output.samples=0"]);
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("output.samples"), "{}", stderr(&out));
    let out = fogbank(&[
        "render",
        "--frames",
        "0",
        "--format",
        "exr",
        "--layers",
        "--samples",
        "2",
        "--out",
        "never",
    ]);
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("--samples 1"), "{}", stderr(&out));
    assert!(!Path::new("never").exists());
}
