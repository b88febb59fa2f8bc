//! GPU tests of `fog.shape`: with `DensityHeight` the fluid's density sets how tall the fog's
//! column is, so thin fog stays near the floor, while fog at the rest density looks as it does
//! with the default `Lift` shape.
//!
//! Like the other GPU tests they are skipped (saying so) without an adapter, and fail under CI.

use super::{context, flat_maps, inputs, max_difference, mean_brightness, render, renderer_with};
use crate::frame::{CameraPose, Frame, View};
use crate::gpu::{Compositor, GpuContext};
use crate::scene::{FogShape, Scene};

const WIDTH: u32 = 96;
const HEIGHT: u32 = 54;

/// A frame of fog at `density` everywhere with `shape`, looking level across the hall at 1.2
/// units, below the rest top (1.7) and above where thin fog reaches with `DensityHeight`.
fn frame(ctx: &GpuContext, shape: FogShape, density: f32, compositor: Compositor) -> Frame {
    let mut scene = Scene::default();
    scene.fog.shape = shape;
    let mut renderer = renderer_with(ctx, &scene, WIDTH, HEIGHT, View::Fog, compositor);
    let maps = flat_maps(&scene, density);
    let mut frame_inputs = inputs(&scene, &maps, 0);
    frame_inputs.camera = CameraPose {
        eye_world: [0.0, 1.2, 9.0],
        target_world: [0.0, 1.2, 0.0],
        fov_y_deg: 50.0,
    };
    render(&mut renderer, &frame_inputs)
}

#[test]
fn fog_at_rest_density_looks_the_same_in_both_shapes() {
    let Some(ctx) = context() else { return };
    for compositor in [Compositor::Raster, Compositor::Compute] {
        let lift = frame(&ctx, FogShape::Lift, 1.0, compositor);
        let density_height = frame(&ctx, FogShape::DensityHeight, 1.0, compositor);
        // The column reaches the same top; only the last bit of its float may differ.
        let apart = max_difference(&lift, &density_height);
        assert!(
            apart <= 1,
            "{compositor:?}: rest fog differs by {apart} levels"
        );
    }
}

#[test]
fn thin_fog_stays_low_with_density_height() {
    let Some(ctx) = context() else { return };
    for compositor in [Compositor::Raster, Compositor::Compute] {
        let clear = frame(&ctx, FogShape::Lift, 0.0, compositor);
        let lift = frame(&ctx, FogShape::Lift, 0.35, compositor);
        let low = frame(&ctx, FogShape::DensityHeight, 0.35, compositor);
        // The fog is pale over a dark hall: how much it brightens the band of rows looking
        // level at 1.2 units says how much fog stands that high.
        let (x0, y0, x1, y1) = (16, 22, 80, 32);
        let clear_mean = mean_brightness(&clear, x0, y0, x1, y1);
        let lift_gain = mean_brightness(&lift, x0, y0, x1, y1) - clear_mean;
        let low_gain = mean_brightness(&low, x0, y0, x1, y1) - clear_mean;
        // Looking down at the floor in front, the thin low fog is still there.
        let floor_gain =
            mean_brightness(&low, x0, 46, x1, 54) - mean_brightness(&clear, x0, 46, x1, 54);
        assert!(
            floor_gain > 10.0,
            "{compositor:?}: thin low fog vanished from the floor (gain {floor_gain:.1})"
        );
        assert!(
            lift_gain > 30.0,
            "{compositor:?}: thin tall fog does not show (gain {lift_gain:.1})"
        );
        assert!(
            low_gain < lift_gain * 0.35,
            "{compositor:?}: thin fog is as tall with DensityHeight (gain {low_gain:.1}) as \
             with Lift ({lift_gain:.1})"
        );
    }
}
