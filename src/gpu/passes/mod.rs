//! The passes of a frame, one module each, named as the pass: its WGSL file, its field in
//! [`Renderer`](crate::gpu::Renderer) and the labels of its wgpu objects all carry the same
//! name (see the list in [`crate::gpu`]). What every pass sets up alike (labelled buffers,
//! bind-group layouts and bind groups, pipelines, render passes) is in [`builder`]; a pass
//! file holds what is its own.

pub(crate) mod accumulate;
pub(crate) mod bolt;
pub(crate) mod builder;
pub(crate) mod compositor;
pub(crate) mod edge_batch;
pub(crate) mod edges;
pub(crate) mod encode;
pub(crate) mod fire_flicker;
pub(crate) mod flame;
pub(crate) mod fog;
pub(crate) mod fog_compute;
pub(crate) mod fog_cutoff;
pub(crate) mod fog_footprint;
pub(crate) mod fog_groups;
pub(crate) mod fog_half;
pub(crate) mod fog_lattice;
pub(crate) mod fog_layer;
pub(crate) mod fog_shadow;
pub(crate) mod overlay;
pub(crate) mod rain;
pub(crate) mod raymarch;
pub(crate) mod reflection;
pub(crate) mod scene;
pub(crate) mod scene_compute;
pub(crate) mod shadow;
pub(crate) mod weather_layer;
