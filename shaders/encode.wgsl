// encode.wgsl: the `encode` pass — the one place linear light becomes 8-bit sRGB.
//
// It copies the linear half-float picture pixel for pixel into an Rgba8UnormSrgb target; the
// target's format applies the sRGB curve (and clamps to 0..1) when it stores. The result is
// opaque: alpha is written as 1.
//
// With a per-pixel fog compositor (GPUs whose fragment work is slow) `cs_encode` does the same
// in a compute shader: sRGB formats cannot be storage textures, so it applies the curve itself
// and stores into the same bytes seen as plain Rgba8Unorm. The two may differ by one level
// where a value falls on a rounding boundary.

@group(0) @binding(0) var color_linear: texture_2d<f32>;

// One triangle that covers the whole target.
@vertex
fn vs_encode(@builtin(vertex_index) vertex_index: u32) -> @builtin(position) vec4<f32> {
    let x = f32(vertex_index & 1u) * 4.0 - 1.0;
    let y = f32(vertex_index >> 1u) * 4.0 - 1.0;
    return vec4<f32>(x, y, 0.0, 1.0);
}

@fragment
fn fs_encode(@builtin(position) pos_pixel: vec4<f32>) -> @location(0) vec4<f32> {
    let linear = textureLoad(color_linear, vec2<i32>(pos_pixel.xy), 0);
    return vec4<f32>(linear.rgb, 1.0);
}

// The picture as plain 8-bit storage: `cs_encode` writes it (a separate module's binding in
// effect: the raster pipeline's layout leaves it out).
@group(0) @binding(1) var encoded: texture_storage_2d<rgba8unorm, write>;

// The sRGB transfer curve of a linear value, clamped to [0, 1] first.
fn srgb_from_linear(linear: f32) -> f32 {
    let c = clamp(linear, 0.0, 1.0);
    if c <= 0.0031308 {
        return c * 12.92;
    }
    return 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

@compute @workgroup_size(8, 8)
fn cs_encode(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(encoded);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let pixel = vec2<i32>(id.xy);
    let linear = textureLoad(color_linear, pixel, 0).rgb;
    let srgb = vec3<f32>(
        srgb_from_linear(linear.r),
        srgb_from_linear(linear.g),
        srgb_from_linear(linear.b),
    );
    textureStore(encoded, pixel, vec4<f32>(srgb, 1.0));
}
