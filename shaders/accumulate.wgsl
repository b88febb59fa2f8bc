// accumulate.wgsl: the `accumulate` pass — a frame's samples summed in linear light, and their
// mean written back as the frame's linear picture (src/samples.rs).
//
// After each sample's passes, `cs_first_sample` (sample 0) or `cs_add_sample` adds the linear
// picture to a running sum in 32-bit floats. Two sums take turns, one read and one written, so
// no texture is read and written in one dispatch. The sum's order is fixed (sample 0 first),
// so the bytes are the same on every run. After the last sample `cs_resolve` writes the sum
// times 1/N (the box filter's weight) into the linear picture, which the `encode` pass and the
// EXR readback then read as they read a single sample's.

// The box filter's weight, 1/N: set as a pipeline constant.
override SAMPLE_WEIGHT: f32 = 1.0;

// Summing: this sample's picture, the sum of the samples before it, the sum with it.
@group(0) @binding(0) var picture: texture_2d<f32>;
@group(0) @binding(1) var sum_before: texture_2d<f32>;
@group(0) @binding(2) var sum_after: texture_storage_2d<rgba32float, write>;

// Resolving: the sum of every sample, and the linear picture it becomes.
@group(0) @binding(3) var sum_all: texture_2d<f32>;
@group(0) @binding(4) var resolved: texture_storage_2d<rgba16float, write>;

@compute @workgroup_size(8, 8)
fn cs_first_sample(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(sum_after);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let pixel = vec2<i32>(id.xy);
    textureStore(sum_after, pixel, textureLoad(picture, pixel, 0));
}

@compute @workgroup_size(8, 8)
fn cs_add_sample(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(sum_after);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let pixel = vec2<i32>(id.xy);
    let sum = textureLoad(sum_before, pixel, 0) + textureLoad(picture, pixel, 0);
    textureStore(sum_after, pixel, sum);
}

@compute @workgroup_size(8, 8)
fn cs_resolve(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(resolved);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let pixel = vec2<i32>(id.xy);
    textureStore(resolved, pixel, textureLoad(sum_all, pixel, 0) * SAMPLE_WEIGHT);
}

// ---- `--edge-samples` (src/samples.rs, `Sampling::Edges`) ----
// The samples after the first are drawn on the pixels at an edge alone, and summed over the
// list of those pixels (edges.wgsl; one invocation a listed pixel, dispatched indirectly):
// slot i of `edge_sums` is the sum for listed pixel i. Sample 1 starts it from sample 0's
// picture, copied aside whole (`cs_keep_first_sample`) and bound as `sum_all`
// (`cs_add_first_edge_sample`); later samples add to it (`cs_add_edge_sample`), in sample
// order. The resolve copies sample 0 back over the whole picture (`cs_restore_first_sample`:
// half floats through 32-bit floats, its exact value), then `cs_resolve_edge_list` writes the
// listed pixels' means.
@group(0) @binding(6) var<storage, read> edge_pixels: array<u32>;
// Sample 0's picture kept aside (bound as `sum_all` when read back).
@group(0) @binding(8) var first_sample_kept: texture_storage_2d<rgba16float, write>;
@group(0) @binding(7) var<storage, read_write> edge_sums: array<vec4<f32>>;

// Listed pixel `i` (`x | y << 16`, after the count); (-1, -1) past the count.
fn listed_pixel(i: u32) -> vec2<i32> {
    if i >= edge_pixels[0] {
        return vec2<i32>(-1);
    }
    let packed = edge_pixels[i + 1u];
    return vec2<i32>(i32(packed & 0xffffu), i32(packed >> 16u));
}

@compute @workgroup_size(64)
fn cs_add_first_edge_sample(@builtin(global_invocation_id) id: vec3<u32>) {
    let pixel = listed_pixel(id.x);
    if pixel.x < 0 {
        return;
    }
    edge_sums[id.x] = textureLoad(sum_all, pixel, 0) + textureLoad(picture, pixel, 0);
}

@compute @workgroup_size(64)
fn cs_add_edge_sample(@builtin(global_invocation_id) id: vec3<u32>) {
    let pixel = listed_pixel(id.x);
    if pixel.x < 0 {
        return;
    }
    edge_sums[id.x] = edge_sums[id.x] + textureLoad(picture, pixel, 0);
}

@compute @workgroup_size(64)
fn cs_resolve_edge_list(@builtin(global_invocation_id) id: vec3<u32>) {
    let pixel = listed_pixel(id.x);
    if pixel.x < 0 {
        return;
    }
    textureStore(resolved, pixel, edge_sums[id.x] * SAMPLE_WEIGHT);
}

@compute @workgroup_size(8, 8)
fn cs_keep_first_sample(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(first_sample_kept);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let pixel = vec2<i32>(id.xy);
    textureStore(first_sample_kept, pixel, textureLoad(picture, pixel, 0));
}

@compute @workgroup_size(8, 8)
fn cs_restore_first_sample(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(resolved);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let pixel = vec2<i32>(id.xy);
    textureStore(resolved, pixel, textureLoad(sum_all, pixel, 0));
}
