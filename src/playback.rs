//! Playback: steps the world forward to each chosen output frame and reports its state.
//!
//! Output frames are visited in increasing order; between two of them the world takes exactly
//! the steps the [`Timeline`] prescribes, and the ball's events and the lightning strikes of
//! those steps are gathered so each frame reports what happened since the previous one.
//! Frames are never stepped backwards: the fluid cannot be rewound. The frame's inputs carry
//! the walkers' capsules posed at the frame's own time, not at its last step's.
//!
//! A playback can also start from a cached snapshot (`fogbank simulate --cache DIR` writes
//! `DIR/step_NNNNNNNN.snap`; [`Playback::from_cache`] starts from the latest one at or before
//! the first frame) and write snapshots while it steps ([`Playback::write_cache`]), so a farm
//! renders any frame range without re-simulating from time 0. The states, and so the pictures,
//! are bit-identical either way; only the first frame's event list is shorter (it covers the
//! steps since the snapshot).
//!
//! # Motion blur
//!
//! With a shutter (`output.shutter` above 0 and two or more samples) each of a frame's samples
//! sees the world at its own moment of the shutter's interval (`crate::samples`). The world
//! still steps only at 60 Hz. Playback keeps what the renderer needs of the last few steps
//! (`StepLook`: camera, ball, spin, the two fluid maps, the weather) and, for the steps after
//! the frame's, steps a copy of the world, so the world itself never runs ahead of a frame.
//! A sample between two steps blends their looks (the maps in integer 1/256 steps); what is a
//! function of the absolute time (the walkers, the ball's light, the flicker, the rain, the
//! bolt) is taken at the sample's moment itself. A playback from the cache starts early enough
//! for the first frame's samples to reach back.

mod motion;

use crate::ball::BallEvent;
use crate::frame::{CameraPose, Capsule, FrameInputs, MotionSample, WeatherFrame};
use crate::samples::SampleOffset;
use crate::scene::Scene;
use crate::sim::SnapshotError;
use crate::timeline::Timeline;
use crate::weather::{Strike, WeatherState};
use crate::world::World;
use motion::MotionPlan;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Why a simulation cache could not be used.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// A folder or snapshot could not be read.
    #[error("cannot read the simulation cache {}: {source}", path.display())]
    Read {
        /// The folder or file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A snapshot is damaged or belongs to another scene.
    #[error("cannot use snapshot {}: {source}", path.display())]
    Snapshot {
        /// The file.
        path: PathBuf,
        /// Why.
        source: SnapshotError,
    },
    /// A snapshot could not be written.
    #[error("cannot write snapshot {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// File name of the snapshot taken after `step` steps.
pub fn snapshot_file_name(step: u64) -> String {
    format!("step_{step:08}.snap")
}

/// The step of a snapshot file name, `None` for other files.
fn step_of_file_name(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("step_")?.strip_suffix(".snap")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Where snapshots go while stepping, and how often.
struct CacheWriter {
    dir: PathBuf,
    every_steps: u64,
    error: Option<CacheError>,
}

/// The state shown at one output frame.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameState {
    /// Output frame number.
    pub frame: u32,
    /// Time of the frame, seconds.
    pub time_s: f64,
    /// Steps taken to reach it.
    pub steps: u64,
    /// Hash of the whole world state.
    pub hash: u64,
    /// Ball events since the previous reported frame (or since the start).
    pub events: Vec<BallEvent>,
    /// Centre of the ball, world units.
    pub ball_pos_world: [f32; 3],
    /// The camera for this frame.
    pub camera: CameraPose,
    /// The ball light's intensity with flicker.
    pub ball_light_intensity: f32,
    /// The weather at this frame; `None` for a scene without weather.
    pub weather: Option<WeatherState>,
    /// Lightning strikes since the previous reported frame (or since the start).
    pub strikes: Vec<Strike>,
    /// Where each of the scene's walkers stands at the frame's time, world x and z, in the
    /// scene's order; empty without walkers.
    pub walkers_pos_world: Vec<[f32; 2]>,
}

/// Steps a world through a timeline.
pub struct Playback {
    world: World,
    timeline: Timeline,
    events: Vec<BallEvent>,
    strikes: Vec<Strike>,
    fluid_map: Vec<u8>,
    lift_map: Vec<u8>,
    /// The walkers' capsules of the latest [`Playback::frame_inputs`].
    capsules: Vec<Capsule>,
    /// With a shutter: the samples' moments and the recent steps they blend.
    motion_plan: Option<MotionPlan>,
    /// What each sample of the latest [`Playback::frame_inputs`] sees; empty without a
    /// shutter.
    motion: Vec<MotionSample>,
    cache_writer: Option<CacheWriter>,
}

impl Playback {
    /// A playback of `scene` from time 0.
    pub fn new(scene: &Scene) -> Self {
        Self::from_world(scene, World::new(scene))
    }

    /// A playback of `scene` starting from the latest snapshot in `dir` taken at or before
    /// `first_frame`'s step, or from time 0 when there is none (or no such folder). Returns the
    /// step it starts from. A damaged snapshot, or one of another scene, is an error.
    pub fn from_cache(
        scene: &Scene,
        dir: &Path,
        first_frame: u32,
    ) -> Result<(Self, u64), CacheError> {
        let timeline = Timeline {
            fps: scene.output.fps,
            frame_count: scene.output.frame_count(),
        };
        // With a shutter the first frame's samples reach back a few steps: start before them,
        // so a render from the cache sees the steps a full render does.
        let target_steps = earliest_step(scene, &timeline, first_frame);
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Self::new(scene), 0)),
            Err(source) => {
                return Err(CacheError::Read {
                    path: dir.to_path_buf(),
                    source,
                });
            }
        };
        let mut best: Option<u64> = None;
        for entry in entries {
            let entry = entry.map_err(|source| CacheError::Read {
                path: dir.to_path_buf(),
                source,
            })?;
            let name = entry.file_name();
            if let Some(step) = name.to_str().and_then(step_of_file_name)
                && step <= target_steps
                && best.is_none_or(|b| step > b)
            {
                best = Some(step);
            }
        }
        let Some(step) = best else {
            return Ok((Self::new(scene), 0));
        };
        let path = dir.join(snapshot_file_name(step));
        let bytes = std::fs::read(&path).map_err(|source| CacheError::Read {
            path: path.clone(),
            source,
        })?;
        let world = World::restore(scene, &bytes).map_err(|source| CacheError::Snapshot {
            path: path.clone(),
            source,
        })?;
        if world.steps() != step {
            return Err(CacheError::Snapshot {
                path,
                source: SnapshotError::Corrupt(format!(
                    "the file name says step {step}, the snapshot step {}",
                    world.steps()
                )),
            });
        }
        Ok((Self::from_world(scene, world), step))
    }

    /// From now on, writes `dir/step_NNNNNNNN.snap` (atomically) after every step that is a
    /// multiple of `every_steps`. A write failure stops the writing; see
    /// [`Playback::take_cache_error`].
    pub fn write_cache(&mut self, dir: &Path, every_steps: u64) {
        self.cache_writer = Some(CacheWriter {
            dir: dir.to_path_buf(),
            every_steps: every_steps.max(1),
            error: None,
        });
    }

    /// The first snapshot write failure, if any.
    pub fn take_cache_error(&mut self) -> Option<CacheError> {
        self.cache_writer.as_mut().and_then(|w| w.error.take())
    }

    /// A playback of `scene` starting from the state of a [`World::snapshot`] kept in memory
    /// (`fogbank watch` keeps one between turns). A snapshot of another step hash is refused.
    pub fn from_snapshot(scene: &Scene, bytes: &[u8]) -> Result<Self, SnapshotError> {
        Ok(Self::from_world(scene, World::restore(scene, bytes)?))
    }

    /// The earliest step `frame`'s picture reads: the frame's own step, or a few before it
    /// when a shutter reaches back. A playback that starts at or before it draws the frame as
    /// one from time 0 does.
    pub fn earliest_step_of(&self, frame: u32) -> u64 {
        let behind = self
            .motion_plan
            .as_ref()
            .map_or(0, MotionPlan::steps_behind);
        self.timeline.steps_before(frame).saturating_sub(behind)
    }

    /// Steps forward until the world has taken `steps` steps (never back), calling `on_step`
    /// after each; stops early, returning false, when `on_step` breaks.
    pub fn advance_steps_or_stop(
        &mut self,
        steps: u64,
        mut on_step: impl FnMut() -> ControlFlow<()>,
    ) -> bool {
        while self.world.steps() < steps {
            self.step_once();
            if on_step().is_break() {
                return false;
            }
        }
        true
    }

    fn from_world(scene: &Scene, world: World) -> Self {
        let cells = scene.fluid.grid as usize;
        Playback {
            world,
            timeline: Timeline {
                fps: scene.output.fps,
                frame_count: scene.output.frame_count(),
            },
            events: Vec::new(),
            strikes: Vec::new(),
            fluid_map: vec![0; cells * cells * 4],
            lift_map: vec![0; cells * cells * 4],
            capsules: Vec::new(),
            motion_plan: MotionPlan::for_scene(scene),
            motion: Vec::new(),
            cache_writer: None,
        }
        .with_first_look()
    }

    /// With motion blur, records the starting step, the first a frame's samples can reach.
    fn with_first_look(mut self) -> Self {
        self.record_look();
        self
    }

    /// With motion blur, keeps what the renderer needs of the current step, and forgets the
    /// steps no later frame's samples reach back to.
    fn record_look(&mut self) {
        let Some(plan) = self.motion_plan.as_mut() else {
            return;
        };
        plan.record(&self.world);
    }

    /// Steps the world once, gathering its events and strike, writing a snapshot if due and
    /// keeping its look for motion blur.
    fn step_once(&mut self) {
        self.events.extend(self.world.step());
        let steps = self.world.steps();
        if let Some(strike) = self.world.weather().and_then(|w| w.last_strike)
            && strike.step == steps
        {
            self.strikes.push(strike);
        }
        self.write_snapshot_if_due();
        self.record_look();
    }

    /// Writes a snapshot if the cache asks for one at the current step.
    fn write_snapshot_if_due(&mut self) {
        let steps = self.world.steps();
        let Some(writer) = self.cache_writer.as_mut() else {
            return;
        };
        if writer.error.is_some() || !steps.is_multiple_of(writer.every_steps) {
            return;
        }
        let path = writer.dir.join(snapshot_file_name(steps));
        if let Err(source) = crate::output::atomic::write_atomic(&path, &self.world.snapshot()) {
            writer.error = Some(CacheError::Write { path, source });
        }
    }

    /// The timeline of the scene.
    pub fn timeline(&self) -> Timeline {
        self.timeline
    }

    /// The world as it is now.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Steps forward to `frame` and returns its state. `on_step` is called after each step
    /// (for progress). Asking for a frame before the current step is a logic error and returns
    /// the current state's frame unchanged.
    pub fn advance_to(&mut self, frame: u32, mut on_step: impl FnMut()) -> FrameState {
        let state = self.advance_to_or_stop(frame, || {
            on_step();
            ControlFlow::Continue(())
        });
        state.expect("stepping that never breaks reaches its frame")
    }

    /// Like [`Playback::advance_to`], but `on_step` may break after any step; then the world
    /// stays at that step (a later call goes on from there) and `None` is returned. Long walks
    /// to one frame (`fogbank still`) stop on a signal this way.
    pub fn advance_to_or_stop(
        &mut self,
        frame: u32,
        mut on_step: impl FnMut() -> ControlFlow<()>,
    ) -> Option<FrameState> {
        let target_steps = self.timeline.steps_before(frame);
        while self.world.steps() < target_steps {
            self.step_once();
            if on_step().is_break() {
                return None;
            }
        }
        let time_s = self.timeline.frame_time_s(frame);
        let scene = self.world.scene();
        Some(FrameState {
            frame,
            time_s,
            steps: self.world.steps(),
            hash: self.world.state_hash(),
            events: std::mem::take(&mut self.events),
            ball_pos_world: self.world.ball().pos_world,
            camera: self.world.camera_pose(time_s),
            ball_light_intensity: scene.lights.ball.intensity_at(time_s),
            weather: self.world.weather().cloned(),
            strikes: std::mem::take(&mut self.strikes),
            walkers_pos_world: self
                .world
                .walkers()
                .iter()
                .map(|walker| walker.pos_world(time_s))
                .collect(),
        })
    }

    /// Packs the fluid's two shader maps for the current state and returns them with the
    /// fluid: `(fluid, fluid_map, lift_map)`.
    pub fn packed_maps(&mut self) -> (&crate::sim::FluidSim, &[u8], &[u8]) {
        let offset_range = self.world.scene().fog.offset_range;
        self.world
            .fluid()
            .write_maps(&mut self.fluid_map, &mut self.lift_map, offset_range);
        (self.world.fluid(), &self.fluid_map, &self.lift_map)
    }

    /// Hands out the two maps the last [`Self::frame_inputs`] or [`Self::packed_maps`] wrote,
    /// `(fluid_map, lift_map)`, and keeps `fluid` and `lift` to write the next ones into (they
    /// are given the maps' length; a buffer that has it keeps its bytes, which every write
    /// replaces). A loop that owns each frame's maps swaps buffers instead of copying them.
    pub fn swap_maps(&mut self, mut fluid: Vec<u8>, mut lift: Vec<u8>) -> (Vec<u8>, Vec<u8>) {
        fluid.resize(self.fluid_map.len(), 0);
        lift.resize(self.lift_map.len(), 0);
        (
            std::mem::replace(&mut self.fluid_map, fluid),
            std::mem::replace(&mut self.lift_map, lift),
        )
    }

    /// The renderer's inputs for `state`, which must be the current state. With a shutter
    /// (`output.shutter` above 0 and more than one sample) they carry what each sample sees
    /// ([`FrameInputs::motion`]).
    pub fn frame_inputs(&mut self, state: &FrameState) -> FrameInputs<'_> {
        let spin_rad = self.world.ball().spin_rad;
        let scene = self.world.scene();
        let weather = state
            .weather
            .as_ref()
            .and_then(|weather| weather_frame(scene, weather, state.time_s));
        // The walkers are posed at the frame's own time (a pure function of it), so a frame
        // shows the same people at any frame rate.
        self.capsules.clear();
        for walker in self.world.walkers() {
            walker.capsules(&walker.pose(state.time_s), &mut self.capsules);
        }
        let offset_range = self.world.scene().fog.offset_range;
        self.world
            .fluid()
            .write_maps(&mut self.fluid_map, &mut self.lift_map, offset_range);
        self.motion = self.motion_samples(state);
        FrameInputs {
            frame_index: state.frame,
            time_s: state.time_s as f32,
            camera: state.camera,
            ball_pos_world: state.ball_pos_world,
            ball_spin_rad: spin_rad,
            ball_light_intensity: state.ball_light_intensity,
            fluid_map: &self.fluid_map,
            lift_map: &self.lift_map,
            weather,
            capsules: &self.capsules,
            sample: SampleOffset::CENTRE,
            motion: &self.motion,
        }
    }
}

/// The earliest step `frame` of `scene` reads (see [`Playback::earliest_step_of`]).
fn earliest_step(scene: &Scene, timeline: &Timeline, frame: u32) -> u64 {
    let behind = MotionPlan::for_scene(scene).map_or(0, |plan| plan.steps_behind());
    timeline.steps_before(frame).saturating_sub(behind)
}

/// What the renderer needs of `weather` at `time_s`; `None` for a scene without weather.
fn weather_frame(scene: &Scene, weather: &WeatherState, time_s: f64) -> Option<WeatherFrame> {
    let profile = scene.weather.as_ref()?;
    let share = f64::from(profile.wind.noise_share);
    // The sheets dim as the storm's ambient replaces the clear one, and light up in a flash.
    let clear_ambient = scene.lights.ambient.intensity;
    let storm_ratio = if clear_ambient > 0.0 {
        profile.storm_ambient_intensity / clear_ambient
    } else {
        1.0
    };
    let fog_light =
        1.0 + (storm_ratio - 1.0) * weather.gloom + weather.flash * profile.lightning.flash_ambient;
    Some(WeatherFrame {
        fog_density: weather.fog_density,
        gloom: weather.gloom,
        rain: weather.rain,
        wetness: weather.wetness,
        flash: weather.flash,
        wind_world_per_s: weather.wind_world_per_s,
        drift_world: weather.drift_world.map(|d| d as f32),
        noise_drift_world: [
            (weather.drift_world[0] * share) as f32,
            scene.fog.wind[1] * time_s as f32,
            (weather.drift_world[1] * share) as f32,
        ],
        fog_light,
        last_strike: weather.last_strike.map(|s| (s.number, s.time_s())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_fps_frame_n_is_sixty_fps_frame_2n() {
        let mut scene = Scene::default();
        scene.fluid.grid = 24;
        scene.output.fps = 60;
        let mut at60 = Playback::new(&scene);
        scene.output.fps = 30;
        let mut at30 = Playback::new(&scene);
        for n in [0u32, 1, 5, 17, 40] {
            let a = at30.advance_to(n, || {});
            let b = at60.advance_to(2 * n, || {});
            assert_eq!(a.hash, b.hash, "frame {n}");
            assert_eq!(a.time_s, b.time_s);
        }
    }

    #[test]
    fn a_playback_from_the_cache_reaches_the_same_states() {
        let mut scene = Scene::default();
        scene.fluid.grid = 16;
        scene.output.fps = 30;
        let dir = std::env::temp_dir().join(format!("fogbank-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut full = Playback::new(&scene);
        full.write_cache(&dir, 40);
        let hashes: Vec<u64> = (0..60).map(|f| full.advance_to(f, || {}).hash).collect();
        assert!(full.take_cache_error().is_none());
        // Frame 45 is step 90: the snapshot of step 80 is the latest at or before it.
        let (mut cached, start) = Playback::from_cache(&scene, &dir, 45).unwrap();
        assert_eq!(start, 80);
        for f in 45..60 {
            assert_eq!(
                cached.advance_to(f, || {}).hash,
                hashes[f as usize],
                "frame {f}"
            );
        }
        // Before the first snapshot, and with no folder at all, it starts from 0.
        assert_eq!(Playback::from_cache(&scene, &dir, 19).unwrap().1, 0);
        assert_eq!(
            Playback::from_cache(&scene, &dir.join("none"), 45)
                .unwrap()
                .1,
            0
        );
        // A damaged snapshot is an error naming the file.
        std::fs::write(dir.join(snapshot_file_name(80)), b"FOGSNAP").unwrap();
        let error = Playback::from_cache(&scene, &dir, 45).err().unwrap();
        assert!(error.to_string().contains("step_00000080.snap"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every event the ball produces is reported exactly once, with the frame whose steps
    /// produced it: at 30 fps each frame covers two steps, and its events must be exactly those
    /// a separate world reports over the same steps — a repeated report (events not cleared, or
    /// gathered twice) or a lost one fails, as does a frame reporting another frame's events.
    #[test]
    fn events_are_reported_once() {
        let mut scene = Scene::default();
        scene.fluid.grid = 16;
        scene.output.fps = 30;
        let mut playback = Playback::new(&scene);
        let mut world = World::new(&scene);
        let (mut reported, mut produced) = (Vec::new(), Vec::new());
        for frame in 0..300 {
            let state = playback.advance_to(frame, || {});
            assert_eq!(state.steps, 2 * u64::from(frame), "frame {frame}");
            let mut expected = Vec::new();
            while world.steps() < state.steps {
                expected.extend(world.step());
            }
            assert_eq!(state.events, expected, "frame {frame}");
            reported.extend(state.events);
            produced.extend(expected);
        }
        assert_eq!(reported, produced);
        let count = |event: BallEvent| reported.iter().filter(|e| **e == event).count();
        let (jumps, landings) = (count(BallEvent::Jump), count(BallEvent::Land));
        assert!(jumps >= 3, "{jumps} jumps");
        assert!(landings >= 3, "{landings} landings");
    }
}
