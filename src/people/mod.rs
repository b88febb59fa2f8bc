//! People's motion: each scene walker as a pure function of the absolute time.
//!
//! [`WalkerMotion`] is one walker of the scene resolved for playing: its [`Route`] (where it
//! is when, `route.rs`) and its body (`body.rs`). [`WalkerMotion::pose`] gives the position,
//! the heading (turning smoothly round corners) and the gait phase (from the distance walked,
//! so the legs stop when the walker stands) at any time; [`WalkerMotion::capsules`] the six
//! capsules drawn for a pose (torso, head, two legs, two arms: [`CAPSULES_PER_WALKER`]);
//! [`WalkerMotion::brushes`] what its body does to the fluid over one step. Nothing here has
//! state: the same time gives the same pose whatever the frame rate.

mod body;
mod route;

pub use body::CAPSULES_PER_WALKER;
pub use route::Route;

use crate::frame::Capsule;
use crate::scene::Walker;

/// How long before and after a time the heading and speed look (seconds): a corner is turned
/// over about twice this, and the legs fade in and out of a stride over it.
const SMOOTHING_WINDOW_S: f64 = 0.3;

/// Reach of the walker's push on the air, in body radii.
pub const PUSH_RADIUS_IN_RADII: f32 = 3.0;
/// Reach of the feet's clearing of the fog, in body radii.
pub const CLEAR_RADIUS_IN_RADII: f32 = 2.4;

/// A walker at one instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WalkerPose {
    /// Where it stands on the floor, world x and z.
    pub pos_world: [f32; 2],
    /// What it faces, radians about +y: 0 faces +z, π/2 faces +x.
    pub heading_rad: f32,
    /// Where its legs are in their stride, radians (a full cycle is two steps); grows with the
    /// distance walked, so it holds still while the walker stands.
    pub gait_phase_rad: f32,
    /// How far its legs swing, 0 (standing) to 1 (walking at a normal pace or faster).
    pub stride: f32,
}

/// What a walker does to the fluid over one step: the fluid brushes' arguments.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WalkerBrushes {
    /// Middle of both brushes, world x and z.
    pub center_world: [f32; 2],
    /// The walker's velocity over the step, world units per second (x, z).
    pub velocity_world_per_s: [f32; 2],
    /// Radius of the push on the air, world units.
    pub push_radius_world: f32,
    /// The push's rate, per second (the scene's `push`).
    pub push_per_s: f32,
    /// Radius of the clearing of the fog, world units.
    pub clear_radius_world: f32,
    /// The clearing's rate, per second (the scene's `clear`).
    pub clear_per_s: f32,
}

/// One scene walker, resolved for playing.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkerMotion {
    route: Route,
    body: body::Body,
    push_per_s: f32,
    clear_per_s: f32,
}

impl WalkerMotion {
    /// The walker of a scene's `walkers` entry.
    pub fn new(walker: &Walker) -> WalkerMotion {
        WalkerMotion {
            route: Route::new(&walker.path),
            body: body::Body::new(walker),
            push_per_s: walker.push,
            clear_per_s: walker.clear,
        }
    }

    /// All walkers of a scene, in its order.
    pub fn all(walkers: &[Walker]) -> Vec<WalkerMotion> {
        walkers.iter().map(WalkerMotion::new).collect()
    }

    /// Its route.
    pub fn route(&self) -> &Route {
        &self.route
    }

    /// Where it stands at `time_s`, world x and z.
    pub fn pos_world(&self, time_s: f64) -> [f32; 2] {
        let (pos, _) = self.route.at(time_s);
        pos.map(|v| v as f32)
    }

    /// The walker at `time_s` (seconds from the start of the clip).
    pub fn pose(&self, time_s: f64) -> WalkerPose {
        let (pos, walked_world) = self.route.at(time_s);
        let cycle_world = f64::from(self.body.gait_cycle_world());
        let phase = (walked_world / cycle_world).fract() * std::f64::consts::TAU;
        let speed = self.route.speed_world_per_s(time_s, SMOOTHING_WINDOW_S);
        // Full stride from 0.6 units/s; the legs close smoothly below it.
        let s = (speed / 0.6).clamp(0.0, 1.0);
        WalkerPose {
            pos_world: pos.map(|v| v as f32),
            heading_rad: self.route.heading_rad(time_s, SMOOTHING_WINDOW_S) as f32,
            gait_phase_rad: phase as f32,
            stride: (s * s * (3.0 - 2.0 * s)) as f32,
        }
    }

    /// Appends the capsules of `pose` to `out` ([`CAPSULES_PER_WALKER`] of them, in a fixed
    /// order).
    pub fn capsules(&self, pose: &WalkerPose, out: &mut Vec<Capsule>) {
        self.body.capsules(pose, out);
    }

    /// What the walker does to the fluid over the step from `time_s` to `time_s + dt_s`: it
    /// stands where it is at `time_s` and moves at its mean velocity over the step.
    pub fn brushes(&self, time_s: f64, dt_s: f64) -> WalkerBrushes {
        let (from, _) = self.route.at(time_s);
        let (to, _) = self.route.at(time_s + dt_s);
        let radius = self.body.radius_world();
        WalkerBrushes {
            center_world: from.map(|v| v as f32),
            velocity_world_per_s: [
                ((to[0] - from[0]) / dt_s) as f32,
                ((to[1] - from[1]) / dt_s) as f32,
            ],
            push_radius_world: radius * PUSH_RADIUS_IN_RADII,
            push_per_s: self.push_per_s,
            clear_radius_world: radius * CLEAR_RADIUS_IN_RADII,
            clear_per_s: self.clear_per_s,
        }
    }
}

#[cfg(test)]
mod tests;
