//! The scene's fires as the GPU sees them: one fixed-size uniform array of lights with a count,
//! written once per renderer and bound at group 0, binding 1 beside the frame uniforms, so the
//! `scene`, `fog` and `flame` passes (and a compute pass later) all read the same fires
//! (shaders/fires.wgsl).
//!
//! Nothing here changes per frame: the flicker and the flame's motion are functions of the
//! frame's time and each fire's phase, worked out in the shaders (the flicker once per frame,
//! by the `fire_flicker` pass, `passes/fire_flicker.rs`).

use bytemuck::{Pod, Zeroable};

use crate::gpu::common::{extend, scale, srgb_to_linear};
use crate::scene::fires::MAX_FIRES;
use crate::scene::{FireKind, Scene};

/// Entries in the fire array: every fire a valid scene may have.
pub(crate) const MAX_FIRE_LIGHTS: usize = 64;
const _: () = assert!(MAX_FIRE_LIGHTS == MAX_FIRES);

/// How much wider a brazier's flame is than a torch's of the same height.
const BRAZIER_FLAME_WIDTH: f32 = 1.7;

/// One fire.
///
/// keep in sync with shaders/fires.wgsl: FireLight
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct FireLight {
    /// xyz: the foot of the flame (world); w: the light's range (world units).
    pub foot_world: [f32; 4],
    /// rgb: light colour × mean intensity (linear); w: phase (radians).
    pub light_color: [f32; 4],
    /// rgb: the fire's colour (linear); w: ember strength.
    pub flame_color: [f32; 4],
    /// x: flame height; y: flicker amount; z: glow in the fog; w: flame width relative to a
    /// torch's.
    pub shape: [f32; 4],
}

/// Every fire of a scene, and how many there are.
///
/// keep in sync with shaders/fires.wgsl: FireLights
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct FireLights {
    /// x: how many entries of `fires` are used.
    pub count: [u32; 4],
    pub fires: [FireLight; MAX_FIRE_LIGHTS],
}

impl FireLights {
    /// The fires of `scene`, phases resolved. A scene that passed validation has at most
    /// [`MAX_FIRE_LIGHTS`]; any beyond are left out.
    pub(crate) fn new(scene: &Scene) -> Self {
        let mut lights = FireLights::zeroed();
        let used = scene.fires.len().min(MAX_FIRE_LIGHTS);
        for (index, fire) in scene.fires.iter().take(used).enumerate() {
            let color_linear = srgb_to_linear(fire.color);
            let width = match fire.kind {
                FireKind::Brazier => BRAZIER_FLAME_WIDTH,
                FireKind::Torch => 1.0,
            };
            lights.fires[index] = FireLight {
                foot_world: extend(fire.position, fire.light_range),
                light_color: extend(
                    scale(color_linear, fire.light_intensity),
                    fire.phase_at_index(index),
                ),
                flame_color: extend(color_linear, fire.ember),
                shape: [fire.flame_height, fire.flicker, fire.glow, width],
            };
        }
        lights.count[0] = used as u32;
        lights
    }

    /// How many fires are in use.
    pub(crate) fn count(&self) -> u32 {
        self.count[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Fire;
    use crate::scene::fires::default_phase_rad;

    #[test]
    fn size_matches_the_wgsl_layout() {
        // A count vec4 (16) and 64 fires of four vec4 (64 each).
        assert_eq!(std::mem::size_of::<FireLights>(), 16 + 64 * 64);
    }

    #[test]
    fn scene_fires_become_lights_with_resolved_phases() {
        let mut scene = Scene::default();
        assert_eq!(FireLights::new(&scene).count(), 0);
        scene.fires = vec![
            Fire::default(),
            Fire {
                kind: FireKind::Torch,
                phase_rad: Some(1.5),
                color: [1.0, 0.5, 0.0],
                light_intensity: 2.0,
                ..Fire::default()
            },
        ];
        let lights = FireLights::new(&scene);
        assert_eq!(lights.count(), 2);
        assert_eq!(lights.fires[0].light_color[3], default_phase_rad(0));
        assert_eq!(lights.fires[1].light_color[3], 1.5);
        assert_eq!(lights.fires[0].shape[3], BRAZIER_FLAME_WIDTH);
        assert_eq!(lights.fires[1].shape[3], 1.0);
        // sRGB 0.5 is about 0.214 linear, times the intensity 2.
        assert!((lights.fires[1].light_color[1] - 0.428).abs() < 1e-3);
        assert_eq!(lights.fires[2], FireLight::zeroed());
    }
}
