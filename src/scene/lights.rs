//! The `lights` section: ambient light, the moonlight-like directional light and the point
//! light the ball carries, with the small formulas (direction, flicker) the renderer shares.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Rgb, hex};

/// The lights of the hall.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Lights {
    /// Light from everywhere.
    pub ambient: AmbientLight,
    /// A moonlight-like directional light.
    pub directional: DirectionalLight,
    /// The point light the ball carries.
    pub ball: BallLight,
}

/// Light from everywhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AmbientLight {
    /// Colour (sRGB). Default: #6a7aa8.
    pub color: Rgb,
    /// Intensity, multiplies the colour. Default: 0.35.
    pub intensity: f32,
    /// Colour of the light from below (sRGB), times the same intensity; `color` is then the
    /// light from above, and a surface gets a blend by which way it faces. Default: none, the
    /// same light from every direction. Left out of the serialized scene when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ground: Option<Rgb>,
}

impl Default for AmbientLight {
    fn default() -> Self {
        AmbientLight {
            color: hex(0x6a7aa8),
            intensity: 0.35,
            ground: None,
        }
    }
}

/// A directional light, aimed by two rotations of the -z axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DirectionalLight {
    /// Colour (sRGB). Default: #b8c8ff.
    pub color: Rgb,
    /// Intensity. Default: 0.55.
    pub intensity: f32,
    /// Rotation about x in radians (negative points down). Default: -1.0.
    pub pitch_rad: f32,
    /// Rotation about y in radians. Default: 0.6.
    pub yaw_rad: f32,
    /// Whether the hall casts this light's shadows: soft shadows of the pillars, capitals,
    /// altar, blocks, terrain, ball and walkers on every surface, and with the physical fog
    /// medium the same shadows through the fog as shafts. Default: false (no shadow map). Left
    /// out of the serialized scene when false.
    #[serde(skip_serializing_if = "is_false")]
    pub shadows: bool,
}

/// Whether a flag is off (left out of the serialized scene).
fn is_false(flag: &bool) -> bool {
    !*flag
}

impl Default for DirectionalLight {
    fn default() -> Self {
        DirectionalLight {
            color: hex(0xb8c8ff),
            intensity: 0.55,
            pitch_rad: -1.0,
            yaw_rad: 0.6,
            shadows: false,
        }
    }
}

impl DirectionalLight {
    /// Unit vector the light travels along (world), from rotating -z by pitch then yaw.
    pub fn direction_world(&self) -> [f32; 3] {
        let (sp, cp) = self.pitch_rad.sin_cos();
        let (sy, cy) = self.yaw_rad.sin_cos();
        // -z rotated about x by pitch: (0, sin p, -cos p); then about y by yaw.
        let (x, y, z) = (0.0, sp, -cp);
        [x * cy + z * sy, y, -x * sy + z * cy]
    }
}

/// The point light that follows the ball.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BallLight {
    /// Colour (sRGB). Default: #ffa860.
    pub color: Rgb,
    /// Mean intensity. Default: 2.0.
    pub intensity: f32,
    /// Reach in world units; the light fades to zero there. Default: 6.
    pub range: f32,
    /// Height of the light above the ball's centre, world units. Default: 0.4.
    pub height_above_ball: f32,
    /// Flicker amplitude added to the intensity. Default: 0.15.
    pub flicker: f32,
    /// Flicker angular rate in radians per second (sin(rate·t)). Default: 7.
    pub flicker_rate: f32,
}

impl Default for BallLight {
    fn default() -> Self {
        BallLight {
            color: hex(0xffa860),
            intensity: 2.0,
            range: 6.0,
            height_above_ball: 0.4,
            flicker: 0.15,
            flicker_rate: 7.0,
        }
    }
}

impl BallLight {
    /// Intensity at time `time_s`: the mean plus the flicker.
    pub fn intensity_at(&self, time_s: f64) -> f32 {
        self.intensity + (time_s * f64::from(self.flicker_rate)).sin() as f32 * self.flicker
    }
}
