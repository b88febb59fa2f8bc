//! The scene: everything a render depends on, as read from a RON file.
//!
//! Every value the temple example hard-codes is a field here with a unit, a default (the
//! example's value) and a one-line doc. The structs are plain data: the simulation and the
//! renderer read them, nothing here knows about the GPU. Each section of a scene file has its
//! own module ([`output`], [`camera`], [`lights`], [`distance_fog`], [`hall`], [`ball`],
//! [`fog`], [`fires`], [`lamps`], [`weather`], [`walkers`], [`sky`] (`clouds` and `water`); the `fluid` section is [`crate::sim::FluidParams`]), re-exported here so
//! the rest of fogbank names them `scene::Hall`, `scene::Fog` and so on. Reading a file and
//! its `file:line:col` diagnostics live in [`diagnostics`], `--set` in [`overrides`], range
//! checks in [`validate`], and [`load`](mod@load) ties them together. [`canonical`] hashes a
//! scene, [`print`](mod@print) writes one back as RON and [`schema`] describes the format for
//! editors.
//!
//! Conventions: world Y is up, the floor is at y = 0, lengths are world units (the hall is 24
//! across), times are seconds, angles say their unit in the name, and colours are display
//! (sRGB) components in 0..=1, converted to linear light by the renderer.

pub mod ball;
pub mod camera;
pub mod canonical;
pub mod diagnostics;
pub mod distance_fog;
pub mod fires;
pub mod fog;
pub mod hall;
pub mod lamps;
pub mod lights;
pub mod load;
pub mod medium;
pub mod output;
pub mod overrides;
pub mod print;
#[cfg(test)]
mod scene_files;
pub mod schema;
pub mod sky;
pub mod validate;
pub mod walkers;
pub mod weather;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::sim::FluidParams;
pub use ball::{AutoDrive, Ball, Input, Jump, Move, Steer, Stop};
pub use camera::{Camera, CameraKey, FixedCamera, FollowCamera, FollowSubject, KeyframedCamera};
pub use diagnostics::{SceneError, SourceText};
pub use distance_fog::{DistanceFog, FogMode};
pub use fires::{Fire, FireKind, TorchMount};
pub use fog::{Fog, FogShape};
pub use hall::{Altar, Block, Hall, Terrain};
pub use lamps::Lamp;
pub use lights::{AmbientLight, BallLight, DirectionalLight, Lights};
pub use load::{LoadedScene, SceneErrors, load};
pub use medium::{FogMedium, Phase, PhysicalMedium};
pub use output::{FogResolution, Output, StampPlace};
pub use print::to_ron;
pub use schema::json_schema;
pub use sky::{Clouds, Water};
pub use walkers::{Walker, WalkerPath, WaypointPath};
pub use weather::{SkyKind, Weather};

/// The default scene, embedded in the binary: the temple example spelt out in full.
pub const TEMPLE_RON: &str = include_str!("../../scenes/temple.ron");

/// A colour as display (sRGB) red, green, blue in 0..=1.
pub type Rgb = [f32; 3];

/// A complete scene: the hall, its lights and camera, the ball and its script, and the fog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Scene {
    /// Name used for the default output folder (`out/<name>/`). Default: "temple".
    pub name: String,
    /// Picture size, frame rate and clip length.
    pub output: Output,
    /// How the camera moves.
    pub camera: Camera,
    /// Ambient, directional and the ball's point light.
    pub lights: Lights,
    /// The engine's linear distance fog that darkens the far end (not the ground fog).
    pub distance_fog: DistanceFog,
    /// Floor, pillars and altar.
    pub hall: Hall,
    /// The glowing ball and its script.
    pub ball: Ball,
    /// The fog sheets and how they read the fluid.
    pub fog: Fog,
    /// The 2D fluid under the fog.
    pub fluid: FluidParams,
    /// Torches and braziers: flames that burn and light the hall and the fog (at most
    /// [`fires::MAX_FIRES`]). Default: none. Left out of the serialized scene when empty, so a
    /// scene without fires keeps its scene hash.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fires: Vec<Fire>,
    /// Fixed point and spot lamps that light the hall and the fog and cast shadows (at most
    /// [`lamps::MAX_LAMPS`]). Default: none. Left out of the serialized scene when empty, so a
    /// scene without lamps keeps its scene hash.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lamps: Vec<Lamp>,
    /// The sky, its changes, the one wind, rain and lightning (see [`weather`]). Default: none
    /// (no weather). Left out of the serialized scene when absent, so a scene without weather
    /// keeps its scene hash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weather: Option<Weather>,
    /// People walking through the fog (see [`walkers`]; at most [`walkers::MAX_WALKERS`]).
    /// Default: none. Left out of the serialized scene when empty, so a scene without walkers
    /// keeps its scene hash.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub walkers: Vec<Walker>,
    /// Clear colour behind everything (sRGB). Default: #0b0f1a.
    pub background: Rgb,
    /// A layer of clouds in the sky (see [`sky`]). Default: none. Left out of the serialized
    /// scene when absent, so a scene without clouds keeps its scene hash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clouds: Option<Clouds>,
    /// A water column the camera may sink into (see [`sky`]). Default: none. Left out of the
    /// serialized scene when absent, so a scene without water keeps its scene hash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub water: Option<Water>,
}

impl Default for Scene {
    fn default() -> Self {
        Scene {
            name: "temple".into(),
            output: Output::default(),
            camera: Camera::default(),
            lights: Lights::default(),
            distance_fog: DistanceFog::default(),
            hall: Hall::default(),
            ball: Ball::default(),
            fog: Fog::default(),
            fluid: FluidParams::default(),
            fires: Vec::new(),
            lamps: Vec::new(),
            weather: None,
            walkers: Vec::new(),
            background: hex(0x0b0f1a),
            clouds: None,
            water: None,
        }
    }
}

/// A colour from a 24-bit hex value such as 0x0b0f1a, as sRGB components in 0..=1.
pub const fn hex(value: u32) -> Rgb {
    [
        ((value >> 16) & 0xff) as f32 / 255.0,
        ((value >> 8) & 0xff) as f32 / 255.0,
        (value & 0xff) as f32 / 255.0,
    ]
}
