//! The people's capsules as triangles, meshed on the CPU every frame, and the per-frame vertex
//! buffer they are drawn from.
//!
//! [`push_capsule`] builds one [`Capsule`] as a cylinder between two hemispheres with a fixed
//! tessellation ([`CAPSULE_SEGMENTS`] round, [`HEMISPHERE_RINGS`] rings per hemisphere) in
//! the `scene` pass's vertex format, world space, [`Material::Solid`], so the scene shader
//! lights it like the hall (ambient, sun, the ball's light, the fires, distance fog) and it
//! writes depth, which the fog sheets are cut by. [`CapsuleMesh`] owns the buffer: the renderer
//! uploads the frame's capsules with [`CapsuleMesh::upload`] and the `scene` pass draws them
//! with [`CapsuleMesh::draw`]; a shadow pass whose pipeline takes
//! [`SceneVertex`](crate::gpu::geometry::SceneVertex) can call the same `draw` to cast them.

use glam::Vec3;

use crate::frame::Capsule;
use crate::gpu::geometry::{Material, Mesh, SceneVertex};
use crate::gpu::passes::shadow::ExtraCasters;

/// Sides round a capsule.
pub(crate) const CAPSULE_SEGMENTS: u32 = 12;
/// Rings from a pole to the equator of each hemisphere.
pub(crate) const HEMISPHERE_RINGS: u32 = 4;
/// Vertices of one capsule: the bands between rings, two triangles per side, one at the poles.
pub(crate) const VERTICES_PER_CAPSULE: usize =
    (((2 * HEMISPHERE_RINGS + 1) * 2 - 2) * CAPSULE_SEGMENTS * 3) as usize;

/// Adds `capsule` to `mesh`: the sphere of its radius swept from `a_world` to `b_world`
/// (a sphere when they meet), its normals pointing out, wound counter-clockwise from outside.
pub(crate) fn push_capsule(mesh: &mut Mesh, capsule: &Capsule) {
    let a = Vec3::from_array(capsule.a_world);
    let b = Vec3::from_array(capsule.b_world);
    let radius = capsule.radius_world;
    let axis = (b - a).try_normalize().unwrap_or(Vec3::Y);
    let reference = if axis.y.abs() < 0.9 { Vec3::Y } else { Vec3::X };
    let u = reference.cross(axis).normalize();
    let w = axis.cross(u);
    // The rings from a's pole to b's, each as (centre, latitude): the lower hemisphere round
    // a, the upper round b; the two equators bound the cylinder.
    let quarter = std::f32::consts::FRAC_PI_2;
    let rings: Vec<(Vec3, f32)> = (0..=HEMISPHERE_RINGS)
        .map(|k| (a, -quarter + quarter * k as f32 / HEMISPHERE_RINGS as f32))
        .chain((0..=HEMISPHERE_RINGS).map(|k| (b, quarter * k as f32 / HEMISPHERE_RINGS as f32)))
        .collect();
    let last_ring = rings.len() - 1;
    let normal_at = |latitude: f32, segment: u32| {
        let longitude =
            std::f32::consts::TAU * (segment % CAPSULE_SEGMENTS) as f32 / CAPSULE_SEGMENTS as f32;
        let (sin_lat, cos_lat) = latitude.sin_cos();
        let (sin_lon, cos_lon) = longitude.sin_cos();
        (u * cos_lon + w * sin_lon) * cos_lat + axis * sin_lat
    };
    for (k, pair) in rings.windows(2).enumerate() {
        let [(c0, lat0), (c1, lat1)] = [pair[0], pair[1]];
        for s in 0..CAPSULE_SEGMENTS {
            let n = [
                normal_at(lat0, s),
                normal_at(lat0, s + 1),
                normal_at(lat1, s + 1),
                normal_at(lat1, s),
            ];
            let p = [
                c0 + n[0] * radius,
                c0 + n[1] * radius,
                c1 + n[2] * radius,
                c1 + n[3] * radius,
            ];
            let outward = (n[0] + n[1] + n[2] + n[3]).normalize_or(axis);
            let color = capsule.albedo_linear;
            // At a pole one ring is a point: one triangle instead of two.
            if k + 1 != last_ring {
                mesh.push_triangle(
                    [p[0], p[2], p[3]],
                    [n[0], n[2], n[3]],
                    outward,
                    color,
                    Material::Solid,
                );
            }
            if k != 0 {
                mesh.push_triangle(
                    [p[0], p[1], p[2]],
                    [n[0], n[1], n[2]],
                    outward,
                    color,
                    Material::Solid,
                );
            }
        }
    }
}

/// The capsules' vertices for the current frame, in a buffer sized for a fixed number of
/// capsules (the scene's walkers times their capsules), rewritten every frame.
pub(crate) struct CapsuleMesh {
    buffer: wgpu::Buffer,
    capacity_capsules: usize,
    vertex_count: u32,
    /// Reused from frame to frame.
    mesh: Mesh,
}

impl CapsuleMesh {
    /// A buffer for up to `capacity_capsules` capsules (at least one), labelled
    /// `scene.capsules`.
    pub(crate) fn new(device: &wgpu::Device, capacity_capsules: usize) -> CapsuleMesh {
        let capacity_capsules = capacity_capsules.max(1);
        let bytes = capacity_capsules * VERTICES_PER_CAPSULE * std::mem::size_of::<SceneVertex>();
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("scene.capsules"),
            size: bytes as u64,
            // COPY_SRC: the compute `scene` pass copies them behind the hall's vertices.
            usage: wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        CapsuleMesh {
            buffer,
            capacity_capsules,
            vertex_count: 0,
            mesh: Mesh::default(),
        }
    }

    /// Meshes `capsules` (the first `capacity` of them, in order) and writes them to the
    /// buffer for this frame's draws.
    pub(crate) fn upload(&mut self, queue: &wgpu::Queue, capsules: &[Capsule]) {
        self.mesh.vertices.clear();
        for capsule in capsules.iter().take(self.capacity_capsules) {
            push_capsule(&mut self.mesh, capsule);
        }
        self.vertex_count = self.mesh.vertices.len() as u32;
        if !self.mesh.vertices.is_empty() {
            queue.write_buffer(&self.buffer, 0, bytemuck::cast_slice(&self.mesh.vertices));
        }
    }

    /// Vertices of this frame's capsules (three a triangle).
    pub(crate) fn vertex_count(&self) -> u32 {
        self.vertex_count
    }

    /// The buffer holding them, from its start.
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// This frame's capsules as shadow casters for the `shadow` pass (each vertex starts with
    /// its world position); `None` when there are none.
    pub(crate) fn as_casters(&self) -> Option<ExtraCasters<'_>> {
        (self.vertex_count > 0).then_some(ExtraCasters {
            buffer: &self.buffer,
            vertex_count: self.vertex_count,
            stride_bytes: std::mem::size_of::<SceneVertex>() as u64,
        })
    }

    /// Draws this frame's capsules into `pass` with whatever pipeline and bind groups it has
    /// set, from vertex buffer slot 0 in the [`SceneVertex`] layout: the `scene` pass shades
    /// them; a shadow pass with a pipeline of that layout draws them as shadow casters.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        if self.vertex_count == 0 {
            return;
        }
        pass.set_vertex_buffer(0, self.buffer.slice(..));
        pass.draw(0..self.vertex_count, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capsule(a: [f32; 3], b: [f32; 3], radius: f32) -> Capsule {
        Capsule {
            a_world: a,
            b_world: b,
            radius_world: radius,
            albedo_linear: [0.5, 0.4, 0.3],
        }
    }

    /// Every vertex lies on the capsule's surface with its normal pointing away from the axis,
    /// every triangle faces outward (a sphere's empty cylinder band aside), and the count is the
    /// fixed one.
    #[test]
    fn capsules_are_closed_outward_and_of_fixed_size() {
        for c in [
            capsule([1.0, 0.2, -2.0], [1.3, 1.0, -2.1], 0.1),
            capsule([0.0, 1.5, 0.0], [0.0, 1.5, 0.0], 0.12),
            capsule([0.0, 1.0, 0.0], [0.0, 0.2, 0.0], 0.25),
        ] {
            let mut mesh = Mesh::default();
            push_capsule(&mut mesh, &c);
            assert_eq!(mesh.vertices.len(), VERTICES_PER_CAPSULE);
            let (a, b) = (Vec3::from_array(c.a_world), Vec3::from_array(c.b_world));
            let closest = |p: Vec3| {
                let ab = b - a;
                let t = if ab.length_squared() > 0.0 {
                    ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                a + ab * t
            };
            for v in &mesh.vertices {
                let p = Vec3::from_array(v.pos_model);
                let n = Vec3::from_array(v.normal_model);
                let from_axis = p - closest(p);
                assert!((from_axis.length() - c.radius_world).abs() < 1e-4);
                assert!(from_axis.normalize().dot(n) > 0.999);
            }
            for tri in mesh.vertices.chunks(3) {
                let [p0, p1, p2] = [0, 1, 2].map(|k| Vec3::from_array(tri[k].pos_model));
                let face = (p1 - p0).cross(p2 - p0);
                if a == b && face.length() < 1e-9 {
                    continue; // a sphere's cylinder has no height: its band is empty
                }
                assert!(face.length() > 0.0, "no degenerate triangles");
                let middle = (p0 + p1 + p2) / 3.0;
                assert!(face.dot(middle - closest(middle)) > 0.0, "faces outward");
            }
        }
    }
}
