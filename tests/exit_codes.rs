//! One test per exit code the README promises: 1 for a failure while working (an output
//! folder that cannot be written), 2 for bad input (a scene with an unknown field), 3 for
//! images that differ (`compare` and `check`), 130 after SIGINT (tests/farm_signals.rs has SIGTERM and SIGHUP) — and that the message names
//! the cause once, with `error:` in front.

mod common;

use common::{
    TempDir, assert_exit, assert_only_whole_pngs, fogbank, require_gpu, signal_after_start, stderr,
    temp_dir,
};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A folder nobody may create files in, with the guard that removes it. As root, permission
/// bits do not stop writes, so the folder is then one inside `/proc`, where no process can
/// create anything.
fn unwritable_dir(name: &str) -> (PathBuf, Option<TempDir>) {
    let running_as_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0");
    if running_as_root {
        return (
            Path::new("/proc").join(format!("fogbank-exit-{name}")),
            None,
        );
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = created(temp_dir(name));
    std::fs::set_permissions(&*dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    (dir.to_path_buf(), Some(dir))
}

/// `dir`, created.
fn created(dir: TempDir) -> TempDir {
    std::fs::create_dir_all(&*dir).unwrap();
    dir
}

#[test]
fn an_unwritable_output_folder_exits_1() {
    let (dir, _guard) = unwritable_dir("maps");
    let out_dir = dir.join("maps");
    let out = fogbank(&[
        "maps",
        "tests/scenes/tiny.ron",
        "--frames",
        "0",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let message = stderr(&out);
    assert_exit(&out, 1);
    assert!(message.starts_with("error: cannot write "), "{message}");
    assert!(message.contains(out_dir.to_str().unwrap()), "{message}");
}

#[test]
fn an_unwritable_render_folder_exits_1() {
    require_gpu!();
    let (dir, _guard) = unwritable_dir("render");
    let out_dir = dir.join("frames");
    let out = fogbank(&[
        "render",
        "tests/scenes/tiny.ron",
        "--frames",
        "0..2",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let message = stderr(&out);
    assert_exit(&out, 1);
    assert!(message.contains("cannot write"), "{message}");
}

#[test]
fn an_unwritable_cache_exits_1() {
    let (dir, _guard) = unwritable_dir("cache");
    let cache = dir.join("cache");
    let out = fogbank(&[
        "simulate",
        "tests/scenes/tiny.ron",
        "--frames",
        "0..2",
        "--quiet",
        "--cache",
        cache.to_str().unwrap(),
    ]);
    assert_exit(&out, 1);
}

#[test]
fn a_bad_scene_exits_2() {
    let out = fogbank(&["validate", "tests/scenes/unknown_field.ron"]);
    let message = stderr(&out);
    assert_exit(&out, 2);
    // The scene's diagnostic carries its own header: no doubled prefix.
    assert!(message.starts_with("error"), "{message}");
    assert!(!message.contains("error: error"), "{message}");
    assert!(message.contains("unknown_field.ron"), "{message}");
}

#[test]
fn a_bad_flag_value_exits_2() {
    let out = fogbank(&["simulate", "tests/scenes/tiny.ron", "--frames", "5..2"]);
    assert_exit(&out, 2);
    let out = fogbank(&["simulate", "tests/scenes/tiny.ron", "--frames", "0..99"]);
    let message = stderr(&out);
    assert_exit(&out, 2);
    assert!(message.contains("--set output.frames=99"), "{message}");
}

/// Writes a flat grey PNG of `level` through fogbank's own encoder path (`image`).
fn grey_png(path: &Path, level: u8) {
    let pixels = vec![level; 16 * 8 * 4];
    image::save_buffer(path, &pixels, 16, 8, image::ColorType::Rgba8).unwrap();
}

#[test]
fn images_that_differ_exit_3() {
    let dir = created(temp_dir("compare"));
    let (a, b) = (dir.join("a.png"), dir.join("b.png"));
    grey_png(&a, 40);
    grey_png(&b, 200);
    let out = fogbank(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_exit(&out, 3);
    let same = fogbank(&["compare", a.to_str().unwrap(), a.to_str().unwrap()]);
    assert_exit(&same, 0);
    // A reference that does not exist is bad input, not a difference.
    let missing = dir.join("missing.png");
    let out = fogbank(&["compare", missing.to_str().unwrap(), a.to_str().unwrap()]);
    assert_exit(&out, 2);
}

#[test]
fn a_golden_mismatch_exits_3() {
    require_gpu!();
    let golden = created(temp_dir("golden"));
    let golden_arg = golden.to_str().unwrap();
    let check = |extra: &[&str]| {
        let mut args = vec![
            "check",
            "tests/scenes/tiny.ron",
            "--frames",
            "1",
            "--size",
            "32x18",
            "--quiet",
            "--golden",
            golden_arg,
        ];
        args.extend_from_slice(extra);
        fogbank(&args)
    };
    let blessed = check(&["--bless"]);
    assert_exit(&blessed, 0);
    let reference = golden.join("frame_0001.png");
    let passed = check(&[]);
    assert_exit(&passed, 0);
    // Invert the reference: now every pixel differs.
    let mut picture = image::open(&reference).unwrap().to_rgba8();
    for pixel in picture.pixels_mut() {
        for channel in &mut pixel.0[..3] {
            *channel = 255 - *channel;
        }
    }
    picture.save(&reference).unwrap();
    let failed = check(&[]);
    assert_exit(&failed, 3);
    assert!(golden.join("frame_0001.diff.png").is_file());
}

#[test]
fn sigint_during_simulate_exits_130() {
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
        "INT",
    );
    assert_eq!(code, Some(130), "{message}");
    assert!(message.starts_with("error: interrupted"), "{message}");
}

#[test]
fn sigint_during_render_exits_130_and_leaves_only_whole_files() {
    require_gpu!();
    let out_dir = temp_dir("sigint-render");
    let (code, message) = signal_after_start(
        &[
            "render",
            "tests/scenes/tiny.ron",
            "--set",
            "output.frames=100000",
            "--size",
            "32x18",
            "--quiet",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        Some(&out_dir.join("frame_0000.png")),
        "INT",
    );
    assert_eq!(code, Some(130), "{message}");
    assert!(
        message.starts_with("error: interrupted by SIGINT"),
        "{message}"
    );
    assert_only_whole_pngs(&out_dir);
}

#[test]
fn a_closed_stdout_ends_simulate_quietly_with_0() {
    // `fogbank simulate | head -1`: the reader goes away after one line.
    for json in [false, true] {
        let mut args = vec!["simulate", "--set", "output.frames=100000"];
        if json {
            args.push("--json");
        }
        let mut child = common::spawn_fogbank(&args);
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        assert!(!line.is_empty());
        // The reader (and with it the pipe's only read end) is dropped here.
        let out = child.wait_with_output().unwrap();
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "json={json}: {message}");
        assert!(
            !message.contains("panicked") && !message.contains("error"),
            "json={json}: {message}"
        );
    }
}

#[test]
fn a_render_on_a_missing_adapter_exits_1_and_writes_nothing() {
    // `render` opens the GPU after the world has started stepping, toward a frame deep in the
    // clip here: the missing adapter still ends the run at once, with no folder made.
    let dir = temp_dir("no-adapter");
    let out_dir = dir.join("out");
    let out = fogbank(&[
        "render",
        "tests/scenes/tiny.ron",
        "--set",
        "output.frames=100000",
        "--frames",
        "99990..99992",
        "--maps",
        "--adapter",
        "no-such-adapter-anywhere",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let message = stderr(&out);
    assert_exit(&out, 1);
    assert!(
        message.starts_with("error: no adapter name contains `no-such-adapter-anywhere`"),
        "{message}"
    );
    assert!(!out_dir.exists(), "{}", out_dir.display());
}
