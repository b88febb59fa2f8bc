//! The walkers on the GPU: a tiny frame shows the walker where it stands (its pixels differ
//! from the same frame without it), in front of the fog, and renders to the same bytes twice.

use super::*;
use crate::gpu::camera::clip_from_world;
use crate::playback::Playback;
use crate::scene::{Camera, FixedCamera, Walker, WalkerPath};
use glam::Vec4;

#[test]
fn a_walker_shows_where_it_stands_and_renders_deterministically() {
    let Some(ctx) = context() else { return };
    let mut scene = Scene::default();
    scene.fluid.grid = 48;
    scene.ball.start = [6.0, -6.5];
    scene.ball.script = Vec::new();
    scene.camera = Camera::Fixed(FixedCamera {
        position: [0.0, 3.0, 8.0],
        target: [0.0, 0.9, 0.0],
        fov_y_deg: 50.0,
    });
    scene.walkers = vec![Walker {
        path: WalkerPath::Timed(vec![(0.0, -2.0, 2.0), (3.0, 2.0, 2.0)]),
        color: [0.8, 0.2, 0.1],
        ..Walker::default()
    }];
    let (width, height) = (160, 90);
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(90, || {});
    let inputs = playback.frame_inputs(&state);
    assert_eq!(inputs.capsules.len(), crate::people::CAPSULES_PER_WALKER);
    let mut renderer = renderer(&ctx, &scene, width, height, View::Fog);
    let with = render(&mut renderer, &inputs);
    let again = render(&mut renderer, &inputs);
    assert_eq!(
        with.rgba8, again.rgba8,
        "the same frame renders the same bytes"
    );
    let without = render(
        &mut renderer,
        &FrameInputs {
            capsules: &[],
            ..inputs
        },
    );

    // The walker's chest (1.2 up from the floor where it stands at 1.5 s: x = 0, z = 2).
    let [x, z] = state.walkers_pos_world[0];
    assert!(x.abs() < 1e-5 && (z - 2.0).abs() < 1e-5, "{x}, {z}");
    let clip =
        clip_from_world(&inputs.camera, width as f32 / height as f32) * Vec4::new(x, 1.2, z, 1.0);
    let px = ((clip.x / clip.w * 0.5 + 0.5) * width as f32) as i32;
    let py = ((0.5 - clip.y / clip.w * 0.5) * height as f32) as i32;
    let differs_at = |dx: i32, dy: i32| {
        let i = (((py + dy) * width as i32 + px + dx) * 4) as usize;
        with.rgba8[i..i + 3] != without.rgba8[i..i + 3]
    };
    let around: Vec<(i32, i32)> = (-1..=1)
        .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
        .collect();
    let differing = around
        .iter()
        .filter(|&&(dx, dy)| differs_at(dx, dy))
        .count();
    assert_eq!(
        differing,
        around.len(),
        "the walker covers its spot ({px}, {py})"
    );
    // Redder there than the fog alone: its clothes, seen through the fog.
    let i = ((py * width as i32 + px) * 4) as usize;
    let redness = |f: &Frame| i32::from(f.rgba8[i]) - i32::from(f.rgba8[i + 2]);
    assert!(
        redness(&with) > redness(&without) + 10,
        "{} against {}",
        redness(&with),
        redness(&without)
    );
    // And far from it nothing changed.
    let corner = (width as usize * 4) * 5 + 5 * 4;
    assert_eq!(
        with.rgba8[corner..corner + 4],
        without.rgba8[corner..corner + 4]
    );
}
