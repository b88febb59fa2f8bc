//! The `camera` section: the example's follow camera, a fixed one, and keyframed paths.
//!
//! Plain data: `world/` turns it into a pose for each step.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How the camera moves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub enum Camera {
    /// Follows the ball from above and behind with a lag, as the example does.
    Follow(FollowCamera),
    /// Stays where it is put.
    Fixed(FixedCamera),
    /// Moves through keyframes, linearly interpolated.
    Keyframed(KeyframedCamera),
}

impl Default for Camera {
    fn default() -> Self {
        Camera::Follow(FollowCamera::default())
    }
}

/// The example's camera: it eases toward a point behind the ball and looks at the ball.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FollowCamera {
    /// Where the camera starts (world). Default: (0, 7.5, 8).
    pub start: [f32; 3],
    /// How fast it catches up, 1/s: each step it covers 1 - exp(-lag_rate·dt) of the gap. Default: 2.5.
    pub lag_rate: f32,
    /// Fraction of the ball's offset from the centre that the camera follows. Default: 0.6.
    pub track: f32,
    /// How far behind (+z) the followed point the camera sits, world units. Default: 9.
    pub back: f32,
    /// Height of the point looked at, world units. Default: 0.4.
    pub look_height: f32,
    /// Vertical field of view in degrees. Default: 50.
    pub fov_y_deg: f32,
    /// What it follows: `Ball`, or `Walker(i)`, the scene's `walkers[i]` (an index into the
    /// list, 0 for the first). Default: Ball (left out of the serialized scene then, so a
    /// scene that does not name it keeps its scene hash).
    #[serde(skip_serializing_if = "FollowSubject::is_ball")]
    pub subject: FollowSubject,
}

/// What the follow camera follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum FollowSubject {
    /// The glowing ball.
    #[default]
    Ball,
    /// The walker at this index of the scene's `walkers` list (0 for the first).
    Walker(usize),
}

impl FollowSubject {
    /// Whether this is the default, the ball.
    pub fn is_ball(&self) -> bool {
        *self == FollowSubject::Ball
    }
}

impl Default for FollowCamera {
    fn default() -> Self {
        FollowCamera {
            start: [0.0, 7.5, 8.0],
            lag_rate: 2.5,
            track: 0.6,
            back: 9.0,
            look_height: 0.4,
            fov_y_deg: 50.0,
            subject: FollowSubject::Ball,
        }
    }
}

/// A camera that does not move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FixedCamera {
    /// Eye position (world). Default: (0, 7.5, 11).
    pub position: [f32; 3],
    /// Point looked at (world). Default: (0, 0.4, 0).
    pub target: [f32; 3],
    /// Vertical field of view in degrees. Default: 50.
    pub fov_y_deg: f32,
}

impl Default for FixedCamera {
    fn default() -> Self {
        FixedCamera {
            position: [0.0, 7.5, 11.0],
            target: [0.0, 0.4, 0.0],
            fov_y_deg: 50.0,
        }
    }
}

/// A camera path through keyframes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct KeyframedCamera {
    /// Keys in increasing time; before the first and after the last the camera holds still.
    pub keys: Vec<CameraKey>,
}

impl Default for KeyframedCamera {
    fn default() -> Self {
        let fixed = FixedCamera::default();
        KeyframedCamera {
            keys: vec![CameraKey {
                time_s: 0.0,
                position: fixed.position,
                target: fixed.target,
                fov_y_deg: fixed.fov_y_deg,
            }],
        }
    }
}

/// One camera keyframe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CameraKey {
    /// Time of the key in seconds. Default: 0.
    pub time_s: f32,
    /// Eye position (world). Default: (0, 7.5, 11).
    pub position: [f32; 3],
    /// Point looked at (world). Default: (0, 0.4, 0).
    pub target: [f32; 3],
    /// Vertical field of view in degrees. Default: 50.
    pub fov_y_deg: f32,
}

impl Default for CameraKey {
    fn default() -> Self {
        let fixed = FixedCamera::default();
        CameraKey {
            time_s: 0.0,
            position: fixed.position,
            target: fixed.target,
            fov_y_deg: fixed.fov_y_deg,
        }
    }
}
