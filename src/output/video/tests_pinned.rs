//! The bytes of a short GIF and animated PNG clip, pinned to hashes recorded from `main` before
//! the GIF and animated PNG sinks were restructured for speed (issue 15): any change to the
//! quantiser, the dithering, the LZW or the container shows here, on any thread count.
//!
//! The clip walks every path of the GIF quantiser: fog-like gradients with noise (an exact
//! histogram of fewer than 65536 colours), a frame of four colours (stored exactly, no
//! dithering) and a frame of random colours (more than 65536: the binned histogram).

use super::test_support::{gradient, settings, temp_dir};
use super::{VideoFormat, open_video_with};
use crate::frame::Frame;
use crate::rng::SplitMix64;
use crate::sim::fnv1a64;

const WIDTH: u32 = 320;
const HEIGHT: u32 = 216;

/// The clip's frames: noisy gradients, four flat colours, random colours, a gradient again.
fn clip() -> Vec<Vec<u8>> {
    let mut rng = SplitMix64::new(15);
    let mut noisy = |shift: u32| -> Vec<u8> {
        let mut rgba8 = gradient(WIDTH, HEIGHT, shift);
        for (i, v) in rgba8.iter_mut().enumerate() {
            if i % 4 != 3 {
                *v = v.saturating_add((rng.next_u64() % 5) as u8);
            }
        }
        rgba8
    };
    let mut frames: Vec<Vec<u8>> = (0..4).map(|i| noisy(i * 5)).collect();
    let colours = [[12u8, 30, 50], [200, 190, 170], [90, 90, 90], [250, 20, 20]];
    frames.push(
        (0..WIDTH * HEIGHT)
            .flat_map(|i| {
                let [r, g, b] = colours[((i / 7 + i / WIDTH) % 4) as usize];
                [r, g, b, 255]
            })
            .collect(),
    );
    let mut random = SplitMix64::new(99);
    frames.push(
        (0..WIDTH * HEIGHT)
            .flat_map(|_| {
                let v = random.next_u64();
                [v as u8, (v >> 8) as u8, (v >> 16) as u8, 255]
            })
            .collect(),
    );
    frames.push(gradient(WIDTH, HEIGHT, 40));
    frames
}

/// The clip written as `format` at 30 fps on `threads` threads: (FNV-1a 64 of the file, its
/// length in bytes).
fn clip_hash(format: VideoFormat, threads: usize) -> (u64, usize) {
    let frames = clip();
    let dir = temp_dir(&format!("pinned-{format:?}-{threads}"));
    let path = dir.join(match format {
        VideoFormat::Gif => "clip.gif",
        _ => "clip.png",
    });
    let mut sink = open_video_with(
        &path,
        format,
        WIDTH,
        HEIGHT,
        frames.len(),
        &settings(30),
        Some(threads),
    )
    .unwrap();
    for (i, rgba8) in frames.into_iter().enumerate() {
        sink.push(&Frame {
            frame_index: i as u32,
            width: WIDTH,
            height: HEIGHT,
            rgba8: rgba8.into(),
            linear_f16: None,
            fog_f16: None,
            weather_f16: None,
        })
        .unwrap();
    }
    sink.finish().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    (fnv1a64(&bytes), bytes.len())
}

/// Recorded from `main` at b0d74f4 (the sinks before the restructuring), on one thread.
const GIF_PINNED: (u64, usize) = (0xce32_6dca_2390_c848, 236_780);
/// Recorded from `main` at b0d74f4, on one thread.
const APNG_PINNED: (u64, usize) = (0xd5b0_58a7_7cee_3af4, 723_920);

#[test]
fn gif_bytes_match_main_on_any_thread_count() {
    for threads in [1, 3] {
        let got = clip_hash(VideoFormat::Gif, threads);
        assert_eq!(got, GIF_PINNED, "GIF on {threads} threads: {got:#x?}");
    }
}

#[test]
fn apng_bytes_match_main_on_any_thread_count() {
    for threads in [1, 3] {
        let got = clip_hash(VideoFormat::Apng, threads);
        assert_eq!(
            got, APNG_PINNED,
            "animated PNG on {threads} threads: {got:#x?}"
        );
    }
}
