//! The `scene` pass drawn in compute against the raster pass: the same picture (the hall, the
//! ball, a walker, the fires hidden behind the pillars, and the fog over the depths it leaves)
//! within the rounding of sampling an edge, from a camera that puts the floor through the near
//! plane.

use super::*;
use crate::compare::{Tolerance, compare};
use crate::gpu::passes::fog_compute::Compositor;
use crate::playback::Playback;
use crate::scene::{Camera, FixedCamera, Walker, WalkerPath};

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

    // The two fog compositors differ by half-float rounding, and pixel centres on an edge two
    // faces share may fall to the other face: the goldens' default tolerance holds.
    let seen = compare(&image(&raster), &image(&compute), &Tolerance::DEFAULT);
    assert!(
        seen.passed && seen.mean_abs_diff < 0.5 && seen.ssim > 0.995,
        "{} px over 8 levels ({:.4} %), mean {:.3}, SSIM {:.5}",
        seen.pixels_over,
        seen.fraction_over * 100.0,
        seen.mean_abs_diff,
        seen.ssim
    );

    // The walker is drawn by the compute pass too: without its capsules the picture changes.
    let without = render(
        &mut renderer,
        &FrameInputs {
            capsules: &[],
            ..inputs
        },
    );
    let changed = compute
        .rgba8
        .chunks_exact(4)
        .zip(without.rgba8.chunks_exact(4))
        .filter(|(a, b)| a != b)
        .count();
    assert!(changed > 20, "the walker changed {changed} pixels");
}
