// over_samples.wgsl: the rain and the bolt drawn once over the mean of a frame's samples
// (src/gpu/passes/edge_batch.rs). Where the later edge samples are drawn in one go, the
// picture holds their mean when the rain and the bolt are drawn. Each of their fragments then
// weighs its quad at every sample's offset inside the pixel, along the quad's derivatives as
// the flames' batch does, tests each against that sample's depth, and draws the mean. Their
// quads are a pixel wider a side there, so a sample inside a streak whose pixel's centre lies
// outside it still counts.
//
// The includer declares `scene_depth`, the scene's depth read as plain floats. Needs
// common.wgsl (`edge_mask`).

// Each sample's offset inside the pixel (x right, y down, pixels) in `.xy`, sample 0 first.
@group(2) @binding(0) var<storage, read> over_offsets: array<vec4<f32>>;
// Each listed pixel's later samples' depths, in sample order (the batch's).
@group(2) @binding(1) var<storage, read> over_depths: array<f32>;

// The samples a pixel.
fn over_sample_count() -> u32 {
    return arrayLength(&over_offsets);
}

// Sample `k`'s depth of the scene at `pixel`: the batch's at a listed pixel (`listed`, its
// slot plus one), the scene's (sample 0's) for sample 0 and off the list, where no edge moves
// it.
fn over_sample_depth(pixel: vec2<i32>, listed: u32, k: u32) -> f32 {
    if k == 0u || listed == 0u {
        return textureLoad(scene_depth, pixel, 0).x;
    }
    return over_depths[(listed - 1u) * (over_sample_count() - 1u) + k - 1u];
}
