//! Command-line tests that need no GPU: simulate, maps, validate, and the errors bad input
//! gets. They run the real binary, as a user or a CI script would.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fogbank(args: &[&str]) -> Output {
    fogbank_env(args, &[])
}

fn fogbank_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fogbank"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("running fogbank")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn scene(name: &str) -> String {
    format!("tests/scenes/{name}")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fogbank-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn json_lines(output: &Output) -> Vec<serde_json::Value> {
    stdout(output)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect()
}

fn hashes(output: &Output) -> Vec<String> {
    json_lines(output)
        .iter()
        .map(|v| v["hash"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn simulate_json_reports_every_field() {
    let out = fogbank(&[
        "simulate", "--frames", "0..3,59", "--json", "--quiet", "--probe", "2,2", "--probe", "-5,0",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 4);
    let frames: Vec<u64> = lines.iter().map(|l| l["frame"].as_u64().unwrap()).collect();
    assert_eq!(frames, [0, 1, 2, 59]);
    let last = &lines[3];
    assert!((last["time"].as_f64().unwrap() - 59.0 / 60.0).abs() < 1e-9);
    assert_eq!(last["hash"].as_str().unwrap().len(), 16);
    for key in ["x", "y", "z"] {
        assert!(last["ball"][key].is_number(), "ball.{key}");
    }
    for key in ["mean", "min", "max"] {
        assert!(last["density"][key].is_number(), "density.{key}");
    }
    assert!(last["ball_density"].is_number());
    assert!(
        last["speed_max"].as_f64().unwrap() > 0.0,
        "the ball moves the air"
    );
    assert!(last["lift_max"].is_number());
    assert!(last["events"].is_array());
    let probes = last["probes"].as_array().unwrap();
    assert_eq!(probes.len(), 2);
    assert_eq!(probes[1]["x"].as_f64().unwrap(), -5.0);
    // The fog under the ball is pushed away: thinner than the mean.
    assert!(last["ball_density"].as_f64().unwrap() < last["density"]["mean"].as_f64().unwrap());
}

#[test]
fn default_scene_jumps_and_lands_at_least_three_times_in_ten_seconds() {
    let out = fogbank(&["simulate", "--json", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 600);
    let count = |name: &str| {
        lines
            .iter()
            .flat_map(|l| l["events"].as_array().unwrap().clone())
            .filter(|e| e == name)
            .count()
    };
    assert!(count("jump") >= 3, "{} jumps", count("jump"));
    assert!(count("land") >= 3, "{} landings", count("land"));
}

#[test]
fn same_hashes_on_every_run_and_thread_count() {
    let args = ["simulate", "--json", "--quiet", "--frames", "0..600"];
    let one = fogbank_env(&args, &[("RAYON_NUM_THREADS", "1")]);
    let two = fogbank_env(&args, &[("RAYON_NUM_THREADS", "2")]);
    let four = fogbank_env(&args, &[("RAYON_NUM_THREADS", "4")]);
    let again = fogbank_env(&args, &[("RAYON_NUM_THREADS", "2")]);
    let h1 = hashes(&one);
    assert_eq!(h1.len(), 600);
    assert_eq!(h1, hashes(&two));
    assert_eq!(h1, hashes(&four));
    assert_eq!(h1, hashes(&again));
    // The state does change over time.
    assert_ne!(h1[0], h1[599]);
}

#[test]
fn thirty_fps_frame_n_matches_sixty_fps_frame_2n() {
    let at60 = fogbank(&["simulate", "--json", "--quiet", "--frames", "0..=40"]);
    let at30 = fogbank(&[
        "simulate",
        "--json",
        "--quiet",
        "--frames",
        "0..=20",
        "--set",
        "output.fps=30",
    ]);
    let (h60, h30) = (hashes(&at60), hashes(&at30));
    for n in 0..=20 {
        assert_eq!(h30[n], h60[2 * n], "frame {n}");
    }
    let at24 = fogbank(&[
        "simulate",
        "--json",
        "--quiet",
        "--frames",
        "0..=24",
        "--set",
        "output.fps=24",
    ]);
    let h24 = hashes(&at24);
    // One second in, frame 24 at 24 fps shows the same state as frame 60 at 60 fps.
    let at60_long = fogbank(&["simulate", "--json", "--quiet", "--frames", "60"]);
    assert_eq!(h24[24], hashes(&at60_long)[0]);
}

#[test]
fn maps_writes_every_map_named_by_field_and_frame() {
    let dir = temp_dir("maps");
    let out = fogbank(&[
        "maps",
        &scene("tiny.ron"),
        "--out",
        dir.to_str().unwrap(),
        "--frames",
        "0,6",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    for frame in ["0000", "0006"] {
        for field in [
            "fluid",
            "lift",
            "density",
            "speed",
            "lift",
            "pressure",
            "divergence",
            "curl",
            "obstacles",
        ] {
            let path = dir.join(format!("{field}_{frame}.png"));
            let bytes = std::fs::read(&path).unwrap_or_else(|_| panic!("missing {path:?}"));
            let image = image::load_from_memory(&bytes).unwrap();
            assert_eq!((image.width(), image.height()), (32, 32), "{path:?}");
        }
    }
    // Only whole files, no temporaries.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".png") && !n.starts_with('.')),
        "{names:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn assert_bad_scene(file: &str, expected: &[&str]) {
    let dir = temp_dir(&format!("bad-{file}"));
    let out = fogbank(&["maps", &scene(file), "--out", dir.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for text in expected {
        assert!(err.contains(text), "expected {text:?} in:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        !Path::new(&dir).exists(),
        "nothing is written for a bad scene"
    );
}

#[test]
fn syntax_error_names_file_line_and_column() {
    assert_bad_scene(
        "syntax_error.ron",
        &["tests/scenes/syntax_error.ron:5:", "height"],
    );
}

#[test]
fn unknown_field_suggests_the_closest_name() {
    assert_bad_scene(
        "unknown_field.ron",
        &[
            "tests/scenes/unknown_field.ron:5:",
            "pilars",
            "did you mean `pillars`?",
        ],
    );
}

#[test]
fn unknown_variant_suggests_the_closest_name() {
    assert_bad_scene("unknown_variant.ron", &["unknown_variant.ron:3:", "Follow"]);
}

#[test]
fn out_of_range_names_field_value_and_range() {
    assert_bad_scene(
        "out_of_range.ron",
        &["out_of_range.ron:5:", "fog.sheets", "is 0", "1..=512"],
    );
}

#[test]
fn pillar_outside_the_hall_is_pointed_at() {
    assert_bad_scene(
        "pillar_outside.ron",
        &[
            "pillar_outside.ron:6:",
            "hall.pillars[1]",
            "outside the hall",
        ],
    );
}

#[test]
fn bad_override_names_the_flag() {
    let out = fogbank(&["simulate", "--set", "fog.sheetz=3", "--frames", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("fog.sheetz"), "{err}");
    assert!(err.contains("sheets"), "{err}");
    let out = fogbank(&["simulate", "--set", "fluid.grid=4", "--frames", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("8..=2048"), "{}", stderr(&out));
}

#[test]
fn missing_scene_file_is_a_clear_error() {
    let out = fogbank(&["validate", "tests/scenes/does_not_exist.ron"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("does_not_exist.ron"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn frames_past_the_clip_and_bad_ranges_are_errors() {
    let out = fogbank(&["simulate", &scene("tiny.ron"), "--frames", "5..20"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("12 frames"), "{}", stderr(&out));
    let out = fogbank(&["simulate", "--frames", "9..3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--frames"), "{}", stderr(&out));
}

#[test]
fn validate_accepts_good_scenes_and_warns() {
    let out = fogbank(&["validate", "scenes/temple.ron"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("ok"));
    let out = fogbank(&[
        "validate",
        "scenes/temple.ron",
        "--set",
        "lights.ambient.intensity=0",
        "--set",
        "lights.directional.intensity=0",
        "--set",
        "lights.ball.intensity=0",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("warning"), "{}", stderr(&out));
    assert!(stderr(&out).contains("black"), "{}", stderr(&out));
}

#[test]
fn every_shipped_scene_validates() {
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ron") {
            let out = fogbank(&["validate", path.to_str().unwrap()]);
            assert!(out.status.success(), "{path:?}: {}", stderr(&out));
        }
    }
}

fn write_png(path: &Path, width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u8; 4]) {
    let mut image = image::RgbaImage::new(width, height);
    for (x, y, p) in image.enumerate_pixels_mut() {
        *p = image::Rgba(pixel(x, y));
    }
    image.save(path).unwrap();
}

#[test]
fn compare_passes_within_tolerance_and_fails_with_exit_three() {
    let dir = temp_dir("compare");
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.png");
    let near = dir.join("near.png");
    let far = dir.join("far.png");
    let gradient = |x: u32, y: u32| [(x * 4) as u8, (y * 4) as u8, 128, 255];
    write_png(&a, 48, 32, gradient);
    write_png(&near, 48, 32, |x, y| {
        let [r, g, b, a] = gradient(x, y);
        [r.saturating_add(3), g, b, a]
    });
    write_png(&far, 48, 32, |x, y| {
        let [r, g, b, a] = gradient(x, y);
        [r.saturating_add(60), g, b, a]
    });
    let (a, near, far) = (
        a.to_str().unwrap(),
        near.to_str().unwrap(),
        far.to_str().unwrap(),
    );
    let diff = dir.join("diff.png");
    let out = fogbank(&["compare", a, near]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("pass"));
    let out = fogbank(&[
        "compare",
        a,
        far,
        "--diff",
        diff.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "fail");
    assert_eq!(report["max_channel_diff"], 60);
    assert!(diff.exists());
    // Exact comparison of data: even 3 levels fail without --max-diff.
    let out = fogbank(&["compare", a, near, "--exact"]);
    assert_eq!(out.status.code(), Some(3));
    let out = fogbank(&["compare", a, near, "--exact", "--max-diff", "3"]);
    assert_eq!(out.status.code(), Some(0));
    // A missing file is an error, not a difference.
    let out = fogbank(&["compare", a, "does-not-exist.png"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("does-not-exist.png"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_range_started_from_the_cache_has_the_hashes_of_a_full_run() {
    let dir = temp_dir("cache");
    let dir_arg = dir.to_str().unwrap();
    let grid = "fluid.grid=48";
    let full = fogbank(&[
        "simulate", "--set", grid, "--json", "--quiet", "--frames", "0..120",
    ]);
    assert!(full.status.success(), "{}", stderr(&full));
    let full_hashes = hashes(&full);
    let fill = fogbank(&[
        "simulate", "--set", grid, "--cache", dir_arg, "--json", "--quiet", "--frames", "0..120",
    ]);
    assert!(fill.status.success(), "{}", stderr(&fill));
    assert_eq!(
        hashes(&fill),
        full_hashes,
        "writing the cache changes nothing"
    );
    // Every 60 frames by default: step 60 only (frame 120 was not reached).
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["step_00000060.snap"]);

    let part = fogbank(&[
        "simulate", "--set", grid, "--cache", dir_arg, "--json", "--quiet", "--frames", "100..120",
    ]);
    assert!(part.status.success(), "{}", stderr(&part));
    assert_eq!(hashes(&part), full_hashes[100..120]);

    // Another scene's cache is refused, naming the file and the fix.
    let other = fogbank(&[
        "simulate",
        "--set",
        grid,
        "--set",
        "fluid.refill=1",
        "--cache",
        dir_arg,
        "--quiet",
        "--frames",
        "100..101",
    ]);
    assert_eq!(other.status.code(), Some(2), "{}", stderr(&other));
    let message = stderr(&other);
    assert!(
        message.contains("step_00000060.snap") && message.contains("not this scene"),
        "{message}"
    );

    // A damaged snapshot is a clear error, not a panic.
    let snap = dir.join("step_00000060.snap");
    let bytes = std::fs::read(&snap).unwrap();
    std::fs::write(&snap, &bytes[..bytes.len() / 2]).unwrap();
    let truncated = fogbank(&[
        "simulate", "--set", grid, "--cache", dir_arg, "--quiet", "--frames", "100..101",
    ]);
    assert_eq!(truncated.status.code(), Some(2), "{}", stderr(&truncated));
    assert!(
        stderr(&truncated).contains("truncated"),
        "{}",
        stderr(&truncated)
    );
    assert!(!stderr(&truncated).contains("panicked"));
    std::fs::remove_dir_all(&dir).unwrap();
}
