//! GPU tests of the `raymarch` reference and of the sheets measured against it, on the tiny
//! test scene (tests/scenes/tiny.ron, 160×90, 12 sheets of its own) at frame 6, the ball
//! mid-jump: the raymarch converges as its steps double, 48 sheets stay within a documented
//! error of it, and counting the part of each slab in front of the scene (the de-banding)
//! lowers that error.
//!
//! Errors are [`ErrorHistogram`]'s: per pixel the largest R, G, B difference in 8-bit levels,
//! its mean over the picture and its 99th percentile. The bounds below were measured on
//! lavapipe with some room: raymarch 256 against 512 steps differs by a mean 0.009 levels (p99
//! 0), 16 against 32 steps by 0.68 (p99 3);
//! 48 sheets against the 256-step reference by 0.10 (compute) and 0.42 (raster, whose
//! half-float target rounds after each of the 48 blends) with the de-banding, and by 0.13 and
//! 0.45 without it (at 12 sheets: 1.09 and 1.10 with, 1.20 and 1.21 without).

use super::{context, render, renderer_with};
use crate::frame::{Frame, View};
use crate::gpu::{Compositor, GpuContext, Renderer};
use crate::pipeline::ErrorHistogram;
use crate::playback::Playback;
use crate::scene::{FogMedium, PhysicalMedium, Scene};

const WIDTH: u32 = 160;
const HEIGHT: u32 = 90;
/// The frame every test renders.
const FRAME: u32 = 6;

/// Largest mean error (levels) between the raymarch at 256 and at 512 steps.
const CONVERGED_MEAN: f64 = 0.05;
/// Largest 99th-percentile error (levels) between them.
const CONVERGED_P99: u32 = 1;
/// Largest mean error (levels) of 48 sheets against the 256-step raymarch: compute, raster.
const SHEETS_48_MEAN: [(Compositor, f64); 2] =
    [(Compositor::Compute, 0.2), (Compositor::Raster, 0.6)];
/// Largest mean error (levels) of 48 compute sheets against the 256-step raymarch in the
/// physical medium (`the_physical_medium_converges_and_the_sheets_follow_it`). Measured on
/// lavapipe: 0.20 (p99 1), and 0.87 at 12 sheets; 256 against 512 steps 0.011.
const PHYSICAL_SHEETS_48_MEAN: f64 = 0.4;
/// Largest mean error (levels) of 48 compute sheets against the 256-step raymarch in the
/// physical medium seen from low down (`a_low_camera_sees_all_of_the_physical_fog`). Measured
/// on lavapipe: 0.66 (p99 9); with each slab shaded in one piece, 1.07 (p99 17); with the
/// seed's slabs too, capped at five spacings, 3.08 (p99 52).
const LOW_VIEW_48_MEAN: f64 = 0.9;

/// The tiny scene with one sample a pixel: the sheets and the raymarch are compared sample
/// for sample, not through the anti-aliased default's edges (where the later samples of the
/// sheets take kept fog and the raymarch's march again).
fn tiny_scene() -> Scene {
    let path = std::path::Path::new("tests/scenes/tiny.ron");
    let mut scene = crate::scene::load(Some(path), &[])
        .unwrap_or_else(|e| panic!("tiny scene: {e}"))
        .scene;
    scene.output.samples = Some(1);
    scene
}

/// Renders frame [`FRAME`] of `scene` with `renderer`.
fn render_frame(renderer: &mut Renderer, scene: &Scene) -> Frame {
    let mut playback = Playback::new(scene);
    let state = playback.advance_to(FRAME, || {});
    render(renderer, &playback.frame_inputs(&state))
}

fn errors(expected: &Frame, actual: &Frame) -> ErrorHistogram {
    let mut histogram = ErrorHistogram::default();
    histogram.add(&expected.rgba8, &actual.rgba8);
    histogram
}

fn raymarch(ctx: &GpuContext, scene: &Scene, steps: u32) -> Frame {
    let compositor = Compositor::Raymarch { steps };
    let mut renderer = renderer_with(ctx, scene, WIDTH, HEIGHT, View::Fog, compositor);
    assert_eq!(renderer.compositor(), compositor);
    render_frame(&mut renderer, scene)
}

fn sheets(
    ctx: &GpuContext,
    scene: &Scene,
    count: u32,
    compositor: Compositor,
    partial: bool,
) -> Frame {
    let mut scene = scene.clone();
    scene.fog.sheets = count;
    let mut renderer = renderer_with(ctx, &scene, WIDTH, HEIGHT, View::Fog, compositor);
    renderer.set_partial_slabs(partial);
    render_frame(&mut renderer, &scene)
}

/// Doubling the steps changes the picture less and less: 256 against 512 steps is within
/// [`CONVERGED_MEAN`] and [`CONVERGED_P99`], and well under 16 against 32 (so the measure
/// sees a march that has not converged). The march is also deterministic.
#[test]
fn raymarch_converges_as_the_steps_double() {
    let Some(ctx) = context() else { return };
    let scene = tiny_scene();
    let coarse = errors(&raymarch(&ctx, &scene, 16), &raymarch(&ctx, &scene, 32));
    let fine_256 = raymarch(&ctx, &scene, 256);
    let fine = errors(&fine_256, &raymarch(&ctx, &scene, 512));
    eprintln!(
        "16 vs 32 steps: mean {:.3}, p99 {}; 256 vs 512: mean {:.3}, p99 {}",
        coarse.mean(),
        coarse.percentile(0.99),
        fine.mean(),
        fine.percentile(0.99)
    );
    assert!(fine.mean() <= CONVERGED_MEAN, "mean {}", fine.mean());
    assert!(fine.percentile(0.99) <= CONVERGED_P99);
    assert!(
        coarse.mean() > 2.0 * fine.mean(),
        "{} vs {}",
        coarse.mean(),
        fine.mean()
    );
    assert_eq!(raymarch(&ctx, &scene, 256).rgba8, fine_256.rgba8);

    // The fog shows at all: the reference differs from the picture without fog.
    let mut clear = scene.clone();
    clear.fog.sigma = 0.0;
    let no_fog = errors(&raymarch(&ctx, &clear, 256), &fine_256);
    assert!(
        no_fog.mean() > 5.0,
        "fog changes a mean {} levels",
        no_fog.mean()
    );
}

/// 48 sheets stay within [`SHEETS_48_MEAN`] of the 256-step reference with both compositors,
/// and counting the part of each slab in front of the scene lowers the error at 12 and 48
/// sheets against counting whole slabs (a depth test per sheet, which bands at the pillars).
#[test]
fn sheets_approach_the_reference_and_debanding_lowers_the_error() {
    let Some(ctx) = context() else { return };
    let scene = tiny_scene();
    let reference = raymarch(&ctx, &scene, 256);
    for (compositor, bound) in SHEETS_48_MEAN {
        for count in [12, 48] {
            let banded = errors(&reference, &sheets(&ctx, &scene, count, compositor, false));
            let smooth = errors(&reference, &sheets(&ctx, &scene, count, compositor, true));
            eprintln!(
                "{} {count} sheets: mean {:.3} (p99 {}) with partial slabs, {:.3} (p99 {}) \
                 without",
                compositor.name(),
                smooth.mean(),
                smooth.percentile(0.99),
                banded.mean(),
                banded.percentile(0.99)
            );
            assert!(
                smooth.mean() < banded.mean(),
                "{} {count}: {} not under {}",
                compositor.name(),
                smooth.mean(),
                banded.mean()
            );
            if count == 48 {
                assert!(
                    smooth.mean() <= bound,
                    "{}: {}",
                    compositor.name(),
                    smooth.mean()
                );
            }
        }
    }
}

/// The tiny scene in the physical medium, lit the way `scenes/moonlit.ron` lights the temple:
/// a low moon with its shadow map, the fog shadowing itself.
fn tiny_physical_scene() -> Scene {
    let mut scene = tiny_scene();
    scene.fog.medium = FogMedium::Physical(PhysicalMedium::default());
    let moon = &mut scene.lights.directional;
    moon.shadows = true;
    (moon.pitch_rad, moon.yaw_rad, moon.intensity) = (-0.35, 2.75, 2.0);
    scene
}

/// With the physical medium (phase, moon shafts, the fog's own shadow) the raymarch still
/// converges as its steps double, and 48 sheets come closer to it than 12 do and stay within
/// [`PHYSICAL_SHEETS_48_MEAN`] of it: `fogbank quality` measures something that exists.
#[test]
fn the_physical_medium_converges_and_the_sheets_follow_it() {
    let Some(ctx) = context() else { return };
    let scene = tiny_physical_scene();
    let coarse = errors(&raymarch(&ctx, &scene, 16), &raymarch(&ctx, &scene, 32));
    let reference = raymarch(&ctx, &scene, 256);
    let fine = errors(&reference, &raymarch(&ctx, &scene, 512));
    let seed = errors(&raymarch(&ctx, &tiny_scene(), 256), &reference);
    eprintln!(
        "physical: 16 vs 32 steps mean {:.3}; 256 vs 512 mean {:.3} (p99 {}); \
         seed medium against it mean {:.3}",
        coarse.mean(),
        fine.mean(),
        fine.percentile(0.99),
        seed.mean()
    );
    // The medium changes the picture: this is not the seed fog measured again.
    assert!(seed.mean() > 2.0, "seed vs physical: mean {}", seed.mean());
    assert!(fine.mean() <= CONVERGED_MEAN, "mean {}", fine.mean());
    assert!(fine.percentile(0.99) <= CONVERGED_P99);
    assert!(coarse.mean() > 2.0 * fine.mean());
    let sheets_12 = errors(
        &reference,
        &sheets(&ctx, &scene, 12, Compositor::Compute, true),
    );
    let sheets_48 = errors(
        &reference,
        &sheets(&ctx, &scene, 48, Compositor::Compute, true),
    );
    eprintln!(
        "physical, compute: 12 sheets mean {:.3} (p99 {}), 48 sheets mean {:.3} (p99 {})",
        sheets_12.mean(),
        sheets_12.percentile(0.99),
        sheets_48.mean(),
        sheets_48.percentile(0.99)
    );
    assert!(sheets_48.mean() < sheets_12.mean());
    assert!(
        sheets_48.mean() <= PHYSICAL_SHEETS_48_MEAN,
        "48 sheets: mean {}",
        sheets_48.mean()
    );
}

/// A camera low over the physical fog, as `scenes/moonlit.ron` stands: its upper rays cross
/// the sheets at slopes under the seed's 0.2, where the seed's slabs drop fog.
fn low_camera(mut scene: Scene) -> Scene {
    scene.camera = crate::scene::Camera::Fixed(crate::scene::FixedCamera {
        position: [0.8, 2.4, 11.5],
        target: [0.0, 0.5, -1.0],
        fov_y_deg: 48.0,
    });
    scene
}

/// Seen from low down, 48 sheets of the physical medium stay within [`LOW_VIEW_48_MEAN`] of
/// the raymarch: their slabs span the whole way between crossings down to slopes of 0.05
/// (`Fog::least_slab_slope`), and a long slab is shaded in pieces (`physical_slab`).
#[test]
fn a_low_camera_sees_all_of_the_physical_fog() {
    let Some(ctx) = context() else { return };
    let scene = low_camera(tiny_physical_scene());
    let reference = raymarch(&ctx, &scene, 256);
    let sheets_48 = errors(
        &reference,
        &sheets(&ctx, &scene, 48, Compositor::Compute, true),
    );
    eprintln!(
        "physical, low camera, 48 compute sheets: mean {:.3} (p99 {})",
        sheets_48.mean(),
        sheets_48.percentile(0.99)
    );
    assert!(
        sheets_48.mean() <= LOW_VIEW_48_MEAN,
        "48 sheets: mean {}",
        sheets_48.mean()
    );
}
