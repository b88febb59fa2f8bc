//! GPU frame benchmark: frames of the embedded temple (fires on, 48 sheets) rendered and read
//! back at 640×360 and 1920×1080 on whatever adapter is present, with the time per stage:
//! recording and submitting, blocked waiting for the GPU, copying out of the mapped buffers,
//! and, where the adapter has timestamp queries, each pass on the GPU. Without an adapter it
//! says so and exits cleanly.
//!
//! Run with `cargo bench --bench gpu_frame`. Options after `--`: `--compositor raster|compute|
//! auto` (default auto), `--frames N` (frames timed per size; default 120 on a GPU, 3 on a CPU
//! adapter such as lavapipe), `--sizes 640x360,1920x1080`. The world is stepped to frame 60
//! first so the fog has moved; the simulation is not timed (`benches/fluid.rs` is). Frames
//! stay in flight as in a render, so frames/s is the renderer's own throughput with nothing
//! encoded.

use fogbank::frame::View;
use fogbank::gpu::{Compositor, GpuContext, GpuOptions, Readback, RenderConfig, Renderer};
use fogbank::playback::Playback;
use std::time::Instant;

fn arg_value(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let context = match GpuContext::new(&GpuOptions::default()) {
        Ok(context) => context,
        Err(error) => {
            println!("gpu_frame: skipped, no GPU adapter: {error}");
            return;
        }
    };
    let summary = context.summary();
    let cpu_adapter = context.adapter_info.device_type == wgpu::DeviceType::Cpu;
    let compositor = match arg_value("--compositor").as_deref() {
        Some("raster") => Compositor::Raster,
        Some("compute") => Compositor::Compute,
        _ => Compositor::Auto,
    };
    let frames: u32 = arg_value("--frames")
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cpu_adapter { 3 } else { 120 })
        .max(1);
    let sizes: Vec<(u32, u32)> = arg_value("--sizes")
        .unwrap_or_else(|| "640x360,1920x1080".into())
        .split(',')
        .filter_map(|s| {
            let (w, h) = s.split_once('x')?;
            Some((w.parse().ok()?, h.parse().ok()?))
        })
        .collect();
    println!(
        "adapter: {} ({}, {}), timestamp queries: {}",
        summary.name,
        summary.backend,
        summary.driver_info,
        context
            .device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
    );
    let base = fogbank::scene::load(None, &[])
        .expect("the embedded temple loads")
        .scene;
    for (width, height) in sizes {
        let scene = fogbank::pipeline::sized_scene(&base, Some((width, height)));
        let config = RenderConfig {
            width,
            height,
            view: View::Fog,
            compositor,
            readback: Readback::default(),
        };
        let mut renderer = match Renderer::new(&context, &scene, &config) {
            Ok(renderer) => renderer,
            Err(error) => {
                println!("{width}x{height}: skipped: {error}");
                continue;
            }
        };
        let mut playback = Playback::new(&scene);
        let first = 60u32.min(scene.output.frame_count().saturating_sub(frames + 2));
        // One frame to warm up pipelines and caches, not timed.
        let state = playback.advance_to(first, || {});
        renderer
            .render_one(&playback.frame_inputs(&state))
            .expect("a warm-up frame");
        let before = renderer.times();
        let started = Instant::now();
        for frame in first + 1..=first + frames {
            let state = playback.advance_to(frame, || {});
            std::hint::black_box(
                renderer
                    .submit(&playback.frame_inputs(&state))
                    .expect("a frame"),
            );
        }
        std::hint::black_box(renderer.finish().expect("the frames in flight"));
        let wall_s = started.elapsed().as_secs_f64();
        let after = renderer.times();
        let per_frame = |s: f64| s / frames as f64 * 1e3;
        println!(
            "{width}x{height} {} ({} frames): {:.2} frames/s; ms per frame: record {:.3}, \
             submit {:.3}, readback wait {:.3}, readback copy {:.3}",
            renderer.compositor().name(),
            frames,
            frames as f64 / wall_s,
            per_frame(after.record_s - before.record_s),
            per_frame(after.submit_s - before.submit_s),
            per_frame(after.readback_wait_s - before.readback_wait_s),
            per_frame(after.readback_copy_s - before.readback_copy_s),
        );
        if after.timestamps {
            let timed = f64::from((after.timed_frames - before.timed_frames).max(1));
            let passes: Vec<String> = after
                .passes
                .iter()
                .map(|(name, total)| {
                    let earlier = before
                        .passes
                        .iter()
                        .find(|(n, _)| n == name)
                        .map_or(0.0, |(_, s)| *s);
                    format!("{name} {:.3}", (total - earlier) / timed * 1e3)
                })
                .collect();
            let gpu_ms = (after.gpu_s() - before.gpu_s()) / timed * 1e3;
            println!("  gpu {gpu_ms:.3} ms/frame: {}", passes.join(", "));
        } else {
            println!("  gpu passes not timed: the adapter has no timestamp queries");
        }
    }
}
