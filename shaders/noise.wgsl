// noise.wgsl: the noises the passes share, with no bindings, so any stage (a fragment shader
// now, a compute compositor later) can call them.
//
// - `fog_noise`: the fog's 3D value noise, one octave, as the temple example reads it, and the
//   pieces the fog's lattice (`FogLattice`, filled once a frame by the `fog_lattice` pass) is
//   made of; `fog_fbm` in fog.wgsl sums three octaves of it. The sheets sample it in world
//   space, so together they make one 3D volume.
// - `tile_fbm`: a 2D value noise that repeats every stone slab, seeded, standing in for the
//   example's 32-pixel painted floor tile.

// A pseudo-random value in [0, 1) for an integer lattice point of the fog's noise: the `pcg3d`
// permutation of Jarzynski & Olano, "Hash Functions for GPU Rendering" (JCGT 2020), on the
// point's coordinates as 32-bit integers. Integer multiplies, adds, xors and shifts are exact
// on every adapter, and the top 24 bits convert to an f32 exactly, so every GPU (and lavapipe)
// gets the same lattice values bit for bit; a float hash (`fract` of a product of numbers up to
// 17^4) keeps digits that GPUs round differently, which showed as blobs of different fog.
fn fog_hash(cell: vec3<i32>) -> f32 {
    var v = bitcast<vec3<u32>>(cell) * 1664525u + vec3<u32>(1013904223u);
    v.x += v.y * v.z;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    v = v ^ (v >> vec3<u32>(16u));
    v.x += v.y * v.z;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    return f32(v.x >> 8u) / 16777216.0;
}

// The eight lattice values round one cell of the fog's noise: the corners at the cell's x
// (`low_x`) and at x + 1 (`high_x`), each holding (y, z) = (0, 0), (1, 0), (0, 1), (1, 1).
struct FogCellCorners {
    low_x: vec4<f32>,
    high_x: vec4<f32>,
}

// The corners of the cell whose lowest corner is the lattice point `cell`, hashed.
fn fog_cell_corners(cell: vec3<i32>) -> FogCellCorners {
    return FogCellCorners(
        vec4<f32>(
            fog_hash(cell),
            fog_hash(cell + vec3<i32>(0, 1, 0)),
            fog_hash(cell + vec3<i32>(0, 0, 1)),
            fog_hash(cell + vec3<i32>(0, 1, 1)),
        ),
        vec4<f32>(
            fog_hash(cell + vec3<i32>(1, 0, 0)),
            fog_hash(cell + vec3<i32>(1, 1, 0)),
            fog_hash(cell + vec3<i32>(1, 0, 1)),
            fog_hash(cell + vec3<i32>(1, 1, 1)),
        ),
    );
}

// Value noise in [0, 1] inside one cell: its corner values blended with a smoothstep along
// each axis, `f` the point's place in the cell (0..1 on each axis). Along x first, all four
// edges at once, then y, then z.
fn fog_noise_in_cell(corners: FogCellCorners, f: vec3<f32>) -> f32 {
    let w = f * f * (3.0 - 2.0 * f);
    // The four edges along x: (y, z) = (0, 0), (1, 0), (0, 1), (1, 1).
    let along_x = mix(corners.low_x, corners.high_x, w.x);
    // The two along y at z = 0 and z = 1.
    let along_y = mix(along_x.xz, along_x.yw, w.y);
    return mix(along_y.x, along_y.y, w.z);
}

// Value noise in [0, 1] at `p`, its cell's corners hashed here.
fn fog_noise(p: vec3<f32>) -> f32 {
    let floor_p = floor(p);
    return fog_noise_in_cell(fog_cell_corners(vec3<i32>(floor_p)), p - floor_p);
}

// keep in sync with src/gpu/passes/fog_lattice.rs: OCTAVE_SCALES, OCTAVE_OFFSETS
// Where octave `octave` (0, 1 or 2) of the fog's noise reads its lattice for the point `p`:
// each octave at about twice the last one's frequency, shifted so their lattices do not line up.
fn fog_octave_point(p: vec3<f32>, octave: u32) -> vec3<f32> {
    switch octave {
        case 1u: {
            return p * 2.03 + vec3<f32>(5.2, 1.3, 7.1);
        }
        case 2u: {
            return p * 4.01 + vec3<f32>(2.7, 9.1, 3.3);
        }
        default: {
            return p;
        }
    }
}

// keep in sync with src/gpu/passes/fog_lattice.rs: LatticeBox
// The block of lattice cells one octave of the fog's noise can read in a frame.
struct FogLatticeBox {
    // xyz: the lowest cell; w: where its corners start in `FogLattice::corners`.
    origin: vec4<i32>,
    // xyz: how many cells along each axis; w: how many in all.
    size: vec4<u32>,
    // `origin` as floats (`fog_points_noise` converts no integer per sample).
    origin_f32: vec4<f32>,
    // xyz: the last cell along each axis (`size` − 1) as floats.
    last_f32: vec4<f32>,
}

// The fog's noise lattice for one frame (`fog_lattice` pass): the corners of every cell each
// octave can read, hashed once a frame instead of eight times a sample. Each octave's cells
// run x fastest, then y, then z.
struct FogLattice {
    boxes: array<FogLatticeBox, 3>,
    // xyz: the points texture's texels along each axis, as floats.
    points_extent_f32: vec4<f32>,
    corners: array<FogCellCorners>,
}

// An integer hash (PCG-style permutation) of a lattice point and a seed, to [0, 1).
fn tile_hash(cell: vec2<u32>, seed: u32) -> f32 {
    var h = cell.x * 747796405u + cell.y * 2891336453u + seed * 277803737u;
    h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
    h = (h >> 22u) ^ h;
    return f32(h >> 8u) / 16777216.0;
}

// Value noise in [0, 1] that repeats every `period` lattice cells along x and y, for `p` in
// [-period, 2 period) on both axes (`tile_fbm` gives it [0, period]: a slab's 0..1 times the
// period).
fn tile_noise(p: vec2<f32>, period: u32, seed: u32) -> f32 {
    let cell = floor(p);
    let f = p - cell;
    let w = f * f * (3.0 - 2.0 * f);
    // The lattice cell and the next one wrapped into 0..period by adding or taking one period:
    // over that range the same cells as `%` (a CPU adapter, lavapipe, works an integer `%` out
    // one pixel at a time: x86 has no vector integer division).
    let period_i = vec2<i32>(i32(period));
    let cell_i = vec2<i32>(cell);
    let above = select(cell_i, cell_i + period_i, cell_i < vec2<i32>(0));
    let c0 = vec2<u32>(select(above, above - period_i, above >= period_i));
    let next = c0 + vec2<u32>(1u);
    let c1 = select(next, vec2<u32>(0u), next >= vec2<u32>(period));
    let a = tile_hash(c0, seed);
    let b = tile_hash(vec2<u32>(c1.x, c0.y), seed);
    let c = tile_hash(vec2<u32>(c0.x, c1.y), seed);
    let d = tile_hash(c1, seed);
    return mix(mix(a, b, w.x), mix(c, d, w.x), w.y);
}

// Three octaves of `tile_noise` over a slab: `uv_tile` runs 0..1 across one slab, and the
// first octave has `cells` lattice cells across it (each octave doubles them), so the result
// repeats exactly from slab to slab. Normalised to [0, 1].
fn tile_fbm(uv_tile: vec2<f32>, cells: u32, seed: u32) -> f32 {
    var sum = 0.0;
    var weight = 0.5;
    var period = cells;
    for (var octave = 0u; octave < 3u; octave += 1u) {
        sum += tile_noise(uv_tile * f32(period), period, seed + octave) * weight;
        weight *= 0.5;
        period *= 2u;
    }
    return sum / 0.875;
}
