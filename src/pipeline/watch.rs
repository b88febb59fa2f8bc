//! The library side of `fogbank watch`: one still, rendered again and again as its scene is
//! edited, re-simulating only what an edit reaches.
//!
//! A [`StillSession`] keeps, between turns, a snapshot of the world in memory: the state at
//! the earliest step the last still read ([`Playback::earliest_step_of`]), with the scene's
//! step hash ([`Scene::step_hash`]). A turn whose scene has the same step hash (only look
//! fields changed: colours, lights, the camera's framing, the size) and whose frame lies at
//! or after that step starts from the snapshot. A changed fluid, or an earlier frame, starts
//! from time 0 (or from the `--cache` folder). The picture is the same bytes either way: the
//! snapshot holds the whole state, and the step reads nothing the snapshot leaves out.
//!
//! A [`ClipSession`] (`clip.rs`) does the same for a short clip: it keeps the world at the
//! first frame's earliest step and renders the frames with [`super::render`]'s pipeline.

mod clip;

pub use clip::{ClipSession, ClipTurn, MAX_WATCH_FRAMES};

use super::frame_loop::start_playback;
use super::report::{Reporter, Stage};
use super::still::{Still, StillOptions};
use crate::Error;
use crate::gpu::{GpuContext, Readback, RenderConfig, Renderer};
use crate::playback::Playback;
use crate::scene::Scene;
use std::path::Path;
use std::time::Instant;

/// The world kept between turns.
#[derive(Debug, Clone)]
struct KeptWorld {
    /// The step hash of the scene it was stepped with.
    step_hash: u64,
    /// Steps it had taken.
    steps: u64,
    /// Its [`crate::world::World::snapshot`].
    snapshot: Vec<u8>,
}

/// One turn's still and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The picture and its state hash.
    pub still: Still,
    /// World steps simulated in this turn (0 when the kept state was the frame's own).
    pub steps_simulated: u64,
    /// The step the turn started from: 0, a `--cache` snapshot's or the kept state's.
    pub start_step: u64,
    /// Seconds spent stepping the world (wall clock, for the report only).
    pub simulate_s: f64,
    /// Seconds spent building the renderer and drawing (wall clock, for the report only).
    pub render_s: f64,
}

/// Renders stills of a changing scene, keeping the world between turns (see the module
/// documentation).
#[derive(Debug, Default)]
pub struct StillSession {
    kept: Option<KeptWorld>,
}

impl StillSession {
    /// A session with nothing kept yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Simulates `scene` (size already applied) to `options.frame`, from the kept state when
    /// it still fits, and renders that frame. A stop signal ends it with
    /// [`Error::Interrupted`]; the kept state then stays as it was.
    pub fn render(
        &mut self,
        context: &GpuContext,
        scene: &Scene,
        options: &StillOptions,
        reporter: &mut dyn Reporter,
    ) -> Result<Turn, Error> {
        let mut scene = scene.clone();
        let needed = options.frame.saturating_add(1);
        if scene.output.frame_count() < needed {
            scene.output.frames = Some(needed);
        }
        let step_hash = scene.step_hash();
        let clock = Instant::now();
        let mut playback = start(
            self.kept.as_ref(),
            &scene,
            step_hash,
            options.cache_dir.as_deref(),
            options.frame,
        )?;
        let start_step = playback.world().steps();
        let earliest = playback.earliest_step_of(options.frame);
        let target = playback.timeline().steps_before(options.frame);
        reporter.begin(Stage::Simulate, target.saturating_sub(start_step));
        let mut on_step = || {
            reporter.advance(Stage::Simulate, 1);
            crate::interrupt::poll()
        };
        if !playback.advance_steps_or_stop(earliest, &mut on_step) {
            return Err(Error::interrupted(0));
        }
        let kept = KeptWorld {
            step_hash,
            steps: playback.world().steps(),
            snapshot: playback.world().snapshot(),
        };
        let Some(state) = playback.advance_to_or_stop(options.frame, on_step) else {
            return Err(Error::interrupted(0));
        };
        reporter.end(Stage::Simulate);
        let simulate_s = clock.elapsed().as_secs_f64();
        let clock = Instant::now();
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
        let mut frame = renderer.render_one(&playback.frame_inputs(&state))?;
        let compositor = renderer.compositor();
        super::still::stamp_still(&scene, &mut frame, &state, options.view, compositor);
        self.kept = Some(kept);
        Ok(Turn {
            still: Still {
                frame,
                state_hash: state.hash,
            },
            steps_simulated: state.steps - start_step,
            start_step,
            simulate_s,
            render_s: clock.elapsed().as_secs_f64(),
        })
    }
}

/// The playback a turn starts from: the kept state when its step hash is the scene's and it
/// lies at or before `first_frame`'s earliest step, else time 0 or the `--cache` folder.
fn start(
    kept: Option<&KeptWorld>,
    scene: &Scene,
    step_hash: u64,
    cache_dir: Option<&Path>,
    first_frame: u32,
) -> Result<Playback, Error> {
    let fresh = start_playback(cache_dir, scene, first_frame)?;
    let earliest = fresh.earliest_step_of(first_frame);
    let Some(kept) = kept else {
        return Ok(fresh);
    };
    let fits = kept.step_hash == step_hash && kept.steps <= earliest;
    let nearer = kept.steps > fresh.world().steps();
    if fits
        && nearer
        && let Ok(playback) = Playback::from_snapshot(scene, &kept.snapshot)
    {
        return Ok(playback);
    }
    Ok(fresh)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::View;
    use crate::gpu::Compositor;
    use crate::pipeline::Silent;

    fn small_scene() -> Scene {
        let mut scene = crate::scene::load(None, &[]).expect("the temple").scene;
        scene.fluid.grid = 32;
        scene.output.fps = 60;
        scene.output.width = 32;
        scene.output.height = 18;
        scene
    }

    #[test]
    fn a_change_of_look_starts_from_the_kept_world_and_draws_what_a_fresh_run_draws() {
        let Some(context) = crate::gpu::tests::context() else {
            return;
        };
        let options = StillOptions {
            frame: 20,
            view: View::Fog,
            compositor: Compositor::Raster,
            cache_dir: None,
        };
        let mut session = StillSession::new();
        let scene = small_scene();
        let first = session
            .render(&context, &scene, &options, &mut Silent)
            .unwrap();
        assert_eq!((first.start_step, first.steps_simulated), (0, 20));
        let mut recoloured = scene.clone();
        recoloured.fog.color = [0.9, 0.3, 0.2];
        let second = session
            .render(&context, &recoloured, &options, &mut Silent)
            .unwrap();
        assert_eq!((second.start_step, second.steps_simulated), (20, 0));
        let fresh = StillSession::new()
            .render(&context, &recoloured, &options, &mut Silent)
            .unwrap();
        assert_eq!(second.still, fresh.still);
        assert_ne!(second.still.frame.rgba8, first.still.frame.rgba8);
        // A change the step reads starts again from 0; a later frame goes on from the kept one.
        let mut stirred = recoloured.clone();
        stirred.fluid.vorticity += 1.0;
        let third = session
            .render(&context, &stirred, &options, &mut Silent)
            .unwrap();
        assert_eq!((third.start_step, third.steps_simulated), (0, 20));
        let later = StillOptions {
            frame: 30,
            ..options
        };
        let fourth = session
            .render(&context, &stirred, &later, &mut Silent)
            .unwrap();
        assert_eq!((fourth.start_step, fourth.steps_simulated), (20, 10));
    }
}
