// rain.wgsl: rain as streaks, drawn after the bolt and laid over the picture.
//
// Each drop is computed here from its index and the absolute time alone (no buffers of drops,
// no state): src/weather/rain.rs is the CPU twin, operation for operation, and its tests speak
// for this file. keep in sync with src/weather/rain.rs.
//
// A drop is a screen-facing quad from its head back along its motion over the shutter time,
// lit by the ambient, the ball's light and the fires (a streak near a torch glints), faded by
// the distance fog and depth tested against the scene.

// keep in sync with src/weather/rain.rs: RAIN_DROPS, RAIN_RADIUS_WORLD, RAIN_HEIGHT_WORLD,
// RAIN_FALL_WORLD_PER_S, RAIN_STREAK_S, RAIN_CLEAR_WORLD, RAIN_MAX_ROOFS
const RAIN_DROPS: u32 = 2400u;
const RAIN_RADIUS_WORLD: f32 = 14.0;
const RAIN_HEIGHT_WORLD: f32 = 12.0;
const RAIN_FALL_WORLD_PER_S: f32 = 11.0;
const RAIN_STREAK_S: f32 = 0.05;
const RAIN_CLEAR_WORLD: f32 = 1.0;
const RAIN_MAX_ROOFS: u32 = 256u;

// keep in sync with src/gpu/passes/rain.rs: RainUniforms
struct RainUniforms {
    // xy: centre (x, z) of a roof; z: half its side; w: height of its underside (world).
    roofs: array<vec4<f32>, 256>,
    // x: drops drawn; y: roofs; z: time (s); w: opacity of a streak.
    counts: vec4<f32>,
    // xy: the wind's accumulated drift (x, z), world units; zw: its velocity (x, z), u/s.
    wind: vec4<f32>,
    // rgb: the rain's colour (linear); w: width of a streak in pixels.
    color: vec4<f32>,
    // xy: picture size in pixels; zw: unused.
    viewport: vec4<f32>,
}

@group(1) @binding(0) var<uniform> rain: RainUniforms;

// keep in sync with src/weather/rain.rs: hash
fn rain_hash(value: u32) -> u32 {
    var x = value;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

// keep in sync with src/weather/rain.rs: unit
fn rain_unit(h: u32) -> f32 {
    return f32(h >> 8u) * (1.0 / 16777216.0);
}

// keep in sync with src/weather/rain.rs: wrap_round
fn rain_wrap_round(value: f32, center: f32) -> f32 {
    let span = 2.0 * RAIN_RADIUS_WORLD;
    return center + (fract((value - center) / span + 0.5) - 0.5) * span;
}

// keep in sync with src/weather/rain.rs: sheltered
fn rain_sheltered(p: vec3<f32>) -> bool {
    let count = min(u32(rain.counts.y), RAIN_MAX_ROOFS);
    for (var i = 0u; i < count; i += 1u) {
        let roof = rain.roofs[i];
        if abs(p.x - roof.x) < roof.z && abs(p.z - roof.y) < roof.z && p.y < roof.w {
            return true;
        }
    }
    return false;
}

struct Drop {
    head: vec3<f32>,
    tail: vec3<f32>,
    drawn: bool,
}

// keep in sync with src/weather/rain.rs: drop_at
fn rain_drop(index: u32, time_s: f32, eye: vec3<f32>) -> Drop {
    var out: Drop;
    out.drawn = false;
    if index >= u32(rain.counts.x) {
        return out;
    }
    let start = rain_hash((index * 0x9e3779b9u) ^ 0x5bd1e995u);
    let fallen = time_s * (RAIN_FALL_WORLD_PER_S / RAIN_HEIGHT_WORLD) + rain_unit(start);
    let falls = floor(fallen);
    let across = rain_hash(start ^ rain_hash(bitcast<u32>(i32(falls))));
    let span = 2.0 * RAIN_RADIUS_WORLD;
    let x = rain_wrap_round(rain_unit(across) * span + rain.wind.x, eye.x);
    let z = rain_wrap_round(rain_unit(rain_hash(across)) * span + rain.wind.y, eye.z);
    let y = eye.y + RAIN_HEIGHT_WORLD * 0.5 - (fallen - falls) * RAIN_HEIGHT_WORLD;
    let head = vec3<f32>(x, y, z);
    if y < 0.0 || length(head - eye) < RAIN_CLEAR_WORLD || rain_sheltered(head) {
        return out;
    }
    out.head = head;
    out.tail = vec3<f32>(
        x - rain.wind.z * RAIN_STREAK_S,
        y + RAIN_FALL_WORLD_PER_S * RAIN_STREAK_S,
        z - rain.wind.w * RAIN_STREAK_S,
    );
    out.drawn = true;
    return out;
}

struct RainOut {
    @builtin(position) clip: vec4<f32>,
    // −1 at one side of the streak, 1 at the other.
    @location(0) across: f32,
    // Light on the drop times its opacity after the distance fog (rgb), and the opacity (a).
    @location(1) shade: vec4<f32>,
}

@vertex
fn vs_rain(@builtin(vertex_index) vertex: u32) -> RainOut {
    var out: RainOut;
    let eye = frame.eye_world.xyz;
    let time_s = frame.eye_world.w;
    let drop = rain_drop(vertex / 6u, time_s, eye);
    if !drop.drawn {
        // Behind the far plane: clipped, nothing drawn.
        out.clip = vec4<f32>(0.0, 0.0, 2.0, 1.0);
        out.across = 0.0;
        out.shade = vec4<f32>(0.0);
        return out;
    }
    let corner = vertex % 6u;
    let at_tail = corner == 1u || corner == 2u || corner == 4u;
    let side = select(-1.0, 1.0, corner == 2u || corner == 4u || corner == 5u);
    let clip_head = frame.clip_from_world * vec4<f32>(drop.head, 1.0);
    let clip_tail = frame.clip_from_world * vec4<f32>(drop.tail, 1.0);
    let half_px = rain.viewport.xy * 0.5;
    let screen_head = clip_head.xy / max(clip_head.w, 1e-4) * half_px;
    let screen_tail = clip_tail.xy / max(clip_tail.w, 1e-4) * half_px;
    let along = screen_tail - screen_head;
    let direction = select(vec2<f32>(0.0, 1.0), normalize(along), length(along) > 1e-3);
    let normal = vec2<f32>(-direction.y, direction.x);
    let clip = select(clip_head, clip_tail, at_tail);
    let offset_px = normal * side * rain.color.w * 0.5;
    out.clip = clip + vec4<f32>(offset_px / half_px * clip.w, 0.0, 0.0);
    out.across = side;

    // Lit as a tiny sphere facing the eye: the ambient, the ball's light and the fires.
    let to_eye = normalize(eye - drop.head);
    let to_lamp = frame.ball_light_world.xyz - drop.head;
    let lamp_falloff = max(1.0 - length(to_lamp) / max(frame.ball_light_world.w, 1e-4), 0.0);
    let light = frame.ambient_color.rgb
        + frame.ball_light_color.rgb * (lamp_falloff * lamp_falloff)
        + fire_light_on_surface(drop.head, to_eye, time_s) * 1.5;
    let opacity = rain.counts.w * (1.0 - distance_fog_amount(drop.head));
    out.shade = vec4<f32>(rain.color.rgb * light * opacity, opacity);
    return out;
}

@fragment
fn fs_rain(in: RainOut) -> @location(0) vec4<f32> {
    let t = 1.0 - abs(in.across);
    // Premultiplied: a soft-edged streak.
    return in.shade * t;
}
