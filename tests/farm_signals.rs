//! What a render farm sees when it stops a job: SIGTERM and SIGHUP end a run like Ctrl-C, between
//! frames, with only whole files left, no ffmpeg child left running, and the exit code
//! 128 + the signal's number (SIGTERM 143, SIGHUP 129).

mod common;

use common::{
    assert_only_whole_pngs, file_names, report_skip, require_gpu, send_signal, signal_after_start,
    spawn_fogbank, stderr, temp_dir, test_name,
};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// `render` of the tiny scene, endless and small, writing frames into `out_dir`.
fn endless_render(out_dir: &Path) -> Vec<String> {
    [
        "render",
        "tests/scenes/tiny.ron",
        "--set",
        "output.frames=100000",
        "--size",
        "32x18",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec()
}

fn as_strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[test]
fn sigterm_during_render_exits_143_and_leaves_only_whole_pngs() {
    require_gpu!();
    let out_dir = temp_dir("sigterm-render");
    let args = endless_render(&out_dir);
    let (code, message) = signal_after_start(
        &as_strs(&args),
        Some(&out_dir.join("frame_0000.png")),
        "TERM",
    );
    assert_eq!(code, Some(143), "{message}");
    assert!(
        message.starts_with("error: interrupted by SIGTERM"),
        "{message}"
    );
    assert_only_whole_pngs(&out_dir);
}

#[test]
fn sighup_during_render_exits_129() {
    require_gpu!();
    let out_dir = temp_dir("sighup-render");
    let args = endless_render(&out_dir);
    let (code, message) = signal_after_start(
        &as_strs(&args),
        Some(&out_dir.join("frame_0000.png")),
        "HUP",
    );
    assert_eq!(code, Some(129), "{message}");
    assert!(
        message.starts_with("error: interrupted by SIGHUP"),
        "{message}"
    );
    assert_only_whole_pngs(&out_dir);
}

#[test]
fn sigterm_during_simulate_exits_143() {
    let (code, message) = signal_after_start(
        &[
            "simulate",
            "--set",
            "output.frames=100000",
            "--set",
            "fluid.grid=128",
            "--quiet",
        ],
        None,
        "TERM",
    );
    assert_eq!(code, Some(143), "{message}");
    assert!(
        message.starts_with("error: interrupted by SIGTERM"),
        "{message}"
    );
}

#[test]
fn sigterm_during_still_exits_143() {
    // A still far into the clip spends its time stepping the world: it stops between steps.
    require_gpu!();
    let out_dir = temp_dir("sigterm-still");
    std::fs::create_dir_all(&out_dir).unwrap();
    let child = spawn_fogbank(&[
        "still",
        "tests/scenes/tiny.ron",
        "--set",
        "fluid.grid=128",
        "--frame",
        "100000",
        "--size",
        "32x18",
        "--quiet",
        "--out",
        out_dir.join("still.png").to_str().unwrap(),
    ]);
    std::thread::sleep(Duration::from_millis(1500));
    send_signal(child.id(), "TERM");
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(143), "{message}");
    assert!(started.elapsed() < Duration::from_secs(30), "{message}");
    assert!(file_names(&out_dir).is_empty());
}

/// The children of process `pid`, from `pgrep -P`.
fn children_of(pid: u32) -> Vec<u32> {
    let out = Command::new("pgrep")
        .args(["-P", &pid.to_string()])
        .output()
        .expect("running pgrep");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect()
}

#[test]
fn sigterm_during_video_stops_ffmpeg_and_leaves_no_video() {
    require_gpu!();
    if Command::new("ffmpeg").arg("-version").output().is_err()
        || Command::new("pgrep").arg("--version").output().is_err()
    {
        report_skip(test_name!(), "ffmpeg or pgrep not on PATH");
        return;
    }
    let dir = temp_dir("sigterm-video");
    std::fs::create_dir_all(&dir).unwrap();
    let video = dir.join("out.mp4");
    let child = spawn_fogbank(&[
        "render",
        "tests/scenes/tiny.ron",
        "--set",
        "output.frames=100000",
        "--size",
        "32x18",
        "--quiet",
        "--no-frames",
        "--video",
        video.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    // ffmpeg is running once fogbank has a child process and the hidden temporary video exists.
    let started = Instant::now();
    let ffmpeg = loop {
        let children = children_of(child.id());
        if !children.is_empty() && !file_names(&dir).is_empty() {
            break children;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "ffmpeg never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // Let a few frames reach ffmpeg.
    std::thread::sleep(Duration::from_millis(500));
    send_signal(child.id(), "TERM");
    let out = child.wait_with_output().unwrap();
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(143), "{message}");
    assert!(!video.exists(), "a video was left: {message}");
    assert_eq!(file_names(&dir), Vec::<String>::new(), "{message}");
    for pid in ffmpeg {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "ffmpeg (pid {pid}) is still running"
        );
    }
}
