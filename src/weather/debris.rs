//! Debris: wind-borne streaks (leaves, grit) near the camera. None below
//! [`DEBRIS_CALM_WORLD_PER_S`] of wind, all [`DEBRIS_MAX`] at [`DEBRIS_FULL_WORLD_PER_S`], in
//! between as many as the wind's share of that span. Like the rain, each piece is a hash of its
//! index and the absolute time, with no state: piece `i` lives [`DEBRIS_LIFE_S`], starts at a
//! place drawn from its index and the number of lives so far, upwind round the eye, and is
//! carried by the wind. The `rain` pass draws them (shaders/rain.wgsl, `rain_debris`); this is
//! the CPU twin, operation for operation alike. keep in sync with shaders/rain.wgsl.

use crate::weather::rain::{RAIN_CLEAR_WORLD, Streak, hash};

/// Pieces at full wind. keep in sync with shaders/rain.wgsl: DEBRIS_MAX
pub const DEBRIS_MAX: u32 = 48;
/// Wind below which nothing is blown about, world units per second.
pub const DEBRIS_CALM_WORLD_PER_S: f32 = 6.0;
/// Wind at which all [`DEBRIS_MAX`] pieces fly, world units per second.
pub const DEBRIS_FULL_WORLD_PER_S: f32 = 11.0;
/// How long one piece flies before it starts again elsewhere, seconds.
/// keep in sync with shaders/rain.wgsl: DEBRIS_LIFE_S
pub const DEBRIS_LIFE_S: f32 = 1.2;
/// Half the side of the square round the eye the pieces start in, world units.
/// keep in sync with shaders/rain.wgsl: DEBRIS_RADIUS_WORLD
pub const DEBRIS_RADIUS_WORLD: f32 = 5.0;
/// The shutter time a piece's streak shows, seconds. keep in sync with shaders/rain.wgsl:
/// DEBRIS_STREAK_S
pub const DEBRIS_STREAK_S: f32 = 0.04;

/// Pieces drawn in a wind of `speed_world_per_s`.
pub fn debris_drawn(speed_world_per_s: f32) -> u32 {
    let span = DEBRIS_FULL_WORLD_PER_S - DEBRIS_CALM_WORLD_PER_S;
    let share = ((speed_world_per_s - DEBRIS_CALM_WORLD_PER_S) / span).clamp(0.0, 1.0);
    if share.is_nan() {
        return 0;
    }
    (share * DEBRIS_MAX as f32).floor() as u32
}

/// A hash's top 24 bits as a value in 0..1 (the rain's `unit`).
fn unit(h: u32) -> f32 {
    (h >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// Piece `index` at `time_s` seen from `eye_world` in the wind `wind_world_per_s` (x, z);
/// `None` when it is not drawn (beyond the count for this wind, or nearer the eye than the
/// rain's clear distance).
///
/// keep in sync with shaders/rain.wgsl: rain_debris
pub fn debris_at(
    index: u32,
    time_s: f32,
    eye_world: [f32; 3],
    wind_world_per_s: [f32; 2],
) -> Option<Streak> {
    let [wx, wz] = wind_world_per_s;
    if index >= debris_drawn((wx * wx + wz * wz).sqrt()) {
        return None;
    }
    let start = hash(index.wrapping_mul(0x85eb_ca6b) ^ 0xc2b2_ae35);
    let lived = time_s / DEBRIS_LIFE_S + unit(start);
    let lives = lived.floor();
    let age_s = (lived - lives) * DEBRIS_LIFE_S;
    let place = hash(start ^ hash(lives as i32 as u32));
    let across = hash(place);
    let up = hash(across);
    // Start upwind by half a life's travel, so the pieces cross the eye's square.
    let x = eye_world[0]
        + (unit(place) * 2.0 - 1.0) * DEBRIS_RADIUS_WORLD
        + wx * (age_s - DEBRIS_LIFE_S * 0.5);
    let z = eye_world[2]
        + (unit(across) * 2.0 - 1.0) * DEBRIS_RADIUS_WORLD
        + wz * (age_s - DEBRIS_LIFE_S * 0.5);
    let y = 0.2 + unit(up) * 2.5 + 0.3 * (age_s * 7.0 + unit(up) * 6.0).sin();
    let to_eye = [x - eye_world[0], y - eye_world[1], z - eye_world[2]];
    let distance = (to_eye[0] * to_eye[0] + to_eye[1] * to_eye[1] + to_eye[2] * to_eye[2]).sqrt();
    if distance < RAIN_CLEAR_WORLD {
        return None;
    }
    Some(Streak {
        head_world: [x, y, z],
        tail_world: [x - wx * DEBRIS_STREAK_S, y, z - wz * DEBRIS_STREAK_S],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const EYE: [f32; 3] = [0.0, 4.8, 12.5];

    fn count(wind: [f32; 2]) -> usize {
        (0..DEBRIS_MAX)
            .filter(|&i| debris_at(i, 3.0, EYE, wind).is_some())
            .count()
    }

    #[test]
    fn none_below_six_units_per_second_all_at_eleven() {
        assert_eq!(debris_drawn(0.0), 0);
        assert_eq!(debris_drawn(5.99), 0);
        assert_eq!(debris_drawn(6.0), 0);
        assert_eq!(debris_drawn(8.5), DEBRIS_MAX / 2);
        assert_eq!(debris_drawn(11.0), DEBRIS_MAX);
        assert_eq!(debris_drawn(40.0), DEBRIS_MAX);
        assert_eq!(debris_drawn(f32::NAN), 0);
        assert_eq!(count([3.0, 4.0]), 0);
        assert_eq!(count([0.0, -5.9]), 0);
        assert!(count([11.0, 0.0]) > DEBRIS_MAX as usize * 3 / 4);
    }

    #[test]
    fn a_piece_is_carried_by_the_wind_and_the_same_at_the_same_moment() {
        let wind = [9.0, -3.0];
        let a = debris_at(3, 2.0, EYE, wind).unwrap();
        assert_eq!(debris_at(3, 2.0, EYE, wind), Some(a));
        let b = debris_at(3, 2.0 + 1.0 / 60.0, EYE, wind).unwrap();
        let moved = [
            b.head_world[0] - a.head_world[0],
            b.head_world[2] - a.head_world[2],
        ];
        assert!((moved[0] - 9.0 / 60.0).abs() < 1e-3 && (moved[1] + 3.0 / 60.0).abs() < 1e-3);
        // Its streak trails it, upwind.
        assert!(a.tail_world[0] < a.head_world[0] && a.tail_world[2] > a.head_world[2]);
    }
}
