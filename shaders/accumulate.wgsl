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
// The samples after the first are drawn on the pixels at an edge alone (edges.wgsl). They add
// only there; every other pixel's sum stays sample 0 and is resolved with weight 1, so it keeps
// sample 0's value exactly.
@group(0) @binding(5) var edge_mask: texture_2d<u32>;

fn at_edge(pixel: vec2<i32>) -> bool {
    return textureLoad(edge_mask, pixel, 0).x != 0u;
}

@compute @workgroup_size(8, 8)
fn cs_add_edge_sample(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(sum_after);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let pixel = vec2<i32>(id.xy);
    var sum = textureLoad(sum_before, pixel, 0);
    if at_edge(pixel) {
        sum += textureLoad(picture, pixel, 0);
    }
    textureStore(sum_after, pixel, sum);
}

@compute @workgroup_size(8, 8)
fn cs_resolve_edges(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(resolved);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let pixel = vec2<i32>(id.xy);
    let weight = select(1.0, SAMPLE_WEIGHT, at_edge(pixel));
    textureStore(resolved, pixel, textureLoad(sum_all, pixel, 0) * weight);
}
