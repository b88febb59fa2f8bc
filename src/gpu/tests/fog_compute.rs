//! GPU tests of the `fog_compute` pass: it gives the raster `fog` pass's picture (within the
//! golden-image tolerance) in every view, from above the fog and from inside it, and the same
//! bytes every time.
//!
//! The two cannot be byte-identical: the raster pass rounds the picture to half floats after
//! every sheet it blends (48 roundings of a value near 0.1 to 1, each up to 2^-11 relative),
//! while the compute pass sums in 32-bit floats and rounds once; it also stops once the fog is
//! opaque (transmittance under 1/512), and its crossing points are computed along the ray where
//! the rasteriser interpolates them across the quad. After the 8-bit sRGB encode these leave
//! a level or two in dark, fog-covered pixels; a pixel where a sheet meets a pillar or the edge
//! of the fog's square can differ by one sheet.
//!
//! Like the other GPU tests they are skipped (saying so) without an adapter, and fail under CI.

use super::{context, flat_maps, image, inputs, render, renderer_with};
use crate::compare::{Tolerance, compare};
use crate::frame::{CameraPose, Frame, FrameInputs, View};
use crate::gpu::{Compositor, GpuContext};
use crate::playback::Playback;
use crate::scene::Scene;

const WIDTH: u32 = 160;
const HEIGHT: u32 = 90;

/// Pixels of two frames whose largest channel difference exceeds 8 levels.
fn pixels_apart(a: &Frame, b: &Frame) -> usize {
    a.rgba8
        .chunks_exact(4)
        .zip(b.rgba8.chunks_exact(4))
        .filter(|(p, q)| (0..3).any(|c| p[c].abs_diff(q[c]) > 8))
        .count()
}

/// Renders `at` with both compositors, checks the compute picture against the raster one at
/// the golden default tolerance, and checks the fog shows at all in the compute picture (it
/// differs from the same frame without fog in at least `min_fog_pixels`), so the agreement
/// cannot come from both drawing nothing.
fn assert_agree(
    ctx: &GpuContext,
    scene: &Scene,
    view: View,
    at: &FrameInputs<'_>,
    min_fog_pixels: usize,
    case: &str,
) {
    let mut raster = renderer_with(ctx, scene, WIDTH, HEIGHT, view, Compositor::Raster);
    let mut compute = renderer_with(ctx, scene, WIDTH, HEIGHT, view, Compositor::Compute);
    assert_eq!(compute.compositor(), Compositor::Compute);
    let expected = render(&mut raster, at);
    let actual = render(&mut compute, at);
    let comparison = compare(&image(&expected), &image(&actual), &Tolerance::DEFAULT);
    eprintln!(
        "{case}: max diff {} levels, {} pixels over 8, mean {:.4}, SSIM {:.5}",
        comparison.max_channel_diff,
        comparison.pixels_over,
        comparison.mean_abs_diff,
        comparison.ssim
    );
    assert!(
        comparison.passed,
        "{case}: compute and raster compositors differ: {:?}",
        comparison.failures
    );

    let clear_maps = flat_maps(scene, 0.0);
    let mut clear = *at;
    clear.fluid_map = &clear_maps.0;
    clear.lift_map = &clear_maps.1;
    let without_fog = render(&mut compute, &clear);
    let fog_pixels = pixels_apart(&actual, &without_fog);
    assert!(
        fog_pixels >= min_fog_pixels,
        "{case}: the compute pass shows fog in only {fog_pixels} pixels"
    );
}

#[test]
fn compute_agrees_with_raster_in_every_view() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    // One second in: the ball has set off and the air behind it moves.
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(60, || {});
    let at = playback.frame_inputs(&state);
    let pixels = (WIDTH * HEIGHT) as usize;
    for view in View::ALL {
        // The flow view thins the fog to a veil: less of the picture changes with it.
        let min_fog_pixels = if view == View::Flow {
            pixels / 50
        } else {
            pixels / 5
        };
        assert_agree(&ctx, &scene, view, &at, min_fog_pixels, view.name());
    }
}

#[test]
fn compute_agrees_with_raster_with_the_eye_deep_in_the_fog() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let maps = flat_maps(&scene, 2.0);
    let mut at = inputs(&scene, &maps, 45);
    let ball = [scene.ball.start[0], scene.ball.radius, scene.ball.start[1]];
    at.ball_pos_world = ball;
    // The eye in the middle of the sheets, near the ball: rays cross sheets above and below
    // it, some sheets are cut by the near plane, and the fog turns opaque within the picture.
    at.camera = CameraPose {
        eye_world: [ball[0] - 1.5, 1.1, ball[2] + 2.5],
        target_world: ball,
        fov_y_deg: 60.0,
    };
    let pixels = (WIDTH * HEIGHT) as usize;
    assert_agree(&ctx, &scene, View::Fog, &at, pixels / 2, "eye in fog");

    // Looking up from just above the floor: the sheets come in the other order.
    at.camera = CameraPose {
        eye_world: [ball[0] - 3.0, 0.3, ball[2]],
        target_world: [ball[0] + 2.0, 2.5, ball[2]],
        fov_y_deg: 60.0,
    };
    assert_agree(&ctx, &scene, View::Fog, &at, pixels / 5, "looking up");
}

#[test]
fn compute_gives_identical_bytes_every_time() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let maps = flat_maps(&scene, 1.0);
    let at = inputs(&scene, &maps, 30);
    // An odd size, so the last workgroups hang over the picture's edges.
    let (w, h) = (61, 37);
    let mut first = renderer_with(&ctx, &scene, w, h, View::Fog, Compositor::Compute);
    let a = render(&mut first, &at);
    let b = render(&mut first, &at);
    let mut second = renderer_with(&ctx, &scene, w, h, View::Fog, Compositor::Compute);
    let c = render(&mut second, &at);
    assert_eq!(
        (a.width, a.height, a.rgba8.len()),
        (w, h, (w * h * 4) as usize)
    );
    assert!(a == b, "same renderer, same inputs, different bytes");
    assert!(a == c, "new renderer, same inputs, different bytes");
    assert!(
        a.rgba8.chunks_exact(4).all(|p| p[3] == 255),
        "output must be opaque"
    );
}

/// `Auto` picks the compositor by the kind of adapter: compute on a discrete GPU (where
/// fragment work is slow), raster on every other kind. The renderer reports what it picked,
/// and what it reports is what it draws: its frame is byte for byte the frame of a renderer
/// told that compositor outright (the two compositors' frames differ, checked first). Every
/// kind is tried on this adapter by presenting it as that kind, so a swapped or partial
/// mapping fails on any machine, lavapipe included.
#[test]
fn auto_follows_the_adapter() {
    use wgpu::DeviceType;
    let Some(ctx) = context() else { return };
    // The raster sheets one by one on every kind (a CPU adapter's groups move some bits).
    crate::gpu::passes::fog_groups::FORCE_GROUPS.set(Some(false));
    let scene = Scene::default();
    let maps = flat_maps(&scene, 1.0);
    let at = inputs(&scene, &maps, 30);
    let frame_of = |ctx: &GpuContext, compositor| {
        let mut r = renderer_with(ctx, &scene, 64, 36, View::Fog, compositor);
        (r.compositor(), render(&mut r, &at))
    };
    let (raster_reported, raster) = frame_of(&ctx, Compositor::Raster);
    let (compute_reported, compute) = frame_of(&ctx, Compositor::Compute);
    assert_eq!(raster_reported, Compositor::Raster);
    assert_eq!(compute_reported, Compositor::Compute);
    assert!(
        raster != compute,
        "the compositors drew the same bytes: which one ran cannot be told from the frame"
    );

    let cases = [
        (DeviceType::DiscreteGpu, Compositor::Compute),
        (DeviceType::IntegratedGpu, Compositor::Raster),
        (DeviceType::VirtualGpu, Compositor::Raster),
        (DeviceType::Cpu, Compositor::Raster),
        (DeviceType::Other, Compositor::Raster),
    ];
    for (kind, expected) in cases {
        let (reported, frame) = frame_of(&ctx.as_if(kind), Compositor::Auto);
        assert_eq!(reported, expected, "Auto on a {kind:?} adapter");
        let drawn_by = if frame == compute {
            Some(Compositor::Compute)
        } else if frame == raster {
            Some(Compositor::Raster)
        } else {
            None
        };
        assert_eq!(
            drawn_by,
            Some(expected),
            "Auto on a {kind:?} adapter reports {reported:?}; the frame is not that compositor's"
        );
        // A compositor chosen outright is kept whatever the adapter.
        let (fixed, _) = frame_of(&ctx.as_if(kind), Compositor::Raster);
        assert_eq!(fixed, Compositor::Raster, "Raster on a {kind:?} adapter");
    }
}
