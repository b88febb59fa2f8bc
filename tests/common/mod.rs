//! Helpers shared by the command-line suites (`tests/*.rs`): running the real binary, temporary
//! folders, and the probe that skips the rendering tests on a machine without a GPU adapter —
//! visibly, and never under CI.
//!
//! Each suite includes this module with `mod common;` and uses only part of it, hence the
//! `dead_code` (and unused macro) allowances, each with its reason.
#![allow(
    dead_code,
    reason = "each test suite compiles this module and uses only part of it"
)]

pub mod exr;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Runs fogbank with `args` from the repository root (scene and golden paths are relative to it).
pub fn fogbank(args: &[&str]) -> Output {
    fogbank_env(args, &[])
}

/// Runs fogbank with `args` and extra environment variables.
pub fn fogbank_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fogbank"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("running fogbank")
}

/// Runs fogbank and asserts it succeeded; returns its output.
#[track_caller]
pub fn fogbank_ok(args: &[&str]) -> Output {
    let out = fogbank(args);
    assert_success(&out, &format!("fogbank {}", args.join(" ")));
    out
}

/// `fogbank render --quiet ARGS…`, which must succeed.
#[track_caller]
pub fn render_ok(args: &[&str]) -> Output {
    fogbank_ok(&[&["render", "--quiet"], args].concat())
}

/// Asserts that a run succeeded, showing its exit code, stdout and stderr otherwise.
#[track_caller]
pub fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed (exit {:?}):\n{}\n{}",
        out.status.code(),
        stdout(out),
        stderr(out)
    );
}

/// Asserts a run's exit code (0 pass, 2 bad input or error, 3 a difference), showing its stdout
/// and stderr otherwise.
#[track_caller]
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(out),
        stderr(out)
    );
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A test scene: `tests/scenes/NAME`.
pub fn scene(name: &str) -> String {
    format!("tests/scenes/{name}")
}

/// A fresh folder path under the system's temporary folder, unique to `name` and this test
/// process: removed if it exists, not created. It is removed again when the test ends, unless the
/// test failed: then it stays for a look at what was written.
pub fn temp_dir(name: &str) -> TempDir {
    let path = std::env::temp_dir().join(format!("fogbank-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    TempDir(path)
}

/// See [`temp_dir`]; derefs to its path.
pub struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// The names of the entries of `dir`, sorted.
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Whether the tests run in CI: the library's own rule, the one `fogbank check` applies to
/// missing references, so the tests and the binary agree on what CI is.
pub fn in_ci() -> bool {
    fogbank::ci::in_ci()
}

/// Says that `test` was skipped and why, on the real stderr: libtest captures `eprintln!` and
/// shows it only for failing tests, so a skip would otherwise pass without a word.
pub fn report_skip(test: &str, why: &str) {
    // One write, so that the line stays whole among libtest's output.
    let line = format!("skipped {test}: {why}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// The name of the test function this is expanded in, as libtest prints it (`golden_temple_fog`).
#[allow(unused_macros, reason = "not every suite renders")]
macro_rules! test_name {
    () => {{
        fn here() {}
        let path = std::any::type_name_of_val(&here);
        let path = path.strip_suffix("::here").unwrap_or(path);
        // Leave out the test crate's name.
        path.split_once("::").map_or(path, |(_, rest)| rest)
    }};
}
#[allow(unused_imports, reason = "not every suite renders")]
pub(crate) use test_name;

/// Returns from the calling test, after saying so, when there is no GPU adapter; fails it under
/// CI (see [`gpu_available`]).
#[allow(unused_macros, reason = "not every suite renders")]
macro_rules! require_gpu {
    () => {
        if !$crate::common::gpu_available($crate::common::test_name!()) {
            return;
        }
    };
}
#[allow(unused_imports, reason = "not every suite renders")]
pub(crate) use require_gpu;

/// Why there is no GPU adapter, or `Ok` when `fogbank info --json` lists one (lavapipe counts).
/// Asked once per suite.
fn adapter_probe() -> &'static Result<(), String> {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    PROBE.get_or_init(|| {
        let out = fogbank(&["info", "--json"]);
        let adapters: Vec<serde_json::Value> =
            serde_json::from_slice(&out.stdout).unwrap_or_default();
        if adapters.is_empty() {
            let mut why = "`fogbank info --json` lists no GPU adapter".to_string();
            if !out.status.success() {
                why += &format!(" (exit {:?})", out.status.code());
            }
            if !stderr(&out).trim().is_empty() {
                why += &format!(": {}", stderr(&out).trim());
            }
            Err(format!(
                "{why}; install mesa-vulkan-drivers for lavapipe (scripts/setup.sh)"
            ))
        } else {
            Ok(())
        }
    })
}

/// True when a GPU adapter (or lavapipe) is available. Without one, `test` is reported as
/// skipped and should return at once — unless the tests run in CI ([`in_ci`]), where a missing
/// adapter fails the test so that CI cannot silently stop testing the renderer.
#[track_caller]
pub fn gpu_available(test: &str) -> bool {
    match adapter_probe() {
        Ok(()) => true,
        Err(why) => {
            assert!(!in_ci(), "{test} needs a GPU adapter and CI is set: {why}");
            report_skip(test, why);
            false
        }
    }
}

/// Whether FOGBANK_REQUIRE_FFMPEG=1 (CI sets it): ffmpeg and ffprobe must then be on PATH.
pub fn ffmpeg_required() -> bool {
    std::env::var("FOGBANK_REQUIRE_FFMPEG").is_ok_and(|v| v == "1")
}

/// Starts `fogbank args…` from the repository root with stdout and stderr piped.
pub fn spawn_fogbank(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fogbank"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting fogbank")
}

/// Waits until `child` has started working: its first line on stdout, or, with `ready`, until
/// that path exists.
pub fn wait_until_started(child: &mut Child, ready: Option<&Path>) {
    let started = Instant::now();
    match ready {
        None => {
            let mut line = String::new();
            BufReader::new(child.stdout.as_mut().unwrap())
                .read_line(&mut line)
                .unwrap();
            assert!(!line.is_empty(), "fogbank printed nothing before it ended");
        }
        Some(path) => {
            while !path.exists() {
                assert!(
                    started.elapsed() < Duration::from_secs(300),
                    "{} never appeared",
                    path.display()
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

/// Sends `signal` ("INT", "TERM", "HUP") to process `pid` with `kill`.
pub fn send_signal(pid: u32, signal: &str) {
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success(), "kill -{signal} {pid} failed");
}

/// Starts `fogbank args…`, waits until it has started ([`wait_until_started`]), sends
/// `signal`, and returns its exit code and stderr.
pub fn signal_after_start(
    args: &[&str],
    ready: Option<&Path>,
    signal: &str,
) -> (Option<i32>, String) {
    let mut child = spawn_fogbank(args);
    wait_until_started(&mut child, ready);
    send_signal(child.id(), signal);
    let out = child.wait_with_output().unwrap();
    (out.status.code(), stderr(&out))
}

/// Asserts that `dir` holds only whole PNG frames (`frame_*.png`, each decoding), and at least
/// one: no temporary or partial file.
pub fn assert_only_whole_pngs(dir: &Path) {
    let names = file_names(dir);
    assert!(!names.is_empty(), "no frame was written");
    for name in &names {
        assert!(
            name.starts_with("frame_") && name.ends_with(".png"),
            "a temporary or partial file was left: {name}"
        );
        let decoded = image::open(dir.join(name));
        assert!(decoded.is_ok(), "{name} is not a whole PNG");
    }
}
