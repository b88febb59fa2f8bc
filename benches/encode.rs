//! Encoding benchmarks on criterion: one frame as PNG, as an animated PNG frame (filter +
//! deflate), as a GIF frame (palette, dithering, LZW) and as a half-float EXR (ZIP), at
//! 1920×1080 and 640×360; each stage of a GIF frame (colours, palette, mapping, LZW, write)
//! with its parallel stages on one thread and on every thread; then whole animated PNG and GIF
//! clips through their sinks on one thread and on every thread, as frames per second.
//!
//! Run with `cargo bench --bench encode`; arguments after `--` go to criterion (a filter such
//! as `'encode 640x360'`, `--quick`, `--save-baseline NAME`, `--baseline NAME`). The frames are
//! synthetic but fog-like: smooth gradients and soft bands with a little per-pixel noise, as a
//! rendered frame has after its 8-bit encode. `RAYON_NUM_THREADS` caps "every thread".
//! `FOGBANK_BENCH_FRAME=FILE.png` times a real frame (a render's `frame_NNNN.png`) at its own
//! size instead of the synthetic ones.

use criterion::{Criterion, SamplingMode, Throughput};
use fogbank::frame::Frame;
use fogbank::output::video::{VideoFormat, VideoSettings, apng, gif, open_video_with};
use std::time::{Duration, Instant};

/// A fog-like RGBA8 frame: a vertical gradient, soft diagonal bands drifting with `shift`, and
/// ±2 levels of hashed per-pixel noise.
fn foggy_frame(width: u32, height: u32, shift: u32) -> Vec<u8> {
    let mut rgba8 = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height {
        for x in 0..width {
            let u = x as f32 / width as f32;
            let v = y as f32 / height as f32;
            let band = ((u * 7.0 + v * 3.0 + shift as f32 * 0.05).sin() * 0.5 + 0.5) * 40.0;
            let mut hash = (x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77))
                .wrapping_add(shift.wrapping_mul(0xC2B2_AE3D));
            hash ^= hash >> 15;
            let noise = (hash % 5) as f32 - 2.0;
            let base = 70.0 + v * 90.0 + band + noise;
            rgba8.push((base * 0.92).clamp(0.0, 255.0) as u8);
            rgba8.push((base * 0.97).clamp(0.0, 255.0) as u8);
            rgba8.push((base + 12.0).clamp(0.0, 255.0) as u8);
            rgba8.push(255);
        }
    }
    rgba8
}

/// Pushes `count` frames, taken from `frames` in turn, through a sink of `format` on `threads`
/// threads.
fn push_clip(
    format: VideoFormat,
    frames: &[Vec<u8>],
    count: usize,
    (width, height): (u32, u32),
    threads: usize,
) {
    let dir = std::env::temp_dir().join(format!("fogbank-bench-encode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let path = dir.join(match format {
        VideoFormat::Gif => "clip.gif",
        _ => "clip.png",
    });
    let settings = VideoSettings {
        fps: 30,
        crf: None,
        preset: None,
    };
    let mut sink = open_video_with(
        &path,
        format,
        width,
        height,
        count,
        &settings,
        Some(threads),
    )
    .expect("opening the clip");
    for (i, rgba8) in frames.iter().cycle().take(count).enumerate() {
        sink.push(&Frame {
            frame_index: i as u32,
            width,
            height,
            rgba8: rgba8.clone().into(),
            linear_f16: None,
            fog_f16: None,
            weather_f16: None,
        })
        .expect("pushing a frame");
    }
    sink.finish().expect("finishing the clip");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The frame named by `FOGBANK_BENCH_FRAME=FILE.png`, decoded, if any. A bad file ends the
/// bench with a message naming it.
fn frame_from_env() -> Option<(u32, u32, Vec<u8>)> {
    let path = std::env::var_os("FOGBANK_BENCH_FRAME")?;
    let shown = std::path::Path::new(&path).display().to_string();
    let decoded = std::fs::read(&path)
        .map_err(|err| err.to_string())
        .and_then(|bytes| {
            fogbank::output::png::decode_rgba8(&bytes).map_err(|err| err.to_string())
        });
    match decoded {
        Ok(frame) => Some(frame),
        Err(err) => {
            eprintln!(
                "FOGBANK_BENCH_FRAME={shown}: cannot read it as a PNG frame ({err}); \
                 point it at a render's frame_NNNN.png"
            );
            std::process::exit(2);
        }
    }
}

/// The sample counts and times of every group, before criterion's own arguments (which win).
fn criterion_config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args()
}

fn main() {
    let given = frame_from_env();
    if std::env::args().any(|arg| arg == "--frame" || arg == "--stages") {
        eprintln!(
            "encode: --frame is now FOGBANK_BENCH_FRAME=FILE.png, and the GIF stages are the \
             'gif stages' group (filter: -- 'gif stages'); see benches/README.md"
        );
        std::process::exit(2);
    }
    let sizes: Vec<(u32, u32)> = match &given {
        Some((width, height, _)) => vec![(*width, *height)],
        None => vec![(1920, 1080), (640, 360)],
    };
    // The frame to time at `width` × `height`, shifted by `shift` for clips.
    let frame = |width: u32, height: u32, shift: u32| match &given {
        Some((_, _, rgba8)) => rgba8.clone(),
        None => foggy_frame(width, height, shift),
    };
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(all)
        .max(1);
    let mut counts = vec![1];
    if threads > 1 {
        counts.push(threads);
    }
    // Sizes in bytes, printed once, outside anything timed.
    for &(width, height) in &sizes {
        let rgba8 = frame(width, height, 0);
        let png_bytes = fogbank::output::png::encode_rgba8(width, height, &rgba8, true)
            .expect("PNG")
            .len();
        let apng_bytes = apng::deflate_frame(width, height, &rgba8)
            .expect("APNG")
            .len();
        println!("bytes {width}x{height}: png {png_bytes}, apng frame {apng_bytes}");
    }
    let mut c = criterion_config();
    for &(width, height) in &sizes {
        let mut group = c.benchmark_group(format!("encode {width}x{height}"));
        let rgba8 = frame(width, height, 0);
        group.bench_function("png frame", |b| {
            b.iter(|| fogbank::output::png::encode_rgba8(width, height, &rgba8, true).unwrap())
        });
        group.bench_function("apng frame", |b| {
            b.iter(|| apng::deflate_frame(width, height, &rgba8).unwrap())
        });
        group.bench_function("gif frame", |b| {
            b.iter(|| gif::compress_frame(width, height, &rgba8, 3))
        });
        // The palette and the indices alone: the rest of a GIF frame is its LZW.
        group.bench_function("gif quantize", |b| {
            b.iter(|| fogbank::output::gif::quantize(&rgba8, width))
        });
        // Half floats of the same picture, as a linear render reads back.
        let bits: Vec<u16> = rgba8
            .iter()
            .map(|&v| half::f16::from_f32(v as f32 / 255.0).to_bits())
            .collect();
        let zip = fogbank::output::exr::ExrCompression::Zip;
        group.bench_function("exr zip frame", |b| {
            b.iter(|| {
                fogbank::output::exr::encode_exr_rgba_f16_with(width, height, &bits, zip).unwrap()
            })
        });
        group.finish();
    }

    // Whole clips: frames/s on one thread and on every thread. The clip is long enough to keep
    // every thread busy (four frames per thread at least; fewer frames than threads would
    // measure the clip's length, not the encoder), cycling through up to eight distinct frames.
    for &(width, height) in &sizes {
        let count = if width * height > 1_000_000 { 16 } else { 48 };
        let count = count.max(4 * threads);
        let distinct = count.min(8) as u32;
        let frames: Vec<Vec<u8>> = (0..distinct).map(|i| frame(width, height, i)).collect();
        stage_benches(&mut c, &frames, width, height, &counts);
        let mut group = c.benchmark_group(format!("clip {width}x{height} {count} frames"));
        // A run is a whole clip: seconds, not microseconds.
        group.sampling_mode(SamplingMode::Flat);
        group.throughput(Throughput::Elements(count as u64));
        for (format, name) in [(VideoFormat::Apng, "apng"), (VideoFormat::Gif, "gif")] {
            for &pool_threads in &counts {
                group.bench_function(format!("{name} t{pool_threads}"), |b| {
                    b.iter(|| push_clip(format, &frames, count, (width, height), pool_threads))
                });
            }
        }
        group.finish();
    }
    c.final_summary();
}

/// The GIF frame's stages as benchmarks, with its parallel stages on one thread and on each
/// count of `counts`: counting the colours, choosing the palette, mapping the pixels, LZW, and
/// appending the frame to the file (here, to memory). Each run encodes a whole frame, taken
/// from `frames` in turn, and counts only its own stage's time.
fn stage_benches(c: &mut Criterion, frames: &[Vec<u8>], width: u32, height: u32, counts: &[usize]) {
    let mut group = c.benchmark_group(format!("gif stages {width}x{height}"));
    // A run encodes a whole frame, whatever stage it counts.
    group.sampling_mode(SamplingMode::Flat);
    for &pool_threads in counts {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(pool_threads)
            .build()
            .expect("a pool");
        for (stage, name) in ["colours", "palette", "mapping", "lzw", "write"]
            .into_iter()
            .enumerate()
        {
            group.bench_function(format!("{name} t{pool_threads}"), |b| {
                b.iter_custom(|iters| {
                    let mut totals = [Duration::ZERO; 5];
                    gif_stages(&pool, frames, iters, width, height, &mut totals);
                    totals[stage]
                })
            });
        }
    }
    group.finish();
}

/// Encodes `iters` GIF frames, taken from `frames` in turn, into memory and adds each stage's
/// time to `totals`.
fn gif_stages(
    pool: &rayon::ThreadPool,
    frames: &[Vec<u8>],
    iters: u64,
    width: u32,
    height: u32,
    totals: &mut [Duration; 5],
) {
    use fogbank::output::gif::{choose_palette, count_colours, map_pixels};
    let mut bytes = Vec::new();
    let mut encoder =
        ::gif::Encoder::new(&mut bytes, width as u16, height as u16, &[]).expect("a GIF in memory");
    for rgba8 in frames.iter().cycle().take(iters as usize) {
        let mut lap = Instant::now();
        let mut split = |stage: usize| {
            totals[stage] += lap.elapsed();
            lap = Instant::now();
        };
        let count = pool.install(|| count_colours(rgba8));
        split(0);
        let choice = choose_palette(count);
        split(1);
        let quantized = pool.install(|| map_pixels(&choice, rgba8, width));
        split(2);
        let palette: Vec<u8> = quantized.palette.iter().flatten().copied().collect();
        let mut gif_frame = ::gif::Frame::from_palette_pixels(
            width as u16,
            height as u16,
            quantized.indices,
            palette,
            None,
        );
        gif_frame.make_lzw_pre_encoded();
        split(3);
        encoder
            .write_lzw_pre_encoded_frame(&gif_frame)
            .expect("writing to memory");
        split(4);
    }
}
