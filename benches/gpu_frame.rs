//! GPU frame benchmark on criterion: frames of the embedded temple (fires on, 48 sheets)
//! rendered and read back at 640×360 and 1920×1080 on whatever adapter is present, a batch of
//! frames in flight per run as in a render, with the raster and the compute compositor at the
//! default sampling, and with the compute compositor at one sample a pixel. After
//! each figure it prints the time per frame of each stage: recording and submitting, blocked
//! waiting for the GPU, copying out of the mapped buffers, and, where the adapter has timestamp
//! queries, each pass on the GPU. Without an adapter it says so and exits cleanly.
//!
//! Run with `cargo bench --bench gpu_frame`; arguments after `--` go to criterion (a filter
//! such as `'gpu_frame 640x360/compute'`, `--save-baseline NAME`, `--baseline NAME`).
//! `FOGBANK_BENCH_FRAMES=N` sets the frames in flight per run (default 8 on a GPU, 3 on a CPU
//! adapter such as lavapipe) and `FOGBANK_BENCH_SIZES=640x360,1920x1080` the sizes. The world
//! is stepped to frame 60 first so the fog has moved, then a frame further before each submit;
//! the stepping is not timed (`benches/fluid.rs` times it), only the renderer's submits and the
//! final wait for the frames in flight, so frames/s is the renderer's own throughput with
//! nothing encoded.

use criterion::{Criterion, SamplingMode, Throughput};
use fogbank::frame::View;
use fogbank::gpu::{Compositor, GpuContext, GpuOptions, Readback, RenderConfig, Renderer};
use fogbank::playback::Playback;
use fogbank::scene::Scene;
use std::time::{Duration, Instant};

/// The first frame timed: the fog has moved by then.
const FIRST_FRAME: u32 = 60;

/// A positive whole number from the environment variable `name`, or `default`. A bad value
/// ends the bench with a message naming the variable.
fn env_count(name: &str, default: u32) -> u32 {
    match std::env::var(name) {
        Err(_) => default,
        Ok(text) => match text.trim().parse::<u32>() {
            Ok(count) if count > 0 => count,
            _ => {
                eprintln!("{name}={text}: expected a whole number of frames above 0, e.g. 8");
                std::process::exit(2);
            }
        },
    }
}

/// The sizes from `FOGBANK_BENCH_SIZES` (`WxH,WxH`), or 640×360 and 1920×1080.
fn env_sizes() -> Vec<(u32, u32)> {
    let Ok(text) = std::env::var("FOGBANK_BENCH_SIZES") else {
        return vec![(640, 360), (1920, 1080)];
    };
    text.split(',')
        .map(|size| match fogbank::cli::parse_size(size.trim()) {
            Ok(size) => size,
            Err(error) => {
                eprintln!(
                    "FOGBANK_BENCH_SIZES={text}: {error}; give sizes as WxH, comma-separated, \
                     e.g. 640x360,1920x1080"
                );
                std::process::exit(2);
            }
        })
        .collect()
}

/// Renders `batch` frames in flight, stepping the world a frame before each submit (a new
/// playback from the start once the clip's frames run out), and returns the time spent in the
/// renderer: the submits and the wait for the frames in flight, not the stepping.
fn render_batch(
    renderer: &mut Renderer,
    scene: &Scene,
    playback: &mut Playback,
    frame: &mut u32,
    batch: u32,
) -> Duration {
    let mut spent = Duration::ZERO;
    for _ in 0..batch {
        *frame += 1;
        if *frame >= scene.output.frame_count() {
            *playback = Playback::new(scene);
            *frame = FIRST_FRAME;
        }
        let state = playback.advance_to(*frame, || {});
        let inputs = playback.frame_inputs(&state);
        let started = Instant::now();
        std::hint::black_box(renderer.submit(&inputs).expect("a frame"));
        spent += started.elapsed();
    }
    let started = Instant::now();
    std::hint::black_box(renderer.finish().expect("the frames in flight"));
    spent + started.elapsed()
}

/// Prints the milliseconds a frame spent in each stage and GPU pass between `before` and the
/// renderer's times now, over `frames` frames.
fn print_stages(renderer: &Renderer, before: &fogbank::gpu::GpuTimes, frames: u64) {
    let after = renderer.times();
    let per_frame = |s: f64| s / frames.max(1) as f64 * 1e3;
    println!(
        "  {} ({frames} frames): ms per frame: record {:.3}, submit {:.3}, readback wait \
         {:.3}, readback copy {:.3}",
        renderer.compositor().name(),
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

fn main() {
    // The flags of the hand-written bench before criterion, which criterion would refuse
    // without saying what replaced them.
    let moved = [
        (
            "--compositor",
            "--compositor is now a filter: -- raster or -- compute",
        ),
        ("--frames", "--frames N is now FOGBANK_BENCH_FRAMES=N"),
        (
            "--sizes",
            "--sizes WxH,... is now FOGBANK_BENCH_SIZES=WxH,...",
        ),
    ];
    for (flag, instead) in moved {
        if std::env::args().any(|arg| arg == flag) {
            eprintln!("gpu_frame: {instead}; see benches/README.md");
            std::process::exit(2);
        }
    }
    let context = match GpuContext::new(&GpuOptions::default()) {
        Ok(context) => context,
        Err(error) => {
            println!("gpu_frame: skipped, no GPU adapter: {error}");
            return;
        }
    };
    let summary = context.summary();
    let cpu_adapter = context.adapter_info.device_type == wgpu::DeviceType::Cpu;
    let batch = env_count("FOGBANK_BENCH_FRAMES", if cpu_adapter { 3 } else { 8 });
    let sizes = env_sizes();
    println!(
        "adapter: {} ({}, {}), timestamp queries: {}, {batch} frames in flight a run",
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
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    for (width, height) in sizes {
        let scene = fogbank::pipeline::sized_scene(&base, Some((width, height)));
        let mut group = c.benchmark_group(format!("gpu_frame {width}x{height}"));
        // A run is a batch of whole frames.
        group.sampling_mode(SamplingMode::Flat);
        group.throughput(Throughput::Elements(u64::from(batch)));
        // The default sampling (anti-aliased at the edges) on both compositors, and one
        // sample a pixel on the compute one: the default's cost over one sample.
        let mut one_sample = scene.clone();
        one_sample.output.samples = Some(1);
        for (name, compositor, scene) in [
            ("raster", Compositor::Raster, &scene),
            ("compute", Compositor::Compute, &scene),
            ("compute-one-sample", Compositor::Compute, &one_sample),
        ] {
            let config = RenderConfig {
                width,
                height,
                view: View::Fog,
                compositor,
                readback: Readback::default(),
            };
            let mut renderer = match Renderer::new(&context, scene, &config) {
                Ok(renderer) => renderer,
                Err(error) => {
                    println!("gpu_frame {width}x{height}/{name}: skipped: {error}");
                    continue;
                }
            };
            let mut playback = Playback::new(scene);
            let mut frame = FIRST_FRAME;
            // One frame to warm up pipelines and caches, not timed.
            let state = playback.advance_to(frame, || {});
            renderer
                .render_one(&playback.frame_inputs(&state))
                .expect("a warm-up frame");
            let before = renderer.times();
            let mut frames = 0_u64;
            group.bench_function(name, |b| {
                b.iter_custom(|iters| {
                    let mut spent = Duration::ZERO;
                    for _ in 0..iters {
                        spent +=
                            render_batch(&mut renderer, scene, &mut playback, &mut frame, batch);
                        frames += u64::from(batch);
                    }
                    spent
                })
            });
            if frames > 0 {
                print_stages(&renderer, &before, frames);
            }
        }
        group.finish();
    }
    c.final_summary();
}
