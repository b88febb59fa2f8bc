//! Torches and braziers: fires that burn with a procedural flame and light the hall and the fog.
//!
//! A [`Fire`] is plain scene data: where its flame stands, what holds it (a brazier's bowl on a
//! stand, or a torch on a pole or on a bracket on a pillar), how tall and what colour the flame
//! is, and how its light reaches and flickers. The renderer draws the holder as geometry, the
//! flame as a billboard (shaders/flame.wgsl) and the light in the scene and fog shaders
//! (shaders/fires.wgsl).
//!
//! The flicker is a function of the frame's time and the fire's phase only, so a frame renders
//! the same whenever it is rendered. It is defined once in WGSL (`fire_flicker` in
//! shaders/fires.wgsl); [`fire_flicker`] here is its Rust twin, kept in step by a GPU test.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::f32::consts::TAU;

use super::{Hall, Rgb, hex};

/// Most fires a scene may have: the size of the renderer's fire-light array.
pub const MAX_FIRES: usize = 64;

/// How far (world units) from a pillar's shaft a bracketed torch's flame may stand.
pub const BRACKET_REACH_WORLD: f32 = 1.0;

/// What burns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum FireKind {
    /// A wide iron bowl of coals on a stand that reaches down to the floor.
    #[default]
    Brazier,
    /// A torch: a narrower flame on a stick, held as `mount` says.
    Torch,
}

/// What holds a torch (braziers always stand on their own stand).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum TorchMount {
    /// An iron pole from the floor up to the torch's head.
    #[default]
    Pole,
    /// An iron bracket on the nearest pillar's shaft, which must be within
    /// [`BRACKET_REACH_WORLD`] of the flame.
    Bracket,
}

/// One torch or brazier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Fire {
    /// What burns: `Brazier` or `Torch`. Default: Brazier.
    pub kind: FireKind,
    /// What holds a torch: `Pole` or `Bracket` (on the nearest pillar); braziers ignore it.
    /// Default: Pole.
    pub mount: TorchMount,
    /// The foot of the flame (world): the top of the brazier's coals or of the torch's head.
    /// Its holder is built below it, down to the floor. Default: (0, 1, 0).
    pub position: [f32; 3],
    /// Height of the flame, world units. Default: 0.8.
    pub flame_height: f32,
    /// Colour of the fire (sRGB): the flame's middle tones, its coals and its light. Default:
    /// #ff8c33.
    pub color: Rgb,
    /// Brightness of the flame and its coals, 0 (out) upward. Default: 1.
    pub ember: f32,
    /// Mean intensity of its point light (as `lights.ball.intensity`). Default: 1.5.
    pub light_intensity: f32,
    /// Reach of its light, world units: the light fades to zero there. Default: 5.
    pub light_range: f32,
    /// How much the light and the flame's brightness flicker, 0 (steady) to 1. Default: 0.25.
    pub flicker: f32,
    /// Strength of its glow in the fog round it. Default: 0.6.
    pub glow: f32,
    /// Phase of the flicker and of the flame's motion, radians. None: drawn from the fire's
    /// index by [`default_phase_rad`], so no two fires burn in step. Default: none.
    pub phase_rad: Option<f32>,
}

impl Default for Fire {
    fn default() -> Self {
        Fire {
            kind: FireKind::Brazier,
            mount: TorchMount::Pole,
            position: [0.0, 1.0, 0.0],
            flame_height: 0.8,
            color: hex(0xff8c33),
            ember: 1.0,
            light_intensity: 1.5,
            light_range: 5.0,
            flicker: 0.25,
            glow: 0.6,
            phase_rad: None,
        }
    }
}

impl Fire {
    /// The phase of fire number `index` in the scene's list: its own, or the default one.
    pub fn phase_at_index(&self, index: usize) -> f32 {
        self.phase_rad.unwrap_or_else(|| default_phase_rad(index))
    }

    /// Where its point light sits (world): a third of the way up the flame.
    pub fn light_pos_world(&self) -> [f32; 3] {
        let [x, y, z] = self.position;
        [x, y + self.flame_height * LIGHT_HEIGHT_IN_FLAME, z]
    }

    /// Radius of a brazier's bowl at the rim, world units: the flame's widest plus a margin,
    /// so a bigger fire gets a bigger bowl.
    pub fn brazier_rim_radius_world(&self) -> f32 {
        0.05 + 0.3 * self.flame_height
    }

    /// Its light's intensity at `time_s`, with fire number `index`'s phase.
    pub fn intensity_at(&self, time_s: f32, index: usize) -> f32 {
        self.light_intensity * fire_flicker(time_s, self.phase_at_index(index), self.flicker)
    }
}

/// Where the light sits up the flame, as a fraction of the flame's height.
/// keep in sync with shaders/fires.wgsl: LIGHT_HEIGHT_IN_FLAME
pub const LIGHT_HEIGHT_IN_FLAME: f32 = 0.33;

/// The golden ratio's fractional part: successive multiples of it spread round the circle as
/// evenly as any sequence can (the three-distance theorem), so neighbouring fires get phases
/// far apart and no two of the first [`MAX_FIRES`] fall close together.
const GOLDEN_FRACTION: f64 = 0.618_033_988_749_894_9;

/// The default flicker phase of fire number `index`, in [0, 2π): the index times the golden
/// ratio, wrapped. Deterministic, and never the same for two indices.
pub fn default_phase_rad(index: usize) -> f32 {
    let turns = (0.5 + index as f64 * GOLDEN_FRACTION).fract();
    (turns * f64::from(TAU)) as f32
}

/// The flicker of a fire's light and flame: a multiplier round 1 made of three sines at
/// unrelated rates, shifted by the fire's phase, and never below 0. `amount` is the fire's
/// `flicker` (0 gives a steady 1).
///
/// keep in sync with shaders/fires.wgsl: fire_flicker (the GPU test
/// `flicker_matches_its_wgsl_twin` compares them).
pub fn fire_flicker(time_s: f32, phase_rad: f32, amount: f32) -> f32 {
    let wobble = 0.5 * (time_s * 7.3 + phase_rad).sin()
        + 0.3 * (time_s * 13.1 + phase_rad * 2.0 + 1.3).sin()
        + 0.2 * (time_s * 23.7 + phase_rad * 3.0 + 4.1).sin();
    (1.0 + amount * wobble).max(0.0)
}

/// The pillar a bracketed torch at floor point (`x`, `z`) hangs on: the nearest one whose shaft
/// surface is within [`BRACKET_REACH_WORLD`], as its index and centre. None when there is none.
pub fn bracket_pillar(hall: &Hall, x_world: f32, z_world: f32) -> Option<(usize, [f32; 2])> {
    hall.pillars
        .iter()
        .enumerate()
        .map(|(i, p)| (i, *p, (p[0] - x_world).hypot(p[1] - z_world)))
        .filter(|(_, _, distance)| distance - hall.pillar_radius <= BRACKET_REACH_WORLD)
        // Ties go to the first pillar in the list, so the choice never depends on the sort.
        .min_by(|a, b| a.2.total_cmp(&b.2).then(a.0.cmp(&b.0)))
        .map(|(i, p, _)| (i, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance between two angles round the circle, radians.
    fn circular_gap(a: f32, b: f32) -> f32 {
        let d = (a - b).rem_euclid(TAU);
        d.min(TAU - d)
    }

    #[test]
    fn default_phases_are_in_range_and_spread_apart() {
        let phases: Vec<f32> = (0..MAX_FIRES).map(default_phase_rad).collect();
        assert!(phases.iter().all(|p| (0.0..TAU).contains(p)), "{phases:?}");
        let mut smallest = f32::MAX;
        for (i, a) in phases.iter().enumerate() {
            for b in &phases[i + 1..] {
                smallest = smallest.min(circular_gap(*a, *b));
            }
        }
        // 64 golden-ratio points leave gaps no smaller than about 1 / (φ² · 64) of a turn.
        assert!(
            smallest > 0.03,
            "two default phases only {smallest} rad apart"
        );
        // Neighbours in the list are far apart, not merely distinct.
        assert!(circular_gap(phases[0], phases[1]) > 2.0);
        assert_eq!(default_phase_rad(5), default_phase_rad(5));
    }

    #[test]
    fn two_fires_with_different_phases_flicker_differently() {
        let fire = Fire::default();
        let a: Vec<f32> = (0..120)
            .map(|k| fire.intensity_at(k as f32 / 60.0, 0))
            .collect();
        let b: Vec<f32> = (0..120)
            .map(|k| fire.intensity_at(k as f32 / 60.0, 1))
            .collect();
        let differing = a
            .iter()
            .zip(&b)
            .filter(|(x, y)| (*x - *y).abs() > 0.01)
            .count();
        assert!(differing > 100, "only {differing} of 120 frames differ");
        // The same fire at the same time is the same, every time.
        assert_eq!(fire.intensity_at(1.25, 3), fire.intensity_at(1.25, 3));
        // An explicit phase wins over the index.
        let pinned = Fire {
            phase_rad: Some(1.0),
            ..Fire::default()
        };
        assert_eq!(pinned.intensity_at(0.5, 0), pinned.intensity_at(0.5, 9));
    }

    #[test]
    fn flicker_stays_round_one_and_moves() {
        let mut low = f32::MAX;
        let mut high = f32::MIN;
        let mut sum = 0.0;
        let n = 6000;
        for k in 0..n {
            let f = fire_flicker(k as f32 / 60.0, 0.7, 0.25);
            low = low.min(f);
            high = high.max(f);
            sum += f;
        }
        // The weights sum to 1, so the multiplier stays within 1 ± amount.
        assert!(low >= 0.75 - 1e-6 && high <= 1.25 + 1e-6, "{low}..{high}");
        assert!(high - low > 0.3, "flicker barely moves: {low}..{high}");
        assert!(
            (sum / n as f32 - 1.0).abs() < 0.02,
            "mean {}",
            sum / n as f32
        );
        // No flicker is a steady 1; a huge one never goes negative.
        assert_eq!(fire_flicker(3.3, 1.0, 0.0), 1.0);
        assert!((0..600).all(|k| fire_flicker(k as f32 / 60.0, 0.0, 5.0) >= 0.0));
    }

    /// The temple's ball drives itself through the hall; none of its fires may stand in its way
    /// (the ball does not collide with them) over the whole default clip.
    #[test]
    fn the_temple_fires_stand_clear_of_the_ball() {
        let scene = crate::scene::load(None, &[])
            .map(|loaded| loaded.scene)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(scene.fires.len() >= 4);
        let radius = scene.ball.radius;
        let mut world = crate::world::World::new(&scene);
        let steps = scene.output.frame_count() * 60 / scene.output.fps;
        for _ in 0..steps {
            world.step();
            let [bx, by, bz] = world.ball().pos_world;
            for (i, fire) in scene.fires.iter().enumerate() {
                let [fx, fy, fz] = fire.position;
                let clear = match fire.kind {
                    // The bowl stands on its legs from the floor up.
                    FireKind::Brazier => {
                        (bx - fx).hypot(bz - fz) - radius - fire.brazier_rim_radius_world()
                    }
                    FireKind::Torch => {
                        ((bx - fx).powi(2) + (by - fy).powi(2) + (bz - fz).powi(2)).sqrt()
                            - radius
                            - 0.2
                    }
                };
                assert!(
                    clear > 0.1,
                    "the ball runs into fire {i} at {:?}",
                    [bx, by, bz]
                );
            }
        }
    }

    #[test]
    fn brackets_find_the_nearest_pillar_in_reach() {
        let hall = Hall::default();
        // Just off the +z face of the pillar at (-3.5, -3.5).
        assert_eq!(bracket_pillar(&hall, -3.5, -2.9), Some((0, [-3.5, -3.5])));
        // In the middle of the hall there is none within reach.
        assert_eq!(bracket_pillar(&hall, 0.0, 0.0), None);
    }
}
