//! The `hall` section: the floor, the pillars, the altar, and the boxes and hills added
//! round them. Everything here is solid scenery; the fog and the ball react to it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Rgb, hex};

/// The temple: floor, pillars and altar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Hall {
    /// Side of the square floor centred on the origin, world units. Default: 24.
    pub floor_size: f32,
    /// Side of one stone slab, world units (each slab is cut into four by joints). Default: 2.
    pub tile_size: f32,
    /// Dark and light stone colours of the floor (sRGB). Default: #2a2f3d, #4a5164.
    pub floor_colors: [Rgb; 2],
    /// Colour of the joints between stones (sRGB). Default: #191c26.
    pub joint_color: Rgb,
    /// Pillar positions on the floor as (x, z), world units.
    pub pillars: Vec<[f32; 2]>,
    /// Pillar shaft radius, world units. Default: 0.38.
    pub pillar_radius: f32,
    /// Pillar shaft height, world units. Default: 3.2.
    pub pillar_height: f32,
    /// Side of the square base and capital blocks, world units. Default: 1.1.
    pub capital_size: f32,
    /// Height of the base and capital blocks, world units. Default: 0.3.
    pub capital_height: f32,
    /// Shaft, capital and base colours (sRGB). Default: #8c8aa0, #a6a3b8, #6f6d82.
    pub pillar_colors: [Rgb; 3],
    /// The altar in the middle.
    pub altar: Altar,
    /// Boxes standing in or round the hall: steps, terraces, walls, plinths. Those standing on
    /// the floor (bottom at or below `fog.bottom`) and reaching above it are solid to the fog.
    /// Default: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Block>,
    /// Seeded hills round the hall: a valley and ridges beyond the floor. Default: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terrain: Option<Terrain>,
}

impl Default for Hall {
    fn default() -> Self {
        Hall {
            floor_size: 24.0,
            tile_size: 2.0,
            floor_colors: [hex(0x2a2f3d), hex(0x4a5164)],
            joint_color: hex(0x191c26),
            pillars: vec![
                [-3.5, -3.5],
                [3.5, -3.5],
                [-3.5, 3.5],
                [3.5, 3.5],
                [0.0, -5.5],
                [-5.5, 0.0],
                [5.5, 0.0],
            ],
            pillar_radius: 0.38,
            pillar_height: 3.2,
            capital_size: 1.1,
            capital_height: 0.3,
            pillar_colors: [hex(0x8c8aa0), hex(0xa6a3b8), hex(0x6f6d82)],
            altar: Altar::default(),
            blocks: Vec::new(),
            terrain: None,
        }
    }
}

/// A box: a step, a terrace, a wall or a plinth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Block {
    /// Centre of its bottom face as (x, y_bottom, z), world units. Default: (0, 0, 0).
    pub bottom_center: [f32; 3],
    /// Size along x, y and z, world units. Default: (1, 1, 1).
    pub size: [f32; 3],
    /// Colour (sRGB). Default: #6f6d82.
    pub color: Rgb,
}

impl Default for Block {
    fn default() -> Self {
        Block {
            bottom_center: [0.0, 0.0, 0.0],
            size: [1.0, 1.0, 1.0],
            color: hex(0x6f6d82),
        }
    }
}

impl Block {
    /// Height of its top face, world units.
    pub fn top(&self) -> f32 {
        self.bottom_center[1] + self.size[1]
    }
}

/// Hills round the hall, as a heightfield from seeded value noise (see [`crate::terrain`]):
/// flat ground next to the floor, then a valley that rings the hall, then ridges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Terrain {
    /// Seed of the noise; the same seed always gives the same land. Default: 1.
    pub seed: u64,
    /// Side of the square of land centred on the hall, world units (the camera sees 100
    /// units far). Default: 160.
    pub size: f32,
    /// Cells along each side of the mesh, 8..=512. Default: 160.
    pub resolution: u32,
    /// Height of the highest ridges above the hall floor, world units. Default: 14.
    pub height: f32,
    /// Depth of the valley floor below the hall floor, world units. Default: 5.
    pub valley_depth: f32,
    /// Distance from the edge of the hall floor to the middle of the valley, world units.
    /// Default: 14.
    pub valley_distance: f32,
    /// Width of the valley, world units. Default: 14.
    pub valley_width: f32,
    /// Flat ground kept round the hall floor, just below it, world units. Default: 1.
    pub margin: f32,
    /// Wavelength of the largest hills, world units. Default: 36.
    pub feature_size: f32,
    /// Octaves of noise, each half the size of the last, 1..=8. Default: 4.
    pub octaves: u32,
    /// Colours of the valley floor and of the ridge tops (sRGB). Default: #2c3328, #6a6c74.
    pub colors: [Rgb; 2],
}

impl Default for Terrain {
    fn default() -> Self {
        Terrain {
            seed: 1,
            size: 160.0,
            resolution: 160,
            height: 14.0,
            valley_depth: 5.0,
            valley_distance: 14.0,
            valley_width: 14.0,
            margin: 1.0,
            feature_size: 36.0,
            octaves: 4,
            colors: [hex(0x2c3328), hex(0x6a6c74)],
        }
    }
}

/// The altar: a box standing on the floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Altar {
    /// Centre on the floor as (x, z), world units. Default: (0, 0).
    pub center: [f32; 2],
    /// Size along x, world units. Default: 1.6.
    pub width: f32,
    /// Size along y, world units. Default: 0.6.
    pub height: f32,
    /// Size along z, world units. Default: 1.0.
    pub depth: f32,
    /// Colour (sRGB). Default: #5d5a70.
    pub color: Rgb,
}

impl Default for Altar {
    fn default() -> Self {
        Altar {
            center: [0.0, 0.0],
            width: 1.6,
            height: 0.6,
            depth: 1.0,
            color: hex(0x5d5a70),
        }
    }
}
