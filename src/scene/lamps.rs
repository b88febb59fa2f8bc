//! The `lamps` section: fixed lamps that light the hall and the fog, point lamps shining every
//! way or spot lamps in a cone, each optionally casting shadows.
//!
//! A [`Lamp`] is plain scene data. The renderer turns the lamps into one uniform array
//! (`gpu/lamp_lights.rs`), draws one shadow map per shadowing spot lamp and six (a cube) per
//! shadowing point lamp in the `shadow` pass (`gpu/passes/shadow.rs`), and lights the scene's
//! surfaces and every fog compositor's fog with them (shaders/lamps.wgsl). Nothing about a lamp
//! moves: a lamp is the same in every frame.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Hall, Rgb, hex};

/// Most lamps a scene may have: the size of the renderer's lamp array.
pub const MAX_LAMPS: usize = 4;

/// Widest spot cone, as the half-angle from the lamp's direction to the cone's edge, degrees.
/// A shadow map is a perspective picture, which cannot open to 180°.
pub const MAX_CONE_DEG: f32 = 80.0;

/// Narrowest spot cone (half-angle), degrees.
pub const MIN_CONE_DEG: f32 = 1.0;

/// The part of a spot's cone, measured from the edge inward as a fraction of its half-angle,
/// over which its light fades to nothing.
pub const CONE_SOFT_FRACTION: f32 = 0.2;

/// One lamp.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Lamp {
    /// Where the light is (world units; y up, the floor at 0). Default: (0, 3, 0).
    pub position: [f32; 3],
    /// Colour of the light (sRGB, each 0..=1). Default: #ffd9a8.
    pub color: Rgb,
    /// Intensity, multiplies the colour (as the ball's light's does). Default: 3. Range:
    /// 0..=100.
    pub intensity: f32,
    /// Reach in world units: the light fades as the square of 1 − distance / range and is
    /// zero from there on. Default: 10. Range: 0.01..=1000.
    pub range: f32,
    /// A spot lamp's cone as its half-angle, degrees: the angle from `direction` to the cone's
    /// edge (the full opening is twice this). The light fades to nothing over the outer fifth
    /// of the angle. Left out: a point lamp, shining every way. Default: none (a point lamp).
    /// Range: 1..=80.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cone_deg: Option<f32>,
    /// Where a spot lamp points (world, any length but zero; normalised). Point lamps ignore it.
    /// Default: (0, -1, 0), straight down.
    pub direction: [f32; 3],
    /// Whether the lamp casts shadows: a shadow map per spot lamp, six (a cube) per point lamp,
    /// drawn each frame from the hall's pillars, altar, blocks, terrain, fire stands and the
    /// ball. Default: true.
    pub shadows: bool,
    /// How strongly the fog scatters this lamp's light toward the eye, relative to how it lights
    /// a surface facing it: 0 leaves the fog unlit by the lamp. Default: 0.6. Range: 0..=100.
    pub fog_glow: f32,
}

impl Default for Lamp {
    fn default() -> Self {
        Lamp {
            position: [0.0, 3.0, 0.0],
            color: hex(0xffd9a8),
            intensity: 3.0,
            range: 10.0,
            cone_deg: None,
            direction: [0.0, -1.0, 0.0],
            shadows: true,
            fog_glow: 0.6,
        }
    }
}

impl Lamp {
    /// The unit vector the lamp points along (`direction` normalised), or straight down when
    /// `direction` has no length.
    pub fn direction_unit(&self) -> [f32; 3] {
        let [x, y, z] = self.direction;
        let length = (x * x + y * y + z * z).sqrt();
        if !(length.is_finite() && length > 0.0) {
            return [0.0, -1.0, 0.0];
        }
        [x / length, y / length, z / length]
    }

    /// How many shadow-map faces the lamp needs: none without shadows, one for a spot, six for
    /// a point lamp.
    pub fn shadow_faces(&self) -> usize {
        match (self.shadows, self.cone_deg) {
            (false, _) => 0,
            (true, Some(_)) => 1,
            (true, None) => 6,
        }
    }
}

/// The pillar (its index) whose shaft, capital or base holds `position`, if any: a lamp there
/// lights nothing (its shadow map sees only the inside of the pillar).
pub fn pillar_holding(hall: &Hall, position: [f32; 3]) -> Option<usize> {
    let [x, y, z] = position;
    let top = hall.pillar_height + hall.capital_height;
    if !(0.0..=top).contains(&y) {
        return None;
    }
    hall.pillars.iter().position(|&[px, pz]| {
        // The capital and base are square blocks as wide as `capital_size`; the shaft is
        // narrower. The widest of the two bounds the pillar.
        let in_shaft = (x - px).hypot(z - pz) < hall.pillar_radius;
        let half = hall.capital_size * 0.5;
        let in_block = (x - px).abs() < half
            && (z - pz).abs() < half
            && (y < hall.capital_height || y > hall.pillar_height);
        in_shaft || in_block
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_normalise_and_fall_back_to_down() {
        let lamp = Lamp {
            direction: [0.0, 0.0, 2.0],
            ..Lamp::default()
        };
        assert_eq!(lamp.direction_unit(), [0.0, 0.0, 1.0]);
        let zero = Lamp {
            direction: [0.0; 3],
            ..Lamp::default()
        };
        assert_eq!(zero.direction_unit(), [0.0, -1.0, 0.0]);
    }

    #[test]
    fn faces_per_lamp() {
        let point = Lamp::default();
        assert_eq!(point.shadow_faces(), 6);
        let spot = Lamp {
            cone_deg: Some(30.0),
            ..Lamp::default()
        };
        assert_eq!(spot.shadow_faces(), 1);
        let unshadowed = Lamp {
            shadows: false,
            ..Lamp::default()
        };
        assert_eq!(unshadowed.shadow_faces(), 0);
    }

    #[test]
    fn a_point_in_a_pillar_is_found() {
        let hall = Hall::default();
        let [px, pz] = hall.pillars[2];
        assert_eq!(pillar_holding(&hall, [px, 1.5, pz]), Some(2));
        assert_eq!(pillar_holding(&hall, [px + 2.0, 1.5, pz]), None);
        // Above the capital: free air.
        let above = hall.pillar_height + hall.capital_height + 0.1;
        assert_eq!(pillar_holding(&hall, [px, above, pz]), None);
    }
}
