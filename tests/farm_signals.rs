//! What a render farm relies on. Stopping a job: SIGTERM and SIGHUP end a run like Ctrl-C,
//! between frames, with only whole files left, no ffmpeg child left running, and the exit code
//! 128 + the signal's number (SIGTERM 143, SIGHUP 129). Its cache: a snapshot with any flipped
//! byte or cut short is refused with exit code 2 naming the file, never used.

mod common;

use common::{
    assert_exit, assert_only_whole_pngs, file_names, fogbank, fogbank_ok, gpu_available,
    report_skip, require_gpu, send_signal, signal_after_start, spawn_fogbank, stderr, temp_dir,
    test_name,
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

/// Sends `signal` to an endless render once its first frame is on disk: it exits with `code`
/// and leaves only whole PNGs.
fn signal_during_render(name: &str, signal: &str, code: i32) {
    let out_dir = temp_dir(name);
    let args = endless_render(&out_dir);
    let (exit, message) = signal_after_start(
        &as_strs(&args),
        Some(&out_dir.join("frame_0000.png")),
        signal,
    );
    assert_eq!(exit, Some(code), "{message}");
    assert!(
        message.starts_with(&format!("error: interrupted by SIG{signal}")),
        "{message}"
    );
    assert_only_whole_pngs(&out_dir);
}

#[test]
fn sigterm_during_render_exits_143_and_leaves_only_whole_pngs() {
    require_gpu!();
    signal_during_render("sigterm-render", "TERM", 143);
}

#[test]
fn sighup_during_render_exits_129() {
    require_gpu!();
    signal_during_render("sighup-render", "HUP", 129);
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

/// Starts `args`, which spend their time stepping toward one far frame, sends SIGTERM after
/// 1.5 s, and checks the run stops between steps: exit 143 well before the walk could end,
/// nothing on stdout.
fn sigterm_while_stepping(args: &[&str]) {
    let child = spawn_fogbank(args);
    std::thread::sleep(Duration::from_millis(1500));
    send_signal(child.id(), "TERM");
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(143), "{message}");
    assert!(started.elapsed() < Duration::from_secs(30), "{message}");
    assert!(out.stdout.is_empty());
}

/// A long walk of 60 Hz steps on a 128² fluid, to one frame far into the clip.
const FAR: [&str; 4] = ["--set", "output.frames=100000", "--set", "fluid.grid=128"];

#[test]
fn sigterm_while_stepping_to_a_far_first_frame_exits_143() {
    // One far frame is one long walk of steps: simulate stops between steps, not frames.
    sigterm_while_stepping(&[&["simulate", "--frames", "99999", "--quiet"], &FAR[..]].concat());
}

#[test]
fn sigterm_while_render_steps_to_a_far_first_frame_exits_143() {
    // The frame loop stops between the steps up to a frame too, not only between frames.
    require_gpu!();
    let out_dir = temp_dir("sigterm-far-render");
    let out = out_dir.to_str().unwrap();
    let render = [
        "render", "--frames", "99999", "--size", "32x18", "--quiet", "--out", out,
    ];
    sigterm_while_stepping(&[&render[..], &FAR[..]].concat());
    assert!(!out_dir.exists() || file_names(&out_dir).is_empty());
}

#[test]
fn sigterm_during_still_exits_143() {
    // A still far into the clip spends its time stepping the world: it stops between steps.
    require_gpu!();
    let out_dir = temp_dir("sigterm-still");
    std::fs::create_dir_all(&out_dir).unwrap();
    let still = out_dir.join("still.png");
    sigterm_while_stepping(&[
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
        still.to_str().unwrap(),
    ]);
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

/// The state hashes `simulate --json` prints for `args`.
fn simulate_hashes(args: &[&str]) -> Vec<String> {
    let out = fogbank_ok(&[&["simulate", "--json", "--quiet"], args].concat());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            value["hash"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn a_damaged_or_cut_snapshot_is_refused_naming_the_file() {
    let dir = temp_dir("damaged-cache");
    let dir_arg = dir.to_str().unwrap();
    let grid = "fluid.grid=48";
    let full = simulate_hashes(&["--set", grid, "--frames", "0..70"]);
    simulate_hashes(&["--set", grid, "--cache", dir_arg, "--frames", "0..61"]);
    let snap = dir.join("step_00000060.snap");
    let good = std::fs::read(&snap).unwrap();
    let from_cache = ["--set", grid, "--cache", dir_arg, "--frames", "60..70"];
    assert_eq!(simulate_hashes(&from_cache), full[60..70], "a good cache");

    let refused = |what: &str, bytes: &[u8], command: &[&str]| {
        std::fs::write(&snap, bytes).unwrap();
        let out = fogbank(&[command, &from_cache[..], &["--quiet"]].concat());
        let message = stderr(&out);
        assert_exit(&out, 2);
        assert!(
            message.contains("step_00000060.snap") && !message.contains("panicked"),
            "{what}: {message}"
        );
        message
    };
    // Header (magic, version, scene hash, step, payload length, checksum), payload, last byte.
    let middle = good.len() / 2;
    for offset in [0, 9, 14, 30, 40, 45, middle, good.len() - 1] {
        let mut damaged = good.clone();
        damaged[offset] ^= 0x10;
        refused(&format!("byte {offset}"), &damaged, &["simulate"]);
    }
    let mut damaged = good.clone();
    damaged[middle] ^= 0x01;
    let message = refused("payload", &damaged, &["simulate"]);
    assert!(message.contains("checksum"), "{message}");
    let message = refused("cut", &good[..good.len() - 1], &["simulate"]);
    assert!(message.contains("truncated"), "{message}");
    if gpu_available(test_name!()) {
        let out_dir = temp_dir("damaged-cache-render");
        let out_arg = out_dir.to_str().unwrap();
        let render = ["render", "--size", "32x18", "--out", out_arg];
        let message = refused("render", &damaged, &render);
        assert!(message.contains("checksum"), "{message}");
    }

    std::fs::write(&snap, &good).unwrap();
    assert_eq!(
        simulate_hashes(&from_cache),
        full[60..70],
        "the cache again"
    );
}

#[test]
fn a_cache_serves_the_scene_after_a_change_of_look_and_refuses_a_change_of_fluid() {
    let dir = temp_dir("look-cache");
    let dir_arg = dir.to_str().unwrap();
    let grid = "fluid.grid=48";
    simulate_hashes(&["--set", grid, "--cache", dir_arg, "--frames", "0..61"]);
    let relooked = [
        "--set",
        grid,
        "--set",
        "fog.color=(0.5,0.5,0.5)",
        "--set",
        "fog.glow=0.9",
        "--set",
        "lights.ambient.intensity=0.7",
        "--set",
        "camera.look_height=1.5",
    ];
    let full = simulate_hashes(&[&relooked[..], &["--frames", "0..70"]].concat());
    let cached = [&relooked[..], &["--cache", dir_arg, "--frames", "60..70"]].concat();
    assert_eq!(simulate_hashes(&cached), full[60..70]);
    // The fluid's vorticity is read by every step: the snapshot belongs to another scene.
    let stirred = [
        "--set",
        grid,
        "--set",
        "fluid.vorticity=4",
        "--cache",
        dir_arg,
    ];
    let out = fogbank(
        &[
            &["simulate"],
            &stirred[..],
            &["--frames", "60..70", "--quiet"],
        ]
        .concat(),
    );
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("belongs to scene"),
        "{}",
        stderr(&out)
    );
}
