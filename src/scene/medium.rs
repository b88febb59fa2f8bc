//! `fog.medium`: what the fog does with light. `Seed` is the seed example's painted look;
//! `Physical` makes the fog a participating medium that scatters the scene's lights toward the
//! eye, each weighted by a phase function of the angle between the light and the view.
//!
//! This module holds the format and the CPU twins of the shaders' phase functions
//! (fog.wgsl, `medium_phase`): Henyey–Greenstein, Draine, and the Jendersie–d'Eon fit of a
//! fog droplet's Mie phase as a blend of the two (“An Approximate Mie Scattering Function for
//! Fog and Cloud Rendering”, SIGGRAPH 2023 talk), valid for droplets of 5 to 50 µm.

use std::f32::consts::PI;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the fog does with light.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub enum FogMedium {
    /// The seed example's look: the fog's colour times a tone, plus fixed glows round the
    /// ball, the fires and the lamps. The same in every direction.
    #[default]
    Seed,
    /// A participating medium: the fog scatters every light toward the eye, by a phase
    /// function, and takes what it scatters out of the light it lets through.
    Physical(PhysicalMedium),
}

impl FogMedium {
    /// Whether this is the default medium (`Seed`), left out when a scene is written.
    pub fn is_seed(&self) -> bool {
        *self == FogMedium::Seed
    }

    /// The physical medium's settings, or `None` for `Seed`.
    pub fn physical(&self) -> Option<&PhysicalMedium> {
        match self {
            FogMedium::Seed => None,
            FogMedium::Physical(physical) => Some(physical),
        }
    }
}

/// The physical fog medium's settings. Its extinction is the fog's own (`fog.sigma` times the
/// density), so it hides exactly what the seed fog hides.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PhysicalMedium {
    /// Single-scattering albedo: the share of the extinction that is scattering (the rest is
    /// absorbed), 0..1. 0 makes the fog only darken. Default: 0.9.
    pub albedo: f32,
    /// How the scattered light spreads by angle. Default: `HenyeyGreenstein(0.6)`.
    pub phase: Phase,
    /// Terms of the multiple-scattering approximation, 1..4: term n scatters 0.5ⁿ as much
    /// light with a phase 0.5ⁿ as eccentric, so the fog also glows round a light seen from the
    /// side. 1 is single scattering alone. Default: 3.
    pub octaves: u32,
    /// Whether the fog shadows itself: the moon's and the ball's light arrive dimmed by the
    /// fog they cross on the way (`passes/fog_shadow.rs`), so a dense bank darkens the thinner
    /// fog behind it. Default: true.
    pub self_shadowing: bool,
}

impl Default for PhysicalMedium {
    fn default() -> Self {
        PhysicalMedium {
            albedo: 0.9,
            phase: Phase::HenyeyGreenstein(0.6),
            octaves: 3,
            self_shadowing: true,
        }
    }
}

/// The most octaves `PhysicalMedium::octaves` may ask for.
pub const MAX_MEDIUM_OCTAVES: u32 = 4;

/// How much each multiple-scattering octave keeps of the one before: of the scattered light
/// and of the phase's eccentricity (after Wrenninge et al., “Oz: The Great and Volumetric”,
/// 2013). keep in sync with shaders/fog.wgsl: MEDIUM_OCTAVE_KEEP
pub const MEDIUM_OCTAVE_KEEP: f32 = 0.5;

/// A phase function: how the light a droplet scatters spreads by the angle θ between the
/// light's direction and the scattered direction.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum Phase {
    /// Henyey–Greenstein with asymmetry g, strictly inside (−1, 1): the mean of cos θ.
    /// 0 scatters alike in every direction, toward 1 forward (toward the eye that looks at
    /// the light), toward −1 back.
    HenyeyGreenstein(f32),
    /// The Mie phase of fog droplets of this diameter, micrometres, 5..50 (the Jendersie–d'Eon
    /// fit: Henyey–Greenstein blended with Draine). A sharp forward peak and a faint backward
    /// glow.
    Mie(f32),
}

/// Droplet diameters the Mie fit covers, micrometres.
pub const MIE_DROPLET_UM: std::ops::RangeInclusive<f32> = 5.0..=50.0;

/// A phase function as the shaders take it: `(1 − w_draine)·HG(g_hg) + w_draine·Draine(g_draine,
/// alpha)`. Henyey–Greenstein alone has `w_draine` 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseFit {
    /// Asymmetry of the Henyey–Greenstein lobe.
    pub g_hg: f32,
    /// Asymmetry of the Draine lobe.
    pub g_draine: f32,
    /// Draine's α, which shapes the lobe's backward part.
    pub alpha: f32,
    /// The Draine lobe's weight, 0..1.
    pub w_draine: f32,
}

impl Phase {
    /// The phase as a blend of Henyey–Greenstein and Draine. For `Mie(d)` these are the fit's
    /// formulas for 5 µm ≤ d ≤ 50 µm (the diameter is clamped into that range).
    pub fn fit(self) -> PhaseFit {
        match self {
            Phase::HenyeyGreenstein(g) => PhaseFit {
                g_hg: g,
                g_draine: 0.0,
                alpha: 0.0,
                w_draine: 0.0,
            },
            Phase::Mie(droplet_um) => {
                let d = droplet_um.clamp(*MIE_DROPLET_UM.start(), *MIE_DROPLET_UM.end());
                PhaseFit {
                    g_hg: (-0.099_056_7 / (d - 1.671_54)).exp(),
                    g_draine: (-2.206_79 / (d + 3.910_29) - 0.428_934).exp(),
                    alpha: (3.624_89 - 8.292_88 / (d + 5.528_25)).exp(),
                    w_draine: (-0.599_085 / (d - 0.641_583) - 0.665_888).exp(),
                }
            }
        }
    }
}

/// Henyey–Greenstein's phase at `cos_theta`, per steradian (integrates to 1 over the sphere).
/// keep in sync with shaders/fog.wgsl: phase_hg
pub fn phase_hg(cos_theta: f32, g: f32) -> f32 {
    let g2 = g * g;
    let denom = (1.0 + g2 - 2.0 * g * cos_theta).max(1e-6);
    (1.0 - g2) / (4.0 * PI * denom * denom.sqrt())
}

/// Draine's phase at `cos_theta`, per steradian (integrates to 1 over the sphere).
/// keep in sync with shaders/fog.wgsl: phase_draine
pub fn phase_draine(cos_theta: f32, g: f32, alpha: f32) -> f32 {
    let g2 = g * g;
    let shape = (1.0 + alpha * cos_theta * cos_theta) / (1.0 + alpha * (1.0 + 2.0 * g2) / 3.0);
    phase_hg(cos_theta, g) * shape
}

impl PhaseFit {
    /// The blended phase at `cos_theta`, per steradian, with both asymmetries scaled by
    /// `eccentricity` (1 for single scattering; `MEDIUM_OCTAVE_KEEP`ⁿ for octave n).
    /// keep in sync with shaders/fog.wgsl: medium_phase
    pub fn eval(&self, cos_theta: f32, eccentricity: f32) -> f32 {
        let hg = phase_hg(cos_theta, self.g_hg * eccentricity);
        let draine = phase_draine(cos_theta, self.g_draine * eccentricity, self.alpha);
        hg + (draine - hg) * self.w_draine
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ∫ f over the sphere, for f of cos θ alone: 2π ∫₋₁¹ f(μ) dμ. Sampled densely near μ = 1,
    /// where a forward lobe puts almost everything (μ = 1 − 2x⁴), with Simpson's rule in f64.
    fn over_sphere(f: impl Fn(f32) -> f64) -> f64 {
        let n = 400_000;
        let h = 1.0 / n as f64;
        let mut sum = 0.0;
        for i in 0..=n {
            let x = i as f64 * h;
            let mu = 1.0 - 2.0 * x.powi(4);
            let dmu_dx = 8.0 * x.powi(3);
            let weight = if i == 0 || i == n {
                1.0
            } else if i % 2 == 1 {
                4.0
            } else {
                2.0
            };
            sum += weight * f(mu as f32) * dmu_dx;
        }
        2.0 * std::f64::consts::PI * sum * h / 3.0
    }

    #[test]
    fn henyey_greenstein_integrates_to_one_and_its_mean_cosine_is_g() {
        for g in [-0.9_f32, -0.5, 0.0, 0.3, 0.8, 0.95] {
            let total = over_sphere(|mu| f64::from(phase_hg(mu, g)));
            assert!((total - 1.0).abs() < 1e-3, "g {g}: ∫ = {total}");
            let mean = over_sphere(|mu| f64::from(phase_hg(mu, g) * mu));
            assert!((mean - f64::from(g)).abs() < 2e-3, "g {g}: mean cos {mean}");
        }
        // Isotropic: 1/(4π) everywhere.
        assert!((phase_hg(-0.3, 0.0) - 1.0 / (4.0 * PI)).abs() < 1e-7);
        // Forward scattering is brighter looking into the light than away from it.
        assert!(phase_hg(1.0, 0.8) > phase_hg(1.0, 0.0));
        assert!(phase_hg(-1.0, 0.8) < phase_hg(-1.0, 0.0));
    }

    #[test]
    fn draine_and_the_mie_fit_integrate_to_one() {
        for (g, alpha) in [(0.5_f32, 17.0_f32), (0.62, 32.0), (0.0, 1.0)] {
            let total = over_sphere(|mu| f64::from(phase_draine(mu, g, alpha)));
            assert!((total - 1.0).abs() < 1e-3, "g {g} α {alpha}: ∫ = {total}");
        }
        for d in [5.0_f32, 10.0, 20.0, 50.0] {
            let fit = Phase::Mie(d).fit();
            let total = over_sphere(|mu| f64::from(fit.eval(mu, 1.0)));
            assert!((total - 1.0).abs() < 5e-3, "Mie({d}): ∫ = {total}");
            // Each octave's wider lobe is a phase function too.
            let wide = over_sphere(|mu| f64::from(fit.eval(mu, 0.25)));
            assert!(
                (wide - 1.0).abs() < 5e-3,
                "Mie({d}) at a quarter: ∫ = {wide}"
            );
        }
    }

    #[test]
    fn the_mie_fit_stays_in_its_published_range() {
        // The fit's curves over 5..50 µm (Jendersie and d'Eon 2023, figure of the parameters):
        // g_HG from about 0.97 to 0.998, g_D about 0.51 to 0.63, α about 17 to 33, w_D about
        // 0.45 to 0.51, each rising with the diameter.
        let mut last: Option<PhaseFit> = None;
        for step in 0..=45 {
            let d = 5.0 + step as f32;
            let fit = Phase::Mie(d).fit();
            assert!(
                (0.97..0.999).contains(&fit.g_hg),
                "d {d}: g_hg {}",
                fit.g_hg
            );
            assert!(
                (0.50..0.63).contains(&fit.g_draine),
                "d {d}: g_d {}",
                fit.g_draine
            );
            assert!((17.0..33.0).contains(&fit.alpha), "d {d}: α {}", fit.alpha);
            assert!(
                (0.44..0.52).contains(&fit.w_draine),
                "d {d}: w_d {}",
                fit.w_draine
            );
            if let Some(before) = last {
                assert!(fit.g_hg > before.g_hg && fit.g_draine > before.g_draine);
                assert!(fit.alpha > before.alpha && fit.w_draine > before.w_draine);
            }
            last = Some(fit);
        }
        // Outside the fit's range the diameter is clamped.
        assert_eq!(Phase::Mie(2.0).fit(), Phase::Mie(5.0).fit());
        // Henyey–Greenstein alone has no Draine lobe.
        let hg = Phase::HenyeyGreenstein(0.4).fit();
        assert_eq!((hg.g_hg, hg.w_draine), (0.4, 0.0));
        assert_eq!(hg.eval(0.2, 1.0), phase_hg(0.2, 0.4));
    }

    /// Loads `text` as the scene file `m.ron` with `sets`: the scene, or every error rendered.
    fn load(text: &str, sets: &[&str]) -> Result<crate::scene::Scene, String> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        crate::scene::load::load_source(crate::scene::SourceText::new("m.ron", text), &sets)
            .map(|loaded| loaded.scene)
            .map_err(|errors| errors.to_string())
    }

    #[test]
    fn the_medium_reads_from_a_file_and_through_set() {
        let scene = load(
            "(fog: (medium: Physical(albedo: 0.5, phase: Mie(12.0), octaves: 2)))",
            &[],
        )
        .unwrap();
        let want = PhysicalMedium {
            albedo: 0.5,
            phase: Phase::Mie(12.0),
            octaves: 2,
            self_shadowing: true,
        };
        assert_eq!(scene.fog.medium, FogMedium::Physical(want));
        // Left out, the medium is the seed's.
        assert_eq!(load("()", &[]).unwrap().fog.medium, FogMedium::Seed);
        // `--set` switches to the variant, then walks into its fields.
        let sets = [
            "fog.medium=Physical()",
            "fog.medium.phase=Mie(20.0)",
            "fog.medium.albedo=0.25",
            "fog.medium.self_shadowing=false",
        ];
        let scene = load("()", &sets).unwrap();
        let want = PhysicalMedium {
            albedo: 0.25,
            phase: Phase::Mie(20.0),
            self_shadowing: false,
            ..PhysicalMedium::default()
        };
        assert_eq!(scene.fog.medium, FogMedium::Physical(want));
        let sets = ["fog.medium.phase=HenyeyGreenstein(-0.3)"];
        let scene = load("(fog: (medium: Physical()))", &sets).unwrap();
        let phase = scene.fog.medium.physical().map(|p| p.phase);
        assert_eq!(phase, Some(Phase::HenyeyGreenstein(-0.3)));
        // The seed medium has no fields to set: the error says to set the variant first.
        let error = load("()", &["fog.medium.albedo=0.5"]).unwrap_err();
        assert!(error.contains("--set fog.medium.albedo=0.5"), "{error}");
        assert!(
            error.contains("`fog.medium` is `Seed`, which has no fields"),
            "{error}"
        );
        assert!(error.contains("--set 'fog.medium=Physical()'"), "{error}");
        let error = load("()", &["fog.medium=Physcal()"]).unwrap_err();
        assert!(error.contains("Physcal"), "{error}");
        assert!(error.contains("Physical"), "{error}");
    }

    #[test]
    fn bad_medium_values_name_the_file_line_field_and_fix() {
        let cases: [(&str, &str, &str); 4] = [
            ("albedo: 1.5", "`fog.medium.albedo` is 1.5", "0..=1"),
            (
                "phase: HenyeyGreenstein(1.0)",
                "HenyeyGreenstein(1): its g must lie strictly between -1 and 1",
                "use a g in (-1, 1)",
            ),
            (
                "phase: Mie(80.0)",
                "Mie(80): the droplet diameter must be 5 to 50 µm",
                "use a diameter from 5 to 50 µm",
            ),
            ("octaves: 0", "`fog.medium.octaves` is 0", "1..=4"),
        ];
        for (field, message, fix) in cases {
            let text = format!("(\n  fog: (\n    medium: Physical({field}),\n  ),\n)\n");
            let error = load(&text, &[]).unwrap_err();
            assert!(error.contains("m.ron:3:"), "{field}: no place in {error}");
            assert!(error.contains(message), "{field}: {error}");
            assert!(error.contains(fix), "{field}: {error}");
        }
        // A bad value from `--set` names the flag.
        let sets = ["fog.medium=Physical()", "fog.medium.albedo=-0.5"];
        let error = load("()", &sets).unwrap_err();
        assert!(error.contains("fog.medium.albedo"), "{error}");
        assert!(error.contains("--set"), "{error}");
    }

    #[test]
    fn the_seed_medium_is_left_out_and_physical_round_trips() {
        use crate::scene::{Scene, json_schema, to_ron};
        let seed = Scene::default();
        let printed = to_ron(&seed).unwrap();
        assert!(!printed.contains("medium"), "{printed}");
        let mut physical = Scene::default();
        physical.fog.medium = FogMedium::Physical(PhysicalMedium {
            albedo: 0.7,
            phase: Phase::Mie(9.5),
            octaves: 4,
            self_shadowing: false,
        });
        assert_ne!(seed.content_hash(), physical.content_hash());
        // A look field: the world's step does not read it.
        assert_eq!(seed.step_hash(), physical.step_hash());
        let printed = to_ron(&physical).unwrap();
        assert_eq!(load(&printed, &[]).unwrap(), physical);
        let schema = json_schema().to_string();
        for name in [
            "Physical",
            "HenyeyGreenstein",
            "Mie",
            "albedo",
            "self_shadowing",
        ] {
            assert!(schema.contains(name), "the schema lacks {name}");
        }
    }
}
