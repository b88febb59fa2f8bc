// rain.wgsl: rain as streaks, drawn after the bolt and laid over the picture.
//
// Each drop is computed here from its index and the absolute time alone (no buffers of drops,
// no state): src/weather/rain.rs is the CPU twin, operation for operation, and its tests speak
// for this file. keep in sync with src/weather/rain.rs.
//
// A drop is a screen-facing quad from its head back along its motion over the shutter time,
// lit by the ambient, the ball's light and the fires (a streak near a torch glints), faded by
// the distance fog and depth tested against the scene. Where a drop meets the floor it
// splashes faintly: a small disc that widens and fades over RAIN_SPLASH_S (vertices from
// RAIN_DROPS · 6 on), never under a roof.

// keep in sync with src/weather/rain.rs: RAIN_DROPS, RAIN_RADIUS_WORLD, RAIN_HEIGHT_WORLD,
// RAIN_FALL_WORLD_PER_S, RAIN_STREAK_S, RAIN_CLEAR_WORLD, RAIN_MAX_ROOFS
const RAIN_DROPS: u32 = 2400u;
const RAIN_RADIUS_WORLD: f32 = 14.0;
const RAIN_HEIGHT_WORLD: f32 = 12.0;
const RAIN_FALL_WORLD_PER_S: f32 = 11.0;
const RAIN_STREAK_S: f32 = 0.05;
const RAIN_CLEAR_WORLD: f32 = 1.0;
const RAIN_MAX_ROOFS: u32 = 256u;
// keep in sync with src/weather/rain.rs: RAIN_SPLASH_S, RAIN_SPLASH_RADIUS_WORLD
const RAIN_SPLASH_S: f32 = 0.12;
const RAIN_SPLASH_RADIUS_WORLD: vec2<f32> = vec2<f32>(0.03, 0.16);
// keep in sync with src/weather/debris.rs: DEBRIS_MAX, DEBRIS_LIFE_S, DEBRIS_RADIUS_WORLD,
// DEBRIS_STREAK_S
const DEBRIS_MAX: u32 = 48u;
const DEBRIS_LIFE_S: f32 = 1.2;
const DEBRIS_RADIUS_WORLD: f32 = 5.0;
const DEBRIS_STREAK_S: f32 = 0.04;
// The debris's colour (linear: a dark leaf brown) and opacity at the middle of its life.
const DEBRIS_COLOR: vec3<f32> = vec3<f32>(0.09, 0.06, 0.03);
const DEBRIS_OPACITY: f32 = 0.9;
// A splash's opacity as a share of a streak's, as it starts (it fades out over its life).
const RAIN_SPLASH_OPACITY: f32 = 1.2;
// Height of a splash's quad over the floor (world), so it wins the depth test there.
const RAIN_SPLASH_LIFT_WORLD: f32 = 0.01;

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
    // xy: picture size in pixels; z: debris pieces drawn; w: unused.
    viewport: vec4<f32>,
}

@group(1) @binding(0) var<uniform> rain: RainUniforms;
// The scene's depth as plain floats (src/gpu/targets.rs: `scene_depth_view`), read only with
// `RAIN_READS_SCENE_DEPTH`.
@group(1) @binding(1) var scene_depth: texture_2d<f32>;

// Whether the drops are hidden behind the scene by reading its depth instead of by a depth
// test: where the compute `scene` pass leaves its depths in a float picture and no depth target
// (src/gpu/passes/scene_compute.rs: `reads_hit_depths`).
override RAIN_READS_SCENE_DEPTH: bool = false;

// Whether the drops are drawn once over the mean of the frame's samples
// (over_samples.wgsl, `fs_rain_over_samples`): each streak's quad is a pixel wider a side.
override RAIN_OVER_SAMPLES: bool = false;

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

// Where a drop met the floor less than RAIN_SPLASH_S ago, and how long ago (w); w < 0 when
// it has no splash now.
// keep in sync with src/weather/rain.rs: splash_at
fn rain_splash(index: u32, time_s: f32, eye: vec3<f32>) -> vec4<f32> {
    let none = vec4<f32>(0.0, 0.0, 0.0, -1.0);
    if index >= u32(rain.counts.x) {
        return none;
    }
    let start = rain_hash((index * 0x9e3779b9u) ^ 0x5bd1e995u);
    let fallen = time_s * (RAIN_FALL_WORLD_PER_S / RAIN_HEIGHT_WORLD) + rain_unit(start);
    let falls = floor(fallen);
    let hit = (eye.y + RAIN_HEIGHT_WORLD * 0.5) / RAIN_HEIGHT_WORLD;
    let age_s = (fallen - falls - hit) * (RAIN_HEIGHT_WORLD / RAIN_FALL_WORLD_PER_S);
    if age_s < 0.0 || age_s >= RAIN_SPLASH_S {
        return none;
    }
    let across = rain_hash(start ^ rain_hash(bitcast<u32>(i32(falls))));
    let span = 2.0 * RAIN_RADIUS_WORLD;
    let drift_then = rain.wind.xy - rain.wind.zw * age_s;
    let x = rain_wrap_round(rain_unit(across) * span + drift_then.x, eye.x);
    let z = rain_wrap_round(rain_unit(rain_hash(across)) * span + drift_then.y, eye.z);
    let center = vec3<f32>(x, 0.0, z);
    if rain_sheltered(center) {
        return none;
    }
    return vec4<f32>(center, age_s);
}

// Debris piece `index` at `time_s` (with the drawn flag; its tail trails it upwind).
// keep in sync with src/weather/debris.rs: debris_at
fn rain_debris(index: u32, time_s: f32, eye: vec3<f32>) -> Drop {
    var out: Drop;
    out.drawn = false;
    if index >= u32(rain.viewport.z) {
        return out;
    }
    let wind = rain.wind.zw;
    let start = rain_hash((index * 0x85ebca6bu) ^ 0xc2b2ae35u);
    let lived = time_s / DEBRIS_LIFE_S + rain_unit(start);
    let lives = floor(lived);
    let age_s = (lived - lives) * DEBRIS_LIFE_S;
    let place = rain_hash(start ^ rain_hash(bitcast<u32>(i32(lives))));
    let across = rain_hash(place);
    let up = rain_hash(across);
    let x = eye.x + (rain_unit(place) * 2.0 - 1.0) * DEBRIS_RADIUS_WORLD
        + wind.x * (age_s - DEBRIS_LIFE_S * 0.5);
    let z = eye.z + (rain_unit(across) * 2.0 - 1.0) * DEBRIS_RADIUS_WORLD
        + wind.y * (age_s - DEBRIS_LIFE_S * 0.5);
    let y = 0.2 + rain_unit(up) * 2.5 + 0.3 * sin(age_s * 7.0 + rain_unit(up) * 6.0);
    let head = vec3<f32>(x, y, z);
    if length(head - eye) < RAIN_CLEAR_WORLD {
        return out;
    }
    out.head = head;
    out.tail = vec3<f32>(x - wind.x * DEBRIS_STREAK_S, y, z - wind.y * DEBRIS_STREAK_S);
    out.drawn = true;
    return out;
}

// How far through its life debris piece `index` is at `time_s`, 0..1.
fn rain_debris_life(index: u32, time_s: f32) -> f32 {
    let start = rain_hash((index * 0x85ebca6bu) ^ 0xc2b2ae35u);
    return fract(time_s / DEBRIS_LIFE_S + rain_unit(start));
}

struct RainOut {
    @builtin(position) clip: vec4<f32>,
    // −1 at one side of the streak, 1 at the other (a splash: across its disc in x).
    @location(0) across: f32,
    // Light on the drop times its opacity after the distance fog (rgb), and the opacity (a).
    @location(1) shade: vec4<f32>,
    // 0 along a streak; a splash: across its disc in z, −1..1.
    @location(2) along: f32,
}

// The light on a drop or splash at `pos_world` (linear): the ambient, the ball's light and
// the fires.
fn rain_light(pos_world: vec3<f32>, eye: vec3<f32>) -> vec3<f32> {
    let to_eye = normalize(eye - pos_world);
    let to_lamp = frame.ball_light_world.xyz - pos_world;
    let lamp_falloff = max(1.0 - length(to_lamp) / max(frame.ball_light_world.w, 1e-4), 0.0);
    return frame.ambient_color.rgb
        + frame.ball_light_color.rgb * (lamp_falloff * lamp_falloff)
        + fire_light_on_surface(pos_world, to_eye) * 1.5;
}

// A splash (vertex `vertex` from RAIN_DROPS · 6 on): a flat disc on the floor that widens and
// fades over its life.
fn rain_splash_vertex(index: u32, corner: u32, eye: vec3<f32>, time_s: f32) -> RainOut {
    var out: RainOut;
    let splash = rain_splash(index, time_s, eye);
    if splash.w < 0.0 {
        out.clip = vec4<f32>(0.0, 0.0, 2.0, 1.0);
        out.across = 0.0;
        out.along = 0.0;
        out.shade = vec4<f32>(0.0);
        return out;
    }
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let at = corners[corner];
    let life = splash.w / RAIN_SPLASH_S;
    let radius = mix(RAIN_SPLASH_RADIUS_WORLD.x, RAIN_SPLASH_RADIUS_WORLD.y, sqrt(life));
    let center = splash.xyz + vec3<f32>(0.0, RAIN_SPLASH_LIFT_WORLD, 0.0);
    let pos_world = center + vec3<f32>(at.x, 0.0, at.y) * radius;
    out.clip = frame.clip_from_world * vec4<f32>(pos_world, 1.0);
    out.across = at.x;
    out.along = at.y;
    let opacity = rain.counts.w * RAIN_SPLASH_OPACITY * (1.0 - life)
        * (1.0 - distance_fog_amount(center));
    out.shade = vec4<f32>(rain.color.rgb * rain_light(center, eye) * opacity, opacity);
    return out;
}

@vertex
fn vs_rain(@builtin(vertex_index) vertex: u32) -> RainOut {
    var out: RainOut;
    let eye = frame.eye_world.xyz;
    let time_s = frame.eye_world.w;
    if vertex / 6u >= RAIN_DROPS && vertex / 6u < 2u * RAIN_DROPS {
        return rain_splash_vertex(vertex / 6u - RAIN_DROPS, vertex % 6u, eye, time_s);
    }
    out.along = 0.0;
    // Debris from 2 · RAIN_DROPS · 6 on: streaks like the drops', in its own colour.
    let debris = vertex / 6u >= 2u * RAIN_DROPS;
    var drop: Drop;
    if debris {
        drop = rain_debris(vertex / 6u - 2u * RAIN_DROPS, time_s, eye);
    } else {
        drop = rain_drop(vertex / 6u, time_s, eye);
    }
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
    var offset_px = normal * side * rain.color.w * 0.5;
    out.across = side;
    if RAIN_OVER_SAMPLES {
        // A pixel wider a side, `across` still ±1 at the streak's own sides.
        let half_width_px = rain.color.w * 0.5;
        offset_px = normal * side * (half_width_px + 1.0);
        out.across = side * (half_width_px + 1.0) / half_width_px;
    }
    out.clip = clip + vec4<f32>(offset_px / half_px * clip.w, 0.0, 0.0);

    // Lit as a tiny sphere facing the eye: the ambient, the ball's light and the fires.
    let light = rain_light(drop.head, eye);
    var opacity = rain.counts.w * (1.0 - distance_fog_amount(drop.head));
    var color = rain.color.rgb;
    if debris {
        let life = rain_debris_life(vertex / 6u - 2u * RAIN_DROPS, time_s);
        opacity = DEBRIS_OPACITY * sin(3.14159265 * life) * (1.0 - distance_fog_amount(drop.head));
        color = DEBRIS_COLOR;
    }
    out.shade = vec4<f32>(color * light * opacity, opacity);
    return out;
}

@fragment
fn fs_rain(in: RainOut) -> @location(0) vec4<f32> {
    // A later sample of `--edge-samples` shades the pixels at an edge alone (common.wgsl).
    if outside_edges(vec2<u32>(in.clip.xy)) {
        discard;
    }
    // What the depth test `Less` would pass: nearer than the scene.
    if RAIN_READS_SCENE_DEPTH && in.clip.z >= textureLoad(scene_depth, vec2<i32>(in.clip.xy), 0).x {
        discard;
    }
    // Premultiplied: a soft-edged streak, or a soft disc for a splash (`along` is 0 all along
    // a streak, and on a disc's middle line the two agree).
    // Never below 0: next to the eye a streak's quad is so stretched on the screen that
    // `across` is interpolated a little past ±1, and a negative weight would take light away.
    var t = max(1.0 - abs(in.across), 0.0);
    if in.along != 0.0 {
        t = max(1.0 - length(vec2<f32>(in.across, in.along)), 0.0);
    }
    return in.shade * t;
}

// The drops over the mean of the frame's samples (over_samples.wgsl): each streak's and
// splash's weight at every sample's offset, tested against that sample's depth, averaged. A
// splash's quad is not widened: its disc fades to nothing at the quad's rim.
@fragment
fn fs_rain_over_samples(in: RainOut) -> @location(0) vec4<f32> {
    // Before any branch: derivatives need the whole quad of fragments.
    let across_dx = dpdx(in.across);
    let across_dy = dpdy(in.across);
    let along_dx = dpdx(in.along);
    let along_dy = dpdy(in.along);
    let depth_dx = dpdx(in.clip.z);
    let depth_dy = dpdy(in.clip.z);
    let pixel = vec2<i32>(in.clip.xy);
    let listed = textureLoad(edge_mask, pixel, 0).x;
    var weight = 0.0;
    for (var k = 0u; k < over_sample_count(); k += 1u) {
        let offset = over_offsets[k].xy;
        let depth = in.clip.z + depth_dx * offset.x + depth_dy * offset.y;
        if depth >= over_sample_depth(pixel, listed, k) {
            continue;
        }
        let across = in.across + across_dx * offset.x + across_dy * offset.y;
        var t = max(1.0 - abs(across), 0.0);
        if in.along != 0.0 {
            let along = in.along + along_dx * offset.x + along_dy * offset.y;
            t = max(1.0 - length(vec2<f32>(across, along)), 0.0);
        }
        weight += t;
    }
    if weight <= 0.0 {
        discard;
    }
    return in.shade * (weight / f32(over_sample_count()));
}
