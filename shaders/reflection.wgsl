// reflection.wgsl: the `reflection` pass — the hall mirrored in the wet floor.
//
// The hall has already been drawn a second time, mirrored about the floor plane and at a
// fifth of the picture's width and height, into the reflection picture
// (src/gpu/passes/reflection.rs records the `scene`, `flame` and `bolt` passes there with a
// mirrored camera; its picture is flipped left to right so the triangles keep their winding,
// and it holds only the window of the mirrored view where the floor lies). This full-picture
// pass then finds the floor's pixels from the scene's depth and lays the reflection over them:
//
// - strength 0.7 · wetness (`knobs.floor.y`), times a Fresnel term (more at grazing angles),
// - broken up by the stone tiles: each of a slab's four stones is tilted a little (its own
//   offset into the reflection), holds its own share of water and blur, and the joints
//   between stones hold little; a slow ripple, a function of the absolute time, shimmers it,
// - a little blur: five taps of hand-filtered bilinear reads (`textureLoad`, no sampler, so
//   every adapter filters alike, as the fog's maps are).
//
// Blended premultiplied over the scene's picture before the fog is drawn, so the ground fog
// lies over the reflection as over the floor. Needs common.wgsl (the frame's eye and time)
// and noise.wgsl (`fog_hash`).

// keep in sync with src/gpu/passes/reflection.rs: ReflectionKnobs
struct ReflectionKnobs {
    // Clip space to world space of the picture's camera (the inverse of `clip_from_world`).
    world_from_clip: mat4x4<f32>,
    // x: floor height (world); y: strength, 0.7 · wetness; z: side of one slab (world);
    // w: half the floor's side (world).
    floor: vec4<f32>,
    // xy: the picture's size (pixels); zw: the reflection picture's size (pixels).
    sizes: vec4<f32>,
    // The window of the mirrored view the reflection picture holds (NDC): x: left edge;
    // y: top edge; z: width; w: height.
    window: vec4<f32>,
    // The floor's window in the picture (pixels: x, y from the top left, width, height): the
    // raster composite's scissor, the compute composite's range.
    window_px: vec4<u32>,
}

@group(1) @binding(0) var<uniform> knobs: ReflectionKnobs;
@group(1) @binding(1) var reflection_picture: texture_2d<f32>;
// The picture's depth, read as plain floats (the depth target or the compute scene's hits).
@group(1) @binding(2) var scene_depth: texture_2d<f32>;

// Texels across a slab in the floor's painting (keep in sync with src/gpu/passes/scene.rs:
// FLOOR_TEXELS_PER_SLAB): joints lie on texel 0 and the middle texel.
const REFLECTION_SLAB_TEXELS: f32 = 32.0;

// One triangle that covers the whole target.
@vertex
fn vs_reflection(@builtin(vertex_index) vertex_index: u32) -> @builtin(position) vec4<f32> {
    let x = f32(vertex_index & 1u) * 4.0 - 1.0;
    let y = f32(vertex_index >> 1u) * 4.0 - 1.0;
    return vec4<f32>(x, y, 0.0, 1.0);
}

// The reflection picture at `pos_texel` (texel centres at +0.5), filtered bilinearly by hand,
// clamped to the picture's edge.
fn reflection_bilinear(pos_texel: vec2<f32>) -> vec3<f32> {
    let size = vec2<i32>(knobs.sizes.zw);
    let p = pos_texel - vec2<f32>(0.5);
    let base = floor(p);
    let f = p - base;
    let lo = clamp(vec2<i32>(base), vec2<i32>(0), size - vec2<i32>(1));
    let hi = clamp(vec2<i32>(base) + vec2<i32>(1), vec2<i32>(0), size - vec2<i32>(1));
    let c00 = textureLoad(reflection_picture, lo, 0).rgb;
    let c10 = textureLoad(reflection_picture, vec2<i32>(hi.x, lo.y), 0).rgb;
    let c01 = textureLoad(reflection_picture, vec2<i32>(lo.x, hi.y), 0).rgb;
    let c11 = textureLoad(reflection_picture, hi, 0).rgb;
    return mix(mix(c00, c10, f.x), mix(c01, c11, f.x), f.y);
}

// Three values in [0, 1) for one stone of the floor.
fn stone_values(stone: vec2<i32>) -> vec3<f32> {
    return vec3<f32>(
        fog_hash(vec3<i32>(stone, 71)),
        fog_hash(vec3<i32>(stone, 72)),
        fog_hash(vec3<i32>(stone, 73)),
    );
}

@fragment
fn fs_reflection(@builtin(position) pos_pixel: vec4<f32>) -> @location(0) vec4<f32> {
    return reflection_over(pos_pixel.xy);
}

// The reflection to lay premultiplied over the picture's pixel at `pos_pixel` (its centre, in
// pixels from the top left); transparent black off the floor.
fn reflection_over(pos_pixel: vec2<f32>) -> vec4<f32> {
    let strength = knobs.floor.y;
    let depth = textureLoad(scene_depth, vec2<i32>(pos_pixel), 0).x;
    if strength <= 0.0 || depth >= 1.0 {
        return vec4<f32>(0.0);
    }
    // The pixel's point in the world, from its depth.
    let uv = pos_pixel / knobs.sizes.xy;
    let ndc = vec2<f32>(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0);
    let h = knobs.world_from_clip * vec4<f32>(ndc, depth, 1.0);
    let pos_world = h.xyz / h.w;
    let eye_world = frame.eye_world.xyz;
    let distance_world = length(pos_world - eye_world);
    // Only the floor: at its height (within the depth's precision there) and on it.
    let floor_y = knobs.floor.x;
    let half_floor = knobs.floor.w;
    if abs(pos_world.y - floor_y) > 0.004 + 0.0015 * distance_world
        || any(abs(pos_world.xz) > vec2<f32>(half_floor)) {
        return vec4<f32>(0.0);
    }

    // Which stone: a slab is cut into four stones by its joints (as `floor_albedo` paints it).
    let slab_world = knobs.floor.z;
    let on_slab = (pos_world.xz + vec2<f32>(half_floor)) / slab_world;
    let slab = floor(on_slab);
    let texel = floor(fract(on_slab) * REFLECTION_SLAB_TEXELS);
    let middle = floor(REFLECTION_SLAB_TEXELS * 0.5);
    let on_joint = any(texel == vec2<f32>(0.0)) || any(texel == vec2<f32>(middle));
    let stone = vec2<i32>(slab * 2.0 + step(vec2<f32>(middle), texel));
    let values = stone_values(stone);
    // Each stone's tilt, water and blur; the joints hold little water and show no image.
    let tilt = (values.xy - vec2<f32>(0.5)) * 2.0;
    var water = 0.55 + 0.45 * values.z;
    if on_joint {
        water = 0.2;
    }
    // Blur radius in picture pixels.
    let blur_px = 1.6 + 2.4 * (1.0 - values.z);

    // A slow ripple across the water, a function of the absolute time: the shimmer.
    let time_s = frame.eye_world.w;
    let ripple = vec2<f32>(
        sin(pos_world.x * 7.3 + pos_world.z * 2.1 + time_s * 3.1),
        sin(pos_world.z * 6.7 - pos_world.x * 1.7 + time_s * 2.6),
    );
    // Offsets into the reflection, in picture pixels, shrinking with distance as the stones
    // do.
    let scale_px = knobs.sizes.y / max(distance_world, 1.0);
    let offset_px = (tilt * 0.05 + ripple * 0.015) * scale_px;

    // The same floor point in the mirrored view (flipped left to right), in the window the
    // reflection picture holds; picture pixels to reflection texels along each axis.
    let refl_size = knobs.sizes.zw;
    let window = knobs.window;
    let texels_per_px = refl_size / (knobs.sizes.xy * window.zw * 0.5);
    let in_window = vec2<f32>((-ndc.x - window.x) / window.z, (window.y - ndc.y) / window.w);
    let centre = in_window * refl_size + offset_px * texels_per_px;
    let r = blur_px * texels_per_px;
    var color = reflection_bilinear(centre) * 0.4;
    color += reflection_bilinear(centre + vec2<f32>(r.x, r.y)) * 0.15;
    color += reflection_bilinear(centre + vec2<f32>(-r.x, r.y)) * 0.15;
    color += reflection_bilinear(centre + vec2<f32>(r.x, -r.y)) * 0.15;
    color += reflection_bilinear(centre + vec2<f32>(-r.x, -r.y)) * 0.15;

    // Fresnel (Schlick, with a wet stone's floor of 0.25 looking straight down).
    let cos_view = clamp(abs(eye_world.y - pos_world.y) / max(distance_world, 1e-4), 0.0, 1.0);
    let fresnel = 0.25 + 0.75 * pow(1.0 - cos_view, 5.0);
    let share = clamp(strength * fresnel * water, 0.0, 1.0);
    // Premultiplied over the floor: the reflection by `share`, the stone by the rest.
    return vec4<f32>(color * share, share);
}

// ---- the composite in a compute shader (per-pixel fog compositors) ----
// GPUs whose fragment work is slow lay the reflection over the picture here instead: one
// invocation a pixel of the floor's window, the picture before it read from a copy, "over" done
// by hand as the raster pipeline's blend does it; pixels off the floor are not written.
@group(2) @binding(0) var picture_before: texture_2d<f32>;
@group(2) @binding(1) var picture: texture_storage_2d<rgba16float, write>;

// The window of the picture copied into `picture_before` first (`cs_reflection_keep`): a
// texture cannot be read and written in one dispatch. A later sample of `--edge-samples`
// copies and composites the pixels at an edge alone (common.wgsl, `outside_edges`).
@group(2) @binding(2) var picture_now: texture_2d<f32>;
@group(2) @binding(3) var picture_kept: texture_storage_2d<rgba16float, write>;

@compute @workgroup_size(8, 8)
fn cs_reflection_keep(@builtin(global_invocation_id) id: vec3<u32>) {
    let window = knobs.window_px;
    let pixel = window.xy + id.xy;
    if id.x >= window.z || id.y >= window.w || outside_edges(pixel) {
        return;
    }
    textureStore(picture_kept, vec2<i32>(pixel), textureLoad(picture_now, vec2<i32>(pixel), 0));
}

@compute @workgroup_size(8, 8)
fn cs_reflection(@builtin(global_invocation_id) id: vec3<u32>) {
    let window = knobs.window_px;
    let pixel = window.xy + id.xy;
    if id.x >= window.z || id.y >= window.w || outside_edges(pixel) {
        return;
    }
    let over = reflection_over(vec2<f32>(pixel) + vec2<f32>(0.5));
    if all(over == vec4<f32>(0.0)) {
        return;
    }
    let under = textureLoad(picture_before, vec2<i32>(pixel), 0);
    let keep = 1.0 - over.a;
    textureStore(picture, vec2<i32>(pixel), over + under * keep);
}

// ---- the mirror kept at each pixel at an edge, for the later edge samples' batch ----
// Where the later edge samples are drawn in one go (src/gpu/passes/edge_batch.rs), the mirror
// over each listed pixel's centre is kept once a frame, after sample 0. A later sample that
// sees the floor lays over it the mirror kept with the fog of the same surface
// (scene_compute.wgsl, `edge_batch_sample`): the mirror is blurred and a fifth of the
// picture's size, so a neighbour's differs from the pixel's own by little.

// The edge list (edges.wgsl): the count, then each listed pixel as `x | y << 16`.
@group(2) @binding(4) var<storage, read> edge_pixels: array<u32>;
// Slot i: the mirror over listed pixel i's centre, premultiplied (transparent off the floor).
@group(2) @binding(5) var<storage, read_write> edge_mirror: array<vec4<f32>>;

@compute @workgroup_size(64)
fn cs_reflection_keep_edges(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= edge_pixels[0] {
        return;
    }
    let packed = edge_pixels[id.x + 1u];
    let pixel = vec2<u32>(packed & 0xffffu, packed >> 16u);
    edge_mirror[id.x] = reflection_over(vec2<f32>(pixel) + vec2<f32>(0.5));
}
