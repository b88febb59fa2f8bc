//! The frame loop: playback → frame inputs → renderer → readback → sink, frame after frame.
//!
//! It is the only code that joins the world and the GPU. Simulation, GPU and encoding overlap:
//! the world steps on a thread of its own up to [`FRAMES_AHEAD`] frames ahead, the renderer
//! reads frames back through a ring of staging buffers and returns the oldest finished one
//! while the next renders, and the sink hands files to a [`WriterPool`] whose bounded queue
//! keeps memory flat on long clips.
//!
//! The world starts stepping before the GPU device opens ([`GpuSource::Opening`], as `render`
//! runs) and while the renderer is built, up to [`start_ahead`] frames ahead (`ahead.rs`), so
//! a clip's first steps overlap the driver's start and its pipeline compiles. Nothing is
//! written before the renderer exists: a missing adapter, an oversize frame or a shader the
//! driver refuses fails before any file or folder is made, and the stepping stops with it.

use super::ahead::{AheadQueue, Producer};
use super::report::{Reporter, Stage};
use crate::Error;
use crate::frame::{Capsule, Frame, FrameInputs, MotionSample, View};
use crate::gpu::{Compositor, GpuContext, GpuTimes, Readback, RenderConfig, Renderer};
use crate::output::caption::{Caption, FrameFacts};
use crate::output::maps::map_jobs;
use crate::output::writer::{WriteJob, WriteReport, WriterPool};
use crate::playback::{FrameState, Playback};
use crate::scene::{FogResolution, Scene};
use crate::timeline::FrameSet;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// What the frame loop renders: plain settings, no command-line types.
#[derive(Debug, Clone, Copy)]
pub struct FrameJob<'a> {
    /// The scene, with the picture size already applied.
    pub scene: &'a Scene,
    /// Frames to render, in increasing order.
    pub frames: &'a FrameSet,
    /// What to show.
    pub view: View,
    /// How the fog sheets are put over the scene.
    pub compositor: Compositor,
    /// Which pictures come back besides the 8-bit sRGB frame.
    pub readback: Readback,
    /// Where the fluid's debug maps go, if anywhere.
    pub maps_dir: Option<&'a Path>,
    /// Simulation cache to start from (`--cache`), if any.
    pub cache_dir: Option<&'a Path>,
}

/// A frame's number and the world state hash shown in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FrameHash {
    /// Output frame number.
    pub frame: u32,
    /// World state hash, 16 hex digits.
    pub hash: String,
}

/// What the frame loop measured.
#[derive(Debug, Clone)]
pub struct LoopStats {
    /// The adapter, as "name (backend, driver)".
    pub adapter: String,
    /// The compositor that ran (`Auto` resolved).
    pub compositor: Compositor,
    /// The fog's resolution as drawn (`Auto` resolved).
    pub fog_resolution: FogResolution,
    /// Seconds stepping the simulation.
    pub simulate_s: f64,
    /// Seconds submitting to and waiting for the GPU.
    pub render_s: f64,
    /// Encoder seconds, summed over threads.
    pub encode_s: f64,
    /// Per-frame state hashes, in frame order.
    pub hashes: Vec<FrameHash>,
    /// Wall-clock seconds of the whole loop, the GPU's opening (where the loop opens it) and
    /// the renderer's build included.
    pub wall_s: f64,
    /// The renderer's build, and the frames stepped meanwhile.
    pub setup: Setup,
    /// Frames rendered (not skipped).
    pub rendered: usize,
    /// What the renderer measured: recording, readback wait and copy, GPU pass times.
    pub gpu: GpuTimes,
    /// What the writer pool measured: encoding, writing, its threads, queue waits.
    pub writer: WriteReport,
}

/// The start of a frame loop: how long until the GPU renderer was ready (the device opened,
/// where the loop opens it, and the driver's pipelines compiled), and how many frames the
/// world stepped meanwhile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Setup {
    /// Seconds from the loop's start until the renderer was built.
    pub renderer_s: f64,
    /// Frames stepped and queued by then.
    pub frames_stepped: usize,
}

/// Where the frame loop gets its GPU device.
pub enum GpuSource<'a> {
    /// One the caller opened, which several runs can share.
    Opened(&'a GpuContext),
    /// One the loop opens itself once the world has started stepping, so the driver's start
    /// (0.14 to 0.20 s on an H200 host) overlaps the first steps (`render`).
    Opening(Box<dyn FnOnce() -> Result<GpuContext, Error> + 'a>),
}

/// How the frame loop runs, beyond what it renders: frames to leave out, encoder threads.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoopOptions<'a> {
    /// Frames of the job that are simulated (the fluid cannot skip) but neither rendered nor
    /// handed to the sink, e.g. complete files a resumed render keeps (`--skip-existing`).
    /// Sorted.
    pub skip: &'a [u32],
    /// Encoder threads; one per core when `None`.
    pub encoder_threads: Option<usize>,
}

/// Renders every frame of `job` and hands each finished one to `sink` in frame order, with the
/// writer pool for any files it wants written. Stops between frames, or between the steps up
/// to a frame, when an interruption was requested ([`crate::interrupt`]), after the files in
/// flight are complete.
pub fn run_frames(
    context: &GpuContext,
    job: &FrameJob<'_>,
    reporter: &mut dyn Reporter,
    sink: impl FnMut(Frame, &mut WriterPool) -> Result<(), Error>,
) -> Result<LoopStats, Error> {
    run_frames_with(context, job, LoopOptions::default(), reporter, sink)
}

/// [`run_frames`] with [`LoopOptions`]: frames in `options.skip` are simulated (their hashes
/// and maps still come out) but not rendered nor given to `sink`.
pub fn run_frames_with(
    context: &GpuContext,
    job: &FrameJob<'_>,
    options: LoopOptions<'_>,
    reporter: &mut dyn Reporter,
    sink: impl FnMut(Frame, &mut WriterPool) -> Result<(), Error>,
) -> Result<LoopStats, Error> {
    run_frames_from(
        GpuSource::Opened(context),
        job,
        options,
        None,
        reporter,
        sink,
    )
}

/// [`run_frames_with`] stepping `start` instead of a playback from time 0 (or from
/// `job.cache_dir`) when one is given: `watch` hands over the world it kept in memory. The
/// playback must be of `job.scene` and at or before the first frame's earliest step
/// ([`Playback::earliest_step_of`]), so the frames are the bytes a run from time 0 draws.
pub(super) fn run_frames_from(
    gpu: GpuSource<'_>,
    job: &FrameJob<'_>,
    options: LoopOptions<'_>,
    start: Option<Playback>,
    reporter: &mut dyn Reporter,
    mut sink: impl FnMut(Frame, &mut WriterPool) -> Result<(), Error>,
) -> Result<LoopStats, Error> {
    let loop_started = Instant::now();
    let scene = job.scene;
    let first_frame = job.frames.frames().first().copied().unwrap_or(0);
    let playback = match start {
        Some(playback) => playback,
        None => start_playback(job.cache_dir, scene, first_frame)?,
    };
    let mut pool = match options.encoder_threads {
        Some(threads) => WriterPool::with_threads(threads),
        None => WriterPool::for_this_machine(),
    };
    let mut hashes = Vec::with_capacity(job.frames.len());
    let caption = Caption::for_scene(scene);
    let mut render_s = 0.0;
    let mut rendered = 0;

    // The world steps on a thread of its own, ahead of the GPU: from the start, while the
    // renderer is built, and then each frame's stepping overlaps the previous frames'
    // recording, readback and hand-off. It steps in the same order as ever, so the states and
    // hashes are the same. Nothing is written before the renderer exists.
    let queue = AheadQueue::new(start_ahead(scene), FRAMES_AHEAD);
    let stepped = std::thread::scope(
        |threads| -> Result<(Simulation, Renderer, Setup, String), Error> {
            let producer = queue.producer();
            // The maps' buffers come back to the stepping thread once uploaded, so no frame
            // allocates (and faults in) fresh ones.
            let (recycle, recycled) = std::sync::mpsc::channel::<Vec<u8>>();
            let stepping =
                threads.spawn(move || simulate(playback, job, options.skip, producer, &recycled));
            let frames = queue.consumer();
            let mut opened = None;
            let context = match gpu {
                GpuSource::Opened(context) => Ok(context),
                GpuSource::Opening(open) => open().map(|context| &*opened.insert(context)),
            };
            let built = context.and_then(|context| {
                let renderer = Renderer::new(
                    context,
                    scene,
                    &RenderConfig {
                        width: scene.output.width,
                        height: scene.output.height,
                        view: job.view,
                        compositor: job.compositor,
                        readback: job.readback,
                    },
                )?;
                Ok((renderer, super::adapter_line(context)))
            });
            let (mut renderer, adapter) = match built {
                Ok(built) => built,
                Err(error) => {
                    // The stepping thread returns at its next step or push.
                    drop(frames);
                    let _ = stepping.join();
                    return Err(error);
                }
            };
            let setup = Setup {
                renderer_s: loop_started.elapsed().as_secs_f64(),
                frames_stepped: frames.settle(),
            };
            if let Some(dir) = job.maps_dir {
                super::create_dir(dir)?;
            }
            let compositor = renderer.compositor();
            let count = job.frames.len() as u64;
            for stage in Stage::ALL {
                reporter.begin(stage, count);
            }
            let stamp = stamper(caption.as_ref(), scene, job.view, compositor);
            let mut stopped = false;
            while let Some(simulated) = frames.pop() {
                // A signal stops the loop between frames, whatever was stepped ahead.
                if crate::interrupt::requested() {
                    stopped = true;
                    break;
                }
                reporter.advance(Stage::Simulate, 1);
                hashes.push(FrameHash {
                    frame: simulated.frame,
                    hash: format!("{:016x}", simulated.hash),
                });
                for map in simulated.maps {
                    pool.submit(map)?;
                }
                let Some(inputs) = simulated.inputs else {
                    reporter.advance(Stage::Render, 1);
                    reporter.advance(Stage::Encode, 1);
                    continue;
                };
                let t = Instant::now();
                let finished = renderer.submit(&inputs.borrowed())?;
                render_s += t.elapsed().as_secs_f64();
                rendered += 1;
                // A stepping thread that has returned takes no more buffers: dropped here then.
                let _ = recycle.send(inputs.fluid_map);
                let _ = recycle.send(inputs.lift_map);
                reporter.advance(Stage::Render, 1);
                if let Some(done) = finished {
                    sink(stamp(done, &hashes), &mut pool)?;
                    reporter.advance(Stage::Encode, 1);
                }
            }
            // The queue ended (every frame was stepped, or a signal stopped the stepping), or the
            // loop stopped taking frames: with the queue's end dropped, the thread has returned or
            // returns at its next step or push.
            drop(frames);
            let mut simulation = match stepping.join() {
                Ok(simulation) => simulation,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            simulation.interrupted |= stopped;
            Ok((simulation, renderer, setup, adapter))
        },
    )?;
    let (simulation, mut renderer, setup, adapter) = stepped;
    if simulation.interrupted {
        drop(renderer);
        let written = pool.files_written();
        pool.finish()?;
        return Err(Error::interrupted(written));
    }
    let compositor = renderer.compositor();
    let fog_resolution = renderer.fog_resolution();
    let stamp = stamper(caption.as_ref(), scene, job.view, compositor);
    let simulate_s = simulation.simulate_s;
    let t = Instant::now();
    let rest = renderer.finish()?;
    render_s += t.elapsed().as_secs_f64();
    for done in rest {
        sink(stamp(done, &hashes), &mut pool)?;
        reporter.advance(Stage::Encode, 1);
    }
    let gpu = renderer.times();
    let report = pool.finish()?;
    for stage in Stage::ALL {
        reporter.end(stage);
    }
    Ok(LoopStats {
        adapter,
        compositor,
        fog_resolution,
        simulate_s,
        render_s,
        encode_s: report.busy_s,
        hashes,
        wall_s: loop_started.elapsed().as_secs_f64(),
        setup,
        rendered,
        gpu,
        writer: report,
    })
}

/// What the loop does to each finished frame before its sink: burns in `caption` (`--stamp`)
/// when the scene has one, else nothing.
fn stamper<'a>(
    caption: Option<&'a Caption>,
    scene: &'a Scene,
    view: View,
    compositor: Compositor,
) -> impl Fn(Frame, &[FrameHash]) -> Frame + 'a {
    move |frame, hashes| match caption {
        Some(caption) => stamped(caption, frame, scene, view, compositor, hashes),
        None => frame,
    }
}

/// `frame` with the scene's caption strip burnt into its 8-bit picture (`--stamp`), saying the
/// state hash `hashes` recorded for it.
fn stamped(
    caption: &Caption,
    mut frame: Frame,
    scene: &Scene,
    view: View,
    compositor: Compositor,
    hashes: &[FrameHash],
) -> Frame {
    let state_hash = hashes
        .iter()
        .rev()
        .find(|h| h.frame == frame.frame_index)
        .and_then(|h| u64::from_str_radix(&h.hash, 16).ok())
        .unwrap_or(0);
    let facts = FrameFacts {
        frame: frame.frame_index,
        time_s: f64::from(frame.frame_index) / f64::from(scene.output.fps),
        view,
        compositor,
        samples: scene.output.samples_everywhere(),
        state_hash,
    };
    let (width, height) = (frame.width, frame.height);
    caption.stamp(&mut frame.rgba8, width, height, &facts);
    frame
}

/// Frames the simulation thread may step ahead of the frame loop once the renderer is built.
const FRAMES_AHEAD: usize = 2;

/// The most frames the simulation thread steps ahead while the renderer is being built.
const START_AHEAD_MAX: usize = 120;

/// What the frames stepped ahead during the renderer's build may hold in all, mostly their
/// fluid maps.
const START_AHEAD_BYTES: usize = 64 << 20;

/// Cores a machine needs for the world to step ahead while the renderer is built.
const START_AHEAD_CORES: usize = 4;

/// Frames the simulation thread may step ahead while the GPU opens and the renderer is built:
/// as many as [`START_AHEAD_BYTES`] of fluid maps hold, at most [`START_AHEAD_MAX`], at least
/// [`FRAMES_AHEAD`]. The walkway's 256² maps take 512 KiB a frame, so 120 frames.
///
/// On fewer than [`START_AHEAD_CORES`] cores, only [`FRAMES_AHEAD`]: the driver's start takes
/// the cores the stepping would use, and the frames' buffers cost more than the overlap gains
/// (the walkway at 64×36 on two cores took 1.05 times as long).
fn start_ahead(scene: &Scene) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < START_AHEAD_CORES {
        return FRAMES_AHEAD;
    }
    let cells = scene.fluid.grid as usize;
    let map_bytes = (cells * cells * 8).max(1);
    (START_AHEAD_BYTES / map_bytes).clamp(FRAMES_AHEAD, START_AHEAD_MAX)
}

/// What the simulation thread measured, and whether a signal stopped it.
struct Simulation {
    simulate_s: f64,
    interrupted: bool,
}

/// One stepped frame as the simulation thread hands it on.
struct Simulated {
    frame: u32,
    /// The world state hash shown in it.
    hash: u64,
    /// Its debug maps, to be written (with `maps_dir`).
    maps: Vec<WriteJob>,
    /// The renderer's inputs; `None` for a frame that is skipped.
    inputs: Option<OwnedInputs>,
}

/// [`FrameInputs`] owning its maps and capsules, to cross from the simulation thread.
struct OwnedInputs {
    /// Everything but the slices, which are empty here.
    plain: FrameInputs<'static>,
    fluid_map: Vec<u8>,
    lift_map: Vec<u8>,
    capsules: Vec<Capsule>,
    motion: Vec<MotionSample>,
}

impl OwnedInputs {
    /// The inputs of `playback`'s current `state`, owned. The maps are `playback`'s own
    /// buffers, swapped for buffers from `recycled` (or new ones) to write the next frame's
    /// into: no copy.
    fn new(
        playback: &mut Playback,
        state: &FrameState,
        recycled: &std::sync::mpsc::Receiver<Vec<u8>>,
    ) -> Self {
        let inputs = playback.frame_inputs(state);
        let plain = FrameInputs {
            fluid_map: &[],
            lift_map: &[],
            capsules: &[],
            motion: &[],
            ..inputs
        };
        let capsules = inputs.capsules.to_vec();
        let motion = inputs.motion.to_vec();
        let spare = || recycled.try_recv().unwrap_or_default();
        let (fluid_map, lift_map) = playback.swap_maps(spare(), spare());
        OwnedInputs {
            plain,
            fluid_map,
            lift_map,
            capsules,
            motion,
        }
    }

    fn borrowed(&self) -> FrameInputs<'_> {
        FrameInputs {
            fluid_map: &self.fluid_map,
            lift_map: &self.lift_map,
            capsules: &self.capsules,
            motion: &self.motion,
            ..self.plain
        }
    }
}

/// Steps `playback` to each frame of `job` in order and sends it on, until every frame is sent,
/// the loop stops listening, or a signal asks to stop (between frames, or between the steps up
/// to a far frame).
fn simulate(
    mut playback: Playback,
    job: &FrameJob<'_>,
    skip: &[u32],
    frames: Producer<'_, Simulated>,
    recycled: &std::sync::mpsc::Receiver<Vec<u8>>,
) -> Simulation {
    let mut simulate_s = 0.0;
    for &frame in job.frames.frames() {
        let t = Instant::now();
        let stepped = if crate::interrupt::requested() {
            None
        } else {
            // A loop that stopped taking frames (its renderer failed) stops the stepping too.
            playback.advance_to_or_stop(frame, || match frames.abandoned() {
                true => std::ops::ControlFlow::Break(()),
                false => crate::interrupt::poll(),
            })
        };
        let Some(state) = stepped else {
            return Simulation {
                simulate_s,
                interrupted: true,
            };
        };
        simulate_s += t.elapsed().as_secs_f64();
        let maps = match job.maps_dir {
            Some(dir) => {
                let (fluid, fluid_map, lift_map) = playback.packed_maps();
                map_jobs(dir, frame, fluid, fluid_map, lift_map)
            }
            None => Vec::new(),
        };
        let inputs = skip
            .binary_search(&frame)
            .is_err()
            .then(|| OwnedInputs::new(&mut playback, &state, recycled));
        let simulated = Simulated {
            frame,
            hash: state.hash,
            maps,
            inputs,
        };
        if frames.push(simulated).is_err() {
            break;
        }
    }
    Simulation {
        simulate_s,
        interrupted: false,
    }
}

/// The playback of `scene`, starting from the latest snapshot in `cache_dir` at or before
/// `first_frame` when a cache is given. A snapshot of another scene or a damaged one is an
/// error ([`crate::playback::CacheError`]), never a silent re-simulation.
pub fn start_playback(
    cache_dir: Option<&Path>,
    scene: &Scene,
    first_frame: u32,
) -> Result<Playback, Error> {
    match cache_dir {
        None => Ok(Playback::new(scene)),
        Some(dir) => {
            Ok(Playback::from_cache(scene, dir, first_frame).map(|(playback, _)| playback)?)
        }
    }
}
