//! The ball: its script of timed inputs and the physics that turns them into motion.
//!
//! The script is what a player would do with the keys (steer, jump, let go) or the example's
//! self-driving figure of eight. The physics is the example's: acceleration toward the input,
//! drag that is gentle while steered and strong when let go, gravity, a landing impact, bumps
//! off pillars and the altar, and a square limit. Everything steps at exactly 1/60 s and is
//! deterministic: the self-driving jumps come from a seeded generator.

use crate::rng::SplitMix64;
use crate::scene::{self, AutoDrive, Input};
use crate::sim::{SnapshotError, get_f32, get_f64, get_u64, put_u64, take};

/// Something that happened to the ball during a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BallEvent {
    /// It left the floor.
    Jump,
    /// It came back down onto the floor.
    Land,
}

impl BallEvent {
    /// Name used in JSON and logs.
    pub fn name(self) -> &'static str {
        match self {
            BallEvent::Jump => "jump",
            BallEvent::Land => "land",
        }
    }
}

/// What the ball did in one step, for the fluid and the logs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepOutcome {
    /// It took off this step.
    pub took_off: bool,
    /// Downward speed at landing, world units/s, when it landed this step after a flight.
    pub landing_speed: Option<f32>,
}

/// A round obstacle on the floor the ball bumps into.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bumper {
    center_world: [f32; 2],
    radius_world: f32,
}

/// State of one `Auto` input once it has started driving.
#[derive(Debug, Clone, PartialEq)]
struct AutoState {
    /// Which script entry this belongs to.
    input_index: usize,
    /// Phase along the figure of eight, radians.
    phase_rad: f64,
    /// Seconds until the next jump.
    next_jump_s: f64,
    rng: SplitMix64,
}

/// The steering of one step: a direction on the floor (length at most 1) and whether to jump.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Steering {
    x: f32,
    z: f32,
    jump: bool,
}

/// The ball's position, velocity and script state.
#[derive(Debug, Clone, PartialEq)]
pub struct BallMotion {
    params: scene::Ball,
    bumpers: Vec<Bumper>,
    /// Centre of the ball, world units.
    pub pos_world: [f32; 3],
    /// Velocity, world units/s.
    pub vel_world: [f32; 3],
    /// Spin about y, radians (only for the look of the ball).
    pub spin_rad: f32,
    /// Steps taken so far.
    steps: u64,
    auto: Option<AutoState>,
    jumps_fired: Vec<bool>,
}

impl BallMotion {
    /// A ball at rest on the floor at its start, with the hall's pillars and altar to bump into.
    pub fn new(ball: &scene::Ball, hall: &scene::Hall) -> Self {
        let mut bumpers: Vec<Bumper> = hall
            .pillars
            .iter()
            .map(|&center_world| Bumper {
                center_world,
                radius_world: hall.pillar_radius + ball.pillar_clearance,
            })
            .collect();
        bumpers.push(Bumper {
            center_world: hall.altar.center,
            radius_world: hall.altar.width / 2.0 + ball.altar_clearance,
        });
        BallMotion {
            params: ball.clone(),
            bumpers,
            pos_world: [ball.start[0], ball.radius, ball.start[1]],
            vel_world: [0.0; 3],
            spin_rad: 0.0,
            steps: 0,
            auto: None,
            jumps_fired: vec![false; ball.script.len()],
        }
    }

    /// True when the ball rests on the floor.
    pub fn grounded(&self) -> bool {
        self.pos_world[1] <= self.params.radius + 0.001
    }

    /// Advances the ball by one step of `dt_s` seconds.
    pub fn step(&mut self, dt_s: f32) -> StepOutcome {
        let time_s = self.steps as f64 * f64::from(dt_s);
        let steering = self.steering_at(time_s, f64::from(dt_s));
        self.steps += 1;
        self.integrate(steering, dt_s)
    }

    /// Reads the script at `time_s`: the active steering input and any jump due.
    fn steering_at(&mut self, time_s: f64, dt_s: f64) -> Steering {
        // Inputs count as started when the step's time reaches them, to within a tiny slack
        // so `at: 0.5` starts on step 30 despite rounding.
        let slack_s = 1e-9;
        let mut steering = Steering::default();

        for (index, input) in self.params.script.iter().enumerate() {
            if let Input::Jump(jump) = input
                && !self.jumps_fired[index]
                && time_s + slack_s >= jump.at
            {
                self.jumps_fired[index] = true;
                steering.jump = true;
            }
        }

        let active = self
            .params
            .script
            .iter()
            .enumerate()
            .filter(|(_, input)| !matches!(input, Input::Jump(_)))
            .filter(|(_, input)| steering_start(input) <= time_s + slack_s)
            .max_by(|a, b| steering_start(a.1).total_cmp(&steering_start(b.1)))
            .filter(|(_, input)| match steering_duration(input) {
                Some(duration) => time_s + slack_s < steering_start(input) + duration,
                None => true,
            });

        let Some((index, input)) = active.map(|(i, input)| (i, input.clone())) else {
            return steering;
        };
        let [x, z] = match &input {
            Input::Steer(steer) => clamp_length([
                steer.toward[0] - self.pos_world[0],
                steer.toward[1] - self.pos_world[2],
            ]),
            Input::Move(mv) => clamp_length(mv.direction),
            Input::Auto(auto) => {
                let auto = auto.clone();
                let (direction, jump) = self.drive_auto(index, &auto, dt_s);
                steering.jump |= jump;
                direction
            }
            Input::Stop(_) | Input::Jump(_) => [0.0, 0.0],
        };
        steering.x = x;
        steering.z = z;
        steering
    }

    /// The example's self-driving: steer toward a point running a figure of eight, and jump
    /// whenever the timer drawn from the seeded generator runs out.
    fn drive_auto(&mut self, index: usize, auto: &AutoDrive, dt_s: f64) -> ([f32; 2], bool) {
        let state = match &mut self.auto {
            Some(state) if state.input_index == index => state,
            slot => slot.insert(AutoState {
                input_index: index,
                phase_rad: 0.0,
                next_jump_s: f64::from(auto.first_jump),
                rng: SplitMix64::new(auto.seed),
            }),
        };
        state.phase_rad += dt_s * f64::from(auto.speed);
        let goal_x = (state.phase_rad.sin() * f64::from(auto.amplitude_x)) as f32;
        let goal_z =
            ((state.phase_rad * 2.0).sin() * f64::from(auto.amplitude_z)) as f32 + auto.center_z;
        state.next_jump_s -= dt_s;
        let mut jump = false;
        if state.next_jump_s <= 0.0 {
            jump = true;
            state.next_jump_s = state
                .rng
                .range(f64::from(auto.jump_every[0]), f64::from(auto.jump_every[1]));
        }
        let direction = clamp_length([goal_x - self.pos_world[0], goal_z - self.pos_world[2]]);
        (direction, jump)
    }

    /// The example's physics for one step.
    fn integrate(&mut self, steering: Steering, dt_s: f32) -> StepOutcome {
        let p = &self.params;
        let was_grounded = self.grounded();
        let steered = steering.x != 0.0 || steering.z != 0.0;

        self.vel_world[0] += steering.x * p.accel * dt_s;
        self.vel_world[2] += steering.z * p.accel * dt_s;
        let drag = (-(if steered { p.drag } else { p.stop_drag }) * dt_s).exp();
        self.vel_world[0] *= drag;
        self.vel_world[2] *= drag;

        let took_off = steering.jump && was_grounded;
        if took_off {
            self.vel_world[1] = p.jump;
        }
        self.vel_world[1] -= p.gravity * dt_s;
        for axis in 0..3 {
            self.pos_world[axis] += self.vel_world[axis] * dt_s;
        }

        let mut landing_speed = None;
        if self.pos_world[1] < p.radius {
            if !was_grounded {
                landing_speed = Some(-self.vel_world[1]);
            }
            self.pos_world[1] = p.radius;
            self.vel_world[1] = 0.0;
        }

        self.pos_world[0] = self.pos_world[0].clamp(-p.limit, p.limit);
        self.pos_world[2] = self.pos_world[2].clamp(-p.limit, p.limit);
        self.bump(p.radius, p.bounce);

        let horizontal_speed = self.vel_world[0].hypot(self.vel_world[2]);
        self.spin_rad += dt_s * (0.6 + horizontal_speed);

        StepOutcome {
            took_off,
            landing_speed,
        }
    }

    /// Pushes the ball out of pillars and the altar and reflects the inward part of its speed.
    fn bump(&mut self, radius: f32, bounce: f32) {
        for bumper in &self.bumpers {
            let dx = self.pos_world[0] - bumper.center_world[0];
            let dz = self.pos_world[2] - bumper.center_world[1];
            let distance = dx.hypot(dz);
            let min_distance = radius + bumper.radius_world;
            if distance < min_distance && distance > 1e-4 {
                let (nx, nz) = (dx / distance, dz / distance);
                self.pos_world[0] = bumper.center_world[0] + nx * min_distance;
                self.pos_world[2] = bumper.center_world[1] + nz * min_distance;
                let inward = self.vel_world[0] * nx + self.vel_world[2] * nz;
                if inward < 0.0 {
                    self.vel_world[0] -= nx * inward * bounce;
                    self.vel_world[2] -= nz * inward * bounce;
                }
            }
        }
    }

    /// Bytes of the whole state in a fixed order, for hashing replays.
    pub fn state_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(64);
        for v in self.pos_world.iter().chain(&self.vel_world) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        bytes.extend_from_slice(&self.spin_rad.to_le_bytes());
        bytes.extend_from_slice(&self.steps.to_le_bytes());
        if let Some(auto) = &self.auto {
            bytes.extend_from_slice(&(auto.input_index as u64).to_le_bytes());
            bytes.extend_from_slice(&auto.phase_rad.to_le_bytes());
            bytes.extend_from_slice(&auto.next_jump_s.to_le_bytes());
        }
        bytes
    }

    /// Appends the whole moving state (position, velocity, spin, steps, self-driving state
    /// with its generator, jumps fired) to a snapshot, little-endian.
    pub fn write_snapshot(&self, out: &mut Vec<u8>) {
        for v in self.pos_world.iter().chain(&self.vel_world) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.spin_rad.to_le_bytes());
        put_u64(out, self.steps);
        match &self.auto {
            None => out.push(0),
            Some(auto) => {
                out.push(1);
                put_u64(out, auto.input_index as u64);
                out.extend_from_slice(&auto.phase_rad.to_le_bytes());
                out.extend_from_slice(&auto.next_jump_s.to_le_bytes());
                put_u64(out, auto.rng.state());
            }
        }
        put_u64(out, self.jumps_fired.len() as u64);
        out.extend(self.jumps_fired.iter().map(|&fired| u8::from(fired)));
    }

    /// The ball of `ball` and `hall` with its moving state read from a snapshot written by
    /// [`BallMotion::write_snapshot`]; `input` is advanced past it.
    pub fn read_snapshot(
        ball: &scene::Ball,
        hall: &scene::Hall,
        input: &mut &[u8],
    ) -> Result<Self, SnapshotError> {
        let mut motion = BallMotion::new(ball, hall);
        for v in motion.pos_world.iter_mut() {
            *v = get_f32(input, "ball position")?;
        }
        for v in motion.vel_world.iter_mut() {
            *v = get_f32(input, "ball velocity")?;
        }
        motion.spin_rad = get_f32(input, "ball spin")?;
        motion.steps = get_u64(input, "ball steps")?;
        motion.auto = match take(input, 1, "ball self-driving flag")?[0] {
            0 => None,
            1 => {
                let input_index = get_u64(input, "self-driving input")?;
                let phase_rad = get_f64(input, "self-driving phase")?;
                let next_jump_s = get_f64(input, "self-driving jump timer")?;
                let rng = SplitMix64::new(get_u64(input, "self-driving generator")?);
                let input_index = usize::try_from(input_index)
                    .ok()
                    .filter(|&i| i < ball.script.len())
                    .ok_or_else(|| {
                        SnapshotError::Corrupt(format!("self-driving input {input_index}"))
                    })?;
                Some(AutoState {
                    input_index,
                    phase_rad,
                    next_jump_s,
                    rng,
                })
            }
            flag => {
                return Err(SnapshotError::Corrupt(format!(
                    "ball self-driving flag {flag}"
                )));
            }
        };
        let count = get_u64(input, "jumps fired count")?;
        if count != motion.jumps_fired.len() as u64 {
            return Err(SnapshotError::Corrupt(format!(
                "{count} script entries, the scene has {}",
                motion.jumps_fired.len()
            )));
        }
        let fired = take(input, motion.jumps_fired.len(), "jumps fired")?;
        for (slot, &byte) in motion.jumps_fired.iter_mut().zip(fired) {
            *slot = match byte {
                0 => false,
                1 => true,
                _ => return Err(SnapshotError::Corrupt(format!("jump fired flag {byte}"))),
            };
        }
        Ok(motion)
    }
}

fn steering_start(input: &Input) -> f64 {
    match input {
        Input::Steer(s) => s.at,
        Input::Move(m) => m.at,
        Input::Jump(j) => j.at,
        Input::Stop(s) => s.at,
        Input::Auto(a) => a.at,
    }
}

fn steering_duration(input: &Input) -> Option<f64> {
    match input {
        Input::Steer(s) => s.duration,
        Input::Move(m) => m.duration,
        Input::Stop(s) => s.duration,
        Input::Auto(a) => a.duration,
        Input::Jump(_) => None,
    }
}

/// Shortens a direction longer than 1 to length 1, as a stick's input is.
fn clamp_length([x, z]: [f32; 2]) -> [f32; 2] {
    let length = x.hypot(z);
    if length > 1.0 {
        [x / length, z / length]
    } else {
        [x, z]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Hall, Jump, Move, Scene, Stop};
    use crate::timeline::STEP_S;

    fn ball_with(script: Vec<Input>) -> BallMotion {
        let scene = Scene::default();
        let ball = scene::Ball {
            script,
            ..scene.ball
        };
        BallMotion::new(&ball, &scene.hall)
    }

    fn run(ball: &mut BallMotion, steps: usize) -> Vec<StepOutcome> {
        (0..steps).map(|_| ball.step(STEP_S)).collect()
    }

    #[test]
    fn default_script_jumps_at_least_three_times_in_ten_seconds() {
        let mut ball = ball_with(scene::Ball::default().script);
        let outcomes = run(&mut ball, 600);
        let jumps = outcomes.iter().filter(|o| o.took_off).count();
        let landings = outcomes
            .iter()
            .filter(|o| o.landing_speed.is_some())
            .count();
        assert!(jumps >= 3, "only {jumps} jumps");
        assert!(landings >= 3, "only {landings} landings");
    }

    #[test]
    fn a_jump_rises_and_lands_hard() {
        let mut ball = ball_with(vec![Input::Jump(Jump { at: 0.5 })]);
        let outcomes = run(&mut ball, 120);
        assert!(outcomes[30].took_off, "jump fires on step 30");
        let peak = {
            let mut b = ball_with(vec![Input::Jump(Jump { at: 0.0 })]);
            (0..40)
                .map(|_| {
                    b.step(STEP_S);
                    b.pos_world[1]
                })
                .fold(0.0f32, f32::max)
        };
        // v²/2g = 8.5² / 44 ≈ 1.64 above the rest height.
        assert!((peak - 0.5 - 1.64).abs() < 0.15, "peak {peak}");
        let landing = outcomes.iter().find_map(|o| o.landing_speed).unwrap();
        assert!(landing > 7.0, "landing speed {landing}");
    }

    #[test]
    fn letting_go_stops_the_ball_quickly() {
        let mut ball = ball_with(vec![
            Input::Move(Move {
                at: 0.0,
                duration: Some(1.0),
                direction: [1.0, 0.0],
            }),
            Input::Stop(Stop {
                at: 1.0,
                duration: None,
            }),
        ]);
        run(&mut ball, 60);
        let moving = ball.vel_world[0];
        assert!(moving > 3.0, "{moving}");
        run(&mut ball, 30);
        assert!(ball.vel_world[0] < moving * 0.02, "{}", ball.vel_world[0]);
    }

    #[test]
    fn never_passes_through_pillars_or_leaves_the_hall() {
        let hall = Hall::default();
        let mut ball = ball_with(vec![Input::Steer(scene::Steer {
            at: 0.0,
            duration: None,
            toward: [3.5, -3.5],
        })]);
        for _ in 0..600 {
            ball.step(STEP_S);
            for pillar in &hall.pillars {
                let d = (ball.pos_world[0] - pillar[0]).hypot(ball.pos_world[2] - pillar[1]);
                assert!(d >= 0.5 + 0.38 + 0.07 - 1e-3, "inside a pillar: {d}");
            }
            assert!(ball.pos_world[0].abs() <= 7.5 && ball.pos_world[2].abs() <= 7.5);
        }
    }

    #[test]
    fn same_script_same_motion() {
        let mut a = ball_with(scene::Ball::default().script);
        let mut b = ball_with(scene::Ball::default().script);
        run(&mut a, 900);
        run(&mut b, 900);
        assert_eq!(a.state_bytes(), b.state_bytes());
    }
}
