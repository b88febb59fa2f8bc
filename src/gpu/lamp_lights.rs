//! The scene's lamps as the GPU sees them: one fixed-size uniform array of lamps and of their
//! shadow-map faces with a count, written once per renderer and bound at group 0, binding 3
//! beside the frame uniforms, and the shadow maps themselves, one depth texture array bound at
//! binding 4, so the `scene`, `fog`, `fog_compute`, `raymarch` and `flame` passes all read the
//! same lamps (shaders/lamps.wgsl). The `shadow` pass (`passes/shadow.rs`) draws the maps.
//! Where the scene asks for the moon's shadows, the layer after the lamps' faces holds the
//! moon's orthographic map, described by the same uniform (`moon_shadow.rs`).
//!
//! A shadow-map face is a square perspective picture from the lamp: a spot lamp has one that
//! covers its cone, a point lamp six, the faces of a cube. Each face is a little wider than the
//! part of the light it must cover (a few texels of margin each side), so the hand-made
//! filter's taps near a face's edge still read real depths. A texel holds the distance from the
//! lamp to the nearest caster over the lamp's range (0..1), not the projection's depth, so every
//! kind of face is compared in the same way. lamps.wgsl filters the maps by hand (explicit
//! weights: a 4×4 tent on surfaces, 2×2 in the fog), so every adapter gives the same shadows;
//! only the moon's map is read through a comparison sampler, for speed.
//! It reads the texels four at a time with `textureGather` (common.wgsl, `texel_gather`).

use bytemuck::{Pod, Zeroable};
use glam::camera::rh::{proj::directx, view};
use glam::{Mat4, Vec3};

use crate::gpu::common::{extend, scale, srgb_to_linear};
use crate::gpu::moon_shadow::MoonShadow;
use crate::gpu::passes::builder::{ALL_STAGES, PassBuilder};
use crate::scene::Scene;
use crate::scene::lamps::{CONE_SOFT_FRACTION, MAX_LAMPS};

/// Entries in the lamp array: every lamp a valid scene may have.
pub(crate) const MAX_LAMP_LIGHTS: usize = 4;
const _: () = assert!(MAX_LAMP_LIGHTS == MAX_LAMPS);

/// Shadow-map faces: six for each lamp at most.
pub(crate) const MAX_SHADOW_FACES: usize = 6 * MAX_LAMP_LIGHTS;

/// Side of every shadow-map face, texels.
pub(crate) const SHADOW_MAP_TEXELS: u32 = 1024;

/// Texels of margin round the part of the light a face must cover (the widest filter reads two
/// texels beyond its point).
const SHADOW_MARGIN_TEXELS: f32 = 4.0;

/// The shadow maps' format: 32-bit float depth, gathered four texels at a time.
pub(crate) const SHADOW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// `cos` of the outer cone of a point lamp: below any cosine, so every direction is inside.
const POINT_LAMP_CONE_COS: f32 = -2.0;

/// One lamp.
///
/// keep in sync with shaders/lamps.wgsl: LampLight
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct LampLight {
    /// xyz: the lamp (world); w: its range (world units).
    pub pos_world: [f32; 4],
    /// rgb: colour × intensity (linear); w: how strongly the fog scatters it.
    pub color: [f32; 4],
    /// xyz: the unit direction a spot points along; w: cos of the cone's half-angle (−2 for a
    /// point lamp).
    pub spot: [f32; 4],
    /// x: its first shadow-map face (−1 without shadows); y: its faces (0, 1 or 6); z: cos of
    /// the angle where the cone's fade begins; w: a shadow texel's width at one world unit
    /// from the lamp (world units).
    pub shadow: [f32; 4],
}

/// One shadow-map face: the layer of the same index in the shadow maps.
///
/// keep in sync with shaders/lamps.wgsl: LampShadowFace
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct LampShadowFace {
    /// World to the face's clip space (perspective, depth 0..1).
    pub clip_from_world: [[f32; 4]; 4],
    /// x: the lamp it belongs to; y, z, w: unused.
    pub lamp: [u32; 4],
}

/// Every lamp of a scene and every shadow-map face, and how many there are.
///
/// keep in sync with shaders/lamps.wgsl: LampLights
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct LampLights {
    /// x: lamps in use; y: shadow-map faces in use; z, w: unused.
    pub count: [u32; 4],
    pub lamps: [LampLight; MAX_LAMP_LIGHTS],
    pub faces: [LampShadowFace; MAX_SHADOW_FACES],
    /// The moon's shadow map, the layer after the lamps' faces (`moon_shadow.rs`).
    pub moon: MoonShadow,
}

/// The cube's faces: the axis each looks along and its up.
const CUBE_FACES: [(Vec3, Vec3); 6] = [
    (Vec3::X, Vec3::Y),
    (Vec3::NEG_X, Vec3::Y),
    (Vec3::Y, Vec3::Z),
    (Vec3::NEG_Y, Vec3::Z),
    (Vec3::Z, Vec3::Y),
    (Vec3::NEG_Z, Vec3::Y),
];

/// A face looking from `eye` along `forward` that covers `tan_half` either side of its axis
/// (plus the margin), out to `range`; and its texel's width at unit distance.
fn face_matrix(eye: Vec3, forward: Vec3, up: Vec3, tan_half: f32, range: f32) -> (Mat4, f32) {
    let texels = SHADOW_MAP_TEXELS as f32;
    let tan_wide = tan_half * texels / (texels - 2.0 * SHADOW_MARGIN_TEXELS);
    let fov_rad = 2.0 * tan_wide.atan();
    let near = (range * 1e-3).clamp(1e-3, 0.05);
    let view_from_world = view::look_to_mat4(eye, forward, up);
    // Right-handed view space into WebGPU's clip space (depth 0..1, y up), as the camera's.
    let clip_from_view = directx::perspective(fov_rad, 1.0, near, range);
    (clip_from_view * view_from_world, 2.0 * tan_wide / texels)
}

/// An up vector not parallel to `forward`.
fn up_for(forward: Vec3) -> Vec3 {
    if forward.y.abs() > 0.99 {
        Vec3::Z
    } else {
        Vec3::Y
    }
}

impl LampLights {
    /// The lamps of `scene` with their shadow faces. A scene that passed validation has at
    /// most [`MAX_LAMP_LIGHTS`]; any beyond are left out.
    pub(crate) fn new(scene: &Scene) -> Self {
        let mut lights = LampLights::zeroed();
        let used = scene.lamps.len().min(MAX_LAMP_LIGHTS);
        let mut faces = 0usize;
        for (index, lamp) in scene.lamps.iter().take(used).enumerate() {
            let eye = Vec3::from_array(lamp.position);
            let direction = Vec3::from_array(lamp.direction_unit());
            let range = lamp.range.max(1e-3);
            let (cone_cos, inner_cos) = match lamp.cone_deg {
                Some(cone_deg) => {
                    let outer = cone_deg.to_radians();
                    let inner = outer * (1.0 - CONE_SOFT_FRACTION);
                    (outer.cos(), inner.cos())
                }
                None => (POINT_LAMP_CONE_COS, POINT_LAMP_CONE_COS),
            };
            let count = lamp.shadow_faces();
            let first = faces;
            let mut texel_per_world = 0.0;
            for (face, (axis, axis_up)) in CUBE_FACES.into_iter().take(count).enumerate() {
                let (forward, up, tan_half) = match lamp.cone_deg {
                    Some(cone_deg) => (direction, up_for(direction), cone_deg.to_radians().tan()),
                    None => (axis, axis_up, 1.0),
                };
                let (matrix, texel) = face_matrix(eye, forward, up, tan_half, range);
                texel_per_world = texel;
                lights.faces[first + face] = LampShadowFace {
                    clip_from_world: matrix.to_cols_array_2d(),
                    lamp: [index as u32, 0, 0, 0],
                };
            }
            faces += count;
            let first_face = if count > 0 { first as f32 } else { -1.0 };
            lights.lamps[index] = LampLight {
                pos_world: extend(lamp.position, range),
                color: extend(
                    scale(srgb_to_linear(lamp.color), lamp.intensity),
                    lamp.fog_glow,
                ),
                spot: extend(direction.to_array(), cone_cos),
                shadow: [first_face, count as f32, inner_cos, texel_per_world],
            };
        }
        lights.count = [used as u32, faces as u32, 0, 0];
        lights.moon = MoonShadow::new(scene, faces as u32);
        lights
    }

    /// How many shadow-map faces are in use.
    pub(crate) fn faces(&self) -> u32 {
        self.count[1]
    }

    /// How many shadow-map layers there are: the lamps' faces, then the moon's.
    pub(crate) fn layers(&self) -> u32 {
        self.faces() + u32::from(self.moon.is_on())
    }
}

/// The lamps on the GPU: their uniform buffer and the shadow maps (a depth texture array with
/// one layer per face in use and one for the moon where it casts shadows, or a single unused
/// layer when nothing does, so the bindings exist for every scene).
pub(crate) struct LampResources {
    /// The [`LampLights`], written once.
    pub buffer: wgpu::Buffer,
    /// The shadow maps: every layer, as the shaders read them.
    pub maps_view: wgpu::TextureView,
    /// One view per lamp face in use, as the `shadow` pass draws into them.
    pub face_views: Vec<wgpu::TextureView>,
    /// The moon's layer, as the `shadow` pass draws into it (scenes with moon shadows).
    pub moon_view: Option<wgpu::TextureView>,
    /// How many lamps the scene has (lamps.wgsl's `LAMPS_IN_SCENE` is off at 0).
    pub lamp_count: u32,
}

/// The shadow maps' entry at `binding` of the frame's layout: a depth texture array.
pub(crate) fn shadow_maps_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: ALL_STAGES,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Depth,
            view_dimension: wgpu::TextureViewDimension::D2Array,
            multisampled: false,
        },
        count: None,
    }
}

impl LampResources {
    pub(crate) fn new(device: &wgpu::Device, lights: &LampLights) -> Self {
        let build = PassBuilder::new(device, "lamps");
        let buffer = build.static_uniform_buffer("lights", bytemuck::bytes_of(lights));
        let faces = lights.faces();
        let layers = lights.layers();
        // Without shadows a 1×1 texture stands in: nothing reads it (no lamp has a face).
        let side = if layers > 0 { SHADOW_MAP_TEXELS } else { 1 };
        let label = build.label("shadow_maps");
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some(&label),
            size: wgpu::Extent3d {
                width: side,
                height: side,
                depth_or_array_layers: layers.max(1),
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: SHADOW_FORMAT,
            // Copied out only by the tests, which read a face back.
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let maps_view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some(&label),
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        let layer_view = |layer: u32, name: &str| {
            texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some(&build.label(name)),
                dimension: Some(wgpu::TextureViewDimension::D2),
                base_array_layer: layer,
                array_layer_count: Some(1),
                ..Default::default()
            })
        };
        let face_views = (0..faces)
            .map(|layer| layer_view(layer, &format!("shadow_face_{layer}")))
            .collect();
        let moon_view = lights
            .moon
            .is_on()
            .then(|| layer_view(faces, "moon_shadow"));
        LampResources {
            buffer,
            maps_view,
            face_views,
            moon_view,
            lamp_count: lights.count[0],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Lamp;

    #[test]
    fn size_matches_the_wgsl_layout() {
        // A count vec4, 4 lamps of four vec4, 24 faces of a mat4x4 and a vec4, and the moon's
        // mat4x4 and vec4.
        assert_eq!(
            std::mem::size_of::<LampLights>(),
            16 + 4 * 64 + MAX_SHADOW_FACES * 80 + 80
        );
    }

    #[test]
    fn faces_are_laid_out_lamp_after_lamp() {
        let mut scene = Scene::default();
        assert_eq!(LampLights::new(&scene).count, [0, 0, 0, 0]);
        scene.lamps = vec![
            Lamp {
                cone_deg: Some(30.0),
                ..Lamp::default()
            },
            Lamp {
                shadows: false,
                ..Lamp::default()
            },
            Lamp::default(),
        ];
        let lights = LampLights::new(&scene);
        assert_eq!(lights.count, [3, 7, 0, 0]);
        assert_eq!(lights.layers(), 7);
        // The moon's shadows take the layer after the lamps' faces.
        scene.lights.directional.shadows = true;
        let lit = LampLights::new(&scene);
        assert_eq!((lit.faces(), lit.layers(), lit.moon.map[0]), (7, 8, 7.0));
        assert_eq!(lights.lamps[0].shadow[..2], [0.0, 1.0]);
        assert_eq!(lights.lamps[1].shadow[..2], [-1.0, 0.0]);
        assert_eq!(lights.lamps[2].shadow[..2], [1.0, 6.0]);
        assert_eq!(lights.faces[6].lamp[0], 2);
        assert_eq!(lights.lamps[2].spot[3], POINT_LAMP_CONE_COS);
        assert!((lights.lamps[0].spot[3] - 30f32.to_radians().cos()).abs() < 1e-6);
    }

    #[test]
    fn a_spot_face_covers_its_cone_inside_the_margin() {
        let lamp = Lamp {
            position: [1.0, 4.0, -2.0],
            cone_deg: Some(40.0),
            direction: [0.3, -1.0, 0.2],
            ..Lamp::default()
        };
        let scene = Scene {
            lamps: vec![lamp.clone()],
            ..Scene::default()
        };
        let lights = LampLights::new(&scene);
        let matrix = Mat4::from_cols_array_2d(&lights.faces[0].clip_from_world);
        let eye = Vec3::from_array(lamp.position);
        let axis = Vec3::from_array(lamp.direction_unit());
        // A point on the cone's edge, across from the axis along the face's x, lands inside
        // the face, just short of the margin.
        let side = axis.cross(Vec3::Y).normalize();
        let edge = (axis * 40f32.to_radians().cos() + side * 40f32.to_radians().sin()) * 3.0;
        let clip = matrix * (eye + edge).extend(1.0);
        let ndc = clip.truncate() / clip.w;
        let limit = 1.0 - 2.0 * SHADOW_MARGIN_TEXELS / SHADOW_MAP_TEXELS as f32;
        assert!((ndc.x.abs() - limit).abs() < 1e-4, "{ndc}");
        assert!(ndc.y.abs() < 1e-4, "{ndc}");
        // The axis lands in the middle.
        let clip = matrix * (eye + axis * 2.0).extend(1.0);
        assert!((clip.x / clip.w).abs() < 1e-5 && (clip.y / clip.w).abs() < 1e-5);
    }
}
