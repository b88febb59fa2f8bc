//! The world: the ball, the camera and the fluid stepped together at exactly 60 Hz.
//!
//! This is the one place where anything stirs the fluid. Each step, in this order: the weather
//! (when the scene has one) moves on and its wind drags the air; the `fluid.streams` push it;
//! the ball is pushed into the fluid as a moving obstacle; each walker, in list order, pushes
//! the air and clears the fog round it (`sim/brush.rs`); the fires' heat lifts the fog over
//! them; the fluid steps; the ball moves (taking off and landing blast the air); and the
//! follow camera eases after the ball or a walker. The ball's part is the example's order.
//! Everything here is deterministic, and [`World::state_hash`] names the whole state in 16 hex
//! digits so replays can be checked.

use crate::ball::{BallEvent, BallMotion};
use crate::frame::CameraPose;
use crate::people::WalkerMotion;
use crate::scene::{Camera, FollowSubject, Scene};
use crate::sim::{BallPush, FluidSim, GridMapping, WindPush};
use crate::timeline::{STEP_S, STEPS_PER_SECOND};
use crate::weather::WeatherState;

mod snapshot;

pub use snapshot::sim_scene_hash;

/// FNV-1a 64, kept here for callers that still name it by this path; the one implementation is
/// [`crate::sim::fnv1a64`].
pub use crate::sim::fnv1a64;

/// Lift per second added over the middle of a fire burning deep in the fog. Lift settles at
/// `fluid.settle` (0.7 per second by default), so on still air the fog over a brazier rises
/// about a quarter of the way to fully lifted.
const FIRE_LIFT_PER_S: f32 = 0.18;
/// Radius of the patch a fire warms, in flame heights.
const FIRE_HEAT_RADIUS_IN_FLAMES: f32 = 1.2;

/// The camera's moving state (only the follow camera has any).
#[derive(Debug, Clone, PartialEq)]
struct CameraState {
    eye_world: [f32; 3],
}

/// Ball, camera and fluid at one step.
#[derive(Debug, Clone)]
pub struct World {
    scene: Scene,
    ball: BallMotion,
    camera: CameraState,
    fluid: FluidSim,
    steps: u64,
    /// The weather, when the scene has a `weather` section.
    weather: Option<WeatherState>,
    /// The scene's walkers (pure functions of time: no state to save).
    walkers: Vec<WalkerMotion>,
}

impl World {
    /// The world at time 0: the ball at its start, fog everywhere at rest, the hall's pillars,
    /// altar and standing blocks rasterised into solid cells.
    pub fn new(scene: &Scene) -> Self {
        let mapping = GridMapping {
            cells: scene.fluid.grid as usize,
            area_world: scene.fog.area,
        };
        let mut fluid = FluidSim::new(&scene.fluid, mapping);
        for &pillar in &scene.hall.pillars {
            fluid.mark_solid_circle(pillar, scene.hall.pillar_radius);
        }
        let altar = &scene.hall.altar;
        fluid.mark_solid_box(
            [
                altar.center[0] - altar.width / 2.0,
                altar.center[1] - altar.depth / 2.0,
            ],
            [
                altar.center[0] + altar.width / 2.0,
                altar.center[1] + altar.depth / 2.0,
            ],
        );
        // Blocks standing on the floor and reaching above the fog's floor are walls to the air;
        // a block hanging above the fog, or sunk below its floor, is not.
        let fog_bottom = scene.fog.bottom;
        for block in &scene.hall.blocks {
            if block.bottom_center[1] <= fog_bottom && block.top() > fog_bottom {
                let [x, _, z] = block.bottom_center;
                let [width, _, depth] = block.size;
                fluid.mark_solid_box(
                    [x - width / 2.0, z - depth / 2.0],
                    [x + width / 2.0, z + depth / 2.0],
                );
            }
        }
        let eye_world = match &scene.camera {
            Camera::Follow(follow) => follow.start,
            Camera::Fixed(fixed) => fixed.position,
            Camera::Keyframed(keys) => keys.keys.first().map_or([0.0, 7.5, 11.0], |k| k.position),
        };
        World {
            scene: scene.clone(),
            ball: BallMotion::new(&scene.ball, &scene.hall),
            camera: CameraState { eye_world },
            fluid,
            steps: 0,
            weather: scene.weather.as_ref().map(WeatherState::new),
            walkers: WalkerMotion::all(&scene.walkers),
        }
    }

    /// Advances one 1/60 s step and returns what happened to the ball.
    pub fn step(&mut self) -> Vec<BallEvent> {
        self.step_observed(&mut |_| {})
    }

    /// [`World::step`], calling `after_stage` with each stage's name as it finishes: first
    /// `"world: forces"` (the weather, the streams, the ball's push, the walkers and the fires),
    /// then the fluid's stages ([`FluidSim::step_observed`]). The benchmarks time stages with
    /// it; the world is exactly what `step` gives.
    #[doc(hidden)]
    pub fn step_observed(
        &mut self,
        after_stage: &mut (dyn FnMut(&'static str) + Send),
    ) -> Vec<BallEvent> {
        let dt_s = STEP_S;
        self.blow_weather(dt_s);
        self.fluid.apply_streams(self.steps, dt_s);
        self.stir_fluid();
        self.walk_through_fog(dt_s);
        self.warm_fog_over_fires(dt_s);
        after_stage("world: forces");
        self.fluid.step_observed(dt_s, after_stage);
        let events = self.move_ball(dt_s);
        self.follow_with_camera(dt_s);
        self.steps += 1;
        events
    }

    /// The weather moves on one step and its wind drags the air (see `sim/wind.rs`). A scene
    /// without weather is stepped exactly as before.
    fn blow_weather(&mut self, dt_s: f32) {
        let (Some(state), Some(weather)) = (self.weather.as_mut(), self.scene.weather.as_ref())
        else {
            return;
        };
        state.step(weather, self.steps);
        self.fluid.apply_wind(
            &WindPush {
                wind_world_per_s: state.wind_world_per_s,
                drag: weather.wind.drag,
                pile_share: weather.wind.pile_share,
            },
            dt_s,
        );
    }

    /// Each fire's heat lifts the fog a little over a patch round it, the more the deeper its
    /// flame stands in the fog (a torch high above the fog barely touches it). The air carries
    /// the lifted fog away and it settles at `fluid.settle`, so a brazier keeps a gentle plume.
    /// A scene without fires is stepped exactly as before.
    fn warm_fog_over_fires(&mut self, dt_s: f32) {
        let fog_top_world = self.scene.fog.top;
        for fire in &self.scene.fires {
            let flame_world = fire.flame_height.max(1e-3);
            let depth =
                ((fog_top_world + flame_world - fire.position[1]) / flame_world).clamp(0.0, 1.0);
            let raise = FIRE_LIFT_PER_S * dt_s * depth * fire.ember.min(1.0);
            if raise > 0.0 {
                // A blast with no push: only its lift, most in the middle.
                self.fluid.blast(
                    [fire.position[0], fire.position[2]],
                    flame_world * FIRE_HEAT_RADIUS_IN_FLAMES,
                    0.0,
                    raise,
                );
            }
        }
    }

    /// The ball as a moving obstacle, weighted by how deep it is in the fog.
    fn stir_fluid(&mut self) {
        let fog = &self.scene.fog;
        let fluid = &self.scene.fluid;
        let radius = self.scene.ball.radius;
        let bottom_of_ball = self.ball.pos_world[1] - radius;
        let weight = ((fog.top + fluid.fog_depth_margin - bottom_of_ball) / fluid.fog_depth_fade)
            .clamp(0.0, 1.0);
        self.fluid.push_ball(&BallPush {
            pos_world: self.ball.pos_world,
            vel_world: self.ball.vel_world,
            radius_world: radius,
            weight,
        });
    }

    /// Each walker, in the scene's order, drags the air along with its body and clears the
    /// fog under its feet for the coming step (`sim/brush.rs`). A scene without walkers is
    /// stepped exactly as before.
    fn walk_through_fog(&mut self, dt_s: f32) {
        let time_s = self.time_s();
        for walker in &self.walkers {
            let b = walker.brushes(time_s, f64::from(dt_s));
            self.fluid.push_brush(
                b.center_world,
                b.push_radius_world,
                b.velocity_world_per_s,
                b.push_per_s,
                dt_s,
            );
            self.fluid
                .clear_brush(b.center_world, b.clear_radius_world, b.clear_per_s, dt_s);
        }
    }

    /// The time of the current step, seconds.
    fn time_s(&self) -> f64 {
        self.steps as f64 / STEPS_PER_SECOND as f64
    }

    /// The floor point (x, z) the follow camera follows: the ball, or a walker at `time_s`.
    fn followed_world(&self, subject: FollowSubject, time_s: f64) -> [f32; 2] {
        match subject {
            FollowSubject::Walker(index) if index < self.walkers.len() => {
                self.walkers[index].pos_world(time_s)
            }
            _ => [self.ball.pos_world[0], self.ball.pos_world[2]],
        }
    }

    /// Moves the ball; taking off blows the air a little, landing blows it by how hard.
    fn move_ball(&mut self, dt_s: f32) -> Vec<BallEvent> {
        let outcome = self.ball.step(dt_s);
        let p = &self.scene.fluid;
        let ball = &self.scene.ball;
        let at = [self.ball.pos_world[0], self.ball.pos_world[2]];
        let mut events = Vec::new();
        if outcome.took_off {
            events.push(BallEvent::Jump);
            self.fluid.blast(
                at,
                ball.radius * p.takeoff_radius,
                ball.jump * p.takeoff_strength,
                p.takeoff_raise,
            );
        }
        if let Some(speed) = outcome.landing_speed {
            events.push(BallEvent::Land);
            if speed > p.landing_min_speed {
                self.fluid.blast(
                    at,
                    ball.radius * p.landing_radius,
                    speed * p.landing_strength,
                    (speed * p.landing_raise_per_speed).min(1.0),
                );
            }
        }
        events
    }

    /// The follow camera eases toward a point behind the ball; the others need no state.
    fn follow_with_camera(&mut self, dt_s: f32) {
        if let Camera::Follow(follow) = &self.scene.camera {
            let amount = 1.0 - (-follow.lag_rate * dt_s).exp();
            // Where the subject is at the end of this step (the ball has just moved there).
            let end_s = (self.steps + 1) as f64 / STEPS_PER_SECOND as f64;
            let [x, z] = self.followed_world(follow.subject, end_s);
            let goal_x = x * follow.track;
            let goal_z = z * follow.track + follow.back;
            self.camera.eye_world[0] += (goal_x - self.camera.eye_world[0]) * amount;
            self.camera.eye_world[2] += (goal_z - self.camera.eye_world[2]) * amount;
        }
    }

    /// The camera as seen at time `time_s` (keyframes are interpolated; the others use state).
    pub fn camera_pose(&self, time_s: f64) -> CameraPose {
        match &self.scene.camera {
            Camera::Follow(follow) => {
                let [x, z] = self.followed_world(follow.subject, self.time_s());
                CameraPose {
                    eye_world: self.camera.eye_world,
                    target_world: [x * follow.track, follow.look_height, z * follow.track],
                    fov_y_deg: follow.fov_y_deg,
                }
            }
            Camera::Fixed(fixed) => CameraPose {
                eye_world: fixed.position,
                target_world: fixed.target,
                fov_y_deg: fixed.fov_y_deg,
            },
            Camera::Keyframed(path) => keyframe_pose(&path.keys, time_s as f32),
        }
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The scene this world was built from.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The ball's motion.
    pub fn ball(&self) -> &BallMotion {
        &self.ball
    }

    /// The fluid.
    pub fn fluid(&self) -> &FluidSim {
        &self.fluid
    }

    /// The scene's walkers, in its order.
    pub fn walkers(&self) -> &[WalkerMotion] {
        &self.walkers
    }

    /// The weather, when the scene has one.
    pub fn weather(&self) -> Option<&WeatherState> {
        self.weather.as_ref()
    }

    /// A 64-bit hash of the whole state: fluid, ball, camera, step count and the weather (when
    /// there is one; a scene without weather hashes as it always did).
    pub fn state_hash(&self) -> u64 {
        let mut bytes = self.fluid.state_hash().to_le_bytes().to_vec();
        bytes.extend(self.ball.state_bytes());
        for v in self.camera.eye_world {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        bytes.extend_from_slice(&self.steps.to_le_bytes());
        if let Some(weather) = &self.weather {
            weather.write_bytes(&mut bytes);
        }
        fnv1a64(&bytes)
    }
}

/// Linear interpolation between camera keys; holds before the first and after the last.
fn keyframe_pose(keys: &[crate::scene::CameraKey], time_s: f32) -> CameraPose {
    let pose = |k: &crate::scene::CameraKey| CameraPose {
        eye_world: k.position,
        target_world: k.target,
        fov_y_deg: k.fov_y_deg,
    };
    let Some(first) = keys.first() else {
        let fixed = crate::scene::FixedCamera::default();
        return CameraPose {
            eye_world: fixed.position,
            target_world: fixed.target,
            fov_y_deg: fixed.fov_y_deg,
        };
    };
    if time_s <= first.time_s {
        return pose(first);
    }
    for pair in keys.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if time_s <= b.time_s {
            let span = (b.time_s - a.time_s).max(1e-6);
            let t = ((time_s - a.time_s) / span).clamp(0.0, 1.0);
            let mix3 = |x: [f32; 3], y: [f32; 3]| {
                [
                    x[0] + (y[0] - x[0]) * t,
                    x[1] + (y[1] - x[1]) * t,
                    x[2] + (y[2] - x[2]) * t,
                ]
            };
            return CameraPose {
                eye_world: mix3(a.position, b.position),
                target_world: mix3(a.target, b.target),
                fov_y_deg: a.fov_y_deg + (b.fov_y_deg - a.fov_y_deg) * t,
            };
        }
    }
    pose(keys.last().unwrap_or(first))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod walker_tests;

#[cfg(test)]
mod step_fields_tests;
