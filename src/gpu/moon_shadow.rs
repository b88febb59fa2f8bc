//! The moon's shadow map (`lights.directional.shadows`): one orthographic picture of the hall
//! from the directional light, a layer of the lamps' shadow maps (`lamp_lights.rs`) that the
//! `shadow` pass draws (`passes/shadow.rs`) and lamps.wgsl's `moon_shadow` reads, on every
//! surface (`scene.wgsl`, and so `scene_compute.wgsl`) and, with the physical fog medium, in
//! the fog (`medium_in_scattering` in fog.wgsl), where the pillars cut shafts.
//!
//! The picture is fitted to the hall: the floor's square (or the fog's area, if larger) from
//! the lowest to the highest geometry standing on it, with headroom for the ball's jumps and
//! the walkers, seen along the light. Its depth reaches far toward the light, so a hill of the
//! terrain or a block between the moon and the hall still casts. Points outside the picture,
//! such as the terrain beyond the floor, are lit without shadows. A texel holds the
//! orthographic depth (0..1) of the nearest caster, the rasteriser's own depth.

use bytemuck::{Pod, Zeroable};
use glam::camera::rh::{proj::directx, view};
use glam::{Mat4, Vec3};

use crate::gpu::geometry::{Material, build_scene_mesh};
use crate::gpu::lamp_lights::SHADOW_MAP_TEXELS;
use crate::scene::Scene;

/// World units above the tallest geometry on the floor that the picture still covers: the
/// ball's jumps and the walkers' heads.
const CASTER_HEADROOM_WORLD: f32 = 3.0;

/// World units the picture's depth reaches toward the light beyond the hall, for casters
/// outside the fitted box (the terrain's hills, tall blocks).
const TOWARD_LIGHT_WORLD: f32 = 200.0;

/// Texels of margin round the fitted box (the widest filter reads two texels beyond a point).
const MARGIN_TEXELS: f32 = 4.0;

/// The moon's shadow map as the shaders read it: `LampLights::moon`.
///
/// keep in sync with shaders/lamps.wgsl: MoonShadow
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct MoonShadow {
    /// World to the map's clip space (orthographic: w is 1, depth 0..1 from the light).
    pub clip_from_world: [[f32; 4]; 4],
    /// x: its layer in the shadow maps (−1 without moon shadows); y: a texel's width (world
    /// units); z: depth over one world unit along the light; w: unused.
    pub map: [f32; 4],
}

impl MoonShadow {
    /// No moon shadows: the shaders read every point as lit.
    pub(crate) fn none() -> Self {
        MoonShadow {
            clip_from_world: Mat4::IDENTITY.to_cols_array_2d(),
            map: [-1.0, 0.0, 0.0, 0.0],
        }
    }

    /// The map of `scene`'s hall from its directional light, drawn into shadow-map `layer`, or
    /// [`Self::none`] where the scene leaves `lights.directional.shadows` off.
    pub(crate) fn new(scene: &Scene, layer: u32) -> Self {
        if !scene.lights.directional.shadows {
            return Self::none();
        }
        let direction = Vec3::from_array(scene.lights.directional.direction_world()).normalize();
        let (low, high) = fitted_box(scene);
        let centre = (low + high) * 0.5;
        let up = if direction.y.abs() > 0.99 {
            Vec3::Z
        } else {
            Vec3::Y
        };
        let view_from_world = view::look_to_mat4(centre, direction, up);
        // The box's corners seen from the light: x, y across the picture, z along the view
        // (−z ahead, toward where the light goes).
        let mut min = Vec3::splat(f32::MAX);
        let mut max = Vec3::splat(f32::MIN);
        for corner in 0..8u32 {
            let pick = |bit: u32, lo: f32, hi: f32| if corner & bit == 0 { lo } else { hi };
            let point = Vec3::new(
                pick(1, low.x, high.x),
                pick(2, low.y, high.y),
                pick(4, low.z, high.z),
            );
            let seen = view_from_world.transform_point3(point);
            min = min.min(seen);
            max = max.max(seen);
        }
        let texels = SHADOW_MAP_TEXELS as f32;
        let span = (max.x - min.x).max(max.y - min.y).max(1e-3);
        let grow = span * MARGIN_TEXELS / (texels - 2.0 * MARGIN_TEXELS);
        let (x0, x1) = (min.x - grow, max.x + grow);
        let (y0, y1) = (min.y - grow, max.y + grow);
        // Distances ahead of the light's origin: near reaches back toward the light.
        let near = -max.z - TOWARD_LIGHT_WORLD;
        let far = -min.z + 1.0;
        let clip_from_view = directx::orthographic(x0, x1, y0, y1, near, far);
        let texel_world = (x1 - x0).max(y1 - y0) / texels;
        MoonShadow {
            clip_from_world: (clip_from_view * view_from_world).to_cols_array_2d(),
            map: [layer as f32, texel_world, 1.0 / (far - near), 0.0],
        }
    }

    /// Whether the scene has moon shadows.
    pub(crate) fn is_on(&self) -> bool {
        self.map[0] >= 0.0
    }
}

/// The box the moon's picture covers (world): the floor's square, or the fog's area where it
/// is larger, from the lowest geometry on it (or the floor) to the highest plus
/// [`CASTER_HEADROOM_WORLD`].
fn fitted_box(scene: &Scene) -> (Vec3, Vec3) {
    let half = scene.hall.floor_size.max(scene.fog.area) * 0.5;
    let (mut low_y, mut high_y) = (0.0f32, 0.0f32);
    for vertex in build_scene_mesh(scene).vertices {
        let [x, y, z] = vertex.pos_model;
        let on_floor = x.abs() <= half && z.abs() <= half;
        if on_floor && vertex.material != Material::Ball as u32 {
            low_y = low_y.min(y);
            high_y = high_y.max(y);
        }
    }
    (
        Vec3::new(-half, low_y, -half),
        Vec3::new(half, high_y + CASTER_HEADROOM_WORLD, half),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shadowed_scene(pitch_rad: f32, yaw_rad: f32) -> Scene {
        let mut scene = Scene::default();
        scene.lights.directional.shadows = true;
        scene.lights.directional.pitch_rad = pitch_rad;
        scene.lights.directional.yaw_rad = yaw_rad;
        scene
    }

    #[test]
    fn off_unless_the_scene_asks() {
        let moon = MoonShadow::new(&Scene::default(), 3);
        assert!(!moon.is_on());
        assert_eq!(moon, MoonShadow::none());
        let moon = MoonShadow::new(&shadowed_scene(-1.0, 0.6), 3);
        assert!(moon.is_on());
        assert_eq!(moon.map[0], 3.0);
    }

    #[test]
    fn the_hall_fits_inside_the_picture_and_depth_grows_along_the_light() {
        for (pitch, yaw) in [(-1.0, 0.6), (-0.3, 2.0), (-1.57, 0.0), (-0.2, -1.2)] {
            let scene = shadowed_scene(pitch, yaw);
            let moon = MoonShadow::new(&scene, 0);
            let matrix = Mat4::from_cols_array_2d(&moon.clip_from_world);
            let half = scene.hall.floor_size * 0.5;
            let limit = 1.0 - 2.0 * MARGIN_TEXELS / SHADOW_MAP_TEXELS as f32;
            for point in [
                Vec3::new(-half, 0.0, -half),
                Vec3::new(half, 0.0, half),
                Vec3::new(half, 3.5, -half),
                Vec3::new(-half, 3.5, half),
            ] {
                let clip = matrix * point.extend(1.0);
                assert!((clip.w - 1.0).abs() < 1e-6, "orthographic");
                assert!(clip.x.abs() <= limit + 1e-4, "{pitch} {yaw}: {clip}");
                assert!(clip.y.abs() <= limit + 1e-4, "{pitch} {yaw}: {clip}");
                assert!((0.0..1.0).contains(&clip.z), "{pitch} {yaw}: {clip}");
            }
            // A point one world unit further along the light is deeper by the map's rate.
            let direction = Vec3::from_array(scene.lights.directional.direction_world());
            let a = matrix * Vec3::new(0.5, 1.0, 0.2).extend(1.0);
            let b = matrix * (Vec3::new(0.5, 1.0, 0.2) + direction).extend(1.0);
            assert!((b.z - a.z - moon.map[2]).abs() < 1e-5, "{}", b.z - a.z);
            assert!((b.x - a.x).abs() < 1e-5 && (b.y - a.y).abs() < 1e-5);
        }
    }

    #[test]
    fn a_texel_is_the_picture_s_width_over_its_texels() {
        let scene = shadowed_scene(-1.5, 0.0);
        let moon = MoonShadow::new(&scene, 0);
        // Seen from nearly overhead the picture is about the floor's side across.
        let side = scene.hall.floor_size.max(scene.fog.area);
        let texel = moon.map[1];
        assert!(texel > side / SHADOW_MAP_TEXELS as f32, "{texel}");
        assert!(texel < 1.2 * side / SHADOW_MAP_TEXELS as f32, "{texel}");
    }
}
