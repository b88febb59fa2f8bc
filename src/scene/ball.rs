//! The `ball` section: the glowing ball that stirs the fog, and the timed script of inputs
//! that drives it as a player would.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Rgb, hex};

/// The glowing ball that stirs the fog, and the script that drives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Ball {
    /// Radius, world units. Default: 0.5.
    pub radius: f32,
    /// Start position on the floor as (x, z), world units. Default: (2, 2).
    pub start: [f32; 2],
    /// Acceleration under full steering, world units/s². Default: 22.
    pub accel: f32,
    /// Gravity, world units/s². Default: 22.
    pub gravity: f32,
    /// Take-off speed of a jump, world units/s. Default: 8.5.
    pub jump: f32,
    /// How far from the centre it may roll along x and z, world units. Default: 7.5.
    pub limit: f32,
    /// Horizontal drag while steered, 1/s. Default: 3.5.
    pub drag: f32,
    /// Horizontal drag when let go, 1/s: it stops almost dead. Default: 9.
    pub stop_drag: f32,
    /// Extra radius added round pillars when the ball bumps into them, world units. Default: 0.07.
    pub pillar_clearance: f32,
    /// Extra radius added round the altar's circle (half its width), world units. Default: 0.1.
    pub altar_clearance: f32,
    /// Fraction of the inward speed reflected when bumping (1 stops, 2 bounces). Default: 1.6.
    pub bounce: f32,
    /// Surface tint (sRGB). Default: #ffd9a0.
    pub color: Rgb,
    /// Emitted colour (sRGB). Default: #ff9a3c.
    pub emissive: Rgb,
    /// The timed inputs that drive the ball, as a player would give them.
    pub script: Vec<Input>,
}

impl Default for Ball {
    fn default() -> Self {
        Ball {
            radius: 0.5,
            start: [2.0, 2.0],
            accel: 22.0,
            gravity: 22.0,
            jump: 8.5,
            limit: 7.5,
            drag: 3.5,
            stop_drag: 9.0,
            pillar_clearance: 0.07,
            altar_clearance: 0.1,
            bounce: 1.6,
            color: hex(0xffd9a0),
            emissive: hex(0xff9a3c),
            script: vec![Input::Auto(AutoDrive::default())],
        }
    }
}

/// One timed input of the ball's script.
///
/// Steering inputs (`Steer`, `Move`, `Stop`, `Auto`) hold from `at` for `duration` seconds (or
/// until a later steering input starts, when `duration` is not given); with no steering input
/// active the ball is let go. `Jump` fires once at `at`, if the ball is on the floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum Input {
    /// Steer toward a point on the floor.
    Steer(Steer),
    /// Push along a fixed direction.
    Move(Move),
    /// Jump once.
    Jump(Jump),
    /// Let go: the ball stops almost dead, the air does not.
    Stop(Stop),
    /// Drive itself: the example's figure of eight with jumps drawn from a seeded generator.
    Auto(AutoDrive),
}

/// Steer toward a point on the floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Steer {
    /// Start time in seconds. Default: 0.
    pub at: f64,
    /// How long it holds, seconds; none = until the next steering input. Default: none.
    pub duration: Option<f64>,
    /// The point steered toward, (x, z) world units. Default: (0, 0).
    pub toward: [f32; 2],
}

impl Default for Steer {
    fn default() -> Self {
        Steer {
            at: 0.0,
            duration: None,
            toward: [0.0, 0.0],
        }
    }
}

/// Push along a fixed direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Move {
    /// Start time in seconds. Default: 0.
    pub at: f64,
    /// How long it holds, seconds; none = until the next steering input. Default: none.
    pub duration: Option<f64>,
    /// Direction on the floor as (x, z); longer than 1 is shortened to 1. Default: (0, -1).
    pub direction: [f32; 2],
}

impl Default for Move {
    fn default() -> Self {
        Move {
            at: 0.0,
            duration: None,
            direction: [0.0, -1.0],
        }
    }
}

/// Jump once at a time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Jump {
    /// Time of the jump in seconds. Default: 0.
    pub at: f64,
}

impl Default for Jump {
    fn default() -> Self {
        Jump { at: 0.0 }
    }
}

/// Let go of the ball.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Stop {
    /// Start time in seconds. Default: 0.
    pub at: f64,
    /// How long it holds, seconds; none = until the next steering input. Default: none.
    pub duration: Option<f64>,
}

impl Default for Stop {
    fn default() -> Self {
        Stop {
            at: 0.0,
            duration: None,
        }
    }
}

/// The example's self-driving mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AutoDrive {
    /// Start time in seconds. Default: 0.
    pub at: f64,
    /// How long it holds, seconds; none = until the next steering input. Default: none.
    pub duration: Option<f64>,
    /// Phase speed of the figure of eight, radians of the path per second. Default: 0.55.
    pub speed: f32,
    /// Half-width of the figure along x, world units. Default: 5.2.
    pub amplitude_x: f32,
    /// Half-depth of the figure along z, world units. Default: 2.6.
    pub amplitude_z: f32,
    /// Centre of the figure along z, world units. Default: 1.2.
    pub center_z: f32,
    /// Seconds from `at` to the first jump. Default: 1.2.
    pub first_jump: f32,
    /// Range of seconds between later jumps, drawn uniformly. Default: (3, 4.5).
    pub jump_every: [f32; 2],
    /// Seed of the generator that draws the jump intervals. Default: 1.
    pub seed: u64,
}

impl Default for AutoDrive {
    fn default() -> Self {
        AutoDrive {
            at: 0.0,
            duration: None,
            speed: 0.55,
            amplitude_x: 5.2,
            amplitude_z: 2.6,
            center_z: 1.2,
            first_jump: 1.2,
            jump_every: [3.0, 4.5],
            seed: 1,
        }
    }
}
