//! What the weather does to the uniforms every world pass shares: gloom closes the distance
//! fog's far end and turns its colour and the ambient light toward the storm's, the sky's fog
//! density becomes the exponential fog's, and a lightning flash brightens the ambient.
//!
//! Worked out on the CPU once per frame from [`WeatherFrame`]; a scene without weather never
//! reaches this module, so its uniforms are exactly what they were before weather existed.

use crate::frame::WeatherFrame;
use crate::gpu::common::{scale, srgb_to_linear};
use crate::gpu::distance_fog::DistanceFogParams;
use crate::scene::Scene;

/// Share of the flash's ambient boost that lights the sky behind everything and the distance
/// fog, per channel: a cold, blue-white light.
const SKY_FLASH_SHARE: [f32; 3] = [0.2, 0.21, 0.25];

/// `rgb` lit by a flash of `flash` (0..=1) whose ambient boost is `flash_ambient`.
fn flashed(rgb: [f32; 3], flash: f32, flash_ambient: f32) -> [f32; 3] {
    [0, 1, 2].map(|i| rgb[i] + flash * flash_ambient * SKY_FLASH_SHARE[i])
}

/// The scene's numbers the weather blends between, converted to linear light once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WeatherLook {
    clear_fog: DistanceFogParams,
    storm_fog_linear: [f32; 3],
    far_share: f32,
    clear_ambient_linear: [f32; 3],
    background_linear: [f32; 3],
    storm_ambient_linear: [f32; 3],
    flash_ambient: f32,
}

/// `a` to `b` by `t`.
fn mix3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

impl WeatherLook {
    /// The look of `scene`'s weather; `None` when it has none.
    pub(crate) fn new(scene: &Scene) -> Option<Self> {
        let weather = scene.weather.as_ref()?;
        let ambient = &scene.lights.ambient;
        Some(WeatherLook {
            clear_fog: DistanceFogParams::new(&scene.distance_fog),
            storm_fog_linear: srgb_to_linear(weather.storm_fog_color),
            far_share: weather.gloom_far_share,
            clear_ambient_linear: scale(srgb_to_linear(ambient.color), ambient.intensity),
            background_linear: srgb_to_linear(scene.background),
            storm_ambient_linear: scale(
                srgb_to_linear(weather.storm_ambient_color),
                weather.storm_ambient_intensity,
            ),
            flash_ambient: weather.lightning.flash_ambient,
        })
    }

    /// The distance fog in this frame's weather: the far end closed in by the gloom (never
    /// nearer than `near`), the colour turned toward the storm's and lit by a flash, and the
    /// sky's fog density as the exponential modes' extinction.
    pub(crate) fn distance_fog(&self, weather: &WeatherFrame) -> DistanceFogParams {
        let mut fog = self.clear_fog;
        let [near, far] = [fog.range[0], fog.range[1]];
        fog.range[1] = (far * (1.0 - self.far_share * weather.gloom)).max(near);
        fog.range[3] = weather.fog_density;
        let clouded = mix3(
            [fog.color[0], fog.color[1], fog.color[2]],
            self.storm_fog_linear,
            weather.gloom,
        );
        // The flash lights the fog as it lights the sky, so the horizon stays one.
        let [r, g, b] = flashed(clouded, weather.flash, self.flash_ambient);
        fog.color = [r, g, b, fog.color[3]];
        fog
    }

    /// The sky behind everything (linear) in this frame's weather: the scene's background
    /// clouding over toward the storm's fog colour with the gloom, so the horizon meets the far
    /// end's fog, and lit by a flash.
    pub(crate) fn sky(&self, weather: &WeatherFrame) -> [f32; 3] {
        let clouded = mix3(self.background_linear, self.storm_fog_linear, weather.gloom);
        flashed(clouded, weather.flash, self.flash_ambient)
    }

    /// The ambient light (linear) in this frame's weather: the clear and storm ambients blended
    /// by the gloom, plus the flash.
    pub(crate) fn ambient(&self, weather: &WeatherFrame) -> [f32; 3] {
        let blended = mix3(
            self.clear_ambient_linear,
            self.storm_ambient_linear,
            weather.gloom,
        );
        blended.map(|c| c + weather.flash * self.flash_ambient)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Weather;

    fn frame(gloom: f32, flash: f32) -> WeatherFrame {
        WeatherFrame {
            fog_density: 0.014,
            gloom,
            rain: 0.0,
            wetness: 0.0,
            flash,
            wind_world_per_s: [0.0; 2],
            drift_world: [0.0; 2],
            noise_drift_world: [0.0; 3],
            fog_light: 1.0,
            last_strike: None,
        }
    }

    #[test]
    fn gloom_closes_the_far_end_and_turns_the_colours_toward_the_storm() {
        let mut scene = Scene {
            weather: Some(Weather::default()),
            ..Scene::default()
        };
        let look = WeatherLook::new(&scene).unwrap();
        let clear = look.distance_fog(&frame(0.0, 0.0));
        let storm = look.distance_fog(&frame(1.0, 0.0));
        assert_eq!(clear.range[1], 24.0);
        assert!(
            (storm.range[1] - 24.0 * 0.64).abs() < 1e-4,
            "{:?}",
            storm.range
        );
        assert_eq!(storm.range[3], 0.014);
        let storm_fog = srgb_to_linear(scene.weather.as_ref().unwrap().storm_fog_color);
        assert_eq!(&storm.color[..3], &storm_fog[..]);
        let base = DistanceFogParams::new(&scene.distance_fog);
        assert_eq!(clear.color, base.color);
        // Full gloom never pulls the far end nearer than the near end.
        scene.weather.as_mut().unwrap().gloom_far_share = 1.0;
        let shut = WeatherLook::new(&scene)
            .unwrap()
            .distance_fog(&frame(1.0, 0.0));
        assert_eq!(shut.range[1], shut.range[0]);
        // The flash brightens the ambient by flash_ambient at full strength.
        let dark = look.ambient(&frame(1.0, 0.0));
        let lit = look.ambient(&frame(1.0, 1.0));
        for (d, l) in dark.iter().zip(lit) {
            assert!((l - d - 0.9).abs() < 1e-6);
        }
        // The sky clouds over to the storm's fog colour and lights up in a flash.
        assert_eq!(look.sky(&frame(0.0, 0.0)), srgb_to_linear(scene.background));
        for (sky, fog) in look.sky(&frame(1.0, 0.0)).iter().zip(storm_fog) {
            assert!((sky - fog).abs() < 1e-6);
        }
        assert!(look.sky(&frame(1.0, 1.0))[2] > storm_fog[2] + 0.2);
    }
}
