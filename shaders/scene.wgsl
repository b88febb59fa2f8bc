// scene.wgsl: the `scene` pass — the temple's opaque geometry (stone floor, pillars, altar)
// and the emissive ball, lit by the ambient, directional and point lights, seen through the
// engine's linear distance fog. It writes the depth the fog sheets are tested against.
//
// Needs common.wgsl (frame uniforms, distance fog, colours), noise.wgsl (`tile_fbm`) and
// fires.wgsl (the torches' and braziers' light, and their glowing coals) and lamps.wgsl (the
// lamps' light and shadows).

// keep in sync with src/gpu/passes/scene.rs: SceneKnobs
struct SceneKnobs {
    // rgb: the darker stone colour (linear); w: unused.
    floor_dark: vec4<f32>,
    // rgb: the lighter stone colour (linear); w: unused.
    floor_light: vec4<f32>,
    // rgb: the joints between stones (linear); w: unused.
    joint_color: vec4<f32>,
    // rgb: the ball's emitted colour (linear); w: unused.
    ball_emissive: vec4<f32>,
    // x: side of one slab (world); y: half the floor's side (world); z: texels per slab side
    // (the example paints a 32-pixel tile); w: noise lattice cells across a slab.
    floor_layout: vec4<f32>,
    // x: noise seed; y, z, w: unused.
    floor_seed: vec4<u32>,
}

@group(1) @binding(0) var<uniform> knobs: SceneKnobs;

// Material ids carried per vertex; keep in sync with src/gpu/geometry.rs: Material.
const MATERIAL_SOLID: u32 = 0u;
const MATERIAL_FLOOR: u32 = 1u;
const MATERIAL_BALL: u32 = 2u;
const MATERIAL_EMBER: u32 = 3u;

struct VertexIn {
    @location(0) pos_model: vec3<f32>,
    @location(1) normal_model: vec3<f32>,
    @location(2) albedo: vec3<f32>,
    @location(3) material: u32,
}

struct VertexOut {
    @builtin(position) pos_clip: vec4<f32>,
    @location(0) pos_world: vec3<f32>,
    @location(1) normal_world: vec3<f32>,
    @location(2) albedo: vec3<f32>,
    @location(3) pos_model: vec3<f32>,
    @location(4) @interpolate(flat) material: u32,
}

@vertex
fn vs_scene(in: VertexIn) -> VertexOut {
    // Static geometry is built in world space; the ball is built round the origin and moved.
    var pos_world = in.pos_model;
    if in.material == MATERIAL_BALL {
        pos_world = in.pos_model + frame.ball_world.xyz;
    }
    var out: VertexOut;
    out.pos_clip = frame.clip_from_world * vec4<f32>(pos_world, 1.0);
    out.pos_world = pos_world;
    out.normal_world = in.normal_model;
    out.albedo = in.albedo;
    out.pos_model = in.pos_model;
    out.material = in.material;
    return out;
}

// The painted stone: noise between the two stone colours, and dark joints on the first texel
// row and column and on the middle ones, which cut each slab into four stones.
fn floor_albedo(pos_world: vec3<f32>) -> vec3<f32> {
    let tile_world = knobs.floor_layout.x;
    let half_floor_world = knobs.floor_layout.y;
    let texels = knobs.floor_layout.z;
    let uv_tile = fract((pos_world.xz + vec2<f32>(half_floor_world)) / tile_world);
    let texel = floor(uv_tile * texels);
    let middle = floor(texels * 0.5);
    let on_joint = any(texel == vec2<f32>(0.0)) || any(texel == vec2<f32>(middle));
    if on_joint {
        return knobs.joint_color.rgb;
    }
    let n = tile_fbm(uv_tile, u32(knobs.floor_layout.w), knobs.floor_seed.x);
    return mix(knobs.floor_dark.rgb, knobs.floor_light.rgb, n);
}

// Ambient (from above and below, `ambient_on_surface`) + Lambert for the directional light (in
// its shadows where the scene casts them) + the ball's point light, which fades to zero at its
// range, + the fires' flickering point lights.
// With a fog that shadows itself every light but the ambient arrives dimmed by the fog it
// crossed (common.wgsl, `fog_light_depths`), so the floor lies in a dense bank's shadow.
fn incoming_light(pos_world: vec3<f32>, normal_world: vec3<f32>) -> vec3<f32> {
    var through_fog = vec4<f32>(1.0);
    if FOG_SELF_SHADOWING {
        through_fog = exp(-fog_light_depths(pos_world));
    }
    var light = ambient_on_surface(normal_world);
    var sun_facing = max(dot(normal_world, -frame.sun_dir_world.xyz), 0.0);
    // The moon's shadows (lamps.wgsl; compiled out of scenes without them).
    if MOON_SHADOWS && sun_facing > 0.0 {
        sun_facing *= moon_shadow_on_surface(pos_world, normal_world, sun_facing);
    }
    light += frame.sun_color.rgb * (sun_facing * through_fog.x);

    let to_lamp = frame.ball_light_world.xyz - pos_world;
    let lamp_distance_world = length(to_lamp);
    let range_world = max(frame.ball_light_world.w, 1e-4);
    let falloff = clamp(1.0 - lamp_distance_world / range_world, 0.0, 1.0);
    let facing = max(dot(normal_world, to_lamp / max(lamp_distance_world, 1e-4)), 0.0);
    light += frame.ball_light_color.rgb * (falloff * falloff * facing * through_fog.y);
    light += fire_light_on_surface(pos_world, normal_world) * through_fog.z;
    light += lamps_on_surface(pos_world, normal_world) * through_fog.w;
    return light;
}

// ---- lamps: their light and shadows (shaders/lamps.wgsl); nothing without lamps ----
fn lamps_on_surface(pos_world: vec3<f32>, normal_world: vec3<f32>) -> vec3<f32> {
    if lamp_count() == 0u {
        return vec3<f32>(0.0);
    }
    return lamp_light_on_surface(pos_world, normal_world);
}
// ---- end lamps ----

// ---- weather: wet stone (src/gpu/weather.rs puts the wetness in ambient_color.w) ----
// Whether the scene has weather (`ScenePass` sets it, src/gpu/passes/scene.rs). Without it the
// wetness is always 0, so `wet_stone` would hand every colour back untouched: off, the compiler
// drops its code from the pipeline. A CPU adapter (lavapipe) runs every branch of a shader for
// every pixel, taken or not, so the sheen's loop over the fires cost every pixel there.
override WEATHER_IN_SCENE: bool = true;

// Wetness darkens an upward surface and polishes it: a sharp highlight of the ball's light
// and the fires toward the eye. 0 (every scene without weather) leaves the colour untouched.
// `light` is what `incoming_light` gave for this point (worked out once per fragment).
fn wet_stone(
    color: vec3<f32>,
    albedo: vec3<f32>,
    light: vec3<f32>,
    pos_world: vec3<f32>,
    normal_world: vec3<f32>,
) -> vec3<f32> {
    let wet = frame.ambient_color.w * smoothstep(0.6, 0.9, normal_world.y);
    if wet <= 0.0 {
        return color;
    }
    let to_eye = normalize(frame.eye_world.xyz - pos_world);
    let to_lamp = frame.ball_light_world.xyz - pos_world;
    let lamp_falloff = clamp(1.0 - length(to_lamp) / max(frame.ball_light_world.w, 1e-4), 0.0, 1.0);
    let lamp_half = normalize(normalize(to_lamp) + to_eye);
    var sheen = frame.ball_light_color.rgb * lamp_falloff
        * pow(max(dot(normal_world, lamp_half), 0.0), 60.0);
    for (var i = 0u; i < fire_count(); i += 1u) {
        let fire = fire_lights.fires[i];
        let to_fire = fire_light_world(fire) - pos_world;
        let reach = clamp(1.0 - length(to_fire) / max(fire.foot_world.w, 1e-4), 0.0, 1.0);
        // Out of the fire's range its sheen is exactly 0: skip the rest.
        if reach <= 0.0 {
            continue;
        }
        let fire_half = normalize(normalize(to_fire) + to_eye);
        sheen += fire.light_color.rgb * reach * pow(max(dot(normal_world, fire_half), 0.0), 60.0);
    }
    // Darker where wet (water fills the stone's pores), and a glaze that catches the lights.
    let darker = albedo * (1.0 - 0.45 * wet) * light;
    return mix(color, darker, wet) + sheen * (1.5 * wet);
}
// ---- end weather ----

// The colour of a point of the hall as the camera sees it, from what the fragment shader is
// given (the normal as interpolated, not yet unit length); the raster pass's fragment shader
// and the compute `scene` pass (scene_compute.wgsl) both shade through it.
fn shade_surface(
    pos_world: vec3<f32>,
    normal_interpolated: vec3<f32>,
    vertex_albedo: vec3<f32>,
    pos_model: vec3<f32>,
    material: u32,
) -> vec3<f32> {
    let normal_world = normalize(normal_interpolated);
    var albedo = vertex_albedo;
    if material == MATERIAL_FLOOR {
        albedo = floor_albedo(pos_world);
    }
    let light = incoming_light(pos_world, normal_world);
    var color = albedo * light;
    if WEATHER_IN_SCENE && material != MATERIAL_EMBER && material != MATERIAL_BALL {
        color = wet_stone(color, albedo, light, pos_world, normal_world);
    }
    if material == MATERIAL_BALL {
        // Faint bands round the vertical axis turn with the ball's spin, so it is seen to roll.
        let spin_rad = frame.ball_light_color.w;
        let longitude = atan2(pos_model.z, pos_model.x) + spin_rad;
        let band = 0.92 + 0.08 * cos(longitude * 4.0);
        color += knobs.ball_emissive.rgb * band;
    }
    if material == MATERIAL_EMBER {
        // Glowing coals: their own light, unlit.
        color = vertex_albedo;
    }
    return apply_distance_fog(color, pos_world);
}

@fragment
fn fs_scene(in: VertexOut) -> @location(0) vec4<f32> {
    let color = shade_surface(in.pos_world, in.normal_world, in.albedo, in.pos_model, in.material);
    return vec4<f32>(color, 1.0);
}
