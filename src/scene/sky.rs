//! The `clouds` and `water` sections: what the sky shows above the hall, and the water column
//! the camera may sink into.
//!
//! Both are optional and absent by default; a scene without them renders byte for byte as it
//! did before they existed. Neither is read by the world's step: they only change the picture
//! (`scene/canonical/step.rs` lists them as look fields). The renderer turns them into
//! uniforms in `gpu/sky.rs`; shaders/sky.wgsl draws them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Rgb, hex};

/// A layer of clouds in the sky, drawn where a view ray meets a level plane at `altitude`.
///
/// The clouds drift by the weather's accumulated wind drift (the one wind), stand still in a
/// scene without weather, and close over with the weather's gloom: the coverage rises toward
/// full and the colour turns toward `storm_color`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Clouds {
    /// Share of the sky the clouds cover on a clear day, 0..=1. Default: 0.5.
    pub coverage: f32,
    /// Colour of the clouds' lit tops (sRGB). Default: #8e97a8.
    pub color: Rgb,
    /// Colour the clouds turn to at full gloom (sRGB). Default: #2c3039.
    pub storm_color: Rgb,
    /// Height of the cloud layer above the floor, world units. Default: 60.
    pub altitude: f32,
    /// Size of one cloud (one cell of the noise's first octave), world units. Default: 40.
    pub scale: f32,
    /// Width of a cloud's soft edge, as a share of the noise's range, 0.01..=1. Default: 0.2.
    pub softness: f32,
}

impl Default for Clouds {
    fn default() -> Self {
        Clouds {
            coverage: 0.5,
            color: hex(0x8e97a8),
            storm_color: hex(0x2c3039),
            altitude: 60.0,
            scale: 40.0,
            softness: 0.2,
        }
    }
}

/// A water column: below `surface_height` the camera sees through the water's own fog, which
/// converges to `color`, and the sky is replaced by the water's colour. The camera crosses from
/// air to water smoothly over `transition_depth`, centred on the surface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Water {
    /// Height of the water's surface, world units (the floor is at 0). Default: 1.
    pub surface_height: f32,
    /// Colour light converges to under water (sRGB). Default: #0f3b4a.
    pub color: Rgb,
    /// Extinction of the water's fog, 1/world unit (0 is clear water). Default: 0.12.
    pub density: f32,
    /// Depth over which the camera crosses from air to water, centred on the surface, world
    /// units (greater than 0). Default: 0.5.
    pub transition_depth: f32,
}

impl Default for Water {
    fn default() -> Self {
        Water {
            surface_height: 1.0,
            color: hex(0x0f3b4a),
            density: 0.12,
            transition_depth: 0.5,
        }
    }
}
