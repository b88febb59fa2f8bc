// encode.wgsl: the `encode` pass — the one place linear light becomes 8-bit sRGB.
//
// It copies the linear half-float picture pixel for pixel into an Rgba8UnormSrgb target; the
// target's format applies the sRGB curve (and clamps to 0..1) when it stores, so no shader
// does the conversion by hand. The result is opaque: alpha is written as 1.

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
