//! GPU tests of the fog's ceiling: the raster `fog` pass draws, and the `fog_compute` pass
//! crosses, only the sheets under the highest point the fog reaches this frame
//! (`fog_ceiling_world`), and the raster sheets only over the screen cells where their tiles
//! hold fog (`fog_footprint.rs`). The picture is the same, byte for byte, as with every sheet
//! drawn whole: at rest, with fog lifted by hand, with holes in it, and in the temple's and
//! the moonlit scene's own frames.
//!
//! Like the other GPU tests they are skipped (saying so) without an adapter, and fail under CI.

use super::{context, flat_maps, inputs, render, renderer_with};
use crate::frame::{Frame, FrameInputs, View};
use crate::gpu::passes::fog_footprint::{COLUMNS, ROWS};
use crate::gpu::{Compositor, GpuContext};
use crate::playback::Playback;
use crate::scene::Scene;

const WIDTH: u32 = 160;
const HEIGHT: u32 = 90;

/// `inputs` rendered with the sheets under the ceiling, then with every sheet: the two
/// frames and how many sheets the first drew (the raster pass).
fn both_with(
    ctx: &GpuContext,
    scene: &Scene,
    inputs: &FrameInputs<'_>,
    view: View,
    compositor: Compositor,
) -> (Frame, Frame, u32) {
    let mut cut = renderer_with(ctx, scene, WIDTH, HEIGHT, view, compositor);
    let under_ceiling = render(&mut cut, inputs);
    let drawn = cut.fog_sheets_drawn();
    let mut every = renderer_with(ctx, scene, WIDTH, HEIGHT, view, compositor);
    every.set_every_sheet(true);
    let all = render(&mut every, inputs);
    assert_eq!(every.fog_sheets_drawn(), scene.fog.sheets);
    (under_ceiling, all, drawn)
}

/// [`both_with`] the raster compositor.
fn both(
    ctx: &GpuContext,
    scene: &Scene,
    inputs: &FrameInputs<'_>,
    view: View,
) -> (Frame, Frame, u32) {
    both_with(ctx, scene, inputs, view, Compositor::Raster)
}

/// Fog at rest: about half the sheets (those under the rest top, 1.7 of 3.4) are drawn, and
/// the picture is the same; in the `fluid` view too, whose marker band lies in the fog.
#[test]
fn sheets_above_fog_at_rest_are_left_out_with_the_same_picture() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let maps = flat_maps(&scene, 1.0);
    for view in [View::Fog, View::Fluid] {
        let (cut, all, drawn) = both(&ctx, &scene, &inputs(&scene, &maps, 0), view);
        assert!(
            drawn > 0 && drawn <= scene.fog.sheets / 2 + 2,
            "{view:?}: {drawn} drawn"
        );
        assert!(cut.rgba8 == all.rgba8, "{view:?}: the pictures differ");
    }
}

/// Fog thrown up over a patch of the hall (lift 0.5 there, 0 elsewhere): more sheets are
/// drawn, up to the lifted fog's top, and the picture is still the same; and the lifted fog
/// shows (the picture differs from the one at rest), so the sheets near the ceiling count.
#[test]
fn lifted_fog_raises_the_ceiling_with_the_same_picture() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let rest = flat_maps(&scene, 1.0);
    let mut lifted = rest.clone();
    let grid = scene.fluid.grid as usize;
    for j in grid / 3..grid * 2 / 3 {
        for i in grid / 3..grid * 2 / 3 {
            lifted.1[(j * grid + i) * 4] = 128;
        }
    }
    let (cut, all, drawn) = both(&ctx, &scene, &inputs(&scene, &lifted, 0), View::Fog);
    let (at_rest, _, drawn_at_rest) = both(&ctx, &scene, &inputs(&scene, &rest, 0), View::Fog);
    assert!(
        drawn > drawn_at_rest,
        "{drawn} against {drawn_at_rest} at rest"
    );
    assert!(drawn < scene.fog.sheets, "{drawn} of {}", scene.fog.sheets);
    assert!(cut.rgba8 == all.rgba8, "the pictures differ");
    assert!(cut.rgba8 != at_rest.rgba8, "the lifted fog does not show");
    // The compute compositor crosses the same sheets.
    let compute = Compositor::Compute;
    let (cut, all, _) = both_with(
        &ctx,
        &scene,
        &inputs(&scene, &lifted, 0),
        View::Fog,
        compute,
    );
    assert!(cut.rgba8 == all.rgba8, "compute: the pictures differ");
}

/// Fog in two patches, one of them lifted, and none elsewhere: the sheets draw over part of
/// the screen only (the low ones over the patches, the high ones over the lifted patch), and
/// the picture is the same as with every sheet drawn whole, at full and at half size.
#[test]
fn sheets_drawn_over_their_fog_alone_give_the_same_picture() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let mut patches = flat_maps(&scene, 1.0);
    let grid = scene.fluid.grid as usize;
    for j in 0..grid {
        for i in 0..grid {
            let texel = (j * grid + i) * 4;
            let (in_left, in_right) = (i < grid / 3, i > grid * 2 / 3);
            if !(in_left || in_right) || j < grid / 4 {
                patches.0[texel] = 0;
            }
            if in_right && j > grid / 2 {
                patches.1[texel] = 160;
            }
        }
    }
    let (cut, all, drawn) = both(&ctx, &scene, &inputs(&scene, &patches, 0), View::Fog);
    assert!(cut.rgba8 == all.rgba8, "the pictures differ");
    let mut renderer = renderer_with(&ctx, &scene, WIDTH, HEIGHT, View::Fog, Compositor::Raster);
    render(&mut renderer, &inputs(&scene, &patches, 0));
    let cells = renderer.fog_footprint_cells().expect("scissored draws");
    let whole = drawn * COLUMNS * ROWS;
    assert!(cells > 0 && cells * 2 < whole, "{cells} cells of {whole}");
    // The `fluid` view draws its sheets whole.
    let mut fluid = renderer_with(&ctx, &scene, WIDTH, HEIGHT, View::Fluid, Compositor::Raster);
    render(&mut fluid, &inputs(&scene, &patches, 0));
    assert_eq!(fluid.fog_footprint_cells(), None);
    // At half size the scissors are cut from the half-size target: the same picture too.
    let mut half = scene.clone();
    half.output.fog_resolution = crate::scene::FogResolution::Half;
    let (cut, all, _) = both(&ctx, &half, &inputs(&half, &patches, 0), View::Fog);
    assert!(cut.rgba8 == all.rgba8, "half size: the pictures differ");
}

/// The temple's own frames (the fluid, the ball's blasts, the fires), and the moonlit scene's
/// (the physical medium, whose slabs reach farther): the same bytes.
#[test]
fn temple_frames_are_the_same_under_the_ceiling() {
    let Some(ctx) = context() else { return };
    let moonlit = crate::scene::load(Some(std::path::Path::new("scenes/moonlit.ron")), &[])
        .unwrap_or_else(|e| panic!("moonlit scene: {e}"))
        .scene;
    let mut playback = Playback::new(&moonlit);
    let state = playback.advance_to(150, || {});
    let frame_inputs = playback.frame_inputs(&state);
    let (cut, all, _) = both(&ctx, &moonlit, &frame_inputs, View::Fog);
    assert!(
        cut.rgba8 == all.rgba8,
        "moonlit frame 150: the pictures differ"
    );
    let scene = Scene::default();
    let mut playback = Playback::new(&scene);
    for frame in [0, 45, 90] {
        let state = playback.advance_to(frame, || {});
        let frame_inputs = playback.frame_inputs(&state);
        for compositor in [Compositor::Raster, Compositor::Compute] {
            let (cut, all, drawn) = both_with(&ctx, &scene, &frame_inputs, View::Fog, compositor);
            assert!(
                cut.rgba8 == all.rgba8,
                "{compositor:?} frame {frame}: the pictures differ ({drawn} drawn)"
            );
        }
    }
}
