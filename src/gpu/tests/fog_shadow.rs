//! GPU tests of the fog's shadow on its own light (`passes/fog_shadow.rs`): a dense bank
//! between the moon (or a fire) and thin fog dims the light that thin fog scatters, in every
//! compositor, and the moonlight on the floor behind it, only when the medium shadows itself.
//! Like the other GPU tests these are skipped (saying so) without an adapter, and fail under CI.

use super::{
    context, flat_maps, floats, fog_config, inputs, mean_brightness, render, renderer_for,
};
use crate::frame::{CameraPose, FrameInputs};
use crate::gpu::{Compositor, GpuContext, Readback};
use crate::scene::{FogMedium, Phase, PhysicalMedium, Scene};

const WIDTH: u32 = 64;
const HEIGHT: u32 = 36;

/// The default hall lit by a low moon alone (it travels toward −z, so it shines from +z), with
/// a physical medium that shadows itself or not.
fn moonlit(self_shadowing: bool) -> Scene {
    let mut scene = Scene::default();
    scene.fog.medium = FogMedium::Physical(PhysicalMedium {
        phase: Phase::HenyeyGreenstein(0.3),
        self_shadowing,
        ..PhysicalMedium::default()
    });
    scene.lights.ambient.intensity = 0.0;
    scene.lights.ball.intensity = 0.0;
    scene.lights.ball.flicker = 0.0;
    scene.lights.directional.pitch_rad = -0.35;
    scene.lights.directional.yaw_rad = 0.0;
    scene.lights.directional.intensity = 2.0;
    scene.distance_fog.max_opacity = 0.0;
    // A haze the moon reaches through, where the bank is not.
    scene.fog.sigma = 1.5;
    scene
}

/// Fog of `density` everywhere, with a dense bank across the square from z = 1.5 to z = 5
/// (world) when `bank`: between the moon and the thin fog and floor at z < 1.
fn maps(scene: &Scene, density: f32, bank: bool) -> (Vec<u8>, Vec<u8>) {
    let (mut fluid, mut lift) = flat_maps(scene, density);
    if bank {
        let grid = scene.fluid.grid as usize;
        let cell_world = scene.fog.area / grid as f32;
        for row in 0..grid {
            let z_world = -0.5 * scene.fog.area + (row as f32 + 0.5) * cell_world;
            if (1.5..=5.0).contains(&z_world) {
                for column in 0..grid {
                    // As dense as the maps hold, and thrown up to its full height.
                    fluid[(row * grid + column) * 4] = 255;
                    lift[(row * grid + column) * 4] = 255;
                }
            }
        }
    }
    (fluid, lift)
}

/// The frame's inputs seen from above the fog at z < 1, looking down on it and the floor: the
/// picture's lower middle never looks through the bank.
fn looking_down<'a>(scene: &Scene, maps: &'a (Vec<u8>, Vec<u8>)) -> FrameInputs<'a> {
    let mut at = inputs(scene, maps, 0);
    at.camera = CameraPose {
        eye_world: [0.0, 6.0, -3.0],
        target_world: [0.0, 0.3, 1.0],
        fov_y_deg: 40.0,
    };
    at
}

/// The light the thin fog at z < 1 sends toward the eye, with and without the bank: the fog
/// layer's colour (R + G + B, linear) over its opacity, summed over the picture's lower middle,
/// which looks down on that fog and never through the bank.
fn thin_fog_light(ctx: &GpuContext, scene: &Scene, compositor: Compositor) -> [f32; 2] {
    let readback = Readback {
        fog_layer_f16: true,
        ..Readback::default()
    };
    let config = fog_config((WIDTH, HEIGHT), compositor, readback);
    let mut renderer = renderer_for(ctx, scene, &config);
    [false, true].map(|bank| {
        let maps = maps(scene, 0.6, bank);
        let frame = render(&mut renderer, &looking_down(scene, &maps));
        let layer = floats(frame.fog_f16.as_deref().expect("the fog layer"));
        let (mut light, mut opacity) = (0.0, 0.0);
        for y in HEIGHT * 6 / 10..HEIGHT * 19 / 20 {
            for x in WIDTH / 4..WIDTH * 3 / 4 {
                let i = ((y * WIDTH + x) * 4) as usize;
                light += layer[i] + layer[i + 1] + layer[i + 2];
                opacity += layer[i + 3];
            }
        }
        assert!(opacity > 1.0, "{compositor:?}: no fog in the probe");
        light / opacity
    })
}

#[test]
fn a_dense_bank_dims_the_moonlight_on_the_thin_fog_behind_it() {
    let Some(ctx) = context() else { return };
    assert_the_bank_dims_the_thin_fog(&ctx, moonlit);
}

/// In every compositor, the bank out of sight changes nothing on the thin fog without
/// self-shadowing, and with it the light that crossed the bank arrives dimmer. `lit` gives the
/// scene, its fog shadowing itself or not.
fn assert_the_bank_dims_the_thin_fog(ctx: &GpuContext, lit: fn(bool) -> Scene) {
    for compositor in [
        Compositor::Raster,
        Compositor::Compute,
        Compositor::Raymarch { steps: 48 },
    ] {
        let [open, banked] = thin_fog_light(ctx, &lit(false), compositor);
        assert!(
            (open - banked).abs() <= 1e-3 * open,
            "{compositor:?}: unshadowed, the bank moved the thin fog's light from {open:.4} to {banked:.4}"
        );
        let [open, banked] = thin_fog_light(ctx, &lit(true), compositor);
        assert!(
            banked < 0.7 * open,
            "{compositor:?}: behind the bank the thin fog is {banked:.4}, in the open {open:.4}"
        );
    }
}

#[test]
fn a_dense_bank_shadows_the_floor_behind_it() {
    let Some(ctx) = context() else { return };
    // Clear air but for the bank: the lower middle sees bare floor, lit by the moon.
    let floor_brightness = |scene: &Scene, bank: bool| {
        let maps = maps(scene, 0.0, bank);
        let config = fog_config((WIDTH, HEIGHT), Compositor::Compute, Readback::default());
        let frame = render(
            &mut renderer_for(&ctx, scene, &config),
            &looking_down(scene, &maps),
        );
        mean_brightness(
            &frame,
            WIDTH / 4,
            HEIGHT * 6 / 10,
            WIDTH * 3 / 4,
            HEIGHT * 19 / 20,
        )
    };
    let unshadowed = moonlit(false);
    let (open, banked) = (
        floor_brightness(&unshadowed, false),
        floor_brightness(&unshadowed, true),
    );
    assert_eq!(open, banked, "unshadowed, the bank changed the floor");
    let shadowed = moonlit(true);
    let (open, banked) = (
        floor_brightness(&shadowed, false),
        floor_brightness(&shadowed, true),
    );
    assert!(
        banked + 20.0 < open,
        "the floor behind the bank is {banked:.1}, in the open {open:.1}"
    );
}

/// The hall lit by one steady fire alone, beyond the bank (z = 8) from the thin fog at z < 1.
fn fire_lit(self_shadowing: bool) -> Scene {
    let mut scene = moonlit(self_shadowing);
    scene.lights.directional.intensity = 0.0;
    scene.fires = vec![crate::scene::Fire {
        position: [0.0, 1.0, 8.0],
        light_intensity: 3.0,
        light_range: 14.0,
        flicker: 0.0,
        ..crate::scene::Fire::default()
    }];
    scene
}

#[test]
fn a_dense_bank_dims_a_fires_light_on_the_thin_fog_behind_it() {
    let Some(ctx) = context() else { return };
    assert_the_bank_dims_the_thin_fog(&ctx, fire_lit);
}

/// `--stats` times the `fog_shadow` pass as itself. On lavapipe each pass timestamp was written
/// at the next one, so the grid's march (tens of milliseconds a frame there) showed under the
/// `fire_flicker` pass before it, and the `fog_shadow` pass took next to nothing
/// (`timing.rs` flushes each mark on a CPU adapter now). The grid marches every cell toward
/// the moon, the ball and each fire; the flicker works out a few numbers a fire.
#[test]
fn the_fog_shadow_pass_is_timed_as_itself() {
    let Some(ctx) = context() else { return };
    // The shipped temple's five fires, so the `fire_flicker` pass runs just before.
    let scene = Scene {
        fires: super::shipped_temple().fires,
        ..moonlit(true)
    };
    let config = fog_config((WIDTH, HEIGHT), Compositor::Raster, Readback::default());
    let mut renderer = renderer_for(&ctx, &scene, &config);
    let maps = maps(&scene, 0.6, true);
    for frame_index in 0..6 {
        let mut at = looking_down(&scene, &maps);
        at.frame_index = frame_index;
        render(&mut renderer, &at);
    }
    let times = renderer.times();
    if !times.timestamps {
        return;
    }
    let seconds_of = |name: &str| {
        let pass = times.passes.iter().find(|(seen, _)| *seen == name);
        pass.unwrap_or_else(|| panic!("no `{name}` pass in {:?}", times.passes))
            .1
    };
    let (flicker_s, shadow_s) = (seconds_of("fire_flicker"), seconds_of("fog_shadow"));
    // Fixed, the grid takes several times the flicker's time; misplaced, a hundredth of it.
    assert!(
        shadow_s > 0.25 * flicker_s,
        "fog_shadow {shadow_s:.6} s against fire_flicker {flicker_s:.6} s: {:?}",
        times.passes
    );
}
