//! The `raymarch` pass: the reference renderer of the fog (shaders/raymarch.wgsl,
//! `--compositor raymarch [--steps N]`). No sheets: one compute invocation per pixel integrates
//! the continuous fog the sheets sample (`fog_medium` in shaders/fog.wgsl) along the pixel's
//! view ray, front to back from the eye to the scene's depth, in `steps` equal steps over the
//! part of the ray inside the fog's box, with a per-pixel random start within the first step
//! (an integer hash of the pixel), and composites it over the scene.
//!
//! It binds and composites exactly as the `fog_compute` pass does (a copy of the scene colour,
//! the scene depth, the picture and the fog layer as storage textures), so it is that pass's
//! [`FogComputePass`] built with [`Marched::Medium`]; this module names it. Slow is fine: it
//! is the ground truth `fogbank quality` measures the sheets against, and it converges as the
//! steps grow (`src/gpu/tests/raymarch.rs`).

use crate::gpu::GpuError;
use crate::gpu::passes::builder::PassContext;
use crate::gpu::passes::fog_compute::{FogComputePass, Marched};

/// The `raymarch` pass for `scene` in `view` over `pictures`, `steps` steps per ray.
pub(crate) fn raymarch_pass(
    ctx: &PassContext<'_>,
    fog_layer: Option<&wgpu::TextureView>,
    steps: u32,
) -> Result<FogComputePass, GpuError> {
    FogComputePass::new(ctx, fog_layer, Marched::Medium { steps }, None)
}
