//! The engine's distance fog: linear, exponential or exponential-squared, thinned with
//! altitude so that mist pools in low ground and the ridges stay clear.
//!
//! Density at height `y` is `density · exp(−falloff · (y − base))` (world Y is up, so the air
//! thins as `y` grows). Along the straight segment from the camera to a shaded point that
//! exponential integrates in closed form, so the whole ray costs one `exp` and no marching:
//! the optical depth is the distance times the *mean* relative density over the segment,
//! `exp(e_high) · (1 − exp(−Δe)) / Δe` for the exponents `e` at its two ends. That mean
//! multiplies the distance, so every mode gains it and `falloff = 0` makes it exactly 1 (the
//! fog then renders byte for byte as it did before height falloff existed). The technique is
//! the usual analytic exponential height fog (e.g. Wenzel, "Real-time atmospheric effects in
//! games", 2006), and it has three traps, handled here:
//!
//! - the level ray: `(1 − exp(−x)) / x` is 0/0 at x = 0 and loses its digits near it, so a
//!   series is blended in smoothly below x = 0.2, with no step as the ray flattens;
//! - the sign of the height axis: Y up, so density grows as `y` falls (tests fail if flipped);
//! - overflow with the camera far below the base height: both exponents are clamped to
//!   −80..=40 and the larger one is factored out, so nothing reaches infinity.
//!
//! The WGSL lives in shaders/common.wgsl (`distance_fog_factor` and its helpers); `twin`
//! (compiled for tests) holds its CPU twin, written operation for operation alike so the tests speak for the
//! shader. keep in sync with shaders/common.wgsl.

use bytemuck::{Pod, Zeroable};

use crate::gpu::common::srgb_to_linear;
use crate::scene::{DistanceFog, FogMode};

/// `mode` value of the linear fog; keep in sync with shaders/common.wgsl: FOG_MODE_LINEAR.
pub(crate) const FOG_MODE_LINEAR: u32 = 0;
/// keep in sync with shaders/common.wgsl: FOG_MODE_EXPONENTIAL.
pub(crate) const FOG_MODE_EXPONENTIAL: u32 = 1;
/// keep in sync with shaders/common.wgsl: FOG_MODE_EXPONENTIAL_SQUARED.
pub(crate) const FOG_MODE_EXPONENTIAL_SQUARED: u32 = 2;

/// The distance fog's uniforms, group 0 binding 2 of every world pass (static per scene).
///
/// keep in sync with shaders/common.wgsl: DistanceFogParams
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct DistanceFogParams {
    /// rgb: colour things fade to (linear); w: the most of it that may cover anything, 0..1.
    pub color: [f32; 4],
    /// x: linear start (near); y: linear end (far); z: clear air before the haze (start);
    /// w: extinction at the base height (density), 1/world unit.
    pub range: [f32; 4],
    /// x: height falloff, 1/world unit; y: base height (world); z, w: unused.
    pub height: [f32; 4],
    /// x: `FOG_MODE_*`; y, z, w: unused.
    pub mode: [u32; 4],
}

impl DistanceFogParams {
    /// The uniforms for the scene's `distance_fog` section.
    pub(crate) fn new(fog: &DistanceFog) -> Self {
        let [r, g, b] = srgb_to_linear(fog.color);
        let mode = match fog.mode {
            FogMode::Linear => FOG_MODE_LINEAR,
            FogMode::Exponential => FOG_MODE_EXPONENTIAL,
            FogMode::ExponentialSquared => FOG_MODE_EXPONENTIAL_SQUARED,
        };
        DistanceFogParams {
            color: [r, g, b, fog.max_opacity],
            range: [fog.near, fog.far, fog.start, fog.density],
            height: [fog.height_falloff, fog.base_height, 0.0, 0.0],
            mode: [mode, 0, 0, 0],
        }
    }
}

/// The CPU twin of the WGSL distance fog, operation for operation, compiled for the tests
/// that speak for the shader (here and in `gpu::tests`).
///
/// keep in sync with shaders/common.wgsl.
#[cfg(test)]
pub(crate) mod twin {
    use super::{DistanceFogParams, FOG_MODE_EXPONENTIAL, FOG_MODE_LINEAR};

    /// Largest height exponent `−falloff · (y − base)` used: density is capped at e⁴⁰ (about
    /// 2·10¹⁷) times its value at the base height, far beyond opaque and far below overflow even
    /// when multiplied by the longest distance and the largest density a scene may give.
    /// keep in sync with shaders/common.wgsl: FOG_EXPONENT_LIMIT.
    pub(crate) const EXPONENT_LIMIT: f32 = 40.0;

    /// Smallest height exponent used: e⁻⁸⁰ (about 2·10⁻³⁵) is no fog at all and still a normal
    /// f32, and the floor keeps the spread between two exponents finite.
    /// keep in sync with shaders/common.wgsl: FOG_EXPONENT_FLOOR.
    pub(crate) const EXPONENT_FLOOR: f32 = -80.0;

    /// Below this exponent spread the series of `(1 − exp(−x)) / x` is used alone; above
    /// [`SERIES_BLEND_END`] the closed form alone; in between they are blended by a smoothstep.
    /// keep in sync with shaders/common.wgsl: FOG_SERIES_BLEND_START.
    pub(crate) const SERIES_BLEND_START: f32 = 0.1;
    /// keep in sync with shaders/common.wgsl: FOG_SERIES_BLEND_END.
    pub(crate) const SERIES_BLEND_END: f32 = 0.2;

    /// Optical depth beyond which a point is fully fogged in both exponential modes (exp(−64) is
    /// zero in f32); capping it keeps the square of the exponential-squared mode finite.
    /// keep in sync with shaders/common.wgsl: FOG_DEPTH_LIMIT.
    pub(crate) const DEPTH_LIMIT: f32 = 64.0;

    /// WGSL's `smoothstep`.
    fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
        let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
        t * t * (3.0 - 2.0 * t)
    }

    /// WGSL's `mix`, as its specification writes it.
    fn mix(a: f32, b: f32, t: f32) -> f32 {
        a * (1.0 - t) + b * t
    }

    /// `(1 − exp(−x)) / x` for `x ≥ 0`: the mean of `exp(−s)` over `s` in `[0, x]`, exactly 1 at
    /// `x = 0`, smooth everywhere.
    ///
    /// keep in sync with shaders/common.wgsl: fog_exp_mean
    pub(crate) fn exp_mean(x: f32) -> f32 {
        // 1 − x/2 + x²/6 − x³/24 + x⁴/120 − x⁵/720: its error at the blend's end, 0.2, is about
        // 0.2⁶/5040 ≈ 1e-8, and the closed form's cancellation error at its start, 0.1, is about
        // 6e-8 / 0.1 ≈ 6e-7: both far below anything a picture shows.
        let series = 1.0
            - x * (1.0 / 2.0 - x * (1.0 / 6.0 - x * (1.0 / 24.0 - x * (1.0 / 120.0 - x / 720.0))));
        let closed = (1.0 - (-x).exp()) / x.max(1e-6);
        mix(
            series,
            closed,
            smoothstep(SERIES_BLEND_START, SERIES_BLEND_END, x),
        )
    }

    /// The mean over a straight segment, from height `y_a` to height `y_b`, of the density relative
    /// to the base height, `exp(−falloff · (y − base))`. Exactly 1 when `falloff` is 0.
    ///
    /// The height along the segment is linear in the distance along it, so the exponent is too,
    /// and the mean of `exp` between exponents `e_low` and `e_high` is
    /// `exp(e_high) · (1 − exp(−(e_high − e_low))) / (e_high − e_low)`: the larger one factored
    /// out, nothing overflows.
    ///
    /// keep in sync with shaders/common.wgsl: fog_height_mean
    pub(crate) fn height_mean(y_a: f32, y_b: f32, falloff: f32, base: f32) -> f32 {
        // World Y is up: the higher the point, the thinner the air.
        let e_a = (-falloff * (y_a - base)).clamp(EXPONENT_FLOOR, EXPONENT_LIMIT);
        let e_b = (-falloff * (y_b - base)).clamp(EXPONENT_FLOOR, EXPONENT_LIMIT);
        let e_high = e_a.max(e_b);
        let spread = e_high - e_a.min(e_b);
        e_high.exp() * exp_mean(spread)
    }

    /// How much of the distance fog covers `pos_world` seen from `eye_world`, 0 (none) to
    /// `max_opacity`.
    ///
    /// keep in sync with shaders/common.wgsl: distance_fog_factor
    pub(crate) fn distance_fog_factor(
        eye_world: [f32; 3],
        pos_world: [f32; 3],
        params: &DistanceFogParams,
    ) -> f32 {
        let d = [
            pos_world[0] - eye_world[0],
            pos_world[1] - eye_world[1],
            pos_world[2] - eye_world[2],
        ];
        let distance_world = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let falloff = params.height[0];
        let base_world = params.height[1];
        let amount = if params.mode[0] == FOG_MODE_LINEAR {
            let fogged_world =
                distance_world * height_mean(eye_world[1], pos_world[1], falloff, base_world);
            let near_world = params.range[0];
            let far_world = params.range[1];
            ((fogged_world - near_world) / (far_world - near_world).max(1e-4)).clamp(0.0, 1.0)
        } else {
            // The haze begins `start` along the ray: integrate from there to the point.
            let start_world = params.range[2].min(distance_world);
            let t = start_world / distance_world.max(1e-6);
            let haze_from_y = eye_world[1] + (pos_world[1] - eye_world[1]) * t;
            let mean = height_mean(haze_from_y, pos_world[1], falloff, base_world);
            let depth = (params.range[3] * (distance_world - start_world) * mean).min(DEPTH_LIMIT);
            if params.mode[0] == FOG_MODE_EXPONENTIAL {
                1.0 - (-depth).exp()
            } else {
                1.0 - (-depth * depth).exp()
            }
        };
        amount * params.color[3]
    }
}

#[cfg(test)]
mod tests {
    use super::twin::*;
    use super::*;
    use crate::rng::SplitMix64;

    fn params(mode: FogMode, density: f32, falloff: f32, base: f32) -> DistanceFogParams {
        DistanceFogParams::new(&DistanceFog {
            mode,
            density,
            height_falloff: falloff,
            base_height: base,
            ..DistanceFog::default()
        })
    }

    const MODES: [FogMode; 3] = [
        FogMode::Linear,
        FogMode::Exponential,
        FogMode::ExponentialSquared,
    ];

    /// The density relative to the base height integrated along the segment by Simpson's rule
    /// in f64, divided by the segment's length: what `height_mean` computes in closed form.
    /// The mean size of the 8 steps before step `k` and the 8 after it: a step far above it
    /// is a jump in a curve that should be smooth.
    fn mean_step_around(steps: &[f32], k: usize) -> f32 {
        steps[k - 8..k]
            .iter()
            .chain(&steps[k + 1..k + 9])
            .map(|s| s.abs())
            .sum::<f32>()
            / 16.0
    }

    fn numerical_height_mean(y_a: f64, y_b: f64, falloff: f64, base: f64) -> f64 {
        let steps = 20_000;
        let h = 1.0 / steps as f64;
        let density = |t: f64| (-falloff * (y_a + (y_b - y_a) * t - base)).exp();
        let mut sum = density(0.0) + density(1.0);
        for k in 1..steps {
            let weight = if k % 2 == 1 { 4.0 } else { 2.0 };
            sum += weight * density(k as f64 * h);
        }
        sum * h / 3.0
    }

    #[test]
    fn zero_falloff_leaves_the_distance_exactly_alone() {
        let mut rng = SplitMix64::new(11);
        for _ in 0..10_000 {
            let y_a = rng.range(-1.0e4, 1.0e4) as f32;
            let y_b = rng.range(-1.0e4, 1.0e4) as f32;
            let base = rng.range(-1.0e4, 1.0e4) as f32;
            assert_eq!(height_mean(y_a, y_b, 0.0, base).to_bits(), 1.0f32.to_bits());
        }
        assert_eq!(exp_mean(0.0).to_bits(), 1.0f32.to_bits());
        // The linear fog is then the old formula, bit for bit.
        let fog = DistanceFogParams::new(&DistanceFog::default());
        for pos in [[3.0, 0.0, -12.0], [0.0, 3.5, -5.5], [7.0, 0.2, 9.0]] {
            let eye = [0.0, 7.5, 11.0];
            let d: [f32; 3] = std::array::from_fn(|k| pos[k] - eye[k]);
            let distance = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            let old = ((distance - 9.0) / (24.0f32 - 9.0).max(1e-4)).clamp(0.0, 1.0);
            assert_eq!(distance_fog_factor(eye, pos, &fog).to_bits(), old.to_bits());
        }
    }

    #[test]
    fn scenes_that_leave_height_fog_out_serialize_as_before() {
        // The scene hash is a hash of the serialized scene: fields at their defaults stay out.
        let fog = serde_json::to_value(DistanceFog::default()).unwrap_or_default();
        let keys: Vec<&String> = fog
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        assert_eq!(keys, ["color", "far", "near"]);
        let hall = serde_json::to_value(crate::scene::Hall::default()).unwrap_or_default();
        assert!(hall.get("blocks").is_none() && hall.get("terrain").is_none());
        let used = DistanceFog {
            height_falloff: 0.2,
            ..DistanceFog::default()
        };
        let used = serde_json::to_value(used).unwrap_or_default();
        assert_eq!(
            used.get("height_falloff").and_then(|v| v.as_f64()),
            Some(0.2f32.into())
        );
    }

    #[test]
    fn exp_mean_matches_its_definition_in_f64() {
        for k in 0..=4000 {
            let x = k as f32 * 0.0025; // 0 ..= 10, through the blend band
            let reference = if x == 0.0 {
                1.0
            } else {
                -(-f64::from(x)).exp_m1() / f64::from(x)
            };
            let got = f64::from(exp_mean(x));
            assert!(
                ((got - reference) / reference).abs() < 2e-6,
                "x {x}: {got} vs {reference}"
            );
        }
    }

    #[test]
    fn exp_mean_has_no_step_through_the_series_and_the_blend() {
        // Steps of 1e-5 in x move the mean by about 5e-6; a switch between the series and the
        // closed form anywhere they disagree by more than rounding shows as an outlier.
        let values: Vec<f32> = (0..=40_000).map(|k| exp_mean(k as f32 * 1e-5)).collect();
        let steps: Vec<f32> = values.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(
            steps.iter().all(|s| *s < 0.0),
            "the mean must fall as x grows"
        );
        for k in 8..steps.len() - 8 {
            let around = mean_step_around(&steps, k);
            assert!(
                steps[k].abs() <= 1.5 * around,
                "step {} at x {} against {around} round it",
                steps[k],
                k as f32 * 1e-5
            );
        }
    }

    #[test]
    fn height_mean_matches_numerical_integration() {
        let mut rng = SplitMix64::new(5);
        let mut cases: Vec<(f32, f32, f32, f32)> = vec![
            (2.0, 2.0, 0.3, 0.0),        // level
            (2.0, 2.0 + 1e-5, 0.3, 0.0), // almost level
            (7.5, 0.0, 0.08, 0.0),       // looking down
            (0.0, 7.5, 0.08, 0.0),       // looking up
            (-20.0, 30.0, 0.5, 1.0),     // steep, through the base
            (3.0, 2.9, 1.0, -4.0),       // in the blend band
            (3.0, 2.85, 1.0, -4.0),
        ];
        for _ in 0..500 {
            let falloff = rng.range(0.0, 2.0) as f32;
            let y_a = rng.range(-20.0, 20.0) as f32;
            // Mostly near-level segments, where the series and the blend matter.
            let dy = (rng.range(-1.0, 1.0) * rng.range(0.0, 1.0).powi(3) * 20.0) as f32;
            let base = rng.range(-5.0, 5.0) as f32;
            cases.push((y_a, y_a + dy, falloff, base));
        }
        let mut checked = 0;
        for (y_a, y_b, falloff, base) in cases {
            // Beyond the exponent's limits the density is capped on purpose (tested below).
            let exponents = [y_a, y_b].map(|y| -falloff * (y - base));
            if exponents
                .iter()
                .any(|e| !(EXPONENT_FLOOR..=EXPONENT_LIMIT).contains(e))
            {
                continue;
            }
            let got = f64::from(height_mean(y_a, y_b, falloff, base));
            let expected = numerical_height_mean(
                f64::from(y_a),
                f64::from(y_b),
                f64::from(falloff),
                f64::from(base),
            );
            let relative = ((got - expected) / expected).abs();
            assert!(
                relative < 1e-4,
                "y {y_a} → {y_b}, falloff {falloff}, base {base}: {got} vs {expected} ({relative:e})"
            );
            checked += 1;
        }
        assert!(
            checked > 450,
            "only {checked} segments inside the exponent's limits"
        );
    }

    #[test]
    fn optical_depth_with_a_clear_start_matches_numerical_integration() {
        let mut rng = SplitMix64::new(9);
        for _ in 0..300 {
            let eye = [0.0f32, rng.range(-3.0, 12.0) as f32, 0.0];
            let pos = [
                rng.range(-40.0, 40.0) as f32,
                rng.range(-6.0, 15.0) as f32,
                rng.range(-60.0, -1.0) as f32,
            ];
            let density = rng.range(0.001, 0.05) as f32;
            let falloff = rng.range(0.0, 0.6) as f32;
            let base = rng.range(-4.0, 2.0) as f32;
            let start = rng.range(0.0, 30.0) as f32;
            let fog = DistanceFogParams::new(&DistanceFog {
                mode: FogMode::Exponential,
                density,
                height_falloff: falloff,
                base_height: base,
                start,
                ..DistanceFog::default()
            });
            // March the ray in f64 from the eye, counting only what lies beyond `start`.
            let d: Vec<f64> = (0..3).map(|k| f64::from(pos[k] - eye[k])).collect();
            let length = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            let from = f64::from(start).min(length);
            let steps = 20_000;
            let h = (length - from) / steps as f64;
            let density_at = |s: f64| {
                let y = f64::from(eye[1]) + d[1] * s / length;
                f64::from(density) * (-f64::from(falloff) * (y - f64::from(base))).exp()
            };
            let mut sum = density_at(from) + density_at(length);
            for k in 1..steps {
                let weight = if k % 2 == 1 { 4.0 } else { 2.0 };
                sum += weight * density_at(from + k as f64 * h);
            }
            let depth = sum * h / 3.0;
            let expected = 1.0 - (-depth).exp();
            let got = f64::from(distance_fog_factor(eye, pos, &fog));
            if expected > 1e-3 {
                let relative = ((got - expected) / expected).abs();
                assert!(relative < 1e-4, "{got} vs {expected} ({relative:e})");
            } else {
                assert!((got - expected).abs() < 1e-7, "{got} vs {expected}");
            }
        }
    }

    #[test]
    fn mist_sits_low_at_equal_distance() {
        // Eye at y = 5, two points 20 away: one 3 below eye level, one 3 above.
        let eye = [0.0, 5.0, 0.0];
        let low = [0.0, 2.0, -19.77];
        let high = [0.0, 8.0, -19.77];
        for mode in MODES {
            let fog = DistanceFogParams {
                range: [2.0, 40.0, 0.0, 0.05],
                ..params(mode, 0.05, 0.25, 0.0)
            };
            let at_low = distance_fog_factor(eye, low, &fog);
            let at_high = distance_fog_factor(eye, high, &fog);
            assert!(
                at_low > at_high * 1.5 && at_high > 0.0,
                "{mode:?}: low {at_low}, high {at_high}"
            );
            // And a level ray at the base height sees the fog of a uniform medium.
            let uniform = DistanceFogParams {
                height: [0.0, 0.0, 0.0, 0.0],
                ..fog
            };
            let level_eye = [0.0, 0.0, 0.0];
            let level_pos = [0.0, 0.0, -20.0];
            let a = distance_fog_factor(level_eye, level_pos, &fog);
            let b = distance_fog_factor(level_eye, level_pos, &uniform);
            assert!((a - b).abs() < 1e-6, "{mode:?}: {a} vs {b}");
        }
    }

    #[test]
    fn density_falls_with_height_not_rises() {
        // The relative density at a single height: more below the base, less above.
        assert!(height_mean(-2.0, -2.0, 0.5, 0.0) > 2.0);
        assert!(height_mean(2.0, 2.0, 0.5, 0.0) < 0.5);
        assert!((height_mean(-2.0, -2.0, 0.5, 0.0) - 1.0f32.exp()).abs() < 1e-5);
    }

    #[test]
    fn level_rays_do_not_step() {
        // A point 30 away whose elevation angle sweeps through zero: the fog must change
        // smoothly and monotonically (the higher the point, the less fog), with no step
        // larger than its neighbours', through the series, the blend band and the closed form.
        for mode in MODES {
            for falloff in [0.05f32, 0.5, 3.0] {
                let fog = DistanceFogParams {
                    range: [0.0, 60.0, 0.0, 0.05],
                    ..params(mode, 0.05, falloff, 0.0)
                };
                let eye = [0.0f32, 1.0, 0.0];
                let samples: Vec<f32> = (-2000..=2000)
                    .map(|k| {
                        let angle = k as f32 * 2.5e-5 / falloff.max(0.05); // |kΔy| up to ~1.5
                        let pos = [0.0, 1.0 + 30.0 * angle.sin(), -30.0 * angle.cos()];
                        distance_fog_factor(eye, pos, &fog)
                    })
                    .collect();
                assert!(samples.iter().all(|v| v.is_finite()));
                let steps: Vec<f32> = samples.windows(2).map(|w| w[1] - w[0]).collect();
                for (k, step) in steps.iter().enumerate() {
                    assert!(
                        *step <= 1e-6,
                        "{mode:?} falloff {falloff}: fog grows with height at sample {k} by {step}"
                    );
                }
                // Compare each step with the mean of the steps round it (rounding noise of a
                // few ulps allowed): a formula switch shows as an outlier.
                let ulp = 4.0 * f32::EPSILON;
                for k in 8..steps.len() - 8 {
                    let around = mean_step_around(&steps, k);
                    assert!(
                        steps[k].abs() <= 2.0 * around + ulp,
                        "{mode:?} falloff {falloff}: step {} at sample {k} against {around} round it",
                        steps[k]
                    );
                }
            }
        }
    }

    #[test]
    fn extreme_heights_stay_finite() {
        let mut heights = vec![-1.0e6f32, -1.0e4, -100.0, 0.0, 100.0, 1.0e4, 1.0e6];
        heights.extend([f32::MAX / 4.0, -f32::MAX / 4.0]);
        for mode in MODES {
            for falloff in [0.0f32, 1e-3, 0.1, 10.0, 100.0] {
                for &base in &heights {
                    for &eye_y in &heights {
                        for &pos_y in &heights {
                            for &start in &[0.0f32, 5.0, 1.0e6] {
                                let fog = DistanceFogParams {
                                    range: [9.0, 24.0, start, 100.0],
                                    ..params(mode, 100.0, falloff, base)
                                };
                                let eye = [0.0, eye_y, 0.0];
                                let pos = [3.0, pos_y, -1.0e5];
                                let amount = distance_fog_factor(eye, pos, &fog);
                                assert!(
                                    amount.is_finite() && (0.0..=1.0).contains(&amount),
                                    "{mode:?} falloff {falloff} base {base} eye {eye_y} pos {pos_y}: {amount}"
                                );
                                let mean = height_mean(eye_y, pos_y, falloff, base);
                                assert!(mean.is_finite() && mean >= 0.0, "{mean}");
                            }
                        }
                    }
                }
            }
        }
        // The camera 10 000 below the base height sees everything fully fogged, not NaN.
        let fog = params(FogMode::Exponential, 0.05, 0.1, 1.0e4);
        let amount = distance_fog_factor([0.0, 0.0, 0.0], [0.0, 0.0, -5.0], &fog);
        assert_eq!(amount, 1.0);
    }

    #[test]
    fn start_clears_the_near_field_and_max_opacity_caps() {
        let mut fog = params(FogMode::Exponential, 0.1, 0.0, 0.0);
        fog.range[2] = 10.0;
        let eye = [0.0, 1.0, 0.0];
        assert_eq!(distance_fog_factor(eye, [0.0, 1.0, -9.0], &fog), 0.0);
        let beyond = distance_fog_factor(eye, [0.0, 1.0, -20.0], &fog);
        assert!((beyond - (1.0 - (-1.0f32).exp())).abs() < 1e-6, "{beyond}");
        fog.color[3] = 0.5;
        let far = distance_fog_factor(eye, [0.0, 1.0, -1000.0], &fog);
        assert!((far - 0.5).abs() < 1e-6, "{far}");
        // Exponential squared is flatter near the eye and steeper later.
        let squared = params(FogMode::ExponentialSquared, 0.1, 0.0, 0.0);
        let plain = params(FogMode::Exponential, 0.1, 0.0, 0.0);
        let near = [0.0, 1.0, -3.0];
        assert!(distance_fog_factor(eye, near, &squared) < distance_fog_factor(eye, near, &plain));
        let far = [0.0, 1.0, -15.0];
        assert!(distance_fog_factor(eye, far, &squared) > distance_fog_factor(eye, far, &plain));
    }
}
