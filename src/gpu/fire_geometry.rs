//! What holds each fire, as static geometry of the `scene` pass: a brazier's iron bowl of glowing
//! coals on three legs, a torch's head of burning pitch on a wooden handle, held up by an iron
//! pole from the floor or by an iron bracket on the nearest pillar.
//!
//! Every holder is built below the flame's foot (the scene's `fires[i].position`), sized from
//! the flame's height so a bigger fire gets a bigger bowl. The flames themselves are the `flame`
//! pass's billboards; the coals are [`Material::Ember`], which glows without being lit.

use glam::Vec3;

use crate::gpu::common::{scale, srgb_to_linear};
use crate::gpu::geometry::{Material, Mesh};
use crate::scene::fires::bracket_pillar;
use crate::scene::{Fire, FireKind, Hall, Scene, TorchMount, hex};

/// Sides of every round part.
const ROUND_SEGMENTS: u32 = 12;
/// How bright the coals glow, as a fraction of the fire's colour times its ember strength.
const COAL_GLOW: f32 = 0.8;
/// Dark iron of bowls, poles and brackets (sRGB).
const IRON: [f32; 3] = hex(0x3a3633);
/// The torch's wooden handle (sRGB).
const WOOD: [f32; 3] = hex(0x5a3d25);

/// Adds the holder of every fire of `scene` to `mesh`.
pub(crate) fn push_fire_holders(mesh: &mut Mesh, scene: &Scene) {
    for fire in &scene.fires {
        match fire.kind {
            FireKind::Brazier => push_brazier(mesh, fire),
            FireKind::Torch => push_torch(mesh, fire, &scene.hall),
        }
    }
}

/// The coals' emitted colour (linear).
fn coal_glow(fire: &Fire) -> [f32; 3] {
    scale(srgb_to_linear(fire.color), fire.ember * COAL_GLOW)
}

/// A bowl whose rim is at the flame's foot, filled to the brim with coals, on three legs that
/// splay out to the floor.
fn push_brazier(mesh: &mut Mesh, fire: &Fire) {
    let iron = srgb_to_linear(IRON);
    let foot = Vec3::from_array(fire.position);
    let rim_radius = fire.brazier_rim_radius_world();
    let bowl_depth = (0.1 + 0.15 * fire.flame_height).min(foot.y);
    let bowl_bottom = foot - Vec3::Y * bowl_depth;
    let bottom_radius = rim_radius * 0.45;
    push_frustum(
        mesh,
        Frustum {
            base_center: bowl_bottom,
            radius_bottom: bottom_radius,
            radius_top: rim_radius,
            height: bowl_depth,
        },
        iron,
        Some(coal_glow(fire)),
    );
    for leg in 0..3 {
        let angle = std::f32::consts::TAU * (leg as f32 / 3.0 + 1.0 / 12.0);
        let outward = Vec3::new(angle.cos(), 0.0, angle.sin());
        let top = bowl_bottom + outward * (bottom_radius * 0.8);
        let floor = Vec3::new(foot.x, 0.0, foot.z) + outward * (rim_radius * 0.9);
        push_bar(mesh, floor, top, 0.04, iron);
    }
}

/// A head of burning pitch on a wooden handle, on a pole from the floor or a bracket on the
/// nearest pillar.
fn push_torch(mesh: &mut Mesh, fire: &Fire, hall: &Hall) {
    let iron = srgb_to_linear(IRON);
    let wood = srgb_to_linear(WOOD);
    let foot = Vec3::from_array(fire.position);
    let head_height = 0.12_f32.min(foot.y);
    let head_bottom = foot - Vec3::Y * head_height;
    push_frustum(
        mesh,
        Frustum {
            base_center: head_bottom,
            radius_bottom: 0.035,
            radius_top: 0.075,
            height: head_height,
        },
        iron,
        Some(coal_glow(fire)),
    );
    let pillar = bracket_pillar(hall, foot.x, foot.z);
    match (fire.mount, pillar) {
        (TorchMount::Bracket, Some((_, center))) => {
            let handle_bottom_y = (head_bottom.y - 0.4).max(0.0);
            mesh.push_cylinder(
                Vec3::new(foot.x, handle_bottom_y, foot.z),
                0.03,
                head_bottom.y - handle_bottom_y,
                wood,
            );
            // The arm and a brace below it, from just inside the shaft's surface to the handle.
            let center = Vec3::new(center[0], 0.0, center[1]);
            let away = (Vec3::new(foot.x, 0.0, foot.z) - center).normalize_or(Vec3::Z);
            let on_shaft = center + away * (hall.pillar_radius - 0.02);
            let arm_y = head_bottom.y - 0.15;
            let at = |point: Vec3, y: f32| Vec3::new(point.x, y, point.z);
            let handle = Vec3::new(foot.x, 0.0, foot.z);
            push_bar(mesh, at(on_shaft, arm_y), at(handle, arm_y), 0.04, iron);
            push_bar(
                mesh,
                at(on_shaft, (arm_y - 0.3).max(0.0)),
                at(handle, (arm_y - 0.05).max(0.0)),
                0.03,
                iron,
            );
        }
        // A pole, and a bracket with no pillar in reach (validation refuses it) stands on one
        // too rather than floating.
        _ => {
            mesh.push_cylinder(Vec3::new(foot.x, 0.0, foot.z), 0.03, head_bottom.y, iron);
            let base = Vec3::new(foot.x, 0.0, foot.z);
            push_frustum(
                mesh,
                Frustum {
                    base_center: base,
                    radius_bottom: 0.16,
                    radius_top: 0.05,
                    height: 0.06_f32.min(head_bottom.y),
                },
                iron,
                None,
            );
        }
    }
}

/// A truncated cone standing upright.
struct Frustum {
    base_center: Vec3,
    radius_bottom: f32,
    radius_top: f32,
    height: f32,
}

/// Adds the sides and bottom of `shape` in `albedo`, and its top as glowing coals of `top_glow`
/// (or plain, when `None`).
fn push_frustum(mesh: &mut Mesh, shape: Frustum, albedo: [f32; 3], top_glow: Option<[f32; 3]>) {
    let Frustum {
        base_center,
        radius_bottom,
        radius_top,
        height,
    } = shape;
    if height <= 0.0 {
        return;
    }
    let top_center = base_center + Vec3::Y * height;
    let radial = |k: u32| {
        let angle = std::f32::consts::TAU * k as f32 / ROUND_SEGMENTS as f32;
        Vec3::new(angle.cos(), 0.0, angle.sin())
    };
    // The side's normal leans up (or down) by the slope of the cone.
    let side_normal =
        |radial: Vec3| (radial * height + Vec3::Y * (radius_bottom - radius_top)).normalize();
    let (top_albedo, top_material) = match top_glow {
        Some(glow) => (glow, Material::Ember),
        None => (albedo, Material::Solid),
    };
    for k in 0..ROUND_SEGMENTS {
        let (r0, r1) = (radial(k), radial(k + 1));
        let (b0, b1) = (
            base_center + r0 * radius_bottom,
            base_center + r1 * radius_bottom,
        );
        let (t0, t1) = (top_center + r0 * radius_top, top_center + r1 * radius_top);
        let (n0, n1) = (side_normal(r0), side_normal(r1));
        let outward = (n0 + n1).normalize_or_zero();
        mesh.push_triangle([b0, b1, t1], [n0, n1, n1], outward, albedo, Material::Solid);
        mesh.push_triangle([b0, t1, t0], [n0, n1, n0], outward, albedo, Material::Solid);
        mesh.push_triangle(
            [top_center, t0, t1],
            [Vec3::Y; 3],
            Vec3::Y,
            top_albedo,
            top_material,
        );
        mesh.push_triangle(
            [base_center, b1, b0],
            [Vec3::NEG_Y; 3],
            Vec3::NEG_Y,
            albedo,
            Material::Solid,
        );
    }
}

/// A square iron bar `thickness` across from `from` to `to`, at any angle.
fn push_bar(mesh: &mut Mesh, from: Vec3, to: Vec3, thickness: f32, albedo: [f32; 3]) {
    let along = to - from;
    if along.length_squared() < 1e-10 {
        return;
    }
    let axis = along.normalize();
    // Two directions square to the bar and to each other; the first is horizontal unless the
    // bar is upright.
    let helper = if axis.y.abs() < 0.99 {
        Vec3::Y
    } else {
        Vec3::X
    };
    let side = axis.cross(helper).normalize() * (thickness * 0.5);
    let up = side.cross(axis).normalize() * (thickness * 0.5);
    let center = (from + to) * 0.5;
    let half_along = along * 0.5;
    // Each face: its outward direction and the two half-extents spanning it.
    let faces = [
        (side, up, half_along),
        (-side, up, half_along),
        (up, side, half_along),
        (-up, side, half_along),
        (half_along, side, up),
        (-half_along, side, up),
    ];
    for (out, u, v) in faces {
        let face = center + out;
        let normal = out.normalize();
        mesh.push_quad(
            [face - u - v, face + u - v, face + u + v, face - u + v],
            normal,
            albedo,
            Material::Solid,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::geometry::build_scene_mesh;
    use crate::scene::load;

    fn temple() -> Scene {
        load(None, &[])
            .map(|l| l.scene)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn holders_face_outward_and_stay_under_their_flames() {
        let scene = temple();
        let mut mesh = Mesh::default();
        push_fire_holders(&mut mesh, &scene);
        assert!(!mesh.vertices.is_empty());
        assert_eq!(mesh.vertices.len() % 3, 0);
        for tri in mesh.vertices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| Vec3::from_array(tri[k].pos_model));
            let face = (b - a).cross(c - a);
            assert!(face.length() > 0.0, "degenerate triangle {tri:?}");
            let normal: Vec3 = tri.iter().map(|v| Vec3::from_array(v.normal_model)).sum();
            assert!(face.dot(normal) > 0.0, "triangle wound against its normal");
        }
        // Nothing rises above the highest flame's foot; nothing sinks under the floor by more
        // than the corner of a leg standing on it at a slant (half the thickest bar).
        let highest_foot = scene
            .fires
            .iter()
            .map(|f| f.position[1])
            .fold(f32::MIN, f32::max);
        for v in &mesh.vertices {
            let y = v.pos_model[1];
            assert!(
                y >= -0.02 && y <= highest_foot + 1e-4,
                "vertex at height {y}"
            );
        }
        // Every fire has glowing coals, at its flame's foot.
        for fire in &scene.fires {
            let coals = mesh.vertices.iter().filter(|v| {
                v.material == Material::Ember as u32
                    && (Vec3::from_array(v.pos_model) - Vec3::from_array(fire.position)).length()
                        < 0.5
            });
            assert!(coals.count() > 0, "no coals at {:?}", fire.position);
        }
    }

    #[test]
    fn scenes_without_fires_build_the_same_mesh() {
        let mut scene = temple();
        let with = build_scene_mesh(&scene).vertices.len();
        scene.fires.clear();
        let without = build_scene_mesh(&scene).vertices;
        assert!(with > without.len());
        assert!(without.iter().all(|v| v.material != Material::Ember as u32));
    }
}
