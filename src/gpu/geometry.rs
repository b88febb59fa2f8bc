//! The temple's static meshes, built once from the scene: the floor in slabs, each pillar as a
//! shaft with a base and a capital, the altar, and the ball (built round the origin; the
//! `scene` shader moves it each frame). The scene's blocks and terrain are built in
//! `terrain_geometry.rs`.
//!
//! Everything is plain triangle lists in world space with per-vertex normals, albedo (linear)
//! and a material id. Triangles are wound counter-clockwise seen from outside, which
//! [`Mesh::push_triangle`] enforces from an outward hint, so back-face culling is safe.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::gpu::common::srgb_to_linear;
use crate::gpu::fire_geometry::push_fire_holders;
use crate::gpu::terrain_geometry::{push_blocks, push_terrain};
use crate::scene::{Hall, Scene};

/// How a vertex is shaded; keep in sync with shaders/scene.wgsl: MATERIAL_*.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum Material {
    /// Lit with its albedo.
    Solid = 0,
    /// The procedural stone floor (albedo ignored).
    Floor = 1,
    /// The emissive ball, moved to the ball's position in the vertex shader.
    Ball = 2,
    /// Glowing coals: the albedo is emitted light (linear), unlit.
    Ember = 3,
}

/// One vertex of the `scene` pass.
///
/// keep in sync with shaders/scene.wgsl: VertexIn
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct SceneVertex {
    /// Position, world units (model units for the ball).
    pub pos_model: [f32; 3],
    /// Unit normal.
    pub normal_model: [f32; 3],
    /// Colour, linear light.
    pub albedo: [f32; 3],
    /// [`Material`] as a number.
    pub material: u32,
}

impl SceneVertex {
    /// Bytes of one vertex in a buffer.
    pub(crate) const BYTES: u64 = std::mem::size_of::<SceneVertex>() as u64;
}

/// Sides of the pillar shaft, as the example builds it.
const SHAFT_SEGMENTS: u32 = 12;
/// The ball's sphere: segments round, rings from pole to pole, as the example builds it.
const BALL_SEGMENTS: u32 = 24;
const BALL_RINGS: u32 = 14;

/// A triangle list.
#[derive(Debug, Default)]
pub(crate) struct Mesh {
    pub vertices: Vec<SceneVertex>,
}

impl Mesh {
    /// Adds triangle `corners` with per-corner `normals`, wound so that it faces along
    /// `outward` (counter-clockwise seen from that side).
    pub(crate) fn push_triangle(
        &mut self,
        corners: [Vec3; 3],
        normals: [Vec3; 3],
        outward: Vec3,
        albedo: [f32; 3],
        material: Material,
    ) {
        let [a, b, c] = corners;
        let order = if (b - a).cross(c - a).dot(outward) >= 0.0 {
            [0, 1, 2]
        } else {
            [0, 2, 1]
        };
        for k in order {
            self.vertices.push(SceneVertex {
                pos_model: corners[k].to_array(),
                normal_model: normals[k].to_array(),
                albedo,
                material: material as u32,
            });
        }
    }

    /// Adds a flat quad (corners in order round it) facing along `normal`.
    pub(crate) fn push_quad(
        &mut self,
        corners: [Vec3; 4],
        normal: Vec3,
        albedo: [f32; 3],
        material: Material,
    ) {
        let [a, b, c, d] = corners;
        let normals = [normal; 3];
        self.push_triangle([a, b, c], normals, normal, albedo, material);
        self.push_triangle([a, c, d], normals, normal, albedo, material);
    }

    /// Adds an axis-aligned box centred at `center` with sides `size`.
    pub(crate) fn push_box(&mut self, center: Vec3, size: Vec3, albedo: [f32; 3]) {
        let half = size * 0.5;
        for axis in 0..3 {
            for sign in [-1.0f32, 1.0] {
                let mut normal = Vec3::ZERO;
                normal[axis] = sign;
                let u_axis = Vec3::AXES[(axis + 1) % 3] * half[(axis + 1) % 3];
                let v_axis = Vec3::AXES[(axis + 2) % 3] * half[(axis + 2) % 3];
                let face = center + normal * half[axis];
                self.push_quad(
                    [
                        face - u_axis - v_axis,
                        face + u_axis - v_axis,
                        face + u_axis + v_axis,
                        face - u_axis + v_axis,
                    ],
                    normal,
                    albedo,
                    Material::Solid,
                );
            }
        }
    }

    /// Adds an upright cylinder from `base_center` up `height`, smooth sides and flat caps.
    pub(crate) fn push_cylinder(
        &mut self,
        base_center: Vec3,
        radius: f32,
        height: f32,
        albedo: [f32; 3],
    ) {
        let top_center = base_center + Vec3::Y * height;
        let radial = |k: u32| {
            let angle = std::f32::consts::TAU * k as f32 / SHAFT_SEGMENTS as f32;
            Vec3::new(angle.cos(), 0.0, angle.sin())
        };
        for k in 0..SHAFT_SEGMENTS {
            let (n0, n1) = (radial(k), radial(k + 1));
            let (b0, b1) = (base_center + n0 * radius, base_center + n1 * radius);
            let (t0, t1) = (top_center + n0 * radius, top_center + n1 * radius);
            let outward = (n0 + n1).normalize_or_zero();
            self.push_triangle([b0, b1, t1], [n0, n1, n1], outward, albedo, Material::Solid);
            self.push_triangle([b0, t1, t0], [n0, n1, n0], outward, albedo, Material::Solid);
            self.push_triangle(
                [top_center, t0, t1],
                [Vec3::Y; 3],
                Vec3::Y,
                albedo,
                Material::Solid,
            );
            self.push_triangle(
                [base_center, b1, b0],
                [Vec3::NEG_Y; 3],
                Vec3::NEG_Y,
                albedo,
                Material::Solid,
            );
        }
    }

    /// Adds a UV sphere of `radius` round the origin, for the ball.
    fn push_sphere(&mut self, radius: f32, albedo: [f32; 3]) {
        let point = |segment: u32, ring: u32| {
            let polar = std::f32::consts::PI * ring as f32 / BALL_RINGS as f32;
            let azimuth = std::f32::consts::TAU * segment as f32 / BALL_SEGMENTS as f32;
            Vec3::new(
                polar.sin() * azimuth.cos(),
                polar.cos(),
                polar.sin() * azimuth.sin(),
            )
        };
        for ring in 0..BALL_RINGS {
            for segment in 0..BALL_SEGMENTS {
                let n00 = point(segment, ring);
                let n10 = point(segment + 1, ring);
                let n01 = point(segment, ring + 1);
                let n11 = point(segment + 1, ring + 1);
                let outward = (n00 + n10 + n01 + n11).normalize_or_zero();
                // At the poles one of the two triangles collapses to a line: skip it.
                if ring != 0 {
                    self.push_triangle(
                        [n00 * radius, n10 * radius, n11 * radius],
                        [n00, n10, n11],
                        outward,
                        albedo,
                        Material::Ball,
                    );
                }
                if ring != BALL_RINGS - 1 {
                    self.push_triangle(
                        [n00 * radius, n11 * radius, n01 * radius],
                        [n00, n11, n01],
                        outward,
                        albedo,
                        Material::Ball,
                    );
                }
            }
        }
    }
}

/// The floor: one quad per slab of `tile_size`, covering `floor_size` round the centre.
fn push_floor(mesh: &mut Mesh, hall: &Hall) {
    let half_world = hall.floor_size * 0.5;
    let tile_world = hall.tile_size.max(1e-3);
    let tiles = (hall.floor_size / tile_world).ceil().max(1.0) as u32;
    for j in 0..tiles {
        for i in 0..tiles {
            let x0 = -half_world + i as f32 * tile_world;
            let z0 = -half_world + j as f32 * tile_world;
            let x1 = (x0 + tile_world).min(half_world);
            let z1 = (z0 + tile_world).min(half_world);
            mesh.push_quad(
                [
                    Vec3::new(x0, 0.0, z0),
                    Vec3::new(x1, 0.0, z0),
                    Vec3::new(x1, 0.0, z1),
                    Vec3::new(x0, 0.0, z1),
                ],
                Vec3::Y,
                [0.0; 3],
                Material::Floor,
            );
        }
    }
}

/// Everything the `scene` pass draws: the static hall, then the ball.
pub(crate) fn build_scene_mesh(scene: &Scene) -> Mesh {
    let hall = &scene.hall;
    let mut mesh = Mesh::default();
    push_floor(&mut mesh, hall);

    let [shaft, capital, base] = hall.pillar_colors.map(srgb_to_linear);
    let block = Vec3::new(hall.capital_size, hall.capital_height, hall.capital_size);
    for &[x, z] in &hall.pillars {
        mesh.push_cylinder(
            Vec3::new(x, 0.0, z),
            hall.pillar_radius,
            hall.pillar_height,
            shaft,
        );
        let capital_y = hall.pillar_height + hall.capital_height * 0.5;
        mesh.push_box(Vec3::new(x, capital_y, z), block, capital);
        mesh.push_box(Vec3::new(x, hall.capital_height * 0.5, z), block, base);
    }

    let altar = &hall.altar;
    mesh.push_box(
        Vec3::new(altar.center[0], altar.height * 0.5, altar.center[1]),
        Vec3::new(altar.width, altar.height, altar.depth),
        srgb_to_linear(altar.color),
    );

    push_blocks(&mut mesh, hall);
    push_terrain(&mut mesh, hall);

    push_fire_holders(&mut mesh, scene);

    mesh.push_sphere(scene.ball.radius, srgb_to_linear(scene.ball.color));
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triangles(mesh: &Mesh) -> impl Iterator<Item = &[SceneVertex]> {
        mesh.vertices.chunks_exact(3)
    }

    #[test]
    fn every_triangle_faces_along_its_normals() {
        let mesh = build_scene_mesh(&Scene::default());
        assert_eq!(mesh.vertices.len() % 3, 0);
        for tri in triangles(&mesh) {
            let [a, b, c] = [0, 1, 2].map(|k| Vec3::from_array(tri[k].pos_model));
            let face = (b - a).cross(c - a);
            assert!(face.length() > 0.0, "degenerate triangle {tri:?}");
            let normal: Vec3 = tri.iter().map(|v| Vec3::from_array(v.normal_model)).sum();
            assert!(
                face.dot(normal) > 0.0,
                "triangle wound against its normal: {tri:?}"
            );
        }
    }

    #[test]
    fn default_scene_has_the_example_pieces() {
        let scene = Scene::default();
        let mesh = build_scene_mesh(&scene);
        let count = |material: Material| {
            mesh.vertices
                .iter()
                .filter(|v| v.material == material as u32)
                .count()
        };
        // 12 x 12 slabs of 2 on a 24 floor, two triangles each.
        assert_eq!(count(Material::Floor), 12 * 12 * 6);
        // 24 x 14 sphere: two triangles per quad except one at each pole.
        assert_eq!(count(Material::Ball), (24 * 14 * 2 - 24 * 2) * 3);
        // Per pillar: 12 sides x 4 triangles, plus two boxes; plus the altar box.
        let pillars = scene.hall.pillars.len();
        assert_eq!(
            count(Material::Solid),
            pillars * (12 * 4 + 2 * 12) * 3 + 12 * 3
        );

        let tops: Vec<f32> = mesh
            .vertices
            .iter()
            .filter(|v| v.material == Material::Solid as u32)
            .map(|v| v.pos_model[1])
            .collect();
        let highest = tops.iter().copied().fold(f32::MIN, f32::max);
        // Capital top: shaft 3.2 + block 0.3.
        assert!((highest - 3.5).abs() < 1e-5, "highest {highest}");
    }

    #[test]
    fn ball_is_built_round_the_origin() {
        let scene = Scene::default();
        let mesh = build_scene_mesh(&scene);
        for v in mesh
            .vertices
            .iter()
            .filter(|v| v.material == Material::Ball as u32)
        {
            let r = Vec3::from_array(v.pos_model).length();
            assert!((r - scene.ball.radius).abs() < 1e-5);
        }
    }
}
