//! GPU tests of the moon's shadows (`lights.directional.shadows`): a pillar's shadow on the
//! floor, drawn alike by the raster `scene` pass and the compute one, with open floor unchanged;
//! the pillar's shaft cut through the physical fog medium with every compositor, while the seed
//! medium's fog ignores the moon; and the shadow machinery changing nothing where the moon has
//! no light. The people's capsules are casters too.
//!
//! The moon is low (pitch −0.5) on the hall's +x side and travels along −x, so the pillar at
//! (3.5, 3.5), 3.5 units tall with its capital, throws a shadow about 6.4 units long along
//! z = 3.5 toward −x. The other lights are dimmed so the moon's share shows. Like the other GPU
//! tests they are skipped (saying so) without an adapter, and fail under CI.

use super::{context, flat_maps, fog_config, render_once, seen_from, sum_rgb_3x3};
use crate::frame::{CameraPose, Frame};
use crate::gpu::{Compositor, GpuContext, Readback};
use crate::output::exr::f16_bits_to_f32;
use crate::scene::{FogMedium, Phase, PhysicalMedium, Scene};

const SIZE: (u32, u32) = (96, 54);

/// On the floor in the pillar's shadow, 2.3 units behind it (the shadow's top is 2.2 units up
/// there, above the fog).
const SHADOWED_WORLD: [f32; 3] = [1.2, 0.0, 3.5];
/// On the floor beside the shadow, with nothing between it and the moon.
const LIT_WORLD: [f32; 3] = [1.2, 0.0, 5.4];

/// The default hall lit by a low moon from +x (with or without `shadows`), the other lights
/// dim, the ball out of the way, the fog in `medium`.
fn moon_scene(shadows: bool, medium: FogMedium) -> Scene {
    let mut scene = Scene::default();
    let moon = &mut scene.lights.directional;
    (moon.pitch_rad, moon.yaw_rad) = (-0.5, std::f32::consts::FRAC_PI_2);
    moon.intensity = 1.5;
    moon.shadows = shadows;
    scene.lights.ambient.intensity = 0.15;
    scene.lights.ball.intensity = 0.0;
    scene.fog.glow = 0.0;
    scene.fog.medium = medium;
    scene.ball.start = [-6.0, -6.0];
    scene
}

fn physical() -> FogMedium {
    FogMedium::Physical(PhysicalMedium {
        phase: Phase::HenyeyGreenstein(0.0),
        ..PhysicalMedium::default()
    })
}

fn camera() -> CameraPose {
    CameraPose {
        // From high above, so a pixel's ray crosses the fog over one spot of the floor.
        eye_world: [1.5, 11.0, 6.5],
        target_world: [1.5, 0.0, 4.2],
        fov_y_deg: 50.0,
    }
}

/// The pixel `pos_world` lands on.
fn pixel_of(pos_world: [f32; 3]) -> (u32, u32) {
    super::pixel_of(&camera(), SIZE, pos_world)
}

/// A frame of `scene` over fog at rest at `density` everywhere, seen from [`camera`].
fn render(
    ctx: &GpuContext,
    scene: &Scene,
    (compositor, density, readback): (Compositor, f32, Readback),
) -> Frame {
    let maps = flat_maps(scene, density);
    let at = seen_from(scene, &maps, 30, camera());
    render_once(ctx, scene, &fog_config(SIZE, compositor, readback), &at)
}

/// Mean R + G + B of the 8-bit frame over the 3×3 pixels round `pos_world`'s.
fn brightness(frame: &Frame, pos_world: [f32; 3]) -> f64 {
    sum_rgb_3x3(&frame.rgba8, frame.width, pixel_of(pos_world), f64::from) / 9.0
}

/// Mean R + G + B of the fog layer alone (linear, premultiplied) over the 3×3 pixels round
/// `pos_world`'s.
fn fog_light(frame: &Frame, pos_world: [f32; 3]) -> f64 {
    let layer = frame.fog_f16.as_ref().expect("the fog layer");
    let half = |bits| f64::from(f16_bits_to_f32(bits));
    sum_rgb_3x3(layer, frame.width, pixel_of(pos_world), half) / 9.0
}

/// The fog layer read back beside the picture.
const FOG_LAYER: Readback = Readback {
    linear_f16: false,
    fog_layer_f16: true,
    weather_layer_f16: false,
};

#[test]
fn a_pillar_shadows_the_floor_the_moon_lights_in_both_scene_passes() {
    let Some(ctx) = context() else { return };
    // The raster picture draws the hall with the raster `scene` pass, the compute one with
    // scene_compute.wgsl: both shade through `shade_surface`.
    for compositor in [Compositor::Raster, Compositor::Compute] {
        let bare = (compositor, 0.0, Readback::default());
        let shadowed = render(&ctx, &moon_scene(true, FogMedium::Seed), bare);
        let open = render(&ctx, &moon_scene(false, FogMedium::Seed), bare);
        let in_shadow = brightness(&shadowed, SHADOWED_WORLD);
        let there_open = brightness(&open, SHADOWED_WORLD);
        assert!(
            there_open > in_shadow + 30.0,
            "{compositor:?}: the floor behind the pillar is {in_shadow:.1} with moon shadows, {there_open:.1} without"
        );
        // Beside the shadow the floor is lit exactly as without shadows.
        let (beside, beside_open) = (
            brightness(&shadowed, LIT_WORLD),
            brightness(&open, LIT_WORLD),
        );
        assert!(
            (beside - beside_open).abs() <= 1.0,
            "{compositor:?}: the shadow map changed open floor: {beside:.1} with, {beside_open:.1} without"
        );
        assert!(
            beside > in_shadow + 30.0,
            "{compositor:?}: beside the shadow {beside:.1}, in it {in_shadow:.1}"
        );
    }
}

#[test]
fn the_pillar_cuts_a_shaft_through_the_physical_fog_with_every_compositor() {
    let Some(ctx) = context() else { return };
    let compositors = [
        Compositor::Raster,
        Compositor::Compute,
        Compositor::Raymarch { steps: 48 },
    ];
    for compositor in compositors {
        let setup = (compositor, 0.6, FOG_LAYER);
        let shadowed = render(&ctx, &moon_scene(true, physical()), setup);
        let open = render(&ctx, &moon_scene(false, physical()), setup);
        let (in_shadow, beside) = (
            fog_light(&shadowed, SHADOWED_WORLD),
            fog_light(&shadowed, LIT_WORLD),
        );
        assert!(
            beside > in_shadow * 1.3,
            "{compositor:?}: the fog beside the shaft ({beside:.3}) is not clearly brighter than the column in the pillar's shadow ({in_shadow:.3})"
        );
        let there_open = fog_light(&open, SHADOWED_WORLD);
        assert!(
            there_open > in_shadow * 1.3,
            "{compositor:?}: without moon shadows the column ({there_open:.3}) is no brighter than with them ({in_shadow:.3})"
        );
        let beside_open = fog_light(&open, LIT_WORLD);
        assert!(
            (beside - beside_open).abs() <= 0.02 * beside_open,
            "{compositor:?}: the lit fog changed with moon shadows: {beside:.3} with, {beside_open:.3} without"
        );
    }
}

#[test]
fn the_seed_medium_s_fog_ignores_the_moon_s_shadows() {
    let Some(ctx) = context() else { return };
    let setup = (Compositor::Raster, 0.6, FOG_LAYER);
    let shadowed = render(&ctx, &moon_scene(true, FogMedium::Seed), setup);
    let open = render(&ctx, &moon_scene(false, FogMedium::Seed), setup);
    // The fog itself is the same to the bit; the floor under it is not.
    assert_eq!(shadowed.fog_f16, open.fog_f16, "the seed fog read the moon");
    assert!(
        shadowed.rgba8 != open.rgba8,
        "the floor under the seed fog shows no moon shadow"
    );
}

#[test]
fn moon_shadows_of_a_moon_without_light_change_no_byte() {
    let Some(ctx) = context() else { return };
    for medium in [FogMedium::Seed, physical()] {
        let dark = |shadows| {
            let mut scene = moon_scene(shadows, medium);
            scene.lights.directional.intensity = 0.0;
            scene
        };
        let setup = (Compositor::Raster, 0.6, Readback::default());
        let on = render(&ctx, &dark(true), setup);
        let off = render(&ctx, &dark(false), setup);
        assert!(
            on.rgba8 == off.rgba8,
            "{medium:?}: shadows of a moon without light changed the picture"
        );
    }
}

#[test]
fn shadows_false_is_the_scene_without_the_field() {
    let load = |text: &str| {
        let source = crate::scene::diagnostics::SourceText::new("test.ron", text);
        crate::scene::load::load_source(source, &[])
            .expect("the test scene loads")
            .scene
    };
    let spelt = load("(lights: (directional: (pitch_rad: -0.5, shadows: false)))");
    let plain = load("(lights: (directional: (pitch_rad: -0.5)))");
    assert_eq!(spelt, plain);
    assert_eq!(spelt.content_hash(), plain.content_hash());
    let Some(ctx) = context() else { return };
    let setup = (Compositor::Raster, 0.6, Readback::default());
    assert!(render(&ctx, &spelt, setup).rgba8 == render(&ctx, &plain, setup).rgba8);
}

/// A person standing between the moon and [`LIT_WORLD`]: a capsule from the shins to the
/// shoulders, 0.3 units round, 1.2 units toward the moon (the moon's ray from that spot passes
/// 0.65 units up there).
const PERSON: crate::frame::Capsule = crate::frame::Capsule {
    a_world: [2.4, 0.2, 5.4],
    b_world: [2.4, 1.5, 5.4],
    radius_world: 0.3,
    albedo_linear: [0.3, 0.2, 0.15],
};

/// The people's capsules are in the moon's map too: a person shadows the floor behind them, and
/// the physical fog over it.
#[test]
fn a_person_casts_a_moon_shadow() {
    let Some(ctx) = context() else { return };
    let mut scene = moon_scene(true, physical());
    scene.walkers = vec![crate::scene::Walker::default()];
    let frame = |scene: &Scene, capsules: &[crate::frame::Capsule], readback| {
        let maps = flat_maps(scene, 0.6);
        let at = crate::frame::FrameInputs {
            capsules,
            ..seen_from(scene, &maps, 30, camera())
        };
        let config = fog_config(SIZE, Compositor::Compute, readback);
        render_once(&ctx, scene, &config, &at)
    };
    let with = frame(&scene, &[PERSON], FOG_LAYER);
    let without = frame(&scene, &[], FOG_LAYER);
    let (fog_with, fog_without) = (fog_light(&with, LIT_WORLD), fog_light(&without, LIT_WORLD));
    assert!(
        fog_without > fog_with * 1.15,
        "the fog behind the person ({fog_with:.3}) is not darker than without them ({fog_without:.3})"
    );
    let mut clear = scene.clone();
    clear.fog.sigma = 0.0;
    let (shaded, lit) = (
        brightness(&frame(&clear, &[PERSON], Readback::default()), LIT_WORLD),
        brightness(&frame(&clear, &[], Readback::default()), LIT_WORLD),
    );
    assert!(
        lit > shaded + 30.0,
        "the floor behind the person ({shaded:.1}) is not darker than without them ({lit:.1})"
    );
}
