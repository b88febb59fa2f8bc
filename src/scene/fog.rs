//! The `fog` section: the stack of see-through sheets that draw the ground fog, and how
//! they read the fluid underneath.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Rgb;
use super::medium::FogMedium;

/// The ground fog: sheets from `bottom` to `sheets_top` reading the fluid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Fog {
    /// Side of the fog's square round the centre, world units; the fluid covers it. Default: 22.
    pub area: f32,
    /// Number of horizontal sheets. Default: 48.
    pub sheets: u32,
    /// Height of the fog's floor, world units. Default: 0.02.
    pub bottom: f32,
    /// Height the fog reaches at rest, world units. Default: 1.7.
    pub top: f32,
    /// Height of the highest sheet region, leaving room for lifted fog, world units. Default: 3.4.
    pub sheets_top: f32,
    /// Extra height fully lifted fog reaches, world units. Default: 1.6.
    pub lift_height: f32,
    /// Extinction: how much light a unit of fog takes, 1/world unit. Default: 5.5.
    pub sigma: f32,
    /// Extinction in the `flow` view, where the fog thins to a veil, 1/world unit. Default: 1.2.
    pub veil_sigma: f32,
    /// How far the air can carry the wisps from where they started, world units. Default: 6.
    pub offset_range: f32,
    /// Fog colour (sRGB). Default: (0.62, 0.68, 0.82).
    pub color: Rgb,
    /// Strength of the ball's glow in the fog. Default: 0.4.
    pub glow: f32,
    /// Colour of the ball's glow (sRGB). Default: (1.0, 0.55, 0.25).
    pub glow_color: Rgb,
    /// Drift of the noise with time (x, y, z), world units per second. Default: (0.08, 0.03, 0.05).
    pub wind: [f32; 3],
    /// The flow view's mesh takes one fluid cell in this many each way. Default: 2.
    pub flow_every: u32,
    /// How the fluid's density shapes the fog's column (see [`FogShape`]). Default: `Lift`.
    /// Left out of the serialized scene when `Lift`, so scenes without it keep their hash.
    #[serde(skip_serializing_if = "FogShape::is_lift")]
    pub shape: FogShape,
    /// What the fog does with light (see [`FogMedium`]). Default: `Seed`, the seed example's
    /// look. Left out of the serialized scene when `Seed`, so scenes without it keep their hash.
    #[serde(skip_serializing_if = "FogMedium::is_seed")]
    pub medium: FogMedium,
}

/// How the fluid's density under a point turns into fog above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub enum FogShape {
    /// The column always reaches `top` (plus the lift); the density only sets how thick it is.
    /// Thin fog is a low-contrast veil over the whole height: the temple's look.
    #[default]
    Lift,
    /// The density also sets how tall the column is: density 1 (the rest level) reaches `top`,
    /// density 0.5 half as high (above 1 the column stays at `top` and only thickens). Thin fog
    /// stays near the ground, and where someone cuts through it the floor shows.
    DensityHeight,
}

impl FogShape {
    /// Whether this is the default shape (`Lift`), left out when a scene is written.
    pub fn is_lift(&self) -> bool {
        *self == FogShape::Lift
    }

    /// The shape as the shaders take it (`FogKnobs::fog_color`'s w): 0 `Lift`, 1
    /// `DensityHeight`.
    pub fn shader_code(self) -> f32 {
        match self {
            FogShape::Lift => 0.0,
            FogShape::DensityHeight => 1.0,
        }
    }
}

impl Default for Fog {
    fn default() -> Self {
        Fog {
            area: 22.0,
            sheets: 48,
            bottom: 0.02,
            top: 1.7,
            sheets_top: 3.4,
            lift_height: 1.6,
            sigma: 5.5,
            veil_sigma: 1.2,
            offset_range: 6.0,
            color: [0.62, 0.68, 0.82],
            glow: 0.4,
            glow_color: [1.0, 0.55, 0.25],
            wind: [0.08, 0.03, 0.05],
            flow_every: 2,
            shape: FogShape::Lift,
            medium: FogMedium::Seed,
        }
    }
}

impl Fog {
    /// Height of sheet `index` (0 = lowest), world units: the middle of its slab.
    pub fn sheet_height(&self, index: u32) -> f32 {
        self.sheet_height_at(index, 0.5)
    }

    /// The height of sheet `index` when the sheets stand at `phase` (0..1) of their slabs
    /// instead of the middle: one sample's sheets (`crate::samples`). `phase` 0.5 is
    /// [`Fog::sheet_height`].
    pub fn sheet_height_at(&self, index: u32, phase: f32) -> f32 {
        self.bottom + (self.sheets_top - self.bottom) * (index as f32 + phase) / self.sheets as f32
    }

    /// Spacing between sheets, world units.
    pub fn sheet_spacing(&self) -> f32 {
        (self.sheets_top - self.bottom) / self.sheets as f32
    }

    /// The flattest view ray whose sheet slabs are the whole distance between two crossings,
    /// as the slope `|ray.y|` of a unit ray. A slab is the spacing over the ray's slope, but
    /// never over less than this, so a ray level with a sheet keeps a finite slab. The seed
    /// medium keeps the seed's 0.2 (five spacings at most, today's bytes), which drops fog from
    /// flatter rays. The physical medium goes down to 0.05 (twenty spacings), so a camera low
    /// over the fog sees all of it (see `sheet_slab_world` in shaders/fog.wgsl).
    ///
    /// keep in sync with shaders/fog.wgsl: SEED_LEAST_SLAB_SLOPE, PHYSICAL_LEAST_SLAB_SLOPE
    pub fn least_slab_slope(&self) -> f32 {
        match self.medium {
            FogMedium::Seed => 0.2,
            FogMedium::Physical(_) => 0.05,
        }
    }
}
