//! The physical fog medium in the shaders' forms: fog.wgsl's `FOG_MEDIUM` pipeline constant,
//! which compiles the physical code out of seed-medium pipelines, and the two vectors of the
//! frame uniforms that carry its albedo, octaves and phase fit.

use crate::scene::{FogMedium, Phase};

/// fog.wgsl's `FOG_MEDIUM` for `medium`: 0 the seed medium, whose pipelines compile the
/// physical code out (the same bytes as before the medium existed); 1 the physical medium with
/// a Henyey–Greenstein phase alone; 2 with a Draine lobe too (`Mie`).
/// keep in sync with shaders/fog.wgsl: FOG_MEDIUM_SEED, FOG_MEDIUM_HG, FOG_MEDIUM_HG_DRAINE
pub(crate) fn medium_constant(medium: &FogMedium) -> u32 {
    match medium.physical().map(|physical| physical.phase) {
        None => 0,
        Some(Phase::HenyeyGreenstein(_)) => 1,
        Some(Phase::Mie(_)) => 2,
    }
}

/// `FrameUniforms::medium` and `medium_phase` for `medium`: zeros for `Seed`.
pub(crate) fn medium_uniforms(medium: &FogMedium) -> [[f32; 4]; 2] {
    match medium.physical() {
        None => [[0.0; 4]; 2],
        Some(physical) => {
            let fit = physical.phase.fit();
            [
                [physical.albedo, physical.octaves as f32, 0.0, 0.0],
                [fit.g_hg, fit.g_draine, fit.alpha, fit.w_draine],
            ]
        }
    }
}
