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
