// common.wgsl: what every pass that draws into the world shares — the per-frame uniforms
// (camera, lights, the engine's distance fog) and the colour helpers.
//
// Rust concatenates this file in front of a pass's own file (see src/gpu/shaders.rs), so a
// pass sees `frame` at group 0, binding 0 without declaring it.
//
// Conventions: world Y up, the floor at y = 0, every colour here is linear light.

// keep in sync with src/gpu/common.rs: FrameUniforms
struct FrameUniforms {
    // World to clip space (perspective, depth 0..1).
    clip_from_world: mat4x4<f32>,
    // xyz: camera position (world); w: time of the frame in seconds.
    eye_world: vec4<f32>,
    // xyz: centre of the ball (world); w: its radius (world units).
    ball_world: vec4<f32>,
    // xyz: position of the ball's point light (world); w: its range (world units).
    ball_light_world: vec4<f32>,
    // rgb: the point light's colour times this frame's intensity; w: the ball's spin (radians).
    ball_light_color: vec4<f32>,
    // rgb: ambient colour times intensity; w: unused.
    ambient_color: vec4<f32>,
    // xyz: unit vector the directional light travels along (world); w: unused.
    sun_dir_world: vec4<f32>,
    // rgb: directional colour times intensity; w: unused.
    sun_color: vec4<f32>,
    // rgb: colour the far end fades to; w: unused.
    distance_fog_color: vec4<f32>,
    // x: distance where the distance fog starts; y: where it is complete (world units).
    distance_fog_range: vec4<f32>,
}

@group(0) @binding(0) var<uniform> frame: FrameUniforms;

// How much of the engine's linear distance fog covers a point, 0 (none) to 1 (all).
fn distance_fog_amount(pos_world: vec3<f32>) -> f32 {
    let distance_world = length(pos_world - frame.eye_world.xyz);
    let near_world = frame.distance_fog_range.x;
    let far_world = frame.distance_fog_range.y;
    return clamp((distance_world - near_world) / max(far_world - near_world, 1e-4), 0.0, 1.0);
}

// A colour seen through the distance fog from the camera.
fn apply_distance_fog(color: vec3<f32>, pos_world: vec3<f32>) -> vec3<f32> {
    return mix(color, frame.distance_fog_color.rgb, distance_fog_amount(pos_world));
}

// Display (sRGB) components to linear light, the exact piecewise curve.
fn srgb_to_linear(srgb: vec3<f32>) -> vec3<f32> {
    let low = srgb / 12.92;
    let high = pow((srgb + vec3<f32>(0.055)) / 1.055, vec3<f32>(2.4));
    return select(high, low, srgb <= vec3<f32>(0.04045));
}
