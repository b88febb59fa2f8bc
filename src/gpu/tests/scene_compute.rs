//! The `scene` pass drawn in compute against the raster pass: the same picture (the hall, the
//! ball, a walker, the fires hidden behind the pillars, and the fog over the depths it leaves)
//! within the rounding of sampling an edge, from a camera that puts the floor through the near
//! plane. With weather (rain, debris, a live bolt, the wet floor's reflection) the compute path
//! leaves no depth target for the bolt and the rain: they test the hit depths in their shaders,
//! and the picture and the weather layer are still the raster compositor's. The valley's
//! terrain, binned to the tiles, gives the bytes of every tile testing every triangle, and its
//! later samples, drawn with the first sample's bins, the bytes of binning each anew.

use super::*;
use crate::compare::{Tolerance, compare};
use crate::gpu::passes::edge_batch::FORCE_ONE_BY_ONE;
use crate::gpu::passes::fog_compute::Compositor;
use crate::gpu::passes::scene_compute::{FORCE_BINNED_TILES_MAX, FORCE_REBIN, fills_depth_target};
use crate::output::exr::f16_bits_to_f32;
use crate::playback::Playback;
use crate::scene::{Camera, FixedCamera, Walker, WalkerPath, Weather};

#[test]
fn the_compute_scene_draws_the_raster_picture() {
    let Some(ctx) = context() else { return };
    let mut scene = Scene::default();
    scene.fluid.grid = 48;
    // Low and close, so the floor's triangles cross the near plane and pillars overlap.
    scene.camera = Camera::Fixed(FixedCamera {
        position: [0.5, 1.4, 7.0],
        target: [0.0, 0.9, 0.0],
        fov_y_deg: 60.0,
    });
    scene.walkers = vec![Walker {
        path: WalkerPath::Timed(vec![(0.0, -2.0, 3.0), (3.0, 2.0, 3.0)]),
        color: [0.8, 0.2, 0.1],
        ..Walker::default()
    }];
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(90, || {});
    let inputs = playback.frame_inputs(&state);
    assert!(!inputs.capsules.is_empty());

    let (width, height) = (192, 108);
    let config = |compositor| fog_config((width, height), compositor, Readback::default());
    // The raster compositor draws the scene with the raster pipeline and tests the flames
    // against its depth target; the compute one draws it in compute and reads its hit depths.
    let mut raster_renderer = renderer_for(&ctx, &scene, &config(Compositor::Raster));
    assert!(!raster_renderer.scene_in_compute());
    let raster = render(&mut raster_renderer, &inputs);
    let mut renderer = renderer_for(&ctx, &scene, &config(Compositor::Compute));
    assert!(renderer.scene_in_compute());
    let compute = render(&mut renderer, &inputs);
    let again = render(&mut renderer, &inputs);
    assert_eq!(
        compute.rgba8, again.rgba8,
        "the compute scene renders the same bytes twice"
    );

    assert_within_default_tolerance(&raster, &compute);

    // The walker is drawn by the compute pass too: without its capsules the picture changes.
    let without = render(
        &mut renderer,
        &FrameInputs {
            capsules: &[],
            ..inputs
        },
    );
    let changed = pixels_differing(&compute, &without);
    assert!(changed > 20, "the walker changed {changed} pixels");
}

#[test]
fn the_compute_scene_with_weather_draws_the_raster_picture() {
    let Some(ctx) = context() else { return };
    let scene = Scene {
        weather: Some(Weather::default()),
        ..Scene::default()
    };
    // In the fog view nothing after the scene tests a depth target: the copy does not run.
    assert!(!fills_depth_target(View::Fog));
    let maps = flat_maps(&scene, 0.6);
    let frame_index = 30;
    let time_s = frame_index as f64 / 60.0;
    // A storm at its height: rain, debris in the wind, a bolt struck just now, a wet floor
    // (the reflection's mirrored hall, flames and bolt), seen low across the hall.
    let storm = WeatherFrame {
        fog_density: 0.012,
        gloom: 0.4,
        rain: 1.0,
        wetness: 1.0,
        flash: 0.3,
        wind_world_per_s: [9.0, 1.0],
        drift_world: [0.4, 0.1],
        last_strike: Some((1, time_s - 0.05)),
        ..clear_weather()
    };
    let camera = CameraPose {
        eye_world: [0.0, 4.8, 12.5],
        target_world: [0.0, 1.4, -4.0],
        fov_y_deg: 55.0,
    };
    let inputs = FrameInputs {
        weather: Some(storm),
        ..seen_from(&scene, &maps, frame_index, camera)
    };
    let layers = Readback {
        linear_f16: false,
        fog_layer_f16: false,
        weather_layer_f16: true,
    };
    let config = |compositor| fog_config((192, 108), compositor, layers);
    let mut raster_renderer = renderer_for(&ctx, &scene, &config(Compositor::Raster));
    let raster = render(&mut raster_renderer, &inputs);
    let mut renderer = renderer_for(&ctx, &scene, &config(Compositor::Compute));
    assert!(renderer.scene_in_compute());
    let compute = render(&mut renderer, &inputs);

    assert_within_default_tolerance(&raster, &compute);

    // The weather layer: the same drops and bolt, hidden behind the same pillars.
    let alphas = |frame: &Frame| -> Vec<f32> {
        let bits = frame.weather_f16.as_ref().expect("the weather layer");
        bits.chunks_exact(4)
            .map(|p| f16_bits_to_f32(p[3]))
            .collect()
    };
    let (raster_alpha, compute_alpha) = (alphas(&raster), alphas(&compute));
    let covered = raster_alpha.iter().filter(|&&a| a > 0.02).count();
    assert!(
        covered > 200,
        "the storm covers {covered} pixels of the layer"
    );
    let differing = raster_alpha
        .iter()
        .zip(&compute_alpha)
        .filter(|(a, b)| (*a - *b).abs() > 0.05)
        .count();
    assert!(
        differing * 100 <= covered,
        "{differing} of {covered} covered pixels of the weather layer differ"
    );
}

/// The raster and compute compositors' frames within the goldens' default tolerance: they
/// differ by half-float rounding, and pixel centres on an edge two faces share may fall to the
/// other face.
fn assert_within_default_tolerance(raster: &Frame, compute: &Frame) {
    let seen = compare(&image(raster), &image(compute), &Tolerance::DEFAULT);
    assert!(
        seen.passed && seen.mean_abs_diff < 0.5 && seen.ssim > 0.995,
        "{} px over 8 levels ({:.4} %), mean {:.3}, SSIM {:.5}",
        seen.pixels_over,
        seen.fraction_over * 100.0,
        seen.mean_abs_diff,
        seen.ssim
    );
}

/// The valley (scenes/valley.ron, a terrain of some 72,000 triangles): each tile tests only the
/// triangles binned to it, yet the picture is to the byte that of every tile testing every
/// triangle (no triangle binned) and of binning only the triangles of one tile, and the raster
/// pass's within rounding.
#[test]
fn the_compute_scene_bins_a_terrain_to_the_same_bytes() {
    let Some(ctx) = context() else { return };
    let scene = valley();
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(30, || {});
    let inputs = playback.frame_inputs(&state);

    let readback = LINEAR_TOO;
    let config = |compositor| fog_config((256, 144), compositor, readback);
    let compute_with = |binned_tiles_max| {
        FORCE_BINNED_TILES_MAX.set(binned_tiles_max);
        let mut renderer = renderer_for(&ctx, &scene, &config(Compositor::Compute));
        FORCE_BINNED_TILES_MAX.set(None);
        assert!(renderer.scene_in_compute());
        render(&mut renderer, &inputs)
    };
    let binned = compute_with(None);
    for binned_tiles_max in [0, 1] {
        let other = compute_with(Some(binned_tiles_max));
        assert_eq!(
            (&binned.rgba8[..], &binned.linear_f16),
            (&other.rgba8[..], &other.linear_f16),
            "binning up to {binned_tiles_max} tiles a triangle changed the picture"
        );
    }

    let raster = render(
        &mut renderer_for(&ctx, &scene, &config(Compositor::Raster)),
        &inputs,
    );
    assert_within_default_tolerance(&raster, &binned);
    // The land is drawn, in many shades.
    let shades = distinct_pixels(&binned);
    assert!(shades > 1000, "{shades} distinct pixels");
}

/// The later samples of one moment draw with the first sample's bins (a sub-pixel offset stays
/// inside each triangle's box): eight samples a pixel, and the default's eight at the edges,
/// give the valley's terrain the bytes of binning every sample anew.
#[test]
fn later_samples_draw_with_the_first_samples_bins_to_the_same_bytes() {
    let Some(ctx) = context() else { return };
    let mut scene = valley();
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(30, || {});
    let inputs = playback.frame_inputs(&state);
    let readback = LINEAR_TOO;
    let config = fog_config((256, 144), Compositor::Compute, readback);
    for samples in [Some(8), None] {
        scene.output.samples = samples;
        // The default's later samples one by one: the batch draws them with sample 0's bins.
        let with_rebin = |rebin: bool| {
            FORCE_REBIN.set(rebin);
            FORCE_ONE_BY_ONE.set(true);
            let mut renderer = renderer_for(&ctx, &scene, &config);
            FORCE_ONE_BY_ONE.set(false);
            FORCE_REBIN.set(false);
            render(&mut renderer, &inputs)
        };
        let shared = with_rebin(false);
        let rebinned = with_rebin(true);
        assert_eq!(
            (&shared.rgba8[..], &shared.linear_f16),
            (&rebinned.rgba8[..], &rebinned.linear_f16),
            "samples {samples:?}: the shared bins changed the picture"
        );
    }
}

/// scenes/valley.ron, as shipped.
fn valley() -> Scene {
    let path = std::path::Path::new("scenes/valley.ron");
    crate::scene::load(Some(path), &[])
        .unwrap_or_else(|e| panic!("scenes/valley.ron does not load: {e:?}"))
        .scene
}

/// The 8-bit frame and the linear picture: bytes compared before the sRGB rounding too.
const LINEAR_TOO: Readback = Readback {
    linear_f16: true,
    fog_layer_f16: false,
    weather_layer_f16: false,
};
