//! Tests of the lattice's layout: every reachable cell in its octave's box, the forms each
//! adapter takes, and the formats bound.

use super::*;
use crate::frame::View;
use crate::scene::Scene;

/// The shader's noise point for a sample at `p_world` with the map's `drift_world` and
/// `lift`, in octave `octave`, in `f32` as the shader works it out; and its cell.
fn shader_cell(
    p_world: [f32; 3],
    (drift_world, lift): ([f32; 2], f32),
    wind_world: [f32; 3],
    octave: usize,
) -> [i32; 3] {
    let moved = [
        p_world[0] + drift_world[0],
        p_world[1] - lift * 0.9,
        p_world[2] + drift_world[1],
    ];
    std::array::from_fn(|axis| {
        let q = moved[axis] * MEDIUM_SCALE[axis] as f32 + wind_world[axis];
        let point = q * OCTAVE_SCALES[octave] as f32 + OCTAVE_OFFSETS[octave][axis] as f32;
        point.floor() as i32
    })
}

/// Whether `cell` lies in `lattice_box`.
fn inside(lattice_box: &LatticeBox, cell: [i32; 3]) -> bool {
    (0..3).all(|axis| {
        let local = i64::from(cell[axis]) - i64::from(lattice_box.origin[axis]);
        local >= 0 && local < i64::from(lattice_box.size[axis])
    })
}

/// The corners of the reach, every drift and lift at their extremes, fall in every
/// octave's box, for several winds, in both media (the physical one's slabs are longer);
/// and the boxes follow one another in the buffer.
#[test]
fn every_reachable_cell_is_in_its_octaves_box() {
    let mut physical = Scene::default();
    physical.fog.medium = crate::scene::FogMedium::Physical(Default::default());
    for scene in [Scene::default(), physical] {
        every_reachable_cell_is_in_its_box(&scene);
    }
}

fn every_reachable_cell_is_in_its_box(scene: &Scene) {
    let knobs = FogKnobs::new(scene, View::Fog);
    let layout = LatticeLayout::new(&knobs, &scene.fog);
    assert!(layout.fits(), "{} cells", layout.cells());
    let [area_x, area_z, size_x, size_z] = knobs.area;
    let spacing = knobs.layer[3];
    // Half the longest slab: `sample_sheet` moves the point back along the ray by that much.
    let reach = 0.5 * spacing / scene.fog.least_slab_slope();
    let top = (knobs.layer[1] + knobs.layer[2]).max(knobs.sampling[3]);
    let xs = [
        area_x - reach,
        area_x + size_x * 0.5,
        area_x + size_x + reach,
    ];
    let ys = [knobs.layer[0] - 0.5 * spacing, top + 0.5 * spacing];
    let zs = [area_z - reach, area_z + size_z + reach];
    let drift_reach = 0.5 * knobs.optics[1];
    for wind_world in [[0.0, 0.0, 0.0], [3.7, -0.2, -12.9], [-150.3, 0.4, 77.7]] {
        let header = layout.header(wind_world, LatticeForm::Corners);
        let points = layout.header(wind_world, LatticeForm::Points);
        let (mut first, mut first_layer) = (0, 0);
        for (octave, lattice_box) in header.boxes.iter().enumerate() {
            assert_eq!(lattice_box.origin[3], first);
            first += lattice_box.size[3] as i32;
            // The same box, its points from the layer after the last octave's.
            let layered = points.boxes[octave];
            assert_eq!(layered.origin[..3], lattice_box.origin[..3]);
            assert_eq!(layered.size, lattice_box.size);
            assert_eq!(layered.origin[3], first_layer);
            first_layer += lattice_box.size[2] as i32 + 1;
            let corners = xs
                .iter()
                .flat_map(|&x| ys.iter().map(move |&y| (x, y)))
                .flat_map(|(x, y)| zs.iter().map(move |&z| (x, y, z)));
            for (x, y, z) in corners {
                for drift in [-drift_reach, drift_reach] {
                    for lift in [0.0, 1.0] {
                        let cell =
                            shader_cell([x, y, z], ([drift, -drift], lift), wind_world, octave);
                        assert!(
                            inside(lattice_box, cell),
                            "octave {octave}, wind {wind_world:?}: cell {cell:?} outside {lattice_box:?}"
                        );
                    }
                }
            }
        }
    }
}

/// The temple's lattice is a few MiB and read on GPUs as points, not on CPU adapters; a
/// GPU whose 3D textures are too small reads the corners; a fog square a hundred times as
/// wide does not fit and its passes hash instead.
#[test]
fn huge_fog_squares_hash_instead() {
    let mut scene = Scene::default();
    let layout = LatticeLayout::new(&FogKnobs::new(&scene, View::Fog), &scene.fog);
    let limits = wgpu::Limits::default();
    let gpu = wgpu::DeviceType::DiscreteGpu;
    assert_eq!(
        lattice_form(&layout, gpu, (&limits, true)),
        LatticeForm::Points
    );
    assert_eq!(
        lattice_form(&layout, gpu, (&limits, false)),
        LatticeForm::Corners
    );
    let [width, height, depth] = layout.points_extent();
    let sizes = layout.sizes;
    assert_eq!(width, sizes.iter().map(|size| size[0] + 1).max().unwrap());
    assert_eq!(height, sizes.iter().map(|size| size[1] + 1).max().unwrap());
    assert_eq!(depth, sizes.iter().map(|size| size[2] + 1).sum::<u32>());
    assert!(u64::from(width * height * depth) * 4 < 8 << 20);
    let small = wgpu::Limits {
        max_texture_dimension_3d: depth - 1,
        ..limits.clone()
    };
    assert_eq!(
        lattice_form(&layout, gpu, (&small, true)),
        LatticeForm::Corners
    );
    let cpu = wgpu::DeviceType::Cpu;
    assert_eq!(
        lattice_form(&layout, cpu, (&limits, true)),
        LatticeForm::Hashed
    );
    assert!(
        layout.buffer_bytes(true) < 8 << 20,
        "{}",
        layout.buffer_bytes(true)
    );
    scene.fog.area *= 100.0;
    let huge = LatticeLayout::new(&FogKnobs::new(&scene, View::Fog), &scene.fog);
    assert!(!huge.fits());
    assert_eq!(
        lattice_form(&huge, gpu, (&limits, true)),
        LatticeForm::Hashed
    );
    assert_eq!(
        huge.buffer_bytes(false),
        std::mem::size_of::<LatticeHeader>() as u64 + CELL_BYTES
    );
}

/// The points' format is written as storage and filtered with `FLOAT32_FILTERABLE` (the
/// points form asks for it); the texel bound in its place is filterable on any device.
#[test]
fn points_formats_are_filterable_where_bound() {
    let flags =
        |format: wgpu::TextureFormat, features| format.guaranteed_format_features(features).flags;
    let filterable = wgpu::TextureFormatFeatureFlags::FILTERABLE;
    let none = wgpu::Features::empty();
    let with_float32 = wgpu::Features::FLOAT32_FILTERABLE;
    assert!(!flags(POINTS_FORMAT, none).contains(filterable));
    assert!(flags(POINTS_FORMAT, with_float32).contains(filterable));
    let storage = POINTS_FORMAT.guaranteed_format_features(none);
    assert!(
        storage
            .allowed_usages
            .contains(wgpu::TextureUsages::STORAGE_BINDING)
    );
    assert!(flags(UNREAD_POINTS_FORMAT, none).contains(filterable));
}

#[test]
fn header_matches_wgsl_size() {
    // Three boxes of four vec4 each and the points' extent: the cells start 16-byte aligned
    // after them.
    assert_eq!(std::mem::size_of::<LatticeHeader>(), 3 * 64 + 16);
}
