//! Command-line tests that render on a GPU adapter (lavapipe in CI): golden images through
//! `fogbank check`, byte-identical re-renders, odd sizes, and `still` against `render`.
//!
//! Golden references live in tests/golden/<case>/ beside a golden.json naming the adapter that
//! made them. The tolerance is `fogbank check`'s default (max Δ 8 levels, 0.2 % of pixels, SSIM
//! ≥ 0.98), loosened automatically when the adapter differs. To re-bless after an intended
//! change to the picture, run `FOGBANK_BLESS=1 cargo test --test gpu_cli golden` and commit the
//! new images with the reason in the message. On failure the actual image, a diff heat map and
//! an expected | actual | diff strip are written beside the golden.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fogbank(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fogbank"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("running fogbank")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fogbank-gpu-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// True when a GPU adapter (or lavapipe) is available. Outside CI a machine without one skips
/// these tests with a message; under CI=true a missing adapter fails them.
fn have_adapter() -> bool {
    let out = fogbank(&["info", "--json"]);
    let list: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
    if !list.is_empty() {
        return true;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("no GPU adapter under CI=true: install mesa-vulkan-drivers (scripts/setup.sh)");
    }
    eprintln!("skipping: no GPU adapter (install mesa-vulkan-drivers for lavapipe)");
    false
}

fn golden(case: &str, args: &[&str]) {
    if !have_adapter() {
        return;
    }
    let dir = Path::new("tests/golden").join(case);
    let dir = dir.to_str().unwrap();
    let mut all = vec!["check", "--golden", dir, "--quiet"];
    all.extend_from_slice(args);
    if std::env::var("FOGBANK_BLESS").is_ok_and(|v| v == "1") {
        all.push("--bless");
    }
    let out = fogbank(&all);
    assert!(
        out.status.success(),
        "golden {case} failed (exit {:?}):\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        stderr(&out)
    );
}

#[test]
fn golden_temple_fog() {
    golden(
        "temple_fog",
        &["--size", "160x90", "--frames", "0,45,90", "--maps"],
    );
}

#[test]
fn golden_temple_sheets_view() {
    golden(
        "temple_sheets",
        &["--size", "160x90", "--frames", "45", "--view", "sheets"],
    );
}

#[test]
fn golden_temple_flow_view() {
    golden(
        "temple_flow",
        &["--size", "160x90", "--frames", "45", "--view", "flow"],
    );
}

#[test]
fn golden_temple_fluid_view() {
    golden(
        "temple_fluid",
        &["--size", "160x90", "--frames", "45", "--view", "fluid"],
    );
}

/// The temple's braziers and torches at half a second: flames, their light on the pillars and
/// their glow in the fog.
#[test]
fn golden_temple_fires() {
    golden("temple_fires", &["--size", "160x90", "--frames", "30"]);
}

#[test]
fn two_renders_give_identical_bytes_and_odd_sizes_work() {
    if !have_adapter() {
        return;
    }
    let (a, b) = (temp_dir("twice-a"), temp_dir("twice-b"));
    for dir in [&a, &b] {
        let out = fogbank(&[
            "render",
            "--quiet",
            "--frames",
            "0..3",
            "--size",
            "333x177",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    for frame in 0..3 {
        let name = format!("frame_{frame:04}.png");
        let x = std::fs::read(a.join(&name)).unwrap();
        let y = std::fs::read(b.join(&name)).unwrap();
        assert_eq!(x, y, "{name} differs between two renders");
        let image = image::load_from_memory(&x).unwrap();
        assert_eq!((image.width(), image.height()), (333, 177));
    }
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

#[test]
fn still_matches_the_same_frame_of_a_render() {
    if !have_adapter() {
        return;
    }
    let dir = temp_dir("still");
    let out = fogbank(&[
        "render",
        "--quiet",
        "--frames",
        "20,40",
        "--size",
        "160x90",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let still = dir.join("still.png");
    let out = fogbank(&[
        "still",
        "--quiet",
        "--frame",
        "40",
        "--size",
        "160x90",
        "--out",
        still.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rendered = image::open(dir.join("frame_0040.png")).unwrap().to_rgba8();
    let single = image::open(&still).unwrap().to_rgba8();
    assert_eq!(
        rendered.as_raw(),
        single.as_raw(),
        "still differs from render"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_reports_differences_with_a_distinct_exit_code_and_artifacts() {
    if !have_adapter() {
        return;
    }
    let dir = temp_dir("check");
    let d = dir.to_str().unwrap();
    let base = ["--size", "96x54", "--frames", "10", "--quiet"];
    let mut bless = vec!["check", "--golden", d, "--bless"];
    bless.extend_from_slice(&base);
    assert!(fogbank(&bless).status.success());
    let mut same = vec!["check", "--golden", d];
    same.extend_from_slice(&base);
    assert_eq!(fogbank(&same).status.code(), Some(0));
    let mut changed = same.clone();
    changed.extend_from_slice(&["--set", "fog.sigma=2.0"]);
    let out = fogbank(&changed);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    for suffix in ["actual", "diff", "strip"] {
        assert!(
            dir.join(format!("frame_0010.{suffix}.png")).exists(),
            "{suffix}"
        );
    }
    // A missing reference under CI=true is an error (exit 2), never silently created.
    let out = Command::new(env!("CARGO_BIN_EXE_fogbank"))
        .args([
            "check", "--golden", d, "--size", "96x54", "--frames", "11", "--quiet",
        ])
        .env("CI", "true")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!dir.join("frame_0011.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// ffprobe's view of a video's first stream, or `None` when ffprobe is missing (allowed only
/// when FOGBANK_REQUIRE_FFMPEG is not 1; CI sets it).
fn probe(path: &Path) -> Option<serde_json::Value> {
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-count_frames",
            "-show_streams",
            "-show_format",
            "-of",
            "json",
        ])
        .arg(path)
        .output();
    match out {
        Ok(out) if out.status.success() => Some(serde_json::from_slice(&out.stdout).unwrap()),
        Ok(out) => panic!("ffprobe failed on {path:?}: {}", stderr(&out)),
        Err(_) => {
            assert!(
                std::env::var("FOGBANK_REQUIRE_FFMPEG").map_or(true, |v| v != "1"),
                "ffprobe is required (FOGBANK_REQUIRE_FFMPEG=1) but not on PATH"
            );
            eprintln!("skipping the ffprobe checks: ffprobe not on PATH");
            None
        }
    }
}

fn have_ffmpeg() -> bool {
    let found = Command::new("ffmpeg").arg("-version").output().is_ok();
    if !found {
        assert!(
            std::env::var("FOGBANK_REQUIRE_FFMPEG").map_or(true, |v| v != "1"),
            "ffmpeg is required (FOGBANK_REQUIRE_FFMPEG=1) but not on PATH"
        );
        eprintln!("skipping: ffmpeg not on PATH");
    }
    found
}

#[test]
fn mp4_and_webm_through_ffmpeg_have_the_right_codec_size_and_frames() {
    if !have_adapter() || !have_ffmpeg() {
        return;
    }
    let dir = temp_dir("video");
    for (name, codec) in [("clip.mp4", "h264"), ("clip.webm", "vp9")] {
        let video = dir.join(name);
        let out = fogbank(&[
            "render",
            "tests/scenes/tiny.ron",
            "--quiet",
            "--no-frames",
            "--size",
            "165x91",
            "--video",
            video.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let Some(info) = probe(&video) else { return };
        let stream = &info["streams"][0];
        assert_eq!(stream["codec_name"], codec, "{name}");
        assert_eq!(stream["pix_fmt"], "yuv420p", "{name}");
        // Odd sizes are padded to even for yuv420p.
        assert_eq!(
            (stream["width"].as_u64(), stream["height"].as_u64()),
            (Some(166), Some(92))
        );
        assert_eq!(stream["nb_read_frames"], "12", "{name}");
        let duration: f64 = info["format"]["duration"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            (duration - 12.0 / 30.0).abs() < 0.05,
            "{name}: {duration} s"
        );
    }
    // --no-frames writes only the video.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gif_and_apng_decode_to_every_frame_and_exr_round_trips() {
    if !have_adapter() {
        return;
    }
    let dir = temp_dir("native-video");
    let gif = dir.join("clip.gif");
    let apng = dir.join("clip.png");
    for video in [&gif, &apng] {
        let out = fogbank(&[
            "render",
            "tests/scenes/tiny.ron",
            "--quiet",
            "--format",
            "exr",
            "--video",
            video.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let mut decoder = gif::DecodeOptions::new();
    decoder.set_color_output(gif::ColorOutput::RGBA);
    let mut reader = decoder
        .read_info(std::fs::File::open(&gif).unwrap())
        .unwrap();
    let mut frames = 0;
    while let Some(frame) = reader.read_next_frame().unwrap() {
        assert_eq!((frame.width, frame.height), (160, 90));
        frames += 1;
    }
    assert_eq!(frames, 12);
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&apng).unwrap()));
    let reader = decoder.read_info().unwrap();
    let animation = reader.info().animation_control().expect("an animated PNG");
    assert_eq!(animation.num_frames, 12);
    // The EXR frames hold the same picture as the PNG frames, in linear light: the linear
    // target itself, so encoded to sRGB it is within a level of the 8-bit frame (it is not an
    // 8-bit frame decoded back, so it need not equal the decoded PNG).
    let png_dir = temp_dir("native-video-png");
    let out = fogbank(&[
        "render",
        "tests/scenes/tiny.ron",
        "--quiet",
        "--frames",
        "5",
        "--out",
        png_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let srgb = image::open(png_dir.join("frame_0005.png"))
        .unwrap()
        .to_rgba8();
    let exr = std::fs::read(dir.join("frame_0005.exr")).unwrap();
    let (w, h, halves) = fogbank::output::exr::decode_exr_rgba_f16(&exr).unwrap();
    assert_eq!((w, h), (160, 90));
    for (i, pixel) in srgb.pixels().enumerate().step_by(97) {
        let stored = fogbank::output::exr::f16_bits_to_f32(halves[i * 4 + 1]);
        assert!(
            linear_to_srgb8(stored).abs_diff(pixel[1]) <= 1,
            "pixel {i}: the PNG has {}, the EXR {stored}",
            pixel[1]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&png_dir);
}

#[test]
fn contact_sheet_lays_out_labelled_stills() {
    if !have_adapter() {
        return;
    }
    let dir = temp_dir("sheet");
    let sheet = dir.join("sheet.png");
    let out = fogbank(&[
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
    assert!(out.status.success(), "{}", stderr(&out));
    let image = image::open(&sheet).unwrap();
    // Two columns of 80-pixel stills, three rows for five stills.
    assert!(
        image.width() >= 160 && image.width() < 240,
        "{}",
        image.width()
    );
    assert!(image.height() > 3 * 45, "{}", image.height());
    let out = fogbank(&[
        "sheet",
        "--frames",
        "0",
        "--columns",
        "0",
        "--out",
        "/tmp/x.png",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_video_extension_fails_before_rendering() {
    let dir = temp_dir("bad-video");
    let out = fogbank(&[
        "render",
        "--frames",
        "0",
        "--video",
        "clip.avi",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(".mp4"), "{}", stderr(&out));
    assert!(!dir.exists());
}

/// Height fog is additive: with `height_falloff` at 0 (every scene that leaves it out) the
/// tiny scene renders byte for byte as it did before the feature existed. The reference in
/// tests/golden/tiny_exact was blessed from the renderer before height fog, with every
/// tolerance at zero; do not re-bless it to make this pass.
#[test]
fn zero_height_falloff_renders_exactly_as_before() {
    if !have_adapter() {
        return;
    }
    let out = fogbank(&[
        "check",
        "tests/scenes/tiny.ron",
        "--golden",
        "tests/golden/tiny_exact",
        "--max-diff",
        "0",
        "--pixel-budget",
        "0",
        "--min-ssim",
        "1",
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "tiny scene no longer renders exactly as before height fog (exit {:?}):\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        stderr(&out)
    );
}

#[test]
fn bless_replaces_the_fluid_map_references_too() {
    if !have_adapter() {
        return;
    }
    let dir = temp_dir("bless-maps");
    let d = dir.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "check",
            "tests/scenes/tiny.ron",
            "--golden",
            d,
            "--maps",
            "--frames",
            "6",
            "--quiet",
        ];
        args.extend_from_slice(extra);
        fogbank(&args)
    };
    assert!(run(&["--bless"]).status.success());
    let changed = ["--set", "fluid.refill=5"];
    assert_eq!(run(&changed).status.code(), Some(3), "the fluid changed");
    let mut bless_changed = changed.to_vec();
    bless_changed.push("--bless");
    assert!(run(&bless_changed).status.success());
    let out = run(&changed);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Linear light to an 8-bit sRGB code value: clamped to 0..=1, the exact piecewise curve,
/// rounded to nearest (what the renderer's `Rgba8UnormSrgb` store does).
fn linear_to_srgb8(linear: f32) -> u8 {
    let v = linear.clamp(0.0, 1.0);
    let encoded = if v <= 0.003_130_8 {
        v * 12.92
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    };
    (encoded * 255.0).round() as u8
}

/// An EXR written by fogbank: its size and its pixels as `f32`, four to a pixel.
fn read_exr(path: &Path) -> (u32, u32, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (w, h, halves) = fogbank::output::exr::decode_exr_rgba_f16(&bytes).unwrap();
    let floats = halves
        .iter()
        .map(|&b| fogbank::output::exr::f16_bits_to_f32(b))
        .collect();
    (w, h, floats)
}

fn render_ok(args: &[&str]) {
    let mut all = vec!["render", "--quiet"];
    all.extend_from_slice(args);
    let out = fogbank(&all);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
}

/// `--format exr` writes the renderer's linear half-float target itself: the same picture as
/// the PNG of the frame (encoded to sRGB it is within one level of it: the GPU's sRGB store may
/// round the other way at a level boundary), opaque, and with the light above 1.0 that the
/// PNG clips (the temple's flames at half a second).
#[test]
fn exr_frames_are_the_linear_target_with_values_above_one() {
    if !have_adapter() {
        return;
    }
    let (exr_dir, png_dir) = (temp_dir("exr-linear"), temp_dir("exr-linear-png"));
    let base = ["--frames", "30", "--size", "160x90"];
    render_ok(
        &[
            &base[..],
            &["--format", "exr", "--out", exr_dir.to_str().unwrap()],
        ]
        .concat(),
    );
    render_ok(&[&base[..], &["--out", png_dir.to_str().unwrap()]].concat());
    let (w, h, linear) = read_exr(&exr_dir.join("frame_0030.exr"));
    assert_eq!((w, h), (160, 90));
    let srgb = image::open(png_dir.join("frame_0030.png"))
        .unwrap()
        .to_rgba8();
    for (i, (pixel, png)) in linear.chunks_exact(4).zip(srgb.pixels()).enumerate() {
        assert_eq!(pixel[3], 1.0, "alpha of pixel {i}");
        for c in 0..3 {
            let encoded = linear_to_srgb8(pixel[c]);
            assert!(
                encoded.abs_diff(png[c]) <= 1,
                "pixel {i} channel {c}: linear {} encodes to {encoded}, the PNG has {}",
                pixel[c],
                png[c]
            );
        }
    }
    let brightest = linear
        .chunks_exact(4)
        .flat_map(|p| p[..3].iter().copied())
        .fold(0.0f32, f32::max);
    assert!(
        brightest > 1.0,
        "no value above 1.0 survives in a frame with fires (brightest {brightest})"
    );
    // More than a handful of pixels: the flames' cores, not a stray rounding.
    let hot = linear
        .chunks_exact(4)
        .filter(|p| p[..3].iter().any(|&v| v > 1.0))
        .count();
    eprintln!("brightest linear value {brightest}, {hot} pixels above 1.0");
    assert!(hot >= 4, "only {hot} pixels above 1.0");
    let _ = std::fs::remove_dir_all(&exr_dir);
    let _ = std::fs::remove_dir_all(&png_dir);
}

/// `--layers` adds `fog_NNNN.exr`: premultiplied (no colour above its alpha in this scene
/// without fires), transparent black where there is no fog (all of it with `fog.sigma=0`), and
/// over the frame rendered with `fog.sigma=0` it gives back the frame. The frame itself is the
/// same with or without `--layers`. The composite tolerance (1 % of max(1, value)) is
/// explained in src/gpu/tests/layers.rs: both sides round to half floats after every sheet.
#[test]
fn fog_layer_is_premultiplied_transparent_without_fog_and_composites_to_the_frame() {
    if !have_adapter() {
        return;
    }
    let (with, without, clear) = (
        temp_dir("layers"),
        temp_dir("layers-none"),
        temp_dir("layers-clear"),
    );
    let base = ["tests/scenes/tiny.ron", "--frames", "5", "--format", "exr"];
    render_ok(&[&base[..], &["--layers", "--out", with.to_str().unwrap()]].concat());
    render_ok(&[&base[..], &["--out", without.to_str().unwrap()]].concat());
    let fogless = [
        "--set",
        "fog.sigma=0",
        "--layers",
        "--out",
        clear.to_str().unwrap(),
    ];
    render_ok(&[&base[..], &fogless[..]].concat());

    assert_eq!(
        std::fs::read(with.join("frame_0005.exr")).unwrap(),
        std::fs::read(without.join("frame_0005.exr")).unwrap(),
        "--layers changed the frame"
    );
    assert!(!without.join("fog_0005.exr").exists());

    let (w, h, layer) = read_exr(&with.join("fog_0005.exr"));
    assert_eq!((w, h), (160, 90));
    let covered = layer.chunks_exact(4).filter(|p| p[3] > 0.5).count();
    assert!(covered > 160 * 90 / 10, "only {covered} pixels of fog");
    for (i, p) in layer.chunks_exact(4).enumerate() {
        assert!(
            (0.0..=1.0).contains(&p[3]) && p[..3].iter().all(|&c| c >= 0.0 && c <= p[3] + 2e-3),
            "fog layer pixel {i} is not premultiplied: {p:?}"
        );
    }

    let (_, _, empty) = read_exr(&clear.join("fog_0005.exr"));
    assert!(
        empty.iter().all(|&v| v == 0.0),
        "with fog.sigma=0 the fog layer is not transparent black everywhere"
    );

    let (_, _, beauty) = read_exr(&with.join("frame_0005.exr"));
    let (_, _, hall) = read_exr(&clear.join("frame_0005.exr"));
    for (i, ((l, u), b)) in layer
        .chunks_exact(4)
        .zip(hall.chunks_exact(4))
        .zip(beauty.chunks_exact(4))
        .enumerate()
    {
        for c in 0..3 {
            let composite = l[c] + u[c] * (1.0 - l[3]);
            assert!(
                (composite - b[c]).abs() < 0.01 * b[c].abs().max(1.0),
                "pixel {i} channel {c}: fog layer over the fogless frame gives {composite}, \
                 the frame has {}",
                b[c]
            );
        }
    }
    for dir in [&with, &without, &clear] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// `--layers` needs EXR (PNG has no room for linear light with alpha) and frames to sit
/// beside; both mistakes are bad input (exit 2) named before anything is rendered.
#[test]
fn layers_without_exr_frames_are_refused() {
    let dir = temp_dir("layers-png");
    let d = dir.to_str().unwrap();
    let out = fogbank(&["render", "--frames", "0", "--layers", "--out", d]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--format exr"), "{}", stderr(&out));
    let out = fogbank(&[
        "render",
        "--frames",
        "0",
        "--format",
        "exr",
        "--layers",
        "--no-frames",
        "--video",
        "clip.gif",
        "--out",
        d,
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--no-frames"), "{}", stderr(&out));
    assert!(!dir.exists());
    assert!(!Path::new("clip.gif").exists());
}

/// The compute compositor (`--compositor compute`) passes the golden references the raster
/// `fog` pass made, in the fog and flow views, at `check`'s default tolerance; the JSON summary
/// names the compositor that ran, and `auto` picks raster on a CPU adapter (lavapipe).
/// It never blesses: the references stay the raster pass's.
#[test]
fn compute_compositor_passes_the_raster_references() {
    if !have_adapter() {
        return;
    }
    for (case, frames, view) in [
        ("temple_fog", "0,45,90", "fog"),
        ("temple_flow", "45", "flow"),
    ] {
        let dir = Path::new("tests/golden").join(case);
        let out = fogbank(&[
            "check",
            "--golden",
            dir.to_str().unwrap(),
            "--quiet",
            "--size",
            "160x90",
            "--frames",
            frames,
            "--view",
            view,
            "--compositor",
            "compute",
        ]);
        assert!(
            out.status.success(),
            "{case} with the compute compositor (exit {:?}):\n{}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            stderr(&out)
        );
    }

    let dir = temp_dir("compositor-json");
    let d = dir.to_str().unwrap();
    for (flag, expected) in [("compute", Some("compute")), ("auto", None)] {
        let out = fogbank(&[
            "render",
            "--quiet",
            "--json",
            "--frames",
            "0",
            "--size",
            "32x18",
            "--compositor",
            flag,
            "--out",
            d,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let ran = summary["compositor"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        match expected {
            Some(name) => assert_eq!(ran, name),
            // Auto: compute only on a discrete GPU.
            None => {
                let adapter = summary["adapter"].as_str().unwrap_or_default();
                let on_cpu = adapter.contains("llvmpipe") || adapter.contains("lavapipe");
                assert!(ran == "raster" || !on_cpu, "auto ran {ran} on {adapter}");
                assert!(ran == "raster" || ran == "compute", "{ran}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
