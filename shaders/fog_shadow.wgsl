// fog_shadow.wgsl: the `fog_shadow` pass — how much fog the moon's, the ball's, the fires' and
// the lamps' light cross to reach each cell of a grid over the fog's box
// (src/gpu/passes/fog_shadow.rs).
//
// Each invocation takes one cell's centre, marches toward the moon until it leaves the fog's
// box and toward each point light until it reaches it (or leaves the box), and writes the
// optical depths: x the moon's, y the ball's, z the fires', w the lamps'. The fires share one
// depth a cell, and so do the lamps: the mean of their depths weighted by how much of each one's
// light reaches the cell (its colour and range fade), right wherever one fire outshines the
// others. The medium and the surfaces read them back (`fog_light_depths` in common.wgsl) to dim
// each light by exp(−depth). The density is `fog_medium`'s without its 3D
// noise, which averages out over a light's long path: the fluid's amount, the height profile
// with its lift, the fade at the square's edges and the ball's hollow, times the noise's mean.
//
// Needs common.wgsl (the frame's lights, `FOG_SHADOW_GRID`) and fog.wgsl (`FogKnobs`,
// `sample_map`, the maps and knobs at group 1, `fog_box_span`).

// The mean of the density's noise factor, 0.35 + clamp((n − 0.36) · 2.2, 0, 1), over the
// fog's noise n (three octaves of value noise, mean 0.5).
const FOG_SHADOW_NOISE_MEAN: f32 = 0.66;

// The most steps of one march: a light's path across the whole box takes this many.
const FOG_SHADOW_MAX_STEPS: u32 = 32u;

// Invocations in one workgroup, one cell each.
// keep in sync with src/gpu/passes/fog_shadow.rs: WORKGROUP_CELLS
const FOG_SHADOW_WORKGROUP: u32 = 64u;

// The grid's depths as this pass writes them (common.wgsl's `fog_shadow_depths`, read there).
@group(2) @binding(0) var fog_shadow_out: texture_storage_2d_array<rgba16float, write>;

// The fog's extinction at `p_world` without the noise (1/world unit).
// keep in sync with fog.wgsl: fog_medium (its density, the noise replaced by its mean; the
// profile is the shared `fog_profile`)
fn fog_smooth_extinction(p_world: vec3<f32>, knobs: FogKnobs) -> f32 {
    let uv = (p_world.xz - knobs.area.xy) / knobs.area.zw;
    if any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) {
        return 0.0;
    }
    // The lift rides in the fluid map's fourth channel (src/gpu/maps.rs).
    let fluid = sample_map(fluid_map, uv);
    let amount = fluid.r * 2.0;
    let profile = fog_profile(p_world, amount, fluid.a, knobs).x;
    let edge = min(min(uv.x, 1.0 - uv.x), min(uv.y, 1.0 - uv.y));
    let ball_radius = knobs.ball.w;
    let ball_distance = length(p_world - knobs.ball.xyz);
    let density = FOG_SHADOW_NOISE_MEAN * profile * amount * smoothstep(0.0, 0.18, edge)
        * smoothstep(ball_radius * 0.9, ball_radius * 1.6, ball_distance);
    return density * knobs.optics.x;
}

// The optical depth along `length_world` of the unit `dir` from `start_world`, in equal steps
// of about `step_world` (at most `FOG_SHADOW_MAX_STEPS`), each sampled at its middle.
fn fog_optical_depth(
    start_world: vec3<f32>,
    dir: vec3<f32>,
    length_world: f32,
    step_world: f32,
    knobs: FogKnobs,
) -> f32 {
    if length_world <= 0.0 {
        return 0.0;
    }
    let steps = clamp(u32(ceil(length_world / step_world)), 1u, FOG_SHADOW_MAX_STEPS);
    let step_length = length_world / f32(steps);
    var depth = 0.0;
    for (var i = 0u; i < steps; i += 1u) {
        let p_world = start_world + dir * ((f32(i) + 0.5) * step_length);
        depth += fog_smooth_extinction(p_world, knobs);
    }
    return depth * step_length;
}

@compute @workgroup_size(FOG_SHADOW_WORKGROUP)
fn cs_fog_shadow(@builtin(global_invocation_id) id: vec3<u32>) {
    let cells = FOG_SHADOW_GRID;
    let index = id.x;
    if index >= cells.x * cells.y * cells.z {
        return;
    }
    let x = index % cells.x;
    let z = (index / cells.x) % cells.z;
    let y = index / (cells.x * cells.z);
    let knobs = fog;
    let low = frame.fog_shadow_low.xyz;
    let size = frame.fog_shadow_size.xyz;
    let cell = vec3<f32>(f32(x), f32(y), f32(z)) + vec3<f32>(0.5);
    let p_world = low + cell / vec3<f32>(cells) * size;
    // One step a cell's height: the profile changes fastest upward.
    let step_world = size.y / f32(cells.y);

    // The moon: back along its light's travel, to where that leaves the fog's box.
    let to_moon = -frame.sun_dir_world.xyz;
    let moon_exit = fog_box_span(p_world, to_moon, knobs).y;
    let moon = fog_optical_depth(p_world, to_moon, max(moon_exit, 0.0), step_world, knobs);

    // The ball's light: up to it, or to where the way leaves the box.
    let to_ball = frame.ball_light_world.xyz - p_world;
    let ball_distance = length(to_ball);
    var ball = 0.0;
    if ball_distance > 1e-4 {
        let dir = to_ball / ball_distance;
        let exit = max(fog_box_span(p_world, dir, knobs).y, 0.0);
        ball = fog_optical_depth(p_world, dir, min(ball_distance, exit), step_world, knobs);
    }
    // The fires and the lamps: each one's depth, weighted by its light here.
    var fires = vec2<f32>(0.0);
    for (var i = 0u; i < fire_count(); i += 1u) {
        let light = fires_now.fires[i].light_world;
        let color = fire_lights.fires[i].light_color.rgb;
        let edge = clamp(1.0 - length(light.xyz - p_world) / max(light.w, 1e-4), 0.0, 1.0);
        let weight = edge * edge * (color.r + color.g + color.b);
        fires += weighted_depth(p_world, light.xyz, weight, step_world, knobs);
    }
    var lamps = vec2<f32>(0.0);
    for (var i = 0u; i < lamp_count(); i += 1u) {
        let lamp = lamp_lights.lamps[i];
        let to_point = p_world - lamp.pos_world.xyz;
        let from_lamp = to_point / max(length(to_point), 1e-5);
        let weight = lamp_falloff(lamp, length(to_point)) * lamp_cone(lamp, from_lamp)
            * (lamp.color.r + lamp.color.g + lamp.color.b);
        lamps += weighted_depth(p_world, lamp.pos_world.xyz, weight, step_world, knobs);
    }
    let fire_depth = fires.x / max(fires.y, 1e-30);
    let lamp_depth = lamps.x / max(lamps.y, 1e-30);
    let depths = vec4<f32>(moon, ball, fire_depth, lamp_depth);
    textureStore(fog_shadow_out, vec2<u32>(x, z), y, depths);
}

// A point light at `light_world` whose light reaches `p_world` with `weight`: its optical depth
// to there times the weight, and the weight (both 0 where none of its light arrives).
fn weighted_depth(
    p_world: vec3<f32>,
    light_world: vec3<f32>,
    weight: f32,
    step_world: f32,
    knobs: FogKnobs,
) -> vec2<f32> {
    let to_light = light_world - p_world;
    let distance_world = length(to_light);
    if weight <= 0.0 || distance_world <= 1e-4 {
        return vec2<f32>(0.0);
    }
    let dir = to_light / distance_world;
    let exit = max(fog_box_span(p_world, dir, knobs).y, 0.0);
    let depth = fog_optical_depth(p_world, dir, min(distance_world, exit), step_world, knobs);
    return vec2<f32>(depth * weight, weight);
}
