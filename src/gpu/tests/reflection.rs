//! GPU tests of the `reflection` pass: the wet floor under the ball shows the ball's glow, a
//! dry floor does not, a scene without weather has no reflection at all, and the later edge
//! samples keep the mirrored picture.

use super::{
    clear_weather, context, flat_maps, inputs, max_difference, pixel_of, render, renderer,
    renderer_with, sum_rgb_3x3,
};
use crate::frame::{Frame, View, WeatherFrame};
use crate::gpu::Compositor;
use crate::gpu::passes::edge_batch::FORCE_ONE_BY_ONE;
use crate::gpu::passes::flame::FORCE_GRID_EACH_SAMPLE;
use crate::gpu::passes::reflection::FORCE_MIRROR_EACH_SAMPLE;
use crate::scene::{Scene, Weather};

/// A weather frame of the clear sky with the ground `wetness` wet.
fn weather(wetness: f32) -> WeatherFrame {
    WeatherFrame {
        wetness,
        ..clear_weather()
    }
}

/// The default scene with the default weather.
fn stormy() -> Scene {
    Scene {
        weather: Some(Weather::default()),
        ..Scene::default()
    }
}

/// Sum of R + G + B over the 3 × 3 pixels round (x, y).
fn probe(frame: &Frame, at: (u32, u32)) -> f64 {
    sum_rgb_3x3(&frame.rgba8, frame.width, at, f64::from)
}

#[test]
fn the_wet_floor_mirrors_the_ball_and_a_dry_or_weatherless_one_does_not() {
    let Some(ctx) = context() else { return };
    let (w, h) = (96, 64);
    let plain = Scene::default();
    let stormy = stormy();
    // No ground fog, so the floor is seen bare.
    let maps = flat_maps(&plain, 0.0);
    let at = inputs(&plain, &maps, 30);
    // The ball's mirror image, a radius under the floor (the ball rests on it), seen on the
    // floor a little in front of where the ball touches it.
    let [bx, by, bz] = at.ball_pos_world;
    let mirrored = pixel_of(&at.camera, (w, h), [bx, -by * 1.2, bz]);
    let beside = pixel_of(&at.camera, (w, h), [bx + 3.0, 0.0, bz + 1.0]);

    let mut with_weather = renderer(&ctx, &stormy, w, h, View::Fog);
    let mut dry_at = at;
    dry_at.weather = Some(weather(0.0));
    let dry = render(&mut with_weather, &dry_at);
    let mut wet_at = at;
    wet_at.weather = Some(weather(1.0));
    let wet = render(&mut with_weather, &wet_at);
    let again = render(&mut with_weather, &wet_at);
    assert!(
        wet.rgba8 == again.rgba8,
        "the reflection is not reproducible"
    );

    // Under the ball the wet floor shows its glow; the dry floor only the stone it lights.
    let (wet_under, dry_under) = (probe(&wet, mirrored), probe(&dry, mirrored));
    assert!(
        wet_under > dry_under + 60.0,
        "wet {wet_under} is not brighter than dry {dry_under} under the ball at {mirrored:?}"
    );
    // Away from anything bright, wet stone is darker than dry: the reflection is of the hall,
    // not a light added everywhere.
    let (wet_beside, dry_beside) = (probe(&wet, beside), probe(&dry, beside));
    assert!(
        wet_beside < dry_beside,
        "wet {wet_beside} vs dry {dry_beside} away from the ball at {beside:?}"
    );

    // Without weather there is no reflection pass, and the frame is the scene's as before:
    // the same as with weather on a dry clear evening under the ball.
    let mut without = renderer(&ctx, &plain, w, h, View::Fog);
    assert!(!without.has_reflection() && with_weather.has_reflection());
    let bare = render(&mut without, &at);
    assert_eq!(probe(&bare, mirrored), dry_under);
}

/// With a per-pixel fog compositor the composite runs in a compute shader: it lays the same
/// reflection over the floor as the raster composite (within a level or two of rounding), and
/// leaves the picture off the floor as it was.
#[test]
fn the_compute_composite_gives_the_raster_reflection() {
    let Some(ctx) = context() else { return };
    let (w, h) = (96, 64);
    let stormy = stormy();
    // No ground fog: the two compositors' fog differs by its own rounding, not wanted here.
    let maps = flat_maps(&stormy, 0.0);
    let mut at = inputs(&stormy, &maps, 30);
    at.weather = Some(weather(1.0));
    let wet_and_dry = |compositor| {
        let mut renderer = renderer_with(&ctx, &stormy, w, h, View::Fog, compositor);
        let wet_frame = render(&mut renderer, &at);
        let mut dry_at = at;
        dry_at.weather = Some(weather(0.0));
        (wet_frame, render(&mut renderer, &dry_at))
    };
    let (raster_wet, raster_dry) = wet_and_dry(Compositor::Raster);
    let (compute_wet, compute_dry) = wet_and_dry(Compositor::Compute);
    let differs = |a: &Frame, b: &Frame| {
        a.rgba8
            .iter()
            .zip(&b.rgba8)
            .filter(|(x, y)| x.abs_diff(**y) > 2)
            .count()
    };
    // The reflection changes the floor in both, by as much.
    let (raster_changed, compute_changed) = (
        differs(&raster_wet, &raster_dry),
        differs(&compute_wet, &compute_dry),
    );
    assert!(
        raster_changed > 100,
        "the raster reflection changed {raster_changed} channels"
    );
    // Within 2 levels but for pixel centres on an edge two faces share, which the compute
    // `scene` pass (per-pixel compositors) may give to the other face: 20 of these 6,144 pixels
    // (under the pillars' and the altar's outlines).
    let tolerance = crate::compare::Tolerance {
        max_channel_diff: 2,
        pixel_budget: 0.005,
        min_ssim: 0.995,
        max_flip: None,
    };
    let seen = crate::compare::compare(
        &super::image(&raster_wet),
        &super::image(&compute_wet),
        &tolerance,
    );
    assert!(
        seen.passed,
        "compute and raster reflections: {} px over 2 levels (max {}), SSIM {:.5}",
        seen.pixels_over, seen.max_channel_diff, seen.ssim
    );
    assert!(
        compute_changed.abs_diff(raster_changed) * 20 <= raster_changed,
        "the reflection changed {compute_changed} channels in compute, {raster_changed} in raster"
    );
}

/// The later samples of the anti-aliased default, drawn one by one, keep sample 0's mirrored
/// picture, and so the flames' fog grid the mirrored flames would cross again: within a level
/// of drawing the mirror in every sample, with both compositors, on a wet floor that shows it.
#[test]
fn the_edge_samples_keep_the_mirrored_picture() {
    let Some(ctx) = context() else { return };
    let (w, h) = (96, 64);
    let stormy = stormy();
    let maps = flat_maps(&stormy, 0.3);
    let mut wet_at = inputs(&stormy, &maps, 30);
    wet_at.weather = Some(weather(1.0));
    let mut dry_at = wet_at;
    dry_at.weather = Some(weather(0.0));
    for compositor in [Compositor::Raster, Compositor::Compute] {
        // The later samples drawn one by one, each with its own composite of the mirror.
        FORCE_ONE_BY_ONE.set(true);
        let mut kept = renderer_with(&ctx, &stormy, w, h, View::Fog, compositor);
        let (wet, dry) = (render(&mut kept, &wet_at), render(&mut kept, &dry_at));
        FORCE_MIRROR_EACH_SAMPLE.set(true);
        FORCE_GRID_EACH_SAMPLE.set(true);
        let mut each = renderer_with(&ctx, &stormy, w, h, View::Fog, compositor);
        let redrawn = render(&mut each, &wet_at);
        FORCE_MIRROR_EACH_SAMPLE.set(false);
        FORCE_GRID_EACH_SAMPLE.set(false);
        FORCE_ONE_BY_ONE.set(false);
        let name = compositor.name();
        let mirrored = wet.rgba8.iter().zip(&dry.rgba8);
        let changed = mirrored.filter(|(a, b)| a.abs_diff(**b) > 2).count();
        assert!(
            changed > 100,
            "{name}: the reflection changed {changed} channels"
        );
        let most = max_difference(&wet, &redrawn);
        assert!(
            most <= 1,
            "{name}: {most} levels from drawing the mirror each sample"
        );
    }
}
