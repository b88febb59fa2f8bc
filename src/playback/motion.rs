//! Motion blur's side of playback: what each sample of a frame sees at its own moment of the
//! shutter (see the module doc of `playback.rs`, "Motion blur").

use rayon::prelude::*;
use std::collections::VecDeque;

use super::{FrameState, Playback, weather_frame};
use crate::frame::{CameraPose, MotionSample, WeatherFrame};
use crate::scene::Scene;
use crate::world::World;

/// Motion blur's bookkeeping (`output.shutter` above 0 with more than one sample): each
/// sample's moment relative to its frame's, and what the renderer needs of each recent step.
pub(super) struct MotionPlan {
    /// Each sample's moment relative to the frame's, in 60 Hz steps, in the schedule's order.
    offsets_steps: Vec<f64>,
    /// The recent steps, oldest first, one a step with none missing.
    history: VecDeque<StepLook>,
}

impl MotionPlan {
    /// The plan for `scene`, or `None` when its frames are instants.
    pub(super) fn for_scene(scene: &Scene) -> Option<MotionPlan> {
        let output = &scene.output;
        let sampling = output.sampling();
        if output.shutter <= 0.0 || !sampling.spreads_over_shutter() {
            return None;
        }
        let schedule = sampling.schedule();
        let offsets_s = schedule.time_offsets_s(output.shutter, output.fps);
        let per_s = f64::from(crate::timeline::STEPS_PER_SECOND);
        Some(MotionPlan {
            offsets_steps: offsets_s.iter().map(|t| t * per_s).collect(),
            history: VecDeque::new(),
        })
    }

    /// Keeps what the renderer needs of `world` as it is now, and forgets the steps no later
    /// frame's samples reach back to.
    pub(super) fn record(&mut self, world: &World) {
        self.history.push_back(StepLook::of(world));
        let keep = self.steps_behind() + 1;
        while self.history.len() as u64 > keep {
            self.history.pop_front();
        }
    }

    /// Whole steps a frame's samples reach before it.
    pub(super) fn steps_behind(&self) -> u64 {
        let earliest = self.offsets_steps.iter().fold(0.0f64, |a, &b| a.min(b));
        (-earliest).ceil() as u64
    }

    /// Whole steps a frame's samples reach after it.
    pub(super) fn steps_ahead(&self) -> u64 {
        let latest = self.offsets_steps.iter().fold(0.0f64, |a, &b| a.max(b));
        latest.ceil() as u64
    }
}

/// What the renderer needs of the world after one step, for the samples that blend it.
#[derive(Clone)]
struct StepLook {
    step: u64,
    camera: CameraPose,
    ball_pos_world: [f32; 3],
    ball_spin_rad: f32,
    fluid_map: Vec<u8>,
    lift_map: Vec<u8>,
    weather: Option<WeatherFrame>,
}

impl StepLook {
    /// The look of `world` as it is now.
    fn of(world: &World) -> StepLook {
        let step = world.steps();
        let time_s = step as f64 / f64::from(crate::timeline::STEPS_PER_SECOND);
        let cells = world.scene().fluid.grid as usize;
        let mut fluid_map = vec![0; cells * cells * 4];
        let mut lift_map = vec![0; cells * cells * 4];
        let offset_range = world.scene().fog.offset_range;
        world
            .fluid()
            .write_maps(&mut fluid_map, &mut lift_map, offset_range);
        StepLook {
            step,
            camera: world.camera_pose(time_s),
            ball_pos_world: world.ball().pos_world,
            ball_spin_rad: world.ball().spin_rad,
            fluid_map,
            lift_map,
            weather: world
                .weather()
                .and_then(|weather| weather_frame(world.scene(), weather, time_s)),
        }
    }
}

impl Playback {
    /// What each sample of the frame at `state` sees (empty without a shutter): each
    /// sample's moment between the two steps round it blended, the walkers posed at the moment
    /// itself. The steps after the frame's come from a copy of the world stepped on, so the
    /// world itself stays at the frame. A moment before the first step kept (the clip's
    /// start) takes that step.
    pub(super) fn motion_samples(&self, state: &FrameState) -> Vec<MotionSample> {
        let Some(plan) = self.motion_plan.as_ref() else {
            return Vec::new();
        };
        let mut ahead = self.world.clone();
        let mut looks: Vec<StepLook> = plan.history.iter().cloned().collect();
        for _ in 0..plan.steps_ahead() {
            ahead.step();
            looks.push(StepLook::of(&ahead));
        }
        let scene = self.world.scene();
        let (Some(first), Some(last)) = (looks.first(), looks.last()) else {
            return Vec::new();
        };
        let (first, last) = (first.step, last.step);
        let per_s = f64::from(crate::timeline::STEPS_PER_SECOND);
        // Each sample on its own thread: each is a function of its offset alone, so the bytes
        // are the same at any thread count.
        plan.offsets_steps
            .par_iter()
            .map(|&offset| {
                let at = (state.steps as f64 + offset).clamp(first as f64, last as f64);
                let before = (at.floor() as u64).min(last);
                let after = (before + 1).min(last);
                let weight = (at - before as f64) as f32;
                let look = |step: u64| &looks[(step - first) as usize];
                let (a, b) = (look(before), look(after));
                let time_s = state.time_s + offset / per_s;
                let mut capsules = Vec::new();
                for walker in self.world.walkers() {
                    walker.capsules(&walker.pose(time_s), &mut capsules);
                }
                MotionSample {
                    time_s: time_s as f32,
                    camera: CameraPose {
                        eye_world: lerp3(a.camera.eye_world, b.camera.eye_world, weight),
                        target_world: lerp3(a.camera.target_world, b.camera.target_world, weight),
                        fov_y_deg: lerp(a.camera.fov_y_deg, b.camera.fov_y_deg, weight),
                    },
                    ball_pos_world: lerp3(a.ball_pos_world, b.ball_pos_world, weight),
                    ball_spin_rad: lerp(a.ball_spin_rad, b.ball_spin_rad, weight),
                    ball_light_intensity: scene.lights.ball.intensity_at(time_s),
                    fluid_map: blend_bytes(&a.fluid_map, &b.fluid_map, weight),
                    lift_map: blend_bytes(&a.lift_map, &b.lift_map, weight),
                    weather: match (a.weather, b.weather) {
                        (Some(x), Some(y)) => Some(blend_weather(&x, &y, weight)),
                        (x, _) => x,
                    },
                    capsules,
                }
            })
            .collect()
    }
}

fn lerp(a: f32, b: f32, weight: f32) -> f32 {
    a + (b - a) * weight
}

fn lerp3(a: [f32; 3], b: [f32; 3], weight: f32) -> [f32; 3] {
    [0, 1, 2].map(|i| lerp(a[i], b[i], weight))
}

/// Two RGBA8 maps blended texel by texel with `weight` (0..=1) of `b`, in 1/256 steps,
/// rounded to the nearest byte: integer arithmetic, which the compiler vectorises.
fn blend_bytes(a: &[u8], b: &[u8], weight: f32) -> Vec<u8> {
    let w = (weight.clamp(0.0, 1.0) * 256.0).round() as u16;
    a.iter()
        .zip(b)
        .map(|(&x, &y)| ((u16::from(x) * (256 - w) + u16::from(y) * w + 128) >> 8) as u8)
        .collect()
}

/// Two steps' weather blended; the later strike where they differ.
fn blend_weather(a: &WeatherFrame, b: &WeatherFrame, weight: f32) -> WeatherFrame {
    let pair = |x: [f32; 2], y: [f32; 2]| [lerp(x[0], y[0], weight), lerp(x[1], y[1], weight)];
    WeatherFrame {
        fog_density: lerp(a.fog_density, b.fog_density, weight),
        gloom: lerp(a.gloom, b.gloom, weight),
        rain: lerp(a.rain, b.rain, weight),
        wetness: lerp(a.wetness, b.wetness, weight),
        flash: lerp(a.flash, b.flash, weight),
        wind_world_per_s: pair(a.wind_world_per_s, b.wind_world_per_s),
        drift_world: pair(a.drift_world, b.drift_world),
        noise_drift_world: lerp3(a.noise_drift_world, b.noise_drift_world, weight),
        fog_light: lerp(a.fog_light, b.fog_light, weight),
        last_strike: if weight < 0.5 {
            a.last_strike
        } else {
            b.last_strike
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_blend_from_one_step_to_the_next() {
        let (a, b) = ([0u8, 255, 10, 200], [255u8, 0, 20, 200]);
        assert_eq!(blend_bytes(&a, &b, 0.0), a);
        assert_eq!(blend_bytes(&a, &b, 1.0), b);
        assert_eq!(blend_bytes(&a, &b, 0.5), [128, 128, 15, 200]);
        assert_eq!(blend_bytes(&a, &b, 0.25), [64, 191, 13, 200]);
    }
}
