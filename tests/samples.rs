//! Samples a pixel (`--samples N`, `output.samples`): one sample is the single-sample picture,
//! more samples converge toward the supersampled picture at geometry edges, every run gives the
//! same bytes, golden checks record and reuse the count, and bad counts are refused.

mod common;

use common::{assert_exit, fogbank, fogbank_env, fogbank_ok, require_gpu, scene, stderr, temp_dir};
use std::path::Path;

/// A still of the tiny scene's frame 8 at 160×90 with `args` added, as RGBA8.
fn tiny_still(dir: &Path, name: &str, args: &[&str]) -> Vec<u8> {
    tiny_still_at(dir, name, &[&["--frame", "8"][..], args].concat())
}

/// A still of the tiny scene with `args` (which choose the frame), as RGBA8.
fn tiny_still_at(dir: &Path, name: &str, args: &[&str]) -> Vec<u8> {
    tiny_still_with(dir, name, args, &[])
}

/// [`tiny_still_at`] with extra environment variables.
fn tiny_still_with(dir: &Path, name: &str, args: &[&str], env: &[(&str, &str)]) -> Vec<u8> {
    let out = dir.join(name);
    let tiny = scene("tiny.ron");
    let base = [
        "still",
        tiny.as_str(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    assert_exit(&fogbank_env(&[&base[..], args].concat(), env), 0);
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
    let one = tiny_still(&dir, "one.png", &["--samples", "1"]);
    let scene_one = tiny_still(&dir, "scene-one.png", &["--set", "output.samples=1"]);
    assert!(scene_one == one, "output.samples: 1 and --samples 1 differ");
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

/// The default picture, with no sampling named, is anti-aliased: 8 samples at the edges.
#[test]
fn the_default_is_anti_aliased_at_the_edges_and_keeps_every_other_pixel() {
    require_gpu!();
    let dir = temp_dir("edge-samples");
    std::fs::create_dir_all(&*dir).unwrap();
    let one = tiny_still(&dir, "one.png", &["--samples", "1"]);
    let edges = tiny_still(&dir, "default.png", &[]);
    let named = tiny_still(&dir, "edges.png", &["--edge-samples", "8"]);
    assert!(edges == named, "the default is not --edge-samples 8");
    let reference = tiny_still(&dir, "reference.png", &["--samples", "64"]);
    let single_error = edge_error(&one, &one, &reference);
    let edges_error = edge_error(&edges, &one, &reference);
    eprintln!("edge error against 64 samples: one {single_error:.2}, default {edges_error:.2}");
    assert!(
        edges_error <= single_error / 3.0,
        "the default: edge error {edges_error:.2} levels against {single_error:.2} with one"
    );
    // Away from the edges the picture is the single sample's, byte for byte.
    let pixels = one.len() / 4;
    let kept = one
        .chunks_exact(4)
        .zip(edges.chunks_exact(4))
        .filter(|(a, b)| a == b)
        .count();
    assert!(
        kept * 10 >= pixels * 7 && kept < pixels,
        "{kept} of {pixels} pixels kept"
    );
    // And every run gives the same bytes, in every compositor.
    for compositor in ["raster", "compute", "raymarch"] {
        let args = ["--edge-samples", "8", "--compositor", compositor];
        let first = tiny_still(&dir, &format!("{compositor}-a.png"), &args);
        let second = tiny_still(&dir, &format!("{compositor}-b.png"), &args);
        assert!(first == second, "{compositor}: two runs differ");
    }
}

#[test]
fn a_golden_check_records_its_edge_samples_and_takes_them_back() {
    require_gpu!();
    let golden = temp_dir("edge-samples-golden");
    let tiny = scene("tiny.ron");
    let dir = golden.to_str().unwrap();
    let base = ["check", tiny.as_str(), "--golden", dir, "--frames", "8"];
    fogbank_ok(&[&base[..], &["--edge-samples", "4", "--bless", "--quiet"]].concat());
    let sidecar = std::fs::read_to_string(golden.join("golden.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&sidecar).unwrap();
    assert_eq!(json["edge_samples"], 4, "{sidecar}");
    let exact = ["--max-diff", "0", "--pixel-budget", "0"];
    let checked = fogbank(&[&["check", tiny.as_str(), "--golden", dir][..], &exact].concat());
    assert_exit(&checked, 0);
    let said = stderr(&checked);
    assert!(said.contains("4 samples at edges"), "{said}");
    // One sample at the edges too: the edges move, and an exact check fails.
    let single = [&base[..], &["--edge-samples", "1"], &exact].concat();
    assert_exit(&fogbank(&single), 3);
}

/// A folder blessed with one sample names no samples in its golden.json, as folders blessed
/// before the anti-aliased default do: a check without flags renders one sample and passes
/// exactly, and a check with the default's 8 samples at the edges fails.
#[test]
fn a_golden_folder_that_names_no_samples_is_checked_with_one() {
    require_gpu!();
    let golden = temp_dir("one-sample-golden");
    let tiny = scene("tiny.ron");
    let dir = golden.to_str().unwrap();
    let base = ["check", tiny.as_str(), "--golden", dir, "--frames", "8"];
    fogbank_ok(&[&base[..], &["--samples", "1", "--bless", "--quiet"]].concat());
    let sidecar = std::fs::read_to_string(golden.join("golden.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&sidecar).unwrap();
    assert!(
        json.get("samples").is_none() && json.get("edge_samples").is_none(),
        "{sidecar}"
    );
    let exact = ["--max-diff", "0", "--pixel-budget", "0"];
    let checked = fogbank(&[&["check", tiny.as_str(), "--golden", dir][..], &exact].concat());
    assert_exit(&checked, 0);
    let anti_aliased = [&base[..], &["--edge-samples", "8"], &exact].concat();
    assert_exit(&fogbank(&anti_aliased), 3);
}

#[test]
fn edge_samples_go_with_one_sample_and_no_shutter() {
    let tiny = scene("tiny.ron");
    let still = ["still", tiny.as_str(), "--frame", "1", "--out", "never.png"];
    let both = fogbank(&[&still[..], &["--samples", "4", "--edge-samples", "8"]].concat());
    assert_exit(&both, 2);
    assert!(
        stderr(&both).contains("cannot be used with"),
        "{}",
        stderr(&both)
    );
    // A flag names the whole sampling: `--edge-samples` replaces the scene's samples too.
    let dir = temp_dir("edge-samples-flag");
    let out = dir.join("edges.png");
    let flagged = [
        "still",
        tiny.as_str(),
        "--frame",
        "1",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
        "--set",
        "output.samples=4",
        "--edge-samples",
        "8",
    ];
    assert_exit(&fogbank(&flagged), 0);
    let in_scene = [
        &still[..],
        &[
            "--set",
            "output.samples=4",
            "--set",
            "output.edge_samples=8",
        ],
    ];
    let out = fogbank(&in_scene.concat());
    assert_exit(&out, 2);
    let said = stderr(&out);
    assert!(
        said.contains("output.edge_samples") && said.contains("choose one"),
        "{said}"
    );
    let blurred = fogbank(&[&still[..], &["--edge-samples", "8", "--shutter", "0.5"]].concat());
    assert_exit(&blurred, 2);
    assert!(stderr(&blurred).contains("shutter"), "{}", stderr(&blurred));
    assert!(!Path::new("never.png").exists());
}

/// The tiny scene seen from a fixed camera while the ball rolls fast to the left, about 0.7
/// units a frame at 30 frames a second, with no fog and no pillars: only the ball and the
/// light it throws move.
const ROLLING: [&str; 16] = [
    "--set",
    "camera=Fixed(position: (0.0, 9.0, 11.0), target: (0.0, 0.0, 2.0))",
    "--set",
    "ball.script=[Move(at: 0.0, duration: 2.0, direction: (-1.0, 0.0))]",
    "--set",
    "ball.accel=120",
    "--set",
    "ball.drag=4",
    "--set",
    "ball.start=(6.0, 2.0)",
    "--set",
    "output.frames=30",
    "--set",
    "fog.sigma=0",
    "--set",
    "hall.pillars=[]",
];

/// How orange each pixel column is, summed down the column: the ball and its light on the
/// floor, against grey-blue stone.
fn orange_by_column(rgba: &[u8], width: usize) -> Vec<f64> {
    let mut columns = vec![0.0; width];
    for (i, p) in rgba.chunks_exact(4).enumerate() {
        columns[i % width] += f64::from(p[0].saturating_sub(p[2]));
    }
    columns
}

/// The mean and variance of a column profile, in pixels.
fn moments(profile: &[f64]) -> (f64, f64) {
    let mass: f64 = profile.iter().sum();
    assert!(mass > 0.0, "no ball in the picture");
    let weighted = |f: &dyn Fn(f64) -> f64| {
        profile
            .iter()
            .enumerate()
            .map(|(x, m)| f(x as f64) * m)
            .sum::<f64>()
            / mass
    };
    let mean = weighted(&|x| x);
    (mean, weighted(&|x| (x - mean).powi(2)))
}

#[test]
fn the_shutter_smears_the_ball_along_its_path_and_leaves_the_rest() {
    require_gpu!();
    let dir = temp_dir("samples-shutter");
    std::fs::create_dir_all(&*dir).unwrap();
    let width = 320;
    let still = |name: &str, extra: &[&str]| {
        let size = ["--size", "320x180", "--samples", "16"];
        tiny_still_at(&dir, name, &[&ROLLING[..], &size, extra].concat())
    };
    // 30 fps frame 10 is 60 fps frame 20; a shutter open for the whole 30 fps frame spans 60
    // fps frames 19 to 21.
    let open = still("open.png", &["--frame", "10", "--shutter", "1"]);
    let instant = still("instant.png", &["--frame", "10"]);
    let at_60 = |frame: &str| {
        let args = [
            "--set",
            "output.fps=60",
            "--set",
            "output.frames=60",
            "--frame",
            frame,
        ];
        still(&format!("at_{frame}.png"), &args)
    };
    let (opening, closing) = (at_60("19"), at_60("21"));
    let (start, _) = moments(&orange_by_column(&opening, width));
    let (end, _) = moments(&orange_by_column(&closing, width));
    let path_px = (end - start).abs();
    assert!(
        path_px > 8.0,
        "the ball moved {path_px:.1} px: the test shows too little"
    );
    // A box blur of length L adds L²/12 to a profile's variance.
    let (_, var_instant) = moments(&orange_by_column(&instant, width));
    let (_, var_open) = moments(&orange_by_column(&open, width));
    let smear_px = (12.0 * (var_open - var_instant).max(0.0)).sqrt();
    eprintln!(
        "the ball moved {path_px:.1} px while the shutter was open, smeared {smear_px:.1} px"
    );
    assert!(
        (smear_px - path_px).abs() <= 0.3 * path_px,
        "smeared {smear_px:.1} px along a path of {path_px:.1} px"
    );
    // Away from the ball and its light nothing changes.
    let moved: Vec<usize> = opening
        .chunks_exact(4)
        .zip(closing.chunks_exact(4))
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, _)| i % width)
        .collect();
    let (left, right) = (*moved.iter().min().unwrap(), *moved.iter().max().unwrap());
    for (i, (a, b)) in open
        .chunks_exact(4)
        .zip(instant.chunks_exact(4))
        .enumerate()
    {
        let x = i % width;
        if (x + 2 < left || x > right + 2) && a != b {
            panic!("pixel ({x}, {}) changed, away from what moves", i / width);
        }
    }
}

#[test]
fn a_closed_shutter_is_the_instant_and_an_open_one_repeats_its_bytes() {
    require_gpu!();
    let dir = temp_dir("samples-shutter-repeat");
    std::fs::create_dir_all(&*dir).unwrap();
    let args = |shutter: &'static str| {
        [
            &ROLLING[..],
            &["--frame", "10", "--samples", "4", "--shutter", shutter],
        ]
        .concat()
    };
    let closed = tiny_still_at(&dir, "closed.png", &args("0"));
    let plain = tiny_still_at(
        &dir,
        "plain.png",
        &[&ROLLING[..], &["--frame", "10", "--samples", "4"]].concat(),
    );
    assert!(closed == plain, "--shutter 0 is not the instant");
    let first = tiny_still_at(&dir, "first.png", &args("0.5"));
    assert!(first != plain, "a half-open shutter changed nothing");
    // Again on one thread: the samples' moments are built in parallel.
    let one_thread = [("RAYON_NUM_THREADS", "1")];
    let second = tiny_still_with(&dir, "second.png", &args("0.5"), &one_thread);
    assert!(
        first == second,
        "a shutter on one thread differs from one on every thread"
    );
}

#[test]
fn a_shutter_needs_two_samples() {
    for args in [
        &["--shutter", "0.5"][..],
        &["--shutter", "0.5", "--samples", "1"],
    ] {
        let base = ["still", "--frame", "1", "--out", "never.png"];
        let out = fogbank(&[&base[..], args].concat());
        assert_exit(&out, 2);
        assert!(stderr(&out).contains("--samples 16"), "{}", stderr(&out));
    }
    for shutter in ["-0.1", "1.5", "half"] {
        let out = fogbank(&[
            "still",
            "--frame",
            "1",
            "--out",
            "x.png",
            &format!("--shutter={shutter}"),
        ]);
        assert_exit(&out, 2);
        assert!(stderr(&out).contains("--shutter"), "{}", stderr(&out));
    }
    let set = ["--set", "output.shutter=0.5"];
    let out = fogbank(&[&["validate", &scene("tiny.ron")][..], &set].concat());
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("output.samples"), "{}", stderr(&out));
    assert!(!Path::new("never.png").exists());
}

#[test]
fn a_shutter_render_from_the_cache_equals_a_full_render() {
    require_gpu!();
    let (cache, full, cached) = (
        temp_dir("samples-cache"),
        temp_dir("samples-cache-full"),
        temp_dir("samples-cache-cached"),
    );
    let tiny = scene("tiny.ron");
    let blur = [
        "--samples",
        "4",
        "--shutter",
        "1",
        "--frames",
        "5..7",
        "--quiet",
    ];
    let simulate = [
        "simulate",
        tiny.as_str(),
        "--cache",
        cache.to_str().unwrap(),
    ];
    // Snapshots at steps 10 and 20: frame 5 is step 10, and its first sample reaches back to
    // step 9, so a render from the cache must start before the snapshot at step 10.
    let every = ["--cache-every", "5", "--quiet"];
    fogbank_ok(&[&simulate[..], &ROLLING[..], &every].concat());
    assert!(cache.join("step_00000010.snap").exists());
    for (out, cache_args) in [
        (&full, vec![]),
        (&cached, vec!["--cache", cache.to_str().unwrap()]),
    ] {
        let render = ["render", tiny.as_str(), "--out", out.to_str().unwrap()];
        fogbank_ok(&[&render[..], &ROLLING[..], &blur, &cache_args].concat());
    }
    for frame in 5..7 {
        let name = format!("frame_{frame:04}.png");
        let (a, b) = (
            std::fs::read(full.join(&name)),
            std::fs::read(cached.join(&name)),
        );
        assert!(
            a.unwrap() == b.unwrap(),
            "{name}: the cached render differs"
        );
    }
}
