//! GPU tests of `fog.medium: Physical(…)`: the fog scatters the moon by its phase (brighter
//! looking toward it with a forward phase, darker looking away), exactly as the CPU twin of
//! the phase says, and with albedo 0 it only darkens. Every compositor reads the one shading
//! function, so each is checked.
//!
//! The seed medium keeps its bytes: the goldens (`tests/golden.rs`) and the other GPU tests
//! render it. Like the other GPU tests these are skipped (saying so) without an adapter, and
//! fail under CI.

use glam::{Vec3, Vec4};

use super::{
    context, flat_maps, floats, fog_config, inputs, mean_brightness, render, renderer_for,
    renderer_with,
};
use crate::frame::{CameraPose, Frame, View};
use crate::gpu::camera::clip_from_world;
use crate::gpu::{Compositor, GpuContext, Readback};
use crate::scene::medium::MEDIUM_OCTAVE_KEEP;
use crate::scene::{FogMedium, Phase, PhysicalMedium, Scene};

const WIDTH: u32 = 64;
const HEIGHT: u32 = 36;

/// The compositors the medium is drawn by: both kinds of sheets and the raymarch.
const COMPOSITORS: [Compositor; 3] = [
    Compositor::Raster,
    Compositor::Compute,
    Compositor::Raymarch { steps: 48 },
];

/// The default hall lit by the moon alone, low in the sky to the +z side (it travels toward
/// −z), with `medium`: no ambient, no ball light, no distance fog to muddle the fog's light.
fn moonlit(medium: FogMedium) -> Scene {
    let mut scene = Scene::default();
    scene.fog.medium = medium;
    scene.lights.ambient.intensity = 0.0;
    scene.lights.ball.intensity = 0.0;
    scene.lights.ball.flicker = 0.0;
    scene.lights.directional.pitch_rad = -0.35;
    scene.lights.directional.yaw_rad = 0.0;
    scene.lights.directional.intensity = 2.0;
    scene.distance_fog.max_opacity = 0.0;
    scene
}

/// The physical medium with `phase`, albedo `albedo` and single scattering.
fn physical(phase: Phase, albedo: f32) -> FogMedium {
    FogMedium::Physical(PhysicalMedium {
        albedo,
        phase,
        octaves: 1,
        self_shadowing: false,
    })
}

/// A frame of `scene` with fog at `density` everywhere, seen from `eye_world` looking level
/// along z toward `toward_z` (±1), at 0.6 units up, inside the fog.
fn frame(
    ctx: &GpuContext,
    scene: &Scene,
    density: f32,
    toward_z: f32,
    compositor: Compositor,
) -> Frame {
    let mut renderer = renderer_with(ctx, scene, WIDTH, HEIGHT, View::Fog, compositor);
    let maps = flat_maps(scene, density);
    let mut at = inputs(scene, &maps, 0);
    at.camera = CameraPose {
        eye_world: [0.0, 0.6, -7.0 * toward_z],
        target_world: [0.0, 0.9, 0.0],
        fov_y_deg: 50.0,
    };
    render(&mut renderer, &at)
}

/// Mean brightness (R + G + B, 0..765) of the frame's middle half, where the fog is.
fn middle(frame: &Frame) -> f64 {
    mean_brightness(frame, WIDTH / 4, HEIGHT / 4, WIDTH * 3 / 4, HEIGHT * 3 / 4)
}

#[test]
fn a_forward_phase_brightens_the_fog_toward_the_moon_and_darkens_it_away() {
    let Some(ctx) = context() else { return };
    let forward = moonlit(physical(Phase::HenyeyGreenstein(0.8), 0.9));
    let even = moonlit(physical(Phase::HenyeyGreenstein(0.0), 0.9));
    for compositor in COMPOSITORS {
        // The moon travels toward −z: looking toward +z is looking toward it.
        let toward_forward = middle(&frame(&ctx, &forward, 1.0, 1.0, compositor));
        let toward_even = middle(&frame(&ctx, &even, 1.0, 1.0, compositor));
        assert!(
            toward_forward > toward_even + 3.0,
            "{compositor:?}: toward the moon g 0.8 gives {toward_forward:.1}, g 0 {toward_even:.1}"
        );
        let away_forward = middle(&frame(&ctx, &forward, 1.0, -1.0, compositor));
        let away_even = middle(&frame(&ctx, &even, 1.0, -1.0, compositor));
        assert!(
            away_forward + 3.0 < away_even,
            "{compositor:?}: away from the moon g 0.8 gives {away_forward:.1}, g 0 {away_even:.1}"
        );
    }
}

#[test]
fn the_mie_phase_of_fog_droplets_scatters_forward() {
    let Some(ctx) = context() else { return };
    let mie = moonlit(physical(Phase::Mie(15.0), 0.9));
    let compositor = Compositor::Raster;
    let toward = middle(&frame(&ctx, &mie, 1.0, 1.0, compositor));
    let away = middle(&frame(&ctx, &mie, 1.0, -1.0, compositor));
    assert!(
        toward > away + 3.0,
        "Mie(15): toward the moon {toward:.1}, away {away:.1}"
    );
}

#[test]
fn with_albedo_zero_the_fog_only_darkens() {
    let Some(ctx) = context() else { return };
    let mut lit = moonlit(physical(Phase::HenyeyGreenstein(0.6), 0.0));
    // Every light the medium scatters, so none of them may add any.
    lit.lights.ambient.intensity = 0.35;
    lit.lights.ball.intensity = 2.0;
    let mut scattering = lit.clone();
    scattering.fog.medium = physical(Phase::HenyeyGreenstein(0.6), 0.9);
    for compositor in COMPOSITORS {
        let clear = frame(&ctx, &lit, 0.0, 1.0, compositor);
        let absorbing = frame(&ctx, &lit, 1.0, 1.0, compositor);
        // No pixel brighter than the hall without fog (one level for rounding).
        let brighter = clear
            .rgba8
            .iter()
            .zip(&absorbing.rgba8)
            .filter(|(c, a)| **a > c.saturating_add(1))
            .count();
        assert_eq!(
            brighter, 0,
            "{compositor:?}: albedo 0 brightens {brighter} channels"
        );
        let (clear_mean, absorbing_mean) = (middle(&clear), middle(&absorbing));
        assert!(
            absorbing_mean + 5.0 < clear_mean,
            "{compositor:?}: albedo-0 fog ({absorbing_mean:.1}) should darken the hall ({clear_mean:.1})"
        );
        // The same fog with albedo 0.9 does scatter light toward the eye.
        let scattered = middle(&frame(&ctx, &scattering, 1.0, 1.0, compositor));
        assert!(
            scattered > absorbing_mean + 5.0,
            "{compositor:?}: albedo 0.9 ({scattered:.1}) against 0 ({absorbing_mean:.1})"
        );
    }
}

#[test]
fn more_octaves_add_light() {
    let Some(ctx) = context() else { return };
    let single = moonlit(physical(Phase::HenyeyGreenstein(0.6), 0.9));
    let mut multiple = single.clone();
    multiple.fog.medium = FogMedium::Physical(PhysicalMedium {
        albedo: 0.9,
        phase: Phase::HenyeyGreenstein(0.6),
        octaves: 3,
        self_shadowing: false,
    });
    let compositor = Compositor::Compute;
    let one = middle(&frame(&ctx, &single, 1.5, -1.0, compositor));
    let three = middle(&frame(&ctx, &multiple, 1.5, -1.0, compositor));
    assert!(
        three > one + 2.0,
        "3 octaves ({three:.1}) should add light to 1 ({one:.1})"
    );
}

/// The unit view ray through the centre of pixel `(x, y)` of a `(width, height)` picture seen
/// from `camera`, unprojected from two depths.
fn pixel_ray(camera: &CameraPose, (width, height): (u32, u32), (x, y): (u32, u32)) -> Vec3 {
    let world_from_clip = clip_from_world(camera, width as f32 / height as f32).inverse();
    let ndc_x = (x as f32 + 0.5) / width as f32 * 2.0 - 1.0;
    let ndc_y = 1.0 - (y as f32 + 0.5) / height as f32 * 2.0;
    let at = |depth: f32| {
        let p = world_from_clip * Vec4::new(ndc_x, ndc_y, depth, 1.0);
        p.truncate() / p.w
    };
    (at(0.9) - at(0.1)).normalize()
}

/// The largest relative difference, over the pixels where the fog is thick enough to measure,
/// between the fog layer's straight colour and what the CPU twin of the phase gives there, and
/// how many pixels were measured.
fn twin_error(ctx: &GpuContext, phase: Phase, octaves: u32) -> (f32, usize) {
    let albedo = 0.8;
    let mut scene = moonlit(FogMedium::Physical(PhysicalMedium {
        albedo,
        phase,
        octaves,
        self_shadowing: false,
    }));
    scene.lights.directional.color = [1.0, 1.0, 1.0];
    let sun = scene.lights.directional.intensity;
    let travel = Vec3::from_array(scene.lights.directional.direction_world());
    let size = (WIDTH, HEIGHT);
    let readback = Readback {
        fog_layer_f16: true,
        ..Readback::default()
    };
    let config = fog_config(size, Compositor::Raster, readback);
    let mut renderer = renderer_for(ctx, &scene, &config);
    let maps = flat_maps(&scene, 1.0);
    let mut at = inputs(&scene, &maps, 0);
    // Looking across the moon's path, so the picture spans a wide range of angles.
    at.camera = CameraPose {
        eye_world: [-5.0, 0.8, -5.0],
        target_world: [0.0, 1.0, 1.0],
        fov_y_deg: 60.0,
    };
    let frame = render(&mut renderer, &at);
    let layer = floats(frame.fog_f16.as_deref().expect("the fog layer"));
    let fit = phase.fit();
    let (mut checked, mut worst) = (0, 0.0_f32);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let i = ((y * WIDTH + x) * 4) as usize;
            let alpha = layer[i + 3];
            if alpha < 0.3 {
                continue;
            }
            // The layer is premultiplied: its straight colour is the medium's S/σt.
            let straight = layer[i] / alpha;
            let cos_theta = travel.dot(-pixel_ray(&at.camera, size, (x, y)));
            let mut response = 0.0;
            let mut keep = 1.0;
            for _ in 0..octaves {
                response += keep * fit.eval(cos_theta, keep);
                keep *= MEDIUM_OCTAVE_KEEP;
            }
            let want = albedo * sun * response;
            worst = worst.max((straight - want).abs() / want.max(1e-3));
            checked += 1;
        }
    }
    (worst, checked)
}

#[test]
fn the_fog_layer_colour_is_the_phase_of_the_cpu_twin() {
    let Some(ctx) = context() else { return };
    for (phase, octaves) in [
        (Phase::Mie(15.0), 1),
        (Phase::HenyeyGreenstein(0.7), 3),
        (Phase::HenyeyGreenstein(-0.4), 2),
    ] {
        let (worst, checked) = twin_error(&ctx, phase, octaves);
        assert!(checked > 100, "{phase:?}: only {checked} pixels of fog");
        // Half floats hold 11 significant bits, and each pixel's fog has one colour.
        assert!(
            worst < 0.02,
            "{phase:?}: the GPU's colour is {worst:.4} off the twin's"
        );
    }
}
