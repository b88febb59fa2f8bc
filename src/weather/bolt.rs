//! A lightning bolt as a pure function of the lightning seed, the strike and the absolute time:
//! an arc of [`BOLT_POINTS`] points from the clouds to the floor at the back of the hall,
//! taking a new path [`RESTRIKE_HZ`] times a second while it lives ([`BOLT_LIFE_S`]).
//!
//! Nothing here advances with the frame: the path shown at time `t` is the path of the
//! restrike `floor((t − strike time) · 16)`, built by midpoint displacement from a generator
//! seeded by the seed, the strike number and that restrike, so a 24, 30 or 60 fps render shows
//! the same arc at the same moment.

use crate::rng::SplitMix64;

/// Points along a bolt: a power of two plus one, for midpoint displacement.
pub const BOLT_POINTS: usize = 33;
/// How long a bolt lives, seconds.
pub const BOLT_LIFE_S: f64 = 0.4;
/// How many times a second a live bolt takes a new path.
pub const RESTRIKE_HZ: f64 = 16.0;
/// How far the points wander off the straight line, as a share of the bolt's span.
pub const JITTER_SHARE: f32 = 0.08;
/// Height the bolts come down from, world units.
const CLOUD_HEIGHT_WORLD: f32 = 26.0;

/// One bolt as drawn at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Bolt {
    /// The arc, cloud end first, world units.
    pub points: [[f32; 3]; BOLT_POINTS],
    /// How bright it is now, 0..=1: fading over its life, flickering from path to path.
    pub brightness: f32,
}

/// A generator for `(seed, strike, part)`.
fn generator(seed: u64, strike: u32, part: u64) -> SplitMix64 {
    let mut mix = SplitMix64::new(
        seed ^ u64::from(strike).wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ part.wrapping_mul(0xc2b2_ae3d_27d4_eb4f),
    );
    // One draw to spread nearby seeds apart.
    mix.next_u64();
    mix
}

/// The bolt of strike `strike` (struck at `strike_time_s`) at time `time_s`; `None` before
/// it strikes and once it has died.
pub fn bolt_at(seed: u64, strike: u32, strike_time_s: f64, time_s: f64) -> Option<Bolt> {
    let age_s = time_s - strike_time_s;
    if !(0.0..BOLT_LIFE_S).contains(&age_s) {
        return None;
    }
    // Where it strikes: fixed for the whole life of the bolt.
    let mut place = generator(seed, strike, u64::MAX);
    // Into the open back of the hall, round its last pillars, where a camera looking in sees
    // the lower part come down.
    let x0 = place.range(-6.0, 6.0) as f32;
    let z0 = place.range(-9.0, -6.5) as f32;
    let x1 = x0 + place.range(-5.0, 5.0) as f32;
    let z1 = z0 + place.range(-1.5, 1.5) as f32;
    let top = [x0, CLOUD_HEIGHT_WORLD, z0];
    let ground = [x1, 0.0, z1];

    // Its path now: midpoint displacement, halving the wander at each level.
    let restrike = (age_s * RESTRIKE_HZ).floor() as u64;
    let mut path = generator(seed, strike, restrike);
    let mut points = [[0.0_f32; 3]; BOLT_POINTS];
    points[0] = top;
    points[BOLT_POINTS - 1] = ground;
    let span = ((x1 - x0).powi(2) + CLOUD_HEIGHT_WORLD.powi(2) + (z1 - z0).powi(2)).sqrt();
    let mut wander = JITTER_SHARE * span;
    let mut stride = BOLT_POINTS - 1;
    while stride > 1 {
        let half = stride / 2;
        for start in (0..BOLT_POINTS - 1).step_by(stride) {
            let (a, b) = (points[start], points[start + stride]);
            let mut mid = [0.0; 3];
            for axis in 0..3 {
                // Less wander up and down than across: the arc keeps falling.
                let share = if axis == 1 { 0.3 } else { 1.0 };
                mid[axis] =
                    (a[axis] + b[axis]) * 0.5 + wander * share * path.range(-1.0, 1.0) as f32;
            }
            points[start + half] = mid;
        }
        wander *= 0.5;
        stride = half;
    }
    let fade = 1.0 - (age_s / BOLT_LIFE_S) as f32;
    let flicker = 0.6 + 0.4 * path.next_f64() as f32;
    Some(Bolt {
        points,
        brightness: fade * flicker,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bolt_lives_for_its_life_and_takes_a_new_path_sixteen_times_a_second() {
        assert!(bolt_at(7, 1, 6.5, 6.49).is_none());
        assert!(bolt_at(7, 1, 6.5, 6.9).is_none());
        let first = bolt_at(7, 1, 6.5, 6.5).unwrap();
        // Within one sixteenth of a second, the same path (only the brightness fades).
        let same = bolt_at(7, 1, 6.5, 6.5 + 0.06).unwrap();
        assert_eq!(first.points, same.points);
        assert!(same.brightness < first.brightness);
        let next = bolt_at(7, 1, 6.5, 6.5 + 0.07).unwrap();
        assert_ne!(first.points, next.points);
        // Both ends stay put; another strike strikes elsewhere.
        assert_eq!(first.points[0], next.points[0]);
        assert_eq!(first.points[BOLT_POINTS - 1], next.points[BOLT_POINTS - 1]);
        let other = bolt_at(7, 2, 6.5, 6.5).unwrap();
        assert_ne!(first.points[0], other.points[0]);
        assert_eq!(first.points[BOLT_POINTS - 1][1], 0.0);
    }

    #[test]
    fn the_points_wander_within_the_jitter_of_the_straight_line() {
        for strike in 1..20 {
            let bolt = bolt_at(3, strike, 1.0, 1.1).unwrap();
            let (a, b) = (bolt.points[0], bolt.points[BOLT_POINTS - 1]);
            let span =
                ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2) + (b[2] - a[2]).powi(2)).sqrt();
            for (k, p) in bolt.points.iter().enumerate() {
                let t = k as f32 / (BOLT_POINTS - 1) as f32;
                let on_line = [0, 1, 2].map(|i| a[i] + (b[i] - a[i]) * t);
                let off = ((p[0] - on_line[0]).powi(2)
                    + (p[1] - on_line[1]).powi(2)
                    + (p[2] - on_line[2]).powi(2))
                .sqrt();
                // The displacements add up to at most twice the first level's, on each axis.
                assert!(off <= 2.0 * JITTER_SHARE * span * 3f32.sqrt(), "{off}");
            }
        }
    }
}
