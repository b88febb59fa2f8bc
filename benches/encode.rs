//! Encoding benchmarks: one frame as PNG, as an animated PNG frame (filter + deflate), as a GIF
//! frame (palette, dithering, LZW) and as a half-float EXR (ZIP), at 1920×1080 and 640×360;
//! then whole animated PNG and GIF clips through their sinks on one thread and on every
//! thread, which gives the frames per second of a clip and the parallel speedup.
//!
//! Run with `cargo bench --bench encode`. The frames are synthetic but fog-like: smooth
//! gradients and soft bands with a little per-pixel noise, as a rendered frame has after its
//! 8-bit encode. Prints the median and the fastest of several runs; compare ratios, not
//! absolute numbers, on a noisy machine. `RAYON_NUM_THREADS` caps "every thread".
//! `cargo bench --bench encode -- --quick` runs fewer repetitions; `-- --frame FILE.png` times
//! a real frame (a render's `frame_NNNN.png`) at its own size instead of the synthetic ones;
//! `-- --stages` adds the time of each stage of a GIF frame (colours, palette, mapping, LZW,
//! write) with its parallel stages on one thread and on every thread.

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

/// Runs `f` `runs` times and prints the median and fastest; returns the median.
fn time<F: FnMut()>(name: &str, runs: usize, mut f: F) -> Duration {
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    samples.sort();
    let median = samples[runs / 2];
    println!(
        "{name:<30} median {:>9.3} ms   fastest {:>9.3} ms   ({runs} runs)",
        median.as_secs_f64() * 1e3,
        samples[0].as_secs_f64() * 1e3
    );
    median
}

/// Pushes `count` frames, taken from `frames` in turn, through a sink of `format` on `threads`
/// threads and returns frames/s.
fn clip_rate(
    format: VideoFormat,
    frames: &[Vec<u8>],
    count: usize,
    (width, height): (u32, u32),
    threads: usize,
) -> f64 {
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
    let started = Instant::now();
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
    let rate = count as f64 / started.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&dir);
    rate
}

/// The frame named by `--frame FILE.png`, decoded, if any.
fn frame_from_args() -> Option<(u32, u32, Vec<u8>)> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .iter()
        .position(|a| a == "--frame")
        .and_then(|i| args.get(i + 1))?;
    let bytes = std::fs::read(path).expect("reading --frame");
    Some(fogbank::output::png::decode_rgba8(&bytes).expect("decoding --frame"))
}

fn main() {
    let quick = std::env::args().any(|arg| arg == "--quick");
    let stages = std::env::args().any(|arg| arg == "--stages");
    let given = frame_from_args();
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
    for &(width, height) in &sizes {
        let size = format!("{width}x{height}");
        let rgba8 = frame(width, height, 0);
        let runs = if quick {
            3
        } else if width > 1000 {
            7
        } else {
            21
        };
        let png_bytes = fogbank::output::png::encode_rgba8(width, height, &rgba8, true)
            .expect("PNG")
            .len();
        time(&format!("png frame {size}"), runs, || {
            std::hint::black_box(
                fogbank::output::png::encode_rgba8(width, height, &rgba8, true).unwrap(),
            );
        });
        let apng_bytes = apng::deflate_frame(width, height, &rgba8)
            .expect("APNG")
            .len();
        time(&format!("apng frame {size}"), runs, || {
            std::hint::black_box(apng::deflate_frame(width, height, &rgba8).unwrap());
        });
        time(&format!("gif frame {size}"), runs, || {
            std::hint::black_box(gif::compress_frame(width, height, &rgba8, 3));
        });
        // The palette and the indices alone: the rest of a GIF frame is its LZW.
        time(&format!("gif quantize {size}"), runs, || {
            std::hint::black_box(fogbank::output::gif::quantize(&rgba8, width));
        });
        // Half floats of the same picture, as a linear render reads back.
        let bits: Vec<u16> = rgba8
            .iter()
            .map(|&v| half::f16::from_f32(v as f32 / 255.0).to_bits())
            .collect();
        let zip = fogbank::output::exr::ExrCompression::Zip;
        time(&format!("exr zip frame {size}"), runs, || {
            std::hint::black_box(
                fogbank::output::exr::encode_exr_rgba_f16_with(width, height, &bits, zip).unwrap(),
            );
        });
        println!("  bytes: png {png_bytes}, apng frame {apng_bytes}");
    }

    // Whole clips: frames/s on one thread and on every thread. The clip is long enough to keep
    // every thread busy (four frames per thread at least; fewer frames than threads would
    // measure the clip's length, not the encoder), cycling through up to eight distinct frames.
    for &(width, height) in &sizes {
        let count = if width * height > 1_000_000 { 16 } else { 48 };
        let count = if quick { count / 2 } else { count };
        let count = count.max(4 * threads);
        let distinct = count.min(8) as u32;
        let frames: Vec<Vec<u8>> = (0..distinct).map(|i| frame(width, height, i)).collect();
        if stages {
            stage_times(&frames, width, height, threads);
        }
        for (format, name) in [(VideoFormat::Apng, "apng"), (VideoFormat::Gif, "gif")] {
            let one = clip_rate(format, &frames, count, (width, height), 1);
            let many = clip_rate(format, &frames, count, (width, height), threads);
            println!(
                "{name} clip {width}x{height}, {count} frames: {one:>7.2} frames/s on 1 thread, \
                 {many:>7.2} on {threads} ({:.2}x)",
                many / one
            );
        }
    }
}

/// Prints the time of each stage of a GIF frame, per frame (mean over `frames`), with the
/// frame's parallel stages on one thread and on `threads`: counting the colours, choosing the
/// palette, mapping the pixels, LZW, and appending the frame to the file (here, to memory).
fn stage_times(frames: &[Vec<u8>], width: u32, height: u32, threads: usize) {
    use fogbank::output::gif::{choose_palette, count_colours, map_pixels};
    let mut counts = vec![1];
    if threads > 1 {
        counts.push(threads);
    }
    for pool_threads in counts {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(pool_threads)
            .build()
            .expect("a pool");
        let mut totals = [Duration::ZERO; 5];
        let mut bytes = Vec::new();
        let mut encoder = ::gif::Encoder::new(&mut bytes, width as u16, height as u16, &[])
            .expect("a GIF in memory");
        for rgba8 in frames {
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
        let per_frame = |d: Duration| d.as_secs_f64() * 1e3 / frames.len() as f64;
        let [count, palette, map, lzw, write] = totals.map(per_frame);
        println!(
            "gif stages {width}x{height} on {pool_threads} thread(s), ms a frame: colours \
             {count:.2}, palette {palette:.2}, mapping {map:.2}, lzw {lzw:.2}, write {write:.2} \
             (total {:.2})",
            count + palette + map + lzw + write
        );
    }
}
