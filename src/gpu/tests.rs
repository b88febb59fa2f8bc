//! GPU tests: tiny frames of the default scene on whatever adapter exists (lavapipe in CI).
//!
//! Without an adapter each says it was skipped, naming itself and why, and passes; under CI
//! ([`crate::ci::in_ci`]: `CI` set to a true value) a missing adapter fails it instead, so CI
//! cannot silently stop testing the renderer.

use std::io::Write;

use glam::Vec3;

use crate::frame::{CameraPose, Frame, FrameInputs, View, WeatherFrame};
use crate::gpu::camera::clip_from_world;
use crate::gpu::{
    Compositor, FRAMES_IN_FLIGHT, GpuContext, GpuError, GpuOptions, Readback, RenderConfig,
    Renderer, check_frame_size,
};
use crate::output::exr::f16_bits_to_f32;
use crate::scene::Scene;

mod adapter_forms;
mod ambient_ground;
mod distance_fog;
mod edge_batch;
mod fire_flicker;
mod flame;
mod fog_ceiling;
mod fog_compute;
mod fog_cutoff;
mod fog_groups;
mod fog_half;
mod fog_medium;
mod fog_shadow;
mod fog_shape;
mod lamps;
mod layers;
mod moon_shadow;
mod raymarch;
mod readback_pool;
mod reflection;
mod scene_compute;
mod sky;
mod staged_writes;
mod walkers;
mod weather_layer;
mod wind;

/// The temple as shipped (scenes/temple.ron): five fires.
fn shipped_temple() -> Scene {
    crate::scene::load(None, &[])
        .unwrap_or_else(|e| panic!("the embedded temple does not load: {e:?}"))
        .scene
}

/// The GPU context, or `None` (after saying which test is skipped and why) when there is no
/// adapter outside CI. Under CI a missing adapter fails the test.
pub(crate) fn context() -> Option<GpuContext> {
    match GpuContext::new(&GpuOptions::default()) {
        Ok(ctx) => Some(ctx),
        Err(error @ GpuError::NoAdapter { .. }) => {
            let test = current_test();
            if crate::ci::in_ci() {
                panic!("{test}: CI is set and there is no GPU adapter: {error}");
            }
            // Straight to stderr, past the harness's capture of `eprintln!`, so the skip shows
            // in a normal `cargo test` run and not only with `--nocapture`.
            let _ = writeln!(
                std::io::stderr(),
                "skipped {test}: no GPU adapter ({error}); under CI=true this fails"
            );
            None
        }
        Err(error) => panic!("could not open the GPU: {error}"),
    }
}

/// The running test's name: the test harness names each test's thread after it.
fn current_test() -> String {
    match std::thread::current().name() {
        Some(name) if name != "main" => name.to_string(),
        _ => "a GPU test".to_string(),
    }
}

/// The two maps of a fog at rest everywhere: `density` (0..2) with no drift, lift or speed.
fn flat_maps(scene: &Scene, density: f32) -> (Vec<u8>, Vec<u8>) {
    let cells = (scene.fluid.grid * scene.fluid.grid) as usize;
    let red = (density / 2.0 * 255.0).round() as u8;
    let fluid = [red, 128, 128, 255].repeat(cells);
    let lift = [0, 0, 0, 255].repeat(cells);
    (fluid, lift)
}

/// The example's view of the hall from the front, the ball at its start.
fn inputs<'a>(scene: &Scene, maps: &'a (Vec<u8>, Vec<u8>), frame_index: u32) -> FrameInputs<'a> {
    FrameInputs {
        frame_index,
        time_s: frame_index as f32 / 60.0,
        camera: CameraPose {
            eye_world: [0.0, 7.5, 11.0],
            target_world: [0.0, 0.4, 0.0],
            fov_y_deg: 50.0,
        },
        ball_pos_world: [scene.ball.start[0], scene.ball.radius, scene.ball.start[1]],
        ball_spin_rad: 0.0,
        ball_light_intensity: scene.lights.ball.intensity,
        fluid_map: &maps.0,
        lift_map: &maps.1,
        weather: None,
        capsules: &[],
        sample: crate::samples::SampleOffset::CENTRE,
        motion: &[],
    }
}

/// [`inputs`] seen from `camera`.
fn seen_from<'a>(
    scene: &Scene,
    maps: &'a (Vec<u8>, Vec<u8>),
    frame_index: u32,
    camera: CameraPose,
) -> FrameInputs<'a> {
    FrameInputs {
        camera,
        ..inputs(scene, maps, frame_index)
    }
}

/// A clear evening's weather frame: thin fog, no gloom, rain, wetness, flash, wind or strike.
fn clear_weather() -> WeatherFrame {
    WeatherFrame {
        fog_density: 0.003,
        gloom: 0.0,
        rain: 0.0,
        wetness: 0.0,
        flash: 0.0,
        wind_world_per_s: [0.0; 2],
        drift_world: [0.0; 2],
        noise_drift_world: [0.0; 3],
        fog_light: 1.0,
        last_strike: None,
    }
}

/// The fog view at `(width, height)` with `compositor`, reading back `readback`.
fn fog_config(
    (width, height): (u32, u32),
    compositor: Compositor,
    readback: Readback,
) -> RenderConfig {
    RenderConfig {
        width,
        height,
        view: View::Fog,
        compositor,
        readback,
    }
}

fn renderer(ctx: &GpuContext, scene: &Scene, width: u32, height: u32, view: View) -> Renderer {
    renderer_with(ctx, scene, width, height, view, Compositor::Raster)
}

fn renderer_with(
    ctx: &GpuContext,
    scene: &Scene,
    width: u32,
    height: u32,
    view: View,
    compositor: Compositor,
) -> Renderer {
    let config = RenderConfig {
        view,
        ..fog_config((width, height), compositor, Readback::default())
    };
    renderer_for(ctx, scene, &config)
}

fn renderer_for(ctx: &GpuContext, scene: &Scene, config: &RenderConfig) -> Renderer {
    Renderer::new(ctx, scene, config).unwrap_or_else(|e| panic!("renderer: {e}"))
}

fn render(renderer: &mut Renderer, inputs: &FrameInputs<'_>) -> Frame {
    renderer
        .render_one(inputs)
        .unwrap_or_else(|e| panic!("render: {e}"))
}

/// The one frame `at` of `scene`, rendered by a renderer of its own made for `config`.
fn render_once(
    ctx: &GpuContext,
    scene: &Scene,
    config: &RenderConfig,
    at: &FrameInputs<'_>,
) -> Frame {
    render(&mut renderer_for(ctx, scene, config), at)
}

/// Where `pos_world` lands in a `(width, height)` picture seen from `camera`: pixels from the
/// top left (a pixel's centre at half a pixel), or `None` behind the eye.
fn screen_of(
    camera: &CameraPose,
    (width, height): (u32, u32),
    pos_world: [f32; 3],
) -> Option<(f32, f32)> {
    let clip = clip_from_world(camera, width as f32 / height as f32)
        * Vec3::from_array(pos_world).extend(1.0);
    let ndc = clip.truncate() / clip.w;
    let x = (ndc.x * 0.5 + 0.5) * width as f32;
    let y = (0.5 - ndc.y * 0.5) * height as f32;
    (clip.w > 0.0).then_some((x, y))
}

/// The pixel (x, y) `pos_world` lands on in a `(width, height)` picture seen from `camera`
/// (in front of the eye).
fn pixel_of(camera: &CameraPose, size: (u32, u32), pos_world: [f32; 3]) -> (u32, u32) {
    let (x, y) = screen_of(camera, size, pos_world).expect("a point in front of the eye");
    (x as u32, y as u32)
}

/// Sum of R + G + B over the 3 × 3 pixels round (x, y) of an RGBA picture `width` pixels wide,
/// each channel read by `value`.
fn sum_rgb_3x3<T: Copy>(
    pixels: &[T],
    width: u32,
    (x, y): (u32, u32),
    value: impl Fn(T) -> f64,
) -> f64 {
    let mut sum = 0.0;
    for py in y - 1..=y + 1 {
        for px in x - 1..=x + 1 {
            let i = ((py * width + px) * 4) as usize;
            sum += pixels[i..i + 3].iter().map(|&c| value(c)).sum::<f64>();
        }
    }
    sum
}

/// Half-float bits to `f32`.
fn floats(bits: &[u16]) -> Vec<f32> {
    bits.iter().map(|&b| f16_bits_to_f32(b)).collect()
}

/// The frame's 8-bit picture, to compare with `crate::compare`.
fn image(frame: &Frame) -> crate::compare::Image {
    crate::compare::Image {
        width: frame.width,
        height: frame.height,
        rgba8: frame.rgba8.to_vec(),
    }
}

/// The `f32`s of `staging` (a `MAP_READ` buffer), once the work submitted so far is done.
fn read_f32s(device: &wgpu::Device, staging: &wgpu::Buffer) -> Vec<f32> {
    let (sender, receiver) = std::sync::mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |result| {
        let _ = sender.send(result);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap_or_else(|e| panic!("poll: {e}"));
    receiver
        .recv()
        .unwrap_or_else(|e| panic!("map callback: {e}"))
        .unwrap_or_else(|e| panic!("map: {e}"));
    let values = {
        let view = staging
            .get_mapped_range(..)
            .unwrap_or_else(|e| panic!("mapped range: {e}"));
        bytemuck::cast_slice::<u8, f32>(&view).to_vec()
    };
    staging.unmap();
    values
}

/// Mean of R + G + B over the pixels of a rectangle.
fn mean_brightness(frame: &Frame, x0: u32, y0: u32, x1: u32, y1: u32) -> f64 {
    let mut sum = 0u64;
    for y in y0..y1 {
        for x in x0..x1 {
            let i = ((y * frame.width + x) * 4) as usize;
            sum += frame.rgba8[i..i + 3]
                .iter()
                .map(|&c| u64::from(c))
                .sum::<u64>();
        }
    }
    sum as f64 / f64::from((x1 - x0) * (y1 - y0))
}

/// Largest channel difference between two frames.
fn max_difference(a: &Frame, b: &Frame) -> u8 {
    a.rgba8
        .iter()
        .zip(&b.rgba8)
        .map(|(p, q)| p.abs_diff(*q))
        .max()
        .unwrap_or(0)
}

/// How many pixels of two frames of one size differ in any channel.
fn pixels_differing(a: &Frame, b: &Frame) -> usize {
    a.rgba8
        .chunks_exact(4)
        .zip(b.rgba8.chunks_exact(4))
        .filter(|(a, b)| a != b)
        .count()
}

fn distinct_pixels(frame: &Frame) -> usize {
    let mut pixels: Vec<&[u8]> = frame.rgba8.chunks_exact(4).collect();
    pixels.sort_unstable();
    pixels.dedup();
    pixels.len()
}

#[test]
fn default_scene_shows_fog_over_the_hall() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let mut r = renderer(&ctx, &scene, 64, 36, View::Fog);
    let fog_maps = flat_maps(&scene, 1.0);
    let clear_maps = flat_maps(&scene, 0.0);
    let foggy = render(&mut r, &inputs(&scene, &fog_maps, 0));
    let clear = render(&mut r, &inputs(&scene, &clear_maps, 0));

    assert_eq!(
        (foggy.width, foggy.height, foggy.rgba8.len()),
        (64, 36, 64 * 36 * 4)
    );
    assert!(
        foggy.rgba8.chunks_exact(4).all(|p| p[3] == 255),
        "output must be opaque"
    );
    assert!(
        distinct_pixels(&foggy) > 50,
        "foggy frame is nearly uniform"
    );
    assert!(
        distinct_pixels(&clear) > 50,
        "clear frame is nearly uniform"
    );

    // The fog is a pale blue-grey over a dark floor: the middle of the picture is brighter.
    let fog_mean = mean_brightness(&foggy, 24, 14, 40, 26);
    let clear_mean = mean_brightness(&clear, 24, 14, 40, 26);
    assert!(
        fog_mean > clear_mean + 30.0,
        "fog does not show: centre brightness {fog_mean:.1} with fog, {clear_mean:.1} without"
    );
}

#[test]
fn rendering_twice_gives_identical_bytes() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let maps = flat_maps(&scene, 1.0);
    let frame_inputs = inputs(&scene, &maps, 30);
    let mut first = renderer(&ctx, &scene, 64, 36, View::Fog);
    let a = render(&mut first, &frame_inputs);
    let b = render(&mut first, &frame_inputs);
    let mut second = renderer(&ctx, &scene, 64, 36, View::Fog);
    let c = render(&mut second, &frame_inputs);
    assert!(a == b, "same renderer, same inputs, different bytes");
    assert!(a == c, "new renderer, same inputs, different bytes");
}

#[test]
fn odd_sizes_come_back_unpadded() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let maps = flat_maps(&scene, 1.0);
    let mut r = renderer(&ctx, &scene, 33, 17, View::Fog);
    let frame = render(&mut r, &inputs(&scene, &maps, 0));
    assert_eq!(
        (frame.width, frame.height, frame.rgba8.len()),
        (33, 17, 33 * 17 * 4)
    );
    assert!(distinct_pixels(&frame) > 20);

    // Looking straight up there is nothing but the clear colour: every pixel of the odd-sized
    // frame must be the background, exactly, with no padding bytes (zeros) shifted in.
    let mut up = inputs(&scene, &maps, 0);
    up.camera = CameraPose {
        eye_world: [0.0, 5.0, 0.0],
        target_world: [0.0, 50.0, 0.0],
        fov_y_deg: 50.0,
    };
    let sky = render(&mut r, &up);
    let background = scene.background.map(|c| (c * 255.0).round() as u8);
    for (i, pixel) in sky.rgba8.chunks_exact(4).enumerate() {
        assert_eq!(
            pixel,
            [background[0], background[1], background[2], 255],
            "pixel {i} (x {}, y {})",
            i % 33,
            i / 33
        );
    }
}

#[test]
fn oversize_frames_are_refused_without_panic() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let config = fog_config((100_000, 10), Compositor::Raster, Readback::default());
    match Renderer::new(&ctx, &scene, &config) {
        Err(GpuError::SizeTooLarge { width, height, max }) => {
            assert_eq!((width, height), (100_000, 10));
            assert_eq!(max, ctx.limits.max_texture_dimension_2d);
        }
        Err(other) => panic!("expected SizeTooLarge, got {other}"),
        Ok(_) => panic!("a 100000-pixel-wide frame was accepted"),
    }
}

#[test]
fn frame_size_checks_without_a_gpu() {
    let limits = wgpu::Limits::default();
    assert!(check_frame_size(640, 360, &limits).is_ok());
    assert!(matches!(
        check_frame_size(100_000, 10, &limits),
        Err(GpuError::SizeTooLarge { max: 8192, .. })
    ));
    assert!(matches!(
        check_frame_size(0, 10, &limits),
        Err(GpuError::EmptySize { .. })
    ));
}

#[test]
fn frames_come_back_in_order_and_match_single_renders() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let maps = flat_maps(&scene, 1.0);
    let mut r = renderer(&ctx, &scene, 32, 18, View::Fog);
    let count = FRAMES_IN_FLIGHT as u32 + 2;
    let mut frames = Vec::new();
    for index in 0..count {
        // Far apart in time so the wind moves the noise and frames differ.
        let mut frame_inputs = inputs(&scene, &maps, index);
        frame_inputs.time_s = index as f32 * 20.0;
        let returned = r.submit(&frame_inputs).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(returned.is_some(), index >= FRAMES_IN_FLIGHT as u32);
        frames.extend(returned);
    }
    assert_eq!(r.frames_in_flight(), FRAMES_IN_FLIGHT);
    frames.extend(r.finish().unwrap_or_else(|e| panic!("{e}")));
    assert_eq!(r.frames_in_flight(), 0);
    let order: Vec<u32> = frames.iter().map(|f| f.frame_index).collect();
    assert_eq!(order, (0..count).collect::<Vec<_>>());
    assert!(
        frames[0].rgba8 != frames[1].rgba8,
        "time does not move the fog"
    );

    // Pipelining changes nothing: the last frame alone gives the same bytes.
    let mut last = inputs(&scene, &maps, count - 1);
    last.time_s = (count - 1) as f32 * 20.0;
    let alone = render(&mut r, &last);
    assert!(alone == frames[(count - 1) as usize]);
}

#[test]
fn a_renderer_dropped_with_frames_in_flight_unmaps_and_stops() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let maps = flat_maps(&scene, 1.0);
    for in_flight in [1, FRAMES_IN_FLIGHT] {
        let mut r = renderer(&ctx, &scene, 32, 18, View::Fog);
        for index in 0..in_flight as u32 {
            let returned = r.submit(&inputs(&scene, &maps, index));
            assert!(returned.unwrap_or_else(|e| panic!("{e}")).is_none());
        }
        assert_eq!(r.frames_in_flight(), in_flight);
        // Dropping waits for the readback thread to finish (and unmap) the frames it holds.
        drop(r);
    }
    // The device is still usable afterwards.
    let mut r = renderer(&ctx, &scene, 32, 18, View::Fog);
    let frame = render(&mut r, &inputs(&scene, &maps, 0));
    assert_eq!(frame.rgba8.len(), 32 * 18 * 4);
}

#[test]
fn every_view_draws_something_of_its_own() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    // Some drift, lift and speed, so the flow mesh is not flat.
    let (mut fluid, mut lift) = flat_maps(&scene, 1.0);
    for (i, texel) in fluid.chunks_exact_mut(4).enumerate() {
        texel[1] = (i % 200) as u8 + 28;
    }
    for (i, texel) in lift.chunks_exact_mut(4).enumerate() {
        texel[0] = (i % 97) as u8;
        texel[1] = (i % 251) as u8;
    }
    let maps = (fluid, lift);
    let frame_inputs = inputs(&scene, &maps, 0);
    let mut frames = Vec::new();
    for view in View::ALL {
        let mut r = renderer(&ctx, &scene, 64, 36, view);
        frames.push((view, render(&mut r, &frame_inputs)));
    }
    for (a, (view_a, frame_a)) in frames.iter().enumerate() {
        for (view_b, frame_b) in &frames[a + 1..] {
            assert!(
                frame_a.rgba8 != frame_b.rgba8,
                "views {} and {} render the same picture",
                view_a.name(),
                view_b.name()
            );
        }
    }
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let Some(ctx) = context() else { return };
    let scene = Scene::default();
    let maps = flat_maps(&scene, 1.0);
    let mut r = renderer(&ctx, &scene, 16, 16, View::Fog);
    let short = (maps.0[..100].to_vec(), maps.1.clone());
    match r.submit(&inputs(&scene, &short, 0)) {
        Err(GpuError::MapSize {
            map: "fluid",
            actual: 100,
            ..
        }) => {}
        other => panic!("expected MapSize, got {other:?}"),
    }

    // render_one refuses to drop frames still in flight.
    r.submit(&inputs(&scene, &maps, 1))
        .unwrap_or_else(|e| panic!("{e}"));
    match r.render_one(&inputs(&scene, &maps, 2)) {
        Err(GpuError::FramesInFlight { count: 1 }) => {}
        other => panic!("expected FramesInFlight, got {other:?}"),
    }
    let rest = r.finish().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0].frame_index, 1);
}
