//! The land the height fog settles in, as `scene`-pass triangles: `hall.blocks` (steps,
//! terraces, walls, plinths) as boxes, and `hall.terrain` (the seeded hills of
//! [`crate::terrain`]) as a smooth-shaded heightfield round the hall floor.
//!
//! Both are lit like the pillars (material `Solid`) and fogged like everything else, which is
//! the point: the mist pools in the valley and thins up the ridges because the distance fog
//! integrates its density along each view ray.

use glam::Vec3;

use crate::gpu::common::srgb_to_linear;
use crate::gpu::geometry::{Material, Mesh, SceneVertex};
use crate::scene::{Hall, Terrain};
use crate::terrain::height_at;

/// Adds every block of the hall as a box standing on its bottom face.
pub(crate) fn push_blocks(mesh: &mut Mesh, hall: &Hall) {
    for block in &hall.blocks {
        let [x, y_bottom, z] = block.bottom_center;
        let size = Vec3::from_array(block.size);
        mesh.push_box(
            Vec3::new(x, y_bottom + size.y * 0.5, z),
            size,
            srgb_to_linear(block.color),
        );
    }
}

/// One grid point of the heightfield: where it is, its smooth normal and its colour (linear).
#[derive(Debug, Clone, Copy)]
struct LandPoint {
    pos_world: Vec3,
    normal_world: Vec3,
    albedo: Vec3,
}

/// The grid point (`i`, `j`) of `terrain` round a floor `floor_size` across.
fn land_point(terrain: &Terrain, floor_size: f32, i: usize, j: usize) -> LandPoint {
    let cell_world = terrain.size / terrain.resolution.max(1) as f32;
    let origin_world = -terrain.size * 0.5;
    let x = origin_world + i as f32 * cell_world;
    let z = origin_world + j as f32 * cell_world;
    let h = |x: f32, z: f32| height_at(terrain, floor_size, x, z);
    let y = h(x, z);
    // Central differences one cell each way: the normal of the surface the mesh samples.
    let slope_x = (h(x + cell_world, z) - h(x - cell_world, z)) / (2.0 * cell_world);
    let slope_z = (h(x, z + cell_world) - h(x, z - cell_world)) / (2.0 * cell_world);
    let normal_world = Vec3::new(-slope_x, 1.0, -slope_z).normalize();

    // Low ground takes the first colour, the ridge tops the second; steep faces darken.
    let [low, high] = terrain.colors.map(|c| Vec3::from_array(srgb_to_linear(c)));
    let span = (terrain.height + terrain.valley_depth).max(1e-3);
    let t = ((y + terrain.valley_depth) / span).clamp(0.0, 1.0);
    let albedo = low.lerp(high, t * t * (3.0 - 2.0 * t)) * (0.6 + 0.4 * normal_world.y);
    LandPoint {
        pos_world: Vec3::new(x, y, z),
        normal_world,
        albedo,
    }
}

/// Adds the terrain round the hall, if the scene has one. Cells the floor covers entirely are
/// left out; the rest lie just below the floor next to it (see
/// [`crate::terrain::SKIRT_DEPTH_WORLD`]), so the floor wins the depth test there.
pub(crate) fn push_terrain(mesh: &mut Mesh, hall: &Hall) {
    let Some(terrain) = &hall.terrain else {
        return;
    };
    let cells = terrain.resolution.max(1) as usize;
    let points = cells + 1;
    let grid: Vec<LandPoint> = (0..points * points)
        .map(|k| land_point(terrain, hall.floor_size, k % points, k / points))
        .collect();
    let half_floor = hall.floor_size * 0.5;
    let under_floor =
        |p: &LandPoint| p.pos_world.x.abs() <= half_floor && p.pos_world.z.abs() <= half_floor;

    for j in 0..cells {
        for i in 0..cells {
            let corner = |di: usize, dj: usize| grid[(j + dj) * points + i + di];
            let (a, b, c, d) = (corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1));
            if [a, b, c, d].iter().all(under_floor) {
                continue;
            }
            // Seen from above (+y), a → d → c and a → c → b are counter-clockwise.
            for triangle in [[a, d, c], [a, c, b]] {
                for p in triangle {
                    mesh.vertices.push(SceneVertex {
                        pos_model: p.pos_world.to_array(),
                        normal_model: p.normal_world.to_array(),
                        albedo: p.albedo.to_array(),
                        material: Material::Solid as u32,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::geometry::build_scene_mesh;
    use crate::scene::{Block, Scene};

    fn scene_with_land() -> Scene {
        let mut scene = Scene::default();
        scene.hall.terrain = Some(Terrain {
            resolution: 40,
            ..Terrain::default()
        });
        scene.hall.blocks = vec![Block {
            bottom_center: [2.0, 0.0, -8.0],
            size: [4.0, 0.5, 2.0],
            ..Block::default()
        }];
        scene
    }

    #[test]
    fn land_faces_up_along_its_normals_and_leaves_the_floor_alone() {
        let scene = scene_with_land();
        let plain = build_scene_mesh(&Scene::default());
        let mesh = build_scene_mesh(&scene);
        let added = mesh.vertices.len() - plain.vertices.len();
        // One box (12 triangles) and 40 × 40 cells less the 6 × 6 under the 24-wide floor
        // (cells are 4 wide on a 160 square, so the floor covers 6 × 6 of them exactly).
        assert_eq!(added, (12 + (40 * 40 - 6 * 6) * 2) * 3);
        for tri in mesh.vertices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| Vec3::from_array(tri[k].pos_model));
            let face = (b - a).cross(c - a);
            assert!(face.length() > 0.0, "degenerate triangle {tri:?}");
            let normal: Vec3 = tri.iter().map(|v| Vec3::from_array(v.normal_model)).sum();
            assert!(face.dot(normal) > 0.0, "wound against its normal: {tri:?}");
        }
        // Nothing of the land pokes through the floor's square.
        let mut land = Mesh::default();
        push_terrain(&mut land, &scene.hall);
        for v in &land.vertices {
            let [x, y, z] = v.pos_model;
            if x.abs() <= 12.0 && z.abs() <= 12.0 {
                assert!(y < 0.0, "land above the floor at ({x}, {y}, {z})");
            }
        }
    }

    #[test]
    fn the_default_scene_gets_no_land() {
        let scene = Scene::default();
        let mut mesh = Mesh::default();
        push_blocks(&mut mesh, &scene.hall);
        push_terrain(&mut mesh, &scene.hall);
        assert!(mesh.vertices.is_empty());
    }

    #[test]
    fn blocks_stand_on_their_bottom_face() {
        let scene = scene_with_land();
        let mut mesh = Mesh::default();
        push_blocks(&mut mesh, &scene.hall);
        let ys: Vec<f32> = mesh.vertices.iter().map(|v| v.pos_model[1]).collect();
        let low = ys.iter().copied().fold(f32::MAX, f32::min);
        let high = ys.iter().copied().fold(f32::MIN, f32::max);
        assert_eq!((low, high), (0.0, 0.5));
    }
}
