//! The fluid without a GPU: `simulate` (its JSON, the ball's jumps, determinism across runs and
//! thread counts over 600 frames, 30/60/24 fps equivalence, the simulation cache) and `maps`.
//! They run the real binary, as a user or a CI script would.

mod common;

use common::{assert_exit, fogbank, fogbank_env, fogbank_ok, scene, stderr, stdout, temp_dir};
use std::process::Output;

fn json_lines(output: &Output) -> Vec<serde_json::Value> {
    stdout(output)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect()
}

fn hashes(output: &Output) -> Vec<String> {
    json_lines(output)
        .iter()
        .map(|v| v["hash"].as_str().unwrap().to_string())
        .collect()
}

/// The state hashes of `fogbank simulate --json --quiet ARGS…`, which must succeed.
fn simulate_hashes(args: &[&str]) -> Vec<String> {
    hashes(&fogbank_ok(
        &[&["simulate", "--json", "--quiet"], args].concat(),
    ))
}

#[test]
fn simulate_json_reports_every_field() {
    let out = fogbank_ok(&[
        "simulate", "--frames", "0..3,59", "--json", "--quiet", "--probe", "2,2", "--probe", "-5,0",
    ]);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 4);
    let frames: Vec<u64> = lines.iter().map(|l| l["frame"].as_u64().unwrap()).collect();
    assert_eq!(frames, [0, 1, 2, 59]);
    let last = &lines[3];
    assert!((last["time"].as_f64().unwrap() - 59.0 / 60.0).abs() < 1e-9);
    assert_eq!(last["hash"].as_str().unwrap().len(), 16);
    for key in ["x", "y", "z"] {
        assert!(last["ball"][key].is_number(), "ball.{key}");
    }
    for key in ["mean", "min", "max"] {
        assert!(last["density"][key].is_number(), "density.{key}");
    }
    assert!(last["ball_density"].is_number());
    assert!(
        last["speed_max"].as_f64().unwrap() > 0.0,
        "the ball moves the air"
    );
    assert!(last["lift_max"].is_number());
    assert!(last["events"].is_array());
    let probes = last["probes"].as_array().unwrap();
    assert_eq!(probes.len(), 2);
    assert_eq!(probes[1]["x"].as_f64().unwrap(), -5.0);
    // The fog under the ball is pushed away: thinner than the mean.
    assert!(last["ball_density"].as_f64().unwrap() < last["density"]["mean"].as_f64().unwrap());
}

#[test]
fn default_scene_jumps_and_lands_at_least_three_times_in_ten_seconds() {
    let lines = json_lines(&fogbank_ok(&["simulate", "--json", "--quiet"]));
    assert_eq!(lines.len(), 600);
    let count = |name: &str| {
        lines
            .iter()
            .flat_map(|l| l["events"].as_array().unwrap().clone())
            .filter(|e| e == name)
            .count()
    };
    assert!(count("jump") >= 3, "{} jumps", count("jump"));
    assert!(count("land") >= 3, "{} landings", count("land"));
}

#[test]
fn same_hashes_on_every_run_and_thread_count() {
    let args = ["simulate", "--json", "--quiet", "--frames", "0..600"];
    let with_threads = |n: &str| hashes(&fogbank_env(&args, &[("RAYON_NUM_THREADS", n)]));
    let h1 = with_threads("1");
    assert_eq!(h1.len(), 600);
    assert_eq!(h1, with_threads("2"));
    assert_eq!(h1, with_threads("4"));
    assert_eq!(h1, with_threads("2"));
    // The state does change over time.
    assert_ne!(h1[0], h1[599]);
}

#[test]
fn thirty_fps_frame_n_matches_sixty_fps_frame_2n() {
    let h60 = simulate_hashes(&["--frames", "0..=40"]);
    let h30 = simulate_hashes(&["--frames", "0..=20", "--set", "output.fps=30"]);
    for n in 0..=20 {
        assert_eq!(h30[n], h60[2 * n], "frame {n}");
    }
    let h24 = simulate_hashes(&["--frames", "0..=24", "--set", "output.fps=24"]);
    // One second in, frame 24 at 24 fps shows the same state as frame 60 at 60 fps.
    assert_eq!(h24[24], simulate_hashes(&["--frames", "60"])[0]);
}

#[test]
fn a_range_started_from_the_cache_has_the_hashes_of_a_full_run() {
    let dir = temp_dir("cache");
    let dir_arg = dir.to_str().unwrap();
    let grid = "fluid.grid=48";
    let full_hashes = simulate_hashes(&["--set", grid, "--frames", "0..120"]);
    assert_eq!(
        simulate_hashes(&["--set", grid, "--cache", dir_arg, "--frames", "0..120"]),
        full_hashes,
        "writing the cache changes nothing"
    );
    // Every 60 frames by default: step 60 only (frame 120 was not reached).
    assert_eq!(common::file_names(&dir), ["step_00000060.snap"]);

    assert_eq!(
        simulate_hashes(&["--set", grid, "--cache", dir_arg, "--frames", "100..120"]),
        full_hashes[100..120]
    );

    // Another scene's cache is refused, naming the file and the fix.
    let other = fogbank(&[
        "simulate",
        "--set",
        grid,
        "--set",
        "fluid.refill=1",
        "--cache",
        dir_arg,
        "--quiet",
        "--frames",
        "100..101",
    ]);
    assert_exit(&other, 2);
    let message = stderr(&other);
    assert!(
        message.contains("step_00000060.snap") && message.contains("not this scene"),
        "{message}"
    );

    // A damaged snapshot is a clear error, not a panic.
    let snap = dir.join("step_00000060.snap");
    let bytes = std::fs::read(&snap).unwrap();
    std::fs::write(&snap, &bytes[..bytes.len() / 2]).unwrap();
    let truncated = fogbank(&[
        "simulate", "--set", grid, "--cache", dir_arg, "--quiet", "--frames", "100..101",
    ]);
    assert_exit(&truncated, 2);
    assert!(
        stderr(&truncated).contains("truncated"),
        "{}",
        stderr(&truncated)
    );
    assert!(!stderr(&truncated).contains("panicked"));
}

#[test]
fn maps_writes_every_map_named_by_field_and_frame() {
    let dir = temp_dir("maps");
    fogbank_ok(&[
        "maps",
        &scene("tiny.ron"),
        "--out",
        dir.to_str().unwrap(),
        "--frames",
        "0,6",
        "--quiet",
    ]);
    for frame in ["0000", "0006"] {
        for field in [
            "fluid",
            "lift",
            "density",
            "speed",
            "lift",
            "pressure",
            "divergence",
            "curl",
            "obstacles",
        ] {
            let path = dir.join(format!("{field}_{frame}.png"));
            let bytes = std::fs::read(&path).unwrap_or_else(|_| panic!("missing {path:?}"));
            let image = image::load_from_memory(&bytes).unwrap();
            assert_eq!((image.width(), image.height()), (32, 32), "{path:?}");
        }
    }
    // Only whole files, no temporaries.
    let names = common::file_names(&dir);
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".png") && !n.starts_with('.')),
        "{names:?}"
    );
}

#[test]
fn the_pressure_solver_is_chosen_with_set_and_checked() {
    let frames = ["--set", "fluid.grid=48", "--frames", "0..=30"];
    let default = simulate_hashes(&frames);
    let explicit_default =
        simulate_hashes(&[&frames[..], &["--set", "fluid.solver=red_black"]].concat());
    assert_eq!(
        default, explicit_default,
        "naming the default changes nothing"
    );
    for solver in ["sor", "multigrid"] {
        let set = format!("fluid.solver={solver}");
        let hashes = simulate_hashes(&[&frames[..], &["--set", &set]].concat());
        assert_eq!(
            hashes[0], default[0],
            "{solver}: frame 0 is before any step"
        );
        assert_ne!(hashes[30], default[30], "{solver} solves differently");
        let one_thread = hashes_of_env(&[&frames[..], &["--set", &set]].concat(), "1");
        assert_eq!(hashes, one_thread, "{solver}: same hashes on one thread");
    }
    for (set, field) in [
        ("fluid.sor_omega=2.0", "fluid.sor_omega"),
        ("fluid.multigrid_cycles=0", "fluid.multigrid_cycles"),
    ] {
        let out = fogbank(&["simulate", "--frames", "0", "--set", set]);
        assert_exit(&out, 2);
        assert!(stderr(&out).contains(field), "{set}: {}", stderr(&out));
    }
}

/// The state hashes of `fogbank simulate --json --quiet ARGS…` on `threads` threads.
fn hashes_of_env(args: &[&str], threads: &str) -> Vec<String> {
    let out = fogbank_env(
        &[&["simulate", "--json", "--quiet"], args].concat(),
        &[("RAYON_NUM_THREADS", threads)],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    hashes(&out)
}
