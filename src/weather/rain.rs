//! Rain: a box of drops round the camera, each drop's place a hash of its index and the
//! absolute time — no state, no random numbers — so the same camera at the same moment sees
//! the same rain at any frame rate. The `rain` pass (shaders/rain.wgsl) computes the drops in
//! its vertex shader; this is its CPU twin, written operation for operation alike, for the
//! tests that speak for the shader. keep in sync with shaders/rain.wgsl.
//!
//! Drop `i` falls through the box `RAIN_HEIGHT_WORLD` high at `RAIN_FALL_WORLD_PER_S`, from a
//! start offset drawn from its index; each time it passes the bottom it comes back at the top
//! at a new place across, drawn from its index and the number of falls so far. Across, the
//! drops are laid on a lattice fixed in the world, carried by the wind's accumulated drift, and
//! wrapped into the square `2 · RAIN_RADIUS_WORLD` wide round the eye, so walking through the
//! rain does not drag it along. A drop is drawn as a streak from where it is back along its
//! motion (the fall and the wind) over `RAIN_STREAK_S`; it is not drawn below the floor, under
//! a pillar's capital, or nearer the eye than `RAIN_CLEAR_WORLD`. How hard it rains is how many
//! drops are drawn: the first `floor(rain · RAIN_DROPS)`. Where a drop meets the floor it
//! splashes for `RAIN_SPLASH_S` ([`splash_at`]), not under a roof.

/// Drops at full rain. keep in sync with shaders/rain.wgsl: RAIN_DROPS
pub const RAIN_DROPS: u32 = 2400;
/// Half the side of the square of rain round the eye, world units.
/// keep in sync with shaders/rain.wgsl: RAIN_RADIUS_WORLD
pub const RAIN_RADIUS_WORLD: f32 = 14.0;
/// Height of the box of rain, centred on the eye, world units.
/// keep in sync with shaders/rain.wgsl: RAIN_HEIGHT_WORLD
pub const RAIN_HEIGHT_WORLD: f32 = 12.0;
/// Fall speed, world units per second. keep in sync with shaders/rain.wgsl: RAIN_FALL_WORLD_PER_S
pub const RAIN_FALL_WORLD_PER_S: f32 = 11.0;
/// The shutter time a streak shows, seconds. keep in sync with shaders/rain.wgsl: RAIN_STREAK_S
pub const RAIN_STREAK_S: f32 = 0.05;
/// No drop is drawn nearer the eye than this, world units.
/// keep in sync with shaders/rain.wgsl: RAIN_CLEAR_WORLD
pub const RAIN_CLEAR_WORLD: f32 = 1.0;
/// Capitals that shelter the rain, at most (the first pillars of the hall).
/// keep in sync with shaders/rain.wgsl: RAIN_MAX_ROOFS
pub const RAIN_MAX_ROOFS: usize = 256;

/// A roof over the floor: an axis-aligned square (a pillar's capital) and the height of its
/// underside; no rain falls below it inside the square.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Roof {
    /// Centre (x, z), world units.
    pub center_world: [f32; 2],
    /// Half the side of the square, world units.
    pub half_world: f32,
    /// Height of the underside, world units.
    pub under_world: f32,
}

/// One drop as drawn: a streak from its head back along its motion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Streak {
    /// Where the drop is now, world units.
    pub head_world: [f32; 3],
    /// Where it was `RAIN_STREAK_S` ago, world units.
    pub tail_world: [f32; 3],
}

/// lowbias32 (Chris Wellons): a full-avalanche 32-bit integer hash.
/// keep in sync with shaders/rain.wgsl: rain_hash
pub fn hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// A hash's top 24 bits as a value in 0..1. keep in sync with shaders/rain.wgsl: rain_unit
fn unit(h: u32) -> f32 {
    (h >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// `x − floor(x)`, WGSL's `fract`.
fn fract(x: f32) -> f32 {
    x - x.floor()
}

/// `value` wrapped into the span `2 · RAIN_RADIUS_WORLD` wide centred on `center`.
fn wrap_round(value: f32, center: f32) -> f32 {
    let span = 2.0 * RAIN_RADIUS_WORLD;
    center + (fract((value - center) / span + 0.5) - 0.5) * span
}

/// Whether `pos_world` is under one of `roofs`.
pub fn sheltered(pos_world: [f32; 3], roofs: &[Roof]) -> bool {
    roofs.iter().take(RAIN_MAX_ROOFS).any(|roof| {
        (pos_world[0] - roof.center_world[0]).abs() < roof.half_world
            && (pos_world[2] - roof.center_world[1]).abs() < roof.half_world
            && pos_world[1] < roof.under_world
    })
}

/// Where drop `index` is in its fall at `time_s`: its seed, how many box heights it has
/// fallen (the whole part counts its falls, each through a new place) and that count; `None`
/// when the rain is too light for it to be drawn.
struct Fall {
    start: u32,
    fallen: f32,
    falls: f32,
}

impl Fall {
    fn of(index: u32, time_s: f32, rain: f32) -> Option<Fall> {
        let drawn = (rain.clamp(0.0, 1.0) * RAIN_DROPS as f32).floor() as u32;
        if index >= drawn {
            return None;
        }
        let start = hash(index.wrapping_mul(0x9e37_79b9) ^ 0x5bd1_e995);
        let fallen = time_s * (RAIN_FALL_WORLD_PER_S / RAIN_HEIGHT_WORLD) + unit(start);
        Some(Fall {
            start,
            fallen,
            falls: fallen.floor(),
        })
    }
}

/// What [`drop_at`] and [`splash_at`] see the rain with at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RainView<'a> {
    /// The absolute time, seconds.
    pub time_s: f32,
    /// The eye, world units.
    pub eye_world: [f32; 3],
    /// The wind's accumulated drift (x, z), world units.
    pub drift_world: [f32; 2],
    /// The wind's velocity (x, z), world units per second.
    pub wind_world_per_s: [f32; 2],
    /// How hard it rains, 0..=1.
    pub rain: f32,
    /// The roofs no rain falls under.
    pub roofs: &'a [Roof],
}

impl RainView<'_> {
    /// Where drop `fall` is at height `y_world` in its current fall, its lattice place carried
    /// by the drift `drift_world` (x, z) and wrapped round the eye; `None` under a roof.
    ///
    /// keep in sync with shaders/rain.wgsl: rain_drop, rain_splash
    fn place(&self, fall: &Fall, drift_world: [f32; 2], y_world: f32) -> Option<[f32; 3]> {
        let across = hash(fall.start ^ hash(fall.falls as i32 as u32));
        let span = 2.0 * RAIN_RADIUS_WORLD;
        let x = wrap_round(unit(across) * span + drift_world[0], self.eye_world[0]);
        let z = wrap_round(
            unit(hash(across)) * span + drift_world[1],
            self.eye_world[2],
        );
        let pos_world = [x, y_world, z];
        (!sheltered(pos_world, self.roofs)).then_some(pos_world)
    }
}

/// Drop `index` as `view` sees it; `None` when it is not drawn.
///
/// keep in sync with shaders/rain.wgsl: rain_drop
pub fn drop_at(index: u32, view: &RainView) -> Option<Streak> {
    let fall = Fall::of(index, view.time_s, view.rain)?;
    let eye = view.eye_world;
    let y = eye[1] + RAIN_HEIGHT_WORLD * 0.5 - (fall.fallen - fall.falls) * RAIN_HEIGHT_WORLD;
    let head = view.place(&fall, view.drift_world, y)?;
    let [x, _, z] = head;
    let to_eye = [x - eye[0], y - eye[1], z - eye[2]];
    let distance = (to_eye[0] * to_eye[0] + to_eye[1] * to_eye[1] + to_eye[2] * to_eye[2]).sqrt();
    if y < 0.0 || distance < RAIN_CLEAR_WORLD {
        return None;
    }
    let wind = view.wind_world_per_s;
    let tail = [
        x - wind[0] * RAIN_STREAK_S,
        y + RAIN_FALL_WORLD_PER_S * RAIN_STREAK_S,
        z - wind[1] * RAIN_STREAK_S,
    ];
    Some(Streak {
        head_world: head,
        tail_world: tail,
    })
}

/// How long a splash shows after its drop meets the floor, seconds.
/// keep in sync with shaders/rain.wgsl: RAIN_SPLASH_S
pub const RAIN_SPLASH_S: f32 = 0.12;
/// A splash's radius as it starts and at the end of its life, world units.
/// keep in sync with shaders/rain.wgsl: RAIN_SPLASH_RADIUS_WORLD
pub const RAIN_SPLASH_RADIUS_WORLD: [f32; 2] = [0.03, 0.16];

/// Where a drop met the floor, and how long ago.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Splash {
    /// Where on the floor (x, 0, z), world units.
    pub center_world: [f32; 3],
    /// Seconds since the drop met the floor, 0..[`RAIN_SPLASH_S`].
    pub age_s: f32,
}

/// The splash of drop `index` as `view` sees it: the drop met the floor (y = 0) less than
/// [`RAIN_SPLASH_S`] ago in its current fall, at the place across where it was then (the
/// wind's drift at that moment), not under a roof; `None` otherwise. A drop meets the floor
/// only when the box of rain reaches it (the eye lower than half the box's height).
///
/// keep in sync with shaders/rain.wgsl: rain_splash
pub fn splash_at(index: u32, view: &RainView) -> Option<Splash> {
    let fall = Fall::of(index, view.time_s, view.rain)?;
    // The share of its fall at which the drop passes y = 0, and the time since.
    let hit = (view.eye_world[1] + RAIN_HEIGHT_WORLD * 0.5) / RAIN_HEIGHT_WORLD;
    let age_s = (fall.fallen - fall.falls - hit) * (RAIN_HEIGHT_WORLD / RAIN_FALL_WORLD_PER_S);
    if !(0.0..RAIN_SPLASH_S).contains(&age_s) {
        return None;
    }
    let (drift, wind) = (view.drift_world, view.wind_world_per_s);
    let drift_then = [drift[0] - wind[0] * age_s, drift[1] - wind[1] * age_s];
    Some(Splash {
        center_world: view.place(&fall, drift_then, 0.0)?,
        age_s,
    })
}

/// The roofs of `hall`: its pillars' capitals (the first [`RAIN_MAX_ROOFS`]).
pub fn roofs(hall: &crate::scene::Hall) -> Vec<Roof> {
    hall.pillars
        .iter()
        .take(RAIN_MAX_ROOFS)
        .map(|&[x, z]| Roof {
            center_world: [x, z],
            half_world: hall.capital_size * 0.5,
            under_world: hall.pillar_height,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Hall;

    const EYE: [f32; 3] = [0.0, 4.8, 12.5];

    /// The rain from `EYE` at `time_s`.
    fn view(
        time_s: f32,
        drift_world: [f32; 2],
        wind_world_per_s: [f32; 2],
        rain: f32,
        roofs: &[Roof],
    ) -> RainView<'_> {
        RainView {
            time_s,
            eye_world: EYE,
            drift_world,
            wind_world_per_s,
            rain,
            roofs,
        }
    }

    fn drops(time_s: f32, rain: f32, roofs: &[Roof]) -> Vec<Streak> {
        (0..RAIN_DROPS)
            .filter_map(|i| drop_at(i, &view(time_s, [3.0, 1.0], [9.0, 2.7], rain, roofs)))
            .collect()
    }

    #[test]
    fn no_drop_is_drawn_under_a_capital_near_the_eye_or_below_the_floor() {
        let hall = Hall::default();
        let roofs = roofs(&hall);
        let mut seen_under_without_roofs = 0;
        for step in 0..120 {
            let time_s = step as f32 / 60.0;
            for drop in drops(time_s, 1.0, &roofs) {
                assert!(!sheltered(drop.head_world, &roofs), "{drop:?}");
                assert!(drop.head_world[1] >= 0.0);
                let d = (0..3)
                    .map(|k| (drop.head_world[k] - EYE[k]).powi(2))
                    .sum::<f32>()
                    .sqrt();
                assert!(d >= RAIN_CLEAR_WORLD);
                assert!((drop.head_world[0] - EYE[0]).abs() <= RAIN_RADIUS_WORLD + 1e-3);
            }
            seen_under_without_roofs += drops(time_s, 1.0, &[])
                .iter()
                .filter(|d| sheltered(d.head_world, &roofs))
                .count();
        }
        // Without the roofs, drops do fall there: the roofs are what keeps them out.
        assert!(seen_under_without_roofs > 20, "{seen_under_without_roofs}");
    }

    #[test]
    fn splashes_come_where_drops_meet_the_floor_and_never_under_a_capital() {
        let hall = Hall::default();
        let roofs = roofs(&hall);
        let (mut splashes, mut under_without_roofs) = (0, 0);
        for step in 0..120 {
            let time_s = step as f32 / 60.0;
            for i in 0..RAIN_DROPS {
                let splash = |roofs: &[Roof]| {
                    splash_at(i, &view(time_s, [3.0, 1.0], [9.0, 2.7], 1.0, roofs))
                };
                if let Some(s) = splash(&roofs) {
                    splashes += 1;
                    assert!(!sheltered(s.center_world, &roofs), "{s:?}");
                    assert!((0.0..RAIN_SPLASH_S).contains(&s.age_s));
                    assert_eq!(s.center_world[1], 0.0);
                }
                if splash(&[]).is_some_and(|s| sheltered(s.center_world, &roofs)) {
                    under_without_roofs += 1;
                }
            }
        }
        // About RAIN_SPLASH_S / fall time of the drops splash at any moment.
        let expected =
            120.0 * RAIN_DROPS as f32 * RAIN_SPLASH_S * RAIN_FALL_WORLD_PER_S / RAIN_HEIGHT_WORLD;
        assert!(
            (splashes as f32 - expected).abs() < expected * 0.2,
            "{splashes} vs {expected}"
        );
        assert!(under_without_roofs > 5, "{under_without_roofs}");
        // A splash is where its drop went under the floor, one step after it was above it.
        let (mut checked, mut index) = (0, 0);
        while checked < 20 && index < RAIN_DROPS {
            for step in 0..240 {
                let t = step as f32 / 60.0;
                let before = drop_at(index, &view(t, [0.0; 2], [0.0; 2], 1.0, &[]));
                let after = splash_at(index, &view(t + 1.0 / 60.0, [0.0; 2], [0.0; 2], 1.0, &[]));
                if let (Some(d), Some(s)) = (before, after)
                    && s.age_s < 1.0 / 60.0
                {
                    assert_eq!(
                        [d.head_world[0], d.head_world[2]],
                        [s.center_world[0], s.center_world[2]]
                    );
                    checked += 1;
                }
            }
            index += 1;
        }
        assert!(checked >= 5, "{checked}");
        // No rain, no splashes.
        assert!(
            (0..RAIN_DROPS)
                .all(|i| splash_at(i, &view(1.0, [0.0; 2], [0.0; 2], 0.0, &[])).is_none())
        );
    }

    #[test]
    fn drops_fall_at_their_speed_and_the_count_follows_the_rain() {
        let full = drops(1.0, 1.0, &[]);
        let light = drops(1.0, 0.25, &[]);
        assert!(full.len() > 1000, "{}", full.len());
        assert!(light.len() * 3 < full.len() && light.len() * 5 > full.len());
        assert!(drops(1.0, 0.0, &[]).is_empty());
        // One step later most drops are 11/60 lower at the same place across.
        let (a, b) = (
            drop_at(5, &view(2.0, [0.0; 2], [0.0; 2], 1.0, &[])),
            drop_at(5, &view(2.0 + 1.0 / 60.0, [0.0; 2], [0.0; 2], 1.0, &[])),
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        assert!((a.head_world[1] - b.head_world[1] - RAIN_FALL_WORLD_PER_S / 60.0).abs() < 1e-3);
        assert_eq!(a.head_world[0], b.head_world[0]);
        // The streak leans with the wind.
        let windy = drop_at(5, &view(2.0, [0.0; 2], [9.0, 0.0], 1.0, &[])).unwrap();
        assert!(windy.tail_world[0] < windy.head_world[0]);
        assert!(windy.tail_world[1] > windy.head_world[1]);
    }
}
