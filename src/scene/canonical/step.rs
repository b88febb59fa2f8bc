//! The step hash: the part of a scene the world's 60 Hz step reads, and nothing else.
//!
//! A snapshot of the world (`--cache`, `fogbank watch`'s kept state) is valid for every scene
//! whose step hash is the one it was made with. [`LOOK_FIELDS`] lists, by their dotted paths
//! ([`super::field_path`]), the fields no step reads: they choose which states are shown and how
//! they look. Everything else is in the hash, so a field added to fogbank later counts as read
//! by the step until it is listed here. `world/step_fields_tests.rs` walks every field of the
//! scene format and checks which side of the line it falls on, and that a snapshot restored
//! into a scene with any look field changed steps on exactly as that scene's own world does.

use super::{Scene, hash};

/// The fields of a scene that no world step reads (see the module documentation).
///
/// What the step does read, for the record: the fog's extent (`area`, `bottom`, `top`), the
/// whole `fluid` section but `speed_scale` (it only scales the shader's map), the hall's
/// pillars, altar footprint and blocks (walls to the air and the ball), the ball but its
/// colours, the follow camera's motion (it keeps state), the fires' places, heights and
/// embers (they warm the fog), the walkers' paths, radii and strengths, and the weather but
/// the colours and the light it gives the frame.
pub const LOOK_FIELDS: &[&str] = &[
    "name",
    "output",
    "lights",
    "distance_fog",
    "lamps",
    "background",
    "clouds",
    "water",
    // A fixed or keyframed camera keeps no state: its pose is a function of the time.
    "camera.Fixed",
    "camera.Keyframed",
    "camera.Follow.look_height",
    "camera.Follow.fov_y_deg",
    "ball.color",
    "ball.emissive",
    "fog.sheets",
    "fog.sheets_top",
    "fog.lift_height",
    "fog.sigma",
    "fog.veil_sigma",
    "fog.offset_range",
    "fog.color",
    "fog.glow",
    "fog.glow_color",
    "fog.wind",
    "fog.flow_every",
    "fog.shape",
    "fog.medium",
    "fluid.speed_scale",
    "fires.kind",
    "fires.mount",
    "fires.color",
    "fires.light_intensity",
    "fires.light_range",
    "fires.flicker",
    "fires.glow",
    "fires.phase_rad",
    "hall.floor_size",
    "hall.tile_size",
    "hall.floor_colors",
    "hall.joint_color",
    "hall.pillar_height",
    "hall.capital_size",
    "hall.capital_height",
    "hall.pillar_colors",
    "hall.altar.height",
    "hall.altar.color",
    "hall.blocks.color",
    "hall.terrain",
    "walkers.height",
    "walkers.color",
    "weather.gloom_far_share",
    "weather.storm_fog_color",
    "weather.storm_ambient_color",
    "weather.storm_ambient_intensity",
    "weather.lightning.flash_ambient",
    "weather.wind.noise_share",
];

impl Scene {
    /// The hash of exactly what the world's step reads: [`Scene::content_hash`]'s encoding
    /// without the [`LOOK_FIELDS`]. A snapshot carries it, so a cache made before a change of
    /// colour, glow, light, camera framing or output size still serves the scene after it.
    pub fn step_hash(&self) -> u64 {
        hash(self, LOOK_FIELDS).expect("scene types serialize without errors")
    }
}
