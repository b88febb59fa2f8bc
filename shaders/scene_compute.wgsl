// scene_compute.wgsl: the `scene` pass without a fragment stage, for GPUs whose fragment work
// is many times slower than their compute work (what the per-pixel fog compositors are for).
// The hall is drawn by four compute entry points and shaded by scene.wgsl's `shade_surface`,
// the function the raster pass's fragment shader calls:
//
// 1. `cs_scene_setup`, one invocation a triangle: the corners in world space (the ball's moved
//    to the ball), the edges a ray test needs, and the pixels the triangle can cover, clipped at
//    the near plane; back faces cover none, as the raster pipeline culls them. A triangle whose
//    box meets at most `raster.size.w` 16 × 16 tiles counts itself into each of them; a larger
//    one joins the short list of big triangles that every tile tests.
// 2. `cs_scene_bin_scan`, one workgroup: each tile's count becomes the start of its range in
//    the binned list (a prefix sum), which starts behind the big triangles.
// 3. `cs_scene_bin_fill`, one invocation a triangle: each binned triangle writes its index into
//    the range of every tile its box meets (an atomic cursor a tile).
// 4. `cs_scene_raster`, one workgroup a tile: the workgroup gathers, 256 at a time, those of
//    the big triangles and of its own range whose boxes meet the tile; each pixel casts its
//    view ray through its centre at them and keeps the nearest hit (the lowest triangle on a
//    tie, as a raster depth test of `Less` keeps the first drawn), interpolates the corners'
//    attributes at the hit and shades. The order in which a tile tests its triangles (set by
//    the atomics) cannot change the hit.
//    The hit point's depth goes to a 32-bit float picture that a small raster pass then writes
//    into the depth target (depth targets cannot be storage textures), for the passes after.
//
// Needs common.wgsl, noise.wgsl, fires.wgsl, lamps.wgsl and scene.wgsl in front of it.

// keep in sync with src/gpu/passes/scene_compute.rs: RasterKnobs
struct RasterKnobs {
    // Clip space back to world space: the inverse of `frame.clip_from_world`.
    world_from_clip: mat4x4<f32>,
    // x: picture width (pixels); y: picture height (pixels); z: triangles this frame (the
    // hall's, then the walkers'); w: the most tiles a triangle's box may meet and still be
    // binned (0: every triangle is big, and every tile tests all of them).
    size: vec4<u32>,
    // rgb: what the picture is cleared to where nothing is hit (linear); a: 1.
    clear_color: vec4<f32>,
}

// A triangle as the raster entry point tests it.
struct ScreenTriangle {
    // xyz: the first corner (world); w: unused.
    corner_world: vec4<f32>,
    // xyz: the second corner minus the first (world); w: unused.
    edge_1_world: vec4<f32>,
    // xyz: the third corner minus the first (world); w: unused.
    edge_2_world: vec4<f32>,
    // The pixels it may cover: lowest x, lowest y, highest x, highest y (inclusive); empty
    // (x > z) when it covers none.
    box_px: vec4<i32>,
}

@group(1) @binding(1) var<uniform> raster: RasterKnobs;
// The vertices (the `SceneVertex` layout: position, normal, albedo, material; ten words each).
@group(1) @binding(2) var<storage, read> vertices: array<u32>;
@group(1) @binding(3) var<storage, read_write> triangles: array<ScreenTriangle>;
@group(1) @binding(4) var picture: texture_storage_2d<rgba16float, write>;
@group(1) @binding(5) var picture_depth: texture_storage_2d<r32float, write>;

// keep in sync with src/gpu/passes/scene_compute.rs: TILE_BIN_BYTES
// One tile's range in `bin_triangles`. The setup counts into `end`, the scan turns the counts
// into starts (`end` = `start`) and the fill advances `end` as it writes.
struct TileBin {
    start: u32,
    end: atomic<u32>,
}

// keep in sync with src/gpu/passes/scene_compute.rs: BINS_HEADER_BYTES
// The bins of a frame, cleared before the setup.
struct SceneBins {
    // The big triangles: `bin_triangles[0..big_count]`.
    big_count: atomic<u32>,
    // Each tile's range, row by row.
    tiles: array<TileBin>,
}

@group(1) @binding(6) var<storage, read_write> bins: SceneBins;
// Triangle indices: the big triangles first (room for every triangle of the frame), then the
// tiles' ranges (room for `raster.size.w` a triangle).
@group(1) @binding(7) var<storage, read_write> bin_triangles: array<u32>;

// keep in sync with src/gpu/geometry.rs: SceneVertex (words per vertex)
const VERTEX_WORDS: u32 = 10u;
// Pixels a side of one tile (one workgroup); the tile's pixels gather triangles together.
const TILE_SIDE_PX: u32 = 16u;
const TILE_PIXELS: u32 = 256u;
// How far outside its edges (a fraction of the triangle) a ray still hits it, so that a pixel
// centre on an edge two triangles share is never missed by both.
const EDGE_SLACK: f32 = 1e-5;
const NO_TRIANGLE: u32 = 0xffffffffu;
// Threads of the one workgroup of `cs_scene_bin_scan`.
const SCAN_THREADS: u32 = 256u;

fn vertex_vec3(vertex: u32, word: u32) -> vec3<f32> {
    let at = vertex * VERTEX_WORDS + word;
    return vec3<f32>(
        bitcast<f32>(vertices[at]),
        bitcast<f32>(vertices[at + 1u]),
        bitcast<f32>(vertices[at + 2u]),
    );
}

fn vertex_material(vertex: u32) -> u32 {
    return vertices[vertex * VERTEX_WORDS + 9u];
}

// Where a vertex is in the world, as `vs_scene` places it.
fn vertex_world(vertex: u32) -> vec3<f32> {
    let pos_model = vertex_vec3(vertex, 0u);
    if vertex_material(vertex) == MATERIAL_BALL {
        return pos_model + frame.ball_world.xyz;
    }
    return pos_model;
}

// A clip-space point in front of the near plane, in pixels (x right, y down).
fn clip_to_px(clip: vec4<f32>) -> vec2<f32> {
    let ndc = clip.xy / clip.w;
    let size_px = vec2<f32>(raster.size.xy);
    return vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5) * size_px;
}

// The pixels a triangle may cover: the box round its part in front of the near plane (the
// clipped polygon's corners), a pixel wider each way for rounding, within the picture.
fn covered_box_px(corners_world: array<vec3<f32>, 3>) -> vec4<i32> {
    var clips: array<vec4<f32>, 3>;
    for (var i = 0u; i < 3u; i += 1u) {
        clips[i] = frame.clip_from_world * vec4<f32>(corners_world[i], 1.0);
    }
    var low = vec2<f32>(3.0e38);
    var high = vec2<f32>(-3.0e38);
    for (var i = 0u; i < 3u; i += 1u) {
        let a = clips[i];
        let b = clips[(i + 1u) % 3u];
        if a.z >= 0.0 {
            let px = clip_to_px(a);
            low = min(low, px);
            high = max(high, px);
        }
        // Where the edge crosses the near plane (depth 0 in clip space).
        if (a.z >= 0.0) != (b.z >= 0.0) {
            let px = clip_to_px(mix(a, b, a.z / (a.z - b.z)));
            low = min(low, px);
            high = max(high, px);
        }
    }
    let last = vec2<f32>(raster.size.xy) - 1.0;
    let low_px = clamp(floor(low) - 1.0, vec2<f32>(0.0), last + 1.0);
    let high_px = clamp(floor(high) + 1.0, vec2<f32>(-1.0), last);
    // Nothing in front (low stays huge) or nothing on screen gives low > high.
    return vec4<i32>(vec2<i32>(low_px), vec2<i32>(high_px));
}

@compute @workgroup_size(64)
fn cs_scene_setup(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index >= raster.size.z {
        return;
    }
    let p0 = vertex_world(index * 3u);
    let p1 = vertex_world(index * 3u + 1u);
    let p2 = vertex_world(index * 3u + 2u);
    var triangle: ScreenTriangle;
    triangle.corner_world = vec4<f32>(p0, 0.0);
    triangle.edge_1_world = vec4<f32>(p1 - p0, 0.0);
    triangle.edge_2_world = vec4<f32>(p2 - p0, 0.0);
    triangle.box_px = vec4<i32>(1, 1, 0, 0);
    // Counter-clockwise on screen is the front, as the raster pipeline has it: the face's
    // winding normal points at the eye. Back faces are culled.
    let facing = dot(cross(p1 - p0, p2 - p0), frame.eye_world.xyz - p0);
    if facing > 0.0 {
        triangle.box_px = covered_box_px(array<vec3<f32>, 3>(p0, p1, p2));
    }
    triangles[index] = triangle;
    let box_tiles = tiles_of_box(triangle.box_px);
    let tile_count = tiles_in(box_tiles);
    if tile_count == 0u {
        return;
    }
    if tile_count > raster.size.w {
        bin_triangles[atomicAdd(&bins.big_count, 1u)] = index;
        return;
    }
    for (var y = box_tiles.y; y <= box_tiles.w; y += 1u) {
        for (var x = box_tiles.x; x <= box_tiles.z; x += 1u) {
            atomicAdd(&bins.tiles[tile_index(vec2<u32>(x, y))].end, 1u);
        }
    }
}

// Tiles across the picture.
fn tiles_across() -> u32 {
    return (raster.size.x + TILE_SIDE_PX - 1u) / TILE_SIDE_PX;
}

// The bin of the tile at `tile` (in tiles).
fn tile_index(tile: vec2<u32>) -> u32 {
    return tile.y * tiles_across() + tile.x;
}

// The tiles a pixel box meets: lowest x, lowest y, highest x, highest y (inclusive); empty
// (x > z) for an empty box. A box that is not empty lies in the picture.
fn tiles_of_box(box_px: vec4<i32>) -> vec4<u32> {
    if any(box_px.xy > box_px.zw) {
        return vec4<u32>(1u, 1u, 0u, 0u);
    }
    return vec4<u32>(box_px) / TILE_SIDE_PX;
}

// How many tiles `box_tiles` (from `tiles_of_box`) holds.
fn tiles_in(box_tiles: vec4<u32>) -> u32 {
    if any(box_tiles.xy > box_tiles.zw) {
        return 0u;
    }
    let side = box_tiles.zw - box_tiles.xy + 1u;
    return side.x * side.y;
}

var<workgroup> scan_sums: array<u32, SCAN_THREADS>;

// The prefix sum over the tiles' counts: each thread sums a run of tiles, the workgroup scans
// the runs' sums, and each thread then sets its tiles' starts. The first range starts behind
// the room for the big triangles.
@compute @workgroup_size(256)
fn cs_scene_bin_scan(@builtin(local_invocation_index) local: u32) {
    let tiles = tiles_across() * ((raster.size.y + TILE_SIDE_PX - 1u) / TILE_SIDE_PX);
    let run = (tiles + SCAN_THREADS - 1u) / SCAN_THREADS;
    let first = min(local * run, tiles);
    let last = min(first + run, tiles);
    var sum = 0u;
    for (var t = first; t < last; t += 1u) {
        sum += atomicLoad(&bins.tiles[t].end);
    }
    scan_sums[local] = sum;
    workgroupBarrier();
    // Hillis–Steele: after the step of `reach`, each entry sums the 2·reach runs up to it.
    for (var reach = 1u; reach < SCAN_THREADS; reach *= 2u) {
        var before = 0u;
        if local >= reach {
            before = scan_sums[local - reach];
        }
        workgroupBarrier();
        scan_sums[local] += before;
        workgroupBarrier();
    }
    var start = raster.size.z + scan_sums[local] - sum;
    for (var t = first; t < last; t += 1u) {
        let count = atomicLoad(&bins.tiles[t].end);
        bins.tiles[t].start = start;
        atomicStore(&bins.tiles[t].end, start);
        start += count;
    }
}

// Each binned triangle writes its index into the ranges of the tiles its box meets.
@compute @workgroup_size(64)
fn cs_scene_bin_fill(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index >= raster.size.z {
        return;
    }
    let box_tiles = tiles_of_box(triangles[index].box_px);
    let tile_count = tiles_in(box_tiles);
    if tile_count == 0u || tile_count > raster.size.w {
        return;
    }
    for (var y = box_tiles.y; y <= box_tiles.w; y += 1u) {
        for (var x = box_tiles.x; x <= box_tiles.z; x += 1u) {
            let slot = atomicAdd(&bins.tiles[tile_index(vec2<u32>(x, y))].end, 1u);
            bin_triangles[slot] = index;
        }
    }
}

// The tile's triangles of the current batch.
var<workgroup> tile_triangles: array<u32, TILE_PIXELS>;
// Their pixel boxes, which each pixel tests before it reads the triangle itself.
var<workgroup> tile_boxes: array<vec4<i32>, TILE_PIXELS>;
var<workgroup> tile_triangle_count: atomic<u32>;
// The triangles the tile tests: the big ones, then its own range (none when the sample draws
// none of its pixels).
var<workgroup> tile_work: u32;
var<workgroup> tile_big_count: u32;
var<workgroup> tile_range_start: u32;

// The nearest hit so far along one pixel's ray.
struct Hit {
    // Distance along the ray (world units per unit of `ray_world`).
    t: f32,
    // Barycentric weights of the second and third corners.
    weights: vec2<f32>,
    triangle: u32,
}

// Tests the tile's `gathered`th triangle of the batch against the ray from the eye along
// `ray_world` through `pixel`, and keeps it in `hit` if it is nearer (or as near and drawn
// first).
fn test_triangle(gathered: u32, pixel: vec2<i32>, ray_world: vec3<f32>, hit: ptr<function, Hit>) {
    let box_px = tile_boxes[gathered];
    if any(pixel < box_px.xy) || any(pixel > box_px.zw) {
        return;
    }
    let index = tile_triangles[gathered];
    *hit = nearer_hit(triangles[index], index, ray_world, *hit);
}

// Triangle `index` if the ray from the eye along `ray_world` hits it nearer than `hit` (or as
// near, and it was drawn first), else `hit`.
fn nearer_hit(triangle: ScreenTriangle, index: u32, ray_world: vec3<f32>, hit: Hit) -> Hit {
    let edge_1 = triangle.edge_1_world.xyz;
    let edge_2 = triangle.edge_2_world.xyz;
    // Möller–Trumbore with the division left to the end: u, v and t are scaled by `det`, which
    // is positive for a front face seen along the ray.
    let p = cross(ray_world, edge_2);
    let det = dot(edge_1, p);
    // Written so that a NaN fails too: a hit is never a NaN, so the nearest one does not
    // depend on the order of the tests.
    if !(det > 0.0) {
        return hit;
    }
    let from_corner = frame.eye_world.xyz - triangle.corner_world.xyz;
    let u = dot(from_corner, p);
    let q = cross(from_corner, edge_1);
    let v = dot(ray_world, q);
    let slack = -EDGE_SLACK * det;
    if u < slack || v < slack || u + v > det - slack {
        return hit;
    }
    let t = dot(edge_2, q) / det;
    if t > hit.t || (t == hit.t && index > hit.triangle) {
        return hit;
    }
    // The raster pipeline clips at the near and far planes: what lies outside is not drawn.
    let clip = frame.clip_from_world * vec4<f32>(frame.eye_world.xyz + ray_world * t, 1.0);
    if clip.z < 0.0 || clip.z > clip.w {
        return hit;
    }
    return Hit(t, vec2<f32>(u, v) / det, index);
}

// The ray (world, not normalised: from the eye to the far plane) through pixel `pixel`'s centre.
fn tile_pixel_ray_world(pixel: vec2<i32>) -> vec3<f32> {
    return offset_ray_world(pixel, vec2<f32>(0.0));
}

// The same ray through `pixel`'s centre moved by `offset_px` (x right, y down, pixels): a later
// edge sample's ray in `cs_scene_edge_batch`.
fn offset_ray_world(pixel: vec2<i32>, offset_px: vec2<f32>) -> vec3<f32> {
    let size_px = vec2<f32>(raster.size.xy);
    let ndc = vec2<f32>(
        (f32(pixel.x) + 0.5 + offset_px.x) / size_px.x * 2.0 - 1.0,
        1.0 - (f32(pixel.y) + 0.5 + offset_px.y) / size_px.y * 2.0,
    );
    let far_clip = raster.world_from_clip * vec4<f32>(ndc, 1.0, 1.0);
    return far_clip.xyz / far_clip.w - frame.eye_world.xyz;
}

// The colour and depth at a hit, the fragment shader's inputs rebuilt from the corners.
fn shade_hit(hit: Hit, ray_world: vec3<f32>) -> vec4<f32> {
    let first = hit.triangle * 3u;
    let w = vec3<f32>(1.0 - hit.weights.x - hit.weights.y, hit.weights.x, hit.weights.y);
    let pos_world = frame.eye_world.xyz + ray_world * hit.t;
    var normal_world = vec3<f32>(0.0);
    var albedo = vec3<f32>(0.0);
    var pos_model = vec3<f32>(0.0);
    for (var k = 0u; k < 3u; k += 1u) {
        normal_world += w[k] * vertex_vec3(first + k, 3u);
        albedo += w[k] * vertex_vec3(first + k, 6u);
        pos_model += w[k] * vertex_vec3(first + k, 0u);
    }
    // Flat attributes come from the first corner (the provoking vertex).
    let material = vertex_material(first);
    return vec4<f32>(shade_surface(pos_world, normal_world, albedo, pos_model, material), 1.0);
}

// How many triangles the workgroup of `tile` tests: none when `drawn` is false for all of its
// invocations, else the big triangles and the tile's own range. Every invocation calls it.
fn tile_work_for(local: u32, tile: vec2<u32>, drawn: bool) -> u32 {
    if local == 0u {
        atomicStore(&tile_triangle_count, 0u);
    }
    workgroupBarrier();
    if drawn {
        atomicAdd(&tile_triangle_count, 1u);
    }
    workgroupBarrier();
    if local == 0u {
        var work = 0u;
        if atomicLoad(&tile_triangle_count) > 0u {
            let bin = tile_index(tile);
            let big = atomicLoad(&bins.big_count);
            tile_big_count = big;
            tile_range_start = bins.tiles[bin].start - big;
            work = big + atomicLoad(&bins.tiles[bin].end) - bins.tiles[bin].start;
        }
        tile_work = work;
    }
    return workgroupUniformLoad(&tile_work);
}

// Gathers into `tile_triangles` those of the `count` triangles of `tile_work_for`, from the
// `batch`th on (at most `TILE_PIXELS` of them), whose boxes meet `tile`; returns how many.
// Every invocation of the workgroup calls it; it ends on a barrier.
fn tile_gather(batch: u32, count: u32, local: u32, tile: vec2<u32>) -> u32 {
    let tile_low = vec2<i32>(tile * TILE_SIDE_PX);
    let tile_high = tile_low + i32(TILE_SIDE_PX) - 1;
    if local == 0u {
        atomicStore(&tile_triangle_count, 0u);
    }
    workgroupBarrier();
    let at = batch + local;
    if at < count {
        // The big triangles, then the tile's range (whose boxes all meet the tile).
        let index = bin_triangles[select(tile_range_start + at, at, at < tile_big_count)];
        let box_px = triangles[index].box_px;
        if all(box_px.xy <= tile_high) && all(box_px.zw >= tile_low) {
            let gathered = atomicAdd(&tile_triangle_count, 1u);
            tile_triangles[gathered] = index;
            tile_boxes[gathered] = box_px;
        }
    }
    workgroupBarrier();
    return atomicLoad(&tile_triangle_count);
}

// The nearest of the `gathered` triangles in `tile_triangles` along the ray from the eye along
// `ray_world` through `pixel`, or `hit` if none is nearer.
fn gathered_nearest_hit(gathered: u32, pixel: vec2<i32>, ray_world: vec3<f32>, hit: Hit) -> Hit {
    var nearest = hit;
    for (var k = 0u; k < gathered; k += 1u) {
        test_triangle(k, pixel, ray_world, &nearest);
    }
    return nearest;
}

// The nearest of the `count` triangles of `tile_work_for` along the ray from the eye along
// `ray_world` through `pixel`; no hit where `drawn` is false. Every invocation of the workgroup
// runs every batch (the barriers need the whole workgroup), also those whose pixel is not
// drawn, but only those drawn test the triangles: a warp with none skips the tests.
fn tile_nearest_hit(
    count: u32,
    local: u32,
    tile: vec2<u32>,
    pixel: vec2<i32>,
    drawn: bool,
    ray_world: vec3<f32>,
) -> Hit {
    var hit = Hit(3.0e38, vec2<f32>(0.0), NO_TRIANGLE);
    for (var batch = 0u; batch < count; batch += TILE_PIXELS) {
        let gathered = tile_gather(batch, count, local, tile);
        if drawn {
            hit = gathered_nearest_hit(gathered, pixel, ray_world, hit);
        }
        workgroupBarrier();
    }
    return hit;
}

@compute @workgroup_size(16, 16)
fn cs_scene_raster(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) tile: vec3<u32>,
) {
    let pixel = vec2<i32>(id.xy);
    let ray_world = tile_pixel_ray_world(pixel);
    // A later sample of `--edge-samples` draws the pixels at an edge alone: a tile
    // with none of them gathers no triangles (common.wgsl, `outside_edges`).
    let drawn = all(id.xy < raster.size.xy) && !outside_edges(id.xy);
    let count = tile_work_for(local, tile.xy, drawn);
    let hit = tile_nearest_hit(count, local, tile.xy, pixel, drawn, ray_world);
    if !drawn {
        return;
    }
    if hit.triangle == NO_TRIANGLE {
        // The sky behind the hall (sky.wgsl; the clear colour itself without clouds or water).
        textureStore(picture, pixel, vec4<f32>(sky_seen(ray_world, raster.clear_color.rgb), 1.0));
        textureStore(picture_depth, pixel, vec4<f32>(1.0));
        return;
    }
    textureStore(picture, pixel, shade_hit(hit, ray_world));
    let clip = frame.clip_from_world * vec4<f32>(frame.eye_world.xyz + ray_world * hit.t, 1.0);
    textureStore(picture_depth, pixel, vec4<f32>(clip.z / clip.w));
}

// ---- the later edge samples in one dispatch (src/gpu/passes/edge_batch.rs) ----
//
// Without a shutter the later samples of `--edge-samples` differ from sample 0 only in their
// sub-pixel offsets, and the compute compositor lays over them the fog kept once a frame
// (fog_compute.wgsl, `cs_fog_reuse_edges`). So `cs_scene_edge_batch` draws them all in one
// dispatch. Each tile with a listed pixel gathers its triangles: once for every sample where
// at most 256 of them meet the tile, else once a sample. Each listed pixel casts one ray a
// sample, shades the hit, lays the wet floor's mirror (a scene with weather) and the fog kept
// for the nearest surface over it, and adds the result to its slot's sum. Each sample's depth
// is kept for the flames (flame.wgsl, `fs_flame_edge_batch`), and the `edges` pass's resolve
// adds sample 0's picture.

// Group 2, bindings 1 to 4 and 6 (binding 0 is the depth fill's, 5 the raster path's list). Samples a pixel in all, sample 0
// included.
override EDGE_BATCH_SAMPLES: u32 = 8u;
// Sample k's offset inside the pixel (x right, y down, pixels) in `.xy`.
@group(2) @binding(1) var<storage, read> batch_offsets: array<vec4<f32>>;
// The fog kept for each listed pixel (src/gpu/targets.rs, `EdgeList::fog`).
@group(2) @binding(2) var<storage, read> batch_edge_fog: array<vec4<f32>>;
// Slot i: the sum of listed pixel i's later samples (linear, premultiplied by nothing).
@group(2) @binding(3) var<storage, read_write> batch_sums: array<vec4<f32>>;
// Slot i's later samples' depths, EDGE_BATCH_SAMPLES - 1 of them, in sample order.
@group(2) @binding(4) var<storage, read_write> batch_depths: array<f32>;

// Whether the batch lays the wet floor's mirror over what it sees (a scene with weather), as
// the `reflection` pass's composite does over each sample drawn one by one.
override BATCH_MIRROR: bool = false;
// Slot i: the mirror kept at listed pixel i's centre (reflection.wgsl,
// `cs_reflection_keep_edges`), premultiplied, transparent off the floor.
@group(2) @binding(6) var<storage, read> batch_edge_mirror: array<vec4<f32>>;

// The list slot of `pixel` plus one (edges.wgsl), or 0 off the list or off the picture.
fn batch_slot(pixel: vec2<i32>) -> u32 {
    if any(pixel < vec2<i32>(0)) || any(pixel >= vec2<i32>(raster.size.xy)) {
        return 0u;
    }
    return textureLoad(edge_mask, pixel, 0).x;
}

// The slot of listed pixel `slot` or of a listed neighbour, whichever kept its fog at the
// distance nearest `t_world` (the surface this sample sees), as `cs_fog_reuse_edges` picks it.
fn batch_kept_slot(pixel: vec2<i32>, slot: u32, t_world: f32) -> u32 {
    var chosen = slot;
    var gap = abs(batch_edge_fog[2u * slot + 1u].x - t_world);
    let around = array<vec2<i32>, 8>(
        vec2<i32>(-1, 0), vec2<i32>(1, 0), vec2<i32>(0, -1), vec2<i32>(0, 1),
        vec2<i32>(-1, -1), vec2<i32>(1, -1), vec2<i32>(-1, 1), vec2<i32>(1, 1),
    );
    for (var n = 0u; n < 8u; n += 1u) {
        let their = batch_slot(pixel + around[n]);
        if their == 0u {
            continue;
        }
        let their_gap = abs(batch_edge_fog[2u * (their - 1u) + 1u].x - t_world);
        if their_gap < gap {
            gap = their_gap;
            chosen = their - 1u;
        }
    }
    return chosen;
}

// Later sample `sample` (1 and up) of listed pixel `slot`: the scene at `hit` along `ray_world`
// with the kept fog of the nearest surface over it. Keeps the sample's depth for the flames.
fn edge_batch_sample(
    pixel: vec2<i32>,
    slot: u32,
    sample: u32,
    hit: Hit,
    ray_world: vec3<f32>,
) -> vec4<f32> {
    var scene = vec4<f32>(0.0);
    var depth = 1.0;
    // Along the unit ray, as the kept fog's distances are (3e38: nothing drawn).
    var t_world = 3.0e38;
    if hit.triangle == NO_TRIANGLE {
        scene = vec4<f32>(sky_seen(ray_world, raster.clear_color.rgb), 1.0);
    } else {
        scene = shade_hit(hit, ray_world);
        let clip = frame.clip_from_world * vec4<f32>(frame.eye_world.xyz + ray_world * hit.t, 1.0);
        depth = clip.z / clip.w;
        t_world = hit.t * length(ray_world);
    }
    let kept = batch_kept_slot(pixel, slot, t_world);
    if BATCH_MIRROR {
        // The mirror kept with that surface's fog, "over" as the composite's blend: the floor's
        // where this sample sees the floor, nothing where it sees a pillar.
        let over = batch_edge_mirror[kept];
        scene = over + scene * (1.0 - over.a);
    }
    let fog = batch_edge_fog[2u * kept];
    batch_depths[slot * (EDGE_BATCH_SAMPLES - 1u) + sample - 1u] = depth;
    // As `composite_over_scene`: the fog (premultiplied) over the scene.
    if fog.a >= 1.0 {
        return scene;
    }
    return vec4<f32>(fog.rgb + scene.rgb * fog.a, 1.0 - fog.a + scene.a * fog.a);
}

@compute @workgroup_size(16, 16)
fn cs_scene_edge_batch(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) tile: vec3<u32>,
) {
    let pixel = vec2<i32>(id.xy);
    let listed = batch_slot(pixel);
    let count = tile_work_for(local, tile.xy, listed != 0u);
    var sum = vec4<f32>(0.0);
    if count <= TILE_PIXELS {
        // One gathering holds all the tile's triangles, and every sample tests them.
        let gathered = tile_gather(0u, count, local, tile.xy);
        if listed != 0u {
            for (var k = 1u; k < EDGE_BATCH_SAMPLES; k += 1u) {
                let ray_world = offset_ray_world(pixel, batch_offsets[k].xy);
                let none = Hit(3.0e38, vec2<f32>(0.0), NO_TRIANGLE);
                let hit = gathered_nearest_hit(gathered, pixel, ray_world, none);
                sum += edge_batch_sample(pixel, listed - 1u, k, hit, ray_world);
            }
            batch_sums[listed - 1u] = sum;
        }
        return;
    }
    // More than one gathering: each sample gathers them again.
    for (var k = 1u; k < EDGE_BATCH_SAMPLES; k += 1u) {
        let ray_world = offset_ray_world(pixel, batch_offsets[k].xy);
        let hit = tile_nearest_hit(count, local, tile.xy, pixel, listed != 0u, ray_world);
        // Every invocation goes round the loop: its gathering needs the whole workgroup.
        if listed != 0u {
            sum += edge_batch_sample(pixel, listed - 1u, k, hit, ray_world);
        }
    }
    if listed != 0u {
        batch_sums[listed - 1u] = sum;
    }
}

// ---- the later edge samples by listed pixel: the raster compositor's batch ----
//
// The raster compositor draws sample 0 with the raster pipeline, and it is the default on CPU
// adapters (lavapipe), where each workgroup barrier is a coroutine switch. Its batch,
// `cs_scene_edge_batch_by_pixel`, runs one invocation a listed pixel over the list's indirect
// dispatch, with no workgroup memory and no barrier. The setup binned the triangles once, for
// sample 0's camera. Each invocation walks the big triangles and its tile's range, reads each
// triangle whose box holds its pixel once, and tests it against the ray of every later sample.
// Then it shades each sample's nearest hit as `cs_scene_edge_batch` does. Its loops over the
// samples are bound by the offsets' length, not by the constant, so that no compiler unrolls
// the shading seven times (as the flames' batch, a tenth of a second more on lavapipe).

// The edge list (edges.wgsl): the count, then each listed pixel as `x | y << 16`.
@group(2) @binding(5) var<storage, read> batch_pixels: array<u32>;

// The most samples a pixel a batch draws, sample 0 included.
// keep in sync with src/gpu/passes/edge_batch.rs: MAX_LATER_SAMPLES
const BATCH_SAMPLES_MAX: u32 = 16u;
// The triangles a pixel gathers before it tests them.
const BATCH_CANDIDATES: u32 = 32u;

@compute @workgroup_size(64)
fn cs_scene_edge_batch_by_pixel(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= batch_pixels[0] {
        return;
    }
    let packed = batch_pixels[id.x + 1u];
    let pixel = vec2<i32>(i32(packed & 0xffffu), i32(packed >> 16u));
    // The big triangles, then the tile's own range.
    let bin = tile_index(vec2<u32>(pixel) / TILE_SIDE_PX);
    let big = atomicLoad(&bins.big_count);
    let range_start = bins.tiles[bin].start;
    let work = big + atomicLoad(&bins.tiles[bin].end) - range_start;
    var hits: array<Hit, BATCH_SAMPLES_MAX>;
    for (var k = 1u; k < arrayLength(&batch_offsets); k += 1u) {
        hits[k] = Hit(3.0e38, vec2<f32>(0.0), NO_TRIANGLE);
    }
    // The triangles whose boxes hold the pixel, a run of them at a time, each tested against
    // every sample's ray.
    var candidates: array<u32, BATCH_CANDIDATES>;
    var at = 0u;
    loop {
        var found = 0u;
        for (; at < work && found < BATCH_CANDIDATES; at += 1u) {
            let index = bin_triangles[select(range_start - big + at, at, at < big)];
            let box_px = triangles[index].box_px;
            if all(pixel >= box_px.xy) && all(pixel <= box_px.zw) {
                candidates[found] = index;
                found += 1u;
            }
        }
        for (var k = 1u; k < arrayLength(&batch_offsets); k += 1u) {
            let ray_world = offset_ray_world(pixel, batch_offsets[k].xy);
            var hit = hits[k];
            for (var c = 0u; c < found; c += 1u) {
                let index = candidates[c];
                hit = nearer_hit(triangles[index], index, ray_world, hit);
            }
            hits[k] = hit;
        }
        if at >= work {
            break;
        }
    }
    var sum = vec4<f32>(0.0);
    for (var k = 1u; k < arrayLength(&batch_offsets); k += 1u) {
        let ray_world = offset_ray_world(pixel, batch_offsets[k].xy);
        sum += edge_batch_sample(pixel, id.x, k, hits[k], ray_world);
    }
    batch_sums[id.x] = sum;
}

// ---- the depth target from the float picture: a full-screen triangle, depth only ----
@group(2) @binding(0) var depth_source: texture_2d<f32>;

@vertex
fn vs_scene_depth(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    return vec4<f32>(full_screen_ndc(index), 0.0, 1.0);
}

@fragment
fn fs_scene_depth(@builtin(position) position: vec4<f32>) -> @builtin(frag_depth) f32 {
    return textureLoad(depth_source, vec2<i32>(position.xy), 0).x;
}
