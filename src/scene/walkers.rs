//! The `walkers` section: people made of capsules who walk through the fog along a path.
//!
//! A [`Walker`] is plain scene data: where it walks ([`WalkerPath`]: timed points, or waypoints
//! walked at a steady speed), how big it is, how hard its body drags the air along and how
//! fast its feet clear the fog under them, and the colour of its clothes. `crate::people`
//! turns it into a pose at any absolute time (position, heading, gait), `world/` into the
//! fluid brushes of each 60 Hz step, and the renderer into capsules.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Rgb, hex};

/// Most walkers a scene may have (each is six capsules drawn every frame, and two brushes
/// on the fluid every step).
pub const MAX_WALKERS: usize = 32;

/// Most points one walker's path may have.
pub const MAX_PATH_POINTS: usize = 1024;

/// Default walking speed of [`WaypointPath`], world units per second: an adult's easy pace.
pub const DEFAULT_WALK_SPEED_WORLD_PER_S: f32 = 1.3;

/// One person walking through the hall.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Walker {
    /// Where and when it walks: `Timed([(time_s, x, z), …])` or
    /// `Waypoints(points: [(x, z), …], speed: 1.3, start_s: 0)`. Before its path begins the
    /// walker stands at the first point, after it ends at the last. Default: standing at the
    /// centre of the hall.
    pub path: WalkerPath,
    /// Radius of the body (the torso's capsule), world units, 0.05..=2; the legs, arms and head
    /// are sized from it and from `height`. Default: 0.25.
    pub radius: f32,
    /// Height from the floor to the top of the head, world units, 0.2..=10. Default: 1.75.
    pub height: f32,
    /// How fast the walker's body drags the air round it toward its own velocity, per second,
    /// 0..=60: each step closes `1 - exp(-push·dt)` of the gap between the air's velocity and
    /// the walker's at its middle, fading to nothing at 3 radii. The air is never pushed faster
    /// than the walker moves, so the wake cannot outrun it. 0 leaves the air alone.
    /// Default: 3.
    pub push: f32,
    /// How fast the feet clear the fog under the walker, per second, 0..=1000: each step keeps
    /// `exp(-clear·dt)` of the fog at its middle, the clearing fading to nothing at 2.4 radii.
    /// The fog refills at `fluid.refill` and flows back into the gap. 0 clears nothing.
    /// Default: 12.
    pub clear: f32,
    /// Colour of the clothes (sRGB): the torso and arms in it, the legs darker; the head is a
    /// skin tone. Default: #6b4a3a.
    pub color: Rgb,
}

impl Default for Walker {
    fn default() -> Self {
        Walker {
            path: WalkerPath::default(),
            radius: 0.25,
            height: 1.75,
            push: 3.0,
            clear: 12.0,
            color: hex(0x6b4a3a),
        }
    }
}

/// Where and when a walker walks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum WalkerPath {
    /// Points on the floor with the time the walker is there: `(time_s, x, z)`, seconds and
    /// world units, times strictly increasing. Between two points it walks straight at the
    /// speed that takes it there on time; two points at the same place make it stand.
    Timed(Vec<(f32, f32, f32)>),
    /// Points on the floor walked one after the other at a steady speed from `start_s`.
    Waypoints(WaypointPath),
}

impl Default for WalkerPath {
    fn default() -> Self {
        WalkerPath::Timed(vec![(0.0, 0.0, 0.0)])
    }
}

/// Waypoints walked at walking speed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct WaypointPath {
    /// Points on the floor as `(x, z)`, world units, in the order walked; at least one.
    /// Default: the centre of the hall.
    pub points: Vec<(f32, f32)>,
    /// Walking speed, world units per second, 0.05..=20. Default: 1.3.
    pub speed: f32,
    /// When the walker leaves the first point, seconds, 0 or more. Default: 0.
    pub start_s: f32,
}

impl Default for WaypointPath {
    fn default() -> Self {
        WaypointPath {
            points: vec![(0.0, 0.0)],
            speed: DEFAULT_WALK_SPEED_WORLD_PER_S,
            start_s: 0.0,
        }
    }
}
