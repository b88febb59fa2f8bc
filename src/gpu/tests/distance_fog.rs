//! GPU tests of the distance fog: its height falloff on the picture, low ground at a given
//! distance is fogged more than high ground at the same distance, by the amount the Rust twin
//! of the WGSL says; and a camera far below the base height (or a base height far above
//! everything) gives a fully fogged picture, never NaN or infinity; and the pipelines compiled
//! for the scene's mode and falloff (`DISTANCE_FOG_FORM`) draw the bytes of those that read them.
//!
//! Like the other GPU tests they are skipped (saying so) without an adapter, and fail under CI.

use glam::{Vec3, Vec4};

use super::{
    context, flat_maps, fog_config, inputs, pixels_differing, render, render_once, renderer,
    shipped_temple,
};
use crate::color;
use crate::frame::{CameraPose, Frame, View};
use crate::gpu::camera::clip_from_world;
use crate::gpu::distance_fog::DistanceFogParams;
use crate::gpu::distance_fog::twin::distance_fog_factor;
use crate::gpu::shader_forms::FORCE_DISTANCE_FOG_READ;
use crate::gpu::{Compositor, Readback};
use crate::scene::{Block, DistanceFog, FogMode, Scene};

/// Side of the square test frames, pixels.
const SIZE_PX: u32 = 64;

/// A dark, unlit hall with no pillars and a black wall across the view at z = −19.5 (its
/// front face), reaching from `wall_bottom` up 60 units; white fog.
fn walled_scene(fog: DistanceFog, wall_bottom: f32) -> Scene {
    let mut scene = Scene::default();
    scene.hall.pillars.clear();
    scene.lights.ambient.intensity = 0.0;
    scene.lights.directional.intensity = 0.0;
    scene.lights.ball.intensity = 0.0;
    scene.lights.ball.flicker = 0.0;
    scene.hall.blocks = vec![Block {
        bottom_center: [0.0, wall_bottom, -20.0],
        size: [400.0, 60.0, 1.0],
        color: [0.0; 3],
    }];
    scene.distance_fog = fog;
    scene
}

/// The camera at `eye`, looking level along −z.
fn level_camera(eye: [f32; 3]) -> CameraPose {
    CameraPose {
        eye_world: eye,
        target_world: [eye[0], eye[1], eye[2] - 20.0],
        fov_y_deg: 50.0,
    }
}

/// Renders `scene` from `camera` with no ground fog (the sheets are all transparent).
fn render_from(scene: &Scene, camera: CameraPose) -> Frame {
    let ctx = context().expect("checked by the caller");
    let mut r = renderer(&ctx, scene, SIZE_PX, SIZE_PX, View::Fog);
    let maps = flat_maps(scene, 0.0);
    let mut frame_inputs = inputs(scene, &maps, 0);
    frame_inputs.camera = camera;
    frame_inputs.ball_light_intensity = 0.0;
    render(&mut r, &frame_inputs)
}

fn pixel(frame: &Frame, x: u32, y: u32) -> [u8; 3] {
    let i = ((y * frame.width + x) * 4) as usize;
    [frame.rgba8[i], frame.rgba8[i + 1], frame.rgba8[i + 2]]
}

/// Where the ray through the centre of pixel (`x`, `y`) meets the plane z = `plane_z`.
fn wall_point(camera: &CameraPose, x: u32, y: u32, plane_z: f32) -> Vec3 {
    let world_from_clip = clip_from_world(camera, 1.0).inverse();
    let ndc_x = (x as f32 + 0.5) / SIZE_PX as f32 * 2.0 - 1.0;
    let ndc_y = 1.0 - (y as f32 + 0.5) / SIZE_PX as f32 * 2.0;
    let unproject = |depth: f32| {
        let p = world_from_clip * Vec4::new(ndc_x, ndc_y, depth, 1.0);
        p.truncate() / p.w
    };
    let (near, far) = (unproject(0.0), unproject(1.0));
    let t = (plane_z - near.z) / (far.z - near.z);
    near + (far - near) * t
}

/// A linear value 0..1 as the 8-bit sRGB level the encode pass writes.
fn srgb_level(linear: f32) -> f32 {
    color::linear_to_srgb(linear) * 255.0
}

#[test]
fn mist_is_thicker_low_than_high_at_the_same_distance_as_the_twin_says() {
    if context().is_none() {
        return;
    }
    for mode in [
        FogMode::Linear,
        FogMode::Exponential,
        FogMode::ExponentialSquared,
    ] {
        let fog = DistanceFog {
            color: [1.0; 3],
            mode,
            near: 0.0,
            far: 60.0,
            density: 0.04,
            height_falloff: 0.3,
            base_height: 0.0,
            ..DistanceFog::default()
        };
        let params = DistanceFogParams::new(&fog);
        let scene = walled_scene(fog, -20.0);
        let camera = level_camera([0.0, 5.0, 0.0]);
        let frame = render_from(&scene, camera);

        // Rows k above and below the middle see the wall at the same distance, 3·k/32·tan 25°
        // units above and below eye height; the floor (to z = −12) is below all these rays.
        let column = SIZE_PX / 2;
        for k in [4, 8, 12, 16] {
            let (row_high, row_low) = (SIZE_PX / 2 - 1 - k, SIZE_PX / 2 + k);
            let high = pixel(&frame, column, row_high);
            let low = pixel(&frame, column, row_low);
            assert!(
                i32::from(low[0]) > i32::from(high[0]) + 4,
                "{mode:?}, rows ±{k}: low {low:?} is not foggier than high {high:?}"
            );
            // The WGSL and its Rust twin agree, point for point.
            for (row, seen) in [(row_high, high), (row_low, low)] {
                let point = wall_point(&camera, column, row, -19.5);
                let amount = distance_fog_factor(camera.eye_world, point.to_array(), &params);
                let expected = srgb_level(amount);
                for channel in seen {
                    assert!(
                        (f32::from(channel) - expected).abs() <= 2.0,
                        "{mode:?}, row {row} at {point}: GPU {channel}, twin {expected:.1}"
                    );
                }
            }
        }
    }
}

#[test]
fn far_below_the_base_height_everything_is_fog_never_nan() {
    if context().is_none() {
        return;
    }
    let fog_color = [0.8, 0.6, 0.4];
    let expected_fog = fog_color.map(|c: f32| srgb_level(color::srgb_to_linear(c)));
    let cases = [
        // The camera ten thousand units below the base height, looking at a wall down there.
        (-1.0e4, 0.0, FogMode::Exponential),
        (-1.0e4, 0.0, FogMode::ExponentialSquared),
        (-1.0e4, 0.0, FogMode::Linear),
        // The base height ten thousand units above a camera in the hall.
        (5.0, 1.0e4, FogMode::Exponential),
        (5.0, 1.0e4, FogMode::Linear),
    ];
    for (eye_y, base_height, mode) in cases {
        let fog = DistanceFog {
            color: fog_color,
            mode,
            density: 0.05,
            height_falloff: 0.1,
            base_height,
            ..DistanceFog::default()
        };
        let mut scene = walled_scene(fog, eye_y - 30.0);
        // A background unlike the fog: the wall and the floor fill the picture, so it must not
        // show anywhere.
        scene.background = [0.1, 0.2, 0.3];
        let frame = render_from(&scene, level_camera([0.0, eye_y, 0.0]));
        for y in 0..SIZE_PX {
            for x in 0..SIZE_PX {
                let seen = pixel(&frame, x, y).map(f32::from);
                assert!(
                    seen.iter()
                        .zip(expected_fog)
                        .all(|(s, e)| (s - e).abs() <= 1.0),
                    "camera y {eye_y}, base {base_height}, {mode:?}: pixel ({x}, {y}) is \
                     {seen:?}, not the fog's {expected_fog:?}"
                );
            }
        }
    }

    // Clear air beyond everything in view (`start`), the camera far below the base height: the
    // density there is as large as it gets, the clear stretch makes it count for nothing, and
    // the wall shows unfogged, not black (NaN) and not fog. Whether a missing clamp would show
    // here depends on how the driver overflows `exp` (lavapipe survives it), so the clamp
    // itself is pinned by the CPU twin's `extreme_heights_stay_finite`.
    let fog = DistanceFog {
        color: fog_color,
        mode: FogMode::Exponential,
        density: 0.05,
        height_falloff: 0.1,
        start: 1.0e6,
        ..DistanceFog::default()
    };
    let eye_y = -1.0e4;
    let mut scene = walled_scene(fog, eye_y - 30.0);
    scene.lights.ambient.color = [1.0; 3];
    scene.lights.ambient.intensity = 1.0;
    scene.hall.blocks[0].color = [0.5; 3];
    let frame = render_from(&scene, level_camera([0.0, eye_y, 0.0]));
    // Albedo 0.5 (sRGB) under white light of 1 is 0.5 again on the way out: level 127.5.
    for y in 0..SIZE_PX {
        for x in 0..SIZE_PX {
            let seen = pixel(&frame, x, y).map(f32::from);
            assert!(
                seen.iter().all(|s| (s - 127.5).abs() <= 1.5),
                "clear start, camera y {eye_y}: pixel ({x}, {y}) is {seen:?}, not the wall's 128"
            );
        }
    }
}

/// The distance fog compiled into the pipelines for the scene's mode and falloff
/// (`DISTANCE_FOG_FORM`) against the shaders reading both from the uniforms: the same bytes
/// in every mode, with and without height falloff, with the raster and compute compositors,
/// over the temple's fog, hall and flames.
#[test]
fn the_distance_fog_compiled_for_its_form_gives_the_bytes_it_reads() {
    let Some(ctx) = context() else { return };
    let mut scene = shipped_temple();
    scene.fluid.grid = 48;
    let maps = flat_maps(&scene, 1.0);
    let at = inputs(&scene, &maps, 30);
    let mut raster_frames = Vec::new();
    for mode in [
        FogMode::Linear,
        FogMode::Exponential,
        FogMode::ExponentialSquared,
    ] {
        for height_falloff in [0.0, 0.3] {
            scene.distance_fog = DistanceFog {
                mode,
                near: 3.0,
                far: 16.0,
                density: 0.12,
                height_falloff,
                base_height: 0.5,
                ..DistanceFog::default()
            };
            for compositor in [Compositor::Raster, Compositor::Compute] {
                let config = fog_config((96, 54), compositor, Readback::default());
                let compiled = render_once(&ctx, &scene, &config, &at);
                FORCE_DISTANCE_FOG_READ.set(true);
                let read = render_once(&ctx, &scene, &config, &at);
                FORCE_DISTANCE_FOG_READ.set(false);
                let differing = pixels_differing(&compiled, &read);
                assert_eq!(
                    differing, 0,
                    "{mode:?}, falloff {height_falloff}, {compositor:?}"
                );
                if compositor == Compositor::Raster {
                    raster_frames.push(compiled);
                }
            }
        }
    }
    // Each mode and each falloff shows in the picture: the forms compared differ.
    for (i, a) in raster_frames.iter().enumerate() {
        for b in &raster_frames[i + 1..] {
            assert!(
                pixels_differing(a, b) > 0,
                "two distance fogs drew the same frame"
            );
        }
    }
}
