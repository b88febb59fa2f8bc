//! The sky and the water as uniforms: the scene's `clouds` and `water` sections, and this
//! frame's weather and camera, turned into [`SkyParams`] for shaders/sky.wgsl.
//!
//! The clouds drift by the weather's accumulated wind drift ([`crate::weather::WeatherState`]'s
//! `drift_world`, the one wind) and close over with its gloom; without weather they stand
//! still. The camera's share of water, 0 in the air and 1 under water, is worked out here from
//! the camera's height, once per sample ([`water_share`]). Both are functions of the world's
//! 60 Hz state and the camera, never of the output frame rate.
//!
//! [`SkyParams`] rides in the frame uniforms (`FrameUniforms::sky`), written each sample, so
//! the mirrored camera of the `reflection` pass sees the same clouds and the picture's camera's
//! share of water. Scenes without clouds or water set sky.wgsl's `SKY_CLOUDS` and
//! `WATER_IN_SCENE` off ([`sky_constants`]), so their code is compiled out and their pictures
//! keep their bytes; their `sky` is zeros.

use bytemuck::{Pod, Zeroable};

use crate::frame::WeatherFrame;
use crate::gpu::common::{extend, srgb_to_linear};
use crate::gpu::weather::WeatherLook;
use crate::scene::Scene;

/// Lattice cells of the clouds' first noise octave across one tile of the pattern; the pattern
/// repeats every tile, so the drift is wrapped into one tile exactly.
///
/// keep in sync with shaders/sky.wgsl: `cloud_fbm` reads it from `cloud_layout.w`
pub(crate) const CLOUD_CELLS_PER_TILE: u32 = 8;

/// How far away, in cloud altitudes, the clouds fade into the sky's base colour (1/e), so the
/// layer thins toward the horizon instead of shimmering there.
const CLOUD_FADE_ALTITUDES: f32 = 5.0;

/// The sky's and the water's uniforms: `FrameUniforms::sky`.
///
/// keep in sync with shaders/sky.wgsl: SkyParams
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct SkyParams {
    /// rgb: the sky's base colour behind the clouds (linear): the background, or the weather's
    /// sky; w: unused.
    pub base: [f32; 4],
    /// rgb: the clouds' colour now (linear, turned toward the storm's by the gloom); w: their
    /// coverage now, 0..=1 (raised by the gloom).
    pub cloud_color: [f32; 4],
    /// x: the layer's height (world); y: one tile of the pattern (world units); z: softness;
    /// w: noise cells across a tile ([`CLOUD_CELLS_PER_TILE`]).
    pub cloud_layout: [f32; 4],
    /// xy: how far the pattern has drifted (x, z), wrapped into one tile (world units); z: 1 /
    /// the distance over which the clouds fade into the base colour (1/world unit); w: unused.
    pub cloud_offset: [f32; 4],
    /// rgb: the colour light converges to under water (linear); w: the water's extinction,
    /// 1/world unit.
    pub water_color: [f32; 4],
    /// x: the camera's share of water, 0 (air) to 1 (under water) ([`water_share`]); y, z, w:
    /// unused.
    pub water_view: [f32; 4],
}

/// sky.wgsl's pipeline constants for `scene`: `WATER_IN_SCENE` and `SKY_CLOUDS`, each on only
/// where the scene names the section, so a scene without them compiles their code out.
pub(crate) fn sky_constants(scene: &Scene) -> [(&'static str, f64); 2] {
    [
        ("WATER_IN_SCENE", f64::from(u8::from(scene.water.is_some()))),
        ("SKY_CLOUDS", f64::from(u8::from(scene.clouds.is_some()))),
    ]
}

/// How far the cloud pattern has drifted: the wind's accumulated drift (x, z), wrapped into one
/// tile of `tile_world` (the pattern repeats every tile, so wrapping moves nothing), in f64 so
/// a long clip keeps its precision. No weather: no drift.
pub(crate) fn cloud_offset_world(weather: Option<&WeatherFrame>, tile_world: f32) -> [f32; 2] {
    let drift = weather.map_or([0.0; 2], |w| w.drift_world);
    drift.map(|d| f64::from(d).rem_euclid(f64::from(tile_world)) as f32)
}

/// The camera's share of water at height `eye_y_world`: 0 above `surface + depth / 2`, 1 below
/// `surface − depth / 2`, a smoothstep between, so the camera crosses from air to water over
/// the transition depth.
pub(crate) fn water_share(eye_y_world: f32, surface_world: f32, transition_world: f32) -> f32 {
    let half = 0.5 * transition_world;
    let t = ((surface_world + half - eye_y_world) / transition_world).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The clouds' and the water's look, converted once from the scene.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SkyLook {
    background_linear: [f32; 3],
    weather: Option<WeatherLook>,
    /// Lit colour and storm colour (linear); coverage, altitude, tile, softness.
    clouds: Option<([f32; 3], [f32; 3], [f32; 4])>,
    /// Colour (linear); density, surface height, transition depth.
    water: Option<([f32; 3], [f32; 3])>,
}

impl SkyLook {
    /// The look of `scene`'s sky; `None` when it has neither clouds nor water.
    pub(crate) fn new(scene: &Scene) -> Option<Self> {
        if scene.clouds.is_none() && scene.water.is_none() {
            return None;
        }
        Some(SkyLook {
            background_linear: srgb_to_linear(scene.background),
            weather: WeatherLook::new(scene),
            clouds: scene.clouds.as_ref().map(|c| {
                let tile = c.scale * CLOUD_CELLS_PER_TILE as f32;
                (
                    srgb_to_linear(c.color),
                    srgb_to_linear(c.storm_color),
                    [c.coverage, c.altitude, tile, c.softness],
                )
            }),
            water: scene.water.as_ref().map(|w| {
                (
                    srgb_to_linear(w.color),
                    [w.density, w.surface_height, w.transition_depth],
                )
            }),
        })
    }

    /// The uniforms for a sample seen from `eye_world` in `weather` (`None` without weather).
    pub(crate) fn params(&self, eye_world: [f32; 3], weather: Option<&WeatherFrame>) -> SkyParams {
        let base = match (&self.weather, weather) {
            (Some(look), Some(weather)) => look.sky(weather),
            _ => self.background_linear,
        };
        let gloom = weather.map_or(0.0, |w| w.gloom);
        let mut params = SkyParams {
            base: extend(base, 1.0),
            ..SkyParams::zeroed()
        };
        if let Some((lit, storm, [coverage, altitude, tile, softness])) = self.clouds {
            let color = [0, 1, 2].map(|i| lit[i] + (storm[i] - lit[i]) * gloom);
            let covered = coverage + (1.0 - coverage) * gloom;
            params.cloud_color = extend(color, covered);
            let cells = CLOUD_CELLS_PER_TILE as f32;
            params.cloud_layout = [altitude, tile, softness, cells];
            let [x, z] = cloud_offset_world(weather, tile);
            params.cloud_offset = [x, z, 1.0 / (CLOUD_FADE_ALTITUDES * altitude), 0.0];
        }
        if let Some((color, [density, surface, transition])) = self.water {
            params.water_color = extend(color, density);
            params.water_view[0] = water_share(eye_world[1], surface, transition);
        }
        params
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Clouds, Water, Weather};
    use crate::weather::WeatherState;

    /// A weather frame with nothing carried, no gloom and no flash.
    fn calm() -> WeatherFrame {
        WeatherFrame {
            fog_density: 0.003,
            gloom: 0.0,
            rain: 0.0,
            wetness: 0.0,
            flash: 0.0,
            wind_world_per_s: [0.0; 2],
            drift_world: [0.0; 2],
            noise_drift_world: [0.0; 3],
            fog_light: 1.0,
            last_strike: None,
        }
    }

    #[test]
    fn sky_params_match_wgsl_size() {
        // Six vec4.
        assert_eq!(std::mem::size_of::<SkyParams>(), 96);
    }

    /// The cloud offset after `steps` steps of `weather`'s world weather.
    fn offset_after(weather: &Weather, steps: u64, tile: f32) -> ([f32; 2], [f64; 2]) {
        let mut state = WeatherState::new(weather);
        for step in 0..steps {
            state.step(weather, step);
        }
        let frame = WeatherFrame {
            drift_world: state.drift_world.map(|d| d as f32),
            ..calm()
        };
        (cloud_offset_world(Some(&frame), tile), state.drift_world)
    }

    #[test]
    fn the_clouds_drift_by_the_winds_accumulated_drift_wrapped_into_one_tile() {
        let mut weather = Weather::default();
        weather.wind.direction = [1.0, 0.0];
        weather.wind.wander_rad = 0.0;
        let tile = 320.0;
        let (early, early_drift) = offset_after(&weather, 60, tile);
        let (late, late_drift) = offset_after(&weather, 120, tile);
        // Downwind (+x), not across it, by exactly the drift (it has not wrapped yet).
        assert!(early_drift[0] > 1.0, "{early_drift:?}");
        assert!((f64::from(early[0]) - early_drift[0]).abs() < 1e-4);
        assert!(late[0] > early[0], "{early:?} then {late:?}");
        assert!((f64::from(late[0]) - late_drift[0]).abs() < 1e-4);
        assert_eq!([early[1], late[1]], [0.0, 0.0]);
        // Far on, it wraps into one tile and lands where the drift says, modulo the tile.
        let (far, far_drift) = offset_after(&weather, 60 * 200, tile);
        assert!(far_drift[0] > f64::from(tile), "{far_drift:?}");
        assert!((0.0..tile).contains(&far[0]));
        let expected = far_drift[0].rem_euclid(f64::from(tile));
        assert!((f64::from(far[0]) - expected).abs() < 1e-2, "{far:?}");
        // Without weather the clouds stand still.
        assert_eq!(cloud_offset_world(None, tile), [0.0, 0.0]);
    }

    #[test]
    fn gloom_closes_the_clouds_over_and_darkens_them() {
        let scene = Scene {
            clouds: Some(Clouds::default()),
            weather: Some(Weather::default()),
            ..Scene::default()
        };
        let look = SkyLook::new(&scene).unwrap();
        let clear = calm();
        let storm = WeatherFrame {
            gloom: 1.0,
            ..clear
        };
        let calm = look.params([0.0; 3], Some(&clear));
        let dark = look.params([0.0; 3], Some(&storm));
        assert_eq!(calm.cloud_color[3], 0.5);
        assert_eq!(dark.cloud_color[3], 1.0);
        let storm_color = srgb_to_linear(scene.clouds.as_ref().unwrap().storm_color);
        for (cloud, storm) in dark.cloud_color.iter().zip(storm_color) {
            assert!((cloud - storm).abs() < 1e-6, "{dark:?}");
        }
        assert!(calm.cloud_color[1] > dark.cloud_color[1]);
        // The base is the weather's sky, the clear colour the scene pass clears to.
        let weather_look = WeatherLook::new(&scene).unwrap();
        assert_eq!(&dark.base[..3], &weather_look.sky(&storm)[..]);
        // A scene without either has no sky look at all.
        assert!(SkyLook::new(&Scene::default()).is_none());
    }

    #[test]
    fn the_water_share_crosses_smoothly_over_the_transition_depth() {
        let water = Water {
            surface_height: 2.0,
            transition_depth: 0.5,
            ..Water::default()
        };
        let [surface, depth] = [water.surface_height, water.transition_depth];
        assert_eq!(water_share(2.25, surface, depth), 0.0);
        assert_eq!(water_share(5.0, surface, depth), 0.0);
        assert_eq!(water_share(1.75, surface, depth), 1.0);
        assert_eq!(water_share(-3.0, surface, depth), 1.0);
        assert!((water_share(2.0, surface, depth) - 0.5).abs() < 1e-6);
        // Steps of a camera sinking at one world unit a second: no step moves the share by more
        // than the smoothstep's steepest slope (1.5) times the step over the depth.
        let step = 1.0 / 60.0;
        let mut y = 3.0_f32;
        let mut last = water_share(y, surface, depth);
        while y > 1.0 {
            y -= step;
            let now = water_share(y, surface, depth);
            assert!(now >= last && now - last <= 1.5 * step / depth + 1e-5);
            last = now;
        }
        assert_eq!(last, 1.0);
    }
}
