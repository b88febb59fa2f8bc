//! The one wind: a prevailing direction with gusts on top of the sky's base speed and a
//! direction that wanders, as periodic functions of the step count with whole harmonics of the
//! cycle, so the signal repeats exactly after `cycle_s`.
//!
//! The time inside the cycle is taken from the step count modulo the cycle's length in steps, an
//! integer operation, so step `n` and step `n + cycle` give bit-identical winds.

use std::f64::consts::TAU;

use crate::scene::weather::WindProfile;
use crate::timeline::STEPS_PER_SECOND;

/// The cycle's length in whole 60 Hz steps (at least 1).
pub fn cycle_steps(profile: &WindProfile) -> u64 {
    let steps = (f64::from(profile.cycle_s) * f64::from(STEPS_PER_SECOND)).round();
    if steps.is_finite() && steps >= 1.0 {
        steps as u64
    } else {
        1
    }
}

/// Where step `step` falls in the cycle, 0..1.
fn cycle_fraction(profile: &WindProfile, step: u64) -> f64 {
    let cycle = cycle_steps(profile);
    let phase_steps = f64::from(profile.phase_s) * f64::from(STEPS_PER_SECOND);
    let u = ((step % cycle) as f64 + phase_steps) / cycle as f64;
    u - u.floor()
}

/// The gust signal at cycle fraction `u`, 0 (calm) to 1 (full gust): three whole harmonics,
/// squared so gusts come as peaks over a steadier wind.
fn gust(u: f64) -> f64 {
    let g = 0.5 * (TAU * u).sin()
        + 0.3 * (3.0 * TAU * u + 1.3).sin()
        + 0.2 * (7.0 * TAU * u + 2.1).sin();
    let unit = 0.5 + 0.5 * g;
    unit * unit
}

/// How far the direction has turned at cycle fraction `u`, in units of the wander (−1..=1).
fn wander(u: f64) -> f64 {
    0.6 * (2.0 * TAU * u + 0.7).sin() + 0.4 * (5.0 * TAU * u + 2.9).sin()
}

/// The wind's velocity on the floor (x, z) during step `step`, world units per second, for a
/// base speed of `base_speed_world_per_s`.
pub fn sample(profile: &WindProfile, base_speed_world_per_s: f32, step: u64) -> [f32; 2] {
    let u = cycle_fraction(profile, step);
    let base = f64::from(base_speed_world_per_s);
    let speed = base * (1.0 + f64::from(profile.gust_share) * gust(u));
    let [dx, dz] = profile.direction;
    let angle = f64::from(dz).atan2(f64::from(dx)) + f64::from(profile.wander_rad) * wander(u);
    [(speed * angle.cos()) as f32, (speed * angle.sin()) as f32]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wind_repeats_after_its_cycle_exactly_and_not_before() {
        let profile = WindProfile::default();
        let cycle = cycle_steps(&profile);
        assert_eq!(cycle, 2400);
        for step in (0..cycle).step_by(7) {
            let a = sample(&profile, 9.0, step);
            assert_eq!(a, sample(&profile, 9.0, step + cycle), "step {step}");
            assert_eq!(a, sample(&profile, 9.0, step + 5 * cycle), "step {step}");
        }
        // Half a cycle on, it is another wind.
        assert_ne!(
            sample(&profile, 9.0, 100),
            sample(&profile, 9.0, 100 + cycle / 2)
        );
    }

    #[test]
    fn gusts_add_at_most_the_gust_share_and_the_direction_wanders_within_bounds() {
        let profile = WindProfile::default();
        let base_angle = 0.3_f32.atan2(1.0);
        let (mut slowest, mut fastest) = (f32::MAX, 0.0_f32);
        for step in 0..cycle_steps(&profile) {
            let [x, z] = sample(&profile, 4.0, step);
            let speed = x.hypot(z);
            slowest = slowest.min(speed);
            fastest = fastest.max(speed);
            let turned = (z.atan2(x) - base_angle).abs();
            assert!(turned <= 0.3 + 1e-4, "step {step}: turned {turned}");
        }
        assert!(slowest >= 4.0 - 1e-4, "{slowest}");
        assert!(fastest <= 4.0 * 1.45 + 1e-3, "{fastest}");
        assert!(
            fastest > 4.0 * 1.3,
            "gusts reach near their full share: {fastest}"
        );
        assert_eq!(sample(&profile, 0.0, 123), [0.0, 0.0]);
    }
}
