//! The `distance_fog` section: the engine's fog that fades the far end (not the ground fog).
//!
//! Its height-fog fields were added after the first scenes were written; they are left out of
//! the serialized scene while they hold their defaults, so older scenes keep their hash.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Rgb, hex};

/// The engine's distance fog that fades the far end, over everything drawn (floor, pillars,
/// blocks, terrain, ball, flames and the fog sheets alike).
///
/// `mode` picks the curve: `linear` (nothing nearer than `near`, all of it at `far`),
/// `exponential` (1 − exp(−density·d)) or `exponential_squared` (1 − exp(−(density·d)²)).
/// With `height_falloff` above 0 the air thins with altitude, density · exp(−falloff·(y − base)),
/// integrated along the view ray: the distance `d` becomes the optical distance, so mist pools
/// in low ground in every mode. The default is the example's linear fog, the same at every
/// height.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DistanceFog {
    /// Colour the far end fades to (sRGB). Default: #0b0f1a.
    pub color: Rgb,
    /// Distance where it starts, world units (`linear` mode). Default: 9.
    pub near: f32,
    /// Distance where it is complete, world units (`linear` mode). Default: 24.
    pub far: f32,
    /// The curve: `linear`, `exponential` or `exponential_squared`. Default: linear.
    #[serde(skip_serializing_if = "is_linear")]
    pub mode: FogMode,
    /// Extinction at `base_height`, 1/world unit (exponential modes). Default: 0.05.
    #[serde(skip_serializing_if = "is_default_density")]
    pub density: f32,
    /// How fast the fog thins with height, 1/world unit; 0 is the same at every height.
    /// Default: 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub height_falloff: f32,
    /// Height where the density is `density` (below it the fog is denser), world units.
    /// Default: 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub base_height: f32,
    /// Clear air along the view ray before the haze begins, world units (exponential modes;
    /// `linear` has `near`). Default: 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub start: f32,
    /// The most of the fog colour that may cover anything, 0..=1. Default: 1.
    #[serde(skip_serializing_if = "is_one")]
    pub max_opacity: f32,
}

// The fields height fog added are left out of the serialized scene while they hold their
// defaults, so a scene that does not use them keeps its scene hash.
fn is_linear(mode: &FogMode) -> bool {
    *mode == FogMode::Linear
}

fn is_default_density(density: &f32) -> bool {
    *density == DistanceFog::default().density
}

fn is_zero(value: &f32) -> bool {
    *value == 0.0
}

fn is_one(value: &f32) -> bool {
    *value == 1.0
}

impl Default for DistanceFog {
    fn default() -> Self {
        DistanceFog {
            color: hex(0x0b0f1a),
            near: 9.0,
            far: 24.0,
            mode: FogMode::Linear,
            density: 0.05,
            height_falloff: 0.0,
            base_height: 0.0,
            start: 0.0,
            max_opacity: 1.0,
        }
    }
}

/// How the distance fog grows with distance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FogMode {
    /// Nothing nearer than `near`, a straight ramp to all of it at `far`.
    #[default]
    Linear,
    /// 1 − exp(−density · distance): a uniform haze.
    Exponential,
    /// 1 − exp(−(density · distance)²): clear near the eye, then closing in fast.
    ExponentialSquared,
}
