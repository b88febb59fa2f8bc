//! GPU tests of `lights.ambient.ground`: the ambient light from below. Surfaces facing up keep
//! the light from above; the rest get a blend toward the ground's colour by the way they face.
//! Like the other GPU tests they are skipped (saying so) without an adapter, and fail under CI.

use super::{context, flat_maps, inputs, render, renderer_with};
use crate::frame::{Frame, View};
use crate::gpu::{Compositor, GpuContext};
use crate::scene::Scene;

const WIDTH: u32 = 64;
const HEIGHT: u32 = 36;

/// The default hall without fog, lit by the ambient light alone, with `ground`.
fn frame(ctx: &GpuContext, ground: Option<[f32; 3]>) -> Frame {
    let mut scene = Scene::default();
    scene.lights.ambient.ground = ground;
    scene.lights.ambient.intensity = 1.0;
    scene.lights.directional.intensity = 0.0;
    scene.lights.ball.intensity = 0.0;
    scene.lights.ball.flicker = 0.0;
    scene.distance_fog.max_opacity = 0.0;
    let mut renderer = renderer_with(ctx, &scene, WIDTH, HEIGHT, View::Fog, Compositor::Raster);
    let maps = flat_maps(&scene, 0.0);
    render(&mut renderer, &inputs(&scene, &maps, 0))
}

/// Sum of one channel (0 red, 1 green, 2 blue) over the picture.
fn channel_sum(frame: &Frame, channel: usize) -> u64 {
    frame
        .rgba8
        .chunks_exact(4)
        .map(|p| u64::from(p[channel]))
        .sum()
}

#[test]
fn a_red_ground_reddens_what_faces_sideways_and_leaves_the_floor() {
    let Some(ctx) = context() else { return };
    let plain = frame(&ctx, None);
    let red = frame(&ctx, Some([1.0, 0.0, 0.0]));
    // The pillars' sides take the ground's red, and lose green and blue to it.
    assert!(
        channel_sum(&red, 0) > channel_sum(&plain, 0) + 200,
        "red {} against {}",
        channel_sum(&red, 0),
        channel_sum(&plain, 0)
    );
    let mut sideways = 0;
    for (p, q) in plain.rgba8.chunks_exact(4).zip(red.rgba8.chunks_exact(4)) {
        // No pixel gains green or blue: the ground has none.
        assert!(q[1] <= p[1].saturating_add(1) && q[2] <= p[2].saturating_add(1));
        if q[0] > p[0].saturating_add(1) {
            sideways += 1;
        }
    }
    assert!(
        sideways > 20,
        "only {sideways} pixels took the ground's light"
    );
    // The floor faces straight up: it keeps the light from above. The bottom row of the
    // example's view is floor.
    let row = ((HEIGHT - 1) * WIDTH * 4) as usize..(HEIGHT * WIDTH * 4) as usize;
    let apart = plain.rgba8[row.clone()]
        .iter()
        .zip(&red.rgba8[row])
        .map(|(a, b)| a.abs_diff(*b))
        .max()
        .unwrap_or(0);
    assert!(apart <= 1, "the floor changed by {apart} levels");
}
