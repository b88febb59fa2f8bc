//! Weather benchmarks: what weather costs a frame. Renders frames of scenes/storm.ron at
//! 640×360 (or `--size WxH`) — one just after a strike (bolt, flash) and one in the full storm —
//! and the same frames of the same scene with its `weather` section removed (a clear evening
//! without weather: no wind, no gloom, no bolt), then prints the median time per frame of each
//! and their ratio. The budget: a storm frame at most 1.3× a clear one on lavapipe at
//! 640×360, at most 1.2× on a discrete GPU at 1920×1080.
//!
//! Run with `cargo bench --bench weather` (or `-- --size 1920x1080`). The world is stepped to
//! each frame once, outside the timing; only `Renderer::render_one` (upload, passes, readback)
//! is timed, the two scenes in turn. The world's step with and without weather is timed too.
//! Without an adapter it says so and exits cleanly.

use fogbank::gpu::{Compositor, GpuContext, GpuOptions, Readback, RenderConfig, Renderer};
use fogbank::playback::Playback;
use fogbank::scene::{Scene, load};
use fogbank::world::World;
use std::time::{Duration, Instant};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Median times to render `frame` of each of `scenes`, over `runs` renders each, taken in
/// turn (one of each per round), so a machine that slows down or speeds up part-way through
/// weighs on every scene alike.
fn frame_times(
    gpu: &GpuContext,
    scenes: &[&Scene],
    frame: u32,
    size: (u32, u32),
    runs: usize,
) -> Vec<Duration> {
    let config = RenderConfig {
        width: size.0,
        height: size.1,
        view: Default::default(),
        compositor: Compositor::Auto,
        readback: Readback::default(),
    };
    let mut setups: Vec<(Renderer, Playback)> = scenes
        .iter()
        .map(|scene| {
            let mut playback = Playback::new(scene);
            playback.advance_to(frame, || {});
            (
                Renderer::new(gpu, scene, &config).expect("renderer"),
                playback,
            )
        })
        .collect();
    let mut samples = vec![Vec::new(); scenes.len()];
    // Two warm-up rounds (pipelines, first uploads), then the timed ones.
    for round in 0..runs + 2 {
        for ((renderer, playback), samples) in setups.iter_mut().zip(&mut samples) {
            let state = playback.advance_to(frame, || {});
            let inputs = playback.frame_inputs(&state);
            let t = Instant::now();
            renderer.render_one(&inputs).expect("frame");
            if round >= 2 {
                samples.push(t.elapsed());
            }
        }
    }
    samples.into_iter().map(median).collect()
}

/// Median time of one world step (steps 300 to 480 of the clip, a storm rolling in).
fn step_time(scene: &Scene) -> Duration {
    let mut world = World::new(scene);
    for _ in 0..300 {
        world.step();
    }
    median(
        (0..180)
            .map(|_| {
                let t = Instant::now();
                world.step();
                t.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let size = args
        .iter()
        .position(|a| a == "--size")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.split_once('x'))
        .map(|(w, h)| (w.parse().expect("width"), h.parse().expect("height")))
        .unwrap_or((640, 360));
    let storm = load(Some(std::path::Path::new("scenes/storm.ron")), &[])
        .expect("scenes/storm.ron")
        .scene;
    let clear = Scene {
        weather: None,
        ..storm.clone()
    };
    let gpu = match GpuContext::new(&GpuOptions::default()) {
        Ok(gpu) => gpu,
        Err(error) => {
            println!("weather: skipped, no GPU adapter: {error}");
            return;
        }
    };
    println!("adapter: {} ({}×{})", gpu.adapter_info.name, size.0, size.1);
    // An adapter that cannot hold the renderer (a GL fallback without view formats) is skipped
    // like a missing one, before anything is timed.
    let probe = RenderConfig {
        width: 64,
        height: 36,
        view: Default::default(),
        compositor: Compositor::Auto,
        readback: Readback::default(),
    };
    if let Err(error) = Renderer::new(&gpu, &storm, &probe) {
        println!("weather: skipped, the adapter cannot render: {error}");
        return;
    }
    let runs = 21;
    for (frame, what) in [(392, "just after a strike"), (480, "full storm")] {
        let times = frame_times(&gpu, &[&storm, &clear], frame, size, runs);
        let (with, without) = (times[0], times[1]);
        println!(
            "frame {frame} ({what}): storm {:.2} ms, no weather {:.2} ms, ratio {:.3}",
            with.as_secs_f64() * 1e3,
            without.as_secs_f64() * 1e3,
            with.as_secs_f64() / without.as_secs_f64()
        );
    }
    let with = step_time(&storm);
    let without = step_time(&clear);
    println!(
        "world step: storm {:.3} ms, no weather {:.3} ms, ratio {:.3}",
        with.as_secs_f64() * 1e3,
        without.as_secs_f64() * 1e3,
        with.as_secs_f64() / without.as_secs_f64()
    );
}
