//! The frame loop hands frames on in buffers of the readback ring's pool: over many frames
//! written as PNGs the pool allocates only a handful of buffers and reuses them, and the bytes
//! are those of a still render of the same frame, with and without padded rows.

use super::context;
use crate::frame::View;
use crate::gpu::{Compositor, FRAMES_IN_FLIGHT};
use crate::output::writer::{ImageFormat, WriteJob};
use crate::pipeline::{FrameJob, LoopOptions, Silent, StillOptions, run_frames_with, still};
use crate::scene::Scene;
use crate::timeline::FrameSet;

/// Frames rendered per size: many more than any buffer count the pool may reach.
const FRAMES: u32 = 24;

#[test]
fn frame_buffers_are_recycled_and_bytes_match_a_still() {
    let Some(ctx) = context() else { return };
    let out = std::env::temp_dir().join(format!("fogbank-readback-pool-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    // 70 wide: 280-byte rows padded to 512 in the staging buffer; 64 wide: no padding.
    for (width, height) in [(70, 38), (64, 36)] {
        let mut scene = Scene::default();
        scene.output.width = width;
        scene.output.height = height;
        scene.output.frames = Some(FRAMES);
        let frames = FrameSet::from_list(0..FRAMES);
        let job = FrameJob {
            scene: &scene,
            frames: &frames,
            view: View::Fog,
            compositor: Compositor::Auto,
            readback: Default::default(),
            maps_dir: None,
            cache_dir: None,
        };
        // One encoder and a queue of two: at most a few frames are alive at once.
        let options = LoopOptions {
            skip: &[],
            encoder_threads: Some(1),
        };
        let kept_frame = FRAMES - 3;
        let mut kept = None;
        let stats = run_frames_with(&ctx, &job, options, &mut Silent, |frame, pool| {
            assert_eq!(frame.rgba8.len(), (width * height * 4) as usize);
            if frame.frame_index == kept_frame {
                kept = Some(frame.rgba8.to_vec());
            }
            pool.submit(WriteJob {
                path: out.join(format!("frame_{width}_{}.png", frame.frame_index)),
                width,
                height,
                rgba8: frame.rgba8,
                srgb: true,
                format: ImageFormat::Png,
            })
        })
        .unwrap();
        let buffers = stats.gpu.frame_buffers;
        assert_eq!(stats.rendered, FRAMES as usize);
        // Alive at once: the frames the readback thread has copied ahead, one in the loop's
        // hands, the encoder's and its queue of two.
        assert!(
            buffers.allocated <= FRAMES_IN_FLIGHT + 4,
            "{width}x{height}: {buffers:?}: the pool should recycle, not allocate per frame"
        );
        assert_eq!(
            buffers.allocated + buffers.reused,
            FRAMES as usize,
            "every frame is one buffer, new or reused: {buffers:?}"
        );
        let single = still(
            &ctx,
            &scene,
            &StillOptions {
                frame: kept_frame,
                view: View::Fog,
                compositor: Compositor::Auto,
                cache_dir: None,
            },
            &mut Silent,
        )
        .unwrap();
        assert!(
            kept.as_deref() == Some(&single.frame.rgba8[..]),
            "{width}x{height}: frame {kept_frame} of the loop differs from a still"
        );
        let written = image::open(out.join(format!("frame_{width}_{kept_frame}.png")))
            .unwrap()
            .to_rgba8();
        assert!(
            written.as_raw()[..] == single.frame.rgba8[..],
            "the PNG differs"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
