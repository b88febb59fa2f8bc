//! The fluid's bits, pinned: the state hash `fogbank simulate --json` reports after many steps of
//! shipped scenes, against constants recorded by running the code before the fluid step was
//! made faster (branch `fluid-speed`, from main at b0d74f4). A speed-up must leave every bit of
//! the simulation as it was; when a change alters the fluid on purpose, re-record these with
//! the printed values and say why in the commit.
//!
//! Between them the scenes run every stage of the step: the temple (ball, blasts, shock wave,
//! solids, red-black 24 at 96²) with each of the three pressure solvers; every optional stage
//! (`tests/scenes/fluid_stages.ron`: sources with fade, streams, viscosity, fog diffusion, two
//! projections) with red-black and SOR; the storm's wind; and the walkway (256², multigrid,
//! the walkers' brushes) split over three threads, with two V-cycles a step as recorded and
//! with the one its scene file runs.

mod common;

use common::{fogbank_ok, scene, stdout};

/// The state hash of the last frame `fogbank simulate --json --quiet ARGS…` prints.
fn last_hash(args: &[&str]) -> String {
    let out = fogbank_ok(&[&["simulate", "--json", "--quiet"], args].concat());
    let text = stdout(&out);
    let last = text.lines().last().expect("a JSON line per frame");
    let value: serde_json::Value = serde_json::from_str(last).expect("a JSON line");
    value["hash"].as_str().expect("a hash").to_string()
}

/// Checks each case and reports every mismatch at once, with the hash to re-record.
fn assert_pinned(cases: &[(&str, &[&str], &str)]) {
    let mismatches: Vec<String> = cases
        .iter()
        .filter_map(|(name, args, pinned)| {
            let got = last_hash(args);
            (got != *pinned).then(|| format!("{name}: pinned {pinned}, got {got}"))
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "the simulation's bits changed:\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn the_temple_keeps_its_bits_with_every_solver() {
    assert_pinned(&[
        ("temple red_black", &["--frames", "299"], "88de2bf5efabbbdb"),
        (
            "temple sor",
            &["--frames", "299", "--set", "fluid.solver=sor"],
            "cd9361981c2bf72d",
        ),
        (
            "temple multigrid",
            &["--frames", "299", "--set", "fluid.solver=multigrid"],
            "93ed97e325c0c184",
        ),
    ]);
}

#[test]
fn the_optional_stages_keep_their_bits() {
    let stages = scene("fluid_stages.ron");
    assert_pinned(&[
        (
            "fluid_stages red_black",
            &[&stages, "--frames", "59"],
            "2adeab0c15ee650c",
        ),
        (
            "fluid_stages sor",
            &[&stages, "--frames", "59", "--set", "fluid.solver=sor"],
            "5b472d20ed63b8d9",
        ),
    ]);
}

#[test]
fn the_storm_and_the_walkway_keep_their_bits() {
    let root = env!("CARGO_MANIFEST_DIR");
    let storm = format!("{root}/scenes/storm.ron");
    let walkway = format!("{root}/scenes/walkway.ron");
    assert_pinned(&[
        (
            "storm wind",
            &[&storm, "--frames", "480"],
            "3aed9ffd879c2716",
        ),
        (
            "walkway 256² multigrid 2 cycles, 3 threads",
            &[
                &walkway,
                "--frames",
                "45",
                "--threads",
                "3",
                "--set",
                "fluid.multigrid_cycles=2",
            ],
            "9dab8e219a5772e3",
        ),
        // Recorded when the scene went from two V-cycles a step to one (the same code).
        (
            "walkway 256² multigrid 1 cycle, 3 threads",
            &[&walkway, "--frames", "45", "--threads", "3"],
            "a93b6041d2d93fde",
        ),
    ]);
}
