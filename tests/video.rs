//! Videos encoded while rendering on a GPU adapter (lavapipe in CI): MP4 and WebM through
//! ffmpeg, probed with ffprobe; GIF and animated PNG decoded frame by frame (with EXR frames
//! beside them); an unknown container refused before rendering.
//!
//! Without ffmpeg or ffprobe on PATH the ffmpeg checks are skipped (and say so), unless
//! FOGBANK_REQUIRE_FFMPEG=1, which CI sets.

mod common;

use common::exr::read_exr;
use common::{
    assert_exit, ffmpeg_required, fogbank, render_ok, report_skip, require_gpu, stderr, temp_dir,
    test_name,
};
use fogbank::color::linear_to_srgb8;
use std::path::Path;
use std::process::Command;

/// ffprobe's view of a video's streams and format, or `None` (after saying so) when ffprobe is
/// missing, which is allowed only without FOGBANK_REQUIRE_FFMPEG=1.
fn probe(test: &str, path: &Path) -> Option<serde_json::Value> {
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
                !ffmpeg_required(),
                "ffprobe is required (FOGBANK_REQUIRE_FFMPEG=1) but not on PATH"
            );
            report_skip(test, "the ffprobe checks: ffprobe not on PATH");
            None
        }
    }
}

/// Whether ffmpeg is on PATH; without it `test` is reported as skipped (or fails under
/// FOGBANK_REQUIRE_FFMPEG=1).
fn have_ffmpeg(test: &str) -> bool {
    let found = Command::new("ffmpeg").arg("-version").output().is_ok();
    if !found {
        assert!(
            !ffmpeg_required(),
            "ffmpeg is required (FOGBANK_REQUIRE_FFMPEG=1) but not on PATH"
        );
        report_skip(test, "ffmpeg not on PATH");
    }
    found
}

/// Renders the tiny scene (12 frames at 30 fps, 160×90) with `--video VIDEO --out DIR` and
/// `extra`.
fn render_tiny_video(video: &Path, dir: &Path, extra: &[&str]) {
    let (video, dir) = (video.to_str().unwrap(), dir.to_str().unwrap());
    let args = ["tests/scenes/tiny.ron", "--video", video, "--out", dir];
    render_ok(&[&args[..], extra].concat());
}

#[test]
fn mp4_and_webm_through_ffmpeg_have_the_right_codec_size_and_frames() {
    require_gpu!();
    if !have_ffmpeg(test_name!()) {
        return;
    }
    let dir = temp_dir("video");
    for (name, codec) in [("clip.mp4", "h264"), ("clip.webm", "vp9")] {
        let video = dir.join(name);
        render_tiny_video(&video, &dir, &["--no-frames", "--size", "165x91"]);
        let Some(info) = probe(test_name!(), &video) else {
            return;
        };
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
    let names = common::file_names(&dir);
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn gif_and_apng_decode_to_every_frame_and_exr_round_trips() {
    require_gpu!();
    let dir = temp_dir("native-video");
    let gif = dir.join("clip.gif");
    let apng = dir.join("clip.png");
    for video in [&gif, &apng] {
        render_tiny_video(video, &dir, &["--format", "exr"]);
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
    render_ok(&[
        "tests/scenes/tiny.ron",
        "--frames",
        "5",
        "--out",
        png_dir.to_str().unwrap(),
    ]);
    let srgb = image::open(png_dir.join("frame_0005.png"))
        .unwrap()
        .to_rgba8();
    let (w, h, linear) = read_exr(&dir.join("frame_0005.exr"));
    assert_eq!((w, h), (160, 90));
    for (i, pixel) in srgb.pixels().enumerate().step_by(97) {
        let stored = linear[i * 4 + 1];
        assert!(
            linear_to_srgb8(stored).abs_diff(pixel[1]) <= 1,
            "pixel {i}: the PNG has {}, the EXR {stored}",
            pixel[1]
        );
    }
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
    assert_exit(&out, 2);
    assert!(stderr(&out).contains(".mp4"), "{}", stderr(&out));
    assert!(!dir.exists());
}
