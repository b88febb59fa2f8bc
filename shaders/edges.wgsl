// edges.wgsl: the `edges` pass — which pixels of a frame's first sample lie at an edge, for
// `--edge-samples` (src/samples.rs, `Sampling::Edges`).
//
// `cs_edge_mask` runs after sample 0's passes. It encodes the linear picture to sRGB, as the
// `encode` pass will, and marks a pixel (with its slot in the list, plus one) when any channel
// differs from one of its four neighbours' by more than EDGE_CONTRAST_LEVELS of 255. An edge
// marks the pixels on both of its sides; a thin streak marks itself and its neighbours. It
// also lists the marked pixels, and `cs_edge_dispatch` sizes a dispatch over that list. The
// later samples draw only the marked pixels (the per-pixel marches and the `accumulate` pass
// over the list), and the `accumulate` pass averages only those.
//
// `cs_edge_mask_by_quad` is the CPU adapter's form of the same mask: no workgroup memory and
// no barrier, each invocation marking a 2 × 2 quad, each marked pixel listed by itself.
// lavapipe runs a workgroup's barriers as coroutine switches, which cost more than encoding
// each pixel three times.
//
// `fs_outside_edges` serves the raster compositor: before a later sample's `scene` pass it
// writes the nearest depth (0) into every unmarked pixel, so the scene, the fog's sheets and
// the passes over them fail their depth test there and shade nothing. The compute passes read
// the mask themselves (common.wgsl, `outside_edges`).

// keep in sync with src/gpu/passes/edges.rs: EDGE_CONTRAST_LEVELS
override EDGE_CONTRAST_LEVELS: f32 = 8.0;

@group(0) @binding(0) var picture: texture_2d<f32>;
@group(0) @binding(1) var mask_written: texture_storage_2d<r32uint, write>;

// The sRGB curve on one channel, clamped to [0, 1] as the encode pass clamps.
fn to_srgb(linear: f32) -> f32 {
    let c = clamp(linear, 0.0, 1.0);
    if c <= 0.0031308 {
        return c * 12.92;
    }
    return 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

fn encoded(pixel: vec2<i32>) -> vec3<f32> {
    let linear = textureLoad(picture, pixel, 0).rgb;
    return vec3<f32>(to_srgb(linear.r), to_srgb(linear.g), to_srgb(linear.b));
}

// Whether a pixel encoded as `here` differs from one of its four encoded `neighbours` by more
// than EDGE_CONTRAST_LEVELS in any channel.
fn stands_out(here: vec3<f32>, neighbours: array<vec3<f32>, 4>) -> bool {
    var contrast = vec3<f32>(0.0);
    for (var n = 0; n < 4; n++) {
        contrast = max(contrast, abs(here - neighbours[n]));
    }
    let levels = max(contrast.r, max(contrast.g, contrast.b)) * 255.0;
    return levels > EDGE_CONTRAST_LEVELS;
}

// The marked pixels as a list (src/gpu/targets.rs, `EdgeList`): a count, then `x | y << 16`
// for each. In `cs_edge_mask` each workgroup takes one run of slots with one atomic, so the
// list keeps the workgroups' 8 × 8 blocks together. The order of the slots varies from run to
// run, and no pass lets it reach a picture (each writes its own pixel).
struct EdgeList {
    count: atomic<u32>,
    pixels: array<u32>,
}
@group(0) @binding(3) var<storage, read_write> edge_list: EdgeList;
// The indirect dispatch over the list, EDGE_LIST_WORKGROUP invocations a workgroup, then the
// indirect draw of one point a listed pixel (`vs_edge_point`): vertices, instances, first
// vertex, first instance.
@group(0) @binding(4) var<storage, read_write> edge_dispatch: array<u32, 7>;

// Set from src/gpu/targets.rs: EDGE_LIST_WORKGROUP.
override EDGE_LIST_WORKGROUP: u32 = 64u;

var<workgroup> group_marked: atomic<u32>;
var<workgroup> group_first_slot: u32;

// The workgroup's 8 × 8 pixels and a ring of one round them, encoded once each: 100
// encodings for 64 pixels, where each pixel encoding itself and its four neighbours took 320.
const TILE_SIDE: u32 = 10u;
var<workgroup> tile_encoded: array<vec3<f32>, 100>;

@compute @workgroup_size(8, 8)
fn cs_edge_mask(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    let size = vec2<i32>(textureDimensions(picture));
    let last = size - vec2<i32>(1);
    // A neighbour off the picture is the pixel at its border, as a clamped read has it.
    let tile_origin = vec2<i32>(group.xy * 8u) - vec2<i32>(1);
    for (var i = local; i < TILE_SIDE * TILE_SIDE; i += 64u) {
        let at = tile_origin + vec2<i32>(i32(i % TILE_SIDE), i32(i / TILE_SIDE));
        tile_encoded[i] = encoded(clamp(at, vec2<i32>(0), last));
    }
    workgroupBarrier();
    let pixel = vec2<i32>(id.xy);
    var marked = false;
    if all(pixel < size) {
        // Here, and its neighbours left, right, above and below, clamped at the borders.
        let centre = (local_id.y + 1u) * TILE_SIDE + local_id.x + 1u;
        let left = tile_encoded[select(centre - 1u, centre, pixel.x == 0)];
        let right = tile_encoded[select(centre + 1u, centre, pixel.x == last.x)];
        let up = tile_encoded[select(centre - TILE_SIDE, centre, pixel.y == 0)];
        let down = tile_encoded[select(centre + TILE_SIDE, centre, pixel.y == last.y)];
        marked = stands_out(tile_encoded[centre], array(left, right, up, down));
    }
    // The workgroup's marked pixels take consecutive slots of the list.
    if local == 0u {
        atomicStore(&group_marked, 0u);
    }
    workgroupBarrier();
    var slot = 0u;
    if marked {
        slot = atomicAdd(&group_marked, 1u);
    }
    workgroupBarrier();
    // Only a workgroup with a marked pixel touches the list's count: every workgroup's atomic
    // on the one count would queue behind the others'.
    if local == 0u {
        let group_count = atomicLoad(&group_marked);
        var first = 0u;
        if group_count > 0u {
            first = atomicAdd(&edge_list.count, group_count);
        }
        group_first_slot = first;
    }
    let first_slot = workgroupUniformLoad(&group_first_slot);
    if marked {
        edge_list.pixels[first_slot + slot] = u32(pixel.x) | (u32(pixel.y) << 16u);
    }
    // The mask holds each marked pixel's slot in the list plus one, 0 off the edges.
    if all(pixel < size) {
        textureStore(mask_written, pixel, vec4<u32>(select(0u, first_slot + slot + 1u, marked)));
    }
}

// The CPU adapter's form of `cs_edge_mask`: the same mask, each invocation marking a 2 × 2
// quad of pixels from the twelve pixels round and in it, each encoded once (three encodings a
// pixel, where a pixel encoding its four neighbours itself took five), and each marked pixel
// taking its slot with an atomic of its own.
@compute @workgroup_size(8, 8)
fn cs_edge_mask_by_quad(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = vec2<i32>(textureDimensions(picture));
    let quad = vec2<i32>(id.xy) * 2;
    if any(quad >= size) {
        return;
    }
    let last = size - vec2<i32>(1);
    // The quad's pixels (ab over cd) and the two beside each side, clamped at the borders as
    // a neighbour off the picture is the pixel at its border. A pixel of the quad off the
    // picture (an odd size) is read clamped too, and never marked.
    let a = encoded(quad);
    let b = encoded(min(quad + vec2<i32>(1, 0), last));
    let c = encoded(min(quad + vec2<i32>(0, 1), last));
    let d = encoded(min(quad + vec2<i32>(1, 1), last));
    let left_a = encoded(max(quad + vec2<i32>(-1, 0), vec2<i32>(0)));
    let left_c = encoded(clamp(quad + vec2<i32>(-1, 1), vec2<i32>(0), last));
    let right_b = encoded(min(quad + vec2<i32>(2, 0), last));
    let right_d = encoded(min(quad + vec2<i32>(2, 1), last));
    let above_a = encoded(max(quad + vec2<i32>(0, -1), vec2<i32>(0)));
    let above_b = encoded(clamp(quad + vec2<i32>(1, -1), vec2<i32>(0), last));
    let below_c = encoded(min(quad + vec2<i32>(0, 2), last));
    let below_d = encoded(min(quad + vec2<i32>(1, 2), last));
    // Left, right, above and below, as `cs_edge_mask` has them.
    mark_by_pixel(quad, size, stands_out(a, array(left_a, b, above_a, c)));
    mark_by_pixel(quad + vec2<i32>(1, 0), size, stands_out(b, array(a, right_b, above_b, d)));
    mark_by_pixel(quad + vec2<i32>(0, 1), size, stands_out(c, array(left_c, d, a, below_c)));
    mark_by_pixel(quad + vec2<i32>(1, 1), size, stands_out(d, array(c, right_d, b, below_d)));
}

// The mask and the list at `pixel` of the `size` picture, if inside it: a slot of its own if
// `marked`.
fn mark_by_pixel(pixel: vec2<i32>, size: vec2<i32>, marked: bool) {
    if any(pixel >= size) {
        return;
    }
    var slot_plus_one = 0u;
    if marked {
        let slot = atomicAdd(&edge_list.count, 1u);
        edge_list.pixels[slot] = u32(pixel.x) | (u32(pixel.y) << 16u);
        slot_plus_one = slot + 1u;
    }
    textureStore(mask_written, pixel, vec4<u32>(slot_plus_one));
}

// Each later sample's scene colour at the listed pixels, after its `scene` pass: the fog that
// `cs_fog_reuse_edges` (fog_compute.wgsl) lays over it is read from here, so the sample needs
// no copy of the whole picture.
@group(0) @binding(5) var<storage, read_write> edge_scene: array<vec4<f32>>;

@compute @workgroup_size(64)
fn cs_edge_gather_scene(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= atomicLoad(&edge_list.count) {
        return;
    }
    let packed = edge_list.pixels[id.x];
    let pixel = vec2<i32>(i32(packed & 0xffffu), i32(packed >> 16u));
    edge_scene[id.x] = textureLoad(picture, pixel, 0);
}

// After `cs_edge_mask`: the workgroups of a dispatch over the list.
@compute @workgroup_size(1)
fn cs_edge_dispatch() {
    let count = atomicLoad(&edge_list.count);
    edge_dispatch[0] = (count + EDGE_LIST_WORKGROUP - 1u) / EDGE_LIST_WORKGROUP;
    edge_dispatch[1] = 1u;
    edge_dispatch[2] = 1u;
    edge_dispatch[3] = count;
    edge_dispatch[4] = 1u;
    edge_dispatch[5] = 0u;
    edge_dispatch[6] = 0u;
}

// ---- the raster compositor's depth: nearest outside the edges, far on them ----
@group(0) @binding(2) var mask_read: texture_2d<u32>;

@vertex
fn vs_outside_edges(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    let corner = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    return vec4<f32>(corner * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_outside_edges(@builtin(position) position: vec4<f32>) -> @builtin(frag_depth) f32 {
    if textureLoad(mask_read, vec2<i32>(position.xy), 0).x != 0u {
        discard;
    }
    return 0.0;
}

// ---- the later edge samples drawn in one go: the mean (src/gpu/passes/edge_batch.rs) ----
//
// `cs_scene_edge_batch` summed each listed pixel's later samples into its slot, and the flames
// of those samples were added to the picture, which holds sample 0. The resolve draws one point
// at each listed pixel's centre (`vs_edge_point`, by the indirect draw `cs_edge_dispatch`
// sized), and `fs_edge_batch_resolve` draws the pixel's sum over the picture, both weighted by
// 1/N through the blend constant: the mean of the N samples. No fragment runs off the list.
@group(0) @binding(6) var<storage, read> batch_sums: array<vec4<f32>>;
// The list (`EdgeList`) read as plain words: the count, then each listed pixel.
@group(0) @binding(7) var<storage, read> point_list: array<u32>;

struct EdgePoint {
    @builtin(position) pos_clip: vec4<f32>,
    // The listed pixel's slot.
    @location(0) @interpolate(flat) slot: u32,
}

@vertex
fn vs_edge_point(@builtin(vertex_index) slot: u32) -> EdgePoint {
    let packed = point_list[slot + 1u];
    let pixel = vec2<f32>(f32(packed & 0xffffu), f32(packed >> 16u)) + 0.5;
    let size = vec2<f32>(textureDimensions(mask_read));
    let ndc = vec2<f32>(pixel.x / size.x * 2.0 - 1.0, 1.0 - pixel.y / size.y * 2.0);
    return EdgePoint(vec4<f32>(ndc, 0.0, 1.0), slot);
}

@fragment
fn fs_edge_batch_resolve(in: EdgePoint) -> @location(0) vec4<f32> {
    return batch_sums[in.slot];
}
