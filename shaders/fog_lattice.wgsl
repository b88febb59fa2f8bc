// fog_lattice.wgsl: the `fog_lattice` pass — the corners of every cell of the fog's noise that
// a sample can read this frame, hashed once (`fog_cell_corners`, noise.wgsl) into the lattice
// buffer that `fog_fbm` (fog.wgsl) reads instead of hashing eight corners per octave per sample.
//
// The boxes (which cells, where each octave's run starts) are written by the CPU before the
// pass (src/gpu/passes/fog_lattice.rs); one invocation fills one cell. In the points form
// (`cs_fog_lattice_points`) one invocation hashes one lattice point into the points texture.
//
// Needs noise.wgsl (`FogLattice`, `fog_cell_corners`).

@group(0) @binding(0) var<storage, read_write> lattice: FogLattice;

// Invocations a workgroup. keep in sync with src/gpu/passes/fog_lattice.rs: WORKGROUP_CELLS
const WORKGROUP_CELLS: u32 = 64u;

@compute @workgroup_size(64)
fn cs_fog_lattice(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    // Rows of workgroups, so lattices beyond one dispatch row's 65535 workgroups fit.
    let index = (group.y * groups.x + group.x) * WORKGROUP_CELLS + local;
    let total = lattice.boxes[0].size.w + lattice.boxes[1].size.w + lattice.boxes[2].size.w;
    if index >= total {
        return;
    }
    var octave = 0u;
    if index >= u32(lattice.boxes[1].origin.w) {
        octave = 1u;
    }
    if index >= u32(lattice.boxes[2].origin.w) {
        octave = 2u;
    }
    let lattice_box = lattice.boxes[octave];
    let within = index - u32(lattice_box.origin.w);
    let size = lattice_box.size;
    let x = within % size.x;
    let y = (within / size.x) % size.y;
    let z = within / (size.x * size.y);
    let cell = lattice_box.origin.xyz + vec3<i32>(vec3<u32>(x, y, z));
    lattice.corners[index] = fog_cell_corners(cell);
}

// keep in sync with src/gpu/passes/fog_lattice.rs: POINTS_FORMAT
// The points form: one value a lattice point, each octave's points from the layer its box's
// `origin.w` names.
@group(0) @binding(1) var lattice_points: texture_storage_3d<r32float, write>;

// keep in sync with src/gpu/passes/fog_lattice.rs: POINTS_WORKGROUP
@compute @workgroup_size(4, 4, 4)
fn cs_fog_lattice_points(@builtin(global_invocation_id) id: vec3<u32>) {
    if any(id >= textureDimensions(lattice_points)) {
        return;
    }
    // Each octave's layers, one more than its cells along z; a point beyond its octave's box
    // along x or y is hashed too, and never read.
    var octave = 0u;
    if i32(id.z) >= lattice.boxes[1].origin.w {
        octave = 1u;
    }
    if i32(id.z) >= lattice.boxes[2].origin.w {
        octave = 2u;
    }
    let lattice_box = lattice.boxes[octave];
    let local = vec3<i32>(id) - vec3<i32>(0, 0, lattice_box.origin.w);
    let value = fog_hash(lattice_box.origin.xyz + local);
    textureStore(lattice_points, id, vec4<f32>(value, 0.0, 0.0, 0.0));
}
