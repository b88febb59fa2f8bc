//! The fluid's fog model, streams and optional stages through the real binary: a scene using
//! every one of them gives the same state hashes on 1, 2 and 4 threads, its fields print and
//! read back, and bad values are refused with an error naming the field.

mod common;

use common::{assert_exit, fogbank, fogbank_env, fogbank_ok, scene, stderr, stdout};

fn hashes_with_threads(threads: &str) -> Vec<String> {
    let out = fogbank_env(
        &[
            "simulate",
            &scene("fluid_stages.ron"),
            "--json",
            "--quiet",
            "--frames",
            "0..60",
        ],
        &[("RAYON_NUM_THREADS", threads)],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            value["hash"].as_str().expect("a hash").to_string()
        })
        .collect()
}

#[test]
fn every_new_stage_gives_the_same_hashes_on_any_thread_count() {
    let one = hashes_with_threads("1");
    assert_eq!(one.len(), 60);
    assert_eq!(one, hashes_with_threads("2"));
    assert_eq!(one, hashes_with_threads("4"));
    assert_ne!(one[0], one[59], "the state moves");
}

#[test]
fn the_new_fields_print_and_read_back() {
    let printed = stdout(&fogbank_ok(&["scene", &scene("fluid_stages.ron")]));
    for field in [
        "Sources(",
        "fade: 0.4",
        "streams:",
        "period_s: 3.0",
        "viscosity: 0.01",
        "projections: 2",
    ] {
        assert!(printed.contains(field), "{field} missing from:\n{printed}");
    }
    // The temple names none of them: they stay out of its printed scene.
    let temple = stdout(&fogbank_ok(&["scene"]));
    for field in [
        "Sources(",
        "streams:",
        "viscosity:",
        "fog_diffusion:",
        "projections:",
    ] {
        assert!(!temple.contains(field), "{field} in the temple:\n{temple}");
    }
}

#[test]
fn bad_fluid_values_name_their_field() {
    let out = fogbank(&["simulate", &scene("fluid_bad_source.ron"), "--frames", "0"]);
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("fluid.fog.sources[1].position"),
        "{}",
        stderr(&out)
    );
    for (set, field) in [
        ("fluid.viscosity=-1", "fluid.viscosity"),
        ("fluid.fog_diffusion=-0.5", "fluid.fog_diffusion"),
        ("fluid.projections=3", "fluid.projections"),
    ] {
        let out = fogbank(&["simulate", "--frames", "0", "--set", set]);
        assert_exit(&out, 2);
        assert!(stderr(&out).contains(field), "{set}: {}", stderr(&out));
    }
}
