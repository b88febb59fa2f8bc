//! Standard output that fails properly. When the reader goes away (`| head`, `| true`) every
//! command that prints stops quietly: exit 0, no panic, no error text, and a `check` or
//! `compare` verdict keeps its exit code. When a write fails for another reason (`/dev/full`),
//! the command exits 1 with a message, never 0.

mod common;

use common::{gpu_available, stderr, temp_dir};
use std::process::{Command, Output, Stdio};

/// Runs fogbank with its standard output a pipe whose reading end is closed before fogbank
/// starts, so every write fails at once.
fn with_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_fogbank"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("running fogbank")
}

/// Runs fogbank with its standard output `/dev/full`, where every write fails.
fn into_dev_full(args: &[&str]) -> Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    Command::new(env!("CARGO_BIN_EXE_fogbank"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped())
        .output()
        .expect("running fogbank")
}

#[track_caller]
fn assert_both(args: &[&str]) {
    let closed = with_closed_pipe(args);
    let text = stderr(&closed);
    assert_eq!(closed.status.code(), Some(0), "{args:?}: {text}");
    assert!(
        !text.contains("panicked") && !text.contains("error"),
        "{args:?} stops quietly: {text}"
    );
    let full = into_dev_full(args);
    let text = stderr(&full);
    assert_eq!(full.status.code(), Some(1), "{args:?}: {text}");
    assert!(
        text.contains("cannot write to standard output") && !text.contains("panicked"),
        "{args:?}: {text}"
    );
}

#[test]
fn commands_without_a_gpu_stop_quietly_on_a_closed_pipe_and_fail_on_a_full_disk() {
    for args in [
        &["scene"][..],
        &["scene", "--schema"],
        &["man"],
        &["completions", "bash"],
        &["validate", "tests/scenes/tiny.ron"],
        &[
            "simulate",
            "tests/scenes/tiny.ron",
            "--frames",
            "0..3",
            "--quiet",
        ],
        &["simulate", "tests/scenes/tiny.ron", "--json", "--quiet"],
        &["info"],
        &["info", "--json"],
    ] {
        assert_both(args);
    }
    let dir = temp_dir("stdout-compare");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("a.png");
    image::RgbaImage::from_pixel(8, 8, image::Rgba([9, 99, 199, 255]))
        .save(&png)
        .unwrap();
    let png = png.to_str().unwrap();
    assert_both(&["compare", png, png]);
    assert_both(&["compare", png, png, "--json"]);
    // A difference is still a difference when nobody reads the verdict.
    let other = dir.join("b.png");
    image::RgbaImage::from_pixel(8, 8, image::Rgba([200, 9, 9, 255]))
        .save(&other)
        .unwrap();
    let closed = with_closed_pipe(&["compare", png, other.to_str().unwrap()]);
    assert_eq!(closed.status.code(), Some(3), "{}", stderr(&closed));
    assert!(!stderr(&closed).contains("panicked"));
    let full = into_dev_full(&["compare", png, other.to_str().unwrap(), "--json"]);
    assert_eq!(full.status.code(), Some(1), "{}", stderr(&full));
}

#[test]
fn rendering_commands_stop_quietly_on_a_closed_pipe_and_fail_on_a_full_disk() {
    if !gpu_available("rendering_commands_stop_quietly") {
        return;
    }
    let dir = temp_dir("stdout-render");
    let out = dir.join("frames");
    assert_both(&[
        "render",
        "tests/scenes/tiny.ron",
        "--frames",
        "0",
        "--size",
        "32x18",
        "--out",
        out.to_str().unwrap(),
        "--json",
        "--quiet",
    ]);
    let golden = "tests/golden/tiny";
    assert_both(&[
        "check",
        "tests/scenes/tiny.ron",
        "--golden",
        golden,
        "--frames",
        "0",
        "--json",
    ]);
    assert_both(&[
        "check",
        "tests/scenes/tiny.ron",
        "--golden",
        golden,
        "--frames",
        "0",
    ]);
}
