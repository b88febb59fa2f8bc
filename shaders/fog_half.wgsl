// fog_half.wgsl: the `fog_half` pass — the fog sheets at half width and height
// (`output.fog_resolution: Half`), brought up to the picture's size along the scene's depth.
//
// Three steps, recorded by the `fog` (or `fog_compute`) pass in its slot:
// 1. `fs_half_depth` (pipeline `fog_half.depth`): one fragment per half-size texel writes the
//    depth of one of the 2×2 picture pixels it covers into a half-size depth target — the
//    nearest on one colour of a checkerboard, the farthest on the other, so along a pillar's
//    edge some texels see the pillar and some what lies behind it — and clears the half-size
//    fog target to transparent black.
// 2. The sheets, unchanged (`fs_fog`, or `cs_fog_half` of the compute march), at half size
//    against that depth, into the half-size fog target: premultiplied colour and coverage
//    (1 − transmittance) over transparent black.
// 3. `fs_upsample` (pipeline `fog_half`): each picture pixel takes the four half-size texels
//    round it, with bilinear weights where their depths agree with its own, else the one whose
//    depth is nearest its own ("nearest-depth up-sampling", Bavoil, NVIDIA 2010), and lays
//    that fog over the picture with premultiplied "over". A pixel of a pillar never takes the
//    fog of the floor behind it, so the pillar's edge stays sharp without a halo.
//
// Needs nothing else: no frame uniforms, no noise.

// keep in sync with src/gpu/passes/fog_half.rs: HalfKnobs
struct HalfKnobs {
    // x, y: the picture's width and height; z, w: the half-size targets' (pixels).
    size: vec4<u32>,
    // x: near plane, y: far plane (world units; depth 0 and 1 of the projection); z: the
    // largest difference of depth, relative to the pixel's, at which the four texels still
    // blend bilinearly; w: unused.
    depth: vec4<f32>,
}

// The picture's depth, read as plain floats (the depth target or the compute scene's hits).
@group(0) @binding(0) var scene_depth: texture_2d<f32>;
@group(0) @binding(1) var half_depth: texture_depth_2d;
@group(0) @binding(2) var half_fog: texture_2d<f32>;
@group(0) @binding(3) var<uniform> knobs: HalfKnobs;

// One triangle that covers the whole target.
@vertex
fn vs_full(@builtin(vertex_index) vertex_index: u32) -> @builtin(position) vec4<f32> {
    let x = f32(vertex_index & 1u) * 4.0 - 1.0;
    let y = f32(vertex_index >> 1u) * 4.0 - 1.0;
    return vec4<f32>(x, y, 0.0, 1.0);
}

// The distance from the eye's plane (world units) of a point at clip depth `depth`: the
// projection's depth, 0 at the near plane and 1 at the far plane, undone.
fn view_distance_world(depth: f32) -> f32 {
    let near_world = knobs.depth.x;
    let far_world = knobs.depth.y;
    return near_world * far_world / (far_world - depth * (far_world - near_world));
}

struct HalfDepthOut {
    @location(0) fog: vec4<f32>,
    @builtin(frag_depth) depth: f32,
}

// Step 1: the depth a half-size texel stands for, and transparent black in the fog target.
@fragment
fn fs_half_depth(@builtin(position) pos_pixel: vec4<f32>) -> HalfDepthOut {
    let texel = vec2<i32>(pos_pixel.xy);
    let last = vec2<i32>(knobs.size.xy) - vec2<i32>(1);
    let corner = texel * 2;
    let a = textureLoad(scene_depth, min(corner, last), 0).x;
    let b = textureLoad(scene_depth, min(corner + vec2<i32>(1, 0), last), 0).x;
    let c = textureLoad(scene_depth, min(corner + vec2<i32>(0, 1), last), 0).x;
    let d = textureLoad(scene_depth, min(corner + vec2<i32>(1, 1), last), 0).x;
    let nearest = min(min(a, b), min(c, d));
    let farthest = max(max(a, b), max(c, d));
    let odd = ((texel.x + texel.y) & 1) == 1;
    var out: HalfDepthOut;
    out.fog = vec4<f32>(0.0);
    out.depth = select(nearest, farthest, odd);
    return out;
}

// Step 3: the fog at a picture pixel from the four half-size texels round it.
@fragment
fn fs_upsample(@builtin(position) pos_pixel: vec4<f32>) -> @location(0) vec4<f32> {
    let pixel = vec2<i32>(pos_pixel.xy);
    let distance_world = view_distance_world(textureLoad(scene_depth, pixel, 0).x);
    // The pixel's centre in half-size texels, through the same picture-space position.
    let full = vec2<f32>(knobs.size.xy);
    let half = vec2<f32>(knobs.size.zw);
    let texel_pos = pos_pixel.xy * half / full - vec2<f32>(0.5);
    let floor_pos = floor(texel_pos);
    let f = texel_pos - floor_pos;
    let base = vec2<i32>(floor_pos);
    let last = vec2<i32>(knobs.size.zw) - vec2<i32>(1);
    var offsets = array<vec2<i32>, 4>(
        vec2<i32>(0, 0), vec2<i32>(1, 0), vec2<i32>(0, 1), vec2<i32>(1, 1),
    );
    var weights = array<f32, 4>(
        (1.0 - f.x) * (1.0 - f.y), f.x * (1.0 - f.y), (1.0 - f.x) * f.y, f.x * f.y,
    );
    var blended = vec4<f32>(0.0);
    var nearest = vec4<f32>(0.0);
    var nearest_gap = 3.0e38;
    var widest_gap = 0.0;
    for (var k = 0; k < 4; k += 1) {
        let texel = clamp(base + offsets[k], vec2<i32>(0), last);
        let fog = textureLoad(half_fog, texel, 0);
        let gap = abs(view_distance_world(textureLoad(half_depth, texel, 0)) - distance_world);
        blended += fog * weights[k];
        widest_gap = max(widest_gap, gap);
        if gap < nearest_gap {
            nearest_gap = gap;
            nearest = fog;
        }
    }
    return select(nearest, blended, widest_gap <= knobs.depth.z * distance_world);
}
