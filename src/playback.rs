//! Playback: steps the world forward to each chosen output frame and reports its state.
//!
//! Output frames are visited in increasing order; between two of them the world takes exactly
//! the steps the [`Timeline`] prescribes, and the ball's events of those steps are gathered so
//! each frame reports what happened since the previous one. Frames are never stepped backwards:
//! the fluid cannot be rewound.

use crate::ball::BallEvent;
use crate::frame::{CameraPose, FrameInputs};
use crate::scene::Scene;
use crate::timeline::Timeline;
use crate::world::World;

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
}

/// Steps a world through a timeline.
pub struct Playback {
    world: World,
    timeline: Timeline,
    events: Vec<BallEvent>,
    fluid_map: Vec<u8>,
    lift_map: Vec<u8>,
}

impl Playback {
    /// A playback of `scene` from time 0.
    pub fn new(scene: &Scene) -> Self {
        let cells = scene.fluid.grid as usize;
        Playback {
            world: World::new(scene),
            timeline: Timeline {
                fps: scene.output.fps,
                frame_count: scene.output.frame_count(),
            },
            events: Vec::new(),
            fluid_map: vec![0; cells * cells * 4],
            lift_map: vec![0; cells * cells * 4],
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
        let target_steps = self.timeline.steps_before(frame);
        while self.world.steps() < target_steps {
            self.events.extend(self.world.step());
            on_step();
        }
        let time_s = self.timeline.frame_time_s(frame);
        let scene = self.world.scene();
        FrameState {
            frame,
            time_s,
            steps: self.world.steps(),
            hash: self.world.state_hash(),
            events: std::mem::take(&mut self.events),
            ball_pos_world: self.world.ball().pos_world,
            camera: self.world.camera_pose(time_s),
            ball_light_intensity: scene.lights.ball.intensity_at(time_s),
        }
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

    /// The renderer's inputs for `state`, which must be the current state.
    pub fn frame_inputs(&mut self, state: &FrameState) -> FrameInputs<'_> {
        let spin_rad = self.world.ball().spin_rad;
        let (_, fluid_map, lift_map) = self.packed_maps();
        FrameInputs {
            frame_index: state.frame,
            time_s: state.time_s as f32,
            camera: state.camera,
            ball_pos_world: state.ball_pos_world,
            ball_spin_rad: spin_rad,
            ball_light_intensity: state.ball_light_intensity,
            fluid_map,
            lift_map,
        }
    }
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
    fn events_are_reported_once() {
        let mut scene = Scene::default();
        scene.fluid.grid = 16;
        let mut playback = Playback::new(&scene);
        let mut jumps = 0;
        for frame in 0..600 {
            let state = playback.advance_to(frame, || {});
            jumps += state
                .events
                .iter()
                .filter(|e| **e == BallEvent::Jump)
                .count();
        }
        assert!(jumps >= 3, "{jumps}");
    }
}
