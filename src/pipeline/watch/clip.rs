//! `fogbank watch --frames`: a short clip rendered again and again as its scene is edited.
//!
//! A [`ClipSession`] keeps, between turns, the world at the earliest step the clip's first
//! frame reads, with the scene's step hash. A turn whose scene has the same step hash (only
//! look fields changed) starts from that snapshot and steps only through the clip's own
//! range; any other turn starts from time 0 or the `--cache` folder. The frames are then
//! rendered and written by [`super::super::render`]'s pipeline (the frame loop and its writer
//! pool, every file atomic), so a clip's files are the bytes `fogbank render` writes.

use super::{KeptWorld, start};
use crate::Error;
use crate::gpu::GpuContext;
use crate::pipeline::frame_loop::GpuSource;
use crate::pipeline::frames_in_clip;
use crate::pipeline::report::{Reporter, Stage};
use crate::pipeline::sequence::{RenderOptions, RenderSummary, render_from};
use crate::scene::Scene;
use std::time::Instant;

/// The most frames a watched clip holds: every save renders them all again, so a longer clip
/// belongs to `fogbank render` (600 frames are 10 s at 60 fps).
pub const MAX_WATCH_FRAMES: usize = 600;

/// One turn's clip and what it cost.
#[derive(Debug, Clone)]
pub struct ClipTurn {
    /// What the render wrote: frames, their state hashes, the render's own timings.
    pub summary: RenderSummary,
    /// World steps simulated in this turn, from the start step to the last frame's step.
    pub steps_simulated: u64,
    /// The step the turn started from: 0, a `--cache` snapshot's or the kept state's.
    pub start_step: u64,
    /// Seconds spent stepping the world, before the first frame and between frames (wall
    /// clock, for the report only).
    pub simulate_s: f64,
    /// Seconds of the whole turn (wall clock, for the report only).
    pub total_s: f64,
}

/// Renders clips of a changing scene, keeping the world at the clip's start between turns
/// (see the module documentation).
#[derive(Debug, Default)]
pub struct ClipSession {
    kept: Option<KeptWorld>,
}

impl ClipSession {
    /// A session with nothing kept yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Renders `options.frames` of `scene` (size already applied; the whole clip when
    /// `None`) as [`super::super::render`] does, from the kept state when it still fits. The
    /// scene's clip is lengthened to reach the last frame asked for. A stop signal ends it
    /// with [`Error::Interrupted`], leaving whole files only; the kept state then stays as it
    /// was.
    pub fn render(
        &mut self,
        context: &GpuContext,
        scene: &Scene,
        options: &RenderOptions,
        reporter: &mut dyn Reporter,
    ) -> Result<ClipTurn, Error> {
        let clock = Instant::now();
        let mut scene = scene.clone();
        if let Some(last) = options.frames.as_ref().and_then(|f| f.last()) {
            let needed = last.saturating_add(1);
            if scene.output.frame_count() < needed {
                scene.output.frames = Some(needed);
            }
        }
        options.check(&scene)?;
        let frames = frames_in_clip(options.frames.as_ref(), &scene)?;
        let first = frames.frames().first().copied().unwrap_or(0);
        let last = frames.last().unwrap_or(0);
        let step_hash = scene.step_hash();
        let mut playback = start(
            self.kept.as_ref(),
            &scene,
            step_hash,
            options.cache_dir.as_deref(),
            first,
        )?;
        let start_step = playback.world().steps();
        let earliest = playback.earliest_step_of(first);
        let last_step = playback.timeline().steps_before(last);
        reporter.begin(Stage::Simulate, earliest.saturating_sub(start_step));
        let stepped = playback.advance_steps_or_stop(earliest, || {
            reporter.advance(Stage::Simulate, 1);
            crate::interrupt::poll()
        });
        if !stepped {
            return Err(Error::interrupted(0));
        }
        reporter.end(Stage::Simulate);
        let kept = KeptWorld {
            step_hash,
            steps: playback.world().steps(),
            snapshot: playback.world().snapshot(),
        };
        let to_first_s = clock.elapsed().as_secs_f64();
        let summary = render_from(
            GpuSource::Opened(context),
            &scene,
            options,
            Some(playback),
            reporter,
        )?;
        self.kept = Some(kept);
        Ok(ClipTurn {
            steps_simulated: last_step.saturating_sub(start_step),
            start_step,
            simulate_s: to_first_s + summary.simulate_s,
            total_s: clock.elapsed().as_secs_f64(),
            summary,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::Silent;
    use crate::timeline::FrameSet;
    use std::path::Path;

    fn small_scene() -> Scene {
        let mut scene = crate::scene::load(None, &[]).expect("the temple").scene;
        scene.fluid.grid = 32;
        scene.output.fps = 30;
        scene.output.frames = Some(4);
        scene.output.width = 32;
        scene.output.height = 18;
        scene
    }

    fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().to_string();
                (name, std::fs::read(&path).unwrap())
            })
            .collect();
        files.sort();
        files
    }

    #[test]
    fn a_change_of_look_steps_only_the_clip_and_writes_what_a_fresh_render_writes() {
        let Some(context) = crate::gpu::tests::context() else {
            return;
        };
        let root = std::env::temp_dir().join(format!("fogbank-clip-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let mut options = RenderOptions::new(root.join("watched"));
        // Past the scene's 4 frames: the session lengthens the clip.
        options.frames = Some(FrameSet::parse("6..9").unwrap());
        let mut session = ClipSession::new();
        let scene = small_scene();
        let first = session
            .render(&context, &scene, &options, &mut Silent)
            .unwrap();
        // Frame 8 at 30 fps is step 16.
        assert_eq!((first.start_step, first.steps_simulated), (0, 16));
        assert_eq!(first.summary.frames, 3);
        let first_files = files(&options.out_dir);
        let names: Vec<&str> = first_files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["frame_0006.png", "frame_0007.png", "frame_0008.png"]
        );

        let mut recoloured = scene.clone();
        recoloured.fog.color = [0.9, 0.3, 0.2];
        let second = session
            .render(&context, &recoloured, &options, &mut Silent)
            .unwrap();
        // From frame 6's step (12) to frame 8's (16).
        assert_eq!((second.start_step, second.steps_simulated), (12, 4));
        assert_eq!(second.summary.hashes, first.summary.hashes);
        let second_files = files(&options.out_dir);
        assert_ne!(second_files, first_files, "the edit shows");
        let fresh = RenderOptions {
            out_dir: root.join("fresh"),
            ..options.clone()
        };
        ClipSession::new()
            .render(&context, &recoloured, &fresh, &mut Silent)
            .unwrap();
        assert_eq!(files(&fresh.out_dir), second_files);

        // A change the step reads starts again from 0.
        let mut stirred = recoloured.clone();
        stirred.fluid.vorticity += 1.0;
        let third = session
            .render(&context, &stirred, &options, &mut Silent)
            .unwrap();
        assert_eq!((third.start_step, third.steps_simulated), (0, 16));
        assert_ne!(third.summary.hashes, second.summary.hashes);
        let _ = std::fs::remove_dir_all(&root);
    }
}
