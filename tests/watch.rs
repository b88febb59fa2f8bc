//! `fogbank watch` as a user runs it: the real binary watches a scene file in a temporary
//! folder while the test edits it. A save renders the still again; a change of colour or
//! camera re-uses the world kept in memory (the turn's line says "simulated 0 steps") and draws
//! the same bytes `fogbank still` draws; a change of the fluid simulates from step 0; a broken
//! save prints the scene error and keeps the last good picture; Ctrl-C, between turns or in the
//! middle of one, exits 130 leaving only whole files. The same holds for a clip
//! (`--frames RANGE --out DIR`), whose look-only edits step only the clip's own range; an
//! `--out` of the wrong kind is refused before anything is rendered.

mod common;

use common::{
    assert_exit, assert_only_whole_pngs, file_names, fogbank, fogbank_ok, require_gpu, send_signal,
    stderr, temp_dir,
};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// The tiny scene with a fixed camera at `camera_y`, fog of `fog_color` and the fluid's
/// `vorticity`.
fn scene_text(camera_y: f32, fog_color: &str, vorticity: f32) -> String {
    format!(
        "(\n    name: \"watched\",\n    output: (width: 160, height: 90, fps: 30, frames: 12),\n    \
         camera: Fixed(position: (0.0, {camera_y:.1}, 9.0), target: (0.0, 0.5, 0.0)),\n    \
         fluid: (grid: 32, vorticity: {vorticity:.1}),\n    \
         fog: (sheets: 12, color: {fog_color}),\n    \
         ball: (script: [Move(at: 0.0, duration: 0.2, direction: (-1.0, 0.0)), Jump(at: 0.05)]),\n)\n"
    )
}

/// A running `fogbank watch`, its stderr read line by line on a thread.
struct Watch {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Watch {
    /// Watches `scene`, rendering `what` (`["--frame", "30"]` or `["--frames", "6..9"]`).
    fn start(scene: &Path, out: &Path, what: [&str; 2]) -> Watch {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fogbank"))
            .args(["watch", scene.to_str().unwrap()])
            .args(what)
            .arg("--out")
            .arg(out)
            .args(["--size", "64x36", "--quiet"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting fogbank watch");
        let stderr = child.stderr.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Watch {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// The next line that starts with `prefix`, waiting up to two minutes.
    fn line_starting(&mut self, prefix: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.starts_with(prefix) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "no line `{prefix}…` came; stderr so far:\n{}",
                        self.seen.join("\n")
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait().unwrap();
                    panic!(
                        "watch ended ({status}) before `{prefix}…`; stderr:\n{}",
                        self.seen.join("\n")
                    )
                }
            }
        }
    }

    /// Sends Ctrl-C and returns the exit code and the rest of stderr.
    fn interrupt(mut self) -> (Option<i32>, String) {
        send_signal(self.child.id(), "INT");
        let status = self.child.wait().unwrap();
        let rest: Vec<String> = self.lines.iter().collect();
        (status.code(), rest.join("\n"))
    }
}

/// `watch`'s files: the scene and the picture, and nothing half-written beside them.
fn assert_only_scene_and_picture(dir: &Path) {
    assert_eq!(file_names(dir), ["scene.ron", "still.png"]);
    assert!(image::open(dir.join("still.png")).is_ok(), "a whole PNG");
}

#[test]
fn watch_renders_each_save_reuses_the_world_for_a_look_change_and_keeps_the_last_good_picture() {
    require_gpu!();
    let dir = temp_dir("watch-turns");
    std::fs::create_dir_all(&*dir).unwrap();
    let (scene, out) = (dir.join("scene.ron"), dir.join("still.png"));
    std::fs::write(&scene, scene_text(4.0, "(0.6, 0.65, 0.7)", 9.0)).unwrap();
    let mut watch = Watch::start(&scene, &out, ["--frame", "30"]);
    let first = watch.line_starting("turn 1");
    assert!(first.contains("simulated 60 steps from step 0"), "{first}");
    let first_png = std::fs::read(&out).unwrap();

    // A new camera and fog colour: the world kept in memory serves, no step is simulated.
    std::fs::write(&scene, scene_text(6.0, "(0.9, 0.4, 0.3)", 9.0)).unwrap();
    let second = watch.line_starting("turn 2");
    assert!(
        second.contains("simulated 0 steps from step 60"),
        "{second}"
    );
    let second_png = std::fs::read(&out).unwrap();
    assert_ne!(second_png, first_png, "the edit shows");
    // The same bytes as a still of the edited scene simulated from time 0.
    let fresh = dir.join("fresh").join("still.png");
    let fresh_arg = fresh.to_str().unwrap();
    let scene_arg = scene.to_str().unwrap();
    let still = ["still", scene_arg, "--frame", "30", "--size", "64x36"];
    fogbank_ok(&[&still[..], &["--out", fresh_arg, "--quiet"]].concat());
    assert_eq!(std::fs::read(&fresh).unwrap(), second_png);
    std::fs::remove_dir_all(dir.join("fresh")).unwrap();

    // A change the fluid reads simulates again from step 0.
    std::fs::write(&scene, scene_text(6.0, "(0.9, 0.4, 0.3)", 4.0)).unwrap();
    let third = watch.line_starting("turn 3");
    assert!(third.contains("simulated 60 steps from step 0"), "{third}");
    let good_png = std::fs::read(&out).unwrap();

    // A broken save: the usual report, and the last good picture stays.
    std::fs::write(&scene, "(\n    fog: (sheets: twelve),\n)\n").unwrap();
    let failed = watch.line_starting("turn 4");
    assert!(
        failed.contains("failed; keeping the last good picture"),
        "{failed}"
    );
    let report = watch.seen.join("\n");
    assert!(report.contains("scene.ron:2:"), "{report}");
    assert_eq!(std::fs::read(&out).unwrap(), good_png);

    // Fixed again, it renders again.
    std::fs::write(&scene, scene_text(4.0, "(0.6, 0.65, 0.7)", 9.0)).unwrap();
    let fifth = watch.line_starting("turn 5");
    assert!(fifth.contains("wrote frame 30"), "{fifth}");
    assert_eq!(std::fs::read(&out).unwrap(), first_png);

    let (code, rest) = watch.interrupt();
    assert_eq!(code, Some(130), "{rest}");
    assert!(rest.contains("interrupted by SIGINT"), "{rest}");
    assert_only_scene_and_picture(&dir);
}

#[test]
fn ctrl_c_in_the_middle_of_a_turn_exits_130_and_writes_nothing() {
    require_gpu!();
    let dir = temp_dir("watch-interrupted");
    std::fs::create_dir_all(&*dir).unwrap();
    let (scene, out) = (dir.join("scene.ron"), dir.join("still.png"));
    std::fs::write(&scene, scene_text(4.0, "(0.6, 0.65, 0.7)", 9.0)).unwrap();
    // Frame 300000 is 600000 steps away: the turn is still simulating when the signal comes.
    let mut watch = Watch::start(&scene, &out, ["--frame", "300000"]);
    watch.line_starting("watching");
    std::thread::sleep(Duration::from_millis(300));
    let (code, rest) = watch.interrupt();
    assert_eq!(code, Some(130), "{rest}");
    assert!(rest.contains("0 files were written"), "{rest}");
    assert_eq!(file_names(&dir), ["scene.ron"]);
}

/// The clip's files, by name.
fn clip_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    file_names(dir)
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(dir.join(&name)).unwrap();
            (name, bytes)
        })
        .collect()
}

#[test]
fn a_watched_clip_renders_each_save_steps_only_its_range_for_a_look_change_and_keeps_the_last_good_clip()
 {
    require_gpu!();
    let dir = temp_dir("watch-clip");
    std::fs::create_dir_all(&*dir).unwrap();
    let (scene, out) = (dir.join("scene.ron"), dir.join("clip"));
    std::fs::write(&scene, scene_text(4.0, "(0.6, 0.65, 0.7)", 9.0)).unwrap();
    let mut watch = Watch::start(&scene, &out, ["--frames", "6..9"]);
    // Frames 6 to 8 at 30 fps are steps 12 to 16.
    let first = watch.line_starting("turn 1");
    assert!(first.contains("simulated 16 steps from step 0"), "{first}");
    assert!(first.contains("rendered 3 frames"), "{first}");
    assert!(first.contains("wrote 3 frames (6 to 8)"), "{first}");
    let first_clip = clip_files(&out);
    let names: Vec<&str> = first_clip.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        ["frame_0006.png", "frame_0007.png", "frame_0008.png"]
    );
    assert_only_whole_pngs(&out);

    // A new camera and fog colour: from the world kept at frame 6, only the clip's 4 steps.
    std::fs::write(&scene, scene_text(6.0, "(0.9, 0.4, 0.3)", 9.0)).unwrap();
    let second = watch.line_starting("turn 2");
    assert!(
        second.contains("simulated 4 steps from step 12"),
        "{second}"
    );
    let second_clip = clip_files(&out);
    assert_eq!(second_clip.len(), 3);
    for ((name, before), (_, after)) in first_clip.iter().zip(&second_clip) {
        assert_ne!(before, after, "the edit shows in {name}");
    }
    // The same bytes as `fogbank render` of the edited scene from time 0.
    let fresh = dir.join("fresh");
    let scene_arg = scene.to_str().unwrap();
    let render = ["render", scene_arg, "--frames", "6..9", "--size", "64x36"];
    fogbank_ok(&[&render[..], &["--out", fresh.to_str().unwrap(), "--quiet"]].concat());
    assert_eq!(clip_files(&fresh), second_clip);
    std::fs::remove_dir_all(&fresh).unwrap();

    // A change the fluid reads simulates again from step 0.
    std::fs::write(&scene, scene_text(6.0, "(0.9, 0.4, 0.3)", 4.0)).unwrap();
    let third = watch.line_starting("turn 3");
    assert!(third.contains("simulated 16 steps from step 0"), "{third}");
    let good_clip = clip_files(&out);
    assert_ne!(good_clip, second_clip, "the fluid's edit shows");

    // A broken save: the usual report, and the last good clip stays.
    std::fs::write(&scene, "(\n    fog: (sheets: twelve),\n)\n").unwrap();
    let failed = watch.line_starting("turn 4");
    assert!(
        failed.contains("failed; keeping the last good clip"),
        "{failed}"
    );
    assert!(watch.seen.join("\n").contains("scene.ron:2:"));
    assert_eq!(clip_files(&out), good_clip);

    let (code, rest) = watch.interrupt();
    assert_eq!(code, Some(130), "{rest}");
    assert_eq!(file_names(&dir), ["clip", "scene.ron"]);
    assert_only_whole_pngs(&out);
}

#[test]
fn ctrl_c_in_the_middle_of_a_clip_turn_exits_130_and_writes_nothing() {
    require_gpu!();
    let dir = temp_dir("watch-clip-interrupted");
    std::fs::create_dir_all(&*dir).unwrap();
    let (scene, out) = (dir.join("scene.ron"), dir.join("clip"));
    std::fs::write(&scene, scene_text(4.0, "(0.6, 0.65, 0.7)", 9.0)).unwrap();
    let mut watch = Watch::start(&scene, &out, ["--frames", "300000..300002"]);
    watch.line_starting("watching");
    std::thread::sleep(Duration::from_millis(300));
    let (code, rest) = watch.interrupt();
    assert_eq!(code, Some(130), "{rest}");
    assert!(rest.contains("0 files were written"), "{rest}");
    assert_eq!(file_names(&dir), ["scene.ron"]);
}

#[test]
fn an_out_of_the_wrong_kind_is_refused_before_anything_renders() {
    let dir = temp_dir("watch-out-kind");
    std::fs::create_dir_all(dir.join("folder.png")).unwrap();
    std::fs::write(dir.join("file"), "not a folder").unwrap();
    let scene = dir.join("scene.ron");
    std::fs::write(&scene, scene_text(4.0, "(0.6, 0.65, 0.7)", 9.0)).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let scene_arg = scene.to_str().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["--frames", "0..3", "--out", &path("clip.png")],
            "with --frames, --out is the folder",
        ),
        (&["--frames", "0..3", "--out", &path("file")], "is a file"),
        (
            &["--frame", "3", "--out", &path("still")],
            "with --frame, --out is the PNG file",
        ),
        (&["--out", &path("folder.png")], "is a folder"),
        (
            &[
                "--frame",
                "3",
                "--frames",
                "0..3",
                "--out",
                &path("still.png"),
            ],
            "cannot be used with",
        ),
        (
            &["--frames", "0..601", "--out", &path("clip")],
            "at most 600 frames",
        ),
    ];
    for (args, message) in cases {
        let out = fogbank(&[&["watch", scene_arg][..], args].concat());
        assert_exit(&out, 2);
        let text = stderr(&out);
        assert!(text.contains(message), "{args:?}: {text}");
        assert!(!text.contains("watching"), "{args:?}: {text}");
    }
    assert_eq!(file_names(&dir), ["file", "folder.png", "scene.ron"]);
}
