//! Fog compositing benchmarks: wall time of one whole frame (`Renderer::render_one`: upload,
//! every pass, readback of the 8-bit picture) of the temple at frame 90 with the raster and
//! compute sheets (48, the default) and the raymarch reference (256 steps, and 64), at
//! 640×360 and 1920×1080 on the first adapter (`FOGBANK_GPU` picks another).
//!
//! Run with `cargo bench --bench fog`; `cargo bench --bench fog -- 1920x1080` measures one size,
//! `-- 1920x1080 raymarch` one compositor. Prints the median and the fastest of several runs
//! after two warm-up frames; frames per second is 1000 / median ms. The readback and the wait
//! for it are part of every number, so on a fast GPU the GPU's own time is lower (per-pass GPU
//! times come from timestamp queries, not from here).

use fogbank::frame::View;
use fogbank::gpu::{Compositor, GpuContext, GpuOptions, Readback, RenderConfig, Renderer};
use fogbank::playback::Playback;
use fogbank::scene::Scene;
use std::time::{Duration, Instant};

const FRAME: u32 = 90;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut sizes = vec![(640, 360), (1920, 1080)];
    if let Some(size) = args.iter().find_map(|a| fogbank::cli::parse_size(a).ok()) {
        sizes = vec![size];
    }
    // Words that are not a size pick compositors by the start of their name.
    let picks: Vec<&String> = args
        .iter()
        .filter(|a| fogbank::cli::parse_size(a).is_err())
        .collect();
    let compositors = [
        ("raster 48", Compositor::Raster),
        ("compute 48", Compositor::Compute),
        ("raymarch 64", Compositor::Raymarch { steps: 64 }),
        ("raymarch 256", Compositor::Raymarch { steps: 256 }),
    ];
    let mut options = GpuOptions::default();
    if let Ok(index) = std::env::var("FOGBANK_GPU") {
        options.adapter_index = index.trim().parse().ok();
    }
    let ctx = GpuContext::new(&options).expect("a GPU adapter");
    println!("adapter: {}", ctx.summary().name);
    let scene = Scene::default();
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(FRAME, || {});
    let inputs = playback.frame_inputs(&state);
    for (width, height) in sizes {
        for (name, compositor) in compositors {
            if !picks.is_empty() && !picks.iter().any(|p| name.starts_with(p.as_str())) {
                continue;
            }
            let mut sized = scene.clone();
            sized.output.width = width;
            sized.output.height = height;
            let config = RenderConfig {
                width,
                height,
                view: View::Fog,
                compositor,
                readback: Readback::default(),
            };
            let mut renderer = Renderer::new(&ctx, &sized, &config).expect("renderer");
            for _ in 0..2 {
                renderer.render_one(&inputs).expect("warm-up frame");
            }
            let runs = 7;
            let mut samples: Vec<Duration> = (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    renderer.render_one(&inputs).expect("frame");
                    t.elapsed()
                })
                .collect();
            samples.sort();
            let median_ms = samples[runs / 2].as_secs_f64() * 1e3;
            println!(
                "{width}x{height} {name:<13} median {median_ms:>9.2} ms ({:>7.1} frames/s)   \
                 fastest {:>9.2} ms   ({runs} runs)",
                1e3 / median_ms,
                samples[0].as_secs_f64() * 1e3
            );
        }
    }
}
