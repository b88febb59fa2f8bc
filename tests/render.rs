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

#[test]
fn stats_name_every_stage_and_the_bound_and_change_no_byte() {
    require_gpu!();
    let (plain, timed) = (temp_dir("stats-plain"), temp_dir("stats-timed"));
    let args = |dir: &std::path::Path| {
        vec![
            "--frames".to_string(),
            "0..3".into(),
            "--size".into(),
            "96x54".into(),
            "--video".into(),
            dir.join("clip.gif").to_str().unwrap().into(),
            "--out".into(),
            dir.to_str().unwrap().into(),
        ]
    };
    let plain_args = args(&plain);
    render_ok(&plain_args.iter().map(String::as_str).collect::<Vec<_>>());
    let mut timed_args = args(&timed);
    timed_args.extend(["--stats".to_string(), "--json".into()]);
    let out = render_ok(&timed_args.iter().map(String::as_str).collect::<Vec<_>>());

    // The same files, byte for byte, with and without --stats.
    for name in [
        "frame_0000.png",
        "frame_0001.png",
        "frame_0002.png",
        "clip.gif",
    ] {
        let x = std::fs::read(plain.join(name)).unwrap();
        let y = std::fs::read(timed.join(name)).unwrap();
        assert!(x == y, "{name} differs with --stats");
    }

    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The fields that were there before stay.
    for field in ["simulate_s", "render_s", "encode_s", "total_s", "hashes"] {
        assert!(summary.get(field).is_some(), "{field} missing");
    }
    let stats = &summary["stats"];
    assert_eq!(stats["frames"], 3);
    assert!(stats["frames_per_s"].as_f64().unwrap() > 0.0);
    let stages = stats["stages"].as_array().unwrap();
    let names: Vec<&str> = stages
        .iter()
        .map(|s| s["stage"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "simulate",
            "gpu_record",
            "gpu",
            "readback_copy",
            "video",
            "encode",
            "write",
            "gpu_submit",
            "readback_wait",
            "queue_wait"
        ]
    );
    for stage in stages {
        for number in ["seconds", "ms_per_frame", "share"] {
            let value = stage[number].as_f64().unwrap();
            assert!(value >= 0.0 && value.is_finite(), "{stage}");
        }
        assert!(stage["threads"].as_u64().unwrap() >= 1, "{stage}");
    }
    // The GPU stage did real work and the video stage was timed.
    let seconds = |name: &str| {
        stages.iter().find(|s| s["stage"] == name).unwrap()["seconds"]
            .as_f64()
            .unwrap()
    };
    assert!(seconds("gpu") > 0.0 && seconds("video") > 0.0);
    let bound = stats["bound"].as_str().unwrap();
    let work: Vec<&str> = stages
        .iter()
        .filter(|s| s["kind"] == "work")
        .map(|s| s["stage"].as_str().unwrap())
        .collect();
    assert!(work.contains(&bound), "bound {bound} is not a work stage");
    // Pass times exist exactly when the GPU was timed with timestamp queries.
    let timing = stats["gpu_timing"].as_str().unwrap();
    let passes = stats["gpu_passes"].as_array().unwrap();
    if timing == "timestamp queries" {
        let names: Vec<&str> = passes.iter().map(|p| p["pass"].as_str().unwrap()).collect();
        assert!(
            names.contains(&"scene") && names.contains(&"encode"),
            "{names:?}"
        );
    } else {
        assert!(timing.contains("no timestamp queries") && passes.is_empty());
    }
    // The table on stderr names the bound stage.
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains(&format!("bound by {bound}")), "{text}");
}

/// `--fog-resolution auto` draws the fog at half size on a CPU adapter (lavapipe) and at full
/// size on a GPU, and the render says which: `fog_resolution` in `--json`, a line under the
/// `--stats` table. Without the flag the temple's fog is full size.
#[test]
fn fog_resolution_auto_is_reported() {
    require_gpu!();
    let dir = temp_dir("fog-auto");
    let render = |resolution: Option<&str>| {
        let mut args = vec!["--frames", "0", "--size", "64x36", "--json", "--stats"];
        args.extend(["--out", dir.to_str().unwrap()]);
        if let Some(resolution) = resolution {
            args.extend(["--fog-resolution", resolution]);
        }
        let out = render_ok(&args);
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        (summary, stderr)
    };
    let (auto, auto_stderr) = render(Some("auto"));
    let cpu = auto["adapter"].as_str().unwrap().contains("llvmpipe");
    let (expected, line) = match cpu {
        true => ("Half", "fog resolution: half (asked: auto)"),
        false => ("Full", "fog resolution: full (asked: auto)"),
    };
    assert_eq!(auto["fog_resolution"], expected, "{}", auto["adapter"]);
    assert!(auto_stderr.contains(line), "{auto_stderr}");
    let (plain, plain_stderr) = render(None);
    assert_eq!(plain["fog_resolution"], "Full");
    assert!(plain_stderr.contains("fog resolution: full (asked: full)"));
}
