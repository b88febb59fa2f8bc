//! Helpers shared by the video tests: settings, scratch folders, test clips, and the real or
//! a stand-in ffmpeg.

use std::fs;
use std::path::{Path, PathBuf};

use super::{VideoSettings, find_ffmpeg_in, find_program_in};
use crate::frame::Frame;

/// A smooth three-channel RGBA8 gradient with far more than 256 colours (a palette's worst
/// case), shifted right by `shift` pixels so consecutive frames differ.
pub(crate) fn gradient(width: u32, height: u32, shift: u32) -> Vec<u8> {
    let mut rgba8 = Vec::new();
    for y in 0..height {
        for x in 0..width {
            rgba8.push(((x + shift) * 255 / (width + 20)) as u8);
            rgba8.push((40 + y * 150 / height) as u8);
            rgba8.push((90 + (x + 2 * y) * 100 / (width + 2 * height)) as u8);
            rgba8.push(255);
        }
    }
    rgba8
}

/// Settings at `fps` with every encoder default.
pub(crate) fn settings(fps: u32) -> VideoSettings {
    VideoSettings {
        fps,
        crf: None,
        preset: None,
    }
}

/// A fresh empty folder for one test.
pub(crate) fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fogbank-video-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in `dir`, sorted.
pub(crate) fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A gradient that moves right by 3 pixels a frame, with a bright bar that makes motion
/// obvious.
pub(crate) fn moving_gradient(index: u32, width: u32, height: u32) -> Frame {
    let mut rgba8 = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height {
        for x in 0..width {
            let bar = (x + width - (index * 3) % width) % width < 4;
            rgba8.push(if bar { 250 } else { (x * 200 / width) as u8 });
            rgba8.push((30 + y * 150 / height) as u8);
            rgba8.push(((index * 20 + x) % 200) as u8);
            rgba8.push(255);
        }
    }
    Frame {
        frame_index: index,
        width,
        height,
        rgba8: rgba8.into(),
        linear_f16: None,
        fog_f16: None,
        weather_f16: None,
    }
}

/// ffmpeg and ffprobe, or `None` (with a note) when they are missing and the environment
/// does not require them (`FOGBANK_REQUIRE_FFMPEG=1`, set by CI, turns the skip into a
/// failure).
pub(crate) fn ffmpeg_tools(test: &str) -> Option<(PathBuf, PathBuf)> {
    let path = std::env::var_os("PATH");
    let found = (
        find_ffmpeg_in(path.as_deref()).ok(),
        find_program_in("ffprobe", path.as_deref()),
    );
    match found {
        (Some(ffmpeg), Some(ffprobe)) => Some((ffmpeg, ffprobe)),
        _ => {
            let required = std::env::var("FOGBANK_REQUIRE_FFMPEG").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "{test}: ffmpeg/ffprobe not on PATH but FOGBANK_REQUIRE_FFMPEG=1"
            );
            eprintln!("skipping {test}: ffmpeg or ffprobe is not on PATH");
            None
        }
    }
}

/// Writes an executable shell script standing in for ffmpeg.
#[cfg(unix)]
pub(crate) fn fake_ffmpeg(dir: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("ffmpeg");
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path
}
