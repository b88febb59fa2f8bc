//! Fog compositing benchmarks on criterion: wall time of one whole frame
//! (`Renderer::render_one`: upload, every pass, readback of the 8-bit picture) of the temple at
//! frame 90 with the raster and compute sheets (48, the default) and the raymarch reference
//! (256 steps, and 64), at 640×360 and 1920×1080 on the first adapter (`FOGBANK_GPU` picks
//! another). Without an adapter it says so and exits cleanly.
//!
//! Run with `cargo bench --bench fog`; arguments after `--` go to criterion:
//! `-- 1920x1080` measures one size, `-- '1920x1080/raymarch'` one compositor, and
//! `--save-baseline NAME` / `--baseline NAME` keep and compare figures. Each frame is one run
//! (flat sampling, 10 runs after a short warm-up); frames per second is the throughput line.
//! The readback and the wait for it are part of every number, so on a fast GPU the GPU's own
//! time is lower (per-pass GPU times come from timestamp queries, not from here).

use criterion::{Criterion, SamplingMode, Throughput};
use fogbank::frame::View;
use fogbank::gpu::{Compositor, GpuContext, GpuOptions, Readback, RenderConfig, Renderer};
use fogbank::playback::Playback;
use fogbank::scene::Scene;
use std::time::Duration;

const FRAME: u32 = 90;

fn main() {
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
    let ctx = match GpuContext::new(&options) {
        Ok(ctx) => ctx,
        Err(error) => {
            println!("fog: skipped, no GPU adapter: {error}");
            return;
        }
    };
    println!("adapter: {}", ctx.summary().name);
    let scene = Scene::default();
    // An adapter that cannot hold the renderer (a GL fallback without view formats) is skipped
    // like a missing one, before anything is timed.
    let probe = RenderConfig {
        width: 64,
        height: 36,
        view: View::Fog,
        compositor: Compositor::Auto,
        readback: Readback::default(),
    };
    if let Err(error) = Renderer::new(&ctx, &scene, &probe) {
        println!("fog: skipped, the adapter cannot render: {error}");
        return;
    }
    let mut playback = Playback::new(&scene);
    let state = playback.advance_to(FRAME, || {});
    let inputs = playback.frame_inputs(&state);
    // A frame takes from milliseconds on a GPU to seconds on lavapipe: a frame a run, ten runs.
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    for (width, height) in [(640, 360), (1920, 1080)] {
        let mut group = c.benchmark_group(format!("fog {width}x{height}"));
        group.sampling_mode(SamplingMode::Flat);
        group.throughput(Throughput::Elements(1));
        for (name, compositor) in compositors {
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
            // Built when the filter keeps this benchmark, not before.
            let mut renderer: Option<Renderer> = None;
            group.bench_function(name, |b| {
                let renderer = renderer
                    .get_or_insert_with(|| Renderer::new(&ctx, &sized, &config).expect("renderer"));
                b.iter(|| renderer.render_one(&inputs).expect("frame"))
            });
        }
        group.finish();
    }
    c.final_summary();
}
