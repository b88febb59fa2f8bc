//! GPU tests of the fires: the `flame` pass draws, is reproducible and out of step between
//! fires, keeps its fog's grid across the edge samples, and the WGSL flicker agrees with its
//! Rust twin.
//!
//! Like the other GPU tests they are skipped (saying so) without an adapter, and fail under CI.

use super::{
    context, flat_maps, fog_config, inputs, max_difference, render, renderer, renderer_for,
    renderer_with, shipped_temple,
};
use crate::frame::{CameraPose, View};
use crate::gpu::passes::flame::{FORCE_FLAME_FOG_PER_PIXEL, FORCE_GRID_EACH_SAMPLE};
use crate::gpu::{Compositor, Readback};
use crate::playback::Playback;
use crate::scene::fires::fire_flicker;
use crate::scene::weather::Weather;
use crate::scene::{Fire, FireKind, Scene};

/// A clear hall (no fog) with one brazier in front of the camera, its phase pinned.
fn one_fire_scene(phase_rad: f32) -> Scene {
    Scene {
        fires: vec![Fire {
            kind: FireKind::Brazier,
            position: [0.0, 1.0, 2.0],
            flame_height: 1.2,
            phase_rad: Some(phase_rad),
            ..Fire::default()
        }],
        ..Scene::default()
    }
}

/// Looking level at the fire from close by, so the flame fills the middle of the frame.
fn facing_the_fire() -> CameraPose {
    CameraPose {
        eye_world: [0.0, 1.6, 5.0],
        target_world: [0.0, 1.5, 2.0],
        fov_y_deg: 50.0,
    }
}

/// Sum of absolute differences of the RGB bytes of two frames.
fn difference(a: &[u8], b: &[u8]) -> u64 {
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .map(|(p, q)| (0..3).map(|c| u64::from(p[c].abs_diff(q[c]))).sum::<u64>())
        .sum()
}

#[test]
fn flames_draw_reproducibly_and_out_of_step() {
    let Some(ctx) = context() else { return };
    let (w, h) = (64, 48);
    let lit = one_fire_scene(0.0);
    let shifted = one_fire_scene(2.5);
    let mut dark = lit.clone();
    dark.fires.clear();
    let maps = flat_maps(&lit, 0.0);
    let mut at = inputs(&lit, &maps, 30);
    at.camera = facing_the_fire();

    let mut first = renderer(&ctx, &lit, w, h, View::Fog);
    let a = render(&mut first, &at);
    let again = render(&mut first, &at);
    let mut second = renderer(&ctx, &lit, w, h, View::Fog);
    let fresh = render(&mut second, &at);
    assert!(
        a == again,
        "the same flame at the same time differs on the same renderer"
    );
    assert!(
        a == fresh,
        "the same flame at the same time differs on a new renderer"
    );

    // The flame and its light make the middle of the picture brighter than without the fire.
    let without = render(&mut renderer(&ctx, &dark, w, h, View::Fog), &at);
    assert!(
        difference(&a.rgba8, &without.rgba8) > 2000,
        "the fire hardly shows"
    );

    // Another phase, same time: the flame has another shape and the light another strength.
    let b = render(&mut renderer(&ctx, &shifted, w, h, View::Fog), &at);
    assert!(
        difference(&a.rgba8, &b.rgba8) > 200,
        "two phases burn alike"
    );

    // Time moves the flame.
    let mut later = at;
    later.time_s += 0.25;
    let c = render(&mut first, &later);
    assert!(
        difference(&a.rgba8, &c.rgba8) > 200,
        "the flame does not move"
    );
}

#[test]
fn a_pillar_hides_the_flame_behind_it() {
    let Some(ctx) = context() else { return };
    // A pillar between the camera and the fire; the fire's light is off, so only its flame
    // could show.
    let mut hidden = one_fire_scene(0.0);
    hidden.hall.pillars = vec![[0.0, 3.5]];
    hidden.hall.pillar_radius = 0.6;
    hidden.fires[0].light_intensity = 0.0;
    hidden.fires[0].glow = 0.0;
    let mut gone = hidden.clone();
    gone.fires.clear();
    let maps = flat_maps(&hidden, 0.0);
    let mut at = inputs(&hidden, &maps, 0);
    at.camera = CameraPose {
        eye_world: [0.0, 1.5, 6.0],
        target_world: [0.0, 1.5, 2.0],
        fov_y_deg: 20.0,
    };
    let (w, h) = (32, 32);
    let behind = render(&mut renderer(&ctx, &hidden, w, h, View::Fog), &at);
    let none = render(&mut renderer(&ctx, &gone, w, h, View::Fog), &at);
    let centre = |f: &crate::frame::Frame| {
        let i = ((16 * w + 16) * 4) as usize;
        f.rgba8[i..i + 3].to_vec()
    };
    assert_eq!(
        centre(&behind),
        centre(&none),
        "the flame shows through the pillar"
    );
    // Without the pillar the same pixel is the flame.
    let mut open = hidden.clone();
    open.hall.pillars.clear();
    let mut open_gone = open.clone();
    open_gone.fires.clear();
    let seen = render(&mut renderer(&ctx, &open, w, h, View::Fog), &at);
    let unseen = render(&mut renderer(&ctx, &open_gone, w, h, View::Fog), &at);
    let brightness = |p: Vec<u8>| p.iter().map(|&c| u32::from(c)).sum::<u32>();
    assert!(
        brightness(centre(&seen)) > brightness(centre(&unseen)) + 60,
        "the flame does not show in the open: {:?} vs {:?}",
        centre(&seen),
        centre(&unseen)
    );
}

/// A flame standing low in the fog, seen from above through a thick bank of it, is dimmed by
/// the fog in front of it with every compositor (the sheets, raster and compute, and the
/// raymarch): at the probe pixel on the flame it adds far less light than the same flame seen
/// through clear air.
#[test]
fn fog_in_front_dims_the_flame() {
    let Some(ctx) = context() else { return };
    // A low brazier whose flame (0.1 to 0.7 high) stands where the fog is densest; its light
    // and glow are off, so only the flame differs from the hall without it.
    let mut lit = one_fire_scene(0.0);
    lit.fires[0].position = [0.0, 0.1, 2.0];
    lit.fires[0].flame_height = 0.6;
    lit.fires[0].light_intensity = 0.0;
    lit.fires[0].glow = 0.0;
    let mut dark = lit.clone();
    dark.fires.clear();
    let thick = flat_maps(&lit, 2.0);
    let clear = flat_maps(&lit, 0.0);
    let (w, h) = (32, 32);
    let probe = |f: &crate::frame::Frame| {
        let i = ((16 * w + 16) * 4) as usize;
        f.rgba8[i..i + 3].iter().map(|&c| i64::from(c)).sum::<i64>()
    };
    for compositor in [
        Compositor::Raster,
        Compositor::Compute,
        Compositor::Raymarch { steps: 64 },
    ] {
        // The flame's light at the probe: with it minus without it, through `maps`.
        let flame_adds = |maps: &(Vec<u8>, Vec<u8>)| {
            let mut at = inputs(&lit, maps, 0);
            at.camera = CameraPose {
                eye_world: [0.0, 2.5, 5.0],
                target_world: [0.0, 0.35, 2.0],
                fov_y_deg: 20.0,
            };
            let with = render(
                &mut renderer_with(&ctx, &lit, w, h, View::Fog, compositor),
                &at,
            );
            let without = render(
                &mut renderer_with(&ctx, &dark, w, h, View::Fog, compositor),
                &at,
            );
            probe(&with) - probe(&without)
        };
        let through_air = flame_adds(&clear);
        let through_fog = flame_adds(&thick);
        eprintln!(
            "{}: the flame adds {through_air} levels through clear air, {through_fog} through fog",
            compositor.name()
        );
        assert!(
            through_air > 60,
            "{}: no flame at the probe",
            compositor.name()
        );
        assert!(
            through_fog * 4 < through_air,
            "{}: the fog does not dim the flame ({through_fog} vs {through_air})",
            compositor.name()
        );
    }
}

/// The fog in front of the flames crossed on each fire's grid dims them as crossing it for
/// every fragment does, to within two levels at every pixel, with both sheet compositors: a
/// brazier standing in noisy fog and one above it, seen from above through the fog.
#[test]
fn the_flames_fog_on_a_grid_matches_crossing_it_per_pixel() {
    let Some(ctx) = context() else { return };
    let mut scene = one_fire_scene(0.0);
    scene.fires[0].position = [-0.4, 0.1, 2.0];
    scene.fires[0].flame_height = 0.9;
    scene.fires.push(Fire {
        position: [0.5, 0.6, 1.6],
        ..scene.fires[0].clone()
    });
    let fog = flat_maps(&scene, 1.0);
    let clear = flat_maps(&scene, 0.0);
    let (w, h) = (64, 64);
    let draw = |maps: &(Vec<u8>, Vec<u8>), compositor, per_pixel: bool| {
        FORCE_FLAME_FOG_PER_PIXEL.set(per_pixel);
        let mut r = renderer_with(&ctx, &scene, w, h, View::Fog, compositor);
        FORCE_FLAME_FOG_PER_PIXEL.set(false);
        let mut at = inputs(&scene, maps, 30);
        at.camera = CameraPose {
            eye_world: [0.0, 2.2, 5.0],
            target_world: [0.0, 0.6, 2.0],
            fov_y_deg: 35.0,
        };
        render(&mut r, &at).rgba8
    };
    for compositor in [Compositor::Raster, Compositor::Compute] {
        let per_pixel = draw(&fog, compositor, true);
        let grid = draw(&fog, compositor, false);
        let largest = per_pixel
            .iter()
            .zip(&grid)
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap_or(0);
        // The fog in front matters here: without it the flames are far brighter.
        let dimmed_by = difference(&draw(&clear, compositor, true), &per_pixel);
        eprintln!(
            "{}: grid against per pixel, largest difference {largest}; the fog changes the \
             picture by {dimmed_by} levels",
            compositor.name()
        );
        assert!(
            dimmed_by > 10_000,
            "{}: the fog hides nothing",
            compositor.name()
        );
        assert!(
            largest <= 2,
            "{}: the grid's flames differ from the per-pixel ones by {largest} levels",
            compositor.name()
        );
    }
}

/// The WGSL `fire_flicker` run on the GPU gives what its Rust twin gives.
/// The later edge samples keep sample 0's grid of the fog in front of the flames: within a
/// level of crossing it in every sample, the flames in view. With weather too: the
/// `reflection` pass's mirrored flames cross the same grid, but only in sample 0, before the
/// picture's flames.
#[test]
fn the_edge_samples_keep_the_flames_fog_grid() {
    let Some(ctx) = context() else { return };
    let mut temple = shipped_temple();
    temple.fluid.grid = 48;
    let mut stormy = temple.clone();
    stormy.weather = Some(Weather::default());
    for scene in [temple, stormy] {
        let mut playback = Playback::new(&scene);
        let state = playback.advance_to(60, || {});
        let at = playback.frame_inputs(&state);
        let config = fog_config((256, 144), Compositor::Raster, Readback::default());
        let kept = render(&mut renderer_for(&ctx, &scene, &config), &at);
        FORCE_GRID_EACH_SAMPLE.set(true);
        let mut each_sample = renderer_for(&ctx, &scene, &config);
        FORCE_GRID_EACH_SAMPLE.set(false);
        let crossed = render(&mut each_sample, &at);
        let most = max_difference(&kept, &crossed);
        let weather = scene.weather.is_some();
        assert!(most <= 1, "weather {weather}: {most} levels apart");
        // Flame light: where the red channel stands well above the blue.
        let flame_px = (kept.rgba8.chunks_exact(4))
            .filter(|px| px[0] > px[2].saturating_add(40))
            .count();
        assert!(
            flame_px > 20,
            "weather {weather}: flames in view ({flame_px} px)"
        );
    }
}

#[test]
fn flicker_matches_its_wgsl_twin() {
    let Some(ctx) = context() else { return };
    if ctx.limits.max_storage_buffers_per_shader_stage < 2 {
        eprintln!("skipping: the adapter has no storage buffers for the compute check");
        return;
    }
    let cases: Vec<[f32; 4]> = (0..256)
        .map(|k| {
            let time_s = k as f32 * 0.37;
            let phase_rad = (k % 7) as f32 * 0.9;
            let amount = [0.0, 0.25, 0.6, 1.0][k % 4];
            [time_s, phase_rad, amount, 0.0]
        })
        .collect();
    let on_gpu = run_flicker_on_gpu(&ctx, &cases);
    for (case, gpu) in cases.iter().zip(&on_gpu) {
        let cpu = fire_flicker(case[0], case[1], case[2]);
        // GPU sines may differ from the CPU's in the last bits; arguments reach ~2300 rad.
        assert!(
            (cpu - gpu).abs() < 2e-3,
            "flicker at t {} phase {} amount {}: CPU {cpu}, GPU {gpu}",
            case[0],
            case[1],
            case[2]
        );
    }
}

pub(super) fn run_flicker_on_gpu(ctx: &crate::gpu::GpuContext, cases: &[[f32; 4]]) -> Vec<f32> {
    use wgpu::util::DeviceExt;
    let source = format!(
        "{}\n{}",
        include_str!("../../../shaders/fires.wgsl"),
        r#"
@group(0) @binding(8) var<storage, read> flicker_in: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> flicker_out: array<f32>;

@compute @workgroup_size(64)
fn cs_flicker(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&flicker_out) {
        let c = flicker_in[id.x];
        flicker_out[id.x] = fire_flicker(c.x, c.y, c.z);
    }
}
"#
    );
    let device = &ctx.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("flame.flicker_test"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("flame.flicker_test"),
        layout: None,
        module: &module,
        entry_point: Some("cs_flicker"),
        compilation_options: Default::default(),
        cache: None,
    });
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("flame.flicker_test.in"),
        contents: bytemuck::cast_slice(cases),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let bytes = (cases.len() * std::mem::size_of::<f32>()) as u64;
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("flame.flicker_test.out"),
        size: bytes,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("flame.flicker_test.staging"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("flame.flicker_test"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 8,
                resource: input.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 9,
                resource: output.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("flame.flicker_test"),
    });
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("flame.flicker_test"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups((cases.len() as u32).div_ceil(64), 1, 1);
    }
    encoder.copy_buffer_to_buffer(&output, 0, &staging, 0, bytes);
    ctx.queue.submit([encoder.finish()]);
    super::read_f32s(device, &staging)
}
