//! The physical fog medium in the shaders' forms: fog.wgsl's `FOG_MEDIUM` and `MEDIUM_OCTAVES`
//! pipeline constants, which compile the physical code out of seed-medium pipelines and unroll
//! the octaves, and the frame uniforms that carry its albedo and its phase.
//!
//! The phase goes to the GPU as two lobes an octave, each `(1 + g², 2g, c)` with the octave's
//! weight and Henyey–Greenstein's normalisation folded into `c` ([`MediumUniforms::new`]). The
//! shader then evaluates a lobe as `c / (1 + g² − 2g cos θ)^(3/2)`: a multiply-add, a reciprocal
//! square root and three products, instead of working the fit's constants out again at every
//! point of the fog for every light and octave.

use std::f32::consts::PI;

use crate::scene::medium::{MEDIUM_OCTAVE_KEEP, PhaseFit};
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

/// fog.wgsl's `MEDIUM_OCTAVES` for `medium`: its multiple-scattering octaves (1 for the seed
/// medium, which reads none of them).
pub(crate) fn medium_octaves_constant(medium: &FogMedium) -> u32 {
    medium.physical().map_or(1, |physical| physical.octaves)
}

/// `FrameUniforms::medium` and `medium_octaves`: zeros for `Seed`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MediumUniforms {
    /// x the albedo; y the octaves; z the last octave's share of the extinction on a light's
    /// path (`MEDIUM_OCTAVE_KEEP` to the power octaves − 1); w unused.
    pub medium: [f32; 4],
    /// Entry 2n the Henyey–Greenstein lobe of octave n, 2n + 1 its Draine lobe (w: Draine's
    /// α): each `(1 + g², 2g, c, _)`, zeros past the medium's octaves.
    pub octaves: [[f32; 4]; 8],
}

impl MediumUniforms {
    pub(crate) fn new(medium: &FogMedium) -> Self {
        let Some(physical) = medium.physical() else {
            return MediumUniforms {
                medium: [0.0; 4],
                octaves: [[0.0; 4]; 8],
            };
        };
        let fit = physical.phase.fit();
        let mut octaves = [[0.0; 4]; 8];
        let mut keep = 1.0_f32;
        let mut last_keep = 1.0_f32;
        for n in 0..physical.octaves.min(4) as usize {
            [octaves[2 * n], octaves[2 * n + 1]] = octave_lobes(&fit, keep);
            last_keep = keep;
            keep *= MEDIUM_OCTAVE_KEEP;
        }
        MediumUniforms {
            medium: [physical.albedo, physical.octaves as f32, last_keep, 0.0],
            octaves,
        }
    }
}

/// The two lobes of the octave whose asymmetries are `fit`'s scaled by `keep` and whose weight
/// is `keep`: [`phase_lobe`] of the first, plus [`phase_lobe`] of the second times
/// `1 + α cos²θ` (its w), is `keep · fit.eval(cos θ, keep)`.
fn octave_lobes(fit: &PhaseFit, keep: f32) -> [[f32; 4]; 2] {
    let lobe = |g: f32, weight: f32| {
        let g2 = g * g;
        [1.0 + g2, 2.0 * g, weight * (1.0 - g2) / (4.0 * PI), 0.0]
    };
    let hg = lobe(fit.g_hg * keep, keep * (1.0 - fit.w_draine));
    // Draine's shape (1 + α cos²θ) / (1 + α (1 + 2g²) / 3): its denominator goes into the
    // weight, its numerator is the same in every octave.
    let g_draine = fit.g_draine * keep;
    let shape = 1.0 + fit.alpha * (1.0 + 2.0 * g_draine * g_draine) / 3.0;
    let mut draine = lobe(g_draine, keep * fit.w_draine / shape);
    draine[3] = fit.alpha;
    [hg, draine]
}

/// fog.wgsl's `phase_lobe`: the lobe `(1 + g², 2g, c)` at `cos_theta`.
/// keep in sync with shaders/fog.wgsl: phase_lobe
#[cfg(test)]
fn phase_lobe(lobe: [f32; 4], cos_theta: f32) -> f32 {
    let r = 1.0 / (lobe[0] - lobe[1] * cos_theta).max(1e-6).sqrt();
    lobe[2] * r * r * r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::medium::PhysicalMedium;

    fn physical(phase: Phase, octaves: u32) -> FogMedium {
        FogMedium::Physical(PhysicalMedium {
            albedo: 0.9,
            phase,
            octaves,
            self_shadowing: true,
        })
    }

    /// Each octave's lobes, evaluated as the shader does, give the fit's phase weighted by the
    /// octave's share, at every angle, for both phases and every octave.
    #[test]
    fn the_lobes_are_the_fits_phase() {
        for phase in [
            Phase::Mie(12.0),
            Phase::Mie(40.0),
            Phase::HenyeyGreenstein(0.8),
            Phase::HenyeyGreenstein(-0.3),
        ] {
            let uniforms = MediumUniforms::new(&physical(phase, 4));
            let fit = phase.fit();
            let mut keep = 1.0;
            for n in 0..4 {
                let (hg, draine) = (uniforms.octaves[2 * n], uniforms.octaves[2 * n + 1]);
                for step in 0..=40 {
                    let c = -1.0 + step as f32 / 20.0;
                    let got = phase_lobe(hg, c) + phase_lobe(draine, c) * (1.0 + draine[3] * c * c);
                    let want = keep * fit.eval(c, keep);
                    assert!(
                        (got - want).abs() <= 1e-5 * want.max(1.0),
                        "{phase:?} octave {n} cos {c}: {got} against {want}"
                    );
                }
                keep *= MEDIUM_OCTAVE_KEEP;
            }
        }
    }

    /// Past the medium's octaves the lobes are zeros, and the last octave's share of the
    /// extinction is 0.5 to the power octaves − 1.
    #[test]
    fn octaves_past_the_medium_are_zero() {
        let uniforms = MediumUniforms::new(&physical(Phase::Mie(12.0), 3));
        assert_eq!(uniforms.medium[1], 3.0);
        assert_eq!(uniforms.medium[2], 0.25);
        assert_eq!(uniforms.octaves[6], [0.0; 4]);
        assert_eq!(uniforms.octaves[7], [0.0; 4]);
        assert_ne!(uniforms.octaves[4], [0.0; 4]);
        let seed = MediumUniforms::new(&FogMedium::default());
        assert_eq!(seed.medium, [0.0; 4]);
        assert_eq!(seed.octaves, [[0.0; 4]; 8]);
        assert_eq!(medium_octaves_constant(&FogMedium::default()), 1);
        assert_eq!(medium_octaves_constant(&physical(Phase::Mie(12.0), 3)), 3);
    }
}
