//! The world: the ball, the camera and the fluid stepped together at exactly 60 Hz.
//!
//! This is the one place where the ball's motion stirs the fluid: each step the weather (when
//! the scene has one) moves on and its wind drags the air, the ball is pushed
//! into the fluid as a moving obstacle, the fires' heat lifts the fog over them, the fluid
//! steps, the ball moves (taking off and landing blast the air), and the camera eases after it
//! — the example's order. Everything here is deterministic, and [`World::state_hash`] names
//! the whole state in 16 hex digits so replays can be checked.

use crate::ball::{BallEvent, BallMotion};
use crate::frame::CameraPose;
use crate::scene::{Camera, Scene};
use crate::sim::{
    BallPush, FluidSim, GridMapping, SnapshotError, SnapshotHeader, WindPush, get_f32, get_u64,
    put_u64,
};
use crate::timeline::STEP_S;
use crate::weather::WeatherState;

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
        }
    }

    /// Advances one 1/60 s step and returns what happened to the ball.
    pub fn step(&mut self) -> Vec<BallEvent> {
        let dt_s = STEP_S;
        self.blow_weather(dt_s);
        self.stir_fluid();
        self.warm_fog_over_fires(dt_s);
        self.fluid.step(dt_s);
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
            let goal_x = self.ball.pos_world[0] * follow.track;
            let goal_z = self.ball.pos_world[2] * follow.track + follow.back;
            self.camera.eye_world[0] += (goal_x - self.camera.eye_world[0]) * amount;
            self.camera.eye_world[2] += (goal_z - self.camera.eye_world[2]) * amount;
        }
    }

    /// The camera as seen at time `time_s` (keyframes are interpolated; the others use state).
    pub fn camera_pose(&self, time_s: f64) -> CameraPose {
        match &self.scene.camera {
            Camera::Follow(follow) => CameraPose {
                eye_world: self.camera.eye_world,
                target_world: [
                    self.ball.pos_world[0] * follow.track,
                    follow.look_height,
                    self.ball.pos_world[2] * follow.track,
                ],
                fov_y_deg: follow.fov_y_deg,
            },
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

impl World {
    /// The whole state as bytes: a header (magic, format version, [`sim_scene_hash`], grid
    /// size, step, payload length, CRC-32; see [`SnapshotHeader::seal`]), the fluid (see `sim/snapshot.rs`), the ball with its script state, the
    /// camera's eye, the step count and the weather (if any), all little-endian. [`World::restore`] reads it back.
    pub fn snapshot(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.fluid.mapping().cell_count() * 37);
        self.fluid.write_snapshot(&mut out);
        self.ball.write_snapshot(&mut out);
        for v in self.camera.eye_world {
            out.extend_from_slice(&v.to_le_bytes());
        }
        put_u64(&mut out, self.steps);
        // The weather, last, and only when there is one: a scene without weather keeps its
        // snapshot bytes.
        if let Some(weather) = &self.weather {
            weather.write_bytes(&mut out);
        }
        SnapshotHeader {
            scene_hash: sim_scene_hash(&self.scene),
            cells: self.fluid.mapping().cells as u64,
            step: self.steps,
        }
        .seal(&out)
    }

    /// The world of `scene` in the state saved by [`World::snapshot`]. Stepping it gives
    /// exactly what stepping the saved world would have. A snapshot of another scene, another
    /// grid or another format version, or damaged bytes (the checksum catches any flipped bit),
    /// is an error, never a panic.
    pub fn restore(scene: &Scene, bytes: &[u8]) -> Result<World, SnapshotError> {
        let mut input = bytes;
        let header = SnapshotHeader::read(&mut input)?;
        let expected_hash = sim_scene_hash(scene);
        if header.scene_hash != expected_hash {
            return Err(SnapshotError::OtherScene {
                found: header.scene_hash,
                expected: expected_hash,
            });
        }
        // Solids, mapping and parameters come from the scene, exactly as a fresh world's.
        let mut world = World::new(scene);
        if header.cells != world.fluid.mapping().cells as u64 {
            return Err(SnapshotError::GridSize {
                found: header.cells,
                expected: world.fluid.mapping().cells as u64,
            });
        }
        world.fluid = FluidSim::read_snapshot(&scene.fluid, *world.fluid.mapping(), &mut input)?;
        world.ball = BallMotion::read_snapshot(&scene.ball, &scene.hall, &mut input)?;
        for v in world.camera.eye_world.iter_mut() {
            *v = get_f32(&mut input, "camera")?;
        }
        world.steps = get_u64(&mut input, "step count")?;
        if world.steps != header.step {
            return Err(SnapshotError::Corrupt(format!(
                "header says step {}, body says step {}",
                header.step, world.steps
            )));
        }
        if world.weather.is_some() {
            world.weather = Some(WeatherState::read_bytes(&mut input)?);
        }
        if !input.is_empty() {
            return Err(SnapshotError::Corrupt(format!(
                "{} bytes left after the end",
                input.len()
            )));
        }
        Ok(world)
    }
}

/// The scene hash a snapshot carries: [`Scene::simulation_hash`], the scene's canonical hash
/// with the `output` section left out — size, frame count and fps only choose which states are
/// shown, not the states themselves, so a cache made by `simulate` serves a `render --size` of
/// the same scene.
pub fn sim_scene_hash(scene: &Scene) -> u64 {
    scene.simulation_hash()
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
mod tests {
    use super::*;
    use crate::scene::{CameraKey, KeyframedCamera};

    /// A scene whose ball stands still at (2, 2), jumps once at 0.5 s and lands about 0.77 s
    /// later, with no fires.
    fn jumping_scene() -> Scene {
        let mut scene = Scene::default();
        scene.fires.clear();
        scene.ball.script = vec![crate::scene::Input::Jump(crate::scene::Jump { at: 0.5 })];
        scene
    }

    #[test]
    fn a_landing_blasts_the_fog_outward_and_lifts_it_in_a_ring() {
        let mut world = World::new(&jumping_scene());
        let ring_lift = |world: &World, [x, z]: [f32; 2]| -> f32 {
            (0..8)
                .map(|k| {
                    let angle = k as f32 * std::f32::consts::TAU / 8.0;
                    world
                        .fluid()
                        .probe(x + 1.6 * angle.cos(), z + 1.6 * angle.sin())
                        .lift
                })
                .fold(f32::INFINITY, f32::min)
        };
        let mut landed_at = None;
        let mut lift_before_landing = 0.0;
        for _ in 0..120 {
            let [bx, _, bz] = world.ball().pos_world;
            let before = ring_lift(&world, [bx, bz]);
            if world.step().contains(&BallEvent::Land) {
                landed_at = Some(world.ball().pos_world);
                lift_before_landing = before;
                break;
            }
        }
        let [x, _, z] = landed_at.expect("the ball lands within 2 s");
        // Let the blast spread for a quarter of a second.
        for _ in 0..15 {
            world.step();
        }
        let fluid = world.fluid();
        let ring: Vec<f32> = (0..8)
            .map(|k| {
                let angle = k as f32 * std::f32::consts::TAU / 8.0;
                fluid
                    .probe(x + 1.6 * angle.cos(), z + 1.6 * angle.sin())
                    .lift
            })
            .collect();
        let far = fluid.probe(x - 6.0, z - 6.0).lift;
        assert!(
            ring.iter().all(|&l| l > 0.1),
            "lift round the landing: {ring:?}"
        );
        // The landing, not what is left of the take-off, did it.
        assert!(
            ring_lift(&world, [x, z]) > lift_before_landing + 0.1,
            "ring lift {lift_before_landing} before landing, {:?} after",
            ring_lift(&world, [x, z])
        );
        assert!(far < 0.01, "lift far away: {far}");
        // The fog under the landing is thinner than in the ring it was thrown into.
        let centre = fluid.probe(x, z).density;
        let ring_density = fluid.probe(x + 1.6, z).density;
        assert!(
            centre < ring_density,
            "centre {centre}, ring {ring_density}"
        );
    }

    #[test]
    fn a_restored_world_steps_exactly_like_the_uninterrupted_one() {
        // The temple's self-driving script (seeded jumps) on a small grid.
        let mut scene = Scene::default();
        scene.fluid.grid = 24;
        let mut world = World::new(&scene);
        for _ in 0..200 {
            world.step();
        }
        let bytes = world.snapshot();
        let mut restored = World::restore(&scene, &bytes).unwrap();
        assert_eq!(restored.steps(), 200);
        assert_eq!(restored.state_hash(), world.state_hash());
        assert_eq!(restored.snapshot(), bytes);
        let mut jumps = 0;
        for step in 0..400 {
            let events = world.step();
            assert_eq!(restored.step(), events, "step {step}");
            jumps += events.iter().filter(|e| **e == BallEvent::Jump).count();
            assert_eq!(restored.state_hash(), world.state_hash(), "step {step}");
            assert_eq!(
                restored.camera_pose(0.0).eye_world,
                world.camera_pose(0.0).eye_world
            );
        }
        assert!(jumps > 0, "the script jumped after the snapshot");
    }

    #[test]
    fn snapshots_of_other_scenes_and_damaged_bytes_are_refused() {
        let mut scene = Scene::default();
        scene.fluid.grid = 16;
        let mut world = World::new(&scene);
        for _ in 0..30 {
            world.step();
        }
        let bytes = world.snapshot();
        let mut other = scene.clone();
        other.fluid.refill = 1.0;
        assert!(matches!(
            World::restore(&other, &bytes),
            Err(SnapshotError::OtherScene { .. })
        ));
        // The output section does not change the states, so it does not count.
        let mut resized = scene.clone();
        resized.output.width = 320;
        assert!(World::restore(&resized, &bytes).is_ok());
        for cut in [0, 10, 40, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                matches!(
                    World::restore(&scene, &bytes[..cut]),
                    Err(SnapshotError::Truncated { .. })
                ),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            World::restore(&scene, &longer),
            Err(SnapshotError::Corrupt(_))
        ));
    }

    #[test]
    fn keyframes_interpolate_and_hold() {
        let keys = KeyframedCamera {
            keys: vec![
                CameraKey {
                    time_s: 1.0,
                    position: [0.0, 0.0, 0.0],
                    target: [0.0, 0.0, -1.0],
                    fov_y_deg: 40.0,
                },
                CameraKey {
                    time_s: 3.0,
                    position: [2.0, 4.0, 6.0],
                    target: [0.0, 0.0, -1.0],
                    fov_y_deg: 60.0,
                },
            ],
        };
        assert_eq!(keyframe_pose(&keys.keys, 0.0).eye_world, [0.0; 3]);
        assert_eq!(keyframe_pose(&keys.keys, 2.0).eye_world, [1.0, 2.0, 3.0]);
        assert_eq!(keyframe_pose(&keys.keys, 2.0).fov_y_deg, 50.0);
        assert_eq!(keyframe_pose(&keys.keys, 9.0).eye_world, [2.0, 4.0, 6.0]);
    }

    #[test]
    fn standing_blocks_are_solid_to_the_fog_floating_ones_are_not() {
        use crate::scene::Block;
        let solid_cells = |blocks: Vec<Block>| {
            let mut scene = Scene::default();
            scene.hall.pillars.clear();
            scene.hall.altar.width = 0.01;
            scene.hall.altar.depth = 0.01;
            scene.hall.blocks = blocks;
            let world = World::new(&scene);
            world.fluid().solid().iter().filter(|&&s| s == 1).count()
        };
        let base = solid_cells(Vec::new());
        let step = Block {
            bottom_center: [-6.0, 0.0, 5.0],
            size: [4.0, 0.4, 2.0],
            ..Block::default()
        };
        let floating = Block {
            bottom_center: [-6.0, 2.5, 5.0],
            ..step.clone()
        };
        let sunk = Block {
            bottom_center: [-6.0, -1.0, 5.0],
            size: [4.0, 1.0, 2.0],
            ..step.clone()
        };
        // 4 × 2 world units on a 96-cell grid over 22: about 17.5 × 8.7 cells.
        let standing = solid_cells(vec![step]) - base;
        assert!((150..=200).contains(&standing), "{standing} cells");
        assert_eq!(solid_cells(vec![floating]), base);
        assert_eq!(solid_cells(vec![sunk]), base);
    }

    #[test]
    fn fires_lift_the_fog_over_them() {
        use crate::scene::{Fire, FireKind};
        let mut still = Scene::default();
        still.ball.script.clear();
        let mut warm = still.clone();
        warm.fires = vec![Fire {
            kind: FireKind::Brazier,
            position: [-6.0, 0.9, -6.0],
            flame_height: 1.0,
            ..Fire::default()
        }];
        let mut a = World::new(&still);
        let mut b = World::new(&warm);
        let mut c = World::new(&still);
        for _ in 0..120 {
            a.step();
            b.step();
            c.step();
        }
        let lift_at = |world: &World, x: f32, z: f32| world.fluid().probe(x, z).lift;
        assert_eq!(lift_at(&a, -6.0, -6.0), 0.0);
        let over_fire = lift_at(&b, -6.0, -6.0);
        assert!(over_fire > 0.1 && over_fire < 0.5, "lift {over_fire}");
        // Far from the fire nothing changed.
        assert_eq!(lift_at(&b, 6.0, 6.0), lift_at(&a, 6.0, 6.0));
        assert_ne!(a.state_hash(), b.state_hash());
        assert_eq!(a.state_hash(), c.state_hash());
    }
}
