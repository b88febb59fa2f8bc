//! One frame on its own: simulate up to it and render just that picture.
//!
//! A still may lie past the clip's nominal end (the clip length only bounds sequences), and its
//! progress is counted in 60 Hz steps, since the whole cost is stepping the world to it.

use super::frame_loop::start_playback;
use super::report::{Reporter, Stage};
use crate::Error;
use crate::frame::{Frame, View};
use crate::gpu::{Compositor, GpuContext, Readback, RenderConfig, Renderer};
use crate::output::caption::{Caption, FrameFacts};
use crate::playback::FrameState;
use crate::scene::Scene;
use std::path::PathBuf;

/// Which frame [`still`] renders, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StillOptions {
    /// The output frame (the picture at time frame / fps).
    pub frame: u32,
    /// What to show.
    pub view: View,
    /// How the fog sheets are put over the scene.
    pub compositor: Compositor,
    /// Start from this simulation cache (`--cache`).
    pub cache_dir: Option<PathBuf>,
}

/// A rendered still and the state it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Still {
    /// The picture.
    pub frame: Frame,
    /// The world state hash at that frame.
    pub state_hash: u64,
}

/// Burns the scene's caption strip (`--stamp`, `--caption`) into a still's 8-bit picture;
/// leaves it as rendered when the scene has none.
pub(super) fn stamp_still(
    scene: &Scene,
    frame: &mut Frame,
    state: &FrameState,
    view: View,
    compositor: Compositor,
) {
    if let Some(caption) = Caption::for_scene(scene) {
        let facts = FrameFacts {
            frame: state.frame,
            time_s: state.time_s,
            view,
            compositor,
            samples: scene.output.samples_everywhere(),
            state_hash: state.hash,
        };
        let (width, height) = (frame.width, frame.height);
        caption.stamp(&mut frame.rgba8, width, height, &facts);
    }
}

/// Simulates `scene` (size already applied) up to `options.frame` and renders that frame.
pub fn still(
    context: &GpuContext,
    scene: &Scene,
    options: &StillOptions,
    reporter: &mut dyn Reporter,
) -> Result<Still, Error> {
    let mut scene = scene.clone();
    let needed = options.frame.saturating_add(1);
    if scene.output.frame_count() < needed {
        scene.output.frames = Some(needed);
    }
    let mut renderer = Renderer::new(
        context,
        &scene,
        &RenderConfig {
            width: scene.output.width,
            height: scene.output.height,
            view: options.view,
            compositor: options.compositor,
            readback: Readback::default(),
        },
    )?;
    let mut playback = start_playback(options.cache_dir.as_deref(), &scene, options.frame)?;
    let steps = playback.timeline().steps_before(options.frame);
    reporter.begin(Stage::Simulate, steps);
    let state = playback.advance_to_or_stop(options.frame, || {
        reporter.advance(Stage::Simulate, 1);
        crate::interrupt::poll()
    });
    let Some(state) = state else {
        return Err(Error::interrupted(0));
    };
    reporter.end(Stage::Simulate);
    let mut frame = renderer.render_one(&playback.frame_inputs(&state))?;
    stamp_still(
        &scene,
        &mut frame,
        &state,
        options.view,
        renderer.compositor(),
    );
    Ok(Still {
        frame,
        state_hash: state.hash,
    })
}
