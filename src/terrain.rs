//! The hills round the hall: a heightfield from seeded value noise, so a scene can show mist
//! filling low ground while ridges stand clear of it (the height fog of
//! [`crate::scene::DistanceFog`]).
//!
//! The land is a function of (x, z): flat and just below the floor next to the hall, then a
//! valley that rings the hall and meanders with the noise, then ridges whose crests come from
//! ridged fractal noise. It is plain data, deterministic (the lattice values come from
//! [`SplitMix64`] seeded by the scene's seed and the lattice point, never from a clock or a
//! hasher), and knows nothing of the GPU: `gpu::geometry` turns it into triangles.

use crate::rng::SplitMix64;
use crate::scene::Terrain;

/// How far below the hall floor the flat ground next to it lies, world units: low enough that
/// the floor always wins the depth test, too little to see.
pub const SKIRT_DEPTH_WORLD: f32 = 0.03;

/// A lattice value in `[0, 1)` for point (`i`, `j`) of octave `octave`, from the seed alone.
fn lattice(seed: u64, octave: u32, i: i64, j: i64) -> f32 {
    let key = seed
        ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (j as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
        ^ u64::from(octave).wrapping_mul(0x1656_67b1_9e37_79f9);
    (SplitMix64::new(key).next_u64() >> 40) as f32 / (1u64 << 24) as f32
}

/// Value noise in `[0, 1)`: lattice values blended with a smoothstep, `x` and `z` in lattice
/// cells.
fn value_noise(seed: u64, octave: u32, x: f32, z: f32) -> f32 {
    let (xf, zf) = (x.floor(), z.floor());
    let (i, j) = (xf as i64, zf as i64);
    let smooth = |t: f32| t * t * (3.0 - 2.0 * t);
    let (u, v) = (smooth(x - xf), smooth(z - zf));
    let a = lattice(seed, octave, i, j);
    let b = lattice(seed, octave, i + 1, j);
    let c = lattice(seed, octave, i, j + 1);
    let d = lattice(seed, octave, i + 1, j + 1);
    let low = a + (b - a) * u;
    let high = c + (d - c) * u;
    low + (high - low) * v
}

/// Fractal sum of `octaves` of value noise in `[0, 1)`, the first of wavelength
/// `feature_world`, each next one half as large and half as strong.
fn fbm(seed: u64, octaves: u32, feature_world: f32, x: f32, z: f32) -> f32 {
    let mut sum = 0.0;
    let mut weight_sum = 0.0;
    let mut frequency = 1.0 / feature_world.max(1e-3);
    let mut weight = 1.0;
    for octave in 0..octaves.max(1) {
        sum += weight * value_noise(seed, octave, x * frequency, z * frequency);
        weight_sum += weight;
        frequency *= 2.0;
        weight *= 0.5;
    }
    sum / weight_sum
}

fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Height of the land at (`x`, `z`), world units, round a hall floor `floor_size` across.
pub fn height_at(terrain: &Terrain, floor_size: f32, x: f32, z: f32) -> f32 {
    let half_floor = floor_size * 0.5;
    // Distance from the floor's square: 0 on it, growing outward with rounded corners.
    let dx = (x.abs() - half_floor).max(0.0);
    let dz = (z.abs() - half_floor).max(0.0);
    let distance_world = (dx * dx + dz * dz).sqrt();

    let seed = terrain.seed;
    let octaves = terrain.octaves;
    let feature = terrain.feature_size;
    // A second noise bends the valley so it meanders instead of ringing the hall exactly.
    let bend = fbm(seed ^ 0x5eed, 2, feature, x, z) - 0.5;
    let along = distance_world + bend * terrain.valley_width * 0.8;

    let valley_half = (terrain.valley_width * 0.5).max(1e-3);
    let valley_offset = (along - terrain.valley_distance) / valley_half;
    let valley = (-valley_offset * valley_offset).exp();

    // Ridged noise: crests where the noise crosses its middle.
    let n = fbm(seed, octaves, feature, x, z);
    let ridged = 1.0 - (2.0 * n - 1.0).abs();
    let beyond = smoothstep(
        terrain.valley_distance,
        terrain.valley_distance + terrain.valley_width * 1.6,
        along,
    );
    let ridges = terrain.height * beyond * (0.25 + 0.75 * ridged * ridged);

    // Gentle swells everywhere but on the flat next to the floor.
    let swell = (n - 0.5) * 0.12 * (terrain.height + terrain.valley_depth);
    let away = smoothstep(
        terrain.margin,
        terrain.margin + terrain.valley_distance * 0.5,
        distance_world,
    );
    -SKIRT_DEPTH_WORLD + away * (ridges + swell - terrain.valley_depth * valley * (0.8 + 0.4 * n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_land_other_seed_other_land() {
        let terrain = Terrain::default();
        let other = Terrain {
            seed: 2,
            ..Terrain::default()
        };
        let points: Vec<(f32, f32)> = (0..200)
            .map(|k| (k as f32 * 0.83 - 80.0, 40.0 - k as f32 * 0.61))
            .collect();
        let a: Vec<f32> = points
            .iter()
            .map(|&(x, z)| height_at(&terrain, 24.0, x, z))
            .collect();
        let b: Vec<f32> = points
            .iter()
            .map(|&(x, z)| height_at(&terrain, 24.0, x, z))
            .collect();
        let c: Vec<f32> = points
            .iter()
            .map(|&(x, z)| height_at(&other, 24.0, x, z))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().all(|h| h.is_finite()));
    }

    #[test]
    fn flat_by_the_floor_a_valley_then_ridges() {
        let terrain = Terrain::default();
        let floor = 24.0;
        // On and right next to the floor: just below it.
        for (x, z) in [(0.0, 0.0), (11.0, -5.0), (12.5, 0.0), (-3.0, -12.8)] {
            let h = height_at(&terrain, floor, x, z);
            assert!((h + SKIRT_DEPTH_WORLD).abs() < 1e-6, "({x}, {z}): {h}");
        }
        // Round the hall: the lowest ground lies below the floor by most of the valley's
        // depth, and the highest beyond it rises well above the floor.
        let mut lowest = f32::MAX;
        let mut highest = f32::MIN;
        for k in 0..720 {
            let angle = k as f32 * std::f32::consts::TAU / 720.0;
            for r in 1..70 {
                let reach = 12.0 + r as f32;
                let (x, z) = (reach * angle.cos(), reach * angle.sin());
                let h = height_at(&terrain, floor, x, z);
                lowest = lowest.min(h);
                highest = highest.max(h);
            }
        }
        assert!(lowest < -0.7 * terrain.valley_depth, "lowest {lowest}");
        assert!(lowest > -1.3 * terrain.valley_depth, "lowest {lowest}");
        assert!(highest > 0.6 * terrain.height, "highest {highest}");
        assert!(highest <= terrain.height * 1.1, "highest {highest}");
    }

    #[test]
    fn the_valley_scene_loads_clean_with_height_fog_and_land() {
        use crate::scene::{FogMode, load};
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/valley.ron");
        let sets = ["distance_fog.mode=exponential_squared".to_string()];
        for sets in [&sets[..0], &sets[..]] {
            let loaded = load(Some(&path), sets).unwrap_or_else(|e| panic!("{e:?}"));
            assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
            let scene = loaded.scene;
            let fog = &scene.distance_fog;
            assert!(fog.height_falloff > 0.0 && fog.base_height < 0.0);
            let expected = if sets.is_empty() {
                FogMode::Exponential
            } else {
                FogMode::ExponentialSquared
            };
            assert_eq!(fog.mode, expected);
            let terrain = scene.hall.terrain.as_ref().expect("the valley has land");
            // The valley floor lies below the fog's base height, the ridges far above it.
            assert!(-terrain.valley_depth < fog.base_height);
            assert!(terrain.height > fog.base_height + 3.0 / fog.height_falloff);
            assert!(!scene.hall.blocks.is_empty());
        }
    }

    #[test]
    fn noise_stays_in_range() {
        for k in 0..10_000 {
            let x = k as f32 * 0.377 - 1000.0;
            let z = k as f32 * -0.291 + 500.0;
            let v = value_noise(3, 0, x, z);
            assert!((0.0..1.0).contains(&v), "{v}");
            let f = fbm(3, 5, 7.0, x, z);
            assert!((0.0..1.0).contains(&f), "{f}");
        }
    }
}
