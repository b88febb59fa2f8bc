//! The GPU side: a headless wgpu renderer that turns one frame's [`FrameInputs`] into a
//! finished 8-bit sRGB [`Frame`].
//!
//! It knows nothing of scene files or the simulation beyond the [`Scene`] structs it builds
//! its static geometry from (ARCHITECTURE.md, "Data flow"). Each pass has one name shared by its
//! WGSL file, its Rust module, its field in [`Renderer`] and its wgpu labels:
//!
//! The passes live in `passes/`, one module each (`passes/NAME.rs`), and share the
//! descriptor setup in `passes/builder.rs`:
//!
//! - `fire_flicker` (shaders/fire_flicker.wgsl): scenes with fires; each fire's flicker, light
//!   and range in this frame, worked out once for every pass that lights from the fires.
//! - `fog_lattice` (shaders/fog_lattice.wgsl): on GPUs; every point (or cell's corners) of the
//!   fog's noise a sample can reach, hashed once a frame for every pass that reads the fog.
//! - `fog_shadow` (shaders/fog_shadow.wgsl): a physical fog that shadows itself; the optical
//!   depth from each cell of a grid over the fog to the moon and to the ball's light.
//! - `shadow` (shaders/shadow.wgsl): scenes with shadowing lamps only; each lamp's shadow
//!   maps (a spot's one face, a point lamp's six), drawn from the hall, the ball and any extra
//!   casters before the scene.
//! - `scene` (shaders/scene.wgsl): floor, pillars, altar, ball, lights, distance fog, into a
//!   linear half-float target and a depth target, then the sky behind them (sky.wgsl's
//!   `fs_sky`, scenes with clouds or water). With a per-pixel fog compositor it is drawn
//!   in compute (`passes/scene_compute.rs`, shaders/scene_compute.wgsl).
//! - `reflection` (shaders/reflection.wgsl): scenes with weather, wet frames; the hall
//!   mirrored in the wet floor.
//! - `fog` (shaders/fog.wgsl): the fog sheets, back to front, blended over it.
//! - `fog_compute` (shaders/fog_compute.wgsl): the same sheets crossed per pixel, front to
//!   back, in a compute shader, recorded instead of `fog` when [`RenderConfig::compositor`]
//!   says so (the fast path where fragment work is slow).
//! - `raymarch` (shaders/raymarch.wgsl): the reference, recorded instead of `fog`; the
//!   continuous fog marched per pixel.
//! - `fog_half` (shaders/fog_half.wgsl): with `output.fog_resolution: Half`, recorded by the
//!   `fog` or `fog_compute` pass in its own slot; the fog at half size, brought up along the
//!   scene's depth.
//! - `flame` (shaders/flame.wgsl): one procedural flame per torch and brazier, added over the
//!   fog.
//! - `fog_layer` (shaders/fog.wgsl): with `--layers`, the fog sheets again, alone, over
//!   transparent black, for compositing (with the compute compositor the `fog_compute` pass
//!   writes this layer itself and no second pass runs).
//! - `bolt` (shaders/bolt.wgsl): scenes with weather; the lightning bolt while it lives,
//!   added over the flames.
//! - `rain` (shaders/rain.wgsl): scenes with weather; the rain's streaks and splashes and the
//!   wind's debris, laid over the picture.
//! - `weather_layer` (shaders/bolt.wgsl, shaders/rain.wgsl): with `--layers` on a scene with
//!   weather, the `bolt` and `rain` passes' draws again, alone, over transparent black and
//!   against the scene's depth, for compositing.
//! - `overlay` (shaders/overlay.wgsl): sheet outlines or the flow mesh.
//! - `encode` (shaders/encode.wgsl): linear light to 8-bit sRGB, the only place that
//!   conversion happens.
//!
//! Then `readback/` copies the picture (and, when asked, the linear target and the fog
//! and weather layers as half floats) into a ring of staging buffers, which a thread of its
//! own copies out of mapped memory. Shared WGSL lives in
//! shaders/common.wgsl, shaders/noise.wgsl, shaders/fires.wgsl (the fires as lights, which
//! the `scene`, `fog` and `flame` passes read from `fire_lights.rs`) and shaders/lamps.wgsl
//! (the lamps and their shadow maps, from `lamp_lights.rs`) and shaders/sky.wgsl (the clouds,
//! the water's fog and the sky under water, from `sky.rs`), assembled by `shaders.rs`.
//! Everything drawn is fogged by one WGSL function, `distance_fog_factor` in common.wgsl
//! (linear or exponential, thinned with altitude), whose CPU twin and tests live in
//! `distance_fog.rs`.
//!
//! [`FrameInputs`]: crate::frame::FrameInputs
//! [`Frame`]: crate::frame::Frame
//! [`Scene`]: crate::scene::Scene

mod camera;
mod capsule_geometry;
mod common;
pub mod context;
mod distance_fog;
mod error;
mod fire_geometry;
mod fire_lights;
mod geometry;
mod lamp_lights;
mod maps;
mod medium;
mod moon_shadow;
mod passes;
mod readback;
pub mod renderer;
mod shader_forms;
mod shaders;
mod sky;
mod specialize;
mod targets;
mod terrain_geometry;
pub mod timing;
mod weather;

#[cfg(test)]
pub(crate) mod tests;

pub use context::{
    AdapterSummary, BackendChoice, GpuContext, GpuOptions, list_adapters, list_adapters_of,
};
pub use error::GpuError;
pub use passes::fog_compute::{Compositor, DEFAULT_RAYMARCH_STEPS};
pub use readback::FRAMES_IN_FLIGHT;
pub use readback::Readback;
pub use readback::check_frame_size;
pub use renderer::{RenderConfig, Renderer};
pub use timing::GpuTimes;
