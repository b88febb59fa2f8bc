//! Golden images: frames rendered on a GPU adapter (lavapipe in CI) compared with the references
//! in tests/golden/<case>/ through `fogbank check` — every view, the fires, a lamp's shadow, the
//! moon's shafts (`moonlit`), the exact pin of linear fog (`tiny_exact`), the raymarch reference
//! (`tiny_raymarch`), the clouds and the water (`underwater`), and the compute compositor
//! against the raster references.
//!
//! Each case's golden.json names the adapter that made it. The tolerance is `fogbank check`'s
//! default (max Δ 8 levels, 0.2 % of pixels, SSIM ≥ 0.98), loosened automatically when the
//! adapter differs. To re-bless after an intended change to the picture, run
//! `FOGBANK_BLESS=1 cargo test --test golden golden_` and commit the new images with the reason
//! in the message. On failure the actual image, a diff heat map and an expected | actual | diff
//! strip are written beside the golden.

mod common;

use common::{assert_success, fogbank, require_gpu};
use std::process::Output;

/// `fogbank check --golden tests/golden/CASE --quiet ARGS…`.
fn check_case(case: &str, args: &[&str]) -> Output {
    let dir = format!("tests/golden/{case}");
    fogbank(&[&["check", "--golden", dir.as_str(), "--quiet"], args].concat())
}

/// Checks `case` against its references, or re-blesses them under FOGBANK_BLESS=1.
fn golden(case: &str, args: &[&str]) {
    let bless = std::env::var("FOGBANK_BLESS").is_ok_and(|v| v == "1");
    let bless: &[&str] = if bless { &["--bless"] } else { &[] };
    let out = check_case(case, &[args, bless].concat());
    assert_success(&out, &format!("golden {case}"));
}

/// The original temple example (scenes/example.ron): no fires, its jump timing, every curl
/// confined.
#[test]
fn golden_example() {
    require_gpu!();
    golden(
        "example",
        &[
            "scenes/example.ron",
            "--size",
            "160x90",
            "--frames",
            "0,45,90",
            "--maps",
        ],
    );
}

#[test]
fn golden_temple_fog() {
    require_gpu!();
    golden(
        "temple_fog",
        &["--size", "160x90", "--frames", "0,45,90", "--maps"],
    );
}

#[test]
fn golden_temple_sheets_view() {
    require_gpu!();
    golden(
        "temple_sheets",
        &["--size", "160x90", "--frames", "45", "--view", "sheets"],
    );
}

#[test]
fn golden_temple_flow_view() {
    require_gpu!();
    golden(
        "temple_flow",
        &["--size", "160x90", "--frames", "45", "--view", "flow"],
    );
}

#[test]
fn golden_temple_fluid_view() {
    require_gpu!();
    golden(
        "temple_fluid",
        &["--size", "160x90", "--frames", "45", "--view", "fluid"],
    );
}

/// The temple's braziers and torches at half a second: flames, their light on the pillars and
/// their glow in the fog.
#[test]
fn golden_temple_fires() {
    require_gpu!();
    golden("temple_fires", &["--size", "160x90", "--frames", "30"]);
}

/// The raymarch reference (`--compositor raymarch`) of the tiny scene, 64 steps a ray: the
/// continuous fog the sheets approximate, with its per-pixel random start (an integer hash, the
/// same on every adapter).
#[test]
fn golden_tiny_raymarch() {
    require_gpu!();
    golden(
        "tiny_raymarch",
        &[
            "tests/scenes/tiny.ron",
            "--frames",
            "0,6",
            "--compositor",
            "raymarch",
            "--steps",
            "64",
        ],
    );
}

/// One spot lamp beside a pillar (tests/scenes/lamp.ron): its light on the floor and in the
/// fog, and the pillar's shadow as a dark wedge across both (the `shadow` pass's map, filtered
/// by hand).
#[test]
fn golden_lamp_shadow() {
    require_gpu!();
    golden("lamp_shadow", &["tests/scenes/lamp.ron", "--frames", "6"]);
}

/// The walkway (scenes/walkway.ron) at 5 s: the first walker's cut through the source-fed,
/// density-shaped fog on the 256² grid, and the lamp beyond the people throwing their shadows
/// through the fog toward the eye.
#[test]
fn golden_walkway() {
    require_gpu!();
    golden(
        "walkway",
        &["scenes/walkway.ron", "--size", "160x90", "--frames", "150"],
    );
}

/// The moonlit temple (scenes/moonlit.ron) at 200 frames: the moon's shadows on the floor and
/// the pillars' shafts through the physical fog medium (its map, filtered by hand).
#[test]
fn golden_moonlit() {
    require_gpu!();
    golden(
        "moonlit",
        &["scenes/moonlit.ron", "--size", "160x90", "--frames", "200"],
    );
}

/// The moon's shadows and shafts drawn by the compute compositor (its `scene` pass in compute,
/// the sheets crossed per pixel) pass the raster reference: both compositors agree.
#[test]
fn compute_compositor_passes_the_moonlit_reference() {
    require_gpu!();
    let out = check_case(
        "moonlit",
        &[
            "scenes/moonlit.ron",
            "--size",
            "160x90",
            "--frames",
            "200",
            "--compositor",
            "compute",
        ],
    );
    assert_success(&out, "moonlit with the compute compositor");
}

/// The flooded temple (scenes/underwater.ron): at 0.5 s above the water under drifting clouds,
/// and at 5.5 s under it, the sky the water's colour and the hall fading into the water's fog.
#[test]
fn golden_underwater() {
    require_gpu!();
    golden(
        "underwater",
        &[
            "scenes/underwater.ron",
            "--size",
            "160x90",
            "--frames",
            "30,330",
        ],
    );
}

/// The storm (scenes/storm.ron): a frame just after the first strike of lightning (the bolt,
/// the flash in the ambient and on the fog) and one in the full storm (gloom closing the far
/// end in, the wind streaming the fog past the pillars).
#[test]
fn golden_storm() {
    require_gpu!();
    golden(
        "storm",
        &[
            "scenes/storm.ron",
            "--size",
            "160x90",
            "--frames",
            "392,480",
        ],
    );
}

/// The storm's wet floor at 8 s, with the ground fog thinned to a veil so the floor shows: the
/// stone darkened and glazed, the braziers and the ball shining in it, the rain over it.
#[test]
fn golden_storm_wet_floor() {
    require_gpu!();
    golden(
        "storm_wet",
        &[
            "scenes/storm.ron",
            "--size",
            "160x90",
            "--frames",
            "480",
            "--set",
            "fog.sigma=0.2",
        ],
    );
}

/// The storm's references hold for the compute compositor too, whose hall is drawn in compute
/// and whose bolt and rain test the hit depths in their shaders (no depth copy), while the wet
/// floor's reflection tests its own depth target.
#[test]
fn compute_compositor_passes_the_storm_references() {
    require_gpu!();
    for (case, frames, set) in [
        ("storm", "392,480", None),
        ("storm_wet", "480", Some("fog.sigma=0.2")),
    ] {
        let mut args = vec![
            "scenes/storm.ron",
            "--size",
            "160x90",
            "--frames",
            frames,
            "--compositor",
            "compute",
        ];
        if let Some(set) = set {
            args.extend(["--set", set]);
        }
        let out = check_case(case, &args);
        assert_success(&out, &format!("{case} with the compute compositor"));
    }
}

/// Height fog is additive: with `height_falloff` at 0 (every scene that leaves it out) the
/// tiny scene renders byte for byte as it did before the feature existed. The reference in
/// tests/golden/tiny_exact was blessed from the renderer before height fog, with every
/// tolerance at zero, and re-blessed once, on purpose, when the fog noise became an integer
/// hash and the maps were filtered by hand (the same fog on every adapter), and once more when
/// the fluid's blast strengths moved from cells to world units (the tiny scene's 32-cell grid
/// had blasts three times the temple's in world units), and once more when CPU adapters began
/// drawing the raster sheets in groups (`fog_groups.rs`: one pixel at the fog square's edge
/// moved by 8 levels, the rest by one at most); do not re-bless it to make this pass.
///
/// "Exactly" is one 8-bit level: lavapipe compiles the shaders for the host processor, and the
/// same Mesa on another processor rounds the last bit of some fragments the other way (seen:
/// 5 % of the pixels one level apart, mean 0.02, between two x86-64 machines). No pixel may
/// move by more than that.
#[test]
fn zero_height_falloff_renders_exactly_as_before() {
    require_gpu!();
    let out = check_case(
        "tiny_exact",
        &[
            "tests/scenes/tiny.ron",
            "--max-diff",
            "1",
            "--pixel-budget",
            "0",
            "--min-ssim",
            "0.999",
        ],
    );
    assert_success(
        &out,
        "the tiny scene no longer renders exactly as before height fog: check",
    );
}

/// The compute compositor (`--compositor compute`) passes the golden references the raster
/// `fog` pass made, in the fog and flow views, at `check`'s default tolerance; the JSON summary
/// names the compositor that ran, and `auto` picks raster on a CPU adapter (lavapipe).
/// It never blesses: the references stay the raster pass's.
#[test]
fn compute_compositor_passes_the_raster_references() {
    require_gpu!();
    for (case, frames, view) in [
        ("temple_fog", "0,45,90", "fog"),
        ("temple_flow", "45", "flow"),
    ] {
        let out = check_case(
            case,
            &[
                "--size",
                "160x90",
                "--frames",
                frames,
                "--view",
                view,
                "--compositor",
                "compute",
            ],
        );
        assert_success(&out, &format!("{case} with the compute compositor"));
    }

    let dir = common::temp_dir("compositor-json");
    let d = dir.to_str().unwrap();
    for (flag, expected) in [("compute", Some("compute")), ("auto", None)] {
        let out = common::render_ok(&[
            "--json",
            "--frames",
            "0",
            "--size",
            "32x18",
            "--compositor",
            flag,
            "--out",
            d,
        ]);
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let ran = summary["compositor"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        match expected {
            Some(name) => assert_eq!(ran, name),
            // Auto: compute only on a discrete GPU.
            None => {
                let adapter = summary["adapter"].as_str().unwrap_or_default();
                let on_cpu = adapter.contains("llvmpipe") || adapter.contains("lavapipe");
                assert!(ran == "raster" || !on_cpu, "auto ran {ran} on {adapter}");
                assert!(ran == "raster" || ran == "compute", "{ran}");
            }
        }
    }
}
